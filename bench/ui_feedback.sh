#!/bin/bash
# Fast feedback, measured the way a student feels it: from saving a lab's file to the
# verdict on the TUI's screen, in watch mode, on the emulator (issue 5: under 3 s on a
# 2-core machine; issue 16: under 0.4 s for a kernel edit). Drives the real pmpplab in
# tmux; every save has new content (a counter) so the build cache never answers for it.
#
# usage: bench/ui_feedback.sh PMPPLAB [SOURCE_ROOT] [RUNS]
# env:   BACKEND=emu|gpu (default emu); LAB (default 01-vecadd);
#        MODE=host (default): saves alternate the solution and the starter, each with a
#          new host function at the end, so the program's host code changes every time;
#        MODE=kernel: saves alternate the solution with a comment in its first kernel's
#          body and the solution whose first kernel returns at once, so only device
#          code changes (what the emulator's fast build path serves).
#        Save 0 (the failing text) comes first and is not counted: it builds the file's
#        host code for the first time.
# Prints one line per save: the first verdict (ms from the save until the results pane
# shows the first dataset's mark for THIS save: the build passed and that dataset was
# judged; the TUI shows results as they come, issue 16), the final verdict (end to end:
# the status line's verdict), the grading job's own ms as the status line reports it,
# the difference: debounce + UI, and the job's phases as the TUI timed them from the
# grader's progress messages: build = nvcc/NVRTC, reference = CPU reference, run = the
# datasets, checks = memcheck, performance...), then min/median/max of both. Exits 77 when
# this build cannot grade on the backend (no nvcc, no emulator runtime) or without tmux.
set -u

PMPPLAB=$(realpath "${1:?usage: ui_feedback.sh PMPPLAB [SOURCE_ROOT] [RUNS]}")
SRC=$(cd "${2:-$(dirname "$0")/..}" && pwd) # absolute: the TUI runs in the workspace
RUNS=${3:-5}
BACKEND=${BACKEND:-emu}
LAB=${LAB:-01-vecadd}
MODE=${MODE:-host}
case $MODE in host | kernel) ;; *) echo "MODE must be host or kernel"; exit 2 ;; esac
STUDENT=$(sed -n 's/^student: *//p' "$SRC/labs/$LAB/lab.yaml")
[ -n "$STUDENT" ] || { echo "no student file in $SRC/labs/$LAB/lab.yaml"; exit 2; }

command -v tmux >/dev/null 2>&1 || { echo "skipped: no tmux"; exit 77; }
WORK=$(mktemp -d /tmp/pmpplab-bench.XXXXXX)
SOCK="$WORK/tmux.sock"
tm() { tmux -S "$SOCK" "$@"; }
# pmpplab saves its state on the way out: give it a moment before removing the folder.
trap 'tm kill-server >/dev/null 2>&1; sleep 0.3; rm -rf "$WORK"' EXIT

"$PMPPLAB" --labs "$SRC/labs" --grade "$LAB" --quick --backend "$BACKEND" \
	--submission "$SRC/kernels/$LAB/solution.cu" >"$WORK/probe.txt" 2>&1
case $? in
0) ;;
2) echo "skipped: cannot grade on $BACKEND here:"; cat "$WORK/probe.txt"; exit 77 ;;
*) echo "the solution does not pass on $BACKEND:"; cat "$WORK/probe.txt"; exit 1 ;;
esac
"$PMPPLAB" --labs "$SRC/labs" init "$WORK/ws" >/dev/null || exit 1
FILE="$WORK/ws/$LAB/$STUDENT"

tm -f /dev/null new-session -d -s b -x 160 -y 48 \
	"cd '$WORK/ws' && LC_ALL=C.UTF-8 '$PMPPLAB' --labs '$SRC/labs' --backend $BACKEND"
now_ms() { date +%s%3N; }
screen() { tm capture-pane -p -t b 2>/dev/null; }
wait_screen() { # SECONDS REGEX
	local deadline=$((SECONDS + $1))
	until screen | grep -Eq -- "$2"; do
		[ $SECONDS -lt $deadline ] || { echo "timed out waiting for /$2/"; screen; exit 1; }
		sleep 0.02
	done
}
runs() { sed -n 's/.*"runs": *\([0-9]*\).*/\1/p' "$WORK/ws/.pmpplab/state.json" 2>/dev/null | head -1 | grep . || echo 0; }
wait_screen 10 "$LAB"
# Select the lab in the list (a fresh workspace starts on the first one), then open it.
pos=$("$PMPPLAB" --labs "$SRC/labs" --list | awk -v lab="$LAB" '$1 == lab { print NR - 1 }')
for _ in $(seq 1 "${pos:-0}"); do tm send-keys -t b j; done
tm send-keys -t b Enter
wait_screen 10 "pmpplab · $LAB"
wait_screen 10 "No results yet"

# The text of save I: kernel mode edits only the first __global__ function's body.
save_text() { # I
	local sol="$SRC/kernels/$LAB/solution.cu"
	if [ "$MODE" = kernel ]; then
		local stmt="    // bench save $1 $$"
		[ $(($1 % 2)) = 1 ] || stmt="    return; // bench save $1 $$"
		awk -v stmt="$stmt" '{ print } /^__global__/ { g = 1 }
			g == 1 && /^{/ { print stmt; g = 2 }' "$sol"
	else
		if [ $(($1 % 2)) = 1 ]; then cat "$sol"; else cat "$SRC/labs/$LAB/$STUDENT"; fi
		printf 'int bench_save_%d_%d(void) { return %d; }\n' "$1" $$ "$1"
	fi
}

# The first dataset the quick run grades (perf datasets are skipped in quick runs), whose
# mark in the results pane is the first verdict.
FIRST=$(awk '/^datasets:/ { d = 1; next } d && /^[a-z]/ { d = 0 }
	d && /^  - name:/ { name[++n] = $3 } d && /^    perf: *true/ { perf[n] = 1 }
	END { for (k = 1; k <= n; k++) if (!perf[k]) { print name[k]; exit } }' "$SRC/labs/$LAB/lab.yaml")
[ -n "$FIRST" ] || { echo "no dataset in $SRC/labs/$LAB/lab.yaml"; exit 2; }

results=() firsts=()
for i in $(seq 0 "$RUNS"); do
	# Alternate a passing and a failing file so each verdict differs from the last.
	if [ $((i % 2)) = 1 ]; then want=PASSED verdict=passed mark=$'\u2714'; else want=FAILED verdict=failed mark=$'\u2718'; fi
	save_text "$i" >"$FILE.tmp"
	before=$(runs)
	t0=$(now_ms)
	mv "$FILE.tmp" "$FILE" # save by rename, as vim does
	# The verdict of THIS save: state.json counts the run, the status line shows it.
	deadline=$((SECONDS + 60))
	# The first verdict: the first dataset's mark as this save's run shows it (the last
	# save's report showed the other mark, since the verdicts alternate).
	t_first=
	until [ -n "$t_first" ] || { [ "$(runs)" -gt "$before" ] && screen | grep -Eq "^ $LAB $verdict: "; }; do
		screen | grep -Fq " $mark correctness: $FIRST (" && t_first=$(now_ms) && break
		[ $SECONDS -lt $deadline ] || { echo "timed out waiting for the first verdict"; screen; exit 1; }
		sleep 0.02
	done
	until [ "$(runs)" -gt "$before" ] && screen | grep -Eq "^ $LAB $verdict: "; do
		[ $SECONDS -lt $deadline ] || { echo "timed out waiting for the verdict"; screen; exit 1; }
		sleep 0.02
	done
	t1=$(now_ms)
	job=$(screen | sed -n "s/^ $LAB $verdict: .* in \\([0-9.]*\\) s.*/\\1/p" | tail -1)
	job_ms=$(awk -v s="$job" 'BEGIN { printf "%d", s * 1000 }')
	e2e=$((t1 - t0))
	first=$(( ${t_first:-$t1} - t0 ))
	# The TUI logs each run's phases (from the grader's progress messages) in tui.log.
	phases=$(grep "pmpplab: $LAB quick run:" "$WORK/ws/.pmpplab/tui.log" | tail -1 | sed 's/.*ms: //')
	printf 'save %d (%s, %s): first verdict %5d ms, final %5d ms end to end, job %5d ms, debounce+ui %4d ms | %s\n' \
		"$i" "$MODE" "$want" "$first" "$e2e" "$job_ms" $((e2e - job_ms)) "$phases"
	[ "$i" = 0 ] || { results+=("$e2e"); firsts+=("$first"); }
	sleep 0.3
done
summary() { # WHAT VALUES...
	local what=$1
	shift
	printf '%s\n' "$@" | sort -n | awk -v lab="$LAB" -v mode="$MODE" -v what="$what" '{ v[NR] = $1 } END {
		printf "%s, %s edits: %s over %d saves: min %d ms, median %d ms, max %d ms\n", lab, mode,
			what, NR, v[1], v[int((NR + 1) / 2)], v[NR] }'
}
summary "first verdict ($FIRST)" "${firsts[@]}"
summary "end to end" "${results[@]}"
