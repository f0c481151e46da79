//! Links libtorch (and libtorch_cuda) with an rpath, so that the plugin
//! library and the crate's tests load the libtorch they were built against,
//! gives the crate that libtorch's version (`MLB_LIBTORCH_VERSION`: what
//! every workload's manifest entry declares), strips debug information from
//! the plugin library, and compiles the C++
//! of what tch does not bind (`native/`): LeakyReLU with a slope, autocast
//! on the CPU or CUDA with a chosen dtype, TF32 for cuBLAS matrix products,
//! deterministic algorithms (a deterministic run), activation checkpointing
//! (a custom autograd function calling back into Rust), and c10d's process
//! group (against Gloo's headers, which PyTorch's wheels lack:
//! `native/third_party/gloo-headers`), with NCCL's when the libtorch has it.
//!
//! NCCL (`native/nccl.cpp`) is compiled in when the libtorch has
//! `libtorch_cuda` and `ProcessGroupNCCL.hpp`, and NCCL's and CUDA's headers
//! (with the CUDA compiler's and CCCL's that the runtime's include) are
//! found: in the `nvidia/*/include` folders PyTorch's CUDA wheels install
//! beside `torch/`, else under `CUDA_HOME`, `/usr/local/cuda` or
//! `/usr/include`. No GPU is needed to build it. Otherwise the plugin says,
//! when asked for NCCL, that this build has none.

use std::path::{Path, PathBuf};

fn main() {
    mlb_torch_build::link_plugin();
    let native = [
        "native/leaky_relu.cpp",
        "native/autocast.cpp",
        "native/matmul_precision.cpp",
        "native/checkpoint.cpp",
        "native/optim.cpp",
        "native/deterministic.cpp",
        "native/cross_entropy.cpp",
    ];
    mlb_torch_build::compile_cpp("mlb_torch_native", &native);
    println!("cargo:rerun-if-changed=native/third_party/gloo-headers");
    println!("cargo:rerun-if-changed=native/process_group.h");
    println!("cargo:rerun-if-env-changed=CUDA_HOME");
    let lib_dir = std::env::var_os(mlb_torch_build::LIBTORCH_LIB_VAR).map(PathBuf::from);
    let nccl = lib_dir.as_deref().and_then(nccl_includes);
    if nccl.is_none() {
        println!(
            "cargo:warning=building the process group without NCCL: no libtorch_cuda, or no NCCL and CUDA headers"
        );
    }
    let files = ["native/process_group.cpp", "native/nccl.cpp", "native/grad_hooks.cpp"];
    mlb_torch_build::compile_cpp_with("mlb_torch_dist", &files, |build| {
        build.flag("-isystem").flag("native/third_party/gloo-headers").define("USE_C10D_GLOO", None);
        if let Some(dirs) = &nccl {
            build.define("USE_C10D_NCCL", None).define("MLB_WITH_NCCL", None);
            for dir in dirs {
                build.flag("-isystem").flag(dir.to_string_lossy().as_ref());
            }
        }
    });
    if nccl.is_some() {
        // nccl.cpp calls c10's CUDA functions directly.
        println!("cargo:rustc-link-lib=dylib=c10_cuda");
    }
}

/// The folders holding NCCL's and CUDA's headers for the libtorch whose
/// libraries are in `lib_dir`, when that libtorch has NCCL and both headers
/// are found; `None` otherwise.
fn nccl_includes(lib_dir: &Path) -> Option<Vec<PathBuf>> {
    let header = mlb_torch_build::include_dir(lib_dir).join("torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp");
    if !lib_dir.join("libtorch_cuda.so").exists() || !header.exists() {
        return None;
    }
    // A wheel's torch/lib: site-packages/nvidia/<package>/include.
    let wheels = lib_dir.parent().and_then(Path::parent).map(|site| site.join("nvidia"));
    let mut dirs: Vec<PathBuf> = wheels
        .and_then(|nvidia| std::fs::read_dir(nvidia).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("include"))
        .filter(|dir| dir.is_dir())
        .collect();
    dirs.sort();
    let cuda_home = std::env::var_os("CUDA_HOME").map(PathBuf::from);
    dirs.extend(cuda_home.into_iter().chain([PathBuf::from("/usr/local/cuda")]).map(|home| home.join("include")));
    dirs.retain(|dir| dir.is_dir());
    let found = |file: &str| dirs.iter().chain([&PathBuf::from("/usr/include")]).any(|dir| dir.join(file).exists());
    // The runtime's headers include the compiler's (`crt/`) and CCCL's
    // (`nv/target`), which PyTorch's wheels leave out (`scripts/torch-env.sh`
    // installs them).
    ["nccl.h", "cuda_runtime.h", "crt/host_config.h", "nv/target"].into_iter().all(found).then_some(dirs)
}
