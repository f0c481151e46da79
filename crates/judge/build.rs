//! The crate's build script: vendors the charting library named in
//! `src/charts/library.pin` into the binary (docs/charts.md): its npm
//! tarball is taken from `$MLB_ECHARTS_TARBALL` (the offline build) or
//! from a cache outside the repository (`$MLB_CACHE/npm`, else
//! `~/.cache/mlb/npm`), where `npm pack` (or, without npm, `curl` from the
//! registry's tarball URL) puts it on the first build; its sha512 must
//! match the pinned integrity.
//! The minified script and its licence are written to `OUT_DIR` as one
//! inline script (the licence in a leading comment), with the
//! Content-Security-Policy hashes of that script and of `src/charts/boot.js`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use sha2::{Digest, Sha256, Sha512};
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

const PIN: &str = "src/charts/library.pin";
const BOOT: &str = "src/charts/boot.js";
/// Names a local copy of the pinned tarball: no npm, no network.
const TARBALL_VAR: &str = "MLB_ECHARTS_TARBALL";

/// The pinned package: npm name, version and `sha512-<base64>` integrity.
struct Pin {
    name: String,
    version: String,
    integrity: String,
}

impl Pin {
    fn read() -> Result<Pin, String> {
        let text = std::fs::read_to_string(PIN).map_err(|e| format!("{PIN}: {e}"))?;
        let line = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#'));
        let fields: Vec<&str> = line.map(|l| l.split_whitespace().collect()).unwrap_or_default();
        match fields[..] {
            [name, version, integrity] if integrity.starts_with("sha512-") => {
                Ok(Pin { name: name.into(), version: version.into(), integrity: integrity.into() })
            }
            _ => Err(format!("{PIN}: expected one line `NAME VERSION sha512-BASE64`")),
        }
    }

    fn file_name(&self) -> String {
        format!("{}-{}.tgz", self.name, self.version)
    }

    fn url(&self) -> String {
        format!("https://registry.npmjs.org/{0}/-/{0}-{1}.tgz", self.name, self.version)
    }

    /// Whether `bytes` are the pinned tarball.
    fn matches(&self, bytes: &[u8]) -> bool {
        format!("sha512-{}", STANDARD.encode(Sha512::digest(bytes))) == self.integrity
    }
}

fn main() {
    println!("cargo::rerun-if-changed={PIN}");
    println!("cargo::rerun-if-changed={BOOT}");
    println!("cargo::rerun-if-changed=build.rs");
    for var in [TARBALL_VAR, "MLB_CACHE", "HOME"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    if let Err(e) = vendor() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn vendor() -> Result<(), String> {
    let pin = Pin::read()?;
    let tarball = tarball(&pin)?;
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set (run through cargo)")?);
    let files = unpack(&pin, &tarball)?;
    let script = inline_script(&pin, &files)?;
    let boot = std::fs::read_to_string(BOOT).map_err(|e| format!("{BOOT}: {e}"))?;
    let hashes = format!("'{}' '{}'", csp_hash(&script), csp_hash(&boot));
    write(&out.join("library.js"), &script)?;
    write(&out.join("library.csp"), &hashes)?;
    write(&out.join("library.version"), &format!("{} {}", pin.name, pin.version))?;
    write(&out.join("library.license"), &files.license)
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The pinned tarball's bytes: from `$MLB_ECHARTS_TARBALL`, else the cache,
/// else fetched into the cache with `npm pack`.
fn tarball(pin: &Pin) -> Result<Vec<u8>, String> {
    if let Some(path) = std::env::var_os(TARBALL_VAR).map(PathBuf::from) {
        let bytes = std::fs::read(&path).map_err(|e| format!("{TARBALL_VAR}={}: {e}", path.display()))?;
        return if pin.matches(&bytes) {
            Ok(bytes)
        } else {
            Err(format!(
                "{TARBALL_VAR}={} is not {} (its sha512 is not {}): download {} again",
                path.display(),
                pin.file_name(),
                pin.integrity,
                pin.url()
            ))
        };
    }
    let dir = cache_dir()?.join("npm");
    let cached = dir.join(pin.file_name());
    if let Ok(bytes) = std::fs::read(&cached) {
        if pin.matches(&bytes) {
            return Ok(bytes);
        }
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let staging = dir.join(format!(".pack-{}", std::process::id()));
    std::fs::create_dir_all(&staging).map_err(|e| format!("{}: {e}", staging.display()))?;
    let fetched = fetch(pin, &staging);
    let result = fetched.and_then(|bytes| {
        std::fs::rename(staging.join(pin.file_name()), &cached).map_err(|e| format!("{}: {e}", cached.display()))?;
        Ok(bytes)
    });
    let _ = std::fs::remove_dir_all(&staging);
    result
}

/// `$MLB_CACHE`, else `~/.cache/mlb`.
fn cache_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("MLB_CACHE").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).ok_or_else(|| {
        format!("neither MLB_CACHE nor HOME is set: set MLB_CACHE to a folder for the {TARBALL_VAR} download cache")
    })?;
    Ok(PathBuf::from(home).join(".cache/mlb"))
}

/// Fetches the tarball into `dir` with `npm pack`, else (no npm) with
/// `curl` from the registry's URL, and checks it.
fn fetch(pin: &Pin, dir: &Path) -> Result<Vec<u8>, String> {
    let spec = format!("{}@{}", pin.name, pin.version);
    let npm = Command::new("npm").args(["pack", &spec, "--silent", "--pack-destination"]).arg(dir).output();
    let output = match npm {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut curl = Command::new("curl");
            curl.args(["-fsSL", "--retry", "2", "-o"]).arg(dir.join(pin.file_name())).arg(pin.url());
            match curl.output() {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(format!(
                        "npm (or curl) is needed once to fetch the charting library {} {}, vendored into mlb at \
                         build time: install npm (Debian: apt-get install npm), or download {} and set \
                         {TARBALL_VAR} to its path (docs/charts.md)",
                        pin.name,
                        pin.version,
                        pin.url()
                    ));
                }
                other => other.map_err(|e| format!("curl: {e}"))?,
            }
        }
        other => other.map_err(|e| format!("npm: {e}"))?,
    };
    if !output.status.success() {
        return Err(format!(
            "fetching {spec} failed ({}): {}\nwithout the npm registry, download {} elsewhere and set {TARBALL_VAR} \
             to its path (docs/charts.md)",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim(),
            pin.url()
        ));
    }
    let path = dir.join(pin.file_name());
    let bytes = std::fs::read(&path).map_err(|e| format!("{spec} was not written to {}: {e}", path.display()))?;
    if !pin.matches(&bytes) {
        return Err(format!(
            "the registry's {} does not match the pinned integrity {}",
            pin.file_name(),
            pin.integrity
        ));
    }
    Ok(bytes)
}

/// What the build takes from the tarball.
struct Files {
    /// The minified browser bundle.
    script: String,
    /// The licence, its NOTICE and the licences of code it includes.
    license: String,
}

fn unpack(pin: &Pin, tarball: &[u8]) -> Result<Files, String> {
    let bundle = format!("package/dist/{}.min.js", pin.name);
    let notices = ["package/LICENSE", "package/NOTICE"];
    let mut script = None;
    let mut parts: Vec<(String, String)> = Vec::new();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(tarball));
    let bad = |e: std::io::Error| format!("{}: {e}", pin.file_name());
    for entry in archive.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        let path = entry.path().map_err(bad)?.to_string_lossy().into_owned();
        let wanted = path == bundle || notices.contains(&path.as_str()) || path.starts_with("package/licenses/");
        if !wanted {
            continue;
        }
        let mut text = String::new();
        entry.read_to_string(&mut text).map_err(bad)?;
        if path == bundle {
            script = Some(text);
        } else {
            parts.push((path, text));
        }
    }
    let script = script.ok_or_else(|| format!("{} holds no {bundle}", pin.file_name()))?;
    // LICENSE, NOTICE, then the licences of included code, by name.
    parts.sort_by_key(|(path, _)| (notices.iter().position(|n| n == path).unwrap_or(notices.len()), path.clone()));
    let mut license = String::new();
    for (path, text) in &parts {
        let _ = write!(license, "==> {} <==\n{}\n", path.trim_start_matches("package/"), text.trim_end());
    }
    Ok(Files { script, license })
}

/// The library as the page inlines it: the licence in a leading comment,
/// then the bundle.
fn inline_script(pin: &Pin, files: &Files) -> Result<String, String> {
    if files.license.contains("*/") {
        return Err(format!("the licence of {} holds `*/`: it cannot go in a comment", pin.file_name()));
    }
    if files.script.to_ascii_lowercase().contains("</script") {
        return Err(format!("the bundle of {} holds `</script`: it cannot be inlined", pin.file_name()));
    }
    Ok(format!("/*! {} {}\n{}*/\n{}", pin.name, pin.version, files.license, files.script.trim_end()))
}

/// A Content-Security-Policy source for an inline script.
fn csp_hash(script: &str) -> String {
    format!("sha256-{}", STANDARD.encode(Sha256::digest(script.as_bytes())))
}
