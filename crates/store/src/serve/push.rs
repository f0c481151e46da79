//! `POST /api/push` (`mlb serve --accept-push`): a run folder pushed by a
//! site with its key. In order, each step refusing before the next, so
//! that what is refused costs the server little and stores nothing:
//!
//! 1. the key (`Authorization: Bearer KEY`): unknown or revoked, 401;
//! 2. the query (`run`, `system`, `embargo`): unreadable, 400; a system the
//!    key may not push for, 403;
//! 3. the key's rate (pushes a minute): past it, 429 with `Retry-After`;
//! 4. the body's announced length past `--push-max-bytes`: 413 before a
//!    byte is read; pushes under way at the bound: 503;
//! 5. the body streamed to a file of its own (never held in memory), 413
//!    as soon as it passes the bound;
//! 6. unpacked and imported ([`crate::collect::receive`]): a hostile archive
//!    400, one past a bound 413, nothing stored.
//!
//! Every push of a known key is logged in the store ([`crate::collect::log`])
//! and on stderr; a request of no known key on stderr only.

use super::api::error_response;
use crate::collect::client::PushAnswer;
use crate::collect::keys::PushKey;
use crate::collect::limits::{Limits, Rates};
use crate::collect::log::Entry;
use crate::collect::receive::{receive, Push, ReceiveError};
use crate::store::import::rows::normalise_time;
use crate::store::query::filters::day_or_time;
use crate::store::Store;
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Extension, Router};
use futures_util::StreamExt;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// Pushes unpacked and imported at once; more are answered 503.
pub const AT_ONCE: usize = 4;

/// The most a push may take, its body sent and stored.
pub const TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// What the receiving server holds: the store it writes, the bounds, the
/// rate of each key and the pushes under way.
pub struct Receiver {
    /// The server's one store (opened to write), and its reader.
    reader: Arc<super::data::Reader>,
    limits: Limits,
    rates: Rates,
    under_way: Semaphore,
}

/// The address a request came from (the listening loop's, per connection).
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub SocketAddr);

impl Receiver {
    /// Receives pushes into the store of `reader` (opened to write), within `limits`.
    pub fn new(reader: Arc<super::data::Reader>, limits: Limits) -> Receiver {
        Receiver { reader, limits, rates: Rates::default(), under_way: Semaphore::new(AT_ONCE) }
    }

    fn store(&self) -> &Store {
        self.reader.store()
    }
}

/// The push route, over `receiver`.
pub fn routes(receiver: Arc<Receiver>) -> Router {
    Router::new().route("/api/push", post(push)).with_state(receiver)
}

/// A push refused or stored: its status and what it says.
struct Told {
    status: StatusCode,
    body: serde_json::Value,
    retry_after: Option<Duration>,
}

impl Told {
    fn refused(status: StatusCode, message: impl Into<String>) -> Told {
        Told { status, body: serde_json::json!({ "error": message.into() }), retry_after: None }
    }

    /// What the log says of it: why it was refused, or what was stored.
    fn message(&self) -> String {
        if let Some(error) = self.body["error"].as_str() {
            return error.to_string();
        }
        let count = |name: &str| self.body[name].as_u64().unwrap_or(0);
        format!(
            "stored {} new reports of {} files ({} updated, {} files stored before, {} left out)",
            count("instances"),
            count("files"),
            count("updated"),
            count("skipped_files"),
            self.body["left_out"].as_array().map_or(0, Vec::len)
        )
    }

    fn response(self) -> Response {
        let mut response = match self.status.is_success() {
            true => (self.status, axum::Json(self.body)).into_response(),
            false => error_response(self.status, self.body["error"].as_str().unwrap_or_default()),
        };
        if let Some(wait) = self.retry_after {
            if let Ok(value) = wait.as_secs().max(1).to_string().parse() {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}

async fn push(
    State(receiver): State<Arc<Receiver>>,
    peer: Option<Extension<Peer>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Body,
) -> Response {
    let peer = peer.map_or_else(|| "unknown".to_string(), |Extension(Peer(addr))| addr.to_string());
    let key = match super::auth::bearer(&headers) {
        Some(given) => super::auth::push_key(&receiver.reader, &given).await,
        None => None,
    };
    let Some(key) = key else {
        mlb_run::console::Console::Err.line(&format!("mlb serve: a push from {peer} with no known key, refused"));
        return Told::refused(
            StatusCode::UNAUTHORIZED,
            "this push carries no push key the server holds (unknown or revoked): send `Authorization: Bearer KEY` \
             with the key `mlb db keys add` made",
        )
        .response();
    };
    let mut entry = Entry { key_id: key.id, peer, ..Entry::default() };
    let told = receive_push(&receiver, &key, &headers, query.as_deref().unwrap_or_default(), body, &mut entry).await;
    entry.status = told.status.as_u16();
    entry.outcome = told.message();
    mlb_run::console::Console::Err.line(&format!(
        "mlb serve: push by `{}` from {} for {}: {} {}",
        key.name,
        entry.peer,
        entry.system.as_deref().unwrap_or("-"),
        entry.status,
        mlb_record::untrusted::visible(&entry.outcome)
    ));
    let r = Arc::clone(&receiver);
    if let Ok(Err(e)) = tokio::task::spawn_blocking(move || r.store().log_push(&entry)).await {
        mlb_run::console::Console::Err.line(&format!("mlb serve: {e}"));
    }
    told.response()
}

/// What the push of `key` asked for, when it may: its run, system and embargo.
fn admitted(key: &PushKey, query: &str) -> Result<Push, Told> {
    let mut run = None;
    let mut system = None;
    let mut embargo = None;
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        let slot = match name.as_ref() {
            "run" => &mut run,
            "system" => &mut system,
            "embargo" => &mut embargo,
            other => {
                let other = super::data::visible(other);
                return Err(Told::refused(
                    StatusCode::BAD_REQUEST,
                    format!("a push takes no parameter `{other}`; pass run, system and embargo"),
                ));
            }
        };
        if slot.replace(value.into_owned()).is_some() {
            return Err(Told::refused(StatusCode::BAD_REQUEST, format!("the parameter `{name}` is given twice")));
        }
    }
    let run = run.unwrap_or_default();
    if run.is_empty()
        || run.len() > 200
        || run == "."
        || run == ".."
        || run.contains(['/', '\\'])
        || run.chars().any(char::is_control)
    {
        return Err(Told::refused(
            StatusCode::BAD_REQUEST,
            "pass `run`, the run folder's name: 1 to 200 characters, no slash, no control character",
        ));
    }
    let system = match (system, key.systems.as_slice()) {
        (Some(system), _) => system,
        (None, [only]) => only.clone(),
        (None, _) => {
            return Err(Told::refused(
                StatusCode::BAD_REQUEST,
                format!("the key `{}` pushes for several systems; pass `system`: {}", key.name, key.systems.join(", ")),
            ))
        }
    };
    if !key.may_push_for(&system) {
        return Err(Told::refused(
            StatusCode::FORBIDDEN,
            format!(
                "the key `{}` may not push for the system `{}`; it pushes for {}",
                key.name,
                super::data::visible(&system),
                key.systems.join(", ")
            ),
        ));
    }
    let embargo_until = match embargo {
        None => None,
        Some(text) => Some(day_or_time(&text).ok().and_then(|t| normalise_time(&t)).ok_or_else(|| {
            Told::refused(StatusCode::BAD_REQUEST, "pass `embargo` as a day (2027-01-31) or an RFC 3339 time")
        })?),
    };
    Ok(Push { key: key.clone(), system, run, embargo_until })
}

/// Takes the push of `key` as far as it goes; fills `entry` on the way.
async fn receive_push(
    receiver: &Arc<Receiver>,
    key: &PushKey,
    headers: &HeaderMap,
    query: &str,
    body: Body,
    entry: &mut Entry,
) -> Told {
    let push = match admitted(key, query) {
        Ok(push) => push,
        Err(told) => return told,
    };
    entry.system = Some(push.system.clone());
    entry.folder = Some(push.folder());
    if let Err(wait) = receiver.rates.admit(key.id, key.per_minute, Instant::now()) {
        return Told {
            retry_after: Some(wait),
            ..Told::refused(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "the key `{}` may push {} times a minute; push again in {} s",
                    key.name,
                    key.per_minute,
                    wait.as_secs().max(1)
                ),
            )
        };
    }
    let limits = key.limits(&receiver.limits);
    let limit = limits.body_bytes;
    let announced =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > limit) {
        entry.bytes = announced.unwrap_or_default();
        return too_large(limit);
    }
    let Ok(_turn) = receiver.under_way.try_acquire() else {
        return Told {
            retry_after: Some(Duration::from_secs(5)),
            ..Told::refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server takes as many pushes as it may; push again in a moment",
            )
        };
    };
    let work = match tempfile::Builder::new().prefix("mlb-push-").tempdir() {
        Ok(work) => work,
        Err(e) => return internal(&format!("cannot make a folder for a push: {e}")),
    };
    let spooled = work.path().join("push.tar.gz");
    match spool(body, &spooled, limit).await {
        Ok(bytes) => entry.bytes = bytes,
        Err(Spooled::TooLarge(bytes)) => {
            entry.bytes = bytes;
            return too_large(limit);
        }
        Err(Spooled::Broken(why)) => {
            return Told::refused(StatusCode::BAD_REQUEST, format!("the push's body broke off: {why}"))
        }
    }
    let unpacked = work.path().join("run");
    if let Err(e) = std::fs::create_dir(&unpacked) {
        return internal(&format!("cannot make a folder for a push: {e}"));
    }
    let r = Arc::clone(receiver);
    let p = push.clone();
    let done = tokio::task::spawn_blocking(move || receive(r.store(), &spooled, &unpacked, &p, &limits)).await;
    // The push's files go once it is stored (or refused).
    drop(work);
    match done {
        Ok(Ok((files, imported))) => {
            entry.files = files.files;
            let answer = PushAnswer {
                system: push.system.clone(),
                folder: push.folder(),
                files: imported.files,
                runs: imported.runs,
                instances: imported.instances,
                updated: imported.updated,
                skipped_files: imported.skipped_files,
                left_out: imported.unreadable.iter().map(|u| format!("{}: {}", u.path.display(), u.reason)).collect(),
                embargo_until: push.embargo_until.clone(),
            };
            Told { status: StatusCode::OK, body: serde_json::to_value(answer).unwrap_or_default(), retry_after: None }
        }
        Ok(Err(ReceiveError::Archive(e))) if e.is_too_large() => {
            Told::refused(StatusCode::PAYLOAD_TOO_LARGE, e.to_string())
        }
        Ok(Err(ReceiveError::Store(e))) => internal(&e.to_string()),
        Ok(Err(e)) => Told::refused(StatusCode::BAD_REQUEST, e.to_string()),
        Err(e) => internal(&format!("a push's work stopped: {e}")),
    }
}

fn too_large(limit: u64) -> Told {
    Told::refused(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "a push of this key may send at most {limit} bytes; push the run folders one at a time, or ask the \
             server's operator for more"
        ),
    )
}

/// A 500: `why` to the server's stderr, a plain sentence to the client.
fn internal(why: &str) -> Told {
    mlb_run::console::Console::Err.line(&format!("mlb serve: {why}"));
    Told::refused(StatusCode::INTERNAL_SERVER_ERROR, "the server failed to store the push; its log says why")
}

/// Why a body was not spooled whole.
enum Spooled {
    /// It passed the bound (after so many bytes).
    TooLarge(u64),
    /// It broke off, or could not be written.
    Broken(String),
}

/// Writes `body` to `path` as it comes, at most `limit` bytes; the bytes written.
async fn spool(body: Body, path: &std::path::Path, limit: u64) -> Result<u64, Spooled> {
    let mut file = std::fs::File::create_new(path).map_err(|e| Spooled::Broken(e.to_string()))?;
    let mut stream = body.into_data_stream();
    let mut bytes = 0u64;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| Spooled::Broken(e.to_string()))?;
        bytes += chunk.len() as u64;
        if bytes > limit {
            return Err(Spooled::TooLarge(bytes));
        }
        file.write_all(&chunk).map_err(|e| Spooled::Broken(e.to_string()))?;
    }
    file.flush().map_err(|e| Spooled::Broken(e.to_string()))?;
    Ok(bytes)
}
