/*
   The fused iterations on one process's rows of a matrix split over processes (device.h): the
   direction's entries other processes need, gathered as the step computes them (and sent GPU to
   GPU with peershalo), and the off-diagonal block's part of w and dpi after the step.
*/
#include "gridsum.cuh"
#include <type_traits>

/* The entries idx of the direction step i computes, b computed as the step computes it (the
   same bits): what other processes read as ghosts, into buf; or, with buf NULL, sent GPU to GPU
   (peershalo, device.h): written straight into the receivers' ghost buffers, into the half of
   the parity of i (entry k to hdst[(i % 2) cnt + k]), each block fencing its writes system-wide,
   and the last block to finish tagging step i in every process's mailbox (also with no entries:
   one block), which the receivers' off-diagonal kernels wait for. A half is written again two
   steps later, after every process has summed the update between, which followed its reads.
   Its own kernel, not the step's: in the step, the sending took its blocks' product loop
   (scheduled otherwise by the compiler) 2 to 4% slower. */
__global__ void GKKrylovGatherKernel(PetscInt cnt, PetscInt i, GKSums g, GKKrylovDevState *st, const PetscInt *__restrict__ idx,
                                     const GKScalar *__restrict__ z, const GKScalar *__restrict__ pold, GKScalar *buf)
{
  __shared__ bool last;
  const PetscInt  k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  GKScalar        b = 0.0;

  GKOverlapBegin();

  if (g.np && i) { /* kept on the GPUs: nothing to wait for once stopped */
    double v[3];

    if (!GKPeerWait(g, 1, i - 1, st, v)) return; /* stopped, or timed out */
    b = GKMake(v[1], v[2]) / GKMake(st->rho[(i - 1) % 2][0], st->rho[(i - 1) % 2][1]);
  } else if (i)
    b = (g.set ? GKMake(g.s[2][0], g.s[2][1]) : GKMake(st->sum[2][0], st->sum[2][1])) / GKMake(st->rho[(i - 1) % 2][0], st->rho[(i - 1) % 2][1]);
  if (buf) {
    if (k < cnt) buf[k] = GKDir(z[idx[k]], b, (i ? pold : z)[idx[k]]);
    return;
  }
  if (k < cnt) *g.pt->hdst[(i & 1) * cnt + k] = GKDir(z[idx[k]], b, (i ? pold : z)[idx[k]]);
  __threadfence_system();
  __syncthreads();
  if (!threadIdx.x) last = atomicAdd(&st->hcount, 1u) == gridDim.x - 1;
  __syncthreads();
  if (last && !threadIdx.x) {
    st->hcount = 0;
    __threadfence_system();
    GKPeerPushTags(g, GK_PEER_HALO, i);
  }
}

PetscErrorCode GKCUDAKrylovGather(GKKrylov K, PetscInt i, PetscInt cnt, const PetscInt *idx, const PetscScalar *z, const PetscScalar *pold,
                                  PetscScalar *buf)
{
  GKKrylovCUDA *k    = (GKKrylovCUDA *)K;
  const bool    halo = !buf && k->g.np && k->ghost; /* sent GPU to GPU (a process sending nothing has no buf either) */

  PetscFunctionBegin;
  PetscCheck(buf || halo || !cnt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No buffer given and no ghosts sent GPU to GPU");
  if (cnt || halo) {
    GKCallCUDA(GKLaunchOverlapped(GKKrylovGatherKernel, halo ? PetscMax(1u, GKBlocks(cnt)) : GKBlocks(cnt), cnt, i, k->g, k->state, idx,
                                  (const GKScalar *)z, (const GKScalar *)pold, (GKScalar *)buf));
    GKCheckLaunch();
  }
  if (!halo) GKCallCUDA(cudaEventRecord(k->gathered, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovGatherWait(GKKrylov K)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;

  PetscFunctionBegin;
  GKWaitCUDA(cudaEventSynchronize(k->gathered));
  PetscFunctionReturn(0);
}

/* w += Ao g, a thread per listed slot of the off-diagonal block (those holding entries: the rows
   with ghosts, few), and the block sums of that part of dpi; g may be staging memory, read with
   plain loads. SINGLE: the block's single-precision values (sval), summed in double. */
struct GKPlainIn {
  const GKScalar                     *x;
  __device__ __forceinline__ GKScalar operator()(PetscInt j) const { return x[j]; }
};

template <GKKrylovMethod METHOD, bool SINGLE>
__global__ void GKKrylovOffDiagKernel(PetscInt i, GKSums gs, bool halo, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, GKEllr E,
                                      PetscInt ns, const PetscInt *__restrict__ slots, const GKScalar *g, const GKScalar *__restrict__ p,
                                      GKScalar *__restrict__ w, const GKScalar *__restrict__ pt)
{
  typedef typename std::conditional<SINGLE, GKSingle, GKScalar>::type V;

  GKScalar        acc[1] = {0.0};
  const GKPlainIn in     = {g};
  const V        *val    = (const V *)(SINGLE ? E.sval : (void *)E.val);

  GKOverlapBegin();
  if (halo) { /* g is this process's ghost buffer, which the others' steps write into: their tags first */
    if (!GKPeerArrived(gs, GK_PEER_HALO, i, st)) return;
  } else if (GKStopped(st)) return;
  for (PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; k < ns; k += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt t = slots[k], r = E.perm ? E.perm[t] : t;
    const GKScalar v = GKEllrRow<false, GKPlainIn, false, 4, -1, false, V>(t, E.h, E.sliceptr, E.wfirst, E.wptr, E.rl, E.col, E.dcol, val, in);

    w[r] += v;
    if (METHOD == GK_KRYLOV_CG) acc[0] += p[r] * GKConj(v);
    else if (METHOD == GK_KRYLOV_COCG) acc[0] += p[r] * v;
    else acc[0] += v * GKConj(pt[r]);
  }
  GKGridSum<1, 0>(acc, partial, 3, st, pub, &gs, i); /* kept on the GPUs: dpi pushed from here */
}

PetscErrorCode GKCUDAKrylovOffDiag(GKKrylov K, const GKEllr *Ao, PetscInt ns, const PetscInt *slots, const PetscScalar *g, const PetscScalar *p,
                                   PetscScalar *w, const PetscScalar *pt)
{
  GKKrylovCUDA *k    = (GKKrylovCUDA *)K;
  const bool    halo = !g; /* the ghosts sent GPU to GPU, into this process's ghost buffer */
  void (*kern)(PetscInt, GKSums, bool, double *, GKKrylovDevState *, GKKrylovDevState *, GKEllr, PetscInt, const PetscInt *, const GKScalar *,
               const GKScalar *, GKScalar *, const GKScalar *);

  PetscFunctionBegin;
  PetscCheck(g || (k->g.np && k->ghost), PETSC_COMM_SELF, PETSC_ERR_PLIB, "No ghosts given and none sent GPU to GPU");
  if (halo) g = (const PetscScalar *)(k->ghost + (k->stepi % 2) * k->nghost);
  if (Ao->sval)
    kern = k->method == GK_KRYLOV_CG   ? GKKrylovOffDiagKernel<GK_KRYLOV_CG, true>
         : k->method == GK_KRYLOV_COCG ? GKKrylovOffDiagKernel<GK_KRYLOV_COCG, true>
                                       : GKKrylovOffDiagKernel<GK_KRYLOV_BICG, true>;
  else
    kern = k->method == GK_KRYLOV_CG   ? GKKrylovOffDiagKernel<GK_KRYLOV_CG, false>
         : k->method == GK_KRYLOV_COCG ? GKKrylovOffDiagKernel<GK_KRYLOV_COCG, false>
                                       : GKKrylovOffDiagKernel<GK_KRYLOV_BICG, false>;
  GKCallCUDA(GKLaunchOverlapped(kern, GKWaveBlocks((const void *)kern, ns), k->stepi, k->g, halo, k->partial, k->state, k->pub, *Ao, ns, slots,
                                (const GKScalar *)g, (const GKScalar *)p, (GKScalar *)w, (const GKScalar *)pt));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}
