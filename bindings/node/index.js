'use strict';
// toid for Node.js: time-ordered IDs over libtoid (an N-API addon).
//   const toid = require('toid');
//   toid.ulid();  toid.uuidv7();  toid.new('nanoflake');  toid.parse(id).time
// ulid() and uuidv7() are the addon's functions themselves: nothing in
// JavaScript runs between the caller and the library on the hot path.

// The addon itself (addon.js): not exported, so its benchmark hooks stay
// out of the API; bench/bench.js requires it directly.
const native = require('./addon.js');

// A node format (nanoflake, ulid-flake-scalable, uid11-seq) made no ID
// because its node could not be claimed, or its claim did not admit the ID.
// .reason: 'busy' (held by another holder, named in the message), 'behind'
// (the clock is behind the node's high-water mark), 'io' (the registry or
// etcd failed), 'lost' (given back, lost, past its deadline), 'corrupt', or
// 'invalid' (a claim configuration that cannot be used: the message names
// it); .code 'TOID_EBUSY', ...; .format. A generation error (an Error with
// .code and .reason) like the others.
class ClaimError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ClaimError';
  }
}
native.setClaimError(ClaimError);

const FORMATS = Object.freeze(native.formats().map((f) => Object.freeze(f)));
const INDEX = new Map(FORMATS.map((f, i) => [f.name, i]));
const BATCH_MAX = 65536;   // the addon's largest batch per call

// The library's index of a format name; TypeError / RangeError otherwise.
function formatIndex(format) {
  const i = INDEX.get(format);
  if (i !== undefined) return i;
  if (typeof format !== 'string') {
    throw new TypeError(`format must be a string such as 'ulid', not ${typeof format}`);
  }
  const e = new RangeError(`unknown format '${format}' (formats: ${[...INDEX.keys()].join(', ')}) (invalid)`);
  e.code = 'TOID_EINVALID';
  e.reason = 'invalid';
  throw e;
}

// Optional format argument of parse/time/isValid: -1 detects.
function optionalFormat(format) {
  return format === undefined || format === null ? -1 : formatIndex(format);
}

// An epoch given as ms or a Date; undefined = the format's default.
function epochMs(epoch) {
  if (epoch === undefined || epoch === null) return undefined;
  if (epoch instanceof Date) return epoch.getTime();
  if (typeof epoch === 'number' && Number.isInteger(epoch)) return epoch;
  throw new TypeError('epoch must be an integer of ms or a Date');
}

function toBigInt(buf) {
  return buf.length ? BigInt('0x' + buf.toString('hex')) : 0n;
}

const CONSTRUCT = Symbol('toid.ID');

// An ID value: its format and bytes (and the epoch it was read with, for the
// formats whose epoch is configurable). Immutable; compare with compare() or
// equals(); JSON and string conversions give the canonical text.
class ID {
  #format; #bytes; #epoch; #text;

  constructor(token, format, bytes, epoch) {
    if (token !== CONSTRUCT) throw new TypeError('use toid.parse, toid.fromBytes or toid.fromInt');
    this.#format = format;
    this.#bytes = bytes;
    this.#epoch = epoch;
    Object.freeze(this);   // private fields (#text, filled lazily) stay writable inside

  }

  /** The format's name. */
  get format() { return FORMATS[this.#format].name; }
  /** The binary form (big-endian), as a new Buffer. */
  get bytes() { return Buffer.from(this.#bytes); }
  /** The canonical text. */
  get text() {
    if (this.#text === undefined) this.#text = native.encode(this.#format, this.#bytes);
    return this.#text;
  }
  /** The value as a bigint (the 64-bit formats' integer form). */
  get int() { return toBigInt(this.#bytes); }
  /** The value as lower-case hex at full width. */
  get hex() { return this.#bytes.toString('hex'); }
  /** The time in ms since 1970-01-01T00:00:00Z. */
  get unixMs() { return native.describe(this.#format, this.#bytes, this.#epoch).unix_ms; }
  /** The time as a Date. */
  get time() { return new Date(this.unixMs); }
  /** The inspection fields (unix_ms, time, hex and the format's own; int and random80 as bigint). */
  get fields() {
    const f = native.describe(this.#format, this.#bytes, this.#epoch);
    if (typeof f.random80 === 'string') f.random80 = BigInt(f.random80);
    return f;
  }
  /** -1, 0 or 1 against another ID of the same format (TypeError otherwise). */
  compare(other) {
    if (!(other instanceof ID) || other.#format !== this.#format) {
      throw new TypeError('only IDs of one format compare');
    }
    return Buffer.compare(this.#bytes, other.#bytes);
  }
  equals(other) {
    return other instanceof ID && other.#format === this.#format &&
      this.#bytes.equals(other.#bytes);
  }
  toString() { return this.text; }
  toJSON() { return this.text; }
  [Symbol.for('nodejs.util.inspect.custom')]() { return `ID<${this.format} ${this.text}>`; }
}

function idOf(format, bytes, epoch) {
  return new ID(CONSTRUCT, format, bytes, epoch);
}

// n IDs from target (a format index, or a generator) as strings. The addon
// writes each batch as the text of a JSON array and JSON.parse makes the
// strings: no call per ID, and each string a copy of its own (slicing one
// long string would keep the whole batch alive for as long as any one ID).
function manyTexts(target, n) {
  checkCount(n);
  if (n <= BATCH_MAX) return JSON.parse(native.batchJson(target, n));
  let out = [];
  for (let done = 0; done < n; done += BATCH_MAX) {
    out = out.concat(JSON.parse(native.batchJson(target, Math.min(n - done, BATCH_MAX))));
  }
  return out;
}

// n IDs from target back to back in one Buffer.
function manyBytes(target, n) {
  checkCount(n);
  if (n <= BATCH_MAX) return native.batchBytes(target, n);
  const parts = [];
  for (let done = 0; done < n; done += BATCH_MAX) {
    parts.push(native.batchBytes(target, Math.min(n - done, BATCH_MAX)));
  }
  return Buffer.concat(parts);
}

// A generator of one's own beside the process-wide ones, with its own node
// and epoch. A node format (nanoflake, ulid-flake-scalable, uid11-seq)
// claims a node of its own: new toid.Generator('nanoflake') the lowest
// free one (never the process's node, nor another this process holds),
// { node: 7 } that one (a ClaimError, reason 'busy', while anyone holds it).
// close() gives it back (else the garbage collector does, when the generator
// is gone; else the process's exit). Strictly increasing (uid11: unique
// within a ms); it belongs to the thread (main or worker) that made it.
class Generator {
  #g; #f;

  constructor(format, options = {}) {
    this.#f = formatIndex(format);
    this.#g = native.genCreate(this.#f, options.node, epochMs(options.epoch));
    Object.freeze(this);
  }

  get format() { return FORMATS[this.#f].name; }
  /** The node it claimed (null for the formats without one). */
  get node() { return native.genNode(this.#g); }
  /** The next ID as text. */
  new() { return native.newText(this.#g); }
  /** The next ID as a Buffer. */
  newBytes() { return native.newBytes(this.#g); }
  /** The next n IDs as strings. */
  newMany(n) { return manyTexts(this.#g, n); }
  /** The next n IDs back to back in one Buffer. */
  newManyBytes(n) { return manyBytes(this.#g, n); }
  /** Gives a claimed node back; no more IDs from it. Again: nothing. */
  close() { native.genClose(this.#g); }
}
if (typeof Symbol.dispose === 'symbol') {
  Generator.prototype[Symbol.dispose] = function dispose() { this.close(); };
}

// A node the process-wide generator of a node format holds, from
// toid.claim(): its IDs carry it until release() (then the process's node,
// claimed on the next ID). With `using`, released at the end of the block.
class Claim {
  #k; #f;

  constructor(token, f, k) {
    if (token !== CONSTRUCT) throw new TypeError('use toid.claim');
    this.#f = f;
    this.#k = k;
    Object.freeze(this);
  }

  get format() { return FORMATS[this.#f].name; }
  /** The node held. */
  get node() { return native.claimNode(this.#k); }
  /** Whether it is still held (not given back, not lost). */
  get valid() { return native.claimValid(this.#k); }
  /** Gives the node back. Again: nothing. */
  release() { native.claimRelease(this.#f, this.#k); }
}
if (typeof Symbol.dispose === 'symbol') {
  Claim.prototype[Symbol.dispose] = function dispose() { this.release(); };
}

function checkCount(n) {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError('count must be an integer >= 0');
  }
}

const toid = {
  /** A new ULID (text) from the process-wide generator. */
  ulid: native.ulid,
  /** A new UUIDv7 (text) from the process-wide generator. */
  uuidv7: native.uuidv7,

  /** A new ID of format (default 'ulid') as text. A node format (nanoflake,
   * ulid-flake-scalable, uid11-seq's 10 low bits) claims the process's node on
   * its first ID (the host's claim configuration, else the host's node
   * registry) and every ID, or batch, is admitted by the claim: a ClaimError
   * otherwise, never node 0 silently. */
  new(format = 'ulid') { return native.newText(formatIndex(format)); },
  /** A new ID of format as a Buffer (big-endian). */
  newBytes(format = 'ulid') { return native.newBytes(formatIndex(format)); },

  /** n strictly increasing IDs of format as texts (uid11: sorted), made in batches. */
  newMany(format, n) {
    return manyTexts(formatIndex(format), n);
  },
  /** n strictly increasing IDs of format back to back in one Buffer (n * binSize bytes). */
  newManyBytes(format, n) { return manyBytes(formatIndex(format), n); },

  /** Strict decoding: an ID, or a RangeError with .reason ('length', 'char',
   * 'overflow') and .position for 'char'. Without format, detected. */
  parse(text, format, options) {
    const [f, bytes] = native.decode(text, optionalFormat(format));
    return idOf(f, bytes, epochMs(options && options.epoch));
  },
  /** Whether text is a valid ID (of format, or of any detectable format). */
  isValid(text, format) {
    const f = optionalFormat(format);
    try {
      native.decode(text, f);
      return true;
    } catch (e) {
      if (e instanceof RangeError && e.reason !== 'invalid') return false;
      throw e;
    }
  },
  /** The time of an ID (text or ID) as a Date. */
  time(id, format, options) {
    if (id instanceof ID) return id.time;
    return new Date(native.timeOf(id, optionalFormat(format), epochMs(options && options.epoch)));
  },
  /** An ID from its binary form. */
  fromBytes(bytes, format, options) {
    const f = formatIndex(format);
    const copy = Buffer.from(bytes);
    native.encode(f, copy);     // checks the size and the value
    return idOf(f, copy, epochMs(options && options.epoch));
  },
  /** An ID of a 64-bit format from its integer form (a bigint). */
  fromInt(value, format, options) {
    const f = formatIndex(format);
    return idOf(f, native.fromInt(f, value), epochMs(options && options.epoch));
  },
  /** Composes an ID from fields as `toid make` does: the time (unix_ms, ts, or
   * time as a Date or RFC 3339) and the format's sub-fields, or int / hex. */
  make(format, fields, options) {
    const f = formatIndex(format);
    const text = {};
    for (const [k, v] of Object.entries(fields)) {
      text[k] = v instanceof Date ? v.toISOString() : String(v);
    }
    const epoch = epochMs(options && options.epoch);
    return idOf(f, native.make(f, text, epoch), epoch);
  },
  /** Reconfigures the process-wide generator of format: its node and epoch.
   * A node format's { node: N } (nanoflake 0..1023, ulid-flake-scalable
   * 0..31, uid11-seq 0..1023) is claimed now: a ClaimError (reason 'busy',
   * naming the holder) if another holds it, and nothing changes. Without a
   * node, the process's node, claimed on the next ID. */
  configure(format, options = {}) {
    native.configure(formatIndex(format), options.node, epochMs(options.epoch));
  },
  /** Claims node { node } of a node format (without one: the process's node)
   * for the process-wide generator, now; a Claim (format, node, valid,
   * release(), and [Symbol.dispose] for `using`). */
  claim(format, options = {}) {
    const f = formatIndex(format);
    return new Claim(CONSTRUCT, f, native.claim(f, options.node));
  },

  formats: FORMATS,
  ID,
  Generator,
  Claim,
  ClaimError,
  libraryVersion: native.version(),
};

module.exports = toid;
