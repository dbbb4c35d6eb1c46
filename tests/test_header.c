// SPDX-License-Identifier: GPL-2.0-only
/*
 * `btfcanon header` (header/header.c, header/cmd_header.c), against the four
 * kernels of tests/data/header/ (cut from Debian's 6.1.0-56 amd64 and
 * arm64, 6.12.117 arm64 and a 6.18 x86 kernel: tests/data/README.md).
 *
 * Cases:
 *	compile		tests/fixtures/header/core.bpf.c compiles against the
 *			header with -D__TARGET_ARCH_x86 and _arm64; without
 *			either, the header's #error names both; each
 *			architecture's projection (clang -E) is the header
 *			of that architecture's kernels alone
 *	libbpf		each object against each kernel of its architecture:
 *			libbpf's own relocation (btf_custom_path) equals
 *			btfcanon deps' (test_deps.c); the flavors reach what
 *			only 6.1 has (fd___flags_unsigned_int,
 *			io_fadvise___len_u32, the
 *			enumerator ARG_PTR_TO_KPTR) and nothing on the newer
 *			kernel; the kfunc only 6.18 has is __weak; the
 *			running kernel's BTF_LOAD takes each object's BTF
 *	check		--check: 0 and silent when current, 1 with a diff -u
 *			when stale, 2 when the file cannot be read
 *	order		the kernels' order, given one by one or as an archive
 *			or ARCHIVE:GLOB, does not change a byte
 *	adding		adding 6.1.0-56-amd64 to a set changes the header
 *			only in the kernel list, the kfuncs it lacks (now
 *			__weak), #if lines and new blocks (its flavors: x86's
 *			pt_regs___cs_long_unsigned_int, and 6.18's u16 cs
 *			now as a flavor too); nothing of the 6.18 header is lost
 *	bad_input	a missing file, a file that is not BTF, a kernel of
 *			no known architecture, a name without a version, a
 *			missing --for file, a -I that is missing or not a
 *			directory, -I without --for: exit 2, a message naming
 *			it, no output file
 *	newer		a kernel newer than the others that declares members
 *			as an older one did (one removed and back, one whose
 *			type changed and changed back, an enumerator removed
 *			and back): every flavor stays, same name and text
 *	older		kernels older than every kernel of the set added
 *			one by one (a member whose type changed back, a
 *			member and an enumerator the newer ones lack): every
 *			flavor stays, same name and text; the new ones come
 *	slim		--for the fixture: a shorter header that compiles it
 *			for both architectures into the same instructions
 *			and CO-RE relocations as the full header
 *	includes	--for tests/fixtures/slim/incdirs/prog.bpf.c, whose
 *			kernel names sit in headers found only through -I:
 *			without -I the header lacks them and the program
 *			does not compile; with -I (before --for or after its
 *			files, -I DIR or -IDIR: the same bytes) it has them
 *			and compiles for both architectures; --check names
 *			the -I dirs in the command it prints
 *	view		an archive's older kernels read through views
 *			(kpart.h) give the header that reading them whole
 *			gives, full and --for the fixture, byte for byte
 *			(the four kernels; the three small ones of newer)
 *	limited		--for with only the types whose flavors the program
 *			can name compared gives the same header as with all
 *			compared (the fixture on the four kernels; a program
 *			naming s___b_long and E_B___e on the small ones)
 *	files		-j1, -j2, -j4 and -j3 in another order: the same
 *			bytes; --kernel NAME=FILE names the kernel (the
 *			header of a file of that name), paths with '='
 *			stay paths; a NAME=FILE with no FILE, no version
 *			in NAME, or an archive of two kernels: exit 2; a
 *			bad file at -j4: its message, as at -j1
 *	layout		--layout 6.1.0-56-amd64 (the oldest): the plain types
 *			are 6.1's on both architectures (arm64: the newest
 *			not newer, 6.1.0-56-arm64), fd's flags a plain
 *			member, 6.18's word and u64 len flavors by the
 *			default's names; tests/fixtures/header/layout.bpf.c
 *			(flags plainly, word through its flavor) compiles
 *			for both and relocates on old and new kernels; the
 *			same bytes at every run, in any --kernel order and
 *			from an archive; --layout of the newest is the
 *			default header but for its comment; --check with
 *			--layout; small kernels: a copy that holds a copy
 *			grown after it (the sizes fit), an enum the chosen
 *			kernel only declares (`enum mode;`: the newer
 *			definition is copied whole); an unknown name or
 *			two kernels of one architecture: exit 2 naming it,
 *			with a hint
 *	strings		each kernel file with its string section laid out
 *			otherwise (reversed, a name twice, an empty name at
 *			an offset not 0): the same header, byte for byte
 *	modules		--module xfs --module 'nf_conn*' over Debian's
 *			6.12.117 cloud-amd64 and 6.1 cloud-arm64 packages:
 *			tests/fixtures/header/kmod.bpf.c compiles for both
 *			architectures, and deps says ok to every dependency,
 *			naming the modules
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <check.h>

#include "../canon/text.h"
#include "../header/header.h"
#include "../header/slim.h"
#include "suites.h"
#include "testutil.h"

#define DATA "tests/data/header"
#define FIXTURE "tests/fixtures/header/core.bpf.c"
#define LAYOUT_FIXTURE "tests/fixtures/header/layout.bpf.c"
#define INCDIRS "tests/fixtures/slim/incdirs"
#define INCDIRS_I "-I " INCDIRS "/include -I " INCDIRS "/common"

#define K61X DATA "/6.1.0-56-amd64.btf"
#define K618 DATA "/6.18.44-fc-v669.btf"
#define K61A DATA "/6.1.0-56-arm64.btf"
#define K612A DATA "/6.12.117+deb12-arm64.btf"
#define ALL4 "--kernel " K61X " --kernel " K618 " --kernel " K61A " --kernel " K612A

static char scratch[64];

static const char *in_scratch(const char *name)
{
	static char path[32][160];
	static int next;
	char *p = path[next++ % 32];

	snprintf(p, sizeof(path[0]), "%s/%s", scratch, name);
	return p;
}

/* The binary, as an absolute path: some cases run it after a cd. */
static const char *cli(void)
{
	static char path[PATH_MAX];
	const char *c = getenv("BTFCANON");

	ck_assert_msg(c, "BTFCANON names the binary (make check sets it)");
	if (!*path)
		ck_assert_msg(realpath(c, path), "BTFCANON=%s: %s", c,
			      strerror(errno));
	return path;
}

static void setup(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/btfcanon-header.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void teardown(void)
{
	test_sh("rm -rf %s", scratch);
}

static bool file_has(const char *path, const char *text)
{
	struct blob b = read_file(path);
	bool has = b.data && memmem(b.data, b.size, text, strlen(text));

	blob_free(&b);
	return has;
}

static bool same_file(const char *a, const char *b)
{
	return !test_sh("cmp -s %s %s", a, b);
}

/* The header of the four kernels and the fixture compiled for both arches. */
static void build_objects(void)
{
	ck_assert_int_eq(test_sh("%s header " ALL4 " -o %s", cli(),
			    in_scratch("vmlinux.h")), 0);
	ck_assert_msg(!test_sh("clang -target bpf -O2 -g -D__TARGET_ARCH_x86 -I%s -c "
			  FIXTURE " -o %s", scratch, in_scratch("x86.o")),
		      "core.bpf.c does not compile for x86");
	ck_assert_msg(!test_sh("clang -target bpf -O2 -g -D__TARGET_ARCH_arm64 -I%s -c "
			  FIXTURE " -o %s", scratch, in_scratch("arm64.o")),
		      "core.bpf.c does not compile for arm64");
}

/*
 * --module over Debian's 6.12.117 cloud-amd64 and 6.1.0-56 cloud-arm64
 * packages: the header has xfs's and nf_conntrack's types, so
 * tests/fixtures/header/kmod.bpf.c compiles for x86 and arm64 (without
 * --module there is no struct xfs_inode to compile it), and deps finds every one
 * of its dependencies ok on each package, naming xfs and nf_conntrack;
 * a --module no kernel has is an error naming it.
 */
START_TEST(test_modules)
{
	char x86[512], arm64[512];
	glob_t gx, ga;
	bool have;

	have = !glob("/var/cache/btfcanon-tests/linux-image-6.12.117+deb12-cloud-amd64_*.deb",
		     0, NULL, &gx) && gx.gl_pathc &&
	       !glob("/var/cache/btfcanon-tests/linux-image-6.1.0-56-cloud-arm64_*.deb",
		     0, NULL, &ga) && ga.gl_pathc;
	if (!have) {
		fprintf(stderr, "header modules: Debian's packages absent, skipped (tools/setup-debian.sh)\n");
		return;
	}
	snprintf(x86, sizeof(x86), "%s", gx.gl_pathv[0]);
	snprintf(arm64, sizeof(arm64), "%s", ga.gl_pathv[0]);
	globfree(&gx);
	globfree(&ga);
	ck_assert_int_eq(test_sh("%s header --kernel %s --kernel %s --module xfs "
				 "--module 'nf_conn*' -o %s", cli(), x86, arm64,
				 in_scratch("vmlinux.h")), 0);
	ck_assert(file_has(in_scratch("vmlinux.h"),
			   "with the types of the modules xfs, nf_conn* of each kernel"));
	ck_assert(file_has(in_scratch("vmlinux.h"), "\nstruct xfs_inode {"));
	ck_assert_msg(!test_sh("clang -target bpf -O2 -g -D__TARGET_ARCH_x86 -I%s -c "
			       "tests/fixtures/header/kmod.bpf.c -o %s", scratch,
			       in_scratch("x86.o")),
		      "kmod.bpf.c does not compile for x86");
	ck_assert_msg(!test_sh("clang -target bpf -O2 -g -D__TARGET_ARCH_arm64 -I%s -c "
			       "tests/fixtures/header/kmod.bpf.c -o %s", scratch,
			       in_scratch("arm64.o")),
		      "kmod.bpf.c does not compile for arm64");
	ck_assert_int_eq(test_sh("%s deps --json %s --kernel %s > %s", cli(),
				 in_scratch("x86.o"), x86, in_scratch("x86.json")), 0);
	ck_assert(file_has(in_scratch("x86.json"), "\"detail\":\"in module xfs\""));
	ck_assert(file_has(in_scratch("x86.json"), "\"detail\":\"in module nf_conntrack\""));
	ck_assert_int_eq(test_sh("%s deps %s --kernel %s > /dev/null", cli(),
				 in_scratch("arm64.o"), arm64), 0);
	ck_assert_int_eq(test_sh("%s header --kernel %s --module xfs --module nosuch "
				 "-o %s 2> %s", cli(), arm64, in_scratch("no.h"),
				 in_scratch("no.err")), 2);
	ck_assert(file_has(in_scratch("no.err"),
			   "--module nosuch: no kernel of the set has such a module"));
	ck_assert_int_ne(access(in_scratch("no.h"), F_OK), 0);
}
END_TEST

START_TEST(test_compile)
{
	build_objects();
	ck_assert_int_ne(test_sh("clang -target bpf -O2 -g -I%s -c " FIXTURE
			    " -o %s 2> %s", scratch, in_scratch("none.o"),
			    in_scratch("none.err")), 0);
	ck_assert(file_has(in_scratch("none.err"),
			   "define __TARGET_ARCH_x86 or __TARGET_ARCH_arm64"));
	/*
	 * each architecture's projection (the preprocessor's view) is that
	 * architecture's own header, blank lines aside
	 */
	ck_assert_int_eq(test_sh("%s header --kernel " K61X " --kernel " K618 " -o %s",
			    cli(), in_scratch("x86.h")), 0);
	ck_assert_int_eq(test_sh("cd %s && clang -E -P -D__TARGET_ARCH_x86 vmlinux.h | grep -v '^ *$' > p.x86 && "
			    "clang -E -P x86.h | grep -v '^ *$' > s.x86 && cmp p.x86 s.x86",
			    scratch), 0);
	/* one architecture: no #if at all */
	ck_assert_int_eq(test_sh("%s header --kernel " K61A " --kernel " K612A " -o %s",
			    cli(), in_scratch("arm64.h")), 0);
	ck_assert(!file_has(in_scratch("arm64.h"), "__TARGET_ARCH"));
	ck_assert_int_eq(test_sh("cd %s && clang -E -P -D__TARGET_ARCH_arm64 vmlinux.h | grep -v '^ *$' > p.arm64 && "
			    "clang -E -P arm64.h | grep -v '^ *$' > s.arm64 && cmp p.arm64 s.arm64",
			    scratch), 0);
	ck_assert(file_has(in_scratch("vmlinux.h"), "#elif defined(__TARGET_ARCH_arm64)"));
}
END_TEST

/* deps' value of one relocation; fails when deps has no such relocation. */
static bool relo(const char *object, const char *kernel, const char *kind,
		 const char *type, const char *name, unsigned long long *value)
{
	bool patched;

	ck_assert_msg(deps_relo_value(object, kernel, kind, type, name, &patched,
				      value),
		      "%s: no relocation %s %s.%s", object, kind, type, name);
	return patched;
}

/*
 * The running kernel's BTF verifier takes the BTF of the object at path,
 * as libbpf has it after opening it (flavor names and all); skipped where
 * bpf(BPF_BTF_LOAD) is not allowed.
 */
static void kernel_takes_btf_of(const char *path)
{
	size_t log_size = 1 << 20;
	char *log = malloc(log_size);
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct blob raw = { 0 };
	uint32_t size = 0;
	int err;

	ck_assert_ptr_nonnull(log);
	ck_assert_msg(obj && bpf_object__btf(obj), "%s: libbpf does not open it", path);
	raw.data = (void *)btf__raw_data(bpf_object__btf(obj), &size);
	raw.size = size;
	err = kernel_load_btf(&raw, log, log_size);
	if (err == -EPERM || err == -ENOSYS)
		fprintf(stderr, "header: skipping the kernel's BTF check: "
			"bpf(BPF_BTF_LOAD) not allowed here (%s)\n", strerror(-err));
	else
		ck_assert_msg(!err, "%s: the kernel refuses its BTF: %s\n%s", path,
			      strerror(-err), log);
	bpf_object__close(obj);
	free(log);
}

START_TEST(test_libbpf)
{
	const char *x86 = in_scratch("x86.o"), *arm = in_scratch("arm64.o");
	const char *const olds[] = { K61X, K61A }, *const news[] = { K618, K612A };
	const char *const objs[] = { x86, arm };
	unsigned long long v;
	uint32_t n = 0, a;

	build_objects();
	for (a = 0; a < 2; a++) {
		n += deps_agree_with_libbpf(objs[a], olds[a]);
		n += deps_agree_with_libbpf(objs[a], news[a]);
		/* a member only the older kernel has, through its flavor */
		ck_assert(relo(objs[a], olds[a], "field_exists", "struct fd___flags_unsigned_int",
			       "flags", &v) && v == 1);
		ck_assert(!relo(objs[a], news[a], "field_exists", "struct fd___flags_unsigned_int",
				"flags", &v) && v == 0);
		ck_assert(relo(objs[a], olds[a], "byte_off", "struct fd___flags_unsigned_int",
			       "flags", &v) && v == 8);
		ck_assert(relo(objs[a], news[a], "field_exists", "struct fd",
			       "word", &v) && v == 1);
		/* a member whose type changed: u32, then u64 */
		ck_assert(relo(objs[a], olds[a], "byte_sz", "struct io_fadvise___len_u32",
			       "len", &v) && v == 4);
		ck_assert(relo(objs[a], news[a], "byte_sz", "struct io_fadvise",
			       "len", &v) && v == 8);
		/* an enumerator removed since 6.1 */
		ck_assert(relo(objs[a], olds[a], "enumval_value",
			       "enum bpf_arg_type___ARG_PTR_TO_KPTR",
			       "ARG_PTR_TO_KPTR___bpf_arg_type", &v) && v == 21);
		ck_assert(!relo(objs[a], news[a], "enumval_exists",
				"enum bpf_arg_type___ARG_PTR_TO_KPTR",
				"ARG_PTR_TO_KPTR___bpf_arg_type", &v) && v == 0);
	}
	/* the running kernel takes each object's BTF, flavors and kfuncs */
	kernel_takes_btf_of(x86);
	kernel_takes_btf_of(arm);
	/* the arch-specific type: each reads its own pt_regs */
	ck_assert(relo(x86, K618, "byte_off", "struct pt_regs", "di", &v) && v == 112);
	ck_assert(relo(arm, K612A, "byte_off", "struct user_pt_regs", "regs[0]", &v) &&
		  v == 0);
	/* the kfunc only 6.18 has: weak */
	ck_assert(file_has(in_scratch("vmlinux.h"),
			   "extern struct task_struct *bpf_task_acquire(struct task_struct *p) __weak __ksym;"));
	fprintf(stderr, "header: %u relocations agree with libbpf\n", n);
}
END_TEST

START_TEST(test_check)
{
	const char *h = in_scratch("vmlinux.h");

	ck_assert_int_eq(test_sh("%s header " ALL4 " -o %s", cli(), h), 0);
	ck_assert_int_eq(test_sh("%s header " ALL4 " --check %s > %s", cli(), h,
			    in_scratch("current.out")), 0);
	ck_assert(!file_has(in_scratch("current.out"), "stale"));
	ck_assert_int_eq(test_sh("sed -i 's/__weak __ksym/__ksym/' %s", h), 0);
	ck_assert_int_eq(test_sh("%s header " ALL4 " --check %s > %s", cli(), h,
			    in_scratch("stale.out")), 1);
	ck_assert(file_has(in_scratch("stale.out"), "is stale"));
	ck_assert(file_has(in_scratch("stale.out"), "+extern struct task_struct *bpf_task_acquire"));
	ck_assert_int_eq(test_sh("%s header " ALL4 " --check %s 2> /dev/null", cli(),
			    in_scratch("missing.h")), 2);
	/* dump --check still says what it said */
	ck_assert_int_eq(test_sh("%s dump -f c " K618 " -o %s", cli(), in_scratch("d.h")), 0);
	ck_assert_int_eq(test_sh("echo >> %s; %s dump -f c --check %s " K618 " > %s",
			    in_scratch("d.h"), cli(), in_scratch("d.h"),
			    in_scratch("d.out")), 1);
	ck_assert(file_has(in_scratch("d.out"),
			   "differs from what `btfcanon dump -f c " K618 "` writes"));
}
END_TEST

START_TEST(test_order)
{
	const char *a = in_scratch("a.h"), *ar = in_scratch("k.bca");

	ck_assert_int_eq(test_sh("%s header " ALL4 " -o %s", cli(), a), 0);
	ck_assert_int_eq(test_sh("%s header --kernel " K612A " --kernel " K618
			    " --kernel " K61A " --kernel " K61X " -o %s", cli(),
			    in_scratch("b.h")), 0);
	ck_assert(same_file(a, in_scratch("b.h")));
	/* the same kernel twice counts once */
	ck_assert_int_eq(test_sh("%s header " ALL4 " --kernel " K61X " -o %s", cli(),
			    in_scratch("c.h")), 0);
	ck_assert(same_file(a, in_scratch("c.h")));
	ck_assert_int_eq(test_sh("%s archive create %s " K618 " " K61A " " K612A " " K61X
			    " > /dev/null", cli(), ar), 0);
	ck_assert_int_eq(test_sh("%s header --kernel %s -o %s", cli(), ar,
			    in_scratch("d.h")), 0);
	ck_assert(same_file(a, in_scratch("d.h")));
	ck_assert_int_eq(test_sh("%s header --kernel '%s:*arm64' -o %s", cli(), ar,
			    in_scratch("e.h")), 0);
	ck_assert_int_eq(test_sh("%s header --kernel " K61A " --kernel " K612A " -o %s",
			    cli(), in_scratch("f.h")), 0);
	ck_assert(same_file(in_scratch("e.h"), in_scratch("f.h")));
}
END_TEST

START_TEST(test_adding)
{
	const char *small = in_scratch("small.h"), *big = in_scratch("big.h");

	ck_assert_int_eq(test_sh("%s header --kernel " K618 " --kernel " K61A
			    " --kernel " K612A " -o %s", cli(), small), 0);
	ck_assert_int_eq(test_sh("%s header " ALL4 " -o %s", cli(), big), 0);
	ck_assert(file_has(small, "bpf_task_acquire(struct task_struct *p) __ksym;"));
	/*
	 * What the smaller header has and the larger lacks: lines of the
	 * kernel list, the kfuncs that became __weak, and #if lines (blocks
	 * that now hold on both architectures leave their #if), nothing else.
	 */
	ck_assert_int_eq(test_sh("diff %s %s | grep '^<' | grep -v -E '^< ( \\*|extern |#if |#elif |#endif|$)' > %s",
			    small, big, in_scratch("lost")), 1);
	/* what it adds: the list, the kfuncs, and whole blocks of 6.1's */
	ck_assert_int_eq(test_sh("diff %s %s | grep '^>' > %s", small, big,
			    in_scratch("added")), 0);
	ck_assert(file_has(in_scratch("added"), "> struct pt_regs___cs_long_unsigned_int {"));
	ck_assert(file_has(in_scratch("added"), "> struct pt_regs___ss_long_unsigned_int {"));
	ck_assert(file_has(in_scratch("added"), "> struct pt_regs___cs_u16 {"));
	ck_assert(file_has(in_scratch("added"), ">  *     6.1.0-56-amd64"));
	ck_assert(file_has(in_scratch("added"), "> extern struct task_struct *bpf_task_acquire(struct task_struct *p) __weak __ksym;"));
	/* flavors are named by their content: the same names either way */
	ck_assert_int_eq(test_sh("grep -q '^struct fd___flags_unsigned_int {' %s", small), 0);
}
END_TEST

START_TEST(test_slim)
{
	const char *dir = in_scratch("slim");
	struct blob full, slim;
	const char *arch[] = { "x86", "arm64" };
	int a;

	build_objects();
	ck_assert_int_eq(test_sh("mkdir %s && %s header " ALL4 " --for " FIXTURE " -o %s/vmlinux.h",
			    dir, cli(), dir), 0);
	full = read_file(in_scratch("vmlinux.h"));
	slim = read_file(in_scratch("slim/vmlinux.h"));
	ck_assert_uint_lt(slim.size, full.size);
	blob_free(&full);
	blob_free(&slim);
	for (a = 0; a < 2; a++) {
		ck_assert_msg(!test_sh("clang -target bpf -O2 -g -D__TARGET_ARCH_%s -I%s -c "
				  FIXTURE " -o %s/%s.o", arch[a], dir, dir, arch[a]),
			      "core.bpf.c does not compile against its slim header for %s",
			      arch[a]);
		/* the same code and relocations: llvm-objdump of both */
		ck_assert_int_eq(test_sh("cd %s && llvm-objdump -dr %s.o | tail -n +3 > full.%s.txt && "
				    "llvm-objdump -dr slim/%s.o | tail -n +3 > slim.%s.txt && "
				    "cmp -s full.%s.txt slim.%s.txt", scratch, arch[a], arch[a],
				    arch[a], arch[a], arch[a], arch[a]), 0);
		kernel_takes_btf_of(in_scratch(a ? "slim/arm64.o" : "slim/x86.o"));
	}
}
END_TEST

/*
 * A small x86 kernel: struct pt_regs { long orig_ax; }, struct s { int
 * a; [long b;] X x; } with X int or long, enum e { E_A, [E_B] }.
 */
static void write_small_kernel(const char *path, bool with_b, bool x_long)
{
	struct btf *btf = btf__new_empty();
	struct blob raw;
	int i_int, i_long;

	i_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	i_long = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	ck_assert_int_gt(btf__add_struct(btf, "pt_regs", 8), 0);
	ck_assert_int_eq(btf__add_field(btf, "orig_ax", i_long, 0, 0), 0);
	ck_assert_int_gt(btf__add_struct(btf, "s", 24), 0);
	ck_assert_int_eq(btf__add_field(btf, "a", i_int, 0, 0), 0);
	if (with_b)
		ck_assert_int_eq(btf__add_field(btf, "b", i_long, 64, 0), 0);
	ck_assert_int_eq(btf__add_field(btf, "x", x_long ? i_long : i_int, 128, 0), 0);
	ck_assert_int_gt(btf__add_enum(btf, "e", 4), 0);
	ck_assert_int_eq(btf__add_enum_value(btf, "E_A", 0), 0);
	if (with_b)
		ck_assert_int_eq(btf__add_enum_value(btf, "E_B", 1), 0);
	raw = blob_from_libbpf(btf);
	blob_write_or_fail(&raw, path);
	blob_free(&raw);
	btf__free(btf);
}

/* The text of the block that starts with line in file, "" when none. */
static char *block_of(const char *file, const char *line)
{
	struct blob b = read_file(file);
	char *text = calloc(1, b.size + 1), *at, *end;

	ck_assert_ptr_nonnull(text);
	if (b.size)
		memcpy(text, b.data, b.size);
	blob_free(&b);
	at = strstr(text, line);
	if (!at) {
		text[0] = 0;
		return text;
	}
	end = strstr(at, "};\n");
	ck_assert_ptr_nonnull(end);
	end[3] = 0;
	memmove(text, at, strlen(at) + 1);
	return text;
}

/* The flavor blocks (struct s___..., enum e___...) of file, one string. */
static char *flavor_blocks(const char *file)
{
	struct blob b = read_file(file);
	struct bc_text out;
	const char *at, *end;
	char *text = calloc(1, b.size + 1);

	ck_assert_ptr_nonnull(text);
	if (b.size)
		memcpy(text, b.data, b.size);
	blob_free(&b);
	bc_text_init(&out);
	for (at = text; (at = strstr(at, "\n")); at++) {
		if (strncmp(at + 1, "struct s___", 11) && strncmp(at + 1, "enum e___", 9))
			continue;
		end = strstr(at + 1, "};\n");
		ck_assert_ptr_nonnull(end);
		bc_text_add(&out, at + 1, end + 3 - (at + 1));
	}
	free(text);
	ck_assert_int_eq(out.err, 0);
	return bc_text_take(&out);
}

/* Every flavor block of the header of old_set is in that of new_set. */
static void flavors_kept(const char *old_set, const char *new_set)
{
	char *before = flavor_blocks(old_set), *after = flavor_blocks(new_set);
	const char *at, *end;

	ck_assert_msg(*before, "%s: no flavors", old_set);
	for (at = before; *at; at = end + 3) {
		char *block;

		end = strstr(at, "};\n");
		block = strndup(at, end + 3 - at);
		ck_assert_msg(strstr(after, block), "%s: lost or renamed\n%s", new_set, block);
		free(block);
	}
	free(before);
	free(after);
}

START_TEST(test_newer)
{
	const char *k1 = in_scratch("6.1.0-1-amd64.btf");
	const char *k2 = in_scratch("6.2.0-1-amd64.btf");
	const char *k3 = in_scratch("6.3.0-1-amd64.btf");
	const char *blocks[] = { "struct s___b_long {", "struct s___x_long {",
				 "struct s___x_int {", "enum e___E_B {" };
	size_t i;

	/* b and E_B removed in 6.2 and back in 6.3; x int, long, int again */
	write_small_kernel(k1, true, false);
	write_small_kernel(k2, false, true);
	write_small_kernel(k3, true, false);
	ck_assert_int_eq(test_sh("%s header --kernel %s --kernel %s -o %s", cli(), k1, k2,
			    in_scratch("two.h")), 0);
	ck_assert_int_eq(test_sh("%s header --kernel %s --kernel %s --kernel %s -o %s", cli(),
			    k1, k2, k3, in_scratch("three.h")), 0);
	/* a newer kernel takes no flavor away and changes none */
	for (i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		char *two = block_of(in_scratch("two.h"), blocks[i]);
		char *three = block_of(in_scratch("three.h"), blocks[i]);

		ck_assert_msg(*two, "no %s in the header of 6.1 and 6.2", blocks[i]);
		ck_assert_str_eq(two, three);
		free(two);
		free(three);
	}
	flavors_kept(in_scratch("two.h"), in_scratch("three.h"));
}
END_TEST

START_TEST(test_older)
{
	const char *k1 = in_scratch("6.1.0-1-amd64.btf");
	const char *k2 = in_scratch("6.2.0-1-amd64.btf");
	const char *k3 = in_scratch("6.3.0-1-amd64.btf");
	const char *k4 = in_scratch("6.4.0-1-amd64.btf");

	/*
	 * 6.3 and 6.4 declare x long and int, then 6.2 (int) and 6.1 (long,
	 * with b and E_B, which the newer ones lack) are added, older than
	 * every kernel of the set: each of the first header's flavors is in
	 * the next header, same name, same text; and 6.1's b comes as a new
	 * flavor.
	 */
	write_small_kernel(k4, false, false);
	write_small_kernel(k3, false, true);
	write_small_kernel(k2, false, false);
	write_small_kernel(k1, true, true);
	ck_assert_int_eq(test_sh("%s header --kernel %s --kernel %s -o %s", cli(), k3, k4,
			    in_scratch("34.h")), 0);
	ck_assert_int_eq(test_sh("%s header --kernel %s --kernel %s --kernel %s -o %s", cli(),
			    k2, k3, k4, in_scratch("234.h")), 0);
	ck_assert_int_eq(test_sh("%s header --kernel %s --kernel %s --kernel %s --kernel %s -o %s",
			    cli(), k1, k2, k3, k4, in_scratch("1234.h")), 0);
	flavors_kept(in_scratch("34.h"), in_scratch("234.h"));
	flavors_kept(in_scratch("234.h"), in_scratch("1234.h"));
	ck_assert(file_has(in_scratch("34.h"), "struct s___x_long {\n\tlong x;\n};"));
	ck_assert(file_has(in_scratch("1234.h"), "struct s___b_long {\n\tlong b;\n};"));
	ck_assert(file_has(in_scratch("1234.h"), "enum e___E_B {"));
}
END_TEST

static int slim_hook(const struct btf *full, const void *names,
		     struct btf **out, uint32_t **from, const struct bc_log *log)
{
	return bc_slim_select_from(full, names, out, from, log);
}

static int each_name(const void *names, int (*fn)(void *ctx, const char *name),
		     void *ctx)
{
	return bc_slim_names_each(names, fn, ctx);
}

/*
 * The header of archive (--for names when given), whole or through views;
 * limited: comparing only the types whose flavors names can name.
 */
static char *header_of_ex(const char *archive, const struct bc_slim_names *names,
			  bool whole, bool limited)
{
	const char *kernels[] = { archive };
	struct bc_header_opts opts = { .kernels = kernels, .nr_kernels = 1,
				       .whole_kernels = whole };
	struct bc_log log = { 0 };
	struct bc_text out;

	if (names) {
		opts.slim = slim_hook;
		opts.slim_req = names;
		opts.slim_names = limited ? each_name : NULL;
	}
	bc_text_init(&out);
	ck_assert_int_eq(bc_header_write(&opts, &out, &log), 0);
	ck_assert_uint_gt(out.len, 100);
	return bc_text_take(&out);
}

static char *header_of(const char *archive, const struct bc_slim_names *names,
		       bool whole)
{
	return header_of_ex(archive, names, whole, false);
}

static void same_both_ways(const char *archive, const struct bc_slim_names *names)
{
	char *whole = header_of(archive, names, true);
	char *viewed = header_of(archive, names, false);

	ck_assert_msg(!strcmp(whole, viewed), "%s%s: views change the header",
		      archive, names ? " --for" : "");
	free(whole);
	free(viewed);
}

/* prog.bpf.c of INCDIRS against dir/vmlinux.h for arch, with its -I. */
static bool incdirs_compiles(const char *dir, const char *arch)
{
	return !test_sh("clang -target bpf -O2 -g -D__TARGET_ARCH_%s -I%s " INCDIRS_I
			" -c " INCDIRS "/prog.bpf.c -o %s/%s.o 2> %s/%s.err",
			arch, dir, dir, arch, dir, arch);
}

START_TEST(test_includes)
{
	const char *none = in_scratch("none"), *dirs = in_scratch("dirs");
	const char *after = in_scratch("after.h"), *check = in_scratch("check.out");

	ck_assert_int_eq(test_sh("mkdir %s %s", none, dirs), 0);
	ck_assert_int_eq(test_sh("%s header " ALL4 " --for " INCDIRS "/prog.bpf.c -o %s/vmlinux.h",
			    cli(), none), 0);
	ck_assert(!file_has(in_scratch("none/vmlinux.h"), "PIDTYPE_TGID"));
	ck_assert(!file_has(in_scratch("none/vmlinux.h"), "\nstruct file {"));
	ck_assert_msg(!incdirs_compiles(none, "x86"),
		      "prog.bpf.c compiles against a header made without -I");
	ck_assert_int_eq(test_sh("%s header " ALL4 " " INCDIRS_I " --for " INCDIRS
			    "/prog.bpf.c -o %s/vmlinux.h", cli(), dirs), 0);
	ck_assert(file_has(in_scratch("dirs/vmlinux.h"), "PIDTYPE_TGID"));
	ck_assert(file_has(in_scratch("dirs/vmlinux.h"), "\nstruct file {"));
	ck_assert_msg(incdirs_compiles(dirs, "x86"),
		      "prog.bpf.c does not compile for x86 against its header with -I");
	ck_assert_msg(incdirs_compiles(dirs, "arm64"),
		      "prog.bpf.c does not compile for arm64 against its header with -I");
	/* -I after --for's files, joined: the same header */
	ck_assert_int_eq(test_sh("%s header " ALL4 " --for " INCDIRS "/prog.bpf.c -I" INCDIRS
			    "/include -I" INCDIRS "/common -o %s", cli(), after), 0);
	ck_assert(same_file(after, in_scratch("dirs/vmlinux.h")));
	/* up to date with the same -I; stale without, and the command says -I */
	ck_assert_int_eq(test_sh("%s header " ALL4 " " INCDIRS_I " --for " INCDIRS
			    "/prog.bpf.c --check %s/vmlinux.h", cli(), dirs), 0);
	ck_assert_int_eq(test_sh("%s header " ALL4 " -I " INCDIRS "/include --for " INCDIRS
			    "/prog.bpf.c --check %s/vmlinux.h > %s", cli(), dirs, check), 1);
	ck_assert(file_has(check, " --kernel " K612A " -I " INCDIRS "/include --for "
			   INCDIRS "/prog.bpf.c` writes"));
}
END_TEST

START_TEST(test_view)
{
	const char *four = in_scratch("four.bca"), *small = in_scratch("small.bca");
	const char *fixture[] = { FIXTURE };
	struct bc_slim_request req = { .sources = fixture, .nr_sources = 1 };
	struct bc_slim_names *names;
	struct bc_log log = { 0 };

	ck_assert_int_eq(test_sh("%s archive create %s " K618 " " K61A " " K612A " " K61X
			    " > /dev/null", cli(), four), 0);
	/*
	 * Newest first: 6.3 and 6.2.0-1 declare int x, 6.2.0-2 and 6.1 long
	 * x; 6.1's s is 6.2.0-2's record, seen already, whose variant 6.1
	 * makes older: only marked, never compared.
	 */
	write_small_kernel(in_scratch("6.3.0-1-amd64.btf"), true, false);
	write_small_kernel(in_scratch("6.2.0-2-amd64.btf"), false, true);
	write_small_kernel(in_scratch("6.2.0-1-amd64.btf"), true, false);
	write_small_kernel(in_scratch("6.1.0-1-amd64.btf"), false, true);
	ck_assert_int_eq(test_sh("cd %s && %s archive create %s 6.1.0-1-amd64.btf "
			    "6.2.0-1-amd64.btf 6.3.0-1-amd64.btf 6.2.0-2-amd64.btf > /dev/null",
			    scratch, cli(), small), 0);
	ck_assert_int_eq(bc_slim_names_read(&req, &names, &log), 0);
	same_both_ways(four, NULL);
	same_both_ways(four, names);
	same_both_ways(small, NULL);
	bc_slim_names_free(names);
}
END_TEST

/* --for with the comparisons limited to what the program can name, or not. */
static void same_limited(const char *archive, const struct bc_slim_names *names,
			 const char *has)
{
	char *all = header_of_ex(archive, names, false, false);
	char *limited = header_of_ex(archive, names, false, true);

	ck_assert_msg(!strcmp(all, limited), "%s: limiting the comparisons changes --for",
		      archive);
	ck_assert_msg(!has || strstr(limited, has), "%s: no '%s'", archive, has);
	free(all);
	free(limited);
}

START_TEST(test_limited)
{
	const char *four = in_scratch("four.bca"), *small = in_scratch("small.bca");
	const char *fixture[] = { FIXTURE }, *prog[] = { in_scratch("prog.bpf.c") };
	struct bc_slim_request req = { .sources = fixture, .nr_sources = 1 };
	struct bc_slim_names *names;
	struct bc_log log = { 0 };

	ck_assert_int_eq(test_sh("%s archive create %s " K618 " " K61A " " K612A " " K61X
			    " > /dev/null", cli(), four), 0);
	ck_assert_int_eq(bc_slim_names_read(&req, &names, &log), 0);
	same_limited(four, names, "struct fd___flags_unsigned_int {");
	bc_slim_names_free(names);
	/* flavors of the small kernels, by name and by enumerator */
	write_small_kernel(in_scratch("6.3.0-1-amd64.btf"), true, false);
	write_small_kernel(in_scratch("6.2.0-1-amd64.btf"), false, true);
	write_small_kernel(in_scratch("6.1.0-1-amd64.btf"), true, false);
	ck_assert_int_eq(test_sh("cd %s && %s archive create %s 6.1.0-1-amd64.btf "
			    "6.2.0-1-amd64.btf 6.3.0-1-amd64.btf > /dev/null",
			    scratch, cli(), small), 0);
	ck_assert_int_eq(test_sh("printf 'struct s___b_long *p; int v = E_B___e;\n' > %s", prog[0]), 0);
	req = (struct bc_slim_request){ .sources = prog, .nr_sources = 1 };
	ck_assert_int_eq(bc_slim_names_read(&req, &names, &log), 0);
	same_limited(small, names, "struct s___b_long {");
	same_limited(small, names, "E_B___e = 1");
	bc_slim_names_free(names);
}
END_TEST

/* A BTF with one int and no struct pt_regs, written to path. */
static void write_archless(const char *path)
{
	struct btf *btf = btf__new_empty();
	struct blob raw;

	ck_assert_int_gt(btf__add_int(btf, "int", 4, BTF_INT_SIGNED), 0);
	raw = blob_from_libbpf(btf);
	blob_write_or_fail(&raw, path);
	blob_free(&raw);
	btf__free(btf);
}

/* header with args exits 2, says what (in stderr) and writes no -o file. */
static void refused(const char *args, const char *what)
{
	const char *out = in_scratch("out.h"), *err = in_scratch("err");

	ck_assert_int_eq(test_sh("%s header %s -o %s 2> %s", cli(), args, out, err), 2);
	ck_assert_msg(access(out, F_OK), "%s: wrote %s", args, out);
	ck_assert_msg(file_has(err, what), "%s: no '%s' in its message", args, what);
}

START_TEST(test_bad_input)
{
	char args[512];

	refused("--kernel /nonexistent/6.1.0-1-amd64.btf",
		"/nonexistent/6.1.0-1-amd64.btf: No such file or directory");
	refused("--kernel " K618 " --kernel /nonexistent.btf",
		"/nonexistent.btf: No such file or directory");
	ck_assert_int_eq(test_sh("echo junk > %s", in_scratch("6.1.0-9-amd64.btf")), 0);
	snprintf(args, sizeof(args), "--kernel " K618 " --kernel %s",
		 in_scratch("6.1.0-9-amd64.btf"));
	refused(args, in_scratch("6.1.0-9-amd64.btf"));
	write_archless(in_scratch("6.5.0-1-foo.btf"));
	snprintf(args, sizeof(args), "--kernel %s", in_scratch("6.5.0-1-foo.btf"));
	refused(args, "cannot tell its architecture");
	write_archless(in_scratch("vmlinux-junk.btf"));
	snprintf(args, sizeof(args), "--kernel %s", in_scratch("vmlinux-junk.btf"));
	refused(args, "has no version");
	refused("--kernel " K618 " --for /nonexistent/prog.bpf.c", "/nonexistent/prog.bpf.c");
	refused("--kernel " K618 " -I /nonexistent/include --for " FIXTURE,
		"/nonexistent/include: include directory (-I): No such file or directory");
	refused("--kernel " K618 " --for " FIXTURE " -I" FIXTURE,
		FIXTURE ": include directory (-I) is not a directory");
	refused("--kernel " K618 " -I " DATA, "-I " DATA " without --for");
	refused("", "expected --kernel");
	refused("--kernel " K618 " stray", "unexpected argument 'stray'");
}
END_TEST

/*
 * Small x86 kernels for --layout's copies: the old one's struct dev {
 * long a; long b; } (16 bytes) and enum mode declared only (no
 * enumerators: `enum mode;`); the new one's struct dev { long a; },
 * struct outer { struct inner i; } and then struct inner { struct dev d;
 * int x; } (12 bytes each), outer before inner in id order, and enum
 * mode { MODE_A = 1 } in struct uses_mode { enum mode m; }.
 */
static void write_nesting_kernel(const char *path, bool old)
{
	struct btf *btf = btf__new_empty();
	struct blob raw;
	int i_int, i_long, dev;

	i_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	i_long = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	ck_assert_int_gt(btf__add_struct(btf, "pt_regs", 8), 0);
	ck_assert_int_eq(btf__add_field(btf, "orig_ax", i_long, 0, 0), 0);
	dev = btf__add_struct(btf, "dev", old ? 16 : 8);
	ck_assert_int_gt(dev, 0);
	ck_assert_int_eq(btf__add_field(btf, "a", i_long, 0, 0), 0);
	if (old) {
		ck_assert_int_eq(btf__add_field(btf, "b", i_long, 64, 0), 0);
		ck_assert_int_gt(btf__add_enum(btf, "mode", 4), 0);
	} else {
		int mode = btf__add_enum(btf, "mode", 4);

		ck_assert_int_gt(mode, 0);
		ck_assert_int_eq(btf__add_enum_value(btf, "MODE_A", 1), 0);
		ck_assert_int_gt(btf__add_struct(btf, "uses_mode", 4), 0);
		ck_assert_int_eq(btf__add_field(btf, "m", mode, 0, 0), 0);
		/* outer refers forward to inner, the next id */
		ck_assert_int_gt(btf__add_struct(btf, "outer", 12), 0);
		ck_assert_int_eq(btf__add_field(btf, "i", dev + 4, 0, 0), 0);
		ck_assert_int_eq(btf__add_struct(btf, "inner", 12), dev + 4);
		ck_assert_int_eq(btf__add_field(btf, "d", dev, 0, 0), 0);
		ck_assert_int_eq(btf__add_field(btf, "x", i_int, 64, 0), 0);
	}
	raw = blob_from_libbpf(btf);
	blob_write_or_fail(&raw, path);
	blob_free(&raw);
	btf__free(btf);
}

/* The header with its first comment (the kernels, --layout) cut off. */
static void body_of(const char *header, const char *body)
{
	ck_assert_int_eq(test_sh("sed '1,/^ \\*\\//d' %s > %s", header, body), 0);
}

START_TEST(test_layout)
{
	const char *l = in_scratch("vmlinux.h"), *ar = in_scratch("k.bca");
	const char *x86 = in_scratch("x86.o"), *arm = in_scratch("arm64.o");
	unsigned long long v;

	ck_assert_int_eq(test_sh("%s header " ALL4 " --layout 6.1.0-56-amd64 -o %s",
			    cli(), l), 0);
	ck_assert(file_has(l, " *   x86, the types of 6.1.0-56-amd64 (--layout):\n"));
	ck_assert(file_has(l, " *   arm64, the types of 6.1.0-56-arm64 (--layout):\n"));
	/* 6.1's layout plainly: a member only the old kernels have */
	ck_assert(file_has(l, "struct fd {\n\tstruct file *file;\n\tunsigned int flags;\n};\n"));
	ck_assert(file_has(l, "struct io_fadvise {\n\tstruct file *file;\n\tu64 offset;\n"
			   "\tu32 len;\n\tu32 advice;\n};\n"));
	ck_assert(!file_has(l, "fd___flags_unsigned_int"));
	/* what only newer kernels have: flavors, named as by default */
	ck_assert(file_has(l, "struct fd___word_long_unsigned_int {\n\tlong unsigned int word;\n};\n"));
	ck_assert(file_has(l, "struct io_fadvise___len_u64 {\n\tu64 len;\n};\n"));
	ck_assert(file_has(l, "struct io_fadvise___len_u32 {\n\tu32 len;\n};\n"));
	ck_assert(file_has(l, "enum bpf_arg_type___ARG_PTR_TO_ARENA {"));

	/* a probe of 6.1's layout compiles for both and relocates on both */
	ck_assert_msg(!test_sh("clang -target bpf -O2 -g -D__TARGET_ARCH_x86 -I%s -c "
			  LAYOUT_FIXTURE " -o %s", scratch, x86),
		      "layout.bpf.c does not compile for x86");
	ck_assert_msg(!test_sh("clang -target bpf -O2 -g -D__TARGET_ARCH_arm64 -I%s -c "
			  LAYOUT_FIXTURE " -o %s", scratch, arm),
		      "layout.bpf.c does not compile for arm64");
	ck_assert(relo(x86, K61X, "byte_off", "struct fd", "flags", &v) && v == 8);
	ck_assert(!relo(x86, K618, "field_exists", "struct fd", "flags", &v) && v == 0);
	ck_assert(!relo(x86, K61X, "field_exists", "struct fd___word_long_unsigned_int",
			"word", &v) && v == 0);
	ck_assert(relo(x86, K618, "field_exists", "struct fd___word_long_unsigned_int",
		       "word", &v) && v == 1);
	ck_assert(relo(arm, K612A, "field_exists", "struct fd___word_long_unsigned_int",
		       "word", &v) && v == 1);
	ck_assert(relo(arm, K61A, "byte_off", "struct fd", "flags", &v) && v == 8);

	/* the same bytes again, in another order, from an archive, by glob */
	ck_assert_int_eq(test_sh("%s header " ALL4 " --layout 6.1.0-56-amd64 -o %s",
			    cli(), in_scratch("again.h")), 0);
	ck_assert(same_file(l, in_scratch("again.h")));
	ck_assert_int_eq(test_sh("%s header --layout 6.1.0-56-amd64 --kernel " K612A
			    " --kernel " K618 " --kernel " K61A " --kernel " K61X " -o %s",
			    cli(), in_scratch("order.h")), 0);
	ck_assert(same_file(l, in_scratch("order.h")));
	ck_assert_int_eq(test_sh("%s archive create %s " K618 " " K61A " " K612A " " K61X
			    " > /dev/null", cli(), ar), 0);
	ck_assert_int_eq(test_sh("%s header --kernel %s --layout 6.1.0-56-amd64 -o %s",
			    cli(), ar, in_scratch("ar.h")), 0);
	ck_assert(same_file(l, in_scratch("ar.h")));
	ck_assert_int_eq(test_sh("%s header " ALL4 " --layout '6.1.0-56-*' -o %s",
			    cli(), in_scratch("glob.h")), 0);
	ck_assert(same_file(l, in_scratch("glob.h")));

	/* the newest's layout is the default header, its comment aside */
	ck_assert_int_eq(test_sh("%s header " ALL4 " -o %s", cli(),
			    in_scratch("default.h")), 0);
	ck_assert(!same_file(l, in_scratch("default.h")));
	ck_assert_int_eq(test_sh("%s header " ALL4 " --layout 6.18.44-fc-v669 -o %s",
			    cli(), in_scratch("newest.h")), 0);
	body_of(in_scratch("default.h"), in_scratch("default.body"));
	body_of(in_scratch("newest.h"), in_scratch("newest.body"));
	ck_assert(same_file(in_scratch("default.body"), in_scratch("newest.body")));

	/* --check with --layout: current, then stale naming --layout */
	ck_assert_int_eq(test_sh("%s header " ALL4 " --layout 6.1.0-56-amd64 --check %s",
			    cli(), l), 0);
	ck_assert_int_eq(test_sh("%s header " ALL4 " --check %s > /dev/null", cli(), l), 1);
	ck_assert_int_eq(test_sh("sed -i 's/unsigned int flags;/int flags;/' %s", l), 0);
	ck_assert_int_eq(test_sh("%s header " ALL4 " --layout 6.1.0-56-amd64 --check %s > %s",
			    cli(), l, in_scratch("stale.out")), 1);
	ck_assert(file_has(in_scratch("stale.out"), "--layout 6.1.0-56-amd64`"));

	/*
	 * a copy holding a copy that grows after it: inner holds the old,
	 * larger dev (16 bytes, so inner 16), and outer grows with it
	 */
	write_nesting_kernel(in_scratch("6.1.0-1-amd64.btf"), true);
	write_nesting_kernel(in_scratch("6.18.0-1-amd64.btf"), false);
	ck_assert_int_eq(test_sh("%s header --kernel %s --kernel %s --layout 6.1.0-1-amd64 -o %s",
			    cli(), in_scratch("6.1.0-1-amd64.btf"),
			    in_scratch("6.18.0-1-amd64.btf"), in_scratch("nest.h")), 0);
	ck_assert(file_has(in_scratch("nest.h"), "struct inner {\n\tstruct dev d;\n\tint x;\n};\n"));
	ck_assert(file_has(in_scratch("nest.h"), "struct outer {\n\tstruct inner i;\n};\n"));
	/* an enum the old kernel only declares: the newer definition, whole */
	ck_assert(file_has(in_scratch("nest.h"), "enum mode {\n\tMODE_A = 1,\n};\n"));
	ck_assert(file_has(in_scratch("nest.h"), "struct uses_mode {\n\tenum mode m;\n};\n"));
	ck_assert_int_eq(test_sh("cd %s && printf '#include \"nest.h\"\\nstruct outer o; struct uses_mode u;\\n' > nest.c && "
			    "clang -target bpf -D__TARGET_ARCH_x86 -c nest.c -o nest.o", scratch), 0);

	/* a name the set has not: exit 2, named, with the names near it */
	refused(ALL4 " --layout 6.1.0-56", "--layout 6.1.0-56: no kernel of the set is named so; "
		"did you mean 6.1.0-56-amd64, 6.1.0-56-arm64");
	refused(ALL4 " --layout 5.10.0-1-amd64", "the set's kernels: 6.1.0-56-amd64, "
		"6.1.0-56-arm64, 6.12.117+deb12-arm64, 6.18.44-fc-v669");
	refused(ALL4 " --layout '*arm64'", "two kernels of arm64");
}
END_TEST

/*
 * Kernel files read on -j threads: the same header at -j1,
 * -j2 and -j4, and at -j3 with the --kernel arguments in another order.
 * --kernel NAME=FILE names a file whose name tells no version: the name
 * is the kernel's in the header (the same bytes as a file of that name);
 * an argument that exists is a path, '=' and all, and one whose part
 * before '=' has a '/' too. A NAME=FILE whose FILE is missing, whose
 * NAME has no version, or whose FILE is an archive of several kernels:
 * exit 2, a message saying it, no output.
 */
START_TEST(test_files)
{
	const char *a = in_scratch("j1.h");
	char args[1024];
	int j;

	ck_assert_int_eq(test_sh("%s header -j1 " ALL4 " -o %s", cli(), a), 0);
	for (j = 2; j <= 4; j += 2) {
		ck_assert_int_eq(test_sh("%s header -j%d " ALL4 " -o %s", cli(), j,
				    in_scratch("jn.h")), 0);
		ck_assert_msg(same_file(a, in_scratch("jn.h")), "-j1 and -j%d differ", j);
	}
	ck_assert_int_eq(test_sh("%s header --jobs 3 --kernel " K612A " --kernel " K61X
			    " --kernel " K61A " --kernel " K618 " -o %s", cli(),
			    in_scratch("j3.h")), 0);
	ck_assert_msg(same_file(a, in_scratch("j3.h")), "-j3 in another order differs");

	/* NAME=FILE: running.btf as 6.18.44-fc-v669, and under another name */
	ck_assert_int_eq(test_sh("cp " K618 " %s", in_scratch("running.btf")), 0);
	snprintf(args, sizeof(args), "--kernel " K61X " --kernel 6.18.44-fc-v669=%s"
		 " --kernel " K61A " --kernel " K612A, in_scratch("running.btf"));
	ck_assert_int_eq(test_sh("%s header -j2 %s -o %s", cli(), args,
			    in_scratch("named.h")), 0);
	ck_assert_msg(same_file(a, in_scratch("named.h")), "NAME=FILE differs from the file");
	ck_assert_int_eq(test_sh("%s header --kernel 6.18.45-running=%s -o %s", cli(),
			    in_scratch("running.btf"), in_scratch("other.h")), 0);
	ck_assert(file_has(in_scratch("other.h"), " *   x86, the types of 6.18.45-running:\n"));
	/* paths with '=': one that exists, one with a '/' before its '=' */
	ck_assert_int_eq(test_sh("mkdir %s && cp " K618 " %s", in_scratch("k=1"),
			    in_scratch("k=1/6.18.44-fc-v669.btf")), 0);
	ck_assert_int_eq(test_sh("%s header --kernel %s -o %s", cli(),
			    in_scratch("k=1/6.18.44-fc-v669.btf"), in_scratch("p1.h")), 0);
	ck_assert_int_eq(test_sh("cd %s && %s header --kernel k=1/6.18.44-fc-v669.btf -o p2.h",
			    scratch, cli()), 0);
	ck_assert_int_eq(test_sh("%s header --kernel " K618 " -o %s", cli(),
			    in_scratch("p0.h")), 0);
	ck_assert(same_file(in_scratch("p0.h"), in_scratch("p1.h")));
	ck_assert(same_file(in_scratch("p0.h"), in_scratch("p2.h")));

	/* bad NAME=FILE */
	refused("--kernel 6.18.45-running=/nonexistent/running.btf",
		"--kernel 6.18.45-running=/nonexistent/running.btf: NAME=FILE, and FILE /nonexistent/running.btf: No such file or directory");
	snprintf(args, sizeof(args), "--kernel running=%s", in_scratch("running.btf"));
	refused(args, "the kernel name 'running' has no version to order it by");
	ck_assert_int_eq(test_sh("%s archive create %s " K618 " " K61A " > /dev/null",
			    cli(), in_scratch("two.bca")), 0);
	snprintf(args, sizeof(args), "--kernel 6.18.45-x=%s", in_scratch("two.bca"));
	refused(args, "NAME=FILE names one kernel");
	/* NAME=ARCHIVE:NAME is one kernel, named anew */
	ck_assert_int_eq(test_sh("%s header --kernel '6.18.45-running=%s:6.18*' -o %s",
			    cli(), in_scratch("two.bca"), in_scratch("ar.h")), 0);
	ck_assert(same_file(in_scratch("other.h"), in_scratch("ar.h")));
	/* a bad file among them: the message -j1 gives, at -j4 too */
	ck_assert_int_eq(test_sh("echo junk > %s", in_scratch("6.1.0-9-amd64.btf")), 0);
	snprintf(args, sizeof(args), "-j4 " ALL4 " --kernel %s", in_scratch("6.1.0-9-amd64.btf"));
	refused(args, "6.1.0-9-amd64.btf: bad magic");
	/* -j: a count */
	refused("-j0 --kernel " K618, "-j '0': a number of threads");
}
END_TEST

/*
 * A copy of the kernel file in at out whose string section is laid out
 * otherwise: every string added in reverse order of the input's, then one
 * named struct's name again at the section's end (the same text at two
 * offsets), and the first anonymous struct or union, where there is one,
 * named by the zero byte that ends a string (an empty name at an offset
 * not 0). The types and their
 * names' text are the input's.
 */
static void write_restrung(const char *in, const char *out)
{
	struct btf *old = btf__parse_raw(in), *b = btf__new_empty();
	const char *strs, *dup_name = NULL;
	uint32_t i, n, size, str_len, nr_offs = 0, *offs, dup_id = 0, anon_id = 0;
	struct btf_header *h;
	const void *raw;
	uint8_t *data;
	FILE *f;

	ck_assert_ptr_nonnull(old);
	ck_assert_ptr_nonnull(b);
	raw = btf__raw_data(old, &size);
	h = (struct btf_header *)raw;
	strs = (const char *)raw + h->hdr_len + h->str_off;
	str_len = h->str_len;
	offs = calloc(str_len, sizeof(*offs));
	ck_assert_ptr_nonnull(offs);
	for (i = 1; i < str_len; i += strlen(strs + i) + 1)
		offs[nr_offs++] = i;
	while (nr_offs)
		ck_assert_int_ge(btf__add_str(b, strs + offs[--nr_offs]), 0);
	free(offs);
	n = btf__type_cnt(old);
	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(old, i);

		ck_assert_int_eq(btf__add_type(b, old, t), (int)i);
		if (!dup_id && btf_is_struct(t) && t->name_off) {
			dup_id = i;
			dup_name = btf__name_by_offset(old, t->name_off);
		}
		if (!anon_id && btf_is_composite(t) && !t->name_off)
			anon_id = i;
	}
	ck_assert(dup_id);	/* anon_id: not in every file (6.1 amd64's cut has none) */
	raw = btf__raw_data(b, &size);
	data = malloc(size + strlen(dup_name) + 1);
	ck_assert_ptr_nonnull(data);
	memcpy(data, raw, size);
	memcpy(data + size, dup_name, strlen(dup_name) + 1);
	h = (struct btf_header *)data;
	{
		uint8_t *types = data + h->hdr_len + h->type_off;
		const uint8_t *first = (const uint8_t *)btf__type_by_id(b, 1);
		struct btf_type *dup = (struct btf_type *)
			(types + ((const uint8_t *)btf__type_by_id(b, dup_id) - first));
		const char *s1 = (const char *)data + h->hdr_len + h->str_off + 1;

		dup->name_off = h->str_len;
		if (anon_id)	/* the end of the first string */
			((struct btf_type *)(types + ((const uint8_t *)
				btf__type_by_id(b, anon_id) - first)))->name_off =
				1 + strlen(s1);
	}
	h->str_len += strlen(dup_name) + 1;
	f = fopen(out, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fwrite(data, 1, size + strlen(dup_name) + 1, f),
			 size + strlen(dup_name) + 1);
	ck_assert_int_eq(fclose(f), 0);
	free(data);
	btf__free(b);
	btf__free(old);
}

/*
 * The header takes a kernel file's strings as read (header/hkernels.c):
 * only their text may count, never their offsets. The four kernels'
 * files, each with its string section laid out otherwise
 * (write_restrung), give the header of the files as they are.
 */
START_TEST(test_strings)
{
	const char *files[] = { K61X, K618, K61A, K612A };
	char args[2048] = "";
	size_t i, len = 0;

	ck_assert_int_eq(test_sh("%s header -j1 " ALL4 " -o %s", cli(),
			    in_scratch("as_read.h")), 0);
	ck_assert_int_eq(test_sh("mkdir %s", in_scratch("re")), 0);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char out[256];

		snprintf(out, sizeof(out), "%s/%s", in_scratch("re"),
			 strrchr(files[i], '/') + 1);
		write_restrung(files[i], out);
		len += snprintf(args + len, sizeof(args) - len, " --kernel %s", out);
	}
	ck_assert_int_eq(test_sh("%s header -j2%s -o %s", cli(), args,
			    in_scratch("restrung.h")), 0);
	ck_assert_msg(same_file(in_scratch("as_read.h"), in_scratch("restrung.h")),
		      "the strings laid out otherwise change the header");
}
END_TEST

/*
 * An older kernel with two struct t, two enum f and two kfuncs the
 * newest lacks, in the order given (swap: the second of each pair
 * first). The first struct t and enum f merged are copied whole, the
 * other's differences become flavors, and an enumerator the copy took
 * is renamed in the other: which is first shows in the header.
 */
static void write_twins_kernel(const char *path, bool swap)
{
	struct btf *btf = btf__new_empty();
	struct blob raw;
	int i_int, i_long, k, proto, func;

	i_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	i_long = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	for (k = 0; k < 2; k++) {
		bool second = (k == 1) != swap;

		ck_assert_int_gt(btf__add_struct(btf, "t", 16), 0);
		ck_assert_int_eq(btf__add_field(btf, "a", i_int, 0, 0), 0);
		ck_assert_int_eq(btf__add_field(btf, second ? "q" : "p",
						second ? i_long : i_int, 64, 0), 0);
		ck_assert_int_gt(btf__add_enum(btf, "f", 4), 0);
		ck_assert_int_eq(btf__add_enum_value(btf, "F_A", second ? 5 : 0), 0);
		ck_assert_int_eq(btf__add_enum_value(btf, second ? "F_C" : "F_B", 1), 0);
		proto = btf__add_func_proto(btf, second ? i_long : i_int);
		ck_assert_int_gt(proto, 0);
		func = btf__add_func(btf, second ? "kf_b" : "kf_a", BTF_FUNC_GLOBAL, proto);
		ck_assert_int_gt(func, 0);
		ck_assert_int_gt(btf__add_decl_tag(btf, "bpf_kfunc", func, -1), 0);
	}
	raw = blob_from_libbpf(btf);
	blob_write_or_fail(&raw, path);
	blob_free(&raw);
	btf__free(btf);
}

/*
 * A kernel gives the same header whatever the order of its types: as a
 * file in the order pahole wrote it (header merges an older kernel's
 * file as read, not sorted: hsynth.c, hdr_merge_older()), as the file
 * `btfcanon sort` wrote, and through an archive's view; the older
 * kernel written in both orders of its namesakes.
 */
START_TEST(test_file_order)
{
	char first[64] = "";
	int swap;

	for (swap = 0; swap < 2; swap++) {
		char d[16], h[3][32];
		int i;

		snprintf(d, sizeof(d), "o%d", swap);
		ck_assert_int_eq(test_sh("mkdir -p %s/raw %s/sorted", in_scratch(d),
				    in_scratch(d)), 0);
		write_small_kernel(in_scratch("new.btf"), true, false);
		ck_assert_int_eq(test_sh("cd %s && cp ../new.btf raw/6.3.0-1-amd64.btf && "
				    "cp ../new.btf sorted/6.3.0-1-amd64.btf",
				    in_scratch(d)), 0);
		write_twins_kernel(in_scratch("old.btf"), swap);
		ck_assert_int_eq(test_sh("cd %s && cp ../old.btf raw/6.2.0-1-amd64.btf && "
				    "%s sort raw/6.2.0-1-amd64.btf -o sorted/6.2.0-1-amd64.btf && "
				    "%s archive create k.bca raw/*.btf > /dev/null",
				    in_scratch(d), cli(), cli()), 0);
		for (i = 0; i < 3; i++)
			snprintf(h[i], sizeof(h[i]), "%s/%d.h", d, i);
		ck_assert_int_eq(test_sh("cd %s && %s header -j2 --kernel raw/6.3.0-1-amd64.btf "
				    "--kernel raw/6.2.0-1-amd64.btf -o %s", in_scratch(d), cli(),
				    in_scratch(h[0])), 0);
		ck_assert_int_eq(test_sh("cd %s && %s header -j1 --kernel sorted/6.2.0-1-amd64.btf "
				    "--kernel sorted/6.3.0-1-amd64.btf -o %s", in_scratch(d),
				    cli(), in_scratch(h[1])), 0);
		ck_assert_int_eq(test_sh("cd %s && %s header --kernel k.bca -o %s",
				    in_scratch(d), cli(), in_scratch(h[2])), 0);
		ck_assert(file_has(in_scratch(h[0]), "enum f___"));
		ck_assert(file_has(in_scratch(h[0]), "struct t___"));
		ck_assert_msg(same_file(in_scratch(h[0]), in_scratch(h[1])),
			      "order %d: the file as written and sorted differ", swap);
		ck_assert_msg(same_file(in_scratch(h[0]), in_scratch(h[2])),
			      "order %d: the file and its archive differ", swap);
		if (!swap)
			snprintf(first, sizeof(first), "%s", in_scratch(h[0]));
		else
			ck_assert_msg(same_file(first, in_scratch(h[0])),
				      "the order of the file's types changes the header");
	}
}
END_TEST

Suite *header_suite(void)
{
	Suite *s = suite_create("header");
	const char *names[] = { "compile", "libbpf", "check", "order", "adding",
				"bad_input", "slim", "newer", "older", "includes", "view",
				"limited", "files", "layout", "modules", "strings",
				"file_order" };
	const TTest *tests[] = { test_compile, test_libbpf, test_check, test_order,
				 test_adding, test_bad_input, test_slim, test_newer,
				 test_older, test_includes, test_view, test_limited,
				 test_files, test_layout, test_modules, test_strings,
				 test_file_order };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		TCase *tc = tcase_create(names[i]);

		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 120);
		tcase_add_test(tc, tests[i]);
		suite_add_tcase(s, tc);
	}
	return s;
}
