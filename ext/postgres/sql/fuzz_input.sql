-- Random and mutated input through every type's text and bytea input (fixed
-- seed, so the counts are stable): each is accepted or refused with 22P02 /
-- 22P03, and what is accepted prints back canonically and reads back equal.
SET TIME ZONE 'UTC';
SELECT setseed(0.25);
CREATE FUNCTION sqlstate_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
CREATE TABLE seeds (t text, v text);
INSERT INTO seeds VALUES ('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAV'), ('scru160', '05TTUP1HNCPNH30VEK64KDQT9BSNU4C4'),
  ('scru160', '017bdf6431bb33750751eb63beb3c3f8c5969d86'), ('ulid_flake', '00CMXB6TAK4SA'),
  ('ulid_flake_scalable', '7ZZZZZZZZZZZZ'), ('nanoflake', '1y2p0ij32e8e7'), ('uid11', 'jpXCZedGfVQ'),
  ('uid11_seq', '1111111NVpb');
-- mutations: one byte of a valid text replaced, deleted or inserted
CREATE TABLE cases AS
SELECT t, CASE op WHEN 0 THEN overlay(v PLACING c FROM p FOR 1)
                  WHEN 1 THEN overlay(v PLACING '' FROM p FOR 1)
                  ELSE overlay(v PLACING c FROM p FOR 0) END AS v
FROM seeds, generate_series(1, 400) i,
LATERAL (SELECT (random() * 2)::int AS op, 1 + (random() * (length(v) - 1))::int AS p,
                substr('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_ .~', 1 + (random() * 67)::int, 1) AS c) m;
-- and random strings of 0..45 symbols
INSERT INTO cases
SELECT t, (SELECT string_agg(substr('0123456789abcdefghjkmnpqrstvwxyzABCDEFGHJKMNPQRSTVWXYZ', 1 + (random() * 53)::int, 1), '')
           FROM generate_series(1, (random() * 45)::int + i * 0))
FROM (SELECT DISTINCT t FROM seeds) s, generate_series(1, 300) i;
SELECT t, sqlstate_of(format('SELECT %L::%s', v, t)) AS result, count(*)
FROM cases GROUP BY 1, 2 ORDER BY 1, 2;
-- whatever is accepted: text out is canonical and reads back to the same value
SELECT t, count(*) AS accepted,
       count(*) FILTER (WHERE sqlstate_of(format('SELECT 1 WHERE %L::%s::text::%s = %L::%s', v, t, t, v, t)) = 'ok') AS round_trip
FROM cases WHERE sqlstate_of(format('SELECT %L::%s', v, t)) = 'ok' GROUP BY 1 ORDER BY 1;
-- random bytes of the right length and of wrong lengths through bytea input
SELECT t, sqlstate_of(format('SELECT %L::bytea::%s', b, t)) AS result, count(*)
FROM (SELECT DISTINCT t FROM seeds) s, generate_series(1, 200) i,
LATERAL (SELECT ('\x' || (SELECT string_agg(lpad(to_hex((random() * 255)::int), 2, '0'), '')
                          FROM generate_series(1, CASE WHEN i % 4 = 0 THEN (random() * 24)::int
                                                       WHEN t = 'ulid' THEN 16 WHEN t = 'scru160' THEN 20 ELSE 8 END)))::bytea AS b) r
GROUP BY 1, 2 ORDER BY 1, 2;
