/*
   The MPI device matrices' transport kept on the GPUs, for the fused solvers: the mailboxes of
   the sums over the processes (CUDA IPC, device.h's peers entries) and, through them, the
   direction's ghosts written GPU to GPU along the matrix's halo lists (mpigk.c)
*/
#include "gkmat.h"

/* The sums kept on the GPUs (device.h, GKPeers): tried once per transport, on obj's communicator
   (any count of processes, one included, on the MPI types); made where every process of it is
   on one node with a GPU of its own that the others' can write to, and the backend has them.
   Otherwise the sums go through MPI_Allreduce on the host, and -info (on obj) says why. */
PetscErrorCode MatGKTransportPeers_Private(GKTransport *t, PetscObject obj)
{
  MPI_Comm    comm = PetscObjectComm(obj), node;
  PetscMPIInt size, rank, nsize;
  char        id[GK_PEER_ID], why[256] = "", *ids;
  PetscBool   ok = PETSC_FALSE, all;

  PetscFunctionBegin;
  if (t->tried) PetscFunctionReturn(0);
  t->tried = PETSC_TRUE;
  if (!GKDev->peerscreate) {
    PetscCall(PetscInfo(obj, "The sums over the processes go through MPI_Allreduce: the %s backend keeps none on devices\n", GKDev->name));
    PetscFunctionReturn(0);
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nsize));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscCall(PetscMalloc1((size_t)size * GK_PEER_ID, &ids));
  PetscCall(GKDev->peerscreate(&t->peers, id));
  PetscCallMPI(MPI_Allgather(id, GK_PEER_ID, MPI_BYTE, ids, GK_PEER_ID, MPI_BYTE, comm));
  if (nsize != size) PetscCall(PetscSNPrintf(why, sizeof(why), "the %d processes are not all on one node", size));
  else PetscCall(GKDev->peersopen(t->peers, size, rank, ids, &ok, why, sizeof(why)));
  PetscCall(PetscFree(ids));
  PetscCall(MPIU_Allreduce(&ok, &all, 1, GK_MPI_BOOL, MPI_LAND, comm));
  if (all) {
    PetscCall(PetscInfo(obj, "The sums over the %d process%s kept on %s GPU%s (CUDA IPC mailboxes)\n", size, size > 1 ? "es" : "",
                        size > 1 ? "their" : "its", size > 1 ? "s" : ""));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscInfo(obj, "The sums over the processes go through MPI_Allreduce: %s\n", ok ? "another process cannot keep them on the GPUs" : why));
  PetscCall(GKDev->peersdestroy(&t->peers));
  PetscFunctionReturn(0);
}

/* The gathers no longer send the direction's ghosts GPU to GPU (peershalo with no ids) */
static PetscErrorCode MatGKTransportHaloOff_Private(GKTransport *t)
{
  PetscBool ok;
  char      why[8];

  PetscFunctionBegin;
  PetscCall(GKDev->peershalo(t->peers, NULL, 0, NULL, NULL, NULL, &ok, why, sizeof(why)));
  PetscFunctionReturn(0);
}

/* With the sums kept on the GPUs (t's mailboxes made), the direction's ghosts too (want: the
   solver's option): the kernel that gathers the entries of the MPI device matrix A's direction
   other processes need writes them straight into their ghost buffers (device.h, peershalo), so
   that an iteration runs with no host in it, as on one process. Set up for A's halo lists, again
   whenever they change; every process takes the same decisions (collective). Otherwise (*now
   false) the ghosts go through MPI, gathered by a kernel and staged on the host, and -info (on
   obj) says why. */
PetscErrorCode MatMPIGKTransportHalo_Private(GKTransport *t, Mat A, PetscBool want, PetscObject obj, PetscBool *now)
{
  MPI_Comm           comm = PetscObjectComm(obj);
  const PetscBool    same = (PetscBool)(t->halotried && t->haloid == ((PetscObject)A)->id && t->halostate == A->nonzerostate);
  PetscBool          need = want && !same ? PETSC_TRUE : PETSC_FALSE, any, ok = PETSC_FALSE, all;
  PetscMPIInt        size;
  PetscInt           nghost, nsr, *pos;
  const PetscMPIInt *sranks;
  const PetscInt    *soff;
  char               id[GK_PEER_ID], why[256] = "", *ids;

  PetscFunctionBegin;
  *now = PETSC_FALSE;
  if (!GKDev->peershalo) PetscFunctionReturn(0);
  if (!want) { /* asked off (since) */
    if (t->haloon) PetscCall(MatGKTransportHaloOff_Private(t));
    t->haloon = t->halotried = PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  PetscCall(MPIU_Allreduce(&need, &any, 1, GK_MPI_BOOL, MPI_LOR, comm));
  if (!any) {
    *now = t->haloon;
    PetscFunctionReturn(0);
  }
  if (t->haloon) { /* the old buffers unmapped everywhere before any is freed */
    PetscCall(MatGKTransportHaloOff_Private(t));
    t->haloon = PETSC_FALSE;
    PetscCallMPI(MPI_Barrier(comm));
  }
  t->halotried = PETSC_TRUE; /* once for these lists, whatever comes of it */
  t->haloid    = ((PetscObject)A)->id;
  t->halostate = A->nonzerostate;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatMPIGKGetHaloLists_Private(A, &nghost, &nsr, &sranks, &soff, &pos));
  PetscCall(GKDev->peersghosts(t->peers, nghost, id));
  PetscCall(PetscMalloc1((size_t)size * GK_PEER_ID, &ids));
  PetscCallMPI(MPI_Allgather(id, GK_PEER_ID, MPI_BYTE, ids, GK_PEER_ID, MPI_BYTE, comm));
  PetscCall(GKDev->peershalo(t->peers, ids, nsr, sranks, soff, pos, &ok, why, sizeof(why)));
  PetscCall(PetscFree(ids));
  PetscCall(PetscFree(pos));
  PetscCall(MPIU_Allreduce(&ok, &all, 1, GK_MPI_BOOL, MPI_LAND, comm));
  if (all) {
    t->haloon = *now = PETSC_TRUE;
    PetscCall(PetscInfo(obj,
                        "The direction's ghosts sent GPU to GPU (CUDA IPC): each iteration writes %" PetscInt_FMT " entries to %" PetscInt_FMT
                        " process%s, %" PetscInt_FMT " ghosts come here\n",
                        soff[nsr], nsr, nsr == 1 ? "" : "es", nghost));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscInfo(obj, "The direction's ghosts go through MPI on the host: %s\n", ok ? "another process cannot receive them on its GPU" : why));
  PetscCall(MatGKTransportHaloOff_Private(t));
  PetscFunctionReturn(0);
}

PetscErrorCode MatGKTransportDestroy_Private(GKTransport *t, MPI_Comm comm)
{
  PetscFunctionBegin;
  if (t->peers) { /* no process's kernel writes into a mailbox once every process is here */
    PetscCall(GKDev->synchronize());
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(GKDev->peersdestroy(&t->peers));
  }
  PetscCall(PetscMemzero(t, sizeof(*t)));
  PetscFunctionReturn(0);
}
