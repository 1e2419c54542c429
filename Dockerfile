# syntax=docker/dockerfile:1

# Build a static binary: the SQLite driver is pure Go, so no cgo.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/bifrost ./cmd/bifrost \
 && mkdir -m 0700 /out/data

# Run it as a non-root user in a distroless image (no shell, no curl: the
# health check is the binary itself).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/bifrost /bifrost
COPY --from=build --chown=65532:65532 /out/data /data
ENV BIFROST_DATA=/data BIFROST_ADDR=0.0.0.0:3000
VOLUME /data
EXPOSE 3000
USER 65532:65532
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/bifrost", "healthcheck"]
ENTRYPOINT ["/bifrost"]
CMD ["serve"]
