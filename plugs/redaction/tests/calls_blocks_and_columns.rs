//! A secret handed to a call beside its name: a name and a value as a
//! call's first two strings, whatever is called (`System.setProperty`,
//! Spark's `conf.set`, Go's `Header.Set`, Kafka's `props.put`, Rust's
//! `env::set_var`, a tuple of a header's name and value). Beside them,
//! calls whose second string is no secret. A block of base64 lines a
//! command printed as a secret (`cat /var/lib/mongodb/keyfile`), in each
//! agent's frame, beside base64 that nothing says is one. A password in a
//! table aligned by blanks with no rule (`column -t` of a seed file), CJK
//! names before it, beside words and names in such a column. What process
//! inspection prints: `cat -v`'s `^@` between environment variables, a
//! password's commas in a label's value or a Go struct's field. Each text is also streamed, cut
//! at every byte and one character at a time, and must come out as whole.
//!
//! The values are random, shaped like the real formats; none is a live
//! credential.

mod support;

use support::check;

#[test]
fn a_value_named_by_the_string_before_it_is_masked() {
    check(&[
        "System.setProperty(\"javax.net.ssl.keyStorePassword\", \"«Wq8#kPz2!vLm»\");\n",
        "spark.conf.set(\"fs.azure.account.key.acct.dfs.core.windows.net\", \"«kQ7x2Lr9Vb3Nz8Pq1Wt5Yh6Jm4Fc0Ds2Ga7Ue9Ko3Ri1Hl5Xn8Cv6Bw4Ej2Mt0Qp9Sy==»\")\n",
        "\treq.Header.Set(\"X-Api-Key\", \"«a3f9c2e871b04d5e9f6a7c8b2d1e0f93»\")\n",
        "    std::env::set_var(\"DATABASE_PASSWORD\", \"«hunter2-Orbit-77»\");\n",
        "props.put(\"sasl.password\", \"«T9vQ2xLm8KzP4wRb»\");\n",
        "headers = [(\"Content-Type\", \"application/json\"), (\"X-Auth-Token\", \"«gAAAAABm3kQz8Lw2Rt5YmK9pN4vX»\")]\n",
        "      hadoopConf.set( 'fs.s3a.secret.key', '«q3Hn8vTz/L2xW9mR+k7Pb4YcF1sJd6GeQa0NuZiK5»' )\n",
    ]);
}

#[test]
fn a_second_string_that_is_no_secret_stays() {
    check(&[
        "label = t(\"forgot_password\", \"Forgot your password?\")\n",
        "key = os.getenv(\"API_KEY\", \"\")\n",
        "token = os.environ.get(\"GITHUB_TOKEN\", \"your-token-here\")\n",
        "System.setProperty(\"javax.net.ssl.trustStore\", \"/etc/ssl/certs/java/cacerts\");\n",
        "s = text.replace(\"password\", \"********\")\n",
        "conf.set(\"spark.hadoop.fs.s3a.access.key\", \"AKIAIOSFODNN7EXAMPLE\")\n",
        "headers.set(\"Authorization\", \"Bearer \" + token)\n",
        "secretRef := corev1.SecretKeySelector(\"db_password\", \"db-credentials\")\n",
        "log.Printf(\"token\", \"refreshed\")\n",
    ]);
}

const KEYFILE: [&str; 4] = [
    "GRNyDhkbPTqxMFvGNsKbjNP8vvUYmgS3vPFUX8BBvafxXZIO9Cp9vhhm6PcirXs5",
    "U3DZ/MuXkVk6lZv0q7TNheWtA6A04ds+rVuLwgrwZ2oVLtdYQ7GSKKSULrN4xFlJ",
    "+DTljpcjgy1SSbIlUWaf/8l16X//jn6/yl9Q1up1WOcNiujSdMLjaODuO3oHcQSh",
    "fpYVukjMyat8WPcyPZw4w5cFE8SN1MVLxSmPKJmI3UaGFXHF",
];

#[test]
fn a_block_of_base64_a_command_printed_as_a_secret_is_masked() {
    let [a, b, c, d] = KEYFILE;
    check(&[
        // A shell: the block is one mask, its line breaks too.
        format!("$ sudo cat /var/lib/mongodb/keyfile\n«{a}\n{b}\n{c}\n{d}»\n$ ls\n"),
        // Codex's older transcript, the command repeated after a time.
        format!("[2023-05-26T07:21:50] exec bash -lc 'sudo cat /etc/mongod/keyfile' in /srv/ops\n[2023-05-26T07:21:52] bash -lc 'sudo cat /etc/mongod/keyfile' succeeded in 899ms:\n«{a}\n{b}\n{c}\n{d}»\n\n"),
        // Claude Code's frame: each line on its own.
        format!("⏺ Bash(sudo cat /var/lib/mongodb/keyfile)\n  ⎿  «{a}»\n     «{b}»\n     «{c}»\n     «{d}»\n\n⏺ Done.\n"),
        // Codex's `• Ran` with `└`.
        format!("• Ran sudo cat /var/lib/mongodb/keyfile\n  └ «{a}»\n    «{b}»\n    «{c}»\n    «{d}»\n\n• Ran ls\n"),
        // A file named for a key.
        format!("$ cat secrets/replica.key\n«{a}\n{b}»\n"),
    ]
    .iter()
    .map(String::as_str)
    .collect::<Vec<_>>());
}

#[test]
fn base64_that_nothing_says_is_a_secret_stays() {
    let [a, b, c, d] = KEYFILE;
    check(
        &[
            format!("$ base64 logo.png | head -4\n{a}\n{b}\n{c}\n{d}\n"),
            format!("$ cat notes/README.b64\n{a}\n{b}\n{c}\n{d}\n"),
            // A key block below a command that prints one, then words: the
            // words are no part of it.
            format!("$ cat /var/lib/mongodb/keyfile\n«{a}»\nsecurity enabled\n"),
            format!("$ cat /var/lib/mongodb/keyfile\n«{a}\n{b}»\nFinished\n"),
        ]
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
    );
}

#[test]
fn a_password_under_an_aligned_header_is_masked_whole() {
    check(&[
        "$ column -s, -t < db/seeds/test_users.csv\nemail               name            role     password                    api_token\npriya0@initech.app  Alice Moreau    billing  «Velvet_basil8037»            «66jut1naKvgFSfT3CvJK8DBgyclx3umLIZXZ4W_fTwu»\nwei1@initech.app    Viktor Horvath  billing  «kettle-mistral-kettle-573*»  «ygIIFnx9ygjllJL9c9K3TpSc4MXaUasTlfVGcladqDo»\n",
        // Names two columns wide per character before the value.
        "⏺ Bash(column -s, -t < db/seeds/dev_accounts.csv)\n  ⎿  email               name           role     password                      api_token\n     camille0@sirius.io  Nadia Petrova  billing  «9+ouFHzUNv^uf,yS3.?5M»         «fd3285c005c4fb75770f88361e8826bff9833a71»\n     bkumar2@sirius.io   박 서연        admin    «Cd=0B0Z,-=D590a,#*dWkjCrzf=J»  «d66371961e44d9a4a18b1d63afcc85ab38697e2d»\n     eoin3@sirius.io     李 娜          member   «fm3rYDyiLa2uG3,vRmI#~-pDpYK»   «tok_LRxHcc2KxohOVnyRzitJnfr8lgzLmOPW»\n",
    ]);
}

#[test]
fn words_and_names_in_an_aligned_column_stay() {
    check(&[
        // What a password's column says instead of one.
        "$ column -s, -t < accounts.csv\nemail               role     password         notes\npriya0@initech.app  billing  see-vault        rotated monthly\nwei1@initech.app    admin    sso-only         —\n",
        // Password-shaped values under a column that names no secret.
        "$ column -t releases.txt\nname            version    commit\nbilling-api     v2.14.3    release_2024q3\nweb-frontend    v5.0.1     hotfix-8841b\n",
    ]);
}

#[test]
fn values_in_what_process_inspection_prints_are_masked_whole() {
    check(&[
        "$ sudo cat -v /proc/36149/environ\nGIT_SHA=42f5ad6980b022a2ae86939e4950684f57b639a5^@APP_ENV=production^@JWT_SECRET=«8EgfaG280r4JcDA5xNbyH1mE1+P5tt826V8euvF/GWH0bvxn61j+5PS9hriQMj/m»^@OTEL_SERVICE_NAME=ingest\n",
        "        Type: Password message\n        Password: «jLbw4uY7Pwh9wu6ah,pOEm,CH#5,^8dh»\n",
        "msg=\"effective config\" cfg=\"{Listen::8080 Kafka:{SASLUser:ingest SASLPassword:«3891JHnc.5!,UdSb»} LogLevel:debug}\"\n",
        // A container's arguments, a flag and its value a line each.
        "    Args:\n      --requirepass\n      «ZiU6gmuisLeyz05Fjpx4RW4i»\n      --appendonly\n      yes\n    State:          Running\n",
    ]);
}

#[test]
fn what_follows_a_password_s_comma_as_another_setting_stays() {
    check(&[
        "    password: String,\n    user: String,\n",
        // A flag alone, then another flag or a word: no value.
        "    Args:\n      --password-file\n      /run/secrets/db\n      --token-ttl\n      3600\n",
    ]);
}
