"""Finds the vectors: $TOID_VECTORS_DIR (CTest sets it), else shared/vectors
beside the checkout, as the C tests do (../shared/vectors from the top); and
gives the test run a node registry of its own, as tests/test_registry.sh
does for the scripts: a group-writable directory named by a claim
configuration file that TOID_CLAIM_CONF points at (inherited by every
process the tests start), never this machine's /var/lib/toid/claims."""
import os
import shutil
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

# (before the first claim: the claim configuration is read then.) Not
# removed at exit: the claims are given back after Python's own exit
# handlers, into the registry. CTest names a directory in the build tree,
# emptied here at each run; elsewhere a temporary one stays behind.
_WORK = os.environ.get("TOID_TEST_WORK")
if _WORK:
    shutil.rmtree(_WORK, ignore_errors=True)
    os.makedirs(_WORK)
else:
    _WORK = tempfile.mkdtemp(prefix="toid-pytest-")
REGISTRY = os.path.join(_WORK, "registry")
os.mkdir(REGISTRY)
os.chmod(REGISTRY, 0o2770)
CLAIM_CONF = os.path.join(_WORK, "host-claim.conf")
with open(CLAIM_CONF, "w", encoding="utf-8") as _f:
    _f.write(f"claim = local={REGISTRY}\n")
os.environ["TOID_CLAIM_CONF"] = CLAIM_CONF
for _v in ("TOID_CLAIM", "TOID_CLAIM_PREFIX", "TOID_CLAIM_TTL"):
    os.environ.pop(_v, None)



# The package test (package_test.sh) runs this suite against an installed
# package: it names where toid must come from, so that a toid of the source
# tree or the build tree cannot be tested in its place.
_FROM = os.environ.get("TOID_TEST_IMPORT_FROM")
if _FROM:
    import toid
    _AT = os.path.realpath(toid.__file__)
    if not _AT.startswith(os.path.realpath(_FROM) + os.sep):
        raise pytest.UsageError(f"toid was imported from {_AT}, not from {_FROM}")


@pytest.fixture(scope="session")
def vectors_dir():
    d = os.environ.get("TOID_VECTORS_DIR") or os.path.join(HERE, "..", "..", "..", "..",
                                                           "shared", "vectors")
    if not os.path.isfile(os.path.join(d, "ulid.tsv")):
        pytest.fail(f"conformance vectors not found in {d} (set TOID_VECTORS_DIR)")
    return d


@pytest.fixture
def registry():
    """The registry the tests claim in."""
    return REGISTRY
