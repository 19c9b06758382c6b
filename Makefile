# Thin wrapper over CMake so the usual verbs work:
#   make          build (build/iotrace)
#   make check    build and run every test (unit, CLI, sample trace, root integration)
#   make demo     trace a built-in workload on a temporary loop device and show it
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

check: build
	cd $(BUILD) && ctest --output-on-failure

demo: build
	bash scripts/demo.sh $(BUILD)/iotrace

deps:
	bash scripts/install-deps.sh

clean:
	rm -rf $(BUILD)
