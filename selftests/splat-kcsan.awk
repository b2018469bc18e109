# SPDX-License-Identifier: GPL-2.0
# Replace in a kernel log each KCSAN report that is not memcg_stock's with
# one line, print the rest; selftests/run_tests.sh and the rig
# (scripts/lib.sh) scan what is left with splat.re.
#
# A report runs from its "BUG: KCSAN: ..." title to the line of "=" that
# closes it (the line of "=" before the title goes with it). It is
# memcg_stock's when a line of it names a function of the module or of its
# KUnit module, "[memcg_stock]" or "[memcg_stock_test]": in the title or in
# either access's stack. Such a report is printed whole and fails the run:
# a race that our code takes part in, whichever side the other access is
# on, is fixed or, when intended, marked (data_race(), READ_ONCE(),
# WRITE_ONCE()) where it happens.
#
# A report without such a line is a race between two places of the kernel
# itself, seen because the kernel runs with KCSAN while the tests load it:
# not a failure of ours. It becomes the line
#     MCS-KCSAN-FOREIGN: data-race in A / B
# which no pattern of splat.re matches, so that the scanned log still
# shows it and the soak can count it. Lines of other CPUs' messages that
# land inside such a report and look like a splat are kept. A report that
# does not end within 200 lines is printed as it is.
function flush_held() {
	if (held != "")
		print held
	held = ""
}

{
	line = $0
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "", line)
}
inrep {
	block = block "\n" $0
	nl++
	if (line ~ /\[memcg_stock(_test)?\]/)
		ours = 1
	else if (line ~ /BUG:|WARNING:|Oops|Call Trace|panic/)
		keep = keep "\n" $0
	if (line ~ /^==========+$/) {
		if (ours) {
			print block
		} else {
			sub(/^BUG: KCSAN: /, "", title)
			print "MCS-KCSAN-FOREIGN: " title keep
		}
		inrep = 0
	} else if (nl > 200) {
		print block
		inrep = 0
	}
	next
}
line ~ /^==========+$/ {
	flush_held()
	held = $0
	next
}
line ~ /^BUG: KCSAN: / {
	inrep = 1
	block = (held != "" ? held "\n" : "") $0
	held = ""
	title = line
	keep = ""
	nl = 0
	ours = line ~ /\[memcg_stock(_test)?\]/
	next
}
{
	flush_held()
	print
}
END {
	flush_held()
	if (inrep)
		print block
}
