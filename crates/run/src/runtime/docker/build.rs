//! `mlb containers build KIND`: packs the source tree as a build context and
//! has the daemon build `containers/<kind>/Dockerfile` from it.

use super::client::Docker;
use super::error::DockerError;
use super::image::ImageFacts;
use crate::runtime::images::ContainerKind;
use bollard::query_parameters::BuildImageOptionsBuilder;
use futures_util::StreamExt;
use std::path::{Path, PathBuf};

/// The parts of the source tree an image build needs (sources, lock file,
/// configs, image definitions); nothing else is sent to the daemon.
pub const CONTEXT_ENTRIES: &[&str] =
    &["Cargo.toml", "Cargo.lock", "rustfmt.toml", "launcher", "plugins", "configs", "containers"];

/// One image to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildRequest {
    /// Which Dockerfile.
    pub kind: ContainerKind,
    /// The root of mlb's source tree (holds `Cargo.toml` and `containers/`).
    pub source: PathBuf,
    /// The image name to tag the result with.
    pub tag: String,
}

impl BuildRequest {
    /// The source tree holding `start`: the nearest ancestor (itself included)
    /// with a `Cargo.toml` and a `containers/` folder.
    pub fn find_source(start: &Path) -> Option<PathBuf> {
        start
            .ancestors()
            .find(|d| d.join("Cargo.toml").is_file() && d.join("containers").is_dir())
            .map(Path::to_path_buf)
    }
}

/// The build context of `source` as a tar archive: the [`CONTEXT_ENTRIES`]
/// that exist, without `target/` folders and hidden files, in a fixed order.
pub fn build_context(source: &Path) -> Result<Vec<u8>, DockerError> {
    let mut tar = tar::Builder::new(Vec::new());
    tar.mode(tar::HeaderMode::Deterministic);
    for entry in CONTEXT_ENTRIES {
        let path = source.join(entry);
        if path.exists() {
            append(&mut tar, &path, Path::new(entry))?;
        }
    }
    tar.into_inner().map_err(|source_err| DockerError::Context { path: source.into(), source: source_err })
}

fn append(tar: &mut tar::Builder<Vec<u8>>, path: &Path, name: &Path) -> Result<(), DockerError> {
    let err = |source| DockerError::Context { path: path.into(), source };
    if path.is_dir() {
        let mut children: Vec<_> = std::fs::read_dir(path).map_err(err)?.collect::<Result<_, _>>().map_err(err)?;
        children.sort_by_key(|c| c.file_name());
        for child in children {
            let file_name = child.file_name();
            if file_name == "target" || file_name.to_string_lossy().starts_with('.') {
                continue;
            }
            append(tar, &child.path(), &name.join(&file_name))?;
        }
        Ok(())
    } else {
        tar.append_path_with_name(path, name).map_err(err)
    }
}

impl Docker {
    /// Builds the image of `request`, calling `on_progress` with each line
    /// the builder prints, and returns the image built.
    pub fn build(&self, request: &BuildRequest, on_progress: &mut dyn FnMut(&str)) -> Result<ImageFacts, DockerError> {
        let context = build_context(&request.source)?;
        let tag = request.tag.as_str();
        let options = BuildImageOptionsBuilder::default()
            .dockerfile(&request.kind.dockerfile())
            .t(tag)
            .rm(true)
            .forcerm(true)
            .build();
        self.block_on(async {
            let mut stream = self.client.build_image(options, None, Some(bollard::body_full(context.into())));
            while let Some(info) = stream.next().await {
                let info = info.map_err(|e| match e {
                    bollard::errors::Error::DockerStreamError { error } => {
                        DockerError::Build { tag: tag.into(), message: error }
                    }
                    e => DockerError::api(format!("build image `{tag}`"), e),
                })?;
                if let Some(message) = info.error_detail.and_then(|d| d.message) {
                    return Err(DockerError::Build { tag: tag.into(), message });
                }
                for text in [info.stream, info.status].into_iter().flatten() {
                    for line in text.lines().filter(|l| !l.trim().is_empty()) {
                        on_progress(line);
                    }
                }
            }
            Ok(())
        })?;
        self.image(tag, "the build finished but the image is not there")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(tar: &[u8]) -> Vec<String> {
        let mut archive = tar::Archive::new(tar);
        archive.entries().unwrap().map(|e| e.unwrap().path().unwrap().display().to_string()).collect()
    }

    #[test]
    fn context_holds_the_dockerfiles_and_sources_not_build_outputs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap();
        assert_eq!(BuildRequest::find_source(&root.join("launcher/src")).as_deref(), Some(root));
        let files = names(&build_context(root).unwrap());
        for kind in ContainerKind::ALL {
            assert!(files.contains(&kind.dockerfile()), "{} missing from {files:?}", kind.dockerfile());
        }
        for needed in
            ["Cargo.toml", "Cargo.lock", "launcher/src/main.rs", "plugins/spin/src/lib.rs", "configs/containers.json"]
        {
            assert!(files.iter().any(|f| f == needed), "{needed} missing");
        }
        assert!(!files.iter().any(|f| f.split('/').any(|part| part == "target" || part.starts_with('.'))));
    }

    #[test]
    fn context_of_a_fixture_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (file, text) in [
            ("Cargo.toml", "[workspace]"),
            ("containers/rocm/Dockerfile", "FROM rocm/pytorch"),
            ("launcher/src/lib.rs", ""),
            ("launcher/target/debug/mlb", "binary"),
            (".git/HEAD", "ref"),
            ("secrets.txt", "not part of the context"),
        ] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), text).unwrap();
        }
        assert_eq!(
            names(&build_context(root).unwrap()),
            ["Cargo.toml", "launcher/src/lib.rs", "containers/rocm/Dockerfile"]
        );
        assert_eq!(BuildRequest::find_source(&root.join("launcher/src")).as_deref(), Some(root));
    }
}
