/* SPDX-License-Identifier: GPL-2.0-only */
/* flavors.c: the flavors of a synthetic BTF (header.c, pass 3) (header/, internal). */
#ifndef BTFCANON_HEADER_FLAVORS_H
#define BTFCANON_HEADER_FLAVORS_H

struct synth;

/* Adds the flavor of every variant (unless its name is taken): pass 3. */
int hdr_add_flavors(struct synth *y);

#endif
