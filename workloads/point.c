/* workloads/point.c — see point.h. */
#include "workloads/point.h"

#include <stdio.h>

void fl_entry_label(const struct fl_variant *v, const struct fl_policy *p, char *out, size_t n)
{
	char t[FL_POLICY_TEXT_MAX];
	if (!fl_policy_applies(v) || p->kind == FL_POLICY_PARK)
		snprintf(out, n, "%s", v->name); /* park: today's name, today's CSVs */
	else
		snprintf(out, n, "%s@%s", v->name, fl_policy_format(p, t, sizeof t));
}

const char *fl_entry_policy_text(const struct fl_entry *e, char *buf, size_t n)
{
	if (!fl_policy_applies(e->v))
		snprintf(buf, n, "own");
	else
		fl_policy_format(&e->policy, buf, n);
	return buf;
}
