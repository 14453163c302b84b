//! Values that look like credentials and prove nothing, which two corpora
//! written apart (`benches/recall/agent_tuning_9`, a coding agent's own
//! tools; `agent_tuning_10`, data and SaaS integrations) showed masked: a
//! token anyone can make (RFC 7519's example, an unsigned `alg: none`
//! JWT), a nonce a server sends (WebAuthn's `challenge`), base64 of ids
//! after a tag (Slack's `event_context`), a write key every page carries
//! (Segment's), an account's number under a key's name (Cloudinary's
//! `api_key`). Beside each, the credential of the same shape that is
//! masked. Each text is also streamed, cut at every byte and one character
//! at a time, and must come out as whole.
//!
//! The values are random, shaped like the real formats; none is a live
//! credential.

mod support;

use support::check;

const NOT_CREDENTIALS: &[&str] = &[
    "See RFC 7519 §3.1:\n\n    eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk\n",
    "An unsigned token is always refused:\n\n    eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ1c2VyXzEyMyIsImF1ZCI6Imh0dHBzOi8vYXBpLmV4YW1wbGUuY29tIiwiaWF0IjoxNzAwMDAwMDAwLCJleHAiOjE3MDAwMDM2MDB9.\n",
    "options {\"challenge\":\"QuwE-ejfisJkOI6DvKKlTqvmExcmVzW5EH5QpTcPic2\",\"rp\":{\"name\":\"acme-portal\",\"id\":\"localhost\"}}\n",
    "       \"is_ext_shared_channel\": false,\n       \"event_context\": \"4-eyJldCI6Im1lc3NhZ2UiLCJ0aWQiOiJUMFNCRUtBTzk2VEgiLCJhaWQiOiJBMDBaWENNM1NOSCIsImNpZCI6IkMwMjVGRUo0SjhDIn0=\"\n",
    "  analytics._writeKey=\"hR3W7WjJzCG6Xn2q9nfR3fZjYqf6OLEL\";analytics.SNIPPET_VERSION=\"5.2.0\";\n",
    "{\n  \"public_id\": \"products/q94x70qea1nm2ph83tio\",\n  \"api_key\": \"169115387051420\"\n}\n",
    // A WireGuard public key, in a file the tutorial names so.
    "$ cat /etc/wireguard/public.key\nxTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\n",
];

const MASKED: &[&str] = &[
    "  ALGOLIA_WRITE_KEY:  «91aad78a6939121cd3366ece0ba48b4d»\n",
    "{\n  \"api_key\": \"169115387051420\",\n  \"api_secret\": \"«Xk29fLq0Wm3nVb7Rt5YpQz1Hj8K»\"\n}\n",
    "db:\n  password: \"«12345678901»\"\n",
];

#[test]
fn what_proves_nothing_stays() {
    check(NOT_CREDENTIALS);
}

#[test]
fn credentials_of_the_same_shapes_are_masked() {
    check(MASKED);
}
