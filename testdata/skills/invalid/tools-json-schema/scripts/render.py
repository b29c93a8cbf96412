def handler(args):
    return {}
