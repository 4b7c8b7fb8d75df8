#!/bin/bash
# --help names the environment variables a student meets (issue 18, item 6), and the
# default workspace it names is the README's and scripts/bootstrap's (~/pmpplab-work).
# The man page is true to the command line: every option of --help (and of lab mutate
# --help) is in it and every option it names is in them, its version is pmpplab's, and a
# build makes it readable (build/man/man1/pmpplab.1, which --help names).
# usage: cli_help.sh PMPPLAB SOURCE_ROOT
set -u
P=${1:?usage: cli_help.sh PMPPLAB SOURCE_ROOT}
SRC=${2:?usage: cli_help.sh PMPPLAB SOURCE_ROOT}
fail() { echo "FAIL: $*"; exit 1; }
help=$("$P" --help) || fail "pmpplab --help failed"
for want in PMPPLAB_WORKSPACE PMPPLAB_CACHE '~/pmpplab-work'; do
	grep -qF -- "$want" <<<"$help" || fail "--help does not mention $want"
done
grep -qF '`~/pmpplab-work`' "$SRC/README.md" || fail "the README does not name ~/pmpplab-work"
grep -qF 'PMPPLAB_WORKSPACE:-$HOME/pmpplab-work' "$SRC/scripts/bootstrap" ||
	fail "scripts/bootstrap's default workspace is not ~/pmpplab-work"

# The man page as text: groff's \- and font escapes taken out.
MAN="$SRC/assets/pmpplab.1"
man_text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN")
grep -qF '~/pmpplab-work' <<<"$man_text" || fail "the man page does not name ~/pmpplab-work"
for var in $(grep -oE 'PMPPLAB_[A-Z_]+' <<<"$help" | sort -u); do
	grep -q "^\.B $var\$" "$MAN" || fail "--help names $var; the man page's ENVIRONMENT does not"
done
# Options: a - or -- word not inside another word.
opts() { grep -oE -- '(^|[^a-zA-Z0-9-])--?[a-z][a-z0-9-]*' | sed -E 's/^[^-]*//' | sort -u; }
mutate_help=$("$P" lab mutate --help 2>&1)
in_help=$(printf '%s\n%s\n' "$help" "$mutate_help" | opts)
in_man=$(opts <<<"$man_text")
missing=$(comm -23 <(echo "$in_help") <(echo "$in_man"))
[ -z "$missing" ] || fail "options of --help the man page does not describe: $(echo $missing)"
extra=$(comm -13 <(echo "$in_help") <(echo "$in_man"))
[ -z "$extra" ] || fail "options in the man page that --help does not know: $(echo $extra)"
version=$("$P" --version) || fail "pmpplab --version failed"
grep -qF "\"$version\"" "$MAN" || fail "the man page's .TH does not say \"$version\""

# Where the manual is, from this build: --help says, and the file is there.
page=$(grep -oE 'man [^ ]+/man/man1/pmpplab\.1' <<<"$help" | sed 's/^man //')
[ -n "$page" ] || fail "--help does not say where the manual is (man .../man/man1/pmpplab.1)"
cmp -s "$page" "$MAN" || fail "--help names $page, which is not the build's copy of assets/pmpplab.1"
if command -v man >/dev/null 2>&1 && man --version 2>/dev/null | grep -q man-db; then
	found=$(MANPATH= PATH="$(dirname "$P"):$PATH" man -w pmpplab 2>&1)
	[ "$found" = "$page" ] || fail "man pmpplab with $(dirname "$P") on PATH finds '$found', not $page"
fi
echo "ok: --help names PMPPLAB_WORKSPACE, PMPPLAB_CACHE, ~/pmpplab-work and the manual;" \
	"the man page has its options, environment and version; man finds it from the build"
