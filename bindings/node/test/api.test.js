'use strict';
require('../helpers/registry');
// The JavaScript API: generating, monotonicity, the ID value, errors, settings.
const test = require('node:test');
const assert = require('node:assert/strict');
const toid = require('..');

// the formats toid generates (not the read-only variants of reference libraries)
const generated = toid.formats.filter((f) => f.generates);
const names = generated.map((f) => f.name);
// The node formats claim their nodes (claims.test.js), here in a registry of the test's own: node 1.
for (const f of toid.formats) if (f.nodeMax !== null) toid.configure(f.name, { node: 1 });
const MONOTONIC = names.filter((n) => n !== 'uid11');         // uid11: random within a ms
// Ulid-Flake errors when a ms is full (its spec): the answer, not a failure.
const FULL_MS_IS_AN_ERROR = new Set(['ulid-flake', 'ulid-flake-scalable']);

function retrying(format, make) {
  for (let i = 0; i < 100000; i++) {
    try {
      return make();
    } catch (e) {
      assert.ok(FULL_MS_IS_AN_ERROR.has(format) && e.reason === 'overflow', e.message);
    }
  }
  throw new Error('no ID');
}

test('ulid() and uuidv7() give canonical text', () => {
  assert.match(toid.ulid(), /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
  assert.match(toid.uuidv7(), /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(toid.parse(toid.new()).format, 'ulid');
});

test('every format: new, newBytes, newMany round trip', () => {
  for (const f of generated) {
    const text = retrying(f.name, () => toid.new(f.name));
    assert.equal(text.length, f.textLength);
    assert.equal(toid.parse(text, f.name).text, text);
    const b = retrying(f.name, () => toid.newBytes(f.name));
    assert.ok(Buffer.isBuffer(b) && b.length === f.binSize);
    const many = retrying(f.name, () => toid.newMany(f.name, 50));
    assert.equal(new Set(many).size, 50);
    const raw = retrying(f.name, () => toid.newManyBytes(f.name, 50));
    assert.equal(raw.length, 50 * f.binSize);
  }
});

test('strictly increasing, one call at a time and in batches', () => {
  for (const format of MONOTONIC) {
    const batch = FULL_MS_IS_AN_ERROR.has(format) ? 100 : 5000;
    let prev = toid.newBytes(format);
    for (let i = 0; i < 5000; i++) {
      const cur = retrying(format, () => toid.newBytes(format));
      assert.equal(Buffer.compare(prev, cur), -1, format);
      prev = cur;
    }
    const raw = retrying(format, () => toid.newManyBytes(format, batch));
    const size = raw.length / batch;
    for (let i = 0; i < batch; i++) {
      const cur = raw.subarray(i * size, (i + 1) * size);
      assert.equal(Buffer.compare(prev, cur), -1, format);
      prev = cur;
    }
    const texts = retrying(format, () => toid.newMany(format, batch));
    const ids = texts.map((t) => toid.parse(t, format));
    for (let i = 1; i < ids.length; i++) assert.equal(ids[i - 1].compare(ids[i]), -1);
  }
  const ulids = Array.from({ length: 20000 }, () => toid.ulid());
  for (let i = 1; i < ulids.length; i++) assert.ok(ulids[i - 1] < ulids[i]);
  const v7 = Array.from({ length: 20000 }, () => toid.uuidv7());
  for (let i = 1; i < v7.length; i++) assert.ok(v7[i - 1] < v7[i]);
  const big = toid.newMany('ulid', 70000);                     // more than one batch call
  assert.equal(new Set(big).size, 70000);
  for (let i = 1; i < big.length; i++) assert.ok(big[i - 1] < big[i]);
});

test('the ID value', () => {
  const id = toid.parse('01ARZ3NDEKTSV4RRFFQ69G5FAV');
  assert.equal(id.format, 'ulid');
  assert.equal(id.hex, '01563e3ab5d3d6764c61efb99302bd5b');
  assert.equal(id.int, 0x01563e3ab5d3d6764c61efb99302bd5bn);
  assert.ok(id.time instanceof Date);
  assert.equal(id.time.toISOString(), '2016-07-30T23:54:10.259Z');
  assert.equal(toid.time('01ARZ3NDEKTSV4RRFFQ69G5FAV').toISOString(), '2016-07-30T23:54:10.259Z');
  assert.equal(toid.time(id).getTime(), 1469922850259);
  assert.equal(JSON.stringify({ id }), '{"id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}');
  assert.equal(`${id}`, '01ARZ3NDEKTSV4RRFFQ69G5FAV');
  assert.ok(Object.isFrozen(id));
  assert.throws(() => { 'use strict'; id.format = 'uuidv7'; }, TypeError);
  const b = id.bytes;
  b[0] = 0xff;                                                // a copy: the ID is unchanged
  assert.equal(id.hex, '01563e3ab5d3d6764c61efb99302bd5b');
  const nf = toid.parse(toid.new('nanoflake'), 'nanoflake');
  assert.equal(typeof nf.int, 'bigint');
  assert.equal(nf.int, nf.fields.int);
  assert.equal(typeof toid.parse(toid.new('scru160'), 'scru160').fields.random80, 'bigint');
  assert.throws(() => id.compare(nf), TypeError);
  assert.ok(!id.equals(nf));
  assert.throws(() => new toid.ID(), TypeError);
});

test('errors: RangeError for values with reason and position, TypeError for types', () => {
  const check = (fn, Type, reason, position) => assert.throws(fn, (e) => {
    assert.ok(e instanceof Type, `${e}`);
    assert.equal(e.reason, reason);
    assert.equal(e.position, position);
    assert.ok(e.message.includes(`(${reason})`), e.message);
    return true;
  });
  check(() => toid.parse('01ARZ3NDEKTSV4RRFFQ69G5FAV ', 'ulid'), RangeError, 'length', undefined);
  check(() => toid.parse('01ARZ3NDEKTSV4RRFFQ69G5FAI', 'ulid'), RangeError, 'char', 25);
  check(() => toid.parse('8ZZZZZZZZZZZZZZZZZZZZZZZZZ', 'ulid'), RangeError, 'overflow', undefined);
  check(() => toid.parse('x'.repeat(1000)), RangeError, 'length', undefined);
  check(() => toid.new('ulidx'), RangeError, 'invalid', undefined);
  check(() => toid.fromInt(2n ** 63n, 'nanoflake'), RangeError, 'overflow', undefined);
  check(() => toid.configure('nanoflake', { node: 1024 }), RangeError, 'invalid', undefined);
  check(() => toid.make('nanoflake', { unix_ms: 0 }), RangeError, 'range', undefined);
  check(() => toid.make('ulid', { unix_ms: `1${'0'.repeat(94)}x`, random: '0'.repeat(20) }),
    RangeError, 'invalid', undefined);                        // too long: refused, never cut
  assert.throws(() => toid.parse(42), TypeError);
  assert.throws(() => toid.new(7), TypeError);
  assert.throws(() => toid.fromInt(5, 'uid11'), TypeError);
  assert.throws(() => toid.fromBytes(Buffer.alloc(15), 'ulid'), RangeError);
  assert.equal(toid.isValid('01ARZ3NDEKTSV4RRFFQ69G5FAV'), true);
  assert.equal(toid.isValid('01ARZ3NDEKTSV4RRFFQ69G5FAI'), false);
  const e = (() => { try { toid.parse('01ARZ3NDEKTSV4RRFFQ69G5FAI', 'ulid'); } catch (x) { return x; } })();
  assert.equal(e.code, 'TOID_ECHAR');
});

test('configure: node and epoch of the process-wide generators', () => {
  toid.configure('nanoflake', { node: 1023 });
  assert.equal(toid.parse(toid.new('nanoflake'), 'nanoflake').fields.generator, 1023);
  toid.configure('ulid-flake-scalable', { node: 31 });
  assert.equal(toid.parse(toid.new('ulid-flake-scalable'), 'ulid-flake-scalable').fields.sid, 31);
  const epoch = new Date('2020-01-01T00:00:00Z');
  toid.configure('nanoflake', { node: 2, epoch });
  const text = toid.new('nanoflake');
  const t = toid.time(text, 'nanoflake', { epoch });
  assert.ok(Math.abs(t.getTime() - Date.now()) < 3600e3);
  assert.equal(toid.parse(text, 'nanoflake', { epoch }).time.getTime(), t.getTime());
  toid.configure('nanoflake', { node: 0 });
});

test('Generator: a generator of its own, with its own node', () => {
  const g = new toid.Generator('nanoflake', { node: 9 });
  assert.equal(g.format, 'nanoflake');
  const ids = [g.new(), ...g.newMany(3000), g.new()];
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i]);
  assert.deepEqual(new Set(ids.map((t) => toid.parse(t, 'nanoflake').fields.generator)), new Set([9]));
  const raw = g.newManyBytes(100);
  assert.equal(raw.length, 800);
  assert.equal(Buffer.compare(toid.parse(ids.at(-1), 'nanoflake').bytes, raw.subarray(0, 8)), -1);
  assert.equal(g.newBytes().length, 8);
  const epoch = new Date('2020-01-01T00:00:00Z');
  const e = new toid.Generator('ulid-flake', { epoch });
  assert.ok(Math.abs(toid.time(e.new(), 'ulid-flake', { epoch }).getTime() - Date.now()) < 3600e3);
  assert.throws(() => new toid.Generator('nanoflake', { node: 1024 }), RangeError);
  // the library names the setting and why
  assert.throws(() => new toid.Generator('nanoflake', { node: 1024 }),
    { message: "Generator: node: 1024 is above nanoflake's largest, 1023 (invalid)" });
  assert.throws(() => toid.configure('nanoflake', { node: 1024 }),
    { message: "configure: node: 1024 is above nanoflake's largest, 1023 (invalid)" });
  assert.throws(() => new toid.Generator('nope'), RangeError);
  // uid11 needs more memory than the other formats (its issued-value set)
  const u = new toid.Generator('uid11');
  const many = u.newMany(20000);
  assert.equal(new Set(many).size, many.length);
});

test('the benchmark hooks are not exported; newMany gives separate strings', () => {
  for (const k of ['_noop', '_cLoop', 'noop', 'cLoop', 'batchJson']) assert.equal(toid[k], undefined, k);
  const ids = toid.newMany('uuidv7', 3);
  assert.ok(ids.every((t) => typeof t === 'string' && t.length === 36));
  assert.deepEqual(toid.newMany('ulid', 0), []);
  const g = new toid.Generator('scru160');
  assert.equal(g.newMany(1).length, 1);
  assert.throws(() => toid.newMany('ulid', -1), RangeError);
});

test('read-only variants: IDs of the reference libraries read at their times, never generated', () => {
  const variants = toid.formats.filter((f) => !f.generates).map((f) => f.name);
  assert.deepEqual(variants, ['nanoflake-ref24', 'uid11-ref44']);
  assert.equal(toid.formats.find((f) => f.name === 'nanoflake-ref24').variantOf, 'nanoflake');
  assert.equal(toid.parse('bp2tj56bwzr4', 'nanoflake-ref24').unixMs, 1795830287246);
  assert.equal(toid.parse('2A2p9f3PgfZ', 'uid11-ref44').unixMs, 1795830297491);
  assert.equal(toid.parse('2A2p9f3PgfZ').format, 'uid11');
  for (const v of variants) assert.throws(() => toid.new(v));
});
