'use strict';
require('../helpers/registry');   // (a node format claims there, never in /var/lib/toid)
// Concurrency: worker threads share the process-wide generators (the addon
// loads in each), processes from child_process.fork have their own; no
// duplicates anywhere, each stream strictly increasing.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const forkResult = require('../helpers/fork_result');
const { Worker } = require('node:worker_threads');
const toid = require('..');

const CHILD = path.join(__dirname, '..', 'helpers', 'child.js');
const N = 50000;

function checkStreams(streams) {
  const all = new Set();
  let count = 0;
  for (const ids of streams) {
    for (let i = 0; i < ids.length; i++) {
      if (i) assert.ok(ids[i - 1] < ids[i], 'strictly increasing');
      all.add(ids[i]);
    }
    count += ids.length;
  }
  assert.equal(all.size, count, 'duplicate IDs');
}

test('worker_threads: 4 workers and the main thread, ulid and uuidv7', async () => {
  for (const format of ['ulid', 'uuidv7']) {
    const runs = Array.from({ length: 4 }, () => new Promise((resolve, reject) => {
      const w = new Worker(CHILD, { workerData: { format, count: N } });
      w.once('message', resolve);
      w.once('error', reject);
    }));
    const mine = Array.from({ length: N }, () => toid.new(format));
    checkStreams([...(await Promise.all(runs)), mine]);
  }
});

test('child_process.fork: 4 processes and the parent, ulid and uuidv7', async () => {
  for (const format of ['ulid', 'uuidv7']) {
    const runs = Array.from({ length: 4 }, () => forkResult(CHILD, [format, String(N)]));
    const mine = Array.from({ length: N }, () => toid.new(format));
    checkStreams([...(await Promise.all(runs)), mine]);
  }
});
