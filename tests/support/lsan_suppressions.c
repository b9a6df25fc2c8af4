/*
 * LeakSanitizer suppressions for the test runner (make sanitize).
 * libtraceevent, linked in as the differential oracle, keeps small
 * allocations of tep_parse_event that tep_free does not release; those
 * are its leaks, not ours.
 */
const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}
