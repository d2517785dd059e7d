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

const ULID = INDEX.get('ulid');
const UUIDV7 = INDEX.get('uuidv7');

// Errors: "<function>: <parameter>: <what is wrong> (<reason>)", with .code
// ('TOID_EINVALID', ...) and .reason ('invalid', 'range', ...), as the
// addon's own.
function toidError(Type, message, reason) {
  const e = new Type(message);
  e.code = `TOID_E${reason.toUpperCase()}`;
  e.reason = reason;
  return e;
}

// A value as a message shows it: a string quoted (its first 100 characters).
function show(value) {
  if (typeof value === 'string') return `'${value.length > 100 ? `${value.slice(0, 100)}...` : value}'`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  return String(value);
}

// The library's index of a format name or alias, in any case ('ulid',
// 'ULID', 'uuid7'); a TypeError, or a RangeError in the library's words
// ("unknown format 'ulidd' (did you mean ulid?)"), naming the function fn.
function formatIndex(format, fn) {
  const i = INDEX.get(format);
  if (i !== undefined) return i;
  if (typeof format !== 'string') {
    throw toidError(TypeError, `${fn}: format: must be a string such as 'ulid', not ${typeof format}`, 'invalid');
  }
  const f = native.formatByName(format);
  if (f >= 0) return f;
  throw toidError(RangeError, `${fn}: format: ${native.formatNameError(format)} (invalid)`, 'invalid');
}

// Optional format argument of parse/time/isValid/inspect: -1 detects.
function optionalFormat(format, fn) {
  return format === undefined || format === null ? -1 : formatIndex(format, fn);
}

// A time argument as [first ms, last ms]: a string as the CLI reads it
// (toid_parse_time_span: '2024-01-01' is the whole day, from its first ms
// to its last; 'now-1h' an instant), an integer of unix ms, a bigint, or a
// Date (one instant). Errors name fn and param.
let warnedSeconds = false;
function span(fn, param, value) {
  if (typeof value === 'string') {
    const s = native.parseTime(value);
    if (s === null) {
      throw toidError(RangeError, `${fn}: ${param}: ${show(value)} is not a time: ${native.timeExpected} (invalid)`, 'invalid');
    }
    if (s[2] & 2 && !warnedSeconds) {   // TOID_TIME_LOOKS_SECONDS: once a process
      warnedSeconds = true;
      process.emitWarning(`${fn}: ${param}: ${show(value)} is read as unix milliseconds (${native.formatTime(s[0])}); for seconds write @${value} or ${value}s`,
        { type: 'TimeWarning', code: 'TOID_TIME_SECONDS' });
    }
    return [s[0], s[1]];
  }
  if (typeof value === 'bigint') value = Number(value);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw toidError(RangeError, `${fn}: ${param}: ${show(value)} is not an integer of ms (invalid)`, 'invalid');
    }
    return [value, value];
  }
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) throw toidError(RangeError, `${fn}: ${param}: an Invalid Date (invalid)`, 'invalid');
    return [ms, ms];
  }
  throw toidError(TypeError, `${fn}: ${param}: a time is a string, an integer of unix ms or a Date, not ${value === null ? 'null' : typeof value}`, 'invalid');
}

// An epoch given as ms, a Date or a time as text (its first ms: '2020' is
// 2020-01-01T00:00Z); undefined = the format's default.
function epochMs(epoch, fn = 'ID') {
  if (epoch === undefined || epoch === null) return undefined;
  return span(fn, 'epoch', epoch)[0];
}

function toBigInt(buf) {
  return buf.length ? BigInt('0x' + buf.toString('hex')) : 0n;
}

// An ID of format index f whose time is at (new(format, { at })): a string
// names a span and gives its first ms ('2024-01-01' is its midnight), a
// number of unix ms or a Date an instant. Only the formats whose IDs at a
// given time are unique by their random bits (ulid, scru160, uuidv7); fresh
// random bits, not ordered against the generator's IDs. A Buffer.
function newAt(fn, f, at) {
  const why = native.atTimeExplain(f);
  if (why !== null) throw toidError(RangeError, `${fn}: format: no ID at a given time: ${why} (invalid)`, 'invalid');
  const ms = span(fn, 'at', at)[0];
  const [min, max] = native.timeSpan(f);
  if (ms < min || ms > max) {
    throw toidError(RangeError, `${fn}: at: ${show(at)} is outside the times ${FORMATS[f].name} holds (${native.formatTime(min)} .. ${native.formatTime(max)}) (range)`, 'range');
  }
  return native.newAt(f, ms);
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
  get fields() { return fieldsOf(this.#format, this.#bytes, this.#epoch); }
  /** The same 16 bytes as a UUID's text (ulid and uuidv7; a RangeError for the others). */
  get uuid() {
    if (this.#format !== ULID && this.#format !== UUIDV7) {
      throw toidError(RangeError, `uuid: a ${this.format} is not a UUID (ulid and uuidv7 are) (invalid)`, 'invalid');
    }
    const h = this.#bytes.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
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

function fieldsOf(format, bytes, epoch) {
  const f = native.describe(format, bytes, epoch);
  if (typeof f.random80 === 'string') f.random80 = BigInt(f.random80);
  return f;
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
    this.#f = formatIndex(format, 'Generator');
    this.#g = native.genCreate(this.#f, options.node, epochMs(options.epoch, 'Generator'));
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
   * otherwise, never node 0 silently. With { at } (a time: the CLI's text,
   * its first ms; unix ms; a Date), an ID whose time is at's, for backfills:
   * ulid, scru160 and uuidv7 only, fresh random bits, not ordered against
   * the generator's IDs. */
  new(format = 'ulid', options) {
    const f = formatIndex(format, 'new');
    if (options === undefined || options === null || options.at === undefined || options.at === null) {
      return native.newText(f);
    }
    return native.encode(f, newAt('new', f, options.at));
  },
  /** A new ID of format as a Buffer (big-endian); { at } as new(). */
  newBytes(format = 'ulid', options) {
    const f = formatIndex(format, 'newBytes');
    if (options === undefined || options === null || options.at === undefined || options.at === null) {
      return native.newBytes(f);
    }
    return newAt('newBytes', f, options.at);
  },

  /** n strictly increasing IDs of format as texts (uid11: sorted), made in batches. */
  newMany(format, n) {
    return manyTexts(formatIndex(format, 'newMany'), n);
  },
  /** n strictly increasing IDs of format back to back in one Buffer (n * binSize bytes). */
  newManyBytes(format, n) { return manyBytes(formatIndex(format, 'newManyBytes'), n); },

  /** Strict decoding: an ID (a uuidv7 in its 36-character form), or a
   * RangeError whose message is the library's explanation (the words `toid
   * inspect` prints) with .reason ('length', 'char', 'overflow', 'invalid')
   * and .position for 'char' (bytes from 0). Without format, detected (a
   * uuidv7 in any UUID form too). */
  parse(text, format, options) {
    const [f, bytes] = native.decode(text, optionalFormat(format, 'parse'), 'parse');
    return idOf(f, bytes, epochMs(options && options.epoch, 'parse'));
  },
  /** Whether text is a valid ID (of format, or of any detectable format). */
  isValid(text, format) {
    const f = optionalFormat(format, 'isValid');
    try {
      native.decode(text, f, 'isValid');
      return true;
    } catch (e) {
      if (e instanceof RangeError && e.reason !== 'invalid') return false;
      if (e instanceof RangeError && f < 0) return false;   // a word: no ID
      throw e;
    }
  },
  /** The time of an ID (text or ID) as a Date. */
  time(id, format, options) {
    if (id instanceof ID) return id.time;
    return new Date(native.timeOf(id, optionalFormat(format, 'time'),
      epochMs(options && options.epoch, 'time'), 'time'));
  },
  /** What `toid inspect --json` says of text: an ID's fields, or, without
   * format, any UUID of another version than 7 (or another variant, nil,
   * max) in any of its forms as { format: 'uuid', text, version, variant,
   * unix_ms and time for versions 1, 6 and 7, hex, clock_seq and node for 1
   * and 6 }; also: the other formats that read the text, when any do. */
  inspect(text, format, options) {
    const epoch = epochMs(options && options.epoch, 'inspect');
    if (format === undefined || format === null) {
      const found = native.uuidDetect(text, 'inspect');
      if (found !== null) {
        const info = JSON.parse(found[0]);
        if (found[1]) info.also = native.formatNames(found[1]);
        return info;
      }
    }
    const [f, bytes, also] = native.decode(text, optionalFormat(format, 'inspect'), 'inspect');
    const fields = fieldsOf(f, bytes, epoch);
    if (also) fields.also = native.formatNames(also);
    return fields;
  },
  /** Any UUID (versions 1 to 8, any variant, nil, max; 36 characters, 32
   * hex digits, {...}, urn:uuid:...), read as `toid inspect --json` reads
   * it: { format: 'uuid', text, version, variant, unix_ms, time, hex,
   * clock_seq, node }. */
  uuidInfo(text) { return JSON.parse(native.uuidRead(text, 'uuidInfo')[0]); },
  /** A ULID's 16 bytes as a UUID's text, as `toid convert --to uuid` writes it. */
  ulidToUuid(text) { return native.ulidToUuid(text); },
  /** Any UUID's 16 bytes (any version, any form) as a ULID, as `toid convert --to ulid`. */
  uuidToUlid(text) { return native.uuidToUlid(text); },
  /** An ID from a UUID's text in any form: a version 7 UUID is a uuidv7,
   * any other's 16 bytes a ulid ('ulid' reads a v7 as a ulid too; 'uuidv7'
   * refuses another version with the library's reason). */
  fromUuid(text, format) {
    const [json, bytes] = native.uuidRead(text, 'fromUuid');
    const info = JSON.parse(json);
    const f = format === undefined || format === null
      ? (info.variant === 'rfc9562' && info.version === 7 ? UUIDV7 : ULID)
      : formatIndex(format, 'fromUuid');
    if (f === UUIDV7) return idOf(f, native.decode(info.text, f, 'fromUuid')[1]);
    if (f !== ULID) {
      throw toidError(RangeError, `fromUuid: format: a UUID is a ulid or a uuidv7, not a ${FORMATS[f].name} (invalid)`, 'invalid');
    }
    return idOf(f, bytes);
  },
  /** An ID from its binary form. */
  fromBytes(bytes, format, options) {
    const f = formatIndex(format, 'fromBytes');
    const copy = Buffer.from(bytes);
    native.encode(f, copy);     // checks the size and the value
    return idOf(f, copy, epochMs(options && options.epoch, 'fromBytes'));
  },
  /** An ID of a 64-bit format from its integer form (a bigint). */
  fromInt(value, format, options) {
    const f = formatIndex(format, 'fromInt');
    return idOf(f, native.fromInt(f, value), epochMs(options && options.epoch, 'fromInt'));
  },
  /** Composes an ID from fields as `toid make` does: the time (unix_ms, ts, or
   * time as a Date or RFC 3339) and the format's sub-fields, or int / hex. */
  make(format, fields, options) {
    const f = formatIndex(format, 'make');
    const text = {};
    for (const [k, v] of Object.entries(fields)) {
      text[k] = v instanceof Date ? v.toISOString() : String(v);
    }
    const epoch = epochMs(options && options.epoch, 'make');
    return idOf(f, native.make(f, text, epoch), epoch);
  },
  /** [lowest, highest] ID of format whose times lie in [start, end], for
   * `WHERE id BETWEEN lo AND hi`, as `toid range` gives them. A time is
   * text as the CLI reads it (a span, whole: '2024-01-01' the day from its
   * first ms to its last; or an instant: 'now', 'now-1h', '-15m'), an
   * integer of unix ms, or a Date (one instant). Without end, start's whole
   * span. timeBounds(format, start, { epoch }) works too. */
  timeBounds(format, start, end, options) {
    if (options === undefined && end !== null && typeof end === 'object' && !(end instanceof Date)) {
      options = end;
      end = undefined;
    }
    const f = formatIndex(format, 'timeBounds');
    const epoch = epochMs(options && options.epoch, 'timeBounds');
    let [first, last] = span('timeBounds', 'start', start);
    let hiParam = 'start';
    let hiValue = start;
    if (end !== undefined && end !== null) {
      last = span('timeBounds', 'end', end)[1];
      hiParam = 'end';
      hiValue = end;
      if (last < first) {
        throw toidError(RangeError, `timeBounds: end: ${show(end)} is before start ${show(start)} (invalid)`, 'invalid');
      }
    }
    const [min, max] = native.timeSpan(f, epoch);
    for (const [param, value, ms] of [['start', start, first], [hiParam, hiValue, last]]) {
      if (ms < min || ms > max) {
        throw toidError(RangeError, `timeBounds: ${param}: ${show(value)} is outside the times ${FORMATS[f].name} holds (${native.formatTime(min)} .. ${native.formatTime(max)}) (range)`, 'range');
      }
    }
    return [idOf(f, native.timeBounds(f, first, epoch)[0], epoch),
      idOf(f, native.timeBounds(f, last, epoch)[1], epoch)];
  },
  /** Reconfigures the process-wide generator of format: its node and epoch.
   * A node format's { node: N } (nanoflake 0..1023, ulid-flake-scalable
   * 0..31, uid11-seq 0..1023) is claimed now: a ClaimError (reason 'busy',
   * naming the holder) if another holds it, and nothing changes. Without a
   * node, the process's node, claimed on the next ID. */
  configure(format, options = {}) {
    native.configure(formatIndex(format, 'configure'), options.node, epochMs(options.epoch, 'configure'));
  },
  /** Claims node { node } of a node format (without one: the process's node)
   * for the process-wide generator, now; a Claim (format, node, valid,
   * release(), and [Symbol.dispose] for `using`). */
  claim(format, options = {}) {
    const f = formatIndex(format, 'claim');
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
