// SPDX-License-Identifier: GPL-2.0-only
/*
 * Distilled base BTF (canon/distill.c): making it, and relocating split
 * BTF made over it onto another base.
 *
 *	golden		a small base and a module over it, built with libbpf;
 *			the distilled base and the split BTF over it as
 *			listings written from libbpf's btf__distill_base rules
 *	relocate	the same module relocated onto the full base, onto a
 *			base with other ids, and onto bases where a type is
 *			missing, ambiguous, or held by value at another size
 *	refused		split BTF that refers to a base FUNC; a base that is
 *			not distilled
 *	real		a Debian 6.12.117 module (tcp_bbr) encoded over that
 *			kernel's BTF with a distilled base, the same bytes at
 *			any -j, relocated onto 6.12.115's vmlinux BTF: libbpf
 *			parses it, every distilled type is there by name and
 *			kind, the running kernel accepts base + module;
 *			relocated back onto 6.12.117 and deduplicated there,
 *			it is the module as encoded; a 6.12.115 base with a
 *			needed struct renamed is refused with its name
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../canon/btf_kinds.h"
#include "../canon/distill.h"
#include "../encode/encoder.h"
#include "suites.h"
#include "testutil.h"

#define ADD(id, call) ck_assert_int_eq((call), (id))
#define ENTRY(call) ck_assert_int_eq((call), 0)

/* Messages of the code under test, kept for assertions. */
struct captured {
	char text[8192];
	size_t len;
};

static void capture_log(void *ctx, enum bc_log_level level, const char *msg)
{
	struct captured *c = ctx;
	int n;

	(void)level;
	n = snprintf(c->text + c->len, sizeof(c->text) - c->len, "%s\n", msg);
	if (n > 0 && c->len + n < sizeof(c->text))
		c->len += n;
}

static void print_log(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)ctx;
	if (level <= BC_LOG_WARN)
		fprintf(stderr, "%s\n", msg);
}

static const struct bc_log test_log = { .fn = print_log };

/*
 * libbpf's parse of split raw BTF over base. The libbpf 1.1.2 shared
 * library does not export btf__new_split() (its header declares it), so
 * through a file and btf__parse_raw_split(). NULL when libbpf refuses it.
 */
static struct btf *libbpf_split(const void *data, size_t size, struct btf *base)
{
	char path[] = "/tmp/btfcanon-distill-XXXXXX";
	struct btf *btf;
	int fd = mkstemp(path);

	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	ck_assert_int_eq(write(fd, data, size), (ssize_t)size);
	close(fd);
	btf = btf__parse_raw_split(path, base);
	unlink(path);
	return btf;
}

static void assert_listing(const struct blob *raw, const struct bc_btf *base,
			   const char *golden)
{
	char *got = listing_blob(raw, base);

	ck_assert_msg(!strcmp(got, golden),
		      "listing differs from the golden\n--- got:\n%s--- want:\n%s",
		      got, golden);
	free(got);
}

/*
 * The base of the small cases. The sizes of list_head and union u, a
 * second list_head (dup_size, 0: none) vary it; no_pid_type leaves that
 * enum out; shuffle puts two types first, so every id moves.
 */
struct base_shape {
	int size_list_head;
	int dup_size;
	int size_u;
	bool no_pid_type;
	bool shuffle;
};

static struct btf *make_base(const struct base_shape *s)
{
	struct btf *b = btf__new_empty();
	int i_int, i_uint, lh, lh_ptr, u32t, pid, big, anon, anon_t, task,
	    task_ptr, lng, unused, proto, dbl, un, un_ptr;

	ck_assert_ptr_nonnull(b);
	if (s->shuffle) {	/* unrelated types first: every id moves */
		ck_assert_int_gt(btf__add_int(b, "char", 1, BTF_INT_SIGNED), 0);
		ck_assert_int_gt(btf__add_fwd(b, "file", BTF_FWD_STRUCT), 0);
	}
	i_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	i_uint = btf__add_int(b, "unsigned int", 4, 0);
	lh = btf__add_struct(b, "list_head", s->size_list_head);
	ENTRY(btf__add_field(b, "next", lh + 1, 0, 0));
	ENTRY(btf__add_field(b, "prev", lh + 1, 64, 0));
	lh_ptr = btf__add_ptr(b, lh);
	ck_assert_int_eq(lh_ptr, lh + 1);
	if (s->dup_size) {
		int lh2 = btf__add_struct(b, "list_head", s->dup_size);

		ENTRY(btf__add_field(b, "first", i_int, 0, 0));
		ck_assert_int_gt(lh2, 0);
	}
	u32t = btf__add_typedef(b, "u32", i_uint);
	pid = -1;
	if (!s->no_pid_type) {
		pid = btf__add_enum(b, "pid_type", 4);
		ENTRY(btf__add_enum_value(b, "PIDTYPE_PID", 0));
	}
	big = btf__add_enum64(b, "big", 8, false);
	ENTRY(btf__add_enum64_value(b, "BIG", 1ULL << 40));
	anon = btf__add_struct(b, NULL, 8);
	ENTRY(btf__add_field(b, "a", i_int, 0, 0));
	ENTRY(btf__add_field(b, "b", u32t, 32, 0));
	anon_t = btf__add_typedef(b, "anon_t", anon);
	task = btf__add_fwd(b, "task_struct", BTF_FWD_STRUCT);
	task_ptr = btf__add_ptr(b, task);
	lng = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	unused = btf__add_struct(b, "unused", 4);
	ENTRY(btf__add_field(b, "x", i_int, 0, 0));
	proto = btf__add_func_proto(b, i_int);
	ENTRY(btf__add_func_param(b, "t", task_ptr));
	dbl = btf__add_float(b, "double", 8);
	un = btf__add_union(b, "u", s->size_u);
	ENTRY(btf__add_field(b, "x", lng, 0, 0));
	un_ptr = btf__add_ptr(b, un);
	ck_assert_int_gt(btf__add_func(b, "f", BTF_FUNC_GLOBAL, proto), 0);
	ck_assert(i_int > 0 && u32t > 0 && big > 0 && anon_t > 0 &&
		  unused > 0 && dbl > 0 && un_ptr > 0 && (pid > 0 || s->no_pid_type));
	return b;
}

static const struct base_shape plain = { .size_list_head = 16, .size_u = 8 };

/*
 * The module, over make_base(&plain): ids as the comments say.
 *	[20] struct m { node: list_head (by value); lock: anon_t (a typedef
 *	     of an anonymous struct, by value); owner: task_struct *;
 *	     x: u32; kind: enum pid_type; big: enum big; d: double;
 *	     up: union u *; cb: [21] }
 *	[21] PTR -> the base's FUNC_PROTO
 */
static struct btf *make_module(struct btf *base)
{
	struct btf *m = btf__new_empty_split(base);
	int lh = btf__find_by_name_kind(base, "list_head", BTF_KIND_STRUCT);
	int anon_t = btf__find_by_name_kind(base, "anon_t", BTF_KIND_TYPEDEF);
	int u32t = btf__find_by_name_kind(base, "u32", BTF_KIND_TYPEDEF);
	int pid = btf__find_by_name_kind(base, "pid_type", BTF_KIND_ENUM);
	int big = btf__find_by_name_kind(base, "big", BTF_KIND_ENUM64);
	int dbl = btf__find_by_name_kind(base, "double", BTF_KIND_FLOAT);
	int task_ptr = 0, un_ptr = 0, proto = 0, id, n = btf__type_cnt(base);

	ck_assert_ptr_nonnull(m);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(base, id);
		const struct btf_type *to;

		if (btf_is_func_proto(t))
			proto = id;
		if (!btf_is_ptr(t))
			continue;
		to = btf__type_by_id(base, t->type);
		if (btf_is_fwd(to))
			task_ptr = id;
		if (btf_is_union(to))
			un_ptr = id;
	}
	ck_assert(lh > 0 && anon_t > 0 && u32t > 0 && pid > 0 && big > 0 &&
		  dbl > 0 && task_ptr > 0 && un_ptr > 0 && proto > 0);
	ADD(n, btf__add_struct(m, "m", 72));	/* [20] */
	ENTRY(btf__add_field(m, "node", lh, 0, 0));
	ENTRY(btf__add_field(m, "lock", anon_t, 128, 0));
	ENTRY(btf__add_field(m, "owner", task_ptr, 192, 0));
	ENTRY(btf__add_field(m, "x", u32t, 256, 0));
	ENTRY(btf__add_field(m, "kind", pid, 288, 0));
	ENTRY(btf__add_field(m, "big", big, 320, 0));
	ENTRY(btf__add_field(m, "d", dbl, 384, 0));
	ENTRY(btf__add_field(m, "up", un_ptr, 448, 0));
	ENTRY(btf__add_field(m, "cb", n + 1, 512, 0));
	ADD(n + 1, btf__add_ptr(m, proto));	/* [21] */
	return m;
}

/* A libbpf base as our parsed BTF and its raw blob. */
struct parsed_base {
	struct blob raw;
	struct bc_btf *btf;
};

static struct parsed_base parse_base(struct btf *b)
{
	struct parsed_base p;

	p.raw = blob_from_libbpf(b);
	p.btf = parse_or_fail(&p.raw, NULL);
	return p;
}

static void free_base(struct parsed_base *p)
{
	bc_btf_free(p->btf);
	blob_free(&p->raw);
}

/* The module over base, distilled; returns the parsed distilled base too. */
static struct distill_result distill_module(const struct parsed_base *base,
					    struct btf *module)
{
	struct blob raw = blob_from_libbpf(module);
	struct bc_btf *split = parse_or_fail(&raw, base->btf);
	struct distill_result dr;
	int err;

	err = bc_distill(split, BC_ORDER_KIND, &dr, &test_log);
	ck_assert_msg(!err, "distill failed: %s", strerror(-err));
	bc_btf_free(split);
	blob_free(&raw);
	return dr;
}

/* Relocates the distilled module onto base; returns -errno, raw in *out. */
static int relocate(const struct distill_result *dr, const struct bc_btf *base,
		    struct blob *out, struct captured *msgs)
{
	struct blob dist_raw = { dr->base_raw, dr->base_size };
	struct blob split_raw = { dr->split_raw, dr->split_size };
	struct bc_log log = { .fn = capture_log, .ctx = msgs };
	struct bc_btf *dist = parse_or_fail(&dist_raw, NULL);
	struct bc_btf *split = parse_or_fail(&split_raw, dist);
	struct relocate_stats stats;
	void *raw = NULL;
	size_t size = 0;
	int err;

	memset(msgs, 0, sizeof(*msgs));
	err = bc_relocate(split, base, BC_ORDER_KIND, &raw, &size, &stats, &log);
	out->data = raw;
	out->size = size;
	if (!err) {
		ck_assert_uint_eq(stats.distilled, dist->nr_types);
		ck_assert_uint_eq(stats.split_types, split->nr_types);
	}
	bc_btf_free(split);
	bc_btf_free(dist);
	return err;
}

START_TEST(test_golden)
{
	struct btf *b = make_base(&plain), *m = make_module(b);
	struct parsed_base base = parse_base(b);
	struct distill_result dr = distill_module(&base, m);
	struct blob dist_raw = { dr.base_raw, dr.base_size };
	struct blob split_raw = { dr.split_raw, dr.split_size };
	struct bc_btf *dist = parse_or_fail(&dist_raw, NULL);
	struct btf *lb_base, *lb_split;

	/*
	 * The distilled base: what m reaches, INT/FLOAT/FWD whole, named
	 * struct/union/enum as stubs (enum64 as a sized ENUM). Not there:
	 * 'long' (reached only through the named union's members), 'unused'.
	 */
	assert_listing(&dist_raw, NULL,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] INT 'unsigned int' vlen=0 kflag=0 4 32\n"
		"[3] STRUCT 'list_head' vlen=0 kflag=0 16\n"
		"[4] UNION 'u' vlen=0 kflag=0 8\n"
		"[5] ENUM 'big' vlen=0 kflag=0 8\n"
		"[6] ENUM 'pid_type' vlen=0 kflag=0 4\n"
		"[7] FWD 'task_struct' vlen=0 kflag=0 0\n"
		"[8] FLOAT 'double' vlen=0 kflag=0 8\n");
	/*
	 * The split part: m and its PTR, plus the copies: typedefs u32 and
	 * anon_t, the anonymous struct whole, the PTRs to the FWD and the
	 * union, the FUNC_PROTO. The list_head PTR of the base is not
	 * reached (only through list_head's members).
	 */
	assert_listing(&split_raw, dist,
		"[9] PTR '' vlen=0 kflag=0 ->4\n"
		"[10] PTR '' vlen=0 kflag=0 ->7\n"
		"[11] PTR '' vlen=0 kflag=0 ->16\n"
		"[12] STRUCT '' vlen=2 kflag=0 8\n"
		"\t'a' ->1 0\n"
		"\t'b' ->15 32\n"
		"[13] STRUCT 'm' vlen=9 kflag=0 72\n"
		"\t'node' ->3 0\n"
		"\t'lock' ->14 128\n"
		"\t'owner' ->10 192\n"
		"\t'x' ->15 256\n"
		"\t'kind' ->6 288\n"
		"\t'big' ->5 320\n"
		"\t'd' ->8 384\n"
		"\t'up' ->9 448\n"
		"\t'cb' ->11 512\n"
		"[14] TYPEDEF 'anon_t' vlen=0 kflag=0 ->12\n"
		"[15] TYPEDEF 'u32' vlen=0 kflag=0 ->2\n"
		"[16] FUNC_PROTO '' vlen=1 kflag=0 ->1\n"
		"\t't' ->10\n");

	/* libbpf reads both, the split part over the distilled base */
	lb_base = btf__new(dr.base_raw, dr.base_size);
	ck_assert_ptr_nonnull(lb_base);
	lb_split = libbpf_split(dr.split_raw, dr.split_size, lb_base);
	ck_assert_ptr_nonnull(lb_split);
	ck_assert_int_eq(btf__type_cnt(lb_split), 17);
	btf__free(lb_split);
	btf__free(lb_base);

	/* canonical: sorting either part again changes nothing */
	{
		struct blob again = canon_blob(&dist_raw, NULL, BC_ORDER_KIND, NULL);

		ck_assert(blob_eq(&again, &dist_raw));
		blob_free(&again);
		again = canon_blob(&split_raw, dist, BC_ORDER_KIND, NULL);
		ck_assert(blob_eq(&again, &split_raw));
		blob_free(&again);
	}
	/* a function of the graph: the module's types in any order distill alike */
	{
		struct blob mod_raw = blob_from_libbpf(m);
		unsigned int seed;

		for (seed = 1; seed <= 4; seed++) {
			struct blob perm = permute_blob(&mod_raw, base.btf, seed);
			struct bc_btf *split = parse_or_fail(&perm, base.btf);
			struct distill_result other;

			ck_assert_int_eq(bc_distill(split, BC_ORDER_KIND, &other,
						    &test_log), 0);
			ck_assert_msg(other.base_size == dr.base_size &&
				      !memcmp(other.base_raw, dr.base_raw, dr.base_size) &&
				      other.split_size == dr.split_size &&
				      !memcmp(other.split_raw, dr.split_raw, dr.split_size),
				      "permutation %u distills differently", seed);
			bc_distill_result_deinit(&other);
			bc_btf_free(split);
			blob_free(&perm);
		}
		blob_free(&mod_raw);
	}
	bc_btf_free(dist);
	bc_distill_result_deinit(&dr);
	free_base(&base);
	btf__free(m);
	btf__free(b);
}
END_TEST

/* The id of the base type member i of struct m in the relocated raw points to. */
static uint32_t member_type(const struct blob *raw, const struct bc_btf *base,
			    const char *member)
{
	struct btf *lb_base = btf__new(base->data, base->size), *lb;
	uint32_t id, n, got = 0;

	ck_assert_ptr_nonnull(lb_base);
	lb = libbpf_split(raw->data, raw->size, lb_base);
	ck_assert_msg(lb, "libbpf rejects the relocated BTF");
	n = btf__type_cnt(lb);
	for (id = btf__type_cnt(lb_base); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(lb, id);
		const struct btf_member *mb = btf_members(t);
		int i;

		if (!btf_is_struct(t) ||
		    strcmp(btf__name_by_offset(lb, t->name_off), "m"))
			continue;
		for (i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(lb, mb[i].name_off), member))
				got = mb[i].type;
	}
	btf__free(lb);
	btf__free(lb_base);
	ck_assert_msg(got, "no member %s in the relocated struct m", member);
	return got;
}

static void assert_member_is(const struct blob *raw, const struct bc_btf *base,
			     const char *member, uint32_t kind, const char *name)
{
	uint32_t id = member_type(raw, base, member);
	const struct btf_type *t = bc_btf_type(base, id);

	ck_assert_msg(id < bc_btf_end_id(base) && bc_type_kind(t) == kind &&
		      !strcmp(bc_btf_str(base, t->name_off), name),
		      "m.%s -> [%u], not the base's %s '%s'", member, id,
		      bc_kind_name(kind), name);
}

/* Relocation onto base shape s: returns the error, messages in *msgs. */
static int relocate_onto(const struct base_shape *s, struct captured *msgs,
			 bool check_members)
{
	struct btf *b = make_base(&plain), *m = make_module(b);
	struct btf *nb = make_base(s);
	struct parsed_base base = parse_base(b), new_base = parse_base(nb);
	struct distill_result dr = distill_module(&base, m);
	struct blob out = { 0 };
	int err = relocate(&dr, new_base.btf, &out, msgs);

	if (!err && check_members) {
		assert_member_is(&out, new_base.btf, "node", BTF_KIND_STRUCT, "list_head");
		assert_member_is(&out, new_base.btf, "kind", BTF_KIND_ENUM, "pid_type");
		assert_member_is(&out, new_base.btf, "big", BTF_KIND_ENUM64, "big");
		assert_member_is(&out, new_base.btf, "d", BTF_KIND_FLOAT, "double");
	}
	blob_free(&out);
	bc_distill_result_deinit(&dr);
	free_base(&base);
	free_base(&new_base);
	btf__free(m);
	btf__free(b);
	btf__free(nb);
	return err;
}

START_TEST(test_relocate_same)
{
	struct captured msgs;

	ck_assert_int_eq(relocate_onto(&plain, &msgs, true), 0);
}
END_TEST

START_TEST(test_relocate_other_ids)
{
	struct base_shape s = plain;
	struct captured msgs;

	s.shuffle = true;
	ck_assert_int_eq(relocate_onto(&s, &msgs, true), 0);
	/* a union reached by pointer only may change size */
	s.size_u = 16;
	ck_assert_int_eq(relocate_onto(&s, &msgs, true), 0);
	/* two list_heads of different sizes: the size picks one */
	s = plain;
	s.dup_size = 24;
	ck_assert_int_eq(relocate_onto(&s, &msgs, true), 0);
}
END_TEST

START_TEST(test_relocate_missing)
{
	struct base_shape s = plain;
	struct captured msgs;

	s.no_pid_type = true;
	ck_assert_int_eq(relocate_onto(&s, &msgs, false), -ENOENT);
	ck_assert_msg(strstr(msgs.text, "ENUM 'pid_type' (size 4) has no match"),
		      "message: %s", msgs.text);
}
END_TEST

START_TEST(test_relocate_embedded_size)
{
	struct base_shape s = plain;
	struct captured msgs;

	s.size_list_head = 24;	/* m holds a list_head by value */
	ck_assert_int_eq(relocate_onto(&s, &msgs, false), -ENOENT);
	ck_assert_msg(strstr(msgs.text, "STRUCT 'list_head' (size 16, held by value, so the size must match) has no match"),
		      "message: %s", msgs.text);
}
END_TEST

START_TEST(test_relocate_ambiguous)
{
	struct base_shape s = plain;
	struct captured msgs;

	s.dup_size = 16;	/* two list_heads of size 16 */
	ck_assert_int_eq(relocate_onto(&s, &msgs, false), -ENOENT);
	ck_assert_msg(strstr(msgs.text, "STRUCT 'list_head' (size 16) is ambiguous"),
		      "message: %s", msgs.text);
}
END_TEST

START_TEST(test_refused)
{
	struct btf *b = make_base(&plain), *m;
	struct parsed_base base = parse_base(b);
	int func = btf__find_by_name_kind(b, "f", BTF_KIND_FUNC), err;
	struct captured msgs = { 0 };
	struct bc_log log = { .fn = capture_log, .ctx = &msgs };
	struct distill_result dr;
	struct relocate_stats stats;
	struct bc_btf *split;
	struct blob raw;
	void *out;
	size_t size;

	/* a decl tag on the base's FUNC: a distilled base cannot say "f" */
	m = btf__new_empty_split(b);
	ck_assert_int_gt(func, 0);
	ck_assert_int_gt(btf__add_decl_tag(m, "bpf_kfunc", func, -1), 0);
	raw = blob_from_libbpf(m);
	split = parse_or_fail(&raw, base.btf);
	ck_assert_int_eq(bc_distill(split, BC_ORDER_KIND, &dr, &log), -EINVAL);
	ck_assert_msg(strstr(msgs.text, "FUNC 'f', which a distilled base cannot describe"),
		      "message: %s", msgs.text);

	/* relocating split BTF whose base is a full one */
	memset(&msgs, 0, sizeof(msgs));
	err = bc_relocate(split, base.btf, BC_ORDER_KIND, &out, &size, &stats, &log);
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_msg(strstr(msgs.text, "not a distilled base"), "message: %s",
		      msgs.text);
	/* distilling base BTF */
	memset(&msgs, 0, sizeof(msgs));
	ck_assert_int_eq(bc_distill(base.btf, BC_ORDER_KIND, &dr, &log), -EINVAL);
	bc_btf_free(split);
	blob_free(&raw);
	free_base(&base);
	btf__free(m);
	btf__free(b);
}
END_TEST

/* ---- a real module ---- */

#define VMLINUX_117	"/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64"
#define VMLINUX_115	"/usr/lib/debug/boot/vmlinux-6.12.115+deb12-cloud-amd64"
#define MODULE_117	"/usr/lib/debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel/net/ipv4/tcp_bbr.ko"

static void require_file(const char *path, const char *package)
{
	ck_assert_msg(access(path, R_OK) == 0,
		      "%s is missing: apt-get install %s (tools/setup-debian.sh)",
		      path, package);
}

/* encode (over base, if any) + canon, as `btfcanon encode` does. */
static struct blob encode(const char *path, const struct bc_btf *bc_base,
			  unsigned int jobs, int shuffle_seed)
{
	struct encode_opts eo;
	struct encode_stats es;
	struct encode_result enc = { 0 };
	struct blob out;
	int err;

	encode_opts_init(&eo);
	eo.jobs = jobs;
	eo.base = bc_base;
	if (shuffle_seed >= 0) {
		eo.shuffle = true;
		eo.shuffle_seed = shuffle_seed;
	}
	err = encode_file(path, &eo, &enc, &es, &test_log);
	ck_assert_msg(!err, "%s: encode failed: %s", path, strerror(-err));
	out = canon_encoded(&enc, bc_base, BC_ORDER_KIND, true);
	encode_result_deinit(&enc);
	return out;
}

/* Base and split as one standalone BTF, as the kernel sees them together. */
static struct blob concat_btf(const struct blob *base, const struct blob *split)
{
	const struct btf_header *bh = base->data, *sh = split->data;
	struct btf_header h = *bh;
	const uint8_t *bd = (const uint8_t *)base->data + bh->hdr_len;
	const uint8_t *sd = (const uint8_t *)split->data + sh->hdr_len;
	struct blob out;
	uint8_t *p;

	h.hdr_len = sizeof(h);
	h.type_off = 0;
	h.type_len = bh->type_len + sh->type_len;
	h.str_off = h.type_len;
	h.str_len = bh->str_len + sh->str_len;
	out.size = sizeof(h) + h.type_len + h.str_len;
	out.data = p = malloc(out.size);
	ck_assert_ptr_nonnull(p);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, bd + bh->type_off, bh->type_len);
	p += bh->type_len;
	memcpy(p, sd + sh->type_off, sh->type_len);
	p += sh->type_len;
	memcpy(p, bd + bh->str_off, bh->str_len);
	p += bh->str_len;
	memcpy(p, sd + sh->str_off, sh->str_len);
	return out;
}

/* libbpf's dedup of split raw over base, then canon: the module's content. */
static struct blob dedup_canon(const struct blob *raw, const struct blob *base_raw,
			       const struct bc_btf *base)
{
	struct btf *lb_base = btf__new(base_raw->data, base_raw->size), *lb;
	struct blob deduped, out;

	ck_assert_ptr_nonnull(lb_base);
	lb = libbpf_split(raw->data, raw->size, lb_base);
	ck_assert_ptr_nonnull(lb);
	ck_assert_int_eq(btf__dedup(lb, NULL), 0);
	deduped = blob_from_libbpf(lb);
	out = canon_blob(&deduped, base, BC_ORDER_KIND, NULL);
	blob_free(&deduped);
	btf__free(lb);
	btf__free(lb_base);
	return out;
}

START_TEST(test_real)
{
	static const char *pkg = "linux-image-6.12.117+deb12-cloud-amd64-dbg";
	struct blob raw117, raw115, module, back, canon_back, relocated, both;
	struct bc_btf *b117, *b115, *split, *dist;
	struct btf *lb117, *lb115, *lb_rel;
	struct distill_result dr, again;
	struct blob dist_raw;
	struct captured msgs;
	uint32_t id;
	int err, seed;

	require_file(VMLINUX_117, pkg);
	require_file(MODULE_117, pkg);
	require_file(VMLINUX_115, "linux-image-6.12.115+deb12-cloud-amd64-dbg");
	raw117 = encode(VMLINUX_117, NULL, 2, -1);
	raw115 = encode(VMLINUX_115, NULL, 2, -1);
	b117 = parse_or_fail(&raw117, NULL);
	b115 = parse_or_fail(&raw115, NULL);
	lb117 = btf__new(raw117.data, raw117.size);
	lb115 = btf__new(raw115.data, raw115.size);
	ck_assert(lb117 && lb115);

	/* the module over 6.12.117, distilled: the same bytes at any -j and unit order */
	module = encode(MODULE_117, b117, 1, -1);
	split = parse_or_fail(&module, b117);
	ck_assert_int_eq(bc_distill(split, BC_ORDER_KIND, &dr, &test_log), 0);
	bc_btf_free(split);
	for (seed = 0; seed < 3; seed++) {
		struct blob other = encode(MODULE_117, b117, 2 + seed,
					   seed ? seed * 7919 : -1);

		split = parse_or_fail(&other, b117);
		ck_assert_int_eq(bc_distill(split, BC_ORDER_KIND, &again, &test_log), 0);
		ck_assert(again.base_size == dr.base_size &&
			  !memcmp(again.base_raw, dr.base_raw, dr.base_size));
		ck_assert(again.split_size == dr.split_size &&
			  !memcmp(again.split_raw, dr.split_raw, dr.split_size));
		bc_distill_result_deinit(&again);
		bc_btf_free(split);
		blob_free(&other);
	}
	dist_raw = (struct blob){ dr.base_raw, dr.base_size };
	dist = parse_or_fail(&dist_raw, NULL);
	ck_assert_uint_ge(dist->nr_types, 5);	/* minmax, sock, rate_sample, ints */

	/* relocated onto 6.12.115 */
	err = relocate(&dr, b115, &relocated, &msgs);
	ck_assert_msg(!err, "relocation onto 6.12.115 failed: %s", msgs.text);
	lb_rel = libbpf_split(relocated.data, relocated.size, lb115);
	ck_assert_msg(lb_rel, "libbpf rejects the relocated module BTF");
	btf__free(lb_rel);
	/* every distilled type is in the new base by name and kind */
	for (id = 1; id < bc_btf_end_id(dist); id++) {
		const struct btf_type *t = bc_btf_type(dist, id);
		const char *name = bc_btf_str(dist, t->name_off);
		int kind = bc_type_kind(t);

		ck_assert_msg(btf__find_by_name_kind(lb115, name, kind) > 0 ||
			      (kind == BTF_KIND_ENUM &&
			       btf__find_by_name_kind(lb115, name, BTF_KIND_ENUM64) > 0) ||
			      (kind == BTF_KIND_FWD &&
			       btf__find_by_name_kind(lb115, name, BTF_KIND_STRUCT) > 0),
			      "distilled %s '%s' is not in 6.12.115's BTF",
			      bc_kind_name(kind), name);
	}
	/*
	 * Distilling loses nothing: relocated back onto 6.12.117 and
	 * deduplicated there (the copies the distilled split part carries
	 * fold into the base's types), it is the module as encoded.
	 */
	err = relocate(&dr, b117, &back, &msgs);
	ck_assert_msg(!err, "relocation onto 6.12.117 failed: %s", msgs.text);
	canon_back = dedup_canon(&back, &raw117, b117);
	ck_assert_msg(blob_eq(&canon_back, &module),
		      "relocated back onto 6.12.117 + deduplicated (%zu bytes) "
		      "differs from the module encoded over it (%zu bytes)",
		      canon_back.size, module.size);

	/* the running kernel's verifier takes 6.12.115 + the relocated module */
	both = concat_btf(&raw115, &relocated);
	err = kernel_load_btf(&both, NULL, 0);
	if (err == -EPERM || err == -ENOSYS)
		fprintf(stderr, "distill: bpf(BPF_BTF_LOAD) not permitted here "
			"(%s): kernel check skipped\n", strerror(-err));
	else
		ck_assert_msg(!err, "the kernel rejects 6.12.115 + the relocated module: %s",
			      strerror(-err));
	blob_free(&both);

	/* a 6.12.115 whose struct sock is called sorc: refused, by name */
	{
		const struct btf_header *h = raw115.data;
		char *strs = (char *)raw115.data + h->hdr_len + h->str_off;
		struct bc_btf *renamed;
		struct blob none;
		uint32_t off;
		int sock = btf__find_by_name_kind(lb115, "sock", BTF_KIND_STRUCT);

		ck_assert_int_gt(sock, 0);
		off = btf__type_by_id(lb115, sock)->name_off;
		ck_assert_str_eq(strs + off, "sock");
		strs[off + 2] = 'r';
		renamed = parse_or_fail(&raw115, NULL);
		err = relocate(&dr, renamed, &none, &msgs);
		ck_assert_int_eq(err, -ENOENT);
		ck_assert_msg(strstr(msgs.text, "STRUCT 'sock' (size ") &&
			      strstr(msgs.text, "has no match"),
			      "message: %s", msgs.text);
		bc_btf_free(renamed);
		strs[off + 2] = 'c';
	}

	blob_free(&canon_back);
	blob_free(&back);
	blob_free(&relocated);
	bc_btf_free(dist);
	bc_distill_result_deinit(&dr);
	blob_free(&module);
	btf__free(lb117);
	btf__free(lb115);
	bc_btf_free(b117);
	bc_btf_free(b115);
	blob_free(&raw117);
	blob_free(&raw115);
}
END_TEST

Suite *distill_suite(void)
{
	Suite *s = suite_create("distill");
	TCase *tc;

	tc = tcase_create("golden");
	tcase_add_test(tc, test_golden);
	suite_add_tcase(s, tc);
	tc = tcase_create("relocate");
	tcase_add_test(tc, test_relocate_same);
	tcase_add_test(tc, test_relocate_other_ids);
	tcase_add_test(tc, test_relocate_missing);
	tcase_add_test(tc, test_relocate_embedded_size);
	tcase_add_test(tc, test_relocate_ambiguous);
	suite_add_tcase(s, tc);
	tc = tcase_create("refused");
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	tc = tcase_create("real");
	tcase_add_test(tc, test_real);
	suite_add_tcase(s, tc);
	return s;
}
