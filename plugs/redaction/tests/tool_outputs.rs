//! What the tools that hold secrets print, each written from the tool's own
//! documentation (issue 51's list: helm, Doppler, 1Password, Bitwarden,
//! Terraform, Pulumi, sops, Vault, kubeadm, CI logs, HAR and Postman files,
//! browser cookies, and the vendors whose keys have no prefix worth the
//! name), with what must be masked between `«` and `»`. Every text is also
//! streamed, cut at every byte and one character at a time.
//!
//! These are tuning rows: the held-out generator (`benches/recall/classes.rs`)
//! was written apart from them and is read for its totals only. The values
//! are random, shaped like the real ones; none is a live credential.

mod support;

use support::check;

const SECRET_MANAGERS: &[&str] = &[
    // helm get values
    "$ helm get values api -n prod\nUSER-SUPPLIED VALUES:\nauth:\n  postgresPassword: «P1gjKP0O1jQ73Zj9dusj»\n  replicationPassword: «hoVlqXYRZsA2HBiQCer0»\nimage:\n  tag: 16.2.0\nredis:\n  auth:\n    enabled: true\n    password: «Wsmv5YD4V8BHNNW_7C»\n",
    "$ helm install web ./chart --set api.key=«rb7a6M9XHf5jxLlWcfHhwcpAb1iyCe7g» --set replicas=3\nNAME: web\nLAST DEPLOYED: Sat Dec  5 10:11:12 2026\nSTATUS: deployed\n",
    // doppler
    "$ doppler secrets\n┌────────────────┬──────────────────────────────────┐\n│ NAME           │ VALUE                            │\n├────────────────┼──────────────────────────────────┤\n│ DOPPLER_CONFIG │ dev                              │\n│ SESSION_SECRET │ «p2iGhz0T7i1d1rBUahF4l3laj52RO5ue» │\n│ SIGNING_KEY    │ «f61ae9e6b98f4d539e05d29eefc084cc» │\n└────────────────┴──────────────────────────────────┘\n",
    "$ doppler secrets get SIGNING_KEY --plain\n«52oYUUZkprVjdagvlUemHA8IZ38NzaQDZwjV0DhR»\n",
    "$ doppler configs tokens create ci --plain\n«dp.st.dev.C7Uw7AS9cEmeui4yjJW06RFvf7gl1APqxbLuzy5G4k8»\n",
    // 1Password
    "$ op signin\nEnter the password for alice@example.com at my.1password.com:\nexport OP_SESSION_my=\"«pLntAp2HnbrE1Cj93MWUeqIiJ9KFiWhqNH3wDdh1dWc»\"\n# This command is meant to be used with your shell's eval function.\n",
    "$ op item get \"Prod DB\" --reveal\nID:          e9chs6emje6m2wo5ofe48nkym9\nTitle:       Prod DB\nVault:       Private (ohk9f447bambvttfk7tgiald4u)\nCategory:    DATABASE\nFields:\n  type:        postgresql\n  server:      db.internal\n  port:        5432\n  username:    app\n  password:    «KM=xkE#0pH4VFCm!pH*F»\n",
    "$ op read op://Private/Stripe/credential\n«boV4Mo6UewG9k7wafC5S1DrMBdZog8KLfeqzwFwo»\n",
    // Bitwarden
    "$ bw unlock\n? Master password: [hidden]\nYour vault is now unlocked!\n\nTo unlock your vault, set your session key to the `BW_SESSION` environment variable. ex:\n$ export BW_SESSION=\"«v25MzpzjgOTC+R8GLWa3TrlzOlTETsalpZN2pQ4POhnD+O5sKtgJ0Fnw8Lw3Ku+xyE3XWv3Prf8yNm4XZaCqxw==»\"\n",
    "BWS_ACCESS_TOKEN=«0.c16dc921-e102-4aa9-b745-80f4d09b75ea.0cTv2VVJtsOXoiHkOP9B7v6wGwnUTV:aaAfXi2+PIVfh6Hauh6VNQ==»\n",
    // Terraform and Pulumi
    "$ terraform output -json\n{\n  \"db_password\": {\n    \"sensitive\": true,\n    \"type\": \"string\",\n    \"value\": \"«^84kZ%ozfodoWT5i^LIt+_d0»\"\n  },\n  \"endpoint\": {\n    \"sensitive\": false,\n    \"type\": \"string\",\n    \"value\": \"db.cluster-62k9ub8gxsmy.us-east-1.rds.amazonaws.com\"\n  }\n}\n",
    "$ terraform output -raw db_password\n«7YQd^tA6UisBqyjEC#=c3wYH»\n",
    "      \"type\": \"random_password\",\n      \"name\": \"db\",\n      \"instances\": [\n        {\n          \"attributes\": {\n            \"id\": \"none\",\n            \"length\": 24,\n            \"result\": \"«2DdG9tegD-v86DcWc!!SxzDd»\",\n            \"special\": true\n          }\n        }\n      ]\n",
    "$ pulumi config --show-secrets\nKEY                 VALUE\naws:region          us-west-2\nshop:dbPassword     «kwNP7X60yiqk5YPpST6H»\nshop:apiToken       «90031d280219a2d8d32dc59f2b2b2c643612f8fa»\n",
    "$ pulumi stack output --show-secrets\nCurrent stack outputs (3):\n    OUTPUT          VALUE\n    bucketName      shop-assets-a5cc8f7\n    dbPassword      «oGUm33Ta2SB4Y1fCmHSl»\n    endpoint        https://shop.example.com\n",
    // sops
    "$ sops -d secrets.enc.yaml\ndb:\n    user: app\n    password: «ZFfxaEHNw441moTasMS1Hu»\nstripe_secret: «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»\nwebhook_signing_key: «0dfd660fe13fa17168d13375f2e0156de57d38d902881dfb005aa1d68faf8687»\n",
    // Vault
    "$ vault operator init\nUnseal Key 1: «KWq28kxuaBiRiPvnPKZGyv4TFQo8O65wegrK/C+OzjxK»\nUnseal Key 2: «ASe3j0hA/WFe4FXWK66wj8IEc1jXxQPE3wGkcTGwzZbh»\nUnseal Key 3: «cfhMsnw3COfoIA3GMFj03ZJGITI9HXKzG5kBbQxSD61C»\n\nInitial Root Token: «hvs.4meLufqWzesflRop7nnJ8gQi»\n\nVault initialized with 3 key shares and a key threshold of 2.\n",
    "{\n  \"unseal_keys_b64\": [\n    \"«XWDIblt4/v4tfF2pLMTTF0wH4GmBM0xwbzcNjcRu8zc=»\",\n    \"«eL6Z9yxHE4e0WrXqUztjBKvnXL1mePoLeFO0ek6R/TQ=»\"\n  ],\n  \"unseal_keys_hex\": [\n    \"«a34255edd4057b1ef93f1d992c8001e843138e2d094ede211c896614a0aa87d1»\",\n    \"«3f49bde9e348b48ba5de2d4d0cd78da75527ec99e0b62d4934a13d392d5722f5»\"\n  ],\n  \"unseal_shares\": 2,\n  \"unseal_threshold\": 1,\n  \"root_token\": \"«hvs.AZw0Tm2Y0vcvHZQQpqB7i0FX»\"\n}\n",
    "$ vault write -f auth/approle/role/ci/secret-id\nKey                   Value\n---                   -----\nsecret_id             «818d1489-3de0-418f-b0c3-9aeb72929ea5»\nsecret_id_accessor    5a1494df-8dd4-4e11-b96b-a48930c83d5e\nsecret_id_num_uses    0\nsecret_id_ttl         0s\n",
    "$ vault login -method=userpass username=alice\nKey                    Value\n---                    -----\ntoken                  «hvs.CR2g0pd6mkGSm5hwO6PZK6FDibW7jt0EGNxrTZ0WH08Yijrtd5eWATJG4gfyQr393wzvXYVgtTY3sRIZL1W5TRCh8EM»\ntoken_accessor         miJAcPilx0wQf0ZVaL2hyvJd\ntoken_duration         768h\ntoken_renewable        true\n",
    // kubeadm
    "$ kubeadm token create --print-join-command\nkubeadm join 10.0.0.10:6443 --token «xuzpcu.s4nspeuzmplfpcbm» --discovery-token-ca-cert-hash sha256:407ec7bd0aff12e8b6c69d223df32e7a8411e6c8d7999b99d80a22d816f54db5\n",
    "$ kubeadm token list\nTOKEN                     TTL         EXPIRES                USAGES                   DESCRIPTION   EXTRA GROUPS\n«b9iad3.w7gumbbutqiaf2jc»   23h         2026-12-07T07:00:00Z   authentication,signing   <none>        system:bootstrappers:kubeadm:default-node-token\n",
    "  kubeadm join 10.0.0.10:6443 --token «suohb6.gh8h3lzqi7jlsp0u» \\\n\t--discovery-token-ca-cert-hash sha256:ef2c440753f07428358eb16729dec0d6a5cc5bed969db0e1161995f98e00fe79 \\\n\t--control-plane --certificate-key «68f5fdb0bb598eea390393c85276db5bc6624a57a5d3b491332444ab85410767»\n",
];

const VENDORS: &[&str] = &[
    // Zulip's zuliprc
    "[api]\nemail=deploy-bot@zulip.example.com\nkey=«gtWZWqM1avTxTIKV3tnAmXlJKB0XKIkS»\nsite=https://zulip.example.com\n",
    // Elastic
    "$ bin/elasticsearch-reset-password -u elastic\nThis tool will reset the password of the [elastic] user to an autogenerated value.\nThe password will be printed in the console.\nPlease confirm that you would like to continue [y/N]y\n\nPassword for the [elastic] user successfully reset.\nNew value: «4eKsSkILvtYm2#@q#a7^»\n",
    "{\n  \"id\": \"DijRaZRKYDrBSQLBCLn1\",\n  \"name\": \"ingest\",\n  \"api_key\": \"«MZYsW_O2HkEJ7yFyyUEL-Q»\",\n  \"encoded\": \"«5bBco9kFBLQAUAOu+Tz0X7jsbR/0EphO4BjHLGerzPi+TRim»\"\n}\n",
    "elasticsearch.serviceAccountToken: «AAEAAWVsYXN0aWMva2liYW5hL3Rva2VuMToC9aknRbcSuKZyqlQQmyM0ANi1T8rzbzG2KkUgvdM»\n",
    // Honeycomb
    "curl https://api.honeycomb.io/1/events/prod -X POST -H \"X-Honeycomb-Team: «bRGNC6eoskN019CT1qQ6bj»\" -d '{\"ms\": 12}'\n",
    "OTEL_EXPORTER_OTLP_HEADERS=\"x-honeycomb-team=«hcaik_01jfqkmllkxyw8wjka00tkjgl7ssdsrpi2mkon5u74jnbgsewmbc7jfamp»,x-honeycomb-dataset=web\"\n",
    // Azure
    "Endpoint=https://shop-config.azconfig.io;Id=LQwJ-l1-s0:a7iE2PunSbktD6RLwZbf;Secret=«q6q22PO7vyjaz5C71eRv7RtNH26SmbGP3DiY0pgAxDI=»\n",
    "$ az cognitiveservices account keys list --name vision -g rg\n{\n  \"key1\": \"«66f512fc042910992a9dd7e959985cbb»\",\n  \"key2\": \"«c501ecb11452d9bd1acdf72b6f192d94»\"\n}\n",
    "$ az functionapp keys list -n shop-fn -g rg\n{\n  \"functionKeys\": {\n    \"default\": \"«1rimX0_GTKayVcuj3wsPhUS7pRIRs738UL16pget0rbqpM-wfzlRNQVw==»\"\n  },\n  \"masterKey\": \"«AXjWq-8RZpH3xK70s6BgRtflJmIuIBs5qBJeB04xOxomrWnsnxLQY2ZY==»\",\n  \"systemKeys\": {}\n}\n",
    "GET https://shop-fn.azurewebsites.net/api/orders?code=«crZ-wzfM5fj-dSK3n7yrCWRnLtOaMX8t9u4Z2Zz--YcHgjI68YJ3ubuC==» 200\n",
    // Bedrock
    "export AWS_BEARER_TOKEN_BEDROCK=«ABSKQmVkcm9ja0FQSUtleS1opynJIEo4HljjHDZWJ+sLVPW6DGygolzT26PqU0ouM6KWxntiaSzUDC9eB+GiPtKICkSTULnt6ZsBoQvvkkSb1AXAefq2+Ynpj5lT8+zyQvk»\n",
    "client = boto3.client('bedrock-runtime', region_name='us-east-1')  # «bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29tLz9BY3Rpb249Q2FsbFdpdGhCZWFyZXJUb2tlbi7IW2K+OTrakHtztJdhKgmT7o6lK3g9o2ybwl/l7PyolLrMB8sHoyy0Mg+VeKcl8tT9RpEQlsrzQZRlFXSn3uvUUgvnlPc8Y89NCwVQ/QONFpqH3am/1VIqqnGilzHI+jfUn1IDBOlYy8lBEfKI84YDBG1f2RLRx4»\n",
];

const WEB: &[&str] = &[
    // A HAR file's request.
    "      \"request\": {\n        \"method\": \"GET\",\n        \"url\": \"https://api.example.com/v1/me\",\n        \"headers\": [\n          { \"name\": \"Accept\", \"value\": \"application/json\" },\n          { \"name\": \"Authorization\", \"value\": \"Bearer «lIqHY8nd-ctF5tRsNCPsCq_4xpOZJVSHyzTm5PU3D3G9ZB6YK4b8bQ»\" },\n          { \"name\": \"X-Api-Key\", \"value\": \"«8e57277369899b4eb57e298967a13aba9caa8b24»\" },\n          { \"name\": \"Cookie\", \"value\": \"theme=dark; sessionid=«j69jpszdr0bs66p1jjsvmxbc93f6i4nd»\" }\n        ],\n        \"cookies\": [\n          { \"name\": \"sessionid\", \"value\": \"«1aqgqnauwb11fgjg4vxxzpeasr14sdaa»\", \"path\": \"/\", \"httpOnly\": true }\n        ]\n      }\n",
    // Postman: an environment and a collection's auth.
    "{\n  \"name\": \"Production\",\n  \"values\": [\n    { \"key\": \"baseUrl\", \"value\": \"https://api.example.com\", \"enabled\": true },\n    { \"key\": \"apiKey\", \"value\": \"«uJKehkt9FaNQsjYuNGbUG8J99qxSMmwH»\", \"type\": \"secret\", \"enabled\": true },\n    { \"key\": \"accessToken\", \"value\": \"«lGB9IFEVablWTpuO2qsGIcBE25k2WADaVaSiCeX-vKGDOKv12TqG0gzGohOtd35Q»\", \"type\": \"default\", \"enabled\": true }\n  ]\n}\n",
    "\"auth\": {\n  \"type\": \"apikey\",\n  \"apikey\": [\n    { \"key\": \"value\", \"value\": \"«oROHK9NjD5ehLrKv82HoLYDBUYAxYGtJiwJQ»\", \"type\": \"string\" },\n    { \"key\": \"key\", \"value\": \"X-API-Key\", \"type\": \"string\" }\n  ]\n}\n",
    "\"auth\": {\n  \"type\": \"bearer\",\n  \"bearer\": [\n    { \"key\": \"token\", \"value\": \"«eJt5WN2ShKmBav7i92CRCEtHOKfVc7rML_lw-1twURBknWZ41-qWpA»\", \"type\": \"string\" }\n  ]\n}\n",
    // Browser cookies.
    "# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t1767225600\tsessionid\t«en3orc6dq9v4cz64akn0bcfcpmj7wjz2»\n.example.com\tTRUE\t/\tFALSE\t1767225600\t_ga\tGA1.2.1234567890.1700000000\n.github.com\tTRUE\t/\tTRUE\t1767225600\tuser_session\t«hkKodC2a_Z4Ly9628pcdqrthStCB3uKZf5NfCFbgjALmmK0He_DF4iLazTBH3OmC»\n",
    "curl 'https://app.example.com/api/orders' -H 'accept: application/json' -H 'cookie: _ga=GA1.1.1234567890.1700000000; connect.sid=«s%3AIYRA2ofCIwWrmRv7mvBxZ8bJRpIw_MvY31cToJP-Geo.uPSrsAfDq9rMXMntLoWiPM4qCC4lK2XGG8HEoCZdY8FldM5rtUsXtAPEXw»; theme=dark'\n",
    "Set-Cookie: _shop_session=«fQFnfl-0stzGCFV5nFbU1plzc0qT8rLNxlA6nknpgJRkr18u-oIrZ3Z87JSJIYzfNb-WZEGI0JujPRsdLhkDu-EAFjyRmmUCLb818MOh88TGM5ZG2TcxXztRfWO6QNwsZjS_U30koahO7ovjm5XplFqoEKbTj5yf--c047a30db659d8a95f8c4d6fcdc874496bdea0cf»; path=/; secure; HttpOnly; SameSite=Lax\n",
    "Set-Cookie: PHPSESSID=«6ieicyswns0rvfa6io2tz5r5ce»; path=/\nSet-Cookie: JSESSIONID=«93b4ac21c953da42389b93d3a5b81673»; Path=/app; HttpOnly\n",
    "[{\"domain\": \".example.com\", \"expirationDate\": 1767225600, \"httpOnly\": true, \"name\": \"session\", \"path\": \"/\", \"secure\": true, \"value\": \"«q1RIuTIb54qUQ3X51W3SgTgLTLPZMhAzJIM-9AP66wWFlLxXWvfSLw9tihpjcV77HIxZHixZ5NFW9mu2nSJNIQ»\"}]\n",
];

const DECORATED: &[&str] = &[
    // cat -A
    "$ cat -A .env\nDB_HOST=localhost$\nDB_PASSWORD=«gMtYCFzxYNCoM2I5$»\nAPI_KEY=«9712937452b0a5e69e01dcd2400ce271^M$»\n",
    // A GitHub Actions log.
    "2026-12-05T10:11:12.1234567Z ##[group]Run ./deploy.sh\n2026-12-05T10:11:12.1234568Z   env:\n2026-12-05T10:11:12.1234569Z     REGION: eu-west-1\n2026-12-05T10:11:13.2345678Z + export DEPLOY_KEY=«BWGtVX6rMy1P3dHX2VgREsq5MY8aLwF2QsweUM3T»\n2026-12-05T10:11:13.2345679Z + curl -H 'Authorization: token «ghp_OFdth1u2UFvgOvIdad9kzH3prGwkDnFTqryk»' https://api.github.com/user\n",
    // A terminal's hard wrap at 80 columns splitting a value.
    "$ echo $SLACK_BOT_TOKEN\n«xoxb-8118a9fe7453-153080891a1f6-AIOMJ1eHXfjHJ2kovvCecxIm»\n",
];

const LEFT_ALONE: &[&str] = &[
    "$ vault kv metadata get secret/db\n======= Metadata Path =======\nsecret/metadata/db\n\n========== Metadata ==========\nKey                     Value\n---                     -----\ncas_required            false\ncreated_time            2026-12-01T10:00:00.000000Z\ncurrent_version         3\n",
    "$ sops -e secrets.yaml\ndb:\n    password: ENC[AES256_GCM,data:NiufJDt55FtI5jt2SWUq5A==,iv:pHIZaS80ITbZ9UzBzGC+olV6JJa06BvJguuD2jEZaTk=,tag:XNOOOzeWq5euQJkgfhLFxQ==,type:str]\nsops:\n    age:\n        - recipient: age1hsna287bn4zqk7e4dc2cqstu3nudcapzv6l8jeluj0ko3e8wi6oq0lo9cu\n",
    "pulumi config set --secret dbPassword\nconfig:\n  shop:dbPassword:\n    secure: v1:0kz+89DIRrn9igNm:ccdg3plLeZd3v3ty59TtTmL3y1+vcXuH\n",
    "$ terraform state show random_password.db\n# random_password.db:\nresource \"random_password\" \"db\" {\n    bcrypt_hash = (sensitive value)\n    id          = \"none\"\n    length      = 24\n    result      = (sensitive value)\n}\n",
    "2026-12-05T10:11:12.1234567Z   API_TOKEN: ***\n2026-12-05T10:11:12.1234568Z   DB_PASSWORD: ***\n$ echo $CI_JOB_TOKEN\n[MASKED]\n",
    "$ op item get \"Prod DB\"\nFields:\n  username:    app\n  password:    [use 'op item get whl300as3l625s28991jrrh22w --reveal' to reveal]\n",
    "kubeadm join 10.0.0.10:6443 --token <token> --discovery-token-ca-cert-hash sha256:<hash>\n",
    "      { \"name\": \"Content-Type\", \"value\": \"application/json\" },\n      { \"name\": \"X-Request-Id\", \"value\": \"d24fece8-2931-4363-b335-6f53e0f555f9\" },\n",
];

#[test]
fn secret_managers_outputs_are_masked() {
    check(SECRET_MANAGERS);
}

#[test]
fn vendor_keys_without_a_prefix_are_masked_in_their_places() {
    check(VENDORS);
}

#[test]
fn web_captures_are_masked() {
    check(WEB);
}

#[test]
fn decorated_lines_are_read_through() {
    check(DECORATED);
}

#[test]
fn what_those_tools_print_without_a_secret_stays() {
    check(LEFT_ALONE);
}
