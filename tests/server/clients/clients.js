// clients.js — the npm Redis client libraries against toidd, each with its
// default settings (only host, port and, with AUTH, the password given):
// connect (ioredis's INFO ready check, node-redis 6's HELLO 3), new IDs,
// a plain pipeline, a MULTI/EXEC transaction, and reconnection across a
// server restart.
//   usage: node clients.js LIBRARY PORT RESTART_SCRIPT [PASSWORD]
// LIBRARY: ioredis5, ioredis6, redis4, redis6 (the aliases in package.json).
// RESTART_SCRIPT is run (sh) between the two phases: it restarts toidd on
// the same port and state directory. Prints every ID received, one a line,
// to stdout, and "ok" last; exits 1 (with the reason on stderr) on any
// failure. Bounded: the whole run is given 60 s.
// With TOID_TLS_DIR set (a directory holding ca.pem, cli.pem, cli.key), the
// connection is TLS, the server verified against ca.pem and the client
// certificate shown (ioredis `tls: {...}`, node-redis `rediss://` + socket).
'use strict';
const { execFile } = require('child_process');
const fs = require('fs');
const path = require('path');

const tlsDir = process.env.TOID_TLS_DIR;
const tlsFiles = tlsDir ? {
    ca: fs.readFileSync(path.join(tlsDir, 'ca.pem')),
    cert: fs.readFileSync(path.join(tlsDir, 'cli.pem')),
    key: fs.readFileSync(path.join(tlsDir, 'cli.key')),
} : null;

const [lib, portText, restartScript, password] = process.argv.slice(2);
const port = Number(portText);
const ids = [];

function fail(msg) {
    process.stderr.write(`${lib}: ${msg}\n`);
    process.exit(1);
}
setTimeout(() => fail('did not finish within 60 s'), 60000).unref();

function want(cond, what) {
    if (!cond)
        throw new Error(what);
}
// An ID.NEW reply of n IDs: an array of n strings of the format's length.
function takeIds(reply, n, len, what) {
    const list = Array.isArray(reply) ? reply : [reply];
    want(list.length === n, `${what}: ${n} IDs expected, got ${JSON.stringify(reply)}`);
    for (const id of list) {
        want(typeof id === 'string' && id.length === len, `${what}: not an ID: ${JSON.stringify(id)}`);
        ids.push(id);
    }
}

async function ioredisPhase(client, phase) {
    takeIds(await client.call('ID.NEW', 'nanoflake', '3'), 3, 13, `${phase} call`);
    takeIds(await client.call('ID.NEW', 'ulid'), 1, 26, `${phase} single`);
    // pipeline(): the commands back to back, no MULTI
    const p = await client.pipeline().call('ID.NEW', 'ulid', '2').call('PING').exec();
    want(p.length === 2 && !p[0][0] && !p[1][0] && p[1][1] === 'PONG', `${phase} pipeline: ${JSON.stringify(p)}`);
    takeIds(p[0][1], 2, 26, `${phase} pipeline`);
    // multi(): MULTI, the commands (QUEUED), EXEC
    const m = await client.multi().call('ID.NEW', 'uuidv7', '2').call('ID.NEW', 'nanoflake').exec();
    want(m.length === 2 && !m[0][0] && !m[1][0], `${phase} multi: ${JSON.stringify(m)}`);
    takeIds(m[0][1], 2, 36, `${phase} multi`);
    takeIds(m[1][1], 1, 13, `${phase} multi`);
}

async function nodeRedisPhase(client, phase) {
    takeIds(await client.sendCommand(['ID.NEW', 'nanoflake', '3']), 3, 13, `${phase} sendCommand`);
    takeIds(await client.sendCommand(['ID.NEW', 'ulid']), 1, 26, `${phase} single`);
    const m = await client.multi().addCommand(['ID.NEW', 'uuidv7', '2']).addCommand(['ID.NEW', 'nanoflake']).exec();
    want(Array.isArray(m) && m.length === 2, `${phase} multi: ${JSON.stringify(m)}`);
    takeIds(m[0], 2, 36, `${phase} multi`);
    takeIds(m[1], 1, 13, `${phase} multi`);
    // a pipeline without MULTI: node-redis 4 and 6 both have execAsPipeline
    const p = await client.multi().addCommand(['ID.NEW', 'ulid', '2']).addCommand(['PING']).execAsPipeline();
    want(p.length === 2 && p[1] === 'PONG', `${phase} pipeline: ${JSON.stringify(p)}`);
    takeIds(p[0], 2, 26, `${phase} pipeline`);
}

// Restarts the server without blocking the event loop (the client sees its
// connection close and reconnects, as in a real application), then waits
// until the client says it is ready again.
function restart(isReady) {
    return new Promise((resolve, reject) => {
        execFile('sh', [restartScript], { timeout: 30000 }, (err) => {
            if (err)
                return reject(new Error(`restart: ${err.message}`));
            const t0 = Date.now();
            (function poll() {
                if (isReady())
                    return resolve();
                if (Date.now() - t0 > 20000)
                    return reject(new Error('not ready again within 20 s of the restart'));
                setTimeout(poll, 50);
            })();
        });
    });
}

// The protocol each library speaks by default (CLIENT INFO's resp=): the
// RESP3 ones send HELLO 3 on connect.
const defaultResp = { ioredis5: 2, ioredis6: 3, redis4: 2, redis6: 3 };
async function checkResp(infoLine) {
    const m = /resp=(\d)/.exec(String(infoLine));
    want(m && Number(m[1]) === defaultResp[lib], `CLIENT INFO: resp=${defaultResp[lib]} expected: ${infoLine}`);
}

async function main() {
    if (lib.startsWith('ioredis')) {
        const Redis = require(lib);
        const opts = password ? { password } : {};
        if (tlsFiles)
            opts.tls = tlsFiles;
        const client = new Redis(port, '127.0.0.1', opts);
        client.on('error', () => {});   // logged by ioredis's reconnection; failures show below
        await ioredisPhase(client, 'first');
        await restart(() => client.status === 'ready');
        await ioredisPhase(client, 'after restart');
        await checkResp(await client.call('CLIENT', 'INFO'));
        const info = await client.info('server');
        want(/redis_version:/.test(info), `INFO: ${info}`);
        await client.quit();
    } else {
        const { createClient } = require(lib);
        const scheme = tlsFiles ? 'rediss' : 'redis';
        const url = password ? `${scheme}://:${encodeURIComponent(password)}@127.0.0.1:${port}` : `${scheme}://127.0.0.1:${port}`;
        const client = createClient(tlsFiles ? { url, socket: { tls: true, ...tlsFiles } } : { url });
        client.on('error', () => {});   // reconnection is the library's; failures show below
        await client.connect();
        await nodeRedisPhase(client, 'first');
        await restart(() => client.isReady);
        await nodeRedisPhase(client, 'after restart');
        await checkResp(await client.sendCommand(['CLIENT', 'INFO']));
        const id = await client.sendCommand(['CLIENT', 'ID']);
        want(Number(id) > 0, `CLIENT ID: ${id}`);
        await client.quit();
    }
    for (const id of ids)
        process.stdout.write(id + '\n');
    process.stdout.write('ok\n');
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
