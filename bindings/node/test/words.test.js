'use strict';
require('../helpers/registry');
// One error text, one time model, any UUID (issue 28): the messages are the
// library's explanations (toid_explain, toid_format_name_error), the words
// `toid inspect` prints, behind the function and the parameter at fault;
// times are the CLI's text (toid_parse_time_span) with the same span
// meaning; any UUID is read as `toid inspect --json` reads it. The same
// cases as bindings/python/tests/test_words.py; with TOID_CLI (the C tool,
// which CTest names) the messages and the JSON are compared with its own.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const toid = require('..');

const CLI = process.env.TOID_CLI;
const LENGTHS = '(ulid 26, uuidv7 36 or 32, scru160 32 or 40, ulid-flake and nanoflake 13, ' +
  'uid11 11); name the format to read it';
const TIME_EXPECTED = 'expected ISO 8601 (2024, 2024-01-01T10:30Z), @SECONDS, Nms/Ns/Nus, unix ms, ' +
  'now or now-1h/-15m/+2d';

// [format or null, text, reason, the library's explanation, position]
const BAD = [
  ['uuidv7', 'f81d4fae-7dec-41d0-a765-00a0c91e6bf6', 'char', 'UUID version 4, toid reads version 7', 14],
  ['uuidv7', '01a20787-66da-75a3-c228-ec6ccd8b88fb', 'char',
    "UUID variant is not RFC 9562's (digit 17 is c, toid reads 8, 9, a or b)", 19],
  [null, '01ARZ3NDEKTSV4RRFFQ69G5FAI', 'char', "bad character 'I' at position 25", 25],
  ['ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAI', 'char', "bad character 'I' at position 25", 25],
  ['nanoflake', 'hello!', 'char', "bad character '!' at position 5", 5],
  [null, 'hello', 'length', `no format writes 5 characters ${LENGTHS}`, undefined],
  [null, '01ARZ3NDEKTS', 'length', `no format writes 12 characters ${LENGTHS}`, undefined],
  [null, 'information', 'invalid', 'a word, not an ID (lower-case letters only, which no format ' +
    'writes for a time before 2100); name the format to read it', undefined],
  ['ulid', '8ZZZZZZZZZZZZZZZZZZZZZZZZZ', 'overflow', 'value too large for ulid (the largest is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ)', undefined],
  ['ulid', '01ARZ3NDEKTSV4RRFFQ69G5FA', 'length', 'bad length: 25 characters, expected 26', undefined],
];

function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

test('decode errors are the library\'s explanation, naming the function and the parameter', () => {
  for (const [format, text, reason, why, position] of BAD) {
    for (const [fn, call] of [['parse', () => toid.parse(text, format)],
      ['inspect', () => toid.inspect(text, format)], ['time', () => toid.time(text, format)]]) {
      const e = thrown(call);
      assert.ok(e instanceof RangeError);
      assert.equal(e.message, `${fn}: text: '${text}' is not a valid ${format || 'ID'}: ${why} (${reason})`);
      assert.equal(e.reason, reason);
      assert.equal(e.code, `TOID_E${reason.toUpperCase()}`);
      assert.equal(e.position, position);
    }
    assert.equal(toid.isValid(text, format), false);
  }
  const long = thrown(() => toid.parse('x'.repeat(1000)));   // its whole length, shown cut
  assert.equal(long.message, `parse: text: '${'x'.repeat(100)}...' is not a valid ID: no format writes 1000 characters ${LENGTHS} (length)`);
  assert.equal(thrown(() => toid.parse('0é' + '0'.repeat(23), 'ulid')).position, 1);   // bytes from 0
  assert.throws(() => toid.parse(42), { name: 'TypeError', message: 'parse: text: must be a string' });
});

test('the same words as toid inspect', { skip: !CLI && 'TOID_CLI (the C tool) not named' }, () => {
  for (const [format, text] of BAD) {
    const r = spawnSync(CLI, ['inspect', ...(format ? ['-f', format] : []), '--', text], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    const head = `toid: '${text}': `;
    assert.ok(r.stderr.startsWith(head), r.stderr);
    assert.ok(thrown(() => toid.parse(text, format)).message.endsWith(`: ${r.stderr.trim().slice(head.length)}`));
  }
  const r = spawnSync(CLI, ['inspect', '-f', 'ulidd', 'x'], { encoding: 'utf8' });
  assert.ok(r.stderr.includes("unknown format 'ulidd' (did you mean ulid?)"));
  for (const text of [V1, V6, V4, V4.replace(/-/g, ''), '00000000-0000-0000-0000-000000000000',
    '01ARZ3NDEKTSV4RRFFQ69G5FAV', '01a2078766da75a39228ec6ccd8b88fb']) {
    const j = spawnSync(CLI, ['inspect', '--json', text], { encoding: 'utf8' });
    assert.deepEqual(toid.inspect(text), JSON.parse(j.stdout), text);
  }
});

test('a named format decodes strictly; detection reads every UUID form', () => {
  const v7 = toid.uuidv7();
  for (const form of [v7.replace(/-/g, ''), `{${v7}}`, `urn:uuid:${v7}`]) {
    assert.throws(() => toid.parse(form, 'uuidv7'), { reason: 'length' });
    assert.ok(toid.parse(form).equals(toid.parse(v7)));
    assert.ok(toid.fromUuid(form).equals(toid.parse(v7)));
  }
  assert.throws(() => toid.parse(V4), {
    message: `parse: text: '${V4}' is not a valid ID: UUID version 4, toid reads version 7 (char)`,
  });
});

test('unknown format names suggest the nearest; aliases in any case', () => {
  for (const [fn, call] of [['new', (f) => toid.new(f)], ['newMany', (f) => toid.newMany(f, 2)],
    ['newBytes', (f) => toid.newBytes(f)], ['parse', (f) => toid.parse('x', f)],
    ['timeBounds', (f) => toid.timeBounds(f, '2024')], ['configure', (f) => toid.configure(f)],
    ['Generator', (f) => new toid.Generator(f)], ['fromInt', (f) => toid.fromInt(1n, f)],
    ['inspect', (f) => toid.inspect('x', f)]]) {
    const e = thrown(() => call('ulidd'));
    assert.ok(e instanceof RangeError);
    assert.equal(e.message, `${fn}: format: unknown format 'ulidd' (did you mean ulid?) (invalid)`);
    assert.equal(e.code, 'TOID_EINVALID');
  }
  assert.throws(() => toid.new('zzzzzzzz'), { message: "new: format: unknown format 'zzzzzzzz' (formats: ulid, ulid-flake, ulid-flake-scalable, scru160, nanoflake, uid11, uid11-seq, uuidv7, nanoflake-ref24, uid11-ref44) (invalid)" });
  assert.throws(() => toid.new(7), { name: 'TypeError', message: "new: format: must be a string such as 'ulid', not number" });
  assert.equal(toid.parse(toid.new('UUID7'), 'uuid-v7').format, 'uuidv7');
});

test('timeBounds: the CLI\'s time text, a span or an instant', () => {
  let [lo, hi] = toid.timeBounds('ulid', '2024-01-01');        // the whole day
  assert.equal(lo.text, '01HK153X000000000000000000');
  assert.equal(hi.text, '01HK3QGKZZZZZZZZZZZZZZZZZZ');
  assert.equal(lo.unixMs, 1704067200000);
  assert.equal(hi.unixMs, 1704153599999);
  [lo, hi] = toid.timeBounds('uuidv7', '2024-01', '2024-03');  // January to March, whole
  assert.equal(lo.unixMs, 1704067200000);
  assert.equal(hi.time.toISOString(), '2024-03-31T23:59:59.999Z');
  const when = new Date('2024-01-01T10:30:00+01:00');
  [lo, hi] = toid.timeBounds('ulid', when);                   // a Date: one instant
  assert.equal(lo.unixMs, 1704101400000);
  assert.equal(hi.unixMs, 1704101400000);
  for (const same of [1704101400000, 1704101400000n, '2024-01-01T10:30:00.000+01:00']) {
    const [l, h] = toid.timeBounds('ulid', same);
    assert.ok(l.equals(lo) && h.equals(hi), String(same));
  }
  assert.equal(toid.timeBounds('ulid', '2024-01-01T10:30+01:00')[1].unixMs, 1704101459999);   // a minute
  [lo, hi] = toid.timeBounds('ULID', 'now-1h', 'now');          // instants, relative
  const now = toid.parse(toid.ulid()).unixMs;
  assert.ok(hi.unixMs - lo.unixMs > 3599000 && hi.unixMs - lo.unixMs <= 3600000);
  assert.ok(Math.abs(now - hi.unixMs) < 5000);
  assert.equal(lo.format, 'ulid');
  [lo, hi] = toid.timeBounds('ulid', '-15m');
  assert.equal(lo.unixMs, hi.unixMs);
  assert.ok(Math.abs(now - 900000 - lo.unixMs) < 5000);
  [lo] = toid.timeBounds('nanoflake', '2024-06', { epoch: '2024' });   // epoch as text too
  assert.equal(lo.fields.ts, 1000 * 86400 * 152);
  assert.equal(toid.timeBounds('nanoflake', '2024-06', null, { epoch: '2024' })[0].text, lo.text);
});

test('time errors name the parameter', () => {
  const cases = [
    [() => toid.timeBounds('ulid', 'yesterday'), `timeBounds: start: 'yesterday' is not a time: ${TIME_EXPECTED} (invalid)`],
    [() => toid.timeBounds('ulid', '2024', 'later'), `timeBounds: end: 'later' is not a time: ${TIME_EXPECTED} (invalid)`],
    [() => toid.timeBounds('ulid', '2024', '2023'), "timeBounds: end: '2023' is before start '2024' (invalid)"],
    [() => toid.timeBounds('ulid', '1900'), "timeBounds: start: '1900' is outside the times ulid holds " +
      '(1970-01-01T00:00:00.000Z .. 10889-08-02T05:31:50.655Z) (range)'],
    [() => toid.timeBounds('ulid', '2024', { epoch: 'soon' }), `timeBounds: epoch: 'soon' is not a time: ${TIME_EXPECTED} (invalid)`],
    [() => toid.configure('ulid-flake', { epoch: 'soon' }), `configure: epoch: 'soon' is not a time: ${TIME_EXPECTED} (invalid)`],
    [() => new toid.Generator('ulid-flake', { epoch: 'soon' }), `Generator: epoch: 'soon' is not a time: ${TIME_EXPECTED} (invalid)`],
    [() => toid.parse(toid.new('ulid-flake'), 'ulid-flake', { epoch: 'soon' }), `parse: epoch: 'soon' is not a time: ${TIME_EXPECTED} (invalid)`],
    [() => toid.timeBounds('ulid', new Date(NaN)), 'timeBounds: start: an Invalid Date (invalid)'],
    [() => toid.timeBounds('ulid', 1.5), 'timeBounds: start: 1.5 is not an integer of ms (invalid)'],
  ];
  for (const [call, message] of cases) {
    const e = thrown(call);
    assert.ok(e instanceof RangeError, message);
    assert.equal(e.message, message);
  }
  assert.equal(thrown(cases[3][0]).reason, 'range');
  assert.throws(() => toid.timeBounds('ulid', true), {
    name: 'TypeError', message: 'timeBounds: start: a time is a string, an integer of unix ms or a Date, not boolean',
  });
});

test('ten digits warn as the CLI does, once', async () => {
  const warnings = [];
  const listen = (w) => warnings.push(w);
  process.on('warning', listen);
  const [lo] = toid.timeBounds('ulid', '1704067200');
  toid.timeBounds('ulid', '1704067201');
  await new Promise((resolve) => setImmediate(resolve));
  process.off('warning', listen);
  assert.equal(lo.unixMs, 1704067200);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].message, "timeBounds: start: '1704067200' is read as unix milliseconds " +
    '(1970-01-20T17:21:07.200Z); for seconds write @1704067200 or 1704067200s');
  assert.equal(warnings[0].code, 'TOID_TIME_SECONDS');
});

// Any UUID, as `toid inspect --json` prints it (toid_uuid_json)
const V1 = 'c232ab00-9414-11ec-b3c8-9f6bdeced846';
const V6 = '1ec9414c-232a-6b00-b3c8-9f6bdeced846';
const V4 = 'f81d4fae-7dec-41d0-a765-00a0c91e6bf6';

test('inspect and uuidInfo read any UUID', () => {
  assert.deepEqual(toid.inspect(V4), { format: 'uuid', text: V4, version: 4, variant: 'rfc9562', hex: V4.replace(/-/g, '') });
  const v1 = {
    format: 'uuid', text: V1, version: 1, variant: 'rfc9562', unix_ms: 1645557742000,
    time: '2022-02-22T19:22:22.000Z', hex: V1.replace(/-/g, ''), clock_seq: 13256, node: '9f6bdeced846',
  };
  assert.deepEqual(toid.inspect(V1), v1);
  assert.deepEqual(toid.uuidInfo(V1), v1);
  assert.deepEqual(toid.inspect(`urn:uuid:${V1.toUpperCase()}`), v1);
  assert.deepEqual(toid.inspect(`{${V1}}`), v1);
  assert.equal(toid.inspect(V6).unix_ms, 1645557742000);
  assert.equal(toid.inspect(V6).version, 6);
  assert.deepEqual(toid.inspect(V4.replace(/-/g, '')), { ...toid.inspect(V4), also: ['scru160'] });
  assert.equal(toid.inspect('00000000-0000-0000-0000-000000000000').variant, 'nil');
  assert.equal(toid.inspect('ffffffff-ffff-ffff-ffff-ffffffffffff').variant, 'max');
  const ms = toid.inspect('01a20787-66da-75a3-c228-ec6ccd8b88fb');
  assert.equal(ms.format, 'uuid');
  assert.equal(ms.variant, 'microsoft');
  for (let v = 1; v <= 8; v++) {
    const u = toid.uuidInfo(`00000000-0000-${v}000-8000-000000000000`);
    assert.equal(u.version, v);
    assert.equal('unix_ms' in u, [1, 6, 7].includes(v));
  }
  const v7 = toid.uuidv7();
  assert.deepEqual(toid.inspect(v7), toid.parse(v7).fields);
  assert.equal(toid.uuidInfo(v7).unix_ms, toid.parse(v7).unixMs);
  assert.equal(toid.inspect('01ARZ3NDEKTSV4RRFFQ69G5FAV').format, 'ulid');
  assert.deepEqual(toid.inspect('01a2078766da75a39228ec6ccd8b88fb').also, ['scru160']);
  assert.throws(() => toid.uuidInfo('hello'), { message: "uuidInfo: text: 'hello' is not a valid UUID: bad length: 5 characters, expected 36 (length)" });
  const e = thrown(() => toid.uuidInfo(`${V4.slice(0, -1)}g`));
  assert.equal(e.position, 35);
  assert.ok(e.message.endsWith("bad character 'g' at position 35 (char)"));
});

test('ULID <-> UUID, and an ID from a UUID', () => {
  assert.equal(toid.ulidToUuid('01ARZ3NDEKTSV4RRFFQ69G5FAV'), '01563e3a-b5d3-d676-4c61-efb99302bd5b');
  assert.equal(toid.uuidToUlid('550e8400-e29b-41d4-a716-446655440000'), '2N1T201RMV87AAE5J4CSAM8000');
  assert.equal(toid.uuidToUlid('550E8400E29B41D4A716446655440000'), '2N1T201RMV87AAE5J4CSAM8000');
  assert.equal(toid.parse('01ARZ3NDEKTSV4RRFFQ69G5FAV').uuid, '01563e3a-b5d3-d676-4c61-efb99302bd5b');
  assert.throws(() => toid.ulidToUuid('01ARZ3NDEKTSV4RRFFQ69G5FAI'), {
    message: "ulidToUuid: text: '01ARZ3NDEKTSV4RRFFQ69G5FAI' is not a valid ulid: bad character 'I' at position 25 (char)",
  });
  assert.throws(() => toid.uuidToUlid('x'), { message: /^uuidToUlid: text: 'x' is not a valid UUID/ });
  assert.equal(toid.fromUuid(V4).format, 'ulid');
  assert.equal(toid.fromUuid(V4).text, toid.uuidToUlid(V4));
  assert.equal(toid.fromUuid(V4).uuid, V4);
  const v7 = toid.uuidv7();
  assert.equal(toid.fromUuid(v7).format, 'uuidv7');
  assert.equal(toid.fromUuid(v7).uuid, v7);
  assert.equal(toid.fromUuid(v7, 'ulid').hex, toid.parse(v7).hex);
  assert.throws(() => toid.fromUuid(V4, 'uuidv7'), {
    message: `fromUuid: text: '${V4}' is not a valid uuidv7: UUID version 4, toid reads version 7 (char)`,
  });
  assert.throws(() => toid.fromUuid(V4, 'nanoflake'), {
    message: 'fromUuid: format: a UUID is a ulid or a uuidv7, not a nanoflake (invalid)',
  });
  assert.throws(() => toid.parse(toid.new('scru160')).uuid, { message: 'uuid: a scru160 is not a UUID (ulid and uuidv7 are) (invalid)' });
});

test('make names the field at fault, as Python\'s make does', () => {
  assert.throws(() => toid.make('ulid', { unix_ms: 'x' }), { message: "make: unix_ms: 'x' for ulid: invalid argument (invalid)" });
  assert.throws(() => toid.make('nanoflake', { unix_ms: 0 }), {
    message: 'make: a nanoflake of these fields: time out of range for the format (range)',
  });
});

test('new(format, { at }): IDs at a given time, distinct within a ms, refused in the library\'s words', () => {
  const day = 1704067200000;                                  // 2024-01-01T00:00Z
  const ids = Array.from({ length: 5000 }, () => toid.new('ulid', { at: '2024-01-01' }));
  assert.equal(new Set(ids).size, 5000);
  assert.deepEqual([...ids].sort(), ids);                     // one ms, increasing
  assert.deepEqual([...new Set(ids.map((i) => toid.parse(i).unixMs))], [day]);
  assert.equal(toid.parse(toid.new('uuidv7', { at: new Date(day + 7) }), 'uuidv7').unixMs, day + 7);
  assert.equal(toid.parse(toid.new('scru160', { at: day + 9 })).unixMs, day + 9);
  const raw = toid.newBytes('ulid', { at: 1704067200005n });
  assert.equal(raw.length, 16);
  assert.equal(toid.fromBytes(raw, 'ulid').unixMs, day + 5);
  assert.ok(Math.abs(toid.parse(toid.new('ulid', { at: 'now-1h' })).unixMs - (Date.now() - 3600000)) < 60000);
  assert.ok(toid.new('ulid', { at: null }) > ids[4999]);      // at null: the clock's
  const refused = (fn, re, reason) => assert.throws(fn, (e) => re.test(e.message) && e.reason === reason);
  refused(() => toid.new('nanoflake', { at: day }),
    /^new: format: no ID at a given time: a nanoflake carries a node .*; IDs at given times: ulid, scru160, uuidv7 \(invalid\)$/, 'invalid');
  refused(() => toid.newBytes('uid11', { at: day }), /^newBytes: format: no ID at a given time: a uid11 has 22 random bits/, 'invalid');
  refused(() => toid.new('ulid', { at: 'yesterday' }), /^new: at: 'yesterday' is not a time: /, 'invalid');
  refused(() => toid.new('ulid', { at: -5 }), /^new: at: -5 is outside the times ulid holds .*\(range\)$/, 'range');
  refused(() => toid.new('ulid', { at: new Date(NaN) }), /^new: at: an Invalid Date/, 'invalid');
});
