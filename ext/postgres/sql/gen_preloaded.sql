-- Generation with toid in shared_preload_libraries and toid.node = 7:
-- one generator per format in shared memory, used by every backend.
SET TIME ZONE 'UTC';
SHOW toid.node;

-- every format generates, strictly increasing within a statement (uid11's
-- order within a ms is random by its spec: only distinct)
CREATE TABLE g AS SELECT n, ulid_new() a, scru160_new() b, ulid_flake_new() c, ulid_flake_scalable_new() d,
       nanoflake_new() e, uid11_new() f, uid11_seq_new() h, uuidv7_new() i
FROM generate_series(1, 20000) n;
SELECT count(*) FILTER (WHERE a <= pa) AS ulid, count(*) FILTER (WHERE b <= pb) AS scru160,
       count(*) FILTER (WHERE c <= pc) AS ulid_flake, count(*) FILTER (WHERE d <= pd) AS scalable,
       count(*) FILTER (WHERE e <= pe) AS nanoflake, count(*) FILTER (WHERE h <= ph) AS uid11_seq,
       count(*) FILTER (WHERE i <= pi) AS uuidv7
FROM (SELECT *, lag(a) OVER w pa, lag(b) OVER w pb, lag(c) OVER w pc, lag(d) OVER w pd, lag(e) OVER w pe,
             lag(h) OVER w ph, lag(i) OVER w pi FROM g WINDOW w AS (ORDER BY n)) s;
SELECT count(DISTINCT f) = 20000 AS uid11_distinct FROM g;
-- IDs carry the current time and the node
SELECT bool_and(abs(extract(epoch FROM ulid_time(a) - now())) < 3600) AS recent FROM g;
SELECT DISTINCT nanoflake_inspect(e)->>'generator' AS generator, ulid_flake_scalable_inspect(d)->>'sid' AS sid FROM g;
SELECT uuidv7_inspect(uuidv7_new())->>'format' AS format;

-- usable as a column DEFAULT
CREATE TABLE d (id ulid PRIMARY KEY DEFAULT ulid_new(), u uuid DEFAULT uuidv7_new(), v text);
INSERT INTO d (v) VALUES ('a'), ('b'), ('c');
SELECT count(DISTINCT id), bool_and(u IS NOT NULL) FROM d;

-- monotonic across backends: a, then b from another backend, then c
CREATE EXTENSION dblink;
SELECT dblink_connect('other', format('host=%s port=%s dbname=%s user=%s',
    current_setting('unix_socket_directories'), current_setting('port'), current_database(), current_user));
CREATE TABLE x (n int, id ulid, nf nanoflake, u7 uuid, backend int);
DO $$
BEGIN
  FOR i IN 1..50 LOOP
    INSERT INTO x VALUES (3 * i, ulid_new(), nanoflake_new(), uuidv7_new(), pg_backend_pid());
    INSERT INTO x SELECT 3 * i + 1, a::ulid, b::nanoflake, c::uuid, p FROM dblink('other',
        'SELECT ulid_new()::text, nanoflake_new()::text, uuidv7_new()::text, pg_backend_pid()') AS t(a text, b text, c text, p int);
    INSERT INTO x VALUES (3 * i + 2, ulid_new(), nanoflake_new(), uuidv7_new(), pg_backend_pid());
  END LOOP;
END $$;
SELECT count(DISTINCT backend) AS backends,
       count(*) FILTER (WHERE id <= pid) AS ulid_out_of_order, count(*) FILTER (WHERE nf <= pnf) AS nanoflake_out_of_order,
       count(*) FILTER (WHERE u7 <= pu7) AS uuidv7_out_of_order
FROM (SELECT *, lag(id) OVER w pid, lag(nf) OVER w pnf, lag(u7) OVER w pu7 FROM x WINDOW w AS (ORDER BY n)) s;
-- IDs at a given time from two backends, all in one ms: unique by their
-- random bits (each backend's own at-time generator, not the shared one)
CREATE TABLE at2 (id ulid, u uuid, s scru160, backend int);
INSERT INTO at2 SELECT ulid_new(t), uuidv7_new(t), scru160_new(t), pg_backend_pid()
FROM generate_series(1, 5000), (VALUES (timestamptz '2022-02-02 02:02:02.222+00')) x(t);
INSERT INTO at2 SELECT a::ulid, b::uuid, c::scru160, p FROM dblink('other', $$SELECT ulid_new(t)::text,
    uuidv7_new(t)::text, scru160_new(t)::text, pg_backend_pid() FROM generate_series(1, 5000),
    (VALUES (timestamptz '2022-02-02 02:02:02.222+00')) x(t)$$) AS r(a text, b text, c text, p int);
SELECT count(DISTINCT backend) AS backends, count(DISTINCT id) AS ulids, count(DISTINCT u) AS uuidv7s,
       count(DISTINCT s) AS scru160s, count(DISTINCT ulid_time(id)) AS one_ms FROM at2;
SELECT dblink_disconnect('other');

-- parallel plans: generation stays in the leader (PARALLEL RESTRICTED)
CREATE TABLE p AS SELECT g FROM generate_series(1, 100000) g;
ANALYZE p;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF, VERBOSE) SELECT ulid_new(), g FROM p WHERE g % 2 = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM p WHERE ulid_time(ulid_min(to_timestamp(g))) > now();
SELECT count(DISTINCT id) FROM (SELECT ulid_new() id FROM p WHERE g % 2 = 0) s;
RESET ALL;
