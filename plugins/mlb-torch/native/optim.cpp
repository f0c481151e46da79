// The optimizer's and the clipping's multi-tensor kernels, which tch does
// not bind (it leaves out every operation on lists of tensors that it
// mutates): AdamW as PyTorch's `torch.optim.AdamW(fused=True)` runs it, one
// fused pass over each parameter, and the global gradient norm and its
// clipping as `torch.nn.utils.clip_grad_norm_` computes them with
// `_foreach_norm` and `_foreach_mul_` (the norm also alone, for a
// deterministic run's fingerprint).
//
// The tensors come as arrays of tch's handles (torch::Tensor*), `n` of
// each. Every function returns NULL, or an error message the caller frees
// with mlb_free_error: no C++ exception crosses into Rust.

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <vector>

namespace {
std::vector<at::Tensor> list(at::Tensor* const* handles, int64_t n) {
    std::vector<at::Tensor> tensors;
    tensors.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
        tensors.push_back(*handles[i]);
    }
    return tensors;
}

// The global L2 norm of `tensors` (at least one), in their type: the norms
// of all of them in one `_foreach_norm`, then their norm.
at::Tensor global_norm(const std::vector<at::Tensor>& tensors) {
    return at::linalg_vector_norm(at::stack(at::_foreach_norm(tensors, 2)), 2);
}
}  // namespace

// One AdamW step of `params` from their `grads`: the step counts (float
// scalars, one a parameter) are incremented, then libtorch's fused kernel
// decays each parameter by `lr * weight_decay`, updates the moments
// `exp_avgs` and `exp_avg_sqs` and the parameter, with bias correction, as
// PyTorch's fused AdamW does (no AMSGrad, minimising).
extern "C" char* mlb_fused_adamw_(at::Tensor* const* params, at::Tensor* const* grads, at::Tensor* const* exp_avgs,
                                  at::Tensor* const* exp_avg_sqs, at::Tensor* const* steps, int64_t n, double lr,
                                  double beta1, double beta2, double weight_decay, double eps) {
    try {
        auto counts = list(steps, n);
        at::_foreach_add_(counts, 1);
        at::_fused_adamw_(list(params, n), list(grads, n), list(exp_avgs, n), list(exp_avg_sqs, n), {}, counts, lr,
                          beta1, beta2, weight_decay, eps, false, false);
        return nullptr;
    } catch (const std::exception& e) {
        return strdup(e.what());
    } catch (...) {
        return strdup("unknown C++ exception in fused_adamw_");
    }
}

// Scales `grads` in place so that their global L2 norm is at most
// `max_norm`, without waiting on the device: the norms of all tensors in one
// `_foreach_norm`, their norm, the coefficient `min(1, max_norm / (norm +
// 1e-6))` and one `_foreach_mul_` by it. The global norm is written to
// `*total` (a new handle the caller owns).
extern "C" char* mlb_clip_grad_norm_(at::Tensor* const* grads, int64_t n, double max_norm, at::Tensor** total) {
    try {
        c10::AutoGradMode no_grad(false);
        if (n == 0) {
            *total = new at::Tensor(at::zeros({}));
            return nullptr;
        }
        auto tensors = list(grads, n);
        auto norm = global_norm(tensors);
        auto coef = ((norm + 1e-6).reciprocal() * max_norm).clamp_max(1.0);
        at::_foreach_mul_(tensors, coef);
        *total = new at::Tensor(norm);
        return nullptr;
    } catch (const std::exception& e) {
        return strdup(e.what());
    } catch (...) {
        return strdup("unknown C++ exception in clip_grad_norm_");
    }
}

// The global L2 norm of `grads`, written to `*total` (a new handle the
// caller owns; a zero scalar for none), as mlb_clip_grad_norm_ computes it,
// without scaling anything.
extern "C" char* mlb_grad_norm(at::Tensor* const* grads, int64_t n, at::Tensor** total) {
    try {
        c10::AutoGradMode no_grad(false);
        *total = new at::Tensor(n == 0 ? at::zeros({}) : global_norm(list(grads, n)));
        return nullptr;
    } catch (const std::exception& e) {
        return strdup(e.what());
    } catch (...) {
        return strdup("unknown C++ exception in grad_norm");
    }
}

// Drops the gradient of each of `params` (PyTorch's `zero_grad(set_to_none=True)`):
// the next backward pass then stores its gradient instead of adding it to a
// zeroed one, saving a pass over each gradient twice.
extern "C" char* mlb_clear_grads(at::Tensor* const* params, int64_t n) {
    try {
        for (int64_t i = 0; i < n; ++i) {
            params[i]->mutable_grad().reset();
        }
        return nullptr;
    } catch (const std::exception& e) {
        return strdup(e.what());
    } catch (...) {
        return strdup("unknown C++ exception in clear_grads");
    }
}
