// SPDX-License-Identifier: GPL-2.0
/*
 * mark: execute the marker instruction of the tbcount plugin once, which
 * closes one counting interval (scripts/bench/profile/tbcount.c).  Without the
 * plugin it is a no-op.
 */
int main(void)
{
	/* nopl 0x4d435350(%rax) */
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x50, 0x53, 0x43, 0x4d");
	return 0;
}
