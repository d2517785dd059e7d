'use strict';
// libtoid's C sources for the addon's build (binding.gyp) and for npm pack.
// The package builds libtoid and the claim library from their sources, as
// a static library linked into the addon with its symbols kept private:
// the sources are the package's own copy in libtoid/ (put there by npm
// pack: `prepack`), else the checkout's (src/, include/, claim/ at the top,
// bindings/common/), for `npm install path/to/bindings/node`.
//   node scripts/libtoid.js dir DIR          the directory of DIR: src, include, claim, common
//   node scripts/libtoid.js sources          the C files, one per line (relative to the package)
//   node scripts/libtoid.js etcd             1 if the etcd claim backend is built in, else 0
//   node scripts/libtoid.js etcd-missing     the define naming why it is not (for the error)
//   node scripts/libtoid.js host-registry    the defines of the host's node registry
//   node scripts/libtoid.js copy | clean     npm pack's prepack / postpack: libtoid/ made / removed
// The etcd backend (claims in etcd: TOID_CLAIM=etcd=URL) is built in when
// jansson.h, curl/curl.h and libjansson are found (Debian: libjansson-dev
// libcurl4-openssl-dev; libcurl itself is loaded with dlopen() on the first
// etcd claim). Environment, as the Python package's setup.py takes it:
//   TOID_ETCD=auto|1|0   auto (the default): as found; 1: fail without them; 0: leave it out
//   TOID_HOST_REGISTRY, TOID_HOST_REGISTRY_GROUP   the host's node registry
//                        (default /var/lib/toid/claims, group toid)
//   CC                   the compiler the probe runs (default cc)
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const PKG = path.resolve(__dirname, '..');
const BUNDLED = path.join(PKG, 'libtoid');
const CHECKOUT = path.resolve(PKG, '..', '..');
// The claim library without its etcd backend (claim/CMakeLists.txt).
const CLAIM_LOCAL = ['claim.c', 'claim_host.c', 'claim_local.c', 'claim_process.c'];
const CLAIM_ETCD = ['claim_etcd.c', 'curl_lazy.c'];

function isRoot(top) {
  return fs.existsSync(path.join(top, 'include', 'toid.h')) &&
    fs.existsSync(path.join(top, 'src', 'registry.c'));
}

// {src, include, claim, common}: the package's copy, else the checkout's.
function dirs() {
  if (isRoot(BUNDLED)) {
    return { src: path.join(BUNDLED, 'src'), include: path.join(BUNDLED, 'include'),
      claim: path.join(BUNDLED, 'claim'), common: path.join(BUNDLED, 'common') };
  }
  if (isRoot(CHECKOUT)) {
    return { src: path.join(CHECKOUT, 'src'), include: path.join(CHECKOUT, 'include'),
      claim: path.join(CHECKOUT, 'claim'), common: path.join(CHECKOUT, 'bindings', 'common') };
  }
  throw new Error(`toid: libtoid's C sources are neither in ${BUNDLED} (the npm package) ` +
    `nor in ${CHECKOUT} (a checkout): install from a checkout of toid or from the tarball npm pack makes`);
}

const cFiles = (dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.c')).sort()
  .map((f) => path.join(dir, f));

// [] when the etcd backend can be built, else what is missing.
function etcdMissing() {
  const cc = process.env.CC || 'cc';
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toid-etcd-probe-'));
  const run = (args, input) => spawnSync(cc, args, { input, stdio: ['pipe', 'ignore', 'ignore'] }).status === 0;
  try {
    const missing = ['jansson.h', 'curl/curl.h'].filter((h) =>
      !run(['-E', '-x', 'c', '-', '-o', path.join(tmp, 'h.i')], `#include <${h}>\n`));
    if (missing.length === 0 && !run(['-x', 'c', '-', '-o', path.join(tmp, 'probe'), '-ljansson'],
      '#include <curl/curl.h>\n#include <jansson.h>\n' +
      'int main(void) { json_t *j = json_object(); json_decref(j); return (int)CURLE_OK; }\n')) {
      missing.push('libjansson.so');
    }
    return missing;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// [built in, why not]; the build's log says why not once (quiet: not)
function etcd(quiet = true) {
  const want = process.env.TOID_ETCD || 'auto';
  if (want === '0') {
    return [false, 'the package was built with TOID_ETCD=0; to have it, reinstall with jansson ' +
      'and libcurl headers (Debian: libjansson-dev libcurl4-openssl-dev)'];
  }
  const missing = etcdMissing();
  if (missing.length === 0) return [true, null];
  const why = `${missing.join(' and ')} not found when the package was built; to have it, ` +
    'reinstall the package with libjansson-dev and libcurl4-openssl-dev installed (Debian)';
  if (want === '1') throw new Error(`toid: TOID_ETCD=1, but ${why}`);
  if (!quiet) process.stderr.write(`toid: the etcd claim backend is left out: ${why}\n`);
  return [false, why];
}

// npm pack in a checkout: libtoid/ afresh from the checkout (in a package
// unpacked elsewhere, the copy it has).
function copyTree() {
  if (!isRoot(CHECKOUT)) {
    dirs();
    return;
  }
  fs.rmSync(BUNDLED, { recursive: true, force: true });
  const d = dirs();
  for (const [key, keep] of [['src', /\.[ch]$/], ['include', /^toid\.h$/], ['claim', /\.[ch]$/],
    ['common', /\.h$/]]) {
    const to = path.join(BUNDLED, key);
    fs.mkdirSync(to, { recursive: true });
    for (const f of fs.readdirSync(d[key]).filter((n) => keep.test(n)).sort()) {
      fs.copyFileSync(path.join(d[key], f), path.join(to, f));
    }
  }
  fs.copyFileSync(path.join(CHECKOUT, 'LICENSE'), path.join(BUNDLED, 'LICENSE'));
}

const [what, arg] = process.argv.slice(2);
const out = (lines) => process.stdout.write(lines.join('\n') + '\n');
switch (what) {
  case 'dir': out([dirs()[arg]]); break;
  case 'sources': {   // (relative to the package: gyp's make generator wants that)
    const d = dirs();
    out([...cFiles(d.src), ...CLAIM_LOCAL.map((f) => path.join(d.claim, f)),
      ...(etcd()[0] ? CLAIM_ETCD.map((f) => path.join(d.claim, f)) : [])]
      .map((f) => path.relative(PKG, f)));
    break;
  }
  case 'etcd': out([etcd(false)[0] ? '1' : '0']); break;
  case 'etcd-missing': out([`TOID_CLAIM_ETCD_MISSING="${etcd()[1] || ''}"`]); break;
  case 'host-registry':   // (quoted: gyp splits <!@ output as a shell would)
    out([`'TOID_HOST_REGISTRY="${process.env.TOID_HOST_REGISTRY || '/var/lib/toid/claims'}"'`,
      `'TOID_HOST_REGISTRY_GROUP="${process.env.TOID_HOST_REGISTRY_GROUP || 'toid'}"'`]);
    break;
  case 'copy': copyTree(); break;
  case 'clean':   // (in a checkout only: elsewhere the copy is the only one)
    if (isRoot(CHECKOUT)) fs.rmSync(BUNDLED, { recursive: true, force: true });
    break;
  default:
    process.stderr.write('usage: node scripts/libtoid.js dir DIR | sources | etcd | etcd-missing | ' +
      'host-registry | copy | clean\n');
    process.exit(2);
}
