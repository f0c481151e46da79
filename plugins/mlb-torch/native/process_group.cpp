// c10d's process group for mlb's multi-process data parallel workloads: a
// TCPStore rendezvous (rank 0 hosts it) and a Gloo process group, whose
// collectives run on CPU tensors. tch binds none of c10d.
//
// Every function returns NULL, or an error message the caller frees with
// mlb_free_error: no C++ exception crosses into Rust. Collectives wait at
// most the group's timeout: a peer that died closes its connections and the
// wait fails at once; a peer that hangs fails it when the timeout expires.

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

struct Group {
    c10::intrusive_ptr<c10d::Store> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
    std::chrono::milliseconds timeout;
};

// Runs `body`, turning any exception into an allocated message prefixed by
// what was being done (a c10::Error without its backtrace).
template <typename F>
char* guarded(const char* what, F body) {
    try {
        body();
        return nullptr;
    } catch (const c10::Error& e) {
        // Without the C++ backtrace c10 appends to what().
        return strdup((std::string(what) + ": " + e.what_without_backtrace()).c_str());
    } catch (const std::exception& e) {
        return strdup((std::string(what) + ": " + e.what()).c_str());
    } catch (...) {
        return strdup((std::string(what) + ": unknown C++ exception").c_str());
    }
}

void wait(const Group& g, const c10::intrusive_ptr<c10d::Work>& work) {
    if (!work->wait(g.timeout)) {
        throw std::runtime_error("did not complete within the timeout");
    }
}

}  // namespace

// Joins the group of `world` ranks as `rank`: rank 0 hosts the store on
// `port` of this host (0: any free port), the others connect to
// `host`:`port`. Gloo's transport binds the address `host` resolves to on
// rank 0's node and this node's own name elsewhere; `interface` (may be
// NULL or empty) names a network interface to bind instead.
extern "C" char* mlb_pg_new(const char* host, uint16_t port, int rank, int world, int64_t timeout_ms,
                            const char* interface, void** out) {
    return guarded("joining the process group", [&] {
        auto group = std::make_unique<Group>();
        group->timeout = std::chrono::milliseconds(timeout_ms);
        c10d::TCPStoreOptions options;
        options.port = port;
        options.isServer = rank == 0;
        options.numWorkers = world;
        options.waitWorkers = true;
        options.timeout = group->timeout;
        group->store = c10::make_intrusive<c10d::TCPStore>(host, options);
        auto gloo = c10d::ProcessGroupGloo::Options::create(group->timeout);
        if (interface != nullptr && interface[0] != '\0') {
            gloo->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
        } else {
            gloo->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        }
        group->gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(group->store, rank, world, gloo);
        *out = group.release();
    });
}

// Sums `tensor` across the group, in place.
extern "C" char* mlb_pg_all_reduce_sum(void* group, at::Tensor* tensor) {
    return guarded("all-reduce", [&] {
        auto& g = *static_cast<Group*>(group);
        std::vector<at::Tensor> tensors{*tensor};
        wait(g, g.gloo->allreduce(tensors));
    });
}

// Copies rank `root`'s `tensor` into every rank's, in place.
extern "C" char* mlb_pg_broadcast(void* group, at::Tensor* tensor, int root) {
    return guarded("broadcast", [&] {
        auto& g = *static_cast<Group*>(group);
        std::vector<at::Tensor> tensors{*tensor};
        c10d::BroadcastOptions options;
        options.rootRank = root;
        wait(g, g.gloo->broadcast(tensors, options));
    });
}

// Returns once every rank has called it.
extern "C" char* mlb_pg_barrier(void* group) {
    return guarded("barrier", [&] {
        auto& g = *static_cast<Group*>(group);
        wait(g, g.gloo->barrier());
    });
}

// Leaves the group and frees it.
extern "C" void mlb_pg_free(void* group) {
    try {
        delete static_cast<Group*>(group);
    } catch (...) {
    }
}
