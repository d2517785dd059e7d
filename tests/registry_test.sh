#!/usr/bin/env bash
# The host's node registry as an installation sets it up, black box:
# packaging/toid-registry-setup (what cmake --install runs as root) makes
# the group and the directory (root:GROUP 2770), gives an older toid's
# private files to the group, and can run again; then toid runs as root and
# as a member of the group (setpriv) claim beside each other in it (no
# lock-out either way, no ID twice), and a user outside the group is told
# how to join. Needs root (a group, a second user): CI runs as root.
#   usage: registry_test.sh TOID_BINARY SETUP_SCRIPT
# Prints "N passed, N failed" last.
set -u
export LC_ALL=C
TOID=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SETUP=$2
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (makes a group and runs toid as a second user); CI runs it as root"
    exit 77
fi
. "$(dirname "$0")/check_lib.sh"
WORK=$(mktemp -d)
chmod 0711 "$WORK"      # the second user passes through it
GROUP=toidtest$$
cleanup() {
    getent group "$GROUP" >/dev/null && groupdel "$GROUP"
    rm -rf "$WORK"
}
trap cleanup EXIT
unset TOID_CLAIM TOID_CLAIM_PREFIX TOID_CLAIM_TTL
export TOID_CLAIM_CONF=/dev/null
REG=$WORK/lib/toid/claims

sh "$SETUP" "$REG" "$GROUP"
check "setup: exit 0" [ $? -eq 0 ]
check "setup: group $GROUP made" eval 'getent group "$GROUP" >/dev/null'
check "setup: $REG is root:$GROUP 2770 ($(stat -c '%U:%G %a' "$REG"))" \
    [ "$(stat -c '%U:%G %a' "$REG")" = "root:$GROUP 2770" ]
check "setup: its parent made 0755" [ "$(stat -c '%U %a' "$WORK/lib/toid")" = "root 755" ]
# an older toid's private file; the directory's mode changed by hand
: >"$REG/nanoflake-9.lock" && chmod 0600 "$REG/nanoflake-9.lock" && chgrp root "$REG/nanoflake-9.lock"
chmod 0700 "$REG"
sh "$SETUP" "$REG" "$GROUP"
check "setup again: exit 0, the directory 2770 again" [ "$(stat -c '%G %a' "$REG")" = "$GROUP 2770" ]
check "setup again: an older private file is the group's, 0660" \
    [ "$(stat -c '%G %a' "$REG/nanoflake-9.lock")" = "$GROUP 660" ]
sh "$SETUP" relative/path "$GROUP" 2>/dev/null
check "setup: a relative path is refused" [ $? -eq 2 ]

gid=$(getent group "$GROUP" | cut -d: -f3)
member() { setpriv --reuid=65534 --regid=65534 --groups="$gid" "$@"; }
outsider() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# root and a member at once, each 200,000 nanoflakes, root's umask 077 (as
# toidd's unit): different nodes, every ID once; then each takes the
# other's node 0 files over
(umask 077 && TOID_CLAIM=local=$REG "$TOID" new nanoflake -n 200000 >"$WORK/root.ids" 2>"$WORK/root.err") &
r=$!
(TOID_CLAIM=local=$REG member "$TOID" new nanoflake -n 200000 >"$WORK/member.ids" 2>"$WORK/member.err") &
m=$!
wait $r; rr=$?
wait $m; mr=$?
check "root and a member at once: both succeed ($(head -c 200 "$WORK/root.err" "$WORK/member.err"))" \
    eval '[ $rr -eq 0 ] && [ $mr -eq 0 ]'
check "root and a member at once: 400,000 IDs, none twice" \
    [ "$(sort -u "$WORK/root.ids" "$WORK/member.ids" | wc -l)" = 400000 ]
check "the files either made are the group's, 0660 ($(stat -c '%n %G %a' "$REG"/nanoflake-[01].* | tr '\n' ' '))" \
    [ "$(stat -c '%G %a' "$REG"/nanoflake-[01].* | sort -u)" = "$GROUP 660" ]
TOID_CLAIM=local=$REG member "$TOID" new nanoflake --node 0 -n 1 >/dev/null 2>"$WORK/err" &&
    TOID_CLAIM=local=$REG member "$TOID" new nanoflake --node 1 -n 1 >/dev/null 2>>"$WORK/err"
check "a member takes nodes 0 and 1 after root ($(head -c 200 "$WORK/err"))" [ $? -eq 0 ]
TOID_CLAIM=local=$REG "$TOID" new nanoflake --node 0 -n 1 >/dev/null 2>"$WORK/err" &&
    TOID_CLAIM=local=$REG "$TOID" new nanoflake --node 1 -n 1 >/dev/null 2>>"$WORK/err"
check "root takes them after the member ($(head -c 200 "$WORK/err"))" [ $? -eq 0 ]

TOID_CLAIM=local=$REG outsider "$TOID" new nanoflake -n 1 >"$WORK/out" 2>"$WORK/err"
rc=$?
check "outside the group: exit 1, nothing printed" eval '[ $rc -eq 1 ] && [ ! -s "$WORK/out" ]'
check "outside the group: told to join it ($(head -c 300 "$WORK/err"))" \
    grep -q "claim directory $REG: permission denied for nobody: add it to group $GROUP (usermod -aG $GROUP USER" "$WORK/err"
TOID_CLAIM=local=$REG member "$TOID" new nanoflake --node 9 -n 1 >/dev/null 2>&1
check "a member takes the node whose older private file setup shared" [ $? -eq 0 ]
: >"$REG/nanoflake-8.lock" && chmod 0600 "$REG/nanoflake-8.lock" && chgrp root "$REG/nanoflake-8.lock"
TOID_CLAIM=local=$REG member "$TOID" new nanoflake --node 8 -n 1 >/dev/null 2>"$WORK/err8"
check "a private file of another user: named with the commands that share it ($(head -c 300 "$WORK/err8"))" \
    grep -q "nanoflake-8.lock: permission denied: it is uid 0's with mode 0600; give it to the registry's group (as root: chgrp $GROUP " "$WORK/err8"
finish
