'use strict';
// Node claims (issue 26): the node formats (nanoflake, ulid-flake-scalable,
// uid11-seq's 10 low bits) make IDs only with a node claimed in the host's
// claim configuration (here the test run's own registry: helpers/registry.js),
// so that processes that generate at once never share a node. Real
// processes, no mocks; nothing rests on timing: each holder says which node
// it holds and waits for the test's go.
const registry = require('../helpers/registry');
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { fork } = require('node:child_process');
const toid = require('..');

const HOLDER = path.join(__dirname, '..', 'helpers', 'holder.js');

// A holder process: .first (its node, or its error), then finish() sends go
// and resolves with its IDs once it has exited with 0.
function startHolder(format, count, node, env) {
  const args = [format, String(count)];
  if (node !== undefined) args.push(String(node));
  const c = fork(HOLDER, args, { serialization: 'advanced', env: env || process.env });
  const messages = [];
  let waiting = null;
  c.on('message', (m) => { messages.push(m); if (waiting) waiting(); });
  const next = () => new Promise((resolve) => {
    const take = () => { waiting = null; resolve(messages.shift()); };
    if (messages.length) take(); else waiting = take;
  });
  const closed = new Promise((resolve, reject) => {
    c.once('error', reject);
    c.once('close', (code) => resolve(code));
  });
  return {
    pid: c.pid,
    first: next(),
    async finish() {
      c.send('go');
      const m = await next();
      assert.equal(await closed, 0);
      return m;
    },
    async ended() {
      assert.equal(await closed, 0);
    },
  };
}

function nodeOf(format, id) {
  const f = toid.parse(id, format).fields;
  return format === 'nanoflake' ? f.generator : format === 'ulid-flake-scalable' ? f.sid
    : Number(toid.parse(id, format).int & 1023n);
}

test('the test run claims in a registry of its own', () => {
  assert.ok(registry && !registry.startsWith('/var/lib/toid'), registry);
  assert.equal(process.env.TOID_CLAIM, undefined);
});

for (const format of ['nanoflake', 'ulid-flake-scalable', 'uid11-seq']) {
  test(`${format}: 4 processes with no node anywhere claim 4 nodes and never repeat`, async () => {
    const holders = Array.from({ length: 4 }, () => startHolder(format, 20000));
    const firsts = await Promise.all(holders.map((h) => h.first));   // all four hold now
    for (const m of firsts) assert.equal(typeof m.node, 'number', JSON.stringify(m));
    assert.equal(new Set(firsts.map((m) => m.node)).size, 4, JSON.stringify(firsts));
    const all = new Set();
    for (const [i, h] of holders.entries()) {
      const { ids, nodes } = await h.finish();
      assert.equal(ids.length, 20000);
      assert.deepEqual(nodes, [firsts[i].node]);
      ids.forEach((id) => all.add(id));
    }
    assert.equal(all.size, 80000, 'duplicate IDs across processes');
  });
}

test('a node held by another process is refused, naming its pid', async () => {
  const holder = startHolder('nanoflake', 10, 900);
  assert.equal((await holder.first).node, 900);
  for (const attempt of [() => toid.configure('nanoflake', { node: 900 }),
    () => toid.claim('nanoflake', { node: 900 }),
    () => new toid.Generator('nanoflake', { node: 900 })]) {
    assert.throws(attempt, (e) => e instanceof toid.ClaimError && e instanceof Error &&
      e.reason === 'busy' && e.code === 'TOID_EBUSY' && e.format === 'nanoflake' &&
      e.message.includes(`pid ${holder.pid}`) && e.message.includes('900'));
  }
  await holder.finish();                              // it exits: the node is free
  const c = toid.claim('nanoflake', { node: 900 });
  assert.equal(c.node, 900);
  assert.equal(nodeOf('nanoflake', toid.new('nanoflake')), 900);
  c.release();
});

test('claim() and release(): the process-wide generator takes the node, then the process\'s', () => {
  const c = toid.claim('nanoflake', { node: 17 });
  assert.equal(c.format, 'nanoflake');
  assert.equal(c.node, 17);
  assert.equal(c.valid, true);
  assert.equal(nodeOf('nanoflake', toid.new('nanoflake')), 17);
  assert.ok(toid.newManyBytes('nanoflake', 1000).length === 8000);
  c.release();
  assert.equal(c.valid, false);
  c.release();                                        // again: nothing
  assert.notEqual(nodeOf('nanoflake', toid.new('nanoflake')), undefined);
  const p = toid.claim('ulid-flake-scalable');       // the process's node
  assert.equal(nodeOf('ulid-flake-scalable', toid.newMany('ulid-flake-scalable', 1)[0]), p.node);
  if (typeof Symbol.dispose === 'symbol') {
    const d = toid.claim('uid11-seq', { node: 33 });
    assert.equal(nodeOf('uid11-seq', toid.new('uid11-seq')), 33);
    d[Symbol.dispose]();
    assert.equal(d.valid, false);
  }
  assert.throws(() => toid.claim('ulid'), (e) => e instanceof RangeError && e.reason === 'invalid');
  assert.throws(() => toid.claim('nanoflake', { node: 1024 }),
    { message: "claim: node: 1024 is above nanoflake's largest, 1023 (invalid)" });
});

test('configure(format, { node }) claims the node now', () => {
  toid.configure('nanoflake', { node: 41 });
  assert.equal(nodeOf('nanoflake', toid.new('nanoflake')), 41);
  const g = new toid.Generator('nanoflake', { node: 42 });
  assert.throws(() => toid.configure('nanoflake', { node: 42 }), (e) => e.reason === 'busy');
  assert.equal(nodeOf('nanoflake', toid.new('nanoflake')), 41);   // nothing changed
  g.close();
  toid.configure('nanoflake', {});                                 // the process's node again
  assert.ok(toid.new('nanoflake'));
});

test('Generator: a node of its own, given back by close()', () => {
  const a = new toid.Generator('nanoflake');
  const b = new toid.Generator('nanoflake');
  const p = toid.claim('nanoflake');
  assert.equal(new Set([a.node, b.node, p.node]).size, 3);
  assert.equal(nodeOf('nanoflake', a.new()), a.node);
  assert.equal(nodeOf('nanoflake', b.newMany(3)[2]), b.node);
  assert.throws(() => new toid.Generator('nanoflake', { node: a.node }), (e) => e.reason === 'busy');
  const node = a.node;
  a.close();
  a.close();
  assert.throws(() => a.new(), /closed/);
  const c = new toid.Generator('nanoflake', { node });            // free again
  assert.equal(c.node, node);
  c.close();
  b.close();
  const u = new toid.Generator('uid11-seq', { node: 5 });
  assert.equal(nodeOf('uid11-seq', u.new()), 5);
  u.close();
  assert.equal(new toid.Generator('ulid').node, null);
});

test('a bad claim configuration gives a clear ClaimError, never node 0', async () => {
  for (const [env, says] of [[{ TOID_CLAIM: 'bogus' }, "TOID_CLAIM: unknown claim backend 'bogus'"],
    [{ TOID_CLAIM: 'local=/proc/no-such-dir/claims' }, 'TOID_CLAIM=local=/proc/no-such-dir/claims']]) {
    const h = startHolder('nanoflake', 10, undefined, { ...process.env, ...env });
    const { error } = await h.first;
    assert.ok(error, 'refused');
    assert.equal(error.name, 'ClaimError');
    assert.ok(['invalid', 'io'].includes(error.reason), error.reason);
    assert.ok(error.message.includes(says), error.message);
    await h.ended();
  }
});
