/* Static files of the browser UI, from karted's static directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "karted.h"
#include "xalloc.h"

#define STATIC_MAX (16u << 20)

static const char *content_type(const char *path)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{".html", "text/html; charset=utf-8"},
		{".js", "text/javascript; charset=utf-8"},
		{".mjs", "text/javascript; charset=utf-8"},
		{".css", "text/css; charset=utf-8"},
		{".svg", "image/svg+xml"},
		{".png", "image/png"},
		{".ico", "image/x-icon"},
		{".json", "application/json"},
		{".txt", "text/plain; charset=utf-8"},
		{".csv", "text/csv; charset=utf-8"},
	};
	const char *dot = strrchr(path, '.');
	size_t i;

	for (i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(dot, types[i].ext))
			return types[i].type;
	return "application/octet-stream";
}

/* Only plain names below the static directory: no "..", no hidden files. */
static bool safe_path(const char *path)
{
	const char *s;

	if (path[0] != '/' || strlen(path) > 200)
		return false;
	for (s = path; *s; s++) {
		if (*s == '\\' || (unsigned char)*s < 0x20)
			return false;
		if (*s == '/' && s[1] == '.')
			return false;
	}
	return true;
}

int api_static(void *app, const char *path, struct resp *rs)
{
	struct karted *k = app;
	char file[512];
	struct stat sb;
	FILE *f;
	char *buf;

	if (!k->static_dir || !safe_path(path))
		return -1;
	/* Every UI view is a URL under the single page (e.g. /series/...). */
	if (!strcmp(path, "/") || !strchr(path + 1, '.'))
		path = "/index.html";
	snprintf(file, sizeof(file), "%s%s", k->static_dir, path);
	if (stat(file, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > STATIC_MAX)
		return -1;
	f = fopen(file, "rb");
	if (!f)
		return -1;
	buf = xmalloc((size_t)sb.st_size + 1);
	if (fread(buf, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	rs->status = 200;
	rs->body = buf;
	rs->len = (size_t)sb.st_size;
	rs->content_type = content_type(file);
	rs->cache = strstr(path, ".html") ? "no-cache" : "public, max-age=300";
	return 0;
}
