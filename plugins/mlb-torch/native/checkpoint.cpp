// Activation checkpointing, as PyTorch's `torch.utils.checkpoint` (its
// reentrant variant) does: a custom autograd function whose forward pass runs
// a segment of the model without recording a graph, keeping only the
// segment's input, and whose backward pass runs the segment again with the
// graph recorded and back-propagates the incoming gradient through it. The
// activations inside the segment are then freed after the forward pass and
// live again only while the segment's backward pass runs.
//
// The segment is Rust code, called through `run(env, input, output, error,
// error_len)`: it reads the tensor `input` (a torch::Tensor* it takes), writes
// a new torch::Tensor* to `*output`, and returns false with a message in
// `error` (at most error_len bytes, NUL-terminated) when it failed. `drop(env)`
// frees the Rust side once the graph no longer needs the segment.
//
// The backward pass runs after the forward pass's autocast region has ended:
// it runs the segment again under the autocast state (on or off, and the
// dtype, for the CPU and CUDA) the forward pass found, so that the recomputed
// activations are those of the forward pass. The segment must be
// deterministic (gpt's blocks have no dropout): no random state is replayed.
//
// `params` are the tensors the segment reads besides its input (its weights):
// they are inputs of the function, so that the backward pass returns their
// gradients to the engine, which accumulates them into `.grad` (and runs the
// gradient hooks of data parallelism) as without checkpointing.
//
// The forward pass turns the autocast cache off: casts of the weights made
// without a graph must not be reused by the recorded part of the same region.
//
// mlb_checkpoint returns NULL, or an error message the caller frees with
// mlb_free_error: no C++ exception crosses into Rust.

#include <ATen/autocast_mode.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <cstddef>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Run = bool (*)(void* env, at::Tensor* input, at::Tensor** output, char* error, size_t error_len);
using Drop = void (*)(void* env);

// The Rust segment, freed with the graph that holds it.
struct Segment : torch::CustomClassHolder {
    Run run;
    Drop drop;
    void* env;

    Segment(Run run, Drop drop, void* env) : run(run), drop(drop), env(env) {}
    Segment(const Segment&) = delete;
    Segment& operator=(const Segment&) = delete;
    ~Segment() override { drop(env); }

    at::Tensor operator()(const at::Tensor& input) const {
        char error[1024] = {0};
        at::Tensor* output = nullptr;
        if (!run(env, new at::Tensor(input), &output, error, sizeof error)) {
            throw std::runtime_error(std::string("checkpointed segment: ") + error);
        }
        at::Tensor result = *output;
        delete output;
        return result;
    }
};

// The autocast state of the CPU and CUDA.
struct AutocastState {
    bool cpu, cuda;
    at::ScalarType cpu_dtype, cuda_dtype;

    static AutocastState current() {
        return {at::autocast::is_autocast_enabled(at::kCPU), at::autocast::is_autocast_enabled(at::kCUDA),
                at::autocast::get_autocast_dtype(at::kCPU), at::autocast::get_autocast_dtype(at::kCUDA)};
    }

    void set() const {
        at::autocast::set_autocast_enabled(at::kCPU, cpu);
        at::autocast::set_autocast_enabled(at::kCUDA, cuda);
        at::autocast::set_autocast_dtype(at::kCPU, cpu_dtype);
        at::autocast::set_autocast_dtype(at::kCUDA, cuda_dtype);
    }
};

// Puts `state` in force for its lifetime as a nested autocast region, and
// restores the state found on entry when it ends.
class AutocastRegion {
  public:
    explicit AutocastRegion(const AutocastState& state) : found_(AutocastState::current()) {
        state.set();
        at::autocast::increment_nesting();
    }
    AutocastRegion(const AutocastRegion&) = delete;
    AutocastRegion& operator=(const AutocastRegion&) = delete;
    ~AutocastRegion() {
        if (at::autocast::decrement_nesting() == 0) {
            at::autocast::clear_cache();
        }
        found_.set();
    }

  private:
    AutocastState found_;
};

struct Checkpoint : torch::autograd::Function<Checkpoint> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx,
                              const at::Tensor& input,
                              at::TensorList params,
                              const c10::intrusive_ptr<Segment>& segment) {
        torch::autograd::variable_list saved{input};
        saved.insert(saved.end(), params.begin(), params.end());
        ctx->save_for_backward(saved);
        ctx->saved_data["segment"] = c10::IValue::make_capsule(segment);
        auto autocast = AutocastState::current();
        ctx->saved_data["autocast"] = c10::List<bool>({autocast.cpu, autocast.cuda});
        ctx->saved_data["dtypes"] =
            c10::List<int64_t>({static_cast<int64_t>(autocast.cpu_dtype), static_cast<int64_t>(autocast.cuda_dtype)});
        bool cache = at::autocast::is_autocast_cache_enabled();
        at::autocast::set_autocast_cache_enabled(false);
        try {
            at::Tensor output = (*segment)(input);
            at::autocast::set_autocast_cache_enabled(cache);
            return output;
        } catch (...) {
            at::autocast::set_autocast_cache_enabled(cache);
            throw;
        }
    }

    // The gradients of the input and of each parameter (undefined for those
    // that need none), then none for the segment.
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grad_output) {
        auto segment = c10::static_intrusive_pointer_cast<Segment>(ctx->saved_data["segment"].toCapsule());
        auto saved = ctx->get_saved_variables();
        saved[0] = saved[0].detach().requires_grad_(saved[0].requires_grad());
        torch::autograd::variable_list wrt;
        std::vector<size_t> index;
        for (size_t i = 0; i < saved.size(); ++i) {
            if (saved[i].requires_grad()) {
                wrt.push_back(saved[i]);
                index.push_back(i);
            }
        }
        torch::autograd::variable_list grads(saved.size() + 1);
        if (wrt.empty()) {
            return grads;
        }
        auto enabled = ctx->saved_data["autocast"].toBoolList();
        auto dtypes = ctx->saved_data["dtypes"].toIntList();
        AutocastState autocast{enabled.get(0), enabled.get(1), static_cast<at::ScalarType>(dtypes.get(0)),
                               static_cast<at::ScalarType>(dtypes.get(1))};
        at::Tensor output;
        {
            at::AutoGradMode grad(true);
            AutocastRegion region(autocast);
            output = (*segment)(saved[0]);
        }
        auto found = torch::autograd::grad({output}, wrt, grad_output, /*retain_graph=*/false,
                                           /*create_graph=*/false, /*allow_unused=*/true);
        for (size_t j = 0; j < index.size(); ++j) {
            grads[index[j]] = found[j];
        }
        return grads;
    }
};

}  // namespace

extern "C" char* mlb_checkpoint(const at::Tensor* input,
                                const at::Tensor* const* params,
                                size_t param_count,
                                Run run,
                                Drop drop,
                                void* env,
                                at::Tensor** output) {
    // Owned from here on: freed with the graph, or at once on failure.
    auto segment = c10::make_intrusive<Segment>(run, drop, env);
    try {
        std::vector<at::Tensor> list;
        list.reserve(param_count);
        for (size_t i = 0; i < param_count; ++i) {
            list.push_back(*params[i]);
        }
        *output = new at::Tensor(Checkpoint::apply(*input, at::TensorList(list), segment));
        return nullptr;
    } catch (const std::exception& e) {
        return strdup(e.what());
    } catch (...) {
        return strdup("unknown C++ exception in checkpoint");
    }
}
