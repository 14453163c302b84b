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
