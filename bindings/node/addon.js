'use strict';
// The N-API addon under index.js (internal: package.json's "exports" does
// not name it, so require('toid/addon.js') fails outside the package):
// $TOID_NODE_ADDON, else the one node-gyp built beside this file (npm run
// build), else the one the checkout's CMake build made in build/. Its
// functions take formats as the library's indexes; index.js checks names.
// bench/bench.js uses its benchmark hooks, noop() and cLoop(f, n), which the
// package does not export.
const fs = require('fs');
const path = require('path');

const candidates = process.env.TOID_NODE_ADDON ? [process.env.TOID_NODE_ADDON] : [
  path.join(__dirname, 'build', 'Release', 'toid.node'),
  path.join(__dirname, '..', '..', 'build', 'bindings', 'node', 'build', 'Release', 'toid.node'),
];
const found = candidates.find((p) => fs.existsSync(p));
if (!found) throw new Error(`toid: the addon is not built (looked for ${candidates.join(', ')})`);
module.exports = require(found);
