"""Poisson's equation -laplace(u) = 1 on the unit square, u = 0 on its boundary, with petsc4py.

A plain petsc4py program: petsc-gpukit is loaded by PETSc's options, and its types are chosen
by options as any PETSc type is:

  python3 poisson.py -dll_append /path/to/libpetscgpukit.so \\
      -mat_type ellrcuda -vec_type cuda -ksp_type cggpu -pc_type jacobi

or, with -settype, by the program itself (Mat.setType, KSP.setType) once the plug-in is loaded.
It solves the same system again with PETSc's AIJ and CG, and compares the two.

Options: -n <n> grid points per side (default 100), -settype (the types set in code).
"""
import sys

import petsc4py

petsc4py.init(sys.argv)
from petsc4py import PETSc  # noqa: E402 (after init, which reads the options)


def laplacian(n, settype):
    """The 5-point Laplacian on the n x n interior points, rows split over the processes."""
    A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
    A.setSizes([n * n, n * n])
    if settype:
        A.setType("ellrcuda")  # the plug-in's type, registered by -dll_append
    else:
        A.setFromOptions()  # -mat_type
    A.setPreallocationNNZ(5)
    rstart, rend = A.getOwnershipRange()
    for r in range(rstart, rend):
        i, j = divmod(r, n)
        A.setValue(r, r, 4.0)
        for ii, jj in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 <= ii < n and 0 <= jj < n:
                A.setValue(r, ii * n + jj, -1.0)
    A.assemble()
    return A


def solve(A, settype):
    """x = A^-1 b for b = h^2; the method and PC from the options (CG and Jacobi by default)."""
    x, b = A.createVecs()
    n = int(round(A.getSize()[0] ** 0.5))
    b.set(1.0 / (n + 1) ** 2)
    ksp = PETSc.KSP().create(comm=PETSc.COMM_WORLD)
    ksp.setOperators(A)
    ksp.setType("cggpu" if settype else "cg")
    ksp.getPC().setType("jacobi")
    ksp.setTolerances(rtol=1e-8)
    if not settype:
        ksp.setFromOptions()
    ksp.solve(b, x)
    return ksp, x


def main():
    opts = PETSc.Options()
    n = opts.getInt("n", 100)
    settype = opts.getBool("settype", False)
    A = laplacian(n, settype)
    ksp, x = solve(A, settype)
    its, reason = ksp.getIterationNumber(), ksp.getConvergedReason()
    names = {v: k for k, v in vars(PETSc.KSP.ConvergedReason).items() if isinstance(v, int)}
    summary = (f"{A.getType()} matrix, {x.getType()} vectors, {ksp.getType()} with {ksp.getPC().getType()}: "
               f"{its} iterations, {names.get(reason, reason)}")
    # the reference: PETSc's AIJ, standard vectors and CG
    ref = PETSc.Mat().createAIJ([n * n, n * n], nnz=5, comm=PETSc.COMM_WORLD)
    rstart, rend = ref.getOwnershipRange()
    for r in range(rstart, rend):
        cols, vals = A.getRow(r)
        ref.setValues([r], cols, vals)
    ref.assemble()
    xr, br = ref.createVecs()
    br.set(1.0 / (n + 1) ** 2)
    kr = PETSc.KSP().create(comm=PETSc.COMM_WORLD)
    kr.setOperators(ref)
    kr.setType("cg")
    kr.getPC().setType("jacobi")
    kr.setTolerances(rtol=1e-8)
    kr.solve(br, xr)
    diff = xr.copy()
    diff.axpy(-1.0, x)  # x's values reach the host through VecGetArrayRead
    rel = diff.norm() / xr.norm()
    PETSc.Sys.Print(f"{summary}; PETSc's cg on AIJ: {kr.getIterationNumber()} iterations; "
                    f"the same within one: {'yes' if abs(kr.getIterationNumber() - its) <= 1 else 'no'}; "
                    f"solutions agree to 1e-6: {'yes' if rel < 1e-6 else 'no'}")
    for o in (ksp, kr, A, ref, x, xr, br, diff):
        o.destroy()


if __name__ == "__main__":
    main()
