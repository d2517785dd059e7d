# fish completion for toid(1). Installed by `cmake --install` into
# share/fish/vendor_completions.d/toid.fish.

set -l formats ulid ulid-flake ulid-flake-scalable scru160 nanoflake uid11 uid11-seq uuidv7
# read only (never generated: not for new)
set -l read_only nanoflake-ref24 uid11-ref44
set -l commands new inspect make range formats convert help

complete -c toid -f
complete -c toid -n "not __fish_seen_subcommand_from $commands" -a new -d 'print new IDs'
complete -c toid -n "not __fish_seen_subcommand_from $commands" -a inspect -d 'decode IDs'
complete -c toid -n "not __fish_seen_subcommand_from $commands" -a make -d 'compose an ID from its fields'
complete -c toid -n "not __fish_seen_subcommand_from $commands" -a range -d 'smallest and largest ID of a time span'
complete -c toid -n "not __fish_seen_subcommand_from $commands" -a formats -d 'the table of formats'
complete -c toid -n "not __fish_seen_subcommand_from $commands" -a convert -d 'the same value in another form'
complete -c toid -n "not __fish_seen_subcommand_from $commands" -a help -d "a command's help"
complete -c toid -n "not __fish_seen_subcommand_from $commands" -s h -l help -d 'show the help'
complete -c toid -n "not __fish_seen_subcommand_from $commands" -s V -l version -d 'show the version'

# the FORMAT operand
complete -c toid -n "__fish_seen_subcommand_from new make range; and not __fish_seen_subcommand_from $formats $read_only" -a "$formats"
complete -c toid -n "__fish_seen_subcommand_from make range; and not __fish_seen_subcommand_from $formats $read_only" -a "$read_only"
complete -c toid -n "__fish_seen_subcommand_from help" -a "$commands"

# new
complete -c toid -n "__fish_seen_subcommand_from new" -s n -l count -x -d 'how many IDs'
complete -c toid -n "__fish_seen_subcommand_from new" -l epoch -x -a now -d 'the epoch'
complete -c toid -n "__fish_seen_subcommand_from new" -l node -x -d 'node id'
complete -c toid -n "__fish_seen_subcommand_from new" -l at -x -a now -d 'generate as if the clock read TIME'
complete -c toid -n "__fish_seen_subcommand_from new make range" -l as -x -a "text int hex" -d 'print as'
complete -c toid -n "__fish_seen_subcommand_from new make range inspect formats" -l json -d 'JSON output'
complete -c toid -n "__fish_seen_subcommand_from new" -l claim -x -a "local local= etcd=" -d 'where nodes are claimed'
complete -c toid -n "__fish_seen_subcommand_from new" -l claim-prefix -x -d 'etcd key prefix'
complete -c toid -n "__fish_seen_subcommand_from new" -l claim-ttl -x -d 'etcd lease TTL, seconds'
complete -c toid -n "__fish_seen_subcommand_from new" -l no-claim -d 'claim nothing'

# inspect
complete -c toid -n "__fish_seen_subcommand_from inspect convert" -s f -l format -x -a "$formats $read_only" -d 'the format'
complete -c toid -n "__fish_seen_subcommand_from inspect make range" -l epoch -x -d 'the epoch'
complete -c toid -n "__fish_seen_subcommand_from inspect" -l lenient -d 'Crockford aliases and hyphens'
complete -c toid -n "__fish_seen_subcommand_from inspect" -l int -d 'decimal integers'
complete -c toid -n "__fish_seen_subcommand_from inspect" -l all -d 'every format that accepts the ID'
complete -c toid -n "__fish_seen_subcommand_from inspect" -l local -d 'the time in the local time zone too'
complete -c toid -n "__fish_seen_subcommand_from inspect" -l layout -d 'draw the bit layout'
complete -c toid -n "__fish_seen_subcommand_from inspect" -l color -x -a "auto always never" -d 'colour the layout'

# range
complete -c toid -n "__fish_seen_subcommand_from range" -l prefix -x -d 'uid11 prefix'

# convert
complete -c toid -n "__fish_seen_subcommand_from convert" -l to -x -a "text int hex bytes uuid ulid" -d 'the form to print'
complete -c toid -n "__fish_seen_subcommand_from convert" -l from -x -a "text int hex bytes" -d 'how the IDs are written'
