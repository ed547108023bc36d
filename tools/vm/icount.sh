#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The icount figures, in a guest that tools/vm/run --icount booted: the
# one-CPU hit pair (benchmark 2's "pair" test) of every mode under every
# locking design, the limit pair (a bare list), the limit-call pair (the
# same list behind two calls of the API's shape), the kernel row
# (alloc_pages() and __free_pages() alone) and orders 1-3, in
# instructions. Prints one line per figure, "figure NAME VALUE", ROUNDS
# times over (default 2), each round a "round N" line first; tools/icount-
# check compares the rounds with each other and with tools/icount-budget.
#
# Each figure is the fewest instructions per pair of $RUNS runs of $NR
# pairs, after one untimed run, so that it is a run no timer tick or
# worker fell into, and it repeats to the instruction. A tick comes every
# 4M instructions (HZ=250): the dearest pair, the kernel's order 3 (about
# 920), makes a run of 0.92M, under a quarter of it, and nine runs leave
# it about one chance in 400,000 to have a tick in each. (Five runs of
# 2000 pairs, 1.84M a run, let order3.kernel read 921 then 917 in one
# boot.)
#
# usage: icount.sh [ROUNDS]
set -eu

rounds=${1:-2}
NR=1000
RUNS=9
bench=/sys/kernel/debug/pcpcache/bench

grep -qw pcpcache_icount=1 /proc/cmdline || {
	echo "icount.sh: not booted with tools/vm/run --icount" >&2
	exit 1
}

# pair FLAGS: the fewest instructions per pair, one decimal
pair()
{
	best=
	echo "pair $NR 1 $1" > $bench
	for _ in $(seq $RUNS); do
		echo "pair $NR 1 $1" > $bench
		read -r _ ops cycles _ < $bench
		[ "$ops" = "$NR" ] || {
			echo "icount.sh: pair $NR 1 $1 made $ops pairs" >&2
			exit 1
		}
		if [ -z "$best" ] || [ "$cycles" -lt "$best" ]; then
			best=$cycles
		fi
	done
	awk -v c="$best" -v n="$NR" 'BEGIN { printf "%.1f\n", c / n }'
}

figure()
{
	# an assignment: set -e stops the script when pair() failed
	value=$(pair "$2")
	echo "figure $1 $value"
}

for round in $(seq "$rounds"); do
	echo "round $round"
	for lock in local spin trylock; do
		modprobe -r pcpcache 2>/dev/null || true
		modprobe pcpcache lock=$lock
		for mode in passthrough single split barn remote blocks; do
			echo $mode > /sys/kernel/mm/pcpcache/mode
			# barn's pair is single's to the instruction, so no
			# ceiling would catch a figure of one mode measured
			# as another: the mode in brackets must be the one
			# just written
			grep -q "\[$mode\]" /sys/kernel/mm/pcpcache/mode || {
				echo "icount.sh: mode reads \"$(cat /sys/kernel/mm/pcpcache/mode)\" after writing $mode" >&2
				exit 1
			}
			figure "pair.$mode.$lock" 0
		done
		echo single > /sys/kernel/mm/pcpcache/mode
		for order in 1 2 3; do
			figure "order$order.single.$lock" $((order * 16))
		done
	done
	# none depends on the module's design
	figure pair.limit 4
	figure pair.limit-call 128
	figure pair.kernel 64
	for order in 1 2 3; do
		figure "order$order.limit" $((order * 16 + 4))
		figure "order$order.limit-call" $((order * 16 + 128))
		figure "order$order.kernel" $((order * 16 + 64))
	done
done
