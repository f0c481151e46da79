//! The token a request must carry when the server has one: in an
//! `Authorization: Bearer` header, or in the cookie a login sets (opening
//! any page with `?token=TOKEN` sets an HttpOnly, SameSite=Strict cookie
//! and redirects to the page without the token). Compared in constant time.
//! A push key the store holds is let in as the token is, and marks the
//! request as its holder's (who sees the runs under embargo it pushed).

use super::data::Reader;
use super::error::ServeError;
use crate::store::query::filters::Visible;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::path::Path;
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// The shortest token taken.
pub const MIN_TOKEN_LEN: usize = 16;

/// The cookie that carries the token.
pub const COOKIE: &str = "mlb_token";

/// The server's token.
#[derive(Clone)]
pub struct Token(Arc<[u8]>);

impl std::fmt::Debug for Token {
    /// Never the token itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(***)")
    }
}

impl Token {
    /// The token in `path` (spaces and the line end at either end left out).
    pub fn read(path: &Path) -> Result<Token, ServeError> {
        let text = mlb_record::reading::read_input(path)
            .map_err(|source| ServeError::TokenFile { path: path.to_path_buf(), source })?;
        let token = text.trim();
        if token.len() < MIN_TOKEN_LEN {
            return Err(ServeError::ShortToken { path: path.to_path_buf(), len: token.len(), min: MIN_TOKEN_LEN });
        }
        Ok(Token(Arc::from(token.as_bytes())))
    }

    /// Whether `given` is the token, in time that does not depend on where they differ.
    pub fn accepts(&self, given: &str) -> bool {
        bool::from(self.0.as_ref().ct_eq(given.as_bytes()))
    }
}

/// Who may read the server: the holders of its token (when it has one)
/// and of a push key the store holds (`mlb serve --accept-push`); a push
/// key's holder also sees the runs under embargo it pushed.
#[derive(Clone)]
pub struct Gate {
    /// The server's token, when it has one.
    pub token: Option<Token>,
    /// The store, whose push keys it looks up.
    pub reader: Arc<Reader>,
}

/// The push key `given` of the store of `reader`, unless it is unknown or
/// revoked (looked up on a blocking thread; a store that fails is logged).
pub async fn push_key(reader: &Arc<Reader>, given: &str) -> Option<crate::collect::keys::PushKey> {
    let (reader, given) = (Arc::clone(reader), given.to_string());
    match tokio::task::spawn_blocking(move || reader.store().key_of(&given)).await {
        Ok(Ok(key)) => key,
        Ok(Err(e)) => {
            mlb_run::console::Console::Err.line(&format!("mlb serve: {e}"));
            None
        }
        Err(_) => None,
    }
}

impl Gate {
    /// Which runs the holder of `given` sees when it is the token or a
    /// push key the store holds; `None` for anything else.
    async fn holder(&self, given: &str) -> Option<Visible> {
        if given.starts_with(crate::collect::keys::PREFIX) {
            return push_key(&self.reader, given).await.map(|k| Visible::Key(k.id));
        }
        self.token.as_ref().filter(|token| token.accepts(given)).map(|_| Visible::Public)
    }

    /// Which runs the request's holder sees, if it may read at all: a push
    /// key among `given` (the credentials in its header or cookie) decides;
    /// else the token, which a server without one does not ask for.
    async fn admits(&self, given: &[String]) -> Option<Visible> {
        if let Some(key) = given.iter().find(|g| g.starts_with(crate::collect::keys::PREFIX)) {
            return self.holder(key).await;
        }
        match &self.token {
            None => Some(Visible::Public),
            Some(token) => given.iter().any(|g| token.accepts(g)).then_some(Visible::Public),
        }
    }
}

/// The credential of an `Authorization: Bearer CREDENTIAL` header (a
/// token, or a push key), if `headers` hold one.
pub fn bearer(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
}

/// The credentials `request` carries: its `Authorization: Bearer` header
/// and its cookie.
fn credentials(request: &Request) -> Vec<String> {
    let headers = request.headers();
    let bearer = bearer(headers);
    let cookies = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_string());
    bearer.into_iter().chain(cookies).collect()
}

/// Lets a request through when its holder may read (the server has no
/// token, or the request carries it or a push key), marking which runs
/// under embargo it sees ([`Visible`], a request extension); logs in a
/// request with `?token=TOKEN` (or `?token=KEY`); answers 401 otherwise.
pub async fn check(State(gate): State<Gate>, mut request: Request, next: Next) -> Response {
    // First the login: on a server without a token, a push key's holder
    // logs in to see the runs under embargo it pushed.
    if let Some(response) = login(&gate, request.uri().clone()).await {
        return response;
    }
    if let Some(visible) = gate.admits(&credentials(&request)).await {
        request.extensions_mut().insert(visible);
        return next.run(request).await;
    }
    super::api::error_response(
        StatusCode::UNAUTHORIZED,
        "this server needs its token or a push key it holds: send `Authorization: Bearer TOKEN`, or open the page \
         once with ?token=TOKEN",
    )
}

/// With `?token=` the token (or a push key): a redirect to the same address
/// without it, setting the cookie.
async fn login(gate: &Gate, uri: axum::http::Uri) -> Option<Response> {
    let query = uri.query()?;
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let given = pairs.iter().find(|(k, _)| k == "token")?;
    gate.holder(&given.1).await?;
    let rest: Vec<&(String, String)> = pairs.iter().filter(|(k, _)| k != "token").collect();
    let mut target = same_site(uri.path());
    if !rest.is_empty() {
        target.push('?');
        target.push_str(&form_urlencoded::Serializer::new(String::new()).extend_pairs(rest).finish());
    }
    let cookie = format!("{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/", given.1);
    let mut response = (StatusCode::SEE_OTHER, Body::empty()).into_response();
    let headers = response.headers_mut();
    headers.insert(header::LOCATION, HeaderValue::from_str(&target).ok()?);
    headers.insert(header::SET_COOKIE, HeaderValue::from_str(&cookie).ok()?);
    Some(response)
}

/// `path` as a redirect's target that stays on this site: a browser reads
/// a location starting with `//` (or `/\`, or either with tabs or line
/// ends between, which it drops) as another host's address, so the run of
/// slashes, backslashes, spaces and control characters at its start becomes
/// one `/`; a path that does not start with `/` (`*`) becomes `/`.
pub fn same_site(path: &str) -> String {
    if !path.starts_with('/') {
        return "/".into();
    }
    let rest = path.trim_start_matches(|c: char| c == '/' || c == '\\' || c.is_whitespace() || c.is_control());
    format!("/{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_read_trimmed_and_a_short_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "0123456789abcdef0123\n").unwrap();
        let token = Token::read(&file).unwrap();
        assert!(token.accepts("0123456789abcdef0123"));
        assert!(!token.accepts("0123456789abcdef012") && !token.accepts(""));
        assert_eq!(format!("{token:?}"), "Token(***)");
        std::fs::write(&file, "short").unwrap();
        assert!(matches!(Token::read(&file), Err(ServeError::ShortToken { len: 5, .. })));
    }

    #[test]
    fn a_redirect_stays_on_this_site() {
        assert_eq!(same_site("/runs/3"), "/runs/3");
        assert_eq!(same_site("/"), "/");
        for path in
            ["//evil.example/", "/\\evil.example/", "///evil.example/", "/\t/evil.example/", "/\\/evil.example/"]
        {
            assert_eq!(same_site(path), "/evil.example/", "{path:?}");
        }
        assert_eq!(same_site("*"), "/");
        assert_eq!(same_site("/%2F%2Fevil.example"), "/%2F%2Fevil.example", "an encoded slash is a path's letter");
    }
}
