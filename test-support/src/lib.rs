//! What the tests of every crate share, written once: the client of Blaise's
//! user API with its waits, a stub HTTP server for the peers a test stands in
//! for, a free loopback port, a real PostgreSQL, and the walker that finds a
//! command or flag without help text.

pub mod api;
pub mod help;
pub mod http;
pub mod postgres;

/// A free port on 127.0.0.1 (bound and released: the server under test binds it next).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("binding a loopback port")
        .local_addr()
        .expect("the bound port")
        .port()
}
