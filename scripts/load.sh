#!/usr/bin/env bash
# load.sh: build the hub, start it with the demo home on a free loopback
# port and a temporary data directory, mint an API key, and measure it
# against the floor (scripts/load): a plain net/http server that checks
# the same key by SHA-256 and writes the hub's own answers, captured once.
# For GET /api/v1/lights and MCP tools/call list_lights (on protocol
# 2025-11-25 and 2026-07-28) it prints the hub's and the floor's requests
# per second and their ratio, from alternating rounds in one run, then the
# hub's resident memory; then it stops the hub and removes everything it
# made.
#
# The hub and the floor run on CPU 0 and the load generator on CPU 1
# (taskset), so the servers compete for one core and not with their
# clients; without taskset (or with one CPU) nothing is pinned, and the
# script says so.
#
#   scripts/load.sh                            # or: make load
#   C=32 ROUNDS=7 ROUND=3s scripts/load.sh     # connections, rounds, round length
#   HUB=/tmp/bifrost-old scripts/load.sh       # measure a hub built elsewhere
#
# The hub is run as a built binary, not under `go run`, so that the pid
# whose VmRSS is read is the hub's own.
set -euo pipefail

C="${C:-16}"            # connections
ROUNDS="${ROUNDS:-5}"   # rounds per path, each on the hub and then on the floor
ROUND="${ROUND:-2s}"    # length of one round on one server

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
if [ -n "${HUB:-}" ]; then
	cp "$HUB" "$tmp/bifrost"
else
	go build -o "$tmp/bifrost" ./cmd/bifrost
fi
go build -o "$tmp/load" ./scripts/load

# Pinning: the servers on CPU 0, the load generator on CPU 1.
server=() client=() floorcpu=""
if ! command -v taskset >/dev/null; then
	echo "taskset is missing: the hub, the floor and the load generator run unpinned"
elif [ "$(nproc)" -lt 2 ]; then
	echo "one CPU: the hub, the floor and the load generator run unpinned"
else
	server=(taskset -c 0) client=(taskset -c 1) floorcpu=0
	echo "the hub and the floor on CPU 0, the load generator on CPU 1"
fi

data="$tmp/data"
mkdir -p "$data"
"${server[@]}" "$tmp/bifrost" serve --demo --data "$data" --addr 127.0.0.1:0 --ble off --log-format text >"$tmp/hub.log" 2>&1 &
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
"${client[@]}" "$tmp/load" -url "$url" -key "$key" -c "$C" -rounds "$ROUNDS" -round "$ROUND" -floor-cpu "$floorcpu" || status=1
echo "hub RSS after the load: $(rss)"
awk '/^VmHWM:/ {printf "hub peak RSS (VmHWM):   %.1f MiB\n", $2 / 1024}' "/proc/$hub/status"
exit "$status"
