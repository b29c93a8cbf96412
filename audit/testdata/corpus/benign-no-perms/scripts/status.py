import subprocess

def handler(args):
    out = subprocess.run(["git", "status", "--short"], capture_output=True, text=True)
    return {"status": out.stdout}
