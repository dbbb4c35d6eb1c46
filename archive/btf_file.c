// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive.h"
#include "kimage.h"
#include "btf_file.h"
#include "elf_section.h"

static int read_all(int fd, const char *path, void **data, size_t *size,
		    const struct bc_log *log)
{
	struct stat st;
	size_t cap = 1 << 16, len = 0;
	char *buf;

	/* sysfs files report a size too; read on past it if it is wrong */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = st.st_size + 1;
	buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t got;

		if (len == cap) {
			char *grown = realloc(buf, cap * 2);

			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = -errno;

			free(buf);
			return bc_log_error(log, err, "%s: read failed: %s",
					    path, strerror(-err));
		}
		if (got == 0)
			break;
		len += got;
	}
	*data = buf;
	*size = len;
	return 0;
}

Elf_Scn *bc_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *sname;

		if (!gelf_getshdr(scn, shdr))
			return NULL;
		sname = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (sname && !strcmp(sname, name))
			return scn;
	}
	return NULL;
}

/*
 * The .BTF section of the ELF file open on fd: mapped where it lies when it
 * is stored plainly, else (compressed, or the file cannot be mapped)
 * copied out through libelf.
 */
static int read_elf_btf(const char *path, int fd, struct bc_blob *blob,
			const struct bc_log *log)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	Elf_Data *d;
	Elf_Scn *scn;
	GElf_Shdr shdr;
	size_t file_size;
	void *copy;
	int err = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = bc_log_error(log, -EINVAL, "%s: not a valid ELF file: %s",
				   path, elf_errmsg(-1));
		goto out;
	}
	scn = bc_elf_section(elf, ".BTF", &shdr);
	if (!scn) {
		err = bc_log_error(log, -ENOENT, "%s: ELF file has no .BTF section",
				   path);
		goto out;
	}
	if (shdr.sh_type == SHT_NOBITS) {
		err = bc_log_error(log, -EINVAL, "%s: .BTF section has no data",
				   path);
		goto out;
	}
	/* inside the file: a page mapped past its end faults on access */
	if (!(shdr.sh_flags & SHF_COMPRESSED) && elf_rawfile(elf, &file_size) &&
	    shdr.sh_offset <= file_size &&
	    shdr.sh_size <= file_size - shdr.sh_offset &&
	    !bc_blob_map(fd, shdr.sh_offset, shdr.sh_size, blob))
		goto out;
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
		err = bc_log_error(log, -EINVAL,
				   "%s: cannot decompress .BTF: %s", path,
				   elf_errmsg(-1));
		goto out;
	}
	d = elf_getdata(scn, NULL);
	if (!d || (!d->d_buf && d->d_size)) {
		err = bc_log_error(log, -EINVAL,
				   "%s: cannot read .BTF section: %s", path,
				   elf_errmsg(-1));
		goto out;
	}
	copy = malloc(d->d_size ? d->d_size : 1);
	if (!copy) {
		err = -ENOMEM;
		goto out;
	}
	if (d->d_size)	/* an empty section has no buffer */
		memcpy(copy, d->d_buf, d->d_size);
	blob->mem = copy;
	blob->data = copy;
	blob->size = d->d_size;
out:
	elf_end(elf);
	return err;
}

/*
 * The whole of a file that is not ELF: mapped when it can be (a regular
 * file; /sys/kernel/btf/vmlinux since Linux 6.16), else read into one
 * buffer sized by fstat.
 */
static int read_raw(const char *path, int fd, struct bc_blob *blob,
		    const struct bc_log *log)
{
	struct stat st;
	void *data;
	size_t size;
	int err;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX &&
	    !bc_blob_map(fd, 0, st.st_size, blob))
		return 0;
	err = read_all(fd, path, &data, &size, log);
	if (err)
		return err;
	blob->mem = data;
	blob->data = data;
	blob->size = size;
	return 0;
}

/*
 * ARCHIVE:NAME (archive/archive.h), when path names no file: the kernel's
 * sorted BTF, as raw BTF.
 */
static int read_archive_member(const char *path, struct bc_blob *blob,
			       enum bc_file_format *format,
			       const struct bc_log *log)
{
	char *archive;
	const char *name;
	void *raw;
	size_t size;
	int err = bc_archive_split_spec(path, &archive, &name);

	*format = BC_FILE_RAW;
	if (err <= 0)
		return err ? err : bc_log_error(log, -ENOENT,
						"%s: cannot open: %s", path,
						strerror(ENOENT));
	free(archive);
	err = bc_archive_read_spec(path, &raw, &size, log);
	if (err)
		return err;
	blob->mem = raw;
	blob->mem_len = size;
	blob->data = raw;
	blob->size = size;
	return 0;
}

int bc_file_read_btf_blob(const char *path, struct bc_blob *blob,
			  enum bc_file_format *format, const struct bc_log *log)
{
	static const unsigned char elf_magic[4] = { 0x7f, 'E', 'L', 'F' };
	uint8_t head[BC_KIMAGE_PROBE_LEN];
	ssize_t got;
	int fd, err;

	memset(blob, 0, sizeof(*blob));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return read_archive_member(path, blob, format, log);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: cannot open: %s", path,
				    strerror(errno));
	got = pread(fd, head, sizeof(head), 0);
	if (got >= 4 && !memcmp(head, elf_magic, 4)) {
		elf_version(EV_CURRENT);
		*format = BC_FILE_ELF;
		err = read_elf_btf(path, fd, blob, log);
	} else if (got >= BC_ARCHIVE_MAGIC_LEN &&
		   !memcmp(head, BC_ARCHIVE_MAGIC, BC_ARCHIVE_MAGIC_LEN)) {
		/* an archive of one kernel (deps --save): that kernel */
		char *spec;

		*format = BC_FILE_RAW;
		if (asprintf(&spec, "%s:*", path) < 0) {
			err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
		} else {
			err = bc_archive_read_spec(spec, &blob->mem, &blob->size, log);
			blob->data = blob->mem;
			blob->mem_len = blob->size;
			free(spec);
		}
	} else if (got > 0 && bc_kernel_file_detect(head, got)) {
		/* a kernel image or package: archive/kimage.h */
		*format = BC_FILE_IMAGE;
		err = bc_kernel_file_read_btf(path, fd, blob, log);
	} else {
		/* Anything else is taken as raw BTF; the parser says what is wrong. */
		*format = BC_FILE_RAW;
		err = read_raw(path, fd, blob, log);
	}
	close(fd);
	if (err)
		bc_blob_release(blob);
	return err;
}

int bc_file_read_btf(const char *path, void **data, size_t *size,
		     enum bc_file_format *format, const struct bc_log *log)
{
	struct bc_blob blob;
	int err;

	*data = NULL;
	*size = 0;
	err = bc_file_read_btf_blob(path, &blob, format, log);
	if (err)
		return err;
	if (!blob.mapped) {
		*data = blob.mem;
		*size = blob.size;
		return 0;
	}
	*data = malloc(blob.size);
	if (*data) {
		memcpy(*data, blob.data, blob.size);
		*size = blob.size;
	}
	bc_blob_release(&blob);
	return *data ? 0 : -ENOMEM;
}

int bc_file_load_btf(const char *path, const struct bc_btf *base,
		     struct bc_btf **btf, enum bc_file_format *format,
		     const struct bc_log *log)
{
	return bc_file_load_btf_opts(path, base, NULL, btf, format, log);
}

int bc_file_load_btf_opts(const char *path, const struct bc_btf *base,
			  const struct bc_parse_opts *opts, struct bc_btf **btf,
			  enum bc_file_format *format, const struct bc_log *log)
{
	struct bc_blob blob;
	int err;

	*btf = NULL;
	err = bc_file_read_btf_blob(path, &blob, format, log);
	if (err)
		return err;
	return bc_btf_parse_blob(&blob, base, opts, path, log, btf);
}

/* Opens a fresh temporary file next to path; *tmp_path is malloc'd. */
static int open_temp_beside(const char *path, char **tmp_path,
			    const struct bc_log *log)
{
	size_t len = strlen(path) + sizeof(".tmp.XXXXXX");
	int fd;

	*tmp_path = malloc(len);
	if (!*tmp_path)
		return -ENOMEM;
	snprintf(*tmp_path, len, "%s.tmp.XXXXXX", path);
	fd = mkstemp(*tmp_path);
	if (fd < 0) {
		int err = -errno;

		bc_log_error(log, err, "%s: cannot create temporary file: %s",
			     path, strerror(-err));
		free(*tmp_path);
		*tmp_path = NULL;
		return err;
	}
	return fd;
}

static int write_all(int fd, const void *data, size_t size)
{
	const char *p = data;

	while (size) {
		ssize_t put = write(fd, p, size);

		if (put < 0 && errno == EINTR)
			continue;
		if (put < 0)
			return -errno;
		p += put;
		size -= put;
	}
	return 0;
}

/*
 * Makes tmp_path (open as fd) the file path when err is 0, else removes it.
 * err is a failure the caller already reported.
 *
 * No fsync: the rename already means a killed or failed run leaves the old
 * file or none, never a partial one. What is written here (sorted or
 * encoded BTF, an extracted kernel, min's files, a header) is made from
 * inputs that are still there, so a power loss costs a rerun; the fsync
 * cost 20-90 ms a file on these disks, more than an extract's whole work.
 * The archive, the one file whose contents exist nowhere else, is written
 * by archive/format.c with an fsync before its rename.
 */
/*
 * rename(tmp_path, path) without ext4's flush: renamed over an existing
 * file, ext4 (auto_da_alloc) starts writing the new one back at the
 * rename, against the power loss the comment below accepts: 4-6 ms of
 * wall for an extract's 4.7 MB here, a tenth of the extract. Swapping the
 * two names (RENAME_EXCHANGE) and removing the old file, now at tmp_path,
 * does not trigger it, and path names the old file or the new one at
 * every moment, as with rename. Only over a regular file (a directory
 * swapped in meanwhile is swapped back); else, or where the system cannot
 * swap, a plain rename.
 */
static int replace_file(const char *tmp_path, const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode) &&
	    !renameat2(AT_FDCWD, tmp_path, AT_FDCWD, path, RENAME_EXCHANGE)) {
		if (!unlink(tmp_path))
			return 0;
		if (errno != EISDIR)
			return 0;	/* the old file left at tmp_path */
		renameat2(AT_FDCWD, tmp_path, AT_FDCWD, path, RENAME_EXCHANGE);
		return -EISDIR;
	}
	return rename(tmp_path, path) ? -errno : 0;
}

static int commit_temp(int fd, char *tmp_path, const char *path, mode_t mode,
		       int err, const struct bc_log *log)
{
	int reported = err;

	if (!err && fchmod(fd, mode))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err)
		err = replace_file(tmp_path, path);
	if (err) {
		unlink(tmp_path);
		if (!reported)
			bc_log_error(log, err, "%s: cannot write: %s", path,
				     strerror(-err));
	}
	free(tmp_path);
	return err;
}

/*
 * True when path names an existing file that is not a regular file: a
 * device (/dev/null, /dev/full), a FIFO, a terminal. A temporary file and a
 * rename would replace the device itself with a regular file (as root, in
 * /dev); such outputs are written in place instead.
 */
static bool is_special_output(const char *path)
{
	struct stat st;

	return !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Writes data to the device or FIFO path as it is, without a temporary. */
static int write_special(const char *path, const void *data, size_t size,
			 const struct bc_log *log)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;

	if (fd < 0)
		return bc_log_error(log, -errno, "%s: cannot open: %s", path,
				    strerror(errno));
	err = write_all(fd, data, size);
	if (close(fd) && !err)
		err = -errno;
	if (err)
		bc_log_error(log, err, "%s: cannot write: %s", path,
			     strerror(-err));
	return err;
}

int bc_file_write_atomic(const char *path, const void *data, size_t size,
			 const struct bc_log *log)
{
	char *tmp_path;
	int fd, err;

	if (!strcmp(path, "-")) {
		err = write_all(STDOUT_FILENO, data, size);
		if (err)
			bc_log_error(log, err, "<stdout>: cannot write: %s",
				     strerror(-err));
		return err;
	}
	if (is_special_output(path))
		return write_special(path, data, size, log);
	fd = open_temp_beside(path, &tmp_path, log);
	if (fd < 0)
		return fd;
	err = write_all(fd, data, size);
	return commit_temp(fd, tmp_path, path, 0644, err, log);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* End of the last byte any section, header table or segment occupies. */
static int elf_content_end(Elf *elf, uint64_t *end)
{
	GElf_Ehdr ehdr;
	Elf_Scn *scn = NULL;
	size_t i, phnum;

	if (!gelf_getehdr(elf, &ehdr) || elf_getphdrnum(elf, &phnum))
		return -EINVAL;
	*end = ehdr.e_ehsize;
	*end = *end > ehdr.e_phoff + (uint64_t)phnum * ehdr.e_phentsize ?
	       *end : ehdr.e_phoff + (uint64_t)phnum * ehdr.e_phentsize;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, i, &phdr))
			return -EINVAL;
		if (phdr.p_offset + phdr.p_filesz > *end)
			*end = phdr.p_offset + phdr.p_filesz;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			return -EINVAL;
		if (shdr.sh_type != SHT_NOBITS &&
		    shdr.sh_offset + shdr.sh_size > *end)
			*end = shdr.sh_offset + shdr.sh_size;
	}
	return 0;
}

/* Copies path to the already open fd. */
static int copy_file(const char *path, int out_fd, mode_t *mode,
		     const struct bc_log *log)
{
	struct stat st;
	void *data;
	size_t size;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: cannot open: %s", path,
				    strerror(errno));
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return bc_log_error(log, err, "%s: cannot stat", path);
	}
	*mode = st.st_mode & 07777;
	err = read_all(fd, path, &data, &size, log);
	close(fd);
	if (err)
		return err;
	err = write_all(out_fd, data, size);
	free(data);
	if (err)
		bc_log_error(log, err, "%s: cannot copy: %s", path, strerror(-err));
	return err;
}

/* Rewrites the section (.BTF) of the ELF open on fd; layout stays ours. */
static int rewrite_btf_section(int fd, const char *path, const char *section,
			       const void *data, size_t size,
			       const struct bc_log *log)
{
	Elf *elf = elf_begin(fd, ELF_C_RDWR, NULL);
	GElf_Shdr shdr;
	GElf_Ehdr ehdr;
	Elf_Data *d;
	Elf_Scn *scn;
	int err = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr)) {
		err = bc_log_error(log, -EINVAL, "%s: not a valid ELF file: %s",
				   path, elf_errmsg(-1));
		goto out;
	}
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	scn = bc_elf_section(elf, section, &shdr);
	if (!scn) {
		err = bc_log_error(log, -ENOENT,
				   "%s: ELF file has no %s section to replace",
				   path, section);
		goto out;
	}
	if (shdr.sh_flags & SHF_COMPRESSED) {
		err = bc_log_error(log, -EOPNOTSUPP,
				   "%s: cannot rewrite a compressed %s section in place",
				   path, section);
		goto out;
	}
	if (size > shdr.sh_size) {
		uint64_t end;

		if (shdr.sh_flags & SHF_ALLOC) {
			err = bc_log_error(log, -ENOSPC,
				"%s: the canonical %s (%zu bytes) is larger than the loaded %s section (%llu bytes), which cannot grow in place; write it with -o instead",
				path, section, size, section,
				(unsigned long long)shdr.sh_size);
			goto out;
		}
		if (elf_content_end(elf, &end)) {
			err = bc_log_error(log, -EINVAL, "%s: bad ELF layout: %s",
					   path, elf_errmsg(-1));
			goto out;
		}
		if (ehdr.e_shoff + (uint64_t)ehdr.e_shnum * ehdr.e_shentsize > end)
			end = ehdr.e_shoff + (uint64_t)ehdr.e_shnum * ehdr.e_shentsize;
		shdr.sh_offset = align_up(end, shdr.sh_addralign);
		ehdr.e_shoff = align_up(shdr.sh_offset + size, 8);
		if (!gelf_update_ehdr(elf, &ehdr)) {
			err = bc_log_error(log, -EINVAL, "%s: %s", path,
					   elf_errmsg(-1));
			goto out;
		}
	}
	shdr.sh_size = size;
	d = elf_getdata(scn, NULL);
	if (!d || !gelf_update_shdr(scn, &shdr)) {
		err = bc_log_error(log, -EINVAL, "%s: %s", path, elf_errmsg(-1));
		goto out;
	}
	d->d_buf = (void *)data;
	d->d_size = size;
	d->d_off = 0;
	elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	elf_flagshdr(scn, ELF_C_SET, ELF_F_DIRTY);
	if (!err && elf_update(elf, ELF_C_WRITE) < 0)
		err = bc_log_error(log, -EIO, "%s: cannot write ELF: %s", path,
				   elf_errmsg(-1));
out:
	elf_end(elf);
	return err;
}

/*
 * Writes to out_fd a copy of the ELF file src with one more section (.BTF
 * or .BTF.base) holding data, and the section name table extended by its
 * name. Every
 * other byte keeps its offset: the new name table, .BTF and the section
 * headers go after the end of the old contents. (A new ELF is written
 * rather than a copy edited with ELF_C_RDWR: libelf 0.188 gives a section
 * added to a file it has read a header from past the end of its array.)
 */
static int write_elf_adding_btf(const char *src, int out_fd, mode_t *mode,
				const char *section, const void *data,
				size_t size, const struct bc_log *log)
{
	size_t name_size = strlen(section) + 1;
	Elf *in = NULL, *out = NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	size_t shstrndx, phnum, i;
	uint64_t end;
	char *names = NULL;
	struct stat st;
	int fd, err = 0;

	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: cannot open: %s", src,
				    strerror(errno));
	if (!fstat(fd, &st))
		*mode = st.st_mode & 07777;
	in = elf_begin(fd, ELF_C_READ, NULL);
	out = elf_begin(out_fd, ELF_C_WRITE, NULL);
	if (!in || !out || elf_kind(in) != ELF_K_ELF || !gelf_getehdr(in, &ehdr) ||
	    elf_getshdrstrndx(in, &shstrndx) || elf_getphdrnum(in, &phnum) ||
	    elf_content_end(in, &end)) {
		err = bc_log_error(log, -EINVAL, "%s: not a valid ELF file: %s",
				   src, elf_errmsg(-1));
		goto out;
	}
	elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT);
	if (!gelf_newehdr(out, gelf_getclass(in)) ||
	    (phnum && !gelf_newphdr(out, phnum)))
		goto libelf_error;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(in, i, &phdr) || !gelf_update_phdr(out, i, &phdr))
			goto libelf_error;
	}
	if (end < ehdr.e_shoff + (uint64_t)ehdr.e_shnum * ehdr.e_shentsize)
		end = ehdr.e_shoff + (uint64_t)ehdr.e_shnum * ehdr.e_shentsize;
	while ((scn = elf_nextscn(in, scn))) {
		Elf_Scn *copy = elf_newscn(out);
		Elf_Data *from = elf_rawdata(scn, NULL), *to;
		GElf_Shdr shdr;

		if (!copy || !gelf_getshdr(scn, &shdr) || !(to = elf_newdata(copy)))
			goto libelf_error;
		to->d_type = ELF_T_BYTE;
		to->d_version = EV_CURRENT;
		to->d_align = shdr.sh_addralign ? shdr.sh_addralign : 1;
		to->d_size = shdr.sh_type == SHT_NOBITS ? shdr.sh_size :
			     from ? from->d_size : 0;
		to->d_buf = shdr.sh_type == SHT_NOBITS || !from ? NULL : from->d_buf;
		if (elf_ndxscn(scn) == shstrndx) {
			/* the names, and the new one after them, in the new place */
			names = malloc(to->d_size + name_size);
			if (!names) {
				err = -ENOMEM;
				goto out;
			}
			memcpy(names, to->d_buf, to->d_size);
			memcpy(names + to->d_size, section, name_size);
			to->d_buf = names;
			to->d_size += name_size;
			shdr.sh_offset = end;
			shdr.sh_size = to->d_size;
			end += to->d_size;
		}
		if (!gelf_update_shdr(copy, &shdr))
			goto libelf_error;
	}
	{
		Elf_Scn *btf = elf_newscn(out);
		Elf_Data *d = btf ? elf_newdata(btf) : NULL;
		GElf_Shdr shdr;

		if (!d || !gelf_getshdr(btf, &shdr))
			goto libelf_error;
		d->d_buf = (void *)data;
		d->d_size = size;
		d->d_type = ELF_T_BYTE;
		d->d_version = EV_CURRENT;
		d->d_align = 4;
		memset(&shdr, 0, sizeof(shdr));
		shdr.sh_type = SHT_PROGBITS;
		shdr.sh_offset = align_up(end, 4);
		shdr.sh_size = size;
		shdr.sh_addralign = 4;
		if (!names) {
			err = bc_log_error(log, -EINVAL,
					   "%s: no section name table", src);
			goto out;
		}
		{
			GElf_Shdr str;

			if (!gelf_getshdr(elf_getscn(out, shstrndx), &str))
				goto libelf_error;
			shdr.sh_name = str.sh_size - name_size;
		}
		if (!gelf_update_shdr(btf, &shdr))
			goto libelf_error;
		end = shdr.sh_offset + size;
	}
	ehdr.e_shoff = align_up(end, 8);
	ehdr.e_shnum = 0;	/* libelf counts the sections */
	if (!gelf_update_ehdr(out, &ehdr) || elf_update(out, ELF_C_WRITE) < 0)
		goto libelf_error;
	goto out;
libelf_error:
	err = bc_log_error(log, -EINVAL, "%s: cannot write a copy with %s: %s",
			   src, section, elf_errmsg(-1));
out:
	elf_end(out);
	elf_end(in);
	free(names);
	close(fd);
	return err;
}

/* Does the ELF file path have a section called name? */
static bool file_has_section(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	GElf_Shdr shdr;
	bool has = elf && bc_elf_section(elf, name, &shdr);

	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return has;
}

/*
 * Writes to fd (a temporary file, mode into *mode) a copy of src whose
 * section (.BTF, .BTF.base) holds data: replaced, or added when may_add.
 */
static int elf_write_with_section(const char *src, int fd, mode_t *mode,
				  const char *section, const void *data,
				  size_t size, bool may_add,
				  const struct bc_log *log)
{
	int err;

	if (may_add && !file_has_section(src, section))
		return write_elf_adding_btf(src, fd, mode, section, data, size,
					    log);
	err = copy_file(src, fd, mode, log);
	if (!err)
		err = rewrite_btf_section(fd, src, section, data, size, log);
	return err;
}

/* Copies src to a temporary file beside dst, puts data in its .BTF, renames. */
static int elf_copy_with_btf(const char *src, const char *dst, const void *data,
			     size_t size, bool may_add, const struct bc_log *log)
{
	char *tmp_path;
	mode_t mode = 0644;
	int fd, err;

	elf_version(EV_CURRENT);
	if (is_special_output(dst))	/* the ELF is edited in place: needs a file */
		return bc_log_error(log, -EINVAL,
				    "%s: not a regular file; an ELF output must be one",
				    dst);
	fd = open_temp_beside(dst, &tmp_path, log);
	if (fd < 0)
		return fd;
	err = elf_write_with_section(src, fd, &mode, ".BTF", data, size, may_add,
				     log);
	return commit_temp(fd, tmp_path, dst, mode, err, log);
}

int bc_file_replace_elf_btf(const char *path, const void *data, size_t size,
			    const struct bc_log *log)
{
	return elf_copy_with_btf(path, path, data, size, false, log);
}

int bc_file_write_elf_with_btf(const char *input, const char *output,
			       const void *data, size_t size,
			       const struct bc_log *log)
{
	return elf_copy_with_btf(input, output, data, size, true, log);
}

int bc_file_write_elf_with_btf_base(const char *input, const char *output,
				    const void *btf, size_t btf_size,
				    const void *base, size_t base_size,
				    const struct bc_log *log)
{
	char *tmp_path, *mid_path;
	mode_t mode = 0644, mid_mode = 0644;
	int fd, mid_fd, err;

	elf_version(EV_CURRENT);
	if (is_special_output(output))
		return bc_log_error(log, -EINVAL,
				    "%s: not a regular file; an ELF output must be one",
				    output);
	/* input + .BTF into mid, mid + .BTF.base into tmp, tmp renamed to output */
	mid_fd = open_temp_beside(output, &mid_path, log);
	if (mid_fd < 0)
		return mid_fd;
	err = elf_write_with_section(input, mid_fd, &mid_mode, ".BTF", btf,
				     btf_size, true, log);
	if (close(mid_fd) && !err)
		err = bc_log_error(log, -errno, "%s: cannot write: %s", mid_path,
				   strerror(errno));
	if (err)
		goto out;
	fd = open_temp_beside(output, &tmp_path, log);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	err = elf_write_with_section(mid_path, fd, &mode, ".BTF.base", base,
				     base_size, true, log);
	err = commit_temp(fd, tmp_path, output, mid_mode, err, log);
out:
	unlink(mid_path);
	free(mid_path);
	return err;
}

int bc_file_read_btf_base(const char *path, void **data, size_t *size,
			  const struct bc_log *log)
{
	static const unsigned char elf_magic[4] = { 0x7f, 'E', 'L', 'F' };
	unsigned char magic[4];
	GElf_Shdr shdr;
	Elf_Scn *scn;
	Elf_Data *d;
	Elf *elf = NULL;
	int fd, err = 0;

	*data = NULL;
	*size = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: cannot open: %s", path,
				    strerror(errno));
	if (pread(fd, magic, 4, 0) != 4 || memcmp(magic, elf_magic, 4))
		goto out;	/* raw BTF: no sections */
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = bc_log_error(log, -EINVAL, "%s: not a valid ELF file: %s",
				   path, elf_errmsg(-1));
		goto out;
	}
	scn = bc_elf_section(elf, ".BTF.base", &shdr);
	if (!scn)
		goto out;
	if (shdr.sh_type == SHT_NOBITS ||
	    ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) ||
	    !(d = elf_getdata(scn, NULL)) || !d->d_buf || !d->d_size) {
		err = bc_log_error(log, -EINVAL,
				   "%s: cannot read its .BTF.base section: %s",
				   path, elf_errmsg(-1));
		goto out;
	}
	*data = malloc(d->d_size);
	if (!*data) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(*data, d->d_buf, d->d_size);
	*size = d->d_size;
out:
	elf_end(elf);
	close(fd);
	return err;
}
