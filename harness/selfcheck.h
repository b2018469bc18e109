/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check helpers of the in-module self-checks (selfcheck.c,
 * selfcheck_ctx.c): a failed check logs its file line and condition, the
 * verdict line is "<what>: PASS|FAIL checks=N failures=N" or
 * "<what>: SKIP <reason>".
 */
#ifndef MEMCG_STOCK_SELFCHECK_H
#define MEMCG_STOCK_SELFCHECK_H

#include <linux/seq_buf.h>

struct mcs_check_ctx {
	struct seq_buf *log;
	int checks;
	int failures;
};

#define MCS_CHECK(ctx, cond, fmt, ...)					\
	do {								\
		struct mcs_check_ctx *__c = (ctx);			\
									\
		__c->checks++;						\
		if (!(cond)) {						\
			__c->failures++;				\
			seq_buf_printf(__c->log, "FAIL %s:%d: %s: " fmt "\n", \
				       __func__, __LINE__, #cond, ##__VA_ARGS__); \
		}							\
	} while (0)

/* The verdict line; 0 when every check passed, else -EINVAL. */
static inline int mcs_check_finish(struct mcs_check_ctx *ctx, const char *what)
{
	seq_buf_printf(ctx->log, "%s: %s checks=%d failures=%d\n", what,
		       ctx->failures ? "FAIL" : "PASS", ctx->checks, ctx->failures);
	return ctx->failures ? -EINVAL : 0;
}

/* A check that cannot run here: its verdict line, and 0 (not a failure). */
static inline int mcs_check_skip(struct seq_buf *log, const char *what, const char *why)
{
	seq_buf_printf(log, "%s: SKIP %s\n", what, why);
	return 0;
}

#endif /* MEMCG_STOCK_SELFCHECK_H */
