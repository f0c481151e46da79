// The mean cross entropy of logits against class indices, with its gradient
// computed in the forward pass: PyTorch's `F.cross_entropy(logits.float(),
// targets)` takes a log-softmax forward and, backward, fills a zeroed
// gradient, scatters into it and runs the log-softmax backward, a fresh
// buffer of the logits' size each. Here the forward takes the log-softmax,
// reads the loss off it and turns that same buffer, in place, into the
// gradient (softmax minus one-hot); the backward scales it by the incoming
// gradient over the rows, in place. On 1,024 x 8,192 float32 logits on one
// CPU: 53 ms against 24 ms (docs/workloads.md, "gpt").
//
// `logits` and `targets` are tch's handles (torch::Tensor*); the loss comes
// back as a new handle the caller owns. Returns NULL, or an error message
// the caller frees with mlb_free_error: no C++ exception crosses into Rust.

#include <torch/autograd.h>

#include <cstring>
#include <exception>

namespace {

struct CrossEntropy : torch::autograd::Function<CrossEntropy> {
    // The mean over the rows of `-log_softmax(logits)[row, target]`, in
    // float32; the gradient, `softmax - one_hot`, is kept for the backward
    // pass in the logits' type (float16's in float32).
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& logits,
                              const at::Tensor& targets) {
        TORCH_CHECK(logits.dim() == 2, "cross_entropy: logits of [rows, classes], not ", logits.sizes());
        TORCH_CHECK(targets.dim() == 1 && targets.size(0) == logits.size(0),
                    "cross_entropy: one target a row of the logits, not ", targets.sizes());
        auto rows = logits.size(0);
        auto index = targets.unsqueeze(1);
        auto grad = at::_log_softmax(logits.to(at::kFloat), 1, false);
        auto picked = grad.gather(1, index);
        auto loss = picked.sum().neg_().div_(static_cast<double>(rows));
        if (!logits.requires_grad()) {
            return loss;
        }
        grad.exp_();
        grad.scatter_(1, index, picked.exp_().sub_(1.0));
        // float16's range would flush the smallest probabilities before a
        // loss scale lifts them: kept in float32 until scaled.
        auto type = logits.scalar_type();
        ctx->saved_data["grad"] = type == at::kHalf ? grad : grad.to(type);
        ctx->saved_data["type"] = type;
        return loss;
    }

    // The kept gradient times `grad_output[0] / rows`, in place, in its type
    // (for bfloat16, rounded twice: exact when the rows are a power of two,
    // as a batch of sequences usually is; float16's is scaled in float32,
    // then rounded once). The graph cannot be run backward twice: a second
    // run fails, naming this.
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grad_output) {
        auto kept = ctx->saved_data["grad"];
        TORCH_CHECK(kept.isTensor(), "cross_entropy: its backward pass runs once (retain_graph is not supported)");
        auto grad = kept.toTensor();
        ctx->saved_data["grad"] = c10::IValue();
        grad.mul_(grad_output[0].div(static_cast<double>(grad.size(0))));
        return {grad.to(ctx->saved_data["type"].toScalarType()), at::Tensor()};
    }
};

}  // namespace

extern "C" char* mlb_cross_entropy(const at::Tensor* logits, const at::Tensor* targets, at::Tensor** loss) {
    try {
        *loss = new at::Tensor(CrossEntropy::apply(*logits, *targets));
        return nullptr;
    } catch (const std::exception& e) {
        return strdup(e.what());
    } catch (...) {
        return strdup("unknown C++ exception in cross_entropy");
    }
}
