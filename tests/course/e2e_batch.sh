#!/bin/bash
# A class batch end to end on the emulator: seven lab 01 submissions (a right one and its
# copy, wrong ones, one that never launches a kernel, one that includes another's file, a
# folder without a .cu), graded with -j 2 into grades.csv, report.md, report.html and
# junit.xml. Then the same batch again, with one worker killed (the batch goes on and
# records an error) and the whole batch killed with SIGKILL half-way: started again, it
# skips what is done and ends with the same grades.csv as the uninterrupted run.
# usage: e2e_batch.sh PMPPLAB SOURCE_ROOT
set -u
pmpplab=$1 root=$2
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$(mktemp -d)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
k=$root/kernels/01-vecadd
cls=$tmp/class
mkdir -p "$cls/erin" "$cls/frank/src"
cp "$k/solution.cu" "$cls/alice.cu"
cp "$k/solution.cu" "$cls/carol.cu"
cp "$k/wrong/no-bounds-guard.cu" "$cls/bob.cu"
cp "$root/tests/course/fixtures/host-only.cu" "$cls/dan.cu"
echo "notes" >"$cls/erin/README.txt"
cp "$k/wrong/grid-integer-division.cu" "$cls/frank/src/vecadd.cu"
# gina hands in an #include of alice's file: each student's build sees only its own
# file (a one-file student is graded from a folder of its own), so it does not compile
printf '#include "alice.cu"\n' >"$cls/gina.cu"
echo "not a submission" >"$cls/roster.csv"
opts=(--grade 01-vecadd --submissions "$cls" --backend emu --quick --seed 7 -j 2)

# 1. uninterrupted
start=$(date +%s)
"$pmpplab" "${opts[@]}" --output-dir "$tmp/a" --format junit >"$tmp/a.txt" 2>&1
rc=$?; cat "$tmp/a.txt"
echo "uninterrupted batch: $(( $(date +%s) - start )) s"
[ $rc = 1 ] || fail "exit $rc, expected 1 (erin/ holds no .cu)"
csv=$tmp/a/grades.csv
cat "$csv"
python3 - "$tmp/a" <<'PY' || fail "gradebook content"
import csv, sys, xml.etree.ElementTree as ET
out = sys.argv[1]
rows = {r["student"]: r for r in csv.DictReader(open(out + "/grades.csv"))}
assert sorted(rows) == ["alice", "bob", "carol", "dan", "erin", "frank", "gina"], sorted(rows)
a = rows["alice"]
assert a["status"] == "graded" and float(a["score"]) == float(a["max_score"]) > 0, a
assert "identical to carol" in a["notes"] and "identical to alice" in rows["carol"]["notes"], a
assert float(rows["bob"]["score"]) < float(rows["bob"]["max_score"]) and rows["bob"]["memcheck"] == "0", rows["bob"]
assert "never launches a kernel" in rows["dan"]["notes"], rows["dan"]
assert rows["erin"]["status"] == "invalid" and "no .cu file in erin/" in rows["erin"]["notes"], rows["erin"]
assert rows["frank"]["status"] == "graded", rows["frank"]
assert rows["gina"]["build"] == "fail" and float(rows["gina"]["score"]) == 0, rows["gina"]
md = open(out + "/report.md").read()
for section in ["## Score distribution", "## Checks that fail most", "## Most common findings",
                "## Identical submissions", "## Builds but never launches a kernel", "## Students"]:
    assert section in md, section
assert "bob.cu:11:" in md, "no file:line example for bob's finding"
assert "alice, carol" in md and "dan" in md.split("## Builds but never")[1].split("##")[0]
html = open(out + "/report.html").read()
assert html.startswith("<!DOCTYPE html>") and "<style>" in html
for external in ["<script", "<link", "src=", "url(", "@import"]:
    assert external not in html, "report.html loads " + external
suites = ET.parse(out + "/junit.xml").getroot()
assert suites.tag == "testsuites" and len(suites) == 7, len(suites)
bob = [s for s in suites if s.get("name") == "bob"][0]
assert any(tc.find("failure") is not None and tc.get("name") == "memcheck" for tc in bob), "bob: memcheck not failed"
PY
grep -q '"status": "graded"' "$tmp/a/students/alice/results.json" || fail "alice: no results.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["score"]==r["max_score"]' \
  "$tmp/a/students/alice/results.json" || fail "alice's results.json"

# 2. a worker killed, then the whole batch killed (SIGKILL), then resumed
"$pmpplab" "${opts[@]}" --output-dir "$tmp/b" >"$tmp/b1.txt" 2>&1 &
pid=$!
worker=
for _ in $(seq 1 300); do
  worker=$(pgrep -P $pid | head -1)
  [ -n "$worker" ] && break
  sleep 0.1
done
[ -n "$worker" ] || fail "no worker process started"
kill -9 "$worker"
for _ in $(seq 1 600); do
  n=$(ls "$tmp"/b/students/*/results.json 2>/dev/null | wc -l)
  [ "$n" -ge 3 ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
cat "$tmp/b1.txt"
grep -q "could not be graded" "$tmp/b1.txt" || fail "the killed worker's submission was not reported"
sleep 1
if pgrep -f -- "--output-dir $tmp/b" >/dev/null; then fail "workers outlived the killed batch"; fi
done_before=$(ls "$tmp"/b/students/*/results.json | wc -l)
echo "killed with $done_before results written"
"$pmpplab" "${opts[@]}" --output-dir "$tmp/b" >"$tmp/b2.txt" 2>&1
rc=$?; cat "$tmp/b2.txt"
[ $rc = 1 ] || fail "resumed: exit $rc, expected 1"
grep -Eq "grading [0-9]+ of 7 submissions .*\(([1-9]) done before\)" "$tmp/b2.txt" || fail "resume did not skip what was done"
diff "$tmp/a/grades.csv" "$tmp/b/grades.csv" || fail "resumed grades.csv differs from the uninterrupted one"

# 3. the same folder with another seed is refused, not mixed in
"$pmpplab" "${opts[@]}" --seed 8 --output-dir "$tmp/b" >"$tmp/c.txt" 2>&1
rc=$?; cat "$tmp/c.txt"
[ $rc = 2 ] && grep -q "seed 7, not 8" "$tmp/c.txt" || fail "another seed into the same folder: exit $rc"
echo "batch: all as expected"
