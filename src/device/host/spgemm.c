/*
   The host twin of the CUDA backend's sparse products (cuda/spgemm.cu): C = A P, or C = R^T (A P),
   of CSR matrices in the backend's "device" memory, each row's columns ascending as cuSPARSE
   gives them. Row by row: the entries of the row's product summed in a dense accumulator over
   P's columns, the columns met marked, then sorted. A plan for the numeric steps (the twin of
   cuSPARSE's SpGEMMreuse) keeps the patterns of A P, R^T (with each entry's position in R) and C,
   and computes the values alone, each row's in the same accumulator.
*/
#include "hostimpl.h"

/* C = A B; C's arrays allocated here */
static PetscErrorCode GKHostSpGEMMPair(const GKCsr *A, const GKCsr *B, GKCsr *C)
{
  PetscInt    *mark, *cols;
  PetscScalar *acc;

  PetscFunctionBegin;
  C->m = A->m;
  C->n = B->n;
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)(C->m + 1), (void **)&C->i));
  PetscCall(PetscMalloc3(B->n, &mark, B->n, &cols, B->n, &acc));
  for (PetscInt c = 0; c < B->n; c++) mark[c] = -1;
  C->i[0] = 0;
  for (PetscInt r = 0; r < A->m; r++) { /* the pattern's row lengths */
    PetscInt len = 0;

    for (PetscInt k = A->i[r]; k < A->i[r + 1]; k++)
      for (PetscInt l = B->i[A->j[k]]; l < B->i[A->j[k] + 1]; l++)
        if (mark[B->j[l]] != r) {
          mark[B->j[l]] = r;
          len++;
        }
    C->i[r + 1] = C->i[r] + len;
  }
  C->nnz = C->i[C->m];
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)C->nnz, (void **)&C->j));
  PetscCall(GKBackendHost.malloc(sizeof(PetscScalar) * (size_t)C->nnz, (void **)&C->a));
  for (PetscInt c = 0; c < B->n; c++) mark[c] = -1;
  for (PetscInt r = 0; r < A->m; r++) {
    PetscInt n = 0;

    for (PetscInt k = A->i[r]; k < A->i[r + 1]; k++)
      for (PetscInt l = B->i[A->j[k]]; l < B->i[A->j[k] + 1]; l++) {
        const PetscInt c = B->j[l];

        if (mark[c] != r) {
          mark[c]   = r;
          cols[n++] = c;
          acc[c]    = 0.0;
        }
        acc[c] += A->a[k] * B->a[l];
      }
    PetscCall(PetscSortInt(n, cols));
    for (PetscInt q = 0; q < n; q++) {
      C->j[C->i[r] + q] = cols[q];
      C->a[C->i[r] + q] = acc[cols[q]];
    }
  }
  PetscCall(PetscFree3(mark, cols, acc));
  PetscFunctionReturn(0);
}

/* T = R^T: R's entries placed by column, in row order (so each row of T ascending); where perm
   is given (T's nnz entries), T's k-th entry is R's perm[k]-th */
static PetscErrorCode GKHostTranspose(const GKCsr *R, GKCsr *T, PetscInt *perm)
{
  PetscInt *next;

  PetscFunctionBegin;
  T->m   = R->n;
  T->n   = R->m;
  T->nnz = R->nnz;
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)(T->m + 1), (void **)&T->i));
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)T->nnz, (void **)&T->j));
  PetscCall(GKBackendHost.malloc(sizeof(PetscScalar) * (size_t)T->nnz, (void **)&T->a));
  PetscCall(PetscCalloc1(T->m + 1, &next));
  for (PetscInt k = 0; k < R->nnz; k++) next[R->j[k] + 1]++;
  for (PetscInt c = 0; c < T->m; c++) next[c + 1] += next[c];
  for (PetscInt c = 0; c <= T->m; c++) T->i[c] = next[c];
  for (PetscInt r = 0; r < R->m; r++)
    for (PetscInt k = R->i[r]; k < R->i[r + 1]; k++) {
      const PetscInt q = next[R->j[k]]++;

      T->j[q] = r;
      T->a[q] = R->a[k];
      if (perm) perm[q] = k;
    }
  PetscCall(PetscFree(next));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostCsrFree(GKCsr *M)
{
  PetscFunctionBegin;
  PetscCall(GKBackendHost.free(M->i));
  PetscCall(GKBackendHost.free(M->j));
  PetscCall(GKBackendHost.free(M->a));
  M->i = M->j = NULL;
  M->a        = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostCsrTranspose(const GKCsr *R, GKCsr *T, PetscBool *done)
{
  PetscFunctionBegin;
  PetscCall(GKHostTranspose(R, T, NULL));
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostSpGEMM(const GKCsr *A, const GKCsr *P, const GKCsr *R, GKCsr *C, PetscBool *done, char *why, size_t len)
{
  GKCsr AP = {0, 0, 0, NULL, NULL, NULL}, T = AP;

  PetscFunctionBegin;
  (void)why;
  (void)len;
  *done = PETSC_TRUE;
  if (!R) {
    PetscCall(GKHostSpGEMMPair(A, P, C));
    PetscFunctionReturn(0);
  }
  PetscCall(GKHostSpGEMMPair(A, P, &AP));
  PetscCall(GKHostTranspose(R, &T, NULL));
  PetscCall(GKHostSpGEMMPair(&T, &AP, C));
  PetscCall(GKHostCsrFree(&AP));
  PetscCall(GKHostCsrFree(&T));
  PetscFunctionReturn(0);
}

/* C's values, its pattern given (each row's columns among A B's): the accumulator over B's
   columns cleared at C's row's columns, the row's products summed in, read back in C's order */
static PetscErrorCode GKHostSpGEMMPairNumeric(const GKCsr *A, const GKCsr *B, GKCsr *C)
{
  PetscScalar *acc;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(B->n, &acc));
  for (PetscInt r = 0; r < A->m; r++) {
    for (PetscInt q = C->i[r]; q < C->i[r + 1]; q++) acc[C->j[q]] = 0.0;
    for (PetscInt k = A->i[r]; k < A->i[r + 1]; k++)
      for (PetscInt l = B->i[A->j[k]]; l < B->i[A->j[k] + 1]; l++) acc[B->j[l]] += A->a[k] * B->a[l];
    for (PetscInt q = C->i[r]; q < C->i[r + 1]; q++) C->a[q] = acc[C->j[q]];
  }
  PetscCall(PetscFree(acc));
  PetscFunctionReturn(0);
}

typedef struct {
  GKCsr     AP, T, C; /* C: T AP where R is given, else unused (AP the result) */
  PetscInt *perm;
  PetscBool ptap;
} GKHostPlan;

PetscErrorCode GKHostSpGEMMNumeric(void **plan, const GKCsr *A, const GKCsr *P, const GKCsr *R, GKCsr *C, PetscBool *done, char *why, size_t len)
{
  GKHostPlan  *pl = (GKHostPlan *)*plan;
  const GKCsr *S;

  PetscFunctionBegin;
  (void)why;
  (void)len;
  *done = PETSC_TRUE;
  if (!pl) {
    PetscCall(PetscNew(&pl));
    *plan    = pl;
    pl->ptap = R ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(GKHostSpGEMMPair(A, P, &pl->AP));
    if (R) {
      PetscCall(PetscMalloc1(R->nnz, &pl->perm));
      PetscCall(GKHostTranspose(R, &pl->T, pl->perm));
      PetscCall(GKHostSpGEMMPair(&pl->T, &pl->AP, &pl->C));
    }
  } else {
    PetscCheck(pl->ptap == (R ? PETSC_TRUE : PETSC_FALSE), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product's plan used for another kind of product");
    PetscCall(GKHostSpGEMMPairNumeric(A, P, &pl->AP));
    if (R) {
      for (PetscInt k = 0; k < R->nnz; k++) pl->T.a[k] = R->a[pl->perm[k]];
      PetscCall(GKHostSpGEMMPairNumeric(&pl->T, &pl->AP, &pl->C));
    }
  }
  S      = R ? &pl->C : &pl->AP;
  C->m   = S->m;
  C->n   = S->n;
  C->nnz = S->nnz;
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)(C->m + 1), (void **)&C->i));
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)C->nnz, (void **)&C->j));
  PetscCall(GKBackendHost.malloc(sizeof(PetscScalar) * (size_t)C->nnz, (void **)&C->a));
  PetscCall(PetscArraycpy(C->i, S->i, C->m + 1));
  PetscCall(PetscArraycpy(C->j, S->j, C->nnz));
  PetscCall(PetscArraycpy(C->a, S->a, C->nnz));
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostSpGEMMPlanFree(void **plan)
{
  GKHostPlan *pl = (GKHostPlan *)*plan;

  PetscFunctionBegin;
  if (!pl) PetscFunctionReturn(0);
  PetscCall(GKHostCsrFree(&pl->AP));
  PetscCall(GKHostCsrFree(&pl->T));
  PetscCall(GKHostCsrFree(&pl->C));
  PetscCall(PetscFree(pl->perm));
  PetscCall(PetscFree(pl));
  *plan = NULL;
  PetscFunctionReturn(0);
}
