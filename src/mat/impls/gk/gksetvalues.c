/*
   The program's own assembly into a sequential device matrix: MatSetValuesLocal(), which
   MatSetValuesStencil() calls for each row a DMDA program sets (ksp ex45, ex50, snes ex5 ...).

   PETSc's own path maps the row and the columns through the local-to-global mapping, calls
   MatSetValues() again and SEQAIJ's search of the row. On one process a DMDA's local numbering
   is the global one, and a row set after the first assembly usually names the columns its
   pattern holds. So, for a row at a time: a mapping found to be the identity (once per mapping)
   is skipped, and the values go straight to the places the row's columns hold, found by one
   merge of the two ascending lists (the given columns sorted first where they are not).
   Anything else (several rows at once, columns the row lacks or repeated, negative or
   out-of-range indices) takes PETSc's own path, with its errors and its insertion of new
   nonzeros.

   The row's columns are read from SEQAIJ's CSR, which is compressed (each row exactly its
   entries) from a final assembly until the pattern changes: a new nonzero, which only SEQAIJ's
   setvalues inserts (so the matrix's setvalues is a wrapper that notes each call), or a new
   preallocation (a new nonzero state, or no assembly any more). SEQAIJ's other insertions
   (MatZeroRows()'s diagonal) end in the matrix's assembly, which notes the pattern again.
*/
#include "gkmat.h"

/* A mapping is the identity where it has the matrix's own size (one process: local = global)
   and maps each index to itself; the answer is kept by the mapping's id (k: 0 rows, 1 columns).
   A matrix with no mapping takes PETSc's path: an MPI matrix's blocks have none, and MPIAIJ
   inserts into their rows without their setvalues */
static PetscErrorCode MatSeqGKLocalIsGlobal_Private(Mat A, PetscInt k, ISLocalToGlobalMapping map, PetscBool *identity)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)A->spptr;
  PetscObjectId   id;
  PetscInt        n;
  const PetscInt *idx;

  PetscFunctionBegin;
  *identity = PETSC_FALSE;
  if (!map) PetscFunctionReturn(0); /* none: an MPI matrix's block, whose rows MPIAIJ writes itself */
  id = ((PetscObject)map)->id;
  if (id == gk->ltogid[k]) {
    *identity = gk->ltogidentity[k];
    PetscFunctionReturn(0);
  }
  PetscCall(ISLocalToGlobalMappingGetSize(map, &n));
  *identity = (PetscBool)(n == (k ? A->cmap->n : A->rmap->n));
  if (*identity) {
    PetscCall(ISLocalToGlobalMappingGetIndices(map, &idx));
    for (PetscInt i = 0; i < n && *identity; i++) *identity = (PetscBool)(idx[i] == i);
    PetscCall(ISLocalToGlobalMappingRestoreIndices(map, &idx));
  }
  gk->ltogid[k]       = id;
  gk->ltogidentity[k] = *identity;
  PetscCall(PetscInfo(A, "Its local %s numbering is %sthe global one\n", k ? "column" : "row", *identity ? "" : "not "));
  PetscFunctionReturn(0);
}

/* the most columns a row given out of order is sorted for (a copy on the stack) */
#define GK_SETROW_SORT 64

/* Where the row's pattern aj[p0..e) holds each of the ascending columns c[0..n) once (a column
   repeated is not found again past its place), the values v written there (*ok); else nothing
   written */
static inline void GKRowMerge(const PetscInt *aj, PetscInt p0, PetscInt e, PetscInt n, const PetscInt c[], const PetscScalar v[], PetscScalar *aa,
                              InsertMode addv, PetscBool *ok)
{
  PetscInt k, p;

  *ok = PETSC_FALSE;
  for (k = 0, p = p0; k < n; k++, p++) {
    while (p < e && aj[p] < c[k]) p++;
    if (p == e || aj[p] != c[k]) return;
  }
  for (k = 0, p = p0; k < n; k++, p++) {
    while (aj[p] < c[k]) p++;
    if (addv == INSERT_VALUES) aa[p] = v[k];
    else aa[p] += v[k];
  }
  *ok = PETSC_TRUE;
}

/* Row r's values v at the columns c[0..n), where its pattern holds each of them once (in any
   order: a boundary row of ksp ex50 names its diagonal last); *done false (nothing written)
   otherwise */
static PetscErrorCode MatSeqGKSetRow_Private(Mat A, PetscInt r, PetscInt n, const PetscInt c[], const PetscScalar v[], InsertMode addv,
                                             PetscBool *done)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscInt        p, e, k, cs[GK_SETROW_SORT];
  PetscScalar     vs[GK_SETROW_SORT];

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (r < 0) { /* PETSc's path skips the row */
    *done = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (r >= A->rmap->n || (addv != INSERT_VALUES && addv != ADD_VALUES)) PetscFunctionReturn(0);
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, NULL));
  if (!aa) PetscFunctionReturn(0);
  p = ai[r];
  e = ai[r + 1];
  if (e - p == n) { /* the row's own columns, the usual case */
    for (k = 0; k < n; k++)
      if (aj[p + k] != c[k]) break;
    if (k == n) {
      if (addv == INSERT_VALUES)
        for (k = 0; k < n; k++) aa[p + k] = v[k];
      else
        for (k = 0; k < n; k++) aa[p + k] += v[k];
      *done = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
  }
  for (k = 1; k < n; k++)
    if (c[k] <= c[k - 1]) break;
  if (k == n) GKRowMerge(aj, p, e, n, c, v, aa, addv, done);
  else if (n > 0 && n <= GK_SETROW_SORT) {
    /* out of order: a sorted copy merged */
    PetscCall(PetscArraycpy(cs, c, n));
    PetscCall(PetscArraycpy(vs, v, n));
    PetscCall(PetscSortIntWithScalarArray(n, cs, vs));
    GKRowMerge(aj, p, e, n, cs, vs, aa, addv, done);
  }
  PetscFunctionReturn(0);
}

/* SEQAIJ's setvalues, noted: a new nonzero may leave the rows uncompressed */
PetscErrorCode MatSetValues_SeqGK(Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode addv)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  gk->rowsready = PETSC_FALSE;
  PetscCall(gk->base.setvalues(A, m, im, n, in, v, addv));
  PetscFunctionReturn(0);
}

/* SEQAIJ's setoption, which MAT_SORTED_FULL makes choose its setvalues (DMDA's matrices have
   it on while their pattern is filled): the choice becomes the one the wrapper calls */
PetscErrorCode MatSetOption_SeqGK(Mat A, MatOption op, PetscBool flg)
{
  Mat_SeqGK *gk                                                                                                       = (Mat_SeqGK *)A->spptr;
  PetscErrorCode (*set)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode) = A->ops->setvalues;

  PetscFunctionBegin;
  PetscCall(gk->base.setoption(A, op, flg));
  if (A->ops->setvalues != set) {
    gk->base.setvalues = A->ops->setvalues;
    A->ops->setvalues  = set;
  }
  PetscFunctionReturn(0);
}

/* After an assembly: a final one leaves the rows compressed (mode: the assembly's) */
PetscErrorCode MatSeqGKRowsAssembled_Private(Mat A, MatAssemblyType mode)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  gk->rowsready   = (PetscBool)(mode == MAT_FINAL_ASSEMBLY && !gk->rowstarts);
  gk->rowsnzstate = A->nonzerostate;
  PetscFunctionReturn(0);
}

PetscErrorCode MatSetValuesLocal_SeqGK(Mat A, PetscInt nrow, const PetscInt irow[], PetscInt ncol, const PetscInt icol[], const PetscScalar y[],
                                       InsertMode addv)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)A->spptr;
  PetscInt        buf[256], *bufr = NULL, *bufc = NULL;
  const PetscInt *irowm = irow, *icolm = icol;
  PetscBool       rowid, colid, done = PETSC_FALSE;

  PetscFunctionBegin;
  if (nrow == 1 && gk->rowsready && gk->rowsnzstate == A->nonzerostate && (A->assembled || A->was_assembled) &&
      A->ops->setvalues == MatSetValues_SeqGK) {
    PetscCall(MatSeqGKLocalIsGlobal_Private(A, 0, A->rmap->mapping, &rowid));
    PetscCall(MatSeqGKLocalIsGlobal_Private(A, 1, A->cmap->mapping, &colid));
    if (rowid && colid) PetscCall(MatSeqGKSetRow_Private(A, irow[0], ncol, icol, y, addv, &done));
  }
  if (done) PetscFunctionReturn(0);
  /* PETSc's own path */
  if (nrow + ncol <= (PetscInt)PETSC_STATIC_ARRAY_LENGTH(buf)) {
    bufr = buf;
    bufc = buf + nrow;
  } else PetscCall(PetscMalloc2(nrow, &bufr, ncol, &bufc));
  if (A->rmap->mapping) {
    PetscCall(ISLocalToGlobalMappingApply(A->rmap->mapping, nrow, irow, bufr));
    irowm = bufr;
  }
  if (A->cmap->mapping) {
    if (A->cmap->mapping != A->rmap->mapping || ncol != nrow || icol != irow) {
      PetscCall(ISLocalToGlobalMappingApply(A->cmap->mapping, ncol, icol, bufc));
      icolm = bufc;
    } else icolm = irowm;
  }
  PetscCall(MatSetValues(A, nrow, irowm, ncol, icolm, y, addv));
  if (bufr != buf) PetscCall(PetscFree2(bufr, bufc));
  PetscFunctionReturn(0);
}
