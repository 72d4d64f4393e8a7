/*
 * klog: karted's log, one line per event on stderr, each with a level.
 *
 *   karted: error: checking runs: ...      (KLOG_ERROR)
 *   karted: warning: alert webhook, ...    (KLOG_WARNING)
 *   karted: SIGTERM: stopped               (KLOG_INFO: no word)
 *   karted: debug: ...                     (KLOG_DEBUG)
 *
 * Lines below the level set (--log-level, KARTE_LOG_LEVEL; default info)
 * are not written. Under systemd, when stderr is the journal's stream
 * (JOURNAL_STREAM names its device and inode), each line starts with its
 * syslog priority as sd-daemon(3) has it ("<3>"), so `journalctl -p
 * warning` selects by level. A line is written with one write(2), so
 * threads' lines never interleave.
 */
#ifndef KARTE_KLOG_H
#define KARTE_KLOG_H

#include <stdbool.h>

/* syslog's numbers: lower is more severe */
enum klog_level { KLOG_ERROR = 3, KLOG_WARNING = 4, KLOG_INFO = 6, KLOG_DEBUG = 7 };

/* Set the level by name ("error", "warning", "info", "debug"): 0, or -1
 * for another name (the level stays). */
int klog_set_level(const char *name);

/* Whether a line of level lv would be written (to skip building it). */
bool klog_on(enum klog_level lv);

/* Whether stderr is the journal's stream (then lines carry "<N>"). */
bool klog_to_journal(void);

void klog(enum klog_level lv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line whatever the level (the access log: asked for on its own). */
void klog_always(enum klog_level lv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
