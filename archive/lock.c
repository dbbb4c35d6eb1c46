// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writers take turns (DESIGN.md, "Writers take turns").
 *
 * Problem: `add` and `remove` read the archive, change it and rename a
 * new file over it. Two at once both read the same old file and the
 * second rename throws away the first one's kernels, both exiting 0.
 *
 * Invariant: a writer reads, changes and renames over the archive only
 * while it holds flock(LOCK_EX) on the inode that the archive's path names
 * from the moment it locked it to its rename. The lock is on the archive
 * file itself: no lock file is left beside it, and a killed writer's lock
 * goes with its process (the kernel drops a flock with the last
 * descriptor). A writer that waited on an inode another writer has since
 * renamed a new file over holds the lock of a file nobody reads any more:
 * it sees that path now names another inode (fstat of its descriptor
 * against stat of the path), lets go and locks the new one. The rename
 * happens under the lock, so the file a writer reads through its locked
 * descriptor is the file it replaces. Readers take no lock: the rename
 * already gives them the old file or the new one, whole.
 *
 * flock(2) has no timeout and the library sets no signals, so a writer
 * that finds the lock taken polls it (LOCK_NB, on the descriptor it
 * opened) with sleeps growing from 1 ms to 10 ms, until its bound. Cost:
 * one open, flock, fstat and stat when nobody holds the lock; a waiter
 * wakes at most 100 times a second and takes the lock at most 10 ms after
 * it is let go (no queue: the waiter that polls first gets it).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define POLL_FIRST_MS 1
#define POLL_MAX_MS 10

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Opens path and takes its lock, polling until deadline (ms of now_ms()).
 * 1 with *fd when the lock is held and path still names the locked file
 * (or, unless to_read, with *fd -1 when path is no regular file: a device
 * or FIFO written in place, a directory the rename refuses); 0 when path
 * names another file by the time the lock came (open that one); a
 * negative errno (-ETIMEDOUT past the deadline).
 */
static int lock_once(const char *path, uint64_t deadline, bool to_read,
		     int *fd)
{
	uint64_t delay = POLL_FIRST_MS, now;
	struct stat held, named;
	int f, err;

	/* O_NONBLOCK: a FIFO at path must not block the open */
	f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f < 0)
		return -errno;
	if (fstat(f, &held)) {
		err = -errno;
		goto fail;
	}
	if (!to_read && !S_ISREG(held.st_mode)) {
		close(f);
		return 1;
	}
	while (flock(f, LOCK_EX | LOCK_NB)) {
		err = -errno;
		if (err != -EWOULDBLOCK && err != -EINTR)
			goto fail;
		now = now_ms();
		if (now >= deadline) {
			err = -ETIMEDOUT;
			goto fail;
		}
		sleep_ms(delay < deadline - now ? delay : deadline - now);
		delay = delay * 2 < POLL_MAX_MS ? delay * 2 : POLL_MAX_MS;
	}
	if (stat(path, &named) || named.st_dev != held.st_dev ||
	    named.st_ino != held.st_ino) {
		/* renamed over (or removed) while we waited: the new one */
		close(f);
		return 0;
	}
	if (fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK)) {
		err = -errno;
		goto fail;
	}
	*fd = f;
	return 1;
fail:
	close(f);
	return err;
}

int bc_archive_lock_file(const char *path, uint32_t wait_ms, bool must_exist,
			 int *fd, const struct bc_log *log)
{
	uint64_t deadline = now_ms() + wait_ms;
	int got;

	*fd = -1;
	do
		got = lock_once(path, deadline, must_exist, fd);
	while (!got);
	/*
	 * Nothing to lock: the rename makes the file. A file we may not read
	 * (but may replace) no writer of ours reads either.
	 */
	if ((got == -ENOENT || got == -EACCES) && !must_exist)
		return 0;
	if (got == -ETIMEDOUT)
		return bc_log_error(log, got,
			"%s: locked by another writer for %g s; nothing changed",
			path, wait_ms / 1000.0);
	if (got < 0)
		return bc_log_error(log, got, "%s: %s", path, strerror(-got));
	return 0;
}

void ar_unlock(struct bc_archive *ar)
{
	if (ar->lock_fd >= 0)
		close(ar->lock_fd);	/* the flock goes with it */
	ar->lock_fd = -1;
}

int bc_archive_lock(struct bc_archive *ar, const char *path, uint32_t wait_ms,
		    const struct bc_log *log)
{
	int fd, err;

	ar_unlock(ar);
	err = bc_archive_lock_file(path, wait_ms, false, &fd, log);
	if (!err)
		ar->lock_fd = fd;
	return err;
}

int bc_archive_open_locked(const char *path, uint32_t wait_ms,
			   struct bc_archive **ar, const struct bc_log *log)
{
	int fd, err;

	*ar = NULL;
	err = bc_archive_lock_file(path, wait_ms, true, &fd, log);
	if (err)
		return err;
	err = ar_read_fd(fd, path, false, ar, log);
	if (err) {
		close(fd);
		return err;
	}
	(*ar)->lock_fd = fd;
	return 0;
}
