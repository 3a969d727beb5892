/*
   The backend layer: the memory and kernel entry points every layer above calls, implemented
   twice with the same arguments and the same data layout, by plain C loops on the host
   (src/device/host/, the reference) and by CUDA kernels (src/device/cuda/), in files of the
   same names.

   Pointers marked "device" below point into memory obtained from the backend's malloc: device
   memory for cuda, ordinary memory for host. Nothing here knows about Mat, Vec or KSP.
*/
#pragma once

#include <petscsys.h>
#include <stdint.h>

#if defined(__CUDACC__)
  #define GK_HOSTDEVICE __host__ __device__
#else
  #define GK_HOSTDEVICE
#endif

/* In the ascending columns aj[lo..hi): the first position whose column is c or more (hi: none) */
static inline GK_HOSTDEVICE PetscInt GKLowerBound(const PetscInt *aj, PetscInt lo, PetscInt hi, PetscInt c)
{
  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;

    if (aj[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* where column c is in row r of a CSR pattern whose columns ascend, or -1 */
static inline GK_HOSTDEVICE PetscInt GKFind(const PetscInt *ai, const PetscInt *aj, PetscInt r, PetscInt c)
{
  const PetscInt k = GKLowerBound(aj, ai[r], ai[r + 1], c);

  return k < ai[r + 1] && aj[k] == c ? k : -1;
}

/* The least colour not in used, the colours below 64 a row's neighbours hold (64 where every one
   of those is held: the caller looks further) */
static inline GK_HOSTDEVICE PetscInt GKLeastFreeColor(unsigned long long used)
{
  PetscInt c = 0;

  while (c < 64 && (used >> c & 1ULL)) c++;
  return c;
}

/* The greedy colouring's step for row i of a symmetric pattern, its neighbours below it coloured:
   the least colour none of them holds (the colouring of the rows in ascending order,
   src/sys/gkorder.c; the device's, cuda/order.cu, gives each row the same) */
static inline GK_HOSTDEVICE PetscInt GKGreedyColorRow(PetscInt i, const PetscInt *ai, const PetscInt *aj, const PetscInt *color)
{
  unsigned long long used = 0;
  PetscInt           c, k;

  for (k = ai[i]; k < ai[i + 1]; k++)
    if (aj[k] < i && color[aj[k]] < 64) used |= 1ULL << color[aj[k]];
  for (c = GKLeastFreeColor(used); c >= 64; c++) { /* every colour below 64 held: the least one above that none holds */
    for (k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] < i && color[aj[k]] == c) break;
    if (k == ai[i + 1]) break;
  }
  return c;
}

/* The greedy colouring of a symmetric pattern, row after row in ascending order (host code: the
   host twin and src/sys/gkorder.c); the colours made */
static inline PetscInt GKGreedyColorRows(PetscInt m, const PetscInt *ai, const PetscInt *aj, PetscInt *color)
{
  PetscInt ncolors = 0;

  for (PetscInt i = 0; i < m; i++) {
    color[i] = GKGreedyColorRow(i, ai, aj, color);
    ncolors  = PetscMax(ncolors, color[i] + 1);
  }
  return ncolors;
}

/* The rows grouped by key (a counting sort, the rows ascending within a key), the groups in
   increasing key order or, descending, decreasing: rows[lev[l]..lev[l+1]) group l; lev (nkeys +
   1) and cnt (nkeys, zeroed) the caller's. Both backends' host code and src/sys/gkorder.c */
static inline void GKGroupRowsCount(PetscInt m, const PetscInt *key, PetscInt nkeys, PetscBool descending, PetscInt *lev, PetscInt *cnt,
                                    PetscInt *rows)
{
  for (PetscInt l = 0; l <= nkeys; l++) lev[l] = 0;
  for (PetscInt i = 0; i < m; i++) lev[(descending ? nkeys - 1 - key[i] : key[i]) + 1]++;
  for (PetscInt l = 0; l < nkeys; l++) lev[l + 1] += lev[l];
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt l = descending ? nkeys - 1 - key[i] : key[i];

    rows[lev[l] + cnt[l]++] = i;
  }
}

/* PETSc's hash of a global index for its noisy vectors (KSPNoisyHash_Private, kspimpl.h, the
   same in every release): about -1 to 1. Both backends and the host's code compute it alike. */
static inline GK_HOSTDEVICE PetscReal GKNoisyHash(PetscInt i)
{
  unsigned int x = (unsigned int)i;

  x = ((x >> 16) ^ x) * 0x45d9f3bu;
  x = ((x >> 16) ^ x) * 0x45d9f3bu;
  x = ((x >> 16) ^ x);
  return (PetscReal)((PetscInt64)x - 2147483648) * 5.e-10;
}

/* The coarsening's states and priorities (aggregate): a vertex's key orders it by its state
   (in the set above undecided above out), then by a hash of its index (a priority that spreads
   the roots out evenly, as a random one would, and is the same on every backend and run), then
   by the index itself: distinct keys for distinct vertices. 30 bits of hash, 32 of index. */
#define GK_AGG_OUT       0
#define GK_AGG_UNDECIDED 1
#define GK_AGG_IN        2
static inline GK_HOSTDEVICE uint64_t GKAggKey(int state, PetscInt v)
{
  uint32_t h = (uint32_t)v; /* lowbias32 (C. Wellons' integer hash) */

  h ^= h >> 16;
  h *= 0x7feb352dU;
  h ^= h >> 15;
  h *= 0x846ca68bU;
  h ^= h >> 16;
  return ((uint64_t)state << 62) | ((uint64_t)(h >> 2) << 32) | (uint64_t)(uint32_t)v;
}
static inline GK_HOSTDEVICE int GKAggKeyState(uint64_t k)
{
  return (int)(k >> 62);
}

/* The coarsening on several processes (aggregate's halo): the graph's local columns m .. m +
   nghost - 1 are the ghosts, the vertices of other processes next to this one's; gid[v] (device,
   m + nghost entries) every vertex's global number, which its key hashes, so that the roots and
   aggregates are the same however the vertices are split; send[k] (device, nsend entries) the
   local vertices other processes hold as ghosts. The backend gathers an array's send entries into
   sendbuf (host memory, nsend units of unit bytes) and calls exchange(ctx, unit, sendbuf,
   recvbuf), which leaves the ghosts' units in recvbuf (nghost units, in the ghosts' order); sum(ctx,
   &n) sums n over the processes, offset(ctx, n, &start) the n of the processes before this one.
   Collective: every process calls aggregate, one with no rows too. */
typedef struct {
  PetscInt        nghost, nsend;
  const PetscInt *gid, *send;
  void           *ctx;
  PetscErrorCode (*exchange)(void *, size_t, const void *, void *);
  PetscErrorCode (*sum)(void *, PetscInt *);
  PetscErrorCode (*offset)(void *, PetscInt, PetscInt *);
} GKAggHalo;

/* The strength graph on several processes (strength's halo): this process's entries in the
   ghosts' columns, the off-diagonal block's pattern oi (m + 1 row starts), oj (columns 0 ..
   halo->nghost - 1) with their weights ow (w_iJ = |a_iJ| + |a_Ji|, the mirror's value had from
   J's owner, or |a_iJ|), all in device memory; halo the ghosts' exchange (GKAggHalo above), by
   which each ghost's scale s_J comes from its owner, which makes it from its own diagonal. */
typedef struct {
  const GKAggHalo *halo;
  const PetscInt  *oi, *oj;
  const PetscReal *ow;
} GKStrengthHalo;

/* DMDA's Q1 interpolation on one process (q1interp): a fine grid of M[0] x M[1] (x M[2]) points
   and a coarse one of Mc, M = (Mc - 1) r + 1 in each dimension, both numbered naturally (x
   fastest, no ghosts). GKQ1Entries() gives fine point (i, j, l)'s row (GKQ1Corner() below);
   GKQ1RowStart() where the row starts: a point on a coarse point in a dimension has one entry there, one
   between two has two, so the rows before it hold a product of such counts. */
typedef struct {
  PetscInt dim, M[3], Mc[3], r[3];
} GKQ1Grid;

#if defined(__CUDA_ARCH__)
  #define GK_Q1_MUL(a, b) __dmul_rn(a, b)
  #define GK_Q1_ADD(a, b) __dadd_rn(a, b)
#else
  #define GK_Q1_MUL(a, b) ((a) * (b))
  #define GK_Q1_ADD(a, b) ((a) + (b))
#endif

/* the entries of the rows of the points before k in one dimension (ratio r), and of k's */
static inline GK_HOSTDEVICE PetscInt64 GKQ1Before(PetscInt k, PetscInt r)
{
  return 2 * (PetscInt64)k - (k + r - 1) / r;
}
static inline GK_HOSTDEVICE PetscInt64 GKQ1Width(PetscInt k, PetscInt r)
{
  return k % r ? 2 : 1;
}

static inline GK_HOSTDEVICE PetscInt64 GKQ1RowStart(const GKQ1Grid *g, PetscInt i, PetscInt j, PetscInt l)
{
  const PetscInt64 wx = 2 * (PetscInt64)g->M[0] - g->Mc[0], wy = 2 * (PetscInt64)g->M[1] - g->Mc[1];
  const PetscInt64 plane = GKQ1Before(j, g->r[1]) * wx + GKQ1Width(j, g->r[1]) * GKQ1Before(i, g->r[0]);

  return g->dim == 2 ? plane : GKQ1Before(l, g->r[2]) * wx * wy + GKQ1Width(l, g->r[2]) * plane;
}

/* the interpolation's rows (fine points), columns (coarse points) and entries */
static inline GK_HOSTDEVICE void GKQ1Size(const GKQ1Grid *g, PetscInt *m, PetscInt *n, PetscInt64 *nnz)
{
  const PetscInt mz = g->dim == 3 ? g->M[2] : 1;

  *m   = g->M[0] * g->M[1] * mz;
  *n   = g->Mc[0] * g->Mc[1] * (g->dim == 3 ? g->Mc[2] : 1);
  *nnz = g->dim == 3 ? GKQ1RowStart(g, 0, 0, mz) : GKQ1RowStart(g, 0, g->M[1], 0);
}

/* 1 - (2 a - 1) and 1 + (2 a - 1), as PETSc's 3D Q1 writes them */
static inline GK_HOSTDEVICE PetscReal GKQ1Lo(PetscReal a)
{
  return GK_Q1_ADD(1.0, -GK_Q1_ADD(GK_Q1_MUL(2.0, a), -1.0));
}
static inline GK_HOSTDEVICE PetscReal GKQ1Hi(PetscReal a)
{
  return GK_Q1_ADD(1.0, GK_Q1_ADD(GK_Q1_MUL(2.0, a), -1.0));
}

/* The entries of a fine point at (x, y, z) in its coarse cell (each in [0, 1); z unread in 2D),
   between coarse points in the dimensions where di, dj, dl are set: their columns' offsets from
   the cell's first corner, ascending (nx and mn: the coarse numbering's strides in y and z), and
   their values, PETSc's expressions (DMCreateInterpolation_DA_2D_Q1 and _3D_Q1) with no fused
   multiply-add on the device; returns how many. The host's threaded rows (gkdm.c) and the
   backend's (GKQ1Entries()) both take them from here. */
static inline GK_HOSTDEVICE PetscInt GKQ1Corner(PetscInt dim, PetscReal x, PetscReal y, PetscReal z, int di, int dj, int dl, PetscInt nx, PetscInt mn,
                                                PetscInt off[8], PetscReal v[8])
{
  PetscInt n = 0;

#define GK_Q1_PUT(o, val) \
  do { \
    off[n] = (o); \
    v[n++] = (val); \
  } while (0)
  if (dim == 2) { /* x y - x - y + 1, -x y + x, -x y + y, x y */
    const PetscReal xy = GK_Q1_MUL(x, y), mxy = GK_Q1_MUL(-x, y);

    GK_Q1_PUT(0, GK_Q1_ADD(GK_Q1_ADD(GK_Q1_ADD(xy, -x), -y), 1.0));
    if (di) GK_Q1_PUT(1, GK_Q1_ADD(mxy, x));
    if (dj) GK_Q1_PUT(nx, GK_Q1_ADD(mxy, y));
    if (dj && di) GK_Q1_PUT(nx + 1, xy);
  } else { /* .125 (1 -+ (2 x - 1)) (1 -+ (2 y - 1)) (1 -+ (2 z - 1)), left to right */
    const PetscReal xl = GK_Q1_MUL(0.125, GKQ1Lo(x)), xh = GK_Q1_MUL(0.125, GKQ1Hi(x)), yl = GKQ1Lo(y), yh = GKQ1Hi(y), zl = GKQ1Lo(z),
                    zh = GKQ1Hi(z);

    GK_Q1_PUT(0, GK_Q1_MUL(GK_Q1_MUL(xl, yl), zl));
    if (di) GK_Q1_PUT(1, GK_Q1_MUL(GK_Q1_MUL(xh, yl), zl));
    if (dj) GK_Q1_PUT(nx, GK_Q1_MUL(GK_Q1_MUL(xl, yh), zl));
    if (dj && di) GK_Q1_PUT(nx + 1, GK_Q1_MUL(GK_Q1_MUL(xh, yh), zl));
    if (dl) GK_Q1_PUT(mn, GK_Q1_MUL(GK_Q1_MUL(xl, yl), zh));
    if (di && dl) GK_Q1_PUT(mn + 1, GK_Q1_MUL(GK_Q1_MUL(xh, yl), zh));
    if (dj && dl) GK_Q1_PUT(mn + nx, GK_Q1_MUL(GK_Q1_MUL(xl, yh), zh));
    if (di && dj && dl) GK_Q1_PUT(mn + nx + 1, GK_Q1_MUL(GK_Q1_MUL(xh, yh), zh));
  }
#undef GK_Q1_PUT
  return n;
}

/* fine point (i, j, l)'s row on the grids g: its columns ascending and its values */
static inline GK_HOSTDEVICE PetscInt GKQ1Entries(const GKQ1Grid *g, PetscInt i, PetscInt j, PetscInt l, PetscInt cols[8], PetscReal v[8])
{
  const PetscInt  ic = i / g->r[0], jc = j / g->r[1], lc = g->dim == 3 ? l / g->r[2] : 0;
  const PetscInt  nx = g->Mc[0], mn = g->Mc[0] * g->Mc[1], c = ic + nx * jc + mn * lc;
  const PetscReal x = ((PetscReal)(i - ic * g->r[0])) / ((PetscReal)g->r[0]), y = ((PetscReal)(j - jc * g->r[1])) / ((PetscReal)g->r[1]);
  const PetscReal z = g->dim == 3 ? ((PetscReal)(l - lc * g->r[2])) / ((PetscReal)g->r[2]) : 0;
  const PetscInt  n = GKQ1Corner(g->dim, x, y, z, ic * g->r[0] != i, jc * g->r[1] != j, g->dim == 3 && lc * g->r[2] != l, nx, mn, cols, v);

  for (PetscInt k = 0; k < n; k++) cols[k] += c;
  return n;
}

/* coarse point c's scale: 1 / the sum of its column over the fine rows in ascending order (as
   SEQAIJ's MatMultTranspose() of the ones sums it), 0 where the sum is 0 (VecReciprocal()) */
static inline GK_HOSTDEVICE PetscReal GKQ1Scale(const GKQ1Grid *g, PetscInt c)
{
  const PetscInt ctr[3] = {c % g->Mc[0], (c / g->Mc[0]) % g->Mc[1], c / (g->Mc[0] * g->Mc[1])};
  PetscInt       lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, cols[8];
  PetscReal      s = 0, v[8];

  for (int d = 0; d < g->dim; d++) { /* the fine points within a coarse cell of c's point */
    lo[d] = ctr[d] > 0 ? (ctr[d] - 1) * g->r[d] + 1 : 0;
    hi[d] = ctr[d] < g->Mc[d] - 1 ? (ctr[d] + 1) * g->r[d] - 1 : g->M[d] - 1;
  }
  for (PetscInt l = lo[2]; l <= hi[2]; l++)
    for (PetscInt j = lo[1]; j <= hi[1]; j++)
      for (PetscInt i = lo[0]; i <= hi[0]; i++) {
        const PetscInt n = GKQ1Entries(g, i, j, l, cols, v);

        for (PetscInt k = 0; k < n; k++)
          if (cols[k] == c) s = GK_Q1_ADD(s, v[k]);
      }
  return s != 0 ? 1.0 / s : 0;
}

/*
   ELLPACK-R (Michels, 5.3.1): an m x n matrix as Nz = the longest row, the values and column
   indices of the rows as m x Nz arrays in column-major order (entry k of row i at i + k*m,
   padding past a row's end holds value 0 and column 0), and rl[i] = the length of row i, so
   that a thread stops at the end of its own row.

   Sliced (h < m): the rows in slices of h, each slice an h x (its longest row) column-major
   block starting at sliceptr[s], so that one long row pads only its own slice: entry k of row
   i is at sliceptr[i / h] + k*h + i % h. With h = m there is one slice and this is the paper's
   layout exactly.

   Sorted (SELL-C-sigma, Kreutzer et al. 2014): within each window of sigma rows the rows are
   stored longest first, so that rows of like length share a slice; slot s of the arrays then
   holds row perm[s], and rl, sliceptr and the entry layout are the slots'. Without sorting
   perm is NULL and slot s is row s.

   Wide slices (at least GK_ELLR_WIDE entries wide, so only where some rows are long; where
   sorted, with GK_ELLR_MANY_ROWS rows or more of GK_ELLR_WIDE / 2 entries on average, at least
   GK_ELLR_WIDE_SORTED, or GK_ELLR_WIDE where the slice's rows fill less than half of it: a
   sorted slice's rows are mostly alike, and a thread a row then reads them with coalesced
   loads, with rows enough to keep the GPU busy) are stored row by row instead, and their rows
   multiplied a warp per row with contiguous loads: one thread per row would walk a long row
   alone while the rest of the product waits for it.
   wide lists their slots in slot order, and entry k of slot s = wide[g] is at wptr[g] + k;
   wfirst[s / h] is the g of the slice's first slot, -1 for a column-major slice. Sliced (h <
   m), a wide slice stores its rows one after the other, without padding (a long row then costs
   only its own entries), rounded up to a multiple of h entries so that every slice starts at a
   multiple of h (a warp's loads of a column-major slice then take the fewest sectors); in the
   paper's layout (h = m) each row is padded to Nz.

   One row a slice (h = 1, not sorted): sliceptr[i] is where row i starts, its entries
   contiguous, as CSR's row starts. The product then gives each row a group of lanes (lanes: 4,
   8, 16 or 32, from the rows' average length), which read the row's entries contiguously and
   gather x at nearby columns together (a thread a row, 32 rows' k-th entries, gathers x at 32
   places far apart). Where no layout is set, a matrix whose rows are
   alike and some of them GK_ELLR_WIDE or more long gets it (GAMG's coarse operators).

   Short columns (-mat_ellrcuda_short_columns, on by default): where every entry's column lies
   between 32768 before and 32767 after its slot (banded matrices, stencils), the columns are
   stored as 16-bit offsets instead, entry e of slot s in column s + dcol[e] (padding 0), and col
   is NULL: an entry then takes 10 bytes, not 12 (real).
*/
#define GK_ELLR_WIDE        32
#define GK_ELLR_WIDE_SORTED 128
#define GK_ELLR_MANY_ROWS   65536
typedef struct {
  PetscInt     m, n;     /* rows, columns */
  PetscInt     nz;       /* Nz, the longest row */
  PetscInt     h;        /* slice height (m, at least 1, for the paper's layout) */
  PetscInt    *sliceptr; /* device, ceil(m/h) + 1 */
  PetscInt    *rl;       /* device, m */
  PetscInt    *col;      /* device, sliceptr[last], or NULL with dcol */
  short       *dcol;     /* device, sliceptr[last]: the columns as offsets from the slot, or NULL */
  PetscScalar *val;      /* device, nval entries (sliceptr[last], or to the end of the wide rows) */
  void        *sval;     /* device: val in single precision (GKSingle, nval) for the products, or NULL (GKStorage) */
  PetscInt     nval;
  PetscInt    *perm;   /* device, m: the row in each slot, or NULL */
  PetscInt     nwide;  /* slots in wide slices */
  PetscInt    *wide;   /* device, nwide: those slots */
  PetscInt    *wptr;   /* device, nwide: where each one's entries start */
  PetscInt    *wfirst; /* device, ceil(m/h): each slice's first slot in wide, or -1 */
  PetscInt     sigma;  /* the sort window (perm), else 0 */
  PetscInt     lanes;  /* one row a slice, not sorted: the lanes a row in the product, else 0 */
} GKEllr;

/*
   DIA (Jost, Contassot-Vivier, Vialle, 3.2): one row of val per diagonal holding a nonzero, in
   increasing offset order: val[d*m + i] = A(i, i + off[d]); places outside the matrix hold 0.
*/
typedef struct {
  PetscInt     m, n;  /* rows, columns */
  PetscInt     ndiag; /* stored diagonals */
  PetscInt    *off;   /* device, ndiag */
  PetscScalar *val;   /* device, ndiag*m */
  void        *sval;  /* device: val in single precision (GKSingle, ndiag*m) for the products, or NULL (GKStorage) */
} GKDia;

/*
   Single-precision storage (-mat_gpukit_storage single): a format's products (ellrmult, diamult,
   diamulttranspose) read sval, the values rounded to single precision (float; complex: float pairs,
   real part first), where it is set, and sum in the scalar type's precision into its vectors; so
   does the fused Krylov step where its operator says single (GKOperator); every other reader
   (diagonals, SOR, the halo's gathers) reads val, kept beside it. demote(n, x, y, xr, ok) writes
   y[k] = x[k] rounded to single precision, and where xr is not NULL (it may be x) the same value
   in the scalar type to xr[k], *ok false where a finite part of some x[k] is beyond single
   precision's range (its y infinite, xr[k] left as it was).
*/
#if defined(PETSC_USE_COMPLEX)
  #define GK_SINGLE_SIZE (2 * sizeof(float))
#else
  #define GK_SINGLE_SIZE sizeof(float)
#endif

/*
   SSOR (ssorgpu): a square matrix split as L + D + U in some order of its rows (the natural
   order, or colour by colour), L and U as CSR arrays of the entries before and after the row's
   own in that order, D the diagonal. Every variant is made of one step applied to a list of
   rows (a level of a triangular solve, a colour, or all rows at once), one of
     GK_SSOR_LOWER:      xout_i = omega/d_i (b_i - sum_j L_ij xin_j)
     GK_SSOR_UPPER_SSOR: xout_i = (2 - omega) b_i - omega/d_i sum_j U_ij xin_j
     GK_SSOR_UPPER:      xout_i = omega/d_i (b_i - sum_j U_ij xin_j)
     GK_SSOR_UPPER_MULT: xout_i = d_i/omega xin_i + sum_j U_ij xin_j  (out of place)
   In place (xin = xout, and b = x for UPPER_SSOR) and level by level LOWER and UPPER_SSOR are
   the forward and backward sweeps of SSOR from a zero guess, x = ((2-w)/w) (D/w + U)^-1 D (D/w +
   L)^-1 b; LOWER and UPPER alone are the solves with D/w + L and D/w + U, UPPER_MULT the product
   with D/w + U (Eisenstat's transformation). Out of place on all rows LOWER and UPPER_SSOR are the
   Jacobi-like steps of a truncated Neumann series of SSOR's triangular solves.
   Block SSOR (multicolor with blocks, GKSsor's bs > 1) is the same with D the block diagonal: a
   block's rows take one step together, D_B x_B for d_i x_i and D_B^-1 for the division, and
     GK_SSOR_BLOCK_Z:    xout_B = ((2 - omega)/omega) D_B xin_B  (out of place)
   is the scaling that Eisenstat's form of CG uses as its preconditioner.
*/
typedef enum {
  GK_SSOR_LOWER,
  GK_SSOR_UPPER_SSOR,
  GK_SSOR_UPPER,
  GK_SSOR_UPPER_MULT,
  GK_SSOR_BLOCK_Z
} GKSsorStep;

#define GK_SSOR_MAX_BS 8

/* One colour of GKSsor's permuted copy: rows r0..r0+n-1; entry k of row r0+j of L (U) at
   off[0] + k n + j (off[1] + k n + j), w[0] (w[1]) entries a row, padded with zero values at
   columns of earlier (later) colours; shift: see pdel. With blocks, the colour is blocks
   b0..b0+nb-1, the longest first; row l of its block j is row r0 + lofs[l] + j, where block j
   has a row l when j < lofs[l + 1] - lofs[l] (each row l of the blocks together: every access
   of a thread a block coalesced), and its entry k of L (U) is at off[t] + (k bs + l) nb + j. */
typedef struct {
  PetscInt r0, n, w[2], off[2], shift[2], b0, nb, lofs[GK_SSOR_MAX_BS + 1];
} GKSsorColor;

typedef struct {
  PetscInt           m;
  const PetscInt    *lptr, *lcol; /* device: L's row starts (m + 1) and columns */
  const PetscScalar *lval;
  const PetscInt    *uptr, *ucol; /* device: U's */
  const PetscScalar *uval;
  const PetscScalar *d; /* device: the diagonal */
  /* multicolor's colour-permuted copy, for cggpu (NULL where not made): the rows renumbered
     colour by colour, so that each colour's rows are contiguous, and each row's couplings to
     earlier colours ([0], L) and to later ones ([1], U) in ELLPACK order per colour (GKSsorColor),
     columns in the new numbering */
  const PetscInt    *pcol[2];
  const short       *pdel[2]; /* in place of pcol[t] (NULL) where every column fits in 16 bits
                                 around its row: column = row + shift[t] + pdel[t][e] */
  const PetscScalar *pval[2];
  const PetscScalar *pd; /* device: the diagonal in the new numbering (points; NULL with blocks) */
  /* multicolor's blocks (bs > 1, else 1 and NULL): the copy's rows in nblk blocks of at most bs
     rows, colour by colour (GKSsorColor; bcolors, device, the ncolors colours again for the
     update); each block's D_B = F Delta F^* (F unit lower, F^* its conjugate transpose where
     herm, else its transpose, no pivoting), value q of block J at fac[q nblk + J] (device): F's
     entry (k, l), k > l, at q = k (k - 1)/2 + l, then 1/Delta_k at q = bs (bs - 1)/2 + k; a short
     block's rows past its own have F = 0 and 1/Delta = 1. L and U columns in 32 bits. */
  PetscInt           bs, nblk, ncolors; /* bs at most GK_SSOR_MAX_BS */
  PetscBool          herm;
  const GKSsorColor *bcolors;
  const PetscScalar *fac;
  /* L's and U's values in single precision (GK_SINGLE_SIZE each, the layouts of lval, uval and
     pval), which ssorrows and ssorblocks read in their place where set: the preconditioner's own
     application on a matrix stored so (-mat_gpukit_storage single); the diagonal, the blocks'
     factors and the Eisenstat step (which needs the operator itself) read the double values */
  const void *slval, *suval, *spval[2];
} GKSsor;

/* The flags of a colour of the permuted Eisenstat step. Its part of dpi is stored (0), or added to
   the earlier colours' (ADD), and in the last colour the sum over all blocks finished (FINISH).
   Colour 0 has no L: its upper sweep does its lower rows too (FUSE, the colour has no lower
   launch of its own). KEEP: a row's w - t, all that later colours' lower rows read of it, replaces
   its t. */
#define GK_SSOR_DPI_ADD    1
#define GK_SSOR_DPI_FINISH 2
#define GK_SSOR_FUSE       4
#define GK_SSOR_KEEP       8
/* z is passed as r: the upper rows compute z = ((2 - w)/w) d r, as the update computes it without
   storing it (krylovupdate with z NULL) */
#define GK_SSOR_ZR 16

/* w = x .* y, x ./ y (0 where y is 0) */
typedef enum {
  GK_POINTWISE_MULT,
  GK_POINTWISE_DIVIDE
} GKPointwiseOp;

/* which extreme gkextreme finds: the largest or smallest real part (first index on ties) */
typedef enum {
  GK_EXTREME_MAX,
  GK_EXTREME_MIN
} GKExtremeOp;

/* the sums a norms call computes: r[0] = sum |x_i|, r[1] = sum |x_i|^2, r[2] = max |x_i| */
typedef enum {
  GK_NORM_ABS = 1,
  GK_NORM_SQ  = 2,
  GK_NORM_MAX = 4
} GKNormParts;

/* The most vectors one multi-vector call (maxpy, dots) takes; callers loop over more */
#define GK_MULTI 8

typedef enum {
  GK_MEMCPY_H2D,
  GK_MEMCPY_D2H,
  GK_MEMCPY_D2D
} GKMemcpyKind;

/* the staging of large copies (GKBackendOps' stagebuffer): the buffers' count and size, and the
   smallest copy staged by default (-gpukit_staged_copy_min): from a few MiB on, a copy down into
   a new host array gains most, its first touch being the threads' too; below that, staging
   gained nothing measurable (docs/performance.md) */
#define GK_STAGE_PIECES 2
#define GK_STAGE_BYTES  ((size_t)16 << 20)
#define GK_STAGE_MIN    ((size_t)4 << 20)

/* An operator for the fused Krylov kernels: one of the two formats. For A^T and A^H products
   ELLPACK-R brings its transposed copy (At), DIA reads its own arrays transposed. single: the
   step's products read the format's sval in place of val (GKOperatorSingle). */
typedef struct {
  const GKEllr *ellr, *ellrt;
  const GKDia  *dia;
  PetscBool     single;
} GKOperator;

/* Whether a step of A reads its single-precision values: single asked for and every copy the
   step reads having them (BiCG's: ELLPACK-R's transposed copy too); both backends decide so */
static inline PetscBool GKOperatorSingle(const GKOperator *A, PetscBool bicg)
{
  if (!A->single) return PETSC_FALSE;
  if (A->ellr) return A->ellr->sval && (!bicg || (A->ellrt && A->ellrt->sval)) ? PETSC_TRUE : PETSC_FALSE;
  return A->dia && A->dia->sval ? PETSC_TRUE : PETSC_FALSE;
}

/* The fused Krylov iterations (cggpu, bicggpu). Two kernels an iteration, i = 0, 1, ...:
     step i:   finish the last update's sums (the norm, rho_i); x += a_i-1 p_i-1 (the last
               update's move, deferred to where p_i-1 is read anyway); p_i = z + (rho_i/rho_i-1)
               p_i-1 into the other of two buffers; w = A p_i, each row computing the p_i of its
               columns on the fly; the block sums of dpi = w^H p_i (BiCG: also p~_i, w~ = A^H p~_i,
               dpi = p~^H w)
     update i: a_i = rho_i/dpi; r -= a_i w; z = diag .* r; the block sums of the norm and rho_i+1
   With nullconst (krylovcreate; CG and COCG on one process) the update also removes the
   constants from z, as PETSc's KSPs remove the operator's null space from the preconditioned
   residual: z -= mean(z), stored (z is its own array even without diag), before the sums of the
   norm and rho_i+1 (the CUDA backend launches a second kernel for it, the sum of z known).
   A solve is step 0, update 0, step 1, update 1, ..., step k, where step k only moves x: x_k
   and the norm of r_k are then known. Per iteration this reads and writes each vector the
   least number of times: z, p_i-1 and x read, x, p_i and w written, then w and r read and r
   written, 9 passes (Jacobi: 11) besides the matrix.
   The state stays on the device; the host copies it (statebegin, queued behind the kernels)
   and waits for the copy (stateend) when it tests convergence, and may queue the next kernel
   in between. A breakdown sets a flag that stops every later kernel, so that the host may test
   only every k iterations. */
typedef enum {
  GK_KRYLOV_CG,   /* Hermitian: conjugated dots; dpi = 0 or changing sign is an indefinite matrix */
  GK_KRYLOV_COCG, /* complex symmetric: unconjugated dots (CG for real scalars) */
  GK_KRYLOV_BICG  /* BiCG: the shadow system with A^H */
} GKKrylovMethod;

typedef enum {
  GK_KRYLOV_OK,
  GK_KRYLOV_INDEFINITE_MAT, /* CG: p^H A p = 0 or changed sign (KSPCG's test) */
  GK_KRYLOV_INDEFINITE_PC,  /* CG: rho changed sign */
  GK_KRYLOV_BREAKDOWN,      /* rho = 0 (in the direction step) */
  GK_KRYLOV_ZERO_DPI,       /* COCG and BiCG: dpi = 0 (in the update) */
  GK_KRYLOV_PEER_TIMEOUT    /* sums kept on the GPUs (GKPeers): process -1 - flagit never sent its part */
} GKKrylovFlag;

/* the norm the update sums: of z, of r, or none (the natural norm is sqrt |rho|) */
typedef enum {
  GK_KRYLOV_NORM_Z,
  GK_KRYLOV_NORM_R,
  GK_KRYLOV_NORM_NONE
} GKKrylovNorm;

/* No PetscScalar in a struct the C and the CUDA files share: C++'s complex is aligned to 16
   bytes, C's to 8, and the layouts would differ. */
typedef struct {
  PetscReal    norm2;  /* the last update's norm, squared */
  PetscReal    rho[2]; /* rho_i (r^H z, or r~^H z, or r^T z): real and imaginary parts */
  GKKrylovFlag flag;
  PetscInt     flagit; /* the iteration whose kernel set the flag */
} GKKrylovState;

#define GK_KRYLOV_SUMS 4              /* the sums krylovgetsums gives, no more: its callers' arrays hold so many */
typedef struct _n_GKKrylov *GKKrylov; /* the backend's work space and state */

/* The device arrays of one fused solve. The direction has two buffers: step i writes p_i into
   p[i % 2] and reads p_i-1 from the other (not at i = 0, where p_0 = z). d is the Jacobi scaling
   (NULL: no preconditioner, and z is r); z NULL with d: z = d .* r enters the sums but is not
   stored. The shadow system's arrays (rt, zt, wt, pt) are BiCG's, NULL for CG and COCG; t is
   Eisenstat's (krylovssor), else NULL. sd, where set (with d), is d in single precision
   (GK_SINGLE_SIZE each), which the update reads in place of d. */
typedef struct {
  PetscScalar       *x, *r, *z, *w, *p[2];
  PetscScalar       *rt, *zt, *wt, *pt[2];
  PetscScalar       *t;
  const PetscScalar *d;
  const void        *sd;
} GKKrylovVecs;

/* One launch of Eisenstat's step (krylovssor below): which sweep (upper, else lower), over
   which rows (nrows of rows, or all with nrows 0 and rows NULL; a colour of the permuted copy
   with color), what it does besides (flags, GK_SSOR_*), whether it is the solve's last step
   (last: x only moves) and the first launch of its step (first: finishes the last update's
   sums), with S's arrays and omega */
typedef struct {
  PetscBool          last, first, upper;
  const GKSsor      *S;
  PetscInt           nrows;
  const PetscInt    *rows;
  const GKSsorColor *color;
  PetscInt           flags;
  PetscReal          omega;
} GKSsorSweep;

/* The sums of the fused Krylov kernels kept on the GPUs across the processes of one node, each
   on its own GPU (-ksp_cggpu_device_sums): each process owns a mailbox in its device memory that
   every process's kernels write their sums into directly (CUDA IPC, peer to peer), and the
   kernels that need a sum wait on the GPU for every process's part and add them up in rank
   order, so that no sum goes through the host. A process's mailbox is named to the others by an
   id of GK_PEER_ID bytes; at most GK_PEERS_MAX processes. */
typedef struct _n_GKPeers *GKPeers;
#define GK_PEERS_MAX 16
#define GK_PEER_ID   128

/* launches and waits for the device, counted by both backends alike; bytes, counted by the
   callers of the vector operations, the products and the device copies (not the fused Krylov
   kernels, MatSOR's or ssorgpu's sweeps), the least each must move: every array it reads or
   writes once, a matrix's nonzeros without padding (GK_COUNT_BYTES) */
typedef struct {
  PetscLogDouble launches, syncs, bytes;
} GKDeviceCounts;
PETSC_EXTERN GKDeviceCounts GKCounts;
#define GK_COUNT_BYTES(b) (GKCounts.bytes += (PetscLogDouble)(b))

/* -gpukit_overlap_kernels: the CUDA backend may start each of the Krylov methods' fused kernels,
   and each ELLPACK-R or DIA product, while the kernel before it ends (read when the device is
   set) */
PETSC_INTERN PetscBool GKOverlapKernels;

/* -gpukit_device_pool: the CUDA backend takes device memory from the device's memory pool (read
   at the process's first allocation, which decides for the process) */
PETSC_INTERN PetscBool GKDevicePool;

/* -gpukit_device_reserve: the room the pool makes ahead for a matrix's first device copies, in
   times its entries' bytes (gkmat.c; 0: none) */
PETSC_INTERN PetscReal GKDeviceReserve;

/* A CSR matrix of m rows and n columns, nnz entries, where the operation says (spgemm: device
   memory) */
typedef struct {
  PetscInt     m, n, nnz;
  PetscInt    *i, *j;
  PetscScalar *a;
} GKCsr;

typedef struct {
  const char *name;
  /* devices this process sees (host: 1), and the one this process uses */
  PetscErrorCode (*getdevicecount)(int *, char *, size_t);
  PetscErrorCode (*setdevice)(int);
  PetscErrorCode (*getdevicename)(int, char *, size_t);
  /* optional (NULL where the backend has nothing to start): earlystart(dev, localrank, preload)
     begins, on a thread of its own, what the first use of device dev (-1: localrank modulo the
     device count) would wait for, the driver and the context, so that it overlaps the program's
     host work, and with preload what the first sparse product would wait for (loading the
     products' library) on another; getdevicecount, setdevice and getdevicename then take what it
     found; ready waits for the context alone; settle (at PetscFinalize(), whether or not the
     backend was used) waits for the preload too and frees what the early start made, so that
     no thread of the library is left running and nothing it allocated is left when the process
     ends */
  PetscErrorCode (*earlystart)(int, int, PetscBool);
  PetscErrorCode (*ready)(void);
  PetscErrorCode (*settle)(void);
  /* optional (NULL: nothing to make ready): reserve(bytes) has the backend's memory make room for
     allocations of that many bytes to come, on a thread of its own, while the caller goes on (a
     matrix assembled on the host, before its first device copies); settle waits for it */
  PetscErrorCode (*reserve)(size_t);
  /* memory; malloc of 0 bytes gives NULL */
  PetscErrorCode (*malloc)(size_t, void **);
  PetscErrorCode (*free)(void *);
  PetscErrorCode (*memcpy)(void *, const void *, size_t, GKMemcpyKind);
  PetscErrorCode (*memzero)(void *, size_t);
  PetscErrorCode (*demote)(size_t, const PetscScalar *, void *, PetscScalar *, PetscBool *);
  PetscErrorCode (*synchronize)(void);
  /* optional (NULL: the backend has none): graphs of the backend's work. Between graphbegin and
     graphend the backend records its launches, device copies and zeroings instead of running
     them; graphend makes the graph into *g, which holds the previous graph or NULL (the previous
     one updated in place, or freed and a new one made; NULL where it could not be made: what was
     recorded is lost and has not run), which graphlaunch runs, after the work before it, as often
     as asked (not counted as a launch: the caller counts what the graph holds), and graphdestroy
     frees. Nothing that waits for the device, copies across, or allocates or frees
     device memory may be called while recording. */
  PetscErrorCode (*graphbegin)(void);
  PetscErrorCode (*graphend)(void **);
  PetscErrorCode (*graphlaunch)(void *);
  PetscErrorCode (*graphdestroy)(void *);
  /* ELLPACK-R's and DIA's products and diagonals (cuda/ellr.cu, cuda/dia.cu; host/ellr.c, host/dia.c) */
  /* The products write y = A x, or, given w (which may be y), y = w + A x, or y = w - A x with
     neg (the residual b - A x of PETSc's MatResidual), in the same pass. ellrmult(A, conj, x, w,
     neg, y): with conj, conj(A) x */
  PetscErrorCode (*ellrmult)(const GKEllr *, PetscBool, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
  /* d[i] = A(i,i), 0 where the diagonal entry is not stored, for i < m */
  PetscErrorCode (*ellrgetdiagonal)(const GKEllr *, PetscScalar *);
  /* diamult(A, x, w, neg, y) */
  PetscErrorCode (*diamult)(const GKDia *, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
  /* diamulttranspose(A, conj, x, w, neg, y): A^T x from the same arrays; with conj, A^H x */
  PetscErrorCode (*diamulttranspose)(const GKDia *, PetscBool, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
  PetscErrorCode (*diagetdiagonal)(const GKDia *, PetscScalar *);
  /* the formats' fills, the column checks and COO assembly's sums (cuda/fill.cu, host/fill.c) */
  /* the formats filled on the device from an m-row CSR matrix already there (ai: m + 1, aj and
     aa: ai[m]): ellrshortfits says whether every column of E's rows lies within 16 bits of its
     slot (E's m and perm only are read); ellrfill writes each slot's row length (rl), columns
     (col or dcol, whichever E has) and values into E's layout (sliceptr, wfirst, wptr, perm set,
     padding already zero), only the values with valuesonly (aj then unread); diafill writes the
     values of D's diagonals (off set, val zeroed, every entry's offset among them) */
  PetscErrorCode (*ellrshortfits)(const GKEllr *, const PetscInt *, const PetscInt *, PetscBool *);
  /* checkcols(nnz, n, aj, ok): whether every one of the nnz columns aj (device) lies in [0, n),
     before a format's build places anything by them */
  PetscErrorCode (*checkcols)(PetscInt, PetscInt, const PetscInt *, PetscBool *);
  /* csrsorted(m, ai, aj, sorted): whether each of the m rows of the CSR pattern ai, aj (device)
     has its columns ascending (a product's result, whose host pattern can then be left unmade) */
  PetscErrorCode (*csrsorted)(PetscInt, const PetscInt *, const PetscInt *, PetscBool *);
  PetscErrorCode (*ellrfill)(GKEllr *, const PetscInt *, const PetscInt *, const PetscScalar *, PetscBool);
  PetscErrorCode (*diafill)(GKDia *, const PetscInt *, const PetscInt *, const PetscScalar *);
  /* diaoffsets(m, ai, aj, flag): flag[j - i + m - 1] = 1 for every entry (i, j) (flag zeroed) */
  PetscErrorCode (*diaoffsets)(PetscInt, const PetscInt *, const PetscInt *, char *);
  /* COO assembly (MatSetValuesCOO) into a CSR's values, PETSc's semantics: for p < nnz,
     a[p] = (add ? a[p] : 0) + the sum of v[perm[q]], jmap[p] <= q < jmap[p + 1] */
  PetscErrorCode (*cooscatter)(PetscInt, const PetscCount *, const PetscCount *, const PetscScalar *, PetscBool, PetscScalar *);

  /* The vectors' updates and reductions (cuda/blas1.cu, host/blas1.c), on vectors of length n.
     Every BLAS-1 update (VecAXPY, VecAYPX, VecAXPBY, VecAXPBYPCZ, VecWAXPY, VecScale, VecShift, VecSet) is one call of
       z = a x + b y + c z + d,
     where x or y may be NULL (its term left out) and z is not read when c is 0: PETSc's rule
     that a zero coefficient drops its vector, NaN and all. */
  PetscErrorCode (*axpbypczd)(PetscInt, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, PetscScalar, PetscScalar *);
  /* y = y + sum_k alpha[k] x[k], k < nv <= GK_MULTI (alpha on the host, x the device arrays) */
  PetscErrorCode (*maxpy)(PetscInt, PetscInt, const PetscScalar *, const PetscScalar *const *, PetscScalar *);
  PetscErrorCode (*swap)(PetscInt, PetscScalar *, PetscScalar *);
  PetscErrorCode (*pointwise)(PetscInt, GKPointwiseOp, PetscScalar *, const PetscScalar *, const PetscScalar *);
  /* x = 1/x where x is not 0; x = conj(x); x = |x| */
  PetscErrorCode (*reciprocal)(PetscInt, PetscScalar *);
  PetscErrorCode (*conjugate)(PetscInt, PetscScalar *);
  PetscErrorCode (*abs)(PetscInt, PetscScalar *);
  /* x[i] = GKNoisyHash(start + i), i < n: PETSc's noisy vector (the right-hand side of its
     eigenvalue estimates) made where the vector lives */
  PetscErrorCode (*noisy)(PetscInt, PetscInt, PetscScalar *);
  /* Reductions; the results land in host memory (the call waits for the device). */
  /* r[k] = y[k]^H x (or y[k]^T x without conj), k < nv <= GK_MULTI */
  PetscErrorCode (*dots)(PetscInt, const PetscScalar *, PetscInt, const PetscScalar *const *, PetscBool, PetscScalar *);
  /* dp = t^H s, nm = t^H t */
  PetscErrorCode (*dotnorm2)(PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscReal *);
  /* the GKNormParts asked for (a bitwise or) into r[0..2], the others 0 */
  PetscErrorCode (*norms)(PetscInt, const PetscScalar *, int, PetscReal *);
  PetscErrorCode (*sum)(PetscInt, const PetscScalar *, PetscScalar *);
  /* One step of Arnoldi's process by classical Gram-Schmidt, as PETSc's GMRES takes it (VecMDot(),
     VecMAXPY(), VecNormalize()), its coefficients kept in device memory: no wait. With v[0..m-1]
     and the new direction w, all of length n > 0:
       h[k] = v[k]^H w (k < m), w -= sum_k h[k] v[k], h[m] = ||w||_2, w /= h[m] unless it is 0;
     h: m + 1 scalars of device memory */
  PetscErrorCode (*arnoldi)(PetscInt, PetscInt, const PetscScalar *const *, PetscScalar *, PetscScalar *);
  /* x minus the constant of its mean as MatNullSpaceRemove() computes it from VecSum() and
     VecShift(), with sum's arithmetic: s = (sum of x) / -N, x_i += s (N the global size, one
     process), the sum kept on the device: no wait */
  PetscErrorCode (*removeconstant)(PetscInt, PetscInt, PetscScalar *);
  /* the extreme real part and its first index (-1 and -+PETSC_MAX_REAL when n is 0) */
  PetscErrorCode (*extreme)(PetscInt, const PetscScalar *, GKExtremeOp, PetscInt *, PetscReal *);
  /* the first index i with x[i] == 0 exactly (a NaN is not 0), or -1 */
  PetscErrorCode (*firstzero)(PetscInt, const PetscScalar *, PetscInt *);
  /* device set-up and memory above, and these: cuda/cuda.cu, host/host.c */
  /* y = T x, T the lower (upper false: j <= i) or upper (j >= i) triangle of the n x n dense
     matrix a, stored by rows (a[i n + j]; the other triangle not read): a dense factor's inverse
     (the coarsest solve, gkfactor.c) */
  PetscErrorCode (*densetrimv)(PetscInt, const PetscScalar *, PetscBool, const PetscScalar *, PetscScalar *);
  /* the halo exchange of the MPI matrices: buf[k] = x[idx[k]]; y[idx[k]] += buf[k] (idx[] distinct) */
  PetscErrorCode (*gather)(PetscInt, const PetscInt *, const PetscScalar *, PetscScalar *);
  PetscErrorCode (*scatteradd)(PetscInt, const PetscInt *, const PetscScalar *, PetscScalar *);
  /* whether p points into device memory: CUDA's device or managed memory; the host backend's
     own malloc (so that both backends take the same paths) */
  PetscErrorCode (*ondevice)(const void *, PetscBool *);
  /* optional (NULL: nothing to do): host memory someone else allocated made fast to copy to and
     from (page-locked in place: CUDA's cudaHostRegister), *ok false where it cannot be; and made
     ordinary again, before its owner frees it */
  PetscErrorCode (*hostregister)(void *, size_t, PetscBool *);
  PetscErrorCode (*hostunregister)(void *);
  /* staging memory for the halo exchange: pinned host memory that kernels read and write in
     place of device memory (host: ordinary memory); malloc of 0 bytes gives NULL */
  PetscErrorCode (*hostmalloc)(size_t, void **);
  PetscErrorCode (*hostfree)(void *);
  /* optional (NULL: a copy between host and device memory is memcpy's alone): a large copy to or
     from pageable host memory staged by the caller (GKMemcpyH2D, GKMemcpyD2H) in pieces of
     GK_STAGE_BYTES through GK_STAGE_PIECES page-locked buffers, the host's threads filling or
     emptying one while another's transfer runs. pageable(p, &flg): whether host memory p is
     pageable (CUDA's "unregistered"; the host backend's: all of it); stagebuffer(k, &buf): buffer
     k (made on the early start's thread, else at the first call; NULL where none can be made);
     stagecopy(k, dev, bytes, kind): the transfer of bytes between buffer k and dev queued on the
     stream, in the direction kind; stagewait(k): the host waits for buffer k's last transfer */
  PetscErrorCode (*pageable)(const void *, PetscBool *);
  PetscErrorCode (*stagebuffer)(int, void **);
  PetscErrorCode (*stagecopy)(int, void *, size_t, GKMemcpyKind);
  PetscErrorCode (*stagewait)(int);
  /* SSOR and MatSOR (cuda/sor.cu, host/sor.c) */
  /* an SSOR step (above) on rows[0..nrows-1] (device; NULL: all m rows): step, omega, b, xin, xout */
  PetscErrorCode (*ssorrows)(const GKSsor *, GKSsorStep, PetscInt, const PetscInt *, PetscReal, const PetscScalar *, const PetscScalar *,
                             PetscScalar *);
  /* the same step on the blocks of one colour of the permuted copy with blocks (bs > 1), the
     vectors in its numbering: S, step, colour, omega, b, xin, xout */
  PetscErrorCode (*ssorblocks)(const GKSsor *, GKSsorStep, const GKSsorColor *, PetscReal, const PetscScalar *, const PetscScalar *, PetscScalar *);
  /* PETSc's MatSOR on a format's own arrays (the device matrices' MatSOR, gksor.c), on each
     listed row (ELLPACK-R: slot t, whose row is perm[t], or t; NULL list: all), with d the
     diagonal plus MatSOR's shift (device, by row):
       relaxed in place (y = x) against all its entries, the rows of one list not coupled:
         x_i = (1 - omega) x_i + omega/d_i (b_i - sum_{j != i} A_ij x_j);
       with upper, SOR_APPLY_UPPER's product, over the j after i in the sweeps' order (key[j] >
       key[i], the colours; j > i where key is NULL):
         y_i = d_i/omega x_i + sum A_ij x_j
     E, n, rows, key, upper, d, omega, b, x, y */
  PetscErrorCode (*ellrsor)(const GKEllr *, PetscInt, const PetscInt *, const PetscInt *, PetscBool, const PetscScalar *, PetscReal,
                            const PetscScalar *, const PetscScalar *, PetscScalar *);
  PetscErrorCode (*diasor)(const GKDia *, PetscInt, const PetscInt *, const PetscInt *, PetscBool, const PetscScalar *, PetscReal,
                           const PetscScalar *, const PetscScalar *, PetscScalar *);
  /* MatSOR's order (cuda/order.cu, host/order.c) on a square CSR pattern in device memory (ai, aj;
     m rows; the columns ascending, else it may be found not symmetric):
     greedycolor: where the pattern is symmetric (*sym), each row's colour in color (device, m):
       the greedy colouring in ascending row order (GKGreedyColorRow), *ncolors of them; where it
       is not, *sym false and color not to be used;
     grouprows: the rows grouped by key (device, m; 0 <= key < nkeys) as GKGroupRowsCount groups
       them, into rows (device, m), the groups' starts into lev (host, nkeys + 1) */
  PetscErrorCode (*greedycolor)(PetscInt, const PetscInt *, const PetscInt *, PetscInt *, PetscInt *, PetscBool *);
  PetscErrorCode (*grouprows)(PetscInt, const PetscInt *, PetscInt, PetscBool, PetscInt *, PetscInt *);
  /* the fused Krylov iterations, on vectors of length n (cuda/cg.cu, bicg.cu, krylov.cu,
     halo.cu, peers.cu, eisenstat.cu; host/krylov.c) */
  PetscErrorCode (*krylovcreate)(PetscInt, GKKrylovMethod, GKKrylovNorm, PetscBool, GKKrylov *);
  PetscErrorCode (*krylovdestroy)(GKKrylov *);
  /* step i (rho0 = rho_0 used at i = 0; last: only x moves) with A on v's arrays */
  PetscErrorCode (*krylovstep)(GKKrylov, PetscInt, PetscScalar, PetscBool, const GKOperator *, const GKKrylovVecs *);
  /* update i on v's arrays */
  PetscErrorCode (*krylovupdate)(GKKrylov, PetscInt, const GKKrylovVecs *);
  /* Eisenstat's form of SSOR-preconditioned CG (cggpu with ssorgpu, Eisenstat 1981): CG on
     (D/w + L)^-1 A (D/w + U)^-1 with the scaling ((2-w)/w) D as the update's diag, whose product
     needs no product with A, as A = (D/w + L) + (D/w + U) + (1 - 2/w) D: t = (D/w + U)^-1 p and
     w = t + (D/w + L)^-1 (p + (1 - 2/w) D t). The step becomes sweeps over the solves' lists of
     rows (levels or colours), then the sum of dpi:
       upper, each list in the backward order: (the first list) the last update's sums finished
         as the step finishes them; x += a p_i-1; p_i = z + b p_i-1 (z at i = 0);
         t = omega/d (p - U t); last: only x moves, all rows (rows NULL);
       lower, each list in the forward order: w = (omega - 1) t + omega/d (p - L (w - t)).
     With color (not NULL), the list is that colour of the permuted copy, all vectors are in its
     numbering, flags (GK_SSOR_*) say what the colour does besides, and a colour computing w also
     sums its part of dpi, the last one finishing the sum that krylovdpi would. With blocks (S's
     bs > 1) a colour's blocks take the steps with D_B for d (as ssorblocks).
     (i, rho0, the launch, v: z (r with GK_SSOR_ZR), the direction's buffers, t, w, x) */
  PetscErrorCode (*krylovssor)(GKKrylov, PetscInt, PetscScalar, const GKSsorSweep *, const GKKrylovVecs *);
  /* CG's update with blocks (Eisenstat's form of block SSOR): z = ((2 - w)/w) D r, D the blocks
     of S, enters the sums and is not stored (i, S, omega, w, r) */
  PetscErrorCode (*krylovupdateblocks)(GKKrylov, PetscInt, const GKSsor *, PetscReal, const PetscScalar *, PetscScalar *);
  /* the sum of dpi = p^H w (COCG: p^T w) for the next update */
  PetscErrorCode (*krylovdpi)(GKKrylov, const PetscScalar *, const PetscScalar *);
  /* the state to the host: the copy queued behind the kernels so far, then the wait for it */
  PetscErrorCode (*krylovstatebegin)(GKKrylov);
  PetscErrorCode (*krylovstateend)(GKKrylov, GKKrylovState *);
  /* The same iterations on one process's rows of a matrix split over processes: the step runs
     on the diagonal block, and these do the rest, the host summing over the processes between
     the kernels. */
  /* buf[k] = p_i(idx[k]) (i, count, idx, z, p_i-1, buf), the direction entries other processes
     need, computed as step i computes them (the same bits); queued, waited for by gatherwait;
     with buf NULL, sent GPU to GPU (peershalo below) */
  PetscErrorCode (*krylovgather)(GKKrylov, PetscInt, PetscInt, const PetscInt *, const PetscScalar *, const PetscScalar *, PetscScalar *);
  PetscErrorCode (*krylovgatherwait)(GKKrylov);
  /* after a step: w += Ao g, the off-diagonal block times the ghosts g of p, and that part of
     dpi (Ao, the count and list of its slots holding entries, g, p, w, and p~ for BiCG), into
     sums[3]; Ao's single-precision values where its sval is set */
  PetscErrorCode (*krylovoffdiag)(GKKrylov, const GKEllr *, PetscInt, const PetscInt *, const PetscScalar *, const PetscScalar *, PetscScalar *,
                                  const PetscScalar *);
  /* waits for the kernels so far and gives the GK_KRYLOV_SUMS sums they left: [0] dpi (the
     step's), [1] the norm, [2] rho, [3] dpi (the off-diagonal block's) */
  PetscErrorCode (*krylovgetsums)(GKKrylov, PetscScalar *);
  /* dpi, the norm and rho summed over the processes: the later kernels use them in place of
     the sums of their own rows */
  PetscErrorCode (*krylovsetsums)(GKKrylov, const PetscScalar *);
  /* The sums kept on the GPUs (GKPeers above; NULL where the backend has none). peerscreate
     makes this process's mailbox and writes its id; peersopen maps the mailboxes of all np
     processes (ids in rank order, me this one) where they can be written from here, else leaves
     *ok false with the reason in why; krylovsetpeers makes the kernels of one solve (solve
     counts the solves that used P, alike on every process) exchange dpi, the norm and rho
     through P instead of krylovgetsums and krylovsetsums, dpi pushed by the step when
     stepdpi (no off-diagonal part follows), else by krylovoffdiag */
  PetscErrorCode (*peerscreate)(GKPeers *, char *);
  PetscErrorCode (*peersopen)(GKPeers, int, int, const char *, PetscBool *, char *, size_t);
  PetscErrorCode (*peersdestroy)(GKPeers *);
  PetscErrorCode (*krylovsetpeers)(GKKrylov, GKPeers, PetscInt, PetscBool);
  /* The direction's ghosts sent GPU to GPU with those sums (-ksp_cggpu_device_halo):
     krylovgather with no buf writes the entries other processes need straight into their ghost
     buffers (CUDA IPC) and tags the step in their mailboxes, nothing for the host to wait for or
     send; krylovoffdiag with no ghosts given waits for the tags and reads this process's
     buffer. peersghosts makes this process's buffer for nghost ghosts anew (no process may write
     into the old one any more) and writes its id (GK_PEER_ID bytes); peershalo, given every
     process's id in rank order, makes the gathers send (nsr processes sranks; the gather's
     entries soff[r] .. soff[r + 1] - 1 to sranks[r], entry k to position pos[k] of its
     receiver's ghosts), else leaves *ok false with the reason in why; with ids NULL, it stops
     sending. krylovsetpeers takes the state of P at the time. */
  PetscErrorCode (*peersghosts)(GKPeers, PetscInt, char *);
  PetscErrorCode (*peershalo)(GKPeers, const char *, PetscInt, const PetscMPIInt *, const PetscInt *, const PetscInt *, PetscBool *, char *, size_t);
  /* the sparse products (cuda/spgemm.cu, host/spgemm.c) */
  /* C = A P, or C = R^T (A P) where R is given (CSR matrices in device memory, 32-bit indices;
     C's arrays allocated here, freed with free): MatMatMult() and MatPtAP() of the device types
     (R = P, or for an MPI matrix its local rows of P). *done false, with the reason in why,
     where the backend cannot at the time (cuSPARSE not found); then nothing is computed. */
  PetscErrorCode (*spgemm)(const GKCsr *, const GKCsr *, const GKCsr *, GKCsr *, PetscBool *, char *, size_t);
  /* spgemmnumeric(plan, A, P, R, C, done, why, len): spgemm again for operands of the patterns
     *plan was made for (their arrays anywhere, their values new), through that plan, made here
     where *plan is NULL (the patterns analysed, what the numeric steps read kept); C's arrays
     allocated here as spgemm's, each row's columns ascending (*done false, nothing made, where
     the backend cannot make them so). spgemmplanfree(plan) frees *plan (NULL: nothing) and sets it
     NULL. */
  PetscErrorCode (*spgemmnumeric)(void **, const GKCsr *, const GKCsr *, const GKCsr *, GKCsr *, PetscBool *, char *, size_t);
  PetscErrorCode (*spgemmplanfree)(void **);
  /* transpose(R, T, done): T = R^T, each row of T in R's row order (ascending), T's arrays
     allocated here (device memory, freed with free): a kept device CSR's transposed copy
     (ELLPACK-R's, for MatMultTranspose). *done false where the backend cannot at the time (as
     spgemm); then nothing is made. */
  PetscErrorCode (*transpose)(const GKCsr *, GKCsr *, PetscBool *);
  /* PCGAMG's aggregation (host twin: host/graph.c, host/coarsen.c; kernels: cuda/graph.cu,
     cuda/coarsen.cu), on one process's square matrix, every array in device memory:
     strength(A, symmetrize, threshold, G, mirrored): the strength graph of smoothed aggregation,
     PETSc's for block size 1 (MatCreateGraph() scaled, then filtered): entry (i,j) of A, its
     columns ascending in each row, kept where threshold < 0 or (w_ij s_i) s_j > threshold, with
     w_ij = |a_ij| + |a_ji| (symmetrize) or |a_ij|, s_i = sqrt(1 / w_ii) (0 where w_ii = 0);
     G's arrays i and j allocated here (G->a NULL), A's pattern kept in order. Where
     symmetrize is asked and some a_ij has no a_ji in the pattern, *mirrored is false and G not
     made (the graph then needs the entries A^T adds). strength(A, h, ...) with a halo h
     (GKStrengthHalo above; NULL: A is all of the graph): A the diagonal block of this process's
     rows, h its entries in the ghosts' columns, kept where (w_iJ s_i) s_J passes the threshold;
     G's row i the kept columns of A's row i, then m + J for each kept entry of h's row i (h's
     order), G->n = m + nghost, as aggregate's halo takes it. Collective with a halo (one exchange,
     which every process makes, one with no rows too); *mirrored this process's answer. */
  PetscErrorCode (*strength)(const GKCsr *, const GKStrengthHalo *, PetscBool, PetscReal, GKCsr *, PetscBool *);
  /* aggregate(m, gi, gj, dist, agg, nagg): the aggregates on the graph of m vertices whose
     edges are the entries of the CSR pattern gi, gj (diagonal entries ignored; symmetric, as
     strength makes it): the roots a maximal independent set at distance dist (1: no two
     adjacent; 2: none within two edges), found in rounds by the vertices' priorities (GKAggKey),
     every other vertex joining the root of highest priority next to it (at distance 2, where no
     root is next to it, the aggregate of its neighbour of highest priority that joined one); a
     vertex with no edge to another in no aggregate (agg -1, as PETSc leaves a Dirichlet row's);
     agg[v] the aggregate of vertex v, numbered by their roots' order, roots[a] (m entries
     allocated) the root of aggregate a, *nagg their count. halo NULL: the graph is all of it; else
     (GKAggHalo above) this process's rows of a graph split between processes, their columns
     local and ghost: agg[v] the aggregate's global number (the roots numbered in the order of
     their global numbers, which may be another process's root), roots[] and *nagg this process's */
  PetscErrorCode (*aggregate)(PetscInt, const PetscInt *, const PetscInt *, PetscInt, const GKAggHalo *, PetscInt *, PetscInt *, PetscInt *);
  /* tentative(m, agg, nagg, b, p, r): the tentative prolongator of one near-null-space vector b,
     smoothed aggregation's QR of each aggregate's part of b as LAPACK's Householder step makes it
     (dlarfg), the aggregate's rows taken in ascending order: with b_1 its first row's entry and
     rho the norm of the others', r = b_1 and p 1 in the first row, 0 in the others where rho is
     0, else r = -sign(b_1) sqrt(b_1^2 + rho^2) and p_v = b_v / r, the sums of squares in that
     order. p[v] (0 where agg[v] < 0) and r[a] are P's value in row v and the coarse level's
     vector. */
  PetscErrorCode (*tentative)(PetscInt, const PetscInt *, PetscInt, const PetscReal *, PetscScalar *, PetscReal *);
  /* smooth(A, agg, p0, alpha, P): PETSc's smoothing step of that tentative prolongator P0 (row v:
     p0[v] in column agg[v], nothing where agg[v] < 0), P = P0 + alpha D^-1 (A P0) with D A's
     diagonal (a missing or zero one taken as 1/d = 0): row i's columns the aggregates of row i
     of A's columns and of i, ascending; the value in column c (1/a_ii) times the sum of a_ik
     p0[k] over the columns k of row i in aggregate c, in A's order, times alpha, plus p0[i]
     where c = agg[i]; P's arrays (m rows, n columns: the aggregates' count) allocated here */
  PetscErrorCode (*smooth)(const GKCsr *, const PetscInt *, const PetscScalar *, PetscInt, PetscReal, GKCsr *);
  /* Block size bs > 1 or nv > 1 near-null-space vectors (optional: NULL where the backend has none,
     and PETSc's host aggregation runs). collapse(A, bs, G): G the graph of A's bs x bs blocks (A's
     columns ascending in each row, as strength's), G_IJ the sum of |Re a| over the entries of block
     (I, J), row by row (PETSc's MatCreateGraph() with bs > 1, before its symmetrize, scale and
     filter), each row's columns ascending, G's arrays allocated here. tentativeblock(nn, bs, nv,
     agg, nagg, b, p, r): the tentative prolongator of the nv vectors b (m = nn bs rows; vector k at
     b + k m) on the aggregates agg[] of the nn nodes: each aggregate's rows (its nodes ascending, a
     node's bs rows in order) padded with zero rows to nv where fewer, factored Q R by nv
     Householder steps as LAPACK's geqr2 and org2r take them; p the m x nv values of Q by rows (row
     i's in the columns agg[i / bs] nv .. agg[i / bs] nv + nv - 1; zero where the node is in no
     aggregate), r the coarse vectors, aggregate a's R in rows a nv .. a nv + nv - 1 of the nagg nv
     x nv matrix r (vector k at r + k nagg nv, 0 below R's diagonal). smoothblock(A, bs, nv, agg,
     p0, nagg, alpha, P): smooth's step for that P0, row i's columns the nv columns of each
     aggregate its entries reach (and its own), ascending. */
  PetscErrorCode (*collapse)(const GKCsr *, PetscInt, GKCsr *);
  PetscErrorCode (*tentativeblock)(PetscInt, PetscInt, PetscInt, const PetscInt *, PetscInt, const PetscReal *, PetscScalar *, PetscReal *);
  PetscErrorCode (*smoothblock)(const GKCsr *, PetscInt, PetscInt, const PetscInt *, const PetscScalar *, PetscInt, PetscReal, GKCsr *);
  /* q1interp(g, P, scale): DMDA's Q1 interpolation of the grids g (GKQ1Grid above; host twin:
     host/interp.c, kernels: cuda/interp.cu): P's arrays (the fine points' rows, the coarse points'
     columns, each row's ascending; allocated by the caller for GKQ1Size()'s counts, set in P)
     written, and where scale is given (the coarse points'), each column's GKQ1Scale() */
  PetscErrorCode (*q1interp)(const GKQ1Grid *, GKCsr *, PetscScalar *);
  /* frees what the backend keeps between calls (reduction work space) */
  PetscErrorCode (*finalize)(void);
} GKBackendOps;

PETSC_EXTERN const GKBackendOps GKBackendHost;
PETSC_EXTERN const GKBackendOps GKBackendCUDA;
