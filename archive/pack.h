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

/* How hard ar_pack() tries: the smallest of zstd and xz, or LZ4 only. */
enum ar_pack_effort {
	AR_PACK_BEST = 0,
	AR_PACK_FAST = 1,	/* the fuzz targets: LZ4, one codec to decode */
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
