//! `mlb serve` started on a store for the serve benches (serve_api,
//! serve_load, serve_pages).

/// `mlb serve` on a store, on a port of this host's choosing; stopped
/// (SIGTERM) when dropped.
pub struct Served {
    pub server: std::process::Child,
    /// Its address, `127.0.0.1:PORT`.
    pub addr: String,
}

impl Served {
    /// Starts `mlb` serving the store at `url`, once it listens.
    pub fn start(mlb: &str, url: &str) -> Served {
        use std::io::{BufRead, BufReader};
        let mut server = std::process::Command::new(mlb)
            .args(["serve", "--db", url, "--bind", "127.0.0.1:0"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(server.stderr.take().unwrap()).read_line(&mut line).unwrap();
        let at = line.find("http://").unwrap_or_else(|| panic!("mlb serve did not start: {line}"));
        let addr = line[at + 7..].split('/').next().unwrap().to_string();
        Served { server, addr }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.server.id() as i32), nix::sys::signal::SIGTERM);
        let _ = self.server.wait();
    }
}
