/*
 * nametab: a bounded table keyed by a series' three names (system,
 * application, variant), each entry holding a value of a fixed size. Open
 * addressing over a power-of-two number of slots, allocated at the first
 * put; emptied whole when three quarters full, so a probe always ends at
 * an empty slot and stays short. For what the writer keeps per series
 * between batches (a series' id, its thresholds).
 */
#ifndef KARTE_NAMETAB_H
#define KARTE_NAMETAB_H

#include <stddef.h>
#include <stdint.h>

struct nametab_slot {
	uint64_t hash;
	char *names;	/* the three names, each with its NUL (NULL: empty) */
};

struct nametab {
	size_t cap;		/* slots: a power of two */
	size_t value_size;
	size_t n;		/* slots in use */
	struct nametab_slot *slot;	/* cap of them, or NULL before the first put */
	unsigned char *values;	/* cap values, slot i's at i * value_size */
};

/* A series' three names as one block, each with its NUL: how a nametab
 * keeps them, and anyone else who keeps names by the series. */
size_t names_block_size(const char *a, const char *b, const char *c);
void names_block_fill(char *block, const char *a, const char *b, const char *c);
size_t names_block_len(const char *block);	/* the bytes of a filled block */
int names_block_is(const char *block, const char *a, const char *b, const char *c);

/* A table of cap slots (a power of two) of value_size bytes each; nothing
 * allocated yet. */
#define NAMETAB_INIT(cap_, size_) {.cap = (cap_), .value_size = (size_)}

/* The value kept for the names, or NULL. */
void *nametab_get(const struct nametab *t, const char *a, const char *b, const char *c);

/* The value for the names, made (zeroed) when there is none: the caller
 * sets it. May empty the table first (three quarters full). */
void *nametab_put(struct nametab *t, const char *a, const char *b, const char *c);

/* Every entry let go of; the slots stay for the next put. */
void nametab_clear(struct nametab *t);

/* The entries and the slots let go of. */
void nametab_free(struct nametab *t);

#endif
