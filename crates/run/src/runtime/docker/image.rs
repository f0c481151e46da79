//! What an image is, exactly: its name, id and digest (for provenance).

use bollard::models::ImageInspect;

/// An image as the daemon has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageFacts {
    /// The name it was asked by (`mlb:ngc`).
    pub name: String,
    /// The image id (`sha256:...` of its configuration): containers are
    /// created from this id, so every instance runs exactly this image.
    pub id: String,
    /// The registry digest (`repo@sha256:...`) when the image came from a
    /// registry; otherwise the image id (locally built or imported images).
    pub digest: String,
}

impl ImageFacts {
    /// The facts of image `name` from its inspect answer.
    pub fn from_inspect(name: &str, inspect: &ImageInspect) -> Self {
        let id = inspect.id.clone().unwrap_or_default();
        let digest = inspect.repo_digests.as_ref().and_then(|d| d.first().cloned()).unwrap_or_else(|| id.clone());
        ImageFacts { name: name.to_string(), id, digest }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_is_the_registry_digest_else_the_id() {
        let mut inspect = ImageInspect { id: Some("sha256:abc".into()), ..Default::default() };
        assert_eq!(ImageFacts::from_inspect("x", &inspect).digest, "sha256:abc");
        inspect.repo_digests = Some(vec!["nvcr.io/nvidia/pytorch@sha256:def".into()]);
        let facts = ImageFacts::from_inspect("x", &inspect);
        assert_eq!((facts.id.as_str(), facts.digest.as_str()), ("sha256:abc", "nvcr.io/nvidia/pytorch@sha256:def"));
    }
}
