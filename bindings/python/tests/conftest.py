"""Finds the vectors: $TOID_VECTORS_DIR (CTest sets it), else shared/vectors
beside the checkout, as the C tests do (../shared/vectors from the top)."""
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="session")
def vectors_dir():
    d = os.environ.get("TOID_VECTORS_DIR") or os.path.join(HERE, "..", "..", "..", "..",
                                                           "shared", "vectors")
    if not os.path.isfile(os.path.join(d, "ulid.tsv")):
        pytest.fail(f"conformance vectors not found in {d} (set TOID_VECTORS_DIR)")
    return d
