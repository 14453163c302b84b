#!/usr/bin/env python3
"""Tuning set 10: data, machine learning and SaaS integrations as a coding
agent meets them. Standard library only, one random.Random(1010).

    python3 generate.py > rows.jsonl

Rows: {"id", "template", "positive", "text"}; secrets are wrapped in « ».
"""
import base64
import hashlib
import hmac
import json
import os
import random
import re
import struct
import sys
import unicodedata
import zlib
from urllib.parse import quote

R = random.Random(1010)
OPEN, CLOSE = "\u00ab", "\u00bb"

# --------------------------------------------------------------------------
# alphabets and primitive random helpers
# --------------------------------------------------------------------------
LOW = "abcdefghijklmnopqrstuvwxyz"
UP = LOW.upper()
DIG = "0123456789"
HEX = "0123456789abcdef"
LETTERS = UP + LOW
ALNUM = UP + LOW + DIG
UPDIG = UP + DIG
LOWDIG = LOW + DIG
B64A = UP + LOW + DIG + "+/"
B64U = UP + LOW + DIG + "-_"
PWSYM = "!#%&*+-=?@^_~."


def rs(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def digits(n):
    return R.choice("123456789") + rs(DIG, n - 1)


# registry of every random value that must be unique across the corpus
REG = {}


def fresh(fn, *a):
    for _ in range(200):
        v = fn(*a)
        if v not in REG:
            REG[v] = 1
            return v
    raise AssertionError("cannot draw a fresh value")


def _uuid():
    h = list(rs(HEX, 32))
    h[12] = "4"
    h[16] = R.choice("89ab")
    h = "".join(h)
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def uuid4():
    return fresh(_uuid)


def hexs(n):
    return fresh(lambda: rs(HEX, n))


def alnum(n):
    return fresh(lambda: rs(ALNUM, n))


def uid(alpha, n, prefix=""):
    return fresh(lambda: prefix + rs(alpha, n))


def b64std(nbytes):
    return fresh(lambda: base64.b64encode(rbytes(nbytes)).decode())


def b64url_nopad(nbytes):
    return fresh(lambda: base64.urlsafe_b64encode(rbytes(nbytes)).decode().rstrip("="))


def S(x):
    """mark a secret"""
    return OPEN + x + CLOSE


def pick(seq):
    return R.choice(seq)


def sample(seq, k):
    return R.sample(list(seq), k)


def chance(p):
    return R.random() < p


# --------------------------------------------------------------------------
# passwords
# --------------------------------------------------------------------------
WORDS = ["orbit", "maple", "tundra", "quartz", "falcon", "velvet", "cactus",
         "harbor", "lantern", "meadow", "pixel", "saffron", "glacier", "copper",
         "nimbus", "walnut", "ember", "delta", "juniper", "marble", "otter",
         "prairie", "raven", "sierra", "tulip", "vortex", "willow", "zephyr",
         "basil", "cobalt", "dune", "fjord", "granite", "hazel", "indigo",
         "kelp", "lumen", "mango", "nectar", "opal", "pepper", "quill"]


def _pw_random(n):
    while True:
        s = R.choice(ALNUM) + rs(ALNUM + PWSYM, n - 2) + R.choice(ALNUM)
        if any(c in DIG for c in s) and any(c in PWSYM for c in s):
            return s


def _pw_phrase():
    ws = sample(WORDS, R.randint(3, 4))
    ws = [w.capitalize() if chance(0.5) else w for w in ws]
    sep = pick(["-", ".", "_", "+"])
    s = sep.join(ws) + sep + str(R.randint(10, 999))
    if chance(0.6):
        s += pick("!?#*%")
    return s


def _pw_short():
    n = R.randint(8, 12)
    while True:
        s = R.choice(LETTERS) + rs(ALNUM, n - 2) + R.choice(ALNUM + "!#*")
        if any(c in DIG for c in s):
            return s


def pw_any():
    k = R.random()
    if k < 0.4:
        return fresh(_pw_random, R.randint(14, 26))
    if k < 0.7:
        return fresh(_pw_phrase)
    return fresh(_pw_short)


def pw_urlsafe():
    """a password without characters that need escaping in a URL"""
    k = R.random()
    if k < 0.5:
        return fresh(lambda: R.choice(ALNUM) + rs(ALNUM + "-_", R.randint(14, 28)) + R.choice(ALNUM))
    if k < 0.75:
        return fresh(lambda: "-".join(sample(WORDS, 3)) + "-" + str(R.randint(10, 99)))
    return fresh(lambda: R.choice(LETTERS) + rs(ALNUM, R.randint(7, 11)))


def urlenc(p):
    return quote(p, safe="-_.~")


# --------------------------------------------------------------------------
# vendor token formats
# --------------------------------------------------------------------------
def t_openai():
    k = R.random()
    if k < 0.7:
        return fresh(lambda: "sk-proj-" + rs(B64U, 74) + "T3BlbkFJ" + rs(B64U, 74))
    if k < 0.85:
        return fresh(lambda: "sk-svcacct-" + rs(B64U, 74) + "T3BlbkFJ" + rs(B64U, 74))
    return fresh(lambda: "sk-" + rs(ALNUM, 20) + "T3BlbkFJ" + rs(ALNUM, 20))


def t_anthropic():
    return fresh(lambda: "sk-ant-api03-" + rs(B64U, 93) + "AA")


def t_hf():
    return fresh(lambda: "hf_" + rs(LETTERS, 34))


def t_wandb():
    return hexs(40)


def t_replicate():
    return fresh(lambda: "r8_" + rs(ALNUM, 37))


def t_cohere():
    return alnum(40)


def t_mistral():
    return alnum(32)


def t_groq():
    return fresh(lambda: "gsk_" + rs(ALNUM, 52))


def t_together():
    return hexs(64)


def t_gemini():
    return fresh(lambda: "AIzaSy" + rs(B64U, 33))


def t_openrouter():
    return fresh(lambda: "sk-or-v1-" + rs(HEX, 64))


def t_pinecone():
    return fresh(lambda: "pcsk_" + rs(ALNUM, 5) + "_" + rs(ALNUM, 63))


def t_langsmith(kind="pt"):
    return fresh(lambda: "lsv2_%s_%s_%s" % (kind, rs(HEX, 32), rs(HEX, 10)))


def t_dapi():
    return fresh(lambda: "dapi" + rs(HEX, 32) + pick(["", "", "-2", "-3"]))


def t_prefect():
    return fresh(lambda: "pnu_" + rs(ALNUM, 36))


def t_neptune():
    def g():
        d = {"api_address": "https://app.neptune.ai", "api_url": "https://app.neptune.ai",
             "api_key": _uuid()}
        return base64.b64encode(json.dumps(d, separators=(",", ":")).encode()).decode()
    return fresh(g)


def t_stripe(kind="sk", mode="live"):
    return fresh(lambda: "%s_%s_51%s" % (kind, mode, rs(ALNUM, 97)))


def t_whsec_cli():
    return fresh(lambda: "whsec_" + rs(HEX, 64))


def t_whsec_svix():
    return fresh(lambda: "whsec_" + base64.b64encode(rbytes(24)).decode())


def t_sendgrid():
    return fresh(lambda: "SG." + rs(B64U, 22) + "." + rs(B64U, 43))


def t_mailgun():
    return fresh(lambda: "%s-%s-%s" % (rs(HEX, 32), rs(HEX, 8), rs(HEX, 8)))


def t_xoxb():
    return fresh(lambda: "xoxb-%s-%s-%s" % (digits(12), digits(13), rs(ALNUM, 24)))


def t_xapp():
    return fresh(lambda: "xapp-1-A%s-%s-%s" % (rs(UPDIG, 10), digits(13), rs(HEX, 64)))


def snowflake_id():
    return fresh(lambda: str(R.randint(10 ** 17 * 9, 13 * 10 ** 17)))


def t_discord_bot(app_id):
    return fresh(lambda: base64.b64encode(app_id.encode()).decode().rstrip("=")
                 + "." + rs(B64U, 6) + "." + rs(B64U, 38))


def t_discord_hook():
    return fresh(lambda: rs(B64U, 68))


def t_telegram():
    return fresh(lambda: "%d:AA%s" % (R.randint(10 ** 9, 8 * 10 ** 9), rs(B64U, 33)))


def t_slack_hook_tail():
    return alnum(24)


def slack_hook(tail):
    return "https://hooks.slack.com/services/T%s/B%s/%s" % (
        uid(UPDIG, 8), uid(UPDIG, 10), S(tail))


def t_sentry_user():
    return fresh(lambda: "sntryu_" + rs(HEX, 64))


def t_sentry_org(org, iat):
    def g():
        d = {"iat": iat, "url": "https://sentry.io", "region_url": "https://us.sentry.io", "org": org}
        return "sntrys_" + base64.b64encode(json.dumps(d, separators=(",", ":")).encode()).decode() \
            + "_" + rs(B64A, 43)
    return fresh(g)


def t_okta():
    return fresh(lambda: "00" + rs(B64U, 40))


def t_auth0_secret():
    return fresh(lambda: rs(B64U, 64))


def t_clerk_sk():
    return fresh(lambda: "sk_live_" + rs(ALNUM, 42))


def clerk_pk(domain):
    return "pk_live_" + base64.b64encode(("clerk.%s$" % domain).encode()).decode()


def t_shpat(p="shpat"):
    return fresh(lambda: p + "_" + rs(HEX, 32))


def t_hubspot():
    return "pat-%s-%s" % (pick(["na1", "na1", "eu1"]), uuid4())


def t_notion():
    return fresh(lambda: "ntn_" + digits(11) + rs(ALNUM, 35))


def t_airtable():
    return fresh(lambda: "pat" + rs(ALNUM, 14) + "." + rs(HEX, 64))


def t_intercom():
    return fresh(lambda: base64.b64encode(("tok:%s:1:0" % _uuid().replace("-", "_")).encode()).decode())


def t_zendesk():
    return alnum(40)


def t_pd_rest():
    return fresh(lambda: "u+" + rs(ALNUM + "_-", 18))


def t_linear():
    return fresh(lambda: "lin_api_" + rs(ALNUM, 40))


def t_asana():
    return fresh(lambda: "2/%s/%s:%s" % (digits(16), digits(16), rs(HEX, 32)))


def t_cfpat():
    return fresh(lambda: "CFPAT-" + rs(B64U, 43))


def t_sanity():
    return fresh(lambda: "sk" + rs(ALNUM, 180))


def t_mapbox(kind, user):
    def g():
        d = {"u": user, "a": "cm" + rs(LOWDIG, 23)}
        body = base64.urlsafe_b64encode(json.dumps(d, separators=(",", ":")).encode()).decode().rstrip("=")
        return kind + "." + body + "." + rs(B64U, 22)
    return fresh(g)


def t_paypal(first):
    return fresh(lambda: first + rs(B64U, 79))


def t_square():
    return fresh(lambda: "EAAA" + rs(B64U, 60))


def t_aws_id():
    return fresh(lambda: "AKIA" + rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16))


def t_aws_secret():
    return fresh(lambda: rs(ALNUM, 2) + rs(ALNUM + "+/", 36) + rs(ALNUM, 2))


def t_azure_storage():
    return b64std(64)


def t_fernet():
    return fresh(lambda: base64.urlsafe_b64encode(rbytes(32)).decode())


def t_confluent_secret():
    return fresh(lambda: rs(ALNUM, 2) + rs(ALNUM + "+/", 60) + rs(ALNUM, 2))


def t_docker_pat():
    return fresh(lambda: "dckr_pat_" + rs(B64U, 27))


def t_posthog_personal():
    return fresh(lambda: "phx_" + rs(ALNUM, 47))


def t_google_client_secret():
    return fresh(lambda: "GOCSPX-" + rs(B64U, 28))


def t_refresh_token():
    return fresh(lambda: "1//0" + rs(B64U, 2) + rs(B64U, 97))


def t_ya29():
    return fresh(lambda: "ya29.a0" + rs(B64U, 200))


# --------------------------------------------------------------------------
# JWT
# --------------------------------------------------------------------------
def b64u_json(o):
    return base64.urlsafe_b64encode(json.dumps(o, separators=(",", ":")).encode()).decode().rstrip("=")


def jwt_hs256(payload, key, header=None):
    h = b64u_json(header or {"alg": "HS256", "typ": "JWT"})
    p = b64u_json(payload)
    sig = hmac.new(key, (h + "." + p).encode(), hashlib.sha256).digest()
    return fresh(lambda: h + "." + p + "." + base64.urlsafe_b64encode(sig).decode().rstrip("="))


def jwt_rs256(payload, kid):
    h = b64u_json({"alg": "RS256", "typ": "JWT", "kid": kid})
    p = b64u_json(payload)
    return fresh(lambda: h + "." + p + "." + base64.urlsafe_b64encode(rbytes(256)).decode().rstrip("="))


# --------------------------------------------------------------------------
# DER / PEM private keys with real structure
# --------------------------------------------------------------------------
def der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def tlv(tag, content):
    return bytes([tag]) + der_len(len(content)) + content


def der_int(v):
    return tlv(0x02, v.to_bytes((v.bit_length() + 8) // 8, "big"))


def der_seq(*parts):
    return tlv(0x30, b"".join(parts))


OID_RSA = bytes.fromhex("06092a864886f70d010101")
OID_EC = bytes.fromhex("06072a8648ce3d0201")
OID_P256 = bytes.fromhex("06082a8648ce3d030107")
NULL = b"\x05\x00"


def rbig(bits):
    return R.getrandbits(bits) | (1 << (bits - 1)) | 1


def rsa_keypair_der(bits=2048):
    n = rbig(bits)
    e = 65537
    d = R.getrandbits(bits - 1) | (1 << (bits - 2))
    half = bits // 2
    p, q = rbig(half), rbig(half)
    dp, dq, qi = R.getrandbits(half - 1), R.getrandbits(half - 1), R.getrandbits(half - 1)
    rsakey = der_seq(der_int(0), der_int(n), der_int(e), der_int(d), der_int(p), der_int(q),
                     der_int(dp), der_int(dq), der_int(qi))
    pkcs8 = der_seq(der_int(0), der_seq(OID_RSA, NULL), tlv(0x04, rsakey))
    spki = der_seq(der_seq(OID_RSA, NULL), tlv(0x03, b"\x00" + der_seq(der_int(n), der_int(e))))
    return pkcs8, spki, rsakey


def ec_pkcs8_der():
    priv = rbytes(32)
    pub = b"\x04" + rbytes(64)
    inner = der_seq(der_int(1), tlv(0x04, priv), tlv(0xA1, tlv(0x03, b"\x00" + pub)))
    return der_seq(der_int(0), der_seq(OID_EC, OID_P256), tlv(0x04, inner))


def wrap64(s):
    return [s[i:i + 64] for i in range(0, len(s), 64)]


def pem_body(der):
    b = base64.b64encode(der).decode()
    REG[b] = 1
    return wrap64(b)


def pem_block(label, der):
    """one contiguous marked span, BEGIN to END"""
    lines = ["-----BEGIN %s-----" % label] + pem_body(der) + ["-----END %s-----" % label]
    return S("\n".join(lines))


def pem_lines(label, der, indent=""):
    """per-line marks: BEGIN/END outside, each body line its own span"""
    return ([indent + "-----BEGIN %s-----" % label]
            + [indent + S(x) for x in pem_body(der)]
            + [indent + "-----END %s-----" % label])


def pem_escaped(label, der):
    """PEM as it sits in a JSON/YAML string with \\n escapes (literal backslash-n)"""
    lines = ["-----BEGIN %s-----" % label] + pem_body(der) + ["-----END %s-----" % label]
    return S("\\n".join(lines)) + "\\n"


def pem_for_json(label, der):
    """PEM text with real newlines, for json.dumps to escape; trailing \\n outside"""
    lines = ["-----BEGIN %s-----" % label] + pem_body(der) + ["-----END %s-----" % label]
    return S("\n".join(lines)) + "\n"


# --------------------------------------------------------------------------
# time
# --------------------------------------------------------------------------
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
WEEKDAYS_FROM_THU = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]


def days_from_civil(y, m, d):
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


class TS:
    def __init__(self, y=None):
        self.y = y or pick([2024, 2025, 2025])
        self.mo = R.randint(1, 12)
        self.d = R.randint(1, 28)
        self.h = R.randint(0, 23)
        self.mi = R.randint(0, 59)
        self.s = R.randint(0, 59)
        self.us = R.randint(0, 999999)

    def epoch(self):
        return days_from_civil(self.y, self.mo, self.d) * 86400 + self.h * 3600 + self.mi * 60 + self.s

    def plus(self, secs):
        t = TS.__new__(TS)
        e = self.epoch() + secs
        days, rem = divmod(e, 86400)
        # civil from days
        z = days + 719468
        era = z // 146097
        doe = z - era * 146097
        yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
        y = yoe + era * 400
        doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
        mp = (5 * doy + 2) // 153
        d = doy - (153 * mp + 2) // 5 + 1
        m = mp + 3 if mp < 10 else mp - 9
        t.y, t.mo, t.d = y + (m <= 2), m, d
        t.h, rem = divmod(rem, 3600)
        t.mi, t.s = divmod(rem, 60)
        t.us = R.randint(0, 999999)
        return t

    def date(self):
        return "%04d-%02d-%02d" % (self.y, self.mo, self.d)

    def hms(self):
        return "%02d:%02d:%02d" % (self.h, self.mi, self.s)

    def iso(self, z="Z"):
        return "%sT%s%s" % (self.date(), self.hms(), z)

    def iso_ms(self):
        return "%sT%s.%03dZ" % (self.date(), self.hms(), self.us // 1000)

    def iso_us(self, z="Z"):
        return "%sT%s.%06d%s" % (self.date(), self.hms(), self.us, z)

    def sp(self):
        return "%s %s" % (self.date(), self.hms())

    def compact(self):
        return "%04d%02d%02d_%02d%02d%02d" % (self.y, self.mo, self.d, self.h, self.mi, self.s)

    def weekday(self):
        return WEEKDAYS_FROM_THU[days_from_civil(self.y, self.mo, self.d) % 7]

    def http(self):
        return "%s, %02d %s %04d %s GMT" % (self.weekday(), self.d, MONTHS[self.mo - 1], self.y, self.hms())

    def ms(self):
        return self.epoch() * 1000 + self.us // 1000


# --------------------------------------------------------------------------
# people, places and projects
# --------------------------------------------------------------------------
USERS = ["maya", "dev", "ubuntu", "ana", "tkato", "rpatel", "lwei", "sofia", "omar", "jb",
         "kfischer", "ines", "priya", "marco", "nina", "hiro", "femi", "yara", "lukas", "chen",
         "aurelie", "dmitri", "zoe", "ravi"]
HOSTS = ["ml-box-03", "dl-a100-2", "analytics-dev", "ws-lima", "gpu-node-11", "mbp-ana",
         "etl-runner-2", "devbox", "lab-rtx4090", "nb-worker-5", "data-jump-1", "thinkpad-x1",
         "feature-store-dev", "ray-head-0", "build-07"]
ORGS = ["acme-analytics", "northwind", "lumen-labs", "fernhill", "tidepool-ai", "quanta-retail",
        "orbital-data", "kitebird", "harbor-ml", "pinecrest", "bluefin-health", "mosaic-travel",
        "sundial-fin", "redwood-edu", "parcelpoint", "helio-energy"]
PROJECTS = ["churn-model", "rec-engine", "demand-forecast", "support-rag", "etl-core",
            "fraud-scoring", "search-ranker", "doc-qa", "billing-sync", "lakehouse",
            "pricing-ml", "ticket-triage", "ltv-forecast", "catalog-embed", "growth-dash",
            "claims-nlp", "route-opt", "crm-bridge"]
BRANCHES = ["main", "main", "develop", "feat/rag-eval", "fix/airflow-conn", "chore/bump-dbt",
            "exp/lora-7b", "data/backfill-q3", "feat/stripe-webhooks", "wip/vector-store",
            "fix/snowflake-auth", "feat/slack-alerts"]
VENVS = [".venv", "venv", "ml", "base", "py311", "dbt", "airflow"]
REGIONS = ["us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-2"]
FIRST = ["Maya", "Ana", "Tomo", "Ravi", "Sofia", "Omar", "Lena", "Hiro", "Femi", "Yara",
         "Lukas", "Chen", "Aurelie", "Dmitri", "Zoe", "Priya", "Ines", "Marco", "Nina", "Kai"]
LAST = ["Lopez", "Kato", "Patel", "Wei", "Rossi", "Haddad", "Fischer", "Okafor", "Silva",
        "Novak", "Park", "Dubois", "Ivanova", "Berg", "Costa", "Nakamura", "Mensah", "Moreau"]


class Ctx:
    def __init__(self):
        self.user = pick(USERS)
        self.host = pick(HOSTS)
        self.org = pick(ORGS)
        self.proj = pick(PROJECTS)
        self.branch = pick(BRANCHES)
        self.venv = pick(VENVS)
        self.mac = self.host.startswith("mbp")
        self.home = ("/Users/" if self.mac else "/home/") + self.user
        sub = pick(["", "code/", "src/", "work/", "repos/"])
        self.rel = sub + self.proj
        self.cwd = self.home + "/" + self.rel
        self.style = pick(["bash", "omz", "starship", "rhel", "venv", "bare", "zsh"])
        self.domain = self.org.replace("-", "") + pick([".com", ".io", ".ai", ".dev", ".co"])
        self.email = "%s@%s" % (self.user, self.domain)
        self.ts = TS()
        self.pyver = pick(["3.10.14", "3.11.9", "3.11.10", "3.12.4", "3.12.7"])

    def prompt(self, cmd):
        base = self.proj
        st = self.style
        if st == "bash":
            return ["%s@%s:~/%s$ %s" % (self.user, self.host, self.rel, cmd)]
        if st == "omz":
            dirty = " \u2717" if chance(0.4) else ""
            return ["\u279c  %s git:(%s)%s %s" % (base, self.branch, dirty, cmd)]
        if st == "starship":
            return ["%s on \ue0a0 %s via \U0001f40d v%s (%s) " % (base, self.branch, self.pyver, self.venv),
                    "\u276f %s" % cmd]
        if st == "rhel":
            return ["[%s@%s %s]$ %s" % (self.user, self.host, base, cmd)]
        if st == "venv":
            return ["(%s) %s@%s:~/%s$ %s" % (self.venv, self.user, self.host, self.rel, cmd)]
        if st == "zsh":
            return ["%s %% %s" % (base, cmd)]
        return ["$ %s" % cmd]


# --------------------------------------------------------------------------
# frames
# --------------------------------------------------------------------------
PREFIXED = {"claude", "codex_ran", "gemini", "read"}
PLAIN_FRAMES = ["prompt", "prompt", "prompt", "codex_exec"]
AGENT_FRAMES = ["claude", "claude", "codex_ran", "gemini"]
ALL_FRAMES = PLAIN_FRAMES + AGENT_FRAMES


def balanced(line):
    depth = 0
    for ch in line:
        if ch == OPEN:
            depth += 1
            if depth > 1:
                return False
        elif ch == CLOSE:
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def dwidth(s):
    w = 0
    for ch in s:
        if ch in (OPEN, CLOSE):
            continue
        if unicodedata.combining(ch) or ch == "\ufe0f":
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def explines(out):
    if isinstance(out, str):
        return out.split("\n")
    res = []
    for x in out:
        res.extend(x.split("\n"))
    return res


class Frame:
    def __init__(self, kind):
        self.kind = kind

    @property
    def prefixed(self):
        return self.kind in PREFIXED


def frame(kinds=None):
    return Frame(pick(kinds or ALL_FRAMES))


def _check_prefixed(lines):
    for l in lines:
        assert balanced(l), "mark crosses a per-line prefix: %r" % l


def render(c, fr, blocks, intro=None):
    """blocks: list of (cmd, output) -> text in the given frame"""
    kind = fr.kind
    if kind == "gemini":
        allw = []
        for cmd, out in blocks:
            allw.append(dwidth(cmd) + 11)
            allw.extend(dwidth(l.replace("\t", "    ")) for l in explines(out))
        if max(allw) > 150:
            kind = "claude"
    res = []
    if intro and kind in ("claude", "codex_ran", "gemini", "codex_exec"):
        res.append(("\u23fa " if kind == "claude" else "\u2022 " if kind == "codex_ran" else "\u2726 " if kind == "gemini" else "codex\n") + intro)
        res.append("")
    for cmd, out in blocks:
        lines = explines(out)
        if kind == "prompt":
            res.extend(c.prompt(cmd))
            res.extend(lines)
        elif kind == "codex_exec":
            if res and res[-1] != "":
                res.append("")
            q = "'" + cmd + "'" if "'" not in cmd else '"' + cmd.replace('"', '\\"') + '"'
            res.append("exec")
            res.append("bash -lc %s in %s" % (q, c.cwd))
            res.append(" succeeded in %dms:" % R.randint(18, 2900))
            res.extend(lines)
        elif kind == "claude":
            _check_prefixed(lines)
            res.append("\u23fa Bash(%s)" % cmd)
            if not lines or lines == [""]:
                res.append("  \u23bf  (No content)")
                lines = []
            for i, l in enumerate(lines):
                if i == 0:
                    res.append("  \u23bf  " + l)
                else:
                    res.append("     " + l if l else "")
        elif kind == "codex_ran":
            _check_prefixed(lines)
            res.append("\u2022 Ran %s" % cmd)
            for i, l in enumerate(lines):
                if i == 0:
                    res.append("  \u2514 " + l)
                else:
                    res.append("    " + l if l else "")
        elif kind == "gemini":
            _check_prefixed(lines)
            lines = [l.replace("\t", "    ") for l in lines]
            head = "\u2714  Shell %s" % cmd
            w = max([dwidth(head)] + [dwidth(l) for l in lines] + [96])
            res.append("\u256d" + "\u2500" * (w + 2) + "\u256e")
            res.append("\u2502 " + head + " " * (w - dwidth(head)) + " \u2502")
            res.append("\u2502 " + " " * w + " \u2502")
            for l in lines:
                res.append("\u2502 " + l + " " * (w - dwidth(l)) + " \u2502")
            res.append("\u2570" + "\u2500" * (w + 2) + "\u256f")
        else:
            raise AssertionError(kind)
        if kind in ("claude", "codex_ran", "gemini"):
            res.append("")
    while res and res[-1] == "":
        res.pop()
    if kind == "prompt" and chance(0.3):
        res.extend(c.prompt("")[-1:] if c.style != "starship" else ["\u276f "])
        res[-1] = res[-1].rstrip()
    return "\n".join(res)


def read_tool(path, lines, start=1):
    _check_prefixed(lines)
    out = ["\u23fa Read(%s)" % path]
    for i, l in enumerate(lines):
        out.append("%6d\u2192%s" % (start + i, l))
    return "\n".join(out)


def cat_n(lines, start=1):
    _check_prefixed(lines)
    return ["%6d\t%s" % (start + i, l) for i, l in enumerate(lines)]


def bat(path, lines, start=1):
    _check_prefixed(lines)
    bar = "\u2500" * 7
    rule = "\u2500" * 60
    out = [bar + "\u252c" + rule, "       \u2502 File: " + path, bar + "\u253c" + rule]
    for i, l in enumerate(lines):
        out.append("%4d   \u2502 %s" % (start + i, l))
    out.append(bar + "\u2534" + rule)
    return out


def show_file(c, fr, path, lines, cmd=None, start=1):
    """a file read: Read tool, or cat through a frame"""
    if fr.kind == "read":
        return read_tool(path, lines, start)
    return render(c, fr, [(cmd or "cat %s" % path, lines)])


# --------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------
def table(headers, rows, style="light"):
    cols = list(zip(*([headers] + rows)))
    w = [max(dwidth(x) for x in col) for col in cols]

    def cell(x, i):
        return x + " " * (w[i] - dwidth(x))

    if style in ("light", "rich", "heavy_head"):
        if style == "light":
            tl, tm, tr, hl, hv = "\u250c", "\u252c", "\u2510", "\u2500", "\u2502"
            ml, mm, mr, mh = "\u251c", "\u253c", "\u2524", "\u2500"
            hvv = hv
            top = tl + tm.join(hl * (x + 2) for x in w) + tr
        else:
            top = "\u250f" + "\u2533".join("\u2501" * (x + 2) for x in w) + "\u2513"
            hvv = "\u2503"
            hv = "\u2502"
            ml, mm, mr, mh = "\u2521", "\u2547", "\u2529", "\u2501"
        out = [top, hvv + hvv.join(" " + cell(h, i) + " " for i, h in enumerate(headers)) + hvv,
               ml + mm.join(mh * (x + 2) for x in w) + mr]
        for r in rows:
            out.append(hv + hv.join(" " + cell(x, i) + " " for i, x in enumerate(r)) + hv)
        out.append("\u2514" + "\u2534".join("\u2500" * (x + 2) for x in w) + "\u2518")
        return out
    if style == "ascii":
        sep = "+" + "+".join("-" * (x + 2) for x in w) + "+"
        out = [sep, "|" + "|".join(" " + cell(h, i) + " " for i, h in enumerate(headers)) + "|", sep]
        for r in rows:
            out.append("|" + "|".join(" " + cell(x, i) + " " for i, x in enumerate(r)) + "|")
        out.append(sep)
        return out
    if style == "md":
        out = ["| " + " | ".join(cell(h, i) for i, h in enumerate(headers)) + " |",
               "|" + "|".join("-" * (x + 2) for x in w) + "|"]
        for r in rows:
            out.append("| " + " | ".join(cell(x, i) for i, x in enumerate(r)) + " |")
        return out
    if style == "plain":
        out = ["  ".join(cell(h, i) for i, h in enumerate(headers)).rstrip()]
        for r in rows:
            out.append("  ".join(cell(x, i) for i, x in enumerate(r)).rstrip())
        return out
    if style == "dashed":
        out = ["  ".join(cell(h, i) for i, h in enumerate(headers)).rstrip(),
               "  ".join("-" * x for x in w)]
        for r in rows:
            out.append("  ".join(cell(x, i) for i, x in enumerate(r)).rstrip())
        return out
    raise AssertionError(style)


def jdump(o, indent=2, sort=False):
    return json.dumps(o, indent=indent, ensure_ascii=False, sort_keys=sort)


def jline(o):
    return json.dumps(o, ensure_ascii=False, separators=(", ", ": "))


def jcompact(o):
    return json.dumps(o, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------
# template registry
# --------------------------------------------------------------------------
POS, NEG = [], []
ROW = [0]  # index of the row within its template (0..4), for templates that cycle variants


def pos(name):
    def deco(fn):
        POS.append((name, fn))
        return fn
    return deco


def neg(name):
    def deco(fn):
        NEG.append((name, fn))
        return fn
    return deco

# ==========================================================================
# notebook helpers
# ==========================================================================
def src_lines(code):
    ls = code.split("\n")
    return [l + "\n" for l in ls[:-1]] + ([ls[-1]] if ls[-1] else [])


def nb_id():
    return hexs(8) if chance(0.6) else uuid4()


def code_cell(code, outputs=(), n=None):
    return {"cell_type": "code", "execution_count": n, "id": nb_id(), "metadata": {},
            "outputs": list(outputs), "source": src_lines(code)}


def md_cell(text):
    return {"cell_type": "markdown", "id": nb_id(), "metadata": {}, "source": src_lines(text)}


def stream(text, name="stdout"):
    return {"name": name, "output_type": "stream", "text": src_lines(text)}


def exec_result(text, n):
    return {"data": {"text/plain": src_lines(text)}, "execution_count": n, "metadata": {},
            "output_type": "execute_result"}


def nb_doc(c, cells, extra_meta=None):
    meta = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"codemirror_mode": {"name": "ipython", "version": 3},
                              "file_extension": ".py", "mimetype": "text/x-python", "name": "python",
                              "nbconvert_exporter": "python", "pygments_lexer": "ipython3",
                              "version": c.pyver}}
    if extra_meta:
        meta.update(extra_meta)
    return {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def nb_text(nb):
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False)


NB_TOPICS = ["churn_eda", "embedding_eval", "rag_smoke_test", "weekly_kpis", "forecast_backtest",
             "label_audit", "prompt_playground", "feature_drift", "cohort_retention", "ticket_clustering"]


def db_url_parts(c):
    kind = pick(["postgresql", "postgresql+psycopg2", "mysql+pymysql", "postgresql"])
    host = pick(["analytics-db.%s" % c.domain, "10.20.%d.%d" % (R.randint(0, 255), R.randint(2, 254)),
                 "%s-ro.cluster-%s.%s.rds.amazonaws.com" % (c.proj, uid(LOWDIG, 12), pick(REGIONS)),
                 "db.%s.supabase.co" % uid(LOW, 20)])
    port = "3306" if "mysql" in kind else "5432"
    return kind, host, port


# ==========================================================================
# POSITIVE templates
# ==========================================================================
@pos("ipynb_env_cell_outputs")
def p_ipynb_env(c):
    topic = pick(NB_TOPICS)
    path = "notebooks/%02d_%s.ipynb" % (R.randint(1, 19), topic)
    provs = sample([("OPENAI_API_KEY", t_openai), ("ANTHROPIC_API_KEY", t_anthropic),
                    ("GROQ_API_KEY", t_groq), ("MISTRAL_API_KEY", t_mistral),
                    ("COHERE_API_KEY", t_cohere)], R.randint(1, 3))
    setup = ["import os"] + ['os.environ["%s"] = "%s"' % (k, S(g())) for k, g in provs]
    setup.append(pick(["from openai import OpenAI\nclient = OpenAI()", "import litellm",
                       "from langchain_openai import ChatOpenAI\nllm = ChatOpenAI(model=\"gpt-4o-mini\", temperature=0)"]))
    cells = [md_cell("# %s\n\nScratch notebook for %s (%s)." % (topic.replace("_", " ").title(), c.proj, c.user)),
             code_cell("\n".join(setup), n=1)]
    kind, host, port = db_url_parts(c)
    user = pick(["analyst", "readonly", c.user, "etl_" + c.user, "nb_reader"])
    pw = pw_any()
    db = pick(["analytics", "warehouse", "prod", "events"])
    url = "%s://%s:%s@%s:%s/%s" % (kind, user, S(urlenc(pw)), host, port, db)
    src = "engine"
    if chance(0.7):
        code = 'DB_URL = "%s"\nprint(DB_URL)' % url
        cells.append(code_cell(code, [stream(url + "\n")], n=2))
        src = "DB_URL"
    else:
        code = 'from sqlalchemy import create_engine\nengine = create_engine("%s")\nengine' % url
        shown = "%s://%s:***@%s:%s/%s" % (kind, user, host, port, db)
        cells.append(code_cell(code, [exec_result("Engine(%s)" % shown, 2)], n=2))
    rows = [["%d" % i, pick(["订阅", "退款", "配送延迟", "账单", "登录问题", "Abo", "Lieferung"]),
             "%d" % R.randint(10, 9000), "%.3f" % R.random()] for i in range(4)]
    df = "   segment  tickets   score\n" + "\n".join("%s  %s  %s  %s" % tuple(r) for r in rows)
    cells.append(code_cell('df = pd.read_sql("select segment, tickets, score from marts.%s limit 4", %s)\ndf' % (topic, src),
                           [exec_result(df, 3)], n=3))
    text = nb_text(nb_doc(c, cells))
    fr = frame(ALL_FRAMES + ["read", "read"])
    lines = text.split("\n")
    if fr.kind == "read":
        return read_tool(c.cwd + "/" + path, lines)
    cmd = pick(["cat %s" % path, "cat '%s'" % path])
    return render(c, fr, [(cmd, lines)])


@pos("nbconvert_script_warehouse")
def p_nbconvert(c):
    name = pick(NB_TOPICS)
    wh = pick(["snowflake", "redshift", "trino", "databricks"])
    pw = pw_any()
    if wh == "snowflake":
        conn = ["import snowflake.connector", "", "", "# In[2]:", "", "",
                "conn = snowflake.connector.connect(",
                '    account="%s-%s",' % (c.org.split("-")[0], uid(LOW, 6)),
                '    user="%s",' % c.user.upper(),
                '    password="%s",' % S(pw),
                '    warehouse="%s",' % pick(["ANALYTICS_WH", "DEV_WH", "XS_WH"]),
                '    database="PROD",', '    schema="MARTS",', '    role="ANALYST",', ")"]
    elif wh == "redshift":
        conn = ["import redshift_connector", "", "", "# In[2]:", "", "",
                "conn = redshift_connector.connect(",
                "    host='%s.%s.%s.redshift.amazonaws.com'," % (c.proj, uid(LOWDIG, 12), pick(REGIONS)),
                "    database='dev',", "    port=5439,",
                "    user='%s'," % pick(["awsuser", "analyst", c.user]),
                "    password='%s'" % S(pw), ")"]
    elif wh == "trino":
        conn = ["from trino.dbapi import connect", "from trino.auth import BasicAuthentication", "", "",
                "# In[2]:", "", "",
                "conn = connect(",
                '    host="trino.%s",' % c.domain, "    port=443,", '    http_scheme="https",',
                '    user="%s",' % c.user,
                '    auth=BasicAuthentication("%s", "%s"),' % (c.user, S(pw)),
                '    catalog="hive",', '    schema="analytics",', ")"]
    else:
        tok = t_dapi()
        conn = ["from databricks import sql", "", "", "# In[2]:", "", "",
                "conn = sql.connect(",
                '    server_hostname="dbc-%s-%s.cloud.databricks.com",' % (hexs(8), hexs(4)),
                '    http_path="/sql/1.0/warehouses/%s",' % hexs(16),
                '    access_token="%s",' % S(tok), ")"]
    extra = []
    k = pick(["pinecone", "cohere", "openai", "none"])
    if k == "pinecone":
        extra = ["# In[5]:", "", "", "from pinecone import Pinecone",
                 'pc = Pinecone(api_key="%s")' % S(t_pinecone()),
                 'index = pc.Index("%s")' % pick(["docs", "tickets-v2", "catalog", "kb-prod"]),
                 "index.describe_index_stats()", "", ""]
    elif k == "cohere":
        extra = ["# In[5]:", "", "", "import cohere",
                 'co = cohere.ClientV2(api_key="%s")' % S(t_cohere()),
                 'emb = co.embed(texts=df["title"].tolist(), model="embed-multilingual-v3.0", input_type="search_document", embedding_types=["float"])',
                 "", ""]
    elif k == "openai":
        extra = ["# In[5]:", "", "", "from openai import OpenAI",
                 'client = OpenAI(api_key="%s")' % S(t_openai()), "", ""]
    title = name.replace("_", " ").capitalize()
    script = (["#!/usr/bin/env python", "# coding: utf-8", "", "# # %s" % title, "",
               "# In[1]:", "", ""] + conn + ["", "", "# In[3]:", "", "",
               'df = pd.read_sql("""', "select order_date, region, sum(net_revenue) as revenue",
               "from marts.fct_orders", "where order_date >= dateadd(day, -7, current_date)",
               "group by 1, 2", '""", conn)', "df.head()", "", "", "# In[4]:", "", "",
               "df.groupby(\"region\").revenue.sum().plot.bar()", "", ""] + extra
              + ["# In[ ]:", "", "", ""])
    nbytes = sum(len(l) + 1 for l in script)
    path = "notebooks/%s.ipynb" % name
    out = ["[NbConvertApp] Converting notebook %s to script" % path,
           "[NbConvertApp] Writing %d bytes to notebooks/%s.py" % (nbytes, name)]
    fr = frame()
    n = len(script)
    if fr.kind in ("claude", "gemini") and chance(0.5):
        return render(c, fr, [("jupyter nbconvert --to script %s" % path, out),
                              ("sed -n '1,%dp' notebooks/%s.py" % (n, name), script)])
    return render(c, fr, [("jupyter nbconvert --to script %s && cat notebooks/%s.py" % (path, name), out + script)])


@pos("ipython_env_magic_session")
def p_ipython_env(c):
    ipv = pick(["8.24.0", "8.26.0", "8.29.0", "8.18.1"])
    lines = ["Python %s (main, %s %2d %d, %s) [GCC 11.4.0]" % (c.pyver, pick(MONTHS), R.randint(1, 28), 2024, TS().hms()),
             "Type 'copyright', 'credits' or 'license' for more information",
             "IPython %s -- An enhanced Interactive Python. Type '?' for help." % ipv, ""]
    n = 1
    wk = t_wandb()
    lines += ["In [%d]: %%env WANDB_API_KEY=%s" % (n, S(wk)), "env: WANDB_API_KEY=%s" % S(wk), ""]
    n += 1
    if chance(0.6):
        hf = t_hf()
        lines += ["In [%d]: %%env HF_TOKEN=%s" % (n, S(hf)), "env: HF_TOKEN=%s" % S(hf), ""]
        n += 1
        lines += ["In [%d]: %%env HF_TOKEN" % n, "Out[%d]: '%s'" % (n, S(hf)), ""]
        n += 1
    aid, sec = t_aws_id(), t_aws_secret()
    mpw = pw_any()
    lines += ["In [%d]: import os" % n, ""]
    n += 1
    lines += ['In [%d]: {k: v for k, v in os.environ.items() if k.startswith(("AWS_", "MLFLOW_"))}' % n]
    entries = [("AWS_ACCESS_KEY_ID", aid), ("AWS_SECRET_ACCESS_KEY", S(sec)),
               ("AWS_DEFAULT_REGION", pick(REGIONS)),
               ("MLFLOW_TRACKING_URI", "https://mlflow.%s" % c.domain),
               ("MLFLOW_TRACKING_USERNAME", pick(["svc-train", c.user, "ci-bot"])),
               ("MLFLOW_TRACKING_PASSWORD", S(mpw))]
    if chance(0.5):
        entries.insert(3, ("AWS_SESSION_NAME", "%s-nb" % c.user))
    body = ["'%s': '%s'" % kv for kv in entries]
    lines.append("Out[%d]:" % n)
    for i, b in enumerate(body):
        lines.append(("{" if i == 0 else " ") + b + ("}" if i == len(body) - 1 else ","))
    lines.append("")
    n += 1
    lines += ["In [%d]: " % n]
    fr = frame()
    return render(c, fr, [(pick(["ipython", "python -m IPython"]), lines)])


@pos("colab_userdata_print_output")
def p_colab(c):
    hf = t_hf()
    wk = t_wandb()
    name = pick(["Finetune_Llama3_LoRA", "Whisper_eval", "SFT_tiny_model", "QLoRA_mistral_7b", "Embeddings_benchmark"])
    cells = []
    cells.append({"source": src_lines("from google.colab import userdata\nHF_TOKEN = userdata.get('HF_TOKEN')\nprint(HF_TOKEN)"),
                  "outputs": [{"name": "stdout", "output_type": "stream", "text": [hf + "\n"]}]})
    if chance(0.6):
        cells.append({"source": src_lines("!huggingface-cli login --token " + hf),
                      "outputs": [{"name": "stdout", "output_type": "stream", "text": src_lines(
                          "The token has not been saved to the git credentials helper. Pass `add_to_git_credential=True` in this function directly or `--add-to-git-credential` if using via `huggingface-cli` if you want to set the git credential as well.\n"
                          "Token is valid (permission: %s).\n" % pick(["write", "fineGrained", "read"]) +
                          "Your token has been saved to /root/.cache/huggingface/token\nLogin successful\n")}]})
    cells.append({"source": src_lines('import wandb\nwandb.login(key="%s")' % wk),
                  "outputs": [{"name": "stderr", "output_type": "stream", "text": src_lines(
                      "\x1b[34m\x1b[1mwandb\x1b[0m: \x1b[33mWARNING\x1b[0m If you're specifying your api key in code, ensure this code is not shared publicly.\n"
                      "\x1b[34m\x1b[1mwandb\x1b[0m: \x1b[33mWARNING\x1b[0m Consider setting the WANDB_API_KEY environment variable, or running `wandb login` from the command line.\n"
                      "\x1b[34m\x1b[1mwandb\x1b[0m: Appending key for api.wandb.ai to your netrc file: /root/.netrc\n")},
                      {"data": {"text/plain": ["True"]}, "execution_count": 3, "metadata": {}, "output_type": "execute_result"}]})
    # mark values after building (json escaping leaves them intact)
    txt = "\n".join(jdump(x) for x in cells)
    txt = txt.replace(hf, S(hf)).replace(wk, S(wk))
    cmd = "jq '.cells[] | select(.cell_type==\"code\") | {source, outputs}' %s.ipynb" % name
    return render(c, frame(), [(cmd, txt.split("\n"))])


@pos("papermill_injected_parameters")
def p_papermill(c):
    nb = pick(["train", "score_batch", "backfill_features", "eval_rag", "weekly_report"])
    t = c.ts
    out_nb = "runs/%s-%s.ipynb" % (nb, t.date())
    params = []
    kinds = sample(["db_password", "hf_token", "openai_api_key", "s3_secret_key", "snowflake_password"], R.randint(2, 3))
    for k in kinds:
        v = {"db_password": pw_any, "hf_token": t_hf, "openai_api_key": t_openai,
             "s3_secret_key": t_aws_secret, "snowflake_password": pw_any}[k]()
        params.append((k, v))
    plain = [("epochs", str(R.randint(1, 10))), ("run_date", '"%s"' % t.date()),
             ("max_tokens", str(pick([256, 512, 1024])))]
    ncells = R.randint(9, 30)
    secs = R.randint(20, 900)
    use_file = chance(0.4)
    blocks = []
    if use_file:
        y = ["%s: %s" % (k, S(v) if " " not in v else '"%s"' % S(v)) for k, v in params] + \
            ["%s: %s" % (k, v) for k, v in plain]
        blocks.append(("cat params/%s.yaml" % nb, y))
        cmd = "papermill notebooks/%s.ipynb %s -f params/%s.yaml -k python3" % (nb, out_nb, nb)
    else:
        cmd = "papermill notebooks/%s.ipynb %s " % (nb, out_nb) + " ".join(
            "-p %s '%s'" % (k, S(v)) for k, v in params) + " -p epochs %s" % plain[0][1]
    bar = "\u2588" * 10
    run_out = ["Input Notebook:  notebooks/%s.ipynb" % nb, "Output Notebook: %s" % out_nb,
               "Executing:   0%%|          | 0/%d [00:00<?, ?cell/s]Executing notebook with kernel: python3" % ncells,
               "Executing: 100%%|%s| %d/%d [%02d:%02d<00:00, %.2fs/cell]" % (bar, ncells, ncells, secs // 60, secs % 60, secs / ncells)]
    blocks.append((cmd, run_out))
    inj = ["# Parameters"] + ['%s = "%s"' % (k, S(v)) for k, v in params]
    if use_file:
        inj += ["%s = %s" % (k, v) for k, v in plain]
    else:
        inj += ["epochs = %s" % plain[0][1]]
    blocks.append(("jq -r '.cells[] | select(.metadata.tags | index(\"injected-parameters\")) | .source | join(\"\")' %s" % out_nb, inj))
    return render(c, frame(), blocks)


@pos("ipynb_error_output_traceback")
def p_ipynb_err(c):
    n = R.randint(3, 14)
    user = pick(["analyst", "app_ro", c.user, "reporting"])
    pw = pw_urlsafe()
    kind = ["pg", "mongo", "mysql", "mongo", "pg"][ROW[0]]
    if kind == "pg":
        host = "pg-%s.%s" % (pick(["replica", "main", "analytics"]), c.domain)
        lit = "postgresql://%s:%s@%s:5432/%s" % (user, S(pw), host, pick(["app", "dw", "events"]))
        src = ("\x1b[38;5;28;01mimport\x1b[39;00m \x1b[38;5;21;01mpsycopg2\x1b[39;00m\n"
               "\x1b[0;32m----> 3\x1b[0m conn \x1b[38;5;241m=\x1b[39m psycopg2\x1b[38;5;241m.\x1b[39mconnect(\x1b[38;5;124m\"\x1b[39m\x1b[38;5;124m%s\x1b[39m\x1b[38;5;124m\"\x1b[39m)\n" % lit)
        ename = "OperationalError"
        evalue = 'connection to server at "%s" (10.%d.%d.%d), port 5432 failed: FATAL:  password authentication failed for user "%s"\n' % (
            host, R.randint(0, 255), R.randint(0, 255), R.randint(1, 254), user)
    elif kind == "mongo":
        clus = "cluster0.%s.mongodb.net" % uid(LOWDIG, 5)
        lit = "mongodb+srv://%s:%s@%s/?retryWrites=true&w=majority&appName=Cluster0" % (user, S(pw), clus)
        src = ("\x1b[38;5;28;01mfrom\x1b[39;00m \x1b[38;5;21;01mpymongo\x1b[39;00m \x1b[38;5;28;01mimport\x1b[39;00m MongoClient\n"
               "\x1b[0;32m----> 3\x1b[0m client \x1b[38;5;241m=\x1b[39m MongoClient(\x1b[38;5;124m\"\x1b[39m\x1b[38;5;124m%s\x1b[39m\x1b[38;5;124m\"\x1b[39m)\n" % lit)
        ename = "OperationFailure"
        evalue = "bad auth : authentication failed, full error: {'ok': 0, 'errmsg': 'bad auth : authentication failed', 'code': 8000, 'codeName': 'AtlasError'}"
    else:
        host = "mysql-%s.%s" % (pick(["ro", "prod", "ops"]), c.domain)
        lit = "mysql+pymysql://%s:%s@%s:3306/%s" % (user, S(pw), host, pick(["shop", "crm", "legacy"]))
        src = ("\x1b[38;5;28;01mfrom\x1b[39;00m \x1b[38;5;21;01msqlalchemy\x1b[39;00m \x1b[38;5;28;01mimport\x1b[39;00m create_engine, text\n"
               "\x1b[0;32m----> 3\x1b[0m engine \x1b[38;5;241m=\x1b[39m create_engine(\x1b[38;5;124m\"\x1b[39m\x1b[38;5;124m%s\x1b[39m\x1b[38;5;124m\"\x1b[39m)\n" % lit)
        ename = "OperationalError"
        evalue = "(pymysql.err.OperationalError) (1045, \"Access denied for user '%s'@'10.%d.%d.%d' (using password: YES)\")" % (
            user, R.randint(0, 255), R.randint(0, 255), R.randint(1, 254))
    out = {"ename": ename, "evalue": evalue, "output_type": "error",
           "traceback": ["\x1b[0;31m" + "-" * 75 + "\x1b[0m",
                         "\x1b[0;31m%s\x1b[0m%sTraceback (most recent call last)" % (ename, " " * max(1, 42 - len(ename))),
                         "Cell \x1b[0;32mIn[%d], line 3\x1b[0m\n\x1b[1;32m      1\x1b[0m " % n + src,
                         "\x1b[0;31m%s\x1b[0m: %s" % (ename, evalue)]}
    path = "notebooks/%s.ipynb" % pick(NB_TOPICS)
    cmd = "jq '.cells[%d].outputs[0]' %s" % (n, path)
    return render(c, frame(), [(cmd, jdump(out).split("\n"))])


@pos("jupytext_py_percent_cells")
def p_jupytext(c):
    name = pick(NB_TOPICS)
    lines = ["# ---", "# jupyter:", "#   jupytext:", "#     text_representation:", "#       extension: .py",
             "#       format_name: percent", "#       format_version: '1.3'",
             "#       jupytext_version: %s" % pick(["1.16.1", "1.16.4", "1.15.2"]),
             "#   kernelspec:", "#     display_name: Python 3 (ipykernel)", "#     language: python",
             "#     name: python3", "# ---", "", "# %% [markdown]",
             "# ## %s" % name.replace("_", " ").capitalize(), "", "# %%", "import pandas as pd", ""]
    parts = sample(["cohere", "mistral", "together", "groq", "replicate"], R.randint(2, 3))
    for p in parts:
        lines.append("# %%")
        if p == "cohere":
            lines += ["import cohere", 'co = cohere.Client("%s")' % S(t_cohere()),
                      'resp = co.rerank(model="rerank-english-v3.0", query=q, documents=docs, top_n=5)']
        elif p == "mistral":
            lines += ["from mistralai import Mistral", 'client = Mistral(api_key="%s")' % S(t_mistral()),
                      'chat = client.chat.complete(model="mistral-small-latest", messages=msgs)']
        elif p == "together":
            lines += ["import requests", "r = requests.post(", '    "https://api.together.xyz/v1/embeddings",',
                      '    headers={"Authorization": "Bearer %s"},' % S(t_together()),
                      '    json={"model": "BAAI/bge-large-en-v1.5", "input": texts},', ")"]
        elif p == "groq":
            lines += ["from groq import Groq", 'groq = Groq(api_key="%s")' % S(t_groq())]
        else:
            lines += ["import replicate", 'rc = replicate.Client(api_token="%s")' % S(t_replicate())]
        lines.append("")
    lines += ["# %%", "df.sample(5, random_state=%d)" % R.randint(0, 99)]
    fr = frame()
    out = ["[jupytext] Reading notebooks/%s.ipynb in format ipynb" % name,
           "[jupytext] Writing notebooks/%s.py in format py:percent" % name]
    if chance(0.5):
        return render(c, fr, [("jupytext --to py:percent notebooks/%s.ipynb" % name, out),
                              ("cat notebooks/%s.py" % name, lines)])
    fr2 = Frame("read") if chance(0.5) else fr
    if fr2.kind == "read":
        return render(c, Frame("claude"), [("jupytext --to py:percent notebooks/%s.ipynb" % name, out)]) + "\n\n" + \
            read_tool("%s/notebooks/%s.py" % (c.cwd, name), lines)
    return render(c, fr, [("jupytext --to py:percent notebooks/%s.ipynb && cat notebooks/%s.py" % (name, name), out + lines)])


@pos("jupyterhub_config_py_secrets")
def p_jhub(c):
    auth = ["github", "google", "generic", "google", "github"][ROW[0]]
    lines = ["# Configuration file for jupyterhub.", "", "c = get_config()  # noqa", "",
             'c.JupyterHub.bind_url = "http://:8000"',
             'c.JupyterHub.db_url = "postgresql://jupyterhub:%s@%s:5432/jupyterhub"' % (
                 S(urlenc(pw_urlsafe())), pick(["hub-db", "postgres", "10.0.4.12"]))]
    if auth == "github":
        lines += ['c.JupyterHub.authenticator_class = "github"',
                  'c.GitHubOAuthenticator.client_id = "Iv1.%s"' % hexs(16),
                  'c.GitHubOAuthenticator.client_secret = "%s"' % S(hexs(40)),
                  'c.GitHubOAuthenticator.oauth_callback_url = "https://hub.%s/hub/oauth_callback"' % c.domain,
                  'c.GitHubOAuthenticator.allowed_organizations = {"%s"}' % c.org]
    elif auth == "google":
        lines += ['c.JupyterHub.authenticator_class = "google"',
                  'c.GoogleOAuthenticator.client_id = "%s-%s.apps.googleusercontent.com"' % (digits(12), uid(LOWDIG, 32)),
                  'c.GoogleOAuthenticator.client_secret = "%s"' % S(t_google_client_secret()),
                  'c.GoogleOAuthenticator.hosted_domain = ["%s"]' % c.domain]
    else:
        lines += ['c.JupyterHub.authenticator_class = "generic-oauth"',
                  'c.GenericOAuthenticator.client_id = "%s"' % alnum(32),
                  'c.GenericOAuthenticator.client_secret = "%s"' % S(t_auth0_secret()),
                  'c.GenericOAuthenticator.authorize_url = "https://%s.us.auth0.com/authorize"' % c.org,
                  'c.GenericOAuthenticator.token_url = "https://%s.us.auth0.com/oauth/token"' % c.org,
                  'c.GenericOAuthenticator.scope = ["openid", "email", "profile"]']
    lines += ['c.JupyterHub.cookie_secret = bytes.fromhex("%s")' % S(hexs(64)),
              "c.JupyterHub.cookie_max_age_days = %d" % pick([1, 7, 14]),
              'c.ConfigurableHTTPProxy.auth_token = "%s"' % S(pick([hexs(64), b64url_nopad(32)])),
              "c.JupyterHub.services = [",
              '    {"name": "idle-culler", "api_token": "%s", "admin": True,' % S(hexs(32)),
              '     "command": ["python3", "-m", "jupyterhub_idle_culler", "--timeout=3600"]},',
              "]",
              'c.Spawner.mem_limit = "%dG"' % pick([4, 8, 16]),
              "c.Spawner.cpu_limit = %d" % pick([2, 4]),
              'c.Spawner.default_url = "/lab"']
    path = "/etc/jupyterhub/jupyterhub_config.py"
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool(path, lines)
    if chance(0.4):
        keep = [(i + 1, l) for i, l in enumerate(lines) if re.search(r"secret|token|db_url|client_id|max_age", l)]
        out = ["%d:%s" % kv for kv in keep]
        return render(c, fr, [("grep -nE 'secret|token|db_url|client_id|max_age' %s" % path, out)])
    return render(c, fr, [("sudo cat %s" % path, lines)])

# ---------------------------------------------------------------- data stacks
def sf_account(c):
    return pick(["%s%s.%s" % (pick(["ab", "xy", "qk", "zt"]), digits(5), pick(["eu-central-1", "us-east-2.aws", "west-europe.azure", "us-east-1"])),
                 "%s-%s" % (c.org.split("-")[0], pick(["prod", "analytics", "dw", "main"]))])


def sa_json_dict(c, name, pem_val):
    proj = "%s-%s" % (c.proj, digits(6)) if chance(0.5) else c.proj
    email = "%s@%s.iam.gserviceaccount.com" % (name, proj)
    return {"type": "service_account", "project_id": proj, "private_key_id": hexs(40),
            "private_key": pem_val, "client_email": email, "client_id": digits(21),
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": "https://oauth2.googleapis.com/token",
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/" + email.replace("@", "%40"),
            "universe_domain": "googleapis.com"}


@pos("dbt_profiles_bat_multi_adapter")
def p_dbt_profiles(c):
    prof = c.proj.replace("-", "_")
    lines = ["%s:" % prof, "  target: dev", "  outputs:"]
    adapters = sample(["postgres", "snowflake", "bigquery", "redshift", "databricks", "trino"], R.randint(2, 3))
    if ROW[0] in (1, 3):
        adapters = ["snowflake_kp"] + [a for a in adapters if a != "snowflake"][:R.randint(1, 2)]
    for i, a in enumerate(adapters):
        tgt = ["dev", "prod", "ci"][i]
        lines.append("    %s:" % tgt)
        if a == "postgres":
            lines += ["      type: postgres", "      host: %s" % pick(["localhost", "pg.%s" % c.domain]),
                      "      user: %s" % c.user, '      password: "%s"' % S(pw_any()), "      port: 5432",
                      "      dbname: analytics", "      schema: dbt_%s" % c.user, "      threads: 4"]
        elif a == "snowflake_kp":
            lines += ["      type: snowflake", "      account: %s" % sf_account(c), "      user: DBT_%s" % tgt.upper(),
                      "      private_key: |"] + pem_lines("PRIVATE KEY", rsa_keypair_der()[0], indent="        ") + [
                      '      private_key_passphrase: "%s"' % S(pw_any()), "      role: TRANSFORMER", "      database: ANALYTICS",
                      "      warehouse: TRANSFORMING", "      schema: DBT_%s" % c.user.upper(), "      threads: 8"]
        elif a == "snowflake":
            lines += ["      type: snowflake", "      account: %s" % sf_account(c), "      user: DBT_%s" % tgt.upper(),
                      '      password: "%s"' % S(pw_any()), "      role: TRANSFORMER", "      database: ANALYTICS",
                      "      warehouse: TRANSFORMING", "      schema: DBT_%s" % c.user.upper(), "      threads: 8",
                      "      client_session_keep_alive: false"]
        elif a == "redshift":
            lines += ["      type: redshift", "      host: %s.%s.%s.redshift.amazonaws.com" % (prof.replace("_", "-"), uid(LOWDIG, 12), pick(REGIONS)),
                      "      user: dbt_%s" % tgt, '      password: "%s"' % S(pw_any()), "      port: 5439",
                      "      dbname: dev", "      schema: analytics", "      threads: 4", "      sslmode: require"]
        elif a == "databricks":
            lines += ["      type: databricks", "      catalog: main", "      schema: dbt_%s" % c.user,
                      "      host: adb-%s.%d.azuredatabricks.net" % (digits(16), R.randint(1, 19)),
                      "      http_path: /sql/1.0/warehouses/%s" % hexs(16),
                      "      token: %s" % S(t_dapi()), "      threads: 6"]
        elif a == "trino":
            lines += ["      type: trino", "      method: ldap", "      user: %s" % c.user,
                      '      password: "%s"' % S(pw_any()), "      host: trino.%s" % c.domain, "      port: 443",
                      "      database: hive", "      schema: dbt_%s" % c.user, "      http_scheme: https", "      threads: 4"]
        else:
            der = rsa_keypair_der()[0]
            d = sa_json_dict(c, "dbt-runner", "PEM")
            lines += ["      type: bigquery", "      method: service-account-json", "      project: %s" % d["project_id"],
                      "      dataset: dbt_%s" % c.user, "      threads: 8", "      location: %s" % pick(["US", "EU"]),
                      "      keyfile_json:", "        type: service_account",
                      "        project_id: %s" % d["project_id"],
                      '        private_key_id: "%s"' % d["private_key_id"],
                      '        private_key: "%s"' % pem_escaped("PRIVATE KEY", der),
                      "        client_email: %s" % d["client_email"],
                      '        client_id: "%s"' % d["client_id"],
                      "        auth_uri: https://accounts.google.com/o/oauth2/auth",
                      "        token_uri: https://oauth2.googleapis.com/token"]
    if chance(0.5):
        lines += ["", "config:", "  send_anonymous_usage_stats: false"]
    path = "%s/.dbt/profiles.yml" % c.home
    fr = frame()
    return render(c, fr, [("bat --paging=never --wrap=never --decorations=always ~/.dbt/profiles.yml", bat(path, lines))])


@pos("airflow_connections_get_json")
def p_airflow_conn_get(c):
    kind = ["postgres", "snowflake_kp", "aws", "http", "snowflake"][ROW[0]]
    cid = pick({"postgres": ["warehouse_pg", "app_replica", "pg_default"], "aws": ["aws_raw", "s3_landing", "aws_default"],
                "snowflake": ["snowflake_loader", "sf_prod"], "snowflake_kp": ["snowflake_loader", "sf_prod", "sf_keypair"],
                "http": ["vendor_api", "hubspot_http", "zendesk_api"]}[kind])
    d = {"id": str(R.randint(1, 200)), "conn_id": cid, "conn_type": kind, "description": "", "host": "", "schema": "",
         "login": "", "password": "", "port": "", "is_encrypted": "True", "is_extra_encrypted": "True",
         "extra_dejson": {}, "get_uri": ""}
    if kind == "postgres":
        pw = pw_any()
        d.update(host="pg-%s.%s" % (pick(["dw", "replica"]), c.domain), schema="analytics", login="airflow", password=S(pw), port="5432")
        d["get_uri"] = "postgres://airflow:%s@%s:5432/analytics" % (S(urlenc(pw)), d["host"])
    elif kind == "aws":
        aid, sec = t_aws_id(), t_aws_secret()
        reg = pick(REGIONS)
        d.update(login=aid, password=S(sec), extra_dejson={"region_name": reg})
        d["get_uri"] = "aws://%s:%s@/?region_name=%s" % (aid, S(urlenc(sec)), reg)
    elif kind == "snowflake_kp":
        d["conn_type"] = "snowflake"
        acct = sf_account(c)
        lines = ["-----BEGIN PRIVATE KEY-----"] + pem_body(rsa_keypair_der()[0]) + ["-----END PRIVATE KEY-----"]
        pem = "\n".join(lines)
        extra = {"account": acct, "warehouse": "LOAD_WH", "database": "RAW", "role": "LOADER", "private_key_content": pem + "\n"}
        d.update(login="SVC_AIRFLOW", schema="RAW", extra_dejson=dict(extra, private_key_content=S(pem) + "\n"))
        enc = quote(json.dumps(extra), safe="")
        enc_pem = quote(json.dumps(pem)[1:-1], safe="")
        assert enc.count(enc_pem) == 1
        REG[enc_pem] = 1
        d["get_uri"] = "snowflake://SVC_AIRFLOW@/RAW?__extra__=" + enc.replace(enc_pem, S(enc_pem))
    elif kind == "snowflake":
        pw = pw_any()
        acct = sf_account(c)
        d.update(login="SVC_AIRFLOW", password=S(pw), schema="RAW",
                 extra_dejson={"account": acct, "warehouse": "LOAD_WH", "database": "RAW", "role": "LOADER"})
        d["get_uri"] = "snowflake://SVC_AIRFLOW:%s@/RAW?account=%s&warehouse=LOAD_WH&database=RAW&role=LOADER" % (S(urlenc(pw)), quote(acct))
    else:
        tok = pick([t_zendesk, t_hubspot, lambda: alnum(32)])()
        d.update(host="https://api.%s" % pick(["vendor.io", "hubapi.com", "example-saas.com"]), login="api", password=S(tok))
        d["get_uri"] = "https://api:%s@%s" % (S(urlenc(tok)), d["host"].replace("https://", ""))
    out = []
    if chance(0.5):
        out.append("/home/airflow/.local/lib/python3.11/site-packages/airflow/configuration.py:859 FutureWarning: section/key [core/sql_alchemy_conn] has been deprecated, you should use[database/sql_alchemy_conn] instead. Please update your `conf.get*` call to use the new name")
    out += jdump([d]).split("\n")
    fr = frame()
    pre = pick(["", "docker compose exec airflow-webserver ", "kubectl exec -n airflow deploy/airflow-scheduler -- "])
    return render(c, fr, [("%sairflow connections get %s -o json" % (pre, cid), out)])


@pos("airflow_conn_env_uris_compose")
def p_airflow_env(c):
    dbpw, redispw = pw_urlsafe(), pw_urlsafe()
    env = {"AIRFLOW__CORE__EXECUTOR": "CeleryExecutor",
           "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": "postgresql+psycopg2://airflow:%s@postgres/airflow" % S(dbpw),
           "AIRFLOW__CELERY__RESULT_BACKEND": "db+postgresql://airflow:%s@postgres/airflow" % S(dbpw),
           "AIRFLOW__CELERY__BROKER_URL": "redis://:%s@redis:6379/0" % S(redispw),
           "AIRFLOW__CORE__FERNET_KEY": S(t_fernet()),
           "AIRFLOW__CORE__LOAD_EXAMPLES": "'false'",
           "AIRFLOW__WEBSERVER__SECRET_KEY": S(hexs(32))}
    conns = sample(["sf", "aws", "http", "slack", "gcp"], R.randint(2, 3))
    for k in conns:
        if k == "sf":
            env["AIRFLOW_CONN_WAREHOUSE"] = "snowflake://svc_airflow:%s@/PROD?account=%s&warehouse=LOAD_WH&role=LOADER" % (
                S(urlenc(pw_any())), sf_account(c))
        elif k == "aws":
            env["AIRFLOW_CONN_S3_RAW"] = "'%s'" % jcompact({"conn_type": "aws", "login": t_aws_id(), "password": S(t_aws_secret()),
                                                           "extra": {"region_name": pick(REGIONS)}}).replace(",", ", ").replace('":', '": ')
        elif k == "http":
            env["AIRFLOW_CONN_VENDOR_API"] = "https://api-user:%s@api.%s/?__extra__=%%7B%%22timeout%%22%%3A+30%%7D" % (
                S(urlenc(pw_any())), pick(["vendor.io", "partner-feed.com", "acme-saas.net"]))
        elif k == "slack":
            tok = t_xoxb()
            env["AIRFLOW_CONN_SLACK_API_DEFAULT"] = "slack://:%s@/?timeout=42" % S(tok)
        else:
            env["AIRFLOW_CONN_GCS_EXPORTS"] = "google-cloud-platform://?key_path=%%2Fopt%%2Fairflow%%2Fkeys%%2F%s.json&project=%s&num_retries=5" % (
                c.proj, c.proj)
    keys = sorted(env)
    svc = pick(["airflow-scheduler", "airflow-worker", "airflow-webserver"])
    lines = ["name: %s" % c.proj, "services:", "  %s:" % svc, "    command:", "      - %s" % svc.split("-")[1],
             "    environment:"]
    lines += ["      %s: %s" % (k, env[k]) for k in keys]
    lines += ["    image: apache/airflow:%s" % pick(["2.9.3", "2.10.2", "2.8.4"]), "    restart: always"]
    return render(c, frame(), [("docker compose config", lines)])


@pos("airflow_variables_export_json")
def p_airflow_vars(c):
    v = {"s3_bucket": "%s-raw-%s" % (c.org, pick(["eu", "us"])),
         "dbt_cloud_account_id": digits(6),
         "openai_api_key": S(t_openai()),
         "slack_alerts_webhook": slack_hook(t_slack_hook_tail()),
         "max_active_tokens": str(pick([2, 4, 8])),
         "export_window_days": str(pick([7, 14, 30]))}
    extra = sample([("hubspot_private_app_token", lambda: S(t_hubspot())), ("sendgrid_api_key", lambda: S(t_sendgrid())),
                    ("zendesk_api_token", lambda: S(t_zendesk())), ("stripe_secret_key", lambda: S(t_stripe("rk"))),
                    ("notion_token", lambda: S(t_notion()))], R.randint(1, 3))
    for k, g in extra:
        v[k] = g()
    txt = json.dumps(v, indent=4, sort_keys=True, ensure_ascii=False)
    n = len(v)
    fr = frame()
    if chance(0.5):
        return render(c, fr, [("airflow variables export /tmp/vars.json && cat /tmp/vars.json",
                               ["%d variables successfully exported to /tmp/vars.json" % n] + txt.split("\n"))])
    return render(c, fr, [("airflow variables export /dev/stdout", txt.split("\n") + ["%d variables successfully exported to /dev/stdout" % n])])


@pos("airflow_cfg_grep_fernet")
def p_airflow_cfg(c):
    dbpw = pw_urlsafe()
    items = [("sql_alchemy_conn", "postgresql+psycopg2://airflow:%s@%s/airflow" % (S(dbpw), pick(["airflow-db", "localhost:5432", "10.1.0.7"]))),
             ("fernet_key", S(t_fernet())),
             ("secret_key", S(pick([hexs(32), b64std(16), b64url_nopad(24)]))),
             ("broker_url", "redis://:%s@redis:6379/0" % S(pw_urlsafe())),
             ("result_backend", "db+postgresql://airflow:%s@%s/airflow" % (S(dbpw), "airflow-db")),
             ("smtp_password", S(pw_any())),
             ("max_active_tasks_per_dag", str(pick([16, 32]))),
             ("secret_key_cmd", ""),
             ("fernet_key_cmd", "")]
    items = [items[0], items[1], items[2]] + sample(items[3:], R.randint(2, 4))
    ln = sorted(R.sample(range(30, 1400), len(items)))
    pairs = sorted(zip(ln, items))
    out = ["%d:%s = %s" % (n, k, v) for n, (k, v) in pairs]
    out = [l.rstrip() for l in out]
    path = pick(["$AIRFLOW_HOME/airflow.cfg", "~/airflow/airflow.cfg", "/opt/airflow/airflow.cfg"])
    return render(c, frame(), [("grep -nE '^(sql_alchemy_conn|fernet_key|secret_key|broker_url|result_backend|smtp_password|max_active_tasks_per_dag)' %s" % path, out)])


@pos("prefect_config_view_show_secrets")
def p_prefect(c):
    key = t_prefect()
    acc, ws = uuid4(), uuid4()
    prof = pick(["prod", "cloud", c.org, "default"])
    url = "https://api.prefect.cloud/api/accounts/%s/workspaces/%s" % (acc, ws)
    view = ["\U0001f680 you are connected to:", "https://app.prefect.cloud/account/%s/workspace/%s" % (acc, ws),
            "PREFECT_PROFILE='%s'" % prof, "PREFECT_API_KEY='%s' (from profile)" % S(key),
            "PREFECT_API_URL='%s' (from profile)" % url]
    if chance(0.5):
        view.append("PREFECT_LOGGING_LEVEL='%s' (from env)" % pick(["INFO", "DEBUG"]))
    toml = ['active = "%s"' % prof, "", "[profiles.ephemeral]", 'PREFECT_SERVER_ALLOW_EPHEMERAL_MODE = "true"', "",
            "[profiles.%s]" % prof, 'PREFECT_API_KEY = "%s"' % S(key), 'PREFECT_API_URL = "%s"' % url]
    fr = frame()
    blocks = [("prefect config view --show-secrets", view)]
    if chance(0.7):
        blocks.append(("cat ~/.prefect/profiles.toml", toml))
    return render(c, fr, blocks)


@pos("dagster_yaml_instance_storage")
def p_dagster(c):
    pw = pw_any()
    y = ["storage:", "  postgres:", "    postgres_db:", "      username: dagster",
         '      password: "%s"' % S(pw), "      hostname: %s" % pick(["dagster-db", "pg.%s" % c.domain, "10.30.1.5"]),
         "      db_name: dagster", "      port: 5432", "",
         "run_coordinator:", "  module: dagster.core.run_coordinator", "  class: QueuedRunCoordinator",
         "  config:", "    max_concurrent_runs: %d" % pick([4, 8, 25]), "",
         "compute_logs:", "  module: dagster_aws.s3.compute_log_manager", "  class: S3ComputeLogManager",
         "  config:", "    bucket: %s-dagster-logs" % c.org, "    prefix: compute-logs", "",
         "telemetry:", "  enabled: false"]
    defs = ["from dagster import Definitions, EnvVar", "from dagster_snowflake import SnowflakeResource",
            "from dagster_openai import OpenAIResource", "from dagster_slack import SlackResource", "",
            "defs = Definitions(", "    assets=all_assets,", "    resources={",
            '        "snowflake": SnowflakeResource(',
            '            account="%s",' % sf_account(c),
            '            user="DAGSTER",',
            '            password=EnvVar("SNOWFLAKE_PASSWORD"),',
            '            warehouse="TRANSFORM_WH",', "        ),",
            '        "openai": OpenAIResource(api_key="%s"),' % S(t_openai()),
            '        "slack": SlackResource(token="%s"),' % S(t_xoxb()),
            "    },", "    schedules=[daily_refresh],", ")"]
    fr = frame()
    return render(c, fr, [("cat $DAGSTER_HOME/dagster.yaml", y),
                          ("sed -n '1,%dp' %s/definitions.py" % (len(defs), c.proj.replace("-", "_")), defs)])


@pos("snow_cli_connections_toml")
def p_snow_toml(c):
    acct = sf_account(c)
    pw1, pw2 = pw_any(), pw_any()
    t = ['default_connection_name = "dev"', "", "[dev]", 'account = "%s"' % acct, 'user = "%s"' % c.user.upper(),
         'password = "%s"' % S(pw1), 'warehouse = "DEV_WH"', 'database = "SANDBOX"', 'role = "ANALYST"', "",
         "[prod]", 'account = "%s"' % acct, 'user = "SVC_LOADER"', 'authenticator = "SNOWFLAKE_JWT"']
    fr = frame()
    if ROW[0] % 2 == 0:
        der = rsa_keypair_der()[0]
        if fr.prefixed:
            t += ['private_key_raw = """'] + pem_lines("PRIVATE KEY", der) + ['"""']
        else:
            t += ['private_key_raw = """', pem_block("PRIVATE KEY", der), '"""']
    else:
        t += ['private_key_file = "%s/.snowflake/rsa_key.p8"' % c.home, 'private_key_file_pwd = "%s"' % S(pw2)]
    t.append('warehouse = "LOAD_WH"')
    host = acct + ".snowflakecomputing.com"
    rows = [["Connection name", "dev"], ["Status", "OK"], ["Host", host], ["Account", acct.split(".")[0]],
            ["User", c.user.upper()], ["Role", "ANALYST"], ["Database", "SANDBOX"], ["Warehouse", "DEV_WH"]]
    tab = table(["key", "value"], rows, "ascii")
    return render(c, fr, [("cat ~/.snowflake/connections.toml", t), ("snow connection test -c dev", tab)])


@pos("snowflake_keypair_p8_cat")
def p_sf_p8(c):
    pkcs8, spki, _ = rsa_keypair_der()
    pub = base64.b64encode(spki).decode()
    REG[pub] = 1
    svc = pick(["SVC_DBT", "SVC_FIVETRAN", "SVC_AIRFLOW", "SVC_%s" % c.user.upper()])
    fr = frame()
    if fr.prefixed:
        key_lines = pem_lines("PRIVATE KEY", pkcs8)
    else:
        key_lines = [pem_block("PRIVATE KEY", pkcs8)]
    pub_lines = ["-----BEGIN PUBLIC KEY-----"] + wrap64(pub) + ["-----END PUBLIC KEY-----"]
    blocks = [("openssl genrsa 2048 | openssl pkcs8 -topk8 -inform PEM -out rsa_key.p8 -nocrypt", []),
              ("openssl rsa -in rsa_key.p8 -pubout -out rsa_key.pub", ["writing RSA key"]),
              ("cat rsa_key.p8", key_lines)]
    blocks.append(("cat rsa_key.pub", pub_lines))
    blocks.append(("snow sql -q \"ALTER USER %s SET RSA_PUBLIC_KEY='$(grep -v -- '-----' rsa_key.pub | tr -d '\\n')'\"" % svc,
                   table(["status"], [["Statement executed successfully."]], "ascii")))
    if chance(0.5):
        blocks.append(("snow sql -q \"DESC USER %s\" --format json | jq -r '.[] | select(.property==\"RSA_PUBLIC_KEY_FP\") | .value'" % svc,
                       ["SHA256:" + base64.b64encode(hashlib.sha256(spki).digest()).decode()]))
    return render(c, fr, blocks)


@pos("databricks_auth_env_json")
def p_dbx_env(c):
    prof = pick(["DEFAULT", "prod", "dev", c.org, "ml-workspace"])
    if chance(0.6):
        host = "https://dbc-%s-%s.cloud.databricks.com" % (hexs(8), hexs(4))
        env = {"DATABRICKS_AUTH_TYPE": "pat", "DATABRICKS_CONFIG_PROFILE": prof,
               "DATABRICKS_HOST": host, "DATABRICKS_TOKEN": S(t_dapi())}
    else:
        host = "https://adb-%s.%d.azuredatabricks.net" % (digits(16), R.randint(1, 19))
        env = {"DATABRICKS_AUTH_TYPE": "oauth-m2m", "DATABRICKS_CLIENT_ID": uuid4(),
               "DATABRICKS_CLIENT_SECRET": S("dose" + hexs(32)), "DATABRICKS_CONFIG_PROFILE": prof,
               "DATABRICKS_HOST": host}
    out = jdump({"env": env}).split("\n")
    me = jdump({"active": True, "displayName": "%s %s" % (pick(FIRST), pick(LAST)),
                "emails": [{"primary": True, "type": "work", "value": c.email}],
                "id": digits(16), "userName": c.email}).split("\n")
    fr = frame()
    blocks = [("databricks auth env --profile %s" % prof, out)]
    if chance(0.5):
        blocks.append(("databricks current-user me --profile %s" % prof, me))
    return render(c, fr, blocks)


@pos("gcp_sa_json_read_tool")
def p_sa_read(c):
    der = rsa_keypair_der()[0]
    name = pick(["bq-loader", "vertex-trainer", "dbt-runner", "looker-sync", "gcs-exporter", "composer-worker"])
    d = sa_json_dict(c, name, pem_for_json("PRIVATE KEY", der))
    txt = jdump(d)
    lines = txt.split("\n")
    path = "%s/%s" % (c.cwd, pick(["secrets/%s.json" % name, "keys/%s-%s.json" % (d["project_id"], d["private_key_id"][:12]),
                                   "credentials/service-account.json"]))
    fr = frame(["read", "read", "prompt", "codex_exec", "claude"])
    if fr.kind == "read":
        return read_tool(path, lines)
    if fr.kind == "claude":
        return render(c, fr, [("cat -n %s" % path, cat_n(lines))])
    return render(c, fr, [("jq . %s" % path, lines)])


@pos("warehouse_jdbc_urls_rg")
def p_jdbc_rg(c):
    hits = []
    kinds = sample(["redshift", "redshift_odbc", "trino", "clickhouse", "snowflake", "sqlserver", "presto"], R.randint(3, 5))
    for k in kinds:
        pw = pw_urlsafe()
        if k == "redshift":
            hits.append(("src/main/resources/application-prod.properties", R.randint(5, 40),
                         "spring.datasource.url=jdbc:redshift://%s.%s.%s.redshift.amazonaws.com:5439/analytics?user=etl_user&password=%s" % (
                             c.proj, uid(LOWDIG, 12), pick(REGIONS), S(pw))))
        elif k == "redshift_odbc":
            hits.append(("etl/conf/redshift.conf", R.randint(1, 20),
                         'url = "jdbc:redshift://rs.%s:5439/dev;UID=loader;PWD=%s;ssl=true"' % (c.domain, S(pw))))
        elif k == "trino":
            hits.append(("conf/trino-catalog.properties", R.randint(1, 12),
                         "connection-url=jdbc:trino://trino.%s:443/hive/default?SSL=true&user=svc_bi&password=%s" % (c.domain, S(pw))))
        elif k == "clickhouse":
            hits.append(("jobs/export_events.py", R.randint(10, 90),
                         '    url = "jdbc:clickhouse://ch-%s.%s:8443/default?ssl=true&user=default&password=%s"' % (pick(["01", "02"]), c.domain, S(pw))))
        elif k == "snowflake":
            hits.append(("spark/jobs/load_orders.scala", R.randint(10, 80),
                         '  val sfUrl = "jdbc:snowflake://%s.snowflakecomputing.com/?user=SPARK_ETL&password=%s&warehouse=ETL_WH&db=RAW"' % (
                             sf_account(c), S(pw))))
        elif k == "sqlserver":
            hits.append(("airflow/include/sql_sources.yaml", R.randint(3, 40),
                         "  jdbc_url: jdbc:sqlserver://erp-db.%s:1433;databaseName=ERP;user=sa_reader;password=%s;encrypt=true;trustServerCertificate=true" % (c.domain, S(pw))))
        else:
            hits.append(("notebooks/presto_check.py", R.randint(3, 40),
                         "conn_str = 'jdbc:presto://presto-gw.%s:8443/hive/web?SSL=true&user=%s&password=%s'" % (c.domain, c.user, S(pw))))
    hits.append(("docs/connectivity.md", R.randint(10, 60), "Use `jdbc:trino://<host>:443/<catalog>?SSL=true&user=<you>&password=<password>` for local tests."))
    R.shuffle(hits)
    out = ["%s:%d:%s" % h for h in hits]
    return render(c, frame(), [("rg -n 'jdbc:' --glob '!target/**'", out)])


@pos("spark_defaults_storage_keys")
def p_spark_defaults(c):
    acct = "%s%s" % (c.org.replace("-", "")[:14], pick(["lake", "dl", "raw"]))
    items = [("spark.master", "yarn"), ("spark.eventLog.enabled", "true"),
             ("spark.eventLog.dir", "s3a://%s-spark/events/" % c.org),
             ("spark.serializer", "org.apache.spark.serializer.KryoSerializer")]
    if chance(0.85):
        items += [("spark.hadoop.fs.s3a.access.key", t_aws_id()), ("spark.hadoop.fs.s3a.secret.key", S(t_aws_secret())),
                  ("spark.hadoop.fs.s3a.endpoint", "s3.%s.amazonaws.com" % pick(REGIONS))]
    items += [("spark.hadoop.fs.azure.account.key.%s.dfs.core.windows.net" % acct, S(t_azure_storage()))]
    if chance(0.6):
        t = TS()
        sig = b64std(32)
        items.append(("spark.hadoop.fs.azure.sas.%s.%s.blob.core.windows.net" % (pick(["exports", "landing", "bronze"]), acct),
                      "sv=2022-11-02&ss=b&srt=co&sp=rl&se=%s&st=%s&spr=https&sig=%s" % (
                          quote(t.plus(86400 * 90).iso()), quote(t.iso()), S(quote(sig, safe="")))))
    items += [("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension"),
              ("spark.redaction.regex", "(?i)secret|password|token|access[.]key"),
              ("spark.executor.memory", pick(["8g", "16g", "24g"]))]
    w = max(len(k) for k, _ in items) + 2
    lines = [("%-" + str(w) + "s%s") % (k, v) for k, v in items]
    lines = ["# Default system properties included when running spark-submit."] + lines
    return render(c, frame(), [("cat %s/spark-defaults.conf" % pick(["$SPARK_HOME/conf", "/opt/spark/conf", "/etc/spark/conf"]), lines)])


@pos("confluent_api_key_create_jaas")
def p_confluent(c):
    key = uid(UPDIG, 16)
    sec = t_confluent_secret()
    srkey, srsec = uid(UPDIG, 16), t_confluent_secret()
    lkc = uid(LOWDIG, 5, "lkc-")
    tab = ["It may take a couple of minutes for the API key to be ready.",
           "Save the API key and secret. The secret is not retrievable later."] + table(["", ""], [["API Key", key], ["API Secret", S(sec)]], "ascii")[2:]
    region = pick(["us-east-1", "eu-west-1", "us-west-2"])
    props = ["# Required connection configs for Kafka producer, consumer, and admin",
             "bootstrap.servers=pkc-%s.%s.aws.confluent.cloud:9092" % (uid(LOWDIG, 5), region),
             "security.protocol=SASL_SSL", "sasl.mechanisms=PLAIN",
             "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username='%s' password='%s';" % (key, S(sec)),
             "client.dns.lookup=use_all_dns_ips", "session.timeout.ms=45000", "acks=all", "",
             "# Required connection configs for Confluent Cloud Schema Registry",
             "schema.registry.url=https://psrc-%s.%s.aws.confluent.cloud" % (uid(LOWDIG, 5), region),
             "basic.auth.credentials.source=USER_INFO",
             "basic.auth.user.info=%s:%s" % (srkey, S(srsec))]
    fr = frame()
    return render(c, fr, [('confluent api-key create --resource %s --description "%s producer"' % (lkc, c.proj), tab),
                          ("cat config/client.properties", props)])


@pos("debezium_connector_curl_json")
def p_debezium(c):
    pw = pw_any()
    name = pick(["inventory-connector", "orders-cdc", "billing-pg-source", "crm-mysql-cdc"])
    if "mysql" in name or chance(0.3):
        cfg = {"connector.class": "io.debezium.connector.mysql.MySqlConnector", "tasks.max": "1",
               "database.hostname": "mysql.%s" % c.domain, "database.port": "3306", "database.user": "debezium",
               "database.password": S(pw), "database.server.id": str(R.randint(10000, 999999)),
               "topic.prefix": c.proj.replace("-", "_"), "database.include.list": "inventory",
               "schema.history.internal.kafka.bootstrap.servers": "kafka:9092",
               "schema.history.internal.kafka.topic": "schema-changes.inventory"}
    else:
        cfg = {"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "tasks.max": "1",
               "database.hostname": "pg.%s" % c.domain, "database.port": "5432", "database.user": "cdc_reader",
               "database.password": S(pw), "database.dbname": "app", "topic.prefix": c.proj.replace("-", "_"),
               "plugin.name": "pgoutput", "slot.name": "debezium_%s" % c.proj.replace("-", "_"),
               "publication.name": "dbz_publication", "table.include.list": "public.orders,public.customers"}
    body = {"name": name, "config": cfg}
    resp = {"name": name, "config": dict(cfg, name=name), "tasks": [], "type": "source"}
    fr = frame()
    blocks = []
    if chance(0.6):
        blocks.append(("cat connectors/%s.json" % name, jdump(body).split("\n")))
    blocks.append(("curl -s -X POST -H 'Content-Type: application/json' http://%s:8083/connectors -d @connectors/%s.json | jq ." % (
        pick(["localhost", "connect", "kafka-connect.%s" % c.domain]), name), jdump(resp).split("\n")))
    return render(c, fr, blocks)


@pos("eventhubs_kafka_jaas_pyspark")
def p_eventhubs(c):
    ns = "%s-%s" % (c.org.split("-")[0], pick(["events", "ehns", "stream"]))
    hub = pick(["clickstream", "telemetry", "orders", "iot-readings"])
    key = b64std(32)
    lines = ["# Databricks notebook source", "# MAGIC %md", "# MAGIC ## Event Hubs \u2192 Delta bronze (%s)" % hub, "",
             "# COMMAND ----------", "", 'EH_NAMESPACE = "%s"' % ns, 'EH_NAME = "%s"' % hub,
             'EH_CONN = "Endpoint=sb://%s.servicebus.windows.net/;SharedAccessKeyName=%s;SharedAccessKey=%s;EntityPath=%s"' % (
                 ns, pick(["listen-databricks", "RootManageSharedAccessKey", "spark-reader"]), S(key), hub), "",
             "JAAS = f'org.apache.kafka.common.security.plain.PlainLoginModule required username=\"$ConnectionString\" password=\"{EH_CONN}\";'",
             "", "# COMMAND ----------", ""]
    if chance(0.6):
        acct = c.org.replace("-", "")[:16] + "lake"
        lines += ['spark.conf.set("fs.azure.account.key.%s.dfs.core.windows.net", "%s")' % (acct, S(t_azure_storage())), ""]
    else:
        lines += ['spark.conf.set("fs.azure.account.key.%slake.dfs.core.windows.net", dbutils.secrets.get(scope="adls", key="account-key"))' % c.org.replace("-", "")[:16], ""]
    lines += ['df = (spark.readStream.format("kafka")',
              '      .option("kafka.bootstrap.servers", f"{EH_NAMESPACE}.servicebus.windows.net:9093")',
              '      .option("subscribe", EH_NAME)', '      .option("kafka.sasl.mechanism", "PLAIN")',
              '      .option("kafka.security.protocol", "SASL_SSL")', '      .option("kafka.sasl.jaas.config", JAAS)',
              '      .option("startingOffsets", "latest")', "      .load())", "", "# COMMAND ----------", "",
              '(df.writeStream.format("delta").option("checkpointLocation", "/mnt/bronze/_chk/%s")' % hub,
              '   .toTable("bronze.%s_raw"))' % hub.replace("-", "_")]
    path = "/Users/%s/%s" % (c.email, pick(["stream_ingest", "eh_bronze", "ingest_%s" % hub.replace("-", "_")]))
    return render(c, frame(), [("databricks workspace export %s --format SOURCE" % path, lines)])


@pos("redshift_get_cluster_credentials")
def p_redshift_creds(c):
    t = c.ts
    pw = b64std(R.choice([54, 60, 66]))
    user = pick(["etl_loader", "analyst", c.user, "bi_reader"])
    if chance(0.6):
        cl = pick(["analytics-prod", "dw-main", "%s-rs" % c.proj])
        cmd = "aws redshift get-cluster-credentials --cluster-identifier %s --db-user %s --db-name dev --duration-seconds 3600" % (cl, user)
        out = json.dumps({"DbUser": "IAM:%s" % user, "DbPassword": S(pw), "Expiration": t.plus(3600).iso("+00:00")}, indent=4, ensure_ascii=False)
        host = "%s.%s.%s.redshift.amazonaws.com" % (cl, uid(LOWDIG, 12), pick(REGIONS))
        dbuser = "IAM:%s" % user
    else:
        wg = pick(["default-workgroup", "analytics", c.proj])
        cmd = "aws redshift-serverless get-credentials --workgroup-name %s --db-name dev" % wg
        dbuser = "IAMR:%s" % user
        out = json.dumps({"dbPassword": S(pw), "dbUser": dbuser, "expiration": t.plus(900).iso("+00:00"),
                          "nextRefreshTime": t.plus(900 + 3600 * 3).iso("+00:00")}, indent=4, ensure_ascii=False)
        host = "%s.%s.%s.redshift-serverless.amazonaws.com" % (wg, digits(12), pick(REGIONS))
    psql = "PGPASSWORD='%s' psql -h %s -p 5439 -U '%s' -d dev -c 'select current_user, version()'" % (S(pw), host, dbuser)
    ver = "PostgreSQL 8.0.2 on i686-pc-linux-gnu, compiled by GCC gcc (GCC) 3.4.2 20041017 (Red Hat 3.4.2-6.fc3), Redshift 1.0.%d" % R.randint(70000, 90000)
    w1 = max(len("current_user"), len(dbuser))
    res = [(" %s | %s" % ("current_user".center(w1), "version".center(len(ver)))).rstrip(),
           "-" * (w1 + 2) + "+" + "-" * (len(ver) + 2),
           " %s | %s" % (dbuser.lower().ljust(w1), ver), "(1 row)"]
    return render(c, frame(), [(cmd, out.split("\n")), (psql, res)])


@pos("metabase_api_session_curl_v")
def p_metabase(c):
    t = c.ts
    pw = pw_any()
    if chance(0.6):
        host = "metabase.%s" % c.domain
        sess = uuid4()
        body = '{"username": "%s", "password": "%s"}' % (c.email, S(pw))
        ip = "%d.%d.%d.%d" % (R.randint(3, 200), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254))
        v = ["* Host %s:443 was resolved." % host, "*   Trying %s:443..." % ip,
             "* Connected to %s (%s) port 443" % (host, ip), "* ALPN: server accepted h2",
             "* using HTTP/2", "> POST /api/session HTTP/2", "> Host: %s" % host, "> User-Agent: curl/8.5.0",
             "> Accept: */*", "> Content-Type: application/json", "> Content-Length: %d" % (len(body) - 2), ">",
             "< HTTP/2 200", "< date: %s" % t.http(), "< content-type: application/json;charset=utf-8",
             "< set-cookie: metabase.DEVICE=%s;HttpOnly;Path=/;Expires=%s;SameSite=Lax" % (uuid4(), t.plus(86400 * 365 * 20).http()),
             "< set-cookie: metabase.SESSION=%s;HttpOnly;Path=/;Expires=%s;SameSite=Lax" % (S(sess), t.plus(86400 * 14).http()),
             "< x-content-type-options: nosniff", "<", '{"id":"%s"}' % S(sess)]
        q = ["%s" % c.email, "true"]
        return render(c, frame(), [("curl -sv -X POST https://%s/api/session -H 'Content-Type: application/json' -d '%s'" % (host, body), v),
                                   ("curl -s -H 'X-Metabase-Session: %s' https://%s/api/user/current | jq '.email, .is_superuser'" % (S(sess), host), q)])
    host = "superset.%s" % c.domain
    key = rbytes(32)
    now = t.epoch()
    acc = jwt_hs256({"fresh": True, "iat": now, "jti": _uuid(), "type": "access", "sub": R.randint(1, 40),
                     "nbf": now, "csrf": _uuid(), "exp": now + 900}, key)
    ref = jwt_hs256({"fresh": False, "iat": now, "jti": _uuid(), "type": "refresh", "sub": R.randint(1, 40),
                     "nbf": now, "csrf": _uuid(), "exp": now + 2592000}, key)
    body = '{"username": "%s", "password": "%s", "provider": "db", "refresh": true}' % (c.user, S(pw))
    out = jdump({"access_token": S(acc), "refresh_token": S(ref)}).split("\n")
    return render(c, frame(), [("curl -s -X POST https://%s/api/v1/security/login -H 'Content-Type: application/json' -d '%s' | jq ." % (host, body), out)])


@pos("airbyte_source_create_http")
def p_airbyte(c):
    ws = uuid4()
    st = pick(["postgres", "mysql", "stripe", "hubspot"])
    if st in ("postgres", "mysql"):
        pw = pw_any()
        conf = {"sourceType": st, "host": "%s.%s" % (st, c.domain), "port": 5432 if st == "postgres" else 3306,
                "database": pick(["app", "shop", "crm"]), "username": "airbyte", "password": S(pw),
                "ssl_mode": {"mode": "require"}}
        masked = dict(conf, password="**********")
    elif st == "stripe":
        conf = {"sourceType": "stripe", "account_id": "acct_" + alnum(16), "client_secret": S(t_stripe("rk")),
                "start_date": "%s-01-01T00:00:00Z" % c.ts.y}
        masked = dict(conf, client_secret="**********")
    else:
        conf = {"sourceType": "hubspot", "credentials": {"credentials_title": "Private App Credentials",
                                                         "access_token": S(t_hubspot())},
                "start_date": "%s-01-01T00:00:00Z" % c.ts.y}
        masked = dict(conf, credentials={"credentials_title": "Private App Credentials", "access_token": "**********"})
    name = "%s-%s" % (st, pick(["prod", "replica", "main", "eu"]))
    sid = uuid4()
    req_body = {"configuration": conf, "name": name, "workspaceId": ws}
    resp = {"configuration": masked, "definitionId": uuid4(), "name": name, "sourceId": sid, "sourceType": st,
            "workspaceId": ws}
    t = c.ts
    conf_arg = jcompact(conf)
    bpw = pw_urlsafe()
    blob = base64.b64encode(("airbyte:" + bpw).encode()).decode()
    REG[blob] = 1
    cmd = "http -v -a airbyte:%s POST :8000/api/public/v1/sources name=%s workspaceId=%s configuration:='%s'" % (S(bpw), name, ws, conf_arg)
    req = ["POST /api/public/v1/sources HTTP/1.1", "Accept: application/json, */*;q=0.5", "Accept-Encoding: gzip, deflate",
           "Authorization: Basic %s" % S(blob),
           "Connection: keep-alive", "Content-Length: %d" % R.randint(260, 420), "Content-Type: application/json",
           "Host: localhost:8000", "User-Agent: HTTPie/3.2.3", ""]
    req += json.dumps(req_body, indent=4, sort_keys=True, ensure_ascii=False).split("\n")
    rsp = ["", "", "HTTP/1.1 200 OK", "Connection: keep-alive", "Content-Type: application/json",
           "Date: %s" % t.http(), "Transfer-Encoding: chunked", ""]
    rsp += json.dumps(resp, indent=4, sort_keys=True, ensure_ascii=False).split("\n")
    return render(c, frame(), [(cmd, req + rsp)])

# ---------------------------------------------------------------- ML tooling
@pos("hf_stored_tokens_ini")
def p_hf_stored(c):
    names = sample(["research-write", "ci-read", "personal", "org-%s" % c.org, "spaces-deploy", "inference-ep", "gated-llama"], R.randint(2, 3))
    toks = [t_hf() for _ in names]
    active = R.randrange(len(names))
    lst = ["  name                 token", "-" * 40]
    for i, (n, t) in enumerate(zip(names, toks)):
        lst.append("%s %-20s %s" % ("*" if i == active else " ", n, "hf_****" + t[-4:]))
    ini = []
    for n, t in zip(names, toks):
        ini += ["[%s]" % n, "hf_token = %s" % S(t), ""]
    ini = ini[:-1]
    uname = "%s-%s" % (c.user, pick(["ml", "hf", "lab", str(R.randint(1, 99))]))
    who = ["user: %s" % uname if chance(0.5) else uname,
           "orgs: %s" % ",".join(sample([c.org, "bigscience", "%s-research" % c.org.split("-")[0], "hf-internal-testing"], 2))]
    fr = frame()
    blocks = [("huggingface-cli whoami", who), ("huggingface-cli auth list", lst),
              ("cat ~/.cache/huggingface/stored_tokens", ini)]
    if chance(0.6):
        blocks.append(("cat ~/.cache/huggingface/token; echo", [S(toks[active])]))
    return render(c, fr, blocks)


@pos("wandb_run_files_config_yaml")
def p_wandb_cfg(c):
    t = c.ts
    run = uid(LOWDIG, 8)
    hf, oa = t_hf(), t_openai()
    extra_secret = pick([("wandb_api_key", t_wandb), ("db_password", pw_any), ("aws_secret_access_key", t_aws_secret), None])
    old = chance(0.4)
    cfg = {"batch_size": pick([8, 16, 32, 64]), "hf_token": S(hf), "learning_rate": pick([0.0002, 1e-05, 3e-05, 0.0001]),
           "lora_r": pick([8, 16, 64]), "model_name": pick(["meta-llama/Llama-3.1-8B", "mistralai/Mistral-7B-v0.3", "Qwen/Qwen2.5-7B"]),
           "max_seq_length": pick([2048, 4096]), "openai_api_key": S(oa), "output_dir": "outputs/%s" % run,
           "num_train_epochs": pick([1, 2, 3])}
    if extra_secret:
        cfg[extra_secret[0]] = S(extra_secret[1]())
    lines = ["wandb_version: 1", ""] if old else []
    lines += ["_wandb:"]
    if old:
        lines += ["  desc: null"]
    wv = pick(["0.17.9", "0.18.5", "0.16.6"])
    lines += ["  value:", "    cli_version: %s" % wv, "    m: []",
              "    python_version: %s" % c.pyver, "    t:", '      "1":', "      - 1", "      - 11", "      - 49",
              "      - 55", "      - 71", '      "2":', "      - 1", "      - 11", "      - 49", "      - 55", "      - 71",
              '      "3":', "      - 13", "      - 16", "      - 23", '      "4": %s' % c.pyver, '      "5": %s' % wv,
              '      "8":', "      - 5"]
    for k in sorted(cfg):
        v = cfg[k]
        lines.append("%s:" % k)
        if old:
            lines.append("  desc: null")
        lines.append("  value: %s" % v)
    rundir = "wandb/run-%s-%s" % (t.compact(), run)
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        out = read_tool("%s/%s/files/config.yaml" % (c.cwd, rundir), lines)
    else:
        blocks = [("cat %s/files/config.yaml" % rundir, lines)]
        if chance(0.5):
            args = ["--model_name", cfg["model_name"], "--hf_token", S(hf), "--openai_api_key", S(oa), "--lora_r", str(cfg["lora_r"])]
            blocks.append(("jq .args %s/files/wandb-metadata.json" % rundir, jdump(args).split("\n")))
        out = render(c, fr, blocks)
    return out


@pos("mlflow_tracking_env_printenv")
def p_mlflow(c):
    pw = pw_any()
    user = pick(["svc-train", "ci-bot", c.user, "mlflow-admin"])
    host = "mlflow.%s" % c.domain
    env = ["MLFLOW_EXPERIMENT_NAME=%s" % c.proj]
    mode = pick(["basic", "uri", "databricks"])
    if mode == "basic":
        env += ["MLFLOW_TRACKING_PASSWORD=%s" % S(pw), "MLFLOW_TRACKING_URI=https://%s" % host,
                "MLFLOW_TRACKING_USERNAME=%s" % user]
    elif mode == "uri":
        env += ["MLFLOW_TRACKING_URI=https://%s:%s@%s" % (user, S(urlenc(pw)), host)]
    else:
        env += ["MLFLOW_TRACKING_URI=databricks", "DATABRICKS_HOST=https://dbc-%s-%s.cloud.databricks.com" % (hexs(8), hexs(4)),
                "DATABRICKS_TOKEN=%s" % S(t_dapi())]
    if chance(0.6):
        env += ["MLFLOW_S3_ENDPOINT_URL=http://minio:9000", "AWS_SECRET_ACCESS_KEY=%s" % S(pw_urlsafe())]
    env.sort()
    blocks = [("printenv | grep -E '^(MLFLOW|DATABRICKS|AWS_SECRET)' | sort", env)]
    if mode != "databricks" and chance(0.7):
        ini = ["[mlflow]", "default_permission = READ", "database_uri = sqlite:///basic_auth.db",
               "admin_username = %s" % pick(["admin", "mlflow-admin"]), "admin_password = %s" % S(pw_any()),
               "authorization_function = mlflow.server.auth:authenticate_request_basic_auth"]
        blocks.append(("cat %s" % pick(["basic_auth.ini", "deploy/mlflow/basic_auth.ini"]), ini))
    return render(c, frame(), blocks)


@pos("comet_neptune_config_files")
def p_comet_neptune(c):
    ck = alnum(25)
    nt = t_neptune()
    ws = c.org
    cfg = ["[comet]", "api_key = %s" % S(ck), "workspace = %s" % ws, "project_name = %s" % c.proj]
    if chance(0.4):
        cfg += ["", "[comet_logging]", "file = /tmp/comet.log", "display_summary_level = 1"]
    env = ["NEPTUNE_PROJECT=%s/%s" % (ws, c.proj), 'NEPTUNE_API_TOKEN="%s"' % S(nt)]
    if chance(0.5):
        env.insert(0, "COMET_API_KEY=%s" % S(ck))
    rid = "%s-%d" % (c.proj.split("-")[0].upper()[:4], R.randint(10, 900))
    run = ["[neptune] [info   ] Neptune initialized. Open in the app: https://app.neptune.ai/%s/%s/e/%s" % (ws, c.proj, rid)]
    fr = frame()
    return render(c, fr, [("cat ~/.comet.config", cfg), ("grep -E 'NEPTUNE|COMET' .env", env),
                          ("python -c 'import neptune; run = neptune.init_run(); run.stop()'", run + [
                              "[neptune] [info   ] Shutting down background jobs, please wait a moment...",
                              "[neptune] [info   ] Done!",
                              "[neptune] [info   ] All %d operations synced, thanks for waiting!" % R.randint(3, 20)])])


@pos("llm_provider_keys_env_read")
def p_llm_env(c):
    provs = [("OPENAI_API_KEY", t_openai), ("ANTHROPIC_API_KEY", t_anthropic), ("GROQ_API_KEY", t_groq),
             ("MISTRAL_API_KEY", t_mistral), ("TOGETHER_API_KEY", t_together), ("GEMINI_API_KEY", t_gemini),
             ("REPLICATE_API_TOKEN", t_replicate), ("COHERE_API_KEY", t_cohere), ("OPENROUTER_API_KEY", t_openrouter),
             ("HF_TOKEN", t_hf)]
    chosen = sample(provs, R.randint(4, 7))
    lines = ["# --- LLM providers ---"] + ["%s=%s" % (k, S(g())) for k, g in chosen]
    lines += ["", "# --- defaults ---", "DEFAULT_MODEL=%s" % pick(["gpt-4o-mini", "claude-3-5-sonnet-latest", "llama-3.1-70b-versatile"]),
              "MAX_TOKENS=%d" % pick([512, 1024, 2048]), "EMBEDDING_MODEL=text-embedding-3-small",
              "TOKENIZERS_PARALLELISM=false"]
    if chance(0.6):
        lines += ["LANGCHAIN_TRACING_V2=true", "LANGCHAIN_PROJECT=%s" % c.proj, "LANGCHAIN_API_KEY=%s" % S(t_langsmith(pick(["pt", "sk"])))]
    path = "%s/%s" % (c.cwd, pick([".env", ".env.local", "apps/api/.env"]))
    return read_tool(path, lines)


@pos("vector_store_clients_git_diff")
def p_vec_diff(c):
    a, b = hexs(7), hexs(7)
    plus, minus = [], []
    plus += ["+from pinecone import Pinecone", "+from qdrant_client import QdrantClient"]
    minus += ['-PINECONE_API_KEY = os.environ["PINECONE_API_KEY"]']
    plus += ['+PINECONE_API_KEY = "%s"' % S(t_pinecone())]
    stores = sample(["qdrant", "weaviate", "zilliz"], R.randint(1, 3))
    for s_ in stores:
        if s_ == "qdrant":
            plus += ['+qdrant = QdrantClient(', '+    url="https://%s.%s-0.aws.cloud.qdrant.io:6333",' % (uuid4(), pick(["eu-central-1", "us-east4"])),
                     '+    api_key="%s",' % S(fresh(lambda: rs(B64U, 54))), "+)"]
        elif s_ == "weaviate":
            plus += ["+import weaviate", "+from weaviate.classes.init import Auth",
                     "+wv = weaviate.connect_to_weaviate_cloud(",
                     '+    cluster_url="https://%s.c0.%s.gcp.weaviate.cloud",' % (uid(LOWDIG, 20), pick(["europe-west3", "us-west3"])),
                     '+    auth_credentials=Auth.api_key("%s"),' % S(alnum(40)),
                     '+    headers={"X-OpenAI-Api-Key": "%s"},' % S(t_openai()), "+)"]
        else:
            plus += ["+from pymilvus import MilvusClient",
                     '+milvus = MilvusClient(uri="https://in03-%s.serverless.gcp-us-west1.cloud.zilliz.com", token="db_admin:%s")' % (
                         hexs(15), S(pw_any()))]
    body = [" import os", " from typing import Iterable"] + plus[:2] + [" "] + minus + plus[2:] + [" ", " INDEX_NAME = \"%s\"" % pick(["docs", "kb-prod", "tickets"]),
                                                                       " EMBED_DIM = %d" % pick([768, 1024, 1536, 3072])]
    nadd = len([l for l in body if l.startswith("+")])
    ndel = len([l for l in body if l.startswith("-")])
    f = pick(["rag/stores.py", "app/retrieval/clients.py", "src/%s/vectordb.py" % c.proj.replace("-", "_")])
    out = ["diff --git a/%s b/%s" % (f, f), "index %s..%s 100644" % (a, b), "--- a/%s" % f, "+++ b/%s" % f,
           "@@ -1,%d +1,%d @@" % (len(body) - nadd, len(body) - ndel)] + body
    return render(c, frame(), [(pick(["git diff", "git diff --cached", "git diff HEAD -- %s" % f]), out)])


@pos("pydantic_settings_repr_plain")
def p_settings_repr(c):
    pw, rpw = pw_urlsafe(), pw_urlsafe()
    fields = [("app_name", "'%s'" % c.proj), ("environment", "'%s'" % pick(["staging", "prod", "dev"])),
              ("openai_api_key", "'%s'" % S(t_openai())),
              ("anthropic_api_key", "SecretStr('**********')"),
              ("langchain_api_key", "'%s'" % S(t_langsmith())),
              ("database_url", "'postgresql+asyncpg://app:%s@db:5432/%s'" % (S(pw), c.proj.replace("-", "_"))),
              ("redis_url", "'redis://default:%s@%s:6379/0'" % (S(rpw), pick(["redis", "cache.%s" % c.domain]))),
              ("max_tokens", str(pick([512, 1024, 4096]))), ("top_k", str(pick([4, 8, 12]))),
              ("embedding_model", "'text-embedding-3-%s'" % pick(["small", "large"])),
              ("secret_key_rotation_days", str(pick([30, 90]))), ("token_budget_per_user", str(pick([20000, 100000]))),
              ("cors_origins", "['https://app.%s']" % c.domain)]
    R.shuffle(fields)
    if chance(0.5):
        out = [" ".join("%s=%s" % f for f in fields)]
        cmd = "python -c 'from app.settings import settings; print(settings)'"
    else:
        out = ["Settings(" + ", ".join("%s=%s" % f for f in fields) + ")"]
        cmd = "python -c 'from app.settings import get_settings; print(repr(get_settings()))'"
    return render(c, frame(), [(cmd, out)])


@pos("az_cognitiveservices_keys_list")
def p_az_cog(c):
    name = "%s-%s" % (c.org.split("-")[0], pick(["openai", "aoai-eus2", "oai-swc"]))
    rg = "rg-%s-%s" % (c.proj, pick(["prod", "ml", "shared"]))
    mk = lambda: hexs(32) if chance(0.5) else alnum(84)
    k1, k2 = mk(), mk()
    out = jdump({"key1": S(k1), "key2": S(k2)}).split("\n")
    ep = "https://%s.openai.azure.com/" % name
    blocks = [("az cognitiveservices account keys list -n %s -g %s" % (name, rg), out),
              ("az cognitiveservices account show -n %s -g %s --query properties.endpoint -o tsv" % (name, rg), [ep])]
    if chance(0.5):
        dep = pick(["gpt-4o", "gpt-4o-mini", "text-embedding-3-large"])
        blocks.append(("curl -s \"%sopenai/deployments/%s/chat/completions?api-version=2024-06-01\" -H 'api-key: %s' -H 'Content-Type: application/json' -d '{\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}],\"max_tokens\":5}' | jq -c '.choices[0].message'" % (ep, dep, S(k1)),
                       ['{"content":"Pong!","role":"assistant"}']))
    return render(c, frame(), blocks)


@pos("gcloud_adc_authorized_user")
def p_adc(c):
    rt = t_refresh_token()
    proj = "%s-%s" % (c.proj, digits(6)) if chance(0.5) else c.proj
    d = {"account": "", "client_id": "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com",
         "client_secret": "d-FL95Q19q7MQmFpd7hHD0Ty", "quota_project_id": proj, "refresh_token": S(rt),
         "type": "authorized_user", "universe_domain": "googleapis.com"}
    login = ["", "Credentials saved to file: [%s/.config/gcloud/application_default_credentials.json]" % c.home, "",
             "These credentials will be used by any library that requests Application Default Credentials (ADC).", "",
             'Quota project "%s" was added to ADC which can be used by Google client libraries for billing and quota. Note that some services may still bill the project owning the resource.' % proj]
    blocks = []
    if chance(0.5):
        blocks.append(("gcloud auth application-default login --no-browser 2>&1 | tail -n 6", login))
    blocks.append(("cat ~/.config/gcloud/application_default_credentials.json", jdump(d).split("\n")))
    if chance(0.6):
        blocks.append(("gcloud auth application-default print-access-token", [S(t_ya29())]))
    return render(c, frame(), blocks)


@pos("sagemaker_describe_model_env")
def p_sagemaker(c):
    acct = digits(12)
    reg = pick(REGIONS)
    name = "%s-%s-%s" % (pick(["llama3-8b", "mistral-7b", "bge-reranker", "qwen2-7b"]), pick(["tgi", "djl", "tei"]), c.ts.compact().replace("_", "-"))
    env = {"HF_MODEL_ID": pick(["meta-llama/Meta-Llama-3-8B-Instruct", "mistralai/Mistral-7B-Instruct-v0.3", "BAAI/bge-reranker-large"]),
           "HF_TOKEN": S(t_hf()), "MAX_INPUT_LENGTH": "4096", "MAX_TOTAL_TOKENS": "8192", "SM_NUM_GPUS": "1",
           "MESSAGES_API_ENABLED": "true"}
    extra = pick([("WANDB_API_KEY", t_wandb), ("OPENAI_API_KEY", t_openai), ("DB_PASSWORD", pw_any), None])
    if extra:
        env[extra[0]] = S(extra[1]())
    d = {"ModelName": name,
         "PrimaryContainer": {"Image": "763104351884.dkr.ecr.%s.amazonaws.com/huggingface-pytorch-tgi-inference:2.3.0-tgi2.0.2-gpu-py310-cu121-ubuntu22.04" % reg,
                              "Mode": "SingleModel", "Environment": env},
         "ExecutionRoleArn": "arn:aws:iam::%s:role/service-role/AmazonSageMaker-ExecutionRole-%s" % (acct, c.ts.compact().replace("_", "T")),
         "CreationTime": c.ts.iso_us("+00:00"),
         "ModelArn": "arn:aws:sagemaker:%s:%s:model/%s" % (reg, acct, name),
         "EnableNetworkIsolation": False, "DeploymentRecommendation": {"RecommendationStatus": "COMPLETED", "RealTimeInferenceRecommendations": []}}
    out = json.dumps(d, indent=4, ensure_ascii=False).split("\n")
    return render(c, frame(), [("aws sagemaker describe-model --model-name %s" % name, out)])


@pos("ray_cluster_launcher_yaml")
def p_ray(c):
    wk, hf, oa = t_wandb(), t_hf(), t_openai()
    dp = t_docker_pat()
    duser = pick([c.user, c.org.replace("-", ""), "%sbot" % c.org.split("-")[0]])
    y = ["cluster_name: %s-gpu" % c.proj, "max_workers: %d" % pick([2, 4, 8, 16]), "upscaling_speed: 1.0", "",
         "provider:", "  type: aws", "  region: %s" % pick(REGIONS), "  cache_stopped_nodes: true", "",
         "auth:", "  ssh_user: ubuntu", "",
         "docker:", "  image: %s/%s-train:%s" % (duser, c.proj, hexs(7)), "  container_name: ray_container",
         "  pull_before_run: true", "  run_options:", "    - --ulimit nofile=65536:65536",
         "    - -e WANDB_API_KEY=%s" % S(wk), "    - -e HF_TOKEN=%s" % S(hf), "",
         "initialization_commands:", "  - docker login -u %s -p %s" % (duser, S(dp)), "",
         "setup_commands:", '  - pip install -U "ray[default,train]==2.35.0" boto3 wandb',
         "  - echo 'export OPENAI_API_KEY=%s' >> ~/.bashrc" % S(oa), "",
         "available_node_types:", "  head:", "    node_config:", "      InstanceType: m5.2xlarge", "    resources: {}",
         "  gpu_worker:", "    min_workers: 0", "    max_workers: 4", "    node_config:",
         "      InstanceType: %s" % pick(["g5.12xlarge", "p4d.24xlarge", "g6.xlarge"]), "    resources: {}", "",
         "head_node_type: head"]
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool("%s/%s" % (c.cwd, pick(["cluster.yaml", "ray/cluster-gpu.yaml"])), y)
    return render(c, fr, [("cat %s" % pick(["cluster.yaml", "ray/cluster-gpu.yaml"]), y)])


@pos("modal_profile_toml")
def p_modal(c):
    tid = uid(ALNUM, 22, "ak-")
    ts_ = fresh(lambda: "as-" + rs(ALNUM, 22))
    prof = pick([c.org, c.user, "default", "%s-prod" % c.org.split("-")[0]])
    blocks = [("modal token set --token-id %s --token-secret %s --profile %s" % (tid, S(ts_), prof),
               ["Verifying token against https://api.modal.com", "Token verified successfully!",
                "Token written to %s/.modal.toml in profile %s." % (c.home, prof)]),
              ("cat ~/.modal.toml", ["[%s]" % prof, 'token_id = "%s"' % tid, 'token_secret = "%s"' % S(ts_), "active = true"])]
    if chance(0.6):
        ok = t_openai()
        sn = pick(["openai-secret", "llm-keys", "%s-openai" % c.proj])
        blocks.append(("modal secret create %s OPENAI_API_KEY=%s" % (sn, S(ok)),
                       ["Created a new secret '%s' with the key 'OPENAI_API_KEY'" % sn, "",
                        "Use it in your Modal app:", "",
                        "@app.function(secrets=[modal.Secret.from_name(\"%s\")])" % sn, "def some_function():",
                        '    os.getenv("OPENAI_API_KEY")']))
    return render(c, frame(), blocks)


@pos("kaggle_api_json_warning")
def p_kaggle(c):
    key = hexs(32)
    uname = "%s%s" % (c.user, pick(["", str(R.randint(1, 99)), "ml"]))
    warn = "Warning: Your Kaggle API key is readable by other users on this system! To fix this, you can run 'chmod 600 %s/.kaggle/kaggle.json'" % c.home
    ds = [["mlg-ulb/creditcardfraud", "Credit Card Fraud Detection", "66MB", "2018-03-23 01:17:27", str(R.randint(10 ** 5, 10 ** 6)), str(R.randint(1000, 20000)), "0.85294116"],
          ["kartik2112/fraud-detection", "Credit Card Transactions Fraud Detection Dataset", "202MB", "2020-08-05 05:34:23", str(R.randint(10 ** 4, 10 ** 5)), str(R.randint(100, 3000)), "1.0"],
          ["ealaxi/paysim1", "Synthetic Financial Datasets For Fraud Detection", "178MB", "2017-04-03 08:28:41", str(R.randint(10 ** 4, 10 ** 5)), str(R.randint(100, 3000)), "0.85294116"]]
    tab = table(["ref", "title", "size", "lastUpdated", "downloadCount", "voteCount", "usabilityRating"], ds, "dashed")
    blocks = [('kaggle datasets list -s "fraud detection" --page-size 3', [warn] + tab)]
    if chance(0.5):
        blocks.append(("cat ~/.kaggle/kaggle.json", ['{"username":"%s","key":"%s"}' % (uname, S(key))]))
    else:
        blocks.append(("jq . ~/.kaggle/kaggle.json", jdump({"username": uname, "key": S(key)}).split("\n")))
    if chance(0.4):
        comp = pick(["playground-series-s4e8", "titanic", "home-credit-default-risk"])
        blocks.append(("chmod 600 ~/.kaggle/kaggle.json && kaggle competitions download -c %s" % comp,
                       ["Downloading %s.zip to %s" % (comp, c.cwd), "100%%|%s| %.1fM/%.1fM [00:01<00:00, %.1fMB/s]" % ("\u2588" * 10, 42.1, 42.1, R.uniform(10, 60)), ""]))
    return render(c, frame(), blocks)


@pos("weaviate_qdrant_compose_keys")
def p_weaviate(c):
    mk = lambda: pick([lambda: fresh(lambda: rs(B64U, 32)), _pw_phrase_fresh, lambda: hexs(48)])()
    keys = [mk() for _ in range(R.randint(1, 3))]
    users = sample(["admin@%s" % c.domain, "reader@%s" % c.domain, "ingest@%s" % c.domain, c.email], len(keys))
    wv = {"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED": '"false"', "AUTHENTICATION_APIKEY_ENABLED": '"true"',
          "AUTHENTICATION_APIKEY_ALLOWED_KEYS": ",".join(S(k) for k in keys),
          "AUTHENTICATION_APIKEY_USERS": ",".join(users), "AUTHORIZATION_ADMINLIST_ENABLED": '"true"',
          "AUTHORIZATION_ADMINLIST_USERS": users[0], "DEFAULT_VECTORIZER_MODULE": "text2vec-openai",
          "ENABLE_MODULES": "text2vec-openai,generative-openai", "PERSISTENCE_DATA_PATH": "/var/lib/weaviate",
          "QUERY_DEFAULTS_LIMIT": '"25"'}
    if chance(0.6):
        wv["OPENAI_APIKEY"] = S(t_openai())
    qd = {"QDRANT__SERVICE__API_KEY": S(mk()), "QDRANT__SERVICE__ENABLE_TLS": '"false"',
          "QDRANT__LOG_LEVEL": "INFO"}
    if chance(0.7):
        qd["QDRANT__SERVICE__READ_ONLY_API_KEY"] = S(mk())
    lines = ["name: %s" % c.proj, "services:", "  qdrant:", "    environment:"]
    lines += ["      %s: %s" % (k, qd[k]) for k in sorted(qd)]
    lines += ["    image: qdrant/qdrant:v1.11.3", "    ports:", "      - mode: ingress", "        target: 6333",
              '        published: "6333"', "        protocol: tcp",
              "  weaviate:", "    environment:"]
    lines += ["      %s: %s" % (k, wv[k]) for k in sorted(wv)]
    lines += ["    image: cr.weaviate.io/semitechnologies/weaviate:%s" % pick(["1.26.4", "1.25.10", "1.27.0"])]
    return render(c, frame(), [("docker compose config", lines)])


def _pw_phrase_fresh():
    return fresh(_pw_phrase)

# ---------------------------------------------------------------- SaaS integrations
STRIPE_EVENTS = ["customer.created", "payment_intent.created", "payment_intent.succeeded", "charge.succeeded",
                 "checkout.session.completed", "invoice.paid", "customer.subscription.updated", "invoice.finalized"]


@pos("stripe_listen_forward_events")
def p_stripe_listen(c):
    t = c.ts
    port = pick([3000, 4242, 8000, 5173])
    path = pick(["/api/webhooks/stripe", "/webhook", "/billing/stripe/events", "/api/stripe/webhook"])
    wh = t_whsec_cli()
    if chance(0.5):
        rk = t_stripe(pick(["rk", "sk"]), "test")
        cmd = "stripe listen --forward-to localhost:%d%s --api-key %s" % (port, path, S(rk))
    else:
        cmd = "stripe listen --forward-to localhost:%d%s" % (port, path)
    out = ["> Ready! You are using Stripe API Version [%s]. Your webhook signing secret is %s (^C to quit)" % (
        pick(["2024-06-20", "2024-09-30.acacia", "2023-10-16"]), S(wh))]
    tt = t
    for ev in sample(STRIPE_EVENTS, R.randint(3, 6)):
        eid = uid(ALNUM, 24, "evt_1")
        tt = tt.plus(R.randint(0, 3))
        out.append("%s   --> %s [%s]" % (tt.sp(), ev, eid))
        out.append("%s  <--  [%d] POST http://localhost:%d%s [%s]" % (tt.sp(), pick([200, 200, 200, 400, 500]), port, path, eid))
    blocks = [(cmd, out)]
    if chance(0.4):
        blocks.append(("grep STRIPE .env.local", ["STRIPE_SECRET_KEY=%s" % S(t_stripe("sk", "test")),
                                                  "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_test_51%s" % alnum(97),
                                                  "STRIPE_WEBHOOK_SECRET=%s" % S(wh)]))
    return render(c, frame(), blocks)


@pos("slack_bolt_env_socket_mode")
def p_slack(c):
    env = ["SLACK_BOT_TOKEN=%s" % S(t_xoxb()), "SLACK_APP_TOKEN=%s" % S(t_xapp()),
           "SLACK_SIGNING_SECRET=%s" % S(hexs(32))]
    if chance(0.6):
        env += ["SLACK_CLIENT_ID=%s.%s" % (digits(13), digits(13)), "SLACK_CLIENT_SECRET=%s" % S(hexs(32)),
                "SLACK_STATE_SECRET=%s" % S(pick([b64url_nopad(24), hexs(32)]))]
    env += ["LOG_LEVEL=%s" % pick(["DEBUG", "INFO"]), "OPENAI_MODEL=gpt-4o-mini"]
    if chance(0.5):
        env.append("OPENAI_API_KEY=%s" % S(t_openai()))
    py = chance(0.5)
    if py:
        run = ("python app.py", ["\u26a1\ufe0f Bolt app is running!",
                                 "INFO:slack_sdk.socket_mode.builtin.client:A new session has been established (session id: %s)" % uuid4(),
                                 "INFO:slack_sdk.socket_mode.builtin.client:Starting to receive messages from a new connection (session id: %s)" % uuid4()])
    else:
        run = ("npm run dev", ["", "> %s@1.0.0 dev" % c.proj, "> node --watch app.js", "",
                               "[INFO]  socket-mode:SocketModeClient:0 Going to establish a new connection to Slack ...",
                               "[INFO]  socket-mode:SocketModeClient:0 Now connected to Slack",
                               "\u26a1\ufe0f Bolt app is running!"])
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool("%s/.env" % c.cwd, env)
    return render(c, fr, [("cat .env", env), run])


@pos("chat_bot_tokens_jq")
def p_bots(c):
    app_id = snowflake_id()
    dtok = t_discord_bot(app_id)
    hook_id = snowflake_id()
    htok = t_discord_hook()
    tg = t_telegram()
    d = {"discord": {"token": S(dtok), "application_id": app_id, "public_key": hexs(64),
                     "guild_ids": [snowflake_id() for _ in range(R.randint(1, 2))],
                     "alerts_webhook": "https://discord.com/api/webhooks/%s/%s" % (hook_id, S(htok))},
         "telegram": {"bot_token": S(tg), "chat_id": -int("100" + digits(10)), "parse_mode": "HTML"},
         "llm": {"model": pick(["gpt-4o-mini", "claude-3-5-haiku-latest"]), "max_tokens": pick([256, 512]), "temperature": 0.3}}
    t = c.ts
    logs = ["%s,%03d INFO httpx: HTTP Request: POST https://api.telegram.org/bot%s/getMe \"HTTP/1.1 200 OK\"" % (t.sp(), R.randint(0, 999), S(tg)),
            "%s,%03d INFO httpx: HTTP Request: POST https://api.telegram.org/bot%s/deleteWebhook \"HTTP/1.1 200 OK\"" % (t.plus(1).sp(), R.randint(0, 999), S(tg)),
            "%s,%03d INFO telegram.ext.Application: Application started" % (t.plus(1).sp(), R.randint(0, 999)),
            "%s INFO     discord.client logging in using static token" % t.plus(2).sp(),
            "%s INFO     discord.gateway Shard ID None has connected to Gateway (Session ID: %s)." % (t.plus(3).sp(), hexs(32))]
    fr = frame()
    return render(c, fr, [("jq . config/bot.json", jdump(d).split("\n")), ("tail -n 5 logs/bot.log", logs)])


@pos("analytics_server_keys_env")
def p_analytics(c):
    mp_user = "%s-export.%s.mp-service-account" % (pick(["etl", "warehouse", "dbt"]), hexs(6))
    lines = ["NEXT_PUBLIC_MIXPANEL_TOKEN=%s" % hexs(32),
             "MIXPANEL_SERVICE_ACCOUNT_USERNAME=%s" % mp_user,
             "MIXPANEL_SERVICE_ACCOUNT_SECRET=%s" % S(alnum(32)),
             "MIXPANEL_PROJECT_ID=%s" % digits(7)]
    if chance(0.5):
        lines.append("MIXPANEL_API_SECRET=%s" % S(hexs(32)))
    amp_key = hexs(32)
    amp_sec = hexs(32)
    lines += ["NEXT_PUBLIC_AMPLITUDE_API_KEY=%s" % amp_key, "AMPLITUDE_SECRET_KEY=%s" % S(amp_sec),
              "NEXT_PUBLIC_SEGMENT_WRITE_KEY=%s" % alnum(32),
              "NEXT_PUBLIC_POSTHOG_KEY=phc_%s" % alnum(43), "NEXT_PUBLIC_POSTHOG_HOST=https://eu.i.posthog.com"]
    if chance(0.6):
        lines.append("POSTHOG_PERSONAL_API_KEY=%s" % S(t_posthog_personal()))
    blocks = [("grep -E 'MIXPANEL|AMPLITUDE|SEGMENT|POSTHOG' .env.production", lines)]
    if chance(0.5):
        t = c.ts
        blocks.append(("curl -s -u %s:%s 'https://amplitude.com/api/2/export?start=%s%02dT00&end=%s%02dT23' -o export.zip -w '%%{http_code}\\n'" % (
            amp_key, S(amp_sec), t.date().replace("-", "")[:6], t.d, t.date().replace("-", "")[:6], t.d), ["200"]))
    return render(c, frame(), blocks)


@pos("sentryclirc_and_properties")
def p_sentry(c):
    org = c.org
    u = t_sentry_user()
    st = t_sentry_org(org, c.ts.epoch())
    dsn_key = hexs(32)
    rc = ["[auth]", "token=%s" % S(u), "", "[defaults]", "org=%s" % org, "project=%s" % c.proj]
    props = ["defaults.url=https://sentry.io/", "defaults.org=%s" % org, "defaults.project=%s-%s" % (c.proj, pick(["ios", "android"])),
             "auth.token=%s" % S(st)]
    dsn = ".env.production:%d:SENTRY_DSN=https://%s@o%s.ingest.%ssentry.io/%s" % (
        R.randint(1, 9), S(dsn_key), digits(6), pick(["us.", "de.", ""]), digits(16))
    info = ["Sentry Server: https://sentry.io", "Default Organization: %s" % org, "Default Project: %s" % c.proj, "",
            "Authentication Info:", "  Method: Auth Token", "  User: %s" % c.email, "  Scopes:",
            "    - project:read", "    - project:releases", "    - org:read"]
    fr = frame()
    return render(c, fr, [("cat ~/.sentryclirc", rc), ("cat %s/sentry.properties" % pick(["ios", "android"]), props),
                          ("grep -rn SENTRY_DSN .env*", [dsn]), ("sentry-cli info", info)])


@pos("auth0_m2m_token_curl")
def p_auth0(c):
    t = c.ts
    now = t.epoch()
    if chance(0.6):
        tenant = "%s%s" % (c.org.split("-")[0], pick(["", "-prod", "-dev"]))
        dom = "%s.%s.auth0.com" % (tenant, pick(["us", "eu"]))
        cid = alnum(32)
        sec = t_auth0_secret()
        aud = "https://%s/api/v2/" % dom
        payload = {"iss": "https://%s/" % dom, "sub": "%s@clients" % cid, "aud": aud, "iat": now, "exp": now + 86400,
                   "scope": "read:users update:users read:clients", "gty": "client-credentials", "azp": cid}
        tok = jwt_rs256(payload, b64url_nopad(16))
        body = '{"client_id":"%s","client_secret":"%s","audience":"%s","grant_type":"client_credentials"}' % (cid, S(sec), aud)
        cmd = "curl -s --request POST --url https://%s/oauth/token --header 'content-type: application/json' --data '%s' | jq ." % (dom, body)
        out = jdump({"access_token": S(tok), "scope": payload["scope"], "expires_in": 86400, "token_type": "Bearer"}).split("\n")
    else:
        dom = "%s.okta.com" % c.org.split("-")[0]
        cid = "0oa" + alnum(17)
        sec = t_auth0_secret()
        payload = {"ver": 1, "jti": "AT." + rs(B64U, 43), "iss": "https://%s/oauth2/default" % dom, "aud": "api://default",
                   "iat": now, "exp": now + 3600, "cid": cid, "scp": ["etl.read"], "sub": cid}
        tok = jwt_rs256(payload, b64url_nopad(32))
        cmd = "curl -s -u %s:%s -d 'grant_type=client_credentials&scope=etl.read' https://%s/oauth2/default/v1/token | jq ." % (cid, S(sec), dom)
        out = jdump({"token_type": "Bearer", "expires_in": 3600, "access_token": S(tok), "scope": "etl.read"}).split("\n")
    return render(c, frame(), [(cmd, out)])


@pos("clerk_supabase_env_diff")
def p_clerk_supa(c):
    ref = uid(LOW, 20)
    jkey = rbytes(32)
    iat = c.ts.epoch()
    anon = jwt_hs256({"iss": "supabase", "ref": ref, "role": "anon", "iat": iat, "exp": iat + 315360000}, jkey)
    srv = jwt_hs256({"iss": "supabase", "ref": ref, "role": "service_role", "iat": iat, "exp": iat + 315360000}, jkey)
    dbpw = pw_urlsafe()
    dom = pick(["accounts.%s" % c.domain, "clerk.%s" % c.domain])
    diff = ["--- .env.example", "+++ .env.local", "@@ -1,7 +1,8 @@",
            "-NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=pk_test_xxx", "-CLERK_SECRET_KEY=sk_test_xxx", "-CLERK_WEBHOOK_SECRET=whsec_xxx",
            "+NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=%s" % clerk_pk(dom.split(".", 1)[1]),
            "+CLERK_SECRET_KEY=%s" % S(t_clerk_sk()), "+CLERK_WEBHOOK_SECRET=%s" % S(t_whsec_svix()),
            " NEXT_PUBLIC_CLERK_SIGN_IN_URL=/sign-in",
            "-NEXT_PUBLIC_SUPABASE_URL=https://your-project.supabase.co", "-NEXT_PUBLIC_SUPABASE_ANON_KEY=",
            "-SUPABASE_SERVICE_ROLE_KEY=",
            "+NEXT_PUBLIC_SUPABASE_URL=https://%s.supabase.co" % ref, "+NEXT_PUBLIC_SUPABASE_ANON_KEY=%s" % anon,
            "+SUPABASE_SERVICE_ROLE_KEY=%s" % S(srv),
            "+DATABASE_URL=postgresql://postgres.%s:%s@aws-0-%s.pooler.supabase.com:6543/postgres" % (ref, S(dbpw), pick(["eu-central-1", "us-east-1", "ap-southeast-1"]))]
    if chance(0.5):
        diff += ["+APPLE_TEAM_ID=%s" % uid(UPDIG, 10), "+APPLE_KEY_ID=%s" % uid(UPDIG, 10),
                 '+APPLE_PRIVATE_KEY="%s"' % pem_escaped("PRIVATE KEY", ec_pkcs8_der())]
        diff[2] = "@@ -1,7 +1,11 @@"
    return render(c, frame(), [("diff -u .env.example .env.local", diff)])


@pos("firebase_functions_config_get")
def p_firebase_cfg(c):
    d = {"stripe": {"secret": S(t_stripe("sk")), "webhook_secret": S("whsec_" + alnum(32))},
         "sendgrid": {"key": S(t_sendgrid()), "template_welcome": "d-" + hexs(32)},
         "app": {"env": pick(["production", "staging"]), "max_tokens": str(pick([400, 800])), "region": "europe-west1"}}
    if chance(0.5):
        d["openai"] = {"key": S(t_openai()), "model": "gpt-4o-mini"}
    out = jdump(d).split("\n")
    pre = ["\u26a0  DEPRECATION NOTICE: Action will be required to deploy after March 2025. The functions.config() API is deprecated.",
           "   Migrate to Params: https://firebase.google.com/docs/functions/config-env#migrate-config", ""] if chance(0.6) else []
    return render(c, frame(), [("firebase functions:config:get --project %s" % c.proj, pre + out)])


@pos("algolia_cli_config_profiles")
def p_algolia(c):
    profs = [("default", uid(UPDIG, 10), hexs(32)), ("staging", uid(UPDIG, 10), hexs(32))]
    if chance(0.4):
        profs = profs[:1]
    toml = []
    for i, (n, app, adm) in enumerate(profs):
        toml += ["[%s]" % n, 'application_id = "%s"' % app, 'admin_api_key = "%s"' % S(adm)]
        if i == 0:
            toml.append("default = true")
        toml.append("")
    toml = toml[:-1]
    lst = table(["NAME", "APPLICATION ID", "NUMBER OF INDICES", "DEFAULT"],
                [[n, app, str(R.randint(2, 40)), "\u2714" if i == 0 else ""] for i, (n, app, _) in enumerate(profs)], "plain")
    env = ["NEXT_PUBLIC_ALGOLIA_APP_ID=%s" % profs[0][1], "NEXT_PUBLIC_ALGOLIA_SEARCH_KEY=%s" % hexs(32),
           "NEXT_PUBLIC_ALGOLIA_INDEX=%s_products" % pick(["prod", "dev"])]
    return render(c, frame(), [("algolia profile list", lst), ("cat ~/.config/algolia/config.toml", toml),
                               ("grep ALGOLIA .env.local", env)])


@pos("shopify_app_env_show")
def p_shopify(c):
    cid = hexs(32)
    secret = pick([lambda: t_shpat("shpss"), lambda: hexs(32)])()
    scopes = ",".join(sample(["read_products", "write_products", "read_orders", "write_orders", "read_customers", "read_inventory"], 3))
    inner = ["SHOPIFY_API_KEY=%s" % cid, "SHOPIFY_API_SECRET=%s" % S(secret), "SCOPES=%s" % scopes]
    w = max(dwidth(x) for x in inner) + 4
    box = ["\u256d\u2500 info " + "\u2500" * (w - 6) + "\u256e", "\u2502" + " " * (w + 1) + "\u2502"]
    box += ["\u2502  " + x + " " * (w - 1 - dwidth(x)) + "\u2502" for x in inner]
    box += ["\u2502" + " " * (w + 1) + "\u2502", "\u2570" + "\u2500" * (w + 1) + "\u256f"]
    shop = "%s.myshopify.com" % pick([c.org, c.proj, c.org.split("-")[0] + "-store"])
    env = ["SHOPIFY_SHOP=%s" % shop, "SHOPIFY_ADMIN_ACCESS_TOKEN=%s" % S(t_shpat()),
           "SHOPIFY_WEBHOOK_SECRET=%s" % S(hexs(64) if chance(0.5) else secret)]
    fr = frame()
    return render(c, fr, [("shopify app env show", box), ("cat .env", env)])


@pos("crm_notes_sync_script_head")
def p_crm(c):
    hs, nt, at = t_hubspot(), t_notion(), t_airtable()
    lines = ['"""Nightly sync: HubSpot deals -> Notion database -> Airtable base."""', "import os", "import requests", "",
             'HUBSPOT_TOKEN = "%s"' % S(hs), 'NOTION_TOKEN = os.getenv("NOTION_TOKEN", "%s")' % S(nt),
             'NOTION_DB = "%s"' % hexs(32), 'AIRTABLE_PAT = "%s"' % S(at),
             'AIRTABLE_BASE = "%s"' % uid(ALNUM, 14, "app"), 'AIRTABLE_TABLE = "%s"' % uid(ALNUM, 14, "tbl"), "",
             'H_HS = {"Authorization": f"Bearer {HUBSPOT_TOKEN}"}',
             'H_NOTION = {"Authorization": f"Bearer {NOTION_TOKEN}", "Notion-Version": "2022-06-28"}',
             'H_AT = {"Authorization": f"Bearer {AIRTABLE_PAT}"}', "", "",
             "def deals_since(ts):", '    r = requests.post("https://api.hubapi.com/crm/v3/objects/deals/search", headers=H_HS,',
             '                      json={"filterGroups": [{"filters": [{"propertyName": "hs_lastmodifieddate", "operator": "GTE", "value": ts}]}]})',
             "    r.raise_for_status()", '    return r.json()["results"]']
    n = len(lines) + R.randint(0, 20)
    f = pick(["scripts/sync_crm.py", "jobs/crm_sync.py", "%s/sync.py" % c.proj.replace("-", "_")])
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool("%s/%s" % (c.cwd, f), lines)
    return render(c, fr, [("head -n %d %s" % (len(lines), f), lines)])


@pos("saas_api_curl_history")
def p_hist(c):
    n = R.randint(400, 2000)
    entries = []
    kinds = sample(["intercom", "zendesk", "replicate", "pagerduty", "notion"], R.randint(3, 4))
    for k in kinds:
        if k == "intercom":
            entries.append("curl https://api.intercom.io/me -H 'Authorization: Bearer %s' -H 'Accept: application/json'" % S(t_intercom()))
        elif k == "zendesk":
            entries.append("curl -u %s/token:%s 'https://%s.zendesk.com/api/v2/tickets.json?per_page=5'" % (c.email, S(t_zendesk()), c.org.split("-")[0]))
        elif k == "replicate":
            entries.append("curl -s -X POST https://api.replicate.com/v1/predictions -H \"Authorization: Token %s\" -H 'Content-Type: application/json' -d '{\"version\": \"%s\", \"input\": {\"prompt\": \"a watercolor fox\"}}'" % (S(t_replicate()), hexs(64)))
        elif k == "pagerduty":
            entries.append("curl -s 'https://api.pagerduty.com/incidents?statuses[]=triggered' -H 'Authorization: Token token=%s' -H 'Accept: application/vnd.pagerduty+json;version=2'" % S(t_pd_rest()))
        else:
            entries.append("curl -s https://api.notion.com/v1/users/me -H 'Authorization: Bearer %s' -H 'Notion-Version: 2022-06-28'" % S(t_notion()))
    filler = ["git status", "ls -la", "jq '.results | length' out.json", "cd ..", "vim .env", "pip list | grep -i requests"]
    out = []
    for e in entries:
        n += R.randint(1, 40)
        out.append("%5d  %s" % (n, e))
    if chance(0.5):
        n += 1
        out.append("%5d  %s" % (n, "history | grep curl"))
    return render(c, frame(), [("history | grep -E 'curl .*(intercom|zendesk|replicate|pagerduty|notion)'", out)])


@pos("yq_ops_integrations_tokens")
def p_yq(c):
    y = ["pagerduty:", "  routing_key: %s" % S(hexs(32)), "  api_token: %s" % S(t_pd_rest()),
         "  service_id: P%s" % uid(UPDIG, 6), "linear:", "  api_key: %s" % S(t_linear()), "  team_id: %s" % uuid4(),
         "asana:", "  pat: %s" % S(t_asana()), '  workspace_gid: "%s"' % digits(16),
         "slack:", "  channel: '#%s-alerts'" % c.proj, "  webhook_url: %s" % slack_hook(t_slack_hook_tail())]
    f = pick(["deploy/values.prod.yaml", "helm/%s/values-prod.yaml" % c.proj, "config/integrations.yaml"])
    return render(c, frame(), [("yq '.integrations' %s" % f, y)])


@pos("cms_media_env_printenv")
def p_cms(c):
    cloud = pick([c.org, c.proj, c.org.split("-")[0] + "-media"])
    items = [("CLOUDINARY_URL", "cloudinary://%s:%s@%s" % (digits(15), S(fresh(lambda: rs(B64U, 27))), cloud)),
             ("CONTENTFUL_ENVIRONMENT", "master"), ("CONTENTFUL_MANAGEMENT_TOKEN", S(t_cfpat())),
             ("CONTENTFUL_SPACE_ID", uid(LOWDIG, 12)), ("NEXT_PUBLIC_SANITY_DATASET", "production"),
             ("NEXT_PUBLIC_SANITY_PROJECT_ID", uid(LOWDIG, 8)), ("SANITY_API_WRITE_TOKEN", S(t_sanity()))]
    if chance(0.5):
        items.append(("NEXT_PUBLIC_CLOUDINARY_CLOUD_NAME", cloud))
    items.sort()
    return render(c, frame(), [("printenv | sort | grep -E '^(CLOUDINARY|CONTENTFUL|SANITY|NEXT_PUBLIC_(SANITY|CLOUDINARY))'",
                                ["%s=%s" % kv for kv in items])])


@pos("plaid_mapbox_settings_py")
def p_plaid(c):
    mu = pick([c.user, c.org.replace("-", ""), "%s-maps" % c.org.split("-")[0]])
    lines = ["# --- third-party integrations ---", 'PLAID_CLIENT_ID = "%s"' % hexs(24),
             'PLAID_SECRET = "%s"' % S(hexs(30)), 'PLAID_ENV = "%s"' % pick(["production", "development"]),
             'PLAID_PRODUCTS = ["transactions", "auth"]', "",
             'MAPBOX_PUBLIC_TOKEN = "%s"' % t_mapbox("pk", mu), 'MAPBOX_SECRET_TOKEN = "%s"' % S(t_mapbox("sk", mu)),
             "", 'GEOCODER_MAX_TOKENS = %d' % pick([5, 10])]
    start = R.randint(90, 180)
    f = "config/settings/%s.py" % pick(["production", "base", "prod"])
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool("%s/%s" % (c.cwd, f), lines, start)
    return render(c, fr, [("sed -n '%d,%dp' %s" % (start, start + len(lines) - 1, f), lines)])


@pos("payments_gateways_initializer_rb")
def p_payments(c):
    lines = ["# frozen_string_literal: true", "",
             "Braintree::Configuration.environment = :%s" % pick(["production", "sandbox"]),
             'Braintree::Configuration.merchant_id = "%s"' % uid(LOWDIG, 16),
             'Braintree::Configuration.public_key = "%s"' % uid(LOWDIG, 16),
             'Braintree::Configuration.private_key = "%s"' % S(hexs(32)), "",
             'PAYPAL_CLIENT_ID = "%s"' % t_paypal("A"), 'PAYPAL_CLIENT_SECRET = "%s"' % S(t_paypal("E")), "",
             "SQUARE = Square::Client.new(", '  access_token: "%s",' % S(t_square()),
             '  environment: "production"', ")", 'SQUARE_APPLICATION_ID = "sq0idp-%s"' % fresh(lambda: rs(B64U, 22)),
             'SQUARE_LOCATION_ID = "%s"' % uid(UPDIG, 13)]
    return render(c, frame(), [("cat config/initializers/payments.rb", lines)])


@pos("transactional_email_env_diff")
def p_email(c):
    pm = uuid4()
    a, b = hexs(7), hexs(7)
    body = [" APP_URL=https://app.%s" % c.domain, "-MAIL_DRIVER=log",
            "+MAIL_DRIVER=smtp", "+POSTMARK_SERVER_TOKEN=%s" % S(pm), "+SMTP_HOST=smtp.postmarkapp.com", "+SMTP_PORT=587",
            "+SMTP_USERNAME=%s" % S(pm), "+SMTP_PASSWORD=%s" % S(pm),
            "+MAILGUN_API_KEY=%s" % S(t_mailgun()), "+MAILGUN_DOMAIN=mg.%s" % c.domain,
            "+MAILGUN_WEBHOOK_SIGNING_KEY=%s" % S(hexs(32))]
    if chance(0.6):
        body.append("+SENDGRID_API_KEY=%s" % S(t_sendgrid()))
    body.append(" QUEUE_CONNECTION=redis")
    f = pick(["deploy/prod.env", "config/mail.env", ".env.production"])
    nplus = len([l for l in body if l.startswith("+")])
    hs = R.randint(3, 30)
    out = ["diff --git a/%s b/%s" % (f, f), "index %s..%s 100644" % (a, b), "--- a/%s" % f, "+++ b/%s" % f,
           "@@ -%d,3 +%d,%d @@" % (hs, hs, 2 + nplus)] + body
    return render(c, frame(), [(pick(["git diff --staged", "git diff --cached -- %s" % f]), out)])


@pos("twilio_cli_config_json_profiles")
def p_twilio(c):
    sec = alnum(32)
    prof = pick(["prod", c.org, "default"])
    d = {"profiles": {prof: {"accountSid": "AC" + hexs(32), "apiKey": "SK" + hexs(32), "apiSecret": S(sec),
                             "region": None, "edge": None}}, "activeProfile": prof}
    blocks = [("cat ~/.twilio-cli/config.json", jdump(d).split("\n"))]
    if chance(0.6):
        env = ["TWILIO_ACCOUNT_SID=AC%s" % hexs(32), "TWILIO_AUTH_TOKEN=%s" % S(hexs(32)),
               "TWILIO_MESSAGING_SERVICE_SID=MG%s" % hexs(32), "TWILIO_FROM=+1%s" % digits(10)]
        blocks.append(("grep TWILIO .env", env))
    return render(c, frame(), blocks)


@pos("alert_webhooks_dagster_sensor")
def p_hooks(c):
    sh = t_slack_hook_tail()
    did, dtok = snowflake_id(), t_discord_hook()
    lines = ["import requests", "from dagster import RunFailureSensorContext, run_failure_sensor", "",
             'SLACK_WEBHOOK = "%s"' % slack_hook(sh),
             'DISCORD_WEBHOOK = "https://discord.com/api/webhooks/%s/%s"' % (did, S(dtok)), "", "",
             "@run_failure_sensor(minimum_interval_seconds=%d)" % pick([30, 60, 120]),
             "def notify_on_failure(context: RunFailureSensorContext):",
             '    msg = f":red_circle: {context.dagster_run.job_name} failed: {context.failure_event.message}"',
             '    requests.post(SLACK_WEBHOOK, json={"text": msg}, timeout=10)',
             '    requests.post(DISCORD_WEBHOOK, json={"content": msg[:1900]}, timeout=10)']
    f = pick(["orchestration/sensors.py", "%s/sensors/alerts.py" % c.proj.replace("-", "_")])
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool("%s/%s" % (c.cwd, f), lines)
    return render(c, fr, [("sed -n '1,%dp' %s" % (len(lines), f), lines)])

# ==========================================================================
# NEGATIVE templates (no secrets; public-by-design keys are said so in README)
# ==========================================================================
def png_bytes(w, h):
    raw = b""
    base = [R.randint(0, 255) for _ in range(3)]
    for y in range(h):
        raw += b"\x00"
        for x in range(w):
            v = (x * 7 + y * 3 + R.randint(0, 40)) % 256
            raw += bytes([(base[0] + v) % 256, (base[1] + v // 2) % 256, (base[2] + 255 - v) % 256])

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


@neg("nbformat_execution_metadata")
def n_nbmeta(c):
    t = c.ts
    cells = []
    for i in range(R.randint(3, 5)):
        t0 = t.plus(i * R.randint(2, 40))
        dur = R.uniform(0.01, 30)
        cells.append({"id": nb_id(), "execution_count": i + 1,
                      "metadata": {"execution": {"iopub.execute_input": t0.iso_us(), "iopub.status.busy": t0.iso_us(),
                                                 "iopub.status.idle": t0.plus(int(dur) + 1).iso_us(),
                                                 "shell.execute_reply": t0.plus(int(dur) + 1).iso_us()},
                                   "papermill": {"duration": round(dur, 6), "end_time": t0.plus(int(dur) + 1).iso_us(),
                                                 "exception": False, "start_time": t0.iso_us(), "status": "completed"},
                                   "tags": ["parameters"] if i == 0 else []}})
    widgets = {"application/vnd.jupyter.widget-state+json": {"state": {}, "version_major": 2, "version_minor": 0}}
    for _ in range(R.randint(2, 3)):
        widgets["application/vnd.jupyter.widget-state+json"]["state"][hexs(32)] = {
            "model_module": "@jupyter-widgets/controls", "model_module_version": "2.0.0",
            "model_name": pick(["FloatProgressModel", "HTMLModel", "HBoxModel"]),
            "state": {"layout": "IPY_MODEL_" + hexs(32), "style": "IPY_MODEL_" + hexs(32)}}
    nb = pick(NB_TOPICS)
    blocks = [("jq '.cells[] | {id, execution_count, metadata}' runs/%s-%s.ipynb" % (nb, t.date()),
               "\n".join(jdump(x) for x in cells).split("\n")),
              ("jq '.metadata.widgets' runs/%s-%s.ipynb" % (nb, t.date()), jdump(widgets).split("\n"))]
    return render(c, frame(), blocks)


@neg("nb_display_png_base64_head")
def n_png(c):
    w, h = R.randint(8, 18), R.randint(6, 12)
    b = base64.b64encode(png_bytes(w, h)).decode()
    REG[b] = 1
    out = {"data": {"image/png": b, "text/plain": ["<Figure size %dx%d with 1 Axes>" % (pick([640, 800, 1000]), pick([480, 600]))]},
           "metadata": {"needs_background": "light"} if chance(0.5) else {}, "output_type": "display_data"}
    nb = pick(NB_TOPICS)
    n = R.randint(2, 12)
    blocks = [("jq '.cells[%d].outputs[0]' notebooks/%s.ipynb" % (n, nb), jdump(out).split("\n"))]
    if chance(0.5):
        blocks.append(("jq -r '.cells[%d].outputs[0].data[\"image/png\"]' notebooks/%s.ipynb | base64 -d | file -" % (n, nb),
                       ["/dev/stdin: PNG image data, %d x %d, 8-bit/color RGB, non-interlaced" % (w, h)]))
    return render(c, frame(), blocks)


@neg("getpass_prompt_cells")
def n_getpass(c):
    ipv = pick(["8.24.0", "8.26.0", "8.29.0"])
    lines = ["Python %s | packaged by conda-forge | (main, %s %d %d, %s) [GCC 12.3.0]" % (c.pyver, pick(MONTHS), R.randint(1, 28), 2024, TS().hms()),
             "Type 'copyright', 'credits' or 'license' for more information",
             "IPython %s -- An enhanced Interactive Python. Type '?' for help." % ipv, "",
             "In [1]: import getpass, os", "",
             'In [2]: os.environ["OPENAI_API_KEY"] = getpass.getpass("OpenAI API key: ")',
             "OpenAI API key: \u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7", "",
             'In [3]: os.environ["OPENAI_API_KEY"][:3] + "..."', "Out[3]: 'sk-...'", "",
             'In [4]: "HF_TOKEN" in os.environ, len(os.environ.get("HF_TOKEN", ""))',
             "Out[4]: (False, 0)", "",
             "In [5]: %env WANDB_API_KEY", "UsageError: Environment does not have key: WANDB_API_KEY", "",
             "In [6]: "]
    md = ["## Setup", "", "Paste your keys when prompted; nothing is stored in the notebook.", "",
          "```python", "%env OPENAI_API_KEY=<your-openai-key>", "%env HF_TOKEN=hf_...", "```"]
    blocks = [("jq -r '.cells[0].source | join(\"\")' notebooks/%s.ipynb" % pick(NB_TOPICS), md),
              ("ipython", lines)]
    return render(c, frame(), blocks)


@neg("colab_secrets_access_no_values")
def n_colab(c):
    def colab_id():
        return fresh(lambda: rs(B64U, 12))
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {"id": colab_id(), "colab": {"base_uri": "https://localhost:8080/"}, "outputId": uuid4()},
              "outputs": [{"output_type": "error", "ename": "SecretNotFoundError",
                           "evalue": "Secret HF_TOKEN does not exist.", "traceback": []}],
              "source": ["from google.colab import userdata\n", "hf_token = userdata.get('HF_TOKEN')"]},
             {"cell_type": "code", "execution_count": R.randint(2, 9), "metadata": {"id": colab_id()},
              "outputs": [{"name": "stdout", "output_type": "stream", "text": ["Token is valid (permission: fineGrained).\n", "Login successful\n"]}],
              "source": ["from huggingface_hub import login\n", "login(token=userdata.get('HF_TOKEN_RO'))"]}]
    meta = {"accelerator": "GPU", "colab": {"gpuType": pick(["T4", "L4", "A100"]), "provenance": [], "machine_shape": "hm"},
            "kernelspec": {"display_name": "Python 3", "name": "python3"}, "language_info": {"name": "python"}}
    d = {"cells": cells, "metadata": meta}
    return render(c, frame(), [("jq '{cells: [.cells[] | select(.cell_type==\"code\")][0:2], metadata}' %s.ipynb" % pick(["Finetune_Llama3_LoRA", "Whisper_eval", "SFT_tiny_model"]),
                                jdump(d).split("\n"))])


@neg("hf_repo_info_siblings_lfs")
def n_hf_info(c):
    repo = pick(["meta-llama/Llama-3.2-1B-Instruct", "mistralai/Mistral-7B-Instruct-v0.3", "BAAI/bge-m3",
                 "sentence-transformers/all-MiniLM-L6-v2", "Qwen/Qwen2.5-0.5B-Instruct", "%s/%s-lora" % (c.org, c.proj)])
    sha = hexs(40)
    sib = []
    for fn in ["config.json", "generation_config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]:
        lfs = fn.endswith(".safetensors") or fn == "tokenizer.json"
        e = "RepoSibling(rfilename='%s', size=%d, blob_id='%s', lfs=%s)" % (
            fn, R.randint(300, 10 ** 9) if lfs else R.randint(100, 5000), hexs(40),
            "BlobLfsInfo(size=%d, sha256='%s', pointer_size=%d)" % (R.randint(10 ** 6, 10 ** 9), hexs(64), pick([132, 133, 134])) if lfs else "None")
        sib.append(e)
    t = c.ts
    out = ["ModelInfo(id='%s', author='%s', sha='%s', created_at=datetime.datetime(%d, %d, %d, %d, %d, %d, tzinfo=datetime.timezone.utc)," % (
        repo, repo.split("/")[0], sha, t.y, t.mo, t.d, t.h, t.mi, t.s),
           "  private=False, disabled=False, downloads=%d, gated=%s, library_name='transformers', tags=['safetensors', 'text-generation']," % (R.randint(1000, 10 ** 7), pick(["False", "'manual'"])),
           "  siblings=["] + ["    " + s + "," for s in sib] + ["  ])"]
    cmd = "python -c \"from huggingface_hub import model_info; print(model_info('%s', files_metadata=True))\"" % repo
    return render(c, frame(), [(cmd, out)])


@neg("hf_datasets_cache_fingerprints")
def n_ds(c):
    ds, sample_text = pick([(("rajpurkar/squad", "plain_text"), "Architecturally, the school has a Catholic"),
                            (("imdb", "plain_text"), "I rented I AM CURIOUS-YELLOW from my vid"),
                            (("%s/support-tickets" % c.org, "default"), pick(["The checkout page keeps timing out", "Lieferung kam zwei Tage zu spät"])),
                            (("wikimedia/wikipedia", "20231101.ja"), "アンパサンド（&）は、並立助詞「…と…」を意味する記号である"),
                            (("seamew/ChnSentiCorp", "default"), "这家店的服务态度很好，菜也很好吃。")])
    rev = hexs(40)
    n = R.randint(1000, 90000)
    bar = "\u2588" * 10
    out = ["README.md: 100%%|%s| %.2fk/%.2fk [00:00<00:00, %.1fMB/s]" % (bar, 7.81, 7.81, R.uniform(5, 40)),
           "train-00000-of-00001.parquet: 100%%|%s| %.1fM/%.1fM [00:0%d<00:00, %.1fMB/s]" % (bar, 14.5, 14.5, R.randint(1, 9), R.uniform(5, 80)),
           "Generating train split: 100%%|%s| %d/%d [00:00<00:00, %d examples/s]" % (bar, n, n, R.randint(50000, 400000)),
           "", ">>> ds", "DatasetDict({", "    train: Dataset({", "        features: ['id', 'text', 'label'],",
           "        num_rows: %d" % n, "    })", "})", ">>> ds['train'][0]['text'][:40]",
           "'%s'" % sample_text,
           ">>> ds['train']._fingerprint", "'%s'" % hexs(16), ">>> ds['train'].cache_files",
           "[{'filename': '%s/.cache/huggingface/datasets/%s/%s/0.0.0/%s/%s-train.arrow'}]" % (
               c.home, ds[0].replace("/", "___"), ds[1], rev, ds[0].split("/")[-1])]
    return render(c, frame(), [("python -i -c \"from datasets import load_dataset; ds = load_dataset('%s', '%s')\"" % ds, out)])


@neg("safetensors_index_and_sums")
def n_safet(c):
    k = R.randint(2, 4)
    files = ["model-%05d-of-%05d.safetensors" % (i + 1, k) for i in range(k)]
    sums = ["%s  %s" % (hexs(64), f) for f in files]
    wm = {}
    for i in range(R.randint(4, 7)):
        wm["model.layers.%d.self_attn.%s.weight" % (i, pick(["k_proj", "q_proj", "v_proj", "o_proj"]))] = pick(files)
    idx = {"metadata": {"total_size": R.randint(10 ** 9, 3 * 10 ** 10)}, "weight_map": wm}
    d = pick(["checkpoints/merged", "outputs/%s-merged" % c.proj, "models/%s" % c.proj])
    return render(c, frame(), [("cd %s && sha256sum *.safetensors" % d, sums), ("jq . %s/model.safetensors.index.json" % d, jdump(idx).split("\n"))])


@neg("transformers_config_load_log")
def n_tf_log(c):
    repo = pick(["meta-llama/Meta-Llama-3-8B", "meta-llama/Llama-3.1-8B", "NousResearch/Meta-Llama-3-8B-Instruct", "unsloth/llama-3-8b"])
    snap = hexs(40)
    base = "%s/.cache/huggingface/hub/models--%s/snapshots/%s" % (c.home, repo.replace("/", "--"), snap)
    cfg = {"_name_or_path": repo, "architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 128000,
           "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336,
           "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
           "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "tie_word_embeddings": False,
           "torch_dtype": "bfloat16", "transformers_version": pick(["4.44.2", "4.45.1", "4.46.0"]), "use_cache": True,
           "vocab_size": 128256}
    t = c.ts
    pre = "[INFO|configuration_utils.py:%d] %s,%03d >> " % (R.randint(600, 800), t.sp(), R.randint(0, 999))
    out = [pre + "loading configuration file config.json from cache at %s/config.json" % base,
           pre + "Model config LlamaConfig " + json.dumps(cfg, indent=2, sort_keys=True).replace("\n", "\n"),
           "[INFO|modeling_utils.py:3723] %s,%03d >> loading weights file model.safetensors from cache at %s/model.safetensors.index.json" % (t.sp(), R.randint(0, 999), base),
           "Loading checkpoint shards: 100%%|%s| 4/4 [00:%02d<00:00,  %.2fs/it]" % ("\u2588" * 10, R.randint(3, 59), R.uniform(0.5, 9))]
    return render(c, frame(), [("python train.py --model %s 2>&1 | grep -A40 'loading configuration' | head -n 45" % repo, out)])


@neg("tokenizer_ids_and_vocab")
def n_tok(c):
    text, toks = pick([("Refund request for order 8841", ["Ref", "und", "\u0120request", "\u0120for", "\u0120order", "\u0120", "884", "1"]),
                       ("東京の天気は晴れです", ["æĿ±", "äº¬", "ãģ®", "å¤©", "æ°Ĺ", "ãģ¯", "æĻ´", "ãĤĮ", "ãģ§ãģĻ"]),
                       ("Bonjour, où est ma commande ?", ["Bon", "jour", ",", "\u0120o\u00c3\u00b9", "\u0120est", "\u0120ma", "\u0120commande", "\u0120?"]),
                       ("退款多久到账", ["éĢĢ", "æ¬¾", "å¤ļ", "ä¹ħ", "åĪ°", "è´¦"])])
    ids = [128000] + [R.randint(200, 128000) for _ in toks]
    base = R.randint(3000, 90000)
    vocab = sample(["\u0120token", "\u0120secret", "\u0120key", "\u0120password", "izer", "\u0120api", "_key", "\u0120auth", "\u0120Bearer", "\u0120tokens"], 6)
    out = ["In [1]: from transformers import AutoTokenizer", "",
           "In [2]: tok = AutoTokenizer.from_pretrained(\"%s\")" % pick(["meta-llama/Llama-3.2-1B", "meta-llama/Meta-Llama-3-8B-Instruct"]), "",
           "In [3]: tok(%r)" % text, "Out[3]: {'input_ids': %s, 'attention_mask': %s}" % (ids, [1] * len(ids)), "",
           "In [4]: tok.convert_ids_to_tokens(_3['input_ids'])", "Out[4]: %s" % (["<|begin_of_text|>"] + toks), "",
           "In [5]: {t: tok.convert_tokens_to_ids(t) for t in %r}" % vocab,
           "Out[5]: {%s}" % ", ".join("%r: %d" % (t, base + i * R.randint(1, 900)) for i, t in enumerate(vocab)), "",
           "In [6]: tok.pad_token, tok.eos_token_id, tok.model_max_length",
           "Out[6]: (None, 128009, 131072)"]
    return render(c, frame(), [("ipython --no-banner", out)])


@neg("embeddings_response_b64")
def n_emb(c):
    dims = pick([64, 128, 256])
    vec = [R.gauss(0, 0.06) for _ in range(dims)]
    b = base64.b64encode(struct.pack("<%df" % dims, *vec)).decode()
    REG[b] = 1
    ntok = R.randint(3, 9)
    d = {"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": b}],
         "model": "text-embedding-3-small", "usage": {"prompt_tokens": ntok, "total_tokens": ntok}}
    cmd = ("curl -s https://api.openai.com/v1/embeddings -H \"Authorization: Bearer $OPENAI_API_KEY\" -H 'Content-Type: application/json' "
           "-d '{\"input\": \"%s\", \"model\": \"text-embedding-3-small\", \"dimensions\": %d, \"encoding_format\": \"base64\"}' | jq ." % (
               pick(["reset my password", "where is my parcel", "cancel subscription", "invoice copy"]), dims))
    blocks = [(cmd, jdump(d).split("\n"))]
    if chance(0.5):
        blocks.append(("python -c \"import base64, numpy as np, json, sys; v = np.frombuffer(base64.b64decode(json.load(open('emb.json'))['data'][0]['embedding']), dtype=np.float32); print(v.shape, v[:4])\"",
                       ["(%d,) [%s]" % (dims, " ".join("%.8f" % x for x in vec[:4]))]))
    return render(c, frame(), blocks)


@neg("state_dict_keys_shapes")
def n_sd(c):
    lines = []
    for i in range(R.randint(1, 2)):
        for p, shp in [("self_attn.q_proj.weight", "(4096, 4096)"), ("self_attn.k_proj.weight", "(1024, 4096)"),
                       ("self_attn.v_proj.weight", "(1024, 4096)"), ("self_attn.o_proj.weight", "(4096, 4096)"),
                       ("mlp.gate_proj.weight", "(14336, 4096)"), ("input_layernorm.weight", "(4096,)")]:
            lines.append("model.layers.%d.%s %s torch.bfloat16" % (i, p, shp))
    lines = ["model.embed_tokens.weight (128256, 4096) torch.bfloat16"] + lines + ["lm_head.weight (128256, 4096) torch.bfloat16"]
    if chance(0.5):
        lines += ["base_model.model.model.layers.0.self_attn.k_proj.lora_A.default.weight (16, 4096) torch.float32",
                  "base_model.model.model.layers.0.self_attn.k_proj.lora_B.default.weight (1024, 16) torch.float32"]
    lines.append("md5 %s" % hexs(32))
    ck = pick(["ckpt/step-4000/pytorch_model.bin", "adapter_model.bin", "outputs/last.pt"])
    cmd = "python - <<'EOF'\nimport torch, hashlib\nsd = torch.load('%s', map_location='cpu')\nfor k, v in list(sd.items())[:20]: print(k, tuple(v.shape), v.dtype)\nprint('md5', hashlib.md5(open('%s','rb').read()).hexdigest())\nEOF" % (ck, ck)
    return render(c, Frame(pick(PLAIN_FRAMES + ["claude"])), [(cmd, lines)])


@neg("llm_generation_config_tokens")
def n_gencfg(c):
    y = ["model:", "  name: %s" % pick(["gpt-4o-mini", "claude-3-5-sonnet-latest", "meta-llama/Llama-3.1-8B-Instruct"]),
         "  api_key_env: %s" % pick(["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TOGETHER_API_KEY"]),
         "  max_tokens: %d" % pick([256, 1024, 4096]), "  max_new_tokens: %d" % pick([128, 512]),
         "  temperature: 0.2", "  stop_tokens: [\"</answer>\", \"<|eot_id|>\"]", "  pad_token_id: 128001",
         "retrieval:", "  key_column: %s" % pick(["doc_id", "ticket_id", "sku"]), "  top_k: 8",
         "  token_budget: %d" % pick([6000, 12000, 200000]), "  secret_scope: %s" % pick(["ml-prod", "rag-staging"]),
         "  num_key_value_heads: 8", "warehouse:", "  account: %s" % sf_account(c), "  user: SVC_RAG",
         "  private_key_path: ~/.snowflake/rsa_key.p8", "  password_env: SNOWFLAKE_PASSWORD",
         "tracing:", "  langsmith_project: %s" % c.proj, "  api_key: ${LANGCHAIN_API_KEY}"]
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool("%s/configs/generation.yaml" % c.cwd, y)
    return render(c, fr, [("cat configs/generation.yaml", y)])


@neg("batch_api_output_jsonl")
def n_batch(c):
    t = c.ts
    lines = []
    for i in range(R.randint(2, 3)):
        body = {"id": "chatcmpl-" + alnum(29), "object": "chat.completion", "created": t.epoch() + i,
                "model": "gpt-4o-mini-2024-07-18",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": pick(["billing", "shipping", "refund", "account"]), "refusal": None},
                             "logprobs": None, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": R.randint(50, 300), "completion_tokens": R.randint(1, 5), "total_tokens": R.randint(60, 310)},
                "system_fingerprint": "fp_" + hexs(10)}
        lines.append(json.dumps({"id": "batch_req_" + alnum(24), "custom_id": "ticket-%d" % R.randint(10000, 99999),
                                 "response": {"status_code": 200, "request_id": hexs(32), "body": body}, "error": None}, ensure_ascii=False))
    meta = jdump({"id": "batch_" + alnum(24), "object": "batch", "endpoint": "/v1/chat/completions", "status": "completed",
                  "input_file_id": "file-" + alnum(22), "output_file_id": "file-" + alnum(22), "error_file_id": None,
                  "request_counts": {"total": R.randint(100, 5000), "completed": R.randint(100, 5000), "failed": 0}}).split("\n")
    return render(c, frame(), [("jq '{id, object, endpoint, status, input_file_id, output_file_id, error_file_id, request_counts}' batch.json", meta),
                               ("head -n %d batch_output.jsonl" % len(lines), lines)])


@neg("wandb_api_runs_table")
def n_wandb(c):
    ent = c.org
    rows = []
    adj = ["lively", "misty", "driven", "solar", "fiery", "quiet", "dandy", "vivid"]
    noun = ["sound", "river", "glade", "sky", "dream", "field", "paper", "star"]
    for i in range(R.randint(3, 6)):
        rows.append([uid(LOWDIG, 8), "%s-%s-%d" % (pick(adj), pick(noun), R.randint(1, 300)), pick(["finished", "crashed", "running"]),
                     uid(LOWDIG, 8), "%.4f" % R.uniform(0.1, 2.5)])
    tab = table(["run_id", "name", "state", "sweep", "val/loss"], rows, "md")
    art = ["%s/%s/model-%s:v%d  digest=%s  size=%d" % (ent, c.proj, rows[0][0], R.randint(0, 9), hexs(32), R.randint(10 ** 6, 10 ** 9))]
    cmd = "python scripts/runs_report.py --entity %s --project %s" % (ent, c.proj)
    return render(c, frame(), [(cmd, tab + [""] + art)])


@neg("mlflow_search_runs_table")
def n_mlflow_runs(c):
    exp = R.randint(1, 40)
    rows = []
    for _ in range(R.randint(3, 5)):
        rid = hexs(32)
        rows.append([TS().sp(), pick(["blushing-bass", "gentle-ray", "rogue-moth", "bold-crab", "sassy-owl"]) + "-%d" % R.randint(100, 999), rid])
    tab = table(["Date", "Name", "ID"], rows, "dashed")
    df = ["                             run_id experiment_id    status                                       artifact_uri"]
    for r in rows[:3]:
        df.append("%d  %s             %d  FINISHED  s3://%s-mlflow/%d/%s/artifacts" % (rows.index(r), r[2], exp, c.org, exp, r[2]))
    return render(c, frame(), [("mlflow runs list --experiment-id %d" % exp, tab),
                               ("python -c \"import mlflow; print(mlflow.search_runs(experiment_ids=['%d'])[['run_id','experiment_id','status','artifact_uri']].head(3))\"" % exp, df)])


@neg("mlflow_registered_model_versions")
def n_mlflow_mv(c):
    name = pick(["churn-classifier", "ranker", "demand-lgbm", c.proj])
    out = []
    for v in range(R.randint(2, 4), 0, -1):
        t = TS()
        rid = hexs(32)
        src = pick(["models:/m-%s" % hexs(32), "mlflow-artifacts:/%d/%s/artifacts/model" % (R.randint(1, 30), rid),
                    "dbfs:/databricks/mlflow-tracking/%d/%s/artifacts/model" % (R.randint(10 ** 14, 10 ** 15), rid)])
        out.append("<ModelVersion: aliases=[%s], creation_timestamp=%d, current_stage='None', description='', last_updated_timestamp=%d, name='%s', run_id='%s', run_link='', source='%s', status='READY', status_message=None, tags={}, user_id='%s', version='%d'>" % (
            "'champion'" if v == 1 else "", t.ms(), t.ms() + R.randint(1000, 90000), name, rid, src, c.email, v))
    cmd = "python -c \"from mlflow import MlflowClient; [print(v) for v in MlflowClient().search_model_versions(\\\"name='%s'\\\")]\"" % name
    return render(c, frame(), [(cmd, out)])


@neg("comet_ml_experiment_summary")
def n_comet(c):
    key = hexs(32)
    sep = "COMET INFO: " + "-" * 79
    out = [sep, "COMET INFO: Comet.ml Experiment Summary", sep, "COMET INFO:   Data:",
           "COMET INFO:     display_summary_level : 1",
           "COMET INFO:     name                  : %s-%s" % (pick(["resolved", "lucky", "sweet"]), pick(["lemon", "bay", "otter"])) + "_%d" % R.randint(1000, 9999),
           "COMET INFO:     url                   : https://www.comet.com/%s/%s/%s" % (c.org, c.proj, key),
           "COMET INFO:   Metrics [count] (min, max):",
           "COMET INFO:     loss [%d]           : (%.4f, %.4f)" % (R.randint(50, 900), R.uniform(0.05, 0.4), R.uniform(1, 3)),
           "COMET INFO:     val_auc             : %.4f" % R.uniform(0.7, 0.95),
           "COMET INFO:   Parameters:", "COMET INFO:     max_tokens      : %d" % pick([256, 512]),
           "COMET INFO:     secret_sauce    : none", "COMET INFO:     tokenizer       : %s" % pick(["bert-base-uncased", "cl100k_base"]),
           "COMET INFO:   Uploads:", "COMET INFO:     environment details : 1", "COMET INFO:     git metadata        : 1",
           "COMET INFO:     git-patch (uncompressed) : 1 (%.2f KB)" % R.uniform(1, 90), sep,
           "COMET INFO: Uploading metrics, params, and assets to Comet before program termination (may take several seconds)",
           "COMET INFO: The Python SDK has 3600 seconds to finish before aborting...",
           "COMET INFO: Please wait for metadata to finish uploading (timeout is 3600 seconds)"]
    return render(c, frame(), [("python train.py --config configs/%s.yaml 2>&1 | tail -n %d" % (c.proj, len(out)), out)])


@neg("torch_hub_checkpoint_downloads")
def n_torchhub(c):
    bar = "\u2588" * 10
    items = sample([("resnet50", "11ad3fa6", "97.8M"), ("vit_b_16", "c867db91", "330M"), ("efficientnet_b0", "7f5810bc", "20.5M"),
                    ("convnext_tiny", "983f1562", "109M"), ("mobilenet_v3_large", "5c1a4163", "21.1M")], R.randint(2, 3))
    out = []
    for n, h, sz in items:
        out.append('Downloading: "https://download.pytorch.org/models/%s-%s.pth" to %s/.cache/torch/hub/checkpoints/%s-%s.pth' % (n, h, c.home, n, h))
        out.append("100%%|%s| %s/%s [00:0%d<00:00, %dMB/s]" % (bar, sz, sz, R.randint(0, 9), R.randint(40, 300)))
    sums = ["%s  %s-%s.pth" % (hexs(64), n, h) for n, h, _ in items]
    return render(c, frame(), [("python scripts/warm_cache.py", out), ("sha256sum ~/.cache/torch/hub/checkpoints/*.pth", sums)])


@neg("ml_cli_login_status_masked")
def n_logins(c):
    ent = c.org
    blocks = [("wandb login", ["wandb: Currently logged in as: %s (%s). Use `wandb login --relogin` to force relogin" % (c.user, ent)]),
              ("huggingface-cli auth list", ["  name                 token", "-" * 40,
                                             "* %-20s hf_****%s" % (pick(["research-write", "personal"]), rs(LETTERS, 4)),
                                             "  %-20s hf_****%s" % ("ci-read", rs(LETTERS, 4))]),
              ("kaggle config view", ["Configuration values from %s/.kaggle" % c.home, "- username: %s" % c.user, "- path: None",
                                      "- proxy: None", "- competition: None"]),
              ("databricks auth profiles", table(["Name", "Host", "Valid"], [["DEFAULT", "https://dbc-%s-%s.cloud.databricks.com" % (hexs(8), hexs(4)), "YES"],
                                                                             ["prod", "https://adb-%s.%d.azuredatabricks.net" % (digits(16), R.randint(1, 19)), "NO"]], "plain"))]
    return render(c, frame(), sample(blocks, R.randint(3, 4)))


@neg("sagemaker_training_job_arns")
def n_sm_job(c):
    acct, reg = digits(12), pick(REGIONS)
    t = c.ts
    name = "%s-%s" % (c.proj, t.compact().replace("_", "-"))
    d = {"TrainingJobName": name, "TrainingJobArn": "arn:aws:sagemaker:%s:%s:training-job/%s" % (reg, acct, name),
         "ModelArtifacts": {"S3ModelArtifacts": "s3://sagemaker-%s-%s/%s/output/model.tar.gz" % (reg, acct, name)},
         "TrainingJobStatus": "Completed", "SecondaryStatus": "Completed",
         "HyperParameters": {"epochs": "3", "max_tokens": "2048", "sagemaker_program": "train.py",
                             "sagemaker_submit_directory": "\"s3://sagemaker-%s-%s/%s/source/sourcedir.tar.gz\"" % (reg, acct, name),
                             "sagemaker_region": "\"%s\"" % reg},
         "AlgorithmSpecification": {"TrainingImage": "%s.dkr.ecr.%s.amazonaws.com/%s-train@sha256:%s" % (acct, reg, c.proj, hexs(64)),
                                    "TrainingInputMode": "File", "EnableSageMakerMetricsTimeSeries": True},
         "Environment": {"HF_HUB_ENABLE_HF_TRANSFER": "1", "TOKENIZERS_PARALLELISM": "false"},
         "TrainingStartTime": t.iso_us("+00:00"), "TrainingEndTime": t.plus(R.randint(600, 20000)).iso_us("+00:00"),
         "BillableTimeInSeconds": R.randint(600, 20000)}
    return render(c, frame(), [("aws sagemaker describe-training-job --training-job-name %s" % name, json.dumps(d, indent=4).split("\n"))])


@neg("gcloud_ai_endpoints_list")
def n_vertex(c):
    rows = [[digits(19), pick(["%s-endpoint" % c.proj, "gemma-2b-it", "reranker-prod", "bge-m3-online"])] for _ in range(R.randint(2, 4))]
    tab = table(["ENDPOINT_ID", "DISPLAY_NAME"], rows, "plain")
    mid = digits(19)
    desc = ["artifactUri: gs://%s-models/%s/model" % (c.org, c.proj), "createTime: '%s'" % c.ts.iso_us(),
            "deployedModels:", "- endpoint: projects/%s/locations/us-central1/endpoints/%s" % (digits(12), rows[0][0]),
            "  deployedModelId: '%s'" % digits(19), "displayName: %s" % c.proj,
            "etag: %s" % fresh(lambda: "AMEw9yN" + rs(B64U, 22) + "="),
            "name: projects/%s/locations/us-central1/models/%s" % (digits(12), mid), "versionId: '%d'" % R.randint(1, 9),
            "versionAliases:", "- default"]
    return render(c, frame(), [("gcloud ai endpoints list --region=us-central1", ["Using endpoint [https://us-central1-aiplatform.googleapis.com/]"] + tab),
                               ("gcloud ai models describe %s --region=us-central1" % mid, ["Using endpoint [https://us-central1-aiplatform.googleapis.com/]"] + desc)])


@neg("ray_list_nodes_ids")
def n_ray(c):
    rows = []
    for i in range(R.randint(2, 4)):
        rows.append([str(i), hexs(56), "10.0.%d.%d" % (R.randint(0, 255), R.randint(2, 254)), "True" if i == 0 else "False", "ALIVE",
                     "ip-10-0-%d-%d" % (R.randint(0, 255), R.randint(2, 254))])
    tab = table(["", "NODE_ID", "NODE_IP", "IS_HEAD_NODE", "STATE", "NODE_NAME"], rows, "plain")
    sub = uid(ALNUM, 16, "raysubmit_")
    out = ["======== List: %s ========" % c.ts.sp(), "Stats:", "------------------------------", "Total: %d" % len(rows), "",
           "Table:", "------------------------------"] + tab
    job = ["Job submission server address: http://127.0.0.1:8265", "",
           "-------------------------------------------------------", "Job '%s' submitted successfully" % sub,
           "-------------------------------------------------------", "", "Next steps", "  Query the logs of the job:",
           "    ray job logs %s" % sub, "  Query the status of the job:", "    ray job status %s" % sub]
    return render(c, frame(), [("ray list nodes", out), ("ray job submit --no-wait --working-dir . -- python train.py", job)])


@neg("modal_app_list_table")
def n_modal(c):
    rows = []
    for _ in range(R.randint(2, 4)):
        rows.append([uid(ALNUM, 22, "ap-"), pick(["%s-train" % c.proj, "embed-batch", "vllm-serve", "nightly-eval"]),
                     pick(["deployed", "stopped", "ephemeral"]), str(R.randint(0, 8)), TS().sp() + "+00:00"])
    tab = table(["App ID", "Description", "State", "Tasks", "Created at"], rows, "rich")
    run = ["\u2713 Initialized. View run at https://modal.com/apps/%s/main/%s" % (c.org, rows[0][0]), "\u2713 Created objects.",
           "\u251c\u2500\u2500 \U0001f528 Created mount %s/%s.py" % (c.cwd, pick(["train", "serve", "app"])),
           "\u251c\u2500\u2500 \U0001f528 Created function train.", "\u2514\u2500\u2500 \U0001f528 Created function evaluate.",
           "\u2713 App completed. View run at https://modal.com/apps/%s/main/%s" % (c.org, rows[0][0])]
    return render(c, frame(), [("modal app list", tab), ("modal run train.py", run)])


@neg("pinecone_index_stats_repr")
def n_pinecone(c):
    idx = pick(["docs", "kb-prod", "tickets-v2", "catalog"])
    host = "%s-%s.svc.%s.pinecone.io" % (idx, hexs(7), pick(["aped-4627-b74a", "us-east-1-aws", "gcp-starter"]))
    out = ["{'deletion_protection': 'disabled',", " 'dimension': %d," % pick([768, 1024, 1536]), " 'host': '%s'," % host,
           " 'metric': 'cosine',", " 'name': '%s'," % idx, " 'spec': {'serverless': {'cloud': 'aws', 'region': 'us-east-1'}},",
           " 'status': {'ready': True, 'state': 'Ready'}}"]
    n = R.randint(1000, 900000)
    stats = ["{'dimension': 1536,", " 'index_fullness': 0.0,", " 'namespaces': {'': {'vector_count': %d}}," % n, " 'total_vector_count': %d}" % n]
    q = ["{'matches': ["] + ["    {'id': 'doc-%s#chunk-%d', 'score': %.6f, 'values': []}," % (hexs(12), R.randint(0, 40), R.uniform(0.6, 0.9)) for _ in range(3)] + \
        [" ], 'namespace': '', 'usage': {'read_units': 6}}"]
    return render(c, frame(), [("python -i rag/pc.py", [">>> pc.describe_index('%s')" % idx] + out + [">>> index.describe_index_stats()"] + stats +
                                [">>> index.query(vector=emb, top_k=3)"] + q)])


@neg("qdrant_scroll_points_json")
def n_qdrant(c):
    pts = []
    for _ in range(R.randint(2, 3)):
        pts.append({"id": uuid4(), "payload": {"source": pick(["faq.md", "tickets.parquet", "manual_ja.pdf"]),
                                                 "text": pick(["如何重置密码？", "パスワードをリセットするには", "How do I rotate my API key?", "Where is my invoice?"]),
                                                 "chunk": R.randint(0, 40)},
                    "vector": [round(R.gauss(0, 0.05), 6) for _ in range(6)]})
    d = {"result": {"points": pts, "next_page_offset": uuid4()}, "status": "ok", "time": round(R.uniform(0.0005, 0.02), 6)}
    cmd = "curl -s -X POST 'http://localhost:6333/collections/%s/points/scroll' -H \"api-key: $QDRANT_API_KEY\" -H 'Content-Type: application/json' -d '{\"limit\": %d, \"with_payload\": true, \"with_vector\": true}' | jq ." % (
        pick(["kb", "faq", "support"]), len(pts))
    return render(c, frame(), [(cmd, jdump(d).split("\n"))])

@neg("dbt_debug_connection_ok")
def n_dbt_debug(c):
    t = c.ts
    pre = lambda k=0: "%s  " % t.plus(k).hms()
    sf = chance(0.6)
    lines = ["Running with dbt=1.8.7", "dbt version: 1.8.7", "python version: %s" % c.pyver,
             "python path: %s/.venv/bin/python3" % c.cwd, "os info: Linux-6.5.0-1018-aws-x86_64-with-glibc2.35",
             "Using profiles dir at %s/.dbt" % c.home, "Using profiles.yml file at %s/.dbt/profiles.yml" % c.home,
             "Using dbt_project.yml file at %s/dbt_project.yml" % c.cwd,
             "adapter type: %s" % ("snowflake" if sf else "postgres"), "adapter version: 1.8.%d" % R.randint(0, 4),
             "Configuration:", "  profiles.yml file [OK found and valid]", "  dbt_project.yml file [OK found and valid]",
             "Required dependencies:", " - git [OK found]", "", "Connection:"]
    if sf:
        lines += ["  account: %s" % sf_account(c), "  user: DBT_%s" % c.user.upper(), "  database: ANALYTICS",
                  "  warehouse: TRANSFORMING", "  role: TRANSFORMER", "  schema: DBT_%s" % c.user.upper(),
                  "  authenticator: None", "  oauth_client_id: None", "  query_tag: None",
                  "  client_session_keep_alive: False", "  host: None", "  port: None", "  proxy_host: None",
                  "  proxy_port: None", "  protocol: None", "  connect_retries: 1", "  connect_timeout: None",
                  "  retry_on_database_errors: False", "  retry_all: False", "  insecure_mode: False",
                  "  reuse_connections: True"]
    else:
        lines += ["  host: %s" % pick(["localhost", "pg.%s" % c.domain]), "  port: 5432", "  user: %s" % c.user,
                  "  database: analytics", "  schema: dbt_%s" % c.user, "  connect_timeout: 10", "  role: None",
                  "  search_path: None", "  keepalives_idle: 0", "  sslmode: None", "  sslcert: None", "  sslkey: None",
                  "  sslrootcert: None", "  application_name: dbt", "  retries: 1"]
    lines += ["Registered adapter: %s=1.8.%d" % ("snowflake" if sf else "postgres", R.randint(0, 4)),
              "  Connection test: [OK connection ok]", "", "All checks passed!"]
    out = [(pre(i // 6) + l) if l else l for i, l in enumerate(lines)]
    return render(c, frame(), [("dbt debug", out)])


@neg("dbt_run_results_query_ids")
def n_dbt_rr(c):
    res = []
    sfk = chance(0.6)
    for m in sample(["stg_orders", "stg_customers", "fct_revenue", "dim_products", "int_sessions"], R.randint(2, 4)):
        if sfk:
            ar = {"_message": "SUCCESS %d" % R.randint(1, 90000), "code": "SUCCESS", "rows_affected": R.randint(1, 90000),
                  "query_id": "01b%s-%s-%s-0000-%s" % (hexs(5), digits(4), hexs(4), hexs(12))}
        else:
            ar = {"_message": "CREATE TABLE (%d.0 rows, %.1f MiB processed)" % (R.randint(10, 10 ** 6), R.uniform(1, 900)),
                  "code": "CREATE TABLE", "rows_affected": R.randint(10, 10 ** 6), "bytes_processed": R.randint(10 ** 5, 10 ** 9),
                  "bytes_billed": R.randint(10 ** 7, 10 ** 9), "location": "US", "project_id": c.proj, "job_id": uuid4(),
                  "slot_ms": R.randint(100, 900000)}
        res.append({"unique_id": "model.%s.%s" % (c.proj.replace("-", "_"), m), "status": "success",
                    "execution_time": round(R.uniform(0.5, 90), 3), "adapter_response": ar})
    d = {"invocation_id": uuid4(), "generated_at": c.ts.iso_us(), "results": res}
    return render(c, frame(), [("jq '{invocation_id: .metadata.invocation_id, generated_at: .metadata.generated_at, results: [.results[] | {unique_id, status, execution_time, adapter_response}]}' target/run_results.json",
                                jdump(d).split("\n"))])


@neg("snow_sql_query_history_table")
def n_snow_qh(c):
    rows = []
    for _ in range(R.randint(3, 5)):
        rows.append(["01b%s-%s-%s-0000-%s" % (hexs(5), digits(4), hexs(4), hexs(12)),
                     pick(["select * from marts.fct_orders limit 100", "copy into raw.events from @s3_stage", "show grants to role ANALYST",
                           "alter warehouse DEV_WH suspend", "select count(*) from raw.stripe_charges"]),
                     pick(["DEV_WH", "LOAD_WH", "TRANSFORMING"]), pick(["SUCCESS", "SUCCESS", "FAILED_WITH_ERROR"]), str(R.randint(40, 90000))])
    tab = table(["QUERY_ID", "QUERY_TEXT", "WAREHOUSE_NAME", "EXECUTION_STATUS", "TOTAL_ELAPSED_TIME"], rows, "ascii")
    cmd = "snow sql -q \"select query_id, query_text, warehouse_name, execution_status, total_elapsed_time from table(information_schema.query_history()) order by start_time desc limit %d\"" % len(rows)
    return render(c, frame(), [(cmd, tab)])


@neg("airflow_rest_api_connection_get")
def n_af_api(c):
    cid = pick(["warehouse", "snowflake_loader", "aws_raw", "vendor_api"])
    d = {"conn_id": cid, "conn_type": pick(["snowflake", "postgres", "http"]), "description": "managed by terraform",
         "extra": json.dumps({"account": sf_account(c), "warehouse": "LOAD_WH", "role": "LOADER"}),
         "host": "", "login": "SVC_AIRFLOW", "port": None, "schema": "RAW"}
    cmd = "curl -s -u \"$AIRFLOW_API_USER:$AIRFLOW_API_PASSWORD\" http://localhost:8080/api/v1/connections/%s | jq ." % cid
    blocks = [(cmd, jdump(d).split("\n"))]
    if chance(0.5):
        blocks.append(("curl -s -u \"$AIRFLOW_API_USER:$AIRFLOW_API_PASSWORD\" 'http://localhost:8080/api/v1/variables?limit=3' | jq '.variables[] | {key, value}'",
                       "\n".join(jdump({"key": k, "value": v}) for k, v in [("s3_bucket", "%s-raw" % c.org), ("openai_api_key", "***"), ("max_active_tokens", "4")]).split("\n")))
    return render(c, frame(), blocks)


@neg("airflow_dag_jinja_refs")
def n_af_dag(c):
    lines = ["from airflow.decorators import dag, task", "from airflow.hooks.base import BaseHook",
             "from airflow.models import Variable", "from airflow.operators.bash import BashOperator", "",
             "@dag(schedule=\"@daily\", start_date=pendulum.datetime(%d, 1, 1, tz=\"UTC\"), catchup=False)" % c.ts.y,
             "def %s():" % c.proj.replace("-", "_"), "    export = BashOperator(", "        task_id=\"pg_dump_orders\",",
             "        bash_command=\"pg_dump -h {{ conn.warehouse_pg.host }} -U {{ conn.warehouse_pg.login }} -t orders > /tmp/orders.sql\",",
             "        env={\"PGPASSWORD\": \"{{ conn.warehouse_pg.password }}\"},", "    )", "",
             "    @task", "    def summarize():", "        key = Variable.get(\"openai_api_key\")",
             "        slack = BaseHook.get_connection(\"slack_api_default\").password",
             "        prompt = \"{{ var.value.summary_prompt }}\"", "        return call_llm(prompt, api_key=key, max_tokens=%d)" % pick([256, 512]),
             "", "    export >> summarize()"]
    f = "dags/%s.py" % c.proj.replace("-", "_")
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool("%s/%s" % (c.cwd, f), lines)
    return render(c, fr, [("cat %s" % f, lines)])


@neg("databricks_cluster_spark_conf_refs")
def n_dbx_cluster(c):
    acct = c.org.replace("-", "")[:16] + "lake"
    cid = "%s-%s-%s" % (digits(4), digits(6), uid(LOWDIG, 8))
    d = {"cluster_id": cid, "cluster_name": "%s-jobs" % c.proj, "spark_version": "15.4.x-scala2.12",
         "spark_conf": {"fs.azure.account.key.%s.dfs.core.windows.net" % acct: "{{secrets/adls/account-key}}",
                        "spark.hadoop.fs.s3a.secret.key": "{{secrets/aws/s3-secret}}",
                        "spark.databricks.delta.preview.enabled": "true"},
         "spark_env_vars": {"OPENAI_API_KEY": "{{secrets/llm/openai}}", "PYSPARK_PYTHON": "/databricks/python3/bin/python3"},
         "driver_instance_pool_id": "%s-%s-pool-%s" % (digits(4), digits(6), uid(LOWDIG, 8)),
         "spark_context_id": int(digits(19)), "creator_user_name": c.email, "state": "RUNNING", "cluster_source": "UI"}
    lst = table(["Key", "Last Updated Timestamp"], [["account-key", str(TS().ms())], ["sas-token", str(TS().ms())]], "plain")
    return render(c, frame(), [("databricks clusters get %s" % cid, jdump(d).split("\n")), ("databricks secrets list-secrets adls", lst)])


@neg("gha_train_workflow_secret_refs")
def n_gha(c):
    y = ["name: train", "on:", "  workflow_dispatch:", "  schedule:", "    - cron: '0 3 * * 1'", "jobs:", "  train:",
         "    runs-on: [self-hosted, gpu]", "    env:", "      HF_TOKEN: ${{ secrets.HF_TOKEN }}",
         "      WANDB_API_KEY: ${{ secrets.WANDB_API_KEY }}", "      MLFLOW_TRACKING_URI: ${{ vars.MLFLOW_TRACKING_URI }}",
         "      MAX_TOKENS: 2048", "    steps:",
         "      - uses: actions/checkout@%s # v4.2.2" % hexs(40),
         "      - uses: actions/setup-python@%s # v5.3.0" % hexs(40),
         "        with:", "          python-version: '3.11'", "          cache: pip",
         "      - uses: aws-actions/configure-aws-credentials@%s # v4.0.2" % hexs(40), "        with:",
         "          role-to-assume: arn:aws:iam::%s:role/gha-train" % digits(12), "          aws-region: %s" % pick(REGIONS),
         "      - run: python train.py --push-to-hub --hub-token \"$HF_TOKEN\""]
    f = ".github/workflows/train.yml"
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool("%s/%s" % (c.cwd, f), y)
    return render(c, fr, [("cat %s" % f, y)])


@neg("spark_submit_verbose_redacted")
def n_spark_v(c):
    app = pick(["etl_orders.py", "features_daily.py", "compact_delta.py"])
    out = ["Using properties file: /opt/spark/conf/spark-defaults.conf",
           "Adding default property: spark.hadoop.fs.s3a.access.key=*********(redacted)",
           "Adding default property: spark.hadoop.fs.s3a.secret.key=*********(redacted)",
           "Adding default property: spark.eventLog.dir=s3a://%s-spark/events/" % c.org,
           "Adding default property: spark.redaction.regex=(?i)secret|password|token|access[.]key",
           "Parsed arguments:", "  master                  yarn", "  deployMode              cluster",
           "  executorMemory          16g", "  numExecutors            %d" % R.randint(2, 40),
           "  primaryResource         file:%s/jobs/%s" % (c.cwd, app), "  name                    %s" % app,
           "", "Spark properties used, including those specified through",
           " --conf and those from the properties file /opt/spark/conf/spark-defaults.conf:",
           "  (spark.hadoop.fs.s3a.access.key,*********(redacted))", "  (spark.hadoop.fs.s3a.secret.key,*********(redacted))",
           "  (spark.jdbc.password,*********(redacted))", "  (spark.sql.shuffle.partitions,%d)" % pick([200, 400, 800]),
           "  (spark.app.name,%s)" % app, "", ""]
    return render(c, frame(), [("spark-submit --verbose --conf spark.jdbc.password=\"$JDBC_PASSWORD\" jobs/%s 2>&1 | head -n %d" % (app, len(out)), out)])


@neg("spark_rest_applications_json")
def n_spark_rest(c):
    t = c.ts
    aid = pick(["app-%s%02d%02d%02d-%04d" % (t.date().replace("-", ""), t.h, t.mi, t.s, R.randint(0, 30)),
                "application_%d_%04d" % (t.ms(), R.randint(1, 900))])
    d = [{"id": aid, "name": pick(["etl_orders", "features_daily"]),
          "attempts": [{"startTime": t.iso_ms().replace("Z", "GMT"), "endTime": "1969-12-31T23:59:59.999GMT",
                        "lastUpdated": t.iso_ms().replace("Z", "GMT"), "duration": R.randint(1000, 900000), "sparkUser": c.user,
                        "completed": False, "appSparkVersion": "3.5.1"}]}]
    ld = pick(["/tmp", "/mnt/spark"])
    ex = ["%s/blockmgr-%s" % (ld, uuid4()), "%s/spark-%s" % (ld, uuid4())]
    return render(c, frame(), [("curl -s localhost:4040/api/v1/applications | jq .", jdump(d).split("\n")),
                               ("ls -d %s/blockmgr-* %s/spark-* 2>/dev/null" % (ld, ld), ex)])


@neg("schema_registry_subject_versions")
def n_sr(c):
    subj = "%s.%s-value" % (c.proj.replace("-", "_"), pick(["orders", "customers", "events"]))
    schema = json.dumps({"type": "record", "name": "Order", "namespace": "com.%s" % c.org.replace("-", ""),
                         "fields": [{"name": "id", "type": "string"}, {"name": "amount_cents", "type": "long"},
                                    {"name": "api_key_id", "type": ["null", "string"], "default": None}]}, separators=(",", ":"))
    d = {"subject": subj, "version": R.randint(1, 12), "id": R.randint(100000, 100999), "schema": schema}
    cmd = "curl -s -u \"$SR_API_KEY:$SR_API_SECRET\" https://psrc-%s.us-east-2.aws.confluent.cloud/subjects/%s/versions/latest | jq ." % (uid(LOWDIG, 5), subj)
    fp = ["%s  %s" % (hexs(32), "schemas/%s.avsc" % subj)]
    return render(c, frame(), [(cmd, jdump(d).split("\n")), ("md5sum schemas/%s.avsc" % subj, fp)])


@neg("debezium_source_offsets_gtid")
def n_dbz_off(c):
    name = pick(["inventory-connector", "orders-cdc", "crm-mysql-cdc"])
    if chance(0.5):
        off = {"offsets": [{"partition": {"server": c.proj.replace("-", "_")},
                            "offset": {"gtids": "%s:1-%d" % (uuid4(), R.randint(100, 90000)), "file": "mysql-bin.%06d" % R.randint(1, 90),
                                       "pos": R.randint(154, 900000), "row": 1, "server_id": R.randint(1, 9999), "ts_sec": c.ts.epoch()}}]}
    else:
        off = {"offsets": [{"partition": {"server": c.proj.replace("-", "_")},
                            "offset": {"lsn": R.randint(10 ** 7, 10 ** 10), "lsn_proc": R.randint(10 ** 7, 10 ** 10),
                                       "lsn_commit": R.randint(10 ** 7, 10 ** 10), "txId": R.randint(100, 90000),
                                       "ts_usec": c.ts.epoch() * 10 ** 6 + R.randint(0, 999999)}}]}
    st = {"name": name, "connector": {"state": "RUNNING", "worker_id": "10.0.%d.%d:8083" % (R.randint(0, 255), R.randint(2, 254))},
          "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "10.0.%d.%d:8083" % (R.randint(0, 255), R.randint(2, 254))}], "type": "source"}
    return render(c, frame(), [("curl -s localhost:8083/connectors/%s/status | jq -c ." % name, [jcompact(st)]),
                               ("curl -s localhost:8083/connectors/%s/offsets | jq ." % name, jdump(off).split("\n"))])


@neg("fivetran_connector_details_masked")
def n_fivetran(c):
    w1 = ["decent", "projected", "unwound", "hence", "surgical", "wistful", "brutal", "bluish"]
    w2 = ["tactful", "sickle", "yeah", "cement", "cushion", "panic", "spark", "jumper"]
    cid = "%s_%s" % (pick(w1), pick(w2))
    d = {"code": "Success", "data": {"id": cid, "group_id": "%s_%s" % (pick(w1), pick(w2)), "service": "postgres_rds",
                                     "schema": "pg_app", "paused": False, "sync_frequency": 360,
                                     "status": {"setup_state": "connected", "sync_state": "scheduled", "update_state": "on_schedule"},
                                     "config": {"host": "pg.%s" % c.domain, "port": 5432, "database": "app", "user": "fivetran",
                                                "password": "******", "update_method": "WAL", "replication_slot": "fivetran_slot",
                                                "publication_name": "fivetran_pub", "tunnel_host": None}}}
    cmd = "curl -s -u \"$FIVETRAN_API_KEY:$FIVETRAN_API_SECRET\" https://api.fivetran.com/v1/connectors/%s | jq ." % cid
    return render(c, frame(), [(cmd, jdump(d).split("\n"))])


@neg("dagster_materialize_event_log")
def n_dagster(c):
    t = c.ts
    rid = uuid4()
    pid = R.randint(1000, 90000)
    lines = []
    job = "__ASSET_JOB"
    evs = [("RUN_START", 'Started execution of run for "%s".' % job),
           ("ENGINE_EVENT", "Executing steps in process (pid: %d)" % pid),
           ("STEP_START", 'Started execution of step "orders_daily".'),
           ("ASSET_MATERIALIZATION", 'Materialized value orders_daily.'),
           ("STEP_SUCCESS", 'Finished execution of step "orders_daily" in %.2fs.' % R.uniform(0.5, 90)),
           ("RUN_SUCCESS", 'Finished execution of run for "%s".' % job)]
    for i, (ev, msg) in enumerate(evs):
        lines.append("%s +0000 - dagster - DEBUG - %s - %s - %d - %s%s - %s" % (
            t.plus(i).sp(), job, rid, pid, "orders_daily - " if "STEP" in ev or "ASSET" in ev else "", ev, msg))
    meta = jdump({"dagster/data_version": hexs(64), "dagster/code_version": hexs(40)[:12], "dagster/row_count": R.randint(100, 10 ** 6),
                  "dagster/input_data_version/raw_orders": hexs(64)}).split("\n")
    return render(c, frame(), [("dagster asset materialize --select orders_daily -m %s" % c.proj.replace("-", "_"), lines),
                               ("dagster asset list --select orders_daily --json 2>/dev/null | jq '.[0].latest_materialization.tags'", meta)])


@neg("prefect_flow_runs_ls_table")
def n_prefect(c):
    rows = []
    for _ in range(R.randint(3, 5)):
        rows.append([uuid4(), pick(["etl-orders", "score-batch", "sync-crm"]),
                     "%s-%s" % (pick(["crimson", "amber", "lilac", "dashing", "sapphire"]), pick(["lobster", "heron", "vole", "walrus", "mantis"])),
                     pick(["COMPLETED", "FAILED", "SCHEDULED", "RUNNING"]), TS().sp()])
    tab = table(["ID", "Flow", "Name", "State", "When"], rows, "rich")
    return render(c, frame(), [("prefect flow-run ls --limit %d" % len(rows), ["                                   Flow Runs"] + tab)])


@neg("delta_log_commit_entries")
def n_delta(c):
    t = c.ts
    lines = [jcompact({"commitInfo": {"timestamp": t.ms(), "operation": "WRITE", "operationParameters": {"mode": "Append", "partitionBy": "[\"event_date\"]"},
                                      "readVersion": R.randint(1, 400), "isolationLevel": "Serializable", "isBlindAppend": True,
                                      "operationMetrics": {"numFiles": "2", "numOutputRows": str(R.randint(100, 10 ** 6))},
                                      "engineInfo": "Apache-Spark/3.5.1 Delta-Lake/3.2.0", "txnId": uuid4()}})]
    for _ in range(2):
        p = "event_date=%s/part-%05d-%s-c000.snappy.parquet" % (t.date(), R.randint(0, 200), uuid4())
        stats = jcompact({"numRecords": R.randint(100, 10 ** 5), "minValues": {"user_id": "u_%s" % hexs(8)}, "maxValues": {"user_id": "u_%s" % hexs(8)}, "nullCount": {"user_id": 0}})
        lines.append(jcompact({"add": {"path": p, "partitionValues": {"event_date": t.date()}, "size": R.randint(10 ** 4, 10 ** 8),
                                       "modificationTime": t.ms(), "dataChange": True, "stats": stats}}))
    v = R.randint(3, 900)
    return render(c, frame(), [("cat s3/%s-lake/bronze/events/_delta_log/%020d.json" % (c.org, v), lines)])


@neg("iceberg_snapshots_table")
def n_iceberg(c):
    rows = []
    par = "null"
    tt = c.ts
    for _ in range(R.randint(3, 4)):
        sid = str(R.randint(10 ** 18, 9 * 10 ** 18))
        tt = tt.plus(R.randint(600, 86400 * 3))
        rows.append([tt.sp() + ".%03d" % R.randint(0, 999), sid, par, pick(["append", "overwrite", "delete"]),
                     "s3://%s-lake/warehouse/db/events/metadata/snap-%s-1-%s.avro" % (c.org, sid, uuid4())])
        par = sid
    tab = table(["committed_at", "snapshot_id", "parent_id", "operation", "manifest_list"], rows, "ascii")
    return render(c, frame(), [("spark-sql -e 'SELECT committed_at, snapshot_id, parent_id, operation, manifest_list FROM prod.db.events.snapshots'", tab)])


@neg("s3api_list_objects_etags_parquet")
def n_s3(c):
    owner = hexs(64)
    cont = []
    for _ in range(R.randint(2, 4)):
        mp = chance(0.4)
        cont.append({"Key": "exports/%s/part-%05d-%s.snappy.parquet" % (c.ts.date(), R.randint(0, 99), uuid4()),
                     "LastModified": c.ts.iso("+00:00"),
                     "ETag": "\"%s%s\"" % (hexs(32), "-%d" % R.randint(2, 40) if mp else ""),
                     "ChecksumAlgorithm": ["CRC32"], "Size": R.randint(10 ** 5, 10 ** 9), "StorageClass": "STANDARD",
                     "Owner": {"ID": owner}})
    d = {"Contents": cont, "RequestCharged": None}
    return render(c, frame(), [("aws s3api list-objects-v2 --bucket %s-exports --prefix exports/%s/ --fetch-owner" % (c.org, c.ts.date()),
                                json.dumps(d, indent=4).split("\n"))])


@neg("conda_lock_yml_hashes")
def n_conda_lock(c):
    lines = ["version: 1", "metadata:", "  content_hash:", "    linux-64: %s" % hexs(64), "  channels:",
             "  - url: conda-forge", "    used_env_vars: []", "  platforms:", "  - linux-64", "  sources:", "  - environment.yml", "package:"]
    for name, ver in sample([("numpy", "1.26.4"), ("pandas", "2.2.2"), ("pyarrow", "16.1.0"), ("scikit-learn", "1.5.1"), ("libopenblas", "0.3.27"), ("tokenizers", "0.19.1")], 3):
        lines += ["- name: %s" % name, "  version: %s" % ver, "  manager: conda", "  platform: linux-64",
                  "  url: https://conda.anaconda.org/conda-forge/linux-64/%s-%s-py311h%s_0.conda" % (name, ver, hexs(7)),
                  "  hash:", "    md5: %s" % hexs(32), "    sha256: %s" % hexs(64), "  category: main", "  optional: false"]
    return render(c, frame(), [("sed -n '1,%dp' conda-lock.yml" % len(lines), lines)])


@neg("dvc_lock_stage_hashes")
def n_dvc(c):
    lines = ["schema: '2.0'", "stages:"]
    for st in sample(["prepare", "featurize", "train", "evaluate"], R.randint(2, 3)):
        lines += ["  %s:" % st, "    cmd: python src/%s.py" % st, "    deps:", "    - path: data/raw", "      hash: md5",
                  "      md5: %s.dir" % hexs(32), "      size: %d" % R.randint(10 ** 5, 10 ** 9), "      nfiles: %d" % R.randint(1, 400),
                  "    - path: src/%s.py" % st, "      hash: md5", "      md5: %s" % hexs(32), "      size: %d" % R.randint(500, 9000),
                  "    outs:", "    - path: data/%s" % st, "      hash: md5", "      md5: %s.dir" % hexs(32),
                  "      size: %d" % R.randint(10 ** 5, 10 ** 9), "      nfiles: %d" % R.randint(1, 40)]
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool("%s/dvc.lock" % c.cwd, lines)
    return render(c, fr, [("cat dvc.lock", lines)])


@neg("feast_apply_registry_output")
def n_feast(c):
    y = ["project: %s" % c.proj.replace("-", "_"), "registry: s3://%s-feast/registry.db" % c.org, "provider: aws",
         "online_store:", "  type: redis", "  connection_string: \"redis.%s:6379,ssl=true\"" % c.domain,
         "offline_store:", "  type: snowflake.offline", "  account: %s" % sf_account(c), "  user: SVC_FEAST",
         "  password: ${SNOWFLAKE_PASSWORD}", "  role: FEAST", "  warehouse: FEAST_WH", "  database: FEATURES",
         "entity_key_serialization_version: 2"]
    ap = ["Deploying infrastructure for customer_features",
          "Deploying infrastructure for order_stats", "Created entity customer_id", "Created feature view customer_features",
          "Created feature service churn_v%d" % R.randint(1, 9)]
    return render(c, frame(), [("cat feature_repo/feature_store.yaml", y), ("feast -c feature_repo apply", ap)])


@neg("env_keys_cut_names")
def n_env_names(c):
    names = sorted(sample(["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "WANDB_API_KEY", "AWS_SECRET_ACCESS_KEY",
                           "AWS_SESSION_TOKEN", "SNOWFLAKE_PASSWORD", "DATABRICKS_TOKEN", "STRIPE_SECRET_KEY", "SLACK_BOT_TOKEN",
                           "SENTRY_AUTH_TOKEN", "PINECONE_API_KEY", "LANGCHAIN_API_KEY", "KAGGLE_KEY", "GITHUB_TOKEN"], R.randint(6, 10)))
    red = ["%s=<redacted>" % n for n in names[:4]]
    return render(c, frame(), [("env | cut -d= -f1 | grep -E 'KEY|TOKEN|SECRET|PASS' | sort", names),
                               ("printenv | sed -E 's/=.*/=<redacted>/' | grep -E '^(%s)='" % "|".join(names[:4]), red)])


@neg("next_public_env_inlined_bundle")
def n_next_bundle(c):
    ref = uid(LOW, 20)
    key = rbytes(32)
    iat = c.ts.epoch()
    anon = jwt_hs256({"iss": "supabase", "ref": ref, "role": "anon", "iat": iat, "exp": iat + 315360000}, key)
    mu = pick([c.user, c.org.replace("-", "")])
    hits = [("pk_live_51" + alnum(97)), ("phc_" + alnum(43)), anon, hexs(32), t_mapbox("pk", mu), clerk_pk(c.domain)]
    files = [".next/static/chunks/pages/_app-%s.js" % hexs(16), ".next/static/chunks/%d-%s.js" % (R.randint(100, 999), hexs(16))]
    out = ["%s:%s" % (pick(files), h) for h in hits]
    return render(c, frame(), [("rg -o --no-line-number 'pk_live_[A-Za-z0-9]+|phc_[A-Za-z0-9]+|eyJ[A-Za-z0-9_.-]+|pk\\.eyJ[A-Za-z0-9_.-]+|[0-9a-f]{32}' .next/static/chunks | sort -u", out)])


@neg("segment_snippet_public_writekey")
def n_segment(c):
    wk = alnum(32)
    lines = ["<script>", "  !function(){var i=\"analytics\",analytics=window[i]=window[i]||[];if(!analytics.initialize)if(analytics.invoked)window.console&&console.error&&console.error(\"Segment snippet included twice.\");else{analytics.invoked=!0;analytics.methods=[\"trackSubmit\",\"trackClick\",\"trackLink\",\"trackForm\",\"pageview\",\"identify\",\"reset\",\"group\",\"track\",\"ready\",\"alias\",\"debug\",\"page\",\"screen\",\"once\",\"off\",\"on\",\"addSourceMiddleware\",\"addIntegrationMiddleware\",\"setAnonymousId\",\"addDestinationMiddleware\",\"register\"];",
             "  analytics._writeKey=\"%s\";analytics.SNIPPET_VERSION=\"5.2.0\";" % wk,
             "  analytics.load(\"%s\");" % wk, "  analytics.page();", "  }}();", "</script>",
             "<script>mixpanel.init(\"%s\", {track_pageview: true, persistence: \"localStorage\"});</script>" % hexs(32),
             "<script>amplitude.init(\"%s\", {autocapture: {elementInteractions: true}});</script>" % hexs(32),
             "<script async src=\"https://www.googletagmanager.com/gtag/js?id=G-%s\"></script>" % uid(UPDIG, 10)]
    f = pick(["public/index.html", "templates/base.html", "app/templates/_analytics.html"])
    fr = frame(ALL_FRAMES + ["read"])
    if fr.kind == "read":
        return read_tool("%s/%s" % (c.cwd, f), lines, R.randint(5, 30))
    return render(c, fr, [("sed -n '/<script>/,/<\\/script>/p' %s" % f, lines)])


@neg("stripe_trigger_fixture_output")
def n_stripe_trig(c):
    t = c.ts
    ev = pick(["payment_intent.succeeded", "payment_intent.created", "payment_intent.canceled"])
    out = ["Setting up fixture for: payment_intent", "Running fixture for: payment_intent",
           "Setting up fixture for: payment_method", "Running fixture for: payment_method",
           "Trigger succeeded! Check dashboard for event details."]
    evs = {"object": "list", "data": [], "has_more": True, "url": "/v1/events"}
    for i in range(2):
        evs["data"].append({"id": uid(ALNUM, 24, "evt_3"), "object": "event", "api_version": "2024-06-20", "created": t.epoch() + i,
                            "data": {"object": {"id": uid(ALNUM, 24, "pi_3"), "object": "payment_intent", "amount": 2000, "currency": "usd",
                                                "latest_charge": uid(ALNUM, 24, "ch_3"), "customer": None, "livemode": False}},
                            "livemode": False, "pending_webhooks": R.randint(0, 2),
                            "request": {"id": uid(ALNUM, 14, "req_"), "idempotency_key": uuid4()}, "type": ev})
    return render(c, frame(), [("stripe trigger %s" % ev, out), ("stripe events list --limit 2", jdump(evs).split("\n"))])


@neg("clerk_svix_webhook_headers_log")
def n_svix(c):
    t = c.ts
    uidc = uid(ALNUM, 27, "user_2")
    img = base64.urlsafe_b64encode(json.dumps({"type": "proxy", "src": "https://images.clerk.dev/oauth_google/img_%s" % alnum(27)}, separators=(",", ":")).encode()).decode().rstrip("=")
    REG[img] = 1
    lines = ["[%s] POST /api/webhooks/clerk" % t.iso_ms(), "  svix-id: msg_%s" % alnum(27), "  svix-timestamp: %d" % t.epoch(),
             "  svix-signature: v1,%s v1,%s" % (b64std(32), b64std(32)), "  content-type: application/json", "  body:"]
    body = {"data": {"id": uidc, "object": "user", "email_addresses": [{"email_address": c.email, "id": uid(ALNUM, 27, "idn_2")}],
                     "image_url": "https://img.clerk.com/" + img, "created_at": t.ms(), "last_sign_in_at": None},
            "event_attributes": {"http_request": {"client_ip": "", "user_agent": "Mozilla/5.0"}}, "instance_id": uid(ALNUM, 27, "ins_2"),
            "object": "event", "timestamp": t.ms(), "type": "user.created"}
    lines += ["  " + l for l in jdump(body).split("\n")]
    lines.append("[%s] verified webhook %s -> 200" % (t.plus(1).iso_ms(), "user.created"))
    return render(c, frame(), [("tail -n %d logs/webhooks.log" % len(lines), lines)])


@neg("slack_events_payload_ids")
def n_slack_ev(c):
    t = c.ts
    team = uid(UPDIG, 10, "T0")
    usr = uid(UPDIG, 10, "U0")
    ctx = base64.b64encode(json.dumps({"et": "message", "tid": team, "aid": "A0" + rs(UPDIG, 9), "cid": "C0" + rs(UPDIG, 9)}, separators=(",", ":")).encode()).decode()
    REG[ctx] = 1
    d = {"team_id": team, "api_app_id": uid(UPDIG, 10, "A0"),
         "event": {"client_msg_id": uuid4(), "type": "message", "text": pick(["deploy finished :tada:", "is the dbt job stuck?", "本番環境のデプロイ完了"]),
                   "user": usr, "ts": "%d.%06d" % (t.epoch(), R.randint(0, 999999)), "team": team,
                   "blocks": [{"type": "rich_text", "block_id": fresh(lambda: rs(B64A, 5))}], "channel": uid(UPDIG, 10, "C0"),
                   "event_ts": "%d.%06d" % (t.epoch(), R.randint(0, 999999)), "channel_type": "channel"},
         "type": "event_callback", "event_id": uid(UPDIG, 10, "Ev0"), "event_time": t.epoch(),
         "authorizations": [{"enterprise_id": None, "team_id": team, "user_id": uid(UPDIG, 10, "U0"), "is_bot": True, "is_enterprise_install": False}],
         "is_ext_shared_channel": False, "event_context": "4-" + ctx}
    return render(c, frame(), [("jq . tests/fixtures/slack_message_event.json", jdump(d).split("\n"))])


@neg("sentry_cli_send_event_ids")
def n_sentry_ev(c):
    eid = hexs(32)
    rel = hexs(40)
    out1 = ["Event dispatched.", "Event id: %s" % eid] if chance(0.5) else ["Event dispatched: %s" % eid]
    out2 = ["Created release %s" % rel]
    out3 = ["> Found %d files" % R.randint(2, 40), "> Analyzing %d sources" % R.randint(2, 40), "> Adding source map references",
            "> Bundled %d files for upload" % R.randint(2, 40), "> Bundle ID: %s" % uuid4(), "> Uploaded files to Sentry",
            "> File upload complete (processing pending on server)", "> Organization: %s" % c.org, "> Projects: %s" % c.proj,
            "> Release: %s" % rel, "> Dist: None", "> Upload type: artifact bundle"]
    return render(c, frame(), [('sentry-cli send-event -m "smoke test from %s"' % c.host, out1),
                               ("sentry-cli releases new %s" % rel, out2),
                               ("sentry-cli sourcemaps upload --release %s dist/" % rel, out3)])


@neg("sendgrid_event_webhook_batch")
def n_sendgrid(c):
    t = c.ts
    evs = []
    for ev in sample(["processed", "delivered", "open", "click", "bounce"], R.randint(2, 4)):
        mid = "%s.%s" % (fresh(lambda: rs(B64U, 22)), "filterdrecv-%s-%s-1-%s-%s-0" % (hexs(10), hexs(5), hexs(8), hexs(2)))
        evs.append({"email": "%s@%s" % (pick(USERS), pick(["gmail.com", "outlook.com", c.domain])), "event": ev,
                    "sg_event_id": fresh(lambda: rs(B64U, 22)), "sg_message_id": mid,
                    "smtp-id": "<%s@geopod-ismtpd-%d>" % (fresh(lambda: rs(B64U, 22)), R.randint(1, 40)),
                    "timestamp": t.epoch() + R.randint(0, 99), "category": ["receipt"]})
    head = ["POST /hooks/sendgrid HTTP/1.1", "X-Twilio-Email-Event-Webhook-Signature: %s" % fresh(lambda: "MEUCI" + rs(B64A, 91) + "=="),
            "X-Twilio-Email-Event-Webhook-Timestamp: %d" % t.epoch(), "Content-Type: application/json", ""]
    return render(c, frame(), [("cat tests/fixtures/sendgrid_events.http", head + jdump(evs).split("\n"))])


@neg("shopify_webhook_delivery_headers")
def n_shopify_wh(c):
    t = c.ts
    oid = digits(13)
    lines = ["%s INFO  webhook received" % t.iso_ms(), "  X-Shopify-Topic: orders/create",
             "  X-Shopify-Hmac-Sha256: %s" % b64std(32), "  X-Shopify-Shop-Domain: %s.myshopify.com" % c.org,
             "  X-Shopify-Webhook-Id: %s" % uuid4(), "  X-Shopify-Event-Id: %s" % uuid4(),
             "  X-Shopify-Triggered-At: %s" % t.iso_us(), "  X-Shopify-API-Version: 2024-07",
             "  body: %s" % jcompact({"id": int(oid), "admin_graphql_api_id": "gid://shopify/Order/%s" % oid,
                                      "confirmation_number": uid(UPDIG, 9), "order_number": R.randint(1000, 99999),
                                      "currency": "EUR", "total_price": "%.2f" % R.uniform(5, 400)}),
             "%s INFO  hmac verified, enqueued job %s" % (t.plus(0).iso_ms(), uuid4())]
    return render(c, frame(), [("tail -n %d log/webhooks.log" % len(lines), lines)])


@neg("notion_query_database_json")
def n_notion(c):
    db = uuid4()
    res = []
    for _ in range(R.randint(1, 2)):
        pid = uuid4()
        title = pick(["Q3 roadmap", "ロードマップ", "Incident review 42", "客户反馈汇总"])
        res.append({"object": "page", "id": pid, "created_time": c.ts.iso_ms(), "parent": {"type": "database_id", "database_id": db},
                    "properties": {"Name": {"id": "title", "type": "title", "title": [{"plain_text": title}]},
                                   "Status": {"id": fresh(lambda: rs(B64A, 4)), "type": "status", "status": {"name": "In progress", "color": "blue"}}},
                    "url": "https://www.notion.so/%s-%s" % (title.replace(" ", "-"), pid.replace("-", ""))})
    d = {"object": "list", "results": res, "next_cursor": uuid4(), "has_more": True, "request_id": uuid4()}
    cmd = "curl -s -X POST https://api.notion.com/v1/databases/%s/query -H \"Authorization: Bearer $NOTION_TOKEN\" -H 'Notion-Version: 2022-06-28' -d '{\"page_size\": %d}' | jq ." % (db.replace("-", ""), len(res))
    return render(c, frame(), [(cmd, jdump(d).split("\n"))])


@neg("airtable_list_records_json")
def n_airtable(c):
    base, tbl = uid(ALNUM, 14, "app"), uid(ALNUM, 14, "tbl")
    recs = [{"id": uid(ALNUM, 14, "rec"), "createdTime": TS().iso_ms(),
             "fields": {"Name": pick(["Acme GmbH", "Northwind", "株式会社サクラ", "Lumen SAS"]), "Deal ID": digits(11),
                        "Stage": pick(["won", "lost", "open"])}} for _ in range(R.randint(2, 3))]
    d = {"records": recs, "offset": "itr%s/%s" % (alnum(14), recs[-1]["id"])}
    cmd = "curl -s \"https://api.airtable.com/v0/%s/%s?maxRecords=%d\" -H \"Authorization: Bearer $AIRTABLE_PAT\" | jq ." % (base, tbl, len(recs))
    return render(c, frame(), [(cmd, jdump(d).split("\n"))])


@neg("pagerduty_incident_list_ids")
def n_pd(c):
    inc = []
    for _ in range(R.randint(1, 3)):
        iid = uid(UPDIG, 13, "Q")
        inc.append({"incident_number": R.randint(100, 9000), "title": pick(["dbt job failed: fct_revenue", "Airflow scheduler heartbeat missing", "Kafka consumer lag > 10k"]),
                    "status": pick(["triggered", "acknowledged"]), "incident_key": hexs(32), "id": iid,
                    "service": {"id": "P" + uid(UPDIG, 6), "type": "service_reference", "summary": "%s-data" % c.org},
                    "html_url": "https://%s.pagerduty.com/incidents/%s" % (c.org.split("-")[0], iid)})
    return render(c, frame(), [("pd incident list --json | jq '[.[] | {incident_number, title, status, incident_key, id, service, html_url}]'",
                                jdump(inc).split("\n"))])


@neg("cloudinary_upload_api_response")
def n_cloudinary(c):
    t = c.ts
    pid = "%s/%s" % (pick(["products", "avatars", "samples"]), fresh(lambda: rs(LOWDIG, 20)))
    ver = t.epoch()
    cloud = pick([c.org, c.proj])
    d = {"asset_id": hexs(32), "public_id": pid, "version": ver, "version_id": hexs(32), "signature": hexs(40),
         "width": R.randint(200, 4000), "height": R.randint(200, 4000), "format": "jpg", "resource_type": "image",
         "created_at": t.iso(), "bytes": R.randint(10 ** 4, 10 ** 7), "type": "upload", "etag": hexs(32),
         "url": "http://res.cloudinary.com/%s/image/upload/v%d/%s.jpg" % (cloud, ver, pid),
         "secure_url": "https://res.cloudinary.com/%s/image/upload/v%d/%s.jpg" % (cloud, ver, pid),
         "asset_folder": pid.split("/")[0], "display_name": pid.split("/")[1], "api_key": digits(15)}
    return render(c, frame(), [("cld uploader upload ./img/hero.jpg folder=%s" % pid.split("/")[0], jdump(d).split("\n"))])


@neg("auth0_logs_tail_json")
def n_auth0_logs(c):
    logs = []
    for _ in range(R.randint(2, 3)):
        t = TS()
        ty, desc = pick([("s", "Success Login"), ("seccft", "Client Credentials for Access Token"), ("fp", "Wrong password"), ("sapi", "Success API Operation")])
        logs.append({"date": t.iso_ms(), "type": ty, "description": desc,
                     "client_id": alnum(32), "client_name": pick(["%s-web" % c.proj, "etl-m2m", "Auth0 Management API"]),
                     "ip": "%d.%d.%d.%d" % (R.randint(3, 200), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254)),
                     "user_id": "auth0|%s" % hexs(24), "log_id": digits(56), "tenant_name": c.org.split("-")[0]})
    return render(c, frame(), [("auth0 api get \"logs?per_page=%d&sort=date:-1\"" % len(logs), jdump(logs).split("\n"))])


@neg("plaid_accounts_get_ids")
def n_plaid(c):
    accs = []
    for _ in range(R.randint(1, 3)):
        accs.append({"account_id": fresh(lambda: rs(ALNUM, 37)), "balances": {"available": round(R.uniform(10, 9000), 2), "current": round(R.uniform(10, 9000), 2), "iso_currency_code": "USD"},
                     "mask": digits(4), "name": pick(["Plaid Checking", "Plaid Saving", "Business Card"]), "subtype": pick(["checking", "savings", "credit card"]),
                     "type": pick(["depository", "credit"])})
    d = {"accounts": accs, "item": {"item_id": fresh(lambda: rs(ALNUM, 37)), "institution_id": "ins_%d" % R.randint(1, 130000),
                                    "webhook": "https://api.%s/plaid/webhook" % c.domain, "available_products": ["balance", "identity"],
                                    "billed_products": ["auth", "transactions"], "consent_expiration_time": None, "update_type": "background"},
         "request_id": fresh(lambda: rs(ALNUM, 15))}
    cmd = "curl -s https://production.plaid.com/accounts/get -H 'Content-Type: application/json' -d \"{\\\"client_id\\\": \\\"$PLAID_CLIENT_ID\\\", \\\"secret\\\": \\\"$PLAID_SECRET\\\", \\\"access_token\\\": \\\"$ACCESS_TOKEN\\\"}\" | jq ."
    return render(c, frame(), [(cmd, jdump(d).split("\n"))])

# ==========================================================================
# checks and output
# ==========================================================================
SCHEME_WORDS = ("Bearer ", "Basic ", "token ", "Token ", "Bot ", "AccessKey ", "key=", "token=", "SSWS ")
PREFIX_START = re.compile(r"^(\s|[\u2502\u2503|\u23bf\u2514]|\d+[\u2192:\t])")


def parse_marks(text):
    """-> (plain text, [(start, end) in plain coordinates])"""
    plain, spans, depth, start = [], [], 0, None
    for ch in text:
        if ch == OPEN:
            assert depth == 0, "nested mark"
            depth, start = 1, len(plain)
        elif ch == CLOSE:
            assert depth == 1, "unbalanced close mark"
            depth = 0
            spans.append((start, len(plain)))
        else:
            plain.append(ch)
    assert depth == 0, "unclosed mark"
    return "".join(plain), spans


def other_names():
    """template names of the earlier sets' READMEs (read only for the uniqueness check)"""
    here = os.path.dirname(os.path.abspath(__file__))
    names = set()
    for d in ["agent_tuning"] + ["agent_tuning_%d" % i for i in range(2, 9)]:
        p = os.path.join(here, "..", d, "README.md")
        if not os.path.exists(p):
            continue
        txt = open(p, encoding="utf-8").read()
        if "## Templates" in txt:
            txt = txt.split("## Templates", 1)[1]
        names.update(re.findall(r"`([a-z0-9_]+)`", txt))
    return names


def main():
    assert len(POS) == 60 and len(NEG) == 60, (len(POS), len(NEG))
    names = [n for n, _ in POS + NEG]
    assert len(set(names)) == 120, "duplicate template names"
    clash = sorted(set(names) & other_names())
    assert not clash, "template names used by other sets: %s" % clash
    rows = []
    rid = 0
    for group, positive in ((POS, True), (NEG, False)):
        for name, fn in group:
            for k in range(5):
                ROW[0] = k
                rid += 1
                text = fn(Ctx())
                rows.append({"id": rid, "template": name, "positive": positive, "text": text})
    assert len(rows) == 600
    # per-row checks
    marked = []  # (row index, secret)
    plains = []
    nspans = 0
    for i, r in enumerate(rows):
        text = r["text"]
        if not r["positive"]:
            assert OPEN not in text and CLOSE not in text, "mark in negative row %d" % r["id"]
            plains.append(text)
            continue
        plain, spans = parse_marks(text)
        plains.append(plain)
        assert spans, "positive row %d has no mark" % r["id"]
        nspans += len(spans)
        for a, b in spans:
            s = plain[a:b]
            assert s, "empty mark in row %d" % r["id"]
            assert s == s.strip(), "outer whitespace in mark %r (row %d)" % (s, r["id"])
            assert s[0] not in "\"'`" and s[-1] not in "\"'`", "quote at mark edge %r (row %d)" % (s, r["id"])
            assert not s.startswith(SCHEME_WORDS), "scheme word in mark %r (row %d)" % (s, r["id"])
            if "\n" in s:
                for cont in s.split("\n")[1:]:
                    assert not PREFIX_START.match(cont), "multi-line mark crosses a line prefix (row %d): %r" % (r["id"], cont[:30])
            if len(s) >= 8:
                # every occurrence of the secret lies inside a mark
                pos_ = plain.find(s)
                while pos_ != -1:
                    assert any(x <= pos_ and pos_ + len(s) <= y for x, y in spans), \
                        "secret appears unmarked in row %d: %r" % (r["id"], s[:40])
                    pos_ = plain.find(s, pos_ + 1)
                marked.append((i, s))
    # a marked secret never appears in another row
    sep = "\u0000"
    big = sep.join(plains)
    starts = []
    acc = 0
    for p in plains:
        starts.append(acc)
        acc += len(p) + 1
    import bisect
    seen = {}
    for i, s in marked:
        if s in seen and seen[s] != i:
            raise AssertionError("secret reused in rows %d and %d" % (seen[s] + 1, i + 1))
        seen[s] = i
        p = big.find(s)
        while p != -1:
            j = bisect.bisect_right(starts, p) - 1
            assert j == i, "secret of row %d appears in row %d: %r" % (rows[i]["id"], rows[j]["id"], s[:40])
            p = big.find(s, p + 1)
    out = sys.stdout.buffer
    for r in rows:
        out.write((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8"))
    out.flush()
    sys.stderr.write("agent_tuning_10: %d rows (%d positive, %d negative), %d templates, %d marked spans\n" % (
        len(rows), sum(r["positive"] for r in rows), sum(not r["positive"] for r in rows), len(names), nspans))


if __name__ == "__main__":
    main()
