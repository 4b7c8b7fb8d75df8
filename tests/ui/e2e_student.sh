#!/bin/bash
# What a student meets beyond the loop of e2e_tmux.sh (issue 18, items 4, 5 and 7), in
# the real binary in tmux on the emulator:
#   - at 200 columns each lab's Status and Best sit by its name, not at the far edge;
#   - a compile error comes right under the build's line (one line for the tests it left
#     unrun), every error is on an 80x24 screen, and a missing ';' reported on the next
#     line gets a note naming the line before;
#   - a crash shows each source line it names once, not again for its note;
#   - the warps and memory panels say which dataset (and which check's run) they show;
#   - the list shows quick runs (Status "(quick)", Best "N/M quick"), and a save made
#     while the list is shown runs that lab, whichever lab is selected.
# usage: e2e_student.sh PMPPLAB SOURCE_ROOT
# Exits 77 as e2e_tmux.sh does; E2E_SCREENS=DIR keeps the screens.
set -u

PMPPLAB=${1:?usage: e2e_student.sh PMPPLAB SOURCE_ROOT}
SRC=${2:?usage: e2e_student.sh PMPPLAB SOURCE_ROOT}
LAB=01-vecadd
BACKEND=emu
. "$(dirname "$0")/tmux_lib.sh"
tmux_lib_init student
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "skipped: no nvcc"; exit 77; }
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$WORK/cache}

"$PMPPLAB" --labs "$SRC/labs" init "$WORK/ws" >/dev/null || fail "pmpplab init failed"
FILE=$WORK/ws/$LAB/vecadd.cu
SOL=$SRC/kernels/$LAB/solution.cu
# The solution with a ';' missing at the end of the line of 'int i = ...' and 'float'
# misspelt in host code: two errors, the first reported on the line after the mistake.
semi=$(grep -n 'int i = blockIdx.x \* blockDim.x + threadIdx.x;$' "$SOL" | cut -d: -f1)
[ -n "$semi" ] || fail "the solution of $LAB has no line 'int i = ...;' any more"
sed -e "${semi}s/;\$//" -e 's/^\( *\)float \*A_d/\1flot *A_d/' "$SOL" >"$WORK/errors.cu"
grep -q 'flot \*A_d' "$WORK/errors.cu" || fail "the solution of $LAB declares A_d otherwise now"
# The solution writing far past the end of C: a fault, and the note after it.
sed -e 's/C\[i\] = A\[i\] + B\[i\];/C[i * 1000000] = A[i] + B[i];/' "$SOL" >"$WORK/crash.cu"
grep -q '1000000' "$WORK/crash.cu" || fail "the solution of $LAB adds otherwise now"

# 1. At 200 columns: the status by the lab's name.
start_tui 200 50 LANG=C.UTF-8 LC_ALL=C.UTF-8 EDITOR=true
wait_for 10 "$LAB .*not started"
capture list-200x50
col=$(grep "$LAB" "$SCREENS/list-200x50.txt" | head -1 | LC_ALL=C.UTF-8 awk '{ print index($0, "not started") }')
[ "$col" -gt 0 ] && [ "$col" -lt 50 ] || fail "at 200 columns $LAB's status is at column $col, far from its name"

# 2. A compile error, at 80x24.
tm resize-window -t e2e -x 80 -y 24
save "$FILE" "$WORK/errors.cu"
tm send-keys -t e2e Enter
wait_for 10 "Reading +Results"
tm send-keys -t e2e r
wait_runs $LAB 1 120
capture errors-80x24
s=$SCREENS/errors-80x24.txt
build=$(grep -n "build *$" "$s" | head -1 | cut -d: -f1)
first=$(grep -n 'error: expected a ";"' "$s" | head -1 | cut -d: -f1)
[ -n "$build" ] && [ -n "$first" ] || fail "no build line or no first error on the 80x24 screen"
[ $((first - build)) -le 3 ] || fail "the first error is $((first - build)) rows under the build's line"
grep -q "the mistake may be at the end of line $((semi))" "$s" ||
	fail "no note that the missing ';' is at the end of line $semi"
unrun=$(grep -n "not run" "$s" | head -1 | cut -d: -f1)
[ -z "$unrun" ] || [ "$unrun" -gt "$first" ] || fail "'not run' lines above the first error"
tm resize-window -t e2e -x 160 -y 48
wait_for 10 "Lab 01: Vector addition"
capture errors-160x48
grep -q 'error: identifier "flot" is undefined' "$SCREENS/errors-160x48.txt" || fail "the second error is not shown"
[ "$(grep -c "not run" "$SCREENS/errors-160x48.txt")" = 1 ] || fail "not one line for the tests the build left unrun"

# 3. A crash: each source line once.
save "$FILE" "$WORK/crash.cu"
wait_runs $LAB 2 120
capture crash-160x48
named=$(grep -cE "vecadd\.cu:[0-9]+: (error|wrote)" "$SCREENS/crash-160x48.txt")
shown=$(grep -cE "│ +C\[i \* 1000000\] = A\[i\] \+ B\[i\];" "$SCREENS/crash-160x48.txt")
[ "$named" -ge 1 ] || fail "no fault on the screen"
[ "$shown" = "$named" ] || fail "the faulting line is shown $shown times for $named faults"

# 4. The panels say which dataset they show.
save "$FILE" "$SOL"
wait_runs $LAB 3 120
grep -q '"passed"' "$WORK/ws/.pmpplab/state.json" || fail "the solution did not pass"
tm send-keys -t e2e p
wait_for 10 "Occupancy"
tm send-keys -t e2e 2
wait_for 10 "^ dataset [a-z-]+"
capture warps-160x48
tm send-keys -t e2e 3
wait_for 10 "^ dataset [a-z-]+"
capture memory-160x48
tm send-keys -t e2e q
wait_for 10 "Reading|Lab 01"

# 5. Back on the list: the quick run shows; a save of lab 01's file while lab 02 is
#    selected runs lab 01.
tm send-keys -t e2e Escape
wait_for 10 "$LAB +[0-9]+ +(✔|\\+) passed \\(quick\\) +[0-9]+/[0-9]+ quick +Vector addition"
tm send-keys -t e2e j
before=$(runs $LAB)
save "$FILE" "$WORK/crash.cu"
wait_for 120 "$LAB +[0-9]+ +(✘|x) failing \\(quick\\) +[0-9]+/[0-9]+ quick +Vector addition"
capture list-saved
[ "$(runs $LAB)" = $((before + 1)) ] || fail "the save on the list did not run $LAB once"
grep -q "^▸ 02-" "$SCREENS/list-saved.txt" || fail "the selection moved off lab 02"
quit_and_check
echo "ok: status by the name at 200 columns; compile errors first, with the line before;" \
	"a crash's line once; panels name their dataset; quick runs and saves on the list"
