-- time, min/max (BETWEEN uses the index), inspect, make, parse.
SET TIME ZONE 'UTC';

SELECT ulid_time('01ARZ3NDEKTSV4RRFFQ69G5FAV'), scru160_time('05TTUP1HNCPNH30VEK64KDQT9BSNU4C4'),
       ulid_flake_time('00CMXB6TAK4SA'), ulid_flake_scalable_time('7ZZZZZZZZZZZZ');
SELECT nanoflake_time('1y2p0ij32e8e7'), uid11_time('jpXCZedGfVQ'), uid11_seq_time('1111111NVpb'),
       uuidv7_time('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');

-- the smallest and largest ID of an instant's millisecond
SELECT ulid_min(timestamptz '2016-07-30 23:54:10.259+00'), ulid_max(timestamptz '2016-07-30 23:54:10.259+00');
SELECT uuidv7_min(timestamptz '2022-02-22 19:22:22+00'), uuidv7_max(timestamptz '2022-02-22 19:22:22+00');
SELECT scru160_min(timestamptz '2021-09-13 13:41:30.683+00'), scru160_max(timestamptz '2021-09-13 13:41:30.683+00');
SELECT nanoflake_min(timestamptz '2024-01-01 00:00:01+00'), nanoflake_max(timestamptz '2024-01-01 00:00:01+00');
SELECT ulid_flake_min(timestamptz '2024-06-06 06:06:06.666+00'), ulid_flake_scalable_max(timestamptz '2024-06-06 06:06:06.666+00');
SELECT uid11_min(timestamptz '2011-11-11 11:11:11.112+00'), uid11_seq_max(timestamptz '2011-11-11 11:11:11.112+00');
-- sub-millisecond instants fall in their millisecond; before 1970 is out of range for ulid
SELECT ulid_min(timestamptz '2016-07-30 23:54:10.2599+00') = ulid_min(timestamptz '2016-07-30 23:54:10.259+00') AS floor_ms;
SELECT ulid_time(ulid_max(timestamptz '2016-07-30 23:54:10.259+00')) = '2016-07-30 23:54:10.259+00' AS max_in_ms;

-- a time range answered from the index: the bounds of instants fold to constants
-- (a text names a span, read when the statement runs: time_spans)
CREATE TABLE events (id ulid PRIMARY KEY, n int);
INSERT INTO events SELECT ulid_make(jsonb_build_object('unix_ms', 1700000000000 + g * 1000, 'random', lpad(to_hex(g), 20, '0'))), g
FROM generate_series(1, 10000) g;
ANALYZE events;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events WHERE id BETWEEN ulid_min(timestamptz '2023-11-14 22:20:00+00') AND ulid_max(timestamptz '2023-11-14 22:29:59.999+00');
SELECT count(*), min(n), max(n) FROM events
WHERE id BETWEEN ulid_min(timestamptz '2023-11-14 22:20:00+00') AND ulid_max(timestamptz '2023-11-14 22:29:59.999+00');
-- the same for a uuidv7 column on the core uuid type
CREATE TABLE events7 (id uuid PRIMARY KEY, n int);
INSERT INTO events7 SELECT uuidv7_make(jsonb_build_object('unix_ms', 1700000000000 + g * 1000)), g FROM generate_series(1, 10000) g;
ANALYZE events7;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events7 WHERE id BETWEEN uuidv7_min(timestamptz '2023-11-14 22:20:00+00') AND uuidv7_max(timestamptz '2023-11-14 22:29:59.999+00');
SELECT count(*) FROM events7 WHERE id BETWEEN uuidv7_min(timestamptz '2023-11-14 22:20:00+00') AND uuidv7_max(timestamptz '2023-11-14 22:29:59.999+00');
-- and a bigint-like type
CREATE TABLE events_nf (id nanoflake PRIMARY KEY);
INSERT INTO events_nf SELECT nanoflake_make(jsonb_build_object('unix_ms', 1704067200000 + g * 1000, 'sequence', g % 4096)) FROM generate_series(1, 10000) g;
ANALYZE events_nf;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events_nf WHERE id BETWEEN nanoflake_min(timestamptz '2024-01-01 01:00:00+00') AND nanoflake_max(timestamptz '2024-01-01 01:59:59.999+00');
SELECT count(*) FROM events_nf WHERE id BETWEEN nanoflake_min(timestamptz '2024-01-01 01:00:00+00') AND nanoflake_max(timestamptz '2024-01-01 01:59:59.999+00');

-- inspect
SELECT ulid_inspect('01ARZ3NDEKTSV4RRFFQ69G5FAV');
SELECT scru160_inspect('05TTUP1HNCPNH30VEK64KDQT9BSNU4C4');
SELECT ulid_flake_scalable_inspect('00CMXB6TAK4SA');
SELECT nanoflake_inspect('1y2p0ij32e8e7');
SELECT uid11_inspect('jpXCZedGfVQ');
SELECT uid11_seq_inspect('111111111Jf');
SELECT uuidv7_inspect('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');

-- make from fields, and back
SELECT ulid_make('{"unix_ms": 1469922850259, "random": "d6764c61efb99302bd5b"}');
SELECT ulid_make('{"time": "2016-07-30T23:54:10.259Z", "random": "d6764c61efb99302bd5b"}');
SELECT ulid_flake_scalable_make('{"unix_ms": 1717653966666, "random": 19609, "sid": 10}');
SELECT nanoflake_make('{"ts": 1000, "generator": 1}');
SELECT uid11_make('{"int": "18446744073709551615"}');
SELECT scru160_make('{"unix_ms": 1631540490683, "counter": 13176, "random16": 35871, "random80": "552743587270292125192580"}');
SELECT uuidv7_make('{"hex": "017f22e279b07cc398c4dc0c0c07398f"}');
SELECT bool_and(ulid_make(ulid_inspect(id) - 'format' - 'text' - 'time' - 'hex') = id) AS round_trip FROM events;

-- parse text of any format (the format detected)
SELECT v, toid_parse(v)->>'format' AS format, toid_parse(v)->>'time' AS time FROM (VALUES
  ('01ARZ3NDEKTSV4RRFFQ69G5FAV'), ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'),
  ('05TTUP1HNCPNH30VEK64KDQT9BSNU4C4'), ('jpXCZedGfVQ'), ('00CMXB6TAK4SA'), ('0000001xd6ku8')) x(v);
