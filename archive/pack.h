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

/*
 * Partial unpacking, for a reader of one kernel (format.c,
 * bc_archive_open_partial). A payload cut as the writer cuts a body that
 * walks (six streams, section by section) has the string bytes and the
 * record words, two thirds of the body, in streams 1 and 4: those are
 * left packed (zstd, xz or stored) and unpacked on demand, each only as
 * far as a reader asks (ar_deferred_need: the body up to an offset), in
 * place, into the body; the other streams are unpacked at once. A payload
 * cut otherwise (or with LZ4 there) is unpacked whole and *d is NULL.
 * The payload must outlive *d. Returns as ar_unpack().
 */
struct ar_deferred;

int ar_unpack_partial(const uint8_t *payload, size_t len, uint8_t *body,
		      size_t body_len, struct ar_deferred **d);
/* Where deferred stream i (0: string bytes, 1: words) lies in the body. */
void ar_deferred_range(const struct ar_deferred *d, unsigned i, size_t *at,
		       size_t *len);
/*
 * The deferred stream that holds body offset end - 1 unpacked up to end
 * (the other's bytes are asked for apart): 0, -EINVAL (damaged) or
 * -ENOMEM.
 */
int ar_deferred_need(struct ar_deferred *d, size_t end);
/* Every deferred stream unpacked whole and checked as ar_unpack() checks. */
int ar_deferred_finish(struct ar_deferred *d);
void ar_deferred_free(struct ar_deferred *d);
/* The body bytes of deferred stream i unpacked so far (tests). */
size_t ar_deferred_done(const struct ar_deferred *d, unsigned i);

#endif
