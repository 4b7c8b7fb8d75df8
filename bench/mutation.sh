#!/bin/sh
# Mutation testing of every lab (issue 14 part 5): runs `pmpplab lab mutate` on each lab
# and prints the table that labs/README.md and bench/mutation.md show. Each lab's full
# report (every mutant, the survivors' diffs) goes to OUT/<lab>.txt.
#
#   bench/mutation.sh [-b BUILD] [-j JOBS] [-o OUT] [-l LIMIT] [LAB...]
#
# BUILD defaults to ./build, JOBS to the number of CPUs, OUT to /tmp/pmpplab-mutation;
# LIMIT grades a fixed sample of that many mutants per lab (default: all). The seed is
# fixed, so two runs on the same sources give the same table. A full run grades about
# 1400 mutants: about an hour on 2 cores (most of it nvcc).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
jobs=$(nproc)
out=/tmp/pmpplab-mutation
limit=0
while getopts b:j:o:l: opt; do
	case $opt in
	b) build=$OPTARG ;;
	j) jobs=$OPTARG ;;
	o) out=$OPTARG ;;
	l) limit=$OPTARG ;;
	*) echo "usage: $0 [-b BUILD] [-j JOBS] [-o OUT] [-l LIMIT] [LAB...]" >&2; exit 2 ;;
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

echo "| lab | generated | stillborn | equivalent | judged | killed | survived | kill rate | named check | minutes |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
status=0
for lab in "$@"; do
	report=$out/$lab.txt
	rc=0
	"$pmpplab" lab mutate "$root/labs/$lab" -j "$jobs" --limit "$limit" --seed 14 \
		--min-kill-rate 95 >"$report" 2>&1 || rc=$?
	[ $rc -le 1 ] || { echo "| $lab | could not be mutated: see $report | | | | | | | | |"; status=2; continue; }
	[ $rc -eq 0 ] || status=1
	# mutate: LAB generated G stillborn S equivalent E judged J killed K survived V kill-rate R% (T s)
	summary=$(grep '^mutate: ' "$report" | tail -1)
	named=$(sed -n 's/^  named check: \([0-9]*\) of \([0-9]*\) .*/\1\/\2/p' "$report" | tail -1)
	echo "$summary" | awk -v named="$named" '{
		gsub(/[()]/, "", $17);
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f |\n", $2, $4, $6, $8, $10, $12, $14, $16, named, $17 / 60 }'
done
exit $status
