// ES modules: `import ... from 'toid'` (the package's "exports": index.mjs)
// is the CommonJS package itself: every public name, the same objects, one
// addon. 'toid' is this package by self-reference in the checkout, and the
// installed one in the package test (package_test.sh).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import toid, * as ns from 'toid';
import { ulid, uuidv7, parse, new as newId } from 'toid';

const cjs = createRequire(import.meta.url)('..');

test('import and require give one module: the same names and objects', () => {
  assert.equal(toid, cjs);
  const named = Object.keys(ns).filter((k) => k !== 'default').sort();
  assert.deepEqual(named, Object.keys(cjs).filter((k) => !k.startsWith('_')).sort());
  for (const k of named) assert.equal(ns[k], cjs[k], k);
});

test('the named imports work', () => {
  const id = ulid();
  assert.match(id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal(parse(id).format, 'ulid');
  assert.match(uuidv7(), /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(parse(newId('scru160')).format, 'scru160');
  assert.ok(newId() > id);
});
