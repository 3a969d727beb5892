/*
   MatMatMult() and MatPtAP() of the sequential device types on the device: the operands' CSR
   arrays copied up, C = A P or C = P^T A P computed by the backend (cuSPARSE's SpGEMM), C's
   arrays copied down into the result, a device matrix whose host CSR is the master copy like
   any other's. PETSc's SEQAIJ code does the same on one host core: on one process that is most
   of PCGAMG's setup (the coarse operators) and of PCMG's Galerkin operators.

   Taken for AB and PtAP of two sequential device matrices on a backend that has the product
   (the CUDA backend, 32-bit indices, double scalars), unless -mat_product_algorithm_backend_cpu
   (PETSc's option for its own GPU types) asks for the host; else, or where the backend cannot
   (cuSPARSE not found, an empty operand), PETSc's own product runs as before. The symbolic
   step computes the values too, so the numeric step that follows it copies nothing; a later
   numeric step (MAT_REUSE_MATRIX) computes the product again and takes its values, the pattern
   being the same.
*/
#include "gkmat.h"

/* Whether C's product runs on the device (the operands' types and the product's; the backend
   is set up here, as the product's first need of it) */
PetscErrorCode MatProductGKDeviceEligible_Private(Mat C, PetscBool *ok)
{
  Mat_Product *p = C->product;
  PetscBool    seqa, seqb, cpu = PETSC_FALSE;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  if (!p || (p->type != MATPRODUCT_AB && p->type != MATPRODUCT_PtAP)) PetscFunctionReturn(0);
  PetscCall(GKMatIsDevice_Private(p->A, &seqa, NULL));
  PetscCall(GKMatIsDevice_Private(p->B, &seqb, NULL));
  if (!seqa || !seqb || sizeof(PetscInt) != 4 || sizeof(PetscReal) != 8) PetscFunctionReturn(0);
  if (p->type == MATPRODUCT_PtAP && p->A->rmap->n != p->A->cmap->n) PetscFunctionReturn(0);
  PetscOptionsBegin(PetscObjectComm((PetscObject)C), ((PetscObject)C)->prefix, "Products of petsc-gpukit's sequential device matrices", "Mat");
  PetscCall(PetscOptionsBool("-mat_product_algorithm_backend_cpu", "MatMatMult() and MatPtAP() of sequential device matrices by PETSc's host code, not on the GPU", "MatProductSetFromOptions", cpu, &cpu, NULL));
  PetscOptionsEnd();
  if (cpu) PetscFunctionReturn(0);
  PetscCall(PetscGPUKitBackendSetUp_Private());
  *ok = GKDev->spgemm ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* M's host CSR copied to the device (M's host values brought up to date first) */
static PetscErrorCode MatSeqGKCsrToDevice_Private(Mat M, GKCsr *d)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  PetscInt           m;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatGKHostSyncIf_Private(M));
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of a device matrix");
  PetscCall(MatSeqAIJGetArrayRead(M, &a));
  d->m   = m;
  d->n   = M->cmap->n;
  d->nnz = ia[m];
  PetscCall(GKMallocH2D(m + 1, ia, &d->i));
  PetscCall(GKMallocH2D(d->nnz, ja, &d->j));
  PetscCall(GKMallocH2D(d->nnz, a, &d->a));
  PetscCall(MatSeqAIJRestoreArrayRead(M, &a));
  PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCsrFree_Private(GKCsr *d)
{
  PetscFunctionBegin;
  PetscCall(GKFree(d->i));
  PetscCall(GKFree(d->j));
  PetscCall(GKFree(d->a));
  PetscFunctionReturn(0);
}

/* C's product computed on the device: with symbolic, C made (sizes, A's device type, the
   pattern and the values); else C's values, its pattern checked to be the product's. *done
   false where the backend could not (nothing changed then). */
PetscErrorCode MatProductGKDevice_Private(Mat C, PetscBool symbolic, PetscBool *done)
{
  Mat_Product *p = C->product;
  Mat          A = p->A, P = p->B;
  PetscBool    ptap = (PetscBool)(p->type == MATPRODUCT_PtAP);
  GKCsr        dA = {0, 0, 0, NULL, NULL, NULL}, dP = dA, dC = dA;
  PetscInt    *ci, *cj, *len;
  PetscScalar *ca, *v;
  char         why[256] = "";

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (!A->rmap->n || !A->cmap->n || !P->rmap->n || !P->cmap->n) PetscFunctionReturn(0);
  PetscCall(MatSeqGKCsrToDevice_Private(A, &dA));
  PetscCall(MatSeqGKCsrToDevice_Private(P, &dP));
  if (dA.nnz && dP.nnz) PetscCall(GKDev->spgemm(&dA, &dP, ptap, &dC, done, why, sizeof(why)));
  PetscCall(GKCsrFree_Private(&dA));
  PetscCall(GKCsrFree_Private(&dP));
  if (!*done) {
    PetscCall(PetscInfo(C, "%s of %s matrices by PETSc's host code%s%s\n", ptap ? "MatPtAP" : "MatMatMult", ((PetscObject)A)->type_name, why[0] ? ": " : " (an operand with no entries)", why));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc3(dC.m + 1, &ci, dC.nnz, &cj, dC.nnz, &ca));
  PetscCall(GKMemcpyD2H(ci, dC.i, sizeof(PetscInt) * (size_t)(dC.m + 1)));
  PetscCall(GKMemcpyD2H(cj, dC.j, sizeof(PetscInt) * (size_t)dC.nnz));
  PetscCall(GKMemcpyD2H(ca, dC.a, sizeof(PetscScalar) * (size_t)dC.nnz));
  PetscCall(GKCsrFree_Private(&dC));
  /* each row's columns ascending, as AIJ keeps them */
  for (PetscInt r = 0; r < dC.m; r++) {
    for (PetscInt k = ci[r] + 1; k < ci[r + 1]; k++) {
      if (cj[k - 1] > cj[k]) {
        PetscCall(PetscSortIntWithScalarArray(ci[r + 1] - ci[r], cj + ci[r], ca + ci[r]));
        break;
      }
    }
  }
  if (symbolic) {
    PetscCall(PetscInfo(C, "%s of %s matrices on the device (cuSPARSE): %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros\n", ptap ? "MatPtAP" : "MatMatMult", ((PetscObject)A)->type_name, dC.m, dC.nnz));
    PetscCall(MatSetSizes(C, dC.m, dC.n, dC.m, dC.n));
    if (ptap) PetscCall(MatSetBlockSizes(C, PetscAbs(P->cmap->bs), PetscAbs(P->cmap->bs)));
    else PetscCall(MatSetBlockSizesFromMats(C, A, P));
    PetscCall(MatSetType(C, ((PetscObject)A)->type_name)); /* DIA's product is made ELLPACK-R */
    PetscCall(PetscMalloc1(dC.m, &len));
    for (PetscInt r = 0; r < dC.m; r++) len[r] = ci[r + 1] - ci[r];
    PetscCall(MatSeqAIJSetPreallocation(C, 0, len));
    PetscCall(PetscFree(len));
    PetscCall(MatSeqAIJSetColumnIndices(C, cj));
  } else {
    const PetscInt *ia, *ja;
    PetscInt        m;
    PetscBool       same, ok;

    PetscCall(MatGetRowIJ(C, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &ok));
    same = (PetscBool)(ok && m == dC.m && ia[m] == dC.nnz);
    if (same) PetscCall(PetscArraycmp(ia, ci, m + 1, &same));
    if (same) PetscCall(PetscArraycmp(ja, cj, dC.nnz, &same));
    PetscCall(MatRestoreRowIJ(C, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &ok));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The operands' nonzero patterns changed since the product was made: make it again with MAT_INITIAL_MATRIX");
  }
  PetscCall(MatSeqAIJGetArrayWrite(C, &v));
  PetscCall(PetscArraycpy(v, ca, dC.nnz));
  PetscCall(MatSeqAIJRestoreArrayWrite(C, &v));
  PetscCall(PetscFree3(ci, cj, ca));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}
