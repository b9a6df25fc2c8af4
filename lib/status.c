/* Status names and the library version. */
#include "internal.h"

TB_API const char *tb_strerror(tb_status status)
{
	switch (status) {
	case TB_OK: return "ok";
	case TB_END: return "end of data";
	case TB_NEED_MORE: return "need more input";
	case TB_NOT_FOUND: return "not found";
	case TB_ERR_TRUNCATED: return "truncated input";
	case TB_ERR_LENGTH: return "invalid length";
	case TB_ERR_RANGE: return "offset out of range";
	case TB_ERR_MAGIC: return "bad magic number";
	case TB_ERR_VERSION: return "unsupported or inconsistent version";
	case TB_ERR_SYNTAX: return "syntax error";
	case TB_ERR_VALUE: return "invalid value";
	case TB_ERR_DUPLICATE: return "duplicate entry";
	case TB_ERR_CYCLE: return "offset chain loops";
	case TB_ERR_UNSUPPORTED: return "unsupported feature";
	case TB_ERR_LIMIT: return "limit exceeded";
	case TB_ERR_NO_SPACE: return "caller storage too small";
	case TB_ERR_ARG: return "invalid argument";
	case TB_ERR_BUDGET: return "over the memory budget";
	case TB_STATUS_END_: break;
	}
	return "unknown status";
}

TB_API const char *tb_version(void)
{
	return TB_VERSION_STRING;
}
