#!/usr/bin/env bash
# The Node.js package as a user gets it (ctest node_package): npm pack (in a
# copy holding only what the package is made of), the tarball installed into
# an empty npm project (node-gyp builds the addon from the package's own
# libtoid/ sources), require() and import() of it, the binding's node --test
# suite against the installed package (the suite's `require('..')` is the
# project's `require('toid')`), index.d.ts type-checked by tsc in the
# project (CommonJS and ES module programs); then `npm install
# path/to/bindings/node` into a second empty project (built from the
# checkout's sources).
#   package_test.sh WORKDIR VERSION NODEDIR [NPM_CLI]
# NODEDIR: a node installation (bin/node, include/node: the headers, so that
# node-gyp downloads nothing); NPM_CLI: npm's bin/npm-cli.js to run with
# that node (default: the npm on PATH). WORKDIR is emptied and used; VERSION
# is the project's (CMakeLists.txt), which the package's must be. Offline:
# the tarball has no dependencies; tsc and @types/node come from the
# checkout's bindings/node/node_modules (npm ci there). TOID_WERROR=1 in the
# environment (CMake passes its TOID_WERROR): a compiler warning in the
# addon's builds fails the test.
set -euo pipefail
work=$1 version=$2 nodedir=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
node=$nodedir/bin/node
npm_cli=${4:-$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js}
export PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" npm_config_update_notifier=false
unset TOID_NODE_ADDON TOID_CLAIM TOID_CLAIM_CONF
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
step() { t=$(date +%s%N); }
took() { local ms=$((($(date +%s%N) - t) / 1000000)); printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100)); }
npm() { "$node" "$npm_cli" --no-audit --no-fund --offline "$@"; }
[ -x "$node" ] || fail "no $node"
[ -f "$nodedir/include/node/node_api.h" ] || fail "no $nodedir/include/node/node_api.h"
echo "node $("$node" --version), npm $(npm --version)"

rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)

# ---- npm pack, in a copy of what the package is made of
step
mkdir -p "$work/checkout/bindings"
(cd "$top" && tar -cf - --exclude=node_modules --exclude=build --exclude=libtoid --exclude='*.tgz' \
    LICENSE include src claim bindings/common bindings/node) | tar -xf - -C "$work/checkout"
(cd "$work/checkout/bindings/node" && npm pack --pack-destination "$work") >"$work/pack.log" 2>&1 ||
    { cat "$work/pack.log"; fail "npm pack"; }
tgz=$work/toid-$version.tgz
[ -f "$tgz" ] || fail "no $tgz (the package's version is not $version?): $(ls "$work")"
[ ! -e "$work/checkout/bindings/node/libtoid" ] || fail "npm pack left libtoid/ behind (postpack)"
for f in binding.gyp index.js addon.js index.mjs index.d.ts src/toid_node.c scripts/libtoid.js libtoid/include/toid.h \
         libtoid/src/registry.c libtoid/src/codec_simd_x86.c libtoid/claim/claim_local.c \
         libtoid/common/toid_claim_epoch.h libtoid/LICENSE; do
    tar -tzf "$tgz" | grep -x "package/$f" >/dev/null || fail "the tarball has no $f"
done
tar -tzf "$tgz" | grep -E '^package/(test|helpers|bench|node_modules|build)/' && fail "the tarball has the tests or a build"
ok "npm pack: $(basename "$tgz"), $(tar -tzf "$tgz" | wc -l) files, libtoid's sources in libtoid/ ($(took))"

# ---- installed into an empty project: node-gyp builds the addon there
step
mkdir "$work/proj"
cd "$work/proj"
npm init -y >/dev/null
npm install --foreground-scripts "$tgz" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "npm install $(basename "$tgz")"; }
no_warnings() {
    if [ "${TOID_WERROR:-0}" = 1 ] && grep -E '(error|warning): ' "$1" >/dev/null; then
        grep -E '(error|warning): ' "$1"; fail "compiler warnings in $1"
    fi
}
no_warnings "$work/install.log"
addon=$work/proj/node_modules/toid/build/Release/toid.node
[ -f "$addon" ] || fail "no $addon"
exported=$(nm -D --defined-only "$addon" | awk '{print $3}' | sort | tr '\n' ' ')
[ "$exported" = "napi_register_module_v1 node_api_module_get_api_version_v1 " ] ||
    fail "the addon exports more than its N-API entry points: $exported"
ok "npm install of the tarball into an empty project: $addon ($(took))"

# ---- require() and import(), from the project
loaded=$("$node" -e "
const toid = require('toid');
if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(toid.ulid())) throw new Error('ulid');
console.log(Object.keys(require.cache).filter((k) => k.endsWith('.node')).join(' '));")
[ "$loaded" = "$addon" ] || fail "require('toid') loaded '$loaded', not $addon"
"$node" --input-type=module -e "
import toid, { ulid, new as newId, parse } from 'toid';
import { createRequire } from 'node:module';
if (toid !== createRequire(import.meta.url)('toid')) throw new Error('import and require differ');
if (parse(newId('uuidv7')).format !== 'uuidv7' || parse(ulid()).format !== 'ulid') throw new Error('import');
" || fail "import ... from 'toid'"
ok "require('toid') and import from 'toid': one module, over $addon"

# ---- the binding's suite against the installed package: test/ and helpers/
# copied beside an index.js that is require('toid') (types.test.js is the
# checkout's tsc check; the project's is below)
step
mkdir -p "$work/proj/suite"
cp -r "$here/test" "$here/helpers" "$work/proj/suite/"
rm -f "$work/proj/suite/test/types.test.js"
cat >"$work/proj/suite/index.js" <<EOF
'use strict';
// The suite's require('..'): the installed package, and nothing else.
const toid = require('toid');
for (const k of Object.keys(require.cache)) {
  if (k.endsWith('.node') && k !== '$addon') throw new Error('an addon not the package\'s: ' + k);
}
module.exports = toid;
EOF
TOID_TEST_WORK="$work/test-work" "$node" --test suite/test/ >"$work/suite.log" 2>&1 ||
    { cat "$work/suite.log"; fail "node --test against the installed package"; }
pass=$(sed -n 's/^# pass //p' "$work/suite.log")
[ "${pass:-0}" -gt 20 ] || { cat "$work/suite.log"; fail "node --test: $pass tests passed"; }
ok "node --test suite/test/ against the installed package: $pass passed, 0 failed ($(took))"

# ---- the types, in the project: a CommonJS program and an ES module one
step
tsc=$here/node_modules/typescript/bin/tsc
if [ -f "$tsc" ]; then
    sed "s|from '../..'|from 'toid'|" "$here/test/types/check.ts" >check.ts
    cat >check.mts <<'EOF'
import toid, { ulid, parse, new as newId, type ID, type FormatName } from 'toid';
const f: FormatName = 'uuidv7';
const id: ID = parse(ulid());
const t: Date = toid.time(newId(f));
const n: bigint = id.int;
console.log(id.text, t, n, toid.formats.length);
// @ts-expect-error unknown format
newId('ulidx');
EOF
    "$node" "$tsc" --noEmit --strict --skipLibCheck --module node16 --moduleResolution node16 --target es2022 \
        --types node --typeRoots "$here/node_modules/@types" check.ts check.mts >"$work/tsc.log" 2>&1 ||
        { cat "$work/tsc.log"; fail "tsc over the installed package's index.d.ts"; }
    ok "tsc --strict (node16 resolution): check.ts (CommonJS) and check.mts (ES module) over node_modules/toid ($(took))"
else
    echo "skipped: the tsc check (no $tsc: npm ci in bindings/node)"
fi

# ---- npm install of the package directory of a checkout (a link to it:
# its install script builds it in place from the checkout's sources)
step
mkdir "$work/proj2"
cd "$work/proj2"
npm init -y >/dev/null
npm install --foreground-scripts "$work/checkout/bindings/node" >"$work/install2.log" 2>&1 ||
    { cat "$work/install2.log"; fail "npm install path/to/bindings/node"; }
no_warnings "$work/install2.log"
"$node" -e "const t = require('toid'); t.parse(t.uuidv7(), 'uuidv7')" || fail "require('toid') after npm install path/to/bindings/node"
"$node" --input-type=module -e "import { ulid } from 'toid'; ulid();" || fail "import after npm install path/to/bindings/node"
ok "npm install path/to/bindings/node into an empty project: built from the checkout's sources ($(took))"
echo "node package: all passed (node $("$node" --version))"
