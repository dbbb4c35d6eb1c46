// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writers of an archive take turns (archive/lock.c), through the command
 * line ($BTFCANON), on small kernels built with libbpf. Cases of the
 * archive suite:
 *
 *	writers		8 `archive add` of different kernels and 2 `archive
 *			remove` at once on one archive, 20 times: each time
 *			every one exits 0 and the archive is byte for byte
 *			what the same commands one after another write; `list`
 *			and `extract` running beside them never fail and always
 *			read the kernel that stays
 *	wait		a lock held (by the test) makes add, remove and create
 *			over the file wait --wait seconds, exit 2 with "locked
 *			by another writer for N s; nothing changed", the file
 *			unchanged; a waiting add whose archive is renamed over
 *			meanwhile adds to the new one
 *	lockkill	randomized (seeded, the seed in every message): a
 *			writer killed (SIGKILL) at a random moment, waiting or
 *			holding the lock, beside a second writer: the second
 *			exits 0, and the archive is the create of the old set
 *			with the second's change and the killed one's change
 *			made or not (made if it exited 0), byte for byte.
 *			BTFCANON_LOCK_SEED, BTFCANON_LOCK_ITERS (default 25)
 *			and BTFCANON_LOCK_SECONDS bound it; `make fuzz` runs
 *			it for FUZZ_SECONDS (FUZZING.md)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "suites.h"
#include "testutil.h"
#include "../archive/archive.h"

#define NR_KERNELS 12

/* Kernel i: small BTF, its enum's value telling it from the others. */
static struct blob lock_kernel(int i)
{
	struct btf *b = btf__new_empty();
	struct blob out;
	int in, s;

	ck_assert_ptr_nonnull(b);
	in = btf__add_int(b, "int", 4, BTF_INT_SIGNED);		/* [1] int */
	s = btf__add_struct(b, "s", 16);			/* [2] struct s { */
	ck_assert_int_ge(btf__add_field(b, "a", in, 0, 0), 0);	/*   int a; */
	ck_assert_int_ge(btf__add_field(b, "next", s + 1, 64, 0), 0); /* struct s *next; } */
	ck_assert_int_eq(btf__add_ptr(b, s), s + 1);		/* [3] struct s * */
	ck_assert_int_ge(btf__add_enum(b, "e", 4), 0);		/* [4] enum e { A = i } */
	ck_assert_int_ge(btf__add_enum_value(b, "A", i), 0);
	if (i & 1) {						/* [5] struct odd { int o; } */
		ck_assert_int_ge(btf__add_struct(b, "odd", 4), 0);
		ck_assert_int_ge(btf__add_field(b, "o", in, 0, 0), 0);
	}
	out = blob_from_libbpf(b);
	btf__free(b);
	return out;
}

struct lock_dir {
	char path[160];
	char input[NR_KERNELS][192];	/* raw BTF of kernel i */
	char name[NR_KERNELS][32];	/* its name in the archive */
	char archive[192];		/* dir/k.bca */
	const char *cli;
};

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, size, f), size);
	ck_assert_int_eq(fclose(f), 0);
}

static void lock_dir_init(struct lock_dir *d)
{
	char dir[sizeof(d->path)];	/* not d's own bytes: restrict */
	int i;

	d->cli = getenv("BTFCANON");
	ck_assert_msg(d->cli, "BTFCANON names the binary (make check sets it)");
	ck_assert_int_lt(snprintf(dir, sizeof(dir), "%s/btfcanon-lock-XXXXXX",
				  getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp"),
			 (int)sizeof(dir));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	memcpy(d->path, dir, sizeof(dir));
	snprintf(d->archive, sizeof(d->archive), "%s/k.bca", dir);
	for (i = 0; i < NR_KERNELS; i++) {
		struct blob k = lock_kernel(i);

		snprintf(d->input[i], sizeof(d->input[i]), "%s/k%d.btf", dir, i);
		snprintf(d->name[i], sizeof(d->name[i]), "6.1.0-%d-amd64", i);
		write_file(d->input[i], k.data, k.size);
		blob_free(&k);
	}
}

static void lock_dir_remove(struct lock_dir *d)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * Starts $BTFCANON with args (NULL-terminated after the binary), stdout
 * and stderr to the files out and err (NULL: /dev/null); kill_write sets
 * BTFCANON_FAULT_KILL_WRITE (the test has one thread: the child may call
 * setenv before execv). Returns the pid.
 */
static pid_t start(const char *const *args, const char *out, const char *err,
		   bool kill_write)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int o = open(out ? out : "/dev/null",
			     O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err ? err : "/dev/null",
			     O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		if (kill_write)
			setenv("BTFCANON_FAULT_KILL_WRITE", "1", 1);
		else
			unsetenv("BTFCANON_FAULT_KILL_WRITE");
		execv(args[0], (char *const *)args);
		_exit(127);
	}
	return pid;
}

static int finish(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) != pid)
		ck_assert_int_eq(errno, EINTR);
	return status;
}

/* Runs args to the end; its wait status. */
static int run(const char *const *args, const char *err)
{
	return finish(start(args, NULL, err, false));
}

static void run_ok(const char *const *args)
{
	int status = run(args, NULL);

	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
		      "%s %s %s: status 0x%x", args[1], args[2], args[3],
		      status);
}

/* Kernels of mask into a new archive at path by `archive create`. */
static void create(struct lock_dir *d, const char *path, unsigned mask)
{
	const char *args[4 + 3 * NR_KERNELS + 1] = {
		d->cli, "archive", "create", path,
	};
	int i, n = 4;

	for (i = 0; i < NR_KERNELS; i++) {
		if (!(mask >> i & 1))
			continue;
		args[n++] = d->input[i];
		args[n++] = "--name";
		args[n++] = d->name[i];
	}
	args[n] = NULL;
	run_ok(args);
}

static bool file_is(const char *path, const struct blob *want)
{
	struct blob got = read_file(path);
	bool same = got.data && blob_eq(&got, want);

	blob_free(&got);
	return same;
}

/* The writers' commands: add kernel k, or remove kernel k. */
static void writer_args(struct lock_dir *d, bool add, int k, const char **args,
			const char *wait)
{
	int n = 0;

	args[n++] = d->cli;
	args[n++] = "archive";
	args[n++] = add ? "add" : "remove";
	args[n++] = d->archive;
	if (add) {
		args[n++] = d->input[k];
		args[n++] = "--name";
		args[n++] = d->name[k];
		args[n++] = "-j1";
	} else {
		args[n++] = d->name[k];
	}
	args[n++] = "--wait";
	args[n++] = wait;
	args[n] = NULL;
}

static bool file_has(const char *path, const char *text)
{
	struct blob b = read_file(path);
	bool has;

	b.data = realloc(b.data, b.size + 1);
	((char *)b.data)[b.size] = 0;
	has = strstr(b.data, text) != NULL;
	blob_free(&b);
	return has;
}

/*
 * A reader beside the writers, in a child: `list` and `extract` of kernel
 * 0 (which no writer touches) until done (a pipe) is closed. Exits 0, or
 * 1 after a line on stderr naming what failed.
 */
static void reader(struct lock_dir *d, int done, const struct blob *k0,
		   int id)
{
	char out[256], listed[256], err[256];
	const char *list[] = { d->cli, "archive", "list", d->archive, NULL };
	const char *extract[] = { d->cli, "archive", "extract", d->archive,
				  d->name[0], "-o", out, NULL };
	struct pollfd p = { .fd = done, .events = POLLIN };
	int n;

	snprintf(out, sizeof(out), "%s/read%d.btf", d->path, id);
	snprintf(listed, sizeof(listed), "%s/read%d.list", d->path, id);
	snprintf(err, sizeof(err), "%s/read%d.err", d->path, id);
	for (n = 0; !poll(&p, 1, 0); n++) {
		const char *const *args = n & 1 ? extract : list;
		int status = finish(start(args, n & 1 ? NULL : listed, err,
					  false));
		struct blob got;

		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "reader: archive %s: status 0x%x\n",
				args[2], status);
			_exit(1);
		}
		if (!(n & 1)) {
			if (!file_has(listed, d->name[0])) {
				fprintf(stderr, "reader: list lost %s\n",
					d->name[0]);
				_exit(1);
			}
			continue;
		}
		got = read_file(out);
		if (!blob_eq(&got, k0)) {
			fprintf(stderr, "reader: extract gave other bytes\n");
			_exit(1);
		}
		blob_free(&got);
	}
	_exit(0);
}

/* The temporary files of writes left in d; remove: removes them. */
static int count_temps(struct lock_dir *d, bool remove)
{
	char cmd[256];
	int n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -c '^k.bca.tmp.'", d->path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	if (remove && n) {
		snprintf(cmd, sizeof(cmd), "rm -f '%s'/k.bca.tmp.*", d->path);
		ck_assert_int_eq(system(cmd), 0);
	}
	return n;
}

#define NR_ROUNDS 20
#define NR_ADDS 8
#define NR_READERS 2

START_TEST(test_writers)
{
	struct lock_dir d;
	struct blob start_bytes, want, k0;
	const char *args[NR_ADDS + 2][16];
	char initial[256], wantp[256], k0p[256];
	pid_t pids[NR_ADDS + 2], readers[NR_READERS];
	int round, i, done[2];

	lock_dir_init(&d);
	snprintf(initial, sizeof(initial), "%s/initial.bca", d.path);
	snprintf(wantp, sizeof(wantp), "%s/want.bca", d.path);
	snprintf(k0p, sizeof(k0p), "%s/k0.sorted", d.path);
	/* kernels 0, 1, 2; adds of 3 .. 10; removes of 1 and 2 */
	create(&d, initial, 0x7);
	start_bytes = read_file(initial);
	for (i = 0; i < NR_ADDS + 2; i++)
		writer_args(&d, i < NR_ADDS, i < NR_ADDS ? 3 + i : i - NR_ADDS + 1,
			    args[i], "60");
	/* one after another */
	write_file(d.archive, start_bytes.data, start_bytes.size);
	for (i = 0; i < NR_ADDS + 2; i++)
		run_ok(args[i]);
	want = read_file(d.archive);
	{
		const char *ex[] = { d.cli, "archive", "extract", d.archive,
				     d.name[0], "-o", k0p, NULL };

		run_ok(ex);
	}
	k0 = read_file(k0p);
	ck_assert_uint_gt(k0.size, 0);
	/* a create of the resulting set writes it too */
	create(&d, wantp, 0x7f9);
	ck_assert_msg(file_is(wantp, &want), "one after another: not the create of the set");
	for (round = 0; round < NR_ROUNDS; round++) {
		write_file(d.archive, start_bytes.data, start_bytes.size);
		ck_assert_int_eq(pipe(done), 0);
		for (i = 0; i < NR_READERS; i++) {
			readers[i] = fork();
			ck_assert_int_ge(readers[i], 0);
			if (!readers[i]) {
				close(done[1]);
				reader(&d, done[0], &k0, i);
			}
		}
		close(done[0]);
		for (i = 0; i < NR_ADDS + 2; i++) {
			char err[256];

			snprintf(err, sizeof(err), "%s/w%d.err", d.path, i);
			pids[i] = start(args[i], NULL, err, false);
		}
		for (i = 0; i < NR_ADDS + 2; i++) {
			int status = finish(pids[i]);

			ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
				      "round %d: archive %s %s: status 0x%x",
				      round, args[i][2], args[i][4], status);
		}
		close(done[1]);
		for (i = 0; i < NR_READERS; i++) {
			int status = finish(readers[i]);

			ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
				      "round %d: reader %d failed", round, i);
		}
		ck_assert_msg(file_is(d.archive, &want),
			      "round %d: the archive is not what the same changes one after another give",
			      round);
		ck_assert_int_eq(count_temps(&d, false), 0);
	}
	blob_free(&start_bytes);
	blob_free(&want);
	blob_free(&k0);
	lock_dir_remove(&d);
}
END_TEST

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (t.tv_nsec - t0->tv_nsec) / 1e9;
}

START_TEST(test_wait)
{
	struct lock_dir d;
	struct blob before, want;
	char err[256], other[256], msg[256];
	const char *add[16], *remove[16];
	const char *create_over[] = { NULL, "archive", "create", NULL, NULL,
				      "--wait", "0.2", NULL };
	struct timespec t0;
	int fd, status;
	pid_t pid;

	lock_dir_init(&d);
	snprintf(err, sizeof(err), "%s/err", d.path);
	snprintf(other, sizeof(other), "%s/other.bca", d.path);
	create(&d, d.archive, 0x3);
	before = read_file(d.archive);
	fd = open(d.archive, O_RDONLY | O_CLOEXEC);	/* not the children's */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	/* held: each writer gives up after its wait, changing nothing */
	writer_args(&d, true, 2, add, "1");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	status = run(add, err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2,
		      "add under a held lock: status 0x%x", status);
	ck_assert_msg(seconds_since(&t0) >= 0.95, "add gave up after %.2f s",
		      seconds_since(&t0));
	snprintf(msg, sizeof(msg),
		 "%s: locked by another writer for 1 s; nothing changed",
		 d.archive);
	ck_assert_msg(file_has(err, msg), "add: no '%s'", msg);
	ck_assert(file_is(d.archive, &before));
	writer_args(&d, false, 1, remove, "0.2");
	status = run(remove, err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2,
		      "remove under a held lock: status 0x%x", status);
	ck_assert(file_has(err, "locked by another writer for 0.2 s; nothing changed"));
	ck_assert(file_is(d.archive, &before));
	create_over[0] = d.cli;
	create_over[3] = d.archive;
	create_over[4] = d.input[5];
	status = run(create_over, err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2,
		      "create over a locked archive: status 0x%x", status);
	ck_assert(file_is(d.archive, &before));
	ck_assert_int_eq(count_temps(&d, false), 0);
	/*
	 * An add waiting on the file when another writer renames a new
	 * archive over it (done here by hand): it adds to the new archive,
	 * not to the file it waited on.
	 */
	writer_args(&d, true, 2, add, "10");
	pid = start(add, NULL, err, false);
	usleep(100 * 1000);
	create(&d, other, 0x9);		/* kernels 0 and 3 */
	ck_assert_int_eq(rename(other, d.archive), 0);
	usleep(50 * 1000);
	ck_assert_int_eq(close(fd), 0);	/* the old file's lock let go */
	status = finish(pid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
		      "add after a rename over its archive: status 0x%x", status);
	create(&d, other, 0xd);		/* 0, 3 and the added 2 */
	want = read_file(other);
	ck_assert_msg(file_is(d.archive, &want),
		      "the add did not go to the archive renamed over the one it waited on");
	/* no lock now: --wait 0 goes through */
	writer_args(&d, false, 3, remove, "0");
	run_ok(remove);
	blob_free(&before);
	blob_free(&want);
	lock_dir_remove(&d);
}
END_TEST

/* xorshift64*: the stress's own generator, from its seed only */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static unsigned long env_ulong(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : dflt;
}

/* The bytes a create of the kernels of mask writes (cached per mask). */
static const struct blob *set_bytes(struct lock_dir *d, struct blob *cache,
				    unsigned mask)
{
	char path[256];

	if (!cache[mask].data) {
		snprintf(path, sizeof(path), "%s/set.bca", d->path);
		create(d, path, mask);
		cache[mask] = read_file(path);
	}
	return &cache[mask];
}

/*
 * Each iteration: writer A (the victim) and writer B change different
 * kernels of the archive (add one not in it, or remove one in it); A
 * starts first, B a moment after and usually waits for A's lock; A is
 * killed with SIGKILL at a random moment (waiting, reading, writing its
 * temporary file, renaming; one time in four halfway through its
 * temporary file by BTFCANON_FAULT_KILL_WRITE), or finishes first.
 */
START_TEST(test_lockkill)
{
	uint64_t seed = env_ulong("BTFCANON_LOCK_SEED", 0), rnd;
	unsigned long iters = env_ulong("BTFCANON_LOCK_ITERS", 25);
	double limit = (double)env_ulong("BTFCANON_LOCK_SECONDS", 0);
	struct blob *cache = calloc(1u << 8, sizeof(*cache));
	unsigned long it, killed = 0, made = 0;
	unsigned mask = 0x1;		/* kernels 0 .. 7 take part */
	struct lock_dir d;
	struct timespec t0;
	char err_b[256];

	if (!seed) {
		clock_gettime(CLOCK_REALTIME, &t0);
		seed = (uint64_t)t0.tv_nsec ^ (uint64_t)getpid() << 32;
	}
	rnd = seed | 1;
	ck_assert_ptr_nonnull(cache);
	lock_dir_init(&d);
	snprintf(err_b, sizeof(err_b), "%s/b.err", d.path);
	write_file(d.archive, set_bytes(&d, cache, mask)->data,
		   set_bytes(&d, cache, mask)->size);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (it = 0; it < iters && (!limit || seconds_since(&t0) < limit); it++) {
		const char *a_args[16], *b_args[16];
		int ka = (int)(next_rand(&rnd) % 8), kb;
		bool fault = next_rand(&rnd) % 4 == 0;
		unsigned delay_b = (unsigned)(next_rand(&rnd) % 3000);
		unsigned delay_kill = (unsigned)(next_rand(&rnd) % 25000);
		unsigned with_a, without_a;
		int sa, sb;
		pid_t a, b;

		do
			kb = (int)(next_rand(&rnd) % 8);
		while (kb == ka);
		writer_args(&d, !(mask >> ka & 1), ka, a_args, "30");
		writer_args(&d, !(mask >> kb & 1), kb, b_args, "30");
		without_a = mask ^ (1u << kb);
		with_a = without_a ^ (1u << ka);
		a = start(a_args, NULL, NULL, fault);
		usleep(delay_b);
		b = start(b_args, NULL, err_b, false);
		if (delay_kill > delay_b)
			usleep(delay_kill - delay_b);
		kill(a, SIGKILL);
		sa = finish(a);
		sb = finish(b);
		ck_assert_msg(WIFEXITED(sb) && !WEXITSTATUS(sb),
			      "seed %llu, iteration %lu: the writer beside a killed one: status 0x%x",
			      (unsigned long long)seed, it, sb);
		ck_assert_msg(WIFSIGNALED(sa) ||
			      (WIFEXITED(sa) && !WEXITSTATUS(sa)),
			      "seed %llu, iteration %lu: the victim exited 0x%x",
			      (unsigned long long)seed, it, sa);
		if (file_is(d.archive, set_bytes(&d, cache, with_a))) {
			mask = with_a;
			made++;
		} else {
			ck_assert_msg(!WIFEXITED(sa),
				      "seed %llu, iteration %lu: the victim exited 0 and its change is lost",
				      (unsigned long long)seed, it);
			ck_assert_msg(file_is(d.archive, set_bytes(&d, cache, without_a)),
				      "seed %llu, iteration %lu: the archive is neither the old set with B's change nor with both",
				      (unsigned long long)seed, it);
			mask = without_a;
		}
		killed += WIFSIGNALED(sa);
		count_temps(&d, true);	/* a killed writer's temporary file */
	}
	fprintf(stderr,
		"archive lockkill: seed %llu, %lu iterations in %.1f s, %lu writers killed, %lu changes of a killed or finished victim made\n",
		(unsigned long long)seed, it, seconds_since(&t0), killed, made);
	for (it = 0; it < 1u << 8; it++)
		blob_free(&cache[it]);
	free(cache);
	lock_dir_remove(&d);
}
END_TEST

void archive_lock_cases(Suite *s)
{
	TCase *tc;

	tc = tcase_create("writers");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_writers);
	suite_add_tcase(s, tc);
	tc = tcase_create("wait");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_wait);
	suite_add_tcase(s, tc);
	tc = tcase_create("lockkill");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_lockkill);
	suite_add_tcase(s, tc);
}
