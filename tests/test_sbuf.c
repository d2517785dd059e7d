/* test_sbuf.c — toidd's growing byte buffer (server/util.c): sbuf_printf
 * of short and long texts (past its 512-byte stack buffer), and its max. */
#include "check.h"
#include "util.h"

TEST_CASE(printf_short) {
    sbuf b;
    sbuf_init(&b, 1 << 16);
    CHECK_EQ_INT(sbuf_printf(&b, "%s=%d\n", "count", 42), 0);
    CHECK_EQ_INT(sbuf_pending(&b), 9);
    CHECK(memcmp(b.data, "count=42\n", 9) == 0);
    sbuf_free(&b);
}

/* longer than the stack buffer: formatted again into the buffer, whole */
TEST_CASE(printf_long) {
    sbuf b;
    sbuf_init(&b, 1 << 16);
    char word[3001];
    memset(word, 'x', 3000);
    word[3000] = '\0';
    CHECK_EQ_INT(sbuf_printf(&b, "a"), 0);
    CHECK_EQ_INT(sbuf_printf(&b, "<%s|%d>", word, 7), 0);
    CHECK_EQ_INT(sbuf_pending(&b), 1 + 3000 + 4);
    CHECK(b.data[0] == 'a' && b.data[1] == '<' && b.data[3001] == 'x');
    CHECK(memcmp(b.data + 3002, "|7>", 3) == 0);
    sbuf_free(&b);
}

/* past max: -1, nothing appended */
TEST_CASE(printf_past_max) {
    sbuf b;
    sbuf_init(&b, 1000);
    char word[1201];
    memset(word, 'y', 1200);
    word[1200] = '\0';
    CHECK_EQ_INT(sbuf_printf(&b, "%s", "ok"), 0);
    CHECK_EQ_INT(sbuf_printf(&b, "%s", word), -1);
    CHECK_EQ_INT(sbuf_pending(&b), 2);
    sbuf_free(&b);
}

int main(int argc, char **argv) {
    return check_main(argc, argv, NULL, NULL);
}
