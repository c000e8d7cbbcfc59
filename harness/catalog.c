/* harness/catalog.c — the report's catalog (report/catalog.h) from the
 * registries: the command line knows the designs and workloads, the report
 * reads rows only. */
#include "harness/catalog.h"

#include <string.h>

#include "report/catalog.h"
#include "variants/variant.h"
#include "workloads/workload.h"

static int rank(const char *design)
{
	for (int i = 0; i < fl_nvariants; i++)
		if (!strcmp(fl_variants[i]->name, design))
			return i;
	return -1;
}

static enum fl_kind kind(const char *design)
{
	const struct fl_variant *v = fl_variant_find(design);
	return !v ? FL_KIND_OTHER : v->own_policy ? FL_KIND_LIBRARY : FL_KIND_DESIGN;
}

static const char *summary(const char *design)
{
	const struct fl_variant *v = fl_variant_find(design);
	return v ? v->summary : NULL;
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
