/*
   The host side of the sums kept on the GPUs (device.h, GKPeers): this process's mailbox and
   ghost buffer made and named to the others (CUDA IPC), theirs mapped here, and a solve's kernels
   pointed at them. The kernels' side is peerwait.cuh.
*/
#include "krylov.cuh"

/* This process's mailbox, and its id: the CUDA IPC handle (64 bytes), then the PCI bus id of
   the GPU it lives on; an IPC handle that cannot be had leaves the id's first byte of the bus
   id 0, which peersopen reports */
PetscErrorCode GKCUDAPeersCreate(GKPeers *P, char *id)
{
  GKPeersCUDA *p;

  PetscFunctionBegin;
  PetscCall(PetscNew(&p));
  GKCallCUDA(cudaGetDevice(&p->dev));
  GKCallCUDA(cudaMalloc((void **)&p->mine, sizeof(GKMailbox)));
  GKCallCUDA(cudaMemset(p->mine, 0, sizeof(GKMailbox)));
  PetscCall(PetscMemzero(id, GK_PEER_ID));
  static_assert(sizeof(cudaIpcMemHandle_t) <= 64, "the IPC handle fits the id");
  if (cudaIpcGetMemHandle((cudaIpcMemHandle_t *)id, p->mine) != cudaSuccess) (void)cudaGetLastError();
  else GKCallCUDA(cudaDeviceGetPCIBusId(id + 64, GK_PEER_ID - 64 - 1, p->dev));
  *P = (GKPeers)p;
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAPeersOpen(GKPeers P, int np, int me, const char *ids, PetscBool *ok, char *why, size_t len)
{
  GKPeersCUDA *p = (GKPeersCUDA *)P;
  int          dev[GK_PEERS_MAX];

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  if (np > GK_PEERS_MAX) {
    PetscCall(PetscSNPrintf(why, len, "%d processes, more than the %d the mailboxes hold", np, GK_PEERS_MAX));
    PetscFunctionReturn(0);
  }
  for (int q = 0; q < np; q++) {
    const char *bus = ids + (size_t)q * GK_PEER_ID + 64;

    if (!bus[0]) {
      PetscCall(PetscSNPrintf(why, len, "process %d has no CUDA IPC handle for its memory", q));
      PetscFunctionReturn(0);
    }
    for (int o = 0; o < q; o++)
      if (!strcmp(bus, ids + (size_t)o * GK_PEER_ID + 64)) {
        PetscCall(
          PetscSNPrintf(why, len, "processes %d and %d share the GPU %s (a process waiting on the GPU would hold it from the other)", o, q, bus));
        PetscFunctionReturn(0);
      }
    if (cudaDeviceGetByPCIBusId(&dev[q], bus) != cudaSuccess) {
      (void)cudaGetLastError();
      PetscCall(PetscSNPrintf(why, len, "the GPU %s of process %d is not visible to process %d", bus, q, me));
      PetscFunctionReturn(0);
    }
    if (q != me) {
      int can = 0;

      GKCallCUDA(cudaDeviceCanAccessPeer(&can, p->dev, dev[q]));
      if (!can) {
        PetscCall(PetscSNPrintf(why, len, "GPU %d cannot access GPU %d (of process %d) as a peer", p->dev, dev[q], q));
        PetscFunctionReturn(0);
      }
    }
  }
  for (int q = 0; q < np; q++) {
    if (q == me) continue;
    if (cudaIpcOpenMemHandle((void **)&p->mb[q], *(const cudaIpcMemHandle_t *)(ids + (size_t)q * GK_PEER_ID), cudaIpcMemLazyEnablePeerAccess) !=
        cudaSuccess) {
      (void)cudaGetLastError();
      p->mb[q] = NULL;
      PetscCall(PetscSNPrintf(why, len, "process %d cannot map the mailbox of process %d (cudaIpcOpenMemHandle)", me, q));
      PetscFunctionReturn(0);
    }
  }
  p->mb[me] = p->mine;
  p->np     = np;
  p->me     = me;
  PetscCall(PetscMemzero(&p->host, sizeof(p->host)));
  p->host.me = me;
  for (int q = 0; q < np; q++) p->host.mb[q] = p->mb[q];
  GKCallCUDA(cudaMalloc((void **)&p->table, sizeof(p->host)));
  GKCallCUDA(cudaMemcpy(p->table, &p->host, sizeof(p->host), cudaMemcpyHostToDevice));
  *ok = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The direction's ghosts no longer sent GPU to GPU: the others' ghost buffers unmapped */
static PetscErrorCode GKCUDAPeersHaloOff(GKPeersCUDA *p)
{
  PetscFunctionBegin;
  if (p->host.hon) {
    GKCallCUDA(cudaDeviceSynchronize()); /* no kernel of this process writes into them */
    p->host.hon  = 0;
    p->host.hdst = NULL;
    GKCallCUDA(cudaMemcpy(p->table, &p->host, sizeof(p->host), cudaMemcpyHostToDevice));
  }
  for (int q = 0; q < GK_PEERS_MAX; q++)
    if (p->gmap[q]) {
      GKCallCUDA(cudaIpcCloseMemHandle(p->gmap[q]));
      p->gmap[q] = NULL;
    }
  GKCallCUDA(cudaFree(p->hdst));
  p->hdst = NULL;
  PetscFunctionReturn(0);
}

/* This process's ghost buffer for nghost ghosts (2 nghost scalars, one at least), made anew,
   and its id: the IPC handle, then nghost; no process may write into the old one any more */
PetscErrorCode GKCUDAPeersGhosts(GKPeers P, PetscInt nghost, char *id)
{
  GKPeersCUDA *p = (GKPeersCUDA *)P;

  PetscFunctionBegin;
  PetscCall(GKCUDAPeersHaloOff(p));
  GKCallCUDA(cudaFree(p->ghost));
  p->ghost  = NULL;
  p->nghost = nghost;
  GKCallCUDA(cudaMalloc((void **)&p->ghost, sizeof(GKScalar) * (size_t)PetscMax(1, 2 * nghost)));
  PetscCall(PetscMemzero(id, GK_PEER_ID));
  if (cudaIpcGetMemHandle((cudaIpcMemHandle_t *)id, p->ghost) != cudaSuccess) (void)cudaGetLastError();
  else {
    PetscCall(PetscMemcpy(id + 64, &nghost, sizeof(nghost)));
    id[64 + sizeof(nghost)] = 1;
  }
  PetscFunctionReturn(0);
}

/* The direction's ghosts sent GPU to GPU (ids: every process's from peersghosts, in rank order),
   or no longer (ids NULL): this process's send lists, nsr processes sranks, the gather's
   entries soff[r] .. soff[r + 1] - 1 to sranks[r], each going to pos[] in its receiver's ghost
   order */
PetscErrorCode GKCUDAPeersHalo(GKPeers P, const char *ids, PetscInt nsr, const PetscMPIInt *sranks, const PetscInt *soff, const PetscInt *pos,
                               PetscBool *ok, char *why, size_t len)
{
  GKPeersCUDA *p = (GKPeersCUDA *)P;
  GKScalar   **dst;
  PetscInt     n;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCall(GKCUDAPeersHaloOff(p));
  if (!ids) PetscFunctionReturn(0);
  n = soff[nsr];
  for (PetscInt r = 0; r < nsr; r++) {
    const int   q  = sranks[r];
    const char *id = ids + (size_t)q * GK_PEER_ID;

    if (q < 0 || q >= p->np || !id[64 + sizeof(PetscInt)]) {
      PetscCall(PetscSNPrintf(why, len, "process %d has no CUDA IPC handle for its ghost buffer", q));
      PetscFunctionReturn(0);
    }
    if (q == p->me || p->gmap[q]) continue;
    if (cudaIpcOpenMemHandle((void **)&p->gmap[q], *(const cudaIpcMemHandle_t *)id, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
      (void)cudaGetLastError();
      p->gmap[q] = NULL;
      PetscCall(PetscSNPrintf(why, len, "process %d cannot map the ghost buffer of process %d (cudaIpcOpenMemHandle)", p->me, q));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(PetscMalloc1(2 * n, &dst));
  for (PetscInt r = 0; r < nsr; r++) {
    const int q = sranks[r];
    PetscInt  ng;
    GKScalar *base = q == p->me ? p->ghost : p->gmap[q];

    PetscCall(PetscMemcpy(&ng, ids + (size_t)q * GK_PEER_ID + 64, sizeof(ng)));
    for (PetscInt k = soff[r]; k < soff[r + 1]; k++) {
      PetscCheck(pos[k] >= 0 && pos[k] < ng, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "Ghost position %" PetscInt_FMT " outside the %" PetscInt_FMT " of process %d", pos[k], ng, q);
      dst[k]     = base + pos[k];
      dst[n + k] = base + ng + pos[k];
    }
  }
  if (n) {
    GKCallCUDA(cudaMalloc((void **)&p->hdst, sizeof(GKScalar *) * 2 * n));
    GKCallCUDA(cudaMemcpy(p->hdst, dst, sizeof(GKScalar *) * 2 * n, cudaMemcpyHostToDevice));
  }
  PetscCall(PetscFree(dst));
  p->host.hon  = 1;
  p->host.hdst = p->hdst;
  GKCallCUDA(cudaMemcpy(p->table, &p->host, sizeof(p->host), cudaMemcpyHostToDevice));
  *ok = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAPeersDestroy(GKPeers *P)
{
  GKPeersCUDA *p = (GKPeersCUDA *)*P;

  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(0);
  GKCallCUDA(cudaDeviceSynchronize());
  if (p->table) PetscCall(GKCUDAPeersHaloOff(p));
  GKCallCUDA(cudaFree(p->ghost));
  for (int q = 0; q < GK_PEERS_MAX; q++)
    if (p->mb[q] && p->mb[q] != p->mine) GKCallCUDA(cudaIpcCloseMemHandle(p->mb[q]));
  GKCallCUDA(cudaFree(p->mine));
  GKCallCUDA(cudaFree(p->table));
  PetscCall(PetscFree(p));
  *P = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovSetPeers(GKKrylov K, GKPeers P, PetscInt solve, PetscBool stepdpi)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;
  GKPeersCUDA  *p = (GKPeersCUDA *)P;

  PetscFunctionBegin;
  k->g.np   = 0;
  k->ghost  = NULL;
  k->nghost = 0;
  if (!p) PetscFunctionReturn(0);
  if (p->host.hon) {
    k->ghost  = p->ghost;
    k->nghost = p->nghost;
  }
  k->g.np      = p->np;
  k->g.mine    = p->mine;
  k->g.stepdpi = stepdpi ? 1 : 0;
  /* the words no process can write in this solve before this process's first kernels: cleared
     (GKPeerTag), queued before them */
  GKCallCUDA(cudaMemsetAsync(&p->mine->w[0][1][0][0], 0, (size_t)((char *)&p->mine->w[2][0][0][0] - (char *)&p->mine->w[0][1][0][0]), 0));
  GKCallCUDA(cudaMemsetAsync(&p->mine->w[2][1][0][0], 0, sizeof(p->mine->w[2][1]), 0));
  k->g.base = (unsigned long long)solve << 32;
  k->g.pt   = p->table;
  PetscFunctionReturn(0);
}
