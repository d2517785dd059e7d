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
