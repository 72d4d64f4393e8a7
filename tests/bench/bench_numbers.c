/*
 * make bench, part 6: numbers to and from text (core/dconv.c), beside
 * glibc's way to the same exact answers in the same process: the shortest
 * digits against printf("%.17g") (which is not the shortest), karte's
 * number layout (num_shortest) against trying printf at 15, 16 and 17
 * digits until strtod reads v back (karte's way before dconv), and reading
 * a 17-digit decimal against strtod. 2^20 doubles of every scale from
 * 1e-10 to 1e10, best of five rounds.
 * usage: bench_numbers
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/dconv.h"
#include "core/mono.h"
#include "core/num.h"

#define COUNT (1u << 20)
#define ROUNDS 5

static double values[COUNT];
static char texts[COUNT][32];
static size_t lens[COUNT];
static volatile uint64_t sink;

static double pow10i(int e)
{
	double p = 1;

	for (; e > 0; e--)
		p *= 10;
	for (; e < 0; e++)
		p /= 10;
	return p;
}

enum way { SHORTEST, PRINTF17, LAYOUT, PRINTF_LOOP, READ, STRTOD, WAYS };

static const char *const names[WAYS] = {
	"dconv_shortest", "printf %.17g", "num_shortest", "printf 15..17 + strtod",
	"dconv_strtod", "strtod",
};

static void one(enum way w)
{
	char buf[64], digits[18];
	int e10, p;
	bool neg;
	double d;
	uint32_t i;

	for (i = 0; i < COUNT; i++) {
		switch (w) {
		case SHORTEST:
			sink += (uint64_t)dconv_shortest(values[i], digits, &e10, &neg);
			break;
		case PRINTF17:
			sink += (uint64_t)snprintf(buf, sizeof buf, "%.17g", values[i]);
			break;
		case LAYOUT:
			sink += num_shortest(values[i], buf, true);
			break;
		case PRINTF_LOOP:
			for (p = 15; p <= 17; p++) {
				snprintf(buf, sizeof buf, "%.*g", p, values[i]);
				if (strtod(buf, NULL) == values[i])
					break;
			}
			sink += (uint64_t)p;
			break;
		case READ:
			dconv_strtod(texts[i], lens[i], &d);
			sink += (uint64_t)(d * 1e10);
			break;
		default:
			d = strtod(texts[i], NULL);
			sink += (uint64_t)(d * 1e10);
			break;
		}
	}
}

int main(void)
{
	uint64_t x = 88172645463325252ull;
	double best[WAYS];
	int r, w;
	uint32_t i;

	for (i = 0; i < COUNT; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		values[i] = (double)(x >> 11) / 9007199254740992.0 * pow10i((int)(x % 21) - 10);
		lens[i] = (size_t)snprintf(texts[i], sizeof texts[i], "%.17g", values[i]);
	}
	for (w = 0; w < WAYS; w++)
		best[w] = 1e30;
	for (r = 0; r < ROUNDS; r++) {
		for (w = 0; w < WAYS; w++) {
			double t0 = mono_s(), t;

			one((enum way)w);
			t = (mono_s() - t0) * 1e9 / COUNT;
			if (t < best[w])
				best[w] = t;
		}
	}
	printf("numbers (ns a double, best of %d rounds of %u):\n", ROUNDS, COUNT);
	for (w = 0; w < WAYS; w += 2)
		printf("  %-16s %6.1f   %-24s %6.1f   ratio %.3f\n", names[w], best[w], names[w + 1],
		       best[w + 1], best[w] / best[w + 1]);
	return 0;
}
