//! A registry that lies, for tests: a tiny HTTP/1.1 server on 127.0.0.1 that
//! answers each path with whatever a test wrote for it — sizes that are not
//! true, bodies that never end or trickle, redirects elsewhere, odd media
//! types. A real registry (Debian's `docker-registry`, see
//! [`crate::registry`]) cannot be made to misbehave like this, which is why
//! this double exists; the well-behaved paths are tested against the real one.

use std::collections::HashMap;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

/// What a path answers.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Body,
    /// `Content-Length` to announce; `None` ends the body by closing.
    pub content_length: Option<u64>,
}

#[derive(Clone)]
pub enum Body {
    Bytes(Vec<u8>),
    /// `0` bytes for ever (until the client goes away).
    Endless,
    /// These bytes, one every `every`.
    Trickle(Vec<u8>, Duration),
}

impl Reply {
    /// 200 with these bytes and their true length.
    pub fn ok(bytes: impl Into<Vec<u8>>) -> Reply {
        let bytes = bytes.into();
        Reply {
            status: 200,
            headers: Vec::new(),
            content_length: Some(bytes.len() as u64),
            body: Body::Bytes(bytes),
        }
    }

    pub fn status(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: Body::Bytes(Vec::new()),
            content_length: Some(0),
        }
    }

    pub fn redirect(to: &str) -> Reply {
        Reply::status(307).header("Location", to)
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn body(mut self, body: Body, content_length: Option<u64>) -> Reply {
        self.body = body;
        self.content_length = content_length;
        self
    }
}

pub struct FakeRegistry {
    /// `127.0.0.1:PORT`.
    pub addr: String,
    routes: Arc<Mutex<HashMap<String, Reply>>>,
    requests: Arc<Mutex<Vec<String>>>,
}

/// A Wasm artifact as a registry would hold it.
pub struct Artifact {
    pub manifest: Vec<u8>,
    pub digest: String,
    pub layer_digest: String,
}

pub fn sha256(bytes: &[u8]) -> String {
    blaise_runner::distribution::Digest::of(bytes).to_string()
}

impl Default for FakeRegistry {
    fn default() -> Self {
        Self::start()
    }
}

impl FakeRegistry {
    pub fn start() -> FakeRegistry {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let routes: Arc<Mutex<HashMap<String, Reply>>> = Arc::default();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        routes
            .lock()
            .unwrap()
            .insert("/v2/".into(), Reply::ok(b"{}".to_vec()));
        let (r, q) = (routes.clone(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (r, q) = (r.clone(), q.clone());
                std::thread::spawn(move || serve(stream, &r, &q));
            }
        });
        FakeRegistry {
            addr,
            routes,
            requests,
        }
    }

    /// Answers `path` (both GET and HEAD) with `reply`.
    pub fn route(&self, path: &str, reply: Reply) {
        self.routes.lock().unwrap().insert(path.into(), reply);
    }

    /// `127.0.0.1:PORT/REPO:TAG`.
    pub fn reference(&self, repo_and_tag: &str) -> String {
        format!("{}/{repo_and_tag}", self.addr)
    }

    /// How many requests (`METHOD path`, and `Authorization: …` when one was
    /// sent) contained `needle`.
    pub fn requests_for(&self, needle: &str) -> usize {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.contains(needle))
            .count()
    }

    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    /// A manifest for `wasm` with what `tweak` changes, served at `repo:tag`
    /// and its digest, with its config and layer blobs served truly.
    pub fn artifact(
        &self,
        repo: &str,
        tag: &str,
        wasm: &[u8],
        tweak: impl FnOnce(&mut serde_json::Value),
    ) -> Artifact {
        let config = br#"{"architecture":"wasm","os":"wasip2"}"#.to_vec();
        let layer_digest = sha256(wasm);
        let mut manifest = json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.wasm.config.v0+json",
                "digest": sha256(&config),
                "size": config.len(),
            },
            "layers": [{
                "mediaType": "application/wasm",
                "digest": layer_digest,
                "size": wasm.len(),
            }],
        });
        tweak(&mut manifest);
        let manifest = serde_json::to_vec(&manifest).unwrap();
        let digest = sha256(&manifest);
        self.serve_manifest(repo, tag, &manifest);
        self.route(
            &format!("/v2/{repo}/blobs/{}", sha256(&config)),
            Reply::ok(config),
        );
        self.route(
            &format!("/v2/{repo}/blobs/{layer_digest}"),
            Reply::ok(wasm.to_vec()),
        );
        Artifact {
            manifest,
            digest,
            layer_digest,
        }
    }

    /// Serves `manifest` at `repo:tag` and at its digest.
    pub fn serve_manifest(&self, repo: &str, tag: &str, manifest: &[u8]) {
        let digest = sha256(manifest);
        let media_type = serde_json::from_slice::<serde_json::Value>(manifest)
            .ok()
            .and_then(|m| m["mediaType"].as_str().map(str::to_string))
            .unwrap_or_else(|| "application/vnd.oci.image.manifest.v1+json".into());
        let reply = Reply::ok(manifest.to_vec())
            .header("Docker-Content-Digest", &digest)
            .header("Content-Type", &media_type);
        self.route(&format!("/v2/{repo}/manifests/{tag}"), reply.clone());
        self.route(&format!("/v2/{repo}/manifests/{digest}"), reply);
    }
}

fn serve(stream: TcpStream, routes: &Mutex<HashMap<String, Reply>>, requests: &Mutex<Vec<String>>) {
    let Some(request) = blaise_test_support::http::read_request(&stream) else {
        return;
    };
    let (method, target) = (request.method.as_str(), request.target.as_str());
    let path = request.path().to_string();
    // An `Authorization` header is noted with the request (what credentials reached us).
    let seen = match request.header("authorization") {
        Some(value) => format!("{method} {target} Authorization: {value}"),
        None => format!("{method} {target}"),
    };
    requests.lock().unwrap().push(seen);
    let reply = routes
        .lock()
        .unwrap()
        .get(&path)
        .cloned()
        .unwrap_or_else(|| {
            Reply::ok(br#"{"errors":[{"code":"NAME_UNKNOWN","message":"no such thing"}]}"#.to_vec())
                .with_status(404)
        });
    let mut out = stream;
    let mut head = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(length) = reply.content_length {
        head.push_str(&format!("Content-Length: {length}\r\n"));
    }
    head.push_str("\r\n");
    if out.write_all(head.as_bytes()).is_err() || method == "HEAD" {
        return;
    }
    match reply.body {
        Body::Bytes(bytes) => {
            let _ = out.write_all(&bytes);
        }
        Body::Endless => {
            let chunk = vec![0u8; 64 << 10];
            while out.write_all(&chunk).is_ok() {}
        }
        Body::Trickle(bytes, every) => {
            for byte in bytes {
                if out.write_all(&[byte]).is_err() {
                    return;
                }
                std::thread::sleep(every);
            }
        }
    }
}

impl Reply {
    fn with_status(mut self, status: u16) -> Reply {
        self.status = status;
        self
    }
}
