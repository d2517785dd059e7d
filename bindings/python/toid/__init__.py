"""toid: time-ordered IDs over libtoid.

Eight formats (ulid, ulid-flake, ulid-flake-scalable, scru160, nanoflake,
uid11, uid11-seq, uuidv7), monotonic generators that are thread-safe and
fork-safe, and strict decoding::

    import toid
    toid.new("ulid")                    # '01J...'
    toid.parse("01ARZ3NDEKTSV4RRFFQ69G5FAV").time
    toid.new("nanoflake")               # node formats claim their node (below)

Node formats (nanoflake, ulid-flake-scalable, uid11-seq, whose 10 low bits
carry it) are unique across generators only if no two running generators
hold the same node. The process claims its node on its first ID of the
format, from the host's claim configuration (TOID_CLAIM, else the file
TOID_CLAIM_CONF or /etc/toid/claim.conf), else the host's node registry
/var/lib/toid/claims; it holds it until it exits and admits every ID with
the claim before returning it. A forked child claims its own on its first
ID. No claim to be had is a ClaimError naming the configuration, never a
node 0 that another process also uses. configure(format, node=N) and
claim(format, node=N) name the node (claimed, refused while another holds
it); each Generator of a node format claims a node of its own.

The generating functions are the C functions themselves (no Python frame on
the hot path); the ID value type is Python over the library's decoders.
"""
import datetime as _dt
import json as _json
import uuid as _uuid
import warnings as _warnings

from toid import _toid
from toid._toid import (  # noqa: F401  (re-exported)
    LIBRARY_VERSION,
    ClaimError,
    GenerationError,
    Generator as _CGenerator,
    ParseError,
    new,
    new_bytes,
    new_many,
)

__version__ = "0.1.0"

__all__ = [
    "FORMATS", "ID", "Claim", "ClaimError", "Generator", "GenerationError", "ParseError",
    "claim", "configure", "formats", "inspect",
    "make", "new", "new_bytes", "new_many", "parse", "time_bounds", "ulid_to_uuid",
    "uuid_info", "uuid_to_ulid", "LIBRARY_VERSION",
]

_FORMAT_INFO = _toid._formats()
#: The format names, in the library's order.
FORMATS = tuple(_FORMAT_INFO)
_UUID_FORMATS = ("ulid", "uuidv7")   # the 128-bit formats that are UUID-shaped bytes
_UTC = _dt.timezone.utc


def formats():
    """{name: {bits, bin_size, text_len, alphabet, default_epoch_ms, ...,
    node_max}}: node_max is the largest node of a node format (nanoflake 1023,
    ulid-flake-scalable 31), None for the others."""
    return {name: dict(info) for name, info in _FORMAT_INFO.items()}


# Times: what the library reads as text (toid_parse_time_span, as the CLI
# does), int unix ms, or an aware datetime (one instant). A naive datetime
# is refused: Python reads it as local time in some places and as UTC in
# others, and a time a few hours off is a confident wrong answer.
def _naive(fn, param, value):
    return ValueError(f"{fn}: {param}: {value!r} is a naive datetime, which may mean any zone: "
                      "give it a tzinfo (datetime.timezone.utc) or write the time as text "
                      "('2024-01-01T10:30' is UTC) (invalid)")


def _span(fn, param, value):
    """(first_ms, last_ms) of a time argument: the span a text names
    ('2024-01-01': the whole day), else one instant. Errors name fn and
    param."""
    if isinstance(value, bool):
        raise TypeError(f"{fn}: {param}: a time is a str, an int of unix ms or an aware "
                        f"datetime, not bool")
    if isinstance(value, int):
        return value, value
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise _naive(fn, param, value)
        ms = _ms_of(value)
        return ms, ms
    if isinstance(value, _dt.date):                        # a day: its span, in UTC
        value = value.isoformat()
    if isinstance(value, (str, bytes)):
        span = _toid._parse_time(value)
        if span is None:
            raise ValueError(f"{fn}: {param}: {value!r} is not a time: "
                             f"{_toid._TIME_EXPECTED} (invalid)")
        first, last, notes = span
        if notes & 2:                                      # TOID_TIME_LOOKS_SECONDS
            v = value.decode() if isinstance(value, bytes) else value
            _warnings.warn(f"{fn}: {param}: {v!r} is read as unix milliseconds "
                           f"({_toid._format_time(first)}); for seconds write @{v} or {v}s",
                           stacklevel=3)
        return first, last
    raise TypeError(f"{fn}: {param}: a time is a str, an int of unix ms or an aware datetime, "
                    f"not {type(value).__name__}")


def _ms_of(when):
    """An aware datetime's unix ms (its ms, the µs below them dropped)."""
    delta = when - _dt.datetime(1970, 1, 1, tzinfo=_UTC)
    return (delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000)


def _at_ms(fn, at):
    """new(..., at=...)'s time: an instant, or a text's first ms."""
    return _span(fn, "at", at)[0]


_toid._set_at_reader(_at_ms)


def _epoch_ms(epoch, fn="ID"):
    """An epoch given as int ms, an aware datetime, a time as text (its
    first ms: '2020' is 2020-01-01T00:00Z), or None (the default)."""
    if epoch is None:
        return None
    return _span(fn, "epoch", epoch)[0]


def _format_name(format, fn):
    """The canonical name of a format name or alias ('ULID', 'uuid7')."""
    return _toid._time_span(format, None, fn)[0]


def configure(format, *, node=None, epoch=None, entropy_bytes=None, wait_max_ms=None):
    """Reconfigures the process-wide generator of format (replacing its whole
    setting: its epoch, entropy size, wait bound; and for the node formats
    nanoflake (0..1023), ulid-flake-scalable (0..31) and uid11-seq (0..1023)
    its node).

    The node formats' node is claimed (see the module's doc): without node,
    the process's node, claimed on the next ID (the lowest free one); with
    node=N, node N, claimed now: ClaimError (reason "busy", naming the
    holder) while another process or Generator holds it, and nothing
    changes. A node the process held by number before is given back. Not
    while other threads generate that format."""
    _toid.configure(format, node=node, epoch=_epoch_ms(epoch, "configure"),
                    entropy_bytes=entropy_bytes, wait_max_ms=wait_max_ms)


class Claim:
    """The claim of a node that the process-wide generator of a node format
    uses (toid.claim): .format, .node, .valid; release() gives the node back
    (the generator then claims the process's node again on its next ID).
    A context manager: ``with toid.claim("nanoflake") as c: ...`` releases
    it at the end of the block."""
    __slots__ = ("_format", "_cap", "_node")

    def __init__(self, format, cap):
        self._format = format
        self._cap = cap
        self._node = _toid._claim_node(cap)

    @property
    def format(self):
        """The format's name."""
        return self._format

    @property
    def node(self):
        """The node held."""
        return self._node

    @property
    def valid(self):
        """True while held: not released, lost, past its deadline, nor (in a
        forked child) the parent's."""
        return self._cap is not None and _toid._claim_valid(self._cap)

    def release(self):
        """Gives the node back (its high-water mark lowered to the last ID
        admitted). Again: nothing."""
        if self._cap is not None:
            cap, self._cap = self._cap, None
            _toid._claim_release(self._format, cap)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def __repr__(self):
        state = "held" if self.valid else "released"
        return f"<toid.Claim {self._format} node {self._node} ({state})>"


def claim(format, node=None):
    """Claims a node of a node format for the process-wide generator now and
    returns the Claim: node=None the process's node (the one its first ID
    would claim), node=N that node (ClaimError, reason "busy", naming the
    holder, while another holds it). new(format) and friends use it until
    Claim.release() (or the end of a with block). Raises ClaimError when no
    claim can be had (the message names the claim configuration) and
    ValueError for a format without a node."""
    return Claim(format, _toid._claim(format, node))


class Generator(_CGenerator):
    """A generator of its own, beside the process-wide ones: thread-safe,
    strictly increasing (uid11: unique within a ms).

    Generator(format, *, node=None, epoch=None, entropy_bytes=None, wait_max_ms=None)

    A Generator of a node format (nanoflake, ulid-flake-scalable, uid11-seq)
    claims a node of its own, as the process-wide generators do theirs (see
    the module's doc): node=None the lowest free node (never the process's
    node nor another Generator's: two generators on one node would repeat
    IDs), node=N that node (ClaimError "busy", naming the holder, while
    anyone holds it, this process included). .node is the node; every ID is
    admitted by the claim; close() (or the end of a with block, or garbage
    collection) gives the node back. In a forked child it refuses: make a
    new one there.
    """
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __init__(self, format, *, node=None, epoch=None, entropy_bytes=None, wait_max_ms=None):
        super().__init__(format, node=node, epoch=_epoch_ms(epoch, "Generator"),
                         entropy_bytes=entropy_bytes, wait_max_ms=wait_max_ms)


class ID:
    """An immutable ID value: its format and binary form (and, for the formats
    whose epoch is configurable, the epoch it was read with).

    ID(text, format=None, *, epoch=None) parses like toid.parse. IDs of one
    format order and compare as their values (= their canonical texts);
    IDs of different formats are never equal and do not order.
    """
    __slots__ = ("_format", "_bytes", "_epoch")

    def __init__(self, text, format=None, *, epoch=None):
        fmt, data, _ = _toid._decode(text, format, "ID")
        self._init(fmt, data, _epoch_ms(epoch, "ID"))

    def _init(self, fmt, data, epoch):
        object.__setattr__(self, "_format", fmt)
        object.__setattr__(self, "_bytes", data)
        object.__setattr__(self, "_epoch", epoch)

    @classmethod
    def _of(cls, fmt, data, epoch=None):
        obj = cls.__new__(cls)
        obj._init(fmt, data, epoch)
        return obj

    # ---- other ways to make one -------------------------------------------
    @classmethod
    def from_bytes(cls, data, format, *, epoch=None):
        """From the binary form (big-endian, exactly the format's size)."""
        fmt, data = _toid._from_bytes(format, data, "from_bytes")
        return cls._of(fmt, data, _epoch_ms(epoch, "from_bytes"))

    @classmethod
    def from_int(cls, value, format, *, epoch=None):
        """From the value as an int (the integer form of the 64-bit formats)."""
        fmt = _format_name(format, "from_int")
        size = _FORMAT_INFO[fmt]["bin_size"]
        if not isinstance(value, int) or value < 0 or value.bit_length() > 8 * size:
            raise ValueError(f"from_int: value: {value!r} is not a {fmt} value: "
                             "value too large for the format (overflow)")
        fmt, data = _toid._from_bytes(fmt, value.to_bytes(size, "big"), "from_int")
        return cls._of(fmt, data, _epoch_ms(epoch, "from_int"))

    @classmethod
    def from_uuid(cls, value, format=None):
        """From a UUID: a uuid.UUID, or its text in any form (36 characters,
        32 hex digits, {...}, urn:uuid:...). A version 7 UUID is a uuidv7,
        and any UUID's 16 bytes are a ulid (format="ulid" to read a v7 UUID
        as a ulid too); format="uuidv7" refuses another version with the
        library's reason ("UUID version 4, toid reads version 7")."""
        if isinstance(value, _uuid.UUID):
            data, version, text = value.bytes, value.version, str(value)
        else:
            info, data = _toid._uuid_read(value, "from_uuid")
            info = _json.loads(info)
            version = info["version"] if info["variant"] == "rfc9562" else None
            text = info["text"]
        fmt = "uuidv7" if format is None and version == 7 else \
            "ulid" if format is None else _format_name(format, "from_uuid")
        if fmt == "uuidv7":                       # the library's check and words
            fmt, data, _ = _toid._decode(text, fmt, "from_uuid")
        elif fmt != "ulid":
            raise ValueError(f"from_uuid: format: a UUID is a ulid or a uuidv7, not a {fmt} "
                             "(invalid)")
        return cls._of(fmt, data)

    @classmethod
    def new(cls, format="ulid", *, at=None):
        """A new ID from the process-wide generator of format; with at, one
        whose time is at's (as toid.new)."""
        fmt = _format_name(format, "ID.new")
        if at is None:
            return cls._of(fmt, new_bytes(fmt))
        return cls._of(fmt, _toid._new_at_bytes("ID.new", fmt, at))

    # ---- views --------------------------------------------------------------
    @property
    def format(self):
        """The format's name ("ulid", "nanoflake", ...)."""
        return self._format

    @property
    def bytes(self):
        """The binary form: big-endian, the format's size (8, 16 or 20)."""
        return self._bytes

    @property
    def text(self):
        """The canonical text."""
        return _toid._encode(self._format, self._bytes)

    @property
    def int(self):
        """The value as an int (for the 64-bit formats, their integer form)."""
        return int.from_bytes(self._bytes, "big")

    @property
    def hex(self):
        """The value as lower-case hex at full width."""
        return self._bytes.hex()

    @property
    def unix_ms(self):
        """The time, in ms since 1970-01-01T00:00:00Z."""
        return _toid._unix_ms(self._format, self._bytes, self._epoch)

    @property
    def time(self):
        """The time as an aware datetime in UTC (ms precision)."""
        ms = self.unix_ms
        return _dt.datetime(1970, 1, 1, tzinfo=_UTC) + _dt.timedelta(milliseconds=ms)

    @property
    def fields(self):
        """The inspection fields (DESIGN.md): unix_ms, time, hex and the
        format's own (ts, int, random, sid, counter, generator, sequence...),
        as a new dict."""
        return _toid._describe(self._format, self._bytes, self._epoch)

    @property
    def uuid(self):
        """The same 16 bytes as a uuid.UUID (ulid and uuidv7 only)."""
        if self._format not in _UUID_FORMATS:
            raise ValueError(f"a {self._format} is not a UUID (ulid and uuidv7 are)")
        return _uuid.UUID(bytes=self._bytes)

    # ---- value semantics ---------------------------------------------------
    def __setattr__(self, name, value):
        raise AttributeError("toid.ID is immutable")

    def __delattr__(self, name):
        raise AttributeError("toid.ID is immutable")

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"toid.ID({self.text!r}, format={self._format!r})"

    def __bytes__(self):
        return self._bytes

    def __int__(self):
        return self.int

    def __hash__(self):
        return hash((self._format, self._bytes))

    def __eq__(self, other):
        if not isinstance(other, ID):
            return NotImplemented
        return self._format == other._format and self._bytes == other._bytes

    def _key(self, other):
        if not isinstance(other, ID) or other._format != self._format:
            return None
        return other._bytes

    def __lt__(self, other):
        k = self._key(other)
        return NotImplemented if k is None else self._bytes < k

    def __le__(self, other):
        k = self._key(other)
        return NotImplemented if k is None else self._bytes <= k

    def __gt__(self, other):
        k = self._key(other)
        return NotImplemented if k is None else self._bytes > k

    def __ge__(self, other):
        k = self._key(other)
        return NotImplemented if k is None else self._bytes >= k

    def __reduce__(self):
        return (ID._of, (self._format, self._bytes, self._epoch))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def parse(text, format=None, *, epoch=None):
    """The ID that text is, decoded strictly (str or bytes; no trimming, no
    lenient aliases: a uuidv7 in its 36-character form). Without format,
    detected (a uuidv7 in any UUID form too) in
    the order uuidv7, ulid, scru160, uid11, ulid-flake, nanoflake (name
    uid11-seq and ulid-flake-scalable). Raises ParseError (a ValueError)
    with the library's explanation, the words `toid inspect` prints, its
    error class (.reason: 'length', 'char', 'overflow', 'invalid') and
    .position for 'char' (bytes from 0)."""
    fmt, data, _ = _toid._decode(text, format, "parse")
    return ID._of(fmt, data, _epoch_ms(epoch, "parse"))


def inspect(text, format=None, *, epoch=None):
    """What `toid inspect --json` says of text, as a dict: the ID's fields
    (format, text, unix_ms, time, hex and the format's own), or, without
    format, for a UUID of another version than 7 (or another variant, or
    the nil or max UUID) in any of its forms, {"format": "uuid", "text",
    "version", "variant", and for versions 1, 6 and 7 "unix_ms" and "time"
    (1 and 6: "clock_seq", "node"), "hex"}; "also": the other formats that
    read the text, when there are any. ParseError as parse()."""
    ep = _epoch_ms(epoch, "inspect")
    if format is None:
        found = _toid._uuid_detect(text)
        if found is not None:
            info, also = found
            info = _json.loads(info)
            if also:
                info["also"] = list(also)
            return info
    fmt, data, also = _toid._decode(text, format, "inspect")
    fields = _toid._describe(fmt, data, ep)
    if also:
        fields["also"] = list(also)
    return fields


def uuid_info(text):
    """Any UUID (versions 1 to 8, any variant, nil, max; 36 characters, 32
    hex digits, {...} or urn:uuid:...), read: {"format": "uuid", "text",
    "version", "variant" ("rfc9562", "ncs", "microsoft", "future", "nil",
    "max"), "unix_ms" and "time" for versions 1, 6 and 7, "hex",
    "clock_seq" and "node" for 1 and 6}, the fields of `toid inspect
    --json`. ParseError for a text that is no UUID."""
    return _json.loads(_toid._uuid_read(text, "uuid_info")[0])


def ulid_to_uuid(text):
    """A ULID's 16 bytes as a UUID's text (lower case, hyphenated; its
    version and variant bits are whatever the ULID holds), as `toid convert
    --to uuid` writes it. ParseError for a text that is no ULID."""
    return _toid._ulid_to_uuid(text)


def uuid_to_ulid(text):
    """Any UUID's 16 bytes (any version, any form) as a ULID's text, as
    `toid convert --to ulid` writes it. ParseError for a text that is no UUID."""
    return _toid._uuid_to_ulid(text)


def make(format, *, epoch=None, **fields):
    """Composes an ID from fields, as `toid make` does: the time (unix_ms, ts
    or time as RFC 3339 text, or time as an aware datetime) plus the
    format's sub-fields, or the whole value (int or hex).
    make("nanoflake", ts=0, generator=1, sequence=0)."""
    def text(k, v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, _dt.datetime):
            if v.tzinfo is None or v.utcoffset() is None:
                raise _naive("make", k, v)
            return v.isoformat(timespec="milliseconds")
        return str(v)
    ep = _epoch_ms(epoch, "make")
    fmt = _format_name(format, "make")
    data = _toid._make(fmt, {k: text(k, v) for k, v in fields.items()}, ep)
    return ID._of(fmt, data, ep)


def time_bounds(format, start, end=None, *, epoch=None):
    """(lowest, highest) ID of format whose times lie in [start, end], for
    `WHERE id BETWEEN lo AND hi`, as `toid range` gives them. A time is
    text as the CLI reads it (toid_parse_time_span): a span, whole
    ('2024-01-01' is the day, from its first ms to its last; '2024' the
    year), or an instant ('now', 'now-1h', '-15m', '@1704067200.5'); an int
    of unix ms; or an aware datetime (one instant; a naive one is refused).
    Without end, start's whole span. Errors name the parameter at fault."""
    ep = _epoch_ms(epoch, "time_bounds")
    first, last = _span("time_bounds", "start", start)
    hi_param, hi_value = "start", start
    if end is not None:
        last = _span("time_bounds", "end", end)[1]
        hi_param, hi_value = "end", end
        if last < first:
            raise ValueError(f"time_bounds: end: {end!r} is before start {start!r} (invalid)")
    fmt, min_ms, max_ms = _toid._time_span(format, ep, "time_bounds")
    for param, value, ms in (("start", start, first), (hi_param, hi_value, last)):
        if not min_ms <= ms <= max_ms:
            raise ValueError(f"time_bounds: {param}: {value!r} is outside the times {fmt} "
                             f"holds ({_toid._format_time(min_ms)} .. "
                             f"{_toid._format_time(max_ms)}) (range)")
    lo = _toid._time_bounds(fmt, first, ep)[0]
    hi = _toid._time_bounds(fmt, last, ep)[1]
    return ID._of(fmt, lo, ep), ID._of(fmt, hi, ep)
