import * as toid from '../..';
const a: string = toid.ulid();
const b: string = toid.new('nanoflake');
const id: toid.ID = toid.parse(a, 'ulid');
const d: Date = toid.time(a);
const n: bigint = id.int;
const f = id.fields.int;
const m: string[] = toid.newMany('ulid', 3);
toid.configure('nanoflake', { node: 3, epoch: new Date() });
const x: number = id.compare(toid.parse(b));
const g = new toid.Generator('nanoflake', { node: 7 });
const gm: string[] = g.newMany(2);
console.log(g.new(), g.newBytes().length, gm, g.format);
console.log(a, b, d, n, f, m, x, toid.formats[0].textLength);
// @ts-expect-error unknown format
toid.new('ulidx');
// IDs at given times
const at: string = toid.new('uuidv7', { at: new Date(0) }) + toid.new('ulid', { at: '2024-01-01' });
const atb: Buffer = toid.newBytes('ulid', { at: 1704067200000 });
console.log(at, atb.length);
// @ts-expect-error at is a time, not a boolean
toid.new('ulid', { at: true });
// a node format's Generator claims a node of its own
const mine: number | null = new toid.Generator('nanoflake').node;
const c: toid.Claim = toid.claim('nanoflake', { node: 3 });
const held: number = c.node + (mine ?? 0);
c.release();
const reason: string = new toid.ClaimError().reason;
console.log(held, reason);
const own: toid.Generator = new toid.Generator('ulid', {});
const nodeMax: number | null = toid.formats[4].nodeMax;
console.log(own.new(), nodeMax);
const [lo, hi]: [toid.ID, toid.ID] = toid.timeBounds('ulid', '2024-01-01');
const span2: toid.ID[] = toid.timeBounds('uuidv7', 'now-1h', new Date(), { epoch: '2024' });
const span3: toid.ID[] = toid.timeBounds('nanoflake', 1704067200000, { epoch: new Date(0) });
const info: toid.UuidInfo = toid.uuidInfo('f81d4fae-7dec-41d0-a765-00a0c91e6bf6');
const seen = toid.inspect(a);
const u: string = toid.ulidToUuid(a) + toid.uuidToUlid(info.text) + toid.fromUuid(info.text).uuid;
console.log(lo, hi, span2, span3, info.version, seen.format, u);
// @ts-expect-error a Time is no boolean
toid.timeBounds('ulid', true);
