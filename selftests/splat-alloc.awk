# SPDX-License-Identifier: GPL-2.0
# Drop from a kernel log the reports that an injected allocation failure
# provokes in the kernel itself, print the rest; selftests/run_tests.sh and
# the rig (scripts/rig/lib.sh) scan what is left with splat.re.
#  - warn_alloc(): an allocation that fails without __GFP_NOWARN (vmalloc()
#    in the module loader, a page allocation) prints a header line and a
#    stack dump; so does a kmem_cache_create() that fails.  The report ends
#    with its call trace.
#  - 6.12 and 7.x's event_define_fields() (kernel/trace/trace_events.c) meet
#    an -ENOMEM from trace_define_field_ext() while a module's trace events
#    are set up with a WARN_ON_ONCE(); event_create_dir() then returns
#    without the reference that the event's "enable" file drops when the
#    module goes, so event_file_put() WARNs twice at that unload (its
#    refcount hits zero early; the second put frees the file, once).  Each
#    at most once a boot; each report ends with "---[ end trace".
#  - the kernel's own race of a debugfs open against rmmod (no allocation
#    failure, but no more ours): delete_module() drops the module's last
#    reference before it marks the module GOING, and an open in between
#    WARNs "debugfs file owner did not clean up at exit" (fs/debugfs/file.c)
#    and fails cleanly; the report ends with "---[ end trace".
# How the module handled the failure is judged by the tests themselves.  At
# most 80 lines are dropped a report: a log that goes on without its end is
# scanned again from there.
{ line = $0; sub(/^\[ *[0-9]+\.[0-9]+\] /, "", line) }
line ~ /vmalloc error: size|page allocation failure: order|kmem_cache_create[a-z_]*\(.*\) failed with error/ {
	skip = 80; warn = 0; trace = 0; next
}
line ~ /debugfs file owner did not clean up at exit/ { next }
line ~ /WARNING: .*kernel\/trace\/trace_events\.c:[0-9]+.*(event_define_fields|event_file_put)/ ||
line ~ /WARNING: .*fs\/debugfs\/file\.c:[0-9]+ (full_proxy_open|open_proxy_open)/ {
	skip = 80; warn = 1; trace = 0; next
}
skip > 0 {
	skip--
	if (warn) {
		if (line ~ /---\[ end trace/)
			skip = 0
		next
	}
	if (line ~ /Call Trace:/) {
		trace = 1
		next
	}
	if (!trace)
		next
	# the frames: x86 "func+0x1/0x2", "? func", "<TASK>"; UML " [<addr>] ? func"
	if (line ~ /^ *(\[<[0-9a-f]+>\]|\? |[A-Za-z_.][A-Za-z0-9_.]*\+0x|<\/?[A-Z]+>$)/) {
		if (line ~ /<\/TASK>/)
			skip = 0
		next
	}
	skip = 0
}
{ print }
