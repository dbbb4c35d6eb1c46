/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The payload of archive format 4 (archive/pack.c): the body cut into
 * streams, each compressed on its own with the codec that suits it.
 * Used by format.c only (and the fuzz target).
 */
#ifndef BTFCANON_ARCHIVE_PACK_H
#define BTFCANON_ARCHIVE_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/*
 * Bodies up to this size may take xz in every stream (a kernel or two:
 * decoding 4-6 MB of xz takes 40-80 ms).
 */
#define AR_PACK_SMALL_BODY ((size_t)6 << 20)

/* How ar_pack() compresses. */
enum ar_pack_effort {
	AR_PACK_BEST,	/* the smallest of zstd and xz (pack.c says where xz) */
	AR_PACK_FAST,	/* LZ4: the fuzz targets, one codec to decode */
	AR_PACK_ZSTD,	/* zstd only: quick to write (deps --save) */
	AR_PACK_WORDS,	/* zstd, or xz set for BTF's words (kernels as bytes) */
	AR_PACK_XZ_ALL,	/* AR_PACK_BEST with xz tried in every stream, any
			   size: kernels with their modules (format 5) */
};

/*
 * The format 4 payload of a body of len bytes (any bytes: a body that is
 * not laid out as format 3's is one stream) appended to out. The same
 * body gives the same bytes, whatever the number of threads used.
 * Returns 0 or a negative errno.
 */
int ar_pack(const uint8_t *body, size_t len, enum ar_pack_effort effort,
	    struct ar_buf *out);

/*
 * A format 4 payload of len bytes back into body, which it must fill
 * exactly (body_len bytes). Returns 0, -EINVAL (a damaged payload) or
 * -ENOMEM.
 */
int ar_unpack(const uint8_t *payload, size_t len, uint8_t *body,
	      size_t body_len);

#endif
