/*
 * claims_marks.pml: node claims in etcd, the marks (claim/claim.c with
 * claim/claim_etcd.c), checked by SPIN. claims_fence.pml checks the
 * leases and deadlines; this model checks what keeps IDs apart whatever
 * the clocks do.
 *
 * The claim: a holder takes a node by a transaction "put the node key
 * with my lease if it has no create_revision; read the mark" (etcd_take),
 * waits until its wall clock is past that mark (wait_past), writes the
 * mark ahead of the IDs it admits (extend_locked -> etcd_write_mark, a
 * transaction guarded by "the node key is mine" and "the mark is at the
 * revision I last saw"), admits an ID only when it is after the mark it
 * found and at or before the mark it made durable, and gives the node
 * back by lowering the mark to its last ID and deleting the key.
 *
 * Invariants (asserts):
 *   I1 no two holders admit an ID of the node in the same millisecond
 *      (admit; each holder's IDs lie in [lo, hi], its wall clock only
 *      moving on, and no other holder's ID may fall in that range);
 *   I3 the mark never falls below an ID admitted, by anyone, and only a
 *      clean release lowers it (etcd's MARK, and admit).
 *
 * The world, as modelled:
 *   - etcd: one linearizable store; it may end a holder's lease, and the
 *     node key with it, at any moment (a holder paused or cut off past its
 *     TTL): no clock is needed, since every timing of the expiry is
 *     allowed. The holders learn of it only when a mark write is refused.
 *     (That a holder stops on its own clock first is claims_fence.pml's
 *     subject; here a holder admits while it believes it holds the node,
 *     which allows more than the code does.)
 *   - the network: each holder has one request in flight and one stale
 *     mark write (one it gave up on, which a member may still apply later:
 *     the attempt before a fail-over). Etcd applies requests in any order
 *     at any time; requests and answers may be lost; a holder may give up
 *     waiting (the request timeout) and send again (fail over). (A take or
 *     delete applied late is left out: both are guarded by the node key's
 *     revision, and a late take only holds the node on a lease, the
 *     orphan case, which is about liveness.)
 *   - revisions: etcd's one revision counter is kept as two, one for the
 *     node key's create_revision and one for the mark's mod_revision:
 *     each is compared only with its own kind, for equality.
 *   - holders: NH of them, each taking the node at most once (a take
 *     answered "held" is tried again); they may pause for any time and
 *     crash at any step (their requests in flight may still land).
 *   - wall clocks: one clock `now`, 0..WMAX, that every holder reads;
 *     holder 1's is SKEW ms ahead (another host). An admit is one ID at
 *     the holder's wall-clock ms.
 *   - admits of other threads while the claimer thread waits for etcd are
 *     modelled as made before it sent its request (they see the same
 *     floor and ceiling).
 *
 * Bounds: NH holders, NEXP leases ended by etcd in a run, wall clock 0..WMAX, SKEW 1, reservation R = 2, two
 * attempts per mark write (etcd_write_mark makes up to four rounds), two
 * attempts of a take that gets no answer.
 *
 * Mutants (spin -DMUTANT_...), one step each:
 *   MUTANT_NO_MARK_WAIT  takeover without waiting for the mark: a new
 *                        holder admits from its clock on, ignoring the
 *                        mark it read (claim.c:537-540: wait_past, floor_ms)
 *   MUTANT_NO_REV_GUARD  a mark write without the mod_revision compare:
 *                        a delayed write lands after a newer one
 *                        (claim_etcd.c:818-819)
 */

#ifndef NH
#define NH 2
#endif
#ifndef WMAX
#define WMAX 2
#endif
#ifndef NEXP
#define NEXP 1             /* leases etcd may end in a run */
#endif
#define R 2
#define SKEW 1

/* requests */
#define NOREQ 0
#define TAKE  1
#define MARK  2
#define DEL   3
/* answers */
#define NOREP   0
#define OK      1
#define BUSY    2
#define REFUSED 3

byte now;                  /* the wall clock */
byte ends;                 /* leases ended so far */

/* etcd */
byte key_holder;           /* whose lease the node key is on; 0: no key */
byte key_crev;             /* its create_revision */
byte mark;                 /* the mark key's value (0: none, every ID is after 0) */
byte mark_rev;             /* its mod_revision */
byte krev;                 /* etcd's revision, as node keys see it (only compared for equality) */
byte mrev_ctr;             /* etcd's revision, as the mark key sees it (likewise) */

/* the network */
typedef Req { byte kind; byte crev; byte mrev; byte val; bit lower };
Req req[NH + 1];           /* in flight, its answer awaited */
Req stale[NH + 1];         /* given up on; may still be applied */
byte rep[NH + 1];          /* the answer to req[], once applied */
byte rep_a[NH + 1];
byte rep_b[NH + 1];
byte rep_c[NH + 1];

/* the holders' own view */
bit  held[NH + 1];         /* taken, not released, not crashed */
bit  lost[NH + 1];         /* etcd refused a mark write: not ours */

/* the observer */
byte lo[NH + 1];           /* the first ms holder i admitted (0: none yet) */
byte hi[NH + 1];           /* the last */

#define WALL(i) (now + (i == 1 -> SKEW : 0))

inline clear(r) {
    r.kind = NOREQ; r.crev = 0; r.mrev = 0; r.val = 0; r.lower = 0
}

/* ---- etcd ---------------------------------------------------------------- */

/* Applies holder i's request r; answers it if `answer` (the request in
 * flight), else (a stale one) its answer goes nowhere. */
inline apply(i, r, answer) {
    if
    :: r.kind == TAKE ->
       /* etcd_take (claim_etcd.c:612-709): the txn "create_revision(node)
        * == 0 ? put with the lease, read the mark : read node and mark" */
       if
       :: key_holder == 0 ->
          key_holder = i; krev++; key_crev = krev;
          if :: answer -> rep[i] = OK; rep_a[i] = key_crev; rep_b[i] = mark; rep_c[i] = mark_rev :: else -> skip fi
       :: key_holder == i && answer ->
          /* ours though no claim of ours has it: an earlier attempt of this
           * txn was applied, its answer lost (claim_etcd.c:668-675) */
          rep[i] = OK; rep_a[i] = key_crev; rep_b[i] = mark; rep_c[i] = mark_rev
       :: else -> if :: answer -> rep[i] = BUSY :: else -> skip fi
       fi
    :: r.kind == MARK ->
       /* mark_txn (claim_etcd.c:807-851): node key ours and mark at the
        * revision last seen ? put : read both */
#ifdef MUTANT_NO_REV_GUARD
       if
       :: key_holder != 0 && key_crev == r.crev ->
#else
       if
       :: key_holder != 0 && key_crev == r.crev && mark_rev == r.mrev ->
#endif
          assert(r.val >= mark || r.lower);           /* I3: only a release lowers it */
          mark = r.val; mrev_ctr++; mark_rev = mrev_ctr;
          j = 1;                                      /* I3: not below an ID admitted */
          do
          :: j <= NH -> assert(mark >= hi[j]); j++
          :: else -> break
          od;
          j = 0;
          if :: answer -> rep[i] = OK; rep_a[i] = mark_rev :: else -> skip fi
       :: else ->
          if
          :: answer ->
             rep[i] = REFUSED;
             rep_a[i] = (key_holder != 0 && key_crev == r.crev);
             rep_b[i] = mark; rep_c[i] = mark_rev
          :: else -> skip
          fi
       fi
    :: r.kind == DEL ->
       /* delete_if_ours (claim_etcd.c:713-735) */
       if
       :: key_holder != 0 && key_crev == r.crev -> key_holder = 0; key_crev = 0
       :: else -> skip
       fi;
       if :: answer -> rep[i] = OK :: else -> skip fi
    fi;
    clear(r)
}

/* etcd's moves for holder i: its request in flight applied (and
 * answered), its stale one applied (the answer goes nowhere) or lost */
#define ETCD_FOR(i) \
    :: atomic { req[i].kind != NOREQ && rep[i] == NOREP -> apply(i, req[i], 1) } \
    :: atomic { stale[i].kind != NOREQ -> apply(i, stale[i], 0) } \
    :: atomic { stale[i].kind != NOREQ -> clear(stale[i]) }

proctype Etcd() {
    byte j;
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
    :: atomic { key_holder != 0 && ends < NEXP ->                    /* the lease ended */
                key_holder = 0; key_crev = 0; ends++ }
    :: atomic { now < WMAX -> now++ }                                /* the wall clock moves on */
    od
}

/* ---- a holder ------------------------------------------------------------ */

/* toid_claim_admit (claim.c:707-736): after the floor, at or before the
 * durable ceiling; one ID at the wall clock's ms. */
inline admit(i) {
    atomic {
        if
        :: held[i] && !lost[i] && WALL(i) > floor && WALL(i) <= ceiling ->
           j = 1;                                      /* I1: no other holder's IDs in this ms */
           do
           :: j <= NH -> assert(j == i || lo[j] == 0 || WALL(i) < lo[j] || WALL(i) > hi[j]); j++
           :: else -> break
           od;
           j = 0;
           assert(mark >= WALL(i));                    /* I3: durable */
           if :: lo[i] == 0 -> lo[i] = WALL(i) :: else -> skip fi;
           hi[i] = WALL(i);
           top = WALL(i)
        :: else -> skip                                /* refused, or waits for a mark write */
        fi
    }
}

/* Sends req[i] (call_until, claim_etcd.c:262-345) and waits for the
 * answer; or gives up (a timeout, a lost request or answer): the request
 * may still land later, once. */
inline await(i) {
    do
    :: rep[i] != NOREP -> break
    :: atomic {
           req[i].kind != NOREQ || rep[i] != NOREP ->  /* timeout: fail over */
           if
           :: req[i].kind == MARK && stale[i].kind == NOREQ ->
              stale[i].kind = req[i].kind; stale[i].crev = req[i].crev; stale[i].mrev = req[i].mrev;
              stale[i].val = req[i].val; stale[i].lower = req[i].lower
           :: else -> skip
           fi;
           clear(req[i]);
           consume(i);
           break
       }
    od
}

inline consume(i) {
    rep[i] = NOREP; rep_a[i] = 0; rep_b[i] = 0; rep_c[i] = 0
}

/* etcd_write_mark (claim_etcd.c:853-888) of wv, guarded by crev and
 * mrev; on success the ceiling (claim.c:189-190). */
inline write_mark(i, wv, low) {
    tries = 0;
    do
    :: tries < 2 ->
       tries++;
       atomic { req[i].kind = MARK; req[i].crev = crev; req[i].mrev = mrev; req[i].val = wv; req[i].lower = low };
       await(i);
       atomic {
           if
           :: rep[i] == OK -> mrev = rep_a[i]; if :: !low -> ceiling = wv :: else -> skip fi; consume(i); break
           :: rep[i] == REFUSED && !rep_a[i] -> lost[i] = 1; consume(i); break   /* not ours: lost */
           :: rep[i] == REFUSED && rep_a[i] ->
              mrev = rep_c[i];                      /* moved by another write (of ours, delayed) */
              if
              :: rep_b[i] >= wv -> if :: !low -> ceiling = wv :: else -> skip fi; consume(i); break
              :: else -> consume(i)                 /* write ours over it */
              fi
           :: rep[i] == NOREP -> break              /* no answer: TOID_CLAIM_EIO */
           fi
       }
    :: else -> break
    od;
    tries = 0
}

proctype Holder(byte i) {
    byte floor, ceiling, top, crev, mrev, val, tries, j;

    /* toid_claim_acquire -> take_node (claim.c:524-565) -> etcd_take */
take:
    req[i].kind = TAKE;
    await(i);
    if
    :: rep[i] == OK ->
       atomic { crev = rep_a[i]; floor = rep_b[i]; mrev = rep_c[i]; consume(i); held[i] = 1; tries = 0 }
    :: rep[i] == BUSY -> consume(i); goto take         /* held: try again */
    :: rep[i] == NOREP ->                              /* no answer: again (twice at most), or give up */
       tries++;
       if :: tries < 2 -> goto take :: goto out fi
    fi;
#ifdef MUTANT_NO_MARK_WAIT
    floor = 0;
#else
    /* wait_past (claim.c:496-521): until the wall clock is past the mark */
    if
    :: WALL(i) > floor -> skip
    :: goto release                                    /* EBEHIND: given up */
    fi;
#endif
    top = WALL(i);                                     /* claim.c:543: the start counts as use */
    /* (take_node's first extend_locked, claim.c:545-547, is the loop's
     * first write below: no admit passes before a write anyway) */

end_holding:
    do
    :: admit(i)
    :: atomic { val = (WALL(i) > top -> WALL(i) : top) + R };   /* the thread moves the mark ahead */
       if
       :: val > ceiling -> write_mark(i, val, 0)
       :: else -> skip
       fi;
       val = 0
    :: goto release
    :: goto crash
    od;

release:
    /* give_up (claim.c:740-771): admits refuse; the mark lowered to the
     * last ID admitted, if the claim was valid; then etcd_drop deletes the
     * key if it is still ours (claim_etcd.c:890-903) */
    atomic { val = held[i] && !lost[i]; held[i] = 0 };
    if
    :: val && top < ceiling -> write_mark(i, top, 1)
    :: else -> skip
    fi;
    val = 0;
    if
    :: !lost[i] ->
       atomic { req[i].kind = DEL; req[i].crev = crev };
       await(i);
       consume(i)
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
