/*
 * The fuzz input as a file the readers can open by name: a memfd, rewritten
 * for every input and named /proc/self/fd/N. Nothing touches the disk.
 */
#ifndef KARTE_MEMFILE_H
#define KARTE_MEMFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static inline const char *memfile(const void *data, size_t size)
{
	static int fd = -1;
	static char name[64];

	if (fd < 0) {
		fd = memfd_create("karte-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	return name;
}

#endif
