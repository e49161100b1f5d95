#!/usr/bin/env bash
# internal/bench/hook.sh: issue 34, the hook path at the floor (`make bench`,
# or bash internal/bench/hook.sh alone). It times, side by side in one run, a static
# hello-world Go binary (the floor of any Go process) and skillwire's hook
# paths: --version; PreToolUse of a Bash command that touches nothing
# skillwire gates; PreToolUse of a Skill reviewed and unchanged (100 skills
# x 20 files), and of the same beside 200 skills of 64 KiB list-shaped
# frontmatter; the walking SessionStart with nothing changed (2,000
# files), and on a home shaped like make bench-client's, its hooks set. Runs are interleaved: each round runs every command once, so a
# change of load hits all of them alike. Each time is bash's EPOCHREALTIME
# around one fork, exec and wait: the same overhead for every row, the
# hello-world row included. Medians of RUNS rounds (default 31) after
# WARMUP (default 3). BASE=<commit> adds the same rows for the binary
# built at that commit, timed in the same rounds. Then it counts what a
# hook does besides its work: package inits (GODEBUG=inittrace=1), page
# faults (/usr/bin/time -v) and the session start's nanosleep and futex
# calls (strace -f -c).
set -euo pipefail

RUNS=${RUNS:-31}
WARMUP=${WARMUP:-3}
BENCH_NAME=hook
# shellcheck source=internal/bench/lib/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib/common.sh"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, not '$RUNS'"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be a non-negative integer, not '$WARMUP'"
bench_init
install_missing strace=strace

note "building skillwire, gentree and hello-world into $T"
build skillwire cmd/skillwire
build gentree internal/bench/gentree
build floor internal/bench/floor
sw=$T/skillwire
# The floor of --version in skillwire's own binary: the same build, its
# main.go replaced (go build -overlay) by one that exits as main starts.
# Every package is linked and initialized as in skillwire. run stays
# reachable (os.Args is never empty, but the compiler cannot know), so
# the binary is skillwire's size. internal/bench/floor -inits links the
# packages, but the linker drops what nothing calls: 40% of the size.
mkdir -p "$T/exit-src"
printf '%s\n' 'package main' '' 'import "os"' '' 'func main() {' '	if len(os.Args) > 0 {' '		os.Exit(0)' '	}' \
	'	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))' '}' >"$T/exit-src/main.go"
# Each JSON string is made first: a die inside "$(...)" would end only the
# subshell.
main_json=$(json_string "$repo/cmd/skillwire/main.go")
exit_json=$(json_string "$T/exit-src/main.go")
noproject_json=$(json_string "$T/noproject")
printf '{"Replace":{%s:%s}}\n' "$main_json" "$exit_json" >"$T/exit-src/overlay.json"
CGO_ENABLED=0 go build -overlay "$T/exit-src/overlay.json" -o "$T/skillwire-exit" ./cmd/skillwire || die "building skillwire exiting at main failed"
[[ $(stat -c %s "$T/skillwire-exit") -gt $(($(stat -c %s "$sw") * 9 / 10)) ]] || die "skillwire exiting at main is not skillwire's size: the linker dropped run"
bins=(skillwire)
if [[ -n ${BASE:-} ]]; then
	note "building skillwire at $(git log -1 --format=%h "$BASE") (BASE)"
	mkdir -p "$T/base"
	git archive "$BASE" | tar -x -C "$T/base"
	(cd "$T/base" && CGO_ENABLED=0 go build -o "$T/base-bin" ./cmd/skillwire) || die "building $BASE failed"
	bins+=(base-bin)
fi
# The floor: the smallest static Go program that writes a line.
mkdir -p "$T/hello-src"
printf 'module hello\n\ngo 1.22\n' >"$T/hello-src/go.mod"
printf 'package main\n\nimport "os"\n\nfunc main() { os.Stdout.WriteString("hello\\n") }\n' >"$T/hello-src/main.go"
(cd "$T/hello-src" && CGO_ENABLED=0 GOFLAGS='' go build -o "$T/hello" .) || die "building hello-world failed"
# Each binary runs as a package installs it: copied. Measured here, the
# same bytes exec 0.1 ms (hello) to 0.4 ms (skillwire) faster from a copy
# than from the linker's output (the page cache's layout, we think). So
# every row, hello's too, runs from a copy.
for f in "$T/hello" "$sw" "$T/skillwire-exit" "$T/floor" ${BASE:+"$T/base-bin"}; do
	{ cp "$f" "$f.installed" && mv "$f.installed" "$f"; } || die "installing $f failed"
done

note "generating trees"
unset SKILLWIRE_MAX_ENTRIES SKILLWIRE_MAX_BYTES
export SKILLWIRE_MANAGED_DIR='' CLAUDE_PROJECT_DIR=$T/noproject
# h: 100 skills of 20 files of 4 KiB. p: the same, beside 200 skills whose
# SKILL.md holds 64 KiB of list-shaped frontmatter.
# hd: h again, for the session start with the daemon watching it.
mkdir -p "$T/h" "$T/p" "$T/hd"
"$T/gentree" -dirs 100 -files 20 -size 4096 -prefix skill- "$T/h/skills"
"$T/gentree" -dirs 100 -files 20 -size 4096 -prefix skill- "$T/p/skills"
"$T/gentree" -dirs 100 -files 20 -size 4096 -prefix skill- "$T/hd/skills"
# r: a home shaped like make bench-client's (e2e/clientstart_test.go): 300
# skills of three files, 100 agents, 30 commands, and a settings.json whose
# hooks run skillwire. Each start binds the 13.7 MB binary a hook runs.
mkdir -p "$T/r/agents" "$T/r/commands"
body=$(printf 'Follow the steps. Check the result before you report it.\n%.0s' $(seq 40))
for i in $(seq -w 0 299); do
	mkdir -p "$T/r/skills/skill-$i/scripts"
	printf -- '---\nname: skill-%s\ndescription: The skill-%s skill.\n---\n\n%s\n' "$i" "$i" "$body" >"$T/r/skills/skill-$i/SKILL.md"
	printf '%s\n' "$body" >"$T/r/skills/skill-$i/reference.md"
	printf '#!/bin/sh\necho skill-%s\n' "$i" >"$T/r/skills/skill-$i/scripts/run.sh"
done
for i in $(seq -w 0 99); do
	printf -- '---\nname: agent-%s\ndescription: The agent-%s agent.\ntools: Read, Grep\n---\n\n%s\n' "$i" "$i" "$body" >"$T/r/agents/agent-$i.md"
done
for i in $(seq -w 0 29); do
	printf -- '---\ndescription: a command\n---\n\n%s\n' "$body" >"$T/r/commands/cmd-$i.md"
done
CLAUDE_CONFIG_DIR=$T/r SKILLWIRE_STATE_DIR=$T/r-install "$sw" hook install --yes >"$T/install.out" 2>&1 ||
	die "installing the hooks in tree r failed: $(head -c 300 "$T/install.out")"
# Each tree's first session start accepts what it finds; the second must
# be silent. A file younger than the racy window is asked, not trusted.
# Each binary has its own stores.
for b in "${bins[@]}"; do
	for t in h p hd r; do
		CLAUDE_CONFIG_DIR=$T/$t SKILLWIRE_STATE_DIR=$T/$t-state-$b "$T/$b" hook session-start </dev/null >"$T/boot.out"
		grep -q 'first run' "$T/boot.out" || die "$b, tree $t: the first session start said: $(head -c 300 "$T/boot.out")"
	done
done
sleep 2.5
for b in "${bins[@]}"; do
	for t in h p hd r; do
		CLAUDE_CONFIG_DIR=$T/$t SKILLWIRE_STATE_DIR=$T/$t-state-$b "$T/$b" hook session-start </dev/null >"$T/boot.out"
		[[ ! -s $T/boot.out ]] || die "$b, tree $t: the session start is not silent: $(head -c 300 "$T/boot.out")"
	done
done
# Then p gets its padding: new, never reviewed, and never the name typed.
pad="---"$'\n'"x:"$'\n'$(printf -- '- a\n%.0s' $(seq 16000))$'\n'"---"$'\n'"pad"$'\n'
for i in $(seq -w 0 199); do
	mkdir "$T/p/skills/pad$i"
	printf '%s' "$pad" >"$T/p/skills/pad$i/SKILL.md"
done
# A session then starts beside them, as one would: it parses their
# frontmatter once (walker.FrontCache), and the gate reads what it made
# of them. The cold row (pc) keeps the stores from before that start: the
# padding appeared mid-session, and the gate reads every pad. Past the
# racy window first, or nothing parsed is kept.
printf '{"session_id":"bench-padded","hook_event_name":"SessionStart","source":"startup","cwd":%s}' "$noproject_json" >"$T/start-p.json"
sleep 2.5
for b in "${bins[@]}"; do
	cp -a "$T/p-state-$b" "$T/pc-state-$b"
	CLAUDE_CONFIG_DIR=$T/p SKILLWIRE_STATE_DIR=$T/p-state-$b "$T/$b" hook session-start <"$T/start-p.json" >"$T/boot.out" || true
done
printf '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la && git status"},"cwd":%s}' "$noproject_json" >"$T/bash.json"
printf '{"hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"skill-042"},"cwd":%s}' "$noproject_json" >"$T/skill.json"
# The session start as the client sends it: with a session id, so the
# served copies it keeps for the gate are timed too (issue 31). A startup
# is a new session, each round its own id (new_session). The same id again
# is a resume, a /clear or a compaction: the session's copies are kept
# already.
new_session() {
	printf '{"session_id":"bench-new-%s","hook_event_name":"SessionStart","source":"startup","cwd":%s}' "$1" "$noproject_json" >"$T/start.json"
}
new_session 0
printf '{"session_id":"bench-session","hook_event_name":"SessionStart","source":"resume","cwd":%s}' "$noproject_json" >"$T/again.json"

# The commands, by label: a row, then @ and the binary for BASE's rows.
# Each is one fork and exec of a static binary.
rows=(version bash skill skill-padded skill-padded-cold session-start session-again session-daemon session-real)
# The floors, untimed against a target (internal/bench/floor): a program
# that starts as skillwire does, every package it links initialized.
# floor-inits does nothing more: no --version does less. floor looks once
# at each entry of tree h, with the store open: no start on an unchanged
# tree does less. floor-session also makes the two synced commits of a
# start with a session, its mark and its keep: no startup does less.
labels=(hello floor-inits floor-main floor floor-session "${rows[@]}")
if [[ -n ${BASE:-} ]]; then
	for r in "${rows[@]}"; do labels+=("$r@base-bin"); done
fi
declare -A what=(
	[hello]="hello-world (static Go)"
	[floor-inits]="floor of --version: skillwire's inits, nothing run"
	[floor-main]="the same in skillwire's binary: it exits as main starts"
	[floor]="floor of the walking start: skillwire's inits, store, fstatat per entry (h)"
	[floor-session]="the same, with a session's mark and keep (two synced commits)"
	[version]="skillwire --version"
	[bash]="pre-tool-use, Bash 'ls -la && git status'"
	[skill]="pre-tool-use, Skill, reviewed (h)"
	[skill-padded]="the same beside 200 x 64 KiB frontmatter (p)"
	[skill-padded-cold]="the same, the padding new since the start (p, cold)"
	[session-start]="session-start, walking, unchanged, 2,000 files (h)"
	[session-again]="the same, the session started again (resume) (h)"
	[session-daemon]="the same startup, the daemon watching the tree (hd)"
	[session-real]="session-start, a home like bench-client's, hooks set (r)"
)
declare -A target=([version]=1.5 [bash]=2 [skill]=3 [skill-padded]=3 [skill-padded-cold]=3 [session-start]=5 [session-again]=5 [session-daemon]=2.5)
# spec_of LABEL sets tree (h, p or none), its stores' prefix state (the
# tree's unless set), bin, stdin and argv of LABEL.
spec_of() {
	bin=skillwire
	[[ $1 != *@* ]] || bin=${1#*@}
	local b=$T/$bin
	tree='' state='' stdin=/dev/null argv=("$b" hook pre-tool-use)
	case ${1%@*} in
	hello) argv=("$T/hello") ;;
	floor-inits) argv=("$T/floor" -inits) ;;
	floor-main) argv=("$T/skillwire-exit") ;;
	floor) argv=("$T/floor" -state "$T/h-state-skillwire" "$T/h/skills") ;;
	floor-session) argv=("$T/floor" -state "$T/h-state-skillwire" -session "$T/h/skills") ;;
	version) argv=("$b" --version) ;;
	bash) tree=h stdin=$T/bash.json ;;
	skill) tree=h stdin=$T/skill.json ;;
	skill-padded) tree=p stdin=$T/skill.json ;;
	skill-padded-cold) tree=p state=pc stdin=$T/skill.json ;;
	session-start) tree=h stdin=$T/start.json argv=("$b" hook session-start) ;;
	session-again) tree=h stdin=$T/again.json argv=("$b" hook session-start) ;;
	session-daemon) tree=hd stdin=$T/start.json argv=("$b" hook session-start) ;;
	session-real) tree=r stdin=$T/start.json argv=("$b" hook session-start) ;;
	esac
}
# run_one LABEL [PREFIX...]: runs LABEL (under PREFIX, e.g. a counter) in
# its tree's environment. A prefix assignment costs no fork.
run_one() {
	local l=$1
	shift
	spec_of "$l"
	if [[ -n $tree ]]; then
		CLAUDE_CONFIG_DIR=$T/$tree SKILLWIRE_STATE_DIR=$T/${state:-$tree}-state-$bin "$@" "${argv[@]}" <"$stdin"
	else
		"$@" "${argv[@]}" <"$stdin"
	fi
}
# The daemon of each binary watches hd, stopped on any exit. Its rows are
# timed once it says it watches the whole tree.
daemon_pids=()
stop_daemons() { for p in "${daemon_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; }
bench_exit_hooks+=(stop_daemons)
for b in "${bins[@]}"; do
	CLAUDE_CONFIG_DIR=$T/hd SKILLWIRE_STATE_DIR=$T/hd-state-$b "$T/$b" daemon 2>"$T/daemon-$b.err" &
	daemon_pids+=($!)
	for ((i = 0; i < 200; i++)); do
		CLAUDE_CONFIG_DIR=$T/hd SKILLWIRE_STATE_DIR=$T/hd-state-$b "$T/$b" status --json 2>/dev/null | grep -q '"watching": *"whole"' && break
		sleep 0.05
	done
	CLAUDE_CONFIG_DIR=$T/hd SKILLWIRE_STATE_DIR=$T/hd-state-$b "$T/$b" status --json 2>/dev/null | grep -q '"watching": *"whole"' ||
		die "$b: the daemon never watched the whole tree: $(head -c 400 "$T/daemon-$b.err")"
done

# Every hook must answer nothing: the trees are unchanged and reviewed, so
# anything printed means the row times something else. BASE's rows are
# timed whatever they answer: the padded row was its miss.
for l in "${rows[@]}"; do
	[[ $l == version ]] && continue
	run_one "$l" >"$T/check.out" 2>"$T/check.err" || die "$l exited $?: $(head -c 300 "$T/check.err")"
	[[ ! -s $T/check.out && ! -s $T/check.err ]] || die "$l is not silent: $(head -c 300 "$T/check.out" "$T/check.err")"
done

# child_cpu_ms sets cpu to the user + system ms of every child so far
# (the times builtin: no fork).
child_cpu_ms() {
	local u s
	times >"$T/times"
	{
		read -r _
		read -r u s
	} <"$T/times"
	cpu=0
	for x in "$u" "$s"; do
		local m=${x%%m*} sec=${x#*m}
		sec=${sec%s}
		cpu=$((cpu + 10#$m * 60000 + 10#${sec%.*} * 1000 + 10#${sec#*.}))
	done
}
note "timing ${#labels[@]} commands, interleaved, $RUNS rounds after $WARMUP"
declare -A cpu_sum
for l in "${labels[@]}"; do
	: >"$T/times-$l"
	cpu_sum[$l]=0
done
for ((r = 0; r < WARMUP + RUNS; r++)); do
	new_session "$r" # outside the timing
	for l in "${labels[@]}"; do
		child_cpu_ms
		c0=$cpu
		t0=${EPOCHREALTIME/./}
		run_one "$l" >/dev/null 2>&1
		t1=${EPOCHREALTIME/./}
		child_cpu_ms
		((r < WARMUP)) || {
			echo $((t1 - t0)) >>"$T/times-$l"
			cpu_sum[$l]=$((cpu_sum[$l] + cpu - c0))
		}
	done
done
median_ms() { sort -n "$1" | awk '{v[NR] = $1} END {printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1000}'; }
declare -A med
declare -A cpu_ms
for l in "${labels[@]}"; do
	med[$l]=$(median_ms "$T/times-$l")
	cpu_ms[$l]=$(awk -v c="${cpu_sum[$l]}" -v n="$RUNS" 'BEGIN {printf "%.2f", c / n}')
done

# Page faults and peak RSS of one run of each.
declare -A faults rss
new_session faults
for l in "${labels[@]}"; do
	faults[$l]=- rss[$l]=-
	if [[ -x /usr/bin/time ]] && run_one "$l" /usr/bin/time -v -o "$T/time" >/dev/null 2>&1; then
		faults[$l]=$(awk -F': ' '/Minor .*page faults/ {print $2}' "$T/time")
		rss[$l]=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$T/time")
	fi
done

echo
echo "issue 34: the hook path beside hello-world, one run, interleaved"
describe_machine
echo "load average (1, 5, 15 min): $(loadavg)"
echo "timer: bash EPOCHREALTIME around each fork+exec+wait, median of $RUNS rounds after $WARMUP; every row pays the same fork"
echo "CPU: user + system of the child (the times builtin, 1 ms steps), mean of the same runs; verdicts are on wall time"
[[ -z ${BASE:-} ]] || echo "BASE: the binary built at $(git log -1 --format=%h "$BASE"), its own stores, in the same rounds"
echo "binary: $(stat -c %s "$sw" | awk '{printf "%.1f MB", $1 / 1e6}') skillwire, $(stat -c %s "$T/hello" | awk '{printf "%.1f MB", $1 / 1e6}') hello-world$([[ -z ${BASE:-} ]] || stat -c %s "$T/base-bin" | awk '{printf ", %.1f MB BASE", $1 / 1e6}')"
echo "faults (minor page faults), RSS: /usr/bin/time -v of one run"
echo
printf '  %-58s %9s %7s %7s %7s %7s %8s %7s  %s\n' command "median ms" ratio target "CPU ms" ratio faults "RSS MB" verdict
for l in "${labels[@]}"; do
	row=${what[${l%@*}]}
	[[ $l != *@* ]] || row="BASE: $row"
	ratio=$(awk -v a="${med[$l]}" -v b="${med[hello]}" 'BEGIN {printf "%.2f", a / b}')
	verdict=- tgt=-
	if [[ $l != *@* && -n ${target[$l]:-} ]]; then
		tgt="<=${target[$l]}"
		verdict=$(awk -v r="$ratio" -v t="${target[$l]}" 'BEGIN {print (r <= t) ? "met" : "MISSED"}')
	fi
	cratio=$(awk -v a="${cpu_ms[$l]}" -v b="${cpu_ms[hello]}" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
	printf '  %-58s %9s %7s %7s %7s %7s %8s %7s  %s\n' "$row" "${med[$l]}" "${ratio}x" "$tgt" "${cpu_ms[$l]}" "${cratio}x" "${faults[$l]}" "${rss[$l]}" "$verdict"
done

echo
echo "package inits of skillwire --version (GODEBUG=inittrace=1; tracing inflates each):"
GODEBUG=inittrace=1 "$sw" --version 2>&1 >/dev/null | awk '/^init / {n++; ms += $5; print $5, $2}' | sort -rn >"$T/inits"
awk '{ms += $1} END {printf "  %d packages, %.2f ms in all; the costliest:\n", NR, ms}' "$T/inits"
head -n 8 "$T/inits" | awk '{printf "    %6.3f ms  %s\n", $1, $2}'

if have strace; then
	echo
	echo "runtime hand-offs of the walking session start (strace -f -c, one run):"
	new_session strace
	run_one session-start strace -f -c -o "$T/strace" >/dev/null 2>&1 || true
	awk '$NF ~ /^(nanosleep|futex|clone3?|sched_yield|epoll_pwait|newfstatat|statx|openat|getdents64|read)$/ && $4 ~ /^[0-9]+$/ {printf "    %-12s %6d\n", $NF, $4} $NF == "total" {printf "    %-12s %6d\n", "total", $4}' "$T/strace"
fi
