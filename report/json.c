/* report/json.c — the model as JSON (json.h). */
#include "report/json.h"
#include "model/catalog.h"
#include "model/stats_text.h"

#include <math.h>
#include <string.h>

void fl_json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A number, or null where there is none (JSON has no NaN). */
void fl_json_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.6g", x);
	else
		fputs("null", f);
}

static void runs(FILE *f, const struct fl_model *m)
{
	fputs("  \"runs\": [", f);
	for (int r = 0; r < m->nrun; r++) {
		const struct fl_loaded_run *x = &m->run[r];
		fputs(r ? ",\n    {" : "\n    {", f);
		fputs("\"path\": ", f), fl_json_str(f, x->path);
		fprintf(f, ", \"store_id\": ");
		x->store_id ? fprintf(f, "%ld", x->store_id) : fputs("null", f);
		fputs(", \"revision\": ", f), fl_json_str(f, x->revision);
		fputs(", \"date\": ", f), fl_json_str(f, x->date);
		fputs(", \"seed\": ", f), fl_json_str(f, x->seed);
		fputs(", \"command\": ", f), fl_json_str(f, x->command);
		fputs(", \"machine\": {\"name\": ", f), fl_json_str(f, x->machine.name);
		fputs(", \"fingerprint\": ", f), fl_json_str(f, x->machine.fingerprint);
		fputs("}, \"test_as\": ", f), fl_json_str(f, x->as);
		fputc('}', f);
	}
	fputs("\n  ],\n", f);
}

static void names(FILE *f, const struct fl_model *m)
{
	fputs("  \"points\": [", f);
	for (int p = 0; p < m->npoint; p++)
		fputs(p ? ", " : "", f), fl_json_str(f, m->point[p]);
	fputs("],\n  \"entries\": [", f);
	for (int e = 0; e < m->nentry; e++) {
		fputs(e ? ",\n    {\"name\": " : "\n    {\"name\": ", f), fl_json_str(f, m->entry[e]);
		fputs(", \"kind\": ", f), fl_json_str(f, fl_entry_kind_name(fl_model_kind(m, e)));
		fputc('}', f);
	}
	fputs("\n  ],\n", f);
}

static void ratio(FILE *f, const struct fl_ratio *q)
{
	if (q->n == 0) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"rounds\": %d, \"median\": ", q->n), fl_json_num(f, q->median);
	fputs(", \"lo\": ", f), fl_json_num(f, q->lo);
	fputs(", \"hi\": ", f), fl_json_num(f, q->hi);
	fputs(", \"level\": ", f), fl_json_num(f, q->level);
	fputc('}', f);
}

static void cell(FILE *f, const struct fl_model *m, int r, int p, int e, bool first)
{
	const struct fl_mcell *c = fl_model_cell(m, r, p, e);
	fprintf(f, "%s    {\"run\": %d, \"point\": %d, \"entry\": %d, \"status\": ",
		first ? "\n" : ",\n", r, p, e);
	fl_json_str(f, c->status);
	fprintf(f, ", \"reps\": %d, \"value\": ", c->reps), fl_json_num(f, c->value);
	fputs(", \"value_lo\": ", f), fl_json_num(f, c->value_lo);
	fputs(", \"value_hi\": ", f), fl_json_num(f, c->value_hi);
	fputs(", \"cpu_ns_per_op\": ", f), fl_json_num(f, c->cpu);
	fputs(", \"ratio\": ", f), ratio(f, &c->ratio);
	fputs(", \"verdict\": ", f);
	fl_json_str(f, fl_model_is_baseline(m, e) || c->ratio.n == 0 ? NULL
	       : c->regimes				    ? "regimes"
							    : fl_verdict_name(c->verdict));
	fprintf(f, ", \"regimes\": %s", c->regimes ? "true" : "false");
	fputs(", \"cpu_ratio\": ", f), ratio(f, &c->cpu_ratio);
	fprintf(f, ", \"more_cpu\": %s}", c->more_cpu ? "true" : "false");
}

/* Per run and point: the fastest, its group, why (model.h). */
static void fastest(FILE *f, const struct fl_model *m, int r, int p, bool first)
{
	const struct fl_mpoint *x = fl_model_pt(m, r, p);
	fprintf(f, "%s    {\"run\": %d, \"point\": %d, \"fastest\": ", first ? "\n" : ",\n", r, p);
	if (x->fastest < 0)
		fputs("null", f);
	else
		fprintf(f, "%d", x->fastest);
	fputs(", \"group\": [", f);
	for (int g = 0; g < x->ngroup; g++)
		fprintf(f, "%s%d", g ? ", " : "", x->group[g]);
	fputs("], \"why_against\": ", f);
	if (x->against < 0)
		fputs("null", f);
	else
		fprintf(f, "%d", x->against);
	fputs(", \"why\": ", f);
	fl_json_str(f, x->against < 0 ? NULL : x->why);
	fputc('}', f);
}

void fl_model_json(FILE *f, const struct fl_model *m)
{
	fprintf(f, "{\n  \"schema\": \"%s\",\n  \"baseline\": ", FL_JSON_SCHEMA);
	fl_json_str(f, m->baseline);
	fputs(",\n", f);
	runs(f, m);
	names(f, m);
	fputs("  \"cells\": [", f);
	bool first = true;
	for (int r = 0; r < m->nrun; r++)
		for (int p = 0; p < m->npoint; p++)
			for (int e = 0; e < m->nentry; e++)
				if (fl_model_cell(m, r, p, e)->present) {
					cell(f, m, r, p, e, first);
					first = false;
				}
	fputs("\n  ],\n  \"fastest\": [", f);
	for (int r = 0; r < m->nrun; r++)
		for (int p = 0; p < m->npoint; p++)
			fastest(f, m, r, p, r == 0 && p == 0);
	fputs("\n  ]\n}\n", f);
}
