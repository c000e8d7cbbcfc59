/* model/catalog.c — see catalog.h. */
#include "model/catalog.h"

#include <stdio.h>
#include <string.h>

static const struct fl_catalog *cat;

void fl_catalog_use(const struct fl_catalog *c)
{
	cat = c;
}

const char *fl_catalog_design(const char *label, char *buf, unsigned n)
{
	size_t l = strcspn(label, "@#");
	if (label[l] == '#' || l >= n)
		return NULL;
	memcpy(buf, label, l);
	buf[l] = '\0';
	return buf;
}

const char *fl_catalog_current(const char *name)
{
	return cat && cat->current ? cat->current(name) : name;
}

int fl_catalog_rank(const char *design, int *n)
{
	*n = cat ? cat->ndesigns : 0;
	return cat && cat->rank ? cat->rank(design) : -1;
}

enum fl_kind fl_catalog_kind(const char *label)
{
	char b[64];
	const char *d = fl_catalog_design(label, b, sizeof b);
	return d && cat && cat->kind ? cat->kind(d) : FL_KIND_OTHER;
}

const char *fl_catalog_summary(const char *label)
{
	char b[64];
	const char *d = fl_catalog_design(label, b, sizeof b);
	return d && cat && cat->summary ? cat->summary(d) : NULL;
}

const char *fl_catalog_op(const char *workload)
{
	const char *op = cat && cat->op ? cat->op(workload) : NULL;
	return op ? op : "op";
}

bool fl_is_control(const char *label, const char *baseline)
{
	size_t l = strlen(label), b = strlen(baseline);
	return l == b + 2 && !strncmp(label, baseline, b) && !strcmp(label + b, "#2");
}

const char *fl_control_name(char *b, size_t n, const char *baseline)
{
	snprintf(b, n, "%s#2", baseline);
	return b;
}
