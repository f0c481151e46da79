//! A headless Chromium (Debian's `chromium`; `scripts/setup-chromium.sh`)
//! driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
//! JSON messages ended by NUL, commands on fd 3, answers and events on
//! fd 4), for the tests of pages: evaluate script in the page, move the
//! real mouse, collect what the console and the page's errors say, take
//! screenshots.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// How long one command may take.
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// The Chromium binary: `$MLB_CHROMIUM`, else `/usr/bin/chromium`.
pub fn binary() -> PathBuf {
    let path = std::env::var_os("MLB_CHROMIUM").map(PathBuf::from).unwrap_or_else(|| "/usr/bin/chromium".into());
    assert!(
        path.exists(),
        "{} not found: this test loads a page in a real headless Chromium; \
         run scripts/setup-chromium.sh (or set MLB_CHROMIUM to a Chromium binary)",
        path.display()
    );
    path
}

/// One browser with one page (a tab), `width` pixels wide.
pub struct Browser {
    child: Child,
    commands: std::fs::File,
    answers: Receiver<Value>,
    session: String,
    next_id: u64,
    /// What the console and the page reported (level, text), in order;
    /// a request that failed or was answered 4xx/5xx is an `error`.
    pub messages: Vec<(String, String)>,
    /// The URL of every request the page made, in order.
    pub requests: Vec<String>,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts Chromium and opens a blank page `width` x `height`.
    pub fn start(width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        // Close-on-exec: no other child of the tests inherits them.
        let (to_browser_read, to_browser_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        let (from_browser_read, from_browser_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        let (read_fd, write_fd) = (to_browser_read.as_raw_fd(), from_browser_write.as_raw_fd());
        let mut command = Command::new(binary());
        command
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
            .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
            .args(["--hide-scrollbars", "--remote-debugging-pipe", "--font-render-hinting=none"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--window-size={width},{height}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: dup2 and fcntl are async-signal-safe. The child copies its
        // pipe ends above 10 first (so that neither is clobbered), then onto
        // fds 3 and 4, which dup2 leaves open across exec.
        unsafe {
            command.pre_exec(move || {
                let high_read = nix::libc::fcntl(read_fd, nix::libc::F_DUPFD_CLOEXEC, 10);
                let high_write = nix::libc::fcntl(write_fd, nix::libc::F_DUPFD_CLOEXEC, 10);
                if high_read < 0
                    || high_write < 0
                    || nix::libc::dup2(high_read, 3) < 0
                    || nix::libc::dup2(high_write, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().unwrap();
        drop((to_browser_read, from_browser_write));
        let answers = reader(from_browser_read);
        let mut browser = Browser {
            child,
            commands: std::fs::File::from(to_browser_write),
            answers,
            session: String::new(),
            next_id: 0,
            messages: Vec::new(),
            requests: Vec::new(),
            _profile: profile,
        };
        let target = browser.call("Target.createTarget", json!({"url": "about:blank"}));
        let target = target["targetId"].as_str().unwrap().to_string();
        let attached = browser.call("Target.attachToTarget", json!({"targetId": target, "flatten": true}));
        browser.session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in ["Page.enable", "Runtime.enable", "Log.enable", "Network.enable"] {
            browser.call(domain, json!({}));
        }
        let metrics = json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false});
        browser.call("Emulation.setDeviceMetricsOverride", metrics);
        browser
    }

    /// Sends a command (to the page once attached) and waits for its
    /// answer; events that arrive meanwhile are kept.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        self.commands.write_all(&bytes).unwrap();
        let deadline = Instant::now() + ANSWER_WITHIN;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(answer) = self.answers.recv_timeout(left) else {
                panic!("chromium did not answer {method} within {ANSWER_WITHIN:?}")
            };
            if answer["id"] == id {
                assert!(answer.get("error").is_none(), "{method}: {}", answer["error"]);
                return answer["result"].clone();
            }
            self.note(&answer);
        }
    }

    /// Keeps what an event says about errors and console output.
    fn note(&mut self, event: &Value) {
        let params = &event["params"];
        match event["method"].as_str() {
            Some("Runtime.consoleAPICalled") => {
                let text: Vec<String> = params["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|a| a["value"].as_str().map_or_else(|| a["description"].to_string(), str::to_string))
                    .collect();
                self.messages.push((params["type"].as_str().unwrap_or("?").into(), text.join(" ")));
            }
            Some("Runtime.exceptionThrown") => {
                let details = &params["exceptionDetails"];
                let text = details["exception"]["description"].as_str().or(details["text"].as_str());
                self.messages.push(("exception".into(), text.unwrap_or("?").into()));
            }
            Some("Log.entryAdded") => {
                let entry = &params["entry"];
                self.messages.push((entry["level"].as_str().unwrap_or("?").into(), entry["text"].to_string()));
            }
            Some("Network.requestWillBeSent") => {
                self.requests.push(params["request"]["url"].as_str().unwrap_or("?").into());
            }
            Some("Network.loadingFailed") => {
                let text = format!("request {} failed: {}", params["requestId"], params["errorText"]);
                self.messages.push(("error".into(), text));
            }
            Some("Network.responseReceived") if params["response"]["status"].as_u64().is_some_and(|s| s >= 400) => {
                let response = &params["response"];
                self.messages.push(("error".into(), format!("{} answered {}", response["url"], response["status"])));
            }
            _ => {}
        }
    }

    /// Loads `page` and waits until `ready` (a script expression) is true.
    pub fn open(&mut self, page: &Path, ready: &str) {
        self.goto(&format!("file://{}", page.display()), ready);
    }

    /// Loads `url` and waits until `ready` (a script expression) is true.
    pub fn goto(&mut self, url: &str, ready: &str) {
        self.call("Page.navigate", json!({"url": url}));
        self.wait(url, ready);
    }

    /// Waits until the page's document is loaded and `ready` is true (after
    /// a navigation the page itself started: a form sent, a link followed).
    pub fn wait(&mut self, what: &str, ready: &str) {
        let deadline = Instant::now() + ANSWER_WITHIN;
        // The old document may still be there, or none yet.
        let probe = format!("(() => {{ try {{ return document.readyState === 'complete' && ({ready}) }} catch (e) {{ return false }} }})()");
        while self.eval(&probe) != json!(true) {
            assert!(Instant::now() < deadline, "{what} not ready ({ready}) within {ANSWER_WITHIN:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The value of a script expression (awaited when a promise), as JSON.
    pub fn eval(&mut self, expression: &str) -> Value {
        let params = json!({"expression": expression, "returnByValue": true, "awaitPromise": true});
        let result = self.call("Runtime.evaluate", params);
        if let Some(e) = result.get("exceptionDetails") {
            panic!("{expression}: {}", e["exception"]["description"]);
        }
        result["result"]["value"].clone()
    }

    /// Moves the mouse to `(x, y)` of the viewport, as a person would.
    pub fn hover(&mut self, x: f64, y: f64) {
        self.call("Input.dispatchMouseEvent", json!({"type": "mouseMoved", "x": x, "y": y}));
    }

    /// Moves the mouse over `[x, y]` of the first series of the chart (drawn
    /// by the vendored ECharts) under `selector` and returns the text its
    /// hover box then shows.
    pub fn chart_hover(&mut self, selector: &str, x: f64, y: f64) -> String {
        let at = self.eval(&format!(
            "(() => {{ const d = document.querySelector({selector:?}); d.scrollIntoView({{block: 'center'}});
               const p = echarts.getInstanceByDom(d).convertToPixel({{seriesIndex: 0}}, [{x}, {y}]);
               const r = d.getBoundingClientRect(); return [r.left + p[0], r.top + p[1]]; }})()"
        ));
        self.hover(at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
        // The hover box appears after the library's next frame.
        self.eval(&format!(
            "new Promise(done => setTimeout(() => {{ const tip = document.querySelector({selector:?})
               .querySelector('.chart-tip'); done(tip && getComputedStyle(tip).display !== 'none' ? tip.innerText : '') }}, 300))"
        ))
        .as_str()
        .unwrap()
        .to_string()
    }

    /// A PNG of the whole page, `width` pixels wide.
    pub fn screenshot(&mut self, width: u32) -> Vec<u8> {
        let height = self.eval("document.documentElement.scrollHeight").as_u64().unwrap();
        let metrics = json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false});
        self.call("Emulation.setDeviceMetricsOverride", metrics);
        let shot = self.call("Page.captureScreenshot", json!({"format": "png", "captureBeyondViewport": true}));
        STANDARD.decode(shot["data"].as_str().unwrap()).unwrap()
    }

    /// The console messages and page errors of level error or warning.
    pub fn problems(&mut self) -> Vec<(String, String)> {
        // Events that arrived after the last answer.
        while let Ok(event) = self.answers.try_recv() {
            self.note(&event);
        }
        let bad = ["error", "warning", "exception", "assert"];
        self.messages.iter().filter(|(level, _)| bad.contains(&level.as_str())).cloned().collect()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether two boxes `{left, right, top, bottom}` (an element's box on the
/// page) share any pixel.
pub fn overlap(a: &Value, b: &Value) -> bool {
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    f(a, "left") < f(b, "right")
        && f(b, "left") < f(a, "right")
        && f(a, "top") < f(b, "bottom")
        && f(b, "top") < f(a, "bottom")
}

/// A thread that reads NUL-ended messages from `fd` into a channel.
fn reader(fd: OwnedFd) -> Receiver<Value> {
    let (send, receive) = channel();
    std::thread::spawn(move || {
        let mut input = BufReader::new(std::fs::File::from(fd));
        let mut message = Vec::new();
        while input.read_until(0, &mut message).is_ok_and(|n| n > 0) {
            if message.last() == Some(&0) {
                message.pop();
            }
            if let Ok(value) = serde_json::from_slice(&message) {
                if send.send(value).is_err() {
                    return;
                }
            }
            message.clear();
        }
    });
    receive
}
