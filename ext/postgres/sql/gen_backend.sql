-- Generation without shared_preload_libraries: per-backend generators, one
-- NOTICE per backend, node formats refused.
SET TIME ZONE 'UTC';
CREATE EXTENSION toid;
SELECT ulid_new() IS NOT NULL AS ulid;         -- the NOTICE, once
SELECT uuidv7_new() IS NOT NULL AS uuidv7;     -- no second NOTICE
SELECT count(DISTINCT id) FROM (SELECT scru160_new() id FROM generate_series(1, 10000)) s;
SELECT count(*) FILTER (WHERE id <= prev) AS out_of_order FROM
  (SELECT id, lag(id) OVER (ORDER BY n) prev FROM (SELECT n, ulid_new() id FROM generate_series(1, 10000) n) a) s;
-- node formats: refused, whatever toid.node says
CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || SQLERRM;
END $$;
SHOW toid.node;
SELECT try('SELECT nanoflake_new()');
SELECT try('SELECT ulid_flake_scalable_new()');
-- the others work
SELECT ulid_flake_new() IS NOT NULL, uid11_new() IS NOT NULL, uid11_seq_new() IS NOT NULL;
