// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

void bc_text_init(struct bc_text *t)
{
	memset(t, 0, sizeof(*t));
}

void bc_text_deinit(struct bc_text *t)
{
	free(t->buf);
	bc_text_init(t);
}

int bc_text_reserve(struct bc_text *t, size_t n)
{
	size_t need = t->len + n + 1, cap;
	char *grown;

	if (t->err)
		return t->err;
	if (need <= t->cap)
		return 0;
	cap = t->cap ? t->cap : 256;
	while (cap < need)
		cap *= 2;
	grown = realloc(t->buf, cap);
	if (!grown) {
		t->err = -ENOMEM;
		return t->err;
	}
	t->buf = grown;
	t->cap = cap;
	return 0;
}

void bc_text_add(struct bc_text *t, const char *s, size_t n)
{
	if (bc_text_reserve(t, n))
		return;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

void bc_text_puts(struct bc_text *t, const char *s)
{
	bc_text_add(t, s, strlen(s));
}

void bc_text_vprintf(struct bc_text *t, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	if (t->err)
		return;
	va_copy(again, ap);
	n = vsnprintf(t->buf ? t->buf + t->len : NULL,
		      t->buf ? t->cap - t->len : 0, fmt, ap);
	if (n >= 0 && (!t->buf || (size_t)n >= t->cap - t->len)) {
		if (!bc_text_reserve(t, n))
			vsnprintf(t->buf + t->len, t->cap - t->len, fmt, again);
		else
			n = -1;
	}
	va_end(again);
	if (n > 0)
		t->len += n;
}

void bc_text_printf(struct bc_text *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bc_text_vprintf(t, fmt, ap);
	va_end(ap);
}

void bc_text_json_str(struct bc_text *t, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	bc_text_add(t, "\"", 1);
	while (*p) {
		size_t run = 0;

		/* a run of characters that need no escape, copied at once */
		while (p[run] >= 0x20 && p[run] != '"' && p[run] != '\\')
			run++;
		if (run) {
			bc_text_add(t, (const char *)p, run);
			p += run;
		} else if (*p == '"' || *p == '\\') {
			char esc[2] = { '\\', *p++ };

			bc_text_add(t, esc, 2);
		} else {
			bc_text_printf(t, "\\u%04x", *p++);
		}
	}
	bc_text_add(t, "\"", 1);
}

void bc_text_truncate(struct bc_text *t, size_t len)
{
	if (len < t->len) {
		t->len = len;
		t->buf[len] = '\0';
	}
}

char *bc_text_take(struct bc_text *t)
{
	char *buf;

	if (t->err || bc_text_reserve(t, 0)) {
		bc_text_deinit(t);
		return NULL;
	}
	buf = t->buf;
	bc_text_init(t);
	return buf;
}
