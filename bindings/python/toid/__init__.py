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
import uuid as _uuid

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
    "claim", "configure", "formats",
    "make", "new", "new_bytes", "new_many", "parse", "time_bounds", "LIBRARY_VERSION",
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


def _epoch_ms(epoch):
    """An epoch given as int ms, an aware datetime, or None (the default)."""
    if epoch is None or isinstance(epoch, int):
        return epoch
    if isinstance(epoch, _dt.datetime):
        if epoch.tzinfo is None:
            raise ValueError("epoch must be an aware datetime (tzinfo set) or int ms")
        return _ms_of(epoch)
    raise TypeError(f"epoch must be int ms or an aware datetime, not {type(epoch).__name__}")


def _ms_of(when):
    delta = when - _dt.datetime(1970, 1, 1, tzinfo=_UTC)
    return (delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000)


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
    _toid.configure(format, node=node, epoch=_epoch_ms(epoch),
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
        super().__init__(format, node=node, epoch=_epoch_ms(epoch),
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
        fmt, data = _toid._decode(text, format)
        self._init(fmt, data, _epoch_ms(epoch))

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
        return cls._of(format, _toid._from_bytes(format, data), _epoch_ms(epoch))

    @classmethod
    def from_int(cls, value, format, *, epoch=None):
        """From the value as an int (the integer form of the 64-bit formats)."""
        size = _FORMAT_INFO[format]["bin_size"] if format in _FORMAT_INFO else None
        if size is None:
            _toid._from_bytes(format, b"")          # raises the unknown-format error
        if not isinstance(value, int) or value < 0 or value.bit_length() > 8 * size:
            raise ValueError(f"{value!r} is not a {format} value: "
                             "value too large for the format (overflow)")
        return cls.from_bytes(value.to_bytes(size, "big"), format, epoch=epoch)

    @classmethod
    def from_uuid(cls, value, format=None):
        """From a uuid.UUID: a version 7 UUID is a uuidv7, and any UUID's 16
        bytes are a ulid (format="ulid" to read a v7 UUID as a ulid too)."""
        if format is None:
            format = "uuidv7" if value.version == 7 else "ulid"
        if format not in _UUID_FORMATS:
            raise ValueError(f"a UUID is a ulid or a uuidv7, not a {format}")
        return cls.from_bytes(value.bytes, format)

    @classmethod
    def new(cls, format="ulid"):
        """A new ID from the process-wide generator of format."""
        return cls._of(format, new_bytes(format))

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
    lenient aliases). Without format, detected in the order uuidv7, ulid,
    scru160, uid11, ulid-flake, nanoflake (name uid11-seq and
    ulid-flake-scalable). Raises ParseError (a ValueError) with the library's
    reason (.reason: 'length', 'char', 'overflow') and .position for 'char'."""
    fmt, data = _toid._decode(text, format)
    return ID._of(fmt, data, _epoch_ms(epoch))


def make(format, *, epoch=None, **fields):
    """Composes an ID from fields, as `toid make` does: the time (unix_ms, ts
    or time as RFC 3339 text) plus the format's sub-fields, or the whole
    value (int or hex). make("nanoflake", ts=0, generator=1, sequence=0)."""
    def text(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, _dt.datetime):
            if v.tzinfo is None:
                raise ValueError("make: time must be an aware datetime")
            return v.isoformat(timespec="milliseconds")
        return str(v)
    ep = _epoch_ms(epoch)
    data = _toid._make(format, {k: text(v) for k, v in fields.items()}, ep)
    return ID._of(format, data, ep)


def time_bounds(format, when, *, epoch=None):
    """(lowest, highest) ID of format whose time is `when` (int unix ms or an
    aware datetime): for `WHERE id BETWEEN lo AND hi`."""
    ms = when if isinstance(when, int) else _epoch_ms(when)
    ep = _epoch_ms(epoch)
    lo, hi = _toid._time_bounds(format, ms, ep)
    return ID._of(format, lo, ep), ID._of(format, hi, ep)
