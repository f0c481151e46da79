// Deterministic algorithms, which tch does not bind: PyTorch's
// torch.use_deterministic_algorithms(True) (an operation without a
// deterministic implementation then fails instead of running a
// nondeterministic one) and torch.backends.cudnn.deterministic = True with
// torch.backends.cudnn.benchmark = False (cuDNN, and MIOpen on ROCm, pick
// the same deterministic algorithm every time instead of timing candidates).
//
// Returns NULL, or an error message the caller frees with mlb_free_error:
// no C++ exception crosses into Rust.

#include <ATen/Context.h>

#include <cstring>
#include <exception>

extern "C" char* mlb_set_deterministic() {
    try {
        auto& context = at::globalContext();
        context.setDeterministicAlgorithms(true, /*warn_only=*/false);
        context.setDeterministicCuDNN(true);
        context.setBenchmarkCuDNN(false);
        return nullptr;
    } catch (const std::exception& e) {
        return strdup(e.what());
    } catch (...) {
        return strdup("unknown C++ exception in set_deterministic");
    }
}
