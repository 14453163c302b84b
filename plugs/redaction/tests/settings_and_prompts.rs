//! Fourth round of tuning rows for issue 51 (written 2026-12-06 from the
//! tools' documented usage, before the held-out sets were read again):
//! settings made on command lines and in code whatever their names, values
//! a label announces on the line before, secrets echoed into a login or
//! passed by their place among a call's arguments, text escaped for HTML;
//! and what only looks like one of these. Each text is also streamed, cut at
//! every byte and one character at a time, and must come out as whole.
//!
//! The values are random (Python's `random`, seed 11), shaped like the real
//! formats; none is a live credential.

mod support;

use support::check;

/// Environment variables and secrets set by a command, under names that say nothing.
const SET_ON_COMMAND_LINES: &[&str] = &[
    // docker run -e
    "$ docker run --rm -e UPSTREAM=«C3J27XDCG2LmlZGEONYlgCtjfIZ4SOcM» -e MODE=prod ghcr.io/acme/api:1.4\n",
    // docker run --env= quoted
    "$ docker run --env=\"RELAY=«z9CPVNPkNa1Hedcm4pMbXDuCL1mH»\" acme/relay\n",
    // docker build --build-arg
    "$ docker build --build-arg FETCH_AUTH=«oOsFaQfDPrAJ71fTquWoGsbeKXgzg2sye9b2Rann» -t acme/web .\n",
    // gcloud set-env-vars list
    "$ gcloud run deploy api --region europe-west1 --set-env-vars LOG_LEVEL=info,UPSTREAM=«76dEyTzAeKOmXRrvftva9AW7hipTgadD»,MODE=prod\n",
    // gcloud update-env-vars =
    "$ gcloud functions deploy hook --update-env-vars=HOOK_SEAL=«ZFlRJmCGmUXiAPyhzAnar3ZLt4bnlz2MPKgc»\n",
    // az appsettings
    "$ az webapp config appsettings set -g rg -n shop --settings WEBSITE_RUN_FROM_PACKAGE=1 PAYMENT_SEAL=«jnCqaXNv1syeefnLOpaMxxNDi9LE1Ki3ylOjt6o0NpUm»\n",
    // aws lambda Variables
    "$ aws lambda update-function-configuration --function-name ingest --environment \"Variables={MODE=prod,INGEST_SEAL=«kVO8JmR8y4EMfAdggcG9qpVTzqA05MFsHl7UeioE»}\"\n",
    // fly secrets set words
    "$ fly secrets set SESSION_SEAL=«lUr5Q*rec8TNecj9» -a shop\n",
    // fly secrets set second item
    "$ fly secrets set MODE=prod RELAY=«eUtuieeCIxVc57VVTiY96vwf»\n",
    // supabase secrets set
    "$ supabase secrets set STRIPE_WEBHOOK=«RE5e32A8Yb3FKaNQyyLaMeffOhq4AUvy»\n",
    // heroku config:set
    "$ heroku config:set UPSTREAM=«647k*^dNl9cDo#!G» -a shop-prod\n",
    // kubectl from-literal
    "$ kubectl create secret generic relay --from-literal=upstream=«5axtjRNmHkW5vQ7CF5puzQqmOBZZW6m4» --from-literal=mode=prod\n",
    // kubectl from-literal second
    "$ kubectl -n prod create secret generic db --from-literal=user=app --from-literal=pass=«BXCOArr#SfiJvo58»\n",
    // railway variables
    "$ railway variables --set RELAY=«r7n1AyOHFRuT11NCue1cr3McRTrKwtPY»\n",
    // setx quoted
    "C:\\Users\\ana> setx UPSTREAM \"«KbPizDmbX1rpXjYdOhCgOIPOZx9eRmm0»\"\n\nSUCCESS: Specified value was saved.\n",
    // setx bare machine
    "C:\\> setx RELAY «EqlTaWEITclorXwIS8HGNWkz2YS5» /M\n",
    // netlify env:set
    "$ netlify env:set UPSTREAM «ofA75UyiCDmO46ayJKP4GY08vDuPngU3»\n",
    // fish set -gx
    "ana@box ~> set -gx RELAY «0ZP7Thnp5yftIY7uq6T2bwGfcCvJAXrF»\n",
    // gh secret set --body
    "$ gh secret set DEPLOY_SEAL --body «dBi2ewQr8t**4#lC» --repo acme/shop\n",
    // export after prompt
    "ana@box:~/shop$ export RELAY=«CHJs1UJOkHG16JqtQy9235Nnt2j9IHrK»\n",
    // cmd set after prompt
    "C:\\Users\\ana> set RELAY=«FmAIhGaMybIcH6zIZKhFfSke7IDA69Z7»\n",
    // powershell env after prompt
    "PS C:\\Users\\ana> $env:RELAY = \"«zrpEFivB50756EHugmANb7qiSXbcmjoa»\"\n",
    // go Setenv
    "\tos.Setenv(\"RELAY\", \"«RsuUwpNFgFULh2GNqTmSH4BbyOA0HNkI»\")\n",
    // rust set_var
    "std::env::set_var(\"UPSTREAM\", \"«n3OIOnHn2INL2io6VOZw5luMu57mnXm4»\");\n",
    // python environ
    "os.environ[\"RELAY\"] = \"«gi4piUfqygB18AIYTimzORZbgmKRw609»\"\n",
    // python environ secret name
    "os.environ[\"DB_PASSWORD\"] = \"«Uo%R%yj9nde^9syx»\"\n",
    // dotnet SetEnvironmentVariable
    "[Environment]::SetEnvironmentVariable(\"API_TOKEN\", \"«hnl1ks7RgLdi8RDeWguzDBGwBnMxaOSc»\", \"User\")\n",
    // prompts answer
    "✔ Enter a secret value: … «2mlADxVxz6mMkgGYau5fZ1T436O8zKMm»\n",
];

/// Settings on command lines that are no secret: names and places, words, paths, hashes.
const SET_NOT_SECRETS: &[&str] = &[
    // docker env words
    "$ docker run -e NODE_ENV=production -e TZ=Europe/Berlin -e BUILD_SHA=a8835c4abd5c652a9f30b1789a6c52cf63c03378 app\n",
    // docker release name
    "$ docker run -e RELEASE=app-2024-05-01-k8m2x9 -e GIT_COMMIT=ec16c03888ad3e21c5cf5f1dfd9c9b9f89900715 app\n",
    // gcloud env host
    "$ gcloud run deploy api --set-env-vars LOG_LEVEL=debug,DB_HOST=10.0.0.5,TRACE_SAMPLER=parentbased_traceidratio\n",
    // kubectl literal user host
    "$ kubectl create secret generic db --from-literal=username=app-service --from-literal=host=pg-primary.db.svc.cluster.local\n",
    // fly secrets host
    "$ fly secrets set DATABASE_HOST=top2.nearest.of.app-db.internal\n",
    // setx path
    "C:\\> setx PATH \"%PATH%;C:\\Tools\\bin\"\n",
    // setx java home
    "C:\\> setx JAVA_HOME \"C:\\Program Files\\Java\\jdk-21\"\n",
    // fish gopath
    "~> set -gx GOPATH $HOME/go\n",
    // setenv django
    "os.environ.setdefault(\"DJANGO_SETTINGS_MODULE\", \"mysite.settings\")\n",
    // rust log
    "std::env::set_var(\"RUST_LOG\", \"info,tower_http=debug\");\n",
    // environ home
    "os.environ[\"HOME\"] = \"/home/ana\"\n",
    // env item reference
    "$ gcloud run deploy api --set-secrets=RELAY=relay-key:latest\n",
    // set node options
    "$ export NODE_OPTIONS=--max-old-space-size=4096\n",
];

/// Values a label on the line before announces, a blank line between or not.
const ANNOUNCED: &[&str] = &[
    // api key shown once
    "Your new API key (shown once):\n\n    «AWRyd5uVzdLU8ueZ5oBUEqWpcHg7ZU6Dj90pMThd»\n\nStore it somewhere safe; it will not be shown again.\n",
    // created token
    "Created token for ci-bot:\n  «NADhn3dwHjhxCiQADMqOLRAxXVH0i8sU»\n",
    // enter password
    "Enter the password:\n«qE9o%N%TJIyJEyF%»\n",
    // access token for project
    "Access token for project acme:\n  «P6m4RcOdarqBbNcgoIreWf6RkJpOxEEwnvvF»\n",
    // generated secret
    "Generated client secret:\n«Vi13eZhCZ0N1XXnCBVqyZjxjP1MusJWV06lBPxLgD4ufIfBK»\n",
    // recovery passphrase
    "==> Your vault passphrase:\n    «!7MbjNBkM#PKsCTP»\n",
    // hex key
    "Encryption key:\n  «b3ae8e9ea7c72bb0bcc6bc4552e9071590d292a283a2043d77faecbaa4ff21db»\n",
    // crlf
    "New API token:\r\n«2aZy1f4D9IObHxTaZhA7A6jpVkOyRkun»\r\n",
];

/// What a label announces that is no secret, and labels that say what else the value is.
const NOT_ANNOUNCED: &[&str] = &[
    // request id
    "Your request ID:\n  yBHsr4dEtUhtPjX6l6dWDbLE\n",
    // fingerprint
    "Key fingerprint:\n  SHA256:6ZcugmlwnLpMTEMGoCl5rzl6W7tOJ80JE2qF4z69vQJ\n",
    // public key
    "Public key:\n  l9CZgBrXJhEb8V5F1u1uPsHqIgtwaAtqkTIm97kMcy1=\n",
    // key id
    "Your API key ID:\n  AKm6RfY0CncIAHFk819tutze\n",
    // token name
    "Token name:\n  ci-deploy-bot-2024\n",
    // cache key
    "Cache key:\n  node-modules-Linux-9e2b243ce3e0cf793e0649c9ac2866c3a98faec2\n",
    // idempotency uuid
    "Idempotency key:\n  5f2e8d1c-7b3a-4e9f-8c2d-1a0b9e8f7d6c\n",
    // secret arn
    "Secret ARN:\n  arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf\n",
    // expiry
    "Token expires at:\n  2025-01-01T00:00:00Z\n",
    // policy
    "Password policy:\n  minLength=12\n",
    // prose
    "The key points are:\n  Performance\n",
    // passphrase prompt
    "Enter passphrase for key '/home/ana/.ssh/id_ed25519':\nIdentity added: /home/ana/.ssh/id_ed25519 (ana@box)\n",
    // not a label
    "The token was rotated yesterday and the new one is in the vault: see\n  https://vault.example.com/ui/vault/secrets/kv/show/shop\n",
];

/// Secrets echoed into a command that reads one on its input, given by their place to a login or a call.
const PASSED: &[&str] = &[
    // docker password-stdin
    "$ echo \"«30jR2^rAsX9Q0bZO»\" | docker login --username ci --password-stdin registry.example.com\n",
    // gh with-token
    "$ echo «YYpQMHbqvmvtPCgJynGvYs0gNTkqXI5tJowNGGjK» | gh auth login --with-token\n",
    // set -x traces each command of the pipeline on its own line (here
    // under a CI log's timestamps)
    "2024-03-10T18:32:39.8660430Z gpg: Total number processed: 1\n2024-03-10T18:32:40.5832006Z + echo «UB+NnzuZJeo7SCpOV6vW6y7qFiqzmq6ZUPpEm7c6RT+ACRch6853»\n2024-03-10T18:32:41.1056726Z + docker login graniteopsacr.azurecr.io -u graniteopsacr --password-stdin\n2024-03-10T18:32:41.6887569Z Login Succeeded\n",
    "+ echo «Zq8Lw2Rt5YmK9x»\n+ gh auth login --with-token\n",
    // printf helm
    "$ printf '%s' '«Tm7HTT17mK8bOQmXfipEKASvvf73xrD4»' | helm registry login ghcr.io -u ana --password-stdin\n",
    // chpasswd
    "$ echo \"deploy:«8S00K!703poQ*31d»\" | sudo chpasswd\n",
    // cargo login
    "$ cargo login «u6dsUN5BUyMuWYt4L4eph2CpG3zdESgH»\n",
    // ngrok authtoken
    "$ ngrok authtoken «6pItQz8p4e6U93Qx3IAKZkoPVAKh5egHYih4IK8D»\n",
    // ngrok add-authtoken
    "$ ngrok config add-authtoken «aspUtbuleC5C0HzjwSLoctbD5utuFj7XXE4nms27S5dmu12w»\n",
    // cloudflared install
    "$ sudo cloudflared service install «5EblO4SJmIOpm84dPgtU0u95r3AT4ivS98XCAfko3thTSmrlUpGQsYrxZQH4hLHot57lQoriOQfDeC6HeH6caMLsIqBZKfksWmplrUJblY5j5cND6WLya75F»\n",
    // minio alias
    "$ mc alias set prod https://s3.example.com AKX7Q2M9ZLP4 «dleJXP6xuQEYcHsG02ORHV8IlMXXkhMBpQCJXqYT»\n",
    // requests auth tuple
    "r = requests.get(url, auth=(\"ana\", \"«EH!C#Hezg5xPtc#3»\"))\n",
    // HTTPBasicAuth
    "session.auth = HTTPBasicAuth('ana', '«%4HdjowEsgN2fOH#»')\n",
    // NetworkCredential
    "var cred = new NetworkCredential(\"svc-build\", \"«l^vWGFu#6hO07UBf»\");\n",
    // getConnection
    "Connection c = DriverManager.getConnection(\"jdbc:postgresql://db/app\", \"app\", \"«q!rs6*faE0slYM82»\");\n",
    // smtp login
    "server.login(\"alerts@example.com\", \"«7ecRTWUNosqhJ2pA»\")\n",
    // go SetBasicAuth
    "\treq.SetBasicAuth(\"ana\", \"«5!x!AX1jgJUJc*xH»\")\n",
    // teams old webhook
    "curl -H 'Content-Type: application/json' -d @card.json https://outlook.office.com/webhook/«5f2e8d1c-7b3a-4e9f-8c2d-1a0b9e8f7d6c@9f8e7d6c-5b4a-4f2e-8d1c-7b3a9e8f7d6c/IncomingWebhook/c683b14b4730ace2ca819c7f1644169d/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d»\n",
];

/// Echoes, logins and calls that hand over no secret.
const NOT_PASSED: &[&str] = &[
    // echo into tee
    "$ echo \"Build finished at $(date)\" | tee -a build.log\n",
    // echo into hash
    "$ echo \"BEISiHTJquUCQyj4n1rITCziyH3wogsx\" | sha256sum\n",
    // echo into base64
    "$ echo -n \"hello-world-2024-release\" | base64\n",
    // password-stdin variable
    "$ echo \"$CR_PAT\" | docker login ghcr.io -u ana --password-stdin\n",
    // a traced echo that feeds no reader
    "+ echo Zq8Lw2Rt5YmK9x\n+ ls -la\n",
    "+ echo \"$CR_PAT\"\n+ docker login ghcr.io -u ana --password-stdin\n",
    // cargo login registry
    "$ cargo login --registry my-registry\n",
    // docker login prompt
    "$ docker login registry.example.com\nUsername: ana\nPassword:\nLogin Succeeded\n",
    // login variables
    "self.client.login(username, password)\n",
    // basic auth env
    "HTTPBasicAuth(user, os.environ[\"PASS\"])\n",
    // auth tuple names
    "requests.get(url, auth=(USER, PASSWORD))\n",
    // connection variable
    "DriverManager.getConnection(url, \"app\", password)\n",
    // placeholder password
    "smtp.login(\"ana@example.com\", \"your-app-password\")\n",
    // vault userpass
    "$ vault login -method=userpass username=ana\n",
    // minio defaults
    "$ mc alias set local http://127.0.0.1:9000 minioadmin minioadmin\n",
    // login words
    "$ az login --use-device-code\n",
];

/// Text escaped for HTML: a page, a rendered log, an XML key shown in one.
const ESCAPED_FOR_HTML: &[&str] = &[
    // json in pre
    "<pre>{&quot;api_key&quot;: &quot;«wNnic2bVOEKaZWVtQQe62nJSwQh9X3xp»&quot;, &quot;region&quot;: &quot;eu&quot;}</pre>\n",
    // xml element
    "<td>&lt;password&gt;«Hl2pY#h!XQK#JCuZ»&lt;/password&gt;</td>\n",
    // link with amp
    "<a href=\"/cb?code=1&amp;state=xyz&amp;access_token=«mEXkwQTpHfVv6BZjELqS2JtS6b5zhx6e»\">continue</a>\n",
    // yaml single quote
    "<code>upstream_token: &#39;«6zrdyF2LtEUu4qebcwu5xKtq0Q4lPEyN»&#39;</code>\n",
    // xml rsa key
    "<pre>&lt;RSAKeyValue&gt;&lt;Modulus&gt;RUdBjg01iJi75WXerIN/U8ctyIDHCEaYaE/kQHSncOAYuyuuQ+LV1KU/EFUPwqiinNo59fu09gSGYYGGVPxQAq1qIuqzWLDxb8rII1GYXrgupfyKTpZQd9vViN4KCY0sXBKs4wnG+3ptPcIsJZJPDk9zUHgtiaNkaxR9rz09e1S=&lt;/Modulus&gt;&lt;Exponent&gt;AQAB&lt;/Exponent&gt;&lt;P&gt;«YhBGJyLF4gwdvpjITdNi7bAiUbHF/ZNm9Z0GdbsDPXVJU5TNJiPmHQBxBgqMAwSntsVSx3cbZgZmPAcwPinP38==»&lt;/P&gt;&lt;Q&gt;«C/0wIiXPxTbsWhBS42op6371XDWfe55KfgPt7QGOy8Zgq+oDxsonGHixeRGS6Ab2z+JEjn4+Ej/hitUwmQeSCK==»&lt;/Q&gt;&lt;D&gt;«p1xXd7+jlAOz3WbROJAAxqv7fqJoHSTNzbiAUN0zsjI2V0J6rpmS1E/pKpKk6C9Xz0C5iU1QK4ILbFb0VqGX1JRnnm6AlUcVdSct8jUv7O9hCcY3Dohi7ZBA/VsYmkavG8p37tcVUdnS0omMpiEqlNLTFF07gB5vn6rntsw0p0b=»&lt;/D&gt;&lt;/RSAKeyValue&gt;</pre>\n",
    // xml rsa key indented
    "&lt;RSAKeyValue&gt;\n  &lt;Modulus&gt;DtoWuLdZo/MfX1MkBHo1Q+ArmYMIHCVk29XT3Q5ogNhuWPZCmVeOU9D+bV0naTFUVMAhOx/pSglBGI2VZlKmkYCGQeOttKKh+gYkrRcBa91Qjwk4rW53p4OjoTopYNoBm1PrptJ80e3Wz//3X9nvPzbSuSWX57Ts9YPl+DHS0fG=&lt;/Modulus&gt;\n  &lt;Exponent&gt;AQAB&lt;/Exponent&gt;\n  &lt;D&gt;«iGWFB3ix06X+pDxnNteTu+Q+t5TMmFtBzSpuyvVPUnLHoFTcwGLKGqH+jIdKJtXuqluHNg2UD95VSBISDjojManpyVNTshisd0sj3xlT/zn1r+yk+dlrMGQCItt2c+OvluenoMMd1etxkaViBYD0SQCSYbEHgVQT6E1wztBG59C=»&lt;/D&gt;\n&lt;/RSAKeyValue&gt;\n",
];

/// HTML escapes around no secret.
const HTML_LEFT_ALONE: &[&str] = &[
    // prose
    "<p>Use &quot;Bearer&quot; with &lt;token&gt; in the &quot;Authorization&quot; header.</p>\n",
    // setting issuer
    "&lt;add key=&quot;Issuer&quot; value=&quot;https://id.example.com/tenant-7k2m&quot; /&gt;\n",
    // cursor link
    "<a href=\"/search?q=token&amp;page=2&amp;cursor=eyJpZCI6MTIzNDU2Nzg5MCwidHMiOjE3MTQ1NTc2MDB9\">next</a>\n",
    // public xml members
    "&lt;RSAKeyValue&gt;&lt;Modulus&gt;QxEHGcxNDiMQAeFlkF4Bf1rVTijXr1DRAWKi8bg/eWi2usiAu/CORrrsOfyErE6VVpIsjxSgpNPxpJ4HlkCcjNxuQnL96S+7eys8d4ZgKufwZBcdC2/i7dxRbvMfRHV8GOvTs126GQ+Du7KvOEZuRKmaS9o/Wa/ZI/7hlO/9hsd=&lt;/Modulus&gt;&lt;Exponent&gt;AQAB&lt;/Exponent&gt;&lt;/RSAKeyValue&gt;\n",
];

/// What secret stores, clouds and browsers print that is no secret.
const STORED_NOT_SECRETS: &[&str] = &[
    // vault field host
    "$ vault kv get -field=host secret/shop/db\npg-primary-7f3k2q9x.c4xvbn2lm0pq.eu-west-1.rds.amazonaws.com\n",
    // kubectl bucket
    "$ kubectl get secret shop -o jsonpath='{.data.bucket}' | base64 -d\nassets-prod-9x7k2m4q8w\n",
    // op hostname
    "$ op read op://Prod/Database/hostname\ndb-7k2m9x.internal.example.net\n",
    // ssm username
    "$ aws ssm get-parameter --name /shop/prod/db_username --with-decryption --query Parameter.Value --output text\nshop-app-7k2m\n",
    // kubectl continue
    "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"metadata\": {\n    \"continue\": \"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDU2LCJzdGFydCI6Im5naW54LTc4NWM5ZmI2ZjgtcXp4OWsifQ\",\n    \"resourceVersion\": \"123456\"\n  }\n}\n",
    // amz id 2
    "HTTP/1.1 200 OK\nx-amz-id-2: J4gkJgEZfGyn2Thj+9tLORzB5MqFJMwp8MFfcR8ZiuoHKXNGxHqh30YaH/+CXTfcu/DDpt3O7Ixd=\nx-amz-request-id: 4DHQ9RJ8WP2TQ0VB\n",
    // cloudflare cookies
    "Set-Cookie: __cf_bm=PrRX8gvv7d6bsI8LNt9DXdvgrnHFecg3TIdEWVHpsm7-1714557600-1.0.1.1-LxpBuzevd9wsH382OIAnA6pYE69fhBBERAWOJZP7; path=/; HttpOnly\nSet-Cookie: _cfuvid=8G58qLIAaHfmlXdNjlJrYULU7urXZPcTdDdBg8Em-1714557600000-0.0.1.1-604800000; path=/\n",
    // alb cookie
    "Set-Cookie: AWSALB=GhjaI74q2/FZE0flqFh8ZcXjY7nAF+OpQMcC0ZyGelI5AU3A53OBc0Ml686WZjDLD63BMCkRYc1S2HlWCYMz3h/gBYiRU9GG0udrPcJR/Pv/+L1smg674cLT; Expires=Mon, 08 May 2024 10:00:00 GMT; Path=/\n",
];

/// What secret stores, infrastructure tools and databases print, under names that say nothing or in layouts of their own.
const STORES_PRINT: &[&str] = &[
    // terraform sensitive flag
    "$ terraform output -json | jq -c\n{\"endpoint\":{\"sensitive\":false,\"type\":\"string\",\"value\":\"shop-db.internal:5432\"},\"relay\":{\"sensitive\":true,\"type\":\"string\",\"value\":\"«3gjbMvUBWJsT^dVY»\"}}\n",
    // terraform output piped
    "$ terraform output -json relay | jq -r\n«QzjYtO317Npnlbh6fOYbVmqbFdSLbQ0s»\n",
    // kubectl view-secret neutral
    "$ kubectl view-secret shop relay\n«3vnNTxSuvZ45n2ESubC6ZYKsMGwoJoMNujP96vYC»\n",
    // azure keys table
    "$ az eventgrid topic key list -n orders -g rg -o table\nKey1                                          Key2\n--------------------------------------------  --------------------------------------------\n«3wxv8TSBOC9UhD/gidmPfT+Xin1cwIftPg7KCcTFUaF=»  «LMHbcUN1wIwoum8yN4F0XUH74CKcLMYef6KyV7V6lYD=»\n",
    // powershell credential
    "PS C:\\> $cred = Get-Credential svc-build\nPS C:\\> $cred.GetNetworkCredential().Password\n«yjoFQ2^NeL*Tjobs»\n",
    // ssm by path
    "$ aws ssm get-parameters-by-path --path /shop/prod --with-decryption --query \"Parameters[].[Name,Value]\" --output text\n/shop/prod/relay\t«ZyTOWhCJ85BLWILdLTleDV5pRFn7CPIZ»\n/shop/prod/db_password\t«MXGXx1#eEJIzkiGx»\n/shop/prod/db_host\tpg-primary.internal\n",
    // 1password fields
    "$ op item get Shop --format json | jq '.fields[] | {label, value}'\n{\n  \"label\": \"password\",\n  \"value\": \"«EWLpXO#ah0!XpGgo»\"\n}\n{\n  \"label\": \"username\",\n  \"value\": \"shop-admin\"\n}\n",
    // psql expanded neutral
    "shop=# \\x\nExpanded display is on.\nshop=# SELECT * FROM api_clients WHERE id = 7;\n─[ RECORD 1 ]─────────────────────────────────\nid            │ 7\nname          │ storefront\nrelay         │ «bxMxJvyj8LP6MlnGaFQXPKOpCmFUceI3»\n",
];

/// What they print that is no secret: hosts, paths, numbers, names, stand-ins, analytics cookies.
const STORES_PRINT_NOT: &[&str] = &[
    // pulumi plain config
    "$ pulumi config --json\n{\n  \"shop:instanceType\": {\n    \"value\": \"t3.micro\",\n    \"secret\": false\n  },\n  \"shop:bucket\": {\n    \"value\": \"assets-prod-9x7k2m4q8w\",\n    \"secret\": false\n  }\n}\n",
    // terraform plain outputs
    "$ terraform output -json | jq -c\n{\"db_endpoint\":{\"sensitive\":false,\"type\":\"string\",\"value\":\"shop-db.c4xvbn2lm0pq.eu-west-1.rds.amazonaws.com:5432\"},\"bucket_name\":{\"sensitive\":false,\"type\":\"string\",\"value\":\"shop-assets-7k2m9x\"}}\n",
    // hcl lists of ids
    "subnet_ids  = [\"subnet-0a1b2c3d4e5f67890\", \"subnet-09f8e7d6c5b4a3210\"]\nallowed_ips = [\"10.0.0.0/16\", \"192.168.1.0/24\"]\n",
    // vault status table
    "$ vault status\nKey                      Value\n---                      -----\nRecovery Seal Type       shamir\nInitialized              true\nThreshold                3\nVersion                  1.15.2\nCluster Name             vault-cluster-7k2m9x\nCluster ID               5f2e8d1c-7b3a-4e9f-8c2d-1a0b9e8f7d6c\n",
    // cookies txt analytics
    "# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tFALSE\t1735689600\t_ga\tGA1.1.1827364519.1714557600\n.example.com\tTRUE\t/\tFALSE\t1735689600\t_gid\tGA1.2.918273645.1714557600\n",
    // puppeteer analytics
    "> await page.cookies()\n[\n  {\n    name: '_ga',\n    value: 'GA1.1.1827364519.1714557600',\n    domain: '.example.com'\n  },\n  {\n    name: 'locale',\n    value: 'en-GB',\n    domain: 'shop.example.com'\n  }\n]\n",
    // psql expanded plain
    "shop=# \\x\nExpanded display is on.\n─[ RECORD 1 ]─────────────────────────────────\nid          │ 1\napi_host    │ api-7k2m9x.shop.internal\ncache_dir   │ /var/cache/shop/7k2m9x\nmax_workers │ 16\n",
    // security name
    "$ security find-generic-password -s shop-deploy -a ci -w\nci-deploy-account-7k2m\n",
    // view-secret host
    "$ kubectl view-secret shop db-host\npg-primary-7f3k2q9x.c4xvbn2lm0pq.eu-west-1.rds.amazonaws.com\n",
    // agent username
    "⏺ Bash(vault kv get -field=username secret/shop/db)\n  ⎿  shop-app-7k2m9x\n",
    // agent url
    "⏺ Bash(aws ssm get-parameter --name /shop/prod/api_url --with-decryption --query Parameter.Value --output text)\n  ⎿  https://api.shop.example.com/v2\n",
    // vault port
    "$ vault kv get -field=port secret/shop/db\n5432\n",
    // vault stand-in
    "$ vault kv get -field=password secret/shop/db\n<redacted>\n",
    // read-host slot
    "PS C:\\> Read-Host -Prompt \"Enter the deploy slot\"\nEnter the deploy slot: staging-7k2m9x\n",
];

/// Advertising and consent cookies, stand-ins for secrets, ciphertexts and listings of secrets' names.
const COOKIES_AND_STAND_INS: &[&str] = &[
    // ad cookies
    "Set-Cookie: IDE=AHWqTUm9cimyDo2BNyVkWxU4dw0ejrkNc5bp4PyjfTci2vM6ZcLhoslmC; expires=Tue, 01-May-2025 10:00:00 GMT; path=/; domain=.doubleclick.net\nSet-Cookie: _sp_id.1fff=5f2e8d1c-7b3a-4e9f-8c2d-1a0b9e8f7d6c.1714557600.1.1714557600.1714557600.9f8e7d6c-5b4a-4f2e-8d1c-7b3a9e8f7d6c; Path=/\nSet-Cookie: test_cookie=CheckForPermission; Path=/\nSet-Cookie: li_gc=MTsyMTsxNzE0NTU3NjAwOzI7MDIxhBmeOHkek0IYyAjyKVGgyaEtcNbmZv7aB4YL2zsI; Path=/\nSet-Cookie: UserMatchHistory=AQJs8QikyZT4x7Tg6PcqstspWYgSU7PlOz32vWqhJhVA3RxLMR9K54K44ro; Path=/\n",
    // ga4 and ads
    "Set-Cookie: _ga_7K2M9XQ4W1=GS1.1.1714557600.1.0.1714557600.0.0.0; Path=/\nSet-Cookie: __gads=ID=9f8e7d6c5b4a4f2e:T=1714557600:RT=1714557600:S=ALNI_Mb1EPr9KjqzFKfiXXPdBOLrnu9MymrCQ23; Path=/\n",
    // terraform stand-ins
    "$ terraform plan\n  + resource \"aws_db_instance\" \"shop\" {\n      + password = (sensitive value)\n      + endpoint = (known after apply)\n    }\n$ terraform output\ndb_password = <sensitive>\nrelay = <sensitive>\n",
    // pulumi stand-ins
    "$ pulumi stack output --json\n{\n  \"relay\": \"[secret]\",\n  \"dbPassword\": \"[secret]\"\n}\n",
    // kms ciphertext
    "relay: AQICAHhdHxUyHzWRaoaaQJ8di3D9w781IOYEO7tzque10xyThVmer6GG6Vohd8DmduiuSqlSpVV2EgPK4K27Bb48H9uIhqUUmLj61JY9Y9TkpfZkt4t2mDs4LNVXBbav9squroitBQ5xgKgQs2jneQ8ZAfw8/\n",
    // references
    "RELAY=sm://shop-prod/relay\nRELAY_SECRET=projects/123456789012/secrets/relay/versions/latest\n  value: \"@Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/relay/)\"\n",
    // secret listings
    "$ gcloud secrets versions list relay\nNAME  STATE    CREATED              DESTROYED\n3     enabled  2024-05-01T10:00:00  -\n$ az keyvault secret list --vault-name kv -o table\nName    ContentType    Enabled    Expires\n------  -------------  ---------  ---------\nrelay                  True\n",
];

/// Identifiers that APIs print under names that say nothing: Stripe's objects, GitHub's node ids, Drive's files.
const API_IDENTIFIERS: &[&str] = &[
    // stripe charge
    "$ stripe charges retrieve ch_3PZ3kQ2eZvKYlo2C1aBcDeFg\n{\n  \"id\": \"ch_3PZ3kQ2eZvKYlo2C1aBcDeFg\",\n  \"object\": \"charge\",\n  \"balance_transaction\": \"txn_tt6AnXP9eA7k8DNludUA57Yc\",\n  \"customer\": \"cus_0Gpi2IG8I3spkJ\",\n  \"payment_intent\": \"pi_Hu3kMVqWpvRA3S7UoDehGgok\",\n  \"latest_invoice\": \"in_p0AF2PFxmxeloMMpifSGMHNX\",\n  \"price\": \"price_1MY4YBApPx6AYxhPqwDwJ2rZ\"\n}\n",
    // stripe compact
    "{\"object\":\"subscription\",\"customer\":\"cus_SRj1syRPcqyuKg\",\"default_payment_method\":\"pm_Zl66tLyOhSjOH5OfIqXWFog4\",\"latest_invoice\":\"in_ewSE8mZs7BZrtUEbnOKZXuFm\"}\n",
    // github node ids
    "{\n  \"login\": \"octocat\",\n  \"node\": \"MDQ6VXNlcjE4MjczNjQ1MTk=\",\n  \"pull\": \"PR_kwDOCwqixN7W3RKhivZOflJP\"\n}\n",
    // drive parents
    "{\n  \"kind\": \"drive#file\",\n  \"parents\": [\"1gGflANktuKs5s9fWDPcEiXuQhkHH3AZGVT5SMK0YW0C\"],\n  \"mimeType\": \"application/vnd.google-apps.spreadsheet\"\n}\n",
];

/// Values by their place inside a line, under names that say nothing: compact JSON, arguments, fields, flags, logs, XML elements.
const INLINE_PLACES: &[&str] = &[
    // compact json
    "{\"relay\":\"«f0jVd3k99XthCiDkKKrOXNvg2vZAaFJy»\",\"mode\":\"prod\"}\n",
    // toml inline table
    "relay = { seal = \"«f54newrPXQLWQlAvHPnBDcqdRDgJiMmK»\", url = \"https://relay.example.com\" }\n",
    // yaml flow mapping
    "upstream: {relay: «IILFa9n1PyOkE0QClSW30F7LnPhxkBo6», mode: prod}\n",
    // python kwargs
    "client = RelayClient(region=\"eu\", seal=\"«5f6aE1i6wfpsP2UIXwB9DbDXxYDGR8T4»\")\n",
    // go struct literal
    "cfg := Config{Relay: \"«uKSjjcHyKw7cJf5BQ8o1wbfuoxhtYidL»\", Mode: \"prod\"}\n",
    // logfmt
    "time=2024-05-01T10:00:00Z level=info msg=\"relay configured\" relay=«R1NyvllgvaCWXolU0Y8fmmyuEXfV1tcC» mode=prod\n",
    // xml element
    "<Relay>«FwfEgY9q7Ze6tMv9H8gk2vm7ZohDt5Ce»</Relay>\n",
    // xml nested element
    "<relay>\n  <seal>«1LRunf5A3ZGcdss6sZAz8eM20AeApzUM»</seal>\n</relay>\n",
    // java property
    "$ java -Drelay.seal=«vCoFeXdtArIsz7KIsxbDRcvLFYyfrNda» -jar shop.jar\n",
    // long flag blank
    "$ ./shop --relay «sWtkhpbZEMbU4bxaCIHkbAgzY1JPFgwy» --mode prod\n",
    // long flag equals
    "$ ./shop --relay=«WrGyY91S5YUjRtD9I5L1HH026d1W0NIM»\n",
    // terraform var
    "$ terraform apply -var \"relay=«J64dMEiya8Lk5Krj5WWFhVOt04Bavo5U»\"\n",
    // ruby hash
    "\"relay\" => \"«y4SXXr9fATDU7dL7SHecCEpvkgL4y7Dh»\",\n",
    // ruby symbol
    ":relay => \"«ZCirJRGhlvyAGEHBiMt8b7V621HoTpmD»\",\n",
];

/// Ids, paths, digests and names in the same places.
const INLINE_NOT: &[&str] = &[
    // logfmt ids and paths
    "time=2024-05-01T10:00:00Z level=info msg=\"upload done\" object=uploads/2024/05/6PEMTwQstPbif7nU818cQpgp.png etag=hYf53qJgC9r6TLEiVwX6GWr9 request_id=HMQSuVOijq8nloV9h8c7S1 size=1024\n",
    // logfmt commit build
    "ts=2024-05-01T10:00:00Z caller=main.go:42 commit=da211c1f1e6adb12cce64ee350c7747d40595b2a build=web-7d4b9c8f6-x2k9p\n",
    // json ids
    "{\"job\":\"reindex-7k2m9x\",\"pod\":\"nginx-785c9fb6f8-qzx9k\",\"instance\":\"i-0a1b2c3d4e5f67890\",\"record\":\"recOewQd2RJ6dQDMF\"}\n",
    // stripe checkout
    "{\"event\":\"checkout.completed\",\"session\":\"cs_test_a1Ze9600DDXaMNMOk31NxxdaP1uNFFLm2cXMnD55OzTaJu6wdKzureS4gK\",\"amount\":1200}\n",
    // youtube ids
    "{\"video\":\"dQw4w9WgXcQ\",\"playlist\":\"PLtVzVhfMGBwZcvNRmKHtouaHtA5SsvF2H\",\"channel\":\"UCNrSIweAw5s80XXZSMi3tVy\"}\n",
    // s3 listing
    "<Contents><Key>uploads/dwipVg11IXNk0KgNCMDiy9uG.png</Key><ETag>\"81ec2083659eda68b22f347041fef0e8\"</ETag><StorageClass>STANDARD</StorageClass></Contents>\n",
    // kwargs url
    "user = User(id=42, email=\"ana@example.com\", avatar=\"https://cdn.example.com/a/cPHa7DRhvUlSAvUX1LiAGH1r.png\")\n",
    // svg paths
    "const icons = { home: \"M10 20v-6h4v6h5v-8h3L12 3 2 12h3v8z\", close: \"M19 6.41L17.59 5 12 10.59\" };\n",
    // integrity
    "<script src=\"/assets/app-99b2cb66032f1f51.js\" integrity=\"sha384-QXLIDkCcsdu/10VONy3n7dTgFqDPzFLt/nB/gVBivLfaTkTfA3ECmTMhq4mH4pFY\"></script>\n",
    // flags with items
    "$ helm upgrade web ./chart --set upstream.host=api.internal --set replicas=2\n$ docker run --env=\"MODE=prod\" --env=LOG_LEVEL=debug shop\n",
];

#[test]
fn settings_made_on_command_lines_and_in_code_are_masked() {
    check(SET_ON_COMMAND_LINES);
}

#[test]
fn settings_that_hold_no_secret_stay() {
    check(SET_NOT_SECRETS);
}

#[test]
fn values_a_label_announces_are_masked() {
    check(ANNOUNCED);
}

#[test]
fn what_a_label_does_not_announce_stays() {
    check(NOT_ANNOUNCED);
}

#[test]
fn secrets_echoed_into_a_login_or_passed_by_place_are_masked() {
    check(PASSED);
}

#[test]
fn echoes_logins_and_calls_without_a_secret_stay() {
    check(NOT_PASSED);
}

#[test]
fn text_escaped_for_html_is_read_unescaped() {
    check(ESCAPED_FOR_HTML);
}

#[test]
fn html_escapes_around_no_secret_stay() {
    check(HTML_LEFT_ALONE);
}

#[test]
fn what_stores_clouds_and_browsers_print_that_is_no_secret_stays() {
    check(STORED_NOT_SECRETS);
}

#[test]
fn what_stores_and_tools_print_in_their_layouts_is_masked() {
    check(STORES_PRINT);
}

#[test]
fn what_they_print_that_holds_no_secret_stays() {
    check(STORES_PRINT_NOT);
}

#[test]
fn cookies_stand_ins_and_ciphertexts_stay() {
    check(COOKIES_AND_STAND_INS);
}

#[test]
fn identifiers_apis_print_stay() {
    check(API_IDENTIFIERS);
}

#[test]
fn values_in_places_inside_a_line_are_masked() {
    check(INLINE_PLACES);
}

#[test]
fn ids_paths_and_digests_in_those_places_stay() {
    check(INLINE_NOT);
}
