#include "utf8.h"

#include <stdint.h>
#include <string.h>

/* The length of the valid sequence at s[0, len), or 0 when there is none. */
static size_t seq_len(const unsigned char *s, size_t len)
{
	size_t n;

	if (s[0] < 0x80)
		return 1;
	n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
		: s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	return n && n <= len && utf8_valid(s, n) ? n : 0;
}

void utf8_scrub(char *s)
{
	unsigned char *p = (unsigned char *)s;
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		n = seq_len(p + i, len - i);
		if (n == 0) {
			p[i++] = '?';
			continue;
		}
		i += n;
	}
}

bool utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned c = s[i];

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {		/* 2 bytes; c0, c1 would be overlong */
			if (i + 1 >= len || (s[i + 1] & 0xc0) != 0x80)
				return false;
			i += 2;
		} else if (c >= 0xe0 && c <= 0xef) {	/* 3 bytes */
			unsigned lo = c == 0xe0 ? 0xa0 : 0x80;	/* e0 80..9f: overlong */
			unsigned hi = c == 0xed ? 0x9f : 0xbf;	/* ed a0..bf: surrogates */

			if (i + 2 >= len || s[i + 1] < lo || s[i + 1] > hi || (s[i + 2] & 0xc0) != 0x80)
				return false;
			i += 3;
		} else if (c >= 0xf0 && c <= 0xf4) {	/* 4 bytes */
			unsigned lo = c == 0xf0 ? 0x90 : 0x80;	/* f0 80..8f: overlong */
			unsigned hi = c == 0xf4 ? 0x8f : 0xbf;	/* f4 90..: above U+10FFFF */

			if (i + 3 >= len || s[i + 1] < lo || s[i + 1] > hi ||
			    (s[i + 2] & 0xc0) != 0x80 || (s[i + 3] & 0xc0) != 0x80)
				return false;
			i += 4;
		} else {
			return false;	/* 80..c1 lead, f5..ff */
		}
	}
	return true;
}

/* The value of the 4 hex digits at s, or -1. */
static long hex4(const char *s)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

size_t utf8_lone_surrogate_escape(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *b;

	while ((b = memchr(p, '\\', (size_t)(end - p))) != NULL) {
		long u;

		if (end - b < 2)
			break;
		if (b[1] != 'u' || end - b < 6 || (u = hex4(b + 2)) < 0xd800 || u > 0xdfff) {
			p = b + 2;	/* another escape (or a short one: the parser says) */
			continue;
		}
		if (u >= 0xdc00)
			return (size_t)(b - text);	/* a low surrogate first */
		if (end - b < 12 || b[6] != '\\' || b[7] != 'u' || (u = hex4(b + 8)) < 0xdc00 ||
		    u > 0xdfff)
			return (size_t)(b - text);	/* a high one without its low */
		p = b + 12;
	}
	return (size_t)-1;
}
