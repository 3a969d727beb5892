/*
   MatSOR's order on the device (device.h: greedycolor, grouprows; host twin: host/order.c).

   The greedy colouring gives each row, in ascending order, the least colour none of its
   neighbours below it holds: a sequential rule, which the device follows exactly without rounds,
   as synchronisation-free triangular solves do (Liu, Li, Hou and Vinter, Euro-Par 2016): a thread
   a row takes its colour as soon as its neighbours below have theirs, polling them (volatile
   loads and stores: the colours meet at the global memory's coherence point; a block's own rows
   meet in its shared memory, so that a grid line's rows, which follow each other, wait for each
   other there). No row waits for a row that does not read it: a grid's rows are coloured in
   waves along its diagonals, about as many as the grid has points a side summed over its
   dimensions. The blocks take their rows in ascending order as they start (a counter, not the
   block's index, which the scheduler may start in any order), so that a row only ever waits for
   rows whose blocks have begun.

   The groups are a stable radix sort of the rows by their keys (CUB), the groups' starts found
   where the sorted keys change.
*/
#include "cudaimpl.h"
#include <cub/cub.cuh>

/* every entry (i, j) has its mirror (j, i): *asym set where one does not */
__global__ void GKMirroredKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, int *asym)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] != i && GKFind(ai, aj, aj[k], i) < 0) {
        *asym = 1;
        break;
      }
}

/* row j's colour, or -1 while it is not made: a row of this block's (from base, n of them) in its
   shared array, another in global memory */
static __device__ __forceinline__ PetscInt GKColorOf(PetscInt j, PetscInt base, PetscInt n, const volatile PetscInt *scol,
                                                     const volatile PetscInt *color)
{
  return j >= base && j < base + n ? scol[j - base] : color[j];
}

/* state[0]: the next row to hand out; state[1]: the colours made (the largest plus one) */
__global__ void GKGreedyColorKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, PetscInt *color, unsigned *state)
{
  __shared__ unsigned first;
  __shared__ PetscInt scol[GK_BLOCK];
  volatile PetscInt  *vc = color, *vs = scol;

  if (threadIdx.x == 0) first = atomicAdd(state, (unsigned)blockDim.x);
  scol[threadIdx.x] = -1;
  __syncthreads();
  {
    const PetscInt     base = first, i = base + threadIdx.x, n = blockDim.x;
    unsigned long long used = 0; /* the colours below 64 of the neighbours below seen so far */
    PetscInt           c = -1, k = i < m ? ai[i] : 0, cj;
    bool               done = i >= m;

    while (!__all_sync(0xffffffffu, done)) {
      if (done) continue;
      for (; k < ai[i + 1]; k++) { /* the neighbours below, in order, as far as they are coloured */
        if (aj[k] >= i) continue;
        if ((cj = GKColorOf(aj[k], base, n, vs, vc)) < 0) break;
        if (cj < 64) used |= 1ULL << cj;
      }
      if (k < ai[i + 1]) {
        if (aj[k] < base) __nanosleep(64); /* another block's row: polled less often */
        continue;
      }
      for (c = GKLeastFreeColor(used);; c++) { /* past 64: the least colour none of them holds */
        PetscInt l;

        for (l = ai[i]; c >= 64 && l < ai[i + 1]; l++)
          if (aj[l] < i && GKColorOf(aj[l], base, n, vs, vc) == c) break;
        if (c < 64 || l == ai[i + 1]) break;
      }
      vs[threadIdx.x] = c;
      vc[i]           = c;
      done            = true;
    }
    for (int o = 16; o > 0; o /= 2) c = max(c, __shfl_down_sync(0xffffffffu, c, o));
    if ((threadIdx.x & 31u) == 0 && c >= 0) atomicMax(state + 1, (unsigned)c + 1);
  }
}

/* The mirror check and the colouring queued together, one wait for both: the colouring of a
   pattern that is not symmetric ends too (a row waits only for rows below it) and is not used */
PetscErrorCode GKCUDAGreedyColor(PetscInt m, const PetscInt *ai, const PetscInt *aj, PetscInt *color, PetscInt *ncolors, PetscBool *sym)
{
  unsigned *state = NULL, hstate[3] = {0, 0, 0};

  PetscFunctionBegin;
  *ncolors = 0;
  *sym     = PETSC_TRUE;
  if (!m) PetscFunctionReturn(0);
  PetscCall(GKBackendCUDA.malloc(3 * sizeof(unsigned), (void **)&state));
  GKCallCUDA(cudaMemsetAsync(state, 0, 3 * sizeof(unsigned), GKCUDAStream));
  GKCallCUDA(cudaMemsetAsync(color, 0xff, sizeof(PetscInt) * (size_t)m, GKCUDAStream)); /* -1: not coloured */
  GKMirroredKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, ai, aj, (int *)(state + 2));
  GKCheckLaunch();
  GKGreedyColorKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, ai, aj, color, state);
  GKCheckLaunch();
  GKWaitCUDA(cudaMemcpy(hstate, state, 3 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  PetscCall(GKBackendCUDA.free(state));
  if (hstate[2]) *sym = PETSC_FALSE;
  else *ncolors = (PetscInt)hstate[1];
  PetscFunctionReturn(0);
}

/* out[i] = the group of row i (descending: nkeys - 1 - key), row[i] = i */
__global__ void GKGroupKeyKernel(PetscInt m, const PetscInt *__restrict__ key, PetscInt nkeys, PetscBool descending, PetscInt *__restrict__ out,
                                 PetscInt *__restrict__ row)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    out[i] = descending ? nkeys - 1 - key[i] : key[i];
    row[i] = i;
  }
}

/* start[g] = the first place of group g in the sorted groups (groups with no row left as set) */
__global__ void GKGroupStartKernel(PetscInt m, const PetscInt *__restrict__ g, PetscInt *__restrict__ start)
{
  const PetscInt q = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (q < m && (q == 0 || g[q] != g[q - 1])) start[g[q]] = q;
}

PetscErrorCode GKCUDAGroupRows(PetscInt m, const PetscInt *key, PetscInt nkeys, PetscBool descending, PetscInt *lev, PetscInt *rows)
{
  PetscInt *g = NULL, *row = NULL, *start = NULL;
  void     *tmp = NULL;
  size_t    bytes;
  int       bits = 1;

  PetscFunctionBegin;
  for (PetscInt l = 0; l <= nkeys; l++) lev[l] = m;
  if (!m || !nkeys) PetscFunctionReturn(0);
  while (bits < 31 && ((PetscInt)1 << bits) < nkeys) bits++; /* the groups' significant bits: 0 to nkeys - 1 */
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(3 * m + nkeys + 1), (void **)&g));
  row   = g + 2 * m;
  start = row + m;
  GKGroupKeyKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, key, nkeys, descending, g, row);
  GKCheckLaunch();
  GKCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, bytes, g, g + m, row, rows, m, 0, bits, GKCUDAStream));
  PetscCall(GKBackendCUDA.malloc(bytes, &tmp));
  GKCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, g, g + m, row, rows, m, 0, bits, GKCUDAStream));
  GKCounts.launches += 1;
  PetscCall(GKBackendCUDA.free(tmp));
  GKCallCUDA(cudaMemsetAsync(start, 0xff, sizeof(PetscInt) * (size_t)(nkeys + 1), GKCUDAStream));
  GKGroupStartKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, g + m, start);
  GKCheckLaunch();
  GKWaitCUDA(cudaMemcpy(lev, start, sizeof(PetscInt) * (size_t)nkeys, cudaMemcpyDeviceToHost));
  PetscCall(GKBackendCUDA.free(g));
  lev[nkeys] = m;
  for (PetscInt l = nkeys - 1; l >= 0; l--) /* a group with no row starts where the next does */
    if (lev[l] < 0) lev[l] = lev[l + 1];
  PetscFunctionReturn(0);
}
