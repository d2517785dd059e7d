/*
 * registry.pml: the host's node registry (the local claim backend,
 * claim/claim_local.c, with claim/claim.c's take, admit and release),
 * checked by SPIN.
 *
 * The claim: a node of a format is held by whoever holds flock(LOCK_EX) on
 * FORMAT-NODE.lock, a file that is never removed; its high-water mark
 * FORMAT-NODE.mark is replaced atomically (temp file, fsync, rename); a new
 * holder reads the mark under the lock and issues only IDs after it; a
 * child of fork() shares its parent's lock but its claims refuse.
 * Invariants checked:
 *   - two holders never hold one node: when a take succeeds, no other
 *     process holds a valid claim of the node (assert in take);
 *   - no two processes admit an ID of the node in the same millisecond
 *     (assert in admit).
 *
 * The kernel, as modelled: a path names an inode (or nothing); open(2)
 * with O_CREAT makes the inode if the path names none and returns a new
 * open file description (OFD); flock(2) locks belong to the OFD and end
 * when its last descriptor closes (close, exit, a crash: the kernel closes
 * every descriptor of a dead process); fork(2) gives the child descriptors
 * to the same OFDs; rename(2) replaces the mark at once. One wall clock,
 * the host's, read by both processes; it only moves forward here (a clock
 * set back is the claims model's subject, and claim.c's wait_past refuses
 * a mark too far ahead).
 *
 * Bounds: two processes, each taking the node up to twice (released
 * cleanly, released without lowering the mark, or crashed, at any step);
 * process 1 may fork one child while it holds the node (the child keeps
 * its copy of the descriptor, as a toid_claimer opened before the fork
 * does, or closes it, as toid_claim_process's fork handler does); wall
 * clock 0..WMAX ms; reservation R ms.
 *
 * Mutants (spin -DMUTANT_...):
 *   MUTANT_UNLINK_LOCK   a release removes the lock file before closing it
 *                        (claim_local.c:5-6 says why it never does)
 *   MUTANT_CHILD_ADMITS  a child of fork() admits with its parent's claim
 *                        (no claim_forked() check, claim.c:151-162)
 */

#ifndef WMAX
#define WMAX 5
#endif
#define R 2
#define NINODE 4           /* inodes 1..3 */
#define NOFD 5             /* OFDs 1..4: process p's k-th open is 2*(p-1)+k */
#define NPROC 4            /* processes 1, 2; 3: 1's child */

byte path_inode;           /* the inode FORMAT-NODE.lock names; 0: none */
byte n_inodes;
byte lock_ofd[NINODE];     /* the OFD holding flock(LOCK_EX) on the inode; 0: none */
byte ofd_inode[NOFD];
byte ofd_refs[NOFD];       /* descriptors open on the OFD, in every process */
byte mark;                 /* FORMAT-NODE.mark: issued up to this ms (0: every ID after 0) */
byte now;                  /* the host's wall clock, ms */
bit  valid[NPROC];         /* the process holds a valid claim of the node */
byte who[WMAX + 1];        /* bit p: process p admitted an ID in that ms */
bit  child_forked;

/* The kernel closes a descriptor of OFD f; the last one ends its lock. */
inline close_ofd(f) {
    ofd_refs[f]--;
    if
    :: ofd_refs[f] == 0 && lock_ofd[ofd_inode[f]] == f -> lock_ofd[ofd_inode[f]] = 0
    :: else -> skip
    fi
}

/* The wall clock moves on, at any moment. */
proctype Clock() {
end:
    do
    :: atomic { now < WMAX -> now++ }
    od
}

/* A claim's admit (claim.c:707-736): one ID of this ms. */
inline admit(me, floor, ceiling) {
    atomic {
        ms = now;
        if
        :: ms > floor && ms <= ceiling && valid[me] ->
           assert((who[ms] & ~(1 << me)) == 0);
           who[ms] = who[ms] | (1 << me);
           top = (ms > top -> ms : top)
        :: else -> skip   /* refused: behind the floor, past the ceiling (the thread writes the mark first) */
        fi
    }
}

/* extend_locked (claim.c:166-192) with local_write_mark (claim_local.c:260-302):
 * the mark moved to max(clock, top) + R; temp file, fsync, then rename
 * (atomic); a crash before the rename leaves the old mark. */
inline extend(me) {
    tmp = (now > top -> now : top) + R;
    if
    :: tmp > ceiling ->
       atomic { mark = tmp; ceiling = tmp }
    :: else -> skip
    fi
}

proctype Child(byte fd; byte floor; byte ceiling) {
    byte ms, top;
    /* the child's claims refuse (claim_forked, claim.c:151-162): valid
     * stays 0; without the check, the parent's claim goes on in the child */
#ifdef MUTANT_CHILD_ADMITS
    valid[3] = 1;
    admit(3, floor, ceiling);
    valid[3] = 0;
#endif
    if
    :: skip      /* a claimer opened before fork(): the descriptor stays open */
    :: true ->   /* toid_claim_process's fork handler: claim_abandon_forked closes it */
       atomic { close_ofd(fd); fd = 0 }
    fi;
    /* the child exits (or crashes): the kernel closes what it still has */
    atomic {
        if
        :: fd != 0 -> close_ofd(fd)
        :: else -> skip
        fi
    }
}

proctype Process(byte me) {
    byte fd, floor, ceiling, top, tmp, ms, takes, i;
    do
    :: takes == 2 -> break
    :: takes < 2 ->
       takes++;
       /* local_take (claim_local.c:391-475): open with O_CREAT, never
        * removing (claim_local.c:402) */
       atomic {
           if
           :: path_inode == 0 -> n_inodes++; path_inode = n_inodes
           :: else -> skip
           fi;
           fd = 2 * (me - 1) + takes; ofd_inode[fd] = path_inode; ofd_refs[fd] = 1
       };
       /* flock(LOCK_EX | LOCK_NB) (claim_local.c:413) */
       atomic {
           if
           :: lock_ofd[ofd_inode[fd]] == 0 ->
              lock_ofd[ofd_inode[fd]] = fd;
              /* two holders never hold one node */
              i = 1;
              do
              :: i < NPROC -> assert(i == me || !valid[i]); i++
              :: else -> break
              od;
              valid[me] = 1
           :: else -> close_ofd(fd); fd = 0     /* TOID_CLAIM_EBUSY */
           fi
       };
       if
       :: fd == 0 -> skip
       :: else ->
          /* read_mark under the lock (claim_local.c:446), the floor */
          floor = mark; ceiling = 0; top = 0;
          /* wait_past (claim.c:173-193): the clock past the mark */
          if
          :: now > floor -> skip
          :: true -> goto crash   /* (or refused: EBEHIND, the claim given up) */
          fi;
          /* take_node reserves ahead (claim.c:539-547) */
          top = now;
          extend(me);
          do
          :: admit(me, floor, ceiling)
          :: extend(me)
          :: me == 1 && !child_forked ->
             /* fork(2): the child has a descriptor to the same OFD */
             atomic { child_forked = 1; ofd_refs[fd]++; run Child(fd, floor, ceiling) }
          :: break
          od;
          if
          :: true ->
             /* clean release (claim.c:740-771): admits refuse, then the
              * mark lowered to the last ID admitted */
             valid[me] = 0;
             if
             :: top < ceiling -> mark = top
             :: else -> skip
             fi
          :: true -> valid[me] = 0     /* not clean: the mark stays ahead */
          :: true -> goto crash
          fi;
#ifdef MUTANT_UNLINK_LOCK
          path_inode = 0;              /* unlink(FORMAT-NODE.lock) */
#endif
          /* local_drop (claim_local.c:515-525): close; the lock ends */
          atomic { close_ofd(fd); fd = 0; floor = 0; ceiling = 0; top = 0; tmp = 0; ms = 0 }
       fi
    od;
    goto out;
crash:
    /* the process dies: the kernel closes its descriptors */
    atomic {
        valid[me] = 0;
        close_ofd(fd)
    };
out:
    skip
}

init {
    atomic {
        run Clock();
        run Process(1);
        run Process(2)
    }
}
