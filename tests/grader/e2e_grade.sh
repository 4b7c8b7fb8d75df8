#!/bin/bash
# End to end through the real binary: grading lab 01's solution, starter and a broken
# spec on one backend, checking verdicts, messages, exit codes and the JSON.
# usage: e2e_grade.sh PMPPLAB SOURCE_ROOT BACKEND   (BACKEND gpu skips without a GPU)
set -u
pmpplab=$1 root=$2 backend=$3
if [ "$backend" = gpu ] && ! { [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; }; then
  echo "no GPU here: skipped"; exit 77
fi
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$(mktemp -d)}
lab=$root/kernels/01-vecadd
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$pmpplab" --grade 01-vecadd --backend "$backend" --submission "$lab/solution.cu" >"$tmp/sol.txt" 2>&1
rc=$?; cat "$tmp/sol.txt"
[ $rc = 0 ] || fail "solution: exit $rc, expected 0"
grep -q "score 8/8" "$tmp/sol.txt" || fail "solution: not 8/8"

"$pmpplab" --grade 01-vecadd --backend "$backend" --submission "$root/labs/01-vecadd/vecadd.cu" >"$tmp/start.txt" 2>&1
rc=$?; cat "$tmp/start.txt"
[ $rc = 1 ] || fail "starter: exit $rc, expected 1"
grep -q "FAIL correctness: not-a-multiple" "$tmp/start.txt" || fail "starter: correctness not failed"
grep -q "No element of C was written" "$tmp/start.txt" || fail "starter: no diagnosis"

"$pmpplab" --grade 01-vecadd --backend "$backend" --submission "$lab/wrong/no-bounds-guard.cu" >"$tmp/nbg.txt" 2>&1
rc=$?; cat "$tmp/nbg.txt"
[ $rc = 1 ] || fail "no-bounds-guard: exit $rc, expected 1"
grep -q "FAIL memcheck" "$tmp/nbg.txt" || fail "no-bounds-guard: memcheck passed"
grep -q "no-bounds-guard.cu:11" "$tmp/nbg.txt" || fail "no-bounds-guard: line 11 not named"

"$pmpplab" --grade 01-vecadd --backend "$backend" --submission "$lab/solution.cu" --format json --output "$tmp/r.json"
rc=$?
[ $rc = 0 ] || fail "json: exit $rc"
python3 - "$tmp/r.json" <<'PY' || fail "json shape"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["score"] == r["max_score"] == 8, r
for t in r["tests"]:
    assert set(t) >= {"name", "score", "max_score", "status", "output"}, t
    assert t["status"] in ("passed", "failed")
PY

cat > "$tmp/broken.cu" <<'CU'
void vecAdd(const float *A, const float *B, float *C, int n) { C[0] = undefinedName; }
CU
"$pmpplab" --grade 01-vecadd --backend "$backend" --submission "$tmp/broken.cu" >"$tmp/b.txt" 2>&1
rc=$?; cat "$tmp/b.txt"
[ $rc = 1 ] || fail "compile error: exit $rc, expected 1"
grep -q "broken.cu:1:.*error: identifier \"undefinedName\" is undefined" "$tmp/b.txt" || fail "compile error not located"

# The entry point renamed, or taking other types: said about the student's file (the
# line of its definition), never about the generated glue in the build cache.
cat > "$tmp/renamed.cu" <<'CU'
// vecAdd(A, B, C, n): in a comment, not a definition
void vecAdd2(const float *A, const float *B, float *C, int n) { C[0] = A[0] + B[0]; }
void vecAdd(const double *A, const float *B, float *C, int n) { C[0] = (float)A[0]; }
CU
"$pmpplab" --grade 01-vecadd --backend "$backend" --submission "$tmp/renamed.cu" >"$tmp/r.txt" 2>&1
rc=$?; cat "$tmp/r.txt"
[ $rc = 1 ] || fail "entry point of other types: exit $rc, expected 1"
grep -q "renamed.cu:3: error: the lab's call of your vecAdd(...) does not compile" "$tmp/r.txt" ||
	fail "entry point of other types not located"
grep -q "glue" "$tmp/r.txt" && fail "the report names the generated glue"
sed -i '3d' "$tmp/renamed.cu"
"$pmpplab" --grade 01-vecadd --backend "$backend" --submission "$tmp/renamed.cu" >"$tmp/r.txt" 2>&1
grep -q "renamed.cu: error: no function vecAdd(...) here" "$tmp/r.txt" || fail "missing entry point not said"

# One element written past the end of an output: the harness's guard bytes catch it.
sed 's/^\( *\)CHECK(cudaMemcpy(C_h, C_d, bytes, cudaMemcpyDeviceToHost));/&\n\1C_h[n] = 1.0f;/' \
	"$lab/solution.cu" >"$tmp/overrun.cu"
grep -q 'C_h\[n\] = 1.0f;' "$tmp/overrun.cu" || fail "overrun: the solution's copy-back line moved; update this test"
"$pmpplab" --grade 01-vecadd --backend "$backend" --submission "$tmp/overrun.cu" --quick >"$tmp/o.txt" 2>&1
rc=$?; cat "$tmp/o.txt"
[ $rc = 1 ] || fail "overrun: exit $rc, expected 1"
grep -q "wrote past the end of output 'C': it holds" "$tmp/o.txt" || fail "overrun not named"

# --profile: on a GPU, each kernel measured by ncu (or one line saying why not); on the
# emulator, one line saying where its modelled figures are. Worth no points either way.
"$pmpplab" --grade 05-tiled-matmul --backend "$backend" --profile \
  --submission "$root/kernels/05-tiled-matmul/solution.cu" >"$tmp/prof.txt" 2>&1
rc=$?; cat "$tmp/prof.txt"
[ $rc = 0 ] || fail "profile: exit $rc, expected 0 (the profile is worth no points)"
grep -q "PASS profile (ncu) *0/0" "$tmp/prof.txt" || fail "profile: no profile entry"
if [ "$backend" = emu ]; then
  grep -qi "not measured: ncu reads a GPU's counters" "$tmp/prof.txt" || fail "profile: emulator note"
elif grep -qi "not measured" "$tmp/prof.txt"; then
  grep -Eq "not permitted|not installed" "$tmp/prof.txt" || fail "profile: ncu failed"
else
  grep -q "measured by ncu on dataset large" "$tmp/prof.txt" || fail "profile: no table"
  # the tiled kernel reads whole rows of tiles: 4 sectors per load request
  grep -Eq "^ +[A-Za-z_]*[Tt]iled[A-Za-z_]* +1 .* 4\.0 " "$tmp/prof.txt" || fail "profile: the tiled kernel's figures"
fi

mkdir -p "$tmp/labs/01-vecadd"
cp "$root/labs/01-vecadd/"* "$tmp/labs/01-vecadd/"
sed -i 's|\.\./\.\./kernels|'"$root"'/kernels|; s/^chapter: 2/chapter: two/' "$tmp/labs/01-vecadd/lab.yaml"
"$pmpplab" --labs "$tmp/labs" --grade 01-vecadd --backend "$backend" --submission "$lab/solution.cu" >"$tmp/spec.txt" 2>&1
rc=$?; cat "$tmp/spec.txt"
[ $rc = 2 ] || fail "broken spec: exit $rc, expected 2"
grep -q "lab.yaml:4:.*chapter" "$tmp/spec.txt" || fail "broken spec: file:line not named"
echo "all end-to-end checks passed ($backend)"
