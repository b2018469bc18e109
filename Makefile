# SPDX-License-Identifier: GPL-2.0
#
# memcg_stock: user entry points.  The module itself is described in Kbuild.
#
#   make             build memcg_stock.ko against KDIR (default: running kernel)
#   make deps        install the Debian packages the rig needs (idempotent)
#   make kunit       KUnit suites + selftests under UML from Debian's newest linux-source-7.*
#                    (KASAN, lockdep, kmemleak; one CPU, MCS_UML_CPUS=2 for SMP)
#   make vmtest      selftests (+KUnit) on Debian 6.12 generic/RT, 6.1 generic and our 6.12 debug RT kernel
#   make compile-6.1 compile check against bookworm's 6.1 headers
#   make lint        checkpatch --strict and sparse, zero warnings
#   make dkms-check  dkms add + build against Debian's 6.12 headers (private tree)
#   make check       all of the above (what .ci/run runs)
#   make bench       A/B benchmark: instructions per pair under qemu -icount (Debian 6.12
#                    generic and RT), wall clock on UML and qemu (scripts/bench.sh)
#   make bench-profile  instructions of one pair per function and block, from a TCG
#                    plugin under qemu -icount (scripts/bench-profile.sh)
#   make soak        3 consecutive stress runs (all cases) per test kernel, + SMP UML,
#                    debug generic, 6.1 RT, cloud, 8 vCPUs, NUMA
#   make clean

KDIR ?= /lib/modules/$(shell uname -r)/build
MCS_CACHE ?= $(HOME)/.cache/memcg_stock
export MCS_CACHE

.PHONY: all modules deps kunit vmtest compile-6.1 lint dkms-check check bench bench-profile soak clean

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

deps:
	scripts/deps.sh

kunit: deps
	scripts/kunit-uml.sh

vmtest: deps
	scripts/vmtest.sh

compile-6.1: deps
	scripts/compile-check.sh

lint: deps
	scripts/lint.sh

dkms-check: deps
	scripts/dkms-check.sh

check: deps
	scripts/check.sh

bench: deps
	scripts/bench.sh

bench-profile: deps
	scripts/bench-profile.sh

soak: deps
	scripts/stress-soak.sh

# everything a build writes: Kbuild's objects in every source directory
# (examples/ too, built with make -C KDIR M=$PWD/examples) and the rig's .out
CLEAN_DIRS := . harness kunit examples selftests
CLEAN_FILES := *.o .*.o *.ko *.mod *.mod.c .*.cmd .*.d *.dwo modules.order Module.symvers

clean:
	rm -rf .out .tmp_versions
	rm -f $(foreach d,$(CLEAN_DIRS),$(addprefix $(d)/,$(CLEAN_FILES)))
