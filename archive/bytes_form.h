/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The archive with every kernel stored as its sorted bytes
 * (archive/bytes_form.c): the smaller file for a kernel or two.
 */
#ifndef BTFCANON_ARCHIVE_BYTES_FORM_H
#define BTFCANON_ARCHIVE_BYTES_FORM_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/*
 * The body with every kernel as bytes (rebuilt where it is records). With
 * modules (format 6), *group_at (malloc'd) says where each of the
 * *nr_groups module names' groups starts, and [*nr_groups] the end.
 */
int ar_serialize_bytes_form(struct bc_archive *ar, struct ar_buf *body,
			    size_t **group_at, uint32_t *nr_groups);

/*
 * Every kernel stored as bytes turned back into records where its
 * records give its bytes back (before writing: what add does). 0 or
 * -ENOMEM.
 */
int ar_unraw_kernels(struct bc_archive *ar);

/*
 * Whether the archive is also written as bytes: a body of a kernel or two
 * or less (up to AR_PACK_SMALL_BODY), a kernel at least as records.
 */
bool ar_bytes_form_tried(const struct bc_archive *ar, size_t body_len);

#endif
