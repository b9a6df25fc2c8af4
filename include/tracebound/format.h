/* tracebound: event format schemas and typed fields.  (API under construction.) */
#ifndef TRACEBOUND_FORMAT_H
#define TRACEBOUND_FORMAT_H

#include "tracebound/status.h"

#endif /* TRACEBOUND_FORMAT_H */
