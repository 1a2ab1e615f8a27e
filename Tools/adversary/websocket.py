"""A minimal WebSocket client (RFC 6455) on the standard library: enough to push binary frames to
a stream, watch one, and read the server's close code and reason. Every socket has a timeout."""
import base64
import os
import socket
import struct


class Closed(Exception):
    def __init__(self, code, reason):
        super().__init__(f"{code} {reason}")
        self.code = code
        self.reason = reason


class WebSocket:
    def __init__(self, port, path, headers=None, timeout=30):
        self.timeout = timeout
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.settimeout(timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError(f"the server closed the upgrade: {head[:200]!r}")
            head += chunk
        self.head, self.buffer = head.split(b"\r\n\r\n", 1)
        self.status = int(self.head[9:12])
        if self.status != 101:
            raise ConnectionError(f"upgrade refused: {self.head[:600]!r}")

    def send(self, payload, opcode=2):
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if n < 4096 else _mask(payload, mask)
        self.sock.sendall(header + mask + masked)

    def _read(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("the connection closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def receive(self):
        """The next data message's payload; `Closed` with the server's code and reason at its close."""
        while True:
            first, second = self._read(2)
            n = second & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(n)
            opcode = first & 0x0F
            if opcode == 8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                raise Closed(code, payload[2:].decode(errors="replace"))
            if opcode == 9:
                self.send(payload, opcode=10)
                continue
            if opcode in (1, 2):
                return payload

    def closed_by_server(self, wait):
        """The server's close, if it sends one within `wait` seconds (data messages are skipped)."""
        self.sock.settimeout(wait)
        try:
            while True:
                self.receive()
        except Closed as closed:
            return closed
        except OSError:
            return None
        finally:
            self.sock.settimeout(self.timeout)

    def close(self):
        try:
            self.send(struct.pack("!H", 1000), opcode=8)
        except OSError:
            pass
        self.sock.close()


def _mask(payload, mask):
    """XOR with the 4-byte mask, fast enough for megabytes: as one big integer."""
    repeated = (mask * (len(payload) // 4 + 1))[:len(payload)]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(repeated, "little")).to_bytes(len(payload), "little")


def push_message(frame, depth_png, width, height, color_jpeg=None, captured=0):
    """A stream push message: a 4-byte little-endian header length, the JSON header, the payloads."""
    import json
    header = {"frame": frame, "captured": captured, "depth": {"encoding": "png", "width": width, "height": height, "bytes": len(depth_png)}}
    if color_jpeg is not None:
        header["color"] = {"encoding": "jpeg", "bytes": len(color_jpeg)}
    text = json.dumps(header).encode()
    return struct.pack("<I", len(text)) + text + depth_png + (color_jpeg or b"")


def png16(width, height, value):
    """A 16-bit grey PNG of one value everywhere, made with zlib: a few KB for any size."""
    import zlib

    def chunk(kind, data):
        return struct.pack("!I", len(data)) + kind + data + struct.pack("!I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    row = b"\0" + struct.pack("!H", value) * width
    compressor = zlib.compressobj(9)
    data = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack("!IIBBBBB", width, height, 16, 0, 0, 0, 0))
            + chunk(b"IDAT", data) + chunk(b"IEND", b""))
