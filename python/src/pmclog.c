/*
 * tracebound.pmclog(path): every record of a FreeBSD hwpmc log as a dict,
 * shaped like `tracebound pmclog --json`'s objects:
 *   {"offset": N, "type": "callchain", "tsc": T | "ts": {...}, "fields": {...}}
 * Records are decoded in batches with the GIL released (the file is mapped
 * and fed whole, so every record's pointers stay inside the mapping).
 */
#include "tbpy.h"

#include <errno.h>
#include <string.h>

#define PMC_BATCH 1024u

static int set(PyObject *d, const char *k, PyObject *v)
{
	int rc;
	if (!v)
		return -1;
	rc = PyDict_SetItemString(d, k, v);
	Py_DECREF(v);
	return rc;
}

static int set_u(PyObject *d, const char *k, uint64_t v)
{
	return set(d, k, PyLong_FromUnsignedLongLong(v));
}

static int set_i(PyObject *d, const char *k, int64_t v)
{
	return set(d, k, PyLong_FromLongLong(v));
}

static int set_s(PyObject *d, const char *k, tb_pmclog_str s)
{
	return set(d, k, tbpy_str(s.ptr, s.len));
}

static PyObject *timespec(int64_t sec, int64_t nsec)
{
	return Py_BuildValue("{sLsL}", "tv_sec", (long long)sec, "tv_nsec", (long long)nsec);
}

/* The "fields" object of one record (the CLI's json_fields, as a dict). */
static PyObject *fields(const tb_pmclog_event *ev)
{
	PyObject *d = PyDict_New();
	int rc = 0;
	uint32_t i;
	if (!d)
		return NULL;
	switch (ev->type) {
	case TB_PMCLOG_INITIALIZE:
		rc |= set_u(d, "version", ev->u.i.version);
		rc |= set_u(d, "arch", ev->u.i.arch);
		if (!ev->legacy) {
			rc |= set_u(d, "tsc_freq", ev->u.i.tsc_freq);
			rc |= set(d, "ts", timespec(ev->u.i.ts_sec, ev->u.i.ts_nsec));
			rc |= set_s(d, "cpuid", ev->u.i.cpuid);
		}
		break;
	case TB_PMCLOG_PMCALLOCATE:
		rc |= set_u(d, "pmcid", ev->u.a.pmcid);
		rc |= set_u(d, "event", ev->u.a.event);
		rc |= set_u(d, "flags", ev->u.a.flags);
		if (!ev->legacy)
			rc |= set_u(d, "rate", ev->u.a.rate);
		break;
	case TB_PMCLOG_PMCALLOCATEDYN:
		rc |= set_u(d, "pmcid", ev->u.ad.pmcid);
		rc |= set_u(d, "event", ev->u.ad.event);
		rc |= set_u(d, "flags", ev->u.ad.flags);
		if (ev->u.ad.name_at_40)
			rc |= set_u(d, "rate", ev->u.ad.rate);
		rc |= set_s(d, "evname", ev->u.ad.evname);
		break;
	case TB_PMCLOG_PMCATTACH:
		rc |= set_u(d, "pmcid", ev->u.t.pmcid);
		rc |= set_i(d, "pid", ev->u.t.pid);
		rc |= set_s(d, "pathname", ev->u.t.pathname);
		break;
	case TB_PMCLOG_PMCDETACH:
		rc |= set_u(d, "pmcid", ev->u.d.pmcid);
		rc |= set_i(d, "pid", ev->u.d.pid);
		break;
	case TB_PMCLOG_PROCCSW:
		rc |= set_u(d, "pmcid", ev->u.c.pmcid);
		rc |= set_i(d, "pid", ev->u.c.pid);
		if (!ev->legacy)
			rc |= set_i(d, "tid", ev->u.c.tid);
		rc |= set_u(d, "value", ev->u.c.value);
		break;
	case TB_PMCLOG_PROCEXEC:
		rc |= set_i(d, "pid", ev->u.x.pid);
		rc |= set_u(d, "pmcid", ev->u.x.pmcid);
		if (ev->u.x.has_dyn) {
			rc |= set_u(d, "baseaddr", ev->u.x.baseaddr);
			rc |= set_u(d, "dynaddr", ev->u.x.dynaddr);
		} else {
			rc |= set_u(d, "entryaddr", ev->u.x.entryaddr);
		}
		rc |= set_s(d, "pathname", ev->u.x.pathname);
		break;
	case TB_PMCLOG_PROCEXIT:
		rc |= set_u(d, "pmcid", ev->u.e.pmcid);
		rc |= set_i(d, "pid", ev->u.e.pid);
		rc |= set_u(d, "value", ev->u.e.value);
		break;
	case TB_PMCLOG_PROCFORK:
		rc |= set_i(d, "oldpid", ev->u.f.oldpid);
		rc |= set_i(d, "newpid", ev->u.f.newpid);
		break;
	case TB_PMCLOG_SYSEXIT:
		rc |= set_i(d, "pid", ev->u.se.pid);
		break;
	case TB_PMCLOG_USERDATA:
		rc |= set_u(d, "userdata", ev->u.u.userdata);
		break;
	case TB_PMCLOG_MAP_IN:
		rc |= set_i(d, "pid", ev->u.mi.pid);
		rc |= set_u(d, "start", ev->u.mi.start);
		rc |= set_s(d, "pathname", ev->u.mi.pathname);
		break;
	case TB_PMCLOG_MAP_OUT:
		rc |= set_i(d, "pid", ev->u.mo.pid);
		rc |= set_u(d, "start", ev->u.mo.start);
		rc |= set_u(d, "end", ev->u.mo.end);
		break;
	case TB_PMCLOG_PCSAMPLE:
		rc |= set_i(d, "pid", ev->u.s.pid);
		rc |= set_u(d, "pc", ev->u.s.pc);
		rc |= set_u(d, "pmcid", ev->u.s.pmcid);
		rc |= set_u(d, "usermode", ev->u.s.usermode);
		break;
	case TB_PMCLOG_THR_CREATE:
		rc |= set_i(d, "tid", ev->u.tc.tid);
		rc |= set_i(d, "pid", ev->u.tc.pid);
		rc |= set_u(d, "flags", ev->u.tc.flags);
		rc |= set_s(d, "tdname", ev->u.tc.tdname);
		break;
	case TB_PMCLOG_THR_EXIT:
		rc |= set_i(d, "tid", ev->u.te.tid);
		break;
	case TB_PMCLOG_PROC_CREATE:
		rc |= set_i(d, "pid", ev->u.pc.pid);
		rc |= set_u(d, "flags", ev->u.pc.flags);
		rc |= set_s(d, "pcomm", ev->u.pc.pcomm);
		break;
	case TB_PMCLOG_CALLCHAIN: {
		PyObject *pcs;
		rc |= set_i(d, "pid", ev->u.cc.pid);
		if (!ev->legacy)
			rc |= set_i(d, "tid", ev->u.cc.tid);
		rc |= set_u(d, "pmcid", ev->u.cc.pmcid);
		rc |= set_u(d, "cpuflags", ev->u.cc.cpuflags);
		rc |= set_u(d, "npc", ev->u.cc.npc);
		pcs = PyList_New(ev->u.cc.npc);
		for (i = 0; pcs && i < ev->u.cc.npc; i++) {
			PyObject *o = PyLong_FromUnsignedLongLong(tb_pmclog_cc_slot(ev, i));
			if (!o) {
				Py_CLEAR(pcs);
				break;
			}
			PyList_SET_ITEM(pcs, i, o);
		}
		rc |= set(d, "pc", pcs);
		if (ev->u.cc.cpuflags & TB_PMCLOG_CC_MULTIPART) {
			PyObject *parts = PyList_New(0);
			rc |= set_u(d, "pc_first", ev->u.cc.pc_first);
			for (i = 0; parts && i < ev->u.cc.nparts; i++) {
				PyObject *o = Py_BuildValue("{sIsIsI}", "type",
							    (unsigned)ev->u.cc.parts[i].type, "first",
							    ev->u.cc.parts[i].first, "nslots",
							    (unsigned)ev->u.cc.parts[i].nslots);
				if (!o || PyList_Append(parts, o) < 0) {
					Py_XDECREF(o);
					Py_CLEAR(parts);
					break;
				}
				Py_DECREF(o);
			}
			rc |= set(d, "parts", parts);
		}
		break;
	}
	case TB_PMCLOG_UNKNOWN:
		rc |= set_u(d, "raw_type", ev->raw_type);
		rc |= set_u(d, "len", ev->len);
		break;
	default: /* closelog, dropnotify: no fields */
		break;
	}
	if (rc) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

static PyObject *record(const tb_pmclog_event *ev)
{
	PyObject *d = PyDict_New();
	if (!d)
		return NULL;
	if (set_u(d, "offset", ev->offset) ||
	    set(d, "type", PyUnicode_FromString(tb_pmclog_type_name(ev->type))) ||
	    (ev->legacy ? set(d, "ts", timespec(ev->ts_sec, ev->ts_nsec))
			: set_u(d, "tsc", ev->tsc)) ||
	    set(d, "fields", fields(ev))) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

PyObject *tbpy_pmclog(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "addr_size", "stop_at_closelog", NULL };
	PyObject *path = NULL, *out = NULL;
	unsigned addr_size = 0;
	int stop = 0, rc;
	tbpy_map m;
	tb_pmclog *p;
	tb_pmclog_options opt;
	tb_pmclog_event *batch;
	tb_error err;
	tb_status st = TB_OK;
	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|Ip", kwlist, PyUnicode_FSConverter, &path,
					 &addr_size, &stop))
		return NULL;
	if (addr_size != 0 && addr_size != 4 && addr_size != 8) {
		Py_DECREF(path);
		PyErr_SetString(PyExc_ValueError, "addr_size: 0 (guess), 4 or 8");
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = tbpy_map_file(PyBytes_AS_STRING(path), &m);
	Py_END_ALLOW_THREADS
	if (rc) {
		PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
		Py_DECREF(path);
		return NULL;
	}
	Py_DECREF(path);
	p = PyMem_RawMalloc(sizeof(*p));
	batch = PyMem_RawMalloc(PMC_BATCH * sizeof(*batch));
	out = PyList_New(0);
	if (!p || !batch || !out) {
		if (!PyErr_Occurred())
			PyErr_NoMemory();
		Py_CLEAR(out);
		goto done;
	}
	memset(&opt, 0, sizeof(opt));
	opt.addr_size = addr_size;
	if (stop)
		opt.flags |= TB_PMCLOG_STOP_AT_CLOSELOG;
	if (tb_pmclog_open_buffer(p, &opt, m.data, m.len) != TB_OK) {
		tbpy_raise("pmclog", TB_ERR_ARG, 0, "cannot start the decoder");
		Py_CLEAR(out);
		goto done;
	}
	while (st == TB_OK) {
		size_t n = 0, i;
		Py_BEGIN_ALLOW_THREADS
		while (n < PMC_BATCH && (st = tb_pmclog_next(p, &batch[n], &err)) == TB_OK)
			n++;
		Py_END_ALLOW_THREADS
		for (i = 0; i < n; i++) {
			PyObject *r = record(&batch[i]);
			if (!r || PyList_Append(out, r) < 0) {
				Py_XDECREF(r);
				Py_CLEAR(out);
				goto done;
			}
			Py_DECREF(r);
		}
	}
	if (st == TB_NEED_MORE) /* cannot happen after close: say so, never loop */
		st = TB_ERR_TRUNCATED;
	if (st != TB_END) {
		PyObject *exc, *type, *tb;
		tbpy_raise("pmclog", err.status ? err.status : st, err.offset, err.what);
		/* the records before the fault travel with the error */
		PyErr_Fetch(&type, &exc, &tb);
		PyErr_NormalizeException(&type, &exc, &tb);
		if (exc)
			PyObject_SetAttrString(exc, "records", out);
		PyErr_Restore(type, exc, tb);
		Py_CLEAR(out);
	}
done:
	PyMem_RawFree(p);
	PyMem_RawFree(batch);
	tbpy_unmap(&m);
	return out;
}
