//! Logins typed in a protocol's own words (Redis's `AUTH` at a prompt, in
//! `MONITOR` and in RESP as `strace` and `ngrep` show it; IMAP's `LOGIN`;
//! POP3's `PASS`; SMTP's `AUTH LOGIN` and SASL PLAIN), a user's password
//! by its place among a command's arguments (`rabbitmqctl add_user`,
//! `htpasswd -b`, `mosquitto_passwd -b`, Redis's `ACL SETUSER … >…`), a
//! file that is wholly a secret (`.erlang.cookie`,
//! `.google_authenticator`'s seed and scratch codes), secrets as a
//! debugger or a tracer prints them (gdb's `char *`, ltrace's `getenv`), a
//! registry's credentials on a container tool's command line, and a key
//! block whose first line carries an agent's frame or the command that
//! printed it. Beside them, what uses the same words and is no login. Each
//! text is also streamed, cut at every byte and one character at a time,
//! and must come out as whole.
//!
//! The values are random, shaped like the real formats; none is a live
//! credential.

mod support;

use support::check;

#[test]
fn a_redis_password_is_masked_however_the_session_is_shown() {
    check(&[
        "127.0.0.1:6379> AUTH «rjJRR9YqKZ21BsYIUCVCs7i»\nOK\n",
        "127.0.0.1:6379> AUTH default «Noodle2020!»\nOK\n127.0.0.1:6379> PING\nPONG\n",
        "redis> auth «hunter2-Orbit-77»\n",
        "$ redis-cli -h cache.internal AUTH app «Wq8kPz2vLmNb4T»\n",
        "127.0.0.1:6379> HELLO 3 AUTH app «T9vQ2xLm8KzP4wRb» SETNAME worker\n",
        "127.0.0.1:6379> AUTH ADMIN «Pw9xK2mQ77»\n",
        "1700000000.123456 [0 10.0.0.1:5555] \"AUTH\" \"«Wq8kPz2vLmNb4T»\"\n1700000000.223456 [0 10.0.0.1:5555] \"GET\" \"session:42\"\n",
        "1700000000.123456 [0 10.0.0.1:5555] \"AUTH\" \"app\" \"«Wq8kPz2vLmNb4T»\"\n",
        "[pid 59080] 00:34:07.151775 sendto(14, \"*2\\r\\n$4\\r\\nAUTH\\r\\n$24\\r\\n«rjJRR9YqKZ21BsYIUC.VCs7i»\\r\\n\", 45, MSG_NOSIGNAL, NULL, 0) = 45\n",
        "sendto(7, \"*3\\r\\n$4\\r\\nAUTH\\r\\n$7\\r\\ndefault\\r\\n$16\\r\\n«Noodle2020!xyzab»\\r\\n\", 49, 0, NULL, 0) = 49\n",
        "*3\n$4\nAUTH\n$7\ndefault\n$16\n«Noodle2020!xyzab»\n",
        "T 10.0.0.5:51234 -> 10.0.0.9:6379 [AP]\n*2.\n$4.\nAUTH.\n$18.\n«Lantern95Harbor!xy».\n",
        "    T 10.5.220.155:33627 -> 10.9.25.214:6379 [AP] #25\n    *3.\n    $4.\n    AUTH.\n    $3.\n    app.\n    $32.\n    «KBmGLxlLBeVmbqBubmbgLKun1VbxNdDs».\n",
        // `socat -v`: an escaped CR, then the line's end; in Gemini CLI's box.
        "  ⎿  > 2025/03/17 07:25:21.224579  length=44 from=0 to=43\n     *3\\r\n     $4\\r\n     AUTH\\r\n     $6\\r\n     worker\\r\n     $11\\r\n     «Indigo!1888»\\r\n     < 2025/03/17 07:25:21.411542  length=5 from=0 to=4\n",
        "│ *3\\r                 │\n│ $4\\r                 │\n│ AUTH\\r               │\n│ $6\\r                 │\n│ worker\\r             │\n│ $12\\r                │\n│ «Poppy.Nectar50»\\r    │\n",
    ]);
}

#[test]
fn a_mail_login_is_masked_and_the_user_stays() {
    check(&[
        "C: a1 LOGIN alice «Wq8kPz2vLmNb4T»\nS: a1 OK LOGIN completed\n",
        "a001 LOGIN \"ops@example.com\" \"«correct-horse-battery»\"\n",
        "USER alice\n+OK\nPASS «Summer2024!x»\n+OK Logged in.\n",
        "C: PASS «Summer2024!x»\n",
        " -> AUTH PLAIN «AGFsaWNlAFdxOGtQejJ2TG1OYjRU»\n<-  235 2.7.0 Authentication successful\n",
        "AUTH PLAIN\n334 \n«AGFsaWNlAFdxOGtQejJ2TG1OYjRU»\n235 2.7.0 Authentication successful\n",
        "a1 AUTHENTICATE PLAIN «AGFsaWNlAFdxOGtQejJ2TG1OYjRU»\n",
        "AUTH LOGIN\n334 VXNlcm5hbWU6\nYWxpY2U=\n334 UGFzc3dvcmQ6\n«V3E4a1B6MnZMbU5iNFQ=»\n235 2.7.0 Authentication successful\n",
        " ~> AUTH LOGIN\n<~  334 VXNlcm5hbWU6\n ~> YWxpY2U=\n<~  334 UGFzc3dvcmQ6\n ~> «V3E4a1B6MnZMbU5iNFQ=»\n",
        "11:17:19.903323 send: 'AUTH PLAIN «AGFsZXJ0c0BibHV0aC5jbG91ZABqV1BCaTlyRXRFZSVyS3lzWlg3VW8yKlA=»\\r\\n'\n11:17:20.027113 reply: b'235 2.7.0 Authentication successful\\r\\n'\n",
        "reply: b'334 UGFzc3dvcmQ6\\r\\n'\nsend: '«Vk53RFpDZjBvNVVkRzhWdHBtN01NV2QzWmpsUDlISHY=»\\r\\n'\n",
        "11:17:19.1 reply: b'334 UGFzc3dvcmQ6\\r\\n'\n11:17:19.2 reply: retcode (334); Msg: b'UGFzc3dvcmQ6'\n11:17:19.3 send: '«Vk53RFpDZjBvNVVkRzhWdHBtN01NV2QzWmpsUDlISHY=»\\r\\n'\n",
        // What `printf '\0%s\0%s' user password | base64` printed, anywhere.
        "  ⎿  «AG9wc0BmaWVsZG5vdGUuY29tAHhzbXRwc2liLWJkMzFhNTg0NDdiYzliODRhNTliMGVlZjBkOGNhZDk3ZDIyZTg0NzI1OGQ5NTE0ZDU0M2E0NTY5MDA5MGU3ZjctYWtyRUJ0YklIbEFpSmlSTQ==»\n",
        "printf '\\0%s\\0%s' 'ops@example.com' '«xsmtpsib-bd31a58447bc9b84a59b0eef0d8cad97d22e847258d9514d543a45690090e7f7-akrEBtbIHlAiJiRM»' | base64 -w0\n",
        "13:46:38.612139 IP 10.1.195.163.33986 > 10.8.22.120.143: Flags [P.], length 46: IMAP: a001 LOGIN backup \"«af7024acb9a60593894a92ca»\"\n",
    ]);
}

#[test]
fn the_same_words_in_other_places_stay() {
    check(&[
        "AUTH failed for user\n",
        "AUTH OK\n",
        " PASS  src/app.test.js (2.1 s)\n",
        "PASS\nok  \texample.com/pkg\t0.012s\n",
        "--- PASS: TestLogin (0.00s)\n",
        "---> PASS XXXX\n",
        "C: PASS ********\n",
        "I login as root every morning\n",
        "a1 LOGIN alice ********\n",
        "AUTH PLAIN dXNlcm5hbWU6cGFzc3dvcmQ=\n",
        "334 VXNlcm5hbWU6\nYWxpY2U=\n",
        "*2\r\n$3\r\nGET\r\n$10\r\nsession:42\r\n",
        "1700000000.123456 [0 10.0.0.1:5555] \"GET\" \"session:42\"\n",
        "127.0.0.1:6379> AUTH $REDIS_PASSWORD\n",
        "250-AUTH PLAIN LOGIN CRAM-MD5\n",
        "Supported: OAUTH, AUTH tokens and more\n",
        ">>> auth = get_auth()\n",
        "> auth failed for the second time\n",
        "> AUTH failed\n",
        "> PASS src/app.test.js (2.1 s)\n",
        "2. LOGIN with SSO\n",
    ]);
}

#[test]
fn a_debugger_or_tracer_shows_a_secret_beside_its_name() {
    check(&[
        "$1 = {host = 0x55a67b935218 \"mq-prod-2.internal\", port = 5671, password = 0x55bd070e08f6 \"«kHt14JL2cqraW05Z5nTQ»\", tls = true}\n",
        "[pid 44718] pgbackup->getenv(\"PGPASSWORD\")                                   = \"«35DmafhV0aKXVPxBU072»\"\n",
        "[pid 44718] pgbackup->getenv(\"UPSTREAM_TOKEN\") = \"«ghs_WYxkrVPG5pU1UlHBAcImRSmvQbXCFp331qGI»\"\n",
        "[pid 44718] pgbackup->getenv(\"PGHOST\")                                       = \"db.internal\"\n",
        "[pid 44718] pgbackup->getenv(\"PGSSLMODE\") = nil\n",
        "$2 = {user = 0x55694dc56d19 \"reports\", vhost = 0x55ca0e793362 \"/reports\"}\n",
    ]);
}

#[test]
fn a_registry_password_on_a_container_tools_command_line_is_masked() {
    check(&[
        "$ skopeo copy --src-creds 'robot$release+ci:«AAr5QPSTUv48H4p6NYyeASWE4JTQsDdC»' --dest-creds piedpiper+deployer:«684QM8FZ7N913IP4EXJJNRSK44U5B3LQRCDTEW8F4U9965D2OX6DCZHIC2GTXJ1V» docker://harbor.example.com/a:1 docker://quay.io/b/a:1\n",
        "podman pull --creds ci:«Wq8kPz2vLmNb4T» registry.example.com/app:2\n",
        "skopeo inspect --creds \"$REGISTRY_USER:$REGISTRY_PASSWORD\" docker://x/y\n",
    ]);
}

/// A PGP key's armour, its lines under a CI log's timestamps.
const ARMOUR: [&str; 4] = [
    "lIYEYhc6/hYJKwYBBAHaRw8BAQdAVrFtMLeijefazD6S18LlEltkcRs8nLWx6Ri9",
    "vy9X+l/+CQMI4YojMi+BBfj/joU3cb5VQNCYmUMrLPoIuMGSi1g5wntUILxzP7P0",
    "IDtx9qCgeyvmlXuqaTxtuoWuREXnq0dm8cQQN2f3NFrD3xJ8Y/c6ibQdQW5hIEls",
    "=NCsm",
];

#[test]
fn a_key_block_printed_in_a_frame_or_by_a_command_is_read_through_its_lines() {
    let framed = |first: &str, rest: &str| {
        let mut t =
            format!("{first}2025-04-08T15:45:37.3106386Z «-----BEGIN PGP PRIVATE KEY BLOCK-----\n");
        t += &format!("{rest}2025-04-08T15:45:37.3227495Z \n");
        for (i, line) in ARMOUR.iter().enumerate() {
            t += &format!("{rest}2025-04-08T15:45:37.{i}427860Z {line}\n");
        }
        t += &format!("{rest}2025-04-08T15:45:37.8412367Z -----END PGP PRIVATE KEY BLOCK-----»\n");
        t += &format!("{rest}2025-04-08T15:45:37.8486815Z + gpg --batch --import\n");
        t
    };
    let echoed = framed("  ⎿  ", "     ")
        .replacen("Z «-----BEGIN", "Z + echo '«-----BEGIN", 1)
        .replacen("-----»\n", "-----»'\n", 1);
    let codex = framed("  └ ", "    ");
    let plain = framed("", "");
    check(&[&framed("  ⎿  ", "     "), &echoed, &codex, &plain]);
}

#[test]
fn a_password_by_its_place_among_a_commands_arguments_is_masked() {
    check(&[
        "⏺ Bash(sudo mosquitto_passwd -b /etc/mosquitto/passwd plc-bridge «Summit-Zebra60»)\n",
        "sudo mosquitto_passwd -b -H sha512 /etc/mosquitto/passwd dashboard '«huhuqu-1ycuvo-Zytuqa»'\n",
        "mosquitto_pub -h mqtt.example.net -u plc-bridge -P '«Summit-Zebra60»' -t 'home/boiler/state' -m '{\"v\":15.6}'\n",
        "• Ran sudo rabbitmqctl add_user celery '«defas4heduVa»'\n",
        "$ rabbitmqctl -n rabbit@mq-0 change_password celery «defas4heduVa»\n",
        "htpasswd -nbB prometheus «WhSIMljlGEBEncWKkXKrigbljHhn2JdO»\n",
        "htpasswd -bc /etc/nginx/.htpasswd admin '«fjord nickel quiver»'\n",
        "htpasswd -b -C 12 /etc/nginx/.htpasswd admin «Winter2021*»\n",
        "cache.example.co:6380> ACL SETUSER worker on >«wavy9u-hobaxe-Cizabu» ~bull:* +@read -@dangerous\nOK\n",
        "127.0.0.1:6379> acl setuser app on >«Wq8kPz2vLmNb4T» ~* +@all\n",
        "$ redis-cli --askpass ACL SETUSER reporter on '>«a8d2380d94043eb486d04258218f9b8b»' '~stats:*' '+get'\nOK\n",
    ]);
    // Where the program asks, or no password is given.
    check(&[
        "htpasswd -c /etc/nginx/.htpasswd admin\n",
        "sudo mosquitto_passwd -c /etc/mosquitto/passwd dashboard\n",
        "rabbitmqctl add_user celery $RABBIT_PASSWORD\n",
        "rabbitmqctl list_users\nuser\ttags\nceleryworker\t[]\n",
        "ACL SETUSER reader on #9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ~* +@read\n",
        "echo add_user is a subcommand of rabbitmqctl\n",
    ]);
}

#[test]
fn a_file_that_is_wholly_a_secret_is_masked_when_printed() {
    check(&[
        "⏺ Bash(sudo cat /home/ana/.google_authenticator)\n  ⎿  «QLGZJ6YH54K4XMG2AXNDTAYAIX»\n     \" RATE_LIMIT 3 30 1719951606\n     \" WINDOW_SIZE 3\n     \" TOTP_AUTH\n     «65308988»\n     «54155890»\n\n",
        "$ sudo cat /var/lib/rabbitmq/.erlang.cookie; echo\n«DDEMLPMSNQNVKGVCDVEJ»\n",
        "$ base64 -w0 svc.keytab\n«BQIAAABNAAEAC1FVQU5USVguREVWAAtzdmMtYWlyZmxvdwAAAAFn56kzBwASACCigQCG5wycYZVkK+049O1KMNNKVWvA9CdnUL4tV5NIRgAAAAcAAAA9AAEAC1FVQU5USVguREVWAAtzdmMtYWlyZmxvdwAAAAFn56kzBwARABBAXQdIA0ODOnDeDoe0G28WAAAABw==»\n",
    ]);
    // Eight digits elsewhere: a line count, a date, an id.
    check(&[
        "$ wc -l access.log\n12345678\n20240917\n",
        "\" set in vimrc\n12345678\n",
    ]);
}

/// Texts longer than what a stream keeps before what it holds (1 KiB), read
/// back over: every stream must mask them as the whole text does, whatever
/// the whole text masks.
#[test]
fn long_outputs_stream_as_the_whole_text_reads_them() {
    let r = redaction::detect::Redactor::new(&[]);
    let mut wg = String::from("$ sudo wg show all preshared-keys\n");
    for i in 0..20 {
        wg += &format!(
            "wg0\tiGxGg42qv+NxRMc59ezSJzGwJIHjtJdlJw11KHVA{i:03}=\tiGS8SSL79H8/1Bb7RnqBPfvxlANr1YE2hiUDSTT{i:03}l4=\n"
        );
    }
    let acl = format!(
        "127.0.0.1:6379> ACL SETUSER svc on {}>[abc]Zq9!x +@all\nOK\n",
        "~k1:* ".repeat(70)
    );
    let realm = "other:\tOBF:1xmk1w261u9r1w1c1xmq,user\nadmin: s3cr#t9x, admin\n";
    for text in [wg.as_str(), &acl, realm] {
        let whole = r.redact(text);
        // (Each holds a secret the whole text masks: the first peers' keys,
        // the ACL's password, the realm's user.)
        assert!(whole.contains("[REDACTED:"), "nothing masked in {text:?}");
        for cut in (1..text.len()).filter(|&c| text.is_char_boundary(c)) {
            let got = support::streamed(&r, text, &[cut]);
            assert_eq!(got, whole, "cut at {cut} of {text:?}");
        }
        let cuts: Vec<usize> = text
            .char_indices()
            .map(|(i, _)| i)
            .skip(1)
            .step_by(97)
            .collect();
        assert_eq!(
            support::streamed(&r, text, &cuts),
            whole,
            "{text:?} in chunks"
        );
    }
}
