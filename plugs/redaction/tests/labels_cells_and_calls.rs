//! Places a seventh corpus written apart (`benches/recall/agent_tuning_6`)
//! showed unread, each a class: a value under an HCL block whose label names
//! a secret (Terraform's and Packer's `variable "db_password" { default =
//! … }`), a key in hex under a name that says it is a credential's
//! (ASP.NET's `machineKey`), a client's key given as an argument
//! (`algoliasearch(appId, key)`), a table's cell under a header that names
//! a secret read whole, symbols and code span included (`` `n#yO…` ``).
//! Beside them, what must stay. Each text is
//! also streamed, cut at every byte and one character at a time, and must
//! come out as whole.

mod support;

use support::check;

#[test]
fn values_under_labels_and_in_calls_are_masked() {
    check(&[
        "variable \"winrm_password\" {\n  type      = string\n  default   = \"«Juniper_falcon_Glacier_Prairie_866»\"\n  sensitive = true\n}\n",
        "  25→\n  26→variable \"db_password\" {\n  27→  default = \"«Zq8Lw2Rt5YmK9»\"\n  28→}\n",
        "    <machineKey validationKey=\"«8A67639F74080F56C5AA328F676226E236A23E238E3B1C77FC4C011F1BD38F1F34920FBD01F40072E3CF347862554017CDF83FD989E60F210402362D53C9EFC6»\" decryptionKey=\"«D892AA68BFCC8C928344B16103485A1C292BE01E4FC2D031»\" validation=\"HMACSHA256\" decryption=\"AES\" />\n",
        "const algolia = algoliasearch('YBFB1ZDYDG', '«db98f5390f8f0a3f50ec0ee73dbecb6d»');\n",
    ]);
}

#[test]
fn labels_that_name_nothing_secret_stay() {
    check(&[
        "variable \"region\" {\n  type    = string\n  default = \"eu-west-1abcdef\"\n}\n",
        "resource \"aws_instance\" \"web\" {\n  ami           = \"ami-0c55b159cbfafe1f0\"\n  instance_type = \"t3.micro\"\n}\n",
        // A digest's 128 hex under a name that says nothing of a key.
        "checksum: 8A67639F74080F56C5AA328F676226E236A23E238E3B1C77FC4C011F1BD38F1F34920FBD01F40072E3CF347862554017CDF83FD989E60F210402362D53C9EFC6\n",
        "const client = algoliasearch(process.env.ALGOLIA_APP_ID, process.env.ALGOLIA_KEY);\n",
    ]);
}

#[test]
fn a_cell_under_a_secret_header_is_masked_whole() {
    let table = |cells: [&str; 4]| {
        format!(
            "| Service       | User  | Password / token     |\n|---------------|-------|----------------------|\n| Grafana       | admin | {} |\n| RabbitMQ UI   | ops   | {} |\n| Metabase      | leila | {} |\n| PagerDuty API | —     | {} |\n",
            cells[0], cells[1], cells[2], cells[3]
        )
    };
    let masked = table([
        "`«n#yOz6QzG*-6b+Skg0»`",
        "«Ub*jfhg2-Q*p6LA»    ",
        "`«63db8bb700c674aa»`",
        "`«u+MsbseYkdZ_RlOPlNOk»`",
    ]);
    // Words in a secret's column stay; so does a random value in a column
    // that names no secret.
    let words = table([
        "`see the vault`     ",
        "ask #platform       ",
        "rotated monthly     ",
        "—                   ",
    ]);
    let notes = table([
        "`n#yOz6QzG*-6b+Skg0`",
        "a                   ",
        "b                   ",
        "c                   ",
    ])
    .replace("Password / token", "Notes           ");
    check(&[&masked, &words, &notes]);
}

#[test]
fn a_key_under_an_aligned_header_without_a_rule_is_masked() {
    check(&[
        // `influx auth create`: columns one blank apart where cells are wide.
        "ID               Description    Token                                                                                    User Name User ID          Permissions\n02717dbf0c5ab1dd telegraf write «hOBWPPG8TsSdtLcM09OPNXTpAEnclQqZ2CH4OucT4ra5KOpFpE-VZiHfWhv_w4MogIbpotQ1pgdT1qA6eJLD9A==» greta     7d3a52e104a7d017 [read:orgs/b27418fe79dc6735/buckets]\n",
        // `column -s, -t` of a credentials CSV, two rows under the header.
        "User name      Password                                  Console login link\nbackup-writer  «2bb7ad4508efa1440bd50eae09deb8fa446d1d18»  https://884860473160.signin.aws.amazon.com/console\nci-deployer    «Xk29fLq0Wm3nB7vR5tZp»                      https://884860473160.signin.aws.amazon.com/console\n",
    ]);
    // Columns that say what they hold, ids under no secret's name (the
    // digest's row is cut where the rest of its line decides: a stream finds
    // in all it has, as the whole text is read).
    check(&[
        "KEY_ID                                    CREATED_AT            EXPIRES_AT\n8c1f0e3b2a4d5c6e7f8091a2b3c4d5e6f7089a1b  2026-01-01T00:00:00Z  9999-12-31T23:59:59Z\n",
        "NAME           DIGEST                                                            UPDATED\nDB_PASSWORD    9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  2 days ago\n",
        "REPOSITORY   TAG       IMAGE ID                                                                   SIZE\napp          latest    sha256:3f4e5d6c7b8a9f0e1d2c3b4a59687766554433221100ffeeddccbbaa99887766  120MB\n",
        "Release   Revision  Commit                    Deployed\nweb       3         Zq8Lw2Rt5YmK9xPv3nB7Qe4  2 days ago\n",
    ]);
}
