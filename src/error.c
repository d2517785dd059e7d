/* error.c — the error table: one X-macro list in toid.h, messages and class
 * names derived from it. */
#include "format.h"

const char *toid_strerror(int err) {
    switch (err) {
#define TOID__MSG(name, val, shortname, msg) case val: return msg;
        TOID_ERROR_LIST(TOID__MSG)
#undef TOID__MSG
    default:
        return "unknown error";
    }
}

const char *toid_err_name(int err) {
    switch (err) {
#define TOID__NAME(name, val, shortname, msg) case val: return shortname;
        TOID_ERROR_LIST(TOID__NAME)
#undef TOID__NAME
    default:
        return "unknown";
    }
}
