/*
 * Check's assertions, minus the bookkeeping of the ones that pass.
 *
 * Check's ck_assert_msg (and every ck_assert_* built on it) calls
 * _mark_point() when the assertion holds: a write(2) of the file and line
 * to Check's message file, so that a test killed by a signal can be
 * reported at its last passing assertion.  The suites assert per event over
 * real captures (millions of times): those writes were most of their run
 * time (filter's real-record test: about 70% in write and the kernel).
 * Forced into every test file (-include, Makefile): a passing assertion
 * costs its comparison only; a failing one is reported as before.  A crash
 * is still reported, at the test rather than the line (ASan and UBSan print
 * the stack; mark_point() stays available where a line is wanted).
 */
#ifndef TB_TEST_CHECK_QUIET_H
#define TB_TEST_CHECK_QUIET_H

#include <check.h>

#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
	((expr) ? (void)0 \
		: _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", \
				    ##__VA_ARGS__))

#endif
