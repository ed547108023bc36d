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
echo "1..23"
rmmod pcpcache 2> /dev/null

check "without the module: exit 1, 'not loaded'" \
	sh -c 'out=$(pcpctl stats 2>&1); rc=$?; echo "$out"; test $rc = 1 && echo "$out" | grep -q "not loaded"'

modprobe pcpcache
check "unknown command: usage, exit 2" sh -c 'pcpctl nosuch; test $? = 2'
check "every subcommand has --help" sh -c 'for c in stats pagesets mode set drain watch stress bench fault; do pcpctl $c --help | grep -q usage || exit 1; done'
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

# page_fault1, small: both variants, a table per variant, the targets, and
# the configuration it found put back
pcpctl set mode=split batch=8 high=64
before=$(cat $D/config)
check "fault --quick prints the tables and targets" sh -c '
	pcpctl fault --quick --rows kernel,single,31/186 > /tmp/fault.txt &&
	grep -q "^processes" /tmp/fault.txt && grep -q "^threads" /tmp/fault.txt &&
	grep -q "^kernel " /tmp/fault.txt && grep -q "^single 31/186 " /tmp/fault.txt &&
	test $(grep -c "(target" /tmp/fault.txt) = 8'
check "... and puts the configuration back" test "$(cat $D/config)" = "$before"
check "fault --json prints one JSON object and nothing else" sh -c '
	pcpctl fault --quick --json --variant processes --rows kernel,single > /tmp/fault.json &&
	head -c 1 /tmp/fault.json | grep -q "{" && tail -n 1 /tmp/fault.json | grep -qx "}" &&
	grep -q "\"faults_per_sec_per_cpu\"" /tmp/fault.json &&
	! grep -q "faults/s" /tmp/fault.json &&
	test $(tr -cd "{" < /tmp/fault.json | wc -c) = $(tr -cd "}" < /tmp/fault.json | wc -c)'
check "fault refuses bad values with one line, exit 2" sh -c '
	for a in "--passes abc" "--passes -1" "--passes 3x" "--size 0" "--rows kernel," "--variant x" "--quick junk"; do
		pcpctl fault $a > /tmp/out 2> /tmp/err; rc=$?
		test $rc = 2 && test $(wc -l < /tmp/err) = 1 && test ! -s /tmp/out || { echo "$a: $rc"; exit 1; }
	done'
pcpctl set mode=single batch=63 high=378

check "the books balance after all that" sh -c '
	awk '\''$1 == "buddy_alloc" { a = $2 } $1 == "buddy_free" { f = $2 }
	     $1 == "cached" { c = $2 } $1 == "held" { h = $2 }
	     END { exit !(a - f == c + h) }'\'' '$D'/stats'
rmmod pcpcache
exit $failed
