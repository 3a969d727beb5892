static char help[] = "Writes a small matrix as a Matrix Market file and as a PETSc binary file, then copies of each\n\
broken in one way (truncated, wrong counts, indices outside the matrix, sizes beyond PetscInt, bad\n\
headers and values), for the readers to refuse with a clear error. Prints each file's name, the\n\
valid ones first.\n\
  -load <file> : instead, load the binary file with MatLoad (the type from -mat_type) and multiply\n\n";

/*
   The runner reads every file listed with tutorials/solvefile (-mm or -f): the two valid ones must
   solve, every broken one must end in a PETSc error, never a crash, a hang or a silent wrong read.
   The mutations are fixed (no randomness): each names what it breaks.
*/
#include <petscmat.h>

/* The 6 x 6 general matrix of the Matrix Market file: a tridiagonal band plus two far entries */
static const char *mmbody[] = {"1 1 4.0", "2 1 -1.0", "1 2 -1.0", "2 2 4.0", "3 2 -1.0", "2 3 -1.0", "3 3 4.0", "4 3 -1.0", "3 4 -1.0",
                               "4 4 4.0", "5 4 -1.0", "4 5 -1.0", "5 5 4.0", "6 5 -1.0", "5 6 -1.0", "6 6 4.0", "6 1 0.5"};
#define NMM ((int)PETSC_STATIC_ARRAY_LENGTH(mmbody))

typedef struct {
  const char *name;   /* what is broken */
  const char *header; /* the header line, NULL: none */
  const char *size;   /* the size line, NULL: the right one */
  int         entry;  /* entry replaced by line (-1: none; NMM: one added after the last) */
  const char *line;
  int         cut; /* keep only this many bytes (0: all) */
} MMCase;

static PetscErrorCode WriteMM(const char *file, const MMCase *c)
{
  FILE *fp;
  char  buf[4096];
  int   len = 0;

  PetscFunctionBegin;
  if (c->header) len += snprintf(buf + len, sizeof(buf) - len, "%s\n", c->header);
  len += snprintf(buf + len, sizeof(buf) - len, "%% petsc-gpukit tests/fuzzfiles: %s\n", c->name);
  if (c->size) len += snprintf(buf + len, sizeof(buf) - len, "%s\n", c->size);
  else len += snprintf(buf + len, sizeof(buf) - len, "6 6 %d\n", NMM);
  for (int k = 0; k <= NMM; k++) {
    if (k == c->entry) len += snprintf(buf + len, sizeof(buf) - len, "%s\n", c->line);
    else if (k < NMM) len += snprintf(buf + len, sizeof(buf) - len, "%s\n", mmbody[k]);
  }
  if (c->cut) len = c->cut;
  fp = fopen(file, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", file);
  PetscCheck(fwrite(buf, 1, (size_t)len, fp) == (size_t)len, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s", file);
  fclose(fp);
  PetscFunctionReturn(0);
}

/* A 32-bit big-endian integer, as PETSc's binary format stores its header and indices */
static void PutInt(unsigned char *p, long long v)
{
  const unsigned int u = (unsigned int)v;

  p[0] = (unsigned char)(u >> 24);
  p[1] = (unsigned char)(u >> 16);
  p[2] = (unsigned char)(u >> 8);
  p[3] = (unsigned char)u;
}

typedef struct {
  const char *name;
  int         at;    /* the 32-bit word changed (-1: none) */
  long long   value; /* its new value */
  int         cut;   /* keep only this many bytes (0: all) */
} BinCase;

static PetscErrorCode WriteBinary(const char *file, const unsigned char *good, size_t len, const BinCase *c)
{
  unsigned char *b;
  FILE          *fp;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(len, &b));
  PetscCall(PetscArraycpy(b, good, len));
  if (c->at >= 0) PutInt(b + 4 * c->at, c->value);
  if (c->cut) len = (size_t)c->cut;
  fp = fopen(file, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", file);
  PetscCheck(fwrite(b, 1, len, fp) == len, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s", file);
  fclose(fp);
  PetscCall(PetscFree(b));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const char  *hd   = "%%MatrixMarket matrix coordinate real general";
  const MMCase mm[] = {
    {"valid",                      hd,                                                     NULL,                          -1,  NULL,                             0  },
    {"no-header",                  NULL,                                                   NULL,                          -1,  NULL,                             0  },
    {"header-array",               "%%MatrixMarket matrix array real general",             NULL,                          -1,  NULL,                             0  },
    {"header-field",               "%%MatrixMarket matrix coordinate double general",      NULL,                          -1,  NULL,                             0  },
    {"header-skew",                "%%MatrixMarket matrix coordinate real skew-symmetric", NULL,                          -1,  NULL,                             0  },
    {"header-short",               "%%MatrixMarket matrix coordinate",                     NULL,                          -1,  NULL,                             0  },
    {"size-2to32-plus-1",          hd,                                                     "4294967297 4294967297 1",     -1,  NULL,                             0  },
    {"size-1e10",                  hd,                                                     "10000000000 10000000000 17",  -1,  NULL,                             0  },
    {"size-negative",              hd,                                                     "-6 6 17",                     -1,  NULL,                             0  },
    {"size-zero",                  hd,                                                     "0 0 0",                       -1,  NULL,                             0  },
    {"size-two-numbers",           hd,                                                     "6 6",                         -1,  NULL,                             0  },
    {"size-words",                 hd,                                                     "six six 17",                  -1,  NULL,                             0  },
    {"size-overflows-long-long",   hd,                                                     "6 6 99999999999999999999999", -1,  NULL,                             0  },
    {"count-too-large",            hd,                                                     "6 6 18",                      -1,  NULL,                             0  },
    {"count-too-small",            hd,                                                     "6 6 16",                      -1,  NULL,                             0  },
    {"count-more-than-m-n",        hd,                                                     "2 2 17",                      -1,  NULL,                             0  },
    {"count-negative",             hd,                                                     "6 6 -1",                      -1,  NULL,                             0  },
    {"row-zero",                   hd,                                                     NULL,                          4,   "0 2 -1.0",                       0  },
    {"row-past-end",               hd,                                                     NULL,                          4,   "7 2 -1.0",                       0  },
    {"row-negative",               hd,                                                     NULL,                          4,   "-3 2 -1.0",                      0  },
    {"column-past-end",            hd,                                                     NULL,                          4,   "3 7 -1.0",                       0  },
    {"column-beyond-petscint",     hd,                                                     NULL,                          4,   "3 4294967298 -1.0",              0  },
    {"column-overflows-long-long", hd,                                                     NULL,                          4,   "3 99999999999999999999999 -1.0", 0  },
    {"value-missing",              hd,                                                     NULL,                          4,   "3 2",                            0  },
    {"value-not-a-number",         hd,                                                     NULL,                          4,   "3 2 minus-one",                  0  },
    {"value-extra",                hd,                                                     NULL,                          4,   "3 2 -1.0 7.0",                   0  },
    {"entry-empty-line",           hd,                                                     NULL,                          4,   "",                               0  },
    {"entry-after-the-last",       hd,                                                     NULL,                          NMM, "6 2 1.0",                        0  },
    {"junk-after-the-last",        hd,                                                     NULL,                          NMM, "end of matrix",                  0  },
    {"symmetric-upper-entry",      "%%MatrixMarket matrix coordinate real symmetric",      NULL,                          -1,  NULL,                             0  },
    {"truncated-mid-entry",        hd,                                                     NULL,                          -1,  NULL,                             150},
    {"truncated-in-header",        hd,                                                     NULL,                          -1,  NULL,                             20 },
    {"empty",                      hd,                                                     NULL,                          -1,  NULL,                             1  },
  };
  /* the binary file of the same matrix: classid, rows, columns, nonzeros (words 0-3), the row
     lengths (4-9), the column indices (10-26), then the values */
  const BinCase bin[] = {
    {"valid",                 -1, 0,          0  },
    {"classid",               0,  1211217,    0  },
    {"rows-negative",         1,  -6,         0  },
    {"rows-huge",             1,  2147483647, 0  },
    {"columns-negative",      2,  -6,         0  },
    {"nonzeros-too-many",     3,  18,         0  },
    {"nonzeros-too-few",      3,  16,         0  },
    {"nonzeros-negative",     3,  -1,         0  },
    {"row-length-negative",   4,  -2,         0  },
    {"row-length-huge",       4,  2147483647, 0  },
    {"column-past-end",       12, 6,          0  },
    {"column-negative",       12, -1,         0  },
    {"truncated-header",      -1, 0,          10 },
    {"truncated-row-lengths", -1, 0,          28 },
    {"truncated-columns",     -1, 0,          80 },
    {"truncated-values",      -1, 0,          150},
  };
  Mat            A;
  PetscViewer    v;
  unsigned char *good;
  size_t         len;
  FILE          *fp;
  char           file[PETSC_MAX_PATH_LEN];
  PetscMPIInt    size;
  PetscBool      load;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-load", file, sizeof(file), &load));
  if (load) { /* MatLoad takes the column indices unchecked: the matrix type must refuse them */
    Vec x, y;

    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatLoad(A, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A, x, y));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_WRONG_MPI_SIZE, "One process writes the files");
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(mm); k++) {
    PetscCall(PetscSNPrintf(file, sizeof(file), "mm-%s.mtx", mm[k].name));
    PetscCall(WriteMM(file, &mm[k]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", file));
  }
  /* the valid binary file, written by PETSc from the same matrix */
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 6, 6, 3, NULL, &A));
  for (int k = 0; k < NMM; k++) {
    int    i, j;
    double a;

    PetscCheck(sscanf(mmbody[k], "%d %d %lf", &i, &j, &a) == 3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "broken entry");
    PetscCall(MatSetValue(A, i - 1, j - 1, a, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, "fuzz-good.bin", FILE_MODE_WRITE, &v));
  PetscCall(PetscViewerBinarySetSkipInfo(v, PETSC_TRUE));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(MatDestroy(&A));
  fp = fopen("fuzz-good.bin", "rb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read fuzz-good.bin");
  fseek(fp, 0, SEEK_END);
  len = (size_t)ftell(fp);
  rewind(fp);
  PetscCall(PetscMalloc1(len, &good));
  PetscCheck(fread(good, 1, len, fp) == len, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot read fuzz-good.bin");
  fclose(fp);
  PetscCheck(remove("fuzz-good.bin") == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot remove fuzz-good.bin");
  PetscCheck(len == 4 * (4 + 6 + NMM) + sizeof(PetscScalar) * NMM, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "PETSc's binary file has %zu bytes, not the layout expected", len);
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(bin); k++) {
    PetscCall(PetscSNPrintf(file, sizeof(file), "bin-%s.bin", bin[k].name));
    PetscCall(WriteBinary(file, good, len, &bin[k]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", file));
  }
  PetscCall(PetscFree(good));
  PetscCall(PetscFinalize());
  return 0;
}
