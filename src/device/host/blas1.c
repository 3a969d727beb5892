/*
   The host backend: the vector updates and reductions (cuda/blas1.cu's twins)
*/
#include <limits.h>
#include <stdlib.h>
#include "hostimpl.h"

/* z = a x + b y + c z + d, leaving out NULL vectors and not reading z when c is 0 */
PetscErrorCode GKHostAxpbypczd(PetscInt n, PetscScalar a, const PetscScalar *x, PetscScalar b, const PetscScalar *y, PetscScalar c, PetscScalar d,
                               PetscScalar *z)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = d;

    if (x) s += a * x[i];
    if (y) s += b * y[i];
    if (c != (PetscScalar)0.0) s += c * z[i];
    z[i] = s;
  }
  PetscFunctionReturn(0);
}

/* y = y + sum_k alpha[k] x[k] */
PetscErrorCode GKHostMaxpy(PetscInt n, PetscInt nv, const PetscScalar *alpha, const PetscScalar *const *x, PetscScalar *y)
{
  PetscFunctionBegin;
  if (n && nv) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = y[i];

    for (PetscInt k = 0; k < nv; k++) s += alpha[k] * x[k][i];
    y[i] = s;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostSwap(PetscInt n, PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) {
    const PetscScalar t = x[i];

    x[i] = y[i];
    y[i] = t;
  }
  PetscFunctionReturn(0);
}

/* w = x .* y, or x ./ y with 0 where y is 0 (as VecPointwiseDivide_Seq) */
PetscErrorCode GKHostPointwise(PetscInt n, GKPointwiseOp op, PetscScalar *w, const PetscScalar *x, const PetscScalar *y)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) {
    if (op == GK_POINTWISE_MULT) w[i] = x[i] * y[i];
    else w[i] = y[i] != (PetscScalar)0.0 ? x[i] / y[i] : 0.0;
  }
  PetscFunctionReturn(0);
}

/* x = 1/x where x is not 0 (as VecReciprocal_Default) */
PetscErrorCode GKHostReciprocal(PetscInt n, PetscScalar *x)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++)
    if (x[i] != (PetscScalar)0.0) x[i] = 1.0 / x[i];
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostNoisy(PetscInt n, PetscInt start, PetscScalar *x)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) x[i] = GKNoisyHash(start + i);
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostConjugate(PetscInt n, PetscScalar *x)
{
  PetscFunctionBegin;
  if (n && PetscDefined(USE_COMPLEX)) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) x[i] = PetscConj(x[i]);
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostAbs(PetscInt n, PetscScalar *x)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) x[i] = PetscAbsScalar(x[i]);
  PetscFunctionReturn(0);
}

/* r[k] = y[k]^H x, or y[k]^T x */
PetscErrorCode GKHostDots(PetscInt n, const PetscScalar *x, PetscInt nv, const PetscScalar *const *y, PetscBool conjugate, PetscScalar *r)
{
  PetscFunctionBegin;
  if (n && nv) {
    GKCounts.launches += 2 * ((nv + GK_MULTI - 1) / GK_MULTI);
    GKCounts.syncs += (nv + GK_MULTI - 1) / GK_MULTI;
  }
  for (PetscInt k = 0; k < nv; k++) {
    PetscScalar s = 0.0;

    for (PetscInt i = 0; i < n; i++) s += x[i] * (conjugate ? PetscConj(y[k][i]) : y[k][i]);
    r[k] = s;
  }
  PetscFunctionReturn(0);
}

/* cuda/blas1.cu's launches: per GK_MULTI vectors two for the dots and one for the update, and
   two (three where m is 0) for the norm and the scaling */
PetscErrorCode GKHostArnoldi(PetscInt n, PetscInt m, const PetscScalar *const *v, PetscScalar *w, PetscScalar *h)
{
  const PetscInt chunks = (m + GK_MULTI - 1) / GK_MULTI;
  PetscReal      nrm    = 0.0;

  PetscFunctionBegin;
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Arnoldi's step on an empty vector");
  GKCounts.launches += 3 * chunks + (m ? 2 : 3);
  for (PetscInt k = 0; k < m; k++) {
    PetscScalar s = 0.0;

    for (PetscInt i = 0; i < n; i++) s += w[i] * PetscConj(v[k][i]);
    h[k] = s;
  }
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = w[i];

    for (PetscInt k = 0; k < m; k++) s -= h[k] * v[k][i];
    w[i] = s;
    nrm += PetscRealPart(s * PetscConj(s));
  }
  nrm  = PetscSqrtReal(nrm);
  h[m] = nrm;
  if (nrm != 0.0) {
    const PetscReal s = 1.0 / nrm;

    for (PetscInt i = 0; i < n; i++) w[i] = w[i] * s;
  }
  PetscFunctionReturn(0);
}

/* dp = t^H s, nm = t^H t */
PetscErrorCode GKHostDotNorm2(PetscInt n, const PetscScalar *s, const PetscScalar *t, PetscScalar *dp, PetscReal *nm)
{
  PetscScalar d = 0.0;
  PetscReal   m = 0.0;

  PetscFunctionBegin;
  if (n) {
    GKCounts.launches += 2;
    GKCounts.syncs += 1;
  }
  for (PetscInt i = 0; i < n; i++) {
    d += s[i] * PetscConj(t[i]);
    m += PetscRealPart(t[i] * PetscConj(t[i]));
  }
  *dp = d;
  *nm = m;
  PetscFunctionReturn(0);
}

/* r[0] = sum |x|, r[1] = sum |x|^2, r[2] = max |x| (NaN if an entry is, as VecNorm_Seq): the
   parts asked for */
PetscErrorCode GKHostNorms(PetscInt n, const PetscScalar *x, int parts, PetscReal *r)
{
  PetscFunctionBegin;
  if (n && (parts & GK_NORM_MAX)) {
    GKCounts.launches += 2;
    GKCounts.syncs += 1;
  }
  if (n && (parts & (GK_NORM_ABS | GK_NORM_SQ))) {
    GKCounts.launches += 2;
    GKCounts.syncs += 1;
  }
  r[0] = r[1] = r[2] = 0.0;
  for (PetscInt i = 0; i < n; i++) {
    if (parts & GK_NORM_ABS) r[0] += PetscAbsScalar(x[i]);
    if (parts & GK_NORM_SQ) r[1] += PetscRealPart(x[i] * PetscConj(x[i]));
    if ((parts & GK_NORM_MAX) && !PetscIsNanReal(r[2])) {
      const PetscReal a = PetscAbsScalar(x[i]);

      if (a > r[2] || PetscIsNanReal(a)) r[2] = a;
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostSum(PetscInt n, const PetscScalar *x, PetscScalar *s)
{
  PetscFunctionBegin;
  if (n) {
    GKCounts.launches += 2;
    GKCounts.syncs += 1;
  }
  *s = 0.0;
  for (PetscInt i = 0; i < n; i++) *s += x[i];
  PetscFunctionReturn(0);
}

/* as the CUDA backend's three launches (the sum, its blocks' sum, the shift), no wait */
PetscErrorCode GKHostRemoveConstant(PetscInt n, PetscInt N, PetscScalar *x)
{
  PetscScalar s = 0.0;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCounts.launches += 3;
  for (PetscInt i = 0; i < n; i++) s += x[i];
  s = s / ((PetscScalar)(-1.0 * N));
  for (PetscInt i = 0; i < n; i++) x[i] = x[i] + s;
  PetscFunctionReturn(0);
}

/* the largest (smallest) real part and its first index, as VecMax_Seq (VecMin_Seq) */
PetscErrorCode GKHostExtreme(PetscInt n, const PetscScalar *x, GKExtremeOp op, PetscInt *idx, PetscReal *val)
{
  const PetscReal sign = op == GK_EXTREME_MAX ? 1.0 : -1.0;
  PetscReal       best = -PETSC_MAX_REAL;
  PetscInt        j    = -1;

  PetscFunctionBegin;
  if (n) {
    GKCounts.launches += 2;
    GKCounts.syncs += 2;
  }
  for (PetscInt i = 0; i < n; i++) {
    if (j < 0 || sign * PetscRealPart(x[i]) > best) {
      best = sign * PetscRealPart(x[i]);
      j    = i;
    }
  }
  *idx = j;
  *val = sign * best;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostFirstZero(PetscInt n, const PetscScalar *x, PetscInt *idx)
{
  PetscFunctionBegin;
  if (n) {
    GKCounts.launches += 2;
    GKCounts.syncs += 2;
  }
  *idx = -1;
  for (PetscInt i = 0; i < n && *idx < 0; i++)
    if (x[i] == (PetscScalar)0.0) *idx = i;
  PetscFunctionReturn(0);
}
