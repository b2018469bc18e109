# SPDX-License-Identifier: GPL-2.0
#
# memcg_stock: user entry points.  The module itself is described in Kbuild.
# `make help` lists every target and the main variables.

KDIR ?= /lib/modules/$(shell uname -r)/build
MCS_CACHE ?= $(HOME)/.cache/memcg_stock
export MCS_CACHE
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' $(CURDIR)/dkms.conf)
# install: the kernel release KDIR builds for, where modules go under
# /lib/modules/<release>/, where the client files go
# (UTS_RELEASE, what the module's vermagic says: some distributions'
# include/config/kernel.release differs)
KRELEASE = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
INSTALL_MOD_DIR ?= updates
MCS_DEVDIR ?= /usr/src/memcg_stock/$(KRELEASE)
DESTDIR ?=
DEPMOD ?= depmod

.PHONY: all ab footprint stock-part emu-check modules kdir-check help run_tests install uninstall dkms-install dkms-uninstall \
	deps kunit vmtest compile-check compile-6.1 lint dkms-check check bench soak clean bench-running bench-profile trace \
	replay-kernel

all: modules

help:
	@echo 'memcg_stock: make [TARGET] [VARIABLE=value ...]'
	@echo 'Build, install, test on the running kernel:'
	@echo '  make                build memcg_stock.ko (+ memcg_stock_test.ko with KUnit) against KDIR'
	@echo '  make run_tests      as root on the kernel it was built for: load, KUnit, selftests, unload, TAP'
	@echo '  make install        modules_install + depmod; the public headers and Module.symvers to MCS_DEVDIR'
	@echo '  make uninstall      remove what make install installed'
	@echo '  make dkms-install   copy the tree to /usr/src/memcg_stock-$(VERSION), dkms add, build, install'
	@echo '  make dkms-uninstall dkms remove and the copy in /usr/src'
	@echo '  make -C selftests   build the selftest programs (kselftest.h from KDIR'"'"'s source or KSFT_DIR)'
	@echo '  make -C examples    build the client example against memcg_stock (builds the module first)'
	@echo 'The test rig (qemu and UML guests; Debian 12 host, root):'
	@echo '  make check          every stage: lint, KUnit + selftests under UML and qemu, compile, DKMS'
	@echo '  make vmtest         the suite under qemu (VM_KERNELS, or KERNEL= and KDIR= for your kernel)'
	@echo '  make kunit          KUnit suites + selftests under a UML debug kernel'
	@echo '  make soak           long stress runs (SOAK_KERNELS, or KERNEL= and KDIR=)'
	@echo '  make emu-check      does qemu TCG fault under an NMI load without the module (EMU_SECONDS)'
	@echo '  make bench          A/B benchmark of the stock modes (BENCH_*_KERNELS, or KERNEL= and KDIR=)'
	@echo '  make ab A=M B=M     two stock modes side by side in one icount guest, in minutes'
	@echo '  make footprint      bytes per memcg, kmalloc against the kmem_caches, on 1, 2, 4 nodes'
	@echo '  make stock-part     the page pair against the kernel stock part of its page pair'
	@echo '  make bench-profile  where the instructions of one charge+uncharge pair go (TCG plugin)'
	@echo '  make trace          record a Debian kernel'"'"'s own charge stream under WORKLOAD= (many-cgroups, fork-storm, stress-fork, stress-switch, kbuild, loopback)'
	@echo '  make replay-kernel  each recorded workload: the kernel'"'"'s own stock cost beside its replay (TCG plugin)'
	@echo '  make bench-running  as root: the benchmark on the running kernel, PMU counters where there are'
	@echo '  make lint           checkpatch --strict, sparse, API and docs checks'
	@echo '  make compile-check  W=1 compile check against Debian 6.1, 6.12 and 6.12-rt headers (also: compile-6.1)'
	@echo '  make dkms-check     dkms add + build against Debian 6.12 headers; make install DESTDIR= check'
	@echo '  make deps           install the Debian packages the rig needs'
	@echo '  make clean          remove every build product and .out/'
	@echo 'Variables:'
	@echo '  KDIR=DIR            kernel build tree (default: /lib/modules/$$(uname -r)/build)'
	@echo '  KERNEL=FILE         bzImage or vmlinuz for vmtest, soak and bench (with KDIR= its build tree)'
	@echo '  DESTDIR=DIR         staging root of make install / uninstall (default: none)'
	@echo '  INSTALL_MOD_DIR=D   module subdirectory under /lib/modules/<release> (default: updates)'
	@echo '  MCS_DEVDIR=DIR      where make install puts the public headers and Module.symvers'
	@echo '  VM_KERNELS=LIST     kernels of make vmtest (docs/testing.md has every rig variable)'
	@echo '  MCS_CACHE=DIR       the rig'"'"'s downloads and kernel builds (default: ~/.cache/memcg_stock)'

# a missing build tree: say what to install, not make's "No such file"
kdir-check:
	@test -f $(KDIR)/Makefile || { \
	  echo "memcg_stock: no kernel build tree at $(KDIR)" >&2; \
	  echo "  Install the headers of the running kernel (Debian, Ubuntu: apt-get install linux-headers-$$(uname -r);" >&2; \
	  echo "  Fedora: dnf install kernel-devel-$$(uname -r)), or pass KDIR=<kernel build tree>, e.g. make KDIR=~/linux" >&2; \
	  exit 1; }

modules: kdir-check
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# as root, on the kernel the module was built for (selftests/run_tests.sh);
# builds what is missing first
run_tests:
	@test -f memcg_stock.ko || $(MAKE) modules
	@test -x selftests/mcs_selftest || $(MAKE) -C selftests KDIR=$(KDIR)
	selftests/run_tests.sh

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		KERNELRELEASE=$(KRELEASE) modules_install
	$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) -a $(KRELEASE)
	install -D -m 644 memcg_stock.h $(DESTDIR)$(MCS_DEVDIR)/memcg_stock.h
	install -D -m 644 objects/page_counter.h $(DESTDIR)$(MCS_DEVDIR)/objects/page_counter.h
	install -D -m 644 Module.symvers $(DESTDIR)$(MCS_DEVDIR)/Module.symvers

uninstall: kdir-check
	rm -f $(DESTDIR)/lib/modules/$(KRELEASE)/$(INSTALL_MOD_DIR)/memcg_stock.ko* \
		$(DESTDIR)/lib/modules/$(KRELEASE)/$(INSTALL_MOD_DIR)/memcg_stock_test.ko*
	rm -rf $(DESTDIR)$(MCS_DEVDIR)
	rmdir --ignore-fail-on-non-empty $(dir $(DESTDIR)$(MCS_DEVDIR)) 2>/dev/null || true
	$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) -a $(KRELEASE)

# DKMS: the tree itself (no .git, .out or build products) as
# /usr/src/memcg_stock-VERSION, then dkms add, build and install for KDIR's
# kernel.  DKMS=... adds dkms options (e.g. a private --dkmstree).
DKMS ?= dkms
DKMS_SRC ?= /usr/src
DKMS_EXCLUDE = .git .out bench-results $(CLEAN_FILES) $(patsubst %.c,%,$(wildcard selftests/*.c))
dkms-install: kdir-check
	rm -rf $(DKMS_SRC)/memcg_stock-$(VERSION)
	mkdir -p $(DKMS_SRC)/memcg_stock-$(VERSION)
	tar -c $(foreach x,$(DKMS_EXCLUDE),--exclude='$(x)') -f - . | tar -x -C $(DKMS_SRC)/memcg_stock-$(VERSION)
	$(DKMS) add --sourcetree $(DKMS_SRC) -m memcg_stock -v $(VERSION)
	$(DKMS) build -m memcg_stock -v $(VERSION) -k $(KRELEASE) --kernelsourcedir $(realpath $(KDIR))
	$(DKMS) install -m memcg_stock -v $(VERSION) -k $(KRELEASE)

dkms-uninstall:
	$(DKMS) remove -m memcg_stock -v $(VERSION) --all
	rm -rf $(DKMS_SRC)/memcg_stock-$(VERSION)

deps:
	scripts/rig/deps.sh

kunit: deps
	scripts/rig/kunit-uml.sh

vmtest: deps
	scripts/rig/vmtest.sh

compile-check compile-6.1: deps
	scripts/rig/compile-check.sh

lint: deps
	scripts/checks/lint.sh

dkms-check: deps
	scripts/rig/dkms-check.sh

check: deps
	scripts/rig/check.sh

bench: deps
	scripts/bench/bench.sh

bench-running:
	KDIR=$(KDIR) scripts/bench/bench-running.sh

ab: deps
	A=$(A) B=$(B) scripts/bench/ab.sh

footprint: deps
	scripts/bench/footprint.sh

stock-part: deps
	scripts/bench/stock-part.sh

trace: deps
	scripts/bench/trace.sh $(or $(WORKLOAD),many-cgroups)

replay-kernel: deps
	scripts/bench/replay-kernel.sh

bench-profile: deps
	scripts/bench/bench-profile.sh

soak: deps
	scripts/rig/stress-soak.sh

emu-check: deps
	scripts/rig/emu-check.sh

# everything a build writes: Kbuild's objects in every source directory
# (examples/ too, built with make -C KDIR M=$PWD/examples) and the rig's .out
CLEAN_DIRS := . objects stocks entry harness kunit examples selftests scripts/rig/emu
CLEAN_FILES := *.o .*.o *.ko *.mod *.mod.c .*.cmd .*.d *.dwo modules.order Module.symvers

clean:
	rm -rf .out .tmp_versions
	$(MAKE) -s -C selftests clean
	rm -f $(foreach d,$(CLEAN_DIRS),$(addprefix $(d)/,$(CLEAN_FILES)))
