"""No silent node 0: the node formats (nanoflake, ulid-flake-scalable) make
no ID through the process-wide functions until configure() gave them a node
in this process, and a Generator of one needs its node; otherwise every
process would issue the same IDs with node 0."""
import multiprocessing as mp

import pytest

import toid
import workers

NODE_FORMATS = ("nanoflake", "ulid-flake-scalable")


def test_the_library_decides_which_formats_have_a_node():
    node_max = {f: info["node_max"] for f, info in toid.formats().items()}
    assert node_max["nanoflake"] == 1023 and node_max["ulid-flake-scalable"] == 31
    assert {f for f, m in node_max.items() if m is not None} == set(NODE_FORMATS)


def test_fresh_processes_refuse_until_configured_then_differ_by_node():
    # spawn: new processes, nothing inherited; one task per process
    with mp.get_context("spawn").Pool(2, maxtasksperchild=1) as pool:
        results = pool.starmap(workers.refusals_then_ids, [(1, 5000), (2, 5000)], chunksize=1)
    every = []
    for node, (refused, ids) in enumerate(results, start=1):
        assert len(refused) == 8
        for (fmt, call), (reason, message) in refused.items():
            assert reason == "no node", (fmt, call)
            assert f"toid.configure('{fmt}', node=N)" in message and "unique" in message
            assert f"toid.Generator('{fmt}', node=N)" in message
        assert {toid.parse(i, "nanoflake").fields["generator"] for i in ids} == {node}
        every += ids
    assert len(set(every)) == len(every)


def test_configure_without_a_node_refuses_again():
    toid.configure("nanoflake", node=9)
    assert toid.parse(toid.new("nanoflake")).fields["generator"] == 9
    toid.configure("nanoflake", epoch=0)             # replaces the whole setting: node 0
    with pytest.raises(toid.GenerationError) as e:
        toid.new_many("nanoflake", 1000)             # a batch too (it runs without the GIL)
    assert e.value.reason == "no node" and e.value.format == "nanoflake"
    with pytest.raises(ValueError):
        toid.configure("nanoflake", node=1024)       # a refused setting changes nothing
    with pytest.raises(toid.GenerationError):
        toid.new_bytes("nanoflake")
    toid.configure("nanoflake", node=0)              # node 0 chosen explicitly is fine
    assert toid.parse(toid.new("nanoflake")).fields["generator"] == 0
    toid.new("uid11-seq")                            # formats without a node never need one


@pytest.mark.parametrize("fmt", NODE_FORMATS)
def test_a_generator_of_a_node_format_needs_its_node(fmt):
    with pytest.raises(TypeError, match=r"needs node=N"):
        toid.Generator(fmt)
    with pytest.raises(TypeError):
        toid.Generator(fmt, node=None)
    assert toid.Generator(fmt, node=0).new()
