'use strict';
// The one message a forked helper sends, once it has exited with 0.
// 'close', not 'exit': 'exit' may come before the child's last message is
// delivered; 'close' comes after its IPC channel has closed.
const { fork } = require('node:child_process');

module.exports = function forkResult(script, args) {
  return new Promise((resolve, reject) => {
    const c = fork(script, args, { serialization: 'advanced' });
    let got = null;
    c.once('message', (m) => { got = m; });
    c.once('error', reject);
    c.once('close', (code) =>
      (code === 0 && got ? resolve(got) : reject(new Error(`child exit ${code}, message ${got ? 'received' : 'missing'}`))));
  });
};
