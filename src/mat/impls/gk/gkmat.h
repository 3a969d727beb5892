/*
   The sequential device matrices: a SEQAIJ underneath, the master copy, plus a device copy in
   one format (ELLPACK-R, DIA) rebuilt lazily when the host matrix changed. The shared code
   (gkmat.c) does the subclassing, the products' vector staging, logging and views; a format
   supplies a GKMatFormat.
*/
#pragma once

#include "include/gpukitimpl.h"
#include <petsc/private/matimpl.h>

/* exported by libpetsc, not declared in its headers */
PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJ(Mat);

typedef enum {
  GK_OP_N, /* A */
  GK_OP_T, /* A^T */
  GK_OP_H  /* A^H */
} GKMatOp;

/* A device format, described once (its own file fills it; gkformats.c lists the formats and is
   what every other file asks): its names, creators, options and operations */
typedef struct {
  const char *type;     /* the sequential type: MATSEQELLRCUDA ... */
  const char *mpitype;  /* the MPI type: MATMPIELLRCUDA ... */
  const char *roottype; /* the root name MatSetType() maps to either by the communicator's size: MATELLRCUDA ... */
  const char *name;     /* for views and errors: "ELLPACK-R" */
  /* the three types' creators, for MatRegister(): each calls MatCreate_SeqGK_Private(),
     MatCreate_MPIGK_Private() or MatCreate_GK_Private() with the format */
  PetscErrorCode (*createseq)(Mat);
  PetscErrorCode (*creatempi)(Mat);
  PetscErrorCode (*createroot)(Mat);
  const char *fillopt;     /* "-mat_ellrcuda_max_fill" */
  const char *fillsetter;  /* "MatELLRCUDASetMaxFill" */
  PetscReal   defaultfill; /* limit on stored entries / nonzeros */

  size_t datasize; /* bytes of the format's own data, zeroed at creation */
  /* (re)build the device copy from the host CSR; only the values when the nonzero pattern is unchanged */
  PetscErrorCode (*build)(Mat, PetscBool);
  /* the device copy's values from CSR values on the device, its pattern (ai, aj, also on the
     device) unchanged: COO assembly */
  PetscErrorCode (*setvalues)(Mat, const PetscInt *, const PetscInt *, const PetscScalar *);
  /* free the device copy */
  PetscErrorCode (*reset)(Mat);
  /* y = op(A) x, or w + op(A) x, or w - op(A) x with neg (w may be y; device.h's products):
     mult(A, op, x, w, neg, y), all device pointers */
  PetscErrorCode (*mult)(Mat, GKMatOp, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
  PetscErrorCode (*getdiagonal)(Mat, PetscScalar *);
  /* the format's lines in -mat_view ::ascii_info */
  PetscErrorCode (*view)(Mat, PetscViewer);
  /* the format's settings of a new matrix: copied from the second matrix when duplicating,
     else read from the options database (NULL: none) */
  PetscErrorCode (*settings)(Mat, Mat);
  /* the format's own options in MatSetFromOptions() (NULL: none) */
  PetscErrorCode (*setfromoptions)(Mat, GKOptionItems);
  /* the device arrays for the fused Krylov kernels, with what A^H products need when asked */
  PetscErrorCode (*getoperator)(Mat, PetscBool, GKOperator *);
  /* the copy that transposed products read, made now if the format keeps one and it is not made
     yet, in the layout the products would give it (NULL: they read the matrix's own arrays) */
  PetscErrorCode (*preparetranspose)(Mat);
  /* whether the format holds the matrix's pattern within its fill limit, where it has no layout
     of its own to choose that always would (NULL: ELLPACK-R, whose chosen layouts always fit) */
  PetscErrorCode (*fits)(Mat, PetscBool *);
  /* MatConvert() into this format, composed on its matrices for MatConvert() to find */
  PetscErrorCode (*convertfrom)(Mat, MatType, MatReuse, Mat *);
  /* the format's own composed methods (its setters) on a matrix of it, or off (NULL: none) */
  PetscErrorCode (*compose)(Mat, PetscBool);
  /* the same on an MPI matrix of it, and the settings made there given to its blocks (both
     device matrices, the off-diagonal one in the default format) whenever MPIAIJ makes them anew
     (NULL: none) */
  PetscErrorCode (*mpicompose)(Mat, PetscBool);
  PetscErrorCode (*mpiblocks)(Mat, Mat, Mat);
  /* the default format's alone (GKFormatDefault): the settings of an MPI matrix's off-diagonal
     block, made in that format whatever the diagonal block's */
  PetscErrorCode (*offdiag)(Mat);
  /* build() reads the CSR the matrix keeps on the device (MatSeqGKKeepCsr_Private) in place of
     the host's: a device product's result may keep its values there */
  PetscBool devicecsr;
} GKMatFormat;

/* COO assembly on the device (MatSetPreallocationCOO, MatSetValuesCOO; gkmat.c): the entries'
   sums straight into the device copy, which then gives the host matrix its values */
typedef struct {
  PetscCount       n;             /* the entries MatSetPreallocationCOO was given */
  PetscInt         nnz;           /* the nonzeros they land on */
  PetscCount       nperm;         /* the entries not dropped */
  PetscCount      *jmap, *perm;   /* device: nonzero p sums the entries perm[jmap[p]] .. perm[jmap[p + 1] - 1] */
  PetscCount       nperm2;        /* an MPI matrix's block: the other processes' sums, nonzero p */
  PetscCount      *jmap2, *perm2; /* adding rv[perm2[jmap2[p]]] .. (device; NULL: none) */
  PetscInt        *ai, *aj;       /* device: the pattern (CSR) */
  PetscInt        *hai, *haj;     /* the same on the host, to tell a changed pattern from a changed nonzero state */
  PetscScalar     *val;           /* device: the values in CSR order, as last set */
  PetscScalar     *v;             /* device: host values staged, n, made at their first use */
  PetscScalar     *pinned;        /* the host matrix's values, page-locked for the copy down (hostregister), or NULL */
  PetscScalar     *tried;         /* the values array last offered to hostregister */
  PetscObjectState nzstate;       /* the nonzero state the lists hold for (0: not yet seen) */
  PetscObjectState valstate;      /* the object state at which val held the matrix's values */
  PetscBool        pending;       /* values set: the device copy is current after the assembly that follows */
} GKCoo;

#define GK_HOST_COMPOSED 4 /* gkhost.c's wrappers of SEQAIJ's composed functions */

typedef struct {
  const GKMatFormat *fmt;
  void              *data;      /* the format's */
  PetscReal          maxfill;   /* -mat_<type>_max_fill */
  PetscGPUKitStorage storage;   /* -mat_gpukit_storage: the precision the products read the values in */
  PetscInt           nnz;       /* nonzeros of the host matrix the device copy was made from */
  size_t             bytes;     /* device bytes of the format's arrays, set by the format */
  double             mbytes[2]; /* what a product (0) or a transposed product (1) reads of them at the least (GK_COUNT_BYTES), set by the format */
  PetscObjectState   state;     /* object state of that host matrix */
  PetscObjectState   nzstate;   /* its nonzero state; -1 before the first build */
  PetscObjectState   fitstate;  /* the nonzero state whose pattern the format's fits() accepted; -1: none */
  PetscScalar       *dx, *dy;   /* device staging of host vectors, max(m, n) each */
  void              *sor;       /* MatSOR's device arrays (gksor.c), made at its first use */
  GKCoo             *coo;       /* COO assembly's lists, made by MatSetPreallocationCOO */
  struct _MatOps     base;      /* SEQAIJ's operations, called through and restored on conversion back */
  PetscBool          behind;    /* the host values are behind the device copy's (MatSetValuesCOO() from device memory) */
  PetscInt          *rowstarts; /* while behind with no host pattern yet (MatSeqGKSetFromDeviceCsr_Private): the kept CSR's row starts, on the host */
  struct _MatOps     own;       /* while behind: the operations the wrappers give back (gkhost.c) */
  PetscErrorCode (*owncomposed[GK_HOST_COMPOSED])(void); /* while behind: SEQAIJ's composed functions the wrappers give back */
  PetscErrorCode (*retrieve)(Mat);                       /* SEQAIJ's MatRetrieveValues() */
  GKCsr            csr;                                  /* device: the CSR kept while a setup uses it (gkspgemm.c), or NULL arrays */
  PetscObjectState csrstate;    /* the object state it holds (while behind without COO lists: the host values' source, current whatever the state) */
  PetscBool        prodsorted;  /* a product's result: the device's product gave each row ascending (its numeric steps stay on the device) */
  void            *plan;        /* a product's result: the backend's plan for its numeric steps (gkspgemm.c), made at the first */
  PetscObjectId    planid[2];   /* the operands it was made for */
  PetscObjectState plannz[2];   /* and their nonzero states then */
  PetscBool        noplan;      /* the backend could make none: the numeric steps compute the product whole */
  PetscBool        rowsready;   /* gksetvalues.c: SEQAIJ's rows compressed since a final assembly, no setvalues since */
  PetscObjectState rowsnzstate; /* the nonzero state then */
  PetscObjectId    ltogid[2];   /* the local-to-global mappings (rows, columns) last asked about */
  PetscBool        ltogidentity[2]; /* whether each is the identity */
} Mat_SeqGK;

/* host values behind the values the matrix was given from a device CSR it keeps (a device
   product's result, GAMG's smoothed prolongator), not from COO lists: that CSR is their source */
static inline PetscBool MatSeqGKBehindCsr(const Mat_SeqGK *gk)
{
  return gk->behind && !gk->coo ? PETSC_TRUE : PETSC_FALSE;
}

PETSC_INTERN PetscErrorCode MatConvert_SeqAIJ_SeqGK_Private(Mat, const GKMatFormat *, MatReuse, Mat *);
/* the program's own assembly (gksetvalues.c) */
PETSC_INTERN PetscErrorCode MatSetValues_SeqGK(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatSetValuesLocal_SeqGK(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatSetOption_SeqGK(Mat, MatOption, PetscBool);
PETSC_INTERN PetscErrorCode MatSeqGKRowsAssembled_Private(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode MatSeqGKSyncDevice_Private(Mat);
/* the device copy brought up to date with the host matrix (rebuilt after a new pattern, else its values) */
PETSC_INTERN PetscErrorCode MatSeqGKBuildDevice_Private(Mat);
PETSC_INTERN PetscErrorCode MatSeqGKPrepareProducts_Private(Mat);
/* A vector's device array for the kernels: an input's (VecIn: its own, or a copy of a host
   vector's values in the matrix's staging buffer), an output's (VecOut: its own, or the staging
   buffer, holding z's values when z is given), handed back (the output copied to a host vector) */
PETSC_INTERN PetscErrorCode MatSeqGKVecIn_Private(Mat, Vec, PetscInt, const PetscScalar **);
PETSC_INTERN PetscErrorCode MatSeqGKVecInEnd_Private(Vec, const PetscScalar **);
PETSC_INTERN PetscErrorCode MatSeqGKVecOut_Private(Mat, Vec, Vec, PetscInt, PetscScalar **);
PETSC_INTERN PetscErrorCode MatSeqGKVecOutEnd_Private(Mat, Vec, PetscInt, PetscScalar **);
/* z = z - A x, in one pass */
PETSC_INTERN PetscErrorCode MatSeqGKMultSub_Private(Mat, Vec, Vec);
/* MatResidual()'s arguments checked (aliases, local sizes), for the seq and MPI device types */
PETSC_INTERN PetscErrorCode MatGKResidualCheck_Private(Mat, Vec, Vec, Vec);
/* MatSOR on the device (gksor.c): the operation, its -help entry, its arrays freed (all, or
   those the device copy's structure made: rebuilt at the next MatSOR) */
PETSC_INTERN PetscErrorCode MatSOR_SeqGK_Private(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
PETSC_INTERN PetscErrorCode MatSeqGKSORSetFromOptions_Private(Mat, GKOptionItems);
PETSC_INTERN PetscErrorCode MatSeqGKSORReset_Private(Mat);
PETSC_INTERN PetscErrorCode MatSeqGKSORInvalidate_Private(Mat);
PETSC_INTERN PetscErrorCode MatSeqGKCheckFill_Private(Mat, const char *, double, PetscInt, const char *, PetscBool *, char *, size_t);
/* a full build's columns outside the matrix (the backend's checkcols found one): the error naming it (gkmat.c) */
PETSC_INTERN PetscErrorCode MatSeqGKColumnsError_Private(Mat);
PETSC_INTERN PetscErrorCode MatCreate_SeqGK_Private(Mat, const GKMatFormat *);
PETSC_INTERN PetscErrorCode MatCreate_MPIGK_Private(Mat, const GKMatFormat *);
/* The format registry (gkformats.c). The default format holds any pattern within its fill limit
   (it has no fits()): it is the one made where no format is named (a conversion for the fused
   solvers, a product's result of a format that would not hold it, DMDA's interpolations), or
   where the named one does not fit, and every MPI device matrix's off-diagonal block's (whose
   ELLPACK-R slots the fused solvers read: ELLPACK-R's is the default). */
PETSC_INTERN const GKMatFormat *GKFormatDefault;
/* a format added (once; the registration file adds every one): MatRegister() of its three types */
PETSC_INTERN PetscErrorCode MatGKFormatAdd_Private(const GKMatFormat *, PetscBool);
/* Whether a matrix is one of the library's device matrices: a sequential one (seq) or an MPI one
   (mpi), of any format added; either argument may be NULL */
PETSC_INTERN PetscErrorCode GKMatIsDevice_Private(Mat, PetscBool *, PetscBool *);
/* the format one of whose three type names is type, or NULL */
PETSC_INTERN PetscErrorCode MatGKFormatFind_Private(const char[], const GKMatFormat **);
/* the i-th format (NULL past the last) */
PETSC_INTERN const GKMatFormat *MatGKFormatAt_Private(size_t);
PETSC_INTERN PetscErrorCode     MatCreate_GK_Private(Mat, const GKMatFormat *);
PETSC_INTERN PetscErrorCode     MatSeqGKSetMaxFill_Private(Mat, const char *, PetscReal);
PETSC_INTERN PetscErrorCode     MatSeqGKStorageValues_Private(Mat, size_t, const PetscScalar *, void **);
PETSC_INTERN PetscErrorCode     GKDemoteValues_Private(const char *, size_t, const PetscScalar *, void **);
PETSC_INTERN PetscErrorCode     MatSeqGKInvalidate_Private(Mat);
/* every factorization this PETSc has for SEQAIJ and MPIAIJ, registered for the device types (gkfactor.c) */
PETSC_INTERN PetscErrorCode MatGKRegisterFactors_Private(void);
/* COO assembly: the base type's (SEQAIJ's or MPIAIJ's) own functions, found once; every index
   checked against the global sizes; both functions composed on a device matrix (NULL: removed).
   The values are summed on the device (gkmat.c); an MPI type's blocks each sum the process's
   entries of its own rows and the sums of other processes' entries, which go through the host
   (mpigk.c). A matrix preallocated before it was a device matrix has the base type's lists only,
   and takes host values only. */
typedef PetscErrorCode (*GKCOOPreallocFn)(Mat, PetscCount, PetscInt[], PetscInt[]);
typedef PetscErrorCode (*GKCOOValuesFn)(Mat, const PetscScalar[], InsertMode);
typedef struct {
  GKCOOPreallocFn prealloc;
  GKCOOValuesFn   values;
} GKCOOBase;
PETSC_INTERN PetscErrorCode MatGKCOOBase_Private(PetscBool, const GKCOOBase **);
PETSC_INTERN PetscErrorCode MatGKCOOCheck_Private(Mat, PetscCount, const PetscInt[], const PetscInt[]);
PETSC_INTERN PetscErrorCode MatGKComposeCOO_Private(Mat, GKCOOPreallocFn, GKCOOValuesFn);
/* MatSetValuesCOO() without the library's lists (the base type's, host values only); the values
   as a device array (v, or a copy up in a staging array) */
PETSC_INTERN PetscErrorCode MatGKCOOBaseValues_Private(Mat, PetscBool, const char *, const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatGKCOOStage_Private(PetscCount, const PetscScalar[], PetscScalar **, const PetscScalar **, PetscBool *);
/* An MPI device matrix's block (mpigk.c): its lists for the process's own entries (n of them,
   block rows and columns, negative: not this block's) and for the other processes' sums (nr),
   and the values of both, device arrays, summed into its device copy (and the host values left
   behind where behind is set, else given the sums by one copy down) */
PETSC_INTERN PetscErrorCode MatSeqGKCOOSetLists_Private(Mat, PetscCount, const PetscInt[], const PetscInt[], PetscCount, const PetscInt[],
                                                        const PetscInt[]);
PETSC_INTERN PetscErrorCode MatSeqGKCOOSetValues_Private(Mat, const PetscScalar[], const PetscScalar[], InsertMode, PetscBool);
/* The host values behind the device copy's (gkhost.c): after MatSetValuesCOO() from device
   memory, the device copy alone holds the sums, and the matrix's operations are wrappers (see
   tools/gen-matops) that bring the host values up to date, and give the operations back, before
   any of them runs; except those that read the device copy or no values at all (the products with
   vectors, the diagonal, MatSOR of a sequential matrix, MatEqual() and MatAXPY() of an MPI one
   (see gkhost.c), the assembly, options, vectors, MatGetInfo(), destroy, and the products'
   choice: PETSc compares operands' productsetfromoptions, and the products bring their operands
   up to date themselves, MatProductGKCall_Private). Wrap saves the operations in own (mpi: of an
   MPI matrix); Sync brings A up to date (a sequential or an MPI device matrix); SyncIf does so
   where A is behind (any matrix, or NULL). */
PETSC_INTERN PetscErrorCode MatGKHostWrap_Private(Mat, struct _MatOps *, PetscBool);
/* SEQAIJ's composed functions that read values (MatStoreValues(), MatIsTranspose()...): wrapped
   while a sequential device matrix is behind (their own saved), or given back */
PETSC_INTERN PetscErrorCode MatGKHostComposed_Private(Mat, PetscBool, PetscErrorCode (*[GK_HOST_COMPOSED])(void));
PETSC_INTERN PetscErrorCode MatGKHostUnwrap_Private(Mat, const struct _MatOps *);
PETSC_INTERN PetscErrorCode MatGKHostSync_Private(Mat);
PETSC_INTERN PetscErrorCode MatGKHostSyncIf_Private(Mat);
/* a sequential device matrix's or an MPI device matrix's host values behind (Behind), or brought
   up to date (Sync: by one copy down where copy is set and nothing wrote the host matrix since,
   else only the operations given back) */
PETSC_INTERN PetscErrorCode MatSeqGKHostBehind_Private(Mat);
PETSC_INTERN PetscErrorCode MatSeqGKHostSync_Private(Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatMPIGKHostSync_Private(Mat, PetscBool);
/* COO assembly of a sequential device matrix (gkcoo.c): its functions composed (or removed), its
   lists freed */
PETSC_INTERN PetscErrorCode MatSeqGKComposeCOO_Private(Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatSeqGKCOOReset_Private(Mat);
/* The products of device matrices (mpigk.c), composed as "anytype" too: PETSc's choice made with
   the operands under their base types' names and productsetfromoptions, its steps wrapped so that
   each brings its operands' host values up to date first */
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_GK(Mat);
/* a product's numeric step as the library wraps it (mpigk.c) */
PETSC_INTERN PetscErrorCode MatProductNumeric_GK(Mat);
/* an MPI device matrix's diagonal and off-diagonal blocks and the ghosts' global columns (mpigk.c) */
PETSC_INTERN PetscErrorCode MatMPIGKGetBlocks_Private(Mat, Mat *, Mat *, const PetscInt **);
/* an MPI device matrix's local rows (global columns, ascending in each row) written into its
   blocks whole: with the pattern (preallocated and assembled here), or the values alone
   (mpigkspgemm.c) */
PETSC_INTERN PetscErrorCode MatMPIGKSetRows_Private(Mat, PetscBool, const PetscInt *, const PetscInt *, const PetscScalar *);
/* an MPI device matrix's local rows [Ad Ao] as CSR on the device: Ad's columns, then Ao's shifted
   by Ad's width (ascending in each row, as both blocks keep them), from the host's arrays
   (mpigkspgemm.c) */
PETSC_INTERN PetscErrorCode MatMPIGKStackedRowsToDevice_Private(Mat, GKCsr *);
/* an MPI device matrix's local rows as one CSR in global columns, each row's columns ascending;
   arrays of PetscMalloc3 (mpigkspgemm.c) */
PETSC_INTERN PetscErrorCode MatMPIGKLocalRows_Private(Mat, PetscInt **, PetscInt **, PetscScalar **);
/* an interpolation's device copies, its transpose's included, made now (mpigk.c) */
PETSC_INTERN PetscErrorCode MatGKPrepareInterpolation_Private(Mat);
/* a device matrix's DM, if any, made to give device interpolations (gkdm.c) */
PETSC_INTERN PetscErrorCode MatGKAttachDM_Private(Mat);
/* a device vector's DMDA, made to give the matrices and interpolations above (gkdm.c) */
PETSC_INTERN PetscErrorCode DMGKAttachVecDM_Private(DM);
PETSC_INTERN PetscErrorCode MatCreateSeqGK_Private(MPI_Comm, MatType, PetscInt, PetscInt, PetscInt, const PetscInt[], Mat *);

/* The fused solvers on the MPI device matrices (mpigk.c): the diagonal block's operator, the
   halo exchange of the direction (gather queued, sent), the off-diagonal block's part after
   the step (its single values or its double ones), b - A x with the double values */
PETSC_INTERN PetscErrorCode MatMPIGKGetKrylovOperator_Private(Mat, PetscBool, GKOperator *, PetscBool *);
PETSC_INTERN PetscErrorCode MatMPIGKKrylovGather_Private(Mat, GKKrylov, PetscBool, PetscInt, const PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode MatMPIGKKrylovSend_Private(Mat, GKKrylov);
PETSC_INTERN PetscErrorCode MatMPIGKKrylovOffDiag_Private(Mat, GKKrylov, PetscBool, PetscBool, PetscBool, const PetscScalar *, PetscScalar *,
                                                          const PetscScalar *, PetscScalar *, PetscBool *);
PETSC_INTERN PetscErrorCode MatMPIGKResidualDouble_Private(Mat, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode MatMPIGKGetHaloLists_Private(Mat, PetscInt *, PetscInt *, const PetscMPIInt **, const PetscInt **, PetscInt **);
/* The sums over the processes and the direction's ghosts kept on the GPUs, for a solver
   (mpigkpeers.c): the mailboxes (tried once; NULL: the host sums), and the ghost buffers set up
   for the halo lists of a matrix (its id and nonzero state) */
typedef struct {
  GKPeers          peers;
  PetscBool        tried;  /* the mailboxes were tried */
  PetscInt         solves; /* the solves that used them, alike on every process */
  PetscBool        haloon; /* the ghost buffers are set up for the matrix below */
  PetscBool        halotried;
  PetscObjectId    haloid;
  PetscObjectState halostate;
} GKTransport;
PETSC_INTERN PetscErrorCode MatGKTransportPeers_Private(GKTransport *, PetscObject);
PETSC_INTERN PetscErrorCode MatMPIGKTransportHalo_Private(GKTransport *, Mat, PetscBool, PetscObject, PetscBool *);
PETSC_INTERN PetscErrorCode MatGKTransportDestroy_Private(GKTransport *, MPI_Comm);

/* PCGAMG's strength graph without PETSc's transpose and sum where the pattern is symmetric; with no
   value arrays, whether the pattern is symmetric (gkgraph.c) */
PETSC_INTERN PetscErrorCode MatGKGraphSum_Private(Mat, PetscBool, PetscBool *, PetscScalar **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatGKGraphSymmetrize_Private(Mat, PetscScalar **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatGKGraphOffDiagonal_Private(Mat, PetscBool, PetscInt **, PetscInt **, PetscReal **, PetscBool *);

/* MatMatMult() and MatPtAP() of the sequential device types on the device (gkspgemm.c) */
PETSC_INTERN PetscErrorCode MatProductGKDeviceEligible_Private(Mat, PetscBool *);
/* a sequential device matrix's CSR in device memory, and the copy it may keep while a setup
   uses it (gkspgemm.c): had (the kept copy lent, or the host CSR copied up), released (freed
   unless kept), kept (the matrix adopts the arrays), dropped, looked up (what a format's build
   reads in place of the host CSR); a new matrix's host CSR set from a device one; arrays of a
   GKCsr freed */
PETSC_INTERN PetscErrorCode MatSeqGKCsrToDevice_Private(Mat, GKCsr *);
PETSC_INTERN PetscErrorCode MatSeqGKReleaseCsr_Private(Mat, GKCsr *);
PETSC_INTERN PetscErrorCode MatSeqGKKeepCsr_Private(Mat, GKCsr *);
PETSC_INTERN PetscErrorCode MatSeqGKDropCsr_Private(Mat);
PETSC_INTERN PetscErrorCode MatSeqGKKeptCsr_Private(Mat, const GKCsr **);
PETSC_INTERN PetscErrorCode MatSeqGKSetFromDeviceCsr_Private(Mat, GKCsr *, PetscBool, PetscBool *, PetscBool *);
/* the host matrix's row starts: its own, or while it has no pattern yet the kept CSR's */
PETSC_INTERN PetscErrorCode MatSeqGKRowStarts_Private(Mat, const PetscInt **);
PETSC_INTERN PetscErrorCode MatSeqGKMakeHostPattern_Private(Mat);
/* new values of a sequential device matrix from a device CSR of its pattern, in its host order:
   the device copy's set, d kept, the host values left behind (copied down from d at their first
   use on the host) */
PETSC_INTERN PetscErrorCode MatSeqGKSetValuesFromDevice_Private(Mat, GKCsr *);
PETSC_INTERN PetscErrorCode MatSeqGKTrimCsr_Private(Mat);
/* a product's result's plan for its numeric steps freed */
PETSC_INTERN PetscErrorCode MatSeqGKProductPlanFree_Private(Mat);
PETSC_INTERN PetscErrorCode GKCsrFree_Private(GKCsr *);
PETSC_INTERN PetscErrorCode MatProductGKDevice_Private(Mat, PetscBool, PetscBool *);
/* the MPI types' share of it (mpigkspgemm.c), and what it shares with the sequential products:
   a host CSR copied up, the backend's product logged */
PETSC_INTERN PetscErrorCode MatProductGKDeviceMPI_Private(Mat, PetscBool, PetscBool *);
PETSC_INTERN PetscErrorCode GKCsrToDevice_Private(PetscInt, PetscInt, const PetscInt *, const PetscInt *, const PetscScalar *, GKCsr *);
PETSC_INTERN PetscErrorCode GKSpGEMM_Private(Mat, const GKCsr *, const GKCsr *, const GKCsr *, GKCsr *, PetscBool *, char *, size_t);

/* The device operator of a device matrix, up to date (the solvers' entry point) */
PETSC_EXTERN PetscErrorCode MatSeqGKGetOperator(Mat, PetscBool, GKOperator *);
/* r = b - A x with an operator's double values whatever its storage (gkmat.c) */
PETSC_INTERN PetscErrorCode GKOperatorResidualDouble_Private(const GKOperator *, const PetscScalar *, const PetscScalar *, PetscScalar *);

/* For the tests: the device copies, brought up to date */
PETSC_EXTERN PetscErrorCode MatSeqELLRCUDAGetDeviceFormat(Mat, const GKEllr **, const GKEllr **);
PETSC_EXTERN PetscErrorCode MatSeqDIACUDAGetDeviceFormat(Mat, const GKDia **);
