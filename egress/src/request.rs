//! The head of a request to the proxy: where it wants to go, and for plain
//! HTTP the head to send on.

use std::fmt;
use std::net::IpAddr;

/// Longest request head read (request line and headers).
pub const MAX_HEAD: usize = 16 << 10;

/// Where a client asked to go, as it asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    /// Lower case; an IPv6 address without its brackets.
    pub host: String,
    pub port: u16,
}

impl Destination {
    pub fn ip(&self) -> Option<IpAddr> {
        self.host.parse().ok()
    }
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// A request the proxy understood.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    /// `CONNECT host:port`: a tunnel.
    Connect(Destination),
    /// Plain HTTP: the head to send to the destination (origin-form, its
    /// `Host` the destination's, `Connection: close`).
    Forward { to: Destination, head: Vec<u8> },
}

/// Where the head ends (after its blank line), if it is all in `buf`.
pub fn head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// The request of a complete head, or why it is not one.
pub fn parse(head: &[u8]) -> Result<Request, String> {
    let text = std::str::from_utf8(head).map_err(|_| "the request head is not text".to_string())?;
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut words = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(format!("`{}` is not a request line", shorten(line)));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(format!("`{}` is not HTTP/1", shorten(version)));
    }
    let headers: Vec<(&str, &str)> = lines
        .take_while(|l| !l.is_empty())
        .map(|l| {
            l.split_once(':')
                .map(|(n, v)| (n.trim(), v.trim()))
                .ok_or_else(|| format!("`{}` is not a header", shorten(l)))
        })
        .collect::<Result<_, _>>()?;
    if method.eq_ignore_ascii_case("CONNECT") {
        return authority(target, None).map(Request::Connect);
    }
    let (to, path) = if let Some(rest) = target.strip_prefix("http://") {
        let (auth, path) = rest.find('/').map_or((rest, "/"), |i| rest.split_at(i));
        (authority(auth, Some(80))?, path)
    } else if target.starts_with('/') {
        // Sent to the proxy as if it were the server: the `Host` says where.
        let host = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("host"))
            .map(|(_, v)| *v)
            .ok_or("a request without `Host` and without an absolute URL")?;
        (authority(host, Some(80))?, target)
    } else if target.starts_with("https://") {
        return Err("an https:// URL is asked for with CONNECT".into());
    } else {
        return Err(format!(
            "`{}` is not a URL this proxy serves",
            shorten(target)
        ));
    };
    let mut out = format!(
        "{method} {path} {version}\r\nHost: {}\r\n",
        host_header(&to)
    );
    for (name, value) in &headers {
        let hop = [
            "host",
            "connection",
            "proxy-connection",
            "proxy-authorization",
            "keep-alive",
        ]
        .iter()
        .any(|h| name.eq_ignore_ascii_case(h));
        if !hop {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    // One request per connection: a second one on it could be for another host.
    out.push_str("Connection: close\r\n\r\n");
    Ok(Request::Forward {
        to,
        head: out.into_bytes(),
    })
}

/// `host:port` (or `host` with `default`), `[v6]:port`.
fn authority(text: &str, default: Option<u16>) -> Result<Destination, String> {
    let bad = || format!("`{}` is not host:port", shorten(text));
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or_else(bad)?;
        match after.strip_prefix(':') {
            Some(port) => (host, Some(port)),
            None if after.is_empty() => (host, None),
            None => return Err(bad()),
        }
    } else {
        match text.rsplit_once(':') {
            Some((host, port)) if !host.contains(':') => (host, Some(port)),
            Some(_) => return Err(bad()),
            None => (text, None),
        }
    };
    let port = match port {
        Some(p) => p.parse::<u16>().ok().filter(|p| *p != 0).ok_or_else(bad)?,
        None => default.ok_or_else(bad)?,
    };
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    let fine = |b: u8| b.is_ascii_alphanumeric() || b"-_.:".contains(&b);
    if host.is_empty() || host.len() > 253 || !host.bytes().all(fine) {
        return Err(bad());
    }
    if host.contains(':') && host.parse::<IpAddr>().is_err() {
        return Err(bad());
    }
    Ok(Destination { host, port })
}

fn host_header(to: &Destination) -> String {
    let host = if to.host.contains(':') {
        format!("[{}]", to.host)
    } else {
        to.host.clone()
    };
    if to.port == 80 {
        host
    } else {
        format!("{host}:{}", to.port)
    }
}

fn shorten(text: &str) -> String {
    let short: String = text.chars().take(80).collect();
    short.escape_debug().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dest(host: &str, port: u16) -> Destination {
        Destination {
            host: host.into(),
            port,
        }
    }

    #[test]
    fn connect_names_its_authority() {
        let r = parse(b"CONNECT API.Anthropic.com:443 HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert_eq!(r, Request::Connect(dest("api.anthropic.com", 443)));
        let r = parse(b"CONNECT [::1]:8443 HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(r, Request::Connect(dest("::1", 8443)));
        assert_eq!(dest("::1", 8443).to_string(), "[::1]:8443");
        assert!(
            parse(b"CONNECT github.com HTTP/1.1\r\n\r\n").is_err(),
            "no port"
        );
    }

    #[test]
    fn plain_http_goes_on_in_origin_form_one_request_per_connection() {
        let head = b"GET http://example.com:8080/a?b=1 HTTP/1.1\r\nHost: evil.example\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\nAccept: */*\r\n\r\n";
        let Request::Forward { to, head } = parse(head).unwrap() else {
            panic!("a forward");
        };
        assert_eq!(to, dest("example.com", 8080));
        assert_eq!(
            String::from_utf8(head).unwrap(),
            "GET /a?b=1 HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        );
    }

    #[test]
    fn a_request_sent_as_to_the_server_goes_where_its_host_says() {
        let r = parse(b"POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1:9000\r\n\r\n").unwrap();
        let Request::Forward { to, .. } = r else {
            panic!("a forward")
        };
        assert_eq!(to, dest("127.0.0.1", 9000));
    }

    #[test]
    fn what_is_not_a_request_says_so() {
        for (head, why) in [
            (&b"\x16\x03\x01\x02\x00\r\n\r\n"[..], "not a request line"),
            (b"GET https://x.example/ HTTP/1.1\r\n\r\n", "with CONNECT"),
            (b"GET / HTTP/1.1\r\n\r\n", "without `Host`"),
            (b"GET http://a b/ HTTP/1.1\r\n\r\n", "not a request line"),
            (b"CONNECT x:99999 HTTP/1.1\r\n\r\n", "not host:port"),
            (b"CONNECT x/y:1 HTTP/1.1\r\n\r\n", "not host:port"),
            (b"GET / HTTP/2\r\n\r\n", "not HTTP/1"),
            (b"GET / HTTP/1.1\r\nno colon\r\n\r\n", "not a header"),
        ] {
            let err = parse(head).unwrap_err();
            assert!(err.contains(why), "{err}");
        }
    }
}
