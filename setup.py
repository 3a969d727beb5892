"""pip's build of petsc-gpukit: the library compiled by the project's makefile against the PETSc
of the environment pip installs into, and placed inside the package (petsc_gpukit/lib/).

The PETSc is PETSC_DIR (and PETSC_ARCH) where set; else PyPI's petsc (petsc.get_petsc_dir()) or
petsc4py's own configuration, as the installing Python sees them outside pip's isolated build
environment; else Debian's /usr/lib/petsc. The CUDA toolkit is CUDA_DIR (default /usr/local/cuda);
without one (or with CUDA=no) the library is built with its host backend alone, and says so.
"""
import hashlib
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.dist import Distribution
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def outside_python(code):
    """Runs code in the installing Python with its own site-packages (pip's isolated build
    environment hides them through PYTHONPATH and PYTHONNOUSERSITE); its output, or None"""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONHOME")}
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else None


def find_petsc():
    """(PETSC_DIR, PETSC_ARCH, how it was found)"""
    if os.environ.get("PETSC_DIR"):
        return os.environ["PETSC_DIR"], os.environ.get("PETSC_ARCH", ""), "PETSC_DIR"
    d = outside_python("import petsc; print(petsc.get_petsc_dir())")
    if d:
        return d, "", "PyPI's petsc"
    c = outside_python("import petsc4py; c = petsc4py.get_config(); print(c['PETSC_DIR'] + '|' + (c.get('PETSC_ARCH') or ''))")
    if c:
        d, a = c.split("|", 1)
        return d, a, "petsc4py's configuration"
    return "/usr/lib/petsc", "", "Debian's default"


class BuildWithMake(build_py):
    def run(self):
        petsc_dir, petsc_arch, how = find_petsc()
        cuda_dir = os.environ.get("CUDA_DIR", "/usr/local/cuda")
        print("petsc-gpukit: building for the PETSc at %s%s (%s)" % (petsc_dir, " PETSC_ARCH=" + petsc_arch if petsc_arch else "", how))
        toolkit = os.access(os.path.join(cuda_dir, "bin", "nvcc"), os.X_OK) and os.path.exists(os.path.join(cuda_dir, "lib64", "libcudart_static.a"))
        cuda = os.environ.get("CUDA") or ("yes" if toolkit else "no")
        if cuda == "no":
            print("petsc-gpukit: %s: building the host backend alone; the library will use no GPU (install the CUDA toolkit, or set "
                  "CUDA_DIR, and reinstall for one)" % ("CUDA=no" if toolkit else "no CUDA toolkit under CUDA_DIR=" + cuda_dir))
        # a build directory of this PETSc's own: objects of another are never mixed in
        build = os.path.join("build", "pip-" + hashlib.sha1((petsc_dir + "|" + petsc_arch + "|" + cuda).encode()).hexdigest()[:10])
        args = ["BUILD=" + build, "PETSC_DIR=" + petsc_dir, "PETSC_ARCH=" + petsc_arch, "CUDA_DIR=" + cuda_dir, "CUDA=" + cuda]
        subprocess.check_call(["make", "-C", ROOT, "-j%d" % max(1, min(8, os.cpu_count() or 1)), "lib"] + args)
        out = subprocess.run(["make", "-s", "-C", ROOT, "print-config"] + args, capture_output=True, text=True, check=True).stdout
        super().run()
        dest = os.path.join(self.build_lib, "petsc_gpukit", "lib")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, build, "lib", "libpetscgpukit.so"), dest)
        with open(os.path.join(dest, "config.txt"), "w") as f:
            f.write(out)


class NativeDistribution(Distribution):
    """a wheel of this platform and Python (the package holds a compiled library), not py3-none-any"""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithMake}, distclass=NativeDistribution)
