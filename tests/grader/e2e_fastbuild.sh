#!/bin/bash
# The emulator's fast build (issue 16) against the full one, by running what they build.
# One emulator worker: with several, which block's fault (a divergent barrier at line 20
# or 24) stops a launch first depends on timing, and that is not the build's doing.
# Per lab, in one cache: the solution is graded (a full build, whose program becomes
# reusable); then each known-wrong file W, whose host code is mostly the solution's, so
# that the fast build takes it (the solution's program, W's PTX). Where W's host code
# differs (a full build, W's program now reusable), W' = W with a statement added to its
# first kernel (its device code changes, its host code does not) is graded instead, and
# the solution' likewise. Each fast grading is compared with a grading of the same file
# with PMPPLAB_FAST_BUILD=0 in a cache of its own: same tests, scores and outputs.
#
# usage: e2e_fastbuild.sh PMPPLAB SOURCE_ROOT [LAB...]
# env: WRONG=N grades only the first N known-wrong files of each lab (all by default).
# Quick grades, seed fixed; two labs at a time. Exits 77 when this build cannot grade
# on the emulator (no nvcc, no emulator runtime).
set -u
PMPPLAB=${1:?usage: e2e_fastbuild.sh PMPPLAB SOURCE_ROOT [LAB...]}
SRC=${2:?usage: e2e_fastbuild.sh PMPPLAB SOURCE_ROOT [LAB...]}
shift 2
LABS=("$@")
if [ ${#LABS[@]} = 0 ]; then
	for d in "$SRC"/kernels/*/solution.cu; do
		lab=$(basename "$(dirname "$d")")
		[ -f "$SRC/labs/$lab/lab.yaml" ] && LABS+=("$lab")
	done
fi
WORK=$(mktemp -d /tmp/pmpplab-fastbuild.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
SEED=16016

"$PMPPLAB" --labs "$SRC/labs" --grade 01-vecadd --quick --backend emu \
	--submission "$SRC/kernels/01-vecadd/solution.cu" >"$WORK/probe.txt" 2>&1
case $? in
0) ;;
2) echo "skipped: cannot grade on the emulator here:"; cat "$WORK/probe.txt"; exit 77 ;;
*) echo "FAIL: lab 01's solution does not pass:"; cat "$WORK/probe.txt"; exit 1 ;;
esac

# The tests of a JSON report, one per line, without what differs between any two runs
# of one program: the addresses of device memory (ASLR), and the folder of the file.
tests_of() {
	python3 -c '
import json, re, sys
r = json.load(open(sys.argv[1]))
for t in r["tests"]:
    out = re.sub(r"0x[0-9a-f]{8,}", "0xADDRESS", t.get("output", ""))
    out = re.sub(r"/cache-(fast|slow)/", "/cache/", out)  # the file graded, by its path
    print(json.dumps([t["name"], t["status"], t["score"], t["max_score"], out]))
' "$1"
}

# Grades FILE as the lab's student file in cache CACHE into OUT.json (OUT.err); the rest
# of the arguments go to the environment.
grade() {
	local lab=$1 file=$2 cache=$3 out=$4 student dir
	shift 4
	student=$(sed -n 's/^student: *//p' "$SRC/labs/$lab/lab.yaml")
	# one folder per lab and cache: the glue includes the file by its path
	dir="$WORK/$lab/$(basename "$cache")" && mkdir -p "$dir"
	cp "$file" "$dir/$student"
	env PMPPLAB_CACHE="$cache" PMPPLAB_EMU_THREADS=1 "$@" "$PMPPLAB" --labs "$SRC/labs" --grade "$lab" --quick \
		--backend emu --seed $SEED --format json --submission "$dir/$student" >"$out.json" 2>"$out.err"
}

# F' for F: the first kernel's opening brace gets a statement (same lines, new PTX).
edited() {
	awk '{ if (g == 1 && /^{/) { print "{ if (blockIdx.x == 1 && threadIdx.x == 0) return;"; g = 2; next }
		print } /^(extern "C" )?__global__/ && !g { g = 1 }' "$1"
}

reused() { grep -q '"build": "ptx only, program reused"' "$1.json"; }

# One lab: prints "OK file", "NONE file" (no kernel), "SLOW file (why)" or "DIFF file".
lab_run() {
	local lab=$1 fast="$WORK/cache-fast" i=0 f g out
	mkdir -p "$WORK/$lab"
	grade "$lab" "$SRC/kernels/$lab/solution.cu" "$fast" "$WORK/$lab/base"
	local wrong=("$SRC/kernels/$lab"/wrong/*.cu)
	[ -z "${WRONG:-}" ] || wrong=("${wrong[@]:0:$WRONG}")
	for f in "$SRC/kernels/$lab/solution.cu" "${wrong[@]}"; do
		[ -f "$f" ] || continue
		i=$((i + 1))
		out="$WORK/$lab/$i"
		local rel=${f#"$SRC"/kernels/}
		if ! grep -q '^\(extern "C" \)\?__global__' "$f"; then
			echo "NONE $rel (no kernel: no device code to change)"
			continue
		fi
		g=$f
		if [ "$f" = "$SRC/kernels/$lab/solution.cu" ] || { grade "$lab" "$f" "$fast" "$out.w"; ! reused "$out.w"; }; then
			edited "$f" >"$out.cu"
			g=$out.cu
			rel="$rel'"
		fi
		if [ "$g" = "$f" ]; then
			cp "$out.w.json" "$out.fast.json"
		else
			grade "$lab" "$g" "$fast" "$out.fast"
		fi
		grade "$lab" "$g" "$WORK/cache-slow" "$out.slow" PMPPLAB_FAST_BUILD=0
		if ! reused "$out.fast"; then
			echo "SLOW $rel (the fast build was not taken: $(head -c 200 "$out.fast.err"))"
		elif [ "$(tests_of "$out.fast.json")" = "$(tests_of "$out.slow.json")" ]; then
			echo "OK   $rel"
		else
			echo "DIFF $rel"
			diff <(tests_of "$out.slow.json") <(tests_of "$out.fast.json") | head -20
		fi
	done
}
export -f grade edited reused lab_run tests_of
export PMPPLAB SRC WORK SEED WRONG

printf '%s\n' "${LABS[@]}" | xargs -P 2 -L 1 bash -c 'lab_run "$0"' >"$WORK/results.txt"
cat "$WORK/results.txt"
total=$(grep -c '^\(OK\|DIFF\|SLOW\)' "$WORK/results.txt")
ok=$(grep -c '^OK' "$WORK/results.txt")
diff=$(grep -c '^DIFF' "$WORK/results.txt")
slow=$(grep -c '^SLOW' "$WORK/results.txt")
echo "fast build vs full build: $ok of $total files identical, $diff different, $slow not taken, $(grep -c '^NONE' "$WORK/results.txt") without a kernel"
[ "$total" -gt 0 ] || { echo "FAIL: no file graded"; exit 1; }
[ "$diff" = 0 ] || { echo "FAIL: the fast build changed a result"; exit 1; }
# Every lab file has host code the fast build can follow; one it cannot is a regression.
[ "$slow" = 0 ] || { echo "FAIL: the fast build was not taken for $slow files"; exit 1; }
echo "ok"
