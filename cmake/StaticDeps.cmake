# SPDX-License-Identifier: BSD-3-Clause
#
# IOTRACE_STATIC_LIBS: link libbpf (with libelf and zlib), libzstd and
# libprotobuf-c from their static archives, so that iotrace needs only the
# C library at run time.
#
# Why: loading and relocating five shared libraries took about 0.5 ms of
# each run (`iotrace -V`: 1.82 ms dynamic, 1.30 ms static, median of 41,
# same sitting), a sixteenth of the 8 ms `--statistics` budget of the
# parser benchmark; and the rpm built on Debian then does not depend on
# the target distribution's libbpf soname and version.
#
# The imported PkgConfig:: targets keep their include directories and
# compile flags; only what they link changes.

function(iotrace_static_archive out name)
  find_library(${out} NAMES lib${name}.a)
  if(NOT ${out})
    message(FATAL_ERROR "IOTRACE_STATIC_LIBS: no lib${name}.a (install its -dev package, "
      "or configure with -DIOTRACE_STATIC_LIBS=OFF to link the shared libraries)")
  endif()
endfunction()

if(IOTRACE_STATIC_LIBS)
  iotrace_static_archive(IOTRACE_LIBBPF_A bpf)
  iotrace_static_archive(IOTRACE_LIBELF_A elf)
  iotrace_static_archive(IOTRACE_LIBZ_A z)
  iotrace_static_archive(IOTRACE_LIBZSTD_A zstd)
  iotrace_static_archive(IOTRACE_LIBPROTOBUFC_A protobuf-c)
  # libbpf needs libelf, which needs zlib: archives in that order
  set_property(TARGET PkgConfig::LIBBPF PROPERTY INTERFACE_LINK_LIBRARIES
    ${IOTRACE_LIBBPF_A} ${IOTRACE_LIBELF_A} ${IOTRACE_LIBZ_A})
  set_property(TARGET PkgConfig::ZSTD PROPERTY INTERFACE_LINK_LIBRARIES ${IOTRACE_LIBZSTD_A})
  set_property(TARGET PkgConfig::PROTOBUFC PROPERTY INTERFACE_LINK_LIBRARIES
    ${IOTRACE_LIBPROTOBUFC_A})
endif()
