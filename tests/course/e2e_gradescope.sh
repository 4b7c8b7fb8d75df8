#!/bin/bash
# The Gradescope autograder of lab 01 end to end: `pmpplab export gradescope`, unpacked
# into a fake /autograder root as Gradescope's specification lays it out (the archive in
# source/, run_autograder copied to the root, the student's files in submission/),
# setup.sh building pmpplab from the bundled source (its package installs skipped: this
# machine has them), then run_autograder grading three submissions on the emulator into
# results/results.json: the solution, a wrong one, and a folder with no .cu.
# usage: e2e_gradescope.sh PMPPLAB SOURCE_ROOT
set -u
pmpplab=$1 root=$2
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$(mktemp -d)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v unzip >/dev/null || { echo "unzip is not installed (scripts/bootstrap installs it): skipped"; exit 77; }

"$pmpplab" export gradescope 01-vecadd -o "$tmp/autograder.zip" || fail "export: exit $?"
unzip -Z "$tmp/autograder.zip" | grep -E ' (setup\.sh|run_autograder)$' | tee "$tmp/root.txt"
grep -q '^-rwxr-xr-x.* run_autograder$' "$tmp/root.txt" || fail "run_autograder is not at the root, executable"
grep -q '^-rwxr-xr-x.* setup.sh$' "$tmp/root.txt" || fail "setup.sh is not at the root"
for f in pmpplab/meson.build pmpplab/emu/meson.build pmpplab/labs/01-vecadd/lab.yaml pmpplab/kernels/vendor/copy.cu \
         pmpplab/kernels/01-vecadd/solution.cu pmpplab/kernels/01-vecadd/reference.c; do
  unzip -l "$tmp/autograder.zip" "$f" >/dev/null || fail "$f is not in the bundle"
done

ag=$tmp/autograder
mkdir -p "$ag/source" "$ag/submission" "$ag/results"
(cd "$ag/source" && unzip -q "$tmp/autograder.zip") || fail "unzip"
cp "$ag/source/run_autograder" "$ag/run_autograder"
start=$(date +%s)
PMPPLAB_AUTOGRADER_ROOT=$ag PMPPLAB_SETUP_NO_APT=1 bash "$ag/source/setup.sh" || fail "setup.sh: exit $?"
echo "setup.sh (the build): $(( $(date +%s) - start )) s"

# grade SUBMISSION-FILE|- EXPECT: what run_autograder writes for one student
grade() {
  rm -rf "$ag/submission" && mkdir -p "$ag/submission"
  [ "$1" = - ] || cp "$1" "$ag/submission/vecadd.cu"
  rm -f "$ag/results/results.json"
  (cd "$ag" && PMPPLAB_AUTOGRADER_ROOT=$ag PMPPLAB_BACKEND=emu ./run_autograder >"$ag/results/stdout" 2>&1) ||
    fail "run_autograder exited $? (Gradescope wants 0 and a results.json)"
  python3 - "$ag/results/results.json" "$2" <<'PY' || { cat "$ag/results/stdout"; fail "results.json for $1"; }
import json, sys
r = json.load(open(sys.argv[1]))
want = sys.argv[2]
print(want, r.get("score"), r.get("max_score"), r["output"][:100].replace("\n", " "))
if want == "full":
    assert r["score"] == r["max_score"] == 8 and all(t["status"] == "passed" for t in r["tests"]), r
    assert r["extra_data"]["pmpplab"][0]["lab"] == "01-vecadd"
elif want == "partial":
    assert 0 < r["score"] < r["max_score"], r
    assert any(t["name"] == "memcheck" and t["status"] == "failed" for t in r["tests"]), r
else:
    assert r["score"] == 0 and "no .cu file" in r["output"], r
PY
}
start=$(date +%s)
grade "$root/kernels/01-vecadd/solution.cu" full
grade "$root/kernels/01-vecadd/wrong/no-bounds-guard.cu" partial
grade - none
echo "three run_autograder runs: $(( $(date +%s) - start )) s"
echo "gradescope: all as expected"
