/*
 * table.h — builds a 256-entry table at compile time from an expression F(c)
 * of the byte value, so no decode table is typed out by hand.
 */
#ifndef TOID_TABLE_H
#define TOID_TABLE_H

#define TOID__T4(F, b) F(b), F((b) + 1), F((b) + 2), F((b) + 3)
#define TOID__T16(F, b) TOID__T4(F, b), TOID__T4(F, (b) + 4), TOID__T4(F, (b) + 8), TOID__T4(F, (b) + 12)
#define TOID__T64(F, b) TOID__T16(F, b), TOID__T16(F, (b) + 16), TOID__T16(F, (b) + 32), TOID__T16(F, (b) + 48)
#define TOID__TABLE256(F) TOID__T64(F, 0), TOID__T64(F, 64), TOID__T64(F, 128), TOID__T64(F, 192)

#define TOID__IN(c, lo, hi) ((c) >= (lo) && (c) <= (hi))

#endif
