"""The shared conformance vectors through the binding: every decode line
(fields, canonical text, error class and position), every encode line
through toid.make, and round trips through bytes, int and the text."""
import os
import re

import pytest

import toid


def unescape(col):
    """A vectors text column as bytes: \\xHH and \\\\ (vectors README)."""
    return re.sub(rb"\\x([0-9a-fA-F]{2})|\\\\",
                  lambda m: bytes([int(m.group(1), 16)]) if m.group(1) else b"\\",
                  col.encode("ascii"))


# the repository's own vectors (tests/vectors: the read-only variants), where
# the shared set has no file for a format
# ($TOID_OWN_VECTORS_DIR: CTest sets it, for the suite run from an installed package)
OWN_DIR = os.environ.get("TOID_OWN_VECTORS_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "vectors")


def cases(vectors_dir, fmt):
    path = os.path.join(vectors_dir, fmt + ".tsv")
    if not os.path.isfile(path):
        path = os.path.join(OWN_DIR, fmt + ".tsv")
    with open(path, encoding="ascii") as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                yield line.split("\t")


def field_text(v):
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


@pytest.mark.parametrize("fmt", toid.FORMATS)
def test_decode_lines(vectors_dir, fmt):
    n = 0
    for fmt_col, op, text, expect in cases(vectors_dir, fmt):
        assert fmt_col == fmt
        if op != "decode":
            continue
        n += 1
        raw = unescape(text)
        if expect.startswith("err "):
            with pytest.raises(toid.ParseError) as e:
                toid.parse(raw, fmt)
            assert e.value.reason == expect[4:], (text, str(e.value))
            assert isinstance(e.value, ValueError)
            if e.value.reason == "char":
                assert 0 <= e.value.position < len(raw)
            continue
        want = dict(kv.split("=", 1) for kv in expect[3:].split(" "))
        i = toid.parse(raw, fmt)
        canonical = want.pop("text", raw.decode("ascii"))
        assert i.text == canonical and str(i) == canonical
        fields = i.fields
        for k, v in want.items():
            assert field_text(fields[k]) == v, (text, k)
        assert i.unix_ms == int(want["unix_ms"])
        assert i.hex == want["hex"] and i.bytes.hex() == want["hex"]
        # round trips: bytes, int, the canonical text, pickling-free copies
        assert toid.ID.from_bytes(i.bytes, fmt) == i
        assert toid.ID.from_int(i.int, fmt) == i
        assert toid.parse(i.text, fmt) == i
        if "int" in want:
            assert i.int == int(want["int"])
    assert n > 0


@pytest.mark.parametrize("fmt", toid.FORMATS)
def test_encode_lines(vectors_dir, fmt):
    n = 0
    for _, op, inputs, expect in cases(vectors_dir, fmt):
        if op != "encode":
            continue
        n += 1
        fields = dict(kv.split("=", 1) for kv in inputs.split(" "))
        if expect.startswith("err "):
            with pytest.raises(ValueError) as e:
                toid.make(fmt, **fields)
            assert str(e.value).endswith(f"({expect[4:]})"), (inputs, str(e.value))
        else:
            assert toid.make(fmt, **fields).text == expect, inputs
    assert n > 0


def test_char_position_counts_bytes_from_0():
    # lengths and positions are bytes of the UTF-8 text, counted from 0, as
    # in every front end; every byte before the first bad one is ASCII, so
    # the position is the bad character's index in the str too
    text = "0é" + "0" * 23
    assert len(text.encode()) == 26
    with pytest.raises(toid.ParseError) as e:
        toid.parse(text, "ulid")
    assert e.value.reason == "char" and e.value.position == 1 and text[1] == "é"
    assert "bad byte 0xc3 at position 1 (char)" in str(e.value)
    with pytest.raises(toid.ParseError) as e:
        toid.parse("0" * 25 + "!", "ulid")
    assert e.value.position == 25 and "position 25" in str(e.value)
