#!/bin/sh
# tests/lsan.supp as the C function LeakSanitizer asks a program for
# (__lsan_default_suppressions), linked into every fuzz target: however a
# target is run (make fuzz, make test, by hand to replay a crash), it
# ignores the same process-lifetime caches of the font and drawing
# libraries as `make asan` does, and nothing else.
set -eu
echo '/* generated from tests/lsan.supp by tests/fuzz/lsan_default.sh */'
echo 'const char *__lsan_default_suppressions(void);'
echo 'const char *__lsan_default_suppressions(void)'
echo '{'
echo '	return'
sed -n 's/^\(leak:[^ #"\\]*\).*$/		"\1\\n"/p' "$1"
echo '		"";'
echo '}'
