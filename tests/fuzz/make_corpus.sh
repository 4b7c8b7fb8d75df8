#!/usr/bin/env bash
# Regenerates the fuzz seeds of tests/fuzz/corpus from the repository (run by hand after
# labs or parsers change; the result is committed):
#   tests/fuzz/make_corpus.sh [SAN_BUILD]
# ptx: every .cu of labs/, kernels/ and tests/ compiled with nvcc -ptx -lineinfo at -O0
# and -O3; spec: every lab.yaml and test spec; expr: the size expressions of the specs;
# nvccdiag: what nvcc and gcc say about broken files; ncu: the captured CSVs; state: a
# few saved states; mdview: every README and the help page (one width byte first).
# With SAN_BUILD (a build with libFuzzer targets), each corpus is then minimised by
# coverage (libFuzzer -merge=1, edges only): inputs that add no new edge are dropped.
set -eu
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{ptx,spec,expr,nvccdiag,ncu,state,mdview}
put() { # DIR FILE: stores FILE under its content hash (duplicates collapse)
	local h
	h=$(sha1sum "$2" | cut -c1-16)
	cp "$2" "$tmp/$1/$h"
}

# --- ptx ---
harness=grader/harness
while IFS= read -r cu; do
	for o in O0 O3; do
		flags=(-O3)
		[ $o = O0 ] && flags=(-O0 -Xcicc -O0)
		if "$nvcc" -ptx -lineinfo -Wno-deprecated-gpu-targets "${flags[@]}" -I"$harness" \
			-DPMPPLAB_HARNESS_CUDA -o "$tmp/one.ptx" "$cu" 2>/dev/null &&
			[ "$(stat -c %s "$tmp/one.ptx")" -le 65536 ]; then # not thrust's library code
			put ptx "$tmp/one.ptx"
		fi
	done
done < <(find labs kernels tests -name '*.cu' | sort)

# --- spec, expr ---
while IFS= read -r y; do
	put spec "$y"
	grep -hoE '^[[:space:]-]*(size|bytes|flops):[[:space:]]*"?[^"#]+' "$y" |
		sed -E 's/^[^:]*:[[:space:]]*"?//; s/[[:space:]]+$//' >>"$tmp/exprs"
	grep -hoE '"[A-Za-z_][A-Za-z0-9_]* = [^"]+"' "$y" | tr -d '"' >>"$tmp/exprs"
done < <(find labs tests/fixtures -name 'lab.yaml' -type f | sort)
sort -u "$tmp/exprs" | while IFS= read -r e; do
	printf '%s' "$e" >"$tmp/one"
	put expr "$tmp/one"
done

# --- nvccdiag: real compiler output on broken files ---
cat >"$tmp/bad1.cu" <<'CU'
__global__ void k(float *a, int n) { int i = threadIdx.x; a[i] = undefinedThing + 1; int unused; }
void host() { k<<<1,1>>>(nullptr, 3) }
CU
cat >"$tmp/bad2.cu" <<'CU'
__global__ void k(float *a) { __shared__ float s[100000]; s[threadIdx.x] = a[0]; a[1] = s[3]; }
int main() { k<<<1,1>>>(0); return 0; }
CU
cat >"$tmp/bad3.cu" <<'CU'
extern void missing(void);
int main() { missing(); return 0; }
CU
for b in bad1 bad2 bad3; do
	"$nvcc" -lineinfo -o "$tmp/prog" "$tmp/$b.cu" >"$tmp/one" 2>&1 || true
	put nvccdiag "$tmp/one"
done
printf 'int main() { return x; }\n' >"$tmp/bad.c"
gcc -o "$tmp/prog" "$tmp/bad.c" >"$tmp/one" 2>&1 || true
put nvccdiag "$tmp/one"

# --- ncu ---
for f in tests/fixtures/ncu/*.csv; do put ncu "$f"; done

# --- state ---
printf '{"version":1,"labs":{"01-vecadd":{"status":"passed","best_score":10,"best_max_score":10,"last_score":10,"last_max_score":10,"last_quick":false,"runs":3,"hints":1}},"selected":"01-vecadd"}\n' >"$tmp/one"
put state "$tmp/one"
printf '{"version":1,"labs":{"02-greyscale":{"status":"failing","best_score":0,"best_max_score":0,"last_score":2.5,"last_max_score":10,"last_quick":true,"runs":1,"hints":0},"03-blur":{"status":"not started"}}}\n' >"$tmp/one"
put state "$tmp/one"

# --- mdview ---
for f in labs/*/README.md labs/README.md assets/help.md README.md; do
	{ printf '\074'; cat "$f"; } >"$tmp/one" # width 80, Unicode glyphs
	put mdview "$tmp/one"
done

for t in ptx spec expr nvccdiag ncu state mdview; do
	rm -rf "${out:?}/$t"
	mkdir -p "$out/$t"
	if [ -n "${1:-}" ] && [ -x "$1/tests/fuzz/fuzz_$t" ]; then
		"$1/tests/fuzz/fuzz_$t" -merge=1 -use_counters=0 "$out/$t" "$tmp/$t" >/dev/null 2>&1
	else
		cp "$tmp/$t"/* "$out/$t/"
	fi
	echo "$t: $(ls "$tmp/$t" | wc -l) seeds, $(ls "$out/$t" | wc -l) kept, $(du -sh "$out/$t" | cut -f1)"
done
