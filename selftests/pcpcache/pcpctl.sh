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
# the plan counts itself: one test per check line of this file
echo "1..$(grep -c '^check ' "$0")"
rmmod pcpcache 2> /dev/null

# Each bad option: exit 2, one line on stderr naming it, nothing on stdout.
bad_options()
{
	while IFS='|' read -r cmd arg; do
		# shellcheck disable=SC2086
		pcpctl $cmd "$arg" > /tmp/bad.out 2> /tmp/bad.err
		rc=$?
		if [ $rc != 2 ] || [ -s /tmp/bad.out ] ||
		   [ "$(wc -l < /tmp/bad.err)" != 1 ]; then
			echo "pcpctl $cmd '$arg': exit $rc, stdout $(wc -c < /tmp/bad.out) bytes, stderr:"
			cat /tmp/bad.err
			return 1
		fi
	done <<-EOF
	stress --seconds|abc
	stress --seconds|-1
	stress --seconds|0
	stress --seconds|1e3
	stress --seconds| 5
	stress --seconds|5s
	stress --seconds|86401
	stress --cpus|0-
	stress --cpus|3-1
	stress --cpus|1,,2
	stress --cpus|-1
	stress --cpus|1024
	stress --cpus|0x1
	stress --seed|-5
	stress --seed|4294967296
	stress --fault|101
	stress --fault|5%
	stress|extra
	bench --only|1-3
	bench --only|0
	bench --only|7
	bench --only|1,,2
	bench --only|
	bench --reps|3x
	bench --reps|0
	bench --reps|16
	bench --reps|+3
	bench|extra
	watch|nan
	watch|1e10
	watch|inf
	watch|-1
	watch|0
	watch|0.05
	watch|1.
	watch|.5
	watch|3601
	EOF
}

check "without the module: exit 1, 'not loaded'" \
	sh -c 'out=$(pcpctl stats 2>&1); rc=$?; echo "$out"; test $rc = 1 && echo "$out" | grep -q "not loaded"'

check "bad numeric options: exit 2 and one line each" bad_options

modprobe pcpcache
check "unknown command: usage, exit 2" sh -c 'pcpctl nosuch; test $? = 2'
check "the order of the options does not change what they mean" sh -c '
	pcpctl bench --quick --reps 1 --only 2 > /tmp/o1 &&
	pcpctl bench --reps 1 --quick --only 2 > /tmp/o2 &&
	grep -q "median of 1," /tmp/o1 && grep -q "median of 1," /tmp/o2'
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
	for t in "seq 100 1 0" "pair 100 1 4" "counter 1000 1 0"; do
		echo "$t" > '$D'/bench && test $(wc -l < '$D'/bench) = 1 || { echo "$t"; exit 1; }
	done
	for t in "concurrent 100 1 0" "hotness 64 16 3" "hotness 64 16 7" "stats 10 1 0" "switch 4 1 0"; do
		echo "$t" > '$D'/bench && test $(wc -l < '$D'/bench) = $(nproc) || { echo "$t"; exit 1; }
	done'
check "bench file: bad requests fail" sh -c '
	for t in "bogus 1 1 0" "seq 0 1 0" "seq 65537 1 0" "hotness 4 8 0" "seq 1 1 8" "seq 1 1"; do
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
