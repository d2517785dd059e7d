"""Finds the vectors: $TOID_VECTORS_DIR (CTest sets it), else shared/vectors
beside the checkout, as the C tests do (../shared/vectors from the top); and
gives the node formats a node before each test."""
import os

import pytest

import toid

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="session")
def vectors_dir():
    d = os.environ.get("TOID_VECTORS_DIR") or os.path.join(HERE, "..", "..", "..", "..",
                                                           "shared", "vectors")
    if not os.path.isfile(os.path.join(d, "ulid.tsv")):
        pytest.fail(f"conformance vectors not found in {d} (set TOID_VECTORS_DIR)")
    return d


@pytest.fixture(autouse=True)
def node_formats_have_a_node():
    """The process-wide node formats refuse without a node (test_nodes.py
    checks that, in fresh processes): every test starts with node 1."""
    for fmt, info in toid.formats().items():
        if info["node_max"] is not None:
            toid.configure(fmt, node=1)
