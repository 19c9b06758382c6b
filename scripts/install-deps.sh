#!/usr/bin/env bash
# Installs what iotrace needs to build and test, on Debian/Ubuntu (apt) or
# Fedora/RHEL (dnf). Idempotent: installs only what is missing.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
else
	SUDO=
fi

apt_pkgs=(clang llvm libbpf-dev bpftool protobuf-c-compiler libprotobuf-c-dev libzstd-dev
	libcmocka-dev libelf-dev zlib1g-dev pkg-config cmake make gcc fio e2fsprogs xfsprogs
	btrfs-progs util-linux python3 xz-utils rpm dpkg-dev cpio bash-completion man-db time strace)
dnf_pkgs=(clang llvm libbpf-devel bpftool protobuf-c-compiler protobuf-c-devel libzstd-devel
	libcmocka-devel elfutils-libelf-devel zlib-devel pkgconf-pkg-config cmake make gcc fio
	e2fsprogs xfsprogs btrfs-progs util-linux python3 xz rpm-build cpio bash-completion man-db time strace)

if command -v apt-get >/dev/null 2>&1; then
	missing=()
	for p in "${apt_pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "install-deps: installing ${missing[*]}"
		$SUDO apt-get update -qq
		$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
elif command -v dnf >/dev/null 2>&1; then
	missing=()
	for p in "${dnf_pkgs[@]}"; do
		rpm -q "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "install-deps: installing ${missing[*]}"
		$SUDO dnf install -y -q "${missing[@]}"
	fi
else
	echo "install-deps: neither apt-get nor dnf found; install by hand: ${apt_pkgs[*]}" >&2
	exit 1
fi
