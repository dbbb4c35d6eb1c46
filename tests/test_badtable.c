// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bad inputs and bad outputs as one table, through the command line
 * ($BTFCANON): every row names an input, a command, the exit status and a
 * phrase the message must hold. For every row:
 *
 *	- the status is the expected one (1 bad input or failed write, 2 usage)
 *	  and not a crash;
 *	- stderr names the file and holds the phrase;
 *	- the output directory is left empty: no output, no partial file, no
 *	  temporary file.
 *
 * The inputs are made once per run (an unchecked fixture) in a scratch
 * directory: a small BTF built with libbpf whose byte layout is known
 * (KNOWN_LAYOUT below), broken one field at a time; and a small C file
 * compiled with gcc -g, truncated or with its DWARF broken. test_badinput.c
 * holds the parser's own cases at the API level; test_encode.c the
 * encoder's DWARF cases in depth; this table is what a user sees.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <zlib.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "suites.h"
#include "testutil.h"
#include "../canon/btf_kinds.h"
#include "../archive/internal.h"

static char scratch[] = "/tmp/btfcanon-badtable-XXXXXX";

static const char source[] =
	"struct node { int val; struct node *next; };\n"
	"typedef struct node node_t;\n"
	"enum color { RED, GREEN = 5 };\n"
	"int node_sum(const node_t *n, enum color c) { return n ? n->val + c : 0; }\n";

/*
 * KNOWN_LAYOUT of good.btf: a 24-byte header, then the type section
 *	[1] INT 'int' size=4		bytes 24..39
 *	[2] PTR -> [3]			bytes 40..51 (type at 48)
 *	[3] STRUCT 'node' vlen=2	bytes 52..63 (info at 56), members
 *	    'val' -> [1]		bytes 64..75
 *	    'next' -> [2]		bytes 76..87 (type at 80)
 * and the strings after it.
 */
enum {
	HDR_MAGIC = 0, HDR_VERSION = 2, HDR_FLAGS = 3, HDR_HDR_LEN = 4,
	HDR_TYPE_OFF = 8, HDR_TYPE_LEN = 12, HDR_STR_OFF = 16, HDR_STR_LEN = 20,
	INT_NAME = 24, INT_INFO = 28, PTR_TYPE = 48, STRUCT_INFO = 56, NEXT_TYPE = 80,
};
/* ... and of its 2026 form (make_layout_inputs) */
enum { LAYOUT_OFF = 24, LAYOUT_LEN = 28, LAYOUT_ENTRIES = 32 + 64 };

static char *in_scratch(const char *name)
{
	char *path;

	ck_assert_int_gt(asprintf(&path, "%s/%s", scratch, name), 0);
	return path;
}

static void write_whole(const char *name, const void *data, size_t size)
{
	char *path = in_scratch(name);
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, size, f), size);
	ck_assert_int_eq(fclose(f), 0);
	free(path);
}

/* A copy of the blob with 4 bytes at off replaced by value (little endian). */
static void write_patched(const char *name, const struct blob *b, size_t off,
			  uint32_t value, size_t width)
{
	uint8_t *copy = malloc(b->size);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, b->data, b->size);
	memcpy(copy + off, &value, width);
	write_whole(name, copy, b->size);
	free(copy);
}

/* File offset and size of section name of the ELF file path. */
static void find_section(const char *path, const char *name, size_t *off,
			 size_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		ck_assert_ptr_nonnull(gelf_getshdr(scn, &shdr));
		if (strcmp(elf_strptr(elf, shstrndx, shdr.sh_name), name))
			continue;
		*off = shdr.sh_offset;
		*size = shdr.sh_size;
		elf_end(elf);
		close(fd);
		return;
	}
	ck_abort_msg("%s: no section %s", path, name);
}

/*
 * Offset in .debug_info of the first DW_FORM_ref4 attribute of the first
 * unit's children: a reference to aim outside its unit.
 */
static size_t first_ref4(const char *path)
{
	int fd = open(path, O_RDONLY);
	Dwarf_Die cu, die;
	Dwarf_Off next;
	size_t hsize, found = 0;
	Dwarf *dw;

	ck_assert_int_ge(fd, 0);
	dw = dwarf_begin(fd, DWARF_C_READ);
	ck_assert_ptr_nonnull(dw);
	ck_assert_int_eq(dwarf_nextcu(dw, 0, &next, &hsize, NULL, NULL, NULL), 0);
	ck_assert_ptr_nonnull(dwarf_offdie(dw, hsize, &cu));
	ck_assert_int_eq(dwarf_child(&cu, &die), 0);
	do {
		Dwarf_Attribute attr;

		if (dwarf_attr(&die, DW_AT_type, &attr) &&
		    dwarf_whatform(&attr) == DW_FORM_ref4) {
			found = (const char *)attr.valp - (const char *)cu.addr + hsize;
			break;
		}
	} while (!dwarf_siblingof(&die, &die));
	dwarf_end(dw);
	close(fd);
	ck_assert_msg(found, "%s: no DW_FORM_ref4 type reference", path);
	return found;
}

/*
 * good.btf in the 2026 form: a 32-byte header, the types (bytes 32..95),
 * pahole's 20-entry kind layout section (96..175), the strings; broken
 * in its section or header.
 */
static void make_layout_inputs(const struct blob *good)
{
	struct bc_btf_layout layout[BC_NR_KINDS];
	struct blob lay = { malloc(good->size), good->size };
	uint32_t i;

	ck_assert_ptr_nonnull(lay.data);
	memcpy(lay.data, good->data, good->size);
	for (i = 0; i < BC_NR_KINDS; i++)
		layout[i] = bc_kind_btf_layout(i);
	ck_assert_int_eq(bc_btf_blob_add_layout(&lay.data, &lay.size, layout,
						BC_NR_KINDS), 0);
	write_patched("layout-len.btf", &lay, LAYOUT_LEN, 0x1000, 4);
	write_patched("layout-strs.btf", &lay, LAYOUT_LEN, 84, 4);
	write_patched("layout-odd.btf", &lay, LAYOUT_OFF, 66, 4);
	write_patched("layout-struct.btf", &lay, LAYOUT_ENTRIES +
		      4 * BTF_KIND_STRUCT + 1, 16, 1);
	write_patched("layout-hdrlen.btf", &lay, HDR_HDR_LEN, 28, 4);
	blob_free(&lay);
}

/*
 * good.btf with the inline-site kinds 20-22 after [3] and known types
 * referring to them (tests/tools/btf-add-kinds, built beside $BTFCANON):
 * [4] is the first of kind 20; with the kind layout section that sizes
 * them, and without it.
 */
static void make_kind_inputs(void)
{
	const char *cli = getenv("BTFCANON"), *slash;

	ck_assert_msg(cli, "BTFCANON names the binary (make check sets it)");
	slash = strrchr(cli, '/');
	ck_assert_int_eq(test_sh("%.*sbtf-add-kinds %s/good.btf %s/kinds.btf && "
				 "%.*sbtf-add-kinds --no-layout %s/good.btf %s/kinds-nol.btf",
				 slash ? (int)(slash - cli + 1) : 0, cli, scratch,
				 scratch, slash ? (int)(slash - cli + 1) : 0, cli,
				 scratch, scratch), 0);
}

static void make_btf_inputs(void)
{
	struct btf *btf = btf__new_empty();
	struct blob good;
	uint32_t str_len;

	ck_assert_ptr_nonnull(btf);
	ck_assert_int_eq(btf__add_int(btf, "int", 4, BTF_INT_SIGNED), 1);	/* [1] */
	ck_assert_int_eq(btf__add_ptr(btf, 3), 2);				/* [2] */
	ck_assert_int_eq(btf__add_struct(btf, "node", 16), 3);		/* [3] */
	ck_assert_int_eq(btf__add_field(btf, "val", 1, 0, 0), 0);
	ck_assert_int_eq(btf__add_field(btf, "next", 2, 64, 0), 0);
	good = blob_from_libbpf(btf);
	btf__free(btf);
	ck_assert_uint_eq(((uint32_t *)good.data)[HDR_TYPE_LEN / 4], 64);
	str_len = ((uint32_t *)good.data)[HDR_STR_LEN / 4];

	write_whole("good.btf", good.data, good.size);
	write_whole("empty.btf", good.data, 0);
	write_whole("cut4.btf", good.data, 4);
	write_whole("cut23.btf", good.data, 23);
	write_whole("cut40.btf", good.data, 40);
	write_whole("cut70.btf", good.data, 70);
	write_whole("cutlast.btf", good.data, good.size - 1);
	write_patched("magic.btf", &good, HDR_MAGIC, 0x1234, 2);
	write_patched("version.btf", &good, HDR_VERSION, 7, 1);
	write_patched("flags.btf", &good, HDR_FLAGS, 1, 1);
	write_patched("hdrlen-small.btf", &good, HDR_HDR_LEN, 8, 4);
	write_patched("hdrlen-huge.btf", &good, HDR_HDR_LEN, 0x10000, 4);
	write_patched("typeoff.btf", &good, HDR_TYPE_OFF, 2, 4);
	write_patched("typelen.btf", &good, HDR_TYPE_LEN, 0x1000, 4);
	write_patched("stroff.btf", &good, HDR_STR_OFF, 0x1000, 4);
	write_patched("strlen.btf", &good, HDR_STR_LEN, str_len + 1, 4);
	write_patched("strname.btf", &good, INT_NAME, 0xffff, 4);
	write_patched("typeid.btf", &good, PTR_TYPE, 999, 4);
	/* [2] PTR -> [2]: a loop that no struct breaks */
	write_patched("loop.btf", &good, PTR_TYPE, 2, 4);
	/* [3] with 100 members where 2 are */
	write_patched("vlen.btf", &good, STRUCT_INFO,
		      BTF_KIND_STRUCT << 24 | 100, 4);
	/* an INT with 3 entries: a kind that has none */
	write_patched("int-vlen.btf", &good, INT_INFO, BTF_KIND_INT << 24 | 3, 4);
	/* a member's type id out of range */
	write_patched("member.btf", &good, NEXT_TYPE, 0x7fffffff, 4);
	make_layout_inputs(&good);
	make_kind_inputs();
	blob_free(&good);
}

static void make_elf_inputs(void)
{
	char *obj = in_scratch("dwarf.o"), *src = in_scratch("s.c");
	size_t off, size;
	struct blob elf;
	uint8_t *copy;

	write_whole("s.c", source, sizeof(source) - 1);
	write_whole("text.o", "this is not ELF\n", 16);
	ck_assert_int_eq(test_sh("gcc -g -O0 -gdwarf-5 -c %s -o %s", src, obj), 0);
	ck_assert_int_eq(test_sh("gcc -O0 -c %s -o %s/nodebug.o", src, scratch), 0);
	elf = read_file(obj);
	ck_assert_uint_gt(elf.size, 1024);
	write_whole("elf-cut16.o", elf.data, 16);
	write_whole("elf-cut64.o", elf.data, 64);
	write_whole("elf-cuthalf.o", elf.data, elf.size / 2);
	write_whole("elf-cutlast.o", elf.data, elf.size - 1);

	copy = malloc(elf.size);
	ck_assert_ptr_nonnull(copy);
	/* .debug_abbrev all 0xff: abbrev codes and tags no unit can use */
	find_section(obj, ".debug_abbrev", &off, &size);
	memcpy(copy, elf.data, elf.size);
	memset(copy + off, 0xff, size);
	write_whole("abbrev.o", copy, elf.size);
	/*
	 * The first abbrev's first form (code, tag, children and attribute
	 * are one byte each in gcc's first abbrev) set to 0x7e, no DWARF form.
	 */
	memcpy(copy, elf.data, elf.size);
	ck_assert_uint_lt(copy[off + 3], 0x80);
	copy[off + 4] = 0x7e;
	write_whole("form.o", copy, elf.size);
	/* a type reference 2 GB into a unit of a few hundred bytes */
	find_section(obj, ".debug_info", &off, &size);
	memcpy(copy, elf.data, elf.size);
	memcpy(copy + off + first_ref4(obj), &(uint32_t){ 0x7ffffff0 }, 4);
	write_whole("ref.o", copy, elf.size);
	free(copy);
	blob_free(&elf);

	free(src);
	free(obj);
}

/*
 * m3.bca (format 6: three kernels with modules m and n) written with a
 * stream a module name, then its stream index forged, the checksum made
 * good: the second stream of the modules section says it starts at name
 * 2, not 1, so the first says it holds the groups of m and n and holds
 * only m's. A whole read only fills the body from the streams; an
 * extract of 9.11's module m reads by the index and refuses.
 */
static void forge_module_index(void)
{
	struct bc_archive *ar;
	char path[512];
	struct blob f;
	uint8_t *d;
	uint32_t n, i, last = 0, crc;

	snprintf(path, sizeof(path), "%s/m3.bca", scratch);
	ck_assert_int_eq(bc_archive_open(path, &ar, NULL), 0);
	ar->module_cut_bytes = 1;	/* what xfs's size does in Debian's */
	ck_assert_int_eq(bc_archive_write(ar, path, NULL), 0);
	bc_archive_free(ar);
	f = read_file(path);
	ck_assert_ptr_nonnull(f.data);
	d = f.data;
	ck_assert_uint_eq(d[8], 6);
	n = d[32] | d[33] << 8 | d[34] << 16 | (uint32_t)d[35] << 24;
	for (i = 0; i < n; i++)
		if (d[36 + 22 * i + 1] == 6)	/* the modules' section */
			last = i;
	ck_assert_uint_eq(d[36 + 22 * last + 2], 1);
	d[36 + 22 * last + 2] = 2;
	crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), d, (uInt)(f.size - 4));
	for (i = 0; i < 4; i++)
		d[f.size - 4 + i] = (uint8_t)(crc >> (8 * i));
	write_whole("m3-forged.bca", f.data, f.size);
	blob_free(&f);
}

/*
 * Kernels with modules (archive/kernel_set.h), for deps --kernel: a
 * modules tree with no kernel beside it, a directory that is no kernel,
 * and a .deb of modules without the kernel.
 */
static void make_module_inputs(void)
{
	char *cli;

	ck_assert_int_eq(test_sh("cd %s && mkdir -p kmods/kernel nokernel.d "
				 "pkg/DEBIAN pkg/lib/modules/9.9/kernel && "
				 "echo > kmods/modules.dep && "
				 "cp good.btf kmods/kernel/m.ko && "
				 "cp good.btf pkg/lib/modules/9.9/kernel/m.ko && "
				 "printf 'Package: m\\nVersion: 1\\nArchitecture: all\\n"
				 "Maintainer: t <t@invalid>\\nDescription: m\\n' "
				 "> pkg/DEBIAN/control && "
				 "dpkg-deb --root-owner-group --build pkg modules-only.deb "
				 "> /dev/null && rm -r pkg", scratch), 0);
	/* an archive of a kernel with one module, one of a kernel alone */
	cli = realpath(getenv("BTFCANON"), NULL);
	ck_assert_ptr_nonnull(cli);
	ck_assert_int_eq(test_sh("cd %s && mkdir mdir && cp good.btf mdir/vmlinux && "
				 "%s encode --btf_base good.btf dwarf.o -o mdir/m.btf && "
				 "%s archive create mods.bca mdir --name 9.9 && "
				 "%s archive create plain.bca good.btf --name 9.9 && "
				 "cp mdir/m.btf mdir/n.btf && "
				 "%s archive create m3.bca mdir mdir mdir --name 9.9 "
				 "--name 9.10 --name 9.11 && "
				 "rm -r mdir", scratch, cli, cli, cli, cli), 0);
	free(cli);
	forge_module_index();
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	make_btf_inputs();
	make_elf_inputs();
	make_module_inputs();
}

static void teardown(void)
{
	test_sh("rm -rf %s", scratch);
}

struct bad_row {
	const char *what;
	/* sort, encode, dump, encode -j1, ...; "deps --save": the kernel saved */
	const char *command;
	const char *input;	/* in the scratch directory */
	const char *output;	/* NULL: out/result.btf in the scratch directory */
	int status;
	const char *phrase;	/* in stderr, after the file's name */
};

static const struct bad_row rows[] = {
	/* not BTF, not ELF */
	{ "empty file", "sort", "empty.btf", NULL, 1, "empty" },
	{ "text, sort", "sort", "text.o", NULL, 1, "bad magic" },
	{ "text, encode", "encode", "text.o", NULL, 1, "not an ELF file" },
	{ "text, dump", "dump", "text.o", NULL, 2, "bad magic" },
	{ "ELF without .BTF", "sort", "nodebug.o", NULL, 1, "no .BTF section" },
	{ "ELF without DWARF", "encode", "nodebug.o", NULL, 1, "no DWARF" },
	/* BTF truncated */
	{ "BTF cut at 4", "sort", "cut4.btf", NULL, 1, "truncated" },
	{ "BTF cut at 23", "sort", "cut23.btf", NULL, 1, "truncated" },
	{ "BTF cut at 40", "sort", "cut40.btf", NULL, 1, "the file is truncated" },
	{ "BTF cut at 70", "sort", "cut70.btf", NULL, 1, "but only 46 follow" },
	{ "BTF cut before the last byte", "sort", "cutlast.btf", NULL, 1, "but only 82 follow" },
	/* every header field */
	{ "magic", "sort", "magic.btf", NULL, 1, "bad magic" },
	{ "version", "sort", "version.btf", NULL, 1, "version 7" },
	{ "flags", "sort", "flags.btf", NULL, 1, "unsupported header flags 0x1" },
	{ "hdr_len too small", "sort", "hdrlen-small.btf", NULL, 1, "header length 8 out of range" },
	{ "hdr_len too large", "sort", "hdrlen-huge.btf", NULL, 1, "header length 65536 out of range" },
	{ "type_off", "sort", "typeoff.btf", NULL, 1, "got types 2+64" },
	{ "type_len", "sort", "typelen.btf", NULL, 1, "types 0+4096" },
	{ "str_off", "sort", "stroff.btf", NULL, 1, "strings 4096+19" },
	{ "str_len", "sort", "strlen.btf", NULL, 1, "strings 64+20 need 84 bytes" },
	/* types */
	{ "name offset out of range", "sort", "strname.btf", NULL, 1,
	  "string offset 65535 out of range" },
	{ "type id out of range", "sort", "typeid.btf", NULL, 1,
	  "refers to type id 999, which does not exist" },
	{ "member type id out of range", "dump", "member.btf", NULL, 2,
	  "refers to type id 2147483647" },
	{ "loop without a struct", "sort", "loop.btf", NULL, 1,
	  "reference loop with no struct or union in it through type [2]" },
	{ "vlen larger than the data", "sort", "vlen.btf", NULL, 1,
	  "with vlen 100 needs" },
	{ "vlen on a kind without entries", "sort", "int-vlen.btf", NULL, 1,
	  "type [1] INT has vlen 3" },
	{ "bad BTF, diff", "diff", "vlen.btf", NULL, 2, "with vlen 100 needs" },
	/* the 2026 header and its kind layout section */
	{ "layout section past the end", "sort", "layout-len.btf", NULL, 1,
	  "bad kind layout section: it runs past the end" },
	{ "layout section over the strings", "dump", "layout-strs.btf", NULL, 2,
	  "overlaps the string section" },
	{ "layout section misaligned", "sort", "layout-odd.btf", NULL, 1,
	  "not 4-byte aligned" },
	{ "layout entry wrong for STRUCT", "diff", "layout-struct.btf", NULL, 2,
	  "entry 4 (STRUCT) says 0 bytes after the type and 16 per entry" },
	{ "hdr_len 28", "sort", "layout-hdrlen.btf", NULL, 1,
	  "header length 28: neither the 24-byte header nor the 32-byte one" },
	/* kinds btfcanon does not know: sized by the layout section or not */
	{ "unknown kind with a layout section, sort", "sort", "kinds.btf", NULL, 1,
	  "type [4] has kind 20, which btfcanon does not know: the kind layout section gives its size, but not which of its words are type ids, so it cannot be sorted nor its ids renumbered" },
	{ "unknown kind without a layout section, sort", "sort", "kinds-nol.btf", NULL, 1,
	  "type [4] has unknown kind 20, a kind newer than btfcanon, and the BTF has no kind layout section to say how long its record is" },
	{ "unknown kind without a layout section, dump", "dump", "kinds-nol.btf", NULL, 2,
	  "type [4] has unknown kind 20, a kind newer than btfcanon, and the BTF has no kind layout section" },
	{ "unknown kind without a layout section, diff", "diff", "kinds-nol.btf", NULL, 2,
	  "type [4] has unknown kind 20, a kind newer than btfcanon, and the BTF has no kind layout section" },
	/* ELF and DWARF */
	{ "ELF cut at 16", "encode", "elf-cut16.o", NULL, 1, "not an ELF file" },
	{ "ELF cut at 64", "encode", "elf-cut64.o", NULL, 1,
	  "truncated: its section headers end at byte" },
	{ "ELF cut in half", "encode", "elf-cuthalf.o", NULL, 1, "truncated" },
	{ "ELF cut before the last byte", "encode", "elf-cutlast.o", NULL, 1, "truncated" },
	{ "bad abbrev table", "encode", "abbrev.o", NULL, 1,
	  "cannot read the unit's DIEs" },
	{ "unknown form", "encode", "form.o", NULL, 1,
	  "cannot decode its attributes" },
	{ "reference outside its unit", "encode", "ref.o", NULL, 1,
	  "bad DW_AT_type reference" },
	/* kernels with their modules */
	{ "modules tree without its kernel", "deps --save", "kmods", NULL, 2,
	  "a modules tree without its kernel" },
	{ "directory that holds no kernel", "deps --save", "nokernel.d", NULL, 2,
	  "a directory of BTF needs the kernel's as vmlinux" },
	{ "package of modules without its kernel", "deps --save",
	  "modules-only.deb", NULL, 2, "the package holds no kernel" },
	/* an archive's modules: "archive extract ARGS" after the archive */
	{ "module the kernel lacks", "archive extract 9.9/nosuch", "mods.bca",
	  NULL, 1, "kernel '9.9' has no module 'nosuch'" },
	{ "module of a kernel stored without", "archive extract 9.9/m",
	  "plain.bca", NULL, 1, "has no module 'm' (it was stored without modules)" },
	{ "format 6: a forged stream index", "archive extract 9.11/m",
	  "m3-forged.bca", NULL, 1, "m3-forged.bca: damaged archive: bad modules" },
	{ "--merged with a module the kernel lacks",
	  "archive extract 9.9 m nosuch --merged", "mods.bca", NULL, 1,
	  "kernel '9.9' has no module 'nosuch'" },
	/* outputs */
	{ "output in a missing directory", "sort", "good.btf",
	  "no/such/dir/out.btf", 1, "No such file or directory" },
	{ "encode output in a missing directory", "encode", "dwarf.o",
	  "no/such/dir/out.btf", 1, "No such file or directory" },
	{ "output on a full disk", "sort", "good.btf", "/dev/full", 1,
	  "No space left on device" },
	{ "encode output on a full disk", "encode", "dwarf.o", "/dev/full", 1,
	  "No space left on device" },
	{ "dump output on a full disk", "dump", "good.btf", "/dev/full", 2,
	  "No space left on device" },
};

#define NR_ROWS (int)(sizeof(rows) / sizeof(rows[0]))

/* Fails unless dir has no entries: no output, no temporary left. */
static void assert_empty_dir(const char *dir, const char *what)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			ck_abort_msg("%s: %s/%s was left behind", what, dir,
				     e->d_name);
	}
	closedir(d);
}

START_TEST(test_bad_row)
{
	const struct bad_row *row = &rows[_i];
	const char *cli = getenv("BTFCANON");
	char *input = in_scratch(row->input), *outdir, *err_path;
	char *output, *named;
	struct blob err;
	int status;

	ck_assert_msg(cli, "BTFCANON names the binary (make check sets it)");
	/* a directory of its own: a row that fails leaves nothing for the next */
	ck_assert_int_gt(asprintf(&outdir, "%s/out%d", scratch, _i), 0);
	ck_assert_int_gt(asprintf(&err_path, "%s/stderr%d", scratch, _i), 0);
	ck_assert_int_eq(mkdir(outdir, 0755), 0);
	if (!row->output)
		ck_assert_int_gt(asprintf(&output, "%s/result.btf", outdir), 0);
	else if (row->output[0] == '/')
		output = strdup(row->output);
	else
		ck_assert_int_gt(asprintf(&output, "%s/%s", outdir, row->output), 0);
	if (!strcmp(row->command, "deps --save"))
		status = test_sh("%s deps --kernel %s --save %s 2> %s", cli, input,
			    output, err_path);
	else if (!strncmp(row->command, "archive extract ", 16))
		status = test_sh("%s archive extract %s %s -o %s 2> %s", cli, input,
				 row->command + 16, output, err_path);
	else if (!strcmp(row->command, "diff"))
		status = test_sh("%s diff %s/good.btf %s > %s/diff.out 2> %s", cli,
			    scratch, input, scratch, err_path);
	else
		status = test_sh("%s %s %s -o %s 2> %s", cli, row->command, input,
			    output, err_path);
	err = read_file(err_path);
	ck_assert_ptr_nonnull(err.data);
	((char *)err.data)[err.size < 4096 ? err.size : 4095] = '\0';
	ck_assert_msg(status == row->status, "%s: exit status %d, want %d; stderr: %s",
		      row->what, status, row->status, (char *)err.data);
	named = row->output ? output : input;
	ck_assert_msg(strstr(err.data, named), "%s: stderr does not name %s: %s",
		      row->what, named, (char *)err.data);
	ck_assert_msg(strstr(err.data, row->phrase), "%s: stderr lacks '%s': %s",
		      row->what, row->phrase, (char *)err.data);
	assert_empty_dir(outdir, row->what);
	blob_free(&err);
	free(output);
	free(err_path);
	free(outdir);
	free(input);
}
END_TEST

Suite *badtable_suite(void)
{
	Suite *s = suite_create("badtable");
	TCase *tc = tcase_create("rows");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_bad_row, 0, NR_ROWS);
	suite_add_tcase(s, tc);
	return s;
}
