-- Operators, ordering, btree and hash opclasses, joins.
SET TIME ZONE 'UTC';

-- uid11 is compared unsigned: values above 2^63 sort after those below
-- (as int8 they would be negative and sort first)
CREATE TABLE u (v uid11);
INSERT INTO u VALUES ('jpXCZedGfVQ'), ('11111111111'), ('113q8KFkAEs'),
    (uid11_make('{"int": "9223372036854775807"}')), (uid11_make('{"int": "9223372036854775808"}'));
SELECT v AS id, v::bytea AS bin, uid11_inspect(v)->>'int' AS int FROM u ORDER BY 1;
SELECT uid11_make('{"int": "9223372036854775807"}') < uid11_make('{"int": "9223372036854775808"}') AS lt,
       'jpXCZedGfVQ'::uid11 > '11111111111'::uid11 AS gt;
CREATE INDEX ON u (v);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT v FROM u WHERE v > uid11_make('{"int": "9223372036854775807"}') ORDER BY v;
SELECT v FROM u WHERE v > uid11_make('{"int": "9223372036854775807"}') ORDER BY v;
RESET enable_seqscan;

-- every operator, every type (a < b)
SELECT t, a < b AS lt, a <= b AS le, a = b AS eq, a <> b AS ne, a >= b AS ge, a > b AS gt,
       a = a AS self_eq
FROM (VALUES
  ('ulid', '01AN4Z07BY79KA1307SR9X4MV3'::ulid::text, '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::text)) x(t, a0, b0),
LATERAL (SELECT a0::ulid a, b0::ulid b) y;
SELECT '05TTUP1HNCPNH30VEK64KDQT9BSNU4C4'::scru160 < '05TTUP1HNCPNIB63R8IN5V2L3VFGNFET' AS scru160_lt,
       '0000000000000'::ulid_flake < '00CMXB6TAK4SA' AS ulid_flake_lt,
       '00CMXB6TAK4SA'::ulid_flake_scalable >= '7ZZZZZZZZZZZZ' AS scalable_ge,
       '0000001xd6ku8'::nanoflake <> '1y2p0ij32e8e7' AS nanoflake_ne,
       '111111111Jf'::uid11_seq <= '1111111NVpb' AS uid11_seq_le;

-- commutators and negators are declared
SELECT o.oprname, c.oprname AS commutator, n.oprname AS negator, o.oprcanhash, o.oprcanmerge,
       o.oprrest, o.oprjoin
FROM pg_operator o LEFT JOIN pg_operator c ON c.oid = o.oprcom LEFT JOIN pg_operator n ON n.oid = o.oprnegate
WHERE o.oprleft = 'ulid'::regtype ORDER BY o.oprname;
-- btree and hash opclasses for every type
SELECT opcintype::regtype, array_agg(amname ORDER BY amname)
FROM pg_opclass JOIN pg_am ON pg_am.oid = opcmethod
WHERE opcintype::regtype::text IN ('ulid', 'scru160', 'ulid_flake', 'ulid_flake_scalable', 'nanoflake', 'uid11', 'uid11_seq')
GROUP BY 1 ORDER BY 1::text;

-- joins: hash, merge, nested loop with index give the same answer
CREATE TABLE l AS SELECT ulid_make(jsonb_build_object('unix_ms', 1700000000000 + g, 'random', lpad(to_hex(g), 20, '0'))) AS id,
                          nanoflake_make(jsonb_build_object('unix_ms', 1704067200000 + g)) AS nf,
                          g FROM generate_series(1, 2000) g;
CREATE TABLE r AS SELECT id, nf, g FROM l WHERE g % 3 = 0;
ANALYZE l;
ANALYZE r;
SET enable_mergejoin = off; SET enable_nestloop = off; SET enable_hashjoin = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM l JOIN r USING (id);
SELECT count(*) FROM l JOIN r USING (id);
SELECT count(*) FROM l JOIN r USING (nf);
SET enable_hashjoin = off; SET enable_mergejoin = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM l JOIN r USING (id);
SELECT count(*) FROM l JOIN r USING (id);
SELECT count(*) FROM l JOIN r USING (nf);
RESET enable_mergejoin; RESET enable_nestloop; RESET enable_hashjoin;
-- hash index, hash aggregate, DISTINCT through sorting
CREATE INDEX l_hash ON l USING hash (id);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT g FROM l WHERE id = ulid_make('{"unix_ms": 1700000000042, "random": "0000000000000000002a"}');
SELECT g FROM l WHERE id = ulid_make('{"unix_ms": 1700000000042, "random": "0000000000000000002a"}');
RESET enable_seqscan;
SET enable_sort = off;
SELECT count(*) FROM (SELECT DISTINCT id FROM (SELECT id FROM l UNION ALL SELECT id FROM r) s) d;
RESET enable_sort;
SET enable_hashagg = off;
SELECT count(*) FROM (SELECT DISTINCT id FROM (SELECT id FROM l UNION ALL SELECT id FROM r) s) d;
RESET enable_hashagg;
-- a btree index sorts as the values do
CREATE INDEX l_btree ON l (id);
SELECT bool_and(a.g < b.g) AS index_order_is_time_order
FROM (SELECT g, row_number() OVER (ORDER BY id) n FROM l) a JOIN (SELECT g, row_number() OVER (ORDER BY id) n FROM l) b ON b.n = a.n + 1;
