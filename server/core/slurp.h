/*
 * slurp: a whole file into memory, bounded. The command line tools read
 * every input through it, so a file larger than karted would take (or
 * /dev/zero) is refused with the limit's name, not read until memory runs
 * out.
 */
#ifndef KARTE_SLURP_H
#define KARTE_SLURP_H

#include <stddef.h>

#include "kerr.h"

/* The file at path ("-": standard input) into *out (malloc'd, a NUL after
 * its *len bytes; the caller frees it). At most cap bytes: a larger file is
 * -1 with err->code 413 and a message naming limit ("karted's --max-body,
 * KARTE_MAX_BODY"); a file that cannot be read -1 with err (400). */
int slurp(const char *path, size_t cap, const char *limit, char **out, size_t *len,
	  struct kerr *err);

/* cap from the environment variable name when it holds a positive number
 * of bytes (as karted reads it), else fallback. */
size_t slurp_cap(const char *name, size_t fallback);

#endif
