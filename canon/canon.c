// SPDX-License-Identifier: GPL-2.0-only
/*
 * Canonicalization: one order for a BTF type graph, whatever its ids.
 *
 * The problem. The same set of C types can be written as BTF in n! orders,
 * and tools that build BTF in parallel (or from CUs in a different order,
 * or with a different dedup history) pick different ones. Ids appear inside
 * the types themselves, so ordering by "content" is circular: to compare
 * two pointers we must compare their pointees, which may point back.
 *
 * The answer is ordered partition refinement, the colour refinement of
 * graph isomorphism testing kept in order:
 *
 *  1. Rank. Sort the types by their local key L (order.h: kind, vlen,
 *     name, sizes, member names and offsets, ... but no type ids). Equal
 *     keys form a class; a class's rank is the position of its first
 *     member. Void is rank 0; in split BTF each base type's rank is its id,
 *     and all local ranks lie above them.
 *
 *  2. Refine. Each round, within every class of two or more, sort the
 *     members by the ranks of what they refer to, in reference order
 *     (pointee; member types; return then parameter types; array element
 *     then index; DATASEC variables; tag targets), and split where those
 *     differ. A split keeps the sub-classes inside the old class's span, so
 *     ranks only ever split, never reorder. Stop when a round splits
 *     nothing.
 *
 *     Example. [1] struct a { [3] *p; }  [2] struct a { [4] *p; }
 *              [3] PTR -> [5] int        [4] PTR -> [6] long
 *     Round 0 ranks: {3,4} PTR, {5} int, {6} long, {1,2} struct a.
 *     Round 1: 3 -> int and 4 -> long differ; {3,4} splits into {3},{4}.
 *     Round 2: 1 -> {3} and 2 -> {4} now differ; {1,2} splits. Round 3
 *     splits nothing: done. Had [6] been a second 'int', nothing would have
 *     split and each pair would be one type.
 *
 *     At the fixpoint two types share a class exactly when they are equal
 *     as infinite trees (bisimilar). Cycles need no special case: a class
 *     only splits when a difference is actually seen.
 *
 *  3. Merge. All members of a class are one type: keep one, redirect every
 *     reference to it. This removes duplicates btf__dedup can leave. VARs
 *     have identity: two equal VARs at different DATASEC entries are two
 *     variables, so a class of VARs is split by its members' first referrer
 *     (DATASEC rank, entry index), and refinement resumes (decl tags on
 *     those VARs may now split too). A VAR no DATASEC names is only its
 *     content, and merges.
 *
 *  4. Rebuild. Emit one type per class in rank order, remap every id, lay
 *     the strings out in order of first use, write a fixed header. This
 *     is the project's one writer of BTF: a pass that built helper types
 *     (the encoder's candidate markers) hands them over as omitted
 *     (canon_opts.omit); they take no part in steps 1-3 and are not
 *     emitted, and no kept type may refer to one.
 *
 * Invariant: every decision reads ranks and local keys, never input ids or
 * input offsets, so the output is a function of the type graph alone:
 * canon(permute(x)) == canon(x), and canon(canon(x)) == canon(x).
 *
 * Cost: the first sort is O(n log n) key comparisons. A round re-sorts only
 * classes of two or more, and only those with a member whose references
 * changed rank in the previous round; on vmlinux almost every type is a
 * singleton after two or three rounds. The rebuild is linear.
 *
 * Parallel: the first sort is a sample sort (split_by_local_key) and a
 * round's classes are split in tasks of about equal numbers of members
 * (refine_round), on opts->jobs threads. A task writes only the slots of
 * its own types and positions, and reads only the last update's ranks,
 * so which thread ran what, and how the work was cut, change nothing.
 * The encoder hands canon the merged chunks without deduplicating them
 * across chunks (encoder.c): twice the types of a deduplicated vmlinux,
 * half of them copies the partition merges.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "btf_kinds.h"
#include "canon.h"
#include "par.h"
#include "strmap.h"
#include "strset.h"

/*
 * Parallel steps (the first sort, refinement rounds) cut their work into
 * tasks of at least CANON_GRAIN types (canon_opts.grain), at most
 * CANON_MAX_TASKS of them: a function of the input's size, never of the
 * number of threads, so the critical path --stats reports is the same at
 * every -j. Which thread runs which task changes no output byte.
 */
#define CANON_GRAIN 4096
#define CANON_MAX_TASKS 64

struct canon {
	const struct bc_btf *btf;
	const struct canon_opts *opts;
	uint32_t n;		/* local types */
	uint32_t n_live;	/* of which ranked: all but resolved FWDs and
				 * omitted types */
	uint32_t n_kept;	/* all but omitted types (opts->omit) */
	uint32_t start_id;	/* first local id */
	const uint32_t *refs;	/* btf->refs, or a copy with FWDs resolved */
	uint32_t *alias;	/* [n] resolved FWD -> its type's id; 0: none */
	uint32_t nr_aliased;	/* nonzero entries of alias */
	uint32_t *order;	/* [n_live] local indices, by rank */
	uint32_t *local_order;	/* [n_kept] the kept local indices by local key
				 * (FWD resolution only; else NULL) */
	uint32_t *local_class;	/* [n] class start of each local_order slot */
	bool local_sorted;	/* local_order and local_class are filled */
	uint32_t *rank;		/* [n] position of the type's class start */
	uint32_t *next_rank;	/* [n] ranks being computed this round */
	uint32_t *class_end;	/* [n] at a class start: one past its end */
	uint8_t *moved;		/* [n] rank changed in the last update */
	uint8_t *next_moved;	/* [n] rank changes of this round */
	struct keyed_type *keyed; /* [n] sort keys, during a partition */
	uint32_t *work, nr_work; /* class starts of classes with >1 member */
	uint32_t *next_work, nr_next_work;
	uint32_t *scratch;	/* [n] parallel rounds' sub-classes, per task */
	double task_sec[CANON_MAX_TASKS]; /* a parallel step's tasks' CPU */
	double par_caller_sec;	/* the caller's CPU inside parallel steps */
	struct canon_stats *stats;
};

static inline bool is_omitted(const struct canon *c, uint32_t idx)
{
	return c->opts->omit && c->opts->omit[idx];
}

/* Rank of any type id: void and base ids rank as themselves. */
static inline uint32_t id_rank(const struct canon *c, const uint32_t *rank,
			       uint32_t id)
{
	return id < c->start_id ? id : c->start_id + rank[id - c->start_id];
}

/* Compares the reference lists of a and b under the current ranks. */
static int cmp_refs(const void *pa, const void *pb, void *arg)
{
	const struct canon *c = arg;
	const struct bc_btf *btf = c->btf;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const uint32_t *ra = c->refs + btf->ref_start[a];
	const uint32_t *rb = c->refs + btf->ref_start[b];
	uint32_t i, len = btf->ref_start[a + 1] - btf->ref_start[a];

	for (i = 0; i < len; i++) {
		uint32_t x = id_rank(c, c->rank, ra[i]);
		uint32_t y = id_rank(c, c->rank, rb[i]);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

typedef int (*span_cmp_fn)(const void *, const void *, void *);

/*
 * An update of the partition: begin_update() snapshots the ranks, the
 * splits write next_rank, end_update() makes them current. Comparators
 * read only c->rank, so a round's result does not depend on the order in
 * which classes are visited.
 */
static void begin_update(struct canon *c)
{
	memcpy(c->next_rank, c->rank, c->n * sizeof(*c->rank));
	memset(c->next_moved, 0, c->n);
	c->nr_next_work = 0;
}

static void end_update(struct canon *c)
{
	uint32_t *ranks = c->rank, *work = c->work;
	uint8_t *moved = c->moved;

	c->rank = c->next_rank;
	c->next_rank = ranks;
	c->moved = c->next_moved;
	c->next_moved = moved;
	c->work = c->next_work;
	c->next_work = work;
	c->nr_work = c->nr_next_work;
}

/*
 * Where a split puts the sub-classes to look at in the next round: the
 * next worklist, or a parallel round's task's own part of c->scratch.
 */
struct work_out {
	uint32_t *list;
	uint32_t nr;
};

/*
 * Splits the class order[from, to), sorted by cmp, wherever cmp sees a
 * difference. Members that change rank are marked moved; sub-classes of
 * two or more go on the next worklist (wo). Returns the number of new
 * classes beyond the first. Writes only the slots of order[from, to) and
 * of its members: classes can be split in parallel.
 */
static uint32_t split_sorted(struct canon *c, uint32_t from, uint32_t to,
			     span_cmp_fn cmp, void *arg, struct work_out *wo)
{
	uint32_t p, start = from, splits = 0;

	for (p = from + 1; p <= to; p++) {
		uint32_t q;

		if (p < to && !cmp(&c->order[p - 1], &c->order[p], arg))
			continue;
		/* [start, p) is one class */
		c->class_end[start] = p;
		for (q = start; q < p; q++) {
			uint32_t idx = c->order[q];

			if (c->next_rank[idx] != start) {
				c->next_rank[idx] = start;
				c->next_moved[idx] = 1;
			}
		}
		if (p - start > 1)
			wo->list[wo->nr++] = start;
		if (start != from)
			splits++;
		start = p;
	}
	return splits;
}

/* split_sorted() after sorting order[from, to) with cmp. */
static uint32_t split_class(struct canon *c, uint32_t from, uint32_t to,
			    span_cmp_fn cmp, void *arg, struct work_out *wo)
{
	qsort_r(c->order + from, to - from, sizeof(*c->order), cmp, arg);
	return split_sorted(c, from, to, cmp, arg, wo);
}

static uint32_t split_class_by_refs(struct canon *c, uint32_t from,
				    uint32_t to, struct work_out *wo);

/* Does any member of the class at start refer to a type that just moved? */
static bool class_is_dirty(const struct canon *c, uint32_t start)
{
	const struct bc_btf *btf = c->btf;
	uint32_t p, i;

	for (p = start; p < c->class_end[start]; p++) {
		uint32_t idx = c->order[p];

		for (i = btf->ref_start[idx]; i < btf->ref_start[idx + 1]; i++) {
			uint32_t id = c->refs[i];

			if (id >= c->start_id && c->moved[id - c->start_id])
				return true;
		}
	}
	return false;
}

/*
 * Runs tasks 0 .. n-1 of fn (bc_par_for) on opts->jobs threads and
 * counts the step into the critical path: its longest task, in place of
 * what the calling thread spent in it.
 */
static int canon_par(struct canon *c, uint32_t n, bc_par_fn fn, void *ctx)
{
	double t0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	int err = bc_par_for(c->opts->jobs ? c->opts->jobs : 1, n, fn, ctx,
			     c->task_sec);

	c->par_caller_sec += bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - t0;
	c->stats->critical_sec += bc_par_longest(c->task_sec, n);
	return err;
}

/* How many tasks a step over n types takes: a function of n alone. */
static uint32_t nr_tasks_for(const struct canon *c, uint64_t n)
{
	uint64_t grain = c->opts->grain ? c->opts->grain : CANON_GRAIN;
	uint64_t tasks = n / grain;

	return tasks < 1 ? 1 : tasks > CANON_MAX_TASKS ? CANON_MAX_TASKS : tasks;
}

/*
 * A refinement round in parallel: the worklist cut into runs of classes
 * of about equal numbers of members, one task per run. A task writes the
 * slots of its classes' members and its own part of c->scratch (room for
 * as many sub-classes as its classes have members); the parts are then
 * joined in task order.
 */
struct round_ctx {
	struct canon *c;
	bool all_dirty;
	uint32_t first[CANON_MAX_TASKS + 1];	/* task k: work[first[k], first[k+1]) */
	uint32_t out_at[CANON_MAX_TASKS];	/* task k's part of c->scratch */
	uint32_t out_nr[CANON_MAX_TASKS];
	uint32_t splits[CANON_MAX_TASKS];
};

static int refine_task(void *arg, uint32_t k)
{
	struct round_ctx *r = arg;
	struct canon *c = r->c;
	struct work_out wo = { c->scratch + r->out_at[k], 0 };
	uint32_t w, splits = 0;

	for (w = r->first[k]; w < r->first[k + 1]; w++) {
		uint32_t from = c->work[w], to = c->class_end[from];

		if (!r->all_dirty && !class_is_dirty(c, from)) {
			wo.list[wo.nr++] = from;
			continue;
		}
		splits += split_class_by_refs(c, from, to, &wo);
	}
	r->out_nr[k] = wo.nr;
	r->splits[k] = splits;
	return 0;
}

/*
 * One refinement round over the worklist. A class none of whose members
 * refers to a type that moved in the last update cannot split now: it is
 * carried over unexamined. Classes are split independently (each reads
 * only the ranks of the last update), so the round runs in parallel
 * tasks, cut by the number of members alone. Returns the number of
 * splits, or a negative errno.
 */
static int64_t refine_round(struct canon *c, bool all_dirty)
{
	struct round_ctx r = { .c = c, .all_dirty = all_dirty };
	uint64_t members = 0, sum = 0;
	uint32_t w, k = 0, nr_tasks, splits = 0;
	int err;

	begin_update(c);
	for (w = 0; w < c->nr_work; w++)
		members += c->class_end[c->work[w]] - c->work[w];
	nr_tasks = nr_tasks_for(c, members);
	r.first[0] = 0;
	r.out_at[0] = 0;
	for (w = 0; w < c->nr_work; w++) {
		sum += c->class_end[c->work[w]] - c->work[w];
		/* task k ends once it holds its share of the members */
		if (k + 1 < nr_tasks && sum * nr_tasks >= (k + 1) * members) {
			r.first[++k] = w + 1;
			r.out_at[k] = sum;
		}
	}
	nr_tasks = k + 1;
	r.first[nr_tasks] = c->nr_work;
	err = canon_par(c, nr_tasks, refine_task, &r);
	if (err)
		return err;
	for (k = 0; k < nr_tasks; k++) {
		memcpy(c->next_work + c->nr_next_work, c->scratch + r.out_at[k],
		       r.out_nr[k] * sizeof(*c->scratch));
		c->nr_next_work += r.out_nr[k];
		splits += r.splits[k];
	}
	end_update(c);
	return splits;
}

/* Rounds until one splits nothing. Returns 0 or a negative errno. */
static int refine_to_fixpoint(struct canon *c, bool all_dirty)
{
	while (c->nr_work) {
		int64_t splits = refine_round(c, all_dirty);

		if (splits < 0)
			return (int)splits;
		c->stats->refine_rounds++;
		all_dirty = false;
		if (!splits)
			break;
	}
	return 0;
}

/*
 * The first sort by local key compares a 192-bit prefix of the key before
 * the key itself: on vmlinux most pairs differ early, and the full
 * comparison (strings through the string section, entry by entry) runs
 * only on ties. The prefix is the key itself written as a bit string, item
 * by item in the order the key compares them (order.c), cut at 192 bits:
 *
 *   kind (7 bits) and vlen (24); the name; kflag (1 bit), in the order's
 *   place for them (name first for the name order);
 *   the data words of the fixed part (32 bits each; references are not
 *   part of the key and take no bits);
 *   each entry's words in record order, a name as its string, data words
 *   as 32 bits; an enumerator's name, then its value, the sign bit
 *   flipped when the enum is signed (kflag) so that unsigned order is the
 *   signed one, and an ENUM64 value high word first.
 *
 * A string is written 4 bytes at a time, big-endian, padded with zero
 * bytes, up to and including the 4 bytes that hold its end; zero padding
 * is how strcmp orders, and two strings that agree up to a point have
 * taken the same number of bits, so what follows lines up. That holds for
 * every item: where two prefixes agree, they were cut from the same
 * layout, and the first difference is the key's first difference.
 * A type whose whole key fits is 'full': two full types with equal
 * prefixes are equal, with no comparison. A PTR, a short-named TYPEDEF
 * or INT, and most FUNC_PROTOs (parameter names of a few bytes) are full.
 */
struct keyed_type {
	uint64_t k[3];
	uint32_t idx;
	uint32_t full;		/* bool; 32 bytes in all */
};

/* A bit string of at most 192 bits, filled from the most significant bit. */
struct key_bits {
	uint64_t w[3];
	uint32_t at;		/* bits written */
	bool cut;		/* something did not fit */
};

#define KEY_BITS 192

/* Appends the nr (<= 32) low bits of v, most significant first. */
static inline void put_bits(struct key_bits *kb, uint32_t v, uint32_t nr)
{
	uint32_t room = KEY_BITS - kb->at, off;
	uint64_t bits;

	if (nr > room) {	/* the top bits that fit: a prefix of v */
		if (!room)
			goto cut;
		v >>= nr - room;
		nr = room;
		kb->cut = true;
	}
	off = kb->at % 64;
	bits = (uint64_t)v & ((1ULL << nr) - 1);
	if (off + nr <= 64) {
		kb->w[kb->at / 64] |= bits << (64 - off - nr);
	} else {		/* across two words: both exist, at + nr <= 192 */
		kb->w[kb->at / 64] |= bits >> (off + nr - 64);
		kb->w[kb->at / 64 + 1] |= bits << (128 - off - nr);
	}
	kb->at += nr;
	return;
cut:
	kb->cut = true;
}

/*
 * Appends the string at offset off 4 bytes at a time, through the 4 bytes
 * holding its end (zero bytes after it, as strcmp reads it). Where 4 bytes
 * lie inside the string section they are loaded at once and cut at the
 * first zero byte; near the section's end, byte by byte up to the NUL.
 */
static void put_string(struct key_bits *kb, const struct bc_btf *btf,
		       uint32_t off)
{
	const struct bc_btf *owner = btf;
	const unsigned char *s, *end;
	bool ended = false;

	while (owner->base && off < owner->start_str_off)
		owner = owner->base;
	s = (const unsigned char *)owner->strs + (off - owner->start_str_off);
	end = (const unsigned char *)owner->strs + owner->str_len;
	while (!kb->cut) {
		uint32_t v = 0, j, x, zero;

		if (end - s >= 4) {
			memcpy(&x, s, 4);
			x = le32toh(x);		/* s[0] in the low byte */
			/* the lowest zero byte is found exactly by this */
			zero = (x - 0x01010101U) & ~x & 0x80808080U;
			if (zero) {
				x &= (1U << (__builtin_ctz(zero) & ~7U)) - 1;
				ended = true;
			}
			v = __builtin_bswap32(x);
			s += 4;
		} else {
			for (j = 0; j < 4; j++) {
				uint32_t ch = ended ? 0 : *s++;

				ended = ended || !ch;
				v = v << 8 | ch;
			}
		}
		put_bits(kb, v, 32);
		if (ended)
			return;
	}
}

/* Appends what the key compares after kflag: data words, then entries. */
static void put_rest(const struct bc_btf *btf, const struct btf_type *t,
		     struct key_bits *kb)
{
	const uint32_t *w = (const uint32_t *)t;
	uint32_t kind = bc_type_kind(t), j, e, nr_entries = bc_type_entries(t);
	const struct bc_kind_layout *k = &bc_kinds[kind];
	uint32_t head = 3 + k->fixed_words, sign = bc_info_kflag(t->info) << 31;

	for (j = 2; j < head && !kb->cut; j++)
		if (bc_word_class(kind, j) == BC_WORD_DATA)
			put_bits(kb, w[j], 32);
	for (e = 0; e < nr_entries && !kb->cut; e++) {
		const uint32_t *ent = w + head + e * k->entry_words;

		switch (kind) {
		case BTF_KIND_ENUM:
			put_string(kb, btf, ent[0]);
			put_bits(kb, ent[1] ^ sign, 32);
			break;
		case BTF_KIND_ENUM64:
			put_string(kb, btf, ent[0]);
			put_bits(kb, ent[2] ^ sign, 32);
			put_bits(kb, ent[1], 32);
			break;
		default:
			for (j = 0; j < k->entry_words; j++) {
				if ((k->entry_ref_mask >> j) & 1)
					continue;
				if ((k->entry_name_mask >> j) & 1)
					put_string(kb, btf, ent[j]);
				else
					put_bits(kb, ent[j], 32);
			}
		}
	}
}

static void prefix_keys(const struct canon *c, uint32_t idx,
			struct keyed_type *k)
{
	const struct bc_btf *btf = c->btf;
	const struct btf_type *t = bc_btf_local(btf, idx);
	struct key_bits kb = { { 0, 0, 0 }, 0, false };

	if (c->opts->order == BC_ORDER_NAME)
		put_string(&kb, btf, t->name_off);
	put_bits(&kb, bc_type_kind(t), 7);
	put_bits(&kb, bc_type_vlen(t), 24);
	if (c->opts->order == BC_ORDER_KIND)
		put_string(&kb, btf, t->name_off);
	put_bits(&kb, bc_info_kflag(t->info), 1);
	put_rest(btf, t, &kb);
	k->k[0] = kb.w[0];
	k->k[1] = kb.w[1];
	k->k[2] = kb.w[2];
	k->idx = idx;
	k->full = !kb.cut;
}

/*
 * What decides between two keyed types whose prefixes are equal and not
 * both full: the whole local key (the rank), or the whole list of
 * reference ranks (a refinement round).
 */
typedef int (*tie_fn)(const struct canon *c, uint32_t a, uint32_t b);

static int tie_local(const struct canon *c, uint32_t a, uint32_t b)
{
	return bc_order_cmp_local(c->opts->order, c->btf, bc_btf_local(c->btf, a),
				  bc_btf_local(c->btf, b));
}

static inline int cmp_keyed(const struct canon *c, tie_fn tie,
			    const struct keyed_type *a,
			    const struct keyed_type *b)
{
	if (a->k[0] != b->k[0])
		return a->k[0] < b->k[0] ? -1 : 1;
	if (a->k[1] != b->k[1])
		return a->k[1] < b->k[1] ? -1 : 1;
	if (a->k[2] != b->k[2])
		return a->k[2] < b->k[2] ? -1 : 1;
	if (a->full && b->full)
		return 0;
	return tie(c, a->idx, b->idx);
}

static void swap_keyed(struct keyed_type *a, struct keyed_type *b)
{
	struct keyed_type t = *a;

	*a = *b;
	*b = t;
}

/* Heapsort of v[0, n): the fallback that bounds sort_keyed's worst case. */
static void heapsort_keyed(const struct canon *c, tie_fn tie,
			   struct keyed_type *v, size_t n)
{
	size_t start = n / 2, end = n, root, child;

	for (;;) {
		if (start > 0) {
			start--;
		} else {
			if (end <= 1)
				return;
			swap_keyed(&v[0], &v[--end]);
		}
		for (root = start; (child = 2 * root + 1) < end; root = child) {
			if (child + 1 < end &&
			    cmp_keyed(c, tie, &v[child], &v[child + 1]) < 0)
				child++;
			if (cmp_keyed(c, tie, &v[root], &v[child]) >= 0)
				break;
			swap_keyed(&v[root], &v[child]);
		}
	}
}

/*
 * Introsort of v[0, n) by cmp_keyed: quicksort on the median of three,
 * heapsort below a depth of 2 log2 n, insertion sort on short runs. In
 * place (qsort's merge sort allocates as much again) and with the prefix
 * comparison inlined. Elements that compare equal have the same local
 * key, so where each lands changes nothing: classes are what is kept.
 */
static void sort_keyed(const struct canon *c, tie_fn tie, struct keyed_type *v,
		       size_t n, unsigned int depth)
{
	size_t i, j;

	while (n > 16) {
		size_t mid = n / 2;
		struct keyed_type pivot;

		if (!depth--) {
			heapsort_keyed(c, tie, v, n);
			return;
		}
		if (cmp_keyed(c, tie, &v[mid], &v[0]) < 0)
			swap_keyed(&v[mid], &v[0]);
		if (cmp_keyed(c, tie, &v[n - 1], &v[mid]) < 0) {
			swap_keyed(&v[n - 1], &v[mid]);
			if (cmp_keyed(c, tie, &v[mid], &v[0]) < 0)
				swap_keyed(&v[mid], &v[0]);
		}
		pivot = v[mid];
		/* Hoare: v[0] <= pivot <= v[n - 1] keep both scans in bounds */
		for (i = 0, j = n - 1;;) {
			while (cmp_keyed(c, tie, &v[i], &pivot) < 0)
				i++;
			while (cmp_keyed(c, tie, &pivot, &v[j]) < 0)
				j--;
			if (i >= j)
				break;
			swap_keyed(&v[i++], &v[j--]);
		}
		/* [0, j] <= pivot <= [j + 1, n): recurse into the smaller side */
		if (j + 1 < n - j - 1) {
			sort_keyed(c, tie, v, j + 1, depth);
			v += j + 1;
			n -= j + 1;
		} else {
			sort_keyed(c, tie, v + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (i = 1; i < n; i++) {
		struct keyed_type t = v[i];

		for (j = i; j > 0 && cmp_keyed(c, tie, &t, &v[j - 1]) < 0; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

struct keyed_order {
	const struct canon *c;
	tie_fn tie;
	const struct keyed_type *keyed;	/* [p - from]: the type at c->order[p] */
	uint32_t from;
};

/* cmp_keyed() of two slots of c->order, through their keys. */
static int cmp_keyed_slots(const void *pa, const void *pb, void *arg)
{
	const struct keyed_order *ko = arg;
	const uint32_t *order = ko->c->order + ko->from;

	return cmp_keyed(ko->c, ko->tie,
			 &ko->keyed[(const uint32_t *)pa - order],
			 &ko->keyed[(const uint32_t *)pb - order]);
}

/* Sorts keyed[0, n) and splits order[from, from + n) by it. */
static uint32_t split_keyed(struct canon *c, tie_fn tie,
			    struct keyed_type *keyed, uint32_t from, uint32_t n,
			    struct work_out *wo)
{
	struct keyed_order ko = { c, tie, keyed, from };
	uint32_t p;

	sort_keyed(c, tie, keyed, n, 2 * (32 - __builtin_clz(n | 1)));
	for (p = 0; p < n; p++)
		c->order[from + p] = keyed[p].idx;
	return n ? split_sorted(c, from, from + n, cmp_keyed_slots, &ko, wo) : 0;
}

/*
 * The first sort in parallel, a sample sort. Tasks over ranges of type
 * indices compute the kept types' keys; a sorted sample of them gives
 * nr_tasks - 1 splitters; every key goes to the bucket between the
 * splitters it lies between (equal keys always to the same one), the
 * buckets are sorted in parallel and laid end to end, and each position
 * is marked where its key differs from the one before. Equal keys are one
 * class wherever they land, so neither the sample nor the number of
 * tasks changes a class or its rank.
 */
struct rank_ctx {
	struct canon *c;
	uint32_t nr_tasks;
	uint32_t idx_first[CANON_MAX_TASKS + 1]; /* task k: type indices */
	uint32_t at[CANON_MAX_TASKS + 1];	/* task k: keyed[at[k], at[k+1]) */
	struct keyed_type split[CANON_MAX_TASKS]; /* [nr_tasks - 1] splitters */
	uint32_t *place;	/* [task * nr_tasks + bucket]: count, then slot */
	uint8_t *bucket;	/* [live] each key's bucket */
	struct keyed_type *sorted;		/* [live] the keys, bucket by bucket */
	uint32_t bucket_at[CANON_MAX_TASKS + 1];
	uint8_t *differs;	/* [live] the key differs from the one before */
};

static int rank_keys_task(void *arg, uint32_t k)
{
	struct rank_ctx *r = arg;
	uint32_t idx, p = r->at[k];

	for (idx = r->idx_first[k]; idx < r->idx_first[k + 1]; idx++)
		if (!is_omitted(r->c, idx))
			prefix_keys(r->c, idx, &r->c->keyed[p++]);
	return 0;
}

static int rank_bucket_task(void *arg, uint32_t k)
{
	struct rank_ctx *r = arg;
	uint32_t p;

	for (p = r->at[k]; p < r->at[k + 1]; p++) {
		uint32_t lo = 0, hi = r->nr_tasks - 1;

		/* the first splitter not below the key */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (cmp_keyed(r->c, tie_local, &r->split[mid],
				      &r->c->keyed[p]) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		r->bucket[p] = lo;
		r->place[k * r->nr_tasks + lo]++;
	}
	return 0;
}

static int rank_scatter_task(void *arg, uint32_t k)
{
	struct rank_ctx *r = arg;
	uint32_t p, *slot = r->place + k * r->nr_tasks;

	for (p = r->at[k]; p < r->at[k + 1]; p++)
		r->sorted[slot[r->bucket[p]]++] = r->c->keyed[p];
	return 0;
}

static int rank_sort_task(void *arg, uint32_t b)
{
	struct rank_ctx *r = arg;
	uint32_t from = r->bucket_at[b], n = r->bucket_at[b + 1] - from, p;

	sort_keyed(r->c, tie_local, r->sorted + from, n,
		   2 * (32 - __builtin_clz(n | 1)));
	/* a bucket's first key differs from the bucket before's keys */
	for (p = from; p < from + n; p++)
		r->differs[p] = p == from ||
				cmp_keyed(r->c, tie_local, &r->sorted[p - 1],
					  &r->sorted[p]) != 0;
	return 0;
}

/* split_sorted()'s comparison for the marks rank_sort_task() left. */
static int cmp_marked(const void *pa, const void *pb, void *arg)
{
	const struct rank_ctx *r = arg;

	(void)pa;
	return r->differs[(const uint32_t *)pb - r->c->order];
}

/*
 * Sorts the kept types (all but opts->omit's) by local key into c->order
 * and splits them into classes there (split_sorted), in parallel tasks
 * when there are enough. Returns how many were kept, or -ENOMEM.
 */
static int split_by_local_key(struct canon *c)
{
	struct rank_ctx *r = calloc(1, sizeof(*r));
	struct work_out wo = { c->next_work, 0 };
	uint32_t k, b, p, live = 0, nr_sample;
	struct keyed_type *sample = NULL;
	int err = -ENOMEM;

	if (!r)
		return -ENOMEM;
	r->c = c;
	r->nr_tasks = nr_tasks_for(c, c->n);
	for (k = 0; k <= r->nr_tasks; k++)
		r->idx_first[k] = (uint64_t)c->n * k / r->nr_tasks;
	for (k = 0; k < r->nr_tasks; k++) {
		r->at[k] = live;
		for (p = r->idx_first[k]; p < r->idx_first[k + 1]; p++)
			live += !is_omitted(c, p);
	}
	r->at[r->nr_tasks] = live;
	if (canon_par(c, r->nr_tasks, rank_keys_task, r))
		goto out;
	if (r->nr_tasks == 1 || live < r->nr_tasks) {
		split_keyed(c, tie_local, c->keyed, 0, live, &wo);
		goto done;
	}

	nr_sample = r->nr_tasks * 32;
	sample = malloc(nr_sample * sizeof(*sample));
	r->place = calloc((size_t)r->nr_tasks * r->nr_tasks, sizeof(*r->place));
	r->bucket = malloc(live ? live : 1);
	r->sorted = malloc((live ? live : 1) * sizeof(*r->sorted));
	r->differs = malloc(live ? live : 1);
	if (!sample || !r->place || !r->bucket || !r->sorted || !r->differs)
		goto out;
	for (p = 0; p < nr_sample; p++)
		sample[p] = c->keyed[(uint64_t)live * p / nr_sample];
	sort_keyed(c, tie_local, sample, nr_sample,
		   2 * (32 - __builtin_clz(nr_sample)));
	for (b = 0; b + 1 < r->nr_tasks; b++)
		r->split[b] = sample[(b + 1) * 32];
	if (canon_par(c, r->nr_tasks, rank_bucket_task, r))
		goto out;
	/* bucket by bucket, and in a bucket task by task: each one's slot */
	for (b = 0, p = 0; b < r->nr_tasks; b++) {
		r->bucket_at[b] = p;
		for (k = 0; k < r->nr_tasks; k++) {
			uint32_t count = r->place[k * r->nr_tasks + b];

			r->place[k * r->nr_tasks + b] = p;
			p += count;
		}
	}
	r->bucket_at[r->nr_tasks] = p;
	if (canon_par(c, r->nr_tasks, rank_scatter_task, r) ||
	    canon_par(c, r->nr_tasks, rank_sort_task, r))
		goto out;
	for (p = 0; p < live; p++)
		c->order[p] = r->sorted[p].idx;
	if (live)
		split_sorted(c, 0, live, cmp_marked, r, &wo);
done:
	c->nr_next_work = wo.nr;
	err = (int)live;
out:
	free(sample);
	free(r->place);
	free(r->bucket);
	free(r->sorted);
	free(r->differs);
	free(r);
	return err;
}

static int tie_refs(const struct canon *c, uint32_t a, uint32_t b)
{
	return cmp_refs(&a, &b, (void *)c);
}

/*
 * A refinement round's sort of the class order[from, to): each member
 * keyed by the ranks of its first six references (32 bits each; the
 * members of a class have the same number), full when it has at most six,
 * so most classes sort without walking reference lists.
 */
static uint32_t split_class_by_refs(struct canon *c, uint32_t from,
				    uint32_t to, struct work_out *wo)
{
	const struct bc_btf *btf = c->btf;
	uint32_t p, i;

	for (p = from; p < to; p++) {
		uint32_t idx = c->order[p];
		const uint32_t *refs = c->refs + btf->ref_start[idx];
		uint32_t len = btf->ref_start[idx + 1] - btf->ref_start[idx];
		struct keyed_type *k = &c->keyed[p];	/* the class's own slots */

		k->k[0] = k->k[1] = k->k[2] = 0;
		for (i = 0; i < len && i < 6; i++)
			k->k[i / 2] |= (uint64_t)id_rank(c, c->rank, refs[i]) <<
				       (i % 2 ? 0 : 32);
		k->idx = idx;
		k->full = len <= 6;
	}
	return split_keyed(c, tie_refs, c->keyed + from, from, to - from, wo);
}

/* Closes the class order[start, end) built by rank_by_local_key(). */
static void close_class(struct canon *c, uint32_t start, uint32_t end)
{
	c->class_end[start] = end;
	if (end - start > 1)
		c->work[c->nr_work++] = start;
}

/*
 * Step 1: one class spanning everything, split by local key. Local keys
 * never change, so the sort runs once and its order is kept: a partition
 * with FWDs resolved (standing for other types) drops them from the kept
 * order in linear time instead of sorting again.
 */
static int rank_by_local_key(struct canon *c)
{
	uint32_t p, live = 0, start = 0, prev_class = UINT32_MAX;
	int err;

	memset(c->moved, 0, c->n);
	if (!c->local_sorted) {
		for (p = 0; p < c->n; p++)
			c->rank[p] = 0;
		begin_update(c);
		err = split_by_local_key(c);
		if (err < 0)
			return err;
		live = (uint32_t)err;
		c->n_live = c->n_kept = live;
		end_update(c);
		/* kept for the partitions after FWD resolution, if any */
		if (c->local_order) {
			memcpy(c->local_order, c->order, live * sizeof(*c->order));
			for (p = 0; p < live; p++)
				c->local_class[p] = c->rank[c->order[p]];
		}
		c->local_sorted = true;
		if (!c->nr_aliased)
			return 0;
		live = 0;	/* FWDs stand for other types: drop them */
	}

	c->nr_work = 0;
	for (p = 0; p < c->n_kept; p++) {
		uint32_t idx = c->local_order[p];

		if (c->alias && c->alias[idx])
			continue;
		if (c->local_class[p] != prev_class) {
			if (live)
				close_class(c, start, live);
			start = live;
			prev_class = c->local_class[p];
		}
		c->order[live++] = idx;
		c->rank[idx] = start;
	}
	if (live)
		close_class(c, start, live);
	c->n_live = live;
	return 0;
}

/*
 * The identity key of a VAR: the smallest (DATASEC rank, entry index) among
 * the DATASEC entries naming it; UINT64_MAX when none does.
 */
static uint64_t *var_identity_keys(const struct canon *c)
{
	const struct bc_btf *btf = c->btf;
	uint64_t *key = malloc((c->n ? c->n : 1) * sizeof(*key));
	uint32_t idx, i;

	if (!key)
		return NULL;
	for (idx = 0; idx < c->n; idx++)
		key[idx] = UINT64_MAX;
	for (idx = 0; idx < c->n; idx++) {
		const struct btf_type *t = bc_btf_local(btf, idx);
		uint64_t sec_rank = c->rank[idx];

		if (bc_type_kind(t) != BTF_KIND_DATASEC || is_omitted(c, idx))
			continue;
		for (i = btf->ref_start[idx]; i < btf->ref_start[idx + 1]; i++) {
			uint32_t var = c->refs[i];
			uint64_t k = sec_rank << 32 | (i - btf->ref_start[idx]);

			if (var < c->start_id)
				continue;
			var -= c->start_id;
			if (k < key[var])
				key[var] = k;
		}
	}
	return key;
}

static int cmp_identity(const void *pa, const void *pb, void *arg)
{
	const uint64_t *key = arg;
	uint64_t a = key[*(const uint32_t *)pa], b = key[*(const uint32_t *)pb];

	return (a > b) - (a < b);
}

/*
 * Step 3's identity rule: splits the classes of VARs by identity key.
 * Returns the number of splits, or a negative errno.
 */
static int64_t split_var_classes(struct canon *c)
{
	uint64_t *key = var_identity_keys(c);
	struct work_out wo = { c->next_work, 0 };
	uint32_t w, splits = 0;

	if (!key)
		return -ENOMEM;
	begin_update(c);
	for (w = 0; w < c->nr_work; w++) {
		uint32_t from = c->work[w], to = c->class_end[from];
		const struct btf_type *t = bc_btf_local(c->btf, c->order[from]);

		if (bc_type_kind(t) != BTF_KIND_VAR)
			wo.list[wo.nr++] = from;
		else
			splits += split_class(c, from, to, cmp_identity, key, &wo);
	}
	c->nr_next_work = wo.nr;
	end_update(c);
	free(key);
	c->stats->identity_splits += splits;
	return splits;
}

/*
 * A 16-bit key of a string of len bytes at s, from its length and first
 * 8 bytes (room: bytes readable at s, the string's NUL and what follows
 * included): a filter in front of the full hash.
 */
#define SCAN_KEY_BITS 16

static uint32_t scan_key(const char *s, size_t len, size_t room)
{
	uint64_t w = 0;
	size_t i;

	if (room >= 8) {
		memcpy(&w, s, 8);
		w = le64toh(w);
		if (len < 8)
			w &= (1ULL << (8 * len)) - 1;
	} else {
		for (i = 0; i < len && i < 8; i++)
			w |= (uint64_t)(uint8_t)s[i] << (8 * i);
	}
	w = (w ^ len) * 0xff51afd7ed558ccdULL;
	return (uint32_t)(w >> (64 - SCAN_KEY_BITS));
}

/*
 * Step 4's strings for split BTF: a string the base holds takes the base's
 * offset (its first occurrence), any other is the split part's own, laid
 * out in order of first use. Indexing the base's strings would cost a pass
 * of hash-table inserts over all of them for the few a module names;
 * instead the distinct names go into a small set (needles) and one scan
 * over the base's strings looks each base string up in it, stopping once
 * every needle is found. The scan reads the base sequentially; a bitmap
 * of the needles' scan_key() (8 KiB) lets it hash and look up only the
 * few base strings that pass it (on vmlinux's 108k strings, a module's
 * few hundred needles pass a few thousand).
 */
static int map_names_split(const struct bc_btf *btf, uint32_t *words,
			   const uint32_t *names, uint32_t nr,
			   struct bc_strset *strs)
{
	const struct bc_btf *base = btf->base;
	uint32_t i, off, found = 0, *base_hit = NULL;
	uint64_t *filter = NULL;
	/*
	 * input string offset -> needle + 1 (0: not seen); calloc'ed, so
	 * only the pages of offsets in use are ever touched
	 */
	uint32_t *str_map = calloc(bc_btf_str_end(btf) + 1, sizeof(uint32_t));
	struct bc_strset needles;
	int err = str_map ? bc_strset_init_over(&needles, 0) : -ENOMEM;

	if (err) {
		free(str_map);
		return err;
	}
	/* the distinct strings, by content; str_map: input offset -> needle + 1 */
	for (i = 0; i < nr; i++) {
		uint32_t w = words[names[i]];
		int64_t k;

		if (str_map[w])
			continue;
		k = bc_strset_add(&needles, bc_btf_str(btf, w));
		if (k < 0) {
			err = -ENOMEM;
			goto out;
		}
		str_map[w] = k + 1;
	}
	base_hit = calloc(needles.len ? needles.len : 1, sizeof(*base_hit));
	filter = calloc((1u << SCAN_KEY_BITS) / 64, sizeof(*filter));
	if (!base_hit || !filter) {
		err = -ENOMEM;
		goto out;
	}
	for (off = 0; off < needles.len;) {
		size_t len = strlen(needles.buf + off);
		uint32_t key = scan_key(needles.buf + off, len, needles.len - off);

		filter[key / 64] |= 1ULL << (key % 64);
		off += len + 1;
	}
	for (off = 0; off < base->str_len && found < needles.nr_used;) {
		const char *str = base->strs + off;
		size_t len = strlen(str);
		uint32_t key = scan_key(str, len, base->str_len - off);
		int64_t k;

		if (filter[key / 64] & (1ULL << (key % 64)) &&
		    (k = bc_strset_find_hashed(&needles, str, len,
					       bc_strset_hash(str, len))) >= 0 &&
		    !base_hit[k]) {
			base_hit[k] = off + 1;
			found++;
		}
		off += len + 1;
	}
	for (i = 0; i < nr; i++) {
		uint32_t *w = &words[names[i]], k = str_map[*w] - 1;
		int64_t own;

		if (base_hit[k]) {
			*w = base_hit[k] - 1;
			continue;
		}
		own = bc_strset_add(strs, needles.buf + k);
		if (own < 0) {
			err = -ENOMEM;
			goto out;
		}
		*w = own;
	}
out:
	free(filter);
	free(base_hit);
	free(str_map);
	bc_strset_deinit(&needles);
	return err;
}

/*
 * Word j of the output record at byte type_len of the types in *out, of
 * class cls: a reference remapped, a name mapped through strs or noted in
 * names[] (see emit_types). Returns 0 or a negative errno.
 */
static inline int emit_word(struct canon *c, const uint32_t *id_map,
			    uint8_t *const *out, uint32_t type_len,
			    uint32_t j, enum bc_word_class cls,
			    struct bc_strmap *strs, uint32_t *names,
			    uint32_t *nr_names)
{
	uint32_t *w = (uint32_t *)(*out + sizeof(struct btf_header) + type_len);
	int64_t off;

	switch (cls) {
	case BC_WORD_REF:
		if (w[j] >= c->start_id)
			w[j] = id_map[w[j] - c->start_id];
		return 0;
	case BC_WORD_NAME:
		if (!strs && !names) {	/* keep_strings: "" is 0 */
			if (w[j] && !c->btf->strs[w[j]])
				w[j] = 0;
			return 0;
		}
		if (!strs) {
			names[(*nr_names)++] = type_len / 4 + j;
			return 0;
		}
		off = bc_strmap_map(strs, w[j]);
		if (off < 0)
			return off;
		/* the buffer may have moved */
		w = (uint32_t *)(*out + sizeof(struct btf_header) + type_len);
		w[j] = off;
		return 0;
	default:
		return 0;
	}
}

/*
 * Copies the kept types, one per class in rank order, behind the header
 * in *out, with their ids remapped. Each name word is mapped as it is met
 * through strs (base BTF; that may move the buffer, so *out is read again)
 * or, with strs NULL, its word index noted in names[] for a later pass.
 * Either way strings are met in the order of the output. With both NULL
 * (keep_strings) a name word stays the input's offset, an empty name 0. Returns the
 * bytes of types written, or -ENOMEM.
 */
static int64_t emit_types(struct canon *c, const uint32_t *id_map,
			  uint8_t *const *out, struct bc_strmap *strs,
			  uint32_t *names, uint32_t *nr_names)
{
	const struct bc_btf *btf = c->btf;
	uint32_t p, idx, j, i, head, type_len = 0;
	int err;

	for (p = 0; p < c->n_live; p++) {
		const struct bc_kind_layout *k;
		const struct btf_type *t;
		uint32_t kind, words;

		/*
		 * Types are read in rank order, all over the input: fetch the
		 * offset of the type 16 ahead and the record of the one 8
		 * ahead while this one is copied.
		 */
		if (p + 16 < c->n_live)
			__builtin_prefetch(&btf->type_off[c->order[p + 16]]);
		if (p + 8 < c->n_live)
			__builtin_prefetch(bc_btf_local(btf, c->order[p + 8]));
		idx = c->order[p];
		if (c->rank[idx] != p)
			continue;
		t = bc_btf_local(btf, idx);
		kind = bc_type_kind(t);
		k = &bc_kinds[kind];
		words = bc_type_words(t);
		head = 3 + k->fixed_words;
		memcpy(*out + sizeof(struct btf_header) + type_len, t, words * 4);
		/* the head word by word, then entry by entry */
		for (j = 0; j < head; j++) {
			err = emit_word(c, id_map, out, type_len, j,
					bc_word_class(kind, j), strs, names,
					nr_names);
			if (err)
				return err;
		}
		for (; j < words; j += k->entry_words) {
			for (i = 0; i < k->entry_words; i++) {
				err = emit_word(c, id_map, out, type_len, j + i,
						bc_entry_word_class(k, i), strs,
						names, nr_names);
				if (err)
					return err;
			}
		}
		type_len += words * 4;
	}
	return type_len;
}

/* Fills the fixed 24-byte header of a blob of type_len and str_len. */
static void put_header(void *raw, uint32_t type_len, uint32_t str_len)
{
	struct btf_header *hdr = raw;

	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = 0xeB9F;
	hdr->version = 1;
	hdr->hdr_len = sizeof(*hdr);
	hdr->type_off = 0;
	hdr->type_len = type_len;
	hdr->str_off = type_len;
	hdr->str_len = str_len;
}

/*
 * Step 4 for base BTF: the blob is assembled in the string map's buffer
 * (strmap.h), the header and the types in the room reserved at its start
 * (as much as the input's types: the rebuild emits at most every input
 * type), the strings after that room; they are moved down once when
 * merged or omitted types left part of the room empty (never for a sort
 * that merges nothing).
 */
static int rebuild_base_strings(struct canon *c, struct canon_result *res,
				bool by_content)
{
	const struct bc_btf *btf = c->btf;
	size_t room = sizeof(struct btf_header) + btf->hdr->type_len, size;
	struct bc_strmap strs;
	int64_t type_len;
	void *shrunk;
	int err;

	err = bc_strmap_init(&strs, btf->strs, btf->str_len, room, by_content);
	if (err)
		goto out;
	type_len = emit_types(c, res->id_map, &strs.buf, &strs, NULL, NULL);
	err = type_len < 0 ? (int)type_len : bc_strmap_check_unique(&strs);
	if (err)
		goto out;
	size = sizeof(struct btf_header) + type_len + strs.len;
	if (sizeof(struct btf_header) + (size_t)type_len < room)
		memmove(strs.buf + sizeof(struct btf_header) + type_len,
			strs.buf + room, strs.len);
	put_header(strs.buf, type_len, strs.len);
	res->raw = strs.buf;
	res->raw_size = size;
	strs.buf = NULL;
	shrunk = size < strs.cap ? realloc(res->raw, size) : NULL;
	if (shrunk)	/* else the larger block stays: no harm */
		res->raw = shrunk;
out:
	bc_strmap_deinit(&strs);
	return err;
}

/*
 * Producers (libbpf, pahole, the kernel) write each string once, so the
 * input's strings are first taken as distinct by their numbers, which
 * needs no lookup by content, and checked to be so at the end; an input
 * with the same text twice, or a name inside another string, is mapped
 * again by content. Both write the same bytes where both apply.
 */
static int rebuild_base(struct canon *c, struct canon_result *res)
{
	int err = rebuild_base_strings(c, res, false);

	return err == -EAGAIN ? rebuild_base_strings(c, res, true) : err;
}

/*
 * Step 4 for base BTF with opts->keep_strings: the types as always, each
 * name word the input's offset (an empty name 0, as the rebuild writes
 * it), and the input's string section copied behind them as read.
 * Problem: laying the strings out anew (rebuild_base) is most of the
 * rebuild, and a reader that takes names by their text (header) does not
 * need it. Invariant: the types, their order and their names' text are
 * rebuild_base()'s; only the offsets differ (and strings no type names
 * stay). Cost: the types copied once in rank order, the strings once,
 * no lookup.
 */
static int rebuild_base_kept(struct canon *c, struct canon_result *res)
{
	const struct bc_btf *btf = c->btf;
	size_t room = sizeof(struct btf_header) + btf->hdr->type_len;
	uint8_t *out = malloc(room + btf->str_len);
	int64_t type_len;
	void *shrunk;

	if (!out)
		return -ENOMEM;
	type_len = emit_types(c, res->id_map, &out, NULL, NULL, NULL);
	if (type_len < 0) {
		free(out);
		return (int)type_len;
	}
	memcpy(out + sizeof(struct btf_header) + type_len, btf->strs,
	       btf->str_len);
	put_header(out, type_len, btf->str_len);
	res->raw = out;
	res->raw_size = sizeof(struct btf_header) + type_len + btf->str_len;
	shrunk = res->raw_size < room + btf->str_len ?
		 realloc(out, res->raw_size) : NULL;
	if (shrunk)	/* else the larger block stays: no harm */
		res->raw = shrunk;
	return 0;
}

/*
 * Step 4 for split BTF: types first with their name words noted, then the
 * names mapped in that order (map_names_split), then the strings appended.
 */
static int rebuild_split(struct canon *c, struct canon_result *res)
{
	const struct bc_btf *btf = c->btf;
	size_t room = sizeof(struct btf_header) + btf->hdr->type_len;
	/* word indices of name words in the types; every word at most */
	uint32_t *names = malloc(btf->hdr->type_len + sizeof(uint32_t));
	uint8_t *out = malloc(room);
	uint32_t nr_names = 0;
	struct bc_strset strs;
	int64_t type_len;
	void *raw;
	int err = -ENOMEM;

	if (!names || !out || bc_strset_init_over(&strs, btf->base->str_len)) {
		free(names);
		free(out);
		return -ENOMEM;
	}
	type_len = emit_types(c, res->id_map, &out, NULL, names, &nr_names);
	err = type_len < 0 ? (int)type_len :
	      map_names_split(btf, (uint32_t *)(out + sizeof(struct btf_header)),
			      names, nr_names, &strs);
	if (err)
		goto out;
	res->raw_size = sizeof(struct btf_header) + type_len + strs.len;
	raw = realloc(out, res->raw_size);
	if (!raw) {
		err = -ENOMEM;
		goto out;
	}
	out = NULL;
	res->raw = raw;
	if (strs.len)	/* split BTF may add no string: buf is NULL */
		memcpy((uint8_t *)raw + sizeof(struct btf_header) + type_len,
		       strs.buf, strs.len);
	put_header(raw, type_len, strs.len);
out:
	free(out);
	free(names);
	bc_strset_deinit(&strs);
	return err;
}

/*
 * Step 4: one type per class, in rank order, every id remapped, strings
 * laid out in order of first use (rebuild_base, rebuild_split).
 */
static int rebuild(struct canon *c, struct canon_result *res)
{
	/* the partition is final: next_rank's room is free */
	uint32_t *class_out = c->next_rank;
	uint32_t p, idx, nr_out = 0;
	int err;

	for (p = 0; p < c->n_live; p++)
		if (c->rank[c->order[p]] == p)
			class_out[p] = c->start_id + nr_out++;
	res->id_map = malloc((c->n ? c->n : 1) * sizeof(uint32_t));
	if (!res->id_map)
		return -ENOMEM;
	for (idx = 0; idx < c->n; idx++)
		if (is_omitted(c, idx))
			res->id_map[idx] = 0;
		else if (!c->alias || !c->alias[idx])
			res->id_map[idx] = class_out[c->rank[idx]];
	for (idx = 0; c->alias && idx < c->n; idx++) {
		uint32_t to = c->alias[idx];

		if (to)
			res->id_map[idx] = to < c->start_id ? to :
					   res->id_map[to - c->start_id];
	}
	err = c->btf->base ? rebuild_split(c, res) :
	      c->opts->keep_strings ? rebuild_base_kept(c, res) :
	      rebuild_base(c, res);
	if (!err)
		c->stats->types_out = nr_out;
	return err;
}

/* Steps 1-3: rank, refine, split VAR classes by identity, to the fixpoint. */
static int partition(struct canon *c)
{
	double t0 = bc_clock_sec(CLOCK_MONOTONIC), t1;
	int64_t splits = 0;
	int err;

	c->keyed = malloc((c->n ? c->n : 1) * sizeof(*c->keyed));
	if (!c->keyed)
		return -ENOMEM;
	if (rank_by_local_key(c))
		return -ENOMEM;
	t1 = bc_clock_sec(CLOCK_MONOTONIC);
	c->stats->rank_sec += t1 - t0;
	err = refine_to_fixpoint(c, true);
	while (!err && (splits = split_var_classes(c)) > 0)
		err = refine_to_fixpoint(c, false);
	c->stats->refine_sec += bc_clock_sec(CLOCK_MONOTONIC) - t1;
	free(c->keyed);
	c->keyed = NULL;
	return err ? err : splits < 0 ? (int)splits : 0;
}

/*
 * Forward declarations, resolved as the largest consistent set.
 *
 * A FWD 'struct b' (or an enum with no enumerators) stands for the
 * complete type of that name and family when there is exactly one: one
 * class of STRUCT named b at the fixpoint, counting the base's types too
 * for split BTF. The FWD is then dropped and every reference to it goes
 * to that type; with two or more different b's it stays a FWD.
 *
 * Which names are resolved is decided optimistically, as partition
 * refinement decides which types are equal: every name that has both
 * FWDs and complete types is first taken as resolved, its FWDs standing
 * for one of its complete types; the partition is computed; a name whose
 * complete types fell into two or more classes is given up (its FWDs
 * stay FWDs), and the partition is computed again, until every name
 * still taken has one class. Example, three units' types:
 *
 *	[1] struct a { [3] *p; }  [3] PTR -> [2]  [2] struct b { [4] *q; }  [4] PTR -> [1]
 *	[5] struct a { [6] *p; }  [6] PTR -> [7] FWD struct b
 *	[8] struct b { [9] *q; }  [9] PTR -> [10] FWD struct a
 *
 * Taking a and b as resolved, [7] stands for [2] and [10] for [1]; then
 * [1] = [5], [2] = [8] and both names have one class: two structs in
 * all. A rule that resolves a name only once its complete types are
 * already equal never starts here ([1] and [5] differ until b is
 * resolved, [2] and [8] until a is), yet libbpf's btf__dedup, which
 * compares a FWD with a struct of its name as equal while walking two
 * graphs side by side, merges them: this is what lets `encode` leave the
 * deduplication across chunks to canon.
 *
 * Why the result does not depend on which complete type a FWD stands
 * for while its name is still taken, nor on the order names are given
 * up: resolving more names only merges more (a partition stable with a
 * set of names resolved is stable with fewer, since the FWDs of a name
 * given up are types of their own), so the sets of names that are
 * consistent (each one class) are closed under union and there is a
 * largest, R. Refinement never separates types that are equal under R,
 * whatever the FWDs stand for, so a name found in several classes is not
 * in R; and the loop ends with a consistent set that holds R: R itself.
 * Each pass gives up at least one name, so there are at most as many
 * passes as names; on real kernels there is one (BENCH.md). The last
 * partition is a plain one with R's FWDs standing for their types, so
 * the order is the one a graph without those FWDs gets: canon(canon(x))
 * == canon(x).
 *
 * Cost: a sort of the named FWDs and complete types (O(m log m)), then
 * one partition per pass.
 */
enum fwd_family { FWD_STRUCT, FWD_UNION, FWD_ENUM, NOT_FWD };

/* Which declared-only family t is, if it is a declaration. */
static enum fwd_family fwd_family(const struct btf_type *t)
{
	switch (bc_type_kind(t)) {
	case BTF_KIND_FWD:
		return bc_info_kflag(t->info) ? FWD_UNION : FWD_STRUCT;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return bc_type_vlen(t) ? NOT_FWD : FWD_ENUM;
	default:
		return NOT_FWD;
	}
}

/* Which family t completes, if it is a named complete type. */
static enum fwd_family full_family(const struct btf_type *t)
{
	if (!t->name_off)
		return NOT_FWD;
	switch (bc_type_kind(t)) {
	case BTF_KIND_STRUCT:
		return FWD_STRUCT;
	case BTF_KIND_UNION:
		return FWD_UNION;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return bc_type_vlen(t) ? FWD_ENUM : NOT_FWD;
	default:
		return NOT_FWD;
	}
}

/* A named FWD or complete type, for grouping by family and name. */
struct named_type {
	enum fwd_family family;
	bool is_fwd;
	const char *name;
	uint32_t id;
};

/* Family, name, complete types before FWDs; ids only make the order total. */
static int cmp_named_type(const void *pa, const void *pb)
{
	const struct named_type *a = pa, *b = pb;
	int c;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->is_fwd != b->is_fwd)
		return a->is_fwd ? 1 : -1;
	return (a->id > b->id) - (a->id < b->id);
}

/* The names a FWD could resolve to: runs of one family and name. */
struct fwd_names {
	struct named_type *types;	/* sorted by cmp_named_type */
	uint32_t nr_types, cap;
	uint32_t *first;		/* [nr_names + 1] each name's first entry */
	uint8_t *taken;			/* [nr_names] still taken as resolved */
	uint32_t nr_names;
};

static void fwd_names_deinit(struct fwd_names *fn)
{
	free(fn->types);
	free(fn->first);
	free(fn->taken);
}

static int fwd_names_add(struct fwd_names *fn, enum fwd_family family,
			 bool is_fwd, const char *name, uint32_t id)
{
	if (fn->nr_types == fn->cap) {
		uint32_t cap = fn->cap ? fn->cap * 2 : 256;
		struct named_type *grown = realloc(fn->types, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		fn->types = grown;
		fn->cap = cap;
	}
	fn->types[fn->nr_types++] = (struct named_type){ family, is_fwd, name, id };
	return 0;
}

/*
 * Collects the named FWDs, and the complete types (the base's too) named
 * like one of them, sorts them and takes every name that has both as
 * resolved.
 */
static int fwd_names_collect(const struct canon *c, struct fwd_names *fn)
{
	const struct bc_btf *btf = c->btf, *base = btf->base;
	struct bc_strset fwd_names;	/* the FWDs' names, any family */
	uint32_t idx, i, j;
	int err = bc_strset_init_over(&fwd_names, 0);

	for (idx = 0; idx < c->n && !err; idx++) {
		const struct btf_type *t = bc_btf_local(btf, idx);

		if (is_omitted(c, idx) || !t->name_off || fwd_family(t) == NOT_FWD)
			continue;
		err = fwd_names_add(fn, fwd_family(t), true,
				    bc_btf_str(btf, t->name_off), c->start_id + idx);
		if (!err && bc_strset_add(&fwd_names, fn->types[fn->nr_types - 1].name) < 0)
			err = -ENOMEM;
	}
	for (idx = 0; base && fwd_names.nr_used && idx < base->nr_types && !err; idx++) {
		const struct btf_type *t = bc_btf_local(base, idx);

		if (full_family(t) != NOT_FWD &&
		    bc_strset_find(&fwd_names, bc_btf_str(base, t->name_off)) >= 0)
			err = fwd_names_add(fn, full_family(t), false,
					    bc_btf_str(base, t->name_off),
					    base->start_id + idx);
	}
	for (idx = 0; fwd_names.nr_used && idx < c->n && !err; idx++) {
		const struct btf_type *t = bc_btf_local(btf, idx);

		if (!is_omitted(c, idx) && full_family(t) != NOT_FWD &&
		    bc_strset_find(&fwd_names, bc_btf_str(btf, t->name_off)) >= 0)
			err = fwd_names_add(fn, full_family(t), false,
					    bc_btf_str(btf, t->name_off),
					    c->start_id + idx);
	}
	bc_strset_deinit(&fwd_names);
	if (err || !fn->nr_types)
		return err;
	qsort(fn->types, fn->nr_types, sizeof(*fn->types), cmp_named_type);
	fn->first = malloc((fn->nr_types + 1) * sizeof(*fn->first));
	fn->taken = malloc(fn->nr_types);
	if (!fn->first || !fn->taken)
		return -ENOMEM;
	for (i = 0; i < fn->nr_types; i = j) {
		const struct named_type *t = &fn->types[i];

		for (j = i + 1; j < fn->nr_types && fn->types[j].family == t->family &&
		     !strcmp(fn->types[j].name, t->name); j++)
			;
		fn->first[fn->nr_names] = i;
		/* complete types sort first: both kinds when the run starts
		 * with a complete type and ends with a FWD */
		fn->taken[fn->nr_names++] = !t->is_fwd && fn->types[j - 1].is_fwd;
	}
	fn->first[fn->nr_names] = fn->nr_types;
	return 0;
}

/*
 * Points the FWDs of every taken name at the name's first complete type
 * (c->alias) and makes c->refs the references with those replaced.
 * Returns how many FWDs stand for a type, or a negative errno.
 */
static int64_t alias_taken_fwds(struct canon *c, const struct fwd_names *fn)
{
	const struct bc_btf *btf = c->btf;
	uint32_t i, j, aliased = 0, *refs;

	memset(c->alias, 0, c->n * sizeof(*c->alias));
	for (i = 0; i < fn->nr_names; i++) {
		if (!fn->taken[i])
			continue;
		for (j = fn->first[i]; j < fn->first[i + 1]; j++)
			if (fn->types[j].is_fwd) {
				c->alias[fn->types[j].id - c->start_id] =
					fn->types[fn->first[i]].id;
				aliased++;
			}
	}
	if (c->refs != btf->refs)
		free((void *)c->refs);
	c->refs = btf->refs;
	c->nr_aliased = aliased;
	if (!aliased)
		return 0;
	refs = malloc((btf->ref_start[c->n] ? btf->ref_start[c->n] : 1) *
		      sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	for (i = 0; i < btf->ref_start[c->n]; i++) {
		uint32_t id = btf->refs[i];

		refs[i] = id >= c->start_id && c->alias[id - c->start_id] ?
			  c->alias[id - c->start_id] : id;
	}
	c->refs = refs;
	return aliased;
}

/* Gives up the taken names whose complete types are not one class. */
static uint32_t give_up_split_names(const struct canon *c, struct fwd_names *fn)
{
	uint32_t i, j, given_up = 0;

	for (i = 0; i < fn->nr_names; i++) {
		uint32_t first = fn->first[i], rank;

		if (!fn->taken[i])
			continue;
		rank = id_rank(c, c->rank, fn->types[first].id);
		for (j = first + 1; !fn->types[j].is_fwd; j++)
			if (id_rank(c, c->rank, fn->types[j].id) != rank)
				break;
		if (!fn->types[j].is_fwd) {
			fn->taken[i] = 0;
			given_up++;
		}
	}
	return given_up;
}

/*
 * Steps 1-3 with FWDs resolved (see above): partitions until no taken
 * name is given up. Returns 0 or a negative errno.
 */
static int partition_resolving_fwds(struct canon *c)
{
	struct fwd_names fn = { 0 };
	double t0 = bc_clock_sec(CLOCK_MONOTONIC);
	int64_t aliased = 0;
	int err = fwd_names_collect(c, &fn);

	for (;;) {
		if (!err)
			aliased = alias_taken_fwds(c, &fn);
		c->stats->fwd_sec += bc_clock_sec(CLOCK_MONOTONIC) - t0;
		if (err || aliased < 0)
			break;
		err = partition(c);
		if (err || !aliased)
			break;
		c->stats->fwd_rounds++;
		t0 = bc_clock_sec(CLOCK_MONOTONIC);
		if (!give_up_split_names(c, &fn)) {
			c->stats->fwds_resolved = aliased;
			c->stats->fwd_sec += bc_clock_sec(CLOCK_MONOTONIC) - t0;
			break;
		}
	}
	fwd_names_deinit(&fn);
	return err ? err : aliased < 0 ? (int)aliased : 0;
}

/*
 * Omitted types are invisible to the order, so a kept type must not refer
 * to one: its rank would be read. Returns 0, or -EINVAL after a message.
 */
static int check_omitted(const struct canon *c, const struct bc_log *log)
{
	const struct bc_btf *btf = c->btf;
	uint32_t idx, i;

	if (!c->opts->omit)
		return 0;
	for (idx = 0; idx < c->n; idx++) {
		if (is_omitted(c, idx))
			continue;
		for (i = btf->ref_start[idx]; i < btf->ref_start[idx + 1]; i++) {
			uint32_t id = btf->refs[i];

			if (id >= c->start_id && is_omitted(c, id - c->start_id))
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] refers to [%u], which is left out",
					btf->path, c->start_id + idx, id);
		}
	}
	return 0;
}

static void canon_deinit(struct canon *c)
{
	free(c->keyed);
	free(c->alias);
	free(c->local_order);
	free(c->local_class);
	if (c->refs != c->btf->refs)
		free((void *)c->refs);
	free(c->order);
	free(c->rank);
	free(c->next_rank);
	free(c->class_end);
	free(c->moved);
	free(c->next_moved);
	free(c->work);
	free(c->next_work);
	free(c->scratch);
}

int canon_run_raw(const struct bc_btf *in, const struct canon_opts *opts,
		  void **raw, size_t *size, const struct bc_log *log)
{
	struct canon_result res = { 0 };
	int err = canon_run(in, opts, &res, log);

	if (err)
		return err;
	*raw = res.raw;
	*size = res.raw_size;
	res.raw = NULL;
	canon_result_deinit(&res);
	return 0;
}

void canon_result_deinit(struct canon_result *res)
{
	if (!res)
		return;
	free(res->raw);
	free(res->id_map);
	memset(res, 0, sizeof(*res));
}

int canon_run(const struct bc_btf *in, const struct canon_opts *opts,
	      struct canon_result *res, const struct bc_log *log)
{
	struct canon c = {
		.btf = in,
		.opts = opts,
		.n = in->nr_types,
		.start_id = in->start_id,
		.refs = in->refs,
		.stats = &res->stats,
	};
	size_t n1 = in->nr_types ? in->nr_types : 1;
	double t0, cpu0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	int err = 0;

	memset(res, 0, sizeof(*res));
	/* the ids inside a record of unknown kind would go stale */
	err = bc_btf_refuse_unknown(in, false, "sorting", log);
	if (err)
		return err;
	if (in->base && in->base->base)
		return bc_log_error(log, -EOPNOTSUPP,
			"%s: split BTF over a split base is not supported",
			in->path);
	c.order = malloc(n1 * sizeof(uint32_t));
	if (opts->resolve_fwds) {	/* only FWD resolution partitions again */
		c.local_order = malloc(n1 * sizeof(uint32_t));
		c.local_class = malloc(n1 * sizeof(uint32_t));
		if (!c.local_order || !c.local_class) {
			err = -ENOMEM;
			goto out;
		}
	}
	c.rank = malloc(n1 * sizeof(uint32_t));
	c.next_rank = malloc(n1 * sizeof(uint32_t));
	c.class_end = malloc(n1 * sizeof(uint32_t));
	c.moved = malloc(n1);
	c.next_moved = malloc(n1);
	c.work = malloc(n1 * sizeof(uint32_t));
	c.next_work = malloc(n1 * sizeof(uint32_t));
	c.scratch = malloc(n1 * sizeof(uint32_t));
	if (!c.order || !c.rank || !c.next_rank || !c.class_end || !c.moved ||
	    !c.next_moved || !c.work || !c.next_work || !c.scratch) {
		err = -ENOMEM;
		goto out;
	}
	err = check_omitted(&c, log);
	if (err)
		goto out;
	if (opts->resolve_fwds) {
		c.alias = calloc(n1, sizeof(*c.alias));
		err = c.alias ? partition_resolving_fwds(&c) : -ENOMEM;
	} else {
		err = partition(&c);
	}
	res->stats.types_in = c.n_kept;
	if (err)
		goto out;
	t0 = bc_clock_sec(CLOCK_MONOTONIC);

	err = rebuild(&c, res);
	if (!err && opts->layout)	/* the 2026 header, layout section */
		err = bc_btf_blob_add_layout(&res->raw, &res->raw_size,
					     opts->layout, opts->nr_layout);
	res->stats.rebuild_sec = bc_clock_sec(CLOCK_MONOTONIC) - t0;
	res->stats.merged = res->stats.types_in - res->stats.types_out;
	res->stats.cpu_sec = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	res->stats.critical_sec += res->stats.cpu_sec - c.par_caller_sec;
out:
	canon_deinit(&c);
	if (err) {
		canon_result_deinit(res);
		if (err == -ENOMEM)
			bc_log_error(log, err, "%s: out of memory", in->path);
	}
	return err;
}
