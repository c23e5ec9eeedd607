# A thin wrapper around CMake for the README's commands: `make demo` runs the
# whole pipeline on the bundled examples, `make test` runs the test suite,
# `make install` puts hashbench on the PATH (PREFIX, default /usr/local;
# DESTDIR honoured): the tool and its helpers in PREFIX/libexec/hashbench,
# PREFIX/bin/hashbench a link to it, the examples in PREFIX/share/hashbench.
BUILD ?= build
OUT ?= out
JOBS ?= 2
# ctest runs twice as many tests as cores at once: most tests wait more than
# they compute (sandbox starts, kills, timeouts); the hostile suite, five
# campaigns at once, counts as two (its PROCESSORS property).
TEST_JOBS ?= 4
PREFIX ?= /usr/local

.PHONY: all deps demo test install clean

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
	@cd $(BUILD) && ctest --output-on-failure -j$(TEST_JOBS)

# (a build folder made before keeps its settings; a new one builds no tests)
install:
	@[ -f $(BUILD)/CMakeCache.txt ] || \
		cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHB_TESTS=OFF >/dev/null
	@cmake --build $(BUILD) -j$(JOBS) --target hashbench hashbench-probe \
		hb_baseline_sm3 hb_baseline_sha256 hb_null
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"
	@echo "installed: $(DESTDIR)$(PREFIX)/bin/hashbench (hashbench --version, hashbench help)"

clean:
	rm -rf $(BUILD) $(OUT)
