//! A stub HTTP/1.1 server on 127.0.0.1 for a peer a test stands in for (Blaise
//! down or refusing, a registry): one request per connection, read whole,
//! answered by the test's handler or hung up on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// A request as the stub read it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The path with its query.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The path without its query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// A header's value, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the stub answers.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    pub fn json(status: u16, body: &str) -> Response {
        Response::new(status, body).header("Content-Type", "application/json")
    }

    pub fn header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

/// Reads one request: the request line, the head, and a `Content-Length` body.
/// `None` when the client hung up or sent no request.
pub fn read_request(stream: &TcpStream) -> Option<Request> {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => return None,
            Ok(_) if header == "\r\n" || header == "\n" => break,
            Ok(_) => {
                if let Some((name, value)) = header.split_once(':') {
                    headers.push((name.trim().to_string(), value.trim().to_string()));
                }
            }
        }
    }
    let mut request = Request {
        method,
        target,
        headers,
        body: Vec::new(),
    };
    let length: usize = request
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    request.body = vec![0; length];
    reader.read_exact(&mut request.body).ok()?;
    Some(request)
}

/// Writes `response` and closes the connection. A `HEAD` gets the head only.
pub fn write_response(mut stream: &TcpStream, method: &str, response: &Response) {
    let mut head = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", response.status);
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", response.body.len()));
    if stream.write_all(head.as_bytes()).is_ok() && method != "HEAD" {
        let _ = stream.write_all(&response.body);
    }
}

/// Serves on `listener` in a thread of its own, one connection at a time:
/// `handle` answers each request, or returns `None` to hang up without an
/// answer (the answer is lost).
pub fn serve(
    listener: TcpListener,
    handle: impl Fn(&Request) -> Option<Response> + Send + 'static,
) -> String {
    let url = format!(
        "http://{}",
        listener.local_addr().expect("the stub's address")
    );
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let Some(request) = read_request(&stream) else {
                continue;
            };
            if let Some(response) = handle(&request) {
                write_response(&stream, &request.method, &response);
            }
        }
    });
    url
}
