'use strict';
require('../helpers/registry');   // (a node format claims there, never in /var/lib/toid)
// The shared conformance vectors through the binding: decode lines (fields,
// canonical text, error class and position), encode lines through make(),
// and round trips through bytes, the integer form and the text.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const toid = require('..');

// $TOID_VECTORS_DIR (CTest sets it), else shared/vectors beside the checkout.
const dir = process.env.TOID_VECTORS_DIR ||
  path.join(__dirname, '..', '..', '..', '..', 'shared', 'vectors');

// A text column as a string of the same bytes: \xHH and \\ (vectors README).
// Bytes >= 0x80 stay raw bytes only through Buffer; such inputs are passed
// as the UTF-8 string they decode to when they are valid UTF-8, else skipped.
function unescape(col) {
  const bytes = [];
  for (let i = 0; i < col.length; i++) {
    if (col[i] === '\\' && col[i + 1] === 'x') {
      bytes.push(parseInt(col.slice(i + 2, i + 4), 16));
      i += 3;
    } else if (col[i] === '\\' && col[i + 1] === '\\') {
      bytes.push(0x5c);
      i += 1;
    } else {
      bytes.push(col.charCodeAt(i));
    }
  }
  const buf = Buffer.from(bytes);
  const text = buf.toString('utf8');
  return Buffer.from(text, 'utf8').equals(buf) ? text : null;
}

// the repository's own vectors (tests/vectors: the read-only variants), where
// the shared set has no file for a format
// ($TOID_OWN_VECTORS_DIR: CTest sets it, for the suite run from an installed package)
const ownDir = process.env.TOID_OWN_VECTORS_DIR || path.join(__dirname, '..', '..', '..', 'tests', 'vectors');

function lines(format) {
  let file = path.join(dir, `${format}.tsv`);
  if (!fs.existsSync(file)) file = path.join(ownDir, `${format}.tsv`);
  return fs.readFileSync(file, 'latin1').split('\n')
    .filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t'));
}

function fieldText(v) {
  return typeof v === 'boolean' ? String(v) : String(v);
}

for (const { name: format } of toid.formats) {
  test(`vectors: ${format}`, () => {
    let decoded = 0;
    let encoded = 0;
    for (const [fmt, op, input, expect] of lines(format)) {
      assert.equal(fmt, format);
      if (op === 'decode') {
        const text = unescape(input);
        if (text === null) continue;     // not a JavaScript string
        decoded++;
        if (expect.startsWith('err ')) {
          assert.throws(() => toid.parse(text, format), (e) => {
            assert.ok(e instanceof RangeError, input);
            assert.equal(e.reason, expect.slice(4), input);
            if (e.reason === 'char') assert.ok(e.position >= 0 && e.position < Buffer.byteLength(text));
            return true;
          });
          assert.equal(toid.isValid(text, format), false);
          continue;
        }
        const want = Object.fromEntries(expect.slice(3).split(' ').map((kv) => {
          const i = kv.indexOf('=');
          return [kv.slice(0, i), kv.slice(i + 1)];
        }));
        const id = toid.parse(text, format);
        const canonical = want.text ?? text;
        delete want.text;
        assert.equal(id.text, canonical);
        const fields = id.fields;
        for (const [k, v] of Object.entries(want)) assert.equal(fieldText(fields[k]), v, `${input} ${k}`);
        assert.equal(id.unixMs, Number(want.unix_ms));
        assert.equal(id.time.getTime(), Number(want.unix_ms));
        assert.equal(toid.time(text, format).getTime(), Number(want.unix_ms));
        assert.equal(id.hex, want.hex);
        if ('int' in want) {
          assert.equal(typeof fields.int, 'bigint');
          assert.equal(id.int, BigInt(want.int));
          assert.ok(toid.fromInt(id.int, format).equals(id));
        }
        assert.ok(toid.fromBytes(id.bytes, format).equals(id));
        assert.ok(toid.parse(id.text, format).equals(id));
      } else if (op === 'encode') {
        encoded++;
        const fields = Object.fromEntries(input.split(' ').map((kv) => {
          const i = kv.indexOf('=');
          return [kv.slice(0, i), kv.slice(i + 1)];
        }));
        if (expect.startsWith('err ')) {
          assert.throws(() => toid.make(format, fields), (e) => e.reason === expect.slice(4),
            input);
        } else {
          assert.equal(toid.make(format, fields).text, expect, input);
        }
      }
    }
    assert.ok(decoded > 0 && encoded > 0);
  });
}
