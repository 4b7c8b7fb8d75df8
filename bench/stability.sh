#!/bin/bash
# Stability of performance verdicts (issue 8): grades each submission N times and prints
# every run's verdict and figures, then per submission whether the verdict never changed
# and the coefficient of variation (sd / mean) of the student/solution ratio (kernel
# time on a GPU, global sectors on the emulator).
# Run from the repository root:
#   bench/stability.sh [--pmpplab BIN] [--lab ID] [--backend gpu|emu] [--runs N] [--quick]
#                      [--perf-only] [SUBMISSION.cu...]
# Default: lab 01-vecadd, 10 runs, the lab's solution and its known-right submissions.
# Each run is a full `pmpplab --grade` (fresh inputs: a new seed every time);
# --perf-only grades a copy of the lab that keeps only its performance checks and their
# datasets (faster: no memcheck, no small datasets).
set -u
pmpplab=build/ui/pmpplab lab=01-vecadd backend=gpu runs=10 quick=() perf_only=0
subs=()
while [ $# -gt 0 ]; do
  case $1 in
    --pmpplab) pmpplab=$2; shift 2 ;;
    --lab) lab=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --perf-only) perf_only=1; shift ;;
    -*) echo "usage: $0 [--pmpplab BIN] [--lab ID] [--backend gpu|emu] [--runs N] [--quick] [SUBMISSION.cu...]" >&2; exit 2 ;;
    *) subs+=("$1"); shift ;;
  esac
done
if [ ${#subs[@]} = 0 ]; then
  subs=("kernels/$lab/solution.cu")
  for f in kernels/"$lab"/right/*.cu; do [ -f "$f" ] && subs+=("$f"); done
fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-/tmp/pmpplab-stability-cache}
labs=()
if [ $perf_only = 1 ]; then
  labdir=${PMPPLAB_LABS:-$PWD/labs}/$lab
  mkdir -p "$work/labs/$lab"
  python3 - "$labdir" "$work/labs/$lab/lab.yaml" <<'PY' || exit 2
import os, sys, yaml
src, dst = sys.argv[1], sys.argv[2]
spec = yaml.safe_load(open(os.path.join(src, "lab.yaml")))
absp = lambda p: p if os.path.isabs(p) else os.path.normpath(os.path.join(src, p))
for k in ("student", "solution", "wrong", "right"):
    if k in spec: spec[k] = absp(spec[k])
spec["reference"]["file"] = absp(spec["reference"]["file"])
spec["checks"] = [c for c in spec.get("checks", []) if c["kind"] == "performance"]
keep = {c.get("dataset") for c in spec["checks"]} | {c.get("emu_dataset") for c in spec["checks"]}
spec["datasets"] = [d for d in spec["datasets"] if d["name"] in keep]
yaml.safe_dump(spec, open(dst, "w"), sort_keys=False)
PY
  labs=(--labs "$work/labs")
fi
for s in "${subs[@]}"; do
  k=$(echo "$s" | tr '/.' '__')
  for i in $(seq 1 "$runs"); do
    "$pmpplab" "${labs[@]}" --grade "$lab" --backend "$backend" "${quick[@]}" --submission "$s" --format json \
      --output "$work/$k.$i.json" >/dev/null 2>"$work/$k.$i.err"
    echo "$s run $i: exit $?" >&2
  done
done
python3 - "$work" "$runs" "${subs[@]}" <<'PY'
import json, math, re, sys
work, runs, subs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print("%-44s %3s %-7s %9s %-60s" % ("submission", "run", "verdict", "ratio", "performance (first line)"))
summary = []
for s in subs:
    k = s.replace("/", "_").replace(".", "_")
    verdicts, ratios = [], []
    for i in range(1, runs + 1):
        try:
            r = json.load(open("%s/%s.%d.json" % (work, k, i)))
        except Exception as e:
            print("%-44s %3d no report (%s)" % (s[-44:], i, open("%s/%s.%d.err" % (work, k, i)).read()[-200:].strip()))
            verdicts.append("error"); continue
        t = [t for t in r["tests"] if t["name"].startswith("performance")]
        if not t:
            print("%-44s %3d no performance test" % (s[-44:], i)); verdicts.append("none"); continue
        out = t[0].get("output", "")
        m = re.search(r"([0-9.]+)x its time", out) or re.search(r"([0-9.]+)x the solution's sectors", out)
        ratio = float(m.group(1)) if m else float("nan")
        verdicts.append(t[0]["status"]); ratios.append(ratio)
        print("%-44s %3d %-7s %9.4f %-60s" % (s[-44:], i, t[0]["status"], ratio, out.splitlines()[0][:60] if out else ""))
    good = [x for x in ratios if not math.isnan(x)]
    mean = sum(good) / len(good) if good else float("nan")
    sd = math.sqrt(sum((x - mean) ** 2 for x in good) / (len(good) - 1)) if len(good) > 1 else 0.0
    summary.append((s, verdicts, mean, sd))
print()
print("%-44s %-22s %9s %9s %8s" % ("submission", "verdicts", "mean", "sd", "CV"))
for s, v, mean, sd in summary:
    same = "all %s" % v[0] if len(set(v)) == 1 else "CHANGED %s" % ",".join(v)
    cv = 100 * sd / mean if mean and mean == mean else float("nan")
    print("%-44s %-22s %9.4f %9.4f %7.2f%%" % (s[-44:], same[:22], mean, sd, cv))
PY
