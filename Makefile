# Thin wrapper over CMake so the usual verbs work:
#   make          build (build/src/iotrace)
#   make check    install missing dependencies, build, run every test
#   make demo     install missing dependencies, build, trace a built-in
#                 workload on a temporary loop device and show the result
#   make deps     install the build dependencies (apt or dnf)
BUILD ?= build
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)

.PHONY: all build check demo deps clean

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

clean:
	rm -rf $(BUILD)
