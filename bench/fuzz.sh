#!/usr/bin/env bash
# Fuzzes each target of tests/fuzz for longer than CI does, and prints a table:
# executions, executions per second, coverage (edges of the target's own source files
# reached by the whole corpus, from libFuzzer's -print_coverage) and crashes.
#   bench/fuzz.sh BUILD SECONDS [TARGET...]
# BUILD is a build with libFuzzer targets (clang: docs/HACKING.md, e.g. build-san).
# What the fuzzer finds interesting accumulates in BUILD/fuzz-work/TARGET (kept between
# runs; seed it into tests/fuzz/corpus with tests/fuzz/make_corpus.sh's merge if it
# matters); crashes go to BUILD/tests/fuzz/artifacts/, and the script exits 1.
set -u
cd "$(dirname "$0")/.."
build=${1:?usage: bench/fuzz.sh BUILD SECONDS [TARGET...]}
secs=${2:?usage: bench/fuzz.sh BUILD SECONDS [TARGET...]}
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(ptx spec expr nvccdiag ncu state mdview events result)
art=$build/tests/fuzz/artifacts
mkdir -p "$art"
printf '%-9s %12s %9s %8s %17s %7s\n' target executions exec/s corpus "edges covered" crashes
bad=0
for t in "${targets[@]}"; do
	exe=$build/tests/fuzz/fuzz_$t
	if ! "$exe" -help=1 2>&1 | grep -q libFuzzer; then
		echo "$exe is not a libFuzzer target (build with clang: docs/HACKING.md)" >&2
		exit 2
	fi
	work=$build/fuzz-work/$t
	mkdir -p "$work"
	dirs=("$work" "tests/fuzz/corpus/$t")
	[ -d "tests/fuzz/regress/$t" ] && dirs+=("tests/fuzz/regress/$t")
	before=$(ls "$art" | grep -c "^fuzz_$t-")
	log=$build/fuzz-work/$t.log
	# -fork: a crash is recorded and fuzzing goes on, so one bug does not hide the next
	"$exe" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
		-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
		-artifact_prefix="$art/fuzz_$t-" "${dirs[@]}" >"$log" 2>&1
	execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | awk '{s+=$2} END {print s+0}')
	if [ "$execs" = 0 ]; then # -fork prints its own totals
		execs=$(grep -oE '^#[0-9]+: cov:' "$log" | tail -1 | tr -dc 0-9)
	fi
	after=$(ls "$art" | grep -c "^fuzz_$t-")
	case $t in # the files each target is about (the rest is linked, not fuzzed)
	ptx) files='emu/(ptx[a-z_]*|uniformity)\.c' ;;
	spec) files='grader/(spec|spec_schema|yamlpos|expr)\.c' ;;
	state) files='ui/state\.c' ;;
	mdview) files='ui/(mdview|sline|utf8)\.c' ;;
	events) files='grader/(memcheck|barriers)\.c' ;;
	result) files='grader/(harness/pl_io|compare)\.c' ;;
	*) files="grader/$t\\.c" ;;
	esac
	cov=$("$exe" -runs=0 -print_coverage=1 "${dirs[@]}" 2>&1 |
		grep -E '^(UN)?COVERED_FUNC' | grep -E " [^ ]*$files:[0-9]+\$" |
		grep -oE 'edges: [0-9]+/[0-9]+' |
		awk -F'[ /]' '{c+=$2; n+=$3} END {printf "%d/%d %.0f%%", c, n, n ? 100*c/n : 0}')
	printf '%-9s %12s %9s %8s %17s %7s\n' "$t" "${execs:-?}" "$(( ${execs:-0} / secs ))" \
		"$(ls "$work" | wc -l)" "$cov" "$((after - before))"
	[ "$after" -gt "$before" ] && bad=1
done
exit $bad
