#!/usr/bin/env bash
# Builds and installs pgvector from Debian trixie's source package (bookworm has no binary
# package for PostgreSQL 15 at this version). Idempotent: exits at once when the pinned
# version is installed. The system's apt sources are not touched: a private apt
# configuration under the cache holds one deb-src entry, on the mirror the system already uses.
set -euo pipefail
compat="$(cd "$(dirname "$0")" && pwd)"
. "$compat/../scripts/config.sh"
# sha256 of the upstream tarball inside the source package (apt also checks the signed index).
PGVECTOR_ORIG_SHA256="${PGVECTOR_ORIG_SHA256:-867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0}"

sharedir="$("$PG_CONFIG" --sharedir)"
pkglibdir="$("$PG_CONFIG" --pkglibdir)"
if [ -f "$pkglibdir/vector.so" ] && [ -f "$sharedir/extension/vector--$PGVECTOR_VERSION.sql" ] \
   && grep -q "default_version = '$PGVECTOR_VERSION'" "$sharedir/extension/vector.control"; then
  echo "pgvector $PGVECTOR_VERSION already installed in $pkglibdir"
  exit 0
fi

work="$PG_DOF_CACHE/pgvector"
mirror="$(debian_mirror)"

mkdir -p "$work/sources" "$work/lists/partial" "$work/src"
cat > "$work/sources/trixie-src.sources" <<SRC
Types: deb-src
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources"
          -o "Dir::State::Lists=$work/lists" -o APT::Sandbox::User=root)
cd "$work/src"
if [ ! -f "pgvector_$PGVECTOR_DEBVERSION.dsc" ]; then
  apt-get "${apt_opts[@]}" update -q >/dev/null
  apt-get "${apt_opts[@]}" source --download-only -q "pgvector=$PGVECTOR_DEBVERSION" >/dev/null
fi
orig="pgvector_$PGVECTOR_VERSION.orig.tar.gz"
echo "$orig sha256 $(sha256sum "$orig" | cut -d' ' -f1)"
if ! sha256_ok "$orig" "$PGVECTOR_ORIG_SHA256"; then
  echo "$orig: sha256 mismatch (want $PGVECTOR_ORIG_SHA256)" >&2; exit 1
fi
rm -rf "pgvector-$PGVECTOR_VERSION"
# apt-get verified the files against the signed Sources index; dpkg-source need not re-check.
dpkg-source --no-check -x "pgvector_$PGVECTOR_DEBVERSION.dsc" >/dev/null
cd "pgvector-$PGVECTOR_VERSION"
# PostgreSQL 18 changed two server APIs pgvector 0.8.0 calls (vacuum_delay_point takes a
# bool; TupleDesc has no attrs array). pgvector 0.8.1 made these changes upstream, but the
# mirror this machine reaches serves no pgvector source newer than 0.8.0 (sid's 0.8.7 is
# listed, its files answer 404; sid's binary package needs glibc 2.38, Debian 12 has 2.36):
# on 18 the same two changes are applied here (pgvector-0.8.0-pg18.patch), nothing else.
if [ "$(pg_major_of "$PG_CONFIG")" -ge 18 ]; then
  patch -s -p1 < "$compat/pgvector-0.8.0-pg18.patch"
fi
# OPTFLAGS="": upstream defaults to -march=native; keep the build portable.
make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
make -s install PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
echo "pgvector $PGVECTOR_VERSION installed in $pkglibdir"
