/*
 * claims_fence.pml: node claims in etcd, the leases and the holders' own
 * deadlines (claim/claim.c with claim/claim_etcd.c), checked by SPIN.
 * claims_marks.pml checks the marks that keep IDs apart.
 *
 * The claim: a holder's claim is valid until its local deadline on its
 * CLOCK_MONOTONIC = send time of the last answered grant or keepalive +
 * TTL - margin; etcd ends the lease (and the node key with it) TTL after
 * it applied the last keepalive, on its own clock. So a holder stops
 * before another can take its node.
 *
 * Invariant I2 (assert in check_alone): never two holders with a valid
 * claim of the node at once (checked wherever a claim becomes valid or its
 * deadline moves; validity otherwise only ends as time passes).
 * Liveness (-DLIVE, the ltl below, pan -a -f): with etcd answering (no
 * loss, no timeouts) holder 2, which keeps trying and never crashes,
 * eventually holds the node, whatever holder 1 did with it (held it and
 * crashed, paused, released it) before HOLD_LIMIT.
 *
 * The world, as modelled:
 *   - etcd: one linearizable store; its clock is `now`; a lease ends when
 *     now reaches its expiry, and its keys go with it; a new leader may
 *     give every live lease a fresh TTL (once a run).
 *   - the network: each holder has one request in flight; etcd applies
 *     it any time after it was sent (a delay), the holders' requests in
 *     any order; a request or its answer may be lost, and the holder gives
 *     up waiting (the request timeout) and sends again (fail over). (A
 *     request applied after its holder gave up on it is claims_marks.pml's
 *     subject: here it would only move a lease's expiry later, since every
 *     deadline counts from a send time.)
 *   - holders: NH of them, each with one lease (lease_ensure's grant, the
 *     deadline counted from its send time), renewed by keepalives while
 *     the holder tries to take the node (a take answered "held" is tried
 *     again) and while it holds it; each takes the node at most once and
 *     gives it up when etcd says the lease is gone; they may pause (not
 *     be scheduled) for any time and crash at any step (their requests in
 *     flight may still land).
 *   - clocks: holder 1's CLOCK_MONOTONIC may run slow: it falls behind
 *     etcd's clock by up to DRIFT units over the run (DRIFT <= MARGIN: the
 *     README's "does not run slower than etcd's by more than the margin
 *     over one TTL"); the others run at etcd's rate (a fast clock only
 *     stops its holder sooner).
 *
 * Bounds: NH = 2 holders (3 holders pass the 2 GB and minutes this check
 * may take), TTL = 3 units, MARGIN 1, DRIFT 1, etcd's clock 0..TMAX
 * (TMAX 5: a lease granted at 0 can end, and another holder take the node,
 * twice over); LIVE: 2 holders, TMAX 6, holder 1 acting before 3.
 *
 * Mutant (spin -DMUTANT_NO_MARGIN): the fence without the margin:
 * deadline = send time + TTL (claim_etcd.c:378, 416).
 */

#ifdef LIVE
#define NH 2
#endif
#ifndef NH
#define NH 2
#endif
#define TTL 3
#ifdef MUTANT_NO_MARGIN
#define MARGIN 0
#else
#define MARGIN 1
#endif
#define DRIFT 1
#ifndef TMAX
#ifdef LIVE
#define TMAX 6
#else
#define TMAX 5
#endif
#endif
#ifdef LIVE
#define HOLD_LIMIT 3       /* holder 1 acts only before this; then it gives the node up */
#define GO(i) (i != 1 || now < HOLD_LIMIT)
/* a keepalive at most once a time unit (etcd_tick's TTL/3), so that a
 * holder's renewals do not stand in for its tries to take the node */
#define RENEW_OK(i) (renewed[i] != now + 1)
#define RENEWED(i) renewed[i] = now + 1
#else
#define GO(i) 1
#define RENEW_OK(i) 1
#define RENEWED(i) skip
#endif

/* requests */
#define NOREQ 0
#define TAKE  1
#define KEEP  2
#define DEL   3
#define GRANT 4
/* answers */
#define NOREP   0
#define OK      1
#define BUSY    2
#define GONE    3

byte now;                  /* etcd's clock */
byte lag;                  /* etcd's clock minus holder 1's CLOCK_MONOTONIC */

/* etcd */
byte key_holder;           /* whose lease the node key is on; 0: no key */
byte key_n;                /* which of its takes made it (the create_revision) */
byte lease_exp[NH + 1];    /* the holder's lease lives while now < lease_exp; 0: none */
bit  new_leader;           /* a leader change happened (at most once) */

/* the network: a request is its kind and, for a delete, the key's take */
byte req[NH + 1];          /* in flight, its answer awaited */
byte rep[NH + 1];          /* the answer to req[], once applied */

/* the holders' own view */
bit  held[NH + 1];         /* taken, not released, not crashed */
bit  lost[NH + 1];         /* etcd said the lease is gone */
byte deadline[NH + 1];     /* on the holder's CLOCK_MONOTONIC */
bit  ever[NH + 1];         /* the holder held the node at some point */
#ifdef LIVE
byte renewed[NH + 1];      /* now + 1 at the holder's last keepalive */
#endif

#define MONO(i)  (now - (i == 1 -> lag : 0))
#define VALID(i) (held[i] && !lost[i] && MONO(i) < deadline[i])

/* I2: holder i's claim just became valid, or its deadline moved: no
 * other holder's is valid. */
inline check_alone(i) {
    j = 1;
    do
    :: j <= NH -> assert(j == i || !VALID(j) || !VALID(i)); j++
    :: else -> break
    od;
    j = 0
}

/* ---- etcd ---------------------------------------------------------------- */

/* Applies holder i's request r, and answers it if `answer`. */
inline apply(i, r, answer) {
    if
    :: r == GRANT ->
       /* lease_ensure (claim_etcd.c:355-382): /v3/lease/grant. (A grant
        * applied twice, its first answer lost, is one lease here, its TTL
        * from the later: keys only last longer) */
       lease_exp[i] = now + TTL;
       if :: answer -> rep[i] = OK :: else -> skip fi
    :: r == TAKE ->
       /* etcd_take's txn (claim_etcd.c:628-691): create_revision(node) ==
        * 0 ? put with the lease : read; a dead lease: an error */
       if
       :: lease_exp[i] == 0 -> if :: answer -> rep[i] = GONE :: else -> skip fi   /* "requested lease not found" */
       :: lease_exp[i] != 0 && key_holder == 0 -> key_holder = i; if :: answer -> rep[i] = OK :: else -> skip fi
       :: lease_exp[i] != 0 && key_holder == i && answer -> rep[i] = OK    /* ours: an earlier attempt applied (668-675) */
       :: else -> if :: answer -> rep[i] = BUSY :: else -> skip fi
       fi
    :: r == KEEP ->
       /* /v3/lease/keepalive: a live lease gets TTL from now; a dead one
        * answers without a TTL (claim_etcd.c:388-461) */
       if
       :: lease_exp[i] != 0 -> lease_exp[i] = now + TTL; if :: answer -> rep[i] = OK :: else -> skip fi
       :: else -> if :: answer -> rep[i] = GONE :: else -> skip fi
       fi
    :: r == DEL ->
       /* delete_if_ours (claim_etcd.c:713-735); each holder takes once,
        * so "ours" is "on my lease" */
       if
       :: key_holder == i -> key_holder = 0
       :: else -> skip
       fi;
       if :: answer -> rep[i] = OK :: else -> skip fi
    fi;
    r = NOREQ
}

#ifdef LIVE
/* (holder 1's requests land before HOLD_LIMIT, or never) */
#define ETCD_FOR(i) \
    :: atomic { req[i] != NOREQ && rep[i] == NOREP && GO(i) -> apply(i, req[i], 1) }
#else
#define ETCD_FOR(i) \
    :: atomic { req[i] != NOREQ && rep[i] == NOREP -> apply(i, req[i], 1) }
#endif

proctype Etcd() {
    byte i;
end:
    do
    ETCD_FOR(1)
    ETCD_FOR(2)
#if NH >= 3
    ETCD_FOR(3)
#endif
#if NH >= 4
    ETCD_FOR(4)
#endif
    :: atomic { !new_leader && GO(1) ->
                /* a new leader: every live lease gets a fresh TTL */
                new_leader = 1;
                i = 1;
                do
                :: i <= NH -> if :: lease_exp[i] != 0 -> lease_exp[i] = now + TTL :: else -> skip fi; i++
                :: else -> break
                od;
                i = 0 }
    od
}

/* etcd's clock; leases end; holder 1's clock may lag (up to DRIFT) */
proctype Clock() {
    byte i;
end:
    do
    :: atomic {
           now < TMAX ->
           now++;
           if
           :: lag < DRIFT -> lag++     /* holder 1's clock did not advance */
           :: skip
           fi;
           i = 1;
           do
           :: i <= NH ->
              if
              :: lease_exp[i] != 0 && now >= lease_exp[i] ->
                 lease_exp[i] = 0;
                 if :: key_holder == i -> key_holder = 0 :: else -> skip fi
              :: else -> skip
              fi;
              i++
           :: else -> break
           od;
           i = 0
       }
    od
}

/* ---- a holder ------------------------------------------------------------ */

/* Sends req[i] (call_until, claim_etcd.c:262-345) and waits for the
 * answer; or gives up (a timeout, a lost request or answer): the request
 * may still land later, once. */
inline await(i) {
    do
    :: rep[i] != NOREP -> break
#ifdef LIVE
    :: atomic { !GO(i) -> req[i] = NOREQ; rep[i] = NOREP; break }   /* holder 1 after HOLD_LIMIT */
#else
    :: atomic {
           req[i] != NOREQ || rep[i] != NOREP ->      /* timeout: fail over */
           req[i] = NOREQ; rep[i] = NOREP;            /* the request, or its answer, lost */
           break
       }
#endif
    od
}

proctype Holder(byte i) {
    byte sent, j;
    bit took;

    /* lease_ensure (claim_etcd.c:355-382): the deadline of every claim on
     * the lease = the grant's send time + TTL - margin (378) */
grant:
    atomic { sent = MONO(i); req[i] = GRANT };
    await(i);
    if
    :: rep[i] == OK -> atomic { rep[i] = NOREP; deadline[i] = sent + TTL - MARGIN; sent = 0 }
    :: rep[i] == NOREP ->
#ifdef LIVE
       goto grant
#else
       if :: goto grant :: goto out fi                 /* no answer: again, or give up */
#endif
    fi;

end_holding:
    do
    :: !took ->
       /* etcd_take's txn (claim_etcd.c:612-709), tried again while held
        * by another (toidd's retry thread) */
       req[i] = TAKE;
       await(i);
       atomic {
           if
           :: rep[i] == OK ->
              took = 1; held[i] = 1; ever[i] = 1;
              check_alone(i)
           :: rep[i] == GONE -> rep[i] = NOREP; goto grant   /* the lease died meanwhile: a new one */
           :: else -> skip                            /* held, or no answer: again later */
           fi;
           rep[i] = NOREP
       };
       if
       :: took && !VALID(i) -> goto release          /* expired while being taken (claim.c:552-557) */
       :: else -> skip
       fi
    :: atomic { GO(i) && RENEW_OK(i) -> RENEWED(i); sent = MONO(i); req[i] = KEEP };  /* etcd_tick: keepalive (388-461) */
       await(i);
       atomic {
           if
           :: rep[i] == OK -> deadline[i] = sent + TTL - MARGIN; check_alone(i)   /* (413-424) */
           :: rep[i] == GONE && took -> lost[i] = 1; rep[i] = NOREP; sent = 0; goto release   /* claim_lose_all (425-439) */
           :: rep[i] == GONE && !took -> rep[i] = NOREP; sent = 0; goto grant   /* e->lease = 0: the next take grants one */
           :: else -> skip                            /* retried (440-452) */
           fi;
           rep[i] = NOREP; sent = 0
       }
    :: took -> goto release
#ifdef LIVE
    :: i == 1 -> goto crash                            /* holder 2 never crashes */
#else
    :: goto crash
#endif
    od;

release:
    /* give_up (claim.c:740-771): admits refuse; etcd_drop deletes the key
     * if it is still ours (claim_etcd.c:890-903) */
    held[i] = 0;
    if
    :: took && !lost[i] -> req[i] = DEL; await(i); rep[i] = NOREP
    :: else -> skip
    fi;
    goto out;
crash:
    held[i] = 0;
out:
    skip
}

init {
    atomic {
        run Clock();
        run Etcd();
        run Holder(1);
        run Holder(2);
#if NH >= 3
        run Holder(3);
#endif
#if NH >= 4
        run Holder(4);
#endif
    }
}

#ifdef LIVE
ltl live { <> ever[2] }
#endif
