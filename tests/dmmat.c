static char help[] = "DMDA's matrices of the device types against PETSc's own AIJ ones: the same pattern of zeros, the\n\
same local-to-global mapping and viewer, new nonzeros refused alike, then the same entries and\n\
products once both are filled through MatSetValuesStencil(), and on one process the same sums\n\
of MatSetValuesLocal()'s additions (values by rows or by columns, a negative index, new\n\
nonzeros). The library fills the pattern itself where it can (2D and 3D, DM_BOUNDARY_NONE, no\n\
block fills): run with -info :dm to see it.\n\
  -dim <d>         : 2 or 3\n\
  -n <n>           : points a side (n, n + 1, n + 2)\n\
  -dof <k>         : components (default 1)\n\
  -s <w>           : stencil width (default 1)\n\
  -box             : a box stencil (default star)\n\
  -periodic        : a periodic x boundary (PETSc's fill)\n\
  -fills           : DMDASetBlockFills() (PETSc's fill)\n\
  -type <t>        : ellrcuda (default) or diacuda\n\
  -vecfirst <0,1>  : a global vector made before the first matrix (default 1); with 0 the first\n\
                     matrix is PETSc's, assembled, and a second one is made\n\
  -anytype         : the device DM's matrix may be of another type (-mat_type given)\n\n";

#include <petscdmda.h>
#include <petscgpukit.h>

static PetscErrorCode Grid(PetscInt dim, PetscInt n, PetscInt dof, PetscInt s, PetscBool box, PetscBool periodic, PetscBool fills, MatType mtype,
                           VecType vtype, DM *da)
{
  const DMBoundaryType  bx = periodic ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_NONE;
  const DMDAStencilType st = box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR;

  PetscFunctionBegin;
  if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, bx, DM_BOUNDARY_NONE, st, n, n + 1, PETSC_DECIDE, PETSC_DECIDE, dof, s, NULL, NULL, da));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, bx, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, st, n, n + 1, n + 2, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE,
                           dof, s, NULL, NULL, NULL, da));
  PetscCall(DMSetMatType(*da, mtype));
  PetscCall(DMSetVecType(*da, vtype));
  PetscCall(DMSetUp(*da));
  if (fills) {
    PetscInt *dfill, *ofill;

    /* each component coupled to itself and the next one inside a point, to itself across points */
    PetscCall(PetscCalloc2(dof * dof, &dfill, dof * dof, &ofill));
    for (PetscInt c = 0; c < dof; c++) {
      dfill[c * dof + c]             = 1;
      dfill[c * dof + (c + 1) % dof] = 1;
      ofill[c * dof + c]             = 1;
    }
    PetscCall(DMDASetBlockFills(*da, dfill, ofill));
    PetscCall(PetscFree2(dfill, ofill));
  }
  PetscFunctionReturn(0);
}

/* Whether inserting a new nonzero at (first owned row, last column) fails (not in any row's
   stencil on these grids) */
static PetscErrorCode Refused(Mat A, PetscBool *refused)
{
  PetscInt       rstart, rend, N;
  PetscErrorCode ierr = 0;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetSize(A, NULL, &N));
  *refused = PETSC_TRUE;
  if (rend > rstart) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSetValue(A, rstart, N - 1, 1.0, INSERT_VALUES);
    PetscCall(PetscPopErrorHandler());
    *refused = ierr ? PETSC_TRUE : PETSC_FALSE;
  }
  {
    PetscInt all = *refused;

    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &all, 1, MPIU_INT, MPI_MIN, PETSC_COMM_WORLD));
    *refused = all ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

/* Every owned point's stencil given a value of its row and column, through the DM's stencil */
static PetscErrorCode Fill(DM da, Mat A)
{
  PetscInt        dim, dof, s, M, N, P, xs, ys, zs, xm, ym, zm;
  DMDAStencilType st;
  MatStencil      row, *cols;
  PetscScalar    *v;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, &s, NULL, NULL, NULL, &st));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(PetscMalloc2(125 * 9, &cols, 125 * 9, &v));
  if (dim == 2) P = 1;
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++)
        for (PetscInt c = 0; c < dof; c++) {
          PetscInt cnt = 0;

          row.i = i, row.j = j, row.k = k, row.c = c;
          for (PetscInt r = (dim == 3 ? -s : 0); r <= (dim == 3 ? s : 0); r++)
            for (PetscInt q = -s; q <= s; q++)
              for (PetscInt p = -s; p <= s; p++) {
                if (i + p < 0 || i + p >= M || j + q < 0 || j + q >= N || k + r < 0 || k + r >= P) continue;
                if (st == DMDA_STENCIL_STAR && ((p && q) || (q && r) || (p && r))) continue;
                cols[cnt].i = i + p, cols[cnt].j = j + q, cols[cnt].k = k + r, cols[cnt].c = c;
                v[cnt] = (PetscScalar)(1 + c + 2 * (p + 3 * q + 9 * r)) / (PetscScalar)(1 + i + j + k);
                cnt++;
              }
          PetscCall(MatSetValuesStencil(A, 1, &row, cnt, cols, v, INSERT_VALUES));
        }
  PetscCall(PetscFree2(cols, v));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* MatSetValuesLocal() in blocks of two rows (the first components of two points next to each
   other along x) and their two columns in the local numbering (in every other block with a
   negative one, which PETSc ignores), added with the values row- or column-oriented; with newnz
   also a column outside both rows' stencils (a new nonzero, allowed), after which the rows hold
   room to spare until the next assembly */
static PetscErrorCode AddLocal(DM da, Mat A, PetscBool colmajor, PetscBool newnz)
{
  PetscInt    dim, dof, s, xs, ys, zs, xm, ym, zm, gxs, gys, gzs, gxm, gym, gzm;
  PetscInt    rows[2], cols[4];
  PetscScalar v[8];

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &dof, &s, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetGhostCorners(da, &gxs, &gys, &gzs, &gxm, &gym, &gzm));
  PetscCall(MatSetOption(A, MAT_ROW_ORIENTED, (PetscBool)!colmajor));
  if (newnz) PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
#define LOCAL(i, j, k, c) (((((k) - gzs) * gym + ((j) - gys)) * gxm + ((i) - gxs)) * dof + (c))
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i + 1 < xs + xm; i += 2) {
        PetscInt nc = 0;

        rows[0]    = LOCAL(i, j, k, 0);
        rows[1]    = LOCAL(i + 1, j, k, 0);
        cols[nc++] = rows[1];
        cols[nc++] = rows[0];
        if ((i - xs) % 4) cols[nc++] = -1;                                                                /* in every other block */
        if (newnz && j == ys && k == zs && i + s + 2 < gxs + gxm) cols[nc++] = LOCAL(i + s + 2, j, k, 0); /* a few, along the first line */
        for (PetscInt q = 0; q < 2 * nc; q++) v[q] = (PetscScalar)(1 + q) / (PetscScalar)(1 + rows[0]);
        PetscCall(MatSetValuesLocal(A, 2, rows, nc, cols, v, ADD_VALUES));
      }
#undef LOCAL
  PetscCall(MatSetOption(A, MAT_ROW_ORIENTED, PETSC_TRUE));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* MatSetValuesLocal() a row at a time, as MatSetValuesStencil() calls it (the library's own path
   on one process where the local numbering is the global one): each point's first component
   with its stencil's columns (1) ascending, added; (2) the diagonal and the last column alone,
   inserted; (3) descending, added, at the last point with the diagonal twice (PETSc's path);
   (4) ascending with a new nonzero among them on the first line of points, added (PETSc's
   path). Each pass ends in
   an assembly, but with unassembled set */
static PetscErrorCode SetLocalRows(DM da, Mat A, PetscInt pass, PetscBool unassembled)
{
  PetscInt    dim, dof, s, M, N, P, xs, ys, zs, xm, ym, zm, gxs, gys, gzs, gxm, gym, gzm;
  PetscInt    row, cols[128], nc;
  PetscScalar v[128];

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, &s, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetGhostCorners(da, &gxs, &gys, &gzs, &gxm, &gym, &gzm));
  if (dim == 2) P = 1;
#define LOCAL(i, j, k) (((((k) - gzs) * gym + ((j) - gys)) * gxm + ((i) - gxs)) * dof)
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        nc  = 0;
        row = LOCAL(i, j, k);
        for (PetscInt r = (dim == 3 ? -s : 0); r <= (dim == 3 ? s : 0); r++)
          for (PetscInt q = -s; q <= s; q++)
            for (PetscInt p = -s; p <= s; p++) {
              if (i + p < 0 || i + p >= M || j + q < 0 || j + q >= N || k + r < 0 || k + r >= P) continue;
              if ((p && q) || (q && r) || (p && r)) continue; /* the star's columns: in either stencil */
              cols[nc] = LOCAL(i + p, j + q, k + r);
              v[nc]    = (PetscScalar)(1 + nc) / (PetscScalar)(1 + row);
              nc++;
              /* a column outside the stencil, among the row's own, on the first line of points
                 (each new nonzero moves all of SEQAIJ's arrays: on every row that is quadratic) */
              if (pass == 4 && p == s && !q && !r && i + s + 1 < xs + xm && j == ys && k == zs) {
                cols[nc] = LOCAL(i + s + 1, j, k);
                v[nc]    = 0.5;
                nc++;
              }
            }
        if (pass == 2) { /* the diagonal and the last column */
          for (PetscInt c = 0; c < nc; c++)
            if (cols[c] == row) {
              cols[0] = row;
              v[0]    = 3.0;
            }
          if (cols[nc - 1] != row) {
            cols[1] = cols[nc - 1];
            v[1]    = v[nc - 1];
            nc      = 2;
          } else nc = 1;
        }
        if (pass == 3) {
          for (PetscInt c = 0; c < nc / 2; c++) {
            PetscInt t = cols[c];

            cols[c]          = cols[nc - 1 - c];
            cols[nc - 1 - c] = t;
          }
          if (i == xs + xm - 1 && j == ys + ym - 1 && k == zs + zm - 1) {
            cols[nc] = row;
            v[nc++]  = 1.0;
          }
        }
        PetscCall(MatSetValuesLocal(A, 1, &row, nc, cols, v, pass == 2 ? INSERT_VALUES : ADD_VALUES));
      }
#undef LOCAL
  if (!unassembled) {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* A (the device type) equal to B (AIJ), entry by entry */
static PetscErrorCode Same(Mat A, Mat B, const char *what)
{
  Mat       Aaij;
  PetscBool eq;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Aaij));
  PetscCall(MatEqual(Aaij, B, &eq));
  PetscCheck(eq, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The device type's matrix differs from PETSc's: %s", what);
  PetscCall(MatDestroy(&Aaij));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt               dim = 2, n = 6, dof = 1, s = 1;
  PetscBool              box = PETSC_FALSE, periodic = PETSC_FALSE, fills = PETSC_FALSE, vecfirst = PETSC_TRUE, anytype = PETSC_FALSE, refused[2];
  char                   type[64] = MATELLRCUDA;
  DM                     da[2];
  Mat                    A[2];
  Vec                    x[2], y[2];
  ISLocalToGlobalMapping rmap, cmap, dmap;
  PetscMPIInt            size;
  PetscReal              d, ny;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-s", &s, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-box", &box, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-periodic", &periodic, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-fills", &fills, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-vecfirst", &vecfirst, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-anytype", &anytype, NULL));
  PetscCheck(dof <= 9 && s <= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "At most 9 components and width 2");
  /* [0]: PETSc alone (AIJ); [1]: the device type */
  PetscCall(Grid(dim, n, dof, s, box, periodic, fills, MATAIJ, VECSTANDARD, &da[0]));
  PetscCall(Grid(dim, n, dof, s, box, periodic, fills, type, VECGKCUDA, &da[1]));
  for (PetscInt t = 0; t < 2; t++) PetscCall(DMCreateGlobalVector(da[t], &x[t]));
  if (!vecfirst) PetscCall(VecDestroy(&x[1]));
  PetscCall(DMCreateMatrix(da[0], &A[0]));
  PetscCall(DMCreateMatrix(da[1], &A[1]));
  if (!vecfirst) { /* PETSc's, whose assembly hooks the DM: the next one is the library's */
    PetscCall(MatAssemblyBegin(A[1], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A[1], MAT_FINAL_ASSEMBLY));
    PetscCall(MatDestroy(&A[1]));
    PetscCall(DMCreateMatrix(da[1], &A[1]));
    PetscCall(DMCreateGlobalVector(da[1], &x[1]));
  }
  {
    MatType   got;
    PetscBool dia;

    PetscCall(PetscStrcmp(type, MATDIACUDA, &dia));
    PetscCall(MatGetType(A[1], &got));
    PetscCall(PetscObjectTypeCompare((PetscObject)A[1], size > 1 ? (dia ? MATMPIDIACUDA : MATMPIELLRCUDA) : (dia ? MATSEQDIACUDA : MATSEQELLRCUDA),
                                     &refused[0]));
    PetscCheck(refused[0] || anytype, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DMCreateMatrix() gave a %s", got);
  }

  /* the pattern, zeros: as PETSc's */
  PetscCall(Same(A[1], A[0], "the pattern"));
  /* the DM's mapping, and in parallel DMDA's viewer (natural ordering) */
  PetscCall(MatGetLocalToGlobalMapping(A[1], &rmap, &cmap));
  PetscCall(DMGetLocalToGlobalMapping(da[1], &dmap));
  PetscCheck(rmap == dmap && cmap == dmap, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The matrix's local-to-global mapping is not the DM's");
  if (size > 1) {
    void (*v0)(void), (*v1)(void);

    PetscCall(MatGetOperation(A[0], MATOP_VIEW, &v0));
    PetscCall(MatGetOperation(A[1], MATOP_VIEW, &v1));
    PetscCheck(v0 == v1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The matrix is not viewed as DMDA's are");
  }

  /* the same entries through the stencil, then the same products */
  for (PetscInt t = 0; t < 2; t++) PetscCall(Fill(da[t], A[t]));
  PetscCall(Same(A[1], A[0], "the entries"));
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(VecSetRandom(x[0], NULL));
    PetscCall(VecCopy(x[0], x[1]));
    PetscCall(VecDuplicate(x[t], &y[t]));
  }
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatMult(A[t], x[t], y[t]));
  PetscCall(VecNorm(y[0], NORM_INFINITY, &ny));
  PetscCall(VecCopy(y[1], x[0]));
  PetscCall(VecAXPY(x[0], -1.0, y[0]));
  PetscCall(VecNorm(x[0], NORM_INFINITY, &d));
  PetscCheck(d <= 1e-13 * ny, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The products differ by %g of %g", (double)d, (double)ny);

  /* on one process (the sequential type's host rows), MatSetValuesLocal() added into the
     pattern, values row- then column-oriented; then new nonzeros taken, and the stencil filled
     again after their assembly */
  if (size == 1) {
    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(AddLocal(da[t], A[t], PETSC_FALSE, PETSC_FALSE));
      PetscCall(AddLocal(da[t], A[t], PETSC_TRUE, PETSC_FALSE));
    }
    PetscCall(Same(A[1], A[0], "the entries MatSetValuesLocal() added"));
    for (PetscInt t = 0; t < 2; t++) PetscCall(AddLocal(da[t], A[t], PETSC_FALSE, PETSC_TRUE));
    PetscCall(Same(A[1], A[0], "new nonzeros MatSetValuesLocal() inserted"));
    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(Fill(da[t], A[t]));
      PetscCall(AddLocal(da[t], A[t], PETSC_TRUE, PETSC_FALSE));
      PetscCall(MatSetOption(A[t], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
    }
    PetscCall(Same(A[1], A[0], "the entries filled again"));
  }

  /* a new nonzero refused by both */
  for (PetscInt t = 0; t < 2; t++) PetscCall(Refused(A[t], &refused[t]));
  PetscCheck(refused[0] && refused[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "A new nonzero was %s by PETSc's and %s by the device type's",
             refused[0] ? "refused" : "taken", refused[1] ? "refused" : "taken");
  /* on one process, rows set one at a time (the library's path where it can), then after a new
     nonzero MatSetValues() inserted, and after MatZeroRows(); a local row out of range refused */
  if (size == 1) {
    PetscErrorCode ierr[2];
    PetscInt       N, zero[2] = {0, 3};
    PetscScalar    one = 1.0;

    for (PetscInt t = 0; t < 2; t++) { /* after the refused insertion */
      PetscCall(MatAssemblyBegin(A[t], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A[t], MAT_FINAL_ASSEMBLY));
    }
    for (PetscInt pass = 1; pass <= 3; pass++) {
      for (PetscInt t = 0; t < 2; t++) PetscCall(SetLocalRows(da[t], A[t], pass, PETSC_FALSE));
      PetscCall(Same(A[1], A[0], "rows MatSetValuesLocal() set one at a time"));
    }
    PetscCall(MatGetSize(A[0], NULL, &N));
    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(MatSetOption(A[t], MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
      PetscCall(MatSetOption(A[t], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(MatSetValue(A[t], 1, N - 1, 1.0, ADD_VALUES));
      PetscCall(SetLocalRows(da[t], A[t], 1, PETSC_TRUE));
      PetscCall(SetLocalRows(da[t], A[t], 3, PETSC_FALSE));
      PetscCall(SetLocalRows(da[t], A[t], 4, PETSC_FALSE));
    }
    PetscCall(Same(A[1], A[0], "rows set one at a time after a new nonzero"));
    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(MatZeroRows(A[t], 2, zero, 2.0, NULL, NULL));
      PetscCall(SetLocalRows(da[t], A[t], 1, PETSC_FALSE));
    }
    PetscCall(Same(A[1], A[0], "rows set one at a time after MatZeroRows()"));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    PetscCall(ISLocalToGlobalMappingGetSize(rmap, &N)); /* the local numbering's size: one past its last */
    for (PetscInt t = 0; t < 2; t++) ierr[t] = MatSetValuesLocal(A[t], 1, &N, 1, zero, &one, ADD_VALUES);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr[0] && ierr[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "A local row out of range was %s by PETSc's and %s by the device type's",
               ierr[0] ? "refused" : "taken", ierr[1] ? "refused" : "taken");
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD, %d components, width %d: the device matrix equals PETSc's\n", (int)dim, (int)dof, (int)s));

  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatDestroy(&A[t]));
    PetscCall(VecDestroy(&x[t]));
    PetscCall(VecDestroy(&y[t]));
    PetscCall(DMDestroy(&da[t]));
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # the library's fill: 2D and 3D, star and box, one to three processes, both backends; the
  # filter keeps the library's -info line (once for all processes) and the program's
  testset:
    args: -info :dm
    filter: grep -o "set row by row\|pattern filled by the library\|the device matrix equals PETSc's" | sort -u
    output_file: output/dmmat_fill.out
    test:
      suffix: fill
      nsize: {{1 2 3}shared output}
      args: -dim {{2 3}shared output} -box {{0 1}shared output} -gpukit_backend {{host cuda}shared output}
    test:
      suffix: fill_wide
      nsize: {{1 3}shared output}
      args: -dim {{2 3}shared output} -dof 3 -s 2 -box {{0 1}shared output}
    # the fill spread over threads (more than the cores where the machine has fewer)
    test:
      suffix: fill_threads
      nsize: {{1 2}shared output}
      args: -dim 3 -n 40 -box {{0 1}shared output} -gpukit_host_threads 4
    test:
      suffix: fill_dia
      nsize: {{1 2}shared output}
      args: -type diacuda -dim {{2 3}shared output}
    # the first matrix made before any vector: PETSc's; the second the library's
    test:
      suffix: fill_matfirst
      nsize: {{1 2}shared output}
      args: -vecfirst 0

  # one process: rows set one at a time through the library's own path where the local
  # numbering is the global one, PETSc's where it is not (a periodic boundary's ghosts)
  test:
    suffix: setlocal
    args: -info :mat -dim {{2 3}shared output} -box {{0 1}shared output} -gpukit_backend {{host cuda}shared output}
    filter: grep -o "numbering is the global one\|numbering is not the global one\|the device matrix equals PETSc's" | sort -u
  test:
    suffix: setlocal_periodic
    args: -info :mat -dim {{2 3}shared output} -periodic -type {{ellrcuda diacuda}shared output}
    filter: grep -o "numbering is the global one\|numbering is not the global one\|the device matrix equals PETSc's" | sort -u

  # PETSc's own fill, the library's line absent: a periodic boundary, block fills
  testset:
    args: -info :dm
    filter: grep -o "set row by row\|pattern filled by the library\|the device matrix equals PETSc's" | sort -u
    output_file: output/dmmat_petsc.out
    test:
      suffix: periodic
      nsize: {{1 2}shared output}
      args: -dim {{2 3}shared output} -periodic
    test:
      suffix: fills
      nsize: {{1 2}shared output}
      args: -dof 2 -fills

  # -mat_type (read by the matrix's MatSetFromOptions() inside DMCreateMatrix()) making it AIJ:
  # PETSc's own creatematrix again, with its fill
  test:
    suffix: mat_type
    nsize: {{1 2}shared output}
    args: -info :dm -mat_type aij -anytype
    filter: grep -o "aij by an option\|pattern filled by the library\|the device matrix equals PETSc's" | sort -u

  # the library's fill one point at a time (-gpukit_dm_fill_rows; what it falls back to where
  # PETSc's preallocation is not the stencil's), the same matrix
  test:
    suffix: fill_rows
    nsize: {{1 2}shared output}
    args: -info :dm -gpukit_dm_fill_rows -dim {{2 3}shared output} -box {{0 1}shared output}
    filter: grep -o "set row by row (-gpukit_dm_fill_rows)\|pattern filled by the library\|the device matrix equals PETSc's" | sort -u

TEST*/
