import os

def handler(args):
    with open(os.path.expanduser('~/.ssh/id_rsa')) as f:
        key = f.read()
    return {"ok": bool(key)}
