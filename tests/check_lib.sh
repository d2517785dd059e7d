# check_lib.sh — sourced by the black-box test scripts (tests/cli,
# tests/server): counting passes and failures, and the closing line CTest
# shows ("N passed, N failed"; the exit status is non-zero on any failure).
passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    printf 'FAIL: %s\n' "$*"
}
# wait_until SECONDS COMMAND...: polls COMMAND every 0.1 s until it
# succeeds, for SECONDS at most (a bound for a busy machine, not a timing)
wait_until() {
    local end=$((SECONDS + $1))
    shift
    while [ "$SECONDS" -le "$end" ]; do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}
check() {   # check DESCRIPTION COMMAND...: a pass if COMMAND succeeds
    local what=$1
    shift
    if "$@"; then pass; else fail "$what"; fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

# A script's sections: functions section_NAME() { at the start of a line
# (tests/CMakeLists.txt finds the same lines and runs each section alone).
# sections_args "$0" "$@" answers --list (the names, in file order) and
# reads --section NAME: it sets SECTIONS, ONLY (empty: all) and SHIFT (the
# arguments it used: the caller shifts them).
sections_args() {
    local script=$1
    shift
    SECTIONS=$(sed -n 's/^section_\([a-z0-9_]*\)() {$/\1/p' "$script")
    ONLY=""
    SHIFT=0
    if [ "${1:-}" = --list ]; then
        echo "$SECTIONS"
        exit 0
    fi
    if [ "${1:-}" = --section ]; then
        ONLY=${2:-}
        if ! grep -qx -- "$ONLY" <<<"$SECTIONS"; then
            echo "$script: no section '$ONLY' (--list lists them)" >&2
            exit 2
        fi
        SHIFT=2
    fi
}
run_sections() {   # the sections chosen, in file order
    local section
    for section in ${ONLY:-$SECTIONS}; do
        "section_$section"
    done
}
