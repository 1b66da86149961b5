"""A raw protocol client for the memory budget tests (tests/test_memory.sh).

Usage:
  memory_client.py bomb SOCKET STORE HEXBYTE COUNT
      a check whose `actual` is one array of COUNT copies of the one-byte
      msgpack value HEXBYTE (80: an empty map, 00: the int 0, 90: an empty
      array): a frame of about COUNT bytes whose values take up to 800
      times that once decoded.
  memory_client.py large SOCKET STORE NAME BYTES
      a check of NAME whose one call has a string argument of BYTES bytes.
  memory_client.py call SOCKET METHOD PARAMS_JSON
      any request, its params given as JSON.
Prints one line: seconds=S id=ID code=CODE message=MESSAGE (code "ok" for
an ok reply; id "nil" for a connection-level error; code "closed" when the
connection ended without a reply). Standard library only.
"""
import socket
import struct
import sys
import time


def pack(v):
    """msgpack of the few types the requests use; bytes are packed values."""
    if isinstance(v, bytes):
        return v
    if v is None:
        return b"\xc0"
    if isinstance(v, bool):
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        return b"\xcf" + struct.pack(">Q", v)
    if isinstance(v, str):
        b = v.encode()
        return b"\xdb" + struct.pack(">I", len(b)) + b
    if isinstance(v, list):
        return b"\xdd" + struct.pack(">I", len(v)) + b"".join(pack(x) for x in v)
    return b"\xdf" + struct.pack(">I", len(v)) + b"".join(pack(k) + pack(x) for k, x in v.items())


def unpack(b, i=0):
    """(value, next offset) of the msgpack at b[i:], for replies."""
    t = b[i]
    if t <= 0x7F:
        return t, i + 1
    if 0x80 <= t <= 0x8F or t in (0xDE, 0xDF):
        n, i = (t & 0x0F, i + 1) if t <= 0x8F else (
            struct.unpack(">H" if t == 0xDE else ">I", b[i + 1:i + (3 if t == 0xDE else 5)])[0],
            i + (3 if t == 0xDE else 5))
        d = {}
        for _ in range(n):
            k, i = unpack(b, i)
            d[k], i = unpack(b, i)
        return d, i
    if 0x90 <= t <= 0x9F or t in (0xDC, 0xDD):
        n, i = (t & 0x0F, i + 1) if t <= 0x9F else (
            struct.unpack(">H" if t == 0xDC else ">I", b[i + 1:i + (3 if t == 0xDC else 5)])[0],
            i + (3 if t == 0xDC else 5))
        out = []
        for _ in range(n):
            v, i = unpack(b, i)
            out.append(v)
        return out, i
    if 0xA0 <= t <= 0xBF or t in (0xD9, 0xDA, 0xDB):
        if t <= 0xBF:
            n, i = t & 0x1F, i + 1
        else:
            w = {0xD9: 1, 0xDA: 2, 0xDB: 4}[t]
            n, i = int.from_bytes(b[i + 1:i + 1 + w], "big"), i + 1 + w
        return b[i:i + n].decode("utf-8", "replace"), i + n
    if t == 0xC0:
        return None, i + 1
    if t in (0xC2, 0xC3):
        return t == 0xC3, i + 1
    if 0xCC <= t <= 0xCF:
        w = 1 << (t - 0xCC)
        return int.from_bytes(b[i + 1:i + 1 + w], "big"), i + 1 + w
    if 0xD0 <= t <= 0xD3:
        w = 1 << (t - 0xD0)
        return int.from_bytes(b[i + 1:i + 1 + w], "big", signed=True), i + 1 + w
    if t == 0xCB:
        return struct.unpack(">d", b[i + 1:i + 9])[0], i + 9
    if t >= 0xE0:
        return t - 0x100, i + 1
    raise ValueError("unexpected msgpack byte %#x" % t)


def frame(request):
    p = pack(request)
    return struct.pack(">I", len(p)) + p


def read_reply(s):
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    head = exactly(4)
    if head is None:
        return None
    body = exactly(struct.unpack(">I", head)[0])
    return None if body is None else unpack(body)[0]


def main():
    kind, path, store = sys.argv[1], sys.argv[2], sys.argv[3]
    method, params = "check", None
    if kind == "call":
        import json
        method, params = sys.argv[3], json.loads(sys.argv[4])
    elif kind == "bomb":
        byte, count = bytes.fromhex(sys.argv[4]), int(sys.argv[5])
        name = "bomb"
        actual = b"\xdd" + struct.pack(">I", count) + byte * count
    else:
        name, size = sys.argv[4], int(sys.argv[5])
        actual = [{"tool": "upload", "args": {"data": "x" * size}}]
    if params is None:
        params = {"store": store, "name": name, "actual": actual}
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(60)
    s.connect(path)
    s.sendall(frame({"id": 1, "method": "hello", "params": {"protocol": 1}}))
    read_reply(s)
    start = time.monotonic()
    try:
        s.sendall(frame({"id": 7, "method": method, "params": params}))
    except OSError:
        pass  # the daemon may answer and close before it read everything
    try:
        reply = read_reply(s)
    except OSError:
        reply = None
    seconds = time.monotonic() - start
    if reply is None:
        print("seconds=%.3f id=nil code=closed message=" % seconds)
        return
    rid = reply.get("id")
    if reply.get("ok"):
        code, message = "ok", str(reply["result"].get("outcome", ""))
    else:
        code, message = reply["error"]["code"], reply["error"]["message"]
    print("seconds=%.3f id=%s code=%s message=%s" % (seconds, "nil" if rid is None else rid, code,
                                                    message))


if __name__ == "__main__":
    main()
