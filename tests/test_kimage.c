// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel image and package readers (archive/kimage.c, package.c, decompress.c), below the command line
 * (tests/images.sh covers every compression and form end to end):
 *
 *	names		bc_kernel_default_name() on image, BTF and package paths
 *	detect		each compression's magic, the zboot names
 *	limits		a stream that decompresses past the limit is refused,
 *			truncated ones fail at the place they end
 *	prefix		a raw Image read as its bytes arrive
 *			(bc_kimage_prefix_enough): decided exactly where no
 *			larger blob can start any more, never on a smaller
 *			blob before the kernel's, not before a larger one
 *			after it, not while a header waits for its bytes; on
 *			random images in random pieces the prefix gives the
 *			blob the whole image gives
 *	real		Debian's packages (tools/setup-debian.sh fetches them
 *			into BTFCANON_IMAGE_CACHE, default
 *			/var/cache/btfcanon-tests): the BTF read from each is
 *			byte for byte the .BTF section of the same kernel's debug
 *			vmlinux where that is installed; the time to read shown.
 *			An absent package skips with a message.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <linux/btf.h>

#include "suites.h"
#include "../archive/decompress.h"
#include "../archive/kimage.h"
#include "../sort/btf_file.h"

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
	/* raw BTF and ELF are sort/'s to read, not an image */
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

/* A raw arm64 Image of size bytes: the header, then filler with no magic. */
static uint8_t *raw_image(size_t size)
{
	uint8_t *d = malloc(size);
	size_t i;

	ck_assert(d && size >= 64);
	for (i = 0; i < size; i++)
		d[i] = (i * 131 + 7) % 0x9e;	/* 0x9f never appears */
	memset(d, 0, 64);
	memcpy(d + 56, "ARM\x64", 4);
	return d;
}

/*
 * A well-formed BTF blob of len bytes at d + at: a 24-byte header, no
 * types, a string section of NULs. Returns at.
 */
static size_t put_blob(uint8_t *d, size_t at, size_t len)
{
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(h), .str_len = len - sizeof(h),
	};

	memcpy(d + at, &h, sizeof(h));
	memset(d + at + sizeof(h), 0, len - sizeof(h));
	return at;
}

/* The prefix that pieces of piece bytes are decided at (size: never). */
static size_t decided_at(const uint8_t *d, size_t size, size_t piece)
{
	struct bc_kimage_prefix prefix = { 0 };
	size_t avail = 0;

	while (avail < size) {
		avail = size - avail < piece ? size : avail + piece;
		if (bc_kimage_prefix_enough(&prefix, d, avail, size))
			return avail;
	}
	return size;
}

/* The blob found in d[0..len) by the reader: its offset in d. */
static size_t found_at(const uint8_t *d, size_t len, size_t *blob_len)
{
	struct bc_log log = { .fn = quiet };
	struct bc_blob blob;
	size_t off;

	ck_assert_int_eq(bc_kimage_read_btf("img", d, len, 1 << 20, &blob, &log),
			 0);
	*blob_len = blob.size;
	off = (size_t)(memmem(d, len, blob.data, blob.size) - (void *)d);
	bc_blob_release(&blob);
	return off;
}

START_TEST(prefix)
{
	enum { SIZE = 100000 };
	uint8_t *d = raw_image(SIZE);
	size_t at, len;

	/* decoy (100 bytes) then the kernel's (20000) at 30000: decided when
	 * the scan reaches 100000 - 20000 (and the 3 bytes a magic needs) */
	put_blob(d, 1000, 100);
	put_blob(d, 30000, 20000);
	ck_assert_uint_eq(decided_at(d, SIZE, 1), SIZE - 20000 + 3);
	ck_assert_uint_eq(decided_at(d, SIZE, 4096), 81920);
	ck_assert_uint_eq(found_at(d, SIZE - 20000 + 3, &len), 30000);
	ck_assert_uint_eq(len, 20000);

	/* a larger blob late: decided on it, and it is the one found */
	at = put_blob(d, SIZE - 30000, 25000);
	ck_assert_uint_eq(decided_at(d, SIZE, 1), SIZE - 5000);
	ck_assert_uint_eq(found_at(d, SIZE, &len), at);
	ck_assert_uint_eq(found_at(d, decided_at(d, SIZE, 777), &len), at);
	ck_assert_uint_eq(len, 25000);

	/* a magic after the kernel's whose header claims bytes up to the
	 * end: the scan waits for them (then finds it ill-formed) */
	memset(d + 64, 0x11, SIZE - 64);
	put_blob(d, 30000, 20000);
	put_blob(d, 60000, SIZE - 60000);
	d[SIZE - 1] = 1;	/* its string section does not end in a NUL */
	ck_assert_uint_eq(decided_at(d, SIZE, 1), SIZE);
	ck_assert_uint_eq(found_at(d, SIZE, &len), 30000);
	free(d);

	/* not a raw Image (an ELF file, a bzImage): only ever whole */
	d = raw_image(SIZE);
	memset(d + 56, 0, 4);
	memcpy(d, "\x7f" "ELF", 4);
	put_blob(d, 1000, SIZE - 2000);
	ck_assert_uint_eq(decided_at(d, SIZE, 1), SIZE);
	free(d);
}
END_TEST

/*
 * Random Images: blobs of random sizes at random places (some
 * overlapping, some cut by the end, some ill-formed), fed in random
 * pieces; where the prefix is decided, the reader finds in it the blob it
 * finds in the whole image.
 */
START_TEST(prefix_random)
{
	unsigned int seed = 21;
	int round;

	for (round = 0; round < 400; round++) {
		size_t size = 64 + rand_r(&seed) % 20000, avail, whole_len, len;
		uint8_t *d = raw_image(size);
		int blobs = rand_r(&seed) % 5, i;
		struct bc_log log = { .fn = quiet };
		struct bc_blob b;

		for (i = 0; i < blobs; i++) {
			size_t at = 64 + rand_r(&seed) % (size - 64);
			size_t blen = 25 + rand_r(&seed) % 8000;

			if (at + blen > size)
				blen = size - at;
			if (blen < 25) {
				if (at + 4 <= size)
					memcpy(d + at, "\x9f\xeb\x01\x00", 4);
				continue;
			}
			put_blob(d, at, blen);
			if (rand_r(&seed) % 4 == 0)	/* ill-formed */
				d[at + blen - 1] = 1;
		}
		avail = decided_at(d, size, 1 + rand_r(&seed) % 3000);
		if (bc_kimage_read_btf("img", d, size, 1 << 20, &b, &log)) {
			ck_assert_uint_eq(avail, size);
			free(d);
			continue;
		}
		bc_blob_release(&b);
		ck_assert_uint_eq(found_at(d, avail, &len),
				  found_at(d, size, &whole_len));
		ck_assert_uint_eq(len, whole_len);
		free(d);
	}
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
	tc = tcase_create("prefix");
	tcase_add_test(tc, prefix);
	tcase_add_test(tc, prefix_random);
	suite_add_tcase(s, tc);
	tc = tcase_create("real");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, real, 0,
			    sizeof(real_images) / sizeof(real_images[0]));
	suite_add_tcase(s, tc);
	return s;
}
