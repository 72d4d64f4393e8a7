#!/bin/sh
# Install the Debian 12 packages karte needs to build, run and test.
# Idempotent: asks dpkg what is missing and runs `apt-get update` and
# `apt-get install` only when something is. Needs root for the install.
# With --bench, also what only `make bench` uses (matplotlib, the baseline
# of the chart benchmark).
set -eu

PKGS="build-essential pkg-config
libmicrohttpd-dev libjansson-dev libyajl-dev libsqlite3-dev sqlite3 nettle-dev
libgsl-dev libcairo2-dev libpixman-1-dev libpango1.0-dev fonts-dejavu-core
libcmocka-dev python3 python3-jsonschema python3-pandas python3-venv python3-pip python3-setuptools
curl wrk libxml2-utils libcsv-dev libfmt-dev libfast-float-dev
libcurl4-openssl-dev libopenmpi-dev openmpi-bin gfortran
nodejs chromium libotf2-trace-dev clang poppler-utils help2man
postgresql-15 libpq-dev nginx-light libarchive-dev libxml2-dev zlib1g-dev libsystemd-dev systemd libomp-dev"
if [ "${1:-}" = "--bench" ]; then
	PKGS="$PKGS python3-matplotlib"
fi

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
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
