static char help[] = "petsc-gpukit benchmarks (make bench): every figure beside the device copy bandwidth B\n\
measured in the same run, as bytes moved / time against bytes / B.\n\
  -mode gpu|cpu|mpi   : gpu (one process): B, SpMV, cggpu, PETSc cg on device types, the cuSPARSE +\n\
                        cuBLAS baseline, PETSc CPU cg on one rank, the power-law matrices;\n\
                        cpu (any number of ranks): PETSc CPU cg on MPIAIJ only;\n\
                        mpi (one GPU per process): cggpu on the MPI device types, weak and strong\n\
                        scaling\n\
  -mode ssor          : time to solution of cggpu with none, jacobi and ssorgpu, 2D 2048^2 and 3D 160^3\n\
  -mode vcycle        : one V-cycle (PCApply) of PCMG (Chebyshev/Jacobi, rediscretized on a DMDA) and of\n\
                        PCGAMG, 2D 2049^2 and 3D 129^3, against the sum of its operations' rooflines\n\
  -mode coo           : MatSetValuesCOO into SEQAIJ (host) and the device types from host and device\n\
                        values, 2D 2049^2 and 3D 129^3 unless -grids2d/-grids3d\n\
  -weak <n>           : mpi: an n x (n P) grid on P processes (default 2048: 4M rows a GPU)\n\
  -strong <n>         : mpi: an n x n grid on any number of processes (default 4096: 16M rows)\n\
  -csv <file>         : append the results to this CSV file\n\
  -grids2d <n,...>    : 2D 5-point Laplacians on n x n grids (default 256,512,1024,2048,4096; 0: none)\n\
  -grids3d <n,...>    : 3D 7-point Laplacians on n^3 grids (default 128,256; 0: none)\n\
  -ssor_runs <s>      : ssor: only the runs whose names contain s (none, jacobi, multicolor, ...)\n\
  -vcycle_runs <s>    : vcycle: only the cycles whose <dim>d-<PC> contains s (2d-mg, 3d-gamg, ...)\n\
  -cg_its <k>         : CG iterations timed on the GPU (default 400)\n\
  -cpu_its <k>        : CG iterations timed on the CPU (default 10)\n\
  -powerlaw_rows <m>  : rows of the power-law matrices (default 2097152; 0 skips them)\n\
  -powerlaw_only <k>  : only the k-th ELLPACK-R variant of them, 0 to 3, and no cuSPARSE (to profile it)\n\n";

/*
   The byte counts (the "roofline" of every row is bytes / B):
   - SpMV reads the format's arrays once, x once and writes y once: DIA ndiag m values and
     ndiag offsets; ELLPACK-R the nonzeros' values and column indices (a row stops at its own
     length, Michels 5.3.1; 2 bytes an index where the matrix stores 16-bit offsets, else 4),
     the row lengths and the slice starts; CSR the values, column indices and row starts.
   - cggpu's step reads ELLPACK-R in the paper's layout without the row lengths where the
     longest row has 5, 7 or 9 entries (BytesELLRStep).
   - A CG iteration (no preconditioner) adds its vector passes to the matrix' bytes, each pass
     8 bytes a row: cggpu's fused kernels GK_CGGPU_PASSES (src/device/device.h), PETSc's
     KSPCG 18 (PCApply's copy 2, the norm 1, two dots 4, VecAYPX 3, two VecAXPY 6, the product
     2), the cuSPARSE + cuBLAS sample 16 (scal 2, axpy 3 for p, the product 2, dot 2, two axpy
     6, the norm dot 1).
*/
#include <petscksp.h>
#include <petscdmda.h>
#include <petscgpukit.h>
#include <petsctime.h>
#include "poisson.h"

#if defined(PETSC_USE_COMPLEX) || defined(PETSC_USE_64BIT_INDICES) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "the benchmarks compare with cuSPARSE's double, 32-bit-index CSR: build them against a real, double, 32-bit-index PETSc"
#endif

/* cggpu's vector passes an iteration (device.h): the step reads z, p_i-1 and x and writes x,
   p_i and w; the update reads w and r and writes r */
#define GK_CGGPU_PASSES  9
#define PETSC_CG_PASSES  18
#define SAMPLE_CG_PASSES 16

/* baseline.cu */
const char *BenchError(void);
int         BenchDeviceName(char *, size_t);
int         BenchSync(void);
int         BenchSetDevice(int);
int         BenchCopyBandwidth(size_t, int, double *, double *, double *);
int         BenchCuSparse(int, int, const int *, const int *, const double *, const double *, int, int, double *, double *, double *);

#define BenchCall(call) \
  do { \
    if (call) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", BenchError()); \
  } while (0)

typedef struct {
  char         name[32];
  PetscInt     m, nnz;     /* global rows and nonzeros */
  PetscInt     rstart, ml; /* the rows this rank holds */
  PetscInt    *rowptr, *col;
  PetscScalar *val;
  PetscInt     ndiag; /* distinct diagonals */
} Problem;

static FILE  *csv;
static double B; /* GB/s */

static PetscErrorCode Record(const char *section, const Problem *P, const char *what, double us, double bytes, PetscBool roof)
{
  const double gbs = bytes > 0 && us > 0 ? bytes / (us * 1e3) : 0.0, rl = roof && B > 0 && bytes > 0 ? bytes / (B * 1e3) : 0.0;

  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-9s %-10s %-28s %12.2f us %10.1f GB/s", section, P ? P->name : "-", what, us, gbs));
  if (rl > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %.3fx roofline", us / rl));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  if (csv) {
    fprintf(csv, "%s,%s,%d,%d,%s,%.4f,%.0f,%.2f,", section, P ? P->name : "-", P ? (int)P->m : 0, P ? (int)P->nnz : 0, what, us, bytes, gbs);
    if (rl > 0) fprintf(csv, "%.4f,%.4f\n", rl, us / rl);
    else fprintf(csv, ",\n");
    fflush(csv);
  }
  PetscFunctionReturn(0);
}

/* Rows [rstart, rstart + ml) of the 5-point (dim 2) or 7-point (dim 3) Laplacian of an n^dim
   grid, or in 2D of an n x ny grid (ny > 0), Dirichlet boundary eliminated: 2 dim on the
   diagonal, -1 to each neighbour */
static PetscErrorCode Laplacian(PetscInt dim, PetscInt n, PetscInt ny, PetscInt rstart, PetscInt ml, Problem *P)
{
  const PetscInt last = dim == 2 && ny > 0 ? ny : n, M = dim == 2 ? n * last : n * n * n;
  PetscInt       k = 0;

  PetscFunctionBegin;
  if (last != n) PetscCall(PetscSNPrintf(P->name, sizeof(P->name), "%dd-%dx%d", (int)dim, (int)n, (int)last));
  else PetscCall(PetscSNPrintf(P->name, sizeof(P->name), "%dd-%d", (int)dim, (int)n));
  P->m      = M;
  P->rstart = rstart;
  P->ml     = ml;
  P->ndiag  = 2 * dim + 1;
  PetscCall(PetscMalloc3(ml + 1, &P->rowptr, (2 * dim + 1) * ml, &P->col, (2 * dim + 1) * ml, &P->val));
  P->rowptr[0] = 0;
  for (PetscInt r = rstart; r < rstart + ml; r++) {
    const PetscInt i = r % n, j = dim == 2 ? r / n : (r / n) % n, l = r / (n * n);
    const PetscInt stride[3] = {1, n, n * n}, pos[3] = {i, j, l};

    for (PetscInt d = dim - 1; d >= 0; d--) /* below the diagonal, in increasing column order */
      if (pos[d] > 0) {
        P->col[k]   = r - stride[d];
        P->val[k++] = -1.0;
      }
    P->col[k]   = r;
    P->val[k++] = 2.0 * dim;
    for (PetscInt d = 0; d < dim; d++)
      if (pos[d] < (d == dim - 1 ? last : n) - 1) {
        P->col[k]   = r + stride[d];
        P->val[k++] = -1.0;
      }
    P->rowptr[r - rstart + 1] = k;
  }
  P->nnz = k;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &P->nnz, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

/* A seeded matrix with power-law row lengths: P(length >= L) = (4/L)^1.5 for L >= 4, at most
   4096, the diagonal plus distinct uniformly random columns */
static PetscErrorCode PowerLaw(PetscInt m, Problem *P)
{
  PetscRandom rnd;
  PetscInt    k = 0, cap = 0;
  PetscInt   *len;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(P->name, sizeof(P->name), "powerlaw-%d", (int)m));
  P->m      = m;
  P->rstart = 0;
  P->ml     = m;
  P->ndiag  = 0;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20261122));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscMalloc1(m, &len));
  for (PetscInt i = 0; i < m; i++) {
    PetscReal u;

    PetscCall(PetscRandomGetValueReal(rnd, &u));
    len[i] = (PetscInt)PetscMin(4096.0, PetscFloorReal(4.0 / PetscPowReal(1.0 - u, 1.0 / 1.5)));
    len[i] = PetscMin(len[i], m);
    cap += len[i];
  }
  PetscCall(PetscMalloc3(m + 1, &P->rowptr, cap, &P->col, cap, &P->val));
  P->rowptr[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    PetscInt c = 0;

    P->col[k + c++] = i;
    while (c < len[i]) {
      PetscReal u;
      PetscInt  j;
      PetscBool dup = PETSC_FALSE;

      PetscCall(PetscRandomGetValueReal(rnd, &u));
      j = PetscMin((PetscInt)(u * m), m - 1);
      for (PetscInt q = 0; q < c && !dup; q++) dup = P->col[k + q] == j ? PETSC_TRUE : PETSC_FALSE;
      if (!dup) P->col[k + c++] = j;
    }
    PetscCall(PetscSortInt(c, P->col + k));
    for (PetscInt q = 0; q < c; q++) P->val[k + q] = P->col[k + q] == i ? (PetscScalar)len[i] : -1.0 / len[i];
    k += c;
    P->rowptr[i + 1] = k;
  }
  P->nnz = k;
  PetscCall(PetscFree(len));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

static PetscErrorCode ProblemFree(Problem *P)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(P->rowptr, P->col, P->val));
  PetscFunctionReturn(0);
}

/* bytes of the matrix arrays one product reads */
static double BytesDIA(const Problem *P)
{
  return (double)P->ndiag * P->m * sizeof(PetscScalar) + (double)P->ndiag * sizeof(PetscInt);
}

/* bytes of so many entries of ELLPACK-R and its other arrays: h = 0: one slice; sorted (a sort
   window): the row of each slot too; shortcols: the columns as 16-bit offsets
   (MatELLRCUDAGetShortColumns); nwide: slots in wide slices, each listed with where it starts
   (sliced: each slice's first of them too) */
static double ArraysELLR(const Problem *P, PetscInt h, PetscBool sorted, PetscBool shortcols, double entries, PetscInt nwide)
{
  const PetscInt slices = h ? (P->m + h - 1) / h : 1;

  return entries * (sizeof(PetscScalar) + (shortcols ? sizeof(short) : sizeof(PetscInt))) + (double)P->m * sizeof(PetscInt) * (sorted ? 2 : 1) +
         (double)(slices + 1 + (h ? slices : 0) + 2 * nwide) * sizeof(PetscInt);
}

/* what a product reads of them: the nonzeros, not the padding */
static double BytesELLR(const Problem *P, PetscInt h, PetscBool sorted, PetscBool shortcols, PetscInt nwide)
{
  return ArraysELLR(P, h, sorted, shortcols, (double)P->nnz, nwide);
}

/* what cggpu's step reads of ELLPACK-R in the paper's layout: the product's bytes, less the row
   lengths where the longest row has 5, 7 or 9 entries (those rows are read whole, padding
   included, and their lengths not at all: GKEllrRowLoadsFirst) */
static double BytesELLRStep(const Problem *P, PetscBool shortcols)
{
  PetscInt nz = 0;

  for (PetscInt i = 0; i < P->ml; i++) nz = PetscMax(nz, P->rowptr[i + 1] - P->rowptr[i]);
  return BytesELLR(P, 0, PETSC_FALSE, shortcols, 0) - (nz == 5 || nz == 7 || nz == 9 ? (double)P->m * sizeof(PetscInt) : 0.0);
}

/* whether the ELLPACK-R matrix E (sequential, or the diagonal block of an MPI one) stores its
   columns as 16-bit offsets */
static PetscErrorCode ShortColumns(Mat E, PetscBool *shortcols)
{
  Mat       Ed = E;
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)E, MATMPIELLRCUDA, &mpi));
  if (mpi) PetscCall(MatGetDiagonalBlock(E, &Ed));
  PetscCall(MatELLRCUDAGetShortColumns(Ed, shortcols));
  PetscFunctionReturn(0);
}

static int LongerFirst(const void *a, const void *b)
{
  const PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;

  return x > y ? -1 : (x < y);
}

static double BytesCSR(const Problem *P)
{
  return (double)P->nnz * (sizeof(PetscScalar) + sizeof(PetscInt)) + (double)(P->m + 1) * sizeof(PetscInt);
}

/* entries ELLPACK-R stores with slices of h rows (0: one slice), the rows ordered longest first
   within windows of sigma rows (0: not), and the slots of its wide slices (at least 32 entries
   wide, src/device/device.h: sliced, their rows stored one after the other, each slice rounded
   up to a multiple of h entries) */
static PetscErrorCode StoredELLR(const Problem *P, PetscInt h, PetscInt sigma, double *stored, PetscInt *nwide)
{
  PetscInt  H = h ? h : P->m;
  PetscInt *len;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(P->m, &len));
  for (PetscInt i = 0; i < P->m; i++) len[i] = P->rowptr[i + 1] - P->rowptr[i];
  if (sigma > 1)
    for (PetscInt w = 0; w < P->m; w += sigma) qsort(len + w, (size_t)PetscMin(sigma, P->m - w), sizeof(PetscInt), LongerFirst);
  *stored = 0.0;
  *nwide  = 0;
  for (PetscInt s = 0; s < P->m; s += H) {
    const PetscInt rows = PetscMin(s + H, P->m) - s;
    PetscInt       w = 0, sum = 0;

    for (PetscInt i = s; i < s + rows; i++) {
      w = PetscMax(w, len[i]);
      sum += len[i];
    }
    if (w >= 32) *nwide += rows;
    *stored += w >= 32 && H < P->m ? (double)((sum + H - 1) / H * H) : (double)w * rows;
  }
  PetscCall(PetscFree(len));
  PetscFunctionReturn(0);
}

static PetscErrorCode SeqAIJ(const Problem *P, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, P->m, P->m, P->rowptr, P->col, P->val, A));
  PetscFunctionReturn(0);
}

/* repetitions of a product of so many bytes that move about 20 GB, 20 to 4000 */
static int Reps(double bytes)
{
  return (int)PetscMax(20.0, PetscMin(4000.0, 2e10 / bytes));
}

/* mean time (us) of one MatMult over Reps() repetitions */
static PetscErrorCode TimeMult(Mat A, double bytes, double *us)
{
  Vec            x, y;
  PetscLogDouble t0, t1;
  const int      reps = Reps(bytes);

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  for (int k = 0; k < 3; k++) PetscCall(MatMult(A, x, y));
  BenchCall(BenchSync());
  PetscCall(PetscTime(&t0));
  for (int k = 0; k < reps; k++) PetscCall(MatMult(A, x, y));
  BenchCall(BenchSync());
  PetscCall(PetscTime(&t1));
  *us = 1e6 * (t1 - t0) / reps;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

/* time (us) per iteration of its CG iterations (no preconditioner, no tolerance met) with b = 1;
   a short solve first sets everything up */
static PetscErrorCode TimeCG(Mat A, KSPType type, PetscInt its, PetscBool device, double *us)
{
  KSP            ksp;
  PC             pc;
  Vec            x, b;
  PetscLogDouble t0, t1;
  PetscInt       done;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, PETSC_DEFAULT, 3));
  PetscCall(KSPSetOptionsPrefix(ksp, "bench_"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, PETSC_DEFAULT, its));
  if (device) BenchCall(BenchSync());
  PetscCall(MPI_Barrier(PetscObjectComm((PetscObject)A)));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  if (device) BenchCall(BenchSync());
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetIterationNumber(ksp, &done));
  PetscCheck(done == its, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s ran %" PetscInt_FMT " of the %" PetscInt_FMT " iterations asked for", type, done,
             its);
  *us = 1e6 * (t1 - t0) / its;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, us, 1, MPI_DOUBLE, MPI_MAX, PetscObjectComm((PetscObject)A)));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

/* the single-process benchmarks of one Laplacian */
static PetscErrorCode RunLaplacianGPU(PetscInt dim, PetscInt n, PetscInt cgits, PetscInt cpuits)
{
  const PetscInt M        = dim == 2 ? n * n : n * n * n;
  const char    *types[3] = {MATSEQDIACUDA, MATSEQELLRCUDA, MATSEQELLRCUDA}, *names[3] = {"diacuda", "ellrcuda", "ellrcuda-32bit"};
  const double   vec = (double)M * sizeof(PetscScalar); /* one pass over a vector */
  Problem        P;
  Mat            A;
  char           what[64];
  double         us, spmv, cg, rn;
  PetscScalar   *ones;

  PetscFunctionBegin;
  PetscCall(Laplacian(dim, n, 0, 0, M, &P));
  PetscCall(SeqAIJ(&P, &A));
  for (int t = 0; t < 3; t++) { /* DIA, ELLPACK-R (16-bit columns where they fit, the default), and ELLPACK-R with 32-bit columns */
    double    mat = BytesDIA(&P), step;
    PetscBool sc  = PETSC_FALSE;
    Mat       D;

    PetscCall(MatConvert(A, types[t], MAT_INITIAL_MATRIX, &D));
    if (t == 2) PetscCall(MatELLRCUDASetShortColumns(D, PETSC_FALSE));
    step = mat;
    if (t) {
      PetscCall(ShortColumns(D, &sc));
      mat  = BytesELLR(&P, 0, PETSC_FALSE, sc, 0);
      step = BytesELLRStep(&P, sc);
    }
    PetscCall(TimeMult(D, mat + 2 * vec, &us));
    PetscCall(Record("spmv", &P, names[t], us, mat + 2 * vec, PETSC_TRUE));
    if (t < 2) { /* the same product on the values stored in single precision (-mat_gpukit_storage single): 4 bytes a value, not 8 */
      const double single = mat - (t ? (double)P.nnz : (double)P.ndiag * P.m) * (sizeof(PetscScalar) - sizeof(float));

      PetscCall(MatGPUKitSetStorage(D, PETSCGPUKIT_STORAGE_SINGLE));
      PetscCall(TimeMult(D, single + 2 * vec, &us));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s-single", names[t]));
      PetscCall(Record("spmv", &P, what, us, single + 2 * vec, PETSC_TRUE));
      PetscCall(MatGPUKitSetStorage(D, PETSCGPUKIT_STORAGE_DOUBLE));
    }
    PetscCall(TimeCG(D, KSPCGGPU, cgits, PETSC_TRUE, &us));
    PetscCall(PetscSNPrintf(what, sizeof(what), "cggpu-%s", names[t]));
    PetscCall(Record("cg", &P, what, us, step + GK_CGGPU_PASSES * vec, PETSC_TRUE));
    if (t == 2) { /* the 32-bit columns: their product and cggpu only */
      PetscCall(MatDestroy(&D));
      continue;
    }
    /* the same with the host waiting every 10th iteration only: what the per-iteration wait costs */
    PetscCall(PetscOptionsSetValue(NULL, "-bench_ksp_cggpu_check_every", "10"));
    PetscCall(TimeCG(D, KSPCGGPU, cgits, PETSC_TRUE, &us));
    PetscCall(PetscOptionsClearValue(NULL, "-bench_ksp_cggpu_check_every"));
    PetscCall(PetscSNPrintf(what, sizeof(what), "cggpu-%s-check10", names[t]));
    PetscCall(Record("cg", &P, what, us, step + GK_CGGPU_PASSES * vec, PETSC_TRUE));
    PetscCall(TimeCG(D, KSPCG, cgits, PETSC_TRUE, &us));
    PetscCall(PetscSNPrintf(what, sizeof(what), "petsc-cg-%s", names[t]));
    PetscCall(Record("cg", &P, what, us, mat + PETSC_CG_PASSES * vec, PETSC_TRUE));
    PetscCall(MatDestroy(&D));
  }
  PetscCall(PetscMalloc1(M, &ones));
  for (PetscInt i = 0; i < M; i++) ones[i] = 1.0;
  BenchCall(BenchCuSparse((int)M, (int)P.nnz, P.rowptr, P.col, P.val, ones, Reps(BytesCSR(&P) + 2 * vec), (int)cgits, &spmv, &cg, &rn));
  PetscCall(PetscFree(ones));
  PetscCall(Record("spmv", &P, "cusparse-csr", spmv, BytesCSR(&P) + 2 * vec, PETSC_TRUE));
  PetscCall(Record("cg", &P, "baseline-cusparse-cublas", cg, BytesCSR(&P) + SAMPLE_CG_PASSES * vec, PETSC_TRUE));
  if (cpuits > 0) {
    PetscCall(TimeCG(A, KSPCG, cpuits, PETSC_FALSE, &us));
    PetscCall(Record("cg", &P, "cpu-cg-1rank", us, BytesCSR(&P) + PETSC_CG_PASSES * vec, PETSC_FALSE));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(ProblemFree(&P));
  PetscFunctionReturn(0);
}

/* This rank's rows of the Laplacian (ny as Laplacian's) split evenly over all ranks, and their MPIAIJ */
static PetscErrorCode MPILaplacian(PetscInt dim, PetscInt n, PetscInt ny, Problem *P, Mat *A)
{
  const PetscInt M = dim == 2 ? n * (ny > 0 ? ny : n) : n * n * n;
  PetscMPIInt    size, rank;
  PetscInt       ml, rstart;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  ml = M / size + (rank < M % size ? 1 : 0);
  PetscCallMPI(MPI_Scan(&ml, &rstart, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  rstart -= ml;
  PetscCall(Laplacian(dim, n, ny, rstart, ml, P));
  PetscCall(MatCreateMPIAIJWithArrays(PETSC_COMM_WORLD, ml, ml, M, M, P->rowptr, P->col, P->val, A));
  PetscFunctionReturn(0);
}

/* PETSc's CPU CG on MPIAIJ over all ranks */
static PetscErrorCode RunLaplacianCPU(PetscInt dim, PetscInt n, PetscInt cpuits)
{
  const PetscInt M = dim == 2 ? n * n : n * n * n;
  PetscMPIInt    size;
  Problem        P;
  Mat            A;
  char           what[64];
  double         us;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MPILaplacian(dim, n, 0, &P, &A));
  PetscCall(TimeCG(A, KSPCG, cpuits, PETSC_FALSE, &us));
  PetscCall(PetscSNPrintf(what, sizeof(what), "cpu-cg-%dranks", (int)size));
  PetscCall(Record("cg", &P, what, us, BytesCSR(&P) + PETSC_CG_PASSES * (double)M * sizeof(PetscScalar), PETSC_FALSE));
  PetscCall(MatDestroy(&A));
  PetscCall(ProblemFree(&P));
  PetscFunctionReturn(0);
}

/* cggpu on the MPI device matrices, one GPU per process: the 2D Laplacian of an n x ny grid,
   its rows split evenly; the roofline is one GPU's bytes (its share of the matrix and of the
   vector passes) / B */
static PetscErrorCode RunLaplacianMPI(const char *section, PetscInt n, PetscInt ny, PetscInt cgits)
{
  const PetscInt M        = n * ny;
  const char    *types[2] = {MATMPIDIACUDA, MATMPIELLRCUDA}, *names[2] = {"diacuda", "ellrcuda"};
  PetscMPIInt    size;
  Problem        P;
  Mat            A;
  char           what[64];
  double         us;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MPILaplacian(2, n, ny, &P, &A));
  for (int t = 0; t < 2; t++) {
    const double vec = (double)M * sizeof(PetscScalar) / size;
    double       mat = BytesDIA(&P) / size;
    PetscBool    sc  = PETSC_FALSE;
    Mat          D;

    PetscCall(MatConvert(A, types[t], MAT_INITIAL_MATRIX, &D));
    if (t) {
      PetscCall(ShortColumns(D, &sc));
      mat = BytesELLRStep(&P, sc) / size;
    }
    /* the default; the same with the direction's ghosts sent GPU to GPU
       (-ksp_cggpu_device_halo); and with the sums through MPI_Allreduce on the host
       (-ksp_cggpu_device_sums 0), what the default replaces where every process has a GPU of its own */
    for (int v = 0; v < 3; v++) {
      const char *opt[3] = {NULL, "-bench_ksp_cggpu_device_halo", "-bench_ksp_cggpu_device_sums"}, *val[3] = {NULL, "1", "0"},
                 *suffix[3] = {"", "-devhalo", "-hostsums"};

      if (opt[v]) PetscCall(PetscOptionsSetValue(NULL, opt[v], val[v]));
      PetscCall(TimeCG(D, KSPCGGPU, cgits, PETSC_TRUE, &us));
      if (opt[v]) PetscCall(PetscOptionsClearValue(NULL, opt[v]));
      PetscCall(PetscSNPrintf(what, sizeof(what), "cggpu-%s-%dgpu%s", names[t], (int)size, suffix[v]));
      PetscCall(Record(section, &P, what, us, mat + GK_CGGPU_PASSES * vec, PETSC_TRUE));
    }
    { /* the default on the values stored in single precision: both blocks' products read 4 bytes a
         value (the residual replacements' double products, one for each tenfold fall, included) */
      const double single = mat - (t ? (double)P.nnz : (double)P.ndiag * P.m) * (sizeof(PetscScalar) - sizeof(float)) / size;

      PetscCall(MatGPUKitSetStorage(D, PETSCGPUKIT_STORAGE_SINGLE));
      PetscCall(TimeCG(D, KSPCGGPU, cgits, PETSC_TRUE, &us));
      PetscCall(MatGPUKitSetStorage(D, PETSCGPUKIT_STORAGE_DOUBLE));
      PetscCall(PetscSNPrintf(what, sizeof(what), "cggpu-%s-%dgpu-single", names[t], (int)size));
      PetscCall(Record(section, &P, what, us, single + GK_CGGPU_PASSES * vec, PETSC_TRUE));
    }
    PetscCall(MatDestroy(&D));
    if (size == 1) { /* one GPU the way one process runs by default: the sequential type */
      Mat S, Sd;

      PetscCall(SeqAIJ(&P, &S));
      PetscCall(MatConvert(S, t ? MATSEQELLRCUDA : MATSEQDIACUDA, MAT_INITIAL_MATRIX, &Sd));
      PetscCall(TimeCG(Sd, KSPCGGPU, cgits, PETSC_TRUE, &us));
      PetscCall(PetscSNPrintf(what, sizeof(what), "cggpu-%s-1gpu-seq", names[t]));
      PetscCall(Record(section, &P, what, us, mat + GK_CGGPU_PASSES * vec, PETSC_TRUE));
      PetscCall(MatDestroy(&Sd));
      PetscCall(MatDestroy(&S));
    }
  }
  PetscCall(MatDestroy(&A));
  PetscCall(ProblemFree(&P));
  PetscFunctionReturn(0);
}

/* time (us) to solve to rtol 1e-8 from a zero guess with b = 1, and the iterations, with the
   options given; the set-up (the PC's colouring or levels) is timed apart, and the matrix's
   device copy is made before either */
/* Clears the options a run inserted (PetscOptionsInsertString of opts) */
static PetscErrorCode ClearOptions(const char *opts)
{
  char buf[512], *tok;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(buf, opts, sizeof(buf)));
  for (tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
    if (tok[0] == '-') PetscCall(PetscOptionsClearValue(NULL, tok));
  PetscFunctionReturn(0);
}

/* Solves A x = b (b = 1, x_0 = 0) with the options opts: the solve's and the setup's times, the
   iterations, and ||b - Aref x|| / ||b|| (Aref: A's values in double precision) */
static PetscErrorCode TimeSolve(Mat A, Mat Aref, const char *opts, double *us, PetscInt *its, double *setup, double *truerel)
{
  KSP                ksp;
  Vec                x, b;
  PetscLogDouble     t0, t1, t2;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInsertString(NULL, opts)); /* the runs' options carry the prefix sb_ */
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(MatMult(A, b, x)); /* the matrix's device copy, made at its first product, is not timed */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 100000));
  PetscCall(KSPSetOptionsPrefix(ksp, "sb_"));
  PetscCall(KSPSetFromOptions(ksp));
  BenchCall(BenchSync());
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPSetUpOnBlocks(ksp));
  BenchCall(BenchSync());
  PetscCall(PetscTime(&t1));
  PetscCall(KSPSolve(ksp, b, x));
  BenchCall(BenchSync());
  PetscCall(PetscTime(&t2));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s: %s after %" PetscInt_FMT " iterations", opts, KSPConvergedReasons[reason],
             *its);
  *us    = 1e6 * (t2 - t1);
  *setup = 1e6 * (t1 - t0);
  {
    Vec       r, xr;
    PetscReal nr, nb;

    PetscCall(MatCreateVecs(Aref, &xr, &r));
    PetscCall(VecCopy(x, xr));
    PetscCall(MatMult(Aref, xr, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(VecNorm(b, NORM_2, &nb));
    *truerel = nr / nb;
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&xr));
  }
  PetscCall(ClearOptions(opts)); /* the next run sets only its own */
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

/* Time to solution: cggpu with none, jacobi and ssorgpu (Eisenstat's trick: natural
   and multicolor, of points and of blocks of 4 and 8 rows), PETSc's cg with ssorgpu's neumann variant, on the diacuda matrix */
static PetscErrorCode RunSSOR(PetscInt dim, PetscInt n, const char *only)
{
  const PetscInt M         = dim == 2 ? n * n : n * n * n;
  const char    *runs[][2] = {
    {"cggpu-none",                        "-sb_ksp_type cggpu -sb_pc_type none"                                                        },
    {"cggpu-jacobi",                      "-sb_ksp_type cggpu -sb_pc_type jacobi"                                                      },
    {"cggpu-ssor-multicolor-w1.0",
     "-sb_ksp_type cggpu -sb_pc_type ssorgpu -sb_pc_ssorgpu_type multicolor -sb_pc_ssorgpu_block_size 1 -sb_pc_ssorgpu_omega 1.0"      },
    {"cggpu-ssor-multicolor-w1.5",
     "-sb_ksp_type cggpu -sb_pc_type ssorgpu -sb_pc_ssorgpu_type multicolor -sb_pc_ssorgpu_block_size 1 -sb_pc_ssorgpu_omega 1.5"      },
    {"cggpu-ssor-multicolor-b4-w1.0",
     "-sb_ksp_type cggpu -sb_pc_type ssorgpu -sb_pc_ssorgpu_type multicolor -sb_pc_ssorgpu_block_size 4 -sb_pc_ssorgpu_omega 1.0"      },
    {"cggpu-ssor-multicolor-b8-w1.0",
     "-sb_ksp_type cggpu -sb_pc_type ssorgpu -sb_pc_ssorgpu_type multicolor -sb_pc_ssorgpu_block_size 8 -sb_pc_ssorgpu_omega 1.0"      },
    {"cggpu-ssor-natural-w1.9",           "-sb_ksp_type cggpu -sb_pc_type ssorgpu -sb_pc_ssorgpu_type natural -sb_pc_ssorgpu_omega 1.9"},
    {"cg-ssor-neumann2-w1.0",
     "-sb_ksp_type cg -sb_pc_type ssorgpu -sb_pc_ssorgpu_type neumann -sb_pc_ssorgpu_neumann_terms 2 -sb_pc_ssorgpu_omega 1.0"         },
    /* the sweeps reading L and U in single precision (-single: the matrix stored so) */
    {"cggpu-ssor-multicolor-w1.0-single",
     "-sb_ksp_type cggpu -sb_pc_type ssorgpu -sb_pc_ssorgpu_type multicolor -sb_pc_ssorgpu_block_size 1 -sb_pc_ssorgpu_omega 1.0"      },
    {"cg-ssor-neumann2-w1.0-single",
     "-sb_ksp_type cg -sb_pc_type ssorgpu -sb_pc_ssorgpu_type neumann -sb_pc_ssorgpu_neumann_terms 2 -sb_pc_ssorgpu_omega 1.0"         },
    /* to ||b - A x|| <= 1e-8 ||b||, the values stored in double and in single precision (-single) */
    {"cggpu-jacobi-true",                 "-sb_ksp_type cggpu -sb_pc_type jacobi -sb_ksp_norm_type unpreconditioned"                   },
    {"cggpu-jacobi-single-true",          "-sb_ksp_type cggpu -sb_pc_type jacobi -sb_ksp_norm_type unpreconditioned"                   },
  };
  Problem P;
  Mat     A, D;
  char    what[96];

  PetscFunctionBegin;
  PetscCall(Laplacian(dim, n, 0, 0, M, &P));
  PetscCall(SeqAIJ(&P, &A));
  PetscCall(MatConvert(A, MATSEQDIACUDA, MAT_INITIAL_MATRIX, &D));
  for (size_t r = 0; r < PETSC_STATIC_ARRAY_LENGTH(runs); r++) {
    double   us = 0.0, setup = 0.0, truerel = 0.0;
    PetscInt its;

    if (only[0] && !strstr(runs[r][0], only)) continue;
    PetscCall(MatGPUKitSetStorage(D, strstr(runs[r][0], "-single") ? PETSCGPUKIT_STORAGE_SINGLE : PETSCGPUKIT_STORAGE_DOUBLE));
    PetscCall(TimeSolve(D, A, runs[r][1], &us, &its, &setup, &truerel));
    /* single storage converges on the true residual alone; double storage on its recursive one, a little away */
    PetscCheck(!strstr(runs[r][0], "-single-true") || truerel <= 1e-8, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: true residual %g above 1e-8",
               runs[r][0], (double)truerel);
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s its=%d setup_us=%.0f true=%.2e", runs[r][0], (int)its, setup, truerel));
    PetscCall(Record("ssor", &P, what, us, 0.0, PETSC_FALSE));
  }
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscCall(ProblemFree(&P));
  PetscFunctionReturn(0);
}

/* reps applications of pc timed after one synchronization: the mean time (us), launches and bytes */
static PetscErrorCode TimeApplies(PC pc, Vec b, Vec x, int reps, double *us, double *launches, double *bytes)
{
  PetscLogDouble          t0, t1;
  PetscGPUKitDeviceCounts c0, c1;

  PetscFunctionBegin;
  BenchCall(BenchSync());
  PetscCall(PetscGPUKitGetDeviceCounts(&c0));
  PetscCall(PetscTime(&t0));
  for (int k = 0; k < reps; k++) PetscCall(PCApply(pc, b, x));
  BenchCall(BenchSync());
  PetscCall(PetscTime(&t1));
  PetscCall(PetscGPUKitGetDeviceCounts(&c1));
  *us       = 1e6 * (t1 - t0) / reps;
  *launches = (double)(c1.launches - c0.launches) / reps;
  *bytes    = (double)(c1.bytes - c0.bytes) / reps;
  PetscFunctionReturn(0);
}

/* reps products y = M x (or M^T x: the restriction, with transpose) of a level's matrix, timed after one, as a
   vcycle-level row of level l of problem: its time, and the bytes the library counted for it */
static PetscErrorCode TimeLevelProduct(Mat M, PetscBool transpose, const char *problem, PetscInt l, const char *pcname, const char *what, int reps)
{
  Vec                     x, y;
  PetscLogDouble          t0, t1;
  PetscGPUKitDeviceCounts c0, c1;
  Problem                 L = {{0}};
  char                    label[128];

  PetscFunctionBegin;
  if (transpose) PetscCall(MatCreateVecs(M, &y, &x));
  else PetscCall(MatCreateVecs(M, &x, &y));
  PetscCall(VecSet(x, 1.0));
  if (transpose) PetscCall(MatMultTranspose(M, x, y));
  else PetscCall(MatMult(M, x, y));
  BenchCall(BenchSync());
  PetscCall(PetscGPUKitGetDeviceCounts(&c0));
  PetscCall(PetscTime(&t0));
  for (int k = 0; k < reps; k++) {
    if (transpose) PetscCall(MatMultTranspose(M, x, y));
    else PetscCall(MatMult(M, x, y));
  }
  BenchCall(BenchSync());
  PetscCall(PetscTime(&t1));
  PetscCall(PetscGPUKitGetDeviceCounts(&c1));
  PetscCall(PetscSNPrintf(L.name, sizeof(L.name), "%s-l%d", problem, (int)l));
  PetscCall(VecGetSize(y, &L.m));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s level %d %s", pcname, (int)l, what));
  PetscCall(Record("vcycle-level", &L, label, 1e6 * (t1 - t0) / reps, (double)(c1.bytes - c0.bytes) / reps, PETSC_TRUE));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

/* One V-cycle (PCApply) of a set-up preconditioner: its time, and the bytes and launches the
   library counted for it (PetscGPUKitDeviceCounts), each the mean of reps cycles after a solve
   that set everything up (the Chebyshev estimates included). The roofline is bytes / B: the
   sum over the levels of their products' and vector operations' rooflines (the coarsest
   solve's host work and copies add time, no bytes). */
static PetscErrorCode RunVCycle(PetscInt dim, PetscInt n, const char *name, const char *opts)
{
  DM        da;
  KSP       ksp;
  PC        pc;
  Vec       x, b;
  PetscInt  its, levels = 0;
  const int reps = 20;
  char      what[128];
  Problem   P = {{0}};
  double    us, nl, nb;

  PetscFunctionBegin;
  { /* -vcycle_runs: one cycle alone, for a kernel trace of it (bench/trace) */
    char only[64] = "", tag[64];

    PetscCall(PetscOptionsGetString(NULL, NULL, "-vcycle_runs", only, sizeof(only), NULL));
    PetscCall(PetscSNPrintf(tag, sizeof(tag), "%dd-%s", (int)dim, name));
    if (only[0] && !strstr(tag, only)) PetscFunctionReturn(0);
  }
  PetscCall(PetscOptionsInsertString(NULL, opts)); /* the runs' options carry the prefix vc_ */
  if (dim == 2)
    PetscCall(
      DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE,
                           PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetMatType(da, MATELLRCUDA));
  PetscCall(DMSetVecType(da, VECCUDA));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetComputeOperators(ksp, VCycleOperator, NULL));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetOptionsPrefix(ksp, "vc_"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCMGGetLevels(pc, &levels));
  PetscCall(PCApply(pc, b, x));
  PetscCall(TimeApplies(pc, b, x, reps, &us, &nl, &nb));
  PetscCall(PetscSNPrintf(P.name, sizeof(P.name), "%dd-%d", (int)dim, (int)n));
  P.m = dim == 2 ? n * n : n * n * n;
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s levels=%d its=%d launches=%.0f", name, (int)levels, (int)its, nl));
  PetscCall(Record("vcycle", &P, what, us, nb, PETSC_TRUE));
  { /* the same cycle replayed from a CUDA graph, as cggpu applies it (PCGPUKitSetGraph): applied
       until one application is a replay (the first ones are seen, and may do once what later ones
       do not, then one is recorded: pcgraph.c), then the timed ones, when all of them were replays */
    PetscInt r0 = 0, r1;

    PetscCall(PCGPUKitSetGraph(pc, PETSC_TRUE));
    for (int k = 0; k < 4 && !r0; k++) {
      PetscCall(PCApply(pc, b, x));
      PetscCall(PCGPUKitGetGraphReplays(pc, &r0));
    }
    PetscCall(TimeApplies(pc, b, x, reps, &us, &nl, &nb));
    PetscCall(PCGPUKitGetGraphReplays(pc, &r1));
    PetscCall(PCGPUKitSetGraph(pc, PETSC_FALSE));
    if (r1 - r0 == reps) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s+graph levels=%d its=%d launches=%.0f", name, (int)levels, (int)its, nl));
      PetscCall(Record("vcycle", &P, what, us, nb, PETSC_TRUE));
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: not replayed as a graph (-info says why)\n", name));
  }
  for (PetscInt l = levels - 1; l > 0;
       l--) { /* each level's product, the cycle's largest single cost (the coarsest is the host's), and its transfers */
    KSP smoother;
    Mat Al, Pl;

    PetscCall(PCMGGetSmoother(pc, l, &smoother));
    PetscCall(KSPGetOperators(smoother, &Al, NULL));
    PetscCall(TimeLevelProduct(Al, PETSC_FALSE, P.name, l, name, "MatMult", reps));
    PetscCall(PCMGGetInterpolation(pc, l, &Pl));
    PetscCall(TimeLevelProduct(Pl, PETSC_FALSE, P.name, l, name, "interpolation", reps));
    PetscCall(TimeLevelProduct(Pl, PETSC_TRUE, P.name, l, name, "restriction", reps));
  }
  PetscCall(ClearOptions(opts)); /* the next run sets only its own */
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunVCycles(void)
{
  PetscFunctionBegin;
  { /* the floor under a small level: the time of one small vector operation, launch and all */
    Vec            x, y;
    PetscLogDouble t0, t1;
    const int      reps = 2000;

    PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
    PetscCall(VecSetSizes(x, PETSC_DECIDE, 1000));
    PetscCall(VecSetType(x, VECCUDA));
    PetscCall(VecDuplicate(x, &y));
    PetscCall(VecSet(x, 1.0));
    PetscCall(VecSet(y, 1.0));
    PetscCall(VecAXPY(y, 1e-3, x)); /* the device's start-up waited for here, not in the loop (VecSet waits for nothing) */
    BenchCall(BenchSync());
    PetscCall(PetscTime(&t0));
    for (int k = 0; k < reps; k++) PetscCall(VecAXPY(y, 1e-3, x));
    BenchCall(BenchSync());
    PetscCall(PetscTime(&t1));
    PetscCall(Record("vcycle-floor", NULL, "VecAXPY n=1000", 1e6 * (t1 - t0) / reps, 0.0, PETSC_FALSE));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(RunVCycle(2, 2049, "mg(cheb/jacobi)", "-vc_ksp_type cg -vc_pc_type mg -vc_pc_mg_levels 8 -vc_mg_levels_pc_type jacobi"));
  PetscCall(RunVCycle(2, 2049, "gamg", "-vc_ksp_type cg -vc_pc_type gamg"));
  PetscCall(RunVCycle(3, 129, "mg(cheb/jacobi)", "-vc_ksp_type cg -vc_pc_type mg -vc_pc_mg_levels 6 -vc_mg_levels_pc_type jacobi"));
  PetscCall(RunVCycle(3, 129, "gamg", "-vc_ksp_type cg -vc_pc_type gamg"));
  /* the hierarchies below the finest level in single-precision storage (PCMG reads the option
     under its DM's prefix, which is none here; GAMG under the PC's) */
  PetscCall(RunVCycle(2, 2049, "mg(cheb/jacobi)(single)",
                      "-vc_ksp_type cg -vc_pc_type mg -vc_pc_mg_levels 8 -vc_mg_levels_pc_type jacobi -pc_mg_gpukit_storage single"));
  PetscCall(RunVCycle(2, 2049, "gamg(single)", "-vc_ksp_type cg -vc_pc_type gamg -vc_pc_mg_gpukit_storage single"));
  PetscCall(RunVCycle(3, 129, "mg(cheb/jacobi)(single)",
                      "-vc_ksp_type cg -vc_pc_type mg -vc_pc_mg_levels 6 -vc_mg_levels_pc_type jacobi -pc_mg_gpukit_storage single"));
  PetscCall(RunVCycle(3, 129, "gamg(single)", "-vc_ksp_type cg -vc_pc_type gamg -vc_pc_mg_gpukit_storage single"));
  PetscFunctionReturn(0);
}

/* irregular rows: sliced (and sorted) ELLPACK-R against cuSPARSE CSR */
static PetscErrorCode RunPowerLaw(PetscInt m, PetscInt only)
{
  const PetscInt heights[] = {0, 32, 32, 32}, windows[] = {0, 0, 1024, 65536};
  const double   vec = (double)m * sizeof(PetscScalar);
  Problem        P;
  Mat            A;
  char           what[64];
  double         us, spmv, cg, rn, stored;
  PetscInt       nwide;
  PetscScalar   *ones;

  PetscFunctionBegin;
  PetscCheck(only >= -1 && only < (PetscInt)(sizeof(heights) / sizeof(heights[0])), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-powerlaw_only must be -1 (all) or a variant from 0 to %d, not %" PetscInt_FMT, (int)(sizeof(heights) / sizeof(heights[0])) - 1, only);
  PetscCall(PowerLaw(m, &P));
  PetscCall(SeqAIJ(&P, &A));
  PetscCall(StoredELLR(&P, 0, 0, &stored, &nwide));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: %" PetscInt_FMT " nonzeros, %.2f a row, longest %" PetscInt_FMT "\n", P.name, P.nnz,
                        (double)P.nnz / m, (PetscInt)(stored / m)));
  for (size_t k = 0; k < sizeof(heights) / sizeof(heights[0]); k++) {
    const PetscBool sorted = windows[k] > 1 ? PETSC_TRUE : PETSC_FALSE;
    PetscBool       sc     = PETSC_FALSE;
    double          bytes;
    Mat             E;

    if (only >= 0 && (PetscInt)k != only) continue;
    if (sorted) PetscCall(PetscSNPrintf(what, sizeof(what), "ellrcuda-h%d-sort%d", (int)heights[k], (int)windows[k]));
    else PetscCall(PetscSNPrintf(what, sizeof(what), "ellrcuda-h%d", (int)heights[k]));
    PetscCall(StoredELLR(&P, heights[k], windows[k], &stored, &nwide));
    if (stored > 4.0 * P.nnz) { /* the default fill limit refuses it */
      PetscCall(Record("storage", &P, what, 0.0, ArraysELLR(&P, heights[k], sorted, PETSC_FALSE, stored, nwide), PETSC_FALSE));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: %.1fx the nonzeros stored, over the fill limit: not run\n", what, stored / P.nnz));
      continue;
    }
    PetscCall(MatConvert(A, MATSEQELLRCUDA, MAT_INITIAL_MATRIX, &E));
    PetscCall(MatELLRCUDASetSliceHeight(E, heights[k]));
    PetscCall(MatELLRCUDASetSortWindow(E, windows[k]));
    PetscCall(ShortColumns(E, &sc));
    PetscCall(Record("storage", &P, what, 0.0, ArraysELLR(&P, heights[k], sorted, sc, stored, nwide), PETSC_FALSE));
    bytes = BytesELLR(&P, heights[k], sorted, sc, nwide) + 2 * vec;
    PetscCall(TimeMult(E, bytes, &us));
    PetscCall(Record("powerlaw", &P, what, us, bytes, PETSC_TRUE));
    PetscCall(MatDestroy(&E));
  }
  PetscCall(Record("storage", &P, "csr", 0.0, BytesCSR(&P), PETSC_FALSE));
  if (only >= 0) { /* one variant alone (to profile it): no cuSPARSE */
    PetscCall(MatDestroy(&A));
    PetscCall(ProblemFree(&P));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc1(m, &ones));
  for (PetscInt i = 0; i < m; i++) ones[i] = 1.0;
  BenchCall(BenchCuSparse((int)m, (int)P.nnz, P.rowptr, P.col, P.val, ones, 200, 0, &spmv, &cg, &rn));
  PetscCall(PetscFree(ones));
  PetscCall(Record("powerlaw", &P, "cusparse-csr", spmv, BytesCSR(&P) + 2 * vec, PETSC_TRUE));
  PetscCall(MatDestroy(&A));
  PetscCall(ProblemFree(&P));
  PetscFunctionReturn(0);
}

/* One MatSetValuesCOO() of a matrix of type, preallocated from the COO lists (ci, cj, nc), from
   host values or a device vector's array: the mean of reps after one, device waited for */
static PetscErrorCode TimeCOO(MatType type, PetscInt m, PetscCount nc, PetscInt *ci, PetscInt *cj, const PetscScalar *v, PetscBool device,
                              PetscInt reps, double *us)
{
  Mat                A;
  Vec                dv = NULL;
  const PetscScalar *d  = v;
  PetscInt          *ti, *tj;
  PetscLogDouble     t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(nc, &ti, nc, &tj)); /* MatSetPreallocationCOO() may reorder them */
  PetscCall(PetscArraycpy(ti, ci, nc));
  PetscCall(PetscArraycpy(tj, cj, nc));
  PetscCall(MatCreate(PETSC_COMM_SELF, &A));
  PetscCall(MatSetSizes(A, m, m, m, m));
  PetscCall(MatSetType(A, type));
  PetscCall(MatSetPreallocationCOO(A, nc, ti, tj));
  PetscCall(PetscFree2(ti, tj));
  if (device) {
    PetscScalar *a;

    PetscCall(VecCreate(PETSC_COMM_SELF, &dv));
    PetscCall(VecSetSizes(dv, nc, nc));
    PetscCall(VecSetType(dv, VECGKCUDA));
    PetscCall(VecGetArrayWrite(dv, &a));
    PetscCall(PetscArraycpy(a, v, nc));
    PetscCall(VecRestoreArrayWrite(dv, &a));
    PetscCall(VecGPUKitGetDeviceArrayRead(dv, &d));
  }
  PetscCall(MatSetValuesCOO(A, d, INSERT_VALUES)); /* the first builds the device copy */
  BenchCall(BenchSync());
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(MatSetValuesCOO(A, d, INSERT_VALUES));
  BenchCall(BenchSync());
  PetscCall(PetscTime(&t1));
  *us = (t1 - t0) * 1e6 / reps;
  if (dv) PetscCall(VecGPUKitRestoreDeviceArrayRead(dv, &d));
  PetscCall(VecDestroy(&dv));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* COO assembly: the 5-point or 7-point Laplacian as an assembly gives it, each
   diagonal entry in two halves (a repeated pair, summed), into SEQAIJ on the host (PETSc's own
   path, one core) and into the device types from host and from device values. Bytes: what the
   device's sum moves (the lists, the entries, the sums) and, from host values, the host copy's
   values (one copy down; from device values the host values are left behind, and nothing is
   copied); the roofline is that over B, so a copy over PCIe shows as the gap. */
static PetscErrorCode RunCOO(PetscInt dim, PetscInt n)
{
  Problem        P;
  PetscInt      *ci, *cj;
  PetscScalar   *v;
  PetscCount     nc   = 0;
  double         us   = 0.0;
  const PetscInt reps = 10;
  struct {
    MatType     type;
    PetscBool   device;
    const char *what;
  } runs[] = {
    {MATSEQAIJ,      PETSC_FALSE, "coo aij host-values"       },
    {MATSEQELLRCUDA, PETSC_FALSE, "coo ellrcuda host-values"  },
    {MATSEQELLRCUDA, PETSC_TRUE,  "coo ellrcuda device-values"},
    {MATSEQDIACUDA,  PETSC_TRUE,  "coo diacuda device-values" },
  };

  PetscFunctionBegin;
  PetscCall(Laplacian(dim, n, 0, 0, dim == 2 ? n * n : n * n * n, &P));
  PetscCall(PetscMalloc3(P.nnz + P.m, &ci, P.nnz + P.m, &cj, P.nnz + P.m, &v));
  for (PetscInt i = 0; i < P.m; i++)
    for (PetscInt k = P.rowptr[i]; k < P.rowptr[i + 1]; k++) {
      const PetscBool diag = P.col[k] == i ? PETSC_TRUE : PETSC_FALSE;

      for (PetscInt h = 0; h < (diag ? 2 : 1); h++, nc++) {
        ci[nc] = i;
        cj[nc] = P.col[k];
        v[nc]  = diag ? P.val[k] / 2 : P.val[k];
      }
    }
  for (size_t r = 0; r < PETSC_STATIC_ARRAY_LENGTH(runs); r++) {
    const double S     = sizeof(PetscScalar),
                 bytes = (double)sizeof(PetscCount) * (P.nnz + 1 + nc) + S * (nc + P.nnz) + (runs[r].device ? 0.0 : S * P.nnz);
    char         what[64];
    PetscBool    aij;

    PetscCall(TimeCOO(runs[r].type, P.m, nc, ci, cj, v, runs[r].device, reps, &us));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s entries=%" PetscCount_FMT, runs[r].what, nc));
    PetscCall(PetscStrcmp(runs[r].type, MATSEQAIJ, &aij));
    PetscCall(Record("coo", &P, what, us, bytes, aij ? PETSC_FALSE : PETSC_TRUE));
  }
  PetscCall(PetscFree3(ci, cj, v));
  PetscCall(ProblemFree(&P));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt               grids2d[8] = {256, 512, 1024, 2048, 4096}, n2 = 8, grids3d[8] = {128, 256}, n3 = 8;
  PetscInt               cgits = 400, cpuits = 10, plrows = 2097152, plonly = -1, weak = 2048, strong = 4096;
  char                   mode[16] = "gpu", file[PETSC_MAX_PATH_LEN] = "", dev[256], only[64] = "";
  PetscBool              gpu, cpu, mpi, ssor, vcycle, coo, set;
  PetscMPIInt            size, rank;
  PetscGPUKitBackendType backend;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "petsc-gpukit benchmarks", NULL);
  PetscCall(PetscOptionsString("-mode", "gpu, cpu, mpi, ssor, vcycle or coo", NULL, mode, mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsInt("-weak", "mpi: n x (n P) grid on P processes", NULL, weak, &weak, NULL));
  PetscCall(PetscOptionsInt("-strong", "mpi: n x n grid", NULL, strong, &strong, NULL));
  PetscCall(PetscOptionsString("-csv", "append the results to this file", NULL, file, file, sizeof(file), NULL));
  PetscCall(PetscOptionsIntArray("-grids2d", "2D grids n (n x n)", NULL, grids2d, &n2, &set));
  if (!set) n2 = 5;
  if (!set && !strcmp(mode, "coo")) { /* ex50's sizes */
    grids2d[0] = 2049;
    n2         = 1;
  }
  if (!set && !strcmp(mode, "ssor")) { /* the SSOR benchmark's sizes */
    grids2d[0] = 2048;
    n2         = 1;
  }
  PetscCall(PetscOptionsIntArray("-grids3d", "3D grids n (n^3)", NULL, grids3d, &n3, &set));
  if (!set) n3 = 2;
  if (!set && !strcmp(mode, "ssor")) {
    grids3d[0] = 160;
    n3         = 1;
  }
  if (!set && !strcmp(mode, "coo")) { /* ex45's */
    grids3d[0] = 129;
    n3         = 1;
  }
  PetscCall(PetscOptionsInt("-cg_its", "CG iterations timed on the GPU", NULL, cgits, &cgits, NULL));
  PetscCall(PetscOptionsInt("-cpu_its", "CG iterations timed on the CPU", NULL, cpuits, &cpuits, NULL));
  PetscCall(PetscOptionsString("-ssor_runs", "ssor: only the runs whose names contain this (none, jacobi, multicolor, natural, neumann)", NULL, only,
                               only, sizeof(only), NULL));
  PetscCall(PetscOptionsInt("-powerlaw_rows", "rows of the power-law matrices (0: none)", NULL, plrows, &plrows, NULL));
  PetscCall(PetscOptionsInt("-powerlaw_only", "run only this ELLPACK-R variant of the power-law matrices, 0 to 3, and not cuSPARSE (-1: all)", NULL,
                            plonly, &plonly, NULL));
  PetscOptionsEnd();
  PetscCall(PetscStrcmp(mode, "gpu", &gpu));
  PetscCall(PetscStrcmp(mode, "cpu", &cpu));
  PetscCall(PetscStrcmp(mode, "mpi", &mpi));
  PetscCall(PetscStrcmp(mode, "ssor", &ssor));
  PetscCall(PetscStrcmp(mode, "vcycle", &vcycle));
  PetscCall(PetscStrcmp(mode, "coo", &coo));
  PetscCheck(gpu || cpu || mpi || ssor || vcycle || coo, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-mode is gpu, cpu, mpi, ssor, vcycle or coo, not %s",
             mode);
  if (file[0] && !rank) {
    csv = fopen(file, "a");
    PetscCheck(csv, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot append to %s", file);
  }
  if (cpu) {
    for (PetscInt k = 0; k < n2; k++)
      if (grids2d[k] > 0) PetscCall(RunLaplacianCPU(2, grids2d[k], cpuits));
    for (PetscInt k = 0; k < n3; k++)
      if (grids3d[k] > 0) PetscCall(RunLaplacianCPU(3, grids3d[k], cpuits));
  } else {
    double gm, gk;
    int    device;

    PetscCheck(size == 1 || mpi, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-mode %s runs on one MPI process", mode);
    PetscCall(PetscGPUKitInitializePackage());
    PetscCall(PetscGPUKitGetBackend(&backend));
    PetscCheck(backend == PETSCGPUKIT_BACKEND_CUDA, PETSC_COMM_WORLD, PETSC_ERR_SUP_SYS,
               "the benchmarks need a CUDA GPU, and petsc-gpukit found none (it chose its host backend): run make bench on a machine with an NVIDIA "
               "GPU");
    PetscCall(PetscGPUKitGetDevice(&device));
    BenchCall(BenchSetDevice(device)); /* the baseline's CUDA runtime on the library's device */
    BenchCall(BenchDeviceName(dev, sizeof(dev)));
    BenchCall(BenchCopyBandwidth((size_t)1 << 30, 10, &B, &gm, &gk));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &B, 1, MPI_DOUBLE, MPI_MIN, PETSC_COMM_WORLD)); /* the slowest GPU's */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  device %s: copy bandwidth B = %.0f GB/s (cudaMemcpy %.0f, copy kernel %.0f)\n", dev, B, gm, gk));
    if (csv) fprintf(csv, "device,-,0,0,%s,,,,,\n", dev);
    if (vcycle) {
      PetscCall(Record("vcycle-copy", NULL, "copy-bandwidth", 2.0 * (1 << 30) / (B * 1e3), 2.0 * (1 << 30), PETSC_TRUE));
      PetscCall(RunVCycles());
      if (csv) fclose(csv);
      PetscCall(PetscFinalize());
      return 0;
    }
    if (coo) { /* COO assembly: 2D 2049^2 and 3D 129^3 unless given */
      PetscCall(Record("coo-copy", NULL, "copy-bandwidth", 2.0 * (1 << 30) / (B * 1e3), 2.0 * (1 << 30), PETSC_TRUE));
      for (PetscInt k = 0; k < n2; k++)
        if (grids2d[k] > 0) PetscCall(RunCOO(2, grids2d[k]));
      for (PetscInt k = 0; k < n3; k++)
        if (grids3d[k] > 0) PetscCall(RunCOO(3, grids3d[k]));
      if (csv) fclose(csv);
      PetscCall(PetscFinalize());
      return 0;
    }
    if (ssor) { /* time to solution: 2D 2048^2 and 3D 160^3 unless given */
      for (PetscInt k = 0; k < (n2 ? n2 : 0); k++)
        if (grids2d[k] > 0) PetscCall(RunSSOR(2, grids2d[k], only));
      for (PetscInt k = 0; k < (n3 ? n3 : 0); k++)
        if (grids3d[k] > 0) PetscCall(RunSSOR(3, grids3d[k], only));
      if (csv) fclose(csv);
      PetscCall(PetscFinalize());
      return 0;
    }
    if (mpi) {
      PetscCall(Record("mpi-copy", NULL, "copy-bandwidth", 2.0 * (1 << 30) / (B * 1e3), 2.0 * (1 << 30), PETSC_TRUE));
      if (weak > 0) PetscCall(RunLaplacianMPI("mpi-weak", weak, weak * size, cgits));
      if (strong > 0) PetscCall(RunLaplacianMPI("mpi-strong", strong, strong, cgits));
      if (csv) fclose(csv);
      PetscCall(PetscFinalize());
      return 0;
    }
    PetscCall(Record("copy", NULL, "copy-bandwidth", 2.0 * (1 << 30) / (B * 1e3), 2.0 * (1 << 30), PETSC_TRUE));
    for (PetscInt k = 0; k < n2; k++)
      if (grids2d[k] > 0) PetscCall(RunLaplacianGPU(2, grids2d[k], cgits, cpuits));
    for (PetscInt k = 0; k < n3; k++)
      if (grids3d[k] > 0) PetscCall(RunLaplacianGPU(3, grids3d[k], cgits, cpuits));
    if (plrows > 0) PetscCall(RunPowerLaw(plrows, plonly));
  }
  if (csv) fclose(csv);
  PetscCall(PetscFinalize());
  return 0;
}
