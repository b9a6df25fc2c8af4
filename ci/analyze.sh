#!/bin/sh
# Static analysis of the library (lib/ and its public headers), three
# tools, zero findings allowed:
#   scan-build   clang's static analyzer over the library build, default
#                checkers plus the security, padding and portability extras
#                below (every stable checker clang-tidy's clang-analyzer-*
#                would run, and bounds checkers from alpha);
#   cppcheck     warning, style, performance and portability classes;
#   clang-tidy   bugprone-*, cert-*, misc-no-recursion (configuration and
#                every justified exclusion in ci/clang-tidy.yaml).  Its
#                clang-analyzer-* checks are the same analyzer scan-build
#                runs, with the same inlining: run there once, not twice (they
#                were nine tenths of clang-tidy's time).
# Prints one line per tool with its count of findings and writes the full
# reports to build/analyze/; exits 1 when any tool reports anything.
#
#   ci/analyze.sh            all three
#   ci/analyze.sh TOOL...    some of them (scan-build, cppcheck, clang-tidy)
set -eu
cd "$(dirname "$0")/.."
out=build/analyze
mkdir -p "$out"
tools=${*:-scan-build cppcheck clang-tidy}
srcs=$(ls lib/*.c)
# scan-build's make and clang-tidy's files run this many at a time
jobs=$(nproc 2>/dev/null || echo 2)
defs="-std=c11 -D_POSIX_C_SOURCE=200809L -DTB_BUILDING_LIBRARY -Iinclude -Ilib"
total=0
# Analyzer precision (scan-build): always
# inline functions of up to 30 basic blocks (clang's default is 3).  The
# decoders read input through small checked helpers that return an error
# status on every failure path; analysed without inlining them, the
# analyzer assumes such a helper may return TB_OK without writing its
# output and reports "garbage value" paths that cannot happen.  This makes
# the analysis deeper, not narrower: nothing is switched off.
inline_cfg=ipa-always-inline-size=30

# Findings ("FILE:LINE:COL: severity: message [CHECK...]") on stdin; those
# listed in ci/analyze-suppressions.txt for TOOL are dropped (and counted in
# $out/TOOL.suppressed), the rest printed.
unsuppressed() {
	awk -v tool="$1" -v counter="$out/$1.suppressed" '
		function trim(x) { sub(/^[ \t]+/, "", x); sub(/[ \t]+$/, "", x); return x }
		FNR == NR {
			if ($0 ~ /^#/ || $0 !~ /\|/) next
			n = split($0, f, "|")
			if (f[1] != tool) next
			text = f[4]; for (i = 5; i <= n; i++) text = text "|" f[i]
			sup[f[2] "|" f[3] "|" trim(text)] = 1
			next
		}
		{
			split($0, loc, ":"); file = loc[1]; line = loc[2]
			id = $0; sub(/.*\[/, "", id); sub(/[],].*/, "", id)
			src = ""
			if (!((file, line) in cache)) {
				k = 0
				while ((getline l < file) > 0) if (++k == line + 0) { src = l; break }
				close(file)
				cache[file, line] = trim(src)
			}
			src = cache[file, line]
			if ((file "|" id "|" src) in sup || ("*|" id "|" src) in sup ||
			    (file "|" id "|*") in sup || ("*|" id "|*") in sup) { dropped++; next }
			print
		}
		END { print dropped + 0 > counter }' ci/analyze-suppressions.txt -
}

# "TOOL: N findings (M suppressed ...)" and the findings themselves.
report() {
	tool=$1
	n=$(grep -c . "$out/$tool.findings" || true)
	sup=$(cat "$out/$tool.suppressed" 2>/dev/null || echo 0)
	cat "$out/$tool.findings"
	echo "analyze: $tool: $n findings${2:+ $2} ($sup not defects, see ci/analyze-suppressions.txt)"
	[ "$n" -eq 0 ]
}

run_scan_build() {
	rm -rf "$out/scan" "$out/scan-obj"
	# The library objects only, rebuilt from scratch through the analyzer.
	objs=$(for s in $srcs; do printf '%s ' "$out/scan-obj/lib/$(basename "$s" .c).o"; done)
	# shellcheck disable=SC2086
	scan-build -o "$out/scan" --use-cc=clang -analyzer-config "$inline_cfg" \
		-enable-checker security.FloatLoopCounter \
		-enable-checker security.insecureAPI.rand \
		-enable-checker security.insecureAPI.strcpy \
		-enable-checker security.insecureAPI.bcmp \
		-enable-checker security.insecureAPI.bcopy \
		-enable-checker security.insecureAPI.bzero \
		-enable-checker optin.performance.Padding \
		-enable-checker optin.portability.UnixAPI \
		-enable-checker valist \
		-enable-checker alpha.security.ArrayBoundV2 \
		-enable-checker alpha.security.ReturnPtrRange \
		-enable-checker alpha.core.PointerArithm \
		-enable-checker alpha.unix.cstring.OutOfBounds \
		-enable-checker alpha.unix.cstring.BufferOverlap \
		make -s -j"$jobs" BUILD="$out/scan-obj" $objs > "$out/scan-build.log" 2>&1 || {
		tail -20 "$out/scan-build.log" >&2
		echo "analyze: scan-build: the build failed" >&2
		return 1
	}
	grep -E '^[^ ]+:[0-9]+:[0-9]+: warning: ' "$out/scan-build.log" | LC_ALL=C sort -u |
		unsuppressed scan-build > "$out/scan-build.findings"
	report scan-build "in $(echo $srcs | wc -w) files (HTML report in $out/scan)"
}

run_cppcheck() {
	# shellcheck disable=SC2086
	cppcheck -j"$jobs" --quiet --force --inline-suppr --std=c11 --language=c \
		--enable=warning,style,performance,portability \
		--suppress=missingIncludeSystem --library=posix \
		-D__GNUC__ -DTB_BUILDING_LIBRARY -Iinclude -Ilib \
		--template='{file}:{line}:{column}: {severity}: {message} [{id}]' \
		$srcs > "$out/cppcheck.log" 2>&1 || true
	grep -E '^[^ ]+:[0-9]+:[0-9]+: ' "$out/cppcheck.log" | LC_ALL=C sort -u |
		unsuppressed cppcheck > "$out/cppcheck.findings"
	report cppcheck
}

run_clang_tidy() {
	# One process per file, $jobs at a time, each into a log of its own
	# (joined in file order, so the report reads the same every run).
	rm -rf "$out/tidy" && mkdir -p "$out/tidy"
	# shellcheck disable=SC2086
	printf '%s\n' $srcs | xargs -P "$jobs" -I{} sh -c '
		clang-tidy --quiet --config-file=ci/clang-tidy.yaml \
			"$1" -- $2 >"$3/$(basename "$1").log" 2>&1 || true' sh {} "$defs" "$out/tidy"
	for s in $srcs; do cat "$out/tidy/$(basename "$s").log"; done |
		sed "s|^$(pwd)/||" > "$out/clang-tidy.log"
	grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' "$out/clang-tidy.log" | LC_ALL=C sort -u |
		unsuppressed clang-tidy > "$out/clang-tidy.findings"
	report clang-tidy
}

for t in $tools; do
	case "$t" in
	scan-build) run_scan_build || total=$((total + 1)) ;;
	cppcheck) run_cppcheck || total=$((total + 1)) ;;
	clang-tidy) run_clang_tidy || total=$((total + 1)) ;;
	*) echo "analyze: unknown tool $t" >&2; exit 2 ;;
	esac
done
if [ "$total" -gt 0 ]; then
	echo "analyze: findings in lib/ (reports in $out/)" >&2
	exit 1
fi
echo "analyze: lib/ clean under $(echo $tools | wc -w) analyzers"
