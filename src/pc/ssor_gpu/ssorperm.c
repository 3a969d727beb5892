/*
   PCSSORGPU's setup, the permuted copy: multicolor's blocks grown from the matrix's graph and
   coloured, and the triangles' rows copied in the sweeps' order (colours or levels, points or
   blocks) for the device (ssorgpu.c chooses and calls these)
*/
#include "include/gpukitimpl.h"
#include <petsc/private/pcimpl.h>

#include "ssorgpu.h"

/* Blocks of at most bs rows grown from the matrix's graph (symmetrised), each from the first row
   no block has yet: the next row added is the free neighbour of the block with the most
   couplings into it, then one coupled to the seed, then the first. On the grids of the 5- and
   7-point stencils this tiles the grid with 2 x 2 squares (bs 4) or 2 x 2 x 2 cubes (bs 8), the
   blocks whose two-colour block SSOR cuts CG's iterations most. Then the
   blocks coloured greedily as a graph of their own: each row's colour is its block's. */
PetscErrorCode PCSSORGPUBlocks_Private(PC_SSORGPU *s, PetscInt m, const PetscInt *ia, const PetscInt *ja)
{
  PetscInt *tptr = NULL, *tcol = NULL, *conn, *near, *cand, *bia, *bja, *bcolor, *fill, nb = 0, nbc;
  PetscBool sym = PETSC_FALSE;

  PetscFunctionBegin;
  /* a row's neighbours: its row's and its column's (the transpose), or its row's alone where the
     pattern is symmetric (every coupling then counted once, not twice: the same choices) */
  PetscCall(GKGraphSymmetric_Private(m, ia, ja, NULL, &sym));
  if (!sym) PetscCall(GKGraphTranspose_Private(m, ia, ja, &tptr, &tcol));
  PetscCall(PetscMalloc1(m, &s->blk));
  PetscCall(PetscCalloc1(m, &conn));
  PetscCall(PetscMalloc2(m, &near, m, &cand));
  for (PetscInt i = 0; i < m; i++) s->blk[i] = near[i] = -1;
  for (PetscInt seed = 0; seed < m; seed++) {
    PetscInt nc = 0, n = 0, v = seed;

    if (s->blk[seed] >= 0) continue;
    for (PetscInt e = ia[seed]; e < ia[seed + 1]; e++) near[ja[e]] = seed;
    if (tptr)
      for (PetscInt e = tptr[seed]; e < tptr[seed + 1]; e++) near[tcol[e]] = seed;
    while (v >= 0) { /* add v; then the best free neighbour, while the block has room */
      PetscInt best = -1;

      s->blk[v] = nb;
      n++;
      for (int t = 0; t < (tptr ? 2 : 1); t++)
        for (PetscInt e = t ? tptr[v] : ia[v]; e < (t ? tptr[v + 1] : ia[v + 1]); e++) {
          const PetscInt u = t ? tcol[e] : ja[e];

          if (s->blk[u] >= 0) continue;
          if (!conn[u]) cand[nc++] = u;
          conn[u]++;
        }
      if (n == s->bsz) break;
      for (PetscInt q = 0; q < nc; q++) {
        const PetscInt u = cand[q];

        if (s->blk[u] >= 0) continue;
        if (best < 0 || conn[u] > conn[best] || (conn[u] == conn[best] && (near[u] == seed) > (near[best] == seed)) ||
            (conn[u] == conn[best] && (near[u] == seed) == (near[best] == seed) && u < best))
          best = u;
      }
      v = best;
    }
    for (PetscInt q = 0; q < nc; q++) conn[cand[q]] = 0;
    nb++;
  }
  s->nblk = nb;
  PetscCall(PetscFree(conn));
  PetscCall(PetscFree2(near, cand));
  PetscCall(PetscFree(tptr));
  PetscCall(PetscFree(tcol));
  /* the blocks' graph: block J couples to the blocks of its rows' columns */
  PetscCall(PetscCalloc1(nb + 1, &bia));
  PetscCall(PetscMalloc2(ia[m], &bja, nb, &fill));
  for (PetscInt i = 0; i < m; i++) bia[s->blk[i] + 1] += ia[i + 1] - ia[i];
  for (PetscInt J = 0; J < nb; J++) {
    bia[J + 1] += bia[J];
    fill[J] = bia[J];
  }
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt e = ia[i]; e < ia[i + 1]; e++) bja[fill[s->blk[i]]++] = s->blk[ja[e]];
  PetscCall(PetscMalloc1(nb, &bcolor));
  PetscCall(GKGraphColor_Private(nb, bia, bja, bcolor, &nbc));
  PetscCall(PetscMalloc1(m, &s->color));
  for (PetscInt i = 0; i < m; i++) s->color[i] = bcolor[s->blk[i]];
  s->ncolors = nbc;
  PetscCall(PetscFree(bia));
  PetscCall(PetscFree2(bja, fill));
  PetscCall(PetscFree(bcolor));
  PetscFunctionReturn(0);
}

/* entry q of colour C's L (t = 0) or U (t = 1) in the permuted copy: its column minus its row */
static inline PetscInt PCSSORGPUDelta_Private(const GKSsorColor *C, int t, const PetscInt *pc, PetscInt q)
{
  return pc[q] - (C->r0 + (q - C->off[t]) % C->n);
}

/* A colour's L (t = 0) and U (t = 1) widths, its longest row among rows perm[r0..r0+n-1], and
   where its entries start: after tot[t], which grows by the width times stride slots */
static void PCSSORGPUWidths_Private(GKSsorColor *C, const PetscInt *perm, const PetscInt *ptr[2], PetscInt stride, PetscInt tot[2])
{
  for (int t = 0; t < 2; t++) {
    C->w[t] = 0;
    for (PetscInt k = C->r0; k < C->r0 + C->n; k++) C->w[t] = PetscMax(C->w[t], ptr[t][perm[k] + 1] - ptr[t][perm[k]]);
    C->off[t] = tot[t];
    tot[t] += C->w[t] * stride;
  }
}

/* Entry e of row i of L (t = 0) or U (t = 1) in the permuted copy: its column there and its value;
   past the row's end, padding: a zero value at the row's first column (near the others), or at
   the first row (L) or the last (U) */
static void PCSSORGPUEntry_Private(int t, PetscInt i, PetscInt e, PetscInt m, const PetscInt *iperm, const PetscInt *ptr[2], const PetscInt *col[2],
                                   const PetscScalar *val[2], PetscInt *c, PetscScalar *v)
{
  const PetscInt src = ptr[t][i] + e;

  *c = src < ptr[t][i + 1] ? iperm[col[t][src]] : ptr[t][i] < ptr[t][i + 1] ? iperm[col[t][ptr[t][i]]] : (t ? m - 1 : 0);
  *v = src < ptr[t][i + 1] ? val[t][src] : 0.0;
}

/* Multicolor's colour-permuted copy (device.h, GKSsor): row k of the copy is row perm[k] (the
   forward list, rows[0]); the colours are perm's groups lev[0..ncolors]; each colour's L and U
   couplings go in ELLPACK order, as wide as the colour's longest row and padded with zeros at the
   row's own first column of that side (else row 0, in colour 0, for L and row m - 1 for U), so
   that padding reads values the sweep has just computed and stays near the row */
PetscErrorCode PCSSORGPUPermuteRows_Private(PC_SSORGPU *s, const PetscInt *perm, const PetscInt *ptr[2], const PetscInt *col[2],
                                            const PetscScalar *val[2], const PetscScalar *d)
{
  const PetscInt m = s->m, nc = s->ncolors, *lev = s->lev[0];
  PetscInt      *iperm, tot[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m, &iperm));
  PetscCall(PetscCalloc1(nc, &s->pcolors));
  for (PetscInt k = 0; k < m; k++) iperm[perm[k]] = k;
  for (PetscInt c = 0; c < nc; c++) {
    GKSsorColor *C = &s->pcolors[c];

    C->r0 = lev[c];
    C->n  = lev[c + 1] - lev[c];
    PCSSORGPUWidths_Private(C, perm, ptr, C->n, tot);
  }
  for (int t = 0; t < 2; t++) {
    PetscInt    *pc;
    PetscScalar *pv;

    PetscCall(PetscMalloc2(tot[t], &pc, tot[t], &pv));
    for (PetscInt c = 0; c < nc; c++) {
      const GKSsorColor *C = &s->pcolors[c];

      for (PetscInt j = 0; j < C->n; j++) {
        const PetscInt i = perm[C->r0 + j];

        for (PetscInt e = 0; e < C->w[t]; e++)
          PCSSORGPUEntry_Private(t, i, e, m, iperm, ptr, col, val, &pc[C->off[t] + e * C->n + j], &pv[C->off[t] + e * C->n + j]);
      }
    }
    PetscCall(GKMallocH2D(tot[t], pv, (PetscScalar **)&s->S.pval[t]));
    { /* 16-bit columns where every colour's span of column - row fits: 2 bytes an entry less */
      PetscBool fits = PETSC_TRUE;
      short    *pdel;

      for (PetscInt c = 0; c < nc && fits; c++) {
        GKSsorColor *C  = &s->pcolors[c];
        PetscInt     lo = PETSC_MAX_INT, hi = PETSC_MIN_INT;

        for (PetscInt q = C->off[t]; q < C->off[t] + C->w[t] * C->n; q++) {
          const PetscInt dq = PCSSORGPUDelta_Private(C, t, pc, q);

          lo = PetscMin(lo, dq);
          hi = PetscMax(hi, dq);
        }
        C->shift[t] = lo <= hi ? lo + 32768 : 0;
        if (lo <= hi && (PetscInt64)hi - lo > 65535) fits = PETSC_FALSE;
      }
      if (fits) {
        PetscCall(PetscMalloc1(tot[t], &pdel));
        for (PetscInt c = 0; c < nc; c++) {
          const GKSsorColor *C = &s->pcolors[c];

          for (PetscInt q = C->off[t]; q < C->off[t] + C->w[t] * C->n; q++) pdel[q] = (short)(PCSSORGPUDelta_Private(C, t, pc, q) - C->shift[t]);
        }
        PetscCall(GKMallocH2D(tot[t], pdel, (short **)&s->S.pdel[t]));
        PetscCall(PetscFree(pdel));
      } else PetscCall(GKMallocH2D(tot[t], pc, (PetscInt **)&s->S.pcol[t]));
      PetscCall(PetscInfo(NULL, "SSOR multicolor, permuted copy: %s with %d-bit columns\n", t ? "U" : "L", fits ? 16 : 32));
    }
    PetscCall(PetscFree2(pc, pv));
  }
  {
    PetscScalar *pd;

    PetscCall(PetscMalloc1(m, &pd));
    for (PetscInt k = 0; k < m; k++) pd[k] = d[perm[k]];
    PetscCall(GKMallocH2D(m, pd, (PetscScalar **)&s->S.pd));
    PetscCall(PetscFree(pd));
  }
  PetscCall(GKMallocH2D(m, iperm, &s->iperm));
  PetscCall(PetscFree(iperm));
  PetscFunctionReturn(0);
}

/* a block's dense D_B, from its own entries of the CSR (ia, ja, aa): its rows rows[0..n-1], each
   row's place in its block lidx[] */
static void PCSSORGPUBlockDense_Private(PC_SSORGPU *s, const PetscInt *rows, PetscInt n, const PetscInt *lidx, const PetscInt *ia, const PetscInt *ja,
                                        const PetscScalar *aa, PetscScalar D[GK_SSOR_MAX_BS][GK_SSOR_MAX_BS])
{
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt l = 0; l < n; l++) D[k][l] = 0.0;
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt e = ia[rows[k]]; e < ia[rows[k] + 1]; e++)
      if (s->blk[ja[e]] == s->blk[rows[k]]) D[k][lidx[ja[e]]] += aa[e];
}

/* whether a and b are equal to rounding */
static PetscBool PCSSORGPUClose_Private(PetscScalar a, PetscScalar b)
{
  return PetscAbsScalar(a - b) <= 100.0 * PETSC_MACHINE_EPSILON * (PetscAbsScalar(a) + PetscAbsScalar(b)) ? PETSC_TRUE : PETSC_FALSE;
}

/* Multicolor's permuted copy with blocks (device.h, GKSsor and GKSsorColor): the blocks colour by
   colour, the longest first, row l of every block of a colour together; L and U block by block;
   each block's D_B factored as F Delta F^* (Hermitian blocks, ^* the conjugate transpose; complex
   symmetric ones, the transpose). A pivot SSOR cannot divide by fails the PC as a zero diagonal
   does. */
PetscErrorCode PCSSORGPUPermuteBlocks_Private(PC pc, PC_SSORGPU *s, const PetscInt *ptr[2], const PetscInt *col[2], const PetscScalar *val[2],
                                              const PetscInt *ia, const PetscInt *ja, const PetscScalar *aa, PetscBool *ok)
{
  const PetscInt m = s->m, nb = s->nblk, nc = s->ncolors, bs = s->bsz, nf = bs * (bs + 1) / 2, nk = nc * (bs + 1);
  PetscInt      *size, *bcol, *kcnt, *border, *rfirst, *rfill, *brows, *lidx, *perm, *iperm, tot[2] = {0, 0};
  PetscScalar   *fac, D[GK_SSOR_MAX_BS][GK_SSOR_MAX_BS];
  PetscBool      herm = PETSC_TRUE, sym = PETSC_TRUE;

  PetscFunctionBegin;
  /* the blocks' sizes, colours and rows (in increasing order) */
  PetscCall(PetscCalloc4(nb, &size, nb, &bcol, nk + 1, &kcnt, nb, &border));
  PetscCall(PetscCalloc4(nb + 1, &rfirst, nb, &rfill, m, &brows, m, &lidx));
  for (PetscInt i = 0; i < m; i++) {
    size[s->blk[i]]++;
    bcol[s->blk[i]] = s->color[i];
  }
  for (PetscInt J = 0; J < nb; J++) rfirst[J + 1] = rfirst[J] + size[J];
  for (PetscInt i = 0; i < m; i++) {
    lidx[i]                            = rfill[s->blk[i]]++;
    brows[rfirst[s->blk[i]] + lidx[i]] = i;
  }
  /* the blocks: Hermitian (real: symmetric), else complex symmetric, else refused (automatic block
     size: points instead, *ok false) */
  for (PetscInt J = 0; J < nb && (herm || sym); J++) {
    PCSSORGPUBlockDense_Private(s, brows + rfirst[J], size[J], lidx, ia, ja, aa, D);
    for (PetscInt a = 0; a < size[J] && (herm || sym); a++) {
      if (!PCSSORGPUClose_Private(D[a][a], PetscConj(D[a][a]))) herm = PETSC_FALSE; /* a Hermitian block's diagonal is real */
      for (PetscInt b = 0; b < a; b++) {
        if (!PCSSORGPUClose_Private(D[a][b], PetscConj(D[b][a]))) herm = PETSC_FALSE;
        if (!PCSSORGPUClose_Private(D[a][b], D[b][a])) sym = PETSC_FALSE;
        if (!herm && !sym && s->bs) {
          const PetscInt ra = brows[rfirst[J] + a], rb = brows[rfirst[J] + b];
          PetscInt       rs;

          PetscCall(MatGetOwnershipRange(pc->pmat, &rs, NULL));
          SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                  "PC %s with -pc_ssorgpu_block_size %" PetscInt_FMT
                  " factors each diagonal block without pivoting and needs it symmetric (or Hermitian), but the matrix's entries (%" PetscInt_FMT
                  ", %" PetscInt_FMT ") and (%" PetscInt_FMT ", %" PetscInt_FMT ") differ: use -pc_ssorgpu_block_size 1",
                  PCSSORGPU, bs, ra + rs, rb + rs, rb + rs, ra + rs);
        }
      }
    }
  }
  *ok = (PetscBool)(herm || sym);
  if (!*ok) {
    PetscCall(PetscFree4(size, bcol, kcnt, border));
    PetscCall(PetscFree4(rfirst, rfill, brows, lidx));
    PetscFunctionReturn(0);
  }
  /* the blocks in order of colour, then of decreasing size (a counting sort, stable) */
  for (PetscInt J = 0; J < nb; J++) kcnt[bcol[J] * (bs + 1) + bs - size[J] + 1]++;
  for (PetscInt k = 0; k < nk; k++) kcnt[k + 1] += kcnt[k];
  for (PetscInt J = 0; J < nb; J++) border[kcnt[bcol[J] * (bs + 1) + bs - size[J]]++] = J;
  /* the colours, and each block's rows' places in the copy: row l of the colour's block j at r0 + lofs[l] + j */
  PetscCall(PetscCalloc1(nc, &s->pcolors));
  PetscCall(PetscMalloc1(nc + 1, &s->lev[0]));
  PetscCall(PetscMalloc3(m, &perm, m, &iperm, (size_t)nf * nb, &fac));
  for (PetscInt c = 0, k = 0, r0 = 0; c < nc; c++) {
    GKSsorColor *C = &s->pcolors[c];

    C->b0 = k;
    while (k < nb && bcol[border[k]] == c) k++;
    C->nb = k - C->b0;
    C->r0 = s->lev[0][c] = r0;
    for (PetscInt l = 0, cnt = C->nb; l < GK_SSOR_MAX_BS; l++) { /* the blocks with a row l: a prefix, the longest first */
      while (cnt > 0 && (l >= bs || size[border[C->b0 + cnt - 1]] <= l)) cnt--;
      C->lofs[l + 1] = C->lofs[l] + cnt;
    }
    C->n = C->lofs[GK_SSOR_MAX_BS];
    for (PetscInt j = 0; j < C->nb; j++)
      for (PetscInt l = 0; l < size[border[C->b0 + j]]; l++) perm[r0 + C->lofs[l] + j] = brows[rfirst[border[C->b0 + j]] + l];
    r0 += C->n;
  }
  s->lev[0][nc] = m;
  s->nlev[0]    = nc;
  for (PetscInt k = 0; k < m; k++) iperm[perm[k]] = k;
  for (PetscInt c = 0; c < nc; c++) PCSSORGPUWidths_Private(&s->pcolors[c], perm, ptr, bs * s->pcolors[c].nb, tot);
  for (int t = 0; t < 2; t++) { /* a short block's rows past its own: padding as PCSSORGPUEntry_Private's past a row's end */
    PetscInt    *pcol;
    PetscScalar *pval;

    PetscCall(PetscMalloc2(tot[t], &pcol, tot[t], &pval));
    for (PetscInt q = 0; q < tot[t]; q++) {
      pcol[q] = t ? m - 1 : 0;
      pval[q] = 0.0;
    }
    for (PetscInt c = 0; c < nc; c++) {
      const GKSsorColor *C = &s->pcolors[c];

      for (PetscInt j = 0; j < C->nb; j++)
        for (PetscInt l = 0; l < size[border[C->b0 + j]]; l++) {
          const PetscInt i = brows[rfirst[border[C->b0 + j]] + l];

          for (PetscInt e = 0; e < C->w[t]; e++)
            PCSSORGPUEntry_Private(t, i, e, m, iperm, ptr, col, val, &pcol[C->off[t] + (e * bs + l) * C->nb + j],
                                   &pval[C->off[t] + (e * bs + l) * C->nb + j]);
        }
    }
    PetscCall(GKMallocH2D(tot[t], pcol, (PetscInt **)&s->S.pcol[t]));
    PetscCall(GKMallocH2D(tot[t], pval, (PetscScalar **)&s->S.pval[t]));
    PetscCall(PetscFree2(pcol, pval));
    s->npval[t] = tot[t];
  }
  s->S.herm = herm;
  for (PetscInt k = 0; k < nb; k++) { /* block k of the copy: D_B = F Delta F^*, without pivoting */
    const PetscInt J = border[k], n = size[J];
    PetscScalar    F[GK_SSOR_MAX_BS][GK_SSOR_MAX_BS], Dl[GK_SSOR_MAX_BS];

    PCSSORGPUBlockDense_Private(s, brows + rfirst[J], n, lidx, ia, ja, aa, D);
    for (PetscInt c = 0; c < bs; c++) {
      for (PetscInt r = c + 1; r < bs; r++) F[r][c] = 0.0;
      Dl[c] = 1.0;
    }
    for (PetscInt c = 0; c < n; c++) {
      PetscScalar dc = D[c][c];

      for (PetscInt l = 0; l < c; l++) dc -= F[c][l] * Dl[l] * (herm ? PetscConj(F[c][l]) : F[c][l]);
      if (dc == (PetscScalar)0.0) { /* a negative pivot factors (LDL^H): only CG needs an SPD PC, and CG's own tests say when it is not */
        if (s->badrow < 0 || brows[rfirst[J] + c] < s->badrow) {
          s->badrow  = brows[rfirst[J] + c];
          s->baddiag = dc;
        }
        dc = 1.0; /* the PC fails; the factors stay finite */
      }
      Dl[c] = dc;
      for (PetscInt r = c + 1; r < n; r++) {
        PetscScalar f = D[r][c];

        for (PetscInt l = 0; l < c; l++) f -= F[r][l] * Dl[l] * (herm ? PetscConj(F[c][l]) : F[c][l]);
        F[r][c] = f / dc;
      }
    }
    for (PetscInt r = 0; r < bs; r++) {
      for (PetscInt c = 0; c < r; c++) fac[(size_t)(r * (r - 1) / 2 + c) * nb + k] = F[r][c];
      fac[(size_t)(bs * (bs - 1) / 2 + r) * nb + k] = 1.0 / Dl[r];
    }
  }
  PetscCall(GKMallocH2D((size_t)nf * nb, fac, (PetscScalar **)&s->S.fac));
  PetscCall(GKMallocH2D(nc, s->pcolors, (GKSsorColor **)&s->S.bcolors));
  PetscCall(GKMallocH2D(m, perm, &s->rows[0]));
  PetscCall(GKMallocH2D(m, iperm, &s->iperm));
  s->S.bs      = bs;
  s->S.nblk    = nb;
  s->S.ncolors = nc;
  PetscCall(PetscFree3(perm, iperm, fac));
  PetscCall(PetscFree4(size, bcol, kcnt, border));
  PetscCall(PetscFree4(rfirst, rfill, brows, lidx));
  PetscFunctionReturn(0);
}
