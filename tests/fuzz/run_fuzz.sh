#!/usr/bin/env bash
# One fuzz target's test (meson.build):
#   run_fuzz.sh libfuzzer|replay EXE CORPUS REGRESS ARTIFACTS
# libfuzzer: the corpus and the crashers, then $PMPPLAB_FUZZ_RUNS new inputs (default
# 2000, seed 1 so a CI run is repeatable; new interesting inputs go to a scratch folder,
# never into the source tree); a crash leaves its input in ARTIFACTS and fails.
# replay: every file of CORPUS and REGRESS once.
set -u
mode=$1 exe=$2 corpus=$3 regress=$4 artifacts=$5
mkdir -p "$artifacts"
dirs=("$corpus")
[ -d "$regress" ] && dirs+=("$regress")
[ -d "$corpus" ] || { echo "no corpus at $corpus"; exit 1; }
if [ "$mode" = replay ]; then
	exec "$exe" "${dirs[@]}"
fi
scratch=$(mktemp -d /tmp/pmpplab-fuzz-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
name=$(basename "$exe")
"$exe" -runs="${PMPPLAB_FUZZ_RUNS:-2000}" -seed="${PMPPLAB_FUZZ_SEED:-1}" -timeout=20 \
	-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
	"$scratch" "${dirs[@]}" 2>&1 | grep -Ev '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' 
exit "${PIPESTATUS[0]}"
