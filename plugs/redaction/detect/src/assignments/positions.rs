//! A name that says nothing of its value (`value`, `sig`, `code`,
//! `UPSTREAM_AUTH`, `X-Client`) where its place says it is a setting's: the
//! key of a config's line (INI, TOML, YAML, JSON, `.properties`, an env
//! file, a Dockerfile's `ENV`/`ARG`), of a header a client sends, of an XML
//! element's attribute, or a `helm --set` path. There a value that looks
//! random is a credential's whatever it is called ([`POSITION_KEY`]: the
//! value must look like a key), unless the name says what else it is: an
//! identifier, a digest, a public part, a place, a version
//! ([`NOT_SECRET_LAST`], [`NOT_SECRET_ANY`]). What stands in for a value (placeholders,
//! references, masks) is left by the value's own tests.

use super::names::Name;

/// The kind of a name that [`name`] reads from its place: as
/// [`super::names::NAMED_KEY`] (the value must look like a key), and the
/// value must end its line, its attribute or its `--set` item.
pub(super) const POSITION_KEY: &str = "position-key";

/// The kind of a name read from a place inside a line ([`inline`]): data
/// holds ids there as often as configs hold keys, so the value must be
/// longer and of all three classes of characters
/// ([`super::values::inline_key`]).
pub(super) const INLINE_KEY: &str = "inline-key";

/// Whether `kind` is one of a name read from its place.
pub(super) fn placed(kind: &str) -> bool {
    kind == POSITION_KEY || kind == INLINE_KEY
}

/// Last parts of a name (split at `_`, `-`, `.` and lower-to-upper case)
/// that say its value is no credential (`upstream_auth_id` is an id,
/// `cache_path` a path).
const NOT_SECRET_LAST: &[&[u8]] = &[
    // Travis CI's `secure: "…"`: ciphertext for the repository's key.
    b"secure",
    // What a request names (`X-Amz-Target`), whose account it is for
    // (`OpenAI-Organization: org-…`).
    b"target",
    b"organization",
    // A token's claims, decoded (`jwt decode`, a claims table): whom and
    // what it names, never the token (`sub`, `jti`, Entra's `uti`, `aio`,
    // `oid`, `tid`, OIDC's `sid`, `at_hash`).
    b"sub",
    b"jti",
    b"uti",
    b"aio",
    b"oid",
    b"tid",
    b"sid",
    b"azp",
    b"hash",
    // What a passkey's registration and sign-in send: signed by the
    // authenticator, public (WebAuthn's `response`).
    b"attestationobject",
    b"authenticatordata",
    b"clientdatajson",
    b"userhandle",
    // Identifiers.
    b"id",
    b"ids",
    b"uid",
    b"uuid",
    b"guid",
    b"kid",
    b"keyid",
    b"oid",
    b"sid",
    b"arn",
    b"urn",
    b"name",
    b"names",
    b"label",
    b"title",
    b"slug",
    b"alias",
    b"handle",
    b"user",
    b"username",
    b"login",
    b"email",
    b"account",
    b"tenant",
    b"org",
    b"project",
    b"owner",
    b"accessor",
    b"recipient",
    b"recipients",
    b"issuer",
    b"audience",
    b"subject",
    b"sender",
    b"address",
    b"addr",
    b"endpoint",
    b"domain",
    // `User-Agent: GitHub-Hookshot/3026788`, `Server: …`: a program's name
    // and version.
    b"agent",
    b"server",
    // WireGuard's `peer: <public key>`, age's recipients (`age: age1…`).
    b"peer",
    b"peers",
    b"age",
    // `vault list`'s header: the names of what is listed.
    b"keys",
    // A representation's label (`ksuid inspect`'s `String:`, `Raw:`).
    b"string",
    b"raw",
    // Domain verification records (`google-site-verification=…`): public.
    b"verification",
    // reCAPTCHA's and Turnstile's `data-sitekey`: public by design.
    b"sitekey",
    b"status",
    b"state",
    b"type",
    b"kind",
    b"mode",
    b"algorithm",
    b"alg",
    b"cipher",
    b"scheme",
    b"method",
    b"encoding",
    // Versions and references to other things.
    b"version",
    b"ver",
    b"rev",
    b"revision",
    b"commit",
    b"ref",
    b"tag",
    b"image",
    b"build",
    b"marker",
    b"page",
    b"offset",
    b"salt",
    b"iv",
    // A message's authentication code (Ably's token request `mac`).
    b"mac",
    b"hmac",
    // When (`Last Updated Timestamp`, `created_at`).
    b"timestamp",
    b"time",
    b"date",
    b"created",
    b"updated",
    b"modified",
    b"expires",
    b"expiry",
    b"expiration",
    // DKIM's body hash (`bh=…;` in a `DKIM-Signature` header).
    b"bh",
    // A key's public members (.NET's `<Modulus>`, `<Exponent>`).
    b"modulus",
    b"exponent",
    // Places and public things.
    b"url",
    b"uri",
    b"path",
    b"file",
    b"dir",
    b"host",
    b"hostname",
    b"region",
    b"zone",
    b"bucket",
    b"cert",
    b"certificate",
    b"crt",
    b"ca",
    // A JSON Web Key's public members (its private ones are `jwk`'s).
    b"n",
    b"e",
    b"x",
    b"y",
    b"crv",
    b"x5c",
    b"x5t",
];

/// Parts that say so anywhere in a name (`sha256_value`, `public_blob`,
/// `trace_header`): digests and signatures of public data, public halves,
/// tracing.
const NOT_SECRET_ANY: &[&[u8]] = &[
    b"hash",
    b"digest",
    b"checksum",
    b"sum",
    b"sha",
    b"sha1",
    b"sha256",
    b"sha512",
    b"sha3",
    b"sha224",
    b"sha384",
    b"md5",
    b"etag",
    b"integrity",
    b"fingerprint",
    b"thumbprint",
    b"nonce",
    // WebAuthn's and other protocols' challenges: a nonce the server sends.
    b"challenge",
    b"public",
    b"pub",
    b"trace",
    b"span",
    b"request",
    b"correlation",
    b"cursor",
    // Ciphertext (`<CipherValue>`, `encrypted_value`): the key is elsewhere.
    b"cipher",
    b"ciphertext",
    b"encrypted",
    // A cache's key (`Cache restored from key: …`).
    b"cache",
    // Cloudflare's `cf-ray`, campaign tags (`utm_content`).
    b"ray",
    b"utm",
];

/// Content carried as data: a value under these names is a payload, not a
/// credential (`data: <base64>`, `"content": …`).
const CONTENT_NAMES: &[&[u8]] = &[
    b"data", b"payload", b"body", b"content", b"blob", b"icon", b"logo", b"avatar",
];

/// Words before a name on its line that make it a setting's key (a
/// Dockerfile's `ENV`/`ARG`, a shell's `export`/`set`/`setenv`).
const LINE_WORDS: &[&[u8]] = &[
    b"export ",
    b"ENV ",
    b"ARG ",
    b"set ",
    b"setenv ",
    b"readonly ",
    b"$env:",
    b"$Env:",
];

/// Whether the word at `s` may start a name in one of those places: its
/// line's first word (after blanks, a list's `- `, a quote), or after a
/// blank or a quote, where [`name`] reads the rest. A cheap test made before
/// a word that names nothing is looked at again.
/// The name ends at `ke`.
#[inline(always)]
pub(super) fn may_be(b: &[u8], s: usize, ke: usize) -> bool {
    // `--relay <value>`: a flag's value after a blank.
    if b[s..].starts_with(b"--") && b.get(ke) != Some(&b'=') {
        let v = ke + 1;
        let end = (v + 16).min(b.len());
        return (s == 0 || b[s - 1] == b' ')
            && b.get(ke) == Some(&b' ')
            && v < end
            && b[v..end].iter().all(|&c| crate::TOKEN[c as usize]);
    }
    (s == 0
        || matches!(b[s - 1], b'\n' | b' ' | b'\t' | b'"' | b'\'' | b'$' | b'{')
        // `<relay>…`: an element. (Not `f(seal="…")`: words after a `(`
        // are many, and reading them cost a tenth of the speed; a later
        // argument, after `, `, is read.)
        || (b[s - 1] == b'<' && b.get(ke) == Some(&b'>')))
        && long_value_after(b, ke)
}

/// The name `[ks, ke)` (its word starts at `ks`) read from its place: a
/// setting's key that says nothing of its value.
#[inline(never)]
pub(super) fn name(b: &[u8], ks: usize, ke: usize) -> Option<Name> {
    let ks = if ke - ks > 4
        && b[ks..ks + 4].eq_ignore_ascii_case(b"env:")
        && ks > 0
        && b[ks - 1] == b'$'
    {
        ks + 4
    } else {
        ks
    };
    // `--set a=1,b=…`: the word holds the list; its last item's name.
    let ks = memchr::memrchr(b',', &b[ks..ke]).map_or(ks, |p| ks + p + 1);
    // `--relay …`, `-Drelay.seal=…`: a flag's, a Java property's name;
    // `:relay => …`, a Ruby symbol's.
    let flag = b[ks..ke].starts_with(b"--") || b[ks..ke].starts_with(b"-D");
    let ks = ks
        + if flag {
            2
        } else {
            usize::from(ks < ke && b[ks] == b':')
        };
    // A flag's value may follow a blank (`may_be` looked at it). One that
    // is itself `name=value` is an item (`--set a.b=…`, `--env="A=…"`,
    // `--from-literal=name=…`), read as one.
    // `"h1:k9RS…"` (a lock file's hash): a name inside a string is no
    // key's; `"relay": …` closes its quote, `-var "relay=…"` is an item.
    if ks > 0
        && matches!(b[ks - 1], b'"' | b'\'')
        && b.get(ke) != Some(&b[ks - 1])
        && b.get(ke) != Some(&b'=')
    {
        return None;
    }
    let blank_flag = flag && b.get(ke) == Some(&b' ');
    if flag && matches!(b.get(ke), Some(b' ' | b'=')) && item_at(b, ke + 1) {
        return None;
    }
    let key = &b[ks..ke];
    if !(blank_flag || long_value_after(b, ke))
        // One letter is no name, but for a JSON Web Key's private members
        // printed as YAML or a JavaScript object (`d: …`, `p: '…'`).
        || (key.len() < 2
            && !(matches!(key, b"d" | b"p" | b"q" | b"k") && b.get(ke) == Some(&b':')))
        || key.len() > 64
        || !key[0].is_ascii_alphabetic()
        || !key
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        // A name is words, not a random string of its own (a token cut
        // at a decoded `=`).
        || key.iter().filter(|c| c.is_ascii_digit()).count() > 2
    {
        return None;
    }
    // The place first: most keys with a long value are code's. A flag's, a
    // config's line, a header are a setting's own place; inside a line,
    // data holds ids as often as keys.
    let kind = if flag || settled_place(b, ks, ke) {
        POSITION_KEY
    } else if inline(b, ks, ke) {
        INLINE_KEY
    } else {
        return None;
    };
    if super::values::keylike(key)
        || !keylike_after(b, ke)
        || says_what_it_is(key)
        || super::names::declines(key)
        || super::siblings::has_name_field(b, ks, ke)
    {
        return None;
    }
    Some(Name::Secret(kind))
}

/// A setting's own place: a config's line, a client's header, an XML
/// attribute, a `helm --set` path, a prompt's answer.
fn settled_place(b: &[u8], ks: usize, ke: usize) -> bool {
    line_key(b, ks)
        || header_key(b, ks)
        || attribute(b, ks, ke)
        || helm_set(b, ks)
        || prompt_label(b, ks, ke, after_colon(b, ke))
}

/// The label `[ks, ke)` of a table's row (`code      …`, `code | …`,
/// `│ code │ …`: two blanks, a tab or a border after it) that says nothing
/// of the value in the row's last cell: the value must look like a key
/// ([`super::table_row`] reads it).
#[inline(never)]
pub(super) fn table_label(b: &[u8], ks: usize, ke: usize) -> Option<Name> {
    let n = b.len();
    let mut i = ke;
    while i < n && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    let gap = i - ke;
    let border = super::bar(b, i);
    if !(gap >= 2 || b.get(ke) == Some(&b'\t') || (gap >= 1 && border > 0)) {
        return None;
    }
    i += border;
    while i < n && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    let end = (i + 16).min(n);
    let long = b[i..end].iter().all(|&c| crate::TOKEN[c as usize]);
    if !first_cell(b, ks) {
        return None;
    }
    // `web-1  | …`: Compose's service and replica before each line of its
    // logs, no label of a row (`crate::viewers` reads the line without it).
    if border > 0 && (ks == 0 || b[ks - 1] == b'\n') && crate::viewers::compose_prefix(&b[ks..]) > 0
    {
        return None;
    }
    // `/shop/prod/relay` (SSM's parameters by path): its last part, which
    // may name a secret too (a name after a `/` is otherwise a URL's).
    let slash = memchr::memrchr(b'/', &b[ks..ke]);
    let name = &b[slash.map_or(ks, |p| ks + p + 1)..ke];
    if slash.is_some()
        && let Some(kind) = super::names::secret_kind(name)
    {
        return Some(Name::Secret(kind));
    }
    (long && says_nothing(name)).then_some(Name::Secret(POSITION_KEY))
}

/// Whether the label at `ks` is its row's first cell: only blanks and a
/// border before it on its line. The cheap test made before
/// [`table_label`] is called.
#[inline(always)]
pub(super) fn first_cell(b: &[u8], ks: usize) -> bool {
    let floor = ks.saturating_sub(64);
    let mut i = ks;
    while i > floor && matches!(b[i - 1], b' ' | b'\t' | b'|' | 0x82 | 0x83 | 0x94 | 0xE2) {
        i -= 1;
    }
    i == 0 || b[i - 1] == b'\n'
}

/// Whether `key`, a name field's value (`{"name": "X-Client", "value":
/// …}`), is a name that says nothing of what its value is: the value is
/// then read as under a name of [`name`]'s.
pub(super) fn says_nothing(key: &[u8]) -> bool {
    key.len() >= 2
        && key.len() <= 64
        && key[0].is_ascii_alphabetic()
        && key
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        && key.iter().filter(|c| c.is_ascii_digit()).count() <= 2
        && !super::values::keylike(key)
        && !says_what_it_is(key)
        && !super::names::declines(key)
}

/// Whether a value long enough to be a key may follow the name that ends
/// at `ke` (its quote, blanks, an operator, blanks, a quote): most names in
/// text are turned away here (`status=200`, `"count": 3`, a word before
/// another). Up to the text's end, it may.
#[inline(always)]
fn long_value_after(b: &[u8], ke: usize) -> bool {
    let n = b.len();
    let blanks = |mut i: usize| {
        while i < n && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        i
    };
    let mut i = ke;
    i += usize::from(i < n && matches!(b[i], b'"' | b'\''));
    i = blanks(i);
    if i >= n {
        return true;
    }
    // `<relay>…`: an element's name, `>` its operator.
    if !matches!(b[i], b'=' | b':' | b'>') {
        return false;
    }
    i += 1;
    // `:=`, `=>` (Ruby's, PHP's).
    i += usize::from(i < n && matches!(b[i], b'=' | b'>'));
    i = blanks(i);
    i += usize::from(i < n && matches!(b[i], b'"' | b'\''));
    let end = (i + 16).min(n);
    if end == n {
        return b[i..].iter().all(|&c| crate::TOKEN[c as usize]);
    }
    // A key's first bytes already mix letters and digits or cases (most
    // values are words, paths and numbers).
    crate::TOKEN[b[end - 1] as usize]
        && b[i..end].iter().all(|&c| crate::TOKEN[c as usize])
        && crate::mixed(&b[i..end])
}

/// Whether the run of word bytes after the name that ends at `ke` (past its
/// operator and a quote) looks like a key, or may still grow at the text's
/// end: most long values in code and JSON are paths, words and URLs.
fn keylike_after(b: &[u8], ke: usize) -> bool {
    let n = b.len();
    let mut i = ke;
    while i < n && !crate::TOKEN[b[i] as usize] {
        i += 1;
    }
    // The operator, glued to the value or not.
    while i < n && matches!(b[i], b'=' | b':') {
        i += 1;
    }
    while i < n && !crate::TOKEN[b[i] as usize] {
        i += 1;
    }
    let mut e = i;
    while e < n && e - i < super::values::MAX_VALUE && crate::TOKEN[b[e] as usize] {
        e += 1;
    }
    let run = &b[i..e];
    let run = run.strip_suffix(b",").unwrap_or(run);
    let run = run.strip_suffix(b".").unwrap_or(run);
    e == n || super::values::neutral_key(run)
}

/// Whether one of the name's parts, read from the last, says its value is
/// something other than a credential.
pub(super) fn says_what_it_is(key: &[u8]) -> bool {
    let is = |part: &[u8], list: &[&[u8]]| list.iter().any(|w| part.eq_ignore_ascii_case(w));
    let mut last: &[u8] = &[];
    // A counter after the name (`x-amz-id-2`, `node_3`) says nothing: the
    // part before it does.
    for part in super::names::words(key).filter(|p| !p.iter().all(u8::is_ascii_digit)) {
        last = part;
        if is(last, NOT_SECRET_ANY) {
            return true;
        }
    }
    // The name without its separators (`public_key`, `PublicKey`), its
    // last 64 bytes: a cookie's name may be longer than any key read here.
    let mut whole = [0u8; 64];
    let mut n = 0;
    let tail = &key[key.len().saturating_sub(whole.len())..];
    for &c in tail.iter().filter(|c| c.is_ascii_alphanumeric()) {
        whole[n] = c.to_ascii_lowercase();
        n += 1;
    }
    let whole = &whole[..n];
    let complete = tail.len() == key.len();
    is(last, CONTENT_NAMES)
        || is(last, NOT_SECRET_LAST)
        || (complete && is(whole, NOT_SECRET_LAST))
        || whole.ends_with(b"publickey")
        // `testid`, `userid`: an identifier run into one word (Vault's
        // `secret_id` is a credential, read by its name).
        || ((whole.ends_with(b"id") || whole.ends_with(b"ids")) && !whole.ends_with(b"secretid"))
        || file_name(key)
}

/// `config.yaml`, `ca.crt`: a file's name (a ConfigMap's or a Secret's
/// key), whose value is the file's content: the decoding pass reads it.
fn file_name(key: &[u8]) -> bool {
    const EXTENSIONS: &[&[u8]] = &[
        b"yaml",
        b"yml",
        b"json",
        b"txt",
        b"conf",
        b"cfg",
        b"ini",
        b"toml",
        b"xml",
        b"crt",
        b"pem",
        b"key",
        b"cer",
        b"der",
        b"p12",
        b"pfx",
        b"jks",
        b"env",
        b"properties",
        b"sh",
        b"py",
        b"js",
        b"ts",
        b"md",
        b"html",
        b"css",
        b"csv",
        b"log",
        b"sql",
        b"png",
        b"jpg",
        b"svg",
        b"gz",
        b"zip",
        b"tar",
        b"pub",
        b"asc",
        b"gpg",
        b"bin",
        b"dat",
        b"db",
    ];
    memchr::memrchr(b'.', key).is_some_and(|dot| {
        let ext = &key[dot + 1..];
        dot > 0 && EXTENSIONS.iter().any(|e| ext.eq_ignore_ascii_case(e))
    })
}

/// A name inside a line: a JSON member (`{"relay":"…"`, `'relay': '…'`),
/// an argument or a field (`f(seal="…")`, `Config{Relay: "…"}`, `{ seal =
/// "…" }`, `{relay: …}`), a Ruby key (`:relay => "…"`, `"relay" => "…"`), a
/// log's or a command's `relay=…` after a blank, an XML element
/// (`<relay>…</relay>`).
fn inline(b: &[u8], ks: usize, ke: usize) -> bool {
    let Some(&before) = ks.checked_sub(1).map(|p| &b[p]) else {
        return false;
    };
    let after = &b[ke..];
    let operator = |a: &[u8]| {
        let a = a.strip_prefix(b" ").unwrap_or(a);
        a.starts_with(b"=>")
            || a.starts_with(b":")
            || (a.starts_with(b"=") && !a.starts_with(b"=="))
    };
    let opener = |at: Option<usize>| at.is_some_and(|p| matches!(b[p], b'{' | b',' | b'('));
    // What may come before a key: an opener, a blank, the line's start.
    let starts = |at: Option<usize>| {
        at.is_none_or(|p| matches!(b[p], b'{' | b',' | b' ' | b'(' | b'[' | b'\n' | b'\t'))
    };
    match before {
        b'"' | b'\'' => {
            (after.first() == Some(&before) && operator(&after[1..]) && starts(ks.checked_sub(2)))
                // `-var "relay=…"`: a quoted `name=value` argument.
                || (after.first() == Some(&b'=')
                    && after.get(1) != Some(&b'=')
                    && ks >= 2
                    && b[ks - 2] == b' ')
        }
        b'(' | b'{' | b',' => operator(after),
        b' ' => {
            (opener(ks.checked_sub(2)) && operator(after))
                // `relay=…` after a blank and another field: a log's.
                || (after.first() == Some(&b'=')
                    && after.get(1) != Some(&b'=')
                    && field_before(b, ks))
        }
        b':' => starts(ks.checked_sub(2)) && operator(after),
        b'<' => after.first() == Some(&b'>'),
        _ => false,
    }
}

/// Whether a `name=value` field comes before `ks` on its line (a log
/// line's `time=… level=… msg=…`), read back at most 256 bytes.
fn field_before(b: &[u8], ks: usize) -> bool {
    let floor = ks.saturating_sub(256);
    let line = memchr::memrchr(b'\n', &b[floor..ks]).map_or(floor, |p| floor + p + 1);
    let head = &b[line..ks];
    memchr::memchr_iter(b'=', head).any(|p| {
        p > 0
            && head[p - 1].is_ascii_alphanumeric()
            && head
                .get(p + 1)
                .is_some_and(|c| !c.is_ascii_whitespace() && *c != b'=')
    })
}

/// First on its line, after its indentation, a list's `- `, a quote, a
/// tool's decoration, or one of [`LINE_WORDS`].
fn line_key(b: &[u8], ks: usize) -> bool {
    let Some(line) = crate::line_start_within(b, ks, crate::MAX_LINE_PREFIX) else {
        return false;
    };
    let mut head = &b[line..ks];
    let decoration = crate::decorations::line_prefix(b, line, ks);
    head = &head[decoration.min(head.len())..];
    let trim = |h: &[u8]| -> usize { h.iter().take_while(|c| matches!(c, b' ' | b'\t')).count() };
    head = &head[trim(head)..];
    head = &head[shell_prompt(head)..];
    head = &head[trim(head)..];
    if let Some(rest) = head.strip_prefix(b"- ") {
        head = &rest[trim(rest)..];
    }
    for word in LINE_WORDS {
        if let Some(rest) = head.strip_prefix(*word) {
            head = &rest[trim(rest)..];
            break;
        }
    }
    matches!(head, [] | [b'"'] | [b'\''])
}

/// The length of a shell's prompt at the start of `head` (`$ `, `% `, `❯ `,
/// `ana@box:~/src$ `, `root@box:/# `, `C:\Users\ana> `, `PS C:\> `): one word
/// ending with a prompt's mark, then a blank. 0 if none.
fn shell_prompt(head: &[u8]) -> usize {
    let ps = if head.starts_with(b"PS ") { 3 } else { 0 };
    let rest = &head[ps..];
    let Some(space) = memchr::memchr(b' ', rest) else {
        return 0;
    };
    let word = &rest[..space];
    let mark = matches!(word.last(), Some(b'$' | b'%' | b'>' | b'#'))
        || word.ends_with("❯".as_bytes())
        || word.ends_with("➜".as_bytes());
    if mark { ps + space + 1 } else { 0 }
}

/// The last word of a prompt's label that a value answers on its line
/// (`Enter your API key: …`, `? Paste the token: …`, `✔ Access code: …`):
/// a few words of letters after the line's start, a decoration or a
/// prompt's mark, the last one followed by `:`. The words before it must
/// not say what the value is either (`Using cache key: …`).
///
/// `value` is where the value starts: right after the `:` and blanks (a
/// quote), not after a type (`const KEY: &str = …`).
pub(super) fn prompt_label(b: &[u8], ks: usize, ke: usize, value: usize) -> bool {
    const MARKS: [&str; 6] = ["? ", "✔ ", "✓ ", "> ", "* ", "! "];
    if b.get(ke) != Some(&b':')
        || ks == 0
        || b[ks - 1] != b' '
        || value <= ke
        || !b[ke + 1..value]
            .iter()
            .all(|&c| matches!(c, b' ' | b'\t' | b'"' | b'\'' | 0xE2 | 0x80 | 0xA6))
    {
        return false;
    }
    let Some(line) = crate::line_start_within(b, ks, 96) else {
        return false;
    };
    let mut head = &b[line + crate::decorations::line_prefix(b, line, ks).min(ks - line)..ks];
    head = &head[head
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count()..];
    for mark in MARKS {
        if let Some(rest) = head.strip_prefix(mark.as_bytes()) {
            head = rest;
            break;
        }
    }
    let words = head.split(|&c| c == b' ').filter(|w| !w.is_empty());
    let mut n = 0;
    for w in words {
        n += 1;
        if n > 5
            || !w
                .iter()
                .all(|&c| c.is_ascii_alphabetic() || matches!(c, b'\'' | b'(' | b')' | b'-'))
        {
            return false;
        }
    }
    // The label joined (`cache key` is `cachekey`), for what it declines:
    // its last letters, as many as a key holds (its words may fill 96
    // bytes and the key 64 more).
    let mut joined = [0u8; 2 * super::MAX_KEY];
    let mut k = joined.len();
    for &c in head
        .iter()
        .chain(&b[ks..ke])
        .rev()
        .filter(|c| c.is_ascii_alphabetic())
        .take(joined.len())
    {
        k -= 1;
        joined[k] = c;
    }
    let is = |w: &[u8]| NOT_SECRET_ANY.iter().any(|n| w.eq_ignore_ascii_case(n));
    n > 0 && !super::names::declines(&joined[k..]) && !head.split(|&c| c == b' ').any(is)
}

/// Where a value after the `:` at `colon` starts: past blanks and a quote.
fn after_colon(b: &[u8], colon: usize) -> usize {
    let mut i = colon + 1;
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i + usize::from(i < b.len() && matches!(b[i], b'"' | b'\''))
}

/// A header a client sends: `-H "Name: …"`, `--header 'Name: …'`, or a
/// request's header line in `curl -v` (`> Name: …`).
fn header_key(b: &[u8], ks: usize) -> bool {
    let before = &b[ks.saturating_sub(10)..ks];
    before.ends_with(b"-H \"")
        || before.ends_with(b"-H '")
        || before.ends_with(b"--header \"")
        || before.ends_with(b"--header '")
        || (before.ends_with(b"> ") && (ks == 2 || b[ks - 3] == b'\n'))
}

/// An attribute of an XML element: `name="…"` after a blank, inside a tag
/// opened on the same line.
fn attribute(b: &[u8], ks: usize, ke: usize) -> bool {
    if ks == 0 || b[ks - 1] != b' ' || !b[ke..].starts_with(b"=\"") {
        return false;
    }
    let line = crate::line_start_within(b, ks, crate::MAX_LINE_PREFIX).unwrap_or(ks);
    let head = &b[line..ks];
    memchr::memrchr(b'<', head).is_some_and(|lt| {
        !head[lt..].contains(&b'>') && head.get(lt + 1).is_some_and(u8::is_ascii_alphabetic)
    })
}

/// A path that `helm install|upgrade|template --set` sets
/// (`--set upstream.auth=…`, `--set-string a=…,b=…`).
fn helm_set(b: &[u8], ks: usize) -> bool {
    after_set_flag(b, ks, true) || (ks > 0 && b[ks - 1] == b',' && helm_list(b, ks))
}

/// Whether `--set` or `--set-string` ends right before `at`, then a blank
/// (or, with `glued`, an `=`).
fn after_set_flag(b: &[u8], at: usize, glued: bool) -> bool {
    let before = &b[at.saturating_sub(14)..at];
    let Some(flag) = before
        .strip_suffix(b" ")
        .or_else(|| before.strip_suffix(b"=").filter(|_| glued))
    else {
        return false;
    };
    flag.ends_with(b"--set") || flag.ends_with(b"--set-string")
}

/// Whether the `,` before `ks` separates items of a `--set` list.
fn helm_list(b: &[u8], ks: usize) -> bool {
    let from = ks.saturating_sub(crate::MAX_LINE_PREFIX);
    let word = b[from..ks]
        .iter()
        .rposition(|&c| c == b' ' || c == b'\n')
        .map_or(from, |p| from + p + 1);
    word > 0 && after_set_flag(b, word, false)
}

/// Whether `name=` starts at `i`, maybe after a quote: an item that names
/// its own value.
fn item_at(b: &[u8], i: usize) -> bool {
    let i = i + usize::from(matches!(b.get(i), Some(b'"' | b'\'')));
    let Some(rest) = b.get(i..) else {
        return false;
    };
    let n = rest[..rest.len().min(super::MAX_KEY)]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    n > 0 && rest.get(n) == Some(&b'=')
}

/// Whether `name=` or `name:` starts at `j` (the next field of a log
/// line), and one past the last byte looked at.
fn assignment_at(b: &[u8], j: usize) -> (bool, usize) {
    let n = b[j..(j + super::MAX_KEY).min(b.len())]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    (
        n > 0 && matches!(b.get(j + n), Some(b'=' | b':')),
        j + n + 1,
    )
}

/// Whether the value that ends at `end` (past its closing quote if
/// `quoted`) ends where a setting's value does in the place [`name`] read:
/// its line (maybe after a `,` or `;`, blanks, a comment), a header's
/// closing quote, its tag's end or the next attribute, the next `--set`
/// item or flag.
///
/// Also how far it read: one past the byte that decided.
pub(super) fn ends_place(b: &[u8], end: usize, quoted: bool) -> (bool, usize) {
    let mut j = end;
    let comma = matches!(b.get(j), Some(b',' | b';'));
    j += usize::from(comma);
    while j < b.len() && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    let mut looked = j + 1;
    let ends = match b.get(j) {
        None | Some(b'\n' | b'\r' | b'#') => true,
        // A JSON object's, an argument list's, a flow mapping's end; the
        // next member of a compact one.
        Some(b'}' | b')' | b']') => true,
        Some(b'"' | b'\'') if comma => true,
        // An XML element's end (the `/` looked at too).
        Some(b'<') => {
            looked = j + 2;
            b.get(j + 1) == Some(&b'/')
        }
        Some(b'"' | b'\'') => !quoted && j == end,
        Some(b'/' | b'>') => quoted,
        Some(b'-' | b'\\') => j > end,
        // `--set a=…,b=…`; the next attribute, field or argument.
        Some(c) => {
            c.is_ascii_alphabetic()
                && ((comma && j == end + 1)
                    || (quoted && j > end)
                    || (j > end && {
                        let (next, read) = assignment_at(b, j);
                        looked = read;
                        next
                    }))
        }
    };
    (ends, looked.max(j + 1))
}
