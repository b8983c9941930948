#!/usr/bin/env bash
# scripts/install-postgres.sh MAJOR: builds PostgreSQL MAJOR (17 or 18: server, headers,
# contrib, pg_config) from the upstream tarball of Debian's source package into
# $PG_DOF_CACHE/pg/MAJOR, once. Debian 12 packages only PostgreSQL 15 (which stays Debian's
# binary package: `make run` with no PG). Idempotent: exits at once when that prefix holds
# the pinned version with the contrib modules pg_dof needs.
#
# Why the tarball is fetched by its pool address, pinned by sha256, and not with
# `apt-get source`: the mirror this machine reaches lists trixie's postgresql-17 17.12 in
# its Sources index but serves 404 for its files; 17.11's files are served. The sha256
# pinned here is the one the signed 17.11-0+deb13u1 .dsc (and sid's 18.6-3 .dsc) gives.
set -euo pipefail
. "$(dirname "$0")/config.sh"
major="${1:?usage: install-postgres.sh 17|18}"
case "$major" in
  17) version=$PG17_VERSION; sum=$PG17_ORIG_SHA256 ;;
  18) version=$PG18_VERSION; sum=$PG18_ORIG_SHA256 ;;
  *) echo "install-postgres.sh: PostgreSQL $major is not built here (15 is Debian's package; 17 and 18 are built)" >&2; exit 2 ;;
esac
prefix="$PG_DOF_CACHE/pg/$major"
# The options Debian's own build uses that matter here: readline for psql, zlib for
# pg_dump's custom format, OpenSSL for TLS connections (the loader's sslmode=require test),
# ICU collations. No -march: the build stays portable.
options=(--with-readline --with-zlib --with-openssl --with-icu)
stamp="$prefix/.pg_dof-built-$version-$(echo "${options[*]}" | cksum | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ -x "$prefix/bin/pg_config" ] \
   && [ -f "$prefix/lib/postgresql/unaccent.so" ] && [ -f "$prefix/lib/postgresql/dict_int.so" ]; then
  echo "PostgreSQL $version already built in $prefix"
  exit 0
fi

mirror="$(debian_mirror)"
src="$PG_DOF_CACHE/pgsrc"
mkdir -p "$src"
orig="$src/postgresql-${major}_$version.orig.tar.bz2"
if ! sha256_ok "$orig" "$sum"; then
  rm -f "$orig"
  curl -fsS -o "$orig" "${mirror%/}/pool/main/p/postgresql-$major/postgresql-${major}_$version.orig.tar.bz2"
fi
sha256_ok "$orig" "$sum" || { echo "$orig: sha256 mismatch (want $sum)" >&2; exit 1; }

t0=$(date +%s)
# Run from `make test` or `make run`, this script inherits make's MAKELEVEL (and MAKEFLAGS):
# PostgreSQL's build then takes itself for a sub-make and skips generating its headers
# (utils/errcodes.h: "No such file or directory" on a machine with nothing built yet)
unset MAKELEVEL MAKEFLAGS MFLAGS
build="$src/build-$major"
rm -rf "$build" "$prefix"
mkdir -p "$build"
tar -xjf "$orig" -C "$build" --strip-components=1
cd "$build"
./configure -q --prefix="$prefix" "${options[@]}" CFLAGS="-O2 -g" >/dev/null
make -s -j"$(nproc)" >/dev/null 2>&1 || make -s >/dev/null   # the second make shows the error
make -s -j"$(nproc)" -C contrib >/dev/null 2>&1 || make -s -C contrib >/dev/null
make -s install >/dev/null
make -s -C contrib install >/dev/null
cd "$src" && rm -rf "$build"
touch "$stamp"
echo "PostgreSQL $version built into $prefix in $(( $(date +%s) - t0 ))s"
