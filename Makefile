GO ?= go

# Fuzz targets run by fuzz-smoke: package:Target.
FUZZ := snapshot:FuzzDecode snapshot:FuzzEncodingInjective anomaly:FuzzGate walker:FuzzParseDirents walker:FuzzParseBSDDirents baseline:FuzzDecodeRecord lockfile:FuzzParse claude:FuzzSettingsRoundTrip auditlog:FuzzParseLine snapshot:FuzzDiff monitor:FuzzServiceDefinitions claude:FuzzSettingsSubset claude:FuzzClaudeJSON claude:FuzzFrontmatter
FUZZTIME ?= 5s

.PHONY: build run test bench fuzz-smoke

# CGO_ENABLED=0: a static binary starts about a millisecond sooner (no
# dynamic loader, no libc), and the hook starts once per session. Tests keep
# cgo: the race detector needs it.
build:
	CGO_ENABLED=0 $(GO) build -o bin/skillwire ./cmd/skillwire

# The main job on this machine's real Claude Code directories. Exit 3 is a
# finding (something anomalous), not a failure of the command.
run:
	@CGO_ENABLED=0 $(GO) run ./cmd/skillwire scan || [ $$? -eq 3 ]

test:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...   # the macOS build (not run here) must not rot
	$(GO) test -race -count=1 ./...

bench:
	bash bench/bench.sh

fuzz-smoke:
	@set -e; for t in $(FUZZ); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) ./$$pkg; \
	done

bench-compare:
	bash bench/compare.sh

bench-daemon:
	bash bench/daemon.sh
