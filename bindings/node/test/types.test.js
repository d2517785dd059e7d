'use strict';
// The TypeScript declarations (index.d.ts) type-check a program that uses
// the API, and refuse a wrong format name (tsc from the devDependencies).
// index.d.ts is checked as a module of its own (a .ts copy), so that
// --skipLibCheck can skip @types/node (most of tsc's time) and nothing of ours.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const pkg = path.join(__dirname, '..');

test('index.d.ts: a typical program type-checks (tsc --strict)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toid-types-'));
  try {
    fs.copyFileSync(path.join(pkg, 'index.d.ts'), path.join(dir, 'toid.ts'));
    fs.writeFileSync(path.join(dir, 'check.ts'),
      fs.readFileSync(path.join(__dirname, 'types', 'check.ts'), 'utf8')
        .replace("from '../..'", "from './toid'"));
    const tsc = path.join(pkg, 'node_modules', 'typescript', 'bin', 'tsc');
    try {   // from the package directory, where node_modules/@types is
      execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck',
        '--types', 'node', '--typeRoots', path.join(pkg, 'node_modules', '@types'),
        path.join(dir, 'check.ts')], { encoding: 'utf8', cwd: pkg });
    } catch (e) {
      assert.fail(`tsc: ${e.stdout}${e.stderr}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
