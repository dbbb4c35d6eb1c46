// SPDX-License-Identifier: GPL-2.0-only
/*
 * `btfcanon header`: one vmlinux.h for every kernel and architecture of a
 * set (DESIGN.md, "The header of many kernels").
 *
 * Problem. A CO-RE program compiles against one header but runs on many
 * kernels: it needs the newest layout (sizeof stays true on the newest
 * kernel, new members are there), and what older kernels name differently
 * as CO-RE flavors that bpf_core_field_exists() can test. One header per
 * architecture doubles what a project keeps in git.
 *
 * The passes, per architecture:
 *
 *  1. order: the kernels of the architecture from the newest (greatest in
 *     the archive's version order; among flavors of that release the
 *     generic one, then by flavor name) to the oldest;
 *  2. synthesis: a new BTF starts as the newest kernel's types, ids and
 *     all. Each older kernel, newest first, is compared with it by name:
 *     a named struct, union, enum or typedef the synthetic BTF lacks is
 *     copied whole (so it comes from the newest kernel that has it); a
 *     member (anonymous members looked through) that the synthetic type
 *     lacks or declares differently (C spelling by names, cdecl.h), and
 *     an enumerator it lacks, is recorded as a variant. Types a copy
 *     needs are mapped to the synthetic BTF's by (kind, name), copied when
 *     missing. kfuncs of every kernel are counted and the missing ones
 *     copied;
 *  3. flavors: each variant becomes `struct NAME___TAG { DECL; }` or
 *     `enum NAME___TAG { ENUMERATOR___NAME = VALUE }`, named by
 *     name_variants() (its content; see there for what can change);
 *  4. the synthetic BTF (or its slim cut, --for) is written by dump_c
 *     with the kfuncs every kernel of the architecture has not __weak.
 *
 * The architectures are written on two threads, then their texts are
 * merged unit by unit (merge_texts()).
 *
 * Invariant: the output is a function of the set of (name, BTF): the
 * kernels are sorted before anything is read, ties broken by name.
 * Cost: each kernel is read once (twice for one whose name does not tell
 * its architecture); an older kernel of an archive only in part, through
 * a view (merge_older_view()); a kernel's comparison is one pass over its
 * named types, comparing only those whose signature is new (one C
 * spelling per member) with the synthetic type's spellings, kept once.
 * 118 Debian kernels from an archive: BENCH.md, header.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "../archive/archive.h"
#include "../archive/input.h"
#include "../archive/kernel_set.h"
#include "../canon/btf_kinds.h"
#include "cdecl.h"
#include "dump.h"
#include "header.h"
#include "kpart.h"

static const char *const arch_names[BC_HEADER_NR_ARCHS] = {
	[BC_HEADER_X86] = "x86",
	[BC_HEADER_ARM64] = "arm64",
};

const char *bc_header_arch_name(enum bc_header_arch arch)
{
	return arch < BC_HEADER_NR_ARCHS ? arch_names[arch] : "?";
}

/*
 * ---- a string -> u32 map (open addressing, keys owned) ----
 *
 * Keys are copied into chunks of the map's own (one free per chunk, not
 * per key: the maps hold 300k keys per architecture), and each slot keeps
 * its key's hash, so that a probe compares strings only when the hashes
 * agree. Slots are those of the plain table (the same hash, probing and
 * growth), so walking keys[] gives the same order as before.
 */

#define SMAP_CHUNK 65536

struct smap {
	char **keys;
	uint32_t *vals;
	uint32_t *hashes;
	uint32_t cap, nr;
	char **chunks;			/* the keys' storage */
	uint32_t nr_chunks;
	size_t used;			/* in the last chunk */
};

static uint64_t fnv64(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static void smap_free(struct smap *m)
{
	uint32_t i;

	for (i = 0; i < m->nr_chunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	free(m->keys);
	free(m->vals);
	free(m->hashes);
	memset(m, 0, sizeof(*m));
}

/* The slot of key (hash h): its own, or the empty one where it goes. */
static uint32_t smap_slot(const struct smap *m, const char *key, uint64_t h)
{
	uint32_t i = h & (m->cap - 1);

	while (m->keys[i] && (m->hashes[i] != (uint32_t)h ||
			      strcmp(m->keys[i], key)))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static bool smap_get(const struct smap *m, const char *key, uint32_t *val)
{
	uint32_t i;

	if (!m->cap)
		return false;
	i = smap_slot(m, key, fnv64(key, strlen(key)));
	if (!m->keys[i])
		return false;
	*val = m->vals[i];
	return true;
}

static int smap_grow(struct smap *m)
{
	struct smap n = { .cap = m->cap ? m->cap * 2 : 1024 };
	uint32_t i;

	if (m->cap >= 1u << 31)
		return -ENOMEM;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	n.hashes = calloc(n.cap, sizeof(*n.hashes));
	if (!n.keys || !n.vals || !n.hashes) {
		free(n.keys);
		free(n.vals);
		free(n.hashes);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		uint32_t j;

		if (!m->keys[i])
			continue;
		/* a slot is the hash's low bits: the kept 32 are enough */
		j = m->hashes[i] & (n.cap - 1);
		while (n.keys[j])
			j = (j + 1) & (n.cap - 1);
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
		n.hashes[j] = m->hashes[i];
	}
	free(m->keys);
	free(m->vals);
	free(m->hashes);
	m->keys = n.keys;
	m->vals = n.vals;
	m->hashes = n.hashes;
	m->cap = n.cap;
	return 0;
}

/* A copy of key (len bytes and a NUL) in the map's chunks, or NULL. */
static char *smap_store(struct smap *m, const char *key, size_t len)
{
	char *at;

	if (len + 1 > SMAP_CHUNK) {
		/* a chunk of its own, before the current one */
		char **grown = realloc(m->chunks, (m->nr_chunks + 1) * sizeof(*grown));

		if (!grown)
			return NULL;
		m->chunks = grown;
		at = malloc(len + 1);
		if (!at)
			return NULL;
		if (m->nr_chunks) {
			m->chunks[m->nr_chunks] = m->chunks[m->nr_chunks - 1];
			m->chunks[m->nr_chunks - 1] = at;
		} else {
			m->chunks[0] = at;
			m->used = SMAP_CHUNK;	/* no room: the next key opens one */
		}
		m->nr_chunks++;
		memcpy(at, key, len + 1);
		return at;
	}
	if (!m->nr_chunks || m->used + len + 1 > SMAP_CHUNK) {
		char **grown = realloc(m->chunks, (m->nr_chunks + 1) * sizeof(*grown));

		if (!grown)
			return NULL;
		m->chunks = grown;
		m->chunks[m->nr_chunks] = malloc(SMAP_CHUNK);
		if (!m->chunks[m->nr_chunks])
			return NULL;
		m->nr_chunks++;
		m->used = 0;
	}
	at = m->chunks[m->nr_chunks - 1] + m->used;
	memcpy(at, key, len + 1);
	m->used += len + 1;
	return at;
}

/* Room for n keys without growing (for maps never walked: it moves slots). */
static int smap_reserve(struct smap *m, uint32_t n)
{
	while (2 * (uint64_t)n > m->cap) {
		if (smap_grow(m))
			return -ENOMEM;
	}
	return 0;
}

/* Sets key to val; an existing key keeps its value unless replace. */
static int smap_put(struct smap *m, const char *key, uint32_t val, bool replace)
{
	size_t len = strlen(key);
	uint64_t h = fnv64(key, len);
	uint32_t i;

	if (2 * (m->nr + 1) > m->cap && smap_grow(m))
		return -ENOMEM;
	i = smap_slot(m, key, h);
	if (m->keys[i]) {
		if (replace)
			m->vals[i] = val;
		return 0;
	}
	m->keys[i] = smap_store(m, key, len);
	if (!m->keys[i])
		return -ENOMEM;
	m->hashes[i] = (uint32_t)h;
	m->vals[i] = val;
	m->nr++;
	return 0;
}

/* ---- the kernels of the set ---- */

/* --module: the globs, and which took a module of some kernel */
struct hdr_modules {
	const char *const *globs;
	uint32_t nr;
	uint8_t *hits;			/* [nr], set atomically */
};

struct hdr_kernel {
	const struct hdr_modules *mods;	/* NULL: vmlinux alone */
	char *label;			/* the argument, or ARCHIVE:NAME */
	char *name;			/* kernel name: version and flavor */
	const char *path;		/* a file, or NULL */
	struct bc_archive *ar;		/* or a kernel of an archive */
	const char *ar_path;		/* the archive's file */
	uint32_t idx;
	int arch;			/* enum bc_header_arch, or -1 */
};

struct hdr_set {
	struct hdr_kernel *k;
	uint32_t nr, cap;
	struct hdr_modules mods;
	struct bc_archive **archives;
	char **archive_paths;
	uint32_t nr_archives;
};

static void set_free(struct hdr_set *s)
{
	uint32_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->k[i].label);
		free(s->k[i].name);
	}
	free(s->mods.hits);
	for (i = 0; i < s->nr_archives; i++) {
		bc_archive_free(s->archives[i]);
		free(s->archive_paths[i]);
	}
	free(s->k);
	free(s->archives);
	free(s->archive_paths);
}

static struct hdr_kernel *set_add(struct hdr_set *s)
{
	if (s->nr == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 16;
		struct hdr_kernel *k = realloc(s->k, cap * sizeof(*k));

		if (!k)
			return NULL;
		s->k = k;
		s->cap = cap;
	}
	memset(&s->k[s->nr], 0, sizeof(s->k[0]));
	s->k[s->nr].arch = -1;
	return &s->k[s->nr++];
}

/* The architecture a kernel name's flavor names, or -1. */
static int arch_of_name(const char *name)
{
	const char *flavor = bc_archive_name_flavor(name);

	if (strstr(flavor, "amd64") || strstr(flavor, "x86_64") ||
	    strstr(flavor, "x86"))
		return BC_HEADER_X86;
	if (strstr(flavor, "arm64") || strstr(flavor, "aarch64"))
		return BC_HEADER_ARM64;
	return -1;
}

/*
 * The name of a kernel given as a file: the input layer's default name,
 * except that a file under /sys/kernel/btf/ (named "vmlinux" there) is
 * the running kernel, named by uname -r.
 */
static int file_kernel_name(const char *path, char **name,
			    const struct bc_log *log)
{
	struct utsname u;

	if (!strncmp(path, "/sys/kernel/btf/", 16) && !uname(&u)) {
		*name = strdup(u.release);
		return *name ? 0 : bc_log_error(log, -ENOMEM, "out of memory");
	}
	return bc_archive_input_name(path, name, log);
}

/* Adds the kernels of one --kernel argument. */
static int set_add_arg(struct hdr_set *s, const char *arg,
		       const struct bc_log *log)
{
	struct bc_archive **ars;
	struct bc_archive_arg a;
	struct hdr_kernel *k;
	char **paths;
	uint32_t i;
	int err;

	err = bc_archive_arg_open(arg, &a, log);
	if (err)
		return err;
	if (!a.ar) {
		if (access(arg, R_OK))
			return bc_log_error(log, -errno, "%s: %s", arg, strerror(errno));
		k = set_add(s);
		if (!k || !(k->label = strdup(arg)))
			return bc_log_error(log, -ENOMEM, "out of memory");
		k->path = arg;
		return file_kernel_name(arg, &k->name, log);
	}
	ars = realloc(s->archives, (s->nr_archives + 1) * sizeof(*ars));
	if (ars)
		s->archives = ars;
	paths = realloc(s->archive_paths, (s->nr_archives + 1) * sizeof(*paths));
	if (paths)
		s->archive_paths = paths;
	if (!ars || !paths) {
		bc_archive_free(a.ar);
		err = bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	s->archives[s->nr_archives] = a.ar;
	s->archive_paths[s->nr_archives++] = a.path;	/* the set's now */
	for (i = 0; i < a.nr; i++) {
		const char *name = bc_archive_kernel_name(a.ar, a.idx[i]);

		k = set_add(s);
		if (!k) {
			err = bc_log_error(log, -ENOMEM, "out of memory");
			goto out;
		}
		k->ar = a.ar;
		k->ar_path = a.path;
		k->idx = a.idx[i];
		k->name = strdup(name);
		if (asprintf(&k->label, "%s:%s", a.path, name) < 0)
			k->label = NULL;
		if (!k->label || !k->name) {
			err = bc_log_error(log, -ENOMEM, "out of memory");
			goto out;
		}
	}
out:
	if (s->nr_archives && s->archive_paths[s->nr_archives - 1] == a.path)
		a.path = NULL;	/* owned by the set */
	bc_archive_arg_deinit(&a);
	return err;
}

/* Reads one kernel's BTF as libbpf's struct btf. */
static int load_kernel(const struct hdr_kernel *k, struct btf **out,
		       const struct bc_log *log)
{
	struct bc_input_opts opts = { .canonicalize = true };
	struct bc_input in;
	struct btf *base = NULL;
	void *raw;
	size_t size;
	int err;

	*out = NULL;
	if (k->ar) {
		err = bc_archive_kernel_raw(k->ar, k->idx, &raw, &size, log);
		if (err)
			return err;
		*out = btf__new(raw, size);
		err = *out ? 0 : -errno;
		free(raw);
		if (err)
			return bc_log_error(log, err, "%s: libbpf cannot read its BTF: %s",
					    k->label, strerror(-err));
		return 0;
	}
	if (k->mods && k->mods->nr) {
		bool has_modules;

		/* vmlinux and the modules asked for, as one canonical BTF */
		err = bc_kernel_set_merged(k->path, k->mods->globs, k->mods->nr,
					   k->mods->hits, &raw, &size,
					   &has_modules, log);
		if (err)
			return err;
		*out = btf__new(raw, size);
		err = *out ? 0 : -errno;
		free(raw);
		return err ? bc_log_error(log, err, "%s: libbpf cannot read its BTF: %s",
					  k->label, strerror(-err)) : 0;
	}
	err = bc_input_load(k->path, &opts, &in, log);
	if (err)
		return err;
	if (in.base) {
		bc_input_deinit(&in);
		return bc_log_error(log, -EINVAL,
			"%s: split BTF (a module's): header takes a kernel's own BTF",
			k->path);
	}
	err = bc_input_to_libbpf(&in, &base, out, log);
	btf__free(base);
	bc_input_deinit(&in);
	return err;
}

/* ---- reading types through libbpf ---- */

static const struct btf_type *lb_type(const void *src, uint32_t id)
{
	return id ? btf__type_by_id(src, id) : NULL;
}

static const char *lb_str(const void *src, uint32_t off)
{
	return btf__name_by_offset(src, off);
}

static bool is_composite(const struct btf_type *t)
{
	return t && (btf_is_struct(t) || btf_is_union(t));
}

/* Whether the struct or union id has a member called name, anonymous members looked through. */
static bool has_leaf(const struct btf *btf, uint32_t id, const char *name,
		     int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	uint32_t j;

	if (!is_composite(t) || depth > 32)
		return false;
	for (j = 0; j < btf_vlen(t); j++) {
		const struct btf_member *m = btf_members(t) + j;
		const char *mname = btf__name_by_offset(btf, m->name_off);

		if (*mname ? !strcmp(mname, name) :
			     has_leaf(btf, m->type, name, depth + 1))
			return true;
	}
	return false;
}

/*
 * The architecture a kernel's BTF is of, from struct pt_regs: x86's has
 * orig_ax, arm64's orig_x0; -1 when neither.
 */
static int arch_of_btf(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "pt_regs", BTF_KIND_STRUCT);

	if (id <= 0)
		return -1;
	if (has_leaf(btf, id, "orig_ax", 0))
		return BC_HEADER_X86;
	if (has_leaf(btf, id, "orig_x0", 0))
		return BC_HEADER_ARM64;
	return -1;
}

/* ---- order ---- */

/* The version part of a kernel name, malloc'd. */
static char *version_of(const char *name)
{
	const char *flavor = bc_archive_name_flavor(name);
	size_t len = flavor - name;

	if (len && *flavor && name[len - 1] == '-')
		len--;
	return strndup(name, len);
}

static int cmp_version(const char *a, const char *b)
{
	char *va = version_of(a), *vb = version_of(b);
	int c = va && vb ? bc_archive_name_cmp(va, vb) : 0;

	free(va);
	free(vb);
	return c;
}

/* A generic flavor: the architecture's own name, or none. */
static bool is_generic_flavor(const char *name)
{
	const char *f = bc_archive_name_flavor(name);

	return !*f || !strcmp(f, "amd64") || !strcmp(f, "arm64") ||
	       !strcmp(f, "x86_64") || !strcmp(f, "aarch64");
}

/*
 * Newest first: by version (the archive's order, flavor aside), then the
 * generic flavor before the others, then by flavor name, then by label.
 */
static int cmp_newest_first(const void *pa, const void *pb)
{
	const struct hdr_kernel *a = *(struct hdr_kernel *const *)pa;
	const struct hdr_kernel *b = *(struct hdr_kernel *const *)pb;
	int c = cmp_version(b->name, a->name);

	if (c)
		return c;
	c = (int)is_generic_flavor(b->name) - (int)is_generic_flavor(a->name);
	if (c)
		return c;
	c = strcmp(bc_archive_name_flavor(a->name), bc_archive_name_flavor(b->name));
	if (c)
		return c;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->label, b->label);
}

/* ---- the synthetic BTF of one architecture ---- */

struct leaf {
	char *name;		/* copied: the synthetic BTF's strings move as it grows */
	char *decl;		/* C spelling by names, ":BITS" for a bitfield */
	uint32_t type;
	uint32_t bits;
};

struct leaves {
	struct leaf *v;
	uint32_t nr, cap;
};

/* A member or enumerator some older kernel has and the synthetic type does not. */
struct variant {
	uint32_t kind;		/* BTF_KIND_STRUCT, _UNION or _ENUM */
	char *type_name;
	char *member;		/* member or enumerator name */
	char *decl;		/* members: the declaration */
	uint32_t type;		/* members: the member's type in the synthetic BTF */
	uint32_t bits;		/* members: bitfield size */
	int64_t value;		/* enumerators */
	uint32_t enum_size;
	bool enum_signed;
	uint32_t oldest;	/* order position of the oldest kernel having it */
	char *tag;		/* base_tag() of member */
	char *flavor;		/* the flavor's name, once chosen */
};

struct sig_entry;

#define CURRENT 0x80000000u	/* a touched entry that indexes cur_oldest */

struct synth {
	struct btf *s;
	uint32_t nr_newest;		/* ids below are the newest kernel's */
	struct smap names;		/* "K:name" -> first id of that kind and name */
	struct smap idents;		/* C ordinary identifiers taken */
	struct smap variant_idx;	/* variant key -> index + 1 */
	struct variant *variants;
	uint32_t nr_variants, cap_variants;
	struct leaves **s_leaves;	/* by synthetic id, computed when needed */
	uint32_t nr_s_leaves;
	struct smap kfunc_count;	/* kfunc name -> kernels having it */
	struct sig_entry *sigs;		/* types compared, by signature */
	uint32_t nr_sigs, cap_sigs;
	uint32_t *touched;		/* variant indices, by signature; CURRENT: */
	uint32_t nr_touched, cap_touched;
	/*
	 * The members older kernels declare as the synthetic type does:
	 * "K|TYPE|MEMBER" -> index into cur_oldest, the order position of
	 * the oldest kernel seen declaring it so (see current_variants()).
	 */
	struct smap cur_idx;
	uint32_t *cur_oldest;
	uint32_t nr_cur, cap_cur;
	/*
	 * Members of synthetic types that some older kernel's type lacks:
	 * "K|TYPE|MEMBER" -> order position of the youngest such kernel.
	 */
	struct smap absent;
	struct bc_text key;		/* scratch */
	const struct bc_log *log;
	/*
	 * --for: the type names whose flavors the program can name (see
	 * merge_older()); NULL: every type is compared. skipped: some
	 * type's comparison was left out.
	 */
	const struct smap *flavored;
	bool skipped;
};

/* The source of a copy: an older kernel and its ids already copied. */
struct copy_src {
	const struct btf *btf;
	uint32_t *memo;			/* by source id: synthetic id, 0: not yet */
};

static const char *make_key(struct synth *y, char tag, const char *name)
{
	bc_text_truncate(&y->key, 0);
	bc_text_add(&y->key, &tag, 1);
	bc_text_add(&y->key, ":", 1);
	bc_text_puts(&y->key, name);
	return bc_text_str(&y->key);
}

/* The map tag of a named type of this kind, or 0 when not mapped by name. */
static char name_tag(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return 'i';
	case BTF_KIND_FLOAT:
		return 'f';
	case BTF_KIND_STRUCT:
		return 's';
	case BTF_KIND_UNION:
		return 'u';
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return 'e';
	case BTF_KIND_TYPEDEF:
		return 't';
	case BTF_KIND_FWD:
		return 'w';
	case BTF_KIND_FUNC:
		return 'F';
	default:
		return 0;
	}
}

static bool is_tag_kind(char tag)
{
	return tag == 's' || tag == 'u' || tag == 'e' || tag == 'w';
}

/* Registers synthetic type id under its kind and name, and its C identifiers. */
static int note_type(struct synth *y, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(y->s, id);
	const char *name = btf__name_by_offset(y->s, t->name_off);
	char tag = name_tag(t);
	uint32_t j;
	int err = 0;

	if (*name && tag) {
		err = smap_put(&y->names, make_key(y, tag, name), id, false);
		if (!err && is_tag_kind(tag) && tag != 'w')
			err = smap_put(&y->names, make_key(y, 'T', name), id, false);
	}
	if (!err && *name && (btf_is_typedef(t) || btf_is_func(t)))
		err = smap_put(&y->idents, name, id, false);
	if (btf_is_enum(t) || btf_is_enum64(t)) {
		for (j = 0; !err && j < btf_vlen(t); j++) {
			uint32_t off = btf_is_enum(t) ? btf_enum(t)[j].name_off :
							btf_enum64(t)[j].name_off;

			err = smap_put(&y->idents, btf__name_by_offset(y->s, off),
				       id, false);
		}
	}
	return err;
}

/*
 * The synthetic type a named source type maps to: same kind and name; a
 * FWD maps to the struct or union it declares when there is one; a
 * struct, union or enum whose tag the synthetic BTF gives to another kind
 * maps to that (C has one tag namespace). 0: none.
 */
static uint32_t find_named(struct synth *y, const struct btf_type *t,
			   const char *name)
{
	char tag = name_tag(t);
	uint32_t id;

	if (btf_is_fwd(t)) {
		if (smap_get(&y->names, make_key(y, btf_kflag(t) ? 'u' : 's', name), &id))
			return id;
	}
	if (smap_get(&y->names, make_key(y, tag, name), &id))
		return id;
	if (is_tag_kind(tag) && smap_get(&y->names, make_key(y, 'T', name), &id))
		return id;
	return 0;
}

/* The kth type reference slot of t, or NULL past the last. */
static uint32_t *ref_slot(struct btf_type *t, uint32_t k)
{
	return bc_type_word_of_class((uint32_t *)t, BC_WORD_REF, k);
}

/*
 * Renames the enumerators of a copied enum that are C identifiers already
 * (an enum renamed, its constants kept): ENUMERATOR___ENUMNAME, which
 * CO-RE still matches to ENUMERATOR.
 */
static int rename_taken_enumerators(struct synth *y, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(y->s, id);
	char *enum_name = strdup(btf__name_by_offset(y->s, t->name_off));
	uint32_t j, vlen = btf_vlen(t), dummy;
	int err = enum_name ? 0 : -ENOMEM;

	for (j = 0; !err && j < vlen; j++) {
		struct btf_type *mt = (struct btf_type *)btf__type_by_id(y->s, id);
		uint32_t *off = btf_is_enum(mt) ? &btf_enum(mt)[j].name_off :
						  &btf_enum64(mt)[j].name_off;
		char *renamed;
		int str;

		if (!smap_get(&y->idents, btf__name_by_offset(y->s, *off), &dummy))
			continue;
		if (asprintf(&renamed, "%s___%s", btf__name_by_offset(y->s, *off),
			     *enum_name ? enum_name : "anon") < 0)
			return free(enum_name), -ENOMEM;
		str = btf__add_str(y->s, renamed);
		free(renamed);
		if (str < 0) {
			err = str;
			break;
		}
		mt = (struct btf_type *)btf__type_by_id(y->s, id);
		off = btf_is_enum(mt) ? &btf_enum(mt)[j].name_off :
					&btf_enum64(mt)[j].name_off;
		*off = str;
	}
	free(enum_name);
	return err;
}

/*
 * The synthetic id for source type id: the synthetic type of the same
 * kind and name when there is one, else a copy, registered before its
 * references are copied (so loops through pointers end). Returns the id
 * (0 for void) or a negative errno.
 */
static int copy_type(struct synth *y, struct copy_src *src, uint32_t id)
{
	const struct btf_type *t;
	const char *name;
	uint32_t k, found;
	int nid, err;

	if (!id)
		return 0;
	if (src->memo[id])
		return src->memo[id];
	t = btf__type_by_id(src->btf, id);
	if (!t)
		return -EINVAL;
	name = btf__name_by_offset(src->btf, t->name_off);
	if (*name && name_tag(t) && (found = find_named(y, t, name))) {
		src->memo[id] = found;
		return found;
	}
	if (*name && btf_is_typedef(t) && smap_get(&y->idents, name, &found)) {
		/* the name is an enumerator or function here: use its target */
		err = copy_type(y, src, t->type);
		if (err >= 0)
			src->memo[id] = err;
		return err;
	}
	nid = btf__add_type(y->s, src->btf, t);
	if (nid < 0)
		return nid;
	src->memo[id] = nid;
	if (btf_is_enum(t) || btf_is_enum64(t)) {
		err = rename_taken_enumerators(y, nid);
		if (err)
			return err;
	}
	err = note_type(y, nid);
	if (err)
		return err;
	for (k = 0;; k++) {
		struct btf_type *nt = (struct btf_type *)btf__type_by_id(y->s, nid);
		uint32_t *slot = ref_slot(nt, k);
		int ref;

		if (!slot)
			break;
		ref = copy_type(y, src, *slot);
		if (ref < 0)
			return ref;
		nt = (struct btf_type *)btf__type_by_id(y->s, nid);
		*ref_slot(nt, k) = ref;
	}
	return nid;
}

/*
 * btf__resolve_size() without libbpf's warning for what has no size (a
 * FWD, void, a function): -1 for those.
 */
static int sized(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int depth = 0;

	while (t && depth++ < 64 && (btf_is_typedef(t) || btf_is_mod(t) ||
				     btf_is_type_tag(t) || btf_is_array(t))) {
		id = btf_is_array(t) ? btf_array(t)->type : t->type;
		t = btf__type_by_id(btf, id);
	}
	if (!t || !id || btf_is_fwd(t) || btf_is_func(t) ||
	    btf_is_func_proto(t) || depth >= 64)
		return -1;
	return 0;
}

static void leaves_free(struct leaves *l)
{
	uint32_t i;

	if (!l)
		return;
	for (i = 0; i < l->nr; i++) {
		free(l->v[i].name);
		free(l->v[i].decl);
	}
	free(l->v);
	free(l);
}

static int cmp_leaf(const void *pa, const void *pb)
{
	const struct leaf *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->decl, b->decl);
}

/* Appends the named members of struct or union id, anonymous members looked through. */
static int flatten(const struct btf *btf, uint32_t id, struct leaves *out,
		   struct bc_text *scratch, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	uint32_t j;
	int err;

	if (depth > 32)
		return 0;
	for (j = 0; j < btf_vlen(t); j++) {
		const struct btf_member *m = btf_members(t) + j;
		const char *name = btf__name_by_offset(btf, m->name_off);
		struct bc_cdecl c = { .type_of = lb_type, .str_of = lb_str,
				      .src = btf };
		struct leaf *l;

		if (!*name) {
			if (is_composite(btf__type_by_id(btf, m->type))) {
				err = flatten(btf, m->type, out, scratch, depth + 1);
				if (err)
					return err;
			}
			continue;
		}
		if (out->nr == out->cap) {
			uint32_t cap = out->cap ? 2 * out->cap : 16;
			struct leaf *v = realloc(out->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			out->v = v;
			out->cap = cap;
		}
		l = &out->v[out->nr];
		l->name = strdup(name);
		l->type = m->type;
		l->bits = btf_member_bitfield_size(t, j);
		bc_text_truncate(scratch, 0);
		bc_cdecl_type(&c, m->type, name, scratch);
		if (l->bits)
			bc_text_printf(scratch, ":%u", l->bits);
		if (scratch->err)
			return scratch->err;
		l->decl = strdup(bc_text_str(scratch));
		if (!l->decl || !l->name) {
			free(l->decl);
			free(l->name);
			return -ENOMEM;
		}
		out->nr++;
	}
	return 0;
}

/* The synthetic struct or union id's members, sorted by name (kept). */
static struct leaves *synth_leaves(struct synth *y, uint32_t id, int *err)
{
	struct leaves *l;

	if (id >= y->nr_s_leaves) {
		uint32_t nr = btf__type_cnt(y->s) + 1024;
		struct leaves **grown = realloc(y->s_leaves, nr * sizeof(*grown));

		if (!grown) {
			*err = -ENOMEM;
			return NULL;
		}
		memset(grown + y->nr_s_leaves, 0,
		       (nr - y->nr_s_leaves) * sizeof(*grown));
		y->s_leaves = grown;
		y->nr_s_leaves = nr;
	}
	if (y->s_leaves[id])
		return y->s_leaves[id];
	l = calloc(1, sizeof(*l));
	if (!l) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = flatten(y->s, id, l, &y->key, 0);
	if (*err) {
		leaves_free(l);
		return NULL;
	}
	if (l->nr)
		qsort(l->v, l->nr, sizeof(*l->v), cmp_leaf);
	y->s_leaves[id] = l;
	return l;
}

static const struct leaf *find_leaf(const struct leaves *l, const char *name)
{
	uint32_t lo = 0, hi = l->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(l->v[mid].name, name);

		if (!c)
			return &l->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int push_touched(struct synth *y, uint32_t what)
{
	if (y->nr_touched == y->cap_touched) {
		uint32_t cap = y->cap_touched ? 2 * y->cap_touched : 1024;
		uint32_t *grown = realloc(y->touched, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		y->touched = grown;
		y->cap_touched = cap;
	}
	y->touched[y->nr_touched++] = what;
	return 0;
}

static struct variant *add_variant(struct synth *y, const char *key,
				   uint32_t order, bool *fresh, int *err)
{
	uint32_t idx;
	struct variant *v;

	*fresh = false;
	if (smap_get(&y->variant_idx, key, &idx)) {
		v = &y->variants[idx - 1];
		if (order > v->oldest)
			v->oldest = order;
		*err = push_touched(y, idx - 1);
		return *err ? NULL : v;
	}
	if (y->nr_variants == y->cap_variants) {
		uint32_t cap = y->cap_variants ? 2 * y->cap_variants : 256;
		struct variant *grown = realloc(y->variants, cap * sizeof(*grown));

		if (!grown) {
			*err = -ENOMEM;
			return NULL;
		}
		y->variants = grown;
		y->cap_variants = cap;
	}
	*err = smap_put(&y->variant_idx, key, y->nr_variants + 1, false);
	if (!*err)
		*err = push_touched(y, y->nr_variants);
	if (*err)
		return NULL;
	v = &y->variants[y->nr_variants++];
	memset(v, 0, sizeof(*v));
	v->oldest = order;
	*fresh = true;
	return v;
}

/* Marks the oldest kernel seen declaring a member as the synthetic type does. */
static int note_current(struct synth *y, const char *key, uint32_t order)
{
	uint32_t idx;
	int err;

	if (!smap_get(&y->cur_idx, key, &idx)) {
		if (y->nr_cur == y->cap_cur) {
			uint32_t cap = y->cap_cur ? 2 * y->cap_cur : 4096;
			uint32_t *grown = realloc(y->cur_oldest, cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			y->cur_oldest = grown;
			y->cap_cur = cap;
		}
		idx = y->nr_cur++;
		y->cur_oldest[idx] = 0;
		err = smap_put(&y->cur_idx, key, idx, false);
		if (err)
			return err;
	}
	if (order > y->cur_oldest[idx])
		y->cur_oldest[idx] = order;
	return push_touched(y, idx | CURRENT);
}

/* Marks what a signature's comparison touched as seen in kernel order too. */
static void touch_again(struct synth *y, uint32_t start, uint32_t count,
			uint32_t order)
{
	uint32_t k;

	for (k = 0; k < count; k++) {
		uint32_t what = y->touched[start + k];
		uint32_t *oldest = what & CURRENT ? &y->cur_oldest[what & ~CURRENT] :
						    &y->variants[what].oldest;

		if (order > *oldest)
			*oldest = order;
	}
}

/* "T|TYPE|MEMBER" into key (printf's cost, without its parsing: a key per member compared). */
static void member_key(struct bc_text *key, char tag, const char *type,
		       const char *member)
{
	char head[2] = { tag, '|' };

	bc_text_truncate(key, 0);
	bc_text_add(key, head, 2);
	bc_text_puts(key, type);
	bc_text_add(key, "|", 1);
	bc_text_puts(key, member);
}

/* Records the members of source struct or union id that the synthetic one lacks. */
static int compare_composite(struct synth *y, struct copy_src *src,
			     uint32_t id, uint32_t sid, const char *name,
			     uint32_t order)
{
	struct leaves old = { 0 }, *cur;
	struct bc_text scratch;
	uint32_t i;
	int err;

	cur = synth_leaves(y, sid, &err);
	if (!cur)
		return err;
	bc_text_init(&scratch);
	err = flatten(src->btf, id, &old, &scratch, 0);
	for (i = 0; !err && i < old.nr; i++) {
		const struct leaf *l = &old.v[i], *now = find_leaf(cur, l->name);
		uint32_t kind = btf_kind(btf__type_by_id(src->btf, id));
		struct variant *v;
		bool fresh;
		int type;

		if (now && !strcmp(now->decl, l->decl)) {
			member_key(&scratch, kind == BTF_KIND_UNION ? 'u' : 's',
				   name, l->name);
			err = scratch.err ? scratch.err :
			      note_current(y, bc_text_str(&scratch), order);
			continue;
		}
		bc_text_truncate(&scratch, 0);
		bc_text_printf(&scratch, "%c|%s|%s|%s",
			       kind == BTF_KIND_UNION ? 'u' : 's', name, l->name,
			       l->decl);
		if (scratch.err) {
			err = scratch.err;
			break;
		}
		v = add_variant(y, bc_text_str(&scratch), order, &fresh, &err);
		if (!v || !fresh)
			continue;
		type = copy_type(y, src, l->type);
		if (type < 0) {
			err = type;
			break;
		}
		v->kind = kind;
		v->type_name = strdup(name);
		v->member = strdup(l->name);
		v->decl = strdup(l->decl);
		v->type = type;
		v->bits = l->bits;
		if (!v->type_name || !v->member || !v->decl)
			err = -ENOMEM;
	}
	/* the synthetic type's members this kernel lacks (first: the youngest) */
	if (!err && old.nr)
		qsort(old.v, old.nr, sizeof(*old.v), cmp_leaf);
	for (i = 0; !err && i < cur->nr; i++) {
		uint32_t kind = btf_kind(btf__type_by_id(src->btf, id));

		if (find_leaf(&old, cur->v[i].name))
			continue;
		member_key(&scratch, kind == BTF_KIND_UNION ? 'u' : 's', name,
			   cur->v[i].name);
		err = scratch.err ? scratch.err :
		      smap_put(&y->absent, bc_text_str(&scratch), order, false);
	}
	for (i = 0; i < old.nr; i++) {
		free(old.v[i].name);
		free(old.v[i].decl);
	}
	free(old.v);
	bc_text_deinit(&scratch);
	return err;
}

/* Records the enumerators of source enum id that the synthetic one lacks. */
static int compare_enum(struct synth *y, struct copy_src *src, uint32_t id,
			uint32_t sid, const char *name, uint32_t order)
{
	const struct btf_type *t = btf__type_by_id(src->btf, id);
	const struct btf_type *st = btf__type_by_id(y->s, sid);
	struct bc_text key;
	uint32_t j, k;
	int err = 0;

	if (!btf_is_enum(st) && !btf_is_enum64(st))
		return 0;
	bc_text_init(&key);
	for (j = 0; !err && j < btf_vlen(t); j++) {
		const char *e = btf__name_by_offset(src->btf, btf_is_enum(t) ?
			btf_enum(t)[j].name_off : btf_enum64(t)[j].name_off);
		struct variant *v;
		bool found = false, fresh;

		/* by essential name: a copied enum's may carry ___ENUMNAME */
		for (k = 0; k < btf_vlen(st) && !found; k++) {
			const char *now = btf__name_by_offset(y->s, btf_is_enum(st) ?
				btf_enum(st)[k].name_off : btf_enum64(st)[k].name_off);
			size_t len = strlen(e);

			found = !strncmp(now, e, len) &&
				(!now[len] || !strncmp(now + len, "___", 3));
		}
		bc_text_truncate(&key, 0);
		bc_text_printf(&key, "e|%s|%s", name, e);
		if (key.err) {
			err = key.err;
			break;
		}
		if (found) {
			err = note_current(y, bc_text_str(&key), order);
			continue;
		}
		v = add_variant(y, bc_text_str(&key), order, &fresh, &err);
		if (!v || !fresh)
			continue;
		v->kind = BTF_KIND_ENUM;
		v->type_name = strdup(name);
		v->member = strdup(e);
		v->decl = strdup(e);	/* tells apart enumerators of one tag */
		v->enum_size = t->size;
		v->enum_signed = btf_kflag(t);
		v->value = btf_is_enum(t) ?
			(btf_kflag(t) ? (int64_t)(int32_t)btf_enum(t)[j].val :
					(int64_t)btf_enum(t)[j].val) :
			(int64_t)btf_enum64_value(btf_enum64(t) + j);
		if (!v->type_name || !v->member || !v->decl)
			err = -ENOMEM;
	}
	/* the synthetic enum's enumerators this kernel lacks (as for members) */
	for (k = 0; !err && k < btf_vlen(st); k++) {
		const char *now = btf__name_by_offset(y->s, btf_is_enum(st) ?
			btf_enum(st)[k].name_off : btf_enum64(st)[k].name_off);
		const char *sep = strstr(now, "___");
		size_t len = sep ? (size_t)(sep - now) : strlen(now);
		bool found = false;

		for (j = 0; j < btf_vlen(t) && !found; j++) {
			const char *e = btf__name_by_offset(src->btf, btf_is_enum(t) ?
				btf_enum(t)[j].name_off : btf_enum64(t)[j].name_off);

			found = strlen(e) == len && !strncmp(e, now, len);
		}
		if (found)
			continue;
		bc_text_truncate(&key, 0);
		bc_text_printf(&key, "e|%s|%.*s", name, (int)len, now);
		err = key.err ? key.err : smap_put(&y->absent, bc_text_str(&key), order, false);
	}
	bc_text_deinit(&key);
	return err;
}

/* The FUNC a DECL_TAG "bpf_kfunc" on the function itself marks, or 0. */
static uint32_t kfunc_of_tag(const struct btf *btf, const struct btf_type *t,
			     const char *what)
{
	const struct btf_type *f;

	if (!btf_is_decl_tag(t) || btf_decl_tag(t)->component_idx != -1 ||
	    strcmp(btf__name_by_offset(btf, t->name_off), what))
		return 0;
	f = btf__type_by_id(btf, t->type);
	return f && btf_is_func(f) ? t->type : 0;
}

/* Whether synthetic FUNC id carries the tag what. */
static bool synth_has_tag(const struct synth *y, uint32_t func, const char *what)
{
	uint32_t i, n = btf__type_cnt(y->s);

	for (i = 1; i < n; i++) {
		if (kfunc_of_tag(y->s, btf__type_by_id(y->s, i), what) == func)
			return true;
	}
	return false;
}

/*
 * Counts the kfuncs of a kernel; one the synthetic BTF has no kfunc of
 * that name is copied with its tags.
 */
static int add_kfuncs(struct synth *y, struct copy_src *src, bool copy)
{
	uint32_t i, n = btf__type_cnt(src->btf);
	int err = 0;

	for (i = 1; !err && i < n; i++) {
		const struct btf_type *t = btf__type_by_id(src->btf, i);
		uint32_t func = kfunc_of_tag(src->btf, t, "bpf_kfunc"), count = 0;
		const char *name;
		int sid;

		if (!func)
			continue;
		name = btf__name_by_offset(src->btf, btf__type_by_id(src->btf, func)->name_off);
		smap_get(&y->kfunc_count, name, &count);
		err = smap_put(&y->kfunc_count, name, count + 1, true);
		if (err || !copy || count)
			continue;
		/* new: the first kernel (newest first) that has it */
		sid = copy_type(y, src, func);
		if (sid < 0)
			return sid;
		if (!synth_has_tag(y, sid, "bpf_kfunc")) {
			int tag = btf__add_decl_tag(y->s, "bpf_kfunc", sid, -1);

			if (tag < 0)
				return tag;
		}
	}
	for (i = 1; !err && copy && i < n; i++) {
		uint32_t func = kfunc_of_tag(src->btf, btf__type_by_id(src->btf, i),
					     "bpf_fastcall");
		int tag;

		if (!func || !src->memo[func] || src->memo[func] < y->nr_newest ||
		    synth_has_tag(y, src->memo[func], "bpf_fastcall"))
			continue;
		tag = btf__add_decl_tag(y->s, "bpf_fastcall", src->memo[func], -1);
		if (tag < 0)
			return tag;
	}
	return err;
}

/*
 * Signatures: most types of an older kernel are the same as in the kernel
 * compared before it (kernels of one series differ in a few hundred
 * types), so a type whose content was seen already is not compared
 * again; the variants it gave are only marked as seen in this kernel
 * too. A type's signature hashes its record with names for string
 * offsets and, for references, the referenced type's kind and name (a
 * named type) or its signature (an anonymous one): what the member
 * spellings and copies depend on. 64-bit FNV-1a; a collision would lose a
 * variant, at odds of about 2^-40 over a header of 118 kernels. A kernel
 * read from an archive has its signatures for free: the number of each
 * type's record in the archive's pool, which is the same exactly when the
 * record is (references taken by name, anonymous types by content).
 */
struct sig_src {
	const struct btf *btf;
	uint64_t *memo;
	uint64_t *named;	/* ref_sig() of named types, 0: not yet */
	uint8_t *state;		/* 0 new, 1 in progress, 2 done */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return mix(h, 0xff);
}

static uint64_t body_sig(struct sig_src *g, uint32_t id);

/* What a reference to id contributes: the kind and name of a named type, else its body. */
static uint64_t ref_sig(struct sig_src *g, uint32_t id)
{
	const struct btf_type *t;
	const char *name;

	if (!id)
		return 1;
	t = btf__type_by_id(g->btf, id);
	name = btf__name_by_offset(g->btf, t->name_off);
	if (*name && name_tag(t)) {
		if (!g->named[id])
			g->named[id] = mix_str(mix(14695981039346656037ULL,
						   name_tag(t)), name) | 1;
		return g->named[id];
	}
	return body_sig(g, id);
}

static uint64_t body_sig(struct sig_src *g, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(g->btf, id);
	uint64_t h = 14695981039346656037ULL;
	uint32_t j, vlen = btf_vlen(t);

	if (g->state[id] == 2)
		return g->memo[id];
	if (g->state[id] == 1)
		return 7;	/* a loop through anonymous types */
	g->state[id] = 1;
	h = mix(h, t->info);
	h = mix_str(h, btf__name_by_offset(g->btf, t->name_off));
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		h = mix(h, t->size);
		h = mix(h, *(const uint32_t *)(t + 1));
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		h = mix(h, t->size);
		for (j = 0; j < vlen; j++) {
			const struct btf_member *m = btf_members(t) + j;

			h = mix_str(h, btf__name_by_offset(g->btf, m->name_off));
			h = mix(h, m->offset);
			h = mix(h, ref_sig(g, m->type));
		}
		break;
	case BTF_KIND_ENUM:
		h = mix(h, t->size);
		for (j = 0; j < vlen; j++) {
			h = mix_str(h, btf__name_by_offset(g->btf, btf_enum(t)[j].name_off));
			h = mix(h, btf_enum(t)[j].val);
		}
		break;
	case BTF_KIND_ENUM64:
		h = mix(h, t->size);
		for (j = 0; j < vlen; j++) {
			h = mix_str(h, btf__name_by_offset(g->btf, btf_enum64(t)[j].name_off));
			h = mix(h, btf_enum64_value(btf_enum64(t) + j));
		}
		break;
	case BTF_KIND_ARRAY:
		h = mix(h, btf_array(t)->nelems);
		h = mix(h, ref_sig(g, btf_array(t)->type));
		h = mix(h, ref_sig(g, btf_array(t)->index_type));
		break;
	case BTF_KIND_FUNC_PROTO:
		h = mix(h, ref_sig(g, t->type));
		for (j = 0; j < vlen; j++) {
			h = mix_str(h, btf__name_by_offset(g->btf, btf_params(t)[j].name_off));
			h = mix(h, ref_sig(g, btf_params(t)[j].type));
		}
		break;
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		h = mix(h, t->size);
		break;
	default:
		/* one reference or none: pointers, qualifiers, typedefs, tags */
		if (ref_slot((struct btf_type *)t, 0))
			h = mix(h, ref_sig(g, t->type));
		break;
	}
	g->memo[id] = h;
	g->state[id] = 2;
	return h;
}

/* A u64 -> (start, count) map of the signatures seen, into y->touched. */
struct sig_entry {
	uint64_t sig;		/* 0: empty */
	uint32_t start, count;
};

static struct sig_entry *sig_find(struct synth *y, uint64_t sig, bool *found)
{
	uint32_t i;

	if (!sig)
		sig = 1;
	if (2 * (y->nr_sigs + 1) > y->cap_sigs) {
		uint32_t cap = y->cap_sigs ? 2 * y->cap_sigs : 65536, k;
		struct sig_entry *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (k = 0; k < y->cap_sigs; k++) {
			if (!y->sigs[k].sig)
				continue;
			i = y->sigs[k].sig & (cap - 1);
			while (n[i].sig)
				i = (i + 1) & (cap - 1);
			n[i] = y->sigs[k];
		}
		free(y->sigs);
		y->sigs = n;
		y->cap_sigs = cap;
	}
	i = sig & (y->cap_sigs - 1);
	while (y->sigs[i].sig && y->sigs[i].sig != sig)
		i = (i + 1) & (y->cap_sigs - 1);
	*found = y->sigs[i].sig == sig;
	if (!*found) {
		y->sigs[i] = (struct sig_entry){ .sig = sig, .start = y->nr_touched };
		y->nr_sigs++;
	}
	return &y->sigs[i];
}

/* The entry of a signature seen already, or NULL (nothing added). */
static const struct sig_entry *sig_peek(const struct synth *y, uint64_t sig)
{
	uint32_t i;

	if (!sig)
		sig = 1;
	if (!y->cap_sigs)
		return NULL;
	i = sig & (y->cap_sigs - 1);
	while (y->sigs[i].sig && y->sigs[i].sig != sig)
		i = (i + 1) & (y->cap_sigs - 1);
	return y->sigs[i].sig == sig ? &y->sigs[i] : NULL;
}

/*
 * Whether copying the types of source type id's members (what
 * compare_composite() copies for a new declaration) can only make
 * anonymous types other than enums: every named type on the way is
 * one the synthetic BTF maps by name (copy_type() stops there). Such
 * copies are referenced by the member's flavor alone; an anonymous
 * enum (its enumerators become identifiers, a seed of slim's by
 * enumerator) or a named type copied (a FWD, an int: later copies map
 * to it by name) could change more. false when unsure (depth).
 */
static bool copies_nothing_named(struct synth *y, const struct btf *btf,
				 uint32_t id, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name;
	uint32_t j;

	if (!id)
		return true;
	if (!t || depth > 32)
		return false;
	name = btf__name_by_offset(btf, t->name_off);
	if (*name && depth)
		return name_tag(t) && find_named(y, t, name);
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (j = 0; j < btf_vlen(t); j++) {
			if (!copies_nothing_named(y, btf, btf_members(t)[j].type,
						  depth + 1))
				return false;
		}
		return true;
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return copies_nothing_named(y, btf, t->type, depth + 1);
	case BTF_KIND_ARRAY:
		return copies_nothing_named(y, btf, btf_array(t)->type, depth + 1) &&
		       copies_nothing_named(y, btf, btf_array(t)->index_type, depth + 1);
	case BTF_KIND_FUNC_PROTO:
		if (!copies_nothing_named(y, btf, t->type, depth + 1))
			return false;
		for (j = 0; j < btf_vlen(t); j++) {
			if (!copies_nothing_named(y, btf, btf_params(t)[j].type,
						  depth + 1))
				return false;
		}
		return true;
	default:
		return false;
	}
}

/* Compares one older kernel with the synthetic BTF (pass 2 of the top). */
static int merge_older(struct synth *y, const struct btf *old,
		       const struct bc_archive_view *view, uint64_t view_seed,
		       const uint32_t *orig, const char *label, uint32_t order)
{
	struct copy_src src = { .btf = old };
	struct sig_src g = { .btf = old };
	uint32_t i, n = btf__type_cnt(old);
	uint64_t *sigs;
	int err = 0;

	src.memo = calloc(n, sizeof(*src.memo));
	if (!view) {	/* hashed signatures: an archive's kernel needs none */
		g.memo = calloc(n, sizeof(*g.memo));
		g.state = calloc(n, 1);
		g.named = calloc(n, sizeof(*g.named));
	}
	sigs = calloc(n, sizeof(*sigs));	/* 0: not a type compared */
	if (!src.memo || !sigs ||
	    (!view && (!g.memo || !g.state || !g.named))) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * The named types it has and the synthetic BTF lacks, whole; a type
	 * seen before (by signature) is known to the synthetic BTF.
	 */
	for (i = 1; !err && i < n; i++) {
		const struct btf_type *t = btf__type_by_id(old, i);
		const char *name = btf__name_by_offset(old, t->name_off);
		struct sig_entry *e;
		bool seen;
		int id;

		if (!*name || !(btf_is_composite(t) || btf_is_any_enum(t) ||
				btf_is_typedef(t)))
			continue;
		/* an archive's record number is its content, and free */
		if (view)
			sigs[i] = mix(view_seed, bc_archive_view_record(view,
							orig ? orig[i] : i)) | 1;
		else
			sigs[i] = mix(mix_str(body_sig(&g, i), name), name_tag(t)) | 1;
		e = sig_find(y, sigs[i], &seen);
		if (!e) {
			err = -ENOMEM;
			break;
		}

		if (seen) {
			touch_again(y, e->start, e->count, order);
			sigs[i] = 0;
			continue;
		}
		if (find_named(y, t, name))
			continue;
		id = copy_type(y, &src, i);
		if (id < 0)
			err = id;
	}
	for (i = 1; !err && i < n; i++) {
		const struct btf_type *t = btf__type_by_id(old, i);
		const char *name = btf__name_by_offset(old, t->name_off);
		uint32_t sid, start = y->nr_touched, dummy;
		struct sig_entry *e;
		bool seen;

		if (!sigs[i] || !(btf_is_composite(t) || btf_is_any_enum(t)))
			continue;
		/*
		 * A type copied from this kernel is compared with its copy
		 * too: nothing differs, but its members count as declared
		 * so in this kernel (and in those with the same signature).
		 */
		sid = find_named(y, t, name);
		if (!sid)
			continue;
		if (y->flavored && !smap_get(y->flavored, name, &dummy) &&
		    (btf_is_any_enum(t) || copies_nothing_named(y, old, i, 0)))
			y->skipped = true;	/* no flavor of it can be selected */
		else if (btf_is_composite(t) && is_composite(btf__type_by_id(y->s, sid)))
			err = compare_composite(y, &src, i, sid, name, order);
		else if (btf_is_any_enum(t))
			err = compare_enum(y, &src, i, sid, name, order);
		e = err ? NULL : sig_find(y, sigs[i], &seen);
		if (e) {
			e->start = start;
			e->count = y->nr_touched - start;
		}
	}
	if (!err)
		err = add_kfuncs(y, &src, true);
out:
	free(src.memo);
	free(g.memo);
	free(g.state);
	free(g.named);
	free(sigs);
	if (err)
		bc_log_error(y->log, err, "%s: cannot merge its types: %s", label,
			     strerror(-err));
	return err;
}

/* ---- flavors ---- */

static uint32_t fnv32(const char *s)
{
	uint64_t h = fnv64(s, strlen(s));

	return (uint32_t)(h ^ (h >> 32));
}

/*
 * Cuts runs of three or more underscores in s to two (libbpf takes the
 * last "___" between two other characters as the flavor separator: the
 * one of NAME___TAG must be the only one).
 */
static void cut_underscores(char *s)
{
	size_t i, o = 0, run = 0;

	for (i = 0; s[i]; i++) {
		run = s[i] == '_' ? run + 1 : 0;
		if (run < 3)
			s[o++] = s[i];
	}
	s[o] = 0;
}

/*
 * The name part of a TAG: member's name without leading or trailing
 * underscores, runs of three or more inside cut to one, "x" when nothing
 * is left.
 */
static char *base_tag(const char *member)
{
	size_t len = strlen(member), i, o = 0;
	char *tag = malloc(len + 2);

	if (!tag)
		return NULL;
	while (*member == '_')
		member++, len--;
	while (len && member[len - 1] == '_')
		len--;
	for (i = 0; i < len; i++) {
		size_t run = 0;

		while (i + run < len && member[i + run] == '_')
			run++;
		if (run >= 3) {
			tag[o++] = '_';
			i += run - 1;
			continue;
		}
		tag[o++] = member[i];
	}
	if (!o)
		tag[o++] = 'x';
	tag[o] = 0;
	return tag;
}

#define SPELLED_TAG_MAX 48	/* longer: the hashed form */

/*
 * The type part of a member's TAG, spelled from its declaration decl (a
 * cdecl.h spelling, ":BITS" after a bitfield) with member's name taken
 * out: the type's words, "p" for each '*', "aN" for "[N]" ("a" for
 * "[]"), "bN" for ":N", joined by '_': "volatile long int state" gives
 * "volatile_long_int", "const char *const argv[4]" gives
 * "const_char_p_const_a4", "u8 flag:1" gives "u8_b1". NULL: not
 * spelled (a function pointer or an anonymous type, whose words do not
 * tell it apart) or no memory (*err).
 */
static char *spell_type(const char *decl, const char *member, int *err)
{
	size_t len = strlen(decl), mlen = strlen(member), i = 0, name_at = len;
	struct bc_text out;
	char *res;

	if (strpbrk(decl, "(){}"))
		return NULL;
	/* the declarator's name: the last identifier that is member */
	for (i = 0; i < len; ) {
		if (bc_is_ident_start(decl[i]) && (!i || !bc_is_ident_char(decl[i - 1]))) {
			size_t n = 1;

			while (bc_is_ident_char(decl[i + n]))
				n++;
			if (n == mlen && !strncmp(decl + i, member, n))
				name_at = i;
			i += n;
			continue;
		}
		i++;
	}
	if (name_at == len)
		return NULL;
	bc_text_init(&out);
	for (i = 0; i < len; ) {
		const char *word = NULL, *pre = "";
		size_t n = 0;

		if (i == name_at) {
			i += mlen;
			continue;
		}
		if (bc_is_ident_char(decl[i])) {
			word = decl + i;
			while (bc_is_ident_char(decl[i + n]))
				n++;
			i += n;
		} else if (decl[i] == '*') {
			word = "p", n = 1, i++;
		} else if (decl[i] == '[' || decl[i] == ':') {
			pre = decl[i] == '[' ? "a" : "b";
			word = decl + ++i;
			while (isdigit((unsigned char)decl[i + n]))
				n++;
			i += n;
		} else {
			i++;	/* blanks and ']' */
			continue;
		}
		bc_text_printf(&out, "%s%s%.*s", out.len ? "_" : "",
			       pre, (int)n, word);
	}
	if (out.err) {
		*err = out.err;
		bc_text_deinit(&out);
		return NULL;
	}
	if (!out.len) {		/* a name alone: nothing to spell */
		bc_text_deinit(&out);
		return NULL;
	}
	res = bc_text_take(&out);
	if (!res)
		*err = -ENOMEM;
	return res;
}

/*
 * The TAG of a variant, from its own content alone: an enumerator's is
 * its name (base_tag()); a member's is its name, '_', and its type
 * spelled (spell_type()): "state_volatile_long_int". The hashed form,
 * name '_' and eight hex digits of the FNV-1a of the declaration, where
 * the type is not spelled or the TAG would be longer than
 * SPELLED_TAG_MAX (libbpf and the kernel take long names, but a reader
 * does not).
 */
static char *variant_tag(const struct variant *v, bool hashed, int *err)
{
	char *name = base_tag(v->member), *type = NULL, *tag = NULL;

	if (!name) {
		*err = -ENOMEM;
		return NULL;
	}
	if (v->kind == BTF_KIND_ENUM)
		return name;
	if (!hashed)
		type = spell_type(v->decl, v->member, err);
	if (*err)
		goto out;
	if (type && asprintf(&tag, "%s_%s", name, type) < 0)
		tag = NULL, *err = -ENOMEM;
	if (tag)
		cut_underscores(tag);
	if (!*err && (!tag || strlen(tag) > SPELLED_TAG_MAX)) {
		free(tag);
		if (asprintf(&tag, "%s_%08x", name, fnv32(v->decl)) < 0)
			tag = NULL, *err = -ENOMEM;
	}
out:
	free(name);
	free(type);
	return tag;
}

static int cmp_variant_group(const void *pa, const void *pb)
{
	const struct variant *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	c = strcmp(a->type_name, b->type_name);
	if (c)
		return c;
	c = strcmp(a->tag, b->tag);
	if (c)
		return c;
	c = strcmp(a->decl, b->decl);
	return c ? c : strcmp(a->member, b->member);
}

static bool same_flavor(const struct variant *a, const struct variant *b)
{
	return a->kind == b->kind && !strcmp(a->type_name, b->type_name) &&
	       !strcmp(a->tag, b->tag);
}

/*
 * Names every variant NAME___TAG (DESIGN.md, "The header of many
 * kernels"), TAG a function of the variant alone (variant_tag()), so
 * that adding or removing kernels never renames a flavor: a flavor is
 * there while some kernel of the set has its declaration, under the same
 * name. Two variants of one NAME whose TAGs still agree (declarations
 * that spell alike, differing only in where underscores split words;
 * none in Debian's 118 and 6.18) both take the hashed form.
 */
static int name_variants(struct synth *y)
{
	uint32_t i, j;
	int err = 0;

	for (i = 0; i < y->nr_variants; i++) {
		y->variants[i].tag = variant_tag(&y->variants[i], false, &err);
		if (!y->variants[i].tag)
			return err ? err : -ENOMEM;
	}
	if (y->nr_variants)
		qsort(y->variants, y->nr_variants, sizeof(*y->variants),
		      cmp_variant_group);
	for (i = 0; i < y->nr_variants; i = j) {
		for (j = i + 1; j < y->nr_variants &&
				same_flavor(&y->variants[i], &y->variants[j]); j++)
			;
		for (uint32_t k = i; j - i > 1 && k < j; k++) {
			char *tag = variant_tag(&y->variants[k], true, &err);

			if (!tag)
				return err ? err : -ENOMEM;
			free(y->variants[k].tag);
			y->variants[k].tag = tag;
		}
	}
	for (i = 0; i < y->nr_variants; i++) {
		struct variant *v = &y->variants[i];

		if (asprintf(&v->flavor, "%s___%s", v->type_name, v->tag) < 0) {
			v->flavor = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * The variant of enumerator member of synthetic enum sid (key
 * "e|TYPE|MEMBER"), its value the synthetic enum's: an enumerator removed
 * and back keeps its flavor (see current_variants()).
 */
static int current_enumerator(struct synth *y, const char *key, uint32_t sid,
			      const char *type_name, const char *member)
{
	const struct btf_type *st = btf__type_by_id(y->s, sid);
	size_t len = strlen(member);
	struct variant *v;
	uint32_t k, idx;
	bool fresh;
	int err = 0;

	if (!btf_is_enum(st) && !btf_is_enum64(st))
		return 0;
	for (k = 0; k < btf_vlen(st); k++) {
		const char *now = btf__name_by_offset(y->s, btf_is_enum(st) ?
			btf_enum(st)[k].name_off : btf_enum64(st)[k].name_off);

		if (!strncmp(now, member, len) && (!now[len] || !strncmp(now + len, "___", 3)))
			break;
	}
	if (k == btf_vlen(st))
		return 0;
	v = add_variant(y, key, smap_get(&y->cur_idx, key, &idx) ? y->cur_oldest[idx] : 0,
			&fresh, &err);
	if (!v || !fresh)
		return err;
	st = btf__type_by_id(y->s, sid);
	v->kind = BTF_KIND_ENUM;
	v->type_name = strdup(type_name);
	v->member = strdup(member);
	v->decl = strdup(member);
	v->enum_size = st->size;
	v->enum_signed = btf_kflag(st);
	v->value = btf_is_enum(st) ?
		(btf_kflag(st) ? (int64_t)(int32_t)btf_enum(st)[k].val :
				 (int64_t)btf_enum(st)[k].val) :
		(int64_t)btf_enum64_value(btf_enum64(st) + k);
	return v->type_name && v->member && v->decl ? 0 : -ENOMEM;
}

/*
 * A member with variants also gets one for the synthetic type's own
 * declaration, as old as the oldest kernel that declares it so: the
 * flavors of a member are then every declaration of it in the set, so a
 * kernel newer than all the others never takes a flavor away, nor its
 * name (name_variants()) from another, even when it declares the member
 * as an older kernel did.
 */
static int current_variants(struct synth *y)
{
	uint32_t i, n = y->nr_variants, dummy;
	struct smap done = { 0 };
	struct bc_text key;
	int err = 0;

	bc_text_init(&key);
	for (i = 0; !err && i < n; i++) {
		const struct variant *v = &y->variants[i];
		char tag = v->kind == BTF_KIND_UNION ? 'u' : 's';
		const struct leaf *now;
		struct leaves *cur;
		struct variant *nv;
		uint32_t sid, idx, oldest = 0;
		bool fresh;

		if (v->kind == BTF_KIND_ENUM)
			continue;
		bc_text_truncate(&key, 0);
		bc_text_printf(&key, "%c|%s|%s", tag, v->type_name, v->member);
		if (key.err || smap_get(&done, bc_text_str(&key), &dummy)) {
			err = key.err;
			continue;
		}
		err = smap_put(&done, bc_text_str(&key), 1, false);
		if (smap_get(&y->cur_idx, bc_text_str(&key), &idx))
			oldest = y->cur_oldest[idx];
		if (err || !smap_get(&y->names, make_key(y, tag, v->type_name), &sid))
			continue;
		cur = synth_leaves(y, sid, &err);
		now = cur ? find_leaf(cur, v->member) : NULL;
		if (!now)
			continue;
		bc_text_printf(&key, "|%s", now->decl);
		nv = key.err ? NULL : add_variant(y, bc_text_str(&key), oldest, &fresh, &err);
		if (!nv || !fresh)
			continue;
		v = &y->variants[i];	/* add_variant may move them */
		nv->kind = v->kind;
		nv->type_name = strdup(v->type_name);
		nv->member = strdup(v->member);
		nv->decl = strdup(now->decl);
		nv->type = now->type;
		nv->bits = now->bits;
		if (!nv->type_name || !nv->member || !nv->decl)
			err = -ENOMEM;
	}
	/*
	 * A member some older kernel lacks while a kernel older still has it
	 * (removed, then back): its flavor stays once the newest has it again.
	 */
	for (i = 0; !err && i < y->absent.cap; i++) {
		const char *k = y->absent.keys[i], *type_name, *member;
		uint32_t youngest_lacking, idx, sid, having = 0;
		const struct leaf *now;
		struct leaves *cur;
		struct variant *nv;
		char *copy, tag;
		bool fresh;

		if (!k || smap_get(&done, k, &idx))
			continue;
		youngest_lacking = y->absent.vals[i];
		if (smap_get(&y->cur_idx, k, &idx))
			having = y->cur_oldest[idx];
		copy = strdup(k);
		if (!copy) {
			err = -ENOMEM;
			break;
		}
		tag = copy[0];
		type_name = copy + 2;
		member = strchr(type_name, '|');
		*(char *)member++ = 0;
		/* (members with other declarations were done above) */
		if (having <= youngest_lacking ||
		    !smap_get(&y->names, make_key(y, tag, type_name), &sid)) {
			free(copy);
			continue;
		}
		if (tag == 'e') {
			err = current_enumerator(y, k, sid, type_name, member);
			free(copy);
			continue;
		}
		cur = synth_leaves(y, sid, &err);
		now = cur ? find_leaf(cur, member) : NULL;
		bc_text_truncate(&key, 0);
		bc_text_printf(&key, "%s|%s", k, now ? now->decl : "");
		nv = !now || key.err ? NULL :
		     add_variant(y, bc_text_str(&key),
				 smap_get(&y->cur_idx, k, &idx) ? y->cur_oldest[idx] : 0,
				 &fresh, &err);
		if (nv && fresh) {
			nv->kind = tag == 'u' ? BTF_KIND_UNION : BTF_KIND_STRUCT;
			nv->type_name = strdup(type_name);
			nv->member = strdup(member);
			nv->decl = strdup(now->decl);
			nv->type = now->type;
			nv->bits = now->bits;
			if (!nv->type_name || !nv->member || !nv->decl)
				err = -ENOMEM;
		}
		free(copy);
	}
	smap_free(&done);
	bc_text_deinit(&key);
	return err;
}

/* Adds the flavor of every variant (unless its name is taken). */
static int add_flavors(struct synth *y)
{
	uint32_t i, taken;
	int err = current_variants(y);

	if (!err)
		err = name_variants(y);

	for (i = 0; !err && i < y->nr_variants; i++) {
		const struct variant *v = &y->variants[i];
		char *enumerator;
		int id, size;

		if (smap_get(&y->names, make_key(y, 'T', v->flavor), &taken))
			continue;
		if (v->kind != BTF_KIND_ENUM) {
			size = sized(y->s, v->type) ? -1 :
			       btf__resolve_size(y->s, v->type);
			if (size < 0) {
				bc_log_printf(y->log, BC_LOG_DEBUG,
					      "%s: no size for its member, no flavor",
					      v->flavor);
				continue;
			}
			id = v->kind == BTF_KIND_UNION ?
				btf__add_union(y->s, v->flavor, size) :
				btf__add_struct(y->s, v->flavor, size);
			if (id > 0)
				err = btf__add_field(y->s, v->member, v->type, 0,
						     v->bits);
			else
				err = id;
			if (!err)
				err = note_type(y, id);
			continue;
		}
		if (asprintf(&enumerator, "%s___%s", v->member, v->type_name) < 0)
			return -ENOMEM;
		if (v->enum_size <= 4 && v->value >= INT32_MIN &&
		    v->value <= (v->enum_signed ? INT32_MAX : (int64_t)UINT32_MAX)) {
			id = btf__add_enum(y->s, v->flavor, v->enum_size);
			if (id > 0)
				err = btf__add_enum_value(y->s, enumerator, v->value);
		} else {
			id = btf__add_enum64(y->s, v->flavor, v->enum_size,
					     v->enum_signed);
			if (id > 0)
				err = btf__add_enum64_value(y->s, enumerator,
							    (uint64_t)v->value);
		}
		free(enumerator);
		if (id < 0)
			err = id;
		if (!err)
			err = note_type(y, id);
	}
	return err;
}

/*
 * A struct or union copied from an older kernel holds types of the
 * synthetic BTF, which may be larger than that kernel's: its size grows
 * to hold its last member (C has it so: the header is for CO-RE, which
 * takes offsets from the running kernel).
 */
static void fit_copied_sizes(struct synth *y)
{
	uint32_t id, n = btf__type_cnt(y->s);

	for (id = y->nr_newest; id < n; id++) {
		struct btf_type *t = (struct btf_type *)btf__type_by_id(y->s, id);
		uint64_t end = 0;
		uint32_t j;
		int align;

		if (!btf_is_composite(t))
			continue;
		for (j = 0; j < btf_vlen(t); j++) {
			uint32_t bits = btf_member_bitfield_size(t, j);
			uint32_t mtype = btf_members(t)[j].type;
			int size = sized(y->s, mtype) ? -1 : btf__resolve_size(y->s, mtype);
			uint64_t at = btf_member_bit_offset(t, j);

			if (!bits && size > 0)
				bits = 8 * size;
			if (at + bits > end)
				end = at + bits;
		}
		if (end <= 8 * (uint64_t)t->size)
			continue;
		align = btf__align_of(y->s, id);
		if (align <= 0)
			align = 1;
		t = (struct btf_type *)btf__type_by_id(y->s, id);
		t->size = ((end + 7) / 8 + align - 1) / align * align;
	}
}

static void synth_deinit(struct synth *y)
{
	uint32_t i;

	for (i = 0; i < y->nr_variants; i++) {
		free(y->variants[i].type_name);
		free(y->variants[i].member);
		free(y->variants[i].decl);
		free(y->variants[i].tag);
		free(y->variants[i].flavor);
	}
	free(y->variants);
	free(y->sigs);
	free(y->touched);
	free(y->cur_oldest);
	smap_free(&y->cur_idx);
	smap_free(&y->absent);
	for (i = 0; i < y->nr_s_leaves; i++)
		leaves_free(y->s_leaves[i]);
	free(y->s_leaves);
	smap_free(&y->names);
	smap_free(&y->idents);
	smap_free(&y->variant_idx);
	smap_free(&y->kfunc_count);
	bc_text_deinit(&y->key);
	btf__free(y->s);
}

/* Checks that kernel k's BTF is of the architecture its name says (frees it if not). */
static int check_arch(const struct hdr_kernel *k, struct btf **btf,
		      const struct bc_log *log)
{
	int arch = arch_of_btf(*btf);

	if (arch >= 0 && arch != k->arch) {
		btf__free(*btf);
		*btf = NULL;
		return bc_log_error(log, -EINVAL,
			"%s: its name (%s) says %s, its BTF (struct pt_regs) says %s",
			k->label, k->name, bc_header_arch_name(k->arch),
			bc_header_arch_name(arch));
	}
	return 0;
}

/* Reads kernel k and checks that its BTF is of the architecture its name says. */
static int load_checked(const struct hdr_kernel *k, struct btf **btf,
			const struct bc_log *log)
{
	int err = load_kernel(k, btf, log);

	return err ? err : check_arch(k, btf, log);
}

/* kpart's stop: a named type copy_type() would map by name, not copy. */
static bool mapped_by_name(void *ctx, const struct btf_type *t, const char *name)
{
	return name_tag(t) && find_named(ctx, t, name);
}

static int push_id(uint32_t **v, uint32_t *nr, uint32_t *cap, uint32_t id)
{
	if (*nr == *cap) {
		uint32_t n = *cap ? 2 * *cap : 1024;
		uint32_t *grown = realloc(*v, n * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		*v = grown;
		*cap = n;
	}
	(*v)[(*nr)++] = id;
	return 0;
}

/*
 * merge_older() on an archive's kernel, through its view: only the part
 * of the kernel merge_older() acts on is built (kpart.h), not its 110k
 * types. The same result, type for type, as merge_older() on the whole
 * kernel:
 *
 *  - the named structs, unions, enums and typedefs whose signature (the
 *    record's number, from the view: the same as on the whole kernel)
 *    was seen already are marked as seen here (touch_again()) and
 *    skipped, as merge_older() does: those marks only raise "oldest"
 *    values (a maximum), so their order among the other steps does not
 *    matter;
 *  - the others, the kfunc tags (add_kfuncs() walks every "bpf_kfunc"
 *    and "bpf_fastcall" DECL_TAG) and struct pt_regs (check_arch()) are
 *    the part's seeds, whole, with everything they reach: what copy_type()
 *    copies, flatten() looks through and cdecl spells. Past a named type
 *    that the synthetic BTF has already (mapped_by_name(): copy_type()
 *    maps it by name and goes no further, cdecl spells it by name), its
 *    references are not read. The synthetic BTF only grows during the
 *    merge, so a type mapped when the part is built is mapped when
 *    copy_type() meets it, to the same synthetic type (find_named()
 *    depends on the synthetic BTF and the type's kind and name alone);
 *  - the part keeps the kernel's id order, so merge_older() walks the
 *    seeds in the order it walks them in the whole kernel, and copies
 *    happen in the same order, giving the same synthetic ids.
 *
 * tests/test_header.c (case view) compares both ways on the test
 * kernels' archive; BENCH.md has the bcc tools' headers byte for byte.
 */
static int merge_older_view(struct synth *y, const struct hdr_kernel *k,
			    const struct bc_archive_view *view, uint64_t seed,
			    uint32_t order, const struct bc_log *log)
{
	uint32_t id, n = bc_archive_view_nr_types(view), kind;
	uint32_t *seeds = NULL, nr = 0, cap = 0, *orig = NULL;
	struct btf *part = NULL;
	int err = 0;

	for (id = 1; !err && id <= n; id++) {
		const char *name = bc_archive_view_name(view, id, &kind);
		const struct sig_entry *e;

		if (!name || !*name)
			continue;
		switch (kind) {
		case BTF_KIND_STRUCT:
			if (!strcmp(name, "pt_regs")) {
				err = push_id(&seeds, &nr, &cap, id);
				break;
			}
			/* fall through */
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_TYPEDEF:
			e = sig_peek(y, mix(seed, bc_archive_view_record(view, id)) | 1);
			if (e)
				touch_again(y, e->start, e->count, order);
			else
				err = push_id(&seeds, &nr, &cap, id);
			break;
		case BTF_KIND_DECL_TAG:
			if (!strcmp(name, "bpf_kfunc") || !strcmp(name, "bpf_fastcall"))
				err = push_id(&seeds, &nr, &cap, id);
			break;
		default:
			break;
		}
	}
	if (err) {
		free(seeds);
		return bc_log_error(log, err, "out of memory");
	}
	err = bc_kpart_btf(view, seeds, nr, mapped_by_name, y, k->label,
			   &part, &orig, log);
	free(seeds);
	if (!err)
		err = check_arch(k, &part, log);
	if (!err)
		err = merge_older(y, part, view, seed, orig, k->label, order);
	btf__free(part);
	free(orig);
	return err;
}

static int cmp_str_ptr(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* Whether the tags struct, union, enum and FWD share a name space in C. */
static bool is_tag_type(uint32_t kind)
{
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION ||
	       kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64 ||
	       kind == BTF_KIND_FWD;
}

/*
 * Whether a struct, union, enum or FWD of btf is named NAME___X with NAME
 * not in flavored (a type whose flavor could be its twin was maybe not
 * compared).
 */
static bool twin_unflavored(const struct btf *btf, const struct smap *flavored)
{
	uint32_t i, n = btf__type_cnt(btf), dummy;

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *name = btf__name_by_offset(btf, t->name_off), *at;

		if (!is_tag_type(btf_kind(t)))
			continue;
		for (at = strstr(name, "___"); at; at = strstr(at + 1, "___")) {
			char *prefix = strndup(name, at - name);
			bool known = prefix && smap_get(flavored, prefix, &dummy);

			free(prefix);
			if (!known)
				return true;
		}
	}
	return false;
}

/*
 * write_arch() with the types it compares limited to flavored's, or
 * every type (NULL); -EAGAIN (nothing said) when a limit cannot hold.
 */
static int write_arch_once(struct hdr_kernel **kernels, uint32_t nr,
			   const struct bc_header_opts *opts,
			   const struct smap *flavored, struct bc_text *out,
			   const struct bc_log *log)
{
	struct synth y = { .log = log, .flavored = flavored };
	struct btf *newest = NULL, *cut = NULL;
	const struct btf *final;
	struct bc_btf *parsed = NULL;
	struct bc_dump_c_opts dopts = { 0 };
	const char **strong = NULL;
	const void *raw;
	uint32_t i, size, nr_strong = 0;
	int err;

	bc_text_init(&y.key);
	err = load_checked(kernels[0], &newest, log);
	if (err)
		goto out;
	y.s = newest;	/* libbpf's parse of it, now the synthetic BTF */
	newest = NULL;
	y.nr_newest = btf__type_cnt(y.s);
	/* about two names a type and an identifier every other (enumerators) */
	if (smap_reserve(&y.names, 2 * y.nr_newest) ||
	    smap_reserve(&y.idents, y.nr_newest)) {
		err = bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 1; !err && i < y.nr_newest; i++)
		err = note_type(&y, i);
	if (!err) {
		struct copy_src self = { .btf = y.s };

		err = add_kfuncs(&y, &self, false);
	}
	for (i = 1; !err && i < nr; i++) {
		struct btf *old;

		struct bc_archive_view *view = NULL;
		uint64_t seed = 0;

		if (kernels[i]->ar && !opts->whole_kernels &&
		    !bc_archive_kernel_stored_as_bytes(kernels[i]->ar, kernels[i]->idx) &&
		    !bc_archive_view_open(kernels[i]->ar, kernels[i]->idx, &view, log)) {
			seed = mix_str(0x5ca1ab1e, kernels[i]->ar_path);
			err = merge_older_view(&y, kernels[i], view, seed, i, log);
			bc_archive_view_free(view);
			if (err)
				goto out;
			continue;
		}
		err = load_checked(kernels[i], &old, log);
		if (err)
			goto out;
		err = merge_older(&y, old, NULL, 0, NULL, kernels[i]->label, i);
		btf__free(old);
	}
	if (!err && y.skipped && twin_unflavored(y.s, flavored))
		err = -EAGAIN;	/* a type some flavor left out could twin */
	if (!err)
		err = add_flavors(&y);
	if (err)
		goto out;
	fit_copied_sizes(&y);
	final = y.s;
	if (opts->slim) {
		err = opts->slim(y.s, opts->slim_req, &cut, log);
		if (err)
			goto out;
		final = cut;
	}
	strong = calloc(y.kfunc_count.nr + 1, sizeof(*strong));
	if (!strong) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < y.kfunc_count.cap; i++) {
		if (y.kfunc_count.keys[i] && y.kfunc_count.vals[i] == nr)
			strong[nr_strong++] = y.kfunc_count.keys[i];
	}
	qsort(strong, nr_strong, sizeof(*strong), cmp_str_ptr);
	dopts.strong_kfuncs = strong;
	dopts.nr_strong_kfuncs = nr_strong;
	raw = btf__raw_data(final, &size);
	if (!raw) {
		err = -ENOMEM;
		goto out;
	}
	err = bc_btf_parse(raw, size, NULL, kernels[0]->label, log, &parsed);
	if (!err)
		err = bc_dump_c_with(parsed, final, &dopts, out, log);
out:
	if (err == -ENOMEM)
		bc_log_error(log, err, "out of memory");
	free(strong);
	bc_btf_free(parsed);
	btf__free(cut);
	btf__free(newest);
	synth_deinit(&y);
	return err;
}

static int add_flavored(void *ctx, const char *name)
{
	struct smap *set = ctx;
	const char *at;
	int err = 0;

	for (at = strstr(name, "___"); !err && at; at = strstr(at + 1, "___")) {
		char *prefix = strndup(name, at - name);

		err = prefix ? smap_put(set, prefix, 1, false) : -ENOMEM;
		free(prefix);
		if (!err)
			err = smap_put(set, at + 3, 1, false);
	}
	return err;
}

/*
 * The header text of one architecture: kernels[0] the newest, the rest
 * older in order.
 *
 * --for (opts->slim_names): the slim cut keeps a flavor NAME___TAG (a
 * struct, union or enum ENUMERATOR___NAME) only when the program names
 * it: a seed of the selection by name or enumerator, since no type
 * refers to a flavor. So only the types whose names the program can
 * name flavors of are compared: the prefixes and suffixes around each
 * "___" of the program's names (flavored). A comparison left out loses
 * that type's variants, so its flavors, and the copies its new member
 * declarations would make, which copies_nothing_named() limits to
 * anonymous types referenced by those flavors only (else the type is
 * compared anyway). Everything else of the synthetic BTF is as without
 * --for, the types keep their order, so the selection keeps the same
 * types and the cut is the same BTF. One more way a flavor is kept: a
 * struct, union, enum or FWD of its very name that the selection keeps
 * (slim keeps types of one name together): a kernel type NAME___X
 * (nf_conn___init) makes NAME flavored, from the archives' name tables;
 * a kernel read from a file that has one the archives did not name has
 * the architecture synthesized again, comparing everything. Checked byte
 * for byte against comparing everything: BENCH.md, header.
 */
static int write_arch(struct hdr_kernel **kernels, uint32_t nr,
		      const struct bc_header_opts *opts, struct bc_text *out,
		      const struct bc_log *log)
{
	struct smap flavored = { 0 };
	size_t len = out->len;
	uint32_t i, j, k;
	int err;

	if (!opts->slim || !opts->slim_names)
		return write_arch_once(kernels, nr, opts, NULL, out, log);
	err = opts->slim_names(opts->slim_req, add_flavored, &flavored);
	/* the NAME of a struct, union, enum or FWD NAME___X of any kernel */
	for (i = 0; !err && i < nr; i++) {
		for (j = 0; j < i && kernels[j]->ar != kernels[i]->ar; j++)
			;
		if (!kernels[i]->ar || j < i)
			continue;
		for (k = 0; !err && k < bc_archive_nr_type_names(kernels[i]->ar); k++) {
			uint32_t kind;
			const char *name = bc_archive_type_name(kernels[i]->ar, k, &kind);

			if (is_tag_type(kind) && strstr(name, "___"))
				err = add_flavored(&flavored, name);
		}
	}
	if (err) {
		smap_free(&flavored);
		return bc_log_error(log, err, "out of memory");
	}
	err = write_arch_once(kernels, nr, opts, &flavored, out, log);
	smap_free(&flavored);
	if (err != -EAGAIN)
		return err;
	bc_text_truncate(out, len);
	bc_log_printf(log, BC_LOG_DEBUG, "%s: a type name has ___: every type compared",
		      kernels[0]->label);
	return write_arch_once(kernels, nr, opts, NULL, out, log);
}

/*
 * The architectures are written on threads of their own (two cores: the
 * time of the larger one). An archive is read by one thread at a time, so
 * each thread but the first reads its kernels through archives of its own,
 * opened again; messages are held and given in architecture order.
 */
struct held_msg {
	enum bc_log_level level;
	char *msg;
};

struct arch_job {
	struct hdr_kernel **kernels;
	uint32_t nr;
	const struct bc_header_opts *opts;
	struct bc_text *text;
	bool own_archives;		/* reopen the archives */
	struct held_msg *msgs;
	uint32_t nr_msgs;
	int err;
};

static void hold_msg(void *ctx, enum bc_log_level level, const char *msg)
{
	struct arch_job *job = ctx;
	struct held_msg *grown = realloc(job->msgs, (job->nr_msgs + 1) * sizeof(*grown));

	if (!grown)
		return;
	job->msgs = grown;
	job->msgs[job->nr_msgs].level = level;
	job->msgs[job->nr_msgs].msg = strdup(msg);
	if (job->msgs[job->nr_msgs].msg)
		job->nr_msgs++;
}

static void *run_arch_job(void *arg)
{
	struct arch_job *job = arg;
	struct bc_log log = { .fn = hold_msg, .ctx = job };
	struct hdr_kernel *copies = NULL, **kernels = job->kernels;
	struct bc_archive **opened = NULL;
	uint32_t i, j, nr_opened = 0;

	if (job->own_archives) {
		copies = calloc(job->nr, sizeof(*copies));
		kernels = calloc(job->nr, sizeof(*kernels));
		opened = calloc(job->nr, sizeof(*opened));
		if (!copies || !kernels || !opened) {
			job->err = bc_log_error(&log, -ENOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < job->nr && !job->err; i++) {
			copies[i] = *job->kernels[i];
			kernels[i] = &copies[i];
			if (!copies[i].ar)
				continue;
			/* the archive opened again for this thread, once per original */
			for (j = 0; j < i; j++) {
				if (job->kernels[j]->ar == job->kernels[i]->ar) {
					copies[i].ar = copies[j].ar;
					break;
				}
			}
			if (j < i)
				continue;
			job->err = bc_archive_open(copies[i].ar_path, &copies[i].ar, &log);
			if (!job->err)
				opened[nr_opened++] = copies[i].ar;
		}
	}
	if (!job->err)
		job->err = write_arch(kernels, job->nr, job->opts, job->text, &log);
out:
	for (i = 0; i < nr_opened; i++)
		bc_archive_free(opened[i]);
	free(opened);
	free(copies);
	if (kernels != job->kernels)
		free(kernels);
	return NULL;
}

/* ---- merging the architectures' texts ---- */

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
						   fnv64(text + start, core) };
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
						   fnv64(text + start, len - start) };
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
static int merge_texts(const struct bc_text *x86, const struct bc_text *arm,
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
				       arch_names[BC_HEADER_X86]);
			put_units(a.v, sa, ia, out, &blank);
		}
		if (ib > sb) {
			bc_text_printf(out, "#%s defined(__TARGET_ARCH_%s)\n",
				       ia > sa ? "elif" : "if",
				       arch_names[BC_HEADER_ARM64]);
			put_units(b.v, sb, ib, out, &blank);
		}
		bc_text_puts(out, blank ? "#endif\n\n" : "#endif\n");
	}
	free(a.v);
	free(b.v);
	free(s.v);
	return err ? err : out->err;
}

/* ---- the comment naming the kernels ---- */

struct name_parts {
	const char *name;
	char *prefix;		/* the version up to its number */
	long num;		/* -1: no number */
	const char *suffix;	/* from the number's end to the flavor */
	const char *flavor;
	size_t suffix_len;
};

/*
 * Splits a name as 6.12.{117}+deb12-{cloud-amd64}: the number is the last
 * run of digits before any '+' of the version.
 */
static int name_split(const char *name, struct name_parts *p)
{
	const char *flavor = bc_archive_name_flavor(name);
	size_t vlen = flavor - name, plus, end;

	if (vlen && *flavor && name[vlen - 1] == '-')
		vlen--;
	plus = strcspn(name, "+");
	if (plus > vlen)
		plus = vlen;
	end = plus;
	while (end > 0 && isdigit((unsigned char)name[end - 1]))
		end--;
	p->name = name;
	p->flavor = flavor;
	p->num = end < plus && plus - end < 9 ? strtol(name + end, NULL, 10) : -1;
	p->prefix = strndup(name, p->num < 0 ? vlen : end);
	p->suffix = name + plus;
	p->suffix_len = vlen - plus;
	return p->prefix ? 0 : -ENOMEM;
}

static bool same_series(const struct name_parts *a, const struct name_parts *b)
{
	return a->num >= 0 && b->num >= 0 && !strcmp(a->prefix, b->prefix) &&
	       a->suffix_len == b->suffix_len &&
	       !strncmp(a->suffix, b->suffix, a->suffix_len) &&
	       !strcmp(a->flavor, b->flavor);
}

static int cmp_name_ptr(const void *pa, const void *pb)
{
	return bc_archive_name_cmp(*(const char *const *)pa,
				   *(const char *const *)pb);
}

/*
 * One line per series of kernel names (one flavor, one version but for
 * its last number): 6.1.0-{44..56}-amd64, 6.12.{100..101,107}+deb12-arm64.
 */
static int put_kernel_names(const char **names, uint32_t nr,
			    struct bc_text *out)
{
	struct name_parts *p = calloc(nr + 1, sizeof(*p));
	uint32_t i, j, k;
	int err = 0;

	if (!p)
		return -ENOMEM;
	qsort(names, nr, sizeof(*names), cmp_name_ptr);
	for (i = 0; !err && i < nr; i++)
		err = name_split(names[i], &p[i]);
	for (i = 0; !err && i < nr; i = j) {
		for (j = i + 1; j < nr && same_series(&p[i], &p[j]); j++)
			;
		if (j == i + 1) {
			bc_text_printf(out, " *     %s\n", names[i]);
			continue;
		}
		bc_text_printf(out, " *     %s{", p[i].prefix);
		for (k = i; k < j;) {
			uint32_t e = k;

			while (e + 1 < j && p[e + 1].num == p[e].num + 1)
				e++;
			bc_text_printf(out, "%s%ld", k > i ? "," : "", p[k].num);
			if (e > k)
				bc_text_printf(out, "..%ld", p[e].num);
			k = e + 1;
		}
		bc_text_printf(out, "}%.*s%s%s\n", (int)p[i].suffix_len, p[i].suffix,
			       *p[i].flavor ? "-" : "", p[i].flavor);
	}
	for (i = 0; i < nr; i++)
		free(p[i].prefix);
	free(p);
	return err ? err : out->err;
}

/* ---- the command's library entry ---- */

static int cmp_kernel_name(const void *pa, const void *pb)
{
	const struct hdr_kernel *a = *(struct hdr_kernel *const *)pa;
	const struct hdr_kernel *b = *(struct hdr_kernel *const *)pb;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->label, b->label);
}

int bc_header_write(const struct bc_header_opts *opts, struct bc_text *out,
		    const struct bc_log *log)
{
	struct hdr_set set = { 0 };
	struct hdr_kernel **all = NULL, **by_arch[BC_HEADER_NR_ARCHS] = { 0 };
	uint32_t nr_arch[BC_HEADER_NR_ARCHS] = { 0 }, i, nr = 0, a, nr_present = 0;
	struct bc_text texts[BC_HEADER_NR_ARCHS];
	struct arch_job jobs[BC_HEADER_NR_ARCHS];
	pthread_t threads[BC_HEADER_NR_ARCHS];
	bool started[BC_HEADER_NR_ARCHS] = { false };
	int err = 0;

	for (a = 0; a < BC_HEADER_NR_ARCHS; a++)
		bc_text_init(&texts[a]);
	for (i = 0; !err && i < opts->nr_kernels; i++)
		err = set_add_arg(&set, opts->kernels[i], log);
	if (err)
		goto out;
	if (opts->nr_modules) {
		set.mods.globs = opts->modules;
		set.mods.nr = opts->nr_modules;
		set.mods.hits = calloc(opts->nr_modules, 1);
		if (!set.mods.hits) {
			err = bc_log_error(log, -ENOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < set.nr; i++)
			set.k[i].mods = &set.mods;
		for (i = 0; i < set.nr_archives; i++)
			bc_log_printf(log, BC_LOG_WARN,
				      "%s: an archive holds no modules (yet): --module adds nothing to its kernels",
				      set.archive_paths[i]);
	}
	if (!set.nr) {
		err = bc_log_error(log, -EINVAL, "no kernel given (--kernel K)");
		goto out;
	}
	all = calloc(set.nr, sizeof(*all));
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++)
		by_arch[a] = calloc(set.nr, sizeof(*by_arch[a]));
	if (!all || !by_arch[0] || !by_arch[1]) {
		err = bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < set.nr; i++)
		all[i] = &set.k[i];
	qsort(all, set.nr, sizeof(*all), cmp_kernel_name);
	/* one kernel per name: the first by label (an archive and a file of it) */
	for (i = 0; i < set.nr; i++) {
		struct hdr_kernel *k = all[i];
		char *version;

		if (nr && !strcmp(all[nr - 1]->name, k->name))
			continue;
		version = version_of(k->name);
		if (!version || !*version || !isdigit((unsigned char)*version)) {
			free(version);
			err = bc_log_error(log, -EINVAL,
				"%s: the kernel name '%s' has no version to order it by (name the file VERSION-FLAVOR.btf, e.g. 6.12.117-amd64.btf)",
				k->label, k->name);
			goto out;
		}
		free(version);
		k->arch = arch_of_name(k->name);
		if (k->arch < 0) {
			struct btf *btf;

			err = load_kernel(k, &btf, log);
			if (err)
				goto out;
			k->arch = arch_of_btf(btf);
			btf__free(btf);
			if (k->arch < 0) {
				err = bc_log_error(log, -EINVAL,
					"%s: cannot tell its architecture: neither its name (%s) nor its struct pt_regs is x86's or arm64's",
					k->label, k->name);
				goto out;
			}
		}
		all[nr++] = k;
		by_arch[k->arch][nr_arch[k->arch]++] = k;
	}
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		jobs[a] = (struct arch_job){ .kernels = by_arch[a], .nr = nr_arch[a],
					     .opts = opts, .text = &texts[a] };
		if (!nr_arch[a])
			continue;
		jobs[a].own_archives = nr_present++ > 0;
		qsort(by_arch[a], nr_arch[a], sizeof(*by_arch[a]), cmp_newest_first);
		if (jobs[a].own_archives ||
		    pthread_create(&threads[a], NULL, run_arch_job, &jobs[a]))
			run_arch_job(&jobs[a]);
		else
			started[a] = true;
	}
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		uint32_t m;

		if (started[a])
			pthread_join(threads[a], NULL);
		for (m = 0; m < jobs[a].nr_msgs; m++) {
			bc_log_printf(log, jobs[a].msgs[m].level, "%s", jobs[a].msgs[m].msg);
			free(jobs[a].msgs[m].msg);
		}
		free(jobs[a].msgs);
		if (!err)
			err = jobs[a].err;
	}
	if (err)
		goto out;
	for (i = 0; i < set.mods.nr; i++)
		if (!set.mods.hits[i]) {
			err = bc_log_error(log, -ENOENT,
					   "--module %s: no kernel of the set has such a module",
					   set.mods.globs[i]);
			goto out;
		}

	bc_text_printf(out, "/*\n * vmlinux.h of %u kernel%s, written by `btfcanon header`:\n",
		       nr, nr == 1 ? "" : "s");
	for (a = 0; !err && a < BC_HEADER_NR_ARCHS; a++) {
		const char **names;

		if (!nr_arch[a])
			continue;
		names = calloc(nr_arch[a], sizeof(*names));
		if (!names) {
			err = -ENOMEM;
			break;
		}
		for (i = 0; i < nr_arch[a]; i++)
			names[i] = by_arch[a][i]->name;
		bc_text_printf(out, " *   %s, the types of %s:\n", arch_names[a],
			       by_arch[a][0]->name);
		err = put_kernel_names(names, nr_arch[a], out);
		free(names);
	}
	if (set.mods.nr) {
		bc_text_puts(out, " *   with the types of the modules");
		for (i = 0; i < set.mods.nr; i++)
			bc_text_printf(out, "%s %s", i ? "," : "", set.mods.globs[i]);
		bc_text_puts(out, " of each kernel that has them\n");
	}
	bc_text_puts(out,
		" * What only older kernels have comes as CO-RE flavors: struct\n"
		" * NAME___MEMBER { the old member; }, enum NAME___ENUMERATOR.\n"
		" */\n");
	if (nr_present > 1) {
		bc_text_printf(out,
			"#if !defined(__TARGET_ARCH_%s) && !defined(__TARGET_ARCH_%s)\n"
			"#error \"this vmlinux.h covers %s and %s: define __TARGET_ARCH_%s or __TARGET_ARCH_%s (clang -D__TARGET_ARCH_%s)\"\n"
			"#endif\n",
			arch_names[0], arch_names[1], arch_names[0], arch_names[1],
			arch_names[0], arch_names[1], arch_names[0]);
		if (!err)
			err = merge_texts(&texts[0], &texts[1], out);
	} else {
		for (a = 0; a < BC_HEADER_NR_ARCHS; a++)
			bc_text_add(out, bc_text_str(&texts[a]), texts[a].len);
	}
	if (!err)
		err = out->err;
	if (err)
		bc_log_error(log, err, "cannot write the header: %s", strerror(-err));
out:
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		bc_text_deinit(&texts[a]);
		free(by_arch[a]);
	}
	free(all);
	set_free(&set);
	return err;
}
