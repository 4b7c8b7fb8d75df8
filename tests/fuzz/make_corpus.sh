#!/usr/bin/env bash
# Regenerates the fuzz seeds of tests/fuzz/corpus from the repository (run by hand after
# labs or parsers change; the result is committed):
#   tests/fuzz/make_corpus.sh [SAN_BUILD]
# ptx: every .cu of labs/, kernels/ and tests/ compiled with nvcc -ptx -lineinfo at -O0
# and -O3; spec: every lab.yaml and test spec; expr: the size expressions of the specs;
# nvccdiag: what nvcc and gcc say about broken files; ncu: the captured CSVs; state: a
# few saved states; events: the emulator's event lines and compute-sanitizer's reports
# (a mode byte first: fuzz_events.c); result: lab programs' result files (pl_io.h's
# layout: every kind and type, and the forged ones of tests/sandbox/hostile); mdview: every README and the help page (one width byte first).
# With SAN_BUILD (a build with libFuzzer targets), each corpus is then minimised by
# coverage (libFuzzer -merge=1, edges only): inputs that add no new edge are dropped.
set -eu
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{ptx,spec,expr,nvccdiag,ncu,state,mdview,events,result}
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

# --- events: a mode byte (fuzz_events.c), then what the grader reads ---
{ printf '\000'; cat <<'EV'; } >"$tmp/one"
{"event":"launch","kernel":"k","status":"ok"}
{"event":"fault","kind":"out-of-bounds","kernel":"k","file":"/a/b/v.cu","line":12,"message":"thread (3,0,0) of block (1,0,0) wrote 4 bytes past the end"}
{"event":"finding","check":"race","kind":"raw","severity":"error","intra_warp":false,"kernel":"k","file":"/x/bad.cu","line":21,"other_file":"bad.cu","other_line":19,"message":"thread (0,2,0) read Nds[0]"}
{"event":"finding","check":"race","kind":"war","severity":"warning","intra_warp":true,"file":"bad.cu","line":174,"other_file":"bad.cu","other_line":174,"message":"lanes"}
{"event":"fault","kind":"barrier","kernel":"k","file":"bad.cu","line":60,"message":"__syncthreads() was reached by only some threads"}
not json
EV
put events "$tmp/one"
{ printf '\001'; cat <<'EV'; } >"$tmp/one"
========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at vecAddKernel(const float *, const float *, float *, int)+0x90 in /tmp/x/no-bounds-guard.cu:11
=========     by thread (113,0,0) in block (273,0,0)
=========     Access at 0x7f0a1c044704 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f0a1c000000 of size 280004 bytes
=========
========= ERROR SUMMARY: 16 errors
EV
put events "$tmp/one"
{ printf '\001'; cat <<'EV'; } >"$tmp/one"
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at mm_no_first_sync+0x2c0 in /home/u/lab/bad.cu:19
=========     and Read access at mm_no_first_sync+0x3a0 in /home/u/lab/bad.cu:21 [7680 hazards]
=========
========= Warning: Race reported between Read access at k+0x10 in bad.cu:41
=========     and Write access at k+0x20 in bad.cu:38 [12 hazards]
========= ERROR: Potential WAW hazard detected at __shared__ 0x8 in block (0,0,0) :
=========     Write Thread (1,0,0) at 0x00000050 in /x/bad.cu:131:hist_plain
=========     Write Thread (2,0,0) at 0x00000050 in /x/bad.cu:131:hist_plain
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
EV
put events "$tmp/one"
{ printf '\003'; cat <<'EV'; } >"$tmp/one"
========= Barrier error detected. Divergent thread(s) in warp
=========     at mm_sync_in_if+0x1e0 in /home/u/lab/bad.cu:60
=========     by thread (8,0,0) in block (2,0,0)
=========
EV
put events "$tmp/one"

# --- result: pl_io files (grader/harness/pl_io.h) ---
python3 - "$tmp/result" <<'PY'
import struct, sys
def item(kind, dtype, name, count, data=None, scalar=None):
    b = struct.pack('<III', kind, dtype, len(name)) + name.encode() + struct.pack('<Q', count)
    if kind in (0, 3):  # param, metric: a flag word, then 8 bytes
        return b + struct.pack('<I', 0) + scalar
    return b + struct.pack('<I', data is not None) + (data or b'')
def f(path, *items):
    open(path, 'wb').write(b'PMPPLAB1' + struct.pack('<I', len(items)) + b''.join(items))
d = sys.argv[1]
f(d + '/ok', item(0, 2, 'n', 1, scalar=struct.pack('<q', 4)),
  item(2, 0, 'C', 4, struct.pack('<4f', 1, 2.5, -0.0, float('nan'))),
  item(3, 1, 'kernel_ms', 1, scalar=struct.pack('<d', 0.25)))
f(d + '/types', item(1, 4, 'img', 3, b'abc'), item(2, 1, 'D', 2, struct.pack('<2d', 1e300, -1)),
  item(2, 2, 'I', 2, struct.pack('<2i', -7, 7)), item(2, 3, 'U', 1, struct.pack('<I', 9)))
f(d + '/no-data', item(2, 0, 'C', 1))
f(d + '/u8-for-float', item(2, 4, 'C', 4, b'AAAA'))
PY
for r in "$tmp"/result/*; do put result "$r"; rm "$r"; done

# --- mdview ---
for f in labs/*/README.md labs/README.md assets/help.md README.md; do
	{ printf '\074'; cat "$f"; } >"$tmp/one" # width 80, Unicode glyphs
	put mdview "$tmp/one"
done

for t in ptx spec expr nvccdiag ncu state mdview events result; do
	rm -rf "${out:?}/$t"
	mkdir -p "$out/$t"
	if [ -n "${1:-}" ] && [ -x "$1/tests/fuzz/fuzz_$t" ]; then
		"$1/tests/fuzz/fuzz_$t" -merge=1 -use_counters=0 "$out/$t" "$tmp/$t" >/dev/null 2>&1
	else
		cp "$tmp/$t"/* "$out/$t/"
	fi
	echo "$t: $(ls "$tmp/$t" | wc -l) seeds, $(ls "$out/$t" | wc -l) kept, $(du -sh "$out/$t" | cut -f1)"
done
