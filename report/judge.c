/* report/judge.c — a change judged against the between-run spread (judge.h). */
#include "report/judge.h"
#include "report/json.h"
#include "model/catalog.h"
#include "report/gate.h"
#include "fail/fail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail/xalloc.h"
#include "stats/predict.h"
#include "stats/stats.h"

/* A point's field: the median of its designs' ratios (FIELD_MIN or more
 * in every run; judge.h argues it). */
#define FIELD_MIN 6
#define FIELD_NAME "designs-median"

/* A pair's verdict. MACHINE_MOVED (its ratio and own time moved where the
 * point's field's own time did and its ratio did not) and TOO_WIDE (nothing
 * moved, and its history could not have seen a change of the threshold)
 * are inconclusive; TIME_ONLY (its own time moved, its ratio did not) and
 * the rest of the ones that do not fail pass where the pair could see a
 * change of the threshold (judge.h). */
enum moved { SAME, SLOWER, FASTER, BASELINE_MOVED, RATIO_ONLY, MACHINE_MOVED, TIME_ONLY,
	     NVERDICT };
static const char *const moved_name[] = { "~", "SLOWER", "FASTER", "baseline moved",
					  "ratio only", "machine moved: rerun", "time only" };

/* One figure of one (point, entry): its history and the new side's mean. */
struct side {
	struct fl_series s;
	double off, off_now; /* the field taken out: its mean over the history, the new side's */
	double *y;       /* the history's values (ln), one a run */
	double now;      /* the new side's mean (ln) */
	int k;           /* new runs with a value */
	double scale;    /* the calibration's factor on the t's scale (1: none) */
	double p;        /* two-sided, against the history's prediction */
	double half;     /* the interval of one new run, FL_JUDGE_LEVEL (ln) */
	double floor2;   /* the least variance the series may have (predict.h) */
	double mdc;      /* the smallest move it can see: p < the cut and >= the threshold (ln) */
};

struct pair {
	int p, e;        /* e == -1: the point's field (below) */
	struct side ratio, time;
	enum moved v;
	bool judged;     /* a prediction and a new value on the ratio */
	double mdc;      /* the smallest change the pair can fail on (ln): its ratio's and time's */
	bool wide;       /* mdc beyond the threshold: the history cannot see that change */
};

struct judge {
	const struct fl_model *m;
	int nhist;
	const struct fl_judge_opts *o;
	struct pair *pair;
	int npair, judged;
	struct side *base; /* per point: the baseline's own time */
	enum fl_entry_kind field_kind; /* the entries a field is made of */
	double *field;     /* [p * nrun + r]: the point's field in run r (ln ratio; 0: none) */
	bool *has_field;   /* per point */
	double cut;        /* the per-pair p a move needs: alpha / judged */
	double q_ratio, q_time; /* the calibration quantiles (NAN: none) */
	int count[NVERDICT]; /* judged pairs by verdict */
	int failed, wide, unsure; /* pairs failing; gated pairs too wide; gated pairs inconclusive */
};

/* ln of a cell's figure: its ratio's median or its own value; NAN: none. */
static double figure(const struct fl_mcell *c, bool ratio)
{
	if (!c->present || !c->usable)
		return NAN;
	double x = ratio ? (c->ratio.n > 0 ? c->ratio.median : NAN) : c->value;
	return x > 0 ? log(x) : NAN;
}

/* The within-run variance of a cell's figure (ln): its own interval read
 * as a standard error (NAN: none). */
static double within(const struct fl_mcell *c, bool ratio)
{
	if (!c->present || !c->usable)
		return NAN;
	double se = ratio ? fl_ratio_log_se(&c->ratio)
			  : fl_ratio_log_se(&(struct fl_ratio){ .n = c->reps, .median = c->value,
								.lo = c->value_lo, .hi = c->value_hi,
								.level = c->src ? c->src->ns.ci_level : NAN });
	return se * se;
}

/* Whether entry e is one of the field: a design (a floor, the baseline,
 * its control and the libraries are not; without a catalog, anything but
 * those first three). */
static bool of_field(const struct judge *J, int e)
{
	return fl_model_kind(J->m, e) == J->field_kind;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *x, int n)
{
	qsort(x, (size_t)n, sizeof *x, cmp_d);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* The field's figure at point p in run r: the median over its designs of
 * the ln ratio or the ln time (NAN: fewer than FIELD_MIN of them ran). */
static double field_figure(const struct judge *J, int p, int r, bool ratio)
{
	const struct fl_model *m = J->m;
	double *x = fl_xcalloc((size_t)m->nentry, sizeof *x);
	int n = 0;
	for (int e = 0; e < m->nentry; e++) {
		double y = figure(fl_model_cell(m, r, p, e), ratio);
		if (of_field(J, e) && isfinite(y))
			x[n++] = y;
	}
	double f = n >= FIELD_MIN ? median(x, n) : NAN;
	free(x);
	return f;
}

/* Each point's field over the runs; a point where some run has none is
 * judged without it (0 in every run). */
static void fields(struct judge *J)
{
	const struct fl_model *m = J->m;
	J->field_kind = FL_ENTRY_OTHER; /* without a catalog: what is neither baseline nor floor */
	for (int e = 0; e < m->nentry; e++)
		if (fl_model_kind(m, e) == FL_ENTRY_DESIGN)
			J->field_kind = FL_ENTRY_DESIGN;
	J->field = fl_xcalloc((size_t)m->npoint * (size_t)m->nrun, sizeof *J->field);
	J->has_field = fl_xcalloc((size_t)m->npoint, sizeof *J->has_field);
	for (int p = 0; p < m->npoint; p++) {
		double *f = J->field + (size_t)p * m->nrun;
		bool all = true;
		for (int r = 0; r < m->nrun && all; r++)
			all = isfinite(f[r] = field_figure(J, p, r, true));
		J->has_field[p] = all;
		if (!all)
			memset(f, 0, (size_t)m->nrun * sizeof *f);
	}
}

/* The figure of (p, e) in run r; e == -1: the field's own. */
static double value(const struct judge *J, int p, int e, int r, bool ratio)
{
	return e < 0 ? field_figure(J, p, r, ratio) : figure(fl_model_cell(J->m, r, p, e), ratio);
}

/* The series of (p, e) over the history and the new side's mean; an
 * entry's ratio with the point's field taken out of each run (the field's
 * own series and the times as they are). */
static void side_of(const struct judge *J, int p, int e, bool ratio, struct side *s)
{
	const struct fl_model *m = J->m;
	const double *f = J->field + (size_t)p * m->nrun;
	bool off = ratio && e >= 0;
	double sum = 0, fsum = 0, fnow = 0;
	int nh = 0;
	double wsum = 0;
	int nw = 0;
	s->y = fl_xmalloc((size_t)J->nhist * sizeof *s->y);
	for (int r = 0; r < J->nhist; r++) {
		double x = value(J, p, e, r, ratio);
		s->y[r] = x - (off ? f[r] : 0);
		if (isfinite(x))
			fsum += off ? f[r] : 0, nh++;
		/* the field's own: the median of six or more, its error left out */
		double w = e >= 0 ? within(fl_model_cell(m, r, p, e), ratio) : NAN;
		if (isfinite(w))
			wsum += w, nw++;
	}
	s->floor2 = fl_series_floor(nw ? wsum / nw : NAN);
	s->k = 0;
	for (int r = J->nhist; r < m->nrun; r++) {
		double x = value(J, p, e, r, ratio) - (off ? f[r] : 0);
		if (isfinite(x))
			sum += x, fnow += off ? f[r] : 0, s->k++;
	}
	s->now = s->k ? sum / s->k : NAN;
	s->off = nh ? fsum / nh : 0;
	s->off_now = s->k ? fnow / s->k : 0;
	s->p = NAN;
	s->mdc = NAN;
}

/* Two-sided t quantile (the normal's at infinite df). */
static double tq(double df)
{
	return fl_t_quantile((1 + FL_JUDGE_LEVEL) / 2, df); /* the normal's past 1e7 */
}

/* Every series of one kind moderated by a prior over all of them, the
 * history's calibration (stats/predict.h) read as a factor on each
 * series' t scale, then each new side's interval and p-value. */
static void moderate(struct side *const *s, int n, int nhist, double *calib)
{
	double *y = fl_xcalloc((size_t)n * (size_t)nhist, sizeof *y);
	struct fl_series *ser = fl_xcalloc((size_t)n, sizeof *ser);
	double *floor2 = fl_xcalloc((size_t)n, sizeof *floor2);
	for (int i = 0; i < n; i++) {
		memcpy(y + (size_t)i * nhist, s[i]->y, (size_t)nhist * sizeof *y);
		floor2[i] = s[i]->floor2;
	}
	fl_series_all(y, n, nhist, floor2, ser);
	double q = fl_predict_calibrate(y, n, nhist, floor2, FL_JUDGE_LEVEL);
	free(floor2);
	*calib = q;
	for (int i = 0; i < n; i++) {
		struct side *x = s[i];
		x->s = ser[i];
		x->half = NAN;
		/* no spread at all (copies of one run): nothing to judge a change by */
		if (!(x->s.df > 0) || !(x->s.var > 0))
			continue;
		x->scale = isfinite(q) ? fmax(1, q / tq(x->s.df)) : 1;
		x->half = x->scale * fl_series_half(&x->s, FL_JUDGE_LEVEL);
		if (x->k)
			x->p = fl_series_p(&x->s, x->now, x->k, x->scale);
	}
	free(y);
	free(ser);
}

static bool judged_entry(const struct fl_model *m, int e)
{
	return !fl_model_is_baseline(m, e) && !fl_model_is_control(m, e);
}

static void collect(struct judge *J)
{
	const struct fl_model *m = J->m;
	J->pair = fl_xcalloc((size_t)m->npoint * (size_t)(m->nentry + 1), sizeof *J->pair);
	J->base = fl_xcalloc((size_t)m->npoint, sizeof *J->base);
	int b = fl_model_entry(m, m->baseline);
	for (int p = 0; p < m->npoint; p++) {
		if (b >= 0)
			side_of(J, p, b, false, &J->base[p]);
		for (int e = J->has_field[p] ? -1 : 0; e < m->nentry; e++) {
			if (e >= 0 && !judged_entry(m, e))
				continue;
			struct pair *x = &J->pair[J->npair];
			*x = (struct pair){ .p = p, .e = e };
			side_of(J, p, e, true, &x->ratio);
			side_of(J, p, e, false, &x->time);
			if (x->ratio.k) {
				J->npair++;
			} else { /* not in the new run(s): nothing to judge */
				free(x->ratio.y);
				free(x->time.y);
			}
		}
	}
}

/* The ratios taken against the field are one kind of series, the
 * fields' own ratios another (a field moves with the baseline, an entry
 * against its field does not): each is moderated and calibrated among
 * its own kind. */
static void fit(struct judge *J)
{
	int n = J->npair, m = J->m->npoint, k = 0;
	double q_field;
	struct side **s = fl_xcalloc((size_t)(n + m), sizeof(void *));
	for (int i = 0; i < n; i++)
		if (J->pair[i].e >= 0)
			s[k++] = &J->pair[i].ratio;
	moderate(s, k, J->nhist, &J->q_ratio);
	k = 0;
	for (int i = 0; i < n; i++)
		if (J->pair[i].e < 0)
			s[k++] = &J->pair[i].ratio;
	if (k)
		moderate(s, k, J->nhist, &q_field);
	k = 0;
	for (int i = 0; i < n; i++)
		s[k++] = &J->pair[i].time;
	for (int p = 0; p < m; p++)
		s[k++] = &J->base[p];
	/* the baseline's own time is a time series like the rest */
	moderate(s, k, J->nhist, &J->q_time);
	free(s);
}

/* Whether a side moved: beyond the family-wise cut and the threshold. */
static int moved(const struct judge *J, const struct side *s)
{
	double d = s->now - s->s.mean;
	if (!(s->p < J->cut) || fabs(d) < log1p(J->o->rule.threshold))
		return 0;
	return d > 0 ? 1 : -1;
}

/* The smallest move of a side's new value the rule can call a move: its
 * p below the cut and at least the threshold (ln; INFINITY: no prediction,
 * nothing it could see). */
static double side_mdc(const struct judge *J, const struct side *s)
{
	if (!(s->s.df > 0) || !(s->s.var > 0) || s->k < 1 || !(J->cut > 0))
		return INFINITY;
	double t = fl_t_quantile(1 - J->cut / 2, s->s.df); /* the normal's past 1e7 df */
	double d = s->scale * t * sqrt(s->s.var * (1.0 / s->s.n + 1.0 / s->k));
	return fmax(d, log1p(J->o->rule.threshold));
}

/* Whether --fail-on and --only put the pair's entry under the gate. */
static bool gated(const struct judge *J, const struct pair *x)
{
	if (!J->o->rule.fail_on)
		return false;
	if (x->e < 0) /* the field is the designs' */
		return !J->o->rule.only || !strcmp(J->o->rule.only, "designs");
	return fl_only_match(J->o->rule.only, J->m->entry[x->e]);
}

static bool fails(const struct judge *J, const struct pair *x)
{
	unsigned bit = x->v == SLOWER ? FL_GATE_SLOWER : x->v == FASTER ? FL_GATE_FASTER : 0;
	return x->judged && (bit & J->o->rule.fail_on) && gated(J, x);
}

/* A gated pair the gate cannot decide: the machine moved it the way the
 * gate fails on, or it did not fail and could not have seen a change of
 * the threshold. */
static bool unsure(const struct judge *J, const struct pair *x)
{
	if (!x->judged || !gated(J, x) || fails(J, x))
		return false;
	unsigned bit = x->ratio.now > x->ratio.s.mean ? FL_GATE_SLOWER : FL_GATE_FASTER;
	return (x->v == MACHINE_MOVED && (bit & J->o->rule.fail_on)) || x->wide;
}

static void classify(struct judge *J)
{
	for (int i = 0; i < J->npair; i++)
		J->judged += J->pair[i].judged = isfinite(J->pair[i].ratio.p);
	J->cut = J->judged ? FL_JUDGE_ALPHA / J->judged : 0;
	/* A point where the machine moved: its designs' median own time moved
	 * beyond its spread and their ratio did not. There an entry's own time
	 * cannot tell its code from the machine: the second witness is gone. */
	bool *machine = fl_xcalloc((size_t)J->m->npoint, sizeof *machine);
	for (int i = 0; i < J->npair; i++) {
		const struct pair *x = &J->pair[i];
		if (x->e < 0 && !J->o->ratio_only)
			machine[x->p] = moved(J, &x->time) && !moved(J, &x->ratio);
	}
	for (int i = 0; i < J->npair; i++) {
		struct pair *x = &J->pair[i];
		int r = moved(J, &x->ratio), t = J->o->ratio_only ? r : moved(J, &x->time);
		/* the baseline's own time moved the way that explains the ratio's move */
		bool base = moved(J, &J->base[x->p]) == -r;
		x->v = r && r == t && machine[x->p] ? MACHINE_MOVED
		       : r && r == t ? (r > 0 ? SLOWER : FASTER)
		       : r && base ? BASELINE_MOVED
		       : r	   ? RATIO_ONLY
		       : t	   ? TIME_ONLY
				   : SAME;
		/* A change fails only when both witnesses move: the smallest the
		 * pair can fail on is the larger of the two sides' (judge.h). */
		x->ratio.mdc = side_mdc(J, &x->ratio);
		x->time.mdc = J->o->ratio_only ? x->ratio.mdc : side_mdc(J, &x->time);
		x->mdc = fmax(x->ratio.mdc, x->time.mdc);
		x->wide = x->v != SLOWER && x->v != FASTER && x->v != MACHINE_MOVED &&
			  x->mdc > log1p(J->o->rule.threshold) * (1 + 1e-9);
	}
	for (int i = 0; i < J->npair; i++) {
		const struct pair *x = &J->pair[i];
		J->count[x->v] += x->judged;
		J->failed += fails(J, x);
		J->unsure += unsure(J, x);
		J->wide += x->judged && x->wide;
	}
	free(machine);
}

static double ex(double y)
{
	return isfinite(y) ? exp(y) : NAN;
}

static const char *name(const struct judge *J, const struct pair *x)
{
	return x->e < 0 ? FIELD_NAME : J->m->entry[x->e];
}

/* A pair's ratio to the baseline as people read it: the history's mean,
 * where one new run lands (95%: the field taken out is put back at the
 * new side's), the new side's. */
static void ratios(const struct pair *x, double *mean, double *lo, double *hi, double *now)
{
	const struct side *r = &x->ratio;
	*mean = ex(r->s.mean + r->off);
	*lo = ex(r->s.mean + r->off_now - r->half);
	*hi = ex(r->s.mean + r->off_now + r->half);
	*now = ex(r->now + r->off_now);
}

/* What the gate makes of one pair: fail, inconclusive, pass; "-" where no
 * gate was asked for or the pair is not under it. */
static const char *outcome(const struct judge *J, const struct pair *x)
{
	return !x->judged || !gated(J, x) ? "-" : fails(J, x) ? "fail" : unsure(J, x) ?
	       "inconclusive" : "pass";
}

static const char *window(const struct judge *J)
{
	return J->o->window ? J->o->window : "history";
}

static void tsv(FILE *f, const struct judge *J)
{
	if (!J->o->tsv_no_header)
		fputs("point\tvariant\truns\tratio\tpred_lo\tpred_hi\tagainst_ratio\tinside\tp_ratio"
	      "\tns\tns_pred_lo\tns_pred_hi\tagainst_ns\tp_ns\tverdict\tmdc\twide\toutcome"
	      "\twindow\n", f);
	for (int i = 0; i < J->npair; i++) {
		const struct pair *x = &J->pair[i];
		double ht = x->time.half, mean, lo, hi, now;
		ratios(x, &mean, &lo, &hi, &now);
		fprintf(f, "%s\t%s\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%s\t%.3g\t%.6g\t%.6g\t%.6g\t%.6g"
			   "\t%.3g\t%s\t%.4g\t%s\t%s\t%s\n", J->m->point[x->p], name(J, x),
			x->ratio.s.n, mean, lo, hi, now,
			isnan(now) || isnan(lo) ? "-" : now >= lo && now <= hi ? "in" : "OUT",
			x->ratio.p, ex(x->time.s.mean), ex(x->time.s.mean - ht),
			ex(x->time.s.mean + ht), ex(x->time.now), x->time.p, moved_name[x->v],
			exp(x->mdc), x->wide ? "yes" : "no", outcome(J, x), window(J));
	}
}

static void jnum(FILE *f, const char *key, double x)
{
	fprintf(f, ",\"%s\":", key);
	if (isfinite(x))
		fprintf(f, "%.6g", x);
	else
		fputs("null", f);
}

static const char *status_word(int rc)
{
	return rc == FL_JUDGE_FAIL ? "fail" : rc == FL_JUDGE_INCONCLUSIVE ? "inconclusive" : "pass";
}

/* One window's judgement as a JSON object (harness/json.md). */
static void json_window(FILE *f, const struct judge *J, int rc, const char *reason)
{
	fprintf(f, "{\"window\":");
	fl_json_str(f, window(J));
	fprintf(f, ",\"history_runs\":%d,\"fail_on\":", J->nhist);
	if (J->o->rule.fail_on)
		fl_json_str(f, J->o->rule.name);
	else
		fputs("null", f);
	jnum(f, "threshold", 1 + J->o->rule.threshold);
	jnum(f, "q_ratio", J->q_ratio);
	jnum(f, "q_time", J->q_time);
	jnum(f, "cut", J->cut);
	fprintf(f, ",\"outcome\":\"%s\",\"exit\":%d,\"reason\":", status_word(rc), rc);
	if (reason)
		fl_json_str(f, reason);
	else
		fputs("null", f);
	fputs(",\"pairs\":[", f);
	for (int i = 0, n = 0; !reason && i < J->npair; i++) {
		const struct pair *x = &J->pair[i];
		double mean, lo, hi, now;
		if (!x->judged)
			continue;
		ratios(x, &mean, &lo, &hi, &now);
		fputs(n++ ? ",{\"point\":" : "{\"point\":", f);
		fl_json_str(f, J->m->point[x->p]);
		fputs(",\"entry\":", f);
		fl_json_str(f, name(J, x));
		jnum(f, "ratio", mean);
		jnum(f, "lo", lo);
		jnum(f, "hi", hi);
		jnum(f, "now", now);
		jnum(f, "p_ratio", x->ratio.p);
		jnum(f, "ns", ex(x->time.s.mean));
		jnum(f, "ns_now", ex(x->time.now));
		jnum(f, "p_ns", x->time.p);
		jnum(f, "mdc", exp(x->mdc));
		fputs(",\"verdict\":", f);
		fl_json_str(f, moved_name[x->v]);
		fprintf(f, ",\"wide\":%s,\"outcome\":\"%s\"}", x->wide ? "true" : "false",
			outcome(J, x));
	}
	fputs("]}", f);
}

static void row(FILE *f, const struct judge *J, const struct pair *x)
{
	double mean, lo, hi, now;
	char pred[48] = "-", base[64] = "", sees[16] = "-";
	ratios(x, &mean, &lo, &hi, &now);
	if (isfinite(lo))
		snprintf(pred, sizeof pred, "[%.3g, %.3g]", lo, hi);
	if (isfinite(x->mdc))
		snprintf(sees, sizeof sees, "x%.3g", exp(x->mdc));
	const struct side *b = &J->base[x->p];
	if (x->v == BASELINE_MOVED)
		snprintf(base, sizeof base, " (%s %.4g -> %.4g, p %.2g)", J->m->baseline,
			 ex(b->s.mean), ex(b->now), b->p);
	fprintf(f, "%-34s %-20s %7.3g %-18s %7.3g %8.2g  %9.4g %9.4g %8.2g %7s  %s%s%s%s\n",
		J->m->point[x->p], name(J, x), mean, pred, now,
		x->ratio.p, ex(x->time.s.mean), ex(x->time.now), x->time.p, sees, moved_name[x->v],
		x->wide ? " (too wide)" : "", base, fails(J, x) ? "  <- fails"
					 : unsure(J, x) ? "  <- inconclusive" : "");
}

static void header(FILE *f, const struct judge *J)
{
	const struct fl_model *m = J->m;
	const struct fl_judge_opts *o = J->o;
	fprintf(f, "rule: per (point, entry) the new side's ratio to %s and its own time against "
		   "what %d earlier runs predict\n(each series' variance floored at its within-run "
		   "error and 1%%, moderated over all %d pairs, the t's\nscale calibrated on the "
		   "history's own runs, each left out in turn: a standardized deviation's 95%%\n"
		   "quantile %.2f for ratios, %.2f for times: stats/predict.h); SLOWER/FASTER when "
		   "both the ratio\nand the entry's own time moved the same way beyond p < %.2g "
		   "(family-wise %.0f%% over %d pairs,\nBonferroni) and by >= %.0f%%%s; 'sees': the "
		   "smallest change the pair could fail on (both sides);\na pass only where that is "
		   "within x%.3g, else the pair is too wide (inconclusive)\n",
		m->baseline, J->nhist, J->npair, J->q_ratio, J->q_time, J->cut,
		100 * FL_JUDGE_ALPHA, J->judged, 100 * o->rule.threshold,
		o->ratio_only ? " (--across-machines: the ratio alone, a time is not comparable "
		"across machines)" : "", 1 + o->rule.threshold);
	fprintf(f, "\n%-34s %-20s %7s %-18s %7s %8s  %9s %9s %8s %7s  %s\n", "point", "entry",
		"ratio", "next run (95%)", "now", "p", "time", "now", "p", "sees", "verdict");
}

static int cmp_d_ptr(const void *a, const void *b)
{
	return cmp_d(a, b);
}

/* Per point: the smallest detectable changes of its judged pairs (least,
 * median, largest) and how many are wider than the threshold — what every
 * pair could have seen, where --all and --tsv list each. */
static void sees_by_point(FILE *f, const struct judge *J)
{
	double *d = fl_xcalloc((size_t)J->npair + 1, sizeof *d);
	fprintf(f, "\nsmallest detectable change per point (least, median, largest over its pairs; "
		   "too wide: beyond x%.3g):\n", 1 + J->o->rule.threshold);
	for (int p = 0; p < J->m->npoint; p++) {
		int n = 0, wide = 0;
		for (int i = 0; i < J->npair; i++)
			if (J->pair[i].p == p && J->pair[i].judged) {
				d[n++] = exp(J->pair[i].mdc);
				wide += J->pair[i].wide;
			}
		if (!n)
			continue;
		qsort(d, (size_t)n, sizeof *d, cmp_d_ptr);
		fprintf(f, "  %-34s x%-7.3g x%-7.3g x%-7.3g %d of %d too wide\n", J->m->point[p], d[0],
			n % 2 ? d[n / 2] : sqrt(d[n / 2 - 1] * d[n / 2]), d[n - 1], wide, n);
	}
	free(d);
}

/* The names of the pairs `pick` says, sorted, once each: the same list
 * whatever order the rounds ran in. */
static void names(FILE *f, const struct judge *J, bool (*pick)(const struct judge *,
							    const struct pair *))
{
	const char *sep = " (", *last = "";
	for (;;) {
		const char *next = NULL;
		for (int i = 0; i < J->npair; i++) {
			const char *n = name(J, &J->pair[i]);
			if (pick(J, &J->pair[i]) && strcmp(n, last) > 0 &&
			    (!next || strcmp(n, next) < 0))
				next = n;
		}
		if (!next)
			break;
		fprintf(f, "%s%s", sep, next);
		sep = ", ";
		last = next;
	}
	if (*last)
		fputc(')', f);
}

static bool machine_unsure(const struct judge *J, const struct pair *x)
{
	return unsure(J, x) && x->v == MACHINE_MOVED;
}

/* The exit status of the judgement: FL_JUDGE_FAIL when a gated pair
 * failed, else FL_JUDGE_INCONCLUSIVE when one cannot be decided, else
 * FL_JUDGE_PASS (and without a gate: pass). */
static int status(const struct judge *J)
{
	return !J->o->rule.fail_on ? FL_JUDGE_PASS : J->failed ? FL_JUDGE_FAIL
	       : J->unsure ? FL_JUDGE_INCONCLUSIVE : FL_JUDGE_PASS;
}

static void gate(FILE *f, const struct judge *J)
{
	const int *n = J->count;
	fprintf(f, "\n%d pairs judged: %d slower, %d faster, %d where the baseline moved (the "
		   "ratio, the baseline's own time the other way), %d where the ratio alone moved "
		   "(not the entry's own time, nor the baseline's), %d where the time alone moved, "
		   "%d where the machine moved (the ratio and the time, with the point's designs' "
		   "time: inconclusive); %d too wide to see x%.3g\n", J->judged, n[SLOWER], n[FASTER],
		n[BASELINE_MOVED], n[RATIO_ONLY], n[TIME_ONLY], n[MACHINE_MOVED], J->wide,
		1 + J->o->rule.threshold);
	if (!J->o->rule.fail_on)
		return;
	fprintf(f, "fail-on %s: %d of %d pairs %s beyond the between-run spread", J->o->rule.name,
		J->failed, J->judged, J->o->rule.fail_on == FL_GATE_SLOWER ? "slower"
				      : J->o->rule.fail_on == FL_GATE_FASTER ? "faster" : "slower or faster");
	names(f, J, fails);
	if (J->failed) {
		fprintf(f, ": FAIL (exit %d)\n", FL_JUDGE_FAIL);
		return;
	}
	if (!J->unsure) {
		fprintf(f, ": pass\n");
		return;
	}
	int machine = 0;
	for (int i = 0; i < J->npair; i++)
		machine += machine_unsure(J, &J->pair[i]);
	fprintf(f, "; %d gated pairs undecided: %d where the machine moved", J->unsure, machine);
	names(f, J, machine_unsure);
	fprintf(f, ", %d too wide to see x%.3g: INCONCLUSIVE (exit %d)%s\n", J->unsure - machine,
		1 + J->o->rule.threshold, FL_JUDGE_INCONCLUSIVE,
		machine ? "; the machine moved: rerun it (alone on the machine)" : "");
}

/* "revisions a (3), b (2)" of runs [from, to) */
static void revisions(FILE *f, const struct fl_model *m, int from, int to)
{
	for (int r = from; r < to; r++) {
		bool seen = false;
		for (int i = from; i < r && !seen; i++)
			seen = !strcmp(m->run[i].revision, m->run[r].revision);
		if (seen)
			continue;
		int k = 0;
		for (int i = r; i < to; i++)
			k += !strcmp(m->run[i].revision, m->run[r].revision);
		fprintf(f, "%s%s (%d)", r > from ? ", " : "", m->run[r].revision, k);
	}
}

/* The run's `# other work:` figure, % of a core (NAN: none). */
static double other_work(const struct fl_model *m, int r)
{
	const char *v = fl_table_meta(&m->run[r].t, "other work");
	char *end;
	double x = strtod(v, &end);
	return end != v ? x : NAN;
}

/* A new run made while the machine did much more (or less) other work
 * than in its history's runs is a run of another machine state: said, so
 * that a move is read with it (FL_JUDGE_BUSY points of a core apart). */
static void load_note(FILE *f, const struct fl_model *m, int nhist)
{
	double *h = fl_xcalloc((size_t)nhist, sizeof *h);
	int n = 0;
	for (int r = 0; r < nhist; r++)
		if (isfinite(other_work(m, r)))
			h[n++] = other_work(m, r);
	if (n && nhist > 0) {
		double med = median(h, n);
		for (int r = nhist; r < m->nrun; r++) {
			double x = other_work(m, r);
			if (fabs(x - med) > FL_JUDGE_BUSY)
				fprintf(f, "note: %s ran with other work %.0f%% of a core, its history "
					   "%.0f%% (the median): another machine state, which can move "
					   "what it measures\n", m->run[r].path, x, med);
		}
	}
	free(h);
}

void fl_judge_describe(FILE *f, const struct fl_model *m, int nhist)
{
	if (nhist > 0) {
		const struct fl_loaded_run *h = &m->run[0], *l = &m->run[nhist - 1];
		fprintf(f, "history: %d run%s of %s, %s to %s, revisions ", nhist,
			nhist == 1 ? "" : "s", h->machine.label, h->date, l->date);
		revisions(f, m, 0, nhist);
	} else {
		fprintf(f, "history: none");
	}
	char set[160];
	if (nhist < m->nrun) {
		snprintf(set, sizeof set, "%s", m->run[nhist].settings);
		fprintf(f, "; settings: %s", set);
	}
	fprintf(f, "\nnew: ");
	for (int r = nhist; r < m->nrun; r++)
		fprintf(f, "%s%s (%s, %s)", r > nhist ? ", " : "", m->run[r].path,
			m->run[r].revision, m->run[r].date);
	fputc('\n', f);
	for (int r = 0; r < m->nrun; r++) {
		char prefix[300];
		snprintf(prefix, sizeof prefix, "%s: ", m->run[r].path);
		fl_table_as_marks(f, &m->run[r].t, prefix);
	}
	load_note(f, m, nhist);
}

/* No judgement: too short a history, or one the calibration cannot read.
 * Said in one line (on stderr beside a TSV, whose lines are data). */
static int no_judgement(FILE *f, const struct judge *J, const char *why)
{
	FILE *out = J->o->tsv || J->o->json ? stderr : f;
	if (J->o->json)
		json_window(f, J, FL_JUDGE_INCONCLUSIVE, why);
	if (J->o->tsv && !J->o->tsv_no_header)
		fputs("point\tvariant\truns\tratio\tpred_lo\tpred_hi\tagainst_ratio\tinside\tp_ratio"
		      "\tns\tns_pred_lo\tns_pred_hi\tagainst_ns\tp_ns\tverdict\tmdc\twide\toutcome"
		      "\twindow\n", f);
	fprintf(out, "%sinconclusive (%s): %s; no pair judged: INCONCLUSIVE (exit %d)\n",
		J->o->tsv || J->o->json ? "futexlab compare: " : "\n", window(J), why,
		FL_JUDGE_INCONCLUSIVE);
	return FL_JUDGE_INCONCLUSIVE;
}

static void judge_free(struct judge *J)
{
	for (int i = 0; i < J->npair; i++)
		free(J->pair[i].ratio.y), free(J->pair[i].time.y);
	for (int p = 0; p < J->m->npoint; p++)
		free(J->base[p].y);
	free(J->pair);
	free(J->base);
	free(J->field);
	free(J->has_field);
}

int fl_judge(FILE *f, const struct fl_model *m, int nhist, const struct fl_judge_opts *o)
{
	struct judge J = { .m = m, .nhist = nhist, .o = o, .q_ratio = NAN, .q_time = NAN,
			   .cut = NAN };
	if (nhist < FL_PREDICT_MIN_RUNS) {
		char why[160];
		snprintf(why, sizeof why, "%d earlier run%s of this machine and settings, the gate "
			 "needs %d (stats/predict.h)", nhist, nhist == 1 ? "" : "s",
			 FL_PREDICT_MIN_RUNS);
		return no_judgement(f, &J, why);
	}
	fields(&J);
	collect(&J);
	fit(&J);
	classify(&J);
	if (!J.judged) {
		fflush(f);
		fl_bad_input("compare: no (point, entry) ran both in the history and in the new "
			       "run(s): nothing to judge");
	}
	int rc;
	if (!isfinite(J.q_ratio) || (!o->ratio_only && !isfinite(J.q_time))) {
		rc = no_judgement(f, &J, "the history's runs give too few deviations to calibrate "
				  "the interval on (stats/predict.h)");
	} else if (o->json) {
		rc = status(&J);
		json_window(f, &J, rc, NULL);
	} else if (o->tsv) {
		tsv(f, &J);
		rc = status(&J);
	} else {
		header(f, &J);
		for (int i = 0; i < J.npair; i++)
			if (J.pair[i].judged && (o->all || J.pair[i].v != SAME || unsure(&J, &J.pair[i])))
				row(f, &J, &J.pair[i]);
		sees_by_point(f, &J);
		gate(f, &J);
		rc = status(&J);
	}
	judge_free(&J);
	return rc;
}
