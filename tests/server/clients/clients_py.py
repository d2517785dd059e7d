#!/usr/bin/python3
"""redis-py (Debian's python3-redis) against toidd with its default settings:
connect, new IDs, the default pipeline (transaction=True: MULTI/EXEC), a
pipeline without transaction, and the next command after a server restart.
  usage: clients_py.py PORT RESTART_SCRIPT [PASSWORD]
Prints every ID received, one a line, then "ok"; exits 1 with the reason
on stderr on any failure. With TOID_TLS_DIR set (ca.pem, cli.pem, cli.key
there): over TLS (ssl=True), the server verified, the client certificate
shown."""
import os
import subprocess
import sys

import redis

port, restart_script = int(sys.argv[1]), sys.argv[2]
password = sys.argv[3] if len(sys.argv) > 3 else None
ids = []


def take(reply, n, length, what):
    items = reply if isinstance(reply, list) else [reply]
    if len(items) != n:
        raise AssertionError(f"{what}: {n} IDs expected, got {reply!r}")
    for i in items:
        if not isinstance(i, str) or len(i) != length:
            raise AssertionError(f"{what}: not an ID: {i!r}")
        ids.append(i)


def phase(r, name):
    take(r.execute_command("ID.NEW", "nanoflake", 3), 3, 13, f"{name} execute_command")
    p = r.pipeline()  # the default: a transaction, MULTI ... EXEC
    p.execute_command("ID.NEW", "ulid", 2)
    p.execute_command("ID.NEW", "uuidv7")
    res = p.execute()
    take(res[0], 2, 26, f"{name} pipeline()")
    take(res[1], 1, 36, f"{name} pipeline()")
    p = r.pipeline(transaction=False)
    p.execute_command("ID.NEW", "nanoflake", 2)
    p.ping()
    res = p.execute()
    take(res[0], 2, 13, f"{name} pipeline(transaction=False)")
    if res[1] is not True:
        raise AssertionError(f"{name}: PING in a pipeline gave {res[1]!r}")


try:
    tls = os.environ.get("TOID_TLS_DIR")
    tls_opts = {}
    if tls:
        tls_opts = dict(ssl=True, ssl_ca_certs=os.path.join(tls, "ca.pem"),
                        ssl_certfile=os.path.join(tls, "cli.pem"),
                        ssl_keyfile=os.path.join(tls, "cli.key"))
    r = redis.Redis(host="127.0.0.1", port=port, password=password, decode_responses=True,
                    **tls_opts)
    if not r.ping():
        raise AssertionError("PING")
    phase(r, "first")
    subprocess.run(["sh", restart_script], check=True, timeout=30, stdout=subprocess.DEVNULL)
    phase(r, "after restart")
    info = r.info()
    if "redis_version" not in info or info.get("loading") != 0:
        raise AssertionError(f"INFO: {info!r}")
    if r.client_id() <= 0:
        raise AssertionError("CLIENT ID")
except Exception as e:  # the reason, for the test's log
    print(f"redis-py: {type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(1)
print("\n".join(ids))
print("ok")
