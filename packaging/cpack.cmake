# SPDX-License-Identifier: BSD-3-Clause
# rpm and deb packages: `make package` (top-level Makefile) or `cpack` in
# the build directory. Included from the top-level CMakeLists.txt; the
# files come from the install() rules (src/, packaging/CMakeLists.txt).
#
# Runtime dependencies are declared by hand, per family, and the generators'
# own detection is off:
# - CPack's dpkg-shlibdeps only works on a Debian build host, and it lists
#   the libraries the binary links directly (libbpf, libprotobuf-c, libzstd,
#   libc), not libelf and zlib, which libbpf needs.
# - rpmbuild's autoreq would add soname requirements (libbpf.so.1()(64bit),
#   libc.so.6(GLIBC_2.34)(64bit), ...) taken from the build host's
#   libraries, next to the package names below: each library twice, and on
#   a Debian build host derived from Debian's files.
# tests/package/test_packages.sh checks these lists against what the
# binary actually links (readelf NEEDED, dpkg-shlibdeps), so a new library
# or a raised minimum version fails the test instead of shipping silently.
#
# The glibc floor is the one thing that depends on the build host (a newer
# glibc can give the same source newer symbol versions), so it is not
# written here: cpack reads it from the built binary (cpack-project.cmake.in)
# and puts it where IOTRACE_GLIBC_MIN stands.

set(IOTRACE_PACKAGE_MAINTAINER "The iotrace authors <iotrace-maintainers@example.org>"
  CACHE STRING "Maintainer (Name <email>) written into the rpm and deb packages")

set(CPACK_PACKAGE_NAME iotrace)
set(CPACK_PACKAGE_VENDOR "The iotrace authors")
set(CPACK_PACKAGE_CONTACT "${IOTRACE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Linux block I/O tracer writing OCTF traces")
set(CPACK_PACKAGE_DESCRIPTION_FILE ${CMAKE_CURRENT_LIST_DIR}/description.txt)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_GENERATOR "DEB;RPM")
set(CPACK_SOURCE_GENERATOR "")
# Always /usr, whatever CMAKE_INSTALL_PREFIX `make install` uses.
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
# Debug info stays in the build tree; the packaged binary is stripped.
set(CPACK_STRIP_FILES ON)
# Fixed paths (/etc/iotrace, /var/lib/iotrace): not relocatable.
set(CPACK_PACKAGE_RELOCATABLE OFF)

# --- deb (Debian 12 / Ubuntu 24.04 package names) ---
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
# IOTRACE_STATIC_LIBS (the default) links everything but the C library in.
# Otherwise: minimum versions as dpkg-shlibdeps computes them from the
# symbols the binary uses (Debian 12); libelf1 and zlib1g are libbpf's,
# named because the tracer needs them whatever libbpf1's packaging says.
if(IOTRACE_STATIC_LIBS)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= IOTRACE_GLIBC_MIN)")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libbpf1 (>= 1:1.0.0), libc6 (>= IOTRACE_GLIBC_MIN), libelf1, libprotobuf-c1 (>= 1.3.1), libzstd1 (>= 1.5.2), zlib1g")
endif()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${CMAKE_CURRENT_LIST_DIR}/deb/conffiles
  ${CMAKE_CURRENT_LIST_DIR}/deb/postinst
  ${CMAKE_CURRENT_LIST_DIR}/deb/prerm
  ${CMAKE_CURRENT_LIST_DIR}/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# --- rpm (Fedora / RHEL 9 package names) ---
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_RELEASE 1)
set(CPACK_RPM_PACKAGE_LICENSE BSD-3-Clause)
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
file(READ ${CPACK_PACKAGE_DESCRIPTION_FILE} CPACK_RPM_PACKAGE_DESCRIPTION)
# Packager: the maintainer. No /usr/lib/.build-id links: they only serve a
# debuginfo package, which is not built.
set(CPACK_RPM_SPEC_MORE_DEFINE
  "%define packager ${IOTRACE_PACKAGE_MAINTAINER}\n%define _build_id_links none")
set(CPACK_RPM_PACKAGE_AUTOREQ OFF)
set(CPACK_RPM_PACKAGE_AUTOPROV OFF)
# glibc: the newest GLIBC_x symbol version the binary imports. libbpf: the binary links
# libbpf.so.1, which is libbpf >= 1.0 (Fedora's libbpf has epoch 2; its 0.x
# releases were libbpf.so.0). protobuf-c: symbols of LIBPROTOBUF_C_1.3.0.
if(IOTRACE_STATIC_LIBS)
  set(CPACK_RPM_PACKAGE_REQUIRES "glibc >= IOTRACE_GLIBC_MIN")
else()
  set(CPACK_RPM_PACKAGE_REQUIRES
    "glibc >= IOTRACE_GLIBC_MIN, libbpf >= 2:1.0.0, protobuf-c >= 1.3.0, libzstd, elfutils-libelf, zlib")
endif()
set(CPACK_RPM_POST_INSTALL_SCRIPT_FILE ${CMAKE_CURRENT_LIST_DIR}/rpm/post.sh)
set(CPACK_RPM_PRE_UNINSTALL_SCRIPT_FILE ${CMAKE_CURRENT_LIST_DIR}/rpm/preun.sh)
set(CPACK_RPM_POST_UNINSTALL_SCRIPT_FILE ${CMAKE_CURRENT_LIST_DIR}/rpm/postun.sh)
# System directories belong to filesystem, systemd, bash-completion, ...
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
  /usr/sbin /usr/share/man /usr/share/man/man8
  /usr/share/bash-completion /usr/share/bash-completion/completions
  /usr/lib/systemd /usr/lib/systemd/system /var /var/lib)
set(CPACK_RPM_USER_FILELIST
  "%config(noreplace) /etc/iotrace/iotrace.conf"
  "%config(noreplace) /etc/iotrace/capture.conf"
  "%dir %attr(0700,root,root) /var/lib/iotrace"
  "%license /usr/share/doc/iotrace/LICENSE"
  "%doc /usr/share/doc/iotrace/README.md")

# run by cpack before each generator, with the built binary's path
configure_file(${CMAKE_CURRENT_LIST_DIR}/cpack-project.cmake.in
  ${PROJECT_BINARY_DIR}/packaging/cpack-project.cmake.in.tmp @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/packaging/cpack-project.cmake
  INPUT ${PROJECT_BINARY_DIR}/packaging/cpack-project.cmake.in.tmp)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/packaging/cpack-project.cmake)

include(CPack)
