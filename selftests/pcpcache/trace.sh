#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pcpcache's trace events add up to its counters over the same run, under
# the all-CPU stress with its controller, CPU hotplug, fault_refill and
# the shrinker (drop_caches) at work:
#
# - through tracefs: refill events == refill, their pages == refill_pages,
#   those of each order == order0..3_refill;
#   drain events for high, request, reconfig and cpu_dead == drain, their
#   pages == drain_pages; shrinker pages == shrink_pages; remote pages ==
#   remote_node; mode_switch events == mode_switches; shrink events ==
#   shrink; high_change events for grew, decayed and cut == high_grew,
#   high_decayed and high_cut (the stress's controller turns high=auto
#   on now and then, and a run of high=auto after it makes all three);
#   barn events for swapped, took_full, gave_full and flushed ==
#   barn_swaps, barn_took_full, barn_gave_full and barn_flushes (the
#   controller switches to barn mode too, and a run in barn mode after it
#   with a barn of 4 magazines makes all four);
# - through perf stat -a (where perf is on PATH): the same counts, without
#   CPU hotplug (perf stops counting on a CPU that went offline).
#
# Every counter compared must have moved: two zeros agree whatever the
# events do (a barn no CPU ever takes from would pass "0 == 0"), so such
# a line fails, and the first line fails naming every compared counter
# that did not move. No OOM comes near the stress: sysrq f, with every
# process unkillable, calls the OOM notifier for the why=oom line.
#
# Skipped, saying why, without tracefs or the events; the perf half alone
# without perf. Needs pcpctl on PATH (the VM has it in /usr/local/bin).

. "$(dirname "$0")/pcpcache_lib.sh"
D=/sys/kernel/debug/pcpcache
T=/sys/kernel/tracing
E=$T/events/pcpcache
# long enough for every kind of event under emulation, short enough for make check
RUN_SECONDS=${PCPCACHE_TRACE_SECONDS:-5}

# The shrinker asks for pages while the stress runs, until stopped.
shrink_loop()
{
	while :; do
		echo 2 > /proc/sys/vm/drop_caches
		sleep 0.3
	done
}

# The stress with the shrinker at work; the shrinker stopped and done
# before it returns, so that no scan falls outside the run.
stress_and_shrink() # pcpctl stress options...
{
	shrink_loop &
	loop=$!
	pcpctl stress --seconds "$RUN_SECONDS" "$@" > /tmp/trace-stress.out 2>&1
	rc=$?
	kill $loop
	wait $loop 2> /dev/null
	loop=
	return $rc
}

# Killed (the runner's timeout), take the shrinker loop along: left
# behind, it would hold the runner's output open for ever.
loop=
trap '[ -z "$loop" ] || kill $loop; exit 1' TERM INT

# "trace.sh --stress OPTIONS": only that, for perf stat to run
if [ "${1:-}" = --stress ]; then
	shift
	stress_and_shrink "$@"
	exit
fi

need_pcpctl_and_module
[ -d $T/events ] || mount -t tracefs nodev $T 2> /dev/null
[ -d $T/events ] || { echo "# SKIP: no tracefs at $T (a kernel without CONFIG_EVENT_TRACING?)"; exit $ksft_skip; }

echo "TAP version 13"
echo "1..25"
rmmod pcpcache 2> /dev/null
modprobe pcpcache || { echo "Bail out! modprobe pcpcache failed"; exit 1; }
[ -d $E ] || { echo "Bail out! pcpcache is loaded but $E is missing"; exit 1; }

old_kb=$(awk '{ print $1 }' $T/buffer_size_kb)
cleanup()
{
	echo 0 > $E/enable
	echo > $T/trace
	echo "$old_kb" > $T/buffer_size_kb
	rmmod pcpcache 2> /dev/null
}
trap cleanup EXIT

# counter @1 of stats after (/tmp/after) minus before (/tmp/before)
delta()
{
	awk -v k="$1" 'FNR == NR && $1 == k { b = $2 } FNR != NR && $1 == k { a = $2 }
		       END { print a - b }' /tmp/before /tmp/after
}

# Whether the events' sum @2 in file @4 ("name value" lines) equals the
# counter @3's difference over the run; with @5 "moved", the counter must
# also have moved, so that 0 == 0 cannot pass for a count that the run
# was meant to make.
expect() # description events-name counter file [moved]
{
	got=$(awk -v k="$2" '$1 == k { print $2 }' "$4")
	want=$(delta "$3")
	if [ "${5:-}" = moved ] && [ "$want" -le 0 ]; then
		fail "$1: $3 did not move in a run meant to move it (delta $want, events ${got:-none})"
	elif [ -n "$got" ] && [ "$got" = "$want" ]; then
		ok "$1: $got == $3 delta $want"
	else
		fail "$1: ${got:-none} != $3 delta $want"
	fi
}

# The events of the trace buffer, summed: "name value" lines.
sum_trace()
{
	grep -v '^#' $T/trace | awk '
	{
		for (i = 1; i <= NF && $i !~ /^pcpcache_[a-z_]*:$/; i++)
			;
		ev = substr($i, 1, length($i) - 1)
		pages = 0
		why = ""
		for (j = i + 1; j <= NF; j++) {
			split($j, kv, "=")
			if (kv[1] == "pages")
				pages = kv[2]
			else if (kv[1] == "why")
				why = kv[2]
			else if (kv[1] == "order")
				order = kv[2]
			else if (kv[1] == "done")
				done = kv[2]
		}
		n[ev]++
		if (ev == "pcpcache_refill") {
			refill_pages += pages
			by_order[order]++
		}
		if (ev == "pcpcache_high_change")
			high[why]++
		if (ev == "pcpcache_barn")
			barn[done]++
		if (ev == "pcpcache_remote_free") {
			# 2^order, without the math busybox awk may lack
			for (p = 1; order-- > 0; p *= 2)
				;
			remote_frees += p
		}
		if (ev == "pcpcache_drain") {
			by_why[why] += pages
			if (why != "shrinker" && why != "remote" && why != "oom") {
				drains++
				drain_pages += pages
			}
		}
	}
	END {
		printf "refill %d\nrefill_pages %d\n", n["pcpcache_refill"], refill_pages
		printf "drain %d\ndrain_pages %d\n", drains, drain_pages
		printf "shrink_pages %d\nremote_node %d\n", by_why["shrinker"], by_why["remote"]
		printf "oom_pages %d\nremote_frees %d\n", by_why["oom"], remote_frees
		printf "mode_switches %d\nshrink %d\n", n["pcpcache_mode_switch"], n["pcpcache_shrink"]
		printf "high_grew %d\nhigh_decayed %d\nhigh_cut %d\n", high["grew"], high["decayed"], high["cut"]
		printf "barn_swaps %d\nbarn_took_full %d\n", barn["swapped"], barn["took_full"]
		printf "barn_gave_full %d\nbarn_flushes %d\n", barn["gave_full"], barn["flushed"]
		for (o = 0; o < 4; o++)
			printf "order%d_refill %d\n", o, by_order[o]
		for (w in by_why)
			printf "# drain pages, why=%s: %d\n", w, by_why[w]
	}'
}

# --- tracefs ---
echo 0 > $T/tracing_on
echo 4096 > $T/buffer_size_kb
echo > $T/trace
echo 1 > $E/enable
echo 1 > $T/tracing_on
cp $D/stats /tmp/before
# until every kind of event the checks below count has happened (a few
# more rounds where the emulator is slow), so that no count passes as
# 0 == 0 for want of time
for round in 1 2 3 4; do
	# another seed each round, from $PCPCACHE_SEED where make check set it
	stress_and_shrink --hotplug --fault 10 \
		${PCPCACHE_SEED:+--seed $(((PCPCACHE_SEED + round - 1) % 4294967296))}
	rc=$?
	cp $D/stats /tmp/after
	moved=1
	for k in refill drain mode_switches shrink shrink_pages high_grew remote_frees barn_swaps; do
		[ "$(delta $k)" -gt 0 ] || moved=0
	done
	[ $rc != 0 ] || [ $moved = 1 ] && break
	echo "# round $round: not every kind of event yet; once more"
done
# and for certain, a CPU that goes offline with pages cached
echo "concurrent 64 1 0" > $D/bench
dead=$(awk -F'[-,]' '{ print $NF }' /sys/devices/system/cpu/online)
if [ "$dead" != 0 ]; then
	echo 0 > /sys/devices/system/cpu/cpu$dead/online
	echo 1 > /sys/devices/system/cpu/cpu$dead/online
fi
# and for certain, an auto-tuned high's three moves, which the stress
# makes only when its timing allows: every CPU's traffic grows it, an
# idle second or two decays it (a tick a second; the loop's own wakeups
# keep the CPUs ticking), traffic again and the shrinker cuts it
echo "mode=single batch=8 high=auto" > $D/config
echo "concurrent 2000 1 0" > $D/bench
for _ in $(seq 120); do
	cp $D/stats /tmp/after
	[ "$(delta high_decayed)" -gt 0 ] && break
	sleep 0.5
done
echo "concurrent 2000 1 0" > $D/bench
echo 2 > /proc/sys/vm/drop_caches
# and the barns' three exchanges: in barn mode with
# magazines of 8 and room for 4 in each node's barn, every CPU allocates
# 64 pages and frees them (mains overflow: full magazines to the barn,
# gave_full, and once it is full to the buddy allocator, flushed), then
# allocates 64 again (mains and spares run empty: took_full) and frees
# them. A barn that never takes, gives or flushes fails below, not 0 == 0.
echo "mode=barn batch=8 high=378 barn_full=4" > $D/config
echo "concurrent 64 1 0" > $D/bench
echo "concurrent 64 1 0" > $D/bench
# and the OOM notifier's drains, which no stress comes near: sysrq f
# calls it before it picks a victim, and with every process unkillable
# (oom_score_adj -1000, this shell's first, which what it starts
# inherits; each put back after) it picks none, "OOM request ignored"
# (a kill would be a problem the VM's harness fails the run for)
echo "concurrent 64 1 0" > $D/bench
# Twice: a process forked by a parent the first pass had not reached yet
# kept its parent's old value (a sleep of the guest's was killed once)
: > /tmp/trace-adj
for pass in 1 2; do
	for f in /proc/self/oom_score_adj /proc/[0-9]*/oom_score_adj; do
		[ "$pass" = 1 ] || ! grep -q "^$f " /tmp/trace-adj || continue
		echo "$f $(cat "$f" 2> /dev/null)" >> /tmp/trace-adj
		echo -1000 > "$f" 2> /dev/null
	done
done
ignored=$(dmesg | grep -c "OOM request ignored")
echo f > /proc/sysrq-trigger
# from a work item: wait for its word that it is done
for _ in $(seq 100); do
	[ "$(dmesg | grep -c "OOM request ignored")" -gt "$ignored" ] && break
	sleep 0.3
done
# /proc/self was this shell's own, listed first: put back last
tac /tmp/trace-adj 2> /dev/null > /tmp/trace-adj.r || sed '1!G;h;$!d' /tmp/trace-adj > /tmp/trace-adj.r
while read -r f v; do
	[ -z "$v" ] || echo "$v" > "$f" 2> /dev/null
done < /tmp/trace-adj.r
# under lock=local a CPU the shrinker did not wait for answers later
sleep 1
cp $D/stats /tmp/after
echo 0 > $T/tracing_on
echo 0 > $E/enable
sed 's/^/# /' /tmp/trace-stress.out | tail -n 4
lost=$(cat $T/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { s += $NF } END { print s + 0 }')
sum_trace > /tmp/trace-sums
grep '^#' /tmp/trace-sums

# every counter a line below compares with its events, each of which
# must have moved: a comparison of two zeros proves nothing (the one
# exception, why=remote on one node, must stay 0 and is said so)
compared="refill refill_pages drain drain_pages shrink_pages mode_switches
shrink high_grew high_decayed high_cut oom_pages remote_frees barn_swaps
barn_took_full barn_gave_full barn_flushes order0_refill order1_refill
order2_refill order3_refill"
[ "$(ls -d /sys/devices/system/node/node* | wc -l)" -lt 2 ] ||
	compared="$compared remote_node"
still=
for k in $compared; do
	[ "$(delta $k)" -gt 0 ] || still="$still $k"
done
if [ $rc = 0 ] && [ "$lost" = 0 ] && [ -z "$still" ]; then
	ok "tracefs: the stress passed, no event lost, every compared counter moved ($(echo $compared | wc -w) counters)"
else
	fail "tracefs: stress exit $rc, $lost events lost, counters that did not move:${still:- none}"
fi
expect "tracefs: refill events" refill refill /tmp/trace-sums
expect "tracefs: refill event pages" refill_pages refill_pages /tmp/trace-sums
expect "tracefs: drain events (high, request, reconfig, cpu_dead)" drain drain /tmp/trace-sums
expect "tracefs: their pages" drain_pages drain_pages /tmp/trace-sums
# the shrinker runs throughout; pages of another node only on two nodes
expect "tracefs: drain pages, why=shrinker" shrink_pages shrink_pages /tmp/trace-sums moved
if [ "$(ls -d /sys/devices/system/node/node* | wc -l)" -lt 2 ]; then
	expect "tracefs: drain pages, why=remote (one node: none may be)" remote_node remote_node /tmp/trace-sums
else
	expect "tracefs: drain pages, why=remote" remote_node remote_node /tmp/trace-sums moved
fi
# the OOM notifier's pages, from the sysrq f above
expect "tracefs: drain pages, why=oom" oom_pages oom_pages /tmp/trace-sums moved
expect "tracefs: mode_switch events" mode_switches mode_switches /tmp/trace-sums
expect "tracefs: shrink events" shrink shrink /tmp/trace-sums
# the controller turns high=auto on, and traffic grows it; the high=auto
# runs above grew, decayed and cut it for certain
expect "tracefs: high_change events, why=grew" high_grew high_grew /tmp/trace-sums moved
expect "tracefs: high_change events, why=decayed" high_decayed high_decayed /tmp/trace-sums moved
expect "tracefs: high_change events, why=cut" high_cut high_cut /tmp/trace-sums moved
# the stress switches to remote mode too, and frees through a shared file
expect "tracefs: remote_free event pages" remote_frees remote_frees /tmp/trace-sums moved
# and to barn mode, whose mains overflow and run empty; the concurrent
# runs in barn mode above took, gave and flushed full magazines for certain
expect "tracefs: barn events, done=swapped" barn_swaps barn_swaps /tmp/trace-sums moved
expect "tracefs: barn events, done=took_full" barn_took_full barn_took_full /tmp/trace-sums moved
expect "tracefs: barn events, done=gave_full" barn_gave_full barn_gave_full /tmp/trace-sums moved
expect "tracefs: barn events, done=flushed" barn_flushes barn_flushes /tmp/trace-sums moved
orders=
for o in 0 1 2 3; do
	orders="$orders $(awk -v k=order${o}_refill '$1 == k { print $2 }' /tmp/trace-sums)/$(delta order${o}_refill)"
done
if echo "$orders" | awk '{ for (i = 1; i <= NF; i++) { split($i, e, "/"); if (e[1] != e[2]) bad = 1 } } END { exit bad }'; then
	ok "tracefs: refill events of each order == order0..3_refill deltas (events/counter:$orders)"
else
	fail "tracefs: refill events of each order != order0..3_refill deltas (events/counter:$orders)"
fi
if [ "$dead" = 0 ]; then
	skip "tracefs: a CPU that went offline with pages: why=cpu_dead (only CPU 0 is online)"
elif grep -q "^# drain pages, why=cpu_dead: [1-9]" /tmp/trace-sums; then
	ok "tracefs: a CPU that went offline with pages: why=cpu_dead"
else
	fail "tracefs: cpu$dead went offline with pages, but no drain says why=cpu_dead"
fi
if [ "$(ls -d /sys/devices/system/node/node* | wc -l)" -lt 2 ]; then
	skip "tracefs: pages of another node: why=remote (one NUMA node)"
elif [ "$(delta remote_node)" -gt 0 ]; then
	ok "tracefs: pages of another node: why=remote"
else
	fail "tracefs: two NUMA nodes, but no page of another node in the stress"
fi

# --- perf ---
if ! command -v perf > /dev/null; then
	for what in refill drain mode_switch shrink; do
		skip "perf: $what events (no perf on PATH; Debian's is in linux-perf)"
	done
	exit $failed
fi
# the numbers of the reasons that do not count as drains, from the format
fmt=$E/pcpcache_drain/format
not_drains=$(sed -n 's/.*{ \([0-9]*\), "shrinker" }.*{ \([0-9]*\), "remote" }.*/why != \1 \&\& why != \2/p' $fmt)
cp $D/stats /tmp/before
perf stat -a -x, -o /tmp/perf.csv -e pcpcache:pcpcache_refill \
	-e pcpcache:pcpcache_mode_switch -e pcpcache:pcpcache_shrink \
	-e pcpcache:pcpcache_drain --filter "$not_drains" \
	-- sh "$0" --stress --fault 10 > /tmp/perf.out 2>&1
rc=$?
cp $D/stats /tmp/after
sed 's/^/# /' /tmp/trace-stress.out | tail -n 4
grep -v '^#' /tmp/perf.csv | sed 's/^/# /'
awk -F, '$3 ~ /^pcpcache:pcpcache_/ { sub(/^pcpcache:pcpcache_/, "", $3); print $3, $1 }' \
	/tmp/perf.csv | sed 's/^mode_switch /mode_switches /' > /tmp/perf-sums
if [ $rc != 0 ]; then
	sed 's/^/# /' /tmp/perf.out
	fail "perf stat -a -e pcpcache:... -- pcpctl stress: exit $rc"
	exit $failed
fi
expect "perf: refill events" refill refill /tmp/perf-sums moved
expect "perf: drain events (filter: $not_drains)" drain drain /tmp/perf-sums moved
expect "perf: mode_switch events" mode_switches mode_switches /tmp/perf-sums moved
expect "perf: shrink events" shrink shrink /tmp/perf-sums moved
exit $failed
