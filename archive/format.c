// SPDX-License-Identifier: GPL-2.0-only
/*
 * The archive file: writing it (numbering the pools, choosing parents,
 * coding the lists) and reading it back with every number checked.
 *
 * The file (all integers little-endian):
 *	"BTFCARC1", u32 version (4; 6 when a kernel has modules), u32 flags
 *	0, u64 body bytes, u64 payload bytes, payload (archive/pack.c: the
 *	body cut into streams, each compressed on its own with zstd or xz;
 *	format 6's table gives each stream its section and first item), u32
 *	CRC-32 of all that precedes it. Nothing may follow. Version 3 had the
 *	same body in one LZ4 frame (independent blocks, the content size in
 *	the frame header, no checksums of its own).
 * The body, in LEB128 varints:
 *	strings:  count; every length; then every string's bytes and a NUL
 *	          (string 0 is "")
 *	kinds+names: count, then each: kind, string
 *	records:  count; every head: kind|kflag<<7, vlen, kn+1 or 0, byte
 *	          length of its words; then every record's words
 *	kernels:  count, then each in version order: name (length, bytes),
 *	          flags (bit 0: stored as bytes), then bytes (length, bytes)
 *	          or parent + 1 (0: none), type count, script (length, bytes);
 *	          layout entries (count, 4 bytes each), attachments (count,
 *	          then name, length, bytes, names ascending)
 *	          format 6: then the module names, every name a kernel's
 *	          module has: count, then each (length, bytes), ascending
 *	modules (format 6): a group a module name, in name order: count,
 *	          then each kernel's module of that name, kernels ascending:
 *	          the kernel's index (the first) or its distance from the one
 *	          before, less one; flags, bytes or type count and script,
 *	          layout entries (format 5 had each kernel's modules after
 *	          its attachments, by kernel, each with its name; format 6's
 *	          first files, by kernel too, after the kernels)
 * Lengths apart from the bytes are what lets a reader that wants one
 * kernel skip what it does not use: it reads the strings' lengths, the
 * pairs and the records' heads (0.16 and 1.19 MB of the 7.3 MB body of
 * Debian's 118 kernels), and decodes a record's words (2.5 MB in all)
 * only when the kernel it rebuilds uses them (bc_archive_open_lazy:
 * 6.12.117 cloud-amd64 uses 107k of the 170k records). The record
 * lengths cost 30 kB of the 4.68 MB file of version 3.
 * Format 6 (issue 33: every module of Debian's 131 kernels, a 50 MB
 * body) numbers the pools by owner (below, "Format 6's regions"):
 * vmlinux's records, strings and pairs first, then those two module
 * names or more share, then each module name's own, and cuts every
 * section where the owner changes and every few hundred kilobytes; a
 * reader of one module (bc_archive_open_partial, deferred.c) unpacks and
 * parses only the streams holding what its lists use: 15 MB of 50 for
 * xfs of 6.12.117 cloud-amd64, 31 MB in format 5's numbering, where a
 * kernel's modules came after it and their strings were numbered by
 * first use over all of them. Its module entries are name-major (a group
 * a name, every kernel's entry of that name together, cut between groups
 * every 64 KB): a module's script is against the module of its name in
 * its kernel's parent, so xfs's group holds the chain, and an extract of
 * xfs reads that group's stream (tens of kilobytes), not the entries of
 * its kernel and its 18 parents (3.4 MB); a name is written once, not
 * once a kernel (Debian's 131: 16.6 MB, 19.9 by kernel).
 * Versions 1, 2, 3 and 5 are still read, never written. 1 and 2 had each string's
 * length before its bytes and each record's head before its words, with
 * no length: a reader had to decode every record to find the next one.
 * Version 1 compressed the body with zstd (level 5): 2.92 MB for Debian's
 * 118 kernels instead of 4.65 MB, but its 7.1 MB body took 14-16 ms to
 * decompress on the 2-vCPU machine of BENCH.md, a quarter of an extract,
 * against 3 ms for LZ4, and 0.16-0.29 s to compress on every add and
 * remove against 0.03 s. Every reader needs most of the body (a kernel
 * uses two thirds of the shared records, spread over all of them), so
 * the codec's speed counts: version 4 compresses each section on its
 * own (pack.c), zstd where xz would be slow to read back, 2.31 MB.
 * A script lists a kernel's records as copies of a run of its parent's
 * list (length << 1 | 1, then the start's distance from where the last
 * copy ended, zigzag) and literals (count << 1, then each record number
 * as its distance from the last literal + 1, zigzag: records are numbered
 * by first use, so a kernel's new records count up by one).
 *
 * Determinism: records, names and strings are numbered by first use in
 * kernel order (version order), then the records' own order (format 6:
 * by owner first, each owner's by first use in that order); parents are
 * chosen by similarity over that order. Nothing depends on the order in
 * which kernels were added. Cost: adding a kernel is linear in its types
 * plus a rewrite of the file; serializing is linear in all lists.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>

#include "../canon/btf_data.h"
#include "bytes_form.h"
#include "internal.h"
#include "pack.h"

#define HEADER_LEN 32
#define TRAILER_LEN 4
#define FORMAT_VERSION 4		/* written when no kernel has modules */
#define FORMAT_VERSION_REGIONS 6	/* with modules: cut by region */
#define FORMAT_VERSION_MODULES 5	/* still read: 4 with each kernel's modules */
#define FORMAT_VERSION_SPLIT 3	/* still read: 4's body in one LZ4 frame */
#define FORMAT_VERSION_LZ4 2	/* still read: the body laid out as in 1 */
#define FORMAT_VERSION_ZSTD 1	/* still read: 2 with a zstd payload */
/* choose_parents() compares kernels on every PARENT_SAMPLE-th record */
#define PARENT_SAMPLE 64

/* ---- writing ------------------------------------------------------------ */

/* Numbers given by first use while serializing (number + 1; 0: none yet). */
struct numbering {
	uint32_t *rec, *kn, *str;
	struct u32vec rec_order, kn_order, str_order;
	struct regions *rg;	/* format 6: where regions end; else NULL */
};

/*
 * Format 6's regions (with modules, three kernels or more). Every record,
 * string and pair has an owner: the kernels' vmlinux (OWN_VM) when a
 * kernel's list uses it; else the one module name whose lists use it
 * (OWN_NAME + the name's rank); else OWN_SHARED (two names or more). Each
 * pool is numbered vmlinux's first, then the shared, then module name by
 * module name, each part by first use, so that one module of a kernel
 * reads vmlinux's part, the shared part and its name's. A section is cut
 * where the owner's kind changes, in vmlinux's and the shared part every
 * REGION_BYTES, between names once a stream holds REGION_BYTES and inside
 * a name past 4 * REGION_BYTES (xfs alone). A function of the set.
 */
#define REGION_BYTES ((size_t)256 << 10)
#define STRING_CUT_BYTES ((size_t)64 << 10)
#define PAIR_CUT_BYTES ((size_t)16 << 10)
#define OWN_VM 1
#define OWN_SHARED 2
#define OWN_NAME 3

/* Owner a and b merged: vmlinux's, else one name's, else shared. */
static uint32_t own_merge(uint32_t a, uint32_t b)
{
	if (!a || a == b)
		return b;
	return a < b ? (a < OWN_SHARED ? a : OWN_SHARED) :
		       (b < OWN_SHARED ? b : OWN_SHARED);
}

/* Whether a stream ends before an item of owner own after one of prev. */
static bool cut_before(uint32_t prev, uint32_t own, size_t acc, size_t target)
{
	uint32_t pc = prev < OWN_NAME ? prev : OWN_NAME;
	uint32_t c = own < OWN_NAME ? own : OWN_NAME;

	if (pc != c)
		return true;
	if (c < OWN_NAME)
		return acc >= target;
	return (own != prev && acc >= target) || acc >= 4 * target;
}

struct region {
	uint32_t rec;		/* its first record */
	size_t heads, words;	/* where its heads and words start */
};

struct regions {
	struct region *v;
	size_t n, cap;
	const uint32_t *rec_own;	/* [pool record] owner */
};

/* Whether a region ends before record i (heads, words: bytes so far). */
static bool region_ends(struct regions *rg, const struct numbering *nb,
			uint32_t i, size_t heads, size_t words)
{
	const struct region *last = &rg->v[rg->n - 1];
	size_t acc = heads - last->heads + words - last->words;

	return cut_before(rg->rec_own[nb->rec_order.v[i - 1]],
			  rg->rec_own[nb->rec_order.v[i]], acc, REGION_BYTES);
}

static int region_push(struct regions *rg, struct region r)
{
	if (rg->n == rg->cap) {
		size_t cap = rg->cap ? rg->cap * 2 : 64;
		struct region *v = realloc(rg->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rg->v = v;
		rg->cap = cap;
	}
	rg->v[rg->n++] = r;
	return 0;
}

static int number(uint32_t *num, struct u32vec *order, uint32_t id,
		  uint32_t *out)
{
	if (!num[id]) {
		int err = ar_u32vec_push(order, id);

		if (err)
			return err;
		num[id] = (uint32_t)order->n;
	}
	*out = num[id] - 1;
	return 0;
}

static int number_kn(struct bc_archive *ar, struct numbering *nb, uint32_t kn,
		     uint32_t *out)
{
	uint32_t sid;
	int err = 0;

	if (!nb->kn[kn])
		err = number(nb->str, &nb->str_order, ar->kns[kn].sid, &sid);
	return err ? err : number(nb->kn, &nb->kn_order, kn, out);
}

/*
 * The records in numbering order, as the body writes them: each one's
 * head into heads (with the byte length of its words), its words into
 * words.
 */
static int write_records(struct bc_archive *ar, struct numbering *nb,
			 struct ar_buf *heads, struct ar_buf *words_out)
{
	size_t i;
	int err = 0;

	if (nb->rg)
		err = region_push(nb->rg, (struct region){ 0 });
	for (i = 0; i < nb->rec_order.n && !err; i++) {
		const uint32_t *c = ar->cells + ar->rec_off[nb->rec_order.v[i]];
		uint32_t info = c[0], kind = bc_info_kind(info);
		uint32_t words = ar_info_words(info), j, ci = 2, num = 0, kn = 0;
		struct ar_buf *out = words_out;
		size_t start = out->len;

		if (nb->rg && i && region_ends(nb->rg, nb, (uint32_t)i, heads->len,
					       start))
			err = region_push(nb->rg, (struct region){
				(uint32_t)i, heads->len, start });
		if (c[1] && !err)
			err = number_kn(ar, nb, c[1] - 1, &kn);
		for (j = 2; j < words && !err; j++) {
			switch (bc_word_class(kind, j)) {
			case BC_WORD_REF: {
				uint32_t code = c[ci++];

				if (!code) {
					err = ar_buf_varint(out, 0);
				} else if (code & 1) {
					err = number(nb->rec, &nb->rec_order,
						     (code - 1) / 2, &num);
					err = err ? err : ar_buf_varint(out, 1 + 2 * (uint64_t)num);
				} else {
					err = number_kn(ar, nb, code / 2 - 1, &num);
					err = err ? err : ar_buf_varint(out, 2 + 2 * (uint64_t)num);
					err = err ? err : ar_buf_varint(out, c[ci++]);
				}
				break;
			}
			case BC_WORD_NAME:
				err = number(nb->str, &nb->str_order, c[ci++], &num);
				err = err ? err : ar_buf_varint(out, num);
				break;
			default:
				err = ar_buf_varint(out, c[ci++]);
			}
		}
		err = err ? err : ar_buf_varint(heads, (info >> 24 & 0x7f) | (info >> 31) << 7);
		err = err ? err : ar_buf_varint(heads, bc_info_vlen(info));
		err = err ? err : ar_buf_varint(heads, c[1] ? kn + 1 : 0);
		err = err ? err : ar_buf_varint(heads, out->len - start);
	}
	return err;
}

/*
 * Each kernel's parent: among the kernels before it (version order), the
 * one sharing most records with it, measured on every 64th record of the
 * candidate: score 2 * shared - sampled; none when no score is positive.
 */
static int choose_parents(struct bc_archive *ar)
{
	uint32_t *mark = calloc(ar->nr_recs + 1, sizeof(uint32_t)), k, j, i;
	uint32_t **sample = calloc(ar->nr_kernels + 1, sizeof(*sample));
	uint32_t *nr_sample = calloc(ar->nr_kernels + 1, sizeof(uint32_t));
	int err = mark && sample && nr_sample ? 0 : -ENOMEM;

	/* each kernel's sample, contiguous: the loops below stay in cache */
	for (k = 0; k < ar->nr_kernels && !err; k++) {
		const struct ar_kernel *kern = &ar->kernels[k];

		if (kern->raw)
			continue;
		sample[k] = malloc((kern->nr_types / PARENT_SAMPLE + 1) * sizeof(uint32_t));
		if (!sample[k]) {
			err = -ENOMEM;
			break;
		}
		for (i = 0; i < kern->nr_types; i += PARENT_SAMPLE)
			sample[k][nr_sample[k]++] = kern->recs[i];
	}
	for (k = 0; k < ar->nr_kernels && !err; k++) {
		struct ar_kernel *kern = &ar->kernels[k];
		int64_t best = 0;

		kern->parent = -1;
		if (kern->raw)
			continue;
		for (i = 0; i < kern->nr_types; i++)
			mark[kern->recs[i]] = k + 1;
		for (j = 0; j < k; j++) {
			int64_t score = 0;

			if (ar->kernels[j].raw)
				continue;
			for (i = 0; i < nr_sample[j]; i++)
				score += mark[sample[j][i]] == k + 1 ? 1 : -1;
			if (score > 0 && score >= best) {
				best = score;
				kern->parent = j;
			}
		}
	}
	for (k = 0; sample && k < ar->nr_kernels; k++)
		free(sample[k]);
	free(sample);
	free(nr_sample);
	free(mark);
	return err;
}

/*
 * Kernel k's script against its parent: list and plist in pool numbers
 * (copies compare records, whatever their numbering), literals written
 * in file numbers (filenum: pool number -> file number + 1). pos has a
 * zeroed entry per pool record and is zeroed again after.
 */
static int write_script(const uint32_t *list, uint32_t n,
			const uint32_t *plist, uint32_t np, uint32_t *pos,
			const uint32_t *filenum, struct ar_buf *out)
{
	uint64_t expect = 0, last = 0;
	uint32_t i = 0, j;
	int err = 0;

	for (j = 0; j < np; j++)
		if (!pos[plist[j]])
			pos[plist[j]] = j + 1;
	while (i < n && !err) {
		uint32_t p = pos[list[i]], len = 1;

		if (p) {
			p--;
			while (i + len < n && p + len < np &&
			       plist[p + len] == list[i + len])
				len++;
			err = ar_buf_varint(out, (uint64_t)len << 1 | 1);
			err = err ? err : ar_buf_varint(out, ar_zigzag((int64_t)p - (int64_t)expect));
			expect = p + len;
			i += len;
			continue;
		}
		while (i + len < n && !pos[list[i + len]])
			len++;
		err = ar_buf_varint(out, (uint64_t)len << 1);
		for (j = i; j < i + len && !err; j++) {
			uint32_t rec = filenum[list[j]] - 1;

			err = ar_buf_varint(out, ar_zigzag((int64_t)rec - (int64_t)last));
			last = rec + 1ull;
		}
		i += len;
	}
	for (j = 0; j < np; j++)
		pos[plist[j]] = 0;
	return err;
}

static int write_bytes(struct ar_buf *out, const void *data, size_t len)
{
	int err = ar_buf_varint(out, len);

	return err ? err : ar_buf_put(out, data, len);
}

/*
 * Module i of kernel k as format 6 writes it in its name's group: flags
 * (bit 0: stored as bytes), bytes (length, bytes) or type count and
 * script (length, bytes) against the module of that name in the kernel's
 * parent (none: literals only); layout entries (count, 4 bytes each).
 */
static int write_module(struct bc_archive *ar, uint32_t k, uint32_t i,
			struct numbering *nb, uint32_t *pos,
			struct ar_buf *script, struct ar_buf *out)
{
	const struct ar_module *m = &ar->kernels[k].mods[i], *pm;
	int64_t pk = -1;
	uint32_t pi = 0;
	int err = ar_buf_varint(out, m->raw ? AR_FLAG_RAW : 0);

	if (err)
		return err;
	if (m->raw) {
		err = write_bytes(out, m->blob, m->blob_size);
	} else {
		pm = ar_module_parent(ar, k, i, &pk, &pi);
		script->len = 0;
		err = write_script(m->recs, m->nr_types, pm ? pm->recs : NULL,
				   pm ? pm->nr_types : 0, pos, nb->rec, script);
		err = err ? err : ar_buf_varint(out, m->nr_types);
		err = err ? err : write_bytes(out, script->data, script->len);
	}
	return err ? err : write_bytes(out, m->layout,
				       m->nr_layout * sizeof(*m->layout));
}

/* Format 6's cuts as the body is written (pack.h). */
struct cutvec {
	struct ar_cut *v;
	uint32_t n, cap;
};

static int cut_push(struct cutvec *cv, size_t at, unsigned section,
		    uint32_t first)
{
	if (cv->n == cv->cap) {
		uint32_t cap = cv->cap ? cv->cap * 2 : 256;
		struct ar_cut *v = realloc(cv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		cv->v = v;
		cv->cap = cap;
	}
	cv->v[cv->n++] = (struct ar_cut){ at, first, section };
	return 0;
}

/*
 * Format 6's modules section is cut between name groups (at[g]: where
 * group g starts, at[n]: the end) once a stream holds MODULE_CUT_BYTES,
 * and before a group that size or more, so a big group is a stream alone:
 * a module's extract unpacks the stream of its name's group, never the
 * modules of the kernel's parents' other names.
 */
#define MODULE_CUT_BYTES ((size_t)64 << 10)

static int group_cuts(const struct bc_archive *ar, struct cutvec *cv,
		      const size_t *at, uint32_t n)
{
	size_t last = at[0], target = ar->module_cut_bytes ?
				      ar->module_cut_bytes : MODULE_CUT_BYTES;
	uint32_t g;
	int err = cut_push(cv, at[0], AR_SEC_MODULES, 0);

	for (g = 1; g < n && !err; g++)
		if (at[g] - last >= target || at[g + 1] - at[g] >= target) {
			err = cut_push(cv, at[g], AR_SEC_MODULES, g);
			last = at[g];
		}
	return err;
}

/*
 * Format 6's modules after the kernel entries: the names' directory (at
 * the end of the kernels' section: count, then each name ascending), then
 * the modules section, a group a name in name order (count, then each
 * kernel's module of that name, kernels ascending: the index's distance
 * from the one before + 1, the first its index; then write_module()),
 * cut by group_cuts().
 */
static int write_module_groups(struct bc_archive *ar, struct numbering *nb,
			       uint32_t *pos, struct ar_buf *script,
			       struct ar_buf *out, struct cutvec *cv)
{
	struct ar_mod_ref *all = NULL;
	size_t nr = 0, a, b, *at = NULL;
	uint32_t nr_names = 0, g;
	int err = ar_modules_by_name(ar, &all, &nr, &nr_names);

	err = err ? err : ar_buf_varint(out, nr_names);
	for (a = 0; a < nr && !err; a++)
		if (!a || strcmp(all[a - 1].name, all[a].name))
			err = write_bytes(out, all[a].name, strlen(all[a].name));
	if (!err) {
		at = malloc(((size_t)nr_names + 1) * sizeof(*at));
		err = at ? 0 : -ENOMEM;
	}
	for (a = 0, g = 0; a < nr && !err; a = b, g++) {
		for (b = a + 1; b < nr && !strcmp(all[a].name, all[b].name); b++)
			;
		at[g] = out->len;
		err = ar_buf_varint(out, b - a);
		for (size_t e = a; e < b && !err; e++) {
			err = ar_buf_varint(out, e == a ? all[e].k :
					    all[e].k - all[e - 1].k - 1);
			err = err ? err : write_module(ar, all[e].k, all[e].i, nb,
						       pos, script, out);
		}
	}
	if (!err && nr_names) {
		at[nr_names] = out->len;
		err = group_cuts(ar, cv, at, nr_names);
	}
	free(at);
	free(all);
	return err;
}

/*
 * The kernels, then (with cv: format 6) the module names and the modules
 * by name (write_module_groups()): a reader of one kernel's module reads
 * the kernel entries whole and its name's group.
 */
static int write_kernels(struct bc_archive *ar, struct numbering *nb,
			 struct ar_buf *out, struct cutvec *cv)
{
	uint32_t *pos = calloc((size_t)ar->nr_recs + 1, sizeof(uint32_t)), k, i;
	struct ar_buf script = { 0 };
	int err = pos ? ar_buf_varint(out, ar->nr_kernels) : -ENOMEM;

	for (k = 0; k < ar->nr_kernels && !err; k++) {
		struct ar_kernel *kern = &ar->kernels[k];

		err = write_bytes(out, kern->name, strlen(kern->name));
		err = err ? err : ar_buf_varint(out, kern->raw ? AR_FLAG_RAW : 0);
		if (err)
			break;
		if (kern->raw) {
			err = write_bytes(out, kern->blob, kern->blob_size);
		} else {
			const struct ar_kernel *p = kern->parent >= 0 ?
				&ar->kernels[kern->parent] : NULL;

			script.len = 0;
			err = write_script(kern->recs, kern->nr_types,
					   p ? p->recs : NULL, p ? p->nr_types : 0,
					   pos, nb->rec, &script);
			err = err ? err : ar_buf_varint(out, kern->parent + 1);
			err = err ? err : ar_buf_varint(out, kern->nr_types);
			err = err ? err : write_bytes(out, script.data, script.len);
		}
		err = err ? err : write_bytes(out, kern->layout,
					      kern->nr_layout * sizeof(*kern->layout));
		err = err ? err : ar_buf_varint(out, kern->nr_att);
		for (i = 0; i < kern->nr_att && !err; i++) {
			err = write_bytes(out, kern->att[i].name,
					  strlen(kern->att[i].name));
			err = err ? err : write_bytes(out, kern->att[i].data,
						      kern->att[i].size);
		}
	}
	if (cv && !err)
		err = write_module_groups(ar, nb, pos, &script, out, cv);
	free(pos);
	free(script.data);
	return err;
}

/* The owners of format 6 (above): [pool item] owner, 0 for none. */
struct owners {
	uint32_t *rec, *str, *kn;
};

/*
 * The strings and pairs record rec uses, in the order write_records()
 * numbers them (a pair's string before it): fn(ctx, is_pair, id).
 */
static void record_names(const struct bc_archive *ar, uint32_t rec,
			 void (*fn)(void *ctx, bool pair, uint32_t id), void *ctx)
{
	const uint32_t *c = ar->cells + ar->rec_off[rec];
	uint32_t info = c[0], kind = bc_info_kind(info);
	uint32_t words = ar_info_words(info), j, ci = 2;

	if (c[1]) {
		fn(ctx, false, ar->kns[c[1] - 1].sid);
		fn(ctx, true, c[1] - 1);
	}
	for (j = 2; j < words; j++) {
		switch (bc_word_class(kind, j)) {
		case BC_WORD_REF: {
			uint32_t code = c[ci++];

			if (code && !(code & 1)) {
				fn(ctx, false, ar->kns[code / 2 - 1].sid);
				fn(ctx, true, code / 2 - 1);
				ci++;
			}
			break;
		}
		case BC_WORD_NAME:
			fn(ctx, false, c[ci++]);
			break;
		default:
			ci++;
		}
	}
}

struct name_walk {
	struct owners *own;
	struct numbering *nb;
	uint32_t owner;		/* the record's (owners), or the class numbered */
	int err;
};

static void merge_owner(void *ctx, bool pair, uint32_t id)
{
	struct name_walk *w = ctx;
	uint32_t *o = pair ? &w->own->kn[id] : &w->own->str[id];

	*o = own_merge(*o, w->owner);
}

/* Owners of class w->owner (OWN_NAME: any name) numbered by first use. */
static void number_class(void *ctx, bool pair, uint32_t id)
{
	struct name_walk *w = ctx;
	uint32_t o = pair ? w->own->kn[id] : w->own->str[id], dummy;

	if (w->err || (o < OWN_NAME ? o : OWN_NAME) != w->owner)
		return;
	w->err = pair ? number(w->nb->kn, &w->nb->kn_order, id, &dummy) :
			number(w->nb->str, &w->nb->str_order, id, &dummy);
}

/*
 * Number the records: every kernel's list in version order; then (own:
 * format 6) the modules' records by owner, shared ones first, each part
 * walking module names in name order, each name's lists in version order;
 * and the strings and pairs by owner, each class walking the records in
 * their order. Without own (format 4) strings and pairs are numbered by
 * write_records(), by first use. 0 or -ENOMEM.
 */
static int number_records(struct bc_archive *ar, struct numbering *nb,
			  struct owners *own)
{
	struct ar_mod_ref *all = NULL;
	size_t nr_all = 0, a;
	uint32_t k, i, dummy, name = OWN_NAME, pass, nr_names;
	int err = 0;

	for (k = 0; k < ar->nr_kernels && !err; k++) {
		const struct ar_kernel *kern = &ar->kernels[k];

		for (i = 0; i < kern->nr_types && !err && !kern->raw; i++) {
			err = number(nb->rec, &nb->rec_order, kern->recs[i], &dummy);
			if (own)
				own->rec[kern->recs[i]] = OWN_VM;
		}
	}
	if (err || !own)
		return err;
	err = ar_modules_by_name(ar, &all, &nr_all, &nr_names);
	if (err)
		return err;
	/* each record's owner: one name's, or shared */
	for (a = 0; a < nr_all; a++) {
		const struct ar_module *mod = &ar->kernels[all[a].k].mods[all[a].i];

		if (a && strcmp(all[a - 1].name, all[a].name))
			name++;
		for (i = 0; i < mod->nr_types && !mod->raw; i++)
			own->rec[mod->recs[i]] = own_merge(own->rec[mod->recs[i]],
							   name);
	}
	/* shared first, then each name's (records of a name come together) */
	for (pass = 0; pass < 2 && !err; pass++)
		for (a = 0; a < nr_all && !err; a++) {
			const struct ar_module *mod =
				&ar->kernels[all[a].k].mods[all[a].i];

			for (i = 0; i < mod->nr_types && !err && !mod->raw; i++) {
				uint32_t o = own->rec[mod->recs[i]];

				if (pass ? o >= OWN_NAME : o == OWN_SHARED)
					err = number(nb->rec, &nb->rec_order,
						     mod->recs[i], &dummy);
			}
		}
	free(all);
	/* strings and pairs: owners from the records, then numbered by class */
	for (a = 0; a < nb->rec_order.n && !err; a++) {
		struct name_walk w = { own, nb, own->rec[nb->rec_order.v[a]], 0 };

		record_names(ar, nb->rec_order.v[a], merge_owner, &w);
	}
	own->str[0] = OWN_VM;	/* "", numbered first */
	for (pass = OWN_VM; pass <= OWN_NAME && !err; pass++)
		for (a = 0; a < nb->rec_order.n && !err; a++) {
			struct name_walk w = { own, nb, pass, 0 };

			record_names(ar, nb->rec_order.v[a], number_class, &w);
			err = w.err;
		}
	return err;
}

/*
 * Where the streams of a pool's section start (format 6): item numbers
 * into cuts (0 first), by owner (own[order[i]]) and size (bytes(i)).
 */
static int pool_cuts(const uint32_t *order, size_t n, const uint32_t *own,
		     const struct bc_archive *ar, bool strings, size_t target,
		     struct u32vec *cuts)
{
	size_t i, acc = 0;
	int err = ar_u32vec_push(cuts, 0);

	for (i = 0; i < n && !err; i++) {
		size_t bytes = strings ? ar->strs[order[i]].len + 2u : 3;

		if (i && cut_before(own[order[i - 1]], own[order[i]], acc, target)) {
			err = ar_u32vec_push(cuts, (uint32_t)i);
			acc = 0;
		}
		acc += bytes;
	}
	return err;
}

/*
 * Format 6's cuts of the sections before the kernels: strings' lengths and
 * bytes at the same string (at[0], at[1]: where each cut string's length
 * and bytes start), pairs (at[2]), heads and words at the same record (a
 * region each). sec[]: where each section starts in the body.
 */
static int region_cuts(const struct regions *rg, const struct u32vec *scut,
		       const struct u32vec *kcut, size_t *const at[3],
		       const size_t sec[], struct cutvec *cv)
{
	size_t r;
	int err = 0;

	for (r = 0; r < scut->n && !err; r++)
		err = cut_push(cv, r ? at[0][r] : sec[0], AR_SEC_STRING_LENGTHS,
			       scut->v[r]);
	for (r = 0; r < scut->n && !err; r++)
		err = cut_push(cv, at[1][r], AR_SEC_STRING_BYTES, scut->v[r]);
	for (r = 0; r < kcut->n && !err; r++)
		err = cut_push(cv, r ? at[2][r] : sec[2], AR_SEC_PAIRS, kcut->v[r]);
	for (r = 0; r < rg->n && !err; r++)
		err = cut_push(cv, r ? sec[4] + rg->v[r].heads : sec[3],
			       AR_SEC_HEADS, rg->v[r].rec);
	for (r = 0; r < rg->n && !err; r++)
		err = cut_push(cv, sec[5] + rg->v[r].words, AR_SEC_WORDS,
			       rg->v[r].rec);
	return err;
}

/*
 * The body (format 4; format 6 with cuts, when a kernel has modules: its
 * cuts into *cuts, malloc, *nr_cuts of them). The cuts are by owner and
 * size when regions is set (three kernels or more), else where sections
 * start.
 */
static int serialize_body(struct bc_archive *ar, struct ar_buf *body,
			  bool regions, struct ar_cut **cuts, uint32_t *nr_cuts)
{
	struct numbering nb = { 0 };
	struct regions rg = { 0 };
	struct owners own = { 0 };
	struct ar_buf heads = { 0 }, words = { 0 };
	struct cutvec cv = { 0 };
	struct u32vec scut = { 0 }, kcut = { 0 };
	size_t *at[3] = { NULL, NULL, NULL }, sec[6];
	uint32_t dummy;
	size_t s, r;
	bool v6 = cuts && ar_has_modules(ar);
	int err;

	if (cuts) {
		*cuts = NULL;
		*nr_cuts = 0;
	}
	err = ar_decode_all(ar, NULL);
	if (err)
		return err;
	nb.rec = calloc(ar->nr_recs + 1, sizeof(uint32_t));
	nb.kn = calloc(ar->nr_kns + 1, sizeof(uint32_t));
	nb.str = calloc(ar->nr_strs + 1, sizeof(uint32_t));
	err = nb.rec && nb.kn && nb.str ? 0 : -ENOMEM;
	if (!err && v6) {
		own.rec = calloc(ar->nr_recs + 1, sizeof(uint32_t));
		own.kn = calloc(ar->nr_kns + 1, sizeof(uint32_t));
		own.str = calloc(ar->nr_strs + 1, sizeof(uint32_t));
		err = own.rec && own.kn && own.str ? 0 : -ENOMEM;
	}
	err = err ? err : number(nb.str, &nb.str_order, 0, &dummy);
	err = err ? err : number_records(ar, &nb, v6 ? &own : NULL);
	if (v6 && regions) {
		rg.rec_own = own.rec;
		nb.rg = &rg;	/* write_records() opens the first region */
	}
	err = err ? err : write_records(ar, &nb, &heads, &words);
	if (!err && v6 && !regions) {	/* a kernel or two: a stream a section */
		err = region_push(&rg, (struct region){ 0 });
		err = err ? err : ar_u32vec_push(&scut, 0);
		err = err ? err : ar_u32vec_push(&kcut, 0);
	} else if (!err && v6) {
		err = pool_cuts(nb.str_order.v, nb.str_order.n, own.str, ar, true,
				STRING_CUT_BYTES, &scut);
		err = err ? err : pool_cuts(nb.kn_order.v, nb.kn_order.n, own.kn,
					    ar, false, PAIR_CUT_BYTES, &kcut);
	}
	err = err ? err : choose_parents(ar);
	for (s = 0; s < 3 && !err && v6; s++) {
		at[s] = calloc((s < 2 ? scut.n : kcut.n) + 1, sizeof(size_t));
		if (!at[s])
			err = -ENOMEM;
	}
	sec[0] = body->len;
	err = err ? err : ar_buf_varint(body, nb.str_order.n);
	for (s = 0, r = 0; s < nb.str_order.n && !err; s++) {
		if (v6 && r < scut.n && scut.v[r] == s)
			at[0][r++] = body->len;
		err = ar_buf_varint(body, ar->strs[nb.str_order.v[s]].len);
	}
	sec[1] = body->len;
	for (s = 0, r = 0; s < nb.str_order.n && !err; s++) {
		const struct ar_str *str = &ar->strs[nb.str_order.v[s]];

		if (v6 && r < scut.n && scut.v[r] == s)
			at[1][r++] = body->len;
		err = ar_buf_put(body, str->s, str->len + 1);
	}
	sec[2] = body->len;
	err = err ? err : ar_buf_varint(body, nb.kn_order.n);
	for (s = 0, r = 0; s < nb.kn_order.n && !err; s++) {
		const struct ar_kn *kn = &ar->kns[nb.kn_order.v[s]];

		if (v6 && r < kcut.n && kcut.v[r] == s)
			at[2][r++] = body->len;
		err = ar_buf_varint(body, kn->kind);
		err = err ? err : ar_buf_varint(body, nb.str[kn->sid] - 1);
	}
	if (v6 && !err && !nb.kn_order.n)
		at[2][0] = body->len;
	sec[3] = body->len;
	err = err ? err : ar_buf_varint(body, nb.rec_order.n);
	sec[4] = body->len;
	err = err ? err : ar_buf_put(body, heads.data, heads.len);
	sec[5] = body->len;
	err = err ? err : ar_buf_put(body, words.data, words.len);
	if (!err && v6) {
		err = region_cuts(&rg, &scut, &kcut, at, sec, &cv);
		err = err ? err : cut_push(&cv, body->len, AR_SEC_KERNELS, 0);
	}
	err = err ? err : write_kernels(ar, &nb, body, v6 ? &cv : NULL);
	if (!err && v6) {
		*cuts = cv.v;
		*nr_cuts = cv.n;
		cv.v = NULL;
	}
	free(cv.v);
	for (s = 0; s < 3; s++)
		free(at[s]);
	free(scut.v);
	free(kcut.v);
	free(own.rec);
	free(own.kn);
	free(own.str);
	free(rg.v);
	free(heads.data);
	free(words.data);
	free(nb.rec);
	free(nb.kn);
	free(nb.str);
	free(nb.rec_order.v);
	free(nb.kn_order.v);
	free(nb.str_order.v);
	return err;
}

int ar_serialize_body(struct bc_archive *ar, struct ar_buf *body)
{
	struct ar_cut *cuts = NULL;
	uint32_t nr = 0;
	int err = serialize_body(ar, body, ar->nr_kernels > 2, &cuts, &nr);

	free(cuts);
	return err;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static uint32_t crc_of(const uint8_t *data, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	while (len) {
		uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;

		crc = crc32(crc, data, n);
		data += n;
		len -= n;
	}
	return (uint32_t)crc;
}

/* LZ4 frame preferences of format 2 and 3's payload. */
static LZ4F_preferences_t lz4_prefs(size_t len, int level)
{
	LZ4F_preferences_t prefs;

	memset(&prefs, 0, sizeof(prefs));
	prefs.frameInfo.blockSizeID = LZ4F_max64KB;
	prefs.frameInfo.blockMode = LZ4F_blockIndependent;
	prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
	prefs.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
	prefs.frameInfo.contentSize = len;
	prefs.compressionLevel = level;
	return prefs;
}

/* The header and the checksum around a payload of z bytes at file + HEADER_LEN. */
static void seal_file(uint8_t *file, uint32_t version, size_t body_len, size_t z)
{
	memcpy(file, BC_ARCHIVE_MAGIC, BC_ARCHIVE_MAGIC_LEN);
	put_le32(file + 8, version);
	put_le32(file + 12, 0);
	put_le64(file + 16, body_len);
	put_le64(file + 24, z);
	put_le32(file + HEADER_LEN + z, crc_of(file, HEADER_LEN + z));
}

int ar_wrap_body_lz4(const void *body, size_t len, uint32_t version,
		     void **out, size_t *size)
{
	LZ4F_preferences_t prefs = lz4_prefs(len, 0);
	size_t bound = LZ4F_compressFrameBound(len, &prefs), z;
	uint8_t *file = malloc(HEADER_LEN + bound + TRAILER_LEN);

	*out = NULL;
	if (!file)
		return -ENOMEM;
	z = LZ4F_compressFrame(file + HEADER_LEN, bound, body, len, &prefs);
	if (LZ4F_isError(z)) {
		free(file);
		return -EIO;
	}
	seal_file(file, version, len, z);
	*out = file;
	*size = HEADER_LEN + z + TRAILER_LEN;
	return 0;
}

int ar_wrap_body(const void *body, size_t len, int effort, void **out,
		 size_t *size)
{
	return ar_wrap_body_version(body, len, effort, FORMAT_VERSION, out, size);
}

int ar_wrap_body_version(const void *body, size_t len, int effort,
			 uint32_t version, void **out, size_t *size)
{
	return ar_wrap_body_cut(body, len, effort, version, NULL, 0, out, size);
}

int ar_wrap_body_cut(const void *body, size_t len, int effort,
		     uint32_t version, const struct ar_cut *cuts,
		     uint32_t nr_cuts, void **out, size_t *size)
{
	struct ar_buf file = { 0 };
	uint8_t header[HEADER_LEN] = { 0 };
	int err;

	*out = NULL;
	err = ar_buf_put(&file, header, HEADER_LEN);
	if (version >= FORMAT_VERSION_REGIONS)
		err = err ? err : ar_pack6(body, len, (enum ar_pack_effort)effort,
					   cuts, nr_cuts, &file);
	else
		err = err ? err : ar_pack(body, len, (enum ar_pack_effort)effort,
					  &file);
	err = err ? err : ar_buf_reserve(&file, TRAILER_LEN);
	if (err) {
		free(file.data);
		return err;
	}
	seal_file(file.data, version, len, file.len - HEADER_LEN);
	*out = file.data;
	*size = file.len + TRAILER_LEN;
	return 0;
}

/*
 * The version a file is written as: 4 unless a kernel has modules, so that
 * an archive without modules stays readable by format 4's readers (which
 * refuse 6 as a version they do not read); with modules 6 (5 is read,
 * never written).
 */
static uint32_t file_version(const struct bc_archive *ar)
{
	return ar_has_modules(ar) ? FORMAT_VERSION_REGIONS : FORMAT_VERSION;
}

/*
 * How the body is packed (pack.c). A kernel or two with their modules
 * share little: only xz in every stream brings them below `tar | xz -9e`
 * of their files (6.1 cloud with its 1,121 modules: 2.30 MB against
 * 2.47; zstd 2.87). Three kernels and more share records (modules too),
 * which `tar | xz` of their files cannot see, and zstd keeps reading
 * quick: Debian's four kernels of the tests with every module are 0.58x
 * `tar | xz -9e` in xz, about 0.74x in zstd, and an extract decodes 28
 * MB of body at 1-2 ns a byte in zstd, 10-20 in xz.
 */
static enum ar_pack_effort pack_effort(const struct bc_archive *ar)
{
	return ar_has_modules(ar) && ar->nr_kernels <= 2 ? AR_PACK_XZ_ALL :
	       AR_PACK_BEST;
}

/*
 * *file (*size bytes) replaced by the archive written with every kernel as
 * bytes (bytes_form.c builds that body) if that file is smaller. 0 or a
 * negative errno.
 */
static int keep_smaller_form(struct bc_archive *ar, void **file, size_t *size)
{
	struct ar_buf body = { 0 };
	struct cutvec cv = { 0 };
	void *bytes_file = NULL;
	size_t bytes_size = 0, *group_at = NULL;
	/* format 6 of three kernels and more: cut, so read in part */
	bool cut = ar_has_modules(ar) && ar->nr_kernels > 2;
	uint32_t nr_groups = 0;
	int err = ar_serialize_bytes_form(ar, &body, &group_at, &nr_groups);

	if (!err && cut && nr_groups) {
		/* "" (count, length; its byte), no pair, no record, the kernels */
		static const size_t at[] = { 0, 2, 3, 4, 5, 5 };
		unsigned s;

		for (s = 0; s < AR_SEC_MODULES && !err; s++)
			err = cut_push(&cv, at[s], s, 0);
		err = err ? err : group_cuts(ar, &cv, group_at, nr_groups);
	}
	err = err ? err : ar_wrap_body_cut(body.data, body.len, AR_PACK_WORDS,
					   file_version(ar), cv.v, cv.n,
					   &bytes_file, &bytes_size);
	free(body.data);
	free(cv.v);
	free(group_at);
	if (!err && bytes_size < *size) {
		free(*file);
		*file = bytes_file;
		*size = bytes_size;
		bytes_file = NULL;
	}
	free(bytes_file);
	return err;
}

static int serialize(struct bc_archive *ar, bool quick, void **out,
		     size_t *size, const struct bc_log *log)
{
	struct ar_buf body = { 0 };
	struct ar_cut *cuts = NULL;
	uint32_t nr_cuts = 0;
	int err;

	*out = NULL;
	err = ar_decode_all(ar, log);
	if (err)
		return err;
	err = ar_unraw_kernels(ar);
	err = err ? err : serialize_body(ar, &body, ar->nr_kernels > 2, &cuts,
					 &nr_cuts);
	if (!err) {
		bool bytes_too = !quick && ar_bytes_form_tried(ar, body.len);

		bc_log_printf(log, BC_LOG_DEBUG,
			      "%s: body %zu bytes, %u records, %u strings",
			      ar->path, body.len, ar->nr_recs, ar->nr_strs);
		err = ar_wrap_body_cut(body.data, body.len,
				       quick ? AR_PACK_ZSTD : pack_effort(ar),
				       file_version(ar), cuts, nr_cuts, out, size);
		if (!err && bytes_too)
			err = keep_smaller_form(ar, out, size);
	}
	if (err == -ENOMEM)
		bc_log_error(log, err, "%s: out of memory", ar->path);
	else if (err)
		bc_log_error(log, err, "%s: cannot compress", ar->path);
	free(body.data);
	free(cuts);
	return err;
}

int bc_archive_serialize(struct bc_archive *ar, void **out, size_t *size,
			 const struct bc_log *log)
{
	return serialize(ar, false, out, size, log);
}

int bc_archive_serialize_quick(struct bc_archive *ar, void **out,
			       size_t *size, const struct bc_log *log)
{
	return serialize(ar, true, out, size, log);
}

static int write_all_fd(int fd, const uint8_t *data, size_t size)
{
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		data += n;
		size -= (size_t)n;
	}
	return 0;
}

int bc_archive_write(struct bc_archive *ar, const char *path,
		     const struct bc_log *log)
{
	const char *kill_hook = getenv("BTFCANON_FAULT_KILL_WRITE");
	char *tmp = NULL;
	void *data;
	size_t size;
	int fd, err = bc_archive_serialize(ar, &data, &size, log);

	if (err)
		return err;
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		free(data);
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = bc_log_error(log, -errno, "%s: cannot create %s: %s", path,
				   tmp, strerror(errno));
		goto out;
	}
	if (kill_hook && !strcmp(kill_hook, "1")) {
		err = write_all_fd(fd, data, size / 2);
		raise(SIGKILL);
	}
	err = write_all_fd(fd, data, size);
	if (!err && fchmod(fd, 0644))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (!err)
		ar_unlock(ar);	/* its file is no longer the archive */
	if (err) {
		unlink(tmp);
		bc_log_error(log, err, "%s: cannot write: %s", path, strerror(-err));
	}
out:
	free(tmp);
	free(data);
	return err;
}

/* ---- reading -------------------------------------------------------------- */

/* A section of the body left packed by a partial read (pack.h). */
struct body_cut {
	size_t at, len;
};

/*
 * The records of format 1 and 2 (head and words together), straight into
 * the cells: every number checked against what it indexes (an anonymous
 * record's against the record count; whether it is the kernel's is
 * checked when a kernel is rebuilt). Every cell takes a byte of the body
 * at least, so the cells are sized once.
 */
static int read_records_v2(struct bc_archive *ar, struct ar_reader *r)
{
	uint64_t nr = ar_rd_varint(r, (r->len - r->pos) / 3), i;
	const uint8_t *d = r->data;
	size_t end = r->len, pos = r->pos, room = end - pos + 2 * nr + 1;
	uint32_t *c;

	if (r->bad)
		return 0;
	free(ar->cells);
	free(ar->rec_off);
	ar->cells = ar_alloc_big(room * sizeof(uint32_t));
	ar->rec_off = malloc((nr + 2) * sizeof(uint32_t));
	if (!ar->cells || !ar->rec_off)
		return -ENOMEM;
	ar->cap_cells = room;
	ar->cap_recs = (uint32_t)nr + 2;
	ar->nr_cells = 0;
	c = ar->cells;
	for (i = 0; i < nr; i++) {
		uint32_t info, kn1;
		size_t at = ar->nr_cells;
		int n;

		if (!ar_read_head(ar, d, end, &pos, &info, &kn1) ||
		    ar_info_words(info) - 2 > end - pos)	/* a byte a word at least */
			goto bad;
		ar->rec_off[i] = (uint32_t)at;
		c[at] = info;
		c[at + 1] = kn1;
		n = ar_decode_words(ar, (uint32_t)nr, info, d, end, &pos, c + at + 2);
		if (n < 0)
			goto bad;
		ar->nr_cells = at + 2 + (uint32_t)n;
	}
	ar->nr_recs = (uint32_t)nr;
	ar->rec_off[nr] = (uint32_t)ar->nr_cells;
	r->pos = pos;
	return 0;
bad:
	ar->nr_recs = 0;
	ar->nr_cells = 0;
	ar->rec_off[0] = 0;
	r->bad = true;
	return 0;
}

/*
 * The records of format 3: the heads, each with the byte length of the
 * record's words, then the words section. Only the heads are read (and
 * checked); the words stay in the body until ar_load_records() or a
 * rebuild decodes them. A record's words take a byte a word at least and
 * ten at most (two varints of five bytes). With cut (a partial read), the
 * heads end and the words start exactly at cut->at, and fill cut->len.
 */
static int read_records_v3(struct bc_archive *ar, struct ar_reader *r,
			   const struct body_cut *cut)
{
	uint64_t nr = ar_rd_varint(r, (r->len - r->pos) / 4), i;
	const uint8_t *d = r->data;
	size_t end = cut ? cut->at : r->len, pos = r->pos, words = 0;
	struct ar_rec_head *h;

	if (r->bad)
		return 0;
	h = ar_alloc_big((nr + 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	free(ar->heads);
	ar->heads = h;
	for (i = 0; i < nr; i++) {
		uint32_t len, nr_words;

		if (!ar_read_head(ar, d, end, &pos, &h[i].info, &h[i].kn1) ||
		    !ar_get_u32(d, end, &pos, &len))
			goto bad;
		nr_words = ar_info_words(h[i].info) - 2;
		if (len < nr_words || len > 10ull * nr_words ||
		    words + len > UINT32_MAX)
			goto bad;
		h[i].pos = (uint32_t)words;
		words += len;
	}
	if (cut ? pos != cut->at || words != cut->len : words > end - pos)
		goto bad;
	h[nr].pos = (uint32_t)words;
	ar->nr_recs = (uint32_t)nr;
	ar->words = d + pos;
	ar->words_len = words;
	r->pos = pos + words;
	return 0;
bad:
	r->bad = true;
	return 0;
}

static int read_kernels(struct bc_archive *ar, struct ar_reader *r, bool modules)
{
	uint64_t nr = ar_rd_varint(r, r->len - r->pos), k, i;
	int err = 0;

	ar->kernels = calloc(nr + 1, sizeof(*ar->kernels));
	if (!ar->kernels)
		return -ENOMEM;
	ar->cap_kernels = (uint32_t)nr + 1;
	for (k = 0; k < nr && !r->bad && !err; k++) {
		struct ar_kernel *kern = &ar->kernels[k];
		const uint8_t *p;
		size_t len;

		ar->nr_kernels++;
		kern->parent = -1;
		p = ar_rd_bytes(r, &len);
		if (r->bad || !len || len > 255) {
			r->bad = true;
			break;
		}
		kern->name = strndup((const char *)p, len);
		if (!kern->name)
			return -ENOMEM;
		if (strlen(kern->name) != len || !ar_name_ok(kern->name)) {
			r->bad = true;
			break;
		}
		kern->raw = ar_rd_varint(r, AR_FLAG_RAW) & AR_FLAG_RAW;
		if (kern->raw) {
			p = ar_rd_bytes(r, &len);
			kern->blob = malloc(len ? len : 1);
			if (!kern->blob)
				return -ENOMEM;
			if (p)
				memcpy(kern->blob, p, len);
			kern->blob_size = len;
		} else {
			kern->parent = (int64_t)ar_rd_varint(r, k) - 1;
			kern->nr_types = (uint32_t)ar_rd_varint(r, 0x7fffffff);
			kern->script = ar_rd_bytes(r, &kern->script_len);
			if (!r->bad && kern->parent >= 0 &&
			    ar->kernels[kern->parent].raw)
				r->bad = true;
		}
		p = ar_rd_bytes(r, &len);
		if (r->bad || len % sizeof(struct bc_btf_layout)) {
			r->bad = true;
			break;
		}
		if (len) {
			kern->layout = malloc(len);
			if (!kern->layout)
				return -ENOMEM;
			memcpy(kern->layout, p, len);
			kern->nr_layout = (uint32_t)(len / sizeof(struct bc_btf_layout));
		}
		kern->nr_att = 0;
		len = ar_rd_varint(r, r->len - r->pos);
		if (!r->bad && len) {
			kern->att = calloc(len, sizeof(*kern->att));
			if (!kern->att)
				return -ENOMEM;
		}
		for (i = 0; i < len && !r->bad; i++) {
			struct ar_attachment *a = &kern->att[i];
			size_t n;

			p = ar_rd_bytes(r, &n);
			if (r->bad || !n || memchr(p, 0, n)) {
				r->bad = true;
				break;
			}
			a->name = strndup((const char *)p, n);
			if (!a->name)
				return -ENOMEM;
			kern->nr_att++;
			if (i && strcmp(kern->att[i - 1].name, a->name) >= 0) {
				r->bad = true;
				break;
			}
			p = ar_rd_bytes(r, &n);
			a->data = malloc(n ? n : 1);
			if (!a->data)
				return -ENOMEM;
			if (p)
				memcpy(a->data, p, n);
			a->size = n;
		}
		if (!r->bad && kern->nr_att)
			err = ar_refresh_att_names(kern);
		if (!r->bad && !err && modules)
			err = ar_read_modules(kern, r);
	}
	return err;
}

/* The (kind, name) pairs (one layout in every version). */
static int read_pairs(struct bc_archive *ar, struct ar_reader *r)
{
	uint64_t nr = ar_rd_varint(r, (r->len - r->pos) / 2), i;
	struct ar_kn *kns;

	if (r->bad)
		return 0;
	kns = realloc(ar->kns, (nr + 1) * sizeof(*kns));
	if (!kns)
		return -ENOMEM;
	ar->kns = kns;
	ar->cap_kns = (uint32_t)nr + 1;
	for (i = 0; i < nr && !r->bad; i++) {
		uint32_t kind = (uint32_t)ar_rd_varint(r, 0x7f);
		uint32_t sid = (uint32_t)ar_rd_varint(r, ar->nr_strs - 1);

		if (r->bad || !bc_kind_valid(kind) || !sid) {
			r->bad = true;
			break;
		}
		kns[i].kind = kind;
		kns[i].sid = sid;
		ar->nr_kns++;
	}
	return 0;
}

/* The strings of format 1 and 2: each its length, bytes and NUL. */
static int read_strings_v2(struct bc_archive *ar, struct ar_reader *r)
{
	uint64_t nr = ar_rd_varint(r, r->len), i;

	for (i = 0; i < nr && !r->bad; i++) {
		size_t len;
		const uint8_t *p = ar_rd_bytes(r, &len);

		if (r->bad || r->pos >= r->len || r->data[r->pos] ||
		    memchr(p, 0, len) || (i == 0) != (len == 0)) {
			r->bad = true;
			break;
		}
		r->pos++;
		if (i == 0)
			continue;	/* "" is there from bc_archive_new() */
		if (ar_push_str(ar, (const char *)p, (uint32_t)len))
			return -ENOMEM;
	}
	if (!nr)
		r->bad = true;
	return 0;
}

/*
 * The strings of format 3: the count, every length, then the bytes, each
 * string followed by a NUL. Checked whole: string 0 is "", the others are
 * not empty, each is followed by a NUL and the bytes hold no other (the
 * NULs are counted eight bytes at a time), so every string is a C string
 * of its length. With cut (a partial read), the lengths end and the bytes
 * start exactly at cut->at, and the bytes fill cut->len: they are left
 * unread (ar_str_ready() checks each string used).
 */
static int read_strings_v3(struct bc_archive *ar, struct ar_reader *r,
			   const struct body_cut *cut)
{
	uint64_t nr = ar_rd_varint(r, (r->len - r->pos) / 2), i;
	const uint8_t *d = r->data, *bytes;
	size_t pos = r->pos, total = 0, lens_end = cut ? cut->at : r->len;
	struct ar_str *strs;
	uint32_t len;

	if (r->bad || !nr)
		goto bad;
	for (i = 0; i < nr; i++) {	/* where the bytes start, their size */
		if (!ar_get_u32(d, lens_end, &pos, &len) || (i == 0) != (len == 0))
			goto bad;
		total += len + 1ull;
	}
	if (cut ? pos != cut->at || total != cut->len : total > r->len - pos)
		goto bad;
	bytes = d + pos;
	strs = ar_alloc_big(nr * sizeof(*strs));
	if (!strs)
		return -ENOMEM;
	free(ar->strs);
	ar->strs = strs;
	ar->cap_strs = (uint32_t)nr;
	pos = r->pos;
	total = 0;
	for (i = 0; i < nr; i++) {
		ar_get_u32(d, r->len, &pos, &len);	/* checked above */
		strs[i].s = (const char *)bytes + total;
		strs[i].len = len;
		total += len + 1ull;
		if (!cut && bytes[total - 1])
			goto bad;
	}
	ar->nr_strs = (uint32_t)nr;
	/* cut: the bytes are still packed, each string checked where used */
	if (!cut && ar_count_nuls(bytes, total) != nr)
		goto bad;
	r->pos = (size_t)(bytes - d) + total;
	return 0;
bad:
	r->bad = true;
	return 0;
}

/*
 * Format 6: the module names (after the kernel entries), then the modules
 * section, a group a name, each kernel's modules put in name order.
 */
static int read_module_section(struct bc_archive *ar, struct ar_reader *r)
{
	uint32_t g;
	int err = ar_read_module_names(ar, r);

	for (g = 0; g < ar->mod_dir.nr && !err && !r->bad; g++)
		err = ar_read_module_group(ar, g, r);
	return err;
}

/*
 * Format 6 read in part (bc_archive_open_partial): the counts, the kernels
 * (read whole: names, parents, scripts, attachments) and the module names
 * after them, nothing else until asked (deferred.c). A file whose kernels are not in version order (only
 * a forged one) has its modules read before they are put in order: the
 * streams name kernels in file order.
 */
static int parse_parts(struct bc_archive *ar, struct ar_chunks *c)
{
	struct ar_reader r = { 0 };
	uint32_t k;
	int err = ar_parts_open(ar, c);

	err = err ? err : ar_parts_kernels(ar, &r);
	err = err ? err : read_kernels(ar, &r, false);
	err = err || r.bad ? err : ar_read_module_names(ar, &r);
	if (err)
		return err;
	if (r.bad || r.pos != r.len)
		return -EINVAL;
	ar_parts_kernels_read(ar);
	for (k = 1; k < ar->nr_kernels; k++)
		if (bc_archive_name_cmp(ar->kernels[k - 1].name,
					ar->kernels[k].name) >= 0)
			break;
	if (k < ar->nr_kernels)
		err = ar_modules_all(ar);
	return err ? err : ar_sort_kernels(ar);	/* and no name twice */
}

/*
 * The body of a file of the given version into ar. The records of
 * formats 3 and 4 (one body layout) are loaded into cells unless lazy.
 */
static int parse_body(struct bc_archive *ar, uint32_t version, bool lazy)
{
	struct ar_reader r = { ar->body, ar->body_size, 0, false };
	int err;

	if (version >= FORMAT_VERSION_SPLIT) {
		err = read_strings_v3(ar, &r, NULL);
		err = err || r.bad ? err : read_pairs(ar, &r);
		err = err || r.bad ? err : read_records_v3(ar, &r, NULL);
	} else {
		err = read_strings_v2(ar, &r);
		err = err || r.bad ? err : read_pairs(ar, &r);
		err = err || r.bad ? err : read_records_v2(ar, &r);
	}
	if (!err && !r.bad)
		err = read_kernels(ar, &r, version == FORMAT_VERSION_MODULES);
	if (!err && !r.bad && version >= FORMAT_VERSION_REGIONS)
		err = read_module_section(ar, &r);
	if (!err && !r.bad)
		err = ar_sort_kernels(ar);	/* and no name twice */
	if (err)
		return err;
	if (r.bad || r.pos != r.len)
		return -EINVAL;
	return lazy ? 0 : ar_load_records(ar);
}

/*
 * A body of format 4 or 5 whose string bytes and record words are still
 * packed (ar->deferred): each section is read with its reader ending
 * where the next packed one starts, so nothing packed is read, and the
 * sections must meet the packed streams exactly. -EAGAIN where they do
 * not (a body cut otherwise, a forged one): the caller unpacks the rest
 * and reads the body as a lazy read does, which says what is wrong.
 */
static int parse_body_partial(struct bc_archive *ar, uint32_t version)
{
	struct body_cut bytes, words;
	struct ar_reader r = { ar->body, 0, 0, false };
	int err;

	ar_deferred_range(ar->deferred, 0, &bytes.at, &bytes.len);
	ar_deferred_range(ar->deferred, 1, &words.at, &words.len);
	if (bytes.at + bytes.len > words.at)
		return -EAGAIN;
	r.len = bytes.at + bytes.len;
	err = read_strings_v3(ar, &r, &bytes);
	r.len = words.at;
	err = err || r.bad ? err : read_pairs(ar, &r);
	err = err || r.bad ? err : read_records_v3(ar, &r, &words);
	if (err)
		return err;
	if (r.bad)
		return -EAGAIN;
	r.len = ar->body_size;
	err = read_kernels(ar, &r, version == FORMAT_VERSION_MODULES);
	if (!err && !r.bad)
		err = ar_sort_kernels(ar);	/* and no name twice */
	if (err)
		return err;
	return r.bad || r.pos != r.len ? -EAGAIN : 0;
}

/*
 * The content size the payload's frame header declares (UINT64_MAX: none,
 * or not a frame): LZ4's, or zstd's in version 1.
 */
static uint64_t frame_content_size(uint32_t version, const uint8_t *payload,
				   size_t len)
{
	LZ4F_decompressionContext_t dctx;
	LZ4F_frameInfo_t info;
	size_t used = len;
	uint64_t size = UINT64_MAX;

	if (version == FORMAT_VERSION_ZSTD) {
		unsigned long long zsize = ZSTD_getFrameContentSize(payload, len);

		return zsize >= ZSTD_CONTENTSIZE_ERROR ? size : zsize;
	}
	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		return size;
	memset(&info, 0, sizeof(info));
	if (!LZ4F_isError(LZ4F_getFrameInfo(dctx, &info, payload, &used)) &&
	    info.contentSize)
		size = info.contentSize;
	LZ4F_freeDecompressionContext(dctx);
	return size;
}

/*
 * The payload (one LZ4 frame) into body, which must come out exactly
 * body_len bytes long from exactly len bytes. Returns 0, -EINVAL, -ENOMEM.
 */
static int unpack_body(uint32_t version, const uint8_t *payload, size_t len,
		       uint8_t *body, size_t body_len)
{
	LZ4F_decompressionContext_t dctx;
	size_t in_done = 0, out_done = 0, hint = 1;
	int err = 0;

	if (version == FORMAT_VERSION_ZSTD) {
		size_t got = ZSTD_decompress(body, body_len, payload, len);

		return ZSTD_isError(got) || got != body_len ? -EINVAL : 0;
	}
	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		return -ENOMEM;
	while (hint && !err) {
		size_t in = len - in_done, out = body_len - out_done;

		hint = LZ4F_decompress(dctx, body + out_done, &out,
				       payload + in_done, &in, NULL);
		if (LZ4F_isError(hint) || (!in && !out && hint))
			err = -EINVAL;
		in_done += in;
		out_done += out;
	}
	LZ4F_freeDecompressionContext(dctx);
	if (!err && (in_done != len || out_done != body_len))
		err = -EINVAL;
	return err;
}

/*
 * The checksum of a large file is computed on a second thread while the
 * payload is decompressed and read (2.3 ms of CRC-32 against 4 ms of LZ4
 * for Debian's 118 kernels): what is read is neither used nor reported
 * before the checksum is known, and a file whose checksum does not match
 * is refused as such, whatever its contents made of the reading (the
 * reader checks every number anyway: a damaged body cannot make it read
 * out of bounds).
 */
#define CRC_THREAD_MIN (1u << 20)

struct crc_job {
	const uint8_t *data;
	size_t len;
	uint32_t crc;
	pthread_t thread;
	bool threaded;
};

static void *crc_run(void *arg)
{
	struct crc_job *job = arg;

	job->crc = crc_of(job->data, job->len);
	return NULL;
}

static void crc_start(struct crc_job *job, const uint8_t *data, size_t len)
{
	job->data = data;
	job->len = len;
	job->threaded = len >= CRC_THREAD_MIN &&
			!pthread_create(&job->thread, NULL, crc_run, job);
}

static uint32_t crc_finish(struct crc_job *job)
{
	if (job->threaded)
		pthread_join(job->thread, NULL);
	else
		crc_run(job);
	return job->crc;
}

/* What went wrong reading a checksummed file, reported once it is known good. */
enum read_fault { READ_OK, READ_VERSION, READ_FRAME, READ_NOMEM, READ_CONTENTS };

/* The payload of a file of payload_len bytes (header checked) into *out. */
/*
 * A partial read whose body is not cut as the writer cuts it: the rest
 * unpacked into the same body, read afresh as a lazy read reads it.
 */
static int reread_whole(struct bc_archive **arp, uint32_t version,
			const char *path)
{
	struct bc_archive *ar = *arp, *fresh;
	int err = ar_deferred_finish(ar->deferred);

	if (err)
		return err;
	if (bc_archive_new(&fresh))
		return -ENOMEM;
	free(fresh->path);
	fresh->path = strdup(path);
	if (!fresh->path) {
		bc_archive_free(fresh);
		return -ENOMEM;
	}
	fresh->body = ar->body;
	fresh->body_size = ar->body_size;
	ar->body = NULL;
	bc_archive_free(ar);
	*arp = fresh;
	return parse_body(fresh, version, true);
}

static enum read_fault read_payload(const uint8_t *file, uint64_t payload_len,
				    const char *path, enum ar_read_mode mode,
				    struct bc_archive **out)
{
	uint64_t body_len = get_le64(file + 16);
	uint32_t version = get_le32(file + 8);
	struct ar_chunks *chunks = NULL;
	struct bc_archive *ar;
	int err;

	if (version < FORMAT_VERSION_ZSTD || version > FORMAT_VERSION_REGIONS ||
	    get_le32(file + 12))
		return READ_VERSION;
	if (body_len > (1ull << 34) || body_len > payload_len * 2048 + 4096 ||
	    (version < FORMAT_VERSION &&
	     frame_content_size(version, file + HEADER_LEN, payload_len) != body_len))
		return READ_FRAME;
	if (bc_archive_new(&ar))
		return READ_NOMEM;
	free(ar->path);
	ar->path = strdup(path);
	ar->body = ar_alloc_big(body_len ? body_len : 1);
	if (!ar->path || !ar->body) {
		bc_archive_free(ar);
		return READ_NOMEM;
	}
	ar->body_size = body_len;
	if (version >= FORMAT_VERSION_REGIONS && mode == AR_READ_PARTIAL)
		err = ar_unpack_chunked(file + HEADER_LEN, payload_len, ar->body,
					body_len, &chunks);
	else if (version >= FORMAT_VERSION_REGIONS)
		err = ar_unpack6(file + HEADER_LEN, payload_len, ar->body,
				 body_len);
	else if (version >= FORMAT_VERSION && mode == AR_READ_PARTIAL)
		err = ar_unpack_partial(file + HEADER_LEN, payload_len, ar->body,
					body_len, &ar->deferred);
	else if (version >= FORMAT_VERSION)
		err = ar_unpack(file + HEADER_LEN, payload_len, ar->body, body_len);
	else
		err = unpack_body(version, file + HEADER_LEN, payload_len,
				  ar->body, body_len);
	if (err == -EINVAL && version >= FORMAT_VERSION) {
		bc_archive_free(ar);
		return READ_FRAME;
	}
	if (!err && chunks) {
		err = parse_parts(ar, chunks);
	} else if (!err && ar->deferred) {
		err = parse_body_partial(ar, version);
		if (err == -EAGAIN)
			err = reread_whole(&ar, version, path);
	} else if (!err) {
		err = parse_body(ar, version, mode != AR_READ_WHOLE);
	}
	if (err) {
		bc_archive_free(ar);
		return err == -ENOMEM ? READ_NOMEM : READ_CONTENTS;
	}
	*out = ar;
	return READ_OK;
}

int ar_parse_as(const void *data, size_t size, const char *path,
		enum ar_read_mode mode, struct bc_archive **out,
		const struct bc_log *log)
{
	const uint8_t *file = data;
	struct bc_archive *ar = NULL;
	uint64_t payload_len;
	enum read_fault fault;
	struct crc_job crc;

	*out = NULL;
	if (size < BC_ARCHIVE_MAGIC_LEN ||
	    memcmp(file, BC_ARCHIVE_MAGIC, BC_ARCHIVE_MAGIC_LEN))
		return bc_log_error(log, -EINVAL, "%s: not a btfcanon archive",
				    path);
	if (size < HEADER_LEN + TRAILER_LEN)
		return bc_log_error(log, -EINVAL,
				    "%s: damaged archive: %zu bytes, shorter than its header",
				    path, size);
	payload_len = get_le64(file + 24);
	if (payload_len != size - HEADER_LEN - TRAILER_LEN)
		return bc_log_error(log, -EINVAL,
			"%s: damaged archive: %zu bytes where its header says %llu (truncated or appended to)",
			path, size,
			(unsigned long long)(payload_len + HEADER_LEN + TRAILER_LEN));
	crc_start(&crc, file, HEADER_LEN + payload_len);
	fault = read_payload(file, payload_len, path, mode, &ar);
	if (get_le32(file + HEADER_LEN + payload_len) != crc_finish(&crc)) {
		bc_archive_free(ar);
		return bc_log_error(log, -EINVAL,
				    "%s: damaged archive: checksum mismatch",
				    path);
	}
	switch (fault) {
	case READ_OK:
		*out = ar;
		return 0;
	case READ_VERSION:
		return bc_log_error(log, -EINVAL,
				    "%s: archive format version %u.%u, this btfcanon reads %u.0 to %u.0",
				    path, get_le32(file + 8), get_le32(file + 12),
				    FORMAT_VERSION_ZSTD, FORMAT_VERSION_REGIONS);
	case READ_FRAME:
		return bc_log_error(log, -EINVAL,
				    "%s: damaged archive: bad compressed body",
				    path);
	case READ_NOMEM:
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	default:
		return bc_log_error(log, -EINVAL,
				    "%s: damaged archive: bad contents", path);
	}
}

int ar_parse(const void *data, size_t size, const char *path, bool lazy,
	     struct bc_archive **out, const struct bc_log *log)
{
	return ar_parse_as(data, size, path, lazy ? AR_READ_LAZY : AR_READ_WHOLE,
			  out, log);
}

int bc_archive_parse(const void *data, size_t size, const char *path,
		     struct bc_archive **out, const struct bc_log *log)
{
	return ar_parse(data, size, path, false, out, log);
}

int ar_read_fd(int fd, const char *path, enum ar_read_mode mode,
	       struct bc_archive **ar, const struct bc_log *log)
{
	struct bc_blob blob = { 0 };
	struct stat st;
	uint8_t *data;
	size_t done = 0;
	int err;

	*ar = NULL;
	if (fstat(fd, &st)) {
		err = -errno;
		return bc_log_error(log, err, "%s: %s", path, strerror(-err));
	}
	/* mapped where it can be: no copy of the compressed file */
	if (S_ISREG(st.st_mode) && st.st_size &&
	    !bc_blob_map(fd, 0, (size_t)st.st_size, &blob)) {
		err = ar_parse_as(blob.data, blob.size, path, mode, ar, log);
		if (!err && ((*ar)->deferred || (*ar)->parts))
			(*ar)->file = blob;	/* what is still packed is in it */
		else
			bc_blob_release(&blob);
		return err;
	}
	data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!data)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, data + done, (size_t)st.st_size - done);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			err = n < 0 ? -errno : -EIO;
			free(data);
			return bc_log_error(log, err, "%s: cannot read: %s", path,
					    strerror(-err));
		}
		done += (size_t)n;
	}
	err = ar_parse_as(data, done, path, mode, ar, log);
	if (!err && ((*ar)->deferred || (*ar)->parts))
		(*ar)->file = (struct bc_blob){ data, done, false, data, done };
	else
		free(data);
	return err;
}

static int open_file(const char *path, enum ar_read_mode mode,
		     struct bc_archive **ar, const struct bc_log *log)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	*ar = NULL;
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: %s", path, strerror(errno));
	err = ar_read_fd(fd, path, mode, ar, log);
	close(fd);
	return err;
}

int bc_archive_open(const char *path, struct bc_archive **ar,
		    const struct bc_log *log)
{
	return open_file(path, AR_READ_WHOLE, ar, log);
}

int bc_archive_open_lazy(const char *path, struct bc_archive **ar,
			 const struct bc_log *log)
{
	return open_file(path, AR_READ_LAZY, ar, log);
}

int bc_archive_open_partial(const char *path, struct bc_archive **ar,
			    const struct bc_log *log)
{
	return open_file(path, AR_READ_PARTIAL, ar, log);
}
