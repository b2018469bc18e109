/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The charge-stream trace: the binary layout that the recorder
 * (harness/record.c) writes, the replay (harness/replay.c) loads, and
 * scripts/bench/trace-read.py and the selftests read.  docs/trace-format.md
 * describes it in words.  Little-endian, no padding between the parts:
 *
 *   struct mcs_trace_header                     MCS_TRACE_HEADER_SIZE bytes
 *   struct mcs_trace_memcg  x nr_memcgs         parents before children
 *   struct mcs_trace_event  x nr_events         the stream, in replay order
 *
 * Replay order: the events of one CPU keep their sequence (seq rises by
 * one per event recorded on that CPU, gaps are events dropped); between
 * CPUs the order is that of the timestamps.  Amounts are pages for the
 * page kinds, bytes for the byte kinds.  A memcg's opening balance is what
 * its uncharges need beyond its own charges in the stream (charges made
 * before the recording started): a replay charges it first, so that no
 * uncharge ever takes more than was charged.
 *
 * Only fixed-size types: the header is included by user space too.
 */
#ifndef MEMCG_STOCK_TRACE_FORMAT_H
#define MEMCG_STOCK_TRACE_FORMAT_H

#include <linux/types.h>

#define MCS_TRACE_MAGIC		"MCSTRACE"
#define MCS_TRACE_VERSION	1
#define MCS_TRACE_RELEASE_LEN	64
#define MCS_TRACE_NAME_LEN	32
#define MCS_TRACE_NOTE_LEN	192
/* no parent in the trace: a child of the kernel's root memcg */
#define MCS_TRACE_NO_PARENT	0xffffffffU

/* Bounds a replay accepts (and the recorder keeps to). */
#define MCS_TRACE_MAX_MEMCGS	1024
#define MCS_TRACE_MAX_DEPTH	16
#define MCS_TRACE_MAX_EVENTS	4194304U
#define MCS_TRACE_MAX_PAGES	512		/* one charge: a 2 MiB folio */
#define MCS_TRACE_MAX_BYTES	1048576U	/* one charge: a bulk slab charge */
#define MCS_TRACE_MAX_OPEN_PAGES	4194304U
#define MCS_TRACE_MAX_OPEN_BYTES	4294967296ULL

enum mcs_trace_kind {
	MCS_TRACE_PAGE_CHARGE,		/* charged */
	MCS_TRACE_PAGE_REFUSED,		/* refused by a limit: nothing charged */
	MCS_TRACE_PAGE_UNCHARGE,
	MCS_TRACE_BYTE_CHARGE,
	MCS_TRACE_BYTE_REFUSED,
	MCS_TRACE_BYTE_UNCHARGE,
	NR_MCS_TRACE_KINDS,
};

enum mcs_trace_ctx {
	MCS_TRACE_TASK,
	MCS_TRACE_SOFTIRQ,
	MCS_TRACE_HARDIRQ,
	MCS_TRACE_NMI,			/* never recorded by this recorder */
	NR_MCS_TRACE_CTXS,
};

/* Where the kernel made the event (the probe behind it). */
enum mcs_trace_source {
	MCS_TRACE_SRC_FOLIO,		/* user folios: charge, uncharge, cancel */
	MCS_TRACE_SRC_KMEM,		/* kernel pages (__GFP_ACCOUNT page allocations) */
	MCS_TRACE_SRC_SOCK,		/* socket buffers */
	MCS_TRACE_SRC_OBJ,		/* byte charges: slab objects, zswap */
	MCS_TRACE_SRC_OTHER,		/* any other caller of the page charge */
	NR_MCS_TRACE_SOURCES,
};

/* struct mcs_trace_event.flags */
#define MCS_TRACE_CTX_MASK	0x03
#define MCS_TRACE_NOWAIT	0x04	/* the charge could not block */
#define MCS_TRACE_SRC_SHIFT	4
#define MCS_TRACE_SRC_MASK	0x70
#define MCS_TRACE_FLAGS_KNOWN	(MCS_TRACE_CTX_MASK | MCS_TRACE_NOWAIT | MCS_TRACE_SRC_MASK)

/**
 * struct mcs_trace_header - what the trace is and how it was recorded
 * @magic: MCS_TRACE_MAGIC, not NUL-terminated
 * @version: MCS_TRACE_VERSION
 * @header_size: sizeof(struct mcs_trace_header)
 * @memcg_size: sizeof(struct mcs_trace_memcg)
 * @event_size: sizeof(struct mcs_trace_event)
 * @nr_cpus: CPU ids of the recording machine, its nr_cpu_ids (every
 *	event's cpu is below)
 * @nr_memcgs: entries of the memcg table
 * @nr_events: events of the stream
 * @page_size: the recording kernel's PAGE_SIZE
 * @lost: events not in the stream: their CPU's buffer was full, their
 *	amount out of bounds, or their memcg had no place in the table (full,
 *	too deep, an opening balance beyond the bounds above)
 * @skipped_nmi: events in NMI context (not recorded)
 * @missed: charges whose return the kernel's kretprobe pool missed
 * @duration_ns: from the start of the recording to its stop
 * @release: the recording kernel's release (uname -r), NUL-padded
 * @workload: the workload's name, NUL-padded
 * @note: how it was recorded (workload, unknown= calls, probes), NUL-padded
 */
struct mcs_trace_header {
	char magic[8];
	__u32 version;
	__u32 header_size;
	__u32 memcg_size;
	__u32 event_size;
	__u32 nr_cpus;
	__u32 nr_memcgs;
	__u32 nr_events;
	__u32 page_size;
	__u64 lost;
	__u64 skipped_nmi;
	__u64 missed;
	__u64 duration_ns;
	char release[MCS_TRACE_RELEASE_LEN];
	char workload[MCS_TRACE_NAME_LEN];
	char note[MCS_TRACE_NOTE_LEN];
};

/**
 * struct mcs_trace_memcg - one memcg of the trace (index: its place in the table)
 * @cgroup_id: the recording kernel's cgroup id
 * @parent: index of its parent in the table, MCS_TRACE_NO_PARENT for a
 *	child of the kernel's root memcg; always below its own index
 * @depth: 1 for a child of the root, parent's depth + 1 below
 * @open_pages: opening balance of pages (see above)
 * @reserved: 0
 * @open_bytes: opening balance of bytes
 * @name: the cgroup's name, NUL-padded
 */
struct mcs_trace_memcg {
	__u64 cgroup_id;
	__u32 parent;
	__u32 depth;
	__u32 open_pages;
	__u32 reserved;
	__u64 open_bytes;
	char name[MCS_TRACE_NAME_LEN];
};

/**
 * struct mcs_trace_event - one charge or uncharge
 * @ts_ns: global timestamp, ns from the start of the recording
 * @seq: this CPU's sequence number (rises by one per recorded event)
 * @cpu: the CPU the event completed on
 * @kind: enum mcs_trace_kind
 * @flags: context (MCS_TRACE_CTX_MASK), MCS_TRACE_NOWAIT, source
 *	(MCS_TRACE_SRC_MASK >> MCS_TRACE_SRC_SHIFT)
 * @memcg: index in the memcg table
 * @amount: pages (page kinds) or bytes (byte kinds), at least 1
 */
struct mcs_trace_event {
	__u64 ts_ns;
	__u32 seq;
	__u16 cpu;
	__u8 kind;
	__u8 flags;
	__u32 memcg;
	__u32 amount;
};

#define MCS_TRACE_HEADER_SIZE	sizeof(struct mcs_trace_header)

#endif /* MEMCG_STOCK_TRACE_FORMAT_H */
