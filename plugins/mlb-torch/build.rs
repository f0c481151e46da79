//! Links libtorch (and libtorch_cuda) with an rpath, so that the crate's
//! tests load the libtorch they were built against.

fn main() {
    mlb_torch_build::link_libtorch();
}
