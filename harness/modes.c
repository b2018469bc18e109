// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "modes": every stock mode of the binding table, one line each,
 * in the table's order, with what the tests and the host scripts need to
 * know of it, read from its design (struct mcs_design, struct
 * mcs_mode_info): the selftests, the fuzzer and scripts/bench/designs.py
 * take their list of modes from here.  The format is in docs/debugfs.md.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "harness.h"

/* "NAME:MIN..MAX:VALUE[<UPPER]", comma-separated, or "-" */
static void modes_show_params(struct seq_file *m, const struct mcs_bench_param *params)
{
	const struct mcs_bench_param *p;

	seq_puts(m, " params=");
	if (!params || !params->name) {
		seq_putc(m, '-');
		return;
	}
	for (p = params; p->name; p++) {
		seq_printf(m, "%s%s:%u..%u:%u", p == params ? "" : ",", p->name, p->min, p->max,
			   READ_ONCE(*p->value));
		if (p->below)
			seq_printf(m, "<%s", p->below);
	}
}

/* the kinds' struct names, "struct " left out, comma-separated, or "-" */
static void modes_show_stocks(struct seq_file *m, const struct mcs_stock_kind *const *kinds)
{
	const struct mcs_stock_kind *const *k;

	seq_puts(m, " stocks=");
	if (!*kinds) {
		seq_putc(m, '-');
		return;
	}
	for (k = kinds; *k; k++) {
		const char *type = (*k)->type_name;

		if (str_has_prefix(type, "struct "))
			type += strlen("struct ");
		seq_printf(m, "%s%s", k == kinds ? "" : ",", type);
	}
}

static int modes_show(struct seq_file *m, void *v)
{
	int mode;

	for (mode = 0; mode < NR_MCS_MODES; mode++) {
		const struct mcs_design *d = mcs_stock_design[mode];
		const struct mcs_mode_info *info = mcs_stock_modes[mode];

		seq_printf(m, "mode=%s id=%d design=%s group=%s abbr=%s control=%d batches=%d memcgs_per_cpu=%u refills=%d",
			   mcs_stock_mode_name(mode), mode, d->name, info->group ?: "-",
			   info->abbr, !!(info->flags & MCS_MODE_CONTROL), d->batches,
			   d->memcgs_per_cpu,
			   d->memcgs_per_cpu && !(info->flags & MCS_MODE_NO_REFILL));
		modes_show_stocks(m, mcs_mode_kinds(info, d));
		modes_show_params(m, info->params);
		seq_printf(m, " settings=%s", info->settings ?: "-");
		seq_printf(m, " layout=%s", info->layout ?: "-");
		seq_printf(m, " cycles=%s\n", info->cycles);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(modes);

/**
 * mcs_modes_init() - create the debugfs "modes" file
 * @dir: the module's debugfs directory
 */
void mcs_modes_init(struct dentry *dir)
{
	debugfs_create_file("modes", 0400, dir, NULL, &modes_fops);
}
