# browserd — a browser server for AI agents.
# `make run` sets up and runs the daemon; `make test` sets up and runs every test.

GO      ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
BIN     := bin/browserd
ARGS    ?=
PKGS    := ./...
PREFIX  ?= $(HOME)/.local

# The commit `browserd --version` names, for a build where the go command
# stamps none (in a git worktree, or with -buildvcs=false).
VCS_PKG := github.com/browserd/browserd/internal/config
LDFLAGS := $(shell git rev-parse HEAD >/dev/null 2>&1 && \
	echo "-X $(VCS_PKG).buildCommit=$$(git rev-parse HEAD)" \
	"-X $(VCS_PKG).buildTime=$$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd)" \
	"-X $(VCS_PKG).buildModified=$$(test -z "$$(git status --porcelain 2>/dev/null)" && echo false || echo true)")

.PHONY: run build install test soak bench fuzz chromium thirdparty vet cross clean conformance-peers conformance-apps image image-test

run: chromium build
	$(BIN) serve $(ARGS)

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/browserd

# Puts browserd on the PATH: $(PREFIX)/bin/browserd (PREFIX defaults to
# ~/.local; make install PREFIX=/usr/local for every user).
install: build
	install -d $(PREFIX)/bin
	install -m 0755 $(BIN) $(PREFIX)/bin/browserd

chromium:
	@scripts/ensure-chromium.sh

# The third-party conformance corpus: widget libraries pinned in
# internal/testsite/thirdparty/package-lock.json, installed with npm and
# bundled with esbuild (scripts/build-thirdparty.sh).
thirdparty:
	@scripts/build-thirdparty.sh

vet:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# Vets for macOS and Windows (which type-checks every package, short of
# linking), which no machine here runs: the end-to-end suite is Linux's;
# the other systems are compiled and their platform-neutral parts
# unit-tested (on Linux). macOS on arm64 only: no file here is specific to
# an architecture, so amd64's vet could say nothing arm64's does not.
CROSS := darwin/arm64 windows/amd64

cross:
	@for p in $(CROSS); do \
		echo "vet for $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./... || exit 1; \
	done

# Every test (scripts/test.sh says how): the end-to-end suites against
# real headless Chromium — the conformance corpora (ours and the
# third-party one) and the cluster's on a throwaway PostgreSQL included —
# two at a time, each in a process of its own (cmd/testrun); beside them
# vet for Linux, macOS and Windows and the unit tests with the race
# detector. TEST_TIMES=DIR keeps every test's time in DIR/unit.txt and
# DIR/e2e.txt; E2E_PARALLEL sets how many end-to-end tests run at once.
TEST_TIMES ?=
E2E_PARALLEL ?= 2
test: chromium
	GO=$(GO) MAKE=$(MAKE) TEST_TIMES=$(TEST_TIMES) E2E_PARALLEL=$(E2E_PARALLEL) scripts/test.sh

# The whole suite under load: `.ci/run` on a fresh clone of HEAD, SOAK
# times in a row (5), with LOAD CPU-bound processes of the script's own
# beside each run (2); prints each run's failures and a table of the runs
# for docs/testing.md (scripts/soak.sh). Logs in SOAK_DIR.
SOAK ?= 5
LOAD ?= 2
soak:
	SOAK=$(SOAK) LOAD=$(LOAD) scripts/soak.sh

# The conformance corpus driven through Playwright MCP by the same scripted
# agent, for docs/conformance.md's comparison (installed with npm; skipped,
# saying so, without npm). A peer's figures, not a test of browserd: kept
# out of `make test` and its 15-minute budget.
conformance-peers: chromium thirdparty
	BROWSERD_CONFORMANCE_PEERS=1 $(GO) test -count=1 -timeout 60m -v -run 'TestConformancePlaywright|TestConformanceThirdPartyPlaywright' ./internal/e2e/
	BROWSERD_CONFORMANCE_POINTS=1 $(GO) test -count=1 -timeout 15m -v -run 'TestConformanceThirdPartyPoints' ./internal/e2e/

# The real-application corpus (issue 48): MediaWiki, DokuWiki, Django's
# admin and Adminer from Debian's packages (scripts/install-apps.sh), 26
# everyday tasks scored from each application's own state, driven through
# browserd and then Playwright MCP (npm; skipped when it cannot be had).
# Not part of `make test`: run it before resolving a change to the
# snapshot, the waits or the hand. APPS=mediawiki,django:add-user runs a
# few (BROWSERD_CONFORMANCE_ONLY).
APPS ?=
conformance-apps: chromium
	@scripts/install-apps.sh
	BROWSERD_APPS=1 BROWSERD_CONFORMANCE_ONLY='$(APPS)' $(GO) test -count=1 -timeout 30m -v -run 'TestConformanceApps$$' ./internal/e2e/
	BROWSERD_APPS=1 BROWSERD_CONFORMANCE_PEERS=1 BROWSERD_CONFORMANCE_ONLY='$(APPS)' $(GO) test -count=1 -timeout 40m -v -run 'TestConformanceAppsPlaywright$$' ./internal/e2e/

# The container image (Dockerfile; compose.yaml runs three nodes of it on
# PostgreSQL): the binary built here, then podman build on a Debian base
# made with debootstrap, for machines that reach a Debian mirror but no
# container registry (scripts/image-test.sh). Needs root.
image:
	GO=$(GO) scripts/image-test.sh build

# Builds the image, then runs it as a container would be run (chroot into
# the mounted image, as its user, in namespaces of its own): HEALTHCHECK,
# admin's token in the volume, MCP over HTTP driving Chromium, a clean stop;
# and reads compose.yaml. Not part of `make test`: it needs root and a
# Debian mirror, and its first run takes minutes.
image-test:
	GO=$(GO) scripts/image-test.sh

bench: chromium
	$(GO) test -run '^$$' -bench . -benchtime 10x ./internal/e2e/ ./internal/snapshot/ ./internal/egress/ ./internal/chromeprofile/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 30s ./internal/snapshot/
	$(GO) test -run '^$$' -fuzz FuzzBuild -fuzztime 30s ./internal/snapshot/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./internal/urlpolicy/
	$(GO) test -run '^$$' -fuzz FuzzParseHost -fuzztime 30s ./internal/egress/
	$(GO) test -run '^$$' -fuzz FuzzOriginHostPort -fuzztime 30s ./internal/egress/
	$(GO) test -run '^$$' -fuzz '^FuzzUpstream$$' -fuzztime 30s ./internal/egress/
	$(GO) test -run '^$$' -fuzz '^FuzzBypass$$' -fuzztime 30s ./internal/egress/
	$(GO) test -run '^$$' -fuzz '^FuzzProxyAnswer$$' -fuzztime 30s ./internal/egress/
	$(GO) test -run '^$$' -fuzz FuzzWrap -fuzztime 30s ./internal/untrusted/
	$(GO) test -run '^$$' -fuzz FuzzDecodeCapture -fuzztime 30s ./internal/store/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./internal/storagestate/
	$(GO) test -run '^$$' -fuzz FuzzCreateSession -fuzztime 30s ./internal/httpapi/
	$(GO) test -run '^$$' -fuzz FuzzSplitReply -fuzztime 30s ./internal/cdp/
	$(GO) test -run '^$$' -fuzz FuzzCanonicalOrigin -fuzztime 30s ./internal/browser/
	$(GO) test -run '^$$' -fuzz FuzzResolve -fuzztime 30s ./internal/userdata/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./internal/replay/
	$(GO) test -run '^$$' -fuzz FuzzHAR -fuzztime 30s ./internal/network/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./internal/policy/
	$(GO) test -run '^$$' -fuzz FuzzComputerDecode -fuzztime 30s ./internal/computer/
	$(GO) test -run '^$$' -fuzz FuzzOrigin -fuzztime 30s ./internal/secrets/
	$(GO) test -run '^$$' -fuzz FuzzCheckName -fuzztime 30s ./internal/secrets/
	$(GO) test -run '^$$' -fuzz FuzzRedact -fuzztime 30s ./internal/redact/
	$(GO) test -run '^$$' -fuzz FuzzGlob -fuzztime 30s ./internal/routes/
	$(GO) test -run '^$$' -fuzz FuzzFor -fuzztime 30s ./internal/cdpfilter/
	$(GO) test -run '^$$' -fuzz FuzzCheck -fuzztime 30s ./internal/cdpproxy/

clean:
	rm -rf bin
