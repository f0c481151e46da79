//! `mlb serve` started on a store for the serve benches (serve_api,
//! serve_load, serve_pages, push_store).

/// `mlb serve` on a store, on a port of this host's choosing; stopped
/// (SIGTERM) when dropped.
pub struct Served {
    pub server: std::process::Child,
    /// Its address, `127.0.0.1:PORT`.
    pub addr: String,
}

impl Served {
    /// Starts `mlb serve --db URL ARGS`, once it listens; what it writes on
    /// stderr after is read and dropped (a push is a line).
    pub fn start(mlb: &str, url: &str, args: &[&str]) -> Served {
        use std::io::BufRead;
        let mut server = std::process::Command::new(mlb)
            .args(["serve", "--db", url, "--bind", "127.0.0.1:0"])
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = std::io::BufReader::new(server.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
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
