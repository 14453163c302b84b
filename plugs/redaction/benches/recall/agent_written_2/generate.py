#!/usr/bin/env python3
"""Held-out recall corpus `agent_written_2` for the secret-redaction detector.

Standard library only, one random.Random(7373). Deterministic: no set
iteration, no hash order, no clock, no environment, no locale.

    python3 generate.py > rows.jsonl
"""
import base64
import datetime
import hashlib
import json
import random
import sys
import zlib

R = random.Random(7373)

LOWER = "abcdefghijklmnopqrstuvwxyz"
UPPER = LOWER.upper()
DIG = "0123456789"
LETTERS = UPPER + LOWER
ALNUM = UPPER + LOWER + DIG
LALNUM = LOWER + DIG
UALNUM = UPPER + DIG
HEX = "0123456789abcdef"
UHEX = HEX.upper()
B64 = ALNUM + "+/"
B64U = ALNUM + "-_"
B32 = UPPER + "234567"
NIX32 = "0123456789abcdfghijklmnpqrsvwxyz"
CRYPT64 = "./" + DIG + UPPER + LOWER

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
          "Oct", "Nov", "Dec"]
WDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

# ---------------------------------------------------------------- randomness

_SEEN = {}


def rs(n, alpha=ALNUM):
    """A random string, never repeated anywhere in the corpus (n >= 6)."""
    while True:
        s = "".join(R.choice(alpha) for _ in range(n))
        if n < 6 or s not in _SEEN:
            _SEEN[s] = 1
            return s


def hx(n):
    return rs(n, HEX)


def HX(n):
    return rs(n, UHEX)


def digits(n):
    s = R.choice("123456789") + rs(n - 1, DIG) if n > 1 else R.choice(DIG)
    return s


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def ubytes(n):
    while True:
        b = rbytes(n)
        k = b.hex()
        if k not in _SEEN:
            _SEEN[k] = 1
            return b


def b64e(b):
    return base64.b64encode(b).decode()


def b64ue(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def b64(n):
    return b64e(ubytes(n))


def b64u(n):
    return b64ue(ubytes(n))


def uuid4():
    h = hx(32)
    h = h[:12] + "4" + h[13:16] + R.choice("89ab") + h[17:]
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def uuid7(t):
    ms = epoch_ms(t)
    h = "%012x" % ms + "7" + hx(3) + R.choice("89ab") + hx(15)
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def pick(seq):
    return R.choice(seq)


def chance(p):
    return R.random() < p


# ---------------------------------------------------------------- marks

def M(s):
    return "\u00ab" + s + "\u00bb"


def unmark(s):
    return s.replace("\u00ab", "").replace("\u00bb", "")


def perline(text):
    """Split multi-line marked spans: one span per body line, BEGIN/END out."""
    out = []
    i = 0
    while True:
        a = text.find("\u00ab", i)
        if a < 0:
            out.append(text[i:])
            break
        b = text.find("\u00bb", a)
        out.append(text[i:a])
        span = text[a + 1:b]
        if "\n" in span:
            parts = []
            for ln in span.split("\n"):
                core = ln.strip()
                lead = ln[:len(ln) - len(ln.lstrip())]
                trail = ln[len(ln.rstrip()):]
                if not core or core.startswith("-----BEGIN") or core.startswith("-----END"):
                    parts.append(ln)
                else:
                    parts.append(lead + M(core) + trail)
            out.append("\n".join(parts))
        else:
            out.append(M(span))
        i = b + 1
    return "".join(out)


# ---------------------------------------------------------------- time

EPOCH = datetime.datetime(1970, 1, 1)


def epoch_s(t):
    return int((t - EPOCH).total_seconds())


def epoch_ms(t):
    d = t - EPOCH
    return d.days * 86400000 + d.seconds * 1000 + d.microseconds // 1000


def iso(t, frac=0, z="Z"):
    s = "%04d-%02d-%02dT%02d:%02d:%02d" % (t.year, t.month, t.day, t.hour, t.minute, t.second)
    if frac:
        s += "." + ("%06d" % t.microsecond)[:frac]
    return s + z


def ymd(t, sep="-"):
    return "%04d%s%02d%s%02d" % (t.year, sep, t.month, sep, t.day)


def hms(t):
    return "%02d:%02d:%02d" % (t.hour, t.minute, t.second)


def sqlts(t):
    return ymd(t) + " " + hms(t)


def slashts(t):
    return ymd(t, "/") + " " + hms(t)


def syslogts(t):
    return "%s %2d %s" % (MONTHS[t.month - 1], t.day, hms(t))


def httpdate(t):
    return "%s, %02d %s %04d %s GMT" % (WDAYS[t.weekday()], t.day, MONTHS[t.month - 1], t.year, hms(t))


# ---------------------------------------------------------------- people and places

FIRST = ["ana", "ben", "chloe", "dmitri", "elif", "farah", "gus", "hana", "ivan", "jules",
         "kofi", "lena", "mateo", "nadia", "oscar", "priya", "quinn", "rafael", "sana",
         "tomas", "uma", "viktor", "wren", "xiao", "yusuf", "zoe", "amir", "bea", "carlos",
         "dana", "emeka", "freya", "gabe", "hiro", "ines", "jonas", "kira", "luca", "mira",
         "nils", "olga", "pablo", "rosa", "sven", "tara", "ugo", "vera", "will", "yara",
         "zane", "aiko", "bruno", "cleo", "diego", "eva", "felix", "greta", "hugo", "isla",
         "jin", "kasia", "leo", "maya", "noor", "omar", "pia", "ravi", "sofia", "theo", "ulla"]
LAST = ["okafor", "lindqvist", "moreau", "tanaka", "novak", "reyes", "schmidt", "haddad",
        "kowalski", "ferreira", "nguyen", "obrien", "petrov", "rossi", "sato", "varga",
        "walsh", "yilmaz", "zhang", "abbott", "bauer", "castro", "dubois", "eriksen",
        "fischer", "garcia", "horvat", "ibrahim", "jensen", "kaur", "lopez", "mensah",
        "nakamura", "ortiz", "park", "quint", "rahman", "silva", "toth", "ueda"]
ORGS = ["northwind", "brightpath", "tidewater", "copperleaf", "lumenhq", "harborline",
        "quantaflow", "fernhill", "bluejay", "ironclad", "pinecrest", "redwoodlabs",
        "starling", "mosaiq", "kestrel", "veridian", "orbitly", "cobaltworks", "sundial",
        "waypoint", "foxglove", "helixbio", "nimbusly", "parcelhub", "zephyrine", "arcadia",
        "basalt", "cinderly", "driftwood", "emberline", "fathom", "granitecloud", "halcyon",
        "indigoapps", "juniperhealth", "kinetica", "lattice", "meridian", "nautilus",
        "onyxpay", "prairie", "quillbooks", "riverbend", "saffron", "talonsec", "umbertech",
        "vantage", "willowtree", "xylem", "yonder", "zenithlabs", "atlasfreight", "beaconly",
        "canopy", "deltanine", "evergreen", "flintstack", "gryphon", "hollowpoint", "isotope",
        "jetstream", "keystone", "lodestar", "marlin", "novapay", "opaline", "pylon",
        "quasarly", "rookery", "sable", "tundra", "ursa", "vectorial", "wavecrest"]
TLDS = [".io", ".com", ".dev", ".net", ".co", ".app", ".tech", ".cloud"]
PROJECTS = ["billing-api", "checkout", "ledger", "ingest", "webapp", "mobile-app", "admin",
            "reports", "notifier", "gateway", "search", "auth-service", "inventory",
            "scheduler", "etl", "dashboard", "storefront", "payments", "crm-sync",
            "media-worker", "telemetry", "pricing", "onboarding", "catalog", "support-bot",
            "data-platform", "infra", "ops-tools", "ml-pipeline", "edge-proxy", "docs-site",
            "feature-flags", "warehouse", "shipping", "loyalty", "kiosk", "fleet", "chat",
            "sso", "portal", "tracker", "booking", "invoicing", "analytics", "harvester",
            "relay", "courier", "forecast", "vault-sync", "lab-notebooks"]
WORDS = ["retry", "cache", "login", "webhook", "export", "quota", "upload", "refunds",
         "sitemap", "oauth", "metrics", "cleanup", "pagination", "timeouts", "i18n",
         "dark-mode", "rate-limit", "migrations", "search", "invoices", "sso", "alerts",
         "ci", "deps", "perf", "logging", "billing", "audit", "backfill", "onboarding"]
PASSWORDS_WORDS = ["Marble", "Cactus", "Velvet", "Orbit", "Lantern", "Pepper", "Tundra",
                   "Falcon", "Juniper", "Quartz", "Saddle", "Mango", "Harpoon", "Nebula",
                   "Copper", "Walrus", "Thistle", "Ember", "Gravel", "Pixel", "Sorrel",
                   "Kettle", "Bramble", "Cobalt", "Drizzle", "Fjord", "Glacier", "Hornet"]


class Ctx:
    def __init__(self):
        self.first = pick(FIRST)
        self.last = pick(LAST)
        self.user = pick([self.first, self.first, self.first + self.last[0],
                          self.first[0] + self.last, self.first + "." + self.last])
        self.org = pick(ORGS)
        self.dom = self.org + pick(TLDS)
        self.email = "%s.%s@%s" % (self.first, self.last, self.dom)
        self.proj = pick(PROJECTS)
        self.branch = pick(["main", "main", "develop", "feat/" + pick(WORDS),
                            "fix/" + pick(WORDS), "chore/" + pick(WORDS),
                            "release/%d.%d" % (R.randint(1, 4), R.randint(0, 19))])
        self.mac = chance(0.4)
        hostpat = R.randint(0, 7)
        if hostpat == 0:
            self.host = self.first + "-mbp"
        elif hostpat == 1:
            self.host = "ip-10-%d-%d-%d" % (R.randint(0, 255), R.randint(0, 255), R.randint(1, 254))
        elif hostpat == 2:
            self.host = "build-%02d" % R.randint(1, 40)
        elif hostpat == 3:
            self.host = "dev-%s-%d" % (self.first, R.randint(1, 9))
        elif hostpat == 4:
            self.host = pick(["devbox", "thinkpad", "workstation", "nuc", "fw13", "xps"])
        elif hostpat == 5:
            self.host = "%s-%s-%02d" % (self.org[:6], pick(["app", "web", "ops", "ci"]), R.randint(1, 30))
        elif hostpat == 6:
            self.host = "ws-%s" % hx(6)
        else:
            self.host = "%s-laptop" % self.first
        self.home = ("/Users/" if self.mac else "/home/") + self.user
        self.srcdir = pick(["src", "code", "work", "dev", "projects", "git", "repos"])
        self.cwd = "%s/%s/%s" % (self.home, self.srcdir, self.proj)
        y = pick([2024, 2025])
        self.t = datetime.datetime(y, R.randint(1, 12), R.randint(1, 28), R.randint(0, 23),
                                   R.randint(0, 59), R.randint(0, 59), R.randint(0, 999999))
        self.ip = "10.%d.%d.%d" % (R.randint(0, 255), R.randint(0, 255), R.randint(2, 254))
        self.frame = None   # one agent frame per row
        self.style = None   # one prompt style per row

    def tick(self, a=0, b=4):
        self.t += datetime.timedelta(seconds=R.randint(a, b), microseconds=R.randint(0, 999999))
        return self.t

    def tilde(self):
        return "~/" + self.srcdir + "/" + self.proj


def ip_priv():
    return pick(["10.%d.%d.%d" % (R.randint(0, 255), R.randint(0, 255), R.randint(2, 254)),
                 "192.168.%d.%d" % (R.randint(0, 30), R.randint(2, 254)),
                 "172.%d.%d.%d" % (R.randint(16, 31), R.randint(0, 255), R.randint(2, 254))])


def ip_pub():
    return "%d.%d.%d.%d" % (pick([18, 34, 52, 54, 35, 104, 143, 159, 185, 203]),
                            R.randint(0, 255), R.randint(0, 255), R.randint(2, 254))


# ---------------------------------------------------------------- secrets

PUNCT = "!%^*-_+.?~"


def pw_alnum(n=None):
    n = n or R.randint(14, 24)
    while True:
        s = rs(n)
        if any(c in DIG for c in s) and any(c in UPPER for c in s) and any(c in LOWER for c in s):
            return s


def pw_punct(n=None):
    n = n or R.randint(12, 22)
    while True:
        s = "".join(R.choice(ALNUM + PUNCT + PUNCT) for _ in range(n))
        if (s[0] in ALNUM and s[-1] in ALNUM and any(c in PUNCT for c in s)
                and any(c in DIG for c in s) and s not in _SEEN):
            _SEEN[s] = 1
            return s


def pw_url(n=None):
    n = n or R.randint(16, 28)
    while True:
        s = "".join(R.choice(ALNUM + "-_") for _ in range(n))
        if s[0] in ALNUM and s[-1] in ALNUM and s not in _SEEN:
            _SEEN[s] = 1
            return s


def pw_words():
    while True:
        w = R.sample(PASSWORDS_WORDS, 3)
        s = pick(["-", ".", "_", ""]).join(w) + pick(["", "-", "!"]) + str(R.randint(10, 9999))
        if s not in _SEEN:
            _SEEN[s] = 1
            return s


def pw_any():
    return pick([pw_alnum, pw_punct, pw_url, pw_words, lambda: b64(18), lambda: hx(32)])()


def base62(n, width):
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = (DIG + UPPER + LOWER)[r] + s
    return s.rjust(width, "0")


def gh_token(prefix="ghp_"):
    body = rs(30)
    return prefix + body + base62(zlib.crc32(body.encode()) & 0xFFFFFFFF, 6)


def npm_token():
    return gh_token("npm_")


def github_pat():
    return "github_pat_11" + rs(20, UALNUM) + "_" + rs(59)


def glpat():
    return "glpat-" + rs(20, ALNUM + "-_")


def stripe_sk(mode="live"):
    return "sk_%s_51%s" % (mode, rs(97))


def stripe_rk(mode="live"):
    return "rk_%s_51%s" % (mode, rs(97))


def stripe_pk(mode="live"):
    return "pk_%s_51%s" % (mode, rs(97))


def whsec():
    return "whsec_" + rs(32)


def sk_proj():
    return "sk-proj-" + rs(74, ALNUM + "-_") + "T3BlbkFJ" + rs(74, ALNUM + "-_")


def sk_ant():
    return "sk-ant-api03-" + rs(93, ALNUM + "-_") + "AA"


def hf_token():
    return "hf_" + rs(34, LETTERS)


def gsk():
    return "gsk_" + rs(52)


def sendgrid():
    return "SG." + rs(22, B64U) + "." + rs(43, B64U)


def aws_akia():
    return "AKIA" + rs(16, UPPER + "234567")


def aws_asia():
    return "ASIA" + rs(16, UPPER + "234567")


def aws_secret():
    return rs(40, ALNUM + "+/")


def aws_session_token():
    return "IQoJb3JpZ2luX2Vj" + pick("EFGH") + rs(R.randint(380, 520), B64)


def dop_token():
    return "dop_v1_" + hx(64)


def cf_token():
    return rs(40, ALNUM + "_-")


def slack_xoxb():
    return "xoxb-%s-%s-%s" % (digits(12), digits(13), rs(24))


def mailgun_key():
    return "key-" + hx(32)


def azure_client_secret():
    return rs(3, ALNUM) + "8Q~" + rs(34, ALNUM + "~._-")


def jwt(header, payload, sig_bytes=32):
    h = b64ue(json.dumps(header, separators=(",", ":")).encode())
    p = b64ue(json.dumps(payload, separators=(",", ":")).encode())
    return h + "." + p + "." + b64u(sig_bytes)


def jwt_user(t, iss, aud="authenticated", extra=None):
    now = epoch_s(t)
    pl = {"sub": uuid4(), "iss": iss, "aud": aud, "iat": now, "exp": now + 3600}
    if extra:
        pl.update(extra)
    return jwt({"alg": "HS256", "typ": "JWT"}, pl)


def sentry_org_token(org):
    pl = {"iat": R.randint(1700000000, 1740000000) + R.random(), "url": "https://sentry.io",
          "region_url": "https://us.sentry.io", "org": org}
    body = base64.b64encode(json.dumps(pl, separators=(",", ":")).encode()).decode().rstrip("=")
    return "sntrys_" + body + "_" + rs(43, B64)


def mapbox_sk(user):
    pl = json.dumps({"u": user, "a": "cl" + rs(23, LALNUM)}, separators=(",", ":"))
    return "sk." + b64ue(pl.encode()) + "." + rs(22, B64U)


def pem_lines(der):
    s = b64e(der)
    return "\n".join(s[i:i + 64] for i in range(0, len(s), 64))


def der_len(n):
    if n < 128:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def der(tag, body):
    return bytes([tag]) + der_len(len(body)) + body


def der_int(b):
    b = b.lstrip(b"\x00") or b"\x00"
    if b[0] & 0x80:
        b = b"\x00" + b
    return der(0x02, b)


def der_seq(*items):
    return der(0x30, b"".join(items))


def rand_big(nbytes):
    b = bytearray(ubytes(nbytes))
    b[0] |= 0xC0
    b[-1] |= 1
    return bytes(b)


def rsa_pkcs1_der(bits=2048):
    n = bits // 8
    h = n // 2
    return der_seq(der_int(b"\x00"), der_int(rand_big(n)), der_int(b"\x01\x00\x01"),
                   der_int(rand_big(n)), der_int(rand_big(h)), der_int(rand_big(h)),
                   der_int(rand_big(h)), der_int(rand_big(h)), der_int(rand_big(h)))


RSA_OID = bytes.fromhex("300d06092a864886f70d0101010500")


def rsa_pkcs8_pem(bits=2048):
    body = der_seq(der_int(b"\x00"), RSA_OID, der(0x04, rsa_pkcs1_der(bits)))
    return "-----BEGIN PRIVATE KEY-----\n" + pem_lines(body) + "\n-----END PRIVATE KEY-----"


def rsa_pkcs1_pem(bits=2048):
    return ("-----BEGIN RSA PRIVATE KEY-----\n" + pem_lines(rsa_pkcs1_der(bits)) +
            "\n-----END RSA PRIVATE KEY-----")


def ec_pem():
    body = der_seq(der_int(b"\x01"), der(0x04, ubytes(32)),
                   der(0xA0, bytes.fromhex("06082a8648ce3d030107")),
                   der(0xA1, der(0x03, b"\x00\x04" + ubytes(64))))
    return "-----BEGIN EC PRIVATE KEY-----\n" + pem_lines(body) + "\n-----END EC PRIVATE KEY-----"


def cert_pem(cn):
    """A certificate-shaped PEM (public, never a secret)."""
    tbs = der_seq(der(0xA0, der_int(b"\x02")), der_int(ubytes(16)),
                  der_seq(bytes.fromhex("06092a864886f70d01010b0500")),
                  der_seq(der(0x31, der_seq(bytes.fromhex("0603550403"), der(0x0C, cn.encode())))),
                  der_seq(der(0x17, b"240101000000Z"), der(0x17, b"260101000000Z")),
                  der_seq(der(0x31, der_seq(bytes.fromhex("0603550403"), der(0x0C, cn.encode())))),
                  der_seq(RSA_OID, der(0x03, b"\x00" + der_seq(der_int(rand_big(256)), der_int(b"\x01\x00\x01")))))
    body = der_seq(tbs, der_seq(bytes.fromhex("06092a864886f70d01010b0500")), der(0x03, b"\x00" + ubytes(256)))
    return body


# ---------------------------------------------------------------- frames

def shq(cmd):
    return "'" + cmd.replace("'", "'\"'\"'") + "'"


def prompt(ctx, cmd, styles=None):
    if ctx.style is None:
        ctx.style = pick(styles or ["bash", "omz", "starship", "rhel", "bare", "fish", "bash", "bare"])
    st = ctx.style
    if st == "bash":
        return "%s@%s:%s$ %s" % (ctx.user, ctx.host, ctx.tilde(), cmd)
    if st == "omz":
        return "\u279c  %s git:(%s)%s %s" % (ctx.proj, ctx.branch, pick(["", " \u2717"]), cmd)
    if st == "starship":
        extra = pick(["via \U0001F40D v3.12.%d" % R.randint(1, 8), "via \u2b22 v20.%d.0" % R.randint(9, 18),
                      "via \U0001F980 v1.%d.0" % R.randint(74, 86), "via \U0001F439 v1.22.%d" % R.randint(1, 9),
                      "on \u2601\ufe0f  (us-east-1)", "via \u2615 v21.0.%d" % R.randint(1, 5)])
        return "%s on \ue0a0 %s %s\n\u276f %s" % (ctx.proj, ctx.branch, extra, cmd)
    if st == "rhel":
        return "[%s@%s %s]$ %s" % (ctx.user, ctx.host, ctx.proj, cmd)
    if st == "root":
        return "root@%s:~# %s" % (ctx.host, cmd)
    if st == "fish":
        return "%s@%s ~/%s/%s (%s)> %s" % (ctx.user, ctx.host, ctx.srcdir[0], ctx.proj, ctx.branch, cmd)
    if st == "ps":
        return "PS C:\\Users\\%s\\source\\repos\\%s> %s" % (ctx.first, ctx.proj, cmd)
    if st == "cmd":
        return "C:\\Users\\%s>%s" % (ctx.first, cmd)
    return "$ " + cmd


def gemini_box(title, body):
    lines = body.split("\n") if body else []
    w = max([len(unmark(title)) + 4] + [len(unmark(l)) + 6 for l in lines])
    w = min(max(w, 60), 110)

    def row(s):
        pad = w - len(unmark(s)) - 2
        return "\u2502 " + s + " " * max(pad, 1) + "\u2502"
    out = ["\u256d" + "\u2500" * (w) + "\u256e", row("\u2714  " + title), row("")]
    for l in lines:
        out.append(row("   " + l))
    out.append("\u2570" + "\u2500" * (w) + "\u256f")
    return "\n".join(out)


FRAMES = ["prompt", "prompt", "prompt", "claude", "claude", "codex", "codex_ts", "codex_ran", "gemini"]


def run(ctx, cmd, out, frames=None, styles=None):
    if ctx.frame is None:
        ctx.frame = pick(frames or FRAMES)
    f = ctx.frame
    out = out.rstrip("\n")
    if f == "prompt":
        return prompt(ctx, cmd, styles) + ("\n" + out if out else "")
    if f == "claude":
        out = perline(out)
        lines = out.split("\n") if out else ["(No content)"]
        body = "  \u23bf  " + lines[0] + "".join(("\n     " + l).rstrip() if l else "\n" for l in lines[1:])
        return "\u23fa Bash(%s)\n%s" % (cmd, body)
    if f == "codex":
        return "exec\nbash -lc %s in %s\n succeeded in %dms:\n%s" % (shq(cmd), ctx.cwd, R.randint(8, 2400), out)
    if f == "codex_ts":
        t = ctx.tick()
        ts = "[%s]" % iso(t, 0, "")
        return "%s exec bash -lc %s in %s\n%s bash -lc %s succeeded in %dms:\n%s" % (
            ts, shq(cmd), ctx.cwd, ts, shq(cmd), R.randint(8, 2400), out)
    if f == "codex_ran":
        out = perline(out)
        lines = out.split("\n") if out else ["(no output)"]
        body = "  \u2514 " + lines[0] + "".join(("\n    " + l).rstrip() if l else "\n" for l in lines[1:])
        return "\u2022 Ran %s\n%s" % (cmd, body)
    if f == "gemini":
        return gemini_box("Shell " + cmd, perline(out))
    raise ValueError(f)


def numbered(content, arrow=False):
    content = perline(content)
    lines = content.split("\n")
    sep = "\u2192" if arrow else "\t"
    return "\n".join(("%6d%s%s" % (n + 1, sep, l)) for n, l in enumerate(lines))


def bat(path, content):
    content = perline(content)
    bar = "\u2500" * 7
    wide = "\u2500" * 60
    lines = ["%s\u252c%s" % (bar, wide), "       \u2502 File: %s" % path, "%s\u253c%s" % (bar, wide)]
    for n, l in enumerate(content.split("\n")):
        lines.append(("%4d   \u2502 %s" % (n + 1, l)).rstrip())
    lines.append("%s\u2534%s" % (bar, wide))
    return "\n".join(lines)


def view(ctx, path, content, modes=None, frames=None, styles=None):
    mode = pick(modes or ["cat", "cat", "catn", "nl", "sed", "head", "bat", "read", "read"])
    if mode == "read":
        if ctx.frame is None:
            ctx.frame = "claude"
        elif ctx.frame != "claude":
            mode = "cat"
    content = content.rstrip("\n")
    n = content.count("\n") + 1
    if mode == "cat":
        return run(ctx, "cat " + path, content, frames, styles)
    if mode == "catn":
        return run(ctx, "cat -n " + path, numbered(content), frames, styles)
    if mode == "nl":
        return run(ctx, "nl -ba " + path, numbered(content), frames, styles)
    if mode == "sed":
        return run(ctx, "sed -n '1,%dp' %s" % (n + R.randint(0, 40), path), content, frames, styles)
    if mode == "head":
        return run(ctx, "head -n %d %s" % (pick([50, 60, 80, 100, 120, 200]) if n < 50 else n + 10, path),
                   content, frames, styles)
    if mode == "bat":
        return run(ctx, "bat --paging=never " + path, bat(path, content), frames, styles)
    if mode == "read":
        return "\u23fa Read(%s)\n%s" % (path, numbered(content, True))
    raise ValueError(mode)


def joinparts(*parts):
    return "\n".join(p for p in parts if p)


# ================================================================ positives
# Languages and their config files

def p_go_printf_config_struct(ctx, i):
    dbpw, rpw, js = pw_url(), pw_alnum(), b64(32)
    host = pick(["db", "postgres", "pg-primary.internal", "127.0.0.1", "%s-db.%s" % (ctx.proj, ctx.dom)])
    t = ctx.tick()
    v = i % 3
    cmd = pick(["go run ./cmd/%s" % ctx.proj, "./bin/%s serve" % ctx.proj, "make run",
                "air", "go run . --config ./config/%s.yaml" % pick(["dev", "staging", "prod"])])
    if v == 0:
        sk = stripe_sk(pick(["live", "test"]))
        line = ("%s loaded config: &{Env:%s Addr::%d DatabaseURL:postgres://%s:%s@%s:5432/%s?sslmode=require "
                "RedisURL:redis://default:%s@redis:6379/0 JWTSecret:%s StripeKey:%s LogLevel:debug "
                "AllowedOrigins:[https://app.%s http://localhost:5173]}") % (
            slashts(t), pick(["production", "staging"]), pick([8080, 3000, 9000]), ctx.proj.replace("-", "_"),
            M(dbpw), host, ctx.proj.replace("-", "_"), M(rpw), M(js), M(sk), ctx.dom)
        out = "\n".join([
            "%s starting %s version=%s commit=%s" % (slashts(t), ctx.proj, "v0.%d.%d" % (R.randint(1, 40), R.randint(0, 9)), hx(7)),
            line,
            "%s listening on :%d" % (slashts(ctx.tick()), pick([8080, 3000, 9000]))])
    elif v == 1:
        key = sendgrid()
        out = "\n".join([
            "%s DEBUG cfg = main.Config{Env:\"staging\", Port:%d, DB:main.DBConfig{Host:\"%s\", Port:5432, "
            "User:\"%s\", Password:\"%s\", Name:\"%s\", SSLMode:\"disable\"}, SMTP:main.SMTPConfig{Host:\"smtp.sendgrid.net\", "
            "Port:587, Username:\"apikey\", Password:\"%s\"}, Debug:true}" % (
                slashts(t), pick([8080, 8081, 4000]), host, ctx.first, M(dbpw), ctx.proj.replace("-", "_"), M(key)),
            "%s DEBUG migrations: 14 applied, 0 pending" % slashts(ctx.tick())])
    else:
        tok = gh_token(pick(["ghp_", "gho_"]))
        cfg = {"Env": "dev", "HTTPAddr": ":8080", "Postgres": {"DSN": "host=%s user=%s password=%s dbname=%s sslmode=disable" % (
            host, ctx.first, M(dbpw), ctx.proj.replace("-", "_"))}, "GitHub": {"Org": ctx.org, "Token": M(tok)},
            "SessionKey": M(js)}
        out = json.dumps({"level": "debug", "ts": epoch_s(t) + R.random(), "caller": "config/load.go:%d" % R.randint(30, 120),
                          "msg": "effective config", "cfg": cfg}, ensure_ascii=False)
    return run(ctx, cmd, out)


def p_rocket_toml_secret_key(ctx, i):
    sk = b64(32)
    pw1, pw2 = pw_url(), pw_url()
    app = ctx.proj.replace("-", "_")
    if i % 2 == 0:
        content = "\n".join([
            "[default]", 'address = "0.0.0.0"', "port = %d" % pick([8000, 8080, 3000]),
            'limits = { form = "64 kB", json = "1 MiB" }', "",
            "[default.databases.%s]" % app,
            'url = "postgres://rocket:%s@localhost/%s_dev"' % (M(pw1), app), "pool_size = 10", "",
            "[release]", 'secret_key = "%s"' % M(sk), 'log_level = "critical"', 'template_dir = "templates"', "",
            "[release.databases.%s]" % app,
            'url = "postgres://%s:%s@%s:5432/%s"' % (app, M(pw2), pick(["db.internal", "10.0.3.4", "pg.%s" % ctx.dom]), app)])
        return view(ctx, "Rocket.toml", content)
    cmd1 = run(ctx, "openssl rand -base64 32", M(sk), frames=["prompt"])
    cmd2 = prompt(ctx, "echo 'ROCKET_SECRET_KEY=%s' >> .env.production" % M(sk))
    cmd3 = run(ctx, "tail -n 4 .env.production", "\n".join([
        "ROCKET_PROFILE=release", "ROCKET_DATABASES={%s={url=\"mysql://%s:%s@db:3306/%s\"}}" % (app, app, M(pw1), app),
        "ROCKET_LOG_LEVEL=normal", "ROCKET_SECRET_KEY=%s" % M(sk)]), frames=["prompt"])
    return joinparts(cmd1, cmd2, cmd3)


def p_ktor_application_conf(ctx, i):
    js, pw = pw_punct(R.randint(24, 40)), pw_url()
    dom = ctx.dom
    if i % 2 == 0:
        content = "\n".join([
            "ktor {", "    deployment {", "        port = 8080", "        port = ${?PORT}", "    }",
            "    application {", "        modules = [ com.%s.ApplicationKt.module ]" % ctx.org, "    }", "}", "",
            "jwt {", '    domain = "https://auth.%s/"' % dom, '    audience = "%s-api"' % ctx.proj, '    realm = "%s"' % ctx.org,
            '    secret = "%s"' % M(js), "}", "",
            "storage {", '    driverClassName = "org.postgresql.Driver"',
            '    jdbcURL = "jdbc:postgresql://%s:5432/%s?user=%s&password=%s"' % (
                pick(["db", "localhost", "pg.internal"]), ctx.proj.replace("-", ""), ctx.first, M(pw)),
            "    maximumPoolSize = 8", "}"])
        return view(ctx, "src/main/resources/application.conf", content)
    content = "\n".join([
        "ktor:", "  application:", "    modules:", "      - com.%s.ApplicationKt.module" % ctx.org,
        "  deployment:", "    port: 8080", "", "jwt:", '  issuer: "https://%s/"' % dom,
        '  secret: "%s"' % M(js), "", "database:", '  url: "jdbc:mysql://db:3306/%s"' % ctx.proj.replace("-", "_"),
        '  user: "%s"' % ctx.first, '  password: "%s"' % M(pw), "",
        "mail:", '  host: "smtp.mailgun.org"', '  apiKey: "%s"' % M(mailgun_key())])
    return view(ctx, "src/main/resources/application.yaml", content)


def p_play_scala_application_conf(ctx, i):
    ps, pw, sg = rs(R.randint(40, 64), ALNUM + "=_-"), pw_alnum(), sendgrid()
    content = "\n".join([
        "# https://www.playframework.com/documentation/latest/ConfigFile",
        'include "base.conf"', "",
        'play.http.secret.key = "%s"' % M(ps),
        'play.http.secret.key = ${?APPLICATION_SECRET}',
        'play.filters.hosts.allowed = [".%s", "localhost:9000"]' % ctx.dom, "",
        'slick.dbs.default.profile = "slick.jdbc.PostgresProfile$"',
        'slick.dbs.default.db.url = "jdbc:postgresql://%s/%s"' % (pick(["db:5432", "localhost:5432", "10.1.0.7:5432"]), ctx.proj.replace("-", "_")),
        'slick.dbs.default.db.user = "%s"' % ctx.first,
        'slick.dbs.default.db.password = "%s"' % M(pw), "",
        "play.mailer {", '  host = "smtp.sendgrid.net"', "  port = 587", "  tls = yes",
        '  user = "apikey"', '  password = "%s"' % M(sg), "}"])
    if i % 2:
        content += "\n\nakka.http.client.proxy.https {\n  host = \"proxy.%s\"\n  port = 3128\n}" % ctx.dom
    return view(ctx, "conf/%s" % pick(["application.conf", "prod.conf", "production.conf"]), content)


def p_xcconfig_secrets_read(ctx, i):
    st = sentry_org_token(ctx.org)
    rc = "sk_" + rs(32)
    mb = mapbox_sk(ctx.first + ctx.org[:4])
    lines = ["//", "//  Secrets.xcconfig", "//  %s" % ctx.proj.title().replace("-", ""), "//",
             "//  Not checked in. Copy Secrets.example.xcconfig and fill in.", "",
             "API_BASE_URL = https:/$()/api.%s" % ctx.dom,
             "SENTRY_ORG = %s" % ctx.org, "SENTRY_AUTH_TOKEN = %s" % M(st)]
    if i % 2 == 0:
        lines.append("REVENUECAT_SECRET_KEY = %s" % M(rc))
    lines.append("MAPBOX_DOWNLOADS_TOKEN = %s" % M(mb))
    if i % 3 == 1:
        lines.append("APP_STORE_CONNECT_SHARED_SECRET = %s" % M(hx(32)))
    return view(ctx, "Config/Secrets.xcconfig", "\n".join(lines))


def p_dart_env_constants(ctx, i):
    sk, oa, alg = stripe_sk(), sk_proj(), hx(32)
    if i % 2 == 0:
        content = "\n".join([
            "// ignore_for_file: constant_identifier_names", "",
            "/// Build-time configuration for the %s app." % ctx.proj, "abstract final class Env {",
            "  static const String apiBase = 'https://api.%s/v2';" % ctx.dom,
            "  static const String stripeSecretKey =", "      '%s';" % M(sk),
            "  static const String openAiKey = '%s';" % M(oa),
            "  static const String algoliaAppId = '%s';" % rs(10, UALNUM),
            "  static const String algoliaAdminKey = '%s';" % M(alg),
            "  static const bool verboseLogging = true;", "}"])
        return view(ctx, "lib/config/env.dart", content)
    cmd = ("flutter run -d %s --dart-define=API_BASE=https://api.%s --dart-define=OPENAI_API_KEY=%s "
           "--dart-define=STRIPE_SECRET=%s") % (pick(["chrome", "emulator-5554", "macos", "iPhone 15"]), ctx.dom, M(oa), M(sk))
    out = "\n".join([
        "Launching lib/main.dart on %s in debug mode..." % pick(["sdk gphone64 arm64", "Chrome", "macOS"]),
        "Running Gradle task 'assembleDebug'...                          %d.%ds" % (R.randint(9, 60), R.randint(0, 9)),
        "\u2713 Built build/app/outputs/flutter-apk/app-debug.apk",
        "Syncing files to device...                                         %dms" % R.randint(80, 900),
        "", "Flutter run key commands.", "r Hot reload. \U0001F525\U0001F525\U0001F525", "R Hot restart."])
    return run(ctx, cmd, out)


def p_iex_application_get_env(ctx, i):
    app = ctx.proj.replace("-", "_")
    mod = "".join(w.title() for w in ctx.proj.split("-"))
    pw, skb, cookie = pw_url(), rs(64, ALNUM + "+/"), rs(20, UPPER)
    lines = ["Erlang/OTP 26 [erts-14.2.%d] [source] [64-bit] [smp:8:8] [ds:8:8:10] [async-threads:1] [jit]" % R.randint(1, 5),
             "", "Interactive Elixir (1.16.%d) - press Ctrl+C to exit (type h() ENTER for help)" % R.randint(0, 3),
             "iex(%s@%s)1> Application.get_env(:%s, %s.Repo)" % (app, ctx.host, app, mod),
             "[", '  username: "%s",' % app, '  password: "%s",' % M(pw),
             '  hostname: "%s",' % pick(["db.internal", "localhost", "10.0.8.21"]),
             '  database: "%s_prod",' % app, "  pool_size: 10,", "  ssl: true", "]",
             "iex(%s@%s)2> Application.get_env(:%s, %sWeb.Endpoint)[:secret_key_base]" % (app, ctx.host, app, mod),
             '"%s"' % M(skb)]
    n = 3
    if i % 2 == 0:
        sk = stripe_sk()
        lines += ['iex(%s@%s)%d> System.get_env("STRIPE_SECRET")' % (app, ctx.host, n), '"%s"' % M(sk)]
        n += 1
    lines += ["iex(%s@%s)%d> Node.get_cookie()" % (app, ctx.host, n), ":" + M(cookie)]
    return run(ctx, "_build/prod/rel/%s/bin/%s remote" % (app, app), "\n".join(lines), frames=["prompt", "prompt", "claude", "codex"])


def p_ghci_record_show(ctx, i):
    pw, jk = pw_alnum(), b64(48)
    sk = stripe_sk(pick(["live", "test"]))
    host = pick(["db.internal", "localhost", "10.4.0.12", "pg-%s" % ctx.proj])
    lines = ["GHCi, version 9.6.%d: https://www.haskell.org/ghc/  :? for help" % R.randint(3, 6),
             "[1 of 4] Compiling Config          ( src/Config.hs, interpreted )",
             "[2 of 4] Compiling Db              ( src/Db.hs, interpreted )",
             "Ok, four modules loaded.",
             "ghci> :set -XOverloadedStrings",
             'ghci> cfg <- loadConfig "config/%s.dhall"' % pick(["prod", "staging", "local"]),
             "ghci> cfg",
             'AppConfig {acPort = %d, acDbConnStr = "host=%s port=5432 user=%s password=%s dbname=%s", acJwtKey = "%s", acStripeKey = "%s", acLogLevel = LevelDebug}' % (
                 pick([3000, 8080]), host, ctx.first, M(pw), ctx.proj.replace("-", "_"), M(jk), M(sk))]
    if i % 2:
        lines += ["ghci> acDbConnStr cfg", '"host=%s port=5432 user=%s password=%s dbname=%s"' % (
            host, ctx.first, M(pw), ctx.proj.replace("-", "_"))]
    return run(ctx, pick(["stack ghci", "cabal repl"]), "\n".join(lines))


def p_openresty_lua_redis_auth(ctx, i):
    rp, hs = pw_alnum(R.randint(20, 32)), pw_punct(R.randint(24, 40))
    content = "\n".join([
        "location /api/ {",
        "    access_by_lua_block {",
        '        local redis = require "resty.redis"',
        '        local jwt = require "resty.jwt"',
        "        local red = redis:new()",
        "        red:set_timeouts(1000, 1000, 1000)",
        '        local ok, err = red:connect("%s", 6379)' % ip_priv(),
        "        if not ok then",
        '            ngx.log(ngx.ERR, "redis connect: ", err)',
        "            return ngx.exit(500)",
        "        end",
        '        local res, err = red:auth("%s")' % M(rp),
        '        local auth = ngx.var.http_authorization or ""',
        '        local token = auth:match("Bearer%s+(.+)")',
        '        local obj = jwt:verify("%s", token)' % M(hs),
        "        if not obj.verified then",
        "            return ngx.exit(ngx.HTTP_UNAUTHORIZED)",
        "        end",
        "    }",
        "    proxy_pass http://%s_upstream;" % ctx.proj.replace("-", "_"),
        "}"])
    return view(ctx, "conf.d/%s.conf" % ctx.proj, content)


def p_rsconnect_set_account_info(ctx, i):
    tok, sec = HX(32), rs(40, B64)
    acct = "%s-%s" % (ctx.org, pick(["analytics", "data", "insights", "lab"]))
    app = pick(["sales", "churn", "kpi-board", "forecast", "ops-report"])
    lines = ["> rsconnect::setAccountInfo(name='%s'," % acct,
             "+                           token='%s'," % tok,
             "+                           secret='%s')" % M(sec),
             "> rsconnect::deployApp('dashboards/%s')" % app,
             "\u2500\u2500 Preparing for deployment \u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500",
             '\u2714 Deploying "%s" using "server: shinyapps.io / username: %s"' % (app, acct),
             "\u2139 Bundling %d files: 'app.R', 'global.R', 'R/plots.R' and 'data/summary.rds'" % R.randint(4, 12),
             "\u2139 Capturing R dependencies with renv",
             "\u2714 Found %d dependencies" % R.randint(20, 90),
             "\u2714 Created %.1f kB bundle" % (R.randint(100, 9999) / 10.0),
             "\u2714 Uploaded bundle with id %d" % R.randint(8000000, 9999999)]
    if i % 2:
        return view(ctx, "deploy.R", "\n".join([
            "library(rsconnect)", "",
            "rsconnect::setAccountInfo(name = '%s'," % acct, "                          token = '%s'," % tok,
            "                          secret = '%s')" % M(sec), "",
            "rsconnect::deployApp('dashboards/%s', forceUpdate = TRUE)" % app]))
    return run(ctx, "R --quiet --no-save < deploy.R", "\n".join(lines), frames=["prompt", "claude", "codex", "gemini"])


def p_julia_auth_toml(ctx, i):
    t = ctx.tick()
    now = epoch_s(t)
    idt = jwt({"alg": "RS256", "kid": hx(16), "typ": "JWT"},
              {"iss": "https://juliahub.com/dex", "sub": b64u(24), "aud": "juliahub", "exp": now + 86400, "iat": now,
               "email": ctx.email, "email_verified": True})
    at, rt = rs(64, LALNUM), rs(64, LALNUM)
    content = "\n".join([
        "expires_at = %d" % (now + 86399),
        'id_token = "%s"' % M(idt),
        'access_token = "%s"' % M(at),
        'refresh_token = "%s"' % M(rt),
        "expires_in = 86399",
        'refresh_url = "https://juliahub.com/auth/renew/token.toml/v2/"',
        'user_email = "%s"' % ctx.email,
        'user_name = "%s"' % (ctx.first + ctx.last[:3])])
    return view(ctx, "%s/.julia/servers/juliahub.com/auth.toml" % ctx.home, content)


# Infrastructure as code, config management, builds and CI

def p_salt_cloud_providers_conf(ctx, i):
    ak, sec, do = aws_akia(), aws_secret(), dop_token()
    lin = rs(64, LALNUM)
    parts = ["%s-ec2:" % ctx.org, "  driver: ec2", "  id: '%s'" % ak, "  key: '%s'" % M(sec),
             "  private_key: /etc/salt/pki/cloud/%s.pem" % ctx.org, "  keyname: %s-salt" % ctx.org,
             "  securitygroup: default", "  location: %s" % pick(["us-east-1", "eu-west-1", "eu-central-1", "ap-southeast-2"]),
             "  ssh_interface: private_ips", ""]
    if i % 2 == 0:
        parts += ["do-%s:" % pick(["sfo3", "ams3", "fra1", "nyc3"]), "  driver: digitalocean",
                  "  personal_access_token: %s" % M(do), "  ssh_key_file: /etc/salt/pki/cloud/do",
                  "  ssh_key_names: salt-master", "  location: %s" % pick(["sfo3", "ams3", "fra1"])]
    else:
        parts += ["linode-main:", "  driver: linode", "  apikey: %s" % M(lin), "  password: '%s'" % M(pw_punct()),
                  "  ssh_pubkey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI%s salt@master" % rs(43, B64)]
    return view(ctx, "/etc/salt/cloud.providers.d/%s.conf" % pick(["providers", "aws", "cloud"]), "\n".join(parts),
                modes=["cat", "cat", "catn", "read", "bat"], styles=["root", "rhel", "bash"])


def p_chef_encrypted_data_bag_secret(ctx, i):
    sec = b64(512).replace("\n", "")
    if i % 2 == 0:
        ls = "\n".join(["total 24"] + ["%s 1 root root %4d %s %2d %02d:%02d %s" % (
            m, sz, MONTHS[ctx.t.month - 1], ctx.t.day, R.randint(0, 23), R.randint(0, 59), n) for m, sz, n in [
            ("drwxr-xr-x", 4096, "."), ("-rw-r--r--", R.randint(300, 700), "client.rb"),
            ("-rw-------", 684, "encrypted_data_bag_secret"), ("-rw-------", 1679, "client.pem"),
            ("drwxr-xr-x", 4096, "trusted_certs")]])
        return joinparts(run(ctx, "sudo ls -la /etc/chef", ls, frames=["prompt"], styles=["bash", "rhel"]),
                         run(ctx, "sudo cat /etc/chef/encrypted_data_bag_secret", M(sec), frames=["prompt"], styles=["bash", "rhel"]))
    ak, sk = aws_akia(), aws_secret()
    content = "\n".join([
        "current_dir = File.dirname(__FILE__)", "log_level                :info",
        "node_name                \"%s\"" % ctx.user, "client_key               \"#{current_dir}/%s.pem\"" % ctx.user,
        "chef_server_url          \"https://chef.%s/organizations/%s\"" % (ctx.dom, ctx.org),
        "cookbook_path            [\"#{current_dir}/../cookbooks\"]",
        "knife[:secret]           = \"%s\"" % M(sec),
        "knife[:aws_access_key_id]     = \"%s\"" % ak,
        "knife[:aws_secret_access_key] = \"%s\"" % M(sk)])
    return view(ctx, ".chef/config.rb", content)


def p_puppet_lookup_explain(ctx, i):
    key = pick(["profile::postgres::password", "profile::app::api_token", "profile::mysql::root_password",
                "profile::rabbitmq::admin_password", "profile::backup::s3_secret"])
    val = pw_any() if "token" not in key else gsk() if chance(0.3) else pw_alnum(32)
    node = "%s%02d.%s.internal" % (pick(["db", "app", "mq", "web"]), R.randint(1, 20), ctx.org)
    env = pick(["production", "staging"])
    if i % 2 == 0:
        out = "\n".join([
            'Searching for "lookup_options"', "  Global Data Provider (hiera configuration version 5)",
            '    No such key: "lookup_options"',
            'Searching for "%s"' % key,
            "  Global Data Provider (hiera configuration version 5)", '    No such key: "%s"' % key,
            "  Environment Data Provider (hiera configuration version 5)",
            '    Hierarchy entry "Per-node data"',
            '      Path "/etc/puppetlabs/code/environments/%s/data/nodes/%s.yaml"' % (env, node),
            '        Original path: "nodes/%{trusted.certname}.yaml"', "        Path not found",
            '    Hierarchy entry "Common data"',
            '      Path "/etc/puppetlabs/code/environments/%s/data/common.yaml"' % env,
            '        Original path: "common.yaml"',
            '        Found key: "%s" value: "%s"' % (key, M(val))])
        return run(ctx, "sudo puppet lookup %s --environment %s --node %s --explain" % (key, env, node), out,
                   styles=["root", "rhel", "bash"])
    return run(ctx, "sudo puppet lookup %s --node %s --render-as yaml" % (key, node), "--- %s" % M(val),
               styles=["root", "rhel", "bash"])


def p_cloudformation_parameters_deploy(ctx, i):
    dbpw, gh = pw_url(), gh_token()
    stack = "%s-%s" % (ctx.proj, pick(["prod", "staging", "dev"]))
    params = [{"ParameterKey": "Environment", "ParameterValue": stack.split("-")[-1]},
              {"ParameterKey": "DBMasterUsername", "ParameterValue": ctx.proj.replace("-", "")[:12]},
              {"ParameterKey": "DBMasterPassword", "ParameterValue": M(dbpw)},
              {"ParameterKey": "GitHubOAuthToken", "ParameterValue": M(gh)},
              {"ParameterKey": "VpcId", "ParameterValue": "vpc-" + hx(17)}]
    a = view(ctx, "params/%s.json" % stack.split("-")[-1], json.dumps(params, indent=2, ensure_ascii=False),
             modes=["cat", "catn", "read", "bat"])
    cmd = ("aws cloudformation deploy --template-file template.yaml --stack-name %s "
           "--capabilities CAPABILITY_NAMED_IAM --parameter-overrides Environment=%s "
           "DBMasterPassword=%s GitHubOAuthToken=%s") % (stack, stack.split("-")[-1], M(dbpw), M(gh))
    out = "\n".join(["", "Waiting for changeset to be created..", "Waiting for stack create/update to complete",
                     "Successfully created/updated stack - %s" % stack])
    if i % 2:
        return run(ctx, cmd, out)
    return joinparts(a, run(ctx, cmd, out, frames=["prompt"]))


def p_bicepparam_deploy(ctx, i):
    apw, sqlpw = pw_punct(), pw_alnum()
    rg = "rg-%s-%s" % (ctx.proj, pick(["prod", "dev", "test"]))
    srv = "sql-%s-%s" % (ctx.proj, hx(5))
    content = "\n".join([
        "using './main.bicep'", "",
        "param location = '%s'" % pick(["westeurope", "northeurope", "eastus2", "uksouth"]),
        "param vmName = 'vm-%s-01'" % ctx.proj,
        "param adminUsername = 'azureadmin'",
        "param adminPassword = '%s'" % M(apw),
        "param sqlConnection = 'Server=tcp:%s.database.windows.net,1433;Initial Catalog=%s;User ID=%s;Password=%s;Encrypt=True;'" % (
            srv, ctx.proj, ctx.first, M(sqlpw))])
    a = view(ctx, "infra/main.bicepparam", content, modes=["cat", "read", "catn"])
    if i % 2 == 0:
        return a
    cmd = "az deployment group create -g %s -f infra/main.bicep -p infra/main.bicepparam -p adminPassword='%s'" % (rg, M(apw))
    out = "\n".join(['{', '  "id": "/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Resources/deployments/main",' % (uuid4(), rg),
                     '  "location": null,', '  "name": "main",', '  "properties": {',
                     '    "correlationId": "%s",' % uuid4(), '    "provisioningState": "Succeeded",',
                     '    "timestamp": "%s"' % iso(ctx.tick(), 6), '  },', '  "resourceGroup": "%s"' % rg, '}'])
    return joinparts(a, run(ctx, cmd, out, frames=["prompt"]))


def p_crossplane_provider_secret(ctx, i):
    v = i % 3
    if v == 0:
        ak, sk = aws_akia(), aws_secret()
        creds = ["    [default]", "    aws_access_key_id = %s" % ak, "    aws_secret_access_key = %s" % M(sk)]
        pc = ["apiVersion: aws.upbound.io/v1beta1"]
    elif v == 1:
        proj = "%s-%s" % (ctx.org, digits(6))
        pem = rsa_pkcs8_pem().replace("\n", "\\n")
        sa = ('{"type": "service_account", "project_id": "%s", "private_key_id": "%s", '
              '"private_key": "%s\\n", "client_email": "crossplane@%s.iam.gserviceaccount.com", '
              '"client_id": "%s", "token_uri": "https://oauth2.googleapis.com/token"}') % (
            proj, hx(40), M(pem), proj, digits(21))
        creds = ["    " + sa]
        pc = ["apiVersion: gcp.upbound.io/v1beta1"]
    else:
        cs = azure_client_secret()
        creds = ["    {", '      "clientId": "%s",' % uuid4(), '      "clientSecret": "%s",' % M(cs),
                 '      "subscriptionId": "%s",' % uuid4(), '      "tenantId": "%s",' % uuid4(),
                 '      "activeDirectoryEndpointUrl": "https://login.microsoftonline.com",',
                 '      "resourceManagerEndpointUrl": "https://management.azure.com/"', "    }"]
        pc = ["apiVersion: azure.upbound.io/v1beta1"]
    content = "\n".join(["apiVersion: v1", "kind: Secret", "metadata:", "  name: %s-creds" % ["aws", "gcp", "azure"][v],
                         "  namespace: crossplane-system", "type: Opaque", "stringData:", "  credentials: |"] + creds +
                        ["---"] + pc + ["kind: ProviderConfig", "metadata:", "  name: default", "spec:"] +
                        (["  projectID: %s" % proj] if v == 1 else []) +
                        ["  credentials:", "    source: Secret", "    secretRef:", "      namespace: crossplane-system",
                         "      name: %s-creds" % ["aws", "gcp", "azure"][v], "      key: credentials"])
    return view(ctx, "platform/crossplane/providerconfig-%s.yaml" % ["aws", "gcp", "azure"][v], content)


def p_pulumi_yaml_program_literal(ctx, i):
    cf, zone = cf_token(), hx(32)
    lines = ["name: %s-edge" % ctx.proj, "runtime: yaml", "description: DNS and edge config for %s" % ctx.dom, "",
             "resources:", "  cf:", "    type: pulumi:providers:cloudflare", "    properties:",
             "      apiToken: %s" % M(cf)]
    if i % 2:
        lines += ["  gh:", "    type: pulumi:providers:github", "    properties:", "      owner: %s" % ctx.org,
                  "      token: %s" % M(gh_token())]
    lines += ["  apiRecord:", "    type: cloudflare:Record", "    properties:", "      zoneId: %s" % zone,
              "      name: api", "      type: CNAME", "      value: %s.fly.dev" % ctx.proj, "      proxied: true",
              "    options:", "      provider: ${cf}", "", "outputs:", "  hostname: ${apiRecord.hostname}"]
    return view(ctx, "Pulumi.yaml", "\n".join(lines))


def p_earthly_secret_file_cli(ctx, i):
    nt = npm_token()
    sn = uuid4()
    if i % 2 == 0:
        a = view(ctx, ".secret", "NPM_TOKEN=%s\nSNYK_TOKEN=%s\n" % (M(nt), M(sn)), modes=["cat", "read"])
        return a
    cmd = "earthly --secret NPM_TOKEN=%s --secret SNYK_TOKEN=%s +ci" % (M(nt), M(sn))
    dash = "\u2014" * 80
    out = "\n".join([" Init \U0001F680", dash, "",
                     "           buildkitd | Found buildkit daemon as docker container (earthly-buildkitd)", "",
                     " Build \U0001F527", dash, "",
                     "+deps | --> FROM node:20-alpine",
                     "+deps | --> COPY package.json package-lock.json ./",
                     "+deps | --> RUN --secret NPM_TOKEN npm ci",
                     "+deps | added %d packages, and audited %d packages in %ds" % (R.randint(300, 1400), R.randint(300, 1400), R.randint(5, 40)),
                     "+test | --> RUN npm test",
                     "+test | Tests:       %d passed, %d total" % (R.randint(40, 300), R.randint(40, 300)),
                     "+scan | --> RUN --secret SNYK_TOKEN snyk test --severity-threshold=high",
                     "+scan | \u2714 Tested %d dependencies for known issues, no vulnerable paths found." % R.randint(100, 900)])
    return run(ctx, cmd, out)


def p_bazelrc_buildbuddy_header(ctx, i):
    k = rs(20)
    lines = ["# Remote cache and BES via BuildBuddy",
             "build:remote --bes_results_url=https://%s.buildbuddy.io/invocation/" % ctx.org,
             "build:remote --bes_backend=grpcs://%s.buildbuddy.io" % ctx.org,
             "build:remote --remote_cache=grpcs://%s.buildbuddy.io" % ctx.org,
             "build:remote --remote_header=x-buildbuddy-api-key=%s" % M(k),
             "build:remote --remote_timeout=3600",
             "build:remote --experimental_remote_cache_compression",
             "build --config=remote"]
    if i % 2:
        tok = gh_token("ghp_")
        lines += ["", "# private module registry",
                  "common --registry=https://bcr.bazel.build",
                  "common --registry=https://x-access-token:%s@raw.githubusercontent.com/%s/bazel-registry/main" % (M(tok), ctx.org)]
    return view(ctx, pick([".bazelrc", ".bazelrc.user", "user.bazelrc"]), "\n".join(lines))


def p_nix_conf_cachix_dhall(ctx, i):
    if i % 2 == 0:
        gh, gl = gh_token(), glpat()
        content = "\n".join(["experimental-features = nix-command flakes",
                             "access-tokens = github.com=%s gitlab.com=PAT:%s" % (M(gh), M(gl)),
                             "substituters = https://cache.nixos.org https://%s.cachix.org" % ctx.org,
                             "trusted-public-keys = cache.nixos.org-1:6NCHdD59X431o0gWypbMrAURkbJ16ZPMQFGspcDShjY= %s.cachix.org-1:%s=" % (ctx.org, rs(43, B64)),
                             "netrc-file = %s/.config/nix/netrc" % ctx.home])
        return view(ctx, "~/.config/nix/nix.conf", content)
    t = ctx.tick()
    at = jwt({"alg": "HS256"}, {"jti": uuid4(), "scopes": "tx"})
    sk = b64(64)
    content = "\n".join(['{ authToken = "%s"' % M(at), ', hostname = "https://cachix.org"',
                         ', binaryCaches =', '  [ { name = "%s", secretKey = "%s" } ]' % (ctx.org, M(sk)), '}'])
    return view(ctx, "~/.config/cachix/cachix.dhall", content)


def p_kustomize_secret_generator(ctx, i):
    dbp, rp, ak = pw_alnum(), pw_url(), stripe_rk() if i % 2 else hx(40)
    name = "%s-secrets" % ctx.proj
    lit = ["secretGenerator:", "- name: %s" % name, "  literals:", "  - DB_PASSWORD=%s" % M(dbp),
           "  - REDIS_PASSWORD=%s" % M(rp), "  - %s=%s" % ("STRIPE_RESTRICTED_KEY" if i % 2 else "DD_API_KEY", M(ak))]
    kust = "\n".join(["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization",
                      "namespace: %s" % ctx.proj, "resources:", "- ../../base"] + lit)
    a = view(ctx, "overlays/prod/kustomization.yaml", kust, modes=["cat", "read", "catn"])
    suf = rs(10, "bcdfghkmt2456789")

    def e(s):
        return M(b64e(s.encode()))
    out = "\n".join(["apiVersion: v1", "data:", "  DB_PASSWORD: %s" % e(dbp),
                     "  %s: %s" % ("STRIPE_RESTRICTED_KEY" if i % 2 else "DD_API_KEY", e(ak)),
                     "  REDIS_PASSWORD: %s" % e(rp), "kind: Secret", "metadata:", "  name: %s-%s" % (name, suf),
                     "  namespace: %s" % ctx.proj, "type: Opaque"])
    return joinparts(a, run(ctx, "kustomize build overlays/prod | yq 'select(.kind == \"Secret\")'", out, frames=["prompt", "claude", "codex"]))


def p_skaffold_bake_build_args(ctx, i):
    if i % 2 == 0:
        nt = npm_token()
        content = "\n".join(["apiVersion: skaffold/v4beta11", "kind: Config", "metadata:", "  name: %s" % ctx.proj,
                             "build:", "  artifacts:", "    - image: ghcr.io/%s/%s" % (ctx.org, ctx.proj),
                             "      docker:", "        dockerfile: Dockerfile", "        buildArgs:",
                             "          NPM_TOKEN: %s" % M(nt), "          NODE_ENV: production",
                             "  local:", "    useBuildkit: true", "manifests:", "  rawYaml:", "    - k8s/*.yaml"])
        return view(ctx, "skaffold.yaml", content)
    gt = gh_token(pick(["ghp_", "ghs_"]))
    hcl = "\n".join(['group "default" {', '  targets = ["app"]', '}', '',
                     'target "app" {', '  context = "."', '  dockerfile = "Dockerfile"',
                     '  tags = ["ghcr.io/%s/%s:latest"]' % (ctx.org, ctx.proj),
                     '  args = {', '    GITHUB_TOKEN = "%s"' % M(gt), '    GO_VERSION = "1.22"', '  }', '}'])
    a = view(ctx, "docker-bake.hcl", hcl, modes=["cat", "read"])
    pr = json.dumps({"group": {"default": {"targets": ["app"]}}, "target": {"app": {
        "context": ".", "dockerfile": "Dockerfile", "args": {"GITHUB_TOKEN": M(gt), "GO_VERSION": "1.22"},
        "tags": ["ghcr.io/%s/%s:latest" % (ctx.org, ctx.proj)]}}}, indent=2, ensure_ascii=False)
    return joinparts(a, run(ctx, "docker buildx bake --print", pr, frames=["prompt"]))


def p_travis_yml_env_global(ctx, i):
    sq, cc, nt = "sqp_" + hx(40), uuid4(), npm_token()
    content = "\n".join(["language: node_js", "node_js:", "  - %d" % pick([18, 20, 22]), "dist: jammy",
                         "cache: npm", "env:", "  global:", "    - SONAR_TOKEN=%s" % M(sq),
                         "    - CODECOV_TOKEN=%s" % M(cc),
                         '    - secure: "%s"' % b64(256), "script:", "  - npm run lint", "  - npm test -- --coverage",
                         "  - npx sonar-scanner -Dsonar.organization=%s" % ctx.org,
                         "deploy:", "  provider: npm", "  email: %s" % ctx.email, "  api_token: %s" % M(nt),
                         "  on:", "    tags: true"])
    return view(ctx, ".travis.yml", content)


def p_bitbucket_pipelines_xtrace(ctx, i):
    pw = pw_punct()
    nexus = "nexus.%s" % ctx.dom
    ver = "%d.%d.%d" % (R.randint(0, 5), R.randint(0, 30), R.randint(0, 20))
    if i % 2 == 0:
        lines = ["+ umask 000", "+ GIT_LFS_SKIP_SMUDGE=1 retry 6 git clone --branch=\"%s\" --depth 50 https://x-token-auth:$REPOSITORY_OAUTH_ACCESS_TOKEN@bitbucket.org/$BITBUCKET_REPO_FULL_NAME.git $BUILD_DIR" % ctx.branch,
                 "Cloning into '/opt/atlassian/pipelines/agent/build'...",
                 "+ git reset --hard %s" % hx(40), "HEAD is now at %s %s" % (hx(7), pick(["bump version", "fix build", "release prep"])),
                 "+ npm pack", "%s-%s.tgz" % (ctx.proj, ver),
                 "+ curl -sS -u \"deployer:%s\" --upload-file %s-%s.tgz https://%s/repository/raw-releases/%s/%s-%s.tgz" % (
                     M(pw), ctx.proj, ver, nexus, ctx.proj, ctx.proj, ver),
                 "+ echo \"uploaded\"", "uploaded"]
    else:
        lines = ["+ docker build -t %s/%s:%s ." % (ctx.org, ctx.proj, hx(7)),
                 "#12 naming to docker.io/%s/%s done" % (ctx.org, ctx.proj), "#12 DONE 0.1s",
                 "+ docker login -u %s -p %s registry.%s" % (ctx.org, M(pw), ctx.dom),
                 "WARNING! Using --password via the CLI is insecure. Use --password-stdin.",
                 "WARNING! Your password will be stored unencrypted in /root/.docker/config.json.",
                 "Configure a credential helper to remove this warning. See",
                 "https://docs.docker.com/engine/reference/commandline/login/#credential-stores", "",
                 "Login Succeeded"]
    return run(ctx, "bb pipelines logs %d --step %s" % (R.randint(200, 4000), pick(["deploy", "publish", "release"])),
               "\n".join(lines), frames=["prompt", "claude", "codex", "codex_ran"])


def p_registry_publish_credentials(ctx, i):
    v = i % 5
    if v == 0:
        k = "oy2" + rs(43, LALNUM)
        pkg = "%s.%s" % (ctx.org.title(), pick(["Core", "Client", "Abstractions", "Http"]))
        ver = "%d.%d.%d" % (R.randint(1, 5), R.randint(0, 20), R.randint(0, 9))
        out = "\n".join(["Pushing %s.%s.nupkg to 'https://www.nuget.org/api/v2/package'..." % (pkg, ver),
                         "  PUT https://www.nuget.org/api/v2/package/",
                         "  Created https://www.nuget.org/api/v2/package/ %dms" % R.randint(400, 3000),
                         "Your package was pushed."])
        return run(ctx, "dotnet nuget push bin/Release/%s.%s.nupkg -k %s -s https://api.nuget.org/v3/index.json" % (pkg, ver, M(k)),
                   out, styles=["ps", "bash", "bare"])
    if v == 1:
        k = "rubygems_" + hx(48)
        return view(ctx, "~/.gem/credentials", "---\n:rubygems_api_key: %s" % M(k), modes=["cat", "read"])
    if v == 2:
        t = ctx.tick()
        at = "ya29." + rs(R.randint(150, 200), ALNUM + "-_")
        rt = "1//0" + rs(2, ALNUM) + "-" + rs(R.randint(90, 100), ALNUM + "-_")
        idt = jwt({"alg": "RS256", "kid": hx(40), "typ": "JWT"},
                  {"iss": "https://accounts.google.com", "azp": digits(12) + "-" + rs(32, LALNUM) + ".apps.googleusercontent.com",
                   "aud": digits(12) + "-" + rs(32, LALNUM) + ".apps.googleusercontent.com", "sub": digits(21),
                   "email": ctx.email, "email_verified": True, "iat": epoch_s(t), "exp": epoch_s(t) + 3600}, 256)
        data = {"accessToken": M(at), "refreshToken": M(rt), "idToken": M(idt),
                "tokenEndpoint": "https://accounts.google.com/o/oauth2/token",
                "scopes": ["openid", "https://www.googleapis.com/auth/userinfo.email"], "expiration": epoch_ms(t) + 3599000}
        p = "~/Library/Application\\ Support/dart/pub-credentials.json" if ctx.mac else "~/.config/dart/pub-credentials.json"
        return view(ctx, p, json.dumps(data, ensure_ascii=False), modes=["cat", "cat", "read"])
    if v == 3:
        k = hx(32)
        out = "\n".join(["Building %s %d.%d.%d" % (ctx.proj.replace("-", "_"), R.randint(0, 3), R.randint(0, 20), R.randint(0, 9)),
                         "  Dependencies:", "    jason ~> 1.4 (app: jason)", "    req ~> 0.4 (app: req)",
                         "  App: %s" % ctx.proj.replace("-", "_"), "  Licenses: Apache-2.0",
                         "Publishing package to public repository hexpm.", "Package published to https://hex.pm/packages/%s" % ctx.proj.replace("-", "_")])
        return run(ctx, "HEX_API_KEY=%s mix hex.publish --yes" % M(k), out)
    pw = pw_alnum()
    out = "\n".join(["Connecting to remote 'artifactory' with user '%s'" % ctx.user,
                     "Changed user of remote 'artifactory' from 'None' (anonymous) to '%s' (authenticated)" % ctx.user])
    return run(ctx, "conan remote login artifactory %s -p %s" % (ctx.user, M(pw)), out)


# Desktop, mobile and editors

def tauri_secret_key():
    inner = "untrusted comment: rsign encrypted secret key\n" + b64e(b"EdScB2" + ubytes(152)) + "\n"
    return b64e(inner.encode())


def minisign_pub(comment="minisign public key"):
    keyid = ubytes(8)
    inner = "untrusted comment: %s: %s\n%s\n" % (comment, keyid[::-1].hex().upper(), b64e(b"Ed" + keyid + ubytes(32)))
    return b64e(inner.encode())


def p_tauri_signer_generate(ctx, i):
    key, pw = tauri_secret_key(), pw_words()
    app = ctx.proj
    kp = "%s/.tauri/%s.key" % (ctx.home, app)
    if i % 2 == 0:
        gen = "\n".join(["Please enter a password to protect the secret key.", "Password: ", "Password (one more time): ",
                         "Deriving a key from the password in order to encrypt the secret key... done", "",
                         "Your keypair was generated successfully", "Private: %s (Keep it secret!)" % kp,
                         "Public: %s.pub" % kp, "---------------------------", "",
                         "Environment variables used to sign:",
                         "`TAURI_SIGNING_PRIVATE_KEY`  Path or String of your private key",
                         "`TAURI_SIGNING_PRIVATE_KEY_PASSWORD`  Your private key password (optional)", "",
                         "ATTENTION: If you lose your private key OR password, you'll not be able to sign your update package and updates will not work.",
                         "---------------------------"])
        return joinparts(run(ctx, "npm run tauri signer generate -- -w %s" % kp, gen, frames=["prompt"]),
                         run(ctx, "cat %s" % kp, M(key), frames=["prompt", "claude", "codex"]))
    content = "\n".join(["# release signing (do not commit)", "TAURI_SIGNING_PRIVATE_KEY=%s" % M(key),
                         'TAURI_SIGNING_PRIVATE_KEY_PASSWORD="%s"' % M(pw),
                         "TAURI_UPDATER_PUBKEY=%s" % minisign_pub(),
                         "APPLE_ID=%s" % ctx.email, "APPLE_TEAM_ID=%s" % rs(10, UALNUM)])
    return view(ctx, "src-tauri/.env.release", content)


def p_vscode_settings_sqltools_restclient(ctx, i):
    dbpw, tok = pw_any(), pick([jwt_user(ctx.t, "https://auth.%s" % ctx.dom), gh_token(), "lin_api_" + rs(40)])
    lines = ["{", '    "editor.formatOnSave": true,', '    "files.trimTrailingWhitespace": true,',
             '    "sqltools.connections": [', "        {", '            "previewLimit": 50,',
             '            "server": "%s",' % pick(["db.%s" % ctx.dom, "localhost", ip_priv()]),
             '            "port": %d,' % pick([5432, 3306]), '            "driver": "%s",' % pick(["PostgreSQL", "MySQL"]),
             '            "name": "%s-%s",' % (ctx.proj, pick(["prod-ro", "staging", "replica"])),
             '            "database": "%s",' % ctx.proj.replace("-", "_"), '            "username": "%s",' % pick(["readonly", ctx.first, "app"]),
             '            "password": "%s"' % M(dbpw), "        }", "    ],",
             '    "rest-client.environmentVariables": {', '        "$shared": {', '            "version": "v2"', "        },",
             '        "staging": {', '            "baseUrl": "https://staging-api.%s",' % ctx.dom,
             '            "token": "%s"' % M(tok), "        }", "    },",
             '    // "python.defaultInterpreterPath": ".venv/bin/python",',
             '    "terminal.integrated.fontSize": %d' % R.randint(11, 15), "}"]
    return view(ctx, ".vscode/settings.json", "\n".join(lines))


def p_idea_workspace_runconfig_env(ctx, i):
    pw, sk = pw_alnum(), stripe_sk("test") if i % 2 else stripe_sk()
    cls = "com.%s.%s.Application" % (ctx.org, ctx.proj.replace("-", ""))
    extra = M(sendgrid()) if i % 3 == 0 else M(hx(32))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<project version="4">',
             '  <component name="ProjectId" id="%s" />' % rs(27),
             '  <component name="RunManager" selected="Spring Boot.Application">',
             '    <configuration name="Application" type="SpringBootApplicationConfigurationType" factoryName="Spring Boot">',
             '      <option name="ACTIVE_PROFILES" value="local" />',
             '      <envs>',
             '        <env name="SPRING_DATASOURCE_URL" value="jdbc:postgresql://localhost:5432/%s" />' % ctx.proj.replace("-", "_"),
             '        <env name="SPRING_DATASOURCE_PASSWORD" value="%s" />' % M(pw),
             '        <env name="STRIPE_SECRET_KEY" value="%s" />' % M(sk),
             '        <env name="%s" value="%s" />' % ("SENDGRID_API_KEY" if i % 3 == 0 else "MAILCHIMP_TX_KEY", extra),
             '      </envs>',
             '      <module name="%s.main" />' % ctx.proj,
             '      <option name="SPRING_BOOT_MAIN_CLASS" value="%s" />' % cls,
             '      <method v="2">', '        <option name="Make" enabled="true" />', '      </method>',
             '    </configuration>', '  </component>', '</project>']
    return view(ctx, ".idea/workspace.xml", "\n".join(lines), modes=["cat", "read", "sed", "catn"])


def p_filezilla_sitemanager_xml(ctx, i):
    pws = [pw_punct() for _ in range(2)]
    servers = []
    for n, pw in enumerate(pws):
        enc = b64e(pw.encode())
        servers += ["\t\t<Server>", "\t\t\t<Host>%s</Host>" % pick(["ftp.%s" % ctx.dom, "sftp.%s" % ctx.dom, ip_pub()]),
                    "\t\t\t<Port>%d</Port>" % [21, 22][n], "\t\t\t<Protocol>%d</Protocol>" % [0, 1][n], "\t\t\t<Type>0</Type>",
                    "\t\t\t<User>%s</User>" % pick(["deploy", ctx.first, "www-data", ctx.org]),
                    '\t\t\t<Pass encoding="base64">%s</Pass>' % M(enc), "\t\t\t<Logontype>1</Logontype>",
                    "\t\t\t<PasvMode>MODE_DEFAULT</PasvMode>", "\t\t\t<EncodingType>Auto</EncodingType>",
                    "\t\t\t<BypassProxy>0</BypassProxy>", "\t\t\t<Name>%s %s</Name>" % (ctx.proj, ["prod", "staging"][n]),
                    "\t\t\t<SyncBrowsing>0</SyncBrowsing>", "\t\t\t<DirectoryComparison>0</DirectoryComparison>", "\t\t</Server>"]
    content = "\n".join(['<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>',
                         '<FileZilla3 version="3.%d.%d" platform="%s">' % (R.randint(60, 68), R.randint(0, 5), pick(["windows", "mac", "linux"])),
                         "\t<Servers>"] + servers + ["\t</Servers>", "</FileZilla3>"])
    p = pick(["~/.config/filezilla/sitemanager.xml", "%APPDATA%/FileZilla/sitemanager.xml"])
    a = view(ctx, p if "~" in p else '"$APPDATA/FileZilla/sitemanager.xml"', content, modes=["cat", "read", "catn"])
    if i % 2:
        enc = b64e(pws[0].encode())
        a = joinparts(a, run(ctx, "echo '%s' | base64 -d" % M(enc), M(pws[0]), frames=["prompt"]))
    return a


def p_codesign_p12_base64_env(ctx, i):
    v = i % 3
    if v == 0:
        blob = b64e(bytes.fromhex("30820a9f02010330820a6506092a864886f70d010701a0820a5604820a5230820a4e3082") + ubytes(R.randint(600, 900)))
        pw1, pw2 = pw_alnum(), pw_alnum()
        lines = ["MACOS_CERTIFICATE=%s" % M(blob), "MACOS_CERTIFICATE_PWD=%s" % M(pw1),
                 "MACOS_CERTIFICATE_NAME=\"Developer ID Application: %s Ltd (%s)\"" % (ctx.org.title(), rs(10, UALNUM)),
                 "KEYCHAIN_PASSWORD=%s" % M(pw2)]
    elif v == 1:
        alias = ctx.proj.replace("-", "") + "-upload"
        jks = (b"\xfe\xed\xfe\xed" + (2).to_bytes(4, "big") + (1).to_bytes(4, "big") + (1).to_bytes(4, "big") +
               len(alias).to_bytes(2, "big") + alias.encode() + epoch_ms(ctx.t).to_bytes(8, "big") + ubytes(R.randint(600, 900)))
        pw1, pw2 = pw_alnum(), pw_alnum()
        lines = ["ANDROID_KEYSTORE_BASE64=%s" % M(b64e(jks)), "ANDROID_KEYSTORE_PASSWORD=%s" % M(pw1),
                 "ANDROID_KEY_ALIAS=%s" % alias, "ANDROID_KEY_PASSWORD=%s" % M(pw2)]
    else:
        blob = b64e(bytes.fromhex("308209ff020103308209b506092a864886f70d010701a08209a6048209a2308209") + ubytes(R.randint(600, 900)))
        pw1 = pw_punct()
        lines = ["WINDOWS_CERT_PFX_BASE64=%s" % M(blob), "WINDOWS_CERT_PASSWORD=%s" % M(pw1),
                 "WINDOWS_TIMESTAMP_URL=http://timestamp.digicert.com"]
    if i >= 3:
        name, val = lines[1].split("=", 1)
        out = "\u2713 Set Actions secret %s for %s/%s" % (name, ctx.org, ctx.proj)
        return run(ctx, "gh secret set %s --body '%s'" % (name, val), out)
    return view(ctx, pick([".env.signing", "signing.env", ".secrets/release.env"]), "\n".join(lines), modes=["cat", "read", "head"])


# Databases, brokers and data platforms

def p_flyway_conf_and_cli(ctx, i):
    pw = pw_url()
    db = ctx.proj.replace("-", "_")
    host = pick(["db.internal", "localhost", ip_priv(), "%s.cluster-%s.eu-west-1.rds.amazonaws.com" % (ctx.proj, rs(12, LALNUM))])
    v = i % 3
    if v == 0:
        content = "\n".join(["flyway.url=jdbc:postgresql://%s:5432/%s" % (host, db), "flyway.user=flyway",
                             "flyway.password=%s" % M(pw), "flyway.schemas=public", "flyway.locations=filesystem:sql",
                             "flyway.baselineOnMigrate=true"])
        return view(ctx, "conf/flyway.conf", content)
    if v == 1:
        cmd = "flyway -url=jdbc:postgresql://%s:5432/%s -user=flyway -password=%s info" % (host, db, M(pw))
        rows = ["| Versioned | %-7s | %-24s | SQL  | %s | Success | No       |" % (str(n + 1), d, sqlts(ctx.tick(3000, 90000)))
                for n, d in enumerate(["init", "add users", "add orders", "index orders email"])]
        out = "\n".join(["Flyway OSS Edition 10.%d.%d by Redgate" % (R.randint(8, 20), R.randint(0, 3)), "",
                         "See release notes here: https://rd.gt/416ObMi",
                         "Database: jdbc:postgresql://%s:5432/%s (PostgreSQL 16.%d)" % (host, db, R.randint(1, 4)),
                         "Schema version: 4", "",
                         "+-----------+---------+--------------------------+------+---------------------+---------+----------+",
                         "| Category  | Version | Description              | Type | Installed On        | State   | Undoable |",
                         "+-----------+---------+--------------------------+------+---------------------+---------+----------+"] +
                        rows + ["+-----------+---------+--------------------------+------+---------------------+---------+----------+"])
        return run(ctx, cmd, out)
    content = "\n".join(["changeLogFile: db/changelog/db.changelog-master.yaml",
                         "url: jdbc:sqlserver://%s:1433;databaseName=%s;encrypt=true;trustServerCertificate=true" % (host, db),
                         "username: liquibase", "password: %s" % M(pw), "liquibase.hub.mode: off"])
    return view(ctx, "liquibase.properties", content)


def p_sql_dump_settings_inserts(ctx, i):
    sk, mg, tw = stripe_sk(), mailgun_key(), hx(32)
    t = ctx.tick()
    if i % 2 == 0:
        out = "\n".join(["-- MySQL dump 10.13  Distrib 8.0.%d, for Linux (x86_64)" % R.randint(30, 40), "--",
                         "-- Host: 127.0.0.1    Database: %s" % ctx.proj.replace("-", "_"),
                         "-- ------------------------------------------------------", "-- Server version\t8.0.%d" % R.randint(30, 40), "",
                         "--", "-- Dumping data for table `integrations`", "--", "",
                         "LOCK TABLES `integrations` WRITE;", "/*!40000 ALTER TABLE `integrations` DISABLE KEYS */;",
                         "INSERT INTO `integrations` VALUES (1,'stripe','%s','%s'),(2,'mailgun','%s','%s'),(3,'twilio','%s','%s');" % (
                             M(sk), sqlts(t), M(mg), sqlts(t), M(tw), sqlts(t)),
                         "/*!40000 ALTER TABLE `integrations` ENABLE KEYS */;", "UNLOCK TABLES;"])
        return run(ctx, "grep -A6 'Dumping data for table `integrations`' backups/%s-%s.sql" % (ctx.proj, ymd(t, "")), "\n".join(out.split("\n")[7:14]),
                   frames=["prompt", "claude", "codex"]) if chance(0.4) else view(ctx, "backups/%s-%s.sql" % (ctx.proj, ymd(t, "")), out, modes=["head", "sed"])
    pw = pw_alnum()
    out = "\n".join(["--", "-- Data for Name: app_settings; Type: TABLE DATA; Schema: public; Owner: %s" % ctx.proj.replace("-", "_"), "--", "",
                     "COPY public.app_settings (id, key, value, updated_at) FROM stdin;",
                     "1\tsmtp_host\tsmtp.mailgun.org\t%s" % sqlts(t),
                     "2\tsmtp_password\t%s\t%s" % (M(pw), sqlts(t)),
                     "3\tstripe_secret_key\t%s\t%s" % (M(sk), sqlts(t)),
                     "4\tfeature_flags\t{\"beta\": true}\t%s" % sqlts(t), "\\.", ""])
    return run(ctx, "sed -n '/COPY public.app_settings/,/^\\\\./p' dump.sql", out, frames=["prompt", "claude", "codex", "gemini"])


def p_broker_cli_user_passwords(ctx, i):
    v = i % 5
    pw = pw_punct() if v != 0 else pw_alnum()
    if v == 0:
        cmd = "mosquitto_pub -h mqtt.%s -p 8883 --cafile ca.crt -u sensor-gw -P '%s' -t 'plant/%d/temp' -m '{\"t\":%d.%d}' -d" % (
            ctx.dom, M(pw), R.randint(1, 9), R.randint(15, 30), R.randint(0, 9))
        out = "\n".join(["Client null sending CONNECT", "Client null received CONNACK (0)",
                         "Client null sending PUBLISH (d0, q0, r0, m1, 'plant/3/temp', ... (11 bytes))",
                         "Client null sending DISCONNECT"])
    elif v == 1:
        u = "svc-%s" % ctx.proj
        cmd = "sudo rabbitmqctl add_user %s '%s'" % (u, M(pw))
        out = "\n".join(['Adding user "%s" ...' % u,
                         "Done. Don't forget to grant the user permissions to some virtual hosts! See 'rabbitmqctl help set_permissions' to learn more."])
    elif v == 2:
        cmd = "./bin/artemis producer --user admin --password '%s' --url tcp://%s:61616 --message-count 10 --destination queue://orders" % (M(pw), ctx.ip)
        out = "\n".join(["Connection brokerURL = tcp://%s:61616" % ctx.ip, "Producer ActiveMQQueue[orders], thread=0 Started to calculate elapsed time ...",
                         "", "Producer ActiveMQQueue[orders], thread=0 Produced: 10 messages",
                         "Producer ActiveMQQueue[orders], thread=0 Elapsed time in second : 0 s",
                         "Producer ActiveMQQueue[orders], thread=0 Elapsed time in milli second : %d milli seconds" % R.randint(20, 300)])
    elif v == 3:
        cmd = "nats pub --server nats://%s:4222 --user %s --password '%s' orders.created '{\"id\":%d}'" % (ip_priv(), ctx.proj, M(pw), R.randint(1000, 99999))
        out = "%s Published %d bytes to \"orders.created\"" % (hms(ctx.tick()), R.randint(10, 20))
    else:
        cmd = "rabbitmqadmin -H %s -u admin -p '%s' declare user name=%s password='%s' tags=monitoring" % (
            ip_priv(), M(pw), ctx.first, M(pw2 := pw_alnum()))
        out = "user declared"
    return run(ctx, cmd, out)


def p_nosql_cli_credentials(ctx, i):
    v = i % 5
    pw = pw_any()
    if v == 0:
        h = ip_priv()
        out = "\n".join(["Warning: Using a password on the command line interface can be insecure.",
                         "Recommendation: use the credentials file to securely provide the password.", "",
                         "Connected to %s at %s:9042" % (ctx.proj, h),
                         "[cqlsh 6.1.0 | Cassandra 4.1.%d | CQL spec 3.4.6 | Native protocol v5]" % R.randint(3, 6),
                         "Use HELP for help.", "cassandra@cqlsh> "])
        return run(ctx, "cqlsh -u cassandra -p '%s' %s" % (M(pw), h), out)
    if v == 1:
        return view(ctx, "~/.cassandra/cqlshrc", "\n".join(["[authentication]", "username = %s" % ctx.first, "password = %s" % M(pw), "",
                                                           "[connection]", "hostname = %s" % ip_priv(), "port = 9042", "ssl = true"]))
    if v == 2:
        cmd = "docker run -d --name neo4j -p 7474:7474 -p 7687:7687 -e NEO4J_AUTH=neo4j/%s neo4j:5.%d" % (M(pw), R.randint(15, 20))
        return joinparts(run(ctx, cmd, hx(64), frames=["prompt"]),
                         run(ctx, "cypher-shell -a neo4j://localhost:7687 -u neo4j -p '%s' 'RETURN 1 AS ok;'" % M(pw),
                             "+----+\n| ok |\n+----+\n| 1  |\n+----+\n\n1 row\nready to start consuming query after %d ms, results consumed after another %d ms" % (R.randint(1, 40), R.randint(1, 9)),
                             frames=["prompt"]))
    if v == 3:
        eps = ",".join("https://%s:2379" % ip_priv() for _ in range(3))
        out = "\n".join(["/registry/%s/%s" % (k, n) for k, n in [("configmaps", "kube-system/coredns"), ("leases", "kube-node-lease/node-a"),
                                                                 ("secrets", "default/%s-tls" % ctx.proj)]])
        return run(ctx, "ETCDCTL_API=3 etcdctl --endpoints=%s --user root:%s get /registry --prefix --keys-only --limit 3" % (eps, M(pw)), out)
    out = "\n".join([" Connected to : http://%s:8091/. Type Ctrl-D or \\QUIT to exit." % ctx.ip, "",
                     " Path to history file for the shell : %s/.cbq_history " % ctx.home])
    return run(ctx, "cbq -e couchbase://%s -u Administrator -p '%s'" % (ctx.ip, M(pw)), out)


def p_snowflake_databricks_cfg(ctx, i):
    v = i % 3
    acct = "%s-%s" % (rs(7, UPPER), rs(7, UPPER))
    if v == 0:
        pw = pw_punct()
        content = "\n".join(["[connections.default]", 'account = "%s"' % acct, 'user = "%s"' % ctx.user.upper(),
                             'password = "%s"' % M(pw), 'warehouse = "COMPUTE_WH"', 'database = "%s"' % ctx.proj.upper().replace("-", "_"),
                             'schema = "PUBLIC"', 'role = "TRANSFORMER"'])
        return view(ctx, "~/.snowflake/connections.toml", content)
    if v == 1:
        pw = pw_alnum()
        content = "\n".join(["[connections]", "accountname = %s" % acct, "username = %s" % ctx.user, "password = %s" % M(pw),
                             "dbname = analytics", "warehousename = REPORTING_WH", "", "[options]", "log_level = INFO"])
        return view(ctx, "~/.snowsql/config", content)
    t1, t2 = "dapi" + hx(32), "dapi" + hx(32) + "-2"
    ws = digits(16)
    content = "\n".join(["[DEFAULT]", "host  = https://adb-%s.%d.azuredatabricks.net" % (ws, R.randint(1, 19)), "token = %s" % M(t1), "",
                         "[staging]", "host  = https://%s-staging.cloud.databricks.com" % ctx.org, "token = %s" % M(t2),
                         "jobs-api-version = 2.1"])
    return view(ctx, "~/.databrickscfg", content)


# Observability agents and backups

def glc_token(ctx):
    pl = {"o": digits(6), "n": "stack-%s-%s-write" % (digits(6), pick(["logs", "metrics", "traces"])), "k": rs(24),
          "m": {"r": pick(["prod-us-east-0", "prod-eu-west-2", "prod-ap-southeast-1"])}}
    return "glc_" + b64e(json.dumps(pl, separators=(",", ":")).encode()).rstrip("=")


def p_fluent_bit_newrelic_outputs(ctx, i):
    v = i % 4
    if v == 3:
        lk = hx(36) + "NRAL"
        content = "\n".join(["license_key: %s" % M(lk), "display_name: %s" % ctx.host, "log:", "  level: info",
                             "custom_attributes:", "  environment: %s" % pick(["production", "staging"]), "  team: %s" % ctx.org])
        return view(ctx, "/etc/newrelic-infra.yml", content, styles=["root", "rhel"])
    out = ["[SERVICE]", "    Flush        5", "    Log_Level    info", "    Parsers_File parsers.conf", "",
           "[INPUT]", "    Name         tail", "    Path         /var/log/containers/*.log", "    Tag          kube.*", ""]
    if v == 0:
        pw = pw_alnum()
        out += ["[OUTPUT]", "    Name            es", "    Match           kube.*", "    Host            %s" % pick(["es.%s" % ctx.dom, ip_priv()]),
                "    Port            9200", "    HTTP_User       fluentbit", "    HTTP_Passwd     %s" % M(pw), "    tls             On",
                "    Suppress_Type_Name On"]
    elif v == 1:
        out += ["[OUTPUT]", "    Name            splunk", "    Match           *", "    Host            splunk-hec.%s" % ctx.dom,
                "    Port            8088", "    Splunk_Token    %s" % M(uuid4()), "    TLS             On", "    TLS.Verify      Off"]
    else:
        out += ["[OUTPUT]", "    Name            loki", "    Match           *",
                "    Host            logs-prod-%03d.grafana.net" % R.randint(1, 30), "    Port            443", "    tls             on",
                "    http_user       %s" % digits(6), "    http_passwd     %s" % M(glc_token(ctx)), "    labels          job=fluent-bit,host=%s" % ctx.host]
    return view(ctx, "/etc/fluent-bit/fluent-bit.conf", "\n".join(out), styles=["root", "rhel", "bash"])


def p_borgmatic_velero_creds(ctx, i):
    v = i % 3
    if v == 0:
        pp = pw_words()
        content = "\n".join(["source_directories:", "    - /etc", "    - /home", "    - /var/lib/%s" % ctx.proj, "",
                             "repositories:", "    - path: ssh://%s@%s.repo.borgbase.com/./repo" % (rs(8, LALNUM), rs(8, LALNUM)),
                             "      label: borgbase", "",
                             "encryption_passphrase: \"%s\"" % M(pp), "compression: zstd,6", "",
                             "keep_daily: 7", "keep_weekly: 4", "keep_monthly: 6"])
        return view(ctx, "/etc/borgmatic/config.yaml", content, styles=["root", "rhel"])
    if v == 1:
        ak, sk = aws_akia(), aws_secret()
        a = view(ctx, "credentials-velero", "[default]\naws_access_key_id=%s\naws_secret_access_key=%s" % (ak, M(sk)),
                 modes=["cat", "read"])
        out = "\n".join(["CustomResourceDefinition/backuprepositories.velero.io: attempting to create resource",
                         "CustomResourceDefinition/backuprepositories.velero.io: created",
                         "Namespace/velero: created", "Secret/velero/cloud-credentials: created",
                         "Deployment/velero: created",
                         "Velero is installed! \u26f5 Use 'kubectl logs deployment/velero -n velero' to view the status."])
        return joinparts(a, run(ctx, "velero install --provider aws --plugins velero/velero-plugin-for-aws:v1.9.%d --bucket %s-velero --secret-file ./credentials-velero --backup-location-config region=eu-west-1" % (
            R.randint(0, 2), ctx.org), out, frames=["prompt"]))
    ak, sk, pw = aws_akia(), aws_secret(), pw_punct()
    out = "\n".join(["Connected to repository.", "", "NOTICE: Kopia will check for updates on GitHub every 7 days, starting 24 hours after first use.",
                     "To disable this behavior, set environment variable KOPIA_CHECK_FOR_UPDATES=false",
                     "Alternatively you can remove the file \"%s/.config/kopia/repository.config.update-info.json\"." % ctx.home])
    return run(ctx, "kopia repository connect s3 --bucket=%s-backups --access-key=%s --secret-access-key=%s --password='%s'" % (
        ctx.org, ak, M(sk), M(pw)), out)


# Password managers and secret stores

def p_bitwarden_export_json(ctx, i):
    fid = uuid4()
    items = []
    for n in range(2):
        t = ctx.tick(3600, 900000)
        pw = pw_any()
        totp = rs(32, B32) if n == 0 or chance(0.5) else None
        login = {"fido2Credentials": [], "uris": [{"match": None, "uri": "https://%s.%s/login" % (pick(["console", "admin", "app"]), ctx.dom)}],
                 "username": pick([ctx.email, "admin", "root", ctx.first]), "password": M(pw), "totp": M(totp) if totp else None}
        it = {"passwordHistory": None, "revisionDate": iso(t, 3), "creationDate": iso(t, 3), "deletedDate": None,
              "id": uuid4(), "organizationId": None, "folderId": fid, "type": 1, "reprompt": 0,
              "name": pick(["AWS root", "Grafana admin", "Cloudflare", "Registrar", "Prod DB", "Hetzner", "Mailgun"]),
              "notes": None, "favorite": False, "login": login, "collectionIds": None}
        if n == 1:
            it["fields"] = [{"name": "API key", "value": M(pick([hx(40), cf_token(), "dop_v1_" + hx(64)])), "type": 1, "linkedId": None}]
        items.append(it)
    out = json.dumps(items, indent=2, ensure_ascii=False)
    return run(ctx, "bw export --raw --format json | jq '.items[:2]'", out)


def p_keepassxc_show_and_pass(ctx, i):
    pw = pw_any()
    v = i % 3
    if v == 0:
        out = "\n".join(["Enter password to unlock %s/vault.kdbx: " % ctx.home, "Title: %s-prod-db" % ctx.proj,
                         "UserName: %s" % pick(["postgres", "admin", ctx.proj.replace("-", "_")]), "Password: %s" % M(pw),
                         "URL: postgres://%s:5432" % ip_priv(), "Notes: rotated %s" % ymd(ctx.t), "Tags: infra"])
        return run(ctx, "keepassxc-cli show -s ~/vault.kdbx 'Infra/%s-prod-db'" % ctx.proj, out)
    if v == 1:
        out = "\n".join([M(pw), "login: %s" % ctx.email, "url: https://%s" % ctx.dom, "otpauth://totp/%s:%s?secret=%s&issuer=%s" % (
            ctx.org, ctx.first, M(rs(32, B32)), ctx.org)])
        return run(ctx, "pass show %s/%s" % (ctx.org, pick(["aws-root", "registrar", "cloudflare", "github-admin"])), out)
    path = "%s/%s/%s" % (ctx.org, pick(["ops", "infra"]), pick(["smtp", "sentry", "db"]))
    out = "\n".join(["Secret: %s" % path, "", M(pw), "---", "user: %s" % ctx.first, "host: %s" % ip_priv()])
    return run(ctx, "gopass show %s" % path, out)


def p_cloud_secret_manager_value(ctx, i):
    v = i % 5
    if v == 0:
        pw = pw_any()
        kv = "kv-%s-%s" % (ctx.proj, hx(4))
        name = pick(["db-password", "redis-password", "smtp-password"])
        out = json.dumps({"attributes": {"created": iso(ctx.t, 0, "+00:00"), "enabled": True, "expires": None, "notBefore": None,
                                          "recoverableDays": 90, "recoveryLevel": "Recoverable", "updated": iso(ctx.t, 0, "+00:00")},
                          "contentType": None, "id": "https://%s.vault.azure.net/secrets/%s/%s" % (kv, name, hx(32)),
                          "kid": None, "managed": None, "name": name, "tags": {}, "value": M(pw)}, indent=2, ensure_ascii=False)
        return run(ctx, "az keyvault secret show --vault-name %s --name %s" % (kv, name), out)
    if v == 1:
        pem = ec_pem() if chance(0.5) else rsa_pkcs1_pem()
        return run(ctx, "gcloud secrets versions access latest --secret=%s-tls-key --project=%s-%s" % (ctx.proj, ctx.org, pick(["prod", "platform"])), M(pem),
                   frames=["prompt", "prompt", "codex", "codex_ts"])
    if v == 2:
        val = pw_any()
        t = ctx.tick()
        out = json.dumps({"Parameter": {"Name": "/%s/prod/DB_PASSWORD" % ctx.proj, "Type": "SecureString", "Value": M(val),
                                        "Version": R.randint(1, 9), "LastModifiedDate": "%s.%03d000+00:00" % (iso(t, 0, ""), R.randint(0, 999)),
                                        "ARN": "arn:aws:ssm:eu-west-1:%s:parameter/%s/prod/DB_PASSWORD" % (digits(12), ctx.proj),
                                        "DataType": "text"}}, indent=4, ensure_ascii=False)
        return run(ctx, "aws ssm get-parameter --name /%s/prod/DB_PASSWORD --with-decryption" % ctx.proj, out)
    if v == 3:
        ak, sk = aws_akia(), aws_secret()
        out = json.dumps({"access_key_id": ak, "secret_access_key": M(sk), "bucket": "%s-exports" % ctx.org}, ensure_ascii=False)
        return run(ctx, "gcloud secrets versions access 3 --secret=s3-export-creds", out)
    tok = pick([gh_token(), sk_proj(), slack_xoxb()])
    return run(ctx, "az keyvault secret show --vault-name kv-%s --name %s --query value -o tsv" % (ctx.org, pick(["gh-token", "openai-key", "slack-bot"])), M(tok))


# Network devices and Windows hosts

CISCO_XLAT = "dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87"


def cisco7(pw):
    seed = R.randint(0, 15)
    return "%02d" % seed + "".join("%02X" % (ord(c) ^ ord(CISCO_XLAT[(seed + n) % len(CISCO_XLAT)])) for n, c in enumerate(pw))


def cisco9():
    return "$9$" + rs(14, CRYPT64) + "$" + rs(43, CRYPT64)


def p_cisco_running_config_keys(ctx, i):
    host = "%s-%s-%02d" % (pick(["edge", "core", "dist", "branch"]), pick(["rtr", "sw", "fw"]), R.randint(1, 40))
    bpw, tkey, vty, comm = pw_alnum(12), pw_alnum(16), pw_alnum(10), pw_url(14)
    t = ctx.tick()
    lines = ["Building configuration...", "", "Current configuration : %d bytes" % R.randint(4000, 16000), "!",
             "! Last configuration change at %s UTC %s %s %d %d by netops" % (hms(t), WDAYS[t.weekday()], MONTHS[t.month - 1], t.day, t.year),
             "!", "version 17.%d" % R.randint(3, 12), "service timestamps debug datetime msec",
             "service timestamps log datetime msec", "service password-encryption", "!", "hostname %s" % host, "!",
             "enable secret 9 %s" % cisco9(), "!",
             "username netops privilege 15 secret 9 %s" % cisco9(),
             "username backup privilege 1 password 7 %s" % M(cisco7(bpw)), "!", "aaa new-model", "!",
             "tacacs server ISE-1", " address ipv4 %s" % ip_priv(), " key 7 %s" % M(cisco7(tkey)), "!",
             "snmp-server community %s RO 99" % M(comm), "snmp-server location %s" % pick(["DC1 row 4", "HQ IDF-2", "Branch 12"]), "!",
             "line vty 0 4", " password 7 %s" % M(cisco7(vty)), " transport input ssh", "!", "end"]
    if i % 2:
        lines = lines[:16] + lines[17:]
    return run(ctx, "ssh netops@%s 'show running-config'" % host, "\n".join(lines), frames=["prompt", "claude", "codex", "codex_ran"])


def p_routeros_export_sensitive(ctx, i):
    t = ctx.tick()
    psk, vpn, ips, adm = pw_words(), pw_alnum(14), pw_url(32), pw_punct()
    lines = ["# %s by RouterOS 7.%d.%d" % (sqlts(t), R.randint(11, 16), R.randint(0, 3)),
             "# software id = %s-%s" % (rs(4, UALNUM), rs(4, UALNUM)), "#",
             "# model = %s" % pick(["RB5009UG+S+", "CCR2004-1G-12S+2XS", "hAP ax^3", "RB4011iGS+"]),
             "# serial number = %s" % rs(12, UALNUM),
             "/interface wireless security-profiles",
             "set [ find default=yes ] supplicant-identity=MikroTik",
             "add authentication-types=wpa2-psk mode=dynamic-keys name=office supplicant-identity=\"\" wpa2-pre-shared-key=%s" % M(psk),
             "/ppp secret", "add name=vpn-%s password=%s profile=default-encryption service=l2tp" % (ctx.first, M(vpn)),
             "/ip ipsec identity", "add peer=hq secret=%s" % M(ips),
             "/user", "add group=full name=%s password=%s" % (ctx.first, M(adm)),
             "/system identity", "set name=%s-gw" % ctx.org]
    return run(ctx, "ssh admin@%s '/export show-sensitive terse'" % ip_priv() if i % 2 else "ssh admin@%s '/export show-sensitive'" % ip_priv(),
               "\n".join(lines))


def p_windows_net_use_smbclient(ctx, i):
    pw = pw_punct()
    srv = pick(["fs01", "nas", "files", "dc02", "backup01"]) + "." + ctx.org + ".local"
    share = pick(["finance", "deploy", "backups", "scans", "builds"])
    v = i % 5
    if v == 0:
        return run(ctx, "net use Z: \\\\%s\\%s %s /user:CORP\\svc_%s /persistent:yes" % (srv, share, M(pw), share),
                   "The command completed successfully.", frames=["prompt"], styles=["cmd", "ps"])
    if v == 1:
        out = "\n".join(["  .                                   D        0  %s %s %2d %s %d" % (WDAYS[ctx.t.weekday()], MONTHS[ctx.t.month - 1], ctx.t.day, hms(ctx.t), ctx.t.year),
                         "  ..                                  D        0  %s %s %2d %s %d" % (WDAYS[ctx.t.weekday()], MONTHS[ctx.t.month - 1], ctx.t.day, hms(ctx.t), ctx.t.year),
                         "  release-%s.zip                    A %8d  %s %s %2d %s %d" % (hx(7), R.randint(10 ** 6, 10 ** 8), WDAYS[ctx.t.weekday()], MONTHS[ctx.t.month - 1], ctx.t.day, hms(ctx.t), ctx.t.year),
                         "", "\t\t%d blocks of size 4096. %d blocks available" % (R.randint(10 ** 6, 10 ** 8), R.randint(10 ** 5, 10 ** 7))])
        return run(ctx, "smbclient //%s/%s -U 'CORP\\svc_%s%%%s' -c 'ls'" % (srv, share, share, M(pw)), out)
    if v == 2:
        return run(ctx, "sudo mount -t cifs //%s/%s /mnt/%s -o username=svc_%s,password=%s,domain=CORP,vers=3.0" % (srv, share, share, share, M(pw)), "")
    if v == 3:
        return run(ctx, "cmdkey /add:%s /user:CORP\\svc_%s /pass:%s" % (srv, share, M(pw)), "\nCMDKEY: Credential added successfully.",
                   frames=["prompt"], styles=["cmd", "ps"])
    out = "\n".join(["", "Status       Local Remote                            Network", "------       ----- ------                            -------",
                     "OK           Y:    \\\\%s\\%s                Microsoft Windows Network" % (srv, share)])
    return run(ctx, "New-SmbMapping -LocalPath 'Y:' -RemotePath '\\\\%s\\%s' -UserName 'CORP\\svc_%s' -Password '%s'" % (srv, share, share, M(pw)),
               out, frames=["prompt"], styles=["ps"])


# Auth, payments and SaaS services

def p_cognito_user_pool_client_secret(ctx, i):
    pool = "%s_%s" % (pick(["us-east-1", "eu-west-1", "eu-central-1", "ap-southeast-2"]), rs(9, ALNUM))
    cid, sec = rs(26, LALNUM), rs(52, LALNUM)
    t = ctx.tick()
    c = {"UserPoolClient": {"UserPoolId": pool, "ClientName": "%s-%s" % (ctx.proj, pick(["backend", "server", "m2m"])), "ClientId": cid,
                            "ClientSecret": M(sec), "LastModifiedDate": "%s.%03d000+00:00" % (iso(t, 0, ""), R.randint(0, 999)),
                            "CreationDate": "%s.%03d000+00:00" % (iso(t, 0, ""), R.randint(0, 999)), "RefreshTokenValidity": 30,
                            "TokenValidityUnits": {"AccessToken": "minutes", "IdToken": "minutes", "RefreshToken": "days"},
                            "ExplicitAuthFlows": ["ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_SRP_AUTH"],
                            "SupportedIdentityProviders": ["COGNITO"],
                            "CallbackURLs": ["https://app.%s/api/auth/callback/cognito" % ctx.dom],
                            "AllowedOAuthFlows": ["code"], "AllowedOAuthScopes": ["email", "openid", "profile"],
                            "AllowedOAuthFlowsUserPoolClient": True, "PreventUserExistenceErrors": "ENABLED",
                            "EnableTokenRevocation": True, "EnablePropagateAdditionalUserContextData": False,
                            "AuthSessionValidity": 3}}
    return run(ctx, "aws cognito-idp describe-user-pool-client --user-pool-id %s --client-id %s" % (pool, cid),
               json.dumps(c, indent=4, ensure_ascii=False))


def p_razorpay_paystack_woo_keys(ctx, i):
    v = i % 3
    if v == 0:
        kid, ks, wh = "rzp_live_" + rs(14), rs(24), pw_alnum(20)
        content = "\n".join(["RAZORPAY_KEY_ID=%s" % kid, "RAZORPAY_KEY_SECRET=%s" % M(ks), "RAZORPAY_WEBHOOK_SECRET=%s" % M(wh),
                             "NEXT_PUBLIC_RAZORPAY_KEY_ID=%s" % kid])
        return view(ctx, ".env.production", content)
    if v == 1:
        sk, pk, fl = "sk_live_" + hx(40), "pk_live_" + hx(40), "FLWSECK-" + hx(32) + "-X"
        content = "\n".join(["# payments", "PAYSTACK_PUBLIC_KEY=%s" % pk, "PAYSTACK_SECRET_KEY=%s" % M(sk), "",
                             "FLUTTERWAVE_PUBLIC_KEY=FLWPUBK-%s-X" % hx(32), "FLUTTERWAVE_SECRET_KEY=%s" % M(fl),
                             "FLUTTERWAVE_ENCRYPTION_KEY=%s" % M(rs(12, ALNUM) + hx(12))])
        return view(ctx, "backend/.env", content)
    ck, cs = "ck_" + hx(40), "cs_" + hx(40)
    out = json.dumps([{"id": R.randint(1000, 99999), "status": "processing", "currency": "EUR", "total": "%d.%02d" % (R.randint(5, 400), R.randint(0, 99)),
                       "date_created": iso(ctx.t, 0, "")}], indent=2)
    return run(ctx, "curl -s https://shop.%s/wp-json/wc/v3/orders?per_page=1 -u %s:%s | jq ." % (ctx.dom, ck, M(cs)), out)


def p_project_mgmt_tokens_env(ctx, i):
    asana = "2/%s/%s:%s" % (digits(16), digits(16), hx(32))
    clickup = "pk_%s_%s" % (digits(8), rs(32, UALNUM))
    trk, trt = hx(32), "ATTA" + hx(64) + HX(8)
    figma = "figd_" + rs(40, ALNUM + "_-")
    todo = hx(40)
    v = i % 5
    if v in (0, 2):
        content = "\n".join(["# integrations used by the weekly report bot", "ASANA_PAT=%s" % M(asana), "ASANA_WORKSPACE=%s" % digits(16),
                             "CLICKUP_API_TOKEN=%s" % M(clickup), "TRELLO_API_KEY=%s" % trk, "TRELLO_TOKEN=%s" % M(trt),
                             "FIGMA_TOKEN=%s" % M(figma), "TODOIST_API_TOKEN=%s" % M(todo)])
        return view(ctx, pick([".env", "bots/report/.env", ".env.local"]), content)
    if v == 1:
        out = json.dumps({"data": {"gid": digits(16), "email": ctx.email, "name": "%s %s" % (ctx.first.title(), ctx.last.title()),
                                   "resource_type": "user", "workspaces": [{"gid": digits(16), "name": ctx.org.title(), "resource_type": "workspace"}]}}, indent=2)
        return run(ctx, "curl -s -H 'Authorization: Bearer %s' https://app.asana.com/api/1.0/users/me" % M(asana), out)
    if v == 3:
        out = json.dumps([{"id": hx(24), "name": pick(["Roadmap", "Sprint board", "Bugs"]), "closed": False,
                           "idOrganization": hx(24), "url": "https://trello.com/b/%s/%s" % (rs(8), pick(["roadmap", "sprint", "bugs"]))}], indent=2)
        return run(ctx, "curl -s 'https://api.trello.com/1/members/me/boards?fields=name,closed,url&key=%s&token=%s'" % (trk, M(trt)), out)
    out = json.dumps({"id": digits(19), "email": ctx.email, "handle": ctx.first.title(), "img_url": "https://s3-alpha.figma.com/profile/%s" % uuid4()}, indent=2)
    return run(ctx, "curl -s -H 'X-Figma-Token: %s' https://api.figma.com/v1/me" % M(figma), out)


def matrix_token(user):
    rnd = rs(20, LETTERS)
    return "syt_%s_%s_%s" % (b64e(user.encode()).rstrip("="), rnd, base62(zlib.crc32(rnd.encode()) & 0xFFFFFFFF, 6))


def p_matrix_mattermost_bot_config(ctx, i):
    v = i % 3
    if v == 0:
        bot = pick(["releasebot", "oncall", "ci-notify", "standup"])
        content = "\n".join(["homeserver: https://matrix.%s" % ctx.dom, "user_id: \"@%s:%s\"" % (bot, ctx.dom),
                             "device_id: %s" % rs(10, UPPER), "access_token: %s" % M(matrix_token(bot)),
                             "rooms:", "  - \"!%s:%s\"" % (rs(18, LETTERS), ctx.dom), "command_prefix: \"!%s\"" % bot[:3]])
        return view(ctx, "bot/config.yaml", content)
    if v == 1:
        pw, tok = pw_punct(), rs(26, LALNUM)
        a = run(ctx, "mmctl auth login https://chat.%s --name prod --username %s --password '%s'" % (ctx.dom, ctx.first, M(pw)),
                '\n  credentials for "prod": "%s@https://chat.%s" stored\n' % (ctx.first, ctx.dom), frames=["prompt"])
        b = view(ctx, "deploy/bot.env", "MM_SERVER_URL=https://chat.%s\nMM_BOT_TOKEN=%s\nMM_TEAM=%s" % (ctx.dom, M(tok), ctx.org),
                 modes=["cat"], frames=["prompt"])
        return joinparts(a, b)
    tok, uid = rs(43, B64U), rs(17, ALNUM)
    out = json.dumps({"_id": uid, "username": "ci-bot", "status": "online", "active": True, "success": True}, indent=2)
    return run(ctx, "curl -s -H 'X-Auth-Token: %s' -H 'X-User-Id: %s' https://chat.%s/api/v1/me" % (M(tok), uid, ctx.dom), out)


# Traffic, debug logs, errors and notebooks

def p_swaks_auth_login_transcript(ctx, i):
    srv = pick(["smtp.mailgun.org", "smtp.postmarkapp.com", "email-smtp.eu-west-1.amazonaws.com", "smtp.office365.com", "mail.%s" % ctx.dom])
    user = aws_akia() if "amazonaws" in srv else pick(["postmaster@mg.%s" % ctx.dom, "noreply@%s" % ctx.dom, ctx.email])
    pw = pw_punct() if "amazonaws" not in srv else "B" + rs(43, B64)
    me = ctx.host
    plain = i % 2 == 1
    lines = ["=== Trying %s:587..." % srv, "=== Connected to %s." % srv, "<-  220 %s ESMTP ready" % srv, " -> EHLO %s" % me,
             "<-  250-%s" % srv, "<-  250-SIZE 52428800", "<-  250-8BITMIME", "<-  250-AUTH PLAIN LOGIN", "<-  250-STARTTLS",
             "<-  250 ENHANCEDSTATUSCODES", " -> STARTTLS", "<-  220 2.0.0 Ready to start TLS",
             "=== TLS started with cipher TLSv1.3:TLS_AES_256_GCM_SHA384:256", "=== TLS no local certificate set",
             "=== TLS peer DN=\"/CN=%s\"" % srv, " ~> EHLO %s" % me, "<~  250-%s" % srv, "<~  250 AUTH PLAIN LOGIN"]
    if plain:
        lines += [" ~> AUTH PLAIN %s" % M(b64e(("\0%s\0%s" % (user, pw)).encode()))]
    else:
        lines += [" ~> AUTH LOGIN", "<~  334 VXNlcm5hbWU6", " ~> %s" % b64e(user.encode()), "<~  334 UGFzc3dvcmQ6", " ~> %s" % M(b64e(pw.encode()))]
    lines += ["<~  235 2.7.0 Authentication successful", " ~> MAIL FROM:<noreply@%s>" % ctx.dom, "<~  250 2.1.0 Sender OK",
              " ~> RCPT TO:<%s>" % ctx.email, "<~  250 2.1.5 Recipient OK", " ~> DATA", "<~  354 Start mail input; end with <CRLF>.<CRLF>",
              " ~> Date: %s +0000" % httpdate(ctx.t)[:-4], " ~> To: %s" % ctx.email, " ~> From: noreply@%s" % ctx.dom,
              " ~> Subject: test %s" % sqlts(ctx.t), " ~> ", " ~> This is a test mailing", " ~> ", " ~> .",
              "<~  250 2.0.0 OK queued as %s" % rs(12, UALNUM), " ~> QUIT", "<~  221 2.0.0 Bye", "=== Connection closed with remote host."]
    cmd = "swaks --to %s --from noreply@%s --server %s --port 587 -tls --auth %s --auth-user '%s' --auth-password '%s'" % (
        ctx.email, ctx.dom, srv, "PLAIN" if plain else "LOGIN", user, M(pw))
    return run(ctx, cmd, "\n".join(lines))


def p_botocore_debug_security_token(ctx, i):
    t = ctx.tick()
    ak, st = aws_asia(), aws_session_token()
    region = pick(["us-east-1", "eu-west-1", "eu-central-1", "us-west-2"])
    amzd = "%04d%02d%02dT%02d%02d%02dZ" % (t.year, t.month, t.day, t.hour, t.minute, t.second)
    ts = "%s,%03d" % (sqlts(t), R.randint(0, 999))
    sig = hx(64)
    svc, host, op = pick([("sts", "sts.amazonaws.com", "GetCallerIdentity"), ("s3", "%s-assets.s3.%s.amazonaws.com" % (ctx.org, region), "ListObjectsV2"),
                          ("sqs", "sqs.%s.amazonaws.com" % region, "ListQueues")])
    lines = ["%s botocore.auth [DEBUG] Calculating signature using v4 auth." % ts,
             "%s botocore.auth [DEBUG] CanonicalRequest:" % ts, "POST" if svc != "s3" else "GET", "/", "",
             "host:%s" % host, "x-amz-date:%s" % amzd, "x-amz-security-token:%s" % M(st), "",
             "host;x-amz-date;x-amz-security-token", hx(64),
             "%s botocore.auth [DEBUG] StringToSign:" % ts, "AWS4-HMAC-SHA256", amzd, "%s/%s/%s/aws4_request" % (ymd(t, ""), region, svc), hx(64),
             "%s botocore.auth [DEBUG] Signature:" % ts, sig,
             "%s botocore.endpoint [DEBUG] Sending http request: <AWSPreparedRequest stream_output=False, method=%s, url=https://%s/, headers={'X-Amz-Date': b'%s', 'X-Amz-Security-Token': b'%s', 'Authorization': b'AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=%s', 'amz-sdk-invocation-id': b'%s', 'amz-sdk-request': b'attempt=1'}>" % (
                 ts, "POST" if svc != "s3" else "GET", host, amzd, M(st), ak, ymd(t, ""), region, svc, sig, uuid4()),
             "%s botocore.parsers [DEBUG] Response headers: {'x-amzn-RequestId': '%s', 'Content-Type': 'text/xml'}" % (ts, uuid4())]
    cmd = pick(["aws %s %s --debug 2>&1 | sed -n '/Calculating signature/,/Response headers/p'" % (svc, {"sts": "get-caller-identity", "s3": "ls s3://%s-assets" % ctx.org, "sqs": "list-queues"}[svc]),
                "python scripts/%s.py 2>&1 | grep -A18 'Calculating signature'" % pick(["sync_assets", "drain_queue", "whoami"])])
    return run(ctx, cmd, "\n".join(lines))


def p_go_http2debug_hpack(ctx, i):
    t = ctx.tick()
    v = i % 4
    if v == 0:
        host, path, hdr, tok = "api.openai.com", "/v1/chat/completions", "authorization", sk_proj()
        val = "Bearer " + M(tok)
    elif v == 1:
        host, path, hdr, tok = "api.anthropic.com", "/v1/messages", "x-api-key", sk_ant()
        val = M(tok)
    elif v == 2:
        host, path, hdr, tok = "api.groq.com", "/openai/v1/chat/completions", "authorization", gsk()
        val = "Bearer " + M(tok)
    else:
        host, path, hdr = "billing.%s:443" % ctx.dom, "/billing.v1.Invoices/Get", "authorization"
        val = "Bearer " + M(jwt({"alg": "RS256", "kid": hx(8)}, {"sub": "svc:%s" % ctx.proj, "aud": "billing", "exp": epoch_s(t) + 900}, 256))
    fr = "0xc000%06x" % R.randint(0, 16 ** 6)
    ts = slashts(t)
    lines = ["%s http2: Transport creating client conn 0xc000%06x to %s:443" % (ts, R.randint(0, 16 ** 6), ip_pub()),
             "%s http2: Framer %s: wrote SETTINGS len=18, settings: ENABLE_PUSH=0, INITIAL_WINDOW_SIZE=4194304, MAX_HEADER_LIST_SIZE=10485760" % (ts, fr),
             "%s http2: Transport encoding header \":authority\" = \"%s\"" % (ts, host.split(":")[0]),
             "%s http2: Transport encoding header \":method\" = \"POST\"" % ts,
             "%s http2: Transport encoding header \":path\" = \"%s\"" % (ts, path),
             "%s http2: Transport encoding header \":scheme\" = \"https\"" % ts,
             "%s http2: Transport encoding header \"%s\" = \"%s\"" % (ts, hdr, val),
             "%s http2: Transport encoding header \"content-type\" = \"application/%s\"" % (ts, "grpc" if v == 3 else "json"),
             "%s http2: Framer %s: wrote HEADERS flags=END_HEADERS stream=1 len=%d" % (ts, fr, R.randint(80, 300)),
             "%s http2: Framer %s: read HEADERS flags=END_HEADERS stream=1 len=%d" % (ts, fr, R.randint(80, 400)),
             "%s http2: decoded hpack field header field \":status\" = \"200\"" % ts,
             "%s http2: decoded hpack field header field \"x-request-id\" = \"req_%s\"" % (ts, hx(32))]
    return run(ctx, "GODEBUG=http2debug=2 go run ./cmd/%s 2>&1 | head -n 12" % pick(["probe", ctx.proj, "smoke"]), "\n".join(lines))


def p_pydantic_validation_input_value(ctx, i):
    rp = pw_alnum(R.randint(12, 18))
    smtp = pw_alnum(R.randint(10, 14))
    host = pick(["redis", "cache", "10.0.2.9"])
    bad = "redis//default:%s@%s:6379/0" % (M(rp), host)
    lines = ["Traceback (most recent call last):", '  File "/app/src/%s/main.py", line %d, in <module>' % (ctx.proj.replace("-", "_"), R.randint(8, 30)),
             "    settings = Settings()", "               ^^^^^^^^^^",
             '  File "/usr/local/lib/python3.12/site-packages/pydantic_settings/main.py", line 171, in __init__',
             "    super().__init__(",
             '  File "/usr/local/lib/python3.12/site-packages/pydantic/main.py", line 212, in __init__',
             "    validated_self = self.__pydantic_validator__.validate_python(data, self_instance=self)",
             "                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
             "pydantic_core._pydantic_core.ValidationError: 2 validation errors for Settings",
             "redis_url",
             "  Input should be a valid URL, relative URL without a base [type=url_parsing, input_value='%s', input_type=str]" % bad,
             "    For further information visit https://errors.pydantic.dev/2.%d/v/url_parsing" % R.randint(5, 9),
             "smtp_password",
             "  String should have at least 16 characters [type=string_too_short, input_value='%s', input_type=str]" % M(smtp),
             "    For further information visit https://errors.pydantic.dev/2.%d/v/string_too_short" % R.randint(5, 9)]
    cmd = pick(["docker compose up api", "uv run python -m %s.main" % ctx.proj.replace("-", "_"), "python -m %s" % ctx.proj.replace("-", "_")])
    if cmd.startswith("docker"):
        lines = ["api-1  | " + l for l in lines] + ["api-1 exited with code 1"]
    return run(ctx, cmd, "\n".join(lines))


def p_devtools_console_storage(ctx, i):
    t = ctx.tick()
    ref = rs(20, LOWER)
    at = jwt({"alg": "HS256", "kid": rs(16), "typ": "JWT"},
             {"iss": "https://%s.supabase.co/auth/v1" % ref, "sub": uuid4(), "aud": "authenticated", "exp": epoch_s(t) + 3600,
              "iat": epoch_s(t), "email": ctx.email, "role": "authenticated", "aal": "aal1", "session_id": uuid4()})
    rt = rs(12, LALNUM)
    sess = rs(32, LALNUM) if i % 2 else b64u(32)
    lines = ["> localStorage.getItem('sb-%s-auth-token')" % ref,
             "'{\"access_token\":\"%s\",\"token_type\":\"bearer\",\"expires_in\":3600,\"expires_at\":%d,\"refresh_token\":\"%s\",\"user\":{\"id\":\"%s\",\"aud\":\"authenticated\",\"role\":\"authenticated\",\"email\":\"%s\"}}'" % (
                 M(at), epoch_s(t) + 3600, M(rt), uuid4(), ctx.email),
             "> document.cookie",
             "'_ga=GA1.1.%d.%d; _ga_%s=GS1.1.%d.3.1.%d.0.0.0; %s=%s; theme=dark'" % (
                 R.randint(10 ** 8, 10 ** 10), epoch_s(t) - 86400 * 30, rs(10, UALNUM), epoch_s(t), epoch_s(t) + 60,
                 pick(["session_id", "app_session", "sid"]), M(sess))]
    return "\n".join(lines)


def p_ipynb_source_env_assignment(ctx, i):
    v = i % 4
    key = [sk_proj, sk_ant, hf_token, lambda: hx(40)][v]()
    var = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "WANDB_API_KEY"][v]
    nb = {"cells": [
        {"cell_type": "code", "execution_count": R.randint(1, 9), "id": rs(8, LALNUM), "metadata": {}, "outputs": [],
         "source": ["import os\n", "os.environ[\"%s\"] = \"%s\"\n" % (var, M(key)),
                    "import %s\n" % ["openai", "anthropic", "huggingface_hub", "wandb"][v]]},
        {"cell_type": "code", "execution_count": None, "id": rs(8, LALNUM), "metadata": {}, "outputs": [],
         "source": ["client = %s\n" % ["openai.OpenAI()", "anthropic.Anthropic()", "huggingface_hub.InferenceClient()", "wandb.init(project=%r)" % ctx.proj][v]]}],
        "metadata": {"kernelspec": {"display_name": ".venv", "language": "python", "name": "python3"},
                     "language_info": {"name": "python", "version": "3.11.%d" % R.randint(4, 9)}},
        "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(nb, indent=1, ensure_ascii=False)
    return view(ctx, "notebooks/%s.ipynb" % pick(["explore", "eval", "prompting", "scratch", "finetune"]), text, modes=["cat", "head", "read"])


def p_csv_service_accounts_column(ctx, i):
    rows = [("system", "account", "password", "api_key", "rotated_on", "owner")]
    keys = [("grafana", "admin", pw_punct(), glc_token(ctx)), ("sentry", "ci@" + ctx.dom, pw_alnum(), "sntryu_" + hx(64)),
            ("mailgun", "postmaster@mg." + ctx.dom, pw_words(), mailgun_key()), ("jenkins", "svc-jenkins", pw_url(), "11" + hx(32))]
    R.shuffle(keys)
    for s, a, p, k in keys[:3]:
        rows.append((s, a, M(p), M(k), ymd(ctx.tick(86400, 8640000)), pick(FIRST)))
    if i % 2 == 0:
        out = "\n".join(",".join(r) for r in rows)
        return view(ctx, "exports/service-accounts.csv", out, modes=["cat", "read", "head"])
    w = [max(len(unmark(r[c])) for r in rows) for c in range(6)]
    out = "\n".join("  ".join(r[c] + " " * (w[c] - len(unmark(r[c]))) for c in range(6)).rstrip() for r in rows)
    return run(ctx, "column -s, -t < exports/service-accounts.csv", out)


def p_cargo_test_assert_eq_secret(ctx, i):
    sk = stripe_sk("test")
    whs = whsec()
    crate = ctx.proj.replace("-", "_")
    lines = ["   Compiling %s v0.%d.%d (%s)" % (crate, R.randint(1, 9), R.randint(0, 20), ctx.cwd),
             "    Finished `test` profile [unoptimized + debuginfo] target(s) in %d.%02ds" % (R.randint(2, 40), R.randint(0, 99)),
             "     Running unittests src/lib.rs (target/debug/deps/%s-%s)" % (crate, hx(16)), "",
             "running 3 tests", "test config::tests::reads_env_file ... FAILED", "test webhook::tests::rejects_stale ... ok",
             "test client::tests::builds_headers ... ok", "", "failures:", "",
             "---- config::tests::reads_env_file stdout ----",
             "thread 'config::tests::reads_env_file' panicked at src/config.rs:%d:9:" % R.randint(60, 200),
             "assertion `left == right` failed",
             '  left: Config { api_base: "https://api.stripe.com", secret_key: "%s", webhook_secret: "%s", timeout_ms: 5000 }' % (M(sk), M(whs)),
             ' right: Config { api_base: "https://api.stripe.com", secret_key: "%s", webhook_secret: "%s", timeout_ms: 3000 }' % (M(sk), M(whs)),
             "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace", "", "", "failures:",
             "    config::tests::reads_env_file", "",
             "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.0%ds" % R.randint(1, 9), "",
             "error: test failed, to rerun pass `--lib`"]
    return run(ctx, "cargo test", "\n".join(lines))


def p_openssl_keytool_pass_args(ctx, i):
    p1, p2 = pw_alnum(), pw_alnum()
    if i % 2 == 0:
        a = prompt(ctx, "openssl pkcs12 -export -in %s.crt -inkey %s.key -out %s.p12 -name %s -passout pass:%s" % (ctx.proj, ctx.proj, ctx.proj, ctx.proj, M(p1)))
        b = prompt(ctx, "keytool -importkeystore -srckeystore %s.p12 -srcstoretype PKCS12 -srcstorepass %s -destkeystore %s.jks -deststorepass %s" % (
            ctx.proj, M(p1), ctx.proj, M(p2)))
        out = "\n".join(["Importing keystore %s.p12 to %s.jks..." % (ctx.proj, ctx.proj), "Entry for alias %s successfully imported." % ctx.proj,
                         "Import command completed:  1 entries successfully imported, 0 entries failed or cancelled", "", "Warning:",
                         "The JKS keystore uses a proprietary format. It is recommended to migrate to PKCS12 which is an industry standard format using \"keytool -importkeystore -srckeystore %s.jks -destkeystore %s.jks -deststoretype pkcs12\"." % (ctx.proj, ctx.proj)])
        return joinparts(a, b + "\n" + out)
    cmd = "keytool -genkeypair -v -keystore release.keystore -alias upload -keyalg RSA -keysize 2048 -validity 10000 -storepass %s -keypass %s -dname \"CN=%s, O=%s, C=%s\"" % (
        M(p1), M(p2), ctx.first.title(), ctx.org.title(), pick(["DE", "GB", "US", "NL", "PL"]))
    out = "Generating 2,048 bit RSA key pair and self-signed certificate (SHA384withRSA) with a validity of 10,000 days\n\tfor: CN=%s, O=%s\n[Storing release.keystore]" % (ctx.first.title(), ctx.org.title())
    return run(ctx, cmd, out)


def p_jose_jwk_ec_private(ctx, i):
    v = i % 3
    kid = pick([b64u(32), uuid4(), "%s-%s" % (ctx.proj, ymd(ctx.t, ""))])
    if v == 0:
        d, x, y = b64u(32), b64u(32), b64u(32)
        out = "{\n  kty: 'EC',\n  x: '%s',\n  y: '%s',\n  crv: 'P-256',\n  d: '%s'\n}" % (x, y, M(d))
        return run(ctx, "node -e \"const {generateKeyPairSync}=require('crypto');console.log(generateKeyPairSync('ec',{namedCurve:'P-256'}).privateKey.export({format:'jwk'}))\"", out)
    if v == 1:
        d, x = b64u(32), b64u(32)
        body = json.dumps({"kty": "OKP", "crv": "Ed25519", "kid": kid, "use": "sig", "alg": "EdDSA", "d": M(d), "x": x}, indent=2, ensure_ascii=False)
        return view(ctx, "keys/signing.jwk.json", body)
    n = b64u(256)
    body = json.dumps({"keys": [{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": n, "e": "AQAB", "d": M(b64u(256)),
                                 "p": M(b64u(128)), "q": M(b64u(128)), "dp": M(b64u(128)), "dq": M(b64u(128)), "qi": M(b64u(128))}]},
                      indent=2, ensure_ascii=False)
    return view(ctx, "config/jwks.private.json", body)


def p_dotnet_rsa_xml_key(ctx, i):
    parts = ["<RSAKeyValue>", "<Modulus>%s</Modulus>" % b64(256), "<Exponent>AQAB</Exponent>",
             "<P>%s</P>" % M(b64(128)), "<Q>%s</Q>" % M(b64(128)), "<DP>%s</DP>" % M(b64(128)), "<DQ>%s</DQ>" % M(b64(128)),
             "<InverseQ>%s</InverseQ>" % M(b64(128)), "<D>%s</D>" % M(b64(256)), "</RSAKeyValue>"]
    if i % 2 == 0:
        return run(ctx, "$rsa = [System.Security.Cryptography.RSA]::Create(2048); $rsa.ToXmlString($true)", "".join(parts),
                   frames=["prompt"], styles=["ps"])
    return view(ctx, "src/%s.Api/keys/signing-key.xml" % ctx.org.title(), "".join(parts), modes=["cat", "read"])


def otp_migration(ctx):
    def vb(n):
        out = b""
        while True:
            b = n & 0x7F
            n >>= 7
            if n:
                out += bytes([b | 0x80])
            else:
                return out + bytes([b])

    def fld(num, data):
        return vb(num << 3 | 2) + vb(len(data)) + data
    p = fld(1, ubytes(20)) + fld(2, ("%s:%s" % (ctx.org, ctx.email)).encode()) + fld(3, ctx.org.encode()) + b"\x20\x01\x28\x01\x30\x02"
    msg = fld(1, p) + b"\x10\x01\x18\x01\x20\x00\x28" + vb(R.randint(1, 2 ** 31))
    s = b64e(msg)
    return s.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def p_otpauth_qr_and_recovery_codes(ctx, i):
    v = i % 4
    if v == 0:
        sec = rs(32, B32)
        out = "QR-Code:otpauth://totp/%s:%s?secret=%s&issuer=%s&algorithm=SHA1&digits=6&period=30" % (
            ctx.org.title(), ctx.email.replace("@", "%40"), M(sec), ctx.org.title())
        return run(ctx, "zbarimg --quiet ~/Downloads/%s-2fa.png" % ctx.org, out + "\nscanned 1 barcode symbols from 1 images in 0.0%d seconds" % R.randint(1, 9))
    if v == 1:
        codes = ["%s-%s" % (hx(5), hx(5)) for _ in range(16)]
        return view(ctx, "~/Downloads/github-recovery-codes.txt", "\n".join(M(c) for c in codes), modes=["cat", "cat", "read"])
    if v == 2:
        sec = rs(R.choice([16, 32]), B32)
        return run(ctx, "oathtool --totp -b %s" % M(sec), "%06d" % R.randint(0, 999999))
    data = otp_migration(ctx)
    return run(ctx, "zbarimg --raw authenticator-export.png", "otpauth-migration://offline?data=%s" % M(data))


# ================================================================ negatives

def n_cargo_vendor_checksum_json(ctx, i):
    crate = pick(["serde", "tokio", "hyper", "rustls", "regex", "bytes", "tracing", "clap", "anyhow", "ring"])
    ver = "%d.%d.%d" % (R.randint(0, 1), R.randint(0, 40), R.randint(0, 220))
    files = {}
    for f in sorted(R.sample(["Cargo.toml", "Cargo.toml.orig", "LICENSE-MIT", "LICENSE-APACHE", "README.md", "build.rs",
                              "src/lib.rs", "src/de.rs", "src/ser.rs", "src/macros.rs", "src/private/mod.rs", ".cargo_vcs_info.json"], 7)):
        files[f] = hx(64)
    body = json.dumps({"files": files, "package": hx(64)}, indent=2)
    a = run(ctx, "cargo vendor vendor/ 2>&1 | grep %s" % crate,
            "   Vendoring %s v%s (%s/.cargo/registry/src/index.crates.io-6f17d22bba15001f/%s-%s) to vendor/%s" % (crate, ver, ctx.home, crate, ver, crate),
            frames=["prompt"])
    return joinparts(a, run(ctx, "jq . vendor/%s/.cargo-checksum.json" % crate, body, frames=["prompt"]))


def n_bazel_module_lock(ctx, i):
    mods = R.sample(["abseil-cpp/20240116.2", "rules_cc/0.0.9", "platforms/0.0.10", "protobuf/27.0", "rules_python/0.33.2",
                     "bazel_skylib/1.7.1", "zlib/1.3.1.bcr.3", "googletest/1.14.0.bcr.1", "rules_go/0.48.0", "gazelle/0.37.0"], 5)
    reg = {}
    for m in sorted(mods):
        reg["https://bcr.bazel.build/modules/%s/MODULE.bazel" % m] = hx(64)
        reg["https://bcr.bazel.build/modules/%s/source.json" % m] = hx(64)
    lock = {"lockFileVersion": 11, "registryFileHashes": reg, "selectedYankedVersions": {},
            "moduleExtensions": {"@@rules_python~//python/extensions:pip.bzl%pip": {"general": {
                "bzlTransitiveDigest": b64(32), "usagesDigest": b64(32), "recordedFileInputs": {
                    "@@//requirements_lock.txt": hx(64)}, "recordedDirentsInputs": {}, "envVariables": {}}}}}
    return view(ctx, "MODULE.bazel.lock", json.dumps(lock, indent=2), modes=["head", "read", "cat"])


def nixh():
    return rs(32, NIX32)


def n_nix_derivation_show(ctx, i):
    pkg, ver = pick([("hello", "2.12.1"), ("jq", "1.7.1"), ("ripgrep", "14.1.0"), ("curl", "8.7.1"), ("zstd", "1.5.6"), ("sqlite", "3.45.3")])
    drv = "/nix/store/%s-%s-%s.drv" % (nixh(), pkg, ver)
    out = "/nix/store/%s-%s-%s" % (nixh(), pkg, ver)
    src = "/nix/store/%s-%s-%s.tar.gz.drv" % (nixh(), pkg, ver)
    d = {drv: {"args": ["-e", "/nix/store/%s-default-builder.sh" % nixh()],
               "builder": "/nix/store/%s-bash-5.2p26/bin/bash" % nixh(),
               "env": {"__structuredAttrs": "", "name": "%s-%s" % (pkg, ver), "out": out, "pname": pkg,
                       "src": "/nix/store/%s-%s-%s.tar.gz" % (nixh(), pkg, ver),
                       "stdenv": "/nix/store/%s-stdenv-linux" % nixh(), "system": "x86_64-linux", "version": ver},
               "inputDrvs": {src: {"dynamicOutputs": {}, "outputs": ["out"]},
                             "/nix/store/%s-stdenv-linux.drv" % nixh(): {"dynamicOutputs": {}, "outputs": ["out"]}},
               "inputSrcs": ["/nix/store/%s-default-builder.sh" % nixh()], "name": "%s-%s" % (pkg, ver),
               "outputs": {"out": {"path": out}}, "system": "x86_64-linux"}}
    a = run(ctx, "nix derivation show nixpkgs#%s" % pkg, json.dumps(d, indent=2))
    if i % 2:
        a = joinparts(a, run(ctx, "nix hash path %s" % out, "sha256-%s" % b64(32), frames=["prompt"]))
    return a


def n_cloudformation_describe_stacks_noecho(ctx, i):
    t = ctx.tick()
    acct = digits(12)
    reg = pick(["eu-west-1", "us-east-1", "eu-central-1"])
    stack = "%s-%s" % (ctx.proj, pick(["prod", "staging"]))
    d = {"Stacks": [{"StackId": "arn:aws:cloudformation:%s:%s:stack/%s/%s" % (reg, acct, stack, uuid4()), "StackName": stack,
                     "ChangeSetId": "arn:aws:cloudformation:%s:%s:changeSet/awscli-cloudformation-package-deploy-%d/%s" % (reg, acct, epoch_s(t), uuid4()),
                     "Parameters": [{"ParameterKey": "DBMasterPassword", "ParameterValue": "****"},
                                    {"ParameterKey": "GitHubOAuthToken", "ParameterValue": "****"},
                                    {"ParameterKey": "Environment", "ParameterValue": stack.split("-")[-1]},
                                    {"ParameterKey": "VpcId", "ParameterValue": "vpc-" + hx(17)}],
                     "CreationTime": iso(t, 6, "+00:00"), "LastUpdatedTime": iso(ctx.tick(60, 99999), 6, "+00:00"),
                     "RollbackConfiguration": {}, "StackStatus": "UPDATE_COMPLETE", "DisableRollback": False,
                     "NotificationARNs": [], "Capabilities": ["CAPABILITY_NAMED_IAM"],
                     "Outputs": [{"OutputKey": "DBEndpoint", "OutputValue": "%s.%s.%s.rds.amazonaws.com" % (stack, rs(12, LALNUM), reg)},
                                 {"OutputKey": "DBSecretArn", "OutputValue": "arn:aws:secretsmanager:%s:%s:secret:%s/db-%s" % (reg, acct, stack, rs(6))}],
                     "Tags": [], "EnableTerminationProtection": True, "DriftInformation": {"StackDriftStatus": "NOT_CHECKED"}}]}
    return run(ctx, "aws cloudformation describe-stacks --stack-name %s" % stack, json.dumps(d, indent=4))


def n_bicep_build_arm_json(ctx, i):
    sub = uuid4()
    d = {"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#", "contentVersion": "1.0.0.0",
         "metadata": {"_generator": {"name": "bicep", "version": "0.%d.%d.%d" % (R.randint(24, 30), R.randint(1, 60), R.randint(10000, 60000)),
                                     "templateHash": digits(19)}},
         "parameters": {"location": {"type": "string", "defaultValue": "[resourceGroup().location]"},
                        "adminUsername": {"type": "string"}, "adminPassword": {"type": "securestring"},
                        "sqlConnection": {"type": "securestring", "metadata": {"description": "Injected from Key Vault"}}},
         "variables": {"suffix": "[uniqueString(resourceGroup().id)]", "kvName": "[format('kv-{0}', variables('suffix'))]"},
         "resources": [{"type": "Microsoft.KeyVault/vaults/secrets", "apiVersion": "2023-07-01",
                        "name": "[format('{0}/{1}', variables('kvName'), 'sql-connection')]",
                        "properties": {"value": "[parameters('sqlConnection')]"}}]}
    params = {"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#", "contentVersion": "1.0.0.0",
              "parameters": {"adminPassword": {"reference": {"keyVault": {"id": "/subscriptions/%s/resourceGroups/rg-%s-shared/providers/Microsoft.KeyVault/vaults/kv-%s" % (sub, ctx.org, ctx.org)},
                                                              "secretName": "vm-admin-password"}}}}
    a = run(ctx, "az bicep build --file infra/main.bicep --stdout | head -n 60", json.dumps(d, indent=2))
    return joinparts(a, view(ctx, "infra/main.parameters.json", json.dumps(params, indent=2), modes=["cat"], frames=["prompt"])) if i % 2 else a


def n_crossplane_managed_resource_status(ctx, i):
    t = ctx.tick()
    name = "%s-%s" % (ctx.proj, pick(["assets", "uploads", "logs"]))
    lines = ["apiVersion: s3.aws.upbound.io/v1beta1", "kind: Bucket", "metadata:", "  annotations:",
             "    crossplane.io/composition-resource-name: bucket",
             "    crossplane.io/external-create-pending: \"%s\"" % iso(t, 0),
             "    crossplane.io/external-create-succeeded: \"%s\"" % iso(ctx.tick(), 0),
             "    crossplane.io/external-name: %s-%s" % (name, rs(5, LALNUM)),
             "  creationTimestamp: \"%s\"" % iso(t, 0), "  finalizers:", "  - finalizer.managedresource.crossplane.io",
             "  generation: %d" % R.randint(1, 9), "  labels:", "    crossplane.io/claim-name: %s" % name,
             "    crossplane.io/claim-namespace: %s" % ctx.proj, "  name: %s-%s" % (name, rs(5, LALNUM)),
             "  resourceVersion: \"%d\"" % R.randint(100000, 99999999), "  uid: %s" % uuid4(), "spec:",
             "  deletionPolicy: Delete", "  forProvider:", "    region: eu-west-1", "  providerConfigRef:", "    name: default",
             "  writeConnectionSecretToRef:", "    name: %s-conn" % name, "    namespace: crossplane-system", "status:",
             "  atProvider:", "    arn: arn:aws:s3:::%s" % name, "    hostedZoneId: Z1BKCTXD74EZPE", "    id: %s" % name,
             "  conditions:", "  - lastTransitionTime: \"%s\"" % iso(ctx.tick(), 0), "    reason: Available", "    status: \"True\"",
             "    type: Ready", "  - lastTransitionTime: \"%s\"" % iso(ctx.tick(), 0), "    reason: ReconcileSuccess",
             "    status: \"True\"", "    type: Synced"]
    return run(ctx, "kubectl get bucket.s3.aws.upbound.io -l crossplane.io/claim-name=%s -o yaml | yq '.items[0]'" % name, "\n".join(lines))


def colon_fp(n):
    return ":".join(hx(2) for _ in range(n))


def n_salt_key_fingerprints(ctx, i):
    minions = ["%s%02d.%s.internal" % (pick(["web", "db", "mq", "cache", "app"]), R.randint(1, 30), ctx.org) for _ in range(R.randint(3, 6))]
    lines = ["Local Keys:", "master.pem:  %s" % colon_fp(32), "master.pub:  %s" % colon_fp(32), "Accepted Keys:"]
    lines += ["%s:  %s" % (m, colon_fp(32)) for m in minions[:-1]]
    lines += ["Unaccepted Keys:", "%s:  %s" % (minions[-1], colon_fp(32))]
    a = run(ctx, "sudo salt-key -F", "\n".join(lines), styles=["root", "rhel", "bash"])
    if i % 2:
        a = joinparts(a, run(ctx, "sudo salt-call --local key.finger", "local:\n    %s" % colon_fp(32), frames=["prompt"], styles=["root"]))
    return a


def n_chef_client_converge_log(ctx, i):
    t = ctx.tick()
    f = pick(["/etc/nginx/sites-available/%s" % ctx.proj, "/etc/%s/app.yml" % ctx.proj, "/etc/systemd/system/%s.service" % ctx.proj])
    old, new = "%d" % R.randint(3000, 3009), "%d" % R.randint(3010, 3020)
    lines = ["Starting Chef Infra Client, version 18.%d.%d" % (R.randint(2, 6), R.randint(0, 12)), "Patents: https://www.chef.io/patents",
             "Infra Phase starting", "resolving cookbooks for run list: [\"role[%s]\"]" % pick(["web", "app", "worker"]),
             "Synchronizing cookbooks:", "  - %s_base (%d.%d.%d)" % (ctx.org, R.randint(0, 3), R.randint(0, 20), R.randint(0, 9)),
             "  - nginx (12.%d.%d)" % (R.randint(0, 3), R.randint(0, 9)), "Installing cookbook gems:", "Compiling cookbooks...",
             "Loading Chef InSpec profile files:", "Converging %d resources" % R.randint(8, 40), "Recipe: %s_base::default" % ctx.org,
             "  * template[%s] action create" % f,
             "    - update content in file %s from %s to %s" % (f, hx(6), hx(6)),
             "    --- %s\t%s.%09d +0000" % (f, sqlts(t), R.randint(0, 10 ** 9 - 1)),
             "    +++ %s/.chef-%s%s-%d-%s\t%s.%09d +0000" % (f.rsplit("/", 1)[0], f.rsplit("/", 1)[1], ymd(t, ""), R.randint(1000, 99999), rs(6, LALNUM), sqlts(t), R.randint(0, 10 ** 9 - 1)),
             "    @@ -3,7 +3,7 @@", "    -  upstream_port %s;" % old, "    +  upstream_port %s;" % new,
             "  * template[/etc/%s/secrets.yml] action create" % ctx.proj, "    - update content in file /etc/%s/secrets.yml from %s to %s" % (ctx.proj, hx(6), hx(6)),
             "    - suppressed sensitive resource output",
             "  * service[nginx] action reload", "    - reload service service[nginx]", "", "Running handlers:",
             "Running handlers complete", "Infra Phase complete, 3/%d resources updated in %02d seconds" % (R.randint(20, 60), R.randint(5, 59))]
    return run(ctx, "sudo chef-client", "\n".join(lines), styles=["root", "rhel"])


def n_puppet_agent_run_report(ctx, i):
    node = "%s%02d.%s.internal" % (pick(["web", "app", "db"]), R.randint(1, 20), ctx.org)
    ver = str(epoch_s(ctx.t)) if i % 2 else hx(40)
    f = "/etc/%s/config.yml" % ctx.proj
    t = ctx.tick()
    lines = ["Info: Using environment 'production'", "Info: Retrieving pluginfacts", "Info: Retrieving plugin",
             "Info: Loading facts", "Info: Caching catalog for %s" % node, "Info: Applying configuration version '%s'" % ver,
             "Notice: /Stage[main]/Profile::App/File[%s]/content: " % f,
             "--- %s\t%s.%09d +0000" % (f, sqlts(t), R.randint(0, 10 ** 9 - 1)),
             "+++ /tmp/puppet-file%s-%d-%s\t%s.%09d +0000" % (ymd(t, ""), R.randint(1000, 99999), rs(6, LALNUM), sqlts(t), R.randint(0, 10 ** 9 - 1)),
             "@@ -1,4 +1,4 @@", " log_level: info", "-workers: %d" % R.randint(2, 4), "+workers: %d" % R.randint(5, 8), " port: 8080",
             "Info: Computing checksum on file %s" % f,
             "Info: /Stage[main]/Profile::App/File[%s]: Filebucketed %s to puppet with sum %s" % (f, f, hx(32)),
             "Notice: /Stage[main]/Profile::App/File[%s]/content: content changed '{sha256}%s' to '{sha256}%s'" % (f, hx(64), hx(64)),
             "Notice: /Stage[main]/Profile::Db/File[/etc/%s/db.yml]/content: changed [redacted] to [redacted]" % ctx.proj,
             "Info: Class[Profile::App]: Scheduling refresh of Service[%s]" % ctx.proj,
             "Notice: /Stage[main]/Profile::App/Service[%s]: Triggered 'refresh' from 2 events" % ctx.proj,
             "Notice: Applied catalog in %d.%02d seconds" % (R.randint(2, 30), R.randint(0, 99))]
    return run(ctx, "sudo puppet agent -t", "\n".join(lines), styles=["root", "rhel", "bash"])


def eyaml_blob():
    b = (bytes.fromhex("3082017d06092a864886f70d010703a082016e3082016a020100318201213082011d020100300530000201013"
                       "00d06092a864886f70d01010105000482010000") + ubytes(256) +
         bytes.fromhex("303e06092a864886f70d010701301d060960864801650304012a0410") + ubytes(16) + bytes.fromhex("8010") + ubytes(16))
    return b64e(b)


def n_puppet_hiera_eyaml_ciphertext(ctx, i):
    lines = ["---", "profile::app::workers: 4", "profile::postgres::password: >", "    ENC[PKCS7,%s]" % eyaml_blob(),
             "profile::app::api_token: ENC[PKCS7,%s]" % eyaml_blob(),
             "profile::backup::bucket: %s-backups" % ctx.org]
    if i % 2:
        b = eyaml_blob()
        lines[3] = "\n".join(["    ENC[PKCS7," + b[:60]] + ["    " + b[k:k + 60] for k in range(60, len(b), 60)]) + "]"
    return view(ctx, "data/%s.eyaml" % pick(["common", "production", "nodes/db01.%s.internal" % ctx.org]), "\n".join(lines))


def n_chef_encrypted_data_bag_json(ctx, i):
    def item():
        return {"encrypted_data": b64(R.choice([32, 48, 64])) + "\n", "iv": b64(12) + "\n", "auth_tag": b64(16) + "\n",
                "version": 3, "cipher": "aes-256-gcm"}
    d = {"id": pick(["prod_db", "smtp", "api_keys"]), "password": item(), "username": item()}
    out = "WARNING: Encrypted data bag detected, but no secret provided for decoding. Displaying encrypted data.\n" + json.dumps(d, indent=2)
    return run(ctx, "knife data bag show secrets %s -F json" % d["id"], out)


def n_pulumi_preview_secret_masked(ctx, i):
    org = ctx.org
    lines = ["Previewing update (%s/%s)" % (org, pick(["prod", "staging"])), "",
             "View in Browser (Ctrl+O): https://app.pulumi.com/%s/%s/prod/previews/%s" % (org, ctx.proj, uuid4()), "",
             "     Type                                 Name              Plan       Info",
             "     pulumi:pulumi:Stack                  %s-prod" % ctx.proj,
             " ~   \u251c\u2500 aws:rds:Instance                  app-db            update     [diff: ~password]",
             " +   \u2514\u2500 aws:secretsmanager:SecretVersion  db-password       create     ", "",
             "Resources:", "    + 1 to create", "    ~ 1 to update", "    2 changes. %d unchanged" % R.randint(5, 80)]
    if i % 2:
        lines += ["", "  ~ aws:rds/instance:Instance: (update)", "      [id=%s-db-%s]" % (ctx.proj, rs(7, LALNUM)),
                  "      [urn=urn:pulumi:prod::%s::aws:rds/instance:Instance::app-db]" % ctx.proj,
                  "      [provider=urn:pulumi:prod::%s::pulumi:providers:aws::default_6_%d_0::%s]" % (ctx.proj, R.randint(20, 60), uuid4()),
                  "    ~ password: [secret] => [secret]"]
    return run(ctx, "pulumi preview%s" % (" --diff" if i % 2 else ""), "\n".join(lines))


def n_terraform_docs_inputs_table(ctx, i):
    lines = ["## Requirements", "", "| Name | Version |", "|------|---------|", "| <a name=\"requirement_aws\"></a> [aws](#requirement\\_aws) | >= 5.40 |", "",
             "## Inputs", "", "| Name | Description | Type | Default | Required |", "|------|-------------|------|---------|:--------:|",
             "| <a name=\"input_db_password\"></a> [db\\_password](#input\\_db\\_password) | Master password for the RDS instance. | `string` | n/a | yes |",
             "| <a name=\"input_api_token\"></a> [api\\_token](#input\\_api\\_token) | Token for the %s API (sensitive). | `string` | n/a | yes |" % ctx.org,
             "| <a name=\"input_kms_key_id\"></a> [kms\\_key\\_id](#input\\_kms\\_key\\_id) | KMS key for encryption at rest. | `string` | `\"alias/aws/rds\"` | no |",
             "| <a name=\"input_instance_class\"></a> [instance\\_class](#input\\_instance\\_class) | n/a | `string` | `\"db.t4g.medium\"` | no |", "",
             "## Outputs", "", "| Name | Description |", "|------|-------------|",
             "| <a name=\"output_db_password_secret_arn\"></a> [db\\_password\\_secret\\_arn](#output\\_db\\_password\\_secret\\_arn) | ARN of the Secrets Manager secret holding the password |"]
    return run(ctx, "terraform-docs markdown table modules/%s" % pick(["rds", "database", "postgres"]), "\n".join(lines))


def n_build_tool_secret_references(ctx, i):
    v = i % 3
    if v == 0:
        content = "\n".join(["VERSION 0.8", "FROM node:20-alpine", "WORKDIR /app", "", "deps:", "    COPY package.json package-lock.json ./",
                             "    RUN --secret NPM_TOKEN npm ci", "    SAVE ARTIFACT node_modules", "", "publish:",
                             "    FROM +build", "    RUN --push --secret NPM_TOKEN=npm_token --secret GH_TOKEN npm publish",
                             "    SAVE IMAGE --push ghcr.io/%s/%s:latest" % (ctx.org, ctx.proj)])
        return view(ctx, "Earthfile", content)
    if v == 1:
        cmd = "dagger call publish --source=. --registry-user=%s --registry-password=env:GHCR_TOKEN --npm-token=file:$HOME/.config/%s/npm-token" % (ctx.org, ctx.proj)
        out = "\n".join(["\u2714 connect %.1fs" % (R.randint(1, 30) / 10.0), "\u2714 load module %.1fs" % (R.randint(5, 90) / 10.0),
                         "\u2714 parsing command line arguments 0.0s", "", "\u2714 %s: %s! %.1fs" % (ctx.proj.title().replace("-", ""), "Publish", R.randint(100, 900) / 10.0),
                         "", "ghcr.io/%s/%s:latest@sha256:%s" % (ctx.org, ctx.proj, hx(64))])
        return run(ctx, cmd, out)
    content = "\n".join(["# syntax=docker/dockerfile:1.7", "FROM golang:1.22 AS build", "WORKDIR /src",
                         "RUN --mount=type=secret,id=gh_token \\", "    git config --global url.\"https://x-access-token:$(cat /run/secrets/gh_token)@github.com/\".insteadOf \"https://github.com/\"",
                         "RUN --mount=type=cache,target=/go/pkg/mod go mod download", "COPY . .", "RUN CGO_ENABLED=0 go build -o /out/app ./cmd/app"])
    a = view(ctx, "Dockerfile", content, modes=["cat", "read"])
    b = run(ctx, "docker buildx build --secret id=gh_token,env=GITHUB_TOKEN -t %s:%s ." % (ctx.proj, hx(7)),
            "#1 [internal] load build definition from Dockerfile\n#1 DONE 0.0s\n#9 [build 5/6] RUN --mount=type=cache,target=/go/pkg/mod go mod download\n#9 CACHED\n#12 writing image sha256:%s done\n#12 naming to docker.io/library/%s done" % (hx(64), ctx.proj),
            frames=["prompt"])
    return joinparts(a, b)


def n_helm_values_schema_json(ctx, i):
    d = {"$schema": "https://json-schema.org/draft-07/schema#", "$id": "https://charts.%s/%s/values.schema.json" % (ctx.dom, ctx.proj),
         "type": "object", "properties": {
             "auth": {"type": "object", "properties": {
                 "existingSecret": {"type": "string", "description": "Name of an existing Secret with keys `password` and `api-token`"},
                 "password": {"type": "string", "default": "", "description": "Ignored when existingSecret is set", "writeOnly": True},
                 "apiToken": {"type": "string", "pattern": "^[A-Za-z0-9]{32}$", "default": ""}}},
             "image": {"type": "object", "properties": {"digest": {"type": "string", "pattern": "^sha256:[a-f0-9]{64}$"}}}}}
    a = view(ctx, "charts/%s/values.schema.json" % ctx.proj, json.dumps(d, indent=2), modes=["cat", "read"])
    if i % 2:
        a = joinparts(a, run(ctx, "helm lint charts/%s" % ctx.proj, "==> Linting charts/%s\n[INFO] Chart.yaml: icon is recommended\n\n1 chart(s) linted, 0 chart(s) failed" % ctx.proj, frames=["prompt"]))
    return a


def fold(s, first, width=72, indent="\t"):
    out = [first + s[:width - len(first)]]
    s = s[width - len(first):]
    while s:
        out.append(indent + s[:width])
        s = s[width:]
    return out


def n_email_raw_source_arc_headers(ctx, i):
    t = ctx.tick()
    sender = "%s@%s" % (pick(["billing", "alerts", "noreply", ctx.first]), pick(["gmail.com", ctx.dom]))
    d = httpdate(t)[:-4] + " +0000"
    lines = ["Delivered-To: %s" % ctx.email,
             "Received: by 2002:a05:%s:%s:b0:%s:%s:%s with SMTP id %s;" % (hx(4), hx(4), hx(3), hx(4), hx(4), rs(15, LALNUM)), "        %s" % d,
             "X-Google-Smtp-Source: AGHT+IF%s" % rs(80, B64),
             "X-Received: by 2002:a17:90a:%s:b0:%s:%s:%s with SMTP id %s.%d.%d;" % (hx(4), hx(3), hx(4), hx(4), rs(17, LALNUM), R.randint(1, 99), epoch_s(t) % 10 ** 10),
             "        %s" % d,
             "ARC-Seal: i=1; a=rsa-sha256; t=%d; cv=none;" % epoch_s(t), "        d=google.com; s=arc-20160816;"]
    lines += fold(b64(256), "        b=", 76, "         ")
    lines += ["ARC-Message-Signature: i=1; a=rsa-sha256; c=relaxed/relaxed; d=google.com; s=arc-20160816;",
              "        h=to:subject:message-id:date:from:mime-version:dkim-signature;", "        bh=%s;" % b64(32)]
    lines += fold(b64(256), "        b=", 76, "         ")
    lines += ["ARC-Authentication-Results: i=1; mx.google.com;", "       dkim=pass header.i=@%s header.s=%s header.b=%s;" % (sender.split("@")[1], pick(["google", "s1", "k1"]), rs(8, B64)),
              "       spf=pass (google.com: domain of %s designates %s as permitted sender) smtp.mailfrom=%s;" % (sender, ip_pub(), sender),
              "       dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=%s" % sender.split("@")[1],
              "Return-Path: <%s>" % sender,
              "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=%s; s=%s; t=%d; x=%d; darn=%s;" % (sender.split("@")[1], pick(["google", "s1"]), epoch_s(t), epoch_s(t) + 604800, ctx.dom),
              "        h=to:subject:message-id:date:from:mime-version:from:to:cc:subject:date:message-id:reply-to;",
              "        bh=%s;" % b64(32)]
    lines += fold(b64(256), "        b=", 76, "         ")
    lines += ["X-Gm-Message-State: AOJu0Y%s" % rs(60, B64), "MIME-Version: 1.0", "From: %s <%s>" % (ctx.first.title(), sender),
              "Date: %s" % d, "Message-ID: <CA%s@mail.gmail.com>" % rs(60, ALNUM + "+_-=").replace("=", "") ,
              "Subject: Re: %s" % pick(["invoice", "deploy window", "Q3 numbers", "access request"]), "To: %s" % ctx.email,
              'Content-Type: multipart/alternative; boundary="%s"' % ("0000000000" + hx(18))]
    return view(ctx, "~/Downloads/%s.eml" % pick(["original_msg", "message", "bounce"]), "\n".join(lines), modes=["head", "cat", "read"])


PUBLISHED = {
    "aws_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "stripe_sk": "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "stripe_pk": "pk_test_TYooMQauvdEDq54NiTphI7jx",
    "jwtio": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "rfc7519": "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    "azurite": "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    "cosmos": "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
}


def n_sdk_readme_published_examples(ctx, i):
    v = i % 5
    if v == 0:
        content = "\n".join(["## Configuration", "", "The client reads the standard AWS variables:", "", "```sh",
                             "export AWS_ACCESS_KEY_ID=%s" % PUBLISHED["aws_id"], "export AWS_SECRET_ACCESS_KEY=%s" % PUBLISHED["aws_secret"],
                             "export AWS_DEFAULT_REGION=us-west-2", "```", "", "(These are the example values from the AWS documentation.)"])
        return view(ctx, "README.md", content, modes=["sed", "read", "cat"])
    if v == 1:
        content = "\n".join(["# tests/test_checkout.py", "import stripe", "", "# Stripe's public documentation test key",
                             "stripe.api_key = \"%s\"" % PUBLISHED["stripe_sk"], "PUBLISHABLE = \"%s\"" % PUBLISHED["stripe_pk"], "",
                             "def test_create_session(stripe_mock):", "    s = create_session(price=\"price_%s\")" % rs(24), "    assert s.url.startswith(\"https://checkout.stripe.com/\")"])
        return view(ctx, "tests/test_checkout.py", content)
    if v == 2:
        content = "\n".join(["describe('decodeJwt', () => {", "  // sample token from jwt.io", "  const token =",
                             "    '%s';" % PUBLISHED["jwtio"], "", "  it('reads the subject', () => {",
                             "    expect(decodeJwt(token).sub).toBe('1234567890');", "  });", "});"])
        return view(ctx, "src/auth/__tests__/jwt.test.ts", content)
    if v == 3:
        content = "\n".join(["### Example", "", "The JWS below is the example from RFC 7519, section 3.1:", "", "```",
                             PUBLISHED["rfc7519"], "```", "", "Its payload is `{\"iss\":\"joe\",\"exp\":1300819380,\"http://example.com/is_root\":true}`."])
        return view(ctx, "docs/tokens.md", content)
    content = "\n".join(["# Credentials", "", "| Variable | Example |", "|---|---|", "| `AWS_ACCESS_KEY_ID` | `%s` |" % PUBLISHED["aws_id"],
                         "| `AWS_SECRET_ACCESS_KEY` | `%s` |" % PUBLISHED["aws_secret"], "| `STRIPE_KEY` | `%s` |" % PUBLISHED["stripe_sk"]])
    return run(ctx, "rg -n -A6 '^# Credentials' docs/", "\n".join("docs/setup.md:%d:%s" % (n + 40, l) if n == 0 else "docs/setup.md-%d-%s" % (n + 40, l)
                                                            for n, l in enumerate(content.split("\n"))))


def n_azurite_dev_storage_settings(ctx, i):
    v = i % 3
    if v == 0:
        d = {"IsEncrypted": False, "Values": {"AzureWebJobsStorage": "UseDevelopmentStorage=true", "FUNCTIONS_WORKER_RUNTIME": pick(["dotnet-isolated", "node", "python"]),
                                                "QueueName": "%s-jobs" % ctx.proj}}
        return view(ctx, "local.settings.json", json.dumps(d, indent=2))
    if v == 1:
        cs = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=%s;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;" % PUBLISHED["azurite"]
        content = "\n".join(["services:", "  azurite:", "    image: mcr.microsoft.com/azure-storage/azurite:3.%d.0" % R.randint(28, 33),
                             "    ports: [\"10000:10000\", \"10001:10001\", \"10002:10002\"]", "  api:", "    build: .", "    environment:",
                             "      # well-known Azurite development account", "      STORAGE_CONNECTION_STRING: \"%s\"" % cs])
        return view(ctx, "docker-compose.dev.yml", content)
    d = {"CosmosDb": {"Endpoint": "https://localhost:8081/", "Key": PUBLISHED["cosmos"], "Database": ctx.proj}}
    return view(ctx, "appsettings.Development.json", json.dumps(d, indent=2))


def n_google_services_json_android(ctx, i):
    num = digits(12)
    pid = "%s-%s" % (ctx.proj, rs(5, LALNUM))
    pkg = "com.%s.%s" % (ctx.org, ctx.proj.replace("-", ""))
    d = {"project_info": {"project_number": num, "project_id": pid, "storage_bucket": "%s.appspot.com" % pid},
         "client": [{"client_info": {"mobilesdk_app_id": "1:%s:android:%s" % (num, hx(22)), "android_client_info": {"package_name": pkg}},
                     "oauth_client": [{"client_id": "%s-%s.apps.googleusercontent.com" % (num, rs(32, LALNUM)), "client_type": 1,
                                       "android_info": {"package_name": pkg, "certificate_hash": hx(40)}},
                                      {"client_id": "%s-%s.apps.googleusercontent.com" % (num, rs(32, LALNUM)), "client_type": 3}],
                     "api_key": [{"current_key": "AIzaSy" + rs(33, ALNUM + "-_")}],
                     "services": {"appinvite_service": {"other_platform_oauth_client": [{"client_id": "%s-%s.apps.googleusercontent.com" % (num, rs(32, LALNUM)), "client_type": 3}]}}}],
         "configuration_version": "1"}
    return view(ctx, "android/app/google-services.json", json.dumps(d, indent=2))


def n_ios_plist_public_sdk_keys(ctx, i):
    num = digits(12)
    cid = rs(32, LALNUM)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
             '<plist version="1.0">', "<dict>", "\t<key>API_KEY</key>", "\t<string>AIzaSy%s</string>" % rs(33, ALNUM + "-_"),
             "\t<key>GCM_SENDER_ID</key>", "\t<string>%s</string>" % num, "\t<key>BUNDLE_ID</key>", "\t<string>com.%s.%s</string>" % (ctx.org, ctx.proj.replace("-", "")),
             "\t<key>PROJECT_ID</key>", "\t<string>%s-%s</string>" % (ctx.proj, rs(5, LALNUM)), "\t<key>GOOGLE_APP_ID</key>",
             "\t<string>1:%s:ios:%s</string>" % (num, hx(22)), "\t<key>CLIENT_ID</key>", "\t<string>%s-%s.apps.googleusercontent.com</string>" % (num, cid),
             "\t<key>REVERSED_CLIENT_ID</key>", "\t<string>com.googleusercontent.apps.%s-%s</string>" % (num, cid)]
    if i % 2:
        lines += ["\t<key>RevenueCatAPIKey</key>", "\t<string>appl_%s</string>" % rs(27), "\t<key>MixpanelToken</key>", "\t<string>%s</string>" % hx(32)]
    lines += ["</dict>", "</plist>"]
    return view(ctx, "ios/Runner/%s" % ("GoogleService-Info.plist" if i % 2 == 0 else "Info.plist"), "\n".join(lines))


def n_mobileprovision_decoded_plist(ctx, i):
    team = rs(10, UALNUM)
    t = ctx.tick()
    cert = b64e(cert_pem("Apple Distribution: %s (%s)" % (ctx.org.title(), team)))
    devs = ["%s-%s" % (pick(["00008101", "00008110", "00008120", "00008030"]), HX(16)) for _ in range(3)]
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<plist version="1.0">', "<dict>", "\t<key>AppIDName</key>", "\t<string>%s</string>" % ctx.proj,
             "\t<key>ApplicationIdentifierPrefix</key>", "\t<array>", "\t<string>%s</string>" % team, "\t</array>",
             "\t<key>CreationDate</key>", "\t<date>%s</date>" % iso(t), "\t<key>DeveloperCertificates</key>", "\t<array>",
             "\t\t<data>%s</data>" % cert, "\t</array>", "\t<key>Entitlements</key>", "\t<dict>",
             "\t\t<key>application-identifier</key>", "\t\t<string>%s.com.%s.%s</string>" % (team, ctx.org, ctx.proj.replace("-", "")),
             "\t\t<key>aps-environment</key>", "\t\t<string>development</string>", "\t\t<key>get-task-allow</key>", "\t\t<true/>",
             "\t\t<key>com.apple.developer.team-identifier</key>", "\t\t<string>%s</string>" % team, "\t</dict>",
             "\t<key>ProvisionedDevices</key>", "\t<array>"] + ["\t\t<string>%s</string>" % d for d in devs] + [
             "\t</array>", "\t<key>TeamName</key>", "\t<string>%s Ltd</string>" % ctx.org.title(), "\t<key>UUID</key>", "\t<string>%s</string>" % uuid4(),
             "\t<key>Version</key>", "\t<integer>1</integer>", "</dict>", "</plist>"]
    return run(ctx, "security cms -D -i ~/Library/MobileDevice/Provisioning\\ Profiles/%s.mobileprovision" % uuid4(), "\n".join(lines))


def n_expo_eas_build_list(ctx, i):
    blocks = []
    for n in range(2):
        t = ctx.tick(600, 90000)
        bid = uuid4()
        plat = pick(["Android", "iOS"])
        blocks.append("\n".join(["ID                        %s" % bid, "Platform                  %s" % plat, "Status                    finished",
                                 "Profile                   production", "Distribution              store", "SDK Version               51.0.0",
                                 "Version                   1.%d.%d" % (R.randint(0, 20), R.randint(0, 9)),
                                 "%s  %d" % ("Version code            " if plat == "Android" else "Build number            ", R.randint(10, 300)),
                                 "Commit                    %s" % hx(40),
                                 "Logs                      https://expo.dev/accounts/%s/projects/%s/builds/%s" % (ctx.org, ctx.proj, bid),
                                 "Artifact                  https://expo.dev/artifacts/eas/%s.%s" % (rs(22), "aab" if plat == "Android" else "ipa"),
                                 "Fingerprint               %s" % hx(40),
                                 "Started by                %s" % ctx.user, "Started at                %s" % sqlts(t)]))
    return run(ctx, "eas build:list --limit 2 --non-interactive", ("\n\n" + "\u2014" * 40 + "\n\n").join(blocks))


def n_desktop_updater_signatures(ctx, i):
    v = i % 4
    ver = "%d.%d.%d" % (R.randint(1, 4), R.randint(0, 30), R.randint(0, 9))
    if v == 0:
        lines = ['<?xml version="1.0" encoding="utf-8"?>', '<rss version="2.0" xmlns:sparkle="http://www.andymatuschak.org/xml-namespaces/sparkle">',
                 "  <channel>", "    <title>%s</title>" % ctx.proj.title(), "    <item>", "      <title>Version %s</title>" % ver,
                 "      <sparkle:version>%d</sparkle:version>" % R.randint(100, 999), "      <sparkle:shortVersionString>%s</sparkle:shortVersionString>" % ver,
                 "      <pubDate>%s +0000</pubDate>" % httpdate(ctx.t)[:-4],
                 '      <enclosure url="https://downloads.%s/%s-%s.zip" length="%d" type="application/octet-stream" sparkle:edSignature="%s"/>' % (
                     ctx.dom, ctx.proj, ver, R.randint(10 ** 7, 10 ** 8), b64(64)),
                 "    </item>", "  </channel>", "</rss>"]
        return view(ctx, "dist/appcast.xml", "\n".join(lines))
    if v == 1:
        sig = b64e(("untrusted comment: signature from tauri secret key\n%s\ntrusted comment: timestamp:%d\tfile:%s_%s_x64.app.tar.gz\n%s\n" % (
            b64(74), epoch_s(ctx.t), ctx.proj, ver, b64(64))).encode())
        d = {"version": ver, "notes": "Bug fixes", "pub_date": iso(ctx.t, 0),
             "platforms": {"darwin-x86_64": {"signature": sig, "url": "https://github.com/%s/%s/releases/download/v%s/%s_x64.app.tar.gz" % (ctx.org, ctx.proj, ver, ctx.proj)}}}
        return view(ctx, "latest.json", json.dumps(d, indent=2))
    if v == 2:
        d = {"plugins": {"updater": {"pubkey": minisign_pub(), "endpoints": ["https://github.com/%s/%s/releases/latest/download/latest.json" % (ctx.org, ctx.proj)]}},
             "bundle": {"createUpdaterArtifacts": True}}
        return view(ctx, "src-tauri/tauri.conf.json", json.dumps(d, indent=2))
    lines = ["version: %s" % ver, "files:", "  - url: %s-Setup-%s.exe" % (ctx.proj.title(), ver), "    sha512: %s" % b64(64),
             "    size: %d" % R.randint(10 ** 7, 10 ** 8), "path: %s-Setup-%s.exe" % (ctx.proj.title(), ver), "sha512: %s" % b64(64),
             "releaseDate: '%s'" % iso(ctx.t, 3)]
    return view(ctx, "dist/latest.yml", "\n".join(lines))


def n_webauthn_register_response(ctx, i):
    rid = b64u(R.choice([16, 32, 64]))
    cd = b64ue(json.dumps({"type": "webauthn.create", "challenge": b64u(32), "origin": "https://app.%s" % ctx.dom, "crossOrigin": False},
                          separators=(",", ":")).encode())
    att = "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVj" + rs(R.randint(200, 300), B64U)
    d = {"id": rid, "rawId": rid, "type": "public-key", "authenticatorAttachment": pick(["platform", "cross-platform"]),
         "response": {"clientDataJSON": cd, "attestationObject": att, "transports": pick([["internal", "hybrid"], ["usb", "nfc"]]),
                      "publicKeyAlgorithm": -7, "publicKey": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + b64(64)},
         "clientExtensionResults": {"credProps": {"rk": True}}}
    out = "%s debug webauthn.register user=%s payload=%s" % (iso(ctx.t, 3), uuid4(), json.dumps(d))
    return run(ctx, "grep webauthn.register logs/api.log | tail -n 1", out)


def n_jetbrains_workspace_xml_ids(ctx, i):
    loc = R.randint(1, 300)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<project version="4">', '  <component name="ChangeListManager">',
             '    <list default="true" id="%s" name="Changes" comment="" />' % uuid4(),
             '    <option name="SHOW_DIALOG" value="false" />', '  </component>',
             '  <component name="Git.Settings">', '    <option name="RECENT_BRANCH_BY_REPOSITORY">', '      <map>',
             '        <entry key="$PROJECT_DIR$" value="%s" />' % ctx.branch, '      </map>', '    </option>',
             '    <option name="RECENT_GIT_ROOT_PATH" value="$PROJECT_DIR$" />', '  </component>',
             '  <component name="ProjectId" id="%s" />' % rs(27),
             '  <component name="ProjectViewState">', '    <option name="hideEmptyMiddlePackages" value="true" />', '  </component>',
             '  <component name="PropertiesComponent"><![CDATA[{', '  "keyToString": {',
             '    "RunOnceActivity.ShowReadmeOnStart": "true",', '    "git-widget-placeholder": "%s",' % ctx.branch,
             '    "last_opened_file_path": "%s",' % ctx.cwd, '    "node.js.detected.package.eslint": "true"', '  }', '}]]></component>',
             '  <component name="SharedIndexes">', '    <attachedChunks>', '      <set>',
             '        <option value="bundled-jdk-%s-%s-IU-241.%d.%d" />' % (hx(8), hx(12), R.randint(14000, 19000), R.randint(10, 99)),
             '      </set>', '    </attachedChunks>', '  </component>', '  <component name="TaskManager">',
             '    <task active="true" id="Default" summary="Default task">', '      <changelist id="%s" name="Changes" comment="" />' % uuid4(),
             '      <created>%d</created>' % epoch_ms(ctx.t), '      <updated>%d</updated>' % epoch_ms(ctx.tick(60, 9000)), '    </task>',
             '    <task id="LOCAL-%05d" summary="%s">' % (loc, pick(["fix flaky test", "bump deps", "add retries"])),
             '      <option name="number" value="LOCAL-%05d" />' % loc, '    </task>', '  </component>', '</project>']
    return view(ctx, ".idea/workspace.xml", "\n".join(lines))


def n_vscode_settings_secret_refs(ctx, i):
    if i % 2 == 0:
        d = {"inputs": [{"type": "promptString", "id": "github-pat", "description": "GitHub Personal Access Token", "password": True}],
             "servers": {"github": {"command": "docker", "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
                                    "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${input:github-pat}"}}}}
        return view(ctx, ".vscode/mcp.json", json.dumps(d, indent=2))
    lines = ["{", '    "sqltools.connections": [', "        {", '            "name": "%s-local",' % ctx.proj, '            "driver": "PostgreSQL",',
             '            "server": "localhost",', '            "port": 5432,', '            "username": "postgres",',
             '            "askForPassword": true,', '            "password": ""', "        }", "    ],",
             '    "rest-client.environmentVariables": {', '        "staging": {', '            "token": "{{$processEnv STAGING_TOKEN}}"', "        }", "    },",
             '    "terminal.integrated.env.linux": {', '        "DATABASE_URL": "${env:DATABASE_URL}"', "    }", "}"]
    return view(ctx, ".vscode/settings.json", "\n".join(lines))


def n_mysqlbinlog_base64_events(ctx, i):
    t = ctx.tick()
    ts = "%02d%02d%02d %2d:%02d:%02d" % (t.year % 100, t.month, t.day, t.hour, t.minute, t.second)
    gtid = uuid4()
    blob = b64(R.randint(180, 260))
    lines = ["# The proper term is pseudo_replica_mode, but we use this compatibility alias", "# to make the statement usable on server versions 8.0.24 and older.",
             "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;", "/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;",
             "DELIMITER /*!*/;", "# at 4",
             "#%s server id 1  end_log_pos 126 CRC32 0x%s \tStart: binlog v 4, server v 8.0.%d created %s at startup" % (ts, hx(8), R.randint(30, 40), ts),
             "ROLLBACK/*!*/;", "BINLOG '"] + [blob[k:k + 76] for k in range(0, len(blob), 76)] + ["'/*!*/;", "# at %d" % R.randint(150, 300),
             "#%s server id 1  end_log_pos %d CRC32 0x%s \tGTID\tlast_committed=%d\tsequence_number=%d\trbr_only=yes\toriginal_committed_timestamp=%d\timmediate_commit_timestamp=%d\ttransaction_length=%d" % (
                 ts, R.randint(300, 400), hx(8), R.randint(0, 99), R.randint(100, 199), epoch_ms(t) * 1000, epoch_ms(t) * 1000, R.randint(300, 900)),
             "SET @@SESSION.GTID_NEXT= '%s:%d'/*!*/;" % (gtid, R.randint(1, 9999)),
             "### INSERT INTO `%s`.`orders`" % ctx.proj.replace("-", "_"), "### SET", "###   @1=%d" % R.randint(1000, 99999),
             "###   @2='pending'", "###   @3='%s'" % uuid4()]
    return run(ctx, "mysqlbinlog -vv --base64-output=auto /var/lib/mysql/binlog.%06d | head -n 30" % R.randint(1, 400), "\n".join(lines),
               styles=["root", "rhel", "bash"])


def n_redis_cluster_nodes(ctx, i):
    ids = [hx(40) for _ in range(6)]
    base = "10.%d.%d." % (R.randint(0, 255), R.randint(0, 255))
    ranges = ["0-5460", "5461-10922", "10923-16383"]
    lines = []
    for n in range(6):
        ip = base + str(11 + n)
        if n < 3:
            flags = ("myself," if n == 0 else "") + "master"
            lines.append("%s %s:6379@16379 %s - 0 %d %d connected %s" % (ids[n], ip, flags, epoch_ms(ctx.t) - R.randint(0, 999), n + 1, ranges[n]))
        else:
            lines.append("%s %s:6379@16379 slave %s 0 %d %d connected" % (ids[n], ip, ids[n - 3], epoch_ms(ctx.t) - R.randint(0, 999), n - 2))
    return run(ctx, "redis-cli -c -h %s11 cluster nodes" % base, "\n".join(lines))


def nkey_pub(prefix):
    return prefix + rs(55, B32)


def n_nats_server_info_ids(ctx, i):
    t = ctx.tick()
    sid = nkey_pub("N")
    ts = "[1] %s.%06d" % (slashts(t), R.randint(0, 999999))
    lines = ["%s [INF] Starting nats-server" % ts, "%s [INF]   Version:  2.10.%d" % (ts, R.randint(10, 22)),
             "%s [INF]   Git:      [%s]" % (ts, hx(7)), "%s [INF]   Cluster:  %s" % (ts, ctx.org),
             "%s [INF]   Name:     %s" % (ts, sid), "%s [INF]   Node:     %s" % (ts, rs(8)),
             "%s [INF]   ID:       %s" % (ts, sid), "%s [INF] Using configuration file: /etc/nats/nats-server.conf" % ts,
             "%s [INF] Trusted Operators" % ts, "%s [INF]   System  : \"\"" % ts, "%s [INF]   Operator: \"%s\"" % (ts, ctx.org),
             "%s [INF]   Issued  : %s" % (ts, sqlts(t)), "%s [INF]   Expires : Never" % ts,
             "%s [INF] Starting JetStream" % ts, "%s [INF] Listening for client connections on 0.0.0.0:4222" % ts,
             "%s [INF] Server is ready" % ts]
    if i % 2:
        lines += ["", "$ nats account info --json | jq '{account, jetstream: .jetstream.enabled}'",
                  json.dumps({"account": nkey_pub("A"), "jetstream": True}, indent=2)]
    return run(ctx, "kubectl logs -n nats nats-0 -c nats | head -n %d" % (16 if not i % 2 else 16), "\n".join(lines))


def n_mqtt_sub_sensor_payloads(ctx, i):
    lines = []
    for n in range(R.randint(4, 7)):
        dev = "esp32-%s" % hx(6)
        d = {"id": hx(12), "fw": "1.%d.%d+g%s" % (R.randint(0, 9), R.randint(0, 20), hx(7)), "rssi": -R.randint(40, 90),
             "seq": R.randint(100, 99999), "ts": epoch_s(ctx.tick()), "raw": b64(R.randint(12, 24))}
        lines.append("devices/%s/telemetry %s" % (dev, json.dumps(d, separators=(",", ":"))))
    return run(ctx, "mosquitto_sub -h mqtt.%s -p 8883 --cafile ca.crt --cert client.crt --key client.key -t 'devices/+/telemetry' -v -C %d" % (ctx.dom, len(lines)),
               "\n".join(lines))


def n_fluent_bit_startup_log(ctx, i):
    t = ctx.tick()
    ts = "[%s]" % slashts(t)
    pod = "%s-%s-%s" % (ctx.proj, hx(10), rs(5, LALNUM))
    lines = ["Fluent Bit v3.%d.%d" % (R.randint(0, 2), R.randint(0, 9)), "* Copyright (C) 2015-2024 The Fluent Bit Authors",
             "* Fluent Bit is a CNCF sub-project under the umbrella of Fluentd", "* https://fluentbit.io", "",
             "%s [ info] [fluent bit] version=3.0.%d, commit=%s, pid=1" % (ts, R.randint(0, 7), hx(10)),
             "%s [ info] [storage] ver=1.5.2, type=memory+filesystem, sync=normal, checksum=off, max_chunks_up=128" % ts,
             "%s [ info] [cmetrics] version=0.9.0" % ts, "%s [ info] [input:tail:tail.0] initializing" % ts,
             "%s [ info] [input:tail:tail.0] inotify_fs_add(): inode=%d watch_fd=1 name=/var/log/containers/%s_%s_app-%s.log" % (ts, R.randint(10 ** 5, 10 ** 7), pod, ctx.proj, hx(64)),
             "%s [ info] [filter:kubernetes:kubernetes.0] token updated" % ts,
             "%s [ info] [output:es:es.0] worker #0 started" % ts,
             "[%s] [ warn] [engine] failed to flush chunk '1-%d.%09d.flb', retry in %d seconds: task_id=%d, input=tail.0 > output=es.0 (out_id=0)" % (
                 slashts(ctx.tick(2, 30)), epoch_s(t), R.randint(0, 10 ** 9 - 1), R.randint(5, 20), R.randint(0, 9))]
    return run(ctx, "kubectl logs -n logging ds/fluent-bit --tail=20", "\n".join(lines))


def n_datadog_agent_status(ctx, i):
    t = ctx.tick()
    t0 = t - datetime.timedelta(seconds=R.randint(3600, 9000000), microseconds=R.randint(0, 999999))
    inst = "i-0" + hx(16)
    lines = ["=" * 15, "Agent (v7.%d.%d)" % (R.randint(48, 58), R.randint(0, 3)), "=" * 15, "",
             "  Status date: %s.%03d UTC (%d)" % (sqlts(t), t.microsecond // 1000, epoch_ms(t)),
             "  Agent start: %s.%03d UTC (%d)" % (sqlts(t0), t0.microsecond // 1000, epoch_ms(t0)),
             "  Pid: %d" % R.randint(100, 9999), "  Go Version: go1.21.%d" % R.randint(5, 12), "  Python Version: 3.11.%d" % R.randint(5, 9),
             "  Build arch: amd64", "  Agent flavor: agent", "  Log Level: info", "", "  Hostnames", "  =========",
             "    ec2-hostname: ip-%s.ec2.internal" % ctx.ip.replace(".", "-"), "    host_aliases: [%s]" % inst,
             "    hostname: %s" % inst, "    instance-id: %s" % inst, "    hostname provider: aws", "",
             "  Host Info", "  =========", "    hostId: %s" % uuid4(), "    kernelVersion: 6.1.%d-%d.%d.amzn2023.x86_64" % (R.randint(50, 120), R.randint(60, 130), R.randint(100, 200)),
             "", "=" * 9, "Forwarder", "=" * 9, "", "  Transactions", "  ============", "    Success: %d" % R.randint(1000, 99999),
             "", "  API Keys status", "  ===============", "    API key ending with %s: API Key valid" % hx(5)]
    return run(ctx, "sudo datadog-agent status | head -n 40", "\n".join(lines), styles=["root", "rhel", "bash"])


def n_kopia_repository_status(ctx, i):
    if i % 2 == 0:
        lines = ["%s@%s:%s/%s" % (ctx.user, ctx.host, ctx.home, pick(["photos", "src", "Documents"]))]
        for n in range(R.randint(3, 5)):
            t = ctx.tick(3600, 90000)
            lines.append("  %s %s UTC k%s %.1f GB drwxr-xr-x files:%d dirs:%d (%s)" % (ymd(t), hms(t), hx(32), R.randint(10, 500) / 10.0,
                                                                                    R.randint(1000, 90000), R.randint(50, 9000), pick(["latest-1,hourly-1", "daily-2", "weekly-1,monthly-1"])))
        return run(ctx, "kopia snapshot list", "\n".join(lines))
    ak = aws_akia()
    lines = ["Config file:         %s/.config/kopia/repository.config" % ctx.home, "", "Description:         Repository in S3: s3.amazonaws.com %s-backups" % ctx.org,
             "Hostname:            %s" % ctx.host, "Username:            %s" % ctx.user, "Read-only:           false", "Format blob cache:   15m0s", "",
             "Storage type:        s3", "Storage capacity:    unbounded", "Storage config:      {", '                       "bucket": "%s-backups",' % ctx.org,
             '                       "prefix": "kopia/",', '                       "endpoint": "s3.amazonaws.com",', '                       "accessKeyID": "%s",' % ak,
             '                       "secretAccessKey": "****************************************",', '                       "sessionToken": ""', "                     }", "",
             "Unique ID:           %s" % hx(64), "Hash:                BLAKE2B-256-128", "Encryption:          AES256-GCM-HMAC-SHA256",
             "Splitter:            DYNAMIC-4M-BUZHASH", "Format version:      3", "Content compression: true", "Password changes:    true",
             "Max pack length:     21 MB", "Index Format:        v2", "", "Epoch Manager:       enabled"]
    return run(ctx, "kopia repository status", "\n".join(lines))


def n_velero_backup_describe(ctx, i):
    t = ctx.tick()
    name = "daily-%s%02d%02d%02d" % (ymd(t, ""), t.hour, t.minute, t.second)
    lines = ["Name:         %s" % name, "Namespace:    velero", "Labels:       velero.io/schedule-name=daily", "              velero.io/storage-location=default",
             "Annotations:  velero.io/resource-timeout=10m0s", "              velero.io/source-cluster-k8s-gitversion=v1.29.%d-eks-%s" % (R.randint(1, 9), hx(7)),
             "              velero.io/source-cluster-k8s-major-version=1", "              velero.io/source-cluster-k8s-minor-version=29+", "",
             "Phase:  Completed", "", "Namespaces:", "  Included:  *", "  Excluded:  <none>", "",
             "Storage Location:  default", "", "Velero-Native Snapshot PVs:  auto",
             "Snapshot Move Data:          false", "", "TTL:  720h0m0s", "", "Backup Format Version:  1.1.0", "",
             "Started:    %s +0000 UTC" % sqlts(t), "Completed:  %s +0000 UTC" % sqlts(ctx.tick(60, 900)), "",
             "Total items to be backed up:  %d" % R.randint(300, 3000), "", "Velero-Native Snapshots:",
             "  pvc-%s:" % uuid4(), "    Snapshot ID:        snap-0%s" % hx(16), "    Type:               gp3",
             "    Availability Zone:  eu-west-1%s" % pick("abc"), "    IOPS:               3000"]
    return run(ctx, "velero backup describe %s --details" % name, "\n".join(lines))


def n_keepassxc_cli_show_protected(ctx, i):
    db = "%s/vault.kdbx" % ctx.home
    if i % 2 == 0:
        out = "\n".join(["Enter password to unlock %s: " % db, "Title: %s-prod-db" % ctx.proj, "UserName: %s" % pick(["postgres", "admin"]),
                         "Password: PROTECTED", "URL: postgres://%s:5432" % ip_priv(), "Notes: rotate quarterly", "Tags: infra"])
        return run(ctx, "keepassxc-cli show %s 'Infra/%s-prod-db'" % (db, ctx.proj), out)
    out = "\n".join(["Enter password to unlock %s: " % db, "UUID: {%s}" % uuid4(), "Name: %s" % ctx.org, "Description: ",
                     "Cipher: AES 256-bit", "KDF: Argon2d (%d rounds, 65536 KB)" % R.randint(10, 40), "Recycle bin is enabled.",
                     "Location: %s" % db, "Database created: %s" % sqlts(ctx.t), "Last saved: %s" % sqlts(ctx.tick(9000, 900000)),
                     "Unsaved changes: no", "Number of groups: %d" % R.randint(3, 30), "Number of entries: %d" % R.randint(20, 500)])
    return run(ctx, "keepassxc-cli db-info %s" % db, out)


def n_bitwarden_cli_templates_status(ctx, i):
    t = ctx.tick()
    a = run(ctx, "bw status", json.dumps({"serverUrl": pick(["https://vault.bitwarden.eu", "https://vault.%s" % ctx.dom, None]),
                                          "lastSync": iso(t, 3), "userEmail": ctx.email, "userId": uuid4(), "status": pick(["locked", "unlocked"])},
                                         separators=(",", ":")))
    if i % 2 == 0:
        b = run(ctx, "bw get template item.login", '{"uris":[],"username":"jdoe","password":"myp@ssword123","totp":"JBSWY3DPEHPK3PXP"}', frames=["prompt"])
    else:
        b = run(ctx, "bw list folders --pretty", json.dumps([{"object": "folder", "id": uuid4(), "name": n} for n in ["Infra", "Personal"]] +
                                                             [{"object": "folder", "id": None, "name": "No Folder"}], indent=2), frames=["prompt"])
    return joinparts(a, b)


def n_gcloud_secrets_versions_describe(ctx, i):
    proj = "%s-%s" % (ctx.org, pick(["prod", "platform", "shared"]))
    num = digits(12)
    sec = pick(["db-password", "stripe-key", "smtp-creds", "openai-api-key"])
    t = ctx.tick()
    if i % 2 == 0:
        lines = ["NAME  STATE    CREATED              DESTROYED"]
        for n in range(R.randint(3, 5), 0, -1):
            lines.append("%-5d %-8s %s  -" % (n, "enabled" if n > 2 else "disabled", iso(ctx.tick(-90000, -3600), 0)))
        return run(ctx, "gcloud secrets versions list %s --project=%s" % (sec, proj), "\n".join(lines))
    lines = ["clientSpecifiedPayloadChecksum: true", "createTime: '%s'" % iso(t, 6), "etag: '\"%s\"'" % hx(14),
             "name: projects/%s/secrets/%s/versions/%d" % (num, sec, R.randint(2, 9)), "replicationStatus:", "  automatic: {}", "state: ENABLED"]
    return run(ctx, "gcloud secrets versions describe latest --secret=%s --project=%s" % (sec, proj), "\n".join(lines))


def n_devtools_application_storage_public(ctx, i):
    t = ctx.tick()
    ph = "phc_" + rs(43)
    lines = ["> Object.entries(localStorage)",
             "(6) [Array(2), Array(2), Array(2), Array(2), Array(2), Array(2)]",
             "> console.table(Object.entries(localStorage))",
             "(index)  0                              1",
             "0        'ajs_anonymous_id'             '\"%s\"'" % uuid4(),
             "1        'theme'                        'dark'",
             "2        'i18nextLng'                   'en-GB'",
             "3        'ph_%s_posthog'  '{\"distinct_id\":\"%s\",\"$device_id\":\"%s\"}'" % (ph, uuid7(t), uuid7(t)),
             "4        'amp_%s'                   '%s'" % (hx(6), b64u(24)),
             "5        'ld:%s:$diagnostics'  '{\"id\":{\"diagnosticId\":\"%s\"}}'" % (b64u(20), uuid4()),
             "> document.cookie",
             "'_ga=GA1.1.%d.%d; _gid=GA1.2.%d.%d; _fbp=fb.1.%d.%d; NEXT_LOCALE=en'" % (R.randint(10 ** 8, 10 ** 10), epoch_s(t), R.randint(10 ** 8, 10 ** 10), epoch_s(t),
                                                                                  epoch_ms(t), R.randint(10 ** 8, 10 ** 10))]
    return "\n".join(lines)


def matrix_event_id():
    return "$" + b64u(32)


def n_matrix_sync_response(ctx, i):
    t = ctx.tick()
    room = "!%s:%s" % (rs(18, LETTERS), ctx.dom)
    evs = []
    for n in range(2):
        evs.append({"type": "m.room.message", "sender": "@%s:%s" % (pick(FIRST), ctx.dom), "content": {"msgtype": "m.text", "body": pick(["deployed", "on it", "lgtm", "rolling back"])},
                    "origin_server_ts": epoch_ms(ctx.tick()), "unsigned": {"age": R.randint(10, 99999)}, "event_id": matrix_event_id()})
    d = {"next_batch": "s%d_%d_0_%d_%d_%d_%d_%d_0_%d" % tuple(R.randint(10, 999999) for _ in range(8)),
         "rooms": {"join": {room: {"timeline": {"events": evs, "limited": False, "prev_batch": "t%d-%d_%d_0" % (R.randint(10, 999), R.randint(10 ** 5, 10 ** 7), R.randint(10, 9999))}}}},
         "device_one_time_keys_count": {"signed_curve25519": R.randint(0, 50)}, "device_unused_fallback_key_types": ["signed_curve25519"]}
    return run(ctx, "curl -s -H \"Authorization: Bearer $MATRIX_TOKEN\" 'https://matrix.%s/_matrix/client/v3/sync?timeout=0&filter=%d' | jq ." % (ctx.dom, R.randint(0, 9)),
               json.dumps(d, indent=2))


def n_adyen_webhook_notification_json(ctx, i):
    t = ctx.tick()
    items = []
    for n in range(R.randint(1, 2)):
        items.append({"NotificationRequestItem": {"additionalData": {"hmacSignature": b64(32), "paymentLinkId": "PL" + rs(14, UALNUM),
                                                                       "recurring.recurringDetailReference": rs(16, UALNUM)},
                                                    "amount": {"currency": pick(["EUR", "GBP", "USD"]), "value": R.randint(500, 99999)},
                                                    "eventCode": pick(["AUTHORISATION", "CAPTURE", "REFUND"]), "eventDate": iso(t, 0, "+02:00"),
                                                    "merchantAccountCode": "%sECOM" % ctx.org.title(), "merchantReference": "order-%d" % R.randint(1000, 99999),
                                                    "pspReference": rs(16, UALNUM), "paymentMethod": pick(["visa", "mc", "ideal", "klarna"]),
                                                    "reason": "%06d:1111:03/2030" % R.randint(0, 999999), "success": "true"}})
    d = {"live": "false", "notificationItems": items}
    return run(ctx, "jq . tests/fixtures/adyen/%s.json" % pick(["authorisation", "capture", "refund"]), json.dumps(d, indent=2))


def okta_id(prefix):
    return prefix + rs(17, ALNUM)


def n_okta_system_log_events(ctx, i):
    evs = []
    for n in range(R.randint(1, 2)):
        t = ctx.tick()
        evs.append({"actor": {"id": okta_id("00u"), "type": "User", "alternateId": ctx.email, "displayName": "%s %s" % (ctx.first.title(), ctx.last.title())},
                    "client": {"userAgent": {"rawUserAgent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)", "os": "Mac OS X", "browser": "CHROME"},
                               "ipAddress": ip_pub(), "zone": "null"},
                    "authenticationContext": {"externalSessionId": "102" + rs(22, ALNUM)},
                    "displayMessage": "User login to Okta", "eventType": "user.session.start",
                    "outcome": {"result": "SUCCESS"}, "published": iso(t, 3), "severity": "INFO",
                    "debugContext": {"debugData": {"requestId": rs(26, ALNUM) + "AAA", "dtHash": hx(64), "requestUri": "/idp/idx/identify",
                                                   "threatSuspected": "false"}},
                    "transaction": {"type": "WEB", "id": rs(26, ALNUM) + "AAA"}, "uuid": uuid4(), "version": "0"})
    return run(ctx, "okta-cli logs --since 1h --filter 'eventType eq \"user.session.start\"' | jq .", json.dumps(evs, indent=2))


def n_ipynb_cell_ids_widget_models(ctx, i):
    mids = [hx(32) for _ in range(2)]
    nb = {"cells": [{"cell_type": "code", "execution_count": R.randint(1, 40), "id": rs(8, LALNUM) if i % 2 else uuid4(), "metadata": {},
                     "outputs": [{"data": {"application/vnd.jupyter.widget-view+json": {"model_id": mids[0], "version_major": 2, "version_minor": 0},
                                           "text/plain": ["HBox(children=(IntProgress(value=0, max=%d), HTML(value='')))" % R.randint(10, 999)]},
                                  "metadata": {}, "output_type": "display_data"}],
                     "source": ["for batch in tqdm(loader):\n", "    step(batch)"]}],
          "metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": {mids[0]: {"model_module": "@jupyter-widgets/controls",
                                                                                                     "model_name": "HBoxModel", "model_module_version": "1.5.0",
                                                                                                     "state": {"children": ["IPY_MODEL_" + mids[1]]}}},
                                                                                  "version_major": 2, "version_minor": 0}},
                       "colab": {"provenance": [], "gpuType": "T4"}},
          "nbformat": 4, "nbformat_minor": 5}
    return view(ctx, "notebooks/%s.ipynb" % pick(["train", "eval", "sweep"]), json.dumps(nb, indent=1), modes=["cat", "head", "read"])


def bcrypt_hash(cost=12, v="2a"):
    return "$%s$%02d$%s" % (v, cost, rs(53, CRYPT64))


def n_csv_user_export_hashes(ctx, i):
    rows = ["id,email,encrypted_password,api_key_prefix,api_key_sha256,confirmed_at"]
    for n in range(R.randint(4, 6)):
        rows.append("%s,%s.%s@%s,%s,ak_%s,%s,%s" % (uuid4(), pick(FIRST), pick(LAST), pick([ctx.dom, "gmail.com", "outlook.com"]), bcrypt_hash(pick([10, 11, 12])),
                                                 rs(4, LALNUM), hx(64), iso(ctx.tick(3600, 900000), 3)))
    return view(ctx, "exports/users-%s.csv" % ymd(ctx.t, ""), "\n".join(rows), modes=["head", "cat", "read"])


def n_sentry_event_filtered(ctx, i):
    t = ctx.tick()
    d = {"event_id": hx(32), "release": "%s@%s" % (ctx.proj, hx(40)), "environment": "production", "platform": "python",
         "contexts": {"trace": {"trace_id": hx(32), "span_id": hx(16), "op": "http.server", "status": "internal_error"}},
         "request": {"url": "https://api.%s/v1/orders" % ctx.dom, "method": "POST",
                     "headers": [["Authorization", "[Filtered]"], ["Cookie", "[Filtered]"], ["X-Request-Id", uuid4()], ["User-Agent", "okhttp/4.12.0"]],
                     "data": {"card_number": "[Filtered]", "amount": R.randint(100, 9999)}},
         "fingerprint": ["{{ default }}"], "sdk": {"name": "sentry.python.fastapi", "version": "2.%d.%d" % (R.randint(0, 19), R.randint(0, 3))},
         "_meta": {"request": {"headers": {"0": {"1": {"": {"rem": [["@password:filter", "s", 0, 10]], "len": R.randint(40, 200)}}}}}},
         "timestamp": epoch_s(t) + R.random()}
    return run(ctx, "sentry-cli api /projects/%s/%s/events/%s/ | jq '{event_id, release, environment, platform, contexts, request, fingerprint, sdk, _meta, timestamp}'" % (
        ctx.org, ctx.proj, d["event_id"]), json.dumps(d, indent=2))


def n_jvm_thread_dump(ctx, i):
    t = ctx.tick()
    tids = ["0x00007f%s" % hx(10) for _ in range(4)]
    jv = "21.0.%d" % R.randint(1, 5)
    lines = [sqlts(t), "Full thread dump OpenJDK 64-Bit Server VM (%s+%d-LTS mixed mode, sharing):" % (jv, R.randint(5, 13)), "",
             "Threads class SMR info:", "_java_thread_list=0x00007f%s, length=%d, elements={" % (hx(10), R.randint(20, 90)), ", ".join(tids), "}", ""]
    names = ["main", "http-nio-8080-exec-%d" % R.randint(1, 20), "HikariPool-1 housekeeper", "Reference Handler"]
    for n, nm in enumerate(names):
        lines += ['"%s" #%d [%d] %sprio=5 os_prio=0 cpu=%.2fms elapsed=%.2fs tid=%s nid=%d waiting on condition  [0x00007f%s]' % (
            nm, n + 1, R.randint(1000, 9999), "daemon " if n else "", R.random() * 5000, R.random() * 9000, tids[n], R.randint(1000, 9999), hx(10)),
                  "   java.lang.Thread.State: TIMED_WAITING (parking)", "\tat jdk.internal.misc.Unsafe.park(java.base@%s/Native Method)" % jv,
                  "\t- parking to wait for  <0x00000000%s> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)" % hx(8),
                  "\tat java.util.concurrent.locks.LockSupport.parkNanos(java.base@%s/LockSupport.java:269)" % jv, ""]
    return run(ctx, "jstack %d | head -n 40" % R.randint(1000, 99999), "\n".join(lines))


def n_dotnet_exception_trace(ctx, i):
    ns = ctx.org.title() + "." + "".join(w.title() for w in ctx.proj.split("-"))
    trace = "00-%s-%s-01" % (hx(32), hx(16))
    conn = "0HN" + rs(10, UALNUM)
    lines = ["fail: Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware[1]",
             "      An unhandled exception has occurred while executing the request.",
             "      System.InvalidOperationException: Sequence contains no elements",
             "         at System.Linq.ThrowHelper.ThrowNoElementsException()",
             "         at %s.Services.OrderService.GetLatestAsync(Guid customerId) in /src/%s/Services/OrderService.cs:line %d" % (ns, ns, R.randint(20, 200)),
             "      --- End of stack trace from previous location ---",
             "         at %s.Controllers.OrdersController.Latest(Guid id) in /src/%s/Controllers/OrdersController.cs:line %d" % (ns, ns, R.randint(20, 200)),
             "         at Microsoft.AspNetCore.Mvc.Infrastructure.ActionMethodExecutor.TaskOfIActionResultExecutor.Execute(ActionContext actionContext, IActionResultTypeMapper mapper, ObjectMethodExecutor executor, Object controller, Object[] arguments)",
             "info: Microsoft.AspNetCore.Hosting.Diagnostics[2]",
             "      Request finished HTTP/1.1 GET http://localhost:5080/api/orders/%s/latest - 500 - application/problem+json %.4fms" % (uuid4(), R.random() * 300),
             "      => SpanId:%s, TraceId:%s, ParentId:0000000000000000 => ConnectionId:%s => RequestPath:/api/orders => RequestId:%s:00000002" % (
                 hx(16), trace.split("-")[1], conn, conn)]
    return run(ctx, "dotnet run --project src/%s" % ns, "\n".join(lines), styles=["ps", "bash", "bare"])


def n_junit_xml_surefire_report(ctx, i):
    cls = "com.%s.%s.OrderServiceTest" % (ctx.org, ctx.proj.replace("-", ""))
    a, b = uuid4(), uuid4()
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report-3.0.xsd" version="3.0" name="%s" time="%.3f" tests="4" errors="0" skipped="0" failures="1">' % (cls, R.random() * 5),
             '  <properties>', '    <property name="java.runtime.name" value="OpenJDK Runtime Environment"/>',
             '    <property name="java.vm.version" value="21.0.%d+%d-LTS"/>' % (R.randint(1, 5), R.randint(5, 13)),
             '    <property name="user.dir" value="%s"/>' % ctx.cwd, '    <property name="surefire.test.class.path" value="%s/target/test-classes:%s/target/classes"/>' % (ctx.cwd, ctx.cwd),
             '  </properties>', '  <testcase name="createsOrder" classname="%s" time="%.3f"/>' % (cls, R.random()),
             '  <testcase name="rejectsDuplicateIdempotencyKey" classname="%s" time="%.3f">' % (cls, R.random()),
             '    <failure message="expected: &lt;%s&gt; but was: &lt;%s&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <%s> but was: <%s>' % (a, b, a, b),
             '\tat %s.rejectsDuplicateIdempotencyKey(OrderServiceTest.java:%d)' % (cls, R.randint(30, 200)), ']]></failure>',
             '    <system-out><![CDATA[%s DEBUG idempotency key=%s hash=%s]]></system-out>' % (iso(ctx.t, 3), a, hx(64)), '  </testcase>', '</testsuite>']
    return view(ctx, "target/surefire-reports/TEST-%s.xml" % cls, "\n".join(lines), modes=["cat", "read", "head"])


def n_git_curl_verbose_redacted(ctx, i):
    t = ctx.tick()

    def ts():
        tt = ctx.tick(0, 0)
        return "%s.%06d" % (hms(tt), tt.microsecond)
    repo = "%s/%s" % (ctx.org, ctx.proj)
    ip = "140.82.%d.%d" % (R.randint(112, 121), R.randint(2, 9))
    reqid = "%s:%s:%s:%s:%s" % (HX(4), HX(5), HX(6), HX(6), HX(8))
    lines = ["%s git.c:463               trace: built-in: git fetch origin" % ts(),
             "%s run-command.c:659       trace: run_command: GIT_DIR=.git git remote-https origin https://github.com/%s.git" % (ts(), repo),
             "%s http.c:845              == Info: Couldn't find host github.com in the .netrc file; using defaults" % ts(),
             "%s http.c:845              == Info:   Trying %s:443..." % (ts(), ip),
             "%s http.c:845              == Info: Connected to github.com (%s) port 443" % (ts(), ip),
             "%s http.c:845              == Info: SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256 / X25519 / id-ecPublicKey" % ts(),
             "%s http.c:792              => Send header: GET /%s.git/info/refs?service=git-upload-pack HTTP/2" % (ts(), repo),
             "%s http.c:792              => Send header: Host: github.com" % ts(),
             "%s http.c:792              => Send header: Authorization: Basic <redacted>" % ts(),
             "%s http.c:792              => Send header: User-Agent: git/2.%d.%d" % (ts(), R.randint(40, 47), R.randint(0, 3)),
             "%s http.c:792              => Send header: Git-Protocol: version=2" % ts(),
             "%s http.c:792              <= Recv header: HTTP/2 200" % ts(),
             "%s http.c:792              <= Recv header: etag: W/\"%s\"" % (ts(), hx(32)),
             "%s http.c:792              <= Recv header: x-github-request-id: %s" % (ts(), reqid)]
    return run(ctx, "GIT_TRACE=1 GIT_CURL_VERBOSE=1 git fetch origin 2>&1 | head -n 14", "\n".join(lines))


def icbrt(n):
    x = int(round(n ** (1.0 / 3)))
    while x ** 3 > n:
        x -= 1
    while (x + 1) ** 3 <= n:
        x += 1
    return x


def isqrt(n):
    x = int(n ** 0.5)
    while x * x > n:
        x -= 1
    while (x + 1) * (x + 1) <= n:
        x += 1
    return x


PRIMES = [p for p in range(2, 320) if all(p % q for q in range(2, p))][:64]
SHA256_K = [icbrt(p << 96) & 0xFFFFFFFF for p in PRIMES]
SHA256_IV = [isqrt(p << 64) & 0xFFFFFFFF for p in PRIMES[:8]]
SHA512_IV = [isqrt(p << 128) & 0xFFFFFFFFFFFFFFFF for p in PRIMES[:8]]


def n_crypto_constants_source(ctx, i):
    v = i % 4
    off = R.randint(0, 40)
    ks = SHA256_K[off:off + 16]
    if v == 0:
        lines = ["/// Round constants (first 32 bits of the fractional parts of the cube roots of the first 64 primes).",
                 "const K: [u32; 64] = ["] + ["    " + ", ".join("0x%08x" % k for k in SHA256_K[r:r + 8]) + "," for r in range(0, 64, 8)] + [
                 "];", "", "const H0: [u32; 8] = [", "    " + ", ".join("0x%08x" % h for h in SHA256_IV), "];", "",
                 "#[test]", "fn abc() {", '    assert_eq!(hex(&sha256(b"abc")), "%s");' % hashlib.sha256(b"abc").hexdigest(), "}"]
        return view(ctx, "src/sha256.rs", "\n".join(lines))
    if v == 1:
        lines = ["package blake2b", "", "// iv is the SHA-512 initial hash value, shared by BLAKE2b.", "var iv = [8]uint64{"] + [
            "\t0x%016x, 0x%016x," % (SHA512_IV[r], SHA512_IV[r + 1]) for r in range(0, 8, 2)] + ["}", "",
            "// sigma from RFC 7693", "var sigma = [12][16]byte{", "\t{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},",
            "\t{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},", "}"]
        return view(ctx, "internal/blake2b/const.go", "\n".join(lines))
    if v == 2:
        msg = pick([b"", b"abc", b"The quick brown fox jumps over the lazy dog", b"hello world"])
        lines = ["import hashlib, hmac", "", "VECTORS = ["]
        for m in [msg, b"%s-%d" % (ctx.proj.encode(), R.randint(1, 99))]:
            lines.append("    (%r, %r)," % (m, hashlib.sha256(m).hexdigest()))
        lines += ["]", "", "# golden-ratio constant used for hashing ints", "GOLDEN = 0x9E3779B97F4A7C15", "",
                  "def test_vectors():", "    for msg, want in VECTORS:", "        assert hashlib.sha256(msg).hexdigest() == want"]
        return view(ctx, "tests/test_digest.py", "\n".join(lines))
    lines = ["/* ChaCha20 constants: \"expand 32-byte k\" */", "static const uint32_t sigma[4] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 };", "",
             "static const uint32_t K[16] = {"] + ["    " + ", ".join("0x%08xU" % k for k in ks[r:r + 4]) + "," for r in range(0, 16, 4)] + [
             "};", "", "#define FNV64_OFFSET 0xcbf29ce484222325ULL", "#define FNV64_PRIME  0x100000001b3ULL"]
    return view(ctx, "src/crypto/consts.h", "\n".join(lines))


def n_haskell_stack_yaml_lock(ctx, i):
    lines = ["# This file was autogenerated by Stack.", "# You should not edit this file by hand.", "# For more information, please see the documentation at:",
             "#   https://docs.haskellstack.org/en/stable/topics/lock_files", "", "packages:"]
    for p in R.sample(["servant-0.20.1", "aeson-2.2.1.0", "hasql-1.6.4.4", "warp-3.3.31", "optparse-applicative-0.18.1.0", "lens-5.2.3", "katip-0.8.8.0"], 3):
        lines += ["- completed:", "    hackage: %s@sha256:%s,%d" % (p, hx(64), R.randint(1000, 9999)), "    pantry-tree:",
                  "      sha256: %s" % hx(64), "      size: %d" % R.randint(300, 9000), "  original:", "    hackage: %s" % p]
    lts = "%d.%d" % (R.randint(21, 23), R.randint(1, 40))
    lines += ["snapshots:", "- completed:", "    sha256: %s" % hx(64), "    size: %d" % R.randint(600000, 800000),
              "    url: https://raw.githubusercontent.com/commercialhaskell/stackage-snapshots/master/lts/%s/%s.yaml" % tuple(lts.split(".")),
              "  original: lts-%s" % lts]
    return view(ctx, "stack.yaml.lock", "\n".join(lines))


def n_lazy_lock_json(ctx, i):
    plugins = sorted(R.sample(["LuaSnip", "blink.cmp", "conform.nvim", "fzf-lua", "gitsigns.nvim", "lazy.nvim", "lualine.nvim", "mason.nvim",
                               "mini.nvim", "noice.nvim", "nvim-lspconfig", "nvim-treesitter", "oil.nvim", "snacks.nvim", "telescope.nvim",
                               "tokyonight.nvim", "trouble.nvim", "which-key.nvim"], 9), key=str.lower)
    lines = ["{"] + ['  "%s": { "branch": "%s", "commit": "%s" }%s' % (p, pick(["main", "master"]), hx(40), "," if n < len(plugins) - 1 else "")
                     for n, p in enumerate(plugins)] + ["}"]
    return view(ctx, "~/.config/nvim/lazy-lock.json", "\n".join(lines))


def n_renv_lock_json(ctx, i):
    pk = {}
    for name, ver in R.sample([("cli", "3.6.2"), ("dplyr", "1.1.4"), ("ggplot2", "3.5.1"), ("rlang", "1.1.3"), ("shiny", "1.8.1"), ("tibble", "3.2.1"), ("vctrs", "0.6.5")], 3):
        pk[name] = {"Package": name, "Version": ver, "Source": "Repository", "Repository": "CRAN", "Requirements": ["R", "utils"], "Hash": hx(32)}
    pk["%sutils" % ctx.org] = {"Package": "%sutils" % ctx.org, "Version": "0.%d.0" % R.randint(1, 9), "Source": "GitHub", "RemoteType": "github",
                               "RemoteHost": "api.github.com", "RemoteUsername": ctx.org, "RemoteRepo": "%sutils" % ctx.org, "RemoteRef": "main",
                               "RemoteSha": hx(40), "Hash": hx(32)}
    d = {"R": {"Version": "4.%d.%d" % (R.randint(2, 4), R.randint(0, 3)), "Repositories": [{"Name": "CRAN", "URL": "https://packagemanager.posit.co/cran/latest"}]},
         "Packages": pk}
    return view(ctx, "renv.lock", json.dumps(d, indent=2))


def n_julia_manifest_toml(ctx, i):
    lines = ["# This file is machine-generated - editing it directly is not advised", "",
             'julia_version = "1.10.%d"' % R.randint(0, 5), 'manifest_format = "2.0"', 'project_hash = "%s"' % hx(40)]
    for name, ver in R.sample([("CSV", "0.10.14"), ("DataFrames", "1.6.1"), ("Plots", "1.40.4"), ("JSON3", "1.14.0"), ("HTTP", "1.10.8"), ("Flux", "0.14.15")], 3):
        lines += ["", "[[deps.%s]]" % name, 'deps = ["Dates", "Mmap", "Parsers", "Tables"]', 'git-tree-sha1 = "%s"' % hx(40),
                  'uuid = "%s"' % uuid4(), 'version = "%s"' % ver]
    return view(ctx, "Manifest.toml", "\n".join(lines), modes=["head", "cat", "read"])


def n_phx_digest_cache_manifest(ctx, i):
    latest, digests = {}, {}
    for f in ["assets/app.js", "assets/app.css", "images/logo.svg", "favicon.ico"]:
        h = hx(32)
        base, ext = f.rsplit(".", 1)
        dig = "%s-%s.%s" % (base, h, ext)
        latest[f] = dig
        digests[dig] = {"size": R.randint(1000, 900000), "mtime": R.randint(63870000000, 63900000000), "logical_path": f, "digest": h, "sha512": b64(64)}
    d = {"latest": latest, "version": 1, "digests": digests}
    a = run(ctx, "MIX_ENV=prod mix phx.digest", 'Check your digested files at "priv/static"', frames=["prompt"])
    return joinparts(a, run(ctx, "jq . priv/static/cache_manifest.json", json.dumps(d, indent=2), frames=["prompt"]))


def n_packer_build_artifacts(ctx, i):
    t = ctx.tick()
    b = "amazon-ebs.%s" % pick(["ubuntu", "al2023", "debian"])
    src, ami, inst = "ami-0" + hx(16), "ami-0" + hx(16), "i-0" + hx(16)
    name = "%s-%s-%s%02d%02d" % (ctx.org, ctx.proj, ymd(t, ""), t.hour, t.minute)
    lines = ["==> %s: Prevalidating any provided VPC information" % b, "==> %s: Prevalidating AMI Name: %s" % (b, name),
             "    %s: Found Image ID: %s" % (b, src), "==> %s: Creating temporary keypair: packer_%s" % (b, uuid4()[:8] + "-" + uuid4()[9:]),
             "==> %s: Creating temporary security group for this instance: packer_%s" % (b, uuid4()),
             "==> %s: Launching a source AWS instance..." % b, "    %s: Instance ID: %s" % (b, inst),
             "==> %s: Waiting for instance (%s) to become ready..." % (b, inst), "==> %s: Using SSH communicator to connect: %s" % (b, ip_priv()),
             "==> %s: Connected to SSH!" % b, "==> %s: Provisioning with shell script: scripts/bootstrap.sh" % b,
             "==> %s: Stopping the source instance..." % b, "==> %s: Creating AMI %s from instance %s" % (b, name, inst),
             "    %s: AMI: %s" % (b, ami), "==> %s: Waiting for AMI to become ready..." % b,
             "==> %s: Deleting temporary keypair..." % b, "Build '%s' finished after %d minutes %d seconds." % (b, R.randint(3, 15), R.randint(0, 59)), "",
             "==> Builds finished. The artifacts of successful builds are:", "--> %s: AMIs were created:" % b, "eu-west-1: %s" % ami]
    return run(ctx, "packer build -var-file=prod.pkrvars.hcl .", "\n".join(lines))


def n_oci_layout_index_json(ctx, i):
    blobs = [hx(64) for _ in range(R.randint(4, 6))]
    tree = ["oci-layout/", "\u251c\u2500\u2500 blobs", "\u2502\u00a0\u00a0 \u2514\u2500\u2500 sha256"]
    for n, b in enumerate(blobs):
        tree.append("\u2502\u00a0\u00a0     %s\u2500\u2500 %s" % ("\u2514" if n == len(blobs) - 1 else "\u251c", b))
    tree += ["\u251c\u2500\u2500 index.json", "\u2514\u2500\u2500 oci-layout", "", "3 directories, %d files" % (len(blobs) + 2)]
    idx = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
           "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:" + blobs[0], "size": R.randint(400, 1200),
                          "annotations": {"org.opencontainers.image.ref.name": "v%d.%d.%d" % (R.randint(0, 3), R.randint(0, 20), R.randint(0, 9)),
                                          "io.containerd.image.name": "ghcr.io/%s/%s" % (ctx.org, ctx.proj)}}]}
    return joinparts(run(ctx, "tree oci-layout", "\n".join(tree), frames=["prompt"]),
                     run(ctx, "jq . oci-layout/index.json", json.dumps(idx, indent=2), frames=["prompt"]))


def n_sbom_cyclonedx_json(ctx, i):
    comps = []
    for name, ver in R.sample([("lodash", "4.17.21"), ("express", "4.19.2"), ("zod", "3.23.8"), ("axios", "1.7.2"), ("pg", "8.11.5"), ("react", "18.3.1")], 3):
        comps.append({"bom-ref": "pkg:npm/%s@%s?package-id=%s" % (name, ver, hx(16)), "type": "library", "name": name, "version": ver,
                      "hashes": [{"alg": "SHA-512", "content": hashlib.sha512(ubytes(16)).hexdigest()}],
                      "purl": "pkg:npm/%s@%s" % (name, ver)})
    d = {"$schema": "http://cyclonedx.org/schema/bom-1.5.schema.json", "bomFormat": "CycloneDX", "specVersion": "1.5",
         "serialNumber": "urn:uuid:%s" % uuid4(), "version": 1,
         "metadata": {"timestamp": iso(ctx.t, 0, "Z"), "tools": {"components": [{"type": "application", "author": "anchore", "name": "syft", "version": "1.%d.%d" % (R.randint(0, 9), R.randint(0, 5))}]},
                      "component": {"bom-ref": hx(16), "type": "container", "name": "ghcr.io/%s/%s" % (ctx.org, ctx.proj), "version": "sha256:" + hx(64)}},
         "components": comps}
    return run(ctx, "syft ghcr.io/%s/%s:latest -o cyclonedx-json | jq '{bomFormat, serialNumber, metadata, components: .components[:3]}'" % (ctx.org, ctx.proj),
               json.dumps(d, indent=2))


def n_cisco_show_run_hashes_certs(ctx, i):
    host = "%s-%s-%02d" % (pick(["edge", "core", "wan"]), pick(["rtr", "sw"]), R.randint(1, 40))
    cert = cert_pem("IOS-Self-Signed-Certificate").hex().upper()[:8 * 8 * 6]
    tp = "TP-self-signed-%d" % R.randint(10 ** 9, 4 * 10 ** 9)
    lines = ["Building configuration...", "", "Current configuration : %d bytes" % R.randint(4000, 16000), "!", "hostname %s" % host, "!",
             "enable secret 9 %s" % cisco9(), "!", "username netops privilege 15 secret 9 %s" % cisco9(),
             "username backup secret 5 $1$%s$%s" % (rs(4, CRYPT64), rs(22, CRYPT64)), "!",
             "crypto pki trustpoint %s" % tp, " enrollment selfsigned", " subject-name cn=IOS-Self-Signed-Certificate-%s" % tp.split("-")[-1],
             " revocation-check none", " rsakeypair %s" % tp, "!", "crypto pki certificate chain %s" % tp, " certificate self-signed 01"]
    for r in range(0, len(cert), 64):
        chunk = cert[r:r + 64]
        lines.append("  " + " ".join(chunk[k:k + 8] for k in range(0, len(chunk), 8)))
    lines += ["  \tquit", "!", "end"]
    return run(ctx, "ssh netops@%s 'show running-config'" % host, "\n".join(lines))


def n_trivy_secret_scan_masked(ctx, i):
    f = pick([".env", "config/settings.py", "deploy/values.yaml"])
    rule = pick([("AWS", "aws-access-key-id", "AWS Access Key ID", "AWS_ACCESS_KEY_ID="), ("GitHub", "github-pat", "GitHub Personal Access Token", "GITHUB_TOKEN="),
                 ("Stripe", "stripe-secret-token", "Stripe Secret Key", "STRIPE_SECRET_KEY=")])
    bar = "\u2550" * 60
    thin = "\u2500" * 60
    lines = ["", "/app/%s (secrets)" % f, "", "Total: 1 (UNKNOWN: 0, LOW: 0, MEDIUM: 0, HIGH: 0, CRITICAL: 1)", "",
             "CRITICAL: %s (%s)" % (rule[0], rule[1]), bar, rule[2], thin, " /app/%s:3 (offset: %d bytes)" % (f, R.randint(20, 200)), thin,
             "   1   APP_ENV=production", "   2   LOG_LEVEL=info", "   3 [ %s%s" % (rule[3], "*" * R.randint(20, 40)), "   4   REGION=eu-west-1", thin]
    return run(ctx, "trivy image --scanners secret ghcr.io/%s/%s:%s" % (ctx.org, ctx.proj, hx(7)), "\n".join(lines))


def n_opensearch_keycloak_hashes(ctx, i):
    if i % 2 == 0:
        lines = ["---", "_meta:", '  type: "internalusers"', "  config_version: 2", ""]
        for u in ["admin", "kibanaserver", "logstash", ctx.first]:
            lines += ["%s:" % u, '  hash: "%s"' % bcrypt_hash(12, "2y"), "  reserved: %s" % ("true" if u != ctx.first else "false"),
                      '  backend_roles:', '  - "%s"' % ("admin" if u == "admin" else "readall"), '  description: "%s user"' % u, ""]
        return view(ctx, "opensearch/config/opensearch-security/internal_users.yml", "\n".join(lines).rstrip())
    lines = [" user_id                              | type     | secret_data | credential_data", "-" * 38 + "+----------+-------------+" + "-" * 60]
    for n in range(R.randint(2, 4)):
        sd = '{"value":"%s","salt":"%s","additionalParameters":{}}' % (b64(64), b64(16))
        cd = '{"hashIterations":27500,"algorithm":"pbkdf2-sha256","additionalParameters":{}}'
        lines.append(" %s | password | %s | %s" % (uuid4(), sd, cd))
    lines.append("(%d rows)" % (len(lines) - 2))
    return run(ctx, "psql -h %s -U keycloak -c \"select user_id, type, secret_data, credential_data from credential where type='password' limit 4\"" % ip_priv(),
               "\n".join(lines))


# ================================================================ driver and checks

QUOTES = "\"'`"
SCHEMES = ("Bearer ", "Basic ", "token ")


def spans_of(text):
    spans = []
    start = None
    for idx, ch in enumerate(text):
        if ch == "\u00ab":
            assert start is None, "nested mark"
            start = idx
        elif ch == "\u00bb":
            assert start is not None, "unbalanced close mark"
            spans.append(text[start + 1:idx])
            start = None
    assert start is None, "unbalanced open mark"
    return spans


def unmarked_rest(text):
    out = []
    inside = False
    for ch in text:
        if ch == "\u00ab":
            inside = True
            out.append("\x00")
        elif ch == "\u00bb":
            inside = False
        elif not inside:
            out.append(ch)
    return "".join(out)


def check_row(text, positive, where):
    if not positive:
        assert "\u00ab" not in text and "\u00bb" not in text, "%s: mark in a negative row" % where
        return []
    spans = spans_of(text)
    assert spans, "%s: positive row without a mark" % where
    rest = unmarked_rest(text)
    for s in spans:
        assert s, "%s: empty mark" % where
        assert s == s.strip(), "%s: outer whitespace in %r" % (where, s[:40])
        assert s[0] not in QUOTES and s[-1] not in QUOTES, "%s: quote in mark %r" % (where, s[:40])
        assert not s.startswith(SCHEMES), "%s: scheme word in mark %r" % (where, s[:40])
        if len(s) >= 8:
            assert s not in rest, "%s: secret also printed unmarked: %r" % (where, s[:40])
    return spans


def templates(prefix):
    out = []
    for name, fn in list(globals().items()):
        if name.startswith(prefix) and callable(fn):
            out.append((name[len(prefix):], fn))
    return out


def main():
    pos, neg = templates("p_"), templates("n_")
    assert len(pos) == 60 and len(neg) == 60, (len(pos), len(neg))
    names = [n for n, _ in pos + neg]
    assert len(names) == len(dict.fromkeys(names)), "duplicate template names"
    rows = []
    owner = {}
    nspans = 0
    rid = 0
    for positive, group in ((True, pos), (False, neg)):
        for name, fn in group:
            for i in range(5):
                rid += 1
                ctx = Ctx()
                text = fn(ctx, i)
                spans = check_row(text, positive, "id %d (%s)" % (rid, name))
                nspans += len(spans)
                for s in spans:
                    if len(s) >= 8:
                        assert owner.get(s, rid) == rid, "id %d (%s): secret reused from id %d" % (rid, name, owner[s])
                        owner[s] = rid
                rows.append({"id": rid, "template": name, "positive": positive, "text": text})
    assert len(rows) == 600 and [r["id"] for r in rows] == list(range(1, 601))
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    sys.stdout.buffer.write(data.encode("utf-8"))
    sys.stderr.write("rows=%d positive=%d spans=%d\n" % (len(rows), sum(r["positive"] for r in rows), nspans))


if __name__ == "__main__":
    main()
