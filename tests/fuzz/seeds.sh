#!/bin/sh
# The files a fuzz target starts from besides its own corpus: the import
# readers begin with karte's own files of tests/data (tests/data/import
# holds one in every format; the Cube, .extra-p and Thicket seeds are in
# tests/fuzz/corpus/TARGET, small enough for -max_len).
case "$1" in
fuzz_import_extrap-*|fuzz_import_talpas|fuzz_import_cali|fuzz_import_caliper-json) echo tests/data/import ;;
fuzz_import_geopm-report) echo tests/data/geopm ;;
esac
