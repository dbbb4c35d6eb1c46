// SPDX-License-Identifier: GPL-2.0-only
#include "suites.h"
#include "testutil.h"

Suite *badinput_suite(void)
{
	Suite *s = suite_create("badinput");

	return s;
}
