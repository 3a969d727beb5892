/*
   The estimate of the extreme singular values of D^-1 A that PCGAMG's AGG takes before it smooths
   a prolongator (KSPSolve() of its esteig KSP from a noisy right-hand side, then
   KSPComputeExtremeSingularValues()), with GMRES's Arnoldi process kept on the device.

   PETSc's GMRES waits for the device twice in each iteration (VecMDot() and VecNormalize() hand
   their values to the host, which VecMAXPY() and VecScale() then take), makes its work vectors
   and builds a solution nobody reads. Here each step's coefficients stay in device memory (the
   backend's arnoldi: the dots, the update, the norm and the scaling read them there), and the
   host waits once, for the Hessenberg matrix; it then applies GMRES's plane rotations to it as
   KSPGMRESUpdateHessenberg() does, with the same checks (a happy breakdown, a rotation of zero),
   and takes the singular values of the triangle R they leave, as
   KSPComputeExtremeSingularValues_GMRES() does with LAPACK's gesvd (which the library does not
   link: a one-sided Jacobi SVD here, accurate to rounding in every singular value). The operator
   and the PC are the KSP's own (MatMult() and PCApply(), the null space removed after each
   application where KSP_PCApplyBAorAB() removes it), so the options that make the PC are honoured.

   Taken only where that is all PETSc's GMRES would compute: GMRES itself (not a variant), one
   process, PC on the left, no norm and PETSc's convergence test (which then stops nothing: the
   iterations are the maximum), at most a restart's iterations, classical Gram-Schmidt without refinement (PETSc's
   default), no monitor, no guess, no diagonal scaling, and nothing asked of the KSP's view,
   reasons or spectra by the options under its prefix. Anything else, or anything the host finds
   on the way (a norm of zero or not finite, a breakdown), leaves the KSP to run as PETSc's, which
   then answers as it would have.
*/
#include "include/gpukitimpl.h"
#include "mat/impls/gk/gkmat.h"
#include "vec/impls/cuda/gkvec.h"
#include "esteig.h"
#include <petsc/private/kspimpl.h>

/* MatNullSpaceRemove(), with the constants alone removed on the device with no wait (the same
   arithmetic: VecGKRemoveConstant_Private()) */
static PetscErrorCode GKRemoveNullSpace(MatNullSpace sp, Vec v)
{
  PetscFunctionBegin;
  if (!sp) PetscFunctionReturn(0);
  if (sp->has_cnst && !sp->n && !sp->remove) PetscCall(VecGKRemoveConstant_Private(v));
  else PetscCall(MatNullSpaceRemove(sp, v));
  PetscFunctionReturn(0);
}

/* whether the options under the KSP's prefix ask it for anything its solve would show */
static PetscErrorCode GKArnoldiOptionsQuiet(KSP ksp, PetscBool *quiet)
{
  static const char *asks[] = {"ksp_view", "ksp_converged_", "ksp_compute_", "ksp_plot_", "ksp_monitor"};
  const char        *prefix;
  char              *all, key[256];

  PetscFunctionBegin;
  *quiet = PETSC_TRUE;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(PetscOptionsGetAll(((PetscObject)ksp)->options, &all));
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(asks) && *quiet; k++) {
    PetscCall(PetscSNPrintf(key, sizeof(key), "-%s%s", prefix ? prefix : "", asks[k]));
    if (strstr(all, key)) *quiet = PETSC_FALSE;
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/* whether the KSP's solve would be GMRES's plain iterations alone (the comment at the top) */
static PetscErrorCode GKArnoldiApplies(KSP ksp, PetscInt *maxit, PetscBool *applies)
{
  PetscBool   gmres, classical = PETSC_FALSE, quiet, seq, mpi, pcscale = PETSC_FALSE;
  PetscInt    restart;
  PetscMPIInt size;
  Mat         A, P;
  PCSide      side;

  PetscFunctionBegin;
  *applies = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPGMRES, &gmres));
  if (size > 1 || !gmres) PetscFunctionReturn(0);
  PetscCall(KSPGetOperators(ksp, &A, &P));
  PetscCall(GKMatIsDevice_Private(A, &seq, &mpi));
  if (!seq || A->rmap->n < 1) PetscFunctionReturn(0);
  PetscCall(KSPGetPCSide(ksp, &side));
  PetscCall(KSPGetTolerances(ksp, NULL, NULL, NULL, maxit));
  PetscCall(KSPGMRESGetRestart(ksp, &restart));
  PetscCall(GKKSPOrthogonalizationIsClassical(ksp, &classical));
  if (side != PC_LEFT || ksp->normtype != KSP_NORM_NONE || (ksp->converged != KSPConvergedSkip && ksp->converged != KSPConvergedDefault) ||
      *maxit < 1 || *maxit > restart || !classical)
    PetscFunctionReturn(0);
  PetscCall(GKPCGetDiagonalScale(ksp->pc, &pcscale));
  if (ksp->numbermonitors || ksp->numberreasonviews || ksp->guess || GKKSPDiagonalScaled(ksp) || ksp->transpose_solve || !ksp->guess_zero || pcscale)
    PetscFunctionReturn(0);
  PetscCall(GKArnoldiOptionsQuiet(ksp, &quiet));
  *applies = quiet;
  PetscFunctionReturn(0);
}

/* the singular values of the n x n matrix a (column-major, leading dimension ld; overwritten),
   largest and smallest: one-sided Jacobi (Hestenes), each pair of columns made orthogonal by a
   plane rotation until no pair is off by more than rounding; the singular values are then the
   columns' norms */
static PetscErrorCode GKJacobiSingularValues(PetscInt n, PetscScalar *a, PetscInt ld, PetscReal *smax, PetscReal *smin)
{
  PetscBool rotated = PETSC_TRUE;

  PetscFunctionBegin;
  for (PetscInt sweep = 0; sweep < 64 && rotated; sweep++) {
    rotated = PETSC_FALSE;
    for (PetscInt p = 0; p < n - 1; p++) {
      for (PetscInt q = p + 1; q < n; q++) {
        PetscScalar *cp = a + p * ld, *cq = a + q * ld, g = 0.0, e;
        PetscReal    al = 0.0, be = 0.0, ag, zeta, t, c, s;

        for (PetscInt i = 0; i < n; i++) {
          al += PetscRealPart(PetscConj(cp[i]) * cp[i]);
          be += PetscRealPart(PetscConj(cq[i]) * cq[i]);
          g += PetscConj(cp[i]) * cq[i];
        }
        ag = PetscAbsScalar(g);
        if (ag == 0.0 || ag <= PETSC_MACHINE_EPSILON * PetscSqrtReal(al * be)) continue;
        rotated = PETSC_TRUE;
        e       = g / ag; /* the phase that makes the pair's product real */
        zeta    = (be - al) / (2.0 * ag);
        t       = (zeta >= 0.0 ? 1.0 : -1.0) / (PetscAbsReal(zeta) + PetscSqrtReal(1.0 + zeta * zeta));
        c       = 1.0 / PetscSqrtReal(1.0 + t * t);
        s       = c * t;
        for (PetscInt i = 0; i < n; i++) {
          const PetscScalar xp = cp[i], xq = PetscConj(e) * cq[i];

          cp[i] = c * xp - s * xq;
          cq[i] = s * xp + c * xq;
        }
      }
    }
  }
  *smax = 0.0;
  *smin = PETSC_MAX_REAL;
  for (PetscInt j = 0; j < n; j++) {
    PetscReal nrm = 0.0;

    for (PetscInt i = 0; i < n; i++) nrm += PetscRealPart(PetscConj(a[j * ld + i]) * a[j * ld + i]);
    nrm   = PetscSqrtReal(nrm);
    *smax = PetscMax(*smax, nrm);
    *smin = PetscMin(*smin, nrm);
  }
  PetscFunctionReturn(0);
}

/* GMRES's rotations of the Hessenberg columns h (column j at h + j ld, rows 0..j+1) into R in
   place, from the first residual norm res, with KSPGMRESCycle()'s and
   KSPGMRESUpdateHessenberg()'s arithmetic and checks; false where GMRES would have stopped
   early or failed */
static PetscErrorCode GKGMRESRotate(PetscInt m, PetscScalar *h, PetscInt ld, PetscReal res, PetscReal haptol, PetscBool *ok)
{
  PetscScalar *cc, *ss, *grs;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCall(PetscMalloc3(m, &cc, m, &ss, m + 1, &grs));
  grs[0] = res;
  for (PetscInt it = 0; it < m; it++) {
    PetscScalar *hh  = h + it * ld, tt;
    PetscReal    sub = PetscRealPart(hh[it + 1]), hapbnd;

    for (PetscInt i = 0; i <= it + 1; i++)
      if (PetscIsInfOrNanScalar(hh[i])) goto done;
    hapbnd = PetscAbsScalar(sub / grs[it]);
    if (hapbnd > haptol) hapbnd = haptol;
    if (sub < hapbnd) goto done; /* a happy breakdown: GMRES stops after this step */
    for (PetscInt j = 0; j < it; j++) {
      tt        = hh[j];
      hh[j]     = PetscConj(cc[j]) * tt + ss[j] * hh[j + 1];
      hh[j + 1] = cc[j] * hh[j + 1] - ss[j] * tt;
    }
    tt = PetscSqrtScalar(PetscConj(hh[it]) * hh[it] + PetscConj(hh[it + 1]) * hh[it + 1]);
    if (tt == 0.0) goto done; /* KSP_DIVERGED_NULL */
    cc[it]      = hh[it] / tt;
    ss[it]      = hh[it + 1] / tt;
    grs[it + 1] = -(ss[it] * grs[it]);
    grs[it]     = PetscConj(cc[it]) * grs[it];
    hh[it]      = PetscConj(cc[it]) * hh[it] + ss[it] * hh[it + 1];
    hh[it + 1]  = 0.0; /* below the diagonal: KSPComputeExtremeSingularValues_GMRES() zeroes it */
  }
  *ok = PETSC_TRUE;
done:
  PetscCall(PetscFree3(cc, ss, grs));
  PetscFunctionReturn(0);
}

PetscErrorCode PCGAMGAggGPUArnoldi_Private(KSP ksp, Vec b, PetscReal *emax, PetscReal *emin, PetscBool *done)
{
  PetscInt     m, n, ld;
  PetscBool    applies, ok;
  PetscScalar *V = NULL, *H = NULL, *hh = NULL, **v;
  PetscReal    res, haptol = 1.0e-30;
  Mat          A, P;
  PC           pc;
  MatNullSpace nsp, tnsp;
  Vec          x, y, t, rhs = b;
  const char  *prefix;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(GKArnoldiApplies(ksp, &m, &applies));
  if (!applies || !VecIsGK(b)) PetscFunctionReturn(0);
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(PetscOptionsGetReal(((PetscObject)ksp)->options, prefix, "-ksp_gmres_haptol", &haptol, NULL));
  PetscCall(KSPGetOperators(ksp, &A, &P));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetUp(pc)); /* as KSPSetUp() would */
  {
    PCFailedReason reason;

    PetscCall(PCGetFailedReason(pc, &reason));
    if (reason) PetscFunctionReturn(0);
  }
  PetscCall(MatGetNullSpace(A, &nsp));
  PetscCall(MatGetTransposeNullSpace(P, &tnsp));
  n  = A->rmap->n;
  ld = m + 2; /* as GMRES's: column j holds rows 0..j+1 */
  PetscCall(GKMalloc((size_t)n * (m + 1), &V));
  PetscCall(GKMalloc(1 + (size_t)ld * m, &H));
  PetscCall(PetscMalloc2(m + 1, &v, 1 + ld * m, &hh));
  for (PetscInt j = 0; j <= m; j++) v[j] = V + (size_t)j * n;
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecDuplicate(b, &t));
  if (tnsp) { /* KSPSolve() removes the transpose null space from a copy of b */
    PetscCall(VecDuplicate(b, &rhs));
    PetscCall(VecCopy(b, rhs));
    PetscCall(GKRemoveNullSpace(tnsp, rhs));
  }
  /* the first direction: D^-1 b (the guess is zero), normalized: H[0] its norm */
  PetscCall(VecGPUKitPlaceDeviceArray(y, v[0]));
  PetscCall(PCApply(pc, rhs, y));
  PetscCall(GKRemoveNullSpace(nsp, y));
  PetscCall(VecGPUKitResetDeviceArray(y));
  PetscCall(GKDev->arnoldi(n, 0, NULL, v[0], H));
  for (PetscInt j = 0; j < m; j++) {
    PetscCall(VecGPUKitPlaceDeviceArray(x, v[j]));
    PetscCall(VecGPUKitPlaceDeviceArray(y, v[j + 1]));
    PetscCall(MatMult(A, x, t));
    PetscCall(PCApply(pc, t, y));
    PetscCall(GKRemoveNullSpace(nsp, y));
    PetscCall(VecGPUKitResetDeviceArray(y));
    PetscCall(VecGPUKitResetDeviceArray(x));
    PetscCall(GKDev->arnoldi(n, j + 1, (const PetscScalar *const *)v, v[j + 1], H + 1 + j * ld));
  }
  PetscCall(GKMemcpyD2H(hh, H, sizeof(PetscScalar) * (1 + (size_t)ld * m))); /* the one wait */
  /* below the subdiagonal: never written, zero as in GMRES's arrays */
  for (PetscInt j = 0; j < m; j++)
    for (PetscInt i = j + 2; i < ld; i++) hh[1 + j * ld + i] = 0.0;
  res = PetscRealPart(hh[0]);
  if (res > 0.0 && !PetscIsInfOrNanReal(res)) {
    PetscCall(GKGMRESRotate(m, hh + 1, ld, res, haptol, &ok));
    if (ok) {
      PetscCall(GKJacobiSingularValues(m, hh + 1, ld, emax, emin));
      *done = PETSC_TRUE;
      PetscCall(PetscInfo(ksp, "GMRES's %" PetscInt_FMT " Arnoldi steps on the device, one wait: singular values %g to %g\n", m, (double)*emin,
                          (double)*emax));
    }
  }
  if (!*done)
    PetscCall(PetscInfo(ksp, "GMRES would stop early or fail on these Arnoldi steps (a zero or non-finite norm, a breakdown): PETSc's GMRES runs\n"));
  if (rhs != b) PetscCall(VecDestroy(&rhs));
  PetscCall(VecDestroy(&t));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&x));
  PetscCall(PetscFree2(v, hh));
  PetscCall(GKFree(H));
  PetscCall(GKFree(V));
  PetscFunctionReturn(0);
}
