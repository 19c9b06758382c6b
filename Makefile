# Thin wrapper over CMake so the usual verbs work:
#   make          build (build/src/iotrace)
#   make check    install missing dependencies, build, run every test
#   make demo     install missing dependencies, build, trace a built-in
#                 workload on a temporary loop device and show the result
#   make deps     install the build dependencies (apt or dnf)
#   make package  install missing dependencies, build, and make the .deb and
#                 .rpm in $(BUILD)/packages/ (CPack; see packaging/)
# the progress lines alone: no "Entering directory" for each of CMake's sub-makes
MAKEFLAGS += --no-print-directory
BUILD ?= build
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)

.PHONY: all build check demo deps package clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

deps:
	bash scripts/install-deps.sh

check: deps
	$(MAKE) build
	cd $(BUILD) && ctest --output-on-failure

demo: deps
	$(MAKE) build
	bash scripts/demo.sh $(BUILD)/src/iotrace

# Old packages are removed first so $(BUILD)/packages/ holds one of each.
package: deps
	$(MAKE) build
	rm -f $(BUILD)/packages/iotrace_*.deb $(BUILD)/packages/iotrace-*.rpm
	cd $(BUILD) && cpack
	@ls -1 $(BUILD)/packages/iotrace_*.deb $(BUILD)/packages/iotrace-*.rpm

clean:
	rm -rf $(BUILD)
