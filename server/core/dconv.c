/*
 * dconv: doubles to and from decimal text in C (dconv.h).
 *
 * Out: Raffaello Giulietti's Schubfach ("The Schubfach way to render
 * doubles", 2020): the decimal interval that reads back as v is scaled by
 * one 128-bit power of ten (pow10_table.h) and the shortest, then the
 * closest, decimal in it is picked with three multiplications.
 *
 * In: the digits as one 64-bit integer w and the power of ten q; w * 10^q
 * is w times the same table's 10^q rounded down, in 192 bits (Lemire's
 * way; Clinger's exact path for short numbers was no faster here).
 * The true product lies in [P, P + w): where that interval holds the
 * halfway point between two doubles (about one number in 2^60), or the
 * result is subnormal or out of range, or the digits are more than 19,
 * glibc's strtod, exact and slow, decides.
 */
#include "dconv.h"

#include <stdlib.h>
#include <string.h>

#include "pow10_table.h"

__extension__ typedef unsigned __int128 u128;	/* GCC, clang: 64-bit targets */

/* floor(log2(10^e)), floor(log10(2^e)), floor(log10(3/4 * 2^e)) for the
 * exponents a double has (checked over the table by pow10_gen.py; >> of a
 * negative int is an arithmetic shift in GCC and clang) */
static int floor_log2_pow10(int e) { return (e * 1741647) >> 19; }
static int floor_log10_pow2(int e) { return (e * 1262611) >> 22; }
static int floor_log10_three_quarters_pow2(int e) { return (e * 1262611 - 524031) >> 22; }

/* The top 64 bits of g * cp / 2^64, the bits below folded into the last
 * one ("round to odd"): g is the table's 128-bit 10^e. */
static uint64_t round_to_odd(const uint64_t g[2], uint64_t cp)
{
	u128 x = (u128)g[1] * cp;
	u128 y = (u128)g[0] * cp + (x >> 64);

	return (uint64_t)(y >> 64) | ((uint64_t)y > 1);
}

/* v = c * 2^q, c < 2^53, as s * 10^k with s the shortest digits, closest */
static uint64_t schubfach(uint64_t fraction, int biased, int *k10)
{
	uint64_t c, cbl, cb, cbr, vbl, vb, vbr, lower, upper, s, mid;
	const uint64_t *g;
	int q, k, h, closer, odd;

	if (biased != 0) {
		c = fraction | (1ull << 52);
		q = biased - 1075;
		if (q <= 0 && q > -53 && (c & ((1ull << -q) - 1)) == 0) {
			*k10 = 0;	/* a whole number: its own digits */
			return c >> -q;
		}
	} else {
		c = fraction;
		q = 1 - 1075;
	}
	odd = (int)(c & 1);	/* an odd c's bounds do not read back as v */
	closer = fraction == 0 && biased > 1;	/* the lower neighbour nearer */
	cbl = 4 * c - 2 + (uint64_t)closer;
	cb = 4 * c;
	cbr = 4 * c + 2;
	k = closer ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
	h = q + floor_log2_pow10(-k) + 1;	/* 1 to 4 */
	g = pow10_g[-k - POW10_MIN];
	vbl = round_to_odd(g, cbl << h);
	vb = round_to_odd(g, cb << h);
	vbr = round_to_odd(g, cbr << h);
	lower = vbl + (uint64_t)odd;
	upper = vbr - (uint64_t)odd;
	s = vb / 4;
	if (s >= 10) {	/* one digit fewer: at most one of sp, sp + 1 inside */
		uint64_t sp = s / 10;
		int up = lower <= 40 * sp, wp = 40 * sp + 40 <= upper;

		if (up != wp) {
			*k10 = k + 1;
			return sp + (uint64_t)wp;
		}
	}
	{
		int u = lower <= 4 * s, w = 4 * s + 4 <= upper;

		if (u != w) {
			*k10 = k;
			return s + (uint64_t)w;
		}
	}
	mid = 4 * s + 2;	/* both inside: the closer, the even on a tie */
	*k10 = k;
	return s + (uint64_t)(vb > mid || (vb == mid && (s & 1)));
}

/* Two digits of a pair table at a time, from the end of buf[0..k). */
static void pairs_back(uint32_t u, char *buf, size_t k)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";

	for (; k >= 2; k -= 2, u /= 100)
		memcpy(buf + k - 2, pairs + 2 * (u % 100), 2);
	if (k)
		buf[0] = (char)('0' + u % 10);
}

size_t dconv_digits(uint64_t u, char *buf)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
	};
	/* how many: from the bit length, 1233/4096 being about log10(2) */
	size_t k = (size_t)((64 - __builtin_clzll(u | 1)) * 1233 >> 12), lo;

	k += k < 20 && u >= pow10[k];
	k += k == 0;
	/* in 32-bit parts: the last eight digits, then the eight before
	 * them, then what is left (a 64-bit division is several times slower) */
	if (k <= 9) {
		pairs_back((uint32_t)u, buf, k);
		return k;
	}
	lo = k - 8;
	pairs_back((uint32_t)(u % 100000000), buf + lo, 8);
	u /= 100000000;
	if (lo <= 9) {
		pairs_back((uint32_t)u, buf, lo);
		return k;
	}
	pairs_back((uint32_t)(u % 100000000), buf + lo - 8, 8);
	pairs_back((uint32_t)(u / 100000000), buf, lo - 8);
	return k;
}

int dconv_shortest(double v, char digits[18], int *e10, bool *neg)
{
	uint64_t bits, s;
	int k;

	memcpy(&bits, &v, sizeof bits);
	*neg = bits >> 63;
	s = schubfach(bits & ((1ull << 52) - 1), (int)(bits >> 52 & 0x7ff), e10);
	while (s % 10 == 0 && s > 9) {	/* 1200: digits 12 */
		s /= 10;
		++*e10;
	}
	k = (int)dconv_digits(s, digits);
	digits[k] = '\0';
	*e10 += k - 1;
	return k;
}

/* w * 10^q by the table, or -1 where only strtod can tell (inlined, as
 * digits_into: 28 ns a 17-digit decimal, not 30) */
static inline __attribute__((always_inline)) int eisel_lemire(uint64_t w, int q, double *out)
{
	const uint64_t *g;
	uint64_t hi, mid, lo, rh, hh, m, bits;
	u128 a, b;
	int lz, top, e;

	if (w == 0) {
		*out = 0;
		return 0;
	}
	if (q < POW10_MIN || q > POW10_MAX)
		return -1;
	g = pow10_g[q - POW10_MIN];
	lz = __builtin_clzll(w);
	w <<= lz;
	/* P = w * (g - 1) in 192 bits, hi:mid:lo; first its top 128, w * g's
	 * high word, enough unless the bits under the 53 are near a halfway
	 * point or all ones (one in 340): then the low word's product too */
	a = (u128)w * g[0];
	hi = (uint64_t)(a >> 64);
	mid = (uint64_t)a;
	lo = 0;
	top = 62 + (int)(hi >> 63);	/* P's top bit is 128 + top */
	/* rh what lies under the 53 bits in hi, hh the halfway point's bit
	 * there (9 or 10 bits down: top is 62 or 63) */
	rh = hi & ((1ull << (top - 52)) - 1);
	hh = 1ull << (top - 53);
	if (rh == hh - 1 || rh == hh || rh == 2 * hh - 1) {
		b = (u128)w * (g[1] - 1);	/* g's low word is never 0 */
		lo = (uint64_t)b;
		b = (b >> 64) + mid;
		mid = (uint64_t)b;
		hi += (uint64_t)(b >> 64);
		top = 62 + (int)(hi >> 63);
		rh = hi & ((1ull << (top - 52)) - 1);
		hh = 1ull << (top - 53);
		/* the true product is in [P, P + w), w < 2^64 */
		if ((rh == hh && mid == 0 && lo == 0) || (rh == hh - 1 && mid == UINT64_MAX && lo != 0))
			return -1;	/* that holds the halfway point */
	}
	m = hi >> (top - 52);
	m += rh > hh || (rh == hh && (mid | lo) != 0);
	e = 128 + top - 127 + floor_log2_pow10(q) - lz;	/* v = 1.f * 2^e */
	if (m == 1ull << 53) {
		m >>= 1;
		e++;
	}
	if (e < -1022 || e > 1023)	/* subnormal or beyond: strtod */
		return -1;
	bits = (uint64_t)(e + 1023) << 52 | (m & ((1ull << 52) - 1));
	memcpy(out, &bits, sizeof *out);
	return 0;
}

/* Eight ASCII digits at once (little-endian loads; SWAR, as fast_float
 * does): whether c[0..8) are all digits, and their value. */
static uint64_t load8(const char *c)
{
	uint64_t v;

	memcpy(&v, c, sizeof v);
	return v;
}

static int all8digits(uint64_t v)
{
	return !(((v + 0x4646464646464646u) | (v - 0x3030303030303030u)) & 0x8080808080808080u);
}

static uint64_t value8(uint64_t v)
{
	v -= 0x3030303030303030u;
	v = v * 10 + (v >> 8);	/* pairs of digits in every other byte */
	v = ((v & 0x000000ff000000ffu) * (100 + (1000000ull << 32)) +
	     ((v >> 16) & 0x000000ff000000ffu) * (1 + (10000ull << 32))) >> 32;
	return (uint32_t)v;
}

/* Digits from *c on into *w (which wraps past 19 of them) */
static inline __attribute__((always_inline)) const char *digits_into(const char *c, const char *end, uint64_t *w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (end - c >= 8 && all8digits(load8(c))) {
		*w = *w * 100000000u + value8(load8(c));
		c += 8;
	}
#endif
	for (; c < end && *c >= '0' && *c <= '9'; c++)
		*w = *w * 10 + (uint64_t)(*c - '0');
	return c;
}

int dconv_strtod(const char *s, size_t len, double *out)
{
	const char *c = s, *end = s + len, *first, *point = NULL;
	uint64_t w = 0;
	int q = 0, neg, x = 0, xneg = 0;
	ptrdiff_t n;
	char buf[64], *stop;

	neg = c < end && *c == '-';
	c += neg;
	if (c == end || *c < '0' || *c > '9')
		return -1;
	first = c;
	c = digits_into(c, end, &w);
	n = c - first;
	if (c < end && *c == '.') {
		point = ++c;
		c = digits_into(c, end, &w);
		q = (int)-(c - point);	/* within len: an int */
		n += c - point;
	}
	if (c < end && (*c == 'e' || *c == 'E')) {
		c++;
		if (c < end && (*c == '+' || *c == '-'))
			xneg = *c++ == '-';
		if (c == end || *c < '0' || *c > '9')
			return -1;
		for (; c < end && *c >= '0' && *c <= '9'; c++)
			if (x < 100000)	/* far past any double: 0 or infinity */
				x = x * 10 + (*c - '0');
	}
	if (c != end)
		return -1;
	if (n > 19) {	/* 0.000123 has three digits that count, not seven */
		const char *d = first;

		for (; d < c && (*d == '0' || *d == '.'); d++)
			n -= *d == '0';
	}
	q += xneg ? -x : x;
	if (n <= 19 && eisel_lemire(w, q, out) == 0) {
		if (neg)
			*out = -*out;
		return 0;
	}
	if (len >= sizeof buf) {	/* strtod wants a NUL; a long one on the heap */
		char *copy = strndup(s, len);

		if (!copy)
			return -1;
		*out = strtod(copy, &stop);
		free(copy);
		return 0;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = strtod(buf, &stop);
	return 0;
}
