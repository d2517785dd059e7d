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
 *      (admit; the observer by[] records who admitted in each ms);
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
 *   - revisions, kept exactly but without counters (a counter would make
 *     states that differ only in its value, which nothing can observe):
 *       the node key's create_revision: each holder takes the node at
 *       most once, sends no take after the answer that told it the
 *       key's create_revision, and only it can make a key on its lease;
 *       so "the node key is at the create_revision holder i holds" is
 *       "the node key is on holder i's lease" (key_holder == i);
 *       the mark's mod_revision: a holder's copy of it (the one it holds,
 *       the one in its request, in its stale request, in an answer) is
 *       compared only with the mark's revision now, for equality, and a
 *       put always makes a revision never seen before; so each copy is
 *       one bit, "it is the mark's revision now", set when copied from
 *       etcd and cleared in every copy by every put of the mark.
 *   - holders: NH of them, each taking the node at most once (a take
 *     answered "held" is tried again); they may pause for any time and
 *     crash at any step (their requests in flight may still land). A
 *     holder whose mark write etcd refuses as not ours has lost the
 *     claim: it admits no more, its later writes can only be refused, it
 *     deletes nothing; the model ends it there.
 *   - wall clocks: one clock `now`, 0..WMAX, that every holder reads;
 *     holder 1's is SKEW ms ahead (another host). An admit is one ID at
 *     the holder's wall-clock ms.
 *   - admits of other threads while the claimer thread waits for etcd are
 *     modelled as made before it sent its request (they see the same
 *     floor and ceiling).
 *   - a holder's steps that touch only its own state (reading an answer,
 *     deciding, sending the next request) are one step: another process
 *     can tell them apart only by when the request is sent, and a sent
 *     request may wait any time before etcd applies it.
 *   - variables nothing will read again (a holder's once it is gone, the
 *     floor once the clock is past it, a stale write once the node key
 *     has left its holder for good) are set to 0 or dropped: states that
 *     differ only in them behave alike.
 *   - symmetry: holders 2..NH are alike (see TAKE_APPLIES); only runs in
 *     which they first make the node key in the order of their numbers
 *     are explored, which covers every run up to renaming them.
 *   - (etcd_write_mark's shortcut for a mark read from another holder and
 *     already high enough, claim_etcd.c:856-857, is not modelled: the
 *     model writes, or lowers, where the code would keep the higher mark,
 *     which allows more than the code does.)
 *
 * Bounds: NH holders (3 in CI), NEXP leases ended by etcd in a run (1),
 * wall clock 0..WMAX (2), SKEW 1, reservation R = 2, two attempts per
 * mark write that finds the mark moved (etcd_write_mark makes up to four
 * rounds), two attempts of a take that gets no answer.
 *
 * Mutants (spin -DMUTANT_...), one step each:
 *   MUTANT_NO_MARK_WAIT  takeover without waiting for the mark: a new
 *                        holder admits from its clock on, ignoring the
 *                        mark it read (claim.c:543-546: wait_past, floor_ms)
 *   MUTANT_NO_REV_GUARD  a mark write without the mod_revision compare:
 *                        a delayed write lands after a newer one
 *                        (claim_etcd.c:818-819)
 */

#ifndef NH
#define NH 3
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
#define REFUSED 3          /* (2, "held", is left out: see TAKE_APPLIES) */

byte now;                  /* the wall clock */
byte ends;                 /* leases ended so far */

/* etcd */
byte key_holder;           /* whose lease the node key is on; 0: no key */
byte mark;                 /* the mark key's value (0: none, every ID is after 0) */

/* the network; `cur`: the copy of the mark's mod_revision it carries is
 * the mark's revision now (see "revisions" above) */
typedef Req { byte kind; byte val; bit cur; bit lower };
Req req[NH + 1];           /* in flight, its answer awaited */
Req stale[NH + 1];         /* given up on; may still be applied */
byte rep[NH + 1];          /* the answer to req[], once applied */
bit  rep_ours[NH + 1];     /* REFUSED: the node key is still ours */
byte rep_mark[NH + 1];     /* OK to a TAKE, REFUSED: the mark */
bit  rep_cur[NH + 1];      /* the revision it carries is the mark's now */

/* the holders */
bit  mcur[NH + 1];         /* the mark revision it holds (ec->mark_rev) is the mark's now */
bit  made[NH + 1];         /* holder i made the node key at some point (TAKE_APPLIES) */

/* the observer: by[t] is the holder that admitted an ID in ms t (0: none) */
byte by[WMAX + SKEW + 1];

#define WALL(i) (now + (i == 1 -> SKEW : 0))

inline clear(r) {
    r.kind = NOREQ; r.val = 0; r.cur = 0; r.lower = 0
}

inline consume(i) {
    rep[i] = NOREP; rep_ours[i] = 0; rep_mark[i] = 0; rep_cur[i] = 0
}

/* ---- etcd ---------------------------------------------------------------- */

/* The node key leaves holder i (deleted, or its lease ended): i never
 * makes it again, so its stale mark write can only be refused, with an
 * answer that goes nowhere; it is dropped now. */
inline key_gone() {
    clear(stale[key_holder]);
    key_holder = 0
}

/* Applies holder i's request r; answers it if `answer` (the request in
 * flight), else (a stale one) its answer goes nowhere. */
inline apply(i, r, answer) {
    if
    :: r.kind == TAKE ->
       /* etcd_take (claim_etcd.c:612-709): the txn "create_revision(node)
        * == 0 ? put with the lease, read the mark : read node and mark";
        * a node held by another: see TAKE_APPLIES */
       if
       :: key_holder == 0 ->
          key_holder = i;
          if :: i >= 2 && i < NH -> made[i] = 1 :: else -> skip fi
       :: else -> skip
          /* ours though no claim of ours has it: an earlier attempt of this
           * txn was applied, its answer lost (claim_etcd.c:668-675) */
       fi;
       rep[i] = OK; rep_mark[i] = mark; rep_cur[i] = 1
    :: r.kind == MARK ->
       /* mark_txn (claim_etcd.c:807-851): node key ours (create_revision)
        * and mark at the revision last seen (mod_revision) ? put : read both */
#ifdef MUTANT_NO_REV_GUARD
       if
       :: key_holder == i ->
#else
       if
       :: key_holder == i && r.cur ->
#endif
          assert(r.val >= mark || r.lower);           /* I3: only a release lowers it */
          mark = r.val;
          j = 1;
          do
          :: j <= WMAX + SKEW -> assert(by[j] == 0 || mark >= j); j++   /* I3: not below an ID admitted */
          :: else -> break
          od;
          j = 1;                                      /* a new mod_revision: every copy of the old one is old */
          do
          :: j <= NH -> mcur[j] = 0; req[j].cur = 0; stale[j].cur = 0; rep_cur[j] = 0; j++
          :: else -> break
          od;
          j = 0;
          if :: answer -> rep[i] = OK; rep_cur[i] = 1 :: else -> skip fi
       :: else ->
          if
          :: answer ->
             rep[i] = REFUSED;
             rep_ours[i] = (key_holder == i);
             rep_mark[i] = mark; rep_cur[i] = 1
          :: else -> skip
          fi
       fi
    :: r.kind == DEL ->
       /* delete_if_ours (claim_etcd.c:713-735) */
       if
       :: key_holder == i -> key_gone()
       :: else -> skip
       fi;
       if :: answer -> rep[i] = OK :: else -> skip fi
    fi;
    clear(r)
}

/* A take of a node another holds is answered "held", and the holder sends
 * it again (toidd's retry thread): answer and retry change nothing, so the
 * model leaves them out, the take staying in flight (it may still time
 * out). Holders 2..NH are alike (same code, same clock): a run in which
 * they first make the node key in another order is the same run with
 * holders renamed, and breaks an invariant iff that one does; so only the
 * runs in which holder k (k > 2) first makes the key after holder k - 1
 * has made it are explored (made[]), which is exhaustive up to that
 * renaming. */
#define TAKE_APPLIES(i) (req[i].kind != TAKE || key_holder == i || \
                         key_holder == 0 && (i <= 2 || made[i - 1]))

/* etcd's moves for holder i: its request in flight applied (and
 * answered), its stale one applied (the answer goes nowhere) or lost */
#define ETCD_FOR(i) \
    :: d_step { req[i].kind != NOREQ && rep[i] == NOREP && TAKE_APPLIES(i) -> apply(i, req[i], 1) } \
    :: d_step { stale[i].kind != NOREQ -> apply(i, stale[i], 0) } \
    :: d_step { stale[i].kind != NOREQ -> clear(stale[i]) }

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
    :: d_step { key_holder != 0 && ends < NEXP -> key_gone(); ends++ }   /* the lease ended */
    :: d_step { now < WMAX -> now++ }                                    /* the wall clock moves on */
    od
}

/* ---- a holder ------------------------------------------------------------ */

/* toid_claim_admit (claim.c:713-742): after the floor, at or before the
 * durable ceiling; one ID at the wall clock's ms. (Enabled only while the
 * holder holds the node: in the loop below; and not again in a ms it
 * admitted already, which changes nothing.) */
inline admit(i) {
    d_step {
        WALL(i) > floor && WALL(i) <= ceiling && by[WALL(i)] != i ->   /* (floor: see wait_past) */
        assert(by[WALL(i)] == 0);                      /* I1: no other holder's ID in this ms */
        assert(mark >= WALL(i));                       /* I3: durable */
        by[WALL(i)] = i;
        top = WALL(i)
    }
}

/* Sends req[i] (call_until, claim_etcd.c:262-345). */
inline send(i, k, v, low) {
    req[i].kind = k; req[i].val = v; req[i].cur = mcur[i]; req[i].lower = low
}

/* The request timed out (a lost request or answer): the holder gives up
 * on it and fails over; a mark write may still land later, once. */
inline give_up_req(i) {
    if
    :: req[i].kind == MARK && stale[i].kind == NOREQ ->
       stale[i].kind = MARK; stale[i].val = req[i].val; stale[i].cur = req[i].cur;
       stale[i].lower = req[i].lower
    :: else -> skip
    fi;
    clear(req[i]);
    consume(i)
}

#define TIMEOUT(i) (req[i].kind != NOREQ || rep[i] != NOREP)

/* etcd_write_mark (claim_etcd.c:853-888) of wv (sent by the caller),
 * guarded by the create and mod revisions; on success the ceiling
 * (claim.c:189-190) unless it lowers the mark (give_up). One atomic step
 * per answer: reading it, deciding, sending again. Refused as not ours:
 * the claim is lost (claim.c:181-186): it admits no more, its writes can
 * only be refused, and it is not deleted; the holder is done with it. */
inline write_mark(i, wv, low) {
    do
    :: atomic { rep[i] == OK ->
           mcur[i] = rep_cur[i]; if :: !low -> ceiling = wv :: else -> skip fi; consume(i); break }
    :: atomic { rep[i] == REFUSED && !rep_ours[i] -> consume(i); goto out }   /* not ours: lost */
    :: atomic { rep[i] == REFUSED && rep_ours[i] ->
           mcur[i] = rep_cur[i];                       /* moved by another write (of ours, delayed) */
           if
           :: rep_mark[i] >= wv -> if :: !low -> ceiling = wv :: else -> skip fi; consume(i); break
           :: else ->
              consume(i);
              if
              :: tries < 2 -> tries++; send(i, MARK, wv, low)   /* write ours over it */
              :: else -> break
              fi
           fi }
    :: atomic { TIMEOUT(i) -> give_up_req(i); break }      /* no answer: TOID_CLAIM_EIO */
    od;
    tries = 0
}

proctype Holder(byte i) {
    byte floor, ceiling, top, val, tries;

    /* toid_claim_acquire -> take_node (claim.c:530-570) -> etcd_take */
    req[i].kind = TAKE;
    do
    :: atomic { rep[i] == OK -> floor = rep_mark[i]; mcur[i] = rep_cur[i]; consume(i); tries = 0; break }
    :: atomic { TIMEOUT(i) ->                          /* no answer: again (twice at most), or give up */
           give_up_req(i);
           tries++;
           if :: tries < 2 -> req[i].kind = TAKE :: goto out fi }
    od;
#ifdef MUTANT_NO_MARK_WAIT
    floor = 0;
#else
    /* wait_past (claim.c:502-527, called at 543): until the wall clock is past the mark */
    if
    :: WALL(i) > floor -> skip
    :: goto release                                    /* EBEHIND: given up */
    fi;
#endif
    /* claim.c:545-549: the start counts as use. (take_node's first
     * extend_locked, 551-553, is the loop's first write below: no admit
     * passes before a write anyway.) From here on every wall-clock ms is
     * past the floor (the clock only moves on): floor, dead, is kept as 0
     * (a value nothing reads would only multiply the states). */
    atomic { top = WALL(i); floor = 0 };

end_holding:
    do
    :: admit(i)
    :: atomic {                                        /* the thread moves the mark ahead (extend_locked, claim.c:166-192; */
           WALL(i) + R > ceiling ->                    /* max(clock, top) is the clock: top is a past reading of it) */
           val = WALL(i) + R; tries = 1; send(i, MARK, val, 0)
       };
       write_mark(i, val, 0);
       val = 0
    :: goto release
    :: goto out                                        /* a crash (its stale write may still land) */
    od;

release:
    /* give_up (claim.c:746-777): admits refuse; the mark lowered to the
     * last ID admitted (the claim is valid: the fence's part); then
     * etcd_drop deletes the key if it is still ours (claim_etcd.c:890-903) */
    atomic {
        if
        :: top < ceiling -> tries = 1; send(i, MARK, top, 1)
        :: else -> req[i].kind = DEL; goto delete
        fi
    };
    write_mark(i, top, 1);
    req[i].kind = DEL;
delete:
    do
    :: atomic { rep[i] != NOREP -> consume(i); break }
    :: atomic { TIMEOUT(i) -> give_up_req(i); break }
    od;
out:
    /* the holder is gone: its variables, dead, are kept as 0 (its stale
     * request, if any, may still land) */
    atomic { floor = 0; ceiling = 0; top = 0; val = 0; tries = 0; mcur[i] = 0 }
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
