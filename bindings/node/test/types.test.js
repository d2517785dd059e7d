'use strict';
// The TypeScript declarations (index.d.ts) type-check a program that uses
// the API, and refuse a wrong format name (tsc from the devDependencies).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

test('index.d.ts: a typical program type-checks (tsc --strict)', () => {
  const tsc = path.join(__dirname, '..', 'node_modules', 'typescript', 'bin', 'tsc');
  let out;
  try {   // from the package directory, where node_modules/@types is
    out = execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--types', 'node',
      path.join(__dirname, 'types', 'check.ts')], { encoding: 'utf8', cwd: path.join(__dirname, '..') });
  } catch (e) {
    assert.fail(`tsc: ${e.stdout}${e.stderr}`);
  }
  assert.equal(out, '');
});
