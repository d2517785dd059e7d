-- Any UUID inspected (the core uuid type, any version): toid_uuid_version,
-- toid_uuid_variant, toid_uuid_time (NULL without a time), toid_uuid_inspect.
SET TIME ZONE 'UTC';
SET client_min_messages = warning;   -- (the NOTICE of a backend's own generators, not preloaded)
SELECT u, toid_uuid_version(u) AS version, toid_uuid_variant(u) AS variant, toid_uuid_time(u) AS time
FROM (VALUES ('c232ab00-9414-11ec-b3c8-9f6bdeced846'::uuid),   -- RFC 9562 A.1: version 1
             ('000003e8-9414-21ec-b200-9f6bdeced846'),         -- version 2 (DCE): no time read
             ('5df41881-3aed-3515-88a7-2f4a814cf09e'),         -- A.2: version 3
             ('919108f7-52d1-4320-9bac-f847db4148a8'),         -- A.3: version 4
             ('2ed6657d-e927-568b-95e1-2665a8aea6a2'),         -- A.4: version 5
             ('1ec9414c-232a-6b00-b3c8-9f6bdeced846'),         -- A.5: version 6
             ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'),         -- A.6: version 7
             ('2489e9ad-2ee2-8e00-8ec9-32d5f69181c0'),         -- B.1: version 8
             ('00000000-0000-0000-0000-000000000000'),         -- nil
             ('ffffffff-ffff-ffff-ffff-ffffffffffff'),         -- max
             ('c232ab00-9414-11ec-33c8-9f6bdeced846'),         -- variant 0xxx: NCS
             ('c232ab00-9414-11ec-d3c8-9f6bdeced846'),         -- 110x: Microsoft
             ('c232ab00-9414-11ec-f3c8-9f6bdeced846')          -- 111x: future
     ) x(u);
SELECT toid_uuid_inspect('c232ab00-9414-11ec-b3c8-9f6bdeced846');
SELECT toid_uuid_inspect('919108f7-52d1-4320-9bac-f847db4148a8');
SELECT toid_uuid_inspect('00000000-0000-0000-0000-000000000000');
-- a version 1 before 1970 (the Gregorian epoch is 1582)
SELECT toid_uuid_time('00000000-0000-1000-8000-000000000000') AS gregorian_epoch;
-- agrees with the format's functions on version 7, which refuse the others
SELECT toid_uuid_time(u) = uuidv7_time(u) AND toid_uuid_inspect(u)->>'unix_ms' = uuidv7_inspect(u)->>'unix_ms' AS same
FROM (VALUES (uuidv7_new()), (uuidv7_new('2024-01-01'::timestamptz))) x(u);
-- usable on a column of mixed versions
CREATE TABLE mixed (id uuid);
INSERT INTO mixed VALUES (gen_random_uuid()), (uuidv7_new()), ('c232ab00-9414-11ec-b3c8-9f6bdeced846'), (NULL);
SELECT toid_uuid_version(id) AS version, toid_uuid_time(id) IS NOT NULL AS has_time, count(*)
FROM mixed GROUP BY 1, 2 ORDER BY 1;
