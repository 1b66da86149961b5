"""A fake toolscored for the trust tests (tests/test_trust_socket.sh).

Usage: fake_daemon.py SOCKET LOG. Listens on SOCKET (mode 0777), appends to
LOG "connection" for each connection, every byte received as hex, and
"closed" once the client closed it (so a test knows the log is whole), and
answers like a daemon would: hello with protocol 1, any other request with
a passing check (what the attacker of the review made `tsctl check` print).
Prints "ready" once it listens. Standard library only.
"""
import os
import socket
import struct
import sys
import threading


def pack(v):
    """msgpack of the few types the replies use."""
    if v is None:
        return b"\xc0"
    if v is True:
        return b"\xc3"
    if v is False:
        return b"\xc2"
    if isinstance(v, int):
        return b"\xcf" + struct.pack(">Q", v)
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode()
        return b"\xdb" + struct.pack(">I", len(b)) + b
    return b"\xdf" + struct.pack(">I", len(v)) + b"".join(pack(k) + pack(x) for k, x in v.items())


def request_id(payload):
    """The id of {"id": uint, ...}: it follows the map header and "id"."""
    b = payload[4:]
    if b and b[0] < 0x80:
        return b[0]
    n = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}.get(b[0] if b else 0, 0)
    return int.from_bytes(b[1 : 1 + n], "big")


def serve(conn, log):
    buf = b""
    with open(log, "a") as f:
        f.write("connection\n")
        f.flush()
        while True:
            data = conn.recv(65536)
            if not data:
                f.write("closed\n")
                return
            f.write(data.hex() + "\n")
            f.flush()
            buf += data
            while len(buf) >= 4 and len(buf) >= 4 + struct.unpack(">I", buf[:4])[0]:
                n = struct.unpack(">I", buf[:4])[0]
                payload, buf = buf[4 : 4 + n], buf[4 + n :]
                if b"hello" in payload[:24]:
                    result = {"protocol": 1, "server": "toolscored/0.1.0", "pid": 1, "max_frame": 16777216}
                else:
                    result = {"name": "test_payment", "outcome": "PASSED", "file": "x.json",
                              "message": "", "result": {"score": 1.0}, "report": None}
                reply = pack({"id": request_id(payload), "ok": True, "result": result})
                conn.sendall(struct.pack(">I", len(reply)) + reply)


def main():
    path, log = sys.argv[1], sys.argv[2]
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o777)
    s.listen(16)
    open(log, "a").close()
    print("ready", flush=True)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, log), daemon=True).start()


main()
