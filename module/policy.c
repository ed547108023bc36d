// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache policy: mode names and how they are read and written.
 *
 * Kept free of kernel-only calls; see policy.h.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <string.h>
#endif

#include "policy.h"

static const char * const pcpcache_mode_names[PCPCACHE_NR_MODES] = {
	[PCPCACHE_MODE_PASSTHROUGH]	= "passthrough",
	[PCPCACHE_MODE_SINGLE]		= "single",
	[PCPCACHE_MODE_SPLIT]		= "split",
};

const char *pcpcache_mode_name(enum pcpcache_mode mode)
{
	if ((unsigned int)mode >= PCPCACHE_NR_MODES)
		return NULL;
	return pcpcache_mode_names[mode];
}

/**
 * pcpcache_mode_parse - turn a mode name into a mode
 * @buf: the name, not necessarily NUL-terminated
 * @len: its length; one trailing newline (as echo writes) is ignored
 *
 * Return: the mode, or -EINVAL when @buf is not exactly one mode's name.
 */
int pcpcache_mode_parse(const char *buf, size_t len)
{
	int mode;

	if (len && buf[len - 1] == '\n')
		len--;

	for (mode = 0; mode < PCPCACHE_NR_MODES; mode++) {
		const char *name = pcpcache_mode_names[mode];

		if (strlen(name) == len && !memcmp(name, buf, len))
			return mode;
	}
	return -EINVAL;
}

/**
 * pcpcache_mode_format - list every mode, the current one in brackets
 * @cur: the current mode
 * @buf: where to write, NUL-terminated, ending in a newline
 * @size: the size of @buf
 *
 * Writes "passthrough [single] split\n", the form of
 * /sys/kernel/mm/transparent_hugepage/enabled.
 *
 * Return: the length written, or 0 when @buf is too small (then @buf is
 * left an empty string if @size allows).
 */
size_t pcpcache_mode_format(enum pcpcache_mode cur, char *buf, size_t size)
{
	size_t pos = 0;
	int mode;

	for (mode = 0; mode < PCPCACHE_NR_MODES; mode++) {
		const char *name = pcpcache_mode_names[mode];
		size_t need = strlen(name) + (mode == (int)cur ? 2 : 0) + 1;

		/* the last byte left over must hold the NUL */
		if (pos + need >= size)
			goto too_small;
		if (mode == (int)cur)
			buf[pos++] = '[';
		memcpy(buf + pos, name, strlen(name));
		pos += strlen(name);
		if (mode == (int)cur)
			buf[pos++] = ']';
		buf[pos++] = mode == PCPCACHE_NR_MODES - 1 ? '\n' : ' ';
	}
	buf[pos] = '\0';
	return pos;

too_small:
	if (size)
		buf[0] = '\0';
	return 0;
}
