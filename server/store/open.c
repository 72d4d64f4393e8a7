/* Opening a store: the backend a path names (store.h). */
#include "store.h"
#include "store_impl.h"

void store_library_init(void)
{
	store_sqlite_library_init();
}

struct store *store_open(const char *path, unsigned flags, struct kerr *err)
{
	if (store_is_uri(path))
		return store_pg_open(path, flags, err);
	return store_sqlite_open(path, flags, err);
}
