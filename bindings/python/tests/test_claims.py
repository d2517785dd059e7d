"""Node claims (issue 26): the node formats (nanoflake, ulid-flake-scalable,
uid11-seq's 10 low bits) make IDs only with a node claimed in the host's
claim configuration (here the test run's own registry, conftest.py), so
that processes that generate at once never share a node. Real processes,
no mocks; nothing rests on timing: the processes that must hold claims at
once say so (a line) and wait for the test's go."""
import gc
import multiprocessing as mp
import os
import subprocess
import sys

import pytest

import toid
import workers

HERE = os.path.dirname(os.path.abspath(__file__))
CLAIMED = ("nanoflake", "ulid-flake-scalable", "uid11-seq")


def start_holders(fmt, count, procs, node=None, env=None):
    """procs processes that each claim a node of fmt and hold it, waiting."""
    args = [sys.executable, os.path.join(HERE, "workers.py"), "held", fmt, str(count)]
    if node is not None:
        args.append(str(node))
    return [subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env=env) for _ in range(procs)]


def first_line(p):
    return p.stdout.readline().strip()


def finish(p):
    out, _ = p.communicate("go\n", timeout=300)
    assert p.returncode == 0
    return out.split()


def test_the_library_decides_which_formats_have_a_node():
    node_max = {f: info["node_max"] for f, info in toid.formats().items()}
    assert node_max["nanoflake"] == 1023 and node_max["ulid-flake-scalable"] == 31
    assert {f for f, m in node_max.items() if m is not None} == {"nanoflake",
                                                                  "ulid-flake-scalable"}


@pytest.mark.parametrize("fmt", ["nanoflake", "ulid-flake-scalable", "uid11-seq"])
def test_four_processes_without_a_node_claim_four_nodes_and_never_repeat(fmt):
    procs = start_holders(fmt, 20_000, 4)
    nodes = [first_line(p) for p in procs]          # all four hold their claims now
    assert all(n.startswith("node ") for n in nodes), nodes
    assert len(set(nodes)) == 4, nodes
    every = []
    for p, n in zip(procs, nodes):
        got = finish(p)
        assert len(got) == 20_000
        assert {workers._node_of(fmt, i) for i in got[:50]} == {int(n.split()[1])}
        every += got
    assert len(set(every)) == len(every), "duplicate IDs across processes"


def test_a_node_held_by_another_process_is_refused_naming_it():
    (holder,) = start_holders("nanoflake", 10, 1, node=900)
    assert first_line(holder) == "node 900"
    for attempt in (lambda: toid.configure("nanoflake", node=900),
                    lambda: toid.claim("nanoflake", node=900),
                    lambda: toid.Generator("nanoflake", node=900)):
        with pytest.raises(toid.ClaimError) as e:
            attempt()
        assert e.value.reason == "busy" and e.value.format == "nanoflake"
        assert f"pid {holder.pid}" in str(e.value) and "900" in str(e.value)
    finish(holder)                                   # it exits: the node is free
    with toid.claim("nanoflake", node=900) as c:
        assert c.node == 900
        assert workers._node_of("nanoflake", toid.new("nanoflake")) == 900


def test_a_node_held_in_this_process_is_not_shared_between_generators():
    with toid.claim("nanoflake") as c:
        with pytest.raises(toid.ClaimError, match=r"held by this process") as e:
            toid.Generator("nanoflake", node=c.node)
        assert e.value.reason == "busy"
        with toid.Generator("nanoflake") as g:
            assert g.node != c.node
            with pytest.raises(toid.ClaimError, match=r"held by this process"):
                toid.configure("nanoflake", node=g.node)
            with toid.Generator("nanoflake") as h:
                assert h.node not in (c.node, g.node)
            ids = g.new_many(5000) + [g.new() for _ in range(100)]
            assert {workers._node_of("nanoflake", i) for i in ids} == {g.node}
            assert len(set(ids)) == len(ids)
        with pytest.raises(ValueError, match=r"closed"):
            g.new()


def test_a_generator_gives_its_node_back_when_closed_or_collected():
    g = toid.Generator("ulid-flake-scalable", node=30)
    g.new()
    with pytest.raises(toid.ClaimError):
        toid.Generator("ulid-flake-scalable", node=30)
    del g
    gc.collect()
    g = toid.Generator("ulid-flake-scalable", node=30)   # free again
    assert g.node == 30 and workers._node_of("ulid-flake-scalable", g.new()) == 30
    g.close()
    g.close()                                            # again: nothing


@pytest.mark.parametrize("fmt", CLAIMED)
def test_a_forked_child_claims_its_own_node(fmt):
    mine = workers.ids(fmt, 2000)                     # the parent holds its node
    parent_node = workers._node_of(fmt, mine[0])
    with mp.get_context("fork").Pool(2) as pool:
        results = pool.starmap(workers.node_after_fork, [(fmt, 20_000)] * 2)
    mine += workers.ids(fmt, 2000)                    # and goes on with it
    assert {workers._node_of(fmt, i) for i in mine} == {parent_node}
    every = list(mine)
    for node, got in results:
        assert node != parent_node
        assert {workers._node_of(fmt, i) for i in got[:50]} == {node}
        every += got
    assert len(set(every)) == len(every)


FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"

KILLED_HOLDER = """
import os, toid
toid.configure("nanoflake", node=950)
print(max(toid.new("nanoflake") for _ in range(50_000)), flush=True)
os.kill(os.getpid(), 9)
"""

SUCCESSOR = """
import toid
try:
    toid.configure("nanoflake", node=950)
    print("ids", *[toid.new("nanoflake") for _ in range(1000)])
except toid.ClaimError as e:
    print("error", e.reason, e)
"""


@pytest.mark.skipif(not os.path.exists(FAKETIME),
                    reason=f"libfaketime is not installed ({FAKETIME}; Debian: faketime)")
def test_a_node_of_a_killed_holder_is_taken_over_only_after_its_mark():
    """kill -9 of a Python holder: its lock goes with it, its high-water
    mark stays in the registry. A successor on the same node whose clock is
    behind the last ID waits for the mark (1 s behind) or is refused,
    naming it (1 min behind); it never repeats or goes below the dead
    holder's IDs."""
    holder = subprocess.run([sys.executable, "-c", KILLED_HOLDER], capture_output=True, text=True,
                            timeout=300)
    assert holder.returncode == -9, holder.stderr
    last = holder.stdout.strip()
    for behind, expect in (("-1s", "ids"), ("-60s", "error")):
        env = dict(os.environ, LD_PRELOAD=FAKETIME, FAKETIME=behind)
        out = subprocess.run([sys.executable, "-c", SUCCESSOR], capture_output=True, text=True,
                             env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        words = out.stdout.split()
        assert words[0] == expect, (behind, out.stdout)
        if expect == "ids":
            got = words[1:]
            assert len(got) == 1000 and all(len(i) == len(last) for i in got)
            assert min(got) > last, (behind, min(got), last)
            last = max(got)
        else:
            assert words[1] == "behind" and "high-water mark of nanoflake node 950" in out.stdout


def test_an_inherited_generator_refuses_in_a_forked_child():
    workers.INHERITED = toid.Generator("ulid-flake-scalable")   # inherited by fork
    workers.INHERITED.new()
    with mp.get_context("fork").Pool(1) as pool:
        reason, message = pool.apply(workers.inherited_generator_refusal)
    assert reason == "forked" and "toid.Generator" in message
    workers.INHERITED.new()                 # the parent goes on with its node
    workers.INHERITED.close()


def test_claim_release_and_context_manager():
    c = toid.claim("nanoflake", node=777)
    assert (c.format, c.node, c.valid) == ("nanoflake", 777, True)
    assert {workers._node_of("nanoflake", i) for i in toid.new_many("nanoflake", 3000)} == {777}
    assert workers._node_of("nanoflake", toid.ID.new("nanoflake").text) == 777
    c.release()
    assert not c.valid and "released" in repr(c)
    c.release()                                          # again: nothing
    # the process-wide generator goes back to the process's node
    assert workers._node_of("nanoflake", toid.new("nanoflake")) != 777
    with toid.claim("uid11-seq", node=1000) as d:
        assert toid.parse(toid.new("uid11-seq"), "uid11-seq").int & 1023 == 1000
    assert not d.valid
    with pytest.raises(ValueError, match=r"has no node"):
        toid.claim("ulid")
    with pytest.raises(ValueError, match=r"1024 is above uid11-seq's largest, 1023"):
        toid.claim("uid11-seq", node=1024)


def test_configure_names_the_node_and_gives_the_last_one_back():
    toid.configure("nanoflake", node=801)
    assert workers._node_of("nanoflake", toid.new("nanoflake")) == 801
    toid.configure("nanoflake", node=802)               # 801 given back
    assert workers._node_of("nanoflake", toid.new("nanoflake")) == 802
    g = toid.Generator("nanoflake", node=801)
    g.close()
    toid.configure("nanoflake")                          # back to the process's node
    assert workers._node_of("nanoflake", toid.new("nanoflake")) not in (801, 802)


def run_python(code, **env_changes):
    env = dict(os.environ)
    for k, v in env_changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)


REFUSALS = """
import toid
for fmt in ("nanoflake", "ulid-flake-scalable", "uid11-seq"):
    for call in (lambda: toid.new(fmt), lambda: toid.new_bytes(fmt),
                 lambda: toid.new_many(fmt, 100), lambda: toid.ID.new(fmt),
                 lambda: toid.Generator(fmt), lambda: toid.claim(fmt)):
        try:
            call()
            print("made")
        except toid.ClaimError as e:
            print(e.reason, e)
print(toid.new("ulid")[:0] + "others fine")
"""


@pytest.mark.parametrize("env,needle", [
    ({"TOID_CLAIM": "bogus"}, "TOID_CLAIM: unknown claim backend 'bogus'"),
    ({"TOID_CLAIM": "local=/proc/no-such-dir/claims"}, "TOID_CLAIM=local=/proc/no-such-dir/claims"),
])
def test_a_configuration_that_cannot_be_used_is_a_clear_error_never_node_0(env, needle):
    r = run_python(REFUSALS, **env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "others fine"
    assert len(lines) == 19 and "made" not in lines, lines
    for line in lines[:-1]:
        assert needle in line and ("invalid" in line or "io" in line), line


def test_a_bad_claim_conf_file_is_named(tmp_path):
    conf = tmp_path / "claim.conf"
    conf.write_text("claim = local=/tmp\nbogus = 1\n")
    r = run_python(REFUSALS, TOID_CLAIM_CONF=str(conf))
    lines = r.stdout.splitlines()
    assert "made" not in lines and lines[-1] == "others fine"
    assert all(f"{conf}:2" in line for line in lines[:-1]), lines
