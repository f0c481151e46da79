//! The headers of every answer: a Content-Security-Policy that lets only
//! the pages' own hashed scripts run and nothing load from elsewhere (the
//! charts' policy, [`mlb_judge::charts::embed`]), no framing, no sniffing, no
//! referrer, no caching (but of the pages' scripts, named by their hash).

use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

/// The Content-Security-Policy of every answer.
pub fn content_security_policy() -> String {
    format!(
        "{}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        mlb_judge::charts::embed::content_security_policy()
    )
}

/// The headers every answer carries, but `Cache-Control` (which an answer
/// may set itself).
pub fn fixed() -> Vec<(header::HeaderName, HeaderValue)> {
    let mut headers = vec![
        (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        (header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
        (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
    ];
    if let Ok(csp) = HeaderValue::from_str(&content_security_policy()) {
        headers.push((header::CONTENT_SECURITY_POLICY, csp));
    }
    headers
}

/// Adds the headers to the answer of `request`.
pub async fn add(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in fixed() {
        headers.insert(name, value);
    }
    // The compiled-in scripts, named by their hash, say themselves that
    // they may be kept.
    headers.entry(header::CACHE_CONTROL).or_insert(HeaderValue::from_static("no-store"));
    response
}
