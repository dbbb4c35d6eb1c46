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
 * is what btfcanon always does. The names of pahole 1.28 to 1.31 that the
 * kernel's scripts pass are known so that their command lines run:
 * distilled_base (split BTF with a .BTF.base: the writer distills, see
 * canon/distill.c; as in pahole, for ELF output only), attributes (with
 * decl_tag_kfuncs: the pointers of kfuncs flagged KF_ARENA_RET/ARG1/ARG2
 * in .BTF_ids point to a TYPE_TAG "address_space(1)" with kflag 1, in a
 * prototype of the kfunc's own; see select.c), layout (the kind layout
 * section) and true_signature (a clone's real signature). (attributes
 * changes nothing before the kernel had KF_ARENA flags: pahole's own
 * 6.12.117 BTF with it has no kflag tag.)
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
	{ "distilled_base", FIELD(distilled_base), false },
	{ "attributes", FIELD(attributes), false },
	{ "true_signature", FIELD(true_signature), false },
	{ "layout", FIELD(layout), false },
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
