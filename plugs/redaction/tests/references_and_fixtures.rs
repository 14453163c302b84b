//! Look-alikes a fifth corpus written apart (`benches/recall/agent_tuning_4`)
//! showed masked, each a class: hashes named as such, placeholders a tool
//! prints in a value's place, variables and format directives in a URL's
//! password, a test fixture's token, names of other things in kebab case.
//! And the secrets beside them that must stay masked. Each text is also
//! streamed, cut at every byte and one character at a time, and must come
//! out as whole.

mod support;

use support::check;

const NOT_SECRETS: &[&str] = &[
    // detect-secrets' baseline: SHA-1s of what it found.
    "      {\n        \"type\": \"Secret Keyword\",\n        \"hashed_secret\": \"b96ca267c6695b0dae1968b8312c9d4edce843fd\",\n        \"is_verified\": false\n      }\n",
    "hashedPassword: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n",
    // `op run` conceals what it injects; a template asks for a value.
    "STRIPE_SECRET_KEY=<concealed by 1Password>\nGITHUB_TOKEN=<concealed by 1Password>\n",
    "API_KEY=<your api key here>\n",
    // Compose's defaults inside a variable; a format's directives.
    "      DATABASE_URL: postgres://${POSTGRES_USER:-inventory}:${POSTGRES_PASSWORD}@db:5432/inventory\n",
    "  redis-url: {{ printf \"redis://:%s@%s-redis:6379\" .Values.redis.password .Release.Name | b64enc }}\n",
    "url = \"postgres://{user}:{password}@{host}/db\".format(**cfg)\n",
    // A fixture's token that says it is none; Slack's tokens start with a number.
    "FAKE_SLACK_TOKEN = \"xoxb-not-a-real-token\"\n",
    "SLACK_BOT_TOKEN=xoxb-abcdefghij-klmnopqrst\n",
    // ExternalSecret's and a chart's names of keys and secrets.
    "  data:\n    - secretKey: database-url\n      remoteRef:\n        key: stage/scheduler/db\n",
    "auth:\n  secret: stripe-api-keys\n",
    // A sixth corpus's: a form's anti-forgery token, Nix's SRI hashes, an
    // access key id in a CloudTrail event, a table's digest column.
    "<input type=\"hidden\" name=\"authenticity_token\" value=\"J0vIxnZFCypsga_sh6n4gBEOqkB8npZRJdXAGjPnVrbs0J7QbHl6F_XD87-0lThq\" autocomplete=\"off\" />\n",
    "error: hash mismatch in fixed-output derivation:\n         specified: sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n            got:    sha256-zsH040WF2onMBLley6kfga7COV8dYBR/joxkGot2vmU=\n",
    "  \"userIdentity\": {\n    \"type\": \"AssumedRole\",\n    \"accessKeyId\": \"ASIABTSY7GDY343LEZGU\",\n    \"sessionContext\": {\n      \"attributes\": {\"mfaAuthenticated\": \"true\"}\n    }\n  },\n",
    "  NAME                      │ DIGEST\n  ──────────────────────────┼────────────────────────────────────\n    OPENAI_API_KEY           │ 8760408d18c76e22330c139e544d87f0f77937efbdaad3785b5210011291cf0c\n", // A seventh corpus's: Vault's audit log (every secret as its HMAC),
    // Terraform Cloud's ids, Twilio's account SIDs, an `auth` that names a
    // method, a release pipeline's tokens to replace, a jq filter's paths,
    // names that say their value is public, PostHog's project key,
    // Supabase's anon key.
    "        \"DATABASE_PASSWORD\": \"hmac-sha256:f1ec8cdd59ea944d8cee8fd2a8fd13b3e0ca8c03d925e1110096bf02d8b791d4\",\n",
    "     {\n       \"id\": \"run-bIh6rzuHIuMd1xOE\",\n       \"cv\": \"cv-9dTVMxzOFwA1zrB4\"\n     }\n",
    "ID         Account SID                          Active\nnotifier   AC150910ea3e1283f4264c7ffabb83f511   true\n",
    "802-1x.eap:                             peap\n802-1x.phase2-auth:                     mschapv2\n",
    "    \"SendGrid\": {\n      \"ApiKey\": \"__SendGridApiKey__\"\n    },\n",
    "$ curl -s \"$URL\" | jq '.results[] | {uuid, token: .properties.token, lib: .properties.lib}'\n",
    "NEXT_PUBLIC_ALGOLIA_SEARCH_ONLY_API_KEY=ab9ce1929594d072f9bdce8ea0604363\nNEXT_PUBLIC_MAPS_KEY=Q7fTn2Lw9Rk4Vb8Xm3Zp6Hc1\n",
    "ALGOLIA_SEARCH_ONLY_KEY=ab9ce1929594d072f9bdce8ea0604363\n",
    "  searchOnlyApiKey: \"5fb4e152bd74c1ec5f11db8200215db2\",\n",
    "         \"token\": \"phc_tcHgA6rMHZw8NB0AnupYILjxYYQwBJZYpzDw0QjTAKx\",\n",
    "const supabaseAnonKey = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6InF6anJtd2t2dHBseGJuaGRjZWZhIiwicm9sZSI6ImFub24iLCJpYXQiOjE3MTYyMDAwMDAsImV4cCI6MjAzMTc3NjAwMH0.Xq3Lm9Rt2Vw8Kp5Nz7Yb4Hc6Jd1Fg0Sa2Qe5Wr8Ty3U'\n",
];

const SECRETS: &[&str] = &[
    "password: «correct-horse-battery-staple»\n",
    "auth:\n  secret: «Zt4BSsqA5fMA8hRtvvFBlMdK»\n",
    "DATABASE_URL=postgres://${DB_USER:-app}:«Zt4BSsqA5fMA8h»@db:5432/x\n",
    "SLACK_BOT_TOKEN=«xoxb-2210535565-1893204817302-QPbVnSBvRHeTlJbaAQLtUEmZ»\n",
    // A pip index URL with a CodeArtifact token (a kilobyte long).
    "global.extra-index-url='https://aws:«eyJ2ZXIiOjEsImlzdSI6jXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqIjXuxzAoMIQibX3JkknxPrs6gaPAeOr9mKxWBHJYcaDzaQmPwzdkXMs8KX7M3Ke5EgqI»@acme-111122223333.d.codeartifact.us-east-1.amazonaws.com/pypi/py/simple/'\n",
    // Codex's transcript of a command that prints a secret.
    "exec\nbash -lc 'heroku auth:token' in /home/kofi/fieldnotes\nsucceeded in 2023ms:\n ›   Warning: token will expire 2025-02-25\n«a58d7fe7-a3d8-4470-86d8-86e7631c4570»\n",
    "exec\nbash -lc 'cat config/master.key' in /home/dev/trailmix\nsucceeded in 1733ms:\n«62233c0c99df289076ea77ad4737bd33»\n",
    "⏺ Bash(argocd admin initial-password -n argocd)\n  ⎿  «yYvNs84JsFbHaKlF»\n", // Beside the seventh corpus's look-alikes: the service key, a vendor's
    // secret under a name that says public, a random `auth`, PostHog's
    // personal key, a digest's shape under no digest's name.
    "const supabaseAdmin = createClient(url, '«eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6InF6anJtd2t2dHBseGJuaGRjZWZhIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImlhdCI6MTcxNjIwMDAwMCwiZXhwIjoyMDMxNzc2MDAwfQ.Pm4Nq8Wz2Lx6Rv9Tk3Yb7Hc1Jd5Fg0Sa2Qe5Wr8Ty3U»')\n",
    "NEXT_PUBLIC_OPENAI_KEY=«sk-proj-Rt4Lm8Qw2Zx6Vb9Nk3Hc7Jd1Fg5Sa0Pe4Wr8Ty2Ui6Oq3T3BlbkFJx4Z88PMth1vD387BPh20UMi»\n",
    "UPSTREAM_AUTH=«Zk3mQ9vX2pL7wR4tY8nB»\n",
    "         \"token\": \"«phx_Rt4Lm8Qw2Zx6Vb9Nk3Hc7Jd1Fg5Sa0Pe4Wr8Ty2Ui6Oq»\",\n",
];

#[test]
fn hashes_references_directives_and_fixtures_stay() {
    check(NOT_SECRETS);
}

#[test]
fn secrets_beside_them_are_masked() {
    check(SECRETS);
}
