#!/usr/bin/env bash
# internal/bench/daemon.sh: the numbers of issue 6 for `skillwire daemon`
# (`make bench-daemon`).
#
# It generates 50 skills of 10 directories of 20 files of 4 KiB (10,000
# files in 500 directories) as $CLAUDE_CONFIG_DIR/skills in a temporary
# directory, starts `skillwire daemon` on it, waits until `skillwire status
# --json` says the daemon is alive, and measures:
#   - change-to-observation latency over EDITS edits (internal/bench/daemonlat: each
#     edit rewrites one file of a skill, then the store's cache is polled
#     until that skill's cached digest is the one a walk of it gives);
#   - idle CPU over IDLE seconds (utime + stime from /proc/PID/stat);
#   - VmRSS and VmHWM from /proc/PID/status while it watches the tree;
#   - how long it takes to exit on SIGTERM.
# It prints the numbers and whether each target was met; a missed target is
# reported, not an error. The daemon is stopped and the directory removed
# on exit, whatever the exit.
#
# Environment: EDITS (default 100), IDLE (seconds, default 60), SETTLE
# (seconds of quiet before the idle window, default 5).
set -euo pipefail

EDITS=${EDITS:-100}
IDLE=${IDLE:-60}
SETTLE=${SETTLE:-5}

BENCH_NAME=daemon
# shellcheck source=internal/bench/lib/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib/common.sh"

for v in EDITS IDLE; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer, not '${!v}'"
done
[[ $SETTLE =~ ^[0-9]+$ ]] || die "SETTLE must be a non-negative integer, not '$SETTLE'"

bench_init
load_start=$(loadavg)
started=$SECONDS

note "building skillwire, gentree and daemonlat into $T"
build skillwire cmd/skillwire
build gentree internal/bench/gentree
build daemonlat internal/bench/daemonlat
sw=$T/skillwire
# Said now: the source may change while we measure.
machine=$(describe_machine)

note "generating 50 skills x 10 dirs x 20 files"
mkdir -p -- "$T/cfg/skills" "$T/project"
for ((s = 0; s < 50; s++)); do
	"$T/gentree" -dirs 10 -files 20 -size 4096 -prefix part- "$(printf '%s/cfg/skills/skill-%03d' "$T" "$s")"
done
nfiles=$(find "$T/cfg/skills" -type f | wc -l)
ndirs=$(find "$T/cfg/skills" -mindepth 2 -type d | wc -l)
[[ $nfiles -eq 10000 && $ndirs -eq 500 ]] || die "generated $nfiles files in $ndirs directories, not 10000 in 500"

# The daemon sees the tree and nothing of this machine.
export CLAUDE_CONFIG_DIR=$T/cfg CLAUDE_PROJECT_DIR=$T/project SKILLWIRE_STATE_DIR=$T/state
unset SKILLWIRE_MAX_ENTRIES SKILLWIRE_MAX_BYTES

# --- start ----------------------------------------------------------------------

now_ms() { awk -v t="$EPOCHREALTIME" 'BEGIN {printf "%.0f", t * 1000}'; }

# gone PID: the process has exited (a zombie counts: it is our child and
# waits for `wait`).
gone() {
	local state
	state=$(awk '{sub(/^.*\) /, ""); print $1}' "/proc/$1/stat" 2>/dev/null) || return 0
	[[ -z $state || $state == Z ]]
}

pid=
stop_daemon() {
	[[ -n $pid ]] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 200; i++)); do
		gone "$pid" && break
		sleep 0.01
	done
	gone "$pid" || kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
	pid=
}
bench_exit_hooks+=(stop_daemon)

note "starting skillwire daemon"
t_start=$(now_ms)
"$sw" daemon </dev/null >"$T/daemon.out" 2>"$T/daemon.err" &
pid=$!

# alive: status --json says "alive": true (a fresh heartbeat from a process
# that holds the daemon lock).
until
	"$sw" status --json >"$T/status.json" 2>/dev/null || true
	grep -q '"alive": *true' "$T/status.json"
do
	if gone "$pid"; then
		wait "$pid" && rc=0 || rc=$?
		pid=
		die "the daemon exited ($rc) before it was alive: $(head -c 1500 "$T/daemon.err")"
	fi
	(($(now_ms) - t_start < 120000)) || die "the daemon was not alive after 120 s: $(head -c 800 "$T/status.json")"
	sleep 0.1
done
alive_ms=$(($(now_ms) - t_start))
watching=$(sed -n 's/.*"watching": *"\([^"]*\)".*/\1/p' "$T/status.json")

# mem prints "VmRSS VmHWM" of the daemon, in MB (10^6 bytes).
mem() {
	awk '/^VmRSS:/ {r = $2} /^VmHWM:/ {h = $2} END {printf "%.1f %.1f\n", r * 1024 / 1e6, h * 1024 / 1e6}' "/proc/$pid/status"
}
# watches counts the daemon's inotify watches.
watches() {
	local fd n=0
	for fd in /proc/"$pid"/fd/*; do
		[[ $(readlink "$fd" 2>/dev/null) == anon_inode:inotify ]] || continue
		n=$((n + $(grep -c '^inotify wd:' "/proc/$pid/fdinfo/${fd##*/}" || true)))
	done
	echo "$n"
}
# cpu_ticks prints utime + stime of the daemon, in clock ticks.
cpu_ticks() { awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$pid/stat"; }
# ctxsw prints the context switches of all the daemon's threads.
ctxsw() { cat /proc/"$pid"/task/*/status | awk '/^(non)?voluntary_ctxt_switches:/ {n += $2} END {print n}'; }

read -r rss_start hwm_start < <(mem)
nwatch=$(watches)

# --- latency --------------------------------------------------------------------

note "timing change-to-observation latency over $EDITS edits"
"$T/daemonlat" -state "$T/state" -root "$T/cfg/skills" -edits "$EDITS" -out "$T/latency" >"$T/lat.out" ||
	die "daemonlat failed"
lat() { sed -n "s/^$1=//p" "$T/lat.out"; }
read -r rss_edits hwm_edits < <(mem)

# --- idle -----------------------------------------------------------------------

note "settling ${SETTLE}s, then measuring idle CPU over ${IDLE}s"
sleep "$SETTLE"
clk=$(getconf CLK_TCK)
c0=$(cpu_ticks)
x0=$(ctxsw)
w0=$(now_ms)
sleep "$IDLE"
c1=$(cpu_ticks)
x1=$(ctxsw)
w1=$(now_ms)
idle_cpu_ms=$(((c1 - c0) * 1000 / clk))
idle_wall_ms=$((w1 - w0))
idle_pct=$(awk -v c="$idle_cpu_ms" -v w="$idle_wall_ms" 'BEGIN {printf "%.3f", 100 * c / w}')
idle_ctx=$(awk -v x="$((x1 - x0))" -v w="$idle_wall_ms" 'BEGIN {printf "%.1f", x / (w / 1000)}')
read -r rss_idle hwm_idle < <(mem)
nwatch_end=$(watches)

# --- stop -----------------------------------------------------------------------

note "stopping the daemon with SIGTERM"
t_term=$(now_ms)
kill -TERM "$pid"
until gone "$pid" || (($(now_ms) - t_term > 5000)); do
	sleep 0.005
done
term_ms=$(($(now_ms) - t_term))
if gone "$pid"; then
	wait "$pid" && term_rc=0 || term_rc=$?
else
	term_rc="still running after 5 s; killed"
	kill -KILL "$pid"
	wait "$pid" || true
fi
pid=
warnings=$(grep -c -E '"level":"(warn|error)"' "$T/state/daemon.log" || true)

# --- report ---------------------------------------------------------------------

load_end=$(loadavg)
echo
echo "skillwire daemon (issue 6)"
echo "$machine"
echo "load average (1, 5, 15 min): $load_start at start, $load_end at the end; run took $((SECONDS - started)) s"
echo "tree: \$CLAUDE_CONFIG_DIR/skills, 50 skills x 10 dirs x 20 files x 4 KiB = $nfiles files in $ndirs directories"
echo "startup: alive (status --json) ${alive_ms} ms after exec; watching: ${watching:-?}; inotify watches: $nwatch (at the end: $nwatch_end)"
echo
echo "change-to-observation latency, $(lat edits) edits (poll every 5 ms; daemon debounce 100 ms):"
echo "  min $(lat min_ms) ms, p50 $(lat p50_ms) ms, p95 $(lat p95_ms) ms, max $(lat max_ms) ms, timeouts (10 s) $(lat timeouts)"
echo "  store read $(lat store_reads) times (read-only, only after store.db changed), $(lat store_read_mean_ms) ms each on average; found locked by the daemon $(lat store_busy) times (tried again 5 ms later)"
echo "idle CPU over $((idle_wall_ms / 1000)) s: $idle_cpu_ms ms = $idle_pct % of one CPU (/proc ticks of $((1000 / clk)) ms); $idle_ctx context switches/s"
echo "memory (MB = 10^6 bytes):  VmRSS  VmHWM"
printf '  %-22s %6s %6s\n' "after startup" "$rss_start" "$hwm_start" "after the edits" "$rss_edits" "$hwm_edits" "after idling" "$rss_idle" "$hwm_idle"
echo "SIGTERM: exited after $term_ms ms with status $term_rc; warnings/errors in daemon.log: $warnings"

verdict() { if awk -v a="$1" -v b="$3" "BEGIN {exit !(a $2 b)}"; then echo met; else echo MISSED; fi; }
row() { printf '  %-52s %14s  %s\n' "$1" "$2" "$3"; }
echo
echo "targets (issue 6):"
p95=$(lat p95_ms)
if [[ $p95 == timeout ]]; then
	row "latency p95 < 1 s" "timeout" MISSED
else
	row "latency p95 < 1 s" "$p95 ms" "$(verdict "$p95" "<" 1000)"
fi
row "idle CPU ~0 (taken as < 1 % of one CPU)" "$idle_pct %" "$(verdict "$idle_pct" "<" 1)"
row "RSS < 40 MB while watching (VmRSS after idling)" "$rss_idle MB" "$(verdict "$rss_idle" "<" 40)"
row "RSS < 40 MB including the initial scan (VmHWM)" "$hwm_idle MB" "$(verdict "$hwm_idle" "<" 40)"
if [[ $term_rc == 0 ]]; then
	row "SIGTERM: exits cleanly within 1 s" "$term_ms ms" "$(verdict "$term_ms" "<" 1000)"
else
	row "SIGTERM: exits cleanly within 1 s" "status $term_rc" MISSED
fi
