// SPDX-License-Identifier: GPL-2.0-only
/*
 * An out-of-tree module for the kernel-build check (run.sh): built with
 * btfcanon-pahole and --btf_features=distilled_base, its .BTF is split
 * BTF over its own .BTF.base, which the kernel relocates onto the running
 * vmlinux's BTF at insmod. Its types reach vmlinux's in the ways the
 * relocation rules tell apart: structs held by value (the size must
 * match), by pointer (the name is enough), through typedefs
 * (spinlock_t, u32), an enum, and an anonymous union of its own.
 */
#include <linux/init.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

struct ext_distilled_item {
	struct list_head node;		/* by value */
	spinlock_t lock;		/* typedef of a struct, by value */
	struct work_struct work;	/* by value */
	struct task_struct *owner;	/* by pointer */
	enum pid_type kind;
	u32 count;
	union {
		u64 raw;
		struct {
			u32 lo, hi;
		};
	};
};

static struct ext_distilled_item ext_distilled_item;

static void ext_distilled_work(struct work_struct *work)
{
	struct ext_distilled_item *item =
		container_of(work, struct ext_distilled_item, work);

	spin_lock(&item->lock);
	item->count++;
	spin_unlock(&item->lock);
}

static noinline u32 ext_distilled_count(struct ext_distilled_item *item)
{
	return item->count + item->lo;
}

static int __init ext_distilled_init(void)
{
	INIT_LIST_HEAD(&ext_distilled_item.node);
	spin_lock_init(&ext_distilled_item.lock);
	INIT_WORK(&ext_distilled_item.work, ext_distilled_work);
	ext_distilled_item.owner = current;
	ext_distilled_item.kind = PIDTYPE_PID;
	ext_distilled_item.raw = ext_distilled_count(&ext_distilled_item);
	return 0;
}

static void __exit ext_distilled_exit(void)
{
}

module_init(ext_distilled_init);
module_exit(ext_distilled_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("out-of-tree module with a distilled base BTF");
