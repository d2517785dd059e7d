"""The SQLite extension through Python's sqlite3 module.

Usage: /usr/bin/python3 test_sqlite.py path/to/toid.so path/to/shared/vectors

Checks: every conformance vector (decode, encode from int) through the SQL
functions; 100,000 generated IDs per format unique and, where the format is
monotonic, strictly increasing, in text and blob order alike, with round
trips; two connections and four threads sharing a node without a duplicate;
connections that set no node sharing the process's claimed node; a forked
child claiming a node of its own, never its parent's, also through
multiprocessing; errors raise sqlite3.OperationalError with the library's
reason. Node formats claim in the registry TOID_CLAIM_CONF names (the
caller's: run_sqlite_tests.sh makes one). Exits non-zero on the first
failed check.
"""
import glob
import json
import multiprocessing
import os
import re
import sqlite3
import sys
import threading
import time

MODULE, VECTORS = sys.argv[1], sys.argv[2]
N = 100_000
FORMATS = ["ulid", "ulid-flake", "ulid-flake-scalable", "scru160", "nanoflake",
           "uid11", "uid11-seq", "uuidv7"]
NODE_FORMATS = {"nanoflake": 1023, "ulid-flake-scalable": 31, "uid11-seq": 1000}
UNORDERED = {"uid11"}   # random order inside a ms, as its spec wants
# generate_series is an extension of the sqlite3 shell, not of the library
SERIES = "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {}) "
checks = 0
sqlite3_inspector = None   # a connection for toid_inspect (main makes it)


def check(cond, what):
    global checks
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)
    checks += 1


def connect():
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    db.enable_load_extension(True)
    db.load_extension(MODULE)
    db.enable_load_extension(False)
    return db


def one(db, sql, *args):
    return db.execute(sql, args).fetchone()[0]


def node_of(fmt, id_):
    """The node an ID carries: nanoflake's generator, ulid-flake-scalable's sid."""
    return json.loads(one(sqlite3_inspector, "SELECT toid_inspect(?, ?)", fmt, id_))[
        "generator" if fmt == "nanoflake" else "sid"]


def raises(db, sql, args, pattern, what):
    try:
        db.execute(sql, args).fetchall()
    except sqlite3.OperationalError as e:
        check(re.search(pattern, str(e)) is not None, f"{what}: message {str(e)!r} lacks {pattern!r}")
        return
    check(False, f"{what}: no error")


def unescape(col):
    """A vector text column: \\xHH and \\\\ escapes, to bytes."""
    out, i = bytearray(), 0
    while i < len(col):
        if col.startswith("\\x", i):
            out.append(int(col[i + 2:i + 4], 16))
            i += 4
        elif col.startswith("\\\\", i):
            out.append(0x5C)
            i += 2
        else:
            out.extend(col[i].encode())
            i += 1
    return bytes(out)


def test_vectors(db):
    cases = 0
    for path in sorted(glob.glob(os.path.join(VECTORS, "*.tsv"))):
        for line in open(path, encoding="utf-8"):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fmt, op, inp, want = line.split("\t")
            if op == "decode":
                # bound as a blob and cast, so that any byte (NUL, invalid
                # UTF-8) reaches the decoder as text, unchanged
                text = unescape(inp)
                sql = "SELECT hex(toid_decode(?, CAST(? AS TEXT))), toid_unix_ms(?, CAST(? AS TEXT)), " \
                      "toid_encode(?, CAST(? AS TEXT))"
                if want.startswith("ok "):
                    fields = dict(kv.split("=", 1) for kv in want[3:].split(" "))
                    h, ms, canon = db.execute(sql, (fmt, text, fmt, text, fmt, text)).fetchone()
                    check(h == fields["hex"].upper(), f"{fmt} decode {inp}: hex {h}")
                    check(ms == int(fields["unix_ms"]), f"{fmt} decode {inp}: unix_ms {ms}")
                    check(canon == fields.get("text", inp), f"{fmt} decode {inp}: text {canon}")
                    inspected = json.loads(one(db, "SELECT toid_inspect(?, CAST(? AS TEXT))", fmt, text))
                    for k, v in fields.items():
                        check(str(inspected[k]).lower() == v.lower(), f"{fmt} inspect {inp}: {k}")
                    if "int" in fields and int(fields["int"]) < 2**63:
                        check(one(db, "SELECT toid_int(?, ?)", fmt, bytes.fromhex(fields["hex"]))
                              == int(fields["int"]), f"{fmt} toid_int {inp}")
                else:
                    cls = want.split(" ", 1)[1]
                    raises(db, "SELECT toid_decode(?, CAST(? AS TEXT))", (fmt, text),
                           r"^toid_decode: " + re.escape(fmt) + r": .*\(" + cls + r"\)",
                           f"{fmt} decode {inp!r} (err {cls})")
                cases += 1
            elif op == "encode" and re.fullmatch(r"int=\d+", inp) and int(inp[4:]) < 2**63:
                if want.startswith("err "):
                    raises(db, "SELECT toid_encode(?, ?)", (fmt, int(inp[4:])),
                           r"\(" + want[4:] + r"\)", f"{fmt} encode {inp}")
                else:
                    check(one(db, "SELECT toid_encode(?, ?)", fmt, int(inp[4:])) == want,
                          f"{fmt} encode {inp}")
                cases += 1
    check(cases > 300, f"only {cases} vector cases read from {VECTORS}")
    print(f"ok: {cases} vector cases")


def test_bulk(db):
    for fmt, node in NODE_FORMATS.items():
        check(one(db, "SELECT toid_node(?, ?)", fmt, node) == node, f"toid_node {fmt}")
    for fmt in FORMATS:
        db.execute("CREATE TEMP TABLE ids AS " + SERIES.format(N) + "SELECT n, toid_new(?) AS id FROM s", (fmt,))
        ids = [r[0] for r in db.execute("SELECT id FROM ids ORDER BY n")]
        blobs = [r[0] for r in db.execute(SERIES.format(N) + "SELECT toid_new_blob(?) FROM s", (fmt,))]
        check(len(set(ids)) == N and len(set(blobs)) == N, f"{fmt}: duplicates in {N}")
        if fmt not in UNORDERED:
            check(all(a < b for a, b in zip(ids, ids[1:])), f"{fmt}: text IDs not strictly increasing")
            check(all(a < b for a, b in zip(blobs, blobs[1:])), f"{fmt}: blob IDs not strictly increasing")
            check(ids[-1] < one(db, "SELECT toid_encode(?, ?)", fmt, blobs[0]),
                  f"{fmt}: a later statement went back")
        # round trips, in SQL over the whole set
        bad = one(db, "SELECT count(*) FROM ids WHERE toid_encode(?1, toid_decode(?1, id)) IS NOT id "
                      "OR toid_decode(?1, toid_encode(?1, toid_decode(?1, id))) IS NOT toid_decode(?1, id)", fmt)
        check(bad == 0, f"{fmt}: {bad} round trips failed")
        if fmt in NODE_FORMATS:   # every ID carries the node set (claimed above)
            field = {"nanoflake": "json_extract(toid_inspect(?1, id), '$.generator')",
                     "ulid-flake-scalable": "json_extract(toid_inspect(?1, id), '$.sid')",
                     "uid11-seq": "toid_int(?1, id) & 1023"}[fmt]
            off = one(db, f"SELECT count(*) FROM ids WHERE {field} IS NOT ?2", fmt, NODE_FORMATS[fmt])
            check(off == 0, f"{fmt}: {off} IDs without node {NODE_FORMATS[fmt]}")
        now = int(time.time() * 1000)
        late = one(db, "SELECT count(*) FROM ids WHERE abs(toid_unix_ms(?, id) - ?) > 600000", fmt, now)
        check(late == 0, f"{fmt}: {late} IDs not of the current time")
        db.execute("DROP TABLE ids")
    print(f"ok: {N} IDs per format, unique, increasing where monotonic, round trips")


def test_shared_node():
    """Two connections, and four threads with a connection each, on one node:
    one process-wide generator per (format, node), so no duplicate."""
    a, b = connect(), connect()
    for db in (a, b):
        db.execute("SELECT toid_node('nanoflake', 9)").fetchall()
    seen = []
    for _ in range(2000):
        seen.append(one(a, "SELECT toid_new('nanoflake')"))
        seen.append(one(b, "SELECT toid_new('nanoflake')"))
    check(len(set(seen)) == len(seen), "two connections on one node repeated an ID")
    check(all(x < y for x, y in zip(seen, seen[1:])), "two connections on one node: not one increasing stream")

    results = [None] * 4

    def worker(k):
        db = connect()
        db.execute("SELECT toid_node('ulid-flake-scalable', 3)").fetchall()
        results[k] = [r[0] for r in db.execute(
            SERIES.format(25000) + "SELECT toid_new('ulid-flake-scalable') FROM s")]
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    merged = [x for r in results for x in r]
    check(len(merged) == 100000 and len(set(merged)) == len(merged), "four threads on one node repeated an ID")
    for r in results:
        check(all(x < y for x, y in zip(r, r[1:])), "a thread's IDs not increasing")
    print("ok: connections and threads share a node's generator (0 duplicates)")


def test_process_node():
    """Connections that set no node share the process's node, claimed by the
    first ID; one that sets a node claims it and uses it alone."""
    a, b = connect(), connect()
    n = one(a, "SELECT toid_node('nanoflake')")
    first = node_of("nanoflake", one(a, "SELECT toid_new('nanoflake')"))
    check(n is None or n == first, f"toid_node before the first ID: {n}, then {first}")
    check(one(a, "SELECT toid_node('nanoflake')") == first, "toid_node: the process's node")
    check(one(b, "SELECT toid_node('nanoflake')") == first, "another connection: the same node")
    check(node_of("nanoflake", one(b, "SELECT toid_new('nanoflake')")) == first, "b's IDs: the process's node")
    check(one(b, "SELECT toid_node('nanoflake', 17)") == 17, "toid_node(f, 17)")
    check(node_of("nanoflake", one(b, "SELECT toid_new('nanoflake')")) == 17, "b's IDs: node 17")
    check(node_of("nanoflake", one(a, "SELECT toid_new('nanoflake')")) == first, "a's IDs: still the process's")
    check(one(b, "SELECT toid_node('nanoflake', NULL)") == first, "toid_node(f, NULL): the process's node")
    print(f"ok: connections share the process's claimed node ({first}); a set node is the connection's")


def test_fork():
    """After fork() the child never uses its parent's nodes: its first ID
    claims one of its own, on a connection it inherited too; a node set on
    an inherited connection is refused while the parent holds it, naming it."""
    db = connect()
    parent_ids = [one(db, "SELECT toid_new('nanoflake')") for _ in range(1000)]
    n0 = node_of("nanoflake", parent_ids[0])
    fixed = connect()
    fixed.execute("SELECT toid_node('nanoflake', 11)").fetchall()
    parent_ids.append(one(fixed, "SELECT toid_new('nanoflake')"))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(r)
            ids = [one(db, "SELECT toid_new('nanoflake')") for _ in range(1000)]
            out = {"ids": ids, "nodes": sorted({node_of("nanoflake", i) for i in ids}),
                   "reported": one(db, "SELECT toid_node('nanoflake')"),
                   "fresh": node_of("nanoflake", one(connect(), "SELECT toid_new('nanoflake')")),
                   "refused": None}
            try:
                fixed.execute("SELECT toid_new('nanoflake')").fetchall()
            except sqlite3.OperationalError as e:
                out["refused"] = str(e)
            os.write(w, json.dumps(out).encode())
        except Exception as e:   # noqa: BLE001 (said, then the exit status)
            os.write(w, json.dumps({"error": repr(e)}).encode())
            code = 5
        os._exit(code)
    os.close(w)
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    got = json.loads(data or b"{}")
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"fork: child status {status}: {got.get('error')}")
    child = got["nodes"]
    check(len(child) == 1 and child[0] not in (n0, 11), f"fork: the child's nodes {child} (parent: {n0}, 11)")
    check(got["reported"] == child[0] and got["fresh"] == child[0],
          f"fork: the child's toid_node {got['reported']}, a new connection's {got['fresh']}, IDs' {child}")
    want = rf"nanoflake node 11 is in use by another process \(pid {os.getpid()}, lock "
    check(got["refused"] is not None and re.search(want, got["refused"]) is not None,
          f"fork: the parent's set node in the child: {got['refused']!r}")
    parent_ids += [one(db, "SELECT toid_new('nanoflake')") for _ in range(1000)]
    check({node_of("nanoflake", i) for i in parent_ids[-1000:]} == {n0}, "fork: the parent's node changed")
    every = parent_ids + got["ids"]
    check(len(set(every)) == len(every), "fork: parent and child repeated an ID")
    print(f"ok: a forked child claims its own node ({child[0]}), never its parent's ({n0}, 11)")


_inherited = None   # the parent's connection, used by the multiprocessing workers


def _worker(n):
    rows = _inherited.execute(SERIES.format(n) + "SELECT toid_new('ulid-flake-scalable') FROM s").fetchall()
    return os.getpid(), [r[0] for r in rows]


def test_multiprocessing():
    """multiprocessing (fork) workers on a connection of the parent: each
    worker's IDs carry a node of its own, none the parent's; no duplicate."""
    global _inherited
    _inherited = connect()
    parent = [r[0] for r in _inherited.execute(SERIES.format(5000) + "SELECT toid_new('ulid-flake-scalable') FROM s")]
    mine = {node_of("ulid-flake-scalable", i) for i in parent}
    with multiprocessing.get_context("fork").Pool(3) as pool:
        results = pool.map(_worker, [5000] * 6)
    by_pid = {}
    for pid, ids in results:
        by_pid.setdefault(pid, []).extend(ids)
    nodes = {pid: {node_of("ulid-flake-scalable", i) for i in ids} for pid, ids in by_pid.items()}
    check(all(len(v) == 1 for v in nodes.values()), f"multiprocessing: a worker with several nodes: {nodes}")
    used = [next(iter(v)) for v in nodes.values()]
    check(len(set(used)) == len(used) and not set(used) & mine,
          f"multiprocessing: workers' nodes {used}, the parent's {mine}")
    every = parent + [i for _, ids in results for i in ids]
    check(len(every) == 35000 and len(set(every)) == len(every), "multiprocessing: an ID repeated")
    print(f"ok: multiprocessing workers claim nodes of their own ({sorted(used)}; the parent's {sorted(mine)})")


def test_errors(db):
    raises(db, "SELECT toid_decode('ulid', ?)", ("01ARZ3NDEKTSV4RRFFQ69G5FA!",),
           r"^toid_decode: ulid: bad character .!. at position 25 \(char\)$", "bad character")
    raises(db, "SELECT toid_decode('ulid', ?)", ("01ARZ3NDEKTSV4RRFFQ69G5FA",),
           r"bad length: 25 characters, expected 26 \(length\)", "bad length")
    raises(db, "SELECT toid_encode('scru160', ?)", (b"\x00" * 19,),
           r"a 19-byte blob, expected 20 bytes", "short blob")
    raises(db, "SELECT toid_unix_ms('nanoflake', ?)", (b"\xff" * 8,), r"\(overflow\)", "blob overflow")
    raises(db, "SELECT toid_node('nanoflake', 1024)", (), r"0\.\.1023", "node out of range")
    raises(db, "SELECT toid_node('uid11-seq', -1)", (), r"0\.\.1023", "uid11-seq node out of range")
    raises(db, "SELECT toid_node('uuidv7', 0)", (), r"has no node", "node of a format without one")
    raises(db, "SELECT toid_min('ulid-flake', '2000-01-01')", (), r"\(range\)", "time before the epoch")
    raises(db, "SELECT toid_max('ulid', 'soon')", (), r"is not a time", "not a time")
    raises(db, "SELECT toid_new('ulidx')", (), r"unknown format 'ulidx'", "unknown format")
    raises(db, "SELECT toid_new(NULL)", (), r"format is NULL", "NULL format")
    # random blobs of every length: an error or a value, never a crash
    for n in range(0, 24):
        for fmt in FORMATS:
            blob = os.urandom(n)
            try:
                db.execute("SELECT toid_inspect(?, ?)", (fmt, blob)).fetchall()
            except sqlite3.OperationalError as e:
                check(str(e).startswith("toid_inspect: " + fmt + ": "), f"blob error wording: {e}")
    check(one(db, "SELECT toid_decode('ulid', NULL) IS NULL"), "NULL in, NULL out")
    print("ok: errors raise sqlite3.OperationalError with the library's reason")


def test_at_time():
    """toid_new(fmt, time), for backfills: rows sharing milliseconds into a
    keyed table without a duplicate, each ID at its row's ms; two
    connections in one ms never collide; a forked child never goes on from
    its parent's last ID of a ms; the other formats refuse."""
    db = connect()
    db.execute("CREATE TEMP TABLE legacy(n INTEGER PRIMARY KEY, created_at TEXT)")
    rows = [(i, "2019-06-01 12:%02d:%06.3f" % (i // 60000, (i // 40) % 60000 / 1000)) for i in range(50000)]
    db.executemany("INSERT INTO legacy VALUES (?, ?)", rows)
    for fmt, col in (("ulid", "TEXT"), ("uuidv7", "BLOB"), ("scru160", "TEXT")):
        fn = "toid_new" if col == "TEXT" else "toid_new_blob"
        db.execute(f"CREATE TEMP TABLE ev(id {col} PRIMARY KEY, n INTEGER)")
        db.execute(f"INSERT INTO ev SELECT {fn}(?, created_at), n FROM legacy", (fmt,))
        off = one(db, "SELECT count(*) FROM ev JOIN legacy USING (n) "
                      "WHERE toid_unix_ms(?, id) <> CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER)",
                  fmt)
        check(one(db, "SELECT count(*) FROM ev") == len(rows) and off == 0,
              f"{fmt} at a time: {off} IDs not at their row's ms")
        db.execute("DROP TABLE ev")
    check(one(db, "SELECT count(DISTINCT created_at) FROM legacy") < len(rows) // 30, "legacy rows share ms")
    # two connections, one ms
    a, b = connect(), connect()
    at = "2021-02-03 04:05:06.789"
    ids = [one(c, "SELECT toid_new('ulid', ?)", at) for _ in range(3000) for c in (a, b)]
    check(len(set(ids)) == len(ids), "two connections at one ms repeated a ULID")
    # fork: the child's generator for given times starts afresh
    first = one(a, "SELECT toid_new('ulid', ?)", at)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        child = [one(a, "SELECT toid_new('ulid', ?)", at) for _ in range(1000)]
        os.write(w, json.dumps(child).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    parent = [one(a, "SELECT toid_new('ulid', ?)", at) for _ in range(1000)]
    every = ids + [first] + parent + json.loads(data)
    check(len(set(every)) == len(every), "fork: parent and child repeated a ULID at one ms")
    check(all(x < y for x, y in zip(parent, parent[1:])), "at one ms: not increasing")
    for fmt in ("nanoflake", "ulid-flake-scalable", "uid11-seq", "ulid-flake", "uid11"):
        raises(db, "SELECT toid_new(?, 'now')", (fmt,), r"no ID at a given time: .*IDs at given times: ulid, scru160, uuidv7",
               f"{fmt} at a time")
    print("ok: IDs at given times: a backfill of 50,000 rows sharing ms, two connections and a fork at one ms, "
          "refusals")


def main():
    global sqlite3_inspector
    db = connect()
    sqlite3_inspector = connect()
    test_vectors(db)
    test_errors(db)
    test_bulk(db)
    test_at_time()
    test_shared_node()
    test_process_node()
    test_fork()
    test_multiprocessing()   # last: its workers end with os._exit, their marks left ahead
    print(f"ok: python sqlite3 ({sqlite3.sqlite_version}), {checks} checks")


main()
