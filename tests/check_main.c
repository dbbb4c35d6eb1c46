// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test runner: every suite of the project, run by `make check`.
 * CK_RUN_SUITE / CK_RUN_CASE select a part, as check(3) documents.
 */
#include <stdlib.h>
#include <check.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(kinds_suite());
	int failed;

	srunner_add_suite(sr, props_suite());
	srunner_add_suite(sr, badinput_suite());
	srunner_add_suite(sr, real_suite());
	srunner_add_suite(sr, encode_real_suite());
	srunner_add_suite(sr, encode_suite());
	srunner_add_suite(sr, diff_suite());
	srunner_add_suite(sr, badtable_suite());
	srunner_add_suite(sr, faults_suite());
	srunner_add_suite(sr, fuzzfound_suite());
	srunner_add_suite(sr, funcs_suite());
	srunner_add_suite(sr, layout_suite());
	srunner_add_suite(sr, deps_suite());
	srunner_add_suite(sr, distill_suite());
	srunner_add_suite(sr, kimage_suite());
	srunner_add_suite(sr, archive_suite());
	srunner_add_suite(sr, header_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
