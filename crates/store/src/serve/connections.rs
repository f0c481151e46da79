//! The connections the server holds open: at most [`limit`] at once (a
//! share of the file descriptors the process may open), so that silent or
//! slow clients cannot take every descriptor and stop the server. When all
//! are held, a new connection takes the place of the one idle longest (no
//! request of it under way); when every one is answering, the new one is
//! answered 503 at once and closed. A connection that sends no whole
//! request head within [`HEADER_TIMEOUT`] (its first, or the next on a
//! kept-alive connection) is closed by the HTTP server.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

/// How long a connection may take to send a request's head, and how long a
/// kept-alive connection may wait for its next request.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The most connections held at once, whatever the descriptors allow.
pub const MAX_CONNECTIONS: usize = 1024;

/// Descriptors left to the store, the runtime and the standard streams.
const RESERVED_FILES: u64 = 64;

/// The connections held at once: half the descriptors the process may open
/// beyond [`RESERVED_FILES`], at least 8 and at most [`MAX_CONNECTIONS`].
pub fn limit() -> usize {
    let soft =
        nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE).map_or(1024, |(soft, _)| soft);
    let half = usize::try_from(soft.saturating_sub(RESERVED_FILES) / 2).unwrap_or(MAX_CONNECTIONS);
    half.clamp(8, MAX_CONNECTIONS)
}

/// The connections held.
pub struct Connections {
    limit: usize,
    started: Instant,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    next: u64,
    open: BTreeMap<u64, Arc<Slot>>,
}

/// One connection's place: when it last read or wrote, the requests of it
/// under way, and the signal that closes it.
pub struct Slot {
    id: u64,
    /// Milliseconds from [`Connections::started`] to its last byte read or written.
    last: AtomicU64,
    busy: AtomicUsize,
    close: Notify,
    connections: Arc<Connections>,
}

impl Connections {
    /// At most `limit` connections.
    pub fn new(limit: usize) -> Arc<Connections> {
        Arc::new(Connections { limit, started: Instant::now(), held: Mutex::default() })
    }

    fn now(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// A place for a new connection: a free one, else that of the
    /// connection idle longest, which is told to close; `None` when every
    /// connection held is answering a request.
    pub fn admit(self: &Arc<Self>) -> Option<Arc<Slot>> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if held.open.len() >= self.limit {
            let idle = held
                .open
                .values()
                .filter(|s| s.busy.load(Ordering::Acquire) == 0)
                .min_by_key(|s| s.last.load(Ordering::Acquire))?
                .id;
            if let Some(slot) = held.open.remove(&idle) {
                slot.close.notify_one();
            }
        }
        let id = held.next;
        held.next += 1;
        let slot = Arc::new(Slot {
            id,
            last: AtomicU64::new(self.now()),
            busy: AtomicUsize::new(0),
            close: Notify::new(),
            connections: Arc::clone(self),
        });
        held.open.insert(id, Arc::clone(&slot));
        Some(slot)
    }

    /// How many connections are held.
    pub fn open(&self) -> usize {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).open.len()
    }
}

impl Slot {
    fn touch(&self) {
        self.last.store(self.connections.now(), Ordering::Release);
    }

    /// Marks a request of the connection under way until the guard is dropped.
    pub fn busy(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(self))
    }

    /// Completes when the connection is to close for a new one.
    pub async fn evicted(&self) {
        self.close.notified().await;
    }

    /// Gives the place back (the connection ended).
    pub fn release(&self) {
        self.connections.held.lock().unwrap_or_else(|e| e.into_inner()).open.remove(&self.id);
    }
}

/// A request under way ([`Slot::busy`]).
pub struct Busy(Arc<Slot>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A connection's stream that marks its slot at each byte read or written.
pub struct Tracked<S> {
    inner: S,
    slot: Arc<Slot>,
}

impl<S> Tracked<S> {
    /// `inner`, marking `slot`.
    pub fn new(inner: S, slot: Arc<Slot>) -> Tracked<S> {
        Tracked { inner, slot }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Tracked<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.slot.touch();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Tracked<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.slot.touch();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_house_makes_room_by_closing_the_connection_idle_longest() {
        let connections = Connections::new(2);
        let first = connections.admit().unwrap();
        let second = connections.admit().unwrap();
        second.last.store(first.last.load(Ordering::Acquire) + 5, Ordering::Release);
        let third = connections.admit().expect("the first one was idle");
        assert_eq!(connections.open(), 2);
        assert!(futures_util::FutureExt::now_or_never(first.evicted()).is_some(), "the first is told to close");
        assert!(futures_util::FutureExt::now_or_never(second.evicted()).is_none());
        // Both left answering: no room.
        let (_a, _b) = (second.busy(), third.busy());
        assert!(connections.admit().is_none());
        third.release();
        assert_eq!(connections.open(), 1);
        assert!(connections.admit().is_some());
    }

    #[test]
    fn the_limit_is_a_share_of_the_descriptors() {
        let limit = limit();
        assert!((8..=MAX_CONNECTIONS).contains(&limit), "{limit}");
    }
}
