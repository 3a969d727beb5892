static char help[] = "A program that knows nothing of petsc-gpukit (built as PETSc's own programs are,\n\
the library only through -dll_append): it makes one vector of -vec_type, ends PETSc, and says\n\
whether the library -dll_append loaded is still loaded. The library stays loaded once it has\n\
made a CUDA context (the context then ends with the process, not inside PetscFinalize()), and\n\
PETSc unloads it otherwise.\n\n";

#include <petscvec.h>
#include <dlfcn.h>

int main(int argc, char **argv)
{
  Vec       x;
  PetscReal nrm;
  char      lib[PETSC_MAX_PATH_LEN] = "";
  PetscBool given;
  void     *h;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dll_append", lib, sizeof(lib), &given));
  PetscCheck(given && lib[0], PETSC_COMM_WORLD, PETSC_ERR_USER, "Give -dll_append <the library's path>");
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, 100, PETSC_DECIDE));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecNorm(x, NORM_1, &nrm));
  PetscCheck(nrm == 100.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The vector's 1-norm is %g, not 100", (double)nrm);
  PetscCall(VecDestroy(&x));
  PetscCall(PetscFinalize());
  h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
  printf("%s\n", h ? "the library stays loaded after PetscFinalize()" : "PetscFinalize() unloaded the library");
  if (h) dlclose(h);
  return 0;
}

/*TEST

  # a CUDA context made: the library kept
  test:
    suffix: kept
    requires: gpu
    args: -dll_append ${LIB} -vec_type cuda

  # none (the host backend, or no GPU): PETSc's unloading as before
  testset:
    args: -dll_append ${LIB} -vec_type cuda
    output_file: output/unload_unloaded.out
    test:
      suffix: host
      args: -gpukit_backend host
    test:
      suffix: nogpu
      requires: !gpu

TEST*/
