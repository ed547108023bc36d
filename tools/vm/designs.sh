#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run kselftests in this boot of the tools/vm/run guest under the locking
# designs of pcpcache that each one needs: the selftests load the module
# with modprobe, which takes the design from /etc/modprobe.d/.
#
#   designs.sh [--seed N] [--lock LOCKS] [TEST...] [--lock LOCKS TEST...]...
#
# Each --lock starts a group: its TESTs (COLLECTION:NAME, as
# run_kselftest.sh -t takes them) run once per design of LOCKS, a comma
# list of local, spin, trylock and default (no lock= option: the module's
# own default); the first group's LOCKS are local,spin unless given. With
# no TEST at all, every installed test runs under the LOCKS of the last
# --lock (local and spin without one). --seed N is
# exported as PCPCACHE_SEED, the seed of the stress selftests' random
# choices.
#
# Before each program the module is loaded once and unloaded, to check
# that /sys/module/pcpcache/parameters/lock shows the design asked for: a
# program run under another design than its group's fails.
#
# Each program runs through the kernel's run_kselftest.sh on its own and
# its time is printed after it ("# time: TEST lock=LOCK N s"). TAP on
# stdout; the exit status is 1 when any program failed or none ran
# (run_kselftest.sh itself exits 0 whatever its tests did).
list=/tmp/designs.list
: > $list
locks=local,spin
while [ $# -gt 0 ]; do
	case $1 in
	--seed)	export PCPCACHE_SEED=$2; shift 2 ;;
	--lock)	locks=$2; shift 2 ;;
	*)	echo "$locks $1" >> $list; shift ;;
	esac
done
[ -s $list ] || sed "s/^/$locks /" /kselftest/kselftest-list.txt > $list
[ -z "${PCPCACHE_SEED:-}" ] || echo "# PCPCACHE_SEED=$PCPCACHE_SEED"

# every user process: pid, state, name, where it waits, its kernel stack
tasks()
{
	for d in /proc/[0-9]*; do
		# (files of /proc have no size: read them)
		[ -n "$(tr -d '\0' < $d/cmdline 2> /dev/null)" ] || continue
		echo "${d#/proc/} $(cut -d ' ' -f 3 $d/stat) $(tr '\0' ' ' < $d/cmdline) wchan=$(cat $d/wchan)"
		sed 's/^/    /' $d/stack 2> /dev/null
	done
}

# Does the module load with design $1, as the program will load it? A
# design quietly not taken (an option lost, another design's code
# behind it) would make every program of the group prove the wrong one.
# The default is whatever the module says. Says why not on stdout.
design_loads() # lock
{
	rmmod pcpcache 2> /dev/null
	if ! err=$(modprobe pcpcache 2>&1); then
		echo "modprobe pcpcache (lock=$1) failed: $err"
		return 1
	fi
	got=$(cat /sys/module/pcpcache/parameters/lock 2> /dev/null)
	rmmod pcpcache
	if [ -z "$got" ]; then
		echo "the module shows no lock parameter"
		return 1
	fi
	if [ "$1" != default ] && [ "$got" != "$1" ]; then
		echo "lock=$1 asked for, the module loaded with lock=$got"
		return 1
	fi
	echo "# designs.sh: the module loads with lock=$got"
}

# one program under one design; 1 when it failed or did not run
run_one() # lock test
{
	if [ "$1" = default ]; then
		rm -f /etc/modprobe.d/pcpcache-lock.conf
	else
		echo "options pcpcache lock=$1" > /etc/modprobe.d/pcpcache-lock.conf
	fi
	if ! why=$(design_loads "$1"); then
		echo "not ok 1 selftests: pcpcache: ${2#*:} # designs.sh: $why"
		return 1
	fi
	echo "$why"
	start=$(date +%s)
	# The runner's own limit kills a program that overruns, but not what
	# it left in the background holding the runner's pipe, which then
	# waits for ever: past the limit and two minutes more, the whole
	# process group goes (GNU timeout without --foreground).
	limit=$(($(sed -n 's/^timeout=//p' /kselftest/pcpcache/settings) + 120))
	# what every user process is doing just before that, said at once:
	# a process the kernel will not let go of would keep even this
	# script waiting. One-second sleeps, so that nothing outlives the
	# program and holds this script's output open.
	: > /tmp/designs.running
	(
		deadline=$(($(date +%s) + limit - 5))
		while [ -e /tmp/designs.running ] && [ "$(date +%s)" -lt $deadline ]; do
			sleep 1
		done
		if [ -e /tmp/designs.running ]; then
			echo "# designs.sh: $2 still runs after $((limit - 5)) s; its processes:"
			tasks | sed 's/^/# /'
		fi
	) &
	watch=$!
	# Appending: the runner writes the program's lines through a second
	# open of /dev/stdout (append), its own lines through this one; with
	# an offset of its own here, its result line overwrote the first 32
	# or so bytes of the program's output, "# 1..N" plan included.
	: > /tmp/designs.tap
	timeout -k 10 $limit /kselftest/run_kselftest.sh -t "$2" >> /tmp/designs.tap 2>&1
	trc=$?
	rm -f /tmp/designs.running
	wait $watch
	end=$(date +%s)
	# 124, or, under busybox's sh, 143: timeout is in the group it kills;
	# 137 too, or a SIGKILL from elsewhere (the OOM killer) before the limit
	if [ $((end - start)) -lt $limit ] && { [ $trc = 137 ] || [ $trc = 143 ]; }; then
		echo "# designs.sh: the runner of $2 was killed (status $trc) after $((end - start)) s, before its limit of $limit s: see the kernel log" >> /tmp/designs.tap
		echo "not ok 1 selftests: pcpcache: ${2#*:} # KILLED after $((end - start)) s (designs.sh)" >> /tmp/designs.tap
	elif [ $trc = 124 ] || [ $trc = 137 ] || [ $trc = 143 ]; then
		echo "# designs.sh: $2 did not finish within $limit s; its process group was killed" >> /tmp/designs.tap
		echo "not ok 1 selftests: pcpcache: ${2#*:} # TIMEOUT $limit seconds (designs.sh)" >> /tmp/designs.tap
	fi
	# The runner prints a program's result when it exits, while the
	# program's last lines may still be on their way through the runner's
	# "# " prefixer: the result goes last, so that every case counts for
	# its own program.
	grep -v '^\(not \)\{0,1\}ok [0-9]' /tmp/designs.tap
	echo "# time: $2 lock=$1 $((end - start)) s"
	grep '^\(not \)\{0,1\}ok [0-9]' /tmp/designs.tap
	grep -q '^ok [0-9]' /tmp/designs.tap && ! grep -q '^not ok' /tmp/designs.tap
}

mkdir -p /etc/modprobe.d
rc=0
# groups in order; within a group, every test under one design, then the next
for group in $(awk '!seen[$1]++ { print $1 }' $list); do
	for lock in $(echo "$group" | tr ',' ' '); do
		echo "# pcpcache lock=$lock"
		for t in $(awk -v g="$group" '$1 == g { print $2 }' $list); do
			run_one "$lock" "$t" || rc=1
		done
	done
done
rm -f /etc/modprobe.d/pcpcache-lock.conf /tmp/designs.tap $list
exit $rc
