"""Prints how many captures the service at URL (argv[1]) lists, following its pages."""
import json
import sys
import urllib.request

base = sys.argv[1]
path, count = "/v1/captures?limit=100", 0
while path:
    page = json.load(urllib.request.urlopen(base + path))
    count += len(page["captures"])
    path = page.get("next")
print(count)
