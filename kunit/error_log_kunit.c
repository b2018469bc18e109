// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the harness's error_log (harness/error_log.c): the ring
 * keeps the last MCS_ERROR_LOG_LEN entries in order across its wrap and a
 * clear, and an entry's excerpt is escaped and cut as the docs say.  The
 * cases use a ring of their own: the module's ring stays as users left it.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "mcs_kunit.h"

/* A ring and room to read it, freed with the case. */
struct errlog_ctx {
	struct mcs_error_ring ring;
	struct mcs_error_entry out[MCS_ERROR_LOG_LEN];
};

static struct errlog_ctx *errlog_ctx(struct kunit *test)
{
	struct errlog_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	mcs_error_ring_init(&c->ring);
	return c;
}

/* Entry i: position i, kind i % NR_MCS_ERRORS, excerpt "e<i>". */
static void errlog_add(struct errlog_ctx *c, unsigned int i)
{
	char line[16];

	snprintf(line, sizeof(line), "e%u", i);
	mcs_error_ring_add(&c->ring, i & 1 ? "run" : "config", i % NR_MCS_ERRORS,
			   -EINVAL, i, line, strlen(line));
}

/* After @added entries the ring holds the last min(added, 16), oldest first. */
static void errlog_expect_last(struct kunit *test, struct errlog_ctx *c, unsigned int added)
{
	unsigned int n = mcs_error_ring_read(&c->ring, c->out), i;
	unsigned int want = min_t(unsigned int, added, MCS_ERROR_LOG_LEN);

	KUNIT_ASSERT_EQ(test, n, want);
	for (i = 0; i < n; i++) {
		unsigned int k = added - want + i;
		char line[16];

		snprintf(line, sizeof(line), "e%u", k);
		KUNIT_EXPECT_EQ_MSG(test, c->out[i].pos, k, "entry %u of %u", i, added);
		KUNIT_EXPECT_EQ(test, (unsigned int)c->out[i].kind, k % NR_MCS_ERRORS);
		KUNIT_EXPECT_STREQ(test, c->out[i].file, k & 1 ? "run" : "config");
		KUNIT_EXPECT_EQ(test, (size_t)c->out[i].len, strlen(line));
		KUNIT_EXPECT_EQ(test, memcmp(c->out[i].excerpt, line, strlen(line)), 0);
		KUNIT_EXPECT_FALSE(test, c->out[i].cut);
		if (i)
			KUNIT_EXPECT_LE(test, c->out[i - 1].ns, c->out[i].ns);
	}
}

/* Filling, wrapping once, many times, and a clear in between. */
static void errlog_ring_wraps(struct kunit *test)
{
	struct errlog_ctx *c = errlog_ctx(test);
	unsigned int i;

	errlog_expect_last(test, c, 0);
	for (i = 0; i < 5 * MCS_ERROR_LOG_LEN + 3; i++) {
		errlog_add(c, i);
		if (i < 2 * MCS_ERROR_LOG_LEN + 1 || i % 7 == 0)
			errlog_expect_last(test, c, i + 1);
	}
	errlog_expect_last(test, c, i);
	mcs_error_ring_clear(&c->ring);
	errlog_expect_last(test, c, 0);
	for (i = 0; i < MCS_ERROR_LOG_LEN + 1; i++)
		errlog_add(c, i);
	errlog_expect_last(test, c, MCS_ERROR_LOG_LEN + 1);
}

struct excerpt_case {
	const char *name;
	const char *raw;
	size_t len;
	const char *want;
};

static const struct excerpt_case excerpt_cases[] = {
	{ "plain", "threads=2 ops=5", 15, "\"threads=2 ops=5\"" },
	{ "empty", "", 0, "\"\"" },
	{ "backslash-quote", "a\\b\"c", 5, "\"a\\\\b\\\"c\"" },
	{ "controls", "a\tb\nc\0d", 7, "\"a\\x09b\\x0ac\\x00d\"" },
	{ "high-bytes", "\x7f\x80\xff~", 4, "\"\\x7f\\x80\\xff~\"" },
	{ "exactly-64",
	  "0123456789012345678901234567890123456789012345678901234567890123", 64,
	  "\"0123456789012345678901234567890123456789012345678901234567890123\"" },
	{ "cut-at-64",
	  "0123456789012345678901234567890123456789012345678901234567890123XYZ", 67,
	  "\"0123456789012345678901234567890123456789012345678901234567890123\"..." },
};

static void excerpt_desc(const struct excerpt_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(excerpt, excerpt_cases, excerpt_desc);

/* An entry's excerpt through the ring: kept raw, escaped and cut when read. */
static void errlog_excerpt_escaped(struct kunit *test)
{
	const struct excerpt_case *t = test->param_value;
	struct errlog_ctx *c = errlog_ctx(test);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char want[MCS_ERROR_EXCERPT_ESC + 64];

	KUNIT_ASSERT_NOT_NULL(test, buf);
	mcs_error_ring_add(&c->ring, "bench", MCS_ERR_KV, -EINVAL, 3, t->raw, t->len);
	KUNIT_ASSERT_EQ(test, mcs_error_ring_read(&c->ring, c->out), 1U);
	KUNIT_EXPECT_EQ(test, (bool)c->out[0].cut, t->len > MCS_ERROR_EXCERPT);
	mcs_error_excerpt(buf, MCS_ERROR_EXCERPT_ESC, c->out[0].excerpt, c->out[0].len,
			  c->out[0].cut);
	KUNIT_EXPECT_STREQ(test, buf, t->want);
	/* the whole line: everything after the time */
	mcs_error_entry_format(&c->out[0], buf, PAGE_SIZE);
	snprintf(want, sizeof(want), "] bench: %s (-22) at byte 3: %s\n",
		 mcs_error_message(MCS_ERR_KV), t->want);
	KUNIT_ASSERT_NOT_NULL(test, strchr(buf, ']'));
	KUNIT_EXPECT_STREQ(test, strchr(buf, ']'), want);
	KUNIT_EXPECT_EQ(test, buf[0], '[');
}

/* The worst case fits the room the header promises. */
static void errlog_excerpt_bound(struct kunit *test)
{
	char raw[MCS_ERROR_EXCERPT], buf[MCS_ERROR_EXCERPT_ESC];

	memset(raw, 0x01, sizeof(raw));
	KUNIT_EXPECT_EQ(test, mcs_error_excerpt(buf, sizeof(buf), raw, sizeof(raw), true),
			sizeof(buf) - 1);
	KUNIT_EXPECT_STREQ(test, buf + sizeof(buf) - 5, "\"...");
}

/* Every kind has its message. */
static void errlog_messages_complete(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < NR_MCS_ERRORS; i++) {
		KUNIT_ASSERT_NOT_NULL_MSG(test, mcs_error_message(i), "kind %u", i);
		KUNIT_EXPECT_GT_MSG(test, strlen(mcs_error_message(i)), 0UL, "kind %u", i);
		KUNIT_EXPECT_STRNEQ_MSG(test, mcs_error_message(i), "?", "kind %u", i);
	}
}

static struct kunit_case errlog_cases[] = {
	KUNIT_CASE(errlog_ring_wraps),
	KUNIT_CASE_PARAM(errlog_excerpt_escaped, excerpt_gen_params),
	KUNIT_CASE(errlog_excerpt_bound),
	KUNIT_CASE(errlog_messages_complete),
	{}
};

static struct kunit_suite errlog_suite = {
	.name = "mcs_error_log",
	.test_cases = errlog_cases,
};

kunit_test_suite(errlog_suite);
