/*
 * dconv: doubles to and from decimal text, in C (dconv.c): Schubfach
 * writes the shortest digits that read back to the same double, and a
 * 128-bit power-of-ten table (Eisel-Lemire) reads the double nearest to a
 * decimal, with glibc's strtod for the rare numbers it cannot settle. Both
 * exact, and neither takes glibc's multi-precision path that
 * printf("%.17g") and strtod take for most computed values.
 */
#ifndef KARTE_DCONV_H
#define KARTE_DCONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* v (finite, not 0) as its shortest decimal digits that read back as v,
 * the closest of them to v: digits[] gets 1 to 17 digits and a NUL,
 * *e10 the power of ten of the first digit, *neg the sign. Returns the
 * number of digits. */
int dconv_shortest(double v, char digits[18], int *e10, bool *neg);

/* u's decimal digits (1 to 20) into buf, no NUL; returns how many. */
size_t dconv_digits(uint64_t u, char *buf);

/* The double nearest to the decimal s[0..len) (sign, digits, an optional
 * fraction and exponent: a JSON number): 0 and *out set, or -1 when s is
 * not one number as a whole. Infinities come back as such (a caller that
 * wants finite values checks). */
int dconv_strtod(const char *s, size_t len, double *out);

#endif
