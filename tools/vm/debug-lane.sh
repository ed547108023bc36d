#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The debug lane, run inside the VM on the debug kernel by tools/check-debug:
#
#   debug-lane.sh [--seed N] [TEST...]
#
# the selftests given (default: every one) under the three locking designs,
# then the all-CPU stress with fail_page_alloc making the stress's own
# allocations fail, once per design, then a load failing at each step of
# its init (fail_init_step), then a kmemleak scan after unload
# and a look at whether lockdep is still on (it turns itself off after
# its first report, so a later one would go unseen). The kernel's reports
# (KASAN, lockdep, ...) are caught by tools/vm/run on the console. TAP on
# stdout; exits 1 when anything failed.

K=/sys/kernel/debug/kmemleak
F=/sys/kernel/debug/fail_page_alloc
rc=0

echo clear > $K
# allocations cost ~50 times more here: give each test program longer,
# and leave out the one that measures how long reclaim waits
sed -i 's/^timeout=.*/timeout=1500/' /kselftest/pcpcache/settings
export PCPCACHE_SLOW_KERNEL=50
seed=
if [ "$1" = --seed ]; then
	seed="--seed $2"
	export PCPCACHE_SEED=$2
	shift 2
fi
# shellcheck disable=SC2086
sh /root/designs.sh $seed --lock local,spin,trylock "$@" || rc=1

echo "1..6"
# fail_page_alloc: 10% of the allocations of the tasks that ask for it
# (task-filter; the stress's workers set their make-it-fail once started),
# not their user pages (ignore-gfp-highmem), within 2000 failures a run:
# the count left is shared, so each design starts with its own. 12 s a
# design: some 600 failures (1100 in 20 s here), every error path taken
# hundreds of times.
echo 10 > $F/probability
echo 1 > $F/interval
echo Y > $F/task-filter
echo Y > $F/ignore-gfp-highmem
echo N > $F/ignore-gfp-wait
echo 0 > $F/min-order
echo 0 > $F/verbose
n=0
for lock in local spin trylock; do
	n=$((n + 1))
	echo "options pcpcache lock=$lock" > /etc/modprobe.d/pcpcache-lock.conf
	echo 2000 > $F/times
	(cd /kselftest/pcpcache && exec ./stress -d 12 -f 0 -n -a) > /tmp/fail.tap 2>&1
	src=$?
	sed 's/^/# /' /tmp/fail.tap
	if [ $src = 0 ]; then
		echo "ok $n stress under fail_page_alloc, lock=$lock"
	else
		echo "not ok $n stress under fail_page_alloc, lock=$lock # exit=$src"
		rc=1
	fi
done
rm -f /etc/modprobe.d/pcpcache-lock.conf
echo 0 > $F/probability

# A load that fails at each step of pcpcache_init() (fail_init_step, built
# in for this lane) must undo the steps before it: the load fails with
# ENOMEM, nothing of the module is left, a normal load works after, and
# the kmemleak scan below finds nothing.
rmmod pcpcache 2> /dev/null
bad=
for step in 1 2 3 4 5; do
	err=$(modprobe pcpcache fail_init_step=$step 2>&1) && bad="$bad $step:loaded"
	echo "$err" | grep -q 'Cannot allocate memory' || bad="$bad $step:'$err'"
	for f in /sys/module/pcpcache /sys/kernel/mm/pcpcache /dev/pcpcache \
		 /sys/kernel/debug/pcpcache; do
		[ ! -e $f ] || bad="$bad $step:$f"
	done
done
if [ -z "$bad" ] && modprobe pcpcache && rmmod pcpcache; then
	echo "ok 4 a load failing at each of the 5 steps of its init leaves nothing behind"
else
	echo "not ok 4 a load failing at a step of its init:$bad"
	rc=1
fi

# Every test unloads pcpcache; make sure, then look for leaks twice over.
# kmemleak's file is empty unless it found something (debugfs files all
# have size 0, so read it), and refuses "scan" once it has turned off.
rmmod pcpcache 2> /dev/null
if echo scan > $K && sleep 2 && echo scan > $K; then
	leaks=$(cat $K)
	if [ -n "$leaks" ]; then
		echo "$leaks" | sed 's/^/# /' | head -n 60
		echo "not ok 5 kmemleak after unload"
		rc=1
	else
		echo "ok 5 kmemleak after unload: nothing"
	fi
else
	echo "not ok 5 kmemleak after unload # kmemleak is off: see the console"
	rc=1
fi

if grep -q 'debug_locks: *1$' /proc/lockdep_stats; then
	echo "ok 6 lockdep still on at the end (no report turned it off)"
else
	grep 'debug_locks' /proc/lockdep_stats | sed 's/^/# /'
	echo "not ok 6 lockdep turned itself off: it reported something (see the console)"
	rc=1
fi
exit $rc
