-- IDs at a given time (backfills): x_new(timestamptz) for the formats whose
-- IDs are unique by their random bits (ulid, scru160, uuidv7); the others
-- refuse, saying why and what to use.
SET TIME ZONE 'UTC';
SET client_min_messages = warning;   -- (the NOTICE of a backend's own generators, not preloaded)

-- the time is the instant's ms; successive IDs of one ms increase
SELECT ulid_time(ulid_new('2024-01-01 10:00:00.1239+00')) AS ulid,
       uuidv7_time(uuidv7_new('2024-01-01 10:00:00.1239+00')) AS uuidv7,
       scru160_time(scru160_new('2024-01-01 10:00:00.1239+00')) AS scru160;
SELECT count(*) FILTER (WHERE a <= pa) AS ulid_back, count(*) FILTER (WHERE b <= pb) AS uuidv7_back,
       count(*) FILTER (WHERE c <= pc) AS scru160_back, count(DISTINCT a) AS distinct_ulids
FROM (SELECT *, lag(a) OVER w pa, lag(b) OVER w pb, lag(c) OVER w pc FROM
        (SELECT g, ulid_new(t) a, uuidv7_new(t) b, scru160_new(t) c
         FROM generate_series(1, 5000) g, (VALUES (timestamptz '2020-05-05 05:05:05.555+00')) x(t)) s
      WINDOW w AS (ORDER BY g)) s;
-- the time going back starts afresh: still unique, still the given time
SELECT count(DISTINCT id) AS distinct_ids, bool_and(ulid_time(id) = date_trunc('milliseconds', t)) AS times
FROM (SELECT ulid_new(t) id, t FROM generate_series(1, 3000) g,
      LATERAL (SELECT timestamptz '2021-01-01 00:00+00' + (g % 3) * interval '1 ms' * (1 - 2 * (g % 2))) x(t)) s;

-- the backfill of README: legacy rows, many sharing a millisecond (and some
-- the same instant to the microsecond), into a table keyed by ulid
CREATE TABLE legacy (n int, created_at timestamptz, kind text);
INSERT INTO legacy SELECT g, timestamptz '2019-06-01 12:00+00' + (g / 50) * interval '1 ms' + (g % 7) * interval '1 us',
       'import' FROM generate_series(1, 20000) g;
CREATE TABLE events (id ulid PRIMARY KEY DEFAULT ulid_new(), kind text NOT NULL);
INSERT INTO events (id, kind) SELECT ulid_new(created_at), kind FROM legacy ORDER BY created_at;
SELECT count(*) AS rows, count(DISTINCT date_trunc('milliseconds', created_at)) AS distinct_ms FROM legacy;
SELECT count(*) AS ids, count(*) FILTER (WHERE ulid_time(id) = date_trunc('milliseconds', t)) AS time_is_the_rows
FROM (SELECT ulid_new(created_at) id, created_at t FROM legacy) s;
SELECT count(*) AS inserted, min(ulid_time(id)) AS first, max(ulid_time(id)) AS last FROM events;
-- the same for uuidv7 and scru160 keys, in the table's order of rows
CREATE TABLE events7 (id uuid PRIMARY KEY, n int);
INSERT INTO events7 SELECT uuidv7_new(created_at), n FROM legacy;
CREATE TABLE events160 (id scru160 PRIMARY KEY, n int);
INSERT INTO events160 SELECT scru160_new(created_at), n FROM legacy;
SELECT count(*) FILTER (WHERE uuidv7_time(e.id) = date_trunc('milliseconds', l.created_at)) AS uuidv7_times
FROM events7 e JOIN legacy l USING (n);
SELECT count(*) FILTER (WHERE scru160_time(e.id) = date_trunc('milliseconds', l.created_at)) AS scru160_times
FROM events160 e JOIN legacy l USING (n);
-- live IDs go on beside them (not ordered against them: another stream)
INSERT INTO events (kind) VALUES ('live');
SELECT kind, ulid_time(id) > now() - interval '1 hour' AS recent FROM events WHERE kind = 'live';

-- refused formats: why, and what to use
CREATE OR REPLACE FUNCTION try_hint(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text; h text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
    RETURN SQLSTATE || ' ' || SQLERRM || coalesce(' | ' || nullif(d, ''), '') || coalesce(' | ' || nullif(h, ''), '');
END $$;
SELECT f, try_hint(format('SELECT %s_new(now())', f)) FROM (VALUES
  ('nanoflake'), ('ulid_flake_scalable'), ('uid11_seq'), ('ulid_flake'), ('uid11')) x(f);
-- times the format cannot hold, no time, NULL
SELECT try_hint($$SELECT ulid_new('1969-12-31 23:59:59.999+00')$$);
SELECT try_hint($$SELECT uuidv7_new('infinity')$$);
SELECT ulid_new(NULL) IS NULL AS strict;
