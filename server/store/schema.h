/*
 * The SQL migrations of schema/, compiled in by the build (schema_sql.c is
 * generated from schema/NNNN_name.sql and schema/pg/NNNN_name.sql by the
 * Makefile), in version order.
 */
#ifndef KARTE_SCHEMA_H
#define KARTE_SCHEMA_H

struct schema_migration {
	int version;		/* NNNN of the file name */
	const char *name;	/* file name */
	const char *sql;
};

/* SQLite's (schema/NNNN_name.sql) and PostgreSQL's (schema/pg/), each
 * ending at the same version. */
extern const struct schema_migration schema_migrations[];
extern const int schema_migrations_count;
extern const struct schema_migration schema_pg_migrations[];
extern const int schema_pg_migrations_count;

#endif
