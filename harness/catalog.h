/* harness/catalog.h — hands the report (model/catalog.h) what the
 * registries know of names: every command that prints a table calls it
 * first (main.c). */
#ifndef FUTEXLAB_HARNESS_CATALOG_H
#define FUTEXLAB_HARNESS_CATALOG_H

void fl_catalog_install(void);

#endif
