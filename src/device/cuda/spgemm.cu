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

#if defined(PETSC_USE_COMPLEX)
  #define GK_CUDA_SCALAR CUDA_C_64F
#else
  #define GK_CUDA_SCALAR CUDA_R_64F
#endif

/* The products' cuSPARSE sequences, with no PETSc call: the preload's thread runs them on its 2 x 2
   matrix as the products run them on theirs, so that what the preload loads is what the products
   launch. Each returns 0, a cuSPARSE status or GK_SP_NOMEM, and frees what it allocated where it
   fails; device memory comes from mem, every call goes to the handle's stream. */
#define GK_SP_NOMEM (-1)
typedef struct {
  int (*malloc)(size_t, void **); /* 0, or GK_SP_NOMEM; nothing allocated (NULL) for 0 bytes */
  void (*free)(void *);
} GKSpMem;

#define GK_SP_TRY(call) \
  do { \
    if ((st = (int)(call)) != 0) goto done; \
  } while (0)
#define GK_SP_MEM(p, size) \
  do { \
    if ((st = mem->malloc((size), (void **)&(p))) != 0) goto done; \
  } while (0)

static cusparseStatus_t GKSpDescr(const GKCsr *M, cusparseSpMatDescr_t *d)
{
  return GK_SP(cusparseCreateCsr)(d, M->m, M->n, M->nnz, (void *)M->i, (void *)M->j, (void *)M->a, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, GK_CUDA_SCALAR);
}

static void GKSpCsrFree(const GKSpMem *mem, GKCsr *M)
{
  mem->free(M->i);
  mem->free(M->j);
  mem->free(M->a);
  M->i = M->j = NULL;
  M->a        = NULL;
}

/* C = A B (the work estimate, the product, the copy into C's arrays, which this allocates) */
static int GKSpPair(const GKSpMem *mem, const GKCsr *A, const GKCsr *B, GKCsr *C)
{
  const PetscScalar         one = 1.0, zero = 0.0;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseSpMatDescr_t      dA = NULL, dB = NULL, dC = NULL;
  cusparseSpGEMMDescr_t     g  = NULL;
  size_t                    s1 = 0, s2 = 0;
  void                     *b1 = NULL, *b2 = NULL;
  int64_t                   rows, cols, nnz;
  int                       st;

  C->m = A->m;
  C->n = B->n;
  C->i = C->j = NULL;
  C->a        = NULL;
  GK_SP_TRY(GKSpDescr(A, &dA));
  GK_SP_TRY(GKSpDescr(B, &dB));
  GK_SP_TRY(
    GK_SP(cusparseCreateCsr)(&dC, A->m, B->n, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, GK_CUDA_SCALAR));
  GK_SP_TRY(GK_SP(cusparseSpGEMM_createDescr)(&g));
  GK_SP_TRY(
    GK_SP(cusparseSpGEMM_workEstimation)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g, &s1, NULL));
  GK_SP_MEM(b1, s1);
  GK_SP_TRY(GK_SP(cusparseSpGEMM_workEstimation)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g, &s1, b1));
  GK_SP_TRY(GK_SP(cusparseSpGEMM_compute)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g, &s2, NULL));
  GK_SP_MEM(b2, s2);
  GK_SP_TRY(GK_SP(cusparseSpGEMM_compute)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g, &s2, b2));
  GK_SP_TRY(GK_SP(cusparseSpMatGetSize)(dC, &rows, &cols, &nnz));
  C->nnz = (PetscInt)nnz;
  GK_SP_MEM(C->i, sizeof(PetscInt) * (size_t)(C->m + 1));
  GK_SP_MEM(C->j, sizeof(PetscInt) * (size_t)nnz);
  GK_SP_MEM(C->a, sizeof(PetscScalar) * (size_t)nnz);
  GK_SP_TRY(GK_SP(cusparseCsrSetPointers)(dC, C->i, C->j, C->a));
  GK_SP_TRY(GK_SP(cusparseSpGEMM_copy)(gk_sp_handle, op, op, &one, dA, dB, &zero, dC, GK_CUDA_SCALAR, CUSPARSE_SPGEMM_DEFAULT, g));
done:
  if (g) (void)GK_SP(cusparseSpGEMM_destroyDescr)(g);
  if (dA) (void)GK_SP(cusparseDestroySpMat)(dA);
  if (dB) (void)GK_SP(cusparseDestroySpMat)(dB);
  if (dC) (void)GK_SP(cusparseDestroySpMat)(dC);
  mem->free(b1);
  mem->free(b2);
  if (st) GKSpCsrFree(mem, C);
  return st;
}

/* T's arrays (allocated by the caller, values of type t) from the m x n CSR i, j, a read as CSC */
static int GKSpCsr2Csc(const GKSpMem *mem, PetscInt m, PetscInt n, PetscInt nnz, const PetscInt *i, const PetscInt *j, const void *a, PetscInt *ti,
                       PetscInt *tj, void *ta, cudaDataType t)
{
  size_t s   = 0;
  void  *buf = NULL;
  int    st;

  GK_SP_TRY(GK_SP(cusparseCsr2cscEx2_bufferSize)(gk_sp_handle, (int)m, (int)n, (int)nnz, a, (const int *)i, (const int *)j, ta, (int *)ti, (int *)tj,
                                                 t, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &s));
  GK_SP_MEM(buf, s);
  GK_SP_TRY(GK_SP(cusparseCsr2cscEx2)(gk_sp_handle, (int)m, (int)n, (int)nnz, a, (const int *)i, (const int *)j, ta, (int *)ti, (int *)tj, t,
                                      CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buf));
done:
  mem->free(buf);
  return st;
}

/* T = P^T, its arrays allocated here */
static int GKSpTranspose(const GKSpMem *mem, const GKCsr *P, GKCsr *T)
{
  int st;

  T->m   = P->n;
  T->n   = P->m;
  T->nnz = P->nnz;
  T->i = T->j = NULL;
  T->a        = NULL;
  GK_SP_MEM(T->i, sizeof(PetscInt) * (size_t)(T->m + 1));
  GK_SP_MEM(T->j, sizeof(PetscInt) * (size_t)T->nnz);
  GK_SP_MEM(T->a, sizeof(PetscScalar) * (size_t)T->nnz);
  st = GKSpCsr2Csc(mem, P->m, P->n, P->nnz, P->i, P->j, P->a, T->i, T->j, T->a, GK_CUDA_SCALAR);
done:
  if (st) GKSpCsrFree(mem, T);
  return st;
}

/* One product C = A B kept for its numeric steps (cuSPARSE's SpGEMMreuse): the descriptors, the
   buffers the numeric step reads, and C's arrays */
typedef struct {
  cusparseSpGEMMDescr_t g;
  cusparseSpMatDescr_t  dA, dB, dC;
  void                 *b4, *b5;
  GKCsr                 C;
} GKCUDAPairPlan;

static void GKSpPairPlanFree(const GKSpMem *mem, GKCUDAPairPlan *q)
{
  if (q->g) (void)GK_SP(cusparseSpGEMM_destroyDescr)(q->g);
  if (q->dA) (void)GK_SP(cusparseDestroySpMat)(q->dA);
  if (q->dB) (void)GK_SP(cusparseDestroySpMat)(q->dB);
  if (q->dC) (void)GK_SP(cusparseDestroySpMat)(q->dC);
  mem->free(q->b4);
  mem->free(q->b5);
  GKSpCsrFree(mem, &q->C);
  memset(q, 0, sizeof(*q));
}

/* C's pattern from A's and B's, its values computed once (q zeroed by the caller) */
static int GKSpPairPlanMake(const GKSpMem *mem, const GKCsr *A, const GKCsr *B, GKCUDAPairPlan *q)
{
  const PetscScalar         one = 1.0, zero = 0.0;
  const cusparseOperation_t op  = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
  size_t                    s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
  void                     *b1 = NULL, *b2 = NULL, *b3 = NULL;
  int64_t                   rows, cols, nnz;
  int                       st;

  q->C.m = A->m;
  q->C.n = B->n;
  GK_SP_MEM(q->C.i, sizeof(PetscInt) * (size_t)(A->m + 1));
  GK_SP_TRY(GKSpDescr(A, &q->dA));
  GK_SP_TRY(GKSpDescr(B, &q->dB));
  GK_SP_TRY(GK_SP(cusparseCreateCsr)(&q->dC, A->m, B->n, 0, q->C.i, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                     GK_CUDA_SCALAR));
  GK_SP_TRY(GK_SP(cusparseSpGEMM_createDescr)(&q->g));
  GK_SP_TRY(GK_SP(cusparseSpGEMMreuse_workEstimation)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s1, NULL));
  GK_SP_MEM(b1, s1);
  GK_SP_TRY(GK_SP(cusparseSpGEMMreuse_workEstimation)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s1, b1));
  GK_SP_TRY(GK_SP(cusparseSpGEMMreuse_nnz)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s2, NULL, &s3, NULL, &s4, NULL));
  GK_SP_MEM(b2, s2);
  GK_SP_MEM(b3, s3);
  GK_SP_MEM(q->b4, s4);
  GK_SP_TRY(GK_SP(cusparseSpGEMMreuse_nnz)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s2, b2, &s3, b3, &s4, q->b4));
  mem->free(b1);
  mem->free(b2);
  b1 = b2 = NULL;
  GK_SP_TRY(GK_SP(cusparseSpMatGetSize)(q->dC, &rows, &cols, &nnz));
  q->C.nnz = (PetscInt)nnz;
  GK_SP_MEM(q->C.j, sizeof(PetscInt) * (size_t)nnz);
  GK_SP_MEM(q->C.a, sizeof(PetscScalar) * (size_t)nnz);
  GK_SP_TRY(GK_SP(cusparseCsrSetPointers)(q->dC, q->C.i, q->C.j, q->C.a));
  GK_SP_TRY(GK_SP(cusparseSpGEMMreuse_copy)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s5, NULL));
  GK_SP_MEM(q->b5, s5);
  GK_SP_TRY(GK_SP(cusparseSpGEMMreuse_copy)(gk_sp_handle, op, op, q->dA, q->dB, q->dC, alg, q->g, &s5, q->b5));
  GK_SP_TRY(GK_SP(cusparseSpGEMMreuse_compute)(gk_sp_handle, op, op, &one, q->dA, q->dB, &zero, q->dC, GK_CUDA_SCALAR, alg, q->g));
done:
  mem->free(b1);
  mem->free(b2);
  mem->free(b3);
  if (st) GKSpPairPlanFree(mem, q);
  return st;
}
#undef GK_SP_TRY
#undef GK_SP_MEM

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

static int GKSpMallocCUDA(size_t bytes, void **p)
{
  *p = NULL;
  return bytes && cudaMalloc(p, bytes) != cudaSuccess ? GK_SP_NOMEM : 0;
}

static void GKSpFreeCUDA(void *p)
{
  if (p) (void)cudaFree(p);
}

/* the products' sequences on A = [2 0; -1 2]: C = A A, A^T, and the reusable product A A */
static void GKCUSPARSEWarm(cudaStream_t st)
{
  const GKSpMem     mem   = {GKSpMallocCUDA, GKSpFreeCUDA};
  const PetscInt    hi[3] = {0, 1, 3}, hj[3] = {0, 0, 1};
  const PetscScalar ha[3] = {2.0, -1.0, 2.0};
  GKCsr             A = {2, 2, 3, NULL, NULL, NULL}, C = {0, 0, 0, NULL, NULL, NULL}, T = C;
  GKCUDAPairPlan    q;

  memset(&q, 0, sizeof(q));
  if (sizeof(PetscInt) != sizeof(int)) return; /* the products' descriptors say 32-bit indices */
  if (GKSpMallocCUDA(sizeof(hi), (void **)&A.i) || GKSpMallocCUDA(sizeof(hj), (void **)&A.j) || GKSpMallocCUDA(sizeof(ha), (void **)&A.a)) goto done;
  if (cudaMemcpyAsync(A.i, hi, sizeof(hi), cudaMemcpyHostToDevice, st) != cudaSuccess ||
      cudaMemcpyAsync(A.j, hj, sizeof(hj), cudaMemcpyHostToDevice, st) != cudaSuccess ||
      cudaMemcpyAsync(A.a, ha, sizeof(ha), cudaMemcpyHostToDevice, st) != cudaSuccess)
    goto done;
  if (!GKSpPair(&mem, &A, &A, &C) && !GKSpTranspose(&mem, &A, &T)) (void)GKSpPairPlanMake(&mem, &A, &A, &q);
done:
  (void)cudaStreamSynchronize(st);
  GKSpPairPlanFree(&mem, &q);
  GKSpCsrFree(&mem, &T);
  GKSpCsrFree(&mem, &C);
  GKSpCsrFree(&mem, &A);
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

/* the core's device memory from the backend (its pool) */
static int GKSpMallocBackend(size_t bytes, void **p)
{
  return GKBackendCUDA.malloc(bytes, p) ? GK_SP_NOMEM : 0;
}

static void GKSpFreeBackend(void *p)
{
  (void)GKBackendCUDA.free(p);
}

static const GKSpMem GKSpMemBackend = {GKSpMallocBackend, GKSpFreeBackend};

/* a PETSc error for the core's status */
static PetscErrorCode GKSpCheck(int st)
{
  PetscFunctionBegin;
  PetscCheck(st != GK_SP_NOMEM, PETSC_COMM_SELF, PETSC_ERR_MEM, "Device memory for cuSPARSE's product could not be allocated (see the error above)");
  PetscCheck(!st, PETSC_COMM_SELF, PETSC_ERR_GPU, "cuSPARSE error %d (%s)", st, GK_SP(cusparseGetErrorString)((cusparseStatus_t)st));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDASpGEMMPair(const GKCsr *A, const GKCsr *B, GKCsr *C)
{
  PetscFunctionBegin;
  PetscCall(GKSpCheck(GKSpPair(&GKSpMemBackend, A, B, C)));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDATranspose(const GKCsr *P, GKCsr *T)
{
  PetscFunctionBegin;
  PetscCall(GKSpCheck(GKSpTranspose(&GKSpMemBackend, P, T)));
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
  GKSpCsrFree(&GKSpMemBackend, &AP);
  GKSpCsrFree(&GKSpMemBackend, &T);
  PetscFunctionReturn(0);
}

/* C = A P, or T (A P) with T = R^T; T's k-th entry is R's perm[k]-th */
typedef struct {
  GKCUDAPairPlan ap, tap;
  PetscBool      ptap;
  GKCsr          T;
  PetscInt      *perm;
} GKCUDAPlan;

static PetscErrorCode GKCUDAPairPlanMake(const GKCsr *A, const GKCsr *B, GKCUDAPairPlan *q)
{
  PetscFunctionBegin;
  PetscCall(GKSpCheck(GKSpPairPlanMake(&GKSpMemBackend, A, B, q)));
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
  double *pos, *tpos;

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
  PetscCall(GKSpCheck(GKSpCsr2Csc(&GKSpMemBackend, R->m, R->n, R->nnz, R->i, R->j, pos, T->i, T->j, tpos, CUDA_R_64F)));
  if (R->nnz) GKToIndexKernel<<<GKBlocks(R->nnz), GK_BLOCK, 0, GKCUDAStream>>>(R->nnz, tpos, *perm);
  if (R->nnz) GKGatherKernel<<<GKBlocks(R->nnz), GK_BLOCK, 0, GKCUDAStream>>>(R->nnz, *perm, (const GKScalar *)R->a, (GKScalar *)T->a);
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
  GKSpPairPlanFree(&GKSpMemBackend, &pl->ap);
  GKSpPairPlanFree(&GKSpMemBackend, &pl->tap);
  GKSpCsrFree(&GKSpMemBackend, &pl->T);
  PetscCall(GKBackendCUDA.free(pl->perm));
  PetscCall(PetscFree(pl));
  *plan = NULL;
  PetscFunctionReturn(0);
}
