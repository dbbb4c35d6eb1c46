/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The payload of archive formats 4 and 6 (archive/pack.c): the body cut
 * into streams, each compressed on its own with the codec that suits it;
 * format 6's streams are cut by region and indexed, so that a reader can
 * unpack only some (deferred.c reads them). Used by format.c, deferred.c
 * (and the fuzz target).
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

/*
 * Format 6 (pack.c, "format 6"): the body's sections, each cut where a
 * region ends (format.c), each cut a stream of its own; the table names
 * each stream's section and the number of its first item.
 */
enum ar_section {
	AR_SEC_STRING_LENGTHS,	/* items: strings (count first) */
	AR_SEC_STRING_BYTES,	/* strings */
	AR_SEC_PAIRS,		/* (kind, name) pairs (count first) */
	AR_SEC_HEADS,		/* records (count first) */
	AR_SEC_WORDS,		/* records */
	AR_SEC_KERNELS,		/* kernels (count first) */
	AR_SEC_MODULES,		/* module names: each one's group */
	AR_NR_SECTIONS,
};
#define AR_SECTION_MIXED 0xff	/* a payload not cut by section */

struct ar_cut {
	size_t at;		/* where the stream starts in the body */
	uint32_t first;		/* the section's first item in it */
	unsigned section;	/* enum ar_section */
};

/*
 * The format 6 payload of a body of len bytes cut at cuts[0 .. nr) (cuts[0]
 * at 0; ascending) appended to out; with no cuts, cut as ar_pack() cuts and
 * marked mixed (any bytes: the fuzz targets, the bytes form).
 */
int ar_pack6(const uint8_t *body, size_t len, enum ar_pack_effort effort,
	     const struct ar_cut *cuts, uint32_t nr, struct ar_buf *out);
/* A format 6 payload back into body, as ar_unpack(). */
int ar_unpack6(const uint8_t *payload, size_t len, uint8_t *body,
	       size_t body_len);

/*
 * A format 6 payload left packed, stream by stream (bc_archive_open_partial;
 * deferred.c reads it): *c NULL when the payload is mixed, then unpacked
 * whole. A stream is unpacked whole when asked for (ar_chunks_unpack: the
 * i-th stream of a section), every one by ar_chunks_finish (two threads).
 * The payload must outlive *c.
 */
struct ar_chunks;

int ar_unpack_chunked(const uint8_t *payload, size_t len, uint8_t *body,
		      size_t body_len, struct ar_chunks **c);
uint32_t ar_chunks_count(const struct ar_chunks *c, unsigned section);
void ar_chunks_info(const struct ar_chunks *c, unsigned section, uint32_t i,
		    uint8_t **at, size_t *len, uint32_t *first);
/* The section's stream holding item (the last whose first is at most it). */
uint32_t ar_chunks_find(const struct ar_chunks *c, unsigned section,
			uint32_t item);
int ar_chunks_unpack(struct ar_chunks *c, unsigned section, uint32_t i);
int ar_chunks_finish(struct ar_chunks *c);
/* The streams i of each of sections[] where want[i], on two threads. */
int ar_chunks_unpack_some(struct ar_chunks *c, const bool *want, uint32_t nr,
			  const unsigned *sections, unsigned nr_sections);
/* The body bytes unpacked so far (tests: what a read of one module costs). */
size_t ar_chunks_unpacked(const struct ar_chunks *c);
void ar_chunks_free(struct ar_chunks *c);

#endif
