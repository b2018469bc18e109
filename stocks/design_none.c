// SPDX-License-Identifier: GPL-2.0
/*
 * Design "none": no per-CPU stock, so nothing to drain.  Its operations are
 * inline (design_none.h).
 */
#include "design_none.h"

static const struct mcs_stock_kind *const none_kinds[] = {
	NULL,
};

const struct mcs_design mcs_design_none = {
	.name = "none",
	.kinds = none_kinds,
	.batches = false,
	.memcgs_per_cpu = 0,
};

/* each of the 3 counter levels charged and uncharged; bytes: objcg-atomic */
const struct mcs_mode_info mcs_mode_none = {
	.group = "coupled",
	.abbr = "none",
	.cycles = MCS_CYCLES_COUNTERS "," MCS_CYCLES_OBJCG_ATOMIC,
};
