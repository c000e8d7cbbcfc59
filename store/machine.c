/* store/machine.c — which machine a run ran on, from its CSV's metadata
 * lines: the fingerprint that keys the machines table and the short name
 * the listings show (store/README.md, "The machine"). Only what the
 * machine is goes in (CPU, cores, NUMA nodes, kernel, hypervisor, host,
 * libc, libraries), never what it was doing (load, governor, pin). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/run.h"
#include "store/db.h"

/* The machine's id by fingerprint; 0 when not stored yet. */
static long find(struct fl_store *s, const char *fp, char *err, int errlen)
{
	sqlite3_stmt *st;
	long id = 0;
	int rc = sqlite3_prepare_v2(s->db, "SELECT id FROM machines WHERE fingerprint = ?1", -1,
				    &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, fp, -1, SQLITE_STATIC);
		if ((rc = sqlite3_step(st)) == SQLITE_ROW)
			id = (long)sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fl_store_fail(s, rc, "finding the machine", err, errlen);
	return id;
}

long fl_store_machine_id(struct fl_store *s, const struct fl_loaded_run *r, char *err,
			 int errlen)
{
	const char *fp = r->machine.fingerprint, *name = r->machine.name;
	long id = find(s, fp, err, errlen);
	if (id)
		return id;
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db,
		"INSERT INTO machines (fingerprint, name, cpu, cores, numa, kernel, hypervisor, "
		"host, libc, libraries) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
		-1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, fp, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
		/* the columns in fl_machine_keys' order: what the fingerprint is made of */
		for (int i = 0; fl_machine_keys[i]; i++) {
			sqlite3_bind_text(st, 3 + i, fl_store_kept(fl_table_meta(&r->t,
								fl_machine_keys[i])), -1, SQLITE_STATIC);
		}
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fl_store_fail(s, rc, "adding the machine", err, errlen);
	return (long)sqlite3_last_insert_rowid(s->db);
}
