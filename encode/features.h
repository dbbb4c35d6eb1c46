/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --features: pahole's --btf_features names, with pahole's meaning.
 */
#ifndef BTFCANON_FEATURES_H
#define BTFCANON_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#include "../canon/log.h"

/* What to emit; pahole's --btf_features names in brackets. */
struct encode_features {
	bool floats;		/* FLOAT kind [float]; else float types are skipped */
	bool decl_tags;		/* DECL_TAG from btf_decl_tag annotations [decl_tag] */
	bool type_tags;		/* TYPE_TAG from btf_type_tag annotations [type_tag] */
	bool enum64;		/* ENUM64 for 64-bit enums [enum64]; else ENUM */
	bool funcs;		/* FUNCs for the ELF's functions (pahole -J always) */
	bool vars;		/* per-CPU VARs and their DATASEC [var] */
	bool global_vars;	/* VARs for every global variable [global_var] */
	bool kfunc_tags;	/* bpf_kfunc/bpf_fastcall DECL_TAGs [decl_tag_kfuncs] */
	/*
	 * [attributes] with kfunc_tags: an arena kfunc's flagged pointers
	 * point to TYPE_TAG "address_space(1)" with kflag 1 (select.c)
	 */
	bool attributes;
	bool optimized_funcs;	/* foo.isra.0, foo.constprop.0 are foo [optimized_func] */
	bool consistent_funcs;	/* leave out what fails the rules [consistent_func] */
	bool layout;		/* the kind layout section, base BTF only [layout] */
	/*
	 * [true_signature] a clone's code (foo.isra.0, foo.constprop.1) gets
	 * a FUNC of that name with the signature it really has, instead of
	 * foo's, and optimized parameters leave nothing out.
	 */
	bool true_signature;
	/*
	 * A multi-dimensional array as one ARRAY of all its elements, as
	 * pahole and every kernel's BTF write it (int a[2][3] -> int[6]);
	 * else nested ARRAYs as in C. Not a pahole feature name: encode_file
	 * sets it from encode_opts.arrays (and the base's shape), whatever
	 * the caller left here.
	 */
	bool flat_arrays;
	/*
	 * Split BTF over a distilled base [distilled_base]: not the
	 * encoder's business (it always encodes over the full base); the
	 * writer distills the result (canon/distill.h) for an ELF output.
	 */
	bool distilled_base;
};

/*
 * Adds a --btf_features list to f, with pahole's meaning (v1.31): each
 * name it knows turns its feature on; "default" (the whole list, or one
 * of its names) turns pahole's default set on; a '+' before the list turns
 * the default set on, then the names after it (--btf_features=+layout is
 * the default set and layout). Nothing is turned off, so several lists add
 * up. A name it does not know is skipped with a BC_LOG_WARN message in
 * pahole's words ("Ignoring unsupported feature 'NAME'"; pahole -V prints
 * it), or, when strict (--btf_features_strict), is an error in pahole's
 * words that lists the names known. Returns 0 or -EINVAL.
 */
int encode_features_add(struct encode_features *f, const char *list,
			bool strict, const struct bc_log *log);

/*
 * encode_features_add() from nothing enabled but functions (pahole -J
 * always encodes them): btfcanon encode --features.
 */
int encode_features_parse(const char *list, bool strict,
			  struct encode_features *f, const struct bc_log *log);

/*
 * The names known, comma-separated, as pahole --supported_btf_features
 * prints them, into buf (cut to size; FEATURE_NAMES_MAX holds them all).
 */
#define FEATURE_NAMES_MAX 512
void encode_features_names(char *buf, size_t size);

#endif
