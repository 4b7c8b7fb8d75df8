#!/usr/bin/env bash
# What pmpplab does with bad inputs (issue 17): broken lab specs, hostile or broken
# submissions, damaged workspaces and bad PTX, each run for real on the emulator. Prints
# a Markdown table: the input, the command, its exit status, its wall time, the message
# the user gets (the first line that says what went wrong), and whether nothing was lost
# (the files the input lives beside hash the same after the run; damaged state is kept).
#   bench/bad_inputs.sh PMPPLAB [SOURCE_ROOT] > table.md
# Needs nvcc; the TUI rows need tmux (marked "skipped" without it).
set -u
PMPPLAB=$(realpath "${1:?usage: bench/bad_inputs.sh PMPPLAB [SOURCE_ROOT]}")
SRC=$(realpath "${2:-$(dirname "$0")/..}")
W=$(mktemp -d /tmp/pmpplab-bad.XXXXXX)
trap 'tmux -S "$W/tmux.sock" kill-server >/dev/null 2>&1; rm -rf "$W"' EXIT
export PMPPLAB_CACHE=$W/cache
LAB=01-vecadd
SOL=$SRC/kernels/$LAB/solution.cu
n=0

# The text of a row's message: the first line of OUT naming the problem, shortened.
message() {
	local m
	# an error line first; else a failed check with the line that explains it; else the
	# first line that sounds like a problem; else the first line
	m=$(grep -m1 -E '(^|[: ])error:|^pmpplab: ' "$1")
	[ -n "$m" ] || m=$(awk '/^ *FAIL / { sub(/ +[0-9.]+\/[0-9.]+$/, ""); sub(/^ +/, ""); f = $0
		getline x; sub(/^ +/, "", x); print f ": " x; exit }' "$1")
	[ -n "$m" ] || m=$(grep -Eim1 'cannot|unreadable|timed out|crash|killed|signal|refus|unknown|invalid|out of range|unexpected|never|fault|past the end|flood|restored|afresh|removed' "$1")
	[ -n "$m" ] || m=$(head -1 "$1")
	m=$(echo "$m" | sed -E "s#$W/##g; s#$SRC/##g; s/[|]/\\\\|/g; s/^[[:space:]]+//")
	[ ${#m} -gt 150 ] && m="${m:0:147}..."
	echo "${m:-(no output)}"
}
# The fingerprint of the files under DIR (what must survive the run).
# (temporaries, NAME.tmp.PID.N, are not: a killed pmpplab's are removed at the next start)
fingerprint() { (cd "$1" 2>/dev/null && find . -type f ! -path './.pmpplab/*' ! -name '*.tmp.*' -print0 | sort -z | xargs -0 -r sha1sum) | sha1sum; }

# row KIND DESCRIPTION KEEP_DIR COMMAND...: runs COMMAND in $W/run (cwd), times it.
row() {
	local kind=$1 what=$2 keep=$3
	shift 3
	local before after t0 t1 rc
	before=$(fingerprint "$keep")
	t0=$(date +%s.%N)
	(cd "$W/run" && "$@") >"$W/out" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	after=$(fingerprint "$keep")
	n=$((n + 1))
	local cmd="$*"
	cmd=${cmd//$W\//}
	cmd=${cmd//$SRC\//}
	cmd=${cmd//$PMPPLAB/pmpplab}
	[ -n "${prog:-}" ] && cmd=${cmd//$prog/prog}
	[ ${#cmd} -gt 70 ] && cmd="${cmd:0:67}..."
	printf '| %d | %s | %s | `%s` | %d | %.1f | %s | %s |\n' "$n" "$kind" "$what" "$cmd" "$rc" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(message "$W/out")" "$([ "$before" = "$after" ] && echo yes || echo "**NO**")"
}

mkdir -p "$W/run" "$W/labs"
echo "| # | kind | input | command | exit | s | message | nothing lost |"
echo "|---|---|---|---|---|---|---|---|"

# ---- specs: a copy of lab 01 with one thing broken each, through lab check ----
spec() { # NAME: a fresh copy of lab 01 as $W/labs/NAME (its files point at the real kernels/)
	rm -rf "$W/labs/$1"
	cp -r "$SRC/labs/$LAB" "$W/labs/$1"
	sed -i "s#^id: .*#id: $1#; s#\.\./\.\./kernels#$SRC/kernels#" "$W/labs/$1/lab.yaml"
	echo "$W/labs/$1"
}
check() { row spec "$1" "$2" "$PMPPLAB" --labs "$W/labs" lab check "$2" --backend emu; }
d=$(spec s-empty); : >"$d/lab.yaml"; check "empty lab.yaml" "$d"
d=$(spec s-yaml); printf 'id: s-yaml\ntitle: [unclosed\n' >"$d/lab.yaml"; check "YAML syntax error" "$d"
d=$(spec s-key); sed -i 's/^chapter: 2/chapter: 2\ncolour: blue/' "$d/lab.yaml"; check "unknown key" "$d"
d=$(spec s-title); sed -i '/^title:/d' "$d/lab.yaml"; check "missing title" "$d"
d=$(spec s-type); sed -i 's/^chapter: 2/chapter: two/' "$d/lab.yaml"; check "chapter: two (not a number)" "$d"
d=$(spec s-syntax); sed -i '0,/size: n/s//size: n +* 2/' "$d/lab.yaml"; check "size 'n +* 2'" "$d"
d=$(spec s-name); sed -i '0,/size: n/s//size: m/' "$d/lab.yaml"; check "size names an unknown param" "$d"
d=$(spec s-overflow); sed -i '0,/size: n/s//size: n*n*n*n*n*n/' "$d/lab.yaml"; check "size overflows 64 bits" "$d"
d=$(spec s-negative); sed -i 's/values: \[n = 1\]/values: [n = -5]/' "$d/lab.yaml"; check "negative size (n = -5)" "$d"
d=$(spec s-value); sed -i 's/values: \[n = 1\]/values: [n = abc]/' "$d/lab.yaml"; check "dataset value 'n = abc'" "$d"
d=$(spec s-arg); sed -i 's/args: \[A, B, C, n\]/args: [A, B, C, count]/' "$d/lab.yaml"; check "entry arg names nothing" "$d"
d=$(spec s-solution); sed -i "s#^solution: .*#solution: nothing.cu#" "$d/lab.yaml"; check "solution file missing" "$d"
d=$(spec s-binary); head -c 4096 /dev/urandom >"$d/lab.yaml"; check "lab.yaml of random bytes" "$d"
d=$(spec s-deep); { printf 'id: s-deep\ntitle: '; printf '[%.0s' $(seq 5000); echo; } >"$d/lab.yaml"; check "5000 nested YAML lists" "$d"
d=$(spec s-timeout); sed -i 's/^chapter: 2/chapter: 2\ntimeout: 100000/' "$d/lab.yaml"; check "timeout: 100000 s" "$d"
d=$(spec s-dir); rm "$d/lab.yaml"; mkdir "$d/lab.yaml"; check "lab.yaml is a folder" "$d"
d=$(spec s-link); rm "$d/lab.yaml"; ln -s /nonexistent/lab.yaml "$d/lab.yaml"; check "lab.yaml dangling link" "$d"

# ---- submissions to lab 01, through --grade --quick ----
mkdir -p "$W/subs"
sub() { # NAME: the solution with a change, or stdin when given "-"
	local f=$W/subs/$1.cu
	cat >"$f"
	echo "$f"
}
grade() { row submission "$1" "$W/subs" "$PMPPLAB" --labs "$SRC/labs" --grade "$LAB" --quick --backend emu --submission "$2"; }
grade "empty file" "$(sub empty </dev/null)"
grade "syntax error" "$(sed 's/int i = /int i = = /' "$SOL" | sub syntax)"
grade "entry point renamed" "$(sed 's/void vecAdd(/void vecAdd2(/' "$SOL" | sub noentry)"
grade "random bytes" "$(head -c 2048 /dev/urandom | sub binary)"
grade "no such file" "$W/subs/nothing.cu"
mkdir -p "$W/subs/dir.cu"; grade "a folder" "$W/subs/dir.cu"
grade "host NULL dereference" "$(sed 's/^void vecAdd(\(.*\))$/void vecAdd(\1)\n{ *(volatile int *)0 = 1; }\nvoid unused_(\1)/' "$SOL" | sub hostsegv)"
grade "exit(3) in the entry" "$(sed 's/^void vecAdd(\(.*\))$/void vecAdd(\1)\n{ exit(3); }\nvoid unused_(\1)/' "$SOL" | sub exit3)"
grade "abort() in the entry" "$(sed 's/^void vecAdd(\(.*\))$/void vecAdd(\1)\n{ abort(); }\nvoid unused_(\1)/' "$SOL" | sub abort)"
grade "no bounds check" "$SRC/kernels/$LAB/wrong/no-bounds-guard.cu"
grade "5 MB of comments" "$( { for _ in $(seq 50000); do echo "// padding padding padding padding padding padding padding padding padding pad"; done; cat "$SOL"; } | sub huge)"
grade "kernel never ends" "$(sed 's/^__global__ void vecAddKernel(\(.*\))$/__global__ void vecAddKernel(\1)\n{ while (1) { } }\n__global__ void unusedKernel_(\1)/' "$SOL" | sub hang)"
grade "floods stdout" "$(sed 's/^void vecAdd(\(.*\))$/void vecAdd(\1)\n{ for (;;) fputs("flood flood flood flood\\n", stdout); }\nvoid unused_(\1)/' "$SOL" | sub flood)"
grade "forged result file" "$SRC/tests/sandbox/hostile/forge-result.cu"
grade "unsupported PTX (brkpt)" "$(sed 's/^__global__ void vecAddKernel(\(.*\))$/__global__ void vecAddKernel(\1)\n{ asm volatile("brkpt;"); }\n__global__ void unusedKernel_(\1)/' "$SOL" | sub brkpt)"

# ---- workspaces ----
ws() { # NAME: a fresh workspace
	rm -rf "$W/$1"
	"$PMPPLAB" --labs "$SRC/labs" init "$W/$1" >/dev/null
	echo "$W/$1"
}
# tui WS: pmpplab's TUI started in WS (tmux), its screen when the list shows, then quit.
tui() {
	local s=$W/tmux.sock st=$W/tui.status
	rm -f "$st"
	tmux -S "$s" -f /dev/null new-session -d -s b -x 200 -y 40 \
		"cd '$1' && '$PMPPLAB' --labs '$SRC/labs' --backend emu; echo \$? >'$st'"
	for _ in $(seq 100); do
		tmux -S "$s" capture-pane -p -t b 2>/dev/null | grep -q "$LAB" && break
		[ -s "$st" ] && break
		sleep 0.1
	done
	tmux -S "$s" capture-pane -p -t b 2>/dev/null | grep -Ei 'state.json|cannot|error' | head -1
	tmux -S "$s" send-keys -t b q 2>/dev/null
	for _ in $(seq 100); do [ -s "$st" ] && break; sleep 0.1; done
	tmux -S "$s" kill-server >/dev/null 2>&1
	return "$(cat "$st" 2>/dev/null || echo 1)"
}
if command -v tmux >/dev/null; then
	d=$(ws w-trunc); printf '{"version":1,"labs":{"01-vecadd":{"status":"passed","best_score":7,"best_max_score":7}}}\n' >"$d/.pmpplab/state.json"
	cp "$d/.pmpplab/state.json" "$d/.pmpplab/state.json.bak"; truncate -s 30 "$d/.pmpplab/state.json"
	row workspace "state.json truncated (backup there)" "$d" tui "$d"
	d=$(ws w-garbage); head -c 300 /dev/urandom >"$d/.pmpplab/state.json"
	row workspace "state.json random bytes, no backup" "$d" tui "$d"
	d=$(ws w-types); echo '{"labs": [1, 2], "selected": 7}' >"$d/.pmpplab/state.json"
	row workspace "state.json of the wrong shape" "$d" tui "$d"
	d=$(ws w-tmp); echo partial >"$d/.pmpplab/state.json.tmp.999999.1"; echo partial >"$d/$LAB/vecadd.cu.tmp.999999.2"
	row workspace "temporaries of a killed pmpplab" "$d" tui "$d"
else
	for w in "state.json truncated" "state.json random bytes" "state.json of the wrong shape" "temporaries of a killed pmpplab"; do
		n=$((n + 1)); echo "| $n | workspace | $w | (tmux missing) | - | - | skipped | - |"
	done
fi
d=$(ws w-nofile); rm "$d/$LAB/vecadd.cu"
row workspace "student file deleted" "$d" sh -c "cd '$d' && '$PMPPLAB' --labs '$SRC/labs' --grade $LAB --quick --backend emu"
d=$(ws w-dotfile); rm -rf "$d/.pmpplab"; touch "$d/.pmpplab"
row workspace ".pmpplab is a file" "$d" sh -c "cd '$d' && '$PMPPLAB' --labs '$SRC/labs' --grade $LAB --quick --backend emu"
row workspace "not a workspace" "$W/run" "$PMPPLAB" --labs "$SRC/labs" --grade "$LAB" --quick --backend emu
row workspace "unknown lab" "$W/run" "$PMPPLAB" --labs "$SRC/labs" --grade 99-nothing --backend emu
row workspace "--labs names no folder" "$W/run" "$PMPPLAB" --labs "$W/none" --list

# ---- PTX: lab 01's program run on a PTX file given in PMPPLAB_EMU_PTX ----
mkdir -p "$W/ptx"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cat >"$W/ptx/prog.cu" <<'CU'
#include <cstdio>
__global__ void add1(int *a) { a[threadIdx.x] += 1; }
int main() {
	int *d, h[32] = {0};
	cudaMalloc(&d, sizeof h); cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
	add1<<<1, 32>>>(d);
	cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
	printf("%s %d\n", cudaGetErrorString(e), h[31]);
	return e != cudaSuccess;
}
CU
"$nvcc" -ptx -lineinfo -o "$W/ptx/good.ptx" "$W/ptx/prog.cu" 2>/dev/null
# pmpplab run gives the program its own PTX, so the program it built (in the build cache)
# is run directly, the bad PTX named by PMPPLAB_EMU_PTX (emu/README.md)
"$PMPPLAB" run "$W/ptx/prog.cu" --backend emu >/dev/null 2>&1
prog=$(dirname "$(grep -l '_Z4add1Pi' "$PMPPLAB_CACHE"/build/*/prog.ptx | head -1)")/prog
[ -x "$prog" ] || { echo "bad_inputs: pmpplab run built no program from prog.cu" >&2; exit 1; }
ptx() { row ptx "$1" "$W/ptx" env PMPPLAB_EMU_PTX="$2" "$prog"; }
sed 's/add.s32/add.s3@/' "$W/ptx/good.ptx" >"$W/ptx/syntax.ptx"; ptx "syntax error" "$W/ptx/syntax.ptx"
head -c "$(($(wc -c <"$W/ptx/good.ptx") * 2 / 3))" "$W/ptx/good.ptx" >"$W/ptx/trunc.ptx"; ptx "truncated" "$W/ptx/trunc.ptx"
: >"$W/ptx/empty.ptx"; ptx "empty file" "$W/ptx/empty.ptx"
head -c 3000 /dev/urandom >"$W/ptx/random.ptx"; ptx "random bytes" "$W/ptx/random.ptx"
ptx "no such file" "$W/ptx/nothing.ptx"
sed 's/_Z4add1Pi/_Z4add2Pi/g' "$W/ptx/good.ptx" >"$W/ptx/noname.ptx"; ptx "kernel missing" "$W/ptx/noname.ptx"
sed 's/\.reg \.b32 \t%r<\([0-9]*\)>/.reg .b32 \t%r<99999999999>/' "$W/ptx/good.ptx" >"$W/ptx/regs.ptx"; ptx "%r<99999999999>" "$W/ptx/regs.ptx"
sed 's/^\tret;/\tbrkpt;\n\tret;/' "$W/ptx/good.ptx" >"$W/ptx/brkpt.ptx"; ptx "unsupported instruction" "$W/ptx/brkpt.ptx"
sed 's/^\tret;/\tbra.uni $L_end;\n$L_end:/' "$W/ptx/good.ptx" >"$W/ptx/end.ptx"; ptx "label after the last instruction" "$W/ptx/end.ptx"
echo "($n inputs; pmpplab $("$PMPPLAB" --version | cut -d' ' -f2), $(date -u +%Y-%m-%d))"
