# shellcheck shell=bash
# internal/bench/lib/common.sh: what the bench scripts (bench.sh, compare.sh,
# daemon.sh) share.
# Sourced, never run. The caller sets BENCH_NAME (the prefix of its
# messages) and then calls bench_init, which finds the repository (and cd's
# into it) and makes the temporary directory $T, removed on any exit
# (Ctrl-C included) after the functions in bench_exit_hooks ran.

note() { printf '%s: %s\n' "$BENCH_NAME" "$*" >&2; }
die() {
	note "$*"
	exit 1
}

bench_exit_hooks=()
bench_cleanup() {
	local h
	for h in "${bench_exit_hooks[@]}"; do
		"$h" || true
	done
	[[ -z ${T:-} ]] || rm -rf -- "$T"
}

bench_init() {
	repo=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../../.." && pwd -P) || die "cannot find the repository"
	cd -- "$repo" || die "cannot enter $repo"
	[[ -f go.mod && -d cmd/skillwire && -d internal/bench/gentree ]] || die "$repo does not look like the skillwire repository"
	command -v go >/dev/null || die "go is not on PATH"
	T=$(mktemp -d "${TMPDIR:-/tmp}/skillwire-$BENCH_NAME-XXXXXX") || die "cannot make a temporary directory"
	trap bench_cleanup EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

have() { command -v "$1" >/dev/null; }

# json_string S: S as a JSON string, quoted, its backslashes and quotes
# escaped. A control character in S is refused (die): no path a bench
# writes into JSON holds one.
json_string() {
	local s=$1
	[[ $s != *[[:cntrl:]]* ]] || die "refusing to write a control character into JSON: $(printf %q "$s")"
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	printf '"%s"' "$s"
}

# install_missing TOOL=PACKAGE...: names the Debian package of every TOOL
# not on PATH (a TOOL with a slash is a path), and the run goes on without
# them. Installing changes the machine, so it is asked for:
# SKILLWIRE_BENCH_INSTALL=1, as root with apt-get, installs each package on
# its own (one that cannot be had does not stop the others), after one
# apt-get update; a failure is said and the run goes on without that tool.
install_missing() {
	local pair tool pkg missing=() pkgs=()
	for pair in "$@"; do
		tool=${pair%%=*}
		if [[ $tool == */* ]]; then
			[[ -x $tool ]] && continue
		else
			have "$tool" && continue
		fi
		missing+=("$tool")
		pkgs+=("${pair#*=}")
	done
	((${#missing[@]})) || return 0
	if [[ ${SKILLWIRE_BENCH_INSTALL:-} != 1 ]]; then
		note "not installed: ${missing[*]} (Debian packages: ${pkgs[*]}); going on without them." \
			"SKILLWIRE_BENCH_INSTALL=1 installs them with apt-get when run as root"
		return 0
	fi
	if [[ $EUID -ne 0 ]] || ! have apt-get; then
		note "not installed: ${missing[*]}: SKILLWIRE_BENCH_INSTALL=1 needs root and apt-get" \
			"(install Debian packages ${pkgs[*]} yourself); going on without them"
		return 0
	fi
	note "installing Debian packages ${pkgs[*]} with apt-get (SKILLWIRE_BENCH_INSTALL=1)"
	if ! apt-get update -qq >"$T/apt.log" 2>&1; then
		note "apt-get update failed; going on without ${missing[*]}:"
		tail -n 3 "$T/apt.log" >&2
		return 0
	fi
	for pkg in "${pkgs[@]}"; do
		if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >"$T/apt.log" 2>&1; then
			note "apt-get install $pkg failed; going on without it:"
			tail -n 3 "$T/apt.log" >&2
		fi
	done
}

# build NAME PACKAGE: go build PACKAGE into $T/NAME, static as `make build` builds it.
build() {
	CGO_ENABLED=0 go build -o "$T/$1" "./$2" || die "go build ./$2 failed"
}

# describe_machine prints what the numbers were measured on, and which
# source: the tree changes under us while others work in it.
describe_machine() {
	local model
	model=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
	echo "machine: $(nproc) CPUs ($model), $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, Linux $(uname -r), $(go env GOVERSION)"
	echo "source: commit $(git -C "$repo" log -1 --format=%h) with $(git -C "$repo" status --short | wc -l) uncommitted paths (git status --short | wc -l)"
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
