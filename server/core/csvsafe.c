#include "csvsafe.h"

#include <ctype.h>
#include <string.h>

static bool formula_start(char c)
{
	return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

/* [+-]digits[.digits][(e|E)[+-]digits], with digits on one side of the point. */
static bool is_number(const char *s, size_t n)
{
	size_t i = 0, digits = 0;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	for (; i < n && isdigit((unsigned char)s[i]); i++)
		digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && isdigit((unsigned char)s[i]); i++)
			digits++;
	if (!digits)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t e = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (; i < n && isdigit((unsigned char)s[i]); i++)
			e++;
		if (!e)
			return false;
	}
	return i == n;
}

bool csv_cell_risky(const char *s, size_t n)
{
	size_t k = 0;

	if (!s)
		return false;
	while (k < n && s[k] == '\'')
		k++;	/* '=x is written ''=x, so that reading takes one off */
	return k < n && formula_start(s[k]) && !is_number(s + k, n - k);
}

const char *csv_cell_unescape(const char *s)
{
	return s && s[0] == '\'' && csv_cell_risky(s, strlen(s)) ? s + 1 : s;
}
