#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The main job, run inside the VM by "make demo" (tools/demo): load
# pcpcache, then in each of the six modes a short all-CPU stress with the
# per-CPU lists while it runs, the stress with its controller, the books
# with pages cached, the benchmarks at a size that finishes in a few
# minutes under emulation, with the comparison table, and the purger
# pattern: where the 2026 designs (remote, blocks, barn) differ from single and
# the kernel's own lists. The kernel messages it causes are explained
# where they come.
set -eu

D=/sys/kernel/debug/pcpcache

section()
{
	echo
	echo "== $*"
}

section "guest: kernel $(uname -r), $(nproc) CPUs, $(free -m | awk '/^Mem:/ { print $2 }') MiB, $(cat /proc/cmdline | grep -o 'init_on_alloc=[01]' || echo 'init_on_alloc=1 (Debian default)')"

section "modprobe pcpcache"
modprobe pcpcache
echo "(the kernel's \"loading out-of-tree module taints kernel\": any module built outside its tree)"
modinfo pcpcache | grep -E '^(version|vermagic):'
pcpctl mode
cat "$D/config"

# The stress drains when it ends: the per-CPU table is taken while it runs.
# every mode the module has ("passthrough [single] split remote blocks barn")
modes=$(pcpctl mode | tr -d '[]')
for mode in $modes; do
	section "mode $mode: 3 s of all-CPU stress, configuration left alone; the per-CPU lists 2 s in"
	pcpctl mode "$mode"
	pcpctl stress --calm --seconds 3 --seed 1 > /tmp/stress.out 2>&1 &
	stress=$!
	sleep 2
	pcpctl pagesets
	wait $stress
	cat /tmp/stress.out
done

section "3 s of stress with modes, knobs and CPUs changing under it"
pcpctl stress --seconds 3 --seed 2 --hotplug --fault 10
echo "(the kernel's \"no longer affine to cpuN\": a worker pinned to a CPU the controller took offline)"

# Before the benchmarks: the last of them reloads the module, which starts
# every counter at 0 again.
section "the books, with pages cached: taken from the buddy allocator less given back = cached + held"
pcpctl mode single
pcpctl stress --calm --seconds 1 --seed 3 > /dev/null
pcpctl fault --quick --rows single --variant processes > /dev/null
pcpctl stats
books=$(awk '$1 == "buddy_alloc" { a = $2 } $1 == "buddy_free" { f = $2 }
	$1 == "cached" { c = $2 } $1 == "held" { h = $2 }
	END { if (a - f == c + h) print "balance: buddy_alloc " a " - buddy_free " f " = cached " c " + held " h;
	      else print "DO NOT BALANCE: buddy_alloc " a " - buddy_free " f " != cached " c " + held " h }' "$D/stats")
echo "$books"

section "benchmarks (pcpctl bench --quick)"
pcpctl bench --quick
echo "(the kernel's \"RT throttling activated\": benchmark 9's SCHED_FIFO loop holding a CPU)"

# The purger: every CPU but the first allocates, the first frees in bursts
# (pcpctl bench --patterns; its full table, the exit pattern too, in
# Documentation/mm/pcpcache-benchmarks.rst).
section "the purger pattern: allocations on every CPU but the first, frees on the first"
pcpctl bench --patterns --quick --reps 1 > /tmp/patterns.out 2>&1 || {
	cat /tmp/patterns.out
	exit 1
}
awk '$1 == "purger" { on = 1; next }
	on && NF == 0 { exit }
	on && ($1 == "single" || $1 == "remote" || $1 == "blocks" || $1 == "barn" ||
	    $1 == "kernel") {
		if (!n++)
			printf "%-12s %28s %20s\n", "design", "buddy pages per 1000 ops", "peak pages parked"
		printf "%-12s %28s %20s\n", $1 == "kernel" ? "kernel lists" : $1, $4, $9
	}' /tmp/patterns.out
echo "(buddy pages: taken from and given back to the buddy allocator, in + out; parked:"
echo " cached, in transit, at home in blocks or in a barn, the peak after each burst;"
echo " counts of pages, not timing: they hold under emulation)"

# A trace of this machine's own allocations, for the host to simulate
# through every design and draw (tools/demo): the page cache written on
# every CPU and deleted from the first, the "files" workload of make bench.
section "a trace of this run: files written on every CPU, deleted from CPU 0 (pcpctl record)"
pcpctl record --output /tmp/demo.pcpt -- sh /root/workloads.sh --run files || exit 1

section "unload"
rmmod pcpcache
dmesg | grep 'pcpcache: unloaded' | tail -n 1

# The trace as text, to the host alone: the second serial port, which
# tools/vm/run writes to --output, after what went there through tee.
sleep 1
{
	echo "==> trace.txt"
	pcpctl dump /tmp/demo.pcpt
	echo "==> end"
} > /dev/ttyS1
case $books in balance*) exit 0 ;; *) exit 1 ;; esac
