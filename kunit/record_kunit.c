// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the charge-stream recorder's classification
 * (harness/record.c, its pure part): which kernel function each probe
 * sits on and which event each call makes, checked against the functions
 * of each kernel version.  A kernel is modelled by the functions it has
 * out of line (of those the recorder probes or tells apart as callers)
 * and by its charge and uncharge paths: call sequences whose frames are
 * return addresses only where the function is out of line, as a probe
 * sees them.  Every path of every kernel must make exactly its one event
 * (or none), of the right source, no call may be counted unknown, and
 * nothing may land in source "other".
 *
 * The function sets: 6.1 and 6.12 are Debian's builds (6.1.0-57 and
 * 6.12.118, generic and RT alike: the functions in their BTF); 6.15 is
 * 6.12's byte path with 6.14's hugetlb charge; 6.16 and 6.18 have
 * obj_cgroup_charge_account(), through which the slab hook and
 * obj_cgroup_charge() go (6.16 .. 6.19), 6.16 with its helpers inlined,
 * 6.18 with them out of line and 6.18's socket names; 7.3 is Debian's
 * 7.3.4 (docs/trace-format.md says how it was checked).
 */
#include <kunit/test.h>

#include "mcs_kunit.h"
#include "harness/trace_format.h"

#define RK_FRAMES	6
#define RK_CALLS	3
#define RK_EVENTS	8

/*
 * One frame of a call sequence: @fn, with @arg for a probe that takes one
 * (__account_obj_stock(): a size above 0; a refill: allow_uncharge);
 * @inlined: inlined at this call site whether or not the kernel also has
 * it out of line.
 */
struct rk_frame {
	const char *fn;
	bool arg;
	bool inlined;
};

#define RK_F(n)		{ .fn = n }
#define RK_ARG(n, a)	{ .fn = n, .arg = a }
#define RK_INL(n)	{ .fn = n, .inlined = true }

/*
 * A call sequence, outermost frame first (always a return address: the
 * kernel's code that asks for the charge, or for a path's later calls
 * the function that makes them; its own probe is not this call's); a
 * function that reaches the next by a tail jump is left out, as it is no
 * return address.  @success_only: made only when the charge succeeds.
 */
struct rk_call {
	struct rk_frame f[RK_FRAMES];
	bool success_only;
};

/* The one event of each outcome (success, refusal) a path must make. */
enum rk_expect {
	RK_PAGES,	/* page charge, page refusal, of the path's source */
	RK_BYTES,	/* byte charge, byte refusal */
	RK_HIT,		/* byte charge; it cannot be refused */
	RK_FREE,	/* byte uncharge */
};

struct rk_path {
	const char *what;
	u8 expect;	/* enum rk_expect */
	u8 src;		/* RK_PAGES: its source; else MCS_TRACE_SRC_OBJ */
	struct rk_call calls[RK_CALLS];
};

#define RK_OBJ	MCS_TRACE_SRC_OBJ

/* Some of a kernel's paths; a kernel has several such sets. */
struct rk_set {
	const struct rk_path *p;
	unsigned int n;
};

#define RK_SET(paths)	{ paths, ARRAY_SIZE(paths) }
#define RK_SETS		4

struct rk_kernel {
	const char *name;
	const char * const *fns;	/* out of line; NULL-terminated */
	struct rk_set sets[RK_SETS];
	unsigned long points;		/* the points it must use */
};

/* ---- the functions each kernel has out of line ----------------------------- */

/* Debian 6.1.0-57 */
static const char * const fns_61[] = {
	"try_charge_memcg", "charge_memcg", "__mem_cgroup_charge",
	"mem_cgroup_swapin_charge_folio", "mem_cgroup_charge_skmem",
	"mem_cgroup_can_attach", "mem_cgroup_move_charge_pte_range",
	"obj_cgroup_charge", "__memcg_kmem_charge_page", "memcg_slab_post_alloc_hook",
	"obj_cgroup_uncharge", "refill_obj_stock", "obj_cgroup_uncharge_pages",
	"__mem_cgroup_uncharge", "__mem_cgroup_uncharge_list", "mem_cgroup_uncharge_skmem",
	"__memcg_kmem_uncharge_page", NULL
};

/* Debian 6.12.118, generic and RT: charge_memcg() inlined */
static const char * const fns_612[] = {
	"try_charge_memcg", "__mem_cgroup_charge", "mem_cgroup_swapin_charge_folio",
	"mem_cgroup_hugetlb_try_charge", "mem_cgroup_charge_skmem", "obj_cgroup_charge",
	"obj_cgroup_charge_zswap", "__memcg_kmem_charge_page", "__memcg_slab_post_alloc_hook",
	"__memcg_slab_free_hook", "obj_cgroup_uncharge", "refill_obj_stock",
	"obj_cgroup_uncharge_pages", "__mem_cgroup_uncharge", "__mem_cgroup_uncharge_folios",
	"mem_cgroup_cancel_charge", "mem_cgroup_uncharge_skmem", "__memcg_kmem_uncharge_page",
	NULL
};

/* 6.15: 6.12's byte path, 6.14's hugetlb charge */
static const char * const fns_615[] = {
	"try_charge_memcg", "charge_memcg", "__mem_cgroup_charge",
	"mem_cgroup_swapin_charge_folio", "mem_cgroup_charge_hugetlb", "mem_cgroup_charge_skmem",
	"obj_cgroup_charge", "__memcg_kmem_charge_page", "__memcg_slab_post_alloc_hook",
	"__memcg_slab_free_hook", "obj_cgroup_uncharge", "refill_obj_stock",
	"__mem_cgroup_uncharge", "__mem_cgroup_uncharge_folios", "mem_cgroup_uncharge_skmem",
	"__memcg_kmem_uncharge_page", NULL
};

/* 6.16: obj_cgroup_charge_account(), its helpers inlined */
static const char * const fns_616[] = {
	"try_charge_memcg", "__mem_cgroup_charge", "mem_cgroup_swapin_charge_folio",
	"mem_cgroup_charge_hugetlb", "mem_cgroup_charge_skmem", "obj_cgroup_charge",
	"obj_cgroup_charge_account", "__memcg_kmem_charge_page", "__memcg_slab_post_alloc_hook",
	"__memcg_slab_free_hook", "obj_cgroup_uncharge", "refill_obj_stock",
	"__mem_cgroup_uncharge", "__mem_cgroup_uncharge_folios", "mem_cgroup_uncharge_skmem",
	"__memcg_kmem_uncharge_page", NULL
};

/* 6.18: the helpers out of line, the socket charge renamed */
static const char * const fns_618[] = {
	"try_charge_memcg", "charge_memcg", "__mem_cgroup_charge",
	"mem_cgroup_swapin_charge_folio", "mem_cgroup_charge_hugetlb", "mem_cgroup_sk_charge",
	"obj_cgroup_charge", "obj_cgroup_charge_account", "obj_cgroup_charge_pages",
	"consume_obj_stock", "__account_obj_stock", "__memcg_kmem_charge_page",
	"__memcg_slab_post_alloc_hook", "__memcg_slab_free_hook", "obj_cgroup_uncharge",
	"refill_obj_stock", "__mem_cgroup_uncharge", "__mem_cgroup_uncharge_folios",
	"mem_cgroup_sk_uncharge", "__memcg_kmem_uncharge_page", NULL
};

/* Debian 7.3.4 */
static const char * const fns_73[] = {
	"try_charge_memcg", "charge_memcg", "__mem_cgroup_charge",
	"mem_cgroup_swapin_charge_folio", "mem_cgroup_charge_hugetlb", "mem_cgroup_sk_charge",
	"obj_cgroup_charge", "obj_cgroup_charge_pages", "__memcg_kmem_charge_page",
	"__memcg_slab_post_alloc_hook", "__memcg_slab_free_hook", "__account_obj_stock",
	"__refill_obj_stock", "obj_cgroup_uncharge", "__mem_cgroup_uncharge",
	"__mem_cgroup_uncharge_folios", "mem_cgroup_sk_uncharge", "__memcg_kmem_uncharge_page",
	NULL
};

/* ---- page charges ----------------------------------------------------------- */

/* every kernel: user folios and kernel pages */
static const struct rk_path pages_all[] = {
	{ "anon folio", RK_PAGES, MCS_TRACE_SRC_FOLIO, {
		{ { RK_F("do_anonymous_page"), RK_F("__mem_cgroup_charge"), RK_F("charge_memcg"),
		    RK_F("try_charge_memcg") } },
	} },
	{ "swapin", RK_PAGES, MCS_TRACE_SRC_FOLIO, {
		{ { RK_F("do_swap_page"), RK_F("mem_cgroup_swapin_charge_folio"),
		    RK_F("charge_memcg"), RK_F("try_charge_memcg") } },
	} },
	{ "kernel page", RK_PAGES, MCS_TRACE_SRC_KMEM, {
		{ { RK_F("__alloc_pages"), RK_F("__memcg_kmem_charge_page"),
		    RK_F("obj_cgroup_charge_pages"), RK_F("try_charge_memcg") } },
	} },
};

/* 6.1: cgroup v1's charge moving */
static const struct rk_path pages_61[] = {
	{ "v1 charge moving", RK_PAGES, MCS_TRACE_SRC_FOLIO, {
		{ { RK_F("cgroup_migrate_execute"), RK_F("mem_cgroup_can_attach"),
		    RK_F("mem_cgroup_do_precharge"), RK_F("try_charge_memcg") } },
	} },
};

/* 6.8 .. 6.13's hugetlb charge */
static const struct rk_path pages_612[] = {
	{ "hugetlb", RK_PAGES, MCS_TRACE_SRC_FOLIO, {
		{ { RK_F("alloc_hugetlb_folio"), RK_F("mem_cgroup_hugetlb_try_charge"),
		    RK_F("try_charge_memcg") } },
	} },
};

/* 6.14's hugetlb charge */
static const struct rk_path pages_614[] = {
	{ "hugetlb", RK_PAGES, MCS_TRACE_SRC_FOLIO, {
		{ { RK_F("alloc_hugetlb_folio"), RK_F("mem_cgroup_charge_hugetlb"),
		    RK_F("charge_memcg"), RK_F("try_charge_memcg") } },
	} },
};

static const struct rk_path socket_skmem[] = {
	{ "socket", RK_PAGES, MCS_TRACE_SRC_SOCK, {
		{ { RK_F("__sk_mem_raise_allocated"), RK_F("mem_cgroup_charge_skmem"),
		    RK_F("try_charge_memcg") } },
	} },
};

static const struct rk_path socket_sk[] = {
	{ "socket", RK_PAGES, MCS_TRACE_SRC_SOCK, {
		{ { RK_F("__sk_mem_raise_allocated"), RK_F("mem_cgroup_sk_charge"),
		    RK_F("try_charge_memcg") } },
	} },
};

/* ---- bytes ------------------------------------------------------------------ */

/*
 * 6.1 .. 6.15: obj_cgroup_charge() charges and refills (the slab hook
 * calls it; 6.1's hooks are inline in mm/slab.h, so there the allocator
 * calls it, which makes the same events); obj_cgroup_uncharge() jumps to
 * refill_obj_stock().  6.12 on: the slab hook charges a bulk in one call.
 */
static const struct rk_path bytes_61_615[] = {
	{ "slab objects", RK_BYTES, RK_OBJ, {
		{ { RK_F("__memcg_slab_post_alloc_hook"), RK_F("obj_cgroup_charge"),
		    RK_F("obj_cgroup_charge_pages"), RK_F("try_charge_memcg") } },
		{ { RK_F("obj_cgroup_charge"), RK_ARG("refill_obj_stock", false) }, true },
	} },
	{ "zswap", RK_BYTES, RK_OBJ, {
		{ { RK_F("zswap_store"), RK_F("obj_cgroup_charge_zswap"), RK_F("obj_cgroup_charge"),
		    RK_F("obj_cgroup_charge_pages"), RK_F("try_charge_memcg") } },
		{ { RK_F("obj_cgroup_charge"), RK_ARG("refill_obj_stock", false) }, true },
	} },
	{ "slab free", RK_FREE, RK_OBJ, {
		{ { RK_F("__memcg_slab_free_hook"), RK_ARG("refill_obj_stock", true) } },
	} },
	{ "slab uncharge in the post-alloc hook", RK_FREE, RK_OBJ, {
		{ { RK_F("__memcg_slab_post_alloc_hook"), RK_ARG("refill_obj_stock", true) } },
	} },
};

/*
 * 6.16 .. 6.19: one object per call through obj_cgroup_charge_account(): a
 * miss charges a page and refills the surplus (0 bytes for an object of
 * whole pages, to account it), a hit only accounts; __account_obj_stock()
 * runs inside either.  obj_cgroup_charge() jumps to it or calls it: both
 * are paths.
 */
static const struct rk_path bytes_616_619[] = {
	{ "slab object, stock miss", RK_BYTES, RK_OBJ, {
		{ { RK_F("__memcg_slab_post_alloc_hook"), RK_F("obj_cgroup_charge_account"),
		    RK_F("obj_cgroup_charge_pages"), RK_F("try_charge_memcg") } },
		{ { RK_F("obj_cgroup_charge_account"), RK_ARG("refill_obj_stock", false),
		    RK_ARG("__account_obj_stock", true) }, true },
	} },
	{ "slab object, stock hit", RK_HIT, RK_OBJ, {
		{ { RK_F("__memcg_slab_post_alloc_hook"), RK_F("obj_cgroup_charge_account"),
		    RK_F("consume_obj_stock"), RK_ARG("__account_obj_stock", true) }, true },
	} },
	{ "percpu, obj_cgroup_charge() jumps", RK_BYTES, RK_OBJ, {
		{ { RK_F("pcpu_alloc"), RK_F("obj_cgroup_charge_account"),
		    RK_F("obj_cgroup_charge_pages"), RK_F("try_charge_memcg") } },
		{ { RK_F("obj_cgroup_charge_account"), RK_ARG("refill_obj_stock", false) }, true },
	} },
	{ "percpu, obj_cgroup_charge() calls", RK_BYTES, RK_OBJ, {
		{ { RK_F("pcpu_alloc"), RK_F("obj_cgroup_charge"),
		    RK_F("obj_cgroup_charge_account"), RK_F("obj_cgroup_charge_pages"),
		    RK_F("try_charge_memcg") } },
		{ { RK_F("obj_cgroup_charge_account"), RK_ARG("refill_obj_stock", false) }, true },
	} },
	{ "slab free", RK_FREE, RK_OBJ, {
		{ { RK_F("__memcg_slab_free_hook"), RK_ARG("refill_obj_stock", true),
		    RK_ARG("__account_obj_stock", false) } },
	} },
	{ "percpu free, obj_cgroup_uncharge() jumps", RK_FREE, RK_OBJ, {
		{ { RK_F("free_percpu"), RK_ARG("refill_obj_stock", true) } },
	} },
};

/* 7.x: the slab hooks take the byte stock themselves */
static const struct rk_path bytes_73[] = {
	{ "slab object, stock miss", RK_BYTES, RK_OBJ, {
		{ { RK_F("__memcg_slab_post_alloc_hook"), RK_INL("__obj_cgroup_charge"),
		    RK_F("obj_cgroup_charge_pages"), RK_F("try_charge_memcg") } },
		{ { RK_F("__memcg_slab_post_alloc_hook"),
		    RK_ARG("__refill_obj_stock", false) }, true },
		{ { RK_F("__memcg_slab_post_alloc_hook"),
		    RK_ARG("__account_obj_stock", true) }, true },
	} },
	{ "slab object, stock hit", RK_HIT, RK_OBJ, {
		{ { RK_F("__memcg_slab_post_alloc_hook"),
		    RK_ARG("__account_obj_stock", true) }, true },
	} },
	{ "percpu", RK_BYTES, RK_OBJ, {
		{ { RK_F("pcpu_alloc"), RK_F("obj_cgroup_charge"), RK_INL("__obj_cgroup_charge"),
		    RK_F("obj_cgroup_charge_pages"), RK_F("try_charge_memcg") } },
		{ { RK_F("obj_cgroup_charge"), RK_INL("refill_obj_stock"),
		    RK_ARG("__refill_obj_stock", false) }, true },
	} },
	{ "slab free", RK_FREE, RK_OBJ, {
		{ { RK_F("__memcg_slab_free_hook"), RK_ARG("__refill_obj_stock", true) } },
		{ { RK_F("__memcg_slab_free_hook"), RK_ARG("__account_obj_stock", false) } },
	} },
	{ "percpu free", RK_FREE, RK_OBJ, {
		{ { RK_F("free_percpu"), RK_F("obj_cgroup_uncharge"), RK_INL("refill_obj_stock"),
		    RK_ARG("__refill_obj_stock", true) } },
	} },
};

#define RP(p)	BIT(MCS_RP_##p)

static const struct rk_kernel rk_kernels[] = {
	{ "6.1", fns_61,
	  { RK_SET(pages_all), RK_SET(pages_61), RK_SET(socket_skmem), RK_SET(bytes_61_615) },
	  RP(TRY_CHARGE) | RP(OBJ_CHARGE) | RP(REFILL) | RP(UNCHARGE) | RP(UNCHARGE_LIST) |
	  RP(UNCHARGE_SKMEM) | RP(KMEM_UNCHARGE) },
	{ "6.12", fns_612,
	  { RK_SET(pages_all), RK_SET(pages_612), RK_SET(socket_skmem), RK_SET(bytes_61_615) },
	  RP(TRY_CHARGE) | RP(OBJ_CHARGE) | RP(REFILL) | RP(UNCHARGE) | RP(UNCHARGE_FOLIOS) |
	  RP(CANCEL) | RP(UNCHARGE_SKMEM) | RP(KMEM_UNCHARGE) },
	{ "6.15", fns_615,
	  { RK_SET(pages_all), RK_SET(pages_614), RK_SET(socket_skmem), RK_SET(bytes_61_615) },
	  RP(TRY_CHARGE) | RP(OBJ_CHARGE) | RP(REFILL) | RP(UNCHARGE) | RP(UNCHARGE_FOLIOS) |
	  RP(UNCHARGE_SKMEM) | RP(KMEM_UNCHARGE) },
	{ "6.16", fns_616,
	  { RK_SET(pages_all), RK_SET(pages_614), RK_SET(socket_skmem), RK_SET(bytes_616_619) },
	  RP(TRY_CHARGE) | RP(CHARGE_ACCOUNT) | RP(REFILL) | RP(UNCHARGE) | RP(UNCHARGE_FOLIOS) |
	  RP(UNCHARGE_SKMEM) | RP(KMEM_UNCHARGE) },
	/* __account_obj_stock() out of line, not used: the account point has its objects */
	{ "6.18", fns_618,
	  { RK_SET(pages_all), RK_SET(pages_614), RK_SET(socket_sk), RK_SET(bytes_616_619) },
	  RP(TRY_CHARGE) | RP(CHARGE_ACCOUNT) | RP(OBJ_PAGES) | RP(REFILL) | RP(UNCHARGE) |
	  RP(UNCHARGE_FOLIOS) | RP(SK_UNCHARGE) | RP(KMEM_UNCHARGE) },
	{ "7.3", fns_73,
	  { RK_SET(pages_all), RK_SET(pages_614), RK_SET(socket_sk), RK_SET(bytes_73) },
	  RP(TRY_CHARGE) | RP(OBJ_CHARGE) | RP(OBJ_PAGES) | RP(SLAB_CHARGE) | RP(REFILL_STOCK) |
	  RP(UNCHARGE) | RP(UNCHARGE_FOLIOS) | RP(SK_UNCHARGE) | RP(KMEM_UNCHARGE) },
};

static void rk_kernel_desc(const struct rk_kernel *k, char *desc)
{
	strscpy(desc, k->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rk_kernel, rk_kernels, rk_kernel_desc);

static bool rk_has(const char * const *fns, const char *fn)
{
	for (; *fns; fns++)
		if (!strcmp(*fns, fn))
			return true;
	return false;
}

static bool rk_point_has(unsigned int point, void *arg)
{
	return rk_has(arg, mcs_rec_point_name(point));
}

/* The point @fn is, -1 for none. */
static int rk_point_of(const char *fn)
{
	unsigned int i;

	for (i = 0; i < NR_MCS_RP; i++)
		if (!strcmp(mcs_rec_point_name(i), fn))
			return i;
	return -1;
}

/* A frame is a return address where its function is out of line there. */
static bool rk_visible(const char * const *fns, const struct rk_call *c, unsigned int i)
{
	return !i || (!c->f[i].inlined && rk_has(fns, c->f[i].fn));
}

struct rk_events {
	u8 kind[RK_EVENTS], src[RK_EVENTS];
	unsigned int n, unknown;
};

/*
 * The events the probes in use on @fns (@on) make of @c when the charge
 * succeeds (@ok) or is refused: each point among the frames fires, with
 * the nearest frame below it that is a return address as its caller.
 */
static void rk_run_call(struct kunit *test, const char * const *fns, unsigned long on,
			const struct rk_call *c, bool ok, struct rk_events *ev)
{
	unsigned int i, j;

	if (c->success_only && !ok)
		return;
	for (i = 1; i < RK_FRAMES && c->f[i].fn; i++) {
		struct mcs_rec_verdict v;
		int point = rk_point_of(c->f[i].fn);
		u8 kind;

		if (point < 0 || !(on & BIT(point)) || !rk_visible(fns, c, i))
			continue;
		for (j = i - 1; j && !rk_visible(fns, c, j); j--)
			;
		KUNIT_ASSERT_EQ(test, mcs_rec_classify(point, mcs_rec_caller_class(c->f[j].fn), on,
						       c->f[i].arg, &v), 0);
		ev->unknown += v.unknown;
		kind = ok ? v.ok : v.bad;
		if (kind == MCS_REC_NO_EVENT)
			continue;
		/* a page charge point's byte event is recorded in bytes, and only that */
		KUNIT_EXPECT_EQ_MSG(test, v.bytes, kind >= MCS_TRACE_BYTE_CHARGE &&
				    (point == MCS_RP_TRY_CHARGE || point == MCS_RP_OBJ_PAGES),
				    "%s by %s", c->f[i].fn, c->f[j].fn);
		KUNIT_ASSERT_LT(test, ev->n, RK_EVENTS);
		ev->kind[ev->n] = kind;
		ev->src[ev->n++] = v.src;
	}
}

/* The event @p must make: on success (@ok) or on refusal. */
static u8 rk_want(const struct rk_path *p, bool ok)
{
	switch (p->expect) {
	case RK_PAGES:
		return ok ? MCS_TRACE_PAGE_CHARGE : MCS_TRACE_PAGE_REFUSED;
	case RK_BYTES:
		return ok ? MCS_TRACE_BYTE_CHARGE : MCS_TRACE_BYTE_REFUSED;
	case RK_HIT:
		return ok ? MCS_TRACE_BYTE_CHARGE : MCS_REC_NO_EVENT;
	}
	return ok ? MCS_TRACE_BYTE_UNCHARGE : MCS_REC_NO_EVENT;
}

static void rk_check_path(struct kunit *test, const struct rk_kernel *k,
			  const struct rk_path *p, bool ok)
{
	const char *outcome = ok ? "success" : "refusal";
	u8 want = rk_want(p, ok);
	struct rk_events ev = {};
	unsigned int i;

	for (i = 0; i < RK_CALLS && p->calls[i].f[0].fn; i++)
		rk_run_call(test, k->fns, k->points, &p->calls[i], ok, &ev);
	KUNIT_EXPECT_EQ_MSG(test, ev.unknown, 0, "%s, %s: calls counted unknown", p->what,
			    outcome);
	KUNIT_EXPECT_EQ_MSG(test, ev.n, want == MCS_REC_NO_EVENT ? 0 : 1, "%s, %s: events made",
			    p->what, outcome);
	for (i = 0; i < ev.n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, ev.kind[i], want, "%s, %s: event %u", p->what, outcome,
				    i);
		KUNIT_EXPECT_EQ_MSG(test, ev.src[i], p->src, "%s, %s: source of event %u",
				    p->what, outcome, i);
		KUNIT_EXPECT_NE_MSG(test, ev.src[i], MCS_TRACE_SRC_OTHER, "%s, %s", p->what,
				    outcome);
	}
}

/* Each kernel uses the points it must: the first of each group it has. */
static void rec_points_of_each_kernel(struct kunit *test)
{
	const struct rk_kernel *k = test->param_value;
	unsigned long on = mcs_rec_points_select(rk_point_has, (void *)k->fns);

	KUNIT_EXPECT_EQ_MSG(test, on, k->points, "points in use %#lx, expected %#lx",
			    on, k->points);
}

/*
 * Every charge and uncharge path of each kernel makes exactly its event
 * (none for a byte stock's refill, one byte charge per slab object), of
 * the right source, and no call of it is unknown to the recorder.
 */
static void rec_paths_of_each_kernel(struct kunit *test)
{
	const struct rk_kernel *k = test->param_value;
	unsigned int s, i;

	for (s = 0; s < RK_SETS; s++) {
		for (i = 0; i < k->sets[s].n; i++) {
			rk_check_path(test, k, &k->sets[s].p[i], true);
			rk_check_path(test, k, &k->sets[s].p[i], false);
		}
	}
}

/*
 * What the recorder does not know is counted, not silently classified: a
 * page charge from a caller outside the table, a surplus refilled by such
 * a caller, and a charge path the points in use miss (6.18 with
 * obj_cgroup_charge_account() inlined into the slab hook only).
 */
static void rec_unknown_is_counted(struct kunit *test)
{
	const struct rk_kernel *k618 = &rk_kernels[4];
	static const struct rk_call partial = {
		{ RK_F("__memcg_slab_post_alloc_hook"), RK_INL("obj_cgroup_charge_account"),
		  RK_INL("obj_cgroup_charge_pages"), RK_F("try_charge_memcg") }
	};
	struct mcs_rec_verdict v;
	struct rk_events ev = {};

	KUNIT_ASSERT_STREQ(test, k618->name, "6.18");
	KUNIT_EXPECT_EQ(test, mcs_rec_caller_class("a_charge_path_of_the_future"),
			MCS_RC_UNKNOWN);
	KUNIT_ASSERT_EQ(test, mcs_rec_classify(MCS_RP_TRY_CHARGE, MCS_RC_UNKNOWN, k618->points,
					       false, &v), 0);
	KUNIT_EXPECT_TRUE(test, v.unknown);
	KUNIT_EXPECT_EQ(test, v.ok, MCS_TRACE_PAGE_CHARGE);
	KUNIT_EXPECT_EQ(test, v.src, MCS_TRACE_SRC_OTHER);
	KUNIT_ASSERT_EQ(test, mcs_rec_classify(MCS_RP_REFILL, MCS_RC_UNKNOWN, k618->points,
					       false, &v), 0);
	KUNIT_EXPECT_TRUE(test, v.unknown);
	KUNIT_EXPECT_EQ(test, v.ok, MCS_REC_NO_EVENT);
	/* a free is a free whoever frees */
	KUNIT_ASSERT_EQ(test, mcs_rec_classify(MCS_RP_REFILL, MCS_RC_UNKNOWN, k618->points,
					       true, &v), 0);
	KUNIT_EXPECT_FALSE(test, v.unknown);
	KUNIT_EXPECT_EQ(test, v.ok, MCS_TRACE_BYTE_UNCHARGE);

	rk_run_call(test, k618->fns, k618->points, &partial, false, &ev);
	KUNIT_EXPECT_GT(test, ev.unknown, 0);
	/* points whose events do not depend on the call */
	KUNIT_EXPECT_EQ(test, mcs_rec_classify(MCS_RP_UNCHARGE, MCS_RC_UNKNOWN, 0, false, &v),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, mcs_rec_point_name(NR_MCS_RP));
}

static struct kunit_case record_cases[] = {
	KUNIT_CASE_PARAM(rec_points_of_each_kernel, rk_kernel_gen_params),
	KUNIT_CASE_PARAM(rec_paths_of_each_kernel, rk_kernel_gen_params),
	KUNIT_CASE(rec_unknown_is_counted),
	{}
};

static struct kunit_suite record_suite = {
	.name = "mcs_record",
	.test_cases = record_cases,
};

kunit_test_suite(record_suite);
