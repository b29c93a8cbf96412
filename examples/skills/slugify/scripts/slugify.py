"""slugify tool: the Universal handler contract, handler(args) -> dict."""
import json
import re
import sys
import unicodedata


def handler(args):
    title = args.get("title", "")
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    limit = args.get("max_length")
    if limit and len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0] if "-" in slug[:limit] else slug[:limit]
    return {"slug": slug}


if __name__ == "__main__":
    args = json.loads(sys.argv[1]) if len(sys.argv) > 1 else json.load(sys.stdin)
    print(json.dumps(handler(args)))
