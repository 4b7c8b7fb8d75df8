#!/usr/bin/env bash
# The map's arrows (docs/ARCHITECTURE.md): ui -> grader -> emu, never back.
#   check_arrows.sh SOURCE_ROOT EMU_LIB.a CUDART_LIB.so GRADER_LIB.a UI_LIB.a
# 1. No file of emu/ includes a header of grader/ or ui/, no file of grader/ one of ui/.
# 2. No object of the emu libraries references a symbol that grader/ or ui/ defines, and
#    no grader object one that ui/ defines (nm: what each library defines and needs).
# 3. Every module (.c/.cpp) of emu/, grader/, grader/harness/ and ui/ has its line in the
#    map's "Every module" section.
set -u
root=$1 emu=$2 cudart=$3 grader=$4 ui=$5
fail=0

# --- includes ---
ui_headers=$(cd "$root/ui" && ls *.h)
grader_headers=$(cd "$root/grader" && ls *.h harness/*.h)
check_includes() { # DIR, then the headers it must not include
	local dir=$1; shift
	for h in "$@"; do
		local hits
		hits=$(grep -rn --include='*.c' --include='*.h' --include='*.cpp' \
			-E "^[[:space:]]*#[[:space:]]*include[[:space:]]+\"([^\"]*/)?$(basename "$h")\"" "$root/$dir" |
			grep -v "^$root/$dir/[^:]*$(basename "$h"):" || true)
		# a header of the same name in DIR itself is DIR's own
		[ -e "$root/$dir/$(basename "$h")" ] && continue
		if [ -n "$hits" ]; then
			echo "arrow broken: $dir/ includes $h:"; echo "$hits"; fail=1
		fi
	done
}
# shellcheck disable=SC2086
check_includes emu $grader_headers $ui_headers
# shellcheck disable=SC2086
check_includes grader $ui_headers

# --- symbols ---
defined() { nm --defined-only -g "$@" 2>/dev/null | awk 'NF==3 && $2 ~ /[TDBRCVW]/ {print $3}' | sort -u; }
undefined() { nm -u "$@" 2>/dev/null | awk '{print $NF}' | sort -u; }
defined "$grader" >/tmp/arrows.$$.grader
defined "$ui" >/tmp/arrows.$$.ui
undefined "$emu" "$cudart" >/tmp/arrows.$$.emu_needs
undefined "$grader" >/tmp/arrows.$$.grader_needs
trap 'rm -f /tmp/arrows.$$.*' EXIT
[ -s /tmp/arrows.$$.grader ] && [ -s /tmp/arrows.$$.ui ] && [ -s /tmp/arrows.$$.emu_needs ] ||
	{ echo "nm found no symbols: cannot check"; exit 1; }
back=$(comm -12 /tmp/arrows.$$.emu_needs <(sort -u /tmp/arrows.$$.grader /tmp/arrows.$$.ui))
if [ -n "$back" ]; then echo "arrow broken: emu/ uses grader/ui symbols: $back"; fail=1; fi
back=$(comm -12 /tmp/arrows.$$.grader_needs /tmp/arrows.$$.ui)
if [ -n "$back" ]; then echo "arrow broken: grader/ uses ui/ symbols: $back"; fail=1; fi

# --- every module on the map ---
map="$root/docs/ARCHITECTURE.md"
section=$(sed -n '/^## Every module/,/^## /p' "$map")
modules=0
for f in "$root"/emu/*.c "$root"/emu/*.cpp "$root"/grader/*.c "$root"/grader/*.cpp \
	"$root"/grader/harness/*.c "$root"/ui/*.c; do
	[ -e "$f" ] || continue
	m=$(basename "${f%.*}")
	modules=$((modules + 1))
	if ! grep -q -- "^- \`$m\`: " <<<"$section"; then
		echo "map incomplete: ${f#"$root"/} has no line in docs/ARCHITECTURE.md's \"Every module\""
		fail=1
	fi
done
[ $fail = 0 ] && echo "arrows ok: emu -/-> grader, ui; grader -/-> ui ($(wc -l </tmp/arrows.$$.emu_needs) emu and $(wc -l </tmp/arrows.$$.grader_needs) grader references checked; $modules modules on the map)"
exit $fail
