// Autocast on a device type, as PyTorch's `torch.autocast(device, dtype)`
// context manager does: tch binds only the CUDA switch of older libtorch
// releases, and no way to choose the dtype or to autocast on the CPU.
//
// mlb_autocast_enter turns autocast on for the CPU or CUDA with a dtype
// (bfloat16, or float16 when `half`), and returns the previous state through
// `was_enabled` and `was_dtype`; mlb_autocast_exit restores it and, when the
// outermost region ends, frees the cache of casted weights. The state is
// thread-local in libtorch. Both return NULL, or an error message the caller
// frees with mlb_free_error: no C++ exception crosses into Rust.

#include <ATen/autocast_mode.h>

#include <cstdint>
#include <cstring>
#include <exception>

namespace {
at::DeviceType device_type(bool cuda) {
    return cuda ? at::kCUDA : at::kCPU;
}
}  // namespace

extern "C" char* mlb_autocast_enter(bool cuda, bool half, bool* was_enabled, int8_t* was_dtype) {
    try {
        auto device = device_type(cuda);
        *was_enabled = at::autocast::is_autocast_enabled(device);
        *was_dtype = static_cast<int8_t>(at::autocast::get_autocast_dtype(device));
        at::autocast::set_autocast_enabled(device, true);
        at::autocast::set_autocast_dtype(device, half ? at::kHalf : at::kBFloat16);
        at::autocast::increment_nesting();
        return nullptr;
    } catch (const std::exception& e) {
        return strdup(e.what());
    } catch (...) {
        return strdup("unknown C++ exception in autocast_enter");
    }
}

extern "C" char* mlb_autocast_exit(bool cuda, bool was_enabled, int8_t was_dtype) {
    try {
        auto device = device_type(cuda);
        if (at::autocast::decrement_nesting() == 0) {
            at::autocast::clear_cache();
        }
        at::autocast::set_autocast_enabled(device, was_enabled);
        at::autocast::set_autocast_dtype(device, static_cast<at::ScalarType>(was_dtype));
        return nullptr;
    } catch (const std::exception& e) {
        return strdup(e.what());
    } catch (...) {
        return strdup("unknown C++ exception in autocast_exit");
    }
}
