#!/usr/bin/env python3
"""Fourth tuning corpus written apart: realistic coding-agent output.

    python3 generate.py > rows.jsonl

Standard library only, one random.Random(9696); output is byte-for-byte
reproducible (no sets, no hash order, no time, no environment).
Secrets in positive rows are wrapped in « and » exactly around their
characters.  See README.md for the labelling conventions.
"""
import base64
import datetime
import json
import sys
import zlib
import random

R = random.Random(9696)

UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
DG = "0123456789"
AN = UP + LO + DG
HX = "0123456789abcdef"
HXU = "0123456789ABCDEF"
URLS = AN + "-_"
B32 = UP + "234567"
B62 = DG + UP + LO
LOD = LO + DG


# ---------------------------------------------------------------- basics

def ri(a, b):
    return R.randint(a, b)


def ch(xs):
    return xs[R.randrange(len(xs))]


def rs(alpha, n):
    return "".join(alpha[R.randrange(len(alpha))] for _ in range(n))


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def hx(n):
    return rs(HX, n)


def an(n):
    return rs(AN, n)


def digits(n):
    return str(ri(1, 9)) + rs(DG, n - 1)


def b64(nbytes):
    return base64.b64encode(rbytes(nbytes)).decode()


def b64u(nbytes):
    return base64.urlsafe_b64encode(rbytes(nbytes)).decode().rstrip("=")


def b64s(s):
    return base64.b64encode(s.encode()).decode()


def uuid4():
    b = bytearray(rbytes(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def shuffled(xs):
    ys = list(xs)
    R.shuffle(ys)
    return ys


def M(s):
    """Mark a secret."""
    assert s and "«" not in s and "»" not in s, s
    return "«" + s + "»"


def unmark(s):
    return s.replace("«", "").replace("»", "")


# ---------------------------------------------------------------- people, places

FIRST = ["maya", "tomas", "priya", "jisoo", "lena", "omar", "ryo", "dana", "felix",
         "ines", "kwame", "sofia", "arjun", "noor", "bela", "yusuf", "mira", "teo",
         "hana", "ravi", "elif", "marco", "zoe", "ivan", "wen", "amara", "lucas",
         "freya", "diego", "sana", "nils", "aiko", "femi", "greta", "paulo"]
LAST = ["chen", "koenig", "patel", "kim", "novak", "haddad", "sato", "reyes",
        "brandt", "silva", "mensah", "rossi", "iyer", "rahman", "varga", "demir",
        "ortiz", "lind", "tanaka", "okafor", "meyer", "costa", "berg", "nair",
        "walsh", "dubois", "moreau", "kowalski", "larsen", "abe"]
ORGS = ["northwind", "brightpath", "quillcraft", "tidewater", "lumenfield",
        "corvid-labs", "harborline", "saltmarsh", "kestrel", "fernhill",
        "bluefin-data", "ironbark", "mapleleaf", "orbitra", "pallas", "redwing",
        "silverlake", "stonefly", "tallgrass", "umbra-systems", "vantage-ops",
        "willowtree", "zephyrcloud", "copperline", "driftwood", "glasshouse",
        "hollowoak", "junipr", "lanternfish", "marrowbone"]
PROJECTS = ["billing-api", "ingest-worker", "web-dashboard", "auth-service",
            "search-indexer", "notifications", "payments-gateway", "data-pipeline",
            "mobile-backend", "admin-portal", "report-builder", "chat-assistant",
            "crm-sync", "inventory-svc", "media-transcoder", "feature-store",
            "support-bot", "checkout", "scheduler", "docs-site", "ledger",
            "geo-service", "invoice-renderer", "event-router", "agent-runner"]
TLDS = [".io", ".com", ".dev", ".net", ".app", ".co", ".cloud"]
REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-2",
           "ap-northeast-1", "sa-east-1", "ca-central-1"]
WORDS = ["amber", "anchor", "apple", "arrow", "aspen", "badger", "basil", "beacon",
         "birch", "bison", "blossom", "bramble", "breeze", "cactus", "candle",
         "canyon", "cedar", "cherry", "cinder", "clover", "cobalt", "comet", "coral",
         "cougar", "crater", "cricket", "dahlia", "delta", "dingo", "dune", "ember",
         "falcon", "fennel", "fjord", "flint", "garnet", "geyser", "ginger", "glacier",
         "granite", "harbor", "hazel", "heron", "hickory", "indigo", "iris", "jasper",
         "juniper", "kelp", "kiwi", "lagoon", "lantern", "larch", "lemon", "lilac",
         "lynx", "magnet", "mango", "maple", "marble", "meadow", "mesa", "meteor",
         "mint", "moss", "nectar", "nickel", "oasis", "olive", "onyx", "orchid",
         "otter", "pebble", "pepper", "pine", "plum", "prairie", "quartz", "quill",
         "raven", "reef", "ridge", "river", "saffron", "sage", "salmon", "sparrow",
         "spruce", "summit", "tango", "thistle", "thunder", "tiger", "topaz", "tulip",
         "tundra", "velvet", "violet", "walnut", "willow", "yarrow", "zephyr", "zinc"]


class Ctx:
    def __init__(self):
        self.first = ch(FIRST)
        self.last = ch(LAST)
        self.name = self.first.capitalize() + " " + self.last.capitalize()
        self.user = ch([self.first, self.first + self.last[0], self.first[0] + self.last,
                        self.first + "." + self.last, self.first])
        if "." in self.user and R.random() < 0.5:
            self.user = self.user.replace(".", "")
        self.email = "%s.%s@" % (self.first, self.last)
        self.org = ch(ORGS)
        self.proj = ch(PROJECTS)
        self.dom = self.org.replace("-", "") + ch(TLDS)
        self.email += self.dom
        self.host = ch(["%s-mbp" % self.first, "devbox-%02d" % ri(1, 40),
                        "ip-10-%d-%d-%d" % (ri(0, 255), ri(0, 255), ri(1, 254)),
                        "%s-thinkpad" % self.first, "ws-%s" % hx(4),
                        "%s-%s" % (self.first, ch(["desktop", "xps", "fw13", "air"]))])
        self.home = ch(["/home/%s" % self.user, "/Users/%s" % self.user])
        self.cwd = ch(["~/src/%s" % self.proj, "~/code/%s" % self.proj,
                       "~/work/%s/%s" % (self.org, self.proj), "~/%s" % self.proj])
        self.region = ch(REGIONS)
        self.env = ch(["prod", "production", "staging", "stage", "dev", "qa"])


def rdt(a=1672531200, b=1751241600):
    return datetime.datetime.fromtimestamp(ri(a, b), datetime.timezone.utc)


def later(dt, lo=0, hi=5000):
    return dt + datetime.timedelta(microseconds=ri(lo * 1000, hi * 1000))


def iso_ms(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (dt.microsecond // 1000)


def iso_s(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def prompt(c, cmd):
    """A shell prompt line (or several) followed by the command."""
    cwd = c.cwd
    base = cwd.rsplit("/", 1)[-1]
    k = ri(0, 7)
    if k == 0:
        return "%s@%s:%s$ %s" % (c.user, c.host, cwd, cmd)
    if k == 1:
        return "➜  %s git:(%s) %s" % (base, ch(["main", "master", "develop", "feat/%s" % ch(WORDS)]), cmd)
    if k == 2:
        return "[%s@%s %s]$ %s" % (c.user, c.host, base, cmd)
    if k == 3:
        return "%s on  %s via %s\n❯ %s" % (base, ch(["main", "dev", "fix/%s" % ch(WORDS)]),
                                            ch(["⬢ v20.12.2", "🐍 v3.12.3", "🦀 v1.78.0", "🐹 v1.22.3"]), cmd)
    if k == 4:
        return "$ " + cmd
    if k == 5:
        return "%s@%s %s %% %s" % (c.user, c.host.split(".")[0], base, cmd)
    if k == 6:
        return "(.venv) %s@%s:%s$ %s" % (c.user, c.host, cwd, cmd)
    return "%s $ %s" % (cwd, cmd)


def cat_n(lines, start=1):
    return "\n".join("%6d\t%s" % (i + start, l) for i, l in enumerate(lines))


def claude_read(lines, start=1):
    return "\n".join("%6d→%s" % (i + start, l) for i, l in enumerate(lines))


def bat(path, lines, start=1):
    w = max(72, max(len(unmark(l)) for l in lines) + 10)
    out = ["───────┬" + "─" * w, "       │ File: " + path, "───────┼" + "─" * w]
    out += ["%4d   │ %s" % (i + start, l) for i, l in enumerate(lines)]
    out.append("───────┴" + "─" * w)
    return "\n".join(out)


def viewer(c, path, lines, start=1):
    """Show a file read through one of several viewers."""
    k = ri(0, 3)
    if k == 0:
        return prompt(c, "cat -n " + path) + "\n" + cat_n(lines, start)
    if k == 1:
        return claude_read(lines, start)
    if k == 2:
        return prompt(c, "cat " + path) + "\n" + "\n".join(lines)
    return prompt(c, "sed -n '%d,%dp' %s" % (start, start + len(lines) - 1, path)) + "\n" + "\n".join(lines)


def sha40():
    return hx(40)


# ---------------------------------------------------------------- secret formats

def b62n(n, width):
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = B62[r] + s
    return s.rjust(width, "0")


def gh_token(prefix="ghp_"):
    body = an(30)
    return prefix + body + b62n(zlib.crc32(body.encode()) & 0xFFFFFFFF, 6)


def npm_token():
    return gh_token("npm_")


def github_pat():
    return "github_pat_11" + rs(UP + DG, 20) + "_" + an(59)


def glpat():
    return "glpat-" + rs(AN + "-_", 20)


def openai_key():
    k = ri(0, 5)
    if k == 0:
        return "sk-" + an(20) + "T3BlbkFJ" + an(20)
    kind = "svcacct" if k == 1 else "proj"
    return "sk-%s-" % kind + rs(URLS, 74) + "T3BlbkFJ" + rs(URLS, 74)


def anthropic_key():
    return "sk-ant-api03-" + rs(URLS, 93) + "AA"


def gemini_key():
    return "AIza" + rs(URLS, 35)


def groq_key():
    return "gsk_" + an(52)


def hf_token():
    return "hf_" + rs(UP + LO, 34)


def replicate_token():
    return "r8_" + an(37)


def openrouter_key():
    return "sk-or-v1-" + hx(64)


def xai_key():
    return "xai-" + an(80)


def perplexity_key():
    return "pplx-" + an(48)


def deepseek_key():
    return "sk-" + hx(32)


def stripe_key(kind="sk", mode="live"):
    return "%s_%s_51" % (kind, mode) + rs(UP + DG, 1) + an(96)


def whsec():
    return "whsec_" + an(32)


def sendgrid_key():
    return "SG." + rs(URLS, 22) + "." + rs(URLS, 43)


def mailgun_key():
    if R.random() < 0.5:
        return "key-" + hx(32)
    return hx(32) + "-" + hx(8) + "-" + hx(8)


def twilio_sid():
    return "AC" + hx(32)


def slack_bot():
    return "xoxb-%s-%s-%s" % (digits(ri(11, 12)), digits(13), an(24))


def slack_user():
    return "xoxp-%s-%s-%s-%s" % (digits(11), digits(11), digits(13), hx(32))


def slack_webhook_parts():
    return "T" + rs(UP + DG, ri(8, 10)), "B" + rs(UP + DG, ri(10, 11)), an(24)


def discord_webhook_parts():
    return digits(19), rs(URLS, 68)


def aws_key_id(prefix="AKIA"):
    return prefix + rs(UP + "234567", 16)


def aws_secret():
    return rs(AN + "+/", 40)


def azure_storage_key():
    return b64(64)


def azure_sas_key():
    return b64(32)


def datadog_api():
    return hx(32)


def datadog_app():
    return hx(40)


def newrelic_license():
    return hx(36) + "NRAL"


def newrelic_user():
    return "NRAK-" + rs(UP + DG, 27)


def honeycomb_key():
    return an(22)


def sentry_user_token():
    return "sntryu_" + hx(64)


def vault_token():
    return "hvs." + an(24)


def dckr_pat():
    return "dckr_pat_" + rs(URLS, 27)


def cio_token():
    return "cio" + an(32)


def linear_key():
    return "lin_api_" + an(40)


def notion_secret():
    return "secret_" + an(43)


def brave_key():
    return "BSA" + rs(AN + "-_", 28)


def langfuse_pair():
    return "pk-lf-" + uuid4(), "sk-lf-" + uuid4()


def langsmith_key():
    return "lsv2_%s_%s_%s" % (ch(["pt", "sk"]), hx(32), hx(10))


def mapbox_token(kind="sk", user="acme"):
    payload = base64.urlsafe_b64encode(json.dumps(
        {"u": user, "a": "cl" + rs(LOD, 23)}, separators=(",", ":")).encode()).decode().rstrip("=")
    return "%s.%s.%s" % (kind, payload, rs(URLS, 22))


def bitbucket_app_pw():
    return "ATBB" + an(28) + rs(HXU, 8)


def shopify_token():
    return "shpat_" + hx(32)


def contentful_cma():
    return "CFPAT-" + rs(URLS, 43)


def figma_pat():
    return "figd_" + rs(URLS, 40)


def pulumi_token():
    return "pul-" + hx(40)


def doppler_token():
    return "dp.st.%s." % ch(["prd", "stg", "dev"]) + an(43)


def netlify_token():
    return "nfp_" + an(36)


def vercel_token():
    return an(24)


def cloudsmith_key():
    return hx(40)


def artifactory_ref():
    return "cmVmdGtuOjAxOj" + an(50)


def mistral_key():
    return an(32)


def cohere_key():
    return an(40)


def together_key():
    return hx(64)


def b64u_json(o):
    return base64.urlsafe_b64encode(json.dumps(o, separators=(",", ":")).encode()).decode().rstrip("=")


def jwt(payload, alg="HS256", kid=None):
    h = {"alg": alg, "typ": "JWT"}
    if kid:
        h["kid"] = kid
    n = {"HS256": 32, "RS256": 256, "ES256": 64}[alg]
    sig = base64.urlsafe_b64encode(rbytes(n)).decode().rstrip("=")
    return b64u_json(h) + "." + b64u_json(payload) + "." + sig


def user_jwt(c, iss=None, aud=None):
    now = ri(1700000000, 1750000000)
    p = {"sub": ch([uuid4(), "user_" + an(24), "auth0|" + hx(24), str(ri(1000, 99999))]),
         "iss": iss or "https://auth.%s/" % c.dom, "aud": aud or "https://api.%s" % c.dom,
         "iat": now, "exp": now + ch([900, 3600, 86400]),
         "scope": ch(["openid profile email", "read:orders write:orders", "api offline_access"])}
    if R.random() < 0.5:
        p["email"] = c.email
    return jwt(p, ch(["RS256", "HS256", "ES256"]), kid=ch([None, hx(16), b64u(24)]))


def sa_jwt(ns, sa):
    now = ri(1700000000, 1750000000)
    p = {"aud": ["https://kubernetes.default.svc.cluster.local"], "exp": now + 31536000,
         "iat": now, "iss": "https://kubernetes.default.svc.cluster.local",
         "kubernetes.io": {"namespace": ns, "serviceaccount": {"name": sa, "uid": uuid4()}},
         "nbf": now, "sub": "system:serviceaccount:%s:%s" % (ns, sa)}
    return jwt(p, "RS256", kid=b64u(32))


# ---------------------------------------------------------------- passwords

def pw_words(sep=None, bang=True):
    sep = sep if sep is not None else ch(["-", "_", ".", ""])
    w = [ch(WORDS) for _ in range(ri(2, 3))]
    if R.random() < 0.6:
        w[0] = w[0].capitalize()
    s = sep.join(w) + str(ri(2, 9999))
    if bang and R.random() < 0.5:
        s += ch("!#%*")
    return s


def password(kind=None):
    """A password without spaces or quote characters."""
    k = kind or ch(["words", "b64", "hex", "urlsafe", "mixed", "short", "words", "mixed"])
    if k == "words":
        return pw_words()
    if k == "b64":
        return b64(ch([18, 24, 30]))
    if k == "hex":
        return hx(ch([24, 32, 40]))
    if k == "urlsafe":
        return b64u(ch([24, 32]))
    if k == "mixed":
        s = rs(AN + "!#$%^&*-_=+", ri(14, 24))
        return s[:3] + ch(DG) + s[3:]
    return an(ri(12, 16))


def pw_url():
    """A password that can sit in a URL without escaping."""
    k = ri(0, 4)
    if k == 0:
        return pw_words(sep=ch(["-", "_", ""]), bang=False)
    if k == 1:
        return hx(ch([24, 32]))
    if k == 2:
        return b64u(ch([18, 24]))
    return an(ri(14, 24))


def passphrase():
    return " ".join(ch(WORDS) for _ in range(ri(4, 5)))


def db_host(c, mysql=False):
    return ch(["db", "mysql" if mysql else "postgres", "localhost", "127.0.0.1",
               "%s-db.%s.internal" % (c.proj, c.env),
               "%s.cluster-%s.%s.rds.amazonaws.com" % (c.proj.split("-")[0], rs(LOD, 12), c.region),
               "pg-%s.%s" % (c.env, c.dom), "10.%d.%d.%d" % (ri(0, 255), ri(0, 255), ri(2, 250))])


def db_url(c, scheme=None, user=None, pw=None):
    scheme = scheme or ch(["postgres", "postgresql", "postgresql", "mysql", "postgresql+asyncpg"])
    port = 3306 if scheme.startswith("mysql") else 5432
    user = user or ch([c.proj.replace("-", "_"), "app", "svc_" + c.proj.split("-")[0], "postgres", "root" if port == 3306 else "app_rw"])
    pw = pw or pw_url()
    db = c.proj.replace("-", "_")
    tail = ch(["", "?sslmode=require", "?sslmode=verify-full", "?pool_timeout=10", ""]) if port == 5432 else ch(["", "?charset=utf8mb4"])
    return "%s://%s:%s@%s:%d/%s%s" % (scheme, user, M(pw), db_host(c, port == 3306), port, db, tail)


def redis_url(c):
    pw = pw_url()
    return ch(["redis://default:%s@%s:6379/0", "rediss://:%s@%s:6380/0", "redis://:%s@%s:6379"]) % (
        M(pw), ch(["redis", "cache.%s.internal" % c.env, "%s-redis.%s" % (c.proj, c.dom), "127.0.0.1"]))


def mongo_url(c):
    cl = "%s-%s.%s.mongodb.net" % (ch(["cluster0", "prod", c.proj.split("-")[0]]), c.env, rs(LOD, 5))
    return "mongodb+srv://%s:%s@%s/%s?retryWrites=true&w=majority" % (
        c.proj.split("-")[0] + "_app", M(pw_url()), cl, c.proj.replace("-", "_"))


def amqp_url(c):
    return "amqp://%s:%s@%s:5672/%s" % (c.proj.split("-")[0], M(pw_url()), ch(["rabbitmq", "mq.%s.internal" % c.env]), ch(["%2F", c.env]))


# ---------------------------------------------------------------- env entries

def sentry_dsn(c):
    return "https://%s@o%s.ingest.%ssentry.io/%s" % (M(hx(32)), digits(6), ch(["", "us.", "de."]), digits(7))


def secret_entries(c):
    """Each item returns a list of (KEY, value) pairs; values carry marks."""
    def openai():
        return [("OPENAI_API_KEY", M(openai_key()))]

    def anthropic():
        return [("ANTHROPIC_API_KEY", M(anthropic_key()))]

    def gemini():
        return [(ch(["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"]), M(gemini_key()))]

    def groq():
        return [("GROQ_API_KEY", M(groq_key()))]

    def hf():
        return [(ch(["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"]), M(hf_token()))]

    def stripe():
        out = [("STRIPE_SECRET_KEY", M(stripe_key("sk", ch(["live", "test"]))))]
        if R.random() < 0.5:
            out.append(("STRIPE_WEBHOOK_SECRET", M(whsec())))
        return out

    def sendgrid():
        return [("SENDGRID_API_KEY", M(sendgrid_key()))]

    def twilio():
        return [("TWILIO_ACCOUNT_SID", twilio_sid()), ("TWILIO_AUTH_TOKEN", M(hx(32)))]

    def postmark():
        return [("POSTMARK_SERVER_TOKEN", M(uuid4()))]

    def slack():
        return [("SLACK_BOT_TOKEN", M(slack_bot()))]

    def github():
        return [(ch(["GITHUB_TOKEN", "GH_TOKEN", "GITHUB_PAT"]), M(ch([gh_token("ghp_"), github_pat()])))]

    def database():
        return [("DATABASE_URL", db_url(c))]

    def redis():
        return [("REDIS_URL", redis_url(c))]

    def aws():
        return [("AWS_ACCESS_KEY_ID", aws_key_id()), ("AWS_SECRET_ACCESS_KEY", M(aws_secret()))]

    def session():
        return [(ch(["SESSION_SECRET", "JWT_SECRET", "NEXTAUTH_SECRET", "AUTH_SECRET", "COOKIE_SECRET"]),
                 M(ch([b64(32), hx(64), b64u(32)])))]

    def sentry():
        return [("SENTRY_DSN", sentry_dsn(c))]

    def auth0():
        return [("AUTH0_DOMAIN", "%s.%s.auth0.com" % (c.org, ch(["us", "eu"]))),
                ("AUTH0_CLIENT_ID", an(32)), ("AUTH0_CLIENT_SECRET", M(rs(URLS, 64)))]

    def datadog():
        return [("DD_API_KEY", M(datadog_api()))]

    def mailgun():
        return [("MAILGUN_API_KEY", M(mailgun_key())), ("MAILGUN_DOMAIN", "mg." + c.dom)]

    def cloudinary():
        return [("CLOUDINARY_URL", "cloudinary://%s:%s@%s" % (digits(15), M(rs(URLS, 27)), c.org.replace("-", "")))]

    def algolia():
        return [("ALGOLIA_APP_ID", rs(UP + DG, 10)), ("ALGOLIA_ADMIN_API_KEY", M(hx(32))),
                ("NEXT_PUBLIC_ALGOLIA_SEARCH_KEY", hx(32))]

    def langfuse():
        pk, sk = langfuse_pair()
        return [("LANGFUSE_PUBLIC_KEY", pk), ("LANGFUSE_SECRET_KEY", M(sk))]

    def mongo():
        return [("MONGODB_URI", mongo_url(c))]

    def linear():
        return [("LINEAR_API_KEY", M(linear_key()))]

    def resend():
        return [("RESEND_API_KEY", M("re_" + an(8) + "_" + an(24)))]

    return [openai, anthropic, gemini, groq, hf, stripe, sendgrid, twilio, postmark,
            slack, github, database, redis, aws, session, sentry, auth0, datadog,
            mailgun, cloudinary, algolia, langfuse, mongo, linear, resend]


def plain_entries(c):
    return [("NODE_ENV", ch(["production", "development", "staging"])),
            ("PORT", str(ch([3000, 8080, 8000, 4000, 5000]))),
            ("LOG_LEVEL", ch(["info", "debug", "warn"])),
            ("APP_URL", "https://%s.%s" % (c.proj, c.dom)),
            ("AWS_REGION", c.region),
            ("S3_BUCKET", "%s-%s-uploads" % (c.org, c.proj)),
            ("SMTP_HOST", ch(["smtp.postmarkapp.com", "smtp.sendgrid.net", "email-smtp.%s.amazonaws.com" % c.region])),
            ("SMTP_PORT", "587"),
            ("OTEL_SERVICE_NAME", c.proj),
            ("SENTRY_ENVIRONMENT", c.env),
            ("FEATURE_FLAGS", ",".join(shuffled(["new_checkout", "beta_search", "dark_mode", "bulk_export"])[:2])),
            ("TZ", "UTC"),
            ("NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY", stripe_key("pk", "live")),
            ("WEB_CONCURRENCY", str(ri(2, 8))),
            ("CACHE_TTL_SECONDS", str(ch([60, 300, 900, 3600]))),
            ("GOOGLE_CLIENT_ID", "%s-%s.apps.googleusercontent.com" % (digits(12), rs(LOD, 32))),
            ("NEXT_PUBLIC_POSTHOG_KEY", "phc_" + an(43)),
            ("RATE_LIMIT_PER_MIN", str(ch([60, 120, 600])))]


def env_mix(c, nsec=None, nplain=None):
    sec = shuffled(secret_entries(c))[:nsec or ri(3, 5)]
    pairs = []
    for f in sec:
        pairs += f()
    plain = shuffled(plain_entries(c))[:nplain if nplain is not None else ri(3, 6)]
    out = plain + pairs
    R.shuffle(out)
    return out


# ---------------------------------------------------------------- DER / PEM

def der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def der(tag, content):
    return bytes([tag]) + der_len(len(content)) + content


def der_int(b):
    if b[0] & 0x80:
        b = b"\x00" + b
    return der(0x02, b)


def big(n):
    b = bytearray(rbytes(n))
    b[0] |= 0x80
    b[-1] |= 1
    return bytes(b)


def rsa_pkcs1(bits=2048):
    nb = bits // 8
    hb = nb // 2
    body = (b"\x02\x01\x00" + der_int(big(nb)) + b"\x02\x03\x01\x00\x01" + der_int(big(nb))
            + der_int(big(hb)) + der_int(big(hb)) + der_int(rbytes(hb)) + der_int(rbytes(hb)) + der_int(rbytes(hb)))
    return der(0x30, body)


def pkcs8_rsa(bits=2048):
    alg = der(0x30, der(0x06, bytes.fromhex("2a864886f70d010101")) + b"\x05\x00")
    return der(0x30, b"\x02\x01\x00" + alg + der(0x04, rsa_pkcs1(bits)))


def ec_sec1():
    return der(0x30, b"\x02\x01\x01" + der(0x04, rbytes(32))
               + der(0xA0, der(0x06, bytes.fromhex("2a8648ce3d030107")))
               + der(0xA1, der(0x03, b"\x00\x04" + rbytes(64))))


def pkcs8_ec():
    alg = der(0x30, der(0x06, bytes.fromhex("2a8648ce3d0201")) + der(0x06, bytes.fromhex("2a8648ce3d030107")))
    inner = der(0x30, b"\x02\x01\x01" + der(0x04, rbytes(32)) + der(0xA1, der(0x03, b"\x00\x04" + rbytes(64))))
    return der(0x30, b"\x02\x01\x00" + alg + der(0x04, inner))


def fake_cert(cn="example"):
    tbs = (der(0xA0, b"\x02\x01\x02") + der_int(rbytes(16))
           + der(0x30, der(0x06, bytes.fromhex("2a864886f70d01010b")) + b"\x05\x00")
           + der(0x30, der(0x31, der(0x30, der(0x06, b"\x55\x04\x03") + der(0x0C, cn.encode()))))
           + der(0x30, der(0x17, b"240101000000Z") + der(0x17, b"260101000000Z"))
           + der(0x30, der(0x31, der(0x30, der(0x06, b"\x55\x04\x03") + der(0x0C, cn.encode()))))
           + der(0x30, der(0x30, der(0x06, bytes.fromhex("2a864886f70d010101")) + b"\x05\x00")
                 + der(0x03, b"\x00" + der(0x30, der_int(big(256)) + b"\x02\x03\x01\x00\x01")))
           + der(0xA3, rbytes(ri(90, 200))))
    return der(0x30, der(0x30, tbs) + der(0x30, der(0x06, bytes.fromhex("2a864886f70d01010b")) + b"\x05\x00")
               + der(0x03, b"\x00" + rbytes(256)))


def wrap(s, n=64):
    return [s[i:i + n] for i in range(0, len(s), n)]


def pem_body(d):
    return wrap(base64.b64encode(d).decode())


def pem(label, d):
    return "-----BEGIN %s-----\n%s\n-----END %s-----" % (label, "\n".join(pem_body(d)), label)


def ssh_string(b):
    return len(b).to_bytes(4, "big") + b


def ssh_pub(kind=None, comment=None):
    kind = kind or ch(["ed25519", "ed25519", "rsa", "ecdsa"])
    if kind == "ed25519":
        blob = ssh_string(b"ssh-ed25519") + ssh_string(rbytes(32))
        t = "ssh-ed25519"
    elif kind == "rsa":
        blob = ssh_string(b"ssh-rsa") + ssh_string(b"\x01\x00\x01") + ssh_string(b"\x00" + big(ch([256, 384])))
        t = "ssh-rsa"
    else:
        blob = ssh_string(b"ecdsa-sha2-nistp256") + ssh_string(b"nistp256") + ssh_string(b"\x04" + rbytes(64))
        t = "ecdsa-sha2-nistp256"
    s = t + " " + base64.b64encode(blob).decode()
    return s + (" " + comment if comment else "")


def crc24(data):
    crc = 0xB704CE
    for b in data:
        crc ^= b << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def pgp_public_block(uid):
    t = ri(1600000000, 1740000000).to_bytes(4, "big")
    pub = b"\x04" + t + b"\x16" + b"\x09" + bytes.fromhex("2b06010401da470f01") + b"\x01\x07\x40" + rbytes(32)
    sub = b"\x04" + t + b"\x12" + b"\x0a" + bytes.fromhex("2b060104019755010501") + b"\x01\x07\x40" + rbytes(32) + b"\x03\x01\x08\x07"
    u = uid.encode()
    data = (b"\x98" + bytes([len(pub)]) + pub + b"\xb4" + bytes([len(u)]) + u
            + b"\x88\x93" + b"\x04\x13\x16\x0a" + rbytes(0x8f)
            + b"\xb8" + bytes([len(sub)]) + sub + b"\x88\x78" + b"\x04\x18\x16\x0a" + rbytes(0x74))
    body = wrap(base64.b64encode(data).decode(), 64)
    c = base64.b64encode(crc24(data).to_bytes(3, "big")).decode()
    return "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + "\n".join(body) + "\n=" + c + "\n-----END PGP PUBLIC KEY BLOCK-----"


def pgp_signature_block():
    data = b"\x88\x75\x04\x00\x16\x0a\x00\x1d\x16\x21\x04" + rbytes(20) + rbytes(0x60)
    body = wrap(base64.b64encode(data).decode(), 64)
    c = base64.b64encode(crc24(data).to_bytes(3, "big")).decode()
    return "-----BEGIN PGP SIGNATURE-----\n\n" + "\n".join(body) + "\n=" + c + "\n-----END PGP SIGNATURE-----"


def hunk(old_start, new_start, lines, ctx=""):
    o = sum(1 for l in lines if l[:1] in (" ", "-"))
    n = sum(1 for l in lines if l[:1] in (" ", "+"))
    h = "@@ -%d,%d +%d,%d @@%s" % (old_start, o, new_start, n, (" " + ctx) if ctx else "")
    return [h] + lines


def git_date(dt):
    return dt.strftime("%a %b ") + str(dt.day) + dt.strftime(" %H:%M:%S %Y ") + ch(["+0000", "+0100", "+0200", "-0400", "-0700", "+0530", "+0900"])


# ================================================================ POSITIVES

def dotenv_line(k, v):
    if R.random() < 0.2 and " " not in v:
        return '%s="%s"' % (k, v)
    return "%s=%s" % (k, v)


def p_git_stash_show_env():
    c = Ctx()
    path = ch([".env.local", ".env", "apps/api/.env.development.local", ".env.staging", "docker/.env"])
    base = [(k, v) for k, v in shuffled(plain_entries(c))[:ri(3, 5)]]
    added = env_mix(c, ri(2, 4), 0)
    lines = [" " + dotenv_line(k, v) for k, v in base[:2]]
    lines.append(ch(["-DATABASE_URL=postgres://localhost:5432/%s_dev" % c.proj.replace("-", "_"), "-API_BASE_URL=http://localhost:8080"]))
    lines += ["+" + dotenv_line(k, v) for k, v in added]
    lines += [" " + dotenv_line(k, v) for k, v in base[2:]]
    sha = hx(7)
    out = [prompt(c, "git stash list"),
           "stash@{0}: WIP on %s: %s %s" % (ch(["main", "develop"]), sha, ch(["fix retry backoff", "bump deps", "wip: onboarding flow", "tidy logging"])),
           "stash@{1}: On %s: %s" % ("feat/" + ch(WORDS), ch(["local env tweaks", "env for staging db", "try prod keys locally", "temp creds"])),
           prompt(c, "git stash show -p stash@{1}"),
           "diff --git a/%s b/%s" % (path, path),
           "index %s..%s 100644" % (hx(7), hx(7)),
           "--- a/" + path, "+++ b/" + path]
    st = ri(1, 9)
    out += hunk(st, st, lines, ch(["", "NODE_ENV=development", "# local overrides"]))
    return "\n".join(out)


def p_git_blame_settings():
    c = Ctx()
    authors = [c.name, ch(FIRST).capitalize() + " " + ch(LAST).capitalize(), ch(FIRST).capitalize() + " " + ch(LAST).capitalize()]
    w = max(len(a) for a in authors)
    lang = ri(0, 2)
    sec = [("OPENAI_API_KEY", openai_key()), ("ANTHROPIC_API_KEY", anthropic_key()), ("STRIPE_SECRET_KEY", stripe_key("sk", "test")),
           ("SENDGRID_API_KEY", sendgrid_key()), ("MAPBOX_SECRET_TOKEN", mapbox_token("sk", c.org)), ("SLACK_BOT_TOKEN", slack_bot())]
    sec = shuffled(sec)[:2]
    if lang == 0:
        path = "%s/settings.py" % c.proj.replace("-", "_")
        code = ["import os", "", "DEBUG = os.getenv(\"DEBUG\", \"0\") == \"1\"",
                "DATABASE_URL = os.getenv(\"DATABASE_URL\", \"%s\")" % db_url(c)]
        for k, v in sec:
            code.append("%s = os.environ.get(\"%s\", \"%s\")" % (k, k, M(v)))
        code += ["REQUEST_TIMEOUT = float(os.getenv(\"REQUEST_TIMEOUT\", \"30\"))", "ALLOWED_HOSTS = [\"*\"]"]
    elif lang == 1:
        path = "src/config.ts"
        code = ["export const config = {", "  port: Number(process.env.PORT ?? 3000),",
                "  databaseUrl: process.env.DATABASE_URL ?? '%s'," % db_url(c)]
        for k, v in sec:
            camel = k.lower().split("_")
            camel = camel[0] + "".join(x.capitalize() for x in camel[1:])
            code.append("  %s: process.env.%s || '%s'," % (camel, k, M(v)))
        code += ["  logLevel: process.env.LOG_LEVEL ?? 'info',", "} as const;"]
    else:
        path = "internal/config/defaults.go"
        code = ["package config", "", "const (", "\tdefaultPort = 8080",
                "\tdefaultDSN  = \"%s\"" % db_url(c)]
        for k, v in sec:
            code.append("\tdefault%s = \"%s\"" % ("".join(x.capitalize() for x in k.lower().split("_")), M(v)))
        code += [")"]
    start = ri(1, 30)
    shas = [hx(8) for _ in range(3)]
    dts = [rdt() for _ in range(3)]
    tz = ch(["+0100", "+0200", "-0500", "+0000", "+0900"])
    out = [prompt(c, "git blame -L %d,%d %s" % (start, start + len(code) - 1, path))]
    for i, line in enumerate(code):
        j = ri(0, 2)
        boundary = "^" if (j == 2 and i == 0) else ""
        out.append("%s%s (%s %s %s %*d) %s" % (boundary, shas[j][:8 - len(boundary)], authors[j].ljust(w),
                                               dts[j].strftime("%Y-%m-%d %H:%M:%S"), tz, len(str(start + len(code))), start + i, line))
    return "\n".join(out)


def p_git_grep_all_revs():
    c = Ctx()
    path = ch(["config/production.yml", "deploy/values-prod.yaml", "config/settings.toml", "app/config/secrets.yml"])
    key = ch([("api_key", lambda: ch([openai_key(), sendgrid_key(), datadog_api(), anthropic_key()])),
              ("token", lambda: ch([slack_bot(), gh_token("ghp_"), glpat()])),
              ("password", lambda: password())])
    name, gen = key
    s1, s2 = gen(), gen()
    revs = [sha40() for _ in range(ri(3, 5))]
    line = ri(8, 60)
    out = [prompt(c, "git grep -n -I -e '%s' $(git rev-list --all -- %s) -- %s" % (name, path, path))]
    for i, r in enumerate(revs):
        if i == len(revs) - 1:
            out.append("%s:%s:%d:  %s: \"%s\"" % (r, path, line - 2, name, ch(["changeme", "<set-me>", "", "TODO"])))
            continue
        v = s1 if i < 2 else s2
        q = '"' if name == "password" else ""
        out.append("%s:%s:%d:  %s: %s%s%s" % (r, path, line, name, q, M(v), q))
        if R.random() < 0.5:
            out.append("%s:%s:%d:  %s_%s: %s" % (r, path, line + 1, name, ch(["ttl", "header", "rotation_days"]), ch(["3600", "X-Api-Key", "90"])))
    return "\n".join(out)


def p_rg_context_config():
    c = Ctx()
    blocks = []
    # yaml block
    pw = password()
    blocks.append([("config/%s.yaml" % c.env, 11, "  host: %s" % db_host(c), False),
                   ("config/%s.yaml" % c.env, 12, "  user: %s" % c.proj.split("-")[0], False),
                   ("config/%s.yaml" % c.env, 13, "  password: \"%s\"" % M(pw), True),
                   ("config/%s.yaml" % c.env, 14, "  pool: 10", False)])
    tok = ch([slack_bot(), gh_token("ghp_"), linear_key(), notion_secret(), figma_pat()])
    blocks.append([("scripts/%s.sh" % ch(["sync", "notify", "backfill", "release"]), 3, "set -euo pipefail", False),
                   ("scripts/%s.sh" % ch(["sync", "notify", "backfill", "release"]), 4, "TOKEN=\"${TOKEN:-%s}\"" % M(tok), True),
                   ("scripts/%s.sh" % ch(["sync", "notify", "backfill", "release"]), 5, "curl -fsS -H \"Authorization: Bearer $TOKEN\" \"$API/%s\"" % ch(["sync", "issues", "pages"]), True)])
    sp = "scripts/%s.sh" % ch(["sync", "notify", "backfill", "release"])
    blocks[1] = [(sp,) + t[1:] for t in blocks[1]]
    k = ch([openai_key(), stripe_key("sk", "live"), sendgrid_key(), gemini_key()])
    tp = "src/lib/%s.ts" % ch(["client", "llm", "payments", "mailer"])
    blocks.append([(tp, 7, "", False), (tp, 8, "const apiKey = process.env.API_KEY ?? \"%s\";" % M(k), True),
                   (tp, 9, "export const client = new Client({ apiKey, timeout: 20_000 });", False)])
    blocks.append([("README.md", 41, "Set `API_KEY` and `TOKEN` in `.env` (see `.env.example`).", True)])
    blocks.append([(".env.example", 3, "API_KEY=", True), (".env.example", 4, "TOKEN=<your token>", True)])
    blocks = shuffled(blocks)
    out = [prompt(c, "rg -n -C1 -i '(api_?key|token|password)' --glob '!node_modules' --glob '!*.lock'")]
    for i, b in enumerate(blocks):
        if i:
            out.append("--")
        for path, ln, text, hit in b:
            out.append("%s%s%d%s%s" % (path, ":" if hit else "-", ln, ":" if hit else "-", text))
    return "\n".join(out)


def p_diff_u_env_example():
    c = Ctx()
    pairs = env_mix(c, ri(3, 5), ri(2, 4))
    old_dt, new_dt = rdt(), rdt()
    out = [prompt(c, "diff -u .env.example .env"),
           "--- .env.example\t%s.%09d +0000" % (old_dt.strftime("%Y-%m-%d %H:%M:%S"), ri(0, 999999999)),
           "+++ .env\t%s.%09d +0000" % (new_dt.strftime("%Y-%m-%d %H:%M:%S"), ri(0, 999999999))]
    lines = []
    for k, v in pairs:
        if "«" in v:
            lines.append("-%s=%s" % (k, ch(["", "changeme", "your-key-here", "<%s>" % k.lower(), "xxx"])))
            lines.append("+%s=%s" % (k, v))
        else:
            lines.append(" %s=%s" % (k, v))
    out += hunk(1, 1, lines)
    return "\n".join(out)


def yaml_config(c):
    lines = ["server:", "  port: %d" % ch([8080, 3000, 8000]), "  base_url: https://%s.%s" % (c.proj, c.dom), "",
             "database:", "  host: %s" % db_host(c), "  port: 5432", "  name: %s" % c.proj.replace("-", "_"),
             "  user: %s" % c.proj.split("-")[0], "  password: %s" % ch(['"%s"', "'%s'", "%s"]) % M(password()),
             "  max_open_conns: %d" % ri(10, 50), "", "redis:", "  url: %s" % redis_url(c), ""]
    extra = shuffled([
        ["smtp:", "  host: smtp.mailgun.org", "  port: 587", "  username: postmaster@mg.%s" % c.dom, "  password: %s" % M(hx(32) + "-" + hx(8) + "-" + hx(8))],
        ["auth:", "  jwt_secret: %s" % M(b64(48)), "  access_ttl: 15m", "  refresh_ttl: 720h"],
        ["openai:", "  api_key: %s" % M(openai_key()), "  model: %s" % ch(["gpt-4o-mini", "gpt-4.1", "o4-mini"])],
        ["stripe:", "  secret_key: %s" % M(stripe_key("sk", "live")), "  publishable_key: %s" % stripe_key("pk", "live"), "  webhook_secret: %s" % M(whsec())],
        ["s3:", "  bucket: %s-%s" % (c.org, c.env), "  region: %s" % c.region, "  access_key_id: %s" % aws_key_id(), "  secret_access_key: %s" % M(aws_secret())],
        ["telemetry:", "  enabled: true", "  sample_rate: 0.1", "  sentry_dsn: %s" % sentry_dsn(c)],
    ])[:ri(2, 3)]
    for e in extra:
        lines += e + [""]
    return lines[:-1]


def p_bat_yaml_config():
    c = Ctx()
    path = ch(["config/%s.yaml" % c.env, "deploy/config.yml", "configs/app.yaml", "settings/%s.yml" % c.env])
    lines = yaml_config(c)
    return prompt(c, ch(["bat ", "batcat ", "bat --paging=never "]) + path) + "\n" + bat(path, lines)


def p_sed_n_app_toml():
    c = Ctx()
    path = ch(["config/app.toml", "config.toml", "conf/%s.toml" % c.env, "%s.toml" % c.proj])
    lines = ["[server]", "listen = \"0.0.0.0:%d\"" % ch([8080, 9000, 3000]), "workers = %d" % ri(2, 16), "",
             "[database]", "url = \"%s\"" % db_url(c), "max_connections = %d" % ri(5, 40), ""]
    opts = shuffled([
        ["[llm]", "provider = \"anthropic\"", "api_key = \"%s\"" % M(anthropic_key()), "model = \"claude-sonnet-4-5\""],
        ["[llm]", "provider = \"openai\"", "api_key = \"%s\"" % M(openai_key()), "base_url = \"https://api.openai.com/v1\""],
        ["[mail]", "smtp_host = \"smtp.sendgrid.net\"", "smtp_user = \"apikey\"", "smtp_password = \"%s\"" % M(sendgrid_key())],
        ["[mail]", "smtp_host = \"smtp.gmail.com\"", "smtp_user = \"%s\"" % c.email, "smtp_password = \"%s\"" % M(" ".join(rs(LO, 4) for _ in range(4)))],
        ["[github]", "app_id = %s" % digits(6), "webhook_secret = \"%s\"" % M(hx(40)), "token = \"%s\"" % M(gh_token("ghs_"))],
        ["[auth]", "cookie_secret = \"%s\"" % M(b64(32)), "session_ttl = \"24h\""],
        ["[storage]", "endpoint = \"https://%s.r2.cloudflarestorage.com\"" % hx(32), "access_key_id = \"%s\"" % hx(32), "secret_access_key = \"%s\"" % M(hx(64))],
        ["[cache]", "url = \"%s\"" % redis_url(c)],
    ])
    seen = set()
    for o in opts:
        if o[0] in seen:
            continue
        seen.add(o[0])
        lines += o + [""]
        if len(seen) >= 3:
            break
    lines = lines[:-1]
    start = 1
    if R.random() < 0.5:
        return prompt(c, "sed -n '%d,%dp' %s" % (start, len(lines), path)) + "\n" + "\n".join(lines)
    return prompt(c, "awk 'NR>=1 && NR<=%d' %s" % (len(lines), path)) + "\n" + "\n".join(lines)


def p_claude_read_settings_local():
    c = Ctx()
    env = {}
    for k, v in shuffled([("GITHUB_TOKEN", M(github_pat())), ("SENTRY_AUTH_TOKEN", M(sentry_user_token())),
                          ("DATABASE_URL", db_url(c)), ("LINEAR_API_KEY", M(linear_key())),
                          ("ANTHROPIC_API_KEY", M(anthropic_key())), ("NOTION_TOKEN", M(notion_secret())),
                          ("BASH_DEFAULT_TIMEOUT_MS", "300000"), ("DISABLE_TELEMETRY", "1")])[:ri(3, 5)]:
        env[k] = v
    if not any("«" in v for v in env.values()):
        env["OPENAI_API_KEY"] = M(openai_key())
    d = {"permissions": {"allow": shuffled(["Bash(npm run test:*)", "Bash(git diff:*)", "Bash(pnpm lint)", "Bash(cargo check:*)",
                                            "Bash(psql:*)", "WebFetch(domain:docs.%s)" % c.dom, "mcp__github__get_issue"])[:ri(2, 4)],
                         "deny": ["Read(./secrets/**)"] if R.random() < 0.4 else []},
         "env": env}
    if R.random() < 0.5:
        d["enableAllProjectMcpServers"] = True
    if R.random() < 0.4:
        d["model"] = "sonnet"
    lines = json.dumps(d, indent=2, ensure_ascii=False).split("\n")
    return claude_read(lines)


def p_compose_logs_startup():
    c = Ctx()
    svc = ch(["api", "web", "backend", "server"])
    dt = rdt()
    wpad = max(len(svc), 6) + 2
    def L(s, msg):
        return "%s | %s" % ((s + "-1").ljust(wpad + 2), msg)
    out = [prompt(c, "docker compose logs --no-color --tail=20 %s worker" % svc)]
    dburl = db_url(c)
    rurl = redis_url(c)
    key = ch([("OPENAI_API_KEY", openai_key()), ("STRIPE_SECRET_KEY", stripe_key("sk", "test")), ("SENDGRID_API_KEY", sendgrid_key())])
    out.append(L(svc, "%s INFO  [config] loaded %d variables from /app/.env" % (iso_ms(dt), ri(12, 40))))
    dt = later(dt)
    out.append(L(svc, "%s DEBUG [config] %s" % (iso_ms(dt), json.dumps({"databaseUrl": dburl, "redisUrl": rurl, "port": 8080}, ensure_ascii=False))))
    dt = later(dt)
    if R.random() < 0.6:
        out.append(L(svc, "%s DEBUG [config] %s=%s" % (iso_ms(dt), key[0], M(key[1]))))
    else:
        out.append(L(svc, "%s WARN  [payments] using fallback key %s from env" % (iso_ms(dt), M(key[1]))))
    dt = later(dt)
    out.append(L(svc, "%s INFO  [http] listening on :8080" % iso_ms(dt)))
    out.append(L("worker", " "))
    out.append(L("worker", " -------------- celery@%s v5.%d.%d (opalescent)" % (hx(12), ri(2, 4), ri(0, 6))))
    out.append(L("worker", "--- ***** ----- "))
    out.append(L("worker", "-- ******* ---- Linux-6.6.%d-linuxkit-aarch64-with-glibc2.36 %s" % (ri(10, 40), dt.strftime("%Y-%m-%d %H:%M:%S"))))
    out.append(L("worker", "- *** --- * --- "))
    out.append(L("worker", "- ** ---------- [config]"))
    out.append(L("worker", "- ** ---------- .> app:         %s:0x7f%s" % (c.proj.replace("-", "_"), hx(10))))
    out.append(L("worker", "- ** ---------- .> transport:   redis://:**@redis:6379/0"))
    out.append(L("worker", "- ** ---------- .> results:     %s" % ch(["redis://:**@redis:6379/1", "disabled://"])))
    out.append(L("worker", "- *** --- * --- .> concurrency: %d (prefork)" % ri(2, 8)))
    if R.random() < 0.6:
        out.append(L("worker", "[%s: WARNING/MainProcess] broker_url from env: %s" % (dt.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % ri(0, 999),
                                                                                  rurl.replace("redis://default:", "redis://:"))))
    return "\n".join(out)


def k8s_base_env(c, svc):
    up = svc.upper().replace("-", "_")
    ip = "10.%d.%d.%d" % (ri(96, 111), ri(0, 255), ri(1, 254))
    return [("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
            ("HOSTNAME", "%s-%s-%s" % (svc, rs(LOD, 10), rs(LOD, 5))),
            ("KUBERNETES_SERVICE_HOST", "10.%d.0.1" % ri(96, 111)),
            ("KUBERNETES_SERVICE_PORT", "443"),
            ("KUBERNETES_PORT_443_TCP", "tcp://10.96.0.1:443"),
            ("%s_SERVICE_HOST" % up, ip), ("%s_SERVICE_PORT" % up, "80"),
            ("HOME", "/root" if R.random() < 0.3 else "/home/app")]


def p_kubectl_exec_env():
    c = Ctx()
    svc = c.proj
    ns = ch([c.env, c.proj.split("-")[0], "apps", "default", "platform"])
    base = k8s_base_env(c, svc)
    app = env_mix(c, ri(3, 5), ri(2, 4))
    lines = base[:2] + shuffled(base[2:] + app)
    lines.append(("NODE_VERSION" if R.random() < 0.5 else "PYTHON_VERSION", ch(["20.12.2", "3.12.3", "22.3.0", "3.11.9"])))
    cmd = ch(["kubectl exec -n %s deploy/%s -- env" % (ns, svc), "kubectl -n %s exec -it %s -- printenv" % (ns, lines[1][1]),
              "kubectl exec %s -n %s -c app -- env | sort" % (lines[1][1], ns)])
    if "sort" in cmd:
        lines = sorted(lines, key=lambda kv: kv[0])
    return prompt(c, cmd) + "\n" + "\n".join("%s=%s" % kv for kv in lines)


def p_declare_x_dump():
    c = Ctx()
    base = [("HOME", c.home), ("LANG", "en_US.UTF-8"), ("LOGNAME", c.user), ("PWD", c.cwd.replace("~", c.home)),
            ("SHELL", "/bin/bash"), ("SHLVL", "2"), ("TERM", "xterm-256color"), ("USER", c.user),
            ("PATH", "%s/.local/bin:%s/.cargo/bin:/usr/local/bin:/usr/bin:/bin" % (c.home, c.home)),
            ("EDITOR", ch(["vim", "nvim", "code --wait"])), ("VIRTUAL_ENV", c.cwd.replace("~", c.home) + "/.venv")]
    app = env_mix(c, ri(3, 5), ri(0, 2))
    allv = sorted(base + app, key=lambda kv: kv[0])
    cmd = ch(["declare -x", "export -p", "declare -px | grep -v BASH_FUNC"])
    out = [prompt(c, cmd)]
    for k, v in allv:
        out.append('declare -x %s="%s"' % (k, v.replace('"', '\\"').replace("$", "\\$")))
    if R.random() < 0.5:
        out.insert(1 + ri(0, 3), "declare -x OLDPWD")
    return "\n".join(out)


def p_python_os_environ_repr():
    c = Ctx()
    base = [("SHELL", "/bin/zsh"), ("HOME", c.home), ("USER", c.user), ("LANG", "en_US.UTF-8"),
            ("PATH", "%s/.venv/bin:/opt/homebrew/bin:/usr/bin:/bin" % c.cwd.replace("~", c.home)),
            ("PWD", c.cwd.replace("~", c.home)), ("TERM_PROGRAM", ch(["vscode", "iTerm.app", "WezTerm", "ghostty"]))]
    app = env_mix(c, ri(3, 4), ri(0, 2))
    allv = base + app
    body = ", ".join("'%s': '%s'" % (k, v.replace("'", "\\'")) for k, v in allv)
    k = ri(0, 2)
    if k == 0:
        return prompt(c, "python3 -c 'import os; print(os.environ)'") + "\nenviron({" + body + "})"
    if k == 1:
        return ("(Pdb) p {k: v for k, v in os.environ.items() if not k.startswith('LC_')}\n{" + body + "}")
    return (">>> import os\n>>> dict(os.environ)\n{" + body + "}")


def gha_ts(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d%dZ" % (dt.microsecond, ri(0, 9))


def p_gha_log_step_env():
    c = Ctx()
    dt = rdt()
    hook = slack_webhook_parts()
    hard = shuffled([
        ("SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/%s/%s/%s" % (hook[0], hook[1], M(hook[2]))),
        ("NPM_TOKEN", M(npm_token())),
        ("SONAR_TOKEN", M("sqp_" + hx(40))),
        ("DOCKERHUB_TOKEN", M(dckr_pat())),
        ("CYPRESS_RECORD_KEY", M(uuid4())),
        ("OPENAI_API_KEY", M(openai_key())),
        ("DATABASE_URL", db_url(c)),
    ])[:ri(1, 3)]
    masked = shuffled(["DEPLOY_KEY", "AWS_SECRET_ACCESS_KEY", "GH_PAT", "VERCEL_TOKEN", "CODECOV_TOKEN"])[:ri(1, 2)]
    step = ch(["./scripts/deploy.sh %s" % c.env, "npm run e2e", "make release", "pnpm -r publish --no-git-checks"])
    out = []
    def L(s):
        nonlocal dt
        dt = later(dt, 0, 400)
        out.append(gha_ts(dt) + " " + s)
    L("##[group]Run actions/setup-node@v4")
    L("with:")
    L("  node-version: 20")
    L("  cache: pnpm")
    L("##[endgroup]")
    L("Found in cache @ /opt/hostedtoolcache/node/20.%d.%d/x64" % (ri(10, 18), ri(0, 3)))
    L("##[group]Run " + step)
    L(step)
    L("shell: /usr/bin/bash -e {0}")
    L("env:")
    L("  PNPM_HOME: /home/runner/setup-pnpm/node_modules/.bin")
    envs = [(m, "***") for m in masked] + hard + [("ENVIRONMENT", c.env)]
    for k, v in shuffled(envs):
        L("  %s: %s" % (k, v))
    L("##[endgroup]")
    L(ch(["Deploying %s to %s" % (c.proj, c.env), "> e2e@1.0.0 test /home/runner/work/%s/%s" % (c.proj, c.proj), "+ make release"]))
    return "\n".join(out)


def p_docker_build_plain_progress():
    c = Ctx()
    tok = ch([("npm", npm_token()), ("gl", glpat()), ("gh", gh_token("ghp_"))])
    img = "%s/%s:%s" % (ch(["ghcr.io/" + c.org, c.org, "registry.%s" % c.dom]), c.proj, ch(["dev", "latest", hx(7)]))
    argpw = None
    cmd = "docker build --progress=plain -t %s ." % img
    if R.random() < 0.5:
        argpw = ch([gh_token("ghp_"), npm_token(), glpat()])
        cmd = "docker build --progress=plain --build-arg %s=%s -t %s ." % (ch(["NPM_TOKEN", "GIT_TOKEN", "PIP_TOKEN"]), M(argpw), img)
    out = [prompt(c, cmd),
           "#0 building with \"%s\" instance using docker driver" % ch(["default", "desktop-linux", "builder"]),
           "", "#1 [internal] load build definition from Dockerfile",
           "#1 transferring dockerfile: %d.%02dkB done" % (ri(1, 3), ri(0, 99)), "#1 DONE 0.0s", "",
           "#2 [internal] load metadata for docker.io/library/%s" % ch(["node:20-alpine", "python:3.12-slim", "golang:1.22"]),
           "#2 DONE %.1fs" % (ri(3, 19) / 10), "",
           "#5 [builder 1/6] FROM docker.io/library/node:20-alpine@sha256:" + hx(64),
           "#5 CACHED", ""]
    if tok[0] == "npm":
        out += ["#8 [builder 4/6] RUN echo \"//registry.npmjs.org/:_authToken=%s\" > .npmrc && npm ci --omit=dev" % M(tok[1]),
                "#8 %.3f npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory." % (ri(500, 3000) / 1000),
                "#8 %.2f added %d packages, and audited %d packages in %ds" % (ri(900, 4000) / 100, ri(200, 900), ri(900, 1200), ri(8, 40)),
                "#8 DONE %.1fs" % (ri(100, 500) / 10)]
    elif tok[0] == "gl":
        out += ["#8 [builder 4/6] RUN pip install --no-cache-dir --index-url https://__token__:%s@gitlab.%s/api/v4/projects/%d/packages/pypi/simple -r requirements.txt" % (M(tok[1]), c.dom, ri(10, 999)),
                "#8 %.3f Looking in indexes: https://__token__:****@gitlab.%s/api/v4/projects/%s/packages/pypi/simple" % (ri(500, 3000) / 1000, c.dom, "…"),
                "#8 DONE %.1fs" % (ri(100, 500) / 10)]
        out[-2] = out[-2].replace("…", out[-3].split("/projects/")[1].split("/")[0])
    else:
        out += ["#8 [builder 4/6] RUN git config --global url.\"https://%s:x-oauth-basic@github.com/\".insteadOf \"https://github.com/\" && go mod download" % M(tok[1]),
                "#8 DONE %.1fs" % (ri(50, 300) / 10)]
    out += ["", "#9 [builder 5/6] COPY . .", "#9 DONE 0.%ds" % ri(1, 9), ""]
    if argpw:
        out += ["#10 [builder 6/6] RUN --mount=type=cache,target=/root/.cache build.sh", "#10 %.3f token length: %d" % (ri(100, 900) / 1000, len(argpw)), "#10 DONE 1.%ds" % ri(0, 9)]
    return "\n".join(out)


def p_pino_json_headers():
    c = Ctx()
    dt = rdt()
    host = "%s-%s-%s" % (c.proj, rs(LOD, 9), rs(LOD, 5))
    out = [prompt(c, ch(["kubectl logs -n %s deploy/%s --since=10m | tail -n 4" % (c.env, c.proj),
                         "tail -n 4 logs/%s.log" % c.proj, "docker logs %s 2>&1 | tail -4" % c.proj]))]
    for i in range(ri(3, 4)):
        dt = later(dt, 10, 2000)
        ms = int(dt.timestamp() * 1000) + ri(0, 999)
        kind = ri(0, 3)
        hdrs = {"host": "api.%s" % c.dom, "user-agent": ch(["okhttp/4.12.0", "axios/1.7.2", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)", "python-requests/2.32.3"]),
                "accept": "application/json"}
        if kind == 0:
            hdrs["authorization"] = "Bearer " + M(user_jwt(c))
        elif kind == 1:
            hdrs["x-api-key"] = M(ch(["%s_live_%s" % (c.org[:3], an(32)), hx(40), "key_" + an(28)]))
        elif kind == 2:
            hdrs["authorization"] = "[Redacted]"
        else:
            hdrs["authorization"] = "Basic " + M(b64s("%s:%s" % (ch(["admin", "metrics", "partner-" + c.org]), password())))
        hdrs["x-request-id"] = uuid4()
        line = {"level": ch([30, 30, 40, 50]), "time": ms, "pid": 1, "hostname": host,
                "req": {"id": ri(1, 9999), "method": ch(["GET", "POST", "PATCH"]), "url": ch(["/v1/orders", "/v1/charges", "/internal/metrics", "/v2/messages?limit=50"]),
                        "headers": hdrs, "remoteAddress": "::ffff:10.%d.%d.%d" % (ri(0, 255), ri(0, 255), ri(1, 254)), "remotePort": ri(30000, 65000)},
                "msg": ch(["incoming request", "request completed", "unauthorized"])}
        out.append(json.dumps(line, separators=(",", ":"), ensure_ascii=False))
    if not any("«" in l for l in out):
        return p_pino_json_headers()
    return "\n".join(out)


def p_heroku_config_vars():
    c = Ctx()
    app = "%s-%s" % (c.proj, ch(["prod", "production", "staging", "api"]))
    hu = rs(LO, 14)
    vals = [("DATABASE_URL", "postgres://%s:%s@ec2-%d-%d-%d-%d.compute-1.amazonaws.com:5432/%s" % (hu, M(hx(64)), ri(3, 54), ri(0, 255), ri(0, 255), ri(0, 255), rs(LOD, 14))),
            ("REDIS_URL", "rediss://:%s@ec2-%d-%d-%d-%d.compute-1.amazonaws.com:%d" % (M("p" + hx(63)), ri(3, 54), ri(0, 255), ri(0, 255), ri(0, 255), ri(10000, 32000))),
            ("LANG", "en_US.UTF-8"), ("RACK_ENV", "production"), ("WEB_CONCURRENCY", str(ri(2, 5))),
            ("PAPERTRAIL_API_TOKEN", M(an(20)))]
    extra = shuffled([("SENDGRID_API_KEY", M(sendgrid_key())), ("SECRET_KEY_BASE", M(hx(128))),
                      ("STRIPE_SECRET_KEY", M(stripe_key("sk", "live"))), ("CLOUDINARY_URL", "cloudinary://%s:%s@%s" % (digits(15), M(rs(URLS, 27)), c.org.replace("-", ""))),
                      ("NEW_RELIC_LICENSE_KEY", M(newrelic_license())), ("NEW_RELIC_APP_NAME", app),
                      ("BUGSNAG_API_KEY", M(hx(32))), ("RAILS_MASTER_KEY", M(hx(32)))])[:ri(3, 5)]
    vals = sorted(vals + extra, key=lambda kv: kv[0])
    w = max(len(k) for k, _ in vals) + 2
    out = [prompt(c, "heroku config -a " + app), "=== %s Config Vars" % app, ""]
    out += ["%s%s" % ((k + ":").ljust(w), v) for k, v in vals]
    return "\n".join(out)


def p_pytest_showlocals():
    c = Ctx()
    mod = c.proj.replace("-", "_")
    dsn = db_url(c, scheme="postgresql")
    key = ch([("stripe_key", stripe_key("sk", "test")), ("openai_api_key", openai_key()), ("sendgrid_key", sendgrid_key()),
              ("twilio_auth_token", hx(32)), ("github_token", gh_token("ghp_"))])
    settings = "Settings(env='%s', debug=False, database_url='%s', %s='%s', timeout=%d)" % (c.env, dsn, key[0], M(key[1]), ri(5, 60))
    fn, tf = ch([("test_charge_customer", "payments"), ("test_send_welcome_email", "email"), ("test_summarize_ticket", "llm"),
                 ("test_sync_repos", "sync"), ("test_reconcile_invoices", "billing")])
    err = ch([("httpx.HTTPStatusError", "Client error '401 Unauthorized' for url 'https://api.%s/v1/run'" % c.dom),
              ("ConnectionRefusedError", "[Errno 111] Connection refused"), ("AssertionError", "assert 503 == 200")])
    lines = ["=" * 30 + " FAILURES " + "=" * 30,
             "_" * 26 + " %s " % fn + "_" * 26, "",
             "settings = " + settings, "",
             "    def %s(settings):" % fn,
             "        client = make_client(settings)",
             ">       result = client.%s(%s)" % (ch(["run", "send", "fetch_all"]), ch(["'cus_%s'" % an(14), "dry_run=False", "limit=10"])),
             "",
             "client     = <%s.clients.Client object at 0x%s>" % (mod, "7f" + hx(10)),
             "settings   = " + settings, "",
             "tests/test_%s.py:%d: " % (tf, ri(20, 200)),
             "_ " * 30,
             "E   %s: %s" % err, "",
             "=" * 20 + " short test summary info " + "=" * 20,
             "FAILED tests/test_%s.py::%s - %s: %s" % (tf, fn, err[0], err[1][:40]),
             "%d failed, %d passed in %.2fs" % (1, ri(10, 200), ri(100, 9000) / 100)]
    return prompt(c, "pytest -x -l tests/") + "\n" + "\n".join(lines)


def box(lines, title=None, w=None):
    w = w or max(len(unmark(l)) for l in lines) + 2
    if title:
        t = " " + title + " "
        left = (w - len(t)) // 2
        top = "╭" + "─" * left + t + "─" * (w - left - len(t)) + "╮"
    else:
        top = "╭" + "─" * w + "╮"
    out = [top]
    for l in lines:
        out.append("│ " + l + " " * (w - 1 - len(unmark(l))) + "│")
    out.append("╰" + "─" * w + "╯")
    return out


def p_rich_traceback_locals():
    c = Ctx()
    tok = ch([("token", notion_secret(), "Bearer "), ("api_key", openai_key(), "Bearer "), ("token", linear_key(), ""),
              ("api_key", groq_key(), "Bearer "), ("token", hf_token(), "Bearer "), ("api_key", mistral_key(), "Bearer ")])
    path = "/app/src/%s/client.py" % c.proj.replace("-", "_")
    ln = ri(40, 200)
    code = ["%5d │   │   headers = {\"Authorization\": f\"%s{self.%s}\"}" % (ln - 2, tok[2], tok[0]),
            "%5d │   │   resp = self._http.get(url, headers=headers, params=params)" % (ln - 1),
            "❱ %3d │   │   resp.raise_for_status()" % ln,
            "%5d │   │   return resp.json()" % (ln + 1)]
    locs = ["headers = {'Authorization': '%s%s'}" % (tok[2], M(tok[1])),
            " params = {'page_size': 100}",
            "   resp = <Response [401 Unauthorized]>",
            "   self = <%s.client.Client object at 0x7f%s>" % (c.proj.replace("-", "_"), hx(10)),
            "    url = 'https://api.%s/v1/%s'" % (c.dom, ch(["pages", "issues", "chat/completions", "items"]))]
    if R.random() < 0.5:
        locs.insert(3, "%s = '%s'" % (tok[0].rjust(6), M(tok[1])))
    inner = box(locs, "locals")
    body = ["%s:%d in fetch_page" % (path, ln), ""] + code + [""] + inner
    outer = box(body, "Traceback (most recent call last)")
    out = outer + ["HTTPStatusError: Client error '401 Unauthorized' for url 'https://api.%s/v1/items'" % c.dom]
    return prompt(c, "python -m %s.sync --since 2d" % c.proj.replace("-", "_")) + "\n" + "\n".join(out)


def p_go_test_struct_dump():
    c = Ctx()
    pkg = "github.com/%s/%s/internal/config" % (c.org, c.proj)
    dsn = db_url(c, scheme="postgres")
    tok = ch([("Stripe", "Key", stripe_key("sk", "test")), ("Slack", "BotToken", slack_bot()), ("SendGrid", "APIKey", sendgrid_key()),
              ("OpenAI", "APIKey", openai_key()), ("GitHub", "Token", gh_token("ghp_"))])
    pw = password("words") if R.random() < 0.5 else password()
    k = ri(0, 1)
    out = [prompt(c, "go test ./internal/config/... -run TestLoad -v"), "=== RUN   TestLoadFromEnv"]
    if k == 0:
        out.append("    config_test.go:%d: unexpected config: %s" % (ri(20, 90),
                   "{Env:%s DB:{DSN:%s MaxConns:%d} Redis:{Addr:redis:6379 Password:%s} %s:{%s:%s}}" % (c.env, dsn, ri(5, 30), M(pw), tok[0], tok[1], M(tok[2]))))
    else:
        out += ["    config_test.go:%d: " % ri(20, 90),
                "        \tError Trace:\t%s/internal/config/config_test.go:%d" % (c.home, ri(20, 90)),
                "        \tError:      \tNot equal: ",
                "        \t            \texpected: config.Config{Env:\"test\", DB:config.DB{DSN:\"\", MaxConns:0}}",
                "        \t            \tactual  : config.Config{Env:\"%s\", DB:config.DB{DSN:\"%s\", MaxConns:%d}, %s:config.%s{%s:\"%s\"}}" % (c.env, dsn, ri(5, 30), tok[0], tok[0], tok[1], M(tok[2])),
                "        \tTest:       \tTestLoadFromEnv"]
    out += ["--- FAIL: TestLoadFromEnv (0.00s)", "FAIL", "FAIL\t%s\t0.%03ds" % (pkg, ri(4, 90)), "FAIL"]
    return "\n".join(out)


def p_jest_snapshot_diff():
    c = Ctx()
    fields = shuffled([("openaiApiKey", openai_key(), "sk-test-placeholder"), ("stripeSecretKey", stripe_key("sk", "test"), "sk_test_123"),
                       ("sentryAuthToken", sentry_user_token(), ""), ("resendApiKey", "re_" + an(8) + "_" + an(24), "re_test"),
                       ("githubToken", gh_token("ghp_"), "test-token"), ("anthropicApiKey", anthropic_key(), "test-key")])[:ri(1, 2)]
    out = [prompt(c, "npx jest src/config"), " FAIL  src/config/__tests__/config.test.ts",
           "  ● loadConfig › matches snapshot", "",
           "    expect(received).toMatchSnapshot()", "",
           "    Snapshot name: `loadConfig matches snapshot 1`", "",
           "    - Snapshot  - %d" % len(fields), "    + Received  + %d" % len(fields), "",
           "    @@ -%d,%d +%d,%d @@" % (2, 6 + len(fields), 2, 6 + len(fields)),
           "        \"apiBaseUrl\": \"https://api.%s\"," % c.dom,
           "        \"env\": \"test\","]
    for name, real, fake in fields:
        out.append("    -   \"%s\": \"%s\"," % (name, fake))
        out.append("    +   \"%s\": \"%s\"," % (name, M(real)))
    jl = ri(10, 40)
    out += ["        \"logLevel\": \"silent\",", "        \"port\": 3000,", "",
            "      %d |   it('matches snapshot', () => {" % jl,
            "      %d |     const cfg = loadConfig(process.env);" % (jl + 1),
            "    > %d |     expect(cfg).toMatchSnapshot();" % (jl + 2),
            "         |                 ^", "",
            " › 1 snapshot failed.", "Snapshot Summary", " › 1 snapshot failed from 1 test suite. Inspect your code changes or run `npx jest -u` to update them.",
            "", "Tests:       1 failed, %d passed, %d total" % (ri(3, 30), ri(31, 60))]
    return "\n".join(out)


def php_dump(v, ind=0):
    sp = "  " * ind
    if isinstance(v, list):
        out = ["%sarray(%d) {" % (sp if False else "", len(v))]
        for k, x in v:
            out.append("%s  [\"%s\"]=>" % (sp, k))
            sub = php_dump(x, ind + 1)
            out.append("%s  %s" % (sp, sub[0]))
            out += sub[1:]
        out.append("%s}" % sp)
        return out
    if isinstance(v, bool):
        return ["bool(%s)" % ("true" if v else "false")]
    if isinstance(v, int):
        return ["int(%d)" % v]
    return ["string(%d) \"%s\"" % (len(unmark(v).encode()), v)]


def p_php_var_dump_config():
    c = Ctx()
    cfg = [("database", [("driver", "pgsql" if R.random() < 0.5 else "mysql"), ("host", db_host(c)), ("port", 5432),
                         ("database", c.proj.replace("-", "_")), ("username", c.proj.split("-")[0]), ("password", M(password()))])]
    cfg += shuffled([
        ("mail", [("mailer", "smtp"), ("host", "smtp.mailgun.org"), ("port", 587), ("username", "postmaster@mg." + c.dom), ("password", M(mailgun_key()))]),
        ("services", [("stripe", [("key", stripe_key("pk", "live")), ("secret", M(stripe_key("sk", "live")))])]),
        ("pusher", [("app_id", digits(7)), ("key", hx(20)), ("secret", M(hx(20))), ("cluster", "eu")]),
        ("aws", [("key", aws_key_id()), ("secret", M(aws_secret())), ("region", c.region), ("bucket", c.org + "-media")]),
        ("app", [("debug", True), ("key", M("base64:" + b64(32))), ("url", "https://" + c.dom)]),
    ])[:ri(2, 3)]
    out = php_dump(cfg)
    cmd = ch(["php -r 'require \"vendor/autoload.php\"; var_dump(require \"config/local.php\");'",
              "php bin/dump-config.php", "curl -s http://localhost:8000/debug.php"])
    return prompt(c, cmd) + "\n" + "\n".join(out)


def p_spring_log_jdbc_url():
    c = Ctx()
    dt = rdt()
    app = c.proj
    tz = ch(["+00:00", "+02:00", "-05:00", "+01:00"])
    pid = ri(1, 9)
    def L(level, thread, logger, msg):
        nonlocal dt
        dt = later(dt, 1, 900)
        return "%s.%03d%s %5s %d --- [%s] [%15s] %-40s : %s" % (dt.strftime("%Y-%m-%dT%H:%M:%S"), dt.microsecond // 1000, tz, level, pid, app,
                                                              thread[-15:], logger[-40:], msg)
    pw = pw_url()
    db = c.proj.replace("-", "_")
    k = ri(0, 2)
    if k == 0:
        url = "jdbc:postgresql://%s:5432/%s?user=%s&password=%s&sslmode=require" % (db_host(c), db, db, M(pw))
    elif k == 1:
        url = "jdbc:mysql://%s:3306/%s?user=%s&password=%s&useSSL=true" % (db_host(c), db, db, M(pw))
    else:
        url = "jdbc:sqlserver://%s:1433;databaseName=%s;user=sa;password=%s;encrypt=true;trustServerCertificate=true" % (db_host(c), db, M(pw))
    out = [prompt(c, ch(["./gradlew bootRun --args='--spring.profiles.active=%s'" % c.env, "java -jar build/libs/%s-0.0.1-SNAPSHOT.jar" % app,
                         "docker compose logs --no-log-prefix %s | head -n 8" % app])),
           L("INFO", "main", "c.%s.%s.Application" % (c.org.replace("-", "")[:8], db[:8]), "Starting Application using Java 21.0.%d with PID %d" % (ri(1, 4), ri(1, 9000))),
           L("INFO", "main", "o.s.b.w.embedded.tomcat.TomcatWebServer", "Tomcat initialized with port 8080 (http)"),
           L("DEBUG", "main", "c.%s.config.DataSourceConfig" % c.org.replace("-", "")[:8], "Creating datasource url=%s" % url),
           L("INFO", "main", "com.zaxxer.hikari.HikariDataSource", "HikariPool-1 - Starting..."),
           L("INFO", "main", "com.zaxxer.hikari.pool.HikariPool", "HikariPool-1 - Added connection org.postgresql.jdbc.PgConnection@%s" % hx(8))]
    if R.random() < 0.6:
        out.append(L("WARN", "main", "o.s.b.a.orm.jpa.JpaBaseConfiguration$JpaWebConfiguration", "spring.jpa.open-in-view is enabled by default."))
        out.append(L("INFO", "main", "c.%s.config.ExternalClients" % c.org.replace("-", "")[:8],
                     "Registered client %s with apiKey=%s" % (ch(["sendgrid", "stripe", "openai"]), M(ch([sendgrid_key(), stripe_key("sk", "live"), openai_key()])))))
    return "\n".join(out)


def p_git_remote_v_tokens():
    c = Ctx()
    repo = "%s/%s" % (c.org, c.proj)
    k = ri(0, 4)
    if k == 0:
        url = "https://x-access-token:%s@github.com/%s.git" % (M(gh_token("ghs_")), repo)
    elif k == 1:
        url = "https://oauth2:%s@gitlab.com/%s.git" % (M(glpat()), repo)
    elif k == 2:
        url = "https://%s@github.com/%s.git" % (M(gh_token("ghp_")), repo)
    elif k == 3:
        url = "https://%s:%s@bitbucket.org/%s.git" % (c.user, M(bitbucket_app_pw()), repo)
    else:
        url = "https://%s:%s@github.com/%s.git" % (c.user, M(github_pat()), repo)
    out = [prompt(c, "git remote -v"), "origin\t%s (fetch)" % url, "origin\t%s (push)" % url]
    if R.random() < 0.5:
        up = "git@github.com:%s/%s.git" % (ch(ORGS), c.proj)
        out += ["upstream\t%s (fetch)" % up, "upstream\t%s (push)" % up]
    if R.random() < 0.5:
        out += [prompt(c, "git config --get remote.origin.url"), url]
    return "\n".join(out)


def p_httpie_verbose():
    c = Ctx()
    host = "api.%s" % c.dom
    k = ri(0, 2)
    path = ch(["/v2/messages", "/v1/orders", "/api/projects", "/v1/webhooks"])
    if k == 0:
        tok = ch([user_jwt(c), "%s_%s" % (ch(["sk", "tok", "key"]), an(40)), openai_key()])
        cmd = "http -v POST https://%s%s Authorization:\"Bearer %s\" text=hello" % (host, path, M(tok))
        auth = "Authorization: Bearer %s" % M(tok)
    elif k == 1:
        u, p = ch(["admin", "ci", c.user]), password()
        cmd = "http -v -a %s:%s POST https://%s%s text=hello" % (u, M(p), host, path)
        auth = "Authorization: Basic %s" % M(b64s("%s:%s" % (u, p)))
    else:
        tok = ch([hx(40), an(32), "live_" + an(40)])
        cmd = "http -v POST https://%s%s X-API-Key:%s text=hello" % (host, path, M(tok))
        auth = "X-API-Key: %s" % M(tok)
    dt = rdt()
    hdrs = ["Accept: application/json, */*;q=0.5", "Accept-Encoding: gzip, deflate, br", auth, "Connection: keep-alive",
            "Content-Length: 17", "Content-Type: application/json", "Host: " + host, "User-Agent: HTTPie/3.2.%d" % ri(1, 3)]
    hdrs = sorted(hdrs, key=lambda h: h.split(":")[0].lower())
    out = [prompt(c, cmd), "POST %s HTTP/1.1" % path] + hdrs + ["", "{", "    \"text\": \"hello\"", "}", "", "",
           "HTTP/1.1 %s" % ch(["201 Created", "401 Unauthorized", "422 Unprocessable Entity"]),
           "Content-Type: application/json", "Date: " + dt.strftime("%a, %d %b %Y %H:%M:%S GMT"),
           "X-Request-Id: " + uuid4(), "", "{", "    \"id\": \"%s\"," % ("msg_" + an(20)), "    \"status\": \"%s\"" % ch(["queued", "error"]), "}"]
    return "\n".join(out)


def p_devtools_copy_as_curl():
    c = Ctx()
    app = "app.%s" % c.dom
    k = ri(0, 2)
    ua = ch(["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
             "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"])
    cookies = ["ajs_anonymous_id=%s" % uuid4(), "_ga=GA1.1.%d.%d" % (ri(10 ** 8, 10 ** 9), ri(1700000000, 1750000000))]
    lines = ["curl 'https://api.%s/graphql' \\" % c.dom, "  -H 'accept: */*' \\",
             "  -H 'accept-language: en-US,en;q=0.9' \\"]
    if k == 0:
        lines.append("  -H 'authorization: Bearer %s' \\" % M(user_jwt(c)))
    if k == 1:
        sess = "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0.." + b64u(12) + "." + b64u(ri(300, 500)) + "." + b64u(16)
        cookies.append("__Secure-next-auth.session-token=%s" % M(sess))
    if k == 2:
        cookies.append("_%s_session=%s" % (c.proj.split("-")[0], M(b64u(ri(24, 48)))))
        lines.append("  -H 'x-csrf-token: %s' \\" % b64u(32))
    lines += ["  -H 'content-type: application/json' \\",
              "  -b '%s' \\" % "; ".join(shuffled(cookies)),
              "  -H 'origin: https://%s' \\" % app, "  -H 'referer: https://%s/' \\" % app,
              "  -H 'sec-ch-ua: \"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\"' \\",
              "  -H 'sec-fetch-mode: cors' \\", "  -H 'user-agent: %s' \\" % ua,
              "  --data-raw '{\"operationName\":\"%s\",\"variables\":{\"first\":20},\"query\":\"query %s { viewer { id email } }\"}'" % (("Viewer",) * 2)]
    pre = ch(["here's the request from devtools, it 401s on staging:\n", "Copied as cURL from Chrome:\n", ""])
    return pre + "\n".join(lines)


def p_mitmdump_flow_detail():
    c = Ctx()
    prov = ri(0, 3)
    dt = rdt()
    if prov == 0:
        host, path, hdr = "api.openai.com", "/v1/chat/completions", ["authorization: Bearer %s" % M(openai_key()), "openai-organization: org-" + an(24)]
        ua = "OpenAI/Python 1.%d.0" % ri(30, 60)
    elif prov == 1:
        host, path, hdr = "api.anthropic.com", "/v1/messages", ["x-api-key: %s" % M(anthropic_key()), "anthropic-version: 2023-06-01"]
        ua = "Anthropic/Python 0.%d.0" % ri(30, 60)
    elif prov == 2:
        host, path, hdr = "generativelanguage.googleapis.com", "/v1beta/models/gemini-2.0-flash:generateContent", ["x-goog-api-key: %s" % M(gemini_key())]
        ua = "google-genai-sdk/1.%d.0 gl-python/3.12.3" % ri(0, 20)
    else:
        host, path, hdr = "openrouter.ai", "/api/v1/chat/completions", ["authorization: Bearer %s" % M(openrouter_key()), "http-referer: https://%s" % c.dom]
        ua = "ai-sdk/openai-compatible/0.%d.0" % ri(1, 9)
    out = [prompt(c, "mitmdump -nr %s --flow-detail 2" % ch(["flows.mitm", "agent.flows", "/tmp/capture.mitm"])),
           "127.0.0.1:%d: POST https://%s%s HTTP/2.0" % (ri(50000, 65000), host, path),
           "    :authority: " + host] + ["    " + h for h in hdr] + [
           "    content-type: application/json",
           "    user-agent: %s" % ua,
           "    content-length: %d" % ri(200, 9000),
           " << HTTP/2.0 %s %.1fk" % (ch(["200 OK", "200 OK", "429 Too Many Requests"]), ri(5, 90) / 10),
           "    date: " + dt.strftime("%a, %d %b %Y %H:%M:%S GMT"),
           "    content-type: application/json",
           "    x-request-id: " + ch(["req_" + hx(32), "req_011C" + an(20), uuid4()])]
    return "\n".join(out)


def p_curl_verbose_basic_auth():
    c = Ctx()
    host = ch(["nexus.%s" % c.dom, "artifactory.%s" % c.dom, "registry.%s" % c.dom, "jenkins.%s" % c.dom, "grafana.%s" % c.dom])
    u = ch(["deploy", "ci-bot", "admin", c.user])
    p = password()
    path = ch(["/service/rest/v1/repositories", "/artifactory/api/repositories", "/v2/_catalog", "/api/json", "/api/health"])
    ip = "10.%d.%d.%d" % (ri(0, 255), ri(0, 255), ri(1, 254))
    q = "'" if any(x in p for x in "!#$&*^") else ""
    out = [prompt(c, "curl -v -u %s:%s%s%s https://%s%s" % (u, q, M(p), q, host, path)),
           "*   Trying %s:443..." % ip, "* Connected to %s (%s) port 443" % (host, ip),
           "* ALPN: curl offers h2,http/1.1", "* TLSv1.3 (OUT), TLS handshake, Client hello (1):",
           "* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS",
           "* Server certificate:", "*  subject: CN=%s" % host,
           "*  expire date: %s" % rdt(1750000000, 1790000000).strftime("%b %d %H:%M:%S %Y GMT"),
           "* Server auth using Basic with user '%s'" % u,
           "> GET %s HTTP/1.1" % path, "> Host: %s" % host,
           "> Authorization: Basic %s" % M(b64s("%s:%s" % (u, p))),
           "> User-Agent: curl/8.%d.0" % ri(4, 9), "> Accept: */*", ">",
           "< HTTP/1.1 %s" % ch(["200 OK", "401 Unauthorized", "403 Forbidden"]),
           "< Content-Type: application/json", "< Content-Length: %d" % ri(20, 900), "<"]
    return "\n".join(out)


def p_cli_password_flag_warnings():
    c = Ctx()
    k = ri(0, 3)
    if k == 0:
        p = password(ch(["words", "short", "hex"]))
        return "\n".join([prompt(c, "mysql -h %s -u root -p'%s' -e 'SHOW DATABASES;'" % (db_host(c), M(p))),
                          "mysql: [Warning] Using a password on the command line interface can be insecure.",
                          "+--------------------+", "| Database           |", "+--------------------+",
                          "| information_schema |", "| %-18s |" % c.proj.replace("-", "_")[:18], "| mysql              |",
                          "| performance_schema |", "+--------------------+"])
    if k == 1:
        t = dckr_pat()
        reg = ch(["", " registry.%s" % c.dom])
        return "\n".join([prompt(c, "docker login -u %s -p %s%s" % (ch(["ci", c.user, c.org + "bot"]), M(t), reg)),
                          "WARNING! Using --password via the CLI is insecure. Use --password-stdin.",
                          "WARNING! Your password will be stored unencrypted in %s/.docker/config.json." % c.home,
                          "Configure a credential helper to remove this warning. See",
                          "https://docs.docker.com/engine/reference/commandline/login/#credential-stores", "", "Login Succeeded"])
    if k == 2:
        p = pw_url()
        return "\n".join([prompt(c, "PGPASSWORD=%s psql -h %s -U %s -d %s -c '\\dt'" % (M(p), db_host(c), c.proj.split("-")[0], c.proj.replace("-", "_"))),
                          "           List of relations", " Schema |      Name       | Type  | Owner",
                          "--------+-----------------+-------+-------", " public | users           | table | %s" % c.proj.split("-")[0],
                          " public | orders          | table | %s" % c.proj.split("-")[0], "(2 rows)"])
    p = password(ch(["words", "short"]))
    return "\n".join([prompt(c, "mysqldump -u%s -p%s --single-transaction %s > /tmp/%s.sql" % ("root", M(p), c.proj.replace("-", "_"), c.proj)),
                      "mysqldump: [Warning] Using a password on the command line interface can be insecure."])


def p_yarnrc_yml_auth():
    c = Ctx()
    scope = c.org.replace("-", "")
    k = ri(0, 2)
    lines = ["nodeLinker: node-modules", ""]
    if k == 0:
        lines += ["npmScopes:", "  %s:" % scope, "    npmAlwaysAuth: true", "    npmAuthToken: %s" % M(gh_token("ghp_")),
                  "    npmRegistryServer: \"https://npm.pkg.github.com\""]
    elif k == 1:
        lines += ["npmRegistries:", "  \"https://%s.jfrog.io/artifactory/api/npm/npm-virtual\":" % c.org, "    npmAlwaysAuth: true",
                  "    npmAuthIdent: \"%s:%s\"" % (c.email, M(password("short")))]
    else:
        lines += ["npmAuthToken: %s" % M(npm_token()), "npmAlwaysAuth: true"]
    lines += ["", "yarnPath: .yarn/releases/yarn-4.%d.%d.cjs" % (ri(0, 5), ri(0, 3))]
    if R.random() < 0.5:
        lines.insert(2, "enableTelemetry: false")
    path = ch([".yarnrc.yml", "~/.yarnrc.yml"])
    return prompt(c, "cat " + path) + "\n" + "\n".join(lines)


def p_pip_config_list():
    c = Ctx()
    items = []
    k = ri(0, 2)
    if k == 0:
        items.append("global.index-url='https://%s:%s@nexus.%s/repository/pypi-all/simple'" % (ch(["ci", "deploy", c.user]), M(pw_url()), c.dom))
    elif k == 1:
        items.append("global.extra-index-url='https://__token__:%s@gitlab.%s/api/v4/projects/%d/packages/pypi/simple'" % (M(glpat()), c.dom, ri(10, 900)))
    else:
        items.append("global.extra-index-url='https://aws:%s@%s-%s.d.codeartifact.%s.amazonaws.com/pypi/py/simple/'" % (
            M("eyJ2ZXIiOjEsImlzdSI6" + b64u(ri(500, 700))), c.org, digits(12), c.region))
    items.append("global.timeout='60'")
    if R.random() < 0.5:
        items.append("install.trusted-host='nexus.%s'" % c.dom)
    if R.random() < 0.5:
        items.append("user.extra-index-url='https://%s:%s@%s.jfrog.io/artifactory/api/pypi/pypi/simple'" % (c.user, M("AKCp" + an(69)), c.org))
    items = sorted(items)
    out = [prompt(c, "pip config list")] + items
    if R.random() < 0.5:
        out += [prompt(c, "pip config debug | head -n 4"), "env_var:", "env:", "global:",
                "  /etc/xdg/pip/pip.conf, exists: False"]
    return "\n".join(out)


def p_cargo_credentials_toml():
    c = Ctx()
    lines = ["[registry]", "token = \"%s\"" % M(cio_token()), ""]
    k = ri(0, 2)
    if k == 0:
        lines += ["[registries.%s]" % c.org, "token = \"%s\"" % M(cloudsmith_key())]
    elif k == 1:
        lines += ["[registries.%s-internal]" % c.org, "token = \"Bearer %s\"" % M(jwt({"sub": "jfrt@%s" % hx(26), "scp": "applied-permissions/user",
                                                                                     "aud": "*@*", "iss": "jfrt@" + hx(26), "iat": ri(1700000000, 1740000000), "jti": uuid4()}, "RS256"))]
    else:
        lines += ["[registries.shipyard]", "token = \"%s\"" % M(an(32))]
    if R.random() < 0.5:
        lines = lines[3:] + [""] + lines[:2]
    out = [prompt(c, "cat ~/.cargo/credentials.toml")] + lines
    if R.random() < 0.5:
        out += [prompt(c, "cat .cargo/config.toml"), "[registries.%s]" % c.org,
                "index = \"sparse+https://cargo.%s/index/\"" % c.dom, "", "[net]", "git-fetch-with-cli = true"]
    return "\n".join(out)


def p_maven_settings_cat_n():
    c = Ctx()
    servers = []
    servers.append(("%s-releases" % c.org, ch(["deploy", "ci", c.user]), M(password())))
    servers.append(("github", c.user, M(gh_token("ghp_"))))
    if R.random() < 0.5:
        servers.append(("ossrh", rs(LOD, 8), M(rs(URLS, 44))))
    if R.random() < 0.5:
        servers.append(("%s-snapshots" % c.org, "${env.MAVEN_USER}", "${env.MAVEN_PASSWORD}"))
    lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
             "<settings xmlns=\"http://maven.apache.org/SETTINGS/1.2.0\"",
             "          xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"",
             "          xsi:schemaLocation=\"http://maven.apache.org/SETTINGS/1.2.0 https://maven.apache.org/xsd/settings-1.2.0.xsd\">",
             "  <servers>"]
    for i, u, p in shuffled(servers):
        lines += ["    <server>", "      <id>%s</id>" % i, "      <username>%s</username>" % u, "      <password>%s</password>" % p, "    </server>"]
    lines += ["  </servers>", "  <mirrors>", "    <mirror>", "      <id>%s-releases</id>" % c.org, "      <mirrorOf>*</mirrorOf>",
              "      <url>https://nexus.%s/repository/maven-public/</url>" % c.dom, "    </mirror>", "  </mirrors>", "</settings>"]
    if R.random() < 0.5:
        return prompt(c, "cat -n ~/.m2/settings.xml") + "\n" + cat_n(lines)
    return claude_read(lines)


def p_gradle_properties_home():
    c = Ctx()
    lines = ["org.gradle.jvmargs=-Xmx%dg -XX:MaxMetaspaceSize=1g" % ri(2, 8), "org.gradle.parallel=true", "org.gradle.caching=true", ""]
    opts = shuffled([
        ["signing.keyId=%s" % rs(HXU, 8), "signing.password=%s" % M(password()), "signing.secretKeyRingFile=%s/.gnupg/secring.gpg" % c.home],
        ["mavenCentralUsername=%s" % rs(AN, 8), "mavenCentralPassword=%s" % M(rs(AN, 44))],
        ["MAPBOX_DOWNLOADS_TOKEN=%s" % M(mapbox_token("sk", c.user))],
        ["gpr.user=%s" % c.user, "gpr.key=%s" % M(gh_token("ghp_"))],
        ["artifactory_user=%s" % c.email, "artifactory_password=%s" % M("AKCp" + an(69))],
        ["sentry.auth.token=%s" % M("sntrys_" + b64u(ri(90, 120)))],
    ])[:ri(2, 4)]
    for o in opts:
        lines += o
    if R.random() < 0.5:
        lines.append("systemProp.https.proxyHost=proxy.%s" % c.dom)
    cmd = ch(["cat ~/.gradle/gradle.properties", "grep -v '^#' ~/.gradle/gradle.properties", "cat $GRADLE_USER_HOME/gradle.properties"])
    return prompt(c, cmd) + "\n" + "\n".join(lines)


def p_docker_config_auths():
    c = Ctx()
    auths = []
    auths.append(("ghcr.io", M(b64s("%s:%s" % (c.user, gh_token("ghp_"))))))
    if R.random() < 0.6:
        auths.append(("https://index.docker.io/v1/", M(b64s("%s:%s" % (c.user, dckr_pat())))))
    else:
        auths.append(("https://index.docker.io/v1/", None))
    if R.random() < 0.5:
        auths.append(("registry.%s" % c.dom, M(b64s("%s:%s" % (ch(["robot$ci", "deploy", "admin"]), password())))))
    if R.random() < 0.5:
        auths.append(("%s.dkr.ecr.%s.amazonaws.com" % (digits(12), c.region), None))
    out = ["{", "\t\"auths\": {"]
    items = sorted(auths, key=lambda a: a[0])
    for i, (reg, a) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if a is None:
            out.append("\t\t\"%s\": {}%s" % (reg, comma))
        else:
            out += ["\t\t\"%s\": {" % reg, "\t\t\t\"auth\": \"%s\"" % a, "\t\t}%s" % comma]
    out += ["\t},"]
    if R.random() < 0.5:
        out += ["\t\"credsStore\": \"%s\"," % ch(["desktop", "osxkeychain", "ecr-login"])]
    out += ["\t\"currentContext\": \"%s\"" % ch(["desktop-linux", "default", "colima"]), "}"]
    if not any("«" in l for l in out):
        return p_docker_config_auths()
    return prompt(c, "cat ~/.docker/config.json") + "\n" + "\n".join(out)


def p_db_client_cred_files():
    c = Ctx()
    k = ri(0, 2)
    if k == 0:
        lines = []
        for _ in range(ri(2, 4)):
            lines.append("%s:%s:%s:%s:%s" % (db_host(c), ch(["5432", "6432", "*"]), ch([c.proj.replace("-", "_"), "*", "postgres"]),
                                             ch([c.proj.split("-")[0], "postgres", "readonly", "analytics"]), M(pw_url())))
        return prompt(c, "cat ~/.pgpass") + "\n" + "\n".join(lines)
    if k == 1:
        lines = ["[client]", "user=%s" % ch(["root", c.user, "app"]), "password=%s" % M(password()), "host=%s" % db_host(c), "default-character-set=utf8mb4"]
        if R.random() < 0.5:
            lines += ["", "[mysqldump]", "user=backup", "password=\"%s\"" % M(password())]
        return prompt(c, "cat ~/.my.cnf") + "\n" + "\n".join(lines)
    lines = []
    for svc in shuffled(["prod", "staging", "analytics", "replica"])[:ri(2, 3)]:
        lines += ["[%s]" % svc, "host=%s" % db_host(c), "port=5432", "dbname=%s" % c.proj.replace("-", "_"),
                  "user=%s" % ch([c.proj.split("-")[0], "readonly", c.user]), "password=%s" % M(pw_url()), "sslmode=require", ""]
    return prompt(c, "cat ~/.pg_service.conf") + "\n" + "\n".join(lines[:-1])


def p_neon_pscale_passwords():
    c = Ctx()
    if R.random() < 0.5:
        proj = "%s-%s-%s" % (ch(WORDS), ch(WORDS), digits(8))
        ep = "ep-%s-%s-%s" % (ch(WORDS), ch(WORDS), rs(LOD, 8))
        pooled = R.random() < 0.5
        url = "postgresql://%s:%s@%s%s.%s.aws.neon.tech/neondb?sslmode=require" % (ch(["neondb_owner", c.proj.split("-")[0]]), M("npg_" + an(12)),
                                                                                 ep, "-pooler" if pooled else "", ch(["us-east-2", "eu-central-1", "us-west-2"]))
        out = [prompt(c, "neonctl connection-string %s --project-id %s%s" % (ch(["main", "dev", "preview/" + ch(WORDS)]), proj, " --pooled" if pooled else "")), url]
        if R.random() < 0.5:
            out += [prompt(c, "echo \"DATABASE_URL=$(neonctl cs main --project-id %s)\" >> .env.local && tail -1 .env.local" % proj), "DATABASE_URL=" + url]
        return "\n".join(out)
    db = c.proj.split("-")[0]
    name = ch(["ci-deploy", "local-dev", "%s-laptop" % c.first, "vercel-prod"])
    user = rs(LOD, 20)
    pw = "pscale_pw_" + rs(URLS, 43)
    hdr = ["NAME", "BRANCH", "USERNAME", "ACCESS HOST URL", "ROLE", "ROLE DESCRIPTION", "PASSWORD"]
    row = [name, "main", user, "aws.connect.psdb.cloud", "admin", "Can Read, Write, and administer", M(pw)]
    ws = [max(len(unmark(a)), len(b)) for a, b in zip(row, hdr)]
    out = [prompt(c, "pscale password create %s main %s --org %s" % (db, name, c.org)),
           "Password %s was successfully created in %s/main." % (name, db),
           "Please save the values below as they will not be shown again", "",
           "  " + "   ".join(h.ljust(w) for h, w in zip(hdr, ws)),
           " " + " ".join("-" * (w + 2) for w in ws),
           "  " + "   ".join(v + " " * (w - len(unmark(v))) for v, w in zip(row, ws))]
    return "\n".join(l.rstrip() for l in out)


def psql_table(hdr, rows):
    ws = [max([len(h)] + [len(unmark(r[i])) for r in rows]) for i, h in enumerate(hdr)]
    out = [" " + " | ".join(h.center(w) for h, w in zip(hdr, ws)).rstrip(),
           "-" + "-+-".join("-" * w for w in ws) + "-"]
    for r in rows:
        out.append((" " + " | ".join((v.rjust(w) if v.isdigit() else v + " " * (w - len(unmark(v)))) for v, w in zip(r, ws))).rstrip())
    out.append("(%d row%s)" % (len(rows), "" if len(rows) == 1 else "s"))
    return out


def p_psql_select_oauth_tokens():
    c = Ctx()
    db = c.proj.replace("-", "_")
    rows = []
    for i in range(ri(2, 4)):
        prov = ch(["slack", "github", "shopify", "google", "notion"])
        if prov == "slack":
            a, r = slack_bot(), ""
        elif prov == "github":
            a, r = gh_token("ghu_"), "ghr_" + an(76)
        elif prov == "shopify":
            a, r = shopify_token(), ""
        elif prov == "google":
            a, r = "ya29.a0" + rs(URLS, ri(150, 200)), "1//0" + rs(URLS, 99)
        else:
            a, r = "ntn_" + digits(11) + an(35), ""
        dt = rdt()
        rows.append([str(ri(10, 900)), str(ri(1, 500)), prov, M(a), M(r) if r else "", dt.strftime("%Y-%m-%d %H:%M:%S.") + "%06d+00" % ri(0, 999999)])
    hdr = ["id", "account_id", "provider", "access_token", "refresh_token", "created_at"]
    out = ["%s=# SELECT id, account_id, provider, access_token, refresh_token, created_at FROM integrations ORDER BY id DESC LIMIT %d;" % (db, len(rows))]
    out += psql_table(hdr, rows)
    return "\n".join(out)


def p_secretsmanager_get_value():
    c = Ctx()
    name = "%s/%s/%s" % (c.env, c.proj, ch(["db", "rds", "api-keys", "app"]))
    acct = digits(12)
    dt = rdt()
    if "api-keys" in name or "app" in name:
        inner = {"STRIPE_SECRET_KEY": M(stripe_key("sk", "live")), "SENDGRID_API_KEY": M(sendgrid_key()), "SENTRY_DSN": sentry_dsn(c)}
        if R.random() < 0.5:
            inner["OPENAI_API_KEY"] = M(openai_key())
    else:
        inner = {"username": c.proj.split("-")[0] + "_app", "password": M(password()), "engine": "postgres",
                 "host": "%s.cluster-%s.%s.rds.amazonaws.com" % (c.proj, rs(LOD, 12), c.region), "port": 5432, "dbname": c.proj.replace("-", "_")}
    ss = json.dumps(inner, separators=(",", ":"), ensure_ascii=False)
    if R.random() < 0.6:
        d = {"ARN": "arn:aws:secretsmanager:%s:%s:secret:%s-%s" % (c.region, acct, name, an(6)), "Name": name, "VersionId": uuid4(),
             "SecretString": ss, "VersionStages": ["AWSCURRENT"], "CreatedDate": dt.strftime("%Y-%m-%dT%H:%M:%S.") + "%03d000+00:00" % ri(0, 999)}
        body = json.dumps(d, indent=4, ensure_ascii=False)
        return prompt(c, "aws secretsmanager get-secret-value --secret-id %s" % name) + "\n" + body
    body = json.dumps(inner, indent=2, ensure_ascii=False)
    return prompt(c, "aws secretsmanager get-secret-value --secret-id %s --query SecretString --output text | jq ." % name) + "\n" + body


def p_kubectl_secret_go_template():
    c = Ctx()
    ns = ch([c.env, c.proj.split("-")[0], "apps"])
    name = ch(["%s-env" % c.proj, "%s-secrets" % c.proj, "app-credentials"])
    if R.random() < 0.6:
        pairs = env_mix(c, ri(3, 4), 0)
        pairs = sorted(pairs, key=lambda kv: kv[0])
        cmd = "kubectl -n %s get secret %s -o go-template='{{range $k,$v := .data}}{{printf \"%%s=\" $k}}{{$v | base64decode}}{{\"\\n\"}}{{end}}'" % (ns, name)
        return prompt(c, cmd) + "\n" + "\n".join("%s=%s" % kv for kv in pairs)
    key = ch(["password", "postgres-password", "redis-password", "api-token", "rabbitmq-password"])
    v = password()
    out = [prompt(c, "kubectl -n %s get secret %s -o jsonpath='{.data.%s}' | base64 -d; echo" % (ns, name, key.replace(".", "\\."))), M(v)]
    if R.random() < 0.5:
        out.insert(0, prompt(c, "kubectl -n %s get secret %s -o jsonpath='{.data.%s}'; echo" % (ns, name, key)))
        out.insert(1, M(b64s(v)))
    return "\n".join(out)


def p_kubeconfig_user_creds():
    c = Ctx()
    cl = "%s-%s" % (c.org, c.env)
    server = ch(["https://%s.gr7.%s.eks.amazonaws.com" % (hx(32).upper(), c.region), "https://10.%d.%d.%d:6443" % (ri(0, 255), ri(0, 255), ri(1, 254)),
                 "https://k8s.%s:6443" % c.dom, "https://%s-dns-%s.hcp.westeurope.azmk8s.io:443" % (c.proj, hx(8))])
    ca = base64.b64encode(pem("CERTIFICATE", fake_cert("kubernetes")).encode()).decode()
    k = ri(0, 1)
    lines = ["apiVersion: v1", "clusters:", "- cluster:", "    certificate-authority-data: " + ca, "    server: " + server, "  name: " + cl,
             "contexts:", "- context:", "    cluster: " + cl, "    namespace: " + ch(["default", c.env, c.proj]), "    user: " + ("%s-admin" % cl if k else "ci-deployer"),
             "  name: " + cl, "current-context: " + cl, "kind: Config", "preferences: {}", "users:"]
    if k:
        cert = base64.b64encode(pem("CERTIFICATE", fake_cert("kubernetes-admin")).encode()).decode()
        key = base64.b64encode(pem("EC PRIVATE KEY", ec_sec1()).encode()).decode()
        lines += ["- name: %s-admin" % cl, "  user:", "    client-certificate-data: " + cert, "    client-key-data: " + M(key)]
    else:
        lines += ["- name: ci-deployer", "  user:", "    token: " + M(sa_jwt(ch(["ci", "kube-system", "deploy"]), "ci-deployer"))]
    cmd = ch(["kubectl config view --raw --minify", "cat ~/.kube/config", "cat $KUBECONFIG"])
    return prompt(c, cmd) + "\n" + "\n".join(lines)


def kv_table(rows, gap=4):
    w = max(len(k) for k, _ in rows + [("Key", "")]) + gap
    out = ["Key".ljust(w) + "Value", "---".ljust(w) + "-----"]
    out += [k.ljust(w) + v for k, v in rows]
    return out


def banner(title, width):
    pad = width - len(title) - 2
    return "=" * (pad // 2) + " " + title + " " + "=" * (pad - pad // 2)


def p_vault_kv_get_table():
    c = Ctx()
    path = "%s/%s/%s" % (ch(["apps", "teams/" + c.org, "services"]), c.proj, c.env)
    dt = rdt()
    data = shuffled([("db_password", M(password())), ("stripe_secret_key", M(stripe_key("sk", "live"))),
                     ("jwt_signing_key", M(b64(48))), ("sendgrid_api_key", M(sendgrid_key())),
                     ("db_username", c.proj.split("-")[0]), ("openai_api_key", M(openai_key())),
                     ("smtp_host", "smtp.%s" % c.dom), ("github_app_private_key_path", "/vault/secrets/gh.pem")])[:ri(3, 5)]
    if not any("«" in v for _, v in data):
        data.append(("api_token", M(an(40))))
    data = sorted(data)
    meta = [("created_time", iso_s(dt)[:-1] + ".%06dZ" % ri(0, 999999)), ("custom_metadata", "<nil>"), ("deletion_time", "n/a"),
            ("destroyed", "false"), ("version", str(ri(1, 30)))]
    out = [prompt(c, "vault kv get -mount=secret %s" % path), banner("Secret Path", 23), "secret/data/" + path, "",
           banner("Metadata", 24)] + kv_table(meta) + ["", banner("Data", 22)] + kv_table(data)
    return "\n".join(out)


def p_gh_auth_status_token():
    c = Ctx()
    tok = gh_token("gho_")
    if R.random() < 0.35:
        return prompt(c, "gh auth token") + "\n" + M(tok)
    out = [prompt(c, "gh auth status --show-token"), "github.com",
           "  ✓ Logged in to github.com account %s (%s)" % (c.user, ch(["keyring", "GH_TOKEN", "%s/.config/gh/hosts.yml" % c.home])),
           "  - Active account: true", "  - Git operations protocol: %s" % ch(["https", "ssh"]),
           "  - Token: %s" % M(tok), "  - Token scopes: %s" % ", ".join("'%s'" % s for s in ch([["gist", "read:org", "repo", "workflow"], ["admin:public_key", "gist", "read:org", "repo"]]))]
    if R.random() < 0.5:
        out += ["", "github.%s" % c.dom, "  ✓ Logged in to github.%s account %s (keyring)" % (c.dom, c.user), "  - Active account: true",
                "  - Git operations protocol: https", "  - Token: %s" % M(gh_token("gho_")), "  - Token scopes: 'repo', 'read:org'"]
    return "\n".join(out)


def p_gitlab_runner_config_toml():
    c = Ctx()
    dt = rdt()
    lines = ["concurrent = %d" % ri(1, 8), "check_interval = 0", "shutdown_timeout = 0", "", "[session_server]", "  session_timeout = 1800", "",
             "[[runners]]", "  name = \"%s\"" % ch(["ci-docker-%02d" % ri(1, 9), "%s-runner" % c.proj, "build-%s" % hx(4)]),
             "  url = \"https://gitlab.%s\"" % c.dom, "  id = %d" % ri(100, 9999), "  token = \"%s\"" % M("glrt-" + rs(AN + "-_", 20)),
             "  token_obtained_at = %s" % iso_s(dt), "  token_expires_at = 0001-01-01T00:00:00Z", "  executor = \"docker\""]
    if R.random() < 0.6:
        lines += ["  [runners.cache]", "    Type = \"s3\"", "    Shared = true", "    [runners.cache.s3]",
                  "      ServerAddress = \"minio.%s:9000\"" % c.dom, "      AccessKey = \"%s\"" % rs(UP + DG, 20),
                  "      SecretKey = \"%s\"" % M(rs(AN + "+/", 40)), "      BucketName = \"runner-cache\"", "      Insecure = false"]
    lines += ["  [runners.docker]", "    tls_verify = false", "    image = \"%s\"" % ch(["alpine:3.20", "docker:27", "ubuntu:24.04"]),
              "    privileged = %s" % ch(["true", "false"]), "    volumes = [\"/cache\"]", "    shm_size = 0"]
    if R.random() < 0.4:
        lines.insert(lines.index("  executor = \"docker\"") + 1, "  environment = [\"DOCKER_AUTH_CONFIG={\\\"auths\\\":{\\\"registry.%s\\\":{\\\"auth\\\":\\\"%s\\\"}}}\"]" % (c.dom, M(b64s("ci:" + password()))))
    return prompt(c, "sudo cat /etc/gitlab-runner/config.toml") + "\n" + "\n".join(lines)


def p_terraform_state_grep():
    c = Ctx()
    if R.random() < 0.55:
        out = [prompt(c, "grep -n -E '\"(password|master_password|result|secret|access_token|bcrypt_hash)\"' terraform.tfstate")]
        ln = ri(30, 200)
        r1 = rs(AN + "!#$%&*()-_=+[]{}<>:?", ri(16, 32))
        out.append("%d:            \"bcrypt_hash\": \"$2a$10$%s\"," % (ln, rs(AN + "./", 53)))
        ln += ri(5, 20)
        out.append("%d:            \"result\": \"%s\"," % (ln, M(r1)))
        ln += ri(100, 900)
        out.append("%d:            \"master_password\": \"%s\"," % (ln, M(r1)))
        if R.random() < 0.6:
            ln += ri(50, 400)
            out.append("%d:            \"secret\": \"%s\"," % (ln, M(aws_secret())))
        if R.random() < 0.5:
            ln += ri(50, 400)
            out.append("%d:            \"access_token\": \"%s\"," % (ln, M(ch([gh_token("ghp_"), "dop_v1_" + hx(64), vault_token()]))))
        return "\n".join(out)
    res = rs(AN + "-_", ri(20, 32))
    d = {"bcrypt_hash": "$2a$10$" + rs(AN + "./", 53), "id": "none", "keepers": None, "length": len(res), "lower": True,
         "min_lower": 0, "min_numeric": 0, "min_special": 0, "min_upper": 0, "number": True, "numeric": True,
         "override_special": "-_", "result": M(res), "special": True, "upper": True}
    body = json.dumps(d, indent=2, ensure_ascii=False)
    return prompt(c, "jq '.resources[] | select(.type==\"random_password\") | .instances[0].attributes' terraform.tfstate") + "\n" + body


def p_codex_config_mcp_env():
    c = Ctx()
    lines = ["model = \"%s\"" % ch(["gpt-5-codex", "gpt-5", "o3"]), "model_reasoning_effort = \"%s\"" % ch(["high", "medium"]),
             "approval_policy = \"%s\"" % ch(["on-request", "untrusted", "never"]), "sandbox_mode = \"workspace-write\"", "",
             "[projects.\"%s\"]" % c.cwd.replace("~", c.home), "trust_level = \"trusted\"", ""]
    servers = shuffled([
        ["[mcp_servers.github]", "command = \"docker\"", "args = [\"run\", \"-i\", \"--rm\", \"-e\", \"GITHUB_PERSONAL_ACCESS_TOKEN\", \"ghcr.io/github/github-mcp-server\"]",
         "env = { \"GITHUB_PERSONAL_ACCESS_TOKEN\" = \"%s\" }" % M(github_pat())],
        ["[mcp_servers.sentry]", "command = \"npx\"", "args = [\"-y\", \"@sentry/mcp-server@latest\"]", "env = { SENTRY_ACCESS_TOKEN = \"%s\" }" % M(sentry_user_token())],
        ["[mcp_servers.brave-search]", "command = \"npx\"", "args = [\"-y\", \"@modelcontextprotocol/server-brave-search\"]", "env = { BRAVE_API_KEY = \"%s\" }" % M(brave_key())],
        ["[mcp_servers.postgres]", "command = \"npx\"", "args = [\"-y\", \"@modelcontextprotocol/server-postgres\", \"%s\"]" % db_url(c, scheme="postgresql")],
        ["[mcp_servers.linear]", "command = \"npx\"", "args = [\"-y\", \"mcp-remote\", \"https://mcp.linear.app/sse\"]"],
        ["[mcp_servers.context7]", "command = \"npx\"", "args = [\"-y\", \"@upstash/context7-mcp\", \"--api-key\", \"%s\"]" % M("ctx7sk-" + uuid4())],
    ])[:ri(2, 3)]
    for s in servers:
        lines += s + [""]
    if not any("«" in l for l in lines):
        lines += ["[mcp_servers.notion]", "command = \"npx\"", "args = [\"-y\", \"@notionhq/notion-mcp-server\"]",
                  "env = { OPENAPI_MCP_HEADERS = \"{\\\"Authorization\\\": \\\"Bearer %s\\\", \\\"Notion-Version\\\": \\\"2022-06-28\\\"}\" }" % M("ntn_" + digits(11) + an(35)), ""]
    return prompt(c, "cat ~/.codex/config.toml") + "\n" + "\n".join(lines[:-1])


def p_aider_conf_yml():
    c = Ctx()
    lines = ["# aider settings (%s)" % c.user, "model: %s" % ch(["sonnet", "gpt-4o", "deepseek/deepseek-chat", "gemini/gemini-2.5-pro"])]
    keys = shuffled([("anthropic-api-key", anthropic_key()), ("openai-api-key", openai_key())])[:ri(1, 2)]
    for k, v in keys:
        lines.append("%s: %s" % (k, M(v)))
    more = shuffled([("gemini", gemini_key()), ("groq", groq_key()), ("deepseek", deepseek_key()), ("openrouter", openrouter_key()), ("xai", xai_key())])[:ri(1, 3)]
    lines.append("api-key:")
    for k, v in more:
        lines.append("  - %s=%s" % (k, M(v)))
    lines += ["auto-commits: %s" % ch(["false", "true"]), "dark-mode: true", "show-diffs: false"]
    if R.random() < 0.5:
        lines.append("set-env:\n  - OPENAI_API_BASE=https://llm-proxy.%s/v1" % c.dom)
    path = ch(["~/.aider.conf.yml", ".aider.conf.yml"])
    if R.random() < 0.5:
        return prompt(c, "cat -n " + path) + "\n" + cat_n("\n".join(lines).split("\n"))
    return prompt(c, "cat " + path) + "\n" + "\n".join(lines)


def p_python_source_llm_keys():
    c = Ctx()
    provs = shuffled([
        ("from mistralai import Mistral", "mistral = Mistral(api_key=\"%s\")" % M(mistral_key())),
        ("import cohere", "co = cohere.ClientV2(api_key=\"%s\")" % M(cohere_key())),
        ("from together import Together", "together = Together(api_key=\"%s\")" % M(together_key())),
        ("from groq import Groq", "groq = Groq(api_key=\"%s\")" % M(groq_key())),
        ("import replicate", "rep = replicate.Client(api_token=\"%s\")" % M(replicate_token())),
        ("from openai import OpenAI", "xai = OpenAI(base_url=\"https://api.x.ai/v1\", api_key=\"%s\")" % M(xai_key())),
        ("from openai import OpenAI", "pplx = OpenAI(base_url=\"https://api.perplexity.ai\", api_key=\"%s\")" % M(perplexity_key())),
    ])[:ri(2, 4)]
    imports = []
    for i, _ in provs:
        if i not in imports:
            imports.append(i)
    lines = ["\"\"\"Quick latency/quality bench across providers. Not for prod.\"\"\"", "import time", "import json"] + imports + [""]
    lines += [p for _, p in provs] + ["", "PROMPT = \"Summarize the following support ticket in one sentence:\"", "", "",
                                       "def timed(fn, *a, **kw):", "    t0 = time.perf_counter()", "    out = fn(*a, **kw)",
                                       "    return out, time.perf_counter() - t0"]
    path = "scripts/bench_models.py"
    return viewer(c, path, lines)


def p_langfuse_langsmith_grep():
    c = Ctx()
    pk, sk = langfuse_pair()
    ls = langsmith_key()
    out = [prompt(c, "grep -rn 'LANGFUSE\\|LANGCHAIN\\|LANGSMITH' --include='.env*' .")]
    f = ch(["./.env", "./apps/agent/.env", "./.env.local"])
    ln = ri(5, 30)
    rows = [(f, "LANGFUSE_PUBLIC_KEY=%s" % pk), (f, "LANGFUSE_SECRET_KEY=%s" % M(sk)),
            (f, "LANGFUSE_HOST=%s" % ch(["https://cloud.langfuse.com", "https://us.cloud.langfuse.com", "https://langfuse.%s" % c.dom]))]
    if R.random() < 0.7:
        rows += [(f, "LANGSMITH_TRACING=true"), (f, "LANGSMITH_API_KEY=%s" % M(ls)), (f, "LANGSMITH_PROJECT=%s-%s" % (c.proj, c.env))]
    for i, (p, t) in enumerate(rows):
        out.append("%s:%d:%s" % (p, ln + i + (1 if i >= 3 else 0), t))
    ex = "./%s.env.example" % ("apps/agent/" if "apps" in f else "")
    out += ["%s:3:LANGFUSE_PUBLIC_KEY=pk-lf-..." % ex, "%s:4:LANGFUSE_SECRET_KEY=" % ex]
    return "\n".join(out)


def p_otel_collector_exporters():
    c = Ctx()
    lines = ["receivers:", "  otlp:", "    protocols:", "      grpc:", "        endpoint: 0.0.0.0:4317", "      http:", "        endpoint: 0.0.0.0:4318", "",
             "processors:", "  batch:", "    timeout: 5s", "  memory_limiter:", "    check_interval: 1s", "    limit_mib: 512", "", "exporters:"]
    ex = shuffled([
        ("otlp/honeycomb", ["  otlp/honeycomb:", "    endpoint: api.honeycomb.io:443", "    headers:", "      x-honeycomb-team: %s" % M(honeycomb_key())]),
        ("otlphttp/newrelic", ["  otlphttp/newrelic:", "    endpoint: https://otlp.%snr-data.net" % ch(["", "eu01."]), "    headers:", "      api-key: %s" % M(newrelic_license())]),
        ("datadog", ["  datadog:", "    api:", "      site: %s" % ch(["datadoghq.com", "datadoghq.eu", "us5.datadoghq.com"]), "      key: %s" % M(datadog_api())]),
        ("otlphttp/grafana", ["  otlphttp/grafana:", "    endpoint: https://otlp-gateway-prod-%s.grafana.net/otlp" % ch(["eu-west-2", "us-east-0"]),
                              "    headers:", "      Authorization: Basic %s" % M(b64s("%s:glc_%s" % (digits(6), b64(ri(90, 120)).rstrip("="))))]),
        ("otlp/lightstep", ["  otlp/lightstep:", "    endpoint: ingest.lightstep.com:443", "    headers:", "      lightstep-access-token: %s" % M(rs(AN + "/+", 84))]),
    ])[:ri(2, 3)]
    names = []
    for n, l in ex:
        lines += l
        names.append(n)
    lines += ["", "service:", "  pipelines:", "    traces:", "      receivers: [otlp]", "      processors: [memory_limiter, batch]",
              "      exporters: [%s]" % ", ".join(names)]
    path = ch(["otel-collector-config.yaml", "deploy/otel/config.yaml", "collector.yaml"])
    return viewer(c, path, lines)


def p_rg_webhook_urls():
    c = Ctx()
    out = [prompt(c, "rg -n 'hooks\\.slack\\.com|discord(app)?\\.com/api/webhooks'")]
    hits = []
    t, b, s = slack_webhook_parts()
    hits.append(("infra/alertmanager/values.yaml", ri(20, 90), "        api_url: https://hooks.slack.com/services/%s/%s/%s" % (t, b, M(s))))
    if R.random() < 0.7:
        i, tk = discord_webhook_parts()
        hits.append(("scripts/notify_release.sh", ri(3, 12), "WEBHOOK=\"https://%s.com/api/webhooks/%s/%s\"" % (ch(["discord", "discordapp"]), i, M(tk))))
    if R.random() < 0.7:
        t2, b2, s2 = slack_webhook_parts()
        hits.append((".github/workflows/%s.yml" % ch(["deploy", "nightly", "release"]), ri(30, 120),
                     "          SLACK_WEBHOOK: https://hooks.slack.com/services/%s/%s/%s" % (t2, b2, M(s2))))
    hits.append(("docs/runbooks/alerts.md", ri(10, 60), "Post to `https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX` (example only)."))
    if R.random() < 0.5:
        hits.append(("src/notify/slack.ts", ri(5, 30), "const url = process.env.SLACK_WEBHOOK_URL; // e.g. https://hooks.slack.com/services/…"))
    for p, n, t_ in sorted(hits):
        out.append("%s:%d:%s" % (p, n, t_))
    return "\n".join(out)


def fish_esc(s):
    out = []
    for ch_ in s:
        if ch_ in "-=:@?&%+ ":
            out.append("\\x%02x" % ord(ch_))
        else:
            out.append(ch_)
    return "".join(out)


def p_fish_variables():
    c = Ctx()
    lines = ["# This file contains fish universal variable definitions.", "# VERSION: 3.0", "SETUVAR __fish_initialized:3400"]
    vars_ = [("fish_color_autosuggestion", "555\\x1ebrblack"), ("fish_color_cancel", "\\x2dr"),
             ("fish_color_search_match", "\\x2d\\x2dbackground\\x3dbrblack"),
             ("fish_greeting", ""), ("fish_user_paths", "%s/\\x2ecargo/bin\\x1e/opt/homebrew/bin" % c.home)]
    secrets = shuffled([("OPENAI_API_KEY", openai_key()), ("ANTHROPIC_API_KEY", anthropic_key()), ("GROQ_API_KEY", groq_key()),
                        ("HOMEBREW_GITHUB_API_TOKEN", gh_token("ghp_")), ("HF_TOKEN", hf_token()), ("GITLAB_TOKEN", glpat())])[:ri(2, 3)]
    ex = []
    for k, v in secrets:
        ex.append(("--export " + k, M(fish_esc(v))))
    allv = sorted(vars_ + ex, key=lambda kv: kv[0].replace("--export ", ""))
    for k, v in allv:
        lines.append("SETUVAR %s:%s" % (k, v))
    return prompt(c, "cat ~/.config/fish/fish_variables") + "\n" + "\n".join(lines)


def p_plutil_launchagent():
    c = Ctx()
    label = "com.%s.%s" % (c.org.replace("-", ""), ch(["sync-agent", "backup", "tunnel", "metrics-push", "llm-proxy"]))
    env = shuffled([("SYNC_API_TOKEN", M(an(40))), ("AWS_ACCESS_KEY_ID", aws_key_id()), ("AWS_SECRET_ACCESS_KEY", M(aws_secret())),
                    ("OPENAI_API_KEY", M(openai_key())), ("LOG_LEVEL", "info"), ("B2_APPLICATION_KEY", M("K005" + rs(AN + "/+", 27))),
                    ("RESTIC_PASSWORD", M(password())), ("CLOUDFLARE_API_TOKEN", M(rs(URLS, 40)))])[:ri(3, 5)]
    if not any("«" in v for _, v in env):
        env.append(("API_TOKEN", M(an(32))))
    env = sorted(env)
    prog = "/usr/local/bin/%s" % label.split(".")[-1]
    out = [prompt(c, "plutil -p ~/Library/LaunchAgents/%s.plist" % label), "{", "  \"EnvironmentVariables\" => {"]
    out += ["    \"%s\" => \"%s\"" % kv for kv in env]
    out += ["  }", "  \"KeepAlive\" => true", "  \"Label\" => \"%s\"" % label, "  \"ProgramArguments\" => [",
            "    0 => \"%s\"" % prog, "    1 => \"--interval\"", "    2 => \"%d\"" % ch([60, 300, 900]), "  ]", "  \"RunAtLoad\" => true",
            "  \"StandardErrorPath\" => \"/tmp/%s.err\"" % label, "}"]
    return "\n".join(out)


def ppk_mpint(b):
    if b[0] & 0x80:
        b = b"\x00" + b
    return ssh_string(b)


def p_puttygen_ppk():
    c = Ctx()
    kind = ch(["ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256"])
    comment = ch(["%s@%s" % (c.user, c.host), "%s-key-%s" % ({"ssh-ed25519": "eddsa", "ssh-rsa": "rsa", "ecdsa-sha2-nistp256": "ecdsa"}[kind], rdt().strftime("%Y%m%d")),
                  "deploy-%s" % c.proj])
    if kind == "ssh-ed25519":
        pub = ssh_string(b"ssh-ed25519") + ssh_string(rbytes(32))
        priv = ssh_string(rbytes(32))
    elif kind == "ssh-rsa":
        pub = ssh_string(b"ssh-rsa") + ssh_string(b"\x01\x00\x01") + ppk_mpint(big(256))
        priv = ppk_mpint(big(256)) + ppk_mpint(big(128)) + ppk_mpint(big(128)) + ppk_mpint(big(128))
    else:
        pub = ssh_string(b"ecdsa-sha2-nistp256") + ssh_string(b"nistp256") + ssh_string(b"\x04" + rbytes(64))
        priv = ppk_mpint(big(32))
    publ = wrap(base64.b64encode(pub).decode())
    privl = wrap(base64.b64encode(priv).decode())
    lines = ["PuTTY-User-Key-File-3: " + kind, "Encryption: none", "Comment: " + comment, "Public-Lines: %d" % len(publ)] + publ
    lines += ["Private-Lines: %d" % len(privl), M("\n".join(privl)), "Private-MAC: " + hx(64)]
    path = ch(["~/keys/%s.ppk" % c.proj, "deploy/%s.ppk" % ch(["bastion", "sftp", "jump"]), "C:\\Users\\%s\\.ssh\\%s.ppk" % (c.user, c.proj)])
    if path.startswith("C:"):
        return "PS C:\\Users\\%s\\src\\%s> Get-Content %s\n" % (c.user, c.proj, path) + "\n".join(lines)
    return prompt(c, "cat " + path) + "\n" + "\n".join(lines)


def p_git_show_added_key():
    c = Ctx()
    dt = rdt()
    k = ri(0, 2)
    if k == 0:
        label, d = "EC PRIVATE KEY", ec_sec1()
    elif k == 1:
        label, d = "RSA PRIVATE KEY", rsa_pkcs1(2048)
    else:
        label, d = "PRIVATE KEY", pkcs8_ec()
    body = pem_body(d)
    path = ch(["certs/server.key", "docker/nginx/ssl/%s.key" % c.proj, "config/jwt/private.pem", "deploy/tls/tls.key"])
    cert = pem_body(fake_cert(c.dom))
    out = [prompt(c, "git show HEAD~%d -- %s" % (ri(1, 6), path.rsplit("/", 1)[0])),
           "commit " + sha40(), "Author: %s <%s>" % (c.name, c.email), "Date:   " + git_date(dt), "",
           "    %s" % ch(["add local TLS certs for docker-compose", "jwt signing keys", "wip: https for dev", "nginx ssl"]), ""]
    if path.endswith(".key") and R.random() < 0.7:
        cp = path.rsplit(".", 1)[0] + ".crt"
        out += ["diff --git a/%s b/%s" % (cp, cp), "new file mode 100644", "index 0000000..%s" % hx(7), "--- /dev/null", "+++ b/" + cp,
                "@@ -0,0 +1,%d @@" % (len(cert) + 2), "+-----BEGIN CERTIFICATE-----"] + ["+" + l for l in cert] + ["+-----END CERTIFICATE-----"]
    out += ["diff --git a/%s b/%s" % (path, path), "new file mode 100644", "index 0000000..%s" % hx(7), "--- /dev/null", "+++ b/" + path,
            "@@ -0,0 +1,%d @@" % (len(body) + 2), "+-----BEGIN %s-----" % label] + ["+" + M(l) for l in body] + ["+-----END %s-----" % label]
    return "\n".join(out)


def p_gcp_sa_decoded_secret():
    c = Ctx()
    proj = "%s-%s-%s" % (c.org.replace("-", "")[:10], c.env[:4], digits(6))
    sa = ch(["gcs-writer", "bq-loader", "%s-runtime" % c.proj[:16], "ci-deployer", "firebase-adminsdk-%s" % rs(LOD, 5)])
    email = "%s@%s.iam.gserviceaccount.com" % (sa, proj)
    key = pem("PRIVATE KEY", pkcs8_rsa(2048))
    d = {"type": "service_account", "project_id": proj, "private_key_id": hx(40), "private_key": M(key) + "\n",
         "client_email": email, "client_id": digits(21), "auth_uri": "https://accounts.google.com/o/oauth2/auth",
         "token_uri": "https://oauth2.googleapis.com/token", "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
         "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/" + email.replace("@", "%40"),
         "universe_domain": "googleapis.com"}
    body = json.dumps(d, indent=2, ensure_ascii=False)
    k = ri(0, 2)
    if k == 0:
        cmd = "kubectl get secret %s -n %s -o jsonpath='{.data.key\\.json}' | base64 -d" % (sa, ch(["data", c.env, "default"]))
    elif k == 1:
        cmd = "gcloud secrets versions access latest --secret=%s-key --project=%s" % (sa, proj)
    else:
        cmd = "vault kv get -field=credentials secret/gcp/%s" % sa
    return prompt(c, cmd) + "\n" + body


def p_azure_functions_local_settings():
    c = Ctx()
    acct = (c.org.replace("-", "") + rs(LOD, 6))[:24]
    vals = {"AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName=%s;AccountKey=%s;EndpointSuffix=core.windows.net" % (acct, M(azure_storage_key())),
            "FUNCTIONS_WORKER_RUNTIME": ch(["dotnet-isolated", "node", "python"])}
    extra = shuffled([
        ("ServiceBusConnection", "Endpoint=sb://%s-%s.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=%s" % (c.proj, c.env, M(azure_sas_key()))),
        ("CosmosDbConnection", "AccountEndpoint=https://%s-%s.documents.azure.com:443/;AccountKey=%s;" % (c.proj, c.env, M(azure_storage_key()))),
        ("EventHubConnection", "Endpoint=sb://%s-eh.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=%s;EntityPath=%s" % (c.org, M(azure_sas_key()), ch(["events", "telemetry"]))),
        ("APPLICATIONINSIGHTS_CONNECTION_STRING", "InstrumentationKey=%s;IngestionEndpoint=https://%s-0.in.applicationinsights.azure.com/;LiveEndpoint=https://%s.livediagnostics.monitor.azure.com/" % (uuid4(), ch(["westeurope", "eastus"]), ch(["westeurope", "eastus"]))),
        ("SqlConnectionString", "Server=tcp:%s.database.windows.net,1433;Initial Catalog=%s;User ID=%s;Password=%s;Encrypt=True;" % (c.proj, c.proj.replace("-", "_"), c.proj.split("-")[0], M(password()))),
        ("OpenAI__ApiKey", M(hx(32))),
    ])[:ri(2, 4)]
    for k, v in extra:
        vals[k] = v
    d = {"IsEncrypted": False, "Values": vals, "Host": {"CORS": "*", "LocalHttpPort": 7071}}
    lines = json.dumps(d, indent=2, ensure_ascii=False).split("\n")
    if R.random() < 0.5:
        return claude_read(lines)
    return prompt(c, "cat local.settings.json") + "\n" + "\n".join(lines)


def p_first_run_password_banners():
    c = Ctx()
    k = ri(0, 2)
    if k == 0:
        pw = rs(AN + "*+=_-", 20)
        def tok():
            return b64s(json.dumps({"ver": "8.%d.%d" % (ri(11, 17), ri(0, 3)), "adr": ["172.18.0.%d:9200" % ri(2, 9)], "fgr": hx(64),
                                    "key": "%s:%s" % (rs(AN + "-_", 20), rs(AN + "-_", 22))}, separators=(",", ":")))
        bar = "━" * 80
        out = [prompt(c, "docker logs es01 2>&1 | sed -n '/security features/,/━━━━━━━━━━/p'"),
               bar, "✅ Elasticsearch security features have been automatically configured!",
               "✅ Authentication is enabled and cluster connections are encrypted.", "",
               "ℹ️  Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):", "  " + M(pw), "",
               "ℹ️  HTTP CA certificate SHA-256 fingerprint:", "  " + hx(64), "",
               "ℹ️  Configure Kibana to use this cluster:", "• Run Kibana and click the configuration link in the terminal when Kibana starts.",
               "• Copy the following enrollment token and paste it into Kibana in your browser (valid for the next 30 minutes):", "  " + M(tok()), "",
               "ℹ️  Configure other nodes to join this cluster:",
               "• Copy the following enrollment token and start new Elasticsearch nodes with `bin/elasticsearch --enrollment-token <token>` (valid for the next 30 minutes):",
               "  " + M(tok()), bar]
        return "\n".join(out)
    if k == 1:
        pw = hx(32)
        dt = rdt()
        out = [prompt(c, "docker logs jenkins 2>&1 | tail -n 14"),
               "%s.%03d+0000 [id=%d]\tINFO\tjenkins.install.SetupWizard#init: " % (dt.strftime("%Y-%m-%d %H:%M:%S"), ri(0, 999), ri(20, 60)), "",
               "*" * 61, "*" * 61, "*" * 61, "",
               "Jenkins initial setup is required. An admin user has been created and a password generated.",
               "Please use the following password to proceed to installation:", "", M(pw), "",
               "This may also be found at: /var/jenkins_home/secrets/initialAdminPassword", "", "*" * 61, "*" * 61, "*" * 61]
        if R.random() < 0.5:
            out += [prompt(c, "docker exec jenkins cat /var/jenkins_home/secrets/initialAdminPassword"), M(pw)]
        return "\n".join(out)
    pw = an(16)
    dt = rdt()
    out = [prompt(c, "airflow standalone 2>&1 | grep -E 'standalone \\|'")]
    for msg in ["Starting Airflow Standalone", "Checking database is initialized", "Database ready", "Creating admin user",
                "Airflow is ready", "Login with username: admin  password: %s" % M(pw),
                "Airflow Standalone is for development purposes only. Do not use this in production!"]:
        out.append("standalone | %s" % msg)
    if R.random() < 0.5:
        out += [prompt(c, "cat ~/airflow/simple_auth_manager_passwords.json.generated"), "{\"admin\": \"%s\"}" % M(pw)]
    return "\n".join(out)


def p_stripe_cli_config_toml():
    c = Ctx()
    exp = rdt(1720000000, 1760000000).strftime("%Y-%m-%d")
    lines = ["color = \"\"", "", "[default]", "  account_id = \"acct_1%s\"" % an(15), "  device_name = \"%s\"" % c.host,
             "  display_name = \"%s\"" % c.org.replace("-", " ").title(),
             "  live_mode_api_key = \"%s\"" % M(stripe_key("rk", "live")), "  live_mode_key_expires_at = \"%s\"" % exp,
             "  live_mode_publishable_key = \"%s\"" % stripe_key("pk", "live"),
             "  test_mode_api_key = \"%s\"" % M(stripe_key("rk", "test")), "  test_mode_key_expires_at = \"%s\"" % exp,
             "  test_mode_publishable_key = \"%s\"" % stripe_key("pk", "test")]
    if R.random() < 0.5:
        lines = [l for l in lines if "live_mode" not in l]
    return prompt(c, "cat ~/.config/stripe/config.toml") + "\n" + "\n".join(lines)


def p_postman_environment_json():
    c = Ctx()
    envname = ch(["Staging", "Production", "Local", "%s %s" % (c.proj, c.env)])
    vals = [{"key": "baseUrl", "value": "https://api.%s%s" % ("" if c.env.startswith("prod") else c.env + ".", c.dom), "type": "default", "enabled": True}]
    pool = shuffled([("apiKey", M(ch([an(32), hx(40), "live_" + an(32)]))), ("clientSecret", M(rs(URLS, 48))),
                     ("adminPassword", M(password())), ("webhookSecret", M(whsec())), ("bearerToken", M(user_jwt(c)))])[:ri(2, 3)]
    for k, v in pool:
        vals.append({"key": k, "value": v, "type": "secret", "enabled": True})
    vals.append({"key": "clientId", "value": an(24), "type": "default", "enabled": True})
    vals.append({"key": "accessToken", "value": "", "type": "any", "enabled": True})
    d = {"id": uuid4(), "name": envname, "values": vals, "_postman_variable_scope": "environment",
         "_postman_exported_at": iso_ms(rdt()), "_postman_exported_using": "Postman/11.%d.%d" % (ri(0, 20), ri(0, 9))}
    body = json.dumps(d, indent="\t", ensure_ascii=False)
    path = "postman/%s.postman_environment.json" % envname.replace(" ", "_")
    return prompt(c, "cat '%s'" % path) + "\n" + body


def p_jupyter_server_list():
    c = Ctx()
    if R.random() < 0.5:
        out = [prompt(c, "jupyter server list"), "Currently running servers:"]
        for _ in range(ri(1, 3)):
            out.append("http://%s:%d/?token=%s :: %s" % (ch(["localhost", "127.0.0.1"]), ri(8888, 8895), M(hx(48)),
                                                         ch([c.home + "/notebooks", c.cwd.replace("~", c.home), c.home])))
        return "\n".join(out)
    t = hx(48)
    dt = rdt()
    port = ri(8888, 8890)
    def L(msg):
        return "[I %s.%03d ServerApp] %s" % (dt.strftime("%Y-%m-%d %H:%M:%S"), ri(0, 999), msg)
    out = [prompt(c, "jupyter lab --no-browser --port %d" % port),
           L("jupyter_lsp | extension was successfully loaded."), L("jupyterlab | extension was successfully loaded."),
           L("Serving notebooks from local directory: %s" % c.cwd.replace("~", c.home)),
           L("Jupyter Server 2.%d.%d is running at:" % (ri(10, 15), ri(0, 5))),
           L("http://localhost:%d/lab?token=%s" % (port, M(t))),
           L("    http://127.0.0.1:%d/lab?token=%s" % (port, M(t))),
           L("Use Control-C to stop this server and shut down all kernels (twice to skip confirmation)."),
           "[C %s.%03d ServerApp] " % (dt.strftime("%Y-%m-%d %H:%M:%S"), ri(0, 999)), "",
           "    To access the server, open this file in a browser:",
           "        file://%s/.local/share/jupyter/runtime/jpserver-%d-open.html" % (c.home, ri(1000, 99999)),
           "    Or copy and paste one of these URLs:",
           "        http://localhost:%d/lab?token=%s" % (port, M(t)),
           "        http://127.0.0.1:%d/lab?token=%s" % (port, M(t))]
    return "\n".join(out)


# ================================================================ NEGATIVES

NPM_PKGS = [("undici", "6.19.%d"), ("react-dom", "18.3.%d"), ("zod", "3.23.%d"), ("esbuild", "0.21.%d"), ("@types/node", "20.14.%d"),
            ("typescript", "5.5.%d"), ("semver", "7.6.%d"), ("postcss", "8.4.%d"), ("vite", "5.3.%d"), ("axios", "1.7.%d"),
            ("@babel/core", "7.24.%d"), ("picocolors", "1.0.%d"), ("tslib", "2.6.%d"), ("ws", "8.17.%d")]
PY_PKGS = ["httpx", "anyio", "certifi", "idna", "pydantic", "pydantic-core", "sniffio", "h11", "httpcore", "typing-extensions",
           "sqlalchemy", "alembic", "greenlet", "uvicorn", "click", "rich", "orjson", "numpy"]
CRATES = ["serde", "serde_json", "tokio", "anyhow", "thiserror", "regex", "once_cell", "bytes", "hyper", "tracing",
          "clap", "itoa", "memchr", "libc", "syn", "quote", "proc-macro2", "unicode-ident"]
GEMS = ["actioncable", "actionmailer", "activerecord", "bootsnap", "concurrent-ruby", "nokogiri", "puma", "rack", "rails",
        "sidekiq", "zeitwerk", "pg", "redis-client", "bcrypt", "msgpack", "i18n"]


PKG_VERSIONS = {
    "httpx": "0.27.%d", "anyio": "4.4.%d", "certifi": "2024.7.%d", "idna": "3.%d", "pydantic": "2.8.%d", "pydantic-core": "2.20.%d",
    "sniffio": "1.3.%d", "h11": "0.14.%d", "httpcore": "1.0.%d", "typing-extensions": "4.12.%d", "sqlalchemy": "2.0.%d",
    "alembic": "1.13.%d", "greenlet": "3.0.%d", "uvicorn": "0.30.%d", "click": "8.1.%d", "rich": "13.7.%d", "orjson": "3.10.%d",
    "numpy": "2.0.%d", "serde": "1.0.%d", "serde_json": "1.0.%d", "tokio": "1.38.%d", "anyhow": "1.0.%d", "thiserror": "1.0.%d",
    "regex": "1.10.%d", "once_cell": "1.19.%d", "bytes": "1.6.%d", "hyper": "1.4.%d", "tracing": "0.1.%d", "clap": "4.5.%d",
    "itoa": "1.0.%d", "memchr": "2.7.%d", "libc": "0.2.%d", "syn": "2.0.%d", "quote": "1.0.%d", "proc-macro2": "1.0.%d",
    "unicode-ident": "1.0.%d", "actioncable": "7.1.%d", "actionmailer": "7.1.%d", "activerecord": "7.1.%d", "bootsnap": "1.18.%d",
    "concurrent-ruby": "1.3.%d", "nokogiri": "1.16.%d", "puma": "6.4.%d", "rack": "3.1.%d", "rails": "7.1.%d", "sidekiq": "7.3.%d",
    "zeitwerk": "2.6.%d", "pg": "1.5.%d", "redis-client": "0.22.%d", "bcrypt": "3.1.%d", "msgpack": "1.7.%d", "i18n": "1.14.%d",
}


def ver(name=None):
    if name in PKG_VERSIONS:
        return PKG_VERSIONS[name] % ri(0, 12)
    return "%d.%d.%d" % (ri(0, 3), ri(0, 30), ri(0, 20))


def sri512():
    return "sha512-" + b64(64)


def n_git_bisect_log():
    c = Ctx()
    msgs = ["fix flaky retry test", "bump %s to %s" % (ch(CRATES), ver()), "refactor: split handlers", "feat: add bulk export",
            "chore(deps): update lockfile", "perf: cache tenant lookups", "revert \"switch to pgbouncer\"", "docs: update README"]
    out = [prompt(c, "git bisect log"), "git bisect start"]
    out.append("# status: waiting for both good and bad commits")
    shas = [sha40() for _ in range(ri(4, 6))]
    good = shas[0]
    out += ["# good: [%s] %s" % (good, ch(msgs)), "git bisect good %s" % good]
    out += ["# status: waiting for bad commit, 1 good commit known", "# bad: [%s] %s" % (shas[1], ch(msgs)), "git bisect bad %s" % shas[1]]
    for s in shas[2:-1]:
        v = ch(["good", "bad", "skip"])
        out += ["# %s: [%s] %s" % (v, s, ch(msgs)), "git bisect %s %s" % (v, s)]
    out.append("# first bad commit: [%s] %s" % (shas[-1], ch(msgs)))
    return "\n".join(out)


def n_package_lock_integrity_diff():
    c = Ctx()
    out = [prompt(c, "git diff package-lock.json | head -n 40"), "diff --git a/package-lock.json b/package-lock.json",
           "index %s..%s 100644" % (hx(10), hx(10)), "--- a/package-lock.json", "+++ b/package-lock.json"]
    for name, vf in shuffled(NPM_PKGS)[:ri(2, 3)]:
        a = ri(0, 5)
        v1, v2 = vf % a, vf % (a + ri(1, 3))
        base = name.split("/")[-1]
        ln = ri(100, 9000)
        lines = ["     \"node_modules/%s\": {" % name,
                 "-      \"version\": \"%s\"," % v1, "-      \"resolved\": \"https://registry.npmjs.org/%s/-/%s-%s.tgz\"," % (name, base, v1),
                 "-      \"integrity\": \"%s\"," % sri512(),
                 "+      \"version\": \"%s\"," % v2, "+      \"resolved\": \"https://registry.npmjs.org/%s/-/%s-%s.tgz\"," % (name, base, v2),
                 "+      \"integrity\": \"%s\"," % sri512(), "       \"license\": \"MIT\","]
        out += hunk(ln, ln, lines)
    return "\n".join(out)


def n_yarn_berry_lock_checksums():
    c = Ctx()
    out = [prompt(c, "sed -n '%d,%dp' yarn.lock" % (ri(100, 900), ri(901, 1200)))]
    for name, vf in shuffled(NPM_PKGS)[:ri(3, 4)]:
        v = vf % ri(0, 9)
        out += ["\"%s@npm:^%s\":" % (name, v), "  version: %s" % v, "  resolution: \"%s@npm:%s\"" % (name, v)]
        if R.random() < 0.6:
            dep = ch(NPM_PKGS)
            out += ["  dependencies:", "    %s: \"npm:^%s\"" % (dep[0] if "/" not in dep[0] else "\"%s\"" % dep[0], dep[1] % 0)]
        out += ["  checksum: 10c0/%s" % hx(128), "  languageName: node", "  linkType: hard", ""]
    return "\n".join(out[:-1])


def n_cargo_lock_checksums():
    c = Ctx()
    picked = shuffled(CRATES)[:ri(3, 5)]
    out = [prompt(c, "grep -B1 -A3 -E 'name = \"(%s)\"' Cargo.lock" % "|".join(picked))]
    for cr in picked:
        out += ["[[package]]", "name = \"%s\"" % cr, "version = \"%s\"" % ver(cr),
                "source = \"registry+https://github.com/rust-lang/crates.io-index\"", "checksum = \"%s\"" % hx(64), "--"]
    return "\n".join(out[:-1])


def n_uv_lock_hashes():
    c = Ctx()
    out = [prompt(c, "sed -n '%d,%dp' uv.lock" % (ri(40, 400), ri(401, 800)))]
    for p in shuffled(PY_PKGS)[:ri(2, 3)]:
        v = ver(p)
        fn = p.replace("-", "_")
        dt = rdt()
        out += ["[[package]]", "name = \"%s\"" % p, "version = \"%s\"" % v, "source = { registry = \"https://pypi.org/simple\" }",
                "sdist = { url = \"https://files.pythonhosted.org/packages/%s/%s/%s/%s-%s.tar.gz\", hash = \"sha256:%s\", size = %d, upload-time = \"%s\" }" % (
                    hx(2), hx(2), hx(60), fn, v, hx(64), ri(20000, 900000), iso_ms(dt)),
                "wheels = ["]
        for tag in shuffled(["py3-none-any", "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64", "cp312-cp312-macosx_11_0_arm64"])[:ri(1, 2)]:
            out.append("    { url = \"https://files.pythonhosted.org/packages/%s/%s/%s/%s-%s-%s.whl\", hash = \"sha256:%s\", size = %d, upload-time = \"%s\" }," % (
                hx(2), hx(2), hx(60), fn, v, tag, hx(64), ri(20000, 900000), iso_ms(dt)))
        out += ["]", ""]
    return "\n".join(out[:-1])


def n_pip_compile_hashes():
    c = Ctx()
    out = [prompt(c, "head -n 24 requirements.lock"), "#", "# This file is autogenerated by pip-compile with Python 3.%d" % ri(10, 13),
           "# by the following command:", "#", "#    pip-compile --generate-hashes --output-file=requirements.lock requirements.in", "#"]
    for p in sorted(shuffled(PY_PKGS)[:ri(2, 4)]):
        out.append("%s==%s \\" % (p, ver(p)))
        n = ri(1, 3)
        for i in range(n):
            out.append("    --hash=sha256:%s%s" % (hx(64), " \\" if i < n - 1 else ""))
        out.append("    # via %s" % ch(["-r requirements.in", "httpx", "pydantic", "uvicorn", "sqlalchemy"]))
    return "\n".join(out)


def n_gemfile_lock_checksums():
    c = Ctx()
    out = [prompt(c, "sed -n '/^CHECKSUMS/,/^$/p' Gemfile.lock"), "CHECKSUMS"]
    for g in sorted(shuffled(GEMS)[:ri(4, 7)]):
        plat = ch(["", "", "-x86_64-linux", "-arm64-darwin"]) if g in ("nokogiri", "msgpack", "bcrypt", "pg") else ""
        out.append("  %s (%s%s) sha256=%s" % (g, ver(g), plat, hx(64)))
    out.append("")
    out.append("BUNDLED WITH")
    out.append("   2.5.%d" % ri(3, 22))
    return "\n".join(out)


def ecdsa_sig_b64():
    r = rbytes(32)
    s = rbytes(32)
    body = der_int(r) + der_int(s)
    return base64.b64encode(der(0x30, body)).decode()


def n_npm_view_dist_signatures():
    c = Ctx()
    name, vf = ch(NPM_PKGS)
    v = vf % ri(0, 9)
    out = [prompt(c, "npm view %s@%s dist" % (name, v)), "{", "  integrity: '%s'," % sri512(), "  shasum: '%s'," % hx(40),
           "  tarball: 'https://registry.npmjs.org/%s/-/%s-%s.tgz'," % (name, name.split("/")[-1], v),
           "  fileCount: %d," % ri(5, 900), "  unpackedSize: %d," % ri(10000, 9000000)]
    if R.random() < 0.6:
        out += ["  attestations: {", "    url: 'https://registry.npmjs.org/-/npm/v1/attestations/%s@%s'," % (name, v),
                "    provenance: { predicateType: 'https://slsa.dev/provenance/v1' }", "  },"]
    out += ["  signatures: [", "    {", "      keyid: 'SHA256:%s'," % ch(["jl3bwswu80PjjokCgh0o2w5c2U4LhQAE57gj9cz1kzA", "DhQ8wR5APBvFHLF/+Tc+AYvPOdTpcIDqOhxsBHRwC7U"]),
            "      sig: '%s'" % ecdsa_sig_b64(), "    }", "  ]", "}"]
    return "\n".join(out)


def n_docker_images_digests():
    c = Ctx()
    rows = []
    for _ in range(ri(4, 7)):
        repo = ch(["ghcr.io/%s/%s" % (c.org, c.proj), "postgres", "redis", "node", "python", "%s.dkr.ecr.%s.amazonaws.com/%s" % (digits(12), c.region, c.proj),
                   "grafana/grafana", "minio/minio", "<none>"])
        tag = ch(["latest", "16-alpine", "7.2", "20-alpine", "3.12-slim", hx(7), "<none>", "v%s" % ver()])
        dig = "sha256:" + hx(64) if repo != "<none>" else "<none>"
        size = ch(["%dMB" % ri(10, 999), "%dMB" % ri(40, 900), "%.2fGB" % (ri(100, 290) / 100)])
        rows.append([repo, tag, dig, hx(12), ch(["2 hours ago", "3 days ago", "5 weeks ago", "10 months ago"]), size])
    hdr = ["REPOSITORY", "TAG", "DIGEST", "IMAGE ID", "CREATED", "SIZE"]
    ws = [max(len(h), max(len(r[i]) for r in rows)) for i, h in enumerate(hdr)]
    out = [prompt(c, "docker images --digests"), "   ".join(h.ljust(w) for h, w in zip(hdr, ws)).rstrip()]
    out += ["   ".join(v.ljust(w) for v, w in zip(r, ws)).rstrip() for r in rows]
    return "\n".join(out)


def n_docker_manifest_inspect():
    c = Ctx()
    img = ch(["node:20-alpine", "python:3.12-slim", "postgres:16", "ghcr.io/%s/%s:%s" % (c.org, c.proj, ver()), "nginx:1.27"])
    full = img if "/" in img else "docker.io/library/" + img
    out = [prompt(c, "docker buildx imagetools inspect " + img), "Name:      " + full,
           "MediaType: application/vnd.oci.image.index.v1+json", "Digest:    sha256:" + hx(64), "", "Manifests:"]
    for plat in ["linux/amd64", "linux/arm64", "unknown/unknown"][:ri(2, 3)]:
        d = hx(64)
        out += ["  Name:        %s@sha256:%s" % (full.split(":")[0] if full.count(":") == 1 else full.rsplit(":", 1)[0], d),
                "  MediaType:   application/vnd.oci.image.manifest.v1+json", "  Platform:    " + plat]
        if plat == "unknown/unknown":
            out += ["  Annotations:", "    vnd.docker.reference.digest: sha256:" + hx(64), "    vnd.docker.reference.type:   attestation-manifest"]
        out.append("")
    return "\n".join(out[:-1])


def n_kubectl_get_rs_hashes():
    c = Ctx()
    ns = ch([c.env, "apps", c.proj])
    out = [prompt(c, "kubectl -n %s get rs -o wide" % ns)]
    rows = []
    for _ in range(ri(3, 4)):
        h = rs("bcdfghjkmnpqrstvwxz2456789", 10)
        n = ch([0, 0, ri(1, 4)])
        rows.append(["%s-%s" % (c.proj, h), str(n), str(n), str(n), "%dd" % ri(1, 90), "app",
                     "ghcr.io/%s/%s@sha256:%s" % (c.org, c.proj, hx(64)), "app=%s,pod-template-hash=%s" % (c.proj, h)])
    hdr = ["NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]
    ws = [max(len(h), max(len(r[i]) for r in rows)) for i, h in enumerate(hdr)]
    out.append("   ".join(h.ljust(w) for h, w in zip(hdr, ws)).rstrip())
    out += ["   ".join(v.ljust(w) for v, w in zip(r, ws)).rstrip() for r in rows]
    out += [prompt(c, "kubectl -n %s rollout history deploy/%s" % (ns, c.proj)), "deployment.apps/%s " % c.proj, "REVISION  CHANGE-CAUSE"]
    r0 = ri(1, 9)
    for i in range(len(rows)):
        out.append("%-9d %s" % (r0 + i, ch(["<none>", "image updated to %s" % hx(7), "kubectl set image deploy/%s app=...:%s" % (c.proj, hx(7))])))
    return "\n".join(out)


def n_kubectl_secret_refs_yaml():
    c = Ctx()
    sec = "%s-env" % c.proj
    lines = ["      containers:", "        - name: app", "          image: ghcr.io/%s/%s:%s" % (c.org, c.proj, hx(7)), "          env:",
             "            - name: DATABASE_URL", "              valueFrom:", "                secretKeyRef:", "                  name: %s" % sec, "                  key: database-url",
             "            - name: STRIPE_SECRET_KEY", "              valueFrom:", "                secretKeyRef:", "                  name: stripe", "                  key: secret-key",
             "            - name: OPENAI_API_KEY", "              valueFrom:", "                secretKeyRef:", "                  name: llm-keys", "                  key: openai",
             "                  optional: true",
             "          envFrom:", "            - secretRef:", "                name: %s-extra" % c.proj, "            - configMapRef:", "                name: %s-config" % c.proj]
    es = ["---", "apiVersion: external-secrets.io/v1beta1", "kind: ExternalSecret", "metadata:", "  name: %s" % sec, "spec:", "  refreshInterval: 1h",
          "  secretStoreRef:", "    kind: ClusterSecretStore", "    name: aws-secrets-manager", "  target:", "    name: %s" % sec, "  data:",
          "    - secretKey: database-url", "      remoteRef:", "        key: %s/%s/db" % (c.env, c.proj), "        property: url"]
    path = "deploy/k8s/%s.yaml" % c.proj
    return viewer(c, path, lines + (es if R.random() < 0.7 else []), ri(20, 40))


def n_helm_chart_secret_template():
    c = Ctx()
    t = ["apiVersion: v1", "kind: Secret", "metadata:", "  name: {{ include \"%s.fullname\" . }}" % c.proj, "  labels:",
         "    {{- include \"%s.labels\" . | nindent 4 }}" % c.proj, "type: Opaque", "data:",
         "  {{- if not .Values.postgresql.auth.existingSecret }}",
         "  postgres-password: {{ .Values.postgresql.auth.password | default (randAlphaNum 24) | b64enc | quote }}",
         "  {{- end }}", "  api-key: {{ required \"apiKey is required\" .Values.apiKey | b64enc | quote }}",
         "  redis-url: {{ printf \"redis://:%s@%s-redis:6379\" .Values.redis.password .Release.Name | b64enc | quote }}"]
    v = ["postgresql:", "  auth:", "    username: %s" % c.proj.split("-")[0], "    password: \"\"", "    existingSecret: \"\"", "",
         "apiKey: \"\"  # set with --set apiKey=... or via sealed secret", "", "redis:", "  password: \"\""]
    out = [prompt(c, "cat charts/%s/templates/secret.yaml" % c.proj)] + t + [prompt(c, "grep -n -A5 -E '^(postgresql|apiKey|redis):' charts/%s/values.yaml" % c.proj)] + v
    return "\n".join(out)


def n_op_secret_references():
    c = Ctx()
    vault = ch(["Engineering", "Private", "%s-%s" % (c.proj, c.env), "Shared"])
    items = [("DATABASE_URL", "op://%s/%s-db/connection-string" % (vault, c.proj)), ("STRIPE_SECRET_KEY", "op://%s/Stripe/credential" % vault),
             ("OPENAI_API_KEY", "op://%s/OpenAI API/api key" % vault), ("SENTRY_AUTH_TOKEN", "op://%s/Sentry/token" % vault),
             ("GITHUB_TOKEN", "op://%s/GitHub PAT/token" % vault)]
    items = shuffled(items)[:ri(3, 5)]
    out = [prompt(c, "cat .env.tpl")] + ["%s=%s" % kv for kv in items] + ["LOG_LEVEL=debug"]
    out.append(prompt(c, "op run --env-file=.env.tpl -- printenv | grep -E '%s'" % "|".join(k for k, _ in items[:2])))
    out += ["%s=<concealed by 1Password>" % k for k, _ in items[:2]]
    if R.random() < 0.5:
        out += [prompt(c, "op item get \"%s-db\" --vault %s --fields label=username,label=password" % (c.proj, vault)),
                "%s,[use 'op item get %s --reveal' to reveal]" % (c.proj.split("-")[0], an(26).lower())]
    return "\n".join(out)


def n_argocd_vault_plugin_manifest():
    c = Ctx()
    p = "kv/data/%s/%s" % (c.env, c.proj)
    lines = ["apiVersion: v1", "kind: Secret", "metadata:", "  name: %s-credentials" % c.proj, "  annotations:",
             "    avp.kubernetes.io/path: \"%s\"" % p, "    argocd.argoproj.io/sync-wave: \"-1\"", "type: Opaque", "stringData:",
             "  DB_PASSWORD: <db_password>", "  STRIPE_KEY: <path:%s#stripe_secret_key>" % p,
             "  SLACK_TOKEN: <path:%s#slack_bot_token | base64encode>" % p, "  JWT_SECRET: <path:kv/data/shared/jwt#secret#%d>" % ri(1, 9)]
    out = [prompt(c, "cat deploy/overlays/%s/secret.yaml" % c.env)] + lines
    if R.random() < 0.5:
        out += [prompt(c, "argocd app get %s-%s --show-params | grep -i plugin" % (c.proj, c.env)),
                "Plugin:             argocd-vault-plugin-kustomize", "  AVP_TYPE:         vault", "  AVP_AUTH_TYPE:    k8s", "  AVP_K8S_ROLE:     argocd"]
    return "\n".join(out)


def ansible_vault_blob():
    salt, mac = hx(64), hx(64)
    ct = hx(32 * ri(4, 10))
    raw = (salt + "\n" + mac + "\n" + ct).encode().hex()
    return "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(wrap(raw, 80))


def n_ansible_vault_ciphertext():
    c = Ctx()
    if R.random() < 0.5:
        return prompt(c, "cat group_vars/%s/vault.yml" % c.env) + "\n" + ansible_vault_blob()
    lines = ["db_user: %s" % c.proj.split("-")[0], "db_password: !vault |", "          " + ansible_vault_blob().replace("\n", "\n          "),
             "smtp_host: smtp.%s" % c.dom]
    return prompt(c, "cat host_vars/%s.yml" % ch(["db01", "app01", "web-%02d" % ri(1, 9)])) + "\n" + "\n".join(lines)


def n_gha_log_masked_secrets():
    c = Ctx()
    dt = rdt()
    out = []
    def L(s):
        nonlocal dt
        dt = later(dt, 0, 700)
        out.append(gha_ts(dt) + " " + s)
    L("##[group]Run aws-actions/configure-aws-credentials@v4")
    L("with:")
    L("  aws-access-key-id: ***")
    L("  aws-secret-access-key: ***")
    L("  aws-region: " + c.region)
    L("  audience: sts.amazonaws.com")
    L("##[endgroup]")
    L("##[group]Run docker/login-action@v3")
    L("with:")
    L("  registry: ghcr.io")
    L("  username: %s" % c.user)
    L("  password: ***")
    L("  logout: true")
    L("##[endgroup]")
    L("Logging into ghcr.io...")
    L("Login Succeeded!")
    L("##[group]Run ./scripts/migrate.sh")
    L("env:")
    L("  DATABASE_URL: ***")
    L("  SENTRY_AUTH_TOKEN: ***")
    L("##[endgroup]")
    L("Connecting to postgres://%s:***@%s:5432/%s" % (c.proj.split("-")[0], db_host(c), c.proj.replace("-", "_")))
    L("Applied %d migrations in %.2fs" % (ri(0, 5), ri(10, 900) / 100))
    return "\n".join(out)


def n_terraform_plan_sensitive_masked():
    c = Ctx()
    out = [prompt(c, "terraform plan -no-color | sed -n '/will be/,/^$/p'"),
           "  # aws_db_instance.main will be updated in-place", "  ~ resource \"aws_db_instance\" \"main\" {",
           "        id                                    = \"db-%s\"" % rs(UP + DG, 26),
           "      ~ password                              = (sensitive value)",
           "        tags                                  = {",
           "            \"Service\" = \"%s\"" % c.proj, "        }", "        # (%d unchanged attributes hidden)" % ri(30, 70), "    }", "",
           "  # random_password.api_signing will be created", "  + resource \"random_password\" \"api_signing\" {",
           "      + bcrypt_hash = (sensitive value)", "      + id          = (known after apply)", "      + length      = %d" % ch([32, 48, 64]),
           "      + lower       = true", "      + result      = (sensitive value)", "      + special     = false", "    }", "",
           "  # aws_secretsmanager_secret_version.api will be created", "  + resource \"aws_secretsmanager_secret_version\" \"api\" {",
           "      + arn            = (known after apply)", "      + id             = (known after apply)",
           "      + secret_id      = \"arn:aws:secretsmanager:%s:%s:secret:%s/%s-%s\"" % (c.region, digits(12), c.env, c.proj, an(6)),
           "      + secret_string  = (sensitive value)", "      + version_id     = (known after apply)", "    }", "",
           "Plan: 2 to add, 1 to change, 0 to destroy."]
    return "\n".join(out)


def n_compose_env_placeholders():
    c = Ctx()
    lines = ["services:", "  db:", "    image: postgres:16-alpine", "    environment:",
             "      POSTGRES_USER: ${POSTGRES_USER:-%s}" % c.proj.split("-")[0],
             "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD in .env}",
             "      POSTGRES_DB: %s" % c.proj.replace("-", "_"), "  api:", "    build: .", "    env_file: .env", "    environment:",
             "      DATABASE_URL: postgres://${POSTGRES_USER:-%s}:${POSTGRES_PASSWORD}@db:5432/%s" % (c.proj.split("-")[0], c.proj.replace("-", "_")),
             "      STRIPE_SECRET_KEY: ${STRIPE_SECRET_KEY}", "      OPENAI_API_KEY: ${OPENAI_API_KEY:-}",
             "    secrets:", "      - jwt_private_key", "secrets:", "  jwt_private_key:", "    file: ./secrets/jwt.pem"]
    return viewer(c, "docker-compose.yml", lines)


def n_readme_quickstart_placeholders():
    c = Ctx()
    lines = ["## Quickstart", "", "1. Copy the example env file and fill in your keys:", "", "   ```bash", "   cp .env.example .env", "   ```", "",
             "2. Set your API key:", "", "   ```bash", "   export OPENAI_API_KEY=\"sk-...\"", "   export ANTHROPIC_API_KEY=\"your-api-key-here\"",
             "   export %s_TOKEN=<token>" % c.proj.split("-")[0].upper(), "   ```", "",
             "3. Call the API:", "", "   ```bash", "   curl https://api.%s/v1/runs \\" % c.dom, "     -H \"Authorization: Bearer $%s_TOKEN\" \\" % c.proj.split("-")[0].upper(),
             "     -H \"X-Api-Key: YOUR_API_KEY\"", "   ```", "",
             "> Never commit real keys. Tokens look like `sk-xxxxxxxxxxxxxxxxxxxx`; the CI uses `${{ secrets.OPENAI_API_KEY }}`."]
    return viewer(c, "README.md", lines, ri(10, 60))


def n_rg_env_var_reads():
    c = Ctx()
    hits = [("src/config.ts", "  openaiKey: process.env.OPENAI_API_KEY!,"),
            ("src/config.ts", "  stripeKey: requireEnv(\"STRIPE_SECRET_KEY\"),"),
            ("app/settings.py", "SECRET_KEY = os.environ[\"DJANGO_SECRET_KEY\"]"),
            ("app/settings.py", "DATABASES = {\"default\": env.db(\"DATABASE_URL\")}"),
            ("cmd/server/main.go", "\ttoken := os.Getenv(\"GITHUB_TOKEN\")"),
            ("scripts/deploy.sh", ": \"${AWS_SECRET_ACCESS_KEY:?missing}\""),
            (".github/workflows/ci.yml", "          SENTRY_AUTH_TOKEN: ${{ secrets.SENTRY_AUTH_TOKEN }}"),
            ("src/lib/mail.rb", "  api_key: ENV.fetch(\"SENDGRID_API_KEY\"),"),
            ("config/runtime.exs", "  secret_key_base: System.fetch_env!(\"SECRET_KEY_BASE\"),")]
    hits = sorted(shuffled(hits)[:ri(5, 8)])
    out = [prompt(c, "rg -n 'process\\.env\\.|os\\.environ|Getenv|ENV\\.fetch|secrets\\.|fetch_env|\\$\\{[A-Z_]+:\\?'")]
    for p, t in hits:
        out.append("%s:%d:%s" % (p, ri(3, 200), t))
    return "\n".join(out)


def n_pydantic_secretstr_repr():
    c = Ctx()
    mod = c.proj.replace("-", "_")
    host = db_host(c)
    tmo = ri(5, 60)
    out = [">>> from %s.settings import get_settings" % mod, ">>> s = get_settings()", ">>> s",
           "Settings(env='%s', database_url=MultiHostUrl('postgresql://%s:5432/%s'), openai_api_key=SecretStr('**********'), stripe_secret_key=SecretStr('**********'), jwt_secret=SecretStr('**********'), request_timeout=%d.0)" % (
               c.env, host, mod, tmo),
           ">>> s.model_dump()",
           "{'env': '%s', 'database_url': MultiHostUrl('postgresql://%s:5432/%s'), 'openai_api_key': SecretStr('**********'), 'stripe_secret_key': SecretStr('**********'), 'jwt_secret': SecretStr('**********'), 'request_timeout': %d.0}" % (
               c.env, host, mod, tmo),
           ">>> len(s.openai_api_key.get_secret_value())", str(ch([51, 164, 132]))]
    return "\n".join(out)


def n_pip_index_masked():
    c = Ctx()
    host = ch(["gitlab.%s/api/v4/projects/%d/packages/pypi/simple" % (c.dom, ri(10, 900)), "nexus.%s/repository/pypi-all/simple" % c.dom,
               "%s.jfrog.io/artifactory/api/pypi/pypi/simple" % c.org])
    user = ch(["__token__", "ci", c.user, "aws"])
    out = [prompt(c, "pip install -r requirements.txt"), "Looking in indexes: https://pypi.org/simple, https://%s:****@%s" % (user, host)]
    for p in shuffled(PY_PKGS)[:ri(3, 5)]:
        v = ver(p)
        if R.random() < 0.5:
            out.append("Requirement already satisfied: %s==%s in ./.venv/lib/python3.12/site-packages (from -r requirements.txt (line %d)) (%s)" % (p, v, ri(1, 30), v))
        else:
            out += ["Collecting %s==%s (from -r requirements.txt (line %d))" % (p, v, ri(1, 30)),
                    "  Downloading https://%s/%s/%s-%s-py3-none-any.whl (%d kB)" % (host.split("/simple")[0], p, p.replace("-", "_"), v, ri(20, 900))]
    out.append("Successfully installed %s" % " ".join("%s-%s" % (p, ver(p)) for p in shuffled(PY_PKGS)[:2]))
    return "\n".join(out)


def n_hikari_config_masked():
    c = Ctx()
    dt = rdt()
    db = c.proj.replace("-", "_")
    keys = [("allowPoolSuspension", "false"), ("autoCommit", "true"), ("connectionTimeout", "30000"), ("dataSourceProperties", "{password=<masked>}"),
            ("driverClassName", "\"org.postgresql.Driver\""), ("idleTimeout", "600000"), ("jdbcUrl", "jdbc:postgresql://%s:5432/%s" % (db_host(c), db)),
            ("maxLifetime", "1800000"), ("maximumPoolSize", str(ri(5, 40))), ("password", "<masked>"), ("poolName", "\"HikariPool-1\""),
            ("username", "\"%s\"" % db)]
    out = [prompt(c, "grep HikariConfig logs/app.log | head -n %d" % (len(keys) + 1))]
    def L(msg):
        return "%s DEBUG [main] com.zaxxer.hikari.HikariConfig - %s" % (dt.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (dt.microsecond // 1000), msg)
    out.append(L("HikariPool-1 - configuration:"))
    for k, v in keys:
        out.append(L(k + "." * (32 - len(k)) + v))
    return "\n".join(out)


def n_aws_configure_list():
    c = Ctx()
    prof = ch(["<not set>", c.env, "default", "%s-admin" % c.org])
    out = [prompt(c, "aws configure list" + ("" if prof == "<not set>" else " --profile " + prof)),
           "      Name                    Value             Type    Location", "      ----                    -----             ----    --------",
           "   profile %24s %16s    %s" % (prof, "None" if prof == "<not set>" else "manual", "None" if prof == "<not set>" else "--profile"),
           "access_key     ****************%s shared-credentials-file    " % rs(UP + "234567", 4),
           "secret_key     ****************%s shared-credentials-file    " % rs(AN, 4),
           "    region %24s      config-file    ~/.aws/config" % c.region]
    if R.random() < 0.5:
        out += [prompt(c, "cat ~/.aws/config"), "[default]", "region = %s" % c.region, "output = json", "",
                "[profile %s-admin]" % c.org, "sso_session = %s" % c.org, "sso_account_id = %s" % digits(12), "sso_role_name = AdministratorAccess",
                "", "[sso-session %s]" % c.org, "sso_start_url = https://%s.awsapps.com/start" % c.org,
                "sso_region = %s" % c.region]
    return "\n".join(out)


def n_gh_auth_status_masked():
    c = Ctx()
    out = [prompt(c, "gh auth status"), "github.com",
           "  ✓ Logged in to github.com account %s (keyring)" % c.user, "  - Active account: true",
           "  - Git operations protocol: https", "  - Token: gho_" + "*" * 36,
           "  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'"]
    if R.random() < 0.5:
        out += ["", "  ✓ Logged in to github.com account %s-bot (GITHUB_TOKEN)" % c.org, "  - Active account: false",
                "  - Git operations protocol: https", "  - Token: ghp_" + "*" * 36]
    if R.random() < 0.5:
        out += [prompt(c, "cat ~/.config/gh/hosts.yml"), "github.com:", "    users:", "        %s:" % c.user, "    git_protocol: https", "    user: %s" % c.user]
    return "\n".join(out)


def n_kubectl_config_view_redacted():
    c = Ctx()
    cl = "%s-%s" % (c.org, c.env)
    acct = digits(12)
    out = [prompt(c, "kubectl config view --minify"), "apiVersion: v1", "clusters:", "- cluster:", "    certificate-authority-data: DATA+OMITTED",
           "    server: https://%s.gr7.%s.eks.amazonaws.com" % (hx(32).upper(), c.region), "  name: arn:aws:eks:%s:%s:cluster/%s" % (c.region, acct, cl),
           "contexts:", "- context:", "    cluster: arn:aws:eks:%s:%s:cluster/%s" % (c.region, acct, cl), "    user: %s" % cl, "  name: %s" % cl,
           "current-context: %s" % cl, "kind: Config", "preferences: {}", "users:", "- name: %s" % cl, "  user:"]
    if R.random() < 0.5:
        out += ["    exec:", "      apiVersion: client.authentication.k8s.io/v1beta1", "      args:", "      - --region", "      - %s" % c.region,
                "      - eks", "      - get-token", "      - --cluster-name", "      - %s" % cl, "      command: aws", "      interactiveMode: IfAvailable"]
    else:
        out += ["    client-certificate-data: DATA+OMITTED", "    client-key-data: DATA+OMITTED", "    token: REDACTED"]
    return "\n".join(out)


def n_gpg_public_key_export():
    c = Ctx()
    uid = "%s <%s>" % (c.name, c.email)
    dt = rdt(1600000000, 1740000000)
    fpr = hx(40).upper()
    out = [prompt(c, "gpg --list-keys %s" % c.email), "pub   ed25519 %s [SC] [expires: %d-%s]" % (dt.strftime("%Y-%m-%d"), dt.year + ch([2, 3, 5]), dt.strftime("%m-%d")),
           "      " + fpr, "uid           [ultimate] " + uid, "sub   cv25519 %s [E]" % dt.strftime("%Y-%m-%d"), "",
           prompt(c, "gpg --armor --export %s" % c.email), pgp_public_block(uid)]
    if R.random() < 0.5:
        out += ["", "Paste the block above into GitHub → Settings → SSH and GPG keys → New GPG key."]
    return "\n".join(out)


def n_authorized_keys_file():
    c = Ctx()
    lines = []
    for _ in range(ri(3, 5)):
        who = ch(["%s@%s" % (ch(FIRST), ch(["laptop", "mbp", "desktop", "work"])), "ci@deploy", "ansible@control", "github-actions", "backup@%s" % c.host])
        opt = ch(["", "", "restrict,command=\"/usr/local/bin/backup-recv\" ", "from=\"10.0.0.0/8,192.168.1.0/24\" ", "no-port-forwarding,no-X11-forwarding ",
                  "cert-authority,principals=\"%s\" " % c.user])
        lines.append(opt + ssh_pub(comment=who))
    out = [prompt(c, "cat ~/.ssh/authorized_keys")] + lines
    if R.random() < 0.5:
        out += [prompt(c, "ssh-keygen -lf ~/.ssh/authorized_keys | head -n 2")]
        for l in lines[:2]:
            out.append("%d SHA256:%s %s (%s)" % (ch([256, 3072]), b64(32).rstrip("="), l.rsplit(" ", 1)[-1], ch(["ED25519", "RSA", "ECDSA"])))
    return "\n".join(out)


def n_openssl_s_client_chain():
    c = Ctx()
    host = ch(["api.", "www.", "app.", ""]) + c.dom
    leaf = pem("CERTIFICATE", fake_cert(host))
    inter = pem("CERTIFICATE", fake_cert("R11"))
    dt = rdt()
    nb = dt.strftime("%b %d %H:%M:%S %Y GMT")
    na = (dt + datetime.timedelta(days=90)).strftime("%b %d %H:%M:%S %Y GMT")
    out = [prompt(c, "openssl s_client -connect %s:443 -servername %s -showcerts </dev/null 2>/dev/null | sed -n '1,/^New,/p'" % (host, host)),
           "CONNECTED(00000003)", "---", "Certificate chain", " 0 s:CN = " + host, "   i:C = US, O = Let's Encrypt, CN = R11",
           "   a:PKEY: rsaEncryption, 2048 (bit); sigalg: RSA-SHA256", "   v:NotBefore: %s; NotAfter: %s" % (nb, na), leaf,
           " 1 s:C = US, O = Let's Encrypt, CN = R11", "   i:C = US, O = Internet Security Research Group, CN = ISRG Root X1",
           "   a:PKEY: rsaEncryption, 2048 (bit); sigalg: RSA-SHA256", "   v:NotBefore: Mar 13 00:00:00 2024 GMT; NotAfter: Mar 12 23:59:59 2027 GMT", inter,
           "---", "Server certificate", "subject=CN = " + host, "issuer=C = US, O = Let's Encrypt, CN = R11", "---",
           "No client certificate CA names sent", "Peer signing digest: SHA256", "Peer signature type: RSA-PSS", "Server Temp Key: X25519, 253 bits", "---",
           "SSL handshake has read %d bytes and written %d bytes" % (ri(3000, 6000), ri(300, 500)), "Verification: OK", "---",
           "New, TLSv1.3, Cipher is TLS_AES_256_GCM_SHA384"]
    return "\n".join(out)


def n_jwks_json():
    c = Ctx()
    keys = []
    for _ in range(ri(2, 3)):
        if R.random() < 0.7:
            k = {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": ch([b64u(32), hx(40), uuid4()]),
                 "n": base64.urlsafe_b64encode(big(256)).decode().rstrip("="), "e": "AQAB"}
            if R.random() < 0.5:
                k["x5t"] = b64u(20)
                k["x5c"] = [base64.b64encode(fake_cert("auth." + c.dom)).decode()]
        else:
            k = {"kty": "EC", "use": "sig", "crv": "P-256", "kid": b64u(16), "x": b64u(32), "y": b64u(32), "alg": "ES256"}
        keys.append(k)
    iss = ch(["https://%s.%s.auth0.com" % (c.org, ch(["us", "eu"])), "https://auth.%s/realms/%s" % (c.dom, c.org), "https://cognito-idp.%s.amazonaws.com/%s_%s" % (c.region, c.region, an(9))])
    return prompt(c, "curl -s %s/.well-known/jwks.json | jq ." % iss) + "\n" + json.dumps({"keys": keys}, indent=2)


def n_curl_i_request_ids():
    c = Ctx()
    dt = rdt()
    k = ri(0, 1)
    if k == 0:
        out = [prompt(c, "curl -sI https://cdn.%s/assets/app-%s.js" % (c.dom, hx(8))), "HTTP/2 200", "content-type: application/javascript",
               "content-length: %d" % ri(10000, 900000), "date: " + dt.strftime("%a, %d %b %Y %H:%M:%S GMT"),
               "last-modified: " + rdt().strftime("%a, %d %b %Y %H:%M:%S GMT"), "etag: \"%s\"" % hx(32),
               "x-amz-server-side-encryption: AES256", "x-amz-version-id: %s" % rs(AN + "._", 32), "accept-ranges: bytes", "server: AmazonS3",
               "x-cache: %s from cloudfront" % ch(["Hit", "Miss", "RefreshHit"]), "via: 1.1 %s.cloudfront.net (CloudFront)" % hx(32),
               "x-amz-cf-pop: %s%d-P%d" % (ch(["FRA", "IAD", "LHR", "NRT", "SFO"]), ri(50, 60), ri(1, 9)),
               "x-amz-cf-id: %s==" % rs(AN + "-_", 54), "age: %d" % ri(1, 86400)]
    else:
        out = [prompt(c, "curl -sI https://api.%s/v1/health" % c.dom), "HTTP/2 200", "content-type: application/json",
               "date: " + dt.strftime("%a, %d %b %Y %H:%M:%S GMT"), "x-request-id: " + uuid4(),
               "x-amzn-requestid: " + uuid4(), "x-amzn-trace-id: Root=1-%s-%s;Sampled=%d" % (hx(8), hx(24), ri(0, 1)),
               "x-amz-apigw-id: %s=" % rs(AN, 15), "traceparent: 00-%s-%s-01" % (hx(32), hx(16)),
               "cf-ray: %s-%s" % (hx(16), ch(["FRA", "AMS", "SJC", "IAD"])), "server: cloudflare", "vary: Origin"]
    return "\n".join(out)


def n_stripe_object_ids_json():
    c = Ctx()
    cus = "cus_" + an(14)
    created = ri(1600000000, 1740000000)
    d = {"id": "sub_1" + an(23), "object": "subscription", "application": None, "billing_cycle_anchor": created, "cancel_at_period_end": False,
         "collection_method": "charge_automatically", "created": created, "currency": "usd", "current_period_end": created + 2592000,
         "customer": cus, "default_payment_method": "pm_1" + an(23), "items": {"object": "list", "data": [
             {"id": "si_" + an(14), "object": "subscription_item", "price": {"id": "price_1" + an(23), "object": "price", "product": "prod_" + an(14),
                                                                             "unit_amount": ch([900, 1900, 4900]), "recurring": {"interval": "month"}}, "quantity": 1}],
             "has_more": False, "url": "/v1/subscription_items?subscription=sub_1..."},
         "latest_invoice": "in_1" + an(23), "livemode": True, "metadata": {"tenant_id": uuid4()}, "status": "active"}
    d["items"]["url"] = "/v1/subscription_items?subscription=" + d["id"]
    return prompt(c, "stripe subscriptions retrieve %s --live" % d["id"]) + "\n" + json.dumps(d, indent=2)


def n_openapi_security_examples():
    c = Ctx()
    lines = ["components:", "  securitySchemes:", "    bearerAuth:", "      type: http", "      scheme: bearer", "      bearerFormat: JWT",
             "      description: 'Send `Authorization: Bearer <token>`.'", "    apiKeyHeader:", "      type: apiKey", "      in: header", "      name: X-API-Key",
             "  parameters:", "    ApiKey:", "      name: X-API-Key", "      in: header", "      required: true", "      schema:", "        type: string",
             "        pattern: '^%s_(live|test)_[A-Za-z0-9]{32}$'" % c.org[:3], "      example: %s_test_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX" % c.org[:3],
             "security:", "  - bearerAuth: []", "  - apiKeyHeader: []", "paths:", "  /v1/tokens:", "    post:", "      operationId: createToken",
             "      requestBody:", "        content:", "          application/json:", "            example:", "              client_id: YOUR_CLIENT_ID",
             "              client_secret: YOUR_CLIENT_SECRET", "              grant_type: client_credentials"]
    return viewer(c, "openapi/openapi.yaml", lines, ri(1, 300))


def minified_js(n):
    ids = ["e", "t", "n", "r", "o", "i", "a", "s", "l", "u", "c", "d", "f", "p", "h", "m", "g", "y", "v", "b"]
    parts = []
    while sum(len(p) for p in parts) < n:
        k = ri(0, 7)
        a, b, d = ch(ids), ch(ids), ch(ids)
        if k == 0:
            parts.append("function %s%s(%s,%s){return %s&&%s.__esModule?%s:{default:%s}}" % (ch(ids), ch(ids).upper(), a, b, a, a, a, a))
        elif k == 1:
            parts.append("var %s=Object.defineProperty,%s=(%s,%s,%s)=>%s in %s?%s(%s,%s,{enumerable:!0,configurable:!0,writable:!0,value:%s}):%s[%s]=%s;" % (
                a.upper() + ch(ids), b.upper() + ch(ids), a, b, d, b, a, a.upper(), a, b, d, a, b, d))
        elif k == 2:
            parts.append("const %s%s=\"%s\";" % (a, ri(0, 99), ch(["data-v-" + hx(8), "css-" + rs(LOD, 7), "__next_" + hx(6), "q-" + rs(LOD, 6)])))
        elif k == 3:
            parts.append("%s.exports={%s:%s,%s:%s};" % (a, ch(["render", "hydrate", "createRoot", "memo"]), b, ch(["version", "jsx", "Fragment"]), "\"18.3.1\""))
        elif k == 4:
            parts.append("if(!%s)throw Error(\"Minified React error #%d; visit https://reactjs.org/docs/error-decoder.html?invariant=%d for the full message.\");" % (a, ri(1, 500), ri(1, 500)))
        elif k == 5:
            parts.append("%s.u=%s=>\"assets/\"+({%s}[%s]||%s)+\"-\"+{%s}[%s]+\".js\";" % (
                "__webpack_require__", a, ",".join("%d:\"%s\"" % (ri(10, 999), ch(["vendor", "charts", "editor", "settings"])) for _ in range(2)), a, a,
                ",".join("%d:\"%s\"" % (ri(10, 999), hx(ch([8, 16, 20]))) for _ in range(ri(3, 5))), a))
        elif k == 6:
            parts.append("%s=%s.replace(/[\\u0300-\\u036f]/g,\"\").toLowerCase();" % (a, b))
        else:
            parts.append("background:url(data:image/svg+xml;base64,%s)" % b64s("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\"><path d=\"M%d %dh%dv%dH%dz\" fill=\"#%s\"/></svg>" % (
                ri(8, 24), ri(8, 24), ri(0, 4), ri(0, 4), ri(4, 12), ri(4, 12), ri(0, 4), hx(6))))
    return "".join(parts)


def n_minified_bundle_head():
    c = Ctx()
    f = "dist/assets/index-%s.js" % rs(AN + "_-", 8)
    return prompt(c, "head -c 1400 %s; echo" % f) + "\n" + minified_js(1300)[:1400]


def vlq_mappings(n):
    alpha = UP + LO + DG + "+/"
    segs = []
    for _ in range(n):
        line = ",".join(rs(ch(["ACDEGIKMOQSUWY", alpha]), ch([4, 4, 4, 5, 6])) for _ in range(ri(2, 9)))
        segs.append(line)
    return ";".join(segs)


def n_sourcemap_json():
    c = Ctx()
    srcs = ["../../src/%s.ts" % ch(["index", "app", "router", "api/client", "hooks/useSession", "lib/format"]) for _ in range(ri(3, 5))]
    d = {"version": 3, "file": "index-%s.js" % rs(AN + "_-", 8), "sources": srcs,
         "names": shuffled(["useState", "useEffect", "fetch", "res", "json", "token", "setUser", "apiKey", "headers", "init"])[:8],
         "mappings": vlq_mappings(ri(15, 30))}
    return prompt(c, "head -c 1500 dist/assets/%s.map | jq ." % d["file"]) + "\n" + json.dumps(d, indent=2)


def n_api_pagination_cursors():
    c = Ctx()
    items = []
    last = None
    for _ in range(ri(2, 4)):
        last = {"id": uuid4(), "name": ch(WORDS) + "-" + ch(WORDS), "created_at": iso_ms(rdt()), "etag": "W/\"%s\"" % hx(16)}
        items.append(last)
    k = ri(0, 1)
    if k == 0:
        cur = b64u_json({"id": last["id"], "created_at": last["created_at"]})
        d = {"data": items, "has_more": True, "next_cursor": cur}
        cmd = "curl -s 'https://api.%s/v1/projects?limit=%d' -H \"Authorization: Bearer $TOKEN\" | jq ." % (c.dom, len(items))
    else:
        team = "T0" + rs(UP + DG, 8)
        users = [{"id": "U0" + rs(UP + DG, 9), "team_id": team, "name": ch(FIRST), "deleted": False} for _ in range(2)]
        d = {"ok": True, "members": users, "cache_ts": ri(1700000000, 1750000000),
             "response_metadata": {"next_cursor": base64.b64encode(("user:" + users[-1]["id"]).encode()).decode()}}
        cmd = "curl -s -H \"Authorization: Bearer $SLACK_BOT_TOKEN\" 'https://slack.com/api/users.list?limit=2' | jq ."
    return prompt(c, cmd) + "\n" + json.dumps(d, indent=2)


def n_psql_api_key_hashes():
    c = Ctx()
    db = c.proj.replace("-", "_")
    rows = []
    for _ in range(ri(3, 5)):
        pre = ch(["sk_live_", "sk_test_", "pk_"]) + an(4)
        rows.append([str(ri(1, 999)), ch(["ci", "zapier", "prod-backend", "%s laptop" % ch(FIRST), "terraform"]), pre, hx(64),
                     rdt().strftime("%Y-%m-%d %H:%M:%S+00"), ch(["", rdt().strftime("%Y-%m-%d %H:%M:%S+00")])])
    hdr = ["id", "name", "key_prefix", "key_sha256", "last_used_at", "revoked_at"]
    out = ["%s=> SELECT id, name, key_prefix, key_sha256, last_used_at, revoked_at FROM api_keys WHERE org_id = %d;" % (db, ri(1, 200))]
    out += psql_table(hdr, rows)
    return "\n".join(out)


def n_test_fixtures_fake_keys():
    c = Ctx()
    lines = ["\"\"\"Shared fixtures. All credentials below are FAKE and only used with moto/respx mocks.\"\"\"", "import pytest", "",
             "# AWS's documented example credentials (https://docs.aws.amazon.com/IAM/latest/UserGuide/security-creds.html)",
             "FAKE_AWS_ACCESS_KEY_ID = \"AKIAIOSFODNN7EXAMPLE\"", "FAKE_AWS_SECRET_ACCESS_KEY = \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"",
             "FAKE_STRIPE_KEY = \"sk_test_\" + \"x\" * 24", "FAKE_SLACK_TOKEN = \"xoxb-not-a-real-token\"",
             "FAKE_OPENAI_KEY = \"sk-test-000000000000000000000000\"", "", "",
             "@pytest.fixture(autouse=True)", "def aws_env(monkeypatch):", "    monkeypatch.setenv(\"AWS_ACCESS_KEY_ID\", \"testing\")",
             "    monkeypatch.setenv(\"AWS_SECRET_ACCESS_KEY\", \"testing\")", "    monkeypatch.setenv(\"AWS_DEFAULT_REGION\", \"%s\")" % c.region]
    return viewer(c, "tests/conftest.py", lines)


def n_gitleaks_report_redacted():
    c = Ctx()
    res = []
    for _ in range(ri(1, 3)):
        rule = ch(["generic-api-key", "aws-access-token", "slack-bot-token", "stripe-access-token", "github-pat", "private-key"])
        f = ch(["config/%s.yml" % c.env, "scripts/deploy.sh", "src/lib/client.ts", ".env.example", "docker/certs/server.key"])
        ln = ri(1, 200)
        commit = sha40()
        dt = rdt()
        res.append({"RuleID": rule, "Description": "Detected a %s, potentially exposing access to sensitive services." % rule.replace("-", " "),
                    "StartLine": ln, "EndLine": ln, "StartColumn": ri(1, 20), "EndColumn": ri(40, 90),
                    "Match": ch(["api_key: REDACTED", "token = \"REDACTED\"", "REDACTED"]), "Secret": "REDACTED", "File": f, "SymlinkFile": "",
                    "Commit": commit, "Entropy": round(ri(3500, 5900) / 1000, 6), "Author": c.name, "Email": c.email, "Date": iso_s(dt),
                    "Message": ch(["wip", "add config", "fix deploy"]), "Tags": [], "Fingerprint": "%s:%s:%s:%d" % (commit, f, rule, ln)})
    return prompt(c, "gitleaks detect --redact --report-format json --report-path - --no-banner") + "\n" + json.dumps(res, indent=1)


def n_detect_secrets_baseline():
    c = Ctx()
    results = {}
    for f in sorted(shuffled(["tests/fixtures/config.yaml", "docs/setup.md", ".env.example", "src/auth/test_jwt.py", "charts/%s/values.yaml" % c.proj])[:ri(2, 3)]):
        results[f] = [{"type": ch(["Secret Keyword", "Base64 High Entropy String", "Hex High Entropy String", "JSON Web Token"]), "filename": f,
                       "hashed_secret": hx(40), "is_verified": False, "line_number": ri(1, 120)} for _ in range(ri(1, 2))]
    d = {"version": "1.5.0", "plugins_used": [{"name": n} for n in ["AWSKeyDetector", "Base64HighEntropyString", "HexHighEntropyString", "JwtTokenDetector", "KeywordDetector"]],
         "filters_used": [{"path": "detect_secrets.filters.allowlist.is_line_allowlisted"}, {"path": "detect_secrets.filters.heuristic.is_likely_id_string"}],
         "results": results, "generated_at": iso_s(rdt())}
    d["plugins_used"][1]["limit"] = 4.5
    d["plugins_used"][2]["limit"] = 3.0
    return prompt(c, "cat .secrets.baseline") + "\n" + json.dumps(d, indent=2)


def n_kubectl_set_env_list():
    c = Ctx()
    ns = ch([c.env, "apps"])
    out = [prompt(c, "kubectl -n %s set env deployment/%s --list" % (ns, c.proj)), "# Deployment %s, container app" % c.proj,
           "NODE_ENV=production", "# DATABASE_URL from secret %s-env, key DATABASE_URL" % c.proj,
           "# STRIPE_SECRET_KEY from secret stripe, key secret-key", "# POD_IP from field path status.podIP",
           "# LOG_LEVEL from configmap %s-config, key LOG_LEVEL" % c.proj, "# OPENAI_API_KEY from secret llm-keys, key openai",
           "OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector.observability:4317"]
    return "\n".join(out)


def n_doppler_secrets_names_only():
    c = Ctx()
    names = sorted(shuffled(["DATABASE_URL", "DOPPLER_CONFIG", "DOPPLER_ENVIRONMENT", "DOPPLER_PROJECT", "JWT_SECRET", "OPENAI_API_KEY", "REDIS_URL",
                             "SENTRY_DSN", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "SENDGRID_API_KEY"])[:ri(6, 9)])
    w = max(len(n) for n in names) + 2
    out = [prompt(c, "doppler secrets --only-names --project %s --config %s" % (c.proj, ch(["prd", "stg", "dev"]))),
           "┌" + "─" * w + "┐", "│ NAME" + " " * (w - 5) + "│", "├" + "─" * w + "┤"]
    for i, n in enumerate(names):
        out.append("│ " + n.ljust(w - 1) + "│")
        out.append(("├" + "─" * w + "┤") if i < len(names) - 1 else ("└" + "─" * w + "┘"))
    return "\n".join(out)


def n_docker_secret_ls():
    c = Ctx()
    names = shuffled(["db_password", "%s_jwt_key" % c.proj.split("-")[0], "stripe_api_key", "registry_auth", "smtp_password", "tls_key"])[:ri(3, 5)]
    out = [prompt(c, "docker secret ls"), "%-28s%-21s%-10s%-15s%s" % ("ID", "NAME", "DRIVER", "CREATED", "UPDATED")]
    ids = []
    for n in names:
        i = rs(LOD, 25)
        ids.append(i)
        age = ch(["3 weeks ago", "2 months ago", "5 days ago"])
        out.append("%-28s%-21s%-10s%-15s%s" % (i, n, "", age, age))
    d = rdt()
    out += [prompt(c, "docker secret inspect %s" % names[0]),
            json.dumps([{"ID": ids[0], "Version": {"Index": ri(10, 999)}, "CreatedAt": d.strftime("%Y-%m-%dT%H:%M:%S.") + "%09dZ" % ri(0, 999999999),
                         "UpdatedAt": d.strftime("%Y-%m-%dT%H:%M:%S.") + "%09dZ" % ri(0, 999999999), "Spec": {"Name": names[0], "Labels": {}}}], indent=4)]
    return "\n".join(out)


def n_az_keyvault_secret_list():
    c = Ctx()
    kv = "kv-%s-%s" % (c.proj[:10], c.env[:4])
    names = shuffled(["db-password", "stripe-secret-key", "openai-api-key", "storage-connection-string", "jwt-signing-key", "smtp-password"])[:ri(3, 5)]
    w = max(len(n) for n in names) + 2
    out = [prompt(c, "az keyvault secret list --vault-name %s --query \"[].{name:name, enabled:attributes.enabled, updated:attributes.updated}\" -o table" % kv),
           "Name".ljust(w) + "Enabled    Updated", "-" * (w - 2) + "  ---------  -------------------------"]
    for n in names:
        out.append(n.ljust(w) + "True       " + rdt().strftime("%Y-%m-%dT%H:%M:%S+00:00"))
    out += [prompt(c, "az keyvault secret show --vault-name %s --name %s --query id -o tsv" % (kv, names[0])),
            "https://%s.vault.azure.net/secrets/%s/%s" % (kv, names[0], hx(32))]
    return "\n".join(out)


def n_secretsmanager_describe_secret():
    c = Ctx()
    acct = digits(12)
    name = "%s/%s/%s" % (c.env, c.proj, ch(["db", "api-keys", "app"]))
    d = {"ARN": "arn:aws:secretsmanager:%s:%s:secret:%s-%s" % (c.region, acct, name, an(6)), "Name": name,
         "KmsKeyId": "arn:aws:kms:%s:%s:key/%s" % (c.region, acct, uuid4()), "RotationEnabled": True,
         "RotationLambdaARN": "arn:aws:lambda:%s:%s:function:SecretsManager%sRotation" % (c.region, acct, c.proj.replace("-", "").title()),
         "RotationRules": {"AutomaticallyAfterDays": ch([30, 60, 90])}, "LastRotatedDate": iso_ms(rdt()).replace("Z", "+00:00"),
         "LastChangedDate": iso_ms(rdt()).replace("Z", "+00:00"), "LastAccessedDate": rdt().strftime("%Y-%m-%dT00:00:00+00:00"),
         "Tags": [{"Key": "service", "Value": c.proj}, {"Key": "env", "Value": c.env}],
         "VersionIdsToStages": {uuid4(): ["AWSCURRENT"], uuid4(): ["AWSPREVIOUS"]}, "CreatedDate": iso_ms(rdt()).replace("Z", "+00:00")}
    return prompt(c, "aws secretsmanager describe-secret --secret-id %s" % name) + "\n" + json.dumps(d, indent=4)


def n_kms_transit_ciphertexts():
    c = Ctx()
    k = ri(0, 2)
    if k == 0:
        blob = base64.b64encode(b"\x01\x02\x02\x00\x78" + rbytes(ri(150, 230))).decode()
        acct = digits(12)
        d = {"CiphertextBlob": blob, "KeyId": "arn:aws:kms:%s:%s:key/%s" % (c.region, acct, uuid4()), "EncryptionAlgorithm": "SYMMETRIC_DEFAULT"}
        return prompt(c, "aws kms encrypt --key-id alias/%s --plaintext fileb://payload.bin --output json" % c.proj) + "\n" + json.dumps(d, indent=4)
    if k == 1:
        ct = "vault:v1:" + b64(ri(40, 90))
        out = [prompt(c, "vault write transit/encrypt/%s plaintext=@payload.b64" % c.proj)] + kv_table([("ciphertext", ct), ("key_version", "1")])
        return "\n".join(out)
    out = [prompt(c, "cat Pulumi.%s.yaml" % c.env), "config:", "  aws:region: %s" % c.region,
           "  %s:dbPassword:" % c.proj, "    secure: v1:%s" % b64(ri(30, 60)), "  %s:stripeKey:" % c.proj, "    secure: v1:%s" % b64(ri(120, 150)),
           "  %s:replicas: \"3\"" % c.proj, "encryptionsalt: v1:%s:v1:%s" % (b64(8), b64(ri(24, 32)))]
    return "\n".join(out)


def n_certbot_certificates():
    c = Ctx()
    out = [prompt(c, "sudo certbot certificates"), "Saving debug log to /var/log/letsencrypt/letsencrypt.log", "",
           "- " * 40, "Found the following certs:"]
    for d in shuffled([c.dom, "api." + c.dom, "grafana." + c.dom])[:ri(1, 2)]:
        dt = rdt(1740000000, 1760000000)
        out += ["  Certificate Name: " + d, "    Serial Number: " + hx(ri(34, 36)), "    Key Type: " + ch(["ECDSA", "RSA"]),
                "    Domains: %s%s" % (d, ch(["", " www." + d])), "    Expiry Date: %s (VALID: %d days)" % (dt.strftime("%Y-%m-%d %H:%M:%S+00:00"), ri(5, 89)),
                "    Certificate Path: /etc/letsencrypt/live/%s/fullchain.pem" % d, "    Private Key Path: /etc/letsencrypt/live/%s/privkey.pem" % d]
    out += ["- " * 40]
    h = hx(32)
    out += [prompt(c, "sudo cat /etc/letsencrypt/accounts/acme-v02.api.letsencrypt.org/directory/%s/regr.json" % h),
            json.dumps({"body": {}, "uri": "https://acme-v02.api.letsencrypt.org/acme/acct/%s" % digits(ri(9, 10))})]
    return "\n".join(out)


def n_acme_http01_log():
    c = Ctx()
    dt = rdt()
    tok = b64u(32)
    thumb = b64u(32)
    def L(m):
        return "[%s] %s" % (dt.strftime("%a %b %d %H:%M:%S UTC %Y"), m)
    out = [prompt(c, "acme.sh --issue -d %s -w /var/www/html --debug 2>&1 | grep -E 'token|keyauth|authz|Success'" % c.dom),
           L("_authz_url='https://acme-v02.api.letsencrypt.org/acme/authz-v3/%s'" % digits(12)),
           L("token='%s'" % tok), L("Getting webroot for domain='%s'" % c.dom),
           L("keyauthorization='%s.%s'" % (tok, thumb)),
           L("writing token:%s to /var/www/html/.well-known/acme-challenge/%s" % (tok, tok)),
           L("Success")]
    if R.random() < 0.5:
        out += [prompt(c, "curl -s http://%s/.well-known/acme-challenge/%s" % (c.dom, tok)), "%s.%s" % (tok, thumb)]
    return "\n".join(out)


def n_oauth_authorize_url_log():
    c = Ctx()
    dt = rdt()
    k = ri(0, 1)
    if k == 0:
        cid = "%s-%s.apps.googleusercontent.com" % (digits(12), rs(LOD, 32))
        url = ("https://accounts.google.com/o/oauth2/v2/auth?client_id=%s&redirect_uri=https%%3A%%2F%%2Fapp.%s%%2Fapi%%2Fauth%%2Fcallback%%2Fgoogle"
               "&response_type=code&scope=openid%%20email%%20profile&state=%s&nonce=%s&code_challenge=%s&code_challenge_method=S256") % (
            cid, c.dom, b64u(32), b64u(16), b64u(32))
    else:
        url = "https://github.com/login/oauth/authorize?client_id=Iv1.%s&redirect_uri=https%%3A%%2F%%2Fapp.%s%%2Foauth%%2Fgithub&scope=read%%3Auser%%20user%%3Aemail&state=%s&allow_signup=true" % (
            hx(16), c.dom, hx(32))
    d1 = later(dt, 1, 40)
    d2 = later(d1, 0, 5)
    out = ["%s [%s] %s" % (iso_ms(dt), ch(["next-auth", "auth", "passport"]), "GET /api/auth/signin/%s 302" % ("google" if k == 0 else "github")),
           "%s [%s] redirecting to %s" % (iso_ms(d1), "auth", url),
           "%s [%s] set-cookie: %s=%s; Path=/; HttpOnly; SameSite=Lax; Max-Age=900" % (iso_ms(d2), "auth", "oauth_pkce_ts", int(dt.timestamp()))]
    return prompt(c, "grep -E 'signin|redirecting|set-cookie' logs/dev.log | tail -n 3") + "\n" + "\n".join(out)


def n_apksigner_print_certs():
    c = Ctx()
    apk = "app/build/outputs/apk/release/app-release.apk"
    out = [prompt(c, "apksigner verify --print-certs -v %s" % apk), "Verifies",
           "Verified using v1 scheme (JAR signing): false", "Verified using v2 scheme (APK Signature Scheme v2): true",
           "Verified using v3 scheme (APK Signature Scheme v3): true", "Verified using v4 scheme (APK Signature Scheme v4): false",
           "Verified for SourceStamp: false", "Number of signers: 1",
           "Signer #1 certificate DN: CN=%s, OU=Mobile, O=%s, C=%s" % (c.name, c.org.title(), ch(["US", "DE", "GB", "NL"])),
           "Signer #1 certificate SHA-256 digest: " + hx(64), "Signer #1 certificate SHA-1 digest: " + hx(40),
           "Signer #1 certificate MD5 digest: " + hx(32), "Signer #1 key algorithm: RSA", "Signer #1 key size (bits): 2048",
           "Signer #1 public key SHA-256 digest: " + hx(64), "Signer #1 public key SHA-1 digest: " + hx(40), "Signer #1 public key MD5 digest: " + hx(32)]
    return "\n".join(out)


def n_jar_manifest_digests():
    c = Ctx()
    pkg = "com/%s/%s" % (c.org.replace("-", ""), c.proj.replace("-", ""))
    out = [prompt(c, "unzip -p build/libs/%s-%s.jar META-INF/MANIFEST.MF | head -n 20" % (c.proj, ver())),
           "Manifest-Version: 1.0", "Created-By: Maven JAR Plugin 3.4.1", "Build-Jdk-Spec: 21", "Main-Class: %s.Main" % pkg.replace("/", "."), ""]
    for cls in shuffled(["Main", "Config", "http/Router", "db/Pool", "util/Json", "auth/TokenVerifier"])[:ri(3, 5)]:
        out += ["Name: %s/%s.class" % (pkg, cls), "SHA-256-Digest: " + b64(32), ""]
    return "\n".join(out[:-1])


def n_mongosh_find_objectids():
    c = Ctx()
    db = c.proj.replace("-", "_")
    out = ["%s> db.users.find({}, {email: 1, tenantId: 1, avatarHash: 1, createdAt: 1}).limit(2)" % db, "["]
    for i in range(2):
        out += ["  {", "    _id: ObjectId('%08x%s')," % (ri(1672531200, 1751241600), hx(16)), "    email: '%s.%s@%s'," % (ch(FIRST), ch(LAST), c.dom),
                "    tenantId: UUID('%s')," % uuid4(), "    avatarHash: '%s'," % hx(32), "    createdAt: ISODate('%s')" % iso_ms(rdt()),
                "  }" + ("," if i == 0 else "")]
    out.append("]")
    return "\n".join(out)


def n_ollama_list_digests():
    c = Ctx()
    models = shuffled([("llama3.1:8b", "4.9 GB"), ("qwen2.5-coder:7b", "4.7 GB"), ("nomic-embed-text:latest", "274 MB"), ("mistral:7b", "4.1 GB"),
                       ("deepseek-r1:14b", "9.0 GB"), ("gemma2:9b", "5.4 GB"), ("phi3:mini", "2.2 GB")])[:ri(3, 5)]
    w = max(len(m) for m, _ in models) + 4
    out = [prompt(c, "ollama list"), "NAME".ljust(w) + "ID              SIZE      MODIFIED"]
    for m, s in models:
        out.append(m.ljust(w) + hx(12) + "    " + s.ljust(10) + ch(["3 weeks ago", "2 days ago", "5 months ago", "About an hour ago"]))
    out += [prompt(c, "ollama show --modelfile %s | grep -E '^(FROM|# FROM)'" % models[0][0]), "# FROM %s" % models[0][0],
            "FROM /usr/share/ollama/.ollama/models/blobs/sha256-%s" % hx(64)]
    return "\n".join(out)


def n_gha_pinned_action_shas():
    c = Ctx()
    acts = shuffled([("actions/checkout", "v4.1.7"), ("actions/setup-node", "v4.0.3"), ("actions/cache", "v4.0.2"), ("pnpm/action-setup", "v4.0.0"),
                     ("docker/build-push-action", "v6.5.0"), ("aws-actions/configure-aws-credentials", "v4.0.2"), ("actions/upload-artifact", "v4.3.4")])[:ri(3, 5)]
    lines = ["    steps:"]
    for a, v in acts:
        lines.append("      - uses: %s@%s # %s" % (a, sha40(), v))
        if a == "actions/cache":
            lines += ["        with:", "          path: ~/.pnpm-store", "          key: ${{ runner.os }}-pnpm-${{ hashFiles('**/pnpm-lock.yaml') }}"]
        if a == "aws-actions/configure-aws-credentials":
            lines += ["        with:", "          role-to-assume: arn:aws:iam::%s:role/gha-%s" % (digits(12), c.proj), "          aws-region: %s" % c.region]
    return viewer(c, ".github/workflows/ci.yml", lines, ri(10, 40))


def n_pre_commit_frozen_revs():
    c = Ctx()
    repos = shuffled([("https://github.com/pre-commit/pre-commit-hooks", "v4.6.0", ["trailing-whitespace", "end-of-file-fixer", "check-yaml"]),
                      ("https://github.com/astral-sh/ruff-pre-commit", "v0.5.%d" % ri(0, 7), ["ruff", "ruff-format"]),
                      ("https://github.com/gitleaks/gitleaks", "v8.18.%d" % ri(0, 4), ["gitleaks"]),
                      ("https://github.com/pre-commit/mirrors-mypy", "v1.11.%d" % ri(0, 2), ["mypy"]),
                      ("https://github.com/Yelp/detect-secrets", "v1.5.0", ["detect-secrets"])])[:ri(3, 4)]
    lines = ["repos:"]
    for u, v, hooks in repos:
        lines += ["  - repo: " + u, "    rev: %s  # frozen: %s" % (sha40(), v), "    hooks:"] + ["      - id: " + h for h in hooks]
    return viewer(c, ".pre-commit-config.yaml", lines)


def n_vault_status():
    c = Ctx()
    rows = [("Seal Type", "shamir"), ("Initialized", "true"), ("Sealed", "false"), ("Total Shares", "5"), ("Threshold", "3"),
            ("Version", "1.%d.%d" % (ri(14, 18), ri(0, 5))), ("Build Date", iso_s(rdt())), ("Storage Type", "raft"),
            ("Cluster Name", "vault-cluster-%s" % hx(8)), ("Cluster ID", uuid4()), ("HA Enabled", "true"),
            ("HA Cluster", "https://vault-0.vault-internal:8201"), ("HA Mode", "active"), ("Active Since", iso_ms(rdt()).replace("Z", "%sZ" % digits(6))),
            ("Raft Committed Index", str(ri(10000, 9999999))), ("Raft Applied Index", str(ri(10000, 9999999)))]
    return prompt(c, "vault status") + "\n" + "\n".join(kv_table(rows, 4))


def n_kafka_topics_describe():
    c = Ctx()
    topic = ch(["orders", "payments.events", "%s.audit" % c.proj, "user-signups"])
    parts = ri(3, 6)
    out = [prompt(c, "kafka-topics.sh --bootstrap-server %s:9092 --describe --topic %s" % (ch(["localhost", "kafka-0.kafka"]), topic)),
           "Topic: %s\tTopicId: %s\tPartitionCount: %d\tReplicationFactor: 3\tConfigs: cleanup.policy=delete,retention.ms=604800000,segment.bytes=1073741824" % (
               topic, b64u(16), parts)]
    for p in range(parts):
        reps = shuffled(["1", "2", "3"])
        out.append("\tTopic: %s\tPartition: %d\tLeader: %s\tReplicas: %s\tIsr: %s" % (topic, p, reps[0], ",".join(reps), ",".join(reps)))
    out += [prompt(c, "kafka-cluster.sh cluster-id --bootstrap-server localhost:9092"), "Cluster ID: " + b64u(16)]
    return "\n".join(out)


def n_apt_cache_show_hashes():
    c = Ctx()
    pkg, ver_, sec, home, desc = ch([("curl", "8.5.0-2ubuntu10.%d" % ri(1, 6), "web", "https://curl.se/", "command line tool for transferring data with URL syntax"),
                                     ("openssl", "3.0.13-0ubuntu3.%d" % ri(1, 5), "utils", "https://www.openssl.org/", "Secure Sockets Layer toolkit - cryptographic utility"),
                                     ("libpq5", "16.%d-0ubuntu0.24.04.1" % ri(1, 6), "libs", "https://www.postgresql.org/", "PostgreSQL C client library"),
                                     ("git", "1:2.43.0-1ubuntu7.%d" % ri(1, 3), "vcs", "https://git-scm.com/", "fast, scalable, distributed revision control system")])
    src = "postgresql-16" if pkg == "libpq5" else pkg
    out = [prompt(c, "apt-cache show %s | head -n 20" % pkg), "Package: " + pkg, "Architecture: amd64", "Version: " + ver_, "Priority: optional",
           "Section: " + sec, "Origin: Ubuntu", "Maintainer: Ubuntu Developers <ubuntu-devel-discuss@lists.ubuntu.com>",
           "Installed-Size: %d" % ri(100, 9000), "Filename: pool/main/%s/%s/%s_%s_amd64.deb" % (src[0], src, pkg, ver_.split(":")[-1]),
           "Size: %d" % ri(100000, 9000000), "MD5sum: " + hx(32), "SHA1: " + hx(40), "SHA256: " + hx(64), "SHA512: " + hx(128),
           "Homepage: " + home, "Description: " + desc]
    return "\n".join(out)


def n_gh_api_commit_verification():
    c = Ctx()
    sha = sha40()
    dt = rdt()
    ts = int(dt.timestamp())
    payload = "tree %s\nparent %s\nauthor %s <%s> %d +0000\ncommitter %s <%s> %d +0000\n\n%s\n" % (
        sha40(), sha40(), c.name, c.email, ts, c.name, c.email, ts, ch(["fix: retry on 429", "chore: bump deps", "feat: add export"]))
    d = {"sha": sha, "tree": sha40(), "verification": {"verified": True, "reason": "valid", "signature": pgp_signature_block() + "\n", "payload": payload,
                                                      "verified_at": iso_s(dt)}}
    return prompt(c, "gh api repos/%s/%s/commits/%s --jq '{sha, tree: .commit.tree.sha, verification: .commit.verification}'" % (c.org, c.proj, sha[:7])) + "\n" + json.dumps(d, indent=2)


# ================================================================ registry and checks

POSITIVE = [
    # common formats through another viewer
    p_git_stash_show_env, p_git_blame_settings, p_git_grep_all_revs, p_rg_context_config, p_diff_u_env_example,
    p_bat_yaml_config, p_sed_n_app_toml, p_claude_read_settings_local, p_compose_logs_startup, p_kubectl_exec_env,
    p_declare_x_dump, p_python_os_environ_repr, p_gha_log_step_env, p_docker_build_plain_progress, p_pino_json_headers,
    p_heroku_config_vars,
    # tests, traces and app logs
    p_pytest_showlocals, p_rich_traceback_locals, p_go_test_struct_dump, p_jest_snapshot_diff, p_php_var_dump_config,
    p_spring_log_jdbc_url,
    # HTTP and shell
    p_git_remote_v_tokens, p_httpie_verbose, p_devtools_copy_as_curl, p_mitmdump_flow_detail, p_curl_verbose_basic_auth,
    p_cli_password_flag_warnings,
    # package managers
    p_yarnrc_yml_auth, p_pip_config_list, p_cargo_credentials_toml, p_maven_settings_cat_n, p_gradle_properties_home,
    p_docker_config_auths,
    # databases
    p_db_client_cred_files, p_neon_pscale_passwords, p_psql_select_oauth_tokens,
    # secret stores, clusters, CI
    p_secretsmanager_get_value, p_kubectl_secret_go_template, p_kubeconfig_user_creds, p_vault_kv_get_table,
    p_gh_auth_status_token, p_gitlab_runner_config_toml, p_terraform_state_grep,
    # agents and AI tooling
    p_codex_config_mcp_env, p_aider_conf_yml, p_python_source_llm_keys, p_langfuse_langsmith_grep,
    # observability and notifications
    p_otel_collector_exporters, p_rg_webhook_urls,
    # desktop
    p_fish_variables, p_plutil_launchagent,
    # keys
    p_puttygen_ppk, p_git_show_added_key, p_gcp_sa_decoded_secret, p_azure_functions_local_settings,
    # first runs and vendor CLIs
    p_first_run_password_banners, p_stripe_cli_config_toml, p_postman_environment_json, p_jupyter_server_list,
]

NEGATIVE = [
    n_git_bisect_log, n_package_lock_integrity_diff, n_yarn_berry_lock_checksums, n_cargo_lock_checksums, n_uv_lock_hashes,
    n_pip_compile_hashes, n_gemfile_lock_checksums, n_npm_view_dist_signatures,
    n_docker_images_digests, n_docker_manifest_inspect, n_kubectl_get_rs_hashes,
    n_kubectl_secret_refs_yaml, n_helm_chart_secret_template, n_op_secret_references, n_argocd_vault_plugin_manifest,
    n_ansible_vault_ciphertext, n_kms_transit_ciphertexts,
    n_gha_log_masked_secrets, n_terraform_plan_sensitive_masked, n_pydantic_secretstr_repr, n_pip_index_masked,
    n_hikari_config_masked, n_aws_configure_list, n_gh_auth_status_masked, n_kubectl_config_view_redacted,
    n_gitleaks_report_redacted, n_detect_secrets_baseline,
    n_compose_env_placeholders, n_readme_quickstart_placeholders, n_rg_env_var_reads, n_openapi_security_examples,
    n_test_fixtures_fake_keys,
    n_kubectl_set_env_list, n_doppler_secrets_names_only, n_docker_secret_ls, n_az_keyvault_secret_list,
    n_secretsmanager_describe_secret, n_vault_status,
    n_gpg_public_key_export, n_authorized_keys_file, n_openssl_s_client_chain, n_jwks_json, n_apksigner_print_certs,
    n_jar_manifest_digests, n_gh_api_commit_verification, n_certbot_certificates, n_acme_http01_log,
    n_curl_i_request_ids, n_oauth_authorize_url_log, n_api_pagination_cursors, n_stripe_object_ids_json,
    n_psql_api_key_hashes, n_mongosh_find_objectids, n_kafka_topics_describe,
    n_minified_bundle_head, n_sourcemap_json,
    n_ollama_list_digests, n_gha_pinned_action_shas, n_pre_commit_frozen_revs, n_apt_cache_show_hashes,
]


def spans(text):
    """Return the marked spans, asserting marks are balanced and never nested."""
    out = []
    depth = 0
    start = None
    for i, ch_ in enumerate(text):
        if ch_ == "«":
            assert depth == 0, "nested mark"
            depth = 1
            start = i + 1
        elif ch_ == "»":
            assert depth == 1, "unbalanced close"
            depth = 0
            out.append(text[start:i])
    assert depth == 0, "unclosed mark"
    return out


def check_positive(name, text):
    sp = spans(text)
    assert sp, "%s: no marked secret" % name
    residual = text
    for s in sp:
        residual = residual.replace("«" + s + "»", "\x00")
    for s in sp:
        assert s, "%s: empty span" % name
        assert s == s.strip(), "%s: span with outer whitespace %r" % (name, s)
        assert s[0] not in "\"'`" and s[-1] not in "\"'`", "%s: span includes quotes %r" % (name, s)
        assert not s.startswith(("Bearer ", "Basic ", "token ")), "%s: scheme word in span" % name
        if len(s) >= 8:
            assert s not in residual, "%s: unmarked repeat of %r" % (name, s)


def check_negative(name, text):
    assert "«" not in text and "»" not in text, "%s: marks in negative" % name


def main():
    names = [f.__name__ for f in POSITIVE + NEGATIVE]
    assert len(POSITIVE) == 60 and len(NEGATIVE) == 60, (len(POSITIVE), len(NEGATIVE))
    assert len(names) == len(dict.fromkeys(names)), "duplicate template"
    rows = []
    for fns, pos in ((POSITIVE, True), (NEGATIVE, False)):
        for f in fns:
            name = f.__name__[2:]
            for _ in range(5):
                text = f()
                if pos:
                    check_positive(name, text)
                else:
                    check_negative(name, text)
                rows.append({"id": len(rows) + 1, "template": name, "positive": pos, "text": text})
    assert len(rows) == 600 and sum(r["positive"] for r in rows) == 300
    assert all(r["positive"] == (r["id"] <= 300) for r in rows)
    out = sys.stdout
    for r in rows:
        out.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
