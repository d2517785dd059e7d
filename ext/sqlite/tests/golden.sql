-- The SQLite extension through the sqlite3 shell, compared with golden.expected.
-- Run by run_sqlite_tests.sh in a directory holding toid.so and vectors.sql.
-- Only deterministic things are printed: generated IDs appear as lengths,
-- comparisons and round-trip booleans, never as values.
.load ./toid
.read vectors.sql
.echo on
.headers off
.mode list
.nullvalue NULL

-- ==== the conformance vectors (read from shared/vectors by vectors_to_sql.sh)
-- every successful decode: time and bytes as the vector says, text round trip
SELECT format, count(*) >= 2 AS enough,
       sum(toid_unix_ms(format, text) = unix_ms) = count(*) AS unix_ms_ok,
       sum(hex(toid_decode(format, text)) = upper(hex)) = count(*) AS bytes_ok,
       sum(toid_decode(format, toid_encode(format, toid_decode(format, text))) = toid_decode(format, text)) = count(*) AS round_trip_ok,
       sum(toid_unix_ms(format, toid_decode(format, text)) = unix_ms) = count(*) AS blob_time_ok
  FROM vec GROUP BY format ORDER BY format;

-- ==== a few values per format, by hand (spec examples)
SELECT toid_time('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAV'), toid_unix_ms('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAV');
SELECT hex(toid_decode('ulid', '01arz3ndektsv4rrffq69g5fav'));
SELECT toid_encode('ulid', x'01563e3ab5d3d6764c61efb99302bd5b');
SELECT toid_inspect('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAV');
SELECT toid_inspect('ulid-flake', '00CMXB6TAK4SA');
SELECT toid_inspect('ulid-flake-scalable', '00CMXB6TAK4SA');
SELECT toid_inspect('scru160', '05TTUP1HNCPNH30VEK64KDQT9BSNU4C4');
SELECT toid_encode('scru160', '017bdf6431bb33788c1f750c4a375d4af97f1184');
SELECT toid_inspect('nanoflake', '0000001xd6ku8');
SELECT toid_encode('nanoflake', 'XD6KU8'), toid_int('nanoflake', 'xd6ku8'), toid_encode('nanoflake', 4194308096);
SELECT toid_inspect('uid11', '1111111NVpb');
SELECT toid_inspect('uid11-seq', '1111111NVpb');
SELECT toid_inspect('uuidv7', '017F22E2-79B0-7CC3-98C4-DC0C0C07398F');
SELECT toid_time('uuidv7', x'017f22e279b07cc398c4dc0c0c07398f');
SELECT toid_int('ulid-flake', '7ZZZZZZZZZZZZ'), toid_time('ulid-flake', 9223372036854775807);
SELECT toid_int('uid11', 'jpXCZedGfVQ');
SELECT json_extract(toid_inspect('scru160', '05TTUP1HNCPNH30VEK64KDQT9BSNU4C4'), '$.counter');
-- the largest ULID: a year past 9999, written with all its digits
SELECT toid_time('ulid', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ');

-- ==== bounds of an instant: text (toid_min/max) and blob (_blob) forms
CREATE TEMP TABLE fmt(f TEXT);
INSERT INTO fmt VALUES ('ulid'), ('ulid-flake'), ('ulid-flake-scalable'), ('scru160'), ('nanoflake'),
                       ('uid11'), ('uid11-seq'), ('uuidv7');
SELECT f, toid_min(f, '2024-06-01 12:00:00.000'), toid_max(f, '2024-06-01T12:00:00Z'),
       hex(toid_min_blob(f, 1717243200000)) = hex(toid_decode(f, toid_min(f, 1717243200000))),
       toid_unix_ms(f, toid_max_blob(f, 1717243200000))
  FROM fmt;
-- a zone offset and a date alone are read too
SELECT toid_min('ulid', '2024-06-01T14:00:00+02:00') = toid_min('ulid', 1717243200000),
       toid_min('ulid', '2024-06-01') = toid_min('ulid', '2024-06-01 00:00:00');

-- ==== generating: every format
-- Node formats claim their node (here in the test's own registry,
-- TOID_CLAIM_CONF): nothing claimed yet; toid_node(f, n) claims n for the
-- process and sets it for this connection; uid11-seq's first ID below
-- claims the process's node, the lowest free one (0).
SELECT toid_node('nanoflake'), toid_node('ulid-flake-scalable'), toid_node('uid11-seq');
SELECT toid_node('nanoflake', 7), toid_node('ulid-flake-scalable', 31), toid_node('nanoflake');
CREATE TEMP TABLE gen AS
  SELECT f, toid_new(f) AS a, toid_new(f) AS b, toid_new_blob(f) AS c FROM fmt;
SELECT f, typeof(a), length(a), typeof(c), length(c),
       toid_encode(f, toid_decode(f, a)) = a AS text_round_trip,
       toid_decode(f, toid_encode(f, c)) = c AS blob_round_trip,
       a <> b AS distinct_ids,
       abs(toid_unix_ms(f, a) - unixepoch('now') * 1000) < 600000 AS time_is_now,
       toid_time(f, c) BETWEEN datetime('now', '-10 minutes') AND datetime('now', '+10 minutes') AS time_text_is_now
  FROM gen ORDER BY f;
-- the monotonic formats: strictly increasing within the statement and across statements
SELECT f, a < b, b < toid_encode(f, c) FROM gen WHERE f <> 'uid11' ORDER BY f;
-- the node is in the ID (uid11-seq: in its 10 low bits)
SELECT json_extract(toid_inspect('nanoflake', toid_new('nanoflake')), '$.generator'),
       json_extract(toid_inspect('ulid-flake-scalable', toid_new('ulid-flake-scalable')), '$.sid'),
       toid_node('uid11-seq'), toid_int('uid11-seq', toid_new('uid11-seq')) & 1023;
SELECT toid_node('uid11-seq', 1000), toid_int('uid11-seq', toid_new_blob('uid11-seq')) & 1023;
-- 10,000 in one statement: unique (ulid) and increasing (nanoflake, computed once)
SELECT count(DISTINCT toid_new('ulid')) FROM generate_series(1, 10000);
WITH ids AS MATERIALIZED (SELECT value AS n, toid_new('nanoflake') AS id FROM generate_series(1, 10000))
SELECT count(*) FROM ids AS x JOIN ids AS y ON y.n = x.n + 1 WHERE y.id <= x.id;
-- toid_node(f, NULL) goes back to the process's node: none of nanoflake yet,
-- so the next ID claims the lowest free one (7 stays this process's)
SELECT toid_node('nanoflake', NULL);
SELECT json_extract(toid_inspect('nanoflake', toid_new('nanoflake')), '$.generator'), toid_node('nanoflake');

-- ==== NULL in, NULL out (the pure functions)
SELECT toid_decode('ulid', NULL), toid_encode('ulid', NULL), toid_unix_ms(NULL, 'x'),
       toid_time('ulid', NULL), toid_min('ulid', NULL), toid_max_blob(NULL, 1),
       toid_inspect('ulid', NULL), toid_int('nanoflake', NULL);
-- ...but a generator refuses a NULL format (a NULL key would slip into a table)
SELECT toid_new(NULL);
SELECT toid_new_blob(NULL);

-- ==== errors: the library's reason, and the position of a bad character
SELECT toid_decode('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAU!');
SELECT toid_decode('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FA!');
SELECT toid_decode('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAI');
SELECT toid_decode('ulid', '8ZZZZZZZZZZZZZZZZZZZZZZZZZ');
SELECT toid_decode('ulid-flake', '8000000000000');
SELECT toid_decode('scru160', '05TTUP1HNCPNH30VEK64KDQT9BSNU4C');
SELECT toid_decode('nanoflake', '1y2p0ij32e8e8');
SELECT toid_decode('nanoflake', '-1');
SELECT toid_decode('uid11', 'jpXCZedGfVR');
SELECT toid_decode('uid11', '0pXCZedGfVQ');
SELECT toid_decode('uuidv7', '017f22e2-79b0-4cc3-98c4-dc0c0c07398f');
SELECT toid_decode('uuidv7', '');
-- malformed blobs: wrong length, overflow, a UUID that is not version 7
SELECT toid_encode('ulid', x'');
SELECT toid_encode('ulid', x'0102');
SELECT toid_encode('scru160', zeroblob(21));
SELECT toid_encode('ulid-flake', x'8000000000000000');
SELECT toid_encode('nanoflake', x'ffffffffffffffff');
SELECT toid_encode('uuidv7', zeroblob(16));
SELECT toid_unix_ms('uid11', randomblob(9));
-- integers: only the 64-bit formats, never negative
SELECT toid_encode('ulid', 5);
SELECT toid_encode('nanoflake', -1);
SELECT toid_encode('uid11', 1.5);
SELECT toid_int('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAV');
SELECT toid_int('uid11', 'jpXCZedGfVQ');
-- formats, nodes, times
SELECT length(toid_new('ULID')), toid_min('UUIDv7', '2024'), toid_max('ulid_flake', '2024-01-01T10');
SELECT toid_decode('snowflake', '1');
SELECT toid_node('ulid', 1);
SELECT toid_node('nanoflake', 1024);
SELECT toid_node('uid11-seq', 1024);
SELECT toid_node('ulid-flake-scalable', 32);
SELECT toid_node('nanoflake', -1);
SELECT toid_node('nanoflake', 'seven');
SELECT toid_min('ulid-flake', '2023-12-31 23:59:59.999');
SELECT toid_max('uid11', '1999-01-01');
SELECT toid_min('ulid', 'yesterday');
SELECT toid_min('ulid', 1.5);
SELECT toid_min('ulid', -1);

-- ==== a table keyed by generated IDs, DEFAULT, an index range query
-- DEFAULT (expr) may call a non-deterministic function: it runs per row.
CREATE TABLE event(id TEXT PRIMARY KEY DEFAULT (toid_new('ulid')), n INTEGER) WITHOUT ROWID;
INSERT INTO event(n) SELECT value FROM generate_series(1, 1000);
SELECT count(*), count(DISTINCT id), min(length(id)), max(length(id)) FROM event;
-- insertion order is ID order
SELECT count(*) FROM event AS x JOIN event AS y ON y.n = x.n + 1 WHERE y.id <= x.id;
-- a time range: every row of now, none of 2020, and the plan searches the primary key
SELECT count(*) FROM event WHERE id BETWEEN toid_min('ulid', datetime('now', '-10 minutes')) AND toid_max('ulid', datetime('now', '+10 minutes'));
SELECT count(*) FROM event WHERE id BETWEEN toid_min('ulid', '2020-01-01') AND toid_max('ulid', '2020-12-31 23:59:59.999');
EXPLAIN QUERY PLAN SELECT n FROM event WHERE id BETWEEN toid_min('ulid', '2024-01-01') AND toid_max('ulid', '2024-01-31');
-- blob keys with the _blob bounds, a secondary index
CREATE TABLE reading(id BLOB NOT NULL DEFAULT (toid_new_blob('uuidv7')), v REAL);
CREATE INDEX reading_id ON reading(id);
INSERT INTO reading(v) SELECT value FROM generate_series(1, 500);
SELECT count(*) FROM reading WHERE id >= toid_min_blob('uuidv7', unixepoch('now', '-10 minutes') * 1000);
-- the trap: a text bound on a blob column (SQLite orders every blob after every text)
SELECT count(*) FROM reading WHERE id >= toid_min_blob('uuidv7', '2099-01-01');
SELECT count(*) FROM reading WHERE id >= toid_min('uuidv7', '2099-01-01');
EXPLAIN QUERY PLAN SELECT v FROM reading WHERE id BETWEEN toid_min_blob('uuidv7', '2024-01-01') AND toid_max_blob('uuidv7', '2024-01-31');
-- the pure functions may index an expression; generators may not be a generated column
CREATE INDEX event_time ON event(toid_unix_ms('ulid', id));
EXPLAIN QUERY PLAN SELECT n FROM event WHERE toid_unix_ms('ulid', id) > 0;
CREATE TABLE bad(id TEXT, t TEXT GENERATED ALWAYS AS (toid_new('ulid')));
-- innocuous: DEFAULT works in a schema that is not trusted
PRAGMA trusted_schema = OFF;
INSERT INTO event(n) VALUES (1001);
SELECT count(*) FROM event;
-- toid_node changes the connection: only from top-level SQL, not a view or trigger
CREATE VIEW set_node AS SELECT toid_node('nanoflake', 3);
SELECT * FROM set_node;
PRAGMA trusted_schema = ON;
SELECT * FROM set_node;

-- ==== IDs at a given time (backfills): toid_new(fmt, time), toid_new_blob(fmt, time)
-- the time is the given ms (text: its first ms); fresh random bits, increasing within a ms
SELECT toid_time('ulid', toid_new('ulid', '2024-01-01 10:00:00.123')),
       toid_unix_ms('uuidv7', toid_new_blob('uuidv7', 1704103200123)),
       toid_time('scru160', toid_new('scru160', '2024-01-01T11:00:00.123+01:00')),
       toid_time('ulid', toid_new('ulid', '2024-01-01')),
       abs(toid_unix_ms('ulid', toid_new('ulid', 'now-1h')) - (unixepoch('now') - 3600) * 1000) < 60000;
WITH ids AS MATERIALIZED (SELECT value AS n, toid_new('ulid', '2020-05-05 05:05:05.555') AS id
                          FROM generate_series(1, 5000))
SELECT count(DISTINCT id), count(DISTINCT toid_unix_ms('ulid', id)),
       (SELECT count(*) FROM ids AS x JOIN ids AS y ON y.n = x.n + 1 WHERE y.id <= x.id) AS out_of_order FROM ids;
-- a backfill: legacy rows sharing milliseconds (and seconds, as CURRENT_TIMESTAMP writes them)
CREATE TABLE legacy(n INTEGER, created_at TEXT);
INSERT INTO legacy SELECT value, strftime('%Y-%m-%d %H:%M:%f', '2019-06-01 12:00:00', '+' || (value / 50) || ' seconds')
  FROM generate_series(1, 20000);
INSERT INTO legacy SELECT 20000 + value, '2019-06-01 13:00:00' FROM generate_series(1, 500);
CREATE TABLE backfilled(id TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID;
INSERT INTO backfilled SELECT toid_new('ulid', created_at), n FROM legacy;
SELECT count(*), count(DISTINCT created_at) FROM legacy;
SELECT count(*), sum(toid_time('ulid', b.id) = l.created_at || CASE WHEN length(l.created_at) = 19 THEN '.000' ELSE '' END)
  FROM backfilled AS b JOIN legacy AS l USING (n);
CREATE TABLE backfilled7(id BLOB PRIMARY KEY, n INTEGER);
INSERT INTO backfilled7 SELECT toid_new_blob('uuidv7', created_at), n FROM legacy ORDER BY random();
SELECT count(*), count(DISTINCT id) FROM backfilled7;
-- refused: the node formats and those with few random bits, saying why and what to use
SELECT toid_new('nanoflake', '2024-01-01');
SELECT toid_new('ulid-flake-scalable', 1704067200000);
SELECT toid_new('uid11-seq', 'now');
SELECT toid_new_blob('ulid-flake', 'now');
SELECT toid_new('uid11', 'now');
SELECT toid_new('ulid', NULL);
SELECT toid_new(NULL, 1);
SELECT toid_new('ulid', '1969-12-31 23:59:59.999');
SELECT toid_new('ulid', 'yesterday');

-- ==== any UUID: toid_uuid_inspect (text in any form, or a 16-byte blob)
SELECT toid_uuid_inspect('c232ab00-9414-11ec-b3c8-9f6bdeced846');
SELECT toid_uuid_inspect('{1EC9414C-232A-6B00-B3C8-9F6BDECED846}');
SELECT toid_uuid_inspect(x'017f22e279b07cc398c4dc0c0c07398f');
SELECT toid_uuid_inspect('urn:uuid:919108f7-52d1-4320-9bac-f847db4148a8');
SELECT toid_uuid_inspect('2489e9ad2ee28e008ec932d5f69181c0');
SELECT json_extract(toid_uuid_inspect(u), '$.version'), json_extract(toid_uuid_inspect(u), '$.variant'),
       json_extract(toid_uuid_inspect(u), '$.unix_ms')
  FROM (SELECT '00000000-0000-0000-0000-000000000000' AS u UNION ALL SELECT 'ffffffff-ffff-ffff-ffff-ffffffffffff'
        UNION ALL SELECT 'c232ab00-9414-11ec-33c8-9f6bdeced846' UNION ALL SELECT 'c232ab00-9414-11ec-d3c8-9f6bdeced846'
        UNION ALL SELECT 'c232ab00-9414-11ec-f3c8-9f6bdeced846' UNION ALL SELECT '00000000-0000-1000-8000-000000000000');
SELECT toid_uuid_inspect(NULL);
SELECT toid_uuid_inspect('c232ab00-9414-11ec-b3c8-9f6bdeced84');
SELECT toid_uuid_inspect('c232ab00-9414-11ec-b3c8-9f6bdeced84g');
SELECT toid_uuid_inspect(x'0102');
SELECT toid_uuid_inspect(1.5);

-- ==== the bounds of a time are not deterministic ('now' moves): searched
-- from the index all the same, refused where a stale bound would be kept
SELECT count(*) FROM backfilled WHERE id BETWEEN toid_min('ulid', '2019-06-01') AND toid_max('ulid', '2019-06-01');
EXPLAIN QUERY PLAN SELECT n FROM backfilled WHERE id BETWEEN toid_min('ulid', 'now-1h') AND toid_max('ulid', 'now');
CREATE INDEX recent ON backfilled(id) WHERE id > toid_min('ulid', 'now-1d');
