/* tests/mutants/mutant.h — FL_VARIANT with the name taken from MUT_NAME
 * (one indirection so the macro expands before FL_VARIANT pastes it). */
#ifndef FUTEXLAB_MUTANT_H
#define FUTEXLAB_MUTANT_H
#include "variants/variant.h"
#define MUT_VARIANT(n, T, ...) FL_VARIANT(n, T, __VA_ARGS__)
#endif
