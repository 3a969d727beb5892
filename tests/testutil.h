/*
   What the linked test programs share.
*/
#pragma once

#include <petscmat.h>

/* nd = ||a - b|| and na = ||a|| in the norm t, for a test's own check */
static PetscErrorCode TestDiffNorms(Vec a, Vec b, NormType t, PetscReal *nd, PetscReal *na)
{
  Vec d;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, t, nd));
  PetscCall(VecNorm(a, t, na));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

/* what o's view in the format fmt prints on this process, into buf (through a temporary file of
   its own: an MPI matrix's view has no lines of its blocks, and each process views alone) */
static PetscErrorCode TestViewText(PetscObject o, PetscViewerFormat fmt, char *buf, size_t len)
{
  FILE       *fp = tmpfile();
  PetscViewer v;
  size_t      got;

  PetscFunctionBegin;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_SYS, "tmpfile() failed");
  PetscCall(PetscViewerASCIIOpenWithFILE(PETSC_COMM_SELF, fp, &v));
  PetscCall(PetscViewerPushFormat(v, fmt));
  PetscCall(PetscObjectView(o, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  rewind(fp);
  got      = fread(buf, 1, len - 1, fp);
  buf[got] = 0;
  PetscCheck(!fclose(fp), PETSC_COMM_SELF, PETSC_ERR_SYS, "fclose() failed");
  PetscFunctionReturn(0);
}

/* ||b - A x|| / ||b|| */
static PetscErrorCode TestTrueResidual(Mat A, Vec x, Vec b, PetscReal *rel)
{
  Vec       r;
  PetscReal nr, nb;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  PetscCall(VecDestroy(&r));
  *rel = nr / nb;
  PetscFunctionReturn(0);
}

/* rows split between the processes: evenly, in proportion to (rank + 1), or none on process 1 */
typedef enum {
  LAYOUT_EVEN,
  LAYOUT_UNEVEN,
  LAYOUT_EMPTY
} Layout;
static const char *const Layouts[] = {"even", "uneven", "empty", "Layout", "", NULL};

/* this process's share of N under the layout */
static PetscInt LocalSize(Layout layout, PetscInt N, PetscMPIInt rank, PetscMPIInt size)
{
  PetscInt w = 0, mine = 0, total = 0;

  for (PetscMPIInt r = 0; r < size; r++) total += layout == LAYOUT_UNEVEN ? r + 1 : (layout == LAYOUT_EMPTY && r == 1 ? 0 : 1);
  for (PetscMPIInt r = 0; r < size; r++) {
    const PetscInt wr = layout == LAYOUT_UNEVEN ? r + 1 : (layout == LAYOUT_EMPTY && r == 1 ? 0 : 1);
    const PetscInt nr = (r == size - 1) ? N - w : (N * wr) / total;

    if (r == rank) mine = nr;
    w += nr;
  }
  return mine;
}
