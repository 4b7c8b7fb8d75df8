#!/bin/bash
# A class graded through a real Slurm cluster: scripts/slurm-local starts munged,
# slurmctld and slurmd on localhost (a config written into a temporary folder, no
# cgroups), then `pmpplab --grade --submissions --slurm --chunk 2` submits one job array,
# waits for it and builds the gradebook, which must equal a local run's with the same
# seed; then --no-wait and a later --collect. Skipped (77) only where Slurm and munge
# are not installed or cannot start here (the reason is printed).
# usage: e2e_slurm.sh PMPPLAB SOURCE_ROOT
set -u
pmpplab=$1 root=$2
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$(mktemp -d)}
tmp=$(mktemp -d)
cluster=$tmp/cluster
trap '"$root/scripts/slurm-local" stop "$cluster"; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
start=$(date +%s)
"$root/scripts/slurm-local" start "$cluster"
case $? in
  0) ;;
  3) echo "Slurm or munge is not installed here (scripts/bootstrap installs slurmctld, slurmd, slurm-client, munge): skipped"; exit 77 ;;
  *) echo "a single-node Slurm cluster could not be started here (logs above): skipped"; exit 77 ;;
esac
. "$cluster/env"
echo "cluster up in $(( $(date +%s) - start )) s"

k=$root/kernels/01-vecadd
cls=$tmp/class
mkdir -p "$cls"
cp "$k/solution.cu" "$cls/alice.cu"
cp "$k/wrong/no-bounds-guard.cu" "$cls/bob.cu"
cp "$k/solution.cu" "$cls/carol.cu"
cp "$root/tests/course/fixtures/host-only.cu" "$cls/dan.cu"
cp "$root/tests/course/fixtures/syntax-error.cu" "$cls/gina.cu"
opts=(--grade 01-vecadd --submissions "$cls" --backend emu --quick --seed 11)

"$pmpplab" "${opts[@]}" -j 2 --output-dir "$tmp/local" >"$tmp/local.txt" 2>&1 || fail "local batch: exit $? $(cat "$tmp/local.txt")"

start=$(date +%s)
"$pmpplab" "${opts[@]}" --slurm --chunk 2 --output-dir "$tmp/slurm" >"$tmp/slurm.txt" 2>&1
rc=$?; cat "$tmp/slurm.txt"
echo "through Slurm: $(( $(date +%s) - start )) s"
[ $rc = 0 ] || { cat "$tmp"/slurm/slurm/task-*.log; fail "slurm batch: exit $rc"; }
grep -q "in 3 array tasks of 2" "$tmp/slurm.txt" || fail "not one array of 3 tasks"
ls "$tmp"/slurm/slurm/task-{0,1,2}.log >/dev/null || fail "no log per array task"
grep -q "^task 1: 2 submissions" "$tmp/slurm/slurm/task-1.log" || fail "task 1 did not grade its chunk"
diff "$tmp/local/grades.csv" "$tmp/slurm/grades.csv" || fail "Slurm's grades.csv differs from the local run's"

"$pmpplab" "${opts[@]}" --slurm --no-wait --output-dir "$tmp/nowait" >"$tmp/nw.txt" 2>&1 || fail "--no-wait: exit $?"
cat "$tmp/nw.txt"
grep -q "pmpplab --collect $tmp/nowait" "$tmp/nw.txt" || fail "--no-wait does not say how to collect"
for _ in $(seq 1 120); do
  "$pmpplab" --collect "$tmp/nowait" >"$tmp/collect.txt" 2>&1 && break
  sleep 1
done
cat "$tmp/collect.txt"
diff "$tmp/local/grades.csv" "$tmp/nowait/grades.csv" || fail "collected grades.csv differs"
echo "slurm: all as expected"
