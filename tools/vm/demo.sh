#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The main job, run inside the VM by "make demo" (tools/demo): load pcpcache,
# show what it offers, switch modes, unload. Later work adds stress and the
# benchmark comparison here.
set -eu

D=/sys/kernel/debug/pcpcache

section()
{
	echo
	echo "== $*"
}

section "guest: kernel $(uname -r), $(nproc) CPUs, $(free -m | awk '/^Mem:/ { print $2 }') MiB"
dmesg | grep -o 'mem auto-init:.*' || true

section "modprobe pcpcache"
modprobe pcpcache
modinfo pcpcache | grep -E '^(version|parm|vermagic):'
ls -l "$D"

section "cat $D/mode"
cat "$D/mode"

for mode in passthrough single split; do
	section "reload with mode=$mode"
	rmmod pcpcache
	modprobe pcpcache mode="$mode"
	cat "$D/mode"
done

section "a bad mode is refused at load time"
rmmod pcpcache
if modprobe pcpcache mode=hot 2>/dev/null; then
	echo "mode=hot was accepted" >&2
	exit 1
fi
dmesg | grep "parameter \`mode'" | tail -n 1

section "rmmod pcpcache"
modprobe pcpcache
rmmod pcpcache
if [ -e "$D" ]; then
	echo "$D left behind" >&2
	exit 1
fi
echo "$D is gone"
dmesg | grep -E 'pcpcache: (loaded|unloaded)' | tail -n 2
