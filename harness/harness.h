/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The debugfs harness (this folder): stress runs, the A/B benchmark, the
 * self-checks, the slab report, the strict input parser and the test NMI
 * source.  The harness calls the mechanism (mcs_internal.h, memcg_stock.h);
 * the mechanism never calls the harness (scripts/api-check.sh checks it).
 */
#ifndef MEMCG_STOCK_HARNESS_H
#define MEMCG_STOCK_HARNESS_H

#include "mcs_internal.h"

/* the module's debugfs directory (module.c creates it, the harness lives below) */
struct dentry;

/* slab_report.c: the debugfs "slab" footprint table */
void mcs_slab_report_init(struct dentry *dir);

/* selftest.c: the "selftest" file and the harness claim */
int mcs_selftest_file_init(void);
void mcs_selftest_file_create(struct dentry *dir);
void mcs_selftest_file_exit(void);

/*
 * The debugfs harness users that exclude each other: a stress run (from
 * its start until its last case is checked), a benchmark, a self-check and
 * a config write.  The loser of a claim gets -EBUSY.
 */
enum mcs_harness_user {
	MCS_USER_NONE,
	MCS_USER_STRESS,
	MCS_USER_BENCH,
	MCS_USER_SELFTEST,
	MCS_USER_CONFIG,
};

int mcs_harness_claim(enum mcs_harness_user user);
void mcs_harness_release(enum mcs_harness_user user);

/* parse.c: the strict parser of every debugfs write */
#define MCS_INPUT_MAX		1024	/* bytes of a multi-line write */
char *mcs_input_copy(const char *what, const char __user *ubuf, size_t count,
		     size_t max_line, bool multiline);
char *mcs_input_next(char **cursor);
int mcs_input_kv(const char *what, char *tok, char **key, char **val);
int mcs_input_uint(const char *what, const char *key, const char *val,
		   unsigned int min, unsigned int max, bool zero_ok,
		   unsigned int *out);
int mcs_input_bool(const char *what, const char *key, const char *val, bool *out);
int mcs_input_match(const char *what, const char *key, const char *val,
		    const char * const *names, unsigned int n);
int mcs_input_key(const char *what, const char *key, const char * const *names,
		  unsigned int n);

/* bench.c */
void mcs_bench_init(struct dentry *dir);

/* record.c: record the kernel's own charge stream (debugfs "record") */
void mcs_record_init(struct dentry *dir);
void mcs_record_exit(void);

/* replay.c: load a recorded stream (debugfs "trace_load") and replay it */
void mcs_replay_init(struct dentry *dir);
void mcs_replay_exit(void);
int mcs_replay_bench(enum mcs_stock_mode mode, unsigned int batch, char *result, size_t size);

/* kernel_cost.c: the kernel's own memcg accounting, beside the bench */
void mcs_kernel_cost_init(struct dentry *dir);

/* stress_files.c: the debugfs stress harness, set up and torn down by module.c */
int mcs_stress_init(void);
void mcs_stress_files_create(struct dentry *dir);
void mcs_stress_exit(void);

/* selfcheck.c: the in-module checks behind debugfs "selftest" */
struct seq_buf;
int mcs_selfcheck_page_counter(struct seq_buf *log);
int mcs_selfcheck_stock(struct seq_buf *log);
int mcs_selfcheck_nmi(struct seq_buf *log);
int mcs_selfcheck_isolation(struct seq_buf *log);

/* nmi.c: the NMI source of the tests (x86 only; see compat.h) */
int mcs_nmi_register(void (*fn)(void *arg), void *arg);
void mcs_nmi_unregister(void);
bool mcs_nmi_raise(int cpu);
bool mcs_nmi_arm(int cpu);
void mcs_nmi_fire(int cpu);
long mcs_nmi_lost(void);
bool mcs_nmi_pending(int cpu);
void mcs_nmi_forget(int cpu);
long mcs_nmi_count(void);
bool mcs_nmi_supported(void);

#endif /* MEMCG_STOCK_HARNESS_H */
