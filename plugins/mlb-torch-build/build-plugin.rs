//! The build script of every libtorch plugin crate (their `package.build`
//! points here): links libtorch and libtorch_cuda with an rpath,
//! and strips debug information from the plugin.

fn main() {
    mlb_torch_build::link_plugin();
}
