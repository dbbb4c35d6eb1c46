// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions, variables and kfunc tags (encode/funcs.c, select.c,
 * elf_syms.c) on fixtures compiled at test time.
 *
 * The C files of tests/fixtures/funcs are linked into one relocatable object (a
 * module is one too, and only ld -r keeps .data..percpu a section of its
 * own) with gcc at -O0, -O1, -O2 and clang at -O0, -O2. Each rule of
 * DESIGN.md's "What the encoder emits" has a case:
 *	inconsistent	mismatch, a weak and a strong prototype: no FUNC
 *	ambiguous	same_fn, dup_fn, a name at two addresses: no FUNC
 *	weak		pick: the strong definition's prototype
 *	clone		clone_me.constprop/.isra: matched to clone_me
 *	optimized	opt_unused keeps its FUNC, opt_clone's clone does not
 *	reordered	reo_fn.isra.0 lists its parameters in another order
 *	uncertain	unc_fn, a packed struct by value past the registers
 *	true_sig	true_signature: opt_clone's code gets the FUNC
 *			opt_clone.constprop.0, and opt_clone none
 *	plus_uconst	a variable at DW_OP_addr + DW_OP_plus_uconst gets its VAR
 *	abi		registers counted as pahole counts them: by size, a
 *			struct parameter excusing the rest
 *	percpu		VARs and one DATASEC by offset; global_var adds .data
 *	decl_tags	clang's btf_decl_tag on a function, parameter, variable
 *	kfuncs		.BTF_ids set8 ranges: bpf_kfunc, bpf_fastcall
 *	arena		attributes: kf_arena (KF_ARENA_RET | KF_ARENA_ARG1)
 *			returns and takes first a pointer to TYPE_TAG
 *			"address_space(1)" with kflag 1; its second
 *			parameter, and everything without attributes, not;
 *			bc_btf_parse, libbpf and BPF_BTF_LOAD accept it
 *	determinism	one unit per chunk, any -j and order: the same bytes
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <check.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>

#include "../encode/elf_syms.h"
#include "../encode/encoder.h"
#include "../encode/features.h"
#include "../encode/funcs.h"
#include "../encode/locs.h"
#include "suites.h"
#include "testutil.h"

#define FIXTURES "tests/fixtures/funcs"

struct variant {
	const char *cc;
	const char *opt;
};

static const struct variant variants[] = {
	{ "gcc", "-O0" }, { "gcc", "-O1" }, { "gcc", "-O2" },
	{ "clang", "-O0" }, { "clang", "-O2" },
};
#define NR_VARIANTS (int)(sizeof(variants) / sizeof(variants[0]))

/* The INFO lines of one encode (skipped functions), concatenated. */
struct captured {
	char text[1 << 16];
	size_t len;
};

static void capture(void *ctx, enum bc_log_level level, const char *msg)
{
	struct captured *c = ctx;
	int n;

	if (level > BC_LOG_INFO || c->len >= sizeof(c->text))
		return;
	n = snprintf(c->text + c->len, sizeof(c->text) - c->len, "%s%s\n",
		     level == BC_LOG_ERROR ? "error: " : "", msg);
	if (n > 0)
		c->len += n;
}

static char tmpdir[64];

static void remove_tmpdir(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		return;
}

static void make_fixture(const char *path, void *ctx)
{
	const struct variant *v = ctx;
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "%s -g %s -r -nostdlib -w -o %s " FIXTURES "/*.c", v->cc, v->opt,
		 path);
	ck_assert_msg(!system(cmd), "cannot build the fixtures: %s", cmd);
}

/*
 * Builds the fixture object for a variant, once per run (the run's
 * cache: every case reads the same five objects); returns its path
 * (static). Makes tmpdir, this process's, for what a case builds itself.
 */
static const char *build(const struct variant *v)
{
	static char path[4096];
	char name[64], *cached;

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/btfcanon-funcs-XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(tmpdir));
		atexit(remove_tmpdir);
	}
	snprintf(name, sizeof(name), "funcs-%s%s.o", v->cc, v->opt);
	cached = test_cached(name, make_fixture, (void *)v);
	snprintf(path, sizeof(path), "%s", cached);
	free(cached);
	return path;
}

/* Encodes path, canonical; the skipped functions' lines in *log_text. */
static struct btf *encode(const char *path, const char *features,
			  unsigned int jobs, uint32_t chunk_cus, uint64_t seed,
			  struct captured *cap, struct blob *canonical)
{
	struct bc_log log = { .fn = capture, .ctx = cap };
	struct encode_opts opts;
	struct encode_stats stats;
	struct encode_result enc;
	struct btf *btf;
	int err;

	encode_opts_init(&opts);
	opts.jobs = jobs;
	if (chunk_cus)
		opts.chunk_cus = chunk_cus;
	opts.shuffle = seed != 0;
	opts.shuffle_seed = seed;
	if (features)
		ck_assert_int_eq(encode_features_parse(features, true,
						       &opts.features, &log), 0);
	cap->len = 0;
	err = encode_file(path, &opts, &enc, &stats, &log);
	ck_assert_msg(!err, "%s: encode failed: %s", path, cap->text);
	*canonical = canon_encoded(&enc, NULL, BC_ORDER_KIND, false);
	encode_result_deinit(&enc);
	btf = btf__new(canonical->data, canonical->size);
	ck_assert_ptr_nonnull(btf);
	return btf;
}

static struct btf *encode_variant(int i, const char *features,
				  struct captured *cap)
{
	struct blob canonical;
	struct btf *btf = encode(build(&variants[i]), features, 2, 0, 0, cap,
				 &canonical);

	blob_free(&canonical);
	return btf;
}

static int find(const struct btf *btf, const char *name, int kind)
{
	return btf__find_by_name_kind(btf, name, kind);
}

/* The decl tags with this value on target (component -2: any). */
static int count_tags(const struct btf *btf, const char *value, int target,
		      int component)
{
	int id, n = 0, end = btf__type_cnt(btf);

	for (id = 1; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_decl_tag(t) && (int)t->type == target &&
		    !strcmp(btf__name_by_offset(btf, t->name_off), value) &&
		    (component == -2 || btf_decl_tag(t)->component_idx == component))
			n++;
	}
	return n;
}

static const char *param_name(const struct btf *btf, int func, int i)
{
	const struct btf_type *proto =
		btf__type_by_id(btf, btf__type_by_id(btf, func)->type);

	ck_assert_int_gt(btf_vlen(proto), i);
	return btf__name_by_offset(btf, btf_params(proto)[i].name_off);
}

START_TEST(inconsistent)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	struct btf *btf = encode_variant(_i, NULL, cap);
	int id;

	ck_assert_int_lt(find(btf, "mismatch", BTF_KIND_FUNC), 0);
	ck_assert_msg(strstr(cap->text, "function mismatch skipped: inconsistent prototype"),
		      "%s %s: %s", variants[_i].cc, variants[_i].opt, cap->text);
	/* without consistent_func it is kept: the strong definition's */
	btf__free(btf);
	btf = encode_variant(_i, "var,float,decl_tag,type_tag,enum64,optimized_func",
			     cap);
	id = find(btf, "mismatch", BTF_KIND_FUNC);
	ck_assert_int_gt(id, 0);
	ck_assert_str_eq(param_name(btf, id, 0), "strong_arg");
	btf__free(btf);
	free(cap);
}
END_TEST

/* The decision on name in d, or NULL. */
static const struct func_decision *decision(const struct func_decisions *d,
					    const char *name)
{
	uint32_t i;

	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->entries[i].name, name))
			return &d->entries[i];
	return NULL;
}

/*
 * The decisions pahole -V words (btfcanon-pahole prints them): the first
 * prototype mismatch (the first definition, mismatch_strong.c, against
 * the first that differs) and the reason; without consistent_func the
 * mismatch is kept, the function too. Functions encoded as they are get
 * no decision.
 */
START_TEST(decisions)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	struct bc_log log = { .fn = capture, .ctx = cap };
	const char *path = build(&variants[_i]);
	const struct func_decision *d;
	struct encode_opts opts;
	struct encode_stats stats;
	struct encode_result enc;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		encode_opts_init(&opts);
		opts.jobs = 2;
		if (pass)
			ck_assert_int_eq(encode_features_parse("var,float,enum64,optimized_func",
							       true, &opts.features, &log), 0);
		ck_assert_int_eq(encode_file(path, &opts, &enc, &stats, &log), 0);
		d = decision(&enc.decisions, "mismatch");
		ck_assert_ptr_nonnull(d);
		ck_assert_int_eq(d->why, pass ? SKIP_NR : SKIP_INCONSISTENT);
		ck_assert_int_eq(d->mismatch, MISMATCH_PARAM_TYPE);
		ck_assert_uint_eq(d->a, 1);
		ck_assert_str_eq(d->param_a, "strong_arg");
		ck_assert_str_eq(d->param_b, "weak_arg");
		d = decision(&enc.decisions, "same_fn");
		ck_assert_ptr_nonnull(d);
		ck_assert_int_eq(d->why, SKIP_AMBIGUOUS_ADDR);
		ck_assert_ptr_null(decision(&enc.decisions, "call_mismatch"));
		encode_result_deinit(&enc);
	}
	free(cap);
}
END_TEST

/*
 * Symbols at several addresses: left out whatever else holds, and
 * whatever the features (pahole gives this reason over any other).
 */
START_TEST(ambiguous)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	struct btf *btf = encode_variant(_i, NULL, cap);

	ck_assert_int_lt(find(btf, "same_fn", BTF_KIND_FUNC), 0);
	ck_assert_msg(strstr(cap->text, "function same_fn skipped: ambiguous address"),
		      "%s", cap->text);
	ck_assert_msg(strstr(cap->text, "function dup_fn skipped: ambiguous address"),
		      "%s", cap->text);
	btf__free(btf);
	btf = encode_variant(_i, "var,float,decl_tag,type_tag,enum64,optimized_func",
			     cap);
	ck_assert_int_lt(find(btf, "dup_fn", BTF_KIND_FUNC), 0);
	btf__free(btf);
	free(cap);
}
END_TEST

START_TEST(weak_strong)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	struct btf *btf = encode_variant(_i, NULL, cap);
	int pick = find(btf, "pick", BTF_KIND_FUNC);

	ck_assert_int_gt(pick, 0);
	ck_assert_str_eq(param_name(btf, pick, 0), "strong_arg");
	btf__free(btf);
	free(cap);
}
END_TEST

/*
 * abi.c's registers, counted as pahole counts them: a parameter takes
 * ceil(size / 8) integer registers (one over 16 bytes), a double one too,
 * a returned big struct none. The struct parameters excuse any misplaced
 * register (their pieces throw the count off), so abi_pair_arg and
 * abi_big_arg always get a FUNC. Under gcc -O2 the out-of-line copies of
 * abi_double_arg and abi_big_ret have `after` and `x` where the count
 * does not expect them: left out, as pahole leaves them (the kernel
 * refuses to trace either: a float parameter, a struct over 16 bytes
 * returned).
 */
START_TEST(abi)
{
	static const char *const kept[] = { "abi_pair_arg", "abi_big_arg" };
	static const char *const gcc_o2_skipped[] = {
		"abi_double_arg", "abi_big_ret",
	};
	struct captured *cap = calloc(1, sizeof(*cap));
	struct btf *btf = encode_variant(_i, NULL, cap);
	char skipped[96];
	size_t k;

	for (k = 0; k < sizeof(kept) / sizeof(kept[0]); k++)
		ck_assert_msg(find(btf, kept[k], BTF_KIND_FUNC) > 0,
			      "%s %s: no FUNC %s: %s", variants[_i].cc,
			      variants[_i].opt, kept[k], cap->text);
	for (k = 0; !strcmp(variants[_i].cc, "gcc") &&
	     !strcmp(variants[_i].opt, "-O2") &&
	     k < sizeof(gcc_o2_skipped) / sizeof(gcc_o2_skipped[0]); k++) {
		snprintf(skipped, sizeof(skipped),
			 "function %s skipped: unexpected register usage for parameter",
			 gcc_o2_skipped[k]);
		ck_assert_msg(strstr(cap->text, skipped), "gcc -O2: %s", cap->text);
		ck_assert_int_lt(find(btf, gcc_o2_skipped[k], BTF_KIND_FUNC), 0);
	}
	btf__free(btf);
	free(cap);
}
END_TEST

/*
 * A variable located at another's address plus DW_OP_plus_uconst (LLVM's
 * GlobalMerge) is a variable at that address: pu_second gets its VAR at
 * offset 4 of .data..percpu. The DWARF is gcc's, rewritten in the
 * assembly (asm/plus_uconst.c says how); once per run, not per variant.
 */
START_TEST(plus_uconst)
{
	char obj[160], cmd[1024];
	struct captured *cap;
	struct blob canonical;
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	struct btf *btf;
	int id, found = 0;
	uint32_t i;

	if (_i)
		return;
	build(&variants[0]);	/* makes tmpdir */
	snprintf(obj, sizeof(obj), "%s/plus_uconst.o", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "gcc -O0 -g -gdwarf-5 -S -o - " FIXTURES "/asm/plus_uconst.c | "
		 "perl -0pe 's/\\t\\.uleb128 0x9\\n\\t\\.byte\\t0x3\\n\\t\\.quad\\tpu_second\\n/"
		 "\\t.uleb128 0xb\\n\\t.byte\\t0x3\\n\\t.quad\\tpu_first\\n\\t.byte\\t0x23\\n"
		 "\\t.uleb128 pu_second-pu_first\\n/ or die \"no location\"; "
		 "s/(\\.Ldebug_info0:\\n\\t\\.long\\t)(0x[0-9a-f]+)/$1.$2.\"+2\"/e or die \"no unit\"' "
		 "> %s.s && gcc -c -o %s %s.s", obj, obj, obj);
	ck_assert_msg(!system(cmd), "cannot build %s: %s", obj, cmd);
	cap = calloc(1, sizeof(*cap));
	btf = encode(obj, "var", 1, 0, 0, cap, &canonical);
	id = find(btf, ".data..percpu", BTF_KIND_DATASEC);
	ck_assert_int_gt(id, 0);
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++) {
		const struct btf_type *var = btf__type_by_id(btf, vs[i].type);

		if (!strcmp(btf__name_by_offset(btf, var->name_off), "pu_second")) {
			ck_assert_uint_eq(vs[i].offset, 4);
			found = 1;
		}
	}
	ck_assert_msg(found, "no VAR pu_second in .data..percpu: %s", cap->text);
	blob_free(&canonical);
	btf__free(btf);
	free(cap);
}
END_TEST

/* Does the object's symbol table have name only as a clone? */
static bool only_clones_of(const char *obj, const char *name)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "nm %s | grep -q ' %s\\.' && ! nm %s | grep -q ' %s$'",
		 obj, name, obj, name);
	return !system(cmd);
}

/*
 * Optimized-out parameters leave a function out only where its ABI
 * changed: opt_unused (b unread, no clone) keeps its FUNC in every
 * variant; opt_clone is left out where the symbol table has only its
 * clone, and kept where the compiler made none.
 */
START_TEST(optimized)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	struct btf *btf = encode_variant(_i, NULL, cap);
	bool clone = only_clones_of(build(&variants[_i]), "opt_clone");

	ck_assert_msg(find(btf, "opt_unused", BTF_KIND_FUNC) > 0, "%s %s: %s",
		      variants[_i].cc, variants[_i].opt, cap->text);
	if (clone) {
		ck_assert_int_lt(find(btf, "opt_clone", BTF_KIND_FUNC), 0);
		ck_assert_msg(strstr(cap->text, "function opt_clone skipped: optimized parameters"),
			      "%s %s: %s", variants[_i].cc, variants[_i].opt,
			      cap->text);
	} else {
		ck_assert_int_gt(find(btf, "opt_clone", BTF_KIND_FUNC), 0);
	}
	/* gcc -O2 makes the clone: the case must be exercised somewhere */
	if (!strcmp(variants[_i].cc, "gcc") && !strcmp(variants[_i].opt, "-O2"))
		ck_assert_msg(clone, "gcc -O2 made no clone of opt_clone");
	btf__free(btf);
	free(cap);
}
END_TEST

/*
 * The flags func_inspect gives the out-of-line code of the function
 * called name in a shared object built from optimized.c (linked, so its
 * DWARF needs no relocation): the subprogram with an address whose
 * name, through its abstract origin, is name.
 */
static uint32_t inspect_flags(const char *so, const char *name)
{
	static const uint8_t x86_64[] = { 5, 4, 1, 2, 8, 9 };
	const struct call_abi abi = { .regs = x86_64, .nr_regs = 6 };
	Dwarf_CU *cu = NULL, *next;
	uint32_t flags = 0;
	bool found = false;
	Dwarf_Die cu_die, die;
	Dwarf *dwarf;
	int fd = open(so, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	dwarf = dwarf_begin(fd, DWARF_C_READ);
	ck_assert_ptr_nonnull(dwarf);
	while (!found && !dwarf_get_units(dwarf, cu, &next, NULL, NULL, &cu_die, NULL)) {
		cu = next;
		if (dwarf_child(&cu_die, &die))
			continue;
		do {
			Dwarf_Attribute mem;
			Dwarf_Die origin;
			Dwarf_Addr pc;
			uint64_t addr;
			const char *n = dwarf_diename(&die);

			if (dwarf_tag(&die) != DW_TAG_subprogram || !n ||
			    strcmp(n, name) || dwarf_lowpc(&die, &pc))
				continue;
			if (!dwarf_attr(&die, DW_AT_abstract_origin, &mem) ||
			    !dwarf_formref_die(&mem, &origin))
				origin = die;
			func_inspect(NULL, &die, &origin, &abi, NULL, false, &flags, &addr);
			found = true;
			break;
		} while (!dwarf_siblingof(&die, &die));
	}
	dwarf_end(dwarf);
	close(fd);
	ck_assert_msg(found, "%s: no code for %s", so, name);
	return flags;
}

/*
 * A packed struct by value after the register parameters: its place on
 * the stack is not what the DWARF says, whatever the compiler and level.
 */
START_TEST(uncertain)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	struct btf *btf = encode_variant(_i, NULL, cap);

	ck_assert_int_lt(find(btf, "unc_fn", BTF_KIND_FUNC), 0);
	ck_assert_msg(strstr(cap->text, "function unc_fn skipped: uncertain parameter location"),
		      "%s %s: %s", variants[_i].cc, variants[_i].opt, cap->text);
	ck_assert_msg(find(btf, "unc_aligned", BTF_KIND_FUNC) > 0, "%s %s: %s",
		      variants[_i].cc, variants[_i].opt, cap->text);
	btf__free(btf);
	free(cap);
}
END_TEST

/* optimized.c alone as a shared object (linked: nonzero addresses). */
static const char *build_optimized_so(int i)
{
	static char so[160];
	char cmd[512];

	build(&variants[i]);	/* makes tmpdir */
	snprintf(so, sizeof(so), "%s/optimized-%s%s.so", tmpdir, variants[i].cc,
		 variants[i].opt);
	if (!access(so, R_OK))
		return so;
	snprintf(cmd, sizeof(cmd),
		 "%s -g %s -fPIC -shared -nostdlib -w -o %s " FIXTURES "/optimized.c",
		 variants[i].cc, variants[i].opt, so);
	ck_assert_msg(!system(cmd), "cannot build %s", so);
	return so;
}

/*
 * locs.c's shortcut against libdw, over every formal parameter of the
 * shared object so: wherever loc_first_reg() names a register, libdw's
 * first expression of the location starts with that DW_OP_regN; and
 * every subprogram gets the same flags and true-signature drops from
 * func_inspect() with the shortcut and the DIE reader (die_reader.h) and
 * with libdw alone; the lists it read lie
 * in the span it kept. Returns how many
 * parameters the shortcut answered.
 */
/* The DIE reader's slots: none (func_inspect reads no values through it) */
static int no_slot(unsigned int name)
{
	(void)name;
	return -1;
}

static unsigned int check_first_regs(const char *so, bool *spanned)
{
	static const uint8_t x86_64[] = { 5, 4, 1, 2, 8, 9 };
	const struct call_abi abi = { .regs = x86_64, .nr_regs = 6 };
	const uint32_t all = CAND_REORDERED | CAND_SIG_CHANGED;
	struct loc_sections secs;
	struct loc_span span;
	struct die_reader reader;
	Dwarf_CU *cu = NULL, *next;
	unsigned int answered = 0;
	Dwarf_Die cu_die, die;
	Dwarf *dwarf;
	int fd = open(so, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	dwarf = dwarf_begin(fd, DWARF_C_READ);
	ck_assert_ptr_nonnull(dwarf);
	loc_sections_find(dwarf_getelf(dwarf), &secs);
	loc_span_init(&span);
	die_reader_init(&reader, no_slot);
	reader.home = dwarf;
	while (!dwarf_get_units(dwarf, cu, &next, NULL, NULL, &cu_die, NULL)) {
		Dwarf_Attribute mem;
		const char *producer;
		bool clang;

		cu = next;
		producer = dwarf_attr(&cu_die, DW_AT_producer, &mem) ?
			   dwarf_formstring(&mem) : NULL;
		clang = producer && strstr(producer, "clang");
		if (dwarf_child(&cu_die, &die))
			continue;
		do {
			const char *name = dwarf_diename(&die);
			uint32_t fast, slow;
			Dwarf_Die child, origin;
			uint64_t addr;

			if (dwarf_tag(&die) != DW_TAG_subprogram ||
			    dwarf_child(&die, &child))
				continue;
			do {
				Dwarf_Addr base, start, end;
				Dwarf_Op *expr;
				size_t len;
				int reg;

				if (dwarf_tag(&child) != DW_TAG_formal_parameter ||
				    !dwarf_attr(&child, DW_AT_location, &mem) ||
				    !loc_first_reg(&secs, &mem, &reg, &span))
					continue;
				ck_assert_int_gt(dwarf_getlocations(&mem, 0, &base, &start,
								    &end, &expr, &len), 0);
				ck_assert_uint_gt(len, 0);
				ck_assert_msg(expr[0].atom == DW_OP_reg0 + (unsigned int)reg,
					      "%s: %s: register %d, libdw's op 0x%x", so,
					      name, reg, expr[0].atom);
				answered++;
			} while (!dwarf_siblingof(&child, &child));
			if (!dwarf_attr(&die, DW_AT_abstract_origin, &mem) ||
			    !dwarf_formref_die(&mem, &origin))
				origin = die;
			func_inspect(&reader, &die, &origin, &abi, &secs, clang, &fast, &addr);
			func_inspect(NULL, &die, &origin, &abi, NULL, clang, &slow, &addr);
			ck_assert_msg(fast == slow, "%s: %s: flags 0x%x with the shortcut, 0x%x without",
				      so, name, fast, slow);
			ck_assert_msg(func_true_drop(&reader, &die, &origin, &abi, &secs, clang, all) ==
				      func_true_drop(NULL, &die, &origin, &abi, NULL, clang, all),
				      "%s: %s: true-signature drops differ", so, name);
		} while (!dwarf_siblingof(&die, &die));
	}
	die_reader_deinit(&reader);
	dwarf_end(dwarf);
	close(fd);
	/* the lists read from .debug_loclists are within the span kept */
	*spanned = span.lo < span.hi;
	if (*spanned)
		ck_assert_msg(secs.loclists && span.hi <= secs.loclists_len,
			      "%s: span %zu-%zu of %zu", so, span.lo, span.hi,
			      secs.loclists_len);
	return answered;
}

/*
 * First registers read without libdw (locs.c) agree with libdw, in
 * DWARF 5 (.debug_loclists) for every variant and in DWARF 4
 * (.debug_loc) for gcc -O2; under gcc -O1/-O2 the shortcut answers.
 */
START_TEST(first_reg)
{
	const char *cc = variants[_i].cc, *opt = variants[_i].opt;
	bool spanned, gcc_opt = !strcmp(cc, "gcc") && strcmp(opt, "-O0");
	unsigned int answered = check_first_regs(build_optimized_so(_i), &spanned);
	char so[160], cmd[512];

	if (gcc_opt)
		ck_assert_msg(answered > 0 && spanned,
			      "%s %s: no first register read from .debug_loclists", cc, opt);
	if (strcmp(cc, "gcc") || strcmp(opt, "-O2"))
		return;
	snprintf(so, sizeof(so), "%s/optimized-dwarf4.so", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "gcc -g -gdwarf-4 -O2 -fPIC -shared -nostdlib -w -o %s " FIXTURES "/optimized.c",
		 so);
	ck_assert_msg(!system(cmd), "cannot build %s", so);
	ck_assert_msg(check_first_regs(so, &spanned) > 0, "DWARF 4: no first register read");
	ck_assert_msg(!spanned, "DWARF 4: a span in .debug_loclists");
}
END_TEST

/*
 * true_signature (pahole's feature): the code at a clone's address gets a
 * FUNC named as the clone, with the clone's own parameter list, and the
 * optimized-parameter rule leaves nothing out. Under gcc -O2 that is
 * opt_clone.constprop.0 (pahole v1.31-38 writes the same FUNC here, its
 * three parameters listed in place); opt_unused keeps its FUNC.
 */
START_TEST(true_sig)
{
	struct captured *cap;
	struct blob canonical;
	struct btf *btf;
	const char *so;

	if (strcmp(variants[_i].cc, "gcc") || strcmp(variants[_i].opt, "-O2"))
		return;
	so = build_optimized_so(_i);
	ck_assert_msg(only_clones_of(so, "opt_clone"), "gcc -O2 made no opt_clone clone");
	cap = calloc(1, sizeof(*cap));
	btf = encode(so, "default,true_signature", 1, 0, 0, cap, &canonical);
	ck_assert_msg(find(btf, "opt_clone.constprop.0", BTF_KIND_FUNC) > 0 ||
		      find(btf, "opt_clone.isra.0", BTF_KIND_FUNC) > 0,
		      "no FUNC for opt_clone's clone: %s", cap->text);
	ck_assert_int_lt(find(btf, "opt_clone", BTF_KIND_FUNC), 0);
	ck_assert_int_gt(find(btf, "opt_unused", BTF_KIND_FUNC), 0);
	ck_assert_msg(!strstr(cap->text, "optimized parameters"), "%s", cap->text);
	blob_free(&canonical);
	btf__free(btf);
	/* without the feature: the optimized-parameter rule */
	btf = encode(so, "default", 1, 0, 0, cap, &canonical);
	ck_assert_int_lt(find(btf, "opt_clone.constprop.0", BTF_KIND_FUNC), 0);
	ck_assert_int_lt(find(btf, "opt_clone", BTF_KIND_FUNC), 0);
	blob_free(&canonical);
	btf__free(btf);
	free(cap);
}
END_TEST

/*
 * gcc -O2 turns reo_fn(ctx, x, y) into reo_fn.isra.0, whose DWARF lists
 * x, y, then ctx: reordered. At -O0 the definition is as declared.
 */
START_TEST(reordered)
{
	const char *cc = variants[_i].cc, *opt = variants[_i].opt, *so;
	uint32_t flags;

	if (strcmp(cc, "gcc") || (strcmp(opt, "-O2") && strcmp(opt, "-O0")))
		return;
	so = build_optimized_so(_i);
	flags = inspect_flags(so, "reo_fn");
	if (!strcmp(opt, "-O2")) {
		ck_assert_msg(only_clones_of(so, "reo_fn"), "gcc -O2 made no reo_fn clone");
		ck_assert_msg(flags & CAND_REORDERED, "reo_fn.isra.0: flags 0x%x", flags);
	} else {
		ck_assert_msg(!(flags & CAND_REORDERED), "-O0 reo_fn: flags 0x%x", flags);
	}
	/* and the function is left out, whichever reason comes first */
	{
		struct captured *cap = calloc(1, sizeof(*cap));
		struct btf *btf = encode_variant(_i, NULL, cap);

		if (!strcmp(opt, "-O2"))
			ck_assert_int_lt(find(btf, "reo_fn", BTF_KIND_FUNC), 0);
		else
			ck_assert_int_gt(find(btf, "reo_fn", BTF_KIND_FUNC), 0);
		btf__free(btf);
		free(cap);
	}
}
END_TEST


START_TEST(clone)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	struct btf *btf = encode_variant(_i, NULL, cap);
	bool clones = only_clones_of(build(&variants[_i]), "clone_me");

	/* matched to clone_me: a FUNC, or left out by a rule, with its reason */
	ck_assert_msg(find(btf, "clone_me", BTF_KIND_FUNC) > 0 ||
		      strstr(cap->text, "function clone_me skipped"),
		      "%s %s: clone_me neither encoded nor skipped by a rule",
		      variants[_i].cc, variants[_i].opt);
	btf__free(btf);
	/* without optimized_func a clone-only symbol is not matched */
	btf = encode_variant(_i, "var,float,decl_tag,type_tag,enum64,consistent_func",
			     cap);
	if (clones)
		ck_assert_int_lt(find(btf, "clone_me", BTF_KIND_FUNC), 0);
	else
		ck_assert_int_gt(find(btf, "clone_me", BTF_KIND_FUNC), 0);
	btf__free(btf);
	free(cap);
}
END_TEST

/* The DATASEC named name: entries by offset, no overlap, sizes right. */
static const struct btf_type *check_datasec(const struct btf *btf,
					    const char *name, int *id)
{
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	uint32_t i, end = 0;

	*id = find(btf, name, BTF_KIND_DATASEC);
	ck_assert_msg(*id > 0, "no DATASEC %s", name);
	sec = btf__type_by_id(btf, *id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++) {
		const struct btf_type *var = btf__type_by_id(btf, vs[i].type);

		ck_assert(btf_is_var(var));
		ck_assert_uint_ge(vs[i].offset, end);
		ck_assert_int_eq(vs[i].size, btf__resolve_size(btf, var->type));
		end = vs[i].offset + vs[i].size;
	}
	ck_assert_uint_eq(sec->size, end);
	return sec;
}

static bool in_datasec(const struct btf *btf, const struct btf_type *sec,
		       const char *var)
{
	const struct btf_var_secinfo *vs = btf_var_secinfos(sec);
	uint32_t i;

	for (i = 0; i < btf_vlen(sec); i++)
		if (!strcmp(btf__name_by_offset(btf,
				btf__type_by_id(btf, vs[i].type)->name_off), var))
			return true;
	return false;
}

START_TEST(percpu)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	struct btf *btf = encode_variant(_i, NULL, cap);
	const struct btf_type *sec;
	int id, hits, local;

	sec = check_datasec(btf, ".data..percpu", &id);
	hits = find(btf, "pcpu_hits", BTF_KIND_VAR);
	local = find(btf, "pcpu_local", BTF_KIND_VAR);
	ck_assert_int_gt(hits, 0);
	ck_assert_int_gt(local, 0);
	ck_assert_int_eq(btf_var(btf__type_by_id(btf, hits))->linkage,
			 BTF_VAR_GLOBAL_ALLOCATED);
	ck_assert_int_eq(btf_var(btf__type_by_id(btf, local))->linkage,
			 BTF_VAR_STATIC);
	ck_assert(in_datasec(btf, sec, "pcpu_hits"));
	ck_assert(in_datasec(btf, sec, "pcpu_pair"));
	ck_assert(in_datasec(btf, sec, "pcpu_tagged"));
	ck_assert_int_lt(find(btf, "not_percpu", BTF_KIND_VAR), 0);
	ck_assert_int_lt(find(btf, ".data", BTF_KIND_DATASEC), 0);
	btf__free(btf);
	/* global_var: every global, each section its DATASEC */
	btf = encode_variant(_i, "default,global_var", cap);
	check_datasec(btf, ".data..percpu", &id);
	sec = check_datasec(btf, ".data", &id);
	ck_assert(in_datasec(btf, sec, "not_percpu"));
	btf__free(btf);
	free(cap);
}
END_TEST

START_TEST(decl_tags)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	struct btf *btf = encode_variant(_i, NULL, cap);
	bool clang = !strcmp(variants[_i].cc, "clang");
	int fn = find(btf, "tagged_fn", BTF_KIND_FUNC);
	int var = find(btf, "pcpu_tagged", BTF_KIND_VAR);

	ck_assert_int_gt(fn, 0);
	ck_assert_int_gt(var, 0);
	/* gcc 12 has no btf_decl_tag: nothing, rather than anything wrong */
	ck_assert_int_eq(count_tags(btf, "on_func", fn, -1), clang);
	ck_assert_int_eq(count_tags(btf, "on_param", fn, 1), clang);
	ck_assert_int_eq(count_tags(btf, "on_param", fn, -2), clang);
	ck_assert_int_eq(count_tags(btf, "on_var", var, -1), clang);
	btf__free(btf);
	/* decl_tag off: none at all */
	btf = encode_variant(_i, "var,float,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs",
			     cap);
	fn = find(btf, "tagged_fn", BTF_KIND_FUNC);
	ck_assert_int_eq(count_tags(btf, "on_func", fn, -2), 0);
	btf__free(btf);
	free(cap);
}
END_TEST

START_TEST(kfuncs)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	struct btf *btf = encode_variant(_i, NULL, cap);
	int plain = find(btf, "kf_plain", BTF_KIND_FUNC);
	int fast = find(btf, "kf_fast", BTF_KIND_FUNC);
	int other = find(btf, "not_kfunc", BTF_KIND_FUNC);

	ck_assert_int_gt(plain, 0);
	ck_assert_int_gt(fast, 0);
	ck_assert_int_gt(other, 0);
	ck_assert_int_eq(count_tags(btf, "bpf_kfunc", plain, -1), 1);
	ck_assert_int_eq(count_tags(btf, "bpf_fastcall", plain, -2), 0);
	ck_assert_int_eq(count_tags(btf, "bpf_kfunc", fast, -1), 1);
	ck_assert_int_eq(count_tags(btf, "bpf_fastcall", fast, -1), 1);
	ck_assert_int_eq(count_tags(btf, "bpf_kfunc", other, -2), 0);
	btf__free(btf);
	/* without decl_tag_kfuncs: no kfunc tags */
	btf = encode_variant(_i, "var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func",
			     cap);
	ck_assert_int_eq(count_tags(btf, "bpf_kfunc", find(btf, "kf_plain", BTF_KIND_FUNC), -2), 0);
	btf__free(btf);
	free(cap);
}
END_TEST

/*
 * What the pointer id points to: through TYPE_TAG "address_space(1)"
 * (kflag 1) when tagged, else directly; fails the test otherwise.
 */
static void check_arena_ptr(const struct btf *btf, uint32_t id, bool tagged,
			    int pointee)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	ck_assert(btf_is_ptr(t));
	t = btf__type_by_id(btf, id = t->type);
	if (tagged) {
		ck_assert(btf_is_type_tag(t));
		ck_assert(btf_kflag(t));
		ck_assert_str_eq(btf__name_by_offset(btf, t->name_off),
				 "address_space(1)");
		t = btf__type_by_id(btf, id = t->type);
	}
	ck_assert_int_eq(id, pointee);
}

/* The TYPE_TAGs of btf named "address_space(1)". */
static int count_arena_tags(const struct btf *btf)
{
	int id, n = 0, end = btf__type_cnt(btf);

	for (id = 1; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		n += btf_is_type_tag(t) &&
		     !strcmp(btf__name_by_offset(btf, t->name_off), "address_space(1)");
	}
	return n;
}

static void check_arena(const struct btf *btf, bool tagged)
{
	int fn = find(btf, "kf_arena", BTF_KIND_FUNC);
	int obj = find(btf, "arena_obj", BTF_KIND_STRUCT);
	const struct btf_type *proto;

	ck_assert_int_gt(fn, 0);
	ck_assert_int_gt(obj, 0);
	proto = btf__type_by_id(btf, btf__type_by_id(btf, fn)->type);
	ck_assert(btf_is_func_proto(proto));
	ck_assert_int_eq(btf_vlen(proto), 2);
	check_arena_ptr(btf, proto->type, tagged, obj);
	check_arena_ptr(btf, btf_params(proto)[0].type, tagged, obj);
	check_arena_ptr(btf, btf_params(proto)[1].type, false, obj);
	ck_assert_str_eq(btf__name_by_offset(btf, btf_params(proto)[0].name_off), "o");
	ck_assert_str_eq(btf__name_by_offset(btf, btf_params(proto)[1].name_off), "plain");
	/* the return type and the first parameter share one tag */
	ck_assert_int_eq(count_arena_tags(btf), tagged);
}

START_TEST(arena)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	const char *obj = build(&variants[_i]);
	char log[1 << 14];
	struct blob raw;
	struct btf *btf;
	int err;

	btf = encode(obj, "default,attributes", 2, 0, 0, cap, &raw);
	check_arena(btf, true);
	ck_assert_int_eq(count_tags(btf, "bpf_kfunc",
				    find(btf, "kf_arena", BTF_KIND_FUNC), -1), 1);
	btf__free(btf);
	bc_btf_free(parse_or_fail(&raw, NULL));
	err = kernel_load_btf(&raw, log, sizeof(log));
	if (err == -EPERM || err == -ENOSYS)
		fprintf(stderr, "funcs: SKIP kernel BTF load (%s)\n", strerror(-err));
	else
		ck_assert_msg(!err, "the kernel rejected it: %s\n%s",
			      strerror(-err), log);
	blob_free(&raw);
	/* without attributes, or without decl_tag_kfuncs: plain pointers */
	btf = encode_variant(_i, "default", cap);
	check_arena(btf, false);
	btf__free(btf);
	btf = encode_variant(_i, "var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,attributes",
			     cap);
	check_arena(btf, false);
	btf__free(btf);
	free(cap);
}
END_TEST

START_TEST(determinism)
{
	struct captured *cap = calloc(1, sizeof(*cap));
	const char *obj = build(&variants[_i]);
	struct blob first, other;
	static const struct { unsigned int jobs; uint64_t seed; } runs[] = {
		{ 3, 0 }, { 4, 7 }, { 2, 12345 }, { 5, 99 },
	};
	size_t r;

	btf__free(encode(obj, "default,global_var,attributes", 1, 1, 0, cap, &first));
	for (r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		btf__free(encode(obj, "default,global_var,attributes", runs[r].jobs, 1,
				 runs[r].seed, cap, &other));
		ck_assert_msg(blob_eq(&first, &other), "-j%u seed %llu differs",
			      runs[r].jobs, (unsigned long long)runs[r].seed);
		blob_free(&other);
	}
	blob_free(&first);
	free(cap);
}
END_TEST

Suite *funcs_suite(void)
{
	Suite *s = suite_create("funcs");
	struct { const char *name; const TTest *test; } cases[] = {
		{ "inconsistent", inconsistent },
		{ "decisions", decisions },
		{ "ambiguous", ambiguous },
		{ "weak_strong", weak_strong },
		{ "clone", clone },
		{ "optimized", optimized },
		{ "reordered", reordered },
		{ "uncertain", uncertain },
		{ "true_sig", true_sig },
		{ "first_reg", first_reg },
		{ "plus_uconst", plus_uconst },
		{ "abi", abi },
		{ "percpu", percpu },
		{ "decl_tags", decl_tags },
		{ "kfuncs", kfuncs },
		{ "arena", arena },
		{ "determinism", determinism },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);

		tcase_set_timeout(tc, 120);
		tcase_add_loop_test(tc, cases[i].test, 0, NR_VARIANTS);
		suite_add_tcase(s, tc);
	}
	return s;
}
