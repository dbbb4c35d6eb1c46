/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Items made ahead of their use on worker threads and taken in order:
 * header's kernel files, each read (the most of a file's cost) while
 * the caller merges the one before (prefetch.c).
 */
#ifndef BTFCANON_HEADER_PREFETCH_H
#define BTFCANON_HEADER_PREFETCH_H

#include <pthread.h>
#include <stdint.h>

#include "../canon/log.h"

struct bc_prefetch;

/*
 * Slots shared by several prefetches: at most n items made at once over
 * all of them, a worker holding one while it makes an item. So each of
 * header's architectures may have -j readers while -j files at most are
 * read at once: when one architecture's files are all read, the other's
 * readers have every core.
 */
struct bc_prefetch_slots {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	uint32_t free;
};

void bc_prefetch_slots_init(struct bc_prefetch_slots *s, uint32_t n);
void bc_prefetch_slots_deinit(struct bc_prefetch_slots *s);

/* Makes item i into *item: 0 or a negative errno after a message on log. */
typedef int (*bc_prefetch_make_fn)(void *ctx, uint32_t i, void **item,
				   const struct bc_log *log);
typedef void (*bc_prefetch_drop_fn)(void *item);

/*
 * Items 0 .. n-1 made by make(ctx, i) on up to workers threads, at most
 * ahead items past the last one taken, each made holding one of slots
 * (NULL: no limit but workers). With no worker (0, or no thread could
 * start), bc_prefetch_take() makes each item itself. Returns 0 or
 * -ENOMEM (nothing said).
 */
int bc_prefetch_new(uint32_t n, uint32_t workers, uint32_t ahead,
		    struct bc_prefetch_slots *slots,
		    bc_prefetch_make_fn make, bc_prefetch_drop_fn drop,
		    void *ctx, struct bc_prefetch **out);

/*
 * Item i, waited for, now the caller's (*item). Items are taken in
 * increasing order; the ones skipped are dropped. The messages make gave
 * go to log here, in item order, so they do not depend on the workers'
 * schedule. Returns make's result.
 */
int bc_prefetch_take(struct bc_prefetch *p, uint32_t i, void **item,
		     const struct bc_log *log);

/* Stops the workers, drops what was made and not taken; accepts NULL. */
void bc_prefetch_free(struct bc_prefetch *p);

#endif
