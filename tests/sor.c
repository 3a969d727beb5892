static char help[] = "MatSOR of the device matrices against AIJ's: -mat_sor_ordering natural against MatSOR on the\n\
AIJ matrix, multicolor against MatSOR on the AIJ matrix permuted colour by colour (the greedy\n\
colouring of each process's rows computed here), for every sweep, guess, count, omega and shift;\n\
PCEisenstat's operations (SOR_APPLY_UPPER, SOR_EISENSTAT) in the same orders, a changed matrix, and\n\
a zero diagonal (AIJ's error).\n\
  -type ellrcuda|diacuda              : the device matrix\n\
  -problem lap2d|ninepoint|lap3d|random : the matrix (random: a pattern that is not symmetric)\n\
  -n <n>                              : grid points per side (random: rows / 10)\n\
  -host_vectors                       : standard vectors, staged through the matrix's buffers\n\n";

#include <petscmat.h>
#include <petscgpukit.h>
#include "testutil.h"

/* The problem's matrix, rows split evenly over PETSC_COMM_WORLD; varying diagonals, and random
   values (seeded) off it, so that no two rows' sums agree by accident */
static PetscErrorCode Problem(const char *problem, PetscInt n, MatType type, Mat *A)
{
  const PetscBool nine = !strcmp(problem, "ninepoint"), d3 = !strcmp(problem, "lap3d"), rnd = !strcmp(problem, "random");
  const PetscInt  dim = d3 ? 3 : 2, N = rnd ? 10 * n : d3 ? n * n * n : n * n;
  PetscInt        rs, re;
  PetscRandom     r;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetInterval(r, 0.0, 1.0));
  PetscCall(PetscRandomSetSeed(r, 7));
  PetscCall(PetscRandomSeed(r));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 12, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 12, NULL, 12, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt row = 0; row < N; row++) { /* every process draws all values: the same matrix on any count */
    const PetscInt stride[3] = {1, n, n * n}, pos[3] = {row % n, (row / n) % n, row / (n * n)};
    PetscScalar    v;
    PetscReal      u;

    if (rnd)
      for (int k = 0; k < 4; k++) { /* 4 columns anywhere: A_ij without A_ji, mostly */
        PetscCall(PetscRandomGetValueReal(r, &u));
        const PetscInt col = (PetscInt)(u * N) % N;
        PetscCall(PetscRandomGetValueReal(r, &u));
        if (col != row && row >= rs && row < re) PetscCall(MatSetValue(*A, row, col, -u, INSERT_VALUES));
      }
    else
      for (PetscInt d = 0; d < dim; d++)
        for (int s = -1; s <= 1; s += 2) {
          PetscCall(PetscRandomGetValueReal(r, &u));
          if (pos[d] + s >= 0 && pos[d] + s < n && row >= rs && row < re)
            PetscCall(MatSetValue(*A, row, row + s * stride[d], -0.5 - u, INSERT_VALUES));
        }
    if (nine)
      for (int dy = -1; dy <= 1; dy += 2)
        for (int dx = -1; dx <= 1; dx += 2)
          if (pos[0] + dx >= 0 && pos[0] + dx < n && pos[1] + dy >= 0 && pos[1] + dy < n && row >= rs && row < re)
            PetscCall(MatSetValue(*A, row, row + dy * n + dx, -0.25, INSERT_VALUES));
    v = 2.0 * dim + 2.0 + (nine ? 1.0 : 0.0) + 0.25 * (row % 3);
    if (row >= rs && row < re) PetscCall(MatSetValue(*A, row, row, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscRandomDestroy(&r));
  PetscFunctionReturn(0);
}

/* Each process's rows colour by colour in greedy colouring (row order, neighbours when A_ij or
   A_ji is stored in the diagonal block): perm[k] is the global row that goes to place rs + k */
static PetscErrorCode ColourOrder(Mat A, IS *is)
{
  Mat             B, Bt;
  const PetscInt *ia, *ja, *ta, *tj;
  PetscInt        m, rs, nc = 0, *color, *perm, k = 0;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetDiagonalBlock(A, &B));
  PetscCall(MatTranspose(B, MAT_INITIAL_MATRIX, &Bt));
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCall(MatGetRowIJ(Bt, 0, PETSC_FALSE, PETSC_FALSE, &m, &ta, &tj, &done));
  PetscCall(PetscMalloc2(m, &color, m, &perm));
  for (PetscInt i = 0; i < m; i++) {
    PetscInt c = 0;
    for (PetscBool clash = PETSC_TRUE; clash;) { /* the least colour no earlier neighbour has */
      clash = PETSC_FALSE;
      for (PetscInt e = ia[i]; e < ia[i + 1] && !clash; e++) clash = (PetscBool)(ja[e] < i && color[ja[e]] == c);
      for (PetscInt e = ta[i]; e < ta[i + 1] && !clash; e++) clash = (PetscBool)(tj[e] < i && color[tj[e]] == c);
      if (clash) c++;
    }
    color[i] = c;
    nc       = PetscMax(nc, c + 1);
  }
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  for (PetscInt c = 0; c < nc; c++)
    for (PetscInt i = 0; i < m; i++)
      if (color[i] == c) perm[k++] = rs + i;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " colours (first process)\n", nc));
  PetscCall(ISCreateGeneral(PETSC_COMM_WORLD, m, perm, PETSC_COPY_VALUES, is));
  PetscCall(PetscFree2(color, perm));
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, NULL, &ia, &ja, &done));
  PetscCall(MatRestoreRowIJ(Bt, 0, PETSC_FALSE, PETSC_FALSE, NULL, &ta, &tj, &done));
  PetscCall(MatDestroy(&Bt));
  PetscFunctionReturn(0);
}

/* y = x's entries at is's places (forward), or x into them (back); local parts alike */
static PetscErrorCode Permute(IS is, Vec x, Vec y, PetscBool back)
{
  const PetscInt    *p;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscInt           m, rs;

  PetscFunctionBegin;
  PetscCall(ISGetLocalSize(is, &m));
  PetscCall(ISGetIndices(is, &p));
  PetscCall(VecGetOwnershipRange(x, &rs, NULL));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(y, &ya));
  for (PetscInt k = 0; k < m; k++) {
    if (back) ya[p[k] - rs] = xa[k];
    else ya[k] = xa[p[k] - rs];
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(ISRestoreIndices(is, &p));
  PetscFunctionReturn(0);
}

/* MatSOR of A (x from x0, unless the guess is zero) against the reference's on R, whose rows are
   A's permuted by is (NULL: the same); the largest relative difference so far in *worst */
static PetscErrorCode Compare(Mat A, Mat R, IS is, Vec b, Vec x0, PetscReal omega, MatSORType flag, PetscReal shift, PetscInt its, PetscInt lits,
                              PetscBool hostvecs, PetscReal *worst)
{
  Vec       bd, xd, br, xr, xback;
  PetscReal nd, nr;

  PetscFunctionBegin;
  if (hostvecs) {
    PetscCall(VecDuplicate(b, &bd));
    PetscCall(VecDuplicate(b, &xd));
  } else PetscCall(MatCreateVecs(A, &xd, &bd));
  PetscCall(MatCreateVecs(R, &xr, &br));
  PetscCall(VecDuplicate(b, &xback));
  PetscCall(VecCopy(b, bd));
  PetscCall(VecCopy(x0, xd));
  if (is) {
    PetscCall(Permute(is, b, br, PETSC_FALSE));
    PetscCall(Permute(is, x0, xr, PETSC_FALSE));
  } else {
    PetscCall(VecCopy(b, br));
    PetscCall(VecCopy(x0, xr));
  }
  PetscCall(MatSOR(A, bd, omega, flag, shift, its, lits, xd));
  PetscCall(MatSOR(R, br, omega, flag, shift, its, lits, xr));
  if (is) PetscCall(Permute(is, xr, xback, PETSC_TRUE));
  else PetscCall(VecCopy(xr, xback));
  PetscCall(TestDiffNorms(xback, xd, NORM_2, &nd, &nr));
  PetscCheck(nd <= 1e-12 * nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "MatSOR (flag %d, omega %g, shift %g, its %" PetscInt_FMT ", lits %" PetscInt_FMT ") differs from the reference's by %g (relative)",
             (int)flag, (double)omega, (double)shift, its, lits, (double)(nd / nr));
  *worst = PetscMax(*worst, nd / nr);
  PetscCall(VecDestroy(&bd));
  PetscCall(VecDestroy(&xd));
  PetscCall(VecDestroy(&br));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&xback));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char        type[64] = MATELLRCUDA, problem[64] = "lap2d";
  PetscInt    n = 12, cases = 0;
  PetscBool   hostvecs = PETSC_FALSE;
  PetscMPIInt size;
  Mat         A, Aaij, R;
  Vec         b, x0;
  PetscReal   worst;
  IS          is[2] = {NULL, NULL};
  /* the sweeps MatSOR takes on one process; MPIAIJ takes only the local ones */
  const MatSORType seqflags[] = {SOR_FORWARD_SWEEP, SOR_BACKWARD_SWEEP, SOR_SYMMETRIC_SWEEP, SOR_LOCAL_SYMMETRIC_SWEEP},
                   mpiflags[] = {SOR_LOCAL_FORWARD_SWEEP, SOR_LOCAL_BACKWARD_SWEEP, SOR_LOCAL_SYMMETRIC_SWEEP};
  const PetscReal  omegas[] = {1.0, 1.3, 0.8}, shifts[] = {0.0, 0.0, 0.5};
  const PetscInt   counts[][2] = {
    {1, 1},
    {2, 1},
    {1, 3}
  };

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-problem", problem, sizeof(problem), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host_vectors", &hostvecs, NULL));
  PetscCall(Problem(problem, n, MATAIJ, &Aaij));
  PetscCall(MatCreateVecs(Aaij, &x0, &b));
  PetscCall(VecSetRandom(b, NULL));
  PetscCall(VecSetRandom(x0, NULL));
  PetscCall(ColourOrder(Aaij, &is[0]));

  for (int o = 0; o < 2; o++) { /* multicolor, natural */
    PetscCall(PetscOptionsSetValue(NULL, "-mat_sor_ordering", o ? "natural" : "multicolor"));
    PetscCall(Problem(problem, n, type, &A));
    if (is[o]) PetscCall(MatCreateSubMatrix(Aaij, is[o], is[o], MAT_INITIAL_MATRIX, &R));
    else {
      PetscCall(PetscObjectReference((PetscObject)Aaij));
      R = Aaij;
    }
    worst = 0.0;
    cases = 0;
    for (size_t f = 0; f < (size > 1 ? PETSC_STATIC_ARRAY_LENGTH(mpiflags) : PETSC_STATIC_ARRAY_LENGTH(seqflags)); f++)
      for (int zero = 0; zero < 2; zero++)
        for (size_t w = 0; w < PETSC_STATIC_ARRAY_LENGTH(omegas); w++)
          for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(counts); c++) {
            const MatSORType flag = (MatSORType)((size > 1 ? mpiflags[f] : seqflags[f]) | (zero ? SOR_ZERO_INITIAL_GUESS : 0));

            PetscCall(Compare(A, R, is[o], b, x0, omegas[w], flag, shifts[w], counts[c][0], counts[c][1], hostvecs, &worst));
            cases++;
          }
    /* PCEisenstat's operations, in the same order as the sweeps (MPIAIJ's Eisenstat needs
       MatMultDiagonalBlock, which SEQAIJ lacks: one process) */
    for (size_t w = 0; w < PETSC_STATIC_ARRAY_LENGTH(omegas); w++) {
      PetscCall(Compare(A, R, is[o], b, x0, omegas[w], SOR_APPLY_UPPER, shifts[w], 1, 1, hostvecs, &worst));
      cases++;
      if (size > 1) continue;
      PetscCall(Compare(A, R, is[o], b, x0, omegas[w], SOR_EISENSTAT, shifts[w], 1, 1, hostvecs, &worst));
      cases++;
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " sweeps and Eisenstat's operations agree with AIJ's%s\n",
                          o ? "natural" : "multicolor", cases, o ? "" : " on the permuted matrix"));
    /* the arrays follow the matrix's values */
    PetscCall(MatScale(A, 2.0));
    PetscCall(MatScale(R, 2.0));
    PetscCall(Compare(A, R, is[o], b, x0, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, hostvecs, &worst));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: after MatScale, agree\n", o ? "natural" : "multicolor"));
    /* ELLPACK-R's rows sorted into other slots, a new layout after the sweeps above (the sweeps
       name slots): every sweep again (a no-op for DIA) */
    PetscCall(MatELLRCUDASetSliceHeight(A, 4));
    PetscCall(MatELLRCUDASetSortWindow(A, 8));
    for (size_t f = 0; f < (size > 1 ? PETSC_STATIC_ARRAY_LENGTH(mpiflags) : PETSC_STATIC_ARRAY_LENGTH(seqflags)); f++)
      for (int zero = 0; zero < 2; zero++)
        PetscCall(Compare(A, R, is[o], b, x0, 1.3, (MatSORType)((size > 1 ? mpiflags[f] : seqflags[f]) | (zero ? SOR_ZERO_INITIAL_GUESS : 0)), 0.0, 2,
                          1, hostvecs, &worst));
    PetscCall(Compare(A, R, is[o], b, x0, 1.3, SOR_APPLY_UPPER, 0.0, 1, 1, hostvecs, &worst));
    if (size == 1) PetscCall(Compare(A, R, is[o], b, x0, 1.3, SOR_EISENSTAT, 0.0, 1, 1, hostvecs, &worst));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: after a new layout, agree\n", o ? "natural" : "multicolor"));
    PetscCall(MatScale(R, 0.5));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&R));
  }
  /* a zero diagonal entry, in the first row and in the last (found by the device's search of
     every block of rows): AIJ's error, on both */
  for (int last = 0; last < 2; last++) {
    PetscErrorCode e[2];
    Mat            Z[2];
    PetscInt       rs, re;
    const char    *text;

    for (int k = 0; k < 2; k++) {
      PetscCall(Problem(problem, n, k ? type : MATAIJ, &Z[k]));
      PetscCall(MatGetOwnershipRange(Z[k], &rs, &re));
      PetscCall(MatSetValue(Z[k], last ? re - 1 : rs, last ? re - 1 : rs, 0.0, INSERT_VALUES));
      PetscCall(MatAssemblyBegin(Z[k], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(Z[k], MAT_FINAL_ASSEMBLY));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      e[k] = MatSOR(Z[k], b, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, x0);
      PetscCall(PetscPopErrorHandler());
    }
    PetscCheck(e[0] && e[0] == e[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "A zero diagonal: AIJ's MatSOR returned %d, the device matrix's %d", (int)e[0],
               (int)e[1]);
    {
      /* from a nonzero guess MPIAIJ's MatSOR makes a work vector (b's duplicate) before the sweep
         fails, and loses it (PETSc's own MPIAIJ too): on device vectors the device matrix refuses
         alike, and loses nothing (-malloc_dump) */
      Vec bd, xd;

      PetscCall(MatCreateVecs(Z[1], &xd, &bd));
      PetscCall(VecCopy(b, bd));
      PetscCall(VecCopy(x0, xd));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      e[0] = MatSOR(Z[1], bd, 1.0, SOR_LOCAL_SYMMETRIC_SWEEP, 0.0, 2, 1, xd);
      PetscCall(PetscPopErrorHandler());
      PetscCheck(e[0] == e[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB,
                 "A zero diagonal, from a nonzero guess: the device matrix's MatSOR returned %d, not %d", (int)e[0], (int)e[1]);
      PetscCall(VecDestroy(&bd));
      PetscCall(VecDestroy(&xd));
    }
    PetscCall(PetscErrorMessage(e[1], &text, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "zero diagonal in the %s row: both refuse (%s)\n", last ? "last" : "first", text));
    for (int k = 0; k < 2; k++) PetscCall(MatDestroy(&Z[k]));
  }
  PetscCall(ISDestroy(&is[0]));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(MatDestroy(&Aaij));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # every sweep (forward, backward, symmetric, local symmetric; on several processes the local
  # ones, as MPIAIJ's MatSOR takes), from a zero guess and not, omega 1, 1.3 and 0.8 (the last
  # with a shift), its x lits 1 x 1, 2 x 1 and 1 x 3, and PCEisenstat's operations: natural
  # against AIJ's MatSOR, multicolor against AIJ's on the matrix permuted colour by colour (a
  # multicolour Eisenstat must split in colours too); the program checks the differences
  testset:
    test:
      suffix: lap2d
      args: -problem lap2d -n 12 -type {{ellrcuda diacuda}shared output} -host_vectors {{0 1}shared output} -gpukit_backend {{host cuda}shared output}
    test:
      suffix: ninepoint
      args: -problem ninepoint -n 12 -type ellrcuda -gpukit_backend {{host cuda}shared output}
    test:
      suffix: lap3d
      args: -problem lap3d -n 6 -type diacuda -gpukit_backend {{host cuda}shared output}
    # large enough for the device's colouring to spread over many threads and blocks that wait for
    # each other's rows (a grid line's dependencies crossing from run to run)
    test:
      suffix: lap2d_large
      args: -problem lap2d -n 300 -type diacuda -gpukit_backend {{host cuda}shared output}
      output_file: output/sor_lap2d.out
    test:
      suffix: ninepoint_large
      args: -problem ninepoint -n 200 -type ellrcuda -gpukit_backend {{host cuda}shared output}
      output_file: output/sor_ninepoint.out
    test:
      suffix: lap3d_large
      args: -problem lap3d -n 40 -type diacuda -gpukit_backend {{host cuda}shared output}
      output_file: output/sor_lap3d.out
    # a pattern that is not symmetric: the natural levels and the colours use the symmetrised one
    test:
      suffix: random
      args: -problem random -n 30 -type ellrcuda -gpukit_backend {{host cuda}shared output}
    # one row a slice (the layout GAMG's coarse operators of long rows get): the same sweeps
    test:
      suffix: ninepoint_rows
      args: -problem ninepoint -n 12 -type ellrcuda -mat_ellrcuda_slice_height 1 -gpukit_backend {{host cuda}shared output}
      output_file: output/sor_ninepoint.out
    test:
      suffix: random_rows
      args: -problem random -n 30 -type ellrcuda -mat_ellrcuda_slice_height 1 -gpukit_backend {{host cuda}shared output}
      output_file: output/sor_random.out
    test:
      suffix: lap2d_mpi
      nsize: {{2 3}}
      args: -problem lap2d -n 12 -type {{ellrcuda diacuda}}
    test:
      suffix: random_mpi
      nsize: 2
      args: -problem random -n 30 -type ellrcuda

TEST*/
