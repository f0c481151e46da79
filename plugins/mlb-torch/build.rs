//! Links libtorch (and libtorch_cuda) with an rpath, so that the plugin
//! library and the crate's tests load the libtorch they were built against,
//! strips debug information from the plugin library, and compiles the C++
//! of what tch does not bind (`native/`): LeakyReLU with a slope, and c10d's
//! process group (against Gloo's headers, which PyTorch's wheels lack:
//! `native/third_party/gloo-headers`).

fn main() {
    mlb_torch_build::link_plugin();
    mlb_torch_build::compile_cpp("mlb_torch_native", &["native/leaky_relu.cpp"]);
    println!("cargo:rerun-if-changed=native/third_party/gloo-headers");
    mlb_torch_build::compile_cpp_with("mlb_torch_dist", &["native/process_group.cpp"], |build| {
        build.flag("-isystem").flag("native/third_party/gloo-headers").define("USE_C10D_GLOO", None);
    });
}
