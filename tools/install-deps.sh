#!/usr/bin/env bash
# Installs what innodb-lab needs on a Debian 12 machine: MariaDB's build
# dependencies (system libraries only: nothing is downloaded at build time),
# ccache, sysbench, dpkg-dev for `dpkg-source`, and libclang for bindgen.
# The host's apt sources are only read; MariaDB source comes through the
# tool's own private deb-src configuration under ~/.cache/innodb-lab/apt.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
start=$(date +%s)
packages=(
  cmake make g++ bison pkg-config ccache
  libncurses-dev libssl-dev zlib1g-dev libpcre2-dev libfmt-dev
  libaio-dev liburing-dev libsystemd-dev
  sysbench dpkg-dev xz-utils
  libclang-dev clang
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# --server-package: also Debian's packaged server, for `pkg:/usr/sbin/mariadbd`
# trees. A policy-rc.d keeps the package from starting its own service: the
# tool starts every server it measures itself.
if [ "${1:-}" = "--server-package" ] && [ ! -x /usr/sbin/mariadbd ]; then
  policy=/usr/sbin/policy-rc.d
  had_policy=0; [ -e "$policy" ] && had_policy=1
  [ $had_policy -eq 1 ] || { printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null; $SUDO chmod +x "$policy"; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends mariadb-server
  [ $had_policy -eq 1 ] || $SUDO rm -f "$policy"
fi
if command -v rustup >/dev/null; then
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi
echo "install-deps: $(( $(date +%s) - start )) s"
