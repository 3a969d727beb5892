"""petsc-gpukit for petsc4py: the plug-in's types (``ellrcuda``, ``diacuda``, ``cuda`` vectors,
``cggpu``, ``bicggpu``, ``ssorgpu``, ...) in the PETSc that petsc4py already uses.

Use ``petsc_gpukit.init(sys.argv)`` in place of ``petsc4py.init(sys.argv)``::

    import sys
    import petsc_gpukit
    PETSc = petsc_gpukit.init(sys.argv)
    ksp = PETSc.KSP().create()
    ksp.setType("cggpu")

The library was built for one PETSc (the one ``pip install`` found); ``config()`` says which.

A ``cuda`` vector's own array, without a copy: ``with petsc_gpukit.array_view(v, "rw") as a:``
gives it as a NumPy array on the host backend, and on the GPU as an object that CuPy and PyTorch
take without a copy (``cupy.asarray(a)``, ``torch.as_tensor(a, device="cuda")``: the CUDA Array
Interface); PETSc's state of the vector moves on when the view is released, as after
``VecGetArrayWrite()``.
"""
import ctypes
import os

__all__ = ["init", "library_path", "config", "backend", "ArrayView", "array_view", "set_preallocation_coo", "set_values_coo", "transfer_counts", "vec_from_array"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_lib = None


def library_path():
    """The path of libpetscgpukit.so: the one installed with the package, or the one named by
    PETSC_GPUKIT_LIBRARY (a build tree's, for the project's own tests)"""
    return os.environ.get("PETSC_GPUKIT_LIBRARY") or os.path.join(_HERE, "lib", "libpetscgpukit.so")


def config():
    """What the package was built for: PETSC_DIR, the PETSc version and scalar type, CUDA (yes/no)"""
    path = os.path.join(_HERE, "lib", "config.txt")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)


def _load(PETSc):
    """Loads the library into the running PETSc and registers its types, once"""
    global _lib
    if _lib is not None:
        return
    path = library_path()
    if not os.path.exists(path):
        raise ImportError("petsc_gpukit: the library is missing at %s (reinstall the package: pip install petsc-gpukit)" % path)
    built = config().get("PETSC_VERSION")
    running = "%d.%d" % PETSc.Sys.getVersion()[:2]
    if built and built != running:
        raise ImportError("petsc_gpukit was built for PETSc %s, and petsc4py runs PETSc %s: reinstall it in this environment "
                          "(pip install --force-reinstall --no-cache-dir petsc-gpukit)" % (built, running))
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    lib.PetscGPUKitInitializePackage.restype = ctypes.c_int
    err = lib.PetscGPUKitInitializePackage()
    if err:
        raise RuntimeError("petsc_gpukit: PetscGPUKitInitializePackage() failed with PETSc error %d" % err)
    _lib = lib


def init(args=None, arch=None, comm=None):
    """petsc4py.init(args, arch, comm), then the plug-in loaded into that PETSc: its types and
    options work as they do with -dll_append. Returns petsc4py's PETSc module. Called after
    petsc4py is initialized already, it only loads the plug-in."""
    import petsc4py

    petsc4py.init(args, arch, comm)
    from petsc4py import PETSc

    _load(PETSc)
    return PETSc


_VIEW_TYPES = ("seqcuda", "mpicuda", "seqgkcuda", "mpigkcuda")
_VIEW_CALLS = {"r": ("VecGPUKitGetDeviceArrayRead", "VecGPUKitRestoreDeviceArrayRead"),
               "w": ("VecGPUKitGetDeviceArrayWrite", "VecGPUKitRestoreDeviceArrayWrite"),
               "rw": ("VecGPUKitGetDeviceArray", "VecGPUKitRestoreDeviceArray")}
_BACKEND_CUDA = 1  # PetscGPUKitBackendType: PETSCGPUKIT_BACKEND_CUDA
_DL_CPU, _DL_CUDA = 1, 2  # DLPack's kDLCPU, kDLCUDA


def backend():
    """Where the library runs in this process: "cuda" (a GPU) or "host" (its host backend), chosen
    now if nothing has needed it yet"""
    b = ctypes.c_int()
    _call("PetscGPUKitGetBackend", ctypes.byref(b))
    return "cuda" if b.value == _BACKEND_CUDA else "host"


class ArrayView:
    """A ``cuda`` vector's own array (this process's part), with no copy: the device array on the
    GPU, through the CUDA Array Interface (``__cuda_array_interface__``, which CuPy, PyTorch and
    Numba read), or the array itself on the library's host backend, through NumPy's
    (``__array_interface__``; ``numpy.asarray(view)``).

    mode ``"r"`` reads (``VecGPUKitGetDeviceArrayRead()``), ``"w"`` overwrites every entry (the old
    values are not brought to the device first: ``VecGPUKitGetDeviceArrayWrite()``), ``"rw"``
    both. ``release()`` (or the end of a ``with`` block) gives the array back; after a write the
    vector's state moves on then, so PETSc sees the new values. A view released already, or a
    vector PETSc has freed, is never handed out again: the view holds a reference to the vector
    from its creation until it is itself collected (and with it every array made from it), so
    that ``vec.destroy()`` while an array is alive frees nothing under it.
    """

    def __init__(self, vec, mode="rw"):
        from petsc4py import PETSc

        if mode not in _VIEW_CALLS:
            raise ValueError("petsc_gpukit.ArrayView: mode %r: use 'r', 'w' or 'rw'" % (mode,))
        if not isinstance(vec, PETSc.Vec):
            raise TypeError("petsc_gpukit.ArrayView: a petsc4py Vec is needed, not %s" % type(vec).__name__)
        vtype = vec.getType()
        if vtype not in _VIEW_TYPES:
            raise TypeError("petsc_gpukit.ArrayView: a vector of type %s has no device array of the library's: create it with type "
                            "'cuda' (vec.setType('cuda'), or -vec_type cuda)" % vtype)
        self._handle = ctypes.c_void_p(vec.handle)
        self._mode = mode
        self._n = vec.getLocalSize()
        self._dtype = PETSc.ScalarType
        self._ptr = ctypes.c_void_p()
        self._held = False
        self._live = False
        _call("PetscObjectReference", self._handle)
        self._held = True
        _call(_VIEW_CALLS[mode][0], self._handle, ctypes.byref(self._ptr))
        self._live = True
        self.on_device = backend() == "cuda"

    def _interface(self):
        import numpy

        if not self._live:
            raise ValueError("petsc_gpukit.ArrayView: released; make a new view of the vector")
        dt = numpy.dtype(self._dtype)
        return {"shape": (self._n,), "typestr": dt.str, "data": (self._ptr.value or 0, self._mode == "r"), "version": 3}

    @property
    def __cuda_array_interface__(self):
        if not self.on_device:
            raise AttributeError("petsc_gpukit.ArrayView: the library runs on its host backend: the array is host memory (numpy.asarray)")
        d = self._interface()
        d["strides"] = None
        d["stream"] = 1  # the library's kernels run on CUDA's legacy default stream
        return d

    @property
    def __array_interface__(self):
        if self.on_device:
            raise AttributeError("petsc_gpukit.ArrayView: the array is device memory: take it with CuPy or PyTorch (__cuda_array_interface__)")
        return self._interface()

    def __dlpack_device__(self):
        """(kDLCUDA, the device) on the GPU, (kDLCPU, 0) on the host backend"""
        if not self.on_device:
            return (_DL_CPU, 0)
        dev = ctypes.c_int()
        _call("PetscGPUKitGetDevice", ctypes.byref(dev))
        return (_DL_CUDA, dev.value)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of the array (numpy.from_dlpack, cupy.from_dlpack, torch.from_dlpack):
        the array itself, no copy; it holds the view (and so the vector) until its consumer lets
        it go. A consumer that takes DLPack 1.0 (max_version (1, 0) or later) gets the versioned
        capsule, a read view's marked read-only; an older one the unversioned capsule. copy=True,
        or a dl_device other than the array's, raises BufferError (the view never copies). The
        library's kernels run on CUDA's legacy default stream, which orders itself with the
        consumer's blocking streams."""
        self._interface()  # not released
        if copy:
            raise BufferError("petsc_gpukit.ArrayView: the view is the vector's own array and never a copy: copy it after taking it")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("petsc_gpukit.ArrayView: the array is on DLPack device %s, not %s" % (self.__dlpack_device__(), tuple(dl_device)))
        return _dlpack_capsule(self, max_version is not None and tuple(max_version) >= (1, 0))

    def release(self):
        """Gives the array back to the vector (its state moves on after a write); arrays made from
        the view must not be written after it"""
        if self._live:
            self._live = False
            _call(_VIEW_CALLS[self._mode][1], self._handle, ctypes.byref(self._ptr))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def __del__(self):
        try:
            from petsc4py import PETSc

            if PETSc.Sys.isFinalized():
                return
            self.release()
            if self._held:
                self._held = False
                _call("PetscObjectDereference", self._handle)
        except Exception:  # in interpreter teardown nothing can be done
            pass


def array_view(vec, mode="rw"):
    """ArrayView(vec, mode): a cuda vector's own array, with no copy (see ArrayView)"""
    return ArrayView(vec, mode)


def _call(name, *args):
    """Calls the C function name of the library (or of the PETSc it links) and raises PETSc.Error
    on an error code; RuntimeError before init()"""
    if _lib is None:
        raise RuntimeError("petsc_gpukit: call petsc_gpukit.init() first")
    f = getattr(_lib, name)
    f.restype = ctypes.c_int
    err = f(*args)
    if err:
        from petsc4py import PETSc

        raise PETSc.Error(err)


_COO_ATTR = "petsc_gpukit_coo_n"
_DEVICE_MATS = ("seqellrcuda", "mpiellrcuda", "seqdiacuda", "mpidiacuda")


def set_preallocation_coo(mat, i, j):
    """MatSetPreallocationCOO() with the host arrays i and j of this process's entries' rows and
    columns, the entries' count kept with the matrix for set_values_coo to check the values'
    length against"""
    import numpy
    from petsc4py import PETSc

    i = numpy.array(i, dtype=PETSc.IntType)  # copies: MatSetPreallocationCOO() may change them
    j = numpy.array(j, dtype=PETSc.IntType)
    if i.ndim != 1 or i.shape != j.shape:
        raise ValueError("petsc_gpukit.set_preallocation_coo: i and j must be 1-D and of one length, not %s and %s" % (i.shape, j.shape))
    # through C: petsc4py's setPreallocationCOO() is not in every release
    _call("MatSetPreallocationCOO", ctypes.c_void_p(mat.handle), ctypes.c_int64(len(i)), ctypes.c_void_p(i.ctypes.data), ctypes.c_void_p(j.ctypes.data))
    mat.setAttr(_COO_ATTR, len(i))


def _buffer(values):
    """(address, length, dtype, on the device) of a 1-D contiguous array: one with the CUDA Array
    Interface (CuPy, PyTorch, Numba, ArrayView), or anything NumPy takes without a copy"""
    import numpy

    cai = getattr(values, "__cuda_array_interface__", None)
    if cai is not None:
        dtype = numpy.dtype(cai["typestr"])
        shape = tuple(cai["shape"])
        strides = cai.get("strides")
        if len(shape) != 1 or (strides is not None and strides[0] != dtype.itemsize and shape[0] > 1):
            raise ValueError("petsc_gpukit: a 1-D contiguous array is needed, not shape %s strides %s" % (shape, strides))
        return cai["data"][0], shape[0], dtype, True
    a = values if isinstance(values, numpy.ndarray) else numpy.asarray(values)
    if a.ndim != 1 or not a.flags.c_contiguous:
        raise ValueError("petsc_gpukit: a 1-D contiguous array is needed, not shape %s %s" % (a.shape, "contiguous" if a.flags.c_contiguous else "strided"))
    return a.ctypes.data, a.shape[0], a.dtype, False


def _check_scalars(dtype, what):
    """TypeError unless dtype is PETSc's scalar type: "<what> of <dtype>, and PETSc's scalars are ..." """
    import numpy
    from petsc4py import PETSc

    if dtype != numpy.dtype(PETSc.ScalarType):
        raise TypeError("%s of %s, and PETSc's scalars are %s" % (what, dtype, numpy.dtype(PETSc.ScalarType)))


def set_values_coo(mat, values, addv=False):
    """MatSetValuesCOO() with values straight from a CuPy or PyTorch device array (no host copy) or a
    NumPy one: this process's entries' values in the order of set_preallocation_coo's (i, j),
    inserted, or added with addv. The values must be PETSc's scalar type, 1-D, contiguous and as
    many as the entries; device arrays go to the library's device matrices (ellrcuda, diacuda)
    while it runs on the GPU, on CUDA's legacy default stream (CuPy's and PyTorch's default)."""
    from petsc4py import PETSc

    n = mat.getAttr(_COO_ATTR)
    if n is None:
        raise ValueError("petsc_gpukit.set_values_coo: preallocate the matrix with petsc_gpukit.set_preallocation_coo(mat, i, j) first")
    ptr, length, dtype, device = _buffer(values)
    _check_scalars(dtype, "petsc_gpukit.set_values_coo: values")
    if length != n:
        raise ValueError("petsc_gpukit.set_values_coo: %d values for the %d entries set_preallocation_coo gave" % (length, n))
    if device:
        if backend() != "cuda" or mat.getType() not in _DEVICE_MATS:
            raise TypeError("petsc_gpukit.set_values_coo: device values need one of the library's device matrices (%s, not %s) while it runs on "
                            "the GPU" % (", ".join(_DEVICE_MATS), mat.getType()))
    mode = PETSc.InsertMode.ADD_VALUES if addv else PETSc.InsertMode.INSERT_VALUES
    _call("MatSetValuesCOO", ctypes.c_void_p(mat.handle), ctypes.c_void_p(ptr), ctypes.c_int(int(mode)))


class _Transfers(ctypes.Structure):
    _fields_ = [("h2d_count", ctypes.c_double), ("h2d_bytes", ctypes.c_double), ("d2h_count", ctypes.c_double), ("d2h_bytes", ctypes.c_double)]


def transfer_counts():
    """The host/device copies the library has made (PetscGPUKitGetTransferCounts()): a dict of
    h2d_count, h2d_bytes, d2h_count, d2h_bytes"""
    t = _Transfers()
    _call("PetscGPUKitGetTransferCounts", ctypes.byref(t))
    return {k: getattr(t, k) for k, _ in _Transfers._fields_}


_BUFFER_ATTR = "petsc_gpukit_buffer"


def vec_from_array(array, comm=None):
    """A cuda vector whose values are array's own memory, with no copy (VecGPUKitPlaceDeviceArray()):
    a CuPy or PyTorch array on the GPU while the library runs there (any object with the CUDA
    Array Interface), a NumPy array on its host backend. The array must be PETSc's scalar type,
    1-D and contiguous; it is this process's part of the vector (comm: its communicator, default
    one process). The vector keeps the array alive until it is destroyed. Written directly
    (not through PETSc or array_view), the vector needs vec.stateIncrease() before PETSc reads it."""
    from petsc4py import PETSc

    ptr, n, dtype, device = _buffer(array)
    _check_scalars(dtype, "petsc_gpukit.vec_from_array: an array")
    where = backend()
    if device != (where == "cuda"):
        raise TypeError("petsc_gpukit.vec_from_array: a %s array, and the library runs on %s: give it a %s array"
                        % ("device" if device else "host", "the GPU" if where == "cuda" else "its host backend",
                           "device (CuPy, PyTorch)" if where == "cuda" else "host (NumPy)"))
    v = PETSc.Vec().create(comm=comm if comm is not None else PETSc.COMM_SELF)
    v.setSizes((n, PETSc.DECIDE))
    v.setType("cuda")
    try:
        _call("VecGPUKitPlaceDeviceArray", ctypes.c_void_p(v.handle), ctypes.c_void_p(ptr))
    except Exception:
        v.destroy()
        raise
    v.setAttr(_BUFFER_ATTR, array)
    return v


# DLPack (dlpack.h: the "dltensor" capsule of the versions before 1.0, and 1.0's
# "dltensor_versioned"): the structures, and the capsules' owners kept here until their deleter runs
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


# the deleter takes the managed tensor (either structure) as a bare pointer: it needs its address only
_DLDeleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DLDeleter)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", _DLDeleter), ("flags", ctypes.c_uint64),
                ("dl_tensor", _DLTensor)]


_DL_READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY
_dl_owners = {}  # the managed tensor's address: what it holds (the view, the structure, the shape)


def _dl_make_deleter(owners):
    """the deleter a consumer calls: it reaches only what it closes over, which stays valid while
    the interpreter tears the module down"""

    def delete(managed):
        owners.pop(managed, None)

    return delete


_dl_deleter = _DLDeleter(_dl_make_deleter(_dl_owners))
# the capsule as a bare pointer: a py_object would take a new reference to a capsule being freed
_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# the C API's functions as prototypes of the module's own: ctypes.pythonapi's attributes are
# shared, and another module may give them other argument types
_capsule_get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", ctypes.pythonapi))
_capsule_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", ctypes.pythonapi))
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, _CapsuleDestructor)(("PyCapsule_New", ctypes.pythonapi))


def _dl_make_destructor(owners, valid, get, name):
    """a capsule no consumer took (still named as made): its tensor freed when the capsule goes"""

    def destroy(capsule):
        if valid(capsule, name):
            owners.pop(get(capsule, name), None)

    return destroy


# per capsule name, its destructor; the callbacks are never freed: a consumer may call them while
# the interpreter exits, after this module's objects are gone, and a freed callback would crash it
_dl_kinds = {}
for _name in (b"dltensor", b"dltensor_versioned"):
    _dl_kinds[_name] = _CapsuleDestructor(_dl_make_destructor(_dl_owners, _capsule_valid, _capsule_get, _name))
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(_dl_kinds[_name]))
del _name
ctypes.pythonapi.Py_IncRef(ctypes.py_object(_dl_deleter))


def _dlpack_capsule(view, versioned):
    import numpy

    dt = numpy.dtype(view._dtype)
    shape = (ctypes.c_int64 * 1)(view._n)
    if versioned:
        m = _DLManagedTensorVersioned()
        m.version = _DLPackVersion(1, 0)
        m.flags = _DL_READ_ONLY if view._mode == "r" else 0
        name = b"dltensor_versioned"
    else:
        m = _DLManagedTensor()
        name = b"dltensor"
    m.dl_tensor.data = view._ptr.value
    m.dl_tensor.device = _DLDevice(*view.__dlpack_device__())
    m.dl_tensor.ndim = 1
    m.dl_tensor.dtype = _DLDataType(5 if dt.kind == "c" else 2, dt.itemsize * 8, 1)  # kDLComplex, kDLFloat
    m.dl_tensor.shape = shape
    m.dl_tensor.strides = None
    m.dl_tensor.byte_offset = 0
    m.manager_ctx = None
    m.deleter = _dl_deleter
    addr = ctypes.addressof(m)
    _dl_owners[addr] = (view, m, shape)
    return _capsule_new(addr, name, _dl_kinds[name])
