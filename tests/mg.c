static char help[] = "PETSc's multigrid (PCMG on a DMDA, PCGAMG) on the device types, against the same solve on AIJ.\n\
  -dim <2,3>     : space dimension\n\
  -n <n>         : grid points per side\n\
  -copies <bool> : check that a solve copies between host and device no more than the coarsest level\n\
                   asks for (two copies of its vector per iteration)\n\
  -nocopies <bool> : check that the second solve copies nothing (the coarsest solve on the device too)\n\
  -neumann <bool>  : the pure Neumann Laplacian (singular: every level's operator given the\n\
                   constants as its null space, as ksp ex50 does)\n\
  -graphtwin <bool>: solve the device problem again with -ksp_cggpu_graph 0 and check that the\n\
                   iterations and solutions are identical to the last bit\n\
  -layouts <bool>  : check that every level's interpolation (ellrcuda) and its transposed copy are\n\
                   laid out as a new matrix of the same entries lays them out for its products\n\
  -single_levels <bool>: check that every level's operator below the finest and every interpolation\n\
                   is stored in single precision and the finest operator is not (-pc_mg_gpukit_storage)\n\
and PETSc's solver options (-pc_type mg -pc_mg_levels ..., gamg, -mg_levels_...) for both solves.\n\n";

/*
   The Poisson problem of tutorials/poisson, with the operator computed by the KSP's DM on every
   level (KSPSetComputeOperators(), as PETSc's ksp ex45 and ex50 do), so that PCMG coarsens the
   DMDA and takes its interpolations from DMCreateInterpolation(). The DM of the device solve
   has -dm_mat_type and -dm_vec_type from the options; the reference's is AIJ with standard
   vectors. Prints one line: whether the iteration counts and the solutions agree, and, with
   -copies, whether the second solve's host/device copies stay within what the coarsest level's
   host solve needs, which holds only when every transfer and smoother runs on the device.
*/
#include <petscgpukit.h>
#include <petscksp.h>
#include <petscdmda.h>
#include "testutil.h"

static PetscBool neumann = PETSC_FALSE; /* -neumann */

/* The 5-point (7-point) Laplacian scaled by h^2, the boundary rows the identity and their columns
   left out of the interior rows (symmetric, as CG needs), on any level; with -neumann every row
   couples to its neighbours inside the grid, its diagonal their number, and the operator has the
   constants as its null space */
static PetscErrorCode ComputeMatrix(KSP ksp, Mat J, Mat A, void *ctx)
{
  DM            da;
  DMDALocalInfo info;
  MatStencil    row, col[7];
  PetscScalar   v[7];

  PetscFunctionBegin;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++) {
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++) {
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        const PetscBool boundary = (i == 0 || j == 0 || i == info.mx - 1 || j == info.my - 1 || (info.dim == 3 && (k == 0 || k == info.mz - 1)));
        PetscInt        nc       = 0;

        row.i = i;
        row.j = j;
        row.k = k;
        if (neumann) {
          for (PetscInt d = 0; d < info.dim; d++) {
            for (PetscInt s = -1; s <= 1; s += 2) {
              const PetscInt ii = i + (d == 0 ? s : 0), jj = j + (d == 1 ? s : 0), kk = k + (d == 2 ? s : 0);

              if (ii < 0 || jj < 0 || kk < 0 || ii >= info.mx || jj >= info.my || kk >= info.mz) continue;
              col[nc].i = ii;
              col[nc].j = jj;
              col[nc].k = kk;
              v[nc++]   = -1.0;
            }
          }
          col[nc] = row;
          v[nc]   = nc;
          nc++;
          PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
          continue;
        }
        if (!boundary) { /* the boundary's columns left out: the operator is symmetric */
          for (PetscInt d = 0; d < info.dim; d++) {
            for (PetscInt s = -1; s <= 1; s += 2) {
              const PetscInt ii = i + (d == 0 ? s : 0), jj = j + (d == 1 ? s : 0), kk = k + (d == 2 ? s : 0);

              if (ii == 0 || jj == 0 || ii == info.mx - 1 || jj == info.my - 1 || (info.dim == 3 && (kk == 0 || kk == info.mz - 1))) continue;
              col[nc].i = ii;
              col[nc].j = jj;
              col[nc].k = kk;
              v[nc++]   = -1.0;
            }
          }
        }
        col[nc] = row;
        v[nc++] = boundary ? 1.0 : 2.0 * info.dim;
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
      }
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  if (neumann) {
    MatNullSpace ns;

    PetscCall(MatNullSpaceCreate(PetscObjectComm((PetscObject)A), PETSC_TRUE, 0, NULL, &ns));
    PetscCall(MatSetNullSpace(A, ns));
    PetscCall(MatNullSpaceDestroy(&ns));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ComputeRHS(KSP ksp, Vec b, void *ctx)
{
  DM       da;
  PetscInt mx;

  PetscFunctionBegin;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(DMDAGetInfo(da, NULL, &mx, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  if (neumann) { /* a right-hand side the operator's range holds: entries by global index, less their mean */
    PetscScalar *a;
    PetscInt     lo, hi;
    MatNullSpace ns;

    PetscCall(VecGetOwnershipRange(b, &lo, &hi));
    PetscCall(VecGetArray(b, &a));
    for (PetscInt g = lo; g < hi; g++) a[g - lo] = (PetscScalar)((g % 7) - 3) / ((mx - 1) * (mx - 1));
    PetscCall(VecRestoreArray(b, &a));
    PetscCall(MatNullSpaceCreate(PetscObjectComm((PetscObject)b), PETSC_TRUE, 0, NULL, &ns));
    PetscCall(MatNullSpaceRemove(ns, b));
    PetscCall(MatNullSpaceDestroy(&ns));
  } else PetscCall(VecSet(b, 1.0 / ((mx - 1) * (mx - 1))));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateDM(PetscInt dim, PetscInt n, PetscBool aij, DM *da)
{
  PetscFunctionBegin;
  if (dim == 2)
    PetscCall(
      DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, da));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE,
                           PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetFromOptions(*da));
  if (aij) {
    PetscCall(DMSetMatType(*da, MATAIJ));
    PetscCall(DMSetVecType(*da, VECSTANDARD));
  }
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

/* what -mat_view ::ascii_info prints of A, into buf */
static PetscErrorCode ViewInfo(Mat A, char *buf, size_t len)
{
  PetscFunctionBegin;
  PetscCall(TestViewText((PetscObject)A, PETSC_VIEWER_ASCII_INFO, buf, len));
  PetscFunctionReturn(0);
}

/* Whether each level's interpolation (ellrcuda) of a solved PCMG or PCGAMG, which the V-cycles
   multiplied by and by its transpose, is laid out, itself and its transposed copy, as a new matrix
   of the same entries is after the same two products (a matrix no fused solver was given): PCMG's
   set-up must not leave it in the fused kernels' layout. *nlev: the levels compared */
static PetscErrorCode CheckLayouts(PC pc, PetscBool *same, PetscInt *nlev)
{
  PetscInt levels;
  char     a[4096], b[4096];

  PetscFunctionBegin;
  *same = PETSC_TRUE;
  *nlev = 0;
  PetscCall(PCMGGetLevels(pc, &levels));
  for (PetscInt l = 1; l < levels; l++) {
    Mat       P, Pa, Q;
    Vec       xc, yf;
    PetscBool isellr;

    PetscCall(PCMGGetInterpolation(pc, l, &P));
    PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQELLRCUDA, &isellr));
    if (!isellr) continue;
    PetscCall(MatConvert(P, MATSEQAIJ, MAT_INITIAL_MATRIX, &Pa));
    PetscCall(MatConvert(Pa, MATSEQELLRCUDA, MAT_INITIAL_MATRIX, &Q));
    PetscCall(MatCreateVecs(Q, &xc, &yf));
    PetscCall(VecSet(xc, 1.0));
    PetscCall(MatMult(Q, xc, yf));
    PetscCall(MatMultTranspose(Q, yf, xc));
    PetscCall(ViewInfo(P, a, sizeof(a)));
    PetscCall(ViewInfo(Q, b, sizeof(b)));
    PetscCheck(strstr(a, "ELLPACK-R (") && strstr(b, "ELLPACK-R (") && strstr(a, "transposed copy") && strstr(b, "transposed copy"), PETSC_COMM_SELF,
               PETSC_ERR_PLIB, "Level %" PetscInt_FMT ": no format or transposed copy in the views:\n%s\n%s", l, a, b);
    if (strcmp(strstr(a, "ELLPACK-R ("), strstr(b, "ELLPACK-R ("))) { /* the format's lines (the first ones name the matrix) */
      *same = PETSC_FALSE;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "level %" PetscInt_FMT "'s interpolation:\n%s\nthe same entries in a new matrix:\n%s\n", l, a, b));
    }
    (*nlev)++;
    PetscCall(VecDestroy(&xc));
    PetscCall(VecDestroy(&yf));
    PetscCall(MatDestroy(&Q));
    PetscCall(MatDestroy(&Pa));
  }
  PetscFunctionReturn(0);
}

/* Whether a solved PCMG's levels below the finest, their operators and the interpolations, are
   stored in single precision (MatGPUKitGetStorage()) and the finest operator is not; *nlev: the
   matrices stored so */
static PetscErrorCode CheckSingleLevels(PC pc, PetscBool *ok, PetscInt *nlev)
{
  PetscInt           levels;
  PetscGPUKitStorage st;

  PetscFunctionBegin;
  *ok   = PETSC_TRUE;
  *nlev = 0;
  PetscCall(PCMGGetLevels(pc, &levels));
  for (PetscInt l = 0; l < levels; l++) {
    KSP smoother;
    Mat A, P;

    PetscCall(PCMGGetSmoother(pc, l, &smoother));
    PetscCall(KSPGetOperators(smoother, &A, NULL));
    PetscCall(MatGPUKitGetStorage(A, &st));
    if ((st == PETSCGPUKIT_STORAGE_SINGLE) != (l < levels - 1)) *ok = PETSC_FALSE;
    *nlev += st == PETSCGPUKIT_STORAGE_SINGLE;
    if (!l) continue;
    PetscCall(PCMGGetInterpolation(pc, l, &P));
    PetscCall(MatGPUKitGetStorage(P, &st));
    if (st != PETSCGPUKIT_STORAGE_SINGLE) *ok = PETSC_FALSE;
    *nlev += st == PETSCGPUKIT_STORAGE_SINGLE;
  }
  PetscFunctionReturn(0);
}

/* Two solves of the same system; the second's iterations, solution (copied into x, created
   here), host/device copies in bytes, and the coarsest level's unknowns; with layouts, whether
   the interpolations are laid out for their products, and how many were compared (CheckLayouts);
   with single, whether the levels below the finest are stored in single precision (CheckSingleLevels) */
static PetscErrorCode Solve(DM da, PetscInt *its, Vec *x, PetscLogDouble *bytes, PetscInt *ncoarse, PetscBool *layouts, PetscInt *nlev,
                            PetscBool *single, PetscInt *nsingle)
{
  KSP                       ksp, kc;
  PC                        pc;
  Mat                       Ac;
  Vec                       sol;
  PetscBool                 ismg;
  PetscGPUKitTransferCounts c0, c1;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetComputeOperators(ksp, ComputeMatrix, NULL));
  PetscCall(KSPSetComputeRHS(ksp, ComputeRHS, NULL));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  /* the first solve builds the device copies and the smoothers' estimates */
  PetscCall(KSPSolve(ksp, NULL, NULL));
  PetscCall(PetscGPUKitGetTransferCounts(&c0));
  PetscCall(KSPSolve(ksp, NULL, NULL));
  PetscCall(PetscGPUKitGetTransferCounts(&c1));
  *bytes = (c1.h2d_bytes - c0.h2d_bytes) + (c1.d2h_bytes - c0.d2h_bytes);
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetSolution(ksp, &sol));
  PetscCall(VecDuplicate(sol, x));
  PetscCall(VecCopy(sol, *x));
  *ncoarse = 0;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &ismg, PCMG, PCGAMG, ""));
  if (ismg) {
    PetscCall(PCMGGetCoarseSolve(pc, &kc));
    PetscCall(KSPGetOperators(kc, &Ac, NULL));
    PetscCall(MatGetSize(Ac, ncoarse, NULL));
    if (layouts) PetscCall(CheckLayouts(pc, layouts, nlev));
    if (single) PetscCall(CheckSingleLevels(pc, single, nsingle));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  DM        da, daaij;
  Vec       x, xaij, xcopy;
  PetscInt  dim = 2, n = 65, its, itsaij, itsg = -1, ncoarse, nc, nlev = 0;
  PetscBool copies = PETSC_FALSE, nocopies = PETSC_FALSE, graphtwin = PETSC_FALSE, same = PETSC_FALSE, layouts = PETSC_FALSE, samelay = PETSC_FALSE;
  PetscBool singlelev = PETSC_FALSE, singleok = PETSC_FALSE;
  PetscInt  nsingle = 0;
  PetscReal diff, norm;
  PetscLogDouble bytes, b;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-copies", &copies, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-nocopies", &nocopies, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-graphtwin", &graphtwin, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-layouts", &layouts, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-single_levels", &singlelev, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-neumann", &neumann, NULL));
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, dim);
  PetscCall(CreateDM(dim, n, PETSC_FALSE, &da));
  PetscCall(CreateDM(dim, n, PETSC_TRUE, &daaij));

  PetscCall(Solve(da, &its, &x, &bytes, &ncoarse, layouts ? &samelay : NULL, &nlev, singlelev ? &singleok : NULL, &nsingle));
  PetscCall(Solve(daaij, &itsaij, &xaij, &b, &nc, NULL, NULL, NULL, NULL));
  PetscCall(VecDuplicate(xaij, &xcopy));
  PetscCall(VecCopy(x, xcopy));
  PetscCall(VecNorm(xaij, NORM_2, &norm));
  PetscCall(VecAXPY(xaij, -1.0, xcopy));
  PetscCall(VecNorm(xaij, NORM_2, &diff));
  if (graphtwin) {
    /* the same device solve with the PC applied as it is: a replayed V-cycle must run the same
       kernels on the same arrays (solved before anything is printed: -info's lines would come
       between) */
    Vec y;

    PetscCall(PetscOptionsSetValue(NULL, "-ksp_cggpu_graph", "0"));
    PetscCall(Solve(da, &itsg, &y, &b, &nc, NULL, NULL, NULL, NULL));
    PetscCall(VecEqual(x, y, &same));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iteration counts %s; solutions %s", PetscAbs(its - itsaij) <= 1 ? "agree (within one)" : "DIFFER",
                        diff <= 1e-8 * norm ? "agree" : "DIFFER"));
  if (copies) {
    /* per iteration and once more for the start: the coarsest level's right-hand side down to
       the host solve and its solution back */
    const PetscLogDouble bound = 2.0 * (its + 1) * ncoarse * sizeof(PetscScalar);

    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "; host/device copies %s the coarsest level's bound", ncoarse && bytes <= bound ? "within" : "EXCEED"));
    if (!(ncoarse && bytes <= bound))
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, " (%g bytes, bound %g for %" PetscInt_FMT " unknowns, %" PetscInt_FMT " iterations)", bytes, bound,
                            ncoarse, its));
  }
  if (nocopies) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "; %s", bytes == 0 ? "no host/device copies" : "host/device COPIES"));
  if (graphtwin) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "; with and without the graph %s", itsg == its && same ? "identical" : "DIFFER"));
  if (layouts)
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "; interpolations %s",
                  samelay && nlev > 0 ? "laid out for their products" : (nlev ? "NOT laid out for their products" : "NONE of the device types")));
  if (singlelev)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "; %s",
                          singleok && nsingle > 0 ? "the levels below the finest in single storage" : "levels NOT in single storage as asked"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xaij));
  PetscCall(VecDestroy(&xcopy));
  PetscCall(DMDestroy(&da));
  PetscCall(DMDestroy(&daaij));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  testset:
    output_file: output/mg_agree_copies.out
    args: -pc_type mg -mg_levels_pc_type jacobi -copies
    test:
      suffix: 2d
      args: -n 65 -pc_mg_levels 5 -dm_mat_type {{ellrcuda diacuda}shared output} -dm_vec_type cuda -ksp_type {{cg cggpu}shared output} -gpukit_backend {{host cuda}shared output}
    test:
      suffix: 3d
      args: -dim 3 -n 17 -pc_mg_levels 3 -dm_mat_type {{ellrcuda diacuda}shared output} -dm_vec_type cuda -gpukit_backend {{host cuda}shared output}
    test:
      suffix: 2d_galerkin
      args: -n 65 -pc_mg_levels 4 -pc_mg_galerkin -dm_mat_type ellrcuda -dm_vec_type cuda -gpukit_backend {{host cuda}shared output}

  # PCMG's levels below the finest in single storage (-pc_mg_gpukit_storage single): their
  # operators (the DM's, or Galerkin products) and interpolations, the finest operator double; the
  # iterations within one of AIJ's
  testset:
    output_file: output/mg_agree_single.out
    args: -pc_type mg -mg_levels_pc_type jacobi -pc_mg_gpukit_storage single -single_levels
    test:
      suffix: 2d_single
      args: -n 65 -pc_mg_levels 5 -dm_mat_type {{ellrcuda diacuda}shared output} -dm_vec_type cuda -ksp_type {{cg cggpu}shared output} -gpukit_backend {{host cuda}shared output}
    test:
      suffix: 3d_single
      args: -dim 3 -n 17 -pc_mg_levels 3 -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu -gpukit_backend {{host cuda}shared output}
    test:
      suffix: 2d_single_galerkin
      args: -n 65 -pc_mg_levels 4 -pc_mg_galerkin -dm_mat_type ellrcuda -dm_vec_type cuda -gpukit_backend {{host cuda}shared output}
    test:
      suffix: 2d_single_mpi
      nsize: 2
      args: -n 65 -pc_mg_levels 4 -pc_mg_galerkin {{none both}shared output} -dm_mat_type {{ellrcuda diacuda}shared output} -dm_vec_type cuda

  # the coarsest solve on the device (PETSc's LU kept as its dense inverses; 729 rows in 3D): no
  # copy at all
  test:
    suffix: 2d_devcoarse
    output_file: output/mg_agree_nocopies.out
    args: -n 65 -pc_type mg -mg_levels_pc_type jacobi -pc_mg_levels 4 -nocopies -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type {{cg cggpu}shared output} -gpukit_backend {{host cuda}shared output}
  test:
    suffix: 3d_devcoarse
    output_file: output/mg_agree_nocopies.out
    args: -dim 3 -n 17 -pc_type mg -pc_mg_levels 2 -nocopies -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu -gpukit_backend {{host cuda}shared output}

  test:
    suffix: 2d_gamg_devcoarse
    output_file: output/mg_agree_nocopies.out
    args: -n 65 -pc_type gamg -mg_levels_pc_type jacobi -nocopies -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type {{cg cggpu}shared output} -gpukit_backend {{host cuda}shared output}

  # GAMG's interpolations, whose transposed copies have rows of 32 or more entries alike (one row a
  # slice, lanes a row), keep the layout their products chose: their device copies made in the
  # set-up must not take the fused kernels' layout, which made the finest restriction a thread a
  # row
  test:
    suffix: 3d_gamg_layouts
    output_file: output/mg_agree_layouts.out
    args: -dim 3 -n 17 -pc_type gamg -layouts -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type {{cg cggpu}shared output} -gpukit_backend {{host cuda}shared output}

  # a singular coarsest operator (pure Neumann, as ksp ex50's): its last pivot in natural order is
  # shifted as PETSc's LU shifts its own, and the solve stays AIJ's
  test:
    suffix: 2d_neumann
    output_file: output/mg_neumann.out
    args: -neumann -n 65 -pc_type mg -pc_mg_levels 3 -mg_levels_pc_type jacobi -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cg -info -gpukit_backend {{host cuda}shared output}
    filter: grep -e "^iteration" -e "shifted by" | sed "s/^.*shifted by.*$/pivot shifted/" | sort -u

  # GAMG's hierarchy in single storage declined for the singular operator (the rounded
  # prolongators would let the null space's components into the singular coarse solve, which broke
  # CG down unsmoothed): the solves converge, and -ksp_view says why
  test:
    suffix: neumann_single
    output_file: output/mg_neumann_single.out
    args: -neumann -n 65 -pc_type gamg -pc_gamg_agg_nsmooths 0 -pc_mg_gpukit_storage single -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cg -ksp_view -ksp_converged_reason -gpukit_backend {{host cuda}shared output}
    filter: grep -oE "Linear solve (did not )?converge[a-z ]* [A-Z_]+|Hierarchy kept in double[^:]*" | sort -u

  # cggpu's V-cycle replayed as a CUDA graph: the same iterations and solution as applied each time
  test:
    suffix: graph
    requires: gpu
    output_file: output/mg_agree_graph.out
    args: -pc_type mg -pc_mg_levels {{3 5}shared output} -n 65 -mg_levels_pc_type {{jacobi sor}shared output} -dm_mat_type {{ellrcuda diacuda}shared output} -dm_vec_type cuda -ksp_type cggpu -nocopies -graphtwin -info
    filter: grep -e "^iteration" -e "recorded as a graph" | sed "s/^.*recorded as a graph.*$/graph recorded/" | sort -u
  # the constants every level's null space (ksp ex50's): the smoothers' removal of them keeps its
  # sum on the device while the V-cycle is recorded, with the same bits as PETSc's removal
  test:
    suffix: graph_neumann
    requires: gpu
    output_file: output/mg_graph_neumann.out
    args: -neumann -pc_type {{mg gamg}shared output} -pc_mg_levels 4 -n 65 -mg_levels_pc_type jacobi -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu -graphtwin -info
    filter: grep -e "^iteration" -e "recorded as a graph" | sed "s/^.*recorded as a graph.*$/graph recorded/" | sort -u
  test:
    suffix: graph_gamg
    requires: gpu
    output_file: output/mg_agree_graph.out
    args: -pc_type gamg -n 65 -mg_levels_pc_type jacobi -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu -nocopies -graphtwin -info
    filter: grep -e "^iteration" -e "recorded as a graph" | sed "s/^.*recorded as a graph.*$/graph recorded/" | sort -u

  # cuSPARSE loaded ahead on a thread of its own (a process with more than one core), or by the
  # first product under -gpukit_cusparse_preload 0: -info says which; the same iterations
  test:
    suffix: preload
    requires: gpu
    output_file: output/mg_preload.out
    args: -n 65 -pc_type gamg -mg_levels_pc_type jacobi -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu -gpukit_cusparse_preload {{0 1}separate output} -info
    filter: grep -E -o "^iteration.*|cuSPARSE loaded (ahead|in)" | sort -u

  test:
    suffix: 2d_gamg
    output_file: output/mg_agree_copies.out
    args: -n 65 -pc_type gamg -mg_levels_pc_type jacobi -copies -dm_mat_type ellrcuda -dm_vec_type cuda -gpukit_backend {{host cuda}shared output}

  # PCMG's default smoother (Chebyshev with SOR): MatSOR on the device, in colours (red-black here)
  # or in AIJ's order, and so within the copy bound; the iterations as AIJ's
  test:
    suffix: 2d_sor
    output_file: output/mg_agree_copies.out
    args: -n 65 -pc_type mg -pc_mg_levels 5 -copies -dm_mat_type {{ellrcuda diacuda}shared output} -dm_vec_type cuda -mat_sor_ordering {{multicolor natural}shared output} -gpukit_backend {{host cuda}shared output}
  test:
    suffix: 3d_sor
    output_file: output/mg_agree_copies.out
    args: -dim 3 -n 17 -pc_type mg -pc_mg_levels 3 -copies -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type {{cg cggpu}shared output} -gpukit_backend {{host cuda}shared output}
  test:
    suffix: 2d_sor_mpi
    nsize: {{2 3}shared output}
    output_file: output/mg_agree.out
    args: -n 65 -pc_type mg -pc_mg_levels 4 -pc_mg_galerkin {{none both}shared output} -dm_mat_type ellrcuda -dm_vec_type cuda

  # several processes: the interpolations and Galerkin products are the device types too
  # (PETSc's MPIAIJ products on the device matrices); the halo exchanges copy, so no bound
  test:
    suffix: 2d_mpi
    nsize: {{2 3}shared output}
    output_file: output/mg_agree.out
    args: -n 65 -pc_type mg -pc_mg_levels 4 -mg_levels_pc_type jacobi -pc_mg_galerkin {{none both}shared output} -dm_mat_type {{ellrcuda diacuda}shared output} -dm_vec_type cuda
  # PCGAMG with PETSc's aggregation (its iterations within one of AIJ's; the device's aggregation
  # on several processes, whose sets are not PETSc's, is held to 15% of them by tests/run)
  test:
    suffix: 2d_mpi_gamg
    nsize: {{2 3}shared output}
    output_file: output/mg_agree.out
    args: -n 65 -pc_type gamg -pc_gamg_type agg -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type {{cg cggpu}shared output}

TEST*/
