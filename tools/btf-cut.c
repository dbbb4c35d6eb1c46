// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf-cut KERNEL.btf OUT.btf NAME...: a small BTF cut out of a kernel's,
 * for test data (tests/data/header/, tests/data/README.md).
 *
 * Each NAME is a struct, union, enum, typedef or kfunc (FUNC with a
 * "bpf_kfunc" DECL_TAG, copied with its tags) of the kernel. They are
 * copied with what they hold by value; a named struct or union reached
 * only through a pointer, and not itself a NAME, becomes an empty struct
 * or union of its name (not a FWD: libbpf finds a kfunc whose prototype
 * points to a FWD incompatible with the kernel's, which points to the
 * struct). Not installed; `make build/btf-cut`.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

struct cut {
	const struct btf *in;
	struct btf *out;
	int *full;		/* by input id: output id of the full copy */
	int *fwd;		/* by input id: output id of its empty stand-in */
	char **names;
	int nr_names;
};

static bool is_root(const struct cut *c, const char *name)
{
	int i;

	for (i = 0; i < c->nr_names; i++)
		if (!strcmp(c->names[i], name))
			return true;
	return false;
}

static uint32_t *slot(struct btf_type *t, uint32_t k)
{
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_VAR: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		return k ? NULL : &t->type;
	case BTF_KIND_ARRAY:
		return k == 0 ? &btf_array(t)->type :
		       k == 1 ? &btf_array(t)->index_type : NULL;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return k < btf_vlen(t) ? &btf_members(t)[k].type : NULL;
	case BTF_KIND_FUNC_PROTO:
		if (!k)
			return &t->type;
		return k - 1 < btf_vlen(t) ? &btf_params(t)[k - 1].type : NULL;
	default:
		return NULL;
	}
}

static int copy(struct cut *c, uint32_t id, bool by_ptr)
{
	const struct btf_type *t = btf__type_by_id(c->in, id);
	const char *name;
	uint32_t k;
	int nid;

	if (!id)
		return 0;
	name = btf__name_by_offset(c->in, t->name_off);
	if (by_ptr && (btf_is_struct(t) || btf_is_union(t)) && *name &&
	    !is_root(c, name) && !c->full[id]) {
		if (!c->fwd[id])
			c->fwd[id] = btf_is_union(t) ? btf__add_union(c->out, name, 0) :
						       btf__add_struct(c->out, name, 0);
		return c->fwd[id];
	}
	if (c->full[id])
		return c->full[id];
	nid = btf__add_type(c->out, c->in, t);
	if (nid < 0)
		return nid;
	c->full[id] = nid;
	for (k = 0;; k++) {
		struct btf_type *nt = (struct btf_type *)btf__type_by_id(c->out, nid);
		uint32_t *s = slot(nt, k);
		int ref;

		if (!s)
			break;
		ref = copy(c, *s, by_ptr || btf_is_ptr(nt) || btf_is_func_proto(nt));
		if (ref < 0)
			return ref;
		nt = (struct btf_type *)btf__type_by_id(c->out, nid);
		*slot(nt, k) = ref;
	}
	return nid;
}

int main(int argc, char **argv)
{
	struct cut c = { 0 };
	uint32_t id, n;
	const void *raw;
	uint32_t size;
	FILE *f;
	int i;

	if (argc < 4) {
		fprintf(stderr, "usage: btf-cut KERNEL.btf OUT.btf NAME...\n");
		return 2;
	}
	c.in = btf__parse(argv[1], NULL);
	if (!c.in) {
		fprintf(stderr, "btf-cut: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	n = btf__type_cnt(c.in);
	c.out = btf__new_empty();
	c.full = calloc(n, sizeof(*c.full));
	c.fwd = calloc(n, sizeof(*c.fwd));
	c.names = argv + 3;
	c.nr_names = argc - 3;
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(c.in, id);
		const char *name = btf__name_by_offset(c.in, t->name_off);

		if (!*name || !is_root(&c, name) || btf_is_fwd(t) ||
		    btf_is_decl_tag(t) || btf_is_var(t))
			continue;
		if (btf_is_func(t)) {
			uint32_t j;

			/* kfuncs only, with their tags */
			for (j = 1; j < n; j++) {
				const struct btf_type *tag = btf__type_by_id(c.in, j);

				if (!btf_is_decl_tag(tag) || tag->type != id ||
				    btf_decl_tag(tag)->component_idx != -1)
					continue;
				if (copy(&c, id, false) < 0 ||
				    btf__add_decl_tag(c.out, btf__name_by_offset(c.in, tag->name_off),
						      c.full[id], -1) < 0)
					return 2;
			}
			continue;
		}
		if (copy(&c, id, false) < 0) {
			fprintf(stderr, "btf-cut: cannot copy %s\n", name);
			return 2;
		}
	}
	for (i = 0; i < c.nr_names; i++) {
		bool found = false;

		for (id = 1; id < n && !found; id++)
			found = c.full[id] && !strcmp(c.names[i],
				btf__name_by_offset(c.in, btf__type_by_id(c.in, id)->name_off));
		if (!found)
			fprintf(stderr, "btf-cut: %s: no %s (left out)\n", argv[1], c.names[i]);
	}
	raw = btf__raw_data(c.out, &size);
	f = fopen(argv[2], "w");
	if (!f || fwrite(raw, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "btf-cut: cannot write %s\n", argv[2]);
		return 2;
	}
	return 0;
}
