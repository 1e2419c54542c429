# syntax=docker/dockerfile:1

# Build a static binary: the SQLite driver is pure Go, so no cgo. The binary
# carries the time-zone database and CA roots (cmd/bifrost/embedded.go), so
# the image needs nothing else.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/bifrost ./cmd/bifrost \
 && mkdir -p /out/data-root /out/tmp-root \
 && mkdir -m 0700 /out/data-root/data \
 && mkdir -m 1777 /out/tmp-root/tmp

# The image users run: the binary alone, as the non-root user 65532 (no
# shell, no curl: the health check is the binary itself). /data is the volume, owned
# by the hub's user with mode 0700; /tmp is there for SQLite's temporary
# files.
FROM scratch AS runtime
# COPY of a directory copies what it holds, so each directory is copied
# from a parent to keep its own mode.
COPY --from=build /out/tmp-root/ /
COPY --from=build --chown=65532:65532 /out/data-root/ /
COPY --from=build /out/bifrost /bifrost
ENV BIFROST_DATA=/data BIFROST_ADDR=0.0.0.0:3000
VOLUME /data
EXPOSE 3000
USER 65532:65532
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/bifrost", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/bifrost"]
CMD ["serve"]
