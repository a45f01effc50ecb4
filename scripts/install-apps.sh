#!/usr/bin/env bash
# Installs the applications of the real-application corpus
# (internal/e2e/apps_test.go) from Debian's packages when they are missing:
# MediaWiki, DokuWiki, Adminer (PHP 8.2 with SQLite) and Django (Debian's
# python3-django, run by /usr/bin/python3). Each task runs them from a
# fresh copy of their state in a temporary folder, served on 127.0.0.1;
# nothing here is started or configured system-wide.
set -euo pipefail
pkgs=(mediawiki dokuwiki adminer python3-django php-cli php-sqlite3 php-intl php-mbstring php-xml)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
command -v apt-get >/dev/null 2>&1 || {
  echo "install-apps: missing ${missing[*]} and no apt-get here: install them yourself (Debian 12 packages)" >&2
  exit 1
}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-apps: run as root, or apt-get install ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
