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

/* Replace, in place, every byte of s that does not start or continue a
 * valid sequence by '?': an error message that quotes input cut at a byte
 * count ("%.40s") stays valid UTF-8, so it can be written as JSON. */
void utf8_scrub(char *s);

/* The offset of the first JSON escape in text[0, len) that stands for a
 * lone surrogate (\uD800..\uDBFF not followed by \uDC00..\uDFFF, or a low
 * one alone), or (size_t)-1 when there is none. JSON decoders turn those
 * into '?' or U+FFFD; karte refuses them. Backslashes are looked at only
 * as escapes: outside strings JSON has none. */
size_t utf8_lone_surrogate_escape(const char *text, size_t len);

#endif
