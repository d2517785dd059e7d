/* new_gen.h — the thread tests' generator: a format's defaults, WAIT when a
 * ms is exhausted, on the heap on its own cache lines (as the process-wide
 * generators are), so that the tests see the lines the library lays out. */
#ifndef TOID_TEST_NEW_GEN_H
#define TOID_TEST_NEW_GEN_H
#include "toid.h"

#include <stdlib.h>

static inline toid_gen *new_gen(toid_format f) {
    size_t size = toid_gen_size(f);
    toid_gen *g = aligned_alloc(64, (size + 63) / 64 * 64);
    toid_gen_config c;
    toid_gen_config_default(f, &c);
    c.on_exhausted = TOID_EXHAUSTED_WAIT;
    if (!g || toid_gen_init_size(g, size, &c) < 0)
        abort();
    return g;
}
#endif
