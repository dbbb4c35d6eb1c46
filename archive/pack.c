// SPDX-License-Identifier: GPL-2.0-only
/*
 * The payload of archive format 4: the body (laid out exactly as format
 * 3's) cut into streams that each hold one kind of number, each
 * compressed on its own with the codec that makes it smallest. Format 6
 * (archives with modules; "format 6" below) cuts each section again,
 * region by region, and its table says where each stream's items start.
 *
 * Problem: one LZ4 frame of the whole body (format 3) made Debian's 118
 * kernels 4.68 MB and a single kernel 2.2 times the size of its own
 * `xz -9e`. The body's sections are unlike each other (string bytes,
 * string lengths, (kind, name) pairs that count up by one, record heads,
 * record words, kernel scripts): a compressor that sees one at a time
 * models it better, and each can take the codec that pays for it.
 *
 * The payload (integers little-endian):
 *	u8 stream count (1..AR_PACK_MAX_STREAMS), then per stream: u8
 *	codec, le64 bytes of body it fills, le64 bytes it takes here; then
 *	the streams' bytes in that order. The streams fill the body in
 *	order, end to end. Codecs: 0 stored, 1 an LZ4 frame, 2 a zstd frame,
 *	3 an xz stream (LZMA2, no check: the file's CRC covers it).
 * Cuts: where format 3's sections meet (ar_pack cuts them by walking the
 * body's counts and lengths; the reader needs no cuts, it only fills the
 * body): string lengths | string bytes | pairs | record heads | record
 * words | kernels. A body that does not walk (the fuzz targets wrap any
 * bytes) is cut where the walk stopped.
 *
 * Codec (the writer's choice, the reader follows the codec bytes): zstd
 * (ZSTD_LEVEL, its window the stream) unless storing is smaller; xz
 * (-9e, the dictionary the stream; no literal context for varints, 3
 * bits for the string bytes; 1 literal and 2 position bits for kernels
 * stored as bytes, AR_PACK_WORDS) where it is smaller still and decoding
 * it costs little: every stream of a body up to AR_PACK_SMALL_BODY (a
 * kernel or two: what xz saves there is what keeps the archive below
 * `xz -9e` of the kernels' files, and such a body takes 40-80 ms to
 * unpack), and of a larger body only the (kind, name) pairs, up to
 * XZ_STREAM_MAX, where xz makes them at most a quarter of zstd's size:
 * on Debian's 118 kernels 26 KB instead of 239, for 3 ms more of
 * unpacking (the record heads would be 95 KB instead of 204 for 5 ms
 * more of every extract and 0.2 s more of every write). LZMA decodes at 10-20 ns a byte here, zstd at 1-2: xz on all of
 * the 118 kernels' 7.3 MB body would be 0.4 MB smaller and take 0.13 s
 * to unpack.
 *
 * For BTF's words (AR_PACK_WORDS), a stream up to XZ_TWO_WAYS_MAX (a
 * module's BTF) is also tried with no position bits for literals: they
 * pay on a kernel's megabytes (0.4% on Debian's 6.1 amd64), not on a
 * module's kilobytes (dummy.ko's 208 KB: 55,132 bytes without, 55,208
 * with; 2 KB cuts of kernels, 4-5% smaller without).
 *
 * A kernel or two with their modules (format 5, AR_PACK_XZ_ALL; format.c
 * chooses): xz is tried in every stream whatever the body's size, and
 * kept where smaller. One kernel with its modules is a body of 8 MB (6.1
 * cloud: 1,121 modules) or more that shares little, and only xz brings it
 * below `tar | xz -9e` of its files: with zstd alone 6.1 cloud's archive
 * was 2.87 MB against 2.47, with xz where smaller 2.30 (xz makes the
 * record heads 0.45 of zstd's size, the words 0.77, the string bytes
 * 0.88). The price is in reading: an extract decodes the streams it
 * reads (all but the tails of the string bytes and words, which a partial
 * read leaves packed: below) in xz (0.12 s of CPU instead of 0.02 for one
 * module of 6.1 cloud's archive).
 *
 * Small bodies (issue 27: an archive no larger than `tar | xz -9e` of its
 * files, however few and small): a stream's entry takes ENTRY_LEN bytes
 * and an xz stream 40-60 of container, which a set of one tiny kernel,
 * or none, feels. So neighbouring stored streams are joined into one and
 * empty ones dropped (the tiny sections of a kernel stored as bytes, or
 * of no kernel: 60 bytes for an empty archive against 108 for `tar` of
 * nothing under `xz -9e`), and a body up to ONE_STREAM_MAX is also
 * packed as one stream, kept where smaller. The reader never needed the
 * cuts: it fills the body stream by stream, so every file written so is
 * read by every format 4 reader.
 *
 * Threads: streams are compressed and decompressed on two threads, each
 * taking the next stream from an atomic cursor; every stream's bytes
 * depend on the stream alone, so the file does not depend on threads.
 * Cost: the writer runs zstd over the body once and xz over the streams
 * it may choose; the reader runs one decoder a stream.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <lz4frame.h>
#include <lzma.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_d_stableOutBuffer */
#include <zstd.h>

#include "pack.h"

#define AR_PACK_MAX_STREAMS 8
#define ENTRY_LEN 17		/* codec, le64 body bytes, le64 packed bytes */
#define ZSTD_LEVEL 9		/* 19: 0.22 MB less of 2.4 for 4 s more a write */
#define XZ_STREAM_MAX ((size_t)2 << 20)
#define XZ_DICT_MAX ((uint32_t)64 << 20)
#define XZ_MEMLIMIT ((uint64_t)96 << 20)
#define XZ_TWO_WAYS_MAX ((size_t)1 << 20)
#define ONE_STREAM_MAX ((size_t)64 << 10)
#define STORE_BELOW 64		/* shorter streams are stored */
#define THREADED_MIN ((size_t)1 << 20)	/* smaller bodies: one thread */

enum codec { CODEC_STORED, CODEC_LZ4, CODEC_ZSTD, CODEC_XZ, NR_CODECS };

/* The streams of a body that walks, in order. */
enum section {
	SECTION_STRING_LENGTHS,
	SECTION_STRING_BYTES,
	SECTION_PAIRS,
	SECTION_HEADS,
	SECTION_WORDS,
	SECTION_KERNELS,
	SECTION_MODULES,	/* format 6 */
};

/* ---- cutting ------------------------------------------------------------ */

/*
 * n varints from *pos; false when they run past end. Sums them in *sum
 * (false past end too: what they count must fit in the body).
 */
static bool skip_varints(const uint8_t *d, size_t end, size_t *pos,
			 uint64_t n, uint64_t *sum)
{
	uint64_t v, i;

	for (i = 0; i < n; i++) {
		if (ar_get_varint(d, end, pos, &v))
			return false;
		if (sum && (v > end || (*sum += v) > end))
			return false;
	}
	return true;
}

/*
 * Where format 3's sections end, into cut[] (ascending, each below len);
 * returns how many. Every count is bounded by the bytes left, so a body
 * of any bytes is walked in linear time and cut where the walk stops.
 */
static unsigned body_cuts(const uint8_t *d, size_t len, size_t *cut)
{
	size_t pos = 0;
	uint64_t n, sum = 0, i;
	unsigned nr = 0;

	/* string lengths, then the strings with their NULs */
	if (ar_get_varint(d, len, &pos, &n) || n > len ||
	    !skip_varints(d, len, &pos, n, &sum) || sum + n > len - pos)
		return nr;
	cut[nr++] = pos;
	pos += sum + n;
	cut[nr++] = pos;
	/* (kind, name) pairs */
	if (ar_get_varint(d, len, &pos, &n) || n > len ||
	    !skip_varints(d, len, &pos, 2 * n, NULL))
		return nr;
	cut[nr++] = pos;
	/* record heads (kind, vlen, kn + 1, bytes of words), then the words */
	if (ar_get_varint(d, len, &pos, &n) || n > len)
		return nr;
	for (i = 0, sum = 0; i < n; i++)
		if (!skip_varints(d, len, &pos, 3, NULL) ||
		    !skip_varints(d, len, &pos, 1, &sum))
			return nr;
	cut[nr++] = pos;
	if (sum > len - pos)
		return nr;
	pos += sum;
	cut[nr++] = pos;
	/* the kernels follow; no empty stream at the end */
	while (nr && cut[nr - 1] >= len)
		nr--;
	return nr;
}

/* ---- one stream ----------------------------------------------------------- */

struct stream {
	const uint8_t *raw;	/* writer: the body's bytes; reader: the packed */
	size_t raw_len;
	uint8_t *body;		/* reader: where it unpacks to */
	uint8_t *packed;	/* writer: the chosen encoding (malloc) */
	size_t packed_len;
	enum codec codec;
	unsigned section;	/* writer: enum section (format 6: its cut's) */
	uint32_t first;		/* format 6: the section's first item in it */
	bool cut;		/* writer: a format 6 stream cut by region */
	int err;
};

static int lz4_pack(const uint8_t *in, size_t len, uint8_t **out,
		    size_t *out_len)
{
	LZ4F_preferences_t prefs;
	size_t bound, z;

	memset(&prefs, 0, sizeof(prefs));
	prefs.frameInfo.blockSizeID = LZ4F_max64KB;
	prefs.frameInfo.blockMode = LZ4F_blockIndependent;
	prefs.frameInfo.contentSize = len;
	bound = LZ4F_compressFrameBound(len, &prefs);
	*out = malloc(bound);
	if (!*out)
		return -ENOMEM;
	z = LZ4F_compressFrame(*out, bound, in, len, &prefs);
	if (LZ4F_isError(z))
		return -EIO;
	*out_len = z;
	return 0;
}

static int zstd_pack(const uint8_t *in, size_t len, uint8_t **out,
		     size_t *out_len)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t bound = ZSTD_compressBound(len), z;
	int wlog = 10;

	*out = malloc(bound);
	if (!cctx || !*out) {
		ZSTD_freeCCtx(cctx);
		return -ENOMEM;
	}
	while (wlog < 27 && ((size_t)1 << wlog) < len)
		wlog++;
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, wlog);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
	z = ZSTD_compress2(cctx, *out, bound, in, len);
	ZSTD_freeCCtx(cctx);
	if (ZSTD_isError(z))
		return -EIO;
	*out_len = z;
	return 0;
}

static int xz_pack(const uint8_t *in, size_t len, uint32_t lc, uint32_t lp,
		   uint32_t pb, uint8_t **out, size_t *out_len)
{
	lzma_options_lzma opt;
	lzma_filter filters[2];
	size_t bound = lzma_stream_buffer_bound(len), pos = 0;

	if (lzma_lzma_preset(&opt, 9 | LZMA_PRESET_EXTREME))
		return -EIO;
	opt.dict_size = len < 4096 ? 4096 : len > XZ_DICT_MAX ? XZ_DICT_MAX :
			(uint32_t)len;
	opt.lc = lc;
	opt.lp = lp;
	opt.pb = pb;	/* position bits: 0 for varints, 2 for BTF's words */
	filters[0].id = LZMA_FILTER_LZMA2;
	filters[0].options = &opt;
	filters[1].id = LZMA_VLI_UNKNOWN;
	filters[1].options = NULL;
	*out = malloc(bound ? bound : 1);
	if (!*out)
		return -ENOMEM;
	if (lzma_stream_buffer_encode(filters, LZMA_CHECK_NONE, NULL, in, len,
				      *out, &pos, bound) != LZMA_OK)
		return -EIO;
	*out_len = pos;
	return 0;
}

/* Keep (codec, buf, n) in s if smaller than what s has; frees the loser. */
static void keep_smaller(struct stream *s, enum codec codec, uint8_t *buf,
			 size_t n)
{
	if (n < s->packed_len) {
		free(s->packed);
		s->packed = buf;
		s->packed_len = n;
		s->codec = codec;
	} else {
		free(buf);
	}
}

/*
 * The smallest encoding of s that the effort and body size allow; s is
 * the body's section'th stream (enum section when the body walked).
 */
static int pack_stream(struct stream *s, unsigned section,
		       enum ar_pack_effort effort, size_t body_len)
{
	bool small = body_len <= AR_PACK_SMALL_BODY;
	size_t zstd_len, n = 0;
	uint8_t *buf = NULL;
	int err;

	s->codec = CODEC_STORED;
	s->packed = NULL;
	s->packed_len = s->raw_len;
	if (s->raw_len < STORE_BELOW)
		return 0;
	err = effort == AR_PACK_FAST ? lz4_pack(s->raw, s->raw_len, &buf, &n) :
				      zstd_pack(s->raw, s->raw_len, &buf, &n);
	if (err) {
		free(buf);
		return err;
	}
	keep_smaller(s, effort == AR_PACK_FAST ? CODEC_LZ4 : CODEC_ZSTD, buf, n);
	if (effort == AR_PACK_XZ_ALL)
		small = true;	/* xz wherever it is smaller */
	/* a region's pairs (format 6) are read one stream at a time: zstd */
	if (effort == AR_PACK_FAST || effort == AR_PACK_ZSTD ||
	    (!small && (section != SECTION_PAIRS || s->raw_len > XZ_STREAM_MAX ||
			s->cut)))
		return 0;
	zstd_len = s->packed_len;
	buf = NULL;
	if (effort == AR_PACK_WORDS && small && s->raw_len <= XZ_TWO_WAYS_MAX) {
		/* BTF of a module's size: literals by the word's byte or not */
		err = xz_pack(s->raw, s->raw_len, 1, 0, 2, &buf, &n);
		if (err) {
			free(buf);
			return err;
		}
		keep_smaller(s, CODEC_XZ, buf, n);
		buf = NULL;
	}
	if (effort == AR_PACK_WORDS)	/* BTF: 4-byte words */
		err = xz_pack(s->raw, s->raw_len, 1, 2, 2, &buf, &n);
	else	/* text: the usual literal context; varints: none */
		err = xz_pack(s->raw, s->raw_len,
			      section == SECTION_STRING_BYTES ? 3 : 0, 0, 0,
			      &buf, &n);
	if (err) {
		free(buf);
		return err;
	}
	if (!small && n * 4 > zstd_len)
		n = SIZE_MAX;	/* not worth its decoding time */
	keep_smaller(s, CODEC_XZ, buf, n);
	return 0;
}

static int lz4_unpack(const uint8_t *in, size_t len, uint8_t *out,
		      size_t out_len)
{
	LZ4F_decompressionContext_t dctx;
	size_t in_done = 0, out_done = 0, hint = 1;
	int err = 0;

	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		return -ENOMEM;
	while (hint && !err) {
		size_t in_n = len - in_done, out_n = out_len - out_done;

		hint = LZ4F_decompress(dctx, out + out_done, &out_n,
				       in + in_done, &in_n, NULL);
		if (LZ4F_isError(hint) || (!in_n && !out_n && hint))
			err = -EINVAL;
		in_done += in_n;
		out_done += out_n;
	}
	LZ4F_freeDecompressionContext(dctx);
	if (!err && (in_done != len || out_done != out_len))
		err = -EINVAL;
	return err;
}

/* *z: the caller's context, made on first use (a worker's, for its streams). */
static int zstd_unpack(const uint8_t *in, size_t len, uint8_t *out,
		       size_t out_len, ZSTD_DCtx **z)
{
	unsigned long long size = ZSTD_getFrameContentSize(in, len);
	size_t got;

	if (size != out_len || ZSTD_findFrameCompressedSize(in, len) != len)
		return -EINVAL;
	if (!*z && !(*z = ZSTD_createDCtx()))
		return -ENOMEM;
	got = ZSTD_decompressDCtx(*z, out, out_len, in, len);
	return ZSTD_isError(got) || got != out_len ? -EINVAL : 0;
}

static int xz_unpack(const uint8_t *in, size_t len, uint8_t *out,
		     size_t out_len)
{
	/* the writer's dictionary is the stream's size: a larger one is forged */
	uint64_t memlimit = 2 * (uint64_t)out_len + ((uint64_t)1 << 20);
	size_t in_pos = 0, out_pos = 0;

	if (memlimit > XZ_MEMLIMIT)
		memlimit = XZ_MEMLIMIT;
	lzma_ret ret;

	ret = lzma_stream_buffer_decode(&memlimit, 0, NULL, in, &in_pos, len,
					out, &out_pos, out_len);
	if (ret == LZMA_MEM_ERROR)
		return -ENOMEM;
	return ret == LZMA_OK && in_pos == len && out_pos == out_len ? 0 :
	       -EINVAL;
}

static int unpack_stream(const struct stream *s, ZSTD_DCtx **z)
{
	switch (s->codec) {
	case CODEC_STORED:
		if (s->packed_len != s->raw_len)
			return -EINVAL;
		memcpy(s->body, s->raw, s->raw_len);
		return 0;
	case CODEC_LZ4:
		return lz4_unpack(s->raw, s->packed_len, s->body, s->raw_len);
	case CODEC_ZSTD:
		return zstd_unpack(s->raw, s->packed_len, s->body, s->raw_len, z);
	case CODEC_XZ:
		return xz_unpack(s->raw, s->packed_len, s->body, s->raw_len);
	default:
		return -EINVAL;
	}
}

/* ---- the streams on two threads ------------------------------------------- */

struct stream_job {
	struct stream *s;
	unsigned nr;
	unsigned next;		/* atomic cursor */
	bool pack;
	enum ar_pack_effort effort;
	size_t body_len;
};

static void *stream_worker(void *arg)
{
	struct stream_job *job = arg;
	ZSTD_DCtx *z = NULL;	/* one a worker: 2% of a module's extract */
	unsigned i;

	while ((i = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED)) < job->nr) {
		struct stream *s = &job->s[i];

		s->err = job->pack ? pack_stream(s, s->section, job->effort,
						 job->body_len) :
				     unpack_stream(s, &z);
	}
	ZSTD_freeDCtx(z);
	return NULL;
}

/* Every stream of job through its worker, on two threads if it pays. */
static int run_streams(struct stream_job *job)
{
	pthread_t thread;
	bool threaded;
	unsigned i;
	int err = 0;

	threaded = job->nr > 1 && job->body_len >= THREADED_MIN &&
		   !pthread_create(&thread, NULL, stream_worker, job);
	stream_worker(job);
	if (threaded)
		pthread_join(thread, NULL);
	/* the first error in stream order: the same whatever the threads */
	for (i = 0; i < job->nr && !err; i++)
		err = job->s[i].err;
	return err;
}

/* ---- the payload ---------------------------------------------------------- */

static void put_le64(uint8_t *p, uint64_t v)
{
	unsigned i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/*
 * Runs of stored streams of s[0..nr) joined into one, and empty streams
 * dropped (one stream stays): an entry costs ENTRY_LEN bytes, which is
 * what a set of one tiny kernel, or none, loses to `xz -9e` of its files
 * by. Stored streams lie end to end in the body, so the joined stream is
 * the body between them; the reader never needed the cuts. Returns the
 * streams left.
 */
static unsigned join_stored(struct stream *s, unsigned nr)
{
	unsigned i, n = 0;

	for (i = 0; i < nr; i++) {
		if (!s[i].raw_len)
			continue;	/* fills nothing */
		if (n && s[i].codec == CODEC_STORED &&
		    s[n - 1].codec == CODEC_STORED) {
			s[n - 1].raw_len += s[i].raw_len;
			s[n - 1].packed_len += s[i].raw_len;
			continue;
		}
		s[n++] = s[i];
	}
	return n ? n : 1;	/* an empty body: its one empty stream */
}

/*
 * s[0..*nr) replaced by the body as one stream when that is smaller: a
 * stream pays its entry and, in xz, 40-60 bytes of container, which a
 * body of a few kilobytes feels (a tiny kernel's set against `xz -9e` of
 * its files). Tried up to ONE_STREAM_MAX, where packing the body again
 * costs a few milliseconds. 0 or a negative errno.
 */
static int one_stream_if_smaller(const uint8_t *body, size_t len,
				 enum ar_pack_effort effort, struct stream *s,
				 unsigned *nr)
{
	struct stream one = { .raw = body, .raw_len = len };
	size_t streams_len = 0;
	unsigned i;
	int err;

	if (*nr < 2 || len > ONE_STREAM_MAX)
		return 0;
	err = pack_stream(&one, SECTION_KERNELS, effort, len);
	if (err) {
		free(one.packed);
		return err;
	}
	for (i = 0; i < *nr; i++)
		streams_len += ENTRY_LEN + s[i].packed_len;
	if (ENTRY_LEN + one.packed_len < streams_len) {
		for (i = 0; i < *nr; i++)
			free(s[i].packed);
		s[0] = one;
		*nr = 1;
	} else {
		free(one.packed);
	}
	return 0;
}

int ar_pack(const uint8_t *body, size_t len, enum ar_pack_effort effort,
	    struct ar_buf *out)
{
	struct stream s[AR_PACK_MAX_STREAMS];
	struct stream_job job = { s, 0, 0, true, effort, len };
	size_t cut[AR_PACK_MAX_STREAMS], from = 0;
	uint8_t entry[ENTRY_LEN];
	unsigned nr = body_cuts(body, len, cut), i;
	int err;

	memset(s, 0, sizeof(s));
	for (i = 0; i <= nr; i++) {
		size_t to = i < nr ? cut[i] : len;

		s[i].raw = body + from;
		s[i].raw_len = to - from;
		s[i].section = i;
		from = to;
	}
	job.nr = nr + 1;
	err = run_streams(&job);
	if (!err)
		job.nr = join_stored(s, job.nr);
	if (!err && effort != AR_PACK_FAST)
		err = one_stream_if_smaller(body, len, effort, s, &job.nr);
	entry[0] = (uint8_t)job.nr;
	err = err ? err : ar_buf_put(out, entry, 1);
	for (i = 0; i < job.nr && !err; i++) {
		entry[0] = (uint8_t)s[i].codec;
		put_le64(entry + 1, s[i].raw_len);
		put_le64(entry + 9, s[i].packed_len);
		err = ar_buf_put(out, entry, ENTRY_LEN);
	}
	for (i = 0; i < job.nr && !err; i++)
		err = ar_buf_put(out, s[i].packed ? s[i].packed : s[i].raw,
				 s[i].packed_len);
	for (i = 0; i < job.nr; i++)
		free(s[i].packed);
	return err;
}

/*
 * The stream table at the head of payload: s[0 .. nr) filled with each
 * stream's codec, packed bytes and place in body. Returns nr, or -EINVAL
 * when the table does not describe exactly len bytes of payload and
 * body_len bytes of body.
 */
static int read_stream_table(const uint8_t *payload, size_t len, uint8_t *body,
			     size_t body_len, struct stream *s)
{
	size_t at, filled = 0;
	unsigned i, nr;

	if (!len || !payload[0] || payload[0] > AR_PACK_MAX_STREAMS ||
	    len < 1 + (size_t)payload[0] * ENTRY_LEN)
		return -EINVAL;
	nr = payload[0];
	at = 1 + (size_t)nr * ENTRY_LEN;
	memset(s, 0, nr * sizeof(*s));
	for (i = 0; i < nr; i++) {
		const uint8_t *e = payload + 1 + (size_t)i * ENTRY_LEN;
		uint64_t raw = get_le64(e + 1), packed = get_le64(e + 9);

		if (e[0] >= NR_CODECS || raw > body_len - filled ||
		    packed > len - at)
			return -EINVAL;
		s[i].codec = (enum codec)e[0];
		s[i].raw = payload + at;
		s[i].packed_len = (size_t)packed;
		s[i].body = body + filled;
		s[i].raw_len = (size_t)raw;
		filled += (size_t)raw;
		at += (size_t)packed;
	}
	if (filled != body_len || at != len)
		return -EINVAL;
	return (int)nr;
}

int ar_unpack(const uint8_t *payload, size_t len, uint8_t *body,
	      size_t body_len)
{
	struct stream s[AR_PACK_MAX_STREAMS];
	struct stream_job job = { s, 0, 0, false, AR_PACK_BEST, body_len };
	int nr = read_stream_table(payload, len, body, body_len, s);

	if (nr < 0)
		return nr;
	job.nr = (unsigned)nr;
	return run_streams(&job);
}

/* ---- partial unpacking ---------------------------------------------------- */

/*
 * Problem: a reader of one kernel (extract, list) unpacked the whole body
 * (28 MB for Debian's four test kernels with their modules) although it
 * reads the string bytes and record words of one kernel only. Invariant:
 * a deferred stream's bytes in the body are those ar_unpack() writes, up
 * to done; a reader asks for them before it reads them. Cost: streams 1
 * and 4 are unpacked as far as asked, in steps of DEFER_STEP packed
 * bytes, straight into the body (zstd with a stable output buffer: no
 * window copied); records and strings are numbered by first use in the
 * kernels' version order, so an early kernel reads a prefix.
 */
#define DEFER_STEP ((size_t)64 << 10)
#define NR_DEFERRED 2

struct deferred_stream {
	struct stream s;
	size_t at;		/* in the body */
	size_t done;		/* body bytes unpacked */
	size_t in_pos;		/* packed bytes consumed */
	bool ended;		/* the frame or stream ended */
	ZSTD_DCtx *z;
	lzma_stream x;
	bool x_open;
};

struct ar_deferred {
	struct deferred_stream d[NR_DEFERRED];
};

static bool deferrable(enum codec codec)
{
	return codec == CODEC_STORED || codec == CODEC_ZSTD || codec == CODEC_XZ;
}

int ar_unpack_partial(const uint8_t *payload, size_t len, uint8_t *body,
		      size_t body_len, struct ar_deferred **out)
{
	static const unsigned which[NR_DEFERRED] = {
		SECTION_STRING_BYTES, SECTION_WORDS,
	};
	struct stream s[AR_PACK_MAX_STREAMS];
	struct stream_job job = { s, 0, 0, false, AR_PACK_BEST, body_len };
	struct ar_deferred *d;
	unsigned i, j, nr;
	int got;

	*out = NULL;
	if (!len || payload[0] != SECTION_KERNELS + 1 ||
	    len < 1 + (size_t)payload[0] * ENTRY_LEN)
		return ar_unpack(payload, len, body, body_len);
	got = read_stream_table(payload, len, body, body_len, s);
	if (got < 0)
		return got;
	nr = (unsigned)got;
	if (!deferrable(s[which[0]].codec) || !deferrable(s[which[1]].codec))
		return ar_unpack(payload, len, body, body_len);
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (j = 0; j < NR_DEFERRED; j++) {
		d->d[j].s = s[which[j]];
		d->d[j].at = (size_t)(s[which[j]].body - body);
		d->d[j].x = (lzma_stream)LZMA_STREAM_INIT;
	}
	/* the others at once, on two threads as ar_unpack() does */
	for (i = 0, j = 0; i < nr; i++)
		if (i != which[0] && i != which[1])
			s[j++] = s[i];
	job.nr = j;
	i = (unsigned)run_streams(&job);
	if (i) {
		ar_deferred_free(d);
		return (int)i;
	}
	*out = d;
	return 0;
}

void ar_deferred_range(const struct ar_deferred *d, unsigned i, size_t *at,
		       size_t *len)
{
	*at = d->d[i].at;
	*len = d->d[i].s.raw_len;
}

/* Stream ds unpacked up to want body bytes (all of it with finish). */
static int zstd_more(struct deferred_stream *ds, size_t want, bool finish)
{
	const struct stream *s = &ds->s;
	ZSTD_outBuffer out = { s->body, s->raw_len, ds->done };

	if (!ds->z) {
		unsigned long long size = ZSTD_getFrameContentSize(s->raw,
								   s->packed_len);

		if (size != s->raw_len ||
		    ZSTD_findFrameCompressedSize(s->raw, s->packed_len) != s->packed_len)
			return -EINVAL;
		ds->z = ZSTD_createDCtx();
		if (!ds->z)
			return -ENOMEM;
		if (ZSTD_isError(ZSTD_DCtx_setParameter(ds->z, ZSTD_d_stableOutBuffer, 1)))
			return -EINVAL;
	}
	while (!ds->ended && (out.pos < want || finish)) {
		size_t step = s->packed_len - ds->in_pos, r, before = out.pos;
		ZSTD_inBuffer in;

		if (!finish && step > DEFER_STEP)
			step = DEFER_STEP;
		in = (ZSTD_inBuffer){ s->raw + ds->in_pos, step, 0 };
		r = ZSTD_decompressStream(ds->z, &out, &in);
		if (ZSTD_isError(r))
			return -EINVAL;
		ds->in_pos += in.pos;
		if (!r)
			ds->ended = true;
		else if (!in.pos && out.pos == before)
			return -EINVAL;		/* cut short */
	}
	ds->done = out.pos;
	return 0;
}

static int xz_more(struct deferred_stream *ds, size_t want, bool finish)
{
	const struct stream *s = &ds->s;
	lzma_ret ret = LZMA_OK;

	if (!ds->x_open) {
		uint64_t memlimit = 2 * (uint64_t)s->raw_len + ((uint64_t)1 << 20);

		if (memlimit > XZ_MEMLIMIT)
			memlimit = XZ_MEMLIMIT;
		ret = lzma_stream_decoder(&ds->x, memlimit, 0);
		if (ret != LZMA_OK)
			return ret == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
		ds->x_open = true;
		ds->x.next_in = s->raw;
		ds->x.avail_in = s->packed_len;
	}
	if (finish)
		want = s->raw_len;
	while (!ds->ended && (ds->done < want || finish)) {
		size_t in_before = ds->x.avail_in, before = ds->done;

		ds->x.next_out = s->body + ds->done;
		ds->x.avail_out = want - ds->done;
		ret = lzma_code(&ds->x, LZMA_FINISH);
		ds->done = (size_t)(ds->x.next_out - s->body);
		if (ret == LZMA_STREAM_END)
			ds->ended = true;
		else if (ret == LZMA_MEM_ERROR)
			return -ENOMEM;
		else if (ret != LZMA_OK ||
			 (ds->done == before && ds->x.avail_in == in_before))
			return -EINVAL;		/* damaged, or no progress */
	}
	ds->in_pos = s->packed_len - ds->x.avail_in;
	return 0;
}

static int deferred_more(struct deferred_stream *ds, size_t want, bool finish)
{
	const struct stream *s = &ds->s;
	int err;

	if (want > s->raw_len)
		want = s->raw_len;
	if (!finish && ds->done >= want)
		return 0;
	switch (s->codec) {
	case CODEC_STORED:
		if (s->packed_len != s->raw_len)
			return -EINVAL;
		if (finish)
			want = s->raw_len;
		memcpy(s->body + ds->done, s->raw + ds->done, want - ds->done);
		ds->done = want;
		return 0;
	case CODEC_ZSTD:
		err = zstd_more(ds, want, finish);
		break;
	case CODEC_XZ:
		err = xz_more(ds, want, finish);
		break;
	default:
		return -EINVAL;
	}
	/* short of what was asked, or ended off the stream's sizes */
	if (!err && (ds->done < want ||
		     (ds->ended && (ds->done != s->raw_len ||
				    ds->in_pos != s->packed_len))))
		err = -EINVAL;
	return err;
}

int ar_deferred_need(struct ar_deferred *d, size_t end)
{
	unsigned j;
	int err = 0;

	for (j = 0; j < NR_DEFERRED && !err; j++)
		if (end > d->d[j].at && end - d->d[j].at <= d->d[j].s.raw_len)
			err = deferred_more(&d->d[j], end - d->d[j].at, false);
	return err;
}

int ar_deferred_finish(struct ar_deferred *d)
{
	unsigned j;
	int err = 0;

	for (j = 0; j < NR_DEFERRED && !err; j++)
		err = deferred_more(&d->d[j], d->d[j].s.raw_len, true);
	return err;
}

void ar_deferred_free(struct ar_deferred *d)
{
	unsigned j;

	if (!d)
		return;
	for (j = 0; j < NR_DEFERRED; j++) {
		ZSTD_freeDCtx(d->d[j].z);
		if (d->d[j].x_open)
			lzma_end(&d->d[j].x);
	}
	free(d);
}

size_t ar_deferred_done(const struct ar_deferred *d, unsigned i)
{
	return d->d[i].done;
}


/* ---- format 6: many streams, each with its section and first item -------- */

/*
 * Problem: a format 4 payload has at most 8 streams, a section each, so a
 * reader of one module of a late kernel unpacks nearly every section whole
 * (Debian's 131 kernels with every module: 50 MB of body for one module).
 * Format 6's body is numbered region by region (format.c: every kernel's
 * vmlinux, then the modules by name), each section cut where a region ends,
 * each cut its own stream; its table says, per stream, the section and the
 * number of the section's first item in it (string, pair, record, kernel),
 * so a reader parses a stream without the ones before it: a string's bytes
 * and a record's words are in the bytes or words stream cut at the same
 * item, from its start.
 *
 * The payload: le32 stream count (1 or more), then per stream: u8 codec,
 * u8 section (enum ar_section; AR_SECTION_MIXED: not cut by section, the
 * payload is read whole), le32 first item, le64 body bytes, le64 packed
 * bytes; then the streams, in order, filling the body end to end.
 * Invariant: the body is format 6's whatever the cuts; every stream
 * unpacked gives it as ar_unpack() gives format 4's. Cost: 22 bytes a
 * stream, and what a compressor loses at a stream's start.
 */
#define ENTRY6_LEN 22

static void put_le32(uint8_t *p, uint32_t v)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int ar_pack6(const uint8_t *body, size_t len, enum ar_pack_effort effort,
	     const struct ar_cut *cuts, uint32_t nr_cuts, struct ar_buf *out)
{
	size_t v4cut[AR_PACK_MAX_STREAMS];
	struct ar_cut *own = NULL;
	struct stream *s;
	struct stream_job job = { NULL, 0, 0, true, effort, len };
	uint8_t entry[ENTRY6_LEN];
	uint32_t i, nr;
	int err;

	if (!cuts || !nr_cuts) {	/* any bytes: format 4's cuts, mixed */
		unsigned n = body_cuts(body, len, v4cut);

		own = calloc(n + 1, sizeof(*own));
		if (!own)
			return -ENOMEM;
		for (i = 0; i <= n; i++)
			own[i] = (struct ar_cut){ i ? v4cut[i - 1] : 0, i,
						  AR_SECTION_MIXED };
		cuts = own;
		nr_cuts = n + 1;
	}
	nr = nr_cuts;
	s = calloc(nr, sizeof(*s));
	if (!s) {
		free(own);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		size_t to = i + 1 < nr ? cuts[i + 1].at : len;

		s[i].raw = body + cuts[i].at;
		s[i].raw_len = to - cuts[i].at;
		/* the codec's rules by section; a mixed cut's by its place */
		s[i].section = cuts[i].section == AR_SECTION_MIXED ?
			       cuts[i].first : cuts[i].section;
		s[i].first = cuts[i].section == AR_SECTION_MIXED ? 0 :
			     cuts[i].first;
		s[i].cut = !own;
	}
	job.s = s;
	job.nr = nr;
	err = run_streams(&job);
	/* one stream where smaller: any bytes, or a kernel or two (xz) */
	if (!err && (own || effort == AR_PACK_XZ_ALL) && len <= ONE_STREAM_MAX) {
		unsigned n = nr;

		err = one_stream_if_smaller(body, len, effort, s, &n);
		if (!err && n == 1 && nr > 1) {	/* one stream: mixed */
			nr = 1;
			s[0].first = 0;
			own = own ? own : calloc(1, sizeof(*own));
			if (!own)
				err = -ENOMEM;
			else
				cuts = own;
			if (own)
				own[0].section = AR_SECTION_MIXED;
		}
	}
	put_le32(entry, nr);
	err = err ? err : ar_buf_put(out, entry, 4);
	for (i = 0; i < nr && !err; i++) {
		entry[0] = (uint8_t)s[i].codec;
		entry[1] = (uint8_t)cuts[i].section;
		put_le32(entry + 2, s[i].first);
		put_le64(entry + 6, s[i].raw_len);
		put_le64(entry + 14, s[i].packed_len);
		err = ar_buf_put(out, entry, ENTRY6_LEN);
	}
	for (i = 0; i < nr && !err; i++)
		err = ar_buf_put(out, s[i].packed ? s[i].packed : s[i].raw,
				 s[i].packed_len);
	for (i = 0; i < nr; i++)
		free(s[i].packed);
	free(s);
	free(own);
	return err;
}

/*
 * Format 6's stream table into *out (malloc, *nr entries), each stream's
 * place in body and payload set. -EINVAL when the table does not describe
 * exactly len bytes of payload and body_len of body, or a section's
 * streams are out of order (sections ascending, a section's first items
 * strictly ascending from 0, every stream of one section or all mixed).
 */
static int read_table6(const uint8_t *payload, size_t len, uint8_t *body,
		       size_t body_len, struct stream **out, uint32_t *nr_out,
		       bool *mixed)
{
	size_t at, filled = 0;
	uint32_t nr, i;
	struct stream *s;
	unsigned last_section = 0;

	*out = NULL;
	if (len < 4)
		return -EINVAL;
	nr = get_le32(payload);
	if (!nr || nr > (len - 4) / ENTRY6_LEN)
		return -EINVAL;
	at = 4 + (size_t)nr * ENTRY6_LEN;
	s = calloc(nr, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*mixed = payload[4 + 1] == AR_SECTION_MIXED;
	for (i = 0; i < nr; i++) {
		const uint8_t *e = payload + 4 + (size_t)i * ENTRY6_LEN;
		uint64_t raw = get_le64(e + 6), packed = get_le64(e + 14);
		unsigned section = e[1];
		uint32_t first = get_le32(e + 2);

		if (e[0] >= NR_CODECS || raw > body_len - filled ||
		    packed > len - at || (section == AR_SECTION_MIXED) != *mixed)
			goto bad;
		if (!*mixed &&
		    (section >= AR_NR_SECTIONS || section < last_section ||
		     (i && section == last_section ? first <= s[i - 1].first :
		      first != 0)))
			goto bad;
		last_section = section;
		s[i].codec = (enum codec)e[0];
		s[i].section = section;
		s[i].first = first;
		s[i].raw = payload + at;
		s[i].packed_len = (size_t)packed;
		s[i].body = body + filled;
		s[i].raw_len = (size_t)raw;
		filled += (size_t)raw;
		at += (size_t)packed;
	}
	if (filled != body_len || at != len)
		goto bad;
	*out = s;
	*nr_out = nr;
	return 0;
bad:
	free(s);
	return -EINVAL;
}

int ar_unpack6(const uint8_t *payload, size_t len, uint8_t *body,
	       size_t body_len)
{
	struct stream_job job = { NULL, 0, 0, false, AR_PACK_BEST, body_len };
	bool mixed;
	int err = read_table6(payload, len, body, body_len, &job.s, &job.nr,
			      &mixed);

	err = err ? err : run_streams(&job);
	free(job.s);
	return err;
}

/*
 * A format 6 payload read in part (bc_archive_open_partial): every stream
 * stays packed until a reader asks for it (ar_chunks_unpack), then is
 * unpacked whole: a stream is a region's part of one section, 0.1-1 MB.
 */
struct ar_chunks {
	struct stream *s;
	uint32_t nr;
	uint32_t start[AR_NR_SECTIONS + 1];	/* a section's first stream */
	bool *done;
	size_t unpacked;	/* body bytes unpacked (tests) */
	ZSTD_DCtx *z;		/* for the streams unpacked one by one */
};

int ar_unpack_chunked(const uint8_t *payload, size_t len, uint8_t *body,
		      size_t body_len, struct ar_chunks **out)
{
	struct ar_chunks *c;
	bool mixed;
	uint32_t i;
	int err;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = read_table6(payload, len, body, body_len, &c->s, &c->nr, &mixed);
	if (!err && mixed) {	/* not cut by section: the whole body */
		struct stream_job job = { c->s, c->nr, 0, false, AR_PACK_BEST,
					  body_len };

		err = run_streams(&job);
		free(c->s);
		free(c);
		return err;
	}
	c->done = err ? NULL : calloc(c->nr, sizeof(bool));
	if (!err && !c->done)
		err = -ENOMEM;
	if (err) {
		free(c->s);
		free(c->done);
		free(c);
		return err;
	}
	for (i = 0; i <= AR_NR_SECTIONS; i++) {
		uint32_t j = 0;

		while (j < c->nr && c->s[j].section < i)
			j++;
		c->start[i] = j;
	}
	*out = c;
	return 0;
}

uint32_t ar_chunks_count(const struct ar_chunks *c, unsigned section)
{
	return c->start[section + 1] - c->start[section];
}

void ar_chunks_info(const struct ar_chunks *c, unsigned section, uint32_t i,
		    uint8_t **at, size_t *len, uint32_t *first)
{
	const struct stream *s = &c->s[c->start[section] + i];

	*at = s->body;
	*len = s->raw_len;
	*first = s->first;
}

uint32_t ar_chunks_find(const struct ar_chunks *c, unsigned section,
			uint32_t item)
{
	uint32_t lo = c->start[section], hi = c->start[section + 1];

	/* the last stream whose first item is at most item */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->s[mid].first <= item)
			lo = mid;
		else
			hi = mid;
	}
	return lo - c->start[section];
}

int ar_chunks_unpack(struct ar_chunks *c, unsigned section, uint32_t i)
{
	uint32_t at = c->start[section] + i;
	int err;

	if (c->done[at])
		return 0;
	err = unpack_stream(&c->s[at], &c->z);
	if (!err) {
		c->done[at] = true;
		c->unpacked += c->s[at].raw_len;
	}
	return err;
}

int ar_chunks_unpack_some(struct ar_chunks *c, const bool *want, uint32_t nr,
			  const unsigned *sections, unsigned nr_sections)
{
	struct stream_job job = { NULL, 0, 0, false, AR_PACK_BEST, 0 };
	uint32_t i, at;
	unsigned j;
	int err;

	job.s = malloc(((size_t)nr * nr_sections + 1) * sizeof(*job.s));
	if (!job.s)
		return -ENOMEM;
	for (j = 0; j < nr_sections; j++)
		for (i = 0; i < nr && i < ar_chunks_count(c, sections[j]); i++) {
			at = c->start[sections[j]] + i;
			if (want[i] && !c->done[at]) {
				job.s[job.nr++] = c->s[at];
				job.body_len += c->s[at].raw_len;
			}
		}
	err = run_streams(&job);
	for (j = 0; j < nr_sections && !err; j++)
		for (i = 0; i < nr && i < ar_chunks_count(c, sections[j]); i++) {
			at = c->start[sections[j]] + i;
			if (want[i] && !c->done[at]) {
				c->done[at] = true;
				c->unpacked += c->s[at].raw_len;
			}
		}
	free(job.s);
	return err;
}

int ar_chunks_finish(struct ar_chunks *c)
{
	struct stream_job job = { NULL, 0, 0, false, AR_PACK_BEST, 0 };
	uint32_t i;
	int err;

	job.s = malloc((c->nr ? c->nr : 1) * sizeof(*job.s));
	if (!job.s)
		return -ENOMEM;
	for (i = 0; i < c->nr; i++)
		if (!c->done[i]) {
			job.s[job.nr++] = c->s[i];
			job.body_len += c->s[i].raw_len;
		}
	err = run_streams(&job);
	free(job.s);
	for (i = 0; i < c->nr && !err; i++)
		if (!c->done[i]) {
			c->done[i] = true;
			c->unpacked += c->s[i].raw_len;
		}
	return err;
}

size_t ar_chunks_unpacked(const struct ar_chunks *c)
{
	return c ? c->unpacked : 0;
}

void ar_chunks_free(struct ar_chunks *c)
{
	if (!c)
		return;
	ZSTD_freeDCtx(c->z);
	free(c->s);
	free(c->done);
	free(c);
}
