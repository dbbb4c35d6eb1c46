// SPDX-License-Identifier: GPL-2.0-only
/*
 * libarchive through dlopen() (libarchive.h says why). Loading costs
 * what linking did (the same libraries mapped and relocated, a few ms),
 * once per process and only in one that reads a package.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "libarchive.h"

/* dlerror()'s text, or what failed when it has none. */
static void set_error(struct bc_libarchive *la, const char *soname,
		      const char *what)
{
	const char *msg = dlerror();

	if (msg)
		snprintf(la->error, sizeof(la->error), "%s", msg);
	else
		snprintf(la->error, sizeof(la->error), "%s: %s", soname, what);
}

int bc_libarchive_open(struct bc_libarchive *la, const char *soname)
{
	memset(la, 0, sizeof(*la));
	dlerror();
	/* lazy: binding the few functions used, not all of libarchive's */
	la->handle = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
	if (!la->handle) {
		set_error(la, soname, "cannot be loaded");
		return -ELIBACC;
	}
	/* dlsym()'s void * to a function pointer: POSIX says that works */
#define BC_LIBARCHIVE_LOOKUP(name)					\
	la->name = dlsym(la->handle, #name);				\
	if (!la->name) {						\
		set_error(la, soname, "has no " #name);			\
		dlclose(la->handle);					\
		la->handle = NULL;					\
		return -ELIBACC;					\
	}
	BC_LIBARCHIVE_FUNCTIONS(BC_LIBARCHIVE_LOOKUP)
#undef BC_LIBARCHIVE_LOOKUP
	return 0;
}

void bc_libarchive_close(struct bc_libarchive *la)
{
	if (la->handle)
		dlclose(la->handle);
	la->handle = NULL;
}

/*
 * The one file-scope table of the project, on purpose: the loader keeps
 * one copy of libarchive per process whatever we do, so the table of its
 * addresses is per process too. It is written once, inside
 * pthread_once(), and only read after (pthread_once orders the writes
 * before every reader's return), so threads reading packages at once
 * share nothing mutable. A failed load is kept as well: the message is
 * the same for every package, and it is not retried.
 */
static struct bc_libarchive process_libarchive;
static pthread_once_t process_libarchive_once = PTHREAD_ONCE_INIT;

static void process_libarchive_load(void)
{
	bc_libarchive_open(&process_libarchive, BC_LIBARCHIVE_SONAME);
}

const struct bc_libarchive *bc_libarchive(void)
{
	pthread_once(&process_libarchive_once, process_libarchive_load);
	return &process_libarchive;
}
