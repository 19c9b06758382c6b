#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Package test: builds the .deb and the .rpm, inspects both, installs the
# .deb on this machine, traces a loop device with the installed binary,
# and removes the package again.
#
#   usage: tests/package/test_packages.sh BUILD_DIR
#
#   1. build: cpack in BUILD_DIR gives one iotrace_*.deb and one
#      iotrace-*.rpm in BUILD_DIR/packages/.
#   2. deb: control fields, Depends (exact names, no duplicates, at least
#      what dpkg-shlibdeps finds in the binary), conffiles, file list and
#      modes (/var/lib/iotrace 0700), maintainer scripts never delete traces.
#   3. rpm: header fields, Requires (exact names, no soname requirements
#      from autoreq, versions covering the symbol versions the binary uses,
#      a package for every NEEDED library), file list and modes, config
#      flags, scriptlets; the same files as the .deb.
#   4. docs: the man page renders without warnings and names the binary's
#      version; every option of every command's -H help is in the man page
#      and is offered by the bash completion.
#   5. install the .deb with apt-get (a looser /var/lib/iotrace made before
#      is fixed to 0700); /usr/sbin/iotrace -V, man -w iotrace, the default
#      config; systemd-analyze verify of the unit.
#   6. trace a loop device for a second with the installed binary and the
#      installed defaults (no IOTRACE_* variables: repository
#      /var/lib/iotrace, /etc/iotrace/iotrace.conf, /run/lock/iotrace.lock),
#      4 MiB of O_DIRECT writes; parse the trace; modes 0700/0600.
#   7. the unit's ExecStart, expanded as systemd does with the values of a
#      capture.conf, run directly and stopped with SIGTERM as
#      `systemctl stop` does: exit 0, summary COMPLETE.
#   8. bash completion in bash with bash-completion loaded: commands,
#      --devices for `iotrace --start-tracing --dev`, loop devices for
#      `iotrace -S -d lo`, comma lists, trace paths, formats, the parser's
#      --cgroup from a trace's iotrace.cgroups.
#   9. reinstall, and an upgrade to the same build as release 2, keep the
#      traces and an edited config; apt-get remove and dpkg --purge remove
#      the binary but keep every trace byte for byte.
#
# Needs root, apt-get/dpkg (a Debian or Ubuntu host), rpm, cpio, objdump,
# dpkg-shlibdeps, bash-completion, losetup, BTF; a missing one is a failure,
# never a skip. Refuses to run if an iotrace package is installed already.
# Everything it sets up is undone at exit, also on failure: the package is
# purged, its loop device detached, its traces deleted (only those with its
# label), /var/lib/iotrace removed if it did not exist before (else its mode
# restored), and an /etc/iotrace that existed before is put back.
# Not registered in ctest: it installs and removes a system package.

set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
fi
BUILD=$(realpath -e "$1") || { echo "FAIL: no build directory '$1'" >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)

PASS=0
FAIL=0
FAILED_NAMES=()
ok() { echo "ok:   $*"; PASS=$((PASS + 1)); }
fail() { echo "FAIL: $*"; FAIL=$((FAIL + 1)); FAILED_NAMES+=("$*"); }
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else fail "$name"; fi
}
note() { echo "      $*"; }
finish() {
	echo
	echo "$PASS passed, $FAIL failed"
	if [ "$FAIL" -gt 0 ]; then
		printf 'failed: %s\n' "${FAILED_NAMES[@]}"
		exit 1
	fi
	exit 0
}
die() {
	fail "$*"
	finish
}
phase_start=$SECONDS
phase_name=
# starts a phase; says how long the previous one took
phase() {
	[ -n "$phase_name" ] && note "($phase_name: $((SECONDS - phase_start)) s)"
	phase_start=$SECONDS
	phase_name=$1
	[ "$1" = "done" ] || echo "--- $1"
}

# --- what the packages must declare ------------------------------------------
# (IOTRACE_STATIC_LIBS, the default, links everything but the C library in)
if grep -qx 'IOTRACE_STATIC_LIBS:BOOL=ON' "$BUILD/CMakeCache.txt"; then
	STATIC_LIBS=1
	DEB_DEPENDS_NAMES="libc6"
	RPM_REQUIRES_NAMES="glibc"
else
	STATIC_LIBS=0
	DEB_DEPENDS_NAMES="libbpf1 libc6 libelf1 libprotobuf-c1 libzstd1 zlib1g"
	RPM_REQUIRES_NAMES="elfutils-libelf glibc libbpf libzstd protobuf-c zlib"
fi
# soname -> rpm package that provides it (Fedora/RHEL); a NEEDED library
# missing here fails the test: add it to CPACK_RPM_PACKAGE_REQUIRES too.
declare -A RPM_PKG_OF=([libbpf.so.1]=libbpf [libprotobuf-c.so.1]=protobuf-c
	[libzstd.so.1]=libzstd [libelf.so.1]=elfutils-libelf [libz.so.1]=zlib
	[libc.so.6]=glibc [libm.so.6]=glibc [libpthread.so.0]=glibc)
PKG_FILES="/usr/sbin/iotrace
/usr/share/man/man8/iotrace.8.gz
/usr/share/bash-completion/completions/iotrace
/usr/share/doc/iotrace/LICENSE
/usr/share/doc/iotrace/README.md
/usr/lib/systemd/system/iotrace@.service
/etc/iotrace/iotrace.conf
/etc/iotrace/capture.conf"
REPO=/var/lib/iotrace
LABEL=iotrace-pkgtest-$$

# --- capabilities: fail loudly -----------------------------------------------
[ "$(id -u)" = 0 ] || die "must run as root (installs a package, loop devices, BPF)"
[ -r /sys/kernel/btf/vmlinux ] || die "kernel has no BTF (/sys/kernel/btf/vmlinux)"
for tool in apt-get dpkg dpkg-deb dpkg-shlibdeps rpm rpm2cpio rpmbuild cpio objdump readelf \
	cpack losetup dd truncate python3 groff man systemd-analyze sha256sum; do
	command -v "$tool" >/dev/null || die "'$tool' is not installed (scripts/install-deps.sh installs it)"
done
[ -r /usr/share/bash-completion/bash_completion ] ||
	die "bash-completion is not installed (scripts/install-deps.sh installs it)"
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null
[ -e /dev/loop-control ] || die "no loop device support (/dev/loop-control missing)"
if dpkg-query -W -f='${Status}' iotrace 2>/dev/null | grep -q 'installed\|config-files'; then
	die "an iotrace package is already on this machine; remove it first (dpkg --purge iotrace)"
fi

# --- setup and teardown ------------------------------------------------------
export DEBIAN_FRONTEND=noninteractive
T=$(mktemp -d /tmp/iotrace-pkg.XXXXXX)
IMG=
LOOP=
LN=
TRACER_PID=
REPO_EXISTED=0
REPO_MODE=
ETC_SAVED=0
[ -d "$REPO" ] && { REPO_EXISTED=1; REPO_MODE=$(stat -c %a "$REPO"); }
if [ -e /etc/iotrace ]; then
	# an /etc/iotrace not from a package (a manual install's config) would
	# make dpkg ask about the conffile; put it aside and back at the end
	mv /etc/iotrace "$T/etc-iotrace.saved" && ETC_SAVED=1
fi

cleanup() {
	local d label
	if [ -n "$TRACER_PID" ] && kill -0 "$TRACER_PID" 2>/dev/null; then
		kill -TERM "$TRACER_PID" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$TRACER_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$TRACER_PID" 2>/dev/null
		wait "$TRACER_PID" 2>/dev/null
	fi
	if dpkg-query -W -f='${Status}' iotrace 2>/dev/null | grep -q 'installed\|config-files'; then
		dpkg --purge iotrace >/dev/null 2>&1 || echo "teardown: cannot purge the iotrace package" >&2
	fi
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -n "$IMG" ] && rm -f "$IMG"
	# our traces only: new ones with our label, and new empty directories
	# (a tracer stopped before its first summary)
	for d in "$REPO"/kernel/*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		grep -qxF "$d" "$T/traces.before" 2>/dev/null && continue
		rmdir "$d" 2>/dev/null && continue
		label=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("label",""))' \
			"$d/octf.summary" 2>/dev/null)
		case $label in "$LABEL"*) rm -rf "$d" ;; esac
	done
	if [ "$REPO_EXISTED" = 1 ]; then
		chmod "$REPO_MODE" "$REPO"
	else
		rmdir "$REPO/kernel" "$REPO" 2>/dev/null
	fi
	if [ "$ETC_SAVED" = 1 ]; then
		rm -rf /etc/iotrace
		mv "$T/etc-iotrace.saved" /etc/iotrace
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ls -d "$REPO"/kernel/* >"$T/traces.before" 2>/dev/null

# the installed binary with the installed defaults, as a user runs it
inst() { env -u IOTRACE_TRACE_DIR -u IOTRACE_CONFIG -u IOTRACE_LOCK_FILE -u IOTRACE_DEBUG /usr/sbin/iotrace "$@"; }
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d=d[k]
print(d)' "$1" "$2" 2>/dev/null; }
mode_of() { stat -c '%a %U:%G' "$1" 2>/dev/null; }
# "name (>= v)" -> v for one package in a Depends line, empty if unversioned
dep_version() { tr ',' '\n' <<<"$1" | sed -n "s/^ *$2 *(>= *\([^)]*\)).*/\1/p"; }
# largest version of symbols NAME_x.y.z that the binary imports
max_symver() { objdump -T "$1" | grep -o "$2_[0-9][0-9.]*" | sed "s/^$2_//" | sort -uV | tail -1; }
version_le() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ]; }
matches() { grep -Eq -- "$1" <<<"$2"; }

# --- 1. build -----------------------------------------------------------------
phase "build the packages"
VERSION=$(sed -n 's/^project(iotrace VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
[ -n "$VERSION" ] || die "cannot read the project VERSION from CMakeLists.txt"
cmake --build "$BUILD" -j "$(nproc)" >"$T/build.log" 2>&1 || { tail -20 "$T/build.log"; die "build failed"; }
rm -f "$BUILD"/packages/iotrace_*.deb "$BUILD"/packages/iotrace-*.rpm
if ! (cd "$BUILD" && cpack) >"$T/cpack.log" 2>&1; then
	tail -30 "$T/cpack.log"
	die "cpack failed"
fi
check "cpack prints no warning" bash -c "! grep -qi 'warning' '$T/cpack.log'" ||
	grep -i -A3 warning "$T/cpack.log" | head -20
DEBS=("$BUILD"/packages/iotrace_*.deb)
RPMS=("$BUILD"/packages/iotrace-*.rpm)
[ ${#DEBS[@]} -eq 1 ] && [ -f "${DEBS[0]}" ] || die "expected one .deb in $BUILD/packages, got: ${DEBS[*]}"
[ ${#RPMS[@]} -eq 1 ] && [ -f "${RPMS[0]}" ] || die "expected one .rpm in $BUILD/packages, got: ${RPMS[*]}"
DEB=${DEBS[0]}
RPM=${RPMS[0]}
note "$(basename "$DEB") $(( $(stat -c %s "$DEB") / 1024 )) KiB, $(basename "$RPM") $(( $(stat -c %s "$RPM") / 1024 )) KiB"
check "deb file name is iotrace_${VERSION}-1_<arch>.deb" \
	test "$(basename "$DEB")" = "iotrace_${VERSION}-1_$(dpkg --print-architecture).deb"
check "rpm file name is iotrace-${VERSION}-1.<arch>.rpm" \
	test "$(basename "$RPM")" = "iotrace-${VERSION}-1.$(uname -m).rpm"

# --- 2. the .deb ---------------------------------------------------------------
phase "inspect the .deb"
dpkg-deb -I "$DEB" >"$T/deb.info" || fail "dpkg-deb -I"
f() { dpkg-deb -f "$DEB" "$1"; }
check "deb Package: iotrace" test "$(f Package)" = iotrace
check "deb Version: $VERSION-1" test "$(f Version)" = "$VERSION-1"
check "deb Architecture: $(dpkg --print-architecture)" test "$(f Architecture)" = "$(dpkg --print-architecture)"
check "deb Maintainer is 'Name <email>'" matches '^[^<]+ <[^@>]+@[^>]+>$' "$(f Maintainer)"
check "deb Section admin, Priority optional" test "$(f Section) $(f Priority)" = "admin optional"
desc_ok() { [ "$(head -1 <<<"$1")" = "Linux block I/O tracer writing OCTF traces" ] && [ "$(wc -l <<<"$1")" -ge 3 ]; }
check "deb Description: summary line and a long text" desc_ok "$(f Description)"
DEPENDS=$(f Depends)
note "Depends: $DEPENDS"
dep_names=$(tr ',' '\n' <<<"$DEPENDS" | sed 's/(.*//; s/ //g' | sed '/^$/d')
check "deb Depends names exactly: $DEB_DEPENDS_NAMES" \
	test "$(sort <<<"$dep_names" | tr '\n' ' ')" = "$DEB_DEPENDS_NAMES "
check "deb Depends has no duplicate" test -z "$(sort <<<"$dep_names" | uniq -d)"
for p in $dep_names; do
	check "deb dependency $p is a package of this distribution" \
		bash -c "apt-cache show '$p' >/dev/null 2>&1"
done

mkdir -p "$T/deb" "$T/shl/debian"
dpkg-deb -x "$DEB" "$T/deb"
touch "$T/shl/debian/control"
if shl=$(cd "$T/shl" && dpkg-shlibdeps -O "$T/deb/usr/sbin/iotrace" 2>/dev/null); then
	shl=${shl#shlibs:Depends=}
	note "dpkg-shlibdeps: $shl"
	while IFS= read -r item; do
		name=$(sed 's/(.*//; s/ //g' <<<"$item")
		[ -n "$name" ] || continue
		need=$(dep_version "$item" "$name")
		have=$(dep_version "$DEPENDS" "$name")
		if ! grep -qx "$name" <<<"$dep_names"; then
			fail "deb Depends lacks $name, which the binary links (dpkg-shlibdeps)"
		elif [ -n "$need" ] && { [ -z "$have" ] || ! dpkg --compare-versions "$have" ge "$need"; }; then
			fail "deb Depends has '$name${have:+ (>= $have)}'; the binary needs $name (>= $need)"
		else
			ok "deb Depends covers $item"
		fi
	done < <(tr ',' '\n' <<<"$shl")
else
	fail "dpkg-shlibdeps on the packaged binary"
fi

check "deb conffiles: iotrace.conf and capture.conf" test "$(dpkg-deb -I "$DEB" conffiles | sort | tr '\n' ' ')" = \
	"/etc/iotrace/capture.conf /etc/iotrace/iotrace.conf "
dpkg-deb -c "$DEB" | awk '{ p = $6; sub(/^\./, "", p); sub(/\/$/, "", p); print $1, $2, p }' >"$T/deb.list"
while IFS= read -r p; do
	check "deb has $p" grep -q " $p\$" "$T/deb.list"
done <<<"$PKG_FILES"
check "deb /usr/sbin/iotrace -rwxr-xr-x root/root" grep -qx -- '-rwxr-xr-x root/root /usr/sbin/iotrace' "$T/deb.list"
check "deb /var/lib/iotrace drwx------ root/root" grep -qx -- 'drwx------ root/root /var/lib/iotrace' "$T/deb.list"
check "deb /etc/iotrace/iotrace.conf -rw-r--r--" grep -qx -- '-rw-r--r-- root/root /etc/iotrace/iotrace.conf' "$T/deb.list"
check "deb holds only iotrace's files (no stray install)" \
	test -z "$(awk '$1 !~ /^d/ { print $3 }' "$T/deb.list" | grep -vxF "$PKG_FILES")"
if [ "$STATIC_LIBS" = 1 ]; then
	check "deb binary links only the C library (IOTRACE_STATIC_LIBS)" test \
		-z "$(readelf -d "$T/deb/usr/sbin/iotrace" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' |
			grep -vx -e libc.so.6 -e libm.so.6)"
fi
check "deb binary is stripped" bash -c "! readelf -S '$T/deb/usr/sbin/iotrace' | grep -q '\.debug_info'"
check "deb unit runs /usr/sbin/iotrace" grep -q '^ExecStart=/usr/sbin/iotrace ' "$T/deb/usr/lib/systemd/system/iotrace@.service"
check "deb config: trace-repository-path=/var/lib/iotrace" \
	grep -qx 'trace-repository-path=/var/lib/iotrace' "$T/deb/etc/iotrace/iotrace.conf"

mkdir -p "$T/debctl"
dpkg-deb -e "$DEB" "$T/debctl"
for s in postinst prerm postrm; do
	check "deb $s is executable and parses (sh -n)" bash -c "[ -x '$T/debctl/$s' ] && sh -n '$T/debctl/$s'"
done
check "deb postinst makes /var/lib/iotrace 0700" grep -q 'chmod 0700 /var/lib/iotrace' "$T/debctl/postinst"
check "deb maintainer scripts never delete /var/lib/iotrace" \
	bash -c "! grep -hv '^[[:space:]]*#' '$T/debctl/prerm' '$T/debctl/postrm' '$T/debctl/postinst' |
		grep -E 'rm .*/var/lib|rmdir .*/var/lib'"

# --- 3. the .rpm ---------------------------------------------------------------
phase "inspect the .rpm"
q() { rpm -qp --qf "$1" "$RPM" 2>/dev/null; }
check "rpm Name/Version/Release: iotrace $VERSION 1" test "$(q '%{NAME} %{VERSION} %{RELEASE}')" = "iotrace $VERSION 1"
check "rpm License: BSD-3-Clause" test "$(q '%{LICENSE}')" = BSD-3-Clause
check "rpm Arch: $(uname -m)" test "$(q '%{ARCH}')" = "$(uname -m)"
check "rpm Packager is the deb Maintainer" test "$(q '%{PACKAGER}')" = "$(f Maintainer)"
# sed, not head: dpkg-deb killed by SIGPIPE would leave its /tmp/dpkg-deb.* behind
check "rpm Summary" test "$(q '%{SUMMARY}')" = "$(dpkg-deb -f "$DEB" Description | sed -n 1p)"
check "rpm Description is the long text" bash -c "rpm -qp --qf '%{DESCRIPTION}' '$RPM' | grep -q 'tracepoints only'"
rpm -qpR "$RPM" >"$T/rpm.req" 2>/dev/null
note "Requires: $(grep -v '^rpmlib(' "$T/rpm.req" | sort -u | tr '\n' ' ')"
req_names=$(grep -v -e '^rpmlib(' -e '^/bin/sh$' "$T/rpm.req" | awk '{ print $1 }')
check "rpm Requires names exactly: $RPM_REQUIRES_NAMES" \
	test "$(sort <<<"$req_names" | tr '\n' ' ')" = "$RPM_REQUIRES_NAMES "
check "rpm Requires has no duplicate" test -z "$(sort <<<"$req_names" | uniq -d)"
check "rpm has no autoreq soname requirements" bash -c "! grep -q '\.so' '$T/rpm.req'"
check "rpm /bin/sh only for scriptlets" test "$(rpm -qp --requires "$RPM" | grep -c '^/bin/sh')" \
	= "$(rpm -qp --qf '[%{REQUIREFLAGS:deptype}\n]' "$RPM" | grep -c -e post -e pre)"
mkdir -p "$T/rpm"
(cd "$T/rpm" && rpm2cpio "$RPM" | cpio -idm --quiet) || fail "rpm2cpio | cpio"
RBIN=$T/rpm/usr/sbin/iotrace
rpm_ver() { awk -v n="$1" '$1 == n && $2 == ">=" { v = $3; sub(/^[0-9]+:/, "", v); print v }' "$T/rpm.req"; }
for lib in $(readelf -d "$RBIN" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p'); do
	pkg=${RPM_PKG_OF[$lib]:-}
	if [ -z "$pkg" ]; then
		fail "rpm: the binary links $lib, which has no package here; add it to CPACK_RPM_PACKAGE_REQUIRES and RPM_PKG_OF"
	else
		check "rpm Requires $pkg for NEEDED $lib" grep -qx "$pkg" <<<"$req_names"
	fi
done
for pair in GLIBC:glibc LIBBPF:libbpf LIBPROTOBUF_C:protobuf-c; do
	used=$(max_symver "$RBIN" "${pair%%:*}")
	decl=$(rpm_ver "${pair#*:}")
	[ -n "$used" ] || continue
	check "rpm ${pair#*:} >= ${decl:-?} covers symbols ${pair%%:*}_$used" version_le "$used" "${decl:-0}"
done
rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILEFLAGS:fflags} %{FILENAMES}\n]' \
	"$RPM" >"$T/rpm.list" 2>/dev/null
while IFS= read -r p; do
	check "rpm has $p" grep -q " $p\$" "$T/rpm.list"
done <<<"$PKG_FILES"
check "rpm /var/lib/iotrace drwx------ root:root" grep -qx 'drwx------ root:root  /var/lib/iotrace' "$T/rpm.list"
check "rpm /usr/sbin/iotrace -rwxr-xr-x root:root" grep -qx -- '-rwxr-xr-x root:root  /usr/sbin/iotrace' "$T/rpm.list"
check "rpm iotrace.conf is %config(noreplace)" grep -qx -- '-rw-r--r-- root:root cn /etc/iotrace/iotrace.conf' "$T/rpm.list"
check "rpm capture.conf is %config(noreplace)" grep -qx -- '-rw-r--r-- root:root cn /etc/iotrace/capture.conf' "$T/rpm.list"
check "rpm LICENSE is %license" grep -Eq ' [a-z]*l[a-z]* /usr/share/doc/iotrace/LICENSE$' "$T/rpm.list"
check "rpm owns no system directory" \
	bash -c "! awk '{ print \$NF }' '$T/rpm.list' | grep -qx -e /usr -e /usr/sbin -e /var -e /var/lib -e /etc \
		-e /usr/share/man/man8 -e /usr/lib/systemd/system -e /usr/share/bash-completion/completions -e '/usr/lib/.build-id.*'"
check "rpm and deb hold the same files" test \
	"$(awk '$1 !~ /^d/ { print $NF }' "$T/rpm.list" | sort | tr '\n' ' ')" = \
	"$(awk '$1 !~ /^d/ { print $3 }' "$T/deb.list" | sort | tr '\n' ' ')"
check "rpm and deb hold the same unit, config and man page" bash -c "
	for p in usr/lib/systemd/system/iotrace@.service etc/iotrace/iotrace.conf etc/iotrace/capture.conf \
		usr/share/man/man8/iotrace.8.gz usr/share/bash-completion/completions/iotrace; do
		cmp -s '$T/rpm/'\$p '$T/deb/'\$p || { echo \"differs: \$p\"; exit 1; }
	done"
rpm -qp --scripts "$RPM" >"$T/rpm.scripts" 2>/dev/null
check "rpm %post makes /var/lib/iotrace 0700" grep -q 'chmod 0700 /var/lib/iotrace' "$T/rpm.scripts"
check "rpm scriptlets never delete /var/lib/iotrace" \
	bash -c "! grep -v '^[[:space:]]*#' '$T/rpm.scripts' | grep -E 'rm .*/var/lib|rmdir .*/var/lib'"

# --- 4. docs -------------------------------------------------------------------
phase "man page and completion cover every option"
MAN_SRC=$SRC/packaging/iotrace.8
COMPLETION=$T/deb/usr/share/bash-completion/completions/iotrace
BIN=$T/deb/usr/sbin/iotrace
check "man page renders without warnings (groff -ww)" \
	bash -c "[ -z \"\$(zcat '$T/deb/usr/share/man/man8/iotrace.8.gz' | groff -man -Tutf8 -ww -z 2>&1)\" ]"
check "man page .TH names version $VERSION" grep -q "^\.TH IOTRACE 8 .*\"iotrace $VERSION\"" "$MAN_SRC"
# Open-CAS's two lines, which scripts read
check "binary -V says $VERSION" test "$("$BIN" -V)" = "$(printf 'Name: iotrace\nVersion: %s' "$VERSION")"
for s in NAME SYNOPSIS DESCRIPTION COMMANDS EXAMPLES "EXIT STATUS" ENVIRONMENT FILES "TRACE FORMAT" \
	"KERNEL REQUIREMENTS" SYSTEMD "SEE ALSO"; do
	check "man page has section $s" grep -q "^\.SH \"*$s\"*\$" "$MAN_SRC"
done

# Bash completion of a command line (the cursor at its end), as bash calls
# the completion function: COMP_WORDS split at blanks and at the
# COMP_WORDBREAKS characters (= and : become words of their own). Prints
# COMPREPLY, one per line.
complete_line() {
	local -a words
	mapfile -t words < <(python3 -c '
import re, sys
line = sys.argv[1]
words = []
for tok in line.split():
    words += [w for w in re.split(r"([=:]+)", tok) if w]
if line.endswith(" "):
    words.append("")
print("\n".join(words))' "$1")
	env -u IOTRACE_TRACE_DIR -u IOTRACE_CONFIG PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	bash --norc --noprofile -c '
		comp=$1 COMP_LINE=$2; shift 2
		source /usr/share/bash-completion/bash_completion
		source "$comp"
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_iotrace "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$1" "${words[@]}"
}
# options in a help text: "-X, --long", "-X|--long", "--long"
# (only in the usage line and the lines that define options, not in prose)
help_opts() {
	grep -E -- '^Usage:|^ +-' | grep -oE -- '(^|[^a-z-])(-[A-Za-z]|--[a-z][a-z0-9-]*)' |
		grep -oE -- '-[-a-zA-Z0-9]+' | grep -vx -- '-' | sort -u
}
"$BIN" -H | help_opts >"$T/opts.top"
complete_line "iotrace " >"$T/comp.top"
missing=$(grep -vxFf "$T/comp.top" "$T/opts.top" | tr '\n' ' ')
check "completion offers every command of iotrace -H${missing:+ (missing: $missing)}" test -z "$missing"
for cmd in -S -M -P -C; do
	long=$(grep -oE -- "$cmd, --[a-z-]+" <(cat "$T/opts.top"; "$BIN" -H) | head -1 | sed 's/.*, //')
	"$BIN" "$cmd" -H | help_opts | grep -vx -e "$cmd" -e "$long" >"$T/opts$cmd"
	complete_line "iotrace $cmd -" >"$T/comp$cmd"
	missing=$(grep -vxFf "$T/comp$cmd" "$T/opts$cmd" | tr '\n' ' ')
	check "completion offers every option of iotrace $cmd -H${missing:+ (missing: $missing)}" test -z "$missing"
	missing=
	for o in $(grep -- '^--' "$T/opts$cmd"); do
		grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$MAN_SRC" || missing+="$o "
	done
	check "man page names every long option of iotrace $cmd -H${missing:+ (missing: $missing)}" test -z "$missing"
done

# --- 5. install ------------------------------------------------------------------
phase "install the .deb"
if [ "$REPO_EXISTED" = 0 ]; then
	# as an earlier manual install might have left it
	mkdir -m 0755 "$REPO"
fi
t0=$SECONDS
if apt-get install -y -q --no-install-recommends "$DEB" >"$T/apt-install.log" 2>&1; then
	ok "apt-get install ./$(basename "$DEB") ($((SECONDS - t0)) s)"
else
	tail -20 "$T/apt-install.log"
	die "apt-get install ./$(basename "$DEB")"
fi
check "dpkg: iotrace $VERSION-1 installed, dependencies satisfied" \
	test "$(dpkg-query -W -f='${Status} ${Version}' iotrace)" = "install ok installed $VERSION-1"
check "dpkg --audit iotrace finds nothing" test -z "$(dpkg --audit iotrace 2>&1)"
while IFS= read -r p; do
	check "installed $p" test -e "$p"
done <<<"$PKG_FILES"
check "installed /usr/sbin/iotrace -V: Version: $VERSION" test "$(inst -V | sed -n 's/^Version: //p')" = "$VERSION"
check "iotrace in PATH is /usr/sbin/iotrace" test "$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v iotrace)" = /usr/sbin/iotrace
check "man -w iotrace: /usr/share/man/man8/iotrace.8.gz" test "$(man -w iotrace 2>/dev/null)" = /usr/share/man/man8/iotrace.8.gz
check "man 8 iotrace renders EXIT STATUS" bash -c "MANWIDTH=80 man -P cat 8 iotrace 2>/dev/null | grep -q '^EXIT STATUS'"
check "/var/lib/iotrace is 700 root:root (postinst fixed a 755 one)" test "$(mode_of "$REPO")" = "700 root:root"
check "installed config: repository /var/lib/iotrace" test "$(inst -C -G)" = '{"path":"/var/lib/iotrace"}'
check "/etc/iotrace/iotrace.conf is a conffile" \
	bash -c "dpkg-query -W -f='\${Conffiles}' iotrace | grep -q '/etc/iotrace/iotrace.conf '"
UNIT=/usr/lib/systemd/system/iotrace@.service
check "systemd-analyze verify iotrace@loop0.service: no complaint" \
	bash -c "out=\$(timeout 60 systemd-analyze verify --man=no /usr/lib/systemd/system/iotrace@loop0.service 2>&1); rc=\$?
		[ \$rc -eq 0 ] && [ -z \"\$out\" ] || { echo \"\$out\"; exit 1; }"

# --- 6. trace with the installed binary ------------------------------------------
phase "trace a loop device with the installed binary"
IMG=$T/disk.img
truncate -s 64M "$IMG"
LOOP=$(losetup -f --show "$IMG") || die "losetup"
LN=${LOOP#/dev/}
note "loop device $LOOP"
# waits until a trace of ours says RUNNING (the programs are attached);
# prints its directory
wait_running() {
	local d s
	for _ in $(seq 100); do
		for d in "$REPO"/kernel/*/; do
			d=${d%/}
			grep -qxF "$d" "$T/traces.before" 2>/dev/null && continue
			grep -qxF "$d" "$T/traces.seen" 2>/dev/null && continue
			s=$d/octf.summary
			if [ "$(json_get "$s" label)" = "$1" ] && [ "$(json_get "$s" state)" = RUNNING ]; then
				echo "$d" >>"$T/traces.seen"
				echo "$d"
				return 0
			fi
		done
		kill -0 "$TRACER_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
touch "$T/traces.seen"
inst -S -d "$LN" -t 1 -l "$LABEL" >"$T/trace1.json" 2>"$T/trace1.err" &
TRACER_PID=$!
if TDIR=$(wait_running "$LABEL"); then
	dd if=/dev/urandom of="$LOOP" bs=1M count=4 oflag=direct status=none
	wait "$TRACER_PID"
	rc=$?
	TRACER_PID=
	check "installed tracer -t 1 exits 0" test "$rc" = 0 || cat "$T/trace1.err"
	check "summary: COMPLETE, time limit, device $LN" \
		test "$(json_get "$T/trace1.json" state) $(json_get "$T/trace1.json" tags.stopReason) $(json_get "$T/trace1.json" tags.devices)" \
		= "COMPLETE time limit $LN"
	REL=$(json_get "$T/trace1.json" tracePath)
	check "trace is in /var/lib/iotrace ($REL)" test "$REPO/$REL" = "$TDIR"
	check "trace directory 700, files 600" bash -c "[ \"\$(stat -c %a '$TDIR')\" = 700 ] &&
		[ -z \"\$(find '$TDIR' -type f ! -perm 600)\" ]"
	check "iotrace -M -L lists it" bash -c "env -u IOTRACE_TRACE_DIR -u IOTRACE_CONFIG /usr/sbin/iotrace -M -L | grep -qF '\"$REL\"'"
	if inst -P --io --raw -p "$REL" >"$T/events.json" 2>"$T/parse.err"; then
		ok "iotrace -P --io --raw -p $REL exits 0"
	else
		fail "iotrace -P --io --raw -p $REL exits 0"
		cat "$T/parse.err"
	fi
	sectors=$(python3 - "$T/events.json" "$LN" <<-'EOF'
		import json, sys
		dev = None
		written = 0
		for line in open(sys.argv[1]):
		    e = json.loads(line)
		    if "deviceDescription" in e and e["deviceDescription"]["name"] == sys.argv[2]:
		        dev = e["deviceDescription"]["id"]
		    io = e.get("io")
		    if io and io.get("deviceId") == dev and io.get("operation") == "Write":
		        written += int(io["len"])
		print(written if dev else "no device")
	EOF
	)
	check "parsed trace: 8192 sectors written to $LN (got $sectors)" test "$sectors" = 8192
else
	fail "the installed tracer did not start (no RUNNING trace)"
	cat "$T/trace1.err"
fi

# --- 7. the systemd unit's command line ------------------------------------------
phase "iotrace@$LN.service ExecStart, run directly, stopped with SIGTERM"
UNIT_NAME=iotrace@$LN.service
cat >"$T/capture.conf" <<EOF
# as in /etc/iotrace/capture.conf
IOTRACE_BUFFER=8
IOTRACE_COMPRESS=none
IOTRACE_LABEL="$LABEL capture"
EOF
# systemd's expansion of our ExecStart: specifiers, then each word
# "\${NAME}" becomes exactly one argument; Environment= first, then the
# EnvironmentFile overrides
unit_argv() {
	python3 - "$UNIT" "$1" "$2" "$3" <<-'EOF'
		import re, sys
		unit, conf, inst, name = sys.argv[1:]
		spec = lambda s: s.replace("%I", inst).replace("%i", inst).replace("%n", name).replace("%%", "%")
		env, execstart = {}, None
		for line in open(unit):
		    line = line.strip()
		    if line.startswith("Environment="):
		        k, v = line[len("Environment="):].split("=", 1)
		        env[k] = spec(v)
		    elif line.startswith("EnvironmentFile=-"):
		        assert line == "EnvironmentFile=-/etc/iotrace/capture.conf", line
		    elif line.startswith("ExecStart="):
		        execstart = line[len("ExecStart="):]
		for line in open(conf):
		    line = line.strip()
		    if not line or line.startswith("#"):
		        continue
		    k, v = line.split("=", 1)
		    if len(v) >= 2 and v[0] == v[-1] == '"':
		        v = v[1:-1]
		    env[k] = v
		assert '"' not in execstart and "'" not in execstart, "quotes: emulation too simple"
		for w in execstart.split():
		    w = spec(w)
		    m = re.fullmatch(r"\$\{(\w+)\}", w)
		    print(env.get(m.group(1), "") if m else w)
	EOF
}
mapfile -t ARGV < <(unit_argv "$T/capture.conf" "$LN" "$UNIT_NAME")
note "ExecStart: ${ARGV[*]}"
check "ExecStart: the installed binary, device $LN, no-limit defaults, buffer 8, no compression, label with spaces" \
	test "${ARGV[*]}" = "/usr/sbin/iotrace --start-tracing --devices $LN --time 4294967295 --size 1073741824 --buffer 8 --compress none --label $LABEL capture"
env -u IOTRACE_TRACE_DIR -u IOTRACE_CONFIG -u IOTRACE_LOCK_FILE "${ARGV[@]}" >"$T/unit.json" 2>"$T/unit.err" &
TRACER_PID=$!
if UDIR=$(wait_running "$LABEL capture"); then
	dd if=/dev/urandom of="$LOOP" bs=64k count=4 oflag=direct status=none
	t0=$(date +%s.%N)
	kill -TERM "$TRACER_PID"
	wait "$TRACER_PID"
	rc=$?
	t1=$(date +%s.%N)
	TRACER_PID=
	note "stopped $(python3 -c "print(f'{$t1 - $t0:.2f}')") s after SIGTERM"
	check "unit command exits 0 on SIGTERM (systemctl stop)" test "$rc" = 0 || cat "$T/unit.err"
	check "unit trace summary: COMPLETE, stopReason signal, label '$LABEL capture'" \
		test "$(json_get "$UDIR/octf.summary" state)|$(json_get "$UDIR/octf.summary" tags.stopReason)|$(json_get "$UDIR/octf.summary" label)" \
		= "COMPLETE|signal|$LABEL capture"
	check "unit trace parses" bash -c "env -u IOTRACE_TRACE_DIR /usr/sbin/iotrace -P --io --raw -p '$UDIR' | grep -q '\"io\"'"
	check "unit trace: raw OCTF files, as IOTRACE_COMPRESS=none asks" \
		bash -c "ls '$UDIR'/octf.trace.* >/dev/null && ! ls '$UDIR'/*.zst 2>/dev/null"
else
	fail "the unit's command line did not start tracing"
	cat "$T/unit.err"
fi

# --- 8. bash completion ----------------------------------------------------------
phase "bash completion (installed script, bash-completion loaded)"
COMPLETION=/usr/share/bash-completion/completions/iotrace
comp_has() { complete_line "$2" | grep -qxF -- "$1"; }
check "'iotrace --st' completes to --start-tracing" test "$(complete_line "iotrace --st")" = --start-tracing
check "'iotrace --start-tracing --dev' offers --devices" comp_has --devices "iotrace --start-tracing --dev"
check "'iotrace -S -d lo' offers $LN" comp_has "$LN" "iotrace -S -d lo"
check "'iotrace -S -d lo' offers only loop devices" \
	test -z "$(complete_line "iotrace -S -d lo" | grep -v '^loop')"
check "'iotrace -S --devices=lo' offers $LN" comp_has "$LN" "iotrace -S --devices=lo"
# a loop device with nothing attached (size 0) the tracer refuses: not
# offered to it; the parser's --device offers it (a trace from elsewhere)
FREE=$(losetup -f) || die "losetup -f"
FREE=${FREE##*/}
check "'iotrace -S -d lo' does not offer $FREE, which has nothing attached" \
	bash -c '! grep -qxF -- "$1" <<<"$2"' _ "$FREE" "$(complete_line "iotrace -S -d lo")"
check "'iotrace -P --device lo' offers $FREE" comp_has "$FREE" "iotrace -P --io -p x --device lo"
comma_list_ok() {
	local out
	out=$(complete_line "iotrace -S -d $LN,")
	[ -n "$out" ] && ! grep -qv "^$LN," <<<"$out" && ! grep -qx "$LN,$LN" <<<"$out"
}
check "'iotrace -S -d $LN,' continues the list, without $LN again" comma_list_ok
check "'iotrace -S -d /dev/lo' offers /dev/$LN" comp_has "/dev/$LN" "iotrace -S -d /dev/lo"
check "'iotrace -S -t ' offers nothing (a number)" test -z "$(complete_line "iotrace -S -t ")"
check "'iotrace -P -f ' offers json, csv and table" test "$(complete_line "iotrace -P -f " | sort | tr '\n' ' ')" = "csv json table "
mkdir -p "$T/cgtrace" && printf '# iotrace.cgroups\n5\t/system.slice\n9\t/system.slice/slurmstepd.scope/job_42\n' \
	>"$T/cgtrace/iotrace.cgroups"
check "'iotrace -P --io -p TRACE --cgroup system.slice/s' offers the trace's job" \
	test "$(complete_line "iotrace -P --io -p $T/cgtrace --cgroup system.slice/s")" = system.slice/slurmstepd.scope/job_42
check "'iotrace -P -p TRACE --io --cgroup /' offers the trace's two paths" \
	test "$(complete_line "iotrace -P -p $T/cgtrace --io --cgroup /" | tr '\n' ' ')" = "/system.slice /system.slice/slurmstepd.scope/job_42 "
check "'iotrace -P --io --path=TRACE --cgroup sys' offers both without the /" \
	test "$(complete_line "iotrace -P --io --path=$T/cgtrace --cgroup sys" | wc -l)" = 2
if [ -n "${REL:-}" ]; then
	check "'iotrace -P --io --raw -p kernel/' offers $REL" comp_has "$REL" "iotrace -P --io --raw -p kernel/"
	check "'iotrace -M -R --prefix ker' offers $REL" comp_has "$REL" "iotrace -M -R --prefix ker"
	# readline replaces only what follows the last ':' of the word
	cur=${REL%:*}
	check "'iotrace -M -G --path $cur' offers '${REL#"${cur%:*}":}'" \
		comp_has "${REL#"${cur%:*}":}" "iotrace -M -G --path $cur"
	check "'iotrace -M -G --path=$cur' offers '${REL#"${cur%:*}":}'" \
		comp_has "${REL#"${cur%:*}":}" "iotrace -M -G --path=$cur"
fi
check "'iotrace -P -p /us' offers directories" comp_has /usr "iotrace -P -p /us"
check "without bash-completion: 'iotrace -S --dev' offers --devices" bash -c "
	PATH=/usr/sbin:/usr/bin:/sbin:/bin bash --norc --noprofile -c '
		source $COMPLETION; COMP_WORDS=(iotrace -S --dev); COMP_CWORD=2
		_iotrace iotrace --dev -S 2>/dev/null; printf \"%s\n\" \"\${COMPREPLY[@]}\"' | grep -qx -- --devices"

# --- 9. upgrade, remove, purge ----------------------------------------------------
phase "reinstall, remove, purge: traces stay"
(cd "$REPO" && find kernel -type f -newer "$T/traces.before" -exec sha256sum {} + 2>/dev/null | sort -k2) >"$T/sums.before"
note "$(wc -l <"$T/sums.before") trace files of this test under $REPO"
[ -s "$T/sums.before" ] || fail "no trace files to keep (tracing failed above)"
traces_intact() { diff <(cd "$REPO" && sha256sum $(awk '{ print $2 }' "$T/sums.before") 2>&1 | sort -k2) "$T/sums.before" >/dev/null; }
inst -C -S /var/lib/iotrace >/dev/null # rewrites the conffile: an admin's edit
conf_sum=$(sha256sum </etc/iotrace/iotrace.conf)
t0=$SECONDS
if dpkg -i "$DEB" >"$T/dpkg-reinstall.log" 2>&1 </dev/null; then
	ok "dpkg -i (reinstall, the upgrade path) ($((SECONDS - t0)) s)"
else
	cat "$T/dpkg-reinstall.log"
	fail "dpkg -i (reinstall)"
fi
check "after reinstall: traces unchanged" traces_intact
check "after reinstall: the edited iotrace.conf is kept" test "$(sha256sum </etc/iotrace/iotrace.conf)" = "$conf_sum"
check "after reinstall: /var/lib/iotrace 700" test "$(mode_of "$REPO")" = "700 root:root"

# a real upgrade: the same build as release 2
if (cd "$BUILD" && cpack -G DEB -D CPACK_DEBIAN_PACKAGE_RELEASE=2 -B "$T/upgrade") >"$T/cpack2.log" 2>&1 &&
	DEB2=$(ls "$T"/upgrade/iotrace_*-2_*.deb 2>/dev/null) && [ -n "$DEB2" ]; then
	t0=$SECONDS
	if apt-get install -y -q "$DEB2" >"$T/apt-upgrade.log" 2>&1 </dev/null; then
		ok "apt-get install ./$(basename "$DEB2") (upgrade $VERSION-1 -> $VERSION-2) ($((SECONDS - t0)) s)"
	else
		tail -20 "$T/apt-upgrade.log"
		fail "apt-get install ./$(basename "$DEB2") (upgrade)"
	fi
	check "after upgrade: iotrace $VERSION-2 installed" \
		test "$(dpkg-query -W -f='${Status} ${Version}' iotrace)" = "install ok installed $VERSION-2"
	check "after upgrade: traces unchanged" traces_intact
	check "after upgrade: the edited iotrace.conf is kept" test "$(sha256sum </etc/iotrace/iotrace.conf)" = "$conf_sum"
	check "after upgrade: /var/lib/iotrace 700" test "$(mode_of "$REPO")" = "700 root:root"
else
	tail -20 "$T/cpack2.log"
	fail "cpack of release 2 for the upgrade"
fi

t0=$SECONDS
if apt-get remove -y -q iotrace >"$T/apt-remove.log" 2>&1; then
	ok "apt-get remove iotrace ($((SECONDS - t0)) s)"
else
	cat "$T/apt-remove.log"
	fail "apt-get remove iotrace"
fi
check "after remove: /usr/sbin/iotrace is gone" test ! -e /usr/sbin/iotrace
check "after remove: man page, completion, unit are gone" bash -c "[ ! -e /usr/share/man/man8/iotrace.8.gz ] &&
	[ ! -e /usr/share/bash-completion/completions/iotrace ] && [ ! -e '$UNIT' ]"
check "after remove: dpkg state config-files" test "$(dpkg-query -W -f='${Status}' iotrace 2>/dev/null)" = "deinstall ok config-files"
check "after remove: config kept" test -f /etc/iotrace/iotrace.conf
check "after remove: traces unchanged" traces_intact
check "after remove: /var/lib/iotrace 700" test "$(mode_of "$REPO")" = "700 root:root"

t0=$SECONDS
if dpkg --purge iotrace >"$T/dpkg-purge.log" 2>&1; then
	ok "dpkg --purge iotrace ($((SECONDS - t0)) s)"
else
	cat "$T/dpkg-purge.log"
	fail "dpkg --purge iotrace"
fi
check "after purge: the package is gone" bash -c "! dpkg-query -W -f='\${Status}' iotrace 2>/dev/null | grep -q 'installed\|config-files'"
check "after purge: /etc/iotrace is gone" test ! -e /etc/iotrace
check "after purge: traces unchanged" traces_intact
check "after purge: /var/lib/iotrace 700" test "$(mode_of "$REPO")" = "700 root:root"
check "after purge: the traces still parse (build tree binary)" \
	bash -c "'$BUILD/src/iotrace' -P --io --raw -p '$REPO/$REL' | grep -q '\"io\"'"

phase "done"
finish
