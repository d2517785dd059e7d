"""toid.new("ulid") next to its peer and its floor, measured in one run:
  - uuid.uuid4() from the standard library (goal: toid.new("ulid") >= 2x
    faster), and str(uuid.uuid4()), a text ID like toid.new's result;
  - a no-op C function of the same module with the same calling convention
    (toid._toid._noop("ulid")): the binding's floor (goal: within 2x of it);
  - the C library alone making the same IDs (_c_loop, one toid_new_text per
    ID, no Python object): toid.new - that = what the binding adds;
  - toid.new("uuidv7"), toid.new_bytes("ulid"), new_many("ulid", 1000) per ID.
ns per ID, medians of ROUNDS rounds; the candidates take turns in each round
so that a busy machine's load falls on all of them alike.

    PYTHONPATH=build/bindings/python/lib /usr/bin/python3 bindings/python/bench/bench_new.py [ROUNDS]
"""
import statistics
import sys
import timeit
import uuid

import toid
from toid import _toid

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 21
N = 100_000
new, new_bytes, new_many, noop, c_loop, uuid4 = (toid.new, toid.new_bytes, toid.new_many,
                                                 _toid._noop, _toid._c_loop, uuid.uuid4)
CASES = [   # (name, statement, IDs per execution, executions per round)
    ("no-op C call _noop('ulid') (floor)", "noop('ulid')", 1, N),
    ("C library alone, per ID", "c_loop('ulid', 1000)", 1000, N // 1000),
    ("toid.new('ulid')", "new('ulid')", 1, N),
    ("toid.new('uuidv7')", "new('uuidv7')", 1, N),
    ("toid.new_bytes('ulid')", "new_bytes('ulid')", 1, N),
    ("toid.new_many('ulid', 1000), per ID", "new_many('ulid', 1000)", 1000, N // 1000),
    ("uuid.uuid4()", "uuid4()", 1, N // 4),
    ("str(uuid.uuid4())", "str(uuid4())", 1, N // 4),
]
timers = [(name, timeit.Timer(stmt, globals=globals()), per, number)
          for name, stmt, per, number in CASES]
samples = {name: [] for name, *_ in CASES}
for _ in range(ROUNDS):
    for name, timer, per, number in timers:
        samples[name].append(timer.timeit(number) / number / per * 1e9)
by = {name: statistics.median(v) for name, v in samples.items()}

print(f"python {sys.version.split()[0]}, toid {toid.LIBRARY_VERSION}; ns per ID, median of {ROUNDS} rounds")
for name, ns in by.items():
    print(f"  {name:40s} {ns:8.1f} ns")
t, floor, lib = by["toid.new('ulid')"], by[CASES[0][0]], by["C library alone, per ID"]
print(f"uuid.uuid4() / toid.new('ulid')            = {by['uuid.uuid4()'] / t:6.2f}x  (goal >= 2)")
print(f"str(uuid.uuid4()) / toid.new('ulid')       = {by['str(uuid.uuid4())'] / t:6.2f}x")
print(f"toid.new('ulid') / no-op C call            = {t / floor:6.2f}x  (goal <= 2)")
print(f"(toid.new('ulid') - C library) / no-op call = {(t - lib) / floor:6.2f}x  (the binding's own cost)")
