// SPDX-License-Identifier: GPL-2.0-only
/*
 * Merging the architectures' texts (the last step of header.c's list).
 *
 * Problem: one header for x86 and arm64 without writing every type twice.
 * The texts are cut into units (top-level declarations), aligned on the
 * units both have once (anchors), the gaps between anchors by a longest
 * common subsequence when small; what differs is wrapped in
 * #if defined(__TARGET_ARCH_...). Invariant: removing the directives and
 * the other side gives each architecture's text back, but for blank
 * lines. Cost: linear in the units but for the gaps' tables, bounded by
 * GAP_DP_MAX cells each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hopts.h"
#include "hunits.h"
#include "smap.h"


/*
 * A unit is one top-level declaration as dump_c writes it (a definition
 * with its blank line, one forward declaration, one kfunc prototype, one
 * preprocessor line): lines up to one that ends at brace depth 0 with
 * ';', or a preprocessor line, comment or blank line, with the blank
 * lines after it. Units are compared without those blank lines (a
 * declaration is the same whether a blank line follows it or not), so
 * blank lines never decide where a run that differs begins or ends.
 */
struct unit {
	const char *text;
	size_t len;		/* with the blank lines after it */
	size_t core;		/* without them: what alignment compares */
	uint64_t hash;		/* of the core */
};

struct units {
	struct unit *v;
	uint32_t nr;
};

static int split_units(const char *text, size_t len, struct units *out)
{
	size_t i = 0, start = 0, cap = 1024, core;
	int depth = 0;

	out->nr = 0;
	out->v = malloc(cap * sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len, j, last = end;
		bool ends;

		for (j = i; j < end; j++)
			depth += text[j] == '{' ? 1 : text[j] == '}' ? -1 : 0;
		while (last > i && (text[last - 1] == ' ' || text[last - 1] == '\t'))
			last--;
		ends = depth <= 0 &&
		       (last == i || text[i] == '#' || text[last - 1] == ';' ||
			(last - i >= 2 && !strncmp(text + i, "/*", 2) &&
			 !strncmp(text + last - 2, "*/", 2)));
		i = nl ? end + 1 : len;
		if (!ends)
			continue;
		depth = 0;
		core = i - start;
		while (i < len && text[i] == '\n')
			i++;
		if (out->nr == cap) {
			struct unit *grown = realloc(out->v, 2 * cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			out->v = grown;
			cap *= 2;
		}
		out->v[out->nr++] = (struct unit){ text + start, i - start, core,
						   hdr_fnv64(text + start, core) };
		start = i;
	}
	if (start < len) {
		if (out->nr == cap) {
			struct unit *grown = realloc(out->v, (cap + 1) * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			out->v = grown;
		}
		out->v[out->nr++] = (struct unit){ text + start, len - start,
						   len - start,
						   hdr_fnv64(text + start, len - start) };
	}
	return 0;
}

static bool unit_eq(const struct unit *a, const struct unit *b)
{
	return a->hash == b->hash && a->core == b->core &&
	       !memcmp(a->text, b->text, a->core);
}

/* An alignment step: a unit of both texts, of the first only, of the second only. */
enum { STEP_BOTH, STEP_A, STEP_B };

struct steps {
	uint8_t *v;
	uint32_t nr, cap;
};

static int step_push(struct steps *s, uint8_t what)
{
	if (s->nr == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 4096;
		uint8_t *grown = realloc(s->v, cap);

		if (!grown)
			return -ENOMEM;
		s->v = grown;
		s->cap = cap;
	}
	s->v[s->nr++] = what;
	return 0;
}

#define GAP_DP_MAX (4u << 20)	/* cells of one gap's LCS table */

/*
 * Aligns a[0..na) with b[0..nb), a gap between two anchors: the common
 * prefix and suffix, then the longest common subsequence of the middle
 * when it is small enough (else the middle differs whole).
 */
static int align_gap(const struct unit *a, uint32_t na, const struct unit *b,
		     uint32_t nb, struct steps *s)
{
	uint32_t pre = 0, suf = 0, i, j, n, m;
	uint32_t *dp = NULL;
	int err = 0;

	while (pre < na && pre < nb && unit_eq(&a[pre], &b[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre &&
	       unit_eq(&a[na - 1 - suf], &b[nb - 1 - suf]))
		suf++;
	for (i = 0; !err && i < pre; i++)
		err = step_push(s, STEP_BOTH);
	n = na - pre - suf;
	m = nb - pre - suf;
	a += pre;
	b += pre;
	if (n && m && (uint64_t)(n + 1) * (m + 1) <= GAP_DP_MAX) {
		/* dp[i][j]: LCS of a[i..n) and b[j..m) */
		dp = calloc((size_t)(n + 1) * (m + 1), sizeof(*dp));
		if (!dp)
			return -ENOMEM;
		for (i = n; i-- > 0;)
			for (j = m; j-- > 0;)
				dp[i * (m + 1) + j] = unit_eq(&a[i], &b[j]) ?
					dp[(i + 1) * (m + 1) + j + 1] + 1 :
					dp[(i + 1) * (m + 1) + j] >= dp[i * (m + 1) + j + 1] ?
					dp[(i + 1) * (m + 1) + j] : dp[i * (m + 1) + j + 1];
		i = j = 0;
		while (!err && (i < n || j < m)) {
			if (i < n && j < m && unit_eq(&a[i], &b[j])) {
				err = step_push(s, STEP_BOTH);
				i++, j++;
			} else if (j == m || (i < n && dp[(i + 1) * (m + 1) + j] >=
						     dp[i * (m + 1) + j + 1])) {
				err = step_push(s, STEP_A);
				i++;
			} else {
				err = step_push(s, STEP_B);
				j++;
			}
		}
		free(dp);
	} else {
		for (i = 0; !err && i < n; i++)
			err = step_push(s, STEP_A);
		for (j = 0; !err && j < m; j++)
			err = step_push(s, STEP_B);
	}
	for (i = 0; !err && i < suf; i++)
		err = step_push(s, STEP_BOTH);
	return err;
}

struct anchor {
	uint64_t hash;
	uint32_t a, b;		/* positions; UINT32_MAX: not unique */
	uint32_t na, nb;	/* occurrences */
};

static int cmp_anchor_hash(const void *pa, const void *pb)
{
	const struct anchor *x = pa, *y = pb;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static int cmp_anchor_a(const void *pa, const void *pb)
{
	const struct anchor *x = pa, *y = pb;

	return x->a < y->a ? -1 : x->a > y->a;
}

/*
 * Aligns two unit sequences as patience diff does: units that occur once
 * in each are anchors; the longest run of anchors in order in both (a
 * longest increasing subsequence, n log n) is kept; the gaps between
 * them are aligned by align_gap(). Deterministic; near the minimal
 * alignment for texts whose units are mostly unique, as headers are.
 */
static int align_units(const struct units *a, const struct units *b,
		       struct steps *s)
{
	uint32_t n = a->nr + b->nr, i, nr = 0, k, len = 0;
	struct anchor *all = calloc(n + 1, sizeof(*all)), *uniq;
	uint32_t *tails = NULL, *prev = NULL, *chain = NULL, pa = 0, pb = 0;
	int err = 0;

	if (!all)
		return -ENOMEM;
	for (i = 0; i < a->nr; i++)
		all[nr++] = (struct anchor){ a->v[i].hash, i, UINT32_MAX, 1, 0 };
	for (i = 0; i < b->nr; i++)
		all[nr++] = (struct anchor){ b->v[i].hash, UINT32_MAX, i, 0, 1 };
	qsort(all, nr, sizeof(*all), cmp_anchor_hash);
	uniq = all;
	for (i = 0, k = 0; i < nr;) {
		uint32_t j = i, ca = 0, cb = 0, ia = 0, ib = 0;

		for (; j < nr && all[j].hash == all[i].hash; j++) {
			if (all[j].na)
				ca++, ia = all[j].a;
			else
				cb++, ib = all[j].b;
		}
		if (ca == 1 && cb == 1 && unit_eq(&a->v[ia], &b->v[ib]))
			uniq[k++] = (struct anchor){ all[i].hash, ia, ib, 1, 1 };
		i = j;
	}
	nr = k;
	qsort(uniq, nr, sizeof(*uniq), cmp_anchor_a);
	tails = calloc(nr + 1, sizeof(*tails));
	prev = calloc(nr + 1, sizeof(*prev));
	chain = calloc(nr + 1, sizeof(*chain));
	if (!tails || !prev || !chain) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		uint32_t lo = 0, hi = len;

		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (uniq[tails[mid]].b < uniq[i].b)
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[i] = lo ? tails[lo - 1] : UINT32_MAX;
		tails[lo] = i;
		if (lo == len)
			len++;
	}
	for (k = len, i = len ? tails[len - 1] : UINT32_MAX; k-- > 0; i = prev[i])
		chain[k] = i;
	for (k = 0; !err && k <= len; k++) {
		uint32_t ea = k < len ? uniq[chain[k]].a : a->nr;
		uint32_t eb = k < len ? uniq[chain[k]].b : b->nr;

		err = align_gap(a->v + pa, ea - pa, b->v + pb, eb - pb, s);
		if (!err && k < len)
			err = step_push(s, STEP_BOTH);
		pa = ea + 1;
		pb = eb + 1;
	}
out:
	free(all);
	free(tails);
	free(prev);
	free(chain);
	return err;
}

static bool ends_blank(const struct unit *u)
{
	return u->len > u->core;
}

/* Appends units a[from..to) (or b's) as one side of a conditional. */
static void put_units(const struct unit *v, uint32_t from, uint32_t to,
		      struct bc_text *out, bool *blank)
{
	uint32_t i;

	for (i = from; i < to; i++) {
		bc_text_add(out, v[i].text, v[i].len);
		*blank = ends_blank(&v[i]);
	}
}

/*
 * The two architectures' texts as one: units of both once, runs that
 * differ as #if defined(__TARGET_ARCH_x86) / #elif / #endif. Removing the
 * directives and the other side leaves each text, but for blank lines.
 */
int hdr_merge_texts(const struct bc_text *x86, const struct bc_text *arm,
		    struct bc_text *out)
{
	struct units a = { 0 }, b = { 0 };
	struct steps s = { 0 };
	uint32_t i = 0, ia = 0, ib = 0;
	int err;

	err = split_units(bc_text_str(x86), x86->len, &a);
	if (!err)
		err = split_units(bc_text_str(arm), arm->len, &b);
	if (!err)
		err = align_units(&a, &b, &s);
	while (!err && i < s.nr) {
		uint32_t sa = ia, sb = ib;
		bool blank = false;

		if (s.v[i] == STEP_BOTH) {
			/* the one with more blank lines after it */
			const struct unit *u = a.v[ia].len >= b.v[ib].len ?
					       &a.v[ia] : &b.v[ib];

			bc_text_add(out, u->text, u->len);
			ia++, ib++, i++;
			continue;
		}
		for (; i < s.nr && s.v[i] != STEP_BOTH; i++) {
			if (s.v[i] == STEP_A)
				ia++;
			else
				ib++;
		}
		if (ia > sa) {
			bc_text_printf(out, "#if defined(__TARGET_ARCH_%s)\n",
				       bc_header_arch_name(BC_HEADER_X86));
			put_units(a.v, sa, ia, out, &blank);
		}
		if (ib > sb) {
			bc_text_printf(out, "#%s defined(__TARGET_ARCH_%s)\n",
				       ia > sa ? "elif" : "if",
				       bc_header_arch_name(BC_HEADER_ARM64));
			put_units(b.v, sb, ib, out, &blank);
		}
		bc_text_puts(out, blank ? "#endif\n\n" : "#endif\n");
	}
	free(a.v);
	free(b.v);
	free(s.v);
	return err ? err : out->err;
}
