/* tracebound: FreeBSD hwpmc log streams.  (API under construction.) */
#ifndef TRACEBOUND_PMCLOG_H
#define TRACEBOUND_PMCLOG_H

#include "tracebound/status.h"

#endif /* TRACEBOUND_PMCLOG_H */
