#!/usr/bin/env python3
"""Tuning corpus for the secret-redaction detector (second helper-written set).

Prints JSON lines: {"id", "template", "positive", "text"}.  Secrets in
positive rows are wrapped in U+00AB / U+00BB.  Standard library only,
deterministic: one random.Random(7373), fixed template order, no set/hash
ordering.

    python3 generate.py > rows.jsonl
"""
import base64
import binascii
import datetime as dt
import hashlib
import json
import random
import string
import struct
import sys

R = random.Random(7373)
LO, HI = "\u00ab", "\u00bb"


def M(s):
    """Mark a secret."""
    return LO + s + HI


# ---------------------------------------------------------------- basics
DIG = string.digits
UP = string.ascii_uppercase
LOW = string.ascii_lowercase
ALNUM = DIG + UP + LOW
B62 = DIG + UP + LOW                       # GitHub / npm base62 order
B64U = UP + LOW + DIG + "-_"
B64S = UP + LOW + DIG + "+/"
HEX = "0123456789abcdef"
B32 = "abcdefghijklmnopqrstuvwxyz234567"
NIX32 = "0123456789abcdfghijklmnpqrsvwxyz"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def ch(seq):
    return R.choice(seq)


def ri(a, b):
    return R.randint(a, b)


def coin(p=0.5):
    return R.random() < p


def sample(seq, k):
    return R.sample(list(seq), k)


def shuffled(seq):
    s = list(seq)
    R.shuffle(s)
    return s


def rs(n, alpha=ALNUM):
    return "".join(R.choice(alpha) for _ in range(n))


def hx(n):
    return rs(n, HEX)


def HX(n):
    return rs(n, "0123456789ABCDEF")


def rb(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b64(n):
    return base64.b64encode(rb(n)).decode()


def b64u(n, pad=False):
    s = base64.urlsafe_b64encode(rb(n)).decode()
    return s if pad else s.rstrip("=")


def b64e(b):
    return base64.b64encode(b).decode()


def b64ue(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def uuid4():
    h = list(hx(32))
    h[12] = "4"
    h[16] = ch("89ab")
    h = "".join(h)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def sha1():
    return hx(40)


def sha256():
    return hx(64)


def short(n=7):
    return hx(n)


def wrap(s, n):
    return [s[i:i + n] for i in range(0, len(s), n)]


BASE_T = dt.datetime(2025, 1, 6, 7, 0, 0)


def rtime():
    return BASE_T + dt.timedelta(seconds=ri(0, 290 * 86400), microseconds=ri(0, 999999))


def iso(t, ms=True, z=True):
    s = t.strftime("%Y-%m-%dT%H:%M:%S")
    if ms:
        s += ".%03d" % (t.microsecond // 1000)
    return s + ("Z" if z else "")


def clf(t):
    return t.strftime("%d/%b/%Y:%H:%M:%S +0000")


def plus(t, lo=0, hi=5):
    return t + dt.timedelta(seconds=ri(lo, hi), milliseconds=ri(0, 999))


def epoch(t):
    return int((t - dt.datetime(1970, 1, 1)).total_seconds())


# ---------------------------------------------------------------- world
USERS = ["alice", "bob", "dev", "ubuntu", "mchen", "priya", "jkowalski", "sofia",
         "tomas", "ana", "kenji", "olu", "rafael", "ines", "dmitri", "leah", "marco",
         "yuki", "sam", "noor", "ezra", "hana", "lucas", "fatima", "ivan"]
FULL = ["Alice Moreau", "Bob Lindqvist", "Mei Chen", "Priya Raman", "Jan Kowalski",
        "Sofia Russo", "Tomas Novak", "Ana Oliveira", "Kenji Watanabe", "Olu Adeyemi",
        "Rafael Souza", "Ines Garcia", "Dmitri Volkov", "Leah Cohen", "Marco Bianchi",
        "Yuki Tanaka", "Sam Okafor", "Noor Haddad", "Ezra Klein", "Hana Kim"]
ORGS = ["acme", "globex", "initech", "umbrella", "hooli", "piedpiper", "starklabs",
        "wayne", "soylent", "tyrell", "cyberdyne", "wonka", "vandelay", "oceanic",
        "aperture", "blackmesa", "northwind", "contoso", "fabrikam", "tailspin"]
PROJ = ["billing-api", "checkout", "ledger", "notifier", "search-svc", "gateway",
        "webapp", "dashboard", "ingest", "auth-service", "inventory", "reports",
        "mobile-bff", "scheduler", "payments", "catalog", "analytics", "chat-bot",
        "docs-site", "worker", "orders", "pricing", "media-proxy", "crm-sync"]
TLDS = ["io", "com", "dev", "net", "co", "app"]
REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-2",
           "ap-northeast-1", "ca-central-1", "sa-east-1"]
HOSTS = ["devbox", "ip-10-0-3-17", "build-07", "mbp-m3", "ws-ubuntu", "runner-4x2",
         "thinkpad", "fedora", "ci-agent-12", "dev-vm", "nuc", "penguin"]
SERVICES = ["api", "web", "worker", "scheduler", "gateway", "ingest", "mailer", "cron"]


# per-row context: one operator, host, org and project per row
CTX = {}


def new_ctx():
    CTX.clear()
    CTX.update(user=ch(USERS), host=ch(HOSTS), org=ch(ORGS), proj=ch(PROJ), tld=ch(TLDS),
               style=ri(0, 6), cid=hx(12))
    p = CTX["proj"]
    CTX["cwd"] = ch(["~", "~/" + p, "~/src/" + p, "/workspace/" + p, "~/code/" + p])


def me():
    return CTX.get("user") or ch(USERS)


def my_org():
    return CTX.get("org") or ch(ORGS)


def my_proj():
    return CTX.get("proj") or ch(PROJ)


def user():
    return ch(USERS)


def full():
    return ch(FULL)


def org():
    return ch(ORGS)


def proj():
    return ch(PROJ)


def domain(o=None):
    if o is None and CTX:
        return f"{my_org()}.{CTX['tld']}"
    return f"{o or org()}.{ch(TLDS)}"


def email(n=None, d=None):
    n = n or user()
    return f"{n}@{d or domain()}"


def ip_priv():
    return ch([f"10.{ri(0, 255)}.{ri(0, 255)}.{ri(2, 254)}",
               f"172.{ri(16, 31)}.{ri(0, 255)}.{ri(2, 254)}",
               f"192.168.{ri(0, 20)}.{ri(2, 254)}"])


def ip_pub():
    return f"{ch([34, 35, 52, 54, 18, 3, 13, 104, 142, 151, 185, 203])}.{ri(0, 255)}.{ri(0, 255)}.{ri(1, 254)}"


def semver():
    return f"{ri(0, 5)}.{ri(0, 30)}.{ri(0, 20)}"


def pod_suffix():
    return rs(ri(9, 10), "bcdfghjklmnpqrstvwxz2456789") + "-" + rs(5, "bcdfghjklmnpqrstvwxz2456789")


def aws_acct():
    return str(ri(100000000000, 999999999999))


def home(u=None):
    return f"/home/{u or user()}"


def prompt(cwd=None, u=None, h=None):
    u = u or me()
    h = h or CTX.get("host") or ch(HOSTS)
    cwd = cwd or CTX.get("cwd") or "~"
    style = CTX.get("style", 0)
    leaf = cwd.rstrip("/").split("/")[-1]
    if u == "root" and style in (2, 4, 6):
        style = 1
    if style == 0:
        return "$ "
    if style == 1:
        return f"{u}@{h}:{cwd}$ " if u != "root" else f"root@{h}:{cwd}# "
    if style == 2:
        return f"➜  {leaf} git:(main) "
    if style == 3:
        return f"[{u}@{h} {leaf}]$ " if u != "root" else f"[root@{h} {leaf}]# "
    if style == 4:
        return f"{u}@{h} {leaf} % "
    if style == 5:
        return f"root@{CTX.get('cid', hx(12))}:/app# "
    return "bash-5.2$ "


def cmdline(c, **kw):
    """A command the agent ran; sometimes no echo at all (tool output only)."""
    if coin(0.2):
        return ""
    return prompt(**kw) + c + "\n"


def numbered(lines, style="cat", start=1):
    """cat -n / nl -ba use '%6d<TAB>'; Claude Code's Read tool uses '%6d→'."""
    sep = "\u2192" if style == "arrow" else "\t"
    return "\n".join(f"{i:6d}{sep}{l}" for i, l in enumerate(lines, start))


# ---------------------------------------------------------------- secrets
PW_PUNCT = "!#%*+-=?@^_~."


def pw(kind=None, safe=False):
    """Password.  safe=True: URL/shell-safe alphabet."""
    kind = kind or ch(["punct", "punct", "alnum", "short", "phrase", "hex", "b64"])
    if safe and kind in ("punct", "short", "b64"):
        kind = ch(["alnumx", "alnum", "hex"])
    if kind == "punct":
        n = ri(14, 26)
        base = [ch(UP), ch(LOW), ch(DIG), ch(PW_PUNCT)] + [ch(ALNUM + PW_PUNCT) for _ in range(n - 4)]
        R.shuffle(base)
        if base[0] in PW_PUNCT:
            base[0] = ch(LOW)
        return "".join(base)
    if kind == "short":
        n = ri(12, 16)
        base = [ch(UP), ch(LOW), ch(DIG), ch("!#%*+=?@")] + [ch(ALNUM + "!#%*") for _ in range(n - 4)]
        R.shuffle(base)
        if not base[0].isalnum():
            base[0] = ch(UP)
        return "".join(base)
    if kind == "alnum":
        return rs(ri(16, 32))
    if kind == "alnumx":
        return rs(ri(18, 30), ALNUM + "-_")
    if kind == "phrase":
        w = ["orbit", "velvet", "kettle", "saffron", "granite", "lumen", "tundra",
             "quartz", "harbor", "mosaic", "ember", "falcon", "juniper", "pixel", "cobalt",
             "meadow", "ripple", "cinder", "atlas", "willow"]
        parts = sample(w, 3)
        return "-".join(p.capitalize() if coin() else p for p in parts) + "-" + str(ri(10, 9999)) + rs(2, UP + DIG)
    if kind == "hex":
        return hx(ch([24, 32, 40]))
    if kind == "b64":
        return b64(ch([18, 24, 32]))
    return rs(20)


def gsecret():
    k = ri(0, 6)
    if k == 0:
        return hx(64)
    if k == 1:
        return hx(32)
    if k == 2:
        return b64(32)
    if k == 3:
        return b64u(32)
    if k == 4:
        return rs(ch([32, 40, 48]))
    if k == 5:
        return pw("punct")
    return b64u(48)


def base62(n, width=6):
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = B62[r] + s
    return s.rjust(width, "0")


def crc_token(prefix):
    body = rs(30, B62)
    return prefix + body + base62(binascii.crc32(body.encode()) & 0xFFFFFFFF)


def gh_pat():
    return crc_token("ghp_")


def gh_oauth():
    return crc_token("gho_")


def gh_server():
    return crc_token("ghs_")


def gh_fine():
    return "github_pat_11" + rs(20, UP + DIG) + "_" + rs(59, ALNUM)


def gh_any():
    return ch([gh_pat, gh_pat, gh_oauth, gh_fine])()


def npm_tok():
    return crc_token("npm_")


def glpat():
    return "glpat-" + rs(20, ALNUM + "-_")


def glrt():
    return "glrt-" + rs(20, ALNUM + "-_")


def aws_akid(prefix="AKIA"):
    return prefix + rs(16, UP + "234567")


def aws_secret():
    return rs(40, B64S)


def aws_session():
    n = ri(84, 104) * 4 - 17
    body = "IQoJb3JpZ2luX2VjE" + rs(n, B64S)
    return body if coin(0.7) else body[:-2] + "=="


def stripe_sk(live=True):
    return ("sk_live_" if live else "sk_test_") + "51" + rs(ri(95, 97), ALNUM)


def stripe_rk():
    return "rk_live_51" + rs(97, ALNUM)


def whsec_dash():
    return "whsec_" + rs(32, ALNUM)


def openai_key():
    k = ri(0, 3)
    if k == 0:
        return "sk-proj-" + rs(74, ALNUM + "-_") + "T3BlbkFJ" + rs(74, ALNUM + "-_")
    if k == 1:
        return "sk-svcacct-" + rs(74, ALNUM + "-_") + "T3BlbkFJ" + rs(74, ALNUM + "-_")
    if k == 2:
        return "sk-proj-" + rs(48, ALNUM + "-_") + "T3BlbkFJ" + rs(48, ALNUM + "-_")
    return "sk-" + rs(20, ALNUM) + "T3BlbkFJ" + rs(20, ALNUM)


def anthropic_key():
    return "sk-ant-api03-" + rs(93, ALNUM + "-_") + "AA"


def google_api_key():
    return "AIza" + rs(35, ALNUM + "-_")


def ya29():
    return "ya29.a0" + rs(ri(180, 230), ALNUM + "-_")


def g_refresh():
    return "1//0" + rs(1, ALNUM) + rs(ri(95, 100), ALNUM + "-_")


def hf_tok():
    return "hf_" + rs(34, UP + LOW)


def slack_bot():
    return f"xoxb-{ri(10**10, 10**12)}-{ri(10**12, 10**13 - 1)}-{rs(24)}"


def slack_user():
    return f"xoxp-{ri(10**10, 10**12)}-{ri(10**10, 10**12)}-{ri(10**12, 10**13 - 1)}-{hx(32)}"


def slack_app():
    return f"xapp-1-A0{rs(9, UP + DIG)}-{ri(10**12, 10**13 - 1)}-{hx(64)}"


def discord_bot():
    sf = str(ri(10**17, 13 * 10**17))
    return b64ue(sf.encode()) + "." + rs(6, ALNUM + "-_") + "." + rs(38, ALNUM + "-_")


def telegram_bot():
    return f"{ri(10**9, 8 * 10**9)}:AA{rs(33, ALNUM + '-_')}"


def sendgrid():
    return "SG." + rs(22, ALNUM + "-_") + "." + rs(43, ALNUM + "-_")


def mailgun():
    return ch(["key-" + hx(32), hx(32) + "-" + hx(8) + "-" + hx(8)])


def twilio_sid():
    return "AC" + hx(32)


def twilio_token():
    return hx(32)


def datadog_api():
    return hx(32)


def datadog_app():
    return hx(40)


def newrelic_user():
    return "NRAK-" + rs(27, UP + DIG)


def newrelic_license():
    return hx(36) + "NRAL"


def sentry_user_tok():
    return "sntryu_" + hx(64)


def sentry_org_tok(o):
    payload = json.dumps({"iat": epoch(rtime()) + 0.0 + ri(0, 999) / 1000.0, "url": "https://sentry.io",
                          "region_url": "https://us.sentry.io", "org": o}, separators=(",", ":"))
    return "sntrys_" + b64e(payload.encode()).rstrip("=") + "_" + rs(43, ALNUM + "+/")


def shopify_tok():
    return ch(["shpat_", "shpca_", "shppa_"]) + hx(32)


def square_tok():
    return "EAAA" + rs(60, ALNUM + "-_")


def atlassian_tok():
    return "ATATT3xFfGF0" + rs(ri(170, 176), ALNUM + "-_") + "=" + HX(8)


def pagerduty_tok():
    if coin():
        return "u+" + rs(18, ALNUM + "-_")
    return rs(20, ALNUM + "-_+")


def okta_tok():
    return "00" + rs(40, ALNUM + "-_")


def auth0_secret():
    return rs(64, ALNUM + "-_")


def vault_tok():
    return "hvs." + rs(24, ALNUM) if coin(0.6) else "hvs.CAESI" + rs(ri(80, 90), ALNUM + "-_")


def dckr_pat():
    return "dckr_pat_" + rs(27, ALNUM + "-_")


def do_tok():
    return "dop_v1_" + hx(64)


def cf_tok():
    return rs(40, ALNUM + "-_")


def linear_tok():
    return "lin_api_" + rs(40, ALNUM)


def groq_tok():
    return "gsk_" + rs(52, ALNUM)


def replicate_tok():
    return "r8_" + rs(37, ALNUM)


def openrouter_tok():
    return "sk-or-v1-" + hx(64)


def langsmith_tok():
    return "lsv2_" + ch(["pt", "sk"]) + "_" + hx(32) + "_" + hx(10)


def tavily_tok():
    return "tvly-" + ch(["", "dev-", "prod-"]) + rs(32, ALNUM)


def brave_tok():
    return "BSA" + rs(28, ALNUM + "-_")


def mapbox_sk(u):
    j = json.dumps({"u": u, "a": "cl" + rs(23, LOW + DIG)}, separators=(",", ":"))
    return "sk." + b64ue(j.encode()) + "." + rs(22, ALNUM + "-_")


def sonar_tok():
    return "squ_" + hx(40)


def pypi_tok():
    ident = uuid4().encode()
    cav = json.dumps([1, [my_proj()]] if coin() else {"permissions": "user", "version": 1}).encode()
    raw = (b"\x02\x01\x08pypi.org\x02" + bytes([len(ident)]) + ident + b"\x00\x02" +
           bytes([len(cav)]) + cav + b"\x00\x00\x06\x20" + rb(32))
    return "pypi-" + b64ue(raw)


def tailscale_key():
    return "tskey-auth-k" + rs(ri(7, 9), ALNUM) + "CNTRL-" + rs(ri(32, 34), ALNUM)


def k3s_token():
    return "K10" + hx(64) + "::server:" + hx(32)


def az_client_secret():
    return rs(3, ALNUM) + "8Q~" + rs(34, ALNUM + "_~.-")


def az_storage_key():
    return b64(64)


def az_sas_sig():
    s = b64(32)
    return s.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def django_key():
    s = rs(50, "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)")
    return ("django-insecure-" + s) if coin(0.4) else s


def laravel_key():
    return "base64:" + b64(32)


def wg_priv():
    k = bytearray(rb(32))
    k[0] &= 248
    k[31] = (k[31] & 127) | 64
    return b64e(bytes(k))


def wg_pub():
    return b64(32)


def jwt(payload, alg="HS256", kid=None, sig_bytes=None):
    hdr = {"alg": alg, "typ": "JWT"}
    if kid:
        hdr["kid"] = kid
    h = b64ue(json.dumps(hdr, separators=(",", ":")).encode())
    p = b64ue(json.dumps(payload, separators=(",", ":")).encode())
    n = sig_bytes or (32 if alg.startswith("HS") else 256 if alg.startswith("RS") else 64)
    return f"{h}.{p}.{b64u(n)}"


def user_jwt(iss=None, aud=None):
    t = rtime()
    pl = {"sub": ch([uuid4(), "usr_" + rs(14, ALNUM), str(ri(1000, 99999))]),
          "iss": iss or f"https://auth.{domain()}/",
          "aud": aud or ch(["api", "https://api." + domain(), my_proj()]),
          "iat": epoch(t), "exp": epoch(t) + ch([900, 3600, 86400])}
    if coin():
        pl["scope"] = ch(["read:orders write:orders", "openid profile email", "admin"])
    if coin(0.4):
        pl["email"] = email()
    return jwt(pl, alg=ch(["HS256", "RS256", "ES256"]), kid=hx(16) if coin() else None)


def jwe():
    h = b64ue(b'{"alg":"dir","enc":"A256GCM"}')
    return f"{h}..{b64u(12)}.{b64u(ri(300, 520))}.{b64u(16)}"


# ---- vendor catalogue for env-like contexts: name -> generator
VENDOR_ENV = [
    ("STRIPE_SECRET_KEY", lambda: stripe_sk(coin(0.6))),
    ("STRIPE_WEBHOOK_SECRET", whsec_dash),
    ("OPENAI_API_KEY", openai_key),
    ("ANTHROPIC_API_KEY", anthropic_key),
    ("GITHUB_TOKEN", gh_any),
    ("GH_TOKEN", gh_pat),
    ("GITLAB_TOKEN", glpat),
    ("HF_TOKEN", hf_tok),
    ("SENDGRID_API_KEY", sendgrid),
    ("TWILIO_AUTH_TOKEN", twilio_token),
    ("MAILGUN_API_KEY", mailgun),
    ("SLACK_BOT_TOKEN", slack_bot),
    ("DD_API_KEY", datadog_api),
    ("DD_APP_KEY", datadog_app),
    ("SENTRY_AUTH_TOKEN", sentry_user_tok),
    ("NPM_TOKEN", npm_tok),
    ("AWS_SECRET_ACCESS_KEY", aws_secret),
    ("GOOGLE_API_KEY", google_api_key),
    ("GEMINI_API_KEY", google_api_key),
    ("SHOPIFY_ADMIN_TOKEN", shopify_tok),
    ("SQUARE_ACCESS_TOKEN", square_tok),
    ("JIRA_API_TOKEN", atlassian_tok),
    ("NEW_RELIC_LICENSE_KEY", newrelic_license),
    ("NEW_RELIC_API_KEY", newrelic_user),
    ("PAGERDUTY_TOKEN", pagerduty_tok),
    ("OKTA_API_TOKEN", okta_tok),
    ("AUTH0_CLIENT_SECRET", auth0_secret),
    ("DISCORD_BOT_TOKEN", discord_bot),
    ("TELEGRAM_BOT_TOKEN", telegram_bot),
    ("JWT_SECRET", lambda: ch([hx(64), b64(48), pw("punct")])),
    ("SESSION_SECRET", lambda: ch([hx(64), b64u(32), rs(40)])),
    ("DIGITALOCEAN_TOKEN", do_tok),
    ("CLOUDFLARE_API_TOKEN", cf_tok),
    ("LINEAR_API_KEY", linear_tok),
    ("DOCKERHUB_TOKEN", dckr_pat),
    ("VAULT_TOKEN", vault_tok),
    ("GROQ_API_KEY", groq_tok),
    ("REPLICATE_API_TOKEN", replicate_tok),
    ("OPENROUTER_API_KEY", openrouter_tok),
    ("LANGSMITH_API_KEY", langsmith_tok),
    ("TAVILY_API_KEY", tavily_tok),
    ("SONAR_TOKEN", sonar_tok),
    ("ENCRYPTION_KEY", lambda: b64(32)),
    ("ADMIN_PASSWORD", lambda: pw()),
    ("SMTP_PASSWORD", lambda: pw()),
]


def vendor_env(k=1, exclude=()):
    pool = [v for v in VENDOR_ENV if v[0] not in exclude]
    picks = sample(pool, k)
    return [(n, g()) for n, g in picks]


def noise_env(k=3):
    o = my_org()
    pool = [
        ("NODE_ENV", ch(["production", "development", "staging"])),
        ("PORT", str(ch([3000, 8080, 8000, 5000, 4000]))),
        ("LOG_LEVEL", ch(["info", "debug", "warn"])),
        ("APP_URL", f"https://{ch(['app', 'www', 'staging'])}.{domain(o)}"),
        ("AWS_REGION", ch(REGIONS)),
        ("S3_BUCKET", f"{o}-{ch(['uploads', 'assets', 'exports'])}-{ch(['prod', 'dev'])}"),
        ("FEATURE_FLAGS", ",".join(sample(["new-checkout", "beta-search", "dark-mode", "v2-api", "sso"], 2))),
        ("TZ", ch(["UTC", "Europe/Berlin", "America/New_York"])),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://otel-collector:{ch([4317, 4318])}"),
        ("CORS_ORIGINS", f"https://{domain(o)},http://localhost:3000"),
        ("DD_SITE", ch(["datadoghq.com", "datadoghq.eu", "us5.datadoghq.com"])),
        ("SENTRY_ENVIRONMENT", ch(["production", "staging"])),
        ("WORKERS", str(ri(2, 16))),
        ("CACHE_TTL_SECONDS", str(ch([60, 300, 900, 3600]))),
        ("PUBLIC_BASE_PATH", "/"),
        ("MAX_UPLOAD_MB", str(ch([10, 25, 50, 100]))),
        ("DB_POOL_SIZE", str(ri(5, 40))),
        ("REDIS_HOST", ch(["localhost", "redis", "cache.internal"])),
        ("SMTP_HOST", ch(["smtp.sendgrid.net", "smtp.mailgun.org", "email-smtp.eu-west-1.amazonaws.com"])),
        ("SMTP_PORT", ch(["587", "465", "2525"])),
        ("GIT_SHA", sha1()[:12]),
        ("BUILD_NUMBER", str(ri(100, 9000))),
    ]
    return sample(pool, k)


def db_url(kind=None, user_=None, p=None, host=None):
    kind = kind or ch(["postgres", "mysql", "mongo", "redis", "amqp"])
    u = user_ or ch(["app", "svc_" + my_proj().split("-")[0], "api", "django", "root", "admin", "worker"])
    p = p or pw(safe=True)
    if kind == "postgres":
        h = host or ch(["db.internal", "localhost", f"{my_proj()}-db.{hx(12)}.{ch(REGIONS)}.rds.amazonaws.com",
                        f"ep-{rs(6, LOW)}-{rs(6, LOW)}-{rs(8, LOW + DIG)}.{ch(REGIONS)}.aws.neon.tech"])
        pre = ch(["postgres", "postgresql"])
        return pre + "://" + u + ":", p, f"@{h}:5432/{my_proj().replace('-', '_')}" + ch(["", "?sslmode=require"])
    if kind == "mysql":
        h = host or ch(["mysql", "127.0.0.1", f"{my_proj()}.cluster-{hx(12)}.{ch(REGIONS)}.rds.amazonaws.com"])
        return "mysql://" + u + ":", p, f"@{h}:3306/{my_proj().replace('-', '_')}"
    if kind == "mongo":
        h = host or f"cluster0.{rs(5, LOW + DIG)}.mongodb.net"
        return "mongodb+srv://" + u + ":", p, f"@{h}/{ch(['prod', 'app', 'main'])}?retryWrites=true&w=majority"
    if kind == "redis":
        h = host or ch(["redis:6379", f"redis-{ri(10000, 19999)}.c{ri(1, 300)}.{ch(REGIONS)}-1.ec2.cloud.redislabs.com:{ri(10000, 19999)}",
                        f"{my_proj()}.{rs(6, LOW)}.ng.0001.{ch(['use1', 'euw1'])}.cache.amazonaws.com:6379"])
        return ch(["redis", "rediss"]) + "://default:", p, f"@{h}/0"
    h = host or ch(["rabbitmq:5672", f"b-{uuid4()}.mq.{ch(REGIONS)}.amazonaws.com:5671"])
    return ch(["amqp", "amqps"]) + "://" + u + ":", p, f"@{h}/" + ch(["", "%2F", "prod"])


def db_url_marked(**kw):
    a, p, b = db_url(**kw)
    return a + M(p) + b


# ---------------------------------------------------------------- DER / PEM
def der_len(n):
    if n < 128:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def tlv(tag, body):
    return bytes([tag]) + der_len(len(body)) + body


def d_int_bytes(b):
    b = b.lstrip(b"\x00") or b"\x00"
    if b[0] & 0x80:
        b = b"\x00" + b
    return tlv(0x02, b)


def d_int(n):
    return d_int_bytes(n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big"))


def rand_big(bits):
    b = bytearray(rb(bits // 8))
    b[0] |= 0x80
    b[-1] |= 1
    return bytes(b)


def rsa_pkcs1(bits=2048):
    h = bits // 16
    parts = [d_int(0), d_int_bytes(rand_big(bits)), d_int(65537), d_int_bytes(rand_big(bits)),
             d_int_bytes(rand_big(bits // 2)), d_int_bytes(rand_big(bits // 2)),
             d_int_bytes(rand_big(bits // 2)), d_int_bytes(rand_big(bits // 2)),
             d_int_bytes(rand_big(bits // 2))]
    return tlv(0x30, b"".join(parts))


def rsa_pkcs8(bits=2048):
    alg = tlv(0x30, tlv(0x06, bytes.fromhex("2a864886f70d010101")) + b"\x05\x00")
    return tlv(0x30, d_int(0) + alg + tlv(0x04, rsa_pkcs1(bits)))


def pem(label, der, width=64):
    body = "\n".join(wrap(b64e(der), width))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def sstr(b):
    if isinstance(b, str):
        b = b.encode()
    return struct.pack(">I", len(b)) + b


def openssh_ed25519(comment):
    pub = rb(32)
    seed = rb(32)
    pubblob = sstr("ssh-ed25519") + sstr(pub)
    chk = rb(4)
    priv = chk + chk + sstr("ssh-ed25519") + sstr(pub) + sstr(seed + pub) + sstr(comment)
    i = 1
    while len(priv) % 8:
        priv += bytes([i])
        i += 1
    blob = (b"openssh-key-v1\x00" + sstr("none") + sstr("none") + sstr(b"") +
            struct.pack(">I", 1) + sstr(pubblob) + sstr(priv))
    lines = wrap(b64e(blob), 70)
    return lines, "ssh-ed25519 " + b64e(pubblob) + " " + comment


def openssh_rsa(comment):
    n = rand_big(3072)
    e = b"\x01\x00\x01"
    pubblob = sstr("ssh-rsa") + sstr(e) + sstr(b"\x00" + n)
    chk = rb(4)
    priv = (chk + chk + sstr("ssh-rsa") + sstr(b"\x00" + n) + sstr(e) + sstr(b"\x00" + rand_big(3072)) +
            sstr(b"\x00" + rand_big(1536)) + sstr(b"\x00" + rand_big(1536)) + sstr(b"\x00" + rand_big(1536)) + sstr(comment))
    i = 1
    while len(priv) % 8:
        priv += bytes([i])
        i += 1
    blob = (b"openssh-key-v1\x00" + sstr("none") + sstr("none") + sstr(b"") +
            struct.pack(">I", 1) + sstr(pubblob) + sstr(priv))
    return wrap(b64e(blob), 70), "ssh-rsa " + b64e(pubblob) + " " + comment


def crc24(data):
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def pgp_secret_block(uid, t):
    ts = struct.pack(">I", epoch(t))
    ed_oid = bytes.fromhex("2b06010401da470f01")
    cv_oid = bytes.fromhex("2b060104019755010501")
    key = (b"\x04" + ts + b"\x16" + bytes([len(ed_oid)]) + ed_oid + b"\x01\x07\x40" + rb(32) +
           b"\x00" + b"\x00\xff" + rb(32) + rb(2))
    pkt = b"\x94" + bytes([len(key)]) + key
    u = uid.encode()
    pkt += b"\xb4" + bytes([len(u)]) + u
    sig = b"\x04\x13\x16\x0a\x00\x38\x16\x21\x04" + rb(20) + b"\x05\x02" + ts + rb(0x90 - 35)
    pkt += b"\x88" + bytes([len(sig)]) + sig
    sub = (b"\x04" + ts + b"\x12" + bytes([len(cv_oid)]) + cv_oid + b"\x01\x07\x40" + rb(32) +
           b"\x03\x01\x08\x07" + b"\x00" + b"\x00\xff" + rb(32) + rb(2))
    pkt += b"\x9c" + bytes([len(sub)]) + sub
    sig2 = b"\x04\x18\x16\x0a\x00\x20\x16\x21\x04" + rb(20) + b"\x05\x02" + ts + rb(0x78 - 35)
    pkt += b"\x88" + bytes([len(sig2)]) + sig2
    c = crc24(pkt)
    body = "\n".join(wrap(b64e(pkt), 64))
    return ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + body + "\n=" +
            b64e(c.to_bytes(3, "big")) + "\n-----END PGP PRIVATE KEY BLOCK-----")


def jdump(o, indent=2):
    return json.dumps(o, indent=indent, ensure_ascii=False)


def mark_json_values(text, secrets):
    """Wrap each secret string (exact, as it appears JSON-escaped) in marks."""
    for s in secrets:
        enc = json.dumps(s)[1:-1]
        if enc not in text:
            raise ValueError("secret not in text: " + s[:20])
        text = text.replace(enc, M(enc))
    return text


# ================================================================ registry
TEMPLATES = []


def P(f):
    TEMPLATES.append((f.__name__, True, f))
    return f


def N(f):
    TEMPLATES.append((f.__name__, False, f))
    return f


# ================================================================ positives
@P
def cat_n_dotenv():
    fname = ch([".env", ".env.local", ".env.development.local", "apps/api/.env", "backend/.env", ".env.production"])
    lines = [ch(["# local overrides - never commit this file", "# generated by scripts/bootstrap.sh",
                 "# --- app ---", "# copied from 1Password vault 'dev'"])]
    items = []
    for n, v in noise_env(ri(3, 6)):
        items.append(f"{n}={v}")
    a, p, b = db_url(kind=ch(["postgres", "mysql", "mongo"]))
    items.append(("DATABASE_URL=" if "mongo" not in a else "MONGODB_URI=") + a + M(p) + b)
    for n, v in vendor_env(ri(2, 4)):
        q = ch(["", "", '"', "'"])
        items.append(f"{n}={q}{M(v)}{q}")
    R.shuffle(items)
    cut = ri(2, len(items) - 1)
    lines += items[:cut] + ["", ch(["# --- third party ---", "# integrations", "# feature toggles"])] + items[cut:]
    if coin():
        lines.append("")
    return cmdline(f"cat -n {fname}") + numbered(lines, "cat")


@P
def nl_django_settings():
    app = my_proj().replace("-", "_")
    path = ch([f"{app}/settings/production.py", "config/settings.py", f"{app}/settings.py", "src/core/settings/base.py"])
    key = django_key()
    dbpw = pw(ch(["punct", "alnum", "short"]))
    mailpw = ch([sendgrid(), pw()])
    lines = [
        '"""', f"Django settings for {app} project.", '"""',
        "from pathlib import Path", "import os", "",
        "BASE_DIR = Path(__file__).resolve().parent.parent" + (".parent" if "settings/" in path else ""), "",
        "# SECURITY WARNING: keep the secret key used in production secret!",
        f"SECRET_KEY = '{M(key)}'", "",
        "DEBUG = " + ch(["False", "True", 'os.environ.get("DEBUG") == "1"']),
        f"ALLOWED_HOSTS = ['{domain()}', 'localhost', '127.0.0.1']", "",
        "INSTALLED_APPS = [",
        "    'django.contrib.admin',", "    'django.contrib.auth',", "    'django.contrib.contenttypes',",
        "    'django.contrib.sessions',", "    'rest_framework',", f"    '{app}.{ch(['orders', 'accounts', 'core', 'billing'])}',",
        "]", "",
        "DATABASES = {",
        "    'default': {",
        "        'ENGINE': 'django.db.backends.postgresql',",
        f"        'NAME': '{app}',",
        f"        'USER': '{ch(['django', app, 'postgres'])}',",
        f"        'PASSWORD': '{M(dbpw)}',",
        f"        'HOST': '{ch(['db', 'localhost', 'postgres.internal'])}',",
        "        'PORT': '5432',",
        "    }",
        "}", "",
        "EMAIL_BACKEND = 'django.core.mail.backends.smtp.EmailBackend'",
        f"EMAIL_HOST = '{ch(['smtp.sendgrid.net', 'smtp.gmail.com', 'smtp.mailgun.org'])}'",
        "EMAIL_PORT = 587",
        f"EMAIL_HOST_USER = '{ch(['apikey', email()])}'",
        f"EMAIL_HOST_PASSWORD = '{M(mailpw)}'",
        "EMAIL_USE_TLS = True",
    ]
    if coin():
        lines += ["", f"AWS_ACCESS_KEY_ID = '{M(aws_akid())}'", f"AWS_SECRET_ACCESS_KEY = '{M(aws_secret())}'",
                  f"AWS_STORAGE_BUCKET_NAME = '{app}-media'"]
    n = ri(34, len(lines))
    return cmdline(f"nl -ba {path} | head -{n}") + numbered(lines[:n], "cat")


@P
def spring_properties():
    svc = my_proj()
    dbpw = pw(ch(["punct", "alnum", "hex"]))
    jwt_s = ch([b64(48), hx(64), rs(64)])
    lines = [
        f"spring.application.name={svc}",
        f"server.port={ch([8080, 8081, 9000])}",
        "server.shutdown=graceful",
        "",
        "# --- datasource ---",
        f"spring.datasource.url=jdbc:postgresql://{ch(['pg-primary.internal', 'localhost', 'db'])}:5432/{svc.replace('-', '_')}",
        f"spring.datasource.username={ch(['app', 'svc_' + svc.split('-')[0], 'spring'])}",
        f"spring.datasource.password={M(dbpw)}",
        "spring.datasource.hikari.maximum-pool-size=" + str(ri(5, 30)),
        "spring.jpa.hibernate.ddl-auto=validate",
        "spring.jpa.open-in-view=false",
        "",
        "# --- security ---",
        f"app.security.jwt.secret={M(jwt_s)}",
        f"app.security.jwt.expiration-ms={ch([3600000, 86400000, 900000])}",
    ]
    extra = ri(0, 2)
    if extra == 0:
        lines += ["", "spring.mail.host=smtp.sendgrid.net", "spring.mail.port=587", "spring.mail.username=apikey",
                  f"spring.mail.password={M(sendgrid())}"]
    elif extra == 1:
        lines += ["", f"okta.oauth2.issuer=https://{my_org()}.okta.com/oauth2/default",
                  f"okta.oauth2.client-id=0oa{rs(17, ALNUM)}", f"okta.oauth2.client-secret={M(rs(40, ALNUM + '-_'))}"]
    else:
        lines += ["", f"cloud.aws.region.static={ch(REGIONS)}", f"cloud.aws.credentials.access-key={M(aws_akid())}",
                  f"cloud.aws.credentials.secret-key={M(aws_secret())}"]
    lines += ["", "management.endpoints.web.exposure.include=health,info,prometheus",
              "logging.level.org.hibernate.SQL=" + ch(["DEBUG", "INFO", "WARN"])]
    path = f"src/main/resources/application-{ch(['prod', 'staging', 'local', 'docker'])}.properties"
    return cmdline(ch([f"cat {path}", f"head -n 60 {path}", f"sed -n '1,80p' {path}"])) + "\n".join(lines)


@P
def appsettings_json():
    db = my_proj().replace("-", "")
    pw1 = pw(ch(["punct", "short", "alnum"]))
    srv = f"{my_org()}-sql-{ch(['prod', 'eus', 'weu'])}"
    redis_pw = b64(32)
    items = {
        "Logging": {"LogLevel": {"Default": "Information", "Microsoft.AspNetCore": "Warning"}},
        "AllowedHosts": "*",
        "ConnectionStrings": {
            "DefaultConnection": f"Server=tcp:{srv}.database.windows.net,1433;Initial Catalog={db};Persist Security Info=False;User ID={ch(['sqladmin', 'app', db + 'user'])};Password=@@PW1@@;MultipleActiveResultSets=False;Encrypt=True;TrustServerCertificate=False;Connection Timeout=30;",
            "Redis": f"{my_org()}-cache.redis.cache.windows.net:6380,password=@@PW2@@,ssl=True,abortConnect=False",
        },
    }
    third = ri(0, 2)
    if third == 0:
        items["SendGrid"] = {"ApiKey": "@@S3@@", "FromAddress": f"no-reply@{domain()}"}
        s3 = sendgrid()
    elif third == 1:
        items["AzureAd"] = {"Instance": "https://login.microsoftonline.com/", "TenantId": uuid4(), "ClientId": uuid4(),
                            "ClientSecret": "@@S3@@"}
        s3 = az_client_secret()
    else:
        items["Stripe"] = {"SecretKey": "@@S3@@", "WebhookSecret": "@@S4@@"}
        s3 = stripe_sk()
    txt = jdump(items, 2)
    txt = txt.replace("@@PW1@@", M(pw1.replace('"', ''))).replace("@@PW2@@", M(redis_pw)).replace("@@S3@@", M(s3))
    txt = txt.replace("@@S4@@", M(whsec_dash()))
    c = ch(["type appsettings.Production.json", "cat appsettings.Production.json", "Get-Content .\\src\\Api\\appsettings.json"])
    if c.startswith("type") or c.startswith("Get"):
        pre = f"PS C:\\Users\\{me()}\\source\\repos\\{my_proj()}> {c}\n" if coin(0.7) else ""
    else:
        pre = cmdline(c)
    return pre + txt


@P
def claude_read_config_yaml():
    svc = my_proj()
    slack = slack_bot()
    lines = [
        f"# {svc} runtime configuration",
        "server:",
        f"  listen: 0.0.0.0:{ch([8080, 9090, 3000])}",
        f"  read_timeout: {ch(['5s', '10s', '30s'])}",
        "",
        "database:",
        f"  host: {ch(['postgres.internal', 'localhost', '10.0.4.12'])}",
        "  port: 5432",
        f"  name: {svc.replace('-', '_')}",
        f"  user: {ch(['app', 'svc', 'reporter'])}",
        "  password: @@DBPW@@",
        "",
        "notifications:",
        "  slack:",
        f"    channel: \"#{ch(['alerts', 'deploys', 'ops', 'billing-alerts'])}\"",
        "    bot_token: @@SLACK@@",
    ]
    dbpw = pw(ch(["alnum", "punct", "hex"]))
    q = ch(["", '"', "'"])
    lines[10] = lines[10].replace("@@DBPW@@", q + M(dbpw) + q)
    lines[15] = lines[15].replace("@@SLACK@@", M(slack))
    if coin():
        lines += ["  pagerduty:", f"    routing_key: {M(hx(32))}", "    severity: critical"]
    lines += ["", "metrics:", "  datadog:", f"    api_key: {M(datadog_api())}", f"    site: {ch(['datadoghq.com', 'datadoghq.eu'])}",
              "    tags:", f"      - env:{ch(['prod', 'staging'])}", f"      - service:{svc}", "", "features:",
              f"  rate_limit_per_minute: {ri(60, 1200)}", f"  enable_beta: {ch(['true', 'false'])}"]
    path = ch([f"/home/{me()}/src/{svc}/config.yaml", f"/workspace/{svc}/config/config.yaml", f"/Users/{me()}/dev/{svc}/deploy/config.prod.yaml"])
    head = ch(["", f"● Read({path})\n  ⎿  Read {len(lines)} lines\n\n", ""])
    return head + numbered(lines, "arrow")


@P
def grep_rn_repo():
    hits = []
    noise = [
        "./src/auth/middleware.py:41:    token = request.headers.get(\"Authorization\", \"\").removeprefix(\"Bearer \")",
        "./src/clients/github.py:18:def refresh_token(self) -> str:",
        "./README.md:57:Set `API_KEY` in your environment before running the worker.",
        "./src/settings.py:12:API_KEY = os.environ.get(\"API_KEY\")",
        "./tests/test_auth.py:9:    assert verify_token(\"not-a-token\") is False",
        "./docs/setup.md:23:export STRIPE_SECRET_KEY=sk_test_...",
        "./src/utils/crypto.py:66:def derive_secret(master: bytes, label: str) -> bytes:",
        "./.github/workflows/ci.yml:31:          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
        "./web/src/lib/api.ts:7:const token = localStorage.getItem(\"token\");",
        "./scripts/rotate.sh:4:# rotates the api key in vault; see runbook",
        "Binary file ./static/fonts/Inter.woff2 matches",
    ]
    hits += sample(noise, ri(4, 7))
    files = [
        ("./scripts/seed_prod.py", lambda: f"API_KEY = \"{M(ch([stripe_sk(), openai_key(), sendgrid()]))}\""),
        ("./src/integrations/slack.py", lambda: f"SLACK_TOKEN = \"{M(slack_bot())}\"  # TODO move to env"),
        ("./tests/conftest.py", lambda: f"    monkeypatch.setenv(\"GITHUB_TOKEN\", \"{M(gh_pat())}\")"),
        ("./deploy/k8s/configmap.yaml", lambda: f"  DD_API_KEY: \"{M(datadog_api())}\""),
        ("./web/src/config.ts", lambda: f"  mapsApiKey: \"{M(google_api_key())}\","),
        ("./notebooks/explore.py", lambda: f"openai.api_key = \"{M(openai_key())}\""),
        ("./infra/old/backup.sh", lambda: f"export PGPASSWORD='{M(pw())}'"),
        ("./src/jobs/sync_crm.py", lambda: f"HUBSPOT_TOKEN = \"{M('pat-' + ch(['na1', 'eu1']) + '-' + uuid4())}\""),
        ("./tools/upload.js", lambda: f"const HF_TOKEN = '{M(hf_tok())}';"),
    ]
    for f, g in sample(files, ri(2, 3)):
        hits.append(f"{f}:{ri(3, 240)}:{g()}")
    hits.sort(key=lambda h: h.replace("Binary file ", "").split(":")[0])
    pat = ch(["-iE '(api[_-]?key|token|secret|passw)'", "-E 'TOKEN|KEY|SECRET'", "-i 'token\\|api_key\\|password'"])
    return cmdline(f"grep -rn {pat} --exclude-dir=node_modules --exclude-dir=.git .") + "\n".join(hits)


@P
def rg_heading():
    groups = []
    u = me()
    cand = [
        ("src/config/defaults.ts", [f"14:  mapboxToken: process.env.MAPBOX_TOKEN ?? \"{M(mapbox_sk(u))}\",",
                                    "15:  mapStyle: \"mapbox://styles/mapbox/streets-v12\","]),
        ("services/payments/src/stripe.rs", [f"9:const STRIPE_KEY: &str = \"{M(stripe_sk())}\";",
                                             "10:const API_VERSION: &str = \"2024-06-20\";"]),
        ("internal/notify/twilio.go", [f"12:\tauthToken  = \"{M(twilio_token())}\"", f"11:\taccountSID = \"{twilio_sid()}\""]),
        ("scripts/backfill.rb", [f"5:Square.access_token = '{M(square_tok())}'"]),
        ("app/Services/Jira.php", [f"17:        $this->token = '{M(atlassian_tok())}';"]),
        ("bin/release.sh", [f"22:curl -fsSL -H \"Authorization: token {M(gh_pat())}\" \\"]),
        ("config/newrelic.js", [f"8:  license_key: '{M(newrelic_license())}',"]),
        ("pkg/llm/client.py", [f"27:    api_key=\"{M(anthropic_key())}\","]),
    ]
    chosen = sample(cand, ri(2, 4))
    nz = [("src/middleware/auth.ts", ["31:  const token = req.headers.authorization?.split(\" \")[1];",
                                      "44:  if (!token) return res.status(401).json({ error: \"missing token\" });"]),
          ("docs/configuration.md", ["88:| `API_TOKEN` | token used for the upstream API | *(required)* |"]),
          ("src/lib/session.py", ["12:SESSION_COOKIE = \"sid\"", "40:def rotate_token(user_id: int) -> str:"])]
    chosen += sample(nz, ri(1, 2))
    R.shuffle(chosen)
    out = []
    for f, ls in chosen:
        ls = sorted(ls, key=lambda s: int(s.split(":", 1)[0]))
        out.append(f + "\n" + "\n".join(ls))
    pat = ch(["-n -i 'token|secret|api.?key'", "-n '(TOKEN|KEY|SECRET)\\b'", "-n --hidden -g '!*.lock' 'key|token'"])
    return cmdline(f"rg {pat}") + "\n\n".join(out)


def git_author():
    f = full()
    return f, f"{f.split()[0].lower()}.{f.split()[1].lower()}@{domain()}"


def git_date(t):
    return t.strftime("%a %b ") + str(t.day) + t.strftime(" %H:%M:%S %Y ") + ch(["+0000", "+0100", "+0200", "-0500", "-0700", "+0530", "+0900"])


@P
def git_diff_staged():
    kind = ri(0, 3)
    if kind == 0:
        f = "docker-compose.override.yml"
        tok = dckr_pat()
        hunk = ["   registry:", "     image: registry:2", "     environment:",
                "-      REGISTRY_HTTP_SECRET: ${REGISTRY_HTTP_SECRET}",
                f"+      REGISTRY_HTTP_SECRET: {M(hx(64))}",
                f"+      DOCKERHUB_TOKEN: {M(tok)}",
                "     ports:", "       - \"5000:5000\""]
        n0 = ri(10, 40)
        hdr = f"@@ -{n0},6 +{n0},7 @@ services:"
    elif kind == 1:
        f = "src/lib/openai.ts"
        hunk = [" import OpenAI from \"openai\";", "",
                "-const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });",
                "+// TODO: revert before merge, env not loading in vitest",
                f"+const client = new OpenAI({{ apiKey: \"{M(openai_key())}\" }});", "",
                " export async function summarize(text: string) {"]
        hdr = "@@ -1,6 +1,7 @@"
    elif kind == 2:
        f = "terraform/environments/prod/terraform.tfvars"
        hunk = [f" region       = \"{ch(REGIONS)}\"", f" cluster_name = \"{my_org()}-prod\"",
                f"+datadog_api_key = \"{M(datadog_api())}\"",
                f"+datadog_app_key = \"{M(datadog_app())}\"",
                f"+pagerduty_token = \"{M(pagerduty_tok())}\"",
                " ", f" node_count = {ri(3, 12)}"]
        hdr = "@@ -3,5 +3,8 @@"
    else:
        f = "config/initializers/twilio.rb"
        hunk = [" Twilio.configure do |config|",
                f"-  config.account_sid = ENV.fetch(\"TWILIO_ACCOUNT_SID\")",
                f"-  config.auth_token  = ENV.fetch(\"TWILIO_AUTH_TOKEN\")",
                f"+  config.account_sid = \"{twilio_sid()}\"",
                f"+  config.auth_token  = \"{M(twilio_token())}\"",
                " end"]
        hdr = "@@ -1,4 +1,4 @@"
    out = [f"diff --git a/{f} b/{f}", f"index {short()}..{short()} 100644", f"--- a/{f}", f"+++ b/{f}", hdr] + hunk
    if coin():
        g = ch(["package.json", "README.md", "src/index.ts"])
        out = [f"diff --git a/{g} b/{g}", f"index {short()}..{short()} 100644", f"--- a/{g}", f"+++ b/{g}",
               "@@ -{0},4 +{0},4 @@".format(ri(2, 30)), ch(["   \"scripts\": {", " ## Setup", " import './polyfills';"]),
               ch(["-    \"test\": \"jest\",", "-Run `make dev`.", "-import './legacy';"]),
               ch(["+    \"test\": \"vitest run\",", "+Run `make dev` then open http://localhost:3000.", "+import './instrument';"]),
               ch(["     \"lint\": \"eslint .\"", " ", " "])] + out
    return cmdline(ch(["git diff --cached", "git diff", "git diff HEAD", "git --no-pager diff --staged"])) + "\n".join(out)


@P
def git_show_commit():
    name, mail = git_author()
    t = rtime()
    sha = sha1()
    kind = ri(0, 2)
    if kind == 0:
        f = ".npmrc"
        body = ["+registry=https://registry.npmjs.org/", f"+@{my_org()}:registry=https://npm.pkg.github.com",
                f"+//npm.pkg.github.com/:_authToken={M(gh_pat())}", f"+//registry.npmjs.org/:_authToken={M(npm_tok())}"]
        msg = ch(["fix ci install for private packages", "chore: add npmrc so CI can pull @scope packages", "wip"])
    elif kind == 1:
        f = ".pypirc"
        body = ["+[distutils]", "+index-servers =", "+    pypi", "+    testpypi", "+", "+[pypi]", "+username = __token__",
                f"+password = {M(pypi_tok())}", "+", "+[testpypi]", "+repository = https://test.pypi.org/legacy/",
                "+username = __token__", f"+password = {M(pypi_tok())}"]
        msg = ch(["release tooling", "add publish config", "make `make publish` work"])
    else:
        f = "gradle.properties"
        body = ["+org.gradle.jvmargs=-Xmx4g -Dfile.encoding=UTF-8", "+android.useAndroidX=true",
                f"+gpr.user={me()}", f"+gpr.key={M(gh_pat())}", f"+signing.password={M(pw())}",
                f"+ossrhPassword={M(pw(ch(['alnum', 'punct'])))}"]
        msg = ch(["publish to maven central", "configure signing + GitHub Packages", "build: release config"])
    n = len(body)
    out = [f"commit {sha}" + ch(["", f" (HEAD -> {ch(['main', 'release/' + semver()])})"]),
           f"Author: {name} <{mail}>", f"Date:   {git_date(t)}", "", "    " + msg, "",
           f"diff --git a/{f} b/{f}", "new file mode 100644", f"index 0000000..{short()}", "--- /dev/null", f"+++ b/{f}",
           f"@@ -0,0 +1,{n} @@"] + body
    if coin(0.4):
        out[6:6] = [f" {f} | {n} {'+' * min(n, 12)}", f" 1 file changed, {n} insertions(+)", ""]
    return cmdline(ch([f"git show {sha[:8]}", f"git show --stat -p {sha[:10]}", "git show HEAD~1"])) + "\n".join(out)


@P
def git_log_patch():
    out = []
    kind = ri(0, 2)
    if kind == 0:
        tok = slack_bot()
        path, old, new = "bot/settings.py", f"SLACK_BOT_TOKEN = \"{M(tok)}\"", "SLACK_BOT_TOKEN = os.environ[\"SLACK_BOT_TOKEN\"]"
        s = "xoxb-"
        ctx = "import os"
    elif kind == 1:
        tok = sendgrid()
        path, old, new = "src/mailer/index.js", f"sgMail.setApiKey('{M(tok)}');", "sgMail.setApiKey(process.env.SENDGRID_API_KEY);"
        s = "SG."
        ctx = "const sgMail = require('@sendgrid/mail');"
    else:
        tok = hf_tok()
        path, old, new = "train/push_to_hub.py", f"login(token=\"{M(tok)}\")", "login(token=os.environ[\"HF_TOKEN\"])"
        s = "hf_"
        ctx = "from huggingface_hub import login"
    t = rtime()
    for i, (add, rem, msg) in enumerate([(new, old, ch(["move token to env", "security: remove hardcoded key", "fix: read key from environment"])),
                                         (old, None, ch(["initial version", "first working version", "wip", "scaffold"]))]):
        name, mail = git_author()
        t2 = t - dt.timedelta(days=i * ri(2, 40))
        out += [f"commit {sha1()}", f"Author: {name} <{mail}>", f"Date:   {git_date(t2)}", "", f"    {msg}", "",
                f"diff --git a/{path} b/{path}", f"index {short()}..{short()} 100644", f"--- a/{path}", f"+++ b/{path}",
                (f"@@ -{ri(1, 3)},3 +{ri(1, 3)},3 @@" if rem else "@@ -1,2 +1,3 @@")]
        out.append(" " + ctx)
        if rem:
            out.append("-" + rem)
        out.append("+" + add)
        out.append(" ")
        out.append("")
    return cmdline(f"git log -p -S'{s}' -- {path}") + "\n".join(out).rstrip()


@P
def docker_inspect_env():
    name = f"{my_proj()}-{ch(SERVICES)}-1"
    image = f"ghcr.io/{my_org()}/{my_proj()}:{ch(['latest', semver(), 'sha-' + short()])}"
    env = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           f"NODE_VERSION={ch(['20.11.1', '22.3.0', '18.19.0'])}", "YARN_VERSION=1.22.19"]
    for n, v in noise_env(ri(2, 4)):
        env.append(f"{n}={v}")
    sec = []
    a, p, b = db_url(kind=ch(["postgres", "redis", "mongo"]))
    sec.append(("DATABASE_URL=" + a, p, b))
    for n, v in vendor_env(ri(1, 3)):
        sec.append((n + "=", v, ""))
    ENV = env + ["@@%d@@" % i for i in range(len(sec))]
    R.shuffle(ENV)
    if coin(0.5):
        cid = sha256()
        obj = [{"Id": cid, "Created": iso(rtime(), ms=False) [:-1] + "." + str(ri(100000000, 999999999)) + "Z",
                "Path": "docker-entrypoint.sh", "Args": ["node", "dist/server.js"],
                "State": {"Status": "running", "Running": True, "Pid": ri(1000, 90000), "ExitCode": 0},
                "Image": "sha256:" + sha256(), "Name": "/" + name,
                "Config": {"Hostname": cid[:12], "User": "node", "Env": ENV, "Cmd": ["node", "dist/server.js"],
                           "Image": image, "WorkingDir": "/app",
                           "Labels": {"com.docker.compose.project": my_proj(), "com.docker.compose.service": ch(SERVICES)}}}]
        txt = json.dumps(obj, indent=4)
        c = f"docker inspect {name}"
    else:
        txt = json.dumps(ENV)
        c = f"docker inspect --format '{{{{json .Config.Env}}}}' {name}"
    for i, (a, p, b) in enumerate(sec):
        enc = json.dumps(a)[1:-1] + M(json.dumps(p)[1:-1]) + json.dumps(b)[1:-1]
        txt = txt.replace("@@%d@@" % i, enc)
    return cmdline(c) + txt


@P
def compose_config():
    p = my_proj()
    cwd = f"/home/{me()}/src/{p}"
    pgpw = pw(safe=True)
    mpw = pw(safe=True)
    lines = [f"name: {p}", "services:", "  api:", "    build:", f"      context: {cwd}", "      dockerfile: Dockerfile",
             "    depends_on:", "      db:", "        condition: service_started", "    environment:"]
    env = [(f"DATABASE_URL", f"postgres://app:{M(pgpw)}@db:5432/{p.replace('-', '_')}")]
    for n, v in vendor_env(ri(1, 3)):
        env.append((n, M(v)))
    for n, v in noise_env(2):
        env.append((n, v))
    env.sort()
    lines += [f"      {n}: {v}" for n, v in env]
    lines += ["    networks:", "      default: null", "    ports:", "      - mode: ingress", "        target: 8080",
              f"        published: \"{ch([8080, 8000, 3000])}\"", "        protocol: tcp",
              "  db:", f"    image: postgres:{ch(['15', '16', '16-alpine'])}", "    environment:", "      POSTGRES_DB: " + p.replace('-', '_'),
              f"      POSTGRES_PASSWORD: {M(pgpw)}", "      POSTGRES_USER: app",
              "    networks:", "      default: null"]
    if coin():
        lines += ["  minio:", "    image: minio/minio:latest", "    command:", "      - server", "      - /data",
                  "    environment:", "      MINIO_ROOT_PASSWORD: " + M(mpw), "      MINIO_ROOT_USER: minio",
                  "    networks:", "      default: null"]
    lines += ["networks:", "  default:", f"    name: {p}_default"]
    return cmdline(ch(["docker compose config", "docker compose -f compose.yaml -f compose.dev.yaml config"])) + "\n".join(lines)


@P
def docker_history():
    img = f"{my_org()}/{my_proj()}:{ch(['latest', semver()])}"
    rows = []
    t = rtime()
    npm = npm_tok()
    gh = gh_pat()
    steps = [
        ("CMD [\"node\" \"dist/server.js\"]", "0B", "buildkit.dockerfile.v0"),
        ("EXPOSE map[8080/tcp:{}]", "0B", "buildkit.dockerfile.v0"),
        ("USER node", "0B", "buildkit.dockerfile.v0"),
        ("COPY /app/dist ./dist # buildkit", f"{ri(1, 40)}.{ri(0, 9)}MB", "buildkit.dockerfile.v0"),
        (f"RUN |2 NPM_TOKEN={M(npm)} GITHUB_TOKEN={M(gh)} /bin/sh -c npm ci --omit=dev && npm cache clean --force # buildkit",
         f"{ri(80, 400)}MB", "buildkit.dockerfile.v0"),
        ("COPY package.json package-lock.json ./ # buildkit", f"{ri(300, 900)}kB", "buildkit.dockerfile.v0"),
        ("ARG GITHUB_TOKEN", "0B", "buildkit.dockerfile.v0"),
        ("ARG NPM_TOKEN", "0B", "buildkit.dockerfile.v0"),
        (f"ENV SENTRY_AUTH_TOKEN={M(sentry_user_tok())}" if coin() else f"ENV DD_API_KEY={M(datadog_api())}", "0B", "buildkit.dockerfile.v0"),
        ("WORKDIR /app", "0B", "buildkit.dockerfile.v0"),
        ("/bin/sh -c #(nop)  CMD [\"node\"]", "0B", ""),
        ("/bin/sh -c #(nop)  ENTRYPOINT [\"docker-entrypoint.sh\"]", "0B", ""),
        (f"/bin/sh -c #(nop) COPY file:{sha256()} in /usr/local/bin/ ", "388B", ""),
        ("/bin/sh -c #(nop)  ENV NODE_VERSION=20.11.1", "0B", ""),
        (f"/bin/sh -c #(nop) ADD file:{sha256()} in / ", "74.8MB", ""),
    ]
    recent = ch(["2 hours ago", "3 days ago", "5 weeks ago"])
    older = ch(["2 months ago", "3 months ago"])
    for i, (cb, size, com) in enumerate(steps):
        img_id = ("sha256:" + sha256()) if i in (0, len(steps) - 6) else "<missing>"
        ago = recent if i < 10 else older
        rows.append(f"{img_id:<72} {ago:<15} {cb:<60} {size:<9} {com}")
    return cmdline(f"docker history --no-trunc {img}") + f"{'IMAGE':<72} {'CREATED':<15} {'CREATED BY':<60} {'SIZE':<9} COMMENT\n" + "\n".join(rows)


@P
def kubectl_describe_pod():
    app = my_proj()
    ns = ch(["prod", "staging", "default", app])
    pod = f"{app}-{pod_suffix()}"
    node = f"ip-10-{ri(0, 255)}-{ri(0, 255)}-{ri(1, 254)}.{ch(REGIONS)}.compute.internal"
    t = rtime()
    acct, reg = aws_acct(), ch(REGIONS)
    envs = [("PORT", "8080"), ("LOG_FORMAT", "json"),
            ("DB_PASSWORD", f"<set to the key 'password' in secret '{app}-db'>  Optional: false"),
            ("POD_NAME", " (v1:metadata.name)")]
    for n, v in vendor_env(ri(1, 3)):
        envs.append((n, M(v)))
    a, p, b = db_url(kind=ch(["redis", "amqp"]))
    envs.append(("BROKER_URL", a + M(p) + b))
    R.shuffle(envs)
    w = max(len(n) for n, _ in envs) + 2
    env_lines = [f"      {n + ':':<{w}}{v}" for n, v in envs]
    lines = [f"Name:             {pod}", f"Namespace:        {ns}", "Priority:         0",
             f"Service Account:  {app}", f"Node:             {node}/{ip_priv()}",
             f"Start Time:       {t.strftime('%a, %d %b %Y %H:%M:%S +0000')}",
             f"Labels:           app.kubernetes.io/name={app}", f"                  pod-template-hash={rs(10, 'bcdfghjklmnpqrstvwxz2456789')}",
             "Status:           Running", f"IP:               {ip_priv()}",
             f"Controlled By:  ReplicaSet/{app}-{rs(10, 'bcdfghjklmnpqrstvwxz2456789')}",
             "Containers:", f"  {app}:",
             f"    Container ID:   containerd://{sha256()}",
             f"    Image:          {acct}.dkr.ecr.{reg}.amazonaws.com/{app}:{short()}",
             f"    Image ID:       {acct}.dkr.ecr.{reg}.amazonaws.com/{app}@sha256:{sha256()}",
             "    Port:           8080/TCP", "    Host Port:      0/TCP", "    State:          Running",
             f"      Started:      {t.strftime('%a, %d %b %Y %H:%M:%S +0000')}", "    Ready:          True",
             f"    Restart Count:  {ri(0, 4)}", "    Environment:"] + env_lines + [
             "    Mounts:", f"      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-{rs(5, 'bcdfghjklmnpqrstvwxz2456789')} (ro)",
             "Events:", "  Type    Reason     Age   From               Message", "  ----    ------     ----  ----               -------",
             f"  Normal  Scheduled  {ri(2, 50)}m   default-scheduler  Successfully assigned {ns}/{pod} to {node}",
             f"  Normal  Pulled     {ri(2, 50)}m   kubelet            Container image already present on machine",
             f"  Normal  Started    {ri(2, 50)}m   kubelet            Started container {app}"]
    return cmdline(f"kubectl describe pod -n {ns} {pod}") + "\n".join(lines)


@P
def kubectl_secret_json():
    app = my_proj()
    ns = ch(["prod", "payments", "default", "platform"])
    vals = [("DATABASE_PASSWORD", pw()), ("REDIS_PASSWORD", pw(safe=True))]
    vals += vendor_env(ri(1, 2), exclude=("ADMIN_PASSWORD", "SMTP_PASSWORD"))
    data = {k: b64e(v.encode()) for k, v in vals}
    obj = {"apiVersion": "v1", "data": dict(sorted(data.items())), "kind": "Secret",
           "metadata": {"creationTimestamp": iso(rtime(), ms=False), "name": f"{app}-env", "namespace": ns,
                        "resourceVersion": str(ri(1000000, 99999999)), "uid": uuid4()}, "type": "Opaque"}
    txt = json.dumps(obj, indent=4)
    for v in data.values():
        txt = txt.replace('"' + v + '"', '"' + M(v) + '"')
    out = cmdline(f"kubectl get secret {app}-env -n {ns} -o json") + txt
    k, v = vals[ri(0, len(vals) - 1)]
    out += "\n" + prompt() + f"kubectl get secret {app}-env -n {ns} -o jsonpath='{{.data.{k}}}' | base64 -d\n" + M(v)
    return out


@P
def ps_auxww():
    t = rtime()
    rows = []

    def row(u, cmd, big=False):
        pid = ri(300, 99999)
        return (u, pid, f"{R.random() * (20 if big else 1.5):.1f}", f"{R.random() * (12 if big else 0.8):.1f}",
                ri(5000, 4000000), ri(1000, 900000), ch(["?", "?", "pts/0", "pts/1"]), ch(["Ss", "Sl", "S", "R+", "Ssl", "S+"]),
                f"{ri(0, 23):02d}:{ri(0, 59):02d}", f"{ri(0, 40)}:{ri(0, 59):02d}", cmd)
    rows.append(row("root", "/sbin/init"))
    rows.append(row("root", "/usr/lib/systemd/systemd-journald"))
    rows.append(row("root", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups"))
    rows.append(row("root", "/usr/bin/containerd"))
    rows.append(row("root", "/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock"))
    u = me()
    host = ch(["db.internal", "10.0.4.12", "mysql-primary", f"{my_proj()}.cluster-{hx(12)}.{ch(REGIONS)}.rds.amazonaws.com"])
    leaks = [
        lambda: f"mysql -h {host} -u root -p{M(pw(safe=True))} {my_proj().replace('-', '_')}",
        lambda: f"sshpass -p {M(pw(safe=True))} ssh -o StrictHostKeyChecking=no deploy@{ip_priv()}",
        lambda: f"java -Xmx2g -Dspring.datasource.password={M(pw(safe=True))} -jar /opt/{my_proj()}/app.jar --server.port=8080",
        lambda: f"node dist/worker.js --queue=emails --sendgrid-key={M(sendgrid())}",
        lambda: f"pg_dump postgresql://backup:{M(pw(safe=True))}@{host}:5432/prod -Fc -f /tmp/prod.dump",
        lambda: f"/usr/bin/python3 /opt/sync/run.py --token {M(gh_any())} --org {my_org()}",
        lambda: f"curl -sS -H Authorization: Bearer {M(openai_key())} https://api.openai.com/v1/models",
        lambda: f"rclone sync /data s3:backups --s3-access-key-id {M(aws_akid())} --s3-secret-access-key {M(aws_secret())}",
        lambda: f"redis-cli -h cache.internal -a {M(pw(safe=True))} --no-auth-warning monitor",
    ]
    for g in sample(leaks, ri(2, 3)):
        rows.append(row(ch([u, "deploy", "root", "app"]), g(), big=coin()))
    rows.append(row(u, "-bash"))
    rows.append(row(u, f"node /home/{u}/.npm-global/bin/claude", big=True))
    rows.append(row(u, "ps auxww"))
    rows.append(row("postgres", "postgres: 16/main: checkpointer "))
    rows.append(row("www-data", "nginx: worker process"))
    head = rows[:5]
    rest = rows[5:]
    R.shuffle(rest)
    rows = head + rest
    out = ["USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"]
    for r in rows:
        out.append(f"{r[0]:<10} {r[1]:>5} {r[2]:>4} {r[3]:>4} {r[4]:>6} {r[5]:>5} {r[6]:<8} {r[7]:<4} {r[8]:>5} {r[9]:>6} {r[10]}")
    return cmdline("ps auxww") + "\n".join(out)

UAS = ["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
       "python-requests/2.31.0", "curl/8.5.0", "Go-http-client/1.1", "axios/1.6.8", "node-fetch/1.0",
       "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", "kube-probe/1.29", "Zapier",
       "GitHub-Hookshot/" + "a1b2c3d"]


@P
def nginx_access_log():
    t = rtime()
    lines = []
    leaks = [
        lambda: f"GET /api/v1/export?format=csv&access_token={M(user_jwt())} HTTP/1.1",
        lambda: f"GET /v2/reports/daily?api_key={M(hx(32))}&date={t.strftime('%Y-%m-%d')} HTTP/1.1",
        lambda: f"POST /hooks/deploy?token={M(rs(40, ALNUM))} HTTP/1.1",
        lambda: f"GET /download/{uuid4()}.zip?expires={epoch(t) + 3600}&sig={M(b64u(32))} HTTP/1.1",
        lambda: f"GET /feeds/orders.json?key={M(google_api_key())}&limit=100 HTTP/1.1",
        lambda: f"GET /ws?auth={M(b64u(24))}&v=2 HTTP/1.1",
        lambda: f"GET /graphql?query=%7Bviewer%7Bid%7D%7D&access_token={M(gh_pat())} HTTP/1.1",
    ]
    plain = [
        lambda: f"GET /healthz HTTP/1.1", lambda: f"GET /static/js/main.{hx(8)}.js HTTP/1.1",
        lambda: f"GET /api/v1/orders?page={ri(1, 40)}&per_page=50 HTTP/1.1",
        lambda: f"POST /api/v1/sessions HTTP/1.1", lambda: "GET /favicon.ico HTTP/1.1",
        lambda: f"GET /api/v1/users/{ri(1000, 99999)} HTTP/2.0", lambda: f"GET /assets/app.{hx(20)}.css HTTP/1.1",
        lambda: "GET /robots.txt HTTP/1.1", lambda: f"PUT /api/v1/carts/{uuid4()} HTTP/1.1",
    ]
    reqs = [(g, True) for g in sample(leaks, ri(2, 3))] + [(g, False) for g in [ch(plain) for _ in range(ri(5, 10))]]
    R.shuffle(reqs)
    for g, _ in reqs:
        t = plus(t, 0, 40)
        r = g()
        st = ch([200, 200, 200, 204, 304, 301, 401, 404, 499, 502]) if "healthz" not in r else 200
        lines.append(f"{ch([ip_pub(), ip_priv()])} - - [{clf(t)}] \"{r}\" {st} {ri(0, 90000)} \"-\" \"{ch(UAS)}\""
                     + (f" rt={R.random():.3f} uct=0.000" if coin(0.3) else ""))
    f = ch(["/var/log/nginx/access.log", "/var/log/nginx/api.access.log", "logs/access.log"])
    return cmdline(ch([f"tail -n {len(lines)} {f}", f"sudo tail -{len(lines)} {f}", f"tail -n {len(lines)} {f}"])) + "\n".join(lines)


@P
def python_http_debug():
    kind = ri(0, 4)
    if kind == 0:
        host, path, hdr = "api.anthropic.com", "/v1/messages", f"x-api-key: {M(anthropic_key())}\\r\\nanthropic-version: 2023-06-01"
        meth = "POST"
    elif kind == 1:
        host, path, hdr = "api.openai.com", "/v1/chat/completions", f"Authorization: Bearer {M(openai_key())}"
        meth = "POST"
    elif kind == 2:
        host, path, hdr = f"{my_org()}.okta.com", "/api/v1/users?limit=200", f"Authorization: SSWS {M(okta_tok())}"
        meth = "GET"
    elif kind == 3:
        host, path, hdr = "api.pagerduty.com", "/incidents?statuses[]=triggered", f"Authorization: Token token={M(pagerduty_tok())}\\r\\nAccept: application/vnd.pagerduty+json;version=2"
        meth = "GET"
    else:
        host, path, hdr = f"{my_org()}-{rs(4, LOW)}.myshopify.com", "/admin/api/2024-04/orders.json?status=any", f"X-Shopify-Access-Token: {M(shopify_tok())}"
        meth = "GET"
    clen = ri(80, 900) if meth == "POST" else 0
    ua = ch(["python-requests/2.32.3", "python-requests/2.31.0"])
    send = (f"send: b'{meth} {path} HTTP/1.1\\r\\nHost: {host}\\r\\nUser-Agent: {ua}\\r\\nAccept-Encoding: gzip, deflate\\r\\n"
            f"Accept: */*\\r\\nConnection: keep-alive\\r\\n{hdr}\\r\\n"
            + (f"Content-Length: {clen}\\r\\nContent-Type: application/json\\r\\n" if meth == "POST" else "") + "\\r\\n'")
    t = rtime()
    out = [f"DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): {host}:443", send]
    if meth == "POST":
        model = ch(["claude-sonnet-4-20250514", "claude-3-5-haiku-latest"]) if "anthropic" in host else ch(["gpt-4o-mini", "gpt-4.1"])
        out.append("send: b'{\"model\": \"" + model + "\", \"max_tokens\": 512, \"messages\": [{\"role\": \"user\", \"content\": \"ping\"}]}'")
    code = ch([200, 200, 401, 429])
    reason = {200: "OK", 401: "Unauthorized", 429: "Too Many Requests"}[code]
    out += [f"reply: 'HTTP/1.1 {code} {reason}\\r\\n'",
            f"header: Date: {t.strftime('%a, %d %b %Y %H:%M:%S GMT')}", "header: Content-Type: application/json",
            "header: Transfer-Encoding: chunked", "header: Connection: keep-alive",
            f"header: x-request-id: {ch(['req_' + rs(24, ALNUM), uuid4(), hx(32)])}",
            f"DEBUG:urllib3.connectionpool:https://{host}:443 \"{meth} {path} HTTP/1.1\" {code} None"]
    return "\n".join(out)


@P
def shell_history():
    cmds = ["git status", "ls -la", "cd ~/src/" + my_proj(), "npm run dev", "docker ps", "kubectl get pods -n prod",
            "git pull --rebase", "make test", "code .", "python -m venv .venv && source .venv/bin/activate",
            "pip install -r requirements.txt", "clear", "gh pr list", "terraform plan", "htop", "cat README.md",
            f"ssh {me()}@{ip_priv()}", "brew upgrade", "npx prisma migrate dev", "yarn lint --fix"]
    leaks = [
        lambda: f"export OPENAI_API_KEY={M(openai_key())}",
        lambda: f"export ANTHROPIC_API_KEY=\"{M(anthropic_key())}\"",
        lambda: f"curl -s --user 'api:{M(mailgun())}' https://api.mailgun.net/v3/{domain()}/messages -F from='ops@{domain()}' -F to={email()} -F subject=test -F text=hi",
        lambda: f"echo {M(gh_pat())} | gh auth login --with-token",
        lambda: f"docker login -u {me()} -p '{M(pw())}' registry.{domain()}",
        lambda: f"psql \"postgresql://postgres:{M(pw(safe=True))}@{ip_priv()}:5432/postgres\"",
        lambda: f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/{twilio_sid()}/Messages.json -u {twilio_sid()}:{M(twilio_token())} --data-urlencode 'Body=test' -d To=+1555{ri(1000000, 9999999)} -d From=+1555{ri(1000000, 9999999)}",
        lambda: f"aws configure set aws_secret_access_key {M(aws_secret())} --profile {my_org()}",
        lambda: f"vercel deploy --prod --token {M(rs(24, ALNUM))}",
        lambda: f"export HUGGING_FACE_HUB_TOKEN={M(hf_tok())}",
        lambda: f"mysql -uroot -p'{M(pw())}' -e 'show databases'",
        lambda: f"curl -H 'DD-API-KEY: {M(datadog_api())}' https://api.datadoghq.com/api/v1/validate",
        lambda: f"npm config set //registry.npmjs.org/:_authToken {M(npm_tok())}",
    ]
    seq = sample(cmds, ri(10, 16))
    for _ in range(ri(1, 3)):
        seq.insert(ri(0, len(seq)), ch(["git status", "ls -la", "clear"]))
    for g in sample(leaks, ri(2, 3)):
        seq.insert(ri(0, len(seq)), g())
    fmt = ri(0, 2)
    t = epoch(rtime())
    out = []
    if fmt == 0:
        n0 = ri(200, 4000)
        for i, c in enumerate(seq):
            out.append(f"{n0 + i:5d}  {c}")
        return cmdline(f"history | tail -{len(seq)}") + "\n".join(out)
    if fmt == 1:
        for c in seq:
            t += ri(3, 600)
            out.append(f": {t}:0;{c}")
        return cmdline(f"tail -n {len(seq)} ~/.zsh_history") + "\n".join(out)
    return cmdline(f"tail -n {len(seq)} ~/.bash_history") + "\n".join(seq)


@P
def systemd_unit():
    svc = my_proj()
    a, p, b = db_url(kind="postgres")
    lines = [f"# /etc/systemd/system/{svc}.service", "[Unit]", f"Description={svc} {ch(['API', 'worker', 'service'])}",
             "After=network-online.target", "Wants=network-online.target", "", "[Service]", "Type=simple",
             f"User={ch(['app', 'deploy', svc.split('-')[0]])}", f"WorkingDirectory=/opt/{svc}",
             f"Environment=\"DATABASE_URL={a}{M(p)}{b}\""]
    for n, v in vendor_env(ri(1, 2)):
        lines.append(f"Environment={n}={M(v)}")
    lines += [f"Environment=PORT={ch([8080, 9000, 5000])}",
              f"ExecStart=/opt/{svc}/{ch(['bin/server', '.venv/bin/gunicorn app:app -w 4', 'venv/bin/python -m worker'])}",
              "Restart=on-failure", "RestartSec=5", "", "[Install]", "WantedBy=multi-user.target"]
    if coin():
        lines += ["", f"# /etc/systemd/system/{svc}.service.d/override.conf", "[Service]",
                  f"Environment=\"SENTRY_DSN=https://{M(hx(32))}@o{ri(100000, 4999999)}.ingest.us.sentry.io/{ri(10**15, 10**16)}\""]
    return cmdline(f"systemctl cat {svc}" + ch(["", ".service"])) + "\n".join(lines)


@P
def nginx_T():
    d = domain()
    up = ch(["api.partner-" + my_org() + ".com", "internal-search.svc.cluster.local", "api.openai.com", "hooks." + domain()])
    lines = ["nginx: the configuration file /etc/nginx/nginx.conf syntax is ok",
             "nginx: configuration file /etc/nginx/nginx.conf test is successful",
             "# configuration file /etc/nginx/nginx.conf:", "user www-data;", "worker_processes auto;", "pid /run/nginx.pid;",
             "include /etc/nginx/modules-enabled/*.conf;", "", "events {", "\tworker_connections 768;", "}", "", "http {",
             "\tsendfile on;", "\ttcp_nopush on;", "\ttypes_hash_max_size 2048;", "\tinclude /etc/nginx/mime.types;",
             "\tinclude /etc/nginx/conf.d/*.conf;", "\tinclude /etc/nginx/sites-enabled/*;", "}", "",
             f"# configuration file /etc/nginx/sites-enabled/{d}:", "server {", "    listen 443 ssl http2;", f"    server_name {d};",
             f"    ssl_certificate /etc/letsencrypt/live/{d}/fullchain.pem;", f"    ssl_certificate_key /etc/letsencrypt/live/{d}/privkey.pem;",
             "", "    location /upstream/ {", f"        proxy_pass https://{up}/;", "        proxy_set_header Host $proxy_host;"]
    k = ri(0, 2)
    if k == 0:
        lines.append(f"        proxy_set_header Authorization \"Bearer {M(ch([openai_key(), rs(40, ALNUM), user_jwt()]))}\";")
    elif k == 1:
        lines.append(f"        proxy_set_header X-Api-Key {M(hx(32))};")
    else:
        lines.append(f"        proxy_set_header Authorization \"Basic {M(b64e((me() + ':' + pw(safe=True)).encode()))}\";")
    lines += ["        proxy_ssl_server_name on;", "    }", "", "    location /metrics {", "        auth_basic \"metrics\";",
              "        auth_basic_user_file /etc/nginx/.htpasswd;", "        proxy_pass http://127.0.0.1:9100;", "    }", "}"]
    return cmdline("sudo nginx -T") + "\n".join(lines)


@P
def powershell_env():
    u = me()
    base = [("ALLUSERSPROFILE", "C:\\ProgramData"), ("APPDATA", f"C:\\Users\\{u}\\AppData\\Roaming"),
            ("CommonProgramFiles", "C:\\Program Files\\Common Files"), ("COMPUTERNAME", f"DESKTOP-{rs(7, UP + DIG)}"),
            ("ComSpec", "C:\\WINDOWS\\system32\\cmd.exe"), ("HOMEDRIVE", "C:"), ("HOMEPATH", f"\\Users\\{u}"),
            ("LOCALAPPDATA", f"C:\\Users\\{u}\\AppData\\Local"), ("NUMBER_OF_PROCESSORS", str(ch([8, 12, 16, 20]))),
            ("OS", "Windows_NT"), ("PROCESSOR_ARCHITECTURE", "AMD64"), ("PSModulePath", f"C:\\Users\\{u}\\Documents\\WindowsPowerShell\\Modules"),
            ("SystemRoot", "C:\\WINDOWS"), ("TEMP", f"C:\\Users\\{u}\\AppData\\Local\\Temp"), ("USERNAME", u),
            ("USERPROFILE", f"C:\\Users\\{u}"), ("windir", "C:\\WINDOWS"), ("VSCODE_GIT_IPC_HANDLE", f"\\\\.\\pipe\\vscode-git-{hx(10)}-sock")]
    sec = [("AZURE_CLIENT_ID", uuid4(), False), ("AZURE_TENANT_ID", uuid4(), False), ("AZURE_CLIENT_SECRET", az_client_secret(), True)]
    for n, v in vendor_env(ri(1, 2)):
        sec.append((n, v, True))
    items = [(n, v, False) for n, v in sample(base, ri(11, len(base)))] + sec
    items.sort(key=lambda x: x[0].lower())
    w = max(len(n) for n, _, _ in items) + 1
    out = [f"{'Name':<{w}}Value", f"{'----':<{w}}-----"]
    for n, v, s in items:
        out.append(f"{n:<{w}}{M(v) if s else v}")
    c = ch(["Get-ChildItem Env: | Format-Table -AutoSize -Wrap", "gci env: | ft -AutoSize -Wrap", "dir env: | Sort-Object Name | Format-Table -Wrap"])
    return f"PS C:\\Users\\{u}\\source\\{my_proj()}> {c}\n\n" + "\n".join(out) + "\n"


@P
def sql_dump():
    t = rtime()
    if coin():
        tbl = ch(["integrations", "api_credentials", "partner_accounts"])
        rows = []
        for i in range(1, ri(3, 5)):
            prov, gen = ch([("stripe", stripe_sk), ("slack", slack_bot), ("shopify", shopify_tok), ("github", gh_pat),
                            ("sendgrid", sendgrid), ("square", square_tok)])
            rows.append(f"{i}\t{ri(1, 400)}\t{prov}\t{M(gen())}\t{ch(['t', 'f'])}\t{(t - dt.timedelta(days=ri(1, 300))).strftime('%Y-%m-%d %H:%M:%S.%f')}+00")
        out = ["--", "-- PostgreSQL database dump", "--", "", f"-- Dumped from database version {ch(['15.6', '16.2', '14.11'])}",
               f"-- Dumped by pg_dump version {ch(['16.2', '16.3'])}", "", "SET statement_timeout = 0;", "SET client_encoding = 'UTF8';",
               "", "--", f"-- Data for Name: {tbl}; Type: TABLE DATA; Schema: public; Owner: {ch(['app', 'postgres'])}", "--", "",
               f"COPY public.{tbl} (id, account_id, provider, secret, active, created_at) FROM stdin;"] + rows + ["\\.", "", ""]
        if coin():
            return cmdline(f"grep -A{len(rows) + 1} 'COPY public.{tbl}' dump.sql") + "\n".join(out[14:14 + len(rows) + 2])
        return cmdline("head -n 40 backup.sql") + "\n".join(out).rstrip()
    tbl = ch(["`webhooks`", "`api_keys`", "`oauth_clients`"])
    vals = []
    for i in range(1, ri(3, 5)):
        vals.append(f"({i},{ri(1, 300)},'{ch(['prod', 'staging', 'ci'])}','{M(ch([hx(40), b64u(32), rs(48), 'whsec_' + rs(32)]))}','{t.strftime('%Y-%m-%d %H:%M:%S')}')")
    out = [f"-- MySQL dump 10.13  Distrib 8.0.{ri(30, 39)}, for Linux (x86_64)", "--",
           f"-- Host: {ch(['localhost', '127.0.0.1', 'db'])}    Database: {my_proj().replace('-', '_')}",
           "-- ------------------------------------------------------", f"-- Server version\t8.0.{ri(30, 39)}", "",
           f"--", f"-- Dumping data for table {tbl}", "--", "", f"LOCK TABLES {tbl} WRITE;",
           f"/*!40000 ALTER TABLE {tbl} DISABLE KEYS */;",
           f"INSERT INTO {tbl} VALUES " + ",".join(vals) + ";", f"/*!40000 ALTER TABLE {tbl} ENABLE KEYS */;", "UNLOCK TABLES;"]
    return cmdline("sed -n '1,60p' db/dump.sql") + "\n".join(out)


@P
def db_url_app_log():
    t = rtime()
    svc = my_proj()
    style = ri(0, 2)
    entries = [("info", "boot", f"starting {svc} v{semver()} (pid {ri(1, 999)})"), ("info", "config", "loaded 23 settings from env")]
    kinds = sample(["postgres", "mongo", "redis", "amqp", "mysql"], ri(2, 3))
    for k in kinds:
        a, p, b = db_url(kind=k)
        label = {"postgres": "db", "mysql": "db", "mongo": "mongo", "redis": "cache", "amqp": "queue"}[k]
        entries.append(("debug", label, "connecting to " + a + M(p) + b))
        entries.append(("info", label, ch(["connected", "connection established", f"pool ready size={ri(2, 20)}"])))
    entries.append(("info", "http", f"listening on :{ch([8080, 3000, 8000])}"))
    entries.append(("warn", "http", "TRUST_PROXY not set, X-Forwarded-For ignored"))
    out = []
    for lvl, comp, msg in entries:
        t = plus(t, 0, 2)
        if style == 0:
            out.append(f"{iso(t)} {lvl:<5} [{comp}] {msg}")
        elif style == 1:
            out.append(json.dumps({"level": lvl, "time": int(epoch(t) * 1000 + ri(0, 999)), "pid": ri(1, 99), "hostname": f"{svc}-{pod_suffix()}", "component": comp, "msg": msg}, ensure_ascii=False))
        else:
            out.append(f"{t.strftime('%Y-%m-%d %H:%M:%S')},{ri(100, 999)} {lvl.upper():<7} {svc}.{comp}: {msg}")
    c = ch([f"docker logs --tail 20 {svc}-api-1", f"kubectl logs deploy/{svc} --tail=20", "npm run start", f"journalctl -u {svc} -n 20 -o cat"])
    return cmdline(c) + "\n".join(out)


@P
def redis_cli_config():
    host = ch(["cache.internal", "127.0.0.1", "redis-master.redis.svc", f"{my_proj()}-cache.{rs(6, LOW)}.ng.0001.use1.cache.amazonaws.com"])
    p1 = pw(ch(["alnum", "hex", "b64"]))
    p2 = pw(ch(["alnum", "hex"]))
    lines = []
    auth = ch([f"-a '{M(p1)}' --no-auth-warning", "--askpass"])
    lines.append(prompt() + f"redis-cli -h {host} {auth} CONFIG GET requirepass")
    if "askpass" in auth:
        lines.append("Please input password: ****************")
    lines += ["1) \"requirepass\"", f"2) \"{M(p1)}\""]
    if coin():
        lines += [prompt() + f"redis-cli -h {host} {auth} CONFIG GET masterauth", "1) \"masterauth\"", f"2) \"{M(p1)}\""]
    lines.append(prompt() + f"redis-cli -h {host} {auth} ACL LIST")
    lines += ["1) \"user default on sanitize-payload #" + hashlib.sha256(p1.encode()).hexdigest() + " ~* &* +@all\"",
              f"2) \"user {ch(['worker', 'sidekiq', 'celery'])} on sanitize-payload #{sha256()} ~queue:* resetchannels -@all +@list +@connection\""]
    if coin():
        lines += [prompt() + f"redis-cli -h {host} {auth} ACL SETUSER reporter on '>{M(p2)}' '~stats:*' '+get'", "OK"]
    return "\n".join(lines)


@P
def terraform_plan():
    fn = my_proj()
    k = ri(0, 2)
    out = [f"{ch(['module.app.', ''])}aws_iam_role.{fn.replace('-', '_')}: Refreshing state... [id={fn}-lambda-role]",
           f"data.aws_caller_identity.current: Reading...", f"data.aws_caller_identity.current: Read complete after 0s [id={aws_acct()}]", "",
           "Terraform used the selected providers to generate the following execution plan. Resource actions are indicated",
           "with the following symbols:", "  ~ update in-place" if k < 2 else "-/+ destroy and then create replacement", "",
           "Terraform will perform the following actions:", ""]
    if k == 0:
        out += [f"  # aws_lambda_function.{fn.replace('-', '_')} will be updated in-place",
                f"  ~ resource \"aws_lambda_function\" \"{fn.replace('-', '_')}\" {{", f"        id                             = \"{fn}\"",
                f"      ~ last_modified                  = \"{iso(rtime(), z=False)}+0000\" -> (known after apply)",
                "        # (24 unchanged attributes hidden)", "", "      ~ environment {", "          ~ variables = {"]
        vs = vendor_env(ri(1, 2))
        out.append(f"              + \"{vs[0][0]}\" = \"{M(vs[0][1])}\"")
        if len(vs) > 1:
            newv = dict(VENDOR_ENV)[vs[1][0]]()
            out.append(f"              ~ \"{vs[1][0]}\" = \"{M(vs[1][1])}\" -> \"{M(newv)}\"")
        out += ["                \"LOG_LEVEL\"    = \"info\"", "            }", "        }", "", "        # (3 unchanged blocks hidden)", "    }"]
    elif k == 1:
        p = pw(ch(["alnum", "punct"]))
        out += [f"  # helm_release.{fn.replace('-', '_')} will be updated in-place", f"  ~ resource \"helm_release\" \"{fn.replace('-', '_')}\" {{",
                f"        id                         = \"{fn}\"", f"        name                       = \"{fn}\"",
                "        # (27 unchanged attributes hidden)", "", "      + set {", "          + name  = \"postgresql.auth.password\"",
                f"          + value = \"{M(p)}\"", "        }", "      + set {", "          + name  = \"secrets.slackWebhookToken\"",
                f"          + value = \"{M(slack_bot())}\"", "        }", "", "        # (6 unchanged blocks hidden)", "    }"]
    else:
        env = vendor_env(2)
        cdef = json.dumps([{"environment": [{"name": n, "value": "@@%d@@" % i} for i, (n, v) in enumerate(env)] + [{"name": "PORT", "value": "8080"}],
                            "essential": True, "image": f"{aws_acct()}.dkr.ecr.{ch(REGIONS)}.amazonaws.com/{fn}:{short()}", "name": fn}])
        for i, (n, v) in enumerate(env):
            cdef = cdef.replace("@@%d@@" % i, M(v))
        cdef = cdef.replace('"', '\\"')
        out += [f"  # aws_ecs_task_definition.{fn.replace('-', '_')} must be replaced", f"-/+ resource \"aws_ecs_task_definition\" \"{fn.replace('-', '_')}\" {{",
                f"      ~ arn                      = \"arn:aws:ecs:{ch(REGIONS)}:{aws_acct()}:task-definition/{fn}:{ri(2, 90)}\" -> (known after apply)",
                f"      ~ container_definitions    = \"{cdef}\" # forces replacement",
                f"        family                   = \"{fn}\"", "        # (9 unchanged attributes hidden)", "    }"]
    out += ["", f"Plan: 0 to add, 1 to change, 0 to destroy." if k < 2 else "Plan: 1 to add, 0 to change, 1 to destroy.", "",
            "─" * 77, "", "Note: You didn't use the -out option to save this plan, so Terraform can't guarantee to take exactly these",
            "actions if you run \"terraform apply\" now."]
    return cmdline("terraform plan" + ch(["", " -var-file=prod.tfvars", " -target=module.app"])) + "\n".join(out)


@P
def terraform_output_json():
    acct = aws_acct()
    outs = {
        "db_endpoint": {"sensitive": False, "type": "string", "value": f"{my_proj()}-prod.c{hx(10)}.{ch(REGIONS)}.rds.amazonaws.com:5432"},
        "db_password": {"sensitive": True, "type": "string", "value": pw(ch(["alnum", "punct"]))},
        "ci_access_key_id": {"sensitive": False, "type": "string", "value": aws_akid()},
        "ci_secret_access_key": {"sensitive": True, "type": "string", "value": aws_secret()},
        "cluster_name": {"sensitive": False, "type": "string", "value": f"{my_org()}-prod"},
        "vpc_id": {"sensitive": False, "type": "string", "value": "vpc-" + hx(17)},
    }
    if coin():
        outs["grafana_sa_token"] = {"sensitive": True, "type": "string", "value": "glsa_" + rs(32, ALNUM) + "_" + hx(8)}
    if coin():
        outs["bucket_arn"] = {"sensitive": False, "type": "string", "value": f"arn:aws:s3:::{my_org()}-artifacts-{acct}"}
    outs = dict(sorted(outs.items()))
    txt = json.dumps(outs, indent=2)
    secrets = [v["value"] for k, v in outs.items() if v["sensitive"] or k.endswith("access_key_id")]
    return cmdline(ch(["terraform output -json", "terraform -chdir=infra/prod output -json"])) + mark_json_values(txt, secrets)


@P
def ci_yaml_inline():
    k = ri(0, 3)
    p = my_proj()
    if k == 0:
        f = ".gitlab-ci.yml"
        lines = ["stages:", "  - test", "  - build", "  - deploy", "", "variables:", "  DOCKER_DRIVER: overlay2",
                 f"  SONAR_TOKEN: \"{M(sonar_tok())}\"", f"  SONAR_HOST_URL: \"https://sonar.{domain()}\"", "",
                 "test:", "  stage: test", "  image: node:20", "  script:", "    - npm ci", "    - npm test", "",
                 "deploy:", "  stage: deploy", "  image: alpine:3.19", "  script:",
                 f"    - apk add --no-cache curl", f"    - curl -X POST -H \"Authorization: Bearer {M(do_tok())}\" https://api.digitalocean.com/v2/apps/{uuid4()}/deployments",
                 "  only:", "    - main"]
    elif k == 1:
        f = "bitbucket-pipelines.yml"
        lines = [f"image: python:3.12", "", "pipelines:", "  branches:", "    main:", "      - step:", "          name: Test",
                 "          caches:", "            - pip", "          script:", "            - pip install -r requirements.txt", "            - pytest -q",
                 "      - step:", "          name: Publish", "          script:",
                 f"            - export TWINE_PASSWORD={M(pypi_tok())}", "            - python -m build", "            - twine upload -u __token__ dist/*"]
    elif k == 2:
        f = ".circleci/config.yml"
        lines = ["version: 2.1", "jobs:", "  build:", "    docker:", "      - image: cimg/node:20.11",
                 "        auth:", f"          username: {me()}", f"          password: {M(dckr_pat())}",
                 "    environment:", f"      CYPRESS_RECORD_KEY: {M(uuid4())}", f"      CODECOV_TOKEN: {M(uuid4())}",
                 "    steps:", "      - checkout", "      - run: npm ci", "      - run: npx cypress run --record", "workflows:", "  main:",
                 "    jobs:", "      - build"]
    else:
        f = ".github/workflows/nightly.yml"
        lines = ["name: nightly", "on:", "  schedule:", "    - cron: '0 3 * * *'", "  workflow_dispatch:", "", "env:",
                 f"  SLACK_BOT_TOKEN: {M(slack_bot())}", f"  ALGOLIA_ADMIN_KEY: {M(hx(32))}", f"  ALGOLIA_APP_ID: {rs(10, UP + DIG)}",
                 "", "jobs:", "  reindex:", "    runs-on: ubuntu-latest", "    steps:", "      - uses: actions/checkout@v4",
                 "      - uses: actions/setup-node@v4", "        with:", "          node-version: 20", "      - run: npm ci",
                 "      - run: node scripts/reindex.js"]
    return cmdline(f"cat {f}") + "\n".join(lines)


@P
def makefile_dry_run():
    p = my_proj()
    tag = short()
    reg = ch([f"registry.gitlab.com/{my_org()}/{p}", f"ghcr.io/{my_org()}/{p}", f"{aws_acct()}.dkr.ecr.{ch(REGIONS)}.amazonaws.com/{p}"])
    lines = [f"docker build -t {reg}:{tag} --build-arg GIT_SHA={sha1()} ."]
    k = ri(0, 1)
    if k == 0:
        lines.append(f"echo \"{M(glpat())}\" | docker login registry.gitlab.com -u {me()} --password-stdin")
    else:
        lines.append(f"docker login ghcr.io -u {me()} -p {M(gh_pat())}")
    lines.append(f"docker push {reg}:{tag}")
    lines.append(f"helm upgrade --install {p} ./charts/{p} --namespace {ch(['prod', 'staging'])} --set image.tag={tag} "
                 f"--set secrets.stripeKey={M(stripe_sk())} --set postgresql.auth.password={M(pw(safe=True))} --wait --timeout 5m")
    if coin():
        lines.append(f"curl -fsS -X POST -H \"Authorization: Bearer {M(rs(40, ALNUM))}\" -d '{{\"version\":\"{tag}\"}}' https://deploys.{domain()}/api/releases")
    else:
        lines.append(f"sentry-cli --auth-token {M(sentry_user_tok())} releases new {p}@{tag}")
    return cmdline("make -n deploy") + "\n".join(lines)


@P
def ansible_verbose():
    hosts = [f"web{i}" for i in range(1, ri(2, 4))]
    cfg = f"/home/{me()}/{ch(['infra', 'ansible', 'ops/ansible'])}/ansible.cfg"
    out = [f"ansible-playbook [core 2.{ri(14, 17)}.{ri(0, 9)}]", f"  config file = {cfg}",
           f"  configured module search path = ['/home/{me()}/.ansible/plugins/modules', '/usr/share/ansible/plugins/modules']",
           "  python version = 3.11.7 (main, Dec  8 2023, 18:56:58) [GCC 11.4.0]", f"Using {cfg} as config file", "",
           f"PLAY [{ch(['app servers', 'webservers', 'deploy api'])}] *****************************************************", "",
           "TASK [Gathering Facts] *************************************************************"]
    for h in hosts:
        out.append(f"ok: [{h}]")
    k = ri(0, 2)
    if k == 0:
        line = f"API_KEY={ch([stripe_sk(), openai_key(), hx(40)])}"
        out += ["", "TASK [app : write env file] ********************************************************"]
        for h in hosts:
            d = {"backup": "", "changed": True, "diff": [], "invocation": {"module_args": {"create": True, "line": "@@L@@", "path": "/etc/app/app.env", "regexp": "^API_KEY=", "state": "present"}}, "msg": "line added"}
            out.append(f"changed: [{h}] => " + json.dumps(d).replace("@@L@@", "API_KEY=" + M(line.split('=', 1)[1])))
    elif k == 1:
        tok = ch([gh_pat(), do_tok(), cf_tok()])
        out += ["", "TASK [register runner with API] ****************************************************"]
        for h in hosts:
            d = {"changed": False, "invocation": {"module_args": {"body_format": "json", "headers": {"Authorization": "Bearer @@T@@"}, "method": "POST", "status_code": [200, 201], "url": f"https://api.{domain()}/v1/runners"}}, "status": 201}
            out.append(f"ok: [{h}] => " + json.dumps(d).replace("@@T@@", M(tok)))
    else:
        p = pw()
        out += ["", "TASK [debug db_password] *******************************************************************"]
        for h in hosts:
            out += [f"ok: [{h}] => {{", f"    \"db_password\": \"{M(p)}\"", "}"]
    out += ["", "PLAY RECAP *********************************************************************************"]
    for h in hosts:
        out.append(f"{h:<26}: ok={ri(3, 9)}    changed={ri(1 if k == 0 else 0, 3)}    unreachable=0    failed=0    skipped={ri(0, 2)}    rescued=0    ignored=0")
    return cmdline(f"ansible-playbook -i inventory/{ch(['prod', 'staging'])}.ini site.yml -v") + "\n".join(out)


@P
def cloud_init_userdata():
    srv = ip_priv()
    lines = ["#cloud-config", "package_update: true", "packages:", "  - curl", "  - jq", "", "write_files:",
             "  - path: /etc/default/app", "    permissions: '0600'", "    content: |"]
    for n, v in noise_env(2):
        lines.append(f"      {n}={v}")
    for n, v in vendor_env(ri(1, 2)):
        lines.append(f"      {n}={M(v)}")
    lines += ["", "runcmd:"]
    k = ri(0, 2)
    if k in (0, 2):
        lines.append(f"  - curl -sfL https://get.k3s.io | K3S_URL=https://{srv}:6443 K3S_TOKEN={M(k3s_token())} sh -s - agent")
    if k in (1, 2):
        lines += ["  - curl -fsSL https://tailscale.com/install.sh | sh",
                  f"  - tailscale up --authkey={M(tailscale_key())} --ssh --advertise-tags=tag:{ch(['server', 'ci', 'prod'])}"]
    lines.append("  - systemctl enable --now app.service")
    c = ch(["sudo cat /var/lib/cloud/instance/user-data.txt", "sudo cloud-init query userdata",
            f"aws ec2 describe-instance-attribute --instance-id i-{hx(17)} --attribute userData --query UserData.Value --output text | base64 -d"])
    return cmdline(c) + "\n".join(lines)


@P
def kubeadm_join():
    t1 = rs(6, LOW + DIG) + "." + rs(16, LOW + DIG)
    t2 = rs(6, LOW + DIG) + "." + rs(16, LOW + DIG)
    ca = sha256()
    ep = f"{ip_priv()}:6443"
    out = [prompt(u="root") + "kubeadm token create --print-join-command",
           f"kubeadm join {ep} --token {M(t1)} --discovery-token-ca-cert-hash sha256:{ca} "]
    if coin():
        ck = hx(64)
        out += [prompt(u="root") + "kubeadm init phase upload-certs --upload-certs",
                "[upload-certs] Storing the certificates in Secret \"kubeadm-certs\" in the \"kube-system\" Namespace",
                "[upload-certs] Using certificate key:", M(ck)]
    t = rtime()
    out += [prompt(u="root") + "kubeadm token list",
            "TOKEN                     TTL         EXPIRES                USAGES                   DESCRIPTION                                                EXTRA GROUPS",
            f"{M(t2)}   {ri(1, 23)}h         {iso(t, ms=False)}   authentication,signing   The default bootstrap token generated by 'kubeadm init'.   system:bootstrappers:kubeadm:default-node-token",
            f"{M(t1)}   23h         {iso(plus(t, 3600, 7200), ms=False)}   authentication,signing   <none>                                                     system:bootstrappers:kubeadm:default-node-token"]
    return "\n".join(out)


@P
def wireguard_conf():
    iface = ch(["wg0", "wg1", "home", "office"])
    lines = ["[Interface]", f"Address = 10.{ri(0, 255)}.{ri(0, 255)}.{ri(1, 9)}/24", f"ListenPort = {ch([51820, 51821, 41641])}",
             f"PrivateKey = {M(wg_priv())}"]
    if coin():
        lines += ["PostUp = iptables -A FORWARD -i %i -j ACCEPT; iptables -t nat -A POSTROUTING -o eth0 -j MASQUERADE",
                  "PostDown = iptables -D FORWARD -i %i -j ACCEPT; iptables -t nat -D POSTROUTING -o eth0 -j MASQUERADE"]
    for i in range(ri(1, 3)):
        lines += ["", f"# {ch(['laptop', 'phone', 'nas', 'office-gw', 'ci-runner'])}-{me()}", "[Peer]", f"PublicKey = {wg_pub()}"]
        if coin(0.6):
            lines.append(f"PresharedKey = {M(b64(32))}")
        lines.append(f"AllowedIPs = 10.{ri(0, 255)}.{ri(0, 255)}.{ri(2, 250)}/32")
        if coin():
            lines += [f"Endpoint = {ip_pub()}:{ch([51820, 51820, 443])}", "PersistentKeepalive = 25"]
    return cmdline(f"sudo cat /etc/wireguard/{iface}.conf", u="root") + "\n".join(lines)


@P
def sops_decrypt():
    f = ch(["secrets/prod.enc.yaml", "deploy/secrets.sops.yaml", "k8s/overlays/prod/secrets.enc.yaml"])
    if coin(0.6):
        lines = ["database:", f"    host: {ch(['pg.internal', 'postgres-primary'])}", f"    user: {ch(['app', 'svc'])}",
                 f"    password: {M(pw(ch(['alnum', 'hex', 'punct'])))}", "stripe:", f"    secret_key: {M(stripe_sk())}",
                 f"    webhook_secret: {M(whsec_dash())}", "jwt:", f"    signing_key: {M(b64(64))}"]
        if coin():
            lines += ["smtp:", "    username: apikey", f"    password: {M(sendgrid())}"]
        return cmdline(f"sops -d {f}") + "\n".join(lines)
    items = vendor_env(ri(3, 4))
    return cmdline(f"sops -d --output-type dotenv {f}") + "\n".join(f"{n}={M(v)}" for n, v in items)


@P
def aws_export_credentials():
    prof = ch([my_org() + "-prod", "default", "admin", my_org() + "-sandbox"])
    akid, sec, tok = aws_akid("ASIA"), aws_secret(), aws_session()
    exp = rtime()
    if coin():
        out = (cmdline(f"aws configure export-credentials --profile {prof} --format env") +
               f"export AWS_ACCESS_KEY_ID={M(akid)}\nexport AWS_SECRET_ACCESS_KEY={M(sec)}\nexport AWS_SESSION_TOKEN={M(tok)}\n"
               f"export AWS_CREDENTIAL_EXPIRATION={iso(exp, ms=False)[:-1]}+00:00")
    else:
        out = (cmdline(f"aws configure export-credentials --profile {prof}") +
               "{\n" + f'  "Version": 1,\n  "AccessKeyId": "{M(akid)}",\n  "SecretAccessKey": "{M(sec)}",\n'
               f'  "SessionToken": "{M(tok)}",\n  "Expiration": "{iso(exp, ms=False)[:-1]}+00:00"\n' + "}")
    if coin():
        acct, who = aws_acct(), email(me())
        out += "\n" + prompt() + f"aws sts get-caller-identity --profile {prof}\n" + json.dumps(
            {"UserId": "AROA" + rs(17, UP + "234567") + ":" + who, "Account": acct,
             "Arn": f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_AdministratorAccess_{hx(16)}/{who}"}, indent=4)
    return out


@P
def az_access_token():
    tenant = uuid4()
    t = rtime()
    pl = {"aud": ch(["https://management.azure.com/", "https://graph.microsoft.com", "https://vault.azure.net"]),
          "iss": f"https://sts.windows.net/{tenant}/", "iat": epoch(t), "nbf": epoch(t), "exp": epoch(t) + 4800,
          "acr": "1", "aio": rs(60, ALNUM + "/+") + "=", "amr": ["pwd", "mfa"], "appid": "04b07795-8ddb-461a-bbee-02f9e1bf7b46",
          "family_name": full().split()[1], "given_name": full().split()[0], "oid": uuid4(), "puid": "1003" + HX(12),
          "scp": "user_impersonation", "sub": b64u(32), "tid": tenant, "unique_name": email(), "ver": "1.0"}
    hdr = {"typ": "JWT", "alg": "RS256", "x5t": b64u(20), "kid": b64u(20)}
    tok = b64ue(json.dumps(hdr, separators=(",", ":")).encode()) + "." + b64ue(json.dumps(pl, separators=(",", ":")).encode()) + "." + b64u(256)
    obj = {"accessToken": "@@T@@", "expiresOn": (t + dt.timedelta(seconds=4800)).strftime("%Y-%m-%d %H:%M:%S.%f"),
           "expires_on": epoch(t) + 4800, "subscription": uuid4(), "tenant": tenant, "tokenType": "Bearer"}
    txt = json.dumps(obj, indent=2).replace("@@T@@", M(tok))
    return cmdline(f"az account get-access-token" + ch(["", " --resource https://graph.microsoft.com", " -o json"])) + txt


@P
def mc_alias_list():
    blocks = [("gcs", "https://storage.googleapis.com", "YOUR-ACCESS-KEY-HERE", "YOUR-SECRET-KEY-HERE", "S3v2", False, False),
              ("local", "http://localhost:9000", ch(["minioadmin", "admin", "minio"]), pw(ch(["alnum", "hex"])), "s3v4", False, True)]
    if coin():
        blocks.append((ch(["prod", "backup", "wasabi"]), ch(["https://s3.amazonaws.com", f"https://s3.{ch(REGIONS)}.wasabisys.com"]),
                       aws_akid(), aws_secret(), "s3v4", True, True))
    else:
        blocks.append((ch(["r2", "cf"]), f"https://{hx(32)}.r2.cloudflarestorage.com", hx(32), hx(64), "s3v4", True, True))
    blocks.append(("s3", "https://s3.amazonaws.com", "YOUR-ACCESS-KEY-HERE", "YOUR-SECRET-KEY-HERE", "S3v4", False, False))
    out = []
    for name, url, ak, sk, api, mark_ak, mark_sk in blocks:
        out += [name, f"  URL       : {url}", f"  AccessKey : {M(ak) if mark_ak else ak}", f"  SecretKey : {M(sk) if mark_sk else sk}",
                f"  API       : {api}", f"  Path      : {ch(['auto', 'dns'])}", ""]
    return cmdline("mc alias list") + "\n".join(out).rstrip()


@P
def stripe_listen():
    t = rtime()
    port = ch([4242, 3000, 8000, 5000])
    path = ch(["/webhook", "/api/webhooks/stripe", "/stripe/webhook", "/webhooks"])
    out = [f"> Ready! You are using Stripe API Version [{ch(['2024-06-20', '2023-10-16', '2025-02-24.acacia'])}]. Your webhook signing secret is {M('whsec_' + hx(64))} (^C to quit)"]
    evs = ["payment_intent.created", "payment_intent.succeeded", "charge.succeeded", "customer.created", "checkout.session.completed",
           "invoice.paid", "customer.subscription.created"]
    for _ in range(ri(3, 7)):
        t = plus(t, 0, 3)
        e = ch(evs)
        eid = "evt_" + rs(24, ALNUM)
        out.append(f"{t.strftime('%Y-%m-%d %H:%M:%S')}   --> {e} [{eid}]")
        out.append(f"{t.strftime('%Y-%m-%d %H:%M:%S')}  <--  [{ch([200, 200, 400, 500])}] POST http://localhost:{port}{path} [{eid}]")
    return cmdline(f"stripe listen --forward-to localhost:{port}{path}") + "\n".join(out)


@P
def rails_credentials():
    lines = ["# aws:", "#   access_key_id: 123", "#   secret_access_key: 345", "",
             f"secret_key_base: {M(hx(128))}", ""]
    if coin():
        lines += ["aws:", f"  access_key_id: {M(aws_akid())}", f"  secret_access_key: {M(aws_secret())}", f"  region: {ch(REGIONS)}", ""]
    lines += ["stripe:", f"  secret_key: {M(stripe_sk())}", f"  signing_secret: {M(whsec_dash())}", ""]
    if coin():
        lines += ["active_record_encryption:", f"  primary_key: {M(rs(32, ALNUM))}", f"  deterministic_key: {M(rs(32, ALNUM))}",
                  f"  key_derivation_salt: {M(rs(32, ALNUM))}", ""]
    else:
        lines += ["mailgun:", f"  api_key: {M(mailgun())}", f"  domain: mg.{domain()}", ""]
    out = cmdline(ch(["EDITOR=cat bin/rails credentials:show", "bin/rails credentials:show -e production", "RAILS_ENV=production bin/rails credentials:show"]))
    out += "\n".join(lines).rstrip()
    if coin(0.4):
        out += "\n" + prompt() + "cat config/master.key\n" + M(hx(32))
    return out


@P
def artisan_tinker():
    out = [f"Psy Shell v0.12.{ri(0, 4)} (PHP 8.{ri(2, 3)}.{ri(1, 12)} — cli) by Justin Hileman"]
    k = ri(0, 1)
    out += ["> config('services.stripe')", "= [", "    \"model\" => \"App\\\\Models\\\\User\",",
            f"    \"secret\" => \"{M(stripe_sk())}\",", "    \"webhook\" => [", f"      \"secret\" => \"{M(whsec_dash())}\",",
            "      \"tolerance\" => 300,", "    ],", "  ]", ""]
    out += ["> config('app.key')", f"= \"{M(laravel_key())}\"", ""]
    if k:
        out += ["> config('mail.mailers.smtp')", "= [", "    \"transport\" => \"smtp\",", f"    \"host\" => \"{ch(['smtp.mailgun.org', 'smtp.postmarkapp.com', 'email-smtp.eu-west-1.amazonaws.com'])}\",",
                "    \"port\" => 587,", "    \"encryption\" => \"tls\",", f"    \"username\" => \"{ch(['postmaster@mg.' + domain(), me()])}\",",
                f"    \"password\" => \"{M(pw())}\",", "    \"timeout\" => null,", "    \"local_domain\" => null,", "  ]", ""]
    else:
        out += ["> env('PUSHER_APP_SECRET')", f"= \"{M(hx(20))}\"", ""]
    out.append("> exit")
    out.append("")
    out.append("   INFO  Goodbye.")
    return cmdline("php artisan tinker") + "\n".join(out)


@P
def hf_token_cache():
    u = me()
    t1 = hf_tok()
    out = [prompt(u=u) + "cat ~/.cache/huggingface/token", M(t1)]
    out += [prompt(u=u) + ch(["huggingface-cli whoami", "hf auth whoami"]), u, f"orgs:  {','.join(sample(ORGS, ri(1, 3)))}"]
    if coin():
        out += [prompt(u=u) + "cat ~/.cache/huggingface/stored_tokens", "[default]", f"hf_token = {M(t1)}", "",
                f"[{ch(['ci-read', 'write', 'inference'])}]", f"hf_token = {M(hf_tok())}"]
    if coin(0.4):
        out += [prompt(u=u) + "ls -la ~/.cache/huggingface/", "total 16",
                f"drwxr-xr-x  4 {u} {u} 4096 {rtime().strftime('%b %d %H:%M')} .",
                f"drwxr-xr-x 12 {u} {u} 4096 {rtime().strftime('%b %d %H:%M')} ..",
                f"drwxr-xr-x  5 {u} {u} 4096 {rtime().strftime('%b %d %H:%M')} hub",
                f"-rw-------  1 {u} {u}   37 {rtime().strftime('%b %d %H:%M')} token"]
    return "\n".join(out)


@P
def git_credential_fill():
    u = me()
    out = []
    if coin(0.7):
        host = ch(["github.com", "github.com", f"gitlab.{domain()}", "gitlab.com"])
        tok = gh_oauth() if "github" in host else glpat()
        out += [prompt() + f"printf 'protocol=https\\nhost={host}\\n\\n' | git credential fill", "protocol=https", f"host={host}",
                f"username={u if 'github' in host else 'oauth2'}", f"password={M(tok)}"]
    out += [prompt() + "cat ~/.git-credentials"]
    for _ in range(ri(1, 3)):
        k = ri(0, 2)
        if k == 0:
            out.append(f"https://{u}:{M(gh_pat())}@github.com")
        elif k == 1:
            out.append(f"https://oauth2:{M(glpat())}@gitlab.{domain()}")
        else:
            out.append(f"https://{u}:{M(pw(safe=True))}@bitbucket.org")
    out += [prompt() + "git config --global --get credential.helper", ch(["store", "store --file ~/.git-credentials"])]
    return "\n".join(out)


@P
def netrc():
    u = me()
    e = email(u)
    blocks = []
    opts = [
        lambda: (lambda k: ["machine api.heroku.com", f"  login {e}", f"  password {M(k)}", "machine git.heroku.com", f"  login {e}", f"  password {M(k)}"])(uuid4()),
        lambda: [f"machine {my_org()}.atlassian.net", f"  login {e}", f"  password {M(atlassian_tok())}"],
        lambda: ["machine github.com", f"  login {u}", f"  password {M(gh_pat())}"],
        lambda: ["machine urs.earthdata.nasa.gov", f"  login {u}", f"  password {M(pw())}"],
        lambda: [f"machine artifactory.{domain()}", f"  login {u}", f"  password {M('AKCp' + rs(69, ALNUM))}"],
        lambda: ["machine api.wandb.ai", "  login user", f"  password {M(hx(40))}"],
    ]
    for g in sample(opts, ri(2, 4)):
        blocks += g()
    inline = coin(0.3)
    if inline:
        # single-line style some tools write
        out = []
        i = 0
        while i < len(blocks):
            m = blocks[i]
            lg = blocks[i + 1].strip()
            pw_ = blocks[i + 2].strip()
            out.append(f"{m} {lg} {pw_}")
            i += 3
        blocks = out
    return cmdline(ch(["cat ~/.netrc", "cat $HOME/.netrc"])) + "\n".join(blocks)


@P
def datadog_yaml():
    out = [prompt(u="root") + "grep -Ev '^\\s*(#|$)' /etc/datadog-agent/datadog.yaml",
           f"api_key: {M(datadog_api())}", f"site: {ch(['datadoghq.com', 'datadoghq.eu', 'us5.datadoghq.com'])}",
           f"hostname: {ch(HOSTS)}.{domain()}", "tags:", f"  - env:{ch(['prod', 'staging'])}", f"  - team:{ch(['platform', 'payments', 'data'])}",
           "logs_enabled: true", "apm_config:", "  enabled: true", "process_config:", "  process_collection:", "    enabled: true"]
    k = ri(0, 1)
    if k:
        out += [prompt(u="root") + "cat /etc/datadog-agent/conf.d/postgres.d/conf.yaml", "init_config:", "", "instances:",
                f"  - host: {ch(['localhost', 'pg-primary.internal'])}", "    port: 5432", "    username: datadog",
                f"    password: {M(pw(ch(['alnum', 'punct'])))}", "    dbm: true"]
    else:
        out += [prompt() + "cat ~/.dogrc", "[Connection]", f"apikey = {M(datadog_api())}", f"appkey = {M(datadog_app())}",
                f"api_host = https://api.{ch(['datadoghq.com', 'datadoghq.eu'])}"]
    return "\n".join(out)


@P
def sentry_dsn():
    o = my_org()
    key = hx(32)
    dsn_host = f"o{ri(100000, 4999999)}.ingest.{ch(['', 'us.', 'de.'])}sentry.io"
    pid = str(ri(4000000000000000, 4509999999999999))
    k = ri(0, 2)
    if k == 0:
        out = [prompt() + "cat sentry.client.config.ts", "import * as Sentry from \"@sentry/nextjs\";", "", "Sentry.init({",
               f"  dsn: \"https://{M(key)}@{dsn_host}/{pid}\",", f"  tracesSampleRate: {ch(['0.1', '1.0', '0.2'])},",
               "  replaysOnErrorSampleRate: 1.0,", "  debug: false,", "});"]
    elif k == 1:
        out = [prompt() + "cat sentry.properties", "defaults.url=https://sentry.io/", f"defaults.org={o}", f"defaults.project={my_proj()}",
               f"auth.token={M(sentry_org_tok(o))}", "", prompt() + "grep -rn SENTRY_DSN .env*",
               f".env.production:4:SENTRY_DSN=https://{M(key)}@{dsn_host}/{pid}"]
    else:
        out = [prompt() + "python -c 'import app.settings as s; print(s.SENTRY)'",
               "{" + f"'dsn': 'https://{M(key)}@{dsn_host}/{pid}', 'environment': '{ch(['production', 'staging'])}', 'traces_sample_rate': 0.05, 'send_default_pii': False" + "}"]
    return "\n".join(out)


@P
def android_key_properties():
    sp = pw(ch(["alnum", "punct", "short"]))
    kp = sp if coin() else pw(ch(["alnum", "short"]))
    out = [prompt() + "cat android/key.properties", f"storePassword={M(sp)}", f"keyPassword={M(kp)}",
           f"keyAlias={ch(['upload', 'release', 'key0', my_proj()])}", f"storeFile={ch(['../upload-keystore.jks', '/Users/' + me() + '/keys/release.jks', 'release.keystore'])}"]
    if coin():
        out += [prompt() + "cat android/local.properties", f"sdk.dir=/Users/{me()}/Library/Android/sdk",
                f"flutter.sdk=/Users/{me()}/fvm/versions/3.{ri(16, 24)}.{ri(0, 9)}", f"MAPS_API_KEY={M(google_api_key())}"]
    else:
        n0 = ri(40, 80)
        out += [prompt() + "grep -n -A6 'signingConfigs' android/app/build.gradle", f"{n0}:    signingConfigs {{",
                f"{n0 + 1}-        release {{", f"{n0 + 2}-            storeFile file(\"release.keystore\")",
                f"{n0 + 3}-            storePassword \"{M(sp)}\"", f"{n0 + 4}-            keyAlias \"release\"",
                f"{n0 + 5}-            keyPassword \"{M(kp)}\"", f"{n0 + 6}-        }}"]
    return "\n".join(out)


@P
def vscode_launch():
    p = my_proj()
    a, pwd, b = db_url(kind="postgres", host="localhost")
    env = {"NODE_ENV": "development", "DATABASE_URL": "@@DB@@"}
    secrets = []
    for n, v in vendor_env(ri(1, 3)):
        env[n] = v
        secrets.append(v)
    conf = ch([("node", "launch", "Debug API", {"program": "${workspaceFolder}/src/server.ts", "runtimeArgs": ["-r", "ts-node/register"]}),
               ("debugpy", "launch", "Python: FastAPI", {"module": "uvicorn", "args": ["app.main:app", "--reload"], "jinja": True}),
               ("go", "launch", "Launch server", {"mode": "auto", "program": "${workspaceFolder}/cmd/server"})])
    c = {"type": conf[0], "request": conf[1], "name": conf[2]}
    c.update(conf[3])
    c["env"] = env
    body = json.dumps({"version": "0.2.0", "configurations": [c]}, indent=4)
    body = body.replace("@@DB@@", json.dumps(a)[1:-1] + M(pwd) + json.dumps(b)[1:-1])
    body = mark_json_values(body, secrets)
    lines = body.split("\n")
    lines.insert(1, "    // Use IntelliSense to learn about possible attributes.")
    lines.insert(2, "    // For more information, visit: https://go.microsoft.com/fwlink/?linkid=830387")
    return cmdline("cat .vscode/launch.json") + "\n".join(lines)


@P
def playwright_storage():
    d = ch(["localhost", "staging." + domain(), "app." + domain()])
    t = rtime()
    sess = ch([jwe(), b64u(32), hx(64), "s%3A" + rs(32, ALNUM + "-_") + "." + b64(32).rstrip("=")])
    cname = ch(["__Secure-next-auth.session-token", "session", "connect.sid", "_app_session", "sessionid"])
    cookies = [{"name": cname, "value": "@@S@@", "domain": d, "path": "/", "expires": epoch(t) + 30 * 86400 + 0.5,
                "httpOnly": True, "secure": d != "localhost", "sameSite": "Lax"},
               {"name": "_ga", "value": f"GA1.1.{ri(10**8, 10**9)}.{epoch(t)}", "domain": "." + d, "path": "/",
                "expires": epoch(t) + 400 * 86400, "httpOnly": False, "secure": False, "sameSite": "Lax"},
               {"name": "theme", "value": ch(["dark", "light"]), "domain": d, "path": "/", "expires": -1, "httpOnly": False, "secure": False, "sameSite": "Lax"}]
    R.shuffle(cookies)
    origins = []
    secrets = [sess]
    if coin():
        at = user_jwt(iss=f"https://{rs(20, LOW)}.supabase.co/auth/v1")
        rt = rs(12, ALNUM) if coin() else b64u(16)
        val = json.dumps({"access_token": at, "token_type": "bearer", "expires_in": 3600, "refresh_token": rt, "user": {"id": uuid4(), "email": email()}}, separators=(",", ":"))
        origins = [{"origin": f"http{'s' if d != 'localhost' else ''}://{d}" + (":3000" if d == "localhost" else ""),
                    "localStorage": [{"name": f"sb-{rs(20, LOW)}-auth-token", "value": val}]}]
        secrets += [at, rt]
    body = json.dumps({"cookies": cookies, "origins": origins}, indent=2).replace("@@S@@", M(sess))
    for s_ in secrets[1:]:
        enc = json.dumps(s_)[1:-1]
        body = body.replace(enc, M(enc), 1)
    return cmdline(ch(["cat playwright/.auth/user.json", "cat e2e/.auth/admin.json", "cat tests/.auth/storageState.json"])) + body


@P
def openssh_key_read():
    u = me()
    h = ch(HOSTS)
    comment = ch([f"{u}@{h}", f"deploy@{my_proj()}", f"{email(u)}", f"github-actions-{my_proj()}"])
    if coin(0.65):
        body, pub = openssh_ed25519(comment)
        fname = ch(["id_ed25519", "deploy_key", f"{my_proj()}_deploy", "id_ed25519_github"])
    else:
        body, pub = openssh_rsa(comment)
        fname = ch(["id_rsa", "deploy_rsa"])
    lines = ["-----BEGIN OPENSSH PRIVATE KEY-----"] + [M(l) for l in body] + ["-----END OPENSSH PRIVATE KEY-----"]
    style = ch(["arrow", "cat"])
    path = ch([f"/home/{u}/.ssh/{fname}", f"/Users/{u}/.ssh/{fname}", f"/workspace/{my_proj()}/.ci/{fname}"])
    if style == "arrow":
        out = ch(["", f"● Read({path})\n  ⎿  Read {len(lines)} lines\n\n"]) + numbered(lines, "arrow")
    else:
        out = cmdline(f"cat -n {path}") + numbered(lines, "cat")
    if coin(0.5):
        out += "\n" + prompt() + f"ssh-keygen -y -f {path}\n{pub}"
    return out


@P
def pgp_export():
    f = full()
    e = email(f.split()[0].lower())
    t = rtime()
    fpr = HX(40)
    out = [prompt() + "gpg --list-secret-keys --keyid-format=long", f"/home/{me()}/.gnupg/pubring.kbx",
           "-" * (len(me()) + 26),
           f"sec   ed25519/{fpr[-16:]} {t.strftime('%Y-%m-%d')} [SC]", f"      {fpr}", f"uid                 [ultimate] {f} <{e}>",
           f"ssb   cv25519/{HX(16)} {t.strftime('%Y-%m-%d')} [E]", "",
           prompt() + f"gpg --export-secret-keys --armor {fpr[-16:]}" + ch(["", " > /tmp/key.asc && cat /tmp/key.asc"]),
           M(pgp_secret_block(f"{f} <{e}>", t))]
    return "\n".join(out)


@P
def gsa_dict_repr():
    proj_id = f"{my_proj()}-{ri(100000, 999999)}"
    sa = f"{ch(['ci-deployer', 'terraform', 'bq-reader', 'firebase-adminsdk-' + rs(5, LOW + DIG)])}@{proj_id}.iam.gserviceaccount.com"
    key = pem("PRIVATE KEY", rsa_pkcs8()).replace("\n", "\\n") + "\\n"
    key_marked = M(key[:-2]) + "\\n"
    d = ("{'type': 'service_account', 'project_id': '" + proj_id + "', 'private_key_id': '" + hx(40) + "', "
         "'private_key': '" + key_marked + "', 'client_email': '" + sa + "', 'client_id': '" + str(ri(10**20, 10**21 - 1)) + "', "
         "'auth_uri': 'https://accounts.google.com/o/oauth2/auth', 'token_uri': 'https://oauth2.googleapis.com/token', "
         "'auth_provider_x509_cert_url': 'https://www.googleapis.com/oauth2/v1/certs', "
         "'client_x509_cert_url': 'https://www.googleapis.com/robot/v1/metadata/x509/" + sa.replace("@", "%40") + "', "
         "'universe_domain': 'googleapis.com'}")
    k = ri(0, 1)
    if k == 0:
        pre = [">>> import json, os", ">>> creds = json.loads(os.environ['GOOGLE_CREDENTIALS'])", ">>> creds"]
        return "\n".join(pre) + "\n" + d
    pre = ["Traceback (most recent call last):", f"  File \"/app/{my_proj().replace('-', '_')}/storage.py\", line {ri(20, 90)}, in <module>",
           "    client = storage.Client.from_service_account_info(info)",
           "  File \"/usr/local/lib/python3.11/site-packages/google/cloud/client/__init__.py\", line 106, in from_service_account_info",
           "    credentials = service_account.Credentials.from_service_account_info(info)",
           "ValueError: Service account info was not in the expected format, missing fields token_uri."]
    return (cmdline("python scripts/debug_gcs.py") + "DEBUG loaded service account info: " + d + "\n" + "\n".join(pre))


@P
def azure_sas_url():
    acct = f"{my_org()}{ch(['prod', 'data', 'st', 'backup'])}{ri(1, 99)}"
    t = rtime()
    se = (t + dt.timedelta(days=ri(1, 30))).strftime("%Y-%m-%dT%H:%MZ")
    cont = ch(["exports", "backups", "uploads", "ml-data"])
    blob = ch([f"{t.strftime('%Y/%m/%d')}/report.csv", "db/prod.bak", f"models/{my_proj()}.onnx"])
    out = []
    if coin():
        out += [prompt() + f"az storage blob generate-sas --account-name {acct} -c {cont} -n {blob} --permissions r --expiry {se} --https-only --full-uri -o tsv",
                f"https://{acct}.blob.core.windows.net/{cont}/{blob}?se={se.replace(':', '%3A')}&sp=r&spr=https&sv=2022-11-02&sr=b&sig={M(az_sas_sig())}"]
    else:
        out += [prompt() + f"az storage container generate-sas --account-name {acct} -n {cont} --permissions rl --expiry {se} -o json",
                f"\"se={se.replace(':', '%3A')}&sp=rl&sv=2022-11-02&sr=c&sig={M(az_sas_sig())}\""]
    if coin(0.6):
        g = ch(["rg-" + my_proj(), "rg-data-prod", my_org() + "-shared"])
        out += [prompt() + f"az storage account keys list -g {g} -n {acct} -o table",
                "CreationTime                      KeyName    Permissions    Value",
                "--------------------------------  ---------  -------------  " + "-" * 88,
                f"{iso(rtime(), z=False)}000+00:00  key1       FULL           {M(az_storage_key())}",
                f"{iso(rtime(), z=False)}000+00:00  key2       FULL           {M(az_storage_key())}"]
    return "\n".join(out)


@P
def bot_source():
    k = ri(0, 2)
    if k == 0:
        tok = discord_bot()
        lines = ["import discord", "from discord.ext import commands", "", "intents = discord.Intents.default()",
                 "intents.message_content = True", "bot = commands.Bot(command_prefix=\"!\", intents=intents)", "",
                 f"GUILD_ID = {ri(10**17, 13 * 10**17)}", f"TOKEN = \"{M(tok)}\"", "", "", "@bot.event", "async def on_ready():",
                 "    print(f\"logged in as {bot.user} ({bot.user.id})\")", "", "", "@bot.command()", "async def ping(ctx):",
                 "    await ctx.send(\"pong\")", "", "", "if __name__ == \"__main__\":", "    bot.run(TOKEN)"]
        f = "bot/main.py"
    elif k == 1:
        tok = telegram_bot()
        lines = ["import logging", "from telegram import Update", "from telegram.ext import Application, CommandHandler, ContextTypes", "",
                 "logging.basicConfig(level=logging.INFO)", "", f"BOT_TOKEN = \"{M(tok)}\"", f"ADMIN_CHAT_ID = {ri(10**8, 10**10)}", "", "",
                 "async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:",
                 "    await update.message.reply_text(\"hi! send /status\")", "", "",
                 "def main() -> None:", "    app = Application.builder().token(BOT_TOKEN).build()",
                 "    app.add_handler(CommandHandler(\"start\", start))", "    app.run_polling()"]
        f = "telegram_bot.py"
    else:
        lines = ["const { App } = require('@slack/bolt');", "", "const app = new App({", f"  token: '{M(slack_bot())}',",
                 f"  signingSecret: '{M(hx(32))}',", "  socketMode: true,", f"  appToken: '{M(slack_app())}',", "});", "",
                 "app.message('hello', async ({ message, say }) => {", "  await say(`Hey there <@${message.user}>!`);", "});", "",
                 "(async () => {", "  await app.start(process.env.PORT || 3000);", "  console.log('⚡️ Bolt app is running!');", "})();"]
        f = "slack/app.js"
    n = len(lines)
    return cmdline(ch([f"sed -n '1,{n}p' {f}", f"cat {f}", f"head -n {n + ri(0, 20)} {f}"])) + "\n".join(lines)


@P
def python_traceback():
    k = ri(0, 2)
    app = my_proj().replace("-", "_")
    if k == 0:
        p = pw(safe=True)
        out = ["Traceback (most recent call last):", f"  File \"/srv/{app}/main.py\", line {ri(5, 30)}, in <module>",
               "    settings = Settings()", "               ^^^^^^^^^^",
               "  File \"/srv/.venv/lib/python3.12/site-packages/pydantic_settings/main.py\", line 171, in __init__",
               "    super().__init__(", "pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings", "redis_url",
               f"  Input should be a valid URL, relative URL without a base [type=url_parsing, input_value='redis//default:{M(p)}@cache:6379/0', input_type=str]",
               "    For further information visit https://errors.pydantic.dev/2.7/v/url_parsing"]
    elif k == 1:
        tok = ch([gh_pat(), openai_key(), hf_tok(), rs(40, ALNUM)])
        out = ["Traceback (most recent call last):", f"  File \"/home/{me()}/{app}/sync.py\", line {ri(30, 120)}, in fetch",
               "    r = session.get(url, headers=headers, timeout=10)", "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
               "  File \"/usr/lib/python3/dist-packages/requests/sessions.py\", line 602, in get",
               "    return self.request(\"GET\", url, **kwargs)",
               "  File \"/usr/lib/python3/dist-packages/requests/utils.py\", line 1043, in _validate_header_part",
               "    raise InvalidHeader(",
               f"requests.exceptions.InvalidHeader: Invalid leading whitespace, reserved character(s), or return character(s) in header value: 'Bearer {M(tok)}\\n'"]
    else:
        key = ch([stripe_sk(), sendgrid(), anthropic_key()])
        secret = pw()
        out = ["Traceback (most recent call last):", f"  File \"/app/{app}/tasks.py\", line {ri(40, 200)}, in send_receipt",
               "    client.send(msg)", "    config = {'api_key': '" + M(key) + "', 'timeout': 30, 'retries': 3}",
               "    msg = <Message to=" + email() + ">",
               "    self = <" + app + ".tasks.ReceiptTask object at 0x7f" + hx(10) + ">",
               f"  File \"/app/{app}/mail.py\", line {ri(10, 90)}, in send", "    resp.raise_for_status()",
               "    auth = ('" + ch(["api", "admin", me()]) + "', '" + M(secret) + "')",
               "    resp = <Response [401]>", "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api." + domain() + "/v1/send"]
        out = ["E", "=" * 70, f"ERROR: test_send_receipt (tests.test_tasks.ReceiptTaskTest.test_send_receipt)", "-" * 70] + out
        return cmdline("python -m unittest --locals tests.test_tasks") + "\n".join(out) + "\n\n" + "-" * 70 + f"\nRan {ri(2, 40)} tests in {R.random() * 3:.3f}s\n\nFAILED (errors=1)"
    return cmdline(ch(["python main.py", "uv run python -m " + app, "python sync.py"])) + "\n".join(out)


@P
def node_axios_error():
    host = ch(["api.github.com", "api.hubapi.com", f"{my_org()}.atlassian.net", "api.linear.app", "api.vercel.com"])
    tok = {"api.github.com": gh_any, "api.linear.app": linear_tok, "api.vercel.com": lambda: rs(24, ALNUM),
           "api.hubapi.com": lambda: "pat-na1-" + uuid4()}.get(host, atlassian_tok)()
    scheme = "Basic" if "atlassian" in host else "Bearer"
    cred = b64e((email() + ":" + tok).encode()) if scheme == "Basic" else tok
    path = {"api.github.com": ch(["/graphql", "/repos/" + my_org() + "/" + my_proj() + "/issues"]), "api.linear.app": "/graphql",
            "api.vercel.com": ch(["/v9/projects", "/v13/deployments"]), "api.hubapi.com": "/crm/v3/objects/contacts"}.get(host, "/rest/api/3/search")
    code = ch([401, 403, 422, 500])
    out = ["AxiosError: Request failed with status code " + str(code),
           "    at settle (/app/node_modules/axios/dist/node/axios.cjs:1983:12)",
           "    at IncomingMessage.handleStreamEnd (/app/node_modules/axios/dist/node/axios.cjs:3085:11)",
           "    at IncomingMessage.emit (node:events:531:35)",
           "    at Axios.request (/app/node_modules/axios/dist/node/axios.cjs:4224:41) {",
           f"  code: '{ch(['ERR_BAD_REQUEST', 'ERR_BAD_RESPONSE'])}',", "  config: {",
           "    transitional: {", "      silentJSONParsing: true,", "      forcedJSONParsing: true,", "      clarifyTimeoutError: false", "    },",
           "    adapter: [ 'xhr', 'http', 'fetch' ],", "    timeout: 10000,", "    headers: Object [AxiosHeaders] {",
           "      Accept: 'application/json, text/plain, */*',", "      'Content-Type': 'application/json',",
           f"      Authorization: '{scheme} {M(cred)}',", "      'User-Agent': 'axios/1.7.2',", "      'Accept-Encoding': 'gzip, compress, deflate, br'",
           "    },", f"    baseURL: 'https://{host}',", "    method: 'post',", f"    url: '{path}',", "  },",
           "  request: <ref *1> ClientRequest {", "    _header: 'POST " + path + " HTTP/1.1\\r\\n' +",
           "      'Accept: application/json, text/plain, */*\\r\\n' +", "      'Content-Type: application/json\\r\\n' +",
           f"      'Authorization: {scheme} {M(cred)}\\r\\n' +", "      'User-Agent: axios/1.7.2\\r\\n' +",
           f"      'Host: {host}\\r\\n' +", "      'Connection: keep-alive\\r\\n' +", "      '\\r\\n',", "    ...",
           "  },", "  response: {", f"    status: {code},", "    statusText: '" + {401: "Unauthorized", 403: "Forbidden", 422: "Unprocessable Entity", 500: "Internal Server Error"}[code] + "',",
           "  }", "}", "", "Node.js v" + ch(["20.12.2", "22.3.0", "18.20.2"])]
    return cmdline(ch(["node scripts/sync.js", "npm run sync", "pnpm tsx src/jobs/export.ts"])) + "\n".join(out)


@P
def rust_debug():
    p = my_proj().replace("-", "_")
    a, pwd, b = db_url(kind="postgres")
    lines = [f"   Compiling {p} v{semver()} (/home/{me()}/src/{my_proj()})",
             f"    Finished `dev` profile [unoptimized + debuginfo] target(s) in {ri(2, 40)}.{ri(10, 99)}s",
             f"     Running `target/debug/{p}`",
             f"[src/main.rs:{ri(20, 80)}:{ri(5, 9)}] &cfg = Config {{", f"    bind: {ch(['0.0.0.0', '127.0.0.1'])}:{ch([8080, 3000, 8000])},",
             f"    database_url: \"{a}{M(pwd)}{b}\",", "    redis: RedisConfig {", "        url: \"redis://cache:6379/0\",",
             f"        password: Some(", f"            \"{M(pw(safe=True))}\",", "        ),", "    },"]
    n, v = vendor_env(1, exclude=("ADMIN_PASSWORD", "SMTP_PASSWORD"))[0]
    lines.append(f"    {n.lower()}: \"{M(v)}\",")
    lines += [f"    request_timeout: {ri(1, 30)}s,", "    features: [", "        \"metrics\",", "        \"tracing\",", "    ],", "}"]
    if coin():
        lines.append(f"{iso(rtime())}  INFO {p}: listening addr=0.0.0.0:8080")
    return cmdline("cargo run" + ch(["", " --bin server", " -- --config config/dev.toml"])) + "\n".join(lines)


@P
def java_tostring():
    t = rtime()
    svc = my_proj()
    jw = ch([b64(48), hx(64)])
    mp = ch([sendgrid(), pw()])
    dp = pw(ch(["alnum", "punct", "short"]))
    clock = [t]

    def ts():
        clock[0] = clock[0] + dt.timedelta(milliseconds=ri(3, 900))
        return clock[0].strftime("%Y-%m-%dT%H:%M:%S.") + f"{clock[0].microsecond // 1000:03d}Z"
    thr = ch(["main", "restartedMain"])
    pid = ri(1, 99999)
    pkg = my_org()
    lines = [f"{ts()}  INFO {pid} --- [{svc}] [           {thr}] c.{pkg}.{svc.split('-')[0]}.Application         : Starting Application v{semver()} using Java 21.0.{ri(1, 5)}",
             f"{ts()}  INFO {pid} --- [{svc}] [           {thr}] c.{pkg}.{svc.split('-')[0]}.Application         : The following 1 profile is active: \"{ch(['prod', 'dev', 'docker'])}\"",
             f"{ts()} DEBUG {pid} --- [{svc}] [           {thr}] c.{pkg}.config.AppConfig          : Loaded AppProperties(jwtSecret={M(jw)}, jwtTtl=PT1H, mail=MailProperties(host=smtp.sendgrid.net, port=587, username=apikey, password={M(mp)}), corsOrigins=[https://{domain()}])",
             f"{ts()} DEBUG {pid} --- [{svc}] [           {thr}] c.{pkg}.config.DataSourceConfig   : Creating DataSource[url=jdbc:postgresql://{ch(['db', 'pg-primary.internal'])}:5432/{svc.replace('-', '_')}, username={ch(['app', 'spring'])}, password={M(dp)}, poolSize={ri(5, 30)}]",
             f"{ts()}  INFO {pid} --- [{svc}] [           {thr}] com.zaxxer.hikari.HikariDataSource       : HikariPool-1 - Starting...",
             f"{ts()}  INFO {pid} --- [{svc}] [           {thr}] com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - Added connection org.postgresql.jdbc.PgConnection@{hx(8)}",
             f"{ts()}  INFO {pid} --- [{svc}] [           {thr}] o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat started on port 8080 (http) with context path '/'"]
    return cmdline(ch(["./mvnw spring-boot:run", "./gradlew bootRun", f"docker logs {svc}"])) + "\n".join(lines)


@P
def pytest_diff():
    tok = ch([gh_pat, gh_server, glpat, lambda: "Bearer " + openai_key()])()
    if tok.startswith("Bearer "):
        shown = "Bearer " + M(tok[7:])
    else:
        shown = "token " + M(tok)
    exp = ch(["Bearer test-token", "token dummy", "Bearer xxx"])
    fn = ch(["test_client_sets_auth_header", "test_headers", "test_default_headers_include_token"])
    ua = f"{my_proj()}/{semver()}"
    out = ["=" * 30 + " FAILURES " + "=" * 30, "_" * 20 + f" {fn} " + "_" * 20, "", "client = <" + my_proj().replace("-", "_") + ".client.ApiClient object at 0x7f" + hx(10) + ">", "",
           f"    def {fn}(client):", f"        headers = client.default_headers()",
           f">       assert headers == {{\"Authorization\": \"{exp}\", \"User-Agent\": \"{ua}\"}}",
           f"E       AssertionError: assert {{'Authorization': '{shown}', 'User-Agent': '{ua}'}} == {{'Authorization': '{exp}', 'User-Agent': '{ua}'}}",
           "E         ", "E         Omitting 1 identical items, use -vv to show", "E         Differing items:",
           f"E         {{'Authorization': '{shown}'}} != {{'Authorization': '{exp}'}}", "E         Use -v to get more diff", "",
           f"tests/test_client.py:{ri(10, 90)}: AssertionError", "=" * 24 + " short test summary info " + "=" * 24,
           f"FAILED tests/test_client.py::{fn} - AssertionError: assert {{'Authorization': '{shown}', ...", f"{'=' * 20} 1 failed, {ri(10, 200)} passed in {ri(1, 30)}.{ri(10, 99)}s {'=' * 20}"]
    return cmdline("pytest -q tests/test_client.py") + "\n".join(out)


@P
def mcp_config():
    k = ri(0, 3)
    gh = gh_any()
    if k == 0:
        obj = {"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": gh}},
                              "brave-search": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-brave-search"], "env": {"BRAVE_API_KEY": brave_tok()}},
                              "postgres": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres", "@@PG@@"]}}}
        a, pwd, b = db_url(kind="postgres", host="localhost")
        txt = json.dumps(obj, indent=2)
        txt = mark_json_values(txt, [gh, obj["mcpServers"]["brave-search"]["env"]["BRAVE_API_KEY"]]).replace("@@PG@@", a + M(pwd) + b)
        return cmdline(ch(["cat .mcp.json", f"cat ~/Library/Application\\ Support/Claude/claude_desktop_config.json"])) + txt
    if k == 1:
        lines = ["model = \"gpt-5-codex\"", "approval_policy = \"on-request\"", "", "[mcp_servers.github]", "command = \"npx\"",
                 "args = [\"-y\", \"@modelcontextprotocol/server-github\"]", f"env = {{ GITHUB_PERSONAL_ACCESS_TOKEN = \"{M(gh)}\" }}", "",
                 "[mcp_servers.linear]", "command = \"npx\"", "args = [\"-y\", \"mcp-remote\", \"https://mcp.linear.app/sse\"]", "",
                 "[mcp_servers.tavily]", "command = \"npx\"", "args = [\"-y\", \"tavily-mcp@latest\"]", f"env = {{ TAVILY_API_KEY = \"{M(tavily_tok())}\" }}"]
        return cmdline("cat ~/.codex/config.toml") + "\n".join(lines)
    if k == 2:
        sk = ch([sentry_user_tok(), linear_tok()])
        obj = {"theme": "Default", "selectedAuthType": "gemini-api-key", "mcpServers": {
            "github": {"httpUrl": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer " + gh}, "timeout": 5000},
            ("sentry" if sk.startswith("sntryu") else "linear"): {"command": "npx", "args": ["-y", "@sentry/mcp-server" if sk.startswith("sntryu") else "linear-mcp"],
                                                                  "env": {("SENTRY_ACCESS_TOKEN" if sk.startswith("sntryu") else "LINEAR_API_KEY"): sk}}}}
        txt = mark_json_values(json.dumps(obj, indent=2), [gh, sk])
        return cmdline("cat ~/.gemini/settings.json") + txt
    # claude mcp add echo
    st = slack_bot()
    team = "T" + rs(10, UP + DIG)
    out = [prompt() + f"claude mcp add slack -e SLACK_BOT_TOKEN={M(st)} -e SLACK_TEAM_ID={team} -- npx -y @modelcontextprotocol/server-slack",
           "Added stdio MCP server slack with command: npx -y @modelcontextprotocol/server-slack to local config",
           f"File modified: /home/{me()}/.claude.json [project: /home/{me()}/src/{my_proj()}]",
           prompt() + "claude mcp get slack", "slack:", "  Scope: Local config (private to you in this project)", "  Status: ✓ Connected",
           "  Type: stdio", "  Command: npx", "  Args: -y @modelcontextprotocol/server-slack", "  Environment:",
           f"    SLACK_BOT_TOKEN={M(st)}", f"    SLACK_TEAM_ID={team}"]
    return "\n".join(out)


@P
def codex_auth():
    t = rtime()
    if coin(0.55):
        acc = uuid4()
        idt = jwt({"iss": "https://auth.openai.com", "aud": ["app_" + rs(24, ALNUM)], "sub": "google-oauth2|" + str(ri(10**20, 10**21)),
                   "email": email(), "email_verified": True, "iat": epoch(t), "exp": epoch(t) + 3600,
                   "https://api.openai.com/auth": {"chatgpt_account_id": acc, "chatgpt_plan_type": ch(["plus", "pro", "team"])}}, alg="RS256", kid=uuid4())
        at = jwt({"aud": ["https://api.openai.com/v1"], "client_id": "app_" + rs(24, ALNUM), "exp": epoch(t) + 864000, "iat": epoch(t),
                  "iss": "https://auth.openai.com", "scp": ["openid", "profile", "email", "offline_access"], "sub": "google-oauth2|" + str(ri(10**20, 10**21))}, alg="RS256", kid=uuid4())
        rt = "rt_" + rs(43, ALNUM + "-_") + "." + rs(43, ALNUM + "-_") if coin() else b64u(48)
        obj = {"OPENAI_API_KEY": None, "tokens": {"id_token": idt, "access_token": at, "refresh_token": rt, "account_id": acc},
               "last_refresh": iso(t, ms=False)[:-1] + "." + str(ri(100000, 999999)) + "Z"}
        return cmdline("cat ~/.codex/auth.json") + mark_json_values(json.dumps(obj, indent=2), [idt, at, rt])
    at = ya29()
    rt = g_refresh()
    idt = jwt({"iss": "https://accounts.google.com", "azp": str(ri(10**11, 10**12)) + "-" + rs(32, LOW + DIG) + ".apps.googleusercontent.com",
               "aud": str(ri(10**11, 10**12)) + "-" + rs(32, LOW + DIG) + ".apps.googleusercontent.com", "sub": str(ri(10**20, 10**21)),
               "email": email(d="gmail.com"), "email_verified": True, "at_hash": b64u(16), "iat": epoch(t), "exp": epoch(t) + 3600}, alg="RS256", kid=hx(40))
    obj = {"access_token": at, "scope": "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email openid https://www.googleapis.com/auth/userinfo.profile",
           "token_type": "Bearer", "id_token": idt, "expiry_date": epoch(t) * 1000 + ri(0, 999), "refresh_token": rt}
    return cmdline("cat ~/.gemini/oauth_creds.json") + mark_json_values(json.dumps(obj, indent=2), [at, idt, rt])


# ================================================================ negatives
def bcrypt_hash(cost=None, prefix="$2b$"):
    a = "./" + UP + LOW + DIG
    return f"{prefix}{cost or ch([10, 12, 12, 14]):02d}${rs(22, a)}{rs(31, a)}"


def argon2_hash():
    return f"$argon2id$v=19$m={ch([65536, 19456, 47104])},t={ch([2, 3])},p={ch([1, 4])}${b64(16).rstrip('=')}${b64(32).rstrip('=')}"


def pbkdf2_hash():
    return f"pbkdf2_sha256${ch([600000, 720000, 870000])}${rs(22, ALNUM)}${b64(32)}"


def eth_addr():
    return "0x" + hx(40)


def eth_hash():
    return "0x" + hx(64)


def cid_v1(raw=False):
    return ("bafkrei" if raw else "bafybei") + rs(52, "abcdefghijklmnopqrstuvwxyz234567")


def cid_v0():
    return "Qm" + rs(44, B58)


def sri(alg="sha512"):
    n = {"sha256": 32, "sha384": 48, "sha512": 64}[alg]
    return f"{alg}-{b64(n)}"


@N
def git_graph_reflog():
    out = []
    if coin(0.6):
        out.append(prompt() + f"git log --graph --oneline --decorate -n {ri(10, 16)}")
        branches = ["main", "origin/main", "origin/HEAD"]
        msgs = ["fix(api): handle empty cart", "chore(deps): bump axios from 1.6.8 to 1.7.2", "Merge pull request #%d from %s/feat/%s" ,
                "refactor: extract pricing rules", "test: cover refund edge cases", "docs: update README", "feat: add CSV export",
                "ci: cache pnpm store", "revert \"feat: add CSV export\"", "perf: batch inserts in ledger sync", "fix: token refresh race",
                "build: pin node 20.12", "style: prettier"]
        first = True
        for i in range(ri(9, 15)):
            m = ch(msgs)
            if "%d" in m:
                m = m % (ri(100, 2400), me(), rs(6, LOW))
                out.append(f"*   {short()} {'(HEAD -> main, origin/main, origin/HEAD) ' if first else ''}{m}")
                out.append("|\\  ")
                out.append(f"| * {short()} {ch(msgs[3:])}")
                out.append("|/  ")
            else:
                deco = "(HEAD -> main, origin/main, origin/HEAD) " if first else (f"(tag: v{semver()}) " if coin(0.15) else "")
                out.append(f"* {short()} {deco}{m}")
            first = False
    out.append(prompt() + "git reflog -n 8")
    for i in range(8):
        act = ch(["commit: " + ch(["wip", "fix tests", "address review"]), "checkout: moving from main to feat/" + rs(6, LOW),
                  "pull --rebase (finish): returning to refs/heads/main", "rebase (pick): " + ch(["add exporter", "fix lint"]),
                  "reset: moving to HEAD~1", "commit (amend): " + ch(["add exporter", "update snapshot"])])
        out.append(f"{short()} HEAD@{{{i}}}: {act}")
    return "\n".join(out)


@N
def git_cat_file_sshsig():
    f = full()
    mail = f"{f.split()[0].lower()}@{domain()}"
    t = rtime()
    ts = f"{epoch(t)} {ch(['+0000', '+0200', '-0700'])}"
    pub = sstr("ssh-ed25519") + sstr(rb(32))
    blob = (b"SSHSIG" + struct.pack(">I", 1) + sstr(pub) + sstr("git") + sstr(b"") + sstr("sha512") +
            sstr(sstr("ssh-ed25519") + sstr(rb(64))))
    sig = wrap(b64e(blob), 70)
    out = [prompt() + "git cat-file -p HEAD", f"tree {sha1()}", f"parent {sha1()}", f"author {f} <{mail}> {ts}",
           f"committer {f} <{mail}> {ts}", "gpgsig -----BEGIN SSH SIGNATURE-----"]
    out += [" " + l for l in sig] + [" -----END SSH SIGNATURE-----", "",
            ch(["fix: retry S3 uploads on 503", "feat(auth): rotate refresh tokens", "chore: release v" + semver()])]
    fp = "SHA256:" + b64(32).rstrip("=")
    out += [prompt() + "git verify-commit HEAD",
            f"Good \"git\" signature for {mail} with ED25519 key {fp}"]
    if coin():
        out += [prompt() + "cat ~/.config/git/allowed_signers", f"{mail} ssh-ed25519 {b64e(pub)}"]
    return "\n".join(out)


@N
def release_sha256sums():
    tool = ch(["gh", "terraform-provider-" + my_proj(), my_proj(), "kubectl-" + rs(4, LOW), "lazygit"])
    v = semver()
    files = [f"{tool}_{v}_{o}_{a}.{e}" for o, a, e in [("darwin", "amd64", "tar.gz"), ("darwin", "arm64", "tar.gz"),
                                                      ("linux", "amd64", "tar.gz"), ("linux", "arm64", "tar.gz"), ("windows", "amd64", "zip")]]
    out = [prompt() + f"curl -sLO https://github.com/{my_org()}/{tool}/releases/download/v{v}/{tool}_{v}_SHA256SUMS", prompt() + f"cat {tool}_{v}_SHA256SUMS"]
    out += [f"{sha256()}  {fn}" for fn in files]
    mine = files[2]
    out += [prompt() + f"sha256sum -c --ignore-missing {tool}_{v}_SHA256SUMS", f"{mine}: OK"]
    if coin():
        out += [prompt() + f"cosign verify-blob --certificate {tool}_{v}_SHA256SUMS.pem --signature {tool}_{v}_SHA256SUMS.sig "
                f"--certificate-identity-regexp 'https://github.com/{my_org()}/' --certificate-oidc-issuer https://token.actions.githubusercontent.com {tool}_{v}_SHA256SUMS",
                "Verified OK"]
    else:
        out += [prompt() + f"md5sum {mine}", f"{hx(32)}  {mine}"]
    return "\n".join(out)


@N
def dvc_md5():
    ds = ch(["data/raw", "data/images", "datasets/train", "models"])
    out = [prompt() + f"cat {ds}.dvc", "outs:", f"- md5: {hx(32)}.dir", f"  size: {ri(10**6, 10**10)}", f"  nfiles: {ri(10, 90000)}",
           "  hash: md5", f"  path: {ds.split('/')[-1]}", prompt() + "cat dvc.lock", "schema: '2.0'", "stages:", "  prepare:",
           "    cmd: python src/prepare.py", "    deps:", f"    - path: {ds}", f"      hash: md5", f"      md5: {hx(32)}.dir",
           f"      size: {ri(10**6, 10**9)}", f"      nfiles: {ri(10, 9000)}", "    - path: src/prepare.py", "      hash: md5", f"      md5: {hx(32)}",
           f"      size: {ri(900, 9000)}", "    outs:", "    - path: data/prepared", "      hash: md5", f"      md5: {hx(32)}.dir",
           f"      size: {ri(10**6, 10**9)}", f"      nfiles: {ri(2, 40)}"]
    if coin():
        out += [prompt() + "dvc status", "Data and pipelines are up to date."]
    return "\n".join(out)


@N
def git_lfs_pointer():
    files = [ch(["models/encoder.onnx", "assets/hero.psd", "data/sample.parquet", "weights/model.safetensors", "docs/demo.mp4"]) for _ in range(ri(3, 6))]
    out = [prompt() + "git lfs ls-files -l"]
    seen = []
    for f in files:
        if f in seen:
            continue
        seen.append(f)
        out.append(f"{sha256()} {ch(['*', '-'])} {f}")
    f = seen[0]
    out += [prompt() + f"git show HEAD:{f}", "version https://git-lfs.github.com/spec/v1", f"oid sha256:{sha256()}", f"size {ri(10**5, 10**9)}"]
    if coin():
        out += [prompt() + "cat .gitattributes", "*.onnx filter=lfs diff=lfs merge=lfs -text", "*.psd filter=lfs diff=lfs merge=lfs -text",
                "*.safetensors filter=lfs diff=lfs merge=lfs -text"]
    return "\n".join(out)


@N
def npm_pack_dryrun():
    name = f"@{my_org()}/{ch(['ui', 'sdk', 'utils', 'config', 'eslint-config'])}"
    v = semver()
    integ = sri("sha512")
    files = [("LICENSE", "1.1kB"), ("README.md", f"{ri(1, 9)}.{ri(0, 9)}kB"), ("dist/index.cjs", f"{ri(10, 90)}.{ri(0, 9)}kB"),
             ("dist/index.d.ts", f"{ri(1, 20)}.{ri(0, 9)}kB"), ("dist/index.js", f"{ri(10, 90)}.{ri(0, 9)}kB"), ("package.json", f"{ri(1, 3)}.{ri(0, 9)}kB")]
    out = [prompt() + "npm pack --dry-run", "npm notice", f"npm notice 📦  {name}@{v}", "npm notice Tarball Contents"]
    out += [f"npm notice {sz} {fn}" for fn, sz in files]
    out += ["npm notice Tarball Details", f"npm notice name: {name}", f"npm notice version: {v}",
            f"npm notice filename: {name[1:].replace('/', '-')}-{v}.tgz", f"npm notice package size: {ri(5, 90)}.{ri(0, 9)} kB",
            f"npm notice unpacked size: {ri(20, 300)}.{ri(0, 9)} kB", f"npm notice shasum: {sha1()}",
            f"npm notice integrity: {integ[:20]}[...]{integ[-10:]}", f"npm notice total files: {len(files)}", "npm notice",
            f"{name[1:].replace('/', '-')}-{v}.tgz"]
    if coin():
        out += [prompt() + f"npm view {name}@{v} dist --json", json.dumps({"integrity": integ, "shasum": sha1(),
                "tarball": f"https://registry.npmjs.org/{name}/-/{name.split('/')[1]}-{v}.tgz", "fileCount": len(files),
                "unpackedSize": ri(20000, 300000)}, indent=2)]
    return "\n".join(out)


@N
def npm_config_protected():
    u = me()
    o = my_org()
    out = [prompt() + "npm config list", f"; \"user\" config from /home/{u}/.npmrc", "",
           "//registry.npmjs.org/:_authToken = (protected)", f"@{o}:registry = \"https://npm.pkg.github.com\"",
           "//npm.pkg.github.com/:_authToken = (protected)", "fund = false", "", f"; \"project\" config from /home/{u}/src/{my_proj()}/.npmrc", "",
           "engine-strict = true", "save-exact = true", "", f"; node bin location = /home/{u}/.nvm/versions/node/v20.{ri(10, 18)}.{ri(0, 3)}/bin/node",
           f"; node version = v20.{ri(10, 18)}.{ri(0, 3)}", f"; npm local prefix = /home/{u}/src/{my_proj()}", f"; npm version = 10.{ri(2, 8)}.{ri(0, 4)}",
           f"; cwd = /home/{u}/src/{my_proj()}", f"; HOME = /home/{u}", "; Run `npm config ls -l` to show all defaults."]
    if coin():
        out += [prompt() + "npm whoami", u, prompt() + "npm whoami --registry https://npm.pkg.github.com", u]
    return "\n".join(out)


@N
def terraform_lock_hcl():
    provs = sample([("hashicorp/aws", "5.%d.0"), ("hashicorp/random", "3.6.%d"), ("hashicorp/kubernetes", "2.%d.1"),
                    ("cloudflare/cloudflare", "4.%d.0"), ("hashicorp/google", "5.%d.0"), ("integrations/github", "6.%d.0"),
                    ("hashicorp/helm", "2.%d.1")], ri(2, 3))
    out = [prompt() + "cat .terraform.lock.hcl", "# This file is maintained automatically by \"terraform init\".",
           "# Manual edits may be lost in future updates.", ""]
    for name, vf in provs:
        v = vf % ri(1, 60)
        out += [f"provider \"registry.terraform.io/{name}\" {{", f"  version     = \"{v}\"", f"  constraints = \"~> {v.rsplit('.', 1)[0]}\"", "  hashes = ["]
        out += [f"    \"h1:{b64(32)}\","] + [f"    \"zh:{sha256()}\"," for _ in range(ri(4, 8))]
        out += ["  ]", "}", ""]
    return "\n".join(out).rstrip()


@N
def nix_store_paths():
    pkgs = [my_proj(), "openssl-3.0.13", "glibc-2.39-52", "zlib-1.3.1", "python3-3.11.9", "nodejs-20.12.2", "libffi-3.4.6", "bash-5.2p26"]
    out = [prompt() + "nix build .#default --print-out-paths", f"/nix/store/{rs(32, NIX32)}-{my_proj()}-{semver()}",
           prompt() + "nix path-info -rsSh ./result | tail -n 6"]
    for p in sample(pkgs[1:], 5):
        out.append(f"/nix/store/{rs(32, NIX32)}-{p}\t{ri(100, 99999) / 10:>7.1f}K\t{ri(1, 900) / 10:>7.1f}M")
    out += [prompt() + "nix flake metadata --json | jq '.locks.nodes.nixpkgs.locked'", json.dumps({
        "lastModified": epoch(rtime()), "narHash": "sha256-" + b64(32), "owner": "NixOS", "repo": "nixpkgs",
        "rev": sha1(), "type": "github"}, indent=2)]
    return "\n".join(out)


@N
def go_version_m():
    mod = f"github.com/{my_org()}/{my_proj()}"
    deps = [("github.com/gin-gonic/gin", "v1.9.1"), ("github.com/jackc/pgx/v5", "v5.5.5"), ("github.com/redis/go-redis/v9", "v9.5.1"),
            ("go.opentelemetry.io/otel", "v1.26.0"), ("golang.org/x/crypto", "v0.23.0"), ("google.golang.org/grpc", "v1.64.0"),
            ("github.com/spf13/cobra", "v1.8.0"), ("github.com/prometheus/client_golang", "v1.19.1"), ("go.uber.org/zap", "v1.27.0")]
    out = [prompt() + "go version -m ./bin/server", f"./bin/server: go1.22.{ri(0, 5)}", f"\tpath\t{mod}/cmd/server", f"\tmod\t{mod}\t(devel)\t"]
    for d, v in sample(deps, ri(5, 8)):
        out.append(f"\tdep\t{d}\t{v}\th1:{b64(32)}")
    t = rtime()
    out += ["\tbuild\t-buildmode=exe", "\tbuild\t-compiler=gc", "\tbuild\t-ldflags=\"-s -w\"", "\tbuild\tCGO_ENABLED=0", "\tbuild\tGOARCH=amd64",
            "\tbuild\tGOOS=linux", "\tbuild\tGOAMD64=v1", "\tbuild\tvcs=git", f"\tbuild\tvcs.revision={sha1()}", f"\tbuild\tvcs.time={iso(t, ms=False)}",
            f"\tbuild\tvcs.modified={ch(['false', 'true'])}"]
    return "\n".join(out)


@N
def wheel_record():
    pkg, ver, mods = ch([("requests", "2.32.3", ["__init__.py", "__version__.py", "adapters.py", "api.py", "auth.py", "certs.py", "compat.py", "cookies.py", "exceptions.py", "sessions.py"]),
                         ("httpx", "0.27.0", ["__init__.py", "_api.py", "_auth.py", "_client.py", "_config.py", "_models.py", "_urls.py", "py.typed"]),
                         ("pydantic_settings", "2.3.4", ["__init__.py", "main.py", "sources.py", "utils.py", "version.py", "py.typed"]),
                         ("jwt", "2.8.0", ["__init__.py", "algorithms.py", "api_jwk.py", "api_jws.py", "api_jwt.py", "exceptions.py", "utils.py"])])
    dist = {"jwt": "PyJWT"}.get(pkg, pkg)
    base = f".venv/lib/python3.{ri(10, 12)}/site-packages/{dist}-{ver}.dist-info"
    out = [prompt() + f"head -n {len(mods) + 5} {base}/RECORD"]
    for m in mods:
        out.append(f"{pkg}/{m},sha256={b64u(32)},{ri(0, 40000)}")
    for m in ["INSTALLER", "LICENSE", "METADATA", "RECORD", "WHEEL"]:
        out.append(f"{dist}-{ver}.dist-info/{m}" + ("" if m == "RECORD" else f",sha256={b64u(32)},{ri(4, 9000)}") + ("" if m != "RECORD" else ",,"))
    if coin():
        out += [prompt() + f"pip hash dist/{my_proj().replace('-', '_')}-{semver()}-py3-none-any.whl",
                f"dist/{my_proj().replace('-', '_')}-{semver()}-py3-none-any.whl:", f"--hash=sha256:{sha256()}"]
    return "\n".join(out)


@N
def cargo_build_verbose():
    crates = ["serde", "serde_json", "tokio", "hyper", "tracing", "anyhow", "thiserror", "bytes", "regex", "rustls"]
    home = f"/home/{me()}"
    root = f"{home}/src/{my_proj()}"
    out = [prompt() + "cargo build -v"]
    for c in sample(crates, ri(3, 5)):
        meta = hx(16)
        cv = f"1.0.{ri(100, 210)}"
        out += [f"   Compiling {c} v{cv}",
                f"     Running `{home}/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc --crate-name {c} --edition=2021 "
                f"{home}/.cargo/registry/src/index.crates.io-6f17d22bba15001f/{c}-{cv}/src/lib.rs --error-format=json "
                f"--json=diagnostic-rendered-ansi,artifacts,future-incompat --crate-type lib --emit=dep-info,metadata,link -C embed-bitcode=no "
                f"-C debuginfo=2 -C metadata={meta} -C extra-filename=-{meta} --out-dir {root}/target/debug/deps -L dependency={root}/target/debug/deps --cap-lints allow`"]
    name = my_proj().replace("-", "_")
    out += [f"   Compiling {my_proj()} v{semver()} ({root})",
            f"    Finished `dev` profile [unoptimized + debuginfo] target(s) in {ri(1, 90)}.{ri(10, 99)}s",
            prompt() + "ls target/debug/deps | head"]
    for c in sample(crates, 5):
        h = hx(16)
        out += [f"lib{c}-{h}.rlib", f"lib{c}-{h}.rmeta"]
    out.append(f"{name}-{hx(16)}")
    return "\n".join(out)


@N
def rust_link_mangled():
    name = my_proj().replace("-", "_")
    root = f"/home/{me()}/src/{my_proj()}"
    cgu = hx(16)

    def mangle(path):
        return "_ZN" + "".join(f"{len(p)}{p}" for p in path) + f"17h{hx(16)}E"
    syms = [mangle(["openssl", "ssl", "SslContextBuilder", "new"]), mangle(["openssl_sys", "init"]),
            mangle([name, "tls", "build_connector"]), mangle(["native_tls", "imp", "TlsConnector", "new"])]
    out = [f"   Compiling {my_proj()} v{semver()} ({root})", "error: linking with `cc` failed: exit status: 1", "  |",
           f"  = note: LC_ALL=\"C\" PATH=\"/home/{me()}/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/x86_64-unknown-linux-gnu/bin:/usr/bin\" VSLANG=\"1033\" \"cc\" \"-m64\" \"/tmp/rustc{rs(6, ALNUM)}/symbols.o\" "
           f"\"{root}/target/debug/deps/{name}-{hx(16)}.{name}.{cgu}-cgu.0.rcgu.o\" ... \"-nodefaultlibs\"",
           "  = note: some arguments are omitted. use `--verbose` to show all linker arguments",
           f"  = note: /usr/bin/ld: {root}/target/debug/deps/{name}-{hx(16)}.{name}.{cgu}-cgu.1.rcgu.o: in function `{syms[2]}':",
           f"          {root}/src/tls.rs:{ri(10, 80)}: undefined reference to `{syms[0]}'",
           f"          /usr/bin/ld: {root}/src/tls.rs:{ri(10, 80)}: undefined reference to `{syms[1]}'",
           f"          /usr/bin/ld: {root}/target/debug/deps/libnative_tls-{hx(16)}.rlib(native_tls-{hx(16)}.native_tls.{hx(16)}-cgu.0.rcgu.o): in function `{syms[3]}':",
           "          collect2: error: ld returned 1 exit status", "",
           "  = note: some `extern` functions couldn't be found; some native libraries may need to be installed or have their path specified",
           "  = note: use the `-l` flag to specify native libraries to link", "",
           f"error: could not compile `{my_proj()}` (bin \"{name}\") due to 1 previous error"]
    return cmdline("cargo build") + "\n".join(out)


@N
def podfile_lock():
    pods = [("Alamofire", "5.9.1"), ("Firebase/Analytics", "10.25.0"), ("FirebaseCore", "10.25.0"), ("GoogleUtilities/Environment", "7.13.3"),
            ("Kingfisher", "7.11.0"), ("SnapKit", "5.7.1"), ("Sentry", "8.26.0"), ("lottie-ios", "4.4.3"), ("SwiftLint", "0.55.1")]
    chosen = sorted(sample(pods, ri(4, 7)))
    out = [prompt() + "cat ios/Podfile.lock", "PODS:"] + [f"  - {n} ({v})" for n, v in chosen] + ["", "DEPENDENCIES:"]
    out += [f"  - {n}" + (f" (~> {v.rsplit('.', 1)[0]})" if coin() else "") for n, v in chosen]
    out += ["", "SPEC REPOS:", "  trunk:"] + [f"    - {n.split('/')[0]}" for n, v in chosen] + ["", "SPEC CHECKSUMS:"]
    w = max(len(n.split("/")[0]) for n, _ in chosen) + 1
    out += [f"  {(n.split('/')[0] + ':'):<{w}} {sha1()}" for n, v in chosen]
    out += ["", f"PODFILE CHECKSUM: {sha1()}", "", f"COCOAPODS: 1.{ri(14, 15)}.{ri(0, 2)}"]
    return "\n".join(out)


@N
def docker_buildx_output():
    img = f"{my_org()}/{my_proj()}:{ch(['latest', 'dev', semver()])}"
    base, cp, inst = ch([("node:20-alpine", "package*.json ./", "npm ci --omit=dev"),
                         ("python:3.12-slim", "requirements.txt ./", "pip install --no-cache-dir -r requirements.txt"),
                         ("golang:1.22", "go.mod go.sum ./", "go mod download")])
    dig = sha256()
    t = lambda: f"{R.random() * 3:.1f}s"
    out = ["#0 building with \"default\" instance using docker driver", "", "#1 [internal] load build definition from Dockerfile",
           f"#1 transferring dockerfile: {ri(400, 3000)}B done", "#1 DONE 0.0s", "",
           f"#2 [internal] load metadata for docker.io/library/{base}", f"#2 DONE {t()}", "", "#3 [internal] load .dockerignore",
           "#3 transferring context: 2B done", "#3 DONE 0.0s", "",
           f"#4 [base 1/5] FROM docker.io/library/{base}@sha256:{dig}",
           f"#4 resolve docker.io/library/{base}@sha256:{dig} 0.0s done", "#4 CACHED", "",
           "#5 [internal] load build context", f"#5 transferring context: {ri(10, 900)}.{ri(0, 99)}kB 0.1s done", "#5 DONE 0.1s", "",
           "#6 [base 2/5] WORKDIR /app", "#6 CACHED", "", f"#7 [base 3/5] COPY {cp}", "#7 DONE 0.1s", "",
           f"#8 [base 4/5] RUN {inst}", f"#8 {ri(5, 30)}.{ri(0, 9)} " + {"npm": f"added {ri(100, 900)} packages in {ri(4, 30)}s", "pip": "Successfully installed " + " ".join(sample(["fastapi-0.111.0", "uvicorn-0.30.1", "pydantic-2.7.4", "sqlalchemy-2.0.31", "httpx-0.27.0"], 3)),
                                                         "go ": "go: downloading github.com/gin-gonic/gin v1.9.1"}[inst[:3]], f"#8 DONE {ri(6, 40)}.{ri(0, 9)}s", "",
           "#9 [base 5/5] COPY . .", "#9 DONE 0.2s", "", "#10 exporting to image", "#10 exporting layers",
           f"#10 exporting layers {ri(1, 9)}.{ri(0, 9)}s done", f"#10 writing image sha256:{sha256()} done", f"#10 naming to docker.io/{img} done",
           f"#10 DONE {ri(1, 9)}.{ri(0, 9)}s"]
    if coin():
        out += ["", "View build details: docker-desktop://dashboard/build/default/default/" + rs(25, LOW + DIG)]
    return cmdline(f"docker buildx build --progress=plain -t {img} .") + "\n".join(out)


@N
def docker_ps_no_trunc():
    p = my_proj()
    out = [prompt() + "docker ps -a --no-trunc --format 'table {{.ID}}\\t{{.Image}}\\t{{.Status}}\\t{{.Names}}'",
           f"{'CONTAINER ID':<64}   {'IMAGE':<34} {'STATUS':<26} NAMES"]
    for svc, img in sample([("api", f"{p}-api"), ("db", "postgres:16"), ("redis", "redis:7-alpine"), ("worker", f"{p}-worker"),
                            ("minio", "minio/minio:latest"), ("mailpit", "axllent/mailpit")], ri(3, 5)):
        st = ch([f"Up {ri(2, 59)} minutes", f"Up {ri(2, 9)} hours (healthy)", f"Exited (0) {ri(2, 50)} minutes ago", f"Exited (137) {ri(1, 9)} hours ago"])
        out.append(f"{sha256()}   {img:<34} {st:<26} {p}-{svc}-1")
    out += [prompt() + "docker volume ls", "DRIVER    VOLUME NAME"]
    for _ in range(ri(2, 4)):
        out.append(f"local     {sha256()}")
    out += [f"local     {p}_pgdata", f"local     {p}_redis"]
    if coin():
        out += [prompt() + "docker network ls --no-trunc", f"{'NETWORK ID':<64}   NAME{' ' * 14}DRIVER    SCOPE"]
        for n, d in [("bridge", "bridge"), (f"{p}_default", "bridge"), ("host", "host"), ("none", "null")]:
            out.append(f"{sha256()}   {n:<18}{d:<10}local")
    return "\n".join(out)


@N
def kubectl_pod_status_yaml():
    app = my_proj()
    ns = ch(["prod", "staging", app])
    rsh = rs(10, "bcdfghjklmnpqrstvwxz2456789")
    pod = f"{app}-{rsh}-{rs(5, 'bcdfghjklmnpqrstvwxz2456789')}"
    t = rtime()
    acct, reg = aws_acct(), ch(REGIONS)
    out = [prompt() + f"kubectl get pod {pod} -n {ns} -o yaml", "apiVersion: v1", "kind: Pod", "metadata:", "  annotations:",
           f"    kubectl.kubernetes.io/restartedAt: \"{iso(t, ms=False)[:-1]}+00:00\"", f"  creationTimestamp: \"{iso(plus(t, 60, 600), ms=False)}\"",
           f"  generateName: {app}-{rsh}-", "  labels:", f"    app.kubernetes.io/name: {app}", f"    pod-template-hash: {rsh}",
           f"  name: {pod}", f"  namespace: {ns}", "  ownerReferences:", "  - apiVersion: apps/v1", "    blockOwnerDeletion: true",
           "    controller: true", "    kind: ReplicaSet", f"    name: {app}-{rsh}", f"    uid: {uuid4()}", f"  resourceVersion: \"{ri(10**6, 10**9)}\"",
           f"  uid: {uuid4()}", "spec:", "  containers:", "  - env:", "    - name: STRIPE_SECRET_KEY", "      valueFrom:", "        secretKeyRef:",
           "          key: stripe-secret-key", f"          name: {app}-env", f"    image: {acct}.dkr.ecr.{reg}.amazonaws.com/{app}:{short()}",
           f"    name: {app}", "status:", "  containerStatuses:", f"  - containerID: containerd://{sha256()}",
           f"    image: {acct}.dkr.ecr.{reg}.amazonaws.com/{app}:{short()}",
           f"    imageID: {acct}.dkr.ecr.{reg}.amazonaws.com/{app}@sha256:{sha256()}", f"    name: {app}", "    ready: true",
           f"    restartCount: {ri(0, 3)}", "    started: true", "    state:", "      running:", f"        startedAt: \"{iso(plus(t, 600, 900), ms=False)}\"",
           f"  hostIP: {ip_priv()}", "  phase: Running", f"  podIP: {ip_priv()}"]
    return "\n".join(out)


@N
def kubectl_describe_node():
    reg = ch(REGIONS)
    name = f"ip-10-{ri(0, 255)}-{ri(0, 255)}-{ri(1, 254)}.{reg}.compute.internal"
    t = rtime()
    out = [prompt() + f"kubectl describe node {name} | sed -n '1,45p'", f"Name:               {name}", "Roles:              <none>",
           "Labels:             beta.kubernetes.io/arch=amd64", f"                    beta.kubernetes.io/instance-type={ch(['m6i.large', 'm7g.xlarge', 'c6a.2xlarge', 't3.large'])}",
           f"                    eks.amazonaws.com/nodegroup={my_org()}-ng-{ch(['general', 'spot', 'arm'])}",
           f"                    eks.amazonaws.com/nodegroup-image=ami-{hx(17)}", f"                    topology.kubernetes.io/zone={reg}{ch('abc')}",
           "Annotations:        alpha.kubernetes.io/provided-node-ip: " + ip_priv(), "                    node.alpha.kubernetes.io/ttl: 0",
           f"CreationTimestamp:  {t.strftime('%a, %d %b %Y %H:%M:%S +0000')}", "Taints:             <none>", "Unschedulable:      false",
           "Addresses:", f"  InternalIP:   {ip_priv()}", f"  Hostname:     {name}", "Capacity:", "  cpu:                2",
           "  memory:             7935436Ki", "  pods:               29", "System Info:", f"  Machine ID:                 {hx(32)}",
           f"  System UUID:                ec2{hx(5)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}", f"  Boot ID:                    {uuid4()}",
           f"  Kernel Version:             6.1.{ri(80, 120)}-{ri(100, 140)}.{ri(100, 230)}.amzn2023.x86_64", "  OS Image:                   Amazon Linux 2023.5.20240624",
           "  Operating System:           linux", "  Architecture:               amd64", f"  Container Runtime Version:  containerd://1.7.{ri(11, 20)}",
           f"  Kubelet Version:            v1.{ri(27, 30)}.{ri(0, 9)}-eks-{hx(7)}", f"PodCIDR:                      10.{ri(0, 255)}.{ri(0, 255)}.0/24",
           f"ProviderID:                   aws:///{reg}{ch('abc')}/i-{hx(17)}", "Non-terminated Pods:          (9 in total)",
           "  Namespace                   Name                                      CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age",
           "  ---------                   ----                                      ------------  ----------  ---------------  -------------  ---"]
    for ns_, pn in [("kube-system", f"aws-node-{rs(5, 'bcdfghjklmnpqrstvwxz2456789')}"), ("kube-system", f"kube-proxy-{rs(5, 'bcdfghjklmnpqrstvwxz2456789')}"),
                    ("prod", f"{my_proj()}-{pod_suffix()}")]:
        out.append(f"  {ns_:<28}{pn:<42}{ri(25, 500)}m (3%)     0 (0%)      {ri(64, 512)}Mi (2%)       0 (0%)         {ri(2, 40)}d")
    return "\n".join(out)


@N
def lambda_cloudwatch_logs():
    fn = f"{my_proj()}-{ch(['handler', 'consumer', 'api', 'cron'])}"
    t = rtime()
    out = []
    for _ in range(ri(2, 3)):
        rid = uuid4()
        stream = f"{t.strftime('%Y/%m/%d')}/[$LATEST]{hx(32)}"
        out.append(f"{iso(t)} {stream} START RequestId: {rid} Version: $LATEST")
        t = plus(t, 0, 1)
        out.append(f"{iso(t)} {stream} {iso(t)}\t{rid}\tINFO\t" + ch([
            json.dumps({"msg": "processing batch", "records": ri(1, 100), "queue": f"{my_proj()}-events"}),
            f"fetched order {ri(10000, 99999)} in {ri(5, 400)}ms",
            json.dumps({"level": "info", "event": "s3:ObjectCreated:Put", "key": f"uploads/{uuid4()}.csv", "etag": hx(32)})]))
        t = plus(t, 0, 2)
        out.append(f"{iso(t)} {stream} END RequestId: {rid}")
        dur = R.random() * 900
        out.append(f"{iso(t)} {stream} REPORT RequestId: {rid}\tDuration: {dur:.2f} ms\tBilled Duration: {int(dur) + 1} ms\tMemory Size: {ch([128, 256, 512, 1024])} MB\tMax Memory Used: {ri(60, 200)} MB\t"
                   + (f"Init Duration: {R.random() * 900:.2f} ms\t" if coin(0.3) else "")
                   + f"\nXRAY TraceId: 1-{hx(8)}-{hx(24)}\tSegmentId: {hx(16)}\tSampled: true")
        t = plus(t, 5, 90)
    return cmdline(f"aws logs tail /aws/lambda/{fn} --since 15m") + "\n".join(out)


@N
def otel_debug_exporter():
    t = rtime()
    svc = my_proj()
    out = [f"{iso(t)}\tinfo\tTracesExporter\t{{\"kind\": \"exporter\", \"data_type\": \"traces\", \"name\": \"debug\", \"resource spans\": 1, \"spans\": 2}}",
           "ResourceSpans #0", "Resource SchemaURL: https://opentelemetry.io/schemas/1.24.0", "Resource attributes:",
           f"     -> service.name: Str({svc})", f"     -> service.version: Str({semver()})", "     -> telemetry.sdk.language: Str(python)",
           f"     -> host.name: Str({svc}-{pod_suffix()})", "ScopeSpans #0", "ScopeSpans SchemaURL: ",
           "InstrumentationScope opentelemetry.instrumentation.fastapi 0.46b0"]
    tid = hx(32)
    parent = hx(16)
    for i in range(2):
        sid = hx(16)
        st = plus(t, 0, 1)
        out += [f"Span #{i}", f"    Trace ID       : {tid}", f"    Parent ID      : {parent if i == 0 else ''}", f"    ID             : {sid}",
                f"    Name           : {ch(['GET /api/v1/orders/{order_id}', 'POST /api/v1/checkout', 'SELECT orders'])}",
                f"    Kind           : {ch(['Server', 'Internal', 'Client'])}", f"    Start time     : {st.strftime('%Y-%m-%d %H:%M:%S.%f')}123 +0000 UTC",
                f"    End time       : {plus(st, 0, 1).strftime('%Y-%m-%d %H:%M:%S.%f')}456 +0000 UTC", "    Status code    : Unset",
                "    Status message : ", "Attributes:", "     -> http.method: Str(GET)", f"     -> http.route: Str(/api/v1/orders/{{order_id}})",
                f"     -> http.status_code: Int({ch([200, 200, 404, 500])})", f"     -> http.request.header.traceparent: Slice([\"00-{tid}-{parent}-01\"])"]
        parent = sid
    return cmdline(f"docker logs otel-collector --since 1m") + "\n".join(out)


@N
def webhook_signature_headers():
    t = rtime()
    body_len = ri(400, 9000)
    k = ri(0, 2)
    if k == 0:
        hdr = [f"X-GitHub-Delivery: {uuid4()}", f"X-GitHub-Event: {ch(['push', 'pull_request', 'workflow_run', 'check_suite'])}",
               f"X-GitHub-Hook-ID: {ri(10**8, 10**9)}", f"X-GitHub-Hook-Installation-Target-ID: {ri(10**8, 10**9)}",
               "X-GitHub-Hook-Installation-Target-Type: repository", f"X-Hub-Signature: sha1={sha1()}",
               f"X-Hub-Signature-256: sha256={sha256()}", "User-Agent: GitHub-Hookshot/" + hx(7)]
    elif k == 1:
        ts = epoch(t)
        hdr = [f"Stripe-Signature: t={ts},v1={sha256()},v0={sha256()}", "User-Agent: Stripe/1.0 (+https://stripe.com/docs/webhooks)",
               "Content-Type: application/json; charset=utf-8"]
    else:
        hdr = [f"X-Slack-Request-Timestamp: {epoch(t)}", f"X-Slack-Signature: v0={sha256()}", "X-Slack-Retry-Num: 1",
               "X-Slack-Retry-Reason: http_timeout", "User-Agent: Slackbot 1.0 (+https://api.slack.com/robots)"]
    out = [f"{iso(t)} DEBUG webhook.receiver incoming POST /webhooks/{['github', 'stripe', 'slack'][k]} ({body_len} bytes)", "  Host: hooks." + domain(),
           f"  Content-Length: {body_len}"] + ["  " + h for h in hdr] + [f"  X-Forwarded-For: {ip_pub()}", f"  X-Request-Id: {uuid4()}"]
    out.append(f"{iso(plus(t, 0, 1))} INFO  webhook.receiver signature verified (scheme={['sha256', 'v1', 'v0'][k]}) in {ri(0, 4)}ms")
    out.append(f"{iso(plus(t, 0, 2))} INFO  webhook.receiver enqueued job {ri(10**5, 10**6)} for event " + ["push", "invoice.paid", "event_callback"][k])
    return cmdline(ch([f"kubectl logs deploy/{my_proj()}-webhooks --tail=30", "tail -n 30 logs/webhooks.log"])) + "\n".join(out)


@N
def curl_csp_etag_cookies():
    d = domain()
    t = rtime()
    nonce = b64(16)
    out = [prompt() + f"curl -sI https://www.{d}/", "HTTP/2 200", f"date: {t.strftime('%a, %d %b %Y %H:%M:%S GMT')}",
           "content-type: text/html; charset=utf-8", f"etag: W/\"{hx(ch([16, 32, 40]))}\"" if coin() else f"etag: \"{hx(32)}-gzip\"",
           f"last-modified: {(t - dt.timedelta(days=ri(1, 9))).strftime('%a, %d %b %Y %H:%M:%S GMT')}", "cache-control: public, max-age=0, must-revalidate",
           f"content-security-policy: default-src 'self'; script-src 'self' 'nonce-{nonce}' 'strict-dynamic' https://www.googletagmanager.com; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; frame-ancestors 'none'",
           "strict-transport-security: max-age=63072000; includeSubDomains; preload", "x-content-type-options: nosniff",
           f"set-cookie: _ga=GA1.1.{ri(10**8, 10**9)}.{epoch(t)}; Path=/; Domain=.{d}; Max-Age=63072000",
           f"set-cookie: theme={ch(['dark', 'light', 'system'])}; Path=/; Max-Age=31536000; SameSite=Lax",
           f"set-cookie: NEXT_LOCALE={ch(['en', 'de', 'fr', 'en-US'])}; Path=/; SameSite=Lax",
           f"set-cookie: _gcl_au=1.1.{ri(10**8, 10**10)}.{epoch(t)}; Path=/; Domain=.{d}; Max-Age=7776000"]
    if coin():
        out += [f"x-amz-cf-id: {b64u(42)}==", f"x-amz-cf-pop: {ch(['FRA56-P4', 'IAD89-C1', 'NRT57-P2'])}", "via: 1.1 " + hx(32) + ".cloudfront.net (CloudFront)", "x-cache: Hit from cloudfront"]
    else:
        out += [f"cf-ray: {hx(16)}-{ch(['FRA', 'AMS', 'SJC', 'LHR'])}", "cf-cache-status: DYNAMIC", "server: cloudflare"]
    out.append(f"x-vercel-id: {ch(['fra1', 'iad1', 'sfo1'])}::{rs(5, LOW + DIG)}-{epoch(t)}{ri(100, 999)}-{hx(12)}" if coin() else f"x-request-id: {uuid4()}")
    return "\n".join(out)


def vite_hash():
    return rs(8, ALNUM + "-_")


@N
def vite_build_assets():
    if coin(0.6):
        out = [prompt() + "npm run build", "", f"> {my_proj()}@{semver()} build", "> tsc -b && vite build", "",
               f"vite v5.{ri(0, 4)}.{ri(0, 12)} building for production...", f"✓ {ri(200, 3000)} modules transformed."]
        assets = [("dist/index.html", ri(40, 90) / 100, ri(25, 40) / 100)]
        assets += [(f"dist/assets/{n}-{vite_hash()}.{e}", R.random() * 300 + 1, R.random() * 80 + 0.5)
                   for n, e in [("index", "css"), ("logo", "svg"), ("vendor", "js"), ("index", "js"), ("Dashboard", "js"), ("Settings", "js")]]
        w = max(len(a[0]) for a in assets) + 2
        for n, sz, gz in assets:
            out.append(f"{n:<{w}}{sz:>8.2f} kB │ gzip: {gz:>6.2f} kB")
        out.append(f"✓ built in {R.random() * 9 + 1:.2f}s")
        return "\n".join(out)
    out = [prompt() + "npm run build", "", "Creating an optimized production build...", "Compiled successfully.", "",
           "File sizes after gzip:", ""]
    for n, e in [("main", "js"), (str(ri(100, 999)), "chunk.js"), ("main", "css"), (str(ri(100, 999)), "chunk.js")]:
        kind = "css" if e == "css" else "js"
        out.append(f"  {ri(1, 90)}.{ri(1, 99)} kB  build/static/{kind}/{n}.{hx(8)}.{e}")
    out += ["", "The project was built assuming it is hosted at /.", "The build folder is ready to be deployed."]
    return "\n".join(out)


@N
def html_sri():
    js, css = vite_hash(), vite_hash()
    h1, h2 = sri("sha384"), sri("sha384")
    out = [prompt() + "cat dist/index.html", "<!doctype html>", "<html lang=\"en\">", "  <head>", "    <meta charset=\"UTF-8\" />",
           "    <link rel=\"icon\" type=\"image/svg+xml\" href=\"/favicon.svg\" />", "    <meta name=\"viewport\" content=\"width=device-width, initial-scale=1.0\" />",
           f"    <meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'self' 'sha256-{b64(32)}' 'sha256-{b64(32)}'\" />",
           f"    <meta name=\"google-site-verification\" content=\"{b64u(32)}\" />" if coin() else f"    <meta name=\"theme-color\" content=\"#{hx(6)}\" />",
           f"    <title>{my_proj().replace('-', ' ').title()}</title>",
           f"    <script type=\"module\" crossorigin src=\"/assets/index-{js}.js\" integrity=\"{h1}\"></script>",
           f"    <link rel=\"modulepreload\" crossorigin href=\"/assets/vendor-{vite_hash()}.js\" integrity=\"{sri('sha384')}\">",
           f"    <link rel=\"stylesheet\" crossorigin href=\"/assets/index-{css}.css\" integrity=\"{h2}\">",
           f"    <script async src=\"https://www.googletagmanager.com/gtag/js?id=G-{rs(10, UP + DIG)}\"></script>",
           "  </head>", "  <body>", "    <div id=\"root\"></div>", "  </body>", "</html>"]
    return "\n".join(out)


@N
def bcrypt_psql_users():
    t = rtime()
    rows = []
    for i in range(ri(3, 6)):
        e = email()
        rows.append((ri(1, 9000), e, bcrypt_hash(prefix=ch(["$2b$", "$2a$", "$2y$"])), ch(["admin", "member", "viewer"]),
                     (t - dt.timedelta(days=ri(1, 500))).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "+00"))
    w = max(len(r[1]) for r in rows) + 1
    out = [prompt() + f"psql -h localhost -U {ch(['app', 'postgres'])} -d {my_proj().replace('-', '_')}_dev -c \"select id, email, password_hash, role, created_at from users order by id limit {len(rows)}\"",
           f"  id  | {'email':<{w}}|                        password_hash                         |  role  |         created_at",
           f"------+{'-' * (w + 1)}+--------------------------------------------------------------+--------+----------------------------"]
    for r in sorted(rows):
        out.append(f" {r[0]:>4} | {r[1]:<{w}}| {r[2]:<60} | {r[3]:<6} | {r[4]}")
    out.append(f"({len(rows)} rows)")
    return "\n".join(out)


@N
def django_dumpdata_pbkdf2():
    objs = []
    t = rtime()
    for i in range(1, ri(1, 2) + 1):
        f = full()
        objs.append({"model": "auth.user", "pk": i, "fields": {"password": pbkdf2_hash() if coin(0.8) else argon2_hash().replace("$argon2id", "argon2$argon2id"),
                     "last_login": iso(t - dt.timedelta(days=ri(0, 40))), "is_superuser": i == 1, "username": f.split()[0].lower(),
                     "first_name": f.split()[0], "last_name": f.split()[1], "email": email(f.split()[0].lower()), "is_staff": i == 1,
                     "is_active": True, "date_joined": iso(t - dt.timedelta(days=ri(50, 900))), "groups": [], "user_permissions": []}})
    return cmdline("python manage.py dumpdata auth.user --indent 2") + json.dumps(objs, indent=2)


def apr1():
    a = "./" + DIG + UP + LOW
    return f"$apr1${rs(8, a)}${rs(22, a)}"


@N
def htpasswd_file():
    users_ = sample(USERS, ri(3, 5))
    out = [prompt() + "sudo cat /etc/nginx/.htpasswd"]
    for u in users_:
        k = ri(0, 2)
        out.append(f"{u}:" + [apr1(), bcrypt_hash(cost=5, prefix="$2y$"), "{SHA}" + b64(20)][k])
    out += [prompt() + "ls -l /etc/nginx/.htpasswd", f"-rw-r----- 1 root www-data {ri(120, 400)} {rtime().strftime('%b %d %H:%M')} /etc/nginx/.htpasswd"]
    return "\n".join(out)


@N
def mongosh_argon2():
    t = rtime()
    out = [prompt() + f"mongosh \"$MONGO_URL\" --quiet" if coin() else prompt() + "mongosh",
           f"Current Mongosh Log ID:\t{hx(24)}",
           f"Connecting to:\t\tmongodb://<credentials>@127.0.0.1:27017/{my_proj().replace('-', '_')}?directConnection=true&serverSelectionTimeoutMS=2000&appName=mongosh+2.2.{ri(1, 10)}",
           f"Using MongoDB:\t\t7.0.{ri(5, 14)}", f"Using Mongosh:\t\t2.2.{ri(1, 10)}", "",
           f"{my_proj().replace('-', '_')}> db.users.find({{}}, {{ email: 1, passwordHash: 1, createdAt: 1 }}).limit(3)", "["]
    n = ri(2, 3)
    for i in range(n):
        out += ["  {", f"    _id: ObjectId('{hx(24)}'),", f"    email: '{email()}',", f"    passwordHash: '{argon2_hash()}',",
                f"    createdAt: ISODate('{iso(t - dt.timedelta(days=ri(1, 400)))}')", "  }" + ("," if i < n - 1 else "")]
    out.append("]")
    return "\n".join(out)


@N
def django_500_masked():
    app = my_proj().replace("-", "_")
    t = rtime()
    oid = ri(1, 999)
    out = [prompt() + f"curl -s -H 'Accept: text/plain' http://localhost:8000/api/orders/{oid}/ | head -n 60",
           f"KeyError at /api/orders/{oid}/", "'currency'", "", "Request Method: GET",
           f"Request URL: http://localhost:8000/api/orders/{oid}/", "Django Version: 5.0.6", "Python Executable: /app/.venv/bin/python",
           "Python Version: 3.12.3", "Server time: " + t.strftime("%a, %d %b %Y %H:%M:%S +0000"), "", "Traceback (most recent call last):",
           f"  File \"/app/{app}/orders/views.py\", line {ri(20, 90)}, in retrieve", "    total = format_money(order.total, order.meta['currency'])",
           "KeyError: 'currency'", "", "Request information:", "USER: AnonymousUser", "",
           "COOKIES:", "sessionid = '********************'", "csrftoken = '********************'", "", "META:",
           "HTTP_ACCEPT = 'text/plain'", "HTTP_AUTHORIZATION = '********************'", "HTTP_HOST = 'localhost:8000'",
           "HTTP_USER_AGENT = 'curl/8.5.0'", "", "Settings:", f"Using settings module {app}.settings", "ALLOWED_HOSTS = ['*']",
           "AWS_SECRET_ACCESS_KEY = '********************'", f"AWS_STORAGE_BUCKET_NAME = '{app}-media'",
           "DATABASES = {'default': {'ATOMIC_REQUESTS': False, 'AUTOCOMMIT': True, 'CONN_MAX_AGE': 0, 'ENGINE': 'django.db.backends.postgresql', 'HOST': 'db', 'NAME': '"
           + app + "', 'OPTIONS': {}, 'PASSWORD': '********************', 'PORT': '5432', 'USER': 'app'}}",
           "DEBUG = True", "EMAIL_HOST_PASSWORD = '********************'", "SECRET_KEY = '********************'",
           "STRIPE_SECRET_KEY = '********************'", "TIME_ZONE = 'UTC'", "", "You're seeing this error because you have DEBUG = True in your",
           "Django settings file. Change that to False, and Django will display a standard page generated by the handler for this status code."]
    return "\n".join(out)


@N
def celery_banner_masked():
    app = my_proj().replace("-", "_")
    t = rtime()
    host = f"{app}-worker-{pod_suffix()}"
    out = [prompt() + f"celery -A {app} worker -l info -c {ri(2, 16)}", " ", f" -------------- celery@{host} v5.3.6 (emerald-rush)",
           "--- ***** ----- ", f"-- ******* ---- Linux-6.5.0-{ri(10, 44)}-generic-x86_64-with-glibc2.35 {t.strftime('%Y-%m-%d %H:%M:%S')}",
           "- *** --- * --- ", "- ** ---------- [config]", f"- ** ---------- .> app:         {app}:0x7f{hx(10)}",
           f"- ** ---------- .> transport:   {ch(['amqp://guest:**@rabbitmq:5672//', 'redis://:**@redis:6379/0', 'amqps://' + app + ':**@b-' + uuid4() + '.mq.' + ch(REGIONS) + '.amazonaws.com:5671//'])}",
           f"- ** ---------- .> results:     {ch(['redis://:**@redis:6379/1', 'disabled://', 'db+postgresql://app:**@db:5432/' + app])}",
           f"- *** --- * --- .> concurrency: {ri(2, 16)} (prefork)", "-- ******* ---- .> task events: OFF (enable -E to monitor tasks in this worker)",
           "--- ***** ----- ", " -------------- [queues]", "                .> celery           exchange=celery(direct) key=celery", "",
           "[tasks]", f"  . {app}.tasks.send_receipt", f"  . {app}.tasks.sync_inventory", f"  . {app}.tasks.rebuild_search_index", "",
           f"[{t.strftime('%Y-%m-%d %H:%M:%S')},{ri(100, 299)}: INFO/MainProcess] Connected to {ch(['amqp://guest:**@rabbitmq:5672//', 'redis://:**@redis:6379/0'])}",
           f"[{t.strftime('%Y-%m-%d %H:%M:%S')},{ri(300, 499)}: INFO/MainProcess] mingle: searching for neighbors",
           f"[{plus(t, 1, 1).strftime('%Y-%m-%d %H:%M:%S')},{ri(500, 699)}: INFO/MainProcess] celery@{host} ready.",
           f"[{plus(t, 2, 9).strftime('%Y-%m-%d %H:%M:%S')},{ri(100, 999)}: INFO/MainProcess] Task {app}.tasks.send_receipt[{uuid4()}] received"]
    return "\n".join(out)


@N
def gh_secret_list():
    repo = f"{my_org()}/{my_proj()}"
    t = rtime()
    names = sample(["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN", "SENTRY_AUTH_TOKEN", "DOCKERHUB_TOKEN", "SLACK_WEBHOOK_URL",
                    "CODECOV_TOKEN", "STRIPE_SECRET_KEY", "DEPLOY_KEY", "GCP_SA_KEY", "OPENAI_API_KEY"], ri(4, 7))
    out = [prompt() + f"gh secret list -R {repo}", f"{'NAME':<24}UPDATED"]
    for n in sorted(names):
        out.append(f"{n:<24}{ch(['about 2 days ago', 'about 1 month ago', 'about 5 months ago', 'less than a minute ago', 'about 1 year ago'])}")
    out += [prompt() + f"gh variable list -R {repo}", f"{'NAME':<20}{'VALUE':<34}UPDATED"]
    for n, v in [("NODE_VERSION", "20.12.2"), ("AWS_REGION", ch(REGIONS)), ("ECR_REPOSITORY", my_proj()), ("DEPLOY_ENV", ch(["prod", "staging"]))]:
        out.append(f"{n:<20}{v:<34}about {ri(2, 11)} months ago")
    out += [prompt() + f"gh secret set STRIPE_SECRET_KEY -R {repo} < /dev/stdin", f"✓ Set Actions secret STRIPE_SECRET_KEY for {repo}"]
    return "\n".join(out)


@N
def redacted_app_logs():
    t = rtime()
    svc = my_proj()
    tail4 = rs(4, ALNUM)
    lines = [f"config: OPENAI_API_KEY=sk-proj-…{tail4} (len=164) source=env",
             f"config: STRIPE_SECRET_KEY=sk_live_…{rs(4, ALNUM)} source=secretsmanager:{svc}/stripe",
             "config: DATABASE_URL=postgres://app:********@db.internal:5432/" + svc.replace("-", "_"),
             f"http: outbound POST https://api.{ch(['anthropic.com', 'openai.com', 'sendgrid.com'])}/v1/... headers={{'Authorization': '[REDACTED]', 'Content-Type': 'application/json'}}",
             "auth: github token present: ghp_************************************ (scopes: repo, read:org)",
             f"sentry: dsn=https://***@o{ri(100000, 4999999)}.ingest.sentry.io/{ri(10**15, 10**16)} env=prod",
             "vault: token renewed, ttl=768h accessor=[hidden]", f"smtp: login user=apikey password=<redacted> host=smtp.sendgrid.net:587",
             f"webhook: registered endpoint {uuid4()} secret=whsec_**** (rotated {ri(2, 40)}d ago)"]
    out = []
    for l in sample(lines, ri(5, 8)):
        t = plus(t, 0, 3)
        out.append(f"{iso(t)} {ch(['INFO ', 'DEBUG', 'INFO '])} [{svc}] {l}")
    return cmdline(ch([f"kubectl logs deploy/{svc} --tail=20", f"docker compose logs {svc} --tail 20 --no-log-prefix", "tail -20 logs/app.log"])) + "\n".join(out)


@N
def env_example_diff():
    adds = sample([("OPENAI_API_KEY", "your-api-key-here"), ("ANTHROPIC_API_KEY", "sk-ant-..."), ("STRIPE_SECRET_KEY", "sk_test_xxx"),
                   ("STRIPE_WEBHOOK_SECRET", "whsec_..."), ("SLACK_BOT_TOKEN", "xoxb-your-token"), ("JWT_SECRET", "changeme"),
                   ("AWS_SECRET_ACCESS_KEY", "<TOKEN>"), ("SENDGRID_API_KEY", "${SENDGRID_API_KEY}"), ("GITHUB_TOKEN", "{{ secrets.GITHUB_TOKEN }}"),
                   ("DATABASE_URL", "postgres://user:password@localhost:5432/app"), ("REDIS_PASSWORD", ""), ("HF_TOKEN", "hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
                   ("SESSION_SECRET", "replace-me-with-32-random-bytes"), ("DD_API_KEY", "<your datadog api key>")], ri(4, 7))
    n0 = ri(3, 20)
    out = [prompt() + "git diff .env.example", "diff --git a/.env.example b/.env.example", f"index {short()}..{short()} 100644",
           "--- a/.env.example", "+++ b/.env.example", f"@@ -{n0},4 +{n0},{4 + len(adds) + 1} @@", " # Copy to .env and fill in real values.",
           " NODE_ENV=development", " PORT=3000", " LOG_LEVEL=debug", "+", "+# --- third-party ---"]
    out += [f"+{k}={v}" for k, v in adds]
    return "\n".join(out)


@N
def direnv_export_names():
    p = my_proj()
    u = me()
    names = sorted(sample(["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "DATABASE_URL", "OPENAI_API_KEY", "GITHUB_TOKEN",
                           "STRIPE_SECRET_KEY", "VIRTUAL_ENV", "AWS_PROFILE", "KUBECONFIG"], ri(4, 7)))
    out = [prompt() + f"cd ~/src/{p}", f"direnv: loading ~/src/{p}/.envrc", "direnv: using flake" if coin() else "direnv: loading .env.local",
           "direnv: export " + " ".join("+" + n for n in names) + " ~PATH", prompt() + "cat .envrc", "source_up_if_exists", "dotenv_if_exists .env.local",
           f"export AWS_PROFILE={my_org()}-dev", "export OPENAI_API_KEY=\"$(op read 'op://Private/OpenAI/credential')\"",
           "export GITHUB_TOKEN=\"$(gh auth token)\"", "PATH_add bin", prompt() + "env | grep -c -E '^(AWS|OPENAI|GITHUB)_'", str(ri(3, 6))]
    return "\n".join(out)


@N
def gitleaks_rules():
    out = [prompt() + "cat .gitleaks.toml", "title = \"custom rules\"", "", "[extend]", "useDefault = true", "", "[[rules]]",
           "id = \"internal-api-token\"", "description = \"Internal service token\"", f"regex = '''{my_org()}_(live|test)_[0-9a-zA-Z]{{32}}'''",
           "keywords = [\"" + my_org() + "_live_\", \"" + my_org() + "_test_\"]", "", "[[rules]]", "id = \"github-pat\"",
           "regex = '''ghp_[0-9a-zA-Z]{36}'''", "", "[allowlist]", "paths = ['''(^|/)testdata/''', '''\\.snap$''']",
           "regexes = ['''EXAMPLE''', '''xxxxxxxx''']", "", prompt() + "cat .gitleaksignore"]
    for _ in range(ri(2, 4)):
        out.append(f"{sha1()}:{ch(['tests/fixtures/jwt.json', 'docs/api.md', 'testdata/fake_keys.go', 'src/__snapshots__/client.test.ts.snap'])}:{ch(['generic-api-key', 'jwt', 'github-pat', 'private-key'])}:{ri(1, 300)}")
    out += [prompt() + "gitleaks detect --no-banner -v --redact", f"{ri(100, 4000)} commits scanned.", f"scan completed in {ri(1, 9)}.{ri(10, 99)}s", "no leaks found"]
    return "\n".join(out)


@N
def rfc_test_vectors():
    import hmac
    k1 = b"\x0b" * 20
    h1 = hmac.new(k1, b"Hi There", hashlib.sha256).hexdigest()
    h2 = hmac.new(b"Jefe", b"what do ya want for nothing?", hashlib.sha256).hexdigest()
    k3 = b"\xaa" * 20
    h3 = hmac.new(k3, b"\xdd" * 50, hashlib.sha256).hexdigest()
    if coin():
        out = [prompt() + "sed -n '1,40p' internal/crypto/hmac_test.go", "package crypto", "", "import (", "\t\"encoding/hex\"", "\t\"testing\"", ")", "",
               "// Test vectors from RFC 4231, section 4.", "var rfc4231 = []struct {", "\tkey, data, want string", "}{",
               "\t{ // Test Case 1", f"\t\tkey:  \"{k1.hex()}\",", f"\t\tdata: \"{b'Hi There'.hex()}\",", f"\t\twant: \"{h1}\",", "\t},",
               "\t{ // Test Case 2 (key = \"Jefe\")", f"\t\tkey:  \"{b'Jefe'.hex()}\",", f"\t\tdata: \"{b'what do ya want for nothing?'.hex()}\",", f"\t\twant: \"{h2}\",", "\t},",
               "\t{ // Test Case 3", f"\t\tkey:  \"{k3.hex()}\",", "\t\tdata: \"" + ("dd" * 50) + "\",", f"\t\twant: \"{h3}\",", "\t},", "}", "",
               "func TestHMACSHA256RFC4231(t *testing.T) {", "\tfor i, tc := range rfc4231 {", "\t\tk, _ := hex.DecodeString(tc.key)",
               "\t\td, _ := hex.DecodeString(tc.data)", "\t\tif got := hex.EncodeToString(Sign(k, d)); got != tc.want {",
               "\t\t\tt.Errorf(\"case %d: got %s want %s\", i+1, got, tc.want)", "\t\t}", "\t}", "}"]
        return "\n".join(out)
    seed = b"12345678901234567890"
    rows = []
    for tt in [59, 1111111109, 1111111111, 1234567890, 2000000000]:
        msg = struct.pack(">Q", tt // 30)
        hm = hmac.new(seed, msg, hashlib.sha1).digest()
        o = hm[-1] & 15
        code = (struct.unpack(">I", hm[o:o + 4])[0] & 0x7FFFFFFF) % 10**8
        rows.append((tt, f"{code:08d}"))
    out = [prompt() + "pytest -q tests/test_totp.py -k rfc6238 -vv", "============================= test session starts ==============================",
           "collected 9 items / 4 deselected / 5 selected", ""]
    for tt, c in rows:
        out.append(f"tests/test_totp.py::test_rfc6238_sha1[{tt}-{c}] PASSED{' ' * 20}[{20 * (rows.index((tt, c)) + 1):3d}%]")
    out += ["", f"======================= 5 passed, 4 deselected in 0.0{ri(2, 9)}s ========================", prompt() + "grep -n 'SEED' tests/test_totp.py",
            "8:# RFC 6238 Appendix B: the SHA1 seed is the ASCII string \"12345678901234567890\"", f"9:RFC_SEED_SHA1 = b\"12345678901234567890\""]
    return "\n".join(out)


@N
def markdown_links_slugs():
    o = my_org()
    out = [prompt() + "cat docs/meetings/" + rtime().strftime("%Y-%m-%d") + "-sync.md", f"# {ch(['Weekly sync', 'Design review', 'Sprint planning'])}", "",
           "## Links", f"- Recording: https://www.youtube.com/watch?v={rs(11, ALNUM + '-_')}&t={ri(10, 3000)}s",
           f"- Demo clip: https://youtu.be/{rs(11, ALNUM + '-_')}", f"- Spec: https://www.notion.so/{o}/{ch(['Checkout-v2', 'Pricing-Rules', 'Q3-Roadmap'])}-{hx(32)}",
           f"- Mockups: https://www.figma.com/design/{rs(22, ALNUM)}/{ch(['Checkout', 'Onboarding', 'Dashboard'])}?node-id={ri(1, 900)}-{ri(1, 9000)}&t={rs(16, ALNUM)}-0",
           f"- PR: https://github.com/{o}/{my_proj()}/pull/{ri(100, 3000)}/commits/{sha1()}",
           f"- Ticket: https://linear.app/{o}/issue/ENG-{ri(100, 4000)}/{ch(['fix-refund-rounding', 'add-csv-export', 'migrate-to-pg16'])}",
           f"- Short link from marketing: https://bit.ly/{rs(7, ALNUM)}", "", "## Notes",
           f"- {ch(FULL)} to follow up on the flaky e2e test (run {ri(10**9, 10**10)})", "- Ship behind `new-checkout` flag first"]
    return "\n".join(out)


@N
def css_modules_colors():
    comps = ["Button", "Card", "Header", "Modal", "Sidebar", "Table"]
    out = [prompt() + f"head -c 1200 dist/assets/index-{vite_hash()}.css"]
    css = ""
    for c in sample(comps, 4):
        for part in sample(["root", "primary", "title", "body", "active", "icon"], 2):
            css += f"._{part}_{rs(5, LOW + DIG + '_')}_{ri(1, 400)}{{color:#{hx(6)};background:#{hx(6)};border:1px solid #{hx(3)}}}"
            css += f".{c}-module__{part}--{rs(5, ALNUM + '_-')}{{padding:{ri(2, 24)}px {ri(2, 24)}px}}"
    css += f":root{{--brand:#{hx(6)};--brand-600:#{hx(6)};--muted:#{hx(6)}}}"
    out.append(css)
    out += [prompt() + "grep -o '#[0-9a-f]\\{6\\}' tailwind.config.js | sort -u | head -5"] + [f"#{hx(6)}" for _ in range(5)]
    return "\n".join(out)


@N
def xxd_hexdump():
    f, head = ch([("public/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ("target/release/" + my_proj(), b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
                  ("assets/font.woff2", b"wOF2\x00\x01\x00\x00"), ("data/sample.parquet", b"PAR1\x15\x04\x15")])
    data = head + rb(160 - len(head))
    out = [prompt() + f"xxd -l 160 {f}"]
    for i in range(0, 160, 16):
        chunk = data[i:i + 16]
        hexs = " ".join(chunk[j:j + 2].hex() for j in range(0, 16, 2))
        asc = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        out.append(f"{i:08x}: {hexs}  {asc}")
    return "\n".join(out)


@N
def xcode_pbxproj():
    app = my_proj().replace("-", " ").title().replace(" ", "")
    ids = lambda: HX(24)
    files = ["AppDelegate.swift", "SceneDelegate.swift", "ContentView.swift", "Assets.xcassets", "Info.plist", "LaunchScreen.storyboard"]
    out = [prompt() + f"sed -n '1,40p' ios/{app}.xcodeproj/project.pbxproj", "// !$*UTF8*$!", "{", "\tarchiveVersion = 1;", "\tclasses = {", "\t};",
           "\tobjectVersion = 56;", "\tobjects = {", "", "/* Begin PBXBuildFile section */"]
    refs = {fn: ids() for fn in files}
    for fn in files[:4]:
        out.append(f"\t\t{ids()} /* {fn} in {'Resources' if '.' in fn and not fn.endswith('.swift') else 'Sources'} */ = {{isa = PBXBuildFile; fileRef = {refs[fn]} /* {fn} */; }};")
    out += ["/* End PBXBuildFile section */", "", "/* Begin PBXFileReference section */"]
    for fn in files:
        typ = "sourcecode.swift" if fn.endswith(".swift") else "folder.assetcatalog" if "xcassets" in fn else "text.plist.xml" if "plist" in fn else "file.storyboard"
        out.append(f"\t\t{refs[fn]} /* {fn} */ = {{isa = PBXFileReference; lastKnownFileType = {typ}; path = {fn}; sourceTree = \"<group>\"; }};")
    out += [f"\t\t{ids()} /* {app}.app */ = {{isa = PBXFileReference; explicitFileType = wrapper.application; includeInIndex = 0; path = {app}.app; sourceTree = BUILT_PRODUCTS_DIR; }};",
            "/* End PBXFileReference section */", prompt() + "grep -m3 -E 'DEVELOPMENT_TEAM|PRODUCT_BUNDLE_IDENTIFIER' ios/" + app + ".xcodeproj/project.pbxproj",
            f"\t\t\t\tDEVELOPMENT_TEAM = {rs(10, UP + DIG)};", f"\t\t\t\tPRODUCT_BUNDLE_IDENTIFIER = com.{my_org()}.{app.lower()};"]
    return "\n".join(out)


def guid():
    return uuid4().upper()


@N
def dotnet_sln_guids():
    name = my_proj().replace("-", " ").title().replace(" ", "")
    projs = [(name + ".Api", "9A19103F-16F7-4668-BE54-9A1E7A4F7556"), (name + ".Domain", "9A19103F-16F7-4668-BE54-9A1E7A4F7556"),
             (name + ".Tests", "9A19103F-16F7-4668-BE54-9A1E7A4F7556")]
    gids = [guid() for _ in projs]
    out = [prompt() + f"cat {name}.sln", "", "Microsoft Visual Studio Solution File, Format Version 12.00", "# Visual Studio Version 17",
           f"VisualStudioVersion = 17.{ri(5, 10)}.{ri(30000, 35000)}.{ri(10, 400)}", "MinimumVisualStudioVersion = 10.0.40219.1"]
    for (p, tg), g in zip(projs, gids):
        folder = "tests" if p.endswith("Tests") else "src"
        out += [f"Project(\"{{{tg}}}\") = \"{p}\", \"{folder}\\{p}\\{p}.csproj\", \"{{{g}}}\"", "EndProject"]
    out += ["Global", "\tGlobalSection(SolutionConfigurationPlatforms) = preSolution", "\t\tDebug|Any CPU = Debug|Any CPU",
            "\t\tRelease|Any CPU = Release|Any CPU", "\tEndGlobalSection", "\tGlobalSection(ProjectConfigurationPlatforms) = postSolution"]
    for g in gids:
        out += [f"\t\t{{{g}}}.Debug|Any CPU.ActiveCfg = Debug|Any CPU", f"\t\t{{{g}}}.Debug|Any CPU.Build.0 = Debug|Any CPU"]
    out += ["\tEndGlobalSection", "\tGlobalSection(ExtensibilityGlobals) = postSolution", f"\t\tSolutionGuid = {{{guid()}}}", "\tEndGlobalSection", "EndGlobal"]
    return "\n".join(out)


def colon_hex(n):
    return ":".join(HX(2) for _ in range(n))


@N
def gradle_signing_report():
    u = me()
    out = [prompt() + "./gradlew signingReport", "", "> Task :app:signingReport"]
    for var, store, alias in [("debug", f"/Users/{u}/.android/debug.keystore", "AndroidDebugKey"),
                              ("release", f"/Users/{u}/keys/{my_proj()}-upload.jks", "upload"),
                              ("debugAndroidTest", f"/Users/{u}/.android/debug.keystore", "AndroidDebugKey")]:
        out += [f"Variant: {var}", f"Config: {var if var != 'debugAndroidTest' else 'debug'}", f"Store: {store}", f"Alias: {alias}",
                f"MD5: {colon_hex(16)}", f"SHA1: {colon_hex(20)}", f"SHA-256: {colon_hex(32)}",
                f"Valid until: {ch(['Friday', 'Sunday', 'Tuesday'])}, {ri(1, 28)} {ch(['March', 'June', 'October'])} {ri(2049, 2055)}", "----------"]
    out += ["", "BUILD SUCCESSFUL in " + str(ri(2, 20)) + "s", "1 actionable task: 1 executed"]
    return "\n".join(out)


@N
def ssh_verbose_hostkey():
    host = ch(["github.com", f"gitlab.{domain()}", ip_priv(), f"bastion.{domain()}"])
    u = me()
    fp_srv = "SHA256:" + b64(32).rstrip("=")
    fp_me = "SHA256:" + b64(32).rstrip("=")
    out = [prompt() + f"ssh -v -T git@{host} 2>&1 | grep -E 'debug1: (Connecting|Server host key|Host|Will attempt|Offering|Server accepts|Authenticated)'",
           f"debug1: Connecting to {host} [{ip_pub()}] port 22.", f"debug1: Server host key: ssh-ed25519 {fp_srv}",
           f"debug1: Host '{host}' is known and matches the ED25519 host key.", f"debug1: Will attempt key: /home/{u}/.ssh/id_ed25519 ED25519 {fp_me}",
           f"debug1: Offering public key: /home/{u}/.ssh/id_ed25519 ED25519 {fp_me}", f"debug1: Server accepts key: /home/{u}/.ssh/id_ed25519 ED25519 {fp_me}",
           f"Authenticated to {host} ([{ip_pub()}]:22) using \"publickey\".", prompt() + f"ssh-keygen -F {host}", f"# Host {host} found: line {ri(1, 40)}",
           f"|1|{b64(20)}|{b64(20)} ssh-ed25519 " + b64e(sstr("ssh-ed25519") + sstr(rb(32))),
           prompt() + "ssh-keygen -lf ~/.ssh/id_ed25519.pub", f"256 {fp_me} {u}@{CTX.get('host', 'devbox')} (ED25519)"]
    return "\n".join(out)


@N
def wireguard_show():
    out = [prompt(u="root") + "wg show", f"interface: {ch(['wg0', 'wg1'])}", f"  public key: {wg_pub()}", "  private key: (hidden)",
           f"  listening port: {ch([51820, 51821])}", ""]
    for i in range(ri(1, 3)):
        out += [f"peer: {wg_pub()}"]
        if coin():
            out.append("  preshared key: (hidden)")
        out += [f"  endpoint: {ip_pub()}:{ri(1024, 65000)}", f"  allowed ips: 10.{ri(0, 255)}.{ri(0, 255)}.{ri(2, 250)}/32",
                f"  latest handshake: {ri(1, 59)} seconds ago" if coin() else f"  latest handshake: {ri(1, 5)} minutes, {ri(1, 59)} seconds ago",
                f"  transfer: {ri(1, 900)}.{ri(10, 99)} KiB received, {ri(1, 90)}.{ri(10, 99)} MiB sent", ""]
    return "\n".join(out).rstrip()


@N
def tailscale_status_json():
    me_ = CTX.get("host", "devbox")
    self_ = {"ID": "n" + rs(12, ALNUM) + "CNTRL", "PublicKey": "nodekey:" + hx(64), "HostName": me_, "DNSName": f"{me_}.tail{hx(4)}.ts.net.",
             "OS": "linux", "TailscaleIPs": [f"100.{ri(64, 127)}.{ri(0, 255)}.{ri(1, 254)}", f"fd7a:115c:a1e0::{hx(4)}:{hx(4)}"],
             "Online": True, "ExitNode": False, "Created": iso(rtime(), ms=False)}
    out = [prompt() + "tailscale status --json | jq '.Self, .CurrentTailnet'", json.dumps(self_, indent=2),
           json.dumps({"Name": f"{me()}@{my_org()}.com", "MagicDNSSuffix": f"tail{hx(4)}.ts.net", "MagicDNSEnabled": True}, indent=2),
           prompt() + "tailscale status"]
    peers = [me_] + [h for h in sample(HOSTS, 3) if h != me_][:2]
    for i, h in enumerate(peers):
        ip = self_["TailscaleIPs"][0] if i == 0 else f"100.{ri(64, 127)}.{ri(0, 255)}.{ri(1, 254)}"
        st = "-" if i == 0 else ch(["active; direct " + ip_pub() + ":41641, tx " + str(ri(1000, 99999)) + " rx " + str(ri(1000, 99999)), "idle, tx 1234 rx 5678", "offline"])
        out.append(f"{ip:<16} {h:<18} {me() + '@':<12} {'linux' if i == 0 else ch(['linux', 'macOS', 'windows']):<8} {st}")
    return "\n".join(out)


@N
def gpg_list_secret_keys():
    f = full()
    e = email(f.split()[0].lower())
    t = rtime()
    fp1, fp2 = HX(40), HX(40)
    out = [prompt() + "gpg -K --with-keygrip --with-subkey-fingerprints", f"/home/{me()}/.gnupg/pubring.kbx", "-" * (len(me()) + 26),
           f"sec   ed25519 {t.strftime('%Y-%m-%d')} [SC] [expires: {t.year + 2}{t.strftime('-%m-%d')}]", f"      {fp1}", f"      Keygrip = {HX(40)}",
           f"uid           [ultimate] {f} <{e}>", f"ssb   cv25519 {t.strftime('%Y-%m-%d')} [E] [expires: {t.year + 2}{t.strftime('-%m-%d')}]",
           f"      {fp2}", f"      Keygrip = {HX(40)}", "", prompt() + "git config --get user.signingkey", fp1[-16:]]
    return "\n".join(out)


@N
def cast_receipt():
    tx = eth_hash()
    out = [prompt() + f"cast receipt {tx} --rpc-url $ETH_RPC_URL", "", f"blockHash            {eth_hash()}", f"blockNumber          {ri(18000000, 21000000)}",
           "contractAddress      ", f"cumulativeGasUsed    {ri(10**6, 3 * 10**7)}", f"effectiveGasPrice    {ri(10**9, 9 * 10**10)}", f"from                 {eth_addr()}",
           f"gasUsed              {ri(21000, 400000)}", "logs                 [{\"address\":\"" + eth_addr() + "\",\"topics\":[\"0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef\",\"0x000000000000000000000000"
           + hx(40) + "\",\"0x000000000000000000000000" + hx(40) + "\"],\"data\":\"0x" + "0" * 40 + hx(24) + "\",\"blockHash\":\"" + eth_hash() + "\",\"logIndex\":\"" + hex(ri(0, 300)) + "\",\"removed\":false}]",
           "logsBloom            0x" + "".join(ch(["0", "0", "0", "0", "0", "0", "0", "0", "1", "2", "4", "8"]) for _ in range(512)),
           "root                 ", "status               1 (success)", f"transactionHash      {tx}", f"transactionIndex     {ri(0, 200)}", "type                 2",
           "blobGasPrice         ", "blobGasUsed          ", f"to                   {eth_addr()}"]
    return "\n".join(out)


@N
def ipfs_add_cids():
    out = [prompt() + "ipfs add -r --cid-version=1 dist/"]
    files = ["dist/index.html", "dist/assets/index-" + vite_hash() + ".js", "dist/assets/index-" + vite_hash() + ".css", "dist/favicon.svg"]
    for f in files:
        out.append(f"added {cid_v1(raw=True)} {f}")
    out.append(f"added {cid_v1()} dist")
    sz = ri(100, 9000)
    out.append(f" {sz}.{ri(0, 99)} KiB / {sz}.{ri(0, 99)} KiB [=============================================] 100.00%")
    out += [prompt() + "ipfs pin ls --type=recursive | head -3"] + [f"{ch([cid_v1(), cid_v0()])} recursive" for _ in range(3)]
    return "\n".join(out)


@N
def redis_info_runid():
    out = [prompt() + "redis-cli -h " + ch(["127.0.0.1", "cache.internal"]) + " INFO server | head -20", "# Server", f"redis_version:7.2.{ri(1, 5)}",
           "redis_git_sha1:00000000", "redis_git_dirty:0", f"redis_build_id:{hx(16)}", "redis_mode:standalone", "os:Linux 6.5.0-1022-aws x86_64",
           "arch_bits:64", "monotonic_clock:POSIX clock_gettime", "multiplexing_api:epoll", "gcc_version:12.2.0", f"process_id:{ri(1, 999)}",
           "process_supervised:no", f"run_id:{sha1()}", "tcp_port:6379", f"server_time_usec:{epoch(rtime())}{ri(100000, 999999)}",
           f"uptime_in_seconds:{ri(100, 10**7)}", f"uptime_in_days:{ri(0, 100)}", "hz:10", "configured_hz:10",
           prompt() + "redis-cli INFO replication", "# Replication", "role:master", f"connected_slaves:{ri(0, 2)}", f"master_failover_state:no-failover",
           f"master_replid:{sha1()}", "master_replid2:0000000000000000000000000000000000000000", f"master_repl_offset:{ri(10**5, 10**9)}",
           "second_repl_offset:-1", "repl_backlog_active:0", "repl_backlog_size:1048576"]
    return "\n".join(out)


@N
def elasticsearch_cat():
    cn = f"{my_org()}-{ch(['search', 'logs', 'es'])}"
    out = [prompt() + "curl -s localhost:9200", json.dumps({"name": f"es-node-{ri(0, 2)}", "cluster_name": cn, "cluster_uuid": b64u(16),
           "version": {"number": f"8.{ri(10, 15)}.{ri(0, 4)}", "build_flavor": "default", "build_type": "docker", "build_hash": sha1(),
                       "build_date": iso(rtime()), "build_snapshot": False, "lucene_version": f"9.{ri(8, 12)}.0",
                       "minimum_wire_compatibility_version": "7.17.0", "minimum_index_compatibility_version": "7.0.0"},
           "tagline": "You Know, for Search"}, indent=2), prompt() + "curl -s 'localhost:9200/_cat/indices?v&s=index'",
           "health status index                        uuid                   pri rep docs.count docs.deleted store.size pri.store.size dataset.size"]
    for idx in sorted(sample([f"{my_proj()}-orders", f"{my_proj()}-customers", ".kibana_8.14.1_001", f"logs-{rtime().strftime('%Y.%m.%d')}", "products-v3"], 4)):
        sz = f"{ri(1, 900)}.{ri(1, 9)}mb"
        out.append(f"{ch(['green', 'yellow']):<6} open   {idx:<28} {b64u(16)} {ri(1, 3):>3} {ri(0, 1):>3} {ri(0, 10**7):>10} {ri(0, 9999):>12} {sz:>10} {sz:>14} {sz:>12}")
    return "\n".join(out)


@N
def journalctl_verbose():
    svc = my_proj()
    t = rtime()
    boot = hx(32)
    mach = hx(32)
    out = [prompt() + f"journalctl -u {svc}.service -o verbose -n 1 --no-pager",
           f"{t.strftime('%a %Y-%m-%d %H:%M:%S.%f')} UTC [s={hx(32)};i={hex(ri(10**5, 10**7))[2:]};b={boot};m={hex(ri(10**8, 10**11))[2:]};t={hex(epoch(t) * 10**6)[2:]};x={hx(16)}]",
           "    _TRANSPORT=stdout", "    PRIORITY=6", "    SYSLOG_FACILITY=3", f"    SYSLOG_IDENTIFIER={svc}", f"    _PID={ri(300, 90000)}", "    _UID=998", "    _GID=998",
           f"    _COMM={svc.split('-')[0]}", f"    _EXE=/opt/{svc}/bin/server", f"    _CMDLINE=/opt/{svc}/bin/server --config /etc/{svc}/config.toml",
           f"    _SYSTEMD_CGROUP=/system.slice/{svc}.service", f"    _SYSTEMD_UNIT={svc}.service", f"    _SYSTEMD_INVOCATION_ID={hx(32)}",
           f"    _BOOT_ID={boot}", f"    _MACHINE_ID={mach}", f"    _HOSTNAME={CTX.get('host', 'devbox')}", f"    _STREAM_ID={hx(32)}",
           f"    MESSAGE={ch(['listening on 0.0.0.0:8080', 'worker pool started (8 workers)', 'reloaded configuration'])}",
           prompt() + "cat /etc/machine-id", mach]
    return "\n".join(out)


@N
def hf_hub_cache():
    repo = ch(["sentence-transformers/all-MiniLM-L6-v2", "BAAI/bge-small-en-v1.5", "meta-llama/Llama-3.2-1B-Instruct", "openai/whisper-small", "google/gemma-2-2b-it"])
    folder = "models--" + repo.replace("/", "--")
    snap = sha1()
    u = me()
    out = [prompt() + f"tree ~/.cache/huggingface/hub/{folder} -L 3", f"/home/{u}/.cache/huggingface/hub/{folder}", "├── blobs"]
    blobs = [sha1() if coin(0.4) else sha256() for _ in range(4)]
    for i, b in enumerate(blobs):
        out.append(f"│   {'└' if i == 3 else '├'}── {b}")
    out += ["├── refs", "│   └── main", "└── snapshots", f"    └── {snap}"]
    for i, fn in enumerate(["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]):
        out.append(f"        {'└' if i == 3 else '├'}── {fn} -> ../../blobs/{blobs[i]}")
    out += ["", f"6 directories, 8 files", prompt() + f"cat ~/.cache/huggingface/hub/{folder}/refs/main", snap]
    if coin():
        out += [prompt() + "ollama list", "NAME                    ID              SIZE      MODIFIED"]
        for m in sample(["llama3.2:3b", "qwen2.5-coder:7b", "nomic-embed-text:latest", "mistral:7b", "gemma2:2b"], 3):
            out.append(f"{m:<24}{hx(12)}    {ri(1, 9)}.{ri(0, 9)} GB    {ri(2, 9)} days ago")
    return "\n".join(out)


@N
def llm_api_response_ids():
    t = rtime()
    if coin():
        obj = {"id": "chatcmpl-" + rs(29, ALNUM), "object": "chat.completion", "created": epoch(t), "model": ch(["gpt-4o-mini-2024-07-18", "gpt-4.1-2025-04-14"]),
               "choices": [{"index": 0, "message": {"role": "assistant", "content": "Done — the migration is reversible.", "refusal": None}, "logprobs": None, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
               "system_fingerprint": "fp_" + hx(10)}
        pt, ct = ri(20, 4000), ri(5, 900)
        obj["usage"] = {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
        hdrs = [f"x-request-id: req_{hx(32)}", f"openai-organization: {my_org()}-{rs(6, LOW + DIG)}", f"openai-processing-ms: {ri(200, 9000)}",
                f"x-ratelimit-remaining-tokens: {ri(10000, 200000)}", f"cf-ray: {hx(16)}-{ch(['SJC', 'FRA', 'IAD'])}"]
        return cmdline("curl -s -D - https://api.openai.com/v1/chat/completions -H \"Authorization: Bearer $OPENAI_API_KEY\" -H 'Content-Type: application/json' -d @req.json") + "HTTP/2 200\n" + "\n".join(hdrs) + "\n\n" + json.dumps(obj, indent=2)
    tid = "toolu_01" + rs(22, ALNUM)
    obj = {"id": "msg_01" + rs(22, ALNUM), "type": "message", "role": "assistant", "model": ch(["claude-sonnet-4-20250514", "claude-3-5-haiku-20241022"]),
           "content": [{"type": "text", "text": "I'll check the failing test first."}, {"type": "tool_use", "id": tid, "name": "bash", "input": {"command": "pytest -x -q"}}],
           "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": ri(100, 9000), "output_tokens": ri(10, 300), "cache_read_input_tokens": ri(0, 40000)}}
    hdrs = [f"request-id: req_011C{rs(20, ALNUM)}", f"anthropic-organization-id: {uuid4()}", f"anthropic-ratelimit-requests-remaining: {ri(10, 4000)}",
            f"cf-ray: {hx(16)}-{ch(['SJC', 'FRA', 'IAD'])}"]
    return cmdline("curl -s -D - https://api.anthropic.com/v1/messages -H \"x-api-key: $ANTHROPIC_API_KEY\" -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' -d @req.json") + "HTTP/2 200\n" + "\n".join(hdrs) + "\n\n" + json.dumps(obj, indent=2)


@N
def agent_session_files():
    u = me()
    p = my_proj()
    t = rtime()
    if coin():
        d = f"/home/{u}/.claude/projects/-home-{u}-src-{p}"
        out = [prompt() + f"ls -la {d} | head", f"total {ri(200, 9000)}", f"drwxr-xr-x  2 {u} {u}    4096 {t.strftime('%b %d %H:%M')} .",
               f"drwxr-xr-x 14 {u} {u}    4096 {t.strftime('%b %d %H:%M')} .."]
        for _ in range(ri(3, 5)):
            out.append(f"-rw-r--r--  1 {u} {u} {ri(10**4, 10**7):>7} {rtime().strftime('%b %d %H:%M')} {uuid4()}.jsonl")
        sid = uuid4()
        line = {"parentUuid": uuid4(), "isSidechain": False, "userType": "external", "cwd": f"/home/{u}/src/{p}", "sessionId": sid, "version": f"1.0.{ri(30, 90)}",
                "gitBranch": "main", "type": "assistant", "uuid": uuid4(), "timestamp": iso(t), "requestId": "req_011C" + rs(20, ALNUM),
                "message": {"id": "msg_01" + rs(22, ALNUM), "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
                            "content": [{"type": "tool_use", "id": "toolu_01" + rs(22, ALNUM), "name": "Bash", "input": {"command": "git status", "description": "Show working tree status"}}]}}
        out += [prompt() + f"head -n 1 {d}/{sid}.jsonl | jq -c .", json.dumps(line, separators=(",", ":"))]
        return "\n".join(out)
    day = t.strftime("%Y/%m/%d")
    d = f"/home/{u}/.codex/sessions/{day}"
    out = [prompt() + f"ls {d}"]
    t = t.replace(hour=ri(7, 12))
    first = None
    for _ in range(ri(2, 4)):
        t = plus(t, 60, 9000)
        sid = uuid4()
        out.append(f"rollout-{t.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl")
        if first is None:
            first = (t, sid, out[-1])
    t, sid, fname = first
    out += [prompt() + f"head -c 400 {d}/{fname}", json.dumps({"timestamp": iso(t), "type": "session_meta", "payload": {"id": sid, "timestamp": iso(t),
            "cwd": f"/home/{u}/src/{p}", "originator": "codex_cli_rs", "cli_version": f"0.{ri(20, 40)}.0", "git": {"commit_hash": sha1(), "branch": "main"}}}, separators=(",", ":"))]
    return "\n".join(out)


@N
def mime_attachment():
    d = domain()
    t = rtime()
    inv = ri(1000, 99999)
    bnd = "----=_Part_" + str(ri(10**5, 10**6)) + "_" + str(ri(10**8, 10**9)) + "." + str(epoch(t) * 1000)
    pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" + rb(ri(180, 260))
    out = [prompt() + "sed -n '1,45p' tests/fixtures/invoice.eml", f"Return-Path: <billing@{d}>", "Received: from mail-sor-f41.google.com (mail-sor-f41.google.com. [209.85.220.41])",
           f"        by mx.google.com with SMTPS id {rs(20, ALNUM)}.{ri(10, 99)}.{t.strftime('%Y')}.{ri(10, 99)}.{ri(100, 999)}", "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;",
           f"        d={d}; s=google; t={epoch(t)}; x={epoch(t) + 604800};", "        h=to:subject:message-id:date:from:mime-version:from:to:cc:subject",
           f"        :date:message-id:reply-to;", f"        bh={b64(32)};"]
    sig = b64(256)
    out += ["        b=" + sig[:60]] + ["         " + l for l in wrap(sig[60:], 70)]
    out += [f"Message-ID: <CA+{rs(40, ALNUM + '_-')}@mail.gmail.com>", f"Date: {t.strftime('%a, %d %b %Y %H:%M:%S +0000')}", f"From: Billing <billing@{d}>",
            f"To: {email()}", f"Subject: Invoice INV-{inv}", "MIME-Version: 1.0", f"Content-Type: multipart/mixed; boundary=\"{bnd}\"", "",
            f"--{bnd}", "Content-Type: text/plain; charset=UTF-8", "", "Please find your invoice attached.", "", f"--{bnd}",
            f"Content-Type: application/pdf; name=\"INV-{inv}.pdf\"", "Content-Transfer-Encoding: base64", "Content-Disposition: attachment", ""]
    out += wrap(b64e(pdf), 76)
    out.append(f"--{bnd}--")
    return "\n".join(out)


@N
def protobuf_rawdesc():
    pkg = ch(["orders", "billing", "inventory", "auth"])
    fname = f"api/{pkg}/v1/{pkg}.proto"
    desc = (b"\x0a" + bytes([len(fname)]) + fname.encode() + b"\x12" + bytes([len(pkg) + 3]) + f"{pkg}.v1".encode() +
            b"\x1a\x1fgoogle/protobuf/timestamp.proto\"" + bytes([ri(40, 90)]) + b"\x0a\x05" + rs(5, UP).encode() + b"\x12\x0e\x0a\x02id\x18\x01 \x01(\x09R\x02id" + rb(ri(80, 140)))
    name = fname.replace("/", "_").replace(".", "_")
    out = [prompt() + f"sed -n '{ri(300, 600)},+22p' gen/go/{fname.replace('.proto', '.pb.go')}", f"var file_{name}_rawDesc = []byte{{"]
    for i in range(0, min(len(desc), 200), 16):
        out.append("\t" + ", ".join(f"0x{b:02x}" for b in desc[i:i + 16]) + ",")
    out += ["}", "", "var (", f"\tfile_{name}_rawDescOnce sync.Once", f"\tfile_{name}_rawDescData = file_{name}_rawDesc", ")"]
    return "\n".join(out)


@N
def configmap_binarydata():
    app = my_proj()
    ico = b"\x00\x00\x01\x00\x01\x00\x10\x10\x00\x00\x01\x00 \x00h\x04\x00\x00\x16\x00\x00\x00(\x00\x00\x00\x10\x00\x00\x00 \x00\x00\x00\x01\x00 \x00" + rb(ri(90, 160))
    gz = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + rb(ri(60, 120))
    t = rtime()
    out = [prompt() + f"kubectl get configmap {app}-static -o yaml", "apiVersion: v1", "binaryData:", f"  favicon.ico: {b64e(ico)}",
           f"  robots.txt.gz: {b64e(gz)}", "data:", "  nginx.conf: |", "    server {", "      listen 8080;", "      location / { root /usr/share/nginx/html; }", "    }",
           "kind: ConfigMap", "metadata:", f"  creationTimestamp: \"{iso(t, ms=False)}\"", f"  name: {app}-static", f"  namespace: {ch(['default', 'prod', 'web'])}",
           f"  resourceVersion: \"{ri(10**5, 10**8)}\"", f"  uid: {uuid4()}"]
    return "\n".join(out)


@N
def migrations_checksums():
    t = rtime()
    if coin():
        names = ["init", "add_orders", "add_refunds", "index_customer_email", "drop_legacy_carts", "add_webhooks"]
        out = [prompt() + "psql \"$DATABASE_URL\" -c 'select id, checksum, migration_name, finished_at from _prisma_migrations order by started_at'",
               "                  id                  |                             checksum                             |          migration_name           |          finished_at",
               "--------------------------------------+------------------------------------------------------------------+-----------------------------------+-------------------------------"]
        n = ri(3, 6)
        tt = t - dt.timedelta(days=ri(200, 400))
        for i in range(n):
            tt = tt + dt.timedelta(days=ri(3, 40), seconds=ri(0, 86400))
            mn = tt.strftime("%Y%m%d%H%M%S") + "_" + names[i]
            out.append(f" {uuid4()} | {sha256()} | {mn:<33} | {tt.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]}+00")
        out.append(f"({n} rows)")
        return "\n".join(out)
    out = [prompt() + "alembic history --verbose | head -20"]
    revs = [hx(12) for _ in range(4)]
    for i in range(3, -1, -1):
        down = revs[i - 1] if i > 0 else "<base>"
        out += [f"Rev: {revs[i]}{' (head)' if i == 3 else ''}", f"Parent: {down}", f"Path: /app/migrations/versions/{revs[i]}_{ch(['add_orders', 'add_index', 'rename_col', 'init'])}.py", "",
                f"    {ch(['add orders table', 'index users.email', 'rename plan to tier', 'initial schema'])}", "", f"    Revision ID: {revs[i]}", f"    Revises: {down if i else ''}",
                f"    Create Date: {(t - dt.timedelta(days=(4 - i) * 9)).strftime('%Y-%m-%d %H:%M:%S.%f')}", ""]
    return "\n".join(out).rstrip()


@N
def ml_run_ids():
    t = rtime()
    if coin():
        rid = rs(8, LOW + DIG)
        name = f"{ch(['dulcet', 'vivid', 'gentle', 'stellar', 'cosmic'])}-{ch(['sky', 'river', 'wave', 'dream', 'sun'])}-{ri(1, 300)}"
        out = [f"wandb: Currently logged in as: {me()} ({my_org()}). Use `wandb login --relogin` to force relogin",
               f"wandb: Tracking run with wandb version 0.17.{ri(0, 9)}", f"wandb: Run data is saved locally in /home/{me()}/src/{my_proj()}/wandb/run-{t.strftime('%Y%m%d_%H%M%S')}-{rid}",
               "wandb: Run `wandb offline` to turn off syncing.", f"wandb: Syncing run {name}", f"wandb: ⭐️ View project at https://wandb.ai/{my_org()}/{my_proj()}",
               f"wandb: 🚀 View run at https://wandb.ai/{my_org()}/{my_proj()}/runs/{rid}",
               f"epoch 1/{ri(3, 20)}  loss={R.random():.4f}  val_loss={R.random():.4f}", "wandb: Waiting for W&B process to finish... (success).",
               f"wandb: Find logs at: ./wandb/run-{t.strftime('%Y%m%d_%H%M%S')}-{rid}/logs"]
        return cmdline("python train.py --config configs/base.yaml") + "\n".join(out)
    rid = hx(32)
    exp = str(ri(1, 40))
    rname = f"{ch(['bright-mole', 'able-stork', 'calm-fox'])}-{ri(100, 999)}"
    out = [f"{t.strftime('%Y/%m/%d %H:%M:%S')} INFO mlflow.tracking.fluent: Experiment with name '{my_proj()}' does not exist. Creating a new experiment.",
           f"🏃 View run {rname} at: http://127.0.0.1:5000/#/experiments/{exp}/runs/{rid}",
           f"🧪 View experiment at: http://127.0.0.1:5000/#/experiments/{exp}", prompt() + f"mlflow runs describe --run-id {rid} | jq '.info'",
           json.dumps({"artifact_uri": f"mlflow-artifacts:/{exp}/{rid}/artifacts", "end_time": epoch(t) * 1000 + ri(1000, 9999999), "experiment_id": exp,
                       "lifecycle_stage": "active", "run_id": rid, "run_name": rname, "run_uuid": rid, "start_time": epoch(t) * 1000, "status": "FINISHED", "user_id": me()}, indent=2)]
    return cmdline("python train.py") + "\n".join(out)


@N
def gha_cache_artifacts():
    t = rtime()
    run = ri(10**9, 2 * 10**10)
    repo = f"{my_org()}/{my_proj()}"
    key = f"node-cache-Linux-x64-npm-{sha256()}"
    csize = ri(10**7, 4 * 10**8)
    aid = ri(10**9, 3 * 10**9)
    asize = ri(10**4, 10**7)
    lines = [f"Current runner version: '2.3{ri(10, 20)}.0'", "Operating System", "  Ubuntu", "  24.04.1", "  LTS", "GITHUB_TOKEN Permissions",
             "  Contents: read", "  Metadata: read", f"Secret source: Actions", "Prepare workflow directory", "Prepare all required actions",
             f"Download action repository 'actions/checkout@v4' (SHA:{sha1()})", f"Download action repository 'actions/setup-node@v4' (SHA:{sha1()})",
             f"Download action repository 'actions/upload-artifact@v4' (SHA:{sha1()})", "Complete job name: build",
             f"Cache restored from key: {key}", f"Received {csize} of {csize} (100.0%), {ri(10, 90)}.{ri(0, 9)} MBs/sec",
             f"Cache Size: ~{csize // 1048576} MB ({csize} B)", "[command]/usr/bin/tar -xf /home/runner/work/_temp/" + uuid4() + "/cache.tzst -P -C /home/runner/work/" + my_proj() + "/" + my_proj() + " --use-compress-program unzstd",
             "With the provided path, there will be 1 file uploaded", f"Artifact name is valid!", f"Uploaded bytes {asize}",
             f"Finished uploading artifact content to blob storage!", f"SHA256 digest of uploaded artifact zip is {sha256()}",
             f"Finalizing artifact upload", f"Artifact build-output.zip successfully finalized. Artifact ID {aid}",
             f"Artifact build-output has been successfully uploaded! Final size is {asize} bytes. Artifact ID is {aid}",
             f"Artifact download URL: https://github.com/{repo}/actions/runs/{run}/artifacts/{aid}"]
    out = []
    for l in lines:
        t = t + dt.timedelta(microseconds=ri(2000, 900000))
        out.append(f"{t.strftime('%Y-%m-%dT%H:%M:%S')}.{t.microsecond:06d}{ri(0, 9)}Z {l}")
    return cmdline(f"gh run view {run} --log | cut -f3- | head -40") + "\n".join(out)


# ================================================================ main
ROWS_PER_TEMPLATE = 5


def main():
    names = [n for n, _, _ in TEMPLATES]
    assert len(names) == len(set(names)), "duplicate template name"
    assert sum(1 for _, p, _ in TEMPLATES if p) == 60 and sum(1 for _, p, _ in TEMPLATES if not p) == 60
    rid = 0
    out = sys.stdout
    for name, positive, fn in TEMPLATES:
        for _ in range(ROWS_PER_TEMPLATE):
            new_ctx()
            text = fn()
            rid += 1
            out.write(json.dumps({"id": rid, "template": name, "positive": positive, "text": text}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
