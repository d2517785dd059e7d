-- Malformed input: 22P02 naming the position and the reason; out-of-range
-- times 22008; bad binary 22P03; nothing crashes.
SET TIME ZONE 'UTC';
CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ' ' || SQLERRM || coalesce(' | ' || nullif(d, ''), '');
END $$;

SELECT t, v, try(format('SELECT %L::%s', v, t)) FROM (VALUES
    ('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FA'),       -- 25 symbols
    ('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAVV'),     -- 27
    ('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAU'),      -- U is not Crockford
    ('ulid', '01ARZ3NDEKTSV4RRFFQ69G5FAI'),      -- alias I: strict decoder refuses
    ('ulid', '01ARZ3NDEK-SV4RRFFQ69G5FAV'),      -- hyphen
    ('ulid', ' 1ARZ3NDEKTSV4RRFFQ69G5FAV'),      -- space
    ('ulid', '80000000000000000000000000'),      -- overflow
    ('ulid', ''),
    ('scru160', '05TTUP1HNCPNH30VEK64KDQT9BSNU4CW'),
    ('scru160', '017bdf6431bb33750751eb63beb3c3f8c5969d8g'),
    ('ulid_flake', '8000000000000'),
    ('ulid_flake', '00CMXB6TAK4S'),
    ('ulid_flake_scalable', '00F2NC9TEXQ0U'),
    ('nanoflake', '1y2p0ij32e8e8'),
    ('nanoflake', '00000000000000'),
    ('nanoflake', '-1'),
    ('uid11', 'jpXCZedGfVR'),                    -- 2^64: overflow
    ('uid11', '1111111111O'),                    -- O is not Base58
    ('uid11', '1111111111'),
    ('uid11_seq', '111111111112'),
    ('ulid', 'Ü000000000000000000000000')        -- 26 bytes, a 2-byte UTF-8 letter first
) AS x(t, v);

-- out-of-range times: 22008
SELECT try($$SELECT ulid_flake_min('2023-12-31 23:59:59.999+00')$$);
SELECT try($$SELECT nanoflake_max('2100-01-01')$$);
SELECT try($$SELECT nanoflake_max('2100-01-01+00'::timestamptz)$$);
SELECT try($$SELECT ulid_min('1969-12-31 23:59:59.999+00')$$);
SELECT try($$SELECT uid11_min('infinity'::timestamptz)$$);
SELECT try($$SELECT ulid_time('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')$$);  -- year 10889 fits timestamptz
-- uuidv7 functions on a uuid that is not version 7
SELECT try($$SELECT uuidv7_time('00000000-0000-4000-8000-000000000000')$$);
-- bad binary and bad casts
SELECT try($$SELECT '\x0102'::bytea::ulid$$);
SELECT try($$SELECT '\x8000000000000000'::bytea::nanoflake$$);
SELECT try($$SELECT (-1)::bigint::nanoflake$$);
-- make: bad fields
SELECT try($$SELECT ulid_make('{"unix_ms": 1, "sid": 3}')$$);
SELECT try($$SELECT nanoflake_make('{"unix_ms": 1704067200000, "generator": 1024}')$$);
SELECT try($$SELECT ulid_flake_make('{"int": "9223372036854775808"}')$$);
SELECT try($$SELECT ulid_make('[1]')$$);
SELECT try($$SELECT toid_parse('hello world')$$);
SELECT try($$SELECT toid_parse('01ARZ3NDEKTSV4RRFFQ69G5FAU')$$);
-- detection never guesses: a word, a cut ULID, a UUID of another version
SELECT try($$SELECT toid_parse('information')$$);
SELECT try($$SELECT toid_parse('01ARZ3NDEKTS')$$);
SELECT try($$SELECT toid_parse('550e8400-e29b-41d4-a716-446655440000')$$);
-- a C function bound under a name that names no format: an error, not a guess
CREATE FUNCTION misnamed(ulid) RETURNS timestamptz AS '$libdir/toid', 'toid_pg_time' LANGUAGE C STRICT;
SELECT try($$SELECT misnamed('01ARZ3NDEKTSV4RRFFQ69G5FAV')$$);
