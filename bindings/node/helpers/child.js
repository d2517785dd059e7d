'use strict';
// Makes IDs one call at a time and sends them back: as a worker thread
// (workerData) or as a forked process (argv).
const { isMainThread, parentPort, workerData } = require('node:worker_threads');
const toid = require('..');

const [format, count] = isMainThread
  ? [process.argv[2], Number(process.argv[3])]
  : [workerData.format, workerData.count];
const ids = new Array(count);
for (let i = 0; i < count; i++) ids[i] = toid.new(format);
if (isMainThread) {
  process.send(ids, () => process.disconnect());
} else {
  parentPort.postMessage(ids);
}
