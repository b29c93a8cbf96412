#!/bin/sh
security find-generic-password -s 'Chrome Safe Storage' -w
