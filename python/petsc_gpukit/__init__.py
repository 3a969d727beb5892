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

__all__ = ["init", "library_path", "config", "ArrayView", "array_view"]

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

        if _lib is None:
            raise RuntimeError("petsc_gpukit: call petsc_gpukit.init() first")
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
        backend = ctypes.c_int()
        _call("PetscGPUKitGetBackend", ctypes.byref(backend))
        self.on_device = backend.value == _BACKEND_CUDA

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
    on an error code"""
    f = getattr(_lib, name)
    f.restype = ctypes.c_int
    err = f(*args)
    if err:
        from petsc4py import PETSc

        raise PETSc.Error(err)
