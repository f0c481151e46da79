//! Where a runtime sends an instance's output lines, and how the lines are
//! cut from what it writes: each kept to [`MAX_LINE`] bytes, so that an
//! instance printing one line of hundreds of MB does not grow the launcher
//! (which sits outside the slot's memory limit) by as much.

use std::io::{ErrorKind, Read};

/// The most bytes of one line kept; the rest of an over-long line is
/// dropped, and the line says how much was ([`LineBuf`]).
pub const MAX_LINE: usize = 64 << 10;

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

/// Reads `pipe` to its end into `output`, line by line (see [`read_lines`]).
pub fn pump(output: &dyn Output, stream: Stream, pipe: impl Read) {
    read_lines(pipe, &mut |text| output.line(stream, text));
}

/// Reads `pipe` to its end, calling `emit` with each line: cut to
/// [`MAX_LINE`] bytes ([`LineBuf`]), bytes that are not UTF-8 replaced.
pub fn read_lines(mut pipe: impl Read, emit: &mut dyn FnMut(&str)) {
    let mut line = LineBuf::default();
    let mut chunk = vec![0; MAX_LINE];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => line.push(&chunk[..n], emit),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    line.finish(emit);
}

/// The line being read from a stream: its first [`MAX_LINE`] bytes, and
/// how many more were dropped.
#[derive(Debug, Default)]
pub struct LineBuf {
    kept: Vec<u8>,
    dropped: usize,
}

impl LineBuf {
    /// Takes `bytes`, calling `emit` with every line they complete (without
    /// its `\n` or `\r\n`; an over-long line cut, with a note of what was
    /// dropped).
    pub fn push(&mut self, mut bytes: &[u8], emit: &mut dyn FnMut(&str)) {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            self.keep(&bytes[..end]);
            self.emit(emit);
            bytes = &bytes[end + 1..];
        }
        self.keep(bytes);
    }

    /// Emits what is left: a last line without its newline.
    pub fn finish(&mut self, emit: &mut dyn FnMut(&str)) {
        if !self.kept.is_empty() || self.dropped > 0 {
            self.emit(emit);
        }
    }

    fn keep(&mut self, bytes: &[u8]) {
        let take = bytes.len().min(MAX_LINE.saturating_sub(self.kept.len()));
        self.kept.extend_from_slice(&bytes[..take]);
        self.dropped += bytes.len() - take;
    }

    fn emit(&mut self, emit: &mut dyn FnMut(&str)) {
        let text = String::from_utf8_lossy(&self.kept);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        match self.dropped {
            0 => emit(text),
            n => emit(&format!("{text} [mlb: line cut: {n} more bytes not kept]")),
        }
        self.kept.clear();
        self.dropped = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(chunks: &[&[u8]]) -> Vec<String> {
        let mut out = Vec::new();
        let mut buf = LineBuf::default();
        let mut emit = |l: &str| out.push(l.to_string());
        for c in chunks {
            buf.push(c, &mut emit);
        }
        buf.finish(&mut emit);
        out
    }

    #[test]
    fn lines_are_cut_at_newlines_across_chunks() {
        assert_eq!(lines(&[b"a\nb", b"c\r\n", b"\n", b"tail"]), ["a", "bc", "", "tail"]);
        assert_eq!(lines(&[b"x\n"]), ["x"], "no empty line after the last newline");
        assert_eq!(lines(&[b"\xffok\n"]), ["\u{fffd}ok"], "bytes that are not UTF-8 are replaced, not the end");
    }

    #[test]
    fn an_over_long_line_keeps_its_start_and_says_what_it_dropped() {
        let long = vec![b'x'; MAX_LINE + 10];
        let got = lines(&[&long[..100], &long[100..], b"\nnext\n"]);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], format!("{} [mlb: line cut: 10 more bytes not kept]", "x".repeat(MAX_LINE)));
        assert_eq!(got[1], "next");
        assert_eq!(lines(&[&long]).len(), 1, "also a last line without newline");
    }
}
