// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf-add-kinds [--no-layout] IN.btf OUT.btf: a BTF with types of kinds
 * btfcanon does not know, for the tests of "newer kinds are stepped over"
 * (tests/test_kinds.c, tests/test_badtable.c, tests/cli.sh, the fuzz seeds;
 * tests/data/README.md).
 *
 * IN is a base BTF of known kinds (24- or 32-byte header, with or without
 * a kind layout section). After its last type [N], OUT gets the inline-site
 * kinds of the 2026 UAPI (include/uapi/linux/btf.h), which btfcanon does not
 * implement, then known types that refer to them:
 *
 *	[N+1] kind 20 (LOC_PARAM)	size -4, {reg 5, flags 0, offset 0}
 *	[N+2] kind 20 (LOC_PARAM)	kflag 1 (a constant), size 8, value 42
 *	[N+3] kind 21 (LOC_PROTO)	vlen 2, type -> a FUNC_PROTO of IN
 *					(the first; 0 if none), {[N+1], [N+2]}
 *	[N+4] kind 22 (LOCSEC)		'.loc' vlen 1, {'kind_site',
 *					FUNC_PROTO, [N+3], offset 0x40}
 *	[N+5] PTR -> [N+3]
 *	[N+6] STRUCT 'kind_holder' size=16 { 'site' -> [N+5] at 0;
 *					'count' -> IN's 'int' at 64 }
 *	[N+7] TYPEDEF 'kind_site_t' -> [N+4]
 *
 * The kind layout section of OUT is IN's (or, without one, the known
 * kinds' sizes) grown to 23 entries: kind 20 8 bytes after the head and
 * none per entry, kind 21 0 and 4, kind 22 0 and 16. With --no-layout,
 * OUT has a 24-byte header and no layout section, so nothing says how
 * long the new records are.
 *
 * It reads bytes only (no libbpf, no btfcanon code): what it makes does
 * not depend on the code under test. Not installed; `make
 * build/btf-add-kinds` (make check builds it).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NR_OUT_KINDS 23

struct layout_entry {
	uint8_t info_sz;
	uint8_t elem_sz;
	uint16_t flags;
};

/* The sizes of kinds 0-22 (UAPI btf.h); FUNC's vlen is its linkage. */
static const struct layout_entry kind_sizes[NR_OUT_KINDS] = {
	[1] = { 4, 0 },			/* INT: encoding */
	[3] = { 12, 0 },		/* ARRAY */
	[4] = { 0, 12 }, [5] = { 0, 12 },	/* STRUCT, UNION: members */
	[6] = { 0, 8 },			/* ENUM */
	[13] = { 0, 8 },		/* FUNC_PROTO: params */
	[14] = { 4, 0 },		/* VAR: linkage */
	[15] = { 0, 12 },		/* DATASEC */
	[17] = { 4, 0 },		/* DECL_TAG: component_idx */
	[19] = { 0, 12 },		/* ENUM64 */
	[20] = { 8, 0 },		/* LOC_PARAM: struct btf_loc_param */
	[21] = { 0, 4 },		/* LOC_PROTO: a LOC_PARAM id per param */
	[22] = { 0, 16 },		/* LOCSEC: struct btf_loc */
};

struct growing {
	uint8_t *data;
	size_t len, cap;
};

static void put(struct growing *g, const void *p, size_t n)
{
	if (g->len + n > g->cap) {
		g->cap = (g->len + n) * 2;
		g->data = realloc(g->data, g->cap);
		if (!g->data) {
			perror("btf-add-kinds");
			exit(2);
		}
	}
	memcpy(g->data + g->len, p, n);
	g->len += n;
}

static void put_words(struct growing *g, const uint32_t *w, size_t n)
{
	put(g, w, n * 4);
}

/* Offset of a new string s, appended to strs. */
static uint32_t add_str(struct growing *strs, const char *s)
{
	uint32_t off = strs->len;

	put(strs, s, strlen(s) + 1);
	return off;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int fail(const char *path, const char *what)
{
	fprintf(stderr, "btf-add-kinds: %s: %s\n", path, what);
	return 2;
}

static int read_all(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	struct growing g = { NULL, 0, 0 };
	uint8_t buf[65536];
	size_t n;

	if (!f)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), f)))
		put(&g, buf, n);
	fclose(f);
	*data = g.data;
	*size = g.len;
	return 0;
}

int main(int argc, char **argv)
{
	struct layout_entry layout[NR_OUT_KINDS];
	struct growing types = { NULL, 0, 0 }, strs = { NULL, 0, 0 };
	struct growing out = { NULL, 0, 0 };
	uint32_t hdr_len, type_len, str_off, str_len, layout_off = 0, layout_len = 0;
	uint32_t off, n = 0, int_id = 0, proto_id = 0, i;
	bool with_layout = true;
	const char *in, *out_path;
	uint8_t *d;
	size_t size;
	FILE *f;

	if (argc == 4 && !strcmp(argv[1], "--no-layout")) {
		with_layout = false;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: btf-add-kinds [--no-layout] IN.btf OUT.btf\n");
		return 2;
	}
	in = argv[1];
	out_path = argv[2];
	if (read_all(in, &d, &size))
		return fail(in, "cannot read");
	if (size < 24 || rd32(d) != 0x0001eb9f)
		return fail(in, "not native-endian BTF version 1");
	hdr_len = rd32(d + 4);
	type_len = rd32(d + 12);
	str_off = rd32(d + 16);
	str_len = rd32(d + 20);
	if (hdr_len >= 32) {
		layout_off = rd32(d + 24);
		layout_len = rd32(d + 28);
	}
	if (hdr_len > size || rd32(d + 8) != 0 ||
	    (uint64_t)hdr_len + str_off + str_len > size ||
	    (uint64_t)hdr_len + type_len > size ||
	    (uint64_t)hdr_len + layout_off + layout_len > size)
		return fail(in, "sections out of bounds");
	memcpy(layout, kind_sizes, sizeof(layout));
	for (i = 0; i < layout_len / 4 && i < NR_OUT_KINDS; i++)
		memcpy(&layout[i], d + hdr_len + layout_off + 4 * i, 4);

	/* find IN's last id, its 'int' and its first FUNC_PROTO */
	for (off = 0; off < type_len; n++) {
		const uint8_t *t = d + hdr_len + off;
		uint32_t info = rd32(t + 4), kind = info >> 24 & 0x7f;
		uint32_t vlen = info & 0xffffff;
		const char *name = (const char *)d + hdr_len + str_off + rd32(t);

		if (kind == 0 || kind > 19)
			return fail(in, "a kind other than 1-19");
		if (kind == 1 && !int_id && !strcmp(name, "int"))
			int_id = n + 1;
		if (kind == 13 && !proto_id)
			proto_id = n + 1;
		if (kind == 12)	/* FUNC: vlen is the linkage */
			vlen = 0;
		off += 12 + layout[kind].info_sz + vlen * layout[kind].elem_sz;
	}
	if (off != type_len || !int_id)
		return fail(in, "type section does not add up, or no 'int'");

	put(&types, d + hdr_len, type_len);
	put(&strs, d + hdr_len + str_off, str_len);
	{
		uint32_t site_name = add_str(&strs, "kind_site");
		uint32_t sec_name = add_str(&strs, ".loc");
		uint32_t holder = add_str(&strs, "kind_holder");
		uint32_t site = add_str(&strs, "site");
		uint32_t count = add_str(&strs, "count");
		uint32_t alias = add_str(&strs, "kind_site_t");
		const uint32_t param_reg[] = { 0, 20u << 24, (uint32_t)-4, 5, 0 };
		const uint32_t param_const[] = { 0, 1u << 31 | 20u << 24, 8, 42, 0 };
		const uint32_t loc_proto[] = { 0, 21u << 24 | 2, proto_id,
					       n + 1, n + 2 };
		const uint32_t locsec[] = { sec_name, 22u << 24 | 1, 0,
					    site_name, proto_id, n + 3, 0x40 };
		const uint32_t ptr[] = { 0, 2u << 24, n + 3 };
		const uint32_t st[] = { holder, 4u << 24 | 2, 16,
					site, n + 5, 0, count, int_id, 64 };
		const uint32_t td[] = { alias, 8u << 24, n + 4 };

		put_words(&types, param_reg, 5);
		put_words(&types, param_const, 5);
		put_words(&types, loc_proto, 5);
		put_words(&types, locsec, 7);
		put_words(&types, ptr, 3);
		put_words(&types, st, 9);
		put_words(&types, td, 3);
	}
	while (strs.len % 4)	/* keeps the layout section after them aligned */
		put(&strs, "", 1);

	{
		uint32_t hdr[8] = { 0x0001eb9f, with_layout ? 32 : 24, 0,
				    types.len, types.len, strs.len };

		if (with_layout) {
			/* types, the layout section, strings: as pahole */
			hdr[4] = types.len + 4 * NR_OUT_KINDS;
			hdr[6] = types.len;
			hdr[7] = 4 * NR_OUT_KINDS;
		}
		put_words(&out, hdr, with_layout ? 8 : 6);
		put(&out, types.data, types.len);
		if (with_layout)
			put(&out, layout, sizeof(layout));
		put(&out, strs.data, strs.len);
	}
	f = fopen(out_path, "wb");
	if (!f || fwrite(out.data, 1, out.len, f) != out.len || fclose(f))
		return fail(out_path, "cannot write");
	free(d);
	free(types.data);
	free(strs.data);
	free(out.data);
	return 0;
}
