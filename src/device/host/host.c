/*
   The host backend: every entry point of device.h as plain loops over ordinary memory. These
   are the reference the CUDA kernels are tested against, and the sequential CPU version.
*/
#include <limits.h>
#include <stdlib.h>
#include "hostimpl.h"

GKDeviceCounts GKCounts;

static PetscErrorCode GKHostGetDeviceCount(int *count, char *why, size_t len)
{
  PetscFunctionBegin;
  *count = 1;
  if (len) why[0] = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostSetDevice(int dev)
{
  PetscFunctionBegin;
  PetscCheck(dev == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The host backend has one device, 0, not %d", dev);
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostGetDeviceName(int dev, char *name, size_t len)
{
  PetscFunctionBegin;
  (void)dev;
  PetscCall(PetscStrncpy(name, "host", len));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostMalloc(size_t bytes, void **p)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *p = NULL;
  if (!bytes) PetscFunctionReturn(0);
  /* PETSc's allocator reports a failure with errno as the code: report it as the CUDA backend does */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscMallocA(1, PETSC_FALSE, __LINE__, PETSC_FUNCTION_NAME, __FILE__, bytes, p);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(!ierr && *p, PETSC_COMM_SELF, PETSC_ERR_MEM, "Host backend out of memory: %zu bytes requested", bytes);
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostFree(void *p)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(p));
  PetscFunctionReturn(0);
}

/* The backend's "device" allocations, kept so that ondevice tells them from other host memory
   as CUDA's pointer attributes do: the callers then take the same paths on both backends (the
   staging buffers of hostmalloc are not among them). Plain C memory: bookkeeping, not data. */
typedef struct {
  const char *p;
  size_t      n;
} GKHostBlock;

static GKHostBlock *gk_blocks;
static size_t       gk_nblocks, gk_maxblocks;

static PetscErrorCode GKHostDeviceMalloc(size_t bytes, void **p)
{
  PetscFunctionBegin;
  PetscCall(GKHostMalloc(bytes, p));
  if (!*p) PetscFunctionReturn(0);
  if (gk_nblocks == gk_maxblocks) {
    size_t       max = gk_maxblocks ? 2 * gk_maxblocks : 64;
    GKHostBlock *b   = (GKHostBlock *)realloc(gk_blocks, max * sizeof(GKHostBlock));

    if (!b) PetscCall(PetscFree(*p));
    PetscCheck(b, PETSC_COMM_SELF, PETSC_ERR_MEM, "Host backend out of memory: %zu bytes requested", bytes);
    gk_blocks    = b;
    gk_maxblocks = max;
  }
  gk_blocks[gk_nblocks].p = (const char *)*p;
  gk_blocks[gk_nblocks].n = bytes;
  gk_nblocks++;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostDeviceFree(void *p)
{
  PetscFunctionBegin;
  for (size_t b = gk_nblocks; p && b-- > 0;) /* the latest first: frees mostly follow mallocs */
    if (gk_blocks[b].p == (const char *)p) {
      gk_blocks[b] = gk_blocks[--gk_nblocks];
      break;
    }
  PetscCall(GKHostFree(p));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostOnDevice(const void *p, PetscBool *dev)
{
  const char *c = (const char *)p;

  PetscFunctionBegin;
  *dev = PETSC_FALSE;
  for (size_t b = 0; c && b < gk_nblocks && !*dev; b++)
    if (c >= gk_blocks[b].p && c < gk_blocks[b].p + gk_blocks[b].n) *dev = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostMemcpy(void *dst, const void *src, size_t bytes, GKMemcpyKind kind)
{
  PetscFunctionBegin;
  if (bytes) {
    if (kind == GK_MEMCPY_D2D) GKCounts.launches += 1;
    else GKCounts.syncs += 1;
  }
  if (bytes) PetscCall(PetscMemcpy(dst, src, bytes));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostMemzero(void *p, size_t bytes)
{
  PetscFunctionBegin;
  if (bytes) GKCounts.launches += 1;
  if (bytes) PetscCall(PetscMemzero(p, bytes));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostSynchronize(void)
{
  PetscFunctionBegin;
  GKCounts.syncs += 1;
  PetscFunctionReturn(0);
}

/* the column of entry e, which belongs to slot t: a 32-bit index or an offset from t (device.h) */
static inline PetscInt GKHostEllrCol(const GKEllr *A, PetscInt t, size_t e)
{
  return A->dcol ? t + A->dcol[e] : A->col[e];
}

/* where slot t's entries start and their stride: column-major slices, or row by row in wide
   ones (device.h) */
PetscScalar GKHostEllrRow(const GKEllr *A, PetscInt t, PetscBool conjugate, const PetscScalar *x)
{
  PetscScalar s = 0.0;
  size_t      base;
  PetscInt    st;

  GKHostEllrSlot(A, t, &base, &st);
  for (PetscInt k = 0; k < A->rl[t]; k++) {
    const PetscScalar a = A->val[base + (size_t)k * st];

    s += (conjugate ? PetscConj(a) : a) * x[GKHostEllrCol(A, t, base + (size_t)k * st)];
  }
  return s;
}

void GKHostEllrSlot(const GKEllr *A, PetscInt t, size_t *base, PetscInt *stride)
{
  const PetscInt s = t / A->h, g = A->wfirst[s];

  *base   = g >= 0 ? (size_t)A->wptr[g + t % A->h] : (size_t)A->sliceptr[s] + (size_t)(t % A->h);
  *stride = g >= 0 ? 1 : A->h;
}

/* y = A x (w +- A x: GKHostOut): row i sums its rl[i] entries, stored h apart from its slice's start plus
   i % h (Michels, Algorithm 4: h = m, entries at i, i+m, i+2m, ...) */
PetscErrorCode GKHostEllrLoop(const GKEllr *A, PetscBool conjugate, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  const PetscInt m = A->m;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < m; t++) { /* slot t holds row i */
    const PetscInt    i = A->perm ? A->perm[t] : t;
    const PetscScalar s = GKHostEllrRow(A, t, conjugate, x);

    y[i] = GKHostOut(w, neg, i, s);
  }
  PetscFunctionReturn(0);
}

/* y = A x (w +- A x): y[i] += val[d*m+i] * x[i+off[d]] for the columns inside the matrix */
PetscErrorCode GKHostDiaLoop(const GKDia *A, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  const PetscInt m = A->m, n = A->n;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < m; i++) {
    PetscScalar s = 0.0;

    for (PetscInt d = 0; d < A->ndiag; d++) {
      const PetscInt j = i + A->off[d];

      if (j >= 0 && j < n) s += A->val[(size_t)d * m + i] * x[j];
    }
    y[i] = GKHostOut(w, neg, i, s);
  }
  PetscFunctionReturn(0);
}

/* y = A^T x (w +- A^T x): entry (i, j) of diagonal off[d] sits at val[d*m + i] with i = j - off[d] */
PetscErrorCode GKHostDiaTLoop(const GKDia *A, PetscBool conjugate, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  const PetscInt m = A->m, n = A->n;

  PetscFunctionBegin;
  for (PetscInt j = 0; j < n; j++) {
    PetscScalar s = 0.0;

    for (PetscInt d = 0; d < A->ndiag; d++) {
      const PetscInt i = j - A->off[d];

      if (i >= 0 && i < m) {
        const PetscScalar a = A->val[(size_t)d * m + i];

        s += (conjugate ? PetscConj(a) : a) * x[i];
      }
    }
    y[j] = GKHostOut(w, neg, j, s);
  }
  PetscFunctionReturn(0);
}

/* d[i] = A(i,i): the entry of row i whose column is i, if stored */
static PetscErrorCode GKHostEllrGetDiagonal(const GKEllr *A, PetscScalar *diag)
{
  const PetscInt m = A->m;

  PetscFunctionBegin;
  if (A->m) GKCounts.launches += 1;
  for (PetscInt t = 0; t < m; t++) { /* slot t holds row i */
    const PetscInt i = A->perm ? A->perm[t] : t;
    PetscScalar    s = 0.0;
    size_t         base;
    PetscInt       st;

    GKHostEllrSlot(A, t, &base, &st);
    for (PetscInt k = 0; k < A->rl[t]; k++)
      if (GKHostEllrCol(A, t, base + (size_t)k * st) == i) s += A->val[base + (size_t)k * st];
    diag[i] = s;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostEllrShortFits(const GKEllr *E, const PetscInt *ai, const PetscInt *aj, PetscBool *fits)
{
  PetscFunctionBegin;
  *fits = PETSC_TRUE;
  if (!E->m) PetscFunctionReturn(0);
  GKCounts.launches += 2; /* the CUDA backend's: the flag set, the test; then it waits for the flag */
  GKCounts.syncs += 1;
  for (PetscInt t = 0; t < E->m; t++) {
    const PetscInt i = E->perm ? E->perm[t] : t;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] - t < SHRT_MIN || aj[k] - t > SHRT_MAX) *fits = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostCheckCols(PetscInt nnz, PetscInt n, const PetscInt *aj, PetscBool *ok)
{
  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  if (!nnz) PetscFunctionReturn(0);
  GKCounts.launches += 2; /* the CUDA backend's: the flag set, the test; then it waits for the flag */
  GKCounts.syncs += 1;
  for (PetscInt k = 0; k < nnz; k++)
    if (aj[k] < 0 || aj[k] >= n) *ok = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostEllrFill(GKEllr *E, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscBool valuesonly)
{
  PetscFunctionBegin;
  if (E->m) GKCounts.launches += 1;
  for (PetscInt t = 0; t < E->m; t++) { /* slot t holds row i */
    const PetscInt i = E->perm ? E->perm[t] : t, len = ai[i + 1] - ai[i];
    size_t         base;
    PetscInt       st;

    GKHostEllrSlot(E, t, &base, &st);
    if (!valuesonly) E->rl[t] = len;
    for (PetscInt k = 0; k < len; k++) {
      const size_t e = base + (size_t)k * st;

      E->val[e] = aa[ai[i] + k];
      if (valuesonly) continue;
      if (E->dcol) E->dcol[e] = (short)(aj[ai[i] + k] - t);
      else E->col[e] = aj[ai[i] + k];
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostDiaOffsets(PetscInt m, const PetscInt *ai, const PetscInt *aj, char *flag)
{
  PetscFunctionBegin;
  if (m) GKCounts.launches += 1;
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) flag[aj[k] - i + m - 1] = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostDiaFill(GKDia *D, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa)
{
  PetscFunctionBegin;
  if (D->m) GKCounts.launches += 1;
  for (PetscInt i = 0; i < D->m; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      PetscInt lo = 0, hi = D->ndiag - 1; /* the diagonal of offset aj[k] - i, by bisection */

      while (lo < hi) {
        const PetscInt mid = (lo + hi) / 2;

        if (D->off[mid] < aj[k] - i) lo = mid + 1;
        else hi = mid;
      }
      D->val[(size_t)lo * D->m + i] = aa[k];
    }
  PetscFunctionReturn(0);
}

/* d[i] = A(i,i): row i of the offset-0 diagonal, if stored */
static PetscErrorCode GKHostDiaGetDiagonal(const GKDia *A, PetscScalar *diag)
{
  const PetscInt m = A->m;

  PetscFunctionBegin;
  if (A->m) GKCounts.launches += 1;
  for (PetscInt i = 0; i < m; i++) {
    PetscScalar s = 0.0;

    for (PetscInt d = 0; d < A->ndiag; d++)
      if (A->off[d] == 0 && i < A->n) s = A->val[(size_t)d * m + i];
    diag[i] = s;
  }
  PetscFunctionReturn(0);
}

/* z = a x + b y + c z + d, leaving out NULL vectors and not reading z when c is 0 */
static PetscErrorCode GKHostAxpbypczd(PetscInt n, PetscScalar a, const PetscScalar *x, PetscScalar b, const PetscScalar *y, PetscScalar c,
                                      PetscScalar d, PetscScalar *z)
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
static PetscErrorCode GKHostMaxpy(PetscInt n, PetscInt nv, const PetscScalar *alpha, const PetscScalar *const *x, PetscScalar *y)
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

static PetscErrorCode GKHostSwap(PetscInt n, PetscScalar *x, PetscScalar *y)
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
static PetscErrorCode GKHostPointwise(PetscInt n, GKPointwiseOp op, PetscScalar *w, const PetscScalar *x, const PetscScalar *y)
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
static PetscErrorCode GKHostReciprocal(PetscInt n, PetscScalar *x)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++)
    if (x[i] != (PetscScalar)0.0) x[i] = 1.0 / x[i];
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostNoisy(PetscInt n, PetscInt start, PetscScalar *x)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) x[i] = GKNoisyHash(start + i);
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostConjugate(PetscInt n, PetscScalar *x)
{
  PetscFunctionBegin;
  if (n && PetscDefined(USE_COMPLEX)) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) x[i] = PetscConj(x[i]);
  PetscFunctionReturn(0);
}

/* r[k] = y[k]^H x, or y[k]^T x */
static PetscErrorCode GKHostDots(PetscInt n, const PetscScalar *x, PetscInt nv, const PetscScalar *const *y, PetscBool conjugate, PetscScalar *r)
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

/* dp = t^H s, nm = t^H t */
static PetscErrorCode GKHostDotNorm2(PetscInt n, const PetscScalar *s, const PetscScalar *t, PetscScalar *dp, PetscReal *nm)
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
static PetscErrorCode GKHostNorms(PetscInt n, const PetscScalar *x, int parts, PetscReal *r)
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

static PetscErrorCode GKHostSum(PetscInt n, const PetscScalar *x, PetscScalar *s)
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

/* the largest (smallest) real part and its first index, as VecMax_Seq (VecMin_Seq) */
static PetscErrorCode GKHostExtreme(PetscInt n, const PetscScalar *x, GKExtremeOp op, PetscInt *idx, PetscReal *val)
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

static PetscErrorCode GKHostFinalize(void)
{
  PetscFunctionBegin;
  free(gk_blocks);
  gk_blocks    = NULL;
  gk_nblocks   = 0;
  gk_maxblocks = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostEllrMult(const GKEllr *A, PetscBool conjugate, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (A->m) GKCounts.launches += 1;
  PetscCall(GKHostEllrLoop(A, conjugate, x, w, neg, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostDiaMult(const GKDia *A, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (A->m) GKCounts.launches += 1;
  PetscCall(GKHostDiaLoop(A, x, w, neg, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostDiaMultTranspose(const GKDia *A, PetscBool conjugate, const PetscScalar *x, const PetscScalar *w, PetscBool neg,
                                             PetscScalar *y)
{
  PetscFunctionBegin;
  if (A->n) GKCounts.launches += 1;
  PetscCall(GKHostDiaTLoop(A, conjugate, x, w, neg, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostDenseTriMV(PetscInt n, const PetscScalar *a, PetscBool upper, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = 0.0;

    for (PetscInt j = upper ? i : 0; j < (upper ? n : i + 1); j++) s += a[i * n + j] * x[j];
    y[i] = s;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostGather(PetscInt n, const PetscInt *idx, const PetscScalar *x, PetscScalar *buf)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt k = 0; k < n; k++) buf[k] = x[idx[k]];
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostCooScatter(PetscInt nnz, const PetscCount *jmap, const PetscCount *perm, const PetscScalar *v, PetscBool add,
                                       PetscScalar *a)
{
  PetscFunctionBegin;
  if (nnz) GKCounts.launches += 1;
  for (PetscInt p = 0; p < nnz; p++) {
    PetscScalar sum = 0.0;

    for (PetscCount q = jmap[p]; q < jmap[p + 1]; q++) sum += v[perm[q]];
    a[p] = (add ? a[p] : 0.0) + sum;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostScatterAdd(PetscInt n, const PetscInt *idx, const PetscScalar *buf, PetscScalar *y)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt k = 0; k < n; k++) y[idx[k]] += buf[k];
  PetscFunctionReturn(0);
}

/* SSOR's step (device.h), row by row in the list's order */
static PetscErrorCode GKHostSsorRows(const GKSsor *S, GKSsorStep step, PetscInt nrows, const PetscInt *rows, PetscReal omega, const PetscScalar *b,
                                     const PetscScalar *xin, PetscScalar *xout)
{
  const PetscBool    upper = step != GK_SSOR_LOWER ? PETSC_TRUE : PETSC_FALSE;
  const PetscInt    *ptr = upper ? S->uptr : S->lptr, *col = upper ? S->ucol : S->lcol;
  const PetscScalar *val = upper ? S->uval : S->lval;
  const PetscInt     n   = rows ? nrows : S->m;

  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt i = rows ? rows[k] : k;
    PetscScalar    s = 0.0;

    for (PetscInt e = ptr[i]; e < ptr[i + 1]; e++) s += val[e] * xin[col[e]];
    switch (step) {
    case GK_SSOR_UPPER_SSOR:
      xout[i] = (2.0 - omega) * b[i] - omega * s / S->d[i];
      break;
    case GK_SSOR_UPPER_MULT:
      xout[i] = S->d[i] / omega * xin[i] + s;
      break;
    default: /* the solves */
      xout[i] = omega * (b[i] - s) / S->d[i];
    }
  }
  PetscFunctionReturn(0);
}

/* MatSOR's step, or SOR_APPLY_UPPER's product, on ELLPACK-R and DIA (device.h), row after row of
   the list: which entries a row sums, and what it stores */
static inline PetscBool GKHostSorTakes(PetscBool upper, PetscInt i, PetscInt j, const PetscInt *key)
{
  if (upper) return (PetscBool)(key ? key[j] > key[i] : j > i);
  return (PetscBool)(j != i);
}

static inline void GKHostSorStore(PetscBool upper, PetscInt i, PetscScalar s, const PetscScalar *d, PetscReal omega, const PetscScalar *b,
                                  const PetscScalar *x, PetscScalar *y)
{
  if (upper) y[i] = d[i] / omega * x[i] + s;
  else y[i] = (1.0 - omega) * x[i] + omega * (b[i] - s) / d[i];
}

static PetscErrorCode GKHostEllrSor(const GKEllr *A, PetscInt nrows, const PetscInt *slots, const PetscInt *key, PetscBool upper,
                                    const PetscScalar *d, PetscReal omega, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt n = slots ? nrows : A->m;

  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt t = slots ? slots[k] : k, i = A->perm ? A->perm[t] : t;
    PetscScalar    s = 0.0;
    size_t         base;
    PetscInt       st;

    GKHostEllrSlot(A, t, &base, &st);
    for (PetscInt e = 0; e < A->rl[t]; e++) {
      const PetscInt j = GKHostEllrCol(A, t, base + (size_t)e * st);

      if (GKHostSorTakes(upper, i, j, key)) s += A->val[base + (size_t)e * st] * x[j];
    }
    GKHostSorStore(upper, i, s, d, omega, b, x, y);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostDiaSor(const GKDia *A, PetscInt nrows, const PetscInt *rows, const PetscInt *key, PetscBool upper, const PetscScalar *d,
                                   PetscReal omega, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt n = rows ? nrows : A->m;

  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt i = rows ? rows[k] : k;
    PetscScalar    s = 0.0;

    for (PetscInt q = 0; q < A->ndiag; q++) {
      const PetscInt j = i + A->off[q];

      if (j >= 0 && j < A->n && GKHostSorTakes(upper, i, j, key)) s += A->val[(size_t)q * A->m + i] * x[j];
    }
    GKHostSorStore(upper, i, s, d, omega, b, x, y);
  }
  PetscFunctionReturn(0);
}

void GKHostSsorBlock(const GKSsor *S, PetscInt J, PetscInt n, PetscBool inv, PetscScalar *v)
{
  const PetscInt     nb   = S->nblk;
  const PetscScalar *dinv = S->fac + (S->bs * (S->bs - 1) / 2) * nb + J;
#define GKF(k, l)  S->fac[((k) * ((k) - 1) / 2 + (l)) * nb + J]
#define GKFS(k, l) (S->herm ? PetscConj(GKF(k, l)) : GKF(k, l))

  if (inv) { /* F^-* Delta^-1 F^-1 v */
    for (PetscInt k = 0; k < n; k++)
      for (PetscInt l = 0; l < k; l++) v[k] -= GKF(k, l) * v[l];
    for (PetscInt k = 0; k < n; k++) v[k] *= dinv[k * nb];
    for (PetscInt k = n - 1; k >= 0; k--)
      for (PetscInt l = k + 1; l < n; l++) v[k] -= GKFS(l, k) * v[l];
  } else { /* F Delta F^* v */
    for (PetscInt k = 0; k < n; k++) {
      for (PetscInt l = k + 1; l < n; l++) v[k] += GKFS(l, k) * v[l];
      v[k] /= dinv[k * nb];
    }
    for (PetscInt k = n - 1; k >= 0; k--)
      for (PetscInt l = 0; l < k; l++) v[k] += GKF(k, l) * v[l];
  }
#undef GKF
#undef GKFS
}

PetscScalar GKHostSsorBlockRow(const GKSsor *S, const GKSsorColor *c, int t, PetscInt j, PetscInt l, const PetscScalar *x)
{
  PetscScalar s = 0.0;

  for (PetscInt k = 0; k < c->w[t]; k++) {
    const PetscInt e = c->off[t] + (k * S->bs + l) * c->nb + j;

    s += S->pval[t][e] * x[S->pcol[t][e]];
  }
  return s;
}

/* SSOR's step (device.h) on colour c's blocks, block by block */
static PetscErrorCode GKHostSsorBlocks(const GKSsor *S, GKSsorStep step, const GKSsorColor *c, PetscReal omega, const PetscScalar *b,
                                       const PetscScalar *xin, PetscScalar *xout)
{
  PetscFunctionBegin;
  if (c->nb) GKCounts.launches += 1;
  for (PetscInt j = 0; j < c->nb; j++) {
    PetscInt       r[GK_SSOR_MAX_BS];
    const PetscInt J = c->b0 + j, n = GKHostSsorBlockRows(c, j, r);
    PetscScalar    v[GK_SSOR_MAX_BS], s[GK_SSOR_MAX_BS];

    for (PetscInt l = 0; l < n; l++) s[l] = step == GK_SSOR_BLOCK_Z ? 0.0 : GKHostSsorBlockRow(S, c, step == GK_SSOR_LOWER ? 0 : 1, j, l, xin);
    for (PetscInt l = 0; l < n; l++)
      v[l] = step == GK_SSOR_UPPER_SSOR ? s[l] : step == GK_SSOR_UPPER_MULT || step == GK_SSOR_BLOCK_Z ? xin[r[l]] : b[r[l]] - s[l];
    GKHostSsorBlock(S, J, n, step == GK_SSOR_UPPER_MULT || step == GK_SSOR_BLOCK_Z ? PETSC_FALSE : PETSC_TRUE, v);
    for (PetscInt l = 0; l < n; l++) {
      switch (step) {
      case GK_SSOR_UPPER_SSOR:
        xout[r[l]] = (2.0 - omega) * b[r[l]] - omega * v[l];
        break;
      case GK_SSOR_UPPER_MULT:
        xout[r[l]] = v[l] / omega + s[l];
        break;
      case GK_SSOR_BLOCK_Z:
        xout[r[l]] = (2.0 - omega) / omega * v[l];
        break;
      default: /* the solves */
        xout[r[l]] = omega * v[l];
      }
    }
  }
  PetscFunctionReturn(0);
}

/* the sums kept on devices between processes (peers*, krylovsetpeers) are the CUDA backend's
   alone: left NULL here */
const GKBackendOps GKBackendHost = {
  .name               = "host",
  .getdevicecount     = GKHostGetDeviceCount,
  .setdevice          = GKHostSetDevice,
  .getdevicename      = GKHostGetDeviceName,
  .malloc             = GKHostDeviceMalloc,
  .free               = GKHostDeviceFree,
  .memcpy             = GKHostMemcpy,
  .memzero            = GKHostMemzero,
  .synchronize        = GKHostSynchronize,
  .ellrmult           = GKHostEllrMult,
  .diamult            = GKHostDiaMult,
  .diamulttranspose   = GKHostDiaMultTranspose,
  .ellrgetdiagonal    = GKHostEllrGetDiagonal,
  .ellrshortfits      = GKHostEllrShortFits,
  .checkcols          = GKHostCheckCols,
  .ellrfill           = GKHostEllrFill,
  .diafill            = GKHostDiaFill,
  .diaoffsets         = GKHostDiaOffsets,
  .diagetdiagonal     = GKHostDiaGetDiagonal,
  .axpbypczd          = GKHostAxpbypczd,
  .maxpy              = GKHostMaxpy,
  .swap               = GKHostSwap,
  .pointwise          = GKHostPointwise,
  .reciprocal         = GKHostReciprocal,
  .conjugate          = GKHostConjugate,
  .noisy              = GKHostNoisy,
  .dots               = GKHostDots,
  .dotnorm2           = GKHostDotNorm2,
  .norms              = GKHostNorms,
  .sum                = GKHostSum,
  .extreme            = GKHostExtreme,
  .densetrimv         = GKHostDenseTriMV,
  .gather             = GKHostGather,
  .scatteradd         = GKHostScatterAdd,
  .cooscatter         = GKHostCooScatter,
  .ondevice           = GKHostOnDevice,
  .ssorrows           = GKHostSsorRows,
  .ssorblocks         = GKHostSsorBlocks,
  .ellrsor            = GKHostEllrSor,
  .diasor             = GKHostDiaSor,
  .hostmalloc         = GKHostMalloc,
  .hostfree           = GKHostFree,
  .krylovcreate       = GKHostKrylovCreate,
  .krylovdestroy      = GKHostKrylovDestroy,
  .krylovstep         = GKHostKrylovStep,
  .krylovupdate       = GKHostKrylovUpdate,
  .krylovssor         = GKHostKrylovSsor,
  .krylovupdateblocks = GKHostKrylovUpdateBlocks,
  .krylovdpi          = GKHostKrylovDpi,
  .krylovstatebegin   = GKHostKrylovStateBegin,
  .krylovstateend     = GKHostKrylovStateEnd,
  .krylovgather       = GKHostKrylovGather,
  .krylovgatherwait   = GKHostKrylovGatherWait,
  .krylovoffdiag      = GKHostKrylovOffDiag,
  .krylovgetsums      = GKHostKrylovGetSums,
  .krylovsetsums      = GKHostKrylovSetSums,
  .spgemm             = GKHostSpGEMM,
  .spgemmnumeric      = GKHostSpGEMMNumeric,
  .spgemmplanfree     = GKHostSpGEMMPlanFree,
  .transpose          = GKHostCsrTranspose,
  .strength           = GKHostStrength,
  .aggregate          = GKHostAggregate,
  .tentative          = GKHostTentative,
  .smooth             = GKHostSmooth,
  .finalize           = GKHostFinalize,
};
