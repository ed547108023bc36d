#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pcpctl, the command-line tool, against the module: every subcommand,
# all-or-nothing "set", clear errors, and the "bench" file under it.
# Needs pcpctl on PATH (the VM has it in /usr/local/bin).

. "$(dirname "$0")/pcpcache_lib.sh"
D=/sys/kernel/debug/pcpcache
S=/sys/kernel/mm/pcpcache

need_pcpctl_and_module
need_json_check

echo "TAP version 13"
# the plan counts itself: one test per check line of this file
echo "1..$(grep -c '^check ' "$0")"
rmmod pcpcache 2> /dev/null

# Each bad option: exit 2, one line on stderr naming it, nothing on stdout.
bad_options()
{
	while IFS='|' read -r cmd arg; do
		# shellcheck disable=SC2086
		pcpctl $cmd "$arg" > /tmp/bad.out 2> /tmp/bad.err
		rc=$?
		if [ $rc != 2 ] || [ -s /tmp/bad.out ] ||
		   [ "$(wc -l < /tmp/bad.err)" != 1 ]; then
			echo "pcpctl $cmd '$arg': exit $rc, stdout $(wc -c < /tmp/bad.out) bytes, stderr:"
			cat /tmp/bad.err
			return 1
		fi
	done <<-EOF
	stress --seconds|abc
	stress --seconds|-1
	stress --seconds|0
	stress --seconds|1e3
	stress --seconds| 5
	stress --seconds|5s
	stress --seconds|86401
	stress --cpus|0-
	stress --cpus|3-1
	stress --cpus|1,,2
	stress --cpus|-1
	stress --cpus|1024
	stress --cpus|0x1
	stress --seed|-5
	stress --seed|4294967296
	stress --fault|101
	stress --fault|5%
	stress|extra
	bench --only|1-3
	bench --only|0
	bench --only|10
	bench --only|1,,2
	bench --only|
	bench --reps|3x
	bench --reps|0
	bench --reps|16
	bench --reps|+3
	bench|extra
	watch|nan
	watch|1e10
	watch|inf
	watch|-1
	watch|0
	watch|0.05
	watch|1.
	watch|.5
	watch|3601
	EOF
}

check "without the module: exit 1, 'not loaded'" \
	sh -c 'out=$(pcpctl stats 2>&1); rc=$?; echo "$out"; test $rc = 1 && echo "$out" | grep -q "not loaded"'

check "bad numeric options: exit 2 and one line each" bad_options

modprobe pcpcache
check "unknown command: usage, exit 2" sh -c 'pcpctl nosuch; test $? = 2'
check "the order of the options does not change what they mean" sh -c '
	pcpctl bench --quick --reps 1 --only 2 > /tmp/o1 &&
	pcpctl bench --reps 1 --quick --only 2 > /tmp/o2 &&
	grep -q "median of 1," /tmp/o1 && grep -q "median of 1," /tmp/o2'
check "every subcommand has --help" sh -c 'for c in stats pagesets mode set drain watch stress bench fault; do pcpctl $c --help | grep -q usage || exit 1; done'
# What a refused "set" must leave as it was: the configuration and its
# generation, the pages cached, and the drain and mode switch counters.
state()
{
	cat $D/config $D/generation
	grep -E '^(cached|drain|mode_switches) ' $D/stats
}

# set_refused EXPECTED ARGS...: "pcpctl set ARGS..." exits 1 (a rule
# broken) with one line on stderr that matches the extended regex
# EXPECTED, nothing changed; set_misused: the same with exit 2, a usage
# error (a word that is not KEY=VALUE, a key given twice), found before
# the module is asked.
set_refused()
{
	want=$1
	shift
	state > /tmp/state.before
	pcpctl set "$@" > /tmp/set.out 2> /tmp/set.err
	rc=$?
	state > /tmp/state.after
	cat /tmp/set.err
	[ $rc = "${want_rc:-1}" ] && [ "$(wc -l < /tmp/set.err)" = 1 ] &&
		grep -qE "$want" /tmp/set.err && ! [ -s /tmp/set.out ] &&
		cmp -s /tmp/state.before /tmp/state.after
}
set_misused()
{
	want_rc=2
	set_refused "$@"
	rc=$?
	want_rc=1
	return $rc
}

# pages in the magazines, so that a stray drain would show
echo "seq 200 1 0" > $D/bench
long=$(printf '%01100d' 7)
max=$(sed -n 's/.*max_high_sum=\([0-9]*\).*/\1/p' $D/limits)
check "set refuses batch > high, names both, changes nothing" \
	set_refused 'batch=8 \(given\) with high=4 \(given\)' batch=8 high=4
check "set names the setting in force it clashes with" \
	set_refused 'batch=63 \(in force\) with high=10 \(given\)' high=10
check "set refuses mode=passthrough batch=5000: no drain, no switch" \
	set_refused 'batch=5000 \(given\).*batch <= 4096' mode=passthrough batch=5000
check "set refuses over the machine's bound, from limits" \
	set_refused "high=$max \\(given\\) \\+ cold_high=126 \\(in force\\) is over $max" high=$max
check "set refuses 1100 digits cleanly" \
	set_misused "is not KEY=VALUE" batch=$long high=400 cold_high=126
check "set refuses an argument of 100000 bytes" \
	set_misused "is not KEY=VALUE" "batch=$(printf '%0100000d' 1)"
check "set refuses an unknown knob" set_misused "'nosuch=1' is not" batch=8 nosuch=1
check "set refuses a setting given twice" set_misused "batch is given twice" batch=8 batch=9
check "set refuses two settings in one argument" set_misused "is not KEY=VALUE" "batch=8 high=64"
check "set refuses +8, 0x8 and a mode not named exactly" sh -c '
	for a in batch=+8 batch=0x8 "batch= 8" mode=Split mode= =8 batch; do
		pcpctl set "$a" 2> /dev/null; test $? = 2 || { echo "$a"; exit 1; }
	done'
check "set applies several at once" pcpctl set mode=split batch=8 high=64
check "... all of them" test "$(cat $D/config)" = "mode=split batch=8 high=64 cold_batch=31 cold_high=126 high_min=378 high_max=1134 barn_full=4"
check "mode refuses a bad name, a usage error" sh -c 'pcpctl mode bogus; test $? = 2'
check "mode switches" sh -c 'pcpctl mode single && pcpctl mode | grep -q "\[single\]"'
check "stats --json is JSON, with the hit rate and the lock" sh -c '
	pcpctl stats --json > /tmp/s.json && '"$json_check"' < /tmp/s.json &&
	grep -q "\"hit_rate\": " /tmp/s.json &&
	grep -q "\"lock\": \"$(cat /sys/module/pcpcache/parameters/lock)\"" /tmp/s.json &&
	pcpctl stats | grep -qx "lock  *$(cat /sys/module/pcpcache/parameters/lock)"'
check "pagesets --json is JSON, a CPU each, cold lists in split mode" sh -c '
	pcpctl mode split && pcpctl pagesets --json > /tmp/p.json &&
	'"$json_check"' < /tmp/p.json &&
	test $(grep -c "\"cpu\": " /tmp/p.json) -ge $(nproc) &&
	test $(grep -c "\"cold_high\": 126" /tmp/p.json) -ge $(nproc) &&
	pcpctl mode single && pcpctl pagesets --json | '"$json_check"''
check "pagesets has a header and a line per CPU" \
	sh -c 'test $(pcpctl pagesets | wc -l) -gt $(nproc)'
check "stress runs, the books balance, the configuration is put back" sh -c '
	before=$(cat '$S'/config)
	pcpctl stress --seconds 2 --seed 3 && test "$(cat '$S'/config)" = "$before"'
check "stress tells another writer's changes from its own" sh -c '
	pcpctl set batch=31 high=186 || exit 1
	before=$(cat '$S'/config)
	pcpctl stress --seconds 8 --seed 7 > /tmp/stress.out 2>&1 &
	stress=$!
	# the other writer starts once the stress has read what to put back
	# (its controller has changed the configuration), and is done (4
	# writes, under a second under emulation) well before the stress ends
	# and puts it back
	for i in $(seq 100); do
		[ "$(cat '$S'/config)" != "$before" ] && break
		sleep 0.1
	done
	for i in 1 2; do
		echo split > '$S'/mode || exit 1
		sleep 0.1
		echo "batch=17 high=170" > '$S'/config || exit 1
		sleep 0.1
	done
	wait $stress
	rc=$?
	cat /tmp/stress.out
	test $rc = 0 &&
		grep -q "changes of the configuration by another writer" /tmp/stress.out &&
		test "$(cat '$S'/config)" = "$before"'
check "another user reads through sysfs, is told it may not write" sh -c '
	su -s /bin/sh nobody -c "pcpctl mode && pcpctl stats > /dev/null" || exit 1
	out=$(su -s /bin/sh nobody -c "pcpctl mode split" 2>&1); rc=$?
	echo "$out"
	test $rc = 1 && echo "$out" | grep -q "neither .* can be written; .* for root"'
check "without debugfs: the controls through sysfs; stress says what it lacks" sh -c '
	umount /sys/kernel/debug || exit 1
	pcpctl mode split && pcpctl set batch=9 high=90 && pcpctl drain &&
		grep -q "\[split\]" '$S'/mode && grep -q "batch=9 high=90" '$S'/config
	ok=$?
	out=$(pcpctl stress --seconds 1 2>&1); rc=$?
	mount -t debugfs debugfs /sys/kernel/debug
	echo "$out"
	test $ok = 0 && test $rc = 1 && echo "$out" | grep -q "^pcpctl: stress: needs /sys/kernel/debug/pcpcache/user"'
check "... and back: set puts single mode and the defaults" \
	pcpctl set mode=single batch=63 high=378
check "drain empties the magazines" sh -c 'pcpctl drain && grep -qx "cached 0" '$D'/stats'
check "watch prints rates" sh -c 'timeout 3 pcpctl watch 1 > /tmp/w; grep -q cached /tmp/w && test $(wc -l < /tmp/w) -ge 2'

# the bench file: each test runs and reports one line per CPU it ran on
check "bench file: every test runs" sh -c '
	for t in "seq 100 1 0" "pair 100 1 4" "pair 100 1 48" "pair 100 1 128" "pair 100 1 176" "counter 1000 1 0"; do
		echo "$t" > '$D'/bench && test $(wc -l < '$D'/bench) = 1 || { echo "$t"; exit 1; }
	done
	for t in "concurrent 100 1 0" "concurrent 100 1 128" "hotness 64 16 3" "hotness 64 16 7" "stats 10 1 0" "switch 4 1 0" "drain 4 1 0" "shrink 4 512 0" "phased 64 2 0"; do
		echo "$t" > '$D'/bench && test $(wc -l < '$D'/bench) = $(nproc) || { echo "$t"; exit 1; }
	done
	# and the parked line, where a second CPU is there to free
	test $(nproc) -lt 2 && exit 0
	for t in "purger 300 100 0" "exit 300 1 16" "purger 300 100 64"; do
		echo "$t" > '$D'/bench && test $(wc -l < '$D'/bench) = $(($(nproc) + 1)) &&
			grep -q "^parked [0-9]* [0-9]* [0-9]*$" '$D'/bench || { echo "$t"; exit 1; }
	done'
check "bench file: bad requests fail" sh -c '
	for t in "bogus 1 1 0" "seq 0 1 0" "seq 65537 1 0" "hotness 4 8 0" "seq 1 1 8" "seq 1 1" "seq 1 1 256" "seq 1 1 132" "pair 1 1 192" "purger 4 4 4" "purger 4 4 128" "exit 4 1 68" "shrink 1 65537 0" "phased 65536 4096 0"; do
		echo "$t" > '$D'/bench 2>/dev/null && exit 1
	done; exit 0'
# bench_json ONLY: "pcpctl bench --json" puts one JSON object on stdout and
# nothing else, with each benchmark of ONLY, and the tables on stderr
bench_json()
{
	pcpctl bench --quick --reps 1 --only "$1" --json > /tmp/b.json 2> /tmp/b.err ||
		{ cat /tmp/b.err; return 1; }
	"$json_check" < /tmp/b.json || return 1
	# not n: that is the test counter
	for bench in $(echo "$1" | tr , ' '); do
		grep -q "\"number\": $bench," /tmp/b.json ||
			{ echo "no benchmark $bench"; return 1; }
	done
	grep -q "^pcpcache benchmarks:" /tmp/b.err
}

# every benchmark and the targets: bench_full.sh, in make check-full
check "bench --json --only 1,6: JSON alone, benchmarks 1 and 6" bench_json 1,6
check "bench --json --only 2: JSON alone" bench_json 2
# --patterns: the purger and exit rows of every mode the module lists and
# the kernel's, the local pattern in each mode and under lock=spin and
# lock=trylock, the ten pattern targets each measured (barn's buddy pages
# and peak parked among them), and the locking
# design and configuration it found put back
patterns_check()
{
	before="$(cat $D/config) $(cat /sys/module/pcpcache/parameters/lock)"
	pcpctl bench --patterns --quick --reps 1 --json > /tmp/p.json 2> /tmp/p.err ||
		{ cat /tmp/p.err; return 1; }
	"$json_check" < /tmp/p.json || return 1
	for m in $(tr -d '[]' < $S/mode); do
		test "$(grep -c "\"design\": \"$m\"" /tmp/p.json)" = 3 ||
			{ echo "mode $m: not in the purger, exit and local rows"; return 1; }
	done
	test "$(grep -c '"design": "kernel"' /tmp/p.json)" = 2 &&
	grep -q '"design": "lock=spin"' /tmp/p.json &&
	grep -q '"design": "lock=trylock"' /tmp/p.json &&
	# under TCG the three of time are shown, not judged
	nmet=10
	! grep -q 'QEMU TCG CPU' /proc/cpuinfo || nmet=7
	test "$(grep -c '"judged": ' /tmp/p.json)" = 10 &&
	test "$(grep -c '"met": ' /tmp/p.json)" = $nmet &&
	grep -q "^Pattern targets" /tmp/p.err &&
	test "$(cat $D/config) $(cat /sys/module/pcpcache/parameters/lock)" = "$before" ||
		{ cat /tmp/p.err; return 1; }
}
check "bench --patterns --json: every design, the kernel, the local pattern, 10 targets" \
	patterns_check
# a CSV directory named to break a shell: it must just be a name
csv_dir_check()
{
	# shellcheck disable=SC2016
	dir='/tmp/csv dir '\''q'\'' "dq" $(touch ran1) `touch ran2`; touch ran3 & x'
	# its files are never overwritten: a fresh directory each run
	rm -rf "$dir"
	(cd /tmp && pcpctl bench --quick --reps 1 --only 1,2 --csv "$dir" > /tmp/bench.txt) &&
		test -s "$dir/1-alloc-then-free.csv" && test -s "$dir/2-pair.csv" &&
		grep -q "limit" /tmp/bench.txt && ! ls /tmp/ran* 2> /dev/null
}

check "bench --quick writes its CSV files, into any directory name" csv_dir_check

# Every write error reaches stderr and the exit status: --csv naming a
# regular file (the old code said "Not a directory", then "CSV files in",
# exit 0), CSV files on a full file system (their writes failed unseen),
# standard output on /dev/full (exit 0 for every command).
csv_not_a_dir_check()
{
	: > /tmp/csv-file
	pcpctl bench --quick --reps 1 --only 2 --csv /tmp/csv-file > /tmp/cf.out 2> /tmp/cf.err
	rc=$?
	cat /tmp/cf.err
	[ $rc = 1 ] && grep -q "not a directory" /tmp/cf.err &&
		[ "$(wc -l < /tmp/cf.err)" = 1 ] && ! grep -q "CSV files in" /tmp/cf.out
}
check "bench --csv naming a regular file: exit 1, one line, no \"CSV files in\"" csv_not_a_dir_check
csv_full_check()
{
	mkdir -p /tmp/full-fs
	mount -t tmpfs -o size=64k none /tmp/full-fs || return 1
	mkdir /tmp/full-fs/csv
	dd if=/dev/zero of=/tmp/full-fs/fill bs=4k 2> /dev/null
	pcpctl bench --quick --reps 1 --only 2 --csv /tmp/full-fs/csv > /tmp/cf.out 2> /tmp/cf.err
	rc=$?
	umount /tmp/full-fs
	cat /tmp/cf.err
	[ $rc = 1 ] && grep -q "could not be written" /tmp/cf.err && ! grep -q "CSV files in" /tmp/cf.out
}
check "bench --csv on a full file system: exit 1, saying so" csv_full_check
check "a write error on standard output: exit 1, saying so" sh -c '
	for c in "stats" "pagesets" "mode" "stats --json" "--help" "stats --help"; do
		pcpctl $c > /dev/full 2> /tmp/sf.err; rc=$?
		test $rc = 1 && grep -q "standard output" /tmp/sf.err || { echo "pcpctl $c: exit $rc"; cat /tmp/sf.err; exit 1; }
	done'

# page_fault1, small: both variants, a table per variant, the targets, and
# the configuration it found put back
pcpctl set mode=split batch=8 high=64
before=$(cat $D/config)
check "fault --quick prints the tables and targets" sh -c '
	pcpctl fault --quick --rows kernel,single,31/186,remote,blocks > /tmp/fault.txt &&
	grep -q "^processes" /tmp/fault.txt && grep -q "^threads" /tmp/fault.txt &&
	grep -q "^kernel " /tmp/fault.txt && grep -q "^single 31/186 " /tmp/fault.txt &&
	grep -q "^remote " /tmp/fault.txt && grep -q "^blocks " /tmp/fault.txt &&
	test $(grep -c "(target" /tmp/fault.txt) = 12 &&
	test $(grep "over single.s" /tmp/fault.txt | grep -c "target <= 1.05: [mM]") = 4'
check "... and puts the configuration back" test "$(cat $D/config)" = "$before"
check "fault --json prints one JSON object and nothing else" sh -c '
	pcpctl fault --quick --json --variant processes --rows kernel,single > /tmp/fault.json &&
	head -c 1 /tmp/fault.json | grep -q "{" && tail -n 1 /tmp/fault.json | grep -qx "}" &&
	grep -q "\"faults_per_sec_per_cpu\"" /tmp/fault.json &&
	! grep -q "faults/s" /tmp/fault.json &&
	test $(tr -cd "{" < /tmp/fault.json | wc -c) = $(tr -cd "}" < /tmp/fault.json | wc -c)'
check "fault refuses bad values with one line, exit 2" sh -c '
	for a in "--passes abc" "--passes -1" "--passes 3x" "--size 0" "--rows kernel," "--variant x" "--quick junk"; do
		pcpctl fault $a > /tmp/out 2> /tmp/err; rc=$?
		test $rc = 2 && test $(wc -l < /tmp/err) = 1 && test ! -s /tmp/out || { echo "$a: $rc"; exit 1; }
	done'
pcpctl set mode=single batch=63 high=378

# A task of fault's processes variant that dies by a signal (SIGBUS here;
# an OOM kill does the same) ends the run with exit 1 and a line naming
# it, and leaves no task behind; the old code waited for it for ever.
# Each child seen is killed: a cell's tasks come and go.
children() { for d in /proc/[0-9]*; do [ "$(cut -d' ' -f4 "$d/stat" 2>/dev/null)" = "$1" ] && echo "${d#/proc/}"; done; }
fault_child_dies_check()
{
	pcpctl fault --variant processes --rows kernel,single --passes 100 \
		> /tmp/fd.out 2> /tmp/fd.err &
	pid=$!
	# given 30 s: the run itself would take many minutes
	for _ in $(seq 300); do
		kill -0 $pid 2> /dev/null || break
		# shellcheck disable=SC2046
		kill -BUS $(children $pid) 2> /dev/null
		sleep 0.1
	done
	if kill -0 $pid 2> /dev/null; then
		echo "# pcpctl fault still waits 30 s after its tasks were killed"
		kill -9 $pid
		wait $pid
		return 1
	fi
	wait $pid
	rc=$?
	sed 's/^/# /' /tmp/fd.err | tail -n 2
	[ $rc = 1 ] && grep -q "was killed by signal 7" /tmp/fd.err &&
		[ -z "$(children $pid)" ] && ! grep -qx "pcpctl" /proc/[0-9]*/comm 2> /dev/null
}
check "fault: a task killed by a signal ends the run, named, exit 1, no task left" fault_child_dies_check

# A stress ended by a signal puts back what it changed: the configuration,
# fault_refill and every CPU its controller took offline; then it dies by
# that signal, as it would have.
stress_signal_check() # signal number
{
	before=$(cat $D/config)
	pcpctl stress --seconds 600 --fault 50 --hotplug > /tmp/sig.out 2>&1 &
	pid=$!
	# a run under way: the controller has changed the configuration
	for _ in $(seq 100); do
		[ "$(cat $D/config)" != "$before" ] && break
		sleep 0.1
	done
	sleep 2
	kill -"$1" $pid
	wait $pid
	rc=$?
	sed 's/^/# /' /tmp/sig.out | tail -n 2
	[ $rc = $((128 + $2)) ] &&
		grep -q "ended by" /tmp/sig.out &&
		[ "$(cat $D/config)" = "$before" ] &&
		[ "$(cat $D/fault_refill)" = 0 ] &&
		[ "$(cat /sys/devices/system/cpu/online)" = "$(cat /sys/devices/system/cpu/present)" ]
}
check "stress --fault 50 --hotplug, SIGINT: all put back, every CPU online, died by it" stress_signal_check INT 2
check "... SIGTERM too" stress_signal_check TERM 15
check "... SIGHUP too" stress_signal_check HUP 1

# bench 9 reloads pcpcache with each locking design: SIGINT while the
# other design is loaded puts the design and the configuration back.
# One try: 0 passed, 1 failed, 2 the signal missed the window (the run
# ended before the poll saw the other design, or before the signal came).
bench_signal_try()
{
	pcpctl bench --quick --reps 1 --only 9 > /tmp/sig.out 2>&1 &
	pid=$!
	seen=
	while kill -0 $pid 2> /dev/null; do
		now=$(cat /sys/module/pcpcache/parameters/lock 2> /dev/null)
		if [ -n "$now" ] && [ "$now" != "$lock" ]; then
			seen=1
			break
		fi
		sleep 0.05
	done
	kill -INT $pid 2> /dev/null
	wait $pid
	rc=$?
	sed 's/^/# /' /tmp/sig.out | tail -n 2
	[ "$(cat /sys/module/pcpcache/parameters/lock)" = "$lock" ] &&
		[ "$(cat $D/config)" = "$before" ] || return 1
	[ $rc = 130 ] && grep -q "ended by" /tmp/sig.out && [ -n "$seen" ] &&
		return 0
	# a run that ended by itself, whole, was not reached in time
	[ $rc = 0 ] && ! grep -q "ended by" /tmp/sig.out && return 2
	return 1
}

bench_signal_check()
{
	lock=$(cat /sys/module/pcpcache/parameters/lock)
	before=$(cat $D/config)
	for try in 1 2 3; do
		bench_signal_try
		r=$?
		[ $r = 2 ] || return $r
		echo "# try $try: the run ended before the signal reached it"
	done
	return 1
}
check "bench --only 9, SIGINT under the other design: design and configuration back" bench_signal_check

check "the books balance after all that" sh -c '
	awk '\''$1 == "buddy_alloc" { a = $2 } $1 == "buddy_free" { f = $2 }
	     $1 == "cached" { c = $2 } $1 == "transit" { t = $2 } $1 == "held" { h = $2 }
	     END { exit !(a - f == c + t + h) }'\'' '$D'/stats'
rmmod pcpcache
exit $failed
