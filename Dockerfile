# syntax=docker/dockerfile:1
# Build: a static binary, no cgo (the SQLite driver is pure Go).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -tags nomsgpack -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/switchboard ./cmd/switchboard \
 && mkdir -p /out/data

# Run: distroless static, as a non-root user. The demo agents are built in; mount your own
# folder at /data/agents to replace them. /data also holds the SQLite file.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/switchboard /switchboard
COPY --from=build --chown=nonroot:nonroot /out/data /data
WORKDIR /data
USER nonroot:nonroot
EXPOSE 8080
ENTRYPOINT ["/switchboard"]
CMD ["serve", "--addr", ":8080"]
