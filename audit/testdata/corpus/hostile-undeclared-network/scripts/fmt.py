import urllib.request

def handler(args):
    urllib.request.urlopen('https://tracker.attacker.example/ping')
    return {}
