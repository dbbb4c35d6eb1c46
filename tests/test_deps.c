// SPDX-License-Identifier: GPL-2.0-only
/*
 * `btfcanon deps` (deps/: bpf_object.c, core_relo.c, deps.c, cmd_deps.c).
 *
 * Fixtures, built at test time once per run (the run's cache) and copied
 * into each case's scratch directory:
 *	kern_a.o, kern_b.o	tests/fixtures/deps/kern_*.c, gcc -g -O2 -r;
 *				a.btf, b.btf: the same encoded by btfcanon
 *	fix.bpf.o		every CO-RE relocation kind and every hook
 *				type (clang -target bpf -O2 -g); its
 *				type_exists record on dep_pair is turned into
 *				a type_matches one, which clang 14 cannot emit
 *	amb.bpf.o		a read kernel B's two flavors disagree on
 *	ext.bpf.o		kfunc (strong, weak), kconfig externs (against
 *				kconfig_a and kconfig_b), typed and typeless
 *				ksyms
 *	opt.bpf.o, narrow.bpf.o	programs of SEC("?...") sections
 *	kdir/			a.btf as vmlinux, and the split BTF of
 *				modules mod_a.c and mod_b.c over it
 *	mod.bpf.o		what only the modules have (mod_core.bpf.o:
 *				without its kfunc and type id, for libbpf)
 *	kmod.bpf.o		what Debian's 6.12 cloud kernel has in its
 *				modules xfs and nf_conntrack (kmod_core.bpf.o:
 *				the same without kfuncs, for libbpf)
 *	ops.bpf.o		a struct_ops map
 *	noopen.bpf.o		(refused_row only) an extern without BTF
 *	real.bpf.o		reads of real kernel types (task_struct, ...)
 *
 * Cases:
 *	statuses	each status of the issue asserted on a cell: moved,
 *			removed, retyped, resized fields; flavors; enum
 *			values changed and removed; type_matches; functions
 *			removed, reordered, with a parameter added, cloned,
 *			twice static, inlined; helpers, map and program
 *			types, kfuncs; from BTF alone, kprobes are unknown
 *	libbpf		libbpf 1.1's own relocation (btf_custom_path,
 *			debug log, bpf_object__load) on fix.bpf.o and
 *			real.bpf.o against both fixture kernels, Debian's
 *			6.1.192, 6.12.115, 6.12.117 and the running kernel:
 *			every value equal, every poisoning the same; the
 *			ambiguity of amb.bpf.o refused by both
 *	cli		exit status 0/1/2, JSON fields and kernel keys; a
 *			saved kernel file: the same bytes twice, the same
 *			report as its kernel, cut short refused
 *			a saved kernel file (an archive of one kernel) with
 *			every byte changed, every cut: refused naming it;
 *			--kernel ARCHIVE and ARCHIVE:GLOB: the report of
 *			the kernels' files, keyed ARCHIVE:NAME; --kernel
 *			NAME=FILE: deps keys it NAME, min writes NAME.btf,
 *			--save keeps NAME
 *	bad_objects	messages that name the file and what is wrong
 *	libbpf_open	refused.bpf.c built once per REFUSE_* case (an
 *			object libbpf 1.1 refuses at open): libbpf's
 *			bpf_object__open_file and the reader agree, and the
 *			reader gives libbpf's reason (also kept by
 *			bc_bpf_object_load_any()); a .BTF.ext libbpf
 *			cannot read
 *	refused_row	noopen.bpf.o (an extern without BTF, which libbpf
 *			refuses) among other objects: a row "refused at
 *			open" with libbpf's reason and what else it tells,
 *			the others' reports whole, exit status 1 (JSON,
 *			text, --all, an archive); a file not ELF, cut short
 *			or of another machine among them: 2; min: the
 *			others' files as without it, exit status 1
 *	min		`btfcanon min` of the fixture objects against the
 *			fixture kernels (as files and as an archive) and
 *			6.12.117: libbpf's relocation
 *			against each minimal file equals its relocation
 *			against the kernel, relocation by relocation; the
 *			file no larger than bpftool gen min_core_btf's
 */
#include <elf.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <check.h>

#include "../archive/bpf_object.h"
#include "../deps/core_relo.h"
#include "../deps/deps.h"
#include "../deps/min.h"
#include "suites.h"
#include "../archive/btf_file.h"
#include "../archive/kernel_set.h"
#include "testutil.h"

#define FIXTURES "tests/fixtures/deps"

static char scratch[256];

static void remove_scratch(void)
{
	char cmd[320];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (system(cmd))
		return;
}

/* A path in the scratch directory; valid for the test's process. */
static const char *in_scratch(const char *name)
{
	static char path[64][384];
	static int next;
	char *p = path[next++ % 64];

	ck_assert_msg(scratch[0], "fixtures not built yet");
	snprintf(p, sizeof(path[0]), "%s/%s", scratch, name);
	return p;
}

/*
 * Turns every type_exists record (kind 8) whose root type is named
 * type_name into type_matches (kind 12): both patch an instruction that
 * holds 1, so the object stays what clang 15 would write.
 */
static void make_type_matches(const char *path, const char *type_name)
{
	struct blob file = read_file(path);
	struct btf *btf = btf__parse_elf(path, NULL);
	const Elf64_Ehdr *eh = file.data;
	const Elf64_Shdr *sh;
	const char *names;
	uint32_t i, changed = 0;
	FILE *f;

	ck_assert_ptr_nonnull(file.data);
	ck_assert_ptr_nonnull(btf);
	sh = (const void *)((const char *)file.data + eh->e_shoff);
	names = (const char *)file.data + sh[eh->e_shstrndx].sh_offset;
	for (i = 0; i < eh->e_shnum; i++) {
		uint8_t *ext = (uint8_t *)file.data + sh[i].sh_offset;
		uint32_t hdr_len, off, len, rec_size, pos;

		if (strcmp(names + sh[i].sh_name, ".BTF.ext"))
			continue;
		memcpy(&hdr_len, ext + 4, 4);
		memcpy(&off, ext + 24, 4);
		memcpy(&len, ext + 28, 4);
		ext += hdr_len + off;
		memcpy(&rec_size, ext, 4);
		for (pos = 4; pos < len;) {
			uint32_t count, r;

			memcpy(&count, ext + pos + 4, 4);
			pos += 8;
			for (r = 0; r < count; r++, pos += rec_size) {
				uint32_t type_id, kind;
				const struct btf_type *t;

				memcpy(&type_id, ext + pos + 4, 4);
				memcpy(&kind, ext + pos + 12, 4);
				t = btf__type_by_id(btf, type_id);
				if (kind != 8 || !t ||
				    strcmp(btf__name_by_offset(btf, t->name_off),
					   type_name))
					continue;
				kind = 12;
				memcpy(ext + pos + 12, &kind, 4);
				changed++;
			}
		}
	}
	ck_assert_msg(changed == 1, "%s: %u type_exists records on %s, want 1",
		      path, changed, type_name);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fwrite(file.data, 1, file.size, f), file.size);
	fclose(f);
	btf__free(btf);
	blob_free(&file);
}

/* Builds every fixture in dir, through scratch (build_fixtures). */
static void make_fixtures(const char *dir, void *ctx)
{
	const char *cli = getenv("BTFCANON");
	static const char *const objects[] = { "fix", "amb", "ext", "real", "ops",
						"opt", "narrow", "mod", "kmod" };
	size_t i;

	(void)ctx;
	ck_assert_msg(cli, "BTFCANON names the binary (make check sets it)");
	ck_assert_msg(strlen(dir) < sizeof(scratch), "%s: too long", dir);
	ck_assert_msg(!mkdir(dir, 0755), "mkdir %s: %s", dir, strerror(errno));
	snprintf(scratch, sizeof(scratch), "%s", dir);
	ck_assert_int_eq(test_sh("gcc -g -O2 -r -nostdlib -w -o %s " FIXTURES "/kern_a.c",
			    in_scratch("kern_a.o")), 0);
	ck_assert_int_eq(test_sh("gcc -g -O2 -r -nostdlib -w -o %s " FIXTURES "/kern_b.c "
			    FIXTURES "/kern_b2.c", in_scratch("kern_b.o")), 0);
	ck_assert_int_eq(test_sh("%s encode %s -o %s", cli, in_scratch("kern_a.o"),
			    in_scratch("a.btf")), 0);
	ck_assert_int_eq(test_sh("%s encode %s -o %s", cli, in_scratch("kern_b.o"),
			    in_scratch("b.btf")), 0);
	/* kdir: kernel A and two modules, laid out as /sys/kernel/btf */
	ck_assert_int_eq(test_sh("mkdir %s && cp %s %s", in_scratch("kdir"),
			    in_scratch("a.btf"), in_scratch("kdir/vmlinux")), 0);
	for (i = 0; i < 2; i++) {
		const char *mod = i ? "mod_b" : "mod_a";
		char obj[32], out[32];

		snprintf(obj, sizeof(obj), "%s.o", mod);
		snprintf(out, sizeof(out), "kdir/%s", mod);
		ck_assert_int_eq(test_sh("gcc -g -O2 -c -w -o %s " FIXTURES "/%s.c",
				    in_scratch(obj), mod), 0);
		ck_assert_int_eq(test_sh("%s encode --btf_base %s %s -o %s", cli,
				    in_scratch("a.btf"), in_scratch(obj),
				    in_scratch(out)), 0);
	}
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s.bpf.o", objects[i]);
		ck_assert_msg(!test_sh("clang -target bpf -O2 -g -c -o %s " FIXTURES
				  "/%s.bpf.c", in_scratch(name), objects[i]),
			      "clang -target bpf cannot build %s.bpf.c", objects[i]);
	}
	ck_assert_msg(!test_sh("clang -target bpf -O2 -g -DDEPS_NO_KFUNCS -c -o %s "
			       FIXTURES "/kmod.bpf.c", in_scratch("kmod_core.bpf.o")),
		      "clang -target bpf cannot build kmod.bpf.c");
	ck_assert_msg(!test_sh("clang -target bpf -O2 -g -DDEPS_NO_KFUNCS -c -o %s "
			       FIXTURES "/mod.bpf.c", in_scratch("mod_core.bpf.o")),
		      "clang -target bpf cannot build mod.bpf.c");
	make_type_matches(in_scratch("fix.bpf.o"), "dep_pair");
	make_type_matches(in_scratch("real.bpf.o"), "list_head");
	scratch[0] = '\0';
}

/*
 * Every fixture, built once per run (the run's cache: each case is a
 * process of its own) and copied into this process's scratch directory,
 * where the case writes what it makes.
 */
static void build_fixtures(void)
{
	char *built;

	if (scratch[0])
		return;
	built = test_cached("deps-fixtures", make_fixtures, NULL);
	snprintf(scratch, sizeof(scratch), "/tmp/btfcanon-deps-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	atexit(remove_scratch);
	ck_assert_int_eq(test_sh("cp -a %s/. %s", built, scratch), 0);
	free(built);
}

static char *replaced(const char *path, const char *from, const char *to);
static char *text_of(const char *path);

/* Does the file at path hold text? */
static bool file_says(const char *path, const char *text)
{
	struct blob b = read_file(path);
	bool says = b.data && memmem(b.data, b.size, text, strlen(text));

	blob_free(&b);
	return says;
}

/* ---- the library's report ---------------------------------------------- */

struct checked {
	struct bc_deps_kernel *kernels;
	uint32_t nr;
	struct bc_bpf_object obj;
	struct bc_deps_report report;
};

static void check_object(const char *object, const char *const *kernels,
			 uint32_t nr, struct checked *c)
{
	uint32_t k;

	c->nr = nr;
	c->kernels = calloc(nr, sizeof(*c->kernels));
	ck_assert_ptr_nonnull(c->kernels);
	for (k = 0; k < nr; k++)
		ck_assert_msg(!bc_deps_kernel_load(kernels[k], true, &c->kernels[k],
						   NULL),
			      "cannot load kernel %s", kernels[k]);
	ck_assert_msg(!bc_bpf_object_load(object, &c->obj, NULL),
		      "cannot read %s", object);
	ck_assert_int_eq(bc_deps_check(&c->obj, c->kernels, nr, &c->report,
				       NULL), 0);
}

static void checked_deinit(struct checked *c)
{
	uint32_t k;

	bc_deps_report_deinit(&c->report);
	bc_bpf_object_deinit(&c->obj);
	for (k = 0; k < c->nr; k++)
		bc_deps_kernel_deinit(&c->kernels[k]);
	free(c->kernels);
}

/* The dependency of class and kind named name (a relocation's access). */
static const struct bc_dep *find_dep(const struct checked *c,
				     enum bc_dep_class class, const char *kind,
				     const char *name)
{
	uint32_t i;

	for (i = 0; i < c->report.nr_deps; i++) {
		const struct bc_dep *d = &c->report.deps[i];

		if (d->class == class && !strcmp(d->kind, kind) &&
		    !strcmp(d->name, name))
			return d;
	}
	ck_abort_msg("no dependency %s %s", kind, name);
	return NULL;
}

static void assert_status(const struct bc_dep *d,
			  const struct bc_dep_cell *cell, const char *kind,
			  const char *name, uint32_t k,
			  enum bc_dep_status status, int64_t value,
			  const char *detail)
{
	enum bc_dep_class class = d->class;

	ck_assert_msg(cell->status == status,
		      "%s %s on kernel %u: status %s, want %s (%s)", kind, name,
		      k, bc_dep_status_name(cell->status),
		      bc_dep_status_name(status),
		      cell->detail ? cell->detail : "");
	if (value >= 0) {
		ck_assert_msg(cell->has_value && cell->value == (uint64_t)value,
			      "%s %s on kernel %u: value %llu, want %lld", kind,
			      name, k, (unsigned long long)cell->value,
			      (long long)value);
	} else if (class == BC_DEP_RELO) {
		ck_assert_msg(!cell->has_value, "%s %s on kernel %u: has a value",
			      kind, name, k);
	}
	if (detail)
		ck_assert_msg(cell->detail && strstr(cell->detail, detail),
			      "%s %s on kernel %u: detail '%s' lacks '%s'", kind,
			      name, k, cell->detail ? cell->detail : "", detail);
}

static void assert_cell(const struct checked *c, enum bc_dep_class class,
			const char *kind, const char *name, uint32_t k,
			enum bc_dep_status status, int64_t value,
			const char *detail)
{
	const struct bc_dep *d = find_dep(c, class, kind, name);

	ck_assert_msg(!d->cells[k].if_loaded, "%s %s: if_loaded on a loaded dependency",
		      kind, name);
	assert_status(d, &d->cells[k], kind, name, k, status, value, detail);
}

/*
 * A dependency of an autoload-off program ("?" section): the cell says
 * so, no value, and its if_loaded holds what enabling it would give.
 */
static void assert_off(const struct checked *c, enum bc_dep_class class,
		       const char *kind, const char *name, uint32_t k,
		       enum bc_dep_status status, int64_t value,
		       const char *detail)
{
	const struct bc_dep *d = find_dep(c, class, kind, name);
	const struct bc_dep_cell *cell = &d->cells[k];

	ck_assert_msg(d->autoload_off && cell->status == BC_DEP_AUTOLOAD_OFF &&
		      !cell->has_value && cell->if_loaded &&
		      bc_dep_status_consequence(cell->status) == BC_CONS_NONE,
		      "%s %s on kernel %u: status %s, want autoload-off", kind,
		      name, k, bc_dep_status_name(cell->status));
	assert_status(d, cell->if_loaded, kind, name, k, status, value, detail);
}

#define R BC_DEP_RELO
#define H BC_DEP_HOOK

/* Kernels: [0] kern_a.o, [1] kern_b.o (ELF, symbols), [2] a.btf, [3] b.btf. */
/* Status and consequence names are plain words: JSON writes them unescaped. */
START_TEST(test_status_names)
{
	uint32_t i;

	for (i = 0; i <= BC_DEP_NR_STATUS + BC_CONS_UNKNOWN; i++) {
		const char *name = i < BC_DEP_NR_STATUS ?
			bc_dep_status_name(i) :
			bc_dep_consequence_name(i - BC_DEP_NR_STATUS);

		ck_assert_msg(*name && strspn(name, "abcdefghijklmnopqrstuvwxyz-") ==
				       strlen(name), "name '%s'", name);
	}
}
END_TEST

START_TEST(test_statuses)
{
	const char *kernels[4];
	struct checked c;
	uint32_t k;

	build_fixtures();
	kernels[0] = in_scratch("kern_a.o");
	kernels[1] = in_scratch("kern_b.o");
	kernels[2] = in_scratch("a.btf");
	kernels[3] = in_scratch("b.btf");
	check_object(in_scratch("fix.bpf.o"), kernels, 4, &c);
	for (k = 0; k < 4; k += 2) {
		uint32_t a = k, b = k + 1;

		/* a field moved (load), resized unsigned, resized signed */
		assert_cell(&c, R, "byte_off", "pid", a, BC_DEP_OK, 0, NULL);
		assert_cell(&c, R, "byte_off", "pid", b, BC_DEP_OK, 4, NULL);
		assert_cell(&c, R, "byte_off", "usize", a, BC_DEP_OK, 56, NULL);
		assert_cell(&c, R, "byte_off", "usize", b, BC_DEP_OK, 60, NULL);
		assert_cell(&c, R, "byte_off", "ssize", a, BC_DEP_OK, 58, NULL);
		assert_cell(&c, R, "byte_off", "ssize", b, BC_DEP_POISONED, -1,
			    "neither a pointer nor unsigned");
		/* a field retyped: int -> struct, no candidate left */
		assert_cell(&c, R, "byte_off", "retyped", b, BC_DEP_POISONED, -1,
			    NULL);
		/* a field removed */
		assert_cell(&c, R, "field_exists", "old_field", a, BC_DEP_OK, 1, NULL);
		assert_cell(&c, R, "field_exists", "old_field", b, BC_DEP_MISSING, 0, NULL);
		assert_cell(&c, R, "byte_off", "old_field", b, BC_DEP_POISONED, -1, NULL);
		/* a field read by probe with the object's size: long -> int */
		assert_cell(&c, R, "byte_off", "state", a, BC_DEP_OK, 8, NULL);
		assert_cell(&c, R, "byte_off", "state", b, BC_DEP_RESIZED, 0,
			    "reads 8 bytes, the kernel's field has 4");
		/* an array grown: its offset is taken, nothing read with a size */
		assert_cell(&c, R, "byte_off", "comm", b, BC_DEP_OK, 10, NULL);
		/* a flavored struct: dep_task___new is dep_task */
		assert_cell(&c, R, "field_exists", "new_field", a, BC_DEP_MISSING, 0, NULL);
		assert_cell(&c, R, "field_exists", "new_field", b, BC_DEP_OK, 1, NULL);
		assert_cell(&c, R, "byte_off", "new_field", b, BC_DEP_OK, 68, NULL);
		/* sizes, a pointer chase, a bitfield moved and widened */
		assert_cell(&c, R, "byte_sz", "comm", a, BC_DEP_OK, 16, NULL);
		assert_cell(&c, R, "byte_sz", "comm", b, BC_DEP_OK, 32, NULL);
		assert_cell(&c, R, "byte_off", "start", b, BC_DEP_OK, 0, NULL);
		assert_cell(&c, R, "lshift_u64", "prio", a, BC_DEP_OK, 56, NULL);
		assert_cell(&c, R, "lshift_u64", "prio", b, BC_DEP_OK, 58, NULL);
		assert_cell(&c, R, "rshift_u64", "prio", b, BC_DEP_OK, 58, NULL);
		assert_cell(&c, R, "lshift_u64", "flags", b, BC_DEP_OK, 54, NULL);
		assert_cell(&c, R, "signed", "prio", b, BC_DEP_OK, 0, NULL);
		/* types: removed, size, target id, matches */
		assert_cell(&c, R, "type_exists", "", a, BC_DEP_OK, 1, NULL);
		assert_cell(&c, R, "type_exists", "", b, BC_DEP_MISSING, 0, NULL);
		assert_cell(&c, R, "type_size", "", a, BC_DEP_OK, 64, NULL);
		assert_cell(&c, R, "type_size", "", b, BC_DEP_OK, 72, NULL);
		assert_cell(&c, R, "type_matches", "", a, BC_DEP_OK, 1, NULL);
		assert_cell(&c, R, "type_matches", "", b, BC_DEP_NO_MATCH, 0, NULL);
		/* enumerators: one changed, one removed */
		assert_cell(&c, R, "enumval_value", "DEP_SLEEPING", a, BC_DEP_OK, 1, NULL);
		assert_cell(&c, R, "enumval_value", "DEP_SLEEPING", b, BC_DEP_OK, 5, NULL);
		assert_cell(&c, R, "enumval_exists", "DEP_GONE", b, BC_DEP_MISSING, 0, NULL);
		assert_cell(&c, R, "enumval_value", "DEP_GONE", a, BC_DEP_OK, 2, NULL);
		assert_cell(&c, R, "enumval_value", "DEP_GONE", b, BC_DEP_POISONED, -1, NULL);

		/* hooks by BTF: prototypes against kernel [0] */
		assert_cell(&c, H, "fentry", "dep_open", a, BC_DEP_OK, -1, NULL);
		assert_cell(&c, H, "fentry", "dep_open", b, BC_DEP_PROTO_CHANGED, -1,
			    "params reordered: (t, flags) -> (flags, t)");
		assert_cell(&c, H, "fexit", "dep_read", b, BC_DEP_PROTO_CHANGED, -1,
			    "param 3 'n' added (int)");
		assert_cell(&c, H, "fmod_ret", "dep_gone", a, BC_DEP_OK, -1, NULL);
		assert_cell(&c, H, "fmod_ret", "dep_gone", b, BC_DEP_ABSENT, -1, NULL);
		/* SEC("?fexit/dep_gone"): autoload off */
		assert_off(&c, H, "fexit", "dep_gone", a, BC_DEP_OK, -1, NULL);
		assert_off(&c, H, "fexit", "dep_gone", b, BC_DEP_ABSENT, -1, NULL);
		assert_cell(&c, H, "lsm", "dep_hook", b, BC_DEP_OK, -1, NULL);
		assert_cell(&c, H, "iter", "dep_iter", b, BC_DEP_ABSENT, -1, NULL);
		assert_cell(&c, H, "tp_btf", "dep_event", b, BC_DEP_OK, -1, NULL);
		assert_cell(&c, H, "tracepoint", "dep_other", a, BC_DEP_OK, -1, NULL);
		assert_cell(&c, H, "tracepoint", "dep_other", b, BC_DEP_ABSENT, -1, NULL);
		assert_cell(&c, H, "uprobe", "/bin/true:main", a, BC_DEP_USER, -1, NULL);

		/* helpers, map type, program type */
		assert_cell(&c, BC_DEP_HELPER, "helper", "BPF_FUNC_probe_read_kernel",
			    a, BC_DEP_OK, -1, NULL);
		assert_cell(&c, BC_DEP_HELPER, "helper", "BPF_FUNC_probe_read_kernel",
			    b, BC_DEP_ABSENT, -1, NULL);
		assert_cell(&c, BC_DEP_HELPER, "helper", "BPF_FUNC_ringbuf_reserve",
			    b, BC_DEP_OK, -1, NULL);
		assert_cell(&c, BC_DEP_MAP, "map_type", "events", a, BC_DEP_OK, -1,
			    "BPF_MAP_TYPE_RINGBUF");
		assert_cell(&c, BC_DEP_MAP, "map_type", "events", b, BC_DEP_ABSENT,
			    -1, NULL);
		assert_cell(&c, BC_DEP_PROG_TYPE, "prog_type", "BPF_PROG_TYPE_LSM",
			    a, BC_DEP_OK, -1, NULL);
		assert_cell(&c, BC_DEP_PROG_TYPE, "prog_type", "BPF_PROG_TYPE_LSM",
			    b, BC_DEP_ABSENT, -1, NULL);
	}
	/* local and target type ids: the ids of each BTF */
	ck_assert_uint_eq(find_dep(&c, R, "local_type_id", "")->cells[1].value,
			  find_dep(&c, R, "local_type_id", "")->cells[0].value);
	ck_assert_uint_ne(find_dep(&c, R, "target_type_id", "")->cells[3].value, 0);
	/* kprobes: the symbol table of the ELF kernels */
	assert_cell(&c, H, "kprobe", "dep_clone", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, H, "kprobe", "dep_clone", 1, BC_DEP_TRANSFORMED, -1,
		    "dep_clone.constprop.0");
	assert_cell(&c, H, "kprobe", "dep_dup", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, H, "kprobe", "dep_dup", 1, BC_DEP_DUPLICATE, -1,
		    "2 functions named dep_dup");
	assert_cell(&c, H, "kretprobe", "dep_inl", 1, BC_DEP_FULLY_INLINED, -1,
		    "every call inlined");
	assert_cell(&c, H, "kprobe", "dep_sel", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, H, "kprobe", "dep_sel", 1, BC_DEP_SEL_INLINED, -1,
		    "inlined elsewhere");
	assert_cell(&c, H, "kprobe", "dep_sel", 3, BC_DEP_UNKNOWN, -1, NULL);
	assert_cell(&c, H, "kprobe", "dep_open", 1, BC_DEP_PROTO_CHANGED, -1,
		    "params reordered");
	/* a syscall event: the syscall's function, not a btf_trace typedef */
	assert_cell(&c, H, "tracepoint", "sys_enter_dep_call", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, H, "tracepoint", "sys_enter_dep_call", 1, BC_DEP_ABSENT, -1, NULL);
	assert_cell(&c, H, "tracepoint", "sys_enter_dep_call", 2, BC_DEP_OK, -1, NULL);
	assert_cell(&c, H, "tracepoint", "sys_enter_dep_call", 3, BC_DEP_UNKNOWN, -1, NULL);
	/* a kprobe.multi pattern: matching symbols counted */
	assert_cell(&c, H, "kprobe.multi", "dep_go*", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, H, "kprobe.multi", "dep_go*", 1, BC_DEP_ABSENT, -1,
		    "no function matches");
	assert_cell(&c, H, "kprobe.multi", "dep_go*", 2, BC_DEP_UNKNOWN, -1, NULL);
	/* and from BTF alone, what cannot be known */
	assert_cell(&c, H, "kprobe", "dep_clone", 2, BC_DEP_UNKNOWN, -1, NULL);
	assert_cell(&c, H, "kprobe", "dep_dup", 3, BC_DEP_UNKNOWN, -1, NULL);
	assert_cell(&c, H, "kretprobe", "dep_inl", 3, BC_DEP_UNKNOWN, -1, NULL);
	checked_deinit(&c);
}
END_TEST

START_TEST(test_ambiguous_and_externs)
{
	const char *kernels[2];
	struct checked c;

	build_fixtures();
	kernels[0] = in_scratch("kern_a.o");
	kernels[1] = in_scratch("b.btf");
	check_object(in_scratch("amb.bpf.o"), kernels, 2, &c);
	assert_cell(&c, R, "byte_off", "b", 0, BC_DEP_OK, 4, NULL);
	assert_cell(&c, R, "byte_off", "b", 1, BC_DEP_AMBIGUOUS, -1,
		    "field offset ambiguity");
	checked_deinit(&c);

	check_object(in_scratch("ext.bpf.o"), kernels, 2, &c);
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_dep_kfunc", 0, BC_DEP_OK,
		    -1, NULL);
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_dep_kfunc", 1,
		    BC_DEP_ABSENT, -1, NULL);
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_dep_kfunc2", 0, BC_DEP_OK,
		    -1, NULL);
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_dep_kfunc2", 1,
		    BC_DEP_INCOMPATIBLE, -1, "prototype");
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_dep_nowhere", 1,
		    BC_DEP_MISSING, -1, NULL);
	ck_assert(find_dep(&c, BC_DEP_EXTERN, "kfunc", "bpf_dep_nowhere")->weak);
	assert_cell(&c, BC_DEP_EXTERN, "kconfig", "CONFIG_DEP_FEATURE", 0,
		    BC_DEP_UNKNOWN, -1, NULL);
	assert_cell(&c, BC_DEP_EXTERN, "kconfig", "LINUX_KERNEL_VERSION", 0,
		    BC_DEP_OK, -1, NULL);
	checked_deinit(&c);

	/* struct_ops: the wrapper and every member the object's type has */
	check_object(in_scratch("ops.bpf.o"), kernels, 2, &c);
	assert_cell(&c, H, "struct_ops", "dep_ops", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, H, "struct_ops", "dep_ops", 1, BC_DEP_ABSENT, -1,
		    "struct dep_ops has no member extra");
	assert_cell(&c, BC_DEP_PROG_TYPE, "prog_type", "BPF_PROG_TYPE_STRUCT_OPS",
		    0, BC_DEP_ABSENT, -1, NULL);
	checked_deinit(&c);
}
END_TEST

/*
 * kconfig externs against fixture configs, typed and typeless ksyms
 * against the kernels' per-CPU VARs and symbols, as libbpf 1.1 resolves
 * them. Kernels: [0] kern_a.o + kconfig_a, [1] kern_b.o + kconfig_b,
 * [2] a.btf, no config, no symbols.
 */
START_TEST(test_kconfig_and_ksyms)
{
	const char *kernels[3];
	struct checked c;
	uint32_t k;

	build_fixtures();
	kernels[0] = in_scratch("kern_a.o");
	kernels[1] = in_scratch("kern_b.o");
	kernels[2] = in_scratch("a.btf");
	check_object(in_scratch("ext.bpf.o"), kernels, 3, &c);
	ck_assert_int_eq(bc_deps_kernel_set_kconfig(&c.kernels[0],
						    FIXTURES "/kconfig_a", NULL), 0);
	ck_assert_int_eq(bc_deps_kernel_set_kconfig(&c.kernels[1],
						    FIXTURES "/kconfig_b", NULL), 0);
	bc_deps_report_deinit(&c.report);
	ck_assert_int_eq(bc_deps_check(&c.obj, c.kernels, 3, &c.report, NULL), 0);
#define X BC_DEP_EXTERN
	/* set: ok, with the value as the config writes it */
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_BOOL", 0, BC_DEP_OK, -1, NULL);
	ck_assert_str_eq(find_dep(&c, X, "kconfig", "CONFIG_DEP_BOOL")->cells[0].config_value, "y");
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_TRI", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_STR", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_NUM", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_FEATURE", 0, BC_DEP_OK, -1, NULL);
	ck_assert_str_eq(find_dep(&c, X, "kconfig", "CONFIG_DEP_FEATURE")->cells[0].config_value, "16");
	/* a string longer than the array: libbpf truncates it */
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_LONGSTR", 0, BC_DEP_OK, -1,
		    "truncated to 3");
	/* not set: strong fails the load, weak reads 0 */
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_BOOL", 1, BC_DEP_ABSENT, -1,
		    "strong");
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_FEATURE", 1, BC_DEP_MISSING, -1,
		    "reads 0");
	/* the first line of a name wins */
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_TRI", 1, BC_DEP_OK, -1, NULL);
	ck_assert_str_eq(find_dep(&c, X, "kconfig", "CONFIG_DEP_TRI")->cells[1].config_value, "y");
	/* values libbpf refuses for the extern's type */
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_STR", 1, BC_DEP_INCOMPATIBLE, -1,
		    "implies integer type");
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_MOD", 1, BC_DEP_INCOMPATIBLE, -1,
		    "value 'm' implies tristate or char type");
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_NUM", 1, BC_DEP_INCOMPATIBLE, -1,
		    "doesn't fit in 4 bytes");
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_LONGSTR", 1, BC_DEP_OK, -1, NULL);
	/* no config: unknown; libbpf's own virtual externs: ok */
	assert_cell(&c, X, "kconfig", "CONFIG_DEP_BOOL", 2, BC_DEP_UNKNOWN, -1,
		    "--kconfig");
	for (k = 0; k < 3; k++)
		assert_cell(&c, X, "kconfig", "LINUX_KERNEL_VERSION", k, BC_DEP_OK,
			    -1, NULL);
	/* typed ksyms: a VAR of the kernel's BTF of a compatible type */
	assert_cell(&c, X, "ksym", "dep_runqueues", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, X, "ksym", "dep_runqueues", 1, BC_DEP_ABSENT, -1, NULL);
	assert_cell(&c, X, "ksym", "dep_runqueues", 2, BC_DEP_OK, -1, NULL);
	assert_cell(&c, X, "ksym", "dep_nr_ctx", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, X, "ksym", "dep_nr_ctx", 1, BC_DEP_INCOMPATIBLE, -1,
		    "STRUCT dep_nr, the object's INT int: a type not compatible");
	assert_cell(&c, X, "ksym", "dep_rq_nowhere", 0, BC_DEP_MISSING, -1, NULL);
	ck_assert(find_dep(&c, X, "ksym", "dep_rq_nowhere")->weak);
	/* typeless: a symbol, here a data one; from BTF alone unknown */
	assert_cell(&c, X, "ksym", "dep_untyped", 0, BC_DEP_OK, -1, NULL);
	assert_cell(&c, X, "ksym", "dep_untyped", 1, BC_DEP_ABSENT, -1, NULL);
	assert_cell(&c, X, "ksym", "dep_untyped", 2, BC_DEP_UNKNOWN, -1, NULL);
#undef X
	checked_deinit(&c);
}
END_TEST

/*
 * A kernel as a directory of BTF (/sys/kernel/btf): the modules' types
 * are candidates when the kernel has none (libbpf's rule for the running
 * kernel), all modules weighed; attach targets and kfuncs found in
 * modules. Kernels: [0] a.btf alone, [1] kdir (a.btf, mod_a, mod_b).
 */
START_TEST(test_modules)
{
	const char *cli = getenv("BTFCANON");
	const char *kernels[2];
	struct blob one, two, err;
	struct checked c;
	char *direct, *saved;

	build_fixtures();
	kernels[0] = in_scratch("a.btf");
	kernels[1] = in_scratch("kdir");
	check_object(in_scratch("mod.bpf.o"), kernels, 2, &c);
	ck_assert_uint_eq(c.kernels[1].nr_modules, 2);
	/* only a module has it */
	assert_cell(&c, R, "byte_off", "hits", 0, BC_DEP_POISONED, -1, NULL);
	assert_cell(&c, R, "byte_off", "hits", 1, BC_DEP_OK, 8, "in module mod_a");
	/* the kernel has it: the module's other layout is never looked at */
	assert_cell(&c, R, "byte_off", "start", 1, BC_DEP_OK, 0, NULL);
	ck_assert_ptr_null(find_dep(&c, R, "byte_off", "start")->cells[1].detail);
	/* a module's type id: past the kernel's, in the module's split BTF */
	ck_assert_uint_ge(find_dep(&c, R, "target_type_id", "")->cells[1].value,
			  bc_btf_end_id(c.kernels[1].input.btf));
	assert_cell(&c, R, "target_type_id", "", 0, BC_DEP_OK, 0, NULL);
	/* two modules disagree */
	assert_cell(&c, R, "byte_off", "v", 1, BC_DEP_AMBIGUOUS, -1,
		    "in module mod_a at bit 0, [64] in module mod_b at bit 32");
	/* attach target and kfunc in a module */
	assert_cell(&c, H, "fentry", "dep_mod_func", 0, BC_DEP_ABSENT, -1, NULL);
	assert_cell(&c, H, "fentry", "dep_mod_func", 1, BC_DEP_OK, -1,
		    "in module mod_a");
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_dep_modkfunc", 0,
		    BC_DEP_ABSENT, -1, NULL);
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_dep_modkfunc", 1,
		    BC_DEP_OK, -1, "in module mod_a");
	checked_deinit(&c);

	/* saved with its modules: the same bytes twice, the same report */
	ck_assert_int_eq(test_sh("%s deps --kernel %s --save %s", cli,
			    in_scratch("kdir"), in_scratch("k1.saved")), 0);
	ck_assert_int_eq(test_sh("%s deps --kernel %s --save %s", cli,
			    in_scratch("kdir"), in_scratch("k2.saved")), 0);
	one = read_file(in_scratch("k1.saved"));
	two = read_file(in_scratch("k2.saved"));
	ck_assert_msg(one.size > 8 && blob_eq(&one, &two), "saved files differ");
	blob_free(&one);
	blob_free(&two);
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s > %s", cli,
			    in_scratch("mod.bpf.o"), in_scratch("kdir"),
			    in_scratch("direct.json")), 1);
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s > %s", cli,
			    in_scratch("mod.bpf.o"), in_scratch("k1.saved"),
			    in_scratch("saved.json")), 1);
	direct = replaced(in_scratch("direct.json"), in_scratch("kdir"), "K");
	saved = replaced(in_scratch("saved.json"), in_scratch("k1.saved"), "K");
	ck_assert_str_eq(direct, saved);
	ck_assert_msg(strstr(saved, "\"value\":8,\"status\":\"ok\",\"consequence\":\"none\",\"detail\":\"in module mod_a\""),
		      "json: %s", saved);
	free(direct);
	free(saved);

	/*
	 * a directory without vmlinux: 2, named; a module that is not BTF:
	 * named and left out, the rest answered
	 */
	ck_assert_int_eq(test_sh("mkdir %s && %s deps %s --kernel %s > /dev/null 2> %s",
			    in_scratch("nodir"), cli, in_scratch("mod.bpf.o"),
			    in_scratch("nodir"), in_scratch("err")), 2);
	err = read_file(in_scratch("err"));
	ck_assert_msg(err.data && strstr(err.data, "needs the kernel's as vmlinux"),
		      "stderr: %.*s", (int)err.size, err.data ? (char *)err.data : "");
	blob_free(&err);
	ck_assert_int_eq(test_sh("cp -r %s %s && echo junk > %s/mod_c && "
			    "%s deps %s --kernel %s > %s 2> %s", in_scratch("kdir"),
			    in_scratch("baddir"), in_scratch("baddir"), cli,
			    in_scratch("mod.bpf.o"), in_scratch("baddir"),
			    in_scratch("out.txt"), in_scratch("err")), 1);
	err = read_file(in_scratch("err"));
	ck_assert_msg(err.data && strstr(err.data, in_scratch("baddir/mod_c")) &&
		      strstr(err.data, "module mod_c left out"),
		      "stderr: %.*s", (int)err.size, err.data ? (char *)err.data : "");
	blob_free(&err);
	one = read_file(in_scratch("out.txt"));
	ck_assert_msg(one.data && strstr(one.data, "in module mod_a"),
		      "no report beside a bad module: %.*s", (int)one.size,
		      one.data ? (char *)one.data : "");
	blob_free(&one);

	/*
	 * --attach: kmod.bpf.o's dummy_file_read (SEC("fentry"), its target
	 * left to the loader) is unknown until aimed; aimed at the module's
	 * function, ok in mod_a; a PROG no object has, or no '=', is usage
	 */
	ck_assert_int_eq(test_sh("%s deps --all %s --kernel %s > %s", cli,
			    in_scratch("kmod.bpf.o"), in_scratch("kdir"),
			    in_scratch("attach0.txt")), 1);
	ck_assert(file_says(in_scratch("attach0.txt"),
			    "hook fentry ?: unknown (unknown): program dummy_file_read: the loader sets its target; give --attach dummy_file_read=FUNC"));
	ck_assert_int_eq(test_sh("%s deps --all --attach dummy_file_read=dep_mod_func %s "
				 "--kernel %s > %s", cli, in_scratch("kmod.bpf.o"),
				 in_scratch("kdir"), in_scratch("attach1.txt")), 1);
	ck_assert_msg(file_says(in_scratch("attach1.txt"), "hook fentry dep_mod_func") &&
		      file_says(in_scratch("attach1.txt"), "ok [mod_a]") &&
		      !file_says(in_scratch("attach1.txt"), "hook fentry ?"),
		      "--attach dummy_file_read=dep_mod_func not checked");
	ck_assert_int_eq(test_sh("%s deps --attach nope=f %s --kernel %s 2> %s", cli,
			    in_scratch("kmod.bpf.o"), in_scratch("kdir"),
			    in_scratch("attach.err")), 2);
	ck_assert(file_says(in_scratch("attach.err"),
			    "--attach nope=f: no object has a program nope"));
	ck_assert_int_eq(test_sh("%s deps --attach nope %s --kernel %s 2> %s", cli,
			    in_scratch("kmod.bpf.o"), in_scratch("kdir"),
			    in_scratch("attach.err")), 2);
	ck_assert(file_says(in_scratch("attach.err"), "--attach nope: give PROG=FUNC"));
}
END_TEST

/*
 * SEC("?...") programs: libbpf neither loads nor relocates them unless
 * enabled; deps says autoload-off, with what enabling them gives, and
 * evaluates the other relocations without them in the candidate cache.
 */
START_TEST(test_autoload_off)
{
	const char *kernels[2];
	struct checked c;
	uint32_t k, n;

	build_fixtures();
	kernels[0] = in_scratch("a.btf");
	kernels[1] = in_scratch("b.btf");
	check_object(in_scratch("opt.bpf.o"), kernels, 2, &c);
	assert_off(&c, R, "byte_off", "old_field", 0, BC_DEP_OK, 48, NULL);
	assert_off(&c, R, "byte_off", "old_field", 1, BC_DEP_POISONED, -1,
		   "no matching field");
	assert_off(&c, H, "fentry", "dep_gone", 0, BC_DEP_OK, -1, NULL);
	assert_off(&c, H, "fentry", "dep_gone", 1, BC_DEP_ABSENT, -1, NULL);
	/* a helper only the optional program calls */
	assert_off(&c, BC_DEP_HELPER, "helper", "BPF_FUNC_probe_read_kernel", 1,
		   BC_DEP_ABSENT, -1, NULL);
	/* the loaded program's rows stay as they are */
	assert_cell(&c, H, "tp_btf", "dep_event", 1, BC_DEP_OK, -1, NULL);
	/* program types: one a section, autoload-off for the "?" one */
	for (k = 0, n = 0; k < c.report.nr_deps; k++) {
		const struct bc_dep *d = &c.report.deps[k];

		if (d->class != BC_DEP_PROG_TYPE)
			continue;
		n++;
		ck_assert_int_eq(d->autoload_off, d->section[0] == '?');
		ck_assert_int_eq(d->cells[1].status, d->autoload_off ?
				 BC_DEP_AUTOLOAD_OFF : BC_DEP_OK);
	}
	ck_assert_uint_eq(n, 2);
	/* nothing breaks by default on B */
	for (k = 0; k < c.report.nr_deps; k++)
		ck_assert_int_eq(bc_dep_worst(&c.report.deps[k], 2), BC_CONS_NONE);
	checked_deinit(&c);

	/* the candidate cache: the "?" read does not narrow it by default */
	check_object(in_scratch("narrow.bpf.o"), kernels, 2, &c);
	assert_cell(&c, R, "byte_off", "b", 0, BC_DEP_OK, 4, NULL);
	assert_cell(&c, R, "byte_off", "b", 1, BC_DEP_AMBIGUOUS, -1,
		    "field offset ambiguity");
	assert_off(&c, R, "byte_off", "a", 1, BC_DEP_OK, 0, NULL);
	checked_deinit(&c);
}
END_TEST

/* ---- agreement with libbpf --------------------------------------------- */

/* What libbpf's debug log says of one relocation. */
struct libbpf_relo {
	char prog[64];
	int index;
	bool patched, poisoned, failed;
	unsigned long long value;
};

struct libbpf_log {
	char *text;
	size_t len, cap;
};

/* libbpf_set_print() takes no context: the log of this process's run. */
static struct libbpf_log *current_log;

static int capture_libbpf(enum libbpf_print_level level, const char *fmt,
			  va_list ap)
{
	struct libbpf_log *l = current_log;
	char line[2048];
	int n;

	(void)level;
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0 || !l)
		return 0;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (l->len + n + 1 > l->cap) {
		l->cap = (l->len + n + 1) * 2;
		l->text = realloc(l->text, l->cap);
		ck_assert_ptr_nonnull(l->text);
	}
	memcpy(l->text + l->len, line, n + 1);
	l->len += n;
	return 0;
}

/*
 * Opens object with btf_custom_path = kernel (none for /sys/kernel/btf:
 * the running kernel's BTF and its modules', libbpf's default), loads it
 * (the load itself may fail: relocation comes before it) and returns the
 * debug log.
 */
static char *libbpf_relocate(const char *object, const char *kernel,
			     bool enable_all, struct bpf_object **objp)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts,
		    .btf_custom_path = strcmp(kernel, "/sys/kernel/btf") ?
				       kernel : NULL);
	struct libbpf_log log = { 0 };
	struct bpf_object *obj;

	struct bpf_map *map;

	current_log = &log;
	libbpf_set_print(capture_libbpf);
	obj = bpf_object__open_file(object, &opts);
	ck_assert_msg(obj, "libbpf cannot open %s", object);
	/* maps are created before relocation; none is needed for it */
	bpf_object__for_each_map(map, obj)
		bpf_map__set_autocreate(map, false);
	/* SEC("?...") programs start with autoload off */
	if (enable_all) {
		struct bpf_program *p;

		bpf_object__for_each_program(p, obj)
			bpf_program__set_autoload(p, true);
	}
	bpf_object__load(obj);
	libbpf_set_print(NULL);
	current_log = NULL;
	*objp = obj;
	return log.text ? log.text : strdup("");
}

/*
 * The section of a program, by name; libbpf lists no subprograms, which
 * live in .text.
 */
static const char *section_of(struct bpf_object *obj, const char *prog)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj)
		if (!strcmp(bpf_program__name(p), prog))
			return bpf_program__section_name(p);
	return ".text";
}

/* Finds what the log says of relocation index of section sec. */
static bool libbpf_says(const char *log, struct bpf_object *obj,
			const char *sec, uint32_t index, struct libbpf_relo *out)
{
	const char *line = log;
	bool found = false;

	memset(out, 0, sizeof(*out));
	while (line && *line) {
		const char *end = strchr(line, '\n');
		const char *at = strstr(line, "prog '");
		char prog[64], rest[512];
		int idx;

		/* libbpf: prog 'NAME': relo #N: ... */
		if (at && (!end || at < end) &&
		    sscanf(at, "prog '%63[^']': relo #%d: %511[^\n]", prog,
			   &idx, rest) == 3 && (uint32_t)idx == index) {
			const char *s = section_of(obj, prog);
			const char *arrow;

			/* libbpf drops the "?" of a program's section name */
			if (s && !strcmp(s, sec + (sec[0] == '?'))) {
				found = true;
				if (strstr(rest, "substituting insn"))
					out->poisoned = true;
				else if (strstr(rest, "ambiguity") ||
					 strstr(rest, "failed to"))
					out->failed = true;
				else if (strstr(rest, "patched insn") &&
					 !strstr(rest, "mem_sz") &&
					 (arrow = strstr(rest, "-> "))) {
					out->patched = true;
					out->value = strtoull(arrow + 3, NULL, 10);
				}
			}
		}
		line = end ? end + 1 : NULL;
	}
	return found;
}

/*
 * Every relocation of object against kernel: btfcanon's value equals
 * libbpf's, poisoned where libbpf poisons; libbpf logs nothing of an
 * autoload-off one. With enable_all, every program is enabled, and the
 * autoload-off relocations' if_loaded cells are compared (the others may
 * differ from their default: the candidate cache). Returns how many
 * agreed.
 */
/*
 * agree() of a report made already (c, its kernel in column 0) against
 * libbpf given libbpf_btf as btf_custom_path: a kernel with modules, and
 * one BTF of it and them. Returns how many agreed (0: libbpf could not
 * run here).
 */
static uint32_t agree_checked(const char *object, const struct checked *c,
			      const char *kernel, const char *libbpf_btf,
			      bool expect_failure, bool enable_all);

static uint32_t agree(const char *object, const char *kernel,
		      bool expect_failure, bool enable_all)
{
	const char *kernels[] = { kernel };
	struct checked c;
	uint32_t n;

	check_object(object, kernels, 1, &c);
	n = agree_checked(object, &c, kernel, kernel, expect_failure, enable_all);
	checked_deinit(&c);
	return n;
}

static uint32_t agree_checked(const char *object, const struct checked *cp,
			      const char *kernel, const char *libbpf_btf,
			      bool expect_failure, bool enable_all)
{
	const struct checked c = *cp;
	struct bpf_object *bobj;
	char *log;
	uint32_t i, n = 0, relos = 0;
	bool failed = false;

	log = libbpf_relocate(object, libbpf_btf, enable_all, &bobj);
	if (!strstr(log, "CO-RE relocations")) {
		/* libbpf probes the kernel before relocating: it needs bpf() */
		fprintf(stderr, "deps: libbpf did not get to relocation (no bpf() here?), skipped\n");
		bpf_object__close(bobj);
		free(log);
		return 0;
	}
	for (i = 0; i < c.report.nr_deps; i++) {
		const struct bc_dep *d = &c.report.deps[i];
		const struct bc_dep_cell *cell = &d->cells[0];
		struct libbpf_relo lr;

		if (d->class != BC_DEP_RELO)
			continue;
		if (enable_all && !cell->if_loaded)
			continue;
		relos++;
		if (cell->status == BC_DEP_AUTOLOAD_OFF && !enable_all) {
			ck_assert_msg(!libbpf_says(log, bobj, d->section, d->index, &lr),
				      "%s on %s: libbpf relocates autoload-off %s relo #%u",
				      object, kernel, d->section, d->index);
			n++;
			continue;
		}
		if (cell->if_loaded)
			cell = cell->if_loaded;
		ck_assert_msg(libbpf_says(log, bobj, d->section, d->index, &lr),
			      "%s on %s: libbpf says nothing of %s relo #%u",
			      object, kernel, d->section, d->index);
		if (cell->status == BC_DEP_AMBIGUOUS ||
		    cell->status == BC_DEP_FAILED) {
			ck_assert_msg(lr.failed, "%s on %s: %s #%u: btfcanon says %s, libbpf did not fail",
				      object, kernel, d->section, d->index,
				      bc_dep_status_name(cell->status));
			n++;
			failed = true;
			break;	/* libbpf stops at the first failure */
		}
		if (cell->status == BC_DEP_POISONED) {
			ck_assert_msg(lr.poisoned, "%s on %s: %s #%u: btfcanon poisons, libbpf patches %llu",
				      object, kernel, d->section, d->index, lr.value);
		} else {
			ck_assert_msg(lr.patched && lr.value == cell->value,
				      "%s on %s: %s #%u %s %s: btfcanon %llu, libbpf %s %llu",
				      object, kernel, d->section, d->index, d->kind,
				      d->name, (unsigned long long)cell->value,
				      lr.poisoned ? "poisons" : lr.failed ? "fails" : "patches",
				      lr.value);
		}
		n++;
	}
	ck_assert_msg(failed == expect_failure,
		      "%s on %s: %s", object, kernel,
		      expect_failure ? "expected a failure" : "unexpected failure");
	ck_assert_uint_gt(relos, 0);
	bpf_object__close(bobj);
	free(log);
	return n;
}

/* For tests/test_header.c (testutil.h): agree() of one object and kernel. */
uint32_t deps_agree_with_libbpf(const char *object, const char *kernel)
{
	return agree(object, kernel, false, false);
}

bool deps_relo_value(const char *object, const char *kernel, const char *kind,
		     const char *type, const char *name, bool *patched,
		     unsigned long long *value)
{
	const char *kernels[] = { kernel };
	struct checked c;
	bool found = false;
	uint32_t i;

	check_object(object, kernels, 1, &c);
	for (i = 0; i < c.report.nr_deps && !found; i++) {
		const struct bc_dep *d = &c.report.deps[i];

		if (d->class != BC_DEP_RELO || strcmp(d->kind, kind) ||
		    strcmp(d->type, type) || strcmp(d->name, name))
			continue;
		found = true;
		*patched = d->cells[0].status == BC_DEP_OK;
		*value = d->cells[0].value;
	}
	checked_deinit(&c);
	return found;
}

static const char *const debian_kernels[] = {
	"/usr/lib/debug/boot/vmlinux-6.1.0-56-cloud-amd64",
	"/usr/lib/debug/boot/vmlinux-6.12.115+deb12-cloud-amd64",
	"/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64",
	"/sys/kernel/btf/vmlinux",
	"/sys/kernel/btf",	/* a directory: vmlinux and modules */
};

/* A type of kind and name in btf (base BTF), or 0. */
static uint32_t btf_find_named(const struct bc_btf *btf, uint32_t kind,
				  const char *name)
{
	uint32_t id;

	for (id = 1; id < bc_btf_end_id(btf); id++) {
		const struct btf_type *t = bc_btf_type(btf, id);

		if (bc_type_kind(t) == kind &&
		    !strcmp(bc_btf_str(btf, t->name_off), name))
			return id;
	}
	return 0;
}

/*
 * Debian's 6.12.117 cloud kernel given as its package, with its 1,138
 * modules (.ko.xz), and bare (its debug vmlinux): kmod.bpf.o's struct
 * xfs_inode found in module xfs, its fentry target too, conntrack's
 * kfuncs in nf_conntrack, each cell naming the module; struct nf_conn in
 * vmlinux (looked for there first); the program whose target the loader
 * sets checked against the target --attach gives; on the bare vmlinux,
 * what only modules have poisoned or absent, saying the modules were not
 * given. Then libbpf, given one BTF of vmlinux, xfs and nf_conntrack
 * (bc_kmods_merge) as btf_custom_path, patches every relocation of the
 * kfunc-free build as deps says for the package; and so it does over
 * min's one BTF of the vmlinux and module types they take. (The other
 * three packages: test_modules_packages.)
 */
START_TEST(test_modules_real)
{
	char *kernels[2] = { NULL,
		"/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64" };
	const struct bc_btf *mods[2] = { NULL, NULL };
	struct checked c = { 0 }, core = { 0 };
	const struct bc_deps_kernel *k0;
	char *merged;
	glob_t g;
	uint32_t i, n;
	void *raw;
	size_t size;

	if (glob("/var/cache/btfcanon-tests/linux-image-6.12.117+deb12-cloud-amd64_*.deb",
		 0, NULL, &g) || !g.gl_pathc || access(kernels[1], R_OK)) {
		fprintf(stderr, "deps: Debian's 6.12.117 cloud package or debug vmlinux absent, skipped (tools/setup-debian.sh)\n");
		globfree(&g);
		return;
	}
	kernels[0] = g.gl_pathv[0];
	build_fixtures();
	c.nr = 2;
	c.kernels = calloc(2, sizeof(*c.kernels));
	ck_assert_ptr_nonnull(c.kernels);
	for (i = 0; i < 2; i++)
		ck_assert_msg(!bc_deps_kernel_load(kernels[i], false, &c.kernels[i], NULL),
			      "cannot load %s", kernels[i]);
	k0 = &c.kernels[0];
	ck_assert(k0->has_modules && !c.kernels[1].has_modules);
	ck_assert_uint_ge(k0->nr_modules, 1100);
	ck_assert_int_eq(bc_bpf_object_load(in_scratch("kmod.bpf.o"), &c.obj, NULL), 0);
	ck_assert_int_eq(bc_bpf_object_set_attach_target(&c.obj, "dummy_file_read",
							 "xfs_file_read_iter"), 0);
	ck_assert_int_eq(bc_bpf_object_set_attach_target(&c.obj, "no_such_prog",
							 "x"), -ENOENT);
	ck_assert_int_eq(bc_deps_check(&c.obj, c.kernels, 2, &c.report, NULL), 0);
	assert_cell(&c, R, "byte_off", "i_ino", 0, BC_DEP_OK, 32, "in module xfs");
	assert_cell(&c, R, "byte_off", "i_vnode", 0, BC_DEP_OK, 312, "in module xfs");
	assert_cell(&c, R, "type_size", "", 0, BC_DEP_OK, 992, "in module xfs");
	assert_cell(&c, R, "byte_off", "mark", 0, BC_DEP_OK, 168, NULL);
	assert_cell(&c, R, "byte_off", "mark", 1, BC_DEP_OK, 168, NULL);
	assert_cell(&c, H, "fentry", "xfs_file_read_iter", 0, BC_DEP_OK, -1,
		    "in module xfs");
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_xdp_ct_lookup", 0, BC_DEP_OK,
		    -1, "in module nf_conntrack");
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_ct_release", 0, BC_DEP_OK,
		    -1, "in module nf_conntrack");
	/* both fentry rows, the section's and the one --attach aimed */
	for (i = n = 0; i < c.report.nr_deps; i++) {
		const struct bc_dep *d = &c.report.deps[i];

		if (d->class != H || strcmp(d->kind, "fentry"))
			continue;
		n++;
		ck_assert_str_eq(d->name, "xfs_file_read_iter");
		ck_assert_int_eq(d->cells[0].status, BC_DEP_OK);
		ck_assert_int_eq(d->cells[1].status, BC_DEP_ABSENT);
		ck_assert_msg(strstr(d->cells[1].detail, "no modules were given"),
			      "%s", d->cells[1].detail);
	}
	ck_assert_uint_eq(n, 2);
	/* the bare vmlinux: not there, and it says why it cannot tell */
	ck_assert_int_eq(find_dep(&c, R, "byte_off", "i_ino")->cells[1].status,
			 BC_DEP_POISONED);
	ck_assert_msg(strstr(find_dep(&c, R, "byte_off", "i_ino")->cells[1].detail,
			     "no modules were given"), "i_ino on the bare vmlinux");
	ck_assert_int_eq(find_dep(&c, BC_DEP_EXTERN, "kfunc", "bpf_ct_release")->cells[1].status,
			 BC_DEP_ABSENT);

	/* libbpf over one BTF of vmlinux, xfs and nf_conntrack */
	for (i = 0; i < k0->nr_modules; i++) {
		if (!strcmp(k0->modules[i].name, "nf_conntrack"))
			mods[0] = k0->modules[i].btf;
		if (!strcmp(k0->modules[i].name, "xfs"))
			mods[1] = k0->modules[i].btf;
	}
	ck_assert(mods[0] && mods[1]);
	ck_assert_int_eq(bc_kmods_merge(k0->input.btf, mods, 2, &raw, &size, NULL), 0);
	merged = strdup(in_scratch("vmlinux-xfs-nf_conntrack.btf"));
	ck_assert_ptr_nonnull(merged);
	ck_assert_int_eq(bc_file_write_atomic(merged, raw, size, NULL), 0);
	free(raw);
	ck_assert_int_eq(bc_bpf_object_load(in_scratch("kmod_core.bpf.o"), &core.obj,
					    NULL), 0);
	ck_assert_int_eq(bc_deps_check(&core.obj, c.kernels, 1, &core.report, NULL), 0);
	n = agree_checked(in_scratch("kmod_core.bpf.o"), &core, kernels[0], merged,
			  false, false);
	fprintf(stderr, "deps: %u relocations of kmod_core.bpf.o agree with libbpf over vmlinux, xfs and nf_conntrack\n",
		n);

	/* min: one BTF of the vmlinux and module types, relocating alike */
	{
		struct bc_min *m;
		char *min_path = strdup(in_scratch("kmod-min.btf"));
		struct bc_btf *small;

		ck_assert_ptr_nonnull(min_path);
		ck_assert_int_eq(bc_min_new_modules(&k0->types, k0->modules,
						    k0->nr_modules, &m, NULL), 0);
		ck_assert_int_eq(bc_min_add_object(m, &core.obj), 0);
		ck_assert_int_eq(bc_min_write(m, &raw, &size, NULL), 0);
		bc_min_free(m);
		ck_assert_int_eq(bc_btf_parse(raw, size, NULL, "min", NULL, &small), 0);
		ck_assert_ptr_null(small->base);
		ck_assert_uint_lt(small->nr_types, 40);
		ck_assert_uint_ne(btf_find_named(small, BTF_KIND_STRUCT, "xfs_inode"), 0);
		bc_btf_free(small);
		ck_assert_int_eq(bc_file_write_atomic(min_path, raw, size, NULL), 0);
		free(raw);
		n = agree_checked(in_scratch("kmod_core.bpf.o"), &core, kernels[0],
				  min_path, false, false);
		fprintf(stderr, "min: %u relocations of kmod_core.bpf.o agree with libbpf over the minimal BTF of 6.12.117 with its modules (%zu bytes)\n",
			n, size);
		free(min_path);
	}
	/*
	 * The archive of the kernel with xfs and nf_conntrack (their files
	 * as the package holds them, beside its vmlinux): deps and min over
	 * it answer as over the directory (deps reads a module's records
	 * when vmlinux lacks a name; min the kernel whole).
	 */
	{
		const char *cli = getenv("BTFCANON");
		const char *const names[] = { "nf_conntrack", "xfs" };
		char *dir_json, *ar_json;
		struct blob a, b;

		ck_assert_int_eq(test_sh("mkdir %s", in_scratch("kd")), 0);
		ck_assert_int_eq(bc_file_write_atomic(in_scratch("kd/vmlinux"),
						      k0->input.btf->data,
						      k0->input.btf->size, NULL), 0);
		for (i = 0; i < 2; i++) {
			char path[64];

			snprintf(path, sizeof(path), "kd/%s", names[i]);
			ck_assert_int_eq(bc_file_write_atomic(in_scratch(path),
							      mods[i]->data,
							      mods[i]->size, NULL), 0);
		}
		ck_assert_int_eq(test_sh("%s archive create %s %s --name K",
				    cli, in_scratch("kd.bca"), in_scratch("kd")), 0);
		ck_assert_int_eq(test_sh("%s deps --json --attach dummy_file_read=xfs_file_read_iter "
				    "%s --kernel K=%s > %s", cli, in_scratch("kmod.bpf.o"),
				    in_scratch("kd"), in_scratch("kd-dir.json")), 0);
		ck_assert_int_eq(test_sh("%s deps --json --attach dummy_file_read=xfs_file_read_iter "
				    "%s --kernel '%s:K' | sed 's|%s:K|K|g' > %s", cli,
				    in_scratch("kmod.bpf.o"), in_scratch("kd.bca"),
				    in_scratch("kd.bca"), in_scratch("kd-ar.json")), 0);	/* sed's */
		dir_json = text_of(in_scratch("kd-dir.json"));
		ar_json = text_of(in_scratch("kd-ar.json"));
		ck_assert_msg(strstr(ar_json, "\"detail\":\"in module xfs\""),
			      "%.300s", ar_json);
		ck_assert_str_eq(dir_json, ar_json);
		free(dir_json);
		free(ar_json);
		ck_assert_int_eq(test_sh("%s min %s --kernel K=%s -o %s && "
				    "%s min %s --kernel '%s:K' -o %s", cli,
				    in_scratch("kmod_core.bpf.o"), in_scratch("kd"),
				    in_scratch("min-dir"), cli, in_scratch("kmod_core.bpf.o"),
				    in_scratch("kd.bca"), in_scratch("min-ar")), 0);
		a = read_file(in_scratch("min-dir/K.btf"));
		b = read_file(in_scratch("min-ar/K.btf"));
		ck_assert_msg(a.size > 24 && blob_eq(&a, &b),
			      "min over the archive is not min over the directory");
		blob_free(&a);
		blob_free(&b);
	}
	bc_deps_report_deinit(&core.report);
	bc_bpf_object_deinit(&core.obj);
	free(merged);
	checked_deinit(&c);
	globfree(&g);
}
END_TEST

/*
 * The other three of Debian's packages the setup fetches (6.1.0-56 cloud
 * amd64 and arm64, plain .ko; 6.1.0-56 amd64, 4,023 modules): kmod.bpf.o's
 * xfs_inode, fentry target and conntrack kfuncs found in their modules,
 * named; libbpf over one BTF of vmlinux, xfs and nf_conntrack, and over
 * min's, relocates kmod_core.bpf.o as deps says for the package.
 */
static const char *const module_packages[] = {
	"linux-image-6.1.0-56-cloud-amd64",
	"linux-image-6.1.0-56-cloud-arm64",
	"linux-image-6.1.0-56-amd64",
};

START_TEST(test_modules_packages)
{
	const struct bc_btf *mods[2] = { NULL, NULL };
	struct checked c = { 0 }, core = { 0 };
	char pattern[256], *merged, *min_path;
	const struct bc_deps_kernel *k;
	struct bc_min *m;
	glob_t g;
	uint32_t i, n;
	void *raw;
	size_t size;

	snprintf(pattern, sizeof(pattern), "/var/cache/btfcanon-tests/%s_*.deb",
		 module_packages[_i]);
	if (glob(pattern, 0, NULL, &g) || !g.gl_pathc) {
		fprintf(stderr, "deps: %s absent, skipped (tools/setup-debian.sh)\n",
			pattern);
		globfree(&g);
		return;
	}
	build_fixtures();
	c.nr = 1;
	c.kernels = calloc(1, sizeof(*c.kernels));
	ck_assert_ptr_nonnull(c.kernels);
	ck_assert_msg(!bc_deps_kernel_load(g.gl_pathv[0], false, &c.kernels[0], NULL),
		      "cannot load %s", g.gl_pathv[0]);
	k = &c.kernels[0];
	ck_assert_uint_ge(k->nr_modules, 900);
	ck_assert_int_eq(bc_bpf_object_load(in_scratch("kmod.bpf.o"), &c.obj, NULL), 0);
	ck_assert_int_eq(bc_deps_check(&c.obj, c.kernels, 1, &c.report, NULL), 0);
	ck_assert_int_eq(find_dep(&c, R, "byte_off", "i_ino")->cells[0].status, BC_DEP_OK);
	ck_assert_str_eq(find_dep(&c, R, "byte_off", "i_ino")->cells[0].detail,
			 "in module xfs");
	assert_cell(&c, H, "fentry", "xfs_file_read_iter", 0, BC_DEP_OK, -1,
		    "in module xfs");
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_xdp_ct_lookup", 0, BC_DEP_OK,
		    -1, "in module nf_conntrack");
	assert_cell(&c, BC_DEP_EXTERN, "kfunc", "bpf_ct_release", 0, BC_DEP_OK,
		    -1, "in module nf_conntrack");
	for (i = 0; i < k->nr_modules; i++) {
		if (!strcmp(k->modules[i].name, "nf_conntrack"))
			mods[0] = k->modules[i].btf;
		if (!strcmp(k->modules[i].name, "xfs"))
			mods[1] = k->modules[i].btf;
	}
	ck_assert(mods[0] && mods[1]);
	ck_assert_int_eq(bc_kmods_merge(k->input.btf, mods, 2, &raw, &size, NULL), 0);
	merged = strdup(in_scratch("merged.btf"));
	ck_assert_ptr_nonnull(merged);
	ck_assert_int_eq(bc_file_write_atomic(merged, raw, size, NULL), 0);
	free(raw);
	ck_assert_int_eq(bc_bpf_object_load(in_scratch("kmod_core.bpf.o"), &core.obj,
					    NULL), 0);
	ck_assert_int_eq(bc_deps_check(&core.obj, c.kernels, 1, &core.report, NULL), 0);
	n = agree_checked(in_scratch("kmod_core.bpf.o"), &core, g.gl_pathv[0], merged,
			  false, false);
	ck_assert_int_eq(bc_min_new_modules(&k->types, k->modules, k->nr_modules, &m,
					    NULL), 0);
	ck_assert_int_eq(bc_min_add_object(m, &core.obj), 0);
	ck_assert_int_eq(bc_min_write(m, &raw, &size, NULL), 0);
	bc_min_free(m);
	min_path = strdup(in_scratch("min.btf"));
	ck_assert_ptr_nonnull(min_path);
	ck_assert_int_eq(bc_file_write_atomic(min_path, raw, size, NULL), 0);
	free(raw);
	n += agree_checked(in_scratch("kmod_core.bpf.o"), &core, g.gl_pathv[0],
			   min_path, false, false);
	fprintf(stderr, "deps: %s: %u relocations of kmod_core.bpf.o agree with libbpf over vmlinux+xfs+nf_conntrack and over min's BTF\n",
		module_packages[_i], n);
	free(min_path);
	free(merged);
	bc_deps_report_deinit(&core.report);
	bc_bpf_object_deinit(&core.obj);
	checked_deinit(&c);
	globfree(&g);
}
END_TEST

START_TEST(test_libbpf_fixture_kernels)
{
	uint32_t n = 0;

	build_fixtures();
	n += agree(in_scratch("fix.bpf.o"), in_scratch("a.btf"), false, false);
	n += agree(in_scratch("fix.bpf.o"), in_scratch("b.btf"), false, false);
	n += agree(in_scratch("amb.bpf.o"), in_scratch("a.btf"), false, false);
	n += agree(in_scratch("amb.bpf.o"), in_scratch("b.btf"), true, false);
	/* "?" programs: skipped by default, relocated when enabled */
	n += agree(in_scratch("opt.bpf.o"), in_scratch("a.btf"), false, false);
	n += agree(in_scratch("opt.bpf.o"), in_scratch("b.btf"), false, false);
	n += agree(in_scratch("opt.bpf.o"), in_scratch("b.btf"), false, true);
	n += agree(in_scratch("narrow.bpf.o"), in_scratch("b.btf"), true, false);
	n += agree(in_scratch("narrow.bpf.o"), in_scratch("b.btf"), false, true);
	fprintf(stderr, "deps: %u relocations agree with libbpf on the fixture kernels\n", n);
}
END_TEST

START_TEST(test_libbpf_real_kernels)
{
	const char *kernel = debian_kernels[_i];
	uint32_t n = 0;

	if (access(kernel, R_OK)) {
		fprintf(stderr, "deps: %s absent, skipped\n", kernel);
		return;
	}
	build_fixtures();
	n += agree(in_scratch("real.bpf.o"), kernel, false, false);
	n += agree(in_scratch("fix.bpf.o"), kernel, false, false);
	fprintf(stderr, "deps: %u relocations agree with libbpf on %s\n", n, kernel);
}
END_TEST

/* ---- the command line ------------------------------------------------- */

START_TEST(test_cli)
{
	const char *cli = getenv("BTFCANON");
	struct blob out, err;
	char *json;

	build_fixtures();
	/* something breaks on kernel B: 1 */
	ck_assert_int_eq(test_sh("%s deps --json %s %s --kernel %s --kernel %s > %s 2> %s",
			    cli, in_scratch("fix.bpf.o"), in_scratch("amb.bpf.o"),
			    in_scratch("a.btf"), in_scratch("b.btf"),
			    in_scratch("out.json"), in_scratch("err")), 1);
	out = read_file(in_scratch("out.json"));
	ck_assert_ptr_nonnull(out.data);
	json = strndup(out.data, out.size);
	/* JSON Lines: one document per object */
	ck_assert_ptr_nonnull(strchr(json, '\n'));
	ck_assert_ptr_nonnull(strchr(strchr(json, '\n') + 1, '\n'));
	ck_assert_ptr_nonnull(strstr(json, "{\"object\":\""));
	ck_assert_ptr_nonnull(strstr(json, "\"relocations\":[{\"section\":\"fentry/dep_open\",\"index\":0,\"insn_off\":"));
	ck_assert_ptr_nonnull(strstr(json, "\"hooks\":["));
	ck_assert_ptr_nonnull(strstr(json, "\"helpers\":["));
	ck_assert_ptr_nonnull(strstr(json, "\"externs\":["));
	ck_assert_ptr_nonnull(strstr(json, "\"value\":null,\"status\":\"poisoned\""));
	ck_assert_ptr_nonnull(strstr(json, "\"value\":null,\"status\":\"ambiguous\""));
	ck_assert_msg(strstr(json, in_scratch("b.btf")), "kernels keyed as given");
	free(json);
	blob_free(&out);
	/* the same on kernel A alone: amb.bpf.o is fine, 0 */
	ck_assert_int_eq(test_sh("%s deps %s --kernel %s > %s", cli,
			    in_scratch("amb.bpf.o"), in_scratch("kern_a.o"),
			    in_scratch("out.txt")), 0);
	out = read_file(in_scratch("out.txt"));
	json = strndup(out.data, out.size);
	ck_assert_msg(strstr(json, "4 ok on every kernel"), "text: %s", json);
	ck_assert_msg(!strstr(json, "\033["), "colour when not on a terminal");
	free(json);
	blob_free(&out);
	/* the text matrix lists only what is not ok, unless --all */
	ck_assert_int_eq(test_sh("%s deps %s --kernel %s --kernel %s > %s", cli,
			    in_scratch("fix.bpf.o"), in_scratch("kern_a.o"),
			    in_scratch("kern_b.o"), in_scratch("out.txt")), 1);
	out = read_file(in_scratch("out.txt"));
	json = strndup(out.data, out.size);
	ck_assert_msg(strstr(json, "hook kprobe dep_clone") &&
		      strstr(json, "transformed") &&
		      !strstr(json, "byte_sz struct dep_task.comm"), "text: %s", json);
	free(json);
	blob_free(&out);
	/* "?" programs that would break on B: autoload off, nothing breaks: 0 */
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s > %s", cli,
			    in_scratch("opt.bpf.o"), in_scratch("b.btf"),
			    in_scratch("out.json")), 0);
	out = read_file(in_scratch("out.json"));
	json = strndup(out.data, out.size);
	ck_assert_msg(strstr(json, "\"section\":\"?fentry/dep_gone\",\"index\":0,") &&
		      strstr(json, "\"autoload\":false,\"kernels\":{") &&
		      strstr(json, "{\"value\":null,\"status\":\"autoload-off\",\"consequence\":\"none\",\"if_loaded\":{\"value\":null,\"status\":\"poisoned\",\"consequence\":\"error\"") &&
		      strstr(json, "\"autoload\":true"), "json: %s", json);
	free(json);
	blob_free(&out);
	ck_assert_int_eq(test_sh("%s deps %s --kernel %s > %s", cli,
			    in_scratch("opt.bpf.o"), in_scratch("b.btf"),
			    in_scratch("out.txt")), 0);
	out = read_file(in_scratch("out.txt"));
	json = strndup(out.data, out.size);
	ck_assert_msg(strstr(json, "off(poisoned)") && strstr(json, "off(absent)") &&
		      strstr(json, "if enabled: poisoned (error)"), "text: %s", json);
	free(json);
	blob_free(&out);
	/* --kconfig: after its --kernel, one a kernel, a config libbpf reads */
	ck_assert_int_eq(test_sh("%s deps %s --kconfig " FIXTURES "/kconfig_a --kernel %s"
			    " > /dev/null 2> %s", cli, in_scratch("ext.bpf.o"),
			    in_scratch("a.btf"), in_scratch("err")), 2);
	err = read_file(in_scratch("err"));
	ck_assert_msg(err.data && strstr(err.data, "after the --kernel"),
		      "stderr: %.*s", (int)err.size, err.data ? (char *)err.data : "");
	blob_free(&err);
	ck_assert_int_eq(test_sh("%s deps %s --kernel %s --kconfig %s > %s 2> %s", cli,
			    in_scratch("ext.bpf.o"), in_scratch("a.btf"),
			    in_scratch("no-such-config"), in_scratch("out.txt"),
			    in_scratch("err")), 2);
	err = read_file(in_scratch("err"));
	ck_assert_msg(err.data && strstr(err.data, in_scratch("no-such-config")),
		      "stderr: %.*s", (int)err.size, err.data ? (char *)err.data : "");
	blob_free(&err);
	ck_assert_int_eq(test_sh("printf 'CONFIG_A=y\\nCONFIG_B\\n' > %s",
			    in_scratch("bad.config")), 0);
	ck_assert_int_eq(test_sh("%s deps %s --kernel %s --kconfig %s > %s 2> %s", cli,
			    in_scratch("ext.bpf.o"), in_scratch("a.btf"),
			    in_scratch("bad.config"), in_scratch("out.txt"),
			    in_scratch("err")), 2);
	err = read_file(in_scratch("err"));
	ck_assert_msg(err.data && strstr(err.data, "bad.config:2: 'CONFIG_B': no '='"),
		      "stderr: %.*s", (int)err.size, err.data ? (char *)err.data : "");
	blob_free(&err);
	out = read_file(in_scratch("out.txt"));
	ck_assert_msg(out.size == 0, "output on a bad config");
	blob_free(&out);
	/* usage and bad input: 2, a message naming the file */
	ck_assert_int_eq(test_sh("%s deps %s > /dev/null 2>&1", cli,
			    in_scratch("fix.bpf.o")), 2);
	ck_assert_int_eq(test_sh("%s deps %s --kernel %s > %s 2> %s", cli,
			    in_scratch("kern_a.o"), in_scratch("a.btf"),
			    in_scratch("out.txt"), in_scratch("err")), 2);
	err = read_file(in_scratch("err"));
	json = strndup(err.data, err.size);
	ck_assert_msg(strstr(json, in_scratch("kern_a.o")) &&
		      strstr(json, "not a BPF object"), "stderr: %s", json);
	free(json);
	blob_free(&err);
	out = read_file(in_scratch("out.txt"));
	ck_assert_msg(out.size == 0, "output on bad input");
	blob_free(&out);
}
END_TEST

/* ---- saved kernel files ------------------------------------------------ */

/* The file's text with every occurrence of from replaced by to. */
static char *replaced(const char *path, const char *from, const char *to)
{
	struct blob b = read_file(path);
	char *text = strndup(b.data ? b.data : "", b.size), *out, *p, *q;
	size_t n = 0, fl = strlen(from), tl = strlen(to);

	for (p = text; (p = strstr(p, from)); p += fl)
		n++;
	out = malloc(strlen(text) + n * tl + 1);
	ck_assert_ptr_nonnull(out);
	for (p = text, q = out; *p;) {
		if (!strncmp(p, from, fl)) {
			memcpy(q, to, tl);
			q += tl;
			p += fl;
		} else {
			*q++ = *p++;
		}
	}
	*q = '\0';
	free(text);
	blob_free(&b);
	return out;
}

START_TEST(test_saved_kernel)
{
	const char *cli = getenv("BTFCANON");
	struct blob one, two, err;
	char *direct, *saved;

	build_fixtures();
	/* the same bytes twice: symbols, inlined names and BTF, sorted */
	ck_assert_int_eq(test_sh("%s deps --kernel %s --save %s", cli,
			    in_scratch("kern_b.o"), in_scratch("b1.saved")), 0);
	ck_assert_int_eq(test_sh("%s deps --kernel %s --save %s", cli,
			    in_scratch("kern_b.o"), in_scratch("b2.saved")), 0);
	one = read_file(in_scratch("b1.saved"));
	two = read_file(in_scratch("b2.saved"));
	ck_assert_msg(one.size > 8 && blob_eq(&one, &two),
		      "saved kernel files differ");
	/* the report from the saved file is the report from the kernel */
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s > %s", cli,
			    in_scratch("fix.bpf.o"), in_scratch("kern_b.o"),
			    in_scratch("direct.json")), 1);
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s > %s", cli,
			    in_scratch("fix.bpf.o"), in_scratch("b1.saved"),
			    in_scratch("saved.json")), 1);
	direct = replaced(in_scratch("direct.json"), in_scratch("kern_b.o"), "K");
	saved = replaced(in_scratch("saved.json"), in_scratch("b1.saved"), "K");
	ck_assert_msg(strstr(saved, "\"status\":\"transformed\"") &&
		      strstr(saved, "\"status\":\"fully-inlined\""),
		      "saved file lost the function facts: %s", saved);
	ck_assert_str_eq(direct, saved);
	free(direct);
	free(saved);
	/* with a config: in the file, in its bytes an order of its own */
	ck_assert_int_eq(test_sh("%s deps --kernel %s --kconfig " FIXTURES "/kconfig_b --save %s",
			    cli, in_scratch("kern_b.o"), in_scratch("bc1.saved")), 0);
	ck_assert_int_eq(test_sh("sort -r " FIXTURES "/kconfig_b > %s",
			    in_scratch("kconfig_b.sorted")), 0);
	ck_assert_int_eq(test_sh("%s deps --kernel %s --kconfig %s --save %s", cli,
			    in_scratch("kern_b.o"), in_scratch("kconfig_b.sorted"),
			    in_scratch("bc2.saved")), 0);
	blob_free(&two);
	two = read_file(in_scratch("bc1.saved"));
	err = read_file(in_scratch("bc2.saved"));
	ck_assert_msg(blob_eq(&two, &err) && two.size > one.size,
		      "saved kernel files with a config differ");
	blob_free(&err);
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s --kconfig " FIXTURES
			    "/kconfig_b > %s", cli, in_scratch("ext.bpf.o"),
			    in_scratch("kern_b.o"), in_scratch("direct.json")), 1);
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s > %s", cli,
			    in_scratch("ext.bpf.o"), in_scratch("bc1.saved"),
			    in_scratch("saved.json")), 1);
	direct = replaced(in_scratch("direct.json"), in_scratch("kern_b.o"), "K");
	saved = replaced(in_scratch("saved.json"), in_scratch("bc1.saved"), "K");
	ck_assert_msg(strstr(saved, "\"name\":\"CONFIG_DEP_TRI\",\"weak\":true,\"kernels\":{\"K\":{\"value\":\"y\",\"status\":\"ok\"") &&
		      strstr(saved, "\"value\":null,\"status\":\"absent\""),
		      "saved file lost the config: %s", saved);
	ck_assert_str_eq(direct, saved);
	free(direct);
	free(saved);
	/* --kconfig replaces a saved file's config */
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s --kconfig " FIXTURES
			    "/kconfig_a > %s", cli, in_scratch("ext.bpf.o"),
			    in_scratch("bc1.saved"), in_scratch("saved.json")), 1);
	saved = replaced(in_scratch("saved.json"), in_scratch("bc1.saved"), "K");
	ck_assert_msg(strstr(saved, "\"name\":\"CONFIG_DEP_TRI\",\"weak\":true,\"kernels\":{\"K\":{\"value\":\"m\""),
		      "json: %s", saved);
	free(saved);
	/* a file cut short: 2, a message naming it */
	ck_assert_int_eq(test_sh("head -c %zu %s > %s", one.size - 3,
			    in_scratch("b1.saved"), in_scratch("cut.saved")), 0);
	ck_assert_int_eq(test_sh("%s deps %s --kernel %s > /dev/null 2> %s", cli,
			    in_scratch("fix.bpf.o"), in_scratch("cut.saved"),
			    in_scratch("err")), 2);
	err = read_file(in_scratch("err"));
	ck_assert_msg(err.data && strstr(err.data, in_scratch("cut.saved")) &&
		      strstr(err.data, "damaged"), "stderr: %.*s", (int)err.size,
		      err.data ? (char *)err.data : "");
	blob_free(&err);
	blob_free(&one);
	blob_free(&two);
}
END_TEST

/* ---- bad objects ------------------------------------------------------ */

struct captured {
	char text[4096];
};

static void capture(void *ctx, enum bc_log_level level, const char *msg)
{
	struct captured *c = ctx;

	(void)level;
	snprintf(c->text, sizeof(c->text), "%s", msg);
}

/* The bytes of .BTF.ext's CO-RE part in an object image, or NULL. */
static uint8_t *core_part(struct blob *file)
{
	const Elf64_Ehdr *eh = file->data;
	const Elf64_Shdr *sh = (const void *)((char *)file->data + eh->e_shoff);
	const char *names = (char *)file->data + sh[eh->e_shstrndx].sh_offset;
	uint32_t i, hdr_len, off;

	for (i = 0; i < eh->e_shnum; i++) {
		uint8_t *ext = (uint8_t *)file->data + sh[i].sh_offset;

		if (strcmp(names + sh[i].sh_name, ".BTF.ext"))
			continue;
		memcpy(&hdr_len, ext + 4, 4);
		memcpy(&off, ext + 24, 4);
		return ext + hdr_len + off;
	}
	return NULL;
}

static void assert_rejected(const struct blob *b, const char *phrase)
{
	struct captured cap = { "" };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	struct bc_bpf_object obj;

	ck_assert_int_lt(bc_bpf_object_parse(b->data, b->size, "bad.o", &obj,
					     &log), 0);
	ck_assert_msg(strstr(cap.text, "bad.o") && strstr(cap.text, phrase),
		      "message '%s' lacks the file or '%s'", cap.text, phrase);
}

START_TEST(test_bad_objects)
{
	struct blob good, b;
	uint8_t *core;
	uint32_t v;

	build_fixtures();
	good = read_file(in_scratch("fix.bpf.o"));
	ck_assert_ptr_nonnull(good.data);

	b = (struct blob){ .data = good.data, .size = 10 };
	assert_rejected(&b, "not an ELF file");
	b = (struct blob){ .data = good.data, .size = 4096 };
	assert_rejected(&b, "outside the file");

	b = (struct blob){ .data = malloc(good.size), .size = good.size };
	memcpy(b.data, good.data, good.size);
	((Elf64_Ehdr *)b.data)->e_machine = EM_X86_64;
	assert_rejected(&b, "not a BPF object");
	blob_free(&b);

	/* a CO-RE record pointing past its section's instructions */
	b = (struct blob){ .data = malloc(good.size), .size = good.size };
	memcpy(b.data, good.data, good.size);
	core = core_part(&b);
	v = 0xfffff8;
	memcpy(core + 4 + 8, &v, 4);
	assert_rejected(&b, "instruction offset");
	/* a type id the object's BTF does not have */
	memcpy(b.data, good.data, good.size);
	v = 0x7fffffff;
	memcpy(core + 4 + 8 + 4, &v, 4);
	assert_rejected(&b, "type id");
	/* a record size too small */
	memcpy(b.data, good.data, good.size);
	v = 8;
	memcpy(core, &v, 4);
	assert_rejected(&b, "record size");
	/* a section count that runs past the end */
	memcpy(b.data, good.data, good.size);
	v = 1000000;
	memcpy(core + 4 + 4, &v, 4);
	assert_rejected(&b, "do not fit");
	blob_free(&b);
	blob_free(&good);
}
END_TEST

/* The REFUSE_* cases of refused.bpf.c, "NONE" first: an object both take. */
static const char *const refusals[] = {
	"NONE", "MAP_FIELD", "MAP_TYPE", "LEGACY_MAPS", "DATA_SECTION",
	"EXTERN_NO_BTF", "EXTERN_NO_SECTION", "EXTERN_SECTION", "KCONFIG_TYPE",
	"STATIC_PROG",
};

/*
 * libbpf's verdict on opening path: NULL when it opens it, else its last
 * warning (malloc'd), without "libbpf: " and the trailing period.
 */
static char *libbpf_open_verdict(const char *path)
{
	struct libbpf_log log = { 0 };
	struct bpf_object *obj;
	char *last, *end;

	current_log = &log;
	libbpf_set_print(capture_libbpf);
	obj = bpf_object__open_file(path, NULL);
	libbpf_set_print(NULL);
	current_log = NULL;
	if (!libbpf_get_error(obj)) {
		bpf_object__close(obj);
		free(log.text);
		return NULL;
	}
	ck_assert_msg(log.text, "libbpf refused %s without a word", path);
	while (log.len && log.text[log.len - 1] == '\n')
		log.text[--log.len] = '\0';
	last = strrchr(log.text, '\n');
	last = strdup(last ? last + 1 : log.text);
	free(log.text);
	ck_assert_ptr_nonnull(last);
	if (!strncmp(last, "libbpf: ", 8))
		memmove(last, last + 8, strlen(last + 8) + 1);
	end = last + strlen(last);
	while (end > last && end[-1] == '.')
		*--end = '\0';
	return last;
}

/*
 * Each object of refused.bpf.c: libbpf 1.1 (bpf_object__open_file) and
 * the reader agree on taking it or not, and the reader's message names
 * the file and holds libbpf's reason word for word.
 */
START_TEST(test_libbpf_open)
{
	const char *what = refusals[_i];
	char name[64], *want;
	struct captured cap = { "" };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	struct bc_bpf_object obj;
	int err;

	build_fixtures();
	snprintf(name, sizeof(name), "refused-%s.bpf.o", what);
	ck_assert_msg(!test_sh("clang -target bpf -O2 -g -Wno-implicit-function-declaration "
			  "-DREFUSE_%s -c -o %s " FIXTURES "/refused.bpf.c",
			  what, in_scratch(name)),
		      "clang cannot build refused.bpf.c with REFUSE_%s", what);
	want = libbpf_open_verdict(in_scratch(name));
	err = bc_bpf_object_load(in_scratch(name), &obj, &log);
	if (!err)
		bc_bpf_object_deinit(&obj);
	ck_assert_msg(!strcmp(what, "NONE") == !want,
		      "REFUSE_%s: libbpf %s it: the fixture is wrong", what,
		      want ? "refuses" : "takes");
	if (!want) {
		ck_assert_msg(!err, "REFUSE_%s: libbpf takes it, deps says: %s",
			      what, cap.text);
		ck_assert_int_eq(bc_bpf_object_load_any(in_scratch(name), &obj,
							NULL), 0);
		ck_assert_ptr_null(obj.refused);
		bc_bpf_object_deinit(&obj);
		return;
	}
	ck_assert_msg(err < 0, "REFUSE_%s: libbpf refuses it (%s), deps takes it",
		      what, want);
	ck_assert_msg(strstr(cap.text, name) && strstr(cap.text, want),
		      "REFUSE_%s: libbpf says '%s', deps '%s'", what, want,
		      cap.text);
	/* deps' load keeps the object, with libbpf's reason */
	ck_assert_int_eq(bc_bpf_object_load_any(in_scratch(name), &obj, NULL), 0);
	ck_assert_msg(obj.refused && !strcmp(obj.refused, want) && obj.unchecked,
		      "REFUSE_%s: libbpf says '%s', deps keeps '%s'", what, want,
		      obj.refused ? obj.refused : "(nothing)");
	bc_bpf_object_deinit(&obj);
	free(want);
}
END_TEST

/*
 * A .BTF.ext libbpf 1.1 cannot read (flags it does not know): it refuses
 * an object with maps ("BTF is required") and drops the .BTF.ext of one
 * without; deps refuses both, naming .BTF.ext, since neither would get
 * its CO-RE relocations.
 */
START_TEST(test_libbpf_open_btf_ext)
{
	struct captured cap = { "" };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	struct bc_bpf_object obj;
	const char *path;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *shdr;
	const char *names;
	struct blob file;
	uint32_t i, flipped = 0;
	char *want;
	FILE *f;

	build_fixtures();
	path = in_scratch("refused-btf-ext.bpf.o");
	ck_assert_int_eq(test_sh("clang -target bpf -O2 -g -c -o %s " FIXTURES
			    "/refused.bpf.c", path), 0);
	file = read_file(path);
	ck_assert_ptr_nonnull(file.data);
	eh = file.data;
	shdr = (const void *)((char *)file.data + eh->e_shoff);
	names = (char *)file.data + shdr[eh->e_shstrndx].sh_offset;
	for (i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + shdr[i].sh_name, ".BTF.ext")) {
			/* the header's flags byte */
			((uint8_t *)file.data)[shdr[i].sh_offset + 3] = 1;
			flipped++;
		}
	ck_assert_int_eq(flipped, 1);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fwrite(file.data, 1, file.size, f), file.size);
	fclose(f);
	blob_free(&file);
	want = libbpf_open_verdict(path);
	ck_assert_msg(want && strstr(want, "BTF is required"),
		      "libbpf takes an object with maps and a bad .BTF.ext: %s",
		      want ? want : "(opened)");
	free(want);
	ck_assert_int_lt(bc_bpf_object_load(path, &obj, &log), 0);
	ck_assert_msg(strstr(cap.text, path) && strstr(cap.text, ".BTF.ext flags"),
		      "deps says '%s'", cap.text);
}
END_TEST

/* ---- min ---------------------------------------------------------------- */

/* One relocation as libbpf's log tells it: "prog#N", its kind, its outcome. */
struct logged_relo {
	char key[96];
	char kind[32];
	char outcome[64];	/* "patched VALUE", "poisoned", "failed" */
};

/* Every relocation outcome of a libbpf log, in order; returns the count. */
static uint32_t logged_relos(const char *log, struct logged_relo *out,
			     uint32_t max)
{
	const char *line = log;
	uint32_t n = 0;
	char kind[32] = "";

	while (line && *line) {
		const char *end = strchr(line, '\n');
		const char *at = strstr(line, "prog '");
		char prog[64], rest[512];
		int idx;

		if (at && (!end || at < end) &&
		    sscanf(at, "prog '%63[^']': relo #%d: %511[^\n]", prog,
			   &idx, rest) == 3) {
			const char *arrow = strstr(rest, "-> ");

			if (rest[0] == '<')
				sscanf(rest + 1, "%31[^>]", kind);
			else if (strstr(rest, "patched insn") ||
				 strstr(rest, "substituting insn") ||
				 strstr(rest, "ambiguity") ||
				 strstr(rest, "failed")) {
				ck_assert_uint_lt(n, max);
				snprintf(out[n].key, sizeof(out[n].key), "%s#%d",
					 prog, idx);
				snprintf(out[n].kind, sizeof(out[n].kind), "%s", kind);
				if (strstr(rest, "patched insn") && arrow)
					snprintf(out[n].outcome, sizeof(out[n].outcome),
						 "patched %s", arrow + 3);
				else
					snprintf(out[n].outcome, sizeof(out[n].outcome),
						 "%s", strstr(rest, "substituting") ?
						 "poisoned" : "failed");
				n++;
			}
		}
		line = end ? end + 1 : NULL;
	}
	return n;
}

/*
 * libbpf relocates object against kernel and against the minimal BTF in
 * the same way: the same relocations, each with the same outcome and
 * value, but for target_type_id, whose value is an id of the BTF used
 * (0 in both or in neither). Default autoload and every program enabled.
 * Returns how many relocations were compared.
 */
static uint32_t min_agrees(const char *object, const char *kernel,
			   const char *minimal)
{
	static struct logged_relo full[4096], part[4096];
	uint32_t n = 0, i, nf, np;
	int all;

	for (all = 0; all < 2; all++) {
		struct bpf_object *a, *b;
		char *log_full = libbpf_relocate(object, kernel, all, &a);
		char *log_min = libbpf_relocate(object, minimal, all, &b);

		nf = logged_relos(log_full, full, 4096);
		np = logged_relos(log_min, part, 4096);
		ck_assert_msg(nf == np, "%s: %u relocations against %s, %u against %s",
			      object, nf, kernel, np, minimal);
		for (i = 0; i < nf; i++) {
			bool same = !strcmp(full[i].outcome, part[i].outcome);

			ck_assert_str_eq(full[i].key, part[i].key);
			if (!strcmp(full[i].kind, "target_type_id"))
				same = !strcmp(full[i].outcome, "patched 0") ==
				       !strcmp(part[i].outcome, "patched 0") &&
				       !strncmp(full[i].outcome, part[i].outcome, 7);
			ck_assert_msg(same, "%s relo %s <%s>: %s against %s, %s against %s",
				      object, full[i].key, full[i].kind,
				      full[i].outcome, kernel, part[i].outcome,
				      minimal);
		}
		n += nf;
		bpf_object__close(a);
		bpf_object__close(b);
		free(log_full);
		free(log_min);
	}
	return n;
}

static long file_size(const char *path)
{
	struct stat st;

	ck_assert_msg(!stat(path, &st), "%s: %s", path, strerror(errno));
	return st.st_size;
}

/*
 * `btfcanon min` of the fixture objects against the fixture kernels and
 * Debian's 6.12.117: libbpf gives every relocation the same outcome
 * against the minimal file as against the kernel, and the file is no
 * larger than bpftool gen min_core_btf's for the same objects.
 */
START_TEST(test_min)
{
	static const char *const objects[] = { "fix", "real", "opt", "narrow",
					       "amb", "ext" };
	const char *cli = getenv("BTFCANON");
	const char *vmlinux = debian_kernels[2];
	const char *kernels[3], *names[3];
	char objs[1024] = "", objs_cmp[1024] = "", *have_bpftool;
	uint32_t i, k, nr_kernels = 2, n = 0;

	build_fixtures();
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s.bpf.o", objects[i]);
		strcat(objs, " ");
		strcat(objs, in_scratch(name));
		if (strcmp(objects[i], "amb") && strcmp(objects[i], "narrow")) {
			strcat(objs_cmp, " ");
			strcat(objs_cmp, in_scratch(name));
		}
	}
	kernels[0] = in_scratch("a.btf");
	names[0] = "a";
	kernels[1] = in_scratch("b.btf");
	names[1] = "b";
	if (!access(vmlinux, R_OK)) {
		kernels[nr_kernels] = vmlinux;
		names[nr_kernels++] = "6.12.117+deb12-cloud-amd64";
	} else {
		fprintf(stderr, "min: %s absent, real kernel skipped\n", vmlinux);
	}
	have_bpftool = test_sh("bpftool version >/dev/null 2>&1") ? NULL : "yes";
	for (k = 0; k < nr_kernels; k++) {
		char minimal[128], bpftool_out[128];

		ck_assert_int_eq(test_sh("%s min%s --kernel %s -o %s", cli, objs,
				    kernels[k], in_scratch("min")), 0);
		snprintf(minimal, sizeof(minimal), "%s/%s.btf", in_scratch("min"),
			 names[k]);
		for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
			char name[32];

			snprintf(name, sizeof(name), "%s.bpf.o", objects[i]);
			n += min_agrees(in_scratch(name), kernels[k], minimal);
		}
		if (!have_bpftool)
			continue;
		/*
		 * Sizes on the objects without an ambiguity: bpftool stops at
		 * amb.bpf.o's, and keeps one of narrow.bpf.o's two flavors,
		 * which turns its ambiguity on B into a value (min keeps both)
		 */
		ck_assert_int_eq(test_sh("%s min%s --kernel %s -o %s", cli, objs_cmp,
				    kernels[k], in_scratch("min-cmp")), 0);
		snprintf(minimal, sizeof(minimal), "%s/%s.btf",
			 in_scratch("min-cmp"), names[k]);
		snprintf(bpftool_out, sizeof(bpftool_out), "%s/bpftool-%s.btf",
			 in_scratch("min-cmp"), names[k]);
		ck_assert_int_eq(test_sh("bpftool gen min_core_btf %s %s%s", kernels[k],
				    bpftool_out, objs_cmp), 0);
		ck_assert_msg(file_size(minimal) <= file_size(bpftool_out),
			      "%s: min %ld bytes, bpftool %ld", kernels[k],
			      file_size(minimal), file_size(bpftool_out));
		fprintf(stderr, "min: %s: %ld bytes, bpftool gen min_core_btf %ld\n",
			names[k], file_size(minimal), file_size(bpftool_out));
	}
	/* an archive is all its kernels, NAME its names: the same files */
	ck_assert_int_eq(test_sh("%s archive create %s %s %s --name ka --name kb",
			    cli, in_scratch("min.bca"), kernels[0], kernels[1]), 0);
	ck_assert_int_eq(test_sh("%s min%s --kernel %s -o %s", cli, objs,
			    in_scratch("min.bca"), in_scratch("min-arch")), 0);
	ck_assert_int_eq(test_sh("cmp %s/ka.btf %s/a.btf && cmp %s/kb.btf %s/b.btf",
			    in_scratch("min-arch"), in_scratch("min"),
			    in_scratch("min-arch"), in_scratch("min")), 0);
	/* amb.bpf.o alone: its ambiguity on B keeps both flavors */
	ck_assert_int_eq(test_sh("%s min %s --kernel %s -o %s", cli,
			    in_scratch("amb.bpf.o"), kernels[1],
			    in_scratch("min-amb")), 0);
	n += min_agrees(in_scratch("amb.bpf.o"), kernels[1],
			in_scratch("min-amb/b.btf"));
	fprintf(stderr, "min: %u relocations agree with libbpf against the minimal files\n", n);

	/*
	 * A kernel with modules (kdir): one BTF of the kernel's and the
	 * modules' types the real rule takes, kernel A's dep_mm and not
	 * module A's other layout, both flavors of the modules' ambiguity;
	 * libbpf over it relocates as deps says of kdir (up to the
	 * ambiguity, where both stop).
	 */
	{
		const char *kd[] = { in_scratch("kdir") };
		struct checked c;

		ck_assert_int_eq(test_sh("%s min %s --kernel %s -o %s", cli,
				    in_scratch("mod_core.bpf.o"), kd[0],
				    in_scratch("min-mod")), 0);
		check_object(in_scratch("mod_core.bpf.o"), kd, 1, &c);
		assert_cell(&c, R, "byte_off", "hits", 0, BC_DEP_OK, 8, "in module mod_a");
		assert_cell(&c, R, "byte_off", "start", 0, BC_DEP_OK, 0, NULL);
		n = agree_checked(in_scratch("mod_core.bpf.o"), &c, kd[0],
				  in_scratch("min-mod/kdir.btf"), true, false);
		ck_assert_msg(!n || n == 3, "%u relocations agree over min-mod/kdir.btf", n);
		checked_deinit(&c);
		/* kernel A without its modules: dep_modstat is not there, said */
		ck_assert_int_eq(test_sh("%s min %s --kernel %s -o %s 2> %s", cli,
				    in_scratch("mod_core.bpf.o"), in_scratch("a.btf"),
				    in_scratch("min-bare"), in_scratch("min-bare.err")), 0);
		ck_assert_msg(file_says(in_scratch("min-bare.err"),
					"2 relocations found no type of their name in vmlinux, and no modules were given with the kernel"),
			      "min on a bare kernel does not say the modules were not given");
		ck_assert_int_eq(test_sh("%s min %s --kernel %s -o %s 2> %s", cli,
				    in_scratch("mod_core.bpf.o"), kd[0],
				    in_scratch("min-mod2"), in_scratch("min-mod.err")), 0);
		ck_assert_msg(!file_says(in_scratch("min-mod.err"), "no type of their name"),
			      "min with modules warns");
	}
}
END_TEST

/*
 * A saved kernel file is an archive of one kernel, under its checksum:
 * every byte of one (kernel B with symbols, inlined names and a config;
 * a directory with modules) changed in turn, and the file cut at every
 * length, is an error naming it, never a kernel read wrong.
 */
START_TEST(test_saved_kernel_damage)
{
	const char *cli = getenv("BTFCANON");
	static const char *const files[] = { "bk.saved", "kdir.saved" };
	uint32_t f, refused = 0;

	build_fixtures();
	ck_assert_int_eq(test_sh("%s deps --kernel %s --kconfig " FIXTURES "/kconfig_b --save %s",
			    cli, in_scratch("kern_b.o"), in_scratch("bk.saved")), 0);
	ck_assert_int_eq(test_sh("%s deps --kernel %s --save %s", cli,
			    in_scratch("kdir"), in_scratch("kdir.saved")), 0);
	/* a saved file saved again: the same bytes (the modules' own base) */
	ck_assert_int_eq(test_sh("%s deps --kernel %s --save %s && cmp %s %s", cli,
			    in_scratch("kdir.saved"), in_scratch("kdir2.saved"),
			    in_scratch("kdir.saved"), in_scratch("kdir2.saved")), 0);
	for (f = 0; f < 2; f++) {
		struct blob file = read_file(in_scratch(files[f]));
		uint8_t *copy = malloc(file.size);
		struct bc_deps_kernel k;
		size_t i;

		ck_assert_ptr_nonnull(copy);
		ck_assert_int_eq(bc_deps_kernel_parse(file.data, file.size,
						      files[f], &k, NULL), 0);
		bc_deps_kernel_deinit(&k);
		for (i = 0; i < file.size; i++) {
			struct captured cap = { "" };
			struct bc_log log = { .fn = capture, .ctx = &cap };

			memcpy(copy, file.data, file.size);
			copy[i] ^= 0x5a;
			ck_assert_msg(bc_deps_kernel_parse(copy, file.size, files[f],
							   &k, &log) < 0,
				      "%s: byte %zu changed, read as a kernel",
				      files[f], i);
			ck_assert_msg(strstr(cap.text, files[f]), "byte %zu: '%s'",
				      i, cap.text);
			refused++;
			cap.text[0] = '\0';
			ck_assert_msg(bc_deps_kernel_parse(file.data, i, files[f],
							   &k, &log) < 0,
				      "%s: cut to %zu bytes, read as a kernel",
				      files[f], i);
			ck_assert_msg(strstr(cap.text, files[f]), "cut %zu: '%s'",
				      i, cap.text);
			refused++;
		}
		free(copy);
		blob_free(&file);
	}
	fprintf(stderr, "deps: %u damaged saved kernel files refused\n", refused);
}
END_TEST

/* What deps says where a kernel without modules lacks a name. */
#define ARCHIVE_NO_MODULES "the archive holds no modules"
#define FILE_NO_MODULES "no modules were given with the kernel"

/* A file's text, malloc'd. */
static char *text_of(const char *path)
{
	struct blob b = read_file(path);
	char *text = strndup(b.data ? b.data : "", b.size);

	ck_assert_ptr_nonnull(text);
	blob_free(&b);
	return text;
}

/*
 * deps --kernel ARCHIVE (every kernel in it) and ARCHIVE:GLOB: the same
 * report as against the kernels' files, keyed ARCHIVE:NAME; a glob that
 * matches nothing, and a config for several kernels, are errors.
 */
START_TEST(test_archive_kernels)
{
	const char *cli = getenv("BTFCANON");
	const char *objs;
	char arch[160], *files, *members, *one, *want;
	struct blob err;

	build_fixtures();
	objs = in_scratch("fix.bpf.o");
	snprintf(arch, sizeof(arch), "%s", in_scratch("k.bca"));
	/* kernels A and B, from files encoded by btfcanon: already sorted */
	ck_assert_int_eq(test_sh("%s archive create %s %s %s --name ka --name kb",
			    cli, arch, in_scratch("a.btf"), in_scratch("b.btf")), 0);
	ck_assert_int_eq(test_sh("%s deps --json %s %s %s --kernel %s --kernel %s > %s",
			    cli, objs, in_scratch("ext.bpf.o"), in_scratch("real.bpf.o"),
			    in_scratch("a.btf"), in_scratch("b.btf"),
			    in_scratch("files.json")), 1);
	ck_assert_int_eq(test_sh("%s deps --json %s %s %s --kernel %s > %s", cli, objs,
			    in_scratch("ext.bpf.o"), in_scratch("real.bpf.o"), arch,
			    in_scratch("members.json")), 1);
	ck_assert_int_eq(test_sh("sed -e 's|%s|K:ka|g' -e 's|%s|K:kb|g' %s > %s",
			    in_scratch("a.btf"), in_scratch("b.btf"),
			    in_scratch("files.json"), in_scratch("files2.json")), 0);
	/* the one difference: an archive's kernel says the archive holds no modules */
	ck_assert_int_eq(test_sh("sed -e 's|%s:|K:|g' -e 's|" ARCHIVE_NO_MODULES "|"
				 FILE_NO_MODULES "|g' %s > %s", arch,
			    in_scratch("members.json"), in_scratch("members2.json")), 0);
	files = text_of(in_scratch("files2.json"));
	members = text_of(in_scratch("members2.json"));
	ck_assert_msg(strstr(members, "\"K:ka\"") && strstr(members, "\"K:kb\""),
		      "kernels keyed ARCHIVE:NAME: %.300s", members);
	ck_assert_str_eq(files, members);
	free(files);
	free(members);
	/* ARCHIVE:GLOB: kernel B alone, as its file */
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel '%s:*b' > %s", cli, objs,
			    arch, in_scratch("one.json")), 1);
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s > %s", cli, objs,
			    in_scratch("b.btf"), in_scratch("b.json")), 1);
	ck_assert_int_eq(test_sh("sed -e 's|%s:kb|K|g' -e 's|" ARCHIVE_NO_MODULES "|"
				 FILE_NO_MODULES "|g' %s > %s", arch,
			    in_scratch("one.json"), in_scratch("one2.json")), 0);
	ck_assert_int_eq(test_sh("sed -e 's|%s|K|g' %s > %s", in_scratch("b.btf"),
			    in_scratch("b.json"), in_scratch("b2.json")), 0);
	one = text_of(in_scratch("one2.json"));
	want = text_of(in_scratch("b2.json"));
	ck_assert_str_eq(one, want);
	free(one);
	free(want);
	/* nothing matches: 2, naming the spec */
	ck_assert_int_eq(test_sh("%s deps %s --kernel '%s:nope*' > /dev/null 2> %s", cli,
			    objs, arch, in_scratch("err")), 2);
	err = read_file(in_scratch("err"));
	ck_assert_msg(err.data && strstr(err.data, "nope*") &&
		      strstr(err.data, "no kernel"), "stderr: %.*s",
		      (int)err.size, err.data ? (char *)err.data : "");
	blob_free(&err);
	/* one config for two kernels: 2 */
	ck_assert_int_eq(test_sh("%s deps %s --kernel %s --kconfig " FIXTURES
			    "/kconfig_a > /dev/null 2> %s", cli, objs, arch,
			    in_scratch("err")), 2);
	err = read_file(in_scratch("err"));
	ck_assert_msg(err.data && strstr(err.data, "2 kernels"), "stderr: %.*s",
		      (int)err.size, err.data ? (char *)err.data : "");
	blob_free(&err);
}
END_TEST

/*
 * deps through an archive's views: every kernel of an archive, read
 * through a view (a record when first reached), gives the same cells as
 * read whole; on a real kernel the view decodes a small part of its
 * types (a view that decoded everything would fail here).
 */
static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void assert_same_cells(const struct bc_deps_report *a,
			      const struct bc_deps_report *b, const char *what)
{
	uint32_t i;

	ck_assert_uint_eq(a->nr_deps, b->nr_deps);
	for (i = 0; i < a->nr_deps; i++) {
		const struct bc_dep_cell *x = &a->deps[i].cells[0];
		const struct bc_dep_cell *y = &b->deps[i].cells[0];

		ck_assert_msg(x->status == y->status && x->has_value == y->has_value &&
			      x->value == y->value && same_text(x->detail, y->detail),
			      "%s: dependency %u (%s %s): whole %s %llu '%s', view %s %llu '%s'",
			      what, i, a->deps[i].kind, a->deps[i].name,
			      bc_dep_status_name(x->status), (unsigned long long)x->value,
			      x->detail ? x->detail : "", bc_dep_status_name(y->status),
			      (unsigned long long)y->value, y->detail ? y->detail : "");
	}
}

/* Returns the smallest share of a kernel's types a view decoded, in 1/1000. */
static uint32_t views_agree(const char *arch, const char *const *objs,
			    uint32_t nr_objs)
{
	struct captured cap = { "" };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	struct bc_ktypes_flavors *fl = NULL;
	struct bc_archive *ar = NULL;
	uint32_t k, i, least = 1000;

	ck_assert_msg(!bc_archive_open(arch, &ar, &log), "%s", cap.text);
	ck_assert_int_eq(bc_ktypes_flavors_new(ar, &fl), 0);
	for (k = 0; k < bc_archive_nr_kernels(ar); k++) {
		const char *name = bc_archive_kernel_name(ar, k);
		struct bc_deps_kernel whole, view;
		uint32_t decoded, nr;

		ck_assert_msg(!bc_deps_kernel_load_archived(ar, k, NULL, name,
							    &whole, &log), "%s", cap.text);
		ck_assert_msg(!bc_deps_kernel_load_archived(ar, k, fl, name,
							    &view, &log), "%s", cap.text);
		ck_assert_ptr_nonnull(whole.input.btf);
		ck_assert_ptr_null(view.input.btf);
		ck_assert_ptr_nonnull(view.types.view);
		for (i = 0; i < nr_objs; i++) {
			struct bc_deps_report rw, rv;
			struct bc_bpf_object obj;

			ck_assert_msg(!bc_bpf_object_load(objs[i], &obj, &log), "%s",
				      cap.text);
			ck_assert_int_eq(bc_deps_check(&obj, &whole, 1, &rw, &log), 0);
			ck_assert_int_eq(bc_deps_check(&obj, &view, 1, &rv, &log), 0);
			assert_same_cells(&rw, &rv, objs[i]);
			bc_deps_report_deinit(&rw);
			bc_deps_report_deinit(&rv);
			bc_bpf_object_deinit(&obj);
		}
		decoded = bc_ktypes_nr_decoded(&view.types);
		nr = whole.input.btf->nr_types;
		ck_assert_uint_gt(decoded, 0);
		ck_assert_uint_le(decoded, nr);
		if (decoded * 1000ull / nr < least)
			least = decoded * 1000ull / nr;
		fprintf(stderr, "deps views: %s: %u of %u types decoded\n", name,
			decoded, nr);
		bc_deps_kernel_deinit(&view);
		bc_deps_kernel_deinit(&whole);
	}
	bc_ktypes_flavors_free(fl);
	bc_archive_free(ar);
	return least;
}

/*
 * Kernel A with a loop through anonymous types only (struct { ... *self; }),
 * which the archive keeps as bytes: a kernel no view can read, so deps
 * reads it whole.
 */
static void write_kernel_with_loop(const char *from, const char *to)
{
	struct btf *btf = btf__parse(from, NULL);
	struct blob raw;
	int a;

	ck_assert_ptr_nonnull(btf);
	a = btf__add_struct(btf, NULL, 8);
	ck_assert_int_gt(a, 0);
	ck_assert_int_ge(btf__add_field(btf, "self", a + 1, 0, 0), 0);
	ck_assert_int_eq(btf__add_ptr(btf, a), a + 1);
	raw = blob_from_libbpf(btf);
	btf__free(btf);
	blob_write_or_fail(&raw, to);
	blob_free(&raw);
}

/*
 * The JSON of the archive run (with key in it) equals the files run's,
 * but that an archive's kernel says the archive holds no modules.
 */
static void assert_same_json(const char *archive_json, const char *files_json,
			     const char *key)
{
	char *a = replaced(archive_json, ARCHIVE_NO_MODULES, FILE_NO_MODULES);
	char *f = text_of(files_json);

	ck_assert_msg(strstr(a, key), "keys: %.300s", a);
	ck_assert_str_eq(a, f);
	free(a);
	free(f);
}

START_TEST(test_archive_views)
{
	const char *cli = getenv("BTFCANON");
	const char *real_kernels[] = { debian_kernels[0], debian_kernels[2] };
	const char *objs[6];

	build_fixtures();
	objs[0] = in_scratch("fix.bpf.o");
	objs[1] = in_scratch("real.bpf.o");
	objs[2] = in_scratch("ext.bpf.o");
	objs[3] = in_scratch("ops.bpf.o");
	/* candidates by flavor: kernel B's dep_amb and dep_amb___v2 */
	objs[4] = in_scratch("amb.bpf.o");
	objs[5] = in_scratch("narrow.bpf.o");
	ck_assert_int_eq(test_sh("%s archive create %s %s %s --name ka --name kb",
			    cli, in_scratch("views.bca"), in_scratch("a.btf"),
			    in_scratch("b.btf")), 0);
	views_agree(in_scratch("views.bca"), objs, 6);
	/* a kernel stored as bytes is read whole: the report of its file */
	write_kernel_with_loop(in_scratch("a.btf"), in_scratch("loop.btf"));
	ck_assert_int_eq(test_sh("%s archive create %s %s --name kloop && "
			    "%s archive extract %s kloop -o %s", cli,
			    in_scratch("loop.bca"), in_scratch("loop.btf"), cli,
			    in_scratch("loop.bca"), in_scratch("loop-sorted.btf")), 0);
	{
		struct captured cap = { "" };
		struct bc_log log = { .fn = capture, .ctx = &cap };
		struct bc_ktypes_flavors *fl = NULL;
		struct bc_archive *ar = NULL;
		struct bc_deps_kernel k;

		ck_assert_int_eq(bc_archive_open(in_scratch("loop.bca"), &ar, &log), 0);
		ck_assert(bc_archive_kernel_stored_as_bytes(ar, 0));
		ck_assert_int_eq(bc_ktypes_flavors_new(ar, &fl), 0);
		ck_assert_msg(!bc_deps_kernel_load_archived(ar, 0, fl, "kloop", &k,
							    &log), "%s", cap.text);
		ck_assert_ptr_null(k.types.view);
		ck_assert_ptr_nonnull(k.input.btf);
		bc_deps_kernel_deinit(&k);
		bc_ktypes_flavors_free(fl);
		bc_archive_free(ar);
	}
	/* an archive of one kernel given as a file: keyed by its path */
	ck_assert_int_lt(test_sh("%s deps --json %s --kernel %s | sed 's|%s|K|g' > %s",
			    cli, objs[0], in_scratch("loop.bca"),
			    in_scratch("loop.bca"), in_scratch("loop-a.json")), 2);
	ck_assert_int_lt(test_sh("%s deps --json %s --kernel %s | sed 's|%s|K|g' > %s",
			    cli, objs[0], in_scratch("loop-sorted.btf"),
			    in_scratch("loop-sorted.btf"), in_scratch("loop-f.json")), 2);
	assert_same_json(in_scratch("loop-a.json"), in_scratch("loop-f.json"),
			 "\"K\"");
	if (access(real_kernels[0], R_OK) || access(real_kernels[1], R_OK)) {
		fprintf(stderr, "deps views: %s or %s absent, real kernels skipped\n",
			real_kernels[0], real_kernels[1]);
		return;
	}
	/* Debian's 6.1.192 and 6.12.117: the same cells, a part decoded */
	ck_assert_int_eq(test_sh("%s archive create %s %s %s --name k61 --name k612",
			    cli, in_scratch("real.bca"), real_kernels[0],
			    real_kernels[1]), 0);
	ck_assert_uint_lt(views_agree(in_scratch("real.bca"), objs + 1, 1), 20);
	/* and the command's JSON, kernel keys aside, as on the members' files */
	ck_assert_int_eq(test_sh("%s archive extract %s k61 -o %s && "
			    "%s archive extract %s k612 -o %s", cli,
			    in_scratch("real.bca"), in_scratch("k61.btf"), cli,
			    in_scratch("real.bca"), in_scratch("k612.btf")), 0);
	ck_assert_int_lt(test_sh("%s deps --json %s %s %s --kernel %s | sed 's|%s:|K/|g' > %s",
			    cli, objs[0], objs[1], objs[2], in_scratch("real.bca"),
			    in_scratch("real.bca"), in_scratch("views-a.json")), 2);
	ck_assert_int_lt(test_sh("%s deps --json %s %s %s --kernel %s --kernel %s | "
			    "sed -e 's|%s/\\(k61[2]*\\)\\.btf|K/\\1|g' > %s",
			    cli, objs[0], objs[1], objs[2], in_scratch("k61.btf"),
			    in_scratch("k612.btf"), scratch, in_scratch("views-f.json")), 2);
	assert_same_json(in_scratch("views-a.json"), in_scratch("views-f.json"),
			 "\"K/k612\"");
}
END_TEST

/* ---- an object libbpf refuses, among others --------------------------- */

/* Line n (from 0) of text, malloc'd, without its newline; NULL if none. */
static char *line_of(const char *text, int n)
{
	const char *end;

	while (n-- > 0 && text)
		text = strchr(text, '\n') ? strchr(text, '\n') + 1 : NULL;
	if (!text || !*text)
		return NULL;
	end = strchr(text, '\n');
	return strndup(text, end ? (size_t)(end - text) : strlen(text));
}

/*
 * noopen.bpf.c calls a function no header declares: an extern without
 * BTF, which libbpf 1.1 refuses at open (bcc's sigsnoop under Debian's
 * libbpf 1.1). Among other objects, deps gives it a row "refused at open"
 * with libbpf's own reason and what else it tells (its CO-RE relocations
 * evaluated on each kernel, its map, the extern unknown), the others'
 * reports are those they get alone, and the exit status is 1; in JSON,
 * text, --all and over an archive's kernels. A file that is no BPF
 * object among them is still bad input: 2, its name, no report. min
 * names the object with libbpf's reason on stderr, writes the others'
 * files as if it were absent, and exits 1.
 */
START_TEST(test_refused_row)
{
	const char *cli = getenv("BTFCANON");
	const char *noopen, *fix, *amb;
	char *want, *json, *line, *alone, *text, *reason;
	struct bc_bpf_object obj;
	int i;

	build_fixtures();
	/* copies: in_scratch()'s buffers are reused after 64 calls */
	noopen = strdup(in_scratch("noopen.bpf.o"));
	fix = strdup(in_scratch("fix.bpf.o"));
	amb = strdup(in_scratch("amb.bpf.o"));
	ck_assert(noopen && fix && amb);
	ck_assert_msg(!test_sh("clang -target bpf -O2 -g -Wno-implicit-function-declaration "
			  "-c -o %s " FIXTURES "/noopen.bpf.c", noopen),
		      "clang cannot build noopen.bpf.c");
	/* libbpf itself refuses it, and the reader keeps libbpf's reason */
	want = libbpf_open_verdict(noopen);
	ck_assert_msg(want && strstr(want, "failed to find BTF for extern 'undeclared_ksym_exists'"),
		      "libbpf on noopen.bpf.o: %s", want ? want : "(opened)");
	ck_assert_int_eq(bc_bpf_object_load_any(noopen, &obj, NULL), 0);
	ck_assert_str_eq(obj.refused, want);
	bc_bpf_object_deinit(&obj);
	ck_assert_int_lt(bc_bpf_object_load(noopen, &obj, NULL), 0);

	/* JSON: a row for every object, the refused one with libbpf's reason */
	ck_assert_int_eq(test_sh("%s deps --json %s %s %s --kernel %s --kernel %s > %s 2> %s",
			    cli, fix, noopen, amb, in_scratch("a.btf"),
			    in_scratch("b.btf"), in_scratch("refused.json"),
			    in_scratch("refused.err")), 1);
	json = text_of(in_scratch("refused.json"));
	text = text_of(in_scratch("refused.err"));
	ck_assert_msg(!*text, "stderr: %s", text);
	free(text);
	ck_assert_msg(asprintf(&reason, "\"status\":\"refused at open\",\"consequence\":\"error\",\"reason\":\"%s\",\"not_checked\":\"the rest of its externs",
			       want) > 0, "asprintf");
	line = line_of(json, 1);
	ck_assert_msg(line && strstr(line, noopen) && strstr(line, reason),
		      "the refused object's row: %s", line ? line : json);
	/* what is still told: relocations on each kernel, the map, the extern */
	ck_assert_msg(strstr(line, "\"kind\":\"byte_off\",\"type\":\"struct dep_task\",\"access\":\"pid\",\"autoload\":true,\"kernels\":{") &&
		      strstr(line, "{\"value\":0,\"status\":\"ok\"") &&
		      strstr(line, "{\"value\":4,\"status\":\"ok\"") &&
		      strstr(line, "\"maps\":[{\"id\":1,\"name\":\"seen\"") &&
		      strstr(line, "\"hooks\":[{\"section\":\"tp_btf/dep_event\"") &&
		      strstr(line, "{\"kind\":\"extern\",\"name\":\"undeclared_ksym_exists\",\"weak\":false,\"kernels\":{") &&
		      strstr(line, "\"status\":\"unknown\",\"consequence\":\"unknown\",\"detail\":\"no BTF"),
		      "what is still told: %s", line);
	free(line);
	free(reason);
	/* the others: opened, and each the report it gets alone */
	for (i = 0; i < 3; i += 2) {
		const char *o = i ? amb : fix;

		ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s --kernel %s > %s",
				    cli, o, in_scratch("a.btf"), in_scratch("b.btf"),
				    in_scratch("alone.json")), 1);
		alone = text_of(in_scratch("alone.json"));
		line = line_of(json, i);
		ck_assert_msg(line && strstr(line, "\"status\":\"opens\",\"kernels\""),
			      "row %d: %s", i, line ? line : json);
		ck_assert_msg(!strncmp(alone, line, strlen(line)) &&
			      alone[strlen(line)] == '\n' && !alone[strlen(line) + 1],
			      "%s among others differs from alone", o);
		free(line);
		free(alone);
	}
	ck_assert_ptr_null(line_of(json, 3));
	free(json);

	/* text, --all: the object's header says it and why */
	ck_assert_int_eq(test_sh("%s deps --all %s %s --kernel %s > %s", cli, noopen,
			    amb, in_scratch("a.btf"), in_scratch("refused.txt")), 1);
	text = text_of(in_scratch("refused.txt"));
	ck_assert_msg(asprintf(&reason, "%s: refused at open by libbpf 1.1 (loads on no kernel): %s\n"
			       "  not told: whether libbpf's later open rules refuse it too",
			       noopen, want) > 0, "asprintf");
	ck_assert_msg(strstr(text, reason) &&
		      strstr(text, "  if it opened: 8 dependencies,") &&
		      strstr(text, "relo tp_btf/dep_event #0 byte_off struct dep_task.pid") &&
		      strstr(text, "extern undeclared_ksym_exists") &&
		      strstr(text, "map seen type 1") &&
		      strstr(text, "\n  6 ok on every kernel\n"), "text: %s", text);
	free(reason);
	/* amb.bpf.o's report follows */
	ck_assert_msg(strstr(strstr(text, "\n  6 ok on every kernel\n"), amb) &&
		      strstr(text, ": 4 dependencies, 1 not ok on some kernel\n"),
		      "text: %s", text);
	free(text);
	/* and without --all, the text view still has the row */
	ck_assert_int_eq(test_sh("%s deps %s --kernel %s | grep -q '^%s: refused at open by libbpf 1.1'",
			    cli, noopen, in_scratch("a.btf"), noopen), 0);

	/* an archive's kernels */
	ck_assert_int_eq(test_sh("%s archive create %s %s %s --name ka --name kb", cli,
			    in_scratch("refused.bca"), in_scratch("a.btf"),
			    in_scratch("b.btf")), 0);
	ck_assert_int_eq(test_sh("%s deps --json %s %s --kernel '%s:k*' > %s", cli, noopen,
			    fix, in_scratch("refused.bca"),
			    in_scratch("refused-ar.json")), 1);
	json = text_of(in_scratch("refused-ar.json"));
	line = line_of(json, 0);
	ck_assert_msg(line && strstr(line, "\"status\":\"refused at open\"") &&
		      strstr(line, want) && strstr(line, ":kb\":{\"value\":4,"),
		      "archive: %s", json);
	free(line);
	line = line_of(json, 1);
	ck_assert_msg(line && strstr(line, "\"status\":\"opens\""), "archive: %s", json);
	free(line);
	free(json);

	/* no BPF object among them: bad input, 2, named, no report */
	ck_assert_int_eq(test_sh("printf 'not an object' > %s && head -c 4096 %s > %s",
			    in_scratch("notelf.o"), fix, in_scratch("cut.bpf.o")), 0);
	for (i = 0; i < 3; i++) {
		static const char *const bad[] = { "notelf.o", "cut.bpf.o", "kern_a.o" };
		static const char *const why[] = {
			"not an ELF file", "outside the file", "not a BPF object",
		};

		ck_assert_int_eq(test_sh("%s deps --json %s %s %s --kernel %s > %s 2> %s",
				    cli, fix, noopen, in_scratch(bad[i]),
				    in_scratch("a.btf"), in_scratch("bad.json"),
				    in_scratch("bad.err")), 2);
		text = text_of(in_scratch("bad.err"));
		ck_assert_msg(strstr(text, in_scratch(bad[i])) && strstr(text, why[i]),
			      "%s: stderr: %s", bad[i], text);
		free(text);
		text = text_of(in_scratch("bad.json"));
		ck_assert_msg(!*text, "%s: output on bad input: %s", bad[i], text);
		free(text);
	}

	/*
	 * min: the refused object named on stderr with libbpf's reason and
	 * left out, the files of the others written (the same bytes as
	 * without it, for every kernel, also of an archive), exit status 1
	 */
	ck_assert_int_eq(test_sh("%s min %s %s --kernel %s -o %s", cli, fix, amb,
			    in_scratch("a.btf"), in_scratch("opened-min")), 0);
	ck_assert_int_eq(test_sh("%s min %s %s --kernel %s -o %s", cli, fix, amb,
			    in_scratch("refused.bca"), in_scratch("opened-min")), 0);
	ck_assert_int_eq(test_sh("%s min %s %s %s --kernel %s --kernel %s -o %s > %s 2> %s",
			    cli, fix, noopen, amb, in_scratch("a.btf"),
			    in_scratch("refused.bca"), in_scratch("refused-min"),
			    in_scratch("min.out"), in_scratch("min.err")), 1);
	text = text_of(in_scratch("min.err"));
	ck_assert_msg(asprintf(&reason, "%s: refused at open by libbpf 1.1 (loads on no kernel): %s",
			       noopen, want) > 0, "asprintf");
	ck_assert_msg(strstr(text, reason) && !strstr(text, fix) && !strstr(text, amb),
		      "min: %s", text);
	free(reason);
	free(text);
	text = text_of(in_scratch("min.out"));
	ck_assert_msg(!*text, "min: stdout: %s", text);
	free(text);
	ck_assert_int_eq(test_sh("cd %s && for f in a ka kb; do cmp $f.btf %s/$f.btf || exit 1; done",
			    in_scratch("opened-min"), in_scratch("refused-min")), 0);
	/* refused alone: the files of no object, still 1 */
	ck_assert_int_eq(test_sh("%s min %s --kernel %s -o %s 2> /dev/null", cli,
			    noopen, in_scratch("a.btf"), in_scratch("refused-only")), 1);
	ck_assert_int_eq(access(in_scratch("refused-only/a.btf"), R_OK), 0);
	/* a file that is no BPF object among them: still 2, nothing written */
	ck_assert_int_eq(test_sh("%s min %s %s %s --kernel %s -o %s 2> %s", cli, fix,
			    noopen, in_scratch("notelf.o"), in_scratch("a.btf"),
			    in_scratch("bad-min"), in_scratch("min.err")), 2);
	text = text_of(in_scratch("min.err"));
	ck_assert_msg(strstr(text, in_scratch("notelf.o")) && strstr(text, "not an ELF file"),
		      "min: %s", text);
	free(text);
	ck_assert_int_ne(access(in_scratch("bad-min"), F_OK), 0);
	free(want);
	free((char *)noopen);
	free((char *)fix);
	free((char *)amb);
}
END_TEST

/*
 * --kernel NAME=FILE in deps and min (archive.h, bc_kernel_arg_split()):
 * deps keys the kernel NAME, min writes DIR/NAME.btf (the bytes it
 * writes for FILE), deps --save keeps NAME in the saved file (min over
 * it writes NAME.btf); a missing FILE is an error saying NAME=FILE.
 */
START_TEST(test_kernel_names)
{
	const char *cli = getenv("BTFCANON");
	char *text;

	build_fixtures();
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel 6.1-x=%s > %s", cli,
			    in_scratch("fix.bpf.o"), in_scratch("a.btf"),
			    in_scratch("named.json")), 1);
	text = text_of(in_scratch("named.json"));
	ck_assert_msg(strstr(text, "\"kernels\":[\"6.1-x\"]"), "deps: %s", text);
	free(text);
	ck_assert_int_eq(test_sh("%s min %s --kernel kx=%s --kernel %s -o %s", cli,
			    in_scratch("fix.bpf.o"), in_scratch("a.btf"),
			    in_scratch("a.btf"), in_scratch("named-min")), 0);
	ck_assert_int_eq(test_sh("cmp %s/kx.btf %s/a.btf", in_scratch("named-min"),
			    in_scratch("named-min")), 0);
	ck_assert_int_eq(test_sh("%s deps --kernel kb=%s --save %s", cli,
			    in_scratch("b.btf"), in_scratch("kb.saved")), 0);
	ck_assert_int_eq(test_sh("%s min %s --kernel %s -o %s && test -f %s/kb.btf", cli,
			    in_scratch("fix.bpf.o"), in_scratch("kb.saved"),
			    in_scratch("named-min2"), in_scratch("named-min2")), 0);
	ck_assert_int_eq(test_sh("%s deps %s --kernel 6.1-x=/nonexistent/a.btf 2> %s",
			    cli, in_scratch("fix.bpf.o"), in_scratch("named.err")), 2);
	text = text_of(in_scratch("named.err"));
	ck_assert_msg(strstr(text, "--kernel 6.1-x=/nonexistent/a.btf: NAME=FILE, and FILE /nonexistent/a.btf: No such file or directory"),
		      "deps: %s", text);
	free(text);
}
END_TEST

Suite *deps_suite(void)
{
	Suite *s = suite_create("deps");
	TCase *tc;

	tc = tcase_create("statuses");
	tcase_add_test(tc, test_status_names);
	tcase_add_test(tc, test_statuses);
	tcase_add_test(tc, test_ambiguous_and_externs);
	tcase_add_test(tc, test_autoload_off);
	tcase_add_test(tc, test_kconfig_and_ksyms);
	tcase_add_test(tc, test_modules);
	suite_add_tcase(s, tc);
	tc = tcase_create("libbpf");
	tcase_add_test(tc, test_libbpf_fixture_kernels);
	tcase_add_test(tc, test_modules_real);
	tcase_add_loop_test(tc, test_modules_packages, 0,
			    sizeof(module_packages) / sizeof(module_packages[0]));
	tcase_add_loop_test(tc, test_libbpf_real_kernels, 0,
			    sizeof(debian_kernels) / sizeof(debian_kernels[0]));
	suite_add_tcase(s, tc);
	tc = tcase_create("cli");
	tcase_add_test(tc, test_cli);
	tcase_add_test(tc, test_saved_kernel);
	tcase_add_test(tc, test_saved_kernel_damage);
	tcase_add_test(tc, test_archive_kernels);
	tcase_add_test(tc, test_kernel_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("archive_views");
	tcase_add_test(tc, test_archive_views);
	suite_add_tcase(s, tc);
	tc = tcase_create("bad_objects");
	tcase_add_test(tc, test_bad_objects);
	suite_add_tcase(s, tc);
	tc = tcase_create("libbpf_open");
	tcase_add_loop_test(tc, test_libbpf_open, 0,
			    sizeof(refusals) / sizeof(refusals[0]));
	tcase_add_test(tc, test_libbpf_open_btf_ext);
	suite_add_tcase(s, tc);
	tc = tcase_create("refused_row");
	tcase_add_test(tc, test_refused_row);
	suite_add_tcase(s, tc);
	tc = tcase_create("min");
	tcase_add_test(tc, test_min);
	suite_add_tcase(s, tc);
	return s;
}
