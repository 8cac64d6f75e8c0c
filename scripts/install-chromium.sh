#!/usr/bin/env bash
# Makes the headless browser of the report test available: Debian's `chromium` package, which
# tests/report.rs runs as /usr/bin/chromium to load a rendered HTML report, dump its DOM and
# take a screenshot.
#
# Idempotent: nothing happens when /usr/bin/chromium exists. Otherwise apt installs it, as
# root or through sudo; the package lists are refreshed first only when apt does not know the
# package yet, so a machine with fresh lists makes no extra round trip.
set -euo pipefail

say() { printf 'install-chromium: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

if [ -x /usr/bin/chromium ]; then
    exit 0
fi

command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install Chromium so that /usr/bin/chromium exists"

if [ "$(id -u)" -eq 0 ]; then
    as_root() { "$@"; }
elif command -v sudo >/dev/null 2>&1; then
    as_root() { sudo "$@"; }
else
    die "installing chromium needs root (or sudo)"
fi

# A candidate of "(none)" means the package lists are missing or stale.
candidate=$(apt-cache policy chromium 2>/dev/null | sed -n 's/^ *Candidate: *//p')
if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
    say "refreshing the package lists"
    as_root apt-get update -q
fi

say "installing chromium"
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium

[ -x /usr/bin/chromium ] || die "the chromium package did not provide /usr/bin/chromium"
say "$(/usr/bin/chromium --version 2>/dev/null || echo chromium installed)"
