#!/bin/bash
# End-to-end test of the TUI: drives the real pmpplab binary in a detached tmux session
# on the emulator backend and reads the screen with capture-pane. The student's loop:
# the list is visible, open lab 01, run it, the starter fails, the test "fixes" the file
# (copies the lab's solution over it), watch mode regrades and it passes, the terminal
# shrinks to 80x24 and the screen still works, back to the list, quit. Then the same
# on a vt100 (F-keys it has no terminfo for), SIGTERM in the middle of a grade, and a
# reset whose message survives the regrade it triggers.
#
# usage: e2e_tmux.sh PMPPLAB SOURCE_ROOT
# Exits 77 (skipped) without tmux, with PMPPLAB_SKIP_E2E set, or when this build cannot
# grade on the emulator at all (pmpplab --grade exits 2: no nvcc, no emulator runtime).
# With E2E_SCREENS=DIR it keeps every captured screen in DIR; E2E_UPDATE=1 saves the
# help screen as the new reference in tests/ui/screens/; E2E_BACKEND=gpu runs the
# same loop on a GPU machine.
set -u

PMPPLAB=${1:?usage: e2e_tmux.sh PMPPLAB SOURCE_ROOT}
SRC=${2:?usage: e2e_tmux.sh PMPPLAB SOURCE_ROOT}
LAB=01-vecadd
BACKEND=${E2E_BACKEND:-emu}
STUDENT=vecadd.cu

. "$(dirname "$0")/tmux_lib.sh"
tmux_lib_init e2e

# Can this build grade at all on the emulator? The solution must pass a quick run (the
# only kind this test makes); a configuration error (exit 2) means the emulator or nvcc
# is missing here, which is a skip.
"$PMPPLAB" --labs "$SRC/labs" --grade "$LAB" --quick --backend "$BACKEND" \
	--submission "$SRC/kernels/$LAB/solution.cu" >"$WORK/probe.txt" 2>&1
case $? in
0) ;;
2)
	echo "skipped: pmpplab cannot grade on the emulator here:"
	cat "$WORK/probe.txt"
	exit 77
	;;
*)
	cat "$WORK/probe.txt"
	fail "the solution of $LAB does not pass pmpplab --grade --backend $BACKEND"
	;;
esac

"$PMPPLAB" --labs "$SRC/labs" init "$WORK/ws" >/dev/null || fail "pmpplab init failed"

start_tui 160 48 LANG=C.UTF-8 LC_ALL=C.UTF-8 EDITOR=true

# 1. The list.
wait_for 10 "$LAB .*not started"
capture list-160x48
grep -q "F10Quit" "$SCREENS/list-160x48.txt" || fail "no key bar on the list"

# 1b. The help screen, compared with the saved one (tmux regress/ style); E2E_UPDATE=1
#     saves the current screen instead, after a change meant to alter it.
tm send-keys -t e2e '?'
wait_for 5 "The loop"
capture help-160x48
GOLDEN="$SRC/tests/ui/screens/help-160x48.txt"
if [ -n "${E2E_UPDATE:-}" ]; then
	cp "$SCREENS/help-160x48.txt" "$GOLDEN"
fi
diff -u "$GOLDEN" "$SCREENS/help-160x48.txt" || fail "the help screen differs from $GOLDEN"
tm send-keys -t e2e Escape
wait_for 5 "$LAB .*not started"

# 2. Open lab 01: the reading and the empty results, side by side at 160 columns.
tm send-keys -t e2e Enter
wait_for 10 "No results yet"
wait_for 5 "Vector addition"
capture lab-160x48

# 3. Run the untouched starter: it must fail, with a failed correctness line.
tm send-keys -t e2e r
wait_for 120 "FAILED"
capture fail-160x48
grep -Eq "(✘|x) correctness" "$SCREENS/fail-160x48.txt" || fail "no failed correctness check shown"

# 3b. At 80x24 the failed checks fill the results pane: a revealed hint must still come
#     into view (it is listed below them), not be drawn off-screen.
tm resize-window -t e2e -x 80 -y 24
wait_for 10 "Reading +Results"
tm send-keys -t e2e n
wait_for 5 "Hint 1 of [0-9]+ shown"
wait_for 5 " 1\. Each of A, B and C needs its own device buffer"
capture hint-80x24
[ "$(wc -l <"$SCREENS/hint-80x24.txt")" -le 24 ] || fail "screen taller than 24 rows"
tm resize-window -t e2e -x 160 -y 48
wait_for 10 "Lab 01: Vector addition"

# 4. Fix the file the way an editor that saves by rename would, and let watch mode
#    regrade it without a key press.
cp "$SRC/kernels/$LAB/solution.cu" "$WORK/ws/$LAB/.$STUDENT.new"
mv "$WORK/ws/$LAB/.$STUDENT.new" "$WORK/ws/$LAB/$STUDENT"
wait_for 120 "PASSED"
capture pass-160x48
grep -q '"passed"' "$WORK/ws/.pmpplab/state.json" || fail "state.json does not record the pass"

# 5. Shrink to 80x24: tabs replace the split, the key bar and status stay.
tm resize-window -t e2e -x 80 -y 24
wait_for 10 "Reading +Results"
capture pass-80x24
[ "$(wc -l <"$SCREENS/pass-80x24.txt")" -le 24 ] || fail "screen taller than 24 rows"
grep -q "F10Quit" "$SCREENS/pass-80x24.txt" || fail "no key bar at 80x24"
tm send-keys -t e2e Tab
wait_for 5 "Lab 01"
capture lab-80x24

# 6. Back to the list, which now says passed; then quit cleanly.
tm send-keys -t e2e Escape
wait_for 10 "$LAB +[0-9]+ +(✔|\\+) passed .*Vector addition"
capture list-80x24
quit_and_check
# The quick runs of one session (3: r, 4: the save) share one seed (issue 16: the
# expected outputs and the solution's counted run are then the first run's, kept).
seeds=$(sed -n "s/^pmpplab: $LAB quick run: .*, seed \([0-9]*\).*/\1/p" "$WORK/ws/.pmpplab/tui.log")
[ "$(wc -l <<<"$seeds")" -ge 2 ] && [ "$(sort -u <<<"$seeds" | wc -l)" = 1 ] ||
	fail "the session's quick runs did not share one seed: $(echo $seeds) (tui.log: $(cat "$WORK/ws/.pmpplab/tui.log"))"

# 7. Again without colour, on a vt100, in an ASCII-only locale: the same list, drawn in
#    ASCII only, and the progress kept from the first session.
start_tui 80 24 LANG=C LC_ALL=C NO_COLOR=1 TERM=vt100
wait_for 10 "$LAB +[0-9]+ +\\+ passed .*Vector addition"
capture list-ascii
if LC_ALL=C grep -q '[^ -~]' "$SCREENS/list-ascii.txt"; then
	fail "non-ASCII characters on the screen in an ASCII locale"
fi
# 7b. On that vt100 (whose terminfo knows no xterm F5, "\E[15~"), F5 runs the lab: it
#     must not act as Esc (back to the list) followed by stray keys.
tm send-keys -t e2e Enter
wait_for 10 "Reading +Results"
tm send-keys -t e2e F5
wait_for 60 "Quick run|PASSED|FAILED"
sleep 0.5
capture vt100-F5
grep -Eq "Reading +Results" "$SCREENS/vt100-F5.txt" || fail "F5 left the lab view under TERM=vt100"
grep -q "Status" "$SCREENS/vt100-F5.txt" && fail "F5 went back to the list under TERM=vt100"
tm send-keys -t e2e F1
wait_for 5 "The loop"
tm send-keys -t e2e Escape
wait_for 5 "Reading +Results"
tm send-keys -t e2e Escape
wait_for 10 "$LAB +[0-9]+ .*Vector addition"
quit_and_check

# 8. SIGTERM in the middle of a grade: pmpplab stops the run, the grader's temporary
#    folder goes, the terminal is given back, and the exit status is 128 + 15.
start_tui 80 24 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for 10 "$LAB .*passed"
pane_pid=$(tm display-message -p -t e2e '#{pane_pid}')
pid=$(ps -e -o pid=,ppid=,comm= | awk -v p="$pane_pid" '$2 == p && $3 == "pmpplab" { print $1 }')
[ -n "$pid" ] || fail "no pmpplab process under the pane"
tm send-keys -t e2e g
# The run's folder, from the command lines of the programs it runs (other graders may
# be making folders of their own in /tmp meanwhile).
newrun=""
deadline=$((SECONDS + 60))
while [ -z "$newrun" ] && [ $SECONDS -lt $deadline ]; do
	newrun=$(ps -e -o ppid=,args= | awk -v p="$pid" '$1 == p' |
		grep -o '/tmp/pmpplab-run-[A-Za-z0-9]*' | head -1)
	[ -n "$newrun" ] || sleep 0.05
done
[ -n "$newrun" ] || fail "no program of the grade ran in a /tmp/pmpplab-run-* folder"
kill -TERM "$pid"
deadline=$((SECONDS + 30))
while [ ! -s "$STATUS" ]; do
	[ $SECONDS -lt $deadline ] || fail "pmpplab did not end on SIGTERM"
	sleep 0.2
done
[ "$(cat "$STATUS")" = 143 ] || fail "pmpplab ended with status $(cat "$STATUS") on SIGTERM, want 143"
rm -f "$STATUS"
# grade_lab removes its folder only when the name does not end in 'X' (its test for a
# failed mkdtemp), so one grade in 62 leaves it, quit or not: not this test's business.
case $newrun in
*X)
	echo "note: $newrun ends in X: grade_lab keeps such folders (grader/grade.c)"
	rm -rf "$newrun"
	;;
*) [ ! -e "$newrun" ] || fail "the grade's folder $newrun was left behind after SIGTERM" ;;
esac
grep -q '"passed"' "$WORK/ws/.pmpplab/state.json" || fail "state.json lost on SIGTERM"

# 9. Reset: the message names the real backup, and the regrade the reset triggers (the
#    file changed) does not wipe it out.
start_tui 80 24 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for 10 "$LAB .*passed"
tm send-keys -t e2e Enter
wait_for 10 "Reading +Results"
backup=$(cd "$WORK/ws/$LAB" && n=1 && while [ -e "$STUDENT.bak.$n" ]; do n=$((n + 1)); done && echo "$STUDENT.bak.$n")
tm send-keys -t e2e R
wait_for 5 "Reset $LAB to its starter\\?"
tm send-keys -t e2e y
wait_for 10 "kept as $LAB/$backup"
[ -f "$WORK/ws/$LAB/$backup" ] || fail "no backup $backup made by the reset"
wait_for 120 "FAILED"
sleep 0.5
capture reset-80x24
grep -q "kept as $LAB/$backup" "$SCREENS/reset-80x24.txt" || fail "the regrade after the reset hid the backup's name"
grep -q 'bak\.N' "$SCREENS/reset-80x24.txt" && fail "the reset message shows bak.N, not the backup's name"
tm send-keys -t e2e Escape
wait_for 10 "$LAB +[0-9]+ .*Vector addition"
quit_and_check
# 10. Results as they come, and a save that stops the run going (issue 16). A file whose
#     kernel is wrong for n = 1 and whose host code waits 8 s on the larger datasets:
#     the failed first dataset, with what went wrong, is on the screen while the run
#     still goes on. Saving the fixed file then stops that run: the new one passes, and
#     only it is recorded (the stopped run counts for nothing).
start_tui 160 48 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for 10 "$LAB +[0-9]+ .*Vector addition" # 9 left the starter: failing
tm send-keys -t e2e Enter
wait_for 10 "Reading +Results|Lab 01: Vector addition"
before=$(runs $LAB)
{
	echo '#include <unistd.h>'
	sed -e 's/C\[i\] = A\[i\] + B\[i\];/C[i] = A[i] + B[i] + (n == 1);/' \
		-e 's/^void vecAdd(\(.*\))$/static void vecAddNow(\1)/' "$SRC/kernels/$LAB/solution.cu"
	echo 'void vecAdd(const float *A_h, const float *B_h, float *C_h, int n)'
	echo '{ if (n > 1000) sleep(8); vecAddNow(A_h, B_h, C_h, n); }'
} >"$WORK/ws/$LAB/.$STUDENT.new"
grep -q 'static void vecAddNow' "$WORK/ws/$LAB/.$STUDENT.new" && grep -q '(n == 1)' "$WORK/ws/$LAB/.$STUDENT.new" ||
	fail "the slow file was not made (the solution's vecAdd or its sum line changed)"
mv "$WORK/ws/$LAB/.$STUDENT.new" "$WORK/ws/$LAB/$STUDENT"
deadline=$((SECONDS + 120 * ${E2E_SLOW:-3}))
while :; do
	screen=$(tm capture-pane -p -t e2e 2>/dev/null)
	if grep -Eq "(✘|x) correctness: tiny" <<<"$screen" && grep -Eq "Running dataset [2-9] of [2-9]" <<<"$screen"; then
		break
	fi
	grep -q "$LAB failed" <<<"$screen" && fail "the verdict of dataset tiny came only with the whole run's"
	[ $SECONDS -lt $deadline ] || fail "no verdict of dataset tiny while the run goes on"
	sleep 0.1
done
capture partial-160x48
grep -q "1 of 1 element\|C\[0\]\|wrong" "$SCREENS/partial-160x48.txt" || fail "the failed dataset's explanation is not shown while running"
cp "$SRC/kernels/$LAB/solution.cu" "$WORK/ws/$LAB/.$STUDENT.new"
mv "$WORK/ws/$LAB/.$STUDENT.new" "$WORK/ws/$LAB/$STUDENT"
wait_for 120 "$LAB passed"
capture stopped-160x48
[ "$(runs $LAB)" = $((before + 1)) ] || fail "runs went from $before to $(runs $LAB): the stopped run was recorded (or ran to its end)"
tm send-keys -t e2e Escape
wait_for 10 "$LAB +[0-9]+ .*Vector addition"
quit_and_check

echo "ok: list, open, run (failed), hint in view, fix, watch (passed), 80x24, back, quit, ASCII/mono, vt100 F5, SIGTERM, reset, results as they come, a save stops the run"
