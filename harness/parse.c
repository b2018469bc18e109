// SPDX-License-Identifier: GPL-2.0
/*
 * The one parser of every debugfs write of the module (config, run, bench,
 * selftest): whole or nothing, strict.
 *
 * A write is printable ASCII.  Tokens are separated by exactly one space,
 * with no blank at the start or the end of a line.  A write is one line,
 * optionally ended by a single newline; "config" alone takes several
 * lines, each ended by a newline but the last.  Empty lines, tabs, NUL
 * bytes, bytes above 0x7e, and a line longer than the caller's bound are
 * refused.  Numbers are plain decimal: no sign, no leading zero, no
 * base prefix; booleans are exactly "0" or "1".  Every refusal records one
 * entry in error_log (error_log.c: what was wrong, where, an excerpt of the
 * line) and returns -EINVAL, so that a caller applies nothing of a write
 * that has one bad token.  Nothing goes to the kernel log.
 *
 * Context: task context (copies from user space); no locks.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "harness.h"

/* Longest decimal of an unsigned int: 4294967295. */
#define MCS_UINT_DIGITS		10

/*
 * Record an error at byte @pos of the write as written: the excerpt is
 * the line that holds @pos, from its start.
 */
static int input_error_at(struct mcs_input *in, enum mcs_error_kind kind, size_t pos,
			  int err)
{
	size_t start = pos, end = pos;

	while (start && start <= in->len && in->text[start - 1] != '\n')
		start--;
	if (start > in->len)
		start = in->len;
	while (end < in->len && in->text[end] != '\n')
		end++;
	return mcs_error_record(in->file, kind, err, pos, in->text + start, end - start);
}

/**
 * mcs_input_error() - record why a parsed write is refused
 * @in: the write
 * @kind: what was wrong
 * @at: where: a pointer into @in->buf (a token), or NULL for the start
 * @err: the errno the write returns (negative)
 *
 * Return: @err.
 */
int mcs_input_error(struct mcs_input *in, enum mcs_error_kind kind, const char *at,
		    int err)
{
	return input_error_at(in, kind, at ? at - in->buf : 0, err);
}

static bool input_line_ok(struct mcs_input *in, size_t start, size_t len, size_t max_len)
{
	const char *line = in->text + start;
	size_t i;

	if (!len) {
		input_error_at(in, MCS_ERR_EMPTY_LINE, start, -EINVAL);
		return false;
	}
	if (len > max_len) {
		input_error_at(in, MCS_ERR_LONG_LINE, start + max_len, -EINVAL);
		return false;
	}
	if (line[0] == ' ' || line[len - 1] == ' ') {
		input_error_at(in, MCS_ERR_EDGE_BLANK, start + (line[0] == ' ' ? 0 : len - 1),
			       -EINVAL);
		return false;
	}
	for (i = 0; i + 1 < len; i++) {
		if (line[i] == ' ' && line[i + 1] == ' ') {
			input_error_at(in, MCS_ERR_DOUBLE_BLANK, start + i + 1, -EINVAL);
			return false;
		}
	}
	return true;
}

/* A write refused before its copy: its first bytes make the excerpt. */
static int input_refuse_count(const char *file, const char __user *ubuf, size_t count,
			      size_t max_count)
{
	char head[MCS_ERROR_EXCERPT];
	size_t n = min_t(size_t, count, sizeof(head));

	if (n && copy_from_user(head, ubuf, n))
		count = 0;
	/* @count, not @n: an excerpt of a longer write says it was cut */
	return mcs_error_record(file, MCS_ERR_SIZE, -EINVAL, count ? max_count : 0, head,
				count);
}

/**
 * mcs_input_copy() - copy a debugfs write and check its shape
 * @in: the write, for the parser and for error_log
 * @file: the debugfs file written
 * @ubuf: user buffer of the write
 * @count: its length
 * @max_line: longest accepted line, without its newline
 * @multiline: accept several lines (each but the last ends in a newline)
 *
 * On success @in holds two kmalloc()ed NUL-terminated copies without the
 * final newline, to be freed with mcs_input_free(); tokens come from
 * @in->buf through mcs_input_next().
 *
 * Return: 0; -EINVAL for a write of the wrong shape, -EFAULT, -ENOMEM,
 * each recorded in error_log.
 */
int mcs_input_copy(struct mcs_input *in, const char *file, const char __user *ubuf,
		   size_t count, size_t max_line, bool multiline)
{
	size_t i, start, max_count;

	*in = (struct mcs_input){ .file = file };
	max_count = multiline ? MCS_INPUT_MAX : max_line + 1;
	if (!count || count > max_count)
		return input_refuse_count(file, ubuf, count, max_count);
	in->text = kmalloc(2 * (count + 1), GFP_KERNEL);
	if (!in->text)
		return mcs_error_record(file, MCS_ERR_COPY, -ENOMEM, 0, NULL, 0);
	if (copy_from_user(in->text, ubuf, count)) {
		mcs_input_free(in);
		return mcs_error_record(file, MCS_ERR_COPY, -EFAULT, 0, NULL, 0);
	}
	in->text[count] = '\0';
	if (in->text[count - 1] == '\n')
		in->text[--count] = '\0';
	in->len = count;

	for (i = 0, start = 0; i <= count; i++) {
		char c = in->text[i];

		if (i == count || c == '\n') {
			if (c == '\n' && !multiline) {
				input_error_at(in, MCS_ERR_LINES, i, -EINVAL);
				goto bad;
			}
			if (!input_line_ok(in, start, i - start, max_line))
				goto bad;
			start = i + 1;
			continue;
		}
		if (c < 0x20 || c > 0x7e) {
			input_error_at(in, MCS_ERR_BYTE, i, -EINVAL);
			goto bad;
		}
	}
	in->buf = in->text + count + 1;
	memcpy(in->buf, in->text, count + 1);
	return 0;
bad:
	mcs_input_free(in);
	return -EINVAL;
}

/**
 * mcs_input_free() - free what mcs_input_copy() allocated
 * @in: the write
 */
void mcs_input_free(struct mcs_input *in)
{
	kfree(in->text);
	in->text = NULL;
	in->buf = NULL;
}

/**
 * mcs_input_next() - next token of a checked write
 * @cursor: position, advanced past the token; NULL when done
 *
 * Tokens end at a blank or a newline; mcs_input_copy() has ruled out
 * empty tokens.
 *
 * Return: the token, or NULL after the last one.
 */
char *mcs_input_next(char **cursor)
{
	static const char seps[] = { ' ', '\n', '\0' };

	return strsep(cursor, seps);
}

/**
 * mcs_input_kv() - split a key=value token
 * @in: the write
 * @tok: token of @in, modified in place
 * @key: set to the key: lower-case letters, digits and '_'
 * @val: set to the value: not empty, no further '='
 *
 * Return: 0 or -EINVAL.
 */
int mcs_input_kv(struct mcs_input *in, char *tok, char **key, char **val)
{
	char *eq = strchr(tok, '=');
	const char *p;

	if (!eq || eq == tok || !eq[1])
		return mcs_input_error(in, MCS_ERR_KV, eq ?: tok, -EINVAL);
	if (strchr(eq + 1, '='))
		return mcs_input_error(in, MCS_ERR_KV, strchr(eq + 1, '='), -EINVAL);
	for (p = tok; p < eq; p++)
		if (!(islower(*p) || isdigit(*p) || *p == '_'))
			return mcs_input_error(in, MCS_ERR_KEY_CHAR, p, -EINVAL);
	*eq = '\0';
	*key = tok;
	*val = eq + 1;
	return 0;
}

/**
 * mcs_input_uint() - parse a plain decimal in a range
 * @in: the write
 * @val: value text, in @in
 * @min: smallest accepted value
 * @max: largest accepted value
 * @zero_ok: 0 is accepted too (a key where 0 means off)
 * @out: the value
 *
 * Return: 0 or -EINVAL.
 */
int mcs_input_uint(struct mcs_input *in, const char *val, unsigned int min,
		   unsigned int max, bool zero_ok, unsigned int *out)
{
	size_t len = strlen(val), i;
	unsigned int v;

	if (!len || len > MCS_UINT_DIGITS || (val[0] == '0' && len > 1))
		return mcs_input_error(in, MCS_ERR_NUMBER, val, -EINVAL);
	for (i = 0; i < len; i++)
		if (!isdigit(val[i]))
			return mcs_input_error(in, MCS_ERR_NUMBER, val + i, -EINVAL);
	if (kstrtouint(val, 10, &v) || (!(zero_ok && !v) && (v < min || v > max)))
		return mcs_input_error(in, MCS_ERR_RANGE, val, -EINVAL);
	*out = v;
	return 0;
}

/**
 * mcs_input_bool() - parse a boolean: exactly "0" or "1"
 * @in: the write
 * @val: value text, in @in
 * @out: the value
 *
 * Return: 0 or -EINVAL.
 */
int mcs_input_bool(struct mcs_input *in, const char *val, bool *out)
{
	if ((val[0] != '0' && val[0] != '1') || val[1])
		return mcs_input_error(in, MCS_ERR_BOOL, val, -EINVAL);
	*out = val[0] == '1';
	return 0;
}

/**
 * mcs_input_match() - parse a value from a list of names
 * @in: the write
 * @val: value text, in @in
 * @names: accepted names
 * @n: number of names
 *
 * Return: the index of @val in @names, or -EINVAL.
 */
int mcs_input_match(struct mcs_input *in, const char *val,
		    const char * const *names, unsigned int n)
{
	int i = match_string(names, n, val);

	return i < 0 ? mcs_input_error(in, MCS_ERR_VALUE, val, -EINVAL) : i;
}

/**
 * mcs_input_key() - look a key up in the list of a file's keys
 * @in: the write
 * @key: key, as split off by mcs_input_kv()
 * @names: the file's keys
 * @n: number of keys
 *
 * Return: the index of @key in @names, or -EINVAL.
 */
int mcs_input_key(struct mcs_input *in, const char *key, const char * const *names,
		  unsigned int n)
{
	int i = match_string(names, n, key);

	return i < 0 ? mcs_input_error(in, MCS_ERR_KEY, key, -EINVAL) : i;
}
