#!/usr/bin/env bash
# Builds the third-party conformance corpus: installs the widget libraries
# pinned in internal/testsite/thirdparty/package-lock.json (npm ci, only when
# the lock changed since the last install) and bundles each entry of its src/
# with esbuild into dist/ (git-ignored), which the test site serves at
# /tp/assets/. Installs Debian's nodejs and npm when missing. An install
# of the same lock file is kept in ~/.cache/browserd/thirdparty and reused
# by the next clone.
set -euo pipefail
cd "$(dirname "$0")/../internal/testsite/thirdparty"
if ! command -v npm >/dev/null 2>&1; then
  echo "build-thirdparty: installing Debian's nodejs and npm" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
if ! cmp -s package-lock.json node_modules/.lock-installed 2>/dev/null; then
  # An install of this very lock file made before (by another clone: CI
  # and make soak clone afresh) is copied as hard links instead of
  # installed again: npm ci costs 12-36 s of CPU, the copy about one.
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/browserd/thirdparty/$(sha256sum package-lock.json | cut -c1-16)"
  if [ -f "$cache/node_modules/.lock-installed" ] && cmp -s package-lock.json "$cache/node_modules/.lock-installed"; then
    rm -rf node_modules
    cp -al "$cache/node_modules" node_modules 2>/dev/null || cp -a "$cache/node_modules" node_modules
  else
    npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.lock-installed
    # Kept for the next clone: copied whole, then renamed into place, so
    # a clone never takes a half-made copy.
    mkdir -p "$(dirname "$cache")"
    tmp=$(mktemp -d "$(dirname "$cache")/.tmp.XXXXXX")
    if { cp -al node_modules "$tmp/node_modules" 2>/dev/null || cp -a node_modules "$tmp/node_modules"; } && [ ! -e "$cache" ]; then
      mv "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"
    else
      rm -rf "$tmp"
    fi
  fi
fi
rm -rf dist.tmp
node_modules/.bin/esbuild src/*.js src/*.jsx --bundle --outdir=dist.tmp --log-level=warning \
  --loader:.png=dataurl --loader:.gif=dataurl --loader:.svg=dataurl --loader:.woff=dataurl --loader:.woff2=dataurl \
  --define:process.env.NODE_ENV='"production"' --jsx=automatic
rm -rf dist && mv dist.tmp dist
echo "build-thirdparty: $(ls dist | wc -l) files in $(pwd)/dist"
