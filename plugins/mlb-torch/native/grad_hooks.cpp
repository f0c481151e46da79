// Gradient averaging overlapped with the backward pass, as PyTorch's
// DistributedDataParallel does it: a hook after each parameter's gradient
// accumulation marks the parameter ready; once every parameter of a bucket
// is ready, and every bucket before it has been started, the bucket's
// gradients are flattened and its all-reduce starts (asynchronously) while
// the backward pass goes on. mlb_hooks_finish, called before the optimizer
// step, starts the buckets still waiting (a parameter the loss did not reach
// takes part as zeros), waits for every all-reduce, divides by the group's
// size and copies the means back into the gradients.
//
// Every rank starts the buckets in the same order, which the collectives
// need. A hook never throws into the autograd engine: a failure is kept and
// returned by mlb_hooks_finish.

#include "process_group.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace {

struct Bucket {
    std::vector<size_t> params;
    size_t pending = 0;
    at::Tensor flat;
    c10::intrusive_ptr<c10d::Work> work;
};

// The buckets of one step, shared by the hooks and the handle.
struct State {
    std::mutex mutex;
    c10::intrusive_ptr<c10d::Backend> backend;
    std::chrono::milliseconds timeout;
    int world;
    at::Device device{at::kCPU};
    std::vector<at::Tensor> params;
    std::vector<size_t> bucket_of;
    std::vector<bool> ready;
    std::vector<Bucket> buckets;
    // The first bucket not started.
    size_t next = 0;
    // The first failure of this step, empty when none.
    std::string error;

    // Flattens bucket `b`'s gradients onto the group's device and starts
    // their all-reduce.
    void start(Bucket& b) {
        at::NoGradGuard no_grad;
        std::vector<at::Tensor> flat;
        flat.reserve(b.params.size());
        for (size_t i : b.params) {
            const auto& grad = params[i].grad();
            flat.push_back(grad.defined() ? grad.reshape({-1}) : at::zeros({params[i].numel()}, params[i].options()));
        }
        b.flat = at::cat(flat).to(device);
        std::vector<at::Tensor> tensors{b.flat};
        b.work = backend->allreduce(tensors);
    }

    // Starts every bucket, in order, from `next` up to the first not ready
    // (all of them when `all`).
    void start_ready(bool all) {
        while (next < buckets.size() && (all || buckets[next].pending == 0)) {
            start(buckets[next]);
            ++next;
        }
    }

    // Called by the hook of parameter `i` once its gradient is accumulated.
    void mark_ready(size_t i) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error.empty()) {
            return;
        }
        if (ready[i]) {
            error = "the gradient of parameter " + std::to_string(i) +
                    " was accumulated twice before the gradients were averaged";
            return;
        }
        ready[i] = true;
        --buckets[bucket_of[i]].pending;
        try {
            start_ready(false);
        } catch (...) {
            error = mlb::message("starting a bucket", std::current_exception());
        }
    }

    // Waits for every bucket and writes the means into the gradients.
    void finish() {
        if (!error.empty()) {
            throw std::runtime_error(error);
        }
        start_ready(true);
        at::NoGradGuard no_grad;
        for (auto& b : buckets) {
            mlb::wait(b.work, timeout);
            b.flat.div_(world);
            std::vector<int64_t> sizes;
            for (size_t i : b.params) {
                sizes.push_back(params[i].numel());
            }
            auto parts = b.flat.to(params[b.params[0]].device()).split_with_sizes(sizes);
            for (size_t k = 0; k < b.params.size(); ++k) {
                auto& param = params[b.params[k]];
                if (param.grad().defined()) {
                    param.mutable_grad().copy_(parts[k].view(param.sizes()));
                }
            }
        }
    }

    // Back to the start of a step.
    void reset() {
        std::fill(ready.begin(), ready.end(), false);
        for (auto& b : buckets) {
            b.pending = b.params.size();
            b.flat = at::Tensor();
            b.work.reset();
        }
        next = 0;
        error.clear();
    }
};

class ReadyHook : public torch::autograd::FunctionPostHook {
   public:
    ReadyHook(std::weak_ptr<State> state, size_t index) : state_(std::move(state)), index_(index) {}

    torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                              const torch::autograd::variable_list&) override {
        if (auto state = state_.lock()) {
            state->mark_ready(index_);
        }
        return outputs;
    }

   private:
    std::weak_ptr<State> state_;
    size_t index_;
};

struct Hooks {
    std::shared_ptr<State> state;
    // The accumulators the hooks are on (kept alive: a leaf's accumulator is
    // otherwise made anew for each backward pass) and each hook's key.
    std::vector<std::pair<std::shared_ptr<torch::autograd::Node>, uintptr_t>> accumulators;

    ~Hooks() {
        for (auto& [node, key] : accumulators) {
            node->del_post_hook(key);
        }
    }
};

}  // namespace

// Hooks the `count` parameters `params` of `group`'s rank, in buckets of
// `sizes[0]`, `sizes[1]`, ... consecutive parameters (`buckets` of them),
// started in that order.
extern "C" char* mlb_hooks_new(void* group, const at::Tensor* const* params, size_t count, const size_t* sizes, size_t buckets,
                               void** out) {
    return mlb::guarded("hooking the gradients", [&] {
        const auto& g = *static_cast<mlb::Group*>(group);
        auto state = std::make_shared<State>();
        state->backend = g.backend;
        state->timeout = g.timeout;
        state->world = g.world;
        state->device = g.device;
        size_t next = 0;
        for (size_t b = 0; b < buckets; ++b) {
            Bucket bucket;
            for (size_t k = 0; k < sizes[b]; ++k, ++next) {
                TORCH_CHECK(next < count, "the buckets hold more parameters than the ", count, " given");
                bucket.params.push_back(next);
                state->bucket_of.push_back(b);
            }
            bucket.pending = bucket.params.size();
            state->buckets.push_back(std::move(bucket));
        }
        TORCH_CHECK(next == count, "the buckets hold ", next, " parameters of the ", count, " given");
        auto hooks = std::make_unique<Hooks>();
        hooks->state = state;
        for (size_t i = 0; i < count; ++i) {
            const at::Tensor& param = *params[i];
            TORCH_CHECK(param.requires_grad() && param.is_leaf(), "parameter ", i, " is not a leaf that takes a gradient");
            state->params.push_back(param);
            state->ready.push_back(false);
            auto accumulator = torch::autograd::impl::grad_accumulator(param);
            auto key = accumulator->add_post_hook(std::make_unique<ReadyHook>(state, i));
            hooks->accumulators.emplace_back(std::move(accumulator), key);
        }
        *out = hooks.release();
    });
}

// Waits for this step's all-reduces (starting those not started) and
// replaces each gradient by its mean over the ranks; ready for the next step
// whether it succeeds or not.
extern "C" char* mlb_hooks_finish(void* hooks) {
    auto& state = *static_cast<Hooks*>(hooks)->state;
    std::lock_guard<std::mutex> lock(state.mutex);
    char* error = mlb::guarded("all-reduce", [&] { state.finish(); });
    state.reset();
    return error;
}

// How many buckets of this step have started their all-reduce.
extern "C" size_t mlb_hooks_started(void* hooks) {
    auto& state = *static_cast<Hooks*>(hooks)->state;
    std::lock_guard<std::mutex> lock(state.mutex);
    return state.next;
}

// Removes the hooks and frees them.
extern "C" void mlb_hooks_free(void* hooks) {
    try {
        delete static_cast<Hooks*>(hooks);
    } catch (...) {
    }
}
