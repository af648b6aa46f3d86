GO ?= go
# The version stamped into release binaries and npm packages (semver, no leading v):
# the newest v* tag (git describe), else 0.1.0-dev. `make npm VERSION=1.2.3` overrides it.
VERSION ?= $(shell git describe --tags --match 'v[0-9]*' 2>/dev/null | sed 's/^v//' | grep . || echo 0.1.0-dev)
PKGS := ./...

.PHONY: all test race vet fmt-check cross bench wine-test build npm dist bazel-remote turbo-remote-cache otelcol

all: fmt-check vet test

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/vx ./cmd/vx
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/vx-remote ./cmd/vx-remote
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/vx-config ./cmd/vx-config

# The real REAPI server the remote cache's end-to-end tests run against
# (they skip without it). Built from the separate tools module, so that
# bazel-remote's dependencies never enter vx's go.mod.
bazel-remote: bin/bazel-remote
bin/bazel-remote: tools/go.mod tools/go.sum
	cd tools && CGO_ENABLED=0 $(GO) build -trimpath -o ../bin/bazel-remote github.com/buchgr/bazel-remote/v2

# A real OpenTelemetry collector's OTLP/HTTP receiver for vx run --otel's end-to-end tests (they skip without it;
# internal/otel/oteltest): tools/otelcol, its own module, so that the collector's dependencies never enter vx's go.mod.
otelcol: bin/otelcol
bin/otelcol: tools/otelcol/go.mod tools/otelcol/go.sum tools/otelcol/main.go tools/otelcol/config.go
	cd tools/otelcol && CGO_ENABLED=0 $(GO) build -trimpath -o ../../bin/otelcol .

# ducktors/turborepo-remote-cache, the turbo remote cache server the turbo end-to-end tests start (internal/remote/
# remotetest.StartTurbo), from the npm registry, pinned by tools/turborepo-remote-cache/package-lock.json.
TURBO_CACHE_DIR = bin/turborepo-remote-cache
turbo-remote-cache: $(TURBO_CACHE_DIR)/node_modules/turborepo-remote-cache/package.json
$(TURBO_CACHE_DIR)/node_modules/turborepo-remote-cache/package.json: tools/turborepo-remote-cache/package.json tools/turborepo-remote-cache/package-lock.json
	mkdir -p $(TURBO_CACHE_DIR)
	cp tools/turborepo-remote-cache/package.json tools/turborepo-remote-cache/package-lock.json $(TURBO_CACHE_DIR)/
	cd $(TURBO_CACHE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The test command the README names and .ci/run calls: about 4 minutes on a 2-core machine with a warm build cache,
# 5 min 22 s with four other busy processes on it (cmd/vx, the longest package, 3 to 3.5 minutes); each test bounds
# its own waits, so the package limit is only a last resort.
TIMEOUT ?= 30m
test:
	$(GO) test -count=1 -timeout $(TIMEOUT) $(PKGS)

race:
	$(GO) test -race -count=1 -timeout $(TIMEOUT) $(PKGS)

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l . | grep -v '^testdata/' || true); \
	if [ -n "$$out" ]; then echo "gofmt wants to rewrite:"; echo "$$out"; exit 1; fi

# Every system vx supports (docs/install.md): the six with release packages, then the BSDs, which build from
# source. AIX, Solaris and illumos are not supported (exec/unsupported.go stops a build there with a message).
CROSS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 \
	freebsd/amd64 freebsd/arm64 openbsd/amd64 netbsd/amd64 dragonfly/amd64

cross:
	@set -e; for p in $(CROSS); do echo "cross: $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) build -o /dev/null ./...; done
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) test -c -o /dev/null ./exec
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) vet ./...

# Windows binaries of the tests, run for real under Wine (see ../shared/wine/README.md).
wine-test:
	../shared/wine/wine-test.sh -count=1 ./exec/ ./workspace/ ./internal/... ./cmd/vx/

bench:
	./bench/run.sh

# npm packages under dist/npm/: @vxrun/vx and one package per platform, each unpacked and as a .tgz (docs/install.md).
npm:
	$(GO) run ./internal/release/mkdist -version $(VERSION) -out dist npm

# Release archives under dist/archives/: vx_<version>_<os>_<arch>.tar.gz (.zip for Windows) and checksums.txt.
dist:
	$(GO) run ./internal/release/mkdist -version $(VERSION) -out dist archives
