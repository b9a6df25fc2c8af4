/* tracebound: trace-cmd trace.dat container.  (API under construction.) */
#ifndef TRACEBOUND_TRACEDAT_H
#define TRACEBOUND_TRACEDAT_H

#include "tracebound/status.h"

#endif /* TRACEBOUND_TRACEDAT_H */
