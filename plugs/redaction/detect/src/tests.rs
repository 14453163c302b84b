use super::*;

/// A fixed-seed xorshift generator: random texts for the tests that hold a
/// fast path against a plain reading, the same on every run.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

fn redact(text: &str) -> String {
    Redactor::new(&["hunter2-literal".into()])
        .redact(text)
        .into_owned()
}

#[test]
fn masks_each_known_format_with_its_kind() {
    let cases = [
        (
            "key AKIAQX3NDBLT4VKM7J2P here",
            "key [REDACTED:aws-access-key] here",
        ),
        (
            "t=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 ok",
            "t=[REDACTED:github-token] ok",
        ),
        (
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            "[REDACTED:github-token]",
        ),
        ("glpat-abcdefghij0123456789", "[REDACTED:gitlab-token]"),
        ("xoxb-123456789012-abcdefABCDEF", "[REDACTED:slack-token]"),
        (
            "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
            "[REDACTED:openai-key]",
        ),
        (
            "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
            "[REDACTED:anthropic-key]",
        ),
        ("sk_live_abcdefghijklmnopqrstuvwx", "[REDACTED:stripe-key]"),
        (
            "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234 x",
            "[REDACTED:google-api-key] x",
        ),
        (
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "Authorization: Bearer [REDACTED:jwt]",
        ),
        (
            "DATABASE_URL=postgres://app:s3cr3tPass@db.internal:5432/app",
            "DATABASE_URL=postgres://app:[REDACTED:connection-password]@db.internal:5432/app",
        ),
        (
            "export DB_PASSWORD=correcthorse",
            "export DB_PASSWORD=[REDACTED:secret-assignment]",
        ),
        (
            "GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
            "GITHUB_TOKEN=[REDACTED:github-token]",
        ),
        ("the hunter2-literal value", "the [REDACTED:literal] value"),
    ];
    for (input, want) in cases {
        assert_eq!(redact(input), want, "input: {input}");
    }
}

#[test]
fn masks_private_key_blocks_whole() {
    let text = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter";
    assert_eq!(redact(text), "before\n[REDACTED:private-key]\nafter");
}

#[test]
fn leaves_prose_and_near_misses_alone() {
    for text in [
        "The quick brown fox jumps over the lazy dog, 1234567890 times.",
        "see https://example.com/path?x=1 and user@example.com",
        "ghp_short and sk-short and AKIA123",
        "password=short",
        "public key: -----BEGIN PUBLIC KEY----- abc -----END PUBLIC KEY-----",
    ] {
        assert_eq!(redact(text), text);
    }
}

#[test]
fn finds_literals_whatever_their_first_bytes_and_wherever_they_are() {
    // One to four first bytes besides ESC: `memchr`, `memchr2`, `memchr3`
    // and the table look for them.
    let all = ["alpha-lit-1", "bravo-lit-2", "charlie-lit-3", "delta-lit-4"];
    for n in 1..=all.len() {
        let literals: Vec<String> = all[..n].iter().map(|l| l.to_string()).collect();
        let r = Redactor::new(&literals);
        for l in &literals {
            for text in [
                l.clone(),
                format!("x={l}"),
                format!("prefix{l}suffix, then \x1b[1m{l}\x1b[0m"),
            ] {
                let out = r.redact(&text);
                assert!(
                    !out.contains(l.as_str()),
                    "{n} literals: {text:?} -> {out:?}"
                );
                assert!(out.contains("[REDACTED:literal]"), "{text:?} -> {out:?}");
            }
        }
        // A literal's first byte alone is text.
        assert_eq!(r.redact("a b c d alpha"), "a b c d alpha");
    }
}

#[test]
fn holds_back_what_may_continue() {
    let r = Redactor::new(&["hunter2-literal".into()]);
    assert_eq!(r.hold_back_from("token is ghp_aBcD"), "token is ".len());
    assert_eq!(r.hold_back_from("done. "), "done. ".len());
    assert_eq!(r.hold_back_from("pass hunter2-li"), "pass ".len());
    let open = "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n";
    assert_eq!(r.hold_back_from(open), 2);
}

#[test]
fn never_holds_back_more_than_max_hold() {
    let r = Redactor::new(&[]);
    let word = "a".repeat(3 * MAX_HOLD);
    assert_eq!(r.hold_back_from(&word), 2 * MAX_HOLD);
    // A key is paired with its END only within MAX_PEM (< MAX_HOLD): an
    // open one is held whole, a longer run of base64 lines no more.
    let open_key = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}",
        "QUJDQUJDQUJDQUJD\n".repeat(MAX_PEM / 20)
    );
    assert_eq!(r.hold_back_from(&open_key), 0);
    let too_long = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}",
        "QUJDQUJDQUJDQUJD\n".repeat(MAX_HOLD)
    );
    assert_eq!(r.hold_back_from(&too_long), too_long.len());
}

#[test]
fn holds_back_a_name_whose_value_may_follow() {
    let r = Redactor::new(&[]);
    for (text, held) in [
        ("ok. \"password\": \"hunt", "\"password\": \"hunt".len() - 1),
        ("ok. Authorization: Bearer ", "Authorization: Bearer ".len()),
        ("ok. password: ", "password: ".len()),
        ("ok. postgres://app:p@ss!w0", "postgres://app:p@ss!w0".len()),
        ("ok. AKIAQX3NDBLT4VKM7J2P, ", "AKIAQX3NDBLT4VKM7J2P, ".len()),
        // A field with a `\` (maybe an escape hiding a separator) is decoded
        // whole: it waits.
        ("ok. line\\", "line\\".len()),
    ] {
        assert_eq!(r.hold_back_from(text), text.len() - held, "{text}");
    }
    // Once the value has ended, nothing waits.
    assert_eq!(
        r.hold_back_from("password: \"x\" ok "),
        "password: \"x\" ok ".len()
    );
}

#[test]
fn masks_are_on_char_boundaries() {
    let r = Redactor::new(&[]);
    let text = "Läuft: password=hünter2-ü and ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789é";
    for f in r.find(text) {
        assert!(text.is_char_boundary(f.start) && text.is_char_boundary(f.end));
    }
    assert_eq!(
        r.redact(text),
        "Läuft: password=[REDACTED:secret-assignment] and [REDACTED:github-token]é"
    );
}

/// What is read of a line's beginning is bounded: one endless line of
/// candidates (names before blanks, flags, env assignments, `*:`) costs as
/// much per byte as short lines do. Quadratic reading would make the 4×
/// longer text about 16× slower; linear, about 4×.
#[test]
fn one_endless_line_of_candidates_is_read_in_linear_time() {
    let r = Redactor::new(&[]);
    let unit = "password  x1y2z3w4 ssl.key.password=ab.cd.ef redis-cli -a Qz7harbor22 *:5432:db:u:Pw9xLq2m -pXy7Lm2q ";
    let time = |n: usize| {
        let text = unit.repeat(n);
        let started = std::time::Instant::now();
        let found = r.find(&text);
        (started.elapsed(), found.len())
    };
    let (short, found) = time(3_000);
    assert!(found > 0, "the candidates are read");
    let (long, _) = time(12_000);
    let ratio = long.as_secs_f64() / short.as_secs_f64().max(1e-6);
    assert!(
        ratio < 9.0,
        "4x the text took {ratio:.1}x the time ({short:?}, {long:?})"
    );
}

#[test]
fn a_token_glued_to_a_word_before_it_by_a_hyphen_is_masked() {
    let ghp = "ghp_Zq8RtY3vWm1KpL6nBx4CdF7gHj2sAe9TuV0o";
    let aws = "AKIAQ3EGRZLCV4TMVNXW";
    for (text, masked) in [
        (
            format!("yes-{ghp}"),
            "yes-[REDACTED:github-token]".to_string(),
        ),
        (
            format!("see prod-{ghp} (rotated)"),
            "see prod-[REDACTED:github-token] (rotated)".into(),
        ),
        (
            format!("backup-key-id-{aws}"),
            "backup-key-id-[REDACTED:aws-access-key]".into(),
        ),
    ] {
        assert_eq!(redact(&text), masked);
    }
    // Hyphenated words stay words.
    for text in [
        "a well-known long-standing re-implementation",
        "2026-12-02T06:12:56Z build-2026-12-02-nightly",
        "550e8400-e29b-41d4-a716-446655440000",
        "x86_64-unknown-linux-gnu cargo-build-release-profile",
    ] {
        assert_eq!(redact(text), text);
    }
}

#[test]
fn a_value_read_to_its_longest_inside_a_character_is_masked_whole_chars() {
    // 4 KiB of `─` (3 bytes each) end inside a character; with an escape
    // sequence in the text the raw reading's finds were sliced there.
    let long = "─".repeat(1400);
    let r = Redactor::new(&[]);
    for text in [
        format!("password=\"{long}\" x"),
        format!("\x1b[1mpassword\x1b[0m=\"{long}\" x"),
        format!("\x1b[1mapi_key\x1b[0m={long} x"),
        format!("{{\"password\": \"{long}\"}}\x1b[0m"),
        format!("Server=x;Pwd={{{long}}};\x1b[0m"),
    ] {
        let out = r.redact(&text);
        assert!(out.contains("[REDACTED:"), "{text:?}");
        for f in r.find(&text) {
            assert!(text.is_char_boundary(f.start) && text.is_char_boundary(f.end));
        }
    }
}

/// Key structures cut where their bounds fall (a value ending exactly at the 16 KiB a key is
/// read within, a tag whose `>` comes past it, a decorated key block whose first line ends in
/// blanks after its mark): read whole and at every cut near the bound, nothing panics.
#[test]
fn key_structures_at_their_bounds_never_panic() {
    let pad = |n: usize| "a".repeat(n);
    let texts = [
        "x -----BEGIN RSA PRIVATE KEY----- | \nabc\n".to_string(),
        "-----BEGIN RSA PRIVATE KEY-----$ \nMIIEabc$\n".to_string(),
        "> priv: $ \n>     00:11:22$\n".to_string(),
        format!("<RSAKeyValue {}>", pad(MAX_PEM + 10)),
        // `<D>` whose `>` falls exactly on the bound, for every position near it.
        format!("<RSAKeyValue>{}<D>QUJD</D>", pad(MAX_PEM - 16)),
        format!(
            "{{\"kty\":\"oct\",{}\"d\":\"QUJDREVGR0hJSktMTU5PUA\"}}",
            pad(MAX_PEM - 20)
        ),
    ];
    let r = Redactor::new(&[]);
    for text in &texts {
        for shift in 0..24 {
            let text = format!("{}{text}", " ".repeat(shift));
            let _ = r.find(&text);
            let _ = r.hold_back_from(&text);
            for cut in
                (text.len().saturating_sub(40)..text.len()).filter(|&c| text.is_char_boundary(c))
            {
                let _ = r.hold_back_from(&text[..cut]);
            }
        }
    }
}
