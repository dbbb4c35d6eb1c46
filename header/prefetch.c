// SPDX-License-Identifier: GPL-2.0-only
/*
 * Items made ahead on worker threads, taken in order (prefetch.h).
 *
 * Problem: header merges a set's kernels one after the other, newest
 * first, and that order is the output's; but reading a kernel file (its
 * parse and the signatures of its types, harch.c; the newest sorted too)
 * is most of a file's cost (about 20 ms of CPU a Debian kernel in all),
 * and needs nothing of the merge. So workers read the next files while the caller merges: the
 * caller's work stays in its order, and only the items' making moves to
 * other threads.
 * Invariant: what the caller gets, items and messages, is what it would
 * make itself item by item: each item is made by make(ctx, i) alone,
 * and its messages are held and given at its take, in item order.
 * Cost: at most `ahead` items past the last taken wait in memory (a
 * kernel is a few MB); workers that are ahead wait on a condition
 * variable, as does the caller for an item not made yet.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "prefetch.h"

struct held_msg {
	enum bc_log_level level;
	char *text;
};

struct prefetch_item {
	void *item;
	int err;
	bool made;
	struct held_msg *msgs;
	uint32_t nr_msgs;
};

struct bc_prefetch {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	bc_prefetch_make_fn make;
	bc_prefetch_drop_fn drop;
	void *ctx;
	struct prefetch_item *items;
	uint32_t n, next, taken, ahead;	/* taken: items below it are the caller's */
	bool stop;
	struct bc_prefetch_slots *slots;	/* or NULL */
	pthread_t *threads;
	uint32_t nr_threads;
};

/* A worker's log: the item's messages, held for its take. */
static void hold_msg(void *ctx, enum bc_log_level level, const char *msg)
{
	struct prefetch_item *it = ctx;
	struct held_msg *grown = realloc(it->msgs, (it->nr_msgs + 1) * sizeof(*grown));

	if (!grown)
		return;
	it->msgs = grown;
	it->msgs[it->nr_msgs].level = level;
	it->msgs[it->nr_msgs].text = strdup(msg);
	if (it->msgs[it->nr_msgs].text)
		it->nr_msgs++;
}

static void item_clear(struct bc_prefetch *p, struct prefetch_item *it)
{
	uint32_t m;

	if (it->item && p->drop)
		p->drop(it->item);
	it->item = NULL;
	for (m = 0; m < it->nr_msgs; m++)
		free(it->msgs[m].text);
	free(it->msgs);
	it->msgs = NULL;
	it->nr_msgs = 0;
}

void bc_prefetch_slots_init(struct bc_prefetch_slots *s, uint32_t n)
{
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->freed, NULL);
	s->free = n ? n : 1;
}

void bc_prefetch_slots_deinit(struct bc_prefetch_slots *s)
{
	pthread_cond_destroy(&s->freed);
	pthread_mutex_destroy(&s->lock);
}

/* Waits for a free slot (none to wait for without slots) and holds it. */
static void slot_take(struct bc_prefetch_slots *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	while (!s->free)
		pthread_cond_wait(&s->freed, &s->lock);
	s->free--;
	pthread_mutex_unlock(&s->lock);
}

static void slot_give(struct bc_prefetch_slots *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->free++;
	pthread_cond_signal(&s->freed);
	pthread_mutex_unlock(&s->lock);
}

static void *prefetch_worker(void *arg)
{
	struct bc_prefetch *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct prefetch_item *it;
		struct bc_log log;
		uint32_t i;

		while (!p->stop && p->next < p->n && p->next >= p->taken + p->ahead)
			pthread_cond_wait(&p->changed, &p->lock);
		if (p->stop || p->next >= p->n)
			break;
		i = p->next++;
		it = &p->items[i];
		log = (struct bc_log){ .fn = hold_msg, .ctx = it };
		pthread_mutex_unlock(&p->lock);
		slot_take(p->slots);
		it->err = p->make(p->ctx, i, &it->item, &log);
		slot_give(p->slots);
		pthread_mutex_lock(&p->lock);
		it->made = true;
		pthread_cond_broadcast(&p->changed);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int bc_prefetch_new(uint32_t n, uint32_t workers, uint32_t ahead,
		    struct bc_prefetch_slots *slots, bc_prefetch_make_fn make,
		    bc_prefetch_drop_fn drop, void *ctx, struct bc_prefetch **out)
{
	struct bc_prefetch *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->items = calloc(n ? n : 1, sizeof(*p->items));
	p->threads = calloc(workers ? workers : 1, sizeof(*p->threads));
	if (!p->items || !p->threads) {
		free(p->items);
		free(p->threads);
		free(p);
		return -ENOMEM;
	}
	p->n = n;
	p->ahead = ahead ? ahead : 1;
	p->slots = slots;
	p->make = make;
	p->drop = drop;
	p->ctx = ctx;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->changed, NULL);
	if (workers > n)
		workers = n;
	for (p->nr_threads = 0; p->nr_threads < workers; p->nr_threads++)
		if (pthread_create(&p->threads[p->nr_threads], NULL,
				   prefetch_worker, p))
			break;
	*out = p;
	return 0;
}

int bc_prefetch_take(struct bc_prefetch *p, uint32_t i, void **item,
		     const struct bc_log *log)
{
	struct prefetch_item *it = &p->items[i];
	uint32_t m;
	int err;

	*item = NULL;
	pthread_mutex_lock(&p->lock);
	/* the ones skipped: no worker takes them now */
	while (p->taken < i) {
		if (p->next <= p->taken)
			p->next = p->taken + 1;
		p->taken++;
	}
	if (!p->nr_threads && p->next <= i) {
		/* no worker: made here, with the caller's log */
		p->next = i + 1;
		pthread_mutex_unlock(&p->lock);
		err = p->make(p->ctx, i, item, log);
		pthread_mutex_lock(&p->lock);
		p->taken = i + 1;
		pthread_mutex_unlock(&p->lock);
		return err;
	}
	while (!it->made)
		pthread_cond_wait(&p->changed, &p->lock);
	p->taken = i + 1;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	for (m = 0; m < it->nr_msgs; m++)
		bc_log_printf(log, it->msgs[m].level, "%s", it->msgs[m].text);
	*item = it->item;
	it->item = NULL;
	err = it->err;
	item_clear(p, it);
	return err;
}

void bc_prefetch_free(struct bc_prefetch *p)
{
	uint32_t i;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nr_threads; i++)
		pthread_join(p->threads[i], NULL);
	for (i = 0; i < p->n; i++)
		item_clear(p, &p->items[i]);
	pthread_cond_destroy(&p->changed);
	pthread_mutex_destroy(&p->lock);
	free(p->items);
	free(p->threads);
	free(p);
}
