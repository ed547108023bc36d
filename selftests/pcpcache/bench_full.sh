#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The full "pcpctl bench", at the sizes pcpctl uses, once (--reps 1): it
# must fit the machine it runs on, a row too big skipped with its reason
# and the run going on to the end, its --json output one valid object
# with all nine benchmarks, the configuration put back and the books
# balanced. Not in the default run (about two minutes in a 1 GiB TCG
# guest): make check runs it in a 1 GiB guest of its own.

ksft_skip=4
S=/sys/kernel/mm/pcpcache
json_check=$(cd "$(dirname "$0")" && pwd)/json_check
n=0
failed=0

result() # ok? description
{
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=1
	fi
}

[ "$(id -u)" = 0 ] || { echo "# SKIP: needs root"; exit $ksft_skip; }
command -v pcpctl > /dev/null || { echo "# SKIP: pcpctl is not on PATH"; exit $ksft_skip; }
modprobe pcpcache || exit 1

echo "TAP version 13"
echo "1..5"
pcpctl set mode=split batch=9 high=90 || exit 1
before=$(cat $S/config)
pcpctl bench --reps 1 --json > /tmp/full.json 2> /tmp/full.err
rc=$?
sed 's/^/# /' /tmp/full.err
result $rc "pcpctl bench --reps 1 runs to the end on $(($(sed -n 's/MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo) / 1024)) MiB, $(nproc) CPUs"
"$json_check" < /tmp/full.json
result $? "... its stdout is one JSON object"
missing=
for b in 1 2 3 4 5 6 7 8 9; do
	grep -q "\"number\": $b," /tmp/full.json || missing="$missing $b"
done
[ -z "$missing" ] && grep -q '"targets": \[' /tmp/full.json
result $? "... with every benchmark and the targets${missing:+ (missing:$missing)}"
# a skipped row says why
! grep -q '"skipped": ""' /tmp/full.json
result $? "... and a reason for every row it skipped ($(grep -c '"skipped"' /tmp/full.json) skipped)"
pcpctl drain
[ "$(cat $S/config)" = "$before" ] &&
	awk '$1 == "buddy_alloc" { a = $2 } $1 == "buddy_free" { f = $2 }
	     $1 == "cached" { c = $2 } $1 == "transit" { t = $2 } $1 == "held" { h = $2 }
	     END { exit !(a - f == c + t + h && c == 0 && t == 0 && h == 0) }' $S/stats
result $? "the configuration is back as found, and the books balance"
rmmod pcpcache
exit $failed
