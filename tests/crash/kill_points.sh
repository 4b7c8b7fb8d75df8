#!/bin/bash
# Crash safety of the student's work (issue 17): pmpplab is SIGKILLed while its TUI saves
# state, resets a lab and grades, and afterwards
#   - the student's file is whole: their work, or the starter with their work in a
#     vecadd.cu.bak.N (every backup a full copy of their work);
#   - state.json is absent or valid JSON;
#   - pmpplab starts again in that workspace without a complaint, and once it has, no
#     temporary file (*.tmp.*) is left in the workspace or the build cache.
# Kill points: a first run counts every file-system change pmpplab makes in the session
# (tests/crash/killpoint.c, LD_PRELOAD); then the session is replayed, killed at each
# kind of change inside the workspace and at $PMPPLAB_CRASH_OTHER (default 6) elsewhere
# (the build cache, the grader's run folder) spread over the session; then killed at
# $PMPPLAB_CRASH_RANDOM (default 4) random moments of a grade with kill -9.
# The session, in tmux on the emulator: open lab 01 (state saved), run it (the student's
# file is the solution: passes; state saved), reset it (backup, starter; the change
# triggers a regrade: fails; state saved), quit (state saved).
# usage: kill_points.sh PMPPLAB SOURCE_ROOT KILLPOINT.so
# Exits 77 without tmux or without a build that grades on the emulator.
set -u
PMPPLAB=$(realpath "${1:?usage: kill_points.sh PMPPLAB SOURCE_ROOT KILLPOINT.so}")
SRC=$(realpath "${2:?}")
SHIM=$(realpath "${3:?}") # meson passes paths relative to the build folder
LAB=01-vecadd STUDENT=vecadd.cu
command -v tmux >/dev/null || { echo "skipped: tmux is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: python3 is not installed"; exit 77; }

WORK=$(mktemp -d /tmp/pmpplab-crash.XXXXXX)
export PMPPLAB_CACHE=$WORK/cache
# a server per session: a new one on the socket of one just killed can fail to start
SESSIONS=0
tm() { tmux -S "$WORK/tmux.$SESSIONS.sock" "$@"; }
new_session() {
	tm kill-server >/dev/null 2>&1
	SESSIONS=$((SESSIONS + 1))
	# remain-on-exit from the start: a pmpplab killed at once must not take the server
	echo "set-option -g remain-on-exit on" >"$WORK/tmux.conf"
	tm -f "$WORK/tmux.conf" new-session -d -s k -x 120 -y 40 "$1" || fail "tmux did not start"
}
cleanup() { tm kill-server >/dev/null 2>&1; rm -rf "$WORK"; }
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	echo "--- screen ---"; tm capture-pane -p -t k 2>/dev/null | tail -15
	[ -f "$WORK/log" ] && { echo "--- last changes ---"; tail -5 "$WORK/log"; }
	exit 1
}

"$PMPPLAB" --labs "$SRC/labs" --grade "$LAB" --quick --backend emu \
	--submission "$SRC/kernels/$LAB/solution.cu" >"$WORK/probe.txt" 2>&1
case $? in
0) ;;
2) echo "skipped: pmpplab cannot grade on the emulator here:"; cat "$WORK/probe.txt"; exit 77 ;;
*) cat "$WORK/probe.txt"; fail "the solution of $LAB does not pass" ;;
esac

"$PMPPLAB" --labs "$SRC/labs" init "$WORK/ws0" >/dev/null || fail "init failed"
cp "$SRC/kernels/$LAB/solution.cu" "$WORK/ws0/$LAB/$STUDENT" # the student's work
ORIGINAL=$WORK/ws0/$LAB/$STUDENT
STARTER=$SRC/labs/$LAB/$STUDENT

STATUS=$WORK/status
# start [ENV...]: pmpplab's TUI in a fresh copy of the workspace, in tmux.
start() {
	rm -rf "$WORK/ws" "$STATUS"
	cp -a "$WORK/ws0" "$WORK/ws"
	new_session "cd '$WORK/ws' && env $* LANG=C.UTF-8 LC_ALL=C.UTF-8 EDITOR=true '$PMPPLAB' --labs '$SRC/labs' --backend emu; echo \$? >'$STATUS'"
}
# step SECONDS REGEX: waits for REGEX on the screen; returns 1 once pmpplab has ended.
step() {
	local deadline=$((SECONDS + $1 * ${E2E_SLOW:-3}))
	while [ $SECONDS -lt $deadline ]; do
		[ -s "$STATUS" ] && return 1
		tm capture-pane -p -t k 2>/dev/null | grep -Eq -- "$2" && return 0
		sleep 0.1
	done
	fail "waited $1 s for /$2/"
}
# session: the student's session, as far as pmpplab lives.
session() {
	step 20 "$LAB .*(not started|passed|failing)" || return
	tm send-keys -t k Enter
	step 10 "Watching .*every save" || return
	tm send-keys -t k r
	step 120 "PASSED" || return
	tm send-keys -t k R
	step 10 "Reset $LAB to its starter" || return
	tm send-keys -t k y
	step 120 "FAILED" || return
	tm send-keys -t k Escape
	step 10 "Enter opens the lab" || return
	tm send-keys -t k q
	local deadline=$((SECONDS + 60))
	while [ ! -s "$STATUS" ] && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
}
# check WHAT: the invariants, then a restart that must be clean.
check() {
	local f=$WORK/ws/$LAB/$STUDENT what=$1
	[ -f "$f" ] || fail "$what: the student's file is gone"
	if cmp -s "$f" "$STARTER"; then
		ls "$f".bak.* >/dev/null 2>&1 || fail "$what: reset to the starter with no backup of the work"
	elif ! cmp -s "$f" "$ORIGINAL"; then
		fail "$what: the student's file is neither their work nor the starter"
	fi
	for b in "$f".bak.*; do
		[ -e "$b" ] || continue
		cmp -s "$b" "$ORIGINAL" || fail "$what: backup $b is not a whole copy of the work"
	done
	local st=$WORK/ws/.pmpplab/state.json
	if [ -e "$st" ]; then
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$st" 2>/dev/null ||
			fail "$what: state.json is not valid JSON"
	fi
	# pmpplab starts in that workspace (no shim), shows the list without a warning, quits
	rm -f "$STATUS"
	new_session "cd '$WORK/ws' && LANG=C.UTF-8 LC_ALL=C.UTF-8 '$PMPPLAB' --labs '$SRC/labs' --backend emu; echo \$? >'$STATUS'"
	step 20 "$LAB .*(not started|passed|failing)" || fail "$what: pmpplab did not start again"
	tm capture-pane -p -t k | grep -q "unreadable" && fail "$what: the state was unreadable after the kill"
	tm send-keys -t k q
	local deadline=$((SECONDS + 30))
	while [ ! -s "$STATUS" ] && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
	[ "$(cat "$STATUS" 2>/dev/null)" = 0 ] || fail "$what: the restarted pmpplab ended with '$(cat "$STATUS" 2>/dev/null)'"
	local left
	left=$(find "$WORK/ws" "$PMPPLAB_CACHE" -name '*.tmp.*' 2>/dev/null | head -3)
	[ -z "$left" ] || fail "$what: temporary files left after a restart: $left"
}

# 1. Count the changes of a whole session (and check the session itself), after one that
#    fills the build cache as the sessions killed later will find it.
start
session
start "LD_PRELOAD='$SHIM'" "PMPPLAB_KILL_LOG='$WORK/count.log'"
session
[ "$(cat "$STATUS")" = 0 ] || fail "the session without a kill ended with '$(cat "$STATUS")'"
cmp -s "$WORK/ws/$LAB/$STUDENT" "$STARTER" || fail "the session did not reset the lab"
total=$(wc -l <"$WORK/count.log")
[ "$total" -gt 0 ] || fail "killpoint.so counted nothing: is it preloaded?"
check "no kill"

# 2. The kill points: every kind of change in the workspace (the call and the path with
#    its numbers blanked: the five state saves of a session go through the same steps, so
#    the first of each kind stands for the rest), and some changes elsewhere.
ws_points=$(grep "$WORK/ws/" "$WORK/count.log" | sed -E 's/ KILLED$//' |
	awk '{ key = $2 " " $3; gsub(/[0-9]+/, "N", key); if (!(key in seen)) { seen[key] = 1; print $1 } }')
other=$(grep -vn "$WORK/ws/" "$WORK/count.log" | cut -d: -f1)
n_other=$(echo "$other" | grep -c .)
want=${PMPPLAB_CRASH_OTHER:-6}
picked=$(echo "$other" | awk -v n="$n_other" -v w="$want" 'n > 0 && (NR - 1) % int((n + w - 1) / w) == 0')
points=$(printf '%s\n%s\n' "$ws_points" "$picked" | grep . | sort -n | uniq)
n=0
for k in $points; do
	rm -f "$WORK/log"
	start "LD_PRELOAD='$SHIM'" "PMPPLAB_KILL_AT=$k" "PMPPLAB_KILL_LOG='$WORK/log'"
	session
	grep -q KILLED "$WORK/log" 2>/dev/null || { echo "note: kill point $k ($(sed -n "${k}p" "$WORK/count.log" | cut -d" " -f2-)) not reached this time: the session made fewer changes ($(wc -l <"$WORK/log" 2>/dev/null))"; continue; }
	[ "$(cat "$STATUS")" = 137 ] || fail "kill point $k: status '$(cat "$STATUS")', want 137"
	check "killed at $(grep KILLED "$WORK/log" | cut -d' ' -f1-3)"
	n=$((n + 1))
done

# 3. kill -9 at random moments of a grade.
r=0
for i in $(seq "${PMPPLAB_CRASH_RANDOM:-4}"); do
	start
	step 20 "$LAB .*(not started|passed|failing)"
	tm send-keys -t k Enter
	step 10 "Watching .*every save"
	pid=$(pgrep -f -n -x ".*$PMPPLAB --labs $SRC/labs --backend emu" || true)
	[ -n "$pid" ] || fail "no pmpplab process to kill"
	tm send-keys -t k r
	sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
	sleep $((RANDOM % 3))
	kill -KILL "$pid" 2>/dev/null
	deadline=$((SECONDS + 10))
	while [ ! -s "$STATUS" ] && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
	check "kill -9 during a grade ($i)"
	r=$((r + 1))
done
echo "ok: $total changes in a session, $(grep -c "$WORK/ws/" "$WORK/count.log") in the workspace; killed at $n of them ($(echo "$ws_points" | grep -c .) kinds in the workspace) and at $r random moments of a grade: the student's file whole, state.json valid, a clean restart, no temporary file left"
