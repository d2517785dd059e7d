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
 *   - etcd: one linearizable store; a lease ends when TTL units of etcd's
 *     clock have passed since it applied the grant or the last keepalive,
 *     and its keys go with it; a new leader may give every live lease a
 *     fresh TTL (once a run).
 *   - the network: each holder has one request in flight; etcd applies
 *     it any time after it was sent (a delay), the holders' requests in
 *     any order; a request or its answer may be lost, and the holder gives
 *     up waiting (the request timeout) and sends again (fail over). (A
 *     request applied after its holder gave up on it is claims_marks.pml's
 *     subject: here it would only move a lease's expiry later, since every
 *     deadline counts from a send time.)
 *   - holders: NH of them, each with one lease (lease_ensure's grant, the
 *     deadline counted from its send time), renewed by keepalives while
 *     it holds the node (and, in the code, while it tries to take it: see
 *     RENEW_OK); each takes the node at most once (a take answered "held"
 *     is tried again) and gives it up when etcd says the lease is gone;
 *     they may pause (not be scheduled) for any time and crash at any
 *     step (their requests in flight may still land).
 *   - clocks: time passes in ticks of etcd's clock, without end (LIVE:
 *     up to TMAX); holder 1's CLOCK_MONOTONIC may run slow: it misses up
 *     to DRIFT ticks over the run (DRIFT <= MARGIN: the README's "does
 *     not run slower than etcd's by more than the margin over one TTL");
 *     the others run at etcd's rate (a fast clock only stops its holder
 *     sooner). Times are kept as what is left of them, not as readings
 *     of a clock: a lease's units left on etcd's clock (L), a claim's
 *     units left before its deadline on its holder's clock (D, 0 once
 *     passed), and, while a grant or keepalive is in flight, the units
 *     left before the deadline its answer will set (P: send time + TTL -
 *     margin, counted down from the send on the holder's clock). Every
 *     comparison the code makes (a holder's clock against its deadline,
 *     etcd's clock against a lease's expiry) is one of these against 0,
 *     so this is exact; and with no clock reading in the state, states
 *     that differ only in the time they happen at are one, which lets
 *     time run on without a bound.
 *   - a holder's steps that touch only its own state (reading an answer,
 *     deciding, sending the next request) are one step: another process
 *     can tell them apart only by when the request is sent, and a sent
 *     request may wait any time before etcd applies it.
 *   - symmetry: holders 2..NH are alike (see TAKE_APPLIES); only runs in
 *     which they first make the node key in the order of their numbers
 *     are explored, which covers every run up to renaming them.
 *
 * Bounds: NH = 3 holders (LIVE: 2), TTL = 3 units, MARGIN 1, DRIFT 1;
 * time without bound (LIVE: 0..TMAX = 6, holder 1 acting before 3).
 *
 * Mutant (spin -DMUTANT_NO_MARGIN): the fence without the margin:
 * deadline = send time + TTL (claim_etcd.c:378, 416).
 */

#ifdef LIVE
#define NH 2
#endif
#ifndef NH
#define NH 3
#endif
#define TTL 3
#ifdef MUTANT_NO_MARGIN
#define MARGIN 0
#else
#define MARGIN 1
#endif
#define DRIFT 1
#ifdef LIVE
#ifndef TMAX
#define TMAX 6
#endif
#define HOLD_LIMIT 3       /* holder 1 acts only before this; then it gives the node up */
#define GO(i) (i != 1 || now < HOLD_LIMIT)
/* a keepalive at most once a time unit (etcd_tick's TTL/3), so that a
 * holder's renewals do not stand in for its tries to take the node; and
 * before the take too */
#define RENEW_OK(i) (renewed[i] != now + 1)
#define RENEWED(i) renewed[i] = now + 1
#define EVER(i) ever[i] = 1
/* no loss, no timeouts: only holder 1, after HOLD_LIMIT, gives up waiting */
#define TIMEOUT(i) (!GO(i))
#define TIME_MAY_PASS (now < TMAX)
#define TIME_PASSES now++
#else
#define GO(i) 1
/* A keepalive before the take gives the lease the same pair (deadline on
 * the holder's clock from the send time, expiry on etcd's from the apply
 * time) as a grant sent at that moment, and a holder may send its grant
 * at any moment: so only a holder that holds the node renews. */
#define RENEW_OK(i) held[i]
#define RENEWED(i) skip
#define EVER(i) skip
/* a timeout: the request, or its answer, lost */
#define TIMEOUT(i) (req[i] != NOREQ || rep[i] != NOREP)
#define TIME_MAY_PASS 1
#define TIME_PASSES skip
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

byte since = TTL - 1;      /* etcd's ticks since holder 1's clock last missed one, up to TTL - 1 */
#ifdef LIVE
byte now;                  /* etcd's clock */
#endif

/* etcd */
byte key_holder;           /* whose lease the node key is on; 0: no key */
byte L[NH + 1];            /* units left of holder i's lease on etcd's clock; 0: none, or ended */
bit  new_leader;           /* a leader change happened (at most once) */

/* the network */
byte req[NH + 1];          /* in flight, its answer awaited */
byte rep[NH + 1];          /* the answer to req[], once applied */

/* the holders' own view */
bit  held[NH + 1];         /* taken, not released, not crashed, not lost */
byte D[NH + 1];            /* units left before the deadline, on the holder's clock; 0: passed */
byte P[NH + 1];            /* for a grant or keepalive in flight: the D its answer sets, as of now */
#ifdef LIVE
bit  ever[NH + 1];         /* the holder held the node at some point */
byte renewed[NH + 1];      /* now + 1 at the holder's last keepalive */
#else
bit  made[NH + 1];         /* holder i made the node key at some point (TAKE_APPLIES) */
#endif

/* claim_is_valid (claim.c:155-162): its clock before the deadline */
#define VALID(i) (held[i] && D[i] > 0)

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

/* Applies holder i's request r, and answers it. */
inline apply(i, r) {
    if
    :: r == GRANT ->
       /* lease_ensure (claim_etcd.c:355-382): /v3/lease/grant. (A grant
        * applied twice, its first answer lost, is one lease here, its TTL
        * from the later: keys only last longer) */
       L[i] = TTL;
       rep[i] = OK
    :: r == TAKE ->
       /* etcd_take's txn (claim_etcd.c:628-691): create_revision(node) ==
        * 0 ? put with the lease : read; a dead lease: an error */
       if
       :: L[i] == 0 -> rep[i] = GONE                  /* "requested lease not found" */
       :: L[i] != 0 && key_holder == 0 ->
          key_holder = i; rep[i] = OK;
#ifndef LIVE
          if :: i >= 2 && i < NH -> made[i] = 1 :: else -> skip fi
#endif
       :: L[i] != 0 && key_holder == i -> rep[i] = OK  /* ours: an earlier attempt applied (668-675) */
       :: else -> rep[i] = BUSY                         /* (LIVE only: see TAKE_APPLIES) */
       fi
    :: r == KEEP ->
       /* /v3/lease/keepalive: a live lease gets TTL from now; a dead one
        * answers without a TTL (claim_etcd.c:388-461) */
       if
       :: L[i] != 0 -> L[i] = TTL; rep[i] = OK
       :: else -> rep[i] = GONE
       fi
    :: r == DEL ->
       /* delete_if_ours (claim_etcd.c:713-735); each holder takes once,
        * so "ours" is "on my lease" */
       if
       :: key_holder == i -> key_holder = 0
       :: else -> skip
       fi;
       rep[i] = OK
    fi;
    r = NOREQ
}

#ifdef LIVE
#define TAKE_APPLIES(i) 1
/* (holder 1's requests land before HOLD_LIMIT, or never) */
#define ETCD_FOR(i) \
    :: d_step { req[i] != NOREQ && rep[i] == NOREP && GO(i) -> apply(i, req[i]) }
#else
/* A take of a node another holds is answered "held" and the holder tries
 * again later; for the holder that is the same as a take that timed out,
 * so the model leaves the answer out (the take stays in flight until it
 * times out, or the node is free). Holders 2..NH are alike (same code,
 * same clock): a run in which they first make the node key in another
 * order is the same run with holders renamed, and breaks I2 iff that one
 * does; so only the runs in which holder k (k > 2) first makes the key
 * after holder k - 1 has made it are explored (made[]), which is
 * exhaustive up to that renaming. */
#define TAKE_APPLIES(i) (req[i] != TAKE || L[i] == 0 || key_holder == i || \
                         key_holder == 0 && (i <= 2 || made[i - 1]))
#define ETCD_FOR(i) \
    :: d_step { req[i] != NOREQ && rep[i] == NOREP && TAKE_APPLIES(i) -> apply(i, req[i]) }
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
    :: d_step { !new_leader && GO(1) ->
                /* a new leader: every live lease gets a fresh TTL */
                new_leader = 1;
                i = 1;
                do
                :: i <= NH -> if :: L[i] != 0 -> L[i] = TTL :: else -> skip fi; i++
                :: else -> break
                od;
                i = 0 }
    od
}

/* A tick of etcd's clock: leases run down and end, their keys with them;
 * the holders' clocks tick too, holder 1's unless `slow` (it misses the
 * tick: its clock falls behind etcd's). */
#define TICK(cond, slow) \
    d_step { \
        TIME_MAY_PASS && cond -> \
        TIME_PASSES; \
        if :: slow -> since = 0 :: else -> since = since + (since < TTL - 1) fi; \
        i = 1; \
        do \
        :: i <= NH -> \
           if \
           :: L[i] > 0 -> \
              L[i]--; \
              if :: L[i] == 0 && key_holder == i -> key_holder = 0 :: else -> skip fi \
           :: else -> skip \
           fi; \
           if \
           :: i != 1 || !slow -> \
              if :: D[i] > 0 -> D[i]-- :: else -> skip fi; \
              if :: P[i] > 0 -> P[i]-- :: else -> skip fi \
           :: else -> skip \
           fi; \
           i++ \
        :: else -> break \
        od; \
        i = 0 \
    }

proctype Clock() {
    byte i;
end:
    do
    :: TICK(1, 0)
    :: TICK(since == TTL - 1, 1)   /* holder 1's clock misses this tick (DRIFT 1 in any TTL ticks) */
    od
}

/* ---- a holder ------------------------------------------------------------ */

/* give_up (claim.c:746-777): admits refuse; etcd_drop deletes the key if
 * it is still ours (claim_etcd.c:890-903) */
#define RELEASE(i) held[i] = 0; req[i] = DEL; goto release

/* Sends a grant or a keepalive, noting the deadline its answer will set:
 * send time + TTL - margin (claim_etcd.c:378, 416) */
#define SEND_RENEWAL(i, kind) P[i] = TTL - MARGIN; req[i] = kind

/* Each request is sent (call_until, claim_etcd.c:262-345) in one atomic
 * step with the holder's decision to send it, and its answer read and
 * acted on in one. A timeout gives the request up (TIMEOUT: lost, or its
 * answer lost), and the holder fails over. */
proctype Holder(byte i) {
    byte j;

    /* lease_ensure (claim_etcd.c:355-382): the deadline of every claim on
     * the lease = the grant's send time + TTL - margin (378) */
    atomic { SEND_RENEWAL(i, GRANT) };
grant:
    do
    :: atomic { rep[i] == OK -> rep[i] = NOREP; D[i] = P[i]; P[i] = 0; break }
    :: atomic { TIMEOUT(i) -> req[i] = NOREQ; rep[i] = NOREP;
#ifdef LIVE
           SEND_RENEWAL(i, GRANT)                          /* again */
#else
           if
           :: SEND_RENEWAL(i, GRANT)                       /* again */
           :: P[i] = 0; goto out                           /* or give up */
           fi
#endif
       }
    od;

end_holding:
    do
    :: atomic { !held[i] -> req[i] = TAKE };
       /* etcd_take's txn (claim_etcd.c:612-709), tried again while held
        * by another (toidd's retry thread) */
       do
       :: atomic { rep[i] == OK ->
              rep[i] = NOREP; held[i] = 1; EVER(i);
              check_alone(i);
              if
              :: !VALID(i) -> RELEASE(i)                   /* expired while being taken (claim.c:558-563) */
              :: else -> break
              fi }
       :: atomic { rep[i] == GONE ->                       /* the lease died meanwhile: a new one */
              rep[i] = NOREP; SEND_RENEWAL(i, GRANT); goto grant }
       :: atomic { rep[i] == BUSY || TIMEOUT(i) -> req[i] = NOREQ; rep[i] = NOREP; break }  /* held: again later */
       od
    :: atomic { GO(i) && RENEW_OK(i) -> RENEWED(i); SEND_RENEWAL(i, KEEP) };
       /* etcd_tick: keepalive (388-461) */
       do
       :: atomic { rep[i] == OK ->                         /* (413-424) */
              rep[i] = NOREP; D[i] = P[i]; P[i] = 0; check_alone(i); break }
       :: atomic { rep[i] == GONE && held[i] ->            /* claim_lose_all (425-439): lost, not deleted */
              rep[i] = NOREP; P[i] = 0; held[i] = 0; goto out }
       :: atomic { rep[i] == GONE && !held[i] ->           /* e->lease = 0: the next take grants one */
              rep[i] = NOREP; SEND_RENEWAL(i, GRANT); goto grant }
       :: atomic { TIMEOUT(i) -> req[i] = NOREQ; rep[i] = NOREP; P[i] = 0; break }   /* retried (440-452) */
       od
    :: atomic { held[i] -> RELEASE(i) }
#ifdef LIVE
    :: i == 1 -> goto crash                            /* holder 2 never crashes */
#else
    :: goto crash
#endif
    od;

release:
    do
    :: atomic { rep[i] != NOREP -> rep[i] = NOREP; break }
    :: atomic { TIMEOUT(i) -> req[i] = NOREQ; rep[i] = NOREP; break }
    od;
    goto out;
crash:
    held[i] = 0;
out:
    /* the holder is gone: its deadline, dead, is kept as 0; its lease too
     * unless the node key is on it (nothing renews it or takes with it) */
    atomic {
        D[i] = 0;
        if :: key_holder != i -> L[i] = 0 :: else -> skip fi
    }
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
