static char help[] = "The implicit 2D heat equation of Michels (section 7) on an image-sized grid: each time step solves\n\
(1 + 4k) u_new - k (the four neighbours of u_new) = u_old, k = dt/dx^2, with the neighbours outside\n\
the grid left out (zero), warm-started from u_old. A plain PETSc program: the GPU types come from\n\
loading petsc-gpukit at run time,\n\
  -dll_append /path/to/libpetscgpukit.so -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu\n\
PETSc's multigrid takes the grid's levels with -pc_type mg -pc_mg_galerkin -pc_mg_levels <l> (n - 1\n\
and m - 1 divisible by 2^(l-1)), or builds its own with -pc_type gamg; set up once, before the\n\
first step, it serves every step (the matrix does not change).\n\
Options:\n\
  -n <n>, -m <m>     : the grid, n columns and m rows (default 256 x 256; an image sets both)\n\
  -image <file>      : the initial temperature from a grey PGM (P2/P5) or a PNG image, white hot\n\
  -k <k>             : dt/dx^2 (default 5)\n\
  -steps <s>         : time steps (default 20)\n\
  -frames <dir>      : write the temperature of every frame_every-th step to dir/heat_NNNN.png\n\
                       (.pgm where the library was built without libpng)\n\
  -frame_every <f>   : (default 1)\n\
  -check             : run the same steps again with AIJ, standard vectors and PETSc's CG and\n\
                       compare the temperatures\n\
  -timing            : print the time steps per second (not stable across machines) beside Michels'\n\n";

#include <petscksp.h>
#include <petscdmda.h>
#if defined(HEAT2D_HAVE_PNG)
  #include <png.h>
#endif

/* ---- images: a grey PGM or PNG in, an RGB PNG (or a grey PGM) out ---- */

/* The grey levels of a PGM (P2 or P5), scaled to [0, 1], row by row from the top */
static PetscErrorCode ReadPGM(const char *file, PetscInt *w, PetscInt *h, PetscReal **v)
{
  FILE *fp;
  char  magic[3] = {0, 0, 0};
  int   iw, ih, maxv, c;

  PetscFunctionBegin;
  fp = fopen(file, "rb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open the image %s", file);
  PetscCheck(fread(magic, 1, 2, fp) == 2 && magic[0] == 'P' && (magic[1] == '2' || magic[1] == '5'), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s is not a grey PGM (P2 or P5) image", file);
  for (int k = 0; k < 3; k++) { /* width, height, maximum, with # comments between */
    int *dst = k == 0 ? &iw : (k == 1 ? &ih : &maxv);

    while ((c = fgetc(fp)) != EOF && (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#'))
      if (c == '#')
        while ((c = fgetc(fp)) != EOF && c != '\n') { }
    PetscCheck(c != EOF && ungetc(c, fp) != EOF && fscanf(fp, "%d", dst) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: a broken PGM header",
               file);
  }
  PetscCheck(iw > 0 && ih > 0 && maxv > 0 && maxv < 65536, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: a PGM of %d x %d with maximum %d", file,
             iw, ih, maxv);
  (void)fgetc(fp); /* the one whitespace before P5's data */
  PetscCall(PetscMalloc1((size_t)iw * ih, v));
  for (size_t i = 0; i < (size_t)iw * ih; i++) {
    int g = 0;

    if (magic[1] == '2')
      PetscCheck(fscanf(fp, "%d", &g) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: fewer values than %d x %d", file, iw, ih);
    else {
      int hi = fgetc(fp), lo = maxv > 255 ? fgetc(fp) : 0;

      PetscCheck(hi != EOF && lo != EOF, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: fewer values than %d x %d", file, iw, ih);
      g = maxv > 255 ? hi * 256 + lo : hi;
    }
    (*v)[i] = (PetscReal)g / maxv;
  }
  fclose(fp);
  *w = iw;
  *h = ih;
  PetscFunctionReturn(0);
}

/* The image -image names, grey levels in [0, 1] */
static PetscErrorCode ReadImage(const char *file, PetscInt *w, PetscInt *h, PetscReal **v)
{
  size_t    len;
  PetscBool png;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(file, &len));
  png = (PetscBool)(len > 4 && (!strcmp(file + len - 4, ".png") || !strcmp(file + len - 4, ".PNG")));
  if (!png) {
    PetscCall(ReadPGM(file, w, h, v));
    PetscFunctionReturn(0);
  }
#if defined(HEAT2D_HAVE_PNG)
  {
    png_image      img;
    unsigned char *buf;

    PetscCall(PetscMemzero(&img, sizeof(img)));
    img.version = PNG_IMAGE_VERSION;
    PetscCheck(png_image_begin_read_from_file(&img, file), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot read the PNG %s: %s", file, img.message);
    img.format = PNG_FORMAT_GRAY;
    PetscCall(PetscMalloc1(PNG_IMAGE_SIZE(img), &buf));
    PetscCheck(png_image_finish_read(&img, NULL, buf, 0, NULL), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot read the PNG %s: %s", file,
               img.message);
    *w = img.width;
    *h = img.height;
    PetscCall(PetscMalloc1((size_t)img.width * img.height, v));
    for (size_t i = 0; i < (size_t)img.width * img.height; i++) (*v)[i] = buf[i] / 255.0;
    PetscCall(PetscFree(buf));
  }
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP,
          "This heat2d was built without libpng: give a PGM image (pngtopnm image.png > image.pgm), or install libpng-dev and rebuild");
#endif
  PetscFunctionReturn(0);
}

/* Temperature t in [0, 1] as black - red - yellow - white */
static void HeatColor(PetscReal t, unsigned char *rgb)
{
  const PetscReal c[3] = {3 * t, 3 * t - 1, 3 * t - 2};

  for (int k = 0; k < 3; k++) rgb[k] = (unsigned char)(255.0 * PetscMax(0.0, PetscMin(1.0, c[k])) + 0.5);
}

/* One frame from the temperatures (rows from the top), as a PNG or, without libpng, a PGM */
static PetscErrorCode WriteFrame(const char *dir, PetscInt step, PetscInt w, PetscInt h, const PetscScalar *u)
{
  char           file[PETSC_MAX_PATH_LEN];
  unsigned char *rgb;
  FILE          *fp;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1((size_t)3 * w * h, &rgb));
  for (size_t i = 0; i < (size_t)w * h; i++) HeatColor(PetscRealPart(u[i]), rgb + 3 * i);
#if defined(HEAT2D_HAVE_PNG)
  {
    png_image img;

    PetscCall(PetscSNPrintf(file, sizeof(file), "%s/heat_%04d.png", dir, (int)step));
    PetscCall(PetscMemzero(&img, sizeof(img)));
    img.version = PNG_IMAGE_VERSION;
    img.width   = (png_uint_32)w;
    img.height  = (png_uint_32)h;
    img.format  = PNG_FORMAT_RGB;
    PetscCheck(png_image_write_to_file(&img, file, 0, rgb, 0, NULL), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s: %s", file, img.message);
    (void)fp;
  }
#else
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s/heat_%04d.pgm", dir, (int)step));
  fp = fopen(file, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s (does the directory %s exist?)", file, dir);
  fprintf(fp, "P5\n%d %d\n255\n", (int)w, (int)h);
  for (size_t i = 0; i < (size_t)w * h; i++) fputc((int)(255.0 * PetscMax(0.0, PetscMin(1.0, PetscRealPart(u[i]))) + 0.5), fp);
  fclose(fp);
#endif
  PetscCall(PetscFree(rgb));
  PetscFunctionReturn(0);
}

/* ---- the problem ---- */

/* The built-in initial temperature: two hot discs and a warm ring on a cold plate */
static PetscReal Pattern(PetscReal x, PetscReal y)
{
  const PetscReal r1 = PetscSqrtReal((x - 0.3) * (x - 0.3) + (y - 0.35) * (y - 0.35));
  const PetscReal r2 = PetscSqrtReal((x - 0.7) * (x - 0.7) + (y - 0.65) * (y - 0.65));
  const PetscReal r3 = PetscSqrtReal((x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5));

  if (r1 < 0.12 || r2 < 0.08) return 1.0;
  if (r3 > 0.38 && r3 < 0.42) return 0.7;
  return 0.0;
}

/* Michels 7.1: (1 + 4k) on the diagonal, -k to each neighbour inside the grid */
static PetscErrorCode Assemble(DM da, PetscReal k, Mat A)
{
  DMDALocalInfo info;

  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
    for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
      MatStencil  row = {0}, col[5];
      PetscScalar v[5];
      PetscInt    nc = 0;

      row.i = i;
      row.j = j;
      if (i > 0) col[nc] = row, col[nc].i = i - 1, v[nc++] = -k;
      if (j > 0) col[nc] = row, col[nc].j = j - 1, v[nc++] = -k;
      col[nc] = row, v[nc++] = 1.0 + 4.0 * k;
      if (i < info.mx - 1) col[nc] = row, col[nc].i = i + 1, v[nc++] = -k;
      if (j < info.my - 1) col[nc] = row, col[nc].j = j + 1, v[nc++] = -k;
      PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* u0 from the image (row 0 at the top is grid row my - 1) or the pattern */
static PetscErrorCode Initial(DM da, const PetscReal *img, Vec u)
{
  DMDALocalInfo info;
  PetscScalar **a;

  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &info));
  PetscCall(DMDAVecGetArray(da, u, &a));
  for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
    for (PetscInt i = info.xs; i < info.xs + info.xm; i++)
      a[j][i] = img ? img[(size_t)(info.my - 1 - j) * info.mx + i] : Pattern((i + 0.5) / info.mx, (j + 0.5) / info.my);
  PetscCall(DMDAVecRestoreArray(da, u, &a));
  PetscFunctionReturn(0);
}

/* The whole field on process 0, rows from the top (NULL elsewhere): for frames and comparisons */
static PetscErrorCode Gather(DM da, Vec u, Vec *nat0)
{
  Vec        nat;
  VecScatter sc;

  PetscFunctionBegin;
  PetscCall(DMDACreateNaturalVector(da, &nat));
  PetscCall(DMDAGlobalToNaturalBegin(da, u, INSERT_VALUES, nat));
  PetscCall(DMDAGlobalToNaturalEnd(da, u, INSERT_VALUES, nat));
  PetscCall(VecScatterCreateToZero(nat, &sc, nat0));
  PetscCall(VecScatterBegin(sc, nat, *nat0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, *nat0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(0);
}

static PetscErrorCode Frame(DM da, Vec u, const char *dir, PetscInt step)
{
  Vec                nat0;
  const PetscScalar *a;
  PetscInt           mx, my, n;
  PetscScalar       *flip;
  PetscMPIInt        rank;

  PetscFunctionBegin;
  PetscCall(Gather(da, u, &nat0));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) {
    PetscCall(DMDAGetInfo(da, NULL, &mx, &my, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCall(VecGetLocalSize(nat0, &n));
    PetscCall(VecGetArrayRead(nat0, &a));
    PetscCall(PetscMalloc1(n, &flip));
    for (PetscInt j = 0; j < my; j++) PetscCall(PetscArraycpy(flip + (size_t)(my - 1 - j) * mx, a + (size_t)j * mx, mx));
    PetscCall(WriteFrame(dir, step, mx, my, flip));
    PetscCall(PetscFree(flip));
    PetscCall(VecRestoreArrayRead(nat0, &a));
  }
  PetscCall(VecDestroy(&nat0));
  PetscFunctionReturn(0);
}

/* The time steps on da's types; iterations summed; the frames written when dir is set */
static PetscErrorCode Run(DM da, PetscReal k, const PetscReal *img, PetscInt steps, const char *dir, PetscInt every, const char *prefix, Vec *ufinal,
                          PetscInt *its, PetscLogDouble *seconds)
{
  Mat            A;
  Vec            u, uold;
  KSP            ksp;
  PC             pc;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, k, A));
  PetscCall(DMCreateGlobalVector(da, &u));
  PetscCall(VecDuplicate(u, &uold));
  PetscCall(Initial(da, img, u));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG)); /* CG and Jacobi unless the options say otherwise */
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetDM(pc, da)); /* the grid, for -pc_type mg -pc_mg_galerkin (the operator stays A) */
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE)); /* warm start: the last temperature */
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  if (dir) PetscCall(Frame(da, u, dir, 0));
  *its     = 0;
  *seconds = 0.0;
  for (PetscInt s = 1; s <= steps; s++) {
    PetscInt           it;
    KSPConvergedReason reason;
    PetscReal          nrm;

    PetscCall(VecCopy(u, uold));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, uold, u));
    PetscCall(VecNorm(u, NORM_1, &nrm)); /* waits for the solve, where it runs on a GPU */
    PetscCall(PetscTime(&t1));
    *seconds += t1 - t0;
    PetscCall(KSPGetIterationNumber(ksp, &it));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "Time step %" PetscInt_FMT ": the solve ended %s", s,
               KSPConvergedReasons[reason]);
    *its += it;
    if (dir && s % every == 0) PetscCall(Frame(da, u, dir, s));
  }
  *ufinal = u;
  PetscCall(VecDestroy(&uold));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt       n = 256, m = -1, steps = 20, every = 1, its, w = 0, h = 0;
  PetscReal      k = 5.0, *img = NULL, mean;
  char           image[PETSC_MAX_PATH_LEN] = "", dir[PETSC_MAX_PATH_LEN] = "";
  PetscBool      hasimage, hasdir, check = PETSC_FALSE, timing = PETSC_FALSE;
  DM             da;
  Vec            u;
  PetscLogDouble sec;
  MatType        mtype;
  VecType        vtype;
  KSP            probe;
  KSPType        ktype;
  PCType         ptype;
  PC             pc;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-frame_every", &every, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-k", &k, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-image", image, sizeof(image), &hasimage));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-frames", dir, sizeof(dir), &hasdir));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check", &check, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-timing", &timing, NULL));
  PetscCheck(k > 0 && steps >= 0 && every >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need -k > 0, -steps >= 0 and -frame_every >= 1");
  if (hasimage) { /* every process reads it: it is small */
    PetscCall(ReadImage(image, &w, &h, &img));
    n = w;
    m = h;
  }
  if (m < 0) m = n;
  PetscCheck(n >= 2 && m >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "The grid must be at least 2 x 2, not %" PetscInt_FMT " x %" PetscInt_FMT,
             n, m);
  PetscCall(
    DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, m, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMGetMatType(da, &mtype));
  PetscCall(DMGetVecType(da, &vtype));
  PetscCall(Run(da, k, img, steps, hasdir ? dir : NULL, every, NULL, &u, &its, &sec));
  {
    PetscScalar sum;

    PetscCall(VecSum(u, &sum));
    mean = PetscRealPart(sum) / (n * m);
  }
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &probe)); /* the solver the options chose, for the report */
  PetscCall(KSPSetType(probe, KSPCG));
  PetscCall(KSPGetPC(probe, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetFromOptions(probe));
  PetscCall(KSPGetType(probe, &ktype));
  PetscCall(KSPGetPC(probe, &pc));
  PetscCall(PCGetType(pc, &ptype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "heat2d: %d x %d grid, k = %g, %d steps with %s%s%s on %s matrices and %s vectors\n", (int)n, (int)m,
                        (double)k, (int)steps, ktype, ptype ? " and " : "", ptype ? ptype : "", mtype ? mtype : MATAIJ, vtype ? vtype : VECSTANDARD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mean temperature after the last step: %.4f\n", (double)mean));
  if (hasdir) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "frames: %s/heat_0000 ... %s/heat_%04d\n", dir, dir, (int)(steps - steps % every)));
  if (timing && steps) {
    const PetscInt sizes[3] = {256, 512, 1024}, michels[3] = {20, 10, 7};

    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%.1f time steps per second (%.1f iterations a step)", (double)(steps / sec), (double)its / steps));
    for (int s = 0; s < 3; s++)
      if (n == sizes[s] && m == sizes[s])
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "; Michels (GTX 480, 2009): %d at %d^2", (int)michels[s], (int)sizes[s]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  }
  if (check) { /* the same steps with AIJ, standard vectors and PETSc's CG + Jacobi */
    DM        da2;
    Vec       u2, a0, b0;
    PetscInt  its2;
    PetscReal nd = 0.0, nr = 0.0;

    PetscCall(DMClone(da, &da2));
    PetscCall(DMSetMatType(da2, MATAIJ));
    PetscCall(DMSetVecType(da2, VECSTANDARD));
    PetscCall(PetscOptionsSetValue(NULL, "-ref_ksp_type", "cg"));
    PetscCall(PetscOptionsSetValue(NULL, "-ref_pc_type", "jacobi"));
    PetscCall(Run(da2, k, img, steps, NULL, every, "ref_", &u2, &its2, &sec));
    PetscCall(Gather(da, u, &a0));
    PetscCall(Gather(da2, u2, &b0));
    PetscCall(VecAXPY(a0, -1.0, b0));
    PetscCall(VecNorm(a0, NORM_2, &nd));
    PetscCall(VecNorm(b0, NORM_2, &nr));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nd, 1, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nr, 1, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD));
    PetscCheck(nd <= 1e-6 * nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The temperatures differ from the AIJ run's by %g (relative)", (double)(nd / nr));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "temperatures agree with the AIJ run (relative difference below 1e-6)\n"));
    PetscCall(VecDestroy(&a0));
    PetscCall(VecDestroy(&b0));
    PetscCall(VecDestroy(&u2));
    PetscCall(DMDestroy(&da2));
  }
  PetscCall(KSPDestroy(&probe));
  PetscCall(VecDestroy(&u));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFree(img));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  testset:
    args: -dll_append ${LIB} -check
    test:
      suffix: ellrcuda_cggpu
      args: -n 48 -m 40 -steps 4 -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu -pc_type jacobi -gpukit_backend {{host cuda}shared output}
    test:
      suffix: diacuda_cg
      args: -n 40 -steps 3 -dm_mat_type diacuda -dm_vec_type cuda -ksp_type cg -pc_type jacobi
    test:
      suffix: ssorgpu
      args: -n 32 -steps 3 -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu -pc_type ssorgpu -gpukit_backend {{host cuda}shared output}
    test:
      suffix: mpi
      nsize: 3
      args: -n 40 -steps 3 -dm_mat_type diacuda -dm_vec_type cuda -ksp_type cggpu -pc_type jacobi
    # PETSc's multigrid, set up once for all steps: on the grid's levels (Galerkin) and GAMG's
    testset:
      args: -n 65 -m 33 -steps 3 -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu
      test:
        suffix: mg
        args: -pc_type mg -pc_mg_levels 3 -pc_mg_galerkin -gpukit_backend {{host cuda}shared output}
    test:
      suffix: mg_mpi
      nsize: 2
      args: -n 65 -m 33 -steps 3 -dm_mat_type diacuda -dm_vec_type cuda -ksp_type cg -pc_type mg -pc_mg_levels 3 -pc_mg_galerkin
    test:
      suffix: gamg
      args: -n 48 -m 40 -steps 3 -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cg -pc_type gamg -gpukit_backend {{host cuda}shared output}
    test:
      suffix: image
      localrunfiles: emblem.pgm
      args: -image emblem.pgm -steps 2 -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu -pc_type jacobi

  test:
    suffix: frames
    args: -n 24 -steps 2 -frames . -dll_append ${LIB} -dm_mat_type ellrcuda -ksp_type cggpu -pc_type jacobi
    filter: grep frames

TEST*/
