# Sourced by the black-box test scripts after they made $WORK: gives the
# script a node registry of its own, $REGISTRY, as a host would have it (a
# group-writable directory, named by a claim configuration file, the one
# TOID_CLAIM_CONF points at), so that the toid and toidd it starts claim
# there and not in this machine's /var/lib/toid/claims.
REGISTRY=$WORK/registry
mkdir -m 2770 "$REGISTRY"
printf 'claim = local=%s\n' "$REGISTRY" >"$WORK/host-claim.conf"
export TOID_CLAIM_CONF=$WORK/host-claim.conf
unset TOID_CLAIM TOID_CLAIM_PREFIX TOID_CLAIM_TTL
