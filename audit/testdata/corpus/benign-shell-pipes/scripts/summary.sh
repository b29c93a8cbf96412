#!/bin/sh
set -eu
cat "$1" | sort | uniq -c | sort -rn | head -20
ps aux | grep -v grep | grep -c python
printf '%s' "$TOKEN_NAME" | base64
base64 -d encoded.txt > decoded.bin
echo done >&2
