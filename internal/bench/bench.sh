#!/usr/bin/env bash
# internal/bench/bench.sh: the speed benchmark of issue 2 (`make bench`).
#
# It generates three trees in a temporary directory, builds skillwire once,
# and times, on a warm cache, `skillwire scan` and `skillwire digest` beside
# `find DIR -type f -print0 | xargs -0 {cat,sha256sum,b3sum}`. Then it
# counts syscalls per regular file with `strace -f -c`. It prints numbers
# and whether each target of the issue was met; a missed target is
# reported, not an error. Nothing is written outside the temporary
# directory (besides Go's own build cache), and the directory is removed on
# exit, whatever the exit.
#
# Environment: RUNS (timed runs per command, default 15; the median is
# reported), WARMUP (untimed runs first, default 3),
# SKILLWIRE_BENCH_INSTALL=1 (apt-get install the missing optional tools
# when running as root; without it they are named and left out),
# BENCH_TIMER=loop (time with the shell loop even when hyperfine is
# installed).
set -euo pipefail

RUNS=${RUNS:-15}
WARMUP=${WARMUP:-3}

BENCH_NAME=bench
# shellcheck source=internal/bench/lib/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib/common.sh"

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, not '$RUNS'"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be a non-negative integer, not '$WARMUP'"

bench_init
# The daemon started below is stopped on any exit.
daemon_pid=
stop_daemon() { [[ -z $daemon_pid ]] || kill -TERM "$daemon_pid" 2>/dev/null; }
bench_exit_hooks+=(stop_daemon)

# --- tools ------------------------------------------------------------------

install_missing hyperfine=hyperfine b3sum=b3sum strace=strace

use_hyperfine=false
if have hyperfine && [[ ${BENCH_TIMER:-} != loop ]]; then
	use_hyperfine=true
	timer="hyperfine $(hyperfine --version | awk '{print $2}'), median of $RUNS runs after $WARMUP warmup runs"
else
	clock="bash \$EPOCHREALTIME"
	[[ -n ${EPOCHREALTIME:-} ]] || clock='date +%s%N'
	timer="shell loop, $clock around each run (no shell start subtracted), median of $RUNS runs after $WARMUP warmup runs"
	have hyperfine || timer+="; hyperfine is not installed"
fi

# --- build and trees ----------------------------------------------------------

note "building skillwire and gentree into $T"
build skillwire cmd/skillwire
build gentree internal/bench/gentree
sw=$T/skillwire

# a: a Claude config dir with 200 skills of 20 files of 4 KiB (4,000 files).
# b: one candidate of 100 dirs of 100 files of 2 KiB (10,000 files).
# c: one skill of 20 dirs of 100 files of 4 KiB (2,000 files), for latency.
note "generating trees"
mkdir -p -- "$T/cfg" "$T/b" "$T/c" "$T/hcfg"
"$T/gentree" -dirs 200 -files 20 -size 4096 -prefix skill- "$T/cfg/skills"
"$T/gentree" -dirs 100 -files 100 -size 2048 -prefix dir- "$T/b/tree"
"$T/gentree" -dirs 20 -files 100 -size 4096 -prefix part- "$T/c/skill"
# h: the hook's tree (issue 4): 100 skills of 20 files of 4 KiB.
"$T/gentree" -dirs 100 -files 20 -size 4096 -prefix skill- "$T/hcfg/skills"
declare -A dir=([a]=$T/cfg/skills [b]=$T/b/tree [c]=$T/c/skill)
declare -A files
for t in a b c; do
	files[$t]=$(find "${dir[$t]}" -type f | wc -l)
done
[[ ${files[a]} -eq 4000 && ${files[b]} -eq 10000 && ${files[c]} -eq 2000 ]] ||
	die "generated trees have ${files[a]}, ${files[b]}, ${files[c]} files, not 4000, 10000, 2000"

# scan reads only these: the project dir is never made (/nonexistent is
# not safe, a home of nobody may be there), so the scan sees tree a and
# nothing of the machine it runs on.
export CLAUDE_CONFIG_DIR=$T/cfg CLAUDE_PROJECT_DIR=$T/noproject
# The default budget, whatever the caller's environment says.
unset SKILLWIRE_MAX_ENTRIES SKILLWIRE_MAX_BYTES

# Every timed skillwire command must exit 0: the trees are clean, and a
# finding (exit 3) would mean we time something other than a clean walk.
check_clean() {
	local rc=0
	"$@" >"$T/check.out" 2>"$T/check.err" || rc=$?
	if ((rc != 0)); then
		note "'${*#"$T/"}' exited $rc, want 0 on a clean tree; its output:"
		head -c 1500 "$T/check.out" "$T/check.err" >&2
		exit 1
	fi
}
note "checking that skillwire sees clean trees (and warming the cache)"
check_clean "$sw" scan --json
grep -q '"digest": *"blake3:' "$T/check.out" || die "scan --json printed no digest: $(head -c 400 "$T/check.out")"
for t in a b c; do
	check_clean "$sw" digest "${dir[$t]}"
	find "${dir[$t]}" -type f -print0 | xargs -0 cat >/dev/null
done

# --- timing -----------------------------------------------------------------

now_us() {
	if [[ -n ${EPOCHREALTIME:-} ]]; then
		printf '%s\n' "${EPOCHREALTIME//[!0-9]/}"
	else
		echo $(($(date +%s%N) / 1000))
	fi
}

# median_ms reads microseconds, one a line, and prints their median in ms.
median_ms() {
	sort -n | awk '{v[NR] = $1} END {
		if (NR == 0) exit 1
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f\n", m / 1000 }'
}

# measure TOOL TREE ARG...: times the command ARG... (its output discarded)
# and appends "tool tree ms" to results. hyperfine runs it with no shell in
# between (-N): its shell-start correction, calibrated once, turns a load
# spike during calibration into absurd numbers on a busy machine. A
# pipeline is measured as bash -c '...', and the report subtracts the
# median of bash -c true measured in the same run.
# Its standard input is $measure_stdin (default /dev/null): a hook reads it.
measure_stdin=/dev/null
measure() {
	local tool=$1 tree=$2 ms i t0 t1 cmd
	shift 2
	cmd=$(printf '%q ' "$@")
	note "timing $tool on tree $tree"
	if $use_hyperfine; then
		if ! hyperfine -N --style=none --warmup "$WARMUP" --runs "$RUNS" --input "$measure_stdin" \
			--export-csv "$T/hf.csv" "$cmd" >"$T/hf.out" 2>&1; then
			cat "$T/hf.out" >&2
			die "hyperfine failed on: $cmd"
		fi
		# mean,stddev,median,user,system,min,max end each row: count from the end.
		ms=$(awk -F, 'NR == 2 {printf "%.2f\n", $(NF - 4) * 1000}' "$T/hf.csv")
	else
		for ((i = 0; i < WARMUP; i++)); do
			"$@" <"$measure_stdin" >/dev/null || die "failed: $cmd"
		done
		: >"$T/times"
		for ((i = 0; i < RUNS; i++)); do
			t0=$(now_us)
			"$@" <"$measure_stdin" >/dev/null || die "failed: $cmd"
			t1=$(now_us)
			echo $((t1 - t0)) >>"$T/times"
		done
		ms=$(median_ms <"$T/times")
	fi
	[[ -n $ms ]] || die "no time measured for: $cmd"
	printf '%s\t%s\t%s\n' "$tool" "$tree" "$ms" >>"$T/results"
}

: >"$T/results"
pipes=(cat sha256sum)
have b3sum && pipes+=(b3sum)
# The floors: any skillwire command (exec, Go runtime start, cobra), and
# the shell that runs a pipeline.
measure "skillwire --version" - "$sw" --version
measure "bash -c true" - bash -c true
# Tree by tree, so that skillwire and the pipelines it is compared with are
# timed close together on a machine whose load changes.
for t in a b c; do
	[[ $t == a ]] && measure "skillwire scan" a "$sw" scan --json
	measure "skillwire digest" "$t" "$sw" digest "${dir[$t]}"
	for p in "${pipes[@]}"; do
		measure "find|xargs $p" "$t" bash -c "find $(printf '%q' "${dir[$t]}") -type f -print0 | xargs -0 $p"
	done
done

# The SessionStart hook with nothing changed (issue 4): its own config and
# store, bootstrapped once; every timed run must print nothing.
export CLAUDE_CONFIG_DIR=$T/hcfg SKILLWIRE_STATE_DIR=$T/hstate
"$sw" hook session-start </dev/null >"$T/hook.first"
grep -q 'first run: 100 skill' "$T/hook.first" || die "hook bootstrap said: $(head -c 400 "$T/hook.first")"
"$sw" hook session-start </dev/null >"$T/hook.second"
[[ ! -s $T/hook.second ]] || die "hook is not silent on an unchanged tree: $(head -c 400 "$T/hook.second")"
measure "skillwire hook" h "$sw" hook session-start
# The gate (issue 16) on one 20-file skill accepted on first use: under the
# default policy it must print nothing.
noproject_json=$(json_string "$T/noproject") # first: a die inside "$(...)" ends only the subshell
printf '{"hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"skill-042"},"cwd":%s}' "$noproject_json" >"$T/ptu.json"
"$sw" hook pre-tool-use <"$T/ptu.json" >"$T/gate.first"
[[ ! -s $T/gate.first ]] || die "the gate answered on a skill accepted on first use: $(head -c 400 "$T/gate.first")"
measure_stdin=$T/ptu.json measure "skillwire hook pre-tool-use" h "$sw" hook pre-tool-use

# The same hook with the daemon running (issue 6): it reads the daemon's
# cache instead of walking. Timed only once the daemon says it watches the
# whole tree, and only if the hook then really skips the walk (strace: it
# must open far fewer than the tree's 2,000 files).
"$sw" daemon 2>"$T/daemon.err" &
daemon_pid=$!
for ((i = 0; i < 200; i++)); do
	"$sw" status --json 2>/dev/null | grep -q '"watching": *"whole"' && break
	sleep 0.05
done
"$sw" status --json 2>/dev/null | grep -q '"watching": *"whole"' ||
	die "the daemon never watched the whole tree: $(head -c 400 "$T/daemon.err")"
"$sw" hook session-start </dev/null >"$T/hook.third"
[[ ! -s $T/hook.third ]] || die "hook with the daemon is not silent: $(head -c 400 "$T/hook.third")"
if have strace; then
	strace -f -e trace=openat -o "$T/hook.strace" "$sw" hook session-start </dev/null >/dev/null
	opens=$(grep -c 'openat(' "$T/hook.strace" || true)
	((opens < 200)) || die "the hook opened $opens files with the daemon running: it walked instead of reading the cache"
	note "the hook with the daemon running opened $opens files (the tree has 2000)"
fi
measure "skillwire hook+daemon" h "$sw" hook session-start
measure_stdin=$T/ptu.json measure "skillwire hook pre-tool-use+daemon" h "$sw" hook pre-tool-use
kill -TERM "$daemon_pid"
wait "$daemon_pid" || true
daemon_pid=
export CLAUDE_CONFIG_DIR=$T/cfg
unset SKILLWIRE_STATE_DIR

# --- report -----------------------------------------------------------------

echo
echo "skillwire benchmark, $(nproc) CPUs, $(go env GOVERSION), warm cache"
echo "timer: $timer"
echo "trees: a = \$CLAUDE_CONFIG_DIR/skills, 200 skills x 20 files x 4 KiB (${files[a]} files)"
echo "       b = one candidate, 100 dirs x 100 files x 2 KiB (${files[b]} files)"
echo "       c = one skill, 20 dirs x 100 files x 4 KiB (${files[c]} files)"
echo "       h = the hook's config, 100 skills x 20 files x 4 KiB (2000 files), nothing changed"
echo "           (hook+daemon: the same hook while 'skillwire daemon' watches h)"
have b3sum || echo "b3sum is not installed: no b3sum pipeline"
echo
shell_ms=$(awk -F'\t' '$1 == "bash -c true" {print $3}' "$T/results")
echo "pipeline rows: median of bash -c 'find ... | xargs -0 TOOL' minus the median of bash -c true ($shell_ms ms)"
echo
# Pipeline rows lose the shell's start. The reference of a tree is the first
# skillwire row timed on it (scan on a, digest on b and c); ratio =
# reference / other, below 1 is skillwire faster.
awk -F'\t' -v na="${files[a]}" -v nb="${files[b]}" -v nc="${files[c]}" -v sh="$shell_ms" '
	BEGIN { n["a"] = na; n["b"] = nb; n["c"] = nc; n["h"] = 2000
		printf "%-20s %-4s %10s %12s %20s\n", "tool", "tree", "median ms", "files/s", "ratio skillwire/it" }
	$1 ~ /^find/ { $3 = $3 - sh; if ($3 < 0.01) $3 = 0.01 }
	{ tool[NR] = $1; tree[NR] = $2; ms[NR] = $3
		if ($1 ~ /^skillwire/ && !($2 in ref)) { ref[$2] = $3; reftool[$2] = $1 } }
	END { for (i = 1; i <= NR; i++) {
		r = "-"; fps = "-"
		if (tree[i] in n) fps = sprintf("%.0f", n[tree[i]] / (ms[i] / 1000))
		if ((tree[i] in n) && (tree[i] in ref) && tool[i] != reftool[tree[i]]) r = sprintf("%.2f", ref[tree[i]] / ms[i])
		printf "%-20s %-4s %10.2f %12s %20s\n", tool[i], tree[i], ms[i], fps, r } }
' "$T/results"

# --- syscalls ---------------------------------------------------------------

echo
if have strace; then
	rc=0
	strace -f -c -o "$T/strace" "$sw" digest "${dir[b]}" >/dev/null 2>"$T/strace.err" || rc=$?
	((rc == 0)) || { cat "$T/strace.err" >&2; die "strace -f -c skillwire digest (tree b) exited $rc"; }
	echo "syscalls: strace -f -c skillwire digest <tree b> (${files[b]} regular files, 100 dirs)"
	# Rows are: % time, seconds, usecs/call, calls, [errors], syscall.
	awk -v nf="${files[b]}" '
		$NF != "total" && $NF != "syscall" && $4 ~ /^[0-9]+$/ {
			calls[$NF] = $4; total += $4
			if ($NF ~ /^(openat|open|fstat|newfstatat|statx|read|pread64|close|getdents64|readlinkat)$/) walk += $4 }
		END {
			printf "%.2f\n", total / nf >spf
			printf "total %d syscalls = %.2f per regular file (target <= 5)\n", total, total / nf
			printf "file system calls (openat, fstat, newfstatat, read, close, getdents64, readlinkat): %d = %.2f per file\n", walk, walk / nf
			print "top syscalls (calls, per regular file):"
			fflush()
			sort = "sort -k2,2nr | head -n 12"
			for (s in calls) printf "  %-16s %8d %6.2f\n", s, calls[s], calls[s] / nf | sort
			close(sort)
		}' spf="$T/spf" "$T/strace"
	syscalls_per_file=$(cat "$T/spf")
else
	echo "syscalls: strace is not installed; not counted"
	syscalls_per_file=
fi
# ptrace makes every syscall slow, and a slow syscall keeps Go's sysmon
# waking (nanosleep) to retake its P: strace inflates the runtime's share.
# perf counts the same command undisturbed, where the kernel lets it.
perf_per_file=
if have perf && perf stat -x, -r 5 -e raw_syscalls:sys_enter -o "$T/perf" \
	"$sw" digest "${dir[b]}" >/dev/null 2>&1; then
	perf_total=$(awk -F, '$3 == "raw_syscalls:sys_enter" && $1 ~ /^[0-9.]+$/ {printf "%.0f", $1}' "$T/perf")
	if [[ -n $perf_total ]]; then
		perf_per_file=$(awk -v t="$perf_total" -v n="${files[b]}" 'BEGIN {printf "%.2f", t / n}')
		echo "perf stat -e raw_syscalls:sys_enter (mean of 5 runs, no ptrace): $perf_total syscalls = $perf_per_file per regular file"
	fi
fi
[[ -n $perf_per_file ]] || echo "perf cannot count syscalls here: only the strace count"

# --- targets ----------------------------------------------------------------

echo
echo "targets (issue 2):"
ms_of() {
	awk -F'\t' -v t="$1" -v r="$2" -v sh="$shell_ms" '$1 == t && $2 == r {
		if ($1 ~ /^find/) { $3 = $3 - sh; if ($3 < 0.01) $3 = 0.01 }
		printf "%.2f\n", $3; exit }' "$T/results"
}
# verdict A OP B prints whether A OP B holds (OP is an awk comparison).
verdict() { if awk -v a="$1" -v b="$3" "BEGIN {exit !(a $2 b)}"; then echo met; else echo MISSED; fi; }
if [[ -n $syscalls_per_file ]]; then
	printf '  %-62s %14s  %s\n' "syscalls per regular file <= 5 (tree b, strace -f)" "$syscalls_per_file" "$(verdict "$syscalls_per_file" "<=" 5)"
fi
if [[ -n $perf_per_file ]]; then
	printf '  %-62s %14s  %s\n' "syscalls per regular file <= 5 (tree b, perf)" "$perf_per_file" "$(verdict "$perf_per_file" "<=" 5)"
fi
for ref in "skillwire scan:a" "skillwire digest:b"; do
	tool=${ref%:*} t=${ref#*:}
	ms=$(ms_of "$tool" "$t")
	fps=$(awk -v n="${files[$t]}" -v ms="$ms" 'BEGIN {printf "%.0f", n / (ms / 1000)}')
	printf '  %-62s %14s  %s\n' "$tool tree $t >= 120000 files/s" "$fps" "$(verdict "$fps" ">=" 120000)"
	for p in "${pipes[@]}"; do
		other=$(ms_of "find|xargs $p" "$t")
		printf '  %-62s %14s  %s\n' "$tool tree $t faster than $p pipeline (ms vs ms)" "$ms/$other" "$(verdict "$ms" "<" "$other")"
	done
done
ms=$(ms_of "skillwire digest" c)
printf '  %-62s %14s  %s\n' "skillwire digest of a 2,000-file skill < 8 ms" "$ms" "$(verdict "$ms" "<" 8)"
echo "  (of which the process floor, skillwire --version: $(ms_of "skillwire --version" -) ms)"
echo
echo "targets (issue 4):"
ms=$(ms_of "skillwire hook" h)
printf '  %-62s %14s  %s\n' "hook, 100 skills x 20 files, nothing changed < 10 ms" "$ms" "$(verdict "$ms" "<" 10)"
ms=$(ms_of "skillwire hook+daemon" h)
printf '  %-62s %14s  %s\n' "the same, with the daemon running (its cache, no walk) < 10 ms" "$ms" "$(verdict "$ms" "<" 10)"
echo "  (skillwire --version in the same run: $(ms_of "skillwire --version" -) ms; the predecessor's Python hook: about 83 ms)"
echo
echo "targets (issue 16):"
ms=$(ms_of "skillwire hook pre-tool-use" h)
printf '  %-62s %14s  %s\n' "gate, pre-tool-use on a 20-file skill, no daemon < 8 ms" "$ms" "$(verdict "$ms" "<" 8)"
ms=$(ms_of "skillwire hook pre-tool-use+daemon" h)
printf '  %-62s %14s  %s\n' "the same, with the daemon running < 5 ms" "$ms" "$(verdict "$ms" "<" 5)"
echo "  (skillwire --version in the same run: $(ms_of "skillwire --version" -) ms)"
echo
echo "targets (issue 15, in-process Go benchmarks of the hook, mean of 20 runs each):"
# ns/op of each benchmark, by name, from one `go test -bench` run.
go test -run '^$' -bench 'BenchmarkHook(Plugins)?(Unchanged|FastPath)$' -benchtime 20x -count 1 ./cmd/skillwire/ >"$T/gobench" 2>&1 ||
	die "go test -bench failed: $(tail -5 "$T/gobench")"
ms_bench() { awk -v b="$1" '$1 ~ "^"b"(-[0-9]+)?$" {printf "%.2f\n", $3 / 1e6; exit}' "$T/gobench"; }
today=$(ms_bench BenchmarkHookUnchanged) added=$(ms_bench BenchmarkHookPluginsUnchanged) daemon=$(ms_bench BenchmarkHookPluginsFastPath)
ratio=$(awk -v a="$added" -v t="$today" 'BEGIN {printf "%.1f", a / t}')
printf '  %-62s %14s  %s\n' "20 plugins (one of 20,000 files) with the daemon < 10 ms" "$daemon" "$(verdict "$daemon" "<" 10)"
printf '  %-62s %14s  %s\n' "the same without it, at most 2x today's walk ($today ms)" "${added} (${ratio}x)" "$(verdict "$ratio" "<=" 2)"
