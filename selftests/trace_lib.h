/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shipped charge-stream trace, linked into the selftests that use it
 * (trace_replay, trace_badinput, mcs_fuzz), and how to load one into
 * debugfs "trace_load".  The trace was recorded by `make trace` on Debian
 * 6.12 generic (its header says how); the layout is harness/trace_format.h.
 * The Makefile builds the programs in this directory, where .incbin finds
 * the file.
 */
#ifndef MCS_TRACE_LIB_H
#define MCS_TRACE_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "../harness/trace_format.h"

#define MCS_TRACE_FILE	"traces/many-cgroups-6.mcstrace"

__asm__(".pushsection .rodata\n"
	".balign 8\n"
	"mcs_shipped_trace:\n"
	".incbin \"" MCS_TRACE_FILE "\"\n"
	"mcs_shipped_trace_end:\n"
	".popsection\n");
extern const unsigned char mcs_shipped_trace[], mcs_shipped_trace_end[];

static inline size_t mcs_trace_size(void)
{
	return mcs_shipped_trace_end - mcs_shipped_trace;
}

/*
 * Write @len bytes of @buf to trace_load in writes of at most @chunk
 * (a whole trace arrives in several writes, as from cat), then close:
 * 0, or -errno of the first write that failed.
 */
static inline int mcs_trace_load(const void *buf, size_t len, size_t chunk)
{
	const char *p = buf;
	size_t done = 0;
	int fd, ret = 0;

	fd = open("/sys/kernel/debug/memcg_stock/trace_load", O_WRONLY);
	if (fd < 0)
		return -errno;
	while (done < len) {
		size_t n = len - done < chunk ? len - done : chunk;
		ssize_t w = write(fd, p + done, n);

		if (w < 0) {
			ret = -errno;
			break;
		}
		if ((size_t)w != n) {
			ret = -EIO;
			break;
		}
		done += n;
	}
	close(fd);
	return ret;
}

#endif /* MCS_TRACE_LIB_H */
