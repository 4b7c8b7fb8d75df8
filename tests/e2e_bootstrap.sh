#!/bin/bash
# The README's first quick-start command, `scripts/bootstrap start`, on this build: it
# makes the student workspace, then starts pmpplab (asked for --version here instead of
# the terminal UI). A second start keeps the student's edits.
# usage: e2e_bootstrap.sh SOURCE_ROOT BUILD_ROOT
set -u
root=$1 build=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out"; exit 1; }
start() { PMPPLAB_BUILD_DIR=$build PMPPLAB_WORKSPACE=$tmp/ws bash "$root/scripts/bootstrap" start --version >"$tmp/out" 2>&1; }

start || fail "bootstrap start: exit $?"
grep -q "^pmpplab [0-9]" "$tmp/out" || fail "bootstrap start did not run pmpplab"
f=$tmp/ws/01-vecadd/vecadd.cu
[ -f "$f" ] || fail "no workspace made in $tmp/ws"
echo "// the student's edit" >>"$f"
start || fail "second bootstrap start: exit $?"
grep -q "the student's edit" "$f" || fail "a second start lost the student's edit"
echo "bootstrap start: workspace made, pmpplab started, edits kept"
