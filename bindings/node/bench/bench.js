'use strict';
// toid next to its npm peers and its floor, measured in one run:
//   toid.ulid()   vs ulid's monotonicFactory()()   (goal: >= 5x faster)
//   toid.uuidv7() vs uuid's v7()                   (goal: >= 1.0x)
//   the floor: an empty N-API call (the addon's noop()); the C library alone
//   making the same IDs (its cLoop: one toid_new_text per ID, no JavaScript value), so
//   toid.ulid() - that = what N-API and the string add; and the batches:
//   newMany('ulid', 1000) (one call: 1000 strings by JSON.parse of the batch)
//   and newManyBytes('ulid', 1000), per ID.
// ns per ID, medians of ROUNDS rounds; the candidates take turns in each
// round so that a busy machine's load falls on all of them alike.
//     node bindings/node/bench/bench.js [ROUNDS]    (after npm ci and the build)
const { monotonicFactory } = require('ulid');
const { v7 } = require('uuid');
const toid = require('..');
const native = require('../addon.js');   // the hooks below are not in toid's exports
const ULID = toid.formats.findIndex((f) => f.name === 'ulid');

const ROUNDS = Number(process.argv[2] || 21);
const N = 100000;
const monotonic = monotonicFactory();

const CASES = [   // [name, function, IDs per call, calls per round]
  ['empty N-API call noop() (floor)', () => native.noop(), 1, N],
  ['C library alone, per ID', () => native.cLoop(ULID, 1000), 1000, N / 1000],
  ['toid.ulid()', toid.ulid, 1, N],
  ["toid.new('ulid')", () => toid.new('ulid'), 1, N],
  ["toid.newMany('ulid', 1000), per ID", () => toid.newMany('ulid', 1000), 1000, N / 1000],
  ["toid.newManyBytes('ulid', 1000), per ID", () => toid.newManyBytes('ulid', 1000), 1000, N / 1000],
  ['ulid monotonicFactory()()', monotonic, 1, N],
  ['toid.uuidv7()', toid.uuidv7, 1, N],
  ['uuid v7()', v7, 1, N],
];

let sink = 0;
function run(fn, calls) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink ^= fn() ? 1 : 0;
  return Number(process.hrtime.bigint() - t0);
}
for (const [, fn, , calls] of CASES) run(fn, calls);          // warm up (JIT)
const samples = CASES.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  CASES.forEach(([, fn, per, calls], i) => samples[i].push(run(fn, calls) / calls / per));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const by = Object.fromEntries(CASES.map(([name], i) => [name, median(samples[i])]));
if (sink === 2) console.log('');                              // keeps the results alive

console.log(`node ${process.version}, toid ${toid.libraryVersion}; ns per ID, median of ${ROUNDS} rounds`);
for (const [name, ns] of Object.entries(by)) console.log(`  ${name.padEnd(42)} ${ns.toFixed(1).padStart(8)} ns`);
const x = (a, b) => (by[a] / by[b]).toFixed(2).padStart(6);
const floor = CASES[0][0];
console.log(`ulid monotonicFactory / toid.ulid()          = ${x('ulid monotonicFactory()()', 'toid.ulid()')}x  (goal >= 5)`);
console.log(`uuid v7() / toid.uuidv7()                    = ${x('uuid v7()', 'toid.uuidv7()')}x  (goal >= 1.0)`);
console.log(`ulid monotonicFactory / newMany, per ID      = ${x('ulid monotonicFactory()()', "toid.newMany('ulid', 1000), per ID")}x`);
console.log(`newMany per ID / toid.ulid()                 = ${x("toid.newMany('ulid', 1000), per ID", 'toid.ulid()')}x  (goal <= 1: a batch no dearer per ID)`);
console.log(`toid.ulid() - C library alone                = ${(by['toid.ulid()'] - by['C library alone, per ID']).toFixed(1).padStart(6)} ns (N-API call + string)`);
console.log(`empty N-API call                             = ${by[floor].toFixed(1).padStart(6)} ns`);
