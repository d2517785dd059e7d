-- One time model: a text names a span (the library's reading: x_min its
-- first ms, x_max its last), a date is its day (in the session's TimeZone),
-- a timestamptz is one instant; the index answers all three.
SET TIME ZONE 'UTC';

-- an untyped literal picks the text overload (text is the preferred type of
-- the string category, over date and timestamptz)
SELECT ulid_max('2024-01-01') = ulid_max('2024-01-01'::text) AS literal_is_text,
       ulid_max('2024-01-01') <> ulid_max('2024-01-01'::timestamptz) AS not_the_instant;
SELECT ulid_time(ulid_min('2024-01-01')) AS day_min, ulid_time(ulid_max('2024-01-01')) AS day_max;
-- every precision names its span: a year, a month, an hour, a second, a ms
SELECT t, ulid_time(ulid_min(t)) AS first, ulid_time(ulid_max(t)) AS last FROM (VALUES
  ('2024'), ('2024-02'), ('2024-01-01T10'), ('2024-01-01 10:30:00'), ('2024-01-01 10:30:00.250'),
  ('2024-01-01T10:30:00+02:00'), ('@1704067200'), ('1704067200000'), ('1704067200000ms')) x(t);
-- every format, the whole day
SELECT uuidv7_time(uuidv7_max('2024-01-01')) AS uuidv7, scru160_time(scru160_max('2024-01-01')) AS scru160,
       nanoflake_time(nanoflake_max('2024-01-01')) AS nanoflake, uid11_time(uid11_max('2024-01-01')) AS uid11,
       ulid_flake_time(ulid_flake_max('2024-01-01')) AS ulid_flake,
       ulid_flake_scalable_time(ulid_flake_scalable_max('2024-01-01')) AS scalable,
       uid11_seq_time(uid11_seq_max('2024-01-01')) AS uid11_seq;
-- relative texts are instants; 'now' is the transaction's start, as now()
SELECT ulid_time(ulid_min('now')) = date_trunc('milliseconds', now()) AS now_is_now,
       ulid_min('now') = ulid_min(now()) AND ulid_max('now') = ulid_max(now()) AS now_is_an_instant,
       ulid_time(ulid_min('now-1h')) = date_trunc('milliseconds', now() - interval '1 hour') AS an_hour_ago,
       ulid_time(ulid_max('-15m')) = date_trunc('milliseconds', now() - interval '15 minutes') AS minus_15m,
       ulid_time(ulid_min('+2d')) = date_trunc('milliseconds', now() + interval '2 days') AS plus_2d;
-- a timestamptz is one instant: the ms that holds it, whatever the literal says
SELECT ulid_time(ulid_max('2024-01-01'::timestamptz)) AS instant_max,
       ulid_time(ulid_max(timestamptz '2024-01-01 10:30:00.2509+00')) AS sub_ms;
-- a timestamp without zone goes through timestamptz (an instant), a varchar through text
SELECT ulid_min('2024-01-01 10:00'::timestamp) = ulid_min('2024-01-01T10:00Z') AS timestamp_instant,
       ulid_max('2024-01-01'::varchar) = ulid_max('2024-01-01') AS varchar_span;

-- a date is its day; in the session's TimeZone, as PostgreSQL casts a date
SELECT ulid_time(ulid_min(date '2024-01-31')) AS date_min, ulid_time(ulid_max(date '2024-01-31')) AS date_max,
       ulid_min(date '2024-01-31') = ulid_min('2024-01-31') AND ulid_max(date '2024-01-31') = ulid_max('2024-01-31')
         AS utc_date_is_the_text;
SET TIME ZONE 'Europe/Berlin';
SELECT ulid_time(ulid_min(date '2024-01-31')) AS berlin_min, ulid_time(ulid_max(date '2024-01-31')) AS berlin_max,
       ulid_min(date '2024-01-31') = ulid_min(date '2024-01-31'::timestamptz) AS min_is_the_cast,
       ulid_time(ulid_max('2024-01-31')) AS text_stays_utc;
-- the day the clocks go forward has 23 hours
SELECT ulid_time(ulid_max(date '2024-03-31')) - ulid_time(ulid_min(date '2024-03-31')) AS dst_day;
SET TIME ZONE 'UTC';

-- the range query of the issue: all of 31 January, from the index
CREATE TABLE spans (id ulid PRIMARY KEY, at timestamptz);
INSERT INTO spans SELECT ulid_make(jsonb_build_object('unix_ms', (extract(epoch FROM t) * 1000)::bigint,
                                                      'random', lpad(to_hex(g), 20, '0'))), t
FROM generate_series(1, 64 * 24) g, LATERAL (SELECT timestamptz '2023-12-31 00:30+00' + g * interval '1 hour') x(t);
ANALYZE spans;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM spans WHERE id BETWEEN ulid_min('2024-01-01') AND ulid_max('2024-01-31');
SELECT count(*) AS january, count(*) FILTER (WHERE at >= '2024-01-31') AS on_31st FROM spans
WHERE id BETWEEN ulid_min('2024-01-01') AND ulid_max('2024-01-31');
SELECT count(*) = (SELECT count(*) FROM spans WHERE at >= '2024-01-01' AND at < '2024-02-01') AS same_as_by_time
FROM spans WHERE id BETWEEN ulid_min('2024-01') AND ulid_max('2024-01');
SELECT count(*) AS by_dates FROM spans WHERE id BETWEEN ulid_min(date '2024-01-01') AND ulid_max(date '2024-01-31');
-- the old trap, still there for instants: ends at 31 January's first ms
SELECT count(*) AS by_instants FROM spans
WHERE id BETWEEN ulid_min('2024-01-01'::timestamptz) AND ulid_max('2024-01-31'::timestamptz);
-- a prepared statement's untyped parameter is text too
PREPARE by_day(unknown) AS SELECT count(*) FROM spans WHERE id BETWEEN ulid_min($1) AND ulid_max($1);
EXECUTE by_day('2024-01-31');
DEALLOCATE by_day;

-- errors: a text toid does not read names the forms and the cast
CREATE OR REPLACE FUNCTION try_hint(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text; h text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
    RETURN SQLSTATE || ' ' || SQLERRM || coalesce(' | ' || nullif(d, ''), '') || coalesce(' | ' || nullif(h, ''), '');
END $$;
SELECT try_hint($$SELECT ulid_min('yesterday')$$);
SELECT try_hint($$SELECT ulid_max('')$$);
SELECT try_hint($$SELECT ulid_max('2024-13-01')$$);
SELECT try_hint($$SELECT ulid_min('yesterday'::timestamptz)$$) AS cast_works;
SELECT try_hint($$SELECT ulid_max('1969-12-31')$$);
SELECT try_hint($$SELECT ulid_flake_min('2023')$$);
SELECT try_hint($$SELECT ulid_min('infinity'::date)$$);
SELECT try_hint($$SELECT ulid_max('infinity'::date)$$);
SELECT ulid_min(NULL::text) IS NULL AND ulid_max(NULL::date) IS NULL AS strict;
