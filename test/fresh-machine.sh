#!/usr/bin/env bash
# The "nothing but Node" check: a clean clone of HEAD, `npm ci`, then the README's test command and
# the fault suite inside a new network and mount namespace where only loopback is up (no local
# Postgres or other service answers) and /usr/bin/chromium is hidden, with an empty temp directory
# (no test cache from earlier runs) and TEST_DATABASE_URL unset. Needs root (unshare, mount).
# Usage: bash test/fresh-machine.sh [--keep]   (--keep leaves the clone for a look afterwards)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d /tmp/fresh-machine-XXXXXX)"
# The tests run Postgres as `nobody` when root: it must reach the temp directory.
chmod 755 "$work"
[ "${1:-}" = "--keep" ] || trap 'rm -rf "$work"' EXIT

git clone --quiet --no-hardlinks "$repo" "$work/clone"
# As on CI: shared/ (the contract's reference documents) sits beside the clone.
if [ -d "$repo/../shared" ]; then cp -r "$repo/../shared" "$work/shared"; fi
mkdir -m 1777 "$work/tmp"
cd "$work/clone"
npm ci --no-audit --no-fund

# /dev/null bound over the browser makes it exist but not launch; when it is not installed there is
# nothing to hide (mount needs an existing target).
env -u TEST_DATABASE_URL TMPDIR="$work/tmp" unshare -mn bash -c '
  ip link set lo up
  if [ -e /usr/bin/chromium ]; then mount --bind /dev/null /usr/bin/chromium; fi
  status=0
  npm test || status=$?
  npm run test:faults || status=$?
  exit "$status"
'
