#!/usr/bin/env bash
# Builds the third-party conformance corpus: installs the widget libraries
# pinned in internal/testsite/thirdparty/package-lock.json (npm ci, only when
# the lock changed since the last install) and bundles each entry of its src/
# with esbuild into dist/ (git-ignored), which the test site serves at
# /tp/assets/. Installs Debian's nodejs and npm when missing.
set -euo pipefail
cd "$(dirname "$0")/../internal/testsite/thirdparty"
if ! command -v npm >/dev/null 2>&1; then
  echo "build-thirdparty: installing Debian's nodejs and npm" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
if ! cmp -s package-lock.json node_modules/.lock-installed 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.lock-installed
fi
rm -rf dist.tmp
node_modules/.bin/esbuild src/*.js src/*.jsx --bundle --outdir=dist.tmp --log-level=warning \
  --loader:.png=dataurl --loader:.gif=dataurl --loader:.svg=dataurl --loader:.woff=dataurl --loader:.woff2=dataurl \
  --define:process.env.NODE_ENV='"production"' --jsx=automatic
rm -rf dist && mv dist.tmp dist
echo "build-thirdparty: $(ls dist | wc -l) files in $(pwd)/dist"
