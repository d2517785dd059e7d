'use strict';
// Gives the test run a node registry of its own, as the Python tests'
// conftest.py does: a directory named by a claim configuration file that
// TOID_CLAIM_CONF points at (inherited by every process the tests start),
// never this machine's /var/lib/toid/claims. Required at the top of each
// test file, before the first claim (the configuration is read then); the
// processes a test starts inherit the one their test file made. Under
// CTest in the build tree (TOID_TEST_WORK), else in the system's temporary
// directory; not removed at exit (the claims are given back after the
// JavaScript exit handlers, into the registry).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.TOID_TEST_REGISTRY) {
  const base = process.env.TOID_TEST_WORK || os.tmpdir();
  fs.mkdirSync(base, { recursive: true });
  const work = fs.mkdtempSync(path.join(base, 'toid-node-test-'));
  const registry = path.join(work, 'registry');
  fs.mkdirSync(registry, { mode: 0o700 });
  const conf = path.join(work, 'host-claim.conf');
  fs.writeFileSync(conf, `claim = local=${registry}\n`);
  process.env.TOID_CLAIM_CONF = conf;
  process.env.TOID_TEST_REGISTRY = registry;
  for (const v of ['TOID_CLAIM', 'TOID_CLAIM_PREFIX', 'TOID_CLAIM_TTL']) delete process.env[v];
}
module.exports = process.env.TOID_TEST_REGISTRY;
