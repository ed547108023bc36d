#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The debug lane, run inside the VM on the debug kernel by tools/check-debug:
# the whole selftest suite, then the all-CPU stress with fail_page_alloc
# making the stress's own allocations fail, both once per locking design,
# then a kmemleak scan after unload. The kernel's reports (KASAN, lockdep,
# ...) are caught by tools/vm/run on the console. TAP on stdout.

K=/sys/kernel/debug/kmemleak
F=/sys/kernel/debug/fail_page_alloc

echo clear > $K
# allocations cost ~50 times more here: give each test program longer,
# and leave out the one that measures how long reclaim waits
sed -i 's/^timeout=.*/timeout=1500/' /kselftest/pcpcache/settings
export PCPCACHE_SLOW_KERNEL=50
sh /root/designs.sh

echo "1..3"
# fail_page_alloc: 10% of the allocations of the tasks that ask for it
# (task-filter; the stress's workers set their make-it-fail once started),
# not their user pages (ignore-gfp-highmem), within 2000 failures a run:
# the count left is shared, so each design starts with its own.
echo 10 > $F/probability
echo 1 > $F/interval
echo Y > $F/task-filter
echo Y > $F/ignore-gfp-highmem
echo N > $F/ignore-gfp-wait
echo 0 > $F/min-order
echo 0 > $F/verbose
n=0
for lock in local spin; do
	n=$((n + 1))
	echo "options pcpcache lock=$lock" > /etc/modprobe.d/pcpcache-lock.conf
	echo 2000 > $F/times
	(cd /kselftest/pcpcache && exec ./stress -d 20 -f 0 -n -a) > /tmp/fail.tap 2>&1
	rc=$?
	sed 's/^/# /' /tmp/fail.tap
	if [ $rc = 0 ]; then
		echo "ok $n stress under fail_page_alloc, lock=$lock"
	else
		echo "not ok $n stress under fail_page_alloc, lock=$lock # exit=$rc"
	fi
done
rm -f /etc/modprobe.d/pcpcache-lock.conf
echo 0 > $F/probability

# every test unloads pcpcache; make sure, then look for leaks twice over
rmmod pcpcache 2> /dev/null
echo scan > $K
sleep 2
echo scan > $K
if [ -s $K ]; then
	sed 's/^/# /' $K | head -n 60
	echo "not ok 3 kmemleak after unload"
else
	echo "ok 3 kmemleak after unload: nothing"
fi
