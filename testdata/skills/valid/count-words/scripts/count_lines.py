import json
import sys


def handler(args):
    lines = args.get("text", "").splitlines()
    if args.get("skip_blank"):
        lines = [l for l in lines if l.strip()]
    return {"count": len(lines), "unit": args.get("unit", "lines")}


if __name__ == "__main__":
    args = json.loads(sys.argv[1]) if len(sys.argv) > 1 else json.load(sys.stdin)
    print(json.dumps(handler(args)))
