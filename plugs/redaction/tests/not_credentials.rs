//! Values that look like credentials and prove nothing, which two corpora
//! written apart (`benches/recall/agent_tuning_9`, a coding agent's own
//! tools; `agent_tuning_10`, data and SaaS integrations) showed masked: a
//! token anyone can make (RFC 7519's example, an unsigned `alg: none`
//! JWT), a nonce a server sends (WebAuthn's `challenge`), base64 of ids
//! after a tag (Slack's `event_context`), a write key every page carries
//! (Segment's), an account's number under a key's name (Cloudinary's
//! `api_key`), and what messaging and data stores print (`agent_tuning_14`:
//! a SASL mechanism, a key's id, SCRAM's stored keys, push tokens, a
//! user's hash) and sign-in tools (`agent_tuning_13`: published examples,
//! claims, hashes, anti-forgery cookies, signatures). Beside each, the credential of the same shape that is
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

/// What build, release and signing tools print beside their secrets
/// (`benches/recall/agent_tuning_12`): an address after a token's
/// variable, a release's public key and signature, a reference to a CI
/// secret by its name, a mask that keeps the last characters, TeamCity's
/// and Travis CI's stand-ins, a signature file printed.
const RELEASE_LOOK_ALIKES: &[&str] = &[
    "❯ curl -s -u bkumar:$JENKINS_API_TOKEN https://ci.quarkly.app/job/sdk-python/job/develop/415/consoleText\n",
    "  \"SUPublicEDKey\" => \"rMa+WNQiqlKZSBGa2nDzrd98RKz2BJgJSI3fIdccPqo=\"\n",
    "<enclosure url=\"https://github.com/wonka/kit/releases/download/v4.24.16/Kit-4.24.16.zip\" length=\"16916345\" sparkle:edSignature=\"PZKqpd0mSECE4aRKOvhD6V81UjNUrny5fLYMDGFw7PsF+xM9TY6ptREcCIJAK6RlFKMJhIlQWIR+pAnwoBD1Rg==\"/>\n",
    "      password:\n        from_secret: docker_password\n",
    "    {\n      \"name\": \"NPM_TOKEN\",\n      \"value\": \"xxxxb96d\"\n    },\n",
    "        password(\"env.SIGNING_PASSWORD\", \"credentialsJSON:8f4dfb0a-7aea-46f3-a324-c4b1f62f082e\", display = ParameterDisplay.HIDDEN)\n",
    "    password = \"%env.SONATYPE_PASSWORD%\"\n",
    "deploy:\n  api_token:\n    secure: \"tPwLOEY8HwkW7M1aEacIzK3rKfspsh+W+3yPL0YglIW3pyWo4hd1vvWjuVOtMFFn9GLJMBF13Mz7L/u88Nlwn5OscNcWw6by1+jln5qmQFIgePw8Z8kXdwMmbBU8YAOGRF9u1UMYCKzZfcywy+KQ/dG4OOH9L/mDsm79kFon80645WeAnR96bJXK6AL2udrl43Z65fUM9Gce1B/0IYluYGz4qJUBYwyUORoi6+wr4j19+I5bCM3uXX2wbkuEPhFrtsxpse9ZpiDmDj1BKnGfJDeRkgpHe18q6Dr4tyvCad1s6XXbN3SMI79zmqmNGh8Ihx5lUDXCsEYVAu9zE6YKEA==\"\n",
    "$ cat dist/plugin-kit.sig\nMEUCIQChRjgVQS/q6hKRMX9NjwuN1K3WkClOMZHPZ4xaWYWd8gIg+Bkwg4L3X5AcLC8S2dZ8IaiJ2F7v5adrUI87xCOIQt4=\n",
];

/// What debugging shows beside secrets (`benches/recall/agent_tuning_11`):
/// request headers that name an operation, an upload or a handshake's
/// nonce, an organization's id, masks (`██`), a value's type, a format's
/// directives in a binary's strings, Basic's scheme followed by no
/// credentials, an anti-forgery cookie, a Kubernetes object's kind and name.
const DEBUG_LOOK_ALIKES: &[&str] = &[
    "headers: {'X-Amz-Target': 'DynamoDB_20120810.GetItem', 'x-stainless-runtime': 'CPython', 'openai-organization': 'org-F9LLs3pKE12Um93kE89DU4lp'}\n",
    "X-GUploader-UploadID: ZALzNGkGp5TcI3TMffSnbVBWALsPu2sglMxfiI_f3jSh88wEPwrlT6CNrJGZ-1Od6fDU9zco1Aao\n",
    "        Sec-WebSocket-Key: LZfVXIxL7MDVrrb2kpCv/Q==\n",
    "okhttp3.OkHttpClient : Authorization: ██\n",
    "      -> http.request.header.authorization: Slice([\"REDACTED\"])\n",
    "    api_key=%s&ts=%ld\n    client_secret=%s&grant_type=client_credentials\n    X-Api-Key: %.*s\n",
    "level=warn msg=\"invalid Authorization scheme\" scheme=Basic path=/v1/webhooks/stripe\n",
    "Set-Cookie: csrftoken=WgAXy4leQsZQfNNJHz76PajWrMka3XGV; expires=Fri, 02 May 2025 13:12:56 GMT; Path=/\n",
    "     Controlled By:  ReplicaSet/payments-c32475ef9\n",
    "'Authorization': b'AWS4-HMAC-SHA256 Credential=AKIAY76AHUR7EZCP5IQJ/20250809/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date'\n",
    // systemd's memory-pressure setting: base64 of words and numbers.
    "$ ps eww 14978\n  PID TTY STAT TIME COMMAND\n14978 ? Ssl 0:03 /usr/bin/search-svc JOURNAL_STREAM=8:41971 MEMORY_PRESSURE_WRITE=c29tZSAyMDAwMDAgMjAwMDAwMAA= SYSTEMD_EXEC_PID=14978\n",
    "$ sudo cat -A /proc/10718/environ\nOTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector.observability:4317^@STRIPE_SECRET_KEY_PATH=/run/secrets/stripe^@TOKEN_TTL_SECONDS=3600^@\n",
];

/// What messaging, mail and data stores print beside their secrets: a
/// SASL mechanism in a table's `Auth` column, a key's id in a `Key` column
/// (Confluent's, MinIO's access keys), SCRAM's stored credentials, the Push
/// API's public key, a device's push token, a ClickHouse user's hash, a
/// mail's routing headers, a `$` escaped in a string run again, `swaks`'
/// stand-in for the password it hides.
const MESSAGING_LOOK_ALIKES: &[&str] = &[
    "| Service | Endpoint | Auth | Owner |\n|---|---|---|---|\n| Kafka | `b-1.mercato.kafka:9093` | SASL/SCRAM-SHA-512 | @marco |\n| IMAP | `imap.mercato.net:993` | XOAUTH2 | @pl |\n",
    "  Current |       Key        |     Description      |   Owner\n----------+------------------+----------------------+-----------\n    *     | RO0ZQYK2RFAPZRQX | kafka-ui             | u-5ox5c\n",
    "$ mc admin user svcacct ls staging svc-backup\nAccess Key             Expiry\nTDYBI4U5622DVQ5SRFKH   2025-05-14T11:17:24Z\nW8V6667CNVKCTP90QLV9   2025-05-14T11:17:24Z\n",
    "{\"SCRAM-SHA-512\":\"salt=aW9kYm56cWtzN2NhNzcxaHMycnludjYwbTc=,stored_key=QXRNRxiWvOk9fnDdOyRTovPYDnF8UX8lUjTKYOshSGrEDTxuvF7Du3Q3f20wuYNg+tQQR7cbMyJLPLLJwivDvg==,server_key=iXhKsjjunwiyPyMbmC3X9zbX4LC8eXAiSWQm5IOPNaNNt1xXafe/gi0VwxghjkPWj6/x,iterations=4096\"}\n",
    "  'SCRAM-SHA-256': { iterationCount: 15000, salt: 'x/TxW3x/tUIrMQN+RoD/FamzVrE=', storedKey: 'NLVyG+ZIZbUsx3XvGPjF/tUBdf0fdXnY8zm2lx8cHFg=', serverKey: 'Tw1c9Qm7Yb2Lk5Rp8Zs4Vd6Nf3Hj0Xg1Ce7Ua2Ko9Pq=' }\n",
    "applicationServerKey:\"BJzWMgvvCCvv7orrUccUX7sn9u1THlYESx0VzCFX0gQMAa9bmbv0bqroDitSGhrVVrNvAhxWaEMZGFZKphtMhmU\"\n",
    "{\"token\": \"EGTkSk9CBFqn6l0SqKJDsc:APA91bmAWwuON27YW\\u2026\", \"name\": \"projects/app/messages/0:1732854878334\"}\n",
    "CREATE USER ingest IDENTIFIED WITH sha256_hash BY 'D9D4F743D7AC027349298F748ADB3DD6B8399E66AC901E5BEBCEE9AC7769529C' SALT '75F3CF41F3993D2FC3B93DE151B72617' HOST IP '10.0.0.0/8'\n",
    "MIME-Version: 1.0\nX-SG-EID: tQxIZZgDsuXt2Zbwv/bv8ABFBMn4Yu7A0Rj7vXx6GfkNUwVAihZw/NNqF1TTDhJpgJ9miYIGs8Ot/lw22qlVHUp5V5cnAnDMVAPD7ORstqHGacGaWe6giDWg\nX-Entity-ID: ktFEXkEqTLGjoM4Q1WWp6A==\n",
    "bash -lc \"curl -s --user \\\"api:\\$MAILGUN_API_KEY\\\" \\\"https://api.mailgun.net/v3/mg.example.net/events\\\"\"\n",
    "     <~  334 UGFzc3dvcmQ6\n      ~> UFJPVEVDVEVE\n     <~  235 2.7.0 Authentication successful\n",
    " ~> AUTH PLAIN AG5vcmVwbHlAcGFyY2Vsd2lzZS5kZXYAUFJPVEVDVEVE\n",
];

/// What sign-in and access tools print beside their secrets
/// (`agent_tuning_13`): a package's version in a row named `next-auth`, the
/// examples RFC 6749, 6750 and 7636 publish, an unsigned token of RFC
/// 7519, an XML setting named like a header, `/etc/shadow`'s fields, an
/// htpasswd's hashes, a decoded token's claims, anti-forgery cookies in a
/// cookie jar, a SAML request's signature, a passkey's registration.
const IDENTITY_LOOK_ALIKES: &[&str] = &[
    "│ Package         │ Current │ Latest         │\n├─────────────────┼─────────┼────────────────┤\n│ next-auth       │ 4.24.7  │ 4.24.11        │\n│ passport        │ 0.7.0   │ 0.7.0 (wanted) │\n",
    "docs/oauth/token-endpoint.md:10:    client_id=s6BhdRkqt3&client_secret=7Fjfp0ZBr1KtDRbnfVdmIw\ndocs/oauth/token-endpoint.md:11:    Authorization: Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW\n",
    "{\"access_token\":\"2YotnFZFEjr1zCsicMWpAA\",\"token_type\":\"example\",\"expires_in\":3600,\"refresh_token\":\"tGzv3JOkF0XG5Qx2TlKWIA\"}\n",
    "code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk\n",
    "Unsigned tokens must be rejected: `eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.`\n",
    "<OAuthV2 name=\"OA-verify-token\">\n    <ExternalAuthorization>false</ExternalAuthorization>\n</OAuthV2>\n",
    "# getent shadow deploy svc-backup\ndeploy:!:19676:0:99999:7:::\nsvc-backup:*:19676:0:99999:7:::\n",
    "$ cat /etc/nginx/.htpasswd\nci:{SHA}Aq481J9Z2A4FCukj9k1xrcCLW5Q=\nmetrics:{SHA}DegkUReNTbvAU/Ya9aAxrCxTZIY=\n",
    "userPassword: {SSHA}K8vR3mN2qL7pX9wZ4tY6uB1cD5eF0gHj\n",
    "│ sub         │ 6iMDVEUTGTbpil_CJkL6uVVBinq1CbB47ZCtO3q6yWA                   │\n│ uti         │ MRw475L1GPNuZIJ3CcZEEQ                                        │\n",
    "app.example.com\tFALSE\t/\tTRUE\t1748810013\tcsrftoken\tbwTa7VAbkvVJPQjBDLZMPkO1rnNwWFV7\n#HttpOnly_app.example.com\tFALSE\t/\tTRUE\t1717364013\t__Host-csrf\tYx4eV9VCn0SOoz3uLUmQqsiIgNnbRa0dsqekh88uJG0\n",
    "GET https://idp.example.com/sso?SAMLRequest=fZJNT8MwDIbv%2FIoqd9Z2A4FCukj9k&RelayState=r8Sq9qd8St6HqcCq&SigAlg=http%3A%2F%2Fwww.w3.org%2F2001%2F04%2Fxmldsig-more%23rsa-sha256&Signature=3xr%2Fn8hheLIeLt1sIc2rwU7tdOfs3N56D2GHR1F9D%2FI3t0pq6FIAixnMGw2ndrn%2BX0Y6Ln%2Bmoyhjit\n",
    "{\"response\":{\"attestationObject\":\"o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikK1r16Kxygpypy0HgfxONFG0Gpzi6N-kl55-4bNCc8JBdAAAAAAiYcFjK3EuBtuEw3lDcvpYAINQ7tMz2I3tpWg3ExYtoUoxUZf_C\",\"authenticatorData\":\"K1r16Kxygpypy0HgfxONFG0Gpzi6N-kl55-4bNCc8JBdAAAAAA\"}}\n",
];

const MASKED: &[&str] = &[
    "  ALGOLIA_WRITE_KEY:  «91aad78a6939121cd3366ece0ba48b4d»\n",
    "{\n  \"api_key\": \"169115387051420\",\n  \"api_secret\": \"«Xk29fLq0Wm3nVb7Rt5YpQz1Hj8K»\"\n}\n",
    "db:\n  password: \"«12345678901»\"\n",
    // The same places with the secret itself.
    "❯ export JENKINS_API_TOKEN «11a3f2c9d8e7b6a5f4e3d2c1b0a9f8e7d6»\n",
    "  \"SUPrivateEDKey\" => \"«rMa+WNQiqlKZSBGa2nDzrd98RKz2BJgJSI3fIdccPqo=»\"\n",
    "    password = \"«Wq8#kPz2!vLm»\"\n",
    "DB_PASSWORD=«%sUp3rS3cret!»\n",
    "SIGNING_SEED=«Xk29fLq0Wm3nVb7Rt5YpQz1Hj8K»\n",
    "password: «%d9Gk#2pLx»\n",
    "DB_PASSWORD=«Admin/kestrel7741»\n",
    "X-Honeycomb-Team: «hcaik_01hx2k3m4n5p6q7r8s9t0v1w2x3y4z5a6b7c8d9e0f1g2h3j4k5m6n7p8q»\n",
    "Authorization: Basic «YWRtaW46UzNjcmV0IVBhc3M=»\n",
    "    GOPROXY='https://ci:«cwVg6DIlEZG^»@athens.acme.dev,https://proxy.golang.org,direct'\n",
    "Set-Cookie: sessionid=«WgAXy4leQsZQfNNJHz76PajWrMka3XGV»; Path=/\n",
    "$ cat secrets/release.key\n«MEUCIQChRjgVQS/q6hKRMX9NjwuN1K3WkClOMZHPZ4xaWYWd8gIg+Bkwg4L3X5AcLC8S»\n",
    // Beside the messaging look-alikes: a password in an `Auth` column, a
    // key's secret in a `Key` column, a FCM server key, a plaintext
    // password for ClickHouse, an unescaped password.
    "| Service | Auth | Owner |\n|---|---|---|\n| Kafka | «Wq8#kPz2!vLm» | @marco |\n",
    "  Key              |     Secret\n-------------------+--------------------------------------------------------------------\n  RO0ZQYK2RFAPZRQX | «cfltxQSEZFGTvBcUHWtxQFVM21tvosULn3hhKyKmlB2nnF/eKrxUYee2+O4Eg9Zc»\n",
    "{\"serverKey\": \"«AAAAq3bF2xk:APA91bHkZx2qW9mR7Lp4Vt8Yc3Nd6Jf1Gh0Ks5Bm2Xr9Qe7Uw4Zn8Cv1Ty6Pa3Lo0Ij5Hg2Fd9Sa4Qw7Er1Ty8Ui3Op6As0Df5Gh2Jk9Lz4Xc7Vb1Nm6Qw3Er8Ty5Ui0Op2As7Df4Gh9Jk1Lz6Xc3Vb8Nm5Qw0Er7Ty2Ui4Op9As»\"}\n",
    "CREATE USER ingest IDENTIFIED WITH sha256_password BY '«Velvet_basil8037»'\n",
    "curl -s --user \"api:«key-3f9c2e871b04d5e9f6a7c8b2d1e0f93a»\" https://api.mailgun.net/v3/x/events\n",
    // Beside the sign-in look-alikes: a package row's secret, a signed URL
    // that grants access, a `.pgpass` line, a session in a cookie jar, a
    // password kept in clear under a scheme that says so, a signed token.
    "│ next-auth       │ «Wq8kPz2vLmNb4T» │\n",
    "https://d111111abcdef8.cloudfront.net/report.pdf?Expires=1700000000&Signature=«Kx2mQ8uV3oJ1rD9aTn7bLzWqEe0fG5hYs4kCjOp6As0Df5Gh2Jk9Lz4Xc7Vb1Nm6»&Key-Pair-Id=K2JCJMDEHXQW5F\n",
    "db.internal:5432:app:app:«Wq8kPz2vLm\\:Nb4T»\n",
    "app.example.com\tFALSE\t/\tTRUE\t1748810013\tsessionid\t«WgAXy4leQsZQfNNJHz76PajWrMka3XGV»\n",
    "{\"token\": \"«eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyXzEyMyIsImV4cCI6MTcwMDAwMzYwMH0.Kx2mQ8uV3oJ1rD9aTn7bLzWqEe0fG5hYs4kCjOp6As0»\"}\n",
];

#[test]
fn what_proves_nothing_stays() {
    check(NOT_CREDENTIALS);
}

#[test]
fn what_debugging_shows_beside_secrets_stays() {
    check(DEBUG_LOOK_ALIKES);
}

#[test]
fn what_releases_print_beside_their_secrets_stays() {
    check(RELEASE_LOOK_ALIKES);
}

#[test]
fn what_messaging_and_stores_print_beside_their_secrets_stays() {
    check(MESSAGING_LOOK_ALIKES);
}

#[test]
fn what_sign_in_tools_print_beside_their_secrets_stays() {
    check(IDENTITY_LOOK_ALIKES);
}

#[test]
fn credentials_of_the_same_shapes_are_masked() {
    check(MASKED);
}
