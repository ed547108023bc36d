# SPDX-License-Identifier: GPL-2.0
#
# pcpcache top-level Makefile. See README.md.
#
#   make              module, selftests (and tools) against the newest
#                     installed Debian headers, or KDIR=...
#   make demo         boot the VM, load pcpcache and show what it does
#   make check        every lane with the tests it exists for (about 17
#                     minutes on 2 cores, 22 cold; see tools/check)
#   make check-full   the same with every selftest in every lane, the
#                     bench, the rt and 6.12 kernels in the VM, the mutants
#   make check-fresh  both README commands in a new Debian 12 root and a
#                     new Debian 13 root (mmdebstrap, chroot): first make
#                     demo, then make check up to its vm stage
#                     (tools/check-fresh)
#   make check-mutants the faults of tools/mutants/, each caught by its lane
#   make deps         install what the above need (as root)
#   make unit         host unit tests only
#   make tools-asan   pcpctl under ASan and UBSan (tools/pcpctl/test-host)
#   make vm-check     kselftests in the VM only, under both designs
#   make bench        the full benchmarks, init_on_alloc=0 and =1, with
#                     tables, CSV and plots in results/
#   make check-debug  the selftests on a KASAN/lockdep/DEBUG_VM/kmemleak
#                     kernel built from linux-source (cached outside the tree)
#   make lint         checkpatch --strict, sparse and W=1 on module/
#   make matrix       build for 6.1, 6.1-rt, 6.12, 7.3 and 7.3-rt; run the
#                     selftests on all but the first in the VM (unpacks
#                     them into the cache; 7.x built in a Debian 13 root)
#   make install      through DKMS, for the running kernel or KVER=...,
#                     and pcpctl with its man page under PREFIX
#   make uninstall    remove it from DKMS and every kernel, and pcpctl

TOP := $(CURDIR)
BUILD := $(TOP)/build

# Debian's default amd64 kernel (tools/kernel-release); the VM boots it.
# Its headers are the host's on Debian 12, the cache's on Debian 13
# (tools/matrix kdir). Recursive (=), not simple (:=), and never exported:
# "make demo" and "make check" install or unpack the headers (tools/setup)
# after this file is read, so the makes their recipes start must look
# again, and an empty KDIR= in the environment (or one this make found
# empty) counts as not set.
KREL = $(shell $(TOP)/tools/kernel-release)
ifeq ($(strip $(KDIR)),)
override KDIR = $(if $(KREL),$(shell $(TOP)/tools/matrix kdir $(KREL)))
endif
unexport KDIR KREL

# The kernel's kselftest framework (lib.mk, runner, harness headers), taken
# from Debian's linux-source tarball: the headers packages do not ship it.
KSRC_TAR = $(shell ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
KSFT_DIR := $(BUILD)/linux/tools/testing/selftests
KSFT_FILES := tools/testing/selftests/Makefile tools/testing/selftests/lib.mk \
	tools/testing/selftests/kselftest.h \
	tools/testing/selftests/kselftest_harness.h \
	tools/testing/selftests/kselftest \
	tools/testing/selftests/run_kselftest.sh scripts/subarch.include \
	tools/include scripts/checkpatch.pl scripts/spelling.txt \
	scripts/const_structs.checkpatch

all: module selftests tools

# What installs the packages (and the headers), and what "make demo" and
# "make check" run after it; tools/check-first-build puts stand-ins here.
SETUP := $(TOP)/tools/setup
DEMO := $(TOP)/tools/demo
CHECK := $(TOP)/tools/check

# The version has one home: PACKAGE_VERSION in dkms.conf.
PCPCACHE_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# libpcpcache: what pcpctl and the selftests share (tools/lib/pcpcache/).
PCPCACHE_LIB := tools/lib/pcpcache/pcpcache_util.c tools/lib/pcpcache/pcpcache_stress.c

# Userspace tools, into build/bin (which the VM puts on its PATH).
PCPCTL_SRC := tools/pcpctl/pcpctl.c tools/pcpctl/bench.c tools/pcpctl/fault.c \
	tools/pcpctl/args.c tools/pcpctl/files.c tools/pcpctl/set.c tools/pcpctl/json.c \
	tools/pcpctl/stats.c tools/pcpctl/plot.c tools/pcpctl/trace.c \
	tools/pcpctl/record.c tools/pcpctl/simulate.c tools/pcpctl/replay.c \
	tools/pcpctl/sim.c tools/pcpctl/kmodel.c $(PCPCACHE_LIB) \
	module/parse.c module/policy.c module/magazine.c

tools: $(BUILD)/bin/pcpctl

# It compiles the module's plain-C grammar and rules (module/parse.c,
# policy.c) to check what it is given as pcpcache would, and its list
# discipline (magazine.c, against the kernel's tools/include/linux/list.h)
# for simulate.
PCPCTL_CFLAGS := -Iinclude/uapi -Itools/lib/pcpcache -Imodule -I$(KSFT_DIR)/../../include
$(BUILD)/bin/pcpctl: $(PCPCTL_SRC) $(wildcard tools/lib/pcpcache/*.h tools/pcpctl/*.h) \
		include/uapi/linux/pcpcache.h module/parse.h module/policy.h \
		module/magazine.h $(KSFT_DIR)/lib.mk
	mkdir -p $(BUILD)/bin
	$(CC) -Wall -Wextra -O2 -g $(PCPCTL_CFLAGS) \
		-DPCPCACHE_VERSION='"$(PCPCACHE_VERSION)"' \
		-o $@ $(PCPCTL_SRC) -lpthread -lm

# pcpctl under AddressSanitizer and UBSan, for tools/pcpctl/test-host
tools-asan: $(BUILD)/asan/pcpctl
$(BUILD)/asan/pcpctl: $(PCPCTL_SRC) $(wildcard tools/lib/pcpcache/*.h tools/pcpctl/*.h) \
		include/uapi/linux/pcpcache.h module/parse.h module/policy.h \
		module/magazine.h $(KSFT_DIR)/lib.mk
	mkdir -p $(BUILD)/asan
	$(CC) -Wall -Wextra -O1 -g -fno-omit-frame-pointer \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		$(PCPCTL_CFLAGS) \
		-DPCPCACHE_VERSION='"$(PCPCACHE_VERSION)"' \
		-o $@ $(PCPCTL_SRC) -lpthread -lm

deps:
	@$(SETUP)

module:
	@test -n "$(KDIR)" || { echo "no kernel headers found: run 'make deps' or set KDIR" >&2; exit 1; }
	$(MAKE) -C module KDIR=$(KDIR)

# Extracted again when this Makefile (and so the list above) changes.
$(KSFT_DIR)/lib.mk: Makefile
	@test -n "$(KSRC_TAR)" || { echo "no /usr/src/linux-source-*.tar.xz: run 'make deps'" >&2; exit 1; }
	mkdir -p $(BUILD)/linux
	tar -xJf $(KSRC_TAR) -C $(BUILD)/linux --strip-components=1 \
		$(addprefix $(notdir $(basename $(basename $(KSRC_TAR))))/,$(KSFT_FILES))
	touch $@

ksft: $(KSFT_DIR)/lib.mk

# Build the selftests the way the kernel does: copied in as a TARGET of
# tools/testing/selftests and installed with run_kselftest.sh.
# The UAPI header goes where "make headers_install" would put it; the test
# module that api_contexts loads goes next to it.
selftests: ksft module
	rm -rf $(KSFT_DIR)/pcpcache $(BUILD)/linux/tools/lib/pcpcache $(BUILD)/kselftest
	install -D -m 644 include/uapi/linux/pcpcache.h $(BUILD)/linux/usr/include/linux/pcpcache.h
	cp -r selftests/pcpcache $(KSFT_DIR)/pcpcache
	mkdir -p $(BUILD)/linux/tools/lib
	cp -r tools/lib/pcpcache $(BUILD)/linux/tools/lib/pcpcache
	$(MAKE) -s -C $(KSFT_DIR) TARGETS=pcpcache KSFT_INSTALL_PATH=$(BUILD)/kselftest install
	cp module/tests/pcpcache_api_test.ko module/tests/pcpcache_safety_test.ko \
		$(BUILD)/kselftest/pcpcache/

unit: ksft
	mkdir -p $(BUILD)/unit
	@# no ASLR: gcc-12's ASan can crash at start with vm.mmap_rnd_bits=32
	@# the kselftest runner exits 0 whatever its tests did: tap-ok judges
	@# 6.12's runner (Debian 13) starts each test under stdbuf, whose
	@# LD_PRELOAD comes before ASan's runtime: ASan must not refuse that
	ASAN_OPTIONS=verify_asan_link_order=0 \
	setarch $(shell uname -m) -R $(MAKE) -s -C module/tests OUTPUT=$(BUILD)/unit run_tests \
		> $(BUILD)/unit.tap 2>&1; rc=$$?; cat $(BUILD)/unit.tap; \
		[ $$rc = 0 ] && $(TOP)/tools/tap-ok $(BUILD)/unit.tap

vm-check: all
	$(TOP)/tools/vm/run --timeout 2400 --output $(BUILD)/vm-check.tap \
		--add $(TOP)/tools/vm/designs.sh:/root/designs.sh -- sh /root/designs.sh
	@$(TOP)/tools/tap-ok $(BUILD)/vm-check.tap

# What of the host these commands must leave as found, recorded before
# "make deps" runs (tools/host-state); tools/check and tools/demo compare.
HOST_STATE := $(BUILD)/host-state.before
export PCPCACHE_HOST_STATE := $(HOST_STATE)
save-host-state:
	@mkdir -p $(BUILD)
	@$(TOP)/tools/host-state save $(HOST_STATE)

check: save-host-state
	@$(SETUP)
	@$(CHECK)

check-full: save-host-state
	@$(SETUP)
	@$(CHECK) --full

check-fresh:
	@$(SETUP)
	@$(TOP)/tools/check-fresh

check-mutants: all
	@$(TOP)/tools/check-mutants

demo: save-host-state
	@$(SETUP) --demo
	@$(MAKE) -s all
	@$(DEMO)

bench: deps
	@$(MAKE) -s all
	@$(TOP)/tools/bench

check-debug: all
	@$(TOP)/tools/check-debug

lint: ksft
	@$(TOP)/tools/lint

matrix: all
	@$(TOP)/tools/matrix setup --images
	@$(TOP)/tools/matrix build
	@$(TOP)/tools/matrix vm

# DKMS gets a clean copy of what it builds from, not build/ or .git.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(TOP)/dkms.conf)
KVER ?= $(shell uname -r)
DKMS_SRC := /usr/src/pcpcache-$(VERSION)

# A kernel with no /lib/modules/KVER/build (Debian 13's headers unpacked
# into the project's cache, tools/matrix): DKMS is told where they are.
DKMS_KSRC = $(if $(wildcard /lib/modules/$(KVER)/build/Makefile),,--kernelsourcedir $(shell $(TOP)/tools/matrix kdir $(KVER)))

# pcpctl is an administrator's tool: sbin, and its page in section 8.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MAN8DIR ?= $(PREFIX)/share/man/man8

install: tools
	@command -v dkms > /dev/null || { echo "dkms is not installed: run 'make deps'" >&2; exit 1; }
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r module include dkms.conf $(DKMS_SRC)/
	$(MAKE) -s -C $(DKMS_SRC)/module clean > /dev/null 2>&1 || true
	dkms status -m pcpcache -v $(VERSION) | grep -q . || dkms add -m pcpcache -v $(VERSION)
	dkms build -m pcpcache -v $(VERSION) -k $(KVER) $(DKMS_KSRC)
	dkms install -m pcpcache -v $(VERSION) -k $(KVER) $(DKMS_KSRC)
	install -D -m 755 $(BUILD)/bin/pcpctl $(DESTDIR)$(SBINDIR)/pcpctl
	install -D -m 644 tools/pcpctl/pcpctl.8 $(DESTDIR)$(MAN8DIR)/pcpctl.8

uninstall:
	-dkms status -m pcpcache -v $(VERSION) | grep -q . && dkms remove -m pcpcache -v $(VERSION) --all
	rm -rf $(DKMS_SRC)
	rm -f $(DESTDIR)$(SBINDIR)/pcpctl $(DESTDIR)$(MAN8DIR)/pcpctl.8

clean:
	-$(MAKE) -C module clean
	rm -rf $(BUILD)

.PHONY: all deps save-host-state module ksft selftests tools tools-asan unit vm-check check check-full check-mutants check-debug demo bench \
	lint matrix \
	install uninstall clean
