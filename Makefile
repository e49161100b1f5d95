GO ?= go

# Fuzz targets run by fuzz-smoke: package:Target.
# (one target a line, so parallel changes do not collide)
FUZZ :=
FUZZ += snapshot:FuzzDecode
FUZZ += snapshot:FuzzEncodingInjective
FUZZ += anomaly:FuzzGate
FUZZ += walker:FuzzParseDirents
FUZZ += walker:FuzzParseBSDDirents
FUZZ += baseline:FuzzDecodeRecord
FUZZ += lockfile:FuzzParse
FUZZ += claude/settings:FuzzRoundTrip
FUZZ += claude/hookio:FuzzEventInput
FUZZ += gate:FuzzResolve
FUZZ += auditlog:FuzzParseLine
FUZZ += snapshot:FuzzDiff
FUZZ += monitor:FuzzServiceDefinitions
FUZZ += baseline/legacy:FuzzParse
FUZZ += walker:FuzzSplitArg
FUZZ += claude/hookio:FuzzReadInput
FUZZ += anomaly:FuzzEscape
FUZZ += snapshot/content:FuzzDecodeObject
FUZZ += snapshot/content:FuzzParseIndex
FUZZ += internal/safefile:FuzzRead
FUZZ += claude/config:FuzzSettingsSubset
FUZZ += claude/config:FuzzFrontmatter
FUZZ += baseline:FuzzDecodeReference
FUZZ += snapshot/history:FuzzPrettyKeepsTheValue
FUZZ += auditlog/reconcile:FuzzWordDistanceIsSymmetricAndBounded
FUZZ += claude/config:FuzzWholeJSON
FUZZ += claude/config:FuzzClaudeJSONServers
FUZZ += claude:FuzzDisplayAndSplit
FUZZ += walker:FuzzInnerLink
FUZZ += snapshot/history:FuzzDiffTextIsEscaped
FUZZ += baseline:FuzzDecodeVersion
FUZZ += baseline:FuzzDecodeCached
FUZZ += claude:FuzzCommandScript
FUZZ += claude:FuzzAgentKeyIsIdempotent
FUZZ += gate/shellcmd:FuzzDecision
FUZZ += anomaly:FuzzQuote
FUZZ += claude/clientproc:FuzzAddDirArgs
FUZZ += claude/clientproc:FuzzAddedEnvironment
FUZZ += claude/pluginrecord:FuzzJSString
FUZZ += claude/workflow:FuzzName
FUZZ += claude/memkey:FuzzIsDirNameIsTheClientsPattern
FUZZTIME ?= 5s

.PHONY: build run test e2e e2e-latest shellcheck bench bench-client fuzz-smoke

# CGO_ENABLED=0: a static binary starts about a millisecond sooner (no
# dynamic loader, no libc), and the hook starts once per session. Tests keep
# cgo: the race detector needs it.
build:
	CGO_ENABLED=0 $(GO) build -o bin/ ./cmd/skillwire ./cmd/skillwire-ship ./cmd/skillwire-service

# The main job on this machine's real Claude Code directories. Exit 3 is a
# finding (something anomalous), not a failure of the command. The binary
# is built, then run: go run turns every non-zero exit into 1.
run: build
	@bin/skillwire scan || [ $$? -eq 3 ]

# staticcheck at a pinned version, built by go install on first use, so a
# machine with only Go runs the same checks as CI.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := bin/staticcheck-$(STATICCHECK_VERSION)/staticcheck

$(STATICCHECK):
	GOBIN=$(CURDIR)/$(@D) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

test: $(STATICCHECK)
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) vet -tags e2e ./e2e   # the real-client suite compiles here; it runs in make e2e
	GOOS=darwin $(GO) vet ./...   # the macOS build (not run here) must not rot
	$(STATICCHECK) ./...
	$(STATICCHECK) -tags e2e ./e2e
	GOOS=darwin $(STATICCHECK) ./...
	$(GO) test -race -count=1 ./...
	@$(MAKE) --no-print-directory shellcheck

# The real Claude Code client, from npm at the version pinned in
# e2e/CLAUDE_CODE_VERSION (CLAUDE_CODE_VERSION=latest: the newest), driven
# against a stand-in model on loopback. Needs npm; fails, never skips, when
# the client cannot be had. SKILLWIRE_E2E_CLAUDE=/path/to/claude uses
# another binary.
# Every client run is traced (strace, Debian package strace) for the
# coverage oracle: e2e/oracle.go.
CLAUDE_CODE_VERSION ?=
e2e:
	cd e2e && CLAUDE_CODE_VERSION=$(CLAUDE_CODE_VERSION) $(GO) test -tags e2e -count=1 -timeout 45m

# The same suite against the newest client on npm. Not in CI: the pinned
# version is what CI holds to; this says what the next one changes.
e2e-latest:
	@v=$$(npm view @anthropic-ai/claude-code version) && [ -n "$$v" ] && \
		echo "e2e-latest: Claude Code $$v" && \
		$(MAKE) --no-print-directory e2e CLAUDE_CODE_VERSION=$$v

# Every shell script of the repository: *.sh, and any file whose first line
# is a sh/bash shebang (.ci/run). Skipped, and said, without shellcheck.
shellcheck:
	@if ! command -v shellcheck >/dev/null; then \
		echo "shellcheck: not installed (Debian package shellcheck); shell scripts not checked"; \
	else \
		scripts=$$(find . -path ./.git -prune -o -type f -print0 | \
			xargs -0 awk 'FILENAME ~ /\.sh$$/ || FNR == 1 && /^#!.*[\/ ](ba)?sh( |$$)/ {print FILENAME} {nextfile}' | sort); \
		echo "shellcheck" $$scripts; \
		shellcheck -x $$scripts; \
	fi

# Inside the real client: start to first request with skillwire's hooks and
# without them, on a home like a real one (issue 34). Needs the e2e suite's
# client (npm). SKILLWIRE_BENCH_RUNS rounds, default 11.
bench-client:
	cd e2e && $(GO) test -tags e2e -count=1 -run '^$$' -bench TheClientsStartWithTheHooks -benchtime 1x -timeout 30m .

bench:
	bash internal/bench/bench.sh
	bash internal/bench/reuse.sh
	bash internal/bench/hook.sh

fuzz-smoke:
	@set -e; for t in $(FUZZ); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) ./$$pkg; \
	done

bench-compare:
	bash internal/bench/compare.sh

bench-reuse:
	bash internal/bench/reuse.sh

bench-daemon:
	bash internal/bench/daemon.sh
