"""Work done in child processes (a module of its own so that the spawn start
method, which imports it afresh in each child, finds it)."""
import toid


def ids(fmt, count):
    """count IDs of fmt made one call at a time, as text."""
    new = toid.new
    return [new(fmt) for _ in range(count)]


def ids_joined(fmt, count):
    """ids() as one str, one ID a line: one object to send back, not count."""
    return "\n".join(ids(fmt, count))


def nanoflake_after_fork(node, count):
    """In a forked child: the inherited nanoflake generator must refuse (its
    node is the parent's); after configure(node) it works."""
    try:
        toid.new("nanoflake")
        refused = None
    except toid.GenerationError as e:
        refused = e.reason
    toid.configure("nanoflake", node=node)
    return refused, ids("nanoflake", count)


INHERITED = None   # a toid.Generator the parent sets before forking


def inherited_generator_refusal():
    """In a forked child: the inherited Generator of a node format refuses."""
    try:
        INHERITED.new()
        return None, ""
    except toid.GenerationError as e:
        return e.reason, str(e)


def refusals_then_ids(node, count):
    """In a fresh process (spawn): every process-wide way to make an ID of a
    node format refuses before configure; after configure(fmt, node) they
    work. Returns ({(fmt, call): (reason, message)}, count nanoflake IDs)."""
    calls = {"new": lambda f: toid.new(f), "new_bytes": lambda f: toid.new_bytes(f),
             "new_many": lambda f: toid.new_many(f, 100), "ID.new": lambda f: toid.ID.new(f)}
    refused = {}
    for fmt in ("nanoflake", "ulid-flake-scalable"):
        for name, call in calls.items():
            try:
                call(fmt)
                refused[fmt, name] = (None, "")
            except toid.GenerationError as e:
                refused[fmt, name] = (e.reason, str(e))
    toid.configure("nanoflake", node=node)
    return refused, ids("nanoflake", count)
