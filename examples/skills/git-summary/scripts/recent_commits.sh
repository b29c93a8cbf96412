#!/usr/bin/env bash
# recent-commits: JSON arguments on stdin, a JSON result on stdout.
set -euo pipefail
args=$(cat)
count=$(printf '%s' "$args" | sed -n 's/.*"count"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p')
count=${count:-10}
workdir=$(printf '%s' "$args" | sed -n 's/.*"__workDir"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
cd "${workdir:-.}"
printf '{"commits": ['
sep=""
git log -n "$count" --format='%s' 2>/dev/null | while IFS= read -r subject; do
  subject=${subject//\\/\\\\}
  subject=${subject//\"/\\\"}
  printf '%s"%s"' "$sep" "$subject"
  sep=","
done
printf ']}\n'
