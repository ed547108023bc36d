#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The main job, run inside the VM by "make demo" (tools/demo): load
# pcpcache, then in each mode a short all-CPU stress, then the benchmarks
# at a size that finishes in a few minutes under emulation, the comparison
# table, and the verdict on the books.
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
modinfo pcpcache | grep -E '^(version|vermagic):'
pcpctl mode
cat "$D/config"

for mode in passthrough single split; do
	section "mode $mode: 3 s of all-CPU stress, configuration left alone"
	pcpctl mode "$mode"
	pcpctl stress --calm --seconds 3 --seed 1
	pcpctl pagesets
done

section "3 s of stress with modes, knobs and CPUs changing under it"
pcpctl stress --seconds 3 --seed 2 --hotplug --fault 10

section "benchmarks (pcpctl bench --quick)"
pcpctl bench --quick

section "the books"
pcpctl drain
pcpctl stats
books=$(awk '$1 == "buddy_alloc" { a = $2 } $1 == "buddy_free" { f = $2 }
	$1 == "cached" { c = $2 } $1 == "held" { h = $2 }
	END { if (a - f == c + h) print "balance: buddy_alloc " a " - buddy_free " f " = cached " c " + held " h;
	      else print "DO NOT BALANCE: buddy_alloc " a " - buddy_free " f " != cached " c " + held " h }' "$D/stats")
echo "$books"
rmmod pcpcache
dmesg | grep 'pcpcache: unloaded' | tail -n 1
case $books in balance*) exit 0 ;; *) exit 1 ;; esac
