/*
 * utf8: strict UTF-8, as RFC 3629 defines it: no overlong forms, no
 * surrogates (U+D800..U+DFFF), nothing above U+10FFFF. Every string karted
 * accepts passes it, so nothing accepted can fail to serialise later.
 */
#ifndef KARTE_UTF8_H
#define KARTE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Whether s[0, len) is strict UTF-8. */
bool utf8_valid(const unsigned char *s, size_t len);

/* The offset of the first JSON escape in text[0, len) that stands for a
 * lone surrogate (\uD800..\uDBFF not followed by \uDC00..\uDFFF, or a low
 * one alone), or (size_t)-1 when there is none. JSON decoders turn those
 * into '?' or U+FFFD; karte refuses them. Backslashes are looked at only
 * as escapes: outside strings JSON has none. */
size_t utf8_lone_surrogate_escape(const char *text, size_t len);

#endif
