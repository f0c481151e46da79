//! Links libtorch (and libtorch_cuda) with an rpath, so that the crate's
//! tests load the libtorch they were built against, and compiles the C++
//! of the operations tch does not bind (`native/`).

fn main() {
    mlb_torch_build::link_libtorch();
    mlb_torch_build::compile_cpp("mlb_torch_native", &["native/leaky_relu.cpp"]);
}
