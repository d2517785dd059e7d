"""One error text, one time model, any UUID (issue 28): the messages are the
library's explanations (toid_explain, toid_format_name_error), the words
`toid inspect` prints, behind the function and the parameter at fault; times
are the CLI's text (toid_parse_time_span) with the same span meaning; any
UUID is read as `toid inspect --json` reads it (toid_uuid_json)."""
import datetime as dt
import os
import subprocess
import uuid
import warnings

import pytest

import toid

UTC = dt.timezone.utc
LENGTHS = ("(ulid 26, uuidv7 36 or 32, scru160 32 or 40, ulid-flake and nanoflake 13, "
           "uid11 11); name the format to read it")
TIME_EXPECTED = ("expected ISO 8601 (2024, 2024-01-01T10:30Z), @SECONDS, Nms/Ns/Nus, unix ms, "
                 "now or now-1h/-15m/+2d")

# (format or None, text, reason, the library's explanation, position): the
# same list as bindings/node/test/words.test.js
BAD = [
    ("uuidv7", "f81d4fae-7dec-41d0-a765-00a0c91e6bf6", "char",
     "UUID version 4, toid reads version 7", 14),
    ("uuidv7", "01a20787-66da-75a3-c228-ec6ccd8b88fb", "char",
     "UUID variant is not RFC 9562's (digit 17 is c, toid reads 8, 9, a or b)", 19),
    (None, "01ARZ3NDEKTSV4RRFFQ69G5FAI", "char", "bad character 'I' at position 25", 25),
    ("ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAI", "char", "bad character 'I' at position 25", 25),
    ("nanoflake", "hello!", "char", "bad character '!' at position 5", 5),
    (None, "hello", "length", "no format writes 5 characters " + LENGTHS, None),
    (None, "01ARZ3NDEKTS", "length", "no format writes 12 characters " + LENGTHS, None),
    (None, "information", "invalid", "a word, not an ID (lower-case letters only, which no "
     "format writes for a time before 2100); name the format to read it", None),
    ("ulid", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "overflow", "value too large for ulid (the largest is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ)", None),
    ("ulid", "01ARZ3NDEKTSV4RRFFQ69G5FA", "length", "bad length: 25 characters, expected 26", None),
]


@pytest.mark.parametrize("fmt,text,reason,why,position", BAD)
def test_decode_errors_are_the_librarys_explanation(fmt, text, reason, why, position):
    what = fmt or "ID"
    for fn, call in (("parse", lambda: toid.parse(text, fmt)),
                     ("ID", lambda: toid.ID(text, fmt)),
                     ("inspect", lambda: toid.inspect(text, fmt))):
        with pytest.raises(toid.ParseError) as e:
            call()
        assert str(e.value) == f"{fn}: text: {text!r} is not a valid {what}: {why} ({reason})"
        assert e.value.reason == reason and e.value.position == position
        assert e.value.format == fmt


@pytest.mark.skipif(not os.environ.get("TOID_CLI"), reason="TOID_CLI (the C tool) not named")
@pytest.mark.parametrize("fmt,text,reason,why,position", BAD)
def test_decode_errors_say_what_toid_inspect_says(fmt, text, reason, why, position):
    args = [os.environ["TOID_CLI"], "inspect"] + (["-f", fmt] if fmt else []) + ["--", text]
    r = subprocess.run(args, capture_output=True, text=True, check=False)
    assert r.returncode == 1
    cli = r.stderr.strip()
    assert cli.startswith(f"toid: '{text}': ")
    with pytest.raises(toid.ParseError) as e:
        toid.parse(text, fmt)
    assert str(e.value).endswith(": " + cli[len(f"toid: '{text}': "):])


def test_a_named_format_decodes_strictly():
    # as the shared vectors and the SQL extensions: a uuidv7 named is its
    # 36-character form; detection, inspect, from_uuid and uuid_info read
    # the other UUID forms too
    v7 = toid.new("uuidv7")
    for form in (v7.replace("-", ""), "{" + v7 + "}", "urn:uuid:" + v7):
        with pytest.raises(toid.ParseError) as e:
            toid.parse(form, "uuidv7")
        assert str(e.value).endswith(f"is not a valid uuidv7: bad length: {len(form)} characters, "
                                     "expected 36 (length)")
        assert toid.parse(form) == toid.parse(v7) == toid.ID.from_uuid(form)
        assert toid.inspect(form)["text"] == v7
    # parse() gives a format's ID: a UUIDv4 is none (inspect reads it as a UUID)
    with pytest.raises(toid.ParseError) as e:
        toid.parse("f81d4fae-7dec-41d0-a765-00a0c91e6bf6")
    assert str(e.value).endswith("is not a valid ID: UUID version 4, toid reads version 7 (char)")
    assert toid.parse("2e7ba44190db4ba793e6eabc19b33fb6").format == "scru160"


def test_unknown_format_names_suggest_the_nearest():
    for fn, call in (("new", lambda f: toid.new(f)), ("new_many", lambda f: toid.new_many(f, 2)),
                     ("parse", lambda f: toid.parse("x", f)),
                     ("time_bounds", lambda f: toid.time_bounds(f, "2024")),
                     ("configure", lambda f: toid.configure(f)),
                     ("Generator", lambda f: toid.Generator(f)),
                     ("from_int", lambda f: toid.ID.from_int(1, f))):
        with pytest.raises(ValueError) as e:
            call("ulidd")
        assert str(e.value) == f"{fn}: format: unknown format 'ulidd' (did you mean ulid?) (invalid)"
    with pytest.raises(ValueError) as e:
        toid.new("zzzzzzzz")
    assert str(e.value) == "new: format: unknown format 'zzzzzzzz' (formats: ulid, ulid-flake, ulid-flake-scalable, scru160, nanoflake, uid11, uid11-seq, uuidv7, nanoflake-ref24, uid11-ref44) (invalid)"
    with pytest.raises(TypeError, match=r"^new: format: must be a str"):
        toid.new(3)
    assert toid.parse(toid.new("UUID7"), "uuid-v7").format == "uuidv7"   # aliases, any case


@pytest.mark.skipif(not os.environ.get("TOID_CLI"), reason="TOID_CLI (the C tool) not named")
def test_unknown_format_as_the_cli_says_it():
    r = subprocess.run([os.environ["TOID_CLI"], "inspect", "-f", "ulidd", "x"],
                       capture_output=True, text=True, check=False)
    with pytest.raises(ValueError) as e:
        toid.parse("x", "ulidd")
    assert "unknown format 'ulidd' (did you mean ulid?)" in r.stderr
    assert "unknown format 'ulidd' (did you mean ulid?)" in str(e.value)


def test_time_bounds_takes_the_clis_time_text():
    lo, hi = toid.time_bounds("ulid", "2024-01-01")              # the whole day
    assert lo.text == "01HK153X000000000000000000" and hi.text == "01HK3QGKZZZZZZZZZZZZZZZZZZ"
    assert lo.unix_ms == 1704067200000 and hi.unix_ms == 1704153599999
    lo, hi = toid.time_bounds("ulid", "2024")                    # the year
    assert hi.time == dt.datetime(2024, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
    lo, hi = toid.time_bounds("uuidv7", "2024-01", "2024-03")    # January to March, whole
    assert lo.unix_ms == 1704067200000 and hi.time.month == 3 and hi.time.day == 31
    when = dt.datetime(2024, 1, 1, 10, 30, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    lo, hi = toid.time_bounds("ulid", when)                      # a datetime: one instant
    assert lo.unix_ms == hi.unix_ms == 1704101400000
    assert toid.time_bounds("ulid", "2024-01-01T10:30+01:00") != (lo, hi)   # a minute
    assert toid.time_bounds("ulid", "2024-01-01T10:30:00.000+01:00") == (lo, hi)
    assert toid.time_bounds("ulid", 1704101400000) == (lo, hi)   # int: unix ms
    assert toid.time_bounds("ulid", "@1704101400")[0] == lo
    assert toid.time_bounds("ulid", dt.date(2024, 1, 1)) == toid.time_bounds("ulid", "2024-01-01")
    lo, hi = toid.time_bounds("ULID", "now-1h", "now")           # instants, relative
    now = toid.parse(toid.new()).unix_ms
    assert 3_599_000 < hi.unix_ms - lo.unix_ms <= 3_600_000 and abs(now - hi.unix_ms) < 5000
    assert lo.format == "ulid"
    lo, hi = toid.time_bounds("ulid", "-15m")
    assert lo.unix_ms == hi.unix_ms and abs(now - 900_000 - lo.unix_ms) < 5000
    lo, hi = toid.time_bounds("nanoflake", "2024-06", epoch="2024")   # epoch as text too
    assert lo.fields["ts"] == 1_000 * 86_400 * 152


def test_time_errors_name_the_parameter():
    cases = [
        (lambda: toid.time_bounds("ulid", "yesterday"),
         f"time_bounds: start: 'yesterday' is not a time: {TIME_EXPECTED} (invalid)"),
        (lambda: toid.time_bounds("ulid", "2024", "later"),
         f"time_bounds: end: 'later' is not a time: {TIME_EXPECTED} (invalid)"),
        (lambda: toid.time_bounds("ulid", "2024", "2023"),
         "time_bounds: end: '2023' is before start '2024' (invalid)"),
        (lambda: toid.time_bounds("ulid", "1900"),
         "time_bounds: start: '1900' is outside the times ulid holds "
         "(1970-01-01T00:00:00.000Z .. 10889-08-02T05:31:50.655Z) (range)"),
        (lambda: toid.time_bounds("ulid", "2024", epoch="soon"),
         f"time_bounds: epoch: 'soon' is not a time: {TIME_EXPECTED} (invalid)"),
        (lambda: toid.configure("ulid-flake", epoch="soon"),
         f"configure: epoch: 'soon' is not a time: {TIME_EXPECTED} (invalid)"),
        (lambda: toid.Generator("ulid-flake", epoch="soon"),
         f"Generator: epoch: 'soon' is not a time: {TIME_EXPECTED} (invalid)"),
        (lambda: toid.parse(toid.new("ulid-flake"), "ulid-flake", epoch="soon"),
         f"parse: epoch: 'soon' is not a time: {TIME_EXPECTED} (invalid)"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == message
    with pytest.raises(ValueError, match=r"^time_bounds: start: datetime\.datetime\(2024, 1, 1, "
                       r"0, 0\) is a naive datetime, which may mean any zone: give it a tzinfo"):
        toid.time_bounds("ulid", dt.datetime(2024, 1, 1))
    with pytest.raises(ValueError, match=r"^configure: epoch: .* is a naive datetime"):
        toid.configure("ulid-flake", epoch=dt.datetime(2020, 1, 1))
    with pytest.raises(TypeError, match=r"^time_bounds: end: a time is a str"):
        toid.time_bounds("ulid", "2024", 1.5)
    with pytest.raises(TypeError, match=r"^time_bounds: start: a time is a str"):
        toid.time_bounds("ulid", True)


def test_ten_digits_warn_as_the_cli_does():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lo, _ = toid.time_bounds("ulid", "1704067200")
    assert lo.unix_ms == 1704067200
    assert len(w) == 1 and str(w[0].message) == (
        "time_bounds: start: '1704067200' is read as unix milliseconds "
        "(1970-01-20T17:21:07.200Z); for seconds write @1704067200 or 1704067200s")
    assert w[0].filename == __file__


def test_epoch_as_text_is_its_first_ms():
    epoch = dt.datetime(2020, 1, 1, tzinfo=UTC)
    g = toid.Generator("ulid-flake", epoch="2020")
    text = g.new()
    assert toid.parse(text, "ulid-flake", epoch="2020-01-01") == toid.parse(text, "ulid-flake",
                                                                             epoch=epoch)
    assert toid.parse(text, "ulid-flake", epoch="2020").time == \
        toid.parse(text, "ulid-flake", epoch=epoch).time


# Any UUID, as `toid inspect --json` prints it (toid_uuid_json)
V1 = "c232ab00-9414-11ec-b3c8-9f6bdeced846"
V6 = "1ec9414c-232a-6b00-b3c8-9f6bdeced846"
V4 = "f81d4fae-7dec-41d0-a765-00a0c91e6bf6"


def test_inspect_reads_any_uuid():
    assert toid.inspect(V4) == {"format": "uuid", "text": V4, "version": 4,
                                "variant": "rfc9562", "hex": V4.replace("-", "")}
    v1 = {"format": "uuid", "text": V1, "version": 1, "variant": "rfc9562",
          "unix_ms": 1645557742000, "time": "2022-02-22T19:22:22.000Z",
          "hex": V1.replace("-", ""), "clock_seq": 13256, "node": "9f6bdeced846"}
    assert toid.inspect(V1) == v1 and toid.uuid_info(V1) == v1
    assert toid.inspect(V6)["unix_ms"] == 1645557742000 and toid.inspect(V6)["version"] == 6
    assert toid.inspect("urn:uuid:" + V1.upper()) == v1                       # any form
    assert toid.inspect("{" + V1 + "}") == v1
    assert toid.inspect(V4.replace("-", "")) == dict(toid.inspect(V4), also=["scru160"])
    nil = toid.inspect("00000000-0000-0000-0000-000000000000")
    assert nil["variant"] == "nil" and nil["version"] == 0
    assert toid.inspect("ffffffff-ffff-ffff-ffff-ffffffffffff")["variant"] == "max"
    ms = toid.inspect("01a20787-66da-75a3-c228-ec6ccd8b88fb")                 # v7, Microsoft's
    assert ms["format"] == "uuid" and ms["variant"] == "microsoft" and ms["version"] == 7
    for v in range(1, 9):
        u = toid.uuid_info(f"00000000-0000-{v}000-8000-000000000000")
        assert u["version"] == v and ("unix_ms" in u) == (v in (1, 6, 7))
    v7 = toid.new("uuidv7")
    assert toid.inspect(v7) == toid.parse(v7).fields                         # a uuidv7 is the format
    assert toid.uuid_info(v7)["unix_ms"] == toid.parse(v7).unix_ms
    assert toid.inspect("01ARZ3NDEKTSV4RRFFQ69G5FAV")["format"] == "ulid"
    assert toid.inspect("01a2078766da75a39228ec6ccd8b88fb")["also"] == ["scru160"]
    with pytest.raises(toid.ParseError) as e:
        toid.uuid_info("hello")
    assert str(e.value) == "uuid_info: text: 'hello' is not a valid UUID: bad length: 5 characters, expected 36 (length)"
    with pytest.raises(toid.ParseError) as e:
        toid.uuid_info(V4[:-1] + "g")
    assert e.value.position == 35 and str(e.value).endswith("bad character 'g' at position 35 (char)")


@pytest.mark.skipif(not os.environ.get("TOID_CLI"), reason="TOID_CLI (the C tool) not named")
def test_inspect_gives_the_clis_json():
    import json
    for text in (V1, V6, V4, V4.replace("-", ""), "00000000-0000-0000-0000-000000000000",
                 "01ARZ3NDEKTSV4RRFFQ69G5FAV", "01a2078766da75a39228ec6ccd8b88fb"):
        r = subprocess.run([os.environ["TOID_CLI"], "inspect", "--json", text],
                           capture_output=True, text=True, check=True)
        assert toid.inspect(text) == json.loads(r.stdout), text


def test_ulid_uuid_conversions():
    assert toid.ulid_to_uuid("01ARZ3NDEKTSV4RRFFQ69G5FAV") == "01563e3a-b5d3-d676-4c61-efb99302bd5b"
    assert toid.uuid_to_ulid("550e8400-e29b-41d4-a716-446655440000") == "2N1T201RMV87AAE5J4CSAM8000"
    assert toid.uuid_to_ulid("550E8400E29B41D4A716446655440000") == "2N1T201RMV87AAE5J4CSAM8000"
    assert toid.uuid_to_ulid(toid.ulid_to_uuid("01ARZ3NDEKTSV4RRFFQ69G5FAV")) == \
        "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    with pytest.raises(toid.ParseError) as e:
        toid.ulid_to_uuid("01ARZ3NDEKTSV4RRFFQ69G5FAI")
    assert str(e.value) == ("ulid_to_uuid: text: '01ARZ3NDEKTSV4RRFFQ69G5FAI' is not a valid ulid: "
                            "bad character 'I' at position 25 (char)")
    with pytest.raises(toid.ParseError, match=r"^uuid_to_ulid: text: 'x' is not a valid UUID"):
        toid.uuid_to_ulid("x")


def test_id_from_a_uuid_text():
    assert toid.ID.from_uuid(V4).format == "ulid"
    assert toid.ID.from_uuid(V4).text == toid.uuid_to_ulid(V4)
    v7 = toid.new("uuidv7")
    assert toid.ID.from_uuid(v7.replace("-", "")) == toid.parse(v7)
    assert toid.ID.from_uuid(uuid.UUID(v7)) == toid.parse(v7)
    assert toid.ID.from_uuid(v7, "ulid").bytes == toid.parse(v7).bytes
    with pytest.raises(toid.ParseError) as e:
        toid.ID.from_uuid(V4, "uuidv7")
    assert str(e.value) == (f"from_uuid: text: '{V4}' is not a valid uuidv7: "
                            "UUID version 4, toid reads version 7 (char)")
    with pytest.raises(ValueError, match=r"^from_uuid: format: a UUID is a ulid or a uuidv7, "
                       r"not a nanoflake \(invalid\)$"):
        toid.ID.from_uuid(V4, "nanoflake")
    with pytest.raises(toid.ParseError, match=r"^from_uuid: text: 'nope'"):
        toid.ID.from_uuid("nope")


def test_make_names_the_field_at_fault():
    with pytest.raises(ValueError) as e:
        toid.make("ulid", unix_ms="x")
    assert str(e.value) == "make: unix_ms: 'x' for ulid: invalid argument (invalid)"
    with pytest.raises(ValueError) as e:
        toid.make("nanoflake", unix_ms=0)
    assert str(e.value) == "make: a nanoflake of these fields: time out of range for the format (range)"
    with pytest.raises(ValueError, match=r"^make: time: .* is a naive datetime"):
        toid.make("ulid", time=dt.datetime(2024, 1, 1))
