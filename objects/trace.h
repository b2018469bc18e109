/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of memcg_stock (tracefs: events/memcg_stock/).  Only plain
 * integers are recorded (ids, never pointers), so the format is the same on
 * every kernel.  Disabled tracepoints cost a static branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM memcg_stock

#if !defined(MEMCG_STOCK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MEMCG_STOCK_TRACE_H

#include <linux/tracepoint.h>

/* checkpatch: the TRACE_EVENT() layout of include/trace/events/ (see scripts/checks/lint.sh) */

/* Why a stock slot was drained. */
#define MCS_DRAIN_HOTPLUG	0
#define MCS_DRAIN_ALL		1
#define MCS_DRAIN_OVERFLOW	2
#define MCS_DRAIN_EVICT		3

/* Which stock a trylock failed on, and in which context. */
#define MCS_STOCK_MEMCG		0
#define MCS_STOCK_OBJ		1

TRACE_EVENT(mcs_stock_evict,
	TP_PROTO(unsigned int memcg_id, unsigned int victim_id, int slot),
	TP_ARGS(memcg_id, victim_id, slot),
	TP_STRUCT__entry(
		__field(unsigned int, memcg_id)
		__field(unsigned int, victim_id)
		__field(int, slot)
	),
	TP_fast_assign(
		__entry->memcg_id = memcg_id;
		__entry->victim_id = victim_id;
		__entry->slot = slot;
	),
	TP_printk("memcg=%u victim=%u slot=%d", __entry->memcg_id,
		  __entry->victim_id, __entry->slot)
);

TRACE_EVENT(mcs_stock_drain,
	TP_PROTO(unsigned int memcg_id, unsigned int nr_pages, int cause),
	TP_ARGS(memcg_id, nr_pages, cause),
	TP_STRUCT__entry(
		__field(unsigned int, memcg_id)
		__field(unsigned int, nr_pages)
		__field(int, cause)
	),
	TP_fast_assign(
		__entry->memcg_id = memcg_id;
		__entry->nr_pages = nr_pages;
		__entry->cause = cause;
	),
	TP_printk("memcg=%u nr_pages=%u cause=%s", __entry->memcg_id,
		  __entry->nr_pages,
		  __print_symbolic(__entry->cause,
				   { MCS_DRAIN_HOTPLUG, "hotplug" },
				   { MCS_DRAIN_ALL, "drain-all" },
				   { MCS_DRAIN_OVERFLOW, "overflow" },
				   { MCS_DRAIN_EVICT, "evict" }))
);

TRACE_EVENT(mcs_trylock_fail,
	TP_PROTO(int stock, int context),
	TP_ARGS(stock, context),
	TP_STRUCT__entry(
		__field(int, stock)
		__field(int, context)
	),
	TP_fast_assign(
		__entry->stock = stock;
		__entry->context = context;
	),
	TP_printk("stock=%s context=%s",
		  __print_symbolic(__entry->stock,
				   { MCS_STOCK_MEMCG, "memcg" },
				   { MCS_STOCK_OBJ, "obj" }),
		  __print_symbolic(__entry->context,
				   { 0, "task" }, { 1, "softirq" },
				   { 2, "hardirq" }, { 3, "nmi" }))
);

TRACE_EVENT(mcs_charge_slowpath,
	TP_PROTO(unsigned int memcg_id, unsigned int nr_pages, unsigned int batch),
	TP_ARGS(memcg_id, nr_pages, batch),
	TP_STRUCT__entry(
		__field(unsigned int, memcg_id)
		__field(unsigned int, nr_pages)
		__field(unsigned int, batch)
	),
	TP_fast_assign(
		__entry->memcg_id = memcg_id;
		__entry->nr_pages = nr_pages;
		__entry->batch = batch;
	),
	TP_printk("memcg=%u nr_pages=%u batch=%u", __entry->memcg_id,
		  __entry->nr_pages, __entry->batch)
);

TRACE_EVENT(mcs_limit_refusal,
	TP_PROTO(unsigned int memcg_id, unsigned int over_id, unsigned int nr_pages),
	TP_ARGS(memcg_id, over_id, nr_pages),
	TP_STRUCT__entry(
		__field(unsigned int, memcg_id)
		__field(unsigned int, over_id)
		__field(unsigned int, nr_pages)
	),
	TP_fast_assign(
		__entry->memcg_id = memcg_id;
		__entry->over_id = over_id;
		__entry->nr_pages = nr_pages;
	),
	TP_printk("memcg=%u refused_by=%u nr_pages=%u", __entry->memcg_id,
		  __entry->over_id, __entry->nr_pages)
);

#endif /* MEMCG_STOCK_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
