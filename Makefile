# A thin wrapper around CMake for the README's commands: `make demo` runs the
# whole pipeline on the bundled examples, `make test` runs the test suite.
BUILD ?= build
OUT ?= out
JOBS ?= 2

.PHONY: all deps demo test clean

all: $(BUILD)/hashbench

$(BUILD)/hashbench: FORCE
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

FORCE:

demo:
	@sh scripts/deps.sh demo
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHB_TESTS=OFF >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)
	@sh scripts/demo.sh $(BUILD) $(OUT)

test:
	@sh scripts/deps.sh test
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHB_TESTS=ON >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

clean:
	rm -rf $(BUILD) $(OUT)
