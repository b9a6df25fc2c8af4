/* tracebound: print fmt renderer.  (API under construction.) */
#ifndef TRACEBOUND_RENDER_H
#define TRACEBOUND_RENDER_H

#include "tracebound/status.h"

#endif /* TRACEBOUND_RENDER_H */
