/* SPDX-License-Identifier: GPL-2.0-only */
/* hunits.c: the architectures' texts merged unit by unit (header/, internal). */
#ifndef BTFCANON_HEADER_HUNITS_H
#define BTFCANON_HEADER_HUNITS_H

#include "../canon/text.h"

/*
 * Appends x86's and arm64's texts merged unit by unit to out, what
 * differs under #if defined(__TARGET_ARCH_...).
 */
int hdr_merge_texts(const struct bc_text *x86, const struct bc_text *arm,
		    struct bc_text *out);

#endif
