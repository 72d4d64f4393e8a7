#!/bin/sh
# The real files a fuzz target starts from besides its own corpus: the
# import readers begin with the files of tests/data in their format.
case "$1" in
fuzz_import_extrap-*|fuzz_import_talpas) echo tests/data/extrap ;;
fuzz_import_cali|fuzz_import_caliper-json) echo tests/data/caliper ;;
fuzz_import_geopm-report) echo tests/data/geopm ;;
esac
