#include "token.h"

#include <nettle/sha2.h>
#include <string.h>
#include <sys/random.h>

int token_generate(char out[TOKEN_LEN + 1])
{
	static const char b64url[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char rnd[43];
	size_t i;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -1;
	memcpy(out, "kt_", 3);
	for (i = 0; i < sizeof(rnd); i++)
		out[3 + i] = b64url[rnd[i] & 63];	/* 6 bits of each byte: 258 bits */
	out[TOKEN_LEN] = '\0';
	return 0;
}

void token_hash(const char *token, size_t len, char out[TOKEN_HASH_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	size_t i;

	sha256_init(&ctx);
	sha256_update(&ctx, len, (const uint8_t *)token);
	sha256_digest(&ctx, sizeof(digest), digest);
	for (i = 0; i < sizeof(digest); i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[TOKEN_HASH_LEN] = '\0';
}
