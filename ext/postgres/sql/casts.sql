-- Casts: explicit or assignment, never implicit; literals resolve without
-- "operator is not unique".
SET TIME ZONE 'UTC';

-- no implicit cast from or to any toid type
SELECT castsource::regtype, casttarget::regtype, castcontext, castmethod
FROM pg_cast
WHERE castsource::regtype::text IN ('ulid', 'scru160', 'ulid_flake', 'ulid_flake_scalable', 'nanoflake', 'uid11', 'uid11_seq')
   OR casttarget::regtype::text IN ('ulid', 'scru160', 'ulid_flake', 'ulid_flake_scalable', 'nanoflake', 'uid11', 'uid11_seq')
ORDER BY 1::text, 2::text;

-- an untyped literal takes the column's type: no ambiguity
CREATE TABLE c (id ulid, nf nanoflake, u uid11);
INSERT INTO c VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV', '0000001xd6ku8', 'jpXCZedGfVQ');
SELECT count(*) FROM c WHERE id = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
SELECT count(*) FROM c WHERE '01ARZ3NDEKTSV4RRFFQ69G5FAV' = id;
SELECT count(*) FROM c WHERE nf = '0000001xd6ku8' AND u = 'jpXCZedGfVQ';
SELECT count(*) FROM c WHERE id IN ('01ARZ3NDEKTSV4RRFFQ69G5FAV', '01AN4Z07BY79KA1307SR9X4MV3');
-- a text value is not silently converted (no implicit cast): the error is
-- "operator does not exist", never "operator is not unique"
SELECT count(*) FROM c WHERE id = '01ARZ3NDEKTSV4RRFFQ69G5FAV'::text;
SELECT count(*) FROM c WHERE nf = 4194308096;
-- explicit casts
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::uuid, '01563e3a-b5d3-d676-4c61-efb99302bd5b'::uuid::ulid;
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::bytea, '\x01563e3ab5d3d6764c61efb99302bd5b'::bytea::ulid;
SELECT '05TTUP1HNCPNH30VEK64KDQT9BSNU4C4'::scru160::bytea::scru160;
SELECT '0000001xd6ku8'::nanoflake::bigint, 4194308096::bigint::nanoflake;
SELECT '00CMXB6TAK4SA'::ulid_flake::bigint, 14246757444195114::bigint::ulid_flake_scalable;
SELECT 'jpXCZedGfVQ'::uid11::bytea, '\xffffffffffffffff'::bytea::uid11;
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::text, 'jpXCZedGfVQ'::text::uid11;
-- assignment: a uuid into a ulid column, a bigint into a nanoflake column
INSERT INTO c (id, nf) VALUES ('01563e3a-b5d3-d676-4c61-efb99302bd5b'::uuid, 4194308096::bigint);
SELECT id, nf FROM c ORDER BY nf;
