// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test runner: every suite of the project.
 *
 *	btfcanon-tests			every suite, one after another;
 *					CK_RUN_SUITE / CK_RUN_CASE select a
 *					part, as check(3) documents
 *	btfcanon-tests --list		the parts `make check` runs side by
 *					side, one a line, longest first
 *	btfcanon-tests --part PART	one of them: SUITE.CASE, a case of
 *					its own, or SUITE, the suite without
 *					the cases that run on their own
 *
 * A case runs on its own when it takes a good share of the whole run (a
 * real kernel encoded ten times): own_cases lists it, and its TCase
 * carries its name as a tag, so its suite's part leaves it out
 * (CK_EXCLUDE_TAGS). A case listed here that lacks the tag runs twice, not
 * never; one tagged but not listed runs with its suite. A part that runs
 * no test at all fails: a case renamed.
 *
 * The cases share the run's cache (testutil.h, test_cached()): the
 * directory BTFCANON_TEST_CACHE, made here when it is not set.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "suites.h"
#include "testutil.h"

struct suite_entry {
	const char *name;
	Suite *(*make)(void);
};

/* Roughly longest first: `make check` starts its parts in this order. */
static const struct suite_entry suites[] = {
	{ "deps", deps_suite },
	{ "funcs", funcs_suite },
	{ "encode", encode_suite },
	{ "real", real_suite },
	{ "props", props_suite },
	{ "distill", distill_suite },
	{ "faults", faults_suite },
	{ "encode_real", encode_real_suite },
	{ "kimage", kimage_suite },
	{ "diff", diff_suite },
	{ "archive", archive_suite },
	{ "header", header_suite },
	{ "layout", layout_suite },
	{ "badtable", badtable_suite },
	{ "fuzzfound", fuzzfound_suite },
	{ "kinds", kinds_suite },
	{ "badinput", badinput_suite },
};

#define NR_SUITES (sizeof(suites) / sizeof(suites[0]))

struct own_case {
	const char *suite;
	const char *tcase;
};

static const struct own_case own_cases[] = {
	{ "encode_real", "determinism_61" },
	{ "encode_real", "determinism_612" },
	{ "encode_real", "peer_pahole" },
	{ "encode_real", "die_reader_612" },
	{ "encode_real", "consumers" },
	{ "encode_real", "cache_hits" },
	{ "encode_real", "funcs_612" },
	{ "encode_real", "true_signature_612" },
	{ "encode_real", "funcs_61" },
};

#define NR_OWN_CASES (sizeof(own_cases) / sizeof(own_cases[0]))

static void list_parts(void)
{
	size_t i;

	for (i = 0; i < NR_OWN_CASES; i++)
		printf("%s.%s\n", own_cases[i].suite, own_cases[i].tcase);
	for (i = 0; i < NR_SUITES; i++)
		printf("%s\n", suites[i].name);
}

/* The tags of suite's own cases, space-separated (malloc'd), or NULL. */
static char *own_tags(const char *suite)
{
	size_t i, len = 1;
	char *tags;

	for (i = 0; i < NR_OWN_CASES; i++)
		if (!strcmp(own_cases[i].suite, suite))
			len += strlen(own_cases[i].tcase) + 1;
	if (len == 1)
		return NULL;
	tags = calloc(1, len);
	if (!tags)
		return NULL;
	for (i = 0; i < NR_OWN_CASES; i++) {
		if (strcmp(own_cases[i].suite, suite))
			continue;
		if (*tags)
			strcat(tags, " ");
		strcat(tags, own_cases[i].tcase);
	}
	return tags;
}

/*
 * Runs part (SUITE or SUITE.CASE); returns the runner's exit status:
 * 2 for a part that does not exist or ran nothing.
 */
static int run_part(SRunner *sr, const char *part)
{
	char suite[64], *dot = strchr(part, '.'), *tags = NULL;
	const char *tcase = NULL;
	int ran, failed;
	size_t i;

	snprintf(suite, sizeof(suite), "%.*s",
		 (int)(dot ? (size_t)(dot - part) : strlen(part)), part);
	for (i = 0; i < NR_SUITES && strcmp(suites[i].name, suite); i++)
		;
	if (i == NR_SUITES) {
		fprintf(stderr, "btfcanon-tests: no suite '%s' (--list)\n", suite);
		return 2;
	}
	if (dot)
		tcase = dot + 1;
	else
		tags = own_tags(suite);
	srunner_run_tagged(sr, suite, tcase, NULL, tags, CK_NORMAL);
	ran = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	/* a suite whose cases all run on their own has nothing left */
	if (!ran && !tags) {
		fprintf(stderr, "btfcanon-tests: part %s ran no test\n", part);
		return 2;
	}
	free(tags);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	char cache[4096] = "";
	SRunner *sr;
	size_t i;
	int status;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		list_parts();
		return EXIT_SUCCESS;
	}
	if (argc != 1 && (argc != 3 || strcmp(argv[1], "--part"))) {
		fprintf(stderr, "Usage: btfcanon-tests [--list | --part PART]\n");
		return 2;
	}
	if (!getenv("BTFCANON_TEST_CACHE")) {
		const char *tmp = getenv("TMPDIR");

		snprintf(cache, sizeof(cache), "%s/btfcanon-tests-cache.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(cache) || setenv("BTFCANON_TEST_CACHE", cache, 1)) {
			fprintf(stderr, "btfcanon-tests: %s: %s\n", cache,
				strerror(errno));
			return 2;
		}
	}

	sr = srunner_create(NULL);
	for (i = 0; i < NR_SUITES; i++)
		srunner_add_suite(sr, suites[i].make());
	if (argc == 3) {
		status = run_part(sr, argv[2]);
	} else {
		srunner_run_all(sr, CK_NORMAL);
		status = srunner_ntests_failed(sr) ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	srunner_free(sr);
	if (*cache)
		remove_tree(cache);
	return status;
}
