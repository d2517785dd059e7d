#!/usr/bin/env bash
# The Python package as a user gets it (ctest python_package): an sdist made
# with python3 -m build from a copy of only what the package needs of the
# checkout, installed by pip into a fresh virtual environment from an empty
# directory; the binding's pytest suite (the sdist's copy) run against that
# installed package from outside every tree; python -m toid; then a wheel
# built from the unpacked sdist without the etcd backend (TOID_ETCD=0),
# installed into a second environment, which refuses an etcd claim naming
# what it was built without.
#   package_test.sh PYTHON WORKDIR VERSION
# PYTHON: a python3 with venv, build, setuptools, wheel and pytest (Debian:
# python3-venv python3-build python3-wheel python3-pytest python3-dev);
# WORKDIR: emptied and used; VERSION: the project's (CMakeLists.txt), which
# the package's must be. Offline: pip runs with --no-index --no-build-isolation
# (the build requirements from the environment's system site packages).
# TOID_WERROR=1 in the environment (CMake passes its TOID_WERROR): the
# package's C compiles with -Werror (setup.py reads it).
set -euo pipefail
py=$1 work=$2 version=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
step() { t=$(date +%s%N); }
took() { local ms=$((($(date +%s%N) - t) / 1000000)); printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100)); }

rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)

# ---- the sdist, from a copy holding only what it is made of (the source
# tree stays clean: setuptools writes its egg-info beside setup.py)
step
mkdir -p "$work/checkout/bindings"
(cd "$top" && tar -cf - --exclude=build --exclude=dist --exclude='*.egg-info' --exclude=__pycache__ \
    --exclude='*.so' LICENSE include src claim bindings/common bindings/python) | tar -xf - -C "$work/checkout"
"$py" -m build --sdist --no-isolation -o "$work/dist" "$work/checkout/bindings/python" >"$work/sdist.log" 2>&1 ||
    { cat "$work/sdist.log"; fail "python3 -m build --sdist"; }
sdist=$work/dist/toid-$version.tar.gz
[ -f "$sdist" ] || fail "no $sdist (the package's version is not $version?): $(ls "$work/dist")"
for f in _libtoid/include/toid.h _libtoid/src/registry.c _libtoid/src/codec_simd_x86.c \
         _libtoid/claim/claim_local.c _libtoid/common/toid_claim_epoch.h toid/__init__.pyi \
         toid/py.typed toid/__main__.py tests/test_api.py LICENSE pyproject.toml; do
    tar -tzf "$sdist" | grep -x "toid-$version/$f" >/dev/null || fail "the sdist has no $f"
done
ok "sdist $(basename "$sdist"): $(tar -tzf "$sdist" | grep -c '[^/]$') files, libtoid's sources in _libtoid/ ($(took))"

# ---- unpacked in an empty directory; pip installs the tarball into a fresh
# environment (system site packages: pytest, and setuptools for the build)
step
mkdir "$work/empty" && tar -xzf "$sdist" -C "$work/empty"
pkg=$work/empty/toid-$version
"$py" -m venv --system-site-packages "$work/venv"
vpy=$work/venv/bin/python
(cd "$work/empty" && "$vpy" -m pip install --no-build-isolation --no-index --no-deps \
    --disable-pip-version-check "$sdist") >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "pip install $(basename "$sdist")"; }
site=$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
[ -f "$site/toid/__init__.pyi" ] && [ -f "$site/toid/py.typed" ] || fail "no type stubs installed in $site/toid"
so=$(ls "$site"/toid/_toid*.so) || fail "no extension module in $site/toid"
exported=$(nm -D --defined-only "$so" | awk '{print $3}' | tr '\n' ' ')
[ "$exported" = "PyInit__toid " ] || fail "$so exports more than PyInit__toid: $exported"
ok "pip install of the sdist into a fresh venv: $so, exports PyInit__toid alone ($(took))"

# ---- the binding's suite against the installed package, from a directory
# outside every tree (conftest.py checks where toid came from)
step
mkdir "$work/run"
(cd "$work/run" && TOID_TEST_IMPORT_FROM="$site" TOID_TEST_WORK="$work/test-work" PYTHONDONTWRITEBYTECODE=1 \
    "$vpy" -m pytest -p no:cacheprovider -q "$pkg/tests") || fail "pytest against the installed package"
ok "pytest of the sdist's tests against $site/toid ($(took))"

# ---- python -m toid
cd "$work/run"
out=$("$vpy" -m toid new ulid 3)
[ "$(echo "$out" | grep -cE '^[0-9A-HJKMNP-TV-Z]{26}$')" = 3 ] || fail "python -m toid new ulid 3: $out"
[ "$(echo "$out" | sort)" = "$out" ] || fail "python -m toid new ulid 3: not increasing: $out"
[[ "$("$vpy" -m toid new uuidv7)" =~ ^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]] ||
    fail "python -m toid new uuidv7"
[ "$("$vpy" -m toid new | wc -c)" = 27 ] || fail "python -m toid new: not one ulid"
[ "$("$vpy" -m toid new ulid 70000 | sort -u | wc -l)" = 70000 ] || fail "python -m toid new ulid 70000"
"$vpy" -m toid new ulid 200000 2>"$work/pipe.err" | head -1 >/dev/null   # (stdout closed early: quiet)
[ ! -s "$work/pipe.err" ] || fail "python -m toid new ulid 200000 | head -1: $(cat "$work/pipe.err")"
out=$("$vpy" -m toid inspect 01ARZ3NDEKTSV4RRFFQ69G5FAV)
expected="format:    ulid
text:      01ARZ3NDEKTSV4RRFFQ69G5FAV
unix_ms:   1469922850259
time:      2016-07-30T23:54:10.259Z
hex:       01563e3ab5d3d6764c61efb99302bd5b
random:    d6764c61efb99302bd5b"
[ "$out" = "$expected" ] || fail "python -m toid inspect: $out"
[ "$(echo 0190163d-8694-739b-aea5-ea90ba2d2cde | "$vpy" -m toid inspect --json)" = \
  '{"format":"uuidv7","text":"0190163d-8694-739b-aea5-ea90ba2d2cde","unix_ms":1718360049300,"time":"2024-06-14T10:14:09.300Z","hex":"0190163d8694739baea5ea90ba2d2cde"}' ] ||
    fail "python -m toid inspect --json (stdin): $(echo 0190163d-8694-739b-aea5-ea90ba2d2cde | "$vpy" -m toid inspect --json)"
rc=0; err=$("$vpy" -m toid inspect 01ARZ3NDEKTSV4RRFFQ69G5FAI 2>&1 >/dev/null) || rc=$?
[ $rc = 1 ] && [ "$err" = "toid: inspect: text: '01ARZ3NDEKTSV4RRFFQ69G5FAI' is not a valid ID: bad character 'I' at position 25 (char)" ] ||
    fail "python -m toid inspect of a bad ID: exit $rc, '$err'"
rc=0; err=$("$vpy" -m toid inspect -f uuidv7 01ARZ3NDEKTSV4RRFFQ69G5FAV 2>&1 >/dev/null) || rc=$?
[ $rc = 1 ] && [[ "$err" == "toid: inspect: text: '01ARZ3NDEKTSV4RRFFQ69G5FAV' is not a valid uuidv7: bad length: 26 characters, expected 36 (length)" ]] ||
    fail "python -m toid inspect -f uuidv7 of a ulid: exit $rc, '$err'"
rc=0; "$vpy" -m toid new bogus >/dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "python -m toid new bogus: exit $rc, not 2"
"$vpy" -m toid --help | grep -q "inspect" || fail "python -m toid --help"
"$vpy" -m toid new --help | grep -q "COUNT" || fail "python -m toid new --help"
[ "$("$vpy" -m toid --version)" = "toid $version (libtoid $version)" ] || fail "python -m toid --version"
ok "python -m toid: new, inspect (text, --json, stdin), errors (exit 1 with the library's message, 2 for usage), --help, --version"

# ---- a wheel from the unpacked sdist, without etcd, in a second environment
step
(cd "$pkg" && TOID_ETCD=0 "$py" -m build --wheel --no-isolation -o "$work/wheels" .) >"$work/wheel.log" 2>&1 ||
    { cat "$work/wheel.log"; fail "python3 -m build --wheel of the unpacked sdist"; }
whl=$(ls "$work"/wheels/toid-"$version"-*.whl) || fail "no wheel in $work/wheels"
for f in toid/__init__.py toid/__init__.pyi toid/py.typed toid/__main__.py "toid-$version.dist-info/LICENSE"; do
    "$py" -m zipfile -l "$whl" | awk '{print $1}' | grep -x "$f" >/dev/null || fail "the wheel has no $f"
done
"$py" -m venv "$work/venv-wheel"
"$work/venv-wheel/bin/python" -m pip install --no-index --no-deps --disable-pip-version-check "$whl" \
    >"$work/wheel-install.log" 2>&1 || { cat "$work/wheel-install.log"; fail "pip install $(basename "$whl")"; }
wso=$(ls "$work"/venv-wheel/lib/python3*/site-packages/toid/_toid*.so)
ldd "$wso" | grep -q jansson && fail "TOID_ETCD=0 wheel links jansson"
out=$(cd "$work/run" && TOID_CLAIM=etcd=http://127.0.0.1:1 "$work/venv-wheel/bin/python" -c '
import toid
print(toid.new("ulid"))
try:
    toid.new("nanoflake")
except toid.ClaimError as e:
    print(e)
') || fail "the wheel's package"
echo "$out" | grep -q "the etcd claim backend is not built in (the package was built with TOID_ETCD=0" ||
    fail "the wheel without etcd, asked for an etcd claim: $out"
ok "wheel $(basename "$whl") ($(du -k "$whl" | cut -f1) kB) built from the unpacked sdist without etcd, installed in a second venv: refuses etcd claims naming why ($(took))"
echo "python package: all passed"
