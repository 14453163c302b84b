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
    // A long value: a stream holds the call back from its `(`.
    let long = "System.setProperty(\"db.password\", \"«XTrmF8CWiKDAHh08UfRrTICCr//LVg4!z5er52dCume06Y2HpT2Ddh7FhF93wSZE+UKXy2bhuT4YX8W/51N1E6lLl!ul2JFM0PCxNmgmnukMu40tRXvu8KXpCa4fnxPHN!jxLKE8wJ+09fwt9OCfE/P8wIwdyvLbKg4TlygcfZq4jx1OFr4wSSuEQdS/V9#ftElzc!XFJgihEqbV#AQ5u7gWUdR1agGhBtRpzmaFSUw5!xqmD8IgD9lrEiMiL1+f4S4sKXh3h!685f4TsU/Zm1EM1NpeeQYNMNFxs0#w0QIq9k!sXqva+BRlrYh4UgUfdENlHI6xx8B+YUrHqGWav+SxL+VD!UUh+FNWZHQGj!b3GpYQBEDUbrZvwAyvmcRtJk/!5YZZTIfYM59Erp7tD5Vl2BjOSAjo!6wFJsbW91/8sszVo30Zhz!Tx46mdJ8iFyIjtm5THM/AzrFyaXD!SglDWzPjKktN»\");\n";
    check(&[long]);
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

/// 80 lines of 76 base64 characters, as `base64` wraps a keystore.
const BIG_KEYSTORE: &str = "gtD7fGUOv8fwNfBb0jXxUJR4QQAAabVVloZaXZxmCu1VShIqmArIntn9oX98WHgCtzC1uwB5FXZP\nf7stg7NvlE3LaruSrjLnonWKTn9UGKzEesg61SHE/qaQQ0NV3vTH1lS6V6+o9jl8zSOwW/rXL+iu\nItEnuj+hlrWB8gpj7ktsjs0sW5uqSVZu9kK1V1miDZU4XcXF8cVGROoX9YE17swJaevAszj0OvEm\nMlrltQ10v7SUw9ZRLsAwNpSpw23c/l9wxUhm/g1Con+kS9DP4flFRyB9jf8Ef+iTkl/8PCQmkrlD\n7suQEAg6NYB229x8yZl7ImA3k8nSV9/qT2GIdiKIDq2Iz+GPPcORl4TXX0UIbFNwJjHPzRB3Lo++\ntvHRlTlchIegkRev6xWQCrKELP6ex79pNDxGT2cOK+bRwtelqsxwRtl3uEbXyIMEEXZZF+9sA28m\n2p77MYTUJvx8TgOjUkeE9EsvoHC68TPpl6eUEZDdKzunX7ukI7UeWaF3iA7H50VFEsMJe+L8GfG/\nyHGg05nGEYWzYdKoNLUJbC4t+2wQBn5cORn9LhzoQQK8fK2fjH/fGZkvMJ1owAkQD4SCG2iNwQpI\nnVRh/pkEIDDPGQt3hCd2QuZqtBUUMiVS532Pqo5d73V4GU8+ANQ1GaAEe9ty7bZjZmteutfH/zsS\nSe+wEMVyMkZp98LZwBNXxCoDnx8z5HS1uCakkJDLt0nBjeJELmsa9LPer2yAxwWapxpNvfMblniJ\nVJ0XcI01d29fm1jKqX1DTOlX3YpNqJH+RJoY7xd9MAYUOLqTvN4pXNuNIZapvW6Kfz7wAPvQA/wr\nJ+lCO9tZrwSl/LOl0rI3Gc1eiJSiM93XxfL5tQKASuCCg6xKGbY4B8Kj8CGUy3EbD103wBVrSmY2\nJvby1YiR8ukAPV6JJwE0TZC/o6R7eJuDBX2KiQvqbTlLkONzvmv94eRhCBxRe9HBBb1denHeExsC\nm45NPvjxwmVJ5HbxMmv0R6sI/Aa6FHLOrSvrhj9SPhgDgxVfh4WRGtPB6F/FD0P04cOILFI6mIiP\nznh6mmAp/7wTbhoa6LTtK24yWZR+V5sCS3i/beV1golNZh2th+LOOrMNkWGxWqhM0qMnIlr00IIm\nIXFM0N71Jc1DlNpuJ7wNVfOMKw3Oin62FaRwXYpJRnG7n4gkVg68zMRZ6N4dRfVL5g7U9NmgtGPa\nDr9+kqHkR1l1vQlYEA+Un1k17rpBU/A97vFdA9PZVVezNx1djBaeIv3ncMv4HhAS2H7BYYNW6489\nlJD7aC4ZIrZMvLWcyAE2HmYxyVOxYbQz5S0Dj6ZiLd214YZpgFYUuM3uSkXAT2NA7pK+TvAHv9h5\nq0Vy24Cd9lNJ9cKoMKp0WpsFnPKKF+8b4mT2j5JflLmJwl0MUs2LratN7pM/pE5Hdknh6sL50Zz2\nPQI4pEnu1NWB5SnFNGIKllk3dE36lUqy77EWu8oLO4ivrOxz5hQS6tjXW0BzogYT36PkwEYYzf/D\nOnMrrsUBFZ/Ei8aFcqocv6CEPYNnPfIOsrg0VinIyWe+Bn8dHbxMk+EhA6SPKfove+AApytoibl5\nTBZdAmLdeaxbkRaVP+c4ngKX7Ms8BmBVUnwj8rRY5YNC/XlDZiUjziKtnOfCdjw4gI9y+Tz9HyFZ\nhqWv3UxdHkd1+9W79+4eepcSKP57BSB+ROFI24XPCq3rcU//pGoB/FaYgjmde4I/9dq1hbu3AoPT\neoketflN9gPiFSNM4mScopXF32xAOhyLMAon7RTumjK32A69n8MnJf2ONexY8uZSDDPz0B7rdo/h\nad+9gIiKl3F7GWGd2TaseI2Xc5+R4Uu9O7mJ7pufJjvnEsvsVcw0vi10cXDrFMZ28O2YvcyOEwod\nsU0qjn/pVdF6pcL/tmLmSq+V8Zy4iDYN1UCqgDCt3OcXokayUR9ky6phoqEky8ehJNKN0NuR/1E8\nvpgPYO/QIskQdGxOQ5Jb4JiAMad3/mOdR+v/CR0iRExE1Vt69+1dps82PDCY5Rqp0KrixJPJJJSJ\nY/3swfvYYKniE0xcpQTBZ4ZGAvg///J5JoWFICpMO8Be7DewsOFOZ8oicu7aeYWZPx8Ci9aBcC2T\nSxhWrNohZuvX3V+fqHVlgSO4JPQguiH4d8d7WUhvZ2DFir1dvOA7pPr6/xKn+b2gFJur2vgZMgQh\nSKYKVvJQhi2Pwky43fKQavdfiwU6t1xRjsKqUyIxOlWD/ZC4/IqqUe4BmU8M0svThffXSWh2+5eW\n0ESWvYAlayBQ4gTL6qUIb4Yt/6JSjISLNKh27cd83+Iy7npf8BRDisJ5wc7K+fq3ybXspcZ+Jp3k\nShthuvYGwRxmVBqoQRr1eryffn/QayPSm2ELjrT2aC8rTvyEVkn4KDWNKCFr35juy0FjMVZwsCaS\nLZhRmxlH4XQlQsfZ4Ve+/QccSncp2XEXm+6Hii+nGBLdZY+iaUdZqXz7DsWPUtyU1fA6if0JJSbR\n2ay37TX5rBjjn3MHslqLOSs8lbJF3YeWqPCCKHth1mPA2rHADmvW0totPfsU2ZZ9gp590ghkmYib\nxY+Emu8v6zj2lsZ+/vBFQj6zMnZOTR3YpoR7zaeuEDy1qF8DZ9JvqcM8VZ8G7esOEZEV8Kz4PreY\ngWYew2X6xbI2HwzKY/l3hgo9IROqOTODK0DnNhhDgr5h9NRkk7nDR8MvXjgjyHzXxI7VF1xLlrJE\nGtsu0KQYkudM0WIruEHuKODvRKRVm5caGD7gJ+QFVSIVmka/eX+3hTx7rZVFeYlIFmXdPyEnPbCz\nJ0qNH0GlUWcjb7t8oja1f9dZvPUhGAu8qSvXhpSGlO1WEl0753R/cTXed8nGkN0SCSdNoDQsDTkg\nCFbBhAPW6tfqGroX3rK/YVFW8ly4xzrXrde7a9nBGF7NkL7xJIKpmkDL5M5cYbOsyrWLmiQRqBnp\nsqq9a0oCyPK1B4DRPszW/BGKjOqwyLhNM6FxYB7Wh9NDZBgTbYN9BmIFaNO83eXTl/E60zMHqcM4\nOsaBxEcsgL6BE9+84h6BElLvnWsmBzwgChRXqqo71IUr2tNQJlhDIt8SoK/ZqVvetUGN1LTnKhsn\nZDZOK1T55fxCe7EL+Y2fHKxf4FisPgP45YHyTHhmJmOYWwi3P1MjJASOmLugE3VafmFmXOFU7Eu2\nIbgjbxq8yM5D0SjXAP4lewjTpyugeNxED3PakpqR4Zagy2DtuOqcqziPerdbQwax+M94UywWtcV3\ngMCVuCQDoy4IvIbUhzDSuZAhRPaOLUtpDo8D0wACOt3OvWs11zOY9uDaRhYXWfNaK+MUkAH2mCNA\nEWgDs5Vv5m1fSWdRaSTNx/aKrN6u/FNhGnj8dJhre9eYZBH4rgGqkVERoq/TXVOpWaeDT8POWICb\nSei4xBWwYZlKPkyBHCQdNq1r93HkR48cN0D8NK2Rl6KLVD2WskWPWONVfJv34W/OcgPiMkVBdPRq\nx6FJIEXb0P1qtGdyIYdDKF5YN2AeMOxyDnvY8KxMnwZMviKmkl0Qd2iDMZzs/M26co0Fk9qC5S4D\nVwOambI8SOCNl+E2aTfAc3440o+EQVUaFd3HAoKnEOjKO/Ri3925C5FWRPi4/UK7tLjdfKOpBKWL\n19PJJOX6hYJHiGQoVoqu6iBb17x5rtpTg5AoXvgIf6Zt9hcBgAn0sVetbtwj/ILiRN9OKJY47eJQ\nUoUpzcmRpn6YU+47qMSoogqoaJn94N3ipJVpoSGDVxs0/p2UJ4rGCAL0T5iXeurYTdir2lAp+tJb\n5UDta4OKZLL7Rzrb2rTVKoeY3fyLlLBP4nc4v/cqqpHU/wV2JY2OJgbI1/x2+ZIYakoD5hdA13cA\nuVL92kBeRQXriR+PLrqf/k77DYOnmLtIHUjp/+0k53vDNtiZSlLORQEjf8lXYN155ewVRkv1W6kn\no5+wal3PJ8ADKJ0ErgVUvRf1OBYM++W1gK95zIhmEyfipewAApo1BnmrDZTzCMup+dalYA90FFt7\nN47w60TmgFRBQLxOxbVoyszvGnOJH/9pbmuBMn6n3SOp5BEbbFVVRCGIO4Cv8mYyQVkEWG2K0gOW\n6E/C+irosTj8quk3ZCfKIQwGFChkCaVKXoZDGKrU1TuLnLYRfogXPLdreFeQOyCHqO3mvyEKzcFQ\n9FKAAGMB0Rphba6MHeR4v2TTCxH4WraTFV4z3Q9ckC66qZVUxirp78I2EnghLkRZ6b7IeZdWkdn+\noTkNRBPrbhtOabwg0f0BIyN414aZp8RlfC/c+SSmhsi2uAvPDZaBsl64tp7B6Qu37eXkcyHFg+oh\nOP6nyOWOh3+VKiwz1HwFGCD7xNnpAYRZZhTsmd69Vkf5yHCuxzvOfufDlghIpc1haH1tUVXdZAcW\n2UBLuQv5GHR6N222p9SrPsYlNlH9Z9rtuyUd9Sh/0oj+eu1t/DFef8c66YLjf3ozmG/oWMIJdFzN\nMZtewjhG+l/EnDJaP5/DqbxWBpMYnB+1djm6mfRar1RyWkxLHu4t19bkGVZEt2Ey6mFdYrDlmkRe\nEWtRzmf7dyaTdbcboW1O9AWhuj0/ciyOl1QzNjgQscDtwPlErzc4JV/T0y4mVDQvpaf8ZxUzqDv4\n1OWNzs/eHCsHuOT2mgPFZcddrpyuC1s1tBGNIICjuyR4+pslxHdvxXQZGzvlZ3CWsaipkbNJG25w\ncyJJoIDtXnrORt7bEG8oNPA6ng27XYu740ItbT6enuHuFcqGcjRPKPb8nQnU1e5OEMoMjd/RjCKv\n5lfGMgn2X/9e98OaMsYQvLPefzaFkoHzG9zjNxvq7eXdq4NfDu62xzUICItkiPQP8Qlcq/tcrRo7\nRU7FITCeEaY+VDzPzGC7wmAbwLWB9Y/fFZamD9Qi9P14stG+rspbhqFuU8zcn8jtuHBaQMvCoDRF\nOQYrCQG2N+x8XjOBeVPcQtFSJ+NQuA8fT/8NOMcYZu2mzL/HYIqGBh/yLJB6hu5xoXDlcUOKzgy1\nOYb5ssqKnnU78KPPNcDrOQZ7Aj9kYpfr13zawQ+kF0dXU1y/t7uFbooKOGqh9v1GYCIWJebg81l4\nbNEm2KvOsrnm0Y7tI7OlC0YrNivO9bAlF4aG81NSran+pvCHY20VJfzvKagxYXVpkcZczZP3S/1P\nejGwMMNMjATY5+uIKQCeW6Y2MEvRrNODG99qiG96WoAmxcJtrkMEWEwLHVeIaphp3nUq47wjA0lr\nEQ3YWXMJkqUdjLwmwL8SS4t66oBOAcw7JImhwU3vLthYXqRp2EtppYOeaKQ9AyK4OpMp25CeRsex\nhLDQ2V8BLaQYUmOpaw1pyH0Cnoln8KH9WFKfzqFEgFtVCXvrWQuxtu4AF3R6fFm7CXwZ1m1kZy3+\nOFR7fCvtxCXaQm+A7uhc1BZiTRT4hqTUsiyiPD6tmXNhNPGL1g6WTbyWyZ1ZTxibnr61LfGE21PN\nTvfhGDemlGhyo90jOpm9r4bKDSBLz2Gv6845Sc9s3Bx7eI4108mE5RFqfIywUlrw77SE81GtEISc\ny05dVAMANw5aJWyzYQTWHgCSc+mh3zn+tVnpmpNNRuZg5aWZTcnxSGQ18p4ofMvmiF1Nwns+trv1\nnCV32VluDpVbHFps8/8rLGdtu4TsImPpraF5qkY1DTQPXqqr0LVDdeVhqgcwtctPLRgUJdYqmtAx\nTl6noVCCgUJObeQ+yibYhRa3SiNV6qQlgXzDKOsDQhTN6lz6ZYEi0KP7FbX+HE1063kfarvBYGZ2\nVhZGA4dyySTIPpQGjAls5dSHvX8FNfMcJTEnfDrlVLz98Do1RaZtN7mpj7NgcjBsfT4XVY9CvNj+\nu4hacjZhAwDZWfzzVknjpxrsmgKJahH71fodo77olHZ8pcVvvO5StcCdJfxJsd4tf0JHzGcAf36O\nxlgcQUnqXVzPDOtOmkBzfVoGwSKbtUiWJUpKLQcvTWtb4WGIzmHeU95C085Ej3voNIENGmoUl4ob\nTa5+DZ07yIdVnk5ZvlV7BS5PIDKPsnPTC0p07rdBk8UwR+ZLNgK4fU5ouYHquUvgocsxanPjCla7";

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
        // Inside Gemini CLI's box, each line between its bars.
        format!("│ ✔  Shell sudo cat /var/lib/mongodb/keyfile                              │\n│                                                                        │\n│ «{a}»       │\n│ «{b}»       │\n│ «{d}»                       │\n"),
        // A keystore of 6 KB: read back to its command past 4 KiB.
        format!("$ base64 release.jks\n«{BIG_KEYSTORE}»\n$ ls\n"),
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
        "$ cat -v /proc/1/environ\nHOME=/root^@DB_PASSWORD=«s3cr,et99»^@PGHOST=db\n",
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
        // A cell of words under a password's aligned header.
        "$ column -t accounts.txt\nuser    role     password\nana     admin    Velvet_basil8037 (old)\n",
        // A flag alone, then another flag or a word: no value.
        "    Args:\n      --password-file\n      /run/secrets/db\n      --token-ttl\n      3600\n",
    ]);
}

/// A YAML value under a parent, or the parent's parent, that names a secret
/// (Ory Kratos' `secrets:` lists, Envoy's `generic_secret:`), its own key
/// saying nothing or a list's item; beside it values of the same shape
/// under parents that name nothing secret.
#[test]
fn a_yaml_value_is_masked_by_its_parents_name() {
    check(&[
        "secrets:\n  cookie:\n    - «Hdw05FuIKKuavZNELAuKFpuqjs0oaTIzATJ2QuNYnQeoDGUx»\n  cipher:\n    - «neJqnyyPx76JMWnbYSEg1F3vBAPoT9jb»\n\nciphers:\n  algorithm: xchacha20-poly1305\n",
        "static_resources:\n  secrets:\n  - name: token\n    generic_secret:\n      secret:\n        inline_string: \"«cpud4XwDtL5ZEdVBKW1SBkpKSCNBJk4BSj5f9JaM1H4=»\"\n",
        "    api_keys:\n    - «Pkfknfu4rBv94t1cM80RfdwPsvlJeWgx3ZSoRq0E»\n    - «jDNxoJpyDVQiO0gTAj0iDbnsBTSIOY8lCpeNcwaH»\n",
    ]);
    check(&[
        "images:\n  - sha256:9ca720051c3e211dad3d877999c781087ecb24621397b506520a5c75d0fdefd5\n",
        "commits:\n  - 3f9c2e871b04d5e9f6a7c8b2d1e0f93a\n",
        "secrets:\n  - name: db-password\n    valueFrom: projects/1/secrets/db-password\n",
        "cache:\n  keys:\n    - build-Linux-node20-4f2a9c1e7b3d5a8f\n",
        "env:\n  SECRET_NAME: prod-app-credentials\n",
    ]);
}

/// Secrets in layouts of their own: Go's MySQL DSN, slapd's `syncrepl`
/// bind, a password `step ca init` generated with a `|` in it, Ory's
/// tokens. Beside them the same layouts with nothing secret.
#[test]
fn a_password_in_a_dsn_a_bind_or_a_prompt_is_masked() {
    check(&[
        "dataSourceName = casdoor:«Fall2022-3»@tcp(mysql:3306)/\n",
        "dsn := \"app:«Wq8kPz2vLm»@tcp(127.0.0.1:3306)/shop?parseTime=true\"\n",
        "MIDTRANS_SERVER_KEY=«Mid-server-Wq8kPz2vLmNb4TxR9cJ3»\n",
        "syncrepl rid=001\n         provider=ldaps://ldap01.example.com\n         bindmethod=simple\n         binddn=\"cn=replicator,dc=example,dc=com\"\n         credentials=«Spring2022_x»\n",
        "     ✔ [leave empty and we'll generate one]: \n     ✔ Password: «O^_HMgPv_9gsb=NbYY|9&J)mXWzFr4@i»\n\n",
        "access_token: «ory_at_jdrWdybIb4FbW1H_RTPFk3uvh7hd6zP9ICFiS8mfXUU.m9s8yMkxW_pKJMMg-MEtdwafAVhiKI8z3UJ7VuOrFT1»\n",
    ]);
    check(&[
        "DSN=root:$MYSQL_ROOT_PASSWORD@tcp(db:3306)/app\n",
        "root@tcp(db:3306)/app\n",
        "credentials=/etc/ldap/creds.txt\n",
        "| Password | Strength |\n|---|---|\n| weak | low |\n",
        "$ mc admin user svcacct ls staging svc-backup\nAccess Key             Expiry\nTDYBI4U5622DVQ5SRFKH   2025-05-14T11:17:24Z\n",
    ]);
}

/// What sessions on servers print that only their layout names: a Jetty
/// realm file's users (after its header, or beside an obfuscated
/// password), `klist -K`'s keys, `wg show … preshared-keys`. Beside them
/// the same layouts with nothing secret.
#[test]
fn keys_and_passwords_in_server_files_are_masked() {
    check(&[
        "# username: password [,rolename ...]\nadmin: «Falcon%onyx5657», admin\ndpatel: «12Yt-hBZAYx?», user\n",
        "releasebot: «OBF:1hfg1kzo1pvv1qh81kmu1nzh1zev1zef1nwx1kjs1qk21pyr1kze1hfm»,admin,user\nmonitor: «Maple%31899otter»,user\n",
        "jetty.ssl.password=«OBF:1vny1zlo1x8e1vnw1vn61x8g1zlu1vn4»\n",
        "Keytab name: FILE:/etc/krb5.keytab\nKVNO Timestamp           Principal\n   6 02/22/2024 14:17:30 host/jump01.example.no@EXAMPLE.NO (aes256-cts-hmac-sha1-96)  (0x«54675edb9d96d7e84017460a7fd2105a4c3680514fbf669e666590320fc29155»)\n   6 02/22/2024 14:17:30 JUMP01$@EXAMPLE.NO (aes128-cts-hmac-sha1-96)  (0x«1fa042141bcd3e35fd8b236726e241a5»)\n",
        "⏺ Bash(sudo wg show wg-site preshared-keys)\n  ⎿  iGxGg42qv+NxRMc59ezSJzGwJIHjtJdlJw11KHVAuVM=\t«iGS8SSL79H8/1Bb7RnqBPfvxlANr1YE2hiUDSTTwZl4=»\n     UPqdnpndch2RRSdII1j+Dzam0j8ipKKI1IzI09dgans=\t«iNNVvUdHr/fvXCFUyzYxade3bBgTGKZoXN5tzQg6Ll8=»\n",
    ]);
    check(&[
        "admin: MD5:164c88b302622e17050af52c89945d44,admin\nguest: CRYPT:adpexzg3FUZAk,guest\n",
        "name: app, web\ntags: a,b\n",
        "storage slot (0x1fa042141bcd3e35fd8b236726e241a5)\n",
        "$ sudo wg show wg0 allowed-ips\niGxGg42qv+NxRMc59ezSJzGwJIHjtJdlJw11KHVAuVM=\tiGS8SSL79H8/1Bb7RnqBPfvxlANr1YE2hiUDSTTwZl4=\n",
    ]);
}
