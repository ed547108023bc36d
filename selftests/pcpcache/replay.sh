#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pcpctl record, simulate and replay on a real kernel:
#
# - record a workload of the guest (page cache writes and deletes, forks)
#   through tracefs, with the kernel's own list events: a consistent
#   trace with allocations and frees on more than one CPU;
# - the kernel model against the kernel's own refills and drains in the
#   same recording (printed; the model's limits are in
#   Documentation/mm/pcpcache-replay.rst);
# - replay it through the module in lockstep and compare each CPU's hits,
#   misses, refills, drains and buddy traffic with the simulator on the
#   same setting: exact agreement, under single and split, with the
#   default knobs and with batch 4 / high 8, where every design drains,
#   and under remote and blocks, blocks given back whole and in pieces
#   and all, and under barn, its exchanges counted alike (a replay shorter
#   than the barn's 5 s trim, which the simulator leaves out); the books
#   balance once the pages held go back;
# - the configuration is the one found, after a run and after a refusal;
#   replay --parallel of the same trace keeps the books balanced.
#
# Needs pcpctl on PATH, the module, and tracefs with the kmem events.

. "$(dirname "$0")/pcpcache_lib.sh"
D=/sys/kernel/debug/pcpcache
T=/sys/kernel/tracing
W=/tmp/replay

# page cache pages on every CPU, freed on whichever deletes them
workload()
{
	ncpu=$(nproc)
	cpu=0
	while [ $cpu -lt "$ncpu" ]; do
		taskset -c $cpu dd if=/dev/zero of=$W/f$cpu bs=64k count=16 2> /dev/null &
		cpu=$((cpu + 1))
	done
	wait
	taskset -c 0 rm -f $W/f*
	taskset -c 1 sh -c 'for i in 1 2 3 4 5 6 7 8; do /bin/true; done'
}

# the recorded command: this script again
if [ "${1:-}" = --workload ]; then
	workload
	exit 0
fi

need_pcpctl_and_module
[ -d $T/events/kmem/mm_page_alloc ] || mount -t tracefs nodev $T 2> /dev/null
[ -d $T/events/kmem/mm_page_alloc ] || { echo "# SKIP: no tracefs kmem events"; exit $ksft_skip; }

echo "TAP version 13"
echo "1..$(grep -c "^check " "$0")"
modprobe pcpcache || { echo "Bail out! modprobe pcpcache"; exit 1; }
mkdir -p $W

recorded()
{
	pcpctl record --output $W/w.pcpt -- sh "$0" --workload > $W/record.out 2>&1 ||
		{ cat $W/record.out; return 1; }
	cat $W/record.out
	pcpctl dump $W/w.pcpt > $W/w.txt || return 1
	allocs=$(grep -c ' alloc ' $W/w.txt)
	frees=$(grep -c ' free ' $W/w.txt)
	cpus=$(grep -v '^#' $W/w.txt | grep ' alloc ' | cut -d' ' -f2 | sort -u | wc -l)
	krefills=$(grep -c ' krefill ' $W/w.txt)
	echo "allocations $allocs, frees $frees, allocating CPUs $cpus, kernel refill events $krefills"
	[ "$allocs" -ge 500 ] && [ "$frees" -ge 200 ] && [ "$cpus" -ge 2 ] && [ "$krefills" -gt 0 ]
}
check "record: a workload on every CPU, with the kernel's refills" recorded

model()
{
	pcpctl simulate $W/w.pcpt --designs kernel > $W/model.out 2>&1 || { cat $W/model.out; return 1; }
	cat $W/model.out
	grep -q '^kernel model against the recording: refilled ' $W/model.out
}
check "simulate: the kernel model against the kernel's own lists" model

config_now() { cat $D/config; }

same_counts() # --set KNOBS
{
	before=$(config_now)
	pcpctl replay $W/w.pcpt --check "$@" > $W/replay.out 2>&1
	rc=$?
	cat $W/replay.out
	[ $rc = 0 ] && grep -q 'simulator and module agree on every CPU' $W/replay.out &&
		grep -q '^books balance: ' $W/replay.out &&
		[ "$(config_now)" = "$before" ]
}
check "replay single, default knobs: the module and the simulator agree on every CPU" \
	same_counts --set "mode=single"
check "replay single, batch 4 high 8: they agree, drains and all" \
	same_counts --set "mode=single batch=4 high=8"
check "replay split, batch 4 high 8: they agree" \
	same_counts --set "mode=split batch=4 high=8 cold_batch=2 cold_high=4"
check "replay passthrough: they agree" same_counts --set "mode=passthrough"
check "replay remote: they agree" same_counts --set "mode=remote"
check "replay blocks: they agree" same_counts --set "mode=blocks"
check "replay barn: they agree, exchanges and all" same_counts --set "mode=barn"
check "replay barn, batch 4 barn_full 1: they agree, flushes and all" \
	same_counts --set "mode=barn batch=4 high=8 barn_full=1"

# jemalloc's purger: CPU 1 allocates, CPU 0 frees in bursts of 512, up to
# 1024 held; 20480 pages each way
awk 'BEGIN {
	print "# pcptrace 1"; print "# cpus 2"
	for (r = 0; r <= 40; r++) {
		if (r < 40)
			for (i = 0; i < 512; i++)
				printf "1 1 alloc 0x%x 0 1\n", 4096 + 512 * r + i
		if (r)
			for (i = 0; i < 512; i++)
				printf "1 0 free 0x%x 0 1\n", 4096 + 512 * (r - 1) + i
	}
}' > $W/purger.txt

purger_counts() # MODE
{
	before=$(config_now)
	pcpctl replay $W/purger.txt --check --set "mode=$1" > $W/replay.out 2>&1
	rc=$?
	cat $W/replay.out
	[ $rc = 0 ] && grep -q 'simulator and module agree on every CPU' $W/replay.out &&
		grep -q '^books balance: ' $W/replay.out &&
		[ "$(config_now)" = "$before" ]
}
check "replay single on a purger trace: they agree" purger_counts single
check "replay remote on a purger trace: they agree, remote frees and all" purger_counts remote
check "replay blocks on a purger trace: they agree, remote frees and all" purger_counts blocks
check "replay barn on a purger trace: they agree, magazines through the barn and all" \
	purger_counts barn

# 2048 pages held on one CPU, freed on both by turns, four times over:
# blocks come home whole, and partly used ones go back in pieces
awk 'BEGIN {
	print "# pcptrace 1"; print "# cpus 2"
	for (r = 0; r < 4; r++) {
		for (i = 0; i < 2048; i++)
			printf "1 %d alloc 0x%x 0 1\n", r % 2, 4096 + i
		for (i = 0; i < 2048; i++)
			printf "1 %d free 0x%x 0 1\n", (r + i) % 2, 4096 + i
	}
}' > $W/whole.txt

# the module's column NAME of replay's table, summed over the CPUs
module_sum() # name
{
	awk -v name="$1" '$1 == "cpu" && !c { for (i = 2; i <= NF; i++) if ($i == name) c = i + 1 }
		$2 == "module" && c { sum += $c } END { print sum + 0 }' $W/replay.out
}

blocks_counts() # KNOBS
{
	before=$(config_now)
	pcpctl replay $W/whole.txt --check --set "$1" > $W/replay.out 2>&1
	rc=$?
	cat $W/replay.out
	whole=$(module_sum block_whole)
	pieces=$(module_sum block_pieces)
	echo "blocks given back whole $whole, pages given back in pieces $pieces"
	[ $rc = 0 ] && grep -q 'simulator and module agree on every CPU' $W/replay.out &&
		grep -q '^books balance: ' $W/replay.out &&
		[ "$whole" -gt 0 ] && [ "$pieces" -gt 0 ] &&
		[ "$(config_now)" = "$before" ]
}
check "replay blocks, blocks back whole and in pieces: they agree" \
	blocks_counts "mode=blocks"
check "replay blocks, batch 4 high 8: they agree" \
	blocks_counts "mode=blocks batch=4 high=8"

# a field of simulate --json's (one setting)
field() # file name
{
	grep -o "\"$2\": [0-9.]*" "$1" | head -1 | cut -d' ' -f2
}

purger_buddy()
{
	pcpctl simulate $W/purger.txt --set "mode=single" --json > $W/single.json &&
		pcpctl simulate $W/purger.txt --set "mode=remote" --json > $W/remote.json || return 1
	s=$(($(field $W/single.json buddy_alloc) + $(field $W/single.json buddy_free)))
	r=$(($(field $W/remote.json buddy_alloc) + $(field $W/remote.json buddy_free)))
	sp=$(field $W/single.json parked_peak)
	rp=$(field $W/remote.json parked_peak)
	echo "buddy pages in and out: single $s, remote $r; peak parked: single $sp, remote $rp"
	# CPU 1's room is its high and a batch, 441 pages, and a refill's rest
	[ $((3 * r)) -le "$s" ] && [ "$rp" -le $((sp + 441 + 63)) ]
}
check "simulate a purger trace: remote takes 3 times fewer buddy pages than single, parking within CPU 1's room more" purger_buddy

refused()
{
	before=$(config_now)
	pcpctl replay $W/w.pcpt --set "batch=0" > $W/out 2> $W/err
	rc=$?
	cat $W/err
	[ $rc = 2 ] && [ "$(wc -l < $W/err)" = 1 ] && [ "$(config_now)" = "$before" ]
}
check "replay --set batch=0: refused on one line, exit 2, the configuration as it was" refused

too_many_cpus()
{
	before=$(config_now)
	printf '# pcptrace 1\n# cpus 64\n0 63 alloc 0x1 0 1\n' > $W/cpus.txt
	pcpctl replay $W/cpus.txt > $W/out 2> $W/err
	rc=$?
	cat $W/err
	[ $rc = 1 ] && grep -q 'events of 64 CPUs' $W/err && [ "$(config_now)" = "$before" ]
}
check "replay of a trace of more CPUs than online: exit 1, nothing changed" too_many_cpus

parallel_books()
{
	pcpctl replay $W/w.pcpt --parallel > $W/par.out 2>&1 || { cat $W/par.out; return 1; }
	grep 'cycles per operation' $W/par.out
	pcpctl drain && pcpctl stats > $W/stats.out || return 1
	held=$(sed -n 's/^held \+//p' $W/stats.out)
	cached=$(sed -n 's/^cached \+//p' $W/stats.out)
	echo "held $held cached $cached after the parallel replay and a drain"
	[ "$held" = 0 ] && [ "$cached" = 0 ]
}
check "replay --parallel: every page back, nothing held or cached after a drain" parallel_books

rm -rf $W
modprobe -r pcpcache
exit $failed
