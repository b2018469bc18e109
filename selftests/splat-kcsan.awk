# SPDX-License-Identifier: GPL-2.0
# Replace in a kernel log each KCSAN report that is not memcg_stock's with
# one line, print the rest; selftests/run_tests.sh and the rig
# (scripts/rig/lib.sh) scan what is left with splat.re.
#
# A report runs from its "BUG: KCSAN: ..." title to the line of "=" that
# closes it (the line of "=" before the title goes with it). KCSAN titles a
# report with the functions that made the two racing accesses ("data-race
# in A / B"), a module's with its name ("mcs_foo [memcg_stock]"). The
# report is memcg_stock's when its title names a function of the module or
# of its KUnit module: one of the two accesses is ours. It is printed whole
# and fails the run: the race is fixed or, when intended, marked
# (data_race(), READ_ONCE(), WRITE_ONCE()) where it happens.
#
# A report whose title names two functions of the kernel is a race inside
# the kernel itself, seen because the kernel runs with KCSAN while the
# tests load it, even where our code is further down a stack (a timer of
# ours calling ktime_get() while the tick updates the clock): not a
# failure of ours. It becomes the line
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
	if (line ~ /BUG:|WARNING:|Oops|Call Trace|panic/)
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
