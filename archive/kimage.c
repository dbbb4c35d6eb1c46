// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel images: find the compressed payload from the image's own header,
 * decompress it in memory (decompress.h), and take the BTF from
 * what comes out: the .BTF section of an ELF vmlinux, or the largest blob
 * with a well-formed BTF header in a raw memory image. Only the BTF is
 * kept; the decompressed kernel (tens of MB) is freed before returning.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <linux/btf.h>

#include "decompress.h"
#include "kimage.h"
#include "package.h"

static uint16_t le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static const uint8_t elf_magic[4] = { 0x7f, 'E', 'L', 'F' };
static const uint8_t btf_magic[4] = { 0x9f, 0xeb, BTF_VERSION, 0 };

/* x86 boot protocol: arch/x86/boot/header.S, Documentation/arch/x86/boot.rst */
#define BZ_SETUP_SECTS	0x1f1
#define BZ_HEADER	0x202	/* "HdrS" */
#define BZ_VERSION	0x206
#define BZ_PAYLOAD_OFF	0x248	/* from the protected-mode code, 2.08+ */
#define BZ_PAYLOAD_LEN	0x24c

static bool is_bzimage(const uint8_t *d, size_t size)
{
	return size >= BZ_PAYLOAD_LEN + 4 && !memcmp(d + BZ_HEADER, "HdrS", 4);
}

/* arm64's Image header (and RISC-V's, which borrowed its layout) */
static bool is_raw_image(const uint8_t *d, size_t size)
{
	return size >= 64 && (!memcmp(d + 56, "ARM\x64", 4) ||
			      !memcmp(d + 56, "RSC\x05", 4));
}

/* drivers/firmware/efi/libstub/zboot-header.S */
static bool is_zboot(const uint8_t *d, size_t size)
{
	return size >= 56 && d[0] == 'M' && d[1] == 'Z' &&
	       !memcmp(d + 4, "zimg", 4);
}

bool bc_kimage_detect(const uint8_t *data, size_t size)
{
	if (size >= 4 && (!memcmp(data, elf_magic, 4) ||
			  !memcmp(data, btf_magic, 2)))
		return false;
	return is_bzimage(data, size) || is_zboot(data, size) ||
	       is_raw_image(data, size) ||
	       bc_comp_detect(data, size) != BC_COMP_NONE;
}

/*
 * The size of the BTF blob at p when its header holds up: magic, version
 * 1, no flags, a header of 24 to 256 bytes, aligned types, every section
 * inside avail, and a string section that starts and ends with a NUL.
 * 0 when it does not.
 */
static size_t btf_extent(const uint8_t *p, size_t avail)
{
	struct bc_btf_header_layout h;
	uint64_t end, sec_end;
	const uint8_t *strs;

	memset(&h, 0, sizeof(h));
	if (avail < sizeof(h.base))
		return 0;
	memcpy(&h.base, p, sizeof(h.base));
	if (h.base.magic != BTF_MAGIC || h.base.version != BTF_VERSION ||
	    h.base.flags || h.base.hdr_len < sizeof(h.base) ||
	    h.base.hdr_len > 256 || h.base.hdr_len % 4 ||
	    h.base.hdr_len > avail)
		return 0;
	if (h.base.hdr_len >= sizeof(h))
		memcpy(&h, p, sizeof(h));
	if (h.base.type_off % 4 || h.base.type_len % 4 || !h.base.str_len)
		return 0;
	end = (uint64_t)h.base.type_off + h.base.type_len;
	sec_end = (uint64_t)h.base.str_off + h.base.str_len;
	end = sec_end > end ? sec_end : end;
	sec_end = (uint64_t)h.layout_off + h.layout_len;
	end = sec_end > end ? sec_end : end;
	if (end > avail - h.base.hdr_len)
		return 0;
	strs = p + h.base.hdr_len + h.base.str_off;
	if (strs[0] || strs[h.base.str_len - 1])
		return 0;
	return h.base.hdr_len + end;
}

/*
 * The largest well-formed BTF blob in a raw memory image. The kernel's is
 * the .BTF section; smaller ones (the BTF of BPF programs the kernel
 * embeds, such as its preloaded iterators) may come before or after it.
 */
static bool scan_btf(const uint8_t *d, size_t size, size_t *off, size_t *len)
{
	const uint8_t *p = d, *end = d + size;

	*len = 0;
	while ((p = memmem(p, end - p, btf_magic, sizeof(btf_magic)))) {
		size_t n = btf_extent(p, end - p);

		if (n > *len) {
			*off = p - d;
			*len = n;
		}
		p += n ? n : 1;
	}
	return *len != 0;
}

/* The .BTF section of the ELF file in memory d[0..size). */
static int elf_btf(const char *path, const char *what, const uint8_t *d,
		   size_t size, size_t *off, size_t *len,
		   const struct bc_log *log)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err = -ENOENT;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)d, size);	/* read only: ELF_C_READ */
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		err = bc_log_error(log, -EINVAL, "%s: the vmlinux in the %s is not a valid ELF file: %s",
				   path, what, elf_errmsg(-1));
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			break;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name || strcmp(name, ".BTF"))
			continue;
		if (shdr.sh_type == SHT_NOBITS || (shdr.sh_flags & SHF_COMPRESSED) ||
		    shdr.sh_offset > size || shdr.sh_size > size - shdr.sh_offset) {
			err = bc_log_error(log, -EINVAL,
					   "%s: the .BTF section of the vmlinux in the %s lies outside it",
					   path, what);
			goto out;
		}
		*off = shdr.sh_offset;
		*len = shdr.sh_size;
		err = 0;
		goto out;
	}
	err = bc_log_error(log, -ENOENT,
			   "%s: the vmlinux in the %s has no .BTF section (a kernel built without CONFIG_DEBUG_INFO_BTF)",
			   path, what);
out:
	elf_end(elf);
	return err;
}

static int copy_out(const uint8_t *d, size_t len, struct bc_blob *blob)
{
	void *copy = malloc(len ? len : 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, d, len);
	blob->mem = copy;
	blob->data = copy;
	blob->size = len;
	return 0;
}

/*
 * The BTF of a kernel's contents d[0..size) (decompressed or not): an ELF
 * vmlinux's .BTF, a raw BTF file as it is, else the BTF found in a raw
 * memory image. what names the contents in messages.
 */
static int contents_btf(const char *path, const char *what, const uint8_t *d,
			size_t size, struct bc_blob *blob, const struct bc_log *log)
{
	size_t off = 0, len = 0;
	int err;

	if (size >= 4 && !memcmp(d, elf_magic, 4)) {
		err = elf_btf(path, what, d, size, &off, &len, log);
		if (err)
			return err;
	} else if (size >= 4 && !memcmp(d, btf_magic, 2)) {
		off = 0;
		len = size;
	} else if (!scan_btf(d, size, &off, &len)) {
		return bc_log_error(log, -ENOENT,
				    "%s: no BTF in the %s (no well-formed BTF header; a kernel built without CONFIG_DEBUG_INFO_BTF?)",
				    path, what);
	}
	err = copy_out(d + off, len, blob);
	return err ? bc_log_error(log, err, "%s: out of memory", path) : 0;
}

/*
 * Decompresses the payload in[0..in_size) (compression comp, expected
 * output size_hint or 0) and takes the BTF out of it.
 */
static int payload_btf(const char *path, const char *what, enum bc_comp comp,
		       const uint8_t *in, size_t in_size, size_t size_hint,
		       size_t max_output, struct bc_blob *blob,
		       const struct bc_log *log)
{
	struct bc_comp_error why;
	uint8_t *out;
	size_t out_size;
	char inner[96];
	int err;

	err = bc_decompress(comp, in, in_size, size_hint, max_output, &out,
			    &out_size, &why);
	if (err == -EFBIG)
		return bc_log_error(log, err,
				    "%s: %s compressed with %s: decompresses to more than %zu MiB",
				    path, what, bc_comp_name(comp), max_output >> 20);
	if (err == -EINVAL)
		return bc_log_error(log, err, "%s: %s compressed with %s: %s at byte %zu",
				    path, what, bc_comp_name(comp), why.why, why.at);
	if (err)
		return bc_log_error(log, err, "%s: out of memory decompressing the %s",
				    path, what);
	snprintf(inner, sizeof(inner), "decompressed %s", what);
	err = contents_btf(path, inner, out, out_size, blob, log);
	free(out);
	return err;
}

static int bzimage_btf(const char *path, const uint8_t *d, size_t size,
		       size_t max_output, struct bc_blob *blob,
		       const struct bc_log *log)
{
	uint16_t version = le16(d + BZ_VERSION);
	size_t setup_sects = d[BZ_SETUP_SECTS] ? d[BZ_SETUP_SECTS] : 4;
	size_t start = (setup_sects + 1) * 512;
	uint32_t off = le32(d + BZ_PAYLOAD_OFF), len = le32(d + BZ_PAYLOAD_LEN);
	const uint8_t *payload;
	enum bc_comp comp;
	size_t hint = 0;

	if (version < 0x0208)
		return bc_log_error(log, -EINVAL,
				    "%s: bzImage boot protocol %u.%02u gives no payload (2.08 and later do)",
				    path, version >> 8, version & 0xff);
	if (start > size || off > size - start || len > size - start - off ||
	    len < 4)
		return bc_log_error(log, -EINVAL,
				    "%s: bzImage payload (offset %zu, length %u) lies outside the file (%zu bytes)",
				    path, start + off, len, size);
	payload = d + start + off;
	comp = bc_comp_detect(payload, len);
	if (comp == BC_COMP_NONE)
		return bc_log_error(log, -EINVAL,
				    "%s: bzImage payload is in no compression the kernel uses (it starts %02x %02x %02x %02x)",
				    path, payload[0], payload[1], payload[2], payload[3]);
	if (comp != BC_COMP_GZIP)	/* its size, appended by the build */
		hint = le32(payload + len - 4);
	return payload_btf(path, "bzImage payload", comp, payload, len, hint,
			   max_output, blob, log);
}

static int zboot_btf(const char *path, const uint8_t *d, size_t size,
		     size_t max_output, struct bc_blob *blob,
		     const struct bc_log *log)
{
	uint32_t off = le32(d + 8), len = le32(d + 12);
	char name[33];
	enum bc_comp comp;
	size_t hint = 0;

	memcpy(name, d + 24, 32);
	name[32] = 0;
	comp = bc_comp_from_zboot_name(name);
	if (comp == BC_COMP_NONE)
		return bc_log_error(log, -EINVAL,
				    "%s: EFI zboot image names an unknown compression \"%.32s\"",
				    path, name);
	if (off > size || len > size - off || !len)
		return bc_log_error(log, -EINVAL,
				    "%s: EFI zboot payload (offset %u, size %u) lies outside the file (%zu bytes)",
				    path, off, len, size);
	if (bc_comp_detect(d + off, len) != comp)
		return bc_log_error(log, -EINVAL,
				    "%s: EFI zboot payload does not start as %s data, which its header names",
				    path, bc_comp_name(comp));
	if (comp != BC_COMP_GZIP && size - off - len >= 4)
		hint = le32(d + off + len);
	return payload_btf(path, "EFI zboot payload", comp, d + off, len, hint,
			   max_output, blob, log);
}

int bc_kimage_read_btf(const char *path, const uint8_t *data, size_t size,
		       size_t max_output, struct bc_blob *blob,
		       const struct bc_log *log)
{
	enum bc_comp comp;

	memset(blob, 0, sizeof(*blob));
	if (is_bzimage(data, size))
		return bzimage_btf(path, data, size, max_output, blob, log);
	if (is_zboot(data, size))
		return zboot_btf(path, data, size, max_output, blob, log);
	if (is_raw_image(data, size))
		return contents_btf(path, !memcmp(data + 56, "ARM", 3) ?
				    "arm64 Image" : "RISC-V Image",
				    data, size, blob, log);
	if (size >= 4 && (!memcmp(data, elf_magic, 4) ||
			  !memcmp(data, btf_magic, 2)))
		return contents_btf(path, "file", data, size, blob, log);
	comp = bc_comp_detect(data, size);
	if (comp == BC_COMP_NONE)
		return bc_log_error(log, -EINVAL,
				    "%s: not a kernel image this reader knows", path);
	return payload_btf(path, "file", comp, data, size, 0, max_output, blob,
			   log);
}

/*
 * Takes suffix off the end of base[0..*len) when it is there and leaves
 * something; returns whether it did.
 */
static bool strip_suffix(const char *base, size_t *len, const char *suffix)
{
	size_t n = strlen(suffix);

	if (*len <= n || memcmp(base + *len - n, suffix, n))
		return false;
	*len -= n;
	return true;
}

/*
 * A file's kernel name: its base name without a kernel image's prefix
 * (vmlinuz-), then without the suffixes of one compressed stream of BTF
 * or of a tar of it (BTFHub's 4.18.0-147.5.1.el8_1.x86_64.btf.tar.xz):
 * one compression's (each that decompress.c reads), then .tar, then .btf.
 */
static char *strip_name(const char *path)
{
	static const char *const prefixes[] = {
		"vmlinuz-", "vmlinux-", "bzImage-", "Image-", "zImage-",
	};
	static const char *const compressions[] = {
		".gz", ".bz2", ".lzma", ".xz", ".lzo", ".lz4", ".zst",
	};
	const char *base = strrchr(path, '/');
	size_t i, len;

	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		if (!strncmp(base, prefixes[i], n) && base[n]) {
			base += n;
			break;
		}
	}
	len = strlen(base);
	for (i = 0; i < sizeof(compressions) / sizeof(compressions[0]); i++)
		if (strip_suffix(base, &len, compressions[i]))
			break;
	strip_suffix(base, &len, ".tar");
	strip_suffix(base, &len, ".btf");
	return strndup(base, len);
}

/*
 * The running kernel's BTF (/sys/kernel/btf, the directory or a file in
 * it, through any link) is named by uname -r: its files are named after
 * modules, the directory "btf", and neither tells a version.
 */
static char *running_name(const char *path)
{
	char *real = realpath(path, NULL);
	struct utsname u;
	bool running;

	if (!real)
		return NULL;
	running = !strcmp(real, "/sys/kernel/btf") ||
		  !strncmp(real, "/sys/kernel/btf/", 16);
	free(real);
	return running && !uname(&u) ? strdup(u.release) : NULL;
}

int bc_kernel_default_name(const char *path, char **name,
			   const struct bc_log *log)
{
	uint8_t head[32];
	size_t got = 0;
	FILE *f = fopen(path, "rb");
	char *member;
	int err;

	*name = NULL;
	if (f) {
		got = fread(head, 1, sizeof(head), f);
		fclose(f);
	}
	if (bc_package_detect(head, got)) {
		err = bc_package_read_kernel(path, 0, &member, NULL, NULL, log);
		if (err)
			return err;
		*name = bc_package_kernel_version(member);
		free(member);
	} else {
		*name = running_name(path);
		if (!*name)
			*name = strip_name(path);
	}
	return *name ? 0 : bc_log_error(log, -ENOMEM, "%s: out of memory", path);
}
