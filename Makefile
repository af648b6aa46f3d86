GO ?= go
PKGS := ./...

.PHONY: all test race vet fmt-check cross bench wine-test build

all: fmt-check vet test

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/vx ./cmd/vx

# The test command the README names and .ci/run calls.
test:
	$(GO) test -count=1 $(PKGS)

race:
	$(GO) test -race -count=1 $(PKGS)

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l . | grep -v '^testdata/' || true); \
	if [ -n "$$out" ]; then echo "gofmt wants to rewrite:"; echo "$$out"; exit 1; fi

cross:
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o /dev/null ./...
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) test -c -o /dev/null ./exec
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o /dev/null ./...
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o /dev/null ./...

# Windows binaries of the tests, run for real under Wine (see ../shared/wine/README.md).
wine-test:
	../shared/wine/wine-test.sh -count=1 ./exec/ ./workspace/ ./internal/... ./cmd/vx/

bench:
	./bench/run.sh
