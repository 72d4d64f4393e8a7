/*
 * checkpointer: a thread that copies the WAL into the database file with its
 * own connection, so the fsyncs of a checkpoint never stall a commit. It
 * runs a PASSIVE checkpoint every second, and a TRUNCATE one (which waits
 * for the writer) when the WAL has grown past a limit, and at stop.
 */
#ifndef KARTE_CHECKPOINTER_H
#define KARTE_CHECKPOINTER_H

#include "core/kerr.h"

#define CHECKPOINT_TRUNCATE_PAGES 65536	/* 256 MiB of 4 KiB pages */

struct checkpointer;

struct checkpointer *checkpointer_start(const char *db_path, struct kerr *err);

/* Final TRUNCATE checkpoint, stop the thread, close. Accepts NULL. */
void checkpointer_stop(struct checkpointer *c);

#endif
