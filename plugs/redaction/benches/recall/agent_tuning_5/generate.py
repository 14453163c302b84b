#!/usr/bin/env python3
"""Fifth tuning set for the redaction detector, written apart.

python3 generate.py > rows.jsonl   (deterministic; standard library only)
"""
import base64
import hashlib
import json
import string
import sys
import zlib

import random

R = random.Random(5151)

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
A62 = DG + UP + LO
B64A = UP + LO + DG + "+/"
B64U = UP + LO + DG + "-_"
HEX = "0123456789abcdef"
CROCK = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def M(s):
    return "\u00ab" + s + "\u00bb"


def pick(seq):
    return seq[R.randrange(len(seq))]


def rs(alpha, n):
    return "".join(alpha[R.randrange(len(alpha))] for _ in range(n))


def hx(n):
    return rs(HEX, n)


def rbytes(n):
    return bytes(R.randrange(256) for _ in range(n))


def b64(n):
    return base64.b64encode(rbytes(n)).decode()


def b64u(n):
    return base64.urlsafe_b64encode(rbytes(n)).decode().rstrip("=")


def enc64(s):
    return base64.b64encode(s.encode()).decode()


def uuid4():
    h = hx(32)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], pick("89ab"), h[17:20], h[20:])


def uuid7():
    h = hx(32)
    return "01%s-%s-7%s-%s%s-%s" % (h[2:8], h[8:12], h[13:16], pick("89ab"), h[17:20], h[20:])


def ulid():
    return pick("01") + rs(CROCK, 25)


def objectid():
    return "6" + pick("5678") + hx(22)


def snowflake():
    return str(R.randrange(1100000000000000000, 1340000000000000000))


def sha1():
    return hx(40)


def sha256():
    return hx(64)


def integrity():
    return "sha512-" + b64(64)


def b62(n, width):
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = A62[r] + out
    return out.rjust(width, "0")


def gh(prefix="ghp_"):
    body = rs(A62, 30)
    return prefix + body + b62(zlib.crc32(body.encode()) & 0xFFFFFFFF, 6)


def npm_tok():
    return gh("npm_")


def openai_key():
    return "sk-proj-" + rs(A62 + "-_", 64) + "T3BlbkFJ" + rs(A62 + "-_", 64)


def anthropic_key():
    return "sk-ant-api03-" + rs(B64U, 93) + "AA"


def akia(p="AKIA"):
    return p + rs(UP + "234567", 16)


def aws_secret():
    return rs(A62 + "+/", 40)


def aws_session():
    return ("IQoJb3JpZ2luX2VjE" + rs(A62, 2) + "//////////wEaCXVzLWVhc3QtMSJHMEUCI"
            + rs(B64A, 330) + "==")


def ya29():
    return "ya29.a0" + rs(A62 + "-_", 180)


def glpat():
    return "glpat-" + rs(A62 + "-_", 20)


def sendgrid():
    return "SG." + rs(B64U, 22) + "." + rs(B64U, 43)


def stripe_sk(mode="live", kind="sk"):
    return "%s_%s_51%s" % (kind, mode, rs(A62, 97))


def slack_bot():
    return "xoxb-%d-%d-%s" % (R.randrange(10**10, 10**11), R.randrange(10**12, 10**13), rs(A62, 24))


def hvs():
    return "hvs.CAESI" + rs(B64U, 86)


def azure_sp_secret():
    return rs(A62, 3) + "8Q~" + rs(A62 + "~._-", 34)


def cf_token():
    return rs(A62 + "_-", 40)


def age_secret():
    return "AGE-SECRET-KEY-1" + rs(BECH.upper(), 58)


def age_public():
    return "age1" + rs(BECH, 58)


def heroku_key():
    return uuid4()


WORDS = ["tangerine", "orbit", "velvet", "granite", "harbor", "maple", "cobalt", "falcon",
         "juniper", "lantern", "meadow", "nebula", "pepper", "quartz", "saffron", "tundra",
         "walnut", "zephyr", "copper", "ember", "glacier", "indigo", "kestrel", "marble"]


def pw(url_safe=False):
    k = R.randrange(6)
    if k == 0:
        s = "%s-%s-%s%d" % (pick(WORDS).capitalize(), pick(WORDS), pick(WORDS), R.randrange(10, 99))
        return s if url_safe else s + pick("!#%*")
    if k == 1:
        return rs(A62, R.randrange(16, 25))
    if k == 2:
        if url_safe:
            return rs(A62 + "-_~", 22)
        return rs(A62 + "!#%^*-_+=", R.randrange(14, 22))
    if k == 3:
        return hx(32)
    if k == 4:
        return rs(A62, 12) + str(R.randrange(10, 99))
    return b64u(18)


def jwt(payload, header=None):
    header = header or {"alg": "HS256", "typ": "JWT"}
    f = lambda o: base64.urlsafe_b64encode(json.dumps(o, separators=(",", ":")).encode()).decode().rstrip("=")
    return f(header) + "." + f(payload) + "." + b64u(32)


def pem_lines(der):
    b = base64.b64encode(der).decode()
    return [b[i:i + 64] for i in range(0, len(b), 64)]


def ec_key_lines():
    der = (bytes.fromhex("30770201010420") + rbytes(32)
           + bytes.fromhex("a00a06082a8648ce3d030107a144034200") + b"\x04" + rbytes(64))
    return ["-----BEGIN EC PRIVATE KEY-----"] + pem_lines(der) + ["-----END EC PRIVATE KEY-----"]


def ed25519_pkcs8_lines():
    der = bytes.fromhex("302e020100300506032b657004220420") + rbytes(32)
    return ["-----BEGIN PRIVATE KEY-----"] + pem_lines(der) + ["-----END PRIVATE KEY-----"]


def cert_lines(n=14):
    der = bytes.fromhex("308203") + rbytes(n * 48 - 3)
    return ["-----BEGIN CERTIFICATE-----"] + pem_lines(der) + ["-----END CERTIFICATE-----"]


# ---------------------------------------------------------------- context

USERS = ["dana", "mkowalski", "priya", "tomas", "aiko", "jbrennan", "leila", "oscar", "wren",
         "hugo", "nadia", "ci", "runner", "dev", "sam", "ines", "kofi", "yuki", "bart", "ana"]
HOSTS = ["mbp-dana", "devbox-03", "ws-berlin-12", "build-agent-7", "thinkpad", "codespaces-5f2a1c",
         "ip-10-0-3-41", "ubuntu-2204", "gitpod-ws", "air-m2", "staging-bastion", "dev-vm"]
PROJECTS = ["ledgerly", "harbor-api", "trailmix", "pawpal", "quill", "fieldnotes", "orbitdesk",
            "mealplan-svc", "tessellate", "kiosk-web", "shipyard", "beacon", "atlas-ingest",
            "vantage", "roostr", "inkwell", "cartograph", "pollen", "signalhub", "driftwood"]
ORGS = ["acme-labs", "northwind", "bluefin-io", "kelpworks", "tallgrass", "ferrous", "oakline",
        "pixelmint", "sundial-hq", "lumenhaus", "brightpath", "coralstack"]
DOMAINS = ["internal", "corp.example.net", "svc.cluster.local", "prod.lan", "eu-west-1.rds.amazonaws.com"]
SERVICES = ["api", "worker", "billing", "auth", "gateway", "notifier", "search", "ingest"]


class Ctx:
    def __init__(self):
        self.user = pick(USERS)
        self.host = pick(HOSTS)
        self.proj = pick(PROJECTS)
        self.org = pick(ORGS)
        self.svc = pick(SERVICES)
        self.home = "/home/" + self.user if R.random() < 0.7 else "/Users/" + self.user
        self.branch = pick(["main", "develop", "feat/billing-v2", "fix/login-loop", "chore/deps"])
        self.style = R.randrange(6)

    def prompt(self, sub=""):
        d = "~/" + ("src/" if R.random() < 0.5 else "") + self.proj + (("/" + sub) if sub else "")
        s = self.style
        if s == 0:
            return "%s@%s:%s$ " % (self.user, self.host, d)
        if s == 1:
            return "\u279c  %s git:(%s) " % (self.proj, self.branch)
        if s == 2:
            return "$ "
        if s == 3:
            return "%s on \ue0a0 %s \n\u276f " % (self.proj, self.branch)
        if s == 4:
            return "[%s@%s %s]$ " % (self.user, self.host, self.proj)
        return "%s %% " % self.proj


def date():
    return "20%d-%02d-%02d" % (R.choice([24, 25]), R.randrange(1, 13), R.randrange(1, 29))


def clock():
    return "%02d:%02d:%02d" % (R.randrange(24), R.randrange(60), R.randrange(60))


def iso(ms=True):
    s = date() + "T" + clock()
    if ms:
        s += ".%03d" % R.randrange(1000)
    return s + "Z"


def times(n):
    """n increasing (date, clock) pairs on one day."""
    d = date()
    t = R.randrange(0, 80000)
    out = []
    for _ in range(n):
        t += R.randrange(0, 90)
        out.append((d, "%02d:%02d:%02d" % (t // 3600 % 24, t // 60 % 60, t % 60)))
    return out


def shell(ctx, cmd, out, sub=""):
    """A command after a prompt line, or in an agent tool-call frame."""
    k = R.randrange(4)
    if k == 0:
        return "\u23fa Bash(%s)\n  \u23bf  %s" % (cmd, out.replace("\n", "\n     "))
    if k == 1:
        return "exec\nbash -lc '%s' in %s/%s\nsucceeded in %dms:\n%s" % (
            cmd.replace("'", "'\\''"), ctx.home, ctx.proj, R.randrange(40, 2400), out)
    return ctx.prompt(sub) + cmd + "\n" + out


def read_tool(lines, start=1):
    return "\n".join("%6d\u2192%s" % (i + start, l) for i, l in enumerate(lines))


def cat_n(lines, start=1):
    return "\n".join("%6d\t%s" % (i + start, l) for i, l in enumerate(lines))


def fileview(ctx, path, lines):
    """Show a file via cat, cat -n, head, sed -n or Claude Code's Read tool."""
    k = R.randrange(5)
    if k == 0:
        return "\u23fa Read(%s)\n  \u23bf  Read %d lines\n\n%s" % (path, len(lines), read_tool(lines))
    if k == 1:
        return shell(ctx, "cat -n " + path, cat_n(lines))
    if k == 2:
        return shell(ctx, "head -n %d %s" % (len(lines) + R.randrange(0, 20), path), "\n".join(lines))
    if k == 3:
        return shell(ctx, "sed -n '1,%dp' %s" % (len(lines), path), "\n".join(lines))
    return shell(ctx, "cat " + path, "\n".join(lines))


# ================================================================ positives

POS = []
NEG = []


def pos(fn):
    POS.append((fn.__name__, fn))
    return fn


def neg(fn):
    NEG.append((fn.__name__, fn))
    return fn


def dbhost(ctx):
    return pick(["db", "postgres", "localhost", "127.0.0.1", "%s-db.%s" % (ctx.proj, pick(DOMAINS)),
                 "pg-%s.%s" % (ctx.svc, pick(DOMAINS))])


@pos
def envrc_export_direnv(ctx):
    p1, ak, sk = pw(True), akia(), aws_secret()
    oa = openai_key()
    lines = ["# direnv: loaded automatically on cd", "export AWS_PROFILE=%s-dev" % ctx.org,
             "export AWS_ACCESS_KEY_ID=%s" % ak, "export AWS_SECRET_ACCESS_KEY=%s" % M(sk),
             "export DATABASE_URL=postgres://%s:%s@localhost:5432/%s_dev" % (ctx.proj.replace("-", "_"), M(p1), ctx.proj.replace("-", "_")),
             "export OPENAI_API_KEY=%s" % M(oa), "export LOG_LEVEL=debug", "PATH_add bin", "layout python3"]
    out = fileview(ctx, ".envrc", lines)
    if R.random() < 0.5:
        out += "\n" + ctx.prompt() + "direnv allow\ndirenv: loading ~/src/%s/.envrc\ndirenv: export +AWS_ACCESS_KEY_ID +AWS_PROFILE +AWS_SECRET_ACCESS_KEY +DATABASE_URL +LOG_LEVEL +OPENAI_API_KEY +VIRTUAL_ENV ~PATH" % ctx.proj
    return out


@pos
def env_production_head(ctx):
    stripe = stripe_sk("live")
    sg = sendgrid()
    dsn_key = hx(32)
    p = pw(True)
    lines = ["NODE_ENV=production", "PORT=8080", "APP_URL=https://%s.%s.com" % (ctx.proj, ctx.org.replace("-", "")),
             "DATABASE_URL=\"mysql://%s:%s@%s:3306/%s\"" % (ctx.svc, M(p), dbhost(ctx), ctx.proj.replace("-", "_")),
             "STRIPE_SECRET_KEY=%s" % M(stripe), "STRIPE_PUBLISHABLE_KEY=pk_live_51%s" % rs(A62, 97),
             "SENDGRID_API_KEY=%s" % M(sg), "SENTRY_DSN=https://%s@o%d.ingest.sentry.io/%d" % (M(dsn_key), R.randrange(100000, 999999), R.randrange(1000000, 9999999)),
             "FEATURE_NEW_CHECKOUT=true"]
    name = pick([".env.production", ".env.production.local", "apps/web/.env.production"])
    return shell(ctx, "head -n 20 %s" % name, "\n".join(lines))


@pos
def env_local_read_tool(ctx):
    sup = jwt({"iss": "supabase", "ref": rs(LO, 20), "role": "service_role", "iat": 1712000000 + R.randrange(10**7), "exp": 2027000000 + R.randrange(10**7)})
    anon = jwt({"iss": "supabase", "ref": rs(LO, 20), "role": "anon", "iat": 1712000000, "exp": 2027000000})
    ant = anthropic_key()
    secret = b64(32)
    lines = ["# Local overrides - DO NOT COMMIT", "NEXT_PUBLIC_SUPABASE_URL=https://%s.supabase.co" % rs(LO, 20),
             "NEXT_PUBLIC_SUPABASE_ANON_KEY=%s" % anon, "SUPABASE_SERVICE_ROLE_KEY=%s" % M(sup),
             "ANTHROPIC_API_KEY=%s" % M(ant), "NEXTAUTH_URL=http://localhost:3000", "NEXTAUTH_SECRET=%s" % M(secret), ""]
    return "\u23fa Read(.env.local)\n  \u23bf  Read %d lines\n\n%s" % (len(lines), read_tool(lines))


@pos
def docker_compose_config_json(ctx):
    p, rp = pw(True), pw(True)
    mk = hx(32)
    doc = {"name": ctx.proj, "services": {
        "app": {"build": {"context": "/workspace/" + ctx.proj, "dockerfile": "Dockerfile"},
                "environment": {"DATABASE_URL": "postgresql://app:%s@db:5432/app" % M(p), "REDIS_URL": "redis://:%s@cache:6379/0" % M(rp),
                                "RAILS_MASTER_KEY": M(mk), "RAILS_ENV": "production"},
                "networks": {"default": None}, "ports": [{"mode": "ingress", "target": 3000, "published": "3000", "protocol": "tcp"}]},
        "db": {"image": "postgres:16-alpine", "environment": {"POSTGRES_PASSWORD": M(p), "POSTGRES_USER": "app"}},
        "cache": {"image": "redis:7", "command": ["redis-server", "--requirepass", M(rp)]}}}
    return shell(ctx, "docker compose config --format json", json.dumps(doc, indent=2, ensure_ascii=False))


@pos
def kubectl_secret_yaml_b64(ctx):
    user = pick(["app", "svc_" + ctx.svc, "postgres"])
    p = pw(True)
    extra = pick([("STRIPE_API_KEY", stripe_sk("live", "rk")), ("JWT_SIGNING_KEY", b64(48)), ("SLACK_BOT_TOKEN", slack_bot())])
    name = "%s-%s-env" % (ctx.proj, ctx.svc)
    lines = ["apiVersion: v1", "data:", "  DB_PASSWORD: %s" % M(enc64(p)), "  DB_USER: %s" % enc64(user),
             "  %s: %s" % (extra[0], M(enc64(extra[1]))), "kind: Secret", "metadata:",
             "  annotations:", "    kubectl.kubernetes.io/last-applied-configuration: |", "      {}",
             "  creationTimestamp: \"%s\"" % iso(False), "  name: %s" % name, "  namespace: %s" % pick(["default", "prod", ctx.proj]),
             "  resourceVersion: \"%d\"" % R.randrange(10**5, 10**8), "  uid: %s" % uuid4(), "type: Opaque"]
    out = shell(ctx, "kubectl get secret %s -o yaml" % name, "\n".join(lines))
    if R.random() < 0.5:
        out += "\n" + ctx.prompt() + "kubectl get secret %s -o jsonpath='{.data.DB_PASSWORD}' | base64 -d\n%s" % (name, M(p))
    return out


@pos
def kubectl_describe_deploy_env(ctx):
    p = pw(True)
    tok = gh("ghs_") if R.random() < 0.5 else glpat()
    name = "%s-%s" % (ctx.proj, ctx.svc)
    out = """Name:                   {n}
Namespace:              {ns}
CreationTimestamp:      {d} {c} +0000
Labels:                 app.kubernetes.io/name={n}
Selector:               app={n}
Replicas:               2 desired | 2 updated | 2 total | 2 available | 0 unavailable
StrategyType:           RollingUpdate
Pod Template:
  Labels:  app={n}
  Containers:
   {svc}:
    Image:      ghcr.io/{org}/{proj}:{ver}
    Port:       8080/TCP
    Environment:
      LOG_LEVEL:           info
      DB_HOST:             {dbh}
      DB_PASSWORD:         {p}
      GIT_SYNC_TOKEN:      {tok}
      API_KEY:             <set to the key 'api-key' in secret '{n}-keys'>  Optional: false
    Mounts:                <none>
Events:          <none>""".format(n=name, ns=pick(["prod", "staging", "default"]), d="%s, %02d %s 2025" % (pick(["Mon", "Tue", "Thu"]), R.randrange(1, 28), pick(["Jan", "Apr", "Sep"])), c=clock(), svc=ctx.svc,
                                  org=ctx.org, proj=ctx.proj, ver="v%d.%d.%d" % (R.randrange(3), R.randrange(20), R.randrange(10)),
                                  dbh=dbhost(ctx), p=M(p), tok=M(tok))
    return shell(ctx, "kubectl describe deploy %s -n %s" % (name, "prod"), out)


@pos
def fastapi_settings_startup_log(ctx):
    p = pw(True)
    k = openai_key() if R.random() < 0.5 else anthropic_key()
    jwt_s = hx(64)
    t = date() + " " + clock()
    out = """INFO:     Will watch for changes in these directories: ['/app']
INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)
INFO:     Started reloader process [{pid}] using WatchFiles
INFO:     Started server process [{pid2}]
INFO:     Waiting for application startup.
{t},{ms} DEBUG app.config: loaded settings: Settings(env='dev', database_url='postgresql+asyncpg://{u}:{p}@{h}:5432/{db}', llm_api_key='{k}', jwt_secret='{js}', cors_origins=['http://localhost:5173'])
INFO:     Application startup complete.""".format(pid=R.randrange(1000, 60000), pid2=R.randrange(1000, 60000), t=t, ms=R.randrange(1000),
                                               u=ctx.svc, p=M(p), h=dbhost(ctx), db=ctx.proj.replace("-", "_"), k=M(k), js=M(jwt_s))
    return shell(ctx, "uv run uvicorn app.main:app --reload --log-level debug", out)


@pos
def go_gorm_dsn_panic(ctx):
    p = pw(False).replace(" ", "")
    h = dbhost(ctx)
    dsn = "host=%s user=%s password=%s dbname=%s port=5432 sslmode=disable" % (h, ctx.svc, M(p), ctx.proj.replace("-", "_"))
    out = """
{d} {c} /app/internal/db/db.go:{ln}
[error] failed to initialize database, got error failed to connect to `host={h2} user={u} database={db}`: dial error (dial tcp 10.0.{a}.{b}:5432: connect: connection refused)
panic: db: open "{dsn}": failed to connect

goroutine 1 [running]:
main.main()
	/app/cmd/{svc}/main.go:{ln2} +0x{off}
exit status 2""".format(d=date().replace("-", "/"), c=clock(), ln=R.randrange(20, 90), h2=h, u=ctx.svc,
                        db=ctx.proj.replace("-", "_"), a=R.randrange(255), b=R.randrange(255), dsn=dsn, svc=ctx.svc,
                        ln2=R.randrange(20, 200), off=hx(3))
    return shell(ctx, "go run ./cmd/%s" % ctx.svc, out.lstrip("\n"))


@pos
def werkzeug_console_config(ctx):
    sk = hx(48) if R.random() < 0.5 else b64u(32)
    p = pw(True)
    mp = pw(False)
    out = """>>> app.config['SECRET_KEY']
'{sk}'
>>> app.config['SQLALCHEMY_DATABASE_URI']
'postgresql://{u}:{p}@{h}/{db}'
>>> {{k: v for k, v in app.config.items() if k.startswith('MAIL_')}}
{{'MAIL_SERVER': 'smtp.{dom}', 'MAIL_PORT': 587, 'MAIL_USE_TLS': True, 'MAIL_USERNAME': 'noreply@{dom}', 'MAIL_PASSWORD': '{mp}'}}""".format(
        sk=M(sk), u=ctx.user, p=M(p), h=dbhost(ctx), db=ctx.proj.replace("-", "_"), dom=ctx.org + ".com", mp=M(mp.replace("'", "")))
    head = "%s flask --app %s shell\nPython 3.12.%d (main, %s) [GCC 12.2.0] on linux\nApp: %s\nInstance: /srv/%s/instance\n" % (
        ctx.prompt().rstrip(), ctx.proj, R.randrange(9), date(), ctx.proj, ctx.proj)
    return head + out


@pos
def gitlab_ci_job_log_echo(ctx):
    tok = pick([glpat(), npm_tok(), gh("ghp_")])
    var = pick(["DEPLOY_TOKEN", "REGISTRY_TOKEN", "NPM_TOKEN", "GH_TOKEN"])
    jid = R.randrange(10**9, 10**10)
    out = """Running with gitlab-runner 17.{m}.{p} ({sha})
  on {org}-docker-runner {rid}, system ID: s_{sid}
Preparing the "docker" executor
Using docker image sha256:{img} for node:20-bookworm ...
Getting source from Git repository
Fetching changes with git depth set to 20...
Checking out {sha8} as detached HEAD (ref is {br})...
Executing "step_script" stage of the job script
$ echo "debug: $CI_COMMIT_REF_NAME $CI_PIPELINE_ID"
debug: {br} {pid}
$ echo "using token ${var}"
using token {tok}
$ npm publish --registry https://gitlab.com/api/v4/projects/{proj}/packages/npm/
npm notice Publishing to https://gitlab.com/api/v4/projects/{proj}/packages/npm/ with tag latest and default access
Cleaning up project directory and file based variables
Job succeeded""".format(m=R.randrange(12), p=R.randrange(4), sha=hx(8), org=ctx.org, rid=rs(A62, 8), sid=rs(LO + DG, 26),
                        img=sha256(), sha8=hx(8), br=ctx.branch, pid=R.randrange(10**8, 10**9), var=var, tok=M(tok),
                        proj=R.randrange(10**7, 10**8))
    return "job %d log (glab ci trace):\n%s" % (jid, out)


@pos
def git_log_p_config_commit(ctx):
    k = pick([("OPENAI_API_KEY", openai_key()), ("MAPS_SERVER_KEY", "AIza" + rs(A62 + "-_", 35)), ("TWILIO_AUTH_TOKEN", hx(32))])
    sha = sha1()
    out = """commit {sha}
Author: {u} <{u}@{org}.dev>
Date:   {wd} {mon} {dd} {c} 20{yy} +0{tz}00

    wip: local config for demo

diff --git a/config/local.py b/config/local.py
new file mode 100644
index 0000000..{i1}
--- /dev/null
+++ b/config/local.py
@@ -0,0 +1,6 @@
+from .base import *  # noqa
+
+DEBUG = True
+{kn} = "{kv}"
+ALLOWED_HOSTS = ["*"]
+CACHE_TTL = 30""".format(sha=sha, u=ctx.user, org=ctx.org, wd=pick(["Mon", "Tue", "Wed", "Thu", "Fri"]),
                          mon=pick(["Jan", "Mar", "Jun", "Sep", "Nov"]), dd=R.randrange(1, 29), c=clock(), yy=pick([24, 25]),
                          tz=R.randrange(10), i1=hx(7), kn=k[0], kv=M(k[1]))
    return shell(ctx, "git log -p -n 1 --follow -- config/local.py", out)


@pos
def npmrc_home_cat(ctx):
    t1 = npm_tok()
    t2 = gh("ghp_")
    lines = ["registry=https://registry.npmjs.org/", "//registry.npmjs.org/:_authToken=%s" % M(t1),
             "@%s:registry=https://npm.pkg.github.com" % ctx.org, "//npm.pkg.github.com/:_authToken=%s" % M(t2),
             "save-exact=true", "fund=false"]
    if R.random() < 0.4:
        lines = lines[:4]
    return fileview(ctx, pick(["~/.npmrc", ".npmrc", "packages/ui/.npmrc"]), lines)


@pos
def aws_credentials_profiles(ctx):
    lines = []
    for prof in ["default", ctx.org + "-prod", "sandbox"][:R.randrange(2, 4)]:
        lines += ["[%s]" % prof, "aws_access_key_id = %s" % akia(), "aws_secret_access_key = %s" % M(aws_secret())]
        if prof == "sandbox":
            lines[-2] = "aws_access_key_id = %s" % akia("ASIA")
            lines.append("aws_session_token = %s" % M(aws_session()))
        lines.append("")
    return fileview(ctx, "~/.aws/credentials", lines[:-1])


@pos
def podman_auth_json(ctx):
    u1, p1 = ctx.user, pw(False)
    u2, p2 = ctx.org + "+ci", rs(UP + DG, 64)
    doc = {"auths": {"quay.io": {"auth": M(enc64(u1 + ":" + p1))},
                     "registry.%s.com:5000" % ctx.org.replace("-", ""): {"auth": M(enc64(u2 + ":" + p2))}}}
    path = pick(["${XDG_RUNTIME_DIR}/containers/auth.json", "/run/user/1000/containers/auth.json", "~/.config/containers/auth.json"])
    return shell(ctx, "cat " + path, json.dumps(doc, indent="\t", ensure_ascii=False))


@pos
def gcloud_print_access_token(ctx):
    t = ya29()
    k = R.randrange(3)
    if k == 0:
        return shell(ctx, "gcloud auth print-access-token", M(t))
    if k == 1:
        return shell(ctx, "gcloud auth application-default print-access-token", M(t))
    proj = "%s-%d" % (ctx.proj, R.randrange(100000, 999999))
    return shell(ctx, "TOKEN=$(gcloud auth print-access-token); echo $TOKEN; curl -s -H \"Authorization: Bearer $TOKEN\" https://cloudresourcemanager.googleapis.com/v1/projects/%s | jq .lifecycleState" % proj,
                 M(t) + "\n\"ACTIVE\"")


@pos
def az_ad_sp_create_for_rbac(ctx):
    sec = azure_sp_secret()
    doc = {"appId": uuid4(), "displayName": "%s-github-deployer" % ctx.proj, "password": M(sec), "tenant": uuid4()}
    warn = "Creating '%s' role assignment under scope '/subscriptions/%s/resourceGroups/rg-%s'\nThe output includes credentials that you must protect. Be sure that you do not include these credentials in your code or check the credentials into your source control. For more information, see https://aka.ms/azadsp-cli" % (
        pick(["Contributor", "Reader"]), uuid4(), ctx.proj)
    return shell(ctx, "az ad sp create-for-rbac --name %s-github-deployer --role contributor --scopes /subscriptions/$SUB/resourceGroups/rg-%s" % (ctx.proj, ctx.proj),
                 warn + "\n" + json.dumps(doc, indent=2, ensure_ascii=False))


@pos
def heroku_auth_token(ctx):
    t = heroku_key()
    k = R.randrange(2)
    if k == 0:
        out = " \u203a   Warning: token will expire %s\n \u203a   Use heroku authorizations:create to generate a long-term token\n%s" % (date(), M(t))
        return shell(ctx, "heroku auth:token", out)
    return shell(ctx, "heroku authorizations:create -d \"%s ci\" --json" % ctx.proj,
                 json.dumps({"access_token": {"expires_in": None, "id": uuid4(), "token": M(t)}, "created_at": iso(False),
                             "description": "%s ci" % ctx.proj, "id": uuid4(), "scope": ["global"]}, indent=2, ensure_ascii=False))


@pos
def gh_auth_token_cmd(ctx):
    t = gh("gho_")
    k = R.randrange(3)
    if k == 0:
        return shell(ctx, "gh auth token", M(t))
    if k == 1:
        return shell(ctx, "gh auth token --hostname github.com --user %s" % ctx.user, M(t))
    return shell(ctx, "echo \"GH_TOKEN=$(gh auth token)\" >> .env.ci && tail -n 2 .env.ci",
                 "GITHUB_ORG=%s\nGH_TOKEN=%s" % (ctx.org, M(t)))


@pos
def op_read_output(ctx):
    item = pick(["Postgres prod", "Stripe", "OpenAI", "Sendgrid", "deploy-bot"])
    v = {"Postgres prod": pw(False), "Stripe": stripe_sk("live"), "OpenAI": openai_key(), "Sendgrid": sendgrid(), "deploy-bot": gh("ghp_")}[item]
    vault = pick(["Engineering", "Private", ctx.org, "Infra"])
    field = pick(["credential", "password", "api key"])
    cmd = "op read \"op://%s/%s/%s\"" % (vault, item, field)
    if R.random() < 0.5:
        return shell(ctx, cmd, M(v))
    return shell(ctx, "op run --env-file=.env.tpl --no-masking -- printenv SECRET_VALUE", M(v))


@pos
def vault_kv_get_json(ctx):
    path = "secret/%s/%s" % (ctx.proj, pick(["prod", "staging"]))
    data = {"db_password": M(pw(False)), "db_user": ctx.svc, "stripe_key": M(stripe_sk("live", "rk"))}
    if R.random() < 0.5:
        data["slack_bot_token"] = M(slack_bot())
    doc = {"request_id": uuid4(), "lease_id": "", "lease_duration": 0, "renewable": False,
           "data": {"data": data, "metadata": {"created_time": iso(False), "custom_metadata": None, "deletion_time": "",
                                               "destroyed": False, "version": R.randrange(1, 14)}}, "warnings": None, "mount_type": "kv"}
    return shell(ctx, "vault kv get -format=json %s" % path, json.dumps(doc, indent=2, ensure_ascii=False))


@pos
def sts_assume_role_json(ctx):
    acct = str(R.randrange(10**11, 10**12))
    role = pick(["deploy", "ReadOnly", "terraform-apply", "ci-%s" % ctx.proj])
    doc = {"Credentials": {"AccessKeyId": akia("ASIA"), "SecretAccessKey": M(aws_secret()), "SessionToken": M(aws_session()),
                           "Expiration": iso(False).replace("Z", "+00:00")},
           "AssumedRoleUser": {"AssumedRoleId": "AROA%s:%s" % (rs(UP + "234567", 17), ctx.user),
                               "Arn": "arn:aws:sts::%s:assumed-role/%s/%s" % (acct, role, ctx.user)}}
    return shell(ctx, "aws sts assume-role --role-arn arn:aws:iam::%s:role/%s --role-session-name %s" % (acct, role, ctx.user),
                 json.dumps(doc, indent=4, ensure_ascii=False))


@pos
def openai_ts_client_source(ctx):
    k = openai_key()
    lines = ["import OpenAI from \"openai\";", "import { z } from \"zod\";", "",
             "// TODO: move to env before merging", "const client = new OpenAI({",
             "  apiKey: \"%s\"," % M(k), "  organization: \"org-%s\"," % rs(A62, 24), "  maxRetries: 2,", "});", "",
             "export async function summarize(text: string) {", "  const res = await client.chat.completions.create({",
             "    model: \"%s\"," % pick(["gpt-4o-mini", "gpt-4.1", "o4-mini"]), "    messages: [{ role: \"user\", content: text }],", "  });",
             "  return res.choices[0].message.content;", "}"]
    return fileview(ctx, "src/lib/%s.ts" % pick(["llm", "openai", "summarize"]), lines)


@pos
def anthropic_go_source(ctx):
    k = anthropic_key()
    lines = ["package llm", "", "import (", "\t\"context\"", "", "\t\"github.com/anthropics/anthropic-sdk-go\"",
             "\t\"github.com/anthropics/anthropic-sdk-go/option\"", ")", "",
             "const defaultKey = \"%s\" // local testing only" % M(k), "",
             "func NewClient() anthropic.Client {", "\treturn anthropic.NewClient(option.WithAPIKey(defaultKey))", "}", "",
             "func Ask(ctx context.Context, c anthropic.Client, q string) (string, error) {",
             "\tmsg, err := c.Messages.New(ctx, anthropic.MessageNewParams{", "\t\tModel:     anthropic.ModelClaudeSonnet4_0,",
             "\t\tMaxTokens: 1024,"]
    start = R.randrange(1, 3)
    if R.random() < 0.5:
        return "\u23fa Read(internal/llm/client.go)\n  \u23bf  Read %d lines\n\n%s" % (len(lines), read_tool(lines))
    return shell(ctx, "rg -n 'defaultKey' internal/", "internal/llm/client.go:%d:const defaultKey = \"%s\" // local testing only\ninternal/llm/client.go:%d:\treturn anthropic.NewClient(option.WithAPIKey(defaultKey))" % (9 + start, M(k), 12 + start))


@pos
def litellm_config_yaml(ctx):
    o, a, mk = openai_key(), anthropic_key(), "sk-" + rs(A62, 22)
    az = hx(32)
    lines = ["model_list:", "  - model_name: gpt-4o", "    litellm_params:", "      model: openai/gpt-4o", "      api_key: %s" % M(o),
             "  - model_name: claude-sonnet", "    litellm_params:", "      model: anthropic/claude-sonnet-4-20250514", "      api_key: \"%s\"" % M(a),
             "  - model_name: azure-gpt", "    litellm_params:", "      model: azure/gpt-4o-prod", "      api_base: https://%s-oai.openai.azure.com/" % ctx.org,
             "      api_key: %s" % M(az), "      api_version: \"2024-08-01-preview\"", "", "general_settings:", "  master_key: %s" % M(mk),
             "  database_url: \"postgresql://litellm:%s@%s:5432/litellm\"" % (M(pw(True)), dbhost(ctx)), "", "litellm_settings:", "  drop_params: true"]
    return fileview(ctx, pick(["litellm/config.yaml", "proxy_config.yaml", "deploy/litellm.yaml"]), lines)


@pos
def tfvars_cat(ctx):
    lines = ["region          = \"%s\"" % pick(["us-east-1", "eu-central-1", "ap-southeast-2"]), "environment     = \"%s\"" % pick(["prod", "staging"]),
             "instance_count  = %d" % R.randrange(1, 6), "db_username     = \"%s\"" % ctx.svc, "db_password     = \"%s\"" % M(pw(False)),
             "cloudflare_api_token = \"%s\"" % M(cf_token()), "datadog_api_key      = \"%s\"" % M(hx(32)),
             "datadog_app_key      = \"%s\"" % M(hx(40)), "allowed_cidrs   = [\"10.0.0.0/8\"]"]
    return fileview(ctx, pick(["terraform.tfvars", "envs/prod/terraform.tfvars", "secrets.auto.tfvars"]), lines)


@pos
def ansible_inventory_ini(ctx):
    p1, p2 = pw(False), pw(False)
    lines = ["[web]"]
    for i in range(R.randrange(2, 4)):
        lines.append("web%02d ansible_host=10.%d.%d.%d" % (i + 1, R.randrange(256), R.randrange(256), R.randrange(1, 255)))
    lines += ["", "[db]", "db01 ansible_host=10.%d.%d.%d ansible_user=postgres ansible_password=%s" % (R.randrange(256), R.randrange(256), R.randrange(1, 255), M(p2)),
              "", "[all:vars]", "ansible_user=%s" % ctx.user, "ansible_password=%s" % M(p1), "ansible_become_pass=%s" % M(p1),
              "ansible_python_interpreter=/usr/bin/python3"]
    return fileview(ctx, pick(["inventory/hosts.ini", "hosts", "ansible/inventories/prod/hosts"]), lines)


@pos
def ec_key_in_repo_cat(ctx):
    lines = ec_key_lines() if R.random() < 0.6 else ed25519_pkcs8_lines()
    path = pick(["certs/server.key", "deploy/tls/%s.key" % ctx.proj, "config/jwt/private.pem", "keys/signing.pem"])
    k = R.randrange(4) % 3
    if k == 0:
        return ctx.prompt() + "cat " + path + "\n" + M("\n".join(lines))
    if k == 1:
        ml = [lines[0]] + [M(l) for l in lines[1:-1]] + [lines[-1]]
        return "\u23fa Read(%s)\n  \u23bf  Read %d lines\n\n%s" % (path, len(ml), read_tool(ml))
    ml = [lines[0]] + [M(l) for l in lines[1:-1]] + [lines[-1]]
    return shell(ctx, "cat -n " + path, cat_n(ml))


@pos
def psql_connection_string_cmd(ctx):
    p = pw(True)
    h = pick(["ep-%s-%s-%s.us-east-2.aws.neon.tech" % (pick(WORDS), pick(WORDS), rs(LO + DG, 8)), "%s.%s" % (ctx.proj, pick(DOMAINS)), "localhost"])
    db = ctx.proj.replace("-", "_")
    cmd = "psql \"postgresql://%s:%s@%s:5432/%s?sslmode=require\" -c '\\dt'" % (ctx.svc, M(p), h, db)
    out = "            List of relations\n Schema |      Name       | Type  | Owner\n--------+-----------------+-------+-------\n"
    for t in ["accounts", "invoices", "schema_migrations", "users"][:R.randrange(2, 5)]:
        out += " public | %-15s | table | %s\n" % (t, ctx.svc)
    return shell(ctx, cmd, out.rstrip("\n"))


@pos
def redis_cli_a_warning(ctx):
    p = pw(True)
    h = pick(["127.0.0.1", "redis", "cache.%s" % pick(DOMAINS), "%s-redis-master" % ctx.proj])
    out = "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\n"
    k = R.randrange(2)
    if k == 0:
        cmd = "redis-cli -h %s -p 6379 -a %s INFO keyspace" % (h, M(p))
        out += "# Keyspace\ndb0:keys=%d,expires=%d,avg_ttl=%d,subexpiry=0" % (R.randrange(100, 99999), R.randrange(100), R.randrange(10**6))
    else:
        cmd = "redis-cli -u redis://default:%s@%s:6379/0 DBSIZE" % (M(p), h)
        out += "(integer) %d" % R.randrange(10, 50000)
    return shell(ctx, cmd, out)


@pos
def mongodump_uri_cmd(ctx):
    p = pw(True)
    cl = "cluster0.%s.mongodb.net" % rs(LO + DG, 5)
    db = ctx.proj.replace("-", "")
    cmd = "mongodump --uri \"mongodb+srv://%s:%s@%s/%s\" --out ./dump" % (ctx.user, M(p), cl, db)
    out = ""
    ts = times(6)
    for i, c in enumerate(["users", "orders", "sessions"]):
        out += "%sT%s.%03d+0000\twriting %s.%s to dump/%s/%s.bson\n" % (ts[i][0], ts[i][1], R.randrange(1000), db, c, db, c)
    for i, c in enumerate(["users", "orders", "sessions"]):
        out += "%sT%s.%03d+0000\tdone dumping %s.%s (%d documents)\n" % (ts[i + 3][0], ts[i + 3][1], R.randrange(1000), db, c, R.randrange(10, 90000))
    return shell(ctx, cmd, out.rstrip("\n"))


@pos
def google_chat_webhook_curl(ctx):
    space = "AAAA" + rs(A62 + "-_", 7)
    tok = rs(A62 + "-_", 43) + "%3D"
    url = "https://chat.googleapis.com/v1/spaces/%s/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token=%s" % (space, M(tok))
    cmd = "curl -s -X POST -H 'Content-Type: application/json' '%s' -d '{\"text\": \"deploy %s finished\"}'" % (url, ctx.proj)
    out = json.dumps({"name": "spaces/%s/messages/%s.%s" % (space, rs(A62 + "_", 11), rs(A62 + "_", 11)), "sender": {"name": "users/%d" % R.randrange(10**20, 10**21), "type": "BOT"},
                      "text": "deploy %s finished" % ctx.proj, "createTime": iso(False)}, indent=2)
    return shell(ctx, cmd, out)


@pos
def pytest_conftest_vendor_keys(ctx):
    sk = stripe_sk("test")
    tw = hx(32)
    sg = sendgrid()
    lines = ["import os", "import pytest", "", "", "@pytest.fixture(autouse=True)", "def vendor_env(monkeypatch):",
             "    monkeypatch.setenv(\"STRIPE_API_KEY\", \"%s\")" % M(sk),
             "    monkeypatch.setenv(\"TWILIO_ACCOUNT_SID\", \"AC%s\")" % hx(32),
             "    monkeypatch.setenv(\"TWILIO_AUTH_TOKEN\", \"%s\")" % M(tw),
             "    monkeypatch.setenv(\"SENDGRID_API_KEY\", \"%s\")" % M(sg), "    yield"]
    return fileview(ctx, "tests/conftest.py", lines)


@pos
def docker_run_history_grep(ctx):
    p = pw(True)
    mp = pw(True)
    n = sorted(R.randrange(100, 2000) for _ in range(3)) + [R.randrange(2000, 3000)]
    lines = [" %4d  docker run -d --name pg -e POSTGRES_PASSWORD=%s -p 5432:5432 postgres:16" % (n[0], M(p)),
             " %4d  docker run --rm -e MINIO_ROOT_USER=admin -e MINIO_ROOT_PASSWORD=%s -p 9000:9000 minio/minio server /data" % (n[1], M(mp)),
             " %4d  docker run --rm -it %s/%s:dev" % (n[2], ctx.org, ctx.proj),
             " %4d  history | grep 'docker run'" % n[3]]
    return shell(ctx, "history | grep 'docker run'", "\n".join(lines))


@pos
def kubectl_create_secret_cmd(ctx):
    p = pw(True)
    k = pick([openai_key(), sendgrid(), hx(40)])
    name = "%s-credentials" % ctx.svc
    cmd = "kubectl create secret generic %s -n %s --from-literal=DB_PASSWORD='%s' --from-literal=API_KEY='%s' --dry-run=client -o yaml | kubectl apply -f -" % (
        name, ctx.proj, M(p), M(k))
    return shell(ctx, cmd, "secret/%s created" % name)


@pos
def helm_get_values_all(ctx):
    p, rp = pw(True), pw(True)
    rel = "%s-%s" % (ctx.proj, pick(["pg", "db", "postgresql"]))
    out = """COMPUTED VALUES:
architecture: standalone
auth:
  database: {db}
  enablePostgresUser: true
  password: {p}
  postgresPassword: {rp}
  replicationPassword: ""
  username: {u}
image:
  registry: docker.io
  repository: bitnami/postgresql
  tag: 16.4.0-debian-12-r{r}
primary:
  persistence:
    size: 20Gi""".format(db=ctx.proj.replace("-", "_"), p=M(p), rp=M(rp), u=ctx.svc, r=R.randrange(30))
    return shell(ctx, "helm get values %s -n data -a" % rel, out)


@pos
def argocd_initial_password(ctx):
    p = rs(A62 + "-", 16)
    out = "%s\n\n This password must be only used for first time login. We strongly recommend you update the password using `argocd account update-password`." % M(p)
    if R.random() < 0.5:
        return shell(ctx, "argocd admin initial-password -n argocd", out)
    return shell(ctx, "kubectl -n argocd get secret argocd-initial-admin-secret -o jsonpath=\"{.data.password}\" | base64 -d; echo", M(p))


@pos
def gitlab_initial_root_password(ctx):
    p = b64(32)
    out = """# WARNING: This value is valid only in the following conditions
#          1. If provided manually (either via `GITLAB_ROOT_PASSWORD` environment variable or via `gitlab_rails['initial_root_password']` setting in `gitlab.rb`, it was provided before database was seeded for the first time (usually, the first reconfigure run).
#          2. Password hasn't been changed manually, either via UI or via command line.
#
#          If the password shown here doesn't work, you must reset the admin password following https://docs.gitlab.com/ee/security/reset_user_password.html#reset-your-root-password.

Password: {p}

# NOTE: This file will be automatically deleted in the first reconfigure run after 24 hours.""".format(p=M(p))
    return shell(ctx, "docker exec -it gitlab cat /etc/gitlab/initial_root_password" if R.random() < 0.5 else "sudo cat /etc/gitlab/initial_root_password", out)


@pos
def wrangler_toml_vars(ctx):
    lines = ["name = \"%s-worker\"" % ctx.proj, "main = \"src/index.ts\"", "compatibility_date = \"%s\"" % date(), "",
             "[vars]", "ENVIRONMENT = \"production\"", "CF_API_TOKEN = \"%s\"" % M(cf_token()),
             "RESEND_API_KEY = \"re_%s_%s\"" % (rs(A62, 8), rs(A62, 24)), "", "[[kv_namespaces]]", "binding = \"CACHE\"",
             "id = \"%s\"" % hx(32)]
    lines[7] = "RESEND_API_KEY = \"%s\"" % M(lines[7].split("\"")[1])
    return fileview(ctx, "wrangler.toml", lines)


@pos
def rails_master_key_cat(ctx):
    k = hx(32)
    if R.random() < 0.5:
        return shell(ctx, "cat config/master.key", M(k))
    return shell(ctx, "cat config/credentials/production.key; echo; ls -la config/credentials/",
                 "%s\ntotal 16\ndrwxr-xr-x  4 %s staff  128 %s .\n-rw-------  1 %s staff   32 %s production.key\n-rw-r--r--  1 %s staff  496 %s production.yml.enc" % (
                     M(k), ctx.user, date(), ctx.user, date(), ctx.user, date()))


@pos
def pulumi_config_show_secrets(ctx):
    rows = [("aws:region", pick(["us-west-2", "eu-west-1"]), False), ("%s:dbPassword" % ctx.proj, pw(False), True),
            ("%s:githubToken" % ctx.proj, gh("ghp_"), True), ("%s:instanceType" % ctx.proj, "t3.medium", False),
            ("%s:stripeKey" % ctx.proj, stripe_sk("live", "rk"), True)]
    out = "KEY" + " " * 28 + "VALUE\n"
    for k, v, sec in rows:
        out += "%-31s%s\n" % (k, M(v) if sec else v)
    return shell(ctx, "pulumi config --show-secrets -s %s/%s/prod" % (ctx.org, ctx.proj), out.rstrip("\n"))


@pos
def doppler_secrets_download(ctx):
    p = pw(True)
    vals = [("DATABASE_URL", "postgres://%s:%s@%s:5432/%s" % (ctx.svc, M(p), dbhost(ctx), ctx.proj.replace("-", "_"))),
            ("DOPPLER_CONFIG", "dev"), ("DOPPLER_ENVIRONMENT", "dev"), ("DOPPLER_PROJECT", ctx.proj),
            ("OPENAI_API_KEY", M(openai_key())), ("POSTHOG_KEY", "phc_" + rs(A62, 43)), ("SESSION_SECRET", M(hx(64)))]
    if R.random() < 0.5:
        out = "\n".join("%s=\"%s\"" % kv for kv in vals)
        return shell(ctx, "doppler secrets download --no-file --format env", out)
    out = json.dumps(dict(vals), indent=2, ensure_ascii=False)
    return shell(ctx, "doppler secrets download --no-file --format json", out)


@pos
def infisical_export(ctx):
    vals = [("JWT_SECRET", M(b64(48))), ("MAILGUN_API_KEY", M(hx(32) + "-" + hx(8) + "-" + hx(8))),
            ("NODE_ENV", "development"), ("REDIS_URL", "rediss://default:%s@%s.upstash.io:6379" % (M(rs(A62, 34)), "-".join([pick(WORDS), pick(WORDS)]) + "-%d" % R.randrange(10000, 99999)))]
    out = "\n".join("%s='%s'" % kv for kv in vals)
    return shell(ctx, "infisical export --env=dev --format=dotenv", out)


@pos
def agent_bash_curl_bearer(ctx):
    k = R.randrange(3)
    if k == 0:
        t = openai_key()
        cmd = "curl -s https://api.openai.com/v1/models -H \"Authorization: Bearer %s\" | jq '.data[].id' | head -3" % M(t)
        out = "\"gpt-4o-mini\"\n\"gpt-4o\"\n\"o3-mini\""
    elif k == 1:
        t = anthropic_key()
        cmd = "curl -s https://api.anthropic.com/v1/models -H \"x-api-key: %s\" -H \"anthropic-version: 2023-06-01\" | jq -r '.data[0].id'" % M(t)
        out = "claude-sonnet-4-20250514"
    else:
        t = gh("ghp_")
        cmd = "curl -s -H \"Authorization: token %s\" https://api.github.com/repos/%s/%s/actions/runs?per_page=1 | jq '.workflow_runs[0].conclusion'" % (M(t), ctx.org, ctx.proj)
        out = "\"failure\""
    return "\u23fa Bash(%s)\n  \u23bf  %s" % (cmd, out.replace("\n", "\n     "))


@pos
def gemini_settings_mcp_env(ctx):
    t = "github_pat_11" + rs(UP + DG, 22) + "_" + rs(A62, 59)
    lt = "lin_api_" + rs(A62, 40)
    doc = {"theme": "GitHub", "selectedAuthType": "oauth-personal", "mcpServers": {
        "github": {"command": "docker", "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": M(t)}},
        "linear": {"command": "npx", "args": ["-y", "mcp-remote", "https://mcp.linear.app/sse"], "env": {"LINEAR_API_KEY": M(lt)}}}}
    return fileview(ctx, "~/.gemini/settings.json", json.dumps(doc, indent=2, ensure_ascii=False).split("\n"))


@pos
def circleci_set_x_log(ctx):
    t = pick([gh("ghp_"), glpat()])
    p = pw(True)
    out = """#!/bin/bash -eo pipefail
set -x
git config --global url."https://x-access-token:${{GH_TOKEN}}@github.com/".insteadOf "https://github.com/"
./scripts/deploy.sh
+ git config --global url.https://x-access-token:{t}@github.com/.insteadOf https://github.com/
+ ./scripts/deploy.sh
+ export PGPASSWORD={p}
+ PGPASSWORD={p}
+ psql -h {h} -U {u} -c 'select 1'
 ?column?
----------
        1
(1 row)

CircleCI received exit code 0""".format(t=M(t), p=M(p), h=dbhost(ctx), u=ctx.svc)
    return "Step: Deploy (%s/%s #%d)\n%s" % (ctx.org, ctx.proj, R.randrange(100, 9000), out)


@pos
def jenkins_console_sh_x(ctx):
    p = pw(False)
    reg = "registry.%s.io" % ctx.org
    out = """Started by user {u}
Running in Durability level: MAX_SURVIVABILITY
[Pipeline] Start of Pipeline
[Pipeline] node
Running on agent-{n} in /var/lib/jenkins/workspace/{proj}_main
[Pipeline] {{
[Pipeline] stage
[Pipeline] {{ (Push image)
[Pipeline] sh
+ docker login -u deployer -p {p} {reg}
WARNING! Using --password via the CLI is insecure. Use --password-stdin.
Login Succeeded
+ docker push {reg}/{proj}:{tag}
The push refers to repository [{reg}/{proj}]
{tag}: digest: sha256:{d} size: 2416
[Pipeline] }}
[Pipeline] // stage
Finished: SUCCESS""".format(u=ctx.user, n=R.randrange(1, 9), proj=ctx.proj, p=M(p), reg=reg, tag=hx(7), d=sha256())
    return shell(ctx, "curl -s -u %s:$JENKINS_API_TOKEN https://ci.%s.io/job/%s/job/main/%d/consoleText" % (ctx.user, ctx.org, ctx.proj, R.randrange(20, 900)), out)


@pos
def node_repl_process_env(ctx):
    sk = stripe_sk("live")
    wh = "whsec_" + rs(A62, 32)
    out = """Welcome to Node.js v{v}.
Type ".help" for more information.
> require('dotenv').config({{ path: '.env.production' }}).parsed.STRIPE_SECRET_KEY
'{sk}'
> process.env.STRIPE_WEBHOOK_SECRET
'{wh}'
> process.env.STRIPE_PUBLISHABLE_KEY
'pk_live_51{pk}'""".format(v=pick(["20.17.0", "22.11.0", "18.20.4"]), sk=M(sk), wh=M(wh), pk=rs(A62, 97))
    return ctx.prompt() + "node\n" + out


@pos
def rg_sshpass_scripts(ctx):
    p1, p2 = pw(False), pw(True)
    host = "10.%d.%d.%d" % (R.randrange(256), R.randrange(256), R.randrange(1, 255))
    out = """scripts/sync_backups.sh:14:sshpass -p '{p1}' rsync -az -e ssh backup@{h}:/var/backups/ ./backups/
scripts/restart_legacy.sh:7:sshpass -p "{p2}" ssh -o StrictHostKeyChecking=no root@{h} 'systemctl restart {svc}'
docs/ops.md:31:Use `sshpass -p "$LEGACY_PASS"` only from the bastion.""".format(p1=M(p1), p2=M(p2), h=host, svc=ctx.svc)
    return shell(ctx, "rg -n sshpass", out)


@pos
def requirements_extra_index_token(ctx):
    t = glpat()
    pid = R.randrange(10**7, 10**8)
    lines = ["--extra-index-url https://__token__:%s@gitlab.com/api/v4/projects/%d/packages/pypi/simple" % (M(t), pid),
             "django==5.1.%d" % R.randrange(8), "psycopg[binary]==3.2.%d" % R.randrange(5), "%s-common==0.%d.0" % (ctx.org, R.randrange(30)),
             "celery[redis]==5.4.0"]
    return fileview(ctx, pick(["requirements.txt", "requirements/prod.txt"]), lines)


@pos
def composer_auth_json(ctx):
    doc = {"github-oauth": {"github.com": M(gh("ghp_"))},
           "http-basic": {"repo.packagist.com": {"username": "token", "password": M(hx(40))},
                          "nova.laravel.com": {"username": "%s@%s.com" % (ctx.user, ctx.org), "password": M(rs(A62, 40))}}}
    return fileview(ctx, pick(["auth.json", "~/.config/composer/auth.json"]), json.dumps(doc, indent=4, ensure_ascii=False).split("\n"))


@pos
def nuget_config_cleartext(ctx):
    t = gh("ghp_")
    lines = ["<?xml version=\"1.0\" encoding=\"utf-8\"?>", "<configuration>", "  <packageSources>", "    <clear />",
             "    <add key=\"nuget.org\" value=\"https://api.nuget.org/v3/index.json\" />",
             "    <add key=\"github\" value=\"https://nuget.pkg.github.com/%s/index.json\" />" % ctx.org, "  </packageSources>",
             "  <packageSourceCredentials>", "    <github>", "      <add key=\"Username\" value=\"%s\" />" % ctx.user,
             "      <add key=\"ClearTextPassword\" value=\"%s\" />" % M(t), "    </github>", "  </packageSourceCredentials>", "</configuration>"]
    return fileview(ctx, "NuGet.Config", lines)


@pos
def bundle_config_gem_credentials(ctx):
    u, p = hx(8), hx(8)
    out = """Settings are listed in order of priority. The top value will be used.
path
Set for your local app (/home/{u}/src/{proj}/.bundle/config): "vendor/bundle"

gems.contribsys.com
Set for the current user (/home/{u}/.bundle/config): "{cu}:{cp}"

jobs
Set for the current user (/home/{u}/.bundle/config): {j}""".format(u=ctx.user, proj=ctx.proj, cu=u, cp=M(p), j=R.randrange(2, 9))
    return shell(ctx, "bundle config", out)


@pos
def smtp_settings_rb(ctx):
    sg = sendgrid()
    lines = ["  config.action_mailer.delivery_method = :smtp", "  config.action_mailer.smtp_settings = {",
             "    address: \"smtp.sendgrid.net\",", "    port: 587,", "    domain: \"%s.com\"," % ctx.org, "    user_name: \"apikey\",",
             "    password: \"%s\"," % M(sg), "    authentication: :plain,", "    enable_starttls_auto: true", "  }"]
    s = R.randrange(60, 90)
    return shell(ctx, "sed -n '%d,%dp' config/environments/production.rb" % (s, s + len(lines) - 1), "\n".join(lines))


@pos
def terraform_output_raw(ctx):
    k = R.randrange(2)
    if k == 0:
        p = pw(False)
        return shell(ctx, "terraform output -raw db_admin_password", M(p))
    t = "%s.%s" % (rs(LO + DG, 6), rs(LO + DG, 16))
    return shell(ctx, "terraform output -json | jq -r '.k3s_token.value, .bootstrap_token.value'", "%s\n%s" % (M("K10%s::server:%s" % (hx(64), hx(32))), M(t)))


@pos
def age_keys_txt(ctx):
    lines = ["# created: %sT%s+02:00" % (date(), clock()), "# public key: %s" % age_public(), M(age_secret())]
    if R.random() < 0.4:
        lines += ["# created: %sT%s+02:00" % (date(), clock()), "# public key: %s" % age_public(), M(age_secret())]
    return fileview(ctx, pick(["~/.config/sops/age/keys.txt", "~/Library/Application Support/sops/age/keys.txt", "keys.txt"]), lines)


@pos
def git_credentials_store_file(ctx):
    lines = ["https://%s:%s@github.com" % (ctx.user, M(gh("ghp_"))), "https://oauth2:%s@gitlab.%s.com" % (M(glpat()), ctx.org.replace("-", ""))]
    if R.random() < 0.5:
        lines.append("https://%s:%s@bitbucket.org" % (ctx.user, M("ATBB" + rs(A62, 28) + hx(8).upper())))
    return fileview(ctx, "~/.git-credentials", lines)


@pos
def vercel_env_pull_cat(ctx):
    oidc = jwt({"iss": "https://oidc.vercel.com/%s" % ctx.org, "sub": "owner:%s:project:%s:environment:development" % (ctx.org, ctx.proj),
                "aud": "https://vercel.com/%s" % ctx.org, "exp": 1760000000 + R.randrange(10**7), "iat": 1750000000}, {"alg": "RS256", "typ": "JWT", "kid": "mrk-" + hx(32)})
    p = pw(True)
    out = "Vercel CLI 39.%d.%d\n> Downloading `development` Environment Variables for %s/%s\n\u2705  Created .env.local file  [%dms]\n" % (
        R.randrange(5), R.randrange(5), ctx.org, ctx.proj, R.randrange(100, 900))
    body = "# Created by Vercel CLI\nPOSTGRES_URL=\"postgres://default:%s@ep-%s-%s.us-east-1.aws.neon.tech:5432/verceldb?sslmode=require\"\nVERCEL_OIDC_TOKEN=\"%s\"\nKV_REST_API_TOKEN=\"%s\"" % (
        M(p), pick(WORDS), rs(LO + DG, 8), M(oidc), M("A" + rs(A62, 58) + "="))
    return ctx.prompt() + "vercel env pull .env.local && cat .env.local\n" + out + body


@pos
def configmap_with_password(ctx):
    p = pw(False)
    lines = ["apiVersion: v1", "data:", "  application.properties: |", "    server.port=8080",
             "    spring.datasource.url=jdbc:postgresql://%s:5432/%s" % (dbhost(ctx), ctx.proj.replace("-", "_")),
             "    spring.datasource.username=%s" % ctx.svc, "    spring.datasource.password=%s" % M(p),
             "    management.endpoints.web.exposure.include=health,info", "kind: ConfigMap", "metadata:",
             "  name: %s-config" % ctx.proj, "  namespace: %s" % pick(["prod", "default"]),
             "  resourceVersion: \"%d\"" % R.randrange(10**5, 10**8), "  uid: %s" % uuid4()]
    return shell(ctx, "kubectl get cm %s-config -o yaml" % ctx.proj, "\n".join(lines))


@pos
def systemctl_show_environment(ctx):
    p = pw(True)
    k = hx(64)
    out = "Environment=APP_ENV=production PORT=9000 DATABASE_URL=postgres://%s:%s@127.0.0.1/%s SECRET_KEY_BASE=%s" % (
        ctx.svc, M(p), ctx.proj.replace("-", "_"), M(k + hx(64)))
    return shell(ctx, "systemctl show %s.service -p Environment" % ctx.proj, out)


@pos
def pm2_env_show(ctx):
    t = slack_bot()
    p = pw(True)
    out = """\u250c\u2500 PM2 env 0 \u2500\u2500\u2500\u2500\u2500\u2500
NODE_ENV: production
PORT: 3000
SLACK_BOT_TOKEN: {t}
MONGO_URI: mongodb://{u}:{p}@127.0.0.1:27017/{db}?authSource=admin
PM2_HOME: /home/{u}/.pm2
name: {proj}
pm_id: 0
unique_id: {uid}""".format(t=M(t), u=ctx.user, p=M(p), db=ctx.proj.replace("-", ""), proj=ctx.proj, uid=uuid4())
    return shell(ctx, "pm2 env 0", out)


# ================================================================ negatives


def span_id():
    return hx(16)


@neg
def structlog_request_trace_ids(ctx):
    out = []
    ts = times(R.randrange(4, 7))
    for d, c in ts:
        rec = {"timestamp": "%sT%s.%03dZ" % (d, c, R.randrange(1000)), "level": pick(["info", "info", "warning", "debug"]), "logger": "%s.http" % ctx.svc,
               "event": pick(["request.completed", "request.started", "cache.miss", "db.query"]),
               "request_id": pick([uuid4(), "req_" + rs(A62, 24), hx(32)]), "correlation_id": uuid4(),
               "trace_id": hx(32), "span_id": span_id(), "path": pick(["/v1/orders", "/healthz", "/v1/users/me", "/graphql"]),
               "status": pick([200, 200, 201, 304, 404]), "duration_ms": round(R.random() * 300, 2)}
        out.append(json.dumps(rec))
    return shell(ctx, "docker compose logs --no-log-prefix %s | tail -n %d" % (ctx.svc, len(out)), "\n".join(out))


@neg
def rails_log_request_uuids(ctx):
    out = []
    for d, c in times(R.randrange(2, 4)):
        rid = uuid4()
        ip = "172.18.0.%d" % R.randrange(2, 30)
        path = pick(["/api/v1/projects/%d" % R.randrange(1, 999), "/users/sign_in", "/dashboard"])
        out += ["[%s] Started GET \"%s\" for %s at %s %s +0000" % (rid, path, ip, d, c),
                "[%s] Processing by %sController#show as JSON" % (rid, pick(["Api::V1::Projects", "Dashboard", "Devise::Sessions"])),
                "[%s]   Parameters: {\"id\"=>\"%d\"}" % (rid, R.randrange(1, 999)),
                "[%s] Completed 200 OK in %dms (Views: %.1fms | ActiveRecord: %.1fms (%d queries, 0 cached) | GC: %.1fms)" % (
                    rid, R.randrange(5, 400), R.random() * 20, R.random() * 40, R.randrange(1, 9), R.random() * 3)]
    return shell(ctx, "tail -n %d log/development.log" % len(out), "\n".join(out))


@neg
def mongoose_debug_objectids(ctx):
    out = []
    for _ in range(R.randrange(3, 6)):
        c = pick(["users", "orders", "carts", "sessions_meta"])
        op = pick(["findOne", "find", "updateOne", "countDocuments"])
        out.append("Mongoose: %s.%s({ _id: ObjectId(\"%s\"), tenantId: ObjectId(\"%s\") }, { projection: {} })" % (c, op, objectid(), objectid()))
    return shell(ctx, "DEBUG=mongoose npm run dev 2>&1 | grep Mongoose: | head", "\n".join(out))


@neg
def snowflake_ids_api_json(ctx):
    msgs = []
    for _ in range(R.randrange(2, 4)):
        msgs.append({"id": snowflake(), "channel_id": snowflake(), "author": {"id": snowflake(), "username": pick(USERS), "avatar": hx(32)},
                     "content": pick(["build green", "deploying now", "lgtm"]), "timestamp": iso().replace("Z", "+00:00"),
                     "nonce": snowflake()})
    return shell(ctx, "curl -s localhost:8787/api/channels/%s/messages?limit=%d | jq ." % (snowflake(), len(msgs)), json.dumps(msgs, indent=2))


@neg
def git_rebase_todo(ctx):
    lines = []
    for _ in range(R.randrange(4, 8)):
        lines.append("pick %s %s" % (hx(7), pick(["fix flaky test", "add retry to webhook sender", "rotate token handling in client",
                                                  "bump deps", "refactor secrets loader", "wip", "docs: update README"])))
    lines += ["", "# Rebase %s..%s onto %s (%d commands)" % (hx(7), hx(7), hx(7), len(lines)), "#", "# Commands:",
              "# p, pick <commit> = use commit", "# r, reword <commit> = use commit, but edit the commit message",
              "# s, squash <commit> = use commit, but meld into previous commit", "# f, fixup [-C | -c] <commit> = like \"squash\" but keep only the previous"]
    return "\u23fa Read(.git/rebase-merge/git-rebase-todo)\n  \u23bf  Read %d lines\n\n%s" % (len(lines), read_tool(lines))


@neg
def git_blame_porcelain(ctx):
    out = []
    for i in range(R.randrange(2, 4)):
        sh = sha1()
        out += ["%s %d %d 1" % (sh, i + 10, i + 10), "author %s" % ctx.user, "author-mail <%s@%s.dev>" % (ctx.user, ctx.org),
                "author-time %d" % R.randrange(1700000000, 1760000000), "author-tz +0100", "committer GitHub",
                "committer-mail <noreply@github.com>", "committer-time %d" % R.randrange(1700000000, 1760000000),
                "summary %s" % pick(["Use token from env instead of hardcoding", "Add API key validation", "Load secrets via Vault agent"]),
                "previous %s src/config.ts" % sha1(), "filename src/config.ts",
                "\t%s" % pick(["const apiKey = process.env.API_KEY ?? \"\";", "if (!token) throw new Error(\"missing token\");", "export const SECRET_NAME = \"prod/api-key\";"])]
    return shell(ctx, "git blame --porcelain -L 10,12 src/config.ts", "\n".join(out))


@neg
def git_ls_tree_objects(ctx):
    out = []
    for f in ["tree", ".env.example", ".gitignore", "Cargo.lock", "src", "secrets.md", "tests"][:R.randrange(5, 8)]:
        if f in ("src", "tests"):
            out.append("040000 tree %s\t%s" % (sha1(), f))
        elif f == "tree":
            continue
        else:
            out.append("100644 blob %s %7d\t%s" % (sha1(), R.randrange(50, 90000), f))
    return shell(ctx, "git ls-tree -l HEAD", "\n".join(out))


@neg
def docker_pull_digest_output(ctx):
    img = pick(["postgres:16-alpine", "node:22-bookworm-slim", "python:3.12-slim", "redis:7.4"])
    out = "%s: Pulling from library/%s\n" % (img.split(":")[1], img.split(":")[0])
    for _ in range(R.randrange(3, 7)):
        out += "%s: Pull complete\n" % hx(12)
    out += "Digest: sha256:%s\nStatus: Downloaded newer image for %s\ndocker.io/library/%s" % (sha256(), img, img)
    out2 = "\n" + ctx.prompt() + "docker images --digests %s\nREPOSITORY   TAG   DIGEST   IMAGE ID       CREATED       SIZE\n%s   %s   sha256:%s   %s   %d days ago   %dMB" % (
        img.split(":")[0], img.split(":")[0], img.split(":")[1], sha256(), hx(12), R.randrange(2, 40), R.randrange(40, 900))
    return ctx.prompt() + "docker pull " + img + "\n" + out + out2


@neg
def pnpm_lock_integrity(ctx):
    lines = ["lockfileVersion: '9.0'", "", "settings:", "  autoInstallPeers: true", "  excludeLinksFromLockfile: false", "", "packages:", ""]
    for name, ver in [("@babel/code-frame", "7.26.2"), ("esbuild", "0.24.0"), ("zod", "3.23.8"), ("jose", "5.9.6"), ("dotenv", "16.4.5")][:R.randrange(3, 6)]:
        lines += ["  %s@%s:" % (name, ver), "    resolution: {integrity: %s}" % integrity(), "    engines: {node: '>=18'}", ""]
    return shell(ctx, "sed -n '1,%dp' pnpm-lock.yaml" % len(lines), "\n".join(lines))


@neg
def poetry_lock_file_hashes(ctx):
    lines = []
    for name, ver in [("cryptography", "43.0.3"), ("pyjwt", "2.9.0"), ("requests", "2.32.3")][:R.randrange(2, 4)]:
        lines += ["[[package]]", "name = \"%s\"" % name, "version = \"%s\"" % ver, "optional = false", "python-versions = \">=3.8\"", "files = [",
                  "    {file = \"%s-%s-py3-none-any.whl\", hash = \"sha256:%s\"}," % (name, ver, sha256()),
                  "    {file = \"%s-%s.tar.gz\", hash = \"sha256:%s\"}," % (name, ver, sha256()), "]", ""]
    lines += ["[metadata]", "lock-version = \"2.0\"", "python-versions = \"^3.11\"", "content-hash = \"%s\"" % sha256()]
    return fileview(ctx, "poetry.lock", lines)


def h1():
    return "h1:" + b64(32)


@neg
def go_sum_cat(ctx):
    out = []
    for mod, ver in [("github.com/golang-jwt/jwt/v5", "v5.2.1"), ("github.com/aws/aws-sdk-go-v2/credentials", "v1.17.41"),
                     ("golang.org/x/crypto", "v0.28.0"), ("github.com/hashicorp/vault/api", "v1.15.0")][:R.randrange(2, 5)]:
        out += ["%s %s %s" % (mod, ver, h1()), "%s %s/go.mod %s" % (mod, ver, h1())]
    return shell(ctx, "grep -E 'jwt|credentials|crypto|vault' go.sum", "\n".join(out))


@neg
def nix_hash_mismatch_error(ctx):
    got = "sha256-" + b64(32)
    out = """error: hash mismatch in fixed-output derivation '/nix/store/{a}-source.drv':
         specified: sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
            got:    {got}
error: 1 dependencies of derivation '/nix/store/{b}-{proj}-{v}.drv' failed to build""".format(
        a=rs("0123456789abcdfghijklmnpqrsvwxyz", 32), got=got, b=rs("0123456789abcdfghijklmnpqrsvwxyz", 32), proj=ctx.proj, v="0.%d.0" % R.randrange(20))
    return shell(ctx, "nix build .#%s" % ctx.proj, out)


@neg
def angular_build_chunks(ctx):
    out = "Initial chunk files   | Names         |  Raw size | Estimated transfer size\n"
    for n in ["main", "polyfills", "styles", "chunk"][:R.randrange(3, 5)]:
        ext = "css" if n == "styles" else "js"
        fn = "%s-%s.%s" % (n, rs(UP + DG, 8), ext)
        out += "%-21s | %-13s | %6.2f kB | %6.2f kB\n" % (fn, n if n != "chunk" else "-", R.random() * 400, R.random() * 90)
    out += "\nApplication bundle generation complete. [%.3f seconds]\n\nOutput location: /work/%s/dist/%s" % (R.random() * 20, ctx.proj, ctx.proj)
    return shell(ctx, "npx ng build --configuration production", out)


def png_b64(n):
    return base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + rbytes(n)).decode()


@neg
def data_uri_inline_images(ctx):
    out = ["src/styles/icons.css:%d:  background-image: url(\"data:image/png;base64,%s\");" % (R.randrange(1, 90), png_b64(R.randrange(60, 140))),
           "src/components/Logo.tsx:%d:const placeholder = \"data:image/webp;base64,UklGR%s\";" % (R.randrange(1, 40), b64(R.randrange(40, 90))),
           "public/index.html:%d:    <link rel=\"icon\" href=\"data:image/svg+xml;base64,%s\">" % (R.randrange(3, 20), enc64("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\"><circle cx=\"8\" cy=\"8\" r=\"%d\"/></svg>" % R.randrange(3, 8)))]
    return shell(ctx, "rg -n 'data:image' src public", "\n".join(out))


@neg
def grpcurl_bytes_fields(ctx):
    doc = {"event": {"id": uuid4(), "type": "ORDER_CREATED", "payload": b64(R.randrange(30, 80)), "checksum": b64(32),
                     "schemaFingerprint": hx(16)}, "partition": R.randrange(12), "offset": str(R.randrange(10**6))}
    return shell(ctx, "grpcurl -plaintext -d '{\"limit\":1}' localhost:50051 events.v1.EventStore/Tail", json.dumps(doc, indent=2))


@neg
def oidc_discovery_json(ctx):
    iss = pick(["https://accounts.google.com", "https://login.microsoftonline.com/%s/v2.0" % uuid4(), "https://%s.us.auth0.com/" % ctx.org,
                "https://keycloak.%s.dev/realms/%s" % (ctx.org, ctx.proj)])
    doc = {"issuer": iss, "authorization_endpoint": iss.rstrip("/") + "/authorize", "token_endpoint": iss.rstrip("/") + "/oauth/token",
           "jwks_uri": iss.rstrip("/") + "/.well-known/jwks.json", "response_types_supported": ["code", "id_token", "code id_token"],
           "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
           "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "private_key_jwt"],
           "claims_supported": ["sub", "iss", "aud", "exp", "iat", "email", "nonce"], "code_challenge_methods_supported": ["S256", "plain"]}
    return shell(ctx, "curl -s %s/.well-known/openid-configuration | jq ." % iss.rstrip("/"), json.dumps(doc, indent=2))


def colon_hex(n, per=15, indent="                    "):
    bs = [hx(2) for _ in range(n)]
    rows = [":".join(bs[i:i + per]) + (":" if i + per < n else "") for i in range(0, n, per)]
    return "\n".join(indent + r for r in rows)


@neg
def openssl_x509_text(ctx):
    cn = "%s.%s.com" % (ctx.svc, ctx.org.replace("-", ""))
    out = """Certificate:
    Data:
        Version: 3 (0x2)
        Serial Number:
            {serial}
        Signature Algorithm: sha256WithRSAEncryption
        Issuer: C=US, O=Let's Encrypt, CN=R11
        Validity
            Not Before: {mon} {d} {c} 2025 GMT
            Not After : {mon2} {d} {c} 2025 GMT
        Subject: CN={cn}
        Subject Public Key Info:
            Public Key Algorithm: rsaEncryption
                Public-Key: (2048 bit)
                Modulus:
{mod}
                Exponent: 65537 (0x10001)
        X509v3 extensions:
            X509v3 Subject Key Identifier:
                {ski}
            X509v3 Authority Key Identifier:
                {aki}
    Signature Algorithm: sha256WithRSAEncryption
    Signature Value:
{sig}""".format(serial=":".join(hx(2) for _ in range(18)), mon=pick(["Jan", "Apr", "Jul"]), mon2=pick(["Oct", "Nov", "Dec"]),
                d=R.randrange(1, 28), c=clock(), cn=cn, mod=colon_hex(90, 15, "                    "),
                ski=":".join(hx(2).upper() for _ in range(20)), aki=":".join(hx(2).upper() for _ in range(20)), sig=colon_hex(64, 18, "        "))
    return shell(ctx, "openssl x509 -in certs/%s.crt -noout -text" % ctx.svc, out)


@neg
def gh_ssh_key_list(ctx):
    out = []
    for t in ["laptop", "ci-deploy", "yubikey"][:R.randrange(2, 4)]:
        kt = pick(["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(33)[:43], "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAI" + b64(33)[:43] + "AAAABHNzaDo="])
        out.append("%s\t%s\t%s\t%d\t%s" % (t, kt, date() + "T" + clock() + "Z", R.randrange(10**7, 10**9), pick(["authentication", "signing"])))
    return shell(ctx, "gh ssh-key list", "TITLE\tKEY\tADDED\tID\tTYPE\n" + "\n".join(out))


@neg
def csrf_token_html_form(ctx):
    tok = b64u(48)
    meta = b64(48)
    out = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="csrf-param" content="authenticity_token" />
<meta name="csrf-token" content="{meta}" />
  <title>Sign in · {proj}</title>
</head>
<body>
<form class="new_user" action="/users/sign_in" accept-charset="UTF-8" method="post"><input type="hidden" name="authenticity_token" value="{tok}" autocomplete="off" />
  <input autocomplete="email" type="email" value="" name="user[email]" id="user_email" />
  <input autocomplete="current-password" type="password" name="user[password]" id="user_password" />""".format(meta=meta, proj=ctx.proj, tok=tok)
    return shell(ctx, "curl -s http://localhost:3000/users/sign_in | head -n 14", out)


@neg
def graphql_relay_cursors(ctx):
    edges = []
    for _ in range(R.randrange(2, 4)):
        n = R.randrange(1, 99999)
        edges.append({"cursor": enc64("arrayconnection:%d" % n) if R.random() < 0.5 else enc64("cursor:v2:" + iso()),
                      "node": {"id": enc64("Issue:%d" % R.randrange(10**6)), "title": pick(["Flaky login test", "Rotate webhook token docs", "Crash on empty cart"])}})
    doc = {"data": {"repository": {"issues": {"edges": edges, "pageInfo": {"hasNextPage": True, "endCursor": edges[-1]["cursor"]}}}}}
    return shell(ctx, "curl -s -X POST localhost:4000/graphql -H 'content-type: application/json' -d @query.json | jq .", json.dumps(doc, indent=2))


@neg
def gsutil_stat_hashes(ctx):
    out = """gs://{b}/exports/{d}/part-0000{n}.parquet:
    Creation time:          {wd}, {dd} {mon} 2025 {c} GMT
    Update time:            {wd}, {dd} {mon} 2025 {c} GMT
    Storage class:          STANDARD
    Content-Length:         {ln}
    Content-Type:           application/octet-stream
    Hash (crc32c):          {crc}
    Hash (md5):             {md5}
    ETag:                   {etag}
    Generation:             {gen}
    Metageneration:         1""".format(b="%s-%s-data" % (ctx.org, ctx.proj), d=date(), n=R.randrange(10), wd=pick(["Mon", "Tue"]), dd=R.randrange(1, 28),
                                         mon=pick(["Mar", "Aug"]), c=clock(), ln=R.randrange(10**5, 10**9), crc=b64(4), md5=b64(16),
                                         etag="C" + rs(A62, 12) + "EAE=", gen=R.randrange(10**15, 10**16))
    return shell(ctx, "gsutil stat gs://%s-%s-data/exports/*/part-0000*.parquet | head -n 11" % (ctx.org, ctx.proj), out)


@neg
def kubectl_jsonpath_uids(ctx):
    out = []
    for _ in range(R.randrange(3, 6)):
        out.append("%s-%s-%s\t%s\t%d" % (ctx.proj, hx(10), rs(LO + DG, 5), uuid4(), R.randrange(10**5, 10**9)))
    return shell(ctx, "kubectl get pods -o jsonpath='{range .items[*]}{.metadata.name}{\"\\t\"}{.metadata.uid}{\"\\t\"}{.metadata.resourceVersion}{\"\\n\"}{end}'", "\n".join(out))


@neg
def kubectl_get_secrets_names(ctx):
    out = "NAME                              TYPE                                  DATA   AGE\n"
    for n, t, d in [("%s-db-credentials" % ctx.proj, "Opaque", 2), ("%s-api-keys" % ctx.proj, "Opaque", 4),
                    ("regcred", "kubernetes.io/dockerconfigjson", 1), ("%s-tls" % ctx.proj, "kubernetes.io/tls", 2),
                    ("sh.helm.release.v1.%s.v%d" % (ctx.proj, R.randrange(2, 30)), "helm.sh/release.v1", 1)]:
        out += "%-33s %-37s %-6d %dd\n" % (n, t, d, R.randrange(1, 400))
    return shell(ctx, "kubectl get secrets -n %s" % pick(["prod", ctx.proj]), out.rstrip("\n"))


@neg
def vault_kv_metadata_get(ctx):
    (d1, c1), (d2, c2) = times(2)
    d2 = date()
    t1, t2 = "%sT%s.%06dZ" % (min(d1, d2), c1, R.randrange(10**6)), "%sT%s.%06dZ" % (max(d1, d2), c2, R.randrange(10**6))
    out = """======== Metadata Path ========
secret/metadata/{p}/prod

========== Metadata ==========
Key                     Value
---                     -----
cas_required            false
created_time            {t1}
current_version         {v}
custom_metadata         map[owner:{u} rotated_by:ci]
delete_version_after    0s
max_versions            10
oldest_version          1
updated_time            {t2}

====== Version {v} ======
Key              Value
---              -----
created_time     {t2}
deletion_time    n/a
destroyed        false""".format(p=ctx.proj, t1=t1, t2=t2, v=R.randrange(2, 12), u=ctx.user)
    return shell(ctx, "vault kv metadata get secret/%s/prod" % ctx.proj, out)


@neg
def ssm_describe_parameters(ctx):
    params = []
    acct = R.randrange(10**11, 10**12)
    for n in ["db/password", "stripe/secret-key", "jwt/signing-key", "feature/flags"]:
        params.append({"Name": "/%s/prod/%s" % (ctx.proj, n), "Type": "String" if n.startswith("feature") else "SecureString",
                       "KeyId": "alias/aws/ssm" if not n.startswith("feature") else None, "LastModifiedDate": iso(False).replace("Z", "+00:00"),
                       "LastModifiedUser": "arn:aws:iam::%d:user/%s" % (acct, ctx.user), "Version": R.randrange(1, 9),
                       "Tier": "Standard", "Policies": [], "DataType": "text"})
        if params[-1]["KeyId"] is None:
            del params[-1]["KeyId"]
    return shell(ctx, "aws ssm describe-parameters --parameter-filters Key=Path,Values=/%s/prod,Option=Recursive" % ctx.proj,
                 json.dumps({"Parameters": params}, indent=4))


@neg
def env_template_placeholders(ctx):
    lines = ["# Copy to .env and fill in real values", "DATABASE_URL=postgres://postgres:changeme@localhost:5432/%s" % ctx.proj.replace("-", "_"),
             "OPENAI_API_KEY=your-api-key", "ANTHROPIC_API_KEY=<token>", "STRIPE_SECRET_KEY=sk_test_xxx", "STRIPE_WEBHOOK_SECRET=whsec_...",
             "GITHUB_TOKEN=${GITHUB_TOKEN}", "SMTP_PASSWORD=****", "JWT_SECRET=replace-me", "SENTRY_DSN=", "REDIS_URL=redis://localhost:6379/0"]
    R.shuffle(lines[1:])
    return fileview(ctx, pick([".env.example", ".env.sample", ".env.template"]), lines)


@neg
def gitlab_ci_variable_refs(ctx):
    lines = ["deploy:", "  stage: deploy", "  image: alpine:3.20", "  variables:", "    GIT_DEPTH: \"20\"", "  before_script:",
             "    - echo \"$CI_REGISTRY_PASSWORD\" | docker login -u \"$CI_REGISTRY_USER\" --password-stdin \"$CI_REGISTRY\"",
             "    - export VAULT_TOKEN=\"$(vault write -field=token auth/jwt/login role=%s jwt=$CI_JOB_JWT_V2)\"" % ctx.proj,
             "  script:", "    - helm upgrade --install %s ./chart --set image.tag=$CI_COMMIT_SHORT_SHA --set db.password=${DB_PASSWORD}" % ctx.proj,
             "    - curl -sf -H \"PRIVATE-TOKEN: ${DEPLOY_TOKEN}\" \"$CI_API_V4_URL/projects/$CI_PROJECT_ID/releases\"",
             "  rules:", "    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH"]
    return fileview(ctx, ".gitlab-ci.yml", lines)


@neg
def security_policy_numbers(ctx):
    lines = ["auth:", "  password_min_length: %d" % R.randrange(10, 17), "  password_require_symbols: true", "  password_history: 5",
             "  token_ttl: %d" % pick([900, 3600, 86400]), "  refresh_token_ttl: %d" % pick([604800, 2592000]), "  api_key_prefix_length: 8",
             "  secret_rotation_days: 90", "  jwt_algorithm: RS256", "  jwks_url: https://auth.%s.dev/.well-known/jwks.json" % ctx.org,
             "  session_cookie_secure: true", "  max_login_attempts: %d" % R.randrange(3, 10), "  lockout_seconds: 900",
             "  secret_key_file: /run/secrets/%s_secret_key" % ctx.svc]
    return fileview(ctx, "config/security.yml", lines)


@neg
def mysql_user_auth_strings(ctx):
    rows = [("root", "localhost", "caching_sha2_password", "$A$005$" + rs(A62 + "./", 20) + rs(A62 + "./", 43)),
            (ctx.svc, "%", "mysql_native_password", "*" + hx(40).upper()),
            ("mysql.sys", "localhost", "caching_sha2_password", "$A$005$THISISACOMBINATIONOFINVALIDSALTANDPASSWORDTHATMUSTNEVERBRBEUSED"),
            ("repl", "10.0.%", "caching_sha2_password", "$A$005$" + rs(A62 + "./", 63))]
    out = "+-----------+-----------+-----------------------+------------------------------------------------------------------------+\n| user      | host      | plugin                | authentication_string                                                  |\n+-----------+-----------+-----------------------+------------------------------------------------------------------------+\n"
    for r in rows:
        out += "| %-9s | %-9s | %-21s | %-70s |\n" % r
    out += "+-----------+-----------+-----------------------+------------------------------------------------------------------------+\n%d rows in set (0.00 sec)" % len(rows)
    return "mysql> SELECT user, host, plugin, authentication_string FROM mysql.user;\n" + out


@neg
def commit_messages_rotate_token(ctx):
    msgs = ["chore: rotate deploy token (old one revoked)", "fix: stop logging Authorization header", "remove leaked key from fixtures, history rewritten",
            "feat: read STRIPE_SECRET_KEY from secret manager", "ci: mask NPM_TOKEN in publish step", "docs: how to rotate the API key",
            "refactor: rename password -> password_hash", "build(deps): bump jsonwebtoken from 9.0.0 to 9.0.2"]
    R.shuffle(msgs)
    w = pick([7, 9])
    out = "\n".join("%s %s" % (hx(w), m) for m in msgs[:R.randrange(5, 9)])
    return shell(ctx, "git log --oneline -n 12 --grep='token\\|key\\|secret\\|password' -i", out)


@neg
def containerd_ctr_images(ctx):
    out = "REF                                                                     TYPE                                                 DIGEST                                                                  SIZE      PLATFORMS   LABELS\n"
    for img in ["docker.io/library/nginx:1.27", "ghcr.io/%s/%s:v%d.%d" % (ctx.org, ctx.proj, R.randrange(4), R.randrange(30)), "registry.k8s.io/pause:3.10"]:
        out += "%-71s application/vnd.oci.image.index.v1+json sha256:%s %.1f MiB linux/amd64,linux/arm64 io.cri-containerd.image=managed\n" % (img, sha256(), R.random() * 90)
        out += "%-71s application/vnd.oci.image.index.v1+json sha256:%s %.1f MiB linux/amd64,linux/arm64 io.cri-containerd.image=managed\n" % ("sha256:" + sha256(), sha256(), R.random() * 90)
    return shell(ctx, "sudo ctr -n k8s.io images ls | head", out.rstrip("\n"))


@neg
def npm_audit_json(ctx):
    doc = {"auditReportVersion": 2, "vulnerabilities": {"jsonwebtoken": {"name": "jsonwebtoken", "severity": "high", "isDirect": True,
           "via": [{"source": R.randrange(1090000, 1100000), "name": "jsonwebtoken", "dependency": "jsonwebtoken",
                    "title": "jsonwebtoken's insecure implementation of key retrieval function could lead to Forgeable Public/Private Tokens from RSA to HMAC",
                    "url": "https://github.com/advisories/GHSA-%s-%s-%s" % (rs("23456789cfghjmpqrvwx", 4), rs("23456789cfghjmpqrvwx", 4), rs("23456789cfghjmpqrvwx", 4)),
                    "severity": "moderate", "cwe": ["CWE-287", "CWE-1259"], "range": "<9.0.0"}],
           "effects": [], "range": "<=8.5.1", "nodes": ["node_modules/jsonwebtoken"], "fixAvailable": True}},
           "metadata": {"vulnerabilities": {"info": 0, "low": 0, "moderate": 0, "high": 1, "critical": 0, "total": 1}}}
    return shell(ctx, "npm audit --json", json.dumps(doc, indent=2))


@neg
def yarn_v1_lock_resolved(ctx):
    lines = ["# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.", "# yarn lockfile v1", ""]
    for n, v in [("dotenv", "16.4.5"), ("bcryptjs", "2.4.3"), ("uuid", "9.0.1"), ("ms", "2.1.3")][:R.randrange(2, 5)]:
        lines += ["%s@^%s:" % (n, v), "  version \"%s\"" % v, "  resolved \"https://registry.yarnpkg.com/%s/-/%s-%s.tgz#%s\"" % (n, n, v, sha1()),
                  "  integrity %s" % integrity(), ""]
    return fileview(ctx, "yarn.lock", lines[:-1])


@neg
def gitlab_cache_keys_log(ctx):
    k1 = "node-modules-%s-protected" % sha1()
    out = """Restoring cache
Checking cache for {k1}...
Downloading cache from https://storage.googleapis.com/gitlab-com-runners-cache/project/{pid}/{k1}  ETag="{etag}"
Successfully extracted cache
Executing "step_script" stage of the job script
$ npm ci --prefer-offline
added {n} packages in {s}s
Saving cache for successful job
Creating cache {k1}...
node_modules/: found {f} matching artifact files and directories
Archive is up to date!
Created cache""".format(k1=k1, pid=R.randrange(10**7, 10**8), etag=hx(32), n=R.randrange(200, 2000), s=R.randrange(5, 90), f=R.randrange(10**4, 10**5))
    return out


@neg
def redis_cli_cache_keys(ctx):
    out = []
    for _ in range(R.randrange(4, 8)):
        out.append(pick(["cache:v3:user:%d:profile" % R.randrange(10**5), "rl:%s:%d" % (hx(16), R.randrange(10**9, 2 * 10**9)),
                         "bull:%s:%d" % (pick(["emails", "webhooks"]), R.randrange(10**5)), "etag:/api/v1/products/%s" % hx(40),
                         "lock:migration:%s" % ulid(), "idempotency:%s" % uuid4()]))
    return shell(ctx, "redis-cli --scan --count 100 | head", "\n".join(out))


@neg
def terraform_state_show_ids(ctx):
    acct = R.randrange(10**11, 10**12)
    out = """# aws_db_instance.main:
resource "aws_db_instance" "main" {{
    address                    = "{proj}-prod.{c}.us-east-1.rds.amazonaws.com"
    arn                        = "arn:aws:rds:us-east-1:{a}:db:{proj}-prod"
    db_subnet_group_name       = "{proj}-db-subnets"
    engine                     = "postgres"
    engine_version             = "16.4"
    id                         = "db-{dbid}"
    kms_key_id                 = "arn:aws:kms:us-east-1:{a}:key/{kms}"
    manage_master_user_password = true
    master_user_secret         = [
        {{
            kms_key_id    = "arn:aws:kms:us-east-1:{a}:key/{kms}"
            secret_arn    = "arn:aws:secretsmanager:us-east-1:{a}:secret:rds!db-{sid}-{suf}"
            secret_status = "active"
        }},
    ]
    password                   = (sensitive value)
    resource_id                = "db-{dbid}"
    vpc_security_group_ids     = [
        "sg-{sg}",
    ]
}}""".format(proj=ctx.proj, c=rs(LO + DG, 12), a=acct, dbid=rs(UP + DG, 26), kms=uuid4(), sid=uuid4(), suf=rs(A62, 6), sg=hx(17))
    return shell(ctx, "terraform state show aws_db_instance.main", out)


@neg
def aws_ec2_describe_instances(ctx):
    rows = []
    for _ in range(R.randrange(2, 5)):
        rows.append(["i-" + hx(17), "ami-" + hx(17), pick(["t3.medium", "m7g.large"]), "10.%d.%d.%d" % (R.randrange(256), R.randrange(256), R.randrange(255)),
                     "subnet-" + hx(17), "eni-" + hx(17), pick(["running", "stopped"])])
    return shell(ctx, "aws ec2 describe-instances --filters Name=tag:app,Values=%s --query 'Reservations[].Instances[].[InstanceId,ImageId,InstanceType,PrivateIpAddress,SubnetId,NetworkInterfaces[0].NetworkInterfaceId,State.Name]' --output text" % ctx.proj,
                 "\n".join("\t".join(r) for r in rows))


@neg
def go_panic_goroutine_trace(ctx):
    out = """panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x{a} pc=0x{pc}]

goroutine {g} [running]:
github.com/{org}/{proj}/internal/auth.(*TokenVerifier).Verify(0x0, {{0x{p1}, 0x{p2}}}, {{0xc000{c1}, 0x{l}}})
	/src/internal/auth/verify.go:{ln} +0x{o1}
github.com/{org}/{proj}/internal/http.(*Server).requireAuth.func1({{0x{p3}, 0xc000{c2}}}, 0xc000{c3})
	/src/internal/http/middleware.go:{ln2} +0x{o2}
net/http.HandlerFunc.ServeHTTP(0xc000{c4}, {{0x{p3}, 0xc000{c2}}}, 0xc000{c3})
	/usr/local/go/src/net/http/server.go:2220 +0x29
exit status 2""".format(a=hx(2), pc=hx(6), g=R.randrange(10, 400), org=ctx.org, proj=ctx.proj, p1=hx(6), p2=hx(6), c1=hx(6), l=hx(2),
                        ln=R.randrange(20, 200), o1=hx(3), p3=hx(6), c2=hx(6), c3=hx(6), ln2=R.randrange(20, 200), o2=hx(3), c4=hx(6))
    return shell(ctx, "go test ./internal/http/... -run TestAuth", out)


@neg
def readelf_build_id(ctx):
    b = sha1()
    out = """
Displaying notes found in: .note.gnu.build-id
  Owner                Data size 	Description
  GNU                  0x00000014	NT_GNU_BUILD_ID (unique build ID bitstring)
    Build ID: {b}

Displaying notes found in: .note.go.buildid
  Owner                Data size 	Description
  Go                   0x00000053	GO BUILDID
   description data: {g}""".format(b=b, g=" ".join(hx(2) for _ in range(24)))
    out2 = "\n" + ctx.prompt() + "file target/release/%s\ntarget/release/%s: ELF 64-bit LSB pie executable, x86-64, version 1 (SYSV), dynamically linked, interpreter /lib64/ld-linux-x86-64.so.2, BuildID[sha1]=%s, for GNU/Linux 3.2.0, not stripped" % (ctx.proj, ctx.proj, b)
    return shell(ctx, "readelf -n bin/%s" % ctx.proj, out.lstrip("\n")) + out2


@neg
def vcr_cassette_filtered(ctx):
    lines = ["interactions:", "- request:", "    body: '{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}]}'",
             "    headers:", "      authorization:", "      - Bearer <OPENAI_API_KEY>", "      openai-organization:", "      - <ORG_ID>",
             "    method: POST", "    uri: https://api.openai.com/v1/chat/completions", "  response:", "    body:",
             "      string: '{\"id\":\"chatcmpl-%s\",\"object\":\"chat.completion\",\"system_fingerprint\":\"fp_%s\"}'" % (rs(A62, 29), hx(10)),
             "    headers:", "      x-request-id:", "      - req_%s" % hx(32), "      openai-processing-ms:", "      - '%d'" % R.randrange(100, 2000),
             "      CF-RAY:", "      - %s-%s" % (hx(16), pick(["SJC", "FRA", "IAD"])), "    status:", "      code: 200", "version: 1"]
    return fileview(ctx, "tests/cassettes/test_%s/test_ping.yaml" % ctx.svc, lines)


@neg
def vite_manifest_json(ctx):
    doc = {}
    for e in ["index.html", "src/pages/Settings.tsx", "src/pages/ApiKeys.tsx"]:
        base = e.split("/")[-1].split(".")[0]
        doc[e] = {"file": "assets/%s-%s.js" % (base, rs(A62 + "_-", 8)), "name": base, "src": e, "isEntry": e == "index.html",
                  "css": ["assets/%s-%s.css" % (base, rs(A62 + "_-", 8))]}
    return shell(ctx, "cat dist/.vite/manifest.json", json.dumps(doc, indent=2))


@neg
def workbox_precache_revisions(ctx):
    entries = []
    for f in ["index.html", "manifest.webmanifest", "assets/index-%s.js" % rs(A62, 8), "assets/index-%s.css" % rs(A62, 8), "registerSW.js"]:
        entries.append('{url:"%s",revision:%s}' % (f, "null" if "-" in f else '"%s"' % hx(32)))
    out = 'if(!self.define){...}define(["./workbox-%s"],(function(e){"use strict";self.skipWaiting(),e.clientsClaim(),e.precacheAndRoute([%s],{})}));' % (
        hx(8), ",".join(entries))
    return shell(ctx, "cat dist/sw.js | cut -c1-2000", out)


@neg
def alembic_history_revisions(ctx):
    revs = [hx(12) for _ in range(R.randrange(3, 6))]
    out = []
    for i in range(len(revs) - 1, -1, -1):
        down = revs[i - 1] if i else "<base>"
        out.append("%s -> %s%s, %s" % (down, revs[i], " (head)" if i == len(revs) - 1 else "",
                                       pick(["add api_keys table with hashed_key", "rotate token column to bytea", "add index on users.email", "create sessions"])))
    return shell(ctx, "alembic history", "\n".join(out))


@neg
def traceparent_nginx_log(ctx):
    out = []
    day, mon = R.randrange(1, 28), pick(["Mar", "Jun", "Oct"])
    for _, c in times(R.randrange(3, 6)):
        out.append("%d.%d.%d.%d - - [%02d/%s/2025:%s +0000] \"%s %s HTTP/1.1\" %d %d \"-\" \"%s\" rt=%.3f traceparent=\"00-%s-%s-01\" x_request_id=%s" % (
            R.randrange(1, 223), R.randrange(256), R.randrange(256), R.randrange(256), day, mon, c,
            pick(["GET", "GET", "POST"]), pick(["/api/v2/search?q=shoes", "/api/v2/cart", "/api/v2/orders"]), pick([200, 200, 204, 499]),
            R.randrange(100, 90000), pick(["Mozilla/5.0 (X11; Linux x86_64)", "okhttp/4.12.0", "curl/8.5.0"]), R.random(), hx(32), hx(16), hx(32)))
    return shell(ctx, "sudo tail -n %d /var/log/nginx/access.log" % len(out), "\n".join(out))


@neg
def cloudtrail_event_json(ctx):
    acct = str(R.randrange(10**11, 10**12))
    doc = {"eventVersion": "1.10", "userIdentity": {"type": "AssumedRole", "principalId": "AROA%s:%s" % (rs(UP + "234567", 17), ctx.user),
           "arn": "arn:aws:sts::%s:assumed-role/Developer/%s" % (acct, ctx.user), "accountId": acct, "accessKeyId": akia("ASIA"),
           "sessionContext": {"attributes": {"creationDate": iso(False), "mfaAuthenticated": "true"}}},
           "eventTime": iso(False), "eventSource": "secretsmanager.amazonaws.com", "eventName": "GetSecretValue", "awsRegion": "us-east-1",
           "sourceIPAddress": "203.0.113.%d" % R.randrange(1, 255), "userAgent": "aws-cli/2.17.%d" % R.randrange(60),
           "requestParameters": {"secretId": "arn:aws:secretsmanager:us-east-1:%s:secret:%s/prod/db-%s" % (acct, ctx.proj, rs(A62, 6))},
           "responseElements": None, "requestID": uuid4(), "eventID": uuid4(), "readOnly": True, "eventType": "AwsApiCall",
           "recipientAccountId": acct}
    return shell(ctx, "aws cloudtrail lookup-events --lookup-attributes AttributeKey=EventName,AttributeValue=GetSecretValue --max-items 1 --query 'Events[0].CloudTrailEvent' --output text | jq .",
                 json.dumps(doc, indent=2))


@neg
def jupyter_ipynb_image_png(ctx):
    img = png_b64(R.randrange(200, 400))
    lines = ["   {", "    \"cell_type\": \"code\",", "    \"execution_count\": %d," % R.randrange(1, 40), "    \"id\": \"%s\"," % hx(8),
             "    \"outputs\": [", "     {", "      \"data\": {", "       \"image/png\": \"%s\"," % img,
             "       \"text/plain\": [", "        \"<Figure size 640x480 with 1 Axes>\"", "       ]", "      },",
             "      \"metadata\": {},", "      \"output_type\": \"display_data\"", "     }", "    ],"]
    s = R.randrange(100, 900)
    return "\u23fa Read(notebooks/%s_eda.ipynb)\n  \u23bf  Read %d lines\n\n%s" % (ctx.proj.replace("-", "_"), len(lines), read_tool(lines, s))


@neg
def env_names_only(ctx):
    names = sorted(["AWS_PROFILE", "AWS_REGION", "DATABASE_URL", "GITHUB_TOKEN", "OPENAI_API_KEY", "STRIPE_SECRET_KEY", "HOME", "PATH",
                    "SSH_AUTH_SOCK", "NPM_CONFIG_USERCONFIG", "VAULT_ADDR", "SENTRY_AUTH_TOKEN"][:R.randrange(8, 13)])
    k = R.randrange(2)
    if k == 0:
        return shell(ctx, "env | cut -d= -f1 | sort", "\n".join(names))
    return shell(ctx, "printenv | awk -F= '{print $1}' | grep -E 'TOKEN|KEY|SECRET|PASS|URL'", "\n".join(n for n in names if any(w in n for w in ["TOKEN", "KEY", "SECRET", "PASS", "URL"])))


@neg
def vault_policy_hcl(ctx):
    lines = ["# %s read-only access to its own secrets" % ctx.proj, "path \"secret/data/%s/*\" {" % ctx.proj, "  capabilities = [\"read\", \"list\"]", "}", "",
             "path \"database/creds/%s-readonly\" {" % ctx.proj, "  capabilities = [\"read\"]", "}", "",
             "path \"transit/encrypt/%s\" {" % ctx.proj, "  capabilities = [\"update\"]", "}", "",
             "path \"auth/token/renew-self\" {", "  capabilities = [\"update\"]", "}"]
    return fileview(ctx, "vault/policies/%s.hcl" % ctx.proj, lines)


def sops_enc(n, typ="str"):
    return "ENC[AES256_GCM,data:%s,iv:%s,tag:%s,type:%s]" % (b64(n), b64(32), b64(16), typ)


@neg
def sops_encrypted_yaml(ctx):
    lines = ["database:", "    user: %s" % sops_enc(6), "    password: %s" % sops_enc(24), "stripe:", "    secret_key: %s" % sops_enc(60),
             "sops:", "    kms: []", "    age:", "        - recipient: %s" % age_public(), "          enc: |",
             "            -----BEGIN AGE ENCRYPTED FILE-----"]
    lines += ["            " + b64(48) for _ in range(4)]
    lines += ["            -----END AGE ENCRYPTED FILE-----", "    lastmodified: \"%s\"" % iso(False),
              "    mac: %s" % sops_enc(32), "    unencrypted_suffix: _unencrypted", "    version: 3.9.%d" % R.randrange(5)]
    return fileview(ctx, "secrets/%s.enc.yaml" % pick(["prod", "staging"]), lines)


@neg
def compose_secrets_files(ctx):
    lines = ["services:", "  %s:" % ctx.svc, "    image: ghcr.io/%s/%s:latest" % (ctx.org, ctx.proj), "    environment:",
             "      DB_PASSWORD_FILE: /run/secrets/db_password", "      API_KEY: ${API_KEY:?API_KEY must be set}", "      LOG_LEVEL: ${LOG_LEVEL:-info}",
             "    secrets:", "      - db_password", "      - stripe_key", "", "secrets:", "  db_password:", "    file: ./secrets/db_password.txt",
             "  stripe_key:", "    external: true", "    name: %s_stripe_key_v%d" % (ctx.proj.replace("-", "_"), R.randrange(1, 6))]
    return fileview(ctx, pick(["compose.yaml", "docker-compose.prod.yml"]), lines)


@neg
def psql_select_uuid_ulid_rows(ctx):
    out = "                  id                  |          public_id          | status  |          created_at\n--------------------------------------+----------------------------+---------+-------------------------------\n"
    n = R.randrange(3, 7)
    for _ in range(n):
        out += " %s | %s | %-7s | %s %s.%06d+00\n" % (pick([uuid4(), uuid7()]), ulid(), pick(["paid", "pending", "void"]), date(), clock(), R.randrange(10**6))
    out += "(%d rows)" % n
    return "%s=> SELECT id, public_id, status, created_at FROM invoices ORDER BY created_at DESC LIMIT %d;\n" % (ctx.proj.replace("-", "_"), n) + out


@neg
def gradle_verification_metadata(ctx):
    lines = ["      <component group=\"io.jsonwebtoken\" name=\"jjwt-api\" version=\"0.12.%d\">" % R.randrange(7),
             "         <artifact name=\"jjwt-api-0.12.6.jar\">", "            <sha256 value=\"%s\" origin=\"Generated by Gradle\"/>" % sha256(),
             "         </artifact>", "         <artifact name=\"jjwt-api-0.12.6.pom\">",
             "            <sha256 value=\"%s\" origin=\"Generated by Gradle\"/>" % sha256(), "         </artifact>", "      </component>",
             "      <component group=\"org.bouncycastle\" name=\"bcprov-jdk18on\" version=\"1.78.1\">", "         <artifact name=\"bcprov-jdk18on-1.78.1.jar\">",
             "            <pgp value=\"%s\"/>" % hx(40).upper(), "            <sha256 value=\"%s\" origin=\"Generated by Gradle\"/>" % sha256(), "         </artifact>", "      </component>"]
    s = R.randrange(200, 4000)
    return shell(ctx, "sed -n '%d,%dp' gradle/verification-metadata.xml" % (s, s + len(lines) - 1), "\n".join(lines))


@neg
def supabase_secrets_list(ctx):
    out = "  \n  NAME                      \u2502 DIGEST\n  \u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u253c\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\n"
    for n in ["OPENAI_API_KEY", "RESEND_API_KEY", "STRIPE_SECRET_KEY", "SUPABASE_ANON_KEY", "SUPABASE_DB_URL", "SUPABASE_SERVICE_ROLE_KEY", "SUPABASE_URL"]:
        out += "    %-24s \u2502 %s\n" % (n, sha256())
    return shell(ctx, "supabase secrets list --project-ref %s" % rs(LO, 20), out.rstrip("\n"))


@neg
def github_api_rate_headers(ctx):
    out = """HTTP/2 200
date: {wd}, {d} {mon} 2025 {c} GMT
content-type: application/json; charset=utf-8
cache-control: private, max-age=60, s-maxage=60
vary: Accept, Authorization, Cookie, X-GitHub-OTP,Accept-Encoding, Accept, X-Requested-With
etag: W/"{etag}"
x-oauth-scopes: read:org, repo, workflow
x-accepted-oauth-scopes: repo
github-authentication-token-expiration: 2025-{m2:02d}-{d2:02d} 00:00:00 UTC
x-github-media-type: github.v3; format=json
x-github-api-version-selected: 2022-11-28
x-ratelimit-limit: 5000
x-ratelimit-remaining: {rem}
x-ratelimit-reset: {reset}
x-ratelimit-used: {used}
x-ratelimit-resource: core
x-github-request-id: {rid}""".format(wd=pick(["Mon", "Wed"]), d=R.randrange(1, 28), mon=pick(["Feb", "May"]), c=clock(), etag=sha256(),
                                     m2=R.randrange(1, 13), d2=R.randrange(1, 28), rem=R.randrange(4000, 5000), reset=R.randrange(1740000000, 1760000000),
                                     used=R.randrange(1, 900), rid="%s:%s:%s:%s:%s" % (hx(4).upper(), hx(5).upper(), hx(7).upper(), hx(7).upper(), hx(8).upper()))
    return shell(ctx, "gh api -i repos/%s/%s | head -n 17" % (ctx.org, ctx.proj), out)


@neg
def celery_inspect_task_ids(ctx):
    w = "celery@%s-worker-%s" % (ctx.proj, rs(LO + DG, 5))
    out = "->  %s: OK\n" % w
    for _ in range(R.randrange(1, 4)):
        out += "    * {'id': '%s', 'name': '%s.tasks.%s', 'args': [%d], 'kwargs': {}, 'type': '%s.tasks.%s', 'hostname': '%s', 'time_start': %.6f, 'acknowledged': True, 'delivery_info': {'exchange': '', 'routing_key': 'celery', 'priority': 0, 'redelivered': False}, 'worker_pid': %d}\n" % (
            uuid4(), ctx.svc, "send_receipt", R.randrange(10**5), ctx.svc, "send_receipt", w, 1740000000 + R.random() * 10**7, R.randrange(10, 9999))
    return shell(ctx, "celery -A %s inspect active" % ctx.svc, out + "\n1 node online.")


@neg
def graphql_persisted_query_hashes(ctx):
    out = []
    for op in ["GetViewer", "ListProjects", "UpdateApiKeyLabel", "RevokeToken"]:
        out.append("%s\t%s" % (sha256(), op))
    body = json.dumps({"operationName": "GetViewer", "variables": {}, "extensions": {"persistedQuery": {"version": 1, "sha256Hash": out[0].split("\t")[0]}}})
    return shell(ctx, "jq -r 'to_entries[] | \"\\(.key)\\t\\(.value.operationName)\"' persisted-queries.json", "\n".join(out)) + \
        "\n" + ctx.prompt() + "cat fixtures/request.json\n" + body


@neg
def jest_snapshot_mock_ids(ctx):
    lines = ["// Jest Snapshot v1, https://goo.gl/fbAQLP", "", "exports[`createOrder returns a stable payload 1`] = `", "{",
             "  \"checksum\": \"%s\"," % sha256(), "  \"id\": \"ord_%s\"," % rs(A62, 24), "  \"idempotencyKey\": \"%s\"," % uuid4(),
             "  \"items\": [", "    {", "      \"sku\": \"SKU-%d\"," % R.randrange(1000, 9999), "      \"qty\": %d," % R.randrange(1, 5), "    },",
             "  ],", "  \"traceId\": \"%s\"," % hx(32), "}", "`;"]
    return fileview(ctx, "src/__tests__/__snapshots__/orders.test.ts.snap", lines)


@neg
def docker_volume_ls_anon(ctx):
    out = "DRIVER    VOLUME NAME\n"
    for _ in range(R.randrange(3, 6)):
        out += "local     %s\n" % sha256()
    out += "local     %s_pgdata\nlocal     %s_redis" % (ctx.proj, ctx.proj)
    return shell(ctx, "docker volume ls", out)


@neg
def gcloud_logging_insert_ids(ctx):
    out = []
    for d, c in reversed(times(R.randrange(2, 4))):
        t0 = "%sT%s.%03dZ" % (d, c, R.randrange(1000))
        out += ["---", "insertId: %s" % rs(LO + DG, 14), "labels:", "  instanceId: '%d'" % R.randrange(10**18, 10**19),
                "logName: projects/%s-prod/logs/run.googleapis.com%%2Fstdout" % ctx.proj, "receiveTimestamp: '%s'" % t0,
                "resource:", "  labels:", "    revision_name: %s-%05d-%s" % (ctx.svc, R.randrange(1, 400), rs(LO, 3)), "  type: cloud_run_revision",
                "textPayload: 'GET /healthz 200 %dms'" % R.randrange(1, 40), "timestamp: '%s'" % t0,
                "trace: projects/%s-prod/traces/%s" % (ctx.proj, hx(32)), "spanId: '%d'" % R.randrange(10**18, 10**19)]
    return shell(ctx, "gcloud logging read 'resource.type=cloud_run_revision' --limit %d --format yaml" % (len(out) // 14), "\n".join(out[1:]))


@neg
def csproj_usersecretsid(ctx):
    lines = ["<Project Sdk=\"Microsoft.NET.Sdk.Web\">", "", "  <PropertyGroup>", "    <TargetFramework>net8.0</TargetFramework>",
             "    <Nullable>enable</Nullable>", "    <UserSecretsId>%s</UserSecretsId>" % uuid4(), "    <ProjectGuid>{%s}</ProjectGuid>" % uuid4().upper(),
             "  </PropertyGroup>", "", "  <ItemGroup>", "    <PackageReference Include=\"Azure.Identity\" Version=\"1.12.%d\" />" % R.randrange(3),
             "    <PackageReference Include=\"Azure.Extensions.AspNetCore.Configuration.Secrets\" Version=\"1.3.2\" />", "  </ItemGroup>", "</Project>"]
    out = fileview(ctx, "src/%s.Api/%s.Api.csproj" % (ctx.proj.capitalize(), ctx.proj.capitalize()), lines)
    return out + "\n" + ctx.prompt() + "dotnet user-secrets list --project src/%s.Api\nNo secrets configured for this application." % ctx.proj.capitalize()


# ================================================================ output

OPEN, CLOSE = "\u00ab", "\u00bb"


def spans(text):
    out, i = [], 0
    while True:
        a = text.find(OPEN, i)
        b = text.find(CLOSE, i)
        if a < 0:
            assert b < 0, "stray close mark"
            return out
        assert b > a, "close before open"
        nxt = text.find(OPEN, a + 1)
        assert nxt < 0 or nxt > b, "nested marks"
        out.append((a, b))
        i = b + 1


def check(row):
    text = row["text"]
    if not row["positive"]:
        assert OPEN not in text and CLOSE not in text, row["template"]
        return
    sp = spans(text)
    assert sp, "positive row without a mark: %s" % row["template"]
    rest = text
    for a, b in sp:
        s = text[a + 1:b]
        assert s and s == s.strip(), (row["template"], s)
        assert s[0] not in "\"'`" and s[-1] not in "\"'`", (row["template"], s)
        for w in ("Bearer ", "Basic ", "token "):
            assert not s.startswith(w), (row["template"], s)
    for a, b in reversed(sp):
        rest = rest[:a] + "\x00" + rest[b + 1:]
    for a, b in sp:
        s = text[a + 1:b]
        if len(s) >= 8:
            assert s not in rest, ("unmarked repeat", row["template"], s)


def main():
    names = [n for n, _ in POS] + [n for n, _ in NEG]
    assert len(POS) == 60 and len(NEG) == 60 and len(set(names)) == 120
    rows = []
    for positive, group in ((True, POS), (False, NEG)):
        for name, fn in group:
            for _ in range(5):
                text = fn(Ctx())
                row = {"id": len(rows) + 1, "template": name, "positive": positive, "text": text}
                check(row)
                rows.append(row)
    assert len(rows) == 600 and sum(r["positive"] for r in rows) == 300
    out = sys.stdout
    for r in rows:
        out.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
