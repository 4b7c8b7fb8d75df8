#!/bin/bash
# End to end (issue 13): every hostile lab 01 submission in tests/sandbox/hostile/ graded
# for real in the sandbox (bubblewrap), on the emulator: each is blocked or graded as
# failed with a clear message, and the grader (it always writes its report) and the
# machine (files, processes, the network) are unharmed. Exits 77 only where bwrap cannot
# make its namespaces here.
# Usage: e2e_hostile.sh PMPPLAB SOURCE_ROOT
set -u
pmpplab=$1
src=$2
hostile=$src/tests/sandbox/hostile
tmp=$(mktemp -d /tmp/e2e-hostile-XXXXXX)
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$tmp/cache}
# a secret of the grader's session that no report may show
export GITHUB_TOKEN=e2e-hostile-secret-5a1f
listener=
cleanup() {
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	rm -rf "$tmp" /tmp/pmpplab-hostile-* /var/tmp/pmpplab-hostile-wrote
}
trap cleanup EXIT
rm -f /tmp/pmpplab-hostile-* /var/tmp/pmpplab-hostile-wrote
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

# Where the sandbox cannot be made (no user namespaces, a container without the rights),
# say so and skip; any other error is a failure.
probe=$("$pmpplab" --grade 01-vecadd --quick --submission "$src/kernels/01-vecadd/solution.cu" \
	--backend emu 2>&1 >/dev/null)
if printf '%s' "$probe" | grep -q "the sandbox (bubblewrap) could not be set up\|bubblewrap (bwrap.*) is not installed"; then
	echo "SKIP: bwrap cannot make a sandbox here:"
	printf '%s\n' "$probe"
	exit 77
fi

# a listener on the loopback: a sandboxed program must not reach it
python3 - "$tmp/connected" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 47613))
s.listen(8)
while True:
    c, _ = s.accept()
    open(sys.argv[1], "a").write("connection\n")
    c.close()
PY
listener=$!
sleep 0.5

# uids the sandbox runs commands as (as root; a range of this test's own, apart from
# other gradings on the machine): none may have a process left afterwards
export PMPPLAB_SANDBOX_UID=62000
leftover() {
	for i in 1 2 3; do
		left=$(ps -eo uid=,stat=,comm= | awk '$1 >= 62000 && $1 < 62512' | head -3)
		[ -z "$left" ] && return
		sleep 1 # killed, on a loaded machine still on their way out
	done
	printf '%s\n' "$left"
}

# grade NAME [OPTIONS...]: grades hostile/NAME.cu; sets $out (text report + stderr),
# $rc and $secs
grade() {
	local name=$1
	shift
	local t0=$(date +%s.%N)
	out=$("$pmpplab" "$@" --grade 01-vecadd --quick --submission "$hostile/$name.cu" \
		--backend emu 2>&1)
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

# check NAME VERDICT TEXT...: the grading ended with a report (exit 0 passed, 1 failed:
# VERDICT), holding each TEXT, never the secret; nothing of the sandbox left running
check() {
	local name=$1 verdict=$2
	shift 2
	local want=1
	[ "$verdict" = passed ] && want=0
	if [ "$rc" != "$want" ]; then
		fail "$name: exit $rc, expected $want ($verdict)"
		printf '%s\n' "$out" | head -20
		return
	fi
	if ! printf '%s\n' "$out" | grep -q "^  score "; then
		fail "$name: no report"
		return
	fi
	for t in "$@"; do
		if ! printf '%s\n' "$out" | grep -qF -- "$t"; then
			fail "$name: '$t' missing from:"
			printf '%s\n' "$out" | head -20
			return
		fi
	done
	if printf '%s\n' "$out" | grep -q "$GITHUB_TOKEN"; then
		fail "$name: the report shows the grader's secret"
	fi
	local left=$(leftover)
	if [ -n "$left" ]; then
		fail "$name: sandbox processes left: $left"
	fi
	printf 'ok   %-20s %-6s %5s s\n' "$name" "$verdict" "$secs"
}

absent() {
	for f in "$@"; do
		[ -e "$f" ] && fail "$f exists: the sandbox let it through"
	done
}

grade read-solution
check read-solution failed "hostile: cannot read" "No such file or directory"
absent /tmp/pmpplab-hostile-stolen.cu

grade write-outside
check write-outside failed "hostile: cannot write /var/tmp/pmpplab-hostile-wrote"
absent /var/tmp/pmpplab-hostile-wrote

grade net-connect
check net-connect failed "hostile: cannot connect to 127.0.0.1:47613"
absent "$tmp/connected"

grade read-expected
check read-expected failed "hostile: no tiny.expected near"

grade forge-result # a result file of its own making (the grader crashed on it: issue 17)
check forge-result failed "holds 1 float32 values without data" "256 uint8 values where" \
	"it was not written by the harness"

grade read-home
check read-home failed "hostile: nothing to see in /root"
absent /tmp/pmpplab-hostile-home

grade env-secrets
check env-secrets failed "hostile: no secret in my environment"

grade parent-environ
check parent-environ failed "hostile: cannot read /proc/1/environ"

grade poison-cache
check poison-cache failed "hostile: cannot write"
absent "$PMPPLAB_CACHE/build/pmpplab-hostile-poison"

grade open-files
check open-files failed "hostile: opened only"

grade alloc-50gb
check alloc-50gb failed "hostile: malloc of 50 GB failed"

# the same submission compile-time: by a relative path (no such file in the sandbox),
# by an absolute one, and with the sandbox off (refused from the compiler's file list)
grade include-solution
check include-solution failed "error: ../../../kernels/01-vecadd/solution.cu: No such file" \
	"its own folder only"
mkdir -p "$tmp/abs"
echo "#include \"$src/kernels/01-vecadd/solution.cu\"" >"$tmp/abs/include-abs.cu"
out=$("$pmpplab" --grade 01-vecadd --quick --submission "$tmp/abs/include-abs.cu" --backend emu 2>&1)
rc=$?
secs=0
check include-abs failed "include-abs.cu:1:10: error: $src/kernels/01-vecadd/solution.cu: No such file"
out=$("$pmpplab" --sandbox=off --grade 01-vecadd --quick --submission "$tmp/abs/include-abs.cu" --backend emu 2>&1)
rc=$?
check include-abs-off failed "include-abs.cu:1: error: #include of $src/kernels/01-vecadd/solution.cu refused" \
	"not sandboxed"
grade include-solution --sandbox=off
check include-solution-off failed "include-solution.cu:3: error: #include of" "refused"

# attacks on the grader: it survives and reports; hangs and floods end fast
grade kill-parent
check kill-parent passed "correctness: tiny"
grade kill-all
check kill-all passed "correctness: tiny"

grade ignore-sigterm
check ignore-sigterm failed "timed out after 10.0 s" "not run: the program timed out" "No kernel was running when it was stopped"
awk -v s="$secs" 'BEGIN { exit !(s < 25) }' || fail "ignore-sigterm: the grading took $secs s (limit 10 s)"
[ "$(printf '%s\n' "$out" | grep -c "The program timed out")" = 1 ] ||
	fail "ignore-sigterm: more than one timeout reported"

grade flood-stdout
check flood-stdout failed "flooded its output" "debug line 0:" "not run: the program flooded"
awk -v s="$secs" 'BEGIN { exit !(s < 20) }' || fail "flood-stdout: the grading took $secs s"

grade fork-bomb
check fork-bomb failed "timed out" "not run:" "the host code did not finish"

grade fill-disk
check fill-disk passed "correctness: tiny"
absent /tmp/pmpplab-hostile-fill

grade daemonize
check daemonize passed "correctness: tiny"
pgrep -x pmpplab-daemon >/dev/null && fail "daemonize: the daemon outlived the grading"

# SIGKILL of the grader in the middle of a run: the sandbox dies with it, and the next
# start removes the run folder it left
"$pmpplab" --grade 01-vecadd --quick --submission "$hostile/ignore-sigterm.cu" --backend emu \
	>/dev/null 2>&1 &
grader=$!
sleep 4
stale=$(ls -d /tmp/pmpplab-run-$grader-* 2>/dev/null)
kill -9 $grader
wait $grader 2>/dev/null
sleep 1
[ -n "$stale" ] || fail "killed grader: no run folder /tmp/pmpplab-run-$grader-* seen while it ran"
[ -n "$(leftover)" ] && fail "killed grader: its sandbox lives on: $(leftover)"
grade kill-parent
[ -n "$stale" ] && [ -e "$stale" ] && fail "killed grader: $stale not swept at the next start"
echo "ok   SIGKILL of the grader: sandbox gone, $stale swept"

# no run folder of ours is left
for d in /tmp/pmpplab-run-*-*; do
	[ -e "$d" ] || continue
	pid=$(basename "$d" | cut -d- -f3)
	kill -0 "$pid" 2>/dev/null || fail "left behind: $d"
done
exit $status
