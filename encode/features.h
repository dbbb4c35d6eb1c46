/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --features: pahole's --btf_features names, with pahole's meaning.
 */
#ifndef BTFCANON_FEATURES_H
#define BTFCANON_FEATURES_H

#include <stdbool.h>

#include "encoder.h"

/*
 * Parses a comma-separated list of pahole feature names into f, starting
 * from nothing enabled; "default" enables pahole's default set. Names this
 * version does not know are skipped with a warning, or are an error when
 * strict (as pahole's --btf_features_strict). Returns 0 or -EINVAL.
 */
int encode_features_parse(const char *list, bool strict,
			  struct encode_features *f, const struct bc_log *log);

#endif
