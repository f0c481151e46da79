//! Where target tables are looked for besides the shipped ones: the user's
//! folder (`$XDG_CONFIG_HOME/mlb/targets`, by default
//! `~/.config/mlb/targets`) and the installation's
//! (`<prefix>/share/mlb/targets`, found from the binary at
//! `<prefix>/bin/mlb`).

use std::path::{Path, PathBuf};

/// The target folders, in lookup order after the shipped tables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folders {
    /// The user's folder; `None` when neither `XDG_CONFIG_HOME` nor `HOME` is set.
    pub user: Option<PathBuf>,
    /// The installation's folder; `None` when the binary's path is unknown.
    pub installation: Option<PathBuf>,
}

impl Folders {
    /// The folders of this user and this binary.
    pub fn from_env() -> Folders {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let exe = std::env::current_exe().ok();
        Folders::of(var("XDG_CONFIG_HOME"), var("HOME"), exe.as_deref())
    }

    /// The folders given `XDG_CONFIG_HOME`, `HOME` and the binary's path.
    /// An `XDG_CONFIG_HOME` that is not absolute is ignored, as the XDG
    /// base directory specification says.
    pub fn of(xdg_config_home: Option<PathBuf>, home: Option<PathBuf>, exe: Option<&Path>) -> Folders {
        let config = xdg_config_home.filter(|p| p.is_absolute()).or_else(|| home.map(|h| h.join(".config")));
        let prefix = exe.and_then(Path::parent).and_then(Path::parent);
        Folders {
            user: config.map(|c| c.join("mlb").join("targets")),
            installation: prefix.map(|p| p.join("share").join("mlb").join("targets")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xdg_first_then_home_and_the_prefix_of_the_binary() {
        let f = Folders::of(Some("/x".into()), Some("/h".into()), Some(Path::new("/opt/mlb/bin/mlb")));
        assert_eq!(f.user.as_deref(), Some(Path::new("/x/mlb/targets")));
        assert_eq!(f.installation.as_deref(), Some(Path::new("/opt/mlb/share/mlb/targets")));
        let f = Folders::of(Some("relative".into()), Some("/h".into()), None);
        assert_eq!(f.user.as_deref(), Some(Path::new("/h/.config/mlb/targets")));
        assert_eq!(f.installation, None);
        assert_eq!(Folders::of(None, None, None), Folders::default());
    }
}
