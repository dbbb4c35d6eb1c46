// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer entry point: fuzz_kmod_one() in targets.c. */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_kmod_one(data, size);
}
