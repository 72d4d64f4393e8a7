/*
 * token: write tokens. A token is "kt_" and 43 base64url characters (256
 * random bits); only its SHA-256, in hex, is ever stored.
 */
#ifndef KARTE_TOKEN_H
#define KARTE_TOKEN_H

#include <stddef.h>

#define TOKEN_LEN	46	/* "kt_" + 43 */
#define TOKEN_HASH_LEN	64	/* hex SHA-256 */

/* Fill out[TOKEN_LEN + 1] with a new random token. 0, or -1 when the
 * kernel's random source fails. */
int token_generate(char out[TOKEN_LEN + 1]);

/* Hex SHA-256 of the len bytes at token into out[TOKEN_HASH_LEN + 1]. */
void token_hash(const char *token, size_t len, char out[TOKEN_HASH_LEN + 1]);

#endif
