// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the charge lifetime API (charge.c): the descriptor state
 * machine, batched uncharge, migration, every context at once, and memcgs
 * that go offline with committed charges.
 *
 * Charges of MCS_CHARGE_BATCH + 1 pages never touch the stock, so the
 * cases that count pages exactly use that size; cases about the stock
 * charge single pages on one CPU with GFP_NOWAIT.  The cases that provoke
 * misuse announce it with mcs_charge_expect_misuse(), so that the refused
 * calls do not warn, and declare how many they provoke: the exit check of
 * every case compares that with mcs_charge_misuses().
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "mcs_kunit.h"

/* Over the batch: charged to the counters exactly, never stocked. */
#define EXACT_PAGES	(MCS_CHARGE_BATCH + 1)

/* ---- helpers ---------------------------------------------------------- */

/*
 * Misuse the running case provokes on purpose.  KUnit runs one case at a
 * time, and test->priv belongs to the shared leak check, hence a static.
 */
static struct {
	long start;
	long expected;
	bool announced;
} misuse;

struct charge_set {
	struct mcs_charge *c;
	unsigned int nr;
};

/* Returns whatever a descriptor still holds, without misuse. */
static void charges_release(void *arg)
{
	struct charge_set *set = arg;
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		if (set->c[i].state == MCS_CHARGE_RESERVED)
			mcs_charge_cancel(&set->c[i]);
		else if (set->c[i].state == MCS_CHARGE_COMMITTED)
			mcs_charge_uncharge(&set->c[i]);
	}
}

/*
 * @nr idle descriptors, released when the case ends.  Create the memcgs
 * first: actions run in reverse order, so the charges go before the memcgs.
 */
static struct mcs_charge *test_charges(struct kunit *test, unsigned int nr)
{
	struct charge_set *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, set);
	set->c = kunit_kcalloc(test, nr, sizeof(*set->c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set->c);
	set->nr = nr;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, charges_release, set), 0);
	return set->c;
}

static void misuse_announcement_end(void *unused)
{
	mcs_charge_expect_misuse(false);
}

/* The case is about to provoke @nr misuses on purpose. */
static void expect_misuse(struct kunit *test, long nr)
{
	misuse.expected += nr;
	if (misuse.announced)
		return;
	mcs_charge_expect_misuse(true);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, misuse_announcement_end, NULL), 0);
	misuse.announced = true;
}

static unsigned int refs(struct mcs_memcg *memcg)
{
	return refcount_read(&memcg->refcnt);
}

/* Everything a charge operation may change, for one memcg. */
struct charge_snap {
	long usage;
	long root_usage;
	long refs;
	long stat[NR_MCS_CHARGE_ITEMS];
	long misuses;
	long underflows;
};

static void snap(struct mcs_memcg *memcg, struct charge_snap *s)
{
	int i;

	s->usage = mcs_memcg_usage(memcg);
	s->root_usage = mcs_memcg_usage(mcs_root_memcg());
	s->refs = refs(memcg);
	for (i = 0; i < NR_MCS_CHARGE_ITEMS; i++)
		s->stat[i] = mcs_charge_stat(memcg, i);
	s->misuses = mcs_charge_misuses();
	s->underflows = mcs_page_counter_underflows();
}

static void expect_charge(struct kunit *test, const struct mcs_charge *c,
			  enum mcs_charge_state state, struct mcs_memcg *memcg,
			  unsigned int nr_pages)
{
	KUNIT_EXPECT_EQ(test, c->state, state);
	KUNIT_EXPECT_PTR_EQ(test, c->memcg, memcg);
	KUNIT_EXPECT_EQ(test, c->nr_pages, nr_pages);
}

/* Runs after the case's own actions: only the announced misuse happened. */
static void misuse_check(void *arg)
{
	struct kunit *test = arg;

	KUNIT_EXPECT_EQ(test, mcs_charge_misuses(), misuse.start + misuse.expected);
}

/*
 * The shared leak check (registered first, so it runs last) covers memcgs,
 * references and usage; the misuse check is this suite's own.
 */
static int charge_test_init(struct kunit *test)
{
	int ret = mcs_test_leak_check_init(test);

	if (ret)
		return ret;
	misuse.start = mcs_charge_misuses();
	misuse.expected = 0;
	misuse.announced = false;
	return kunit_add_action(test, misuse_check, test);
}

/* ---- the state machine ------------------------------------------------- */

/* How the descriptor under test got to its state. */
enum charge_history {
	H_NEW,		/* zero-filled */
	H_RESERVED,	/* try */
	H_COMMITTED,	/* try, commit */
	H_CANCELLED,	/* try, cancel */
	H_UNCHARGED,	/* try, commit, uncharge */
	H_MIGRATED,	/* try, commit, migrate to another descriptor */
	NR_HISTORIES,
};

static const char * const history_names[] = {
	"new", "reserved", "committed", "cancelled", "uncharged", "migrated-away",
};

enum charge_op {
	OP_TRY,
	OP_COMMIT,
	OP_CANCEL,
	OP_UNCHARGE,
	OP_UNCHARGE_BATCH,
	OP_MIGRATE_FROM,	/* to an idle descriptor */
	OP_MIGRATE_TO,		/* from a committed descriptor */
	OP_MIGRATE_SELF,
	NR_OPS,
};

static const char * const op_names[] = {
	"try", "commit", "cancel", "uncharge", "uncharge_batch",
	"migrate_from", "migrate_to", "migrate_self",
};

/*
 * One transition.  Deltas are in units of EXACT_PAGES for pages and in
 * units of one for references and events; an illegal transition changes
 * nothing at all and counts one misuse.
 */
struct transition {
	enum charge_history from;
	enum charge_op op;
	bool legal;
	enum mcs_charge_state to;
	int usage, refs, charged, pgpgin, pgpgout;
};

#define LEGAL(f, o, t, u, r, ch, in, out)					\
	{ .from = f, .op = o, .legal = true, .to = t, .usage = u, .refs = r,	\
	  .charged = ch, .pgpgin = in, .pgpgout = out }
#define MISUSE(f, o)	{ .from = f, .op = o, .legal = false }

/*
 * Every (history, operation) pair.  A migration onto an idle descriptor
 * takes the charge and its reference from the committed one it comes from.
 */
static const struct transition transitions[] = {
	LEGAL(H_NEW, OP_TRY, MCS_CHARGE_RESERVED, 1, 0, 0, 0, 0),
	MISUSE(H_NEW, OP_COMMIT),
	MISUSE(H_NEW, OP_CANCEL),
	MISUSE(H_NEW, OP_UNCHARGE),
	MISUSE(H_NEW, OP_UNCHARGE_BATCH),
	MISUSE(H_NEW, OP_MIGRATE_FROM),
	LEGAL(H_NEW, OP_MIGRATE_TO, MCS_CHARGE_COMMITTED, 0, 0, 0, 0, 0),
	MISUSE(H_NEW, OP_MIGRATE_SELF),

	LEGAL(H_CANCELLED, OP_TRY, MCS_CHARGE_RESERVED, 1, 0, 0, 0, 0),
	MISUSE(H_CANCELLED, OP_COMMIT),
	MISUSE(H_CANCELLED, OP_CANCEL),
	MISUSE(H_CANCELLED, OP_UNCHARGE),
	MISUSE(H_CANCELLED, OP_UNCHARGE_BATCH),
	MISUSE(H_CANCELLED, OP_MIGRATE_FROM),
	LEGAL(H_CANCELLED, OP_MIGRATE_TO, MCS_CHARGE_COMMITTED, 0, 0, 0, 0, 0),
	MISUSE(H_CANCELLED, OP_MIGRATE_SELF),

	LEGAL(H_UNCHARGED, OP_TRY, MCS_CHARGE_RESERVED, 1, 0, 0, 0, 0),
	MISUSE(H_UNCHARGED, OP_COMMIT),
	MISUSE(H_UNCHARGED, OP_CANCEL),
	MISUSE(H_UNCHARGED, OP_UNCHARGE),
	MISUSE(H_UNCHARGED, OP_UNCHARGE_BATCH),
	MISUSE(H_UNCHARGED, OP_MIGRATE_FROM),
	LEGAL(H_UNCHARGED, OP_MIGRATE_TO, MCS_CHARGE_COMMITTED, 0, 0, 0, 0, 0),
	MISUSE(H_UNCHARGED, OP_MIGRATE_SELF),

	LEGAL(H_MIGRATED, OP_TRY, MCS_CHARGE_RESERVED, 1, 0, 0, 0, 0),
	MISUSE(H_MIGRATED, OP_COMMIT),
	MISUSE(H_MIGRATED, OP_CANCEL),
	MISUSE(H_MIGRATED, OP_UNCHARGE),
	MISUSE(H_MIGRATED, OP_UNCHARGE_BATCH),
	MISUSE(H_MIGRATED, OP_MIGRATE_FROM),
	LEGAL(H_MIGRATED, OP_MIGRATE_TO, MCS_CHARGE_COMMITTED, 0, 0, 0, 0, 0),
	MISUSE(H_MIGRATED, OP_MIGRATE_SELF),

	MISUSE(H_RESERVED, OP_TRY),
	LEGAL(H_RESERVED, OP_COMMIT, MCS_CHARGE_COMMITTED, 0, 1, 1, 1, 0),
	LEGAL(H_RESERVED, OP_CANCEL, MCS_CHARGE_IDLE, -1, 0, 0, 0, 0),
	MISUSE(H_RESERVED, OP_UNCHARGE),
	MISUSE(H_RESERVED, OP_UNCHARGE_BATCH),
	MISUSE(H_RESERVED, OP_MIGRATE_FROM),
	MISUSE(H_RESERVED, OP_MIGRATE_TO),
	MISUSE(H_RESERVED, OP_MIGRATE_SELF),

	MISUSE(H_COMMITTED, OP_TRY),
	MISUSE(H_COMMITTED, OP_COMMIT),
	MISUSE(H_COMMITTED, OP_CANCEL),
	LEGAL(H_COMMITTED, OP_UNCHARGE, MCS_CHARGE_IDLE, -1, -1, -1, 0, 1),
	LEGAL(H_COMMITTED, OP_UNCHARGE_BATCH, MCS_CHARGE_IDLE, -1, -1, -1, 0, 1),
	LEGAL(H_COMMITTED, OP_MIGRATE_FROM, MCS_CHARGE_IDLE, 0, 0, 0, 0, 0),
	MISUSE(H_COMMITTED, OP_MIGRATE_TO),
	MISUSE(H_COMMITTED, OP_MIGRATE_SELF),
};

static void transition_desc(const struct transition *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s: %s", history_names[t->from],
		 op_names[t->op], t->legal ? "legal" : "misuse");
}

KUNIT_ARRAY_PARAM(transition, transitions, transition_desc);

/* Bring @c to @h; @spare receives the charge of a migrated history. */
static void make_history(struct kunit *test, struct mcs_memcg *memcg,
			 struct mcs_charge *c, struct mcs_charge *spare,
			 enum charge_history h)
{
	if (h == H_NEW)
		return;
	KUNIT_ASSERT_EQ(test, mcs_charge_try(c, memcg, GFP_KERNEL, EXACT_PAGES), 0);
	if (h == H_RESERVED)
		return;
	if (h == H_CANCELLED) {
		mcs_charge_cancel(c);
		return;
	}
	mcs_charge_commit(c);
	if (h == H_UNCHARGED)
		mcs_charge_uncharge(c);
	else if (h == H_MIGRATED)
		mcs_charge_migrate(c, spare);
}

static void charge_transition(struct kunit *test)
{
	const struct transition *t = test->param_value;
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_charge *c = test_charges(test, 3);
	struct mcs_charge *subject = &c[0], *spare = &c[1], *other = &c[2];
	struct mcs_charge subject_before, other_before;
	struct charge_snap before, after;
	long misuses = mcs_charge_misuses();
	int ret = 0;

	make_history(test, memcg, subject, spare, t->from);
	KUNIT_ASSERT_EQ(test, mcs_charge_misuses(), misuses);
	if (t->op == OP_MIGRATE_TO) {
		KUNIT_ASSERT_EQ(test, mcs_charge_try(other, memcg, GFP_KERNEL,
						     EXACT_PAGES), 0);
		mcs_charge_commit(other);
	}
	subject_before = *subject;
	other_before = *other;
	if (!t->legal)
		expect_misuse(test, 1);
	snap(memcg, &before);

	switch (t->op) {
	case OP_TRY:
		ret = mcs_charge_try(subject, memcg, GFP_KERNEL, EXACT_PAGES);
		break;
	case OP_COMMIT:
		mcs_charge_commit(subject);
		break;
	case OP_CANCEL:
		mcs_charge_cancel(subject);
		break;
	case OP_UNCHARGE:
		mcs_charge_uncharge(subject);
		break;
	case OP_UNCHARGE_BATCH:
		KUNIT_EXPECT_EQ(test, mcs_charge_uncharge_batch(&subject, 1), t->legal ? 1UL : 0UL);
		break;
	case OP_MIGRATE_FROM:
		mcs_charge_migrate(subject, other);
		break;
	case OP_MIGRATE_TO:
		mcs_charge_migrate(other, subject);
		break;
	case OP_MIGRATE_SELF:
		mcs_charge_migrate(subject, subject);
		break;
	default:
		KUNIT_FAIL(test, "unknown op %d", t->op);
	}
	snap(memcg, &after);

	KUNIT_EXPECT_EQ(test, after.misuses - before.misuses, t->legal ? 0L : 1L);
	KUNIT_EXPECT_EQ(test, after.underflows, before.underflows);
	KUNIT_EXPECT_EQ(test, after.usage - before.usage, (long)t->usage * EXACT_PAGES);
	KUNIT_EXPECT_EQ(test, after.root_usage - before.root_usage,
			(long)t->usage * EXACT_PAGES);
	KUNIT_EXPECT_EQ(test, after.refs - before.refs, (long)t->refs);
	KUNIT_EXPECT_EQ(test, after.stat[MCS_CHARGED_PAGES] - before.stat[MCS_CHARGED_PAGES],
			(long)t->charged * EXACT_PAGES);
	KUNIT_EXPECT_EQ(test, after.stat[MCS_PGPGIN] - before.stat[MCS_PGPGIN],
			(long)t->pgpgin);
	KUNIT_EXPECT_EQ(test, after.stat[MCS_PGPGOUT] - before.stat[MCS_PGPGOUT],
			(long)t->pgpgout);

	if (!t->legal) {
		/* refused: neither descriptor changed */
		expect_charge(test, subject, subject_before.state, subject_before.memcg,
			      subject_before.nr_pages);
		expect_charge(test, other, other_before.state, other_before.memcg,
			      other_before.nr_pages);
		if (t->op == OP_TRY)
			KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		return;
	}

	KUNIT_EXPECT_EQ(test, ret, 0);
	if (t->to == MCS_CHARGE_IDLE)
		expect_charge(test, subject, MCS_CHARGE_IDLE, NULL, 0);
	else
		expect_charge(test, subject, t->to, memcg, EXACT_PAGES);
	if (t->op == OP_MIGRATE_FROM)
		expect_charge(test, other, MCS_CHARGE_COMMITTED, memcg, EXACT_PAGES);
	if (t->op == OP_MIGRATE_TO)
		expect_charge(test, other, MCS_CHARGE_IDLE, NULL, 0);
}

/* a refused try (limit or offline) leaves the descriptor idle */
static void charge_try_refused_stays_idle(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_charge *c = test_charges(test, 1);

	KUNIT_ASSERT_EQ(test, mcs_memcg_set_max(memcg, EXACT_PAGES - 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_charge_try(c, memcg, GFP_KERNEL, EXACT_PAGES), -ENOMEM);
	expect_charge(test, c, MCS_CHARGE_IDLE, NULL, 0);
	KUNIT_EXPECT_EQ(test, mcs_charge_try(c, memcg, GFP_KERNEL, 0), -EINVAL);
	expect_charge(test, c, MCS_CHARGE_IDLE, NULL, 0);
	mcs_memcg_offline(memcg);
	KUNIT_EXPECT_EQ(test, mcs_charge_try(c, memcg, GFP_KERNEL, 1), -ENOENT);
	expect_charge(test, c, MCS_CHARGE_IDLE, NULL, 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, refs(memcg), 1U);
}

/* ---- where the pages go ----------------------------------------------------- */

/* try takes the stock's fast path; cancel and uncharge go around the stock */
static void charge_release_bypasses_stock(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_charge *c = test_charges(test, 1);
	struct mcs_memcg_stat stat;
	struct mcs_memcg_stock *stock;
	int i, slot = -1;

	migrate_disable();
	stock = this_cpu_ptr(&mcs_memcg_stock);
	KUNIT_EXPECT_EQ(test, mcs_charge_try(c, memcg, GFP_NOWAIT, 1), 0);
	for (i = 0; i < NR_MEMCG_STOCK; i++)
		if (stock->cached[i] == memcg)
			slot = i;
	KUNIT_ASSERT_GE(test, slot, 0);
	KUNIT_EXPECT_EQ(test, stock->nr_pages[slot], MCS_CHARGE_BATCH - 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)MCS_CHARGE_BATCH);

	mcs_charge_cancel(c);
	KUNIT_EXPECT_EQ(test, stock->nr_pages[slot], MCS_CHARGE_BATCH - 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), MCS_CHARGE_BATCH - 1UL);

	KUNIT_EXPECT_EQ(test, mcs_charge_try(c, memcg, GFP_NOWAIT, 1), 0);
	mcs_charge_commit(c);
	KUNIT_EXPECT_EQ(test, stock->nr_pages[slot], MCS_CHARGE_BATCH - 2);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), MCS_CHARGE_BATCH - 1UL);
	mcs_charge_uncharge(c);
	KUNIT_EXPECT_PTR_EQ(test, stock->cached[slot], memcg);
	KUNIT_EXPECT_EQ(test, stock->nr_pages[slot], MCS_CHARGE_BATCH - 2);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), MCS_CHARGE_BATCH - 2UL);
	migrate_enable();

	mcs_memcg_stat(memcg, &stat);
	KUNIT_EXPECT_EQ(test, stat.events[MCS_STOCK_MISS], 1UL);
	KUNIT_EXPECT_EQ(test, stat.events[MCS_STOCK_HIT], 1UL);
	mcs_drain_all_stock(memcg, true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
}

/* the root has no stock: its charges are exact, and bind like any other */
static void charge_root_binds_exact(struct kunit *test)
{
	struct mcs_memcg *root = mcs_root_memcg();
	struct mcs_charge *c = test_charges(test, 2);
	unsigned int root_refs = refs(root);

	KUNIT_EXPECT_EQ(test, mcs_charge_try(&c[0], root, GFP_KERNEL, 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_charge_try(&c[1], root, GFP_KERNEL, EXACT_PAGES), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(root), 1UL + EXACT_PAGES);
	mcs_charge_commit(&c[0]);
	mcs_charge_commit(&c[1]);
	KUNIT_EXPECT_PTR_EQ(test, mcs_charge_owner(&c[0]), root);
	KUNIT_EXPECT_EQ(test, refs(root), root_refs + 2);
	KUNIT_EXPECT_EQ(test, mcs_charge_stat(root, MCS_CHARGED_PAGES), 1L + EXACT_PAGES);
	mcs_charge_uncharge(&c[0]);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(root), (unsigned long)EXACT_PAGES);
	mcs_charge_uncharge(&c[1]);
	KUNIT_EXPECT_EQ(test, refs(root), root_refs);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(root), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_charge_stat(root, MCS_CHARGED_PAGES), 0L);
}

/* ---- batched uncharge ----------------------------------------------------------- */

#define BATCH_OWNERS	4

/*
 * Owners of the descriptors in uncharge order, one letter per descriptor:
 * 'a'..'c' are siblings, 'p' is their parent (a different owner, whose
 * counter a child's uncharge also moves).
 */
struct batch_case {
	const char *owners;
	unsigned int runs;
};

static const struct batch_case batch_cases[] = {
	{ "", 0 },
	{ "a", 1 },
	{ "aaaaaaaa", 1 },
	{ "abababab", 8 },
	{ "aabbbcaa", 4 },
	{ "abcabcabc", 9 },
	{ "aaaabbbbccccpppp", 4 },
	{ "apapaapp", 6 },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 2 },
};

static void batch_case_desc(const struct batch_case *b, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "owners \"%s\"", b->owners);
}

KUNIT_ARRAY_PARAM(batch, batch_cases, batch_case_desc);

static int owner_index(char owner)
{
	return owner == 'p' ? BATCH_OWNERS - 1 : owner - 'a';
}

/* sizes cycle through stocked (<= batch) and exact (> batch) charges */
static unsigned int batch_pages(unsigned int i)
{
	return 1 + (i % 5) * 17;
}

/* one counter update per run of equal owners, and exact usage afterwards */
static void charge_uncharge_batch_runs(struct kunit *test)
{
	const struct batch_case *b = test->param_value;
	unsigned int n = strlen(b->owners), i;
	struct mcs_memcg *memcg[BATCH_OWNERS], *parent;
	unsigned long pages[BATCH_OWNERS] = { };
	long count[BATCH_OWNERS] = { };
	struct mcs_charge **batch;
	struct mcs_charge *c;
	int m;

	parent = mcs_test_memcg(test, NULL);
	memcg[BATCH_OWNERS - 1] = parent;
	for (m = 0; m < BATCH_OWNERS - 1; m++)
		memcg[m] = mcs_test_memcg(test, parent);
	c = test_charges(test, max(n, 1U));
	batch = kunit_kcalloc(test, max(n, 1U), sizeof(*batch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, batch);

	for (i = 0; i < n; i++) {
		m = owner_index(b->owners[i]);
		KUNIT_ASSERT_EQ(test, mcs_charge_try(&c[i], memcg[m], GFP_KERNEL,
						     batch_pages(i)), 0);
		mcs_charge_commit(&c[i]);
		batch[i] = &c[i];
		pages[m] += batch_pages(i);
		count[m]++;
	}
	/* with the surplus out of the stocks, usage is the committed pages */
	mcs_drain_all_stock(parent, true);
	for (m = 0; m < BATCH_OWNERS - 1; m++) {
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[m]), pages[m]);
		KUNIT_EXPECT_EQ(test, refs(memcg[m]), (unsigned int)(1 + count[m]));
	}
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent),
			pages[0] + pages[1] + pages[2] + pages[3]);
	/* the parent is also pinned by its children */
	KUNIT_EXPECT_EQ(test, refs(parent), (unsigned int)(1 + count[3] + BATCH_OWNERS - 1));

	KUNIT_EXPECT_EQ(test, mcs_charge_uncharge_batch(batch, n), (unsigned long)b->runs);

	for (i = 0; i < n; i++)
		expect_charge(test, &c[i], MCS_CHARGE_IDLE, NULL, 0);
	for (m = 0; m < BATCH_OWNERS; m++) {
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[m]), 0UL);
		KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg[m], MCS_CHARGED_PAGES), 0L);
		KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg[m], MCS_PGPGIN), count[m]);
		KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg[m], MCS_PGPGOUT), count[m]);
	}
	for (m = 0; m < BATCH_OWNERS - 1; m++)
		KUNIT_EXPECT_EQ(test, refs(memcg[m]), 1U);
	KUNIT_EXPECT_EQ(test, refs(parent), 1U + BATCH_OWNERS - 1);
}

/* the counters move once per run, when the run ends, and not before */
static void charge_gather_flushes_at_owner_change(struct kunit *test)
{
	struct mcs_memcg *a = mcs_test_memcg(test, NULL);
	struct mcs_memcg *b = mcs_test_memcg(test, NULL);
	struct mcs_charge *c = test_charges(test, 4);
	struct mcs_uncharge_gather ug;
	struct mcs_memcg *owner[] = { a, a, a, b };
	int i;

	for (i = 0; i < ARRAY_SIZE(owner); i++) {
		KUNIT_ASSERT_EQ(test, mcs_charge_try(&c[i], owner[i], GFP_KERNEL,
						     EXACT_PAGES), 0);
		mcs_charge_commit(&c[i]);
	}

	mcs_uncharge_gather_init(&ug);
	for (i = 0; i < 3; i++) {
		mcs_uncharge_gather_add(&ug, &c[i]);
		expect_charge(test, &c[i], MCS_CHARGE_IDLE, NULL, 0);
		/* gathered, not yet flushed: counters and stats unchanged */
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(a), 3UL * EXACT_PAGES);
		KUNIT_EXPECT_EQ(test, mcs_charge_stat(a, MCS_CHARGED_PAGES), 3L * EXACT_PAGES);
		KUNIT_EXPECT_EQ(test, ug.nr_batches, 0UL);
		/* the gather holds one reference for the run */
		KUNIT_EXPECT_EQ(test, refs(a), 1U + 3 - i);
	}
	KUNIT_EXPECT_PTR_EQ(test, ug.memcg, a);
	KUNIT_EXPECT_EQ(test, ug.nr_pages, 3UL * EXACT_PAGES);
	KUNIT_EXPECT_EQ(test, ug.nr_charges, 3UL);

	/* b's descriptor ends a's run */
	mcs_uncharge_gather_add(&ug, &c[3]);
	KUNIT_EXPECT_EQ(test, ug.nr_batches, 1UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(a), 0UL);
	KUNIT_EXPECT_EQ(test, refs(a), 1U);
	KUNIT_EXPECT_EQ(test, mcs_charge_stat(a, MCS_PGPGOUT), 3L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(b), (unsigned long)EXACT_PAGES);

	mcs_uncharge_gather_flush(&ug);
	KUNIT_EXPECT_EQ(test, ug.nr_batches, 2UL);
	KUNIT_EXPECT_NULL(test, ug.memcg);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(b), 0UL);
	KUNIT_EXPECT_EQ(test, refs(b), 1U);
	/* flushing an empty gather does nothing */
	mcs_uncharge_gather_flush(&ug);
	KUNIT_EXPECT_EQ(test, ug.nr_batches, 2UL);
}

/* a descriptor that is not committed is refused; the rest of the batch goes */
static void charge_batch_skips_misuse(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_charge *c = test_charges(test, 3);
	struct mcs_charge *batch[] = { &c[0], &c[1], &c[2] };
	long misuses = mcs_charge_misuses();
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, mcs_charge_try(&c[i], memcg, GFP_KERNEL,
						     EXACT_PAGES), 0);
	mcs_charge_commit(&c[0]);
	mcs_charge_commit(&c[2]);

	expect_misuse(test, 1);
	/* the reserved descriptor in the middle does not split the run */
	KUNIT_EXPECT_EQ(test, mcs_charge_uncharge_batch(batch, 3), 1UL);
	KUNIT_EXPECT_EQ(test, mcs_charge_misuses(), misuses + 1);
	expect_charge(test, &c[1], MCS_CHARGE_RESERVED, memcg, EXACT_PAGES);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)EXACT_PAGES);
	KUNIT_EXPECT_EQ(test, refs(memcg), 1U);
	mcs_charge_cancel(&c[1]);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
}

/* ---- migration ---------------------------------------------------------------- */

static const unsigned int migrate_sizes[] = { 1, MCS_CHARGE_BATCH, EXACT_PAGES, 512 };

static void migrate_size_desc(const unsigned int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "nr_pages=%u", *n);
}

KUNIT_ARRAY_PARAM(migrate_size, migrate_sizes, migrate_size_desc);

/* a migrated charge is neither doubled nor lost, along a chain of moves */
static void charge_migrate_keeps_totals(struct kunit *test)
{
	unsigned int n = *(const unsigned int *)test->param_value;
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_charge *c = test_charges(test, 3);
	struct charge_snap before, after;
	int i;

	KUNIT_ASSERT_EQ(test, mcs_charge_try(&c[0], memcg, GFP_KERNEL, n), 0);
	mcs_charge_commit(&c[0]);
	snap(memcg, &before);

	for (i = 0; i < 2; i++) {
		mcs_charge_migrate(&c[i], &c[i + 1]);
		expect_charge(test, &c[i], MCS_CHARGE_IDLE, NULL, 0);
		expect_charge(test, &c[i + 1], MCS_CHARGE_COMMITTED, memcg, n);
		KUNIT_EXPECT_PTR_EQ(test, mcs_charge_owner(&c[i + 1]), memcg);
		KUNIT_EXPECT_NULL(test, mcs_charge_owner(&c[i]));
		snap(memcg, &after);
		KUNIT_EXPECT_EQ(test, after.usage, before.usage);
		KUNIT_EXPECT_EQ(test, after.root_usage, before.root_usage);
		KUNIT_EXPECT_EQ(test, after.refs, before.refs);
		KUNIT_EXPECT_MEMEQ(test, after.stat, before.stat, sizeof(after.stat));
		KUNIT_EXPECT_EQ(test, after.misuses, before.misuses);
	}

	/* the last holder releases exactly the pages committed at the start */
	mcs_charge_uncharge(&c[2]);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), before.usage - n);
	KUNIT_EXPECT_EQ(test, refs(memcg), before.refs - 1);
	KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg, MCS_CHARGED_PAGES), 0L);
	mcs_drain_all_stock(memcg, true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
}

/* ---- offline memcgs ------------------------------------------------------------ */

/* charges outlive offline and hold until uncharged, then usage reaches 0 */
static void charge_offline_keeps_committed(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_charge *c = test_charges(test, 7);
	struct mcs_charge *batch[3] = { &c[2], &c[3], &c[4] };
	unsigned long live = 0;
	int i;

	/* five committed, mixing stocked and exact sizes; one only reserved */
	for (i = 0; i < 6; i++) {
		KUNIT_ASSERT_EQ(test, mcs_charge_try(&c[i], memcg, GFP_KERNEL,
						     batch_pages(i)), 0);
		live += batch_pages(i);
		if (i < 5)
			mcs_charge_commit(&c[i]);
	}

	mcs_memcg_offline(memcg);
	/* offline drained the stocks: what is left is the live charges */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), live);
	KUNIT_EXPECT_EQ(test, refs(memcg), 1U + 5);
	KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg, MCS_CHARGED_PAGES),
			(long)(live - batch_pages(5)));

	/* no new reservation, but the one made before offline may commit */
	KUNIT_EXPECT_EQ(test, mcs_charge_try(&c[6], memcg, GFP_KERNEL, 1), -ENOENT);
	expect_charge(test, &c[6], MCS_CHARGE_IDLE, NULL, 0);
	mcs_charge_commit(&c[5]);
	KUNIT_EXPECT_EQ(test, refs(memcg), 1U + 6);

	mcs_charge_uncharge(&c[0]);
	live -= batch_pages(0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), live);
	mcs_charge_uncharge(&c[1]);
	live -= batch_pages(1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), live);
	KUNIT_EXPECT_EQ(test, mcs_charge_uncharge_batch(batch, 3), 1UL);
	mcs_charge_uncharge(&c[5]);

	/* nothing was stocked on the way out */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, refs(memcg), 1U);
	KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg, MCS_CHARGED_PAGES), 0L);
}

static void memcg_offline_put(void *arg)
{
	struct mcs_memcg *memcg = arg;

	mcs_memcg_offline(memcg);
	mcs_memcg_put(memcg);
}

/* committed charges keep an offline memcg alive; the last uncharge frees it */
static void charge_pins_offline_memcg(struct kunit *test)
{
	struct mcs_memcg *parent = mcs_test_memcg(test, NULL);
	struct mcs_charge *c;
	struct mcs_memcg *memcg;
	long alive;
	int i;

	memcg = mcs_memcg_create(parent, test->name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(memcg));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, memcg_offline_put, memcg), 0);
	c = test_charges(test, 3);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, mcs_charge_try(&c[i], memcg, GFP_KERNEL,
						     batch_pages(i)), 0);
		mcs_charge_commit(&c[i]);
	}
	alive = mcs_memcg_nr_alive();

	/* offline and drop the creator's reference now */
	kunit_release_action(test, memcg_offline_put, memcg);
	mcs_wait_for_frees();
	KUNIT_EXPECT_EQ(test, mcs_memcg_nr_alive(), alive);
	KUNIT_EXPECT_EQ(test, refs(memcg), 3U);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent),
			(unsigned long)(batch_pages(0) + batch_pages(1) + batch_pages(2)));

	mcs_charge_uncharge(&c[0]);
	mcs_charge_uncharge(&c[1]);
	mcs_wait_for_frees();
	KUNIT_EXPECT_EQ(test, mcs_memcg_nr_alive(), alive);
	KUNIT_EXPECT_EQ(test, refs(memcg), 1U);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)batch_pages(2));

	/* the last uncharge drops the last reference: usage must be 0 by then */
	mcs_charge_uncharge(&c[2]);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 0UL);
	mcs_wait_for_frees();
	KUNIT_EXPECT_EQ(test, mcs_memcg_nr_alive(), alive - 1);
}

/* ---- every CPU, every context ------------------------------------------------------ */

#define CONC_MEMCGS	3
#define CONC_CHARGES	8

struct conc_memcgs {
	struct mcs_memcg *memcg[CONC_MEMCGS];
};

/*
 * One round of the whole lifetime on descriptors of its own: reserve over
 * random memcgs and sizes (stocked and not), cancel some, commit the
 * rest, migrate some, then uncharge everything committed in one batch
 * whose owners form random runs.  Interrupts do a quarter of the work.
 */
static bool conc_round(void *arg, u32 *seed, enum mcs_load_ctx ctx)
{
	struct conc_memcgs *m = arg;
	struct mcs_charge c[CONC_CHARGES] = { }, moved[CONC_CHARGES] = { };
	struct mcs_charge *batch[CONC_CHARGES];
	unsigned int i, n = 0, nr = CONC_CHARGES;
	gfp_t gfp = GFP_ATOMIC;
	bool ok = true;

	if (ctx == LOAD_TASK)
		gfp = mcs_load_next(seed) % 2 ? GFP_KERNEL : GFP_NOWAIT;
	else
		nr /= 4;
	for (i = 0; i < nr; i++) {
		struct mcs_memcg *memcg = m->memcg[mcs_load_next(seed) % CONC_MEMCGS];

		if (mcs_charge_try(&c[i], memcg, gfp, 1 + mcs_load_next(seed) % 72)) {
			ok = false;
			continue;
		}
		if (mcs_load_next(seed) % 8 == 0) {
			mcs_charge_cancel(&c[i]);
			continue;
		}
		mcs_charge_commit(&c[i]);
		if (mcs_load_next(seed) % 4 == 0) {
			mcs_charge_migrate(&c[i], &moved[i]);
			batch[n++] = &moved[i];
		} else {
			batch[n++] = &c[i];
		}
	}
	mcs_charge_uncharge_batch(batch, n);
	return ok;
}

/* the load drains every stock while charges are in flight */
static void conc_drain_midway(void *arg)
{
	mcs_drain_all_stock(mcs_root_memcg(), true);
}

static void charge_all_contexts_exact_zero(struct kunit *test)
{
	struct mcs_load_result res;
	struct conc_memcgs *m;
	long misuses = mcs_charge_misuses();
	int i;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	m->memcg[0] = mcs_test_memcg(test, NULL);
	m->memcg[1] = mcs_test_memcg(test, m->memcg[0]);
	m->memcg[2] = mcs_test_memcg(test, NULL);

	mcs_run_load(test, conc_round, m, 400, conc_drain_midway, &res);
	for (i = 0; i < NR_LOAD_CTX; i++)
		KUNIT_EXPECT_GT(test, res.ops[i], 0L);
	KUNIT_EXPECT_EQ(test, res.errors, 0L);
	KUNIT_EXPECT_EQ(test, mcs_charge_misuses(), misuses);

	/* nothing is live: after a sync drain every counter is exactly 0 */
	mcs_drain_all_stock(mcs_root_memcg(), true);
	for (i = 0; i < CONC_MEMCGS; i++) {
		struct mcs_memcg *memcg = m->memcg[i];

		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
		KUNIT_EXPECT_EQ(test, refs(memcg), i == 0 ? 2U : 1U);	/* [1] pins [0] */
		KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg, MCS_CHARGED_PAGES), 0L);
		KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg, MCS_PGPGIN),
				mcs_charge_stat(memcg, MCS_PGPGOUT));
		KUNIT_EXPECT_GT(test, mcs_charge_stat(memcg, MCS_PGPGIN), 0L);
	}
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(mcs_root_memcg()), 0UL);
}

static struct kunit_case charge_cases[] = {
	KUNIT_CASE_PARAM(charge_transition, transition_gen_params),
	KUNIT_CASE(charge_try_refused_stays_idle),
	KUNIT_CASE(charge_release_bypasses_stock),
	KUNIT_CASE(charge_root_binds_exact),
	KUNIT_CASE_PARAM(charge_uncharge_batch_runs, batch_gen_params),
	KUNIT_CASE(charge_gather_flushes_at_owner_change),
	KUNIT_CASE(charge_batch_skips_misuse),
	KUNIT_CASE_PARAM(charge_migrate_keeps_totals, migrate_size_gen_params),
	KUNIT_CASE(charge_offline_keeps_committed),
	KUNIT_CASE(charge_pins_offline_memcg),
	KUNIT_CASE_SLOW(charge_all_contexts_exact_zero),
	{}
};

static struct kunit_suite charge_suite = {
	.name = "mcs_charge",
	.init = charge_test_init,
	.test_cases = charge_cases,
};

kunit_test_suite(charge_suite);
