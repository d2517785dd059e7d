# bash completion for toid(1). Installed by `cmake --install` into
# share/bash-completion/completions/toid (loaded on demand by bash-completion).

_toid() {
    local cur prev cmd i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    local formats="ulid ulid-flake ulid-flake-scalable scru160 nanoflake uid11 uid11-seq uuidv7"
    # read only (toid never generates them): for -f, make and range, not new
    local read_only="nanoflake-ref24 uid11-ref44"
    local commands="new inspect make range formats convert help"
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [ -z "$cmd" ]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    case $prev in
    -f | --format) COMPREPLY=($(compgen -W "$formats $read_only" -- "$cur")); return ;;
    --as) COMPREPLY=($(compgen -W "text int hex" -- "$cur")); return ;;
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
    --to) COMPREPLY=($(compgen -W "text int hex bytes uuid ulid" -- "$cur")); return ;;
    --from) COMPREPLY=($(compgen -W "text int hex bytes" -- "$cur")); return ;;
    --at | --epoch) COMPREPLY=($(compgen -W "now" -- "$cur")); return ;;
    --claim) COMPREPLY=($(compgen -W "local local= etcd=" -- "$cur")); return ;;
    -n | --count | --node | --prefix | --claim-prefix | --claim-ttl) return ;;
    esac
    local opts
    case $cmd in
    new) opts="--count --epoch --node --at --as --json --claim --claim-prefix --claim-ttl --no-claim --help" ;;
    inspect) opts="--format --json --epoch --lenient --int --all --local --layout --color --help" ;;
    make) opts="--epoch --as --json --help" ;;
    range) opts="--prefix --epoch --as --json --help" ;;
    convert) opts="--to --from --format --help" ;;
    formats) opts="--json --help" ;;
    help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    # the FORMAT operand of new, make and range (the first non-option word)
    case $cmd in
    new | make | range)
        local n=0
        for ((i = i + 1; i < COMP_CWORD; i++)); do
            case ${COMP_WORDS[i]} in
            -*) ;;
            *) case ${COMP_WORDS[i-1]} in
               -n | --count | --node | --at | --as | --epoch | --claim | --claim-prefix | --claim-ttl | --prefix) ;;
               *) n=$((n + 1)) ;;
               esac ;;
            esac
        done
        [ $n -eq 0 ] && [ "$cmd" = new ] && COMPREPLY=($(compgen -W "$formats" -- "$cur"))
        [ $n -eq 0 ] && [ "$cmd" != new ] && COMPREPLY=($(compgen -W "$formats $read_only" -- "$cur"))
        ;;
    esac
}
complete -F _toid toid
