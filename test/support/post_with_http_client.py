"""POSTs one file to one URL COUNT times, WORKERS at a time, each on a connection of its own, with
Python's http.client as a publisher's script would; prints one JSON line per request:
{"status": 413, "body": "..."} or {"error": "BrokenPipeError: ..."}.

usage: post_with_http_client.py URL CONTENT_TYPE FILE COUNT WORKERS
"""

import http.client
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

url, content_type, path, count, workers = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
target = urlsplit(url)
with open(path, "rb") as file:
    body = file.read()


def post(_):
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    try:
        connection.request("POST", target.path, body=body, headers={"Content-Type": content_type})
        response = connection.getresponse()
        return {"status": response.status, "body": response.read().decode("utf-8", "replace")}
    except Exception as error:  # every failure is a result to count, not a crash
        return {"error": f"{type(error).__name__}: {error}"}
    finally:
        connection.close()


with ThreadPoolExecutor(workers) as pool:
    for result in pool.map(post, range(count)):
        print(json.dumps(result), flush=True)
