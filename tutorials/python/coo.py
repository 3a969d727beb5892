"""Poisson's equation -laplace(u) = f on the unit square with petsc4py and petsc_gpukit, the
matrix, the right-hand side and the solution living in CuPy arrays on the GPU (NumPy arrays where
the library runs on its host backend), never copied to the host:

  python3 coo.py [-n 256] [-ksp_type cggpu] [-pc_type gamg] [-ksp_converged_reason]

The matrix is assembled with COO from values computed by CuPy (petsc_gpukit.set_values_coo),
the right-hand side written into a cuda vector's own array and the solution read from it
(petsc_gpukit.array_view), and the solve is cggpu with GAMG by default. u = sin(pi x) sin(pi y)
+ x (1 - x) y (1 - y) is the exact solution of the continuous problem; the program prints the
discretization error and the library's copies to the host and to the device in each step
(petsc_gpukit.transfer_counts(): those the GPU makes, or would make, on the host backend, for the
NumPy arrays it then uses).

Options: -n <n> interior points per side (default 128); any PETSc option (-ksp_type, -pc_type, ...).
"""
import math
import sys

import numpy

import petsc_gpukit

PETSc = petsc_gpukit.init(sys.argv)


def main():
    n = PETSc.Options().getInt("n", 128)
    if petsc_gpukit.backend() == "cuda":
        import cupy as xp
    else:
        xp = numpy
    h = 1.0 / (n + 1)
    A = PETSc.Mat().create(comm=PETSc.COMM_SELF)
    A.setSizes([n * n, n * n])
    A.setType("ellrcuda")
    A.setFromOptions()
    # the 5-point stencil's entries: rows and columns on the host (COO's pattern), values on the device
    r = numpy.arange(n * n)
    i, j = r // n, r % n
    rows, cols = [r], [r]
    for ok, c in ((i > 0, r - n), (i < n - 1, r + n), (j > 0, r - 1), (j < n - 1, r + 1)):
        rows.append(r[ok])
        cols.append(c[ok])
    rows, cols = numpy.concatenate(rows), numpy.concatenate(cols)
    counts = [petsc_gpukit.transfer_counts()]
    vals = xp.full(rows.size, -1.0 / (h * h), dtype=PETSc.ScalarType)
    vals[: n * n] = 4.0 / (h * h)
    petsc_gpukit.set_preallocation_coo(A, rows, cols)
    petsc_gpukit.set_values_coo(A, vals)
    A.assemble()
    A.setOption(PETSc.Mat.Option.SPD, True)  # as PETSc asks of SPD matrices: Jacobi needs no pass over the diagonal then
    b, x = A.createVecs()
    counts.append(petsc_gpukit.transfer_counts())
    xs = (xp.arange(n) + 1) * h
    X, Y = xp.meshgrid(xs, xs, indexing="ij")
    exact = xp.sin(math.pi * X) * xp.sin(math.pi * Y) + X * (1 - X) * Y * (1 - Y)
    with petsc_gpukit.array_view(b, "w") as bv:  # f = -laplace(u), written on the device
        f = 2 * math.pi ** 2 * xp.sin(math.pi * X) * xp.sin(math.pi * Y) + 2 * (X * (1 - X) + Y * (1 - Y))
        xp.asarray(bv)[:] = f.ravel()
    counts.append(petsc_gpukit.transfer_counts())
    ksp = PETSc.KSP().create(comm=PETSc.COMM_SELF)
    ksp.setOperators(A)
    ksp.setType("cggpu")
    ksp.getPC().setType("gamg")
    ksp.setTolerances(rtol=1e-10)
    ksp.setFromOptions()
    ksp.solve(b, x)
    counts.append(petsc_gpukit.transfer_counts())
    with petsc_gpukit.array_view(x, "r") as xv:  # the solution, read on the device
        err = float(xp.abs(xp.asarray(xv).reshape(n, n) - exact).max())
    counts.append(petsc_gpukit.transfer_counts())
    print("%s with %s on %s (%s backend): %d iterations, %s; max error %.2e (h^2 = %.2e)"
          % (ksp.getType(), ksp.getPC().getType(), A.getType(), petsc_gpukit.backend(), ksp.getIterationNumber(),
             "converged" if ksp.getConvergedReason() > 0 else "diverged", err, h * h))
    steps = ("assembly", "right-hand side", "setup and solve", "solution's read")
    print("copies to the host: " + ", ".join("%s %d" % (s, c["d2h_count"] - p["d2h_count"]) for s, p, c in zip(steps, counts, counts[1:])))
    print("copies to the device: " + ", ".join("%s %d" % (s, c["h2d_count"] - p["h2d_count"]) for s, p, c in zip(steps, counts, counts[1:])))
    for o in (ksp, A, b, x):
        o.destroy()


if __name__ == "__main__":
    main()
