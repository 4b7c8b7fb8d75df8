#!/bin/sh
# Mutation testing of every lab (issue 14 part 5): runs `pmpplab lab mutate` on each lab
# and prints the table that labs/README.md and bench/mutation.md show. Each lab's full
# report (every mutant, the survivors' diffs) goes to OUT/<lab>.txt.
#
#   bench/mutation.sh [-b BUILD] [-j JOBS] [-o OUT] [-l LIMIT] [-p] [LAB...]
#
# BUILD defaults to ./build, JOBS to the number of CPUs, OUT to /tmp/pmpplab-mutation;
# LIMIT grades a fixed sample of that many mutants per lab (default: all). The seed is
# fixed, so two runs on the same sources give the same table. A full run grades about
# 2,800 mutants (half of them stillborn): 8 to 15 hours on 2 cores, most of it nvcc.
# -p grades the labs at the same time, JOBS shared between them by their number of
# mutants (a lab of 33 mutants cannot keep 64 cores busy): for a machine of many cores,
# where the full table takes minutes. Each program run then gets one emulator thread
# (PMPPLAB_EMU_THREADS=1), since the mutants already fill the cores.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
jobs=$(nproc)
out=/tmp/pmpplab-mutation
limit=0
parallel=false
while getopts b:j:o:l:p opt; do
	case $opt in
	b) build=$OPTARG ;;
	j) jobs=$OPTARG ;;
	o) out=$OPTARG ;;
	l) limit=$OPTARG ;;
	p) parallel=true ;;
	*) echo "usage: $0 [-b BUILD] [-j JOBS] [-o OUT] [-l LIMIT] [-p] [LAB...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
pmpplab=$build/ui/pmpplab
if [ ! -x "$pmpplab" ]; then
	echo "$0: no $pmpplab: build first (meson setup build && ninja -C build)" >&2
	exit 2
fi
if [ $# -eq 0 ]; then
	set -- $(cd "$root/labs" && ls -d [0-9]*/ | tr -d /)
fi
mkdir -p "$out"
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$out/cache}

# mutate LAB JOBS: the lab's report into OUT/LAB.txt, its exit status into OUT/LAB.rc
mutate() {
	rc=0
	"$pmpplab" lab mutate "$root/labs/$1" -j "$2" --limit "$limit" --seed 14 \
		--min-kill-rate 95 >"$out/$1.txt" 2>&1 || rc=$?
	echo $rc >"$out/$1.rc"
}

if $parallel; then
	export PMPPLAB_EMU_THREADS=1
	# each lab's share of JOBS: its number of mutants times the time its solution takes
	# to grade (a conv-layer mutant costs ten vector additions), at least one job a lab
	for lab in "$@"; do
		(
			n=$("$pmpplab" lab mutate "$root/labs/$lab" --dry-run 2>/dev/null | grep -cE '^ *m[0-9]+ ' || true)
			sol=$(sed -n 's/^solution: *//p' "$root/labs/$lab/lab.yaml")
			t0=$(date +%s.%N)
			"$pmpplab" --grade "$lab" --backend emu --quick --seed 14 \
				--submission "$root/labs/$lab/$sol" >/dev/null 2>&1 || true
			echo "$n $(date +%s.%N)" | awk -v t0="$t0" '{ print $1, $2 - t0 }' >"$out/$lab.cost"
		) &
	done
	wait
	total=$(for lab in "$@"; do cat "$out/$lab.cost"; done | awk '{ s += $1 * $2 } END { print s }')
	for lab in "$@"; do
		share=$(awk -v j="$jobs" -v t="$total" '{ s = int(j * $1 * $2 / t + 0.5); print s < 1 ? 1 : s }' "$out/$lab.cost")
		echo "$lab: $(cat "$out/$lab.cost") (mutants, seconds for the solution): $share jobs" >&2
		mutate "$lab" "$share" &
	done
	wait
else
	for lab in "$@"; do
		mutate "$lab" "$jobs"
	done
fi

echo "| lab | generated | stillborn | equivalent | judged | killed | survived | errors | kill rate | named check | minutes |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
status=0
for lab in "$@"; do
	report=$out/$lab.txt
	rc=$(cat "$out/$lab.rc")
	[ "$rc" -le 1 ] || { echo "| $lab | could not be mutated: see $report | | | | | | | | | |"; status=2; continue; }
	[ "$rc" -eq 0 ] || status=1
	# mutate: LAB generated G stillborn S equivalent E judged J killed K survived V errors X kill-rate R% (T s)
	summary=$(grep '^mutate: ' "$report" | tail -1)
	named=$(sed -n 's/^  named check: \([0-9]*\) of \([0-9]*\) .*/\1\/\2/p' "$report" | tail -1)
	echo "$summary" | awk -v named="$named" '{
		gsub(/[()]/, "", $19);
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f |\n", $2, $4, $6, $8, $10, $12, $14, $16, $18, named, $19 / 60 }'
done
exit $status
