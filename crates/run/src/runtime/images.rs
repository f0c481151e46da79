//! Which image runs the instances: one image per container kind (the vendor
//! PyTorch stacks ngc, rocm and powerai), from `configs/containers.json`,
//! overridable by a user file; and where mlb lives inside every mlb image.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where mlb images install the `mlb` binary.
pub const IMAGE_MLB: &str = "/opt/mlb/bin/mlb";
/// Where mlb images install the workload plugins (`../lib/mlb/plugins` from
/// the binary, a folder of mlb's default plugin search path).
pub const IMAGE_PLUGIN_DIR: &str = "/opt/mlb/lib/mlb/plugins";

/// The built-in mapping (the repository's `configs/containers.json`).
const BUILTIN: &str = include_str!("../../../../configs/containers.json");

/// A vendor software stack mlb has an image definition for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ContainerKind {
    /// NVIDIA NGC PyTorch on x86_64 (and arm64).
    Ngc,
    /// AMD ROCm PyTorch.
    Rocm,
    /// IBM PowerAI / Open-CE PyTorch on ppc64le with NVIDIA GPUs.
    Powerai,
}

impl ContainerKind {
    /// Every kind, in order.
    pub const ALL: [ContainerKind; 3] = [ContainerKind::Ngc, ContainerKind::Rocm, ContainerKind::Powerai];

    /// The kind's name as written in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ContainerKind::Ngc => "ngc",
            ContainerKind::Rocm => "rocm",
            ContainerKind::Powerai => "powerai",
        }
    }

    /// The kind named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The Dockerfile of this kind, relative to the source tree root.
    pub fn dockerfile(self) -> String {
        format!("containers/{}/Dockerfile", self.name())
    }

    /// The Singularity/Apptainer definition file of this kind, relative to the source tree root.
    pub fn singularity_file(self) -> String {
        format!("Singularity.{}", self.name())
    }
}

impl fmt::Display for ContainerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An image mapping could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ImageMapError {
    /// The file could not be read.
    #[error("cannot read the image mapping {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a JSON object of kind -> image name.
    #[error("{path}: invalid image mapping: {source}; expected a JSON object such as {{\"ngc\": \"mlb:ngc\"}} with keys ngc, rocm, powerai")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The cause, with line and column.
        source: serde_json::Error,
    },
    /// `--docker` alone on a host whose kind is unknown.
    #[error("no container kind was detected for this host: name one (`--docker ngc|rocm|powerai`) or an image (`--docker IMAGE`)")]
    NoKind,
}

/// Image name per container kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageMap {
    images: BTreeMap<ContainerKind, String>,
}

impl ImageMap {
    /// The built-in mapping.
    pub fn builtin() -> Self {
        Self::parse(BUILTIN, Path::new("configs/containers.json")).expect("the built-in image mapping is valid")
    }

    /// The built-in mapping with the entries of the user file `path` over it.
    pub fn with_overrides(path: &Path) -> Result<Self, ImageMapError> {
        let text = mlb_record::reading::read_input(path)
            .map_err(|source| ImageMapError::Read { path: path.into(), source })?;
        let mut map = Self::builtin();
        map.images.extend(Self::parse(&text, path)?.images);
        Ok(map)
    }

    /// Parses a mapping (`path` names it in errors).
    pub fn parse(text: &str, path: &Path) -> Result<Self, ImageMapError> {
        let images = serde_json::from_str(text).map_err(|source| ImageMapError::Parse { path: path.into(), source })?;
        Ok(ImageMap { images })
    }

    /// The image of `kind`, if the mapping has one.
    pub fn image_for(&self, kind: ContainerKind) -> Option<&str> {
        self.images.get(&kind).map(String::as_str)
    }

    /// The kind whose image is `image`, if any.
    pub fn kind_of(&self, image: &str) -> Option<ContainerKind> {
        self.images.iter().find(|(_, i)| i.as_str() == image).map(|(k, _)| *k)
    }

    /// The image for `--docker [KIND|IMAGE]`: nothing picks the detected
    /// kind's image, a kind name picks that kind's image, anything else is an
    /// image name.
    pub fn resolve(&self, arg: Option<&str>, detected: Option<ContainerKind>) -> Result<String, ImageMapError> {
        let kind = match arg {
            Some(name) => match ContainerKind::parse(name) {
                Some(kind) => kind,
                None => return Ok(name.to_string()),
            },
            None => detected.ok_or(ImageMapError::NoKind)?,
        };
        Ok(self.image_for(kind).map_or_else(|| format!("mlb:{kind}"), str::to_string))
    }

    /// How to obtain `image` when the daemon does not have it.
    pub fn build_hint(&self, image: &str) -> String {
        match self.kind_of(image) {
            Some(kind) => format!("build it with `mlb containers build {kind}`"),
            None => format!(
                "build it with `mlb containers build ngc|rocm|powerai --tag {image}`, \
                 `scripts/build-test-image.sh` for the local test image, or `docker pull {image}`"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_names_an_image_per_kind() {
        let map = ImageMap::builtin();
        for kind in ContainerKind::ALL {
            assert_eq!(map.image_for(kind), Some(format!("mlb:{kind}").as_str()));
            assert_eq!(map.kind_of(&format!("mlb:{kind}")), Some(kind));
        }
    }

    #[test]
    fn resolve_kind_image_or_detected() {
        let map = ImageMap::parse(r#"{"ngc": "site/ngc:24.01", "rocm": "site/rocm"}"#, Path::new("m.json")).unwrap();
        assert_eq!(map.resolve(Some("ngc"), None).unwrap(), "site/ngc:24.01");
        assert_eq!(map.resolve(None, Some(ContainerKind::Rocm)).unwrap(), "site/rocm");
        assert_eq!(map.resolve(Some("my/image:1"), Some(ContainerKind::Rocm)).unwrap(), "my/image:1");
        assert_eq!(map.resolve(Some("powerai"), None).unwrap(), "mlb:powerai");
        assert!(matches!(map.resolve(None, None), Err(ImageMapError::NoKind)));
    }

    #[test]
    fn user_file_overrides_builtin_entries() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("images.json");
        std::fs::write(&file, r#"{"rocm": "lab/rocm:6.2"}"#).unwrap();
        let map = ImageMap::with_overrides(&file).unwrap();
        assert_eq!(map.image_for(ContainerKind::Rocm), Some("lab/rocm:6.2"));
        assert_eq!(map.image_for(ContainerKind::Ngc), Some("mlb:ngc"));
    }

    #[test]
    fn bad_files_are_named_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("images.json");
        std::fs::write(&file, "{\"cuda\": \"x\"}").unwrap();
        let msg = ImageMap::with_overrides(&file).unwrap_err().to_string();
        assert!(
            msg.contains("images.json") && msg.contains("unknown variant `cuda`") && msg.contains("ngc, rocm, powerai"),
            "{msg}"
        );
        let missing = ImageMap::with_overrides(&dir.path().join("none.json")).unwrap_err().to_string();
        assert!(missing.contains("none.json"), "{missing}");
    }

    #[test]
    fn hints_name_the_build_command() {
        let map = ImageMap::builtin();
        assert_eq!(map.build_hint("mlb:rocm"), "build it with `mlb containers build rocm`");
        let other = map.build_hint("mlb-test:latest");
        assert!(other.contains("mlb containers build") && other.contains("scripts/build-test-image.sh"), "{other}");
    }

    #[test]
    fn files_per_kind() {
        assert_eq!(ContainerKind::Rocm.dockerfile(), "containers/rocm/Dockerfile");
        assert_eq!(ContainerKind::Powerai.singularity_file(), "Singularity.powerai");
    }

    /// `cargo build --workspace` in an image needs every member's folder:
    /// each Singularity definition copies each top folder the workspace's
    /// `members` name (a Dockerfile copies the whole tree).
    #[test]
    fn every_singularity_definition_copies_every_workspace_member() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap();
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        let members =
            manifest.lines().find_map(|l| l.strip_prefix("members = ")).expect("the workspace's members line");
        let tops: Vec<&str> = members.split('"').skip(1).step_by(2).map(|m| m.split('/').next().unwrap()).collect();
        assert!(tops.contains(&"launcher") && tops.contains(&"crates"), "{tops:?}");
        for kind in ContainerKind::ALL {
            let definition = std::fs::read_to_string(root.join(kind.singularity_file())).unwrap();
            for top in &tops {
                let line = format!("    {top} /src/mlb/{top}");
                assert!(definition.lines().any(|l| l == line), "{} lacks `{line}`", kind.singularity_file());
            }
        }
    }
}
