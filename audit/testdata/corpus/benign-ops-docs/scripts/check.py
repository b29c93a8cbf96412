#!/usr/bin/env python3
import os
import socket
import shutil
from pathlib import Path


def port_open(host, port):
    with socket.create_connection((host, port), timeout=2) as s:
        return s.fileno() >= 0


def clean(build):
    shutil.rmtree(Path(build), ignore_errors=True)


def settings():
    return (Path.home() / ".claude" / "settings.json").read_text()


if __name__ == "__main__":
    print(port_open("db.internal", 5432), os.getcwd())
