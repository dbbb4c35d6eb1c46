// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of an archive's kernel as a libbpf BTF (kpart.h).
 *
 * Problem: hsynth.c compares each older kernel with the synthetic BTF,
 * but acts only on the few hundred types whose content it has not seen
 * in a newer kernel (and on the kfunc tags); rebuilding and parsing the
 * kernel's whole BTF for them was most of its cost (ar_build_raw, page
 * faults, btf__new: 118 kernels x 110k types).
 *
 * Pass: the seeds and what they reach (every reference slot of a record,
 * as libbpf's BTF has them), each record decoded once through the view;
 * a named struct, union or typedef that is no seed and that stop() says
 * of is written without references, and not walked past. Then the types
 * are sorted by kernel id and written as raw BTF (references renumbered,
 * names turned from the archive's string numbers into a string section),
 * which btf__new() reads.
 *
 * Invariant: each type keeps its kernel's record (but for the stopped
 * ones' references) and the kernel's relative id order, so a pass that
 * walks ids in order, and copies or compares types by content, does on
 * the part what it does on the whole kernel for those types.
 * Cost: one view record per type reached, a sort of their ids; an array
 * of the kernel's size (ids -> part ids), zeroed pages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "../archive/archive.h"
#include "../canon/btf_kinds.h"
#include "../canon/text.h"
#include "kpart.h"

struct part_ent {
	uint32_t id;		/* the kernel's */
	uint32_t off;		/* its words in words[] */
	uint32_t nr;		/* how many */
	bool seed, stub;
};

struct part {
	const struct bc_archive_view *view;
	uint32_t *pos;			/* kernel id -> index + 1 into ents */
	struct part_ent *ents;
	uint32_t nr_ents, cap_ents;
	uint32_t *words;
	uint32_t nr_words, cap_words;
	uint32_t *stack;
	uint32_t nr_stack, cap_stack;
};

static int grow(void **v, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t n = *cap ? *cap : 256;
	void *g;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	g = realloc(*v, (size_t)n * size);
	if (!g)
		return -ENOMEM;
	*v = g;
	*cap = n;
	return 0;
}

/* Reaches kernel type id: decoded and pushed once. */
static int reach(struct part *p, uint32_t id, bool seed)
{
	struct part_ent *e;
	int n;

	if (!id)
		return 0;
	if (id > bc_archive_view_nr_types(p->view))
		return -EINVAL;
	if (p->pos[id]) {
		p->ents[p->pos[id] - 1].seed |= seed;
		return 0;
	}
	if (grow((void **)&p->ents, &p->cap_ents, p->nr_ents + 1, sizeof(*p->ents)) ||
	    grow((void **)&p->stack, &p->cap_stack, p->nr_stack + 1, sizeof(*p->stack)))
		return -ENOMEM;
	for (;;) {
		n = bc_archive_view_type(p->view, id, p->words + p->nr_words,
					 p->cap_words - p->nr_words);
		if (n < 0)
			return n;
		if ((uint32_t)n <= p->cap_words - p->nr_words)
			break;
		if (grow((void **)&p->words, &p->cap_words, p->nr_words + n,
			 sizeof(*p->words)))
			return -ENOMEM;
	}
	if (n < 3)
		return -EINVAL;
	e = &p->ents[p->nr_ents++];
	*e = (struct part_ent){ .id = id, .off = p->nr_words, .nr = n, .seed = seed };
	p->nr_words += n;
	p->pos[id] = p->nr_ents;
	p->stack[p->nr_stack++] = p->nr_ents - 1;
	return 0;
}

static int cmp_ent(const void *pa, const void *pb)
{
	const struct part_ent *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* The part as raw BTF: its type section into types, its strings into strs. */
static int write_raw(struct part *p, struct bc_text *types, struct bc_text *strs)
{
	uint32_t i, k;

	bc_text_add(strs, "", 1);
	for (i = 0; i < p->nr_ents; i++)
		p->pos[p->ents[i].id] = i + 1;
	for (i = 0; i < p->nr_ents; i++) {
		const struct part_ent *e = &p->ents[i];
		uint32_t *w = p->words + e->off, nr = e->nr, *slot;

		if (e->stub) {
			struct btf_type *t = (struct btf_type *)w;

			if (btf_is_typedef(t)) {
				t->type = 0;
			} else {	/* a struct or union: no members */
				t->info &= ~0xffffu;
				nr = 3;
			}
		}
		for (k = 0; (slot = bc_type_word_of_class(w, BC_WORD_REF, k)) &&
			    slot < w + nr; k++)
			*slot = *slot ? p->pos[*slot] : 0;
		for (k = 0; (slot = bc_type_word_of_class(w, BC_WORD_NAME, k)) &&
			    slot < w + nr; k++) {
			const char *s = bc_archive_view_str(p->view, *slot);

			if (!*s) {
				*slot = 0;
				continue;
			}
			*slot = strs->len;
			bc_text_add(strs, s, strlen(s) + 1);
		}
		bc_text_add(types, (const char *)w, nr * sizeof(*w));
	}
	return types->err ? types->err : strs->err;
}

int bc_kpart_btf(const struct bc_archive_view *view, const uint32_t *seeds,
		 uint32_t nr, bc_kpart_stop_fn stop, void *ctx,
		 const char *label, struct btf **out, uint32_t **orig,
		 const struct bc_log *log)
{
	struct part p = { .view = view };
	struct btf_header hdr = { .magic = BTF_MAGIC, .version = BTF_VERSION,
				  .hdr_len = sizeof(hdr) };
	struct bc_text types, strs;
	char *raw = NULL;
	uint32_t i, k;
	int err = 0;

	*out = NULL;
	*orig = NULL;
	bc_text_init(&types);
	bc_text_init(&strs);
	p.pos = calloc((size_t)bc_archive_view_nr_types(view) + 1, sizeof(*p.pos));
	if (!p.pos)
		err = -ENOMEM;
	for (i = 0; !err && i < nr; i++)
		err = reach(&p, seeds[i], true);
	while (!err && p.nr_stack) {
		uint32_t at = p.stack[--p.nr_stack];	/* reach() moves ents, words */
		const struct btf_type *t = (const void *)(p.words + p.ents[at].off);
		const char *name = bc_archive_view_str(view, t->name_off);
		uint32_t *slot;

		if (!p.ents[at].seed && *name && stop &&
		    (btf_is_composite(t) || btf_is_typedef(t)) &&
		    stop(ctx, t, name)) {
			p.ents[at].stub = true;
			continue;
		}
		for (k = 0; !err; k++) {
			uint32_t *w = p.words + p.ents[at].off;

			slot = bc_type_word_of_class(w, BC_WORD_REF, k);
			if (!slot || slot >= w + p.ents[at].nr)
				break;
			err = reach(&p, *slot, false);
		}
	}
	if (!err) {
		qsort(p.ents, p.nr_ents, sizeof(*p.ents), cmp_ent);
		err = write_raw(&p, &types, &strs);
	}
	if (!err) {
		hdr.type_len = types.len;
		hdr.str_off = types.len;
		hdr.str_len = strs.len;
		raw = malloc(sizeof(hdr) + types.len + strs.len);
		*orig = malloc(((size_t)p.nr_ents + 1) * sizeof(**orig));
		if (!raw || !*orig)
			err = -ENOMEM;
	}
	if (!err) {
		memcpy(raw, &hdr, sizeof(hdr));
		memcpy(raw + sizeof(hdr), bc_text_str(&types), types.len);
		memcpy(raw + sizeof(hdr) + types.len, bc_text_str(&strs), strs.len);
		*out = btf__new(raw, sizeof(hdr) + types.len + strs.len);
		if (!*out)
			err = -errno ? -errno : -EINVAL;
		(*orig)[0] = 0;
		for (i = 0; i < p.nr_ents; i++)
			(*orig)[i + 1] = p.ents[i].id;
	}
	free(raw);
	free(p.pos);
	free(p.ents);
	free(p.words);
	free(p.stack);
	bc_text_deinit(&types);
	bc_text_deinit(&strs);
	if (err) {
		free(*orig);
		*orig = NULL;
		if (err == -ENOMEM)
			return bc_log_error(log, err, "out of memory");
		return bc_log_error(log, err, "%s: its types through the archive's view: %s",
				    label, strerror(-err));
	}
	return 0;
}
