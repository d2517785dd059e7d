// Type declarations for toid (Node.js binding of libtoid).

export type FormatName =
  | 'ulid' | 'ulid-flake' | 'ulid-flake-scalable' | 'scru160'
  | 'nanoflake' | 'uid11' | 'uid11-seq' | 'uuidv7'
  // read only: the layouts reference libraries write (parse and timeBounds, never generated)
  | 'nanoflake-ref24' | 'uid11-ref44';
/** The formats whose generator carries a node (FormatInfo.nodeMax is not null); these and
 * uid11-seq (its 10 low bits) claim their nodes. */
export type NodeFormatName = 'nanoflake' | 'ulid-flake-scalable';

export interface FormatInfo {
  readonly name: FormatName;
  readonly bits: number;
  readonly binSize: number;
  readonly textLength: number;
  readonly defaultEpochMs: number;
  readonly hasInt: boolean;
  readonly epochConfigurable: boolean;
  /** The largest node of a node format (nanoflake 1023, ulid-flake-scalable 31); null for the others. */
  readonly nodeMax: number | null;
  /** false for the read-only variants (the layouts of reference libraries): parse only. */
  readonly generates: boolean;
  /** The format a read-only variant departs from ('nanoflake', 'uid11'); null for the others. */
  readonly variantOf: FormatName | null;
}

/** A time: text as the CLI reads it (toid_parse_time_span: ISO 8601 at any precision, a
 * span: '2024-01-01' is the whole day; @SECONDS, Nms, Ns, Nus, unix ms; 'now', 'now-1h',
 * '-15m', '+2d': instants), an integer of unix ms (number or bigint), or a Date (one instant). */
export type Time = string | number | bigint | Date;

export interface EpochOption {
  /** The epoch of ulid-flake, ulid-flake-scalable and nanoflake (default 2024-01-01): a Time,
   * its first ms ('2020' is 2020-01-01T00:00Z). */
  epoch?: Time;
}

/** The inspection fields (DESIGN.md); int (64-bit formats) and random80 (scru160) are bigint. */
export interface Fields {
  format: FormatName;
  text: string;
  unix_ms: number;
  time: string;
  hex: string;
  int?: bigint;
  ts?: number;
  random?: number | string;
  sid?: number;
  counter?: number;
  random16?: number;
  random80?: bigint;
  generator?: number;
  sequence?: number;
  reserved?: boolean;
}

/** A UUID of any version as `toid inspect --json` reads it (the library's toid_uuid_json). */
export interface UuidInfo {
  format: 'uuid';
  /** Canonical: lower case, hyphenated. */
  text: string;
  /** The version field (1..8 for RFC 9562's variant; 0 for nil, 15 for max). */
  version: number;
  variant: 'rfc9562' | 'ncs' | 'microsoft' | 'future' | 'nil' | 'max';
  /** Versions 1, 6 and 7: the time (1 and 6 may be before 1970: then unix_ms alone). */
  unix_ms?: number;
  time?: string;
  hex: string;
  /** Versions 1 and 6. */
  clock_seq?: number;
  node?: string;
  /** The formats that read the text too (inspect only). */
  also?: FormatName[];
}

/** Thrown for invalid IDs (RangeError) and by the generators (Error). The message is
 * "<function>: <parameter>: <what is wrong> (<reason>)"; for a text refused, the library's
 * explanation, the words `toid inspect` prints: "parse: text: 'f81d4fae-...' is not a valid
 * uuidv7: UUID version 4, toid reads version 7 (char)". */
export interface ToidError extends Error {
  /** TOID_ELENGTH, TOID_ECHAR, TOID_EOVERFLOW, TOID_ECLOCK, TOID_EFORKED, ...; TOID_EBUSY, ... */
  code: string;
  /** The library's error class: 'length', 'char', 'overflow', 'clock', 'forked', ...; or a
   * ClaimError's 'busy', 'behind', 'io', 'lost', 'corrupt', 'invalid'. */
  reason: string;
  /** For 'char': the offset of the first bad byte of the UTF-8 text, counted from 0. */
  position?: number;
}

/** A node format made no ID: its node could not be claimed (the message names the claim
 * configuration, and the holder of a busy node), or its claim did not admit the ID. */
export declare class ClaimError extends Error implements ToidError {
  code: string;
  reason: 'busy' | 'behind' | 'io' | 'lost' | 'corrupt' | 'invalid';
  format: FormatName;
}

/** A node held by the process-wide generator of a node format (toid.claim). */
export declare class Claim {
  private constructor();
  readonly format: FormatName;
  readonly node: number;
  /** Held: not given back, not lost. */
  readonly valid: boolean;
  /** Gives the node back (the process-wide generator claims the process's node next). */
  release(): void;
  [Symbol.dispose](): void;
}

/** An immutable ID value. */
export declare class ID {
  private constructor();
  readonly format: FormatName;
  /** Big-endian binary form (a copy). */
  readonly bytes: Buffer;
  readonly text: string;
  /** The value; for the 64-bit formats, their integer form. */
  readonly int: bigint;
  readonly hex: string;
  readonly unixMs: number;
  readonly time: Date;
  readonly fields: Fields;
  /** The same 16 bytes as a UUID's text: ulid and uuidv7 (a RangeError for the others). */
  readonly uuid: string;
  /** -1, 0, 1 against an ID of the same format; TypeError otherwise. */
  compare(other: ID): -1 | 0 | 1;
  equals(other: unknown): boolean;
  toString(): string;
  toJSON(): string;
}

/** A generator of one's own beside the process-wide ones, with its own node and epoch. */
export declare class Generator {
  /** A node format (and uid11-seq) claims a node of its own: options.node, else the lowest
   * free one; a ClaimError if it cannot. */
  constructor(format: FormatName, options?: { node?: number } & EpochOption);
  readonly format: FormatName;
  /** The node it claimed; null for the formats without one. */
  readonly node: number | null;
  /** Gives the claimed node back; no more IDs. */
  close(): void;
  [Symbol.dispose](): void;
  new(): string;
  newBytes(): Buffer;
  newMany(n: number): string[];
  newManyBytes(n: number): Buffer;
}

/** at: an ID whose time is at's (a string names a span: its first ms; unix
 * ms or a Date: an instant), for backfills: ulid, scru160 and uuidv7 only,
 * fresh random bits, not ordered against the generator's IDs. */
export interface NewOptions {
  at?: Time | null;
}

/** A new ULID from the process-wide generator (monotonic, fork-safe). */
export declare function ulid(): string;
/** A new UUIDv7 from the process-wide generator (monotonic, fork-safe). */
export declare function uuidv7(): string;
/** A new ID from the process-wide generator of format. A node format (nanoflake,
 * ulid-flake-scalable, uid11-seq) claims the process's node on its first ID and
 * admits every ID (here and in newBytes, newMany, newManyBytes): a ClaimError
 * otherwise, never a silent node 0. */
declare function new_(format?: FormatName, options?: NewOptions): string;
export { new_ as new };
export declare function newBytes(format?: FormatName, options?: NewOptions): Buffer;
/** n strictly increasing IDs (uid11: sorted), generated in batches. */
export declare function newMany(format: FormatName, n: number): string[];
/** n strictly increasing IDs back to back: n * binSize bytes. */
export declare function newManyBytes(format: FormatName, n: number): Buffer;
/** Strict decoding; detects the format when it is not given. Throws RangeError (ToidError). */
export declare function parse(text: string, format?: FormatName | null, options?: EpochOption): ID;
export declare function isValid(text: string, format?: FormatName | null): boolean;
/** The time of an ID as a Date. */
export declare function time(id: string | ID, format?: FormatName | null, options?: EpochOption): Date;
export declare function fromBytes(bytes: Uint8Array, format: FormatName, options?: EpochOption): ID;
/** From the 64-bit formats' integer form. */
export declare function fromInt(value: bigint, format: FormatName, options?: EpochOption): ID;
/** What `toid inspect --json` says: an ID's fields, or any UUID of another version (without
 * format); also: the other formats that read the text. */
export declare function inspect(text: string, format?: FormatName | null,
  options?: EpochOption): (Fields & { also?: FormatName[] }) | UuidInfo;
/** Any UUID (versions 1..8, any variant, nil, max; any form) read. */
export declare function uuidInfo(text: string): UuidInfo;
/** A ULID's 16 bytes as a UUID's text. */
export declare function ulidToUuid(text: string): string;
/** Any UUID's 16 bytes as a ULID's text. */
export declare function uuidToUlid(text: string): string;
/** An ID from a UUID's text: a version 7 UUID is a uuidv7, any other a ulid. */
export declare function fromUuid(text: string, format?: 'ulid' | 'uuidv7' | null): ID;
/** [lowest, highest] ID whose times lie in [start, end] (default: start's whole span). */
export declare function timeBounds(format: FormatName, start: Time, options?: EpochOption): [ID, ID];
export declare function timeBounds(format: FormatName, start: Time, end?: Time | null,
  options?: EpochOption): [ID, ID];
export declare function make(format: FormatName,
  fields: Record<string, string | number | bigint | boolean | Date>, options?: EpochOption): ID;
/** Reconfigures the process-wide generator of a format (node, epoch). A node format's node is
 * claimed now (a ClaimError naming the holder if held elsewhere); without one, the process's
 * node, claimed on the next ID. Worker threads share it. */
export declare function configure(format: FormatName, options?: { node?: number } & EpochOption): void;
/** Claims a node (options.node, else the process's) for the process-wide generator, now. */
export declare function claim(format: FormatName, options?: { node?: number }): Claim;
export declare const formats: readonly FormatInfo[];
export declare const libraryVersion: string;
