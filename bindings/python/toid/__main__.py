"""python -m toid: make and read IDs without the C command-line tool.

    python -m toid new [FORMAT] [COUNT]     COUNT new IDs (default: one ulid), one per line
    python -m toid inspect [-f FORMAT] [--json] [ID]...
                                            decode IDs (arguments, else lines of stdin)

A small subset of the `toid` command (toid(1)), over the same library.
Exit status: 0 success, 1 an invalid ID or a failure (the library's message
on stderr), 2 a usage error.
"""
import argparse
import json
import os
import sys

import toid

_BATCH = 65536
_JSON_SAFE = 2**53 - 1   # larger integers are JSON strings (JavaScript reads them exactly)


def _fail(message):
    print(f"toid: {message}", file=sys.stderr)


def _new(args):
    if args.count < 0:
        _P_NEW.error(f"COUNT must be 0 or more, not {args.count}")
    left = args.count
    try:
        while left:
            n = min(left, _BATCH)
            ids = toid.new_many(args.format, n) if n > 1 else [toid.new(args.format)]
            sys.stdout.write("\n".join(ids) + "\n")
            left -= n
    except (toid.GenerationError, ValueError) as e:
        _fail(e)
        return 1
    return 0


def _json_value(key, value):
    if isinstance(value, int) and not isinstance(value, bool) and \
       (key in ("int", "random80") or abs(value) > _JSON_SAFE):
        return str(value)
    return value


def _inspect(args):
    ids = args.ids or (line.rstrip("\n") for line in sys.stdin)
    status = 0
    first = True
    for text in ids:
        try:
            fields = toid.inspect(text, args.format)
        except (toid.ParseError, ValueError) as e:
            _fail(e)
            status = 1
            continue
        if args.json:
            print(json.dumps({k: _json_value(k, v) for k, v in fields.items()},
                             separators=(",", ":")))
        else:
            if not first:
                print()
            also = fields.pop("also", None)
            for k, v in fields.items():
                print(f"{k + ':':<11}{str(v).lower() if isinstance(v, bool) else v}")
            if also:
                print(f"{'note:':<11}also reads as {' '.join(also)} (-f picks one)")
        first = False
    return status


_PARSER = argparse.ArgumentParser(
    prog="python -m toid",
    description="Make and read time-ordered IDs (toid " + toid.__version__
    + ", libtoid " + toid.LIBRARY_VERSION + "): a small subset of the C tool `toid`.",
    epilog="Formats: " + ", ".join(toid.FORMATS) + ". Exit status: 0 success, 1 an invalid "
    "ID or a failure (the library's message on stderr), 2 a usage error.")
_PARSER.add_argument("-V", "--version", action="version",
                     version=f"toid {toid.__version__} (libtoid {toid.LIBRARY_VERSION})")
_SUB = _PARSER.add_subparsers(dest="command", metavar="COMMAND")
_SUB.required = True
_P_NEW = _SUB.add_parser("new", help="print COUNT new IDs of FORMAT, one per line",
                         description="Print COUNT new IDs (default: one ulid), one per line, "
                         "strictly increasing (uid11: sorted). The node formats (nanoflake, "
                         "ulid-flake-scalable, uid11-seq) claim their node as the package does "
                         "(TOID_CLAIM, /etc/toid/claim.conf, else /var/lib/toid/claims).")
_P_NEW.add_argument("format", nargs="?", default="ulid", choices=toid.FORMATS, metavar="FORMAT",
                    help="one of: " + ", ".join(toid.FORMATS) + " (default ulid)")
_P_NEW.add_argument("count", nargs="?", type=int, default=1, metavar="COUNT",
                    help="how many (default 1)")
_P_NEW.set_defaults(run=_new)
_P_INSPECT = _SUB.add_parser("inspect", help="decode IDs: format, time and fields",
                             description="Decode each ID (the arguments, else one per line of "
                             "stdin) and print its format, canonical text, time and fields. "
                             "Without -f the format is detected as `toid inspect` does, and a "
                             "UUID of another version is read as format uuid. An "
                             "invalid ID is reported on stderr, the others go on, and the exit "
                             "status is 1.")
_P_INSPECT.add_argument("-f", "--format", choices=toid.FORMATS, metavar="FORMAT",
                        help="decode as FORMAT (default: detect)")
_P_INSPECT.add_argument("--json", action="store_true", help="one JSON object per line")
_P_INSPECT.add_argument("ids", nargs="*", metavar="ID")
_P_INSPECT.set_defaults(run=_inspect)


def main(argv=None):
    args = _PARSER.parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:             # `python -m toid new ulid 100000 | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())   # (no error at exit)
        return 0


if __name__ == "__main__":
    sys.exit(main())
