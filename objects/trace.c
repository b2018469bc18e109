// SPDX-License-Identifier: GPL-2.0
/* The one unit that defines the tracepoints declared in trace.h. */
#define CREATE_TRACE_POINTS
#include "trace.h"
