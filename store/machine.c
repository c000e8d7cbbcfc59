/* store/machine.c — which machine a run ran on, from its CSV's metadata
 * lines: the fingerprint that keys the machines table and the short name
 * the listings show (store/README.md, "The machine"). Only what the
 * machine is goes in (CPU, cores, NUMA nodes, kernel, hypervisor, host,
 * libc, libraries), never what it was doing (load, governor, pin). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"

/* The fingerprint's keys, in its order; the machines table's columns by
 * the same names. A key without a value (an older file has no host, libc
 * or libraries line) is left out of the fingerprint, so those files keep
 * the fingerprint they had before the lines existed. */
static const char *const keys[] = { "cpu",  "cores", "numa", "kernel",
				    "hypervisor", "host", "libc", "libraries" };
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

const char *fl_store_meta(const struct fl_table *t, const char *key)
{
	for (int i = 0; i < t->nmeta; i++)
		if (!strcmp(t->meta[i][0], key))
			return t->meta[i][1];
	return "";
}

uint64_t fl_store_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* "cpu/Nc/kernel release": "AMD EPYC/2c/6.18.44-fc-v1272". */
static void short_name(const struct fl_table *t, char *name, size_t nn)
{
	const char *k = fl_store_meta(t, "kernel"), *sp = strchr(k, ' ');
	const char *rel = sp ? sp + 1 : k; /* "Linux 6.18.44 x86_64": the release */
	int rl = (int)strcspn(rel, " ");
	snprintf(name, nn, "%s/%sc/%.*s", fl_store_meta(t, "cpu"), fl_store_meta(t, "cores"), rl,
		 rel);
}

int fl_store_machine_of(const struct fl_table *t, char *fp, size_t fpn, char *name, size_t nn)
{
	uint64_t h = FL_FNV_BASIS;
	for (int i = 0; i < NKEYS; i++) {
		const char *v = fl_store_meta(t, keys[i]);
		if (!*v)
			continue;
		h = fl_store_fnv(h, keys[i], strlen(keys[i]));
		h = fl_store_fnv(h, "=", 1);
		h = fl_store_fnv(h, v, strlen(v));
		h = fl_store_fnv(h, "\n", 1);
	}
	const char *host = fl_store_meta(t, "host");
	if (fpn < 17 || nn < 2)
		return -1;
	snprintf(fp, fpn, "%016llx", (unsigned long long)h);
	if (*host)
		snprintf(name, nn, "%s", host);
	else
		short_name(t, name, nn);
	return 0;
}

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

long fl_store_machine_id(struct fl_store *s, const struct fl_table *t, char *err, int errlen)
{
	char fp[17], name[512];
	fl_store_machine_of(t, fp, sizeof fp, name, sizeof name);
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
		for (int i = 0; i < NKEYS; i++)
			sqlite3_bind_text(st, 3 + i, fl_store_meta(t, keys[i]), -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fl_store_fail(s, rc, "adding the machine", err, errlen);
	return (long)sqlite3_last_insert_rowid(s->db);
}
