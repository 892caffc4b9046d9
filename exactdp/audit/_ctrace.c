/*
 * The operation count of exactdp.audit.bytecode as a C trace function (CPython 3.11).
 *
 * exactdp/audit/bytecode.py describes what is counted and holds the Python trace functions
 * that count the same; this file is their rules in C, so that an event costs a C call
 * instead of a call of a Python function (with its locals copied in and out of a dict).
 * Everything decided about a code object -- whose it is (the audited code's, exactdp's,
 * the entry that calls the audited code), which offsets are operations, where a line
 * event stands for the rest of its line -- is computed once per code object by the
 * Python function handed to Tracer(describe) and kept on the code object (co_extra).
 *
 * Per event (the Python tracer's rules, exactly):
 *   call:      a frame is audited when its caller is audited and its code is not
 *              exactdp's, or its caller is an entry and its code is the audited code's;
 *              an audited frame gets f_trace = the tracer, opcode events on, line events
 *              where its code has a line table;
 *   opcode:    an operation counts one; an offset of the line table counts the rest of
 *              its line at once and turns opcode events off;
 *   line:      an offset of the line table counts the rest of its line (opcode events
 *              off), any other offset turns opcode events on;
 *   exception: with opcode events off, the operations counted after the instruction that
 *              raised are taken back, and opcode events go on.
 * Only frames whose f_trace is the tracer are counted.
 *
 * On another Python version the module raises ImportError on import and the Python
 * tracer is used (the same counts).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define CTRACE_SUPPORTED 1
#define Py_BUILD_CORE 1
#include "internal/pycore_frame.h"
#undef Py_BUILD_CORE
#endif

#define CTRACE_VERSION 1

#ifdef CTRACE_SUPPORTED

enum { KIND_OWN = 0, KIND_ENTRY = 1, KIND_WITH = 2, KIND_OTHER = 3 };
enum { MODE_NONE = 0, MODE_OPCODES = 1, MODE_LINES = 2 };

/* What is known of one code object (kept in its co_extra slot). */
typedef struct {
    int kind;
    int mode;
    Py_ssize_t n;       /* code units */
    unsigned char *ops; /* ops[i]: the instruction at offset 2 i is an operation */
    long *table;        /* table[i]: the line table's entry at offset 2 i, or -1 */
    unsigned long generation;
} CodeInfo;

static Py_ssize_t extra_index = -1;
/* descriptions of an older generation are made again (forget()) */
static unsigned long generation = 1;

static void
free_info(void *p)
{
    CodeInfo *info = (CodeInfo *)p;
    if (info == NULL) {
        return;
    }
    PyMem_RawFree(info->ops);
    PyMem_RawFree(info->table);
    PyMem_RawFree(info);
}

typedef struct {
    PyObject_HEAD
    long long count;
    PyObject *describe; /* describe(code) -> (kind, mode, ops, table) */
} Tracer;

static PyTypeObject TracerType;

static int trace(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg);

/* The description of ``code``, computed by the Python describe function on first use and
 * again after forget() (a new generation: in place, the slot keeps its struct). */
static CodeInfo *
info_of(Tracer *self, PyObject *code)
{
    void *extra = NULL;
    if (_PyCode_GetExtra(code, extra_index, &extra) < 0) {
        return NULL;
    }
    CodeInfo *info = (CodeInfo *)extra;
    if (info != NULL && info->generation == generation) {
        return info;
    }
    PyObject *described = PyObject_CallOneArg(self->describe, code);
    if (described == NULL) {
        return NULL;
    }
    int kind, mode;
    PyObject *ops, *table;
    if (!PyArg_ParseTuple(described, "iiOO", &kind, &mode, &ops, &table)) {
        Py_DECREF(described);
        return NULL;
    }
    Py_ssize_t n = 0;
    unsigned char *flags = NULL;
    long *entries = NULL;
    if (mode != MODE_NONE) {
        /* ops: bytes, one per code unit; table: a list of ints, one per code unit */
        if (!PyBytes_Check(ops) || !PyList_Check(table)
                || PyList_GET_SIZE(table) != PyBytes_GET_SIZE(ops)) {
            PyErr_SetString(PyExc_TypeError, "describe(code) must give bytes and a list "
                                             "of the same length");
            goto fail;
        }
        n = PyBytes_GET_SIZE(ops);
        flags = PyMem_RawMalloc(n ? n : 1);
        entries = PyMem_RawMalloc((n ? n : 1) * sizeof(long));
        if (flags == NULL || entries == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        memcpy(flags, PyBytes_AS_STRING(ops), n);
        for (Py_ssize_t i = 0; i < n; i++) {
            long v = PyLong_AsLong(PyList_GET_ITEM(table, i));
            if (v == -1 && PyErr_Occurred()) {
                goto fail;
            }
            entries[i] = v;
        }
    }
    Py_DECREF(described);
    if (info == NULL) {
        info = PyMem_RawCalloc(1, sizeof(CodeInfo));
        if (info == NULL) {
            PyMem_RawFree(flags);
            PyMem_RawFree(entries);
            PyErr_NoMemory();
            return NULL;
        }
        if (_PyCode_SetExtra(code, extra_index, info) < 0) {
            PyMem_RawFree(info);
            PyMem_RawFree(flags);
            PyMem_RawFree(entries);
            return NULL;
        }
    }
    PyMem_RawFree(info->ops);
    PyMem_RawFree(info->table);
    info->kind = kind;
    info->mode = mode;
    info->n = n;
    info->ops = flags;
    info->table = entries;
    info->generation = generation;
    return info;
fail:
    Py_DECREF(described);
    PyMem_RawFree(flags);
    PyMem_RawFree(entries);
    return NULL;
}

static int
on_call(Tracer *self, PyFrameObject *frame)
{
    PyFrameObject *back = PyFrame_GetBack(frame);
    if (back == NULL) {
        return 0;
    }
    PyObject *code = (PyObject *)PyFrame_GetCode(frame);
    int audited = 0, err = 0;
    CodeInfo *info = info_of(self, code);
    if (info == NULL) {
        err = -1;
    }
    else if (back->f_trace != (PyObject *)self) {
        PyObject *caller = (PyObject *)PyFrame_GetCode(back);
        CodeInfo *ci = info_of(self, caller);
        Py_DECREF(caller);
        if (ci == NULL) {
            err = -1;
        }
        else {
            audited = ci->kind == KIND_ENTRY && info->kind == KIND_OTHER;
        }
    }
    else {
        audited = info->kind != KIND_OWN;
    }
    if (!err && audited) {
        frame->f_trace_opcodes = 1;
        frame->f_trace_lines = info->mode == MODE_LINES;
        Py_INCREF(self);
        Py_XSETREF(frame->f_trace, (PyObject *)self);
    }
    else if (!err && frame->f_trace == NULL) {
        /* not counted: no line event for it (the Python tracer ignores them) */
        frame->f_trace_lines = 0;
    }
    Py_DECREF(code);
    Py_DECREF(back);
    return err;
}

static int
trace(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    Tracer *self = (Tracer *)obj;
    if (what == PyTrace_CALL) {
        return on_call(self, frame);
    }
    if (frame->f_trace != obj
            || (what != PyTrace_OPCODE && what != PyTrace_LINE && what != PyTrace_EXCEPTION)) {
        return 0;
    }
    PyObject *code = (PyObject *)PyFrame_GetCode(frame);
    CodeInfo *info = info_of(self, code);
    Py_DECREF(code);
    if (info == NULL) {
        return -1;
    }
    int lasti = PyFrame_GetLasti(frame);
    Py_ssize_t i = lasti < 0 ? -1 : lasti / 2;
    int inside = i >= 0 && i < info->n;
    if (info->mode == MODE_LINES) {
        long n = inside ? info->table[i] : -1;
        if (what == PyTrace_OPCODE) {
            if (n >= 0) {
                self->count += n;
                frame->f_trace_opcodes = 0;
            }
            else if (inside && info->ops[i]) {
                self->count += 1;
            }
        }
        else if (what == PyTrace_LINE) {
            if (n < 0) {
                frame->f_trace_opcodes = 1;
            }
            else {
                self->count += n;
                frame->f_trace_opcodes = 0;
            }
        }
        else if (!frame->f_trace_opcodes) { /* an exception */
            if (n >= 0) {
                self->count -= n - info->ops[i];
            }
            frame->f_trace_opcodes = 1;
        }
    }
    else if (info->mode == MODE_OPCODES) {
        if (what == PyTrace_OPCODE && inside && info->ops[i]) {
            self->count += 1;
        }
    }
    return 0;
}

/* ---- the Tracer type ---- */

static PyObject *
Tracer_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *describe;
    static char *kwlist[] = {"describe", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Tracer", kwlist, &describe)) {
        return NULL;
    }
    if (!PyCallable_Check(describe)) {
        PyErr_SetString(PyExc_TypeError, "describe must be callable");
        return NULL;
    }
    Tracer *self = (Tracer *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->count = 0;
    Py_INCREF(describe);
    self->describe = describe;
    return (PyObject *)self;
}

static int
Tracer_traverse(Tracer *self, visitproc visit, void *arg)
{
    Py_VISIT(self->describe);
    return 0;
}

static int
Tracer_clear(Tracer *self)
{
    Py_CLEAR(self->describe);
    return 0;
}

static void
Tracer_dealloc(Tracer *self)
{
    PyObject_GC_UnTrack(self);
    Tracer_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Called as a Python trace function: only when code set it back with sys.settrace after
 * taking it from sys.gettrace.  It installs itself as the C trace function again and
 * handles the event as that would. */
static PyObject *
Tracer_call(Tracer *self, PyObject *args, PyObject *kwds)
{
    PyFrameObject *frame;
    PyObject *event, *arg;
    if (!PyArg_ParseTuple(args, "O!UO", &PyFrame_Type, &frame, &event, &arg)) {
        return NULL;
    }
    int what;
    if (PyUnicode_CompareWithASCIIString(event, "call") == 0) {
        what = PyTrace_CALL;
    }
    else if (PyUnicode_CompareWithASCIIString(event, "line") == 0) {
        what = PyTrace_LINE;
    }
    else if (PyUnicode_CompareWithASCIIString(event, "opcode") == 0) {
        what = PyTrace_OPCODE;
    }
    else if (PyUnicode_CompareWithASCIIString(event, "exception") == 0) {
        what = PyTrace_EXCEPTION;
    }
    else {
        what = PyTrace_RETURN;
    }
    Py_INCREF(self);
    PyEval_SetTrace(trace, (PyObject *)self);
    int err = trace((PyObject *)self, frame, what, arg);
    Py_DECREF(self);
    if (err) {
        return NULL;
    }
    if (frame->f_trace == (PyObject *)self) {
        Py_INCREF(self);
        return (PyObject *)self;
    }
    Py_RETURN_NONE;
}

static PyObject *
Tracer_get_count(Tracer *self, void *closure)
{
    return PyLong_FromLongLong(self->count);
}

static int
Tracer_set_count(Tracer *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "count cannot be deleted");
        return -1;
    }
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    self->count = v;
    return 0;
}

static PyGetSetDef Tracer_getset[] = {
    {"count", (getter)Tracer_get_count, (setter)Tracer_set_count,
     "the operations counted so far", NULL},
    {NULL}
};

static PyTypeObject TracerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "exactdp.audit._ctrace.Tracer",
    .tp_basicsize = sizeof(Tracer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Tracer(describe): the operation count as a C trace function",
    .tp_new = Tracer_new,
    .tp_dealloc = (destructor)Tracer_dealloc,
    .tp_traverse = (traverseproc)Tracer_traverse,
    .tp_clear = (inquiry)Tracer_clear,
    .tp_call = (ternaryfunc)Tracer_call,
    .tp_getset = Tracer_getset,
};

/* ---- a trace function taken off and put back (gettrace / settrace) ---- */

typedef struct {
    PyObject_HEAD
    Py_tracefunc func;
    PyObject *obj;
} Saved;

static int
Saved_traverse(Saved *self, visitproc visit, void *arg)
{
    Py_VISIT(self->obj);
    return 0;
}

static int
Saved_clear(Saved *self)
{
    Py_CLEAR(self->obj);
    return 0;
}

static void
Saved_dealloc(Saved *self)
{
    PyObject_GC_UnTrack(self);
    Saved_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject SavedType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "exactdp.audit._ctrace.Saved",
    .tp_basicsize = sizeof(Saved),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "a trace function as gettrace() gives it, for settrace()",
    .tp_dealloc = (destructor)Saved_dealloc,
    .tp_traverse = (traverseproc)Saved_traverse,
    .tp_clear = (inquiry)Saved_clear,
};

/* gettrace(): what settrace() puts back -- the Tracer counting now, None when nothing is
 * traced, or another trace function as a Saved (the pair CPython holds, put back exactly). */
static PyObject *
ctrace_gettrace(PyObject *module, PyObject *unused)
{
    PyThreadState *tstate = PyThreadState_Get();
    Py_tracefunc func = tstate->c_tracefunc;
    PyObject *obj = tstate->c_traceobj;
    if (func == NULL) {
        Py_RETURN_NONE;
    }
    if (func == trace) {
        Py_INCREF(obj);
        return obj;
    }
    Saved *saved = PyObject_GC_New(Saved, &SavedType);
    if (saved == NULL) {
        return NULL;
    }
    saved->func = func;
    Py_XINCREF(obj);
    saved->obj = obj;
    PyObject_GC_Track(saved);
    return (PyObject *)saved;
}

/* settrace(token): tracing off (None), counting with a Tracer, a Saved trace function put
 * back, or any other object set as sys.settrace sets it. */
static PyObject *
ctrace_settrace(PyObject *module, PyObject *token)
{
    if (token == Py_None) {
        PyEval_SetTrace(NULL, NULL);
    }
    else if (Py_IS_TYPE(token, &TracerType)) {
        PyEval_SetTrace(trace, token);
    }
    else if (Py_IS_TYPE(token, &SavedType)) {
        Saved *saved = (Saved *)token;
        PyEval_SetTrace(saved->func, saved->obj);
    }
    else {
        PyObject *settrace = PySys_GetObject("settrace"); /* borrowed */
        if (settrace == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "sys.settrace is missing");
            return NULL;
        }
        return PyObject_CallOneArg(settrace, token);
    }
    Py_RETURN_NONE;
}

/* audited(frame): whether ``frame`` is counted by ``tracer``. */
static PyObject *
ctrace_audited(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "audited(tracer, frame)");
        return NULL;
    }
    PyObject *frame = args[1];
    if (frame == Py_None || !PyFrame_Check(frame)) {
        Py_RETURN_FALSE;
    }
    return PyBool_FromLong(((PyFrameObject *)frame)->f_trace == args[0]);
}

/* identical(groups): whether every key of every group is bound to its value, by identity
 * -- groups: a tuple of (dict, keys, values), keys and values tuples of one length; a key
 * missing from its dict is not in place (False).  (Counting._intact: once per run.) */
static PyObject *
ctrace_identical(PyObject *module, PyObject *groups)
{
    if (!PyTuple_CheckExact(groups)) {
        PyErr_SetString(PyExc_TypeError, "identical(groups): a tuple of (dict, keys, values)");
        return NULL;
    }
    for (Py_ssize_t g = 0; g < PyTuple_GET_SIZE(groups); g++) {
        PyObject *group = PyTuple_GET_ITEM(groups, g);
        if (!PyTuple_CheckExact(group) || PyTuple_GET_SIZE(group) != 3
                || !PyDict_Check(PyTuple_GET_ITEM(group, 0))
                || !PyTuple_CheckExact(PyTuple_GET_ITEM(group, 1))
                || !PyTuple_CheckExact(PyTuple_GET_ITEM(group, 2))
                || PyTuple_GET_SIZE(PyTuple_GET_ITEM(group, 1))
                   != PyTuple_GET_SIZE(PyTuple_GET_ITEM(group, 2))) {
            PyErr_SetString(PyExc_TypeError, "identical(groups): each group a (dict, keys, "
                                             "values) of tuples of one length");
            return NULL;
        }
        PyObject *space = PyTuple_GET_ITEM(group, 0);
        PyObject *keys = PyTuple_GET_ITEM(group, 1);
        PyObject *values = PyTuple_GET_ITEM(group, 2);
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(keys); i++) {
            PyObject *now = PyDict_GetItemWithError(space, PyTuple_GET_ITEM(keys, i));
            if (now == NULL && PyErr_Occurred()) {
                return NULL;
            }
            if (now != PyTuple_GET_ITEM(values, i)) {
                Py_RETURN_FALSE;
            }
        }
    }
    Py_RETURN_TRUE;
}

/* forget(): every code object is described again on its next event. */
static PyObject *
ctrace_forget(PyObject *module, PyObject *unused)
{
    generation++;
    Py_RETURN_NONE;
}

static PyObject *
ctrace_version(PyObject *module, PyObject *unused)
{
    return PyLong_FromLong(CTRACE_VERSION);
}

static PyMethodDef ctrace_methods[] = {
    {"gettrace", ctrace_gettrace, METH_NOARGS,
     "gettrace(): the trace function now, as settrace() takes it back"},
    {"settrace", ctrace_settrace, METH_O,
     "settrace(token): None (off), a Tracer (count with it) or what gettrace() gave"},
    {"audited", (PyCFunction)(void (*)(void))ctrace_audited, METH_FASTCALL,
     "audited(tracer, frame): whether the frame is counted by the tracer"},
    {"identical", ctrace_identical, METH_O,
     "identical(groups): whether each (dict, keys, values) binds every key to its value"},
    {"forget", ctrace_forget, METH_NOARGS,
     "forget(): describe every code object again on its next event"},
    {"version", ctrace_version, METH_NOARGS, "the C file's version"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef ctrace_module = {
    PyModuleDef_HEAD_INIT, "_ctrace",
    "The operation count of exactdp.audit.bytecode as a C trace function.", -1,
    ctrace_methods
};

PyMODINIT_FUNC
PyInit__ctrace(void)
{
    if (extra_index < 0) {
        extra_index = _PyEval_RequestCodeExtraIndex(free_info);
        if (extra_index < 0) {
            PyErr_SetString(PyExc_ImportError, "no code-object extra slot left");
            return NULL;
        }
    }
    if (PyType_Ready(&TracerType) < 0 || PyType_Ready(&SavedType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&ctrace_module);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&TracerType);
    if (PyModule_AddObject(m, "Tracer", (PyObject *)&TracerType) < 0) {
        Py_DECREF(&TracerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

#else /* another Python: the Python tracer is used */

static struct PyModuleDef ctrace_module = {
    PyModuleDef_HEAD_INIT, "_ctrace", NULL, -1, NULL
};

PyMODINIT_FUNC
PyInit__ctrace(void)
{
    PyErr_SetString(PyExc_ImportError,
                    "the C operation count is written for CPython 3.11 (the Python one is used)");
    return NULL;
}

#endif
