//! The Docker daemon and the local test image (this build's `mlb` and spin
//! plugin, imported without any registry by `scripts/build-test-image.sh`).
//! Docker tests FAIL, naming the set-up script, when no daemon answers.

use mlb::runtime::docker::{Docker, ImageFacts};
use mlb::runtime::images::ImageMap;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// The daemon, or a failure naming the set-up script.
pub fn docker() -> Docker {
    Docker::connect().unwrap_or_else(|e| {
        panic!("the Docker tests need a running Docker daemon: run `scripts/setup-docker.sh` as root first.\n{e}")
    })
}

/// The tag of the test image, built (once per test binary, and only when its files changed).
pub fn test_image_tag() -> &'static str {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| {
        let bin_dir = super::spin_plugin().parent().unwrap().to_path_buf();
        let profile = bin_dir.file_name().unwrap().to_string_lossy().into_owned();
        let tag = format!("mlb-test:{profile}");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/build-test-image.sh");
        let out = Command::new(script).arg(&bin_dir).arg(&tag).output().expect("run scripts/build-test-image.sh");
        assert!(out.status.success(), "building the test image failed: {}", String::from_utf8_lossy(&out.stderr));
        tag
    })
}

/// The test image as `docker` has it.
pub fn test_image(docker: &Docker) -> ImageFacts {
    let tag = test_image_tag();
    docker.image(tag, &ImageMap::builtin().build_hint(tag)).unwrap()
}
