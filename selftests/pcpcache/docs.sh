#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The documents against the loaded module: every file of
# /sys/kernel/mm/pcpcache/ and /sys/kernel/debug/pcpcache/, every counter
# of stats, every column of stats_percpu and of pagesets (in single, split,
# blocks and barn mode), every key of config and limits and every module parameter
# must be named where a reader looks for it:
#
#   sysfs files        Documentation/ABI/testing/sysfs-kernel-mm-pcpcache
#                      (a What: line), the admin guide's "sysfs" section
#   debugfs files      Documentation/ABI/testing/debugfs-pcpcache (a What:
#                      line), the admin guide's "debugfs" section
#   stats counters,    the debugfs ABI's entry of stats (and stats_percpu),
#   stats_percpu's     the admin guide's "debugfs" section
#   columns
#   pagesets columns   the entry of pagesets in both ABI files
#   config and limits  their entries in both ABI files, the admin guide
#   keys
#   module parameters  the admin guide's "Module parameters" section (no
#                      ABI file has /sys/module/pcpcache/parameters/)
#
# In an ABI file a name counts as a word of the entry; in the admin guide
# as a word of an inline literal (``name``) or the first column of a
# table. orderN_hit stands for order0_hit to order9_hit, and
# "order0_hit .. order3_hit" for the orders it spans. fail_init_step, a
# parameter of the debug lane's build alone (PCPCACHE_TEST_HOOKS=y), is
# left out. One "not ok" line for each name missing from a document.
#
# The documents are those of the tree, under $PCPCACHE_DOCS, else a docs/
# beside this script (should the selftests' install put one there), else
# /root/docs (make check adds Documentation/ there with tools/vm/run
# --add); skipped without them.
#
#   docs.sh                 load pcpcache and compare what it shows
#   docs.sh --names FILE    compare the names of FILE instead, one
#                           "KIND NAME" a line, as docs.sh --list prints
#   docs.sh --list          load pcpcache and print its names so

# shellcheck source-path=SCRIPTDIR source=pcpcache_lib.sh
. "$(dirname "$0")/pcpcache_lib.sh"
docs=${PCPCACHE_DOCS:-$(cd "$(dirname "$0")" && pwd)/docs}
[ -n "${PCPCACHE_DOCS:-}" ] || [ -d "$docs/Documentation" ] || docs=/root/docs
SYS=/sys/kernel/mm/pcpcache
DBG=/sys/kernel/debug/pcpcache
PARAMS=/sys/module/pcpcache/parameters
guide=Documentation/admin-guide/pcpcache.rst

# every name the loaded module shows, "KIND NAME" a line
list_names()
{
	for f in "$SYS"/* "$DBG"/*; do
		[ -e "$f" ] || continue
		case $f in
		"$SYS"/*) echo "sysfs-file ${f##*/}" ;;
		*) echo "debugfs-file ${f##*/}" ;;
		esac
	done
	awk '{ print "counter", $1 }' "$DBG/stats"
	head -n 1 "$DBG/stats_percpu" | tr ' ' '\n' | awk 'NF { print "percpu-column", $1 }'
	head -n 1 "$DBG/pagesets" | tr -s ' ' '\n' | awk 'NF { print "pagesets-column", $1 }'
	for mode in split blocks barn; do
		echo $mode > "$DBG/mode" || return 1
		head -n 1 "$DBG/pagesets" | tr -s ' ' '\n' | awk 'NF { print "pagesets-column", $1 }'
	done
	tr ' ' '\n' < "$DBG/config" | awk -F= 'NF { print "config-key", $1 }'
	tr ' ' '\n' < "$DBG/limits" | awk -F= 'NF { print "limits-key", $1 }'
	for f in "$PARAMS"/*; do
		[ -e "$f" ] || continue
		[ "${f##*/}" = fail_init_step ] || echo "param ${f##*/}"
	done
}

# Load the module and list its names into $1; 1 when it could not.
load_and_list() # file
{
	[ "$(id -u)" = 0 ] || { echo "# SKIP: needs root"; exit "$ksft_skip"; }
	modinfo pcpcache > /dev/null 2>&1 || { echo "# SKIP: modprobe cannot find pcpcache.ko"; exit "$ksft_skip"; }
	rmmod pcpcache 2> /dev/null
	modprobe pcpcache || return 1
	[ -d "$DBG" ] || mount -t debugfs debugfs /sys/kernel/debug
	list_names | sort -u > "$1"
	rc=$?
	rmmod pcpcache
	return $rc
}

# The comparison: awk -v docs=DIR -f - NAMES; prints "ok TEXT" or
# "not ok TEXT" lines. POSIX awk, busybox's included.
# shellcheck disable=SC2016
compare='
function slurp(file, arr,    n, l) {
	n = 0
	while ((getline l < file) > 0)
		arr[++n] = l
	close(file)
	return n
}
# the words of text s into the scope
function words(scope, s,    parts, i, n) {
	n = split(s, parts, /[^A-Za-z0-9_]+/)
	for (i = 1; i <= n; i++)
		if (parts[i] != "")
			tok[scope SUBSEP parts[i]] = 1
	text[scope] = text[scope] " " s
}
# An ABI file: for every What: path P, scope doc ":" P holds the words of
# its entry, and what[doc, P] is set.
function read_abi(doc,    lines, n, i, e, ne, np, p, paths, body) {
	n = slurp(docs "/" doc, lines)
	if (!n)
		missing_doc[doc] = 1
	i = 1
	while (i <= n) {
		if (lines[i] !~ /^What:/) { i++; continue }
		np = 0
		while (i <= n && lines[i] ~ /^What:/) {
			p = lines[i]
			sub(/^What:[ \t]*/, "", p)
			sub(/[ \t]+$/, "", p)
			paths[++np] = p
			i++
		}
		body = ""
		while (i <= n && lines[i] !~ /^What:/)
			body = body " " lines[i++]
		for (e = 1; e <= np; e++) {
			what[doc SUBSEP paths[e]] = 1
			words(doc ":" paths[e], body)
		}
	}
}
function is_adornment(l,    c, i) {
	c = substr(l, 1, 1)
	if (l == "" || index("=-~^\"#*+`'\''_.:", c) == 0)
		return 0
	for (i = 2; i <= length(l); i++)
		if (substr(l, i, 1) != c)
			return 0
	return 1
}
# The admin guide: scope doc ":" TITLE for each section (to the next title
# of its level or above), doc ":*" for the whole text; the words of inline
# literals and of tables'\'' first column.
function read_guide(doc,    lines, n, i, j, key, nlev, lev, tl, tline, nt, t, from, to) {
	n = slurp(docs "/" doc, lines)
	if (!n)
		missing_doc[doc] = 1
	nt = 0
	for (i = 1; i < n; i++) {
		t = lines[i]
		if (t == "" || t ~ /^[ \t]/ || is_adornment(t) || !is_adornment(lines[i + 1]) ||
		    length(lines[i + 1]) < length(t))
			continue
		key = substr(lines[i + 1], 1, 1) (i > 1 && lines[i - 1] == lines[i + 1] ? "o" : "")
		if (!(key in lev))
			lev[key] = ++nlev
		tline[++nt] = i
		tl[nt] = lev[key]
	}
	guide_scope(doc, doc ":*", lines, 1, n)
	for (t = 1; t <= nt; t++) {
		from = tline[t] + 2
		to = n
		for (j = t + 1; j <= nt; j++)
			if (tl[j] <= tl[t]) { to = tline[j] - 2; break }
		guide_scope(doc, doc ":" lines[tline[t]], lines, from, to)
		section[doc SUBSEP lines[tline[t]]] = 1
	}
}
function guide_scope(doc, scope, lines, from, to,    i, s, l, intable, indent, f) {
	s = ""
	intable = 0
	for (i = from; i <= to; i++) {
		l = lines[i]
		s = s " " l
		if (l ~ /^[ \t]*=+( +=+)+[ \t]*$/) {
			if (!intable) {
				intable = 1
				indent = l
				sub(/=.*/, "", indent)
			} else if (i == to || lines[i + 1] ~ /^[ \t]*$/) {
				intable = 0
			}
			continue
		}
		if (intable && substr(l, 1, length(indent)) == indent &&
		    substr(l, length(indent) + 1, 1) ~ /[^ \t]/) {
			f = substr(l, length(indent) + 1)
			sub(/[ \t].*/, "", f)
			words(scope, f)
		}
	}
	text[scope] = text[scope] " "
	while (match(s, /``[^`]+``/)) {
		words(scope, substr(s, RSTART + 2, RLENGTH - 4))
		s = substr(s, RSTART + RLENGTH)
	}
}
# name is a word of the scope, or stands in one as orderN_hit, or in a
# range "order0_hit .. order3_hit"
function named(scope, name,    pre, post, d, s, re, m, lo, hi, c) {
	if ((scope SUBSEP name) in tok)
		return 1
	if (!match(name, /[0-9]+/))
		return 0
	pre = substr(name, 1, RSTART - 1)
	d = substr(name, RSTART, RLENGTH) + 0
	post = substr(name, RSTART + RLENGTH)
	if ((scope SUBSEP pre "N" post) in tok)
		return 1
	s = text[scope]
	re = pre "[0-9]+" post "[ \t]*[.][.][ \t]*" pre "[0-9]+" post
	while (match(s, re)) {
		m = substr(s, RSTART, RLENGTH)
		c = substr(s, RSTART - 1, 1) substr(s, RSTART + RLENGTH, 1)
		s = substr(s, RSTART + 1)
		if (c ~ /[A-Za-z0-9_]/)
			continue
		lo = substr(m, length(pre) + 1) + 0
		sub(/.*[.][.][ \t]*/, "", m)
		hi = substr(m, length(pre) + 1) + 0
		if (lo <= d && d <= hi)
			return 1
	}
	return 0
}
# check every name of kind against scope; what: how to say where
function against(kind, one, many, doc, scope, where,    i, bad, n) {
	bad = 0
	n = 0
	for (i = 1; i <= nnames; i++) {
		if (nkind[i] != kind)
			continue
		n++
		if (scope == "" || !named(scope, nname[i])) {
			print "not ok docs: " one " " nname[i] " is not in " doc " (" where ")"
			bad = 1
		}
	}
	if (!n)
		print "not ok docs: the module showed no " many
	else if (!bad)
		print "ok docs: the " n " " many " are in " doc " (" where ")"
}
# the same for file names, which an ABI file names in What: lines
function files_in_abi(kind, many, doc, dir,    i, bad, n) {
	bad = 0
	n = 0
	for (i = 1; i <= nnames; i++) {
		if (nkind[i] != kind)
			continue
		n++
		if (!((doc SUBSEP dir "/" nname[i]) in what)) {
			print "not ok docs: " dir "/" nname[i] " is not in " doc " (no What: line)"
			bad = 1
		}
	}
	if (!n)
		print "not ok docs: the module showed no " many
	else if (!bad)
		print "ok docs: the " n " " many " are in " doc " (What: lines)"
}
# a scope of the ABI entries of the files given, as one
function abi_entries(doc, files,    f, nf, i, scope, k, key) {
	nf = split(files, f, " ")
	scope = doc ":" files
	for (i = 1; i <= nf; i++)
		for (key in tok) {
			split(key, k, SUBSEP)
			if (k[1] == doc ":" f[i])
				tok[scope SUBSEP k[2]] = 1
		}
	for (i = 1; i <= nf; i++)
		text[scope] = text[scope] " " text[doc ":" f[i]]
	return scope
}
{ nkind[++nnames] = $1; nname[nnames] = $2 }
END {
	S = "/sys/kernel/mm/pcpcache"
	D = "/sys/kernel/debug/pcpcache"
	sa = "Documentation/ABI/testing/sysfs-kernel-mm-pcpcache"
	da = "Documentation/ABI/testing/debugfs-pcpcache"
	g = "Documentation/admin-guide/pcpcache.rst"
	read_abi(sa)
	read_abi(da)
	read_guide(g)
	for (doc in missing_doc)
		print "not ok docs: no " docs "/" doc " to read"
	fs = "files of " S "/"
	fd = "files of " D "/"
	files_in_abi("sysfs-file", fs, sa, S)
	against("sysfs-file", "file", fs, g, g ":sysfs", "section \"sysfs\"")
	files_in_abi("debugfs-file", fd, da, D)
	against("debugfs-file", "file", fd, g, g ":debugfs", "section \"debugfs\"")
	c = "counters of stats"
	against("counter", "counter", c, da, abi_entries(da, D "/stats"), "the entry of stats")
	against("counter", "counter", c, g, g ":debugfs", "section \"debugfs\"")
	c = "columns of stats_percpu"
	against("percpu-column", "stats_percpu column", c, da,
		abi_entries(da, D "/stats_percpu " D "/stats"), "the entries of stats_percpu and stats")
	against("percpu-column", "stats_percpu column", c, g, g ":debugfs", "section \"debugfs\"")
	c = "columns of pagesets"
	against("pagesets-column", "pagesets column", c, da, abi_entries(da, D "/pagesets"), "the entry of pagesets")
	against("pagesets-column", "pagesets column", c, sa, abi_entries(sa, S "/pagesets"), "the entry of pagesets")
	c = "keys of config"
	against("config-key", "config key", c, da, abi_entries(da, D "/config"), "the entry of config")
	against("config-key", "config key", c, sa, abi_entries(sa, S "/config"), "the entry of config")
	against("config-key", "config key", c, g, g ":*", "anywhere")
	c = "keys of limits"
	against("limits-key", "limits key", c, da, abi_entries(da, D "/limits"), "the entry of limits")
	against("limits-key", "limits key", c, sa, abi_entries(sa, S "/limits"), "the entry of limits")
	against("limits-key", "limits key", c, g, g ":*", "anywhere")
	against("param", "module parameter", "module parameters", g, g ":Module parameters",
		"section \"Module parameters\"")
}'

names=
case ${1:-} in
--names) names=$2 ;;
--list)
	load_and_list /tmp/docs.names || exit 1
	cat /tmp/docs.names
	exit 0
	;;
'') ;;
*) echo "usage: docs.sh [--names FILE | --list]" >&2; exit 2 ;;
esac

[ -f "$docs/$guide" ] || { echo "# SKIP: no $docs/$guide (make check adds the tree's Documentation/ there)"; exit "$ksft_skip"; }
echo "TAP version 13"
if [ -z "$names" ]; then
	names=/tmp/docs.names
	load_and_list $names || { echo "Bail out! could not load pcpcache and read its files"; exit 1; }
fi
# what is compared, a line per kind
awk '{ v[$1] = v[$1] " " $2 } END { for (k in v) print "# " k ":" v[k] }' "$names" | sort
awk -v docs="$docs" "$compare" "$names" > /tmp/docs.results
echo "1..$(wc -l < /tmp/docs.results)"
while IFS= read -r line; do
	case $line in
	"not ok "*) fail "${line#not ok }" ;;
	"ok "*) ok "${line#ok }" ;;
	esac
done < /tmp/docs.results
rm -f /tmp/docs.results
exit "$failed"
