#!/bin/bash
# --help names the environment variables a student meets (issue 18, item 6), and the
# default workspace it names is the README's and scripts/bootstrap's (~/pmpplab-work).
# usage: cli_help.sh PMPPLAB SOURCE_ROOT
set -u
P=${1:?usage: cli_help.sh PMPPLAB SOURCE_ROOT}
SRC=${2:?usage: cli_help.sh PMPPLAB SOURCE_ROOT}
help=$("$P" --help) || { echo "FAIL: pmpplab --help failed"; exit 1; }
for want in PMPPLAB_WORKSPACE PMPPLAB_CACHE '~/pmpplab-work'; do
	grep -qF -- "$want" <<<"$help" || { echo "FAIL: --help does not mention $want"; exit 1; }
done
grep -qF '`~/pmpplab-work`' "$SRC/README.md" || { echo "FAIL: the README does not name ~/pmpplab-work"; exit 1; }
grep -qF 'PMPPLAB_WORKSPACE:-$HOME/pmpplab-work' "$SRC/scripts/bootstrap" ||
	{ echo "FAIL: scripts/bootstrap's default workspace is not ~/pmpplab-work"; exit 1; }
echo "ok: --help names PMPPLAB_WORKSPACE, PMPPLAB_CACHE and ~/pmpplab-work, as the README"
