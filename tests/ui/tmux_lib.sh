# tmux_lib.sh: what the TUI's tmux tests share (sourced, not run): a private tmux
# server, pmpplab started in its session e2e, waiting for text on the screen, captures,
# and failing with the last screen, the TUI's log and the processes in the pane.
#
# The test sets PMPPLAB, SRC and BACKEND, then calls tmux_lib_init NAME. It gets WORK
# (a temporary folder, removed on exit; the workspace goes in WORK/ws), SCREENS
# (E2E_SCREENS, or WORK/screens: every capture is kept there) and STATUS (the file the
# pane's shell writes pmpplab's exit status to).

# tmux_lib_init NAME: skips (77) without tmux or with PMPPLAB_SKIP_E2E set; fails when
# PMPPLAB is not built. NAME names the temporary folder.
tmux_lib_init() {
	if [ -n "${PMPPLAB_SKIP_E2E:-}" ]; then
		echo "skipped: PMPPLAB_SKIP_E2E is set"
		exit 77
	fi
	if ! command -v tmux >/dev/null 2>&1; then
		echo "skipped: tmux is not installed"
		exit 77
	fi
	if [ ! -x "$PMPPLAB" ]; then
		echo "FAIL: $PMPPLAB is not an executable (build it first)"
		exit 1
	fi
	WORK=$(mktemp -d "/tmp/pmpplab-$1.XXXXXX")
	SOCK="$WORK/tmux.sock"
	SCREENS=${E2E_SCREENS:-$WORK/screens}
	STATUS="$WORK/status"
	mkdir -p "$SCREENS"
	trap tmux_lib_cleanup EXIT
	# A session that lives as long as the test: killing e2e between steps then never
	# ends the tmux server, so the next new-session cannot reach a server on its way out
	# (the new session would vanish with it).
	tm -f /dev/null new-session -d -s keep "sleep 100000"
}

tm() { tmux -S "$SOCK" "$@"; }

tmux_lib_cleanup() {
	tm kill-server >/dev/null 2>&1
	sleep 0.3 # pmpplab saves its state on the way out
	rm -rf "$WORK"
}

fail() {
	echo "FAIL: $*"
	echo "--- last screen ---"
	tm capture-pane -p -t e2e 2>/dev/null
	echo "--- tui.log ---"
	tail -20 "$WORK/ws/.pmpplab/tui.log" 2>/dev/null
	echo "--- processes in the pane ---"
	local pane_pid
	pane_pid=$(tm display-message -p -t e2e '#{pane_pid}' 2>/dev/null)
	[ -n "$pane_pid" ] && ps -e -o pid,ppid,stat,wchan:24,args 2>/dev/null |
		awk -v root="$pane_pid" 'NR == 1 || $1 == root || seen[$2] { seen[$1] = 1; print }'
	exit 1
}

# start_tui COLS ROWS [NAME=value...]: pmpplab on the labs of SRC in WORK/ws, in a fresh
# session e2e of COLS x ROWS, with the variables given; its exit status goes to STATUS.
start_tui() {
	local cols=$1 rows=$2
	shift 2
	tm kill-session -t e2e >/dev/null 2>&1
	tm -f /dev/null new-session -d -s e2e -x "$cols" -y "$rows" \
		"cd '$WORK/ws' && $* '$PMPPLAB' --labs '$SRC/labs' --backend $BACKEND; echo \$? >'$STATUS'"
	tm set-option -t e2e remain-on-exit on >/dev/null
}

# capture NAME: the screen now, kept as SCREENS/NAME.txt.
capture() {
	tm capture-pane -p -t e2e >"$SCREENS/$1.txt" 2>/dev/null
}

# wait_for SECONDS REGEX: until the screen matches (grep -E), or fail.
wait_for() {
	# Loaded CI machines are slow: every wait gets E2E_SLOW (default 3) times longer.
	local deadline=$((SECONDS + $1 * ${E2E_SLOW:-3}))
	while [ $SECONDS -lt $deadline ]; do
		if tm capture-pane -p -t e2e 2>/dev/null | grep -Eq -- "$2"; then
			return 0
		fi
		sleep 0.2
	done
	fail "waited $1 s for /$2/ on the screen"
}

# quit_and_check: q ends pmpplab, with exit status 0. The pane's shell writes that status
# to $STATUS: tmux before 3.5 can lose the SIGCHLD of a pane (tmux issues 311, 2679) and
# then never reports the pane dead, so its #{pane_dead_status} cannot be trusted.
quit_and_check() {
	tm send-keys -t e2e q
	# Quitting waits for a grading run in progress (nvcc may take a while under load).
	local deadline=$((SECONDS + 60))
	while [ ! -s "$STATUS" ]; do
		[ $SECONDS -lt $deadline ] || fail "pmpplab did not quit on q"
		sleep 0.2
	done
	local status
	status=$(cat "$STATUS")
	rm -f "$STATUS"
	[ "$status" = 0 ] || fail "pmpplab ended with status '$status'"
}

# save FILE CONTENT_FROM: replaces FILE by a copy of CONTENT_FROM the way an editor that
# saves by rename does.
save() {
	cp "$2" "$(dirname "$1")/.$(basename "$1").new"
	mv "$(dirname "$1")/.$(basename "$1").new" "$1"
}

# runs LAB: how many runs state.json records for LAB (0 when none).
runs() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["labs"][sys.argv[2]]["runs"])' \
		"$WORK/ws/.pmpplab/state.json" "$1" 2>/dev/null || echo 0
}

# wait_runs LAB N SECONDS: until state.json records N runs of LAB (a run is recorded
# when its report is in), or fail.
wait_runs() {
	local deadline=$((SECONDS + $3 * ${E2E_SLOW:-3}))
	while [ "$(runs "$1")" -lt "$2" ]; do
		[ $SECONDS -lt $deadline ] || fail "waited $3 s for run $2 of $1"
		sleep 0.2
	done
	sleep 0.3 # the screen follows
}
