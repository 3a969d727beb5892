/*
   Sparse matrix-matrix products on the device: C = A P, or the Galerkin product C = R^T (A P)
   (R = P, or on several processes the local rows of P), of CSR matrices in device memory, by
   cuSPARSE's SpGEMM (R^T by its CSR-to-CSC transposition). They serve the device types'
   MatMatMult() and MatPtAP(): PCGAMG's smoothed prolongators and coarse operators, and PCMG's
   Galerkin operators, which PETSc's AIJ code computes on the host cores.

   A product computed again for operands of the same patterns (a re-setup's Galerkin products)
   keeps a plan from its first numeric step on: cuSPARSE's SpGEMMreuse analyses the patterns
   once, and a numeric step then computes the values alone into the plan's result; R^T keeps its
   pattern and the position of each of its entries in R, so that new values of R are gathered,
   not transposed again.

   cuSPARSE is loaded when the first product asks for it (dlopen), not linked: the library keeps
   loading, with its static CUDA runtime, on machines without it and without a GPU, and no
   program pays for loading it unless it multiplies two device matrices. Device pointers and the
   stream are the driver's, shared by both runtimes.
*/
#include "cudaimpl.h"
#include <cusparse.h>
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

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
  X(cusparseSpGEMMreuse_workEstimation) \
  X(cusparseSpGEMMreuse_nnz) \
  X(cusparseSpGEMMreuse_copy) \
  X(cusparseSpGEMMreuse_compute) \
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
    PetscCheck(_gk_st == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_GPU, "cuSPARSE error %d (%s)", (int)_gk_st, \
               GK_SP(cusparseGetErrorString)(_gk_st)); \
  } while (0)

/* cuSPARSE opened and its functions looked up, once; no PETSc call (it may run on the preload's
   thread): gk_sp_lib, or the reason in gk_sp_why */
static void GKCUSPARSEOpen(void)
{
  const char *names[] = {"libcusparse.so.12", "libcusparse.so"};

  if (gk_sp_tried) return;
  gk_sp_tried = 1;
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]) && !gk_sp_lib; k++) gk_sp_lib = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
  if (!gk_sp_lib) snprintf(gk_sp_why, sizeof(gk_sp_why), "cuSPARSE could not be loaded (%s)", dlerror());
#define GK_CUSPARSE_LOAD(f) \
  if (gk_sp_lib && !(gk_sp.p_##f = (decltype(gk_sp.p_##f))dlsym(gk_sp_lib, #f))) { \
    snprintf(gk_sp_why, sizeof(gk_sp_why), "cuSPARSE has no %s", #f); \
    dlclose(gk_sp_lib); \
    gk_sp_lib = NULL; \
  }
  GK_CUSPARSE_FUNCTIONS(GK_CUSPARSE_LOAD)
#undef GK_CUSPARSE_LOAD
}

/* The preload (earlystart's preload): where the early start made the context, a thread of its
   own opens cuSPARSE, makes the handle and runs one product of two 2 x 2 matrices, its transpose
   and a reusable product, on a stream of its own, so that the library's file is read and mapped
   and the kernels a setup's products launch are loaded by then (CUDA loads a kernel at its first
   launch) while the program's host work goes on; the first product waits for the thread
   instead of doing all of that itself. No PETSc call; a failure leaves the handle or the
   library to be made again, with its error, by the first product. */
static struct {
  pthread_t thread;
  int       started;
  double    load, handle, warm; /* seconds */
} gk_sp_pre;

static double GKCUSPARSENow(void)
{
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void GKCUSPARSEWarm(cudaStream_t st)
{
  const cusparseOperation_t op  = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const double              one = 1.0, zero = 0.0;
  const int                 hi[3] = {0, 1, 3}, hj[3] = {0, 0, 1};
  const double              ha[3] = {2.0, -1.0, 2.0};
  cusparseSpMatDescr_t      dA = NULL, dC = NULL, dR = NULL;
  cusparseSpGEMMDescr_t     g = NULL, gr = NULL;
  size_t                    s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
  char                     *m    = NULL;
  void                     *b[5] = {NULL, NULL, NULL, NULL, NULL};
  int64_t                   rows, cols, nnz = 0;
  int                      *ci, *cj, *ti, *tj, *ri;
  double                   *ca, *ta;

  /* one allocation holds A (i, j, a), C = A A (i, j, a: at most 4 entries), A^T and R = A A's
     reusable product's row starts */
  if (cudaMalloc((void **)&m, 1024) != cudaSuccess) goto done;
  ci = (int *)(m + 64);
  cj = (int *)(m + 128);
  ca = (double *)(m + 192);
  ti = (int *)(m + 256);
  tj = (int *)(m + 320);
  ta = (double *)(m + 384);
  ri = (int *)(m + 448);
  if (cudaMemcpyAsync(m, hi, sizeof(hi), cudaMemcpyHostToDevice, st) != cudaSuccess ||
      cudaMemcpyAsync(m + 16, hj, sizeof(hj), cudaMemcpyHostToDevice, st) != cudaSuccess ||
      cudaMemcpyAsync(m + 32, ha, sizeof(ha), cudaMemcpyHostToDevice, st) != cudaSuccess)
    goto done;
#define GK_WARM(call) \
  if ((call) != CUSPARSE_STATUS_SUCCESS) goto done
#define GK_WARM_BUF(k, size) \
  if ((size) && cudaMalloc(&b[k], (size)) != cudaSuccess) goto done
  if (PetscDefined(USE_COMPLEX)) goto done; /* the descriptors below say real scalars: the handle and the library are loaded all the same */
  GK_WARM(GK_SP(cusparseCreateCsr)(&dA, 2, 2, 3, m, m + 16, m + 32, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  GK_WARM(GK_SP(cusparseCreateCsr)(&dC, 2, 2, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  GK_WARM(GK_SP(cusparseSpGEMM_createDescr)(&g));
  GK_WARM(GK_SP(cusparseSpGEMM_workEstimation)(gk_sp_handle, op, op, &one, dA, dA, &zero, dC, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g, &s1, NULL));
  GK_WARM_BUF(0, s1);
  GK_WARM(GK_SP(cusparseSpGEMM_workEstimation)(gk_sp_handle, op, op, &one, dA, dA, &zero, dC, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g, &s1, b[0]));
  GK_WARM(GK_SP(cusparseSpGEMM_compute)(gk_sp_handle, op, op, &one, dA, dA, &zero, dC, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g, &s2, NULL));
  GK_WARM_BUF(1, s2);
  GK_WARM(GK_SP(cusparseSpGEMM_compute)(gk_sp_handle, op, op, &one, dA, dA, &zero, dC, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g, &s2, b[1]));
  GK_WARM(GK_SP(cusparseSpMatGetSize)(dC, &rows, &cols, &nnz));
  if (nnz > 4) goto done;
  GK_WARM(GK_SP(cusparseCsrSetPointers)(dC, ci, cj, ca));
  GK_WARM(GK_SP(cusparseSpGEMM_copy)(gk_sp_handle, op, op, &one, dA, dA, &zero, dC, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g));
  GK_WARM(GK_SP(cusparseCsr2cscEx2_bufferSize)(gk_sp_handle, 2, 2, 3, m + 32, (const int *)m, (const int *)(m + 16), ta, ti, tj, CUDA_R_64F,
                                               CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &s3));
  GK_WARM_BUF(2, s3);
  GK_WARM(GK_SP(cusparseCsr2cscEx2)(gk_sp_handle, 2, 2, 3, m + 32, (const int *)m, (const int *)(m + 16), ta, ti, tj, CUDA_R_64F,
                                    CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, b[2]));
  /* the reusable product's analysis and numeric step, its pattern's arrays in the buffers */
  GK_WARM(GK_SP(cusparseCreateCsr)(&dR, 2, 2, 0, ri, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  GK_WARM(GK_SP(cusparseSpGEMM_createDescr)(&gr));
  s1 = 0;
  GK_WARM(GK_SP(cusparseSpGEMMreuse_workEstimation)(gk_sp_handle, op, op, dA, dA, dR, CUSPARSE_SPGEMM_DEFAULT, gr, &s1, NULL));
  if (b[0]) (void)cudaFree(b[0]);
  b[0] = NULL;
  GK_WARM_BUF(0, s1);
  GK_WARM(GK_SP(cusparseSpGEMMreuse_workEstimation)(gk_sp_handle, op, op, dA, dA, dR, CUSPARSE_SPGEMM_DEFAULT, gr, &s1, b[0]));
  GK_WARM(GK_SP(cusparseSpGEMMreuse_nnz)(gk_sp_handle, op, op, dA, dA, dR, CUSPARSE_SPGEMM_DEFAULT, gr, &s2, NULL, &s4, NULL, &s5, NULL));
  if (b[1]) (void)cudaFree(b[1]);
  b[1] = NULL;
  GK_WARM_BUF(1, s2);
  GK_WARM_BUF(3, s4);
  GK_WARM_BUF(4, s5);
  GK_WARM(GK_SP(cusparseSpGEMMreuse_nnz)(gk_sp_handle, op, op, dA, dA, dR, CUSPARSE_SPGEMM_DEFAULT, gr, &s2, b[1], &s4, b[3], &s5, b[4]));
  GK_WARM(GK_SP(cusparseSpMatGetSize)(dR, &rows, &cols, &nnz));
  if (nnz > 4) goto done;
  GK_WARM(GK_SP(cusparseCsrSetPointers)(dR, ri, cj, ca)); /* C's arrays again: the values are not looked at */
  s1 = 0;
  GK_WARM(GK_SP(cusparseSpGEMMreuse_copy)(gk_sp_handle, op, op, dA, dA, dR, CUSPARSE_SPGEMM_DEFAULT, gr, &s1, NULL));
  if (b[2]) (void)cudaFree(b[2]);
  b[2] = NULL;
  GK_WARM_BUF(2, s1);
  GK_WARM(GK_SP(cusparseSpGEMMreuse_copy)(gk_sp_handle, op, op, dA, dA, dR, CUSPARSE_SPGEMM_DEFAULT, gr, &s1, b[2]));
  GK_WARM(GK_SP(cusparseSpGEMMreuse_compute)(gk_sp_handle, op, op, &one, dA, dA, &zero, dR, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, gr));
#undef GK_WARM
#undef GK_WARM_BUF
done:
  if (gr) (void)GK_SP(cusparseSpGEMM_destroyDescr)(gr);
  if (g) (void)GK_SP(cusparseSpGEMM_destroyDescr)(g);
  if (dR) (void)GK_SP(cusparseDestroySpMat)(dR);
  if (dC) (void)GK_SP(cusparseDestroySpMat)(dC);
  if (dA) (void)GK_SP(cusparseDestroySpMat)(dA);
  (void)cudaStreamSynchronize(st);
  for (int k = 0; k < 5; k++)
    if (b[k]) (void)cudaFree(b[k]);
  if (m) (void)cudaFree(m);
  (void)cudaGetLastError();
}

static void *GKCUSPARSEPreload_Thread(void *arg)
{
  cudaStream_t st = NULL;
  double       t0 = GKCUSPARSENow(), t1, t2;

  (void)arg;
  GKCUSPARSEOpen();
  t1 = GKCUSPARSENow();
  if (gk_sp_lib && GK_SP(cusparseCreate)(&gk_sp_handle) != CUSPARSE_STATUS_SUCCESS) gk_sp_handle = NULL;
  t2 = GKCUSPARSENow();
  if (gk_sp_handle && cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess) {
    if (GK_SP(cusparseSetStream)(gk_sp_handle, st) == CUSPARSE_STATUS_SUCCESS) GKCUSPARSEWarm(st);
    (void)GK_SP(cusparseSetStream)(gk_sp_handle, GKCUDAStream); /* the library's stream for every later call */
    (void)cudaStreamDestroy(st);
  }
  (void)cudaGetLastError();
  gk_sp_pre.load   = t1 - t0;
  gk_sp_pre.handle = t2 - t1;
  gk_sp_pre.warm   = GKCUSPARSENow() - t2;
  return NULL;
}

/* Called by the early start's thread once the context is made; no PETSc call */
void GKCUDASpGEMMPreload(void)
{
  if (gk_sp_pre.started || gk_sp_tried) return;
  if (!pthread_create(&gk_sp_pre.thread, NULL, GKCUSPARSEPreload_Thread, NULL)) gk_sp_pre.started = 1;
}

/* Waits for the preload, where one was started */
static PetscErrorCode GKCUSPARSEPreloaded(void)
{
  PetscFunctionBegin;
  if (!gk_sp_pre.started) PetscFunctionReturn(0);
  gk_sp_pre.started = 0;
  PetscCheck(!pthread_join(gk_sp_pre.thread, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "Could not wait for the thread that loads cuSPARSE");
  if (gk_sp_lib)
    PetscCall(PetscInfo(NULL,
                        "cuSPARSE loaded ahead, on a thread of its own: the library in %g s, its handle %s in %g s, one small product in %g s\n",
                        gk_sp_pre.load, gk_sp_handle ? "made" : "NOT made", gk_sp_pre.handle, gk_sp_pre.warm));
  PetscFunctionReturn(0);
}

/* At PetscFinalize(), whether or not a product asked for cuSPARSE: the preload ended and the
   handle freed (made again by a later product) */
PetscErrorCode GKCUDASpGEMMSettle(void)
{
  PetscFunctionBegin;
  PetscCall(GKCUDASpGEMMFinalize());
  PetscFunctionReturn(0);
}

/* cuSPARSE's functions, looked up once, and a handle on the library's stream (made again after
   GKCUDASpGEMMFinalize()); *ok false with the reason where cuSPARSE cannot be loaded */
static PetscErrorCode GKCUSPARSELoad(PetscBool *ok)
{
  PetscFunctionBegin;
  PetscCall(GKCUSPARSEPreloaded());
  if (!gk_sp_tried) {
    PetscLogDouble t0, t1;

    PetscCall(PetscTime(&t0));
    GKCUSPARSEOpen();
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
  PetscCall(GKCUSPARSEPreloaded());
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
  GKCallCUSPARSE(GK_SP(cusparseCreateCsr)(d, M->m, M->n, M->nnz, (void *)M->i, (void *)M->j, (void *)M->a, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_BASE_ZERO, GK_CUDA_SCALAR));
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
  GKCallCUSPARSE(
    GK_SP(cusparseCreateCsr)(&dC, A->m, B->n, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, GK_CUDA_SCALAR));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMM_createDescr)(&g));
  GKCallCUSPARSE(
    GK_SP(cusparseSpGEMM_workEstimation)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g, &s1, NULL));
  PetscCall(GKBackendCUDA.malloc(s1, &b1));
  GKCallCUSPARSE(
    GK_SP(cusparseSpGEMM_workEstimation)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g, &s1, b1));
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
  GKCallCUSPARSE(GK_SP(cusparseCsr2cscEx2_bufferSize)(gk_sp_handle, (int)P->m, (int)P->n, (int)P->nnz, P->a, (const int *)P->i, (const int *)P->j,
                                                      T->a, (int *)T->i, (int *)T->j, GK_CUDA_SCALAR, CUSPARSE_ACTION_NUMERIC,
                                                      CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &s));
  PetscCall(GKBackendCUDA.malloc(s, &buf));
  GKCallCUSPARSE(GK_SP(cusparseCsr2cscEx2)(gk_sp_handle, (int)P->m, (int)P->n, (int)P->nnz, P->a, (const int *)P->i, (const int *)P->j, T->a,
                                           (int *)T->i, (int *)T->j, GK_CUDA_SCALAR, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                           CUSPARSE_CSR2CSC_ALG1, buf));
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

/* Whether the products can run here (*done), with the reason in why where they cannot */
static PetscErrorCode GKCUDASpGEMMReady(PetscBool *done, char *why, size_t len)
{
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
  PetscFunctionReturn(0);
}

/* C = A P, or C = R^T (A P) where R is given; every array in device memory, C's allocated here
   (freed by the caller with the backend's free). *done false, with the reason in why, where
   cuSPARSE is not there; then nothing is computed. */
PetscErrorCode GKCUDASpGEMM(const GKCsr *A, const GKCsr *P, const GKCsr *R, GKCsr *C, PetscBool *done, char *why, size_t len)
{
  GKCsr AP = {0, 0, 0, NULL, NULL, NULL}, T = AP;

  PetscFunctionBegin;
  PetscCall(GKCUDASpGEMMReady(done, why, len));
  if (!*done) PetscFunctionReturn(0);
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

/* One product C = A B kept for its numeric steps (cuSPARSE's SpGEMMreuse): the descriptors, the
   buffers the numeric step reads, and C's arrays */
typedef struct {
  cusparseSpGEMMDescr_t g;
  cusparseSpMatDescr_t  dA, dB, dC;
  void                 *b4, *b5;
  GKCsr                 C;
} GKCUDAPairPlan;

/* C = A P, or T (A P) with T = R^T; T's k-th entry is R's perm[k]-th */
typedef struct {
  GKCUDAPairPlan ap, tap;
  PetscBool      ptap;
  GKCsr          T;
  PetscInt      *perm;
} GKCUDAPlan;

/* C's pattern from A's and B's, its values computed once */
static PetscErrorCode GKCUDAPairPlanMake(const GKCsr *A, const GKCsr *B, GKCUDAPairPlan *q)
{
  const PetscScalar         one = 1.0, zero = 0.0;
  const cusparseOperation_t op  = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
  size_t                    s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
  void                     *b1 = NULL, *b2 = NULL, *b3 = NULL;
  int64_t                   rows, cols, nnz;

  PetscFunctionBegin;
  q->C.m = A->m;
  q->C.n = B->n;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(A->m + 1), (void **)&q->C.i));
  PetscCall(GKCSRDescr(A, &q->dA));
  PetscCall(GKCSRDescr(B, &q->dB));
  GKCallCUSPARSE(GK_SP(cusparseCreateCsr)(&q->dC, A->m, B->n, 0, q->C.i, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                          GK_CUDA_SCALAR));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMM_createDescr)(&q->g));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMMreuse_workEstimation)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s1, NULL));
  PetscCall(GKBackendCUDA.malloc(s1, &b1));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMMreuse_workEstimation)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s1, b1));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMMreuse_nnz)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s2, NULL, &s3, NULL, &s4, NULL));
  PetscCall(GKBackendCUDA.malloc(s2, &b2));
  PetscCall(GKBackendCUDA.malloc(s3, &b3));
  PetscCall(GKBackendCUDA.malloc(s4, &q->b4));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMMreuse_nnz)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s2, b2, &s3, b3, &s4, q->b4));
  PetscCall(GKBackendCUDA.free(b1));
  PetscCall(GKBackendCUDA.free(b2));
  GKCallCUSPARSE(GK_SP(cusparseSpMatGetSize)(q->dC, &rows, &cols, &nnz));
  q->C.nnz = (PetscInt)nnz;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)nnz, (void **)&q->C.j));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscScalar) * (size_t)nnz, (void **)&q->C.a));
  GKCallCUSPARSE(GK_SP(cusparseCsrSetPointers)(q->dC, q->C.i, q->C.j, q->C.a));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMMreuse_copy)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s5, NULL));
  PetscCall(GKBackendCUDA.malloc(s5, &q->b5));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMMreuse_copy)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s5, q->b5));
  PetscCall(GKBackendCUDA.free(b3));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMMreuse_compute)(gk_sp_handle, op, op, &one, q->dA, q->dB, &zero, q->dC, GK_CUDA_SCALAR, alg, q->g));
  PetscFunctionReturn(0);
}

/* C's values again, A and B of the patterns the plan was made for (their arrays anywhere) */
static PetscErrorCode GKCUDAPairPlanCompute(GKCUDAPairPlan *q, const GKCsr *A, const GKCsr *B)
{
  const PetscScalar one = 1.0, zero = 0.0;

  PetscFunctionBegin;
  GKCallCUSPARSE(GK_SP(cusparseCsrSetPointers)(q->dA, A->i, A->j, A->a));
  GKCallCUSPARSE(GK_SP(cusparseCsrSetPointers)(q->dB, B->i, B->j, B->a));
  GKCallCUSPARSE(GK_SP(cusparseSpGEMMreuse_compute)(gk_sp_handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, q->dA,
                                                    q->dB, &zero, q->dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, q->g));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAPairPlanFree(GKCUDAPairPlan *q)
{
  PetscFunctionBegin;
  if (q->g) {
    GKCallCUSPARSE(GK_SP(cusparseSpGEMM_destroyDescr)(q->g));
    GKCallCUSPARSE(GK_SP(cusparseDestroySpMat)(q->dA));
    GKCallCUSPARSE(GK_SP(cusparseDestroySpMat)(q->dB));
    GKCallCUSPARSE(GK_SP(cusparseDestroySpMat)(q->dC));
  }
  PetscCall(GKBackendCUDA.free(q->b4));
  PetscCall(GKBackendCUDA.free(q->b5));
  PetscCall(GKCUDACsrFree(&q->C));
  PetscFunctionReturn(0);
}

__global__ static void GKIotaKernel(PetscInt n, double *x)
{
  for (PetscInt k = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; k < n; k += (PetscInt)gridDim.x * blockDim.x) x[k] = (double)k;
}

__global__ static void GKToIndexKernel(PetscInt n, const double *x, PetscInt *perm)
{
  for (PetscInt k = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; k < n; k += (PetscInt)gridDim.x * blockDim.x) perm[k] = (PetscInt)x[k];
}

__global__ static void GKGatherKernel(PetscInt n, const PetscInt *perm, const GKScalar *src, GKScalar *dst)
{
  for (PetscInt k = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; k < n; k += (PetscInt)gridDim.x * blockDim.x) dst[k] = src[perm[k]];
}

/* T = R^T by the transposition of R's entries' positions (exact in double below 2^53 entries),
   then R's values gathered */
static PetscErrorCode GKCUDATransposePlan(const GKCsr *R, GKCsr *T, PetscInt **perm)
{
  size_t  s   = 0;
  void   *buf = NULL;
  double *pos, *tpos;
  GKCsr   I = *R;

  PetscFunctionBegin;
  T->m   = R->n;
  T->n   = R->m;
  T->nnz = R->nnz;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(T->m + 1), (void **)&T->i));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)T->nnz, (void **)&T->j));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscScalar) * (size_t)T->nnz, (void **)&T->a));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)T->nnz, (void **)perm));
  PetscCall(GKBackendCUDA.malloc(sizeof(double) * (size_t)T->nnz, (void **)&pos));
  PetscCall(GKBackendCUDA.malloc(sizeof(double) * (size_t)T->nnz, (void **)&tpos));
  if (R->nnz) GKIotaKernel<<<GKBlocks(R->nnz), GK_BLOCK, 0, GKCUDAStream>>>(R->nnz, pos);
  I.a = (PetscScalar *)pos;
  GKCallCUSPARSE(GK_SP(cusparseCsr2cscEx2_bufferSize)(gk_sp_handle, (int)I.m, (int)I.n, (int)I.nnz, I.a, (const int *)I.i, (const int *)I.j, tpos,
                                                      (int *)T->i, (int *)T->j, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                                      CUSPARSE_CSR2CSC_ALG1, &s));
  PetscCall(GKBackendCUDA.malloc(s, &buf));
  GKCallCUSPARSE(GK_SP(cusparseCsr2cscEx2)(gk_sp_handle, (int)I.m, (int)I.n, (int)I.nnz, I.a, (const int *)I.i, (const int *)I.j, tpos, (int *)T->i,
                                           (int *)T->j, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buf));
  if (R->nnz) GKToIndexKernel<<<GKBlocks(R->nnz), GK_BLOCK, 0, GKCUDAStream>>>(R->nnz, tpos, *perm);
  if (R->nnz) GKGatherKernel<<<GKBlocks(R->nnz), GK_BLOCK, 0, GKCUDAStream>>>(R->nnz, *perm, (const GKScalar *)R->a, (GKScalar *)T->a);
  PetscCall(GKBackendCUDA.free(buf));
  PetscCall(GKBackendCUDA.free(pos));
  PetscCall(GKBackendCUDA.free(tpos));
  PetscFunctionReturn(0);
}

__global__ static void GKUnsortedKernel(PetscInt m, const PetscInt *i, const PetscInt *j, int *unsorted)
{
  for (PetscInt r = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; r < m; r += (PetscInt)gridDim.x * blockDim.x)
    for (PetscInt k = i[r] + 1; k < i[r + 1]; k++)
      if (j[k - 1] >= j[k]) *unsorted = 1;
}

/* whether some row of M has its columns out of ascending order */
static PetscErrorCode GKCUDACsrUnsorted(const GKCsr *M, PetscBool *unsorted)
{
  int *d, h = 0;

  PetscFunctionBegin;
  PetscCall(GKBackendCUDA.malloc(sizeof(int), (void **)&d));
  PetscCall(GKBackendCUDA.memcpy(d, &h, sizeof(int), GK_MEMCPY_H2D));
  if (M->m) GKUnsortedKernel<<<GKBlocks(M->m), GK_BLOCK, 0, GKCUDAStream>>>(M->m, M->i, M->j, d);
  PetscCall(GKBackendCUDA.memcpy(&h, d, sizeof(int), GK_MEMCPY_D2H));
  PetscCall(GKBackendCUDA.free(d));
  *unsorted = h ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* C's arrays: a copy of the plan's result, which the next numeric step writes */
static PetscErrorCode GKCUDACsrCopy(const GKCsr *S, GKCsr *C)
{
  PetscFunctionBegin;
  C->m   = S->m;
  C->n   = S->n;
  C->nnz = S->nnz;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(C->m + 1), (void **)&C->i));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)C->nnz, (void **)&C->j));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscScalar) * (size_t)C->nnz, (void **)&C->a));
  PetscCall(GKBackendCUDA.memcpy(C->i, S->i, sizeof(PetscInt) * (size_t)(C->m + 1), GK_MEMCPY_D2D));
  PetscCall(GKBackendCUDA.memcpy(C->j, S->j, sizeof(PetscInt) * (size_t)C->nnz, GK_MEMCPY_D2D));
  PetscCall(GKBackendCUDA.memcpy(C->a, S->a, sizeof(PetscScalar) * (size_t)C->nnz, GK_MEMCPY_D2D));
  PetscFunctionReturn(0);
}

/* The numeric step of C = A P or R^T (A P) through the plan *plan (made here at the first) */
PetscErrorCode GKCUDASpGEMMNumeric(void **plan, const GKCsr *A, const GKCsr *P, const GKCsr *R, GKCsr *C, PetscBool *done, char *why, size_t len)
{
  GKCUDAPlan *pl       = (GKCUDAPlan *)*plan;
  PetscBool   unsorted = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(GKCUDASpGEMMReady(done, why, len));
  if (!*done) PetscFunctionReturn(0);
  if (!pl) {
    PetscCall(PetscNew(&pl));
    *plan    = pl;
    pl->ptap = R ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(GKCUDAPairPlanMake(A, P, &pl->ap));
    if (R) {
      PetscCall(GKCUDATransposePlan(R, &pl->T, &pl->perm));
      PetscCall(GKCUDAPairPlanMake(&pl->T, &pl->ap.C, &pl->tap));
    }
    PetscCall(GKCUDACsrUnsorted(R ? &pl->tap.C : &pl->ap.C, &unsorted));
    if (unsorted) { /* the numeric steps' callers read C in the host's order */
      PetscCall(GKCUDASpGEMMPlanFree(plan));
      *done = PETSC_FALSE;
      PetscCall(PetscStrncpy(why, "cuSPARSE's reusable product gave a row out of order", len));
      PetscFunctionReturn(0);
    }
  } else {
    PetscCheck(pl->ptap == (R ? PETSC_TRUE : PETSC_FALSE), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product's plan used for another kind of product");
    PetscCall(GKCUDAPairPlanCompute(&pl->ap, A, P));
    if (R) {
      if (R->nnz) GKGatherKernel<<<GKBlocks(R->nnz), GK_BLOCK, 0, GKCUDAStream>>>(R->nnz, pl->perm, (const GKScalar *)R->a, (GKScalar *)pl->T.a);
      PetscCall(GKCUDAPairPlanCompute(&pl->tap, &pl->T, &pl->ap.C));
    }
  }
  PetscCall(GKCUDACsrCopy(R ? &pl->tap.C : &pl->ap.C, C));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDASpGEMMPlanFree(void **plan)
{
  GKCUDAPlan *pl = (GKCUDAPlan *)*plan;

  PetscFunctionBegin;
  if (!pl) PetscFunctionReturn(0);
  PetscCall(GKCUDAPairPlanFree(&pl->ap));
  PetscCall(GKCUDAPairPlanFree(&pl->tap));
  PetscCall(GKCUDACsrFree(&pl->T));
  PetscCall(GKBackendCUDA.free(pl->perm));
  PetscCall(PetscFree(pl));
  *plan = NULL;
  PetscFunctionReturn(0);
}
