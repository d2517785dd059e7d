/* state.h — the state directory: per (format, node) an exclusive lock and a
 * persisted high-water mark ("every ID issued has a time <= T"), so that no
 * ID repeats across restarts, crashes and instances sharing the directory. */
#ifndef TOIDD_STATE_H
#define TOIDD_STATE_H

#include <stdint.h>

#include "toid.h"

typedef struct state state;

typedef struct state_opts {
    int reset;                  /* --reset-state: forget the old mark */
    uint32_t clock_wait_max_ms; /* wait at most this for the clock to pass the mark */
    uint32_t reserve_ms;        /* how far ahead each write of the mark reaches */
} state_opts;

enum { STATE_EBEHIND = -100, STATE_EIO = -101 };

/*
 * Opens the state of (f, node) in dir: takes the lock (refuses if another
 * process holds it), reads and checks the mark (refuses if it is missing
 * while the lock file exists, corrupt, or written for another epoch), waits
 * (bounded) until the clock is past it, then reserves ahead. Returns 0 and
 * *out, or -1 after logging the reason.
 */
int state_open(const char *dir, toid_format f, uint32_t node, int64_t epoch_ms,
               const state_opts *o, state **out);

/*
 * Called before IDs whose times span [min_ms, max_ms] leave the process:
 * returns 0 if they may (every time is after the mark found at start, and
 * the persisted mark is >= max_ms, written now if needed), STATE_EBEHIND if
 * min_ms is not after the mark of the previous run, STATE_EIO if the mark
 * could not be persisted. Thread-safe.
 */
int state_admit(state *s, int64_t min_ms, int64_t max_ms);

/* Starts / stops the thread that moves marks ahead before requests reach
 * them (stop it before closing any state). */
int state_flusher_start(state *const *states, int n);
void state_flusher_stop(void);

/* Closes the state. clean: no ID can be issued any more, so the mark is
 * lowered to the largest time actually issued (a fast restart). */
void state_close(state *s, int clean);

/* Counters for /metrics. */
uint64_t state_writes(void);
/* ...of which made by a request, which waited for it (the mark had gone cold
 * or the flusher fell behind). */
uint64_t state_request_writes(void);
uint64_t state_write_errors(void);

#endif
