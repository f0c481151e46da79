//! The server: the routes, the layers every request goes through (the
//! token, the security headers, limits on size, concurrency and time) and
//! the listening loop, which holds a bounded number of connections
//! ([`super::connections`]) and which Ctrl-C or SIGTERM stops after the
//! answers under way are sent.

use super::auth::{self, Token};
use super::connections::{self, Connections, Slot, Tracked};
use super::data::Reader;
use super::{api, headers, push};
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tower::limit::ConcurrencyLimitLayer;
use tower::ServiceBuilder;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

/// Requests answered at once; more wait their turn.
pub const CONCURRENT: usize = 64;

/// The most a request may take before it is answered 408.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The largest request body taken (the API reads none).
pub const MAX_BODY: usize = 1024;

/// The whole application: the API over `reader` (and the pages), behind
/// the token (when there is one) or a push key; the scripts and share
/// links open to all; with the headers and limits. With `receiver`, the
/// push route too, under its own limits ([`push`]).
pub fn app(reader: Arc<Reader>, token: Option<Token>, receiver: Option<Arc<push::Receiver>>) -> Router {
    let gate = auth::Gate { token, reader: Arc::clone(&reader) };
    let read = Router::new()
        .merge(api::routes(Arc::clone(&reader)))
        .merge(super::pages::routes::routes(Arc::clone(&reader)))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(gate, auth::check))
        .merge(super::pages::routes::open_routes(reader))
        .layer(
            ServiceBuilder::new()
                .layer(axum::middleware::from_fn(headers::add))
                .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, TIMEOUT))
                .layer(RequestBodyLimitLayer::new(MAX_BODY))
                .layer(ConcurrencyLimitLayer::new(CONCURRENT)),
        );
    let Some(receiver) = receiver else { return read };
    read.merge(
        push::routes(receiver).layer(
            ServiceBuilder::new()
                .layer(axum::middleware::from_fn(headers::add))
                .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, push::TIMEOUT)),
        ),
    )
}

/// Any other address: 404, naming what is served.
async fn not_found(uri: Uri) -> Response {
    let path = super::data::visible(uri.path());
    let path: String = path.chars().take(100).collect();
    api::error_response(
        StatusCode::NOT_FOUND,
        &format!(
            "nothing is served at {path}; the API is /api/systems, /api/runs, /api/runs/ID, /api/compare, /api/history"
        ),
    )
}

/// Serves `app` on `listener` until `stop` completes, then lets the
/// answers under way finish.
pub async fn serve(listener: tokio::net::TcpListener, app: Router, stop: impl Future<Output = ()> + Send + 'static) {
    let held = Connections::new(connections::limit());
    // Dropped when stopping: each connection then finishes its answer and closes.
    let (stopping, stopped) = watch::channel(());
    // Each connection holds a receiver; all dropped: every answer is sent.
    let (all_closed, open) = watch::channel(());
    tokio::pin!(stop);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of descriptors (or memory): wait for some to close.
                    if !matches!(e.kind(), std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset) {
                        mlb_run::console::Console::Err.line(&format!("mlb serve: cannot accept a connection: {e}"));
                        tokio::time::sleep(ACCEPT_PAUSE).await;
                    }
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        match held.admit() {
            Some(slot) => {
                tokio::spawn(connection(stream, slot, app.clone(), stopped.clone(), open.clone()));
            }
            None => refuse(&stream),
        }
    }
    drop(listener);
    drop(stopping);
    drop(open);
    all_closed.closed().await;
}

/// How long the loop waits after it could not accept a connection.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Serves one connection (HTTP/1.1) until the client closes it, it sends
/// no whole request head in time, it is evicted for a new one, or the
/// server stops (after the answer under way).
async fn connection(
    stream: TcpStream,
    slot: Arc<Slot>,
    app: Router,
    mut stopping: watch::Receiver<()>,
    _open: watch::Receiver<()>,
) {
    let _ = stream.set_nodelay(true);
    let peer = stream.peer_addr().ok().map(push::Peer);
    let requests = Arc::clone(&slot);
    let service = hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
        let busy = requests.busy();
        if let Some(peer) = peer {
            request.extensions_mut().insert(peer);
        }
        let answer = tower::ServiceExt::oneshot(app.clone(), request.map(axum::body::Body::new));
        async move {
            let answer = answer.await;
            drop(busy);
            answer
        }
    });
    let io = TokioIo::new(Tracked::new(stream, Arc::clone(&slot)));
    let served = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(connections::HEADER_TIMEOUT)
        .serve_connection(io, service);
    tokio::pin!(served);
    let mut stopped = false;
    loop {
        tokio::select! {
            _ = served.as_mut() => break,
            _ = slot.evicted() => break,
            _ = stopping.changed(), if !stopped => {
                stopped = true;
                served.as_mut().graceful_shutdown();
            }
        }
    }
    slot.release();
}

/// Answers a connection there is no room for: 503, and closes it.
fn refuse(stream: &TcpStream) {
    let body = r#"{"error": "the server holds as many connections as it may; try again in a moment"}"#;
    let mut head = String::from("HTTP/1.1 503 Service Unavailable\r\n");
    for (name, value) in headers::fixed() {
        head.push_str(&format!("{name}: {}\r\n", value.to_str().unwrap_or_default()));
    }
    head.push_str(&format!(
        "cache-control: no-store\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         retry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ));
    let _ = stream.try_write(head.as_bytes());
}

/// Completes on Ctrl-C or SIGTERM.
pub async fn interrupted() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = match signal(SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}
