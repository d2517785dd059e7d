"""Threads share the process-wide generators and Generator objects: no
duplicates, each thread's own sequence strictly increasing; batches run
without the GIL."""
import threading

import toid

THREADS = 8


def run_threads(work):
    out = [None] * THREADS
    start = threading.Barrier(THREADS)

    def body(k):
        start.wait()
        out[k] = work()

    ts = [threading.Thread(target=body, args=(k,)) for k in range(THREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out


def check(results):
    every = [i for r in results for i in r]
    assert len(set(every)) == len(every), "duplicate IDs across threads"
    for r in results:
        assert all(a < b for a, b in zip(r, r[1:]))


def test_single_calls_from_threads():
    check(run_threads(lambda: [toid.new_bytes("uuidv7") for _ in range(20_000)]))
    check(run_threads(lambda: [toid.new_bytes("nanoflake") for _ in range(10_000)]))


def test_batches_without_the_gil_from_threads():
    def work():
        out = []
        for _ in range(20):
            out += toid.new_many("ulid", 2000, True)
        return out
    check(run_threads(work))


def test_one_generator_object_shared_by_threads():
    g = toid.Generator("scru160")
    check(run_threads(lambda: [b for _ in range(10) for b in g.new_many(1000, True)]
                      + [g.new_bytes() for _ in range(2000)]))
