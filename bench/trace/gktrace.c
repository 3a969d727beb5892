/*
   A kernel trace without Nsight Systems (the GPU machine has none): a CUPTI injection library
   that writes every kernel, device copy and set of a CUDA program as CSV lines, from CUPTI's
   activity records (start and end on the GPU's clock, in ns):
     K,start,end,correlation,grid x,block x,graph node (0: not in a graph),mangled name
     C,start,end,correlation,bytes,copy kind,0,memcpy
     S,start,end,correlation,bytes,0,0,memset
   and, with GKTRACE_API set, every CUDA runtime call (A,start,end,correlation,callback id,0,0,api).
   Build (here, with the CUDA toolkit; take libcupti.so.13 along to the GPU machine):
     gcc -O2 -fPIC -shared -I/usr/local/cuda/include bench/trace/gktrace.c -o build/trace/libgktrace.so \
       -L/usr/local/cuda/lib64 -lcupti -Wl,-rpath,'$ORIGIN'
     cp /usr/local/cuda/lib64/libcupti.so.13 build/trace/
   Run: CUDA_INJECTION64_PATH=$PWD/build/trace/libgktrace.so GKTRACE_OUT=/tmp/t.csv <program>
   The driver loads it at cuInit(); the records are written as CUPTI hands back its buffers and at
   exit. bench/trace/cycle.py reads a trace of `bench -mode vcycle` (docs/performance.md, "The V-cycle").
*/
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *out;

static void CUPTIAPI BufferRequested(uint8_t **buf, size_t *size, size_t *maxrecords)
{
  *size       = 16 << 20;
  *buf        = (uint8_t *)aligned_alloc(8, *size);
  *maxrecords = 0;
}

static void CUPTIAPI BufferCompleted(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
  CUpti_Activity *r = NULL;

  (void)ctx;
  (void)stream;
  (void)size;
  while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
    if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;

      fprintf(out, "K,%llu,%llu,%u,%u,%u,%llu,%s\n", (unsigned long long)k->start, (unsigned long long)k->end, k->correlationId, k->gridX, k->blockX,
              (unsigned long long)k->graphNodeId, k->name);
    } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)r;

      fprintf(out, "C,%llu,%llu,%u,%llu,%u,0,memcpy\n", (unsigned long long)m->start, (unsigned long long)m->end, m->correlationId,
              (unsigned long long)m->bytes, (unsigned)m->copyKind);
    } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)r;

      fprintf(out, "S,%llu,%llu,%u,%llu,0,0,memset\n", (unsigned long long)m->start, (unsigned long long)m->end, m->correlationId,
              (unsigned long long)m->bytes);
    } else if (r->kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
      const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)r;

      fprintf(out, "A,%llu,%llu,%u,%u,0,0,api\n", (unsigned long long)a->start, (unsigned long long)a->end, a->correlationId, (unsigned)a->cbid);
    }
  }
  free(buf);
}

static void Finish(void)
{
  cuptiActivityFlushAll(1);
  if (out) fclose(out);
  out = NULL;
}

int InitializeInjection(void)
{
  const char *path = getenv("GKTRACE_OUT");

  out = fopen(path ? path : "gktrace.csv", "w");
  if (!out) return 0;
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  if (getenv("GKTRACE_API")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
  cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted);
  atexit(Finish);
  return 1;
}
