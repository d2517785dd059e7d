/*
 * ownership.pml: the generator's ownership (src/gen.c, src/gen_owner.h),
 * checked by SPIN.
 *
 * The claim: the first thread to make an ID owns the generator and makes
 * its IDs with plain stores, bracketed by g->busy (odd inside an ID). A
 * second thread takes the generator from it for good: it stores
 * owner = REVOKING under the lock, runs membarrier(2), waits for busy to be
 * even, packs the owner's head into the one-word state and stores
 * owner = MANY; from then on every thread makes IDs by compare-and-swap on
 * that word. A forked child resets what its parent's threads left (lock,
 * owner, busy) and starts a new stream. Invariants checked:
 *   - no two IDs from one state: every ID of a stream is issued once
 *     (assert in issue());
 *   - no state change lost: at the end the state of record (the head while
 *     a thread owns g, the word from MANY on) is the last ID issued
 *     (assert in the final check);
 *   - no thread waits forever (SPIN's invalid end states): a revoker is
 *     never cancelled half way, and a child never waits for a thread it
 *     does not have.
 *
 * Memory: x86-TSO. Each thread's plain stores (busy, the head) go through
 * a FIFO store buffer (chan sb[]) that drains to memory at any moment
 * (proctype Drain); a thread reads its own latest stores (it is the only
 * writer of busy and the head while it owns g). Locked instructions (the
 * lock's CAS, the word's CAS) and system calls (membarrier, fork) drain the
 * caller's buffer first. membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) makes
 * every CPU running a thread of the process run a full barrier: here, it
 * drains every buffer of the process at once. Stores of the revoker
 * (owner, word) are modelled as reaching memory at once: the only load it
 * makes between its store of REVOKING and membarrier is none.
 *
 * Abstracted: an ID is "state + 1" (a format's pure core is a function of
 * the state; the clock and random bits do not matter for the ownership);
 * the generator's lock is a test-and-set; a lost compare-and-swap retries.
 *
 * Mutants (spin -DMUTANT_...): each removes one step of the protocol.
 *   MUTANT_NO_MEMBARRIER    disown() without membarrier(2)      (gen.c:306)
 *   MUTANT_NO_REREAD        the owner does not read owner again
 *                           after making busy odd        (gen_owner.h:66)
 *   MUTANT_NO_FORK_RESET    a child goes on with its parent's state
 *                           (no check_fork_slow reset)    (gen.c:406-431)
 *   MUTANT_CANCEL_IN_DISOWN the revoker may be cancelled in disown's
 *                           wait (cancellation not disabled) (gen.c:337-350)
 *
 * Bounds: two threads in the parent, NIDS IDs each; one fork, by thread A,
 * between two of its IDs, the child's one thread making one ID; store
 * buffers of SB entries.
 */

#ifndef NIDS
#define NIDS 2
#endif
#define SB 2
#define MAXID 8            /* > every ID a run can make */

#define NONE     0         /* TOID__OWNER_NONE (gen_owner.h:32) */
#define MANY     1         /* TOID__OWNER_MANY */
#define REVOKING 2         /* TOID__OWNER_REVOKING */
#define TA       3         /* thread A's id (toid__self_id) */
#define TB       4         /* thread B's */

mtype = { BUSY, HEAD };

/* memory: [0] the parent's, [1] the child's copy after fork() */
byte owner[2], busy[2], head[2], word[2];
bit  lock[2];
bit  fresh[2];             /* the space's stream was started anew (forget_state) */
byte made[2];              /* IDs made from the space's state of record */
bit  issued[MAXID];        /* the parent's stream (a child without reset shares it) */
bit  issued_new[MAXID];    /* the child's own stream, after its reset */
byte done;                 /* threads of the parent that finished */
bit  forked;

chan sb[3] = [SB] of { mtype, byte };   /* store buffers: A, B, the child's thread */

inline apply(sp, v, x) {
    if
    :: v == BUSY -> busy[sp] = x
    :: else -> head[sp] = x
    fi
}

/* a store buffer drains, one store at a time, at any moment */
proctype Drain(byte b; byte sp) {
    mtype v; byte x;
end:
    do
    :: atomic { sb[b]?v,x -> apply(sp, v, x) }
    od
}

/* drains buffer b now (a locked instruction, a system call) */
inline drain(b, sp) {
    do
    :: atomic { sb[b]?v,x -> apply(sp, v, x) }
    :: empty(sb[b]) -> break
    od
}

/* An ID leaves: the dup check of its stream. */
inline issue(sp, id) {
    if
    :: fresh[sp] -> assert(!issued_new[id]); issued_new[id] = 1
    :: else -> assert(!issued[id]); issued[id] = 1
    fi;
    made[sp]++
}

proctype Thread(byte me; byte sp; byte b; byte n) {
    byte o, bz, mybusy, myhead, id, w;
    bit in, taker;
    mtype v; byte x;

    if
    :: sp == 1 ->
       /* the child's first call: check_fork (gen.c:434-438) finds a new
        * fork generation; check_fork_slow (gen.c:406-431) resets what the
        * parent's threads left, without the lock, and forget_state()
        * starts a new stream (node formats: TOID_EFORKED until
        * re-initialised; the others: a new ms and new random bits) */
#ifndef MUTANT_NO_FORK_RESET
       lock[1] = 0; owner[1] = NONE; busy[1] = 0; head[1] = 0; word[1] = 0; fresh[1] = 1
#else
       skip
#endif
    :: else -> skip
    fi;
    mybusy = busy[sp]; myhead = head[sp];

    do
    :: n == 0 -> break
    :: n > 0 && sp == 0 && me == TA && !forked ->
       /* fork() between two IDs of A (the system call drains A's buffer;
        * B's stores still buffered are not in the child's copy) */
       atomic {
           drain(b, sp);
           forked = 1;
           owner[1] = owner[0]; busy[1] = busy[0]; head[1] = head[0];
           word[1] = word[0]; lock[1] = lock[0]; fresh[1] = fresh[0];
           run Drain(2, 1);
           run Thread(TA, 1, 2, 1)
       }
    :: n > 0 ->
       /* toid__gen_one (gen_owner.h:246-254): owner, relaxed */
       o = owner[sp];
       if
       :: o == me ->
          /* toid__enter_owned (gen_owner.h:60-70): busy made odd, then
           * owner read again, with only a compiler barrier between */
          bz = mybusy;
          assert(bz % 2 == 0);
          mybusy = bz + 1;
          sb[b]!BUSY,mybusy;
#ifndef MUTANT_NO_REREAD
          if
          :: owner[sp] == me -> in = 1
          :: else -> in = 0; mybusy = bz + 2; sb[b]!BUSY,mybusy   /* taken: back out */
          fi;
#else
          in = 1;
#endif
          if
          :: in ->
             /* the core on the head, plain stores (gen_owner.h:204-235) */
             id = myhead + 1;
             issue(sp, id);
             myhead = id;
             sb[b]!HEAD,id;
             /* toid__leave_owned (gen_owner.h:73-76): busy even, release */
             mybusy = bz + 2;
             sb[b]!BUSY,mybusy;
             n--
          :: else -> skip
          fi
       :: o == MANY ->
          /* compare-and-swap on the word (gen_owner.h:188-230, chunk_cas
           * gen.c:655-694): a snapshot, the core on it, then the CAS (a
           * locked instruction: drains the buffer); a lost CAS redoes it */
          w = word[sp];
          id = w + 1;
          drain(b, sp);
          atomic {
              if
              :: word[sp] == w -> word[sp] = id; issue(sp, id); n--
              :: else -> skip
              fi
          }
       :: else ->
          /* owned_by -> settle_owner (gen.c:327-351, 363-370) */
          if
          :: o == REVOKING ->
             (owner[sp] != REVOKING)                   /* wait_revoked (gen.c:292-295) */
          :: else ->
             /* pthread_setcancelstate(DISABLE) (gen.c:338); toid__lock */
             drain(b, sp);
             atomic { lock[sp] == 0 -> lock[sp] = 1 };
             o = owner[sp];
             taker = 0;
             if
             :: o == NONE ->
                owner[sp] = me;                        /* barrier_ready(): membarrier registered */
                mybusy = busy[sp]; myhead = head[sp]
             :: o != me && o != MANY && o != REVOKING ->
                owner[sp] = REVOKING; taker = 1
             :: else -> skip
             fi;
             lock[sp] = 0;                             /* toid__unlock */
             if
             :: taker ->
                /* disown (gen.c:304-321) */
#ifndef MUTANT_NO_MEMBARRIER
                atomic {                               /* membarrier(PRIVATE_EXPEDITED) */
                    if
                    :: sp == 0 -> drain(0, 0); drain(1, 0)
                    :: else -> drain(2, 1)
                    fi
                }
#endif
#ifdef MUTANT_CANCEL_IN_DISOWN
                if
                :: goto cancelled                      /* wait_step's sleep: a cancellation point */
                :: skip
                fi;
#endif
                (busy[sp] % 2 == 0);                   /* the owner out of its ID (gen.c:308-309) */
                word[sp] = head[sp];                   /* the head packed into the word (gen.c:310-319) */
                owner[sp] = MANY                       /* release (gen.c:320) */
             :: else -> skip
             fi
          fi
       fi
    od;
#ifdef MUTANT_CANCEL_IN_DISOWN
cancelled:
#endif
    if
    :: sp == 0 -> done++
    :: else -> skip
    fi
}

init {
    mtype v; byte x;
    atomic {
        run Drain(0, 0);
        run Drain(1, 0);
        run Thread(TA, 0, 0, NIDS);
        run Thread(TB, 0, 1, NIDS)
    }
    (done == 2);
    /* no state change lost: once the buffers are out, the state of record
     * holds the last ID the parent's stream issued */
    drain(0, 0);
    drain(1, 0);
    if
    :: owner[0] == MANY -> assert(word[0] == made[0] || fresh[0])
    :: else -> assert(head[0] == made[0] || fresh[0])
    fi
}
