"""pytest: the Python package petsc_gpukit as a petsc4py user meets it.

Run by make check (tests/run) with the package from python/ and the build's library
(PETSC_GPUKIT_LIBRARY), or against an installed package; PETSC_GPUKIT_TEST_ARGS holds PETSc
options for the run (tests/run's: the backend, malloc checks).
"""
import os
import sys

import pytest

import petsc_gpukit

PETSc = petsc_gpukit.init([sys.argv[0]] + os.environ.get("PETSC_GPUKIT_TEST_ARGS", "").split())
KIND = "seq" if PETSc.COMM_WORLD.getSize() == 1 else "mpi"  # the types' prefix on all processes (under mpiexec)


def laplacian(n, mat_type=None, comm=None):
    """The 5-point Laplacian on an n x n grid, AIJ or converted to mat_type (on all processes, or comm)"""
    A = PETSc.Mat().createAIJ([n * n, n * n], nnz=5, comm=comm or PETSc.COMM_WORLD)
    r0, r1 = A.getOwnershipRange()
    for r in range(r0, r1):
        i, j = divmod(r, n)
        A.setValue(r, r, 4.0)
        for c, inside in ((r - n, i > 0), (r + n, i < n - 1), (r - 1, j > 0), (r + 1, j < n - 1)):
            if inside:
                A.setValue(r, c, -1.0)
    A.assemble()
    if mat_type:
        B = A.convert(mat_type, PETSc.Mat())  # a new matrix: convert() with no target converts in place
        A.destroy()
        return B
    return A


def solve(A, ksp_type, pc_type="jacobi"):
    ksp = PETSc.KSP().create(comm=A.getComm())
    ksp.setOperators(A)
    ksp.setType(ksp_type)
    ksp.getPC().setType(pc_type)
    ksp.setTolerances(rtol=1e-10)
    x, b = A.createVecs()
    b.set(1.0)
    ksp.solve(b, x)
    its, reason = ksp.getIterationNumber(), ksp.getConvergedReason()
    ksp.destroy()
    b.destroy()
    return x, its, reason


def test_types_after_init():
    """the plug-in's types exist in petsc4py's PETSc after init(), with no option or path"""
    A = PETSc.Mat().create()
    A.setSizes([4, 4])
    A.setType("ellrcuda")
    assert A.getType() == KIND + "ellrcuda"
    v = PETSc.Vec().create()
    v.setSizes(4)
    v.setType("cuda")
    assert v.getType() == KIND + "cuda"
    ksp = PETSc.KSP().create()
    ksp.setType("cggpu")
    assert ksp.getType() == "cggpu"
    ksp.getPC().setType("ssorgpu")
    assert ksp.getPC().getType() == "ssorgpu"
    for o in (A, v, ksp):
        o.destroy()


def test_cggpu_solves_as_cg():
    """cggpu on ellrcuda: PETSc's cg's iterations on AIJ (within one) and its answer"""
    A, D = laplacian(16), laplacian(16, "ellrcuda")
    x, its, reason = solve(A, "cg")
    y, its2, reason2 = solve(D, "cggpu")
    assert reason > 0 and reason2 > 0
    assert abs(its - its2) <= 1
    y.axpy(-1.0, x)
    assert y.norm() <= 1e-8 * x.norm()
    for o in (A, D, x, y):
        o.destroy()


def test_options_choose_types():
    """-ksp_type cggpu and -mat_type ellrcuda through the options database, as on the command line"""
    opts = PETSc.Options()
    opts["ksp_type"] = "cggpu"
    opts["mat_type"] = "ellrcuda"
    try:
        A = PETSc.Mat().create()
        A.setSizes([8, 8])
        A.setFromOptions()
        ksp = PETSc.KSP().create()
        ksp.setFromOptions()
        assert A.getType() == KIND + "ellrcuda" and ksp.getType() == "cggpu"
        A.destroy()
        ksp.destroy()
    finally:
        del opts["ksp_type"]
        del opts["mat_type"]


def test_init_again():
    """a second init() loads nothing again and returns the same module"""
    lib = petsc_gpukit._lib
    assert petsc_gpukit.init() is PETSc
    assert petsc_gpukit._lib is lib


def test_missing_library(monkeypatch):
    """no library where the package looks: an ImportError that names the path"""
    monkeypatch.setattr(petsc_gpukit, "_lib", None)
    monkeypatch.setenv("PETSC_GPUKIT_LIBRARY", "/nonexistent/libpetscgpukit.so")
    with pytest.raises(ImportError, match="/nonexistent/libpetscgpukit.so"):
        petsc_gpukit.init()


def test_other_petsc(monkeypatch):
    """a library built for another PETSc version than petsc4py runs: an ImportError saying both"""
    monkeypatch.setattr(petsc_gpukit, "_lib", None)
    monkeypatch.setattr(petsc_gpukit, "config", lambda: {"PETSC_VERSION": "2.9"})
    with pytest.raises(ImportError, match="built for PETSc 2.9"):
        petsc_gpukit.init()


def cuda_vec(n, values=None):
    v = PETSc.Vec().create(comm=PETSc.COMM_SELF)
    v.setSizes(n)
    v.setType("cuda")
    if values is not None:
        v.setArray(values)
    return v


def as_array(view):
    """the view as an array of the machine it lives on: CuPy on the GPU, NumPy on the host backend"""
    if view.on_device:
        cupy = pytest.importorskip("cupy")
        return cupy.asarray(view)
    import numpy

    return numpy.asarray(view)


def to_host(a):
    return a.get() if hasattr(a, "get") else a


def test_view_read():
    """a read view: the vector's values, no copy of them, not writable"""
    import numpy

    v = cuda_vec(5, numpy.arange(5.0))
    with petsc_gpukit.array_view(v, "r") as view:
        a = as_array(view)
        assert numpy.allclose(to_host(a), numpy.arange(5.0))
        if not view.on_device:
            assert not a.flags.writeable
            with pytest.raises(AttributeError):
                view.__cuda_array_interface__
    v.destroy()


def test_view_write_moves_state():
    """a write through an rw view, released: PETSc sees it (its cached norm is not reused)"""
    import numpy

    v = cuda_vec(4, numpy.ones(4))
    assert v.norm() == pytest.approx(2.0)  # the norm now cached by PETSc for this state
    view = petsc_gpukit.array_view(v, "rw")
    a = as_array(view)
    a *= 3.0
    view.release()
    assert v.norm() == pytest.approx(6.0)
    assert numpy.allclose(v.getArray(readonly=True), 3.0)
    v.destroy()


def test_view_write_only():
    """a write-only view: every entry written, the vector holds them after the release"""
    import numpy

    v = cuda_vec(6)
    with petsc_gpukit.array_view(v, "w") as view:
        a = as_array(view)
        a[:] = numpy.arange(6.0) if not view.on_device else pytest.importorskip("cupy").arange(6.0)
    assert numpy.allclose(v.getArray(readonly=True), numpy.arange(6.0))
    v.destroy()


def test_view_errors():
    """a vector of another type, a mode that is none, a released view: clear Python exceptions"""
    w = PETSc.Vec().createSeq(3)
    with pytest.raises(TypeError, match="create it with type 'cuda'"):
        petsc_gpukit.array_view(w)
    w.destroy()
    v = cuda_vec(3)
    with pytest.raises(ValueError, match="mode"):
        petsc_gpukit.array_view(v, "x")
    with pytest.raises(TypeError, match="petsc4py Vec"):
        petsc_gpukit.array_view([1.0, 2.0])
    view = petsc_gpukit.array_view(v, "r")
    view.release()
    view.release()  # a second release does nothing
    with pytest.raises(ValueError, match="released"):
        view._interface()
    del view
    v.destroy()


def test_view_outlives_destroy():
    """an array made from a view stays valid after vec.destroy(): the view holds the vector until
    it is collected, and then frees it (-malloc_dump: nothing leaks)"""
    import gc

    import numpy

    v = cuda_vec(3, numpy.array([1.0, 2.0, 3.0]))
    view = petsc_gpukit.array_view(v, "r")
    a = as_array(view)
    view.release()
    del view
    v.destroy()
    gc.collect()
    assert numpy.allclose(to_host(a), [1.0, 2.0, 3.0])
    del a
    gc.collect()


def laplacian_coo(n):
    """the 5-point Laplacian's COO entries on an n x n grid: rows, columns, values"""
    import numpy

    rows, cols, vals = [], [], []
    for r in range(n * n):
        i, j = divmod(r, n)
        for c, inside, v in ((r, True, 4.0), (r - n, i > 0, -1.0), (r + n, i < n - 1, -1.0), (r - 1, j > 0, -1.0), (r + 1, j < n - 1, -1.0)):
            if inside:
                rows.append(r)
                cols.append(c)
                vals.append(v)
    return numpy.array(rows), numpy.array(cols), numpy.array(vals, dtype=PETSc.ScalarType)


def test_coo_assembly():
    """set_preallocation_coo and set_values_coo (inserted, then added) give AIJ's matrix; values
    from CuPy on the GPU, NumPy on the host backend"""
    i, j, v = laplacian_coo(6)
    A = laplacian(6, comm=PETSc.COMM_SELF)
    M = PETSc.Mat().create(comm=PETSc.COMM_SELF)
    M.setSizes([36, 36])
    M.setType("ellrcuda")
    petsc_gpukit.set_preallocation_coo(M, i, j)
    vals = pytest.importorskip("cupy").asarray(v) if petsc_gpukit.backend() == "cuda" else v
    petsc_gpukit.set_values_coo(M, vals)
    assert M.equal(A.convert("ellrcuda", PETSc.Mat()))
    petsc_gpukit.set_values_coo(M, vals, addv=True)
    A.scale(2.0)
    B = A.convert("ellrcuda", PETSc.Mat())
    assert M.equal(B)
    for o in (A, B, M):
        o.destroy()


def test_coo_errors():
    """values of another type, strided, too few, a matrix not preallocated by the package: clear
    Python exceptions, nothing read out of bounds"""
    import numpy

    i, j, v = laplacian_coo(3)
    M = PETSc.Mat().create(comm=PETSc.COMM_SELF)
    M.setSizes([9, 9])
    M.setType("ellrcuda")
    with pytest.raises(ValueError, match="set_preallocation_coo"):
        petsc_gpukit.set_values_coo(M, v)
    petsc_gpukit.set_preallocation_coo(M, i, j)
    with pytest.raises(TypeError, match="values of float32"):
        petsc_gpukit.set_values_coo(M, v.real.astype(numpy.float32))
    with pytest.raises(ValueError, match="contiguous"):
        petsc_gpukit.set_values_coo(M, numpy.repeat(v, 2)[::2])
    with pytest.raises(ValueError, match="values for the"):
        petsc_gpukit.set_values_coo(M, v[:-1])
    with pytest.raises(ValueError, match="one length"):
        petsc_gpukit.set_preallocation_coo(M, i, j[:-1])
    M.destroy()


def test_transfer_counts():
    """the copies' counts: a host read of a cuda vector's values after a device write is one copy
    to the host (the host backend counts the copies the GPU would make)"""
    import numpy

    v = cuda_vec(8)
    view = petsc_gpukit.array_view(v, "w")
    as_array(view)[:] = 1.0
    view.release()
    c0 = petsc_gpukit.transfer_counts()
    assert numpy.allclose(v.getArray(readonly=True), 1.0)
    c1 = petsc_gpukit.transfer_counts()
    assert c1["d2h_count"] - c0["d2h_count"] == 1 and c1["h2d_count"] == c0["h2d_count"]
    v.destroy()


def test_vec_from_array():
    """a vector on an array's own memory: PETSc's operations read and write it, the array sees
    them, and the vector keeps it alive; a wrong dtype, a strided array, an array of the other
    machine: TypeError or ValueError"""
    import gc

    import numpy

    on_gpu = petsc_gpukit.backend() == "cuda"
    xp = pytest.importorskip("cupy") if on_gpu else numpy
    a = xp.arange(4, dtype=PETSc.ScalarType)
    v = petsc_gpukit.vec_from_array(a)
    assert v.getSize() == 4 and v.getType() == "seqcuda"
    assert v.norm() == pytest.approx(numpy.sqrt(14.0))
    v.scale(2.0)
    assert numpy.allclose(to_host(a), [0.0, 2.0, 4.0, 6.0])
    v.set(0.0)
    a[:] = 5.0  # written by its owner: PETSc told so
    v.stateIncrease()
    v.set(0.0)  # not skipped as a set to the value the vector already had
    assert numpy.allclose(to_host(a), 0.0)
    w = v.duplicate()
    w.set(1.0)
    v.axpy(1.0, w)
    assert numpy.allclose(to_host(a), 1.0)
    assert numpy.allclose(v.getArray(readonly=True), 1.0)
    del a
    gc.collect()
    assert v.sum() == pytest.approx(4.0)  # the vector still holds the array
    for o in (v, w):
        o.destroy()
    with pytest.raises(TypeError, match="scalars are"):
        petsc_gpukit.vec_from_array(xp.zeros(3, dtype=numpy.float32))
    with pytest.raises(ValueError, match="contiguous"):
        petsc_gpukit.vec_from_array(numpy.zeros(6, dtype=PETSc.ScalarType)[::2])
    other = numpy.zeros(3, dtype=PETSc.ScalarType) if on_gpu else None
    if other is not None:
        with pytest.raises(TypeError, match="host array"):
            petsc_gpukit.vec_from_array(other)


def test_view_dlpack():
    """DLPack: numpy.from_dlpack (host backend) or cupy.from_dlpack (GPU) of a view is the
    vector's own array; an untaken capsule, and a taken one once its array goes, free what they
    hold (nothing left behind)"""
    import gc

    import numpy

    v = cuda_vec(4, numpy.arange(4.0))
    with petsc_gpukit.array_view(v, "rw") as view:
        dev = view.__dlpack_device__()
        if view.on_device:
            a = pytest.importorskip("cupy").from_dlpack(view)
            assert dev[0] == 2
            a[1] = 10.0
        else:  # NumPy makes a DLPack array read-only: written through the view's NumPy array
            a = numpy.from_dlpack(view)
            assert dev == (1, 0)
            assert numpy.allclose(a, [0.0, 1.0, 2.0, 3.0])
            numpy.asarray(view)[1] = 10.0
        assert float(a[1]) == 10.0  # the same memory
        capsule = view.__dlpack__()  # never taken
        del capsule
    assert numpy.allclose(v.getArray(readonly=True), [0.0, 10.0, 2.0, 3.0])
    del a, view
    gc.collect()
    assert not petsc_gpukit._dl_owners
    v.destroy()


def test_view_dlpack_versioned():
    """DLPack 1.0: a consumer that asks for it (max_version) gets a "dltensor_versioned" capsule
    of version 1.0 on the vector's own array, a read view's marked read-only and a write view's
    not; copy=True and another device are refused (BufferError); an untaken capsule frees what it
    holds"""
    import ctypes
    import gc

    import numpy

    valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_IsValid", ctypes.pythonapi))
    get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_GetPointer", ctypes.pythonapi))
    v = cuda_vec(3, numpy.arange(3.0))
    for mode, flags in (("r", 1), ("rw", 0), ("w", 0)):
        with petsc_gpukit.array_view(v, mode) as view:
            old = view.__dlpack__(max_version=(0, 8))
            assert valid(old, b"dltensor") and not valid(old, b"dltensor_versioned")
            cap = view.__dlpack__(max_version=(1, 1), dl_device=view.__dlpack_device__())
            assert valid(cap, b"dltensor_versioned")
            m = petsc_gpukit._DLManagedTensorVersioned.from_address(get(cap, b"dltensor_versioned"))
            assert (m.version.major, m.version.minor, m.flags) == (1, 0, flags)
            assert m.dl_tensor.data == view._ptr.value and m.dl_tensor.shape[0] == 3
            assert tuple((m.dl_tensor.device.device_type, m.dl_tensor.device.device_id)) == view.__dlpack_device__()
            with pytest.raises(BufferError, match="never a copy"):
                view.__dlpack__(max_version=(1, 0), copy=True)
            with pytest.raises(BufferError, match="DLPack device"):
                view.__dlpack__(max_version=(1, 0), dl_device=(3 - view.__dlpack_device__()[0], 0))
            del m, cap, old
    gc.collect()
    assert not petsc_gpukit._dl_owners
    v.destroy()


def test_torch():
    """PyTorch: torch.from_dlpack() of a view is the vector's own array (a CUDA tensor on the GPU,
    a CPU one on the host backend), and a write through it reaches PETSc after the release; a
    vector made on a tensor (vec_from_array) is the tensor's memory both ways"""
    import numpy

    torch = pytest.importorskip("torch")
    device = "cuda" if petsc_gpukit.backend() == "cuda" else "cpu"
    dtype = torch.from_numpy(numpy.zeros(1, dtype=PETSc.ScalarType)).dtype
    v = cuda_vec(4, numpy.arange(4.0))
    with petsc_gpukit.array_view(v, "rw") as view:
        t = torch.from_dlpack(view)
        assert t.device.type == device and t.dtype == dtype
        assert numpy.allclose(t.cpu().numpy(), [0.0, 1.0, 2.0, 3.0])
        t.mul_(3.0)
        if device == "cuda":  # the CUDA Array Interface too
            u = torch.as_tensor(view, device="cuda")
            assert u.data_ptr() == t.data_ptr()
        del t
    assert v.sum() == pytest.approx(18.0)
    v.destroy()
    t = torch.arange(5, dtype=dtype, device=device)
    w = petsc_gpukit.vec_from_array(t)
    assert w.getSize() == 5 and w.sum() == pytest.approx(10.0)
    w.scale(2.0)  # PETSc writes the tensor's memory
    assert float(t.sum().real) == pytest.approx(20.0)
    t.add_(1.0)  # and reads it, once told
    w.stateIncrease()
    assert w.sum() == pytest.approx(25.0)
    w.destroy()
    assert float(t.sum().real) == pytest.approx(25.0)  # the tensor outlives the vector


def test_vec_from_array_all_processes():
    """vec_from_array on every process (comm): each process's array is its part of one vector,
    and a solve with cggpu on the processes' ellrcuda matrix reads b from the arrays and writes
    x into them, PETSc's cg's answer on AIJ"""
    import numpy

    comm = PETSc.COMM_WORLD
    rank, size = comm.getRank(), comm.getSize()
    on_gpu = petsc_gpukit.backend() == "cuda"
    xp = pytest.importorskip("cupy") if on_gpu else numpy
    a = xp.full(rank + 2, rank + 1.0, dtype=PETSc.ScalarType)
    v = petsc_gpukit.vec_from_array(a, comm=comm)
    assert v.getSize() == sum(r + 2 for r in range(size)) and v.getLocalSize() == rank + 2
    assert v.sum() == pytest.approx(sum((r + 1.0) * (r + 2) for r in range(size)))
    v.destroy()
    A, D = laplacian(12), laplacian(12, "ellrcuda")
    x, its, reason = solve(A, "cg")
    lo, hi = D.getOwnershipRange()
    ab, ax = xp.ones(hi - lo, dtype=PETSc.ScalarType), xp.zeros(hi - lo, dtype=PETSc.ScalarType)
    b, y = petsc_gpukit.vec_from_array(ab, comm=comm), petsc_gpukit.vec_from_array(ax, comm=comm)
    ksp = PETSc.KSP().create(comm=comm)
    ksp.setOperators(D)
    ksp.setType("cggpu")
    ksp.getPC().setType("jacobi")
    ksp.setTolerances(rtol=1e-10)
    ksp.solve(b, y)
    assert ksp.getConvergedReason() > 0 and abs(ksp.getIterationNumber() - its) <= 1
    host = xp.asnumpy(ax) if on_gpu else ax  # the solution is in the array
    assert numpy.allclose(host, x.getArray(readonly=True), rtol=1e-8, atol=1e-10)
    for o in (ksp, A, D, x, b, y):
        o.destroy()
