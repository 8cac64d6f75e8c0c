#!/usr/bin/env bash
# Makes `cbmc`, `goto-cc` and `goto-instrument` (CBMC >= 5.12) available to mergelens.
#
# Idempotent. In order of preference:
#   1. already on PATH (and new enough) or already in the private prefix: nothing to do;
#   2. a distribution package exists (Debian 13+, Ubuntu 22.04+, macOS with Homebrew): install it;
#   3. Debian 12, which has no cbmc package: download Debian 13's cbmc and the runtime it needs
#      with `apt-get download` from a temporary source list (the mirror is taken from the
#      system's own apt sources; the system's sources and libraries are never changed), unpack
#      the packages into a private prefix and write wrappers that run each tool through the
#      unpacked dynamic loader.
#
# The private prefix is $MERGELENS_CBMC_PREFIX, default ~/.local/share/mergelens/cbmc; its
# wrappers live in PREFIX/bin. mergelens looks there by itself.
set -euo pipefail

PREFIX="${MERGELENS_CBMC_PREFIX:-${XDG_DATA_HOME:-$HOME/.local/share}/mergelens/cbmc}"
TOOLS=(cbmc goto-cc goto-instrument)
MIN_MAJOR=5
MIN_MINOR=12

say() { printf 'install-cbmc: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Prints "major minor" of a cbmc binary, or nothing when it does not run.
cbmc_version() {
    "$1" --version 2>/dev/null | head -n 1 | sed -n 's/^\([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p'
}

new_enough() {
    local v major minor
    v=$(cbmc_version "$1") || return 1
    [ -n "$v" ] || return 1
    read -r major minor <<<"$v"
    [ "$major" -gt "$MIN_MAJOR" ] || { [ "$major" -eq "$MIN_MAJOR" ] && [ "$minor" -ge "$MIN_MINOR" ]; }
}

all_present_in() {
    local dir=$1 t
    for t in "${TOOLS[@]}"; do [ -x "$dir/$t" ] || return 1; done
    new_enough "$dir/cbmc"
}

if [ -d "$PREFIX/bin" ] && all_present_in "$PREFIX/bin"; then
    say "CBMC $("$PREFIX/bin/cbmc" --version | head -n 1) already in $PREFIX/bin"
    exit 0
fi
if command -v cbmc >/dev/null && command -v goto-cc >/dev/null && command -v goto-instrument >/dev/null \
    && new_enough "$(command -v cbmc)"; then
    say "CBMC $(cbmc --version | head -n 1) already on PATH ($(command -v cbmc))"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

case "$(uname -s)" in
Darwin)
    command -v brew >/dev/null || die "Homebrew is needed on macOS: install it, then run this script again"
    brew install cbmc
    exit 0
    ;;
esac

command -v apt-get >/dev/null || die "no apt-get here: install CBMC >= 5.12 by hand (cbmc, goto-cc, goto-instrument on PATH)"

# A distribution package, where there is one (Debian 13+, Ubuntu 22.04+).
if apt-cache policy cbmc 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    say "installing the distribution's cbmc package"
    $SUDO apt-get install -y cbmc
    exit 0
fi
if [ ! -e /var/lib/apt/lists/lock ] || [ -z "$(ls /var/lib/apt/lists/ 2>/dev/null | grep -v lock)" ]; then
    $SUDO apt-get update -qq || true
    if apt-cache policy cbmc 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        $SUDO apt-get install -y cbmc
        exit 0
    fi
fi

# Debian 12 and the like: borrow Debian 13's packages into a private prefix.
[ "$(dpkg --print-architecture)" = amd64 ] || die "no cbmc package for $(dpkg --print-architecture): install CBMC >= 5.12 by hand"

# The mirror: the first Debian archive URI of the system's own sources (deb822 or one-line).
mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    mirror=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
    [ -n "$mirror" ] && break
done
if [ -z "$mirror" ]; then
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        mirror=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { if ($i !~ /security/) print $i; break } }' "$f" | head -n 1)
        [ -n "$mirror" ] && break
    done
fi
[ -n "$mirror" ] || die "found no Debian mirror in /etc/apt/sources.list*; install CBMC >= 5.12 by hand"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
if [ -f "$keyring" ]; then
    echo "deb [signed-by=$keyring] $mirror trixie main" >"$work/sources.list"
else
    echo "deb $mirror trixie main" >"$work/sources.list"
fi
apt_opts=(
    -o "Dir::Etc::sourcelist=$work/sources.list"
    -o "Dir::Etc::sourceparts=/dev/null"
    -o "Dir::State::Lists=$work/lists"
    -o "Dir::Cache=$work/cache"
    -o "Dir::State::status=/dev/null"
    -o "APT::Architecture=amd64"
    -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=root"
)
say "fetching Debian 13 (trixie) package lists from $mirror"
apt-get "${apt_opts[@]}" update -qq
say "downloading cbmc, minisat, libc6, libstdc++6, libgcc-s1"
(cd "$work/debs" && apt-get "${apt_opts[@]}" download cbmc minisat libc6 libstdc++6 libgcc-s1 >/dev/null)

rm -rf "$PREFIX.tmp"
mkdir -p "$PREFIX.tmp"
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$PREFIX.tmp"; done
mkdir -p "$PREFIX.tmp/bin"
loader_rel=usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
[ -e "$PREFIX.tmp/$loader_rel" ] || die "the unpacked libc6 has no $loader_rel"
for t in "${TOOLS[@]}"; do
    [ -x "$PREFIX.tmp/usr/bin/$t" ] || die "the cbmc package has no usr/bin/$t"
    # The wrappers find the prefix relative to themselves, so the prefix can be moved.
    cat >"$PREFIX.tmp/bin/$t" <<WRAP
#!/bin/sh
p=\$(cd "\$(dirname "\$0")/.." && pwd)
exec "\$p/$loader_rel" --library-path "\$p/usr/lib/x86_64-linux-gnu:\$p/usr/lib" "\$p/usr/bin/$t" "\$@"
WRAP
    chmod +x "$PREFIX.tmp/bin/$t"
done
# goto-cc runs the C preprocessor from PATH (the system's gcc), which is what the user compiles with.
rm -rf "$PREFIX"
mkdir -p "$(dirname "$PREFIX")"
mv "$PREFIX.tmp" "$PREFIX"
all_present_in "$PREFIX/bin" || die "the unpacked CBMC does not run: try '$PREFIX/bin/cbmc --version'"
say "installed CBMC $("$PREFIX/bin/cbmc" --version | head -n 1) into $PREFIX (wrappers in $PREFIX/bin)"
