#!/usr/bin/env bash
# Installs what innodb-lab needs on a Debian 12 machine: MariaDB's build
# dependencies (system libraries only: nothing is downloaded at build time),
# ccache, sysbench, dpkg-dev for `dpkg-source`, libclang for bindgen, perf
# and gdb for the profile pass (flame graphs, Poor Man's Profiler), and
# debian-keyring and devscripts (dscverify) to check the signature of a
# source package fetched by its pool path, and librsvg2-bin with
# fonts-dejavu-core for the PNG renderings of the charts that Jira shows;
# libtirpc-dev and rpcsvc-proto, which MySQL's cmake requires (rpc/rpc.h,
# rpcgen) even for a server without group replication's plugin built.
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
  sysbench dpkg-dev xz-utils curl debian-keyring devscripts
  libclang-dev clang
  linux-perf gdb valgrind
  librsvg2-bin fonts-dejavu-core
  libtirpc-dev rpcsvc-proto
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
# The system user the measured servers run as when the tool runs as root
# (a server started by root must not run as root): no home, no shell.
if ! getent passwd innodb-lab >/dev/null; then
  echo "creating the system user innodb-lab"
  $SUDO useradd --system --no-create-home --home-dir /nonexistent \
    --shell /usr/sbin/nologin innodb-lab
fi
# --server-package: also Debian's packaged server, for `pkg:/usr/sbin/mariadbd`
# trees. A policy-rc.d keeps the package from starting its own service: the
# tool starts every server it measures itself.
# The host's own policy-rc.d (or its absence) is restored on every exit
# path, a failed install or an interrupt included: a policy left behind
# would block every service start on the host.
# Two paths can be moved, for the test of this trap only (xtask/tests/
# install_deps.rs), so that it depends on nothing installed on the host:
# INNODB_LAB_MARIADBD: the server binary whose presence means "installed
#   already, nothing to do" (default /usr/sbin/mariadbd, where the package
#   puts it);
# INNODB_LAB_POLICY_RC_D: the policy file written and restored (default
#   /usr/sbin/policy-rc.d, the one invoke-rc.d reads).
server=${INNODB_LAB_MARIADBD:-/usr/sbin/mariadbd}
if [ "${1:-}" = "--server-package" ] && [ ! -x "$server" ]; then
  policy=${INNODB_LAB_POLICY_RC_D:-/usr/sbin/policy-rc.d}
  saved=""
  if [ -e "$policy" ]; then
    saved=$(mktemp)
    $SUDO cp -p "$policy" "$saved"
  fi
  restore_policy() {
    if [ -n "$saved" ]; then
      $SUDO cp -p "$saved" "$policy" && rm -f "$saved"
    else
      $SUDO rm -f "$policy"
    fi
  }
  trap restore_policy EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
  $SUDO chmod +x "$policy"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends mariadb-server
  restore_policy
  trap - EXIT INT TERM
fi
if command -v rustup >/dev/null; then
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi
echo "install-deps: $(( $(date +%s) - start )) s"
