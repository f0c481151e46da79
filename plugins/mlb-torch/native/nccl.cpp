// NCCL's process group (ProcessGroupNCCL, in libtorch_cuda), for ranks
// whose model is on a GPU. Compiled with MLB_WITH_NCCL when the build found
// libtorch_cuda, its header and NCCL's and CUDA's headers (build.rs);
// otherwise every function says that this build has no NCCL.
//
// Collectives wait in blocking mode (TORCH_NCCL_BLOCKING_WAIT, unless the
// environment sets it): a timeout or a failed peer throws in the waiting
// rank, which reports it, instead of NCCL's watchdog ending the process.

#include "process_group.h"

#ifdef MLB_WITH_NCCL
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include <cstdlib>
#endif

namespace mlb {

#ifdef MLB_WITH_NCCL

bool nccl_built() {
    return true;
}

void check_nccl_device(int device) {
    int count = c10::cuda::device_count();
    if (count == 0) {
        throw std::runtime_error(
            "NCCL needs a CUDA device and this host has none visible; fix: set the workload's `backend` to "
            "`gloo` (or `auto`), or run it on a GPU");
    }
    if (device < 0 || device >= count) {
        throw std::runtime_error("NCCL was asked for CUDA device " + std::to_string(device) + " of the " +
                                 std::to_string(count) + " visible; fix: run the rank on a visible GPU");
    }
}

c10::intrusive_ptr<c10d::Backend> nccl_backend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                                               std::chrono::milliseconds timeout, int device) {
    check_nccl_device(device);
    setenv("TORCH_NCCL_BLOCKING_WAIT", "1", 0);
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(device));
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world, options);
    nccl->setBoundDeviceId(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device)));
    return nccl;
}

#else

bool nccl_built() {
    return false;
}

void check_nccl_device(int) {
    throw std::runtime_error(
        "this build of mlb's libtorch plugin has no NCCL (its libtorch has no libtorch_cuda, or NCCL's and "
        "CUDA's headers were not found when it was built); fix: set the workload's `backend` to `gloo` (or "
        "`auto`), or rebuild against PyTorch's CUDA wheel");
}

c10::intrusive_ptr<c10d::Backend> nccl_backend(const c10::intrusive_ptr<c10d::Store>&, int, int,
                                               std::chrono::milliseconds, int device) {
    check_nccl_device(device);
    return {};
}

#endif

}  // namespace mlb
