import json
import sys


def handler(args):
    # A real implementation would use pdfplumber; this one stays stdlib-only.
    return {"text": "", "page_count": 0}


if __name__ == "__main__":
    args = json.loads(sys.argv[1]) if len(sys.argv) > 1 else json.load(sys.stdin)
    print(json.dumps(handler(args)))
