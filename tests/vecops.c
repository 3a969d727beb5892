static char help[] = "Every device vector operation against the same operation on VECSEQ/VECMPI, on seeded\n\
random data, with host-side edits in between.\n\
  -n <n> : global length\n\n";

/*
   Each step applies one operation to a pair (reference of the standard type, device vector of
   type cuda) holding the same values, and compares: vectors entry by entry, scalars to
   rounding. Between steps, edits through VecGetArray() and VecSetValues() on both prove that
   host changes reach the device and device results reach the host.
*/
#include <petscgpukit.h>
#include <petsc/private/petscimpl.h> /* PetscObjectStateIncrease(): a cached norm forgotten */

static PetscReal tol = 1e-12;

/* |a - b| <= tol (|a| + 1) for every entry */
static PetscErrorCode CheckVec(Vec ref, Vec dev, const char *what)
{
  const PetscScalar *r, *d;
  PetscInt           n;
  PetscReal          err = 0.0, worst = 0.0;
  PetscBool          isdev;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)dev, &isdev, VECSEQGKCUDA, VECMPIGKCUDA, ""));
  PetscCheck(isdev, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the device vector lost its type", what);
  PetscCall(VecGetLocalSize(ref, &n));
  PetscCall(VecGetArrayRead(ref, &r));
  PetscCall(VecGetArrayRead(dev, &d));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal e = PetscAbsScalar(r[i] - d[i]) / (PetscAbsScalar(r[i]) + 1.0);

    if (!(e <= err)) err = e; /* NaN too */
  }
  PetscCall(VecRestoreArrayRead(ref, &r));
  PetscCall(VecRestoreArrayRead(dev, &d));
  PetscCall(MPIU_Allreduce(&err, &worst, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)ref)));
  PetscCheck(worst <= tol, PetscObjectComm((PetscObject)ref), PETSC_ERR_PLIB, "%s: device and reference vectors differ by %g (relative)", what,
             (double)worst);
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckScalar(PetscScalar r, PetscScalar d, PetscReal scale, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(PetscAbsScalar(r - d) <= tol * (PetscAbsScalar(r) + scale + 1.0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: device %g%+gi, reference %g%+gi",
             what, (double)PetscRealPart(d), (double)PetscImaginaryPart(d), (double)PetscRealPart(r), (double)PetscImaginaryPart(r));
  PetscFunctionReturn(0);
}

/* the same random values in ref and dev, the device copy made valid (dev's values on the device) */
static PetscErrorCode Fill(PetscRandom rnd, Vec ref, Vec dev)
{
  PetscReal nrm;

  PetscFunctionBegin;
  PetscCall(VecSetRandom(ref, rnd));
  PetscCall(VecCopy(ref, dev));          /* through dev's host array */
  PetscCall(VecNorm(dev, NORM_1, &nrm)); /* brings it to the device */
  PetscFunctionReturn(0);
}

/* The same host-side edit on both: entry 0 through VecGetArray, the last through VecSetValues */
static PetscErrorCode EditOnHost(Vec ref, Vec dev, PetscScalar v)
{
  PetscScalar *a;
  PetscInt     n, N, last;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(ref, &n));
  PetscCall(VecGetSize(ref, &N));
  for (Vec x = ref; x; x = (x == ref ? dev : NULL)) {
    PetscCall(VecGetArray(x, &a));
    if (n) a[0] += v;
    PetscCall(VecRestoreArray(x, &a));
    last = N - 1;
    if (N) PetscCall(VecSetValues(x, 1, &last, &v, INSERT_VALUES)); /* by every process: an off-process value for all but one */
    PetscCall(VecAssemblyBegin(x));
    PetscCall(VecAssemblyEnd(x));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt                  n = 1000, N, nl, nv = 11, idr, idd;
  PetscRandom               rnd;
  Vec                       x, y, z, w, X, Y, Z, W, *vr, *vd;
  PetscScalar               sr, sd, mr[11], md[11], alpha[11];
  PetscReal                 rr, rd, r2[2], d2[2];
  PetscGPUKitTransferCounts c0, c1;
  const NormType            types[] = {NORM_1, NORM_2, NORM_INFINITY};
  PetscMPIInt               rank;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 4242));
  PetscCall(PetscRandomSeed(rnd));

  /* lower case: the reference (standard type); upper case: the device vectors */
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, PETSC_DECIDE, n));
  PetscCall(VecSetType(x, VECSTANDARD));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &X));
  PetscCall(VecSetSizes(X, PETSC_DECIDE, n));
  PetscCall(VecSetFromOptions(X)); /* -vec_type cuda from the test's options */
  PetscCall(VecGetSize(X, &N));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecDuplicate(x, &w));
  { /* a new device vector reads zeros on the host (its host array is made at that first access,
       here from memory just freed dirty), and so does the reference, compared below */
    PetscScalar *junk;
    PetscInt     nl;

    PetscCall(VecGetLocalSize(X, &nl));
    PetscCall(PetscMalloc1(nl + 1, &junk));
    for (PetscInt i = 0; i <= nl; i++) junk[i] = 7.0;
    PetscCall(PetscFree(junk));
  }
  PetscCall(VecDuplicate(X, &Y));
  PetscCall(CheckVec(y, Y, "a new vector"));
  PetscCall(VecDuplicate(X, &Z));
  PetscCall(VecDuplicate(X, &W));
  PetscCall(VecDuplicateVecs(x, nv, &vr));
  PetscCall(VecDuplicateVecs(X, nv, &vd));
  for (PetscInt k = 0; k < nv; k++) {
    PetscCall(Fill(rnd, vr[k], vd[k]));
    alpha[k] = 0.5 - k * 0.125;
  }

  /* a new device vector is zero, on the device too */
  PetscCall(VecSum(Y, &sd));
  PetscCheck(sd == (PetscScalar)0.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "A new device vector sums to %g", (double)PetscRealPart(sd));

  PetscCall(Fill(rnd, x, X));
  PetscCall(Fill(rnd, y, Y));
  PetscCall(Fill(rnd, z, Z));
  PetscCall(CheckVec(x, X, "VecCopy (host to device vector)"));

  PetscCall(PetscGPUKitGetTransferCounts(&c0));
  PetscCall(VecAXPY(y, 1.5, x));
  PetscCall(VecAXPY(Y, 1.5, X));
  PetscCall(VecAYPX(y, -0.5, x));
  PetscCall(VecAYPX(Y, -0.5, X));
  PetscCall(VecAXPBY(y, 2.0, 0.25, x));
  PetscCall(VecAXPBY(Y, 2.0, 0.25, X));
  PetscCall(VecAXPBYPCZ(z, 0.5, -1.0, 3.0, x, y));
  PetscCall(VecAXPBYPCZ(Z, 0.5, -1.0, 3.0, X, Y));
  PetscCall(VecWAXPY(w, -2.0, x, z));
  PetscCall(VecWAXPY(W, -2.0, X, Z));
  PetscCall(VecMAXPY(w, nv, alpha, vr));
  PetscCall(VecMAXPY(W, nv, alpha, vd));
  PetscCall(VecScale(w, 0.75));
  PetscCall(VecScale(W, 0.75));
  PetscCall(VecShift(w, -0.125));
  PetscCall(VecShift(W, -0.125));
  PetscCall(VecDot(w, z, &sr));
  PetscCall(VecDot(W, Z, &sd));
  PetscCall(PetscGPUKitGetTransferCounts(&c1));
  /* all of that on the device: no vector crossed over */
  PetscCheck(c1.h2d_count == c0.h2d_count && c1.d2h_count == c0.d2h_count, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Device operations copied vectors: %g to the device, %g back", c1.h2d_count - c0.h2d_count, c1.d2h_count - c0.d2h_count);
  PetscCall(CheckScalar(sr, sd, 0.0, "VecDot after the updates"));
  PetscCall(CheckVec(y, Y, "VecAXPY, VecAYPX, VecAXPBY"));
  PetscCall(CheckVec(z, Z, "VecAXPBYPCZ"));
  PetscCall(CheckVec(w, W, "VecWAXPY, VecMAXPY, VecScale, VecShift"));

  /* zero coefficients drop their vector, NaN and all */
  PetscCall(VecSet(w, PETSC_MAX_REAL));
  PetscCall(VecSet(W, PETSC_MAX_REAL));
  PetscCall(VecScale(w, 0.0));
  PetscCall(VecScale(W, 0.0));
  PetscCall(CheckVec(w, W, "VecSet, VecScale by 0"));
  PetscCall(VecAXPBY(w, 1.0, 0.0, x));
  PetscCall(VecAXPBY(W, 1.0, 0.0, X));
  PetscCall(CheckVec(w, W, "VecAXPBY with beta 0"));

  /* host edits, then device work on the edited values, then host edits of the results */
  PetscCall(EditOnHost(x, X, 7.0));
  PetscCall(EditOnHost(y, Y, -3.0));
  PetscCall(VecAXPY(y, 2.0, x));
  PetscCall(VecAXPY(Y, 2.0, X));
  PetscCall(CheckVec(y, Y, "VecAXPY after host edits"));
  PetscCall(EditOnHost(y, Y, 0.5));
  PetscCall(VecNorm(y, NORM_2, &rr));
  PetscCall(VecNorm(Y, NORM_2, &rd));
  PetscCall(CheckScalar(rr, rd, 0.0, "VecNorm after a host edit of a device result"));

  PetscCall(VecSwap(x, y));
  PetscCall(VecSwap(X, Y));
  PetscCall(CheckVec(x, X, "VecSwap (x)"));
  PetscCall(CheckVec(y, Y, "VecSwap (y)"));
  PetscCall(VecCopy(x, w));
  PetscCall(VecCopy(X, W));
  PetscCall(CheckVec(w, W, "VecCopy (device)"));

  /* a copy of values only the host holds: they go up once, into the source as well (no host copy
     for the target's next device operation to copy up, nothing for the source's); a new vector's
     zeros are set, not copied */
  PetscCall(EditOnHost(x, X, 2.0));
  PetscCall(VecGetLocalSize(X, &nl));
  PetscCall(PetscGPUKitGetTransferCounts(&c0));
  PetscCall(VecCopy(x, w));
  PetscCall(VecCopy(X, W));
  PetscCall(VecAXPY(w, 1.0, x));
  PetscCall(VecAXPY(W, 1.0, X));
  PetscCall(PetscGPUKitGetTransferCounts(&c1));
  PetscCheck(c1.h2d_count - c0.h2d_count == (nl ? 1 : 0) && c1.d2h_count == c0.d2h_count, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "VecCopy of host values and VecAXPY: %g copies to the device (%d expected), %g back", c1.h2d_count - c0.h2d_count, nl ? 1 : 0,
             c1.d2h_count - c0.d2h_count);
  PetscCall(CheckVec(w, W, "VecCopy of host values, then VecAXPY"));
  {
    Vec t, T;

    PetscCall(VecDuplicate(x, &t));
    PetscCall(VecDuplicate(X, &T));
    PetscCall(PetscGPUKitGetTransferCounts(&c0));
    PetscCall(VecCopy(t, w));
    PetscCall(VecCopy(T, W));
    PetscCall(VecAXPY(W, 1.0, X));
    PetscCall(VecAXPY(w, 1.0, x));
    PetscCall(PetscGPUKitGetTransferCounts(&c1));
    PetscCheck(c1.h2d_count == c0.h2d_count && c1.d2h_count == c0.d2h_count, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "VecCopy of a new vector: %g copies to the device, %g back", c1.h2d_count - c0.h2d_count, c1.d2h_count - c0.d2h_count);
    PetscCall(CheckVec(w, W, "VecCopy of a new vector, then VecAXPY"));
    PetscCall(VecDestroy(&t));
    PetscCall(VecDestroy(&T));
  }

  /* reductions */
  PetscCall(VecTDot(x, y, &sr));
  PetscCall(VecTDot(X, Y, &sd));
  PetscCall(CheckScalar(sr, sd, 0.0, "VecTDot"));
  PetscCall(VecMDot(x, nv, vr, mr));
  PetscCall(VecMDot(X, nv, vd, md));
  for (PetscInt k = 0; k < nv; k++) PetscCall(CheckScalar(mr[k], md[k], 0.0, "VecMDot"));
  PetscCall(VecMTDot(x, nv, vr, mr));
  PetscCall(VecMTDot(X, nv, vd, md));
  for (PetscInt k = 0; k < nv; k++) PetscCall(CheckScalar(mr[k], md[k], 0.0, "VecMTDot"));
  for (size_t t = 0; t < PETSC_STATIC_ARRAY_LENGTH(types); t++) {
    PetscCall(VecNorm(x, types[t], &rr));
    PetscCall(VecNorm(X, types[t], &rd));
    PetscCall(CheckScalar(rr, rd, 0.0, NormTypes[types[t]]));
  }
  PetscCall(VecNorm(x, NORM_1_AND_2, r2));
  PetscCall(VecNorm(X, NORM_1_AND_2, d2));
  PetscCall(CheckScalar(r2[0], d2[0], 0.0, "VecNorm 1 (of 1 and 2)"));
  PetscCall(CheckScalar(r2[1], d2[1], 0.0, "VecNorm 2 (of 1 and 2)"));
  PetscCall(VecDotNorm2(x, y, &sr, &rr));
  PetscCall(VecDotNorm2(X, Y, &sd, &rd));
  PetscCall(CheckScalar(sr, sd, 0.0, "VecDotNorm2 (dot)"));
  PetscCall(CheckScalar(rr, rd, 0.0, "VecDotNorm2 (norm)"));
  PetscCall(VecSum(x, &sr));
  PetscCall(VecSum(X, &sd));
  PetscCall(CheckScalar(sr, sd, (PetscReal)N, "VecSum"));

  /* split-phase reductions (the _local operations) */
  PetscCall(VecDotBegin(x, y, &sr));
  PetscCall(VecNormBegin(x, NORM_2, &rr));
  PetscCall(VecDotEnd(x, y, &sr));
  PetscCall(VecNormEnd(x, NORM_2, &rr));
  PetscCall(VecDotBegin(X, Y, &sd));
  PetscCall(VecNormBegin(X, NORM_2, &rd));
  PetscCall(VecDotEnd(X, Y, &sd));
  PetscCall(VecNormEnd(X, NORM_2, &rd));
  PetscCall(CheckScalar(sr, sd, 0.0, "VecDotBegin/End"));
  PetscCall(CheckScalar(rr, rd, 0.0, "VecNormBegin/End"));
  PetscCall(VecTDotBegin(X, Y, &sd));
  PetscCall(VecTDotEnd(X, Y, &sd));
  PetscCall(VecTDot(x, y, &sr));
  PetscCall(CheckScalar(sr, sd, 0.0, "VecTDotBegin/End"));
  PetscCall(VecMDotBegin(X, nv, vd, md));
  PetscCall(VecMDotEnd(X, nv, vd, md));
  PetscCall(VecMDot(x, nv, vr, mr));
  for (PetscInt k = 0; k < nv; k++) PetscCall(CheckScalar(mr[k], md[k], 0.0, "VecMDotBegin/End"));
  PetscCall(VecMTDotBegin(X, nv, vd, md));
  PetscCall(VecMTDotEnd(X, nv, vd, md));
  PetscCall(VecMTDot(x, nv, vr, mr));
  for (PetscInt k = 0; k < nv; k++) PetscCall(CheckScalar(mr[k], md[k], 0.0, "VecMTDotBegin/End"));

  /* extremes, with a planted tie: the first index wins */
  if (N > 2) {
    PetscInt    i[2] = {N / 3, 2 * N / 3};
    PetscScalar v[2] = {10.0, 10.0};

    PetscCall(VecSetValues(x, 2, i, v, INSERT_VALUES));
    PetscCall(VecSetValues(X, 2, i, v, INSERT_VALUES));
    v[0] = v[1] = -10.0;
    i[0] += 1;
    i[1] += 1;
    PetscCall(VecSetValues(x, 2, i, v, INSERT_VALUES));
    PetscCall(VecSetValues(X, 2, i, v, INSERT_VALUES));
  }
  PetscCall(VecAssemblyBegin(x));
  PetscCall(VecAssemblyEnd(x));
  PetscCall(VecAssemblyBegin(X));
  PetscCall(VecAssemblyEnd(X));
  PetscCall(VecMax(x, &idr, &rr));
  PetscCall(VecMax(X, &idd, &rd));
  PetscCheck(idr == idd && rr == rd, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "VecMax: device %g at %" PetscInt_FMT ", reference %g at %" PetscInt_FMT,
             (double)rd, idd, (double)rr, idr);
  PetscCall(VecMin(x, &idr, &rr));
  PetscCall(VecMin(X, &idd, &rd));
  PetscCheck(idr == idd && rr == rd, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "VecMin: device %g at %" PetscInt_FMT ", reference %g at %" PetscInt_FMT,
             (double)rd, idd, (double)rr, idr);
  PetscCall(VecMax(X, NULL, &rd));
  PetscCall(VecMax(x, NULL, &rr));
  PetscCheck(rr == rd, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "VecMax without index differs");

  /* pointwise, with zeros planted in the divisor */
  PetscCall(Fill(rnd, z, Z));
  if (N > 5) {
    PetscInt    i[2] = {1, N - 4};
    PetscScalar v[2] = {0.0, 0.0};

    PetscCall(VecSetValues(z, 2, i, v, INSERT_VALUES));
    PetscCall(VecSetValues(Z, 2, i, v, INSERT_VALUES));
  }
  PetscCall(VecAssemblyBegin(z));
  PetscCall(VecAssemblyEnd(z));
  PetscCall(VecAssemblyBegin(Z));
  PetscCall(VecAssemblyEnd(Z));
  PetscCall(VecPointwiseMult(w, x, z));
  PetscCall(VecPointwiseMult(W, X, Z));
  PetscCall(CheckVec(w, W, "VecPointwiseMult"));
  PetscCall(VecPointwiseDivide(w, x, z));
  PetscCall(VecPointwiseDivide(W, X, Z));
  PetscCall(CheckVec(w, W, "VecPointwiseDivide"));
  PetscCall(VecPointwiseMult(w, w, y)); /* in place */
  PetscCall(VecPointwiseMult(W, W, Y));
  PetscCall(CheckVec(w, W, "VecPointwiseMult in place"));
  PetscCall(VecReciprocal(z));
  PetscCall(VecReciprocal(Z));
  PetscCall(CheckVec(z, Z, "VecReciprocal"));
  PetscCall(VecConjugate(z));
  PetscCall(VecConjugate(Z));
  PetscCall(CheckVec(z, Z, "VecConjugate"));
  PetscCall(VecScale(z, -1.0)); /* negative real parts, and zeros */
  PetscCall(VecScale(Z, -1.0));
  PetscCall(PetscGPUKitGetTransferCounts(&c0));
  PetscCall(VecAbs(Z));
  PetscCall(PetscGPUKitGetTransferCounts(&c1));
  PetscCheck(c1.h2d_count == c0.h2d_count && c1.d2h_count == c0.d2h_count, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "VecAbs copied the vector: %g to the device, %g back", c1.h2d_count - c0.h2d_count, c1.d2h_count - c0.d2h_count);
  PetscCall(VecAbs(z));
  PetscCall(CheckVec(z, Z, "VecAbs"));

  /* operands of the standard type: the host operation, still right */
  PetscCall(VecAXPY(Y, 0.5, x));
  PetscCall(VecAXPY(y, 0.5, x));
  PetscCall(CheckVec(y, Y, "VecAXPY with a host vector"));
  PetscCall(VecDot(X, y, &sd));
  PetscCall(VecDot(x, y, &sr));
  PetscCall(CheckScalar(sr, sd, 0.0, "VecDot with a host vector"));

  /* write access after device work gives the current values, as a standard vector's does
     (PETSc's hypre interface zeroes x by VecSet, then hands hypre that array as its guess):
     after VecSet, and after any other device result */
  {
    PetscScalar       *a;
    const PetscScalar *r;
    PetscInt           nl;

    PetscCall(VecGetLocalSize(x, &nl));
    PetscCall(VecCopy(X, W));
    PetscCall(CheckVec(x, W, "VecCopy")); /* W's host copy holds x's values */
    PetscCall(VecSet(W, 0.0));            /* on the device */
    PetscCall(VecGetArrayWrite(W, &a));
    for (PetscInt i = 0; i < nl; i++)
      PetscCheck(a[i] == (PetscScalar)0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "VecGetArrayWrite after VecSet(0) on the device: entry %" PetscInt_FMT " is %g, not 0", i, (double)PetscRealPart(a[i]));
    if (nl) a[0] = 1.0;
    PetscCall(VecRestoreArrayWrite(W, &a));
    PetscCall(VecSet(w, 0.0));
    PetscCall(VecGetArray(w, &a));
    if (nl) a[0] = 1.0;
    PetscCall(VecRestoreArray(w, &a));
    PetscCall(CheckVec(w, W, "VecGetArrayWrite after VecSet, then a host write"));
    PetscCall(VecSet(W, -2.5));
    PetscCall(VecScale(W, 2.0)); /* no longer VecSet's value: copied, not set */
    PetscCall(VecGetArrayWrite(W, &a));
    for (PetscInt i = 0; i < nl; i++)
      PetscCheck(a[i] == (PetscScalar)-5.0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "VecGetArrayWrite after a device update: entry %" PetscInt_FMT " is %g, not -5", i, (double)PetscRealPart(a[i]));
    PetscCall(VecRestoreArrayWrite(W, &a));
    PetscCall(VecAXPBY(W, 1.0, 0.0, X)); /* W = X on the device */
    PetscCall(VecGetArrayWrite(W, &a));
    PetscCall(VecGetArrayRead(x, &r));
    for (PetscInt i = 0; i < nl; i++)
      PetscCheck(a[i] == r[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "VecGetArrayWrite after a device copy: entry %" PetscInt_FMT " differs", i);
    PetscCall(VecRestoreArrayRead(x, &r));
    PetscCall(VecRestoreArrayWrite(W, &a));
  }

  /* a NaN: every norm NaN, the infinity norm as VecNorm_Seq/MPI too (on the process holding it
     and on every other) */
  if (N) {
    PetscInt    i = N / 2;
    PetscScalar v = PETSC_MAX_REAL;

    v = v * 10.0 - v * 10.0;
    PetscCall(VecCopy(x, w));
    PetscCall(VecCopy(X, W));
    PetscCall(VecSetValues(w, 1, &i, &v, INSERT_VALUES));
    PetscCall(VecSetValues(W, 1, &i, &v, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(w));
    PetscCall(VecAssemblyEnd(w));
    PetscCall(VecAssemblyBegin(W));
    PetscCall(VecAssemblyEnd(W));
    PetscCall(VecScale(W, 1.0 + PETSC_SMALL)); /* the values on the device */
    PetscCall(VecScale(w, 1.0 + PETSC_SMALL));
    for (size_t t = 0; t < PETSC_STATIC_ARRAY_LENGTH(types); t++) {
      PetscCall(VecNorm(W, types[t], &rd));
      PetscCheck(PetscIsNanReal(rd), PETSC_COMM_SELF, PETSC_ERR_PLIB, "VecNorm %s of a device vector holding a NaN: %g, not NaN", NormTypes[types[t]],
                 (double)rd);
    }
  }

  /* place, replace, reset */
  {
    PetscScalar *mine, *a;
    PetscInt     nl;

    PetscCall(VecGetLocalSize(x, &nl));
    PetscCall(PetscMalloc1(nl, &mine));
    for (PetscInt i = 0; i < nl; i++) mine[i] = 2.0 * i - 1.0;
    PetscCall(VecCopy(X, W)); /* on the device */
    PetscCall(VecPlaceArray(W, mine));
    PetscCall(VecGetArray(w, &a));
    for (PetscInt i = 0; i < nl; i++) a[i] = mine[i];
    PetscCall(VecRestoreArray(w, &a));
    PetscCall(CheckVec(w, W, "VecPlaceArray"));
    PetscCall(VecPointwiseMult(W, W, W)); /* on the device, into the placed array at the reset */
    PetscCall(VecResetArray(W));
    for (PetscInt i = 0; i < nl; i++)
      PetscCheck(mine[i] == (2.0 * i - 1.0) * (2.0 * i - 1.0), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "VecResetArray did not leave the device result in the placed array");
    PetscCall(CheckVec(x, W, "VecResetArray (the values before placing)"));
    PetscCall(PetscFree(mine));
    /* replace: W takes a new array (and frees it); the device copy is stale and must be refreshed */
    PetscCall(VecScale(W, 5.0)); /* device valid */
    PetscCall(PetscMalloc1(nl, &mine));
    for (PetscInt i = 0; i < nl; i++) mine[i] = 0.25 * i;
    PetscCall(VecReplaceArray(W, mine));
    PetscCall(VecGetArray(w, &a));
    for (PetscInt i = 0; i < nl; i++) a[i] = 0.25 * i;
    PetscCall(VecRestoreArray(w, &a));
    PetscCall(VecAXPY(W, 2.0, X));
    PetscCall(VecAXPY(w, 2.0, x));
    PetscCall(CheckVec(w, W, "VecReplaceArray, then a device operation"));
  }

  /* values only the host holds: VecSum, VecShift and VecScale run there, as PETSc's own (the
     same sums to the last bit), copying nothing up and launching nothing */
  {
    PetscScalar              *a, sr, sd;
    PetscInt                  nl;
    PetscGPUKitTransferCounts t0, t1;
    PetscGPUKitDeviceCounts   c0, c1;

    PetscCall(VecGetLocalSize(x, &nl));
    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(VecGetArray(t ? W : w, &a));
      for (PetscInt i = 0; i < nl; i++) a[i] = 1.0 / (i + 3.0) - 0.1 * (rank + 1);
      PetscCall(VecRestoreArray(t ? W : w, &a));
    }
    PetscCall(PetscGPUKitGetTransferCounts(&t0));
    PetscCall(PetscGPUKitGetDeviceCounts(&c0));
    PetscCall(VecSum(w, &sr));
    PetscCall(VecSum(W, &sd));
    PetscCheck(sr == sd, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VecSum of host values: %g, PETSc's %g", (double)PetscRealPart(sd),
               (double)PetscRealPart(sr));
    PetscCall(VecShift(w, -sr / N));
    PetscCall(VecShift(W, -sd / N));
    PetscCall(VecScale(w, 3.0));
    PetscCall(VecScale(W, 3.0));
    PetscCall(PetscGPUKitGetTransferCounts(&t1));
    PetscCall(PetscGPUKitGetDeviceCounts(&c1));
    PetscCheck(t1.h2d_count == t0.h2d_count && c1.launches == c0.launches, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "VecSum, VecShift, VecScale of host values: %g copies up and %g launches", t1.h2d_count - t0.h2d_count, c1.launches - c0.launches);
    PetscCall(CheckVec(w, W, "VecSum, VecShift, VecScale of host values"));
  }

  /* a new vector's VecSet() launches nothing: the value is set where the values are first
     needed (on the device by a reduction, an update or a copy; on the host by its array), and a
     second VecSet() after the host array was made still sets every entry */
  {
    Vec                     f[5], F[5];
    PetscGPUKitDeviceCounts c0, c1;
    const PetscScalar       a = 2.5, b = -0.75;
    PetscScalar             sr, sd;
    PetscReal               nd;

    for (PetscInt k = 0; k < 5; k++) {
      PetscCall(VecDuplicate(x, &f[k]));
      PetscCall(VecDuplicate(X, &F[k]));
    }
    PetscCall(PetscGPUKitGetDeviceCounts(&c0));
    for (PetscInt k = 0; k < 4; k++) {
      PetscCall(VecSet(f[k], a * (k + 1)));
      PetscCall(VecSet(F[k], a * (k + 1)));
    }
    PetscCall(PetscGPUKitGetDeviceCounts(&c1));
    PetscCheck(c1.launches == c0.launches, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VecSet of new vectors: %g launches", c1.launches - c0.launches);
    PetscCall(VecSum(f[0], &sr)); /* on the device (not VecNorm: VecSet() cached the norms), then on the host */
    PetscCall(VecSum(F[0], &sd));
    PetscCall(CheckScalar(sr, sd, 0.0, "VecSum of a new vector after VecSet"));
    PetscCall(CheckVec(f[0], F[0], "a new vector after VecSet, then a reduction"));
    PetscCall(CheckVec(f[1], F[1], "a new vector after VecSet, on the host")); /* the host array made */
    PetscCall(VecSet(f[1], b));
    PetscCall(VecSet(F[1], b));
    PetscCall(CheckVec(f[1], F[1], "VecSet after the host array was made"));
    PetscCall(VecAXPY(f[2], 1.0, x));
    PetscCall(VecAXPY(F[2], 1.0, X));
    PetscCall(CheckVec(f[2], F[2], "VecAXPY into a new vector after VecSet"));
    PetscCall(VecCopy(f[3], w));
    PetscCall(VecCopy(F[3], W));
    PetscCall(CheckVec(w, W, "VecCopy from a new vector after VecSet"));
    /* a new vector (no norms cached) read on the device, then on the host: zeros, set from the
       value (an unset host array may happen to hold zeros: make check-valgrind catches that) */
    PetscCall(VecNorm(F[4], NORM_1, &nd));
    PetscCall(CheckVec(f[4], F[4], "a zero vector read on the device, then on the host"));
    for (PetscInt k = 0; k < 5; k++) {
      PetscCall(VecDestroy(&f[k]));
      PetscCall(VecDestroy(&F[k]));
    }
  }

  /* VecSet() of the value every entry holds already (set by VecSet(), nothing written since)
     launches nothing (PCMG zeroes a level's solution, then its smoother's KSPSolve() does); after
     a write on the device or on the host, or of another value (-0.0 over 0.0 too), every entry is
     set. Newer PETSc releases skip a zero over a vector whose 2-norm they know to be 0 before
     calling the type's VecSet: the state is moved on to forget it */
  {
    Vec                     r, d; /* the reference, the device vector */
    PetscGPUKitDeviceCounts c0, c1;
    PetscScalar            *h;
    const PetscScalar      *a;
    PetscInt                nl;

    PetscCall(VecDuplicate(x, &r));
    PetscCall(VecDuplicate(X, &d));
    PetscCall(VecGetLocalSize(d, &nl));
    PetscCall(VecAXPY(d, 1.0, X)); /* values on the device */
    PetscCall(VecSet(d, 2.0));
    PetscCall(PetscGPUKitGetDeviceCounts(&c0));
    PetscCall(VecSet(d, 2.0));
    PetscCall(PetscGPUKitGetDeviceCounts(&c1));
    PetscCheck(c1.launches == c0.launches, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VecSet of the value every entry holds: %g launches",
               c1.launches - c0.launches);
    PetscCall(VecSet(r, 2.0));
    PetscCall(CheckVec(r, d, "VecSet twice"));
    PetscCall(VecAXPY(d, 1.0, X));
    PetscCall(VecSet(d, 2.0));
    PetscCall(CheckVec(r, d, "VecSet after a write on the device"));
    PetscCall(VecSet(d, 0.0));
    PetscCall(PetscObjectStateIncrease((PetscObject)d)); /* its 2-norm, 0, forgotten */
    PetscCall(PetscGPUKitGetDeviceCounts(&c0));
    PetscCall(VecSet(d, -0.0));
    PetscCall(PetscGPUKitGetDeviceCounts(&c1));
    PetscCheck(c1.launches - c0.launches == (nl ? 1 : 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "VecSet of -0.0 over 0.0: %g launches",
               c1.launches - c0.launches);
    PetscCall(VecGetArrayRead(d, &a));
    for (PetscInt i = 0; i < nl; i++)
      PetscCheck(PetscRealPart(a[i]) == 0.0 && signbit(PetscRealPart(a[i])), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "VecSet of -0.0 over 0.0: entry %" PetscInt_FMT " is %g", i, (double)PetscRealPart(a[i]));
    PetscCall(VecRestoreArrayRead(d, &a));
    PetscCall(VecSet(d, 2.0));
    PetscCall(VecGetArray(d, &h)); /* the same value set after a write on the host */
    for (PetscInt i = 0; i < nl; i++) h[i] = 1.0 + i;
    PetscCall(VecRestoreArray(d, &h));
    PetscCall(VecSet(d, 2.0));
    PetscCall(VecSet(r, 2.0));
    PetscCall(CheckVec(r, d, "VecSet after a write on the host"));
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&d));
  }

  /* VecGetLocalVector(Read) (PCBJACOBI's block vectors): a device vector whose values are on the
     device lends its device array to a device vector of its local size, no copy either way; what
     is written there is the lender's after the restore, and the borrower's own values come back.
     From values on the host, PETSc's way (the host array placed). */
  {
    Vec                       lx, lX;
    PetscGPUKitTransferCounts t0, t1;
    PetscScalar               sr, sd;
    const PetscScalar        *ro;

    PetscCall(VecCreateLocalVector(x, &lx));
    PetscCall(VecCreateLocalVector(X, &lX));
    PetscCall(VecSet(lx, 7.0));
    PetscCall(VecSet(lX, 7.0));
    PetscCall(VecScale(X, 3.0)); /* X's values on the device */
    PetscCall(VecScale(x, 3.0));
    PetscCall(PetscGPUKitGetTransferCounts(&t0));
    PetscCall(VecGetLocalVectorRead(X, lX));
    PetscCall(VecGetLocalVectorRead(x, lx));
    PetscCall(VecSum(lX, &sd));
    PetscCall(VecSum(lx, &sr));
    PetscCall(VecRestoreLocalVectorRead(X, lX));
    PetscCall(VecRestoreLocalVectorRead(x, lx));
    PetscCall(PetscGPUKitGetTransferCounts(&t1));
    PetscCheck(t1.h2d_count == t0.h2d_count && t1.d2h_count == t0.d2h_count, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "A local vector lent on the device for reading: %g copies to the device, %g back", t1.h2d_count - t0.h2d_count,
               t1.d2h_count - t0.d2h_count);
    PetscCall(VecGetArrayRead(X, &ro)); /* the host copy current too: the restore must mark it stale */
    PetscCall(VecRestoreArrayRead(X, &ro));
    PetscCall(PetscGPUKitGetTransferCounts(&t0));
    PetscCall(VecGetLocalVector(X, lX));
    PetscCall(VecGetLocalVector(x, lx));
    PetscCall(VecScale(lX, -2.0));
    PetscCall(VecScale(lx, -2.0));
    PetscCall(VecRestoreLocalVector(X, lX));
    PetscCall(VecRestoreLocalVector(x, lx));
    PetscCall(PetscGPUKitGetTransferCounts(&t1));
    PetscCheck(t1.h2d_count == t0.h2d_count && t1.d2h_count == t0.d2h_count, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "A local vector lent on the device: %g copies to the device, %g back", t1.h2d_count - t0.h2d_count, t1.d2h_count - t0.d2h_count);
    PetscCall(CheckScalar(sr, sd, 0.0, "VecSum of a local vector lent for reading"));
    PetscCall(CheckVec(x, X, "a vector after its local vector was scaled"));
    PetscCall(CheckVec(lx, lX, "a local vector given back (its own values)"));
    PetscCall(EditOnHost(x, X, 1.5)); /* X's values on the host: its host array placed */
    PetscCall(VecGetLocalVector(X, lX));
    PetscCall(VecGetLocalVector(x, lx));
    PetscCall(VecShift(lX, 0.25));
    PetscCall(VecShift(lx, 0.25));
    PetscCall(VecRestoreLocalVector(X, lX));
    PetscCall(VecRestoreLocalVector(x, lx));
    PetscCall(CheckVec(x, X, "a vector after its local vector was shifted, from host values"));
    PetscCall(VecDestroy(&lx));
    PetscCall(VecDestroy(&lX));
  }

  /* VecGetSubVector() of a contiguous set (PETSc's own branch for a vector named seqcuda or
     mpicuda is compiled out of a PETSc without CUDA) and of a strided one: the subvectors equal,
     changed and given back, the vectors equal */
  for (int s = 0; s < 2; s++) {
    IS       is;
    Vec      sr, sd;
    PetscInt rs, re, nl;

    PetscCall(VecGetOwnershipRange(x, &rs, &re));
    nl = re - rs;
    PetscCall(ISCreateStride(PETSC_COMM_WORLD, s ? (nl + 1) / 2 : nl / 2, s ? rs : rs + nl / 4, s ? 2 : 1, &is));
    PetscCall(VecGetSubVector(x, is, &sr));
    PetscCall(VecGetSubVector(X, is, &sd));
    PetscCall(CheckVec(sr, sd, s ? "VecGetSubVector, strided" : "VecGetSubVector, contiguous"));
    PetscCall(VecScale(sr, -3.0));
    PetscCall(VecScale(sd, -3.0));
    PetscCall(VecRestoreSubVector(x, is, &sr));
    PetscCall(VecRestoreSubVector(X, is, &sd));
    PetscCall(CheckVec(x, X, s ? "VecRestoreSubVector of a changed subvector, strided" : "VecRestoreSubVector of a changed subvector, contiguous"));
    PetscCall(VecGetSubVector(X, is, &sd)); /* read only: given back unchanged */
    PetscCall(VecRestoreSubVector(X, is, &sd));
    PetscCall(CheckVec(x, X, "VecRestoreSubVector of an unchanged subvector"));
    PetscCall(ISDestroy(&is));
  }
  /* VecScatterCreateToAll() and VecScatterCreateToZero(): PETSc makes the whole vector of X's
     root type by its name (a device vector here), filled through the host */
  for (int z = 0; z < 2; z++) {
    VecScatter sr, sd;
    Vec        ar, ad;

    PetscCall(z ? VecScatterCreateToZero(x, &sr, &ar) : VecScatterCreateToAll(x, &sr, &ar));
    PetscCall(z ? VecScatterCreateToZero(X, &sd, &ad) : VecScatterCreateToAll(X, &sd, &ad));
    PetscCall(VecScatterBegin(sr, x, ar, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sr, x, ar, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterBegin(sd, X, ad, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sd, X, ad, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(CheckVec(ar, ad, z ? "VecScatterCreateToZero" : "VecScatterCreateToAll"));
    PetscCall(VecScale(ad, 2.0)); /* on the device, then back into X through the host */
    PetscCall(VecScale(ar, 2.0));
    PetscCall(VecScatterBegin(sr, ar, x, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(sr, ar, x, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterBegin(sd, ad, X, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(sd, ad, X, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(CheckVec(x, X, z ? "VecScatterCreateToZero, reversed" : "VecScatterCreateToAll, reversed"));
    PetscCall(VecScatterDestroy(&sr));
    PetscCall(VecScatterDestroy(&sd));
    PetscCall(VecDestroy(&ar));
    PetscCall(VecDestroy(&ad));
  }
  /* VecSetType() of the root type on a vector of it: PETSc 3.18 makes the vector anew (it returns
     early only for its own CUDA types), and the values stay */
  PetscCall(VecSetType(X, VECGKCUDA));
  PetscCall(CheckVec(x, X, "VecSetType() of the vector's own root type"));

  /* view and load */
  {
    PetscViewer v;
    char        file[] = "vecops.bin";

    PetscCall(VecScale(X, 2.0));
    PetscCall(VecScale(x, 2.0));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_WRITE, &v));
    PetscCall(VecView(X, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
    PetscCall(VecLoad(W, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(CheckVec(x, W, "VecView then VecLoad"));
    if (!rank) {
      PetscCheck(!remove(file), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Could not remove %s", file);
      (void)remove("vecops.bin.info");
    }
  }

  PetscCall(VecDestroyVecs(nv, &vr));
  PetscCall(VecDestroyVecs(nv, &vd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&Y));
  PetscCall(VecDestroy(&Z));
  PetscCall(VecDestroy(&W));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all vector operations equal (n = %" PetscInt_FMT ")\n", N));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # device vectors: every operation against VECSEQ/VECMPI, all lengths, 1 to 3 processes (the
  # output names the length alone: one file for every process count)
  test:
    nsize: {{1 2 3}shared output}
    args: -vec_type ${GKVEC} -n {{0 1 31 1000 100003}}

  # on both backends
  test:
    suffix: backends
    output_file: output/vecops_n-1000.out
    args: -vec_type ${GKVEC} -n 1000 -gpukit_backend {{host cuda}shared output}

TEST*/
