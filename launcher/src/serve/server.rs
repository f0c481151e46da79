//! The server: the routes, the layers every request goes through (the
//! token, the security headers, limits on size, concurrency and time) and
//! the listening loop, which Ctrl-C or SIGTERM stops after the answers
//! under way are sent.

use super::auth::{self, Token};
use super::data::Reader;
use super::error::ServeError;
use super::{api, headers};
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
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
/// the token (when there is one), with the headers and limits.
pub fn app(reader: Arc<Reader>, token: Option<Token>) -> Router {
    Router::new()
        .merge(api::routes(Arc::clone(&reader)))
        .merge(super::pages::routes::routes(reader))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(token, auth::check))
        .layer(
            ServiceBuilder::new()
                .layer(axum::middleware::from_fn(headers::add))
                .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, TIMEOUT))
                .layer(RequestBodyLimitLayer::new(MAX_BODY))
                .layer(ConcurrencyLimitLayer::new(CONCURRENT)),
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
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    stop: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    axum::serve(listener, app).with_graceful_shutdown(stop).await.map_err(ServeError::Stopped)
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
