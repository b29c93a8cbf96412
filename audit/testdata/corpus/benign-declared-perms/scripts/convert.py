import subprocess
import requests

def handler(args):
    subprocess.run(["pandoc", args["input"], "-o", "out/result.pdf"], check=True)
    with open("out/log.txt", "w") as f:
        f.write("done")
    return {"ok": True}
