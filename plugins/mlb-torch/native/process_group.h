// What the files of mlb's c10d shim share: the group a rank has joined,
// the guard that turns C++ exceptions into messages, and the NCCL backend
// (native/nccl.cpp, a stub when the build found no NCCL).

#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

namespace mlb {

// A rank's group: the store it met the others at and the backend whose
// collectives it runs, on tensors of `device` (the CPU for Gloo, the rank's
// GPU for NCCL).
struct Group {
    c10::intrusive_ptr<c10d::Store> store;
    c10::intrusive_ptr<c10d::Backend> backend;
    std::chrono::milliseconds timeout;
    int world;
    at::Device device{at::kCPU};
};

// Waits for `work` at most `timeout`; throws when it fails or times out.
inline void wait(const c10::intrusive_ptr<c10d::Work>& work, std::chrono::milliseconds timeout) {
    if (!work->wait(timeout)) {
        throw std::runtime_error("did not complete within the timeout");
    }
}

// The message of the exception being handled, prefixed by `what` (a
// c10::Error without the C++ backtrace c10 appends to what()).
inline std::string message(const char* what, std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const c10::Error& e) {
        return std::string(what) + ": " + e.what_without_backtrace();
    } catch (const std::exception& e) {
        return std::string(what) + ": " + e.what();
    } catch (...) {
        return std::string(what) + ": unknown C++ exception";
    }
}

// Runs `body`, turning any exception into an allocated message (freed by
// mlb_free_error) prefixed by what was being done; NULL when it succeeded.
template <typename F>
char* guarded(const char* what, F body) {
    try {
        body();
        return nullptr;
    } catch (...) {
        return strdup(message(what, std::current_exception()).c_str());
    }
}

// Whether this build has NCCL (libtorch_cuda and NCCL's headers were found).
bool nccl_built();

// NCCL's process group over `store`, on GPU `device`; throws a message
// naming the fix when this host has no such GPU or the build has no NCCL.
c10::intrusive_ptr<c10d::Backend> nccl_backend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                                               std::chrono::milliseconds timeout, int device);

// Throws unless GPU `device` is visible: asked for before the rendezvous,
// so that a rank without a GPU fails at once instead of at the timeout.
void check_nccl_device(int device);

}  // namespace mlb
