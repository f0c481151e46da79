// In-place LeakyReLU with a chosen slope. tch binds leaky_relu only with its
// default slope (0.01); DCGAN's discriminator needs 0.2, in place, as the
// original's nn.LeakyReLU(0.2, inplace=True).
//
// `self` is tch's tensor handle (a torch::Tensor*). The call goes through
// the dispatcher, autograd included. Returns NULL, or an error message the
// caller frees with mlb_free_error: no C++ exception crosses into Rust.

#include <ATen/core/Tensor.h>
#include <ATen/ops/leaky_relu.h>

#include <cstdlib>
#include <cstring>
#include <exception>

extern "C" char* mlb_leaky_relu_(at::Tensor* self, double negative_slope) {
    try {
        at::leaky_relu_(*self, negative_slope);
        return nullptr;
    } catch (const std::exception& e) {
        return strdup(e.what());
    } catch (...) {
        return strdup("unknown C++ exception in leaky_relu_");
    }
}

extern "C" void mlb_free_error(char* message) {
    free(message);
}
