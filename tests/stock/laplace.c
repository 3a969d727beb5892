static char help[] = "An unmodified PETSc program: it knows nothing of petsc-gpukit and uses only public\n\
PETSc API. It solves the 2D 5-point Laplacian with a known solution and prints the iteration\n\
count and the error norm. The types come from -mat_type and -vec_type (or -dm_mat_type and\n\
-dm_vec_type with -dmda).\n\
  -n <n>   : grid points per side\n\
  -dmda    : build the matrix with DMDA and DMCreateMatrix\n\n";

#include <petscksp.h>
#include <petscdmda.h>

/* A with MatSetFromOptions(): the 5-point stencil, Dirichlet boundaries eliminated */
static PetscErrorCode AssembleLaplacian(PetscInt n, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt i = row / n, j = row % n;

    if (i > 0) PetscCall(MatSetValue(*A, row, row - n, -1.0, INSERT_VALUES));
    if (j > 0) PetscCall(MatSetValue(*A, row, row - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, row, row, 4.0, INSERT_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(*A, row, row + 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, row, row + n, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The same operator through DMDA: the matrix type comes from -dm_mat_type */
static PetscErrorCode AssembleLaplacianDMDA(PetscInt n, DM *da, Mat *A)
{
  DMDALocalInfo info;
  MatStencil    row, col[5];
  PetscScalar   v[5];

  PetscFunctionBegin;
  PetscCall(
    DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, da));
  PetscCall(DMSetFromOptions(*da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMCreateMatrix(*da, A));
  PetscCall(DMDAGetLocalInfo(*da, &info));
  for (PetscInt j = info.ys; j < info.ys + info.ym; j++) {
    for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
      PetscInt k = 0;

      row.i = i;
      row.j = j;
      if (j > 0) {
        col[k].i = i;
        col[k].j = j - 1;
        v[k++]   = -1.0;
      }
      if (i > 0) {
        col[k].i = i - 1;
        col[k].j = j;
        v[k++]   = -1.0;
      }
      col[k].i = i;
      col[k].j = j;
      v[k++]   = 4.0;
      if (i < n - 1) {
        col[k].i = i + 1;
        col[k].j = j;
        v[k++]   = -1.0;
      }
      if (j < n - 1) {
        col[k].i = i;
        col[k].j = j + 1;
        v[k++]   = -1.0;
      }
      PetscCall(MatSetValuesStencil(*A, 1, &row, k, col, v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat       A;
  Vec       x, b, u;
  KSP       ksp;
  DM        da   = NULL;
  PetscInt  n    = 40, its;
  PetscBool dmda = PETSC_FALSE;
  PetscReal err;
  MatType   type;
  VecType   vtype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dmda", &dmda, NULL));
  if (dmda) PetscCall(AssembleLaplacianDMDA(n, &da, &A));
  else PetscCall(AssembleLaplacian(n, &A));
  PetscCall(MatGetType(A, &type));
  if (dmda) PetscCall(DMCreateGlobalVector(da, &x)); /* type from -dm_vec_type */
  else {
    /* type from -vec_type */
    PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
    PetscCall(VecSetSizes(x, PETSC_DECIDE, n * n));
    PetscCall(VecSetFromOptions(x));
  }
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &u));
  PetscCall(VecSet(u, 1.0));
  PetscCall(MatMult(A, u, b)); /* b = A u, so the solution is u */

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(VecAXPY(x, -1.0, u));
  PetscCall(VecNorm(x, NORM_2, &err));
  PetscCall(VecGetType(x, &vtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix type %s, vector type %s\n", type, vtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %" PetscInt_FMT "\n", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error norm %.4e\n", (double)err));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # An unmodified PETSc program (built without the library, which -dll_append loads): the same
  # iterations and error norm as with AIJ. Each reference run of PETSc alone is a case too, its
  # output file shared with the plug-in's runs. The program sets KSPCG before KSPSetFromOptions:
  # CG unless -ksp_type says otherwise.
  testset:
    args: -n 45
    output_file: output/laplace_dll_append.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: dll_append_petsc
      args: -mat_type aij
    test:
      suffix: dll_append
      args: -dll_append ${LIB} -mat_type {{ellrcuda diacuda}shared output}
    # the library loaded and never used: on a GPU its early start (the context, the staging
    # buffers, cuSPARSE's preload) is ended and freed at PetscFinalize() all the same (under
    # compute-sanitizer: no leak, no thread left running)
    test:
      suffix: dll_append_unused
      args: -dll_append ${LIB} -mat_type aij -gpukit_cusparse_preload {{0 1}shared output}

  testset:
    args: -n 45
    output_file: output/laplace_jacobi.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: jacobi_petsc
      args: -mat_type aij -pc_type jacobi
    test:
      suffix: dll_append_jacobi
      args: -dll_append ${LIB} -mat_type {{ellrcuda diacuda}shared output} -pc_type jacobi -gpukit_backend {{host cuda}shared output}
    test:
      suffix: vec_type_cuda
      args: -dll_append ${LIB} -mat_type {{ellrcuda diacuda}shared output} -vec_type cuda -pc_type jacobi
    # a PETSc with CUDA: the library's own vectors under their other name (${GKVEC}), with its
    # matrices and PETSc's Krylov methods
    test:
      suffix: gmres_gkcuda_vectors
      requires: cuda
      args: -dll_append ${LIB} -mat_type diacuda -vec_type ${GKVEC} -pc_type jacobi
    # the unmodified program on several processes: the root names pick the MPI types (the same
    # iterations and error norm as on one process)
    test:
      suffix: mpi_jacobi_petsc
      nsize: {{2 3}shared output}
      args: -pc_type jacobi
    test:
      suffix: mpi
      nsize: {{2 3}shared output}
      args: -dll_append ${LIB} -mat_type {{ellrcuda diacuda}shared output} -pc_type jacobi
    test:
      suffix: mpi_cuda_vectors
      nsize: {{2 3}shared output}
      args: -dll_append ${LIB} -mat_type {{ellrcuda diacuda}shared output} -vec_type cuda -pc_type jacobi
    test:
      suffix: mpi_aij_cuda_vectors
      nsize: {{2 3}shared output}
      args: -dll_append ${LIB} -vec_type cuda -pc_type jacobi

  testset:
    args: -n 45
    output_file: output/laplace_dmda.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: dmda_petsc
      args: -dmda -pc_type jacobi
    test:
      suffix: dmda
      args: -dll_append ${LIB} -dmda -dm_mat_type {{ellrcuda diacuda}shared output} -pc_type jacobi
    test:
      suffix: dmda_dm_vec_type_cuda
      args: -dll_append ${LIB} -dmda -dm_mat_type {{ellrcuda diacuda}shared output} -dm_vec_type cuda -pc_type jacobi

  testset:
    args: -n 45
    output_file: output/laplace_cggpu.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: cggpu_petsc
      args: -ksp_type cg -pc_type jacobi
    test:
      suffix: cggpu
      args: -dll_append ${LIB} -mat_type {{ellrcuda diacuda}shared output} -ksp_type cggpu -pc_type jacobi -gpukit_backend {{host cuda}shared output}
    test:
      suffix: cggpu_cuda_vectors
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -ksp_type cggpu -pc_type jacobi
    test:
      suffix: cggpu_gkcuda_vectors
      requires: cuda
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type ${GKVEC} -ksp_type cggpu -pc_type jacobi
    # the fused solvers across processes: PETSc's CG iterations and error norm
    test:
      suffix: mpi_cggpu_petsc
      nsize: {{2 3}shared output}
      args: -ksp_type cg -pc_type jacobi
    test:
      suffix: mpi_cggpu
      nsize: {{2 3}shared output}
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -ksp_type cggpu -pc_type jacobi
    test:
      suffix: mpi_cggpu_gkcuda
      requires: cuda
      nsize: {{2 3}shared output}
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type ${GKVEC} -ksp_type cggpu -pc_type jacobi

  testset:
    args: -n 45
    output_file: output/laplace_bicggpu.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: bicggpu_petsc
      args: -ksp_type bicg -pc_type jacobi
    test:
      suffix: bicggpu
      args: -dll_append ${LIB} -mat_type {{ellrcuda diacuda}shared output} -ksp_type bicggpu -pc_type jacobi
    # device memory handed to MPI: on the host backend any MPI takes it (so CI runs that path); on
    # a GPU only a CUDA-aware MPI (any other refuses the option: error_cuda_aware_mpi below)
    test:
      suffix: mpi_bicg_petsc
      nsize: {{2 3}shared output}
      args: -ksp_type bicg -pc_type jacobi
    test:
      suffix: mpi_bicggpu_ellrcuda_aware
      requires: !gpu
      nsize: {{2 3}shared output}
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -ksp_type bicggpu -pc_type jacobi -gpukit_cuda_aware_mpi
    test:
      suffix: mpi_bicggpu_ellrcuda_aware_gpu
      requires: gpu cuda_aware_mpi
      nsize: {{2 3}shared output}
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -ksp_type bicggpu -pc_type jacobi -gpukit_cuda_aware_mpi

  testset:
    args: -n 45
    output_file: output/laplace_cg_none.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: cg_none_petsc
      args: -ksp_type cg -pc_type none
    test:
      suffix: cggpu_aij_operator
      args: -dll_append ${LIB} -ksp_type cggpu -pc_type none
    test:
      suffix: mpi_cg_none_petsc
      nsize: {{2 3}shared output}
      args: -ksp_type cg -pc_type none
    test:
      suffix: mpi_cggpu_diacuda_aware
      requires: !gpu
      nsize: {{2 3}shared output}
      args: -dll_append ${LIB} -mat_type diacuda -ksp_type cggpu -pc_type none -gpukit_cuda_aware_mpi
    test:
      suffix: mpi_cggpu_diacuda_aware_gpu
      requires: gpu cuda_aware_mpi
      nsize: {{2 3}shared output}
      args: -dll_append ${LIB} -mat_type diacuda -ksp_type cggpu -pc_type none -gpukit_cuda_aware_mpi

  # PETSc's hypre interface on device vectors: it zeroes x by VecSet, then writes through
  # VecGetArrayWrite, which must hold those zeros (hypre takes them as its initial guess)
  testset:
    requires: hypre
    args: -n 45
    output_file: output/laplace_hypre.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: hypre_petsc
      args: -pc_type hypre
    test:
      suffix: hypre_ellrcuda
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -pc_type hypre

  # ssorgpu natural is PCSOR's symmetric sweep (on several processes PCSOR's local one); cggpu
  # applies it by Eisenstat's trick: KSPCG's iterates with the natural norm
  testset:
    args: -n 45
    output_file: output/laplace_cggpu_ssorgpu.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: cggpu_ssorgpu_petsc
      args: -ksp_type cg -pc_type sor -pc_sor_symmetric -pc_sor_omega 1.5 -ksp_norm_type natural
    test:
      suffix: cggpu_ssorgpu
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -ksp_type cggpu -pc_type ssorgpu -pc_ssorgpu_type natural -pc_ssorgpu_omega 1.5 -ksp_norm_type natural

  testset:
    args: -n 45
    output_file: output/laplace_ssorgpu_natural.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: ssorgpu_natural_petsc
      args: -pc_type sor -pc_sor_symmetric
    test:
      suffix: ssorgpu_natural
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -pc_type ssorgpu -pc_ssorgpu_type natural

  testset:
    args: -n 45
    output_file: output/laplace_ssorgpu_natural_mpi.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: ssorgpu_natural_mpi_petsc
      nsize: {{2 3}separate output}
      args: -pc_type sor -pc_sor_local_symmetric
    test:
      suffix: ssorgpu_natural_mpi
      nsize: {{2 3}separate output}
      args: -dll_append ${LIB} -mat_type diacuda -vec_type cuda -pc_type ssorgpu -pc_ssorgpu_type natural

  # a PC the fused kernels do not apply: PETSc's cg or bicg iterate on the device matrix and
  # vectors and PETSc applies it (the general path), with PETSc's iterations; -ksp_view says so
  testset:
    args: -n 45
    output_file: output/laplace_general_ilu.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: general_ilu_petsc
      args: -ksp_type cg -pc_type ilu
    test:
      suffix: general_ilu
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -ksp_type cggpu -pc_type ilu
  testset:
    args: -n 45
    output_file: output/laplace_general_bicg_ilu.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: general_bicg_ilu_petsc
      args: -ksp_type bicg -pc_type ilu
    test:
      suffix: general_bicg_ilu
      args: -dll_append ${LIB} -mat_type diacuda -ksp_type bicggpu -pc_type ilu
  test:
    suffix: general_view
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -ksp_type cggpu -pc_type ilu -ksp_view
    filter: grep -E "PETSc's cg on the device matrix"
  # ssorgpu on several processes: local sweeps, as PCSOR's (the output shared with PETSc's above)
  testset:
    args: -n 45
    output_file: output/laplace_ssorgpu_natural_mpi.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: general_cggpu_ssorgpu_mpi
      nsize: {{2 3}separate output}
      args: -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -ksp_type cggpu -pc_type ssorgpu -pc_ssorgpu_type natural
  # the Neumann series has no Eisenstat step: PETSc's cg applies it, as under -ksp_type cg
  testset:
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -pc_type ssorgpu -pc_ssorgpu_type neumann
    output_file: output/laplace_general_neumann.out
    filter: grep -E "^(iterations|error norm)"
    test:
      suffix: general_neumann_cg
      args: -ksp_type cg
    test:
      suffix: general_neumann
      args: -ksp_type cggpu
  # BiCG applies the PC's transpose, which SSOR is only where the matrix is known symmetric; PCSOR
  # refuses the same (the program sets no MAT_SYMMETRIC)
  test:
    suffix: error_bicg_sor_petsc
    exit: nonzero
    args: -n 45 -ksp_type bicg -pc_type sor
    filter: grep -o "Can only apply transpose of SOR if matrix is symmetric"
  test:
    suffix: error_bicggpu_ssorgpu
    exit: nonzero
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -ksp_type bicggpu -pc_type ssorgpu
    filter: grep -o "PC ssorgpu applies its transpose only where the matrix is known symmetric"

  # the device's start-up is an event of its own (GKDeviceInit), made early on a thread of its
  # own or when the first object needs it, and the answer is the same either way
  test:
    suffix: device_init
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -ksp_type cggpu -pc_type jacobi -gpukit_start_early {{0 1}shared output} -log_view
    filter: grep -E "^(iterations|error norm|GKDeviceInit )" | sed -E "s/^(GKDeviceInit) .+/\1 logged/"

  # the CUDA context's hardware queues: one unless the environment says (a context with one is made
  # faster, under MPS too), the option's 0 leaves CUDA's default, anything above 32 refused; the
  # backend auto whatever the runner's (the host backend asked for leaves the variable alone)
  testset:
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -ksp_type cggpu -pc_type jacobi -info :sys -gpukit_backend auto
    filter: grep -oE "(petsc-gpukit: CUDA_DEVICE_MAX_CONNECTIONS.*|^iterations.*)"
    test:
      suffix: device_connections
    test:
      suffix: device_connections_env
      env: CUDA_DEVICE_MAX_CONNECTIONS=4
    test:
      suffix: device_connections_cuda_default
      args: -gpukit_device_connections 0
    test:
      suffix: device_connections_host
      args: -gpukit_backend host
      output_file: output/laplace_device_connections_cuda_default.out
  test:
    suffix: error_device_connections
    exit: nonzero
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -gpukit_device_connections 33
    filter: grep -o "gpukit_device_connections 33: give 1 to 32.*"

  # PCGAMG on the device types: its coarse operators of the device types (DIA's products made
  # ELLPACK-R); its iterations, which change between PETSc releases, are compared with PETSc's own
  # in the same release by tests/run, on one process and several
  test:
    suffix: gamg_types
    args: -n 45 -pc_type gamg -dll_append ${LIB} -mat_type diacuda -vec_type cuda -ksp_view
    filter: grep -oE "type: seq(ellr|dia)cuda" | LC_ALL=C sort | uniq -c

  # the factorizations of PETSc and of the packages it has, on the device types as on AIJ (the
  # packages check the type's name; mumps refused both types before, superlu_dist the MPI ones):
  # the same iterations (a parallel MUMPS's error norms differ from run to run in the 13th digit),
  # one process and two where the package runs in parallel; the AIJ run is the reference
  testset:
    args: -n 45 -dll_append ${LIB} -ksp_type gmres -mat_type {{aij ellrcuda diacuda}shared output}
    filter: grep "^iterations"
    test:
      suffix: factor_lu_petsc
      args: -pc_type lu -pc_factor_mat_solver_type petsc
    test:
      suffix: factor_ilu_petsc
      args: -pc_type ilu -pc_factor_mat_solver_type petsc
    test:
      suffix: factor_cholesky_petsc
      args: -pc_type cholesky -pc_factor_mat_solver_type petsc
    test:
      suffix: factor_icc_petsc
      args: -pc_type icc -pc_factor_mat_solver_type petsc
    test:
      suffix: factor_lu_mumps
      requires: mumps
      args: -pc_type lu -pc_factor_mat_solver_type mumps
    test:
      suffix: factor_lu_mumps_mpi
      requires: mumps
      nsize: 2
      args: -pc_type lu -pc_factor_mat_solver_type mumps
    test:
      suffix: factor_cholesky_mumps
      requires: mumps
      args: -pc_type cholesky -pc_factor_mat_solver_type mumps
    test:
      suffix: factor_cholesky_mumps_mpi
      requires: mumps
      nsize: 2
      args: -pc_type cholesky -pc_factor_mat_solver_type mumps
    test:
      suffix: factor_lu_superlu
      requires: superlu
      args: -pc_type lu -pc_factor_mat_solver_type superlu
    test:
      suffix: factor_lu_superlu_dist
      requires: superlu_dist
      args: -pc_type lu -pc_factor_mat_solver_type superlu_dist
    test:
      suffix: factor_lu_superlu_dist_mpi
      requires: superlu_dist
      nsize: 2
      args: -pc_type lu -pc_factor_mat_solver_type superlu_dist
    test:
      suffix: factor_lu_umfpack
      requires: suitesparse
      args: -pc_type lu -pc_factor_mat_solver_type umfpack
    test:
      suffix: factor_lu_klu
      requires: suitesparse
      args: -pc_type lu -pc_factor_mat_solver_type klu
    # complex: PETSc's cholmod wants MAT_HERMITIAN set, which the program does not (on AIJ too)
    test:
      suffix: factor_cholesky_cholmod
      requires: suitesparse !complex
      args: -pc_type cholesky -pc_factor_mat_solver_type cholmod

  # the matrix type really is the device one (and the vector type the one asked for)
  test:
    suffix: type_ellrcuda
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda
  testset:
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda
    output_file: output/laplace_type_cuda.out
    test:
      suffix: type_cuda
      args: -vec_type cuda
    # a PETSc with CUDA: its VECCUDA is seqcuda, the library's own vectors seqgkcuda
    test:
      suffix: type_gkcuda
      requires: cuda
      args: -vec_type ${GKVEC}
      filter_output: sed "s/vector type seqcuda$/vector type seqgkcuda/"
  test:
    suffix: mpi_type
    nsize: {{2 3}shared output}
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda
    filter: grep "^matrix type"

  # the fused solvers' own lines of -ksp_view (the backend's name left out)
  testset:
    args: -n 45 -dll_append ${LIB} -ksp_view
    filter: grep -E "^  type: |^    (fused device|convergence tested|sums over|the direction's|the operator is|SSOR|PETSc's|[0-9]+ colours|block SSOR|points:|cggpu iterates|each triangular|level scheduled)" | sed -E "s/, on the [a-z]+ backend$//"
    test:
      suffix: cggpu_view
      args: -mat_type ellrcuda -ksp_type cggpu -pc_type jacobi
    test:
      suffix: ssorgpu_view
      args: -mat_type ellrcuda -pc_type ssorgpu -pc_ssorgpu_omega 1.3
    test:
      suffix: ssorgpu_view_blocks
      args: -mat_type ellrcuda -pc_type ssorgpu -pc_ssorgpu_block_size 4
    test:
      suffix: ssorgpu_view_copy
      args: -mat_type ellrcuda -ksp_type cggpu -pc_type ssorgpu -pc_ssorgpu_block_size 1
    # the default block size: 4 where the blocks are symmetric (or Hermitian) and factor, else
    # points
    test:
      suffix: ssorgpu_view_auto
      args: -mat_type ellrcuda -ksp_type cggpu -pc_type ssorgpu
    # the fused solvers' sums over the processes: through MPI_Allreduce when asked
    test:
      suffix: cggpu_device_sums_off
      nsize: {{1 2 3}shared output}
      args: -mat_type mpiellrcuda -ksp_type cggpu -pc_type jacobi -ksp_cggpu_device_sums 0
    # on a GPU per process, the direction's ghosts sent GPU to GPU with -ksp_cggpu_device_halo,
    # and through MPI on the host by default
    test:
      suffix: cggpu_device_halo_view
      requires: gpu gpu_per_rank
      nsize: {{1 2 3}shared output}
      args: -mat_type mpiellrcuda -vec_type cuda -ksp_type cggpu -pc_type jacobi -ksp_cggpu_device_halo
    test:
      suffix: cggpu_device_halo_off_view
      requires: gpu gpu_per_rank
      nsize: {{1 2 3}shared output}
      args: -mat_type mpiellrcuda -vec_type cuda -ksp_type cggpu -pc_type jacobi

  # cggpu's monitor, the convergence tested every 3 iterations (the norms left out)
  test:
    suffix: cggpu_monitor
    args: -n 45 -dll_append ${LIB} -mat_type diacuda -ksp_type cggpu -pc_type jacobi -ksp_monitor -ksp_cggpu_check_every 3
    filter: sed -E "s/(KSP Residual norm) .*$/\\1/"
  # the reason, against PETSc's bicg
  testset:
    args: -n 45 -pc_type none -ksp_converged_reason
    output_file: output/laplace_bicggpu_reason.out
    filter: sed -E "s/^ +(Linear solve)/\\1/" | grep -E "^(Linear solve|iterations|error norm)"
    test:
      suffix: bicggpu_reason_petsc
      args: -ksp_type bicg
    test:
      suffix: bicggpu_reason
      args: -dll_append ${LIB} -mat_type ellrcuda -ksp_type bicggpu

  # the fused solvers' sums over the processes: kept on the GPUs where every process has its own
  # (CUDA IPC mailboxes), else through MPI_Allreduce, -info saying why (one process: the MPI type)
  testset:
    args: -n 45 -dll_append ${LIB} -mat_type mpidiacuda -vec_type cuda -ksp_type cggpu -pc_type none -info :ksp
    filter: grep -o "The sums over .*" | sed -E "s/processes [0-9]+ and [0-9]+ share the GPU .*$/processes I and J share the GPU/" | sort -u
    test:
      suffix: cggpu_device_sums_host
      requires: !gpu
      nsize: {{1 2 3}shared output}
    test:
      suffix: cggpu_device_sums
      requires: gpu gpu_per_rank
      nsize: {{1 2 3}separate output}
    test:
      suffix: cggpu_device_sums_shared_gpu
      requires: gpu !gpu_per_rank
      nsize: {{1 2 3}shared output}
  # the direction's ghosts sent GPU to GPU, with the sums kept there (mpimat's cases compare the
  # iterations): the path -info and -ksp_view report
  test:
    suffix: cggpu_device_halo_help
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -ksp_type cggpu -pc_type jacobi -help
    filter: grep -E "^ *-ksp_cggpu_" | sed -E "s/^( *-[a-z_]+):? <(now )?([^>]*) : (formerly )?([^>]*)>:? /\\1 <\\3 : \\5> /"
  test:
    suffix: cggpu_device_halo_info
    requires: gpu gpu_per_rank
    nsize: {{1 2 3}shared output}
    args: -n 45 -dll_append ${LIB} -mat_type mpidiacuda -vec_type cuda -ksp_type cggpu -pc_type none -ksp_cggpu_device_halo -info :ksp
    filter: grep -o "The direction's ghosts sent GPU to GPU (CUDA IPC): each iteration writes" | sort -u

  # on the GPU, PETSc's VECCUDA is handed over as it is: the products take its device array and
  # write their result there, with no copy through the host an iteration (a host path copies
  # each way every product; on several processes the ghosts still come through the host)
  testset:
    requires: cuda gpu
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -vec_type cuda -ksp_type {{gmres cggpu}shared output} -pc_type jacobi -log_view
    test:
      suffix: petsc_veccuda_no_copies
      filter: sed -nE "s/.*(host to device) [0-9] copies, [^;]*; (device to host) [0-9] copies.*$/\\1 under 10 copies; \\2 under 10 copies/p"
    test:
      suffix: petsc_veccuda_no_copies_mpi
      nsize: {{2 3}shared output}
      filter: sed -nE "s/.*; (device to host) [0-9] copies.*$/\\1 under 10 copies/p"

  # the device products logged as such, and the library's transfers counted
  test:
    suffix: log_view
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -pc_type jacobi -log_view
    filter: sed -nE "s/^(GKMatMult) +([0-9]+) .*$/\\1 \\2/p; s/^(petsc-gpukit transfers) .*(host to device) [1-9][0-9]* copies.*$/\\1: \\2 copies/p" | LC_ALL=C sort
  # PETSc's other log formats are read by programs: the transfers' line follows its table alone
  test:
    suffix: log_view_xml
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -pc_type jacobi -log_view ::ascii_xml
    filter: sed -nE "/petsc-gpukit/p; s/^ *<name>(KSPSolve)<.name>$/an XML element of \\1/p; /<.root>/p" | LC_ALL=C sort -u
  # MatSOR's colours and lists made by the backend (greedycolor, grouprows) where the pattern is
  # symmetric and the lists are of rows; on the host where ELLPACK-R sorts its rows into other slots
  testset:
    args: -n 45 -dll_append ${LIB} -vec_type cuda -pc_type sor -info
    filter: sed -nE "s/^.*MatSOR on the [a-z]+ backend: (multicolor order, [0-9]+ rows in [0-9]+ lists forward and [0-9]+ backward, made [a-z ]+)$/\\1/p" | LC_ALL=C sort -u
    test:
      suffix: sor_lists_backend
      args: -mat_type {{ellrcuda diacuda}shared output}
    test:
      suffix: sor_lists_host
      args: -mat_type ellrcuda -mat_ellrcuda_slice_height 32 -mat_ellrcuda_sort_window 64
  # the formats' -mat_view lines
  testset:
    args: -n 45 -dll_append ${LIB} -mat_view ::ascii_info
    filter: grep -E "^ *(type: |rows=|total: nonzeros|ELLPACK-R|DIA |sliced:|sorted:|columns:|diagonal offsets:)|^matrix type"
    test:
      suffix: view_ellr
      args: -mat_type ellrcuda
    test:
      suffix: view_columns32
      args: -mat_type ellrcuda -mat_ellrcuda_short_columns 0
    test:
      suffix: view_sliced
      args: -mat_type ellrcuda -mat_ellrcuda_slice_height 32
    test:
      suffix: view_sorted
      args: -mat_type ellrcuda -mat_ellrcuda_slice_height 32 -mat_ellrcuda_sort_window 64
    test:
      suffix: view_dia
      args: -mat_type diacuda
  # the library's options in -help, each as "-name <value : default> text (man page)" (PETSc 3.18
  # and 3.26 write the value and the colons differently; the backend's value left out)
  testset:
    args: -n 45 -dll_append ${LIB} -help
    filter: grep -E "^ *-(gpukit|mat_ellrcuda|mat_diacuda)_" | sed -E "s/^( *-[a-z_]+):? <(now )?([^>]*) : (formerly )?([^>]*)>:? /\\1 <\\3 : \\5> /; s/^( *-gpukit_backend <)[^>]*>/\\1...>/"
    test:
      suffix: help
      args: -mat_type ellrcuda
    test:
      suffix: help_backend
      args: -mat_type diacuda

  # errors: clear PETSc errors, never crashes (the message, the line after the error's class)
  testset:
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda
    exit: nonzero
    filter: sed -nE "/PETSC ERROR: -+ Error Message/{n;n;s/^\[0\]PETSC ERROR: //p;q}"
    test:
      suffix: error_cggpu_check_every
      args: -ksp_type cggpu -pc_type jacobi -ksp_cggpu_check_every 0
    test:
      suffix: error_sort_window
      args: -mat_ellrcuda_sort_window -2
    test:
      suffix: error_slice_height
      args: -mat_ellrcuda_slice_height -3
    test:
      suffix: error_fill_option
      args: -mat_ellrcuda_max_fill 0.5
    test:
      suffix: error_unknown_backend
      args: -gpukit_backend bogus
    test:
      suffix: error_ssor_omega
      args: -pc_type ssorgpu -pc_ssorgpu_omega 2
    test:
      suffix: error_ssor_block_natural
      args: -pc_type ssorgpu -pc_ssorgpu_type natural -pc_ssorgpu_block_size 4
    test:
      suffix: error_ssor_block_neumann
      args: -pc_type ssorgpu -pc_ssorgpu_type neumann -pc_ssorgpu_block_size 2
    test:
      suffix: error_ssor_block_size
      args: -pc_type ssorgpu -pc_ssorgpu_block_size 9
    test:
      suffix: error_ssor_block_size_negative
      args: -pc_type ssorgpu -pc_ssorgpu_block_size -1
    test:
      suffix: error_ssor_terms
      args: -pc_type ssorgpu -pc_ssorgpu_type neumann -pc_ssorgpu_neumann_terms -1
  # no GPU, also on a machine with one: hide it (the reason CUDA gives left out); the runner runs
  # a case that hides the GPUs everywhere
  test:
    suffix: error_backend_cuda_no_gpu
    env: CUDA_VISIBLE_DEVICES=
    exit: nonzero
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -gpukit_backend cuda
    filter: sed -nE "s/.*(-gpukit_backend cuda, but no CUDA device can be used): .*\. (Run where .*)/\\1: (why). \\2/p"
  # the natural norm: PETSc's KSPBICG has none (CG's r^H z has no BiCG counterpart), and bicggpu
  # refuses it as bicg does; the PETSc reference is run too, so a release that adds it shows here
  test:
    suffix: error_bicg_natural_petsc
    exit: nonzero
    args: -n 45 -ksp_type bicg -ksp_norm_type natural
    filter: grep -o "KSP bicg does not support norm type NATURAL"
  test:
    suffix: error_bicggpu_natural
    exit: nonzero
    args: -n 45 -dll_append ${LIB} -mat_type ellrcuda -ksp_type bicggpu -pc_type jacobi -ksp_norm_type natural
    filter: grep -o "KSP bicggpu does not support norm type NATURAL"
  # device memory handed to MPI on a GPU: only a CUDA-aware MPI takes it, any other refuses the
  # option clearly (each process says so)
  test:
    suffix: error_cuda_aware_mpi
    requires: gpu !cuda_aware_mpi
    nsize: {{2 3}shared output}
    exit: nonzero
    args: -n 45 -dll_append ${LIB} -mat_type diacuda -ksp_type cggpu -gpukit_cuda_aware_mpi
    filter: grep -Eo -e "-gpukit_cuda_aware_mpi: this MPI cannot take device memory \(.*\); leave the option out" | sed -E "s/\(.*\)/(why)/" | sort -u

TEST*/
