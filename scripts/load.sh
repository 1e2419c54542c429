#!/usr/bin/env bash
# load.sh: build the hub, start it with the demo home on a free loopback
# port and a temporary data directory, mint an API key, load it with
# GET /api/v1/lights and MCP tools/call list_lights (scripts/load), print
# requests per second, p50, p99 and the hub's resident memory, then stop
# the hub and remove everything it made.
#
#   scripts/load.sh                 # or: make load
#   N=50000 C=32 scripts/load.sh    # requests per run, concurrent clients
#
# The hub is run as a built binary, not under `go run`, so that the pid
# whose VmRSS is read is the hub's own.
set -euo pipefail

N="${N:-20000}"             # requests per run
C="${C:-16}"                # concurrent clients
TIMEOUT="${TIMEOUT:-60s}"   # bound on each run

cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
hub=""
cleanup() {
	if [ -n "$hub" ] && kill -0 "$hub" 2>/dev/null; then
		kill -TERM "$hub"
		wait "$hub" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# healthy says whether the hub at 127.0.0.1:$1 answers GET /healthz with
# 200 (bash's /dev/tcp, so that nothing but bash and Go is needed).
healthy() {
	local line
	exec 3<>"/dev/tcp/127.0.0.1/$1" 2>/dev/null || return 1
	printf 'GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
	IFS= read -r -t 2 line <&3 || line=""
	exec 3<&-
	[[ "$line" == "HTTP/1."?" 200"* ]]
}

rss() { awk '/^VmRSS:/ {printf "%.1f MiB", $2 / 1024}' "/proc/$hub/status"; }

echo "building bifrost and the load generator"
go build -o "$tmp/bifrost" ./cmd/bifrost
go build -o "$tmp/load" ./scripts/load

data="$tmp/data"
mkdir -p "$data"
"$tmp/bifrost" serve --demo --data "$data" --addr 127.0.0.1:0 --ble off --log-format text >"$tmp/hub.log" 2>&1 &
hub=$!

# The hub picks a free port and logs it: "msg=listening addr=127.0.0.1:PORT".
url=""
for _ in $(seq 100); do
	addr="$(sed -n 's/.*msg=listening addr=\(127\.0\.0\.1:[0-9]*\).*/\1/p' "$tmp/hub.log" | head -n 1)"
	if [ -n "$addr" ] && healthy "${addr##*:}"; then
		url="http://$addr"
		break
	fi
	kill -0 "$hub" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$url" ]; then
	echo "the hub did not answer /healthz within 10 s:" >&2
	cat "$tmp/hub.log" >&2
	exit 1
fi
echo "hub (pid $hub) listening on $url; RSS $(rss)"

key="$("$tmp/bifrost" keys create --name load --scope read --data "$data" 2>>"$tmp/keys.log")"

status=0
"$tmp/load" -url "$url" -key "$key" -n "$N" -c "$C" -timeout "$TIMEOUT" || status=1
echo "RSS after GET /api/v1/lights: $(rss)"
"$tmp/load" -url "$url" -key "$key" -n "$N" -c "$C" -timeout "$TIMEOUT" -mcp || status=1
echo "RSS after MCP tools/call:     $(rss)"
awk '/^VmHWM:/ {printf "peak RSS (VmHWM):             %.1f MiB\n", $2 / 1024}' "/proc/$hub/status"
exit "$status"
