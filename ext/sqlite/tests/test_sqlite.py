"""The SQLite extension through Python's sqlite3 module.

Usage: /usr/bin/python3 test_sqlite.py path/to/toid.so path/to/shared/vectors

Checks: every conformance vector (decode, encode from int) through the SQL
functions; 100,000 generated IDs per format unique and, where the format is
monotonic, strictly increasing, in text and blob order alike, with round
trips; two connections and four threads sharing a node without a duplicate;
a forked child refused the parent's node; errors raise
sqlite3.OperationalError with the library's reason. Exits non-zero on the
first failed check.
"""
import glob
import json
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
NODE_FORMATS = {"nanoflake": 1023, "ulid-flake-scalable": 31}
UNORDERED = {"uid11"}   # random order inside a ms, as its spec wants
# generate_series is an extension of the sqlite3 shell, not of the library
SERIES = "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {}) "
checks = 0


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


def test_fork():
    """A forked child must not go on with a node the parent uses."""
    db = connect()
    db.execute("SELECT toid_node('nanoflake', 11)").fetchall()
    one(db, "SELECT toid_new('nanoflake')")
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            child = connect()
            child.execute("SELECT toid_node('nanoflake', 11)").fetchall()
            try:
                child.execute("SELECT toid_new('nanoflake')").fetchall()
                code = 2   # the parent's node went on in the child
            except sqlite3.OperationalError as e:
                if "(forked)" not in str(e):
                    code = 3
            child.execute("SELECT toid_node('nanoflake', 12)").fetchall()
            if len(one(child, "SELECT toid_new('nanoflake')")) != 13:
                code = 4
        except Exception:
            code = 5
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
          f"fork: child exit status {status} (2: node went on, 3: wrong message, 4/5: other node failed)")
    check(len(one(db, "SELECT toid_new('nanoflake')")) == 13, "fork: the parent stopped")
    print("ok: a forked child is refused the parent's node, takes another")


def test_errors(db):
    raises(db, "SELECT toid_decode('ulid', ?)", ("01ARZ3NDEKTSV4RRFFQ69G5FA!",),
           r"^toid_decode: ulid: bad character at position 25 \(char\)$", "bad character")
    raises(db, "SELECT toid_decode('ulid', ?)", ("01ARZ3NDEKTSV4RRFFQ69G5FA",),
           r"bad length \(length\): 25 bytes of text, expected 26", "bad length")
    raises(db, "SELECT toid_encode('scru160', ?)", (b"\x00" * 19,),
           r"a 19-byte blob, expected 20 bytes", "short blob")
    raises(db, "SELECT toid_unix_ms('nanoflake', ?)", (b"\xff" * 8,), r"\(overflow\)", "blob overflow")
    raises(db, "SELECT toid_new('nanoflake')", (), r"no node set", "node format without node")
    db2 = connect()   # a new connection has no node, whatever others set
    raises(db2, "SELECT toid_new('ulid-flake-scalable')", (), r"no node set", "node is per connection")
    raises(db, "SELECT toid_node('nanoflake', 1024)", (), r"0\.\.1023", "node out of range")
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


def main():
    db = connect()
    test_vectors(db)
    test_errors(db)
    test_bulk(db)
    test_shared_node()
    test_fork()
    print(f"ok: python sqlite3 ({sqlite3.sqlite_version}), {checks} checks")


main()
