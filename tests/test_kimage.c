// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel image and package readers (archive/kimage.c, package.c, decompress.c), below the command line
 * (tests/images.sh covers every compression and form end to end):
 *
 *	names		bc_kernel_default_name() on image, BTF and package paths
 *	detect		each compression's magic, the zboot names
 *	limits		a stream that decompresses past the limit is refused,
 *			truncated ones fail at the place they end
 *	real		Debian's packages (tools/setup-debian.sh fetches them
 *			into BTFCANON_IMAGE_CACHE, default
 *			/var/cache/btfcanon-tests): the BTF read from each is
 *			byte for byte the .BTF section of the same kernel's debug
 *			vmlinux where that is installed; the time to read shown.
 *			An absent package skips with a message.
 *	libarchive	the dlopen()'d libarchive (archive/libarchive.c): the
 *			process's table loads and works; a soname that is
 *			absent, or a library without libarchive's functions,
 *			fails with the loader's reason; a package read
 *			without libarchive names the package and the reason.
 *			(tests/cli.sh: the binaries do not link it and read a
 *			.deb all the same.)
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "suites.h"
#include "../archive/decompress.h"
#include "../archive/kimage.h"
#include "../archive/libarchive.h"
#include "../archive/package.h"
#include "../archive/btf_file.h"
#include "../archive/kernel_set.h"
#include "testutil.h"

static void quiet(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)level;
	if (ctx)
		snprintf(ctx, 512, "%s", msg);
}

static const char *image_cache(void)
{
	const char *dir = getenv("BTFCANON_IMAGE_CACHE");

	return dir && *dir ? dir : "/var/cache/btfcanon-tests";
}

/* The cached package whose name starts with prefix; NULL when absent. */
static char *cached_package(const char *prefix)
{
	char pattern[512], *found = NULL;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/%s_*.deb", image_cache(), prefix);
	if (!glob(pattern, 0, NULL, &g) && g.gl_pathc)
		found = strdup(g.gl_pathv[0]);
	globfree(&g);
	return found;
}

START_TEST(names)
{
	static const struct { const char *path, *name; } cases[] = {
		{ "/boot/vmlinuz-6.1.0-56-cloud-amd64", "6.1.0-56-cloud-amd64" },
		{ "vmlinuz-6.12.117+deb12-arm64", "6.12.117+deb12-arm64" },
		{ "/usr/lib/debug/boot/vmlinux-6.1.0-56-cloud-amd64",
		  "6.1.0-56-cloud-amd64" },
		{ "6.1.0-56-cloud-amd64.btf", "6.1.0-56-cloud-amd64" },
		{ "dir/6.1.0-56-cloud-amd64.btf", "6.1.0-56-cloud-amd64" },
		{ "bzImage-5.15.0", "5.15.0" },
		{ "vmlinuz-", "vmlinuz-" },
		{ "kernel.bin", "kernel.bin" },
		/* one compressed stream of BTF, or a tar of it (BTFHub) */
		{ "centos/8/aarch64/4.18.0-147.5.1.el8_1.aarch64.btf.tar.xz",
		  "4.18.0-147.5.1.el8_1.aarch64" },
		{ "5.4.0-1029-aws.btf.tar.gz", "5.4.0-1029-aws" },
		{ "6.1.0-56-cloud-amd64.btf.xz", "6.1.0-56-cloud-amd64" },
		{ "6.1.0-56-cloud-amd64.btf.gz", "6.1.0-56-cloud-amd64" },
		{ "6.1.0-56-cloud-amd64.btf.zst", "6.1.0-56-cloud-amd64" },
		{ "6.1.0-56-cloud-amd64.btf.bz2", "6.1.0-56-cloud-amd64" },
		{ "6.1.0-56-cloud-amd64.btf.lzma", "6.1.0-56-cloud-amd64" },
		{ "6.1.0-56-cloud-amd64.btf.lz4", "6.1.0-56-cloud-amd64" },
		{ "6.1.0-56-cloud-amd64.btf.lzo", "6.1.0-56-cloud-amd64" },
		{ "6.1.0-56-cloud-amd64.btf.tar", "6.1.0-56-cloud-amd64" },
		{ "6.1.0-56-cloud-amd64.tar.zst", "6.1.0-56-cloud-amd64" },
		{ "vmlinux-6.1.0-56-cloud-amd64.xz", "6.1.0-56-cloud-amd64" },
		{ "Image.gz", "Image" },
		/* one compression, one .tar, one .btf; never the whole name */
		{ "k.btf.xz.gz", "k.btf.xz" },
		{ ".btf.tar.xz", ".btf" },
		{ ".xz", ".xz" },
	};
	char msg[512] = "", *name, *deb;
	struct bc_log log = { .fn = quiet, .ctx = msg };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(bc_kernel_default_name(cases[i].path, &name, &log), 0);
		ck_assert_msg(!strcmp(name, cases[i].name), "%s: got %s, want %s",
			      cases[i].path, name, cases[i].name);
		free(name);
	}
	/* a package: from its member's name, not the file's */
	deb = cached_package("linux-image-6.1.0-56-cloud-amd64");
	if (!deb) {
		fprintf(stderr, "kimage names: linux-image-6.1.0-56-cloud-amd64 not in %s: package case skipped (tools/setup-debian.sh)\n",
			image_cache());
		return;
	}
	ck_assert_int_eq(bc_kernel_default_name(deb, &name, &log), 0);
	ck_assert_str_eq(name, "6.1.0-56-cloud-amd64");
	free(name);
	free(deb);
}
END_TEST

START_TEST(detect)
{
	static const struct { const char *magic; size_t len; enum bc_comp comp; } magics[] = {
		{ "\x1f\x8b\x08\x00", 4, BC_COMP_GZIP },
		{ "BZh9", 4, BC_COMP_BZIP2 },
		{ "\x5d\x00\x00\x00\x04\xff\xff\xff\xff\xff\xff\xff\xff", 13, BC_COMP_LZMA },
		{ "\xfd" "7zXZ\x00\x00", 7, BC_COMP_XZ },
		{ "\x89LZO\x00\x0d\x0a\x1a\x0a", 9, BC_COMP_LZO },
		{ "\x02\x21\x4c\x18", 4, BC_COMP_LZ4 },
		{ "\x28\xb5\x2f\xfd", 4, BC_COMP_ZSTD },
		{ "\x9f\xeb\x01\x00", 4, BC_COMP_NONE },
		{ "\x7f" "ELF", 4, BC_COMP_NONE },
	};
	size_t i;

	for (i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		ck_assert_msg(bc_comp_detect((const uint8_t *)magics[i].magic,
					     magics[i].len) == magics[i].comp,
			      "magic %zu: want %s", i, bc_comp_name(magics[i].comp));
	ck_assert_int_eq(bc_comp_from_zboot_name("xzkern"), BC_COMP_XZ);
	ck_assert_int_eq(bc_comp_from_zboot_name("zstd22"), BC_COMP_ZSTD);
	ck_assert_int_eq(bc_comp_from_zboot_name("gzip"), BC_COMP_GZIP);
	ck_assert_int_eq(bc_comp_from_zboot_name("brotli"), BC_COMP_NONE);
	/* raw BTF and ELF are btf_file.c's to read, not an image */
	ck_assert(!bc_kimage_detect((const uint8_t *)"\x9f\xeb\x01\x00", 4));
	ck_assert(!bc_kimage_detect((const uint8_t *)"\x7f" "ELF", 4));
}
END_TEST

/* 1 MiB of zeros as a gzip stream, through zlib's own compressor. */
static uint8_t *gzip_zeros(size_t *len)
{
	static uint8_t zeros[1 << 20];
	uint8_t *out = malloc(1 << 16);
	z_stream z;

	memset(&z, 0, sizeof(z));
	ck_assert(out);
	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = zeros;
	z.avail_in = sizeof(zeros);
	z.next_out = out;
	z.avail_out = 1 << 16;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*len = z.total_out;
	deflateEnd(&z);
	return out;
}

START_TEST(limits)
{
	struct bc_comp_error why;
	uint8_t *gz, *out;
	size_t gz_len, out_len;

	gz = gzip_zeros(&gz_len);
	ck_assert_int_eq(bc_decompress(BC_COMP_GZIP, gz, gz_len, 0, 1 << 20,
				       &out, &out_len, &why), 0);
	ck_assert_uint_eq(out_len, 1 << 20);
	free(out);
	/* a bomb: more out than allowed */
	ck_assert_int_eq(bc_decompress(BC_COMP_GZIP, gz, gz_len, 0, 4096, &out,
				       &out_len, &why), -EFBIG);
	ck_assert_ptr_null(out);
	/* a lying size hint changes nothing */
	ck_assert_int_eq(bc_decompress(BC_COMP_GZIP, gz, gz_len, 16, 1 << 20,
				       &out, &out_len, &why), 0);
	ck_assert_uint_eq(out_len, 1 << 20);
	free(out);
	/* cut short: says where */
	ck_assert_int_eq(bc_decompress(BC_COMP_GZIP, gz, gz_len / 2, 0, 1 << 20,
				       &out, &out_len, &why), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why.why, "truncated"));
	ck_assert_uint_eq(why.at, gz_len / 2);
	free(gz);
}
END_TEST

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const struct real_image {
	const char *package;	/* prefix in the cache */
	const char *form;
	const char *debug;	/* the same kernel's debug vmlinux, or NULL */
} real_images[] = {
	{ "linux-image-6.1.0-56-cloud-amd64", "bzImage, lz4",
	  "/usr/lib/debug/boot/vmlinux-6.1.0-56-cloud-amd64" },
	{ "linux-image-6.1.0-56-amd64", "bzImage, xz", NULL },
	{ "linux-image-6.12.117+deb12-cloud-amd64", "bzImage, zstd",
	  "/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64" },
	{ "linux-image-6.1.0-56-cloud-arm64", "arm64 Image", NULL },
};

START_TEST(real)
{
	const struct real_image *r = &real_images[_i];
	char msg[512] = "", *deb = cached_package(r->package);
	struct bc_log log = { .fn = quiet, .ctx = msg };
	enum bc_file_format format;
	struct bc_blob got, want;
	struct bc_btf *btf;
	double t0;

	if (!deb) {
		fprintf(stderr, "kimage real: %s not in %s: skipped (tools/setup-debian.sh fetches it)\n",
			r->package, image_cache());
		return;
	}
	t0 = now();
	ck_assert_msg(!bc_file_read_btf_blob(deb, &got, &format, &log),
		      "%s: %s", deb, msg);
	fprintf(stderr, "kimage real: %s (%s): BTF (%zu bytes) read in %.3f s\n",
		r->package, r->form, got.size, now() - t0);
	ck_assert_int_eq(format, BC_FILE_IMAGE);
	if (r->debug && !access(r->debug, R_OK)) {
		ck_assert_msg(!bc_file_read_btf_blob(r->debug, &want, &format, &log),
			      "%s: %s", r->debug, msg);
		ck_assert_msg(got.size == want.size &&
			      !memcmp(got.data, want.data, got.size),
			      "%s: BTF differs from %s's .BTF", deb, r->debug);
		bc_blob_release(&want);
	}
	/* and it parses */
	ck_assert_msg(!bc_btf_parse_blob(&got, NULL, NULL, deb, &log, &btf),
		      "%s: %s", deb, msg);
	ck_assert_uint_gt(btf->nr_types, 50000);
	bc_btf_free(btf);
	free(deb);
}
END_TEST

/* ---- kernels with their modules (archive/kernel_set.h) -------------- */

/* Every warning, one per line. */
static void collect(void *ctx, enum bc_log_level level, const char *msg)
{
	size_t len = strlen(ctx);

	(void)level;
	snprintf((char *)ctx + len, 4096 - len, "%s\n", msg);
}

static const char *const kmod_sources[] = {
	"k.deb", "k.rpm", "root", "root/lib/modules/9.9.9-test",
};

/* module i of ks is named name, with the types of the split BTF file */
static void assert_module(const struct bc_kernel_set *ks, uint32_t i,
			  const char *name, const char *dir, const char *file)
{
	enum bc_file_format format;
	struct bc_btf *want;
	char path[512];

	ck_assert_uint_lt(i, ks->nr_mods);
	ck_assert_str_eq(ks->mods[i].name, name);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	ck_assert_int_eq(bc_file_load_btf(path, ks->input.btf, &want, &format, NULL), 0);
	ck_assert_msg(want->size == ks->mods[i].btf->size &&
		      !memcmp(want->data, ks->mods[i].btf->data, want->size),
		      "%s: module %s's BTF differs from %s", ks->path, name, file);
	bc_btf_free(want);
}

/*
 * A package (.deb, .rpm), an unpacked one and its modules tree give one set: the
 * kernel, its four modules (plain, xz, zstd, gzip; '-' read as '_'), the
 * module without .BTF counted, the two bad ones left out with a warning
 * naming each, in name order, whatever the number of threads.
 */
START_TEST(kmod_sources_case)
{
	char *dir = test_kmod_fixture();
	char path[512], msgs[4096] = "", msgs1[4096] = "";
	struct bc_log log = { .fn = collect, .ctx = msgs };
	struct bc_log log1 = { .fn = collect, .ctx = msgs1 };
	struct bc_kernel_set_opts one = { .jobs = 1 }, four = { .jobs = 4 };
	struct bc_kernel_set ks, ks1;
	uint32_t i;

	snprintf(path, sizeof(path), "%s/%s", dir, kmod_sources[_i]);
	ck_assert_msg(!bc_kernel_set_read(path, &four, &ks, &log), "%s: %s",
		      path, msgs);
	ck_assert(ks.has_modules);
	ck_assert_uint_eq(ks.input.btf->nr_types, 62);
	ck_assert_uint_eq(ks.nr_mods, 4);
	assert_module(&ks, 0, "mod_a", dir, "mod_a.btf");
	assert_module(&ks, 1, "mod_b", dir, "mod_b.btf");
	assert_module(&ks, 2, "mod_g", dir, "mod_b.btf");
	assert_module(&ks, 3, "mod_z", dir, "mod_a.btf");
	ck_assert_uint_eq(ks.nr_no_btf, 1);
	ck_assert_uint_eq(ks.nr_skipped, 2);
	ck_assert_msg(strstr(msgs, "bad.ko.xz: xz stream: truncated") &&
		      strstr(msgs, "module bad left out\n") &&
		      strstr(msgs, "badbtf.ko: ") &&
		      strstr(msgs, "module badbtf left out\n") &&
		      strstr(msgs, "bad left out") < strstr(msgs, "badbtf left out"),
		      "%s: warnings: %s", path, msgs);
	/* -j1: the same modules, the same words */
	ck_assert_int_eq(bc_kernel_set_read(path, &one, &ks1, &log1), 0);
	ck_assert_str_eq(msgs, msgs1);
	ck_assert_uint_eq(ks1.nr_mods, ks.nr_mods);
	for (i = 0; i < ks.nr_mods; i++)
		ck_assert_msg(ks1.mods[i].btf->size == ks.mods[i].btf->size &&
			      !memcmp(ks1.mods[i].btf->data, ks.mods[i].btf->data,
				      ks.mods[i].btf->size), "-j1 and -j4 differ");
	bc_kernel_set_deinit(&ks1);
	bc_kernel_set_deinit(&ks);
	free(dir);
}
END_TEST

/*
 * /sys/kernel/btf's layout: vmlinux and split BTF files (".btf" dropped
 * from a name); a bare file: vmlinux alone, no modules to be had; a
 * directory that is none of these: refused, naming it.
 */
START_TEST(kmod_btf_dir)
{
	char *dir = test_kmod_fixture();
	char path[512], msgs[4096] = "";
	struct bc_log log = { .fn = collect, .ctx = msgs };
	struct bc_kernel_set ks;

	snprintf(path, sizeof(path), "%s/btfdir", dir);
	ck_assert_msg(!bc_kernel_set_read(path, NULL, &ks, &log), "%s", msgs);
	ck_assert(ks.has_modules);
	ck_assert_uint_eq(ks.nr_mods, 2);
	assert_module(&ks, 0, "mod_a", dir, "mod_a.btf");
	assert_module(&ks, 1, "mod_b", dir, "mod_b.btf");
	ck_assert_str_eq(msgs, "");
	bc_kernel_set_deinit(&ks);

	snprintf(path, sizeof(path), "%s/a.btf", dir);
	ck_assert_int_eq(bc_kernel_set_read(path, NULL, &ks, &log), 0);
	ck_assert(!ks.has_modules);
	ck_assert_uint_eq(ks.nr_mods, 0);
	ck_assert_uint_eq(ks.input.btf->nr_types, 62);
	bc_kernel_set_deinit(&ks);

	snprintf(path, sizeof(path), "%s/root/boot", dir);
	ck_assert_int_eq(bc_kernel_set_read(path, NULL, &ks, &log), -ENOENT);
	ck_assert_msg(strstr(msgs, path) && strstr(msgs, "needs the kernel's as vmlinux"),
		      "%s", msgs);
	free(dir);
}
END_TEST

/*
 * dump --module: the package's vmlinux and the modules named (a glob
 * too) as one BTF; without it, vmlinux alone; a module it lacks and a
 * kernel without modules are errors naming the input.
 */
START_TEST(kmod_dump)
{
	char *dir = test_kmod_fixture();
	const char *cli = getenv("BTFCANON");
	char out[512], err[512];
	struct blob text;

	snprintf(out, sizeof(out), "%s/dump.%d.h", "/tmp", (int)getpid());
	snprintf(err, sizeof(err), "%s/dump.%d.err", "/tmp", (int)getpid());
	ck_assert_int_eq(test_sh("%s dump -f c --module mod_a --module 'mod_[bg]' %s/k.deb > %s",
				 cli, dir, out), 0);
	text = read_file(out);
	ck_assert_msg(text.data && memmem(text.data, text.size, "struct dep_modstat {", 20) &&
		      memmem(text.data, text.size, "struct dep_modamb {", 19) &&
		      memmem(text.data, text.size, "struct dep_modamb___", 20),
		      "module types missing from dump --module");
	blob_free(&text);
	ck_assert_int_eq(test_sh("%s dump -f c %s/k.deb > %s", cli, dir, out), 0);
	text = read_file(out);
	ck_assert_msg(text.data && !memmem(text.data, text.size, "dep_modstat", 11),
		      "module types without --module");
	blob_free(&text);
	ck_assert_int_eq(test_sh("%s dump -f c --module nosuch %s/k.deb > %s 2> %s",
				 cli, dir, out, err), 2);
	text = read_file(err);
	ck_assert_msg(text.data && memmem(text.data, text.size, "k.deb: no module nosuch in it", 29),
		      "%.*s", (int)text.size, text.data ? (char *)text.data : "");
	blob_free(&text);
	ck_assert_int_eq(test_sh("%s dump -f c --module mod_a %s/a.btf > %s 2> %s",
				 cli, dir, out, err), 2);
	text = read_file(err);
	ck_assert_msg(text.data && memmem(text.data, text.size, "a kernel without its modules", 28),
		      "%.*s", (int)text.size, text.data ? (char *)text.data : "");
	blob_free(&text);
	unlink(out);
	unlink(err);
	free(dir);
}
END_TEST

/* Module names as the kernel gives them. */
START_TEST(kmod_names)
{
	static const char *const names[][2] = {
		{ "nf_conntrack.ko.xz", "nf_conntrack" },
		{ "lib/modules/6.1/kernel/sound/snd-hda-core.ko", "snd_hda_core" },
		{ "xfs.ko.zst", "xfs" },
		{ "a-b.ko.gz", "a_b" },
		{ "vmlinux", NULL }, { ".ko", NULL }, { "x.ko.bz2", NULL },
		{ "modules.dep", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *got = bc_kmod_name(names[i][0]);

		if (names[i][1])
			ck_assert_str_eq(got, names[i][1]);
		else
			ck_assert_ptr_null(got);
		free(got);
	}
}
END_TEST

/*
 * Debian's 6.1 cloud kernel with its 1,121 plain .ko modules: every one
 * read, none left out, xfs and nf_conntrack among them.
 */
START_TEST(kmod_real)
{
	char msgs[4096] = "", *deb = cached_package("linux-image-6.1.0-56-cloud-amd64");
	struct bc_log log = { .fn = collect, .ctx = msgs };
	struct bc_kernel_set ks;
	bool xfs = false, ct = false;
	uint32_t i;
	double t0;

	if (!deb) {
		fprintf(stderr, "kimage modules: linux-image-6.1.0-56-cloud-amd64 not in %s: skipped\n",
			image_cache());
		return;
	}
	t0 = now();
	ck_assert_msg(!bc_kernel_set_read(deb, NULL, &ks, &log), "%s", msgs);
	fprintf(stderr, "kimage modules: %s: %u modules read in %.3f s\n", deb,
		ks.nr_mods, now() - t0);
	ck_assert_str_eq(msgs, "");
	ck_assert_uint_eq(ks.source, BC_KSET_PACKAGE);
	ck_assert_uint_ge(ks.nr_mods, 1100);
	ck_assert_uint_eq(ks.nr_skipped, 0);
	for (i = 0; i < ks.nr_mods; i++) {
		xfs |= !strcmp(ks.mods[i].name, "xfs");
		ct |= !strcmp(ks.mods[i].name, "nf_conntrack");
		ck_assert_uint_gt(ks.mods[i].btf->start_id, ks.input.btf->nr_types);
		if (i)
			ck_assert_int_lt(strcmp(ks.mods[i - 1].name, ks.mods[i].name), 0);
	}
	ck_assert(xfs && ct);
	bc_kernel_set_deinit(&ks);
	free(deb);
}
END_TEST

/* path gets size bytes of head, then zeros */
static void write_head(const char *path, const void *head, size_t len)
{
	uint8_t buf[512] = { 0 };
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	memcpy(buf, head, len);
	ck_assert_uint_eq(fwrite(buf, 1, sizeof(buf), f), sizeof(buf));
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(libarchive_load)
{
	static const uint8_t rpm_lead[4] = { 0xed, 0xab, 0xee, 0xdb };
	static const char deb_head[] = "!<arch>\ndebian-binary   ";
	char msg[512] = "", want[1024], dir[] = "/tmp/btfcanon-kimage.XXXXXX";
	char deb[64], rpm[64];
	struct bc_log log = { .fn = quiet, .ctx = msg };
	const struct bc_libarchive *la = bc_libarchive();
	struct bc_libarchive absent, not_libarchive;
	struct archive *a;
	uint8_t *image = (uint8_t *)"";
	size_t image_size = 1;
	char *member = "";

	/* the process's: loaded, and the same table every time */
	ck_assert_msg(la->handle, "%s", la->error);
	ck_assert_ptr_eq(bc_libarchive(), la);
	a = la->archive_read_new();
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(la->archive_read_support_format_ar(a), ARCHIVE_OK);
	ck_assert_int_eq(la->archive_read_free(a), ARCHIVE_OK);

	/* dlopen() fails: the loader's reason names the soname */
	ck_assert_int_eq(bc_libarchive_open(&absent, "libbtfcanon-absent.so.13"),
			 -ELIBACC);
	ck_assert_ptr_null(absent.handle);
	ck_assert_msg(strstr(absent.error, "libbtfcanon-absent.so.13"), "%s",
		      absent.error);
	bc_libarchive_close(&absent);

	/* dlsym() fails: zlib has none of libarchive's functions */
	ck_assert_int_eq(bc_libarchive_open(&not_libarchive, "libz.so.1"),
			 -ELIBACC);
	ck_assert_ptr_null(not_libarchive.handle);
	ck_assert_msg(strstr(not_libarchive.error, "archive_read_new"), "%s",
		      not_libarchive.error);

	/* a package read without it: one message, the package named */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(deb, sizeof(deb), "%s/k.deb", dir);
	snprintf(rpm, sizeof(rpm), "%s/k.rpm", dir);
	write_head(deb, deb_head, sizeof(deb_head) - 1);
	write_head(rpm, rpm_lead, sizeof(rpm_lead));
	ck_assert_int_eq(bc_package_read_kernel_la(&absent, deb, 1 << 20, &member,
						   &image, &image_size, &log),
			 -ELIBACC);
	ck_assert_ptr_null(member);
	ck_assert_ptr_null(image);
	ck_assert_uint_eq(image_size, 0);
	snprintf(want, sizeof(want),
		 "%s: reading a .deb needs libarchive.so.13 (Debian: libarchive13): %s",
		 deb, absent.error);
	ck_assert_str_eq(msg, want);
	ck_assert_int_eq(bc_package_read_kernel_la(&not_libarchive, rpm, 0,
						   &member, NULL, NULL, &log),
			 -ELIBACC);
	snprintf(want, sizeof(want),
		 "%s: reading an .rpm needs libarchive.so.13 (Debian: libarchive13): %s",
		 rpm, not_libarchive.error);
	ck_assert_str_eq(msg, want);
	unlink(deb);
	unlink(rpm);
	rmdir(dir);
}
END_TEST

Suite *kimage_suite(void)
{
	Suite *s = suite_create("kimage");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	tc = tcase_create("detect");
	tcase_add_test(tc, detect);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_test(tc, limits);
	suite_add_tcase(s, tc);
	tc = tcase_create("real");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, real, 0,
			    sizeof(real_images) / sizeof(real_images[0]));
	suite_add_tcase(s, tc);
	tc = tcase_create("libarchive");
	tcase_add_test(tc, libarchive_load);
	suite_add_tcase(s, tc);
	tc = tcase_create("modules");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, kmod_names);
	tcase_add_loop_test(tc, kmod_sources_case, 0,
			    sizeof(kmod_sources) / sizeof(kmod_sources[0]));
	tcase_add_test(tc, kmod_btf_dir);
	tcase_add_test(tc, kmod_dump);
	tcase_add_test(tc, kmod_real);
	suite_add_tcase(s, tc);
	return s;
}
