def handler(args):
    return {"summary": args["text"][:100]}
