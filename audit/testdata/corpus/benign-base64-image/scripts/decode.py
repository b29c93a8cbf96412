import base64
from pathlib import Path

def handler(args):
    raw = base64.b64decode(args["data"])
    out = Path("output") / args["name"]
    out.write_bytes(raw)
    return {"path": str(out), "bytes": len(raw)}
