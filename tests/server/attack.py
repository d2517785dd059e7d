#!/usr/bin/python3
"""Hostile clients for run_attack_tests.sh, on loopback. Each prints one
line of results; every wait is bounded.
  fetch PORT CONNS COUNT FORMAT   one new connection per GET /v1/new (the
                                  issue's duplicates scenario): prints the IDs
  pipeline PORT N                 N PINGs in one write: prints the PONGs read
  http-pipeline PORT N            N GET /healthz in one write: prints the 200s
  never-read PORT N SECONDS       N ID.NEW ulid 10000 sent, nothing read:
                                  prints "closed" when the server drops it
  slowloris PORT CONNS SECONDS    CONNS connections sending a byte of a request
                                  every second: prints how many the server closed
  flood PORT CONNS                CONNS connections held open, a PING on each:
                                  prints "answered refused silent"
  send PORT HEX|-                 sends the bytes (- : stdin's), prints what
                                  comes back (repr) until the server closes (5 s)
  replies PORT HEX|-              the same, read as RESP2 replies: a line each,
                                  simple ones as sent, a bulk string as $LEN,
                                  an array as *N, its size in bytes and how many
                                  strings it holds (distinct ones) (30 s)
  crowd PORT N HEX                N more connections, each answered a PING and
                                  held open, then as send"""
import socket
import sys
import time


def conn(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_all(s, deadline, one_line=False):
    """What s sends until it closes, the deadline, or (one_line) a newline."""
    data = b""
    while time.time() < deadline and not (one_line and b"\n" in data):
        try:
            s.settimeout(max(0.05, deadline - time.time()))
            b = s.recv(65536)
        except socket.timeout:
            break
        except OSError:
            break
        if not b:
            break
        data += b
    return data


def fetch(port, conns, count, fmt):
    out = []
    req = f"GET /v1/new/{fmt}?count={count} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    for _ in range(conns):
        s = conn(port)
        s.sendall(req)
        data = read_all(s, time.time() + 10)
        s.close()
        head, _, body = data.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            print("bad response:", head[:80], file=sys.stderr)
            sys.exit(1)
        out.append(body.decode())
    sys.stdout.write("".join(out))


def pipeline(port, n, http):
    s = conn(port)
    if http:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * n)
        want = b"HTTP/1.1 200"
    else:
        s.sendall(b"PING\r\n" * n)
        want = b"+PONG"
    data = b""
    deadline = time.time() + 30
    while data.count(want) < n and time.time() < deadline:
        s.settimeout(max(0.05, deadline - time.time()))
        try:
            b = s.recv(1 << 20)
        except socket.timeout:
            break
        if not b:
            break
        data += b
    print(data.count(want))


def never_read(port, n, seconds):
    s = conn(port)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(0.5)
    sent = 0
    deadline = time.time() + seconds
    cmd = b"ID.NEW ulid 10000\r\n"
    while time.time() < deadline:
        try:
            if sent < n:
                s.send(cmd)
                sent += 1
            else:
                time.sleep(0.2)
                # a closed connection shows as an error on send (RST) or EOF
                s.send(b"PING\r\n")
        except socket.timeout:
            continue
        except OSError:
            print("closed")
            return
    print("open")


def slowloris(port, conns, seconds):
    socks = []
    for _ in range(conns):
        try:
            socks.append(conn(port))
        except OSError:
            break
    req = b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
    closed = set()
    for i in range(seconds):
        for k, s in enumerate(socks):
            if k in closed:
                continue
            try:
                s.send(req[i % len(req):i % len(req) + 1])
            except OSError:
                closed.add(k)
        time.sleep(1)
    for k, s in enumerate(socks):
        if k in closed:
            continue
        s.setblocking(False)
        try:
            s.recv(65536)   # a 408 answer or EOF: the server gave up on it
            closed.add(k)
        except BlockingIOError:
            pass            # nothing yet: still open
        except OSError:
            closed.add(k)
    print(len(closed))


def flood(port, conns):
    socks = []
    for _ in range(conns):
        try:
            s = conn(port)
            s.sendall(b"PING\r\n")
            socks.append(s)
        except OSError:
            pass
    answered = refused = silent = 0
    deadline = time.time() + 10
    for s in socks:
        data = read_all(s, deadline, one_line=True)
        if data.startswith(b"+PONG"):
            answered += 1
        elif data.startswith(b"-ERR max number of clients"):
            refused += 1
        else:
            silent += 1
    print(answered, refused, silent + conns - len(socks))


def sent(port, hexdata, seconds):
    """What the server answers, within seconds, to the bytes given in hex
    (or "-": standard input) on a new connection."""
    s = conn(port)
    try:
        s.sendall(sys.stdin.buffer.read() if hexdata == "-" else bytes.fromhex(hexdata))
    except OSError:
        pass
    return read_all(s, time.time() + seconds)


def send(port, hexdata):
    print(repr(sent(port, hexdata, 5)))


def reply_end(data, i, strings):
    """The end of the RESP2 reply at data[i:], or -1 if it is incomplete;
    the bulk strings met are added to strings."""
    nl = data.find(b"\r\n", i)
    if nl < 0:
        return -1
    kind, line = data[i:i + 1], data[i + 1:nl]
    if kind in (b"+", b"-", b":"):
        return nl + 2
    n = int(line)
    if kind == b"$":
        if n < 0:
            return nl + 2
        if len(data) < nl + 2 + n + 2:
            return -1
        strings.append(data[nl + 2:nl + 2 + n])
        return nl + 2 + n + 2
    if kind == b"*":
        j = nl + 2
        for _ in range(max(n, 0)):
            j = reply_end(data, j, strings)
            if j < 0:
                return -1
        return j
    raise ValueError(f"not a RESP2 reply: {data[i:i + 20]!r}")


def replies(port, hexdata):
    data = sent(port, hexdata, 30)
    i = 0
    while i < len(data):
        strings = []
        end = reply_end(data, i, strings)
        if end < 0:
            print(f"incomplete: {data[i:i + 40]!r}")
            return
        first = data[i:data.find(b"\r\n", i)].decode("latin-1")
        if first[0] == "*":
            print(f"{first} {end - i} bytes, {len(strings)} strings ({len(set(strings))} distinct)")
        else:
            print(first)
        i = end


def crowd(port, n, hexdata):
    socks = []
    for _ in range(n):
        c = conn(port)
        c.sendall(b"PING\r\n")
        if not read_all(c, time.time() + 10, one_line=True).startswith(b"+PONG"):
            sys.exit("crowd: a connection was not answered")
        socks.append(c)
    send(port, hexdata)


def main():
    cmd, port = sys.argv[1], int(sys.argv[2])
    a = sys.argv[3:]
    if cmd == "fetch":
        fetch(port, int(a[0]), int(a[1]), a[2])
    elif cmd == "pipeline":
        pipeline(port, int(a[0]), False)
    elif cmd == "http-pipeline":
        pipeline(port, int(a[0]), True)
    elif cmd == "never-read":
        never_read(port, int(a[0]), float(a[1]))
    elif cmd == "slowloris":
        slowloris(port, int(a[0]), int(a[1]))
    elif cmd == "flood":
        flood(port, int(a[0]))
    elif cmd == "send":
        send(port, a[0])
    elif cmd == "replies":
        replies(port, a[0])
    elif cmd == "crowd":
        crowd(port, int(a[0]), a[1])
    else:
        sys.exit(f"unknown command {cmd}")


main()
