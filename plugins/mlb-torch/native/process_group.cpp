// c10d's process group for mlb's multi-process data parallel workloads: a
// TCPStore rendezvous (rank 0 hosts it) and a Gloo process group, whose
// collectives run on CPU tensors, or an NCCL one (native/nccl.cpp), whose
// collectives run on the rank's GPU. tch binds none of c10d.
//
// Every function returns NULL, or an error message the caller frees with
// mlb_free_error: no C++ exception crosses into Rust. Collectives wait at
// most the group's timeout: a peer that died closes its connections and the
// wait fails at once; a peer that hangs fails it when the timeout expires.

#include "process_group.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdint>
#include <vector>

using mlb::Group;
using mlb::guarded;

// Whether this build has NCCL: 1 or 0.
extern "C" int mlb_pg_has_nccl() {
    return mlb::nccl_built() ? 1 : 0;
}

// Joins the group of `world` ranks as `rank`: rank 0 hosts the store on
// `port` of this host (0: any free port), the others connect to
// `host`:`port`. With `nccl_device` -1 the backend is Gloo: its transport
// binds the address `host` resolves to on rank 0's node and this node's own
// name elsewhere; `interface` (may be NULL or empty) names a network
// interface to bind instead. Otherwise it is NCCL on that CUDA device,
// checked before the rendezvous.
extern "C" char* mlb_pg_new(const char* host, uint16_t port, int rank, int world, int64_t timeout_ms,
                            const char* interface, int nccl_device, void** out) {
    return guarded("joining the process group", [&] {
        if (nccl_device >= 0) {
            mlb::check_nccl_device(nccl_device);
        }
        auto group = std::make_unique<Group>();
        group->timeout = std::chrono::milliseconds(timeout_ms);
        group->world = world;
        c10d::TCPStoreOptions options;
        options.port = port;
        options.isServer = rank == 0;
        options.numWorkers = world;
        options.waitWorkers = true;
        options.timeout = group->timeout;
        group->store = c10::make_intrusive<c10d::TCPStore>(host, options);
        if (nccl_device >= 0) {
            group->backend = mlb::nccl_backend(group->store, rank, world, group->timeout, nccl_device);
            group->device = at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(nccl_device));
        } else {
            auto gloo = c10d::ProcessGroupGloo::Options::create(group->timeout);
            if (interface != nullptr && interface[0] != '\0') {
                gloo->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
            } else {
                gloo->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
            }
            group->backend = c10::make_intrusive<c10d::ProcessGroupGloo>(group->store, rank, world, gloo);
        }
        *out = group.release();
    });
}

// Sums `tensor` across the group, in place.
extern "C" char* mlb_pg_all_reduce_sum(void* group, at::Tensor* tensor) {
    return guarded("all-reduce", [&] {
        auto& g = *static_cast<Group*>(group);
        std::vector<at::Tensor> tensors{*tensor};
        mlb::wait(g.backend->allreduce(tensors), g.timeout);
    });
}

// Copies rank `root`'s `tensor` into every rank's, in place.
extern "C" char* mlb_pg_broadcast(void* group, at::Tensor* tensor, int root) {
    return guarded("broadcast", [&] {
        auto& g = *static_cast<Group*>(group);
        std::vector<at::Tensor> tensors{*tensor};
        c10d::BroadcastOptions options;
        options.rootRank = root;
        mlb::wait(g.backend->broadcast(tensors, options), g.timeout);
    });
}

// Returns once every rank has called it.
extern "C" char* mlb_pg_barrier(void* group) {
    return guarded("barrier", [&] {
        auto& g = *static_cast<Group*>(group);
        mlb::wait(g.backend->barrier(), g.timeout);
    });
}

// Leaves the group and frees it.
extern "C" void mlb_pg_free(void* group) {
    try {
        delete static_cast<Group*>(group);
    } catch (...) {
    }
}
