/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The debugfs harness (this folder): stress runs, the A/B benchmark, the
 * self-checks, the slab report, the strict input parser and the test NMI
 * source.  The harness calls the mechanism (the layers' headers, memcg_stock.h);
 * the mechanism never calls the harness (scripts/checks/api-check.sh checks it).
 */
#ifndef MEMCG_STOCK_HARNESS_H
#define MEMCG_STOCK_HARNESS_H

#include <linux/spinlock.h>

#include "entry/charge.h"
#include "entry/orchestration.h"
#include "stocks/stock_designs.h"
#include "stocks/stock_drain.h"

/* the module's debugfs directory (module.c creates it, the harness lives below) */
struct dentry;
struct mcs_input;

/* slab_report.c: the debugfs "slab" footprint table */
void mcs_slab_report_init(struct dentry *dir);

/* modes.c: the debugfs "modes" file, every mode with its metadata */
void mcs_modes_init(struct dentry *dir);

/* stock_slots.c: the walk over every design's stock slots (the checks) */
int mcs_stock_slots_walk(const struct mcs_design *design, int cpu, mcs_slot_fn fn, void *arg);

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
int mcs_harness_claim_write(struct mcs_input *in, enum mcs_harness_user user);
void mcs_harness_release(enum mcs_harness_user user);

/*
 * error_log.c: why the last debugfs writes were refused.  Every refused
 * write records one entry: its kind says what was wrong, from this fixed
 * list (mcs_error_message() gives the text of each; docs/debugfs.md the
 * table).
 */
enum mcs_error_kind {
	MCS_ERR_SIZE,		/* empty write, or longer than the file takes */
	MCS_ERR_COPY,		/* the write could not be read from user memory */
	MCS_ERR_BYTE,		/* a byte that is not printable ASCII */
	MCS_ERR_LINES,		/* a newline inside a one-line write */
	MCS_ERR_EMPTY_LINE,
	MCS_ERR_LONG_LINE,
	MCS_ERR_EDGE_BLANK,	/* blank at the start or the end of a line */
	MCS_ERR_DOUBLE_BLANK,
	MCS_ERR_KV,		/* not key=value */
	MCS_ERR_KEY_CHAR,	/* a key of other than a-z, 0-9, _ */
	MCS_ERR_KEY,		/* unknown key */
	MCS_ERR_TWICE,		/* a key given twice in one write */
	MCS_ERR_NUMBER,		/* not a plain decimal */
	MCS_ERR_RANGE,		/* a number outside the key's range */
	MCS_ERR_BOOL,		/* not 0 or 1 */
	MCS_ERR_VALUE,		/* not one of the key's names */
	MCS_ERR_COMMAND,	/* run: not 1, all, stop or a case name */
	MCS_ERR_ONE_COMMAND,	/* run: more than one token */
	MCS_ERR_BUSY_STRESS,	/* the harness is held by a stress run */
	MCS_ERR_BUSY_BENCH,
	MCS_ERR_BUSY_SELFTEST,
	MCS_ERR_BUSY_CONFIG,
	MCS_ERR_MODE,		/* the stock mode switch was refused */
	MCS_ERR_NEEDS_HARDIRQ,	/* the case needs hardirq_us, the config has 0 */
	MCS_ERR_NEEDS_DRAIN,
	MCS_ERR_NEEDS_NMI,
	MCS_ERR_NO_NMI,		/* the case needs an NMI source, the kernel has none */
	MCS_ERR_DRAIN_LOAD,	/* bench: workload=drain with hardirq or nmi */
	MCS_ERR_ALONE,		/* bench: a cross or limit workload with extra load */
	MCS_ERR_TOO_MANY,	/* bench: clients x memcgs over the bound */
	MCS_ERR_REPLAY_ONLY,	/* bench: a key of workload=replay alone */
	MCS_ERR_PARAM_ORDER,	/* bench: a design parameter not below its upper */
	MCS_ERR_UNLOADING,	/* the module is going away */
	MCS_ERR_FAILED,		/* accepted, but the run or check failed */
	MCS_ERR_TRACE,		/* trace_load: a bad trace; trace_load reads why */
	MCS_ERR_TRACE_BUSY,	/* trace_load: another writer holds it */
	MCS_ERR_REPLAY_BUSY,	/* trace_load: a replay is running */
	MCS_ERR_NO_TRACE,	/* bench: workload=replay, nothing loaded */
	MCS_ERR_TRACE_CPU,	/* bench: a CPU of the trace is not online */
	MCS_ERR_REC_COMMAND,	/* record: not start ... or stop */
	MCS_ERR_REC_WORKLOAD,	/* record: start without workload=NAME */
	MCS_ERR_REC_TEXT,	/* record: a name or note too long */
	MCS_ERR_REC_BUSY,	/* record: start while recording */
	MCS_ERR_REC_NONE,	/* record: no kprobes, memcg or x86-64 */
	MCS_ERR_REC_POINT,	/* record: the page charge point cannot be probed */
	MCS_ERR_KCOST_PAIR,	/* kernel_cost: a write without pair= */
	MCS_ERR_KCOST_UNAVAILABLE, /* kernel_cost: the kernel's pair cannot be run here */
	MCS_ERR_KCOST_MEMCG,	/* kernel_cost: the pair would charge the root memcg or none */
	NR_MCS_ERRORS
};

#define MCS_ERROR_LOG_LEN	16	/* entries kept */
#define MCS_ERROR_EXCERPT	64	/* bytes of the input kept per entry */
#define MCS_ERROR_FILE_LEN	16	/* characters of a file name kept */
/* the longest escaped excerpt: every byte as \xNN, two quotes, "...", NUL */
#define MCS_ERROR_EXCERPT_ESC	(4 * MCS_ERROR_EXCERPT + 6)

struct mcs_error_entry {
	u64 ns;				/* local_clock(), as the kernel log's time */
	enum mcs_error_kind kind;
	int err;			/* the errno the write returned, negative */
	u32 pos;			/* byte offset in the write */
	u8 len;				/* bytes in @excerpt */
	bool cut;			/* the line went on beyond @excerpt */
	char file[MCS_ERROR_FILE_LEN];
	char excerpt[MCS_ERROR_EXCERPT];
};

struct mcs_error_ring {
	spinlock_t lock;		/* guards the rest; writers in task context */
	unsigned int added;		/* entries added since the last clear */
	struct mcs_error_entry entry[MCS_ERROR_LOG_LEN];
};

const char *mcs_error_message(enum mcs_error_kind kind);
void mcs_error_ring_init(struct mcs_error_ring *ring);
void mcs_error_ring_add(struct mcs_error_ring *ring, const char *file,
			enum mcs_error_kind kind, int err, size_t pos,
			const char *line, size_t len);
unsigned int mcs_error_ring_read(struct mcs_error_ring *ring,
				 struct mcs_error_entry *out);
void mcs_error_ring_clear(struct mcs_error_ring *ring);
size_t mcs_error_excerpt(char *buf, size_t size, const char *raw, size_t len,
			 bool cut);
int mcs_error_entry_format(const struct mcs_error_entry *e, char *buf, size_t size);
int mcs_error_record(const char *file, enum mcs_error_kind kind, int err,
		     size_t pos, const char *line, size_t len);
enum mcs_error_kind mcs_error_busy(int holder);
void mcs_error_log_init(struct dentry *dir);

/*
 * parse.c: the strict parser of every debugfs write.  A write is copied
 * twice: @text stays as written (for error_log's excerpts), @buf is split
 * into tokens by mcs_input_next().
 */
#define MCS_INPUT_MAX		1024	/* bytes of a multi-line write */
struct mcs_input {
	const char *file;		/* the debugfs file written */
	char *text;			/* the write, NUL-terminated, as written */
	char *buf;			/* the same, to split; tokens point here */
	size_t len;			/* bytes, without a final newline */
};

int mcs_input_copy(struct mcs_input *in, const char *file, const char __user *ubuf,
		   size_t count, size_t max_line, bool multiline);
void mcs_input_free(struct mcs_input *in);
int mcs_input_error(struct mcs_input *in, enum mcs_error_kind kind, const char *at,
		    int err);
char *mcs_input_next(char **cursor);
int mcs_input_kv(struct mcs_input *in, char *tok, char **key, char **val);
int mcs_input_uint(struct mcs_input *in, const char *val, unsigned int min,
		   unsigned int max, bool zero_ok, unsigned int *out);
int mcs_input_bool(struct mcs_input *in, const char *val, bool *out);
int mcs_input_match(struct mcs_input *in, const char *val,
		    const char * const *names, unsigned int n);
int mcs_input_key(struct mcs_input *in, const char *key, const char * const *names,
		  unsigned int n);

/*
 * The entries a harness client calls (@e): the entry functions of a stock
 * mode directly (@e the mode), one direct call as a build of that one
 * design would make, the same for every mode; or the exported functions
 * (@e MCS_ENTRY_EXPORTED), which first switch on the mode.  @e is a
 * constant in each function that MCS_HARNESS_ENTRIES() instantiates, so
 * the switch of mcs_mode_*() folds away (bench.c, replay.c).
 */
#define MCS_ENTRY_EXPORTED	NR_MCS_MODES

#define MCS_HARNESS_ENTRIES(BIND)					\
	MCS_STOCK_DESIGNS(BIND)						\
	BIND(MCS_ENTRY_EXPORTED, "exported", exported, exported)

static __always_inline int mcs_entry_charge_pages(int e, struct mcs_memcg *memcg, gfp_t gfp,
						  unsigned int nr_pages)
{
	if (e == MCS_ENTRY_EXPORTED)
		return mcs_charge_pages(memcg, gfp, nr_pages);
	return mcs_mode_charge_pages(e, memcg, gfp, nr_pages);
}

static __always_inline void mcs_entry_uncharge_pages(int e, struct mcs_memcg *memcg,
						     unsigned int nr_pages)
{
	if (e == MCS_ENTRY_EXPORTED)
		mcs_uncharge_pages(memcg, nr_pages);
	else
		mcs_mode_uncharge_pages(e, memcg, nr_pages);
}

static __always_inline int mcs_entry_obj_charge(int e, struct mcs_objcg *objcg, gfp_t gfp,
						size_t size)
{
	if (e == MCS_ENTRY_EXPORTED)
		return mcs_obj_charge(objcg, gfp, size);
	return mcs_mode_obj_charge(e, objcg, gfp, size);
}

static __always_inline void mcs_entry_obj_uncharge(int e, struct mcs_objcg *objcg, size_t size)
{
	if (e == MCS_ENTRY_EXPORTED)
		mcs_obj_uncharge(objcg, size);
	else
		mcs_mode_obj_uncharge(e, objcg, size);
}

/* bench.c */
void mcs_bench_init(struct dentry *dir);

/* record.c: record the kernel's own charge stream (debugfs "record") */
void mcs_record_init(struct dentry *dir);
void mcs_record_exit(void);

/*
 * record.c, its pure part (no probe, no kernel symbol; kunit/record_kunit.c
 * checks it against each kernel's functions): the kernel's charge and
 * uncharge points the recorder probes, in the order they are tried ...
 */
enum mcs_rec_point {
	MCS_RP_TRY_CHARGE,	/* try_charge_memcg() */
	MCS_RP_CHARGE_ACCOUNT,	/* obj_cgroup_charge_account() (6.16 .. 6.19) */
	MCS_RP_OBJ_CHARGE,	/* obj_cgroup_charge() */
	MCS_RP_OBJ_PAGES,	/* obj_cgroup_charge_pages() */
	MCS_RP_SLAB_CHARGE,	/* __account_obj_stock() */
	MCS_RP_REFILL_STOCK,	/* __refill_obj_stock() (7.x) */
	MCS_RP_REFILL,		/* refill_obj_stock() */
	MCS_RP_UNCHARGE,	/* __mem_cgroup_uncharge() */
	MCS_RP_UNCHARGE_FOLIOS,	/* __mem_cgroup_uncharge_folios() */
	MCS_RP_UNCHARGE_LIST,	/* __mem_cgroup_uncharge_list() (6.1) */
	MCS_RP_CANCEL,		/* mem_cgroup_cancel_charge() */
	MCS_RP_SK_UNCHARGE,	/* mem_cgroup_sk_uncharge() */
	MCS_RP_UNCHARGE_SKMEM,	/* mem_cgroup_uncharge_skmem() */
	MCS_RP_KMEM_UNCHARGE,	/* __memcg_kmem_uncharge_page() */
	NR_MCS_RP
};

/* ... the callers they tell apart by return address (MCS_RC_UNKNOWN: none of these) ... */
enum mcs_rec_caller {
	MCS_RC_UNKNOWN,
	MCS_RC_FOLIO,		/* user folios (also cgroup v1's charge moving) */
	MCS_RC_KMEM,		/* __memcg_kmem_charge_page() */
	MCS_RC_SOCK,		/* socket buffers */
	MCS_RC_OBJ_CHARGE,	/* obj_cgroup_charge(): the byte stock's refill */
	MCS_RC_CHARGE_ACCOUNT,	/* obj_cgroup_charge_account(): the same, 6.16 .. 6.19 */
	MCS_RC_OBJ_PAGES,	/* obj_cgroup_charge_pages() */
	MCS_RC_SLAB_ALLOC,	/* __memcg_slab_post_alloc_hook() */
	NR_MCS_RC
};

/*
 * ... and what one call makes: the event kind (enum mcs_trace_kind) on
 * success and on refusal, MCS_REC_NO_EVENT for none, its source; @bytes:
 * the page amount is recorded in bytes; @unknown: a call the recorder did
 * not expect (a caller it does not know, or one whose own event no point
 * in use records), counted in the status line's unknown=.
 */
#define MCS_REC_NO_EVENT	0xff
struct mcs_rec_verdict {
	u8 ok, bad;
	u8 src;
	bool bytes;
	bool unknown;
};

const char *mcs_rec_point_name(unsigned int point);
int mcs_rec_caller_class(const char *name);
unsigned long mcs_rec_points_select(bool (*has)(unsigned int point, void *arg), void *arg);
int mcs_rec_classify(unsigned int point, int caller, unsigned long on, bool arg,
		     struct mcs_rec_verdict *v);

/* replay.c: load a recorded stream (debugfs "trace_load") and replay it */
void mcs_replay_init(struct dentry *dir);
void mcs_replay_exit(void);
/* passes of the stream in one replay: the default and the most */
#define MCS_REPLAY_PASSES	2
#define MCS_REPLAY_MAX_PASSES	8
int mcs_replay_bench(enum mcs_stock_mode mode, unsigned int batch, bool exported,
		     unsigned int passes, char *result, size_t size, enum mcs_error_kind *why);

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
