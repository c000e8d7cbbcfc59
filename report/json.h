/* report/json.h — the model as JSON (`futexlab compare --json`).
 *
 * One object, the model of model.h and nothing else: the runs with their
 * identity and machine, the points, the entries with their kind, and one
 * object per cell an entry ran in. The schema is versioned ("schema":
 * "futexlab-model/1") and documented field by field in harness/json.md;
 * a figure that does not exist (no CPU columns, no paired rounds) is null,
 * never a made-up number. Strings are escaped per RFC 8259. */
#ifndef FUTEXLAB_JSON_H
#define FUTEXLAB_JSON_H

#include <stdio.h>

#include "model/model.h"

#define FL_JSON_SCHEMA "futexlab-model/1"

void fl_model_json(FILE *f, const struct fl_model *m);

/* A JSON string (RFC 8259 escapes; NULL: null) and a number (null where
 * not finite: JSON has no NaN), for every JSON the report writes. */
void fl_json_str(FILE *f, const char *s);
void fl_json_num(FILE *f, double x);

#endif
