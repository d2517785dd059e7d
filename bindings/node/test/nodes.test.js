'use strict';
// No silent node 0: the node formats (nanoflake, ulid-flake-scalable) make
// no ID through the process-wide functions until configure() gave them a
// node in this process, and a Generator of one needs its node; otherwise
// every process would issue the same IDs with node 0.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const forkResult = require('../helpers/fork_result');
const { Worker } = require('node:worker_threads');
const toid = require('..');

const HELPER = path.join(__dirname, '..', 'helpers', 'node_refusal.js');
const NODE_FORMATS = ['nanoflake', 'ulid-flake-scalable'];

function assertRefused(r) {
  assert.equal(r.type, 'Error', `${r.format} ${r.call}`);
  assert.equal(r.reason, 'no node', `${r.format} ${r.call}`);
  assert.equal(r.code, 'TOID_ENONODE');
  assert.ok(r.message.includes(`toid.configure('${r.format}', { node: N })`), r.message);
  assert.ok(r.message.includes('unique') && r.message.includes(`new toid.Generator('${r.format}'`));
}

test('the library decides which formats have a node', () => {
  const withNode = toid.formats.filter((f) => f.nodeMax !== null);
  assert.deepEqual(withNode.map((f) => [f.name, f.nodeMax]).sort(),
    [['nanoflake', 1023], ['ulid-flake-scalable', 31]]);
});

test('child_process.fork: each new process refuses until configured, then uses its node', async () => {
  const runs = [1, 2].map((node) => forkResult(HELPER, [String(node), '20000']));
  const results = await Promise.all(runs);
  const all = new Set();
  results.forEach(({ refused, ids }, k) => {
    assert.equal(refused.length, 10);
    refused.forEach(assertRefused);
    assert.deepEqual(new Set(ids.map((t) => toid.parse(t, 'nanoflake').fields.generator)), new Set([k + 1]));
    ids.forEach((t) => all.add(t));
  });
  assert.equal(all.size, 40000, 'duplicate IDs across processes');
});

test('worker threads share the process-wide node: configured in main, usable in a worker', async () => {
  toid.configure('nanoflake', { node: 3 });
  const { refused } = await new Promise((resolve, reject) => {
    const w = new Worker(HELPER, { workerData: { node: -1, count: 0 } });
    w.once('message', resolve);
    w.once('error', reject);
  });
  for (const r of refused) {
    if (r.format === 'nanoflake') assert.equal(r.reason, null, `${r.call}: ${r.message}`);
    else assertRefused(r);
  }
});

test('configure without a node refuses again; a refused setting changes nothing', () => {
  toid.configure('nanoflake', { node: 9 });
  assert.equal(toid.parse(toid.new('nanoflake'), 'nanoflake').fields.generator, 9);
  toid.configure('nanoflake', { epoch: 0 });                  // replaces the whole setting: node 0
  assert.throws(() => toid.newManyBytes('nanoflake', 1000), (e) => e.reason === 'no node');
  assert.throws(() => toid.configure('nanoflake', { node: 1024 }), RangeError);
  assert.throws(() => toid.new('nanoflake'), (e) => e.code === 'TOID_ENONODE');
  toid.configure('nanoflake', { node: 0 });                   // node 0 chosen explicitly is fine
  assert.equal(toid.parse(toid.new('nanoflake'), 'nanoflake').fields.generator, 0);
  toid.new('uid11-seq');                                      // formats without a node never need one
});

test('a Generator of a node format needs its node', () => {
  for (const format of NODE_FORMATS) {
    assert.throws(() => new toid.Generator(format), (e) =>
      e instanceof TypeError && e.reason === 'no node' && e.message.includes('{ node: N }'));
    assert.throws(() => new toid.Generator(format, { epoch: 0 }), TypeError);
    assert.ok(new toid.Generator(format, { node: 0 }).new());
  }
});
