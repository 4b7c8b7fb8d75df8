#!/bin/bash
# End to end through the real binary: `pmpplab lab mutate` on lab 01 with a few
# operators (issue 14 part 5): mutants listed, graded, killed by the right checks, an
# equivalent one proven, the summary line and exit statuses.
# usage: e2e_mutate.sh PMPPLAB SOURCE_ROOT
set -u
pmpplab=$1 root=$2
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$(mktemp -d)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
lab=$root/labs/01-vecadd

"$pmpplab" lab mutate "$lab" --dry-run >"$tmp/list.txt" 2>&1 || fail "dry run: status $?"
cat "$tmp/list.txt"
grep -q "m[0-9]* ror .*\`<\` -> \`<=\`" "$tmp/list.txt" || fail "dry run: no ror mutant"
grep -q "drop a cudaMemcpy call" "$tmp/list.txt" || fail "dry run: no memcpy mutant"

# memcpy and guard mutants are all mistakes the lab's tests catch; the guard's by memcheck
"$pmpplab" lab mutate 01 -j 2 --seed 14 --operators memcpy,guard >"$tmp/run.txt" 2>&1
rc=$?; cat "$tmp/run.txt"
[ $rc -eq 0 ] || fail "memcpy,guard: status $rc"
grep -q "^mutate: 01-vecadd generated 7 stillborn 0 equivalent 0 judged 0 killed 7 survived 0 errors 0 kill-rate 100.0%" "$tmp/run.txt" ||
  fail "memcpy,guard: summary"
grep -Eq "guard .*killed +by correctness, memcheck" "$tmp/run.txt" || fail "guard: not killed by memcheck"

# one more block than needed is harmless: proven equivalent, with its diff
"$pmpplab" lab mutate 01 -j 2 --seed 14 --operators const --min-kill-rate 0 >"$tmp/const.txt" 2>&1
rc=$?; cat "$tmp/const.txt"
[ $rc -eq 0 ] || fail "const: status $rc"
grep -A1 "^  m[0-9]* const .*\`255\` -> \`256\`" "$tmp/const.txt" | grep -q "same outputs and memory behaviour" ||
  fail "const: (n + 256) / 256 not proven equivalent"
grep -q "^    +    vecAddKernel<<<(n + 256) / 256, 256>>>" "$tmp/const.txt" || fail "const: no diff"

# an author's judgement that a test refutes, one that names no mutant and one that names
# mutants of several lines are reported
mkdir -p "$tmp/labs" "$tmp/kernels"
cp -r "$root/labs/01-vecadd" "$tmp/labs/" && cp -r "$root/kernels/01-vecadd" "$root/kernels/vendor" "$tmp/kernels/"
cat >"$tmp/kernels/01-vecadd/equivalent-mutants.txt" <<'TXT'
# a comment
memcpy | CHECK(cudaSuccess); | wrongly judged: dropping the copy of A loses A
guard | if (i < n + 7) { | names no mutant
TXT
"$pmpplab" lab mutate "$tmp/labs/01-vecadd" -j 2 --seed 14 --operators memcpy >"$tmp/judged.txt" 2>&1
rc=$?; cat "$tmp/judged.txt"
[ $rc -eq 0 ] || fail "judged: status $rc"
grep -q "equivalent-mutants.txt:3: matches no mutant" "$tmp/judged.txt" || fail "judged: stale entry not reported"
grep -q "is judged equivalent, but a test killed it" "$tmp/judged.txt" || fail "judged: refuted judgement not reported"
# `CHECK(cudaSuccess);` is the line of every dropped copy: it cannot name one mutant
grep -q "equivalent-mutants.txt:2: matches mutants of lines [0-9]* and [0-9]* of the solution" "$tmp/judged.txt" ||
  fail "judged: a judgement of several lines not reported"

"$pmpplab" lab mutate 01 --operators bogus >"$tmp/bad.txt" 2>&1
[ $? -eq 2 ] || fail "unknown operator: status not 2"
grep -q "unknown operator 'bogus'" "$tmp/bad.txt" || fail "unknown operator: no message"
echo "ok"
