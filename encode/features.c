// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features.h"

/*
 * Every name pahole knows, in the order its --supported_btf_features
 * lists them, each mapped onto a field of struct encode_features and
 * marked when pahole's default set has it. reproducible_build needs
 * nothing: btfcanon's output is always reproducible. encode_force (skip
 * bad symbols instead of failing) is what btfcanon always does. The names
 * of pahole 1.28 to 1.31 that the kernel's scripts pass are known so that
 * their command lines run: distilled_base (split BTF with a .BTF.base:
 * the writer distills, see canon/distill.c; as in pahole, for ELF output
 * only), attributes (with decl_tag_kfuncs: the pointers of kfuncs flagged
 * KF_ARENA_RET/ARG1/ARG2 in .BTF_ids point to a TYPE_TAG
 * "address_space(1)" with kflag 1, in a prototype of the kfunc's own; see
 * select.c), layout (the kind layout section) and true_signature (a
 * clone's real signature). (attributes changes nothing before the kernel
 * had KF_ARENA flags: pahole's own 6.12.117 BTF with it has no kflag
 * tag.) decl_tag_kfuncs is in the default set, as in pahole's source
 * (its man page lists it among the others).
 */
struct feature {
	const char *name;
	size_t field;		/* offsetof in encode_features, or NO_FIELD */
	bool in_default;
};

#define NO_FIELD ((size_t)-1)
#define FIELD(f) offsetof(struct encode_features, f)

static const struct feature features[] = {
	{ "encode_force", NO_FIELD, true },
	{ "var", FIELD(vars), true },
	{ "float", FIELD(floats), true },
	{ "decl_tag", FIELD(decl_tags), true },
	{ "type_tag", FIELD(type_tags), true },
	{ "enum64", FIELD(enum64), true },
	{ "optimized_func", FIELD(optimized_funcs), true },
	{ "consistent_func", FIELD(consistent_funcs), true },
	{ "decl_tag_kfuncs", FIELD(kfunc_tags), true },
	{ "reproducible_build", NO_FIELD, false },
	{ "distilled_base", FIELD(distilled_base), false },
	{ "global_var", FIELD(global_vars), false },
	{ "attributes", FIELD(attributes), false },
	{ "true_signature", FIELD(true_signature), false },
	{ "layout", FIELD(layout), false },
};

#define NR_FEATURES (sizeof(features) / sizeof(features[0]))

/* pahole's own limit on one list (longer lists are cut there) */
#define FEATURE_LIST_MAX 1024

static void enable(struct encode_features *f, const struct feature *feat)
{
	if (feat->field != NO_FIELD)
		*(bool *)((char *)f + feat->field) = true;
}

static void enable_default(struct encode_features *f)
{
	size_t i;

	for (i = 0; i < NR_FEATURES; i++)
		if (features[i].in_default)
			enable(f, &features[i]);
}

void encode_features_names(char *buf, size_t size)
{
	size_t i, len = 0;

	if (size)
		buf[0] = 0;
	for (i = 0; i < NR_FEATURES && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? "," : "",
				features[i].name);
}

int encode_features_add(struct encode_features *f, const char *list,
			bool strict, const struct bc_log *log)
{
	char copy[FEATURE_LIST_MAX + 1], *save = NULL, *name;
	size_t i;

	if (!strcmp(list, "default")) {
		enable_default(f);
		return 0;
	}
	if (list[0] == '+') {
		enable_default(f);
		list++;
	}
	snprintf(copy, sizeof(copy), "%s", list);
	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NR_FEATURES; i++)
			if (!strcmp(name, features[i].name))
				break;
		if (i < NR_FEATURES) {
			enable(f, &features[i]);
			continue;
		}
		/* as pahole: "default" counts inside a list too */
		if (!strcmp(name, "default")) {
			enable_default(f);
		} else if (strict) {
			char names[FEATURE_NAMES_MAX];

			encode_features_names(names, sizeof(names));
			return bc_log_error(log, -EINVAL,
				"Feature '%s' in '%s' is not supported.  Supported BTF features are:\n%s",
				name, list, names);
		}
		/* pahole says this of "default" in a list too */
		bc_log_printf(log, BC_LOG_WARN, "Ignoring unsupported feature '%s'",
			      name);
	}
	return 0;
}

int encode_features_parse(const char *list, bool strict,
			  struct encode_features *f, const struct bc_log *log)
{
	memset(f, 0, sizeof(*f));
	f->funcs = true;	/* pahole -J always encodes functions */
	return encode_features_add(f, list, strict, log);
}
