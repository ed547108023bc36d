# SPDX-License-Identifier: GPL-2.0
#
# What the shell selftests of pcpcache share: TAP lines, a check that runs
# a command and shows its output when it fails, and the reasons to skip.
# Sourced; sets ksft_skip, n, failed and json_check.

ksft_skip=4
n=0
failed=0
# JSON validator built with the tests: the guest has no python or jq
json_check=$(cd "$(dirname "$0")" && pwd)/json_check

ok()   { n=$((n + 1)); echo "ok $n $*"; }
fail() { n=$((n + 1)); echo "not ok $n $*"; failed=1; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }

check() # description command...
{
	desc=$1
	shift
	if "$@" > /tmp/pcpcache-check.out 2>&1; then
		ok "$desc"
	else
		sed 's/^/# /' /tmp/pcpcache-check.out
		fail "$desc"
	fi
}

# Exit with the skip code, saying why, unless root can run pcpctl against
# a pcpcache.ko that modprobe finds.
need_pcpctl_and_module()
{
	[ "$(id -u)" = 0 ] || { echo "# SKIP: needs root"; exit $ksft_skip; }
	command -v pcpctl > /dev/null || { echo "# SKIP: pcpctl is not on PATH (make puts it in build/bin)"; exit $ksft_skip; }
	modinfo pcpcache > /dev/null 2>&1 || { echo "# SKIP: modprobe cannot find pcpcache.ko"; exit $ksft_skip; }
}

# Exit with the skip code unless json_check was built.
need_json_check()
{
	[ -x "$json_check" ] || { echo "# SKIP: no $json_check (make builds it with the selftests)"; exit $ksft_skip; }
}
