// TF32 for float32 matrix products on CUDA (cuBLAS), which tch does not
// bind: PyTorch's torch.backends.cuda.matmul.allow_tf32. The stress
// workload gemm switches it on for its `tf32` precision and off otherwise.

#include <ATen/Context.h>

extern "C" void mlb_set_allow_tf32(bool allow) {
    at::globalContext().setAllowTF32CuBLAS(allow);
}
