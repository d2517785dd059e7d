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
#define TOID_BIND_TIME_EXPECTED                                                       \
    "expected ISO 8601 (2024, 2024-01-01T10:30Z), @SECONDS, Nms/Ns/Nus, unix ms, now " \
    "or now-1h/-15m/+2d"

#endif
