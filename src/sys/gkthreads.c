/*
   Host loops spread over the cores this process may run on, for the library's host work whose
   first touch of new memory is most of its time (a DMDA matrix's pattern and its zeroed values,
   gkdm.c): as many threads as the process's affinity mask has cores (one under mpiexec
   --bind-to core, which keeps each process to its core), or as -gpukit_host_threads says (1: no
   thread). [0, n) is cut into one range a thread, each run as fn(ctx, part, lo, hi) with part
   its index; fn neither fails nor calls PETSc.
*/
#define _GNU_SOURCE
#include "include/gpukitimpl.h"
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>

typedef struct {
  GKRangeFn fn;
  void     *ctx;
  PetscInt  part, lo, hi;
} GKPart;

static void *GKPartRun(void *arg)
{
  GKPart *r = (GKPart *)arg;

  r->fn(r->ctx, r->part, r->lo, r->hi);
  return NULL;
}

/* Memory not yet touched that the threads are about to write whole: its first touch in 2 MiB
   pages where the system gives them on request (transparent huge pages in "madvise" mode, the
   usual default), one page fault where 512 were; the kernel still zeroes the pages, so what is
   saved is the faults' own cost, which every thread pays in one address space. A hint: nothing
   changes where the system refuses it, or without Linux's madvise(). */
void GKHostAdviseHuge_Private(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20, lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + bytes) & ~(huge - 1);

  if (p && hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/* the threads a loop over n items of at least grain items a thread would get */
PetscErrorCode GKHostThreads_Private(PetscInt n, PetscInt grain, PetscInt *nt)
{
  cpu_set_t set;
  PetscInt  cores = 1, want = 0;

  PetscFunctionBegin;
  CPU_ZERO(&set);
  if (!sched_getaffinity(0, sizeof(set), &set)) cores = CPU_COUNT(&set);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-gpukit_host_threads", &want, NULL));
  if (want > 0) cores = want;
  *nt = PetscMax(1, PetscMin(cores, n / PetscMax(grain, 1)));
  PetscFunctionReturn(0);
}

PetscErrorCode GKParallelFor_Private(PetscInt n, PetscInt nt, GKRangeFn fn, void *ctx)
{
  GKPart    *parts;
  pthread_t *tid;
  PetscBool *started;

  PetscFunctionBegin;
  if (nt <= 1 || n < 2) {
    fn(ctx, 0, 0, n);
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc3(nt, &parts, nt, &tid, nt, &started));
  for (PetscInt t = 0; t < nt; t++) {
    parts[t].fn   = fn;
    parts[t].ctx  = ctx;
    parts[t].part = t;
    parts[t].lo   = (PetscInt)((PetscInt64)n * t / nt);
    parts[t].hi   = (PetscInt)((PetscInt64)n * (t + 1) / nt);
  }
  /* a thread that cannot be started leaves its part to this one */
  for (PetscInt t = 1; t < nt; t++) started[t] = pthread_create(&tid[t], NULL, GKPartRun, &parts[t]) ? PETSC_FALSE : PETSC_TRUE;
  GKPartRun(&parts[0]);
  for (PetscInt t = 1; t < nt; t++) {
    if (started[t]) pthread_join(tid[t], NULL);
    else GKPartRun(&parts[t]);
  }
  PetscCall(PetscFree3(parts, tid, started));
  PetscFunctionReturn(0);
}
