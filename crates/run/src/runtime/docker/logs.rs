//! A container's output as whole lines, each tagged with its stream.

use crate::console::Console;
use crate::runtime::LineBuf;
use bollard::container::LogOutput;

/// Which output stream a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Prints `line` with `prefix` on the launcher's matching stream.
pub fn print_prefixed(prefix: &str, stream: LogStream, line: &str) {
    let console = match stream {
        LogStream::Stdout => Console::Out,
        LogStream::Stderr => Console::Err,
    };
    console.line(&format!("{prefix}{line}"));
}

/// Reassembles lines from the chunks Docker sends (a chunk may hold part of
/// a line, or several), each cut as [`LineBuf`] cuts it.
#[derive(Default)]
pub(super) struct LineSplitter {
    stdout: LineBuf,
    stderr: LineBuf,
}

impl LineSplitter {
    /// Feeds one chunk; calls `emit` for every line it completes.
    pub(super) fn push(&mut self, chunk: LogOutput, emit: &mut dyn FnMut(LogStream, &str)) {
        let (stream, bytes) = match chunk {
            LogOutput::StdOut { message } | LogOutput::Console { message } => (LogStream::Stdout, message),
            LogOutput::StdErr { message } => (LogStream::Stderr, message),
            LogOutput::StdIn { .. } => return,
        };
        self.buffer(stream).push(&bytes, &mut |line| emit(stream, line));
    }

    /// Emits what is left of unterminated lines.
    pub(super) fn finish(&mut self, emit: &mut dyn FnMut(LogStream, &str)) {
        for stream in [LogStream::Stdout, LogStream::Stderr] {
            self.buffer(stream).finish(&mut |line| emit(stream, line));
        }
    }

    fn buffer(&mut self, stream: LogStream) -> &mut LineBuf {
        match stream {
            LogStream::Stdout => &mut self.stdout,
            LogStream::Stderr => &mut self.stderr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_become_lines_per_stream() {
        let mut split = LineSplitter::default();
        let mut lines = Vec::new();
        let mut emit = |s: LogStream, l: &str| lines.push((s, l.to_string()));
        split.push(LogOutput::StdOut { message: "[  1/ 2] | a\n[  2".into() }, &mut emit);
        split.push(LogOutput::StdErr { message: "warn\r\n".into() }, &mut emit);
        split.push(LogOutput::StdOut { message: "/ 2] | b\nreport: x".into() }, &mut emit);
        split.finish(&mut emit);
        let expect = [
            (LogStream::Stdout, "[  1/ 2] | a"),
            (LogStream::Stderr, "warn"),
            (LogStream::Stdout, "[  2/ 2] | b"),
            (LogStream::Stdout, "report: x"),
        ];
        assert_eq!(lines, expect.map(|(s, l)| (s, l.to_string())));
    }
}
