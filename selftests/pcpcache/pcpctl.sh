#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pcpctl, the command-line tool, against the module: every subcommand,
# all-or-nothing "set", clear errors, and the "bench" file under it.
# Needs pcpctl on PATH (the VM has it in /usr/local/bin).

ksft_skip=4
D=/sys/kernel/debug/pcpcache
n=0
failed=0

ok()   { n=$((n + 1)); echo "ok $n $*"; }
fail() { n=$((n + 1)); echo "not ok $n $*"; failed=1; }
check() # description command...
{
	desc=$1
	shift
	if "$@" > /tmp/pcpctl.out 2>&1; then
		ok "$desc"
	else
		sed 's/^/# /' /tmp/pcpctl.out
		fail "$desc"
	fi
}

[ "$(id -u)" = 0 ] || { echo "# SKIP: needs root"; exit $ksft_skip; }
command -v pcpctl > /dev/null || { echo "# SKIP: pcpctl is not on PATH (make puts it in build/bin)"; exit $ksft_skip; }
modinfo pcpcache > /dev/null 2>&1 || { echo "# SKIP: modprobe cannot find pcpcache.ko"; exit $ksft_skip; }

echo "TAP version 13"
echo "1..18"
rmmod pcpcache 2> /dev/null

check "without the module: exit 1, 'not loaded'" \
	sh -c 'out=$(pcpctl stats 2>&1); rc=$?; echo "$out"; test $rc = 1 && echo "$out" | grep -q "not loaded"'

modprobe pcpcache
check "unknown command: usage, exit 2" sh -c 'pcpctl nosuch; test $? = 2'
check "every subcommand has --help" sh -c 'for c in stats pagesets mode set drain watch stress bench; do pcpctl $c --help | grep -q usage || exit 1; done'
before=$(cat $D/config)
check "set refuses batch > high, exit 1, names the culprit" \
	sh -c 'pcpctl set batch=8 high=4; test $? = 1'
check "... and changes nothing" test "$(cat $D/config)" = "$before"
check "set refuses an unknown knob" sh -c 'pcpctl set batch=8 nosuch=1; test $? = 1 && test "$(cat '$D'/config)" = "'"$before"'"'
check "set applies several at once" pcpctl set mode=split batch=8 high=64
check "... all of them" test "$(cat $D/config)" = "mode=split batch=8 high=64 cold_batch=31 cold_high=126"
check "mode refuses a bad name" sh -c 'pcpctl mode bogus; test $? = 1'
check "mode switches" sh -c 'pcpctl mode single && pcpctl mode | grep -q "\[single\]"'
check "stats --json has the hit rate" sh -c 'pcpctl stats --json | grep -q "\"hit_rate\""'
check "pagesets has a header and a line per CPU" \
	sh -c 'test $(pcpctl pagesets | wc -l) -gt $(nproc)'
check "stress runs and the books balance" pcpctl stress --seconds 2 --seed 3
check "drain empties the magazines" sh -c 'pcpctl drain && grep -qx "cached 0" '$D'/stats'
check "watch prints rates" sh -c 'timeout 3 pcpctl watch 1 > /tmp/w; grep -q cached /tmp/w && test $(wc -l < /tmp/w) -ge 2'

# the bench file: each test runs and reports one line per CPU it ran on
check "bench file: every test runs" sh -c '
	for t in "seq 100 1 0" "pair 100 1 4" "pair 100 1 48" "counter 1000 1 0"; do
		echo "$t" > '$D'/bench && test $(wc -l < '$D'/bench) = 1 || { echo "$t"; exit 1; }
	done
	for t in "concurrent 100 1 0" "hotness 64 16 3" "hotness 64 16 7" "stats 10 1 0" "switch 4 1 0" "drain 4 1 0" "shrink 4 512 0"; do
		echo "$t" > '$D'/bench && test $(wc -l < '$D'/bench) = $(nproc) || { echo "$t"; exit 1; }
	done'
check "bench file: bad requests fail" sh -c '
	for t in "bogus 1 1 0" "seq 0 1 0" "seq 65537 1 0" "hotness 4 8 0" "seq 1 1 8" "seq 1 1" "seq 1 1 64" "shrink 1 65537 0"; do
		echo "$t" > '$D'/bench 2>/dev/null && exit 1
	done; exit 0'
check "bench --quick writes its CSV files" sh -c '
	pcpctl bench --quick --reps 1 --only 1,2 --csv /tmp/bench > /tmp/bench.txt &&
	for f in 1-alloc-then-free 2-pair; do
		test -s /tmp/bench/$f.csv || exit 1
	done && grep -q "limit" /tmp/bench.txt'
check "the books balance after all that" sh -c '
	awk '\''$1 == "buddy_alloc" { a = $2 } $1 == "buddy_free" { f = $2 }
	     $1 == "cached" { c = $2 } $1 == "held" { h = $2 }
	     END { exit !(a - f == c + h) }'\'' '$D'/stats'
rmmod pcpcache
exit $failed
