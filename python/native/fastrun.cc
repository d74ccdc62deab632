// geon._fastrun: the Python package's run() for a feed of plain numpy arrays shaped as the
// session's last plain run, in one C call: a tiny model's run spent more time in the ctypes
// path's Python (packing the GeonTensor arrays, ~2.7 us) than in the library (~3 us).
// Anything it does not take (another dict, a dtype or shape the plan does not name, a
// non-contiguous or misaligned array) returns None, and the caller goes the general way, which
// owns every error message. Built beside libgeon_provider.so for the python3 that configured
// the build; the package runs without it (python/geon/_run_path.py).
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <cstring>

#include "geon/geon.h"

namespace {

using RunFn = GeonStatus* (*)(GeonSession*, const char* const*, const GeonTensor*, size_t,
                              const char* const*, size_t, GeonTensor*, GeonResult**);

// More inputs or outputs than this go the ctypes way (no allocation here).
constexpr Py_ssize_t kMaxTensors = 32;

// numpy.ndarray and numpy.empty, from setup(); the attribute name "dtype", made once.
PyObject* g_ndarray = nullptr;
PyObject* g_empty = nullptr;
PyObject* g_dtype = nullptr;

// Buffers held until run() returns, released on every way out.
struct Views {
  Py_buffer view[2 * kMaxTensors];
  int count = 0;
  ~Views() {
    for (int i = 0; i < count; ++i) PyBuffer_Release(&view[i]);
  }
  // The data of `array` when it is C-contiguous with the plan's shape (a tuple of ints) and
  // byte count, and aligned for its elements; null (no Python error set) otherwise.
  void* take(PyObject* array, int flags, PyObject* shape, Py_ssize_t bytes) {
    Py_buffer* v = &view[count];
    if (PyObject_GetBuffer(array, v, flags | PyBUF_C_CONTIGUOUS) != 0) {
      PyErr_Clear();
      return nullptr;
    }
    ++count;
    const Py_ssize_t rank = PyTuple_GET_SIZE(shape);
    if (v->ndim != rank || v->len != bytes || v->itemsize <= 0 ||
        reinterpret_cast<uintptr_t>(v->buf) % static_cast<uintptr_t>(v->itemsize) != 0)
      return nullptr;
    for (Py_ssize_t d = 0; d < rank; ++d)
      if (v->shape[d] != PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, d))) return nullptr;
    return v->buf;
  }
};

// A GeonTensor from a plan's (element type, shape, shape address, bytes) at `at`.
bool describe(PyObject* want, Py_ssize_t at, void* data, GeonTensor* t) {
  PyObject* shape = PyTuple_GET_ITEM(want, at + 1);
  t->dtype = static_cast<GeonDType>(PyLong_AsLong(PyTuple_GET_ITEM(want, at)));
  t->rank = static_cast<int32_t>(PyTuple_GET_SIZE(shape));
  t->shape = static_cast<const int64_t*>(PyLong_AsVoidPtr(PyTuple_GET_ITEM(want, at + 2)));
  t->data = data;
  t->bytes = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(want, at + 3));
  return !PyErr_Occurred();
}

// setup(numpy.ndarray, numpy.empty), once at import.
PyObject* setup(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "_fastrun.setup takes 2 arguments");
    return nullptr;
  }
  Py_INCREF(args[0]);
  Py_INCREF(args[1]);
  Py_XDECREF(g_ndarray);
  Py_XDECREF(g_empty);
  g_ndarray = args[0];
  g_empty = args[1];
  Py_RETURN_NONE;
}

// run(run_fn, session, feed, plan) -> list of arrays | int (a GeonStatus*) | None
//   plan: (input names' address, output names' address or 0, output names' count (0: all),
//          inputs, outputs) with
//     inputs  a tuple of (name, dtype, element type, shape, shape address, bytes)
//     outputs a tuple of (dtype, element type, shape, shape address, bytes)
PyObject* run(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4 || !g_empty) {
    PyErr_SetString(PyExc_TypeError, "_fastrun.run takes 4 arguments, after setup()");
    return nullptr;
  }
  PyObject *feed = args[2], *plan = args[3];
  if (!PyDict_CheckExact(feed) || !PyTuple_CheckExact(plan) || PyTuple_GET_SIZE(plan) != 5)
    Py_RETURN_NONE;
  const auto fn = reinterpret_cast<RunFn>(PyLong_AsVoidPtr(args[0]));
  auto* session = static_cast<GeonSession*>(PyLong_AsVoidPtr(args[1]));
  const auto in_names =
      static_cast<const char* const*>(PyLong_AsVoidPtr(PyTuple_GET_ITEM(plan, 0)));
  const auto out_names =
      static_cast<const char* const*>(PyLong_AsVoidPtr(PyTuple_GET_ITEM(plan, 1)));
  const Py_ssize_t n_names = PyLong_AsSsize_t(PyTuple_GET_ITEM(plan, 2));
  if (PyErr_Occurred()) return nullptr;
  PyObject *inputs = PyTuple_GET_ITEM(plan, 3), *outputs = PyTuple_GET_ITEM(plan, 4);
  const Py_ssize_t n_in = PyTuple_GET_SIZE(inputs), n_out = PyTuple_GET_SIZE(outputs);
  if (n_in > kMaxTensors || n_out > kMaxTensors || PyDict_GET_SIZE(feed) != n_in) Py_RETURN_NONE;

  Views views;
  GeonTensor in[kMaxTensors], out[kMaxTensors];
  // The feed in the plan's order (a dict keeps its insertion order, which the plan's key had).
  Py_ssize_t pos = 0, i = 0;
  PyObject *name, *value;
  while (PyDict_Next(feed, &pos, &name, &value) && i < n_in) {
    PyObject* want = PyTuple_GET_ITEM(inputs, i);
    PyObject* want_name = PyTuple_GET_ITEM(want, 0);
    if (name != want_name &&
        !(PyUnicode_CheckExact(name) && PyUnicode_Compare(name, want_name) == 0))
      Py_RETURN_NONE;
    // Exactly an ndarray of the plan's dtype (a subclass or another dtype goes the general way).
    if (Py_TYPE(value) != reinterpret_cast<PyTypeObject*>(g_ndarray)) Py_RETURN_NONE;
    PyObject* dtype = PyObject_GetAttr(value, g_dtype);
    if (!dtype) return nullptr;
    PyObject* want_dtype = PyTuple_GET_ITEM(want, 1);
    const int same = dtype == want_dtype ? 1 : PyObject_RichCompareBool(dtype, want_dtype, Py_EQ);
    Py_DECREF(dtype);
    if (same < 0) return nullptr;
    if (!same) Py_RETURN_NONE;
    // Read-only arrays serve: the library never writes an input.
    void* data = views.take(value, PyBUF_ND, PyTuple_GET_ITEM(want, 3),
                            PyLong_AsSsize_t(PyTuple_GET_ITEM(want, 5)));
    if (!data) Py_RETURN_NONE;
    if (!describe(want, 2, data, &in[i])) return nullptr;
    ++i;
  }
  if (i != n_in) Py_RETURN_NONE;

  PyObject* arrays = PyList_New(n_out);
  if (!arrays) return nullptr;
  for (Py_ssize_t o = 0; o < n_out; ++o) {
    PyObject* want = PyTuple_GET_ITEM(outputs, o);
    PyObject* shape = PyTuple_GET_ITEM(want, 2);
    PyObject* made =
        PyObject_CallFunctionObjArgs(g_empty, shape, PyTuple_GET_ITEM(want, 0), nullptr);
    if (!made) {
      Py_DECREF(arrays);
      return nullptr;
    }
    PyList_SET_ITEM(arrays, o, made);
    void* data =
        views.take(made, PyBUF_WRITABLE, shape, PyLong_AsSsize_t(PyTuple_GET_ITEM(want, 4)));
    if (!data || !describe(want, 1, data, &out[o])) {  // numpy.empty's arrays always serve
      Py_DECREF(arrays);
      if (PyErr_Occurred()) return nullptr;
      Py_RETURN_NONE;
    }
  }

  PyThreadState* released = PyEval_SaveThread();
  GeonStatus* status = fn(session, in_names, in, static_cast<size_t>(n_in), out_names,
                          static_cast<size_t>(n_names), out, nullptr);
  PyEval_RestoreThread(released);
  if (status) {
    Py_DECREF(arrays);
    return PyLong_FromVoidPtr(status);
  }
  return arrays;
}

PyMethodDef kMethods[] = {
    {"setup", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(setup)), METH_FASTCALL,
     "setup(numpy.ndarray, numpy.empty)"},
    {"run", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(run)), METH_FASTCALL,
     "run(run_fn, session, feed, plan): a plain run's outputs, a failed run's status address, "
     "or None for a feed the plan does not take."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT, "_fastrun", nullptr, -1, kMethods, nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__fastrun() {
  if (!g_dtype && !(g_dtype = PyUnicode_InternFromString("dtype"))) return nullptr;
  return PyModule_Create(&kModule);
}
