//! A git server over HTTP that wants a token: git's own `http-backend` (CGI)
//! behind basic authentication, on loopback. It is what a private GitHub or
//! GitLab repository looks like to `git clone https://…`.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use tokio::io::AsyncWriteExt;

pub struct GitHttp {
    /// `http://127.0.0.1:PORT/`: append a repository's directory name.
    pub url: String,
    /// Every `Authorization` header the server received, decoded.
    pub seen: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

struct Server {
    root: PathBuf,
    credentials: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl GitHttp {
    /// Serves the repositories under `root`; only `user:token` gets in.
    pub async fn start(root: PathBuf, user: &str, token: &str) -> GitHttp {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let server = Arc::new(Server {
            root,
            credentials: format!("{user}:{token}"),
            seen: seen.clone(),
        });
        let app = axum::Router::new().fallback(serve).with_state(server);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        GitHttp { url, seen, task }
    }
}

impl Drop for GitHttp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(State(server): State<Arc<Server>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let given = basic_credentials(&parts.headers);
    if let Some(given) = &given {
        server.seen.lock().unwrap().push(given.clone());
    }
    if given.as_deref() != Some(server.credentials.as_str()) {
        return Response::builder()
            .status(StatusCode::UNAUTHORIZED)
            .header("WWW-Authenticate", "Basic realm=\"git\"")
            .body(Body::empty())
            .unwrap();
    }
    let body = axum::body::to_bytes(body, 64 << 20)
        .await
        .unwrap_or_default();
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let mut child = tokio::process::Command::new("git")
        .arg("http-backend")
        .env("GIT_PROJECT_ROOT", &server.root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", parts.method.as_str())
        .env("PATH_INFO", parts.uri.path())
        .env("QUERY_STRING", parts.uri.query().unwrap_or_default())
        .env("CONTENT_TYPE", header("content-type"))
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("HTTP_CONTENT_ENCODING", header("content-encoding"))
        .env("GIT_PROTOCOL", header("git-protocol"))
        .env("REMOTE_USER", "tests")
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("git http-backend");
    let mut stdin = child.stdin.take().unwrap();
    let feed = async move {
        let _ = stdin.write_all(&body).await;
    };
    let (_, out) = tokio::join!(feed, child.wait_with_output());
    cgi_response(Bytes::from(out.unwrap().stdout))
}

/// A CGI answer (headers, a blank line, the body) as an HTTP response.
fn cgi_response(out: Bytes) -> Response {
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| out.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
    let Some((end, gap)) = split else {
        return Response::builder()
            .status(StatusCode::BAD_GATEWAY)
            .body(Body::empty())
            .unwrap();
    };
    let mut response = Response::builder().status(StatusCode::OK);
    for line in String::from_utf8_lossy(&out[..end]).lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("status") {
            let code = value.split_whitespace().next().and_then(|c| c.parse().ok());
            response = response.status(code.unwrap_or(500));
        } else if let Ok(value) = HeaderValue::from_str(value) {
            response = response.header(name.trim(), value);
        }
    }
    response.body(Body::from(out.slice(end + gap..))).unwrap()
}

fn basic_credentials(headers: &HeaderMap) -> Option<String> {
    use base64::Engine;
    let value = headers.get("authorization")?.to_str().ok()?;
    let encoded = value.strip_prefix("Basic ")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    String::from_utf8(bytes).ok()
}
