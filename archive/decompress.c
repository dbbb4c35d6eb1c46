// SPDX-License-Identifier: GPL-2.0-only
/*
 * One function per compression, each a loop around its library's
 * streaming call that writes into one growing output buffer (struct
 * out_buf) and stops at the end of the first stream. The two framings the
 * kernel's tools write that no library reads (lzop's file format, lz4's
 * legacy format) are walked here block by block; each block goes to its
 * library (lzo1x_decompress_safe, LZ4_decompress_safe).
 */
#define ZLIB_CONST
#include <bzlib.h>
#include <errno.h>
#include <lz4.h>
#include <lzma.h>
#include <lzo/lzo1x.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "decompress.h"

const char *bc_comp_name(enum bc_comp comp)
{
	static const char *const names[] = {
		[BC_COMP_NONE] = "none",   [BC_COMP_GZIP] = "gzip",
		[BC_COMP_BZIP2] = "bzip2", [BC_COMP_LZMA] = "lzma",
		[BC_COMP_XZ] = "xz",	   [BC_COMP_LZO] = "lzo",
		[BC_COMP_LZ4] = "lz4",	   [BC_COMP_ZSTD] = "zstd",
	};

	return (unsigned)comp < sizeof(names) / sizeof(names[0]) ?
	       names[comp] : "unknown";
}

static const uint8_t lzop_magic[9] = {
	0x89, 'L', 'Z', 'O', 0x00, 0x0d, 0x0a, 0x1a, 0x0a
};
#define LZ4_LEGACY_MAGIC 0x184c2102u
#define LZ4_LEGACY_BLOCK (8u << 20)	/* what lz4 -l cuts the input into */

/* The magics the kernel's own extract-vmlinux and decompress.c look for. */
enum bc_comp bc_comp_detect(const uint8_t *d, size_t size)
{
	static const uint8_t xz_magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const uint8_t lz4_magic[4] = { 0x02, 0x21, 0x4c, 0x18 };

	if (size >= 6 && !memcmp(d, xz_magic, 6))
		return BC_COMP_XZ;
	if (size >= 9 && !memcmp(d, lzop_magic, 9))
		return BC_COMP_LZO;
	if (size >= 4 && !memcmp(d, zstd_magic, 4))
		return BC_COMP_ZSTD;
	if (size >= 4 && !memcmp(d, lz4_magic, 4))
		return BC_COMP_LZ4;
	if (size >= 3 && d[0] == 0x1f && (d[1] == 0x8b || d[1] == 0x9e) &&
	    d[2] == 8)
		return BC_COMP_GZIP;
	if (size >= 4 && d[0] == 'B' && d[1] == 'Z' && d[2] == 'h' &&
	    d[3] >= '1' && d[3] <= '9')
		return BC_COMP_BZIP2;
	/* properties lc=3 lp=0 pb=2, as every lzma tool writes by default */
	if (size >= 13 && d[0] == 0x5d && d[1] == 0 && d[2] == 0)
		return BC_COMP_LZMA;
	return BC_COMP_NONE;
}

enum bc_comp bc_comp_from_zboot_name(const char *name)
{
	static const struct { const char *name; enum bc_comp comp; } names[] = {
		{ "gzip", BC_COMP_GZIP },   { "bzip2", BC_COMP_BZIP2 },
		{ "lzma", BC_COMP_LZMA },   { "xzkern", BC_COMP_XZ },
		{ "xz", BC_COMP_XZ },	    { "lzo", BC_COMP_LZO },
		{ "lz4", BC_COMP_LZ4 },	    { "zstd22", BC_COMP_ZSTD },
		{ "zstd", BC_COMP_ZSTD },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i].name))
			return names[i].comp;
	return BC_COMP_NONE;
}

/*
 * The output: len bytes written of cap, never more than max. cap may reach
 * max + 1 so that a stream whose output is exactly max bytes can still
 * report its end into room it does not use.
 */
struct out_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	size_t max;
};

/* max < SIZE_MAX; hint <= max */
static int out_init(struct out_buf *o, size_t hint, size_t in_size, size_t max)
{
	size_t cap = hint ? hint + 1 : in_size <= max / 4 ? in_size * 4 : max;

	if (cap < (64u << 10))
		cap = 64u << 10;
	if (cap > max)
		cap = max + 1;
	o->data = malloc(cap);
	o->len = 0;
	o->cap = cap;
	o->max = max;
	return o->data ? 0 : -ENOMEM;
}

static int fail(struct bc_comp_error *e, int err, const char *why, size_t at)
{
	e->why = why;
	e->at = at;
	return err;
}

static int too_big(struct bc_comp_error *e, size_t at)
{
	return fail(e, -EFBIG, "output larger than the limit", at);
}

/*
 * Room for n more bytes: the capacity doubles until they fit, up to
 * max + 1. The one byte past max is room for a streaming decoder to show
 * that its output goes on (bc_decompress() then refuses it); a caller that
 * knows a block's exact size checks it against max itself. Past max + 1,
 * an error at input byte at.
 */
static int out_reserve(struct out_buf *o, size_t n, struct bc_comp_error *e,
		       size_t at)
{
	uint8_t *grown;
	size_t cap = o->cap;

	if (n > o->max + 1 - o->len)
		return too_big(e, at);
	if (cap - o->len >= n)
		return 0;
	while (cap - o->len < n)
		cap = cap > o->max / 2 ? o->max + 1 : cap * 2;
	grown = realloc(o->data, cap);
	if (!grown)
		return -ENOMEM;
	o->data = grown;
	o->cap = cap;
	return 0;
}

static int gunzip(const uint8_t *in, size_t in_size, struct out_buf *o,
		  struct bc_comp_error *e)
{
	z_stream z;
	int ret, err = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = in;
	for (;;) {
		size_t before_in = z.total_in;
		uInt chunk_in = in_size - z.total_in > (1u << 30) ?
				1u << 30 : (uInt)(in_size - z.total_in);

		err = out_reserve(o, 1, e, z.total_in);
		if (err)
			break;
		z.avail_in = chunk_in;
		z.next_out = o->data + o->len;
		z.avail_out = o->cap - o->len > (1u << 30) ?
			      1u << 30 : (uInt)(o->cap - o->len);
		ret = inflate(&z, Z_NO_FLUSH);
		o->len = z.total_out;
		if (ret == Z_STREAM_END)
			break;
		if (ret == Z_MEM_ERROR) {
			err = -ENOMEM;
			break;
		}
		if (ret == Z_BUF_ERROR && z.total_in == in_size &&
		    z.total_in == before_in) {
			err = fail(e, -EINVAL, "truncated stream, ends", in_size);
			break;
		}
		if (ret != Z_OK && ret != Z_BUF_ERROR) {
			err = fail(e, -EINVAL, z.msg ? z.msg : "corrupt stream",
				   z.total_in);
			break;
		}
	}
	inflateEnd(&z);
	return err;
}

static int bunzip2(const uint8_t *in, size_t in_size, struct out_buf *o,
		   struct bc_comp_error *e)
{
	bz_stream bz;
	size_t used = 0;
	int ret, err = 0;

	memset(&bz, 0, sizeof(bz));
	if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK)
		return -ENOMEM;
	for (;;) {
		unsigned int chunk = in_size - used > (1u << 30) ?
				     1u << 30 : (unsigned int)(in_size - used);
		size_t room;

		err = out_reserve(o, 1, e, used);
		if (err)
			break;
		room = o->cap - o->len > (1u << 30) ? 1u << 30 : o->cap - o->len;
		bz.next_in = (char *)(in + used);	/* bzlib only reads it */
		bz.avail_in = chunk;
		bz.next_out = (char *)o->data + o->len;
		bz.avail_out = room;
		ret = BZ2_bzDecompress(&bz);
		used += chunk - bz.avail_in;
		o->len += room - bz.avail_out;
		if (ret == BZ_STREAM_END)
			break;
		if (ret == BZ_MEM_ERROR) {
			err = -ENOMEM;
			break;
		}
		if (ret != BZ_OK) {
			err = fail(e, -EINVAL, "corrupt stream", used);
			break;
		}
		if (used == in_size && bz.avail_out) {
			err = fail(e, -EINVAL, "truncated stream, ends", used);
			break;
		}
	}
	BZ2_bzDecompressEnd(&bz);
	return err;
}

static const char *lzma_why(lzma_ret ret)
{
	switch (ret) {
	case LZMA_FORMAT_ERROR:
		return "not in the format its magic says";
	case LZMA_OPTIONS_ERROR:
		return "unsupported options";
	case LZMA_DATA_ERROR:
		return "corrupt stream";
	case LZMA_BUF_ERROR:
		return "truncated stream, ends";
	case LZMA_MEMLIMIT_ERROR:
		return "dictionary larger than 256 MiB (the kernel's are 32-64 MiB)";
	default:
		return "decoder error";
	}
}

#define LZMA_MEMLIMIT	((uint64_t)256 << 20)

/* xz (with the kernel's BCJ filters) and the legacy .lzma format. */
static int unlzma(bool xz, const uint8_t *in, size_t in_size,
		  struct out_buf *o, struct bc_comp_error *e)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret ret;
	int err = 0;

	/*
	 * The header says how large a dictionary to allocate, up to 4 GiB:
	 * the kernel's xz uses 32 MiB, its lzma -9 64 MiB. More is refused.
	 */
	ret = xz ? lzma_stream_decoder(&s, LZMA_MEMLIMIT, 0) :
		   lzma_alone_decoder(&s, LZMA_MEMLIMIT);
	if (ret != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = in_size;
	for (;;) {
		err = out_reserve(o, 1, e, s.total_in);
		if (err)
			break;
		s.next_out = o->data + o->len;
		s.avail_out = o->cap - o->len;
		/* LZMA_FINISH: no more input will come; a short stream errs */
		ret = lzma_code(&s, LZMA_FINISH);
		o->len = s.total_out;
		if (ret == LZMA_STREAM_END)
			break;
		if (ret == LZMA_MEM_ERROR) {
			err = -ENOMEM;
			break;
		}
		if (ret != LZMA_OK) {
			err = fail(e, -EINVAL, lzma_why(ret), s.total_in);
			break;
		}
	}
	lzma_end(&s);
	return err;
}

static int unzstd(const uint8_t *in, size_t in_size, struct out_buf *o,
		  struct bc_comp_error *e)
{
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	ZSTD_inBuffer src = { in, 0, 0 };
	int err = 0;

	if (!dctx)
		return -ENOMEM;
	/*
	 * The kernel's zstd22 uses a window of up to 128 MiB (log 27); a frame
	 * header asking for more (up to 2 GiB) is refused, not allocated.
	 */
	ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 27);
	for (;;) {
		ZSTD_outBuffer dst;
		size_t ret;

		/* input in steps, so that an error's position means something */
		src.size = in_size - src.pos > (64u << 10) ?
			   src.pos + (64u << 10) : in_size;

		err = out_reserve(o, 1, e, src.pos);
		if (err)
			break;
		dst.dst = o->data + o->len;
		dst.size = o->cap - o->len;
		dst.pos = 0;
		ret = ZSTD_decompressStream(dctx, &dst, &src);
		o->len += dst.pos;
		if (ZSTD_isError(ret)) {
			err = fail(e, -EINVAL, ZSTD_getErrorName(ret), src.pos);
			break;
		}
		if (ret == 0)	/* the frame is complete */
			break;
		if (src.pos == in_size && dst.pos < dst.size && ret) {
			err = fail(e, -EINVAL, "truncated stream, ends", src.pos);
			break;
		}
	}
	ZSTD_freeDCtx(dctx);
	return err;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/*
 * lz4's legacy format: the magic, then blocks of [le32 compressed size]
 * [LZ4 block of at most 8 MiB output]; a repeated magic starts another
 * stream. It has no end mark: the stream ends with the input, or where
 * the last 4 bytes left are the kernel's appended size.
 */
static int unlz4_legacy(const uint8_t *in, size_t in_size, struct out_buf *o,
			struct bc_comp_error *e)
{
	size_t pos = 4;

	if (in_size < 4 || le32(in) != LZ4_LEGACY_MAGIC)
		return fail(e, -EINVAL, "no lz4 legacy magic", 0);
	while (pos < in_size) {
		uint32_t chunk;
		size_t room;
		int got, err;

		if (in_size - pos < 4)
			return fail(e, -EINVAL, "truncated stream, ends", in_size);
		chunk = le32(in + pos);
		if (chunk == LZ4_LEGACY_MAGIC) {
			pos += 4;
			continue;
		}
		if (in_size - pos == 4 && o->len && chunk == (uint32_t)o->len)
			break;	/* the kernel's appended size */
		pos += 4;
		if (!chunk || chunk > (uint32_t)LZ4_compressBound(LZ4_LEGACY_BLOCK))
			return fail(e, -EINVAL, "corrupt block size", pos - 4);
		if (chunk > in_size - pos)
			return fail(e, -EINVAL, "truncated stream, ends", in_size);
		room = o->max - o->len < LZ4_LEGACY_BLOCK ?
		       o->max - o->len : LZ4_LEGACY_BLOCK;
		err = out_reserve(o, room, e, pos);
		if (err)
			return err;
		got = LZ4_decompress_safe((const char *)in + pos,
					  (char *)o->data + o->len, chunk, room);
		if (got < 0)
			return room < LZ4_LEGACY_BLOCK ? too_big(e, pos) :
			       fail(e, -EINVAL, "corrupt stream", pos);
		o->len += got;
		pos += chunk;
	}
	return 0;
}

/* lzop's header flags */
#define LZOP_ADLER32_D	0x0001u
#define LZOP_ADLER32_C	0x0002u
#define LZOP_EXTRA	0x0040u
#define LZOP_CRC32_D	0x0100u
#define LZOP_CRC32_C	0x0200u
#define LZOP_FILTER	0x0800u
#define LZOP_H_CRC32	0x1000u
#define LZOP_MAX_BLOCK	(64u << 20)

/* A cursor over the input: take(c, n) moves past n bytes or fails. */
struct cursor {
	const uint8_t *in;
	size_t size;
	size_t pos;
};

static const uint8_t *take(struct cursor *c, size_t n)
{
	const uint8_t *p = c->in + c->pos;

	if (n > c->size - c->pos)
		return NULL;
	c->pos += n;
	return p;
}

/*
 * lzop's header, as lzop writes it: magic, version, library version,
 * version needed (0x0940 on), method, level (0x0940 on), flags, filter
 * (F_H_FILTER), mode, mtime, mtime high (0x0940 on), name, a checksum of
 * all that after the magic, and an optional extra field.
 */
static int lzop_header(struct cursor *c, uint32_t *flags,
		       struct bc_comp_error *e)
{
	const uint8_t *p, *start;
	uint32_t version, sum;
	uint8_t method;

	p = take(c, 9);
	if (!p || memcmp(p, lzop_magic, 9))
		return fail(e, -EINVAL, "no lzop magic", 0);
	if (!(p = take(c, 4)))
		return fail(e, -EINVAL, "truncated header, ends", c->size);
	start = p;
	version = p[0] << 8 | p[1];
	if (version < 0x0900)
		return fail(e, -EINVAL, "unsupported lzop version", 9);
	if (version >= 0x0940 && !take(c, 2))
		return fail(e, -EINVAL, "truncated header, ends", c->size);
	if (!(p = take(c, version >= 0x0940 ? 2 : 1)))
		return fail(e, -EINVAL, "truncated header, ends", c->size);
	method = p[0];
	if (method < 1 || method > 3)	/* LZO1X-1, LZO1X-1(15), LZO1X-999 */
		return fail(e, -EINVAL, "unsupported method", c->pos - 1);
	if (!(p = take(c, 4)))
		return fail(e, -EINVAL, "truncated header, ends", c->size);
	*flags = be32(p);
	if (*flags & LZOP_FILTER)
		return fail(e, -EINVAL, "filtered data is not supported", c->pos);
	if (!take(c, version >= 0x0940 ? 12 : 8) || !(p = take(c, 1)) ||
	    !take(c, p[0]))
		return fail(e, -EINVAL, "truncated header, ends", c->size);
	sum = *flags & LZOP_H_CRC32 ?
	      lzo_crc32(0, start, c->in + c->pos - start) :
	      lzo_adler32(1, start, c->in + c->pos - start);
	if (!(p = take(c, 4)))
		return fail(e, -EINVAL, "truncated header, ends", c->size);
	if (be32(p) != sum)
		return fail(e, -EINVAL, "header checksum mismatch", c->pos - 4);
	if (*flags & LZOP_EXTRA) {
		if (!(p = take(c, 4)) || !take(c, be32(p)) || !take(c, 4))
			return fail(e, -EINVAL, "truncated header, ends", c->size);
	}
	return 0;
}

/*
 * lzop's blocks: [be32 output size, 0 ends] [be32 stored size] [checksums
 * of the output (adler32, crc32), and of the stored bytes when they are
 * compressed, as the flags say] [stored bytes: LZO1X, or the output itself
 * when no smaller]. The output's checksums are verified.
 */
static int unlzo(const uint8_t *in, size_t in_size, struct out_buf *o,
		 struct bc_comp_error *e)
{
	struct cursor c = { in, in_size, 0 };
	uint32_t flags;
	int err;

	if (lzo_init() != LZO_E_OK)
		return -ENOMEM;
	err = lzop_header(&c, &flags, e);
	if (err)
		return err;
	for (;;) {
		size_t block_at = c.pos;
		uint32_t out_len, in_len, adler = 0, crc = 0;
		const uint8_t *p, *src;
		lzo_uint got;

		if (!(p = take(&c, 4)))
			return fail(e, -EINVAL, "truncated stream, ends", in_size);
		out_len = be32(p);
		if (!out_len)
			return 0;
		if (out_len > LZOP_MAX_BLOCK || !(p = take(&c, 4)))
			return fail(e, -EINVAL, out_len > LZOP_MAX_BLOCK ?
				    "corrupt block size" : "truncated stream, ends",
				    out_len > LZOP_MAX_BLOCK ? block_at : in_size);
		in_len = be32(p);
		if (!in_len || in_len > out_len)
			return fail(e, -EINVAL, "corrupt block size", block_at + 4);
		if ((flags & LZOP_ADLER32_D) && (p = take(&c, 4)))
			adler = be32(p);
		if ((flags & LZOP_CRC32_D) && (p = take(&c, 4)))
			crc = be32(p);
		/* the stored bytes' checksums: the output's are enough */
		if (in_len < out_len)
			take(&c, ((flags & LZOP_ADLER32_C) ? 4 : 0) +
				 ((flags & LZOP_CRC32_C) ? 4 : 0));
		if (!p || !(src = take(&c, in_len)))
			return fail(e, -EINVAL, "truncated stream, ends", in_size);
		if (out_len > o->max - o->len)
			return too_big(e, block_at);
		err = out_reserve(o, out_len, e, block_at);
		if (err)
			return err;
		if (in_len == out_len) {
			memcpy(o->data + o->len, src, out_len);
		} else {
			got = out_len;
			if (lzo1x_decompress_safe(src, in_len, o->data + o->len,
						  &got, NULL) != LZO_E_OK ||
			    got != out_len)
				return fail(e, -EINVAL, "corrupt stream",
					    src - in);
		}
		if (((flags & LZOP_ADLER32_D) &&
		     lzo_adler32(1, o->data + o->len, out_len) != adler) ||
		    ((flags & LZOP_CRC32_D) &&
		     lzo_crc32(0, o->data + o->len, out_len) != crc))
			return fail(e, -EINVAL, "block checksum mismatch",
				    block_at);
		o->len += out_len;
	}
}

int bc_decompress(enum bc_comp comp, const uint8_t *in, size_t in_size,
		  size_t size_hint, size_t max_out, uint8_t **out,
		  size_t *out_size, struct bc_comp_error *error)
{
	struct out_buf o;
	uint8_t *shrunk;
	int err;

	*out = NULL;
	*out_size = 0;
	error->why = NULL;
	error->at = 0;
	if (max_out == SIZE_MAX)
		max_out--;
	if (size_hint > max_out)
		size_hint = 0;
	err = out_init(&o, size_hint, in_size, max_out);
	if (err)
		return err;
	switch (comp) {
	case BC_COMP_GZIP:
		err = gunzip(in, in_size, &o, error);
		break;
	case BC_COMP_BZIP2:
		err = bunzip2(in, in_size, &o, error);
		break;
	case BC_COMP_LZMA:
	case BC_COMP_XZ:
		err = unlzma(comp == BC_COMP_XZ, in, in_size, &o, error);
		break;
	case BC_COMP_ZSTD:
		err = unzstd(in, in_size, &o, error);
		break;
	case BC_COMP_LZ4:
		err = unlz4_legacy(in, in_size, &o, error);
		break;
	case BC_COMP_LZO:
		err = unlzo(in, in_size, &o, error);
		break;
	default:
		err = fail(error, -EINVAL, "unknown compression", 0);
		break;
	}
	if (err) {
		free(o.data);
		return err;
	}
	if (o.len > o.max) {
		free(o.data);
		return too_big(error, in_size);
	}
	/* give back the room a generous guess left */
	shrunk = o.cap - o.len > (1u << 20) ? realloc(o.data, o.len ? o.len : 1) :
		 NULL;
	*out = shrunk ? shrunk : o.data;
	*out_size = o.len;
	return 0;
}
