#include "slurp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

int slurp(const char *path, size_t cap, const char *limit, char **out, size_t *len,
	  struct kerr *err)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t have = 0, room = 0, got;
	char *buf = NULL;

	*out = NULL;
	*len = 0;
	if (!f)
		return kerr_set(err, KERR_INVALID, "cannot open '%s': %s", path, strerror(errno));
	for (;;) {
		if (room - have < 65536) {
			/* one byte past cap tells a file that is too large */
			room = room ? room * 2 : 65536;
			if (room > cap + 65537)
				room = cap + 65537;
			buf = xrealloc(buf, room + 1);
		}
		got = fread(buf + have, 1, room - have, f);
		have += got;
		if (have > cap) {
			kerr_set(err, KERR_TOO_LARGE, "'%s' is larger than %zu bytes, the limit of %s", path, cap, limit);
			goto fail;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		kerr_set(err, KERR_INVALID, "cannot read '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (f != stdin)
		fclose(f);
	buf[have] = '\0';
	*out = buf;
	*len = have;
	return 0;
fail:
	if (f != stdin)
		fclose(f);
	free(buf);
	return -1;
}

size_t slurp_cap(const char *name, size_t fallback)
{
	const char *v = getenv(name);
	unsigned long long n;
	char *end;

	if (!v || !*v)
		return fallback;
	errno = 0;
	n = strtoull(v, &end, 10);
	return !errno && !*end && n > 0 ? (size_t)n : fallback;
}
