//! mlb's side of another mlb server: [`Client::push`] sends a run folder
//! to `/api/push` (`mlb db push`, `mlb --jobs F --push URL`);
//! [`Client::runs`] and [`Client::archive`] read the public runs and their
//! folders (`mlb db pull`). HTTPS checks the server's certificate against
//! the system's trusted ones (a site's own CA is one of them once
//! installed); what a server sends is bounded and unpacked as hostile.

use super::archive::{self, Unpacked};
use super::error::CollectError;
use super::limits::Limits;
use serde::{Deserialize, Serialize};
use std::io::{Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

/// The most of a JSON answer read.
const ANSWER_BYTES: u64 = 16 << 20;

/// How long a request may take in all (a push of a large run folder over a slow link).
const TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Another mlb server.
pub struct Client {
    agent: ureq::Agent,
    /// Its address, without the trailing `/`.
    base: String,
}

/// What the server stored of a push (its answer's JSON).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushAnswer {
    /// The system the run was stored under.
    pub system: String,
    /// The name it was stored under (`push://SYSTEM/RUN`).
    pub folder: String,
    /// Report files read.
    pub files: usize,
    /// Run folders written.
    pub runs: usize,
    /// Instances new to the store.
    pub instances: usize,
    /// Instances stored before, updated.
    pub updated: usize,
    /// Report files stored before, skipped.
    pub skipped_files: usize,
    /// Files left out, and why.
    pub left_out: Vec<String>,
    /// Until when only the key sees the run.
    pub embargo_until: Option<String>,
}

/// A run another server lists (its `/api/runs` answer's entries).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct RemoteRun {
    /// Its id there.
    pub id: i64,
    /// Its system's name there.
    pub system: String,
}

/// A page of `/api/runs`.
#[derive(Deserialize)]
struct RunsPage {
    pages: usize,
    runs: Vec<RemoteRun>,
}

impl Client {
    /// A client of the server at `url` (`http://HOST:PORT` or `https://...`).
    pub fn new(url: &str) -> Result<Client, CollectError> {
        let base = url.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) || base.chars().any(char::is_whitespace) {
            return Err(CollectError::BadAnswer { url: url.into(), why: "not an http:// or https:// address".into() });
        }
        let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build();
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(TIMEOUT))
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .http_status_as_error(false)
            .tls_config(tls)
            .build()
            .into();
        Ok(Client { agent, base })
    }

    /// The server's address.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// Pushes the run folder `dir` with `key`, for `system` (else the key's
    /// only one), under embargo until `embargo` (a day or an RFC 3339 time).
    pub fn push(
        &self,
        key: &str,
        dir: &Path,
        system: Option<&str>,
        embargo: Option<&str>,
    ) -> Result<PushAnswer, CollectError> {
        if !dir.is_dir() {
            return Err(CollectError::NoFolder { dir: dir.to_path_buf() });
        }
        let pack_error = |source| CollectError::Pack { dir: dir.to_path_buf(), source };
        let run = dir
            .canonicalize()
            .map_err(pack_error)?
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "run".into());
        let mut body = tempfile::tempfile().map_err(CollectError::Spool)?;
        archive::pack(dir, &mut body).map_err(pack_error)?;
        let length = body.seek(SeekFrom::End(0)).map_err(CollectError::Spool)?;
        body.seek(SeekFrom::Start(0)).map_err(CollectError::Spool)?;
        let mut query = form_urlencoded::Serializer::new(String::new());
        query.append_pair("run", &run);
        if let Some(system) = system {
            query.append_pair("system", system);
        }
        if let Some(embargo) = embargo {
            query.append_pair("embargo", embargo);
        }
        let url = format!("{}/api/push?{}", self.base, query.finish());
        let answer = self
            .agent
            .post(&url)
            .header("authorization", &format!("Bearer {}", key.trim()))
            .header("content-type", "application/gzip")
            .header("content-length", &length.to_string())
            .send(ureq::SendBody::from_reader(&mut body));
        let text = self.text(&url, answer)?;
        serde_json::from_str(&text).map_err(|e| CollectError::BadAnswer { url, why: e.to_string() })
    }

    /// The runs the server shows (with `token`, when it needs one), of
    /// `system` alone when given, oldest first.
    pub fn runs(&self, token: Option<&str>, system: Option<&str>) -> Result<Vec<RemoteRun>, CollectError> {
        let mut all = Vec::new();
        let mut page = 1;
        loop {
            let mut query = form_urlencoded::Serializer::new(String::new());
            query.append_pair("page", &page.to_string());
            if let Some(system) = system {
                query.append_pair("system", system);
            }
            let url = format!("{}/api/runs?{}", self.base, query.finish());
            let text = self.text(&url, self.get(&url, token).call())?;
            let found: RunsPage =
                serde_json::from_str(&text).map_err(|e| CollectError::BadAnswer { url, why: e.to_string() })?;
            // A server that names more pages than it fills ends at its first empty one.
            let last = found.runs.is_empty() || page >= found.pages;
            all.extend(found.runs);
            if last {
                break;
            }
            page += 1;
        }
        all.reverse();
        Ok(all)
    }

    /// Unpacks the folder of the server's run `id` into `into` (an empty
    /// folder), within `limits`.
    pub fn archive(
        &self,
        token: Option<&str>,
        id: i64,
        into: &Path,
        limits: &Limits,
    ) -> Result<Unpacked, CollectError> {
        let url = format!("{}/api/runs/{id}/archive", self.base);
        let mut answer = self
            .get(&url, token)
            .call()
            .map_err(|e| CollectError::Unreachable { url: url.clone(), why: e.to_string() })?;
        if !answer.status().is_success() {
            return Err(self.refused(&url, answer));
        }
        let body = answer.body_mut().with_config().limit(limits.body_bytes).reader();
        archive::unpack(body, into, limits).map_err(|source| CollectError::Archive { url, source })
    }

    fn get(&self, url: &str, token: Option<&str>) -> ureq::RequestBuilder<ureq::typestate::WithoutBody> {
        let request = self.agent.get(url);
        match token {
            Some(token) => request.header("authorization", &format!("Bearer {}", token.trim())),
            None => request,
        }
    }

    /// The text of a successful answer, or why there is none.
    fn text(
        &self,
        url: &str,
        answer: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<String, CollectError> {
        let mut answer = answer.map_err(|e| CollectError::Unreachable { url: url.into(), why: e.to_string() })?;
        if !answer.status().is_success() {
            return Err(self.refused(url, answer));
        }
        answer
            .body_mut()
            .with_config()
            .limit(ANSWER_BYTES)
            .read_to_string()
            .map_err(|e| CollectError::BadAnswer { url: url.into(), why: e.to_string() })
    }

    /// The error an answer of an error status says (its JSON `error`, else its text).
    fn refused(&self, url: &str, mut answer: ureq::http::Response<ureq::Body>) -> CollectError {
        let status = answer.status().as_u16();
        let text = answer.body_mut().with_config().limit(64 << 10).read_to_string().unwrap_or_default();
        let message = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v["error"].as_str().map(str::to_string))
            .unwrap_or_else(|| text.chars().take(300).collect());
        CollectError::Refused {
            url: url.into(),
            status,
            message: mlb_record::untrusted::visible(&message).into_owned(),
        }
    }
}
