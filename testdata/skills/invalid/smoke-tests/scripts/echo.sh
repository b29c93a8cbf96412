#!/usr/bin/env bash
set -euo pipefail
python3 -c "import json,sys; print(json.dumps({\"result\": json.load(sys.stdin)[\"text\"]}))"
