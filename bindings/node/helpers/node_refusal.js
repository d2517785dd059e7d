'use strict';
// Tries every process-wide way to make an ID of the node formats and reports
// how each was refused (or that it worked); then, given a node >= 0,
// configures nanoflake with it and makes IDs. As a forked process (argv:
// node count) or a worker thread (workerData: { node, count }).
const { isMainThread, parentPort, workerData } = require('node:worker_threads');
const toid = require('..');

const { node, count } = isMainThread
  ? { node: Number(process.argv[2]), count: Number(process.argv[3]) }
  : workerData;
const calls = {
  new: (f) => toid.new(f),
  newBytes: (f) => toid.newBytes(f),
  newMany: (f) => toid.newMany(f, 100),
  newManyBytes: (f) => toid.newManyBytes(f, 100),
  'ID from parse(new)': (f) => toid.parse(toid.new(f), f),
};
const refused = [];
for (const format of ['nanoflake', 'ulid-flake-scalable']) {
  for (const [call, make] of Object.entries(calls)) {
    try {
      make(format);
      refused.push({ format, call, reason: null });
    } catch (e) {
      refused.push({ format, call, type: e.constructor.name, code: e.code, reason: e.reason, message: e.message });
    }
  }
}
let ids = [];
if (node >= 0) {
  toid.configure('nanoflake', { node });
  ids = toid.newMany('nanoflake', count);
}
if (isMainThread) {
  process.send({ refused, ids }, () => process.disconnect());
} else {
  parentPort.postMessage({ refused, ids });
}
