/*
 * The lazy draw chain of exactdp.audit.facade_lazy in C (CPython 3.11): an optional
 * accelerator, the Python code of facade_lazy.py, explore.py, per_input.py and
 * facade_random.py being the reference (the same answers, cells, coins and records).
 *
 *   Lazy          the base type of LazyUnit / LazyInt: the members _cell, _ctx, _offset and
 *                 the comparisons.  A comparison with an int (not bool) or a finite float
 *                 (read exactly by float.as_integer_ratio) cuts the cell here with integer
 *                 arithmetic: ``(offset + j) / scale OP x`` holds for j in [lo, cut) or
 *                 [cut, hi), cut = ceil(x * scale - offset) (<, >=) or floor(...) + 1
 *                 (<=, >); == / != cut at j = x * scale - offset when that is an integer.
 *                 Every other operand goes to the Python method _compare, and == on the
 *                 inside of a cell to _split (three parts), as in facade_lazy.py.
 *   the coin      the context's coin: when it is GuardedSource.explore_coin or
 *                 ExploringSource.explore_coin bound to an instance of exactly that class,
 *                 its common cases run here (a replayed draw that matches the run it
 *                 replays; a new draw taking option 0 with no chooser), every other case
 *                 calls the Python method itself before anything is changed.
 *   random        RandomFacade.random: the caller found as there (past the guards'
 *                 forwarders); the audited code's call gets a new LazyUnit here when the
 *                 engine's run is live and lazy (engine.unit's common case), every other
 *                 call runs the Python method.
 *   randrange     RandomFacade.randrange(n), n an int >= 1: on a live run with lazy
 *                 integer draws and n >= 2 a new LazyInt here (engine.integer's common
 *                 case), else engine.integer's draw(n) as below; every other call the
 *                 Python method.
 *   the draw      _Engine.draw(n) on a live run, n <= exact_limit, through a GuardedSource
 *                 of an ExploringSource or that source itself (a replay in another
 *                 process; the facades' plain integer draws): the charge (if guarded),
 *                 the event, the replayed draw that matches the run it replays or option
 *                 0 of a new one, the record and the history here, for numpy's
 *                 integers(n) and choice(list or tuple) (NumpyFacade) and randrange;
 *                 every other case (a probe, the limit or the budget passed, a mismatch,
 *                 a chooser, other arguments) runs the Python method before anything is
 *                 changed.
 *
 * Nothing here runs Python code on the common paths, so the audited code's trace sees no
 * event from them; every call of Python code made from here runs with tracing off (the
 * trace function taken off and put back with exactdp.audit.bytecode's gettrace/settrace),
 * as the Python functions run it.  Integers are Python ints throughout (no C arithmetic on
 * values, no float arithmetic).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#define CDRAW_VERSION 2

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000

/* ---- what setup() hands in ---- */
static PyObject *s_gettrace, *s_settrace;        /* exactdp.audit.bytecode's */
static PyObject *s_guarded_fn, *s_guarded_type;  /* GuardedSource.explore_coin, its class */
static PyObject *s_exploring_fn, *s_exploring_type;
static PyObject *s_explore_globals;              /* exactdp.explore's dict (_now, _reduced) */
static long s_reduce_bits = -1;
static PyObject *s_events;                       /* exactdp.trace's ContextVar */
static PyObject *s_unit_event;                   /* ("uniform", 2**53) */
static PyObject *s_unit_type;                    /* LazyUnit */
static PyObject *s_unit_n;                       /* 2**53 */
static PyObject *s_py_random;                    /* RandomFacade.random, the Python one */
static PyObject *s_guards;                       /* "exactdp.audit.guarded_sources" */
static PyObject *s_py_randrange;                 /* RandomFacade.randrange, the Python one */
static PyObject *s_int_type;                     /* LazyInt */
static PyObject *s_uniform;                      /* "uniform" */
static PyObject *s_engine_type;                  /* facade_engine._Engine */
static PyObject *s_py_integers, *s_py_choice;    /* NumpyFacade's, the Python ones */

static PyObject *str_compare, *str_split, *str_draws, *str_limit, *str_over, *str_coin,
    *str_choices, *str_replayed, *str_recorded, *str_prefix, *str_log, *str_enter,
    *str_chooser, *str_num, *str_den, *str_weigh, *str_budgeted, *str_max_draws,
    *str_deadline_ns, *str_check_budget, *str_now, *str_reduced, *str_engine, *str_probing,
    *str_mech, *str_lazy, *str_lazy_used, *str_units, *str_name, *str_empty, *str_random,
    *str_exactdp_dot, *str_ratio, *str_lazy_ints, *str_ints, *str_exact_limit, *str_source,
    *str_inner, *str_size, *str_max_uniform, *str_history;
static PyObject *op_strings[6];
static PyObject *s_zero, *s_one, *s_two;  /* 0, 1, 2 */

/* ---- tracing off around a call of Python code ---- */

/* The trace function now (a new reference; None when off), tracing turned off. */
static PyObject *
trace_off(void)
{
    PyObject *old = PyObject_CallNoArgs(s_gettrace);
    if (old == NULL) {
        return NULL;
    }
    if (old != Py_None) {
        PyObject *r = PyObject_CallOneArg(s_settrace, Py_None);
        if (r == NULL) {
            Py_DECREF(old);
            return NULL;
        }
        Py_DECREF(r);
    }
    return old;
}

/* Put ``old`` back (consumed), keeping a pending exception. */
static int
trace_on(PyObject *old)
{
    int err = 0;
    if (old != Py_None) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *r = PyObject_CallOneArg(s_settrace, old);
        if (r == NULL) {
            err = -1;
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
        }
        else {
            Py_DECREF(r);
            PyErr_Restore(type, value, tb);
        }
    }
    Py_DECREF(old);
    return err;
}

/* callable(*args) with tracing off. */
static PyObject *
call_untraced(PyObject *callable, PyObject *const *args, size_t nargs)
{
    PyObject *old = trace_off();
    if (old == NULL) {
        return NULL;
    }
    PyObject *r = PyObject_Vectorcall(callable, args, nargs, NULL);
    if (trace_on(old) < 0) {
        Py_XDECREF(r);
        return NULL;
    }
    return r;
}

/* obj.name(*args) with tracing off. */
static PyObject *
method_untraced(PyObject *obj, PyObject *name, PyObject *const *args, size_t nargs)
{
    PyObject *fn = PyObject_GetAttr(obj, name);
    if (fn == NULL) {
        return NULL;
    }
    PyObject *r = call_untraced(fn, args, nargs);
    Py_DECREF(fn);
    return r;
}

/* ---- small helpers on exact ints ---- */

static int
is_int(PyObject *x)
{
    return x != NULL && PyLong_CheckExact(x);
}

/* a < b, a <= b ... on ints: 1, 0 or -1 */
static int
cmp(PyObject *a, PyObject *b, int op)
{
    return PyObject_RichCompareBool(a, b, op);
}

/* obj.name, None when it is missing is an error */
static int
truth_attr(PyObject *obj, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL) {
        return -1;
    }
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    return t;
}

/* ---- the coin ---- */

static int call_coin(PyObject *coin, PyObject *num, PyObject *den);

/* ExploringSource.explore_coin called as Python (tracing off): its truth. */
static int
exploring_python(PyObject *src, PyObject *num, PyObject *den)
{
    PyObject *args[3] = {src, num, den};
    PyObject *r = call_untraced(s_exploring_fn, args, 3);
    if (r == NULL) {
        return -1;
    }
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    return t;
}

/* The budget test of explore_coin, choices made: i -- 1 when past (check_budget raises
 * which cut), 0 when not, -1 on an error. */
static int
budget_past(PyObject *src, Py_ssize_t i)
{
    int b = truth_attr(src, str_budgeted);
    if (b <= 0) {
        return b;
    }
    int past = 0;
    PyObject *md = PyObject_GetAttr(src, str_max_draws);
    if (md == NULL) {
        return -1;
    }
    if (md != Py_None) {
        PyObject *iv = PyLong_FromSsize_t(i);
        if (iv == NULL) {
            Py_DECREF(md);
            return -1;
        }
        past = cmp(iv, md, Py_GE);
        Py_DECREF(iv);
    }
    Py_DECREF(md);
    if (past < 0) {
        return -1;
    }
    if (!past) {
        PyObject *dl = PyObject_GetAttr(src, str_deadline_ns);
        if (dl == NULL) {
            return -1;
        }
        if (dl != Py_None) {
            PyObject *now_fn = PyDict_GetItemWithError(s_explore_globals, str_now);
            if (now_fn == NULL) {
                Py_DECREF(dl);
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_RuntimeError, "exactdp.explore._now is missing");
                }
                return -1;
            }
            PyObject *now = PyCFunction_Check(now_fn) ? PyObject_CallNoArgs(now_fn)
                                                      : call_untraced(now_fn, NULL, 0);
            if (now == NULL) {
                Py_DECREF(dl);
                return -1;
            }
            past = cmp(now, dl, Py_GT);
            Py_DECREF(now);
        }
        Py_DECREF(dl);
        if (past < 0) {
            return -1;
        }
    }
    return past;
}

/* The budget test of explore_coin (raises PathCut through check_budget), choices made: i. */
static int
budget(PyObject *src, Py_ssize_t i)
{
    int past = budget_past(src, i);
    if (past < 0) {
        return -1;
    }
    if (past) {
        PyObject *r = method_untraced(src, str_check_budget, NULL, 0);
        if (r == NULL) {
            return -1;
        }
        Py_DECREF(r);
    }
    return 0;
}

/* The path's weight wnum / wden (borrowed) as ExploringSource._record keeps it: reduced by
 * explore._reduced once wden passes REDUCE_BITS bits, then set on src. */
static int
set_weight(PyObject *src, PyObject *wnum, PyObject *wden)
{
    if (!is_int(wden)) {
        PyErr_SetString(PyExc_TypeError, "a path weight is not an int");
        return -1;
    }
    Py_INCREF(wnum);
    Py_INCREF(wden);
    int err = -1;
    if ((long)_PyLong_NumBits(wden) > s_reduce_bits) {
        PyObject *fn = PyDict_GetItemWithError(s_explore_globals, str_reduced);
        if (fn == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_RuntimeError, "exactdp.explore._reduced is missing");
            }
            goto done;
        }
        PyObject *args[2] = {wnum, wden};
        PyObject *pair = call_untraced(fn, args, 2);
        if (pair == NULL) {
            goto done;
        }
        PyObject *x, *y;
        if (!PyArg_ParseTuple(pair, "OO", &x, &y)) {
            Py_DECREF(pair);
            goto done;
        }
        Py_INCREF(x);
        Py_INCREF(y);
        Py_DECREF(pair);
        Py_SETREF(wnum, x);
        Py_SETREF(wden, y);
    }
    if (PyObject_SetAttr(src, str_num, wnum) < 0 || PyObject_SetAttr(src, str_den, wden) < 0) {
        goto done;
    }
    err = 0;
done:
    Py_DECREF(wnum);
    Py_DECREF(wden);
    return err;
}

/* ExploringSource.explore_coin(src, num, den): its common cases here, else the Python. */
static int
exploring_coin(PyObject *src, PyObject *num, PyObject *den)
{
    PyObject *choices = NULL, *replayed = NULL, *log = NULL, *entry = NULL, *idx = NULL;
    PyObject *masses = NULL, *rest = NULL, *wnum = NULL, *wden = NULL, *tuple = NULL;
    int result = -2;  /* -2: not decided here, the Python method decides */
    if (!is_int(num) || !is_int(den)) {
        goto python;
    }
    choices = PyObject_GetAttr(src, str_choices);
    if (choices == NULL) {
        goto error;
    }
    log = PyObject_GetAttr(src, str_log);
    if (log == NULL) {
        goto error;
    }
    replayed = PyObject_GetAttr(src, str_replayed);
    if (replayed == NULL) {
        goto error;
    }
    if (!PyList_CheckExact(choices) || !PyList_CheckExact(log) || !is_int(replayed)) {
        goto python;
    }
    Py_ssize_t i = PyList_GET_SIZE(choices);
    Py_ssize_t n_replayed = PyLong_AsSsize_t(replayed);
    if (n_replayed == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        goto python;
    }
    if (i < n_replayed) {
        PyObject *recorded = PyObject_GetAttr(src, str_recorded);
        if (recorded == NULL) {
            goto error;
        }
        PyObject *prefix = PyObject_GetAttr(src, str_prefix);
        if (prefix == NULL) {
            Py_DECREF(recorded);
            goto error;
        }
        int ok = PyList_CheckExact(recorded) && PyList_GET_SIZE(recorded) > i
            && PyTuple_CheckExact(prefix) && PyTuple_GET_SIZE(prefix) > i;
        if (ok) {
            entry = PyList_GET_ITEM(recorded, i);
            Py_INCREF(entry);
            idx = PyTuple_GET_ITEM(prefix, i);
            Py_INCREF(idx);
        }
        Py_DECREF(recorded);
        Py_DECREF(prefix);
        if (!ok || !PyTuple_CheckExact(entry) || PyTuple_GET_SIZE(entry) != 5 || !is_int(idx)) {
            goto python;
        }
        masses = PyTuple_GET_ITEM(entry, 4);
        if (!PyList_CheckExact(masses) || PyList_GET_SIZE(masses) != 2
                || !is_int(PyTuple_GET_ITEM(entry, 0)) || !is_int(PyTuple_GET_ITEM(entry, 3))
                || !is_int(PyList_GET_ITEM(masses, 0)) || !is_int(PyList_GET_ITEM(masses, 1))) {
            masses = NULL;
            goto python;
        }
        rest = PyNumber_Subtract(den, num);
        if (rest == NULL) {
            goto error;
        }
        int m = cmp(PyTuple_GET_ITEM(entry, 0), s_two, Py_EQ);
        if (m == 1) {
            m = cmp(PyTuple_GET_ITEM(entry, 3), den, Py_EQ);
        }
        if (m == 1) {
            m = cmp(PyList_GET_ITEM(masses, 0), num, Py_EQ);
        }
        if (m == 1) {
            m = cmp(PyList_GET_ITEM(masses, 1), rest, Py_EQ);
        }
        masses = NULL;
        if (m < 0) {
            goto error;
        }
        if (!m) {  /* a mismatch: the Python method records it */
            goto python;
        }
        if (budget(src, i) < 0) {
            goto error;
        }
        if (PyList_Append(choices, idx) < 0 || PyList_Append(log, entry) < 0) {
            goto error;
        }
        if (i + 1 == n_replayed) {
            PyObject *args[2] = {entry, idx};
            PyObject *r = method_untraced(src, str_enter, args, 2);
            if (r == NULL) {
                goto error;
            }
            Py_DECREF(r);
        }
        result = cmp(idx, s_zero, Py_EQ);  /* idx == 0 */
        goto done;
    }
    PyObject *chooser = PyObject_GetAttr(src, str_chooser);
    if (chooser == NULL) {
        goto error;
    }
    int none = chooser == Py_None;
    Py_DECREF(chooser);
    if (!none) {
        goto python;
    }
    if (budget(src, i) < 0) {
        goto error;
    }
    wnum = PyObject_GetAttr(src, str_num);
    if (wnum == NULL) {
        goto error;
    }
    wden = PyObject_GetAttr(src, str_den);
    if (wden == NULL) {
        goto error;
    }
    rest = PyNumber_Subtract(den, num);
    if (rest == NULL) {
        goto error;
    }
    if (PyList_Append(choices, s_zero) < 0) {
        goto error;
    }
    masses = PyList_New(2);
    if (masses == NULL) {
        goto error;
    }
    Py_INCREF(num);
    PyList_SET_ITEM(masses, 0, num);
    Py_INCREF(rest);
    PyList_SET_ITEM(masses, 1, rest);
    tuple = PyTuple_Pack(5, s_two, wnum, wden, den, masses);
    if (tuple == NULL || PyList_Append(log, tuple) < 0) {
        goto error;
    }
    int weigh = truth_attr(src, str_weigh);
    if (weigh < 0) {
        goto error;
    }
    if (weigh) {
        PyObject *a = PyNumber_Multiply(wnum, num);
        if (a == NULL) {
            goto error;
        }
        Py_SETREF(wnum, a);
        a = PyNumber_Multiply(wden, den);
        if (a == NULL) {
            goto error;
        }
        Py_SETREF(wden, a);
        if (set_weight(src, wnum, wden) < 0) {
            goto error;
        }
    }
    result = 1;
    goto done;
python:
    result = exploring_python(src, num, den);
    goto done;
error:
    result = -1;
done:
    Py_XDECREF(choices);
    Py_XDECREF(replayed);
    Py_XDECREF(log);
    Py_XDECREF(entry);
    Py_XDECREF(idx);
    Py_XDECREF(masses);
    Py_XDECREF(rest);
    Py_XDECREF(wnum);
    Py_XDECREF(wden);
    Py_XDECREF(tuple);
    return result;
}

/* GuardedSource.explore_coin(gs, num, den): charged here, then its source's coin. */
static int
guarded_coin(PyObject *gs, PyObject *num, PyObject *den)
{
    PyObject *coin = PyObject_GetAttr(gs, str_coin);
    if (coin == NULL) {
        return -1;
    }
    if (coin == Py_None) {  /* no coin of an exploring source: the Python method */
        Py_DECREF(coin);
        PyObject *args[3] = {gs, num, den};
        PyObject *r = call_untraced(s_guarded_fn, args, 3);
        if (r == NULL) {
            return -1;
        }
        int t = PyObject_IsTrue(r);
        Py_DECREF(r);
        return t;
    }
    PyObject *draws = PyObject_GetAttr(gs, str_draws);
    if (draws == NULL) {
        Py_DECREF(coin);
        return -1;
    }
    int err;
    if (PyList_CheckExact(draws)) {
        err = PyList_Append(draws, den);
    }
    else {
        PyObject *r = PyObject_CallMethod(draws, "append", "O", den);
        err = r == NULL ? -1 : 0;
        Py_XDECREF(r);
    }
    Py_DECREF(draws);
    if (err < 0) {
        Py_DECREF(coin);
        return -1;
    }
    PyObject *limit = PyObject_GetAttr(gs, str_limit);
    if (limit == NULL) {
        Py_DECREF(coin);
        return -1;
    }
    int none = limit == Py_None;
    Py_DECREF(limit);
    if (!none) {
        PyObject *args[1] = {den};
        PyObject *r = method_untraced(gs, str_over, args, 1);
        if (r == NULL) {
            Py_DECREF(coin);
            return -1;
        }
        Py_DECREF(r);
    }
    int t = call_coin(coin, num, den);
    Py_DECREF(coin);
    return t;
}

/* coin(num, den), its truth: the two coins above here, any other with tracing off. */
static int
call_coin(PyObject *coin, PyObject *num, PyObject *den)
{
    if (PyMethod_Check(coin)) {
        PyObject *fn = PyMethod_GET_FUNCTION(coin);
        PyObject *self = PyMethod_GET_SELF(coin);
        if (fn == s_guarded_fn && (PyObject *)Py_TYPE(self) == s_guarded_type) {
            return guarded_coin(self, num, den);
        }
        if (fn == s_exploring_fn && (PyObject *)Py_TYPE(self) == s_exploring_type) {
            return exploring_coin(self, num, den);
        }
    }
    PyObject *args[2] = {num, den};
    PyObject *r = call_untraced(coin, args, 2);
    if (r == NULL) {
        return -1;
    }
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    return t;
}

/* ---- the lazy value ---- */

/* The last float compared with, and what follows from it: the operand, the context's
 * scale and the value's offset (the same objects: immutable ints and floats, held here),
 * num = x0 * scale - offset * x1 and x1 (x = x0 / x1), and its two cuts, ceil(num / x1)
 * (c_cut[1]) and floor(num / x1) + 1 (c_cut[0]), once computed. */
static PyObject *c_other, *c_scale, *c_offset, *c_num, *c_x1, *c_cut[2];

static int keep(PyObject **slot, PyObject *value);

typedef struct {
    PyObject_HEAD
    PyObject *cell;
    PyObject *ctx;
    PyObject *offset;
} Lazy;

static int
Lazy_traverse(Lazy *self, visitproc visit, void *arg)
{
    Py_VISIT(self->cell);
    Py_VISIT(self->ctx);
    Py_VISIT(self->offset);
    return 0;
}

static int
Lazy_clear(Lazy *self)
{
    Py_CLEAR(self->cell);
    Py_CLEAR(self->ctx);
    Py_CLEAR(self->offset);
    return 0;
}

/* (a static type: the heap subclasses' subtype_dealloc / subtype_traverse handle their
 * type's reference) */
static void
Lazy_dealloc(Lazy *self)
{
    PyObject_GC_UnTrack(self);
    Lazy_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The Python method _compare(other, op), tracing off. */
static PyObject *
python_compare(PyObject *self, PyObject *other, int op)
{
    PyObject *args[2] = {other, op_strings[op]};
    return method_untraced(self, str_compare, args, 2);
}

/* The cell's two parts [lo, cut) (answer) and [cut, hi): _below.  1, 0 or -1. */
static int
below(Lazy *self, PyObject *cut, int answer)
{
    PyObject *cell = self->cell, *ctx = self->ctx;
    if (cell == NULL || !PyList_CheckExact(cell) || PyList_GET_SIZE(cell) != 2
            || ctx == NULL || !PyList_CheckExact(ctx) || PyList_GET_SIZE(ctx) < 4) {
        PyErr_SetString(PyExc_TypeError, "a lazy value's cell or context is malformed");
        return -1;
    }
    PyObject *lo = PyList_GET_ITEM(cell, 0), *hi = PyList_GET_ITEM(cell, 1);
    Py_INCREF(lo);
    Py_INCREF(hi);
    int result = -1, c;
    if ((c = cmp(cut, lo, Py_LE)) != 0) {
        result = c < 0 ? -1 : !answer;
        goto done;
    }
    if ((c = cmp(cut, hi, Py_GE)) != 0) {
        result = c < 0 ? -1 : answer;
        goto done;
    }
    PyObject *a = PyNumber_Subtract(cut, lo);
    if (a == NULL) {
        goto done;
    }
    PyObject *b = PyNumber_Subtract(hi, lo);
    if (b == NULL) {
        Py_DECREF(a);
        goto done;
    }
    PyObject *coin = PyList_GET_ITEM(ctx, 1);
    Py_INCREF(coin);
    c = call_coin(coin, a, b);
    Py_DECREF(coin);
    Py_DECREF(a);
    Py_DECREF(b);
    if (c < 0) {
        goto done;
    }
    Py_INCREF(cut);
    if (PyList_SetItem(cell, c ? 1 : 0, cut) < 0) {
        goto done;
    }
    result = c ? answer : !answer;
done:
    Py_DECREF(lo);
    Py_DECREF(hi);
    return result;
}

static PyObject *
Lazy_richcompare(PyObject *obj, PyObject *other, int op)
{
    Lazy *self = (Lazy *)obj;
    PyObject *cell = self->cell, *ctx = self->ctx, *offset = self->offset;
    int is_float = PyFloat_CheckExact(other);
    if (!(PyLong_CheckExact(other) || is_float)
            || cell == NULL || !PyList_CheckExact(cell) || PyList_GET_SIZE(cell) != 2
            || !is_int(PyList_GET_ITEM(cell, 0)) || !is_int(PyList_GET_ITEM(cell, 1))
            || ctx == NULL || !PyList_CheckExact(ctx) || PyList_GET_SIZE(ctx) < 4
            || !is_int(PyList_GET_ITEM(ctx, 0)) || !is_int(offset)) {
        return python_compare(obj, other, op);
    }
    PyObject *scale = PyList_GET_ITEM(ctx, 0);
    PyObject *x0 = NULL, *x1 = NULL, *num = NULL, *cut = NULL, *t = NULL;
    PyObject *result = NULL;
    int cached = 0;
    Py_INCREF(scale);
    Py_INCREF(offset);
    if (is_float && c_other == other && c_scale == scale && c_offset == offset) {
        /* the float, scale and offset of the last comparison (the same objects) */
        x0 = NULL;
        num = c_num;
        Py_INCREF(num);
        x1 = c_x1;
        Py_INCREF(x1);
        cached = 1;
    }
    else if (is_float) {
        PyObject *ratio = PyObject_CallMethodNoArgs(other, str_ratio);
        if (ratio == NULL) {  /* an infinity or nan: the Python method answers */
            if (!PyErr_ExceptionMatches(PyExc_OverflowError)
                    && !PyErr_ExceptionMatches(PyExc_ValueError)) {
                goto done;
            }
            PyErr_Clear();
            result = python_compare(obj, other, op);
            goto done;
        }
        if (!PyTuple_CheckExact(ratio) || PyTuple_GET_SIZE(ratio) != 2) {
            Py_DECREF(ratio);
            PyErr_SetString(PyExc_TypeError, "as_integer_ratio did not give a pair");
            goto done;
        }
        x0 = PyTuple_GET_ITEM(ratio, 0);
        x1 = PyTuple_GET_ITEM(ratio, 1);
        Py_INCREF(x0);
        Py_INCREF(x1);
        Py_DECREF(ratio);
    }
    else {
        x0 = other;
        Py_INCREF(x0);
    }
    if (!cached) {
        /* num = x0 * scale - offset * x1 (x1 = 1 for an int) */
        t = PyNumber_Multiply(x0, scale);
        if (t == NULL) {
            goto done;
        }
        if (x1 != NULL) {
            PyObject *u = PyNumber_Multiply(offset, x1);
            if (u == NULL) {
                goto done;
            }
            num = PyNumber_Subtract(t, u);
            Py_DECREF(u);
        }
        else {
            num = PyNumber_Subtract(t, offset);
        }
        if (num == NULL) {
            goto done;
        }
        if (is_float) {  /* kept for the next comparison with the same float */
            keep(&c_other, other);
            keep(&c_scale, scale);
            keep(&c_offset, offset);
            keep(&c_num, num);
            keep(&c_x1, x1);
            Py_CLEAR(c_cut[0]);
            Py_CLEAR(c_cut[1]);
        }
    }
    if (op == Py_EQ || op == Py_NE) {
        int want = op == Py_EQ, same;
        PyObject *j;
        if (x1 != NULL) {
            PyObject *qr = PyNumber_Divmod(num, x1);
            if (qr == NULL) {
                goto done;
            }
            int r = PyObject_IsTrue(PyTuple_GET_ITEM(qr, 1));
            if (r != 0) {
                Py_DECREF(qr);
                if (r > 0) {  /* a value no j gives */
                    result = want ? Py_False : Py_True;
                    Py_INCREF(result);
                }
                goto done;
            }
            j = PyTuple_GET_ITEM(qr, 0);
            Py_INCREF(j);
            Py_DECREF(qr);
        }
        else {
            j = num;
            Py_INCREF(j);
        }
        PyObject *lo = PyList_GET_ITEM(cell, 0), *hi = PyList_GET_ITEM(cell, 1);
        Py_INCREF(lo);
        Py_INCREF(hi);
        PyObject *one = s_one;
        PyObject *last = PyNumber_Subtract(hi, one);
        int c1 = -1, c2 = -1;
        same = -1;
        if (last == NULL) {
            goto eq_done;
        }
        c1 = cmp(j, lo, Py_LT);
        if (c1 == 0) {
            c1 = cmp(j, hi, Py_GE);
        }
        if (c1 < 0) {
            goto eq_done;
        }
        if (c1) {
            same = 0;
            goto eq_done;
        }
        c2 = cmp(j, lo, Py_EQ);
        if (c2 < 0) {
            goto eq_done;
        }
        if (c2) {
            PyObject *next = PyNumber_Add(lo, one);
            if (next != NULL) {
                same = below(self, next, 1);
                Py_DECREF(next);
            }
            goto eq_done;
        }
        c2 = cmp(j, last, Py_EQ);
        if (c2 < 0) {
            goto eq_done;
        }
        if (c2) {
            same = below(self, last, 0);
            goto eq_done;
        }
        {
            PyObject *next = PyNumber_Add(j, one);
            if (next == NULL) {
                goto eq_done;
            }
            PyObject *cuts = PyTuple_Pack(2, j, next);
            Py_DECREF(next);
            PyObject *truth = cuts == NULL ? NULL : PyTuple_Pack(3, Py_False, Py_True, Py_False);
            if (truth != NULL) {
                PyObject *args[2] = {cuts, truth};
                PyObject *r = method_untraced(obj, str_split, args, 2);
                if (r != NULL) {
                    same = PyObject_IsTrue(r);
                    Py_DECREF(r);
                }
            }
            Py_XDECREF(cuts);
            Py_XDECREF(truth);
        }
eq_done:
        Py_DECREF(j);
        Py_DECREF(lo);
        Py_DECREF(hi);
        Py_XDECREF(last);
        if (same >= 0) {
            result = (same == want) ? Py_True : Py_False;
            Py_INCREF(result);
        }
        goto done;
    }
    {
        int ceiling = op == Py_LT || op == Py_GE;
        int answer = op == Py_LT || op == Py_LE;
        if (x1 != NULL && c_cut[ceiling] != NULL && c_num == num) {
            cut = c_cut[ceiling];  /* this float's cut, computed before */
            Py_INCREF(cut);
        }
        else if (x1 == NULL) {  /* an int: cut = x * scale - offset (+ 1) */
            cut = ceiling ? (Py_INCREF(num), num) : PyNumber_Add(num, s_one);
        }
        else if (ceiling) {  /* -(-num // x1) */
            PyObject *neg = PyNumber_Negative(num);
            PyObject *q = neg == NULL ? NULL : PyNumber_FloorDivide(neg, x1);
            Py_XDECREF(neg);
            cut = q == NULL ? NULL : PyNumber_Negative(q);
            Py_XDECREF(q);
        }
        else {  /* num // x1 + 1 */
            PyObject *q = PyNumber_FloorDivide(num, x1);
            cut = q == NULL ? NULL : PyNumber_Add(q, s_one);
            Py_XDECREF(q);
        }
        if (cut == NULL) {
            goto done;
        }
        if (x1 != NULL && c_num == num && c_cut[ceiling] == NULL) {
            keep(&c_cut[ceiling], cut);
        }
        int r = below(self, cut, answer);
        if (r >= 0) {
            result = r ? Py_True : Py_False;
            Py_INCREF(result);
        }
    }
done:
    Py_DECREF(scale);
    Py_DECREF(offset);
    Py_XDECREF(x0);
    Py_XDECREF(x1);
    Py_XDECREF(num);
    Py_XDECREF(cut);
    Py_XDECREF(t);
    return result;
}

static PyMemberDef Lazy_members[] = {
    {"_cell", T_OBJECT_EX, offsetof(Lazy, cell), 0, "the draw's cell [lo, hi)"},
    {"_ctx", T_OBJECT_EX, offsetof(Lazy, ctx), 0, "the run's context"},
    {"_offset", T_OBJECT_EX, offsetof(Lazy, offset), 0, "the value's shift"},
    {NULL}
};

static PyTypeObject LazyType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "exactdp.audit._cdraw.Lazy",
    .tp_basicsize = sizeof(Lazy),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "the base of LazyUnit: its cell, context and offset, and its comparisons",
    .tp_dealloc = (destructor)Lazy_dealloc,
    .tp_traverse = (traverseproc)Lazy_traverse,
    .tp_clear = (inquiry)Lazy_clear,
    .tp_richcompare = Lazy_richcompare,
    .tp_members = Lazy_members,
    /* tp_new: object's (set at import), so that object.__new__(LazyUnit) makes one */
};

/* A new lazy value of class cls (a subclass of Lazy) on cell, ctx, offset. */
static PyObject *
new_lazy(PyTypeObject *cls, PyObject *cell, PyObject *ctx, PyObject *offset)
{
    Lazy *v = (Lazy *)cls->tp_alloc(cls, 0);
    if (v == NULL) {
        return NULL;
    }
    Py_INCREF(cell);
    v->cell = cell;
    Py_INCREF(ctx);
    v->ctx = ctx;
    Py_INCREF(offset);
    v->offset = offset;
    return (PyObject *)v;
}

static PyObject *
cdraw_fresh(PyObject *module, PyObject *args)
{
    PyObject *cls, *cell, *ctx, *offset;
    if (!PyArg_ParseTuple(args, "OOOO:fresh", &cls, &cell, &ctx, &offset)) {
        return NULL;
    }
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &LazyType)) {
        PyErr_SetString(PyExc_TypeError, "fresh: cls must be a subclass of Lazy");
        return NULL;
    }
    return new_lazy((PyTypeObject *)cls, cell, ctx, offset);
}

/* ---- _Engine.draw(n): a plain draw of the exploring source ---- */

/* _Engine.draw(engine, n) for an int n >= 1, its common case: a live run (not a probe),
 * n <= the mechanism's exact_limit, the engine's source a GuardedSource (its charge: the
 * draws, the limit) of an ExploringSource, or an ExploringSource, whose uniform(n) replays a draw that matches
 * the run it replays or takes option 0 of a new draw with no chooser, within max_uniform
 * and the path's budget.  1: done, *out the draw j on [0, n) (a new reference); 0: not
 * this case, nothing changed and no error set (the Python method makes the draw); -1: an
 * error. */
static int
engine_draw(PyObject *engine, PyObject *n, PyObject **out)
{
    PyObject *probing = NULL, *mech = NULL, *exact = NULL, *gs = NULL, *src = NULL;
    PyObject *draws = NULL, *limit = NULL, *size = NULL, *new_size = NULL, *maxu = NULL;
    PyObject *history = NULL, *events = NULL, *choices = NULL, *log = NULL;
    PyObject *replayed = NULL, *recorded = NULL, *prefix = NULL, *entry = NULL, *idx = NULL;
    PyObject *chooser = NULL, *wnum = NULL, *wden = NULL, *item = NULL, *j = NULL;
    int result = 0, weigh = 0, replay = 0, enter = 0;
    if (s_engine_type == NULL || s_guarded_type == NULL || s_exploring_type == NULL
            || s_events == NULL || Py_TYPE(engine) != (PyTypeObject *)s_engine_type || !is_int(n)) {
        goto python;
    }
    probing = PyObject_GetAttr(engine, str_probing);
    if (probing != Py_None) {
        goto python;
    }
    mech = PyObject_GetAttr(engine, str_mech);
    exact = mech == NULL ? NULL : PyObject_GetAttr(mech, str_exact_limit);
    if (exact == NULL || cmp(n, exact, Py_LE) != 1) {
        goto python;
    }
    gs = PyObject_GetAttr(engine, str_source);
    if (gs != NULL && Py_TYPE(gs) == (PyTypeObject *)s_exploring_type) {
        src = gs;  /* the exploring source itself (a replay without the charge) */
        gs = NULL;
    }
    else if (gs != NULL && Py_TYPE(gs) == (PyTypeObject *)s_guarded_type) {
        src = PyObject_GetAttr(gs, str_inner);
        if (src == NULL || Py_TYPE(src) != (PyTypeObject *)s_exploring_type) {
            goto python;
        }
    }
    else {
        goto python;
    }
    /* GuardedSource.uniform: the draw charged (the limit not passed: else the Python) */
    if (gs != NULL) {
        draws = PyObject_GetAttr(gs, str_draws);
        limit = draws == NULL ? NULL : PyObject_GetAttr(gs, str_limit);
        if (limit == NULL || !PyList_CheckExact(draws)) {
            goto python;
        }
    }
    if (limit != NULL && limit != Py_None) {
        size = PyObject_GetAttr(gs, str_size);
        new_size = size == NULL ? NULL : PyNumber_Multiply(size, n);
        if (new_size == NULL || cmp(new_size, limit, Py_GT) != 0) {
            goto python;
        }
    }
    /* ExploringSource.uniform: the event, the limit, the draw taken */
    maxu = PyObject_GetAttr(src, str_max_uniform);
    if (maxu == NULL || cmp(n, maxu, Py_GT) != 0) {
        goto python;
    }
    history = PyObject_GetAttr(engine, str_history);
    if (history == NULL || !PyList_CheckExact(history)) {
        goto python;
    }
    if (PyContextVar_Get(s_events, NULL, &events) < 0) {
        goto python;
    }
    if (events != NULL && events != Py_None && !PyList_CheckExact(events)) {
        goto python;
    }
    choices = PyObject_GetAttr(src, str_choices);
    log = choices == NULL ? NULL : PyObject_GetAttr(src, str_log);
    replayed = log == NULL ? NULL : PyObject_GetAttr(src, str_replayed);
    if (replayed == NULL || !PyList_CheckExact(choices) || !PyList_CheckExact(log)
            || !is_int(replayed)) {
        goto python;
    }
    Py_ssize_t i = PyList_GET_SIZE(choices);
    Py_ssize_t n_replayed = PyLong_AsSsize_t(replayed);
    if (n_replayed == -1 && PyErr_Occurred()) {
        goto python;
    }
    if (budget_past(src, i) != 0) {  /* past (PathCut) or an error: the Python method */
        goto python;
    }
    if (i < n_replayed) {
        recorded = PyObject_GetAttr(src, str_recorded);
        prefix = recorded == NULL ? NULL : PyObject_GetAttr(src, str_prefix);
        if (prefix == NULL || !PyList_CheckExact(recorded) || PyList_GET_SIZE(recorded) <= i
                || !PyTuple_CheckExact(prefix) || PyTuple_GET_SIZE(prefix) <= i) {
            goto python;
        }
        entry = PyList_GET_ITEM(recorded, i);
        Py_INCREF(entry);
        idx = PyTuple_GET_ITEM(prefix, i);
        Py_INCREF(idx);
        if (!PyTuple_CheckExact(entry) || PyTuple_GET_SIZE(entry) != 5 || !is_int(idx)) {
            goto python;
        }
        /* the same request as the run replayed: n options, den n, equally likely */
        if (PyTuple_GET_ITEM(entry, 4) != Py_None
                || cmp(PyTuple_GET_ITEM(entry, 0), n, Py_EQ) != 1
                || cmp(PyTuple_GET_ITEM(entry, 3), n, Py_EQ) != 1) {
            goto python;  /* a mismatch: the Python method records it */
        }
        replay = 1;
        enter = i + 1 == n_replayed;
        j = idx;
        Py_INCREF(j);
    }
    else {
        chooser = PyObject_GetAttr(src, str_chooser);
        if (chooser != Py_None) {
            goto python;
        }
        wnum = PyObject_GetAttr(src, str_num);
        wden = wnum == NULL ? NULL : PyObject_GetAttr(src, str_den);
        weigh = wden == NULL ? -1 : truth_attr(src, str_weigh);
        if (weigh < 0) {
            goto python;
        }
        j = s_zero;
        Py_INCREF(j);
    }
    /* from here on, as the Python methods do: charge, event, record, history */
    result = -1;
    if (draws != NULL && PyList_Append(draws, n) < 0) {
        goto done;
    }
    if (new_size != NULL && PyObject_SetAttr(gs, str_size, new_size) < 0) {
        goto done;
    }
    if (events != NULL && events != Py_None) {
        item = PyTuple_Pack(2, s_uniform, n);
        if (item == NULL || PyList_Append(events, item) < 0) {
            goto done;
        }
        Py_CLEAR(item);
    }
    if (replay) {
        if (PyList_Append(choices, idx) < 0 || PyList_Append(log, entry) < 0) {
            goto done;
        }
        if (enter) {
            PyObject *args[2] = {entry, idx};
            PyObject *r = method_untraced(src, str_enter, args, 2);
            if (r == NULL) {
                goto done;
            }
            Py_DECREF(r);
        }
    }
    else {
        if (PyList_Append(choices, s_zero) < 0) {
            goto done;
        }
        item = PyTuple_Pack(5, n, wnum, wden, n, Py_None);
        if (item == NULL || PyList_Append(log, item) < 0) {
            goto done;
        }
        Py_CLEAR(item);
        if (weigh) {
            PyObject *product = PyNumber_Multiply(wden, n);
            if (product == NULL) {
                goto done;
            }
            int err = set_weight(src, wnum, product);
            Py_DECREF(product);
            if (err < 0) {
                goto done;
            }
        }
    }
    item = PyTuple_Pack(2, n, j);
    if (item == NULL || PyList_Append(history, item) < 0) {
        goto done;
    }
    *out = j;
    j = NULL;
    result = 1;
    goto done;
python:
    PyErr_Clear();
    result = 0;
done:
    Py_XDECREF(probing);
    Py_XDECREF(mech);
    Py_XDECREF(exact);
    Py_XDECREF(gs);
    Py_XDECREF(src);
    Py_XDECREF(draws);
    Py_XDECREF(limit);
    Py_XDECREF(size);
    Py_XDECREF(new_size);
    Py_XDECREF(maxu);
    Py_XDECREF(history);
    Py_XDECREF(events);
    Py_XDECREF(choices);
    Py_XDECREF(log);
    Py_XDECREF(replayed);
    Py_XDECREF(recorded);
    Py_XDECREF(prefix);
    Py_XDECREF(entry);
    Py_XDECREF(idx);
    Py_XDECREF(chooser);
    Py_XDECREF(wnum);
    Py_XDECREF(wden);
    Py_XDECREF(item);
    Py_XDECREF(j);
    return result;
}

/* A facade's draw j = engine.draw(n) for the int n >= 1 (borrowed): 1 with *out set, 0
 * when the Python method is to be called (nothing changed), -1 on an error. */
static int
facade_draw(PyObject *self, PyObject *n, PyObject **out)
{
    PyObject *engine = PyObject_GetAttr(self, str_engine);
    if (engine == NULL) {
        PyErr_Clear();
        return 0;
    }
    int r = engine_draw(engine, n, out);
    Py_DECREF(engine);
    return r;
}

/* ---- the lazy draws of random() and randrange(n) ---- */

/* The lazy value of engine.unit() (unit: n = 2**53, the flag mech.lazy with mech.lazy_used
 * set, the count engine.lazy, the context engine._units, a LazyUnit, the event
 * ("uniform", 2**53)) or of engine.integer(n) (mech.lazy_ints, engine.lazy_ints,
 * engine._ints, a LazyInt, ("uniform", n)) on a live run (not a probe): the event, the
 * count, the value on the cell [0, n], as the Python methods make them.  1: done, *out the
 * value; 2: the flag is off (nothing changed, no error); 0: another case (nothing changed,
 * no error: the Python method); -1: an error. */
static int
lazy_draw(PyObject *engine, int unit, PyObject *n, PyObject **out)
{
    PyObject *flag = unit ? str_lazy : str_lazy_ints;
    PyObject *probing = NULL, *mech = NULL, *ctx = NULL, *count = NULL, *events = NULL;
    PyObject *event = NULL, *cell = NULL;
    int result = 0;
    probing = PyObject_GetAttr(engine, str_probing);
    mech = probing == NULL ? NULL : PyObject_GetAttr(engine, str_mech);
    if (mech == NULL || probing != Py_None) {
        goto python;
    }
    int on = truth_attr(mech, flag);
    if (on == 0) {
        result = 2;
        goto done;
    }
    if (unit && on > 0) {  /* the first lazy value of the mechanism: the Python method */
        on = truth_attr(mech, str_lazy_used);
    }
    if (on <= 0) {
        goto python;
    }
    ctx = PyObject_GetAttr(engine, unit ? str_units : str_ints);
    count = ctx == NULL ? NULL : PyObject_GetAttr(engine, flag);
    if (count == NULL || !is_int(count)) {
        goto python;
    }
    if (PyContextVar_Get(s_events, NULL, &events) < 0) {
        goto python;
    }
    if (events != NULL && events != Py_None && !PyList_CheckExact(events)) {
        goto python;
    }
    /* from here on, as engine.unit / engine.integer do: the event, the count, the value */
    result = -1;
    if (events != NULL && events != Py_None) {
        if (unit) {
            event = s_unit_event;
            Py_INCREF(event);
        }
        else {
            event = PyTuple_Pack(2, s_uniform, n);
        }
        if (event == NULL || PyList_Append(events, event) < 0) {
            goto done;
        }
    }
    PyObject *next = PyNumber_Add(count, s_one);
    if (next == NULL) {
        goto done;
    }
    int err = PyObject_SetAttr(engine, flag, next);
    Py_DECREF(next);
    if (err < 0) {
        goto done;
    }
    cell = PyList_New(2);
    if (cell == NULL) {
        goto done;
    }
    Py_INCREF(s_zero);
    PyList_SET_ITEM(cell, 0, s_zero);
    Py_INCREF(n);
    PyList_SET_ITEM(cell, 1, n);
    *out = new_lazy((PyTypeObject *)(unit ? s_unit_type : s_int_type), cell, ctx, s_zero);
    result = *out == NULL ? -1 : 1;
    goto done;
python:
    PyErr_Clear();
    result = 0;
done:
    Py_XDECREF(probing);
    Py_XDECREF(mech);
    Py_XDECREF(ctx);
    Py_XDECREF(count);
    Py_XDECREF(events);
    Py_XDECREF(event);
    Py_XDECREF(cell);
    return result;
}

/* ---- RandomFacade.random ---- */

/* The module name the Python method reads: frame.f_globals.get("__name__", ""), past the
 * guards' forwarders.  A new reference, or NULL without an error: ask the Python method. */
static PyObject *
caller_name(void)
{
    PyFrameObject *frame = PyEval_GetFrame();  /* borrowed */
    if (frame == NULL) {
        return NULL;
    }
    Py_INCREF(frame);
    PyObject *name = NULL;
    for (;;) {
        PyObject *globals = PyFrame_GetGlobals(frame);
        if (globals == NULL || !PyDict_CheckExact(globals)) {
            Py_XDECREF(globals);
            PyErr_Clear();
            break;
        }
        name = PyDict_GetItemWithError(globals, str_name);
        if (name == NULL && PyErr_Occurred()) {
            Py_DECREF(globals);
            PyErr_Clear();
            break;
        }
        name = name == NULL ? str_empty : name;
        Py_INCREF(name);
        Py_DECREF(globals);
        if (!PyUnicode_CheckExact(name)) {
            Py_CLEAR(name);
            break;
        }
        int guard = PyUnicode_Compare(name, s_guards) == 0;
        if (!guard) {
            break;
        }
        PyFrameObject *back = PyFrame_GetBack(frame);
        if (back == NULL) {
            break;
        }
        Py_CLEAR(name);
        Py_DECREF(frame);
        frame = back;
    }
    Py_DECREF(frame);
    return name;
}

static PyObject *
python_random(PyObject *self)
{
    return PyObject_CallOneArg(s_py_random, self);
}

static PyObject *
cdraw_random(PyObject *module, PyObject *self)
{
    if (s_py_random == NULL || s_unit_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_cdraw.random: setup_random() was not called");
        return NULL;
    }
    PyObject *name = caller_name();
    if (name == NULL) {
        return python_random(self);
    }
    int own = PyUnicode_Compare(name, str_random) == 0
        || PyUnicode_Tailmatch(name, str_exactdp_dot, 0, PY_SSIZE_T_MAX, -1) == 1;
    Py_DECREF(name);
    if (own || PyErr_Occurred()) {
        PyErr_Clear();
        return python_random(self);
    }
    PyObject *engine = PyObject_GetAttr(self, str_engine), *value = NULL;
    int r = engine == NULL ? 0 : lazy_draw(engine, 1, s_unit_n, &value);
    Py_XDECREF(engine);
    if (r == 1 || r < 0) {
        return value;
    }
    PyErr_Clear();
    return python_random(self);
}

/* ---- RandomFacade.randrange ---- */

/* randrange(self, n) for an int n >= 1 (the common case of the Python method, which calls
 * engine.integer(n)): on a live run with lazy integer draws and n >= 2 a new LazyInt here,
 * else (engine.integer's draw(n)) the draw of engine_draw when it takes it; every other
 * call runs the Python method. */
static PyObject *
cdraw_randrange(PyObject *module, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (s_py_randrange == NULL || s_int_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_cdraw.randrange: setup_integer() was not called");
        return NULL;
    }
    if (nargs != 2 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0)
            || !PyLong_CheckExact(args[1]) || cmp(args[1], s_one, Py_GE) != 1) {
        PyErr_Clear();
        return PyObject_Vectorcall(s_py_randrange, args, nargsf, kwnames);
    }
    PyObject *n = args[1], *value = NULL;
    PyObject *engine = PyObject_GetAttr(args[0], str_engine);
    int r = engine == NULL ? 0 : cmp(n, s_two, Py_GE) == 1 ? lazy_draw(engine, 0, n, &value) : 2;
    if (r == 2) {  /* engine.integer(n) is draw(n): n < 2, or integer draws not lazy */
        r = engine_draw(engine, n, &value);
    }
    Py_XDECREF(engine);
    if (r == 1 || r < 0) {
        return value;
    }
    PyErr_Clear();
    return PyObject_Vectorcall(s_py_randrange, args, nargsf, kwnames);
}

/* ---- NumpyFacade.integers and choice ---- */

/* integers(self, n) for an int n >= 1 (numpy's integers(n): j on [0, n)): the draw here
 * when engine_draw takes it; every other call (high, endpoint, size, dtype, a bool, a
 * numpy int, n <= 0) runs the Python method. */
static PyObject *
cdraw_integers(PyObject *module, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (s_py_integers == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_cdraw.integers: setup_numpy() was not called");
        return NULL;
    }
    if (nargs == 2 && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)
            && PyLong_CheckExact(args[1]) && cmp(args[1], s_one, Py_GE) == 1) {
        PyObject *value = NULL;
        int r = facade_draw(args[0], args[1], &value);
        if (r != 0) {
            return r < 0 ? NULL : value;
        }
    }
    PyErr_Clear();
    return PyObject_Vectorcall(s_py_integers, args, nargsf, kwnames);
}

/* choice(self, a) for a non-empty list or tuple a: a[j], j drawn here when engine_draw
 * takes it on [0, len(a)); every other call runs the Python method. */
static PyObject *
cdraw_choice(PyObject *module, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (s_py_choice == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_cdraw.choice: setup_numpy() was not called");
        return NULL;
    }
    if (nargs == 2 && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)
            && (PyList_CheckExact(args[1]) || PyTuple_CheckExact(args[1]))
            && Py_SIZE(args[1]) >= 1) {
        PyObject *n = PyLong_FromSsize_t(Py_SIZE(args[1]));
        if (n == NULL) {
            return NULL;
        }
        PyObject *j = NULL;
        int r = facade_draw(args[0], n, &j);
        Py_DECREF(n);
        if (r < 0) {
            return NULL;
        }
        if (r == 1) {
            PyObject *value = PyObject_GetItem(args[1], j);  /* a[j], as the method does */
            Py_DECREF(j);
            return value;
        }
    }
    PyErr_Clear();
    return PyObject_Vectorcall(s_py_choice, args, nargsf, kwnames);
}

/* ---- set-up ---- */

static int
keep(PyObject **slot, PyObject *value)
{
    Py_XINCREF(value);
    Py_XSETREF(*slot, value);
    return 0;
}

static PyObject *
cdraw_setup_trace(PyObject *module, PyObject *args)
{
    PyObject *g, *s;
    if (!PyArg_ParseTuple(args, "OO:setup_trace", &g, &s)) {
        return NULL;
    }
    keep(&s_gettrace, g);
    keep(&s_settrace, s);
    Py_RETURN_NONE;
}

static PyObject *
cdraw_setup_exploring(PyObject *module, PyObject *args)
{
    PyObject *cls, *fn, *globals;
    long bits;
    if (!PyArg_ParseTuple(args, "OOO!l:setup_exploring", &cls, &fn, &PyDict_Type, &globals,
                          &bits)) {
        return NULL;
    }
    keep(&s_exploring_type, cls);
    keep(&s_exploring_fn, fn);
    keep(&s_explore_globals, globals);
    s_reduce_bits = bits;
    Py_RETURN_NONE;
}

static PyObject *
cdraw_setup_guarded(PyObject *module, PyObject *args)
{
    PyObject *cls, *fn;
    if (!PyArg_ParseTuple(args, "OO:setup_guarded", &cls, &fn)) {
        return NULL;
    }
    keep(&s_guarded_type, cls);
    keep(&s_guarded_fn, fn);
    Py_RETURN_NONE;
}

static PyObject *
cdraw_setup_random(PyObject *module, PyObject *args)
{
    PyObject *py_random, *unit_type, *events, *event, *n, *guards;
    if (!PyArg_ParseTuple(args, "OOOOOU:setup_random", &py_random, &unit_type, &events, &event,
                          &n, &guards)) {
        return NULL;
    }
    if (!PyType_Check(unit_type) || !PyType_IsSubtype((PyTypeObject *)unit_type, &LazyType)
            || !PyContextVar_CheckExact(events) || !is_int(n)) {
        PyErr_SetString(PyExc_TypeError, "setup_random: a Lazy subclass, a ContextVar, an int");
        return NULL;
    }
    keep(&s_py_random, py_random);
    keep(&s_unit_type, unit_type);
    keep(&s_events, events);
    keep(&s_unit_event, event);
    keep(&s_unit_n, n);
    keep(&s_guards, guards);
    Py_RETURN_NONE;
}

static PyObject *
cdraw_setup_integer(PyObject *module, PyObject *args)
{
    PyObject *py_randrange, *int_type;
    if (!PyArg_ParseTuple(args, "OO:setup_integer", &py_randrange, &int_type)) {
        return NULL;
    }
    if (!PyType_Check(int_type) || !PyType_IsSubtype((PyTypeObject *)int_type, &LazyType)) {
        PyErr_SetString(PyExc_TypeError, "setup_integer: a Lazy subclass");
        return NULL;
    }
    keep(&s_py_randrange, py_randrange);
    keep(&s_int_type, int_type);
    Py_RETURN_NONE;
}

static PyObject *
cdraw_setup_engine(PyObject *module, PyObject *engine_type)
{
    if (!PyType_Check(engine_type)) {
        PyErr_SetString(PyExc_TypeError, "setup_engine: a class");
        return NULL;
    }
    keep(&s_engine_type, engine_type);
    Py_RETURN_NONE;
}

static PyObject *
cdraw_setup_numpy(PyObject *module, PyObject *args)
{
    PyObject *py_integers, *py_choice;
    if (!PyArg_ParseTuple(args, "OO:setup_numpy", &py_integers, &py_choice)) {
        return NULL;
    }
    keep(&s_py_integers, py_integers);
    keep(&s_py_choice, py_choice);
    Py_RETURN_NONE;
}

/* as_method(f): f bound like a function when read from an instance (instancemethod). */
static PyObject *
cdraw_as_method(PyObject *module, PyObject *fn)
{
    return PyInstanceMethod_New(fn);
}

static PyObject *
cdraw_version(PyObject *module, PyObject *unused)
{
    return PyLong_FromLong(CDRAW_VERSION);
}

static PyMethodDef cdraw_methods[] = {
    {"version", cdraw_version, METH_NOARGS, "the version of this module's rules"},
    {"fresh", cdraw_fresh, METH_VARARGS, "fresh(cls, cell, ctx, offset): a new lazy value"},
    {"random", cdraw_random, METH_O, "RandomFacade.random(self)"},
    {"as_method", cdraw_as_method, METH_O, "a callable bound like a function"},
    {"randrange", (PyCFunction)(void (*)(void))cdraw_randrange, METH_FASTCALL | METH_KEYWORDS,
     "RandomFacade.randrange(self, *args, **kwargs)"},
    {"setup_integer", cdraw_setup_integer, METH_VARARGS,
     "setup_integer(RandomFacade.randrange, LazyInt)"},
    {"integers", (PyCFunction)(void (*)(void))cdraw_integers, METH_FASTCALL | METH_KEYWORDS,
     "NumpyFacade.integers(self, *args, **kwargs)"},
    {"choice", (PyCFunction)(void (*)(void))cdraw_choice, METH_FASTCALL | METH_KEYWORDS,
     "NumpyFacade.choice(self, *args, **kwargs)"},
    {"setup_numpy", cdraw_setup_numpy, METH_VARARGS,
     "setup_numpy(NumpyFacade.integers, NumpyFacade.choice)"},
    {"setup_engine", cdraw_setup_engine, METH_O, "setup_engine(_Engine)"},
    {"setup_trace", cdraw_setup_trace, METH_VARARGS, "setup_trace(gettrace, settrace)"},
    {"setup_exploring", cdraw_setup_exploring, METH_VARARGS,
     "setup_exploring(ExploringSource, its explore_coin, exactdp.explore's dict, REDUCE_BITS)"},
    {"setup_guarded", cdraw_setup_guarded, METH_VARARGS,
     "setup_guarded(GuardedSource, its explore_coin)"},
    {"setup_random", cdraw_setup_random, METH_VARARGS,
     "setup_random(RandomFacade.random, LazyUnit, the events' ContextVar, the unit event, "
     "2**53, the guards' module name)"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef cdraw_module = {
    PyModuleDef_HEAD_INIT, "_cdraw",
    "The lazy draw chain of the white-box audit in C.", -1, cdraw_methods
};

#define INTERN(var, text) do { var = PyUnicode_InternFromString(text); \
    if (var == NULL) return NULL; } while (0)

PyMODINIT_FUNC
PyInit__cdraw(void)
{
    s_zero = PyLong_FromLong(0);
    s_one = PyLong_FromLong(1);
    s_two = PyLong_FromLong(2);
    if (s_zero == NULL || s_one == NULL || s_two == NULL) {
        return NULL;
    }
    INTERN(str_compare, "_compare");
    INTERN(str_split, "_split");
    INTERN(str_draws, "draws");
    INTERN(str_limit, "limit");
    INTERN(str_over, "_over");
    INTERN(str_coin, "_coin");
    INTERN(str_choices, "choices");
    INTERN(str_replayed, "_replayed");
    INTERN(str_recorded, "recorded");
    INTERN(str_prefix, "prefix");
    INTERN(str_log, "log");
    INTERN(str_enter, "_enter");
    INTERN(str_chooser, "chooser");
    INTERN(str_num, "num");
    INTERN(str_den, "den");
    INTERN(str_weigh, "weigh");
    INTERN(str_budgeted, "_budgeted");
    INTERN(str_max_draws, "max_draws");
    INTERN(str_deadline_ns, "deadline_ns");
    INTERN(str_check_budget, "check_budget");
    INTERN(str_now, "_now");
    INTERN(str_reduced, "_reduced");
    INTERN(str_engine, "_engine");
    INTERN(str_probing, "probing");
    INTERN(str_mech, "mech");
    INTERN(str_lazy, "lazy");
    INTERN(str_lazy_used, "lazy_used");
    INTERN(str_units, "_units");
    INTERN(str_name, "__name__");
    INTERN(str_empty, "");
    INTERN(str_random, "random");
    INTERN(str_exactdp_dot, "exactdp.");
    INTERN(str_ratio, "as_integer_ratio");
    INTERN(str_lazy_ints, "lazy_ints");
    INTERN(str_ints, "_ints");
    INTERN(str_exact_limit, "exact_limit");
    INTERN(str_source, "source");
    INTERN(str_inner, "inner");
    INTERN(str_size, "size");
    INTERN(str_max_uniform, "max_uniform");
    INTERN(str_history, "history");
    INTERN(s_uniform, "uniform");
    const char *ops[6] = {"<", "<=", "==", "!=", ">", ">="};  /* Py_LT .. Py_GE */
    for (int i = 0; i < 6; i++) {
        INTERN(op_strings[i], ops[i]);
    }
    LazyType.tp_new = PyBaseObject_Type.tp_new;
    if (PyType_Ready(&LazyType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&cdraw_module);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&LazyType);
    if (PyModule_AddObject(m, "Lazy", (PyObject *)&LazyType) < 0) {
        Py_DECREF(&LazyType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

#else /* another Python: the Python code is used */

static struct PyModuleDef cdraw_module = {
    PyModuleDef_HEAD_INIT, "_cdraw", NULL, -1, NULL
};

PyMODINIT_FUNC
PyInit__cdraw(void)
{
    PyErr_SetString(PyExc_ImportError,
                    "the C draw chain is written for CPython 3.11 (the Python one is used)");
    return NULL;
}

#endif
