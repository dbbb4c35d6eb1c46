// SPDX-License-Identifier: GPL-2.0-only
#include "suites.h"
#include "testutil.h"

Suite *real_suite(void)
{
	Suite *s = suite_create("real");

	return s;
}
