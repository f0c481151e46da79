//! mlb's own lines on its stdout and stderr, whatever is at their other end.
//!
//! `println!` panics when its stream is a closed pipe (`mlb --jobs F | head
//! -1`, a terminal gone): the launcher once died at its second result line
//! and left the rest of the run unrun. Every line of mlb's own goes through
//! here instead: a write that fails with `EPIPE` is dropped, and the stream
//! is written no more; the run goes on, its exit status the benchmark's.

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// One of mlb's two output streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Console {
    /// Standard output: result lines, listings, the dry run.
    Out,
    /// Standard error: progress, notes, warnings, errors.
    Err,
}

/// Whether stdout, stderr has been found closed.
static CLOSED: [AtomicBool; 2] = [AtomicBool::new(false), AtomicBool::new(false)];

impl Console {
    /// Writes `text` as it is and flushes it. A closed stream (`EPIPE`,
    /// now or before) is not an error: nothing more is written to it. Any
    /// other error is returned.
    pub fn write(self, text: &str) -> std::io::Result<()> {
        let closed = &CLOSED[self as usize];
        if closed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let written = match self {
            Console::Out => write_all(&mut std::io::stdout().lock(), text),
            Console::Err => write_all(&mut std::io::stderr().lock(), text),
        };
        settle(written, closed)
    }

    /// Prints `text` and a newline; a line that cannot be written is dropped.
    pub fn line(self, text: &str) {
        let _ = self.write(&format!("{text}\n"));
    }

    /// Prints `text` as it is; what cannot be written is dropped.
    pub fn print(self, text: &str) {
        let _ = self.write(text);
    }
}

fn write_all(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    out.write_all(text.as_bytes()).and_then(|()| out.flush())
}

/// What a write came to: `EPIPE` marks the stream `closed` and is no error.
fn settle(written: std::io::Result<()>, closed: &AtomicBool) -> std::io::Result<()> {
    match written {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            closed.store(true, Ordering::Relaxed);
            Ok(())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_is_no_error_and_closes_the_stream_and_other_errors_are_returned() {
        let closed = AtomicBool::new(false);
        assert!(settle(Ok(()), &closed).is_ok());
        assert!(!closed.load(Ordering::Relaxed));
        let full = settle(Err(std::io::Error::from_raw_os_error(nix::libc::ENOSPC)), &closed);
        assert_eq!(full.unwrap_err().raw_os_error(), Some(nix::libc::ENOSPC), "a full disk is an error");
        assert!(!closed.load(Ordering::Relaxed));
        assert!(settle(Err(ErrorKind::BrokenPipe.into()), &closed).is_ok());
        assert!(closed.load(Ordering::Relaxed), "written no more");
    }
}
