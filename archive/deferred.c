// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sections a partial read left packed (bc_archive_open_partial,
 * format.c; the streams in pack.c): asked for by the rebuild before it
 * reads them, unpacked and checked whole by whatever needs everything.
 *
 * Problem: extract and list read one kernel's part of a body whose string
 * bytes and record words (two thirds of it) are packed apart. Invariant:
 * no byte of those sections is read before ar_body_need() or
 * ar_str_ready() has unpacked it; a string is checked, where it is used,
 * as a C string of its length, what the lazy read checks of every string
 * at open; ar_body_complete() checks them all as the lazy read does.
 * Cost: a comparison a record or string where the archive was read
 * otherwise (deferred NULL); else what pack.c unpacks.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "pack.h"

/* Zero bytes among n at p, eight at a time. */
size_t ar_count_nuls(const uint8_t *p, size_t n)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
	size_t count = 0, i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v, t;

		memcpy(&v, p + i, 8);
		t = ~(((v & low7) + low7) | v | low7);	/* 0x80 where a byte is 0 */
		/* the eight 0/1 bytes of t >> 7 summed into the top byte */
		count += (size_t)(((t >> 7) * 0x0101010101010101ull) >> 56);
	}
	for (; i < n; i++)
		count += !p[i];
	return count;
}

int ar_body_need(const struct bc_archive *ar, const void *end)
{
	if (!ar->deferred)
		return 0;
	return ar_deferred_need(ar->deferred,
				(size_t)((const uint8_t *)end - ar->body));
}

int ar_str_ready(const struct bc_archive *ar, uint32_t sid)
{
	const struct ar_str *str = &ar->strs[sid];
	int err;

	if (!ar->deferred)
		return 0;
	err = ar_body_need(ar, str->s + str->len + 1);
	/* what read_strings_v3() checks of all at once: a C string of len */
	if (!err && (str->s[str->len] || memchr(str->s, 0, str->len)))
		err = -EINVAL;
	return err;
}

int ar_body_complete(struct bc_archive *ar)
{
	size_t at, total;
	int err;

	if (!ar->deferred)
		return 0;
	err = ar_deferred_finish(ar->deferred);
	ar_deferred_range(ar->deferred, 0, &at, &total);
	/* the string bytes: every string followed by a NUL, no other NUL */
	if (!err && ar_count_nuls(ar->body + at, total) != ar->nr_strs)
		err = -EINVAL;
	for (uint32_t i = 0; i < ar->nr_strs && !err; i++)
		if (ar->strs[i].s[ar->strs[i].len])
			err = -EINVAL;
	if (!err)
		ar_body_release(ar);
	return err;
}

void ar_body_release(struct bc_archive *ar)
{
	ar_deferred_free(ar->deferred);
	ar->deferred = NULL;
	bc_blob_release(&ar->file);
}
