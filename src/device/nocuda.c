/*
   The CUDA backend's table in a library built without the CUDA toolkit (make CUDA=no, or no
   toolkit under CUDA_DIR): it finds no device and says why, so that the host backend runs.
*/
#include "device/device.h"

static PetscErrorCode GKNoCUDAGetDeviceCount(int *count, char *why, size_t len)
{
  PetscFunctionBegin;
  *count = 0;
  PetscCall(PetscStrncpy(why,
                         "this library was built without the CUDA toolkit (make CUDA=no, or none under CUDA_DIR); rebuild it with one for the GPU",
                         len));
  PetscFunctionReturn(0);
}

const GKBackendOps GKBackendCUDA = {
  .name           = "cuda",
  .getdevicecount = GKNoCUDAGetDeviceCount,
};
