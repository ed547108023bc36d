#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the kselftests given (run_kselftest.sh's arguments) once per locking
# design of pcpcache, lock=local then lock=spin, in this boot of the
# tools/vm/run guest: the selftests load the module with modprobe, which
# takes the design from /etc/modprobe.d/. TAP on stdout; fails when either
# run did.
mkdir -p /etc/modprobe.d
rc=0
for lock in local spin; do
	echo "# pcpcache lock=$lock"
	echo "options pcpcache lock=$lock" > /etc/modprobe.d/pcpcache-lock.conf
	/kselftest/run_kselftest.sh "$@" || rc=1
done
rm -f /etc/modprobe.d/pcpcache-lock.conf
exit $rc
