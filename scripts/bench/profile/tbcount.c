// SPDX-License-Identifier: GPL-2.0
/*
 * tbcount: a qemu TCG plugin that counts the executions of every
 * translation block, for scripts/bench/bench-profile.sh.
 *
 *   qemu-system-x86_64 -plugin tbcount.so,out=FILE ...
 *
 * A block is keyed by its first guest address and its length in
 * instructions.  Each time the guest executes the marker instruction
 * (MARK_INSN below; scripts/bench/profile/mark.c executes it), the plugin
 * appends to FILE one interval: a line "interval N", then one line
 * "VADDR NINSNS NBYTES EXECS" (hexadecimal address, then decimal) for each
 * block executed since the previous marker
 * (the first interval starts at boot).  Executions are counted by an
 * inline add at the start of each block: exact under -icount, which runs
 * every vCPU in one thread; with parallel vCPU threads they may lose
 * counts.
 *
 * Built against include/qemu/qemu-plugin.h of the qemu source that matches
 * the installed emulator (bench-profile.sh fetches it from Debian).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* nopl 0x4d435350(%rax): a no-op that no compiler emits */
static const unsigned char MARK_INSN[] = { 0x0f, 0x1f, 0x80, 0x50, 0x53, 0x43, 0x4d };

/* unsigned long long: 64 bits, as the plugin API's uint64_t */
struct block {
	unsigned long long vaddr;
	unsigned long long ninsns;
	unsigned long long nbytes;
	unsigned long long execs;	/* updated by the translated code */
	unsigned long long seen;	/* execs at the last marker */
};

static struct block **table;	/* open addressing, power-of-two size */
static size_t table_size, table_used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static unsigned int intervals;

static size_t slot_of(unsigned long long vaddr, unsigned long long ninsns, size_t size)
{
	unsigned long long h = (vaddr ^ (ninsns << 56)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (size - 1);
}

static int table_grow(void)
{
	size_t i, j, size = table_size ? table_size * 2 : 1 << 16;
	struct block **t = calloc(size, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < table_size; i++) {
		if (!table[i])
			continue;
		j = slot_of(table[i]->vaddr, table[i]->ninsns, size);
		while (t[j])
			j = (j + 1) & (size - 1);
		t[j] = table[i];
	}
	free(table);
	table = t;
	table_size = size;
	return 0;
}

/* The block of (@vaddr, @ninsns), created on first sight; caller holds lock. */
static struct block *block_get(unsigned long long vaddr, unsigned long long ninsns)
{
	struct block *b;
	size_t i;

	if (table_used * 2 >= table_size && table_grow())
		return NULL;
	i = slot_of(vaddr, ninsns, table_size);
	for (; table[i]; i = (i + 1) & (table_size - 1))
		if (table[i]->vaddr == vaddr && table[i]->ninsns == ninsns)
			return table[i];
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->vaddr = vaddr;
	b->ninsns = ninsns;
	table[i] = b;
	table_used++;
	return b;
}

static void mark(unsigned int vcpu_index, void *udata)
{
	size_t i;

	pthread_mutex_lock(&lock);
	fprintf(out, "interval %u\n", intervals++);
	for (i = 0; i < table_size; i++) {
		struct block *b = table[i];

		if (!b || b->execs == b->seen)
			continue;
		fprintf(out, "%llx %llu %llu %llu\n",
			b->vaddr, b->ninsns, b->nbytes, b->execs - b->seen);
		b->seen = b->execs;
	}
	fflush(out);
	pthread_mutex_unlock(&lock);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	pthread_mutex_lock(&lock);
	b = block_get(qemu_plugin_tb_vaddr(tb), n);
	if (b && n) {
		struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);

		b->nbytes = qemu_plugin_insn_vaddr(last) + qemu_plugin_insn_size(last) -
			    b->vaddr;
	}
	pthread_mutex_unlock(&lock);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &b->execs, 1);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(MARK_INSN) &&
		    !memcmp(qemu_plugin_insn_data(insn), MARK_INSN, sizeof(MARK_INSN)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	if (out)
		fclose(out);
	out = NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "out=", 4)) {
			fprintf(stderr, "tbcount: unknown argument '%s' (out=FILE)\n", argv[i]);
			return -1;
		}
		path = argv[i] + 4;
	}
	if (!path) {
		fprintf(stderr, "tbcount: no out=FILE given\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
