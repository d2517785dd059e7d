/*
 * toid_bind_words.h — words the bindings share with the command-line tool
 * where the library has no function for them (header only: each binding is
 * one C file built by its own tool). A decode error is the library's
 * toid_explain, an unknown format name toid_format_name_error; these are
 * for times.
 */
#ifndef TOID_BINDINGS_WORDS_H
#define TOID_BINDINGS_WORDS_H

/* What a time that toid_parse_time_span refused should have been, as
 * `toid range` says it. */
#include <toid.h>

#define TOID_BIND_TIME_EXPECTED "expected " TOID_TIME_EXPECTED

#endif
