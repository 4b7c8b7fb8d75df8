#!/bin/bash
# The panels of issue 7 in the real pmpplab binary, driven in tmux: open a lab, run its
# solution on the emulator, open the panels (p), see the occupancy table and curve, the
# warps and the memory tables, at 200x60 and again at 80x24; then back and quit.
#
# usage: e2e_panels_tmux.sh PMPPLAB SOURCE_ROOT [LAB]
# Exits 77 without tmux, with PMPPLAB_SKIP_E2E set, or when this build cannot grade on
# the emulator (no nvcc). E2E_SCREENS=DIR keeps the captured screens in DIR.
set -u

PMPPLAB=${1:?usage: e2e_panels_tmux.sh PMPPLAB SOURCE_ROOT [LAB]}
SRC=${2:?usage: e2e_panels_tmux.sh PMPPLAB SOURCE_ROOT [LAB]}
LAB=${3:-04-matmul}

BACKEND=emu
. "$(dirname "$0")/../ui/tmux_lib.sh"
tmux_lib_init panels
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "skipped: no nvcc"; exit 77; }
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$WORK/cache}

# check_size NAME COLS ROWS: the capture fits the terminal.
check_size() {
	local f="$SCREENS/$1.txt"
	[ "$(wc -l <"$f")" -le "$3" ] || fail "$1: more than $3 rows"
	# display width, not bytes: the screen has UTF-8 glyphs (mawk's length() counts bytes)
	[ "$(LC_ALL=C.UTF-8 wc -L <"$f")" -le "$2" ] || fail "$1: a row wider than $2"
	grep -q "F10Quit" "$f" || fail "$1: no key bar"
}

"$PMPPLAB" --labs "$SRC/labs" init "$WORK/ws" >/dev/null || fail "pmpplab init failed"
STUDENT=$(cd "$WORK/ws/$LAB" && ls *.cu | head -1)
cp "$SRC/kernels/$LAB/solution.cu" "$WORK/ws/$LAB/$STUDENT"
INDEX=$("$PMPPLAB" --labs "$SRC/labs" --list | awk -v lab="$LAB" '$1 == lab { print NR - 1 }')
[ -n "$INDEX" ] || fail "$LAB is not in pmpplab --list"

start_tui 200 60 LANG=C.UTF-8 LC_ALL=C.UTF-8 EDITOR=true
wait_for 10 "F10Quit"
for _ in $(seq "$INDEX"); do tm send-keys -t e2e j; done
tm send-keys -t e2e Enter
wait_for 10 "$LAB"

# The occupancy tab works before any run (block size assumed), then with the run's.
tm send-keys -t e2e p
wait_for 60 "limited by"
capture occupancy-before-run-200x60
tm send-keys -t e2e F5
wait_for 180 "$LAB (passed|failed)"
wait_for 10 "limited by"
wait_for 10 "\\^ [0-9]+ threads"
capture occupancy-200x60
check_size occupancy-200x60 200 60
grep -q "?" "$SCREENS/occupancy-200x60.txt" && grep -Eq "^ *> *[a-zA-Z_]+ .*[0-9]+\\?" "$SCREENS/occupancy-200x60.txt" \
	&& fail "the run's block size did not reach the occupancy table"
# the emulator's own device first, named as an emulated one (issue 18), with the real
# H100's limits
grep -q "Device pmpplab emulated H100 (sm_90, 132 SMs, 64 warps/SM, 228 KiB shared/SM)" \
	"$SCREENS/occupancy-200x60.txt" || fail "the occupancy panel does not name the emulated H100"
# what if: one more warp per block, then the next devices (the real H100, the A100)
tm send-keys -t e2e B
wait_for 5 "What if \\(changed\\)"
tm send-keys -t e2e d
wait_for 30 "NVIDIA H100.*sm_90"
tm send-keys -t e2e d
wait_for 30 "A100.*sm_80"
capture occupancy-whatif-200x60
tm send-keys -t e2e 0

tm send-keys -t e2e 2
wait_for 10 "SIMT"
wait_for 10 "finished in"
capture warps-200x60
check_size warps-200x60 200 60
tm send-keys -t e2e 3
wait_for 10 "sect/req"
capture memory-200x60
check_size memory-200x60 200 60
grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9.]+ " "$SCREENS/memory-200x60.txt" || fail "no per-line memory figures"

tm resize-window -t e2e -x 80 -y 24
for t in 1:occupancy:"limited by" 2:warps:"SIMT" 3:memory:"sect/req"; do
	key=${t%%:*}; rest=${t#*:}; name=${rest%%:*}; pat=${rest#*:}
	tm send-keys -t e2e "$key"
	wait_for 10 "$pat"
	sleep 0.3
	capture "$name-80x24"
	check_size "$name-80x24" 80 24
done

tm send-keys -t e2e q
wait_for 10 "Reading|Results"
tm send-keys -t e2e Escape
wait_for 10 "$LAB"
grep -q "F8Panels" "$SCREENS/memory-80x24.txt" && fail "F8Panels in the panels' own key bar"
capture list-80x24
grep -q "F8Panels" "$SCREENS/list-80x24.txt" || fail "the key bar does not offer the panels (F8)"

# Another lab's panels must not show this lab's trace (one trace file per workspace).
OTHER=01-vecadd
[ "$LAB" = "$OTHER" ] && OTHER=02-greyscale
tm send-keys -t e2e Home
for _ in $(seq "$("$PMPPLAB" --labs "$SRC/labs" --list | awk -v lab="$OTHER" '$1 == lab { print NR - 1 }')"); do
	tm send-keys -t e2e j
done
tm send-keys -t e2e p
wait_for 10 "$OTHER"
for tab in 2 3; do
	tm send-keys -t e2e "$tab"
	wait_for 10 "No trace of this lab yet: press r \\(run\\) to record one"
	capture "other-lab-$tab-80x24"
	grep -q "kernel " "$SCREENS/other-lab-$tab-80x24.txt" && fail "$OTHER's panels show $LAB's trace"
done
tm send-keys -t e2e q
wait_for 10 "Reading|Results"
tm send-keys -t e2e Escape
wait_for 10 "$OTHER"
quit_and_check
echo "ok: $LAB occupancy, what-if, device picker, warps and memory at 200x60 and 80x24; $OTHER shows no trace of $LAB"
