/*
 * num: a double as text in the shortest form that reads back to the same
 * double (a tau posted as 2535.05 is written 2535.05, never
 * 2535.0500000000002), for every JSON answer, export and label karte writes.
 */
#ifndef KARTE_NUM_H
#define KARTE_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NUM_TEXT_MAX 32

/* v (finite) into buf (NUM_TEXT_MAX bytes), as the first of %.15g, %.16g
 * and %.17g that reads back as v would write it (so at most 17 significant
 * digits, and as few as the value needs), made without printf: whole
 * numbers below 10^15 digit by digit, any other double from its shortest
 * round-trip digits (dconv_shortest) laid out as %g lays them out;
 * subnormals, inf and nan by snprintf. With real, a whole number keeps a
 * ".0" (as jansson writes reals). Returns the length. */
size_t num_shortest(double v, char *buf, bool real);

/* v in decimal into buf (24 bytes); returns the length. */
size_t num_int(int64_t v, char *buf);

#endif
