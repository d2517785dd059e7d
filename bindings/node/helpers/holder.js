'use strict';
// A process that makes IDs of a node format and holds its node: argv format
// count [node] (node: configure(format, { node }) first; else the process's
// node, claimed on the first ID). Sends { node } (or { error: { reason,
// message, name } }), then waits for the parent's 'go' before it sends
// { ids } and exits, so that the parent knows every holder holds at once.
const toid = require('..');

const [format, countArg, nodeArg] = process.argv.slice(2);
const count = Number(countArg);

// One at a time: ulid-flake-scalable refuses past its counter within one ms
// (the spec's overflow): that ID is tried again, in the next ms.
function make(n) {
  const ids = new Array(n);
  for (let i = 0; i < n;) {
    try {
      ids[i] = toid.new(format);
      i++;
    } catch (e) {
      if (e.reason !== 'overflow') throw e;
    }
  }
  return ids;
}

function nodeOf(id) {
  const f = toid.parse(id, format).fields;
  if (format === 'nanoflake') return f.generator;
  if (format === 'ulid-flake-scalable') return f.sid;
  return Number(toid.parse(id, format).int & 1023n);
}

let ids;
try {
  if (nodeArg !== undefined) toid.configure(format, { node: Number(nodeArg) });
  ids = make(count);
} catch (e) {
  process.send({ error: { name: e.name, reason: e.reason, code: e.code, message: e.message } },
    () => process.disconnect());
  return;
}
process.send({ node: nodeOf(ids[0]), pid: process.pid });
process.once('message', (m) => {
  if (m !== 'go') throw new Error(`unexpected message ${m}`);
  process.send({ ids, nodes: [...new Set(ids.map(nodeOf))] }, () => process.disconnect());
});
