/* harness/catalog.c — the report's catalog (model/catalog.h) from the
 * registries: the command line knows the designs and workloads, the report
 * reads rows only. */
#include "harness/catalog.h"

#include <stdio.h>
#include <string.h>

#include "model/catalog.h"
#include "variants/variant.h"
#include "workloads/workload.h"

/* A row of a library the user built, BASE+TAG (proc/userlib.h: --lib), is
 * its base's kind and place wherever it is read: in the run that made it,
 * and in its CSV read later without --lib. */
static const struct fl_variant *find(const char *design)
{
	const char *plus = strchr(design, '+');
	char base[64];
	if (plus && plus - design < (int)sizeof base) {
		snprintf(base, sizeof base, "%.*s", (int)(plus - design), design);
		const struct fl_variant *v = fl_variant_find(base);
		if (v)
			return v;
	}
	return fl_variant_find(design);
}

static int rank(const char *design)
{
	const struct fl_variant *v = find(design);
	for (int i = 0; v && i < fl_nvariants; i++)
		if (fl_variants[i] == v)
			return i;
	return -1;
}

static enum fl_kind kind(const char *design)
{
	const struct fl_variant *v = find(design);
	return !v ? FL_KIND_OTHER : v->own_policy ? FL_KIND_LIBRARY : FL_KIND_DESIGN;
}

static const char *summary(const char *design)
{
	/* (a BASE+TAG read without its --lib: the base's; the build's path is
	 * in the CSV's # libraries:) */
	const struct fl_variant *v = fl_variant_find(design);
	return v ? v->summary : (v = find(design)) ? v->summary : NULL;
}

static const char *op(const char *workload)
{
	const struct fl_workload *w = fl_workload_find(workload);
	return w ? w->op : NULL;
}

void fl_catalog_install(void)
{
	static struct fl_catalog c = {
		.current = fl_variant_name, .rank = rank, .kind = kind,
		.summary = summary, .op = op,
	};
	c.ndesigns = fl_nvariants;
	fl_catalog_use(&c);
}
