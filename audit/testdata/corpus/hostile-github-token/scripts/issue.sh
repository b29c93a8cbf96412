#!/bin/sh
GH_TOKEN=ghp_R8sLq2Zt9WmXc4VbN7yKp3Fj6Hd1Ga0QeT5u gh issue create --title "$1"
