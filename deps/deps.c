// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dependency check of `btfcanon deps`.
 *
 * Problem: list what a BPF object needs from a kernel and, for each of
 * several kernels, whether the kernel has it, and what happens if not.
 * Sources of truth, per dependency class:
 *	CO-RE relocation	the kernel's BTF, by libbpf's rules (core_relo.c)
 *	fentry/fexit/fmod_ret,	a FUNC of the kernel's BTF (lsm: bpf_lsm_NAME,
 *	lsm, iter		iter: bpf_iter_NAME); prototype against the
 *				first kernel's
 *	tp_btf, raw_tp,		the btf_trace_NAME typedef the kernel makes for
 *	tracepoint		every tracepoint; for syscalls/sys_enter_X and
 *				sys_exit_X, which have none, __x64_sys_X
 *	kprobe.multi		a pattern: how many function symbols match
 *	kprobe, ksyscall	the kernel ELF file's symbol table: absent,
 *				only clones (transformed), several local
 *				definitions (duplicate); with its DWARF, the
 *				inlined calls (fully, selectively inlined,
 *				inline_facts.c); with BTF alone, unknown
 *	struct_ops maps		the kernel's bpf_struct_ops_T and a struct T
 *				with every member of the object's T
 *	kfunc, ksym		a FUNC / VAR of the kernel's BTF, its type
 *				compatible (libbpf's rule) with the object's
 *	helper, map type,	an enumerator of the kernel's enum bpf_func_id,
 *	program type		bpf_map_type, bpf_prog_type
 *	kconfig			the config given with the kernel (kconfig.c)
 * Programs of "?" sections (autoload off) are checked as if enabled, and
 * that evaluation is kept behind a BC_DEP_AUTOLOAD_OFF cell: libbpf
 * neither loads nor relocates them by default (mark_autoload_off()).
 * Invariant: a status is a fact of the kernel's inputs; what they cannot
 * tell (inlining from BTF alone, kconfig values without a config) is
 * BC_DEP_UNKNOWN.
 * Cost: per kernel one index of its names (ktypes.c; a kernel of an
 * archive is read through a view instead: the records reached, decoded
 * when first asked for) and one sorted symbol table; per object and
 * kernel, work linear in its dependencies times a lookup.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../archive/archive.h"
#include "../canon/btf_kinds.h"
#include "../canon/canon.h"
#include "../header/cdecl.h"
#include "../canon/text.h"
#include "../canon/types.h"
#include "../archive/btf_file.h"
#include "../archive/kernel_set.h"
#include "../archive/package.h"
#include "core_relo.h"
#include "deps.h"
#include "inline_facts.h"

/* ---- statuses --------------------------------------------------------- */

static const struct {
	const char *name;
	enum bc_dep_consequence consequence;
} statuses[BC_DEP_NR_STATUS] = {
	[BC_DEP_OK]            = { "ok", BC_CONS_NONE },
	[BC_DEP_MISSING]       = { "missing", BC_CONS_NONE },
	[BC_DEP_NO_MATCH]      = { "no-match", BC_CONS_NONE },
	[BC_DEP_RESIZED]       = { "resized", BC_CONS_WRONG_DATA },
	[BC_DEP_POISONED]      = { "poisoned", BC_CONS_ERROR },
	[BC_DEP_AMBIGUOUS]     = { "ambiguous", BC_CONS_ERROR },
	[BC_DEP_FAILED]        = { "failed", BC_CONS_ERROR },
	[BC_DEP_ABSENT]        = { "absent", BC_CONS_ERROR },
	[BC_DEP_FULLY_INLINED] = { "fully-inlined", BC_CONS_ERROR },
	[BC_DEP_SEL_INLINED]   = { "selectively-inlined", BC_CONS_MISSED_CALLS },
	[BC_DEP_TRANSFORMED]   = { "transformed", BC_CONS_ERROR },
	[BC_DEP_DUPLICATE]     = { "duplicate", BC_CONS_MISSED_CALLS },
	[BC_DEP_PROTO_CHANGED] = { "proto-changed", BC_CONS_WRONG_DATA },
	[BC_DEP_INCOMPATIBLE]  = { "incompatible", BC_CONS_ERROR },
	[BC_DEP_UNKNOWN]       = { "unknown", BC_CONS_UNKNOWN },
	[BC_DEP_USER]          = { "user-space", BC_CONS_NONE },
	[BC_DEP_AUTOLOAD_OFF]  = { "autoload-off", BC_CONS_NONE },
};

static const char *const consequence_names[] = {
	[BC_CONS_NONE] = "none",
	[BC_CONS_ERROR] = "error",
	[BC_CONS_WRONG_DATA] = "wrong-data",
	[BC_CONS_MISSED_CALLS] = "missed-calls",
	[BC_CONS_UNKNOWN] = "unknown",
};

const char *bc_dep_status_name(enum bc_dep_status s)
{
	return statuses[s].name;
}

enum bc_dep_consequence bc_dep_status_consequence(enum bc_dep_status s)
{
	return statuses[s].consequence;
}

const char *bc_dep_consequence_name(enum bc_dep_consequence c)
{
	return consequence_names[c];
}

/* Errors first, then wrong data, missed calls, unknown, none. */
static int severity(enum bc_dep_consequence c)
{
	static const int rank[] = {
		[BC_CONS_NONE] = 0, [BC_CONS_UNKNOWN] = 1,
		[BC_CONS_MISSED_CALLS] = 2, [BC_CONS_WRONG_DATA] = 3,
		[BC_CONS_ERROR] = 4,
	};

	return rank[c];
}

enum bc_dep_consequence bc_dep_worst(const struct bc_dep *dep, uint32_t nr)
{
	enum bc_dep_consequence worst = BC_CONS_NONE, c;
	uint32_t k;

	for (k = 0; k < nr; k++) {
		c = statuses[dep->cells[k].status].consequence;
		if (severity(c) > severity(worst))
			worst = c;
	}
	return worst;
}

/* ---- kernel symbols --------------------------------------------------- */

/*
 * The function and data symbols of a kernel ELF file, sorted by name:
 * hooks look at functions, typeless ksyms at both (as in kallsyms).
 */
struct ksym {
	const char *name;
	bool local;
	bool object;		/* STT_OBJECT: data, not a function */
};

struct bc_ksyms {
	struct ksym *syms;
	size_t nr;
	bool borrowed;		/* names point into a saved file's mapping */
};

/*
 * By name, then global before local, then functions before data: a
 * total order, for saved files.
 */
static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->local != y->local)
		return (int)x->local - (int)y->local;
	return (int)x->object - (int)y->object;
}

static void ksyms_free(struct bc_ksyms *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr && !s->borrowed; i++)
		free((char *)s->syms[i].name);
	free(s->syms);
	free(s);
}

/*
 * Reads the STT_FUNC and STT_OBJECT symbols of path's .symtab; *out NULL when the file
 * is not ELF or has no symbol table (raw BTF, a stripped file).
 */
static int ksyms_load(const char *path, struct bc_ksyms **out,
		      const struct bc_log *log)
{
	struct bc_ksyms *s = NULL;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr shdr;
	Elf *elf;
	size_t i, n;
	int fd, err = 0;

	*out = NULL;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: %s", path, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB)
			break;
	if (!scn || !(data = elf_getdata(scn, NULL)) || !shdr.sh_entsize)
		goto out;
	n = shdr.sh_size / shdr.sh_entsize;
	s = calloc(1, sizeof(*s));
	if (s)
		s->syms = calloc(n ? n : 1, sizeof(*s->syms));
	if (!s || !s->syms) {
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, i, &sym) ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_OBJECT) ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, shdr.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		s->syms[s->nr].name = strdup(name);
		if (!s->syms[s->nr].name) {
			err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
			goto out;
		}
		s->syms[s->nr].local = GELF_ST_BIND(sym.st_info) == STB_LOCAL;
		s->syms[s->nr].object = GELF_ST_TYPE(sym.st_info) == STT_OBJECT;
		s->nr++;
	}
	qsort(s->syms, s->nr, sizeof(*s->syms), ksym_cmp);
	*out = s;
	s = NULL;
out:
	ksyms_free(s);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

/* First symbol whose name is >= name. */
static size_t ksyms_lower(const struct bc_ksyms *s, const char *name)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Function names that match a glob pattern (kprobe.multi). */
static size_t ksyms_matching(const struct bc_ksyms *s, const char *pattern)
{
	const char *last = NULL;
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++) {
		if (s->syms[i].object ||
		    (last && !strcmp(last, s->syms[i].name)))
			continue;
		last = s->syms[i].name;
		if (!fnmatch(pattern, last, 0))
			n++;
	}
	return n;
}

/* Whether some symbol, function or data, has the name (kallsyms). */
static bool ksyms_has(const struct bc_ksyms *s, const char *name)
{
	size_t i = ksyms_lower(s, name);

	return i < s->nr && !strcmp(s->syms[i].name, name);
}

/* The compiler's clone suffixes: name.isra.0, name.constprop.0, name.part.0. */
static bool is_clone_of(const char *sym, const char *name)
{
	static const char *const suffixes[] = { ".isra.", ".constprop.", ".part.",
						".cold", ".lto_priv." };
	size_t n = strlen(name), i;

	if (strncmp(sym, name, n) || sym[n] != '.')
		return false;
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (!strncmp(sym + n, suffixes[i], strlen(suffixes[i])))
			return true;
	return false;
}

/* ---- kernels ---------------------------------------------------------- */

/*
 * The saved kernel file (`deps --save`) is an archive (archive/archive.h)
 * of one kernel: its BTF, sorted as the archive keeps every kernel, and
 * what else deps reads of a kernel as that kernel's attachments, under
 * the archive's checksum. Each is little-endian with its lists sorted, so
 * the bytes depend on the kernel only:
 *	"symbols"	u32 n, n x (u8 flags, name NUL): flags 1 local,
 *			2 data; by name, global before local, functions
 *			before data
 *	"inlines"	u32 n, n x (name NUL): inlined functions, by name
 *	"kconfig"	its CONFIG_ lines as NAME=VALUE\n, by name
 *	"modules"	u32 n, n x (name NUL, u32 size, bytes): the modules'
 *			split BTF, by name, over
 *	"modules-base"	the kernel's BTF as the directory held it (the
 *			archive's own is sorted: other ids)
 * A kernel of any archive is read the same way (ARCHIVE:NAME); one
 * without attachments is its BTF alone.
 */
#define ATT_SYMS "symbols"
#define ATT_INLINES "inlines"
#define ATT_KCONFIG "kconfig"
#define ATT_MODULES "modules"
#define ATT_MODULES_BASE "modules-base"

static void put_u32(struct bc_text *t, uint32_t v)
{
	bc_text_add(t, (const char *)&v, 4);
}

static void put_syms(const struct bc_ksyms *s, struct bc_text *t)
{
	size_t i;

	put_u32(t, (uint32_t)s->nr);
	for (i = 0; i < s->nr; i++) {
		char bits = s->syms[i].local | s->syms[i].object << 1;

		bc_text_add(t, &bits, 1);
		bc_text_add(t, s->syms[i].name, strlen(s->syms[i].name) + 1);
	}
}

static void put_inlines(const struct bc_inline_facts *f, struct bc_text *t)
{
	const char **names;
	size_t i, n;

	names = bc_inline_facts_sorted(f, &n);
	if (!names && bc_inline_facts_count(f))
		t->err = -ENOMEM;
	put_u32(t, (uint32_t)n);
	for (i = 0; names && i < n; i++)
		bc_text_add(t, names[i], strlen(names[i]) + 1);
	free(names);
}

static void put_kconfig(const struct bc_kconfig *kc, struct bc_text *t)
{
	size_t i;

	for (i = 0; i < kc->nr; i++)
		bc_text_printf(t, "%s=%s\n", kc->entries[i].name,
			       kc->entries[i].value);
}

static void put_modules(const struct bc_deps_kernel *k, struct bc_text *t)
{
	uint32_t i;

	put_u32(t, k->nr_modules);
	for (i = 0; i < k->nr_modules; i++) {
		const struct bc_btf *m = k->modules[i].btf;

		bc_text_add(t, k->modules[i].name, strlen(k->modules[i].name) + 1);
		put_u32(t, (uint32_t)m->size);
		bc_text_add(t, (const char *)m->data, m->size);
	}
}

/* One attachment of kernel 0 of ar, made by put(). */
static int attach(struct bc_archive *ar, const char *what,
		  void (*put)(const void *, struct bc_text *), const void *arg)
{
	struct bc_text t;
	int err;

	bc_text_init(&t);
	put(arg, &t);
	err = t.err ? t.err :
	      bc_archive_set_attachment(ar, 0, what, t.len ? t.buf : "", t.len);
	bc_text_deinit(&t);
	return err;
}

static void put_syms_v(const void *a, struct bc_text *t) { put_syms(a, t); }
static void put_inlines_v(const void *a, struct bc_text *t) { put_inlines(a, t); }
static void put_kconfig_v(const void *a, struct bc_text *t) { put_kconfig(a, t); }
static void put_modules_v(const void *a, struct bc_text *t) { put_modules(a, t); }

static void put_base_v(const void *a, struct bc_text *t)
{
	const struct bc_btf *btf = a;

	bc_text_add(t, (const char *)btf->data, btf->size);
}

int bc_deps_kernel_serialize(const struct bc_deps_kernel *k, const char *name,
			     void **out, size_t *size, const struct bc_log *log)
{
	struct canon_opts copts = { .order = BC_ORDER_KIND };
	struct canon_result res = { 0 };
	const struct bc_btf *btf = k->input.btf;
	struct bc_archive *ar = NULL;
	int err;

	if (k->input.base)
		return bc_log_error(log, -EINVAL,
				    "%s: split BTF (a module) cannot be saved as a kernel",
				    k->arg);
	copts.layout = btf->layout;
	copts.nr_layout = btf->nr_layout;
	err = canon_run(btf, &copts, &res, log);
	if (!err)
		err = bc_archive_new(&ar);
	if (!err)
		err = bc_archive_add_sorted(ar, name, res.raw, res.raw_size, log);
	canon_result_deinit(&res);
	if (!err && k->syms)
		err = attach(ar, ATT_SYMS, put_syms_v, k->syms);
	if (!err && k->inlines)
		err = attach(ar, ATT_INLINES, put_inlines_v, k->inlines);
	if (!err && k->kconfig)
		err = attach(ar, ATT_KCONFIG, put_kconfig_v, k->kconfig);
	if (!err && k->nr_modules)
		err = attach(ar, ATT_MODULES, put_modules_v, k);
	/* the BTF the modules are split over: a saved kernel's own base */
	if (!err && k->nr_modules)
		err = attach(ar, ATT_MODULES_BASE, put_base_v,
			     k->modules_base ? k->modules_base : btf);
	if (!err)
		err = bc_archive_serialize_quick(ar, out, size, log);
	bc_archive_free(ar);
	if (err == -ENOMEM)
		bc_log_error(log, err, "%s: out of memory", k->arg);
	return err;
}

int bc_deps_kernel_save(const struct bc_deps_kernel *k, const char *out_path,
			const struct bc_log *log)
{
	/*
	 * NAME=FILE's name; else a saved kernel keeps its name, another is
	 * named after its file
	 */
	char *name = k->name ? strdup(k->name) :
		     k->archive ? strdup(bc_archive_kernel_name(k->archive, 0)) :
		     bc_archive_default_name(k->arg);
	void *data = NULL;
	size_t size = 0;
	int lock_fd = -1, err;

	if (!name)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", out_path);
	err = bc_deps_kernel_serialize(k, name, &data, &size, log);
	free(name);
	/* over an archive an `archive add` may be rewriting: take turns */
	if (!err && strcmp(out_path, "-"))
		err = bc_archive_lock_file(out_path, BC_ARCHIVE_WAIT_MS, false,
					   &lock_fd, log);
	if (!err)
		err = bc_file_write_atomic(out_path, data, size, log);
	if (lock_fd >= 0)
		close(lock_fd);
	free(data);
	return err;
}

/* A reader over an attachment's bytes that refuses to step past them. */
struct kfile_cursor {
	const uint8_t *p, *end;
};

static bool take_u32(struct kfile_cursor *c, uint32_t *v)
{
	if (c->end - c->p < 4)
		return false;
	memcpy(v, c->p, 4);
	c->p += 4;
	return true;
}

static const char *take_str(struct kfile_cursor *c)
{
	const uint8_t *nul = memchr(c->p, '\0', c->end - c->p);
	const char *s = (const char *)c->p;

	if (!nul)
		return NULL;
	c->p = nul + 1;
	return s;
}

/* The symbols attachment; names point into it. 0, -EINVAL, -ENOMEM. */
static int take_syms(struct kfile_cursor c, struct bc_deps_kernel *k)
{
	uint32_t n, i;

	if (!take_u32(&c, &n) || n > (size_t)(c.end - c.p) / 2)
		return -EINVAL;
	k->syms = calloc(1, sizeof(*k->syms));
	if (!k->syms || !(k->syms->syms = malloc((n ? n : 1) *
						 sizeof(*k->syms->syms))))
		return -ENOMEM;
	k->syms->borrowed = true;	/* the attachment outlives them */
	for (i = 0; i < n; i++) {
		const char *name;
		uint8_t bits;

		if (c.p == c.end)
			return -EINVAL;
		bits = *c.p++;
		name = take_str(&c);
		if (!name || bits > 3 ||
		    (i && strcmp(k->syms->syms[i - 1].name, name) > 0))
			return -EINVAL;
		k->syms->syms[i].name = name;
		k->syms->syms[i].local = bits & 1;
		k->syms->syms[i].object = bits >> 1;
		k->syms->nr++;
	}
	return c.p == c.end ? 0 : -EINVAL;
}

static int take_inlines(struct kfile_cursor c, struct bc_deps_kernel *k)
{
	uint32_t n, i;

	if (!take_u32(&c, &n) || n > (size_t)(c.end - c.p))
		return -EINVAL;
	k->inlines = bc_inline_facts_new_borrowing(n);
	if (!k->inlines)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *name = take_str(&c);

		if (!name)
			return -EINVAL;
		if (bc_inline_facts_add(k->inlines, name))
			return -ENOMEM;
	}
	return c.p == c.end ? 0 : -EINVAL;
}

static int take_modules(struct kfile_cursor c, const char *path,
			struct bc_deps_kernel *k, const struct bc_log *log)
{
	uint32_t n, i;
	int err;

	if (!take_u32(&c, &n) || n > (size_t)(c.end - c.p) / 5)
		return -EINVAL;
	k->modules = calloc(n ? n : 1, sizeof(*k->modules));
	if (!k->modules)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct bc_core_module *m = &k->modules[i];
		const char *name = take_str(&c);
		uint32_t msize;

		if (!name || !take_u32(&c, &msize) ||
		    (size_t)(c.end - c.p) < msize ||
		    (i && strcmp(k->modules[i - 1].name, name) >= 0))
			return -EINVAL;
		k->nr_modules++;	/* deinit frees what is set */
		m->name = strdup(name);
		if (!m->name || asprintf(&m->label, " in module %s", name) < 0) {
			m->label = NULL;
			return -ENOMEM;
		}
		err = bc_btf_parse(c.p, msize, k->modules_base, path, log, &m->btf);
		if (err)
			return err == -ENOMEM ? err : -EBADMSG;
		c.p += msize;
		if (bc_ktypes_init_btf(&m->types, m->btf, true))
			return -ENOMEM;
	}
	return c.p == c.end ? 0 : -EINVAL;
}

/*
 * The modules an archive keeps of kernel idx (format 5: records over the
 * kernel, archive.h "Modules"), each parsed as split BTF over the
 * kernel's sorted bytes: k->input.btf when the kernel was read whole,
 * else the bytes rebuilt once into k->modules_base (a view's ids are
 * those bytes' ids, so a module's references to the kernel read the
 * same through the view). A module that cannot be rebuilt or parsed is
 * left out with a warning naming it, as a package's bad module is.
 * Cost: the kernel's bytes rebuilt (about 10 ms per 100k types) and
 * every module's records, once per kernel read.
 */
static int load_archived_modules(struct bc_archive *ar, uint32_t idx,
				 const char *label, struct bc_deps_kernel *k,
				 const struct bc_log *log)
{
	uint32_t nr = bc_archive_nr_modules(ar, idx), i;
	struct bc_archive_kmods *km = NULL;
	const struct bc_btf *base = k->input.btf;
	void *base_raw = NULL;
	size_t base_size = 0;
	int err;

	k->has_modules = true;
	err = bc_archive_kmods_open(ar, idx, &km, base ? NULL : &base_raw,
				    &base_size, log);
	if (err)
		return err == -ENOMEM ? err : -EBADMSG;	/* said */
	if (!base) {
		err = bc_btf_parse(base_raw, base_size, NULL, label, log,
				   &k->modules_base);
		free(base_raw);
		if (err)
			goto out;
		base = k->modules_base;
	}
	k->modules = calloc(nr ? nr : 1, sizeof(*k->modules));
	if (!k->modules) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		struct bc_core_module *m = &k->modules[k->nr_modules];
		const char *name = bc_archive_module_name(ar, idx, i);
		void *raw = NULL;
		size_t size = 0;
		int e;

		e = bc_archive_kmods_module(km, i, &raw, &size, log);
		if (!e)
			e = bc_btf_parse(raw, size, base, label, log, &m->btf);
		free(raw);
		if (e == -ENOMEM) {
			err = e;
			goto out;
		}
		if (e) {
			bc_log_printf(log, BC_LOG_WARN, "%s: module %s left out",
				      label, name);
			continue;
		}
		k->nr_modules++;	/* deinit frees what is set */
		m->name = strdup(name);
		if (!m->name || asprintf(&m->label, " in module %s", name) < 0) {
			m->label = NULL;
			err = -ENOMEM;
			goto out;
		}
		if (bc_ktypes_init_btf(&m->types, m->btf, true)) {
			err = -ENOMEM;
			goto out;
		}
	}
out:
	bc_archive_kmods_free(km);
	return err == -ENOMEM || !err ? err : -EBADMSG;
}

/*
 * An archived kernel's modules, read when first needed. A kernel read
 * through a view costs the few hundred records the objects reach; its
 * modules (1,100 to 4,000 of them, 10-60 MB) would cost more than all of
 * it, and libbpf looks into them only for a name vmlinux lacks. So they
 * are read (load_archived_modules, into held) at the first such name,
 * once; the messages of a bad module come then, in the kernel's turn.
 * err keeps a failure, which views_error() reports after the checks.
 */
struct bc_deps_lazy_modules {
	struct bc_archive *ar;
	uint32_t idx;
	const char *label;
	const struct bc_log *log;
	bool done;
	int err;
	struct bc_deps_kernel held;	/* its modules and their base */
};

/* k's modules: its own, or an archived kernel's read now. */
static void kernel_modules(const struct bc_deps_kernel *k,
			   const struct bc_core_module **mods, uint32_t *nr)
{
	struct bc_deps_lazy_modules *l = k->lazy;

	*mods = k->modules;
	*nr = k->nr_modules;
	if (!l)
		return;
	if (!l->done) {
		l->done = true;
		l->err = load_archived_modules(l->ar, l->idx, l->label,
					       &l->held, l->log);
	}
	*mods = l->held.modules;
	*nr = l->err ? 0 : l->held.nr_modules;
}

static void kernel_modules_v(const void *k, const struct bc_core_module **mods,
			     uint32_t *nr)
{
	kernel_modules(k, mods, nr);
}

static bool attachment(const struct bc_archive *ar, uint32_t idx,
		       const char *what, struct kfile_cursor *c)
{
	const void *data;
	size_t size;

	if (bc_archive_attachment(ar, idx, what, &data, &size))
		return false;
	c->p = data;
	c->end = c->p + size;
	return true;
}

int bc_deps_kernel_load_archived(struct bc_archive *ar, uint32_t idx,
				 const struct bc_ktypes_flavors *flavors,
				 const char *label, struct bc_deps_kernel *k,
				 const struct bc_log *log)
{
	struct kfile_cursor c;
	int err = -EOPNOTSUPP;

	memset(k, 0, sizeof(*k));
	k->arg = label;
	k->input.path = label;
	if (flavors)
		err = bc_ktypes_init_view(&k->types, ar, idx, flavors, log);
	if (err == -EOPNOTSUPP) {
		/* whole: asked so, or a kernel kept as its bytes */
		err = bc_archive_kernel_btf(ar, idx, &k->input.btf, log);
		if (err)
			goto fail;
		err = bc_ktypes_init_btf(&k->types, k->input.btf, true);
	} else if (err) {
		goto fail;
	}
	if (!err && attachment(ar, idx, ATT_SYMS, &c))
		err = take_syms(c, k);
	if (!err && attachment(ar, idx, ATT_INLINES, &c))
		err = take_inlines(c, k);
	if (!err && attachment(ar, idx, ATT_KCONFIG, &c)) {
		err = bc_kconfig_parse((const char *)c.p, c.end - c.p, label,
				       &k->kconfig, log);
		if (err == -EINVAL)
			goto fail;	/* it said what */
	}
	if (!err && attachment(ar, idx, ATT_MODULES, &c)) {
		struct kfile_cursor base;

		if (!attachment(ar, idx, ATT_MODULES_BASE, &base))
			err = -EINVAL;
		if (!err)
			err = bc_btf_parse(base.p, base.end - base.p, NULL, label,
					   log, &k->modules_base);
		if (!err)
			err = take_modules(c, label, k, log);
		k->has_modules = true;
	} else if (!err && bc_archive_nr_modules(ar, idx) && k->types.view) {
		/* through a view: the modules when a check needs them */
		k->has_modules = true;
		k->lazy = calloc(1, sizeof(*k->lazy));
		if (!k->lazy)
			err = -ENOMEM;
		else
			*k->lazy = (struct bc_deps_lazy_modules){
				.ar = ar, .idx = idx, .label = label, .log = log };
	} else if (!err && bc_archive_nr_modules(ar, idx)) {
		err = load_archived_modules(ar, idx, label, k, log);
		if (err == -EBADMSG)
			goto fail;	/* the archive said what */
	} else if (!err && bc_archive_nr_kernels(ar) > 1) {
		k->from_archive = true;
		if (err == -EBADMSG)
			goto fail;	/* the parser said what */
	}
	if (err == -ENOMEM)
		bc_log_error(log, err, "%s: out of memory", label);
	else if (err)
		bc_log_error(log, err,
			     "%s: kernel attachments are corrupt (symbols, inlined names, config or modules)",
			     label);
	if (!err)
		return 0;
fail:
	bc_deps_kernel_deinit(k);
	return err;
}

/*
 * Reads a saved kernel file, an archive of one kernel, when path is one:
 * 1 loaded, 0 not an archive, <0 an error (said). An archive of several
 * kernels is an error naming how to pick one.
 */
static int try_saved_kernel(const char *path, struct bc_deps_kernel *k,
			    const struct bc_log *log)
{
	struct bc_archive *ar = NULL;
	int err;

	if (!bc_archive_is_archive(path))
		return 0;
	err = bc_archive_open(path, &ar, log);
	if (err)
		return err;
	if (bc_archive_nr_kernels(ar) != 1) {
		err = bc_log_error(log, -EINVAL,
				   "%s: an archive of %u kernels: give ARCHIVE:NAME, or the archive to deps --kernel",
				   path, bc_archive_nr_kernels(ar));
		bc_archive_free(ar);
		return err;
	}
	err = bc_deps_kernel_load_archived(ar, 0, NULL, path, k, log);
	if (err) {
		bc_archive_free(ar);
		return err;
	}
	k->archive = ar;	/* its attachments hold the names */
	return 1;
}

/*
 * A kernel with its modules (archive/kernel_set.h): a package, a modules
 * tree beside its kernel, or a directory of BTF as /sys/kernel/btf lays
 * it out. The modules are taken in name order (libbpf takes the running
 * kernel's in load order, which none of these tell); a bad module was
 * left out with a warning naming it. Symbols (and inlined names) come
 * from the vmlinux beside a tree when it is an ELF file.
 */
static int load_kernel_set(const char *path, bool want_inlines,
			   struct bc_deps_kernel *k, const struct bc_log *log)
{
	struct bc_kernel_set ks;
	enum bc_kset_source source;
	uint32_t i;
	int err;

	err = bc_kernel_set_read(path, NULL, &ks, log);
	if (err)
		return err;
	source = ks.source;
	k->input = ks.input;
	memset(&ks.input, 0, sizeof(ks.input));
	k->vmlinux_path = ks.vmlinux_path;
	ks.vmlinux_path = NULL;
	k->has_modules = ks.has_modules;
	err = bc_ktypes_init_btf(&k->types, k->input.btf, true);
	if (!err) {
		k->modules = calloc(ks.nr_mods ? ks.nr_mods : 1,
				    sizeof(*k->modules));
		if (!k->modules)
			err = -ENOMEM;
	}
	for (i = 0; !err && i < ks.nr_mods; i++) {
		struct bc_core_module *m = &k->modules[k->nr_modules++];

		m->name = ks.mods[i].name;
		ks.mods[i].name = NULL;
		m->btf = bc_kernel_set_take_module(&ks, i);
		if (asprintf(&m->label, " in module %s", m->name) < 0) {
			m->label = NULL;
			err = -ENOMEM;
		} else if (bc_ktypes_init_btf(&m->types, m->btf, true)) {
			err = -ENOMEM;
		}
	}
	bc_kernel_set_deinit(&ks);
	if (err)
		return bc_log_error(log, err, "%s: out of memory", path);
	if (k->vmlinux_path && source == BC_KSET_TREE) {
		err = ksyms_load(k->vmlinux_path, &k->syms, log);
		if (!err && k->syms && want_inlines)
			err = bc_inline_facts_load(k->vmlinux_path, &k->inlines,
						   log);
	}
	return err;
}

int bc_deps_kernel_parse(const void *data, size_t size, const char *path,
			 struct bc_deps_kernel *k, const struct bc_log *log)
{
	struct bc_archive *ar = NULL;
	int err;

	memset(k, 0, sizeof(*k));
	err = bc_archive_parse(data, size, path, &ar, log);
	if (err)
		return err;
	if (bc_archive_nr_kernels(ar) != 1) {
		err = bc_log_error(log, -EINVAL, "%s: an archive of %u kernels, not a saved kernel file",
				   path, bc_archive_nr_kernels(ar));
		bc_archive_free(ar);
		return err;
	}
	err = bc_deps_kernel_load_archived(ar, 0, NULL, path, k, log);
	if (err) {
		bc_archive_free(ar);
		return err;
	}
	k->archive = ar;
	return 0;
}

/* Is path a kernel package (.deb, .rpm)? */
static bool is_package(const char *path)
{
	uint8_t head[32];
	ssize_t got = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		got = pread(fd, head, sizeof(head), 0);
		close(fd);
	}
	return got > 0 && bc_package_detect(head, got);
}

int bc_deps_kernel_load(const char *path, bool want_inlines,
			struct bc_deps_kernel *k, const struct bc_log *log)
{
	struct bc_input_opts opts = { 0 };
	struct stat st;
	int err;

	memset(k, 0, sizeof(*k));
	k->arg = path;
	if ((!stat(path, &st) && S_ISDIR(st.st_mode)) || is_package(path)) {
		err = load_kernel_set(path, want_inlines, k, log);
		if (err)
			bc_deps_kernel_deinit(k);
		return err;
	}
	err = try_saved_kernel(path, k, log);
	if (err == 1)
		return 0;
	if (err)
		return err;	/* k is clean */
	err = bc_input_load(path, &opts, &k->input, log);
	if (err)
		return err;
	err = bc_ktypes_init_btf(&k->types, k->input.btf, true);
	if (err) {
		bc_log_error(log, err, "%s: out of memory", path);
		goto fail;
	}
	err = ksyms_load(path, &k->syms, log);
	if (!err && k->syms && want_inlines)
		err = bc_inline_facts_load(path, &k->inlines, log);
	if (err)
		goto fail;
	return 0;
fail:
	bc_deps_kernel_deinit(k);
	return err;
}

int bc_deps_kernel_set_kconfig(struct bc_deps_kernel *k, const char *path,
			       const struct bc_log *log)
{
	struct bc_kconfig *kc;
	int err = bc_kconfig_load(path, &kc, log);

	if (err)
		return err;
	bc_kconfig_free(k->kconfig);
	k->kconfig = kc;
	return 0;
}

void bc_deps_kernel_deinit(struct bc_deps_kernel *k)
{
	uint32_t i;

	bc_ktypes_deinit(&k->types);	/* a view: before its archive */
	bc_input_deinit(&k->input);
	ksyms_free(k->syms);
	bc_inline_facts_free(k->inlines);
	bc_kconfig_free(k->kconfig);
	for (i = 0; i < k->nr_modules; i++) {
		free(k->modules[i].name);
		free(k->modules[i].label);
		bc_ktypes_deinit(&k->modules[i].types);
		bc_btf_free(k->modules[i].btf);
	}
	free(k->modules);
	if (k->lazy)
		bc_deps_kernel_deinit(&k->lazy->held);
	free(k->lazy);
	k->lazy = NULL;
	free(k->vmlinux_path);
	bc_btf_free(k->modules_base);
	bc_archive_free(k->archive);	/* after the names in it */
	k->archive = NULL;
	k->modules_base = NULL;
	k->modules = NULL;
	k->nr_modules = 0;
	k->vmlinux_path = NULL;
	k->kconfig = NULL;
	k->syms = NULL;
	k->inlines = NULL;
}

/* ---- BTF lookups in a kernel ----------------------------------------- */

/* The first type of kind and name in a kernel, or 0. */
static uint32_t kfind(const struct bc_deps_kernel *k, uint32_t kind,
		      const char *name)
{
	return bc_ktypes_find(&k->types, kind, name);
}

/*
 * The first type of kind and name in a kernel, else in its modules in
 * order (libbpf's find_kernel_btf_id() and find_ksym_btf_id()); *types is
 * where it is. 0 when none has it.
 */
static uint32_t kfind_any(const struct bc_deps_kernel *k, uint32_t kind,
			  const char *name, const struct bc_ktypes **types)
{
	const struct bc_core_module *mods = NULL;
	uint32_t id = kfind(k, kind, name), m, nr = 0;

	*types = &k->types;
	if (!id)
		kernel_modules(k, &mods, &nr);
	for (m = 0; !id && m < nr; m++) {
		id = bc_ktypes_find(&mods[m].types, kind, name);
		if (id)
			*types = &mods[m].types;
	}
	return id;
}

/* The name of the module whose types are types, or NULL for the kernel's. */
static const char *module_of(const struct bc_deps_kernel *k,
			     const struct bc_ktypes *types)
{
	const struct bc_core_module *mods;
	uint32_t m, nr;

	if (types == &k->types)
		return NULL;	/* the modules not asked for */
	kernel_modules(k, &mods, &nr);
	for (m = 0; m < nr; m++)
		if (&mods[m].types == types)
			return mods[m].name;
	return NULL;
}

/* The first type of kind and name, or 0 (the object's small BTF). */
static uint32_t find_named(const struct bc_btf *btf, uint32_t kind,
			   const char *name)
{
	uint32_t id, end = bc_btf_end_id(btf);

	for (id = 1; id < end; id++) {
		const struct btf_type *t = bc_btf_type(btf, id);

		if (bc_type_kind(t) == kind &&
		    !strcmp(bc_btf_str(btf, t->name_off), name))
			return id;
	}
	return 0;
}

/* Enumerator name of value in enum enum_id (first match), or NULL. */
static const char *enum_name_of(const struct bc_ktypes *kt, uint32_t enum_id,
				int64_t value)
{
	const struct btf_type *t = bc_ktypes_type(kt, enum_id);
	const struct btf_enum *e = (const void *)(t + 1);
	uint32_t i;

	for (i = 0; t && i < bc_type_vlen(t); i++)
		if (e[i].val == value)
			return bc_ktypes_str(kt, e[i].name_off);
	return NULL;
}

static bool enum_has_name(const struct bc_ktypes *kt, uint32_t enum_id,
			  const char *name)
{
	const struct btf_type *t = bc_ktypes_type(kt, enum_id);
	const struct btf_enum *e = (const void *)(t + 1);
	uint32_t i;

	for (i = 0; t && i < bc_type_vlen(t); i++)
		if (!strcmp(bc_ktypes_str(kt, e[i].name_off), name))
			return true;
	return false;
}

/* ---- building the report ---------------------------------------------- */

/*
 * A report under way. Filling a column of an existing report (into), the
 * rows are shallow copies of into's, their cells pointing at that column:
 * the checks run unchanged, write the cells in place, and neither the
 * rows' strings nor the descriptions are made again.
 */
struct builder {
	struct bc_deps_report *report;
	uint32_t cap;
	uint32_t nr_kernels;
	/* the reference kernel, not in the report; NULL: kernels[0] */
	const struct bc_deps_kernel *first;
	const struct bc_deps_report *into;	/* or NULL */
	uint32_t column;			/* into's column of kernels[0] */
	int err;				/* a row unlike into's: -EINVAL */
};

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static struct bc_dep *add_dep(struct builder *b, enum bc_dep_class class,
			      const char *section, const char *kind,
			      const char *type, const char *name)
{
	struct bc_deps_report *r = b->report;
	struct bc_dep *d;

	if (r->nr_deps == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 64;
		struct bc_dep *grown = realloc(r->deps, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		r->deps = grown;
		b->cap = cap;
	}
	d = &r->deps[r->nr_deps];
	if (b->into) {
		const struct bc_dep *row = r->nr_deps < b->into->nr_deps ?
					   &b->into->deps[r->nr_deps] : NULL;

		if (!row || row->class != class || strcmp(row->kind, kind) ||
		    !same_text(row->section, section)) {
			b->err = -EINVAL;
			return NULL;
		}
		*d = *row;
		d->cells = row->cells + b->column;
		r->nr_deps++;
		return d;
	}
	memset(d, 0, sizeof(*d));
	d->class = class;
	d->id = -1;
	d->section = section ? strdup(section) : NULL;
	d->kind = strdup(kind);
	d->type = type ? strdup(type) : NULL;
	d->name = strdup(name ? name : "");
	d->cells = calloc(b->nr_kernels, sizeof(*d->cells));
	r->nr_deps++;
	if ((section && !d->section) || !d->kind || (type && !d->type) ||
	    !d->name || !d->cells)
		return NULL;
	return d;
}

static int set_detail(struct bc_dep_cell *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int set_detail(struct bc_dep_cell *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	free(c->detail);
	va_start(ap, fmt);
	n = vasprintf(&c->detail, fmt, ap);
	va_end(ap);
	if (n < 0) {
		c->detail = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * A kernel given without its modules (a bare vmlinux, a BTFHub file, an
 * image): what it lacks may be in a module, which deps could not look
 * into. Appends that to the detail of cell c, which says what vmlinux
 * lacks. Returns 0 or -ENOMEM.
 */
static int note_no_modules(const struct bc_deps_kernel *k,
			   struct bc_dep_cell *c)
{
	char *had = c->detail;
	int err;

	if (k->has_modules)
		return 0;
	c->detail = NULL;
	err = set_detail(c, "%s%snot in vmlinux; %s, so a module's could not be checked",
			 had ? had : "", had ? "; " : "",
			 k->from_archive ? "the archive holds no modules" :
			 "no modules were given with the kernel");
	free(had);
	return err;
}

/*
 * libbpf's convention: a program in a section named "?..." starts with
 * autoload off. bpf_object__load() neither loads it nor applies its CO-RE
 * relocations (they do not narrow the candidate cache either), and it
 * attaches nothing. Subprograms (.text) keep autoload on.
 */
static bool autoload_off(const char *section)
{
	return section && section[0] == '?';
}

/*
 * Makes every cell of d BC_DEP_AUTOLOAD_OFF, keeping what it held (the
 * evaluation as if the program were enabled) in its if_loaded.
 */
static int mark_autoload_off(struct bc_dep *d, uint32_t nr)
{
	uint32_t k;

	d->autoload_off = true;
	for (k = 0; k < nr; k++) {
		struct bc_dep_cell *c = &d->cells[k];
		struct bc_dep_cell *in = malloc(sizeof(*in));

		if (!in)
			return -ENOMEM;
		*in = *c;
		memset(c, 0, sizeof(*c));
		c->status = BC_DEP_AUTOLOAD_OFF;
		c->if_loaded = in;
	}
	return 0;
}

/* -- CO-RE relocations -- */

/* A relocation's cell from libbpf's outcome. */
static int relo_cell(struct bc_dep_cell *c, const struct bc_core_relo *r,
		     const struct bc_relo_result *res, const char *module)
{
	switch (res->outcome) {
	case BC_RELO_PATCHED:
		c->has_value = true;
		c->value = res->value;
		c->status = BC_DEP_OK;
		if (module && set_detail(c, "in module %s", module))
			return -ENOMEM;
		if (res->value == 0 &&
		    (r->kind == 2 || r->kind == 8 || r->kind == 10))
			c->status = BC_DEP_MISSING;
		else if (res->value == 0 && r->kind == 12)
			c->status = BC_DEP_NO_MATCH;
		else if (r->kind == 0 && !res->mem_access && !res->bitfield &&
			 !res->composite && res->local_size != res->target_size) {
			c->status = BC_DEP_RESIZED;
			return set_detail(c, "the object reads %u bytes, the kernel's field has %u",
					  res->local_size, res->target_size);
		}
		return 0;
	case BC_RELO_POISONED:
		c->status = BC_DEP_POISONED;
		break;
	case BC_RELO_AMBIGUOUS:
		c->status = BC_DEP_AMBIGUOUS;
		break;
	case BC_RELO_FAILED:
		c->status = BC_DEP_FAILED;
		break;
	}
	return set_detail(c, "%s", res->why);
}

/*
 * One kernel's pass over the object's relocations, in .BTF.ext order
 * with one candidate cache, as libbpf makes it. With all false, the
 * relocations of autoload-off programs are skipped, as by default; with
 * all true, every program is taken as enabled, and only the cells of
 * autoload-off relocations are filled (their if-loaded evaluation).
 */
static int relo_pass(struct builder *b, const struct bc_bpf_object *obj,
		     const struct bc_deps_kernel *kernel, uint32_t k,
		     uint32_t first, bool all)
{
	struct bc_core_ctx ctx;
	uint32_t s, i, n = first;
	int err;

	err = bc_core_ctx_init(&ctx, obj->btf, &kernel->types);
	ctx.get_modules = kernel_modules_v;	/* asked for when needed */
	ctx.get_modules_arg = kernel;
	for (s = 0; s < obj->nr_sections && !err; s++) {
		const struct bc_bpf_section *sec = &obj->sections[s];
		bool off = autoload_off(sec->name);

		for (i = 0; i < sec->nr_relos && !err; i++, n++) {
			const struct bc_core_relo *r = &sec->relos[i];
			uint32_t insn = r->insn_off / 8;
			struct bc_relo_result res;

			if (off && !all)
				continue;
			err = bc_core_relo_eval(&ctx, r, sec->insns + insn,
						sec->nr_insns - insn, &res);
			if (!err && (off || !all))
				err = relo_cell(&b->report->deps[n].cells[k], r, &res,
						module_of(kernel, res.target_types));
			if (!err && (off || !all) && res.no_candidates &&
			    res.outcome == BC_RELO_POISONED)
				err = note_no_modules(kernel,
						      &b->report->deps[n].cells[k]);
		}
	}
	bc_core_ctx_deinit(&ctx);
	return err;
}

static int check_relos(struct builder *b, const struct bc_bpf_object *obj,
		       const struct bc_deps_kernel *kernels)
{
	uint32_t s, i, k, first = b->report->nr_deps;
	bool any_off = false;
	int err = 0;

	for (s = 0; s < obj->nr_sections; s++) {
		const struct bc_bpf_section *sec = &obj->sections[s];

		for (i = 0; i < sec->nr_relos; i++) {
			const struct bc_core_relo *r = &sec->relos[i];
			char type[256] = "", access[512] = "";
			struct bc_dep *d;

			if (!b->into)	/* the rows' text is there already */
				bc_core_relo_describe(obj->btf, r, type, sizeof(type),
						      access, sizeof(access));
			d = add_dep(b, BC_DEP_RELO, sec->name,
				    bc_core_kind_name(r->kind), type, access);
			if (!d)
				return -ENOMEM;
			d->index = r->index;
			d->insn_off = r->insn_off;
			any_off |= autoload_off(sec->name);
		}
	}
	for (k = 0; k < b->nr_kernels && !err; k++) {
		err = relo_pass(b, obj, &kernels[k], k, first, false);
		if (!err && any_off)
			err = relo_pass(b, obj, &kernels[k], k, first, true);
	}
	for (i = first; i < b->report->nr_deps && !err; i++)
		if (autoload_off(b->report->deps[i].section))
			err = mark_autoload_off(&b->report->deps[i], b->nr_kernels);
	return err;
}

/* -- hooks -- */

enum hook_check {
	HOOK_BTF_FUNC,		/* a FUNC named prefix + target */
	HOOK_BTF_TRACE,		/* a typedef btf_trace_<event> */
	HOOK_KSYM,		/* a function symbol */
	HOOK_KSYM_GLOB,		/* function symbols matching a pattern */
	HOOK_SYSCALL,		/* __x64_sys_<target> */
	HOOK_SYSCALL_EVENT,	/* syscalls/sys_enter_X: __x64_sys_X */
	HOOK_NONE,		/* listed, nothing to look up */
	HOOK_NOT_A_ROW,		/* checked elsewhere */
	HOOK_USER,		/* user space */
};

static const struct hook_kind {
	const char *prefix;	/* of the section name, "/" included */
	const char *type;	/* as reported */
	enum hook_check check;
	const char *btf_prefix;	/* FUNC name = btf_prefix + target */
	const char *prog_type;	/* enum bpf_prog_type enumerator */
} hook_kinds[] = {
	{ "kprobe/", "kprobe", HOOK_KSYM, "", "BPF_PROG_TYPE_KPROBE" },
	{ "kretprobe/", "kretprobe", HOOK_KSYM, "", "BPF_PROG_TYPE_KPROBE" },
	{ "ksyscall/", "ksyscall", HOOK_SYSCALL, "", "BPF_PROG_TYPE_KPROBE" },
	{ "kretsyscall/", "kretsyscall", HOOK_SYSCALL, "", "BPF_PROG_TYPE_KPROBE" },
	{ "kprobe.multi/", "kprobe.multi", HOOK_KSYM_GLOB, "", "BPF_PROG_TYPE_KPROBE" },
	{ "kretprobe.multi/", "kretprobe.multi", HOOK_KSYM_GLOB, "", "BPF_PROG_TYPE_KPROBE" },
	{ "fentry/", "fentry", HOOK_BTF_FUNC, "", "BPF_PROG_TYPE_TRACING" },
	{ "fentry.s/", "fentry", HOOK_BTF_FUNC, "", "BPF_PROG_TYPE_TRACING" },
	{ "fexit/", "fexit", HOOK_BTF_FUNC, "", "BPF_PROG_TYPE_TRACING" },
	{ "fexit.s/", "fexit", HOOK_BTF_FUNC, "", "BPF_PROG_TYPE_TRACING" },
	{ "fmod_ret/", "fmod_ret", HOOK_BTF_FUNC, "", "BPF_PROG_TYPE_TRACING" },
	{ "fmod_ret.s/", "fmod_ret", HOOK_BTF_FUNC, "", "BPF_PROG_TYPE_TRACING" },
	{ "lsm/", "lsm", HOOK_BTF_FUNC, "bpf_lsm_", "BPF_PROG_TYPE_LSM" },
	{ "lsm.s/", "lsm", HOOK_BTF_FUNC, "bpf_lsm_", "BPF_PROG_TYPE_LSM" },
	{ "lsm_cgroup/", "lsm_cgroup", HOOK_BTF_FUNC, "bpf_lsm_", "BPF_PROG_TYPE_LSM" },
	{ "iter/", "iter", HOOK_BTF_FUNC, "bpf_iter_", "BPF_PROG_TYPE_TRACING" },
	{ "iter.s/", "iter", HOOK_BTF_FUNC, "bpf_iter_", "BPF_PROG_TYPE_TRACING" },
	{ "tp_btf/", "tp_btf", HOOK_BTF_TRACE, "btf_trace_", "BPF_PROG_TYPE_TRACING" },
	{ "raw_tp/", "raw_tp", HOOK_BTF_TRACE, "btf_trace_", "BPF_PROG_TYPE_RAW_TRACEPOINT" },
	{ "raw_tracepoint/", "raw_tp", HOOK_BTF_TRACE, "btf_trace_", "BPF_PROG_TYPE_RAW_TRACEPOINT" },
	{ "raw_tp.w/", "raw_tp", HOOK_BTF_TRACE, "btf_trace_", "BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE" },
	{ "tracepoint/syscalls/", "tracepoint", HOOK_SYSCALL_EVENT, "", "BPF_PROG_TYPE_TRACEPOINT" },
	{ "tp/syscalls/", "tracepoint", HOOK_SYSCALL_EVENT, "", "BPF_PROG_TYPE_TRACEPOINT" },
	{ "tracepoint/", "tracepoint", HOOK_BTF_TRACE, "btf_trace_", "BPF_PROG_TYPE_TRACEPOINT" },
	{ "tp/", "tracepoint", HOOK_BTF_TRACE, "btf_trace_", "BPF_PROG_TYPE_TRACEPOINT" },
	/* checked through their map (check_struct_ops), not one by one */
	{ "struct_ops/", "struct_ops", HOOK_NOT_A_ROW, "", "BPF_PROG_TYPE_STRUCT_OPS" },
	{ "struct_ops.s/", "struct_ops", HOOK_NOT_A_ROW, "", "BPF_PROG_TYPE_STRUCT_OPS" },
	{ "uprobe", "uprobe", HOOK_USER, "", "BPF_PROG_TYPE_KPROBE" },
	{ "uretprobe", "uretprobe", HOOK_USER, "", "BPF_PROG_TYPE_KPROBE" },
	{ "usdt", "usdt", HOOK_USER, "", "BPF_PROG_TYPE_KPROBE" },
};

/* Program types of sections that are not hooks (prefix match). */
static const struct {
	const char *prefix;
	const char *prog_type;
} other_sections[] = {
	{ "socket", "BPF_PROG_TYPE_SOCKET_FILTER" },
	{ "xdp", "BPF_PROG_TYPE_XDP" },
	{ "tc", "BPF_PROG_TYPE_SCHED_CLS" },
	{ "classifier", "BPF_PROG_TYPE_SCHED_CLS" },
	{ "action", "BPF_PROG_TYPE_SCHED_ACT" },
	{ "perf_event", "BPF_PROG_TYPE_PERF_EVENT" },
	{ "cgroup_skb/", "BPF_PROG_TYPE_CGROUP_SKB" },
	{ "cgroup/skb", "BPF_PROG_TYPE_CGROUP_SKB" },
	{ "cgroup/sock", "BPF_PROG_TYPE_CGROUP_SOCK" },
	{ "cgroup/dev", "BPF_PROG_TYPE_CGROUP_DEVICE" },
	{ "cgroup/sysctl", "BPF_PROG_TYPE_CGROUP_SYSCTL" },
	{ "cgroup/", "BPF_PROG_TYPE_CGROUP_SOCK_ADDR" },
	{ "sockops", "BPF_PROG_TYPE_SOCK_OPS" },
	{ "sk_skb", "BPF_PROG_TYPE_SK_SKB" },
	{ "sk_msg", "BPF_PROG_TYPE_SK_MSG" },
	{ "sk_lookup", "BPF_PROG_TYPE_SK_LOOKUP" },
	{ "lwt_", "BPF_PROG_TYPE_LWT_IN" },
	{ "flow_dissector", "BPF_PROG_TYPE_FLOW_DISSECTOR" },
	{ "syscall", "BPF_PROG_TYPE_SYSCALL" },
	{ "netfilter", "BPF_PROG_TYPE_NETFILTER" },
};

static const struct hook_kind *hook_kind_of(const char *section)
{
	size_t i;

	if (section[0] == '?')
		section++;	/* libbpf: not loaded unless asked, same hook */
	for (i = 0; i < sizeof(hook_kinds) / sizeof(hook_kinds[0]); i++)
		if (!strncmp(section, hook_kinds[i].prefix,
			     strlen(hook_kinds[i].prefix)))
			return &hook_kinds[i];
	return NULL;
}

/*
 * The hook kind of a section named after the kind alone ("fentry",
 * "fexit.s", "lsm", "tp_btf"): libbpf 1.1 takes these ("fentry+" in its
 * section table) and leaves the target to the loader
 * (bpf_program__set_attach_target); NULL for any other name.
 */
static const struct hook_kind *bare_hook_kind_of(const char *section)
{
	size_t i, len;

	if (section[0] == '?')
		section++;
	len = strlen(section);
	for (i = 0; i < sizeof(hook_kinds) / sizeof(hook_kinds[0]); i++) {
		const struct hook_kind *h = &hook_kinds[i];

		if ((h->check == HOOK_BTF_FUNC || !strcmp(h->prefix, "tp_btf/")) &&
		    strlen(h->prefix) == len + 1 &&
		    !strncmp(section, h->prefix, len))
			return h;
	}
	return NULL;
}

static const char *prog_type_of(const char *section)
{
	const struct hook_kind *h = hook_kind_of(section);
	size_t i;

	if (!h)
		h = bare_hook_kind_of(section);

	if (section[0] == '?')
		section++;
	if (h)
		return h->prog_type;
	for (i = 0; i < sizeof(other_sections) / sizeof(other_sections[0]); i++)
		if (!strncmp(section, other_sections[i].prefix,
			     strlen(other_sections[i].prefix)))
			return other_sections[i].prog_type;
	return NULL;
}

/* The attach target in a section name: after the prefix, before "+off". */
static char *hook_target(const struct hook_kind *h, const char *section)
{
	const char *t = section + (section[0] == '?') + strlen(h->prefix);
	size_t n;

	if (h->check == HOOK_BTF_TRACE && !strcmp(h->type, "tracepoint")) {
		const char *slash = strchr(t, '/');

		if (slash)
			t = slash + 1;	/* tracepoint/CATEGORY/EVENT */
	}
	if (*t == '/')
		t++;
	n = strcspn(t, "+");
	return strndup(t, n);
}

/* The C prototype of FUNC id (its FUNC_PROTO's parameters and return). */
struct proto {
	uint32_t nr;
	char **params;		/* "int flags" */
	char **names;		/* "flags" */
	char *ret;
	const struct bc_ktypes *kt;	/* read from: kt's FUNC func_id */
	uint32_t func_id;
};

/*
 * What the columns of a report share (bc_deps_report_widen() makes it):
 * the reference kernel's prototype of each hook row, spelled once for
 * every column instead of once per column (118 times over Debian's
 * archive). Rows depend on the object only, so a row's number is the
 * same in every column.
 */
struct helper_call;

struct bc_deps_memo {
	uint32_t nr;		/* rows */
	struct proto *ref;	/* [row] */
	bool *done;		/* [row]: ref is spelled */
	struct helper_call *calls;	/* the object's, sorted (check_helpers) */
	uint32_t nr_calls;
	bool calls_done;
};

static void proto_free(struct proto *p)
{
	uint32_t i;

	for (i = 0; i < p->nr; i++) {
		free(p->params[i]);
		free(p->names[i]);
	}
	free(p->params);
	free(p->names);
	free(p->ret);
	memset(p, 0, sizeof(*p));
}

static void memo_free(struct bc_deps_memo *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr; i++)
		proto_free(&m->ref[i]);
	free(m->ref);
	free(m->done);
	free(m->calls);
	free(m);
}

static const char *ktypes_str_of(const void *kt, uint32_t str)
{
	return bc_ktypes_str(kt, str);
}

static char *spell_type(const struct bc_ktypes *kt, uint32_t id)
{
	struct bc_cdecl c = { .type_of = bc_ktypes_type_of,
			      .str_of = ktypes_str_of, .src = kt };
	struct bc_text t;

	bc_text_init(&t);
	bc_cdecl_type(&c, id, "", &t);
	if (t.err) {
		bc_text_deinit(&t);
		return NULL;
	}
	if (!t.len) {
		/* an empty spelling may still hold a buffer */
		bc_text_deinit(&t);
		return strdup("");
	}
	return bc_text_take(&t);
}

static int proto_of(const struct bc_ktypes *kt, uint32_t func_id,
		    struct proto *p)
{
	const struct btf_type *f = bc_ktypes_type(kt, func_id);
	const struct btf_type *fp = f ? bc_ktypes_type(kt, f->type) : NULL;
	const struct btf_param *prm;
	uint32_t i;

	memset(p, 0, sizeof(*p));
	if (!fp || bc_type_kind(fp) != BTF_KIND_FUNC_PROTO)
		return 0;
	p->kt = kt;
	p->func_id = func_id;
	prm = (const void *)(fp + 1);
	p->nr = bc_type_vlen(fp);
	p->params = calloc(p->nr + 1, sizeof(*p->params));
	p->names = calloc(p->nr + 1, sizeof(*p->names));
	p->ret = spell_type(kt, fp->type);
	if (!p->params || !p->names || !p->ret)
		goto nomem;
	for (i = 0; i < p->nr; i++) {
		p->params[i] = spell_type(kt, prm[i].type);
		p->names[i] = strdup(bc_ktypes_str(kt, prm[i].name_off));
		if (!p->params[i] || !p->names[i])
			goto nomem;
	}
	return 0;
nomem:
	proto_free(p);
	return -ENOMEM;
}

static int name_index(const struct proto *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->nr; i++)
		if (*name && !strcmp(p->names[i], name))
			return (int)i;
	return -1;
}

/*
 * How prototype b differs from a (the first kernel's), in one line;
 * NULL detail when they are the same. Parameters are matched by name.
 */
static int proto_change(const struct proto *a, const struct proto *b,
			char **detail)
{
	struct bc_text t;
	uint32_t i;
	bool reordered = false;

	*detail = NULL;
	bc_text_init(&t);
	if (strcmp(a->ret, b->ret))
		bc_text_printf(&t, "%sreturn %s -> %s", t.len ? "; " : "",
			       a->ret, b->ret);
	for (i = 0; i < a->nr; i++) {
		int j = name_index(b, a->names[i]);

		if (j < 0 && i < b->nr && !*a->names[i]) {
			j = (int)i;	/* unnamed: by position */
		}
		if (j < 0) {
			bc_text_printf(&t, "%sparam %u '%s' removed",
				       t.len ? "; " : "", i + 1, a->names[i]);
			continue;
		}
		if ((uint32_t)j != i)
			reordered = true;
		if (strcmp(a->params[i], b->params[j]))
			bc_text_printf(&t, "%sparam '%s' %s -> %s",
				       t.len ? "; " : "", a->names[i],
				       a->params[i], b->params[j]);
	}
	for (i = 0; i < b->nr; i++)
		if (name_index(a, b->names[i]) < 0 && *b->names[i])
			bc_text_printf(&t, "%sparam %u '%s' added (%s)",
				       t.len ? "; " : "", i + 1, b->names[i],
				       b->params[i]);
	if (reordered) {
		bc_text_printf(&t, "%sparams reordered: (", t.len ? "; " : "");
		for (i = 0; i < a->nr; i++)
			bc_text_printf(&t, "%s%s", i ? ", " : "", a->names[i]);
		bc_text_printf(&t, ") -> (");
		for (i = 0; i < b->nr; i++)
			bc_text_printf(&t, "%s%s", i ? ", " : "", b->names[i]);
		bc_text_printf(&t, ")");
	}
	if (t.err) {
		bc_text_deinit(&t);
		return -ENOMEM;
	}
	if (t.len)
		*detail = bc_text_take(&t);
	else
		bc_text_deinit(&t);
	return 0;
}

/*
 * The fate of a kernel function, from the symbol table and, when the
 * kernel's DWARF was read, its inlined calls: ok, duplicate, selectively
 * inlined, transformed, fully inlined, absent.
 */
static int ksym_status(const struct bc_ksyms *s,
		       const struct bc_inline_facts *inl, const char *name,
		       struct bc_dep_cell *c)
{
	size_t i = ksyms_lower(s, name), exact = 0, locals = 0;
	size_t n = strlen(name);
	const char *clone = NULL;

	for (; i < s->nr && !strncmp(s->syms[i].name, name, n); i++) {
		if (s->syms[i].object)
			continue;
		if (!strcmp(s->syms[i].name, name)) {
			exact++;
			locals += s->syms[i].local;
		} else if (!clone && is_clone_of(s->syms[i].name, name)) {
			clone = s->syms[i].name;
		}
	}
	if (exact > 1) {
		c->status = BC_DEP_DUPLICATE;
		return set_detail(c, "%zu functions named %s (%zu local)", exact,
				  name, locals);
	}
	if (exact == 1 && bc_inline_facts_has(inl, name)) {
		c->status = BC_DEP_SEL_INLINED;
		return set_detail(c, "a symbol, and calls inlined elsewhere: a probe misses those");
	}
	if (exact == 1) {
		c->status = BC_DEP_OK;
		return 0;
	}
	if (clone) {
		c->status = BC_DEP_TRANSFORMED;
		return set_detail(c, "only the clone %s", clone);
	}
	if (bc_inline_facts_has(inl, name)) {
		c->status = BC_DEP_FULLY_INLINED;
		return set_detail(c, "no symbol; every call inlined");
	}
	c->status = BC_DEP_ABSENT;
	return set_detail(c, "no symbol %s%s", name,
			  inl ? ", no inlined call" : "");
}

/*
 * A hook that is a type of the kernel's BTF (a FUNC, a btf_trace_
 * typedef), else of a module's: ok (saying which module) or absent;
 * *id and *types say where. Returns 0 or -ENOMEM.
 */
static int hook_in_btf(const struct bc_deps_kernel *k, uint32_t kind,
		       const char *name, struct bc_dep_cell *c,
		       const struct bc_ktypes **types, uint32_t *id)
{
	const char *module;

	*id = kfind_any(k, kind, name, types);
	c->status = *id ? BC_DEP_OK : BC_DEP_ABSENT;
	if (!*id)
		return set_detail(c, "no %s %s in BTF",
				  kind == BTF_KIND_FUNC ? "FUNC" : "typedef", name) ?:
		       note_no_modules(k, c);
	module = module_of(k, *types);
	return module ? set_detail(c, "in module %s", module) : 0;
}

/*
 * Hook h (looked up as fname) in kernel k: its cell, and *id and *types
 * when it is a type of the kernel's BTF or a module's (its prototype is
 * then compared). Returns 0 or -ENOMEM.
 */
static int hook_cell(const struct hook_kind *h, const char *fname,
		     const char *target, const struct bc_deps_kernel *k,
		     struct bc_dep_cell *c, const struct bc_ktypes **types,
		     uint32_t *id)
{
	*types = &k->types;
	*id = 0;
	switch (h->check) {
	case HOOK_USER:
		c->status = BC_DEP_USER;
		return 0;
	case HOOK_NONE:
	case HOOK_NOT_A_ROW:
		c->status = BC_DEP_UNKNOWN;
		return set_detail(c, "not looked up");
	case HOOK_BTF_TRACE: {
		int err = hook_in_btf(k, BTF_KIND_TYPEDEF, fname, c, types, id);

		*id = 0;	/* a typedef: no prototype to compare */
		return err;
	}
	case HOOK_KSYM_GLOB:
		if (!k->syms) {
			c->status = BC_DEP_UNKNOWN;
			return set_detail(c, "a pattern: needs the kernel's symbol table");
		} else {
			size_t n = ksyms_matching(k->syms, target);

			c->status = n ? BC_DEP_OK : BC_DEP_ABSENT;
			return n ? set_detail(c, "%zu functions match", n)
				 : set_detail(c, "no function matches %s", target);
		}
	case HOOK_SYSCALL_EVENT:
		if (k->syms) {
			int err = ksym_status(k->syms, k->inlines, fname, c);

			if (c->status != BC_DEP_ABSENT)
				c->status = BC_DEP_OK;
			return err;
		}
		if (kfind(k, BTF_KIND_FUNC, fname)) {
			c->status = BC_DEP_OK;
			return 0;
		}
		c->status = BC_DEP_UNKNOWN;
		return set_detail(c, "no FUNC %s in BTF; the symbol table would tell",
				  fname);
	case HOOK_BTF_FUNC:
		return hook_in_btf(k, BTF_KIND_FUNC, fname, c, types, id);
	case HOOK_KSYM:
	case HOOK_SYSCALL:
		*id = kfind_any(k, BTF_KIND_FUNC, fname, types);
		if (k->syms)
			return ksym_status(k->syms, k->inlines, fname, c);
		c->status = BC_DEP_UNKNOWN;
		return set_detail(c, "%s in BTF; symbols and inlining need the kernel's ELF file",
				  *id ? "FUNC" : "no FUNC");
	}
	return 0;
}

/* The prototype of hook h in kernel k when it has it (0: p->ret NULL). */
static int hook_proto(const struct hook_kind *h, const char *fname,
		      const char *target, const struct bc_deps_kernel *k,
		      struct proto *p)
{
	struct bc_dep_cell c = { 0 };
	const struct bc_ktypes *types;
	uint32_t id;
	int err = hook_cell(h, fname, target, k, &c, &types, &id);

	memset(p, 0, sizeof(*p));
	if (!err && id && (c.status == BC_DEP_OK || c.status == BC_DEP_UNKNOWN))
		err = proto_of(types, id, p);
	free(c.detail);
	return err;
}

/*
 * Hook h's cells in kernels[0 .. nr), prototypes compared with first's
 * (the kernel of the reference column: kernels[0] when first is NULL).
 */
static int check_one_hook(struct bc_dep *d, const struct hook_kind *h,
			  const char *target, const struct bc_deps_kernel *first,
			  const struct bc_deps_kernel *kernels, uint32_t nr,
			  struct bc_deps_memo *memo, uint32_t row)
{
	struct proto own = { 0 }, *ref = &own;
	char *fname = NULL;
	uint32_t k;
	int err = 0;

	if (h->check == HOOK_SYSCALL_EVENT) {
		/* syscall events have no btf_trace typedef: the syscall's function */
		const char *sys = target;

		if (!strncmp(sys, "sys_enter_", 10))
			sys += 10;
		else if (!strncmp(sys, "sys_exit_", 9))
			sys += 9;
		if (asprintf(&fname, "__x64_sys_%s", sys) < 0)
			return -ENOMEM;
	} else if (h->check == HOOK_SYSCALL) {
		if (asprintf(&fname, "__x64_sys_%s", target) < 0)
			return -ENOMEM;
	} else if (asprintf(&fname, "%s%s", h->btf_prefix, target) < 0) {
		return -ENOMEM;
	}
	if (nr && first && memo && row < memo->nr) {
		ref = &memo->ref[row];
		if (!memo->done[row])
			err = hook_proto(h, fname, target, first, ref);
		memo->done[row] = !err;
	} else if (nr) {
		err = hook_proto(h, fname, target, first ? first : &kernels[0],
				 ref);
	}
	for (k = first ? 0 : 1; k < nr && !err; k++) {
		const struct bc_ktypes *types;
		struct bc_dep_cell *c = &d->cells[k];
		struct proto p;
		char *change = NULL;
		uint32_t id;

		err = hook_cell(h, fname, target, &kernels[k], c, &types, &id);
		if (err || !id || !ref->ret ||
		    (c->status != BC_DEP_OK && c->status != BC_DEP_UNKNOWN))
			continue;
		/*
		 * The prototype, against the reference kernel's. The same
		 * record of one archive is the same prototype, spelled by
		 * names: most kernels of a series, for most hooks.
		 */
		if (bc_ktypes_same_record(ref->kt, ref->func_id, types, id))
			continue;
		err = proto_of(types, id, &p);
		if (!err)
			err = proto_change(ref, &p, &change);
		proto_free(&p);
		if (change) {
			c->status = BC_DEP_PROTO_CHANGED;
			free(c->detail);
			c->detail = change;
		}
	}
	if (!err && nr && !first) {
		const struct bc_ktypes *types;
		uint32_t id;

		err = hook_cell(h, fname, target, &kernels[0], &d->cells[0],
				&types, &id);
	}
	proto_free(&own);
	free(fname);
	return err;
}

bool bc_deps_wants_inlines(const struct bc_bpf_object *obj)
{
	uint32_t s;

	for (s = 0; s < obj->nr_sections; s++) {
		const struct hook_kind *h = hook_kind_of(obj->sections[s].name);

		if (h && (h->check == HOOK_KSYM || h->check == HOOK_SYSCALL))
			return true;
	}
	return false;
}

/*
 * A program whose target the loader sets and was not told (--attach):
 * every cell unknown, saying how to tell it.
 */
static int hook_unset(struct builder *b, const char *section,
		      const struct hook_kind *h, const char *prog)
{
	struct bc_dep *d = add_dep(b, BC_DEP_HOOK, section, h->type, NULL, "?");
	uint32_t k;

	if (!d)
		return -ENOMEM;
	for (k = 0; k < b->nr_kernels; k++) {
		d->cells[k].status = BC_DEP_UNKNOWN;
		if (set_detail(&d->cells[k],
			       "program %s: the loader sets its target; give --attach %s=FUNC",
			       prog, prog))
			return -ENOMEM;
	}
	return autoload_off(section) ? mark_autoload_off(d, b->nr_kernels) : 0;
}

/*
 * One hook row: section name of kind h attaching to target (malloc'd,
 * taken; NULL: out of memory), checked on every kernel. Returns 0 or a
 * negative errno.
 */
static int add_hook_row(struct builder *b, const struct hook_kind *h,
			const char *name, char *target,
			const struct bc_deps_kernel *kernels)
{
	struct bc_dep *d;
	int err;

	if (!target)
		return -ENOMEM;
	d = add_dep(b, BC_DEP_HOOK, name, h->type, NULL, target);
	err = d ? check_one_hook(d, h, target, b->first, kernels,
				 b->nr_kernels,
				 b->into ? b->into->memo : NULL,
				 b->report->nr_deps - 1)
		: -ENOMEM;
	if (!err && autoload_off(name))
		err = mark_autoload_off(d, b->nr_kernels);
	free(target);
	return err;
}

/*
 * The hooks of the programs of section s that take their target from
 * the loader (a bare "fentry" section, or --attach): one row each, in
 * program order. Returns 0 or a negative errno.
 */
static int check_program_hooks(struct builder *b,
			       const struct bc_bpf_object *obj, uint32_t s,
			       const struct hook_kind *h, bool bare,
			       const struct bc_deps_kernel *kernels)
{
	const char *name = obj->sections[s].name;
	uint32_t p;
	int err = 0;

	for (p = 0; p < obj->nr_programs && !err; p++) {
		const struct bc_bpf_program *prog = &obj->programs[p];
		char *target;

		if (prog->section != s)
			continue;
		if (!prog->attach_target && bare) {
			err = hook_unset(b, name, h, prog->name);
			continue;
		}
		target = prog->attach_target ? strdup(prog->attach_target) :
			 hook_target(h, name);
		err = add_hook_row(b, h, name, target, kernels);
	}
	return err;
}

/* Does a program of section s have a target the loader set? */
static bool section_has_set_target(const struct bc_bpf_object *obj, uint32_t s)
{
	uint32_t p;

	for (p = 0; p < obj->nr_programs; p++)
		if (obj->programs[p].section == s && obj->programs[p].attach_target)
			return true;
	return false;
}

static int check_hooks(struct builder *b, const struct bc_bpf_object *obj,
		       const struct bc_deps_kernel *kernels)
{
	uint32_t s;
	int err = 0;

	for (s = 0; s < obj->nr_sections && !err; s++) {
		const char *name = obj->sections[s].name;
		const struct hook_kind *h = hook_kind_of(name);

		if (!h && (h = bare_hook_kind_of(name))) {
			err = check_program_hooks(b, obj, s, h, true, kernels);
			continue;
		}
		if (!h || h->check == HOOK_NOT_A_ROW)
			continue;
		if (section_has_set_target(obj, s)) {
			err = check_program_hooks(b, obj, s, h, false, kernels);
			continue;
		}
		err = add_hook_row(b, h, name, hook_target(h, name), kernels);
	}
	return err;
}

/* -- struct_ops maps -- */

/*
 * A struct_ops map (a VAR of .struct_ops or .struct_ops.link of struct
 * type T) needs, as libbpf 1.1 looks them up, the kernel's
 * bpf_struct_ops_T wrapper and a struct T holding every member of the
 * object's T, by name.
 */
static int check_struct_ops(struct builder *b, const struct bc_bpf_object *obj,
			    const struct bc_deps_kernel *kernels)
{
	const struct bc_btf *btf = obj->btf;
	uint32_t id, end = bc_btf_end_id(btf), i, k, m;

	for (id = 1; id < end; id++) {
		const struct btf_type *ds = bc_btf_type(btf, id);
		const struct btf_var_secinfo *v = (const void *)(ds + 1);
		const char *sec = bc_btf_str(btf, ds->name_off);

		if (bc_type_kind(ds) != BTF_KIND_DATASEC ||
		    (strcmp(sec, ".struct_ops") && strcmp(sec, ".struct_ops.link")))
			continue;
		for (i = 0; i < bc_type_vlen(ds); i++) {
			const struct btf_type *var = bc_btf_type(btf, v[i].type);
			uint32_t tid = var->type;
			const struct btf_type *t = bc_skip_mods(btf, &tid, true);
			const char *tname;
			struct bc_dep *d;
			char *wrapper;

			if (!t || bc_type_kind(t) != BTF_KIND_STRUCT)
				continue;
			tname = bc_btf_str(btf, t->name_off);
			d = add_dep(b, BC_DEP_HOOK, sec, "struct_ops", NULL, tname);
			if (!d || asprintf(&wrapper, "bpf_struct_ops_%s", tname) < 0)
				return -ENOMEM;
			for (k = 0; k < b->nr_kernels; k++) {
				const struct bc_ktypes *kb = &kernels[k].types;
				uint32_t kt = kfind(&kernels[k], BTF_KIND_STRUCT, tname);
				const struct btf_type *ktt = bc_ktypes_type(kb, kt);
				struct bc_dep_cell *c = &d->cells[k];
				const struct btf_member *lm = (const void *)(t + 1);
				const char *missing = NULL;

				if (!kfind(&kernels[k], BTF_KIND_STRUCT, wrapper) || !ktt) {
					c->status = BC_DEP_ABSENT;
					if (set_detail(c, "no struct %s in BTF",
						       kt ? wrapper : tname))
						goto nomem;
					continue;
				}
				for (m = 0; m < bc_type_vlen(t) && !missing; m++) {
					const struct btf_member *km = (const void *)(ktt + 1);
					const char *n = bc_btf_str(btf, lm[m].name_off);
					uint32_t j;

					for (j = 0; j < bc_type_vlen(ktt); j++)
						if (!strcmp(bc_ktypes_str(kb, km[j].name_off), n))
							break;
					if (j == bc_type_vlen(ktt))
						missing = n;
				}
				c->status = missing ? BC_DEP_ABSENT : BC_DEP_OK;
				if (missing && set_detail(c, "struct %s has no member %s",
							  tname, missing))
					goto nomem;
			}
			free(wrapper);
			continue;
nomem:
			free(wrapper);
			return -ENOMEM;
		}
	}
	return 0;
}

/* -- program types -- */

static int check_prog_types(struct builder *b, const struct bc_bpf_object *obj,
			    const struct bc_deps_kernel *kernels)
{
	uint32_t s, k;

	for (s = 0; s < obj->nr_sections; s++) {
		const char *name = obj->sections[s].name;
		const char *pt = prog_type_of(name);
		struct bc_dep *d;

		if (!strcmp(name, ".text"))
			continue;
		d = add_dep(b, BC_DEP_PROG_TYPE, name, "prog_type", NULL,
			    pt ? pt : "");
		if (!d)
			return -ENOMEM;
		for (k = 0; k < b->nr_kernels; k++) {
			const struct bc_ktypes *kt = &kernels[k].types;
			uint32_t e = kfind(&kernels[k], BTF_KIND_ENUM, "bpf_prog_type");
			struct bc_dep_cell *c = &d->cells[k];

			if (!pt) {
				c->status = BC_DEP_UNKNOWN;
				if (set_detail(c, "section name of no known program type"))
					return -ENOMEM;
			} else if (!e) {
				c->status = BC_DEP_UNKNOWN;
				if (set_detail(c, "no enum bpf_prog_type in BTF"))
					return -ENOMEM;
			} else {
				c->status = enum_has_name(kt, e, pt) ?
					    BC_DEP_OK : BC_DEP_ABSENT;
			}
		}
		if (autoload_off(name) && mark_autoload_off(d, b->nr_kernels))
			return -ENOMEM;
	}
	return 0;
}

/* -- helpers -- */

/* A helper call: its id, and whether its program is autoload-off. */
struct helper_call {
	int32_t id;
	bool off;
};

static int call_cmp(const void *a, const void *b)
{
	const struct helper_call *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Helper id's name in kernel k's enum bpf_func_id, or NULL. */
static const char *helper_name(const struct bc_deps_kernel *k, int32_t id)
{
	uint32_t e = kfind(k, BTF_KIND_ENUM, "bpf_func_id");

	return e ? enum_name_of(&k->types, e, id) : NULL;
}

/*
 * One row per helper id; the row is autoload-off when every call to the
 * helper is in an autoload-off program.
 */
/* The object's helper calls, sorted by id, into *out (n of them). */
static int helper_calls(const struct bc_bpf_object *obj,
			struct helper_call **out, uint32_t *nr)
{
	uint32_t s, i, n = 0, cap = 0;
	struct helper_call *calls = NULL;

	for (s = 0; s < obj->nr_sections; s++) {
		const struct bc_bpf_section *sec = &obj->sections[s];

		for (i = 0; i < sec->nr_insns; i++) {
			const struct bpf_insn *in = &sec->insns[i];

			if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg != 0)
				continue;
			if (n == cap) {
				struct helper_call *grown;

				cap = cap ? cap * 2 : 16;
				grown = realloc(calls, cap * sizeof(*calls));
				if (!grown) {
					free(calls);
					return -ENOMEM;
				}
				calls = grown;
			}
			calls[n].id = in->imm;
			calls[n++].off = autoload_off(sec->name);
		}
	}
	if (n)
		qsort(calls, n, sizeof(*calls), call_cmp);
	*out = calls;
	*nr = n;
	return 0;
}

static int check_helpers(struct builder *b, const struct bc_bpf_object *obj,
			 const struct bc_deps_kernel *kernels)
{
	/* the calls are the object's: listed once for all columns */
	struct bc_deps_memo *memo = b->into ? b->into->memo : NULL;
	struct helper_call *calls = memo ? memo->calls : NULL;
	uint32_t i, j, k, n = memo ? memo->nr_calls : 0;
	int err = 0;

	if (!memo || !memo->calls_done) {
		err = helper_calls(obj, &calls, &n);
		if (err)
			return err;
		if (memo) {
			memo->calls = calls;
			memo->nr_calls = n;
			memo->calls_done = true;
		}
	}
	for (i = 0; i < n && !err; i = j) {
		int32_t id = calls[i].id;
		const char *name = NULL;
		bool off = true;
		struct bc_dep *d;

		for (j = i; j < n && calls[j].id == id; j++)
			off &= calls[j].off;
		/*
		 * named as the reference kernel names it, else the first that
		 * can (a column's row is the report's, named already)
		 */
		if (b->first && !b->into)
			name = helper_name(b->first, id);
		for (k = 0; k < b->nr_kernels && !b->into && !name; k++)
			name = helper_name(&kernels[k], id);
		d = add_dep(b, BC_DEP_HELPER, NULL, "helper", NULL,
			    name ? name : "");
		if (!d) {
			err = -ENOMEM;
			break;
		}
		d->id = id;
		for (k = 0; k < b->nr_kernels && !err; k++) {
			const struct bc_ktypes *kt = &kernels[k].types;
			uint32_t e = kfind(&kernels[k], BTF_KIND_ENUM, "bpf_func_id");
			struct bc_dep_cell *c = &d->cells[k];

			if (!e) {
				c->status = BC_DEP_UNKNOWN;
				err = set_detail(c, "no enum bpf_func_id in BTF");
			} else {
				c->status = enum_name_of(kt, e, id) ?
					    BC_DEP_OK : BC_DEP_ABSENT;
			}
		}
		if (!err && off)
			err = mark_autoload_off(d, b->nr_kernels);
	}
	if (!memo)
		free(calls);
	return err;
}

/* -- maps -- */

/* The map type of a .maps variable: its struct's `type` member, an int[N]. */
static int64_t map_type_of(const struct bc_btf *btf, uint32_t var_type)
{
	const struct btf_type *t = bc_skip_mods(btf, &var_type, true);
	const struct btf_member *m;
	uint32_t i;

	if (!t || bc_type_kind(t) != BTF_KIND_STRUCT)
		return -1;
	m = (const void *)(t + 1);
	for (i = 0; i < bc_type_vlen(t); i++) {
		uint32_t id = m[i].type;
		const struct btf_type *mt;

		if (strcmp(bc_btf_str(btf, m[i].name_off), "type"))
			continue;
		mt = bc_skip_mods(btf, &id, true);
		if (!mt || bc_type_kind(mt) != BTF_KIND_PTR)
			return -1;
		id = mt->type;
		mt = bc_skip_mods(btf, &id, true);
		if (!mt || bc_type_kind(mt) != BTF_KIND_ARRAY)
			return -1;
		return ((const struct btf_array *)(mt + 1))->nelems;
	}
	return -1;
}

static int check_maps(struct builder *b, const struct bc_bpf_object *obj,
		      const struct bc_deps_kernel *kernels)
{
	const struct bc_btf *btf = obj->btf;
	uint32_t ds = find_named(btf, BTF_KIND_DATASEC, ".maps"), i, k;
	const struct btf_type *t;
	const struct btf_var_secinfo *v;

	if (!ds)
		return 0;
	t = bc_btf_type(btf, ds);
	v = (const void *)(t + 1);
	for (i = 0; i < bc_type_vlen(t); i++) {
		const struct btf_type *var = bc_btf_type(btf, v[i].type);
		const char *name = bc_btf_str(btf, var->name_off);
		int64_t mt = map_type_of(btf, var->type);
		struct bc_dep *d;

		if (mt < 0)
			continue;
		d = add_dep(b, BC_DEP_MAP, NULL, "map_type", NULL, name);
		if (!d)
			return -ENOMEM;
		d->id = mt;
		for (k = 0; k < b->nr_kernels; k++) {
			const struct bc_ktypes *kb = &kernels[k].types;
			uint32_t e = kfind(&kernels[k], BTF_KIND_ENUM, "bpf_map_type");
			struct bc_dep_cell *c = &d->cells[k];
			const char *en = e ? enum_name_of(kb, e, mt) : NULL;

			if (!e) {
				c->status = BC_DEP_UNKNOWN;
				if (set_detail(c, "no enum bpf_map_type in BTF"))
					return -ENOMEM;
			} else if (!en || (!strncmp(en, "BPF_MAP_TYPE_", 13) &&
					   strstr(en, "_DEPRECATED"))) {
				c->status = BC_DEP_ABSENT;
			} else {
				c->status = BC_DEP_OK;
				if (set_detail(c, "%s", en))
					return -ENOMEM;
			}
		}
	}
	return 0;
}

/* -- externs -- */

/* Which DATASEC of the object holds the extern: .ksyms, .kconfig, or none. */
static const char *extern_section(const struct bc_btf *btf, const char *name,
				  uint32_t *kind, uint32_t *type)
{
	uint32_t id, i, end = bc_btf_end_id(btf);

	for (id = 1; id < end; id++) {
		const struct btf_type *t = bc_btf_type(btf, id);
		const struct btf_var_secinfo *v = (const void *)(t + 1);
		const char *sec = bc_btf_str(btf, t->name_off);

		if (bc_type_kind(t) != BTF_KIND_DATASEC ||
		    (strcmp(sec, ".ksyms") && strcmp(sec, ".kconfig")))
			continue;
		for (i = 0; i < bc_type_vlen(t); i++) {
			const struct btf_type *e = bc_btf_type(btf, v[i].type);

			if (strcmp(bc_btf_str(btf, e->name_off), name))
				continue;
			*kind = bc_type_kind(e);
			*type = e->type;
			/* a kfunc: its FUNC behind a VAR (bpf_object.c) */
			if (bc_btf_type(btf, e->type) &&
			    bc_type_kind(bc_btf_type(btf, e->type)) == BTF_KIND_FUNC)
				*kind = BTF_KIND_FUNC;
			return sec;
		}
	}
	return NULL;
}

/*
 * A kconfig extern against a kernel's config, by libbpf 1.1's rules
 * (kconfig.c): LINUX_KERNEL_VERSION, LINUX_HAS_BPF_COOKIE and
 * LINUX_HAS_SYSCALL_WRAPPER libbpf fills itself; a CONFIG_ one the
 * config sets is ok when libbpf takes its value for the extern's type,
 * incompatible when it refuses it; one it does not set fails the load
 * when strong (absent), reads 0 when weak (missing). No config: unknown.
 */
static int kconfig_cell(const struct bc_btf *btf, uint32_t type,
			const struct bc_bpf_extern *x,
			const struct bc_kconfig *kc, struct bc_dep_cell *c)
{
	const char *value;
	char why[160];

	if (!strcmp(x->name, "LINUX_KERNEL_VERSION") ||
	    !strcmp(x->name, "LINUX_HAS_BPF_COOKIE") ||
	    !strcmp(x->name, "LINUX_HAS_SYSCALL_WRAPPER")) {
		c->status = BC_DEP_OK;
		return 0;
	}
	if (strncmp(x->name, "CONFIG_", 7)) {
		c->status = BC_DEP_UNKNOWN;
		return set_detail(c, "a virtual extern libbpf 1.1 does not fill");
	}
	if (!kc) {
		c->status = BC_DEP_UNKNOWN;
		return set_detail(c, "the kernel's config is not in BTF: give it with --kconfig");
	}
	value = bc_kconfig_get(kc, x->name);
	if (!value) {
		c->status = x->weak ? BC_DEP_MISSING : BC_DEP_ABSENT;
		return set_detail(c, x->weak ? "not set in the config: reads 0" :
				  "not set in the config: libbpf fails the load (a strong extern)");
	}
	c->config_value = strdup(value);
	if (!c->config_value)
		return -ENOMEM;
	if (bc_kconfig_check_value(btf, type, value, why, sizeof(why))) {
		c->status = BC_DEP_INCOMPATIBLE;
		return set_detail(c, "%s=%s: %s", x->name, value, why);
	}
	c->status = BC_DEP_OK;
	return why[0] ? set_detail(c, "%s", why) : 0;
}

/*
 * An extern of an object libbpf refuses that its BTF does not type (no
 * VAR or FUNC of a .ksyms or .kconfig DATASEC: libbpf's "failed to find
 * BTF for extern"): neither a kfunc, a ksym nor a kconfig, so no kernel
 * can be asked about it. A row of its own, unknown everywhere, so that
 * the report names it.
 */
static int untyped_extern(struct builder *b, const struct bc_bpf_extern *x)
{
	struct bc_dep *d = add_dep(b, BC_DEP_EXTERN, NULL, "extern", NULL,
				   x->name);
	uint32_t k;

	if (!d)
		return -ENOMEM;
	d->weak = x->weak;
	for (k = 0; k < b->nr_kernels; k++) {
		d->cells[k].status = BC_DEP_UNKNOWN;
		if (set_detail(&d->cells[k], "no BTF in the object's .ksyms or .kconfig: neither kfunc, ksym nor kconfig, not checked"))
			return -ENOMEM;
	}
	return 0;
}

static int check_externs(struct builder *b, const struct bc_bpf_object *obj,
			 const struct bc_deps_kernel *kernels)
{
	uint32_t i, k;

	for (i = 0; i < obj->nr_externs; i++) {
		const struct bc_bpf_extern *x = &obj->externs[i];
		uint32_t kind = 0, type = 0, local_id;
		const char *sec = extern_section(obj->btf, x->name, &kind, &type);
		const struct btf_type *local_type;
		const char *what;
		struct bc_dep *d;

		if (!sec && !obj->refused)
			continue;	/* not an extern libbpf knows of */
		if (!sec) {
			/* libbpf refuses the object: say what it stops at */
			if (untyped_extern(b, x))
				return -ENOMEM;
			continue;
		}
		if (!strcmp(sec, ".kconfig"))
			what = "kconfig";
		else
			what = kind == BTF_KIND_FUNC ? "kfunc" : "ksym";
		d = add_dep(b, BC_DEP_EXTERN, NULL, what, NULL, x->name);
		if (!d)
			return -ENOMEM;
		d->weak = x->weak;
		/* a ksym's own type, modifiers and typedefs skipped; NULL: void */
		local_id = type;
		local_type = strcmp(what, "ksym") ? NULL :
			     bc_skip_mods(obj->btf, &local_id, true);
		for (k = 0; k < b->nr_kernels; k++) {
			struct bc_dep_cell *c = &d->cells[k];
			const struct bc_ktypes *kb = NULL;
			const struct btf_type *kt;
			uint32_t kid;
			bool found;

			if (!strcmp(what, "kconfig")) {
				if (kconfig_cell(obj->btf, type, x, kernels[k].kconfig, c))
					return -ENOMEM;
				continue;
			}
			if (!strcmp(what, "kfunc")) {
				kid = kfind_any(&kernels[k], BTF_KIND_FUNC, x->name, &kb);
				kt = bc_ktypes_type(kb, kid);
				found = kt != NULL;
				/* libbpf checks the prototype (FUNC -> FUNC_PROTO) */
				if (found && bc_core_types_compat(
					    obj->btf, bc_btf_type(obj->btf, type)->type,
					    kb, kt->type) <= 0) {
					c->status = BC_DEP_INCOMPATIBLE;
					if (set_detail(c, "the kernel's prototype is not compatible with the object's"))
						return -ENOMEM;
					continue;
				}
			} else if (local_type) {
				/* a typed ksym: a VAR of the kernel's BTF, of a compatible type */
				kid = kfind_any(&kernels[k], BTF_KIND_VAR, x->name, &kb);
				kt = bc_ktypes_type(kb, kid);
				found = kt != NULL;
				if (found) {
					uint32_t tid = kt->type;

					kt = bc_ktypes_skip_mods(kb, &tid);
					if (bc_core_types_compat(obj->btf, local_id,
								 kb, tid) <= 0) {
						c->status = BC_DEP_INCOMPATIBLE;
						if (set_detail(c, "the kernel's variable is %s %s, the object's %s %s: a type not compatible (libbpf's rule)",
							       kt ? bc_kind_name(bc_type_kind(kt)) : "void",
							       kt ? bc_ktypes_str(kb, kt->name_off) : "",
							       bc_kind_name(bc_type_kind(local_type)),
							       bc_btf_str(obj->btf, local_type->name_off)))
							return -ENOMEM;
						continue;
					}
				}
			} else if (kernels[k].syms) {
				/* typeless: a symbol, function or data */
				found = ksyms_has(kernels[k].syms, x->name);
			} else {
				c->status = BC_DEP_UNKNOWN;
				if (set_detail(c, "typeless ksym: needs the kernel's symbols"))
					return -ENOMEM;
				continue;
			}
			c->status = found ? BC_DEP_OK :
				    x->weak ? BC_DEP_MISSING : BC_DEP_ABSENT;
			if (found && kb && module_of(&kernels[k], kb) &&
			    set_detail(c, "in module %s", module_of(&kernels[k], kb)))
				return -ENOMEM;
			if (!found && note_no_modules(&kernels[k], c))
				return -ENOMEM;
		}
	}
	return 0;
}

/* The checks, in the order of the report's rows; 0 or a negative errno. */
static int run_checks(struct builder *b, const struct bc_bpf_object *obj,
		      const struct bc_deps_kernel *kernels)
{
	int err = check_relos(b, obj, kernels);

	if (!err)
		err = check_hooks(b, obj, kernels);
	if (!err)
		err = check_struct_ops(b, obj, kernels);
	if (!err)
		err = check_externs(b, obj, kernels);
	if (!err)
		err = check_helpers(b, obj, kernels);
	if (!err)
		err = check_maps(b, obj, kernels);
	if (!err)
		err = check_prog_types(b, obj, kernels);
	if (err && b->err)
		err = b->err;	/* not memory: a row unlike the report's */
	if (!err && b->into && b->report->nr_deps != b->into->nr_deps)
		err = -EINVAL;
	return err;
}

/*
 * A record a view could not decode read as void: then no report. The
 * first error of the kernels' (and the reference kernel's) views, said.
 */
static int views_error(const struct bc_deps_kernel *first,
		       const struct bc_deps_kernel *kernels, uint32_t nr,
		       const struct bc_log *log)
{
	uint32_t k;

	for (k = 0; k <= nr; k++) {
		const struct bc_deps_kernel *kk = k < nr ? &kernels[k] : first;
		int err = kk ? bc_ktypes_error(&kk->types) : 0;

		if (err)
			return bc_log_error(log, err, "%s: %s", kk->arg,
					    err == -ENOMEM ? "out of memory" :
					    "a type record of the archive cannot be read");
		err = kk && kk->lazy ? kk->lazy->err : 0;
		if (err)
			return bc_log_error(log, err, "%s: %s", kk->arg,
					    err == -ENOMEM ? "out of memory" :
					    "its modules in the archive cannot be read");
	}
	return 0;
}

int bc_deps_check(const struct bc_bpf_object *obj,
		  const struct bc_deps_kernel *kernels, uint32_t nr,
		  struct bc_deps_report *report, const struct bc_log *log)
{
	struct builder b = { .report = report, .nr_kernels = nr };
	int err;

	memset(report, 0, sizeof(*report));
	report->object = obj->path;
	report->nr_kernels = nr;
	err = run_checks(&b, obj, kernels);
	if (err) {
		bc_deps_report_deinit(report);
		return bc_log_error(log, err, "%s: out of memory", obj->path);
	}
	err = views_error(NULL, kernels, nr, log);
	if (err)
		bc_deps_report_deinit(report);
	return err;
}

int bc_deps_check_column(const struct bc_bpf_object *obj,
			 const struct bc_deps_kernel *first,
			 const struct bc_deps_kernel *kernel,
			 struct bc_deps_report *report, uint32_t column,
			 const struct bc_log *log)
{
	struct bc_deps_report rows = { .object = obj->path, .nr_kernels = 1 };
	struct builder b = { .report = &rows, .nr_kernels = 1, .first = first,
			     .into = report, .column = column };
	int err = column < report->nr_kernels ? 0 : -EINVAL;

	if (!err)
		err = run_checks(&b, obj, kernel);
	free(rows.deps);	/* shallow: the strings and cells are report's */
	if (err)
		return bc_log_error(log, err, "%s: %s", obj->path,
				    err == -ENOMEM ? "out of memory" :
				    "its dependencies differ from kernel to kernel");
	return views_error(first, kernel, 1, log);
}

void bc_deps_report_deinit(struct bc_deps_report *report)
{
	uint32_t i, k;

	for (i = 0; i < report->nr_deps; i++) {
		struct bc_dep *d = &report->deps[i];

		if (d->cells)
			for (k = 0; k < report->nr_kernels; k++) {
				free(d->cells[k].detail);
				free(d->cells[k].config_value);
				if (d->cells[k].if_loaded)
					free(d->cells[k].if_loaded->detail);
				free(d->cells[k].if_loaded);
			}
		free(d->cells);
		free(d->section);
		free(d->kind);
		free(d->type);
		free(d->name);
	}
	free(report->deps);
	memo_free(report->memo);
	memset(report, 0, sizeof(*report));
}

int bc_deps_report_widen(struct bc_deps_report *report, uint32_t nr)
{
	uint32_t i;

	for (i = 0; i < report->nr_deps; i++) {
		struct bc_dep *d = &report->deps[i];
		struct bc_dep_cell *cells = realloc(d->cells, nr * sizeof(*cells));

		if (!cells)
			return -ENOMEM;
		if (nr > report->nr_kernels)
			memset(cells + report->nr_kernels, 0,
			       (nr - report->nr_kernels) * sizeof(*cells));
		d->cells = cells;
	}
	report->nr_kernels = nr;
	if (nr > 1 && !report->memo) {
		struct bc_deps_memo *m = calloc(1, sizeof(*m));

		if (!m)
			return -ENOMEM;
		report->memo = m;
		m->ref = calloc(report->nr_deps + 1, sizeof(*m->ref));
		m->done = calloc(report->nr_deps + 1, sizeof(*m->done));
		if (!m->ref || !m->done)
			return -ENOMEM;	/* deinit frees it */
		m->nr = report->nr_deps;
	}
	return 0;
}


