/*
 * pg_module.c — the extension's entry point.
 */
#include "pgtoid.h"

PG_MODULE_MAGIC;

void _PG_init(void);

void _PG_init(void) {
    pgtoid_gen_init();
}
