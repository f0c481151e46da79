//! The link step the libtorch plugin library's `build.rs` (mlb-torch's) runs.
//!
//! tch's `torch-sys` links libtorch with the default `--as-needed`, so a
//! plugin that calls no symbol of `libtorch_cuda` directly drops it from its
//! `NEEDED` entries and CUDA then reports "not available". It also sets no
//! rpath, so a dlopened plugin would need `LD_LIBRARY_PATH`. This helper emits
//! the link arguments that fix both:
//!
//! ```text
//! -Wl,-rpath=<libtorch lib dir>  -Wl,--no-as-needed  [-ltorch_cuda]  -ltorch
//! ```
//!
//! It also strips debug information from `cdylib` targets (the plugin
//! library), which would otherwise be many times larger, and gives the crate
//! the version of that libtorch ([`declare_libtorch_version`]), which its
//! plugins declare in their manifests.
//!
//! [`compile_cpp`] builds the few C++ files of a crate that call libtorch
//! functions tch does not bind, against the same libtorch's headers.
//!
//! `torch-sys` publishes its libtorch directory only to its direct
//! dependents (as `DEP_TCH_LIBTORCH_LIB`), so a crate using this helper must
//! depend on `torch-sys` itself, not only through `tch`.
//!
//! ```ignore
//! // build.rs of a libtorch plugin library (a cdylib)
//! fn main() {
//!     mlb_torch_build::link_plugin();
//! }
//! ```

use std::path::{Path, PathBuf};

/// The `cc` crate [`compile_cpp_with`] configures builds of.
pub use cc;

/// Name of the variable through which `torch-sys` (links = "tch") passes its
/// libtorch library folder to direct dependents.
pub const LIBTORCH_LIB_VAR: &str = "DEP_TCH_LIBTORCH_LIB";

/// Name of the variable through which [`declare_libtorch_version`] gives the
/// crate being built the version of its libtorch: read it with
/// `env!("MLB_LIBTORCH_VERSION")`.
pub const LIBTORCH_VERSION_VAR: &str = "MLB_LIBTORCH_VERSION";

/// The link arguments for a libtorch found in `lib_dir`.
pub fn link_args(lib_dir: &Path) -> Vec<String> {
    let mut args = vec![format!("-Wl,-rpath={}", lib_dir.display()), "-Wl,--no-as-needed".to_string()];
    if lib_dir.join("libtorch_cuda.so").exists() {
        args.push("-ltorch_cuda".to_string());
    }
    if lib_dir.join("libtorch_hip.so").exists() {
        args.push("-ltorch_hip".to_string());
    }
    args.push("-ltorch".to_string());
    args
}

/// The libtorch library folder `torch-sys` found.
///
/// Panics (failing the build with the message) when `torch-sys` is not a
/// direct dependency of the crate being built.
fn libtorch_lib_dir() -> PathBuf {
    println!("cargo:rerun-if-env-changed={LIBTORCH_LIB_VAR}");
    match std::env::var_os(LIBTORCH_LIB_VAR) {
        Some(dir) => PathBuf::from(dir),
        None => panic!("{LIBTORCH_LIB_VAR} is not set: add `torch-sys` as a direct dependency of this crate"),
    }
}

/// The header folder of the libtorch whose libraries are in `lib_dir`: its
/// sibling `include`, in a libtorch archive as in PyTorch's wheel.
pub fn include_dir(lib_dir: &Path) -> PathBuf {
    lib_dir.parent().unwrap_or(lib_dir).join("include")
}

/// Emits the `cargo:rustc-link-arg` lines for the libtorch `torch-sys` found.
///
/// Panics (failing the build with the message) when `torch-sys` is not a
/// direct dependency of the crate being built.
pub fn link_libtorch() {
    for arg in link_args(&libtorch_lib_dir()) {
        println!("cargo:rustc-link-arg={arg}");
    }
}

/// [`link_libtorch`] and [`declare_libtorch_version`], and strips debug
/// information from the crate's `cdylib`: the build script of a libtorch
/// plugin library.
pub fn link_plugin() {
    link_libtorch();
    declare_libtorch_version();
    println!("cargo:rustc-cdylib-link-arg=-Wl,--strip-debug");
}

/// Gives the crate being built the version of the libtorch `torch-sys`
/// found (`2.11.0+cu130`, from the `version.py` of a PyTorch wheel or the
/// `build-version` of a libtorch archive: [`mlb_plugin::libtorch`]) as the
/// variable [`LIBTORCH_VERSION_VAR`]: what its workloads declare as their
/// `LIBTORCH`, so that mlb refuses the library where another libtorch would
/// be loaded. A libtorch whose version cannot be read gives an empty
/// version, said in a build warning: the library then declares none, and
/// mlb loads it unchecked.
///
/// Panics (failing the build with the message) when `torch-sys` is not a
/// direct dependency of the crate being built.
pub fn declare_libtorch_version() {
    let lib_dir = libtorch_lib_dir();
    for file in mlb_plugin::libtorch::version_files(&lib_dir).iter().filter(|f| f.exists()) {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    let version = mlb_plugin::libtorch::version_in(&lib_dir, |file| std::fs::read_to_string(file));
    if version.is_none() {
        println!(
            "cargo:warning=the libtorch in {} says no version (no version.py nor build-version beside it): \
             the plugin declares none, and mlb will not check the libtorch it loads",
            lib_dir.display()
        );
    }
    println!("cargo:rustc-env={LIBTORCH_VERSION_VAR}={}", version.unwrap_or_default());
}

/// Compiles C++ `files` against libtorch's headers into the static library
/// `name`, linked into the crate being built.
///
/// The flags are those `torch-sys` builds its own C++ with: C++17, and the
/// C++11 string ABI unless `LIBTORCH_CXX11_ABI` says `0` (PyTorch's wheels
/// use it since 2.6).
pub fn compile_cpp(name: &str, files: &[&str]) {
    compile_cpp_with(name, files, |_| {});
}

/// [`compile_cpp`] with more settings made by `configure` (include folders,
/// definitions) before the build runs.
pub fn compile_cpp_with(name: &str, files: &[&str], configure: impl FnOnce(&mut cc::Build)) {
    println!("cargo:rerun-if-env-changed=LIBTORCH_CXX11_ABI");
    let abi = std::env::var("LIBTORCH_CXX11_ABI").unwrap_or_else(|_| "1".to_string());
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let include = include_dir(&libtorch_lib_dir());
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .pic(true)
        .std("c++17")
        // As system headers: their own warnings are not the crate's. The
        // second folder is the C++ API's, as PyTorch's extensions add it.
        .flag("-isystem")
        .flag(include.to_string_lossy().as_ref())
        .flag("-isystem")
        .flag(include.join("torch/csrc/api/include").to_string_lossy().as_ref())
        .define("_GLIBCXX_USE_CXX11_ABI", abi.as_str())
        .files(files);
    configure(&mut build);
    build.compile(name);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_is_linked_only_when_the_libtorch_has_it() {
        let dir = std::env::temp_dir().join(format!("mlb-torch-build-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cpu = link_args(&dir);
        assert_eq!(cpu[0], format!("-Wl,-rpath={}", dir.display()));
        assert_eq!(&cpu[1..], ["-Wl,--no-as-needed", "-ltorch"]);
        std::fs::write(dir.join("libtorch_cuda.so"), b"").unwrap();
        let cuda = link_args(&dir);
        assert_eq!(&cuda[1..], ["-Wl,--no-as-needed", "-ltorch_cuda", "-ltorch"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn headers_are_beside_the_libraries() {
        assert_eq!(include_dir(Path::new("/opt/libtorch/lib")), Path::new("/opt/libtorch/include"));
        assert_eq!(
            include_dir(Path::new("venv/site-packages/torch/lib")),
            Path::new("venv/site-packages/torch/include")
        );
    }
}
