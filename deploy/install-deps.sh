#!/bin/sh
# Install the Debian 12 packages karte needs, by purpose:
#   build  what compiling karted, karte, karte-collect and the region
#          library takes (compilers, -dev packages);
#   run    what karted and make demo use at run time (fonts for the
#          charts, Python for the demo's loader);
#   test   what make test takes besides (cmocka, PostgreSQL, nginx,
#          Chromium and Node.js, MPI and Fortran, clang's fuzzer, ...);
#   bench  what only make bench uses (matplotlib, wrk).
# usage: deploy/install-deps.sh [build] [run] [test] [bench]
#   (no argument: all but bench; --bench: all). make run installs build and
#   run, make test build, run and test, make bench all of them.
# Idempotent: asks dpkg what is missing and runs `apt-get update` and
# `apt-get install` only when something is. Needs root for the install.
set -eu

BUILD="build-essential pkg-config
libmicrohttpd-dev libjansson-dev libyajl-dev libsqlite3-dev nettle-dev
libgsl-dev libcairo2-dev libpixman-1-dev libpango1.0-dev libcsv-dev
libcurl4-openssl-dev libotf2-trace-dev libpq-dev libarchive-dev libxml2-dev zlib1g-dev libsystemd-dev"
RUN="fonts-dejavu-core python3"
TEST="sqlite3 libcmocka-dev python3-jsonschema python3-pandas python3-pytest python3-venv python3-pip python3-setuptools
curl libxml2-utils libopenmpi-dev openmpi-bin gfortran nodejs chromium clang poppler-utils help2man
postgresql-15 nginx-light systemd libomp-dev"
BENCH="python3-matplotlib wrk"

PKGS=""
[ $# -eq 0 ] && set -- build run test
for purpose in "$@"; do
	case "$purpose" in
	build) PKGS="$PKGS $BUILD" ;;
	run) PKGS="$PKGS $RUN" ;;
	test) PKGS="$PKGS $TEST" ;;
	bench) PKGS="$PKGS $BENCH" ;;
	--bench) PKGS="$PKGS $BUILD $RUN $TEST $BENCH" ;;
	*) echo "install-deps: '$purpose' is not one of build, run, test, bench" >&2; exit 2 ;;
	esac
done

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		case " $missing " in *" $p "*) ;; *) missing="$missing $p" ;; esac
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

echo "install-deps: installing:$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
# another apt or dpkg at work (a second make test beside this one): wait for
# its lock, up to ten minutes, instead of failing
LOCK="-o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086
$SUDO apt-get $LOCK update -q
# shellcheck disable=SC2086
$SUDO apt-get $LOCK install -y -q --no-install-recommends $missing
