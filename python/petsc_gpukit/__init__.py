"""petsc-gpukit for petsc4py: the plug-in's types (``ellrcuda``, ``diacuda``, ``cuda`` vectors,
``cggpu``, ``bicggpu``, ``ssorgpu``, ...) in the PETSc that petsc4py already uses.

Use ``petsc_gpukit.init(sys.argv)`` in place of ``petsc4py.init(sys.argv)``::

    import sys
    import petsc_gpukit
    PETSc = petsc_gpukit.init(sys.argv)
    ksp = PETSc.KSP().create()
    ksp.setType("cggpu")

The library was built for one PETSc (the one ``pip install`` found); ``config()`` says which.
"""
import ctypes
import os

__all__ = ["init", "library_path", "config"]

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
