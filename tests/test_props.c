// SPDX-License-Identifier: GPL-2.0-only
#include "suites.h"
#include "testutil.h"

Suite *props_suite(void)
{
	Suite *s = suite_create("props");

	return s;
}
