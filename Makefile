# Bifrost: `make` lists the targets. CI runs `.ci/run`, which runs
# `make check` and `make test`.

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
IMAGE   ?= bifrost
# make soak: how long it runs, and any more of its flags (go run ./scripts/soak -h).
DURATION   ?= 30m
SOAK_FLAGS ?=

# What the tests need on a fresh Debian machine besides Go, in one place.
# APT_DEPS holds "command:package" pairs: a package is installed only when
# its command is missing. NPM_DIRS holds directories whose package-lock.json
# is installed with `npm ci` when their node_modules is missing.
# gcc: `go test -race` needs cgo. chromium: the web UI test drives it headless.
# zbar-tools: the QR code test reads the pairing code back with zbarimg.
# podman, buildah, runc: the image test builds and runs the Dockerfile.
APT_DEPS := gcc:gcc chromium:chromium node:nodejs npm:npm mosquitto:mosquitto zbarimg:zbar-tools \
	podman:podman buildah:buildah runc:runc
NPM_DIRS := api/mcp/testdata/client

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.DEFAULT_GOAL := help

.PHONY: help build run-demo deps test image-test bench load soak check docker

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## build bin/bifrost
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o bin/bifrost ./cmd/bifrost

run-demo: ## run the hub with the simulated home on :3000
	go run ./cmd/bifrost serve --demo --data ./data

deps: ## install what the tests need (Debian; skips what is present)
	@command -v go >/dev/null 2>&1 || { echo "Go 1.26 or newer is needed: https://go.dev/dl/" >&2; exit 1; }
	@missing=""; \
	for dep in $(APT_DEPS); do \
		cmd="$${dep%%:*}"; command -v "$$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$$cmd" ] || missing="$$missing $${dep#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $$missing; \
	fi
	@for dir in $(NPM_DIRS); do \
		[ -d "$$dir/node_modules" ] || (cd "$$dir" && npm ci); \
	done

test: deps ## run every test, with the race detector (the image test too, when podman is here)
	go test -race -count=1 -timeout 30m ./...
	@command -v podman >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] || \
		echo "image test skipped: it needs podman, buildah and runc, run as root (make deps installs them; then make image-test)"

image-test: deps ## build the Dockerfile's image with podman and run it as docker-compose.yml does
	go test -count=1 -v -run '^TestImage$$' ./docker/

bench: ## run the benchmarks
	go test -run '^$$' -bench . -benchmem ./...

load: ## load a demo hub on loopback against a floor server (GET /api/v1/lights, MCP list_lights on 2025-11-25 and 2026-07-28): req/s and ratios
	scripts/load.sh

soak: ## run a 400-device house for DURATION (30m) at 1.5 h a second, check nothing grows (not part of test)
	go run -tags memory.counters ./scripts/soak -duration $(DURATION) $(SOAK_FLAGS)

check: ## fail if gofmt, go vet or go mod tidy would change or report anything
	@unformatted="$$(gofmt -l .)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:" >&2; echo "$$unformatted" >&2; exit 1; fi
	go vet ./...
	go mod tidy -diff

docker: ## build the container image
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE):$(VERSION) -t $(IMAGE):latest .
