/* Static files of the browser UI, from karted's static directory: regular
 * files inside it only, reached without following any symbolic link. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "karted.h"
#include "core/xalloc.h"

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

/* Open path (relative, '/'-separated) below dir, one component at a time
 * with O_NOFOLLOW: a symbolic link anywhere on the way fails, so nothing
 * outside the folder is reached. O_NONBLOCK: a FIFO planted there must
 * not block the loop; the caller keeps only regular files. -1 on failure. */
static int open_beneath(const char *dir, const char *path)
{
	char part[256];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), next;

	while (fd >= 0) {
		size_t n = strcspn(path, "/");

		if (n == 0 || n >= sizeof(part)) {
			close(fd);
			return -1;
		}
		memcpy(part, path, n);
		part[n] = '\0';
		path += n;
		next = openat(fd, part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
					  (*path ? O_DIRECTORY : O_NONBLOCK));
		close(fd);
		fd = next;
		if (!*path)
			return fd;
		path++;
	}
	return -1;
}

int api_static(void *app, const char *path, struct resp *rs)
{
	struct karted *k = app;
	struct stat sb;
	ssize_t got;
	size_t len;
	char *buf;
	int fd;

	if (!k->static_dir || !safe_path(path))
		return -1;
	/* Every UI view is a URL under the single page (e.g. /series/...). */
	if (!strcmp(path, "/") || !strchr(path + 1, '.'))
		path = "/index.html";
	fd = open_beneath(k->static_dir, path + 1);
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > STATIC_MAX) {
		close(fd);
		return -1;
	}
	len = (size_t)sb.st_size;
	buf = xmalloc(len + 1);
	got = read(fd, buf, len);	/* a regular file: read whole, short only on error */
	close(fd);
	if (got < 0 || (size_t)got != len) {
		free(buf);
		return -1;
	}
	rs->status = 200;
	rs->body = buf;
	rs->len = len;
	rs->content_type = content_type(path);
	rs->cache = strstr(path, ".html") ? "no-cache" : "public, max-age=300";
	return 0;
}
