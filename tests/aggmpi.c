static char
  help[] = "PCGAMG's aggregation on several processes (the backend's aggregate with a halo, the tentative prolongator) against one process's.\n\
  -problem <lap2d,lap3d,random> : the graph\n\
  -n <n>         : its size parameter\n\
  -dist <d>      : the maximal independent set's distance, 1 or 2\n\
  -layout <even,uneven,empty> : the rows split evenly, unevenly, or none on process 1\n\
  -bs <bs>       : the rows of a node (the graph's vertices are the nodes)\n\
  -nv <nv>       : the near null space's vectors\n\
  -strength <thr>: the graph made as the strength graph of an mpiellrcuda matrix of that pattern\n\
                   (values not symmetric), symmetrized and filtered with this threshold\n\
  -known_symmetric : its values symmetric instead, the graph not symmetrized (as for a matrix\n\
                   marked symmetric)\n\
  -unpaired      : that matrix with an entry (0, N-1) whose mirror is not stored: no graph made\n\
  -smooth        : the tentative prolongator smoothed on the devices, against PETSc's AGG's step\n\n";

/*
   The graph, split between the processes as the layout says, is coarsened by
   PCGAMGAggGPUAggregateMPI_Private() (each process's rows on the backend, the boundary's states
   exchanged) and its tentative prolongator made by PCGAMGAggGPUTentativeMPI_Private(); every
   process also coarsens the whole graph alone (the backend's aggregate without a halo) and makes
   its tentative prolongator (tentative, or tentativeblock for nodes of bs rows and nv vectors).
   The aggregates, the roots, the prolongator's entries and the coarse vectors must be the same,
   bit for bit, however the rows are split: the output is the same for every process count and
   layout. With -strength the graph is first made by PCGAMGAggGPUGraphMPI_Private() from an
   mpiellrcuda matrix (its off-diagonal weights' mirrors and its ghosts' scales from their owners)
   and by the backend's strength on the whole matrix alone: each process's rows of the two graphs
   must hold the same columns. With -smooth the tentative prolongator is smoothed by
   PCGAMGAggGPUSmoothMPI_Private() (made with another step, then given new values in place) with
   an mpiellrcuda matrix of bs x bs blocks on the graph's
   pattern (values not symmetric) and, from the same tentative prolongator, by PETSc's AGG's step
   on MPIAIJ (MatMatMult(), the diagonal's reciprocal, MatAYPX()): each row's columns must be the
   same and its values within rounding (the sums' order differs).
*/
#include <petscgpukit.h>
#include "include/gpukitimpl.h"
#include "pc/gamg/aggmpi.h"
#include "testutil.h"

typedef enum {
  LAP2D,
  LAP3D,
  RANDOM
} Problem;
static const char *const Problems[] = {"lap2d", "lap3d", "random", "Problem", "", NULL};

/* whether u and v (u != v) are joined: a grid's neighbours among the interior points (the
   boundary's points joined to none, as a Dirichlet row is), or a symmetric hash */
static PetscBool Edge(Problem p, PetscInt n, PetscInt u, PetscInt v)
{
  if (p == RANDOM) {
    const PetscInt a = PetscMin(u, v), b = PetscMax(u, v);

    return (PetscBool)(((a * 7919 + b * 104729) ^ (a * b)) % 53 < 2);
  } else {
    const PetscInt dim   = p == LAP2D ? 2 : 3;
    PetscInt       cu[3] = {0, 0, 0}, cv[3] = {0, 0, 0}, d = 0;

    for (PetscInt k = 0, x = u, y = v; k < dim; k++, x /= n, y /= n) {
      cu[k] = x % n;
      cv[k] = y % n;
      if (cu[k] == 0 || cu[k] == n - 1 || cv[k] == 0 || cv[k] == n - 1) return PETSC_FALSE;
      d += PetscAbsInt(cu[k] - cv[k]);
    }
    return (PetscBool)(d == 1);
  }
}

/* the mpiellrcuda matrix of the whole graph's pattern and values av, this process's rows; with
   unpaired, an entry (0, N - 1) more, whose mirror is not stored */
static PetscErrorCode DeviceMatrix(PetscInt N, PetscInt mloc, PetscInt rstart, const PetscInt *ai, const PetscInt *aj, const PetscScalar *av,
                                   PetscBool unpaired, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, mloc, mloc, N, N));
  PetscCall(MatSetType(*A, MATMPIELLRCUDA));
  PetscCall(MatMPIAIJSetPreallocation(*A, 21, NULL, 21, NULL));
  for (PetscInt u = rstart; u < rstart + mloc; u++) PetscCall(MatSetValues(*A, 1, &u, ai[u + 1] - ai[u], aj + ai[u], av + ai[u], INSERT_VALUES));
  if (unpaired && rstart == 0 && mloc > 0) PetscCall(MatSetValue(*A, 0, N - 1, -1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The level's matrix of bs x bs blocks on the graph's pattern (ai, aj), values not symmetric,
   this process's rows; the tentative prolongator t (and P0, the same as a matrix) smoothed on the
   devices and by PETSc's AGG's step; *same whether this process's rows agree, *ns P's entries */
static PetscErrorCode SmoothCheck(PetscInt N, PetscInt bs, PetscInt mloc, PetscInt rstart, const PetscInt *ai, const PetscInt *aj,
                                  const GKAggMPITentative *t, Mat P0, PetscBool *same, PetscInt *ns)
{
  const PetscReal alpha = -1.4 / 2.3;
  Mat             A, Aaij, P0aij, T, Ps = NULL;
  Vec             d;
  MatInfo         info;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, mloc * bs, mloc * bs, N * bs, N * bs));
  PetscCall(MatSetBlockSize(A, bs));
  PetscCall(MatSetType(A, MATMPIELLRCUDA));
  PetscCall(MatMPIAIJSetPreallocation(A, 21 * bs, NULL, 21 * bs, NULL));
  for (PetscInt u = rstart; u < rstart + mloc; u++)
    for (PetscInt k = ai[u]; k < ai[u + 1]; k++)
      for (PetscInt ci = 0; ci < bs; ci++)
        for (PetscInt cj = 0; cj < bs; cj++) {
          const PetscInt i = u * bs + ci, j = aj[k] * bs + cj;

          PetscCall(MatSetValue(A, i, j, i == j ? 4.0 + (PetscReal)(i % 3) : -0.5 - 0.25 * (PetscReal)((3 * i + 5 * j) % 7), INSERT_VALUES));
        }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PCGAMGAggGPUSmoothMPI_Private(A, t, 2.0 * alpha, &Ps)); /* made, then given the values compared */
  PetscCall(PCGAMGAggGPUSmoothMPI_Private(A, t, alpha, &Ps));
  /* PETSc's AGG's step (agg.c, PCGAMGOptProlongator_AGG), on MPIAIJ */
  PetscCall(MatConvert(A, MATMPIAIJ, MAT_INITIAL_MATRIX, &Aaij));
  PetscCall(MatConvert(P0, MATMPIAIJ, MAT_INITIAL_MATRIX, &P0aij));
  PetscCall(MatMatMult(Aaij, P0aij, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &T));
  PetscCall(MatCreateVecs(Aaij, &d, NULL));
  PetscCall(MatGetDiagonal(Aaij, d));
  PetscCall(VecReciprocal(d));
  PetscCall(MatDiagonalScale(T, d, NULL));
  PetscCall(MatAYPX(T, alpha, P0aij, SUBSET_NONZERO_PATTERN));
  *same = PETSC_TRUE;
  for (PetscInt i = rstart * bs; i < (rstart + mloc) * bs && *same; i++) {
    PetscInt           nc, nr;
    const PetscInt    *cols, *rcols;
    const PetscScalar *v, *rv;

    PetscCall(MatGetRow(Ps, i, &nc, &cols, &v));
    PetscCall(MatGetRow(T, i, &nr, &rcols, &rv));
    *same = (PetscBool)(nc == nr);
    for (PetscInt k = 0; k < nc && *same; k++)
      *same = (PetscBool)(cols[k] == rcols[k] && PetscAbsScalar(v[k] - rv[k]) <= 1e-13 * PetscMax(1.0, PetscAbsScalar(rv[k])));
    PetscCall(MatRestoreRow(Ps, i, &nc, &cols, &v));
    PetscCall(MatRestoreRow(T, i, &nr, &rcols, &rv));
  }
  PetscCall(MatGetInfo(Ps, MAT_GLOBAL_SUM, &info));
  *ns = (PetscInt)info.nz_used;
  PetscCall(VecDestroy(&d));
  PetscCall(MatDestroy(&T));
  PetscCall(MatDestroy(&Ps));
  PetscCall(MatDestroy(&P0aij));
  PetscCall(MatDestroy(&Aaij));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Problem                p   = LAP2D;
  Layout                 lay = LAYOUT_EVEN;
  PetscInt               n = 20, dist = 1, N, *ai, *aj, nnz = 0, mloc, rstart, *dref, nref, *agg, *roots, *dagg, nagg, astart, *all;
  PetscMPIInt            size, rank;
  PetscScalar           *pref, *dp, *vals;
  PetscReal             *b, *rref, *db, *dr, *r;
  Mat                    G, A, P;
  PetscInt               bs = 1, nv = 1, M;
  PetscBool              same = PETSC_TRUE, sameP = PETSC_TRUE, sameG = PETSC_TRUE, strength = PETSC_FALSE;
  PetscReal              thr   = 0.0;
  PetscBool              known = PETSC_FALSE, unpaired = PETSC_FALSE, smooth = PETSC_FALSE, sameS = PETSC_TRUE;
  PetscInt               nS = 0;
  PetscScalar           *av = NULL;
  PetscInt              *di, *dj, *si = NULL, *sj = NULL;
  PetscGPUKitBackendType backend;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscGPUKitGetBackend(&backend)); /* the backend set up (-gpukit_backend) */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Aggregation on several processes", NULL);
  PetscCall(PetscOptionsEnum("-problem", "The graph", NULL, Problems, (PetscEnum)p, (PetscEnum *)&p, NULL));
  PetscCall(PetscOptionsInt("-n", "Size parameter", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-dist", "Distance", NULL, dist, &dist, NULL));
  PetscCall(PetscOptionsEnum("-layout", "Layout", NULL, Layouts, (PetscEnum)lay, (PetscEnum *)&lay, NULL));
  PetscCall(PetscOptionsInt("-bs", "Rows of a node", NULL, bs, &bs, NULL));
  PetscCall(PetscOptionsInt("-nv", "Near-null-space vectors", NULL, nv, &nv, NULL));
  PetscCall(PetscOptionsReal("-strength", "The strength graph's threshold", NULL, thr, &thr, &strength));
  PetscCall(PetscOptionsBool("-known_symmetric", "Symmetric values, the graph not symmetrized", NULL, known, &known, NULL));
  PetscCall(PetscOptionsBool("-unpaired", "An entry whose mirror is not stored", NULL, unpaired, &unpaired, NULL));
  PetscCall(PetscOptionsBool("-smooth", "The tentative prolongator smoothed on the devices", NULL, smooth, &smooth, NULL));
  PetscOptionsEnd();
  N = p == LAP2D ? n * n : p == LAP3D ? n * n * n : n;

  /* the whole graph, on every process: each row's columns ascending, the diagonal among them */
  PetscCall(PetscMalloc2(N + 1, &ai, N * 20 + N, &aj));
  ai[0] = 0;
  for (PetscInt u = 0; u < N; u++) {
    for (PetscInt v = 0; v < N; v++)
      if (v == u || Edge(p, n, u, v)) {
        PetscCheck(nnz < N * 20 + N, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Too many edges");
        aj[nnz++] = v;
      }
    ai[u + 1] = nnz;
  }

  if (strength) { /* the weights: a symmetric pattern, values that are not */
    PetscCall(PetscMalloc1(nnz, &av));
    for (PetscInt u = 0; u < N; u++)
      for (PetscInt k = ai[u]; k < ai[u + 1]; k++) {
        const PetscInt v = aj[k], a = known ? PetscMin(u, v) : u, b = known ? PetscMax(u, v) : v;

        av[k] = v == u ? 4.0 + (PetscReal)(u % 3) : -1.0 - 0.25 * (PetscReal)((3 * a + 5 * b) % 7);
      }
  }

  mloc = LocalSize(lay, N, rank, size); /* this process's rows */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &G));
  PetscCall(MatSetSizes(G, mloc, mloc, N, N));
  PetscCall(MatSetType(G, MATMPIAIJ));
  PetscCallMPI(MPI_Scan(&mloc, &rstart, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  rstart -= mloc;
  {
    PetscInt *li;

    PetscCall(PetscMalloc2(mloc + 1, &li, ai[rstart + mloc] - ai[rstart] + 1, &vals));
    for (PetscInt v = 0; v <= mloc; v++) li[v] = ai[rstart + v] - ai[rstart];
    for (PetscInt k = 0; k < li[mloc]; k++) vals[k] = 1.0;
    PetscCall(MatMPIAIJSetPreallocationCSR(G, li, aj + ai[rstart], vals));
    PetscCall(PetscFree2(li, vals));
  }

  if (strength && unpaired) { /* no graph on the devices, on every process alike (PETSc's is made then) */
    Mat Ad, S;

    PetscCall(DeviceMatrix(N, mloc, rstart, ai, aj, av, PETSC_TRUE, &Ad));
    PetscCall(PCGAMGAggGPUGraphMPI_Private(Ad, PETSC_TRUE, thr, &S));
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "an entry whose mirror is not stored: %s\n", S ? "a graph made on the devices" : "no graph made on the devices"));
    PetscCall(MatDestroy(&S));
    PetscCall(MatDestroy(&Ad));
    PetscCall(MatDestroy(&G));
    PetscCall(PetscFree(av));
    PetscCall(PetscFree2(ai, aj));
    PetscCall(PetscFinalize());
    return 0;
  }

  /* one process's aggregates and tentative prolongator of the whole graph */
  PetscCall(GKMallocH2D(N + 1, ai, &di));
  PetscCall(GKMallocH2D(nnz, aj, &dj));
  if (strength) { /* the graph: the backend's strength graph of the whole matrix, the matrix's pattern's place taken */
    GKCsr     dA = {N, N, nnz, di, dj, NULL}, dS;
    PetscBool mirrored;

    PetscCall(GKMallocH2D(nnz, av, &dA.a));
    PetscCall(GKDev->strength(&dA, NULL, known ? PETSC_FALSE : PETSC_TRUE, thr, &dS, &mirrored));
    PetscCheck(mirrored, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The pattern is symmetric");
    PetscCall(GKFree(dA.a));
    PetscCall(GKFree(di));
    PetscCall(GKFree(dj));
    di = dS.i;
    dj = dS.j;
    PetscCall(PetscMalloc2(N + 1, &si, dS.nnz, &sj));
    PetscCall(GKMemcpyD2H(si, di, sizeof(PetscInt) * (size_t)(N + 1)));
    PetscCall(GKMemcpyD2H(sj, dj, sizeof(PetscInt) * (size_t)dS.nnz));
  }
  PetscCall(GKMalloc(2 * N, &dref));
  PetscCall(GKDev->aggregate(N, di, dj, dist, NULL, dref, dref + N, &nref));
  M = N * bs; /* the rows; the nv vectors by columns, some of their entries zero */
  PetscCall(PetscMalloc3(M * nv, &b, M * nv, &pref, nref * nv * nv, &rref));
  for (PetscInt i = 0; i < M; i++)
    for (PetscInt k = 0; k < nv; k++)
      b[i + k * M] = (i + 2 * k) % 5 == 3 ? 0.0 : PetscSinReal(0.7 * i + 1.3 * k * k + 0.2) + (k == i % bs ? 1.5 : 0.0);
  PetscCall(GKMallocH2D(M * nv, b, &db));
  PetscCall(GKMalloc(M * nv, &dp));
  PetscCall(GKMalloc(nref * nv * nv, &dr));
  if (bs == 1 && nv == 1) PetscCall(GKDev->tentative(N, dref, nref, db, dp, dr));
  else PetscCall(GKDev->tentativeblock(N, bs, nv, dref, nref, db, dp, dr));
  PetscCall(GKMemcpyD2H(pref, dp, sizeof(PetscScalar) * (size_t)(M * nv)));
  PetscCall(GKMemcpyD2H(rref, dr, sizeof(PetscReal) * (size_t)(nref * nv * nv)));

  /* this split's strength graph: each row's columns in global numbers, against one process's */
  if (strength) {
    Mat            S, Ad;
    GKAggMPIGraph *c;
    PetscInt      *gi, *gj, *gid;

    PetscCall(MatDestroy(&G));
    PetscCall(DeviceMatrix(N, mloc, rstart, ai, aj, av, PETSC_FALSE, &Ad));
    PetscCall(PCGAMGAggGPUGraphMPI_Private(Ad, known ? PETSC_FALSE : PETSC_TRUE, thr, &S));
    PetscCheck(S, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "No strength graph made on the devices");
    PetscCall(MatShellGetContext(S, &c));
    PetscCall(PetscMalloc3(mloc + 1, &gi, c->g.nnz, &gj, mloc + c->h.nghost, &gid));
    PetscCall(GKMemcpyD2H(gi, c->g.i, sizeof(PetscInt) * (size_t)(mloc + 1)));
    PetscCall(GKMemcpyD2H(gj, c->g.j, sizeof(PetscInt) * (size_t)c->g.nnz));
    PetscCall(GKMemcpyD2H(gid, c->gid, sizeof(PetscInt) * (size_t)(mloc + c->h.nghost)));
    for (PetscInt v = 0; v < mloc && sameG; v++) {
      const PetscInt u = rstart + v, len = gi[v + 1] - gi[v];

      for (PetscInt k = gi[v]; k < gi[v + 1]; k++) gj[k] = gid[gj[k]];
      PetscCall(PetscSortInt(len, gj + gi[v]));
      sameG = (PetscBool)(len == si[u + 1] - si[u]);
      for (PetscInt k = 0; k < len && sameG; k++) sameG = (PetscBool)(gj[gi[v] + k] == sj[si[u] + k]);
    }
    PetscCall(PetscFree3(gi, gj, gid));
    PetscCall(MatDestroy(&Ad));
    G = S;
  }

  /* this split's, gathered */
  PetscCall(PCGAMGAggGPUAggregateMPI_Private(G, dist, &dagg, &nagg));
  PetscCall(PetscMalloc3(N, &all, mloc + 1, &agg, mloc + 1, &roots));
  PetscCall(GKMemcpyD2H(all, dref, sizeof(PetscInt) * (size_t)N));
  PetscCall(GKMemcpyD2H(agg, dagg, sizeof(PetscInt) * (size_t)mloc));
  PetscCall(GKMemcpyD2H(roots, dagg + mloc, sizeof(PetscInt) * (size_t)nagg));
  astart = 0;
  PetscCallMPI(MPI_Exscan(&nagg, &astart, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  if (!rank) astart = 0;
  for (PetscInt v = 0; v < mloc; v++) same = (PetscBool)(same && agg[v] == all[rstart + v]);
  {
    PetscInt *rref2;

    PetscCall(PetscMalloc1(nref, &rref2));
    PetscCall(GKMemcpyD2H(rref2, dref + N, sizeof(PetscInt) * (size_t)nref));
    for (PetscInt k = 0; k < nagg; k++) same = (PetscBool)(same && astart + k < nref && rstart + roots[k] == rref2[astart + k]);
    PetscCall(PetscFree(rref2));
  }
  {
    PetscInt tot;

    PetscCall(MPIU_Allreduce(&nagg, &tot, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    same = (PetscBool)(same && tot == nref);
  }

  /* the tentative prolongator: each local row's nv entries in its node's aggregate's columns; the
     coarse vectors of this process's aggregates */
  if (same) {
    PetscReal        *bl;
    GKAggMPITentative t;

    PetscCall(MatCreate(PETSC_COMM_WORLD, &A)); /* the level's matrix: its rows, type and block size */
    PetscCall(MatSetSizes(A, mloc * bs, mloc * bs, M, M));
    PetscCall(MatSetBlockSize(A, bs));
    PetscCall(MatSetType(A, MATMPIAIJ));
    PetscCall(MatSetUp(A));
    PetscCall(PetscMalloc1(mloc * bs * nv, &bl));
    for (PetscInt i = 0; i < mloc * bs; i++)
      for (PetscInt k = 0; k < nv; k++) bl[i + k * mloc * bs] = b[rstart * bs + i + k * M];
    PetscCall(PCGAMGAggGPUTentativeMPI_Private(A, bs, nv, dagg, nagg, bl, &t, &r));
    PetscCall(PCGAMGAggGPUTentativeMatMPI_Private(A, &t, &P));
    for (PetscInt i = 0; i < mloc * bs; i++) {
      PetscInt           nc;
      const PetscInt    *cols;
      const PetscScalar *pv;
      const PetscInt     row = rstart * bs + i, a = all[row / bs];

      PetscCall(MatGetRow(P, row, &nc, &cols, &pv));
      if (a < 0) sameP = (PetscBool)(sameP && nc == 0);
      else {
        sameP = (PetscBool)(sameP && nc == nv);
        for (PetscInt k = 0; k < nc && sameP; k++) sameP = (PetscBool)(cols[k] == a * nv + k && pv[k] == pref[row * nv + k]);
      }
      PetscCall(MatRestoreRow(P, row, &nc, &cols, &pv));
    }
    for (PetscInt a = 0; a < nagg; a++)
      for (PetscInt i = 0; i < nv; i++)
        for (PetscInt k = 0; k < nv; k++) sameP = (PetscBool)(sameP && r[a * nv + i + k * nagg * nv] == rref[(astart + a) * nv + i + k * nref * nv]);
    if (smooth) PetscCall(SmoothCheck(N, bs, mloc, rstart, ai, aj, &t, P, &sameS, &nS));
    PetscCall(PCGAMGAggGPUTentativeMPIFree_Private(&t));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFree(r));
    PetscCall(PetscFree(bl));
  } else sameP = PETSC_FALSE;
  {
    PetscMPIInt both[4] = {same, sameP, sameG, sameS}; /* whether every process's rows agree */

    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, both, 4, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    same  = both[0] ? PETSC_TRUE : PETSC_FALSE;
    sameP = both[1] ? PETSC_TRUE : PETSC_FALSE;
    sameG = both[2] ? PETSC_TRUE : PETSC_FALSE;
    sameS = both[3] ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s of %" PetscInt_FMT " vertices, distance %" PetscInt_FMT ": %" PetscInt_FMT " aggregates\n", Problems[p],
                        N, dist, nref));
  if (strength) {
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "strength graph, threshold %g: %" PetscInt_FMT " of %" PetscInt_FMT " entries kept\n", (double)thr, si[N], nnz));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the strength graph of one process: %s\n", sameG ? "yes" : "no"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the aggregates and roots of one process: %s\n", same ? "yes" : "no"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the tentative prolongator and coarse vector of one process: %s\n", sameP ? "yes" : "no"));
  if (smooth)
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "smoothed on the devices as PETSc's AGG smooths it: %s (%" PetscInt_FMT " entries)\n", sameS ? "yes" : "no", nS));

  PetscCall(PetscFree3(all, agg, roots));
  PetscCall(GKFree(dagg));
  PetscCall(GKFree(dref));
  PetscCall(GKFree(di));
  PetscCall(GKFree(dj));
  PetscCall(GKFree(db));
  PetscCall(GKFree(dp));
  PetscCall(GKFree(dr));
  PetscCall(PetscFree3(b, pref, rref));
  PetscCall(PetscFree2(ai, aj));
  PetscCall(PetscFree(av));
  if (strength) PetscCall(PetscFree2(si, sj));
  PetscCall(MatDestroy(&G));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # the same output for every process count and layout (an empty process too)
  testset:
    nsize: {{1 2 3}shared output}
    args: -gpukit_backend {{host cuda}shared output} -layout {{even uneven empty}shared output}
    test:
      suffix: lap2d
      args: -problem lap2d -n 24 -dist {{1 2}separate output}
    test:
      suffix: lap3d
      args: -problem lap3d -n 9 -dist {{1 2}separate output}
    test:
      suffix: random
      args: -problem random -n 300 -dist {{1 2}separate output}
    test:
      suffix: smooth_lap2d
      args: -problem lap2d -n 24 -dist 1 -smooth
    test:
      suffix: smooth_random
      args: -problem random -n 300 -dist 2 -smooth

  # the graph made from a matrix on the devices (the strength graph), all entries kept or those
  # above a threshold
  testset:
    nsize: {{1 2 3}shared output}
    args: -gpukit_backend {{host cuda}shared output} -layout {{even uneven empty}shared output}
    test:
      suffix: strength_lap2d
      args: -problem lap2d -n 24 -strength {{-1 0.3}separate output} -dist 2
    test:
      suffix: strength_random
      args: -problem random -n 300 -strength {{-1 0.35}separate output} -dist 1
    test:
      suffix: strength_known_symmetric
      args: -problem random -n 300 -strength 0.35 -known_symmetric -dist 1
    test:
      suffix: strength_unpaired
      args: -problem lap2d -n 12 -strength 0.3 -unpaired

  # nodes of 3 rows with 6 vectors (elasticity's rigid-body modes: some aggregates fewer rows than
  # vectors) or 2
  testset:
    nsize: {{1 2 3}shared output}
    args: -gpukit_backend {{host cuda}shared output} -layout {{even empty}shared output} -bs 3
    test:
      suffix: block_lap2d
      args: -problem lap2d -n 14 -nv {{6 2}separate output} -dist {{1 2}separate output}
    test:
      suffix: block_smooth
      args: -problem lap2d -n 10 -nv 6 -dist 1 -smooth

TEST*/
