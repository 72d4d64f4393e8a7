/* klog: leveled lines on stderr (see klog.h). */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/klog.h"

static _Atomic int level = KLOG_INFO;
static atomic_int journal = -1;	/* -1: not looked at yet */

int klog_set_level(const char *name)
{
	static const struct {
		const char *name;
		enum klog_level lv;
	} names[] = {{"error", KLOG_ERROR}, {"warning", KLOG_WARNING}, {"info", KLOG_INFO},
		     {"debug", KLOG_DEBUG}};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i].name)) {
			atomic_store(&level, names[i].lv);
			return 0;
		}
	return -1;
}

bool klog_on(enum klog_level lv)
{
	return (int)lv <= atomic_load(&level);
}

/* JOURNAL_STREAM is "DEV:INODE" of the stream systemd gave stdout and
 * stderr; it is inherited, so it counts only while stderr is that stream. */
bool klog_to_journal(void)
{
	int j = atomic_load(&journal);

	if (j < 0) {
		const char *env = getenv("JOURNAL_STREAM");
		unsigned long long dev, ino;
		struct stat sb;

		j = env && sscanf(env, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &sb) == 0 &&
		    (unsigned long long)sb.st_dev == dev && (unsigned long long)sb.st_ino == ino;
		atomic_store(&journal, j);
	}
	return j;
}

static void vlog(enum klog_level lv, const char *fmt, va_list ap)
{
	static const char *const word[8] = {[KLOG_ERROR] = "error: ", [KLOG_WARNING] = "warning: ",
					    [KLOG_INFO] = "", [KLOG_DEBUG] = "debug: "};
	char line[2048];
	int n, m;

	n = klog_to_journal() ? snprintf(line, sizeof(line), "<%d>karted: %s", (int)lv, word[lv])
			      : snprintf(line, sizeof(line), "karted: %s", word[lv]);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		return;
	n += (size_t)m < sizeof(line) - (size_t)n - 1 ? m : (int)(sizeof(line) - (size_t)n - 2);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;	/* nowhere left to say it */
}

void klog(enum klog_level lv, const char *fmt, ...)
{
	va_list ap;

	if (!klog_on(lv))
		return;
	va_start(ap, fmt);
	vlog(lv, fmt, ap);
	va_end(ap);
}

void klog_always(enum klog_level lv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(lv, fmt, ap);
	va_end(ap);
}
