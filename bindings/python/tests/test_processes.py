"""Fork safety through multiprocessing: children started by fork (which
inherit the parent's generators mid-stream) and by spawn never repeat an ID,
among themselves or with the parent. 8 processes x 100,000 IDs each."""
import multiprocessing as mp

import pytest

import toid
import workers

PROCS, COUNT = 8, 100_000


# fork copies the parent's generators mid-stream (both random formats);
# spawn starts afresh (one format is enough there)
@pytest.mark.parametrize("method,fmt", [("fork", "ulid"), ("fork", "uuidv7"), ("spawn", "ulid")])
def test_no_duplicates_across_processes(method, fmt):
    ctx = mp.get_context(method)
    toid.new_many(fmt, 1000)                # the parent's generator is warm: its state is forked
    with ctx.Pool(PROCS) as pool:
        pending = pool.starmap_async(workers.ids_joined, [(fmt, COUNT)] * PROCS)
        mine = workers.ids(fmt, COUNT)      # the parent goes on at the same time
        results = [r.split("\n") for r in pending.get(timeout=300)]
    every = [i for r in results for i in r] + mine
    assert len(every) == (PROCS + 1) * COUNT
    assert len(set(every)) == len(every), "duplicate IDs across processes"
    for r in results:                       # each child's stream is strictly increasing
        assert r == sorted(r) and len(set(r)) == len(r)


def test_node_format_refuses_in_a_forked_child_until_given_its_node():
    toid.configure("nanoflake", node=0)
    toid.new("nanoflake")
    ctx = mp.get_context("fork")
    with ctx.Pool(4) as pool:
        results = pool.starmap(workers.nanoflake_after_fork, [(n, 20_000) for n in range(1, 5)])
    mine = workers.ids("nanoflake", 20_000)
    every = mine
    for node, (refused, ids) in enumerate(results, start=1):
        assert refused == "forked"
        assert {toid.parse(i, "nanoflake").fields["generator"] for i in ids[:10]} == {node}
        every = every + ids
    assert len(set(every)) == len(every)



def test_own_generator_of_a_node_format_refuses_in_a_forked_child():
    workers.INHERITED = toid.Generator("ulid-flake-scalable", node=4)   # inherited by fork
    workers.INHERITED.new()
    with mp.get_context("fork").Pool(1) as pool:
        reason, message = pool.apply(workers.inherited_generator_refusal)
    assert reason == "forked" and "toid.Generator" in message
    workers.INHERITED.new()                 # the parent goes on with its node
