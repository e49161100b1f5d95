#!/usr/bin/env bash
# internal/bench/reuse.sh: issue 23, real trees fast (`make bench-reuse`, and the
# end of `make bench`). Builds the binary before hash reuse (BASE, default
# the parent of the commit that added walker/hashes.go) and this tree's,
# and times both side by side, interleaved (A B A B ...), on a warm cache:
# `--version` (the process floor) and the SessionStart hook with nothing
# changed on two trees: 100 skills of 20 files of 4 KiB, and one plugin
# with a node_modules of 54,000 files of 4 KiB in 2,700 directories. Then
# it counts the hook's system calls with strace -f -c. Medians of RUNS
# (default 21) after WARMUP (default 3) runs of each, and the mean CPU
# time (user + system, getrusage of the children) of each. The floor of
# the small tree is internal/bench/floor: a program that starts as skillwire does,
# opens the store read-only and does one fstatat per entry of the tree.
set -euo pipefail

RUNS=${RUNS:-21}
WARMUP=${WARMUP:-3}
BENCH_NAME=reuse
# shellcheck source=internal/bench/lib/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib/common.sh"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, not '$RUNS'"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be a non-negative integer, not '$WARMUP'"
bench_init
install_missing strace=strace

added=$(git log --diff-filter=A --format=%H -- walker/hashes.go | tail -n 1)
BASE=${BASE:-${added:+$added^}}
[[ -n $BASE ]] || die "no BASE given and walker/hashes.go has no history"
note "building skillwire at $(git log -1 --format=%h "$BASE") (before) and from the working tree (after)"
mkdir -p "$T/base"
git archive "$BASE" | tar -x -C "$T/base"
(cd "$T/base" && CGO_ENABLED=0 go build -o "$T/before" ./cmd/skillwire) || die "building $BASE failed"
build after cmd/skillwire
build gentree internal/bench/gentree
build floor internal/bench/floor

note "generating trees"
mkdir -p "$T/h/cfg" "$T/p/cfg/plugins/cache/acme/big/1.0.0"
"$T/gentree" -dirs 100 -files 20 -size 4096 -prefix skill- "$T/h/cfg/skills"
"$T/gentree" -dirs 2700 -files 20 -size 4096 -prefix m- "$T/p/cfg/plugins/cache/acme/big/1.0.0/node_modules"
unset SKILLWIRE_MAX_ENTRIES SKILLWIRE_MAX_BYTES SKILLWIRE_MANAGED_DIR
export CLAUDE_PROJECT_DIR=$T/noproject

# hook BIN TREE [ENV...]: the SessionStart hook of BIN on TREE, with its
# own store for each binary.
hook() {
	local bin=$1 tree=$2
	shift 2
	env CLAUDE_CONFIG_DIR="$T/$tree/cfg" SKILLWIRE_STATE_DIR="$T/$tree/state-$bin${1:+-raised}" "$@" \
		"$T/$bin" hook session-start </dev/null
}
raised=(SKILLWIRE_MAX_ENTRIES=250000 SKILLWIRE_MAX_BYTES=$((2 << 30)))
# Bootstrap each store, then wait out the racy window so the files are
# old enough to be recorded, and fill the cache.
for tree in h p; do
	for bin in before after; do
		hook "$bin" "$tree" >"$T/boot.out"
	done
	hook before "$tree" "${raised[@]}" >"$T/boot.out"
done
sleep 2.5
for tree in h p; do
	hook after "$tree" >"$T/boot.out"
	out=$(hook after "$tree")
	[[ -z $out ]] || die "the hook is not silent on unchanged tree $tree: ${out:0:300}"
done
partial=$(hook before p | grep -c 'not fully observable' || true)
partial_after=$(hook after p | grep -c 'not fully observable' || true)

declare -A label=(
	[v0]="before: skillwire --version" [v1]="after:  skillwire --version"
	[h0]="before: hook, 100 x 20 files" [h1]="after:  hook, 100 x 20 files"
	[hf]="floor:  100 x 20 files (internal/bench/floor: fstatat per entry, store)"
	[p0]="before: hook, 54,000-file plugin (default budget: partial)"
	[pr]="before: hook, 54,000-file plugin, budget raised to 250,000"
	[p1]="after:  hook, 54,000-file plugin"
	[pf]="floor:  find -size +1G on the plugin (one fstatat per entry)"
)
order=(v0 v1 h0 h1 hf p0 pr p1 pf)
run() {
	case $1 in
	v0) "$T/before" --version ;;
	v1) "$T/after" --version ;;
	h0) hook before h ;;
	h1) hook after h ;;
	hf) "$T/floor" -state "$T/h/state-after" "$T/h/cfg" ;;
	p0) hook before p ;;
	pr) hook before p "${raised[@]}" ;;
	p1) hook after p ;;
	pf) find "$T/p/cfg/plugins" -size +1G ;;
	esac >/dev/null
}
note "timing, interleaved: $RUNS runs of each after $WARMUP warmups; load average $(loadavg)"
for ((i = 0; i < WARMUP; i++)); do
	for k in "${order[@]}"; do run "$k"; done
done
# children_cpu sets cpu_ms to the user + system time of every child this
# shell waited for (the builtin times: getrusage, in ms). Nothing here may
# start a process or a subshell (command substitution): it would be a
# child counted in the run it brackets. For the same reason the clock is
# read as $EPOCHREALTIME, never in a command substitution.
ms_of() { # 1m2.345s -> ms
	local t=${1%s} frac
	frac=${t#*m}
	frac=${frac//[!0-9]/}
	cpu_ms=$((cpu_ms + ${t%%m*} * 60000 + 10#$frac))
}
children_cpu() {
	local user sys
	times >"$T/times"
	{
		read -r _ _
		read -r user sys
	} <"$T/times"
	cpu_ms=0
	ms_of "$user"
	ms_of "$sys"
}
declare -A cpu
for k in "${order[@]}"; do
	: >"$T/t.$k"
	cpu[$k]=0
done
for ((i = 0; i < RUNS; i++)); do
	for k in "${order[@]}"; do
		children_cpu
		c0=$cpu_ms
		t0=${EPOCHREALTIME//[!0-9]/}
		run "$k"
		t1=${EPOCHREALTIME//[!0-9]/}
		children_cpu
		echo $((t1 - t0)) >>"$T/t.$k"
		cpu[$k]=$((cpu[$k] + cpu_ms - c0))
	done
done
median() { sort -n "$1" | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m / 1000}'; }
declare -A ms
for k in "${order[@]}"; do ms[$k]=$(median "$T/t.$k"); done

echo "skillwire hash reuse (issue 23), before = $(git log -1 --format=%h "$BASE"), after = the working tree"
describe_machine
echo "load average (1, 5, 15 min) at the end: $(loadavg); $RUNS interleaved runs each, median wall ms, mean CPU ms (user + sys)"
for k in "${order[@]}"; do
	printf '  %-62s %9s %9s\n' "${label[$k]}" "${ms[$k]}" "$(awk -v c="${cpu[$k]}" -v n="$RUNS" 'BEGIN {printf "%.2f", c / n}')"
done
echo "  (before, default budget: the plugin told as not fully observable: $partial line(s))"

if have strace; then
	echo "system calls of one hook run, 100 x 20 files (strace -f -c):"
	for bin in before after; do
		CLAUDE_CONFIG_DIR=$T/h/cfg SKILLWIRE_STATE_DIR=$T/h/state-$bin strace -f -c -o "$T/st.$bin" "$T/$bin" hook session-start </dev/null >/dev/null
		awk -v b="$bin" '$NF ~ /^(openat|newfstatat|fstat|statx|read|close|getdents64|nanosleep|futex|total)$/ {
			n = ($NF == "total") ? $(NF - 2) : $4; printf "  %-7s %-11s %7d\n", b, $NF, n }' "$T/st.$bin"
	done
	strace -f -c -o "$T/st.floor" "$T/floor" -state "$T/h/state-after" "$T/h/cfg" >/dev/null
	awk '$NF ~ /^(openat|newfstatat|statx|getdents64|total)$/ {
		n = ($NF == "total") ? $(NF - 2) : $4; printf "  %-7s %-11s %7d\n", "floor", $NF, n }' "$T/st.floor"
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
verdict() { if awk -v a="$1" -v b="$2" 'BEGIN {exit !(a <= b)}'; then echo met; else echo MISSED; fi; }
rh=$(ratio "${ms[h1]}" "${ms[v1]}")
echo "targets (issue 23):"
printf '  %-62s %9s  %s\n' "hook on 100 x 20 files within 2.5x --version (after; before $(ratio "${ms[h0]}" "${ms[v0]}")x)" "${rh}x" "$(verdict "$rh" 2.5)"
printf '  %-62s %9s\n' "  (its floor, internal/bench/floor / --version)" "$(ratio "${ms[hf]}" "${ms[v1]}")x"
printf '  %-62s %9s  %s\n' "hook on a 54,000-file plugin < 150 ms (floor ${ms[pf]} + --version)" "${ms[p1]}" "$(verdict "${ms[p1]}" 150)"
whole=met
((partial_after == 0)) || whole=MISSED
printf '  %-62s %9s  %s\n' "the 54,000-file plugin observed whole by default" "$([[ $whole == met ]] && echo whole || echo partial)" "$whole"
