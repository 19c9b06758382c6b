# bpf_object(NAME SOURCE DEPENDS hdr...)
#
# Compiles bpf/NAME.bpf.c with clang -target bpf (CO-RE, BTF), generates
# NAME.skel.h with `bpftool gen skeleton`, and defines the INTERFACE target
# NAME_skel whose include path holds the skeleton. Headers listed in DEPENDS
# (the shared event ABI) rebuild the object when they change.
#
# The vmlinux.h used is the checked-in one for the target architecture,
# unless IOTRACE_VMLINUX_H names another (for kernels whose BTF types the
# checked-in header lacks).
find_program(BPF_CLANG clang REQUIRED)
find_program(BPFTOOL bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)

string(TOLOWER ${CMAKE_SYSTEM_PROCESSOR} _bpf_arch)
if(_bpf_arch MATCHES "x86_64|amd64")
  set(BPF_TARGET_ARCH x86)
elseif(_bpf_arch MATCHES "aarch64|arm64")
  set(BPF_TARGET_ARCH arm64)
else()
  set(BPF_TARGET_ARCH ${_bpf_arch})
endif()

set(IOTRACE_VMLINUX_H "" CACHE FILEPATH "vmlinux.h to build the BPF programs against (default: bpf/vmlinux/<arch>/vmlinux.h)")

function(bpf_object name src)
  cmake_parse_arguments(BO "" "" "DEPENDS" ${ARGN})
  set(vmlinux_dir ${PROJECT_SOURCE_DIR}/bpf/vmlinux/${BPF_TARGET_ARCH})
  if(IOTRACE_VMLINUX_H)
    get_filename_component(vmlinux_dir ${IOTRACE_VMLINUX_H} DIRECTORY)
  endif()
  if(NOT EXISTS ${vmlinux_dir}/vmlinux.h)
    message(FATAL_ERROR "no vmlinux.h for ${BPF_TARGET_ARCH}: generate one with "
      "`bpftool btf dump file /sys/kernel/btf/vmlinux format c` and pass -DIOTRACE_VMLINUX_H=<file>")
  endif()

  set(out_dir ${CMAKE_CURRENT_BINARY_DIR})
  set(obj ${out_dir}/${name}.bpf.o)
  set(skel ${out_dir}/${name}.skel.h)
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${BPF_TARGET_ARCH}
            -Wall -Werror -I${vmlinux_dir} -I${CMAKE_CURRENT_SOURCE_DIR} -I${PROJECT_SOURCE_DIR}/bpf
            -c ${CMAKE_CURRENT_SOURCE_DIR}/${src} -o ${obj}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${src} ${vmlinux_dir}/vmlinux.h ${BO_DEPENDS}
    COMMENT "clang -target bpf ${src}")
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${BPFTOOL} gen skeleton ${obj} name ${name} > ${skel}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
    DEPENDS ${obj}
    COMMENT "bpftool gen skeleton ${name}")
  add_custom_target(${name}_skel_gen DEPENDS ${skel})
  add_library(${name}_skel INTERFACE)
  add_dependencies(${name}_skel ${name}_skel_gen)
  target_include_directories(${name}_skel INTERFACE ${out_dir})
  target_link_libraries(${name}_skel INTERFACE PkgConfig::LIBBPF)
endfunction()
