/* tracebound: ring-buffer sub-buffer walker.  (API under construction.) */
#ifndef TRACEBOUND_KBUF_H
#define TRACEBOUND_KBUF_H

#include "tracebound/status.h"

#endif /* TRACEBOUND_KBUF_H */
