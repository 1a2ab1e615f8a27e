#!/usr/bin/env python3
"""Builds the upload that the service benchmark posts over and over (Tools/bench/service/run): one
multipart/form-data body with the parts of cloudgen's `POST /v1/captures` contract, made once so that
wrk sends the same bytes to both services.

Usage: make_upload.py DEPTH_PNG COLOR_PNG INTRINSICS_JSON DEPTH_SCALE OUT_BODY
Writes the body to OUT_BODY and prints its Content-Type header value. Standard library only.
"""

import os
import sys
import uuid


def part(boundary, name, content, filename=None, content_type=None):
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'
    if filename:
        head += f'; filename="{filename}"'
    head += "\r\n"
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    return head.encode() + b"\r\n" + content + b"\r\n"


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__.split("\n\n")[1])
    depth, color, intrinsics, scale, out = sys.argv[1:]
    boundary = "bench-" + uuid.uuid4().hex
    files = [("depth", depth, "image/png"), ("color", color, "image/png"), ("intrinsics", intrinsics, "application/json")]
    body = b"".join(part(boundary, name, open(path, "rb").read(), os.path.basename(path), kind)
                    for name, path, kind in files)
    body += part(boundary, "depth_scale", scale.encode())
    body += f"--{boundary}--\r\n".encode()
    with open(out, "wb") as f:
        f.write(body)
    print(f"multipart/form-data; boundary={boundary}")


if __name__ == "__main__":
    main()
