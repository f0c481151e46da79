//! Where a runtime sends an instance's output lines.

use std::io::{BufRead, BufReader, Read};

/// Which stream a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Takes an instance's output, line by line, from the threads reading it.
pub trait Output: Send + Sync {
    /// One line (without its newline) of `stream`.
    fn line(&self, stream: Stream, line: &str);

    /// The runtime started the instance's main process `pid` in a group of
    /// its own, not in the launcher's slot group: the group of container
    /// `id`, whose path names it.
    fn started(&self, _pid: u32, _id: &str) {}
}

/// Reads `pipe` to its end into `output`, line by line.
pub fn pump(output: &dyn Output, stream: Stream, pipe: impl Read) {
    for line in BufReader::new(pipe).lines().map_while(Result::ok) {
        output.line(stream, &line);
    }
}
