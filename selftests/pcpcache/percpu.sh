#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The counters of each CPU: the stats_percpu file adds up to stats, and
# pcpctl shows them per CPU, in JSON, since a snapshot (the counters are
# never reset, so the books still balance) and as rates per second
# (watch). Bad options are refused with one line and exit 2.
# Needs pcpctl on PATH (the VM has it in /usr/local/bin).

. "$(dirname "$0")/pcpcache_lib.sh"
D=/sys/kernel/debug/pcpcache
F=$D/stats_percpu
S=/sys/kernel/mm/pcpcache/stats_percpu

need_pcpctl_and_module
need_json_check

# The number of CPUs in a list like 0-3,6 (the possible or online ones).
cpus_in() # file
{
	tr ',' '\n' < "$1" | awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }'
}

# Every column of stats_percpu summed equals its line in stats, and every
# line has alloc == alloc_hit + alloc_miss; with nothing in flight.
columns_add_up()
{
	awk 'FNR == NR && FNR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; nf = NF; next }
	     FNR == NR { if (NF != nf) { print "line " FNR " has " NF " fields"; bad = 1 }
			 for (i = 2; i <= NF; i++) sum[name[i]] += $i
			 if ($2 != $3 + $4) { print "cpu " $1 ": alloc " $2 " != " $3 " + " $4; bad = 1 }
			 next }
	     ($1 in sum) { seen++; if (sum[$1] != $2) { print $1 ": " sum[$1] " != " $2; bad = 1 } }
	     END { if (seen != nf - 1) { print seen " of " nf - 1 " columns in stats"; bad = 1 }
		   exit bad }' "$F" "$D/stats"
}

# pcpctl stats --per-cpu: its total column is stats' value
table_totals_match()
{
	pcpctl stats --per-cpu > /tmp/table || return 1
	head -n 1 /tmp/table | grep -q 'cpu0 .* total$' || return 1
	awk 'FNR == NR { v[$1] = $2; next }
	     $1 in v { seen++; if ($NF != v[$1]) { print $1 ": " $NF " != " v[$1]; bad = 1 } }
	     END { exit bad || seen < 20 }' "$D/stats" /tmp/table
}

# the JSON: a "cpus" list with every possible CPU, and the "total"
json_has_every_cpu()
{
	pcpctl stats --per-cpu --json > /tmp/json && "$json_check" < /tmp/json &&
	grep -q '^  "cpus": \[$' /tmp/json && grep -q '^  "total": {$' /tmp/json &&
	test "$(grep -c '^      "cpu": [0-9]*,$' /tmp/json)" = "$(cpus_in /sys/devices/system/cpu/possible)"
}

# a counter of stats (or of pcpctl's output, saved in a file)
stat_of() # name [file]
{
	awk -v k="$1" '$1 == k { print $2 }' "${2:-$D/stats}"
}

# Some traffic, a snapshot, then 1000 alloc/free pairs through the API:
# since the snapshot, alloc and free are 1000, while the module's own
# counters went on from where they were, and the books balance on them
since_counts_the_pairs()
{
	echo "concurrent 100 1 0" > $D/bench || return 1
	pcpctl stats --save /tmp/snap || return 1
	echo "pair 1000 1 0" > $D/bench || return 1
	pcpctl stats --since /tmp/snap > /tmp/since || return 1
	test "$(stat_of alloc /tmp/since)" = 1000 && test "$(stat_of free /tmp/since)" = 1000 &&
	test "$(stat_of alloc)" -gt 1000 &&
	awk '{ v[$1] = $2 } END { exit v["buddy_alloc"] - v["buddy_free"] != v["cached"] + v["transit"] + v["held"] }' $D/stats
}

# each block of watch --per-cpu: a line per online CPU and "all", whose
# rates are the sum of the CPUs' (rounded)
watch_blocks_add_up()
{
	before=$(awk '$1 == "alloc" { print $2 }' $D/stats)
	# long enough for the two 1 s blocks of watch to fall inside it
	# however slowly the stress starts: watch begins once it allocates
	pcpctl stress --seconds 8 --calm > /dev/null &
	for i in $(seq 100); do
		[ "$(awk '$1 == "alloc" { print $2 }' $D/stats)" != "$before" ] && break
		sleep 0.1
	done
	pcpctl watch --per-cpu 1 2 > /tmp/watch
	rc=$?
	wait
	[ $rc = 0 ] || return 1
	awk -v cpus="$(cpus_in /sys/devices/system/cpu/online)" '
	     $1 == "cpu" { rows = 0; for (i = 2; i <= NF; i++) s[i] = 0; blocks++; next }
	     $1 == "all" { if (rows != cpus) { print rows " CPU lines"; bad = 1 }
			   for (i = 2; i < NF; i++) if (s[i] - $i > rows || $i - s[i] > rows) { print "column " i ": " s[i] " != " $i; bad = 1 }
			   if ($2 + $3 <= 0) { print "no allocations"; bad = 1 }
			   next }
	     NF { rows++; for (i = 2; i <= NF; i++) s[i] += $i }
	     END { exit bad || blocks != 2 }' /tmp/watch
}

# every one of these fails with exit 2 and one line on stderr, at once
bad_options_refused()
{
	for args in "watch abc" "watch -1" "watch 3x" "watch 0" "watch 0.05" \
		    "watch 5000" "watch 1 0" "watch 1 x" "watch 1 -2" "watch 1 2 3" \
		    "watch .5" "watch 1e1" "watch --bogus" "stats --since" \
		    "stats --save /tmp/x --json" "stats --save /tmp/x --since /tmp/snap" \
		    "stats extra" "stats --per-cpu=1"; do
		# shellcheck disable=SC2086
		timeout 2 pcpctl $args > /tmp/bad.out 2> /tmp/bad.err
		rc=$?
		if [ $rc != 2 ] || [ "$(wc -l < /tmp/bad.err)" != 1 ] || [ -s /tmp/bad.out ]; then
			echo "pcpctl $args: exit $rc"
			cat /tmp/bad.err
			return 1
		fi
	done
}

echo "TAP version 13"
echo "1..12"
rmmod pcpcache 2> /dev/null
modprobe pcpcache || { echo "Bail out! modprobe pcpcache failed"; exit 1; }

check "stats_percpu is root's, read-only, and in debugfs alone" \
	sh -c 'test "$(stat -c %a '$F')" = 400 && su -s /bin/sh nobody -c true &&
	       ! su -s /bin/sh nobody -c "cat '$F'" 2> /dev/null &&
	       ! echo 0 2> /dev/null > '$F' && test ! -e '$S''
check "a header, then a line per possible CPU" \
	sh -c 'head -n 1 '$F' | grep -q "^cpu alloc alloc_hit alloc_miss " &&
	       test $(($(wc -l < '$F') - 1)) = '"$(cpus_in /sys/devices/system/cpu/possible)"
pcpctl stress --seconds 3 > /dev/null 2>&1
check "after a stress, each column adds up to stats" columns_add_up
check "stats --per-cpu: the total column is stats" table_totals_match
check "stats --per-cpu --json: every possible CPU and the total" json_has_every_cpu
check "stats --since --json is JSON with the hit rate" \
	sh -c 'pcpctl stats --save /tmp/s0 && pcpctl stats --since /tmp/s0 --json > /tmp/j &&
	       '"$json_check"' < /tmp/j && grep -q "^  \"hit_rate\": " /tmp/j'
# the stress left whatever mode and knobs its controller set last
rmmod pcpcache
modprobe pcpcache
check "stats --since a snapshot: 1000 pairs are alloc 1000, free 1000; the books balance" \
	since_counts_the_pairs
check "stats --since --per-cpu: one CPU ran the pairs" \
	sh -c 'pcpctl stats --since /tmp/snap --per-cpu | awk '\''$1 == "alloc" { for (i = 2; i < NF; i++) n += $i > 0 } END { exit n != 1 }'\'''
check "watch --per-cpu: a line per online CPU, adding up to all" watch_blocks_add_up
check "watch 0.5 2: a header and two lines, then exit 0" \
	sh -c 'pcpctl watch 0.5 2 > /tmp/w && test $(wc -l < /tmp/w) = 3 && grep -q "cached$" /tmp/w'
check "bad options: exit 2 with one line" bad_options_refused
rmmod pcpcache
modprobe pcpcache
check "a snapshot of another load is refused" \
	sh -c 'pcpctl stats --since /tmp/snap 2> /tmp/e; test $? = 1 && grep -q "another load" /tmp/e'
rmmod pcpcache
exit $failed
