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
 * base prefix; booleans are exactly "0" or "1".  Every refusal logs one
 * ratelimited line that says what was wrong (for an unknown key or value:
 * the accepted ones) and returns -EINVAL, so that a caller applies nothing
 * of a write that has one bad token.
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

/* Room for the accepted names of a key or value in a log line. */
#define MCS_NAMES_MAX		192

static bool input_line_ok(const char *what, const char *line, size_t len,
			  size_t max_len)
{
	size_t i;

	if (!len) {
		pr_warn_ratelimited("memcg_stock: %s: empty line\n", what);
		return false;
	}
	if (len > max_len) {
		pr_warn_ratelimited("memcg_stock: %s: line of %zu characters, at most %zu\n",
				    what, len, max_len);
		return false;
	}
	if (line[0] == ' ' || line[len - 1] == ' ') {
		pr_warn_ratelimited("memcg_stock: %s: blank at the start or end of a line\n",
				    what);
		return false;
	}
	for (i = 0; i + 1 < len; i++) {
		if (line[i] == ' ' && line[i + 1] == ' ') {
			pr_warn_ratelimited("memcg_stock: %s: two blanks in a row\n", what);
			return false;
		}
	}
	return true;
}

/**
 * mcs_input_copy() - copy a debugfs write and check its shape
 * @what: file name, for the log
 * @ubuf: user buffer of the write
 * @count: its length
 * @max_line: longest accepted line, without its newline
 * @multiline: accept several lines (each but the last ends in a newline)
 *
 * Return: a kmalloc()ed NUL-terminated copy without the final newline, to
 * be freed with kfree(), or an ERR_PTR(): -EINVAL for a write of the wrong
 * shape, -EFAULT, -ENOMEM.
 */
char *mcs_input_copy(const char *what, const char __user *ubuf, size_t count,
		     size_t max_line, bool multiline)
{
	size_t i, start, max_count;
	char *buf;

	max_count = multiline ? MCS_INPUT_MAX : max_line + 1;
	if (!count || count > max_count) {
		pr_warn_ratelimited("memcg_stock: %s: write of %zu bytes, expected 1..%zu\n",
				    what, count, max_count);
		return ERR_PTR(-EINVAL);
	}
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return buf;
	if (buf[count - 1] == '\n')
		buf[--count] = '\0';

	for (i = 0, start = 0; i <= count; i++) {
		char c = buf[i];

		if (i == count || c == '\n') {
			if (c == '\n' && !multiline) {
				pr_warn_ratelimited("memcg_stock: %s: one line expected\n", what);
				goto bad;
			}
			if (!input_line_ok(what, buf + start, i - start, max_line))
				goto bad;
			start = i + 1;
			continue;
		}
		if (c < 0x20 || c > 0x7e) {
			pr_warn_ratelimited("memcg_stock: %s: byte 0x%02x at offset %zu is not printable ASCII\n",
					    what, (unsigned char)c, i);
			goto bad;
		}
	}
	return buf;
bad:
	kfree(buf);
	return ERR_PTR(-EINVAL);
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
 * @what: file name, for the log
 * @tok: token, modified in place
 * @key: set to the key: lower-case letters, digits and '_'
 * @val: set to the value: not empty, no further '='
 *
 * Return: 0 or -EINVAL.
 */
int mcs_input_kv(const char *what, char *tok, char **key, char **val)
{
	char *eq = strchr(tok, '=');
	const char *p;

	if (!eq || eq == tok || !eq[1] || strchr(eq + 1, '=')) {
		pr_warn_ratelimited("memcg_stock: %s: '%*pE': expected key=value\n",
				    what, (int)strlen(tok), tok);
		return -EINVAL;
	}
	for (p = tok; p < eq; p++) {
		if (!(islower(*p) || isdigit(*p) || *p == '_')) {
			pr_warn_ratelimited("memcg_stock: %s: bad key '%.*s'\n",
					    what, (int)(eq - tok), tok);
			return -EINVAL;
		}
	}
	*eq = '\0';
	*key = tok;
	*val = eq + 1;
	return 0;
}

/**
 * mcs_input_uint() - parse a plain decimal in a range
 * @what: file name, for the log
 * @key: key, for the log
 * @val: value text
 * @min: smallest accepted value
 * @max: largest accepted value
 * @zero_ok: 0 is accepted too (a key where 0 means off)
 * @out: the value
 *
 * Return: 0 or -EINVAL.
 */
int mcs_input_uint(const char *what, const char *key, const char *val,
		   unsigned int min, unsigned int max, bool zero_ok,
		   unsigned int *out)
{
	size_t len = strlen(val), i;
	unsigned int v;

	if (!len || len > MCS_UINT_DIGITS || (val[0] == '0' && len > 1))
		goto bad;
	for (i = 0; i < len; i++)
		if (!isdigit(val[i]))
			goto bad;
	if (kstrtouint(val, 10, &v))
		goto bad;
	if (!(zero_ok && !v) && (v < min || v > max))
		goto bad;
	*out = v;
	return 0;
bad:
	pr_warn_ratelimited("memcg_stock: %s: %s=%*pE: expected %s%u..%u\n",
			    what, key, (int)len, val, zero_ok ? "0 (off) or " : "", min, max);
	return -EINVAL;
}

/**
 * mcs_input_bool() - parse a boolean: exactly "0" or "1"
 * @what: file name, for the log
 * @key: key, for the log
 * @val: value text
 * @out: the value
 *
 * Return: 0 or -EINVAL.
 */
int mcs_input_bool(const char *what, const char *key, const char *val, bool *out)
{
	if ((val[0] != '0' && val[0] != '1') || val[1]) {
		pr_warn_ratelimited("memcg_stock: %s: %s=%*pE: expected 0 or 1\n",
				    what, key, (int)strlen(val), val);
		return -EINVAL;
	}
	*out = val[0] == '1';
	return 0;
}

/*
 * names_list() - the accepted names of a key or value, for a log line
 *
 * Writes "a|b|c" into @buf; a list longer than @size is cut short.
 */
static const char *names_list(char *buf, size_t size, const char * const *names,
			      unsigned int n)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		len += scnprintf(buf + len, size - len, "%s%s", i ? "|" : "", names[i]);
	return buf;
}

/**
 * mcs_input_match() - parse a value from a list of names
 * @what: file name, for the log
 * @key: key, for the log
 * @val: value text
 * @names: accepted names
 * @n: number of names
 *
 * Return: the index of @val in @names, or -EINVAL after a log line that
 * lists the accepted names.
 */
int mcs_input_match(const char *what, const char *key, const char *val,
		    const char * const *names, unsigned int n)
{
	char list[MCS_NAMES_MAX];
	int i = match_string(names, n, val);

	if (i < 0)
		pr_warn_ratelimited("memcg_stock: %s: %s=%*pE: unknown value, expected %s\n",
				    what, key, (int)strlen(val), val,
				    names_list(list, sizeof(list), names, n));
	return i < 0 ? -EINVAL : i;
}

/**
 * mcs_input_key() - look a key up in the list of a file's keys
 * @what: file name, for the log
 * @key: key, as split off by mcs_input_kv()
 * @names: the file's keys
 * @n: number of keys
 *
 * Return: the index of @key in @names, or -EINVAL after a log line that
 * lists the file's keys.
 */
int mcs_input_key(const char *what, const char *key, const char * const *names,
		  unsigned int n)
{
	char list[MCS_NAMES_MAX];
	int i = match_string(names, n, key);

	if (i < 0)
		pr_warn_ratelimited("memcg_stock: %s: unknown key '%s', expected %s\n",
				    what, key, names_list(list, sizeof(list), names, n));
	return i < 0 ? -EINVAL : i;
}
