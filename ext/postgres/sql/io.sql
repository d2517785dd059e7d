-- Text and binary I/O of every type, values from shared/vectors.
SET TIME ZONE 'UTC';
CREATE EXTENSION toid;

-- canonical text out; input is case-insensitive where the alphabet is
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid, '01arz3ndektsv4rrffq69g5fav'::ulid,
       '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid, '00000000000000000000000000'::ulid;
SELECT '05TTUP1HNCPNH30VEK64KDQT9BSNU4C4'::scru160,
       '017bdf6431bb33750751eb63beb3c3f8c5969d86'::scru160;  -- 40 hex in, 32 base32hex out
SELECT '00CMXB6TAK4SA'::ulid_flake, '7ZZZZZZZZZZZZ'::ulid_flake, '0000000000000'::ulid_flake;
SELECT '00CMXB6TAK4SA'::ulid_flake_scalable, '7zzzzzzzzzzzz'::ulid_flake_scalable;
SELECT '0000001xd6ku8'::nanoflake, '1XD6KU8'::nanoflake, '1y2p0ij32e8e7'::nanoflake;
SELECT '11111111111'::uid11, '113q8KFkAEs'::uid11, 'jpXCZedGfVQ'::uid11;
SELECT '1111111NVpb'::uid11_seq, '111111111Jf'::uid11_seq;

-- binary send
SELECT ulid_send('01ARZ3NDEKTSV4RRFFQ69G5FAV'), scru160_send('05TTUP1HNCPNH30VEK64KDQT9BSNU4C4');
SELECT ulid_flake_send('00CMXB6TAK4SA'), nanoflake_send('1y2p0ij32e8e7'), uid11_send('jpXCZedGfVQ');

-- binary round trip through COPY (send, then recv)
CREATE TABLE io_all (a ulid, b scru160, c ulid_flake, d ulid_flake_scalable, e nanoflake, f uid11, g uid11_seq);
INSERT INTO io_all VALUES
  ('01ARZ3NDEKTSV4RRFFQ69G5FAV', '05TTUP1HNCPNH30VEK64KDQT9BSNU4C4', '00CMXB6TAK4SA', '7ZZZZZZZZZZZZ',
   '0000001xd6ku8', 'jpXCZedGfVQ', '111111111Jf'),
  ('00000000000000000000000000', '05TTUP1HNCPNIB63R8IN5V2L3VFGNFET', '0000000000000', '00CMXB6TAK4SA',
   '1y2p0ij32e8e7', '11111111111', '1111111NVpb');
SELECT current_setting('data_directory') || '/toid_io_test.copy' AS copyfile \gset
COPY io_all TO :'copyfile' (FORMAT binary);
CREATE TABLE io_back (LIKE io_all);
COPY io_back FROM :'copyfile' (FORMAT binary);
SELECT * FROM io_back;
SELECT count(*) AS same FROM io_all JOIN io_back USING (a, b, c, d, e, f, g);
-- text COPY too
COPY io_all TO :'copyfile';
TRUNCATE io_back;
COPY io_back FROM :'copyfile';
SELECT count(*) AS same FROM io_all JOIN io_back USING (a, b, c, d, e, f, g);

-- arrays and records use the same I/O
SELECT ARRAY['01ARZ3NDEKTSV4RRFFQ69G5FAV', '01AN4Z07BY79KA1307SR9X4MV3']::ulid[];
SELECT ROW('00CMXB6TAK4SA'::ulid_flake, 'jpXCZedGfVQ'::uid11);
