// SPDX-License-Identifier: GPL-2.0-only
/*
 * Joining deduplicated BTFs (chunks, or groups of chunks): what
 * btf__add_btf() did one part after the other, done as a few parallel
 * steps over the parts.
 *
 * The problem: every part numbers its types from 1 and its strings from
 * 0; the join appends them in part order (that order is part of the next
 * dedup's input, see encoder.c), so part k's type i becomes
 * first_id(k) + i - 1, and each of its strings moves to where the join
 * keeps that text. btf__add_btf() looked every string up in the growing
 * join's string index, one after the other, part after part: 0.1-0.35 s
 * on vmlinux, all on one thread, plus the parts' own frees.
 *
 * Here the type offsets come first (a prefix sum over the parts' type
 * counts: the serial part, a loop over the parts), then the string union
 * (below), then each part's types are copied to their place with their
 * ids and string offsets moved, one task per part that writes only its
 * own range of the join. The join's types are exactly btf__add_btf()'s;
 * its string section holds each text once, in order of first occurrence
 * by (part, offset), where btf__add_btf() had them in order of first
 * reference. btf__dedup() builds a fresh string table from the strings
 * the types reference, in type order, so the deduplicated result is the
 * same bytes either way (tests/test_encode.c, reduction).
 *
 * Worked example: part 0 has 3 types and the strings "\0int\0s\0",
 * part 1 has 2: [1] INT 'long' and [2] TYPEDEF 't' of [1]. The join's
 * strings are "\0int\0s\0long\0t\0"; part 1's [2] becomes [5] TYPEDEF
 * (name at 11) of [4]. A reference to [0] (void) stays 0, and so does
 * name offset 0 (every part's empty string is part 0's).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "../canon/btf_kinds.h"
#include "../canon/par.h"
#include "merge.h"

int chunk_part_take(struct chunk_part *part, struct btf *btf)
{
	memset(part, 0, sizeof(*part));
	part->btf = btf;
	part->nr_types = btf__type_cnt(btf) - 1;
	return 0;
}

void chunk_part_free(struct chunk_part *part)
{
	btf__free(part->btf);
	part->btf = NULL;
	part->raw = NULL;
}

/* The part's header, checked against its size; NULL when it is not BTF. */
static const struct btf_header *part_header(const struct chunk_part *part)
{
	const struct btf_header *hdr = part->raw;

	if (part->raw_size < sizeof(*hdr) || hdr->magic != BTF_MAGIC ||
	    hdr->hdr_len < sizeof(*hdr) ||
	    (uint64_t)hdr->hdr_len + hdr->type_off + hdr->type_len > part->raw_size ||
	    (uint64_t)hdr->hdr_len + hdr->str_off + hdr->str_len > part->raw_size)
		return NULL;
	return hdr;
}

/*
 * The string union. Every part's strings are unique within it (libbpf's
 * dedup wrote them); across parts the same text repeats (every chunk has
 * 'list_head'). The join keeps each text once, at its first occurrence
 * in (part, offset) order, the parts' unique strings laid out in that
 * order. Four parallel steps, each task writing only its own slots:
 *
 *	index (per part)   each string's offset and hash, and the part's
 *	                   strings sorted by shard (the hash's top bits);
 *	owners (per shard) one hash table per shard, filled part after
 *	                   part: a string's owner is the first string of
 *	                   its text;
 *	layout (per part)  the bytes of the part's owned strings (then a
 *	                   prefix sum over the parts, serial), their new
 *	                   offsets and bytes in the join;
 *	copy (per part)    the types, their ids and string offsets moved
 *	                   (a string offset: binary search of the part's
 *	                   offsets, then its owner's new offset).
 *
 * Which thread ran which task, and the number of shards, change nothing:
 * the owner of a text is its first occurrence whatever the shards.
 */
#define MERGE_SHARD_BITS	6
#define MERGE_SHARDS		(1u << MERGE_SHARD_BITS)

struct part_strs {
	uint32_t nr;			/* strings in the part */
	uint32_t *off;			/* [nr] their offsets, ascending */
	uint32_t *hash;			/* [nr] */
	uint32_t *by_shard;		/* [nr] string numbers, by shard */
	uint32_t shard_at[MERGE_SHARDS + 1];	/* by_shard's ranges */
	uint32_t *owner_part;		/* [nr] part of the text's first string */
	uint32_t *owner_idx;		/* [nr] its number there */
	uint32_t *new_off;		/* [nr] offset in the join (owned strings) */
	uint64_t owned_bytes;		/* bytes of the strings it owns */
	uint64_t owned_at;		/* where they start in the join */
};

struct merge_job {
	struct chunk_part *parts;
	struct part_strs *strs_of;	/* [nr parts] */
	uint32_t nr_parts;
	uint8_t *types;			/* the join's type section */
	char *strs;			/* the join's string section */
};

static const char *part_strings(const struct chunk_part *part, uint32_t *len)
{
	const struct btf_header *hdr = part->raw;

	*len = hdr->str_len;
	return (const char *)part->raw + hdr->hdr_len + hdr->str_off;
}

static uint32_t str_hash(const char *s, uint32_t *len)
{
	uint32_t h = 2166136261u;
	const char *p = s;

	for (; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	*len = p - s;
	return h ^ (h >> 15);
}

static void part_strs_free(struct part_strs *ps)
{
	free(ps->off);
	free(ps->hash);
	free(ps->by_shard);
	free(ps->owner_part);
	free(ps->owner_idx);
	free(ps->new_off);
	memset(ps, 0, sizeof(*ps));
}

/* Task k of the index step. */
static int index_strings(void *ctx, uint32_t k)
{
	struct merge_job *job = ctx;
	struct part_strs *ps = &job->strs_of[k];
	uint32_t size, at, n = 0, i, len, count[MERGE_SHARDS] = { 0 };
	const char *strs = part_strings(&job->parts[k], &size);

	/* a string section ends with a NUL (libbpf writes it so) */
	if (!size || strs[size - 1] || strs[0])
		return -EINVAL;
	for (at = 0; at < size; at += strlen(strs + at) + 1)
		n++;
	ps->nr = n;
	ps->off = malloc(n * sizeof(uint32_t));
	ps->hash = malloc(n * sizeof(uint32_t));
	ps->by_shard = malloc(n * sizeof(uint32_t));
	ps->owner_part = malloc(n * sizeof(uint32_t));
	ps->owner_idx = malloc(n * sizeof(uint32_t));
	ps->new_off = malloc(n * sizeof(uint32_t));
	if (!ps->off || !ps->hash || !ps->by_shard || !ps->owner_part ||
	    !ps->owner_idx || !ps->new_off)
		return -ENOMEM;
	for (at = 0, i = 0; i < n; i++) {
		ps->off[i] = at;
		ps->hash[i] = str_hash(strs + at, &len);
		count[ps->hash[i] >> (32 - MERGE_SHARD_BITS)]++;
		at += len + 1;
	}
	ps->shard_at[0] = 0;
	for (i = 0; i < MERGE_SHARDS; i++)
		ps->shard_at[i + 1] = ps->shard_at[i] + count[i];
	memcpy(count, ps->shard_at, sizeof(count));
	for (i = 0; i < n; i++)
		ps->by_shard[count[ps->hash[i] >> (32 - MERGE_SHARD_BITS)]++] = i;
	return 0;
}

/* Task s of the owners step: the texts whose hash falls in shard s. */
static int find_owners(void *ctx, uint32_t s)
{
	struct merge_job *job = ctx;
	uint64_t nr = 0, cap = 16, mask, slot;
	uint32_t k, j, *table_part, *table_idx;

	for (k = 0; k < job->nr_parts; k++)
		nr += job->strs_of[k].shard_at[s + 1] - job->strs_of[k].shard_at[s];
	while (cap < 2 * nr)
		cap *= 2;
	mask = cap - 1;
	/* a slot holds part + 1 (0: empty) and the string's number */
	table_part = calloc(cap, sizeof(uint32_t));
	table_idx = malloc(cap * sizeof(uint32_t));
	if (!table_part || !table_idx) {
		free(table_part);
		free(table_idx);
		return -ENOMEM;
	}
	for (k = 0; k < job->nr_parts; k++) {
		struct part_strs *ps = &job->strs_of[k];
		uint32_t size;
		const char *strs = part_strings(&job->parts[k], &size);

		for (j = ps->shard_at[s]; j < ps->shard_at[s + 1]; j++) {
			uint32_t i = ps->by_shard[j], h = ps->hash[i];
			const char *text = strs + ps->off[i];

			for (slot = h & mask; table_part[slot]; slot = (slot + 1) & mask) {
				uint32_t ok = table_part[slot] - 1, oi = table_idx[slot];
				const struct part_strs *os = &job->strs_of[ok];

				if (os->hash[oi] == h &&
				    !strcmp(part_strings(&job->parts[ok], &size) + os->off[oi], text))
					break;
			}
			if (!table_part[slot]) {
				table_part[slot] = k + 1;
				table_idx[slot] = i;
			}
			ps->owner_part[i] = table_part[slot] - 1;
			ps->owner_idx[i] = table_idx[slot];
		}
	}
	free(table_part);
	free(table_idx);
	return 0;
}

static bool owns(const struct part_strs *ps, uint32_t k, uint32_t i)
{
	return ps->owner_part[i] == k && ps->owner_idx[i] == i;
}

/* Task k of the layout step, first half: the bytes of what k owns. */
static int size_owned(void *ctx, uint32_t k)
{
	struct merge_job *job = ctx;
	struct part_strs *ps = &job->strs_of[k];
	uint32_t size, i;

	part_strings(&job->parts[k], &size);
	ps->owned_bytes = 0;
	for (i = 0; i < ps->nr; i++)
		if (owns(ps, k, i))
			ps->owned_bytes += (i + 1 < ps->nr ? ps->off[i + 1] : size) -
					   ps->off[i];
	return 0;
}

/* Second half: the owned strings' new offsets and bytes in the join. */
static int place_owned(void *ctx, uint32_t k)
{
	struct merge_job *job = ctx;
	struct part_strs *ps = &job->strs_of[k];
	uint64_t at = ps->owned_at;
	uint32_t size, i, len;
	const char *strs = part_strings(&job->parts[k], &size);

	for (i = 0; i < ps->nr; i++) {
		if (!owns(ps, k, i))
			continue;
		len = (i + 1 < ps->nr ? ps->off[i + 1] : size) - ps->off[i];
		ps->new_off[i] = at;
		memcpy(job->strs + at, strs + ps->off[i], len);
		at += len;
	}
	return 0;
}

/* The join's offset of part k's string at off; UINT32_MAX if none starts there. */
static uint32_t moved_str(const struct merge_job *job, uint32_t k, uint32_t off)
{
	const struct part_strs *ps = &job->strs_of[k];
	uint32_t lo = 0, hi = ps->nr, i;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ps->off[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (!ps->nr || ps->off[lo] != off)
		return UINT32_MAX;
	i = ps->owner_idx[lo];
	return job->strs_of[ps->owner_part[lo]].new_off[i];
}

static uint32_t moved_id(uint32_t id, uint32_t first_id)
{
	return id ? id + first_id - 1 : 0;
}

/*
 * Moves the ids and string offsets of part k's types in w[0 .. nr_words)
 * to the join's. Returns -EINVAL on a record of unknown kind, one that
 * runs past the end, or a string offset that starts no string.
 */
static int move_types(const struct merge_job *job, uint32_t k, uint32_t *w,
		      uint32_t nr_words)
{
	const struct chunk_part *part = &job->parts[k];
	uint32_t at = 0, t, i, e, first_id = part->first_id;

	for (t = 0; t < part->nr_types; t++) {
		const struct bc_kind_layout *kl;
		uint32_t kind, words, entries, *entry;

		if (at + 3 > nr_words)
			return -EINVAL;
		kind = bc_info_kind(w[at + 1]);
		if (!bc_kind_valid(kind))
			return -EINVAL;
		kl = &bc_kinds[kind];
		words = bc_type_words((const struct btf_type *)(w + at));
		if (words > nr_words - at)
			return -EINVAL;
		entries = bc_type_entries((const struct btf_type *)(w + at));
		if ((w[at] = moved_str(job, k, w[at])) == UINT32_MAX)
			return -EINVAL;
		if (kl->head_ref)
			w[at + 2] = moved_id(w[at + 2], first_id);
		for (i = 0; i < kl->fixed_words; i++)
			if ((kl->fixed_ref_mask >> i) & 1)
				w[at + 3 + i] = moved_id(w[at + 3 + i], first_id);
		entry = w + at + 3 + kl->fixed_words;
		for (e = 0; e < entries; e++, entry += kl->entry_words)
			for (i = 0; i < kl->entry_words; i++) {
				if ((kl->entry_ref_mask >> i) & 1)
					entry[i] = moved_id(entry[i], first_id);
				else if (((kl->entry_name_mask >> i) & 1) &&
					 (entry[i] = moved_str(job, k, entry[i])) == UINT32_MAX)
					return -EINVAL;
			}
		at += words;
	}
	return at == nr_words ? 0 : -EINVAL;
}

/*
 * Task k of the copy step: part k's types to their place, moved; then its
 * BTF is freed (no later task reads it).
 */
static int copy_types(void *ctx, uint32_t k)
{
	struct merge_job *job = ctx;
	struct chunk_part *part = &job->parts[k];
	const struct btf_header *hdr = part->raw;
	const uint8_t *sec = (const uint8_t *)part->raw + hdr->hdr_len;
	uint32_t *types = (uint32_t *)(job->types + part->types_at);
	int err;

	memcpy(types, sec + hdr->type_off, hdr->type_len);
	err = move_types(job, k, types, hdr->type_len / 4);
	chunk_part_free(part);
	return err;
}

/* Task k of the first step: part k's raw bytes (libbpf writes them). */
static int view_part(void *ctx, uint32_t k)
{
	struct merge_job *job = ctx;
	struct chunk_part *part = &job->parts[k];

	part->raw = btf__raw_data(part->btf, &part->raw_size);
	return part->raw ? 0 : -ENOMEM;
}

/* One parallel step; its longest task is added to *critical. */
static int merge_step(unsigned int jobs, uint32_t n, bc_par_fn fn,
		      struct merge_job *job, double *task_sec, double *critical)
{
	int err = bc_par_for(jobs, n, fn, job, task_sec);

	*critical += bc_par_longest(task_sec, n);
	return err;
}

int merge_parts(struct chunk_part *parts, uint32_t n, unsigned int jobs,
		struct btf **out, struct merge_stats *stats)
{
	struct merge_job job = { .parts = parts, .nr_parts = n };
	struct btf_header *hdr;
	uint64_t types_len = 0, strs_len = 0, nr_types = 0;
	double t0, *task_sec = NULL;
	uint8_t *buf = NULL;
	uint32_t k;
	int err = 0;

	*out = NULL;
	memset(stats, 0, sizeof(*stats));
	task_sec = calloc(n > MERGE_SHARDS ? n : MERGE_SHARDS, sizeof(*task_sec));
	if (!task_sec) {
		err = -ENOMEM;
		goto out;
	}
	err = merge_step(jobs, n, view_part, &job, task_sec,
			 &stats->raw_longest_sec);
	if (err)
		goto out;
	t0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	for (k = 0; k < n; k++) {
		const struct btf_header *h = part_header(&parts[k]);

		if (!h || h->type_len % 4) {
			err = -EINVAL;
			goto out;
		}
		parts[k].first_id = nr_types + 1;
		parts[k].types_at = types_len;
		nr_types += parts[k].nr_types;
		types_len += h->type_len;
	}
	job.strs_of = calloc(n ? n : 1, sizeof(*job.strs_of));
	if (!job.strs_of) {
		err = -ENOMEM;
		goto out;
	}
	stats->plan_sec = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - t0;
	err = merge_step(jobs, n, index_strings, &job, task_sec, &stats->strings_sec);
	if (!err)
		err = merge_step(jobs, MERGE_SHARDS, find_owners, &job, task_sec,
				 &stats->strings_sec);
	if (!err)
		err = merge_step(jobs, n, size_owned, &job, task_sec,
				 &stats->strings_sec);
	if (err)
		goto out;
	t0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	for (k = 0; k < n; k++) {
		job.strs_of[k].owned_at = strs_len;
		strs_len += job.strs_of[k].owned_bytes;
	}
	/* libbpf's limits: ids and string offsets below 2^31 */
	if (nr_types >= 0x7fffffff || strs_len >= 0x7fffffff ||
	    types_len + strs_len >= 0xffffffff - sizeof(*hdr)) {
		err = -E2BIG;
		goto out;
	}
	buf = malloc(sizeof(*hdr) + types_len + strs_len + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	hdr = (struct btf_header *)buf;
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = BTF_MAGIC;
	hdr->version = BTF_VERSION;
	hdr->hdr_len = sizeof(*hdr);
	hdr->type_off = 0;
	hdr->type_len = types_len;
	hdr->str_off = types_len;
	hdr->str_len = strs_len ? strs_len : 1;
	job.types = buf + sizeof(*hdr);
	job.strs = (char *)job.types + types_len;
	job.strs[0] = '\0';		/* no parts: the one empty string */
	stats->strs_size = strs_len;
	stats->plan_sec += bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - t0;
	err = merge_step(jobs, n, place_owned, &job, task_sec, &stats->strings_sec);
	if (!err)
		err = merge_step(jobs, n, copy_types, &job, task_sec,
				 &stats->copy_longest_sec);
	if (err)
		goto out;
	t0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	*out = btf__new(buf, sizeof(*hdr) + hdr->type_len + hdr->str_len);
	if (!*out)
		err = errno ? -errno : -EINVAL;
	stats->parse_sec = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - t0;
out:
	for (k = 0; job.strs_of && k < n; k++)
		part_strs_free(&job.strs_of[k]);
	for (k = 0; k < n; k++)
		chunk_part_free(&parts[k]);
	free(job.strs_of);
	free(task_sec);
	free(buf);
	return err;
}

/*
 * --- a chunk's pieces
 *
 * The first piece is libbpf's from scratch, its strings already unique:
 * appending the later pieces' types with btf__add_type() (which moves
 * their strings, not their ids) keeps it so, and the chunk's dedup skips
 * rebuilding the string table, which a join through raw bytes would make
 * it do (twice the chunk's dedup time). The ids of each appended type
 * are then moved in place.
 */
static int move_piece_id(uint32_t *id, uint32_t shift, uint32_t ext_base,
			 uint32_t first_types)
{
	if (*id >= ext_base) {
		if (*id == ext_base || *id - ext_base > first_types)
			return -EINVAL;
		*id -= ext_base;
	} else if (*id) {
		*id += shift;
	}
	return 0;
}

static int move_piece_ids(struct btf_type *t, uint32_t shift,
			  uint32_t ext_base, uint32_t first_types)
{
	uint32_t kind = bc_type_kind(t), *w = (uint32_t *)t, i, e, entries;
	const struct bc_kind_layout *kl;
	int err = 0;

	if (!bc_kind_valid(kind))
		return -EINVAL;
	kl = &bc_kinds[kind];
	entries = bc_type_entries(t);
	if (kl->head_ref)
		err = move_piece_id(&w[2], shift, ext_base, first_types);
	for (i = 0; !err && i < kl->fixed_words; i++)
		if ((kl->fixed_ref_mask >> i) & 1)
			err = move_piece_id(&w[3 + i], shift, ext_base, first_types);
	w += 3 + kl->fixed_words;
	for (e = 0; !err && e < entries; e++, w += kl->entry_words)
		for (i = 0; !err && i < kl->entry_words; i++)
			if ((kl->entry_ref_mask >> i) & 1)
				err = move_piece_id(&w[i], shift, ext_base,
						    first_types);
	return err;
}

int merge_pieces(struct btf *first, struct btf **later, uint32_t n,
		 uint32_t ext_base)
{
	uint32_t first_types = btf__type_cnt(first) - 1, k, id, cnt;
	int err = 0;

	for (k = 0; k < n; k++) {
		uint32_t shift = btf__type_cnt(first) - 1;

		cnt = later[k] ? btf__type_cnt(later[k]) : 0;
		for (id = 1; !err && id < cnt; id++) {
			int added = btf__add_type(first, later[k],
						  btf__type_by_id(later[k], id));

			/* the type just added lives in first's own memory */
			err = added < 0 ? added :
			      move_piece_ids((struct btf_type *)btf__type_by_id(first, added),
					     shift, ext_base, first_types);
		}
		btf__free(later[k]);
		later[k] = NULL;
	}
	return err;
}
