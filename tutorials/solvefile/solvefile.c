static char help[] = "Solves A x = b for a matrix read from a file, with the matrix type, Krylov method and preconditioner\n\
the options choose; prints the iterations, whether the residual and error are small, and (-timing) the\n\
time. b = A x* for x*_i = 1 + sin(0.37 i)/2, so that the solution is known. A plain PETSc program: the GPU types come from loading\n\
petsc-gpukit at run time, -dll_append /path/to/libpetscgpukit.so -mat_type ellrcuda (the vectors, from\n\
MatCreateVecs(), are then the matrix's device vectors).\n\
Options:\n\
  -f <file>               : a matrix in PETSc's binary format\n\
  -mm <file>              : a matrix in Matrix Market coordinate format (real, complex or pattern;\n\
                            general, symmetric or hermitian)\n\
  -write_wathen <nx,ny>   : first write Wathen's finite-element matrix of an nx x ny grid of elements\n\
                            (Wathen 1987; random densities, seeded) to -o <file>: Matrix Market when\n\
                            the name ends in .mtx, else PETSc binary\n\
  -save <file>            : write the matrix read in PETSc's binary format\n\
  -timing                 : print the solve's time (not stable across machines)\n\
  -residual_aij           : the residual printed, |b - A x|, with PETSc's AIJ copy of A (its host values,\n\
                            whatever precision the matrix type's own products read)\n\n";

#include <petscksp.h>
#include <errno.h>

/* Wathen's matrix (as MATLAB's gallery('wathen', nx, ny)): the 8-node serendipity elements'
   mass matrix, each element's scaled by a density in (0, 100) from a seeded generator; SPD,
   3 nx ny + 2 nx + 2 ny + 1 rows. Written by process 0 as a symmetric Matrix Market file
   (the lower triangle) or, through an AIJ matrix, in PETSc's binary format. */
static PetscErrorCode WriteWathen(PetscInt nx, PetscInt ny, const char *file)
{
  static const PetscReal e1[4][4] = {
    {6,  -6, 2,  -8},
    {-6, 32, -6, 20},
    {2,  -6, 6,  -6},
    {-8, 20, -6, 32}
  };
  static const PetscReal e2[4][4] = {
    {3,  -8, 2,  -6},
    {-8, 16, -8, 20},
    {2,  -8, 3,  -8},
    {-6, 20, -8, 16}
  };
  const PetscInt     n = 3 * nx * ny + 2 * nx + 2 * ny + 1;
  PetscReal          em[8][8];
  unsigned long long seed = 20240601ull;
  Mat                W;
  size_t             len;
  PetscMPIInt        rank;

  PetscFunctionBegin;
  for (int r = 0; r < 8; r++)
    for (int c = 0; c < 8; c++) em[r][c] = (r < 4 ? (c < 4 ? e1[r][c] : e2[r][c - 4]) : (c < 4 ? e2[c][r - 4] : e1[r - 4][c - 4])) / 45.0;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 21, NULL, &W)); /* a corner node couples to 21 */
  PetscCall(MatSetOption(W, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt j = 1; j <= ny; j++)
    for (PetscInt i = 1; i <= nx; i++) {
      PetscInt  nn[8];
      PetscReal rho;

      seed  = seed * 6364136223846793005ull + 1442695040888963407ull;
      rho   = 100.0 * (PetscReal)(seed >> 11) / 9007199254740992.0;
      nn[0] = 3 * j * nx + 2 * i + 2 * j + 1;
      nn[1] = nn[0] - 1;
      nn[2] = nn[1] - 1;
      nn[3] = (3 * j - 1) * nx + 2 * j + i - 1;
      nn[4] = 3 * (j - 1) * nx + 2 * i + 2 * j - 3;
      nn[5] = nn[4] + 1;
      nn[6] = nn[5] + 1;
      nn[7] = nn[3] + 1;
      for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) PetscCall(MatSetValue(W, nn[r] - 1, nn[c] - 1, rho * em[r][c], ADD_VALUES));
    }
  PetscCall(MatAssemblyBegin(W, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(W, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscStrlen(file, &len));
  if (len > 4 && !strcmp(file + len - 4, ".mtx")) {
    if (!rank) {
      FILE    *fp  = fopen(file, "w");
      PetscInt nnz = 0;

      PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", file);
      for (PetscInt r = 0; r < n; r++) {
        PetscInt        nc;
        const PetscInt *cols;

        PetscCall(MatGetRow(W, r, &nc, &cols, NULL));
        for (PetscInt k = 0; k < nc; k++) nnz += cols[k] <= r;
        PetscCall(MatRestoreRow(W, r, &nc, &cols, NULL));
      }
      fprintf(fp,
              "%%%%MatrixMarket matrix coordinate real symmetric\n%% Wathen's matrix, %d x %d elements (petsc-gpukit tutorials/solvefile)\n%d %d "
              "%d\n",
              (int)nx, (int)ny, (int)n, (int)n, (int)nnz);
      for (PetscInt r = 0; r < n; r++) {
        PetscInt           nc;
        const PetscInt    *cols;
        const PetscScalar *vals;

        PetscCall(MatGetRow(W, r, &nc, &cols, &vals));
        for (PetscInt k = 0; k < nc; k++)
          if (cols[k] <= r) fprintf(fp, "%d %d %.17g\n", (int)r + 1, (int)cols[k] + 1, (double)PetscRealPart(vals[k]));
        PetscCall(MatRestoreRow(W, r, &nc, &cols, &vals));
      }
      fclose(fp);
    }
  } else {
    PetscViewer v;

    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_WRITE, &v));
    if (!rank) PetscCall(MatView(W, v));
    PetscCall(PetscViewerDestroy(&v));
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "wrote Wathen's matrix of %d x %d elements (%d rows) to %s\n", (int)nx, (int)ny, (int)n, file));
  PetscCall(MatDestroy(&W));
  PetscFunctionReturn(0);
}

/* The count integers at the start of line (64-bit: a size beyond PetscInt is refused, not wrapped);
   *rest points past them. False if the line has fewer, or one is out of long long's range. */
static PetscBool ReadIntegers(const char *line, int count, long long *v, const char **rest)
{
  const char *p = line;

  for (int k = 0; k < count; k++) {
    char *e;

    errno = 0;
    v[k]  = strtoll(p, &e, 10);
    if (e == p || errno == ERANGE) return PETSC_FALSE;
    p = e;
  }
  *rest = p;
  return PETSC_TRUE;
}

/* Whether nothing but blanks is left of a line */
static PetscBool Blank(const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
  return *p ? PETSC_FALSE : PETSC_TRUE;
}

/* A Matrix Market coordinate file into A (type from the options): process 0 reads every entry
   (a symmetric file's mirrored too) and gives them all to MatSetPreallocationCOO() and
   MatSetValuesCOO(), which send each to its owner and sum repeated ones: the matrix is allocated
   once, whatever its rows' lengths (entry by entry into a matrix with no preallocation, a
   process's rows would grow one reallocation at a time). Every departure from the format is an
   error naming the line: sizes beyond PetscInt, indices outside the matrix, entries missing or
   beyond the count announced, values that are not numbers. */
static PetscErrorCode ReadMatrixMarket(const char *file, Mat *A)
{
  PetscMPIInt  rank;
  PetscInt     dims[3] = {0, 0, 0};
  char         line[1024], field[32] = "", sym[32] = "";
  FILE        *fp        = NULL;
  PetscBool    symmetric = PETSC_FALSE, hermitian = PETSC_FALSE;
  int          nvalues = 1;
  PetscInt    *ci = NULL, *cj = NULL, n = 0, cap;
  PetscScalar *cv = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) {
    char        obj[32], fmt[32];
    long long   size[3];
    const char *rest;

    fp = fopen(file, "r");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open the Matrix Market file %s", file);
    PetscCheck(fgets(line, sizeof(line), fp) && sscanf(line, "%%%%MatrixMarket %31s %31s %31s %31s", obj, fmt, field, sym) == 4, PETSC_COMM_SELF,
               PETSC_ERR_FILE_UNEXPECTED, "%s: no %%%%MatrixMarket header", file);
    PetscCheck(!strcmp(obj, "matrix") && !strcmp(fmt, "coordinate"), PETSC_COMM_SELF, PETSC_ERR_SUP,
               "%s: only coordinate matrices are read, not %s %s", file, obj, fmt);
    PetscCheck(!strcmp(field, "real") || !strcmp(field, "complex") || !strcmp(field, "pattern") || !strcmp(field, "integer"), PETSC_COMM_SELF,
               PETSC_ERR_SUP, "%s: the field %s is not read (real, complex, integer or pattern)", file, field);
    PetscCheck(!strcmp(sym, "general") || !strcmp(sym, "symmetric") || !strcmp(sym, "hermitian"), PETSC_COMM_SELF, PETSC_ERR_SUP,
               "%s: the symmetry %s is not read (general, symmetric or hermitian)", file, sym);
    PetscCheck(PetscDefined(USE_COMPLEX) || strcmp(field, "complex"), PETSC_COMM_SELF, PETSC_ERR_SUP,
               "%s holds complex values: use PETSc with complex scalars", file);
    do PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: no size line", file);
    while (line[0] == '%');
    PetscCheck(ReadIntegers(line, 3, size, &rest) && Blank(rest), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s: the size line is not three integers (rows, columns, entries): %s", file, line);
    PetscCheck(size[0] > 0 && size[1] > 0 && size[2] >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s: the size line announces %lld x %lld with %lld entries: rows and columns must be positive, entries not negative", file, size[0],
               size[1], size[2]);
    PetscCheck(size[0] <= PETSC_MAX_INT && size[1] <= PETSC_MAX_INT && size[2] <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s: the size line announces %lld x %lld with %lld entries, more than this PETSc's %d-bit PetscInt counts (%" PetscInt_FMT
               "): use a PETSc configured --with-64-bit-indices",
               file, size[0], size[1], size[2], (int)(8 * sizeof(PetscInt)), (PetscInt)PETSC_MAX_INT);
    PetscCheck((double)size[2] <= (double)size[0] * (double)size[1], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s: the size line announces %lld entries in a %lld x %lld matrix", file, size[2], size[0], size[1]);
    dims[0] = (PetscInt)size[0];
    dims[1] = (PetscInt)size[1];
    dims[2] = (PetscInt)size[2];
  }
  PetscCallMPI(MPI_Bcast(dims, 3, MPIU_INT, 0, PETSC_COMM_WORLD));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, dims[0], dims[1]));
  PetscCall(MatSetFromOptions(*A));
  if (!rank) {
    symmetric = strcmp(sym, "general") ? PETSC_TRUE : PETSC_FALSE;
    hermitian = strcmp(sym, "hermitian") ? PETSC_FALSE : PETSC_TRUE;
    nvalues   = !strcmp(field, "pattern") ? 0 : !strcmp(field, "complex") ? 2 : 1;
    PetscCheck(!symmetric || dims[0] == dims[1], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s: a %s matrix of %" PetscInt_FMT " x %" PetscInt_FMT " is not square", file, sym, dims[0], dims[1]);
    PetscCheck(!symmetric || dims[2] <= PETSC_MAX_INT / 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s: %" PetscInt_FMT " entries of a %s matrix, mirrored, are more than this PETSc's PetscInt counts: use a PETSc configured "
               "--with-64-bit-indices",
               file, dims[2], sym);
    cap = dims[2] * (symmetric ? 2 : 1); /* a symmetric file's entries mirrored */
    PetscCall(PetscMalloc3(cap, &ci, cap, &cj, cap, &cv));
    for (PetscInt k = 0; k < dims[2]; k++) {
      long long   ij[2];
      double      val[2] = {1.0, 0.0};
      const char *p;
      PetscScalar v;

      PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s: %" PetscInt_FMT " entries, %" PetscInt_FMT " announced", file, k, dims[2]);
      PetscCheck(ReadIntegers(line, 2, ij, &p), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s: entry %" PetscInt_FMT " does not start with its row and column: %s", file, k + 1, line);
      for (int q = 0; q < nvalues; q++) {
        char *e;

        val[q] = strtod(p, &e);
        PetscCheck(e != p, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: entry %" PetscInt_FMT " lacks its %s value: %s", file, k + 1,
                   nvalues == 2 ? (q ? "imaginary" : "real") : field, line);
        p = e;
      }
      PetscCheck(Blank(p), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: entry %" PetscInt_FMT " has more than its row, column and %d value%s: %s",
                 file, k + 1, nvalues, nvalues == 1 ? "" : "s", line);
      PetscCheck(ij[0] >= 1 && ij[1] >= 1 && ij[0] <= dims[0] && ij[1] <= dims[1], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s: entry %" PetscInt_FMT " at (%lld, %lld) lies outside the %" PetscInt_FMT " x %" PetscInt_FMT " matrix (indices count from 1)",
                 file, k + 1, ij[0], ij[1], dims[0], dims[1]);
      PetscCheck(!symmetric || ij[0] >= ij[1], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s: entry %" PetscInt_FMT " at (%lld, %lld) lies above the diagonal of a %s matrix, whose file holds the lower triangle only", file,
                 k + 1, ij[0], ij[1], sym);
#if defined(PETSC_USE_COMPLEX)
      v = PetscCMPLX(val[0], val[1]);
#else
      v = val[0];
#endif
      ci[n]   = (PetscInt)ij[0] - 1;
      cj[n]   = (PetscInt)ij[1] - 1;
      cv[n++] = v;
      if (ij[0] != ij[1] && symmetric) {
        ci[n]   = (PetscInt)ij[1] - 1;
        cj[n]   = (PetscInt)ij[0] - 1;
        cv[n++] = hermitian ? PetscConj(v) : v;
      }
    }
    while (fgets(line, sizeof(line), fp))
      PetscCheck(line[0] == '%' || Blank(line), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s: more entries than the %" PetscInt_FMT " announced: %s", file, dims[2], line);
    fclose(fp);
  }
  PetscCall(MatSetPreallocationCOO(*A, n, ci, cj));
  PetscCall(MatSetValuesCOO(*A, cv, ADD_VALUES));
  PetscCall(PetscFree3(ci, cj, cv));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* PETSc's MatLoad takes a binary file's column indices as they are: one outside the matrix is
   refused here, before any product reads outside x */
static PetscErrorCode CheckColumns(const char *file, Mat A)
{
  PetscInt rs, re, N;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, NULL, &N));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt *cols;
    PetscInt        nc, bad = 0;
    PetscBool       ok = PETSC_TRUE;

    PetscCall(MatGetRow(A, i, &nc, &cols, NULL));
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] < 0 || cols[k] >= N) {
        ok  = PETSC_FALSE;
        bad = cols[k];
      }
    PetscCall(MatRestoreRow(A, i, &nc, &cols, NULL));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s: entry (%" PetscInt_FMT ", %" PetscInt_FMT ") lies outside the matrix's %" PetscInt_FMT " columns (indices count from 0)", file, i,
               bad, N);
  }
  PetscFunctionReturn(0);
}

/* x*_i = 1 + sin(0.37 i)/2: the same vector whatever the process count */
static PetscErrorCode Exact(Vec v)
{
  PetscScalar *a;
  PetscInt     rs, re;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(v, &rs, &re));
  PetscCall(VecGetArray(v, &a));
  for (PetscInt i = rs; i < re; i++) a[i - rs] = 1.0 + 0.5 * PetscSinReal(0.37 * i);
  PetscCall(VecRestoreArray(v, &a));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char               file[PETSC_MAX_PATH_LEN] = "", out[PETSC_MAX_PATH_LEN] = "", save[PETSC_MAX_PATH_LEN] = "";
  PetscBool          isbin, ismm, hasout, hassave, timing = PETSC_FALSE, raij = PETSC_FALSE;
  PetscInt           wathen[2] = {0, 0}, nw = 2, M, N, its;
  Mat                A;
  Vec                x, b, one;
  KSP                ksp;
  KSPConvergedReason reason;
  MatInfo            info;
  MatType            mtype;
  KSPType            ktype;
  PCType             ptype;
  PC                 pc;
  PetscReal          nr, nb, ne, n1;
  PetscLogDouble     t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-f", file, sizeof(file), &isbin));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mm", file, sizeof(file), &ismm));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), &hasout));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-save", save, sizeof(save), &hassave));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-write_wathen", wathen, &nw, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-timing", &timing, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-residual_aij", &raij, NULL));
  if (nw && wathen[0] > 0) {
    PetscCheck(hasout, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-write_wathen needs -o <file>");
    PetscCall(WriteWathen(wathen[0], nw > 1 && wathen[1] > 0 ? wathen[1] : wathen[0], out));
  }
  PetscCheck(isbin != ismm, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Give one matrix: -f <PETSc binary file> or -mm <Matrix Market file>");
  if (isbin) {
    PetscViewer v;

    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatLoad(A, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(CheckColumns(file, A));
  } else PetscCall(ReadMatrixMarket(file, &A));
  if (hassave) {
    PetscViewer v;

    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, save, FILE_MODE_WRITE, &v));
    PetscCall(MatView(A, v));
    PetscCall(PetscViewerDestroy(&v));
  }
  PetscCall(MatGetSize(A, &M, &N));
  PetscCheck(M == N, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "The matrix is %d x %d: a square one is needed", (int)M, (int)N);
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(MatGetType(A, &mtype));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &one));
  PetscCall(Exact(one));
  PetscCall(MatMult(A, one, b)); /* the solution is x* */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 20000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPGetType(ksp, &ktype));
  PetscCall(PCGetType(pc, &ptype));
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD, "%s: %d rows, %.0f nonzeros, %s matrix; %s with %s\n", file, (int)M, (double)info.nz_used, mtype, ktype, ptype));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(VecNorm(x, NORM_2, &nr)); /* waits for a solve on the GPU */
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  if (raij) { /* PETSc's own product, AIJ's, on the matrix's host values */
    Mat R;
    Vec xr, rr;

    PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &R));
    PetscCall(MatCreateVecs(R, &xr, &rr));
    PetscCall(VecCopy(x, xr));
    PetscCall(MatMult(R, xr, rr));
    PetscCall(VecCopy(rr, one));
    PetscCall(VecDestroy(&xr));
    PetscCall(VecDestroy(&rr));
    PetscCall(MatDestroy(&R));
  } else PetscCall(MatMult(A, x, one));
  PetscCall(VecAYPX(one, -1.0, b));
  PetscCall(VecNorm(one, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  PetscCall(Exact(one));
  PetscCall(VecNorm(one, NORM_2, &n1));
  PetscCall(VecAXPY(one, -1.0, x));
  PetscCall(VecNorm(one, NORM_2, &ne));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d iterations, %s; |b - A x| / |b| < 1e-8: %s; |x - x*| / |x*| < 1e-5: %s\n", (int)its,
                        KSPConvergedReasons[reason], nr <= 1e-8 * nb ? "yes" : "no", ne <= 1e-5 * n1 ? "yes" : "no"));
  if (timing) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve time %.3f ms\n", 1e3 * (t1 - t0)));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&one));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  testset:
    args: -dll_append ${LIB}
    test:
      suffix: mm_ellrcuda
      args: -write_wathen 8,6 -o wathen86.mtx -mm wathen86.mtx -mat_type ellrcuda -ksp_type cggpu -gpukit_backend {{host cuda}shared output}
    test:
      suffix: binary_diacuda
      args: -write_wathen 5 -o wathen55.bin -f wathen55.bin -mat_type diacuda -mat_diacuda_max_fill 100 -ksp_type cg
    test:
      suffix: mm_mpi
      nsize: 3
      args: -write_wathen 10,7 -o wathen107.mtx -mm wathen107.mtx -mat_type ellrcuda -ksp_type cggpu
    test:
      suffix: mm_bicggpu
      nsize: 2
      args: -write_wathen 6,6 -o wathen66.mtx -mm wathen66.mtx -save wathen66.bin -mat_type ellrcuda -ksp_type bicggpu
    test:
      suffix: no_file
      exit: nonzero
      filter: grep -o "Give one matrix"

TEST*/
