/*
   Sparse matrix-matrix products on the device: C = A P, or the Galerkin product C = R^T (A P)
   (R = P, or on several processes the local rows of P), of CSR matrices in device memory, by
   cuSPARSE's SpGEMM (R^T by its CSR-to-CSC transposition). They serve the device types'
   MatMatMult() and MatPtAP(): PCGAMG's smoothed prolongators and coarse operators, and PCMG's
   Galerkin operators, which PETSc's AIJ code computes on the host cores.

   cuSPARSE is loaded when the first product asks for it (dlopen), not linked: the library keeps
   loading, with its static CUDA runtime, on machines without it and without a GPU, and no
   program pays for loading it unless it multiplies two device matrices. Device pointers and the
   stream are the driver's, shared by both runtimes.
*/
#include "cudaimpl.h"
#include <cusparse.h>
#include <dlfcn.h>

#define GK_CUSPARSE_FUNCTIONS(X) \
  X(cusparseCreate) \
  X(cusparseDestroy) \
  X(cusparseSetStream) \
  X(cusparseGetErrorString) \
  X(cusparseCreateCsr) \
  X(cusparseDestroySpMat) \
  X(cusparseSpMatGetSize) \
  X(cusparseCsrSetPointers) \
  X(cusparseSpGEMM_createDescr) \
  X(cusparseSpGEMM_destroyDescr) \
  X(cusparseSpGEMM_workEstimation) \
  X(cusparseSpGEMM_compute) \
  X(cusparseSpGEMM_copy) \
  X(cusparseCsr2cscEx2_bufferSize) \
  X(cusparseCsr2cscEx2)

static struct {
#define GK_CUSPARSE_POINTER(f) decltype(&::f) p_##f;
  GK_CUSPARSE_FUNCTIONS(GK_CUSPARSE_POINTER)
#undef GK_CUSPARSE_POINTER
} gk_sp;
#define GK_SP(f) gk_sp.p_##f
static void            *gk_sp_lib      = NULL;
static int              gk_sp_tried    = 0;
static char             gk_sp_why[256] = "";
static cusparseHandle_t gk_sp_handle   = NULL;

#define GKCallCUSPARSE(...) \
  do { \
    cusparseStatus_t _gk_st = (__VA_ARGS__); \
    PetscCheck(_gk_st == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_GPU, "cuSPARSE error %d (%s)", (int)_gk_st, GK_SP(cusparseGetErrorString)(_gk_st)); \
  } while (0)

/* cuSPARSE's functions, looked up once, and a handle on the library's stream (made again after
   GKCUDASpGEMMFinalize()); *ok false with the reason where cuSPARSE cannot be loaded */
static PetscErrorCode GKCUSPARSELoad(PetscBool *ok)
{
  const char *names[] = {"libcusparse.so.12", "libcusparse.so"};

  PetscFunctionBegin;
  if (!gk_sp_tried) {
    PetscLogDouble t0, t1;

    PetscCall(PetscTime(&t0));
    gk_sp_tried = 1;
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]) && !gk_sp_lib; k++) gk_sp_lib = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
    if (!gk_sp_lib) PetscCall(PetscSNPrintf(gk_sp_why, sizeof(gk_sp_why), "cuSPARSE could not be loaded (%s)", dlerror()));
#define GK_CUSPARSE_LOAD(f) \
  if (gk_sp_lib && !(gk_sp.p_##f = (decltype(gk_sp.p_##f))dlsym(gk_sp_lib, #f))) { \
    PetscCall(PetscSNPrintf(gk_sp_why, sizeof(gk_sp_why), "cuSPARSE has no %s", #f)); \
    dlclose(gk_sp_lib); \
    gk_sp_lib = NULL; \
  }
    GK_CUSPARSE_FUNCTIONS(GK_CUSPARSE_LOAD)
#undef GK_CUSPARSE_LOAD
    PetscCall(PetscTime(&t1));
    if (gk_sp_lib) PetscCall(PetscInfo(NULL, "cuSPARSE loaded in %g s\n", (double)(t1 - t0)));
  }
  if (gk_sp_lib && !gk_sp_handle) {
    PetscLogDouble t0, t1;

    PetscCall(PetscTime(&t0));
    GKCallCUSPARSE(GK_SP(cusparseCreate)(&gk_sp_handle));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscInfo(NULL, "cuSPARSE's handle made in %g s\n", (double)(t1 - t0)));
  }
  *ok = gk_sp_handle ? PETSC_TRUE : PETSC_FALSE;
  if (*ok) GKCallCUSPARSE(GK_SP(cusparseSetStream)(gk_sp_handle, GKCUDAStream));
  PetscFunctionReturn(0);
}

/* the handle freed; the library stays loaded for a later product */
PetscErrorCode GKCUDASpGEMMFinalize(void)
{
  PetscFunctionBegin;
  if (gk_sp_handle) GKCallCUSPARSE(GK_SP(cusparseDestroy)(gk_sp_handle));
  gk_sp_handle = NULL;
  PetscFunctionReturn(0);
}

#if defined(PETSC_USE_COMPLEX)
  #define GK_CUDA_SCALAR CUDA_C_64F
#else
  #define GK_CUDA_SCALAR CUDA_R_64F
#endif

static PetscErrorCode GKCSRDescr(const GKCsr *M, cusparseSpMatDescr_t *d)
{
  PetscFunctionBegin;
  GKCallCUSPARSE(GK_SP(cusparseCreateCsr)(d, M->m, M->n, M->nnz, (void *)M->i, (void *)M->j, (void *)M->a, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, GK_CUDA_SCALAR));
  PetscFunctionReturn(0);
}

/* C = A B (cuSPARSE's SpGEMM: the work estimate, the product, the copy into C's arrays, which
   this allocates) */
static PetscErrorCode GKCUDASpGEMMPair(const GKCsr *A, const GKCsr *B, GKCsr *C)
{
  const PetscScalar         one = 1.0, zero = 0.0;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseSpMatDescr_t      dA, dB, dC;
  cusparseSpGEMMDescr_t     g;
  size_t                    s1 = 0, s2 = 0;
  void                     *b1 = NULL, *b2 = NULL;
  int64_t                   rows, cols, nnz;

  PetscFunctionBegin;
  PetscCall(GKCSRDescr(A, &dA));
  PetscCall(GKCSRDescr(B, &dB));
  GKCallCUSPARSE(GK_SP(cusparseCreateCsr)(&dC, A->m, B->n, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, GK_CUDA_SCALAR));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMM_createDescr)(&g));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMM_workEstimation)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g, &s1, NULL));
  PetscCall(GKBackendCUDA.malloc(s1, &b1));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMM_workEstimation)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g, &s1, b1));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMM_compute)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g, &s2, NULL));
  PetscCall(GKBackendCUDA.malloc(s2, &b2));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMM_compute)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g, &s2, b2));
  GKCallCUSPARSE(GK_SP(cusparseSpMatGetSize)(dC, &rows, &cols, &nnz));
  C->m   = A->m;
  C->n   = B->n;
  C->nnz = (PetscInt)nnz;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(C->m + 1), (void **)&C->i));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)nnz, (void **)&C->j));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscScalar) * (size_t)nnz, (void **)&C->a));
  GKCallCUSPARSE(GK_SP(cusparseCsrSetPointers)(dC, C->i, C->j, C->a));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMM_copy)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMM_destroyDescr)(g));
  GKCallCUSPARSE(GK_SP(cusparseDestroySpMat)(dA));
  GKCallCUSPARSE(GK_SP(cusparseDestroySpMat)(dB));
  GKCallCUSPARSE(GK_SP(cusparseDestroySpMat)(dC));
  PetscCall(GKBackendCUDA.free(b1));
  PetscCall(GKBackendCUDA.free(b2));
  PetscFunctionReturn(0);
}

/* T = R^T (R's CSR read as CSC), arrays allocated here */
static PetscErrorCode GKCUDATranspose(const GKCsr *P, GKCsr *T)
{
  size_t s   = 0;
  void  *buf = NULL;

  PetscFunctionBegin;
  T->m   = P->n;
  T->n   = P->m;
  T->nnz = P->nnz;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(T->m + 1), (void **)&T->i));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)T->nnz, (void **)&T->j));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscScalar) * (size_t)T->nnz, (void **)&T->a));
  GKCallCUSPARSE(GK_SP(cusparseCsr2cscEx2_bufferSize)(gk_sp_handle, (int)P->m, (int)P->n, (int)P->nnz, P->a, (const int *)P->i, (const int *)P->j, T->a, (int *)T->i, (int *)T->j, GK_CUDA_SCALAR, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &s));
  PetscCall(GKBackendCUDA.malloc(s, &buf));
  GKCallCUSPARSE(GK_SP(cusparseCsr2cscEx2)(gk_sp_handle, (int)P->m, (int)P->n, (int)P->nnz, P->a, (const int *)P->i, (const int *)P->j, T->a, (int *)T->i, (int *)T->j, GK_CUDA_SCALAR, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buf));
  PetscCall(GKBackendCUDA.free(buf));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDACsrFree(GKCsr *M)
{
  PetscFunctionBegin;
  PetscCall(GKBackendCUDA.free(M->i));
  PetscCall(GKBackendCUDA.free(M->j));
  PetscCall(GKBackendCUDA.free(M->a));
  M->i = M->j = NULL;
  M->a        = NULL;
  PetscFunctionReturn(0);
}

/* T = R^T where cuSPARSE is there (*done false, nothing made, where it is not) */
PetscErrorCode GKCUDACsrTranspose(const GKCsr *R, GKCsr *T, PetscBool *done)
{
  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (sizeof(PetscInt) != sizeof(int)) PetscFunctionReturn(0);
  PetscCall(GKCUSPARSELoad(done));
  if (*done) PetscCall(GKCUDATranspose(R, T));
  PetscFunctionReturn(0);
}

/* C = A P, or C = R^T (A P) where R is given; every array in device memory, C's allocated here
   (freed by the caller with the backend's free). *done false, with the reason in why, where
   cuSPARSE is not there; then nothing is computed. */
PetscErrorCode GKCUDASpGEMM(const GKCsr *A, const GKCsr *P, const GKCsr *R, GKCsr *C, PetscBool *done, char *why, size_t len)
{
  GKCsr AP = {0, 0, 0, NULL, NULL, NULL}, T = AP;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (sizeof(PetscInt) != sizeof(int)) { /* the descriptors here say 32-bit indices */
    PetscCall(PetscStrncpy(why, "64-bit indices", len));
    PetscFunctionReturn(0);
  }
  PetscCall(GKCUSPARSELoad(done));
  if (!*done) {
    PetscCall(PetscStrncpy(why, gk_sp_why, len));
    PetscFunctionReturn(0);
  }
  if (!R) {
    PetscCall(GKCUDASpGEMMPair(A, P, C));
    PetscFunctionReturn(0);
  }
  PetscCall(GKCUDASpGEMMPair(A, P, &AP));
  PetscCall(GKCUDATranspose(R, &T));
  PetscCall(GKCUDASpGEMMPair(&T, &AP, C));
  PetscCall(GKCUDACsrFree(&AP));
  PetscCall(GKCUDACsrFree(&T));
  PetscFunctionReturn(0);
}
