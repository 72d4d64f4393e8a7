#include "nametab.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static uint64_t names_hash(const char *a, const char *b, const char *c)
{
	const char *parts[3] = {a, b, c};
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a, each part with its NUL */
	const char *p;
	size_t i;

	for (i = 0; i < 3; i++)
		for (p = parts[i];; p++) {
			h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
			if (!*p)
				break;
		}
	return h;
}

size_t names_block_size(const char *a, const char *b, const char *c)
{
	return strlen(a) + strlen(b) + strlen(c) + 3;
}

void names_block_fill(char *block, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a) + 1, lb = strlen(b) + 1;

	memcpy(block, a, la);
	memcpy(block + la, b, lb);
	memcpy(block + la + lb, c, strlen(c) + 1);
}

size_t names_block_len(const char *block)
{
	size_t la = strlen(block) + 1, lb = strlen(block + la) + 1;

	return la + lb + strlen(block + la + lb) + 1;
}

int names_block_is(const char *block, const char *a, const char *b, const char *c)
{
	const char *sb, *sc;

	if (strcmp(block, a))
		return 0;
	sb = block + strlen(block) + 1;
	if (strcmp(sb, b))
		return 0;
	sc = sb + strlen(sb) + 1;
	return !strcmp(sc, c);
}

static int slot_is(const struct nametab_slot *s, uint64_t h, const char *a, const char *b,
		   const char *c)
{
	return s->hash == h && names_block_is(s->names, a, b, c);
}

/* The slot of the names, or the empty one where they would go. */
static size_t find(const struct nametab *t, uint64_t h, const char *a, const char *b, const char *c)
{
	size_t i = (size_t)h & (t->cap - 1);

	while (t->slot[i].names && !slot_is(&t->slot[i], h, a, b, c))
		i = (i + 1) & (t->cap - 1);
	return i;
}

void *nametab_get(const struct nametab *t, const char *a, const char *b, const char *c)
{
	size_t i;

	if (!t->n)
		return NULL;
	i = find(t, names_hash(a, b, c), a, b, c);
	return t->slot[i].names ? t->values + i * t->value_size : NULL;
}

void *nametab_put(struct nametab *t, const char *a, const char *b, const char *c)
{
	size_t i;
	uint64_t h = names_hash(a, b, c);
	struct nametab_slot *s;

	if (!t->slot) {
		t->slot = xcalloc(t->cap, sizeof(*t->slot));
		t->values = xcalloc(t->cap, t->value_size);
	}
	if (t->n >= t->cap / 4 * 3)
		nametab_clear(t);
	i = find(t, h, a, b, c);
	s = &t->slot[i];
	if (!s->names) {
		s->hash = h;
		s->names = xmalloc(names_block_size(a, b, c));
		names_block_fill(s->names, a, b, c);
		memset(t->values + i * t->value_size, 0, t->value_size);
		t->n++;
	}
	return t->values + i * t->value_size;
}

void nametab_clear(struct nametab *t)
{
	size_t i;

	for (i = 0; t->n && i < t->cap; i++)
		if (t->slot[i].names) {
			free(t->slot[i].names);
			t->slot[i].names = NULL;
			t->n--;
		}
}

void nametab_free(struct nametab *t)
{
	nametab_clear(t);
	free(t->slot);
	free(t->values);
	t->slot = NULL;
	t->values = NULL;
}
