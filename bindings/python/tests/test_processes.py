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


def test_forked_children_of_a_node_format_claim_nodes_of_their_own():
    toid.new("nanoflake")                   # the parent holds its node
    ctx = mp.get_context("fork")
    with ctx.Pool(4) as pool:
        results = pool.starmap(workers.node_after_fork, [("nanoflake", 20_000)] * 4)
    mine = workers.ids("nanoflake", 20_000)
    every = mine
    for node, ids in results:
        assert node != workers._node_of("nanoflake", mine[0])
        every = every + ids
    assert len(set(every)) == len(every)


