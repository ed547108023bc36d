#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The standard workloads of pcpctl simulate, recorded in the guest by
# "make bench" (tools/bench): each is recorded with the kernel's own list
# events, the kernel's lists emptied first (so that the kernel model starts
# where the kernel does), simulated through every design and setting and
# the kernel model, and replayed through the module in lockstep with
# --check, in single and in barn mode. Prints the tables, one "workload:"
# line each for the summary of Documentation/mm/pcpcache-replay.rst, and
# each trace as text after a line "==> NAME.txt", for tools/bench to keep
# and plot on the host.
# Runs as the guest's command.
W=/tmp/workloads
mkdir -p $W
modprobe pcpcache || exit 1
ncpu=$(nproc)

# will-it-scale's page_fault1, the kernel's row of pcpctl fault
page_fault1() { pcpctl fault --rows kernel --quick --variant processes > /dev/null; }

# pages allocated on one CPU and freed on another: a pipe's buffers,
# written on CPU 0 and read on the last CPU
messaging()
{
	taskset -c 0 dd if=/dev/zero bs=64k count=512 2> /dev/null |
		taskset -c $((ncpu - 1)) cat > /dev/null
}

# the page cache: files written on every CPU, deleted from CPU 0
files()
{
	cpu=0
	while [ $cpu -lt "$ncpu" ]; do
		taskset -c $cpu dd if=/dev/zero of=$W/f$cpu bs=64k count=64 2> /dev/null &
		cpu=$((cpu + 1))
	done
	wait
	taskset -c 0 rm -f $W/f*
}

# jemalloc's purger, in the page cache: every CPU but the first writes
# 512 pages a turn, holding at most two turns' (1024), and CPU 0 frees the
# turn before in one burst (as bench --patterns' purger and the design
# document's synthetic traces)
purger()
{
	turn=0
	while [ $turn -le 16 ]; do
		cpu=1
		while [ $turn -lt 16 ] && [ $cpu -lt "$ncpu" ]; do
			taskset -c $cpu dd if=/dev/zero of=$W/p$cpu.$turn bs=64k count=32 2> /dev/null &
			cpu=$((cpu + 1))
		done
		wait
		[ $turn = 0 ] || taskset -c 0 rm -f $W/p*.$((turn - 1))
		turn=$((turn + 1))
	done
}

if [ "${1:-}" = --run ]; then
	"$2"
	exit 0
fi

status=0
for w in page_fault1 messaging files purger; do
	echo "=== $w"
	pcpctl record --empty-lists --output $W/$w.pcpt -- sh "$0" --run $w || status=1
	pcpctl simulate $W/$w.pcpt --budget 4 > $W/$w.sim || status=1
	cat $W/$w.sim
	agrees=
	for mode in single barn; do
		pcpctl replay $W/$w.pcpt --check --set mode=$mode > $W/$w.$mode
		rc=$?
		cat $W/$w.$mode
		[ $rc = 0 ] || status=1
		if grep -q 'simulator and module agree on every CPU' $W/$w.$mode; then
			agrees="$agrees $mode yes"
		else
			agrees="$agrees $mode NO"
		fi
	done
	events=$(sed -n 's/^trace [^:]*: \([0-9]*\) events.*/\1/p' $W/$w.sim)
	model=$(sed -n 's/^kernel model against the recording: //p' $W/$w.sim)
	echo "workload: $w | $events events | $ncpu CPUs | $model | lockstep agrees:$agrees"
done
for w in page_fault1 messaging files purger; do
	echo "==> $w.txt"
	pcpctl dump $W/$w.pcpt || status=1
done
exit $status
