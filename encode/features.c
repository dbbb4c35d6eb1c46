// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "features.h"

/*
 * Every name pahole knows, each mapped onto a field of struct
 * encode_features. reproducible_build needs nothing: btfcanon's output is
 * always reproducible. encode_force (skip bad symbols instead of failing)
 * is what btfcanon always does. distilled_base is accepted and ignored:
 * libbpf 1.1.2 cannot distill a base.
 */
struct feature {
	const char *name;
	size_t field;		/* offsetof in encode_features, or NO_FIELD */
	bool in_default;
};

#define NO_FIELD ((size_t)-1)
#define FIELD(f) offsetof(struct encode_features, f)

static const struct feature features[] = {
	{ "encode_force", NO_FIELD, false },
	{ "var", FIELD(vars), true },
	{ "float", FIELD(floats), true },
	{ "decl_tag", FIELD(decl_tags), true },
	{ "type_tag", FIELD(type_tags), true },
	{ "enum64", FIELD(enum64), true },
	{ "optimized_func", FIELD(optimized_funcs), true },
	{ "consistent_func", FIELD(consistent_funcs), true },
	{ "decl_tag_kfuncs", FIELD(kfunc_tags), true },
	{ "reproducible_build", NO_FIELD, false },
	{ "global_var", FIELD(global_vars), false },
	{ "distilled_base", NO_FIELD, false },
	{ "true_signature", FIELD(true_signature), false },
};

static void enable(struct encode_features *f, const struct feature *feat)
{
	if (feat->field != NO_FIELD)
		*(bool *)((char *)f + feat->field) = true;
}

int encode_features_parse(const char *list, bool strict,
			  struct encode_features *f, const struct bc_log *log)
{
	char *copy = strdup(list), *save = NULL, *name;
	size_t i;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	memset(f, 0, sizeof(*f));
	f->funcs = true;	/* pahole -J always encodes functions */
	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		bool known = false;

		if (!strcmp(name, "default") || !strcmp(name, "all")) {
			for (i = 0; i < sizeof(features) / sizeof(features[0]); i++)
				if (features[i].in_default || !strcmp(name, "all"))
					enable(f, &features[i]);
			continue;
		}
		for (i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
			if (!strcmp(name, features[i].name)) {
				enable(f, &features[i]);
				known = true;
			}
		}
		if (known)
			continue;
		if (strict) {
			err = bc_log_error(log, -EINVAL,
					   "unknown BTF feature '%s'", name);
			break;
		}
		bc_log_printf(log, BC_LOG_WARN, "unknown BTF feature '%s' ignored",
			      name);
	}
	free(copy);
	return err;
}
