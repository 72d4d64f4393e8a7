/*
 * checkpointer: a thread that copies the WAL into the database file with its
 * own connection, so the fsyncs of a checkpoint never stall a commit. It
 * runs a PASSIVE checkpoint every CHECKPOINT_EVERY_NS (a tenth of a second:
 * what is left for the writer to copy when it starts the WAL again,
 * tend_wal in sqlite.c, stays a few ms of work; once a second it was 60-190
 * ms, every request in flight waiting), and a TRUNCATE one (which waits
 * for the writer and the readers) when more than a limit of the WAL could
 * not be copied (readers kept old snapshots throughout), and at stop. A
 * WAL copied whole is reused and cut by the writer (journal_size_limit):
 * a TRUNCATE from here counts as another connection's write to the
 * writer's regression check, which then reads its windows anew.
 */
#ifndef KARTE_CHECKPOINTER_H
#define KARTE_CHECKPOINTER_H

#include "core/kerr.h"

#define CHECKPOINT_EVERY_NS 100000000L	/* a PASSIVE checkpoint every 0.1 s */
#define CHECKPOINT_TRUNCATE_PAGES 65536	/* 256 MiB of 4 KiB pages not yet copied */

struct checkpointer;

struct checkpointer *checkpointer_start(const char *db_path, struct kerr *err);

/* Final TRUNCATE checkpoint, stop the thread, close. Accepts NULL. */
void checkpointer_stop(struct checkpointer *c);

#endif
