/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BTFCANON_SUITES_H
#define BTFCANON_SUITES_H

#include <check.h>

Suite *kinds_suite(void);	/* test_kinds.c: golden listings per kind */
Suite *props_suite(void);	/* test_props.c: random graphs, permutations */
Suite *badinput_suite(void);	/* test_badinput.c: malformed BTF */
Suite *real_suite(void);	/* test_real.c: vmlinux BTFs, kernel verifier */
Suite *encode_real_suite(void);	/* test_encode_real.c: kernels through the encoder */
Suite *encode_suite(void);	/* test_encode.c: C fixtures through the encoder */
Suite *badtable_suite(void);	/* test_badtable.c: bad inputs and outputs via the CLI */
Suite *faults_suite(void);	/* test_faults.c: worker errors, allocation failures, -j, RSS */
Suite *fuzzfound_suite(void);	/* test_fuzzfound.c: what the fuzzers found */
Suite *diff_suite(void);	/* test_diff.c: diff and dump views */
void slim_add_cases(Suite *s);	/* test_slim.c: the slim header, in diff_suite */
Suite *funcs_suite(void);	/* test_funcs.c: functions, variables, kfuncs */
Suite *layout_suite(void);	/* test_layout.c: the 2026 header, kind layout, unknown kinds */
Suite *deps_suite(void);	/* test_deps.c: BPF objects against kernels, libbpf agreement */
Suite *kimage_suite(void);	/* test_kimage.c: kernel images and packages */
Suite *distill_suite(void);	/* test_distill.c: distilled base, relocation */

Suite *header_suite(void);	/* test_header.c: one vmlinux.h of many kernels */
Suite *archive_suite(void);	/* test_archive.c: the kernel archive */
void archive_lock_cases(Suite *s); /* test_archive_lock.c: its writers take turns */

#endif
