/*
 * tracebound pmclog [--json] [--addr-size 4|8] [--stop-at-closelog] FILE|-
 *
 * Prints a FreeBSD hwpmc log one record per line, named as `pmcstat -R`
 * names them, or as JSON lines.  The input is read as a stream in 64 KiB
 * pieces (a pipe works; nothing is loaded whole), which is the fd mode
 * of libpmc's pmclog_open(fd) kept out of the library.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define READ_CHUNK (64u * 1024u)

/* A string from the log inside double quotes, unprintable bytes escaped. */
static void text_str(FILE *out, tb_pmclog_str s)
{
	size_t i;
	putc('"', out);
	for (i = 0; i < s.len; i++) {
		unsigned char c = (unsigned char)s.ptr[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			fprintf(out, "\\x%02x", c);
		else
			putc(c, out);
	}
	putc('"', out);
}

static void entry(FILE *out, const char *name)
{
	fprintf(out, "%-9s", name);
}

static const char *part_name(uint8_t type)
{
	switch (type) {
	case TB_PMCLOG_PART_IBS_FETCH: return "ibs-fetch";
	case TB_PMCLOG_PART_IBS_OP: return "ibs-op";
	case TB_PMCLOG_PART_CALLCHAIN: return "kcallchain";
	default: return "part";
	}
}

static void print_text(FILE *out, const tb_pmclog_event *ev)
{
	uint32_t i, k;
	switch (ev->type) {
	case TB_PMCLOG_CLOSELOG: entry(out, "closelog"); fputc(' ', out); break;
	case TB_PMCLOG_DROPNOTIFY: entry(out, "drop"); fputc(' ', out); break;
	case TB_PMCLOG_INITIALIZE:
		entry(out, "initlog");
		fprintf(out, " 0x%" PRIx32 " 0x%" PRIx32, ev->u.i.version, ev->u.i.arch);
		if (!ev->legacy) { /* legacy INITIALIZE has no cpuid */
			fputc(' ', out);
			text_str(out, ev->u.i.cpuid);
		}
		break;
	case TB_PMCLOG_PMCALLOCATE:
		entry(out, "allocate");
		fprintf(out, " 0x%" PRIx32 " 0x%" PRIx32 " 0x%" PRIx32, ev->u.a.pmcid,
			ev->u.a.event, ev->u.a.flags);
		break;
	case TB_PMCLOG_PMCALLOCATEDYN:
		entry(out, "allocatedyn");
		fprintf(out, " 0x%" PRIx32 " ", ev->u.ad.pmcid);
		text_str(out, ev->u.ad.evname);
		fprintf(out, " 0x%" PRIx32, ev->u.ad.flags);
		break;
	case TB_PMCLOG_PMCATTACH:
		entry(out, "attach");
		fprintf(out, " 0x%" PRIx32 " %" PRId32 " ", ev->u.t.pmcid, ev->u.t.pid);
		text_str(out, ev->u.t.pathname);
		break;
	case TB_PMCLOG_PMCDETACH:
		entry(out, "detach");
		fprintf(out, " 0x%" PRIx32 " %" PRId32, ev->u.d.pmcid, ev->u.d.pid);
		break;
	case TB_PMCLOG_PROCCSW:
		entry(out, "cswval");
		fprintf(out, " 0x%" PRIx32 " %" PRId32 " %" PRIu64, ev->u.c.pmcid,
			ev->u.c.pid, ev->u.c.value);
		break;
	case TB_PMCLOG_PROCEXEC:
		entry(out, "exec");
		fprintf(out, " 0x%" PRIx32 " %" PRId32, ev->u.x.pmcid, ev->u.x.pid);
		if (ev->u.x.has_dyn)
			fprintf(out, " 0x%" PRIx64 " 0x%" PRIx64 " ", ev->u.x.baseaddr,
				ev->u.x.dynaddr);
		else
			fprintf(out, " 0x%" PRIx64 " ", ev->u.x.entryaddr);
		text_str(out, ev->u.x.pathname);
		break;
	case TB_PMCLOG_PROCEXIT:
		entry(out, "exitval");
		fprintf(out, " 0x%" PRIx32 " %" PRId32 " %" PRIu64, ev->u.e.pmcid,
			ev->u.e.pid, ev->u.e.value);
		break;
	case TB_PMCLOG_PROCFORK:
		entry(out, "fork");
		fprintf(out, " %" PRId32 " %" PRId32, ev->u.f.oldpid, ev->u.f.newpid);
		break;
	case TB_PMCLOG_SYSEXIT:
		entry(out, "exit");
		fprintf(out, " %" PRId32, ev->u.se.pid);
		break;
	case TB_PMCLOG_USERDATA:
		entry(out, "userdata");
		fprintf(out, " 0x%" PRIx32, ev->u.u.userdata);
		break;
	case TB_PMCLOG_MAP_IN:
		entry(out, "map-in");
		fprintf(out, " %" PRId32 " 0x%" PRIx64 " ", ev->u.mi.pid, ev->u.mi.start);
		text_str(out, ev->u.mi.pathname);
		break;
	case TB_PMCLOG_MAP_OUT:
		entry(out, "map-out");
		fprintf(out, " %" PRId32 " 0x%" PRIx64 " 0x%" PRIx64, ev->u.mo.pid,
			ev->u.mo.start, ev->u.mo.end);
		break;
	case TB_PMCLOG_PCSAMPLE:
		entry(out, "sample");
		fprintf(out, " 0x%" PRIx32 " %" PRId32 " 0x%" PRIx64 " %c", ev->u.s.pmcid,
			ev->u.s.pid, ev->u.s.pc, ev->u.s.usermode ? 'u' : 's');
		break;
	case TB_PMCLOG_THR_CREATE:
		entry(out, "thr-create");
		fprintf(out, " %" PRId32 " %" PRId32 " 0x%" PRIx32 " ", ev->u.tc.tid,
			ev->u.tc.pid, ev->u.tc.flags);
		text_str(out, ev->u.tc.tdname);
		break;
	case TB_PMCLOG_THR_EXIT:
		entry(out, "thr-exit");
		fprintf(out, " %" PRId32, ev->u.te.tid);
		break;
	case TB_PMCLOG_PROC_CREATE:
		entry(out, "create");
		fprintf(out, " %" PRId32 " 0x%" PRIx32 " ", ev->u.pc.pid, ev->u.pc.flags);
		text_str(out, ev->u.pc.pcomm);
		break;
	case TB_PMCLOG_CALLCHAIN:
		entry(out, "callchain");
		fprintf(out, " %" PRId32 " 0x%" PRIx32 " %" PRIu32 " %" PRIu32 " %c",
			ev->u.cc.pid, ev->u.cc.pmcid, ev->u.cc.cpuflags >> 16,
			ev->u.cc.npc - ev->u.cc.pc_first,
			ev->u.cc.cpuflags & TB_PMCLOG_CC_USERSPACE ? 'u' : 's');
		for (k = 0; k < ev->u.cc.nparts; k++) {
			const tb_pmclog_part *pt = &ev->u.cc.parts[k];
			if (pt->type == TB_PMCLOG_PART_CALLCHAIN)
				continue; /* its slots are printed as PCs */
			fputc('\n', out);
			entry(out, part_name(pt->type));
			for (i = 0; i < pt->nslots; i++)
				fprintf(out, " 0x%" PRIx64, tb_pmclog_cc_slot(ev, pt->first + i));
		}
		for (i = ev->u.cc.pc_first; i < ev->u.cc.npc; i++) {
			fputc('\n', out);
			entry(out, "...");
			fprintf(out, " 0x%" PRIx64, tb_pmclog_cc_slot(ev, i));
		}
		break;
	default:
		entry(out, "unknown");
		fprintf(out, " type=%u len=%u", ev->raw_type, ev->len);
		break;
	}
	fputc('\n', out);
}

static void json_u(FILE *out, const char *key, uint64_t v, int *first)
{
	fprintf(out, "%s\"%s\":%" PRIu64, *first ? "" : ",", key, v);
	*first = 0;
}

static void json_i(FILE *out, const char *key, int64_t v, int *first)
{
	fprintf(out, "%s\"%s\":%" PRId64, *first ? "" : ",", key, v);
	*first = 0;
}

static void json_s(FILE *out, const char *key, tb_pmclog_str s, int *first)
{
	fprintf(out, "%s\"%s\":", *first ? "" : ",", key);
	tb_cli_json_str(out, s.ptr, s.len);
	*first = 0;
}

static void json_fields(FILE *out, const tb_pmclog_event *ev)
{
	int f = 1;
	uint32_t i;
	switch (ev->type) {
	case TB_PMCLOG_INITIALIZE:
		json_u(out, "version", ev->u.i.version, &f);
		json_u(out, "arch", ev->u.i.arch, &f);
		if (!ev->legacy) {
			json_u(out, "tsc_freq", ev->u.i.tsc_freq, &f);
			fprintf(out, ",\"ts\":{\"tv_sec\":%" PRId64 ",\"tv_nsec\":%" PRId64 "}",
				ev->u.i.ts_sec, ev->u.i.ts_nsec);
			json_s(out, "cpuid", ev->u.i.cpuid, &f);
		}
		break;
	case TB_PMCLOG_PMCALLOCATE:
		json_u(out, "pmcid", ev->u.a.pmcid, &f);
		json_u(out, "event", ev->u.a.event, &f);
		json_u(out, "flags", ev->u.a.flags, &f);
		if (!ev->legacy)
			json_u(out, "rate", ev->u.a.rate, &f);
		break;
	case TB_PMCLOG_PMCALLOCATEDYN:
		json_u(out, "pmcid", ev->u.ad.pmcid, &f);
		json_u(out, "event", ev->u.ad.event, &f);
		json_u(out, "flags", ev->u.ad.flags, &f);
		if (ev->u.ad.name_at_40)
			json_u(out, "rate", ev->u.ad.rate, &f);
		json_s(out, "evname", ev->u.ad.evname, &f);
		break;
	case TB_PMCLOG_PMCATTACH:
		json_u(out, "pmcid", ev->u.t.pmcid, &f);
		json_i(out, "pid", ev->u.t.pid, &f);
		json_s(out, "pathname", ev->u.t.pathname, &f);
		break;
	case TB_PMCLOG_PMCDETACH:
		json_u(out, "pmcid", ev->u.d.pmcid, &f);
		json_i(out, "pid", ev->u.d.pid, &f);
		break;
	case TB_PMCLOG_PROCCSW:
		json_u(out, "pmcid", ev->u.c.pmcid, &f);
		json_i(out, "pid", ev->u.c.pid, &f);
		if (!ev->legacy)
			json_i(out, "tid", ev->u.c.tid, &f);
		json_u(out, "value", ev->u.c.value, &f);
		break;
	case TB_PMCLOG_PROCEXEC:
		json_i(out, "pid", ev->u.x.pid, &f);
		json_u(out, "pmcid", ev->u.x.pmcid, &f);
		if (ev->u.x.has_dyn) {
			json_u(out, "baseaddr", ev->u.x.baseaddr, &f);
			json_u(out, "dynaddr", ev->u.x.dynaddr, &f);
		} else {
			json_u(out, "entryaddr", ev->u.x.entryaddr, &f);
		}
		json_s(out, "pathname", ev->u.x.pathname, &f);
		break;
	case TB_PMCLOG_PROCEXIT:
		json_u(out, "pmcid", ev->u.e.pmcid, &f);
		json_i(out, "pid", ev->u.e.pid, &f);
		json_u(out, "value", ev->u.e.value, &f);
		break;
	case TB_PMCLOG_PROCFORK:
		json_i(out, "oldpid", ev->u.f.oldpid, &f);
		json_i(out, "newpid", ev->u.f.newpid, &f);
		break;
	case TB_PMCLOG_SYSEXIT:
		json_i(out, "pid", ev->u.se.pid, &f);
		break;
	case TB_PMCLOG_USERDATA:
		json_u(out, "userdata", ev->u.u.userdata, &f);
		break;
	case TB_PMCLOG_MAP_IN:
		json_i(out, "pid", ev->u.mi.pid, &f);
		json_u(out, "start", ev->u.mi.start, &f);
		json_s(out, "pathname", ev->u.mi.pathname, &f);
		break;
	case TB_PMCLOG_MAP_OUT:
		json_i(out, "pid", ev->u.mo.pid, &f);
		json_u(out, "start", ev->u.mo.start, &f);
		json_u(out, "end", ev->u.mo.end, &f);
		break;
	case TB_PMCLOG_PCSAMPLE:
		json_i(out, "pid", ev->u.s.pid, &f);
		json_u(out, "pc", ev->u.s.pc, &f);
		json_u(out, "pmcid", ev->u.s.pmcid, &f);
		json_u(out, "usermode", ev->u.s.usermode, &f);
		break;
	case TB_PMCLOG_THR_CREATE:
		json_i(out, "tid", ev->u.tc.tid, &f);
		json_i(out, "pid", ev->u.tc.pid, &f);
		json_u(out, "flags", ev->u.tc.flags, &f);
		json_s(out, "tdname", ev->u.tc.tdname, &f);
		break;
	case TB_PMCLOG_THR_EXIT:
		json_i(out, "tid", ev->u.te.tid, &f);
		break;
	case TB_PMCLOG_PROC_CREATE:
		json_i(out, "pid", ev->u.pc.pid, &f);
		json_u(out, "flags", ev->u.pc.flags, &f);
		json_s(out, "pcomm", ev->u.pc.pcomm, &f);
		break;
	case TB_PMCLOG_CALLCHAIN:
		json_i(out, "pid", ev->u.cc.pid, &f);
		if (!ev->legacy)
			json_i(out, "tid", ev->u.cc.tid, &f);
		json_u(out, "pmcid", ev->u.cc.pmcid, &f);
		json_u(out, "cpuflags", ev->u.cc.cpuflags, &f);
		json_u(out, "npc", ev->u.cc.npc, &f);
		fputs(",\"pc\":[", out);
		for (i = 0; i < ev->u.cc.npc; i++)
			fprintf(out, "%s%" PRIu64, i ? "," : "", tb_pmclog_cc_slot(ev, i));
		fputc(']', out);
		if (ev->u.cc.cpuflags & TB_PMCLOG_CC_MULTIPART) {
			json_u(out, "pc_first", ev->u.cc.pc_first, &f);
			fputs(",\"parts\":[", out);
			for (i = 0; i < ev->u.cc.nparts; i++)
				fprintf(out, "%s{\"type\":%u,\"first\":%" PRIu32 ",\"nslots\":%u}",
					i ? "," : "", ev->u.cc.parts[i].type,
					ev->u.cc.parts[i].first, ev->u.cc.parts[i].nslots);
			fputc(']', out);
		}
		break;
	case TB_PMCLOG_UNKNOWN:
		json_u(out, "raw_type", ev->raw_type, &f);
		json_u(out, "len", ev->len, &f);
		break;
	default: /* closelog, dropnotify: no fields */
		break;
	}
}

static void print_json(FILE *out, const tb_pmclog_event *ev)
{
	fprintf(out, "{\"offset\":%" PRIu64 ",\"type\":\"%s\",", ev->offset,
		tb_pmclog_type_name(ev->type));
	if (ev->legacy)
		fprintf(out, "\"ts\":{\"tv_sec\":%" PRIu32 ",\"tv_nsec\":%" PRIu32 "}",
			ev->ts_sec, ev->ts_nsec);
	else
		fprintf(out, "\"tsc\":%" PRIu64, ev->tsc);
	fputs(",\"fields\":{", out);
	json_fields(out, ev);
	fputs("}}\n", out);
}

static int usage(void)
{
	fprintf(stderr, "usage: tracebound pmclog [--json] [--addr-size 4|8] "
			"[--stop-at-closelog] FILE|-\n");
	return TB_EXIT_USAGE;
}

int tb_cmd_pmclog(int argc, char **argv)
{
	tb_pmclog_options opt;
	tb_pmclog *p;
	tb_pmclog_event ev;
	tb_error err;
	const char *path = NULL, *name;
	uint8_t *buf;
	int json = 0, fd, i, rc = TB_EXIT_OK;
	memset(&opt, 0, sizeof(opt));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--stop-at-closelog")) {
			opt.flags |= TB_PMCLOG_STOP_AT_CLOSELOG;
		} else if (!strcmp(argv[i], "--addr-size") && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "4") && strcmp(argv[i], "8"))
				return usage();
			opt.addr_size = (unsigned)atoi(argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			return usage();
		} else if (!path) {
			path = argv[i];
		} else {
			return usage();
		}
	}
	if (!path)
		return usage();
	name = strcmp(path, "-") ? path : "(stdin)";
	fd = strcmp(path, "-") ? open(path, O_RDONLY) : 0;
	if (fd < 0) {
		fprintf(stderr, "tracebound: %s: %s\n", path, strerror(errno));
		return TB_EXIT_USAGE;
	}
	p = malloc(sizeof(*p));
	buf = malloc(READ_CHUNK);
	if (!p || !buf) {
		fprintf(stderr, "tracebound: out of memory\n");
		rc = TB_EXIT_USAGE;
		goto out;
	}
	tb_pmclog_init(p, &opt);
	for (;;) {
		tb_status st = tb_pmclog_next(p, &ev, &err);
		if (st == TB_OK) {
			if (json)
				print_json(stdout, &ev);
			else
				print_text(stdout, &ev);
			continue;
		}
		if (st == TB_NEED_MORE) {
			ssize_t n = read(fd, buf, READ_CHUNK);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				fflush(stdout);
				fprintf(stderr, "tracebound: %s: %s\n", name, strerror(errno));
				rc = TB_EXIT_USAGE;
				break;
			}
			if (n == 0)
				tb_pmclog_close(p);
			else if (tb_pmclog_feed(p, buf, (size_t)n) != TB_OK)
				abort(); /* next() said the last feed was used up */
			continue;
		}
		if (st != TB_END) {
			fflush(stdout);
			fprintf(stderr, "tracebound: %s: offset %" PRIu64 ": %s: %s\n",
				name, err.offset, tb_strerror(err.status), err.what);
			rc = TB_EXIT_MALFORMED;
		}
		break;
	}
	if (fflush(stdout) != 0 && rc == TB_EXIT_OK) {
		fprintf(stderr, "tracebound: write error\n");
		rc = TB_EXIT_USAGE;
	}
out:
	free(buf);
	free(p);
	if (fd > 0)
		close(fd);
	return rc;
}
