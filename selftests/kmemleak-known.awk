# SPDX-License-Identifier: GPL-2.0
# Print a kmemleak report (/sys/kernel/debug/kmemleak), or a log that holds
# one, without the leaks that the kernel itself makes when a test injects
# an allocation failure, so that what is left can be counted and scanned:
#  - 6.12's sysfs_slab_add() (mm/slub.c): when kobject_init_and_add() fails
#    while a kmem_cache is created, it returns without kobject_put(), and the
#    kobject's name (kstrdup() in kobject_set_name_vargs()) leaks, 16 or 32
#    bytes for each failed kmem_cache_create().  selftests/load_faults makes
#    the module's kmem_cache_create() fail at every point of a load.
# A leak is its "unreferenced object" line and the indented lines after it.
# Read by selftests/run_tests.sh and the rig (kunit-uml.sh, vmtest.sh,
# lib.sh's console check).
function flush() {
	if (block != "" && !(block ~ /sysfs_slab_add/ && block ~ /kobject_set_name_vargs/))
		printf "%s", block
	block = ""
	inleak = 0
}
/^unreferenced object/ { flush(); inleak = 1; block = $0 "\n"; next }
inleak && /^[ \t]/ { block = block $0 "\n"; next }
{ flush(); print }
END { flush() }
