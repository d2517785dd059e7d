"""Work done in child processes (a module of its own so that the spawn start
method, which imports it afresh in each child, finds it)."""
import toid


def ids(fmt, count):
    """count IDs of fmt made one call at a time, as text. Ulid-Flake's
    overflow within a ms (its spec: an error, the caller tries again) is
    tried again, as a caller would."""
    new = toid.new
    if not fmt.startswith("ulid-flake"):
        return [new(fmt) for _ in range(count)]
    out = []
    while len(out) < count:
        try:
            out.append(new(fmt))
        except toid.GenerationError as e:
            if e.reason != "overflow":
                raise
    return out


def ids_joined(fmt, count):
    """ids() as one str, one ID a line: one object to send back, not count."""
    return "\n".join(ids(fmt, count))


def node_after_fork(fmt, count):
    """In a forked child (the parent made IDs of fmt before the fork): the
    child's first ID claims a node of its own. Returns (node, IDs)."""
    got = ids(fmt, count)
    return _node_of(fmt, got[0]), got


def _node_of(fmt, text):
    i = toid.parse(text, fmt)
    return {"nanoflake": lambda: i.fields["generator"],
            "ulid-flake-scalable": lambda: i.fields["sid"],
            "uid11-seq": lambda: i.int & 1023}[fmt]()


INHERITED = None   # a toid.Generator the parent sets before forking


def inherited_generator_refusal():
    """In a forked child: the inherited Generator of a node format refuses."""
    try:
        INHERITED.new()
        return None, ""
    except toid.GenerationError as e:
        return e.reason, str(e)


def main(argv):
    """python3 workers.py held FMT COUNT [NODE]: claims a node of FMT (its
    first ID, or configure(node=NODE)), prints "node N", waits for a line on
    stdin (so that the test knows every process holds its claim at once),
    then prints COUNT IDs, one a line. Errors: "error REASON MESSAGE"."""
    import sys
    _, fmt, count = argv[:3]
    try:
        if len(argv) > 3:
            toid.configure(fmt, node=int(argv[3]))
        first = ids(fmt, 1)[0]
    except toid.ClaimError as e:
        print("error", e.reason, e, flush=True)
        return 0
    print("node", _node_of(fmt, first), flush=True)
    sys.stdin.readline()
    print("\n".join([first] + ids(fmt, int(count) - 1)), flush=True)
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv[1:]))
