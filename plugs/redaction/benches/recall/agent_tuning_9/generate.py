#!/usr/bin/env python3
"""Ninth tuning set written apart: what a coding agent sees inside an
application repository (search hits, diffs, test failures, debug prints,
HTTP traces, framework config, package-manager credentials, editor views).

Usage:  python3 generate.py > rows.jsonl

Standard library only, one random.Random(9797), no clock, no environment,
no iteration over sets or hash-ordered containers.  Secrets in positive
rows are wrapped in « and ».
"""

import base64
import datetime
import hashlib
import json
import os
import re
import struct
import sys
import zlib

import random

R = random.Random(9797)

# ---------------------------------------------------------------------------
# fixed tables
# ---------------------------------------------------------------------------

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
          "Oct", "Nov", "Dec"]
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

DIG = "0123456789"
LOW = "abcdefghijklmnopqrstuvwxyz"
UP = LOW.upper()
HEX = "0123456789abcdef"
HEXU = HEX.upper()
B62 = DIG + UP + LOW
ALNUM = UP + LOW + DIG
B64 = UP + LOW + DIG + "+/"
B64U = UP + LOW + DIG + "-_"
B32 = UP + "234567"
BECH = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
PWSYM = "!#%^*-_=+.,:;?~@&"

USERS = ["alice", "bkumar", "chen", "dana", "eoin", "fatima", "gwen", "hiro",
         "ines", "jonas", "kwame", "lena", "marco", "nadia", "oscar", "priya",
         "quinn", "rafael", "sofia", "tomas", "uma", "viktor", "wei", "yara",
         "zoe", "arjun", "beatriz", "camille", "diego", "elif", "mateo",
         "noor", "pavel", "rin", "sven", "tariq"]
FULLNAMES = ["Alice Moreau", "Bharat Kumar", "Chen Jing", "Dana Whitfield",
             "Eoin Gallagher", "Fatima Haddad", "Gwen Albright", "Hiro Tanaka",
             "Ines Carvalho", "Jonas Lindqvist", "Kwame Mensah", "Lena Vogel",
             "Marco Bellini", "Nadia Petrova", "Oscar Nilsson", "Priya Raman",
             "Quinn Harper", "Rafael Souza", "Sofia Marin", "Tomas Novak",
             "Uma Iyer", "Viktor Horvath", "Wei Zhang", "Yara Costa",
             "Zoe Fischer", "Arjun Mehta", "Beatriz Ramos", "Camille Roux"]
CJK_NAMES = ["山田 太郎", "鈴木 花子", "王 伟", "李 娜", "김 민준", "佐藤 健",
             "陈 静", "박 서연", "高橋 美咲", "张 磊"]
PROJECTS = ["billing-api", "storefront", "ledger", "atlas-web", "courier",
            "orbit", "harbor", "pantry", "relay", "quill", "beacon", "tally",
            "fieldnotes", "kiosk", "lumen", "meridian", "nimbus", "parcel",
            "roster", "signal-hub", "tessera", "waypoint", "acme-portal",
            "docket", "inkwell", "keel", "loom", "marlin", "trellis", "sprocket",
            "basecamp-sync", "invoicer", "shipyard", "pollen", "cinder"]
ORGS = ["acme", "northwind", "globex", "initech", "umbrellalabs", "hooli",
        "piedpiper", "starkind", "cyberdyne", "tyrell", "vandelay", "wonka",
        "oscorp", "monarch", "aperture", "bluesun", "dunder", "gekko",
        "massive", "prestige", "sirius", "soylent", "virtucon", "zorg"]
TLDS = ["io", "dev", "com", "app", "co", "net", "tech"]
BRANCHES = ["main", "develop", "feat/checkout-v2", "fix/flaky-auth-test",
            "chore/bump-deps", "feature/webhooks", "hotfix/login-loop",
            "refactor/settings", "release/2.14", "wip/payments-retry",
            "spike/otel", "agent/fix-ci", "feat/sso", "fix/n-plus-one",
            "chore/ruff", "feat/export-csv"]
HOSTS = ["mbp-{u}", "devbox", "ws-{n}", "thinkpad", "dev-vm", "laptop",
         "codespaces-{h}", "gitpod-{h}", "{u}-dev", "studio"]
WORDS = ["copper", "lantern", "maple", "orbit", "velvet", "cactus", "falcon",
         "ember", "glacier", "meadow", "nickel", "paprika", "quartz",
         "saffron", "tundra", "walnut", "basil", "cobalt", "dune", "fjord",
         "hazel", "indigo", "kelp", "lilac", "mango", "nectar", "onyx",
         "pebble", "raven", "sierra", "thistle", "umber", "violet", "willow",
         "yarrow", "anchor", "bramble", "cinder", "drift", "fable", "gusto",
         "hollow", "iris", "jasper", "kettle", "lumber", "mistral", "nova",
         "oyster", "prairie", "quiver", "rustic", "spruce", "topaz"]

# ---------------------------------------------------------------------------
# registry of random values: no value of 6+ characters is produced twice
# ---------------------------------------------------------------------------

_SEEN = set()          # membership only, never iterated


def uniq(fn):
    for _ in range(10000):
        v = fn()
        if len(v) < 6 or v not in _SEEN:
            _SEEN.add(v)
            return v
    raise RuntimeError("could not draw a fresh value")


def rc(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def fresh(alpha, n):
    return uniq(lambda: rc(alpha, n))


def hexs(n):
    return fresh(HEX, n)


def b62(n):
    return fresh(B62, n)


def digits(n):
    return uniq(lambda: R.choice("123456789") + rc(DIG, n - 1))


def rbytes(n):
    return bytes(R.randrange(256) for _ in range(n))


def b64e(b):
    return base64.b64encode(b).decode()


def b64u(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def uuid4():
    def f():
        h = rc(HEX, 32)
        h = h[:12] + "4" + h[13:16] + R.choice("89ab") + h[17:]
        return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    return uniq(f)


def ulid():
    return fresh("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)


def sha40():
    return hexs(40)


def sha64():
    return hexs(64)


def m(s):
    return "\u00ab" + s + "\u00bb"


def pick(seq):
    return R.choice(seq)


def chance(p):
    return R.random() < p


def shuffled(seq):
    s = list(seq)
    R.shuffle(s)
    return s


# ---------------------------------------------------------------------------
# secret generators (real prefixes, lengths, alphabets, checksums)
# ---------------------------------------------------------------------------

def b62enc(n, width):
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = B62[r] + s
    return s.rjust(width, "0")


def gh_token(prefix="ghp_"):
    def f():
        body = rc(B62, 30)
        return prefix + body + b62enc(zlib.crc32(body.encode()) & 0xffffffff, 6)
    return uniq(f)


def npm_token():
    return gh_token("npm_")


def github_pat():
    return uniq(lambda: "github_pat_11" + rc(UP + DIG, 20) + "_" + rc(B62, 59))


def glpat():
    return uniq(lambda: "glpat-" + rc(B62 + "-_", 20))


def slack_bot():
    return uniq(lambda: "xoxb-%s-%s-%s" % (rc(DIG, 12), rc(DIG, 13), rc(B62, 24)))


def slack_user():
    return uniq(lambda: "xoxp-%s-%s-%s-%s" % (rc(DIG, 11), rc(DIG, 12),
                                             rc(DIG, 13), rc(HEX, 32)))


def slack_hook_parts():
    return ("T" + fresh(UP + DIG, 10), "B" + fresh(UP + DIG, 10),
            fresh(B62, 24))


def discord_hook_parts():
    return (digits(19), fresh(B64U, 68))


def stripe_sk(mode="live"):
    return uniq(lambda: "sk_%s_51%s" % (mode, rc(B62, 97)))


def stripe_rk():
    return uniq(lambda: "rk_live_51" + rc(B62, 97))


def stripe_pk():
    return uniq(lambda: "pk_live_51" + rc(B62, 97))


def whsec():
    return uniq(lambda: "whsec_" + rc(B62, 32))


def openai_key():
    return uniq(lambda: "sk-proj-" + rc(B62 + "-_", 74) + "T3BlbkFJ" + rc(B62 + "-_", 74))


def anthropic_key():
    return uniq(lambda: "sk-ant-api03-" + rc(B62 + "-_", 93) + "AA")


def sendgrid_key():
    return uniq(lambda: "SG." + rc(B62 + "-_", 22) + "." + rc(B62 + "-_", 43))


def twilio_sid():
    return uniq(lambda: "AC" + rc(HEX, 32))


def twilio_token():
    return hexs(32)


def pypi_token():
    def f():
        mac = (b"\x02\x01\x08pypi.org\x02\x25\x00" + rc(HEX, 36).encode() +
               b"\x00\x02\x2a\x00" + b'{"version": 1, "permissions": "user"}' +
               b"\x00\x00\x06\x20" + rbytes(32))
        return "pypi-" + b64u(mac)
    return uniq(f)


def shopify(prefix="shpat_"):
    return uniq(lambda: prefix + rc(HEX, 32))


def atlassian_token():
    return uniq(lambda: "ATATT3xFfGF0" + rc(B62 + "-_", 171) + "=" + rc(HEXU, 8))


def postman_key():
    return uniq(lambda: "PMAK-" + rc(HEX, 24) + "-" + rc(HEX, 34))


def doppler_token(env="dev"):
    return uniq(lambda: "dp.st.%s.%s" % (env, rc(B62, 40)))


def mailgun_key():
    return uniq(lambda: "%s-%s-%s" % (rc(HEX, 32), rc(HEX, 8), rc(HEX, 8)))


def mapbox_secret(user):
    def f():
        payload = json.dumps({"u": user, "a": "cl" + rc(LOW + DIG, 23)},
                             separators=(",", ":")).encode()
        return "sk." + b64u(payload) + "." + rc(B62 + "-_", 22)
    return uniq(f)


def linear_key():
    return uniq(lambda: "lin_api_" + rc(B62, 40))


def hf_token():
    return uniq(lambda: "hf_" + rc(UP + LOW, 34))


def groq_key():
    return uniq(lambda: "gsk_" + rc(B62, 52))


def aws_key_id():
    return uniq(lambda: "AKIA" + rc(UP + "234567", 16))


def aws_secret():
    return uniq(lambda: rc(B62 + "+/", 40))


def azure_key():
    return uniq(lambda: b64e(rbytes(64)))


def sas_key():
    return uniq(lambda: b64e(rbytes(32)))


def cloudflare_token():
    return uniq(lambda: rc(B62 + "-_", 40))


def do_token():
    return uniq(lambda: "dop_v1_" + rc(HEX, 64))


def databricks_token():
    return uniq(lambda: "dapi" + rc(HEX, 32))


def resend_key():
    return uniq(lambda: "re_" + rc(B62, 8) + "_" + rc(B62, 24))


def rubygems_key():
    return uniq(lambda: "rubygems_" + rc(HEX, 48))


def dockerhub_pat():
    return uniq(lambda: "dckr_pat_" + rc(B62 + "-_", 27))


def telegram_token():
    return uniq(lambda: rc("123456789", 1) + rc(DIG, 9) + ":AA" + rc(B62 + "-_", 33))


def square_token():
    return uniq(lambda: "EAAA" + rc(B62 + "-_", 60))


def notion_token():
    return uniq(lambda: "ntn_" + rc(DIG, 11) + rc(B62, 35))


def airtable_pat():
    return uniq(lambda: "pat" + rc(B62, 14) + "." + rc(HEX, 64))


def replicate_token():
    return uniq(lambda: "r8_" + rc(B62, 37))


def pinecone_key():
    return uniq(lambda: "pcsk_" + rc(B62, 5) + "_" + rc(B62, 63))


def supabase_sbp():
    return uniq(lambda: "sbp_" + rc(HEX, 40))


def vercel_token():
    return b62(24)


def google_secret():
    return uniq(lambda: "GOCSPX-" + rc(B62 + "-_", 28))


def google_access_token():
    return uniq(lambda: "ya29.a0" + rc(B62 + "-_", 150))


def google_refresh():
    return uniq(lambda: "1//0" + rc(B62 + "-_", 99))


def age_secret():
    return uniq(lambda: "AGE-SECRET-KEY-1" + rc(BECH, 58))


def sentry_key():
    return hexs(32)


def datadog_api():
    return hexs(32)


def datadog_app():
    return hexs(40)


def algolia_admin():
    return hexs(32)


def pusher_secret():
    return fresh(HEX, 20)


def cfpat():
    return uniq(lambda: "CFPAT-" + rc(B62 + "-_", 43))


def sanity_token():
    return uniq(lambda: "sk" + rc(B62, 180))


def totp_seed():
    return fresh(B32, 32)


def django_key(insecure=None):
    alpha = LOW + DIG + "!@#$%^&*(-_=+)"
    if insecure is None:
        insecure = chance(0.5)
    def f():
        body = rc(alpha, 50)
        return ("django-insecure-" + body) if insecure else body
    return uniq(f)


def rails_skb():
    return hexs(128)


def laravel_key():
    return uniq(lambda: "base64:" + b64e(rbytes(32)))


def phx_skb():
    return uniq(lambda: rc(B62 + "+/", 64))


def hex_secret(n=64):
    return hexs(n)


def jwt_secret():
    return pick([lambda: hexs(64), lambda: fresh(B62, 48),
                 lambda: uniq(lambda: b64e(rbytes(32)))])()


def pw_random(n=None):
    n = n or R.randint(16, 28)
    def f():
        s = rc(ALNUM + PWSYM, n)
        if s[0] in PWSYM:
            s = pick(ALNUM) + s[1:]
        if s[-1] in PWSYM:
            s = s[:-1] + pick(ALNUM)
        return s
    return uniq(f)


def pw_phrase():
    def f():
        w = [pick(WORDS) for _ in range(R.randint(3, 4))]
        if chance(0.5):
            w[0] = w[0].capitalize()
        sep = pick(["-", ".", "_", "+", ""])
        if sep == "":
            w = [x.capitalize() for x in w]
        return sep.join(w) + pick(["", sep]) + str(R.randint(2, 999)) + pick(["!", "#", "", "?", "*"])
    return uniq(f)


def pw_short():
    def f():
        n = R.randint(8, 12)
        s = rc(ALNUM, n - 2) + pick(PWSYM) + pick(DIG)
        s = list(s)
        R.shuffle(s)
        s = "".join(s)
        if s[0] in PWSYM or s[-1] in PWSYM:
            return ""
        return s
    return uniq(lambda: f() or rc(ALNUM, 10))


def pw_url():
    """password that needs no percent-encoding in a URL"""
    return pick([lambda: fresh(ALNUM, R.randint(16, 32)),
                 lambda: uniq(lambda: rc(ALNUM, 8) + pick("-_.~") + rc(ALNUM, 10)),
                 lambda: uniq(lambda: pick(WORDS).capitalize() + pick("-_.") +
                              pick(WORDS) + str(R.randint(10, 9999)))])()


def pw_any():
    return pick([pw_random, pw_phrase, pw_short, pw_url])()


def basic_blob(user, pw):
    return b64e(("%s:%s" % (user, pw)).encode())


def jwt(payload, alg="HS256", kid=None):
    hdr = {"alg": alg, "typ": "JWT"}
    if kid:
        hdr["kid"] = kid
    h = b64u(json.dumps(hdr, separators=(",", ":")).encode())
    p = b64u(json.dumps(payload, separators=(",", ":")).encode())
    sig = b64u(rbytes(32 if alg.startswith("HS") else (64 if alg.startswith("ES") else 256)))
    return uniq(lambda: h + "." + p + "." + sig)


def jwt_user(c, aud=None, alg=None):
    iat = 1735689600 + R.randint(0, 20000000)
    pl = {"sub": pick([uuid4(), "usr_" + b62(14), str(R.randint(1000, 99999))]),
          "email": c.email, "iat": iat, "exp": iat + pick([900, 3600, 86400])}
    if aud:
        pl["aud"] = aud
    if chance(0.5):
        pl["role"] = pick(["admin", "member", "service", "authenticated"])
    return jwt(pl, alg or pick(["HS256", "RS256", "ES256"]),
               kid=fresh(B62, 12) if chance(0.4) else None)


def session_cookie(kind):
    if kind == "rails":
        return uniq(lambda: b64e(rbytes(R.randint(90, 150))).replace("=", "%3D").replace("+", "%2B").replace("/", "%2F")
                    + "--" + b64e(rbytes(12)).replace("=", "%3D") + "--" + b64e(rbytes(16)).replace("=", "%3D"))
    if kind == "django":
        return fresh(LOW + DIG, 32)
    if kind == "express":
        return uniq(lambda: "s%3A" + rc(B64U, 32) + "." + b64e(rbytes(32)).rstrip("=").replace("+", "%2B").replace("/", "%2F"))
    if kind == "laravel":
        def f():
            js = json.dumps({"iv": b64e(rbytes(16)), "value": b64e(rbytes(R.randint(60, 120))),
                             "mac": rc(HEX, 64), "tag": ""}, separators=(",", ":")).replace("/", "\\/")
            return b64e(js.encode()).replace("=", "%3D")
        return uniq(f)
    if kind == "flask":
        return uniq(lambda: "." + b64u(zlib.compress(json.dumps({"_user_id": str(R.randint(1, 9999)), "_fresh": True, "csrf_token": rc(HEX, 40)}).encode())) + "." + rc(B64U, 6) + "." + rc(B64U, 27))
    return fresh(B64U, 43)


# ---------------------------------------------------------------------------
# private keys with real DER / openssh structure
# ---------------------------------------------------------------------------

def _dlen(n):
    if n < 128:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def _der(tag, content):
    return bytes([tag]) + _dlen(len(content)) + content


def _dint(b):
    if isinstance(b, int):
        b = b.to_bytes(max(1, (b.bit_length() + 8) // 8), "big")
    if b[0] & 0x80:
        b = b"\x00" + b
    return _der(0x02, b)


def _rint(n):
    b = bytearray(rbytes(n))
    b[0] |= 0x80
    return bytes(b)


OID_RSA = bytes.fromhex("06092a864886f70d010101") + b"\x05\x00"
OID_EC = bytes.fromhex("06072a8648ce3d0201")
OID_P256 = bytes.fromhex("06082a8648ce3d030107")


def _rsa_pkcs1():
    parts = [_dint(0), _dint(_rint(256)), _dint(65537), _dint(_rint(256)),
             _dint(_rint(128)), _dint(_rint(128)), _dint(_rint(128)),
             _dint(_rint(128)), _dint(_rint(128))]
    return _der(0x30, b"".join(parts))


def _wrap(b64, width=64):
    return [b64[i:i + width] for i in range(0, len(b64), width)]


def pem(kind="pkcs8-rsa"):
    """Returns (begin_line, [body lines], end_line)."""
    def f():
        if kind == "rsa":
            der, label = _rsa_pkcs1(), "RSA PRIVATE KEY"
        elif kind == "pkcs8-rsa":
            der = _der(0x30, _dint(0) + _der(0x30, OID_RSA) + _der(0x04, _rsa_pkcs1()))
            label = "PRIVATE KEY"
        elif kind == "ec":
            der = _der(0x30, _dint(1) + _der(0x04, rbytes(32)) +
                       _der(0xa0, OID_P256) + _der(0xa1, _der(0x03, b"\x00\x04" + rbytes(64))))
            label = "EC PRIVATE KEY"
        elif kind == "pkcs8-ec":
            inner = _der(0x30, _dint(1) + _der(0x04, rbytes(32)) +
                         _der(0xa1, _der(0x03, b"\x00\x04" + rbytes(64))))
            der = _der(0x30, _dint(0) + _der(0x30, OID_EC + OID_P256) + _der(0x04, inner))
            label = "PRIVATE KEY"
        elif kind == "ed25519":
            der = bytes.fromhex("302e020100300506032b657004220420") + rbytes(32)
            label = "PRIVATE KEY"
        else:
            raise ValueError(kind)
        return label + "|" + b64e(der)
    v = uniq(f)
    label, body = v.split("|")
    lines = _wrap(body)
    if any(x[0] in "+/" for x in lines):
        return pem(kind)
    return ("-----BEGIN %s-----" % label, lines, "-----END %s-----" % label)


def openssh_ed25519(comment):
    def sstr(b):
        return struct.pack(">I", len(b)) + b
    def f():
        pub = rbytes(32)
        priv = rbytes(32)
        pubblob = sstr(b"ssh-ed25519") + sstr(pub)
        chk = rbytes(4)
        inner = chk + chk + sstr(b"ssh-ed25519") + sstr(pub) + sstr(priv + pub) + sstr(comment.encode())
        pad = 1
        while len(inner) % 8:
            inner += bytes([pad])
            pad += 1
        blob = (b"openssh-key-v1\x00" + sstr(b"none") + sstr(b"none") + sstr(b"") +
                struct.pack(">I", 1) + sstr(pubblob) + sstr(inner))
        return b64e(blob)
    body = uniq(f)
    lines = _wrap(body, 70)
    if any(x[0] in "+/" for x in lines):
        return openssh_ed25519(comment)
    return ("-----BEGIN OPENSSH PRIVATE KEY-----", lines, "-----END OPENSSH PRIVATE KEY-----")


def pem_block(k, mark=True):
    """Contiguous text of a key; one mark from BEGIN to END."""
    txt = "\n".join([k[0]] + k[1] + [k[2]])
    return m(txt) if mark else txt


def pem_escaped(k):
    """PEM inside a one-line string with \\n escapes: one span."""
    return m("\\n".join([k[0]] + k[1] + [k[2]])) + "\\n"


def public_pem():
    der = _der(0x30, _der(0x30, OID_RSA) + _der(0x03, b"\x00" + _der(0x30, _dint(_rint(256)) + _dint(65537))))
    body = b64e(der)
    _SEEN.add(body)
    return ["-----BEGIN PUBLIC KEY-----"] + _wrap(body) + ["-----END PUBLIC KEY-----"]


def certificate_pem(cn):
    # a self-signed-looking certificate body (public by design)
    tbs = (_der(0xa0, _dint(2)) + _dint(_rint(16)) + _der(0x30, bytes.fromhex("06092a864886f70d01010b0500")) +
           _der(0x30, _der(0x31, _der(0x30, bytes.fromhex("0603550403") + _der(0x0c, cn.encode())))) +
           _der(0x30, _der(0x17, b"250101000000Z") + _der(0x17, b"350101000000Z")) +
           _der(0x30, _der(0x31, _der(0x30, bytes.fromhex("0603550403") + _der(0x0c, cn.encode())))) +
           _der(0x30, _der(0x30, OID_RSA) + _der(0x03, b"\x00" + _der(0x30, _dint(_rint(256)) + _dint(65537)))))
    der = _der(0x30, _der(0x30, tbs) + _der(0x30, bytes.fromhex("06092a864886f70d01010b0500")) +
               _der(0x03, b"\x00" + rbytes(256)))
    body = b64e(der)
    _SEEN.add(body)
    return ["-----BEGIN CERTIFICATE-----"] + _wrap(body) + ["-----END CERTIFICATE-----"], der


def ssh_pub_ed25519(comment):
    blob = struct.pack(">I", 11) + b"ssh-ed25519" + struct.pack(">I", 32) + rbytes(32)
    return "ssh-ed25519 " + b64e(blob) + " " + comment


# ---------------------------------------------------------------------------
# per-row context, timestamps
# ---------------------------------------------------------------------------

import unicodedata

STYLES = ["prompt", "prompt", "prompt", "prompt", "claude", "claude", "claude",
          "codex_exec", "codex_ts", "codex_ran", "gemini"]
PSTYLES = ["bash", "omz", "starship", "rhel", "bare", "venv", "fish", "zsh"]
PREFIXED = ("claude", "codex_ran", "gemini")


class Ctx:
    def __init__(self):
        self.user = pick(USERS)
        self.fullname = pick(FULLNAMES)
        self.org = pick(ORGS)
        self.tld = pick(TLDS)
        self.domain = "%s.%s" % (self.org, self.tld)
        self.email = "%s@%s" % (self.user, self.domain)
        self.proj = pick(PROJECTS)
        self.branch = pick(BRANCHES)
        self.host = pick(HOSTS).format(u=self.user, n=R.randint(2, 99),
                                       h=rc(LOW + DIG, 4))
        self.mac = chance(0.4)
        self.home = ("/Users/" if self.mac else "/home/") + self.user
        self.cwd = "%s/%s/%s" % (self.home, pick(["src", "code", "work", "dev", "projects"]), self.proj)
        self.style = pick(STYLES)
        self.pstyle = pick(PSTYLES)
        self.t0 = datetime.datetime(pick([2024, 2025]), R.randint(1, 12), R.randint(1, 28),
                                    R.randint(7, 22), R.randint(0, 59), R.randint(0, 59))
        self.tz = pick(["+0000", "+0100", "+0200", "-0500", "-0700", "+0530", "+0900"])
        self.pyver = pick(["3.11.9", "3.12.4", "3.12.7", "3.13.1"])
        self.nodever = pick(["v20.14.0", "v20.18.1", "v22.11.0", "v22.12.0", "v18.20.4"])

    def at(self, sec=0):
        return self.t0 + datetime.timedelta(seconds=sec)

    @property
    def prefixed(self):
        return self.style in PREFIXED


def iso(dt, ms=True, z="Z"):
    s = "%04d-%02d-%02dT%02d:%02d:%02d" % (dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second)
    if ms:
        s += ".%03d" % R.randint(0, 999)
    return s + z


def ymd_hms(dt):
    return "%04d-%02d-%02d %02d:%02d:%02d" % (dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second)


def gitdate(dt, tz):
    return "%s %s %d %02d:%02d:%02d %d %s" % (WEEKDAYS[dt.weekday()], MONTHS[dt.month - 1], dt.day,
                                              dt.hour, dt.minute, dt.second, dt.year, tz)


def httpdate(dt):
    return "%s, %02d %s %d %02d:%02d:%02d GMT" % (WEEKDAYS[dt.weekday()], dt.day, MONTHS[dt.month - 1],
                                                 dt.year, dt.hour, dt.minute, dt.second)


def epoch(dt):
    return int((dt - datetime.datetime(1970, 1, 1)).total_seconds())


# ---------------------------------------------------------------------------
# frames
# ---------------------------------------------------------------------------

MARK_RE = re.compile("\u00ab([^\u00ab\u00bb]*)\u00bb")


def perline(text):
    """Split a mark that spans lines into one mark per body line; BEGIN/END
    armour lines and indentation stay outside."""
    def repl(mo):
        inner = mo.group(1)
        if "\n" not in inner:
            return mo.group(0)
        res = []
        for ln in inner.split("\n"):
            s = ln.lstrip(" ")
            ind = ln[:len(ln) - len(s)]
            if not s.strip() or s.startswith("-----BEGIN") or s.startswith("-----END"):
                res.append(ln)
            else:
                res.append(ind + m(s))
        return "\n".join(res)
    return MARK_RE.sub(repl, text)


def prefix_lines(prefix, text):
    return "\n".join(prefix + ln for ln in perline(text).split("\n"))


def vislen(s):
    n = 0
    for ch in s:
        if ch in "\u00ab\u00bb":
            continue
        n += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return n


def shq(cmd):
    if "'" not in cmd:
        return "'" + cmd + "'"
    return '"' + cmd.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def prompt_line(c, cmd):
    s = c.pstyle
    d = c.cwd.replace(c.home, "~")
    if s == "bash":
        return "%s@%s:%s$ %s" % (c.user, c.host, d, cmd)
    if s == "omz":
        return "\u279c  %s git:(%s) %s%s" % (c.proj, c.branch, "\u2717 " if len(c.branch) % 2 else "", cmd)
    if s == "starship":
        return "%s on \ue0a0 %s \n\u276f %s" % (c.proj, c.branch, cmd)
    if s == "rhel":
        return "[%s@%s %s]$ %s" % (c.user, c.host, c.proj, cmd)
    if s == "bare":
        return "$ " + cmd
    if s == "venv":
        return "(.venv) %s@%s %s %% %s" % (c.user, c.host, c.proj, cmd)
    if s == "fish":
        return "%s@%s %s (%s)> %s" % (c.user, c.host, d, c.branch, cmd)
    return "%s %% %s" % (c.proj, cmd)


def _claude(cmd, out, rc):
    lines = perline(out).split("\n")
    if rc:
        lines[0] = "Error: " + lines[0]
    res = ["\u23fa Bash(%s)" % cmd]
    for i, ln in enumerate(lines):
        res.append((("  \u23bf  " if i == 0 else "     ") + ln).rstrip())
    return "\n".join(res)


def _codex_ran(cmd, out):
    lines = perline(out).split("\n")
    res = ["\u2022 Ran " + cmd]
    for i, ln in enumerate(lines):
        res.append((("  \u2514 " if i == 0 else "    ") + ln).rstrip())
    return "\n".join(res)


def _gemini(cmd, out, desc):
    lines = perline(out.expandtabs(8)).split("\n")
    title = "\u2714  Shell " + cmd + ((" (%s)" % desc) if desc else "")
    w = max([vislen(title)] + [vislen(x) for x in lines])
    if w > 150:
        return None
    body = [title, ""] + lines
    res = ["\u256d" + "\u2500" * (w + 2) + "\u256e"]
    for ln in body:
        res.append("\u2502 " + ln + " " * (w - vislen(ln)) + " \u2502")
    res.append("\u2570" + "\u2500" * (w + 2) + "\u256f")
    return "\n".join(res)


def frame1(c, cmd, out, rc=0, desc=None):
    st = c.style
    if st == "gemini":
        g = _gemini(cmd, out, desc)
        if g is not None:
            return g
        st = "claude"
    if st == "claude":
        return _claude(cmd, out, rc)
    if st == "codex_ran":
        return _codex_ran(cmd, out)
    if st == "codex_exec":
        ms = R.randint(8, 2400)
        status = (" succeeded in %dms:" % ms) if rc == 0 else (" exited %d in %dms:" % (rc, ms))
        return "exec\nbash -lc %s in %s\n%s\n%s" % (shq(cmd), c.cwd, status, out)
    if st == "codex_ts":
        t = iso(c.at(R.randint(0, 30)), ms=False)
        ms = R.randint(8, 2400)
        status = ("succeeded in %dms:" % ms) if rc == 0 else ("exited %d in %dms:" % (rc, ms))
        return "[%s] exec bash -lc %s in %s\n[%s] bash -lc %s %s\n%s" % (t, shq(cmd), c.cwd, t, shq(cmd), status, out)
    return prompt_line(c, cmd) + "\n" + out


def run(c, cmd, out, rc=0, desc=None):
    return frame1(c, cmd, out.rstrip("\n"), rc, desc)


def runs(c, steps):
    parts = []
    for st in steps:
        cmd, out = st[0], st[1]
        rcode = st[2] if len(st) > 2 else 0
        parts.append(run(c, cmd, out, rcode))
    sep = "\n\n" if c.style in ("claude", "codex_ran", "gemini", "codex_exec", "codex_ts") else "\n"
    return sep.join(parts)


def numbered(content, start, fmt):
    lines = perline(content).split("\n")
    out = []
    for i, ln in enumerate(lines):
        n = start + i
        if fmt == "read":
            out.append("%6d\u2192%s" % (n, ln))
        elif fmt == "bat":
            out.append("%4d   \u2502 %s" % (n, ln))
        else:
            out.append("%6d\t%s" % (n, ln))
    return "\n".join(out)


def show_file(c, path, content, how=None, start=1):
    content = content.rstrip("\n")
    nlines = content.count("\n") + 1
    if how is None:
        opts = ["cat", "cat_n", "nl", "bat", "sed", "head"]
        if c.style == "claude":
            opts += ["read", "read", "read"]
        if c.style.startswith("codex"):
            opts += ["sed", "sed"]
        how = pick(opts)
    if how == "read":
        return "\u23fa Read(%s)\n%s" % (path, numbered(content, start, "read"))
    if how == "cat_n":
        return run(c, "cat -n " + path, numbered(content, 1, "cat_n"))
    if how == "nl":
        return run(c, "nl -ba " + path, numbered(content, 1, "nl"))
    if how == "bat":
        rule = pick([72, 80, 96, 100])
        out = ("\u2500" * 7 + "\u252c" + "\u2500" * rule + "\n       \u2502 File: " + path + "\n" +
               "\u2500" * 7 + "\u253c" + "\u2500" * rule + "\n" + numbered(content, 1, "bat") + "\n" +
               "\u2500" * 7 + "\u2534" + "\u2500" * rule)
        return run(c, pick(["bat --paging=never ", "bat --style=numbers,grid,header "]) + path, out)
    if how == "sed":
        return run(c, "sed -n '%d,%dp' %s" % (start, start + nlines - 1 + pick([0, 0, 40, 100]), path), content)
    if how == "head":
        return run(c, "head -n %d %s" % (max(nlines, pick([20, 40, 50])), path), content)
    return run(c, "cat " + path, content)


# ---------------------------------------------------------------------------
# shared pools: .env lines with secrets, harmless .env lines, hosts
# ---------------------------------------------------------------------------

def dbname(c):
    return c.proj.replace("-", "_") + pick(["", "_dev", "_development", "_staging", "_test", "_prod"])


def svc_host(c):
    return pick(["localhost", "127.0.0.1", "db", "postgres", "db.internal",
                 "%s-db.%s" % (c.proj, c.domain), "pg-%s.cluster-%s.eu-west-1.rds.amazonaws.com" % (c.proj, rc(LOW + DIG, 12))])


def sentry_dsn_marked():
    return "https://%s@o%s.ingest.%ssentry.io/%s" % (m(sentry_key()), R.randint(100000, 4500000),
                                                     pick(["", "us.", "de."]), R.randint(1000000, 4509999))


def env_kinds(c):
    u = pick(["app", "postgres", c.proj.split("-")[0], "svc_" + c.proj.split("-")[0], "admin"])
    return [
        lambda: ["DATABASE_URL=postgresql://%s:%s@%s:5432/%s" % (u, m(pw_url()), svc_host(c), dbname(c))],
        lambda: ["REDIS_URL=redis://default:%s@%s:6379/0" % (m(pw_url()), pick(["localhost", "redis", "cache.internal"]))],
        lambda: ["MONGODB_URI=mongodb+srv://%s:%s@cluster0.%s.mongodb.net/%s?retryWrites=true&w=majority" % (u, m(pw_url()), fresh(LOW + DIG, 5), dbname(c))],
        lambda: ["STRIPE_SECRET_KEY=" + m(stripe_sk())],
        lambda: ["STRIPE_WEBHOOK_SECRET=" + m(whsec())],
        lambda: ["OPENAI_API_KEY=" + m(openai_key())],
        lambda: ["ANTHROPIC_API_KEY=" + m(anthropic_key())],
        lambda: ["GITHUB_TOKEN=" + m(gh_token(pick(["ghp_", "gho_", "ghs_"])))],
        lambda: ["SENDGRID_API_KEY=" + m(sendgrid_key())],
        lambda: ["TWILIO_ACCOUNT_SID=" + twilio_sid(), "TWILIO_AUTH_TOKEN=" + m(twilio_token())],
        lambda: ["SLACK_BOT_TOKEN=" + m(slack_bot())],
        lambda: ["JWT_SECRET=" + m(jwt_secret())],
        lambda: ["NEXTAUTH_SECRET=" + m(uniq(lambda: b64e(rbytes(32))))],
        lambda: ["SESSION_SECRET=" + m(pw_random(R.randint(32, 48)))],
        lambda: ["AWS_ACCESS_KEY_ID=" + aws_key_id(), "AWS_SECRET_ACCESS_KEY=" + m(aws_secret())],
        lambda: ["SENTRY_DSN=" + sentry_dsn_marked()],
        lambda: ["MAILGUN_API_KEY=" + m(mailgun_key())],
        lambda: ["RESEND_API_KEY=" + m(resend_key())],
        lambda: ["HF_TOKEN=" + m(hf_token())],
        lambda: ["GROQ_API_KEY=" + m(groq_key())],
        lambda: ["LINEAR_API_KEY=" + m(linear_key())],
        lambda: ["DD_API_KEY=" + m(datadog_api())],
        lambda: ["SUPABASE_URL=https://%s.supabase.co" % fresh(LOW, 20),
                 "SUPABASE_SERVICE_ROLE_KEY=" + m(jwt({"iss": "supabase", "ref": fresh(LOW, 20), "role": "service_role",
                                                      "iat": 1700000000 + R.randint(0, 9999999), "exp": 2000000000 + R.randint(0, 99999999)}))],
        lambda: ["GITHUB_CLIENT_ID=Iv1." + fresh(HEX, 16), "GITHUB_CLIENT_SECRET=" + m(hexs(40))],
        lambda: ["GOOGLE_CLIENT_ID=%s-%s.apps.googleusercontent.com" % (digits(12), fresh(LOW + DIG, 32)),
                 "GOOGLE_CLIENT_SECRET=" + m(google_secret())],
        lambda: ["MAPBOX_SECRET_TOKEN=" + m(mapbox_secret(c.user))],
        lambda: ["SHOPIFY_ADMIN_API_TOKEN=" + m(shopify())],
        lambda: ["POSTMAN_API_KEY=" + m(postman_key())],
        lambda: ["DOPPLER_TOKEN=" + m(doppler_token(pick(["dev", "stg", "prd"])))],
        lambda: ["NPM_TOKEN=" + m(npm_token())],
        lambda: ["DATABRICKS_TOKEN=" + m(databricks_token())],
        lambda: ["TELEGRAM_BOT_TOKEN=" + m(telegram_token())],
        lambda: ["SMTP_USER=%s" % pick(["apikey", "postmaster@mg." + c.domain, "no-reply@" + c.domain]),
                 "SMTP_PASSWORD=" + m(pw_any())],
        lambda: ["ADMIN_PASSWORD=" + m(pw_short())],
        lambda: ["ENCRYPTION_KEY=" + m(hexs(64))],
        lambda: ["CLOUDFLARE_API_TOKEN=" + m(cloudflare_token())],
        lambda: ["DIGITALOCEAN_TOKEN=" + m(do_token())],
        lambda: ["REPLICATE_API_TOKEN=" + m(replicate_token())],
        lambda: ["PINECONE_API_KEY=" + m(pinecone_key())],
        lambda: ["NOTION_TOKEN=" + m(notion_token())],
        lambda: ["AIRTABLE_TOKEN=" + m(airtable_pat())],
        lambda: ["ATLASSIAN_API_TOKEN=" + m(atlassian_token())],
        lambda: ["GITLAB_TOKEN=" + m(glpat())],
        lambda: ["SECRET_KEY=" + m(django_key())],
        lambda: ["FIREBASE_CLIENT_EMAIL=firebase-adminsdk-%s@%s-%s.iam.gserviceaccount.com" % (fresh(LOW + DIG, 5), c.org, c.proj),
                 'FIREBASE_PRIVATE_KEY="%s"' % pem_escaped(pem(pick(["pkcs8-rsa", "pkcs8-ec", "ed25519"])))],
    ]


def env_secret_lines(c, n):
    ks = env_kinds(c)
    idx = shuffled(range(len(ks)))[:n]
    out = []
    for i in idx:
        out.extend(ks[i]())
    return out


def env_plain_lines(c, n):
    pool = ["NODE_ENV=development", "PORT=%d" % pick([3000, 4000, 5173, 8000, 8080]),
            "LOG_LEVEL=%s" % pick(["debug", "info", "warn"]), "APP_ENV=%s" % pick(["local", "staging", "dev"]),
            "NEXT_PUBLIC_API_URL=https://api.%s" % c.domain, "REDIS_HOST=localhost", "REDIS_PORT=6379",
            "SENTRY_ENVIRONMENT=%s" % pick(["development", "staging"]), "TZ=UTC",
            "FEATURE_NEW_CHECKOUT=%s" % pick(["true", "false"]), "MAIL_FROM=no-reply@%s" % c.domain,
            "S3_BUCKET=%s-%s-uploads" % (c.org, c.proj), "AWS_REGION=%s" % pick(["eu-west-1", "us-east-1", "ap-northeast-1"]),
            "TOKEN_TTL_SECONDS=%d" % pick([900, 3600, 86400]), "OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318",
            "DB_POOL_SIZE=%d" % R.randint(5, 20), "CORS_ORIGINS=http://localhost:3000,https://%s" % c.domain,
            "PASSWORD_MIN_LENGTH=%d" % pick([10, 12, 14]), "VITE_APP_NAME=%s" % c.proj]
    return shuffled(pool)[:n]


def dotenv(c, nsec, nplain, comments=True):
    lines = env_secret_lines(c, nsec) + env_plain_lines(c, nplain)
    # keep multi-line pairs together by shuffling groups
    R.shuffle(lines)
    # move *_ID lines before their secrets for readability
    lines.sort(key=lambda x: 0 if x.startswith(("TWILIO_ACCOUNT_SID", "AWS_ACCESS_KEY_ID", "GITHUB_CLIENT_ID", "GOOGLE_CLIENT_ID", "SUPABASE_URL", "SMTP_USER", "FIREBASE_CLIENT_EMAIL")) else 1)
    if comments and chance(0.6):
        lines.insert(0, pick(["# local overrides - do not commit", "# generated by scripts/bootstrap.sh",
                              "# copy of .env.example with real values", "# staging"]))
    return "\n".join(lines)


def shortsha():
    return hexs(7)


def git_author(c):
    name = c.fullname
    return "%s <%s@%s>" % (name, name.split()[0].lower(), c.domain)


def unmark(s):
    return s.replace("\u00ab", "").replace("\u00bb", "")


def jstr(s):
    """JSON string literal keeping « » and non-ASCII as they are"""
    return json.dumps(s, ensure_ascii=False)


# ===========================================================================
# POSITIVE TEMPLATES
# ===========================================================================

# ---------------------------------------------------------------- search ---

def src_secret_lines(c):
    """(path, [lines]) snippets of source files with a hard-coded secret"""
    lang = pick(["ts", "py", "go", "rb", "php", "kt", "js", "yaml"])
    if lang == "ts":
        k = pick([("stripe", stripe_sk), ("openai", openai_key), ("resend", resend_key)])
        v = m(k[1]())
        return ("src/lib/%s.ts" % k[0], [
            'import %s from "%s";' % (k[0].capitalize(), k[0]), "",
            "// TODO: move to env before launch",
            "export const %sClient = new %s(%s);" % (k[0], k[0].capitalize(),
                                                   pick(['"%s"' % v, '{ apiKey: "%s" }' % v, 'process.env.API_KEY ?? "%s"' % v])),
            "", "export default %sClient;" % k[0]])
    if lang == "py":
        v = m(sendgrid_key())
        return ("app/services/mailer.py", [
            "from sendgrid import SendGridAPIClient", "from sendgrid.helpers.mail import Mail", "",
            'SENDGRID_API_KEY = os.environ.get("SENDGRID_API_KEY", "%s")' % v,
            "client = SendGridAPIClient(SENDGRID_API_KEY)", "",
            "def send_welcome(to: str) -> None:"])
    if lang == "go":
        v = m(slack_bot())
        return ("internal/notify/slack.go", [
            "func NewNotifier() *Notifier {", "\treturn &Notifier{",
            '\t\ttoken:   "%s",' % v, '\t\tchannel: "#deploys",', "\t}", "}"])
    if lang == "rb":
        v = m(openai_key())
        return ("config/initializers/openai.rb", [
            "OpenAI.configure do |config|",
            '  config.access_token = ENV.fetch("OPENAI_ACCESS_TOKEN", "%s")' % v,
            '  config.organization_id = "org-%s"' % fresh(B62, 24),
            "  config.log_errors = Rails.env.development?", "end"])
    if lang == "php":
        sid = twilio_sid()
        v = m(twilio_token())
        return ("app/Services/SmsGateway.php", [
            "    public function __construct()", "    {",
            "        $sid = '%s';" % sid, "        $token = '%s';" % v,
            "        $this->client = new Client($sid, $token);", "    }"])
    if lang == "kt":
        v = m(mapbox_secret(c.user))
        return ("app/src/main/java/%s/%s/maps/MapsConfig.kt" % (c.org, c.proj.replace("-", "")), [
            "object MapsConfig {", '    const val STYLE_URL = "mapbox://styles/%s/cl%s"' % (c.user, fresh(LOW + DIG, 23)),
            '    const val DOWNLOADS_TOKEN = "%s"' % v, "}"])
    if lang == "js":
        v = m(hf_token())
        return ("scripts/embed.js", [
            "const { HfInference } = require('@huggingface/inference');", "",
            "const hf = new HfInference('%s'); // access token" % v,
            "const MODEL = 'sentence-transformers/all-MiniLM-L6-v2';"])
    v = m(pw_any())
    return ("config/settings.yaml", [
        "database:", "  host: %s" % svc_host(c), "  port: 5432", "  user: %s" % c.proj.split("-")[0],
        "  password: %s" % v, "  name: %s" % dbname(c), "  token_refresh: true"])


def rg_context(path, lines, rx, C, start=1, sep_match=":", sep_ctx="-"):
    hits = [i for i, ln in enumerate(lines) if re.search(rx, unmark(ln))]
    show = []
    for i in range(len(lines)):
        if any(abs(i - h) <= C for h in hits):
            show.append(i)
    out, prev = [], None
    for i in show:
        if prev is not None and i != prev + 1:
            out.append("--")
        s = sep_match if i in hits else sep_ctx
        out.append("%s%s%d%s%s" % (path, s, start + i, s, lines[i]))
        prev = i
    return out


def p_rg_json_match_events(c):
    rx = r"(?i)secret|token|password|api_key"
    files = []
    for _ in range(R.randint(2, 3)):
        kind = pick(["env", "py", "ts", "yaml"])
        if kind == "env":
            ls = [x for x in env_secret_lines(c, 8) if re.search(rx, unmark(x).split("=")[0])][:3]
            ls += ["TOKEN_TTL_SECONDS=%d" % pick([900, 3600])] if chance(0.5) else []
            files.append((pick([".env.development", ".env.local", "apps/api/.env"]), ls))
        elif kind == "py":
            files.append(("%s/settings.py" % c.proj.replace("-", "_"), [
                'STRIPE_SECRET_KEY = "%s"' % m(stripe_sk()),
                'SLACK_TOKEN = env.str("SLACK_TOKEN", default="%s")' % m(slack_bot()),
                "PASSWORD_RESET_TIMEOUT = %d" % pick([3600, 86400])]))
        elif kind == "ts":
            files.append(("src/config/integrations.ts", [
                '  apiToken: "%s",' % m(linear_key()),
                '  webhookSecret: process.env.WEBHOOK_SECRET || "%s",' % m(whsec())]))
        else:
            files.append(("config/%s.yml" % pick(["staging", "secrets", "app"]), [
                "  password: %s" % m(pw_any()),
                "  client_secret: %s" % m(google_secret()),
                "  token_endpoint: https://oauth2.googleapis.com/token"]))
    out = []
    tb, tm, tl = 0, 0, 0
    for path, ls in files:
        if not ls:
            continue
        out.append(json.dumps({"type": "begin", "data": {"path": {"text": path}}}))
        off = R.randint(0, 300)
        ln = R.randint(1, 12)
        nm = 0
        for line in ls:
            plain = unmark(line)
            mt = re.search(rx, plain)
            if not mt:
                continue
            ln += R.randint(1, 6)
            off += R.randint(30, 200)
            ev = {"type": "match", "data": {"path": {"text": path}, "lines": {"text": line + "\n"},
                  "line_number": ln, "absolute_offset": off,
                  "submatches": [{"match": {"text": mt.group(0)}, "start": mt.start(), "end": mt.end()}]}}
            out.append(json.dumps(ev, ensure_ascii=False))
            nm += 1
        bs = off + R.randint(100, 900)
        tb += bs
        tm += nm
        nanos = R.randint(20000, 90000)
        out.append(json.dumps({"type": "end", "data": {"path": {"text": path}, "binary_offset": None, "stats": {
            "elapsed": {"secs": 0, "nanos": nanos, "human": "0.%09ds" % nanos}, "searches": 1,
            "searches_with_match": 1, "bytes_searched": bs, "bytes_printed": R.randint(300, 900) * nm,
            "matched_lines": nm, "matches": nm}}}))
    total = R.randint(1000000, 9000000)
    out.append(json.dumps({"data": {"elapsed_total": {"human": "0.%09ds" % total, "nanos": total, "secs": 0},
                                    "stats": {"bytes_printed": tm * 512, "bytes_searched": tb,
                                              "elapsed": {"human": "0.000%06ds" % R.randint(1000, 999999), "nanos": R.randint(100000, 999999), "secs": 0},
                                              "matched_lines": tm, "matches": tm, "searches": R.randint(40, 400),
                                              "searches_with_match": len(files)}}, "type": "summary"}))
    cmd = "rg --json -i 'secret|token|password|api_key' %s" % pick([".", "config src .env*", "--hidden -g '!node_modules'"])
    if chance(0.4):
        cmd += " | jq -c 'select(.type==\"match\")'"
        out = [x for x in out if x.startswith('{"type": "match"')]
        out = [json.dumps(json.loads(x), separators=(",", ":"), ensure_ascii=False) for x in out]
    return run(c, cmd, "\n".join(out))


def p_rg_c2_context_source(c):
    out = []
    rx = r"(?i)api[_-]?key|token|secret|password"
    used = []
    for _ in range(R.randint(2, 3)):
        path, lines = src_secret_lines(c)
        if path in used:
            continue
        used.append(path)
        if out:
            out.append("--")
        out += rg_context(path, lines, rx, 2, start=R.randint(1, 40))
    cmd = "rg -n -C2 -i 'api[_-]?key|token|secret|password' %s" % pick(["src app internal config scripts", ".", "-g '!*.lock'"])
    return run(c, cmd, "\n".join(out))


def p_grep_rn_fixture_payloads(c):
    out = []
    pool = [
        lambda: ("tests/fixtures/users.json", ['    "email": "%s",' % c.email, '    "password": "%s",' % m(pw_any())]),
        lambda: ("tests/fixtures/oauth/github_token.json", ['  "access_token": "%s",' % m(gh_token("gho_")),
                                                          '  "token_type": "bearer",',
                                                          '  "refresh_token": "%s",' % m(gh_token("ghr_"))]),
        lambda: ("tests/fixtures/slack/oauth_v2_access.json", ['  "access_token": "%s",' % m(slack_bot()),
                                                             '  "token_type": "bot",',
                                                             '    "access_token": "%s"' % m(slack_user())]),
        lambda: ("spec/fixtures/shopify/session.json", ['  "accessToken": "%s",' % m(shopify()),
                                                       '  "scope": "read_products,write_orders",']),
        lambda: ("tests/fixtures/webhooks/config.json", ['  "signing_secret": "%s",' % m(whsec()),
                                                        '  "secret_rotation_days": 90']),
        lambda: ("tests/fixtures/google/token.json", ['  "token": "%s",' % m(google_access_token()),
                                                     '  "refresh_token": "%s",' % m(google_refresh()),
                                                     '  "token_uri": "https://oauth2.googleapis.com/token",',
                                                     '  "client_secret": "%s",' % m(google_secret())]),
        lambda: ("tests/fixtures/smtp.json", ['  "password": "%s"' % m(pw_phrase())]),
    ]
    for i in shuffled(range(len(pool)))[:R.randint(3, 4)]:
        path, ls = pool[i]()
        n = R.randint(2, 8)
        for ln in ls:
            n += R.randint(1, 4)
            if re.search(r"(?i)password|token|secret", unmark(ln)):
                out.append("%s:%d:%s" % (path, n, ln))
    if chance(0.5):
        out.append("grep: tests/fixtures/%s: binary file matches" % pick(["avatar.png", "sample.pdf", "keystore.p12"]))
    return run(c, "grep -rn -i -E 'password|token|secret' tests/fixtures/ spec/fixtures/", "\n".join(out))


def p_ag_grouped_php_config(c):
    blocks = []
    mg = m(pick([mailgun_key, lambda: "key-" + hexs(32)])())
    blocks.append(("config/services.php", [
        (R.randint(14, 20), "        'secret' => env('MAILGUN_SECRET', '%s')," % mg),
        (R.randint(30, 34), "        'key' => env('STRIPE_KEY', '%s')," % stripe_pk()),
        (35, "        'secret' => env('STRIPE_SECRET', '%s')," % m(stripe_sk())),
        (36, "        'webhook_secret' => env('STRIPE_WEBHOOK_SECRET')," if chance(0.5) else
             "        'webhook' => ['secret' => env('STRIPE_WEBHOOK_SECRET', '%s')]," % m(whsec()))]))
    blocks.append(("config/database.php", [
        (R.randint(48, 55), "            'password' => env('DB_PASSWORD', '%s')," % m(pw_any())),
        (R.randint(90, 99), "            'password' => env('REDIS_PASSWORD'),")]))
    if chance(0.7):
        blocks.append(("config/broadcasting.php", [
            (35, "            'key' => env('PUSHER_APP_KEY', '%s')," % fresh(HEX, 20)),
            (36, "            'secret' => env('PUSHER_APP_SECRET', '%s')," % m(pusher_secret())),
            (37, "            'app_id' => env('PUSHER_APP_ID', '%d')," % R.randint(1000000, 1999999))]))
    blocks.append(("config/app.php", [(R.randint(95, 110), "    'key' => env('APP_KEY'),"),
                                      (R.randint(111, 115), "    'cipher' => 'AES-256-CBC',")]))
    R.shuffle(blocks)
    out = []
    for path, ls in blocks:
        out.append(path)
        ls.sort(key=lambda x: x[0])
        prev = 0
        for n, t in ls:
            n = max(n, prev + 1)
            prev = n
            out.append("%d:%s" % (n, t))
        out.append("")
    return run(c, "ag --group -i 'secret|password|key' config/", "\n".join(out))


def p_git_grep_rev_prefixed(c):
    revs = [sha40() for _ in range(R.randint(2, 3))] if chance(0.5) else pick([["v2.3.0", "v2.4.0"], ["origin/main", "HEAD~5"], ["release/2.14", "main", "HEAD@{2}"]])
    path = pick(["deploy/.env.prod", "docker/prod.env", "config/deploy/production.env", "helm/values-prod.yaml"])
    yaml = path.endswith(".yaml")
    kinds = env_kinds(c)
    base = []
    for i in shuffled(range(len(kinds))):
        for ln in kinds[i]():
            if re.search(r"PASSWORD|SECRET|TOKEN|KEY", ln.split("=")[0]) and len(base) < 3:
                base.append((kinds[i], ln))
    out = []
    for j, rev in enumerate(revs):
        if j > 0 and chance(0.6):
            i = R.randrange(len(base))
            fn, old = base[i]
            nm = old.split("=")[0]
            new = [x for x in fn() if x.split("=")[0] == nm][0]
            base[i] = (fn, new)
        ln0 = R.randint(2, 9)
        for i, (_, ln) in enumerate(base):
            if yaml:
                k, v = ln.split("=", 1)
                ln = "    %s: %s" % (k, v)
            out.append("%s:%s:%d:%s" % (rev, path, ln0 + 2 * i, ln))
    cmd = "git grep -n -I -E 'PASSWORD|SECRET|TOKEN|KEY' %s -- %s" % (" ".join(revs), path)
    return run(c, cmd, "\n".join(out))


def p_fd_xargs_head_env_files(c):
    paths = shuffled([".env.local", "apps/web/.env.development.local", "packages/db/.env",
                      "services/worker/.env", ".env.test.local", "apps/admin/.env"])[:R.randint(2, 3)]
    out = []
    for p in paths:
        if out:
            out.append("")
        out.append("==> %s <==" % p)
        out.append(dotenv(c, R.randint(2, 4), R.randint(1, 4)))
    if chance(0.35):
        out += ["", "==> cypress.env.json <==", "{",
                '  "baseUrl": "http://localhost:3000",',
                '  "adminEmail": "admin@%s",' % c.domain,
                '  "adminPassword": "%s",' % m(pw_any()),
                '  "apiToken": "%s"' % m(jwt_user(c)), "}"]
    if "cypress" in "\n".join(out):
        cmd = pick(["fd -H -t f '^(\\.env.*|cypress\\.env\\.json)$' -E node_modules -E '*.example' | xargs head -n 20",
                    "fd --hidden --type f --regex '^(\\.env.*|cypress\\.env\\.json)$' --exclude '*.example' -X head -n 20"])
    else:
        cmd = pick(["fd -H -t f '^\\.env' -E node_modules -E '*.example' | xargs head -n 20",
                    "fd -H -g '.env*' -E '*.example' | xargs head -n 20",
                    "fd --hidden --type f --glob '.env*' --exclude '*.example' -X head -n 20"])
    return run(c, cmd, "\n".join(out))


def p_rg_only_matching_hooks(c):
    out = []
    files = shuffled([".github/workflows/notify.yml", "scripts/deploy.sh", "src/alerts/config.ts",
                      "ops/grafana/contact-points.yaml", "docs/runbooks/oncall.md", "infra/alerts.tf"])
    for p in files[:R.randint(3, 4)]:
        k = pick(["slack", "slack", "discord", "mattermost"])
        if k == "slack":
            t, b, s = slack_hook_parts()
            url = "https://hooks.slack.com/services/%s/%s/%s" % (t, b, m(s))
        elif k == "discord":
            i, tok = discord_hook_parts()
            url = "https://%s.com/api/webhooks/%s/%s" % (pick(["discord", "discordapp"]), i, m(tok))
        else:
            url = "https://chat.%s/hooks/%s" % (c.domain, m(fresh(LOW + DIG, 26)))
        out.append("%s:%d:%s" % (p, R.randint(3, 120), url))
    cmd = "rg -o -n --no-heading 'https://(hooks\\.slack\\.com/services|discord(app)?\\.com/api/webhooks|chat\\.[a-z.]+/hooks)/[^\"'\\'' )]+' ."
    return run(c, cmd, "\n".join(out))


# ------------------------------------------------------------------- git ---

def p_git_diff_env_rotation(c):
    path = pick(["deploy/staging.env", ".env.staging", "config/env/qa.env", "docker/dev.env"])
    ks = env_kinds(c)
    idx = shuffled(range(len(ks)))
    rot = [ks[i] for i in idx[:R.randint(1, 2)]]
    ctx = [ks[i] for i in idx[2:2 + R.randint(1, 2)]]
    plain = env_plain_lines(c, 4)
    body = []
    body += [" " + x for x in plain[:2]]
    for k in ctx:
        body += [" " + x for x in k()]
    for k in rot:
        old, new = k(), k()
        body += ["-" + x for x in old]
        body += ["+" + x for x in new]
    body += [" " + x for x in plain[2:]]
    a = R.randint(2, 20)
    nold = sum(1 for x in body if x[0] in " -")
    nnew = sum(1 for x in body if x[0] in " +")
    out = ["diff --git a/%s b/%s" % (path, path), "index %s..%s 100644" % (shortsha(), shortsha()),
           "--- a/" + path, "+++ b/" + path, "@@ -%d,%d +%d,%d @@%s" % (a, nold, a, nnew, pick(["", " APP_ENV=staging", " # app"]))] + body
    cmd = pick(["git diff %s" % path, "git diff HEAD~1 -- %s" % path, "git diff --cached %s" % path])
    return run(c, cmd, "\n".join(out))


def p_git_show_workflow_env_token(c):
    sha = sha40()
    kind = pick(["gha", "gitlab", "circle"])
    tok_kind = pick(["vercel", "npm", "docker", "cloudflare", "doppler"])
    if tok_kind == "vercel":
        v = m(vercel_token())
        old, new = "npx vercel deploy --prod --token ${{ secrets.VERCEL_TOKEN }}", "npx vercel deploy --prod --token %s" % v
        extra = []
    elif tok_kind == "npm":
        v = m(npm_token())
        old, new = "npm publish", "npm publish"
        extra = ["NODE_AUTH_TOKEN: %s" % v]
    elif tok_kind == "docker":
        v = m(dockerhub_pat())
        old, new = "echo \"$DOCKERHUB_TOKEN\" | docker login -u %s --password-stdin" % c.org, "docker login -u %s -p %s" % (c.org, v)
        extra = []
    elif tok_kind == "cloudflare":
        v = m(cloudflare_token())
        old, new = "npx wrangler deploy", "npx wrangler deploy"
        extra = ["CLOUDFLARE_API_TOKEN: %s" % v, "CLOUDFLARE_ACCOUNT_ID: %s" % fresh(HEX, 32)]
    else:
        v = m(doppler_token("prd"))
        old, new = "doppler run -- ./deploy.sh", "doppler run -- ./deploy.sh"
        extra = ["DOPPLER_TOKEN: %s" % v]
    if kind == "gha":
        path = ".github/workflows/%s.yml" % pick(["deploy", "release", "publish"])
        body = ["     runs-on: ubuntu-latest", "     steps:", "       - uses: actions/checkout@v4",
                "       - name: Deploy"]
        if old != new:
            body += ["-        run: " + old, "+        run: " + new]
        else:
            body += ["         run: " + old]
        if extra:
            body += ["+        env:"] + ["+          " + e for e in extra]
    elif kind == "gitlab":
        path = ".gitlab-ci.yml"
        body = [" deploy:", "   stage: deploy", "   image: node:20"]
        if extra:
            body += ["+  variables:"] + ["+    " + e for e in extra]
        body += ["   script:"]
        body += (["-    - " + old, "+    - " + new] if old != new else ["     - " + old])
    else:
        path = ".circleci/config.yml"
        body = ["   deploy:", "     docker:", "       - image: cimg/node:20.14"]
        if extra:
            body += ["+    environment:"] + ["+      " + e for e in extra]
        body += ["     steps:", "       - checkout"]
        body += (["-      - run: " + old, "+      - run: " + new] if old != new else ["       - run: " + old])
    a = R.randint(10, 40)
    nold = sum(1 for x in body if x[0] in " -")
    nnew = sum(1 for x in body if x[0] in " +")
    dt = c.at(-R.randint(3600, 900000))
    out = ["commit " + sha, "Author: " + git_author(c), "Date:   " + gitdate(dt, c.tz), "",
           "    " + pick(["ci: unblock deploy (temporary token)", "fix deploy auth", "ci: hardcode token until secrets are migrated",
                          "wip: get release job green"]), "",
           "diff --git a/%s b/%s" % (path, path), "index %s..%s 100644" % (shortsha(), shortsha()),
           "--- a/" + path, "+++ b/" + path, "@@ -%d,%d +%d,%d @@ jobs:" % (a, nold, a, nnew)] + body
    return run(c, "git show %s -- %s" % (sha[:pick([7, 8, 10])], path), "\n".join(out))


def p_conflict_markers_env_cat(c):
    fmt = pick(["yaml", "env", "json", "props"])
    other = pick(["feature/docker-dev", "origin/main", "fix/local-db", "a1b2c3d (seed data)"]).replace("a1b2c3d", shortsha())
    p1, p2 = m(pw_any()), m(pw_any())
    if fmt == "yaml":
        path = "config/database.yml"
        lines = ["default: &default", "  adapter: postgresql", "  encoding: unicode", "  pool: <%= ENV.fetch(\"RAILS_MAX_THREADS\") { 5 } %>", "",
                 "development:", "  <<: *default", "  database: %s" % dbname(c), "<<<<<<< HEAD", "  username: %s" % c.user,
                 "  password: %s" % p1, "  host: localhost", "=======", "  username: postgres", "  password: %s" % p2,
                 "  host: db", ">>>>>>> " + other]
    elif fmt == "env":
        path = pick([".env.test", ".env.development"])
        s1, s2 = m(stripe_sk("test")), m(stripe_sk("test"))
        lines = ["APP_ENV=local", "<<<<<<< HEAD", "DB_PASSWORD=%s" % p1, "STRIPE_SECRET_KEY=%s" % s1, "=======",
                 "DB_PASSWORD=%s" % p2, "STRIPE_SECRET_KEY=%s" % s2, ">>>>>>> " + other, "QUEUE_CONNECTION=sync"]
    elif fmt == "json":
        path = pick(["appsettings.Development.json", "config/local.json"])
        lines = ["{", '  "Logging": { "LogLevel": { "Default": "Information" } },', '  "ConnectionStrings": {',
                 "<<<<<<< HEAD", '    "Default": "Host=localhost;Database=%s;Username=app;Password=%s"' % (dbname(c), p1),
                 "=======", '    "Default": "Host=db;Database=%s;Username=app;Password=%s;Include Error Detail=true"' % (dbname(c), p2),
                 ">>>>>>> " + other, "  }", "}"]
    else:
        path = "src/main/resources/application-local.properties"
        lines = ["spring.datasource.url=jdbc:postgresql://localhost:5432/%s" % dbname(c), "spring.datasource.username=app",
                 "<<<<<<< HEAD", "spring.datasource.password=%s" % p1, "=======", "spring.datasource.password=%s" % p2,
                 ">>>>>>> " + other, "spring.jpa.hibernate.ddl-auto=validate"]
    return show_file(c, path, "\n".join(lines))


def blame_lines(c, lines):
    authors = shuffled(FULLNAMES)[:R.randint(2, 3)]
    w = max(len(a) for a in authors)
    commits = [(hexs(8), a, c.at(-R.randint(86400, 40000000))) for a in authors]
    out = []
    start = R.randint(1, 30)
    width = len(str(start + len(lines)))
    for i, ln in enumerate(lines):
        sha, a, dt = pick(commits) if "\u00ab" not in ln else commits[0]
        sh = sha if sha != commits[-1][0] or len(commits) < 3 else "^" + sha[:7]
        out.append("%s (%s %s %s %*d) %s" % (sh, a.ljust(w), ymd_hms(dt), c.tz, width, start + i, ln))
    return start, out


def p_git_blame_range_initializer(c):
    lang = pick(["rb", "py", "js"])
    if lang == "rb":
        path = "config/initializers/stripe.rb"
        lines = ["Rails.configuration.stripe = {", '  publishable_key: ENV["STRIPE_PUBLISHABLE_KEY"],',
                 '  secret_key: ENV.fetch("STRIPE_SECRET_KEY", "%s"),' % m(stripe_sk()),
                 '  signing_secret: ENV.fetch("STRIPE_SIGNING_SECRET", "%s")' % m(whsec()), "}", "",
                 "Stripe.api_key = Rails.configuration.stripe[:secret_key]"]
    elif lang == "py":
        path = "%s/observability.py" % c.proj.replace("-", "_")
        lines = ["import sentry_sdk", "from redis import Redis", "",
                 "sentry_sdk.init(", '    dsn="%s",' % sentry_dsn_marked(), "    traces_sample_rate=0.2,", ")",
                 'cache = Redis.from_url("redis://:%s@cache:6379/1")' % m(pw_url())]
    else:
        path = "knexfile.js"
        lines = ["module.exports = {", "  development: {", "    client: 'pg',", "    connection: {",
                 "      host: '127.0.0.1',", "      user: '%s'," % c.proj.split("-")[0], "      password: '%s'," % m(pw_any()),
                 "      database: '%s'," % dbname(c), "    },", "  },", "};"]
    start, out = blame_lines(c, lines)
    return run(c, "git blame -L %d,%d %s" % (start, start + len(lines) - 1, path), "\n".join(out))


def p_format_patch_compose_password(c):
    pg, mn, rb = m(pw_url()), m(pw_any()), m(pw_url())
    mkey = fresh(UP + DIG, 20)
    body = ["services:", "  db:", "    image: postgres:16", "    environment:", "      POSTGRES_USER: app",
            "      POSTGRES_PASSWORD: %s" % pg, "    ports:", '      - "5432:5432"', "  minio:",
            "    image: minio/minio:RELEASE.2024-06-13T22-53-53Z", "    command: server /data --console-address :9001",
            "    environment:", "      MINIO_ROOT_USER: %s" % mkey, "      MINIO_ROOT_PASSWORD: %s" % mn,
            "  rabbitmq:", "    image: rabbitmq:3.13-management", "    environment:",
            "      RABBITMQ_DEFAULT_USER: %s" % c.proj.split("-")[0], "      RABBITMQ_DEFAULT_PASS: %s" % rb,
            "  app:", "    build: .", "    environment:",
            "      DATABASE_URL: postgres://app:%s@db:5432/%s" % (pg, dbname(c)),
            "      AMQP_URL: amqp://%s:%s@rabbitmq:5672/" % (c.proj.split("-")[0], rb),
            "    depends_on: [db, minio, rabbitmq]"]
    sha = sha40()
    dt = c.at(-R.randint(3600, 9000000))
    n = len(body)
    subj = pick(["dev: add local stack with postgres, minio and rabbitmq", "chore: docker compose for local development",
                 "Add compose file so the app boots without cloud deps"])
    out = ["From %s Mon Sep 17 00:00:00 2001" % sha, "From: " + git_author(c),
           "Date: %s, %d %s %d %02d:%02d:%02d %s" % (WEEKDAYS[dt.weekday()], dt.day, MONTHS[dt.month - 1], dt.year, dt.hour, dt.minute, dt.second, c.tz),
           "Subject: [PATCH] " + subj, "", "---", " docker-compose.yml | %d %s" % (n, "+" * n), " 1 file changed, %d insertions(+)" % n, "",
           "diff --git a/docker-compose.yml b/docker-compose.yml", "new file mode 100644", "index 0000000..%s" % shortsha(),
           "--- /dev/null", "+++ b/docker-compose.yml", "@@ -0,0 +1,%d @@" % n] + ["+" + x for x in body] + \
          ["-- ", pick(["2.45.2", "2.46.0", "2.39.3 (Apple Git-146)", "2.47.1"]), ""]
    name = "0001-" + re.sub(r"[^a-z0-9]+", "-", subj.lower()).strip("-")[:52] + ".patch"
    return run(c, "cat " + pick(["", "patches/", "/tmp/"]) + name, "\n".join(out))


def p_git_diff_word_diff_tokens(c):
    path = pick(["config/secrets.yml", "config/credentials.local.yml", "settings/local.toml", "app.config.yaml"])
    toml = path.endswith(".toml")
    def kv(k, v):
        return ('%s = "%s"' % (k, v)) if toml else ("%s: %s" % (k, v))
    out = ["diff --git a/%s b/%s" % (path, path), "index %s..%s 100644" % (shortsha(), shortsha()),
           "--- a/" + path, "+++ b/" + path, "@@ -%d,%d +%d,%d @@ %s" % (3, 9, 3, 9, pick(["production:", "[services]", "default:"]))]
    pairs = [("secret_key", stripe_sk), ("webhook_secret", whsec), ("jwt_secret", lambda: hexs(64)),
             ("api_token", lambda: gh_token("ghp_")), ("password", pw_any), ("access_token", slack_bot)]
    for k, g in shuffled(pairs)[:R.randint(2, 3)]:
        old, new = g(), g()
        line = kv(k, "[-%s-]{+%s+}" % (m(old), m(new)))
        out.append(("  " if not toml else "") + line)
        if chance(0.5):
            out.append(("  " if not toml else "") + kv(*pick([("timeout", "30"), ("region", "eu-west-1"), ("enabled", "true")])))
    return run(c, "git diff --word-diff=plain " + path, "\n".join(out))


def p_git_log_p_pem_fixture_added(c):
    kind = pick(["pkcs8-rsa", "rsa", "ec", "pkcs8-ec", "ed25519"])
    k = pem(kind)
    base = pick(["tests/fixtures/keys/jwt_%s" % pick(["rs256", "es256", "signing"]), "spec/support/keys/test_signing",
                 "src/test/resources/keys/token_signer"])
    path = base + pick([".pem", ".key"])
    sha = sha40()
    dt = c.at(-R.randint(3600, 9000000))
    nl = len(k[1]) + 2
    out = ["commit " + sha, "Author: " + git_author(c), "Date:   " + gitdate(dt, c.tz), "",
           "    " + pick(["test: add signing key fixtures for token tests", "add test keys", "tests: deterministic JWT keys"]), "",
           "diff --git a/%s b/%s" % (path, path), "new file mode 100644", "index 0000000..%s" % shortsha(),
           "--- /dev/null", "+++ b/" + path, "@@ -0,0 +1,%d @@" % nl, prefix_lines("+", pem_block(k))]
    if chance(0.6):
        pub = public_pem()
        pp = base + ".pub"
        out += ["diff --git a/%s b/%s" % (pp, pp), "new file mode 100644", "index 0000000..%s" % shortsha(),
                "--- /dev/null", "+++ b/" + pp, "@@ -0,0 +1,%d @@" % len(pub)] + ["+" + x for x in pub]
    return run(c, "git log -p -1 -- %s" % base.rsplit("/", 1)[0], "\n".join(out))


def p_combined_diff_merge_conflict_yaml(c):
    path = pick(["config/application.yml", "config/settings/staging.yaml", "deploy/values.yaml"])
    other = pick(["feature/sendgrid-rotation", "origin/develop", "hotfix/mail", "release/2.14"])
    kind = pick(["mail", "db", "api"])
    if kind == "mail":
        a, b = m(sendgrid_key()), m(sendgrid_key())
        ctx = ["    smtp:", "      address: smtp.sendgrid.net", "      user_name: apikey"]
        ours, theirs = ["      password: " + a], ["      password: " + b, "      port: 2525"]
        tail = ["      enable_starttls_auto: true"]
    elif kind == "db":
        a, b = m(pw_any()), m(pw_any())
        ctx = ["  datasource:", "    url: jdbc:postgresql://%s:5432/%s" % (svc_host(c), dbname(c)), "    username: app"]
        ours, theirs = ["    password: " + a], ["    password: " + b]
        tail = ["    hikari:", "      maximum-pool-size: 10"]
    else:
        a, b = m(openai_key()), m(anthropic_key())
        ctx = ["  llm:", "    timeout_seconds: 60"]
        ours = ["    provider: openai", "    api_key: " + a]
        theirs = ["    provider: anthropic", "    api_key: " + b, "    model: claude-3-5-sonnet-latest"]
        tail = ["    max_retries: 3"]
    s = R.randint(5, 40)
    body = ["  " + x for x in ctx] + ["++<<<<<<< HEAD"] + [" +" + x for x in ours] + ["++======="] + \
           ["+ " + x for x in theirs] + ["++>>>>>>> " + other] + ["  " + x for x in tail]
    out = ["diff --cc " + path, "index %s,%s..0000000" % (shortsha(), shortsha()), "--- a/" + path, "+++ b/" + path,
           "@@@ -%d,%d -%d,%d +%d,%d @@@ %s" % (s, len(ctx) + len(tail) + 1, s, len(ctx) + len(tail) + 1, s, len(body), pick(["production:", "spring:", "app:"]))] + body
    pre = ["On branch %s" % c.branch, "You have unmerged paths.", "  (fix conflicts and run \"git commit\")", "",
           "Unmerged paths:", "  (use \"git add <file>...\" to mark resolution)", "\tboth modified:   " + path, ""]
    if chance(0.5):
        return runs(c, [("git status", "\n".join(pre)), ("git diff", "\n".join(out))])
    return run(c, "git diff", "\n".join(out))


# ----------------------------------------------------------------- tests ---

def pytest_header(c, n):
    return ["============================= test session starts ==============================",
            "platform %s -- Python %s, pytest-%s, pluggy-1.5.0 -- %s/.venv/bin/python" % ("darwin" if c.mac else "linux", c.pyver, pick(["8.2.2", "8.3.2", "8.3.4"]), c.cwd),
            "cachedir: .pytest_cache", "rootdir: " + c.cwd, "configfile: pyproject.toml",
            "plugins: " + ", ".join(shuffled(["anyio-4.4.0", "cov-5.0.0", "asyncio-0.23.8", "mock-3.14.0", "django-4.8.0", "httpx-0.30.0"])[:R.randint(1, 3)]),
            "collecting ... collected %d items" % n, ""]


def pad_line(left, right, w=80):
    return left + " " * max(1, w - len(left) - len(right)) + right


def pyrepr_dict(d):
    return "{" + ", ".join("'%s': %s" % (k, v) for k, v in d) + "}"


def p_pytest_vv_dict_full_diff(c):
    pw = m(pw_any())
    dbpw = m(pw_url())
    sk = m(stripe_sk("test"))
    app = pick(["staging", "development", "local"])
    actual = [("app_env", "'%s'" % app), ("database_url", "'postgresql://app:%s@localhost:5432/%s_test'" % (dbpw, c.proj.replace("-", "_"))),
              ("debug", "False"), ("smtp_password", "'%s'" % pw), ("stripe_api_key", "'%s'" % sk)]
    expected = [("app_env", "'test'"), actual[1], actual[2], ("smtp_password", "'test-password'"), actual[4]]
    tname = pick(["test_load_from_env", "test_settings_roundtrip", "test_env_overrides"])
    tests = ["tests/test_settings.py::test_defaults", "tests/test_settings.py::" + tname, "tests/test_settings.py::test_debug_off"]
    out = pytest_header(c, 3)
    for i, t in enumerate(tests):
        out.append(pad_line(t + (" FAILED" if i == 1 else " PASSED"), "[%3d%%]" % ((i + 1) * 100 // 3)))
    out += ["", "=================================== FAILURES ===================================",
            ("_" * 30 + " " + tname + " " + "_" * 30)[:80], "",
            "monkeypatch = <_pytest.monkeypatch.MonkeyPatch object at 0x7f%s>" % rc(HEX, 10), "",
            "    def %s(monkeypatch):" % tname, '        monkeypatch.setenv("APP_ENV", "%s")' % app,
            "        cfg = load_settings()", ">       assert cfg.as_dict() == EXPECTED",
            "E       AssertionError: assert %s == %s" % (pyrepr_dict(actual), pyrepr_dict(expected)), "E         ",
            "E         Common items:", "E         {'database_url': %s, 'debug': False, 'stripe_api_key': %s}" % (actual[1][1], actual[4][1]),
            "E         Differing items:", "E         {'app_env': '%s'} != {'app_env': 'test'}" % app,
            "E         {'smtp_password': '%s'} != {'smtp_password': 'test-password'}" % pw, "E         ",
            "E         Full diff:", "E           {", "E         -     'app_env': 'test',", "E         +     'app_env': '%s'," % app,
            "E               'database_url': %s," % actual[1][1], "E               'debug': False,",
            "E         -     'smtp_password': 'test-password',", "E         +     'smtp_password': '%s'," % pw,
            "E               'stripe_api_key': %s," % actual[4][1], "E           }", "",
            "tests/test_settings.py:%d: AssertionError" % R.randint(20, 60),
            "=========================== short test summary info ============================",
            "FAILED tests/test_settings.py::%s - AssertionError: assert {'app_env': '%s', ...} == {'app_env': 'test', ...}" % (tname, app),
            "========================= 1 failed, 2 passed in %.2fs ==========================" % (R.random() + 0.1)]
    return run(c, "pytest -vv tests/test_settings.py", "\n".join(out), rc=1)


def p_jest_called_with_auth_header(c):
    kind = pick(["stripe", "jwt", "openai"])
    if kind == "stripe":
        url, tok, exp = "https://api.stripe.com/v1/payment_intents", m(stripe_sk()), "sk_test_mock"
    elif kind == "jwt":
        url, tok, exp = "https://api.%s/v2/orders" % c.domain, m(jwt_user(c, aud="api")), "test-token"
    else:
        url, tok, exp = "https://api.openai.com/v1/chat/completions", m(openai_key()), "sk-test"
    idem = uuid4()
    suite = pick(["ApiClient", "PaymentsService", "useOrders", "LlmGateway"])
    test = pick(["sends auth header", "retries with idempotency key", "posts the payload"])
    out = [" FAIL  src/__tests__/%s.test.ts" % (suite[0].lower() + suite[1:]),
           "  %s" % suite, "    \u2713 builds the request url (3 ms)", "    \u2715 %s (%d ms)" % (test, R.randint(4, 40)), "",
           "  \u25cf %s \u203a %s" % (suite, test), "",
           "    expect(jest.fn()).toHaveBeenCalledWith(...expected)", "", "    - Expected", "    + Received", "",
           '      "%s",' % url, "      {", '        "body": Any<String>,', '        "headers": {',
           '    -     "Authorization": "Bearer %s",' % exp, '    +     "Authorization": "Bearer %s",' % tok,
           '          "Content-Type": "application/json",', '          "Idempotency-Key": "%s",' % idem,
           "        },", '        "method": "POST",', "      },", "", "    Number of calls: 1", "",
           "      %d |     await client.create({ amount: %d });" % (40, R.randint(100, 9000)),
           "    > 41 |     expect(fetchMock).toHaveBeenCalledWith(", "         |                       ^",
           '      42 |       "%s",' % url, "", "      at Object.<anonymous> (src/__tests__/%s.test.ts:41:23)" % (suite[0].lower() + suite[1:]), "",
           "Test Suites: 1 failed, %d passed, %d total" % (R.randint(3, 30), R.randint(31, 40)),
           "Tests:       1 failed, %d passed, %d total" % (R.randint(40, 200), R.randint(201, 260)),
           "Snapshots:   0 total", "Time:        %.3f s" % (R.random() * 9 + 1), "Ran all test suites."]
    return run(c, pick(["npx jest", "pnpm test", "npm test --", "yarn jest"]) + " src/__tests__", "\n".join(out), rc=1)


def p_cargo_test_panic_debug_struct(c):
    crate = c.proj.replace("-", "_")
    pw = m(pw_url())
    js = m(jwt_secret())
    extra = pick(["smtp_password: Some(\"%s\")" % m(pw_any()), "stripe_key: \"%s\"" % m(stripe_sk()),
                  "github_token: Some(\"%s\")" % m(gh_token(pick(["ghp_", "ghs_"]))), "redis_url: None"])
    def cfg(port):
        return ('Config { database_url: "postgres://svc:%s@localhost:5432/%s", %s, jwt_secret: "%s", port: %d, log_json: false }'
                % (pw, dbname(c), extra, js, port))
    test = pick(["config::tests::parses_env", "settings::tests::loads_from_file", "config::tests::defaults_merge"])
    out = ["   Compiling %s v0.%d.%d (%s)" % (crate, R.randint(1, 9), R.randint(0, 20), c.cwd),
           "    Finished `test` profile [unoptimized + debuginfo] target(s) in %.2fs" % (R.random() * 20 + 1),
           "     Running unittests src/lib.rs (target/debug/deps/%s-%s)" % (crate, rc(HEX, 16)), "",
           "running 4 tests", "test config::tests::rejects_bad_port ... ok", "test %s ... FAILED" % test,
           "test auth::tests::hashes_password ... ok", "test auth::tests::token_roundtrip ... ok", "", "failures:", "",
           "---- %s stdout ----" % test,
           "thread '%s' panicked at src/%s.rs:%d:%d:" % (test, test.split("::")[0], R.randint(60, 200), R.randint(5, 9)),
           "assertion `left == right` failed", "  left: " + cfg(8080), " right: " + cfg(3000),
           "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace", "", "", "failures:", "    " + test, "",
           "test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.0%ds" % R.randint(1, 9), "",
           "error: test failed, to rerun pass `--lib`"]
    return run(c, "cargo test --lib", "\n".join(out), rc=101)


def p_testify_not_equal_struct_diff(c):
    mod = "github.com/%s/%s" % (c.org, c.proj)
    dsn = "postgres://api:%s@localhost:5432/%s?sslmode=disable" % (m(pw_url()), dbname(c))
    key = pick([stripe_sk, sendgrid_key, lambda: slack_bot()])()
    t = "\t"
    ind = "    "
    def row(a, b=""):
        return ind + t + a + t + b
    exp = 'config.Config{Port:8080, DSN:"%s", APIKey:"%s", Debug:false}' % (dsn, m(key))
    act = 'config.Config{Port:8081, DSN:"%s", APIKey:"%s", Debug:false}' % (dsn, m(key))
    out = ["=== RUN   TestLoadConfig", ind + "config_test.go:%d: " % R.randint(30, 90),
           ind + t + "Error Trace:" + t + "%s/internal/config/config_test.go:%d" % (c.cwd, R.randint(30, 90)),
           ind + t + "Error:      " + t + "Not equal: ",
           ind + t + "            " + t + "expected: " + exp,
           ind + t + "            " + t + "actual  : " + act,
           ind + t + "            " + t, ind + t + "            " + t + "Diff:",
           ind + t + "            " + t + "--- Expected", ind + t + "            " + t + "+++ Actual",
           ind + t + "            " + t + "@@ -1,3 +1,3 @@", ind + t + "            " + t + " (config.Config) {",
           ind + t + "            " + t + "- Port: (int) 8080,", ind + t + "            " + t + "+ Port: (int) 8081,",
           ind + t + "            " + t + '  DSN: (string) (len=%d) "%s",' % (len(unmark(dsn)), dsn),
           ind + t + "Test:       " + t + "TestLoadConfig",
           "--- FAIL: TestLoadConfig (0.00s)", "FAIL", "FAIL\t%s/internal/config\t0.%03ds" % (mod, R.randint(3, 80)), "FAIL"]
    return run(c, "go test -v -run TestLoadConfig ./internal/config/", "\n".join(out), rc=1)


def p_rspec_webmock_unregistered_request(c):
    kind = pick(["stripe", "mailgun", "sendgrid", "twilio"])
    if kind == "stripe":
        meth, url, auth, body = "post", "https://api.stripe.com/v1/charges", "Bearer " + m(stripe_sk()), "amount=2000&currency=usd&source=tok_visa"
        ua = "Stripe/v1 RubyBindings/10.%d.0" % R.randint(0, 9)
    elif kind == "mailgun":
        meth, url = "post", "https://api.mailgun.net/v3/mg.%s/messages" % c.domain
        auth = "Basic " + m(basic_blob("api", mailgun_key()))
        body, ua = "from=no-reply%%40%s&to=test%%40example.com&subject=Welcome" % c.domain, "rest-client/2.1.0 (linux x86_64) ruby/3.3.4p94"
    elif kind == "sendgrid":
        meth, url, auth = "post", "https://api.sendgrid.com/v3/mail/send", "Bearer " + m(sendgrid_key())
        body, ua = '{"personalizations":[{"to":[{"email":"test@example.com"}]}]}', "sendgrid/6.7.0;ruby"
    else:
        sid = twilio_sid()
        meth, url = "post", "https://api.twilio.com/2010-04-01/Accounts/%s/Messages.json" % sid
        auth = "Basic " + m(basic_blob(sid, twilio_token()))
        body, ua = "Body=Your+code+is+%d&From=%%2B15005550006&To=%%2B15558675310" % R.randint(100000, 999999), "twilio-ruby/7.2.0 (ruby/x86_64-linux 3.3.4-p94)"
    hdrs = "{'Accept'=>'*/*', 'Accept-Encoding'=>'gzip;q=1.0,deflate;q=0.6,identity;q=0.3', 'Authorization'=>'%s', 'Content-Type'=>'application/x-www-form-urlencoded', 'User-Agent'=>'%s'}" % (auth, ua)
    job = pick(["Billing::ChargeJob", "Notifications::WelcomeMailer", "Sms::OtpSender", "Checkout::Finalize"])
    out = ["", "Failures:", "", "  1) %s %s" % (job, pick(["charges the card", "delivers the message", "sends the code"])),
           "     Failure/Error: response = http.request(req)", "", "     WebMock::NetConnectNotAllowedError:",
           "       Real HTTP connections are disabled. Unregistered request: %s %s with body '%s' with headers %s" % (meth.upper(), url, body, hdrs),
           "", "       You can stub this request with the following snippet:", "",
           '       stub_request(:%s, "%s").' % (meth, url), "         with(", "           body: %s," % jstr(body.split("&")[0] + "..." if len(body) > 60 else body),
           "           headers: {", "       	  'Accept'=>'*/*',", "       	  'Authorization'=>'%s'," % auth,
           "       	  'User-Agent'=>'%s'" % ua, "           }).", '         to_return(status: 200, body: "", headers: {})', "",
           "       " + "=" * 60, "     # ./app/%s.rb:%d:in `%s'" % (re.sub(r"(?<!^)([A-Z])", r"_\1", job).lower().replace("::_", "/").replace("::", "/"), R.randint(10, 80), pick(["perform", "deliver", "call"])),
           "     # ./spec/%s_spec.rb:%d:in `block (2 levels) in <top (required)>'" % (job.split("::")[-1].lower(), R.randint(5, 40)), "",
           "Finished in %.2f seconds (files took %.2f seconds to load)" % (R.random() * 5, R.random() * 3 + 0.5),
           "%d examples, 1 failure" % R.randint(8, 200), "", "Failed examples:", "",
           "rspec ./spec/%s_spec.rb:%d # %s" % (job.split("::")[-1].lower(), R.randint(5, 40), job)]
    return run(c, "bundle exec rspec spec/%s_spec.rb" % job.split("::")[-1].lower(), "\n".join(out), rc=1)


def p_phpunit_array_equal_failure(c):
    pw = m(pw_any())
    kind = pick(["mail", "services"])
    if kind == "mail":
        rows = [("transport", "'smtp'", None), ("host", "'smtp.mailgun.org'", None), ("port", "587", None),
                ("username", "'postmaster@mg.%s'" % c.domain, None), ("password", "'%s'" % pw, "'secret'")]
        test = "Tests\\Unit\\MailConfigTest::test_mailer_uses_env"
    else:
        sk = m(stripe_sk())
        rows = [("key", "'%s'" % stripe_pk(), None), ("secret", "'%s'" % sk, "'sk_test_placeholder'"),
                ("webhook_tolerance", "300", None)]
        test = "Tests\\Feature\\StripeConfigTest::test_reads_keys_from_env"
    out = ["PHPUnit %s by Sebastian Bergmann and contributors." % pick(["10.5.20", "11.2.1", "11.4.3"]), "",
           "Runtime:       PHP %s" % pick(["8.2.20", "8.3.7", "8.3.12"]), "Configuration: %s/phpunit.xml" % c.cwd, "",
           "..F." + " " * 60 + "4 / 4 (100%)", "", "Time: 00:00.%03d, Memory: %d.00 MB" % (R.randint(50, 900), R.randint(12, 60)), "",
           "There was 1 failure:", "", "1) " + test, "Failed asserting that two arrays are equal.", "--- Expected", "+++ Actual",
           "@@ @@", " Array ("]
    for k, act, exp in rows:
        if exp is None:
            out.append("     '%s' => %s" % (k, act))
        else:
            out.append("-    '%s' => %s" % (k, exp))
            out.append("+    '%s' => %s" % (k, act))
    out += [" )", "", "%s/tests/%s.php:%d" % (c.cwd, test.split("::")[0].replace("Tests\\", "").replace("\\", "/"), R.randint(20, 60)), "",
            "FAILURES!", "Tests: 4, Assertions: %d, Failures: 1." % R.randint(5, 20)]
    return run(c, pick(["vendor/bin/phpunit", "php artisan test --without-tty", "./vendor/bin/phpunit --testdox=false"]), "\n".join(out), rc=1)


def p_pytest_captured_log_headers(c):
    tok = m(jwt_user(c, aud="https://api.%s" % c.domain))
    rt = m(pick([lambda: fresh(B64U, 43), google_refresh, lambda: "rt_" + fresh(B62, 40)])())
    cid = pick([uuid4(), fresh(B62, 22)])
    csec = m(pick([lambda: fresh(B62 + "-_", 40), google_secret])())
    host = "auth.%s" % c.domain
    out = ["FAILED tests/integration/test_client.py::test_refresh_token - httpx.HTTPStatusError: Client error '401 Unauthorized' for url 'https://%s/oauth/token'" % host,
           "------------------------------ Captured log call -------------------------------",
           "DEBUG    app.clients.base:base.py:%d POST https://%s/oauth/token" % (R.randint(40, 90), host),
           "DEBUG    app.clients.base:base.py:%d request headers={'Authorization': 'Bearer %s', 'X-Request-Id': '%s', 'User-Agent': '%s/%d.%d'}" % (R.randint(40, 90), tok, uuid4(), c.proj, R.randint(0, 3), R.randint(0, 20)),
           "DEBUG    app.clients.base:base.py:%d request body={'grant_type': 'refresh_token', 'refresh_token': '%s', 'client_id': '%s', 'client_secret': '%s'}" % (R.randint(40, 90), rt, cid, csec),
           'INFO     httpx:_client.py:1026 HTTP Request: POST https://%s/oauth/token "HTTP/1.1 401 Unauthorized"' % host,
           "WARNING  app.clients.base:base.py:%d token refresh failed status=401 body={\"error\":\"invalid_grant\"}" % R.randint(90, 120),
           "=========================== short test summary info ============================",
           "FAILED tests/integration/test_client.py::test_refresh_token - httpx.HTTPStatusError: Client error '401 Unauthorized'...",
           "==================== 1 failed, %d passed, %d warnings in %.2fs ====================" % (R.randint(10, 90), R.randint(0, 5), R.random() * 9)]
    return run(c, "pytest tests/integration -x -q --log-level=DEBUG", "\n".join(out), rc=1)


# ---------------------------------------------------------- debug prints ---

def p_python_dataclass_settings_repr(c):
    app = c.proj.replace("-", "_")
    f = [("env", "'%s'" % pick(["staging", "dev", "local"])),
         ("database_url", "'postgresql+asyncpg://%s:%s@%s:5432/%s'" % (app, m(pw_url()), svc_host(c), dbname(c))),
         ("redis_url", "'redis://default:%s@%s:6379/0'" % (m(pw_url()), pick(["localhost", "redis", "cache"]))),
         ("openai_api_key", "'%s'" % m(openai_key())), ("sentry_dsn", "'%s'" % sentry_dsn_marked()),
         ("allowed_hosts", "['localhost', '%s']" % c.domain), ("debug", pick(["True", "False"])),
         ("jwt_algorithm", "'HS256'"), ("jwt_secret", "'%s'" % m(jwt_secret())),
         ("token_ttl", "timedelta(seconds=%d)" % pick([900, 3600])),
         ("aws_access_key_id", "'%s'" % aws_key_id()), ("aws_secret_access_key", "'%s'" % m(aws_secret()))]
    f = [f[0]] + shuffled(f[1:])[:R.randint(6, 9)]
    cls = pick(["Settings", "AppConfig", "Config"])
    mode = pick(["print", "repl", "pprint"])
    if mode == "print":
        return run(c, "python -c 'from %s.config import settings; print(settings)'" % app,
                   "%s(%s)" % (cls, ", ".join("%s=%s" % kv for kv in f)))
    if mode == "repl":
        out = ["Python %s (main, %s %d %d, %02d:%02d:%02d) [GCC 12.2.0] on linux" % (c.pyver, MONTHS[c.t0.month - 1], c.t0.day, c.t0.year, R.randint(0, 23), R.randint(0, 59), R.randint(0, 59)),
               'Type "help", "copyright", "credits" or "license" for more information.',
               ">>> from %s.config import get_settings" % app, ">>> get_settings()",
               "%s(%s)" % (cls, ", ".join("%s=%s" % kv for kv in f)), ">>> "]
        return run(c, "python", "\n".join(out))
    out = ["{" + (",\n ".join("'%s': %s" % kv for kv in f)) + "}"]
    return run(c, "python -c 'import pprint, dataclasses; from %s.config import settings; pprint.pprint(dataclasses.asdict(settings))'" % app, "\n".join(out))


def p_rust_dbg_macro_pretty(c):
    crate = c.proj.replace("-", "_")
    pw = m(pw_url())
    lines = ["[src/main.rs:%d:%d] &cfg = AppConfig {" % (R.randint(15, 80), 5),
             "    server: ServerConfig {", '        host: "0.0.0.0",', "        port: %d," % pick([3000, 8080, 8000]), "    },",
             "    database: DatabaseSettings {",
             '        url: "postgres://%s:%s@%s:5432/%s",' % (crate, pw, svc_host(c), dbname(c)),
             "        max_connections: %d," % R.randint(5, 50), "    },",
             "    auth: AuthConfig {", '        jwt_secret: "%s",' % m(jwt_secret()),
             "        session_key: Secret([REDACTED alloc::string::String]),", "        token_ttl_secs: %d," % pick([900, 3600]), "    },"]
    tail = pick([['    s3: S3Config {', '        bucket: "%s-%s",' % (c.org, c.proj), '        access_key_id: "%s",' % aws_key_id(),
                  '        secret_access_key: "%s",' % m(aws_secret()), "    },"],
                 ['    slack: Some(', '        SlackConfig {', '            bot_token: "%s",' % m(slack_bot()),
                  '            channel: "#alerts",', "        },", "    ),"],
                 ['    stripe_key: "%s",' % m(stripe_rk())]])
    lines += tail + ["}"]
    out = ["   Compiling %s v0.%d.0 (%s)" % (crate, R.randint(1, 9), c.cwd),
           "    Finished `dev` profile [unoptimized + debuginfo] target(s) in %.2fs" % (R.random() * 9 + 0.3),
           "     Running `target/debug/%s`" % crate] + lines + \
          ["%s  INFO %s: listening on 0.0.0.0:%d" % (iso(c.at(2), ms=True), crate, pick([3000, 8080]))]
    return run(c, "cargo run", "\n".join(out))


def p_go_sharp_v_config_print(c):
    dbpw = m(pw_any())
    akid, sak = aws_key_id(), m(aws_secret())
    bot = m(slack_bot())
    dsn = "host=localhost user=app password=%s dbname=%s sslmode=disable" % (dbpw, dbname(c))
    if chance(0.5):
        s = ('config.Config{Env:"%s", HTTP:config.HTTP{Addr:":8080", ReadTimeout:5000000000}, DB:config.DB{DSN:"%s", MaxOpen:25}, '
             'AWS:config.AWS{Region:"eu-west-1", AccessKeyID:"%s", SecretAccessKey:"%s"}, SlackBotToken:"%s", Debug:true}'
             % (pick(["dev", "local"]), dsn, akid, sak, bot))
        flag = "%#v"
    else:
        s = ("{Env:%s HTTP:{Addr::8080 ReadTimeout:5s} DB:{DSN:%s MaxOpen:25} AWS:{Region:eu-west-1 AccessKeyID:%s SecretAccessKey:%s} SlackBotToken:%s Debug:true}"
             % (pick(["dev", "local"]), dsn, akid, sak, bot))
        flag = "%+v"
    out = ["%s DEBUG loaded config: %s" % (ymd_hms(c.at(0)).replace("-", "/"), s)]
    if chance(0.5):
        out.append("%s INFO  server listening addr=:8080" % ymd_hms(c.at(1)).replace("-", "/"))
    return run(c, "go run ./cmd/api %s  # log.Printf(\"loaded config: %s\", cfg)" % (pick(["-debug", "--print-config", ""]), flag), "\n".join(out))


def p_jvm_tostring_log_lines(c):
    pkg = "%s.%s" % (pick(["com", "io", "dev"]), c.org)
    out = []
    t = c.at(0)
    pid = R.randint(1000, 99999)
    def spring(logger, msg, lvl="DEBUG", sec=0):
        return "%s %5s %d --- [%s] [%15s] %-40s : %s" % (iso(c.at(sec), z="+01:00"), lvl, pid, c.proj, "main", logger[:40], msg)
    out.append(spring("o.s.b.SpringApplication", "Running with Spring Boot v3.%d.%d, Spring v6.1.%d" % (R.randint(2, 4), R.randint(0, 9), R.randint(0, 14)), "INFO"))
    choices = [
        lambda: spring("%s.billing.config.StripeConfig" % pkg[:12], "Loaded StripeProperties(apiKey=%s, webhookSecret=%s, connectTimeout=PT10S, maxRetries=2)" % (m(stripe_sk()), m(whsec())), sec=1),
        lambda: spring("c.%s.mail.MailConfiguration" % c.org[:6], "MailSettings(host=smtp.sendgrid.net, port=587, username=apikey, password=%s, starttls=true)" % m(sendgrid_key()), sec=1),
        lambda: spring("c.%s.db.DataSourceConfig" % c.org[:6], "DbConfig[url=jdbc:postgresql://%s:5432/%s, user=app, password=%s, poolSize=10]" % (svc_host(c), dbname(c), m(pw_any())), sec=1),
        lambda: spring("c.%s.ai.LlmClientFactory" % c.org[:6], "Creating client with OpenAiProperties(baseUrl=https://api.openai.com/v1, apiKey=%s, model=gpt-4o-mini, timeout=PT60S)" % m(openai_key()), sec=2),
        lambda: spring("c.%s.storage.S3Config" % c.org[:6], "AwsCredentials(accessKeyId=%s, secretAccessKey=%s, region=eu-central-1)" % (aws_key_id(), m(aws_secret())), sec=2),
    ]
    for i in shuffled(range(len(choices)))[:R.randint(2, 3)]:
        out.append(choices[i]())
    out.append(spring("o.s.b.w.embedded.tomcat.TomcatWebServer", "Tomcat started on port 8080 (http) with context path '/'", "INFO", 4))
    return run(c, pick(["./gradlew bootRun --args='--spring.profiles.active=local'", "./mvnw spring-boot:run -Dspring-boot.run.profiles=dev"]) + " 2>&1 | grep -E 'DEBUG|INFO' | head -20", "\n".join(out))


def rb_hash(pairs, new_syntax):
    parts = []
    for k, v in pairs:
        if isinstance(v, list):
            v = rb_hash(v, new_syntax)
        parts.append(("%s: %s" % (k, v)) if new_syntax else (":%s=>%s" % (k, v)))
    return "{" + ", ".join(parts) + "}"


def p_rails_console_pp_credentials(c):
    new = chance(0.5)
    pairs = [("secret_key_base", '"%s"' % m(rails_skb())),
             ("aws", [("access_key_id", '"%s"' % aws_key_id()), ("secret_access_key", '"%s"' % m(aws_secret()))]),
             ("stripe", [("publishable_key", '"%s"' % stripe_pk()), ("secret_key", '"%s"' % m(stripe_sk())), ("signing_secret", '"%s"' % m(whsec()))]),
             ("active_record_encryption", [("primary_key", '"%s"' % m(fresh(ALNUM, 32))), ("deterministic_key", '"%s"' % m(fresh(ALNUM, 32))),
                                           ("key_derivation_salt", '"%s"' % m(fresh(ALNUM, 32)))])]
    if chance(0.5):
        pairs.append(("github", [("app_id", str(R.randint(100000, 999999))), ("client_secret", '"%s"' % m(hexs(40)))]))
    txt = rb_hash(pairs, new)
    irb = "irb(main):00%d>" % 1 if chance(0.5) else "%s(dev)>" % c.proj
    out = ["Loading development environment (Rails %s)" % pick(["7.1.3.4", "7.2.1", "8.0.1"]),
           irb + " Rails.application.credentials.config", "=> " + txt, irb.replace("1>", "2>") + " "]
    return run(c, "bin/rails console", "\n".join(out))


def p_iex_inspect_repo_config(c):
    app = c.proj.replace("-", "_")
    mod = "".join(x.capitalize() for x in c.proj.split("-"))
    pw = m(pw_any())
    skb = m(phx_skb())
    out = ["Erlang/OTP 27 [erts-15.1.2] [source] [64-bit] [smp:10:10] [ds:10:10:10] [async-threads:1] [jit]", "",
           "Interactive Elixir (1.17.3) - press Ctrl+C to exit (type h() ENTER for help)",
           "iex(1)> Application.get_env(:%s, %s.Repo)" % (app, mod), "[",
           '  username: "postgres",', '  password: "%s",' % pw, '  hostname: "localhost",', '  database: "%s",' % dbname(c),
           "  stacktrace: true,", "  show_sensitive_data_on_connection_error: true,", "  pool_size: 10", "]",
           "iex(2)> Application.get_env(:%s, %sWeb.Endpoint)[:secret_key_base]" % (app, mod), '"%s"' % skb]
    n = 3
    if chance(0.6):
        out += ["iex(%d)> Application.get_all_env(:stripity_stripe)" % n,
                '[api_key: "%s", signing_secret: "%s"]' % (m(stripe_sk()), m(whsec()))]
        n += 1
    if chance(0.5):
        out += ["iex(%d)> Application.get_env(:ex_aws, :secret_access_key)" % n, '"%s"' % m(aws_secret())]
        n += 1
    out.append("iex(%d)> " % n)
    return run(c, "iex -S mix", "\n".join(out))


def p_php_print_r_services(c):
    def arr(d, ind):
        pad = " " * ind
        res = ["Array", pad + "("]
        for k, v in d:
            if isinstance(v, list):
                sub = arr(v, ind + 8)
                res.append(pad + "    [%s] => %s" % (k, sub[0]))
                res += sub[1:]
                res.append("")
            else:
                res.append(pad + "    [%s] => %s" % (k, v))
        res.append(pad + ")")
        return res
    d = [("mailgun", [("domain", "mg." + c.domain), ("secret", m(mailgun_key())), ("endpoint", "api.eu.mailgun.net"), ("scheme", "https")]),
         ("postmark", [("token", m(uuid4()))]),
         ("ses", [("key", aws_key_id()), ("secret", m(aws_secret())), ("region", "eu-west-1")]),
         ("slack", [("notifications", [("bot_user_oauth_token", m(slack_bot())), ("channel", "#ops")])]),
         ("stripe", [("key", stripe_pk()), ("secret", m(stripe_sk()))])]
    d = shuffled(d)[:R.randint(3, 5)]
    out = ["Psy Shell v0.12.%d (PHP 8.3.%d \u2014 cli) by Justin Hileman" % (R.randint(0, 7), R.randint(0, 14)),
           "> print_r(config('services'));"] + arr(d, 0) + ["= true", ""]
    return run(c, "php artisan tinker", "\n".join(out))


def p_node_console_log_config_object(c):
    pw = m(pw_url())
    out = ["{", "  env: '%s'," % pick(["production", "staging", "development"]), "  port: %d," % pick([3000, 4000, 8080]),
           "  db: {", "    url: 'postgres://app:%s@%s:5432/%s'," % (pw, svc_host(c), dbname(c)), "    pool: { min: 2, max: 10 },",
           "    ssl: [Object]" if chance(0.5) else "    ssl: false", "  },",
           "  auth: {", "    jwtSecret: '%s'," % m(jwt_secret()), "    sessionSecret: '%s'," % m(pw_random(40)), "    expiresIn: '15m'", "  },"]
    opts = [["  openai: { apiKey: '%s', organization: 'org-%s' }," % (m(openai_key()), fresh(B62, 24))],
            ["  github: {", "    appId: %d," % R.randint(100000, 999999), "    webhookSecret: '%s'," % m(hexs(40)),
             "    privateKeyPath: './keys/app.pem'", "  },"],
            ["  mail: { host: 'smtp.postmarkapp.com', port: 587, auth: { user: '%s', pass: '%s' } }," % ((lambda u: (m(u), m(u)))(uuid4()))],
            ["  redis: 'redis://:%s@localhost:6379'," % m(pw_url())],
            ["  sentry: { dsn: '%s', tracesSampleRate: 0.1 }," % sentry_dsn_marked()]]
    for i in shuffled(range(len(opts)))[:R.randint(2, 4)]:
        out += opts[i]
    out[-1] = out[-1].rstrip(",")
    out.append("}")
    cmd = pick(["node -e \"console.log(require('./src/config'))\"", "npx tsx scripts/print-config.ts", "node --env-file=.env -p \"require('./config')\""])
    return run(c, cmd, "\n".join(out))


def p_csharp_record_printmembers(c):
    pw = m(pw_any())
    conn = "Host=localhost;Port=5432;Database=%s;Username=app;Password=%s" % (dbname(c), pw) if chance(0.5) else \
        "Server=localhost,1433;Database=%s;User Id=sa;Password=%s;TrustServerCertificate=True" % (dbname(c).title().replace("_", ""), pw)
    parts = ["ConnectionString = " + conn,
             "Jwt = JwtOptions { Issuer = https://auth.%s, Audience = api, Key = %s, ExpiryMinutes = %d }" % (c.domain, m(jwt_secret()), pick([15, 60])),
             "SendGrid = SendGridOptions { ApiKey = %s, From = no-reply@%s }" % (m(sendgrid_key()), c.domain)]
    if chance(0.5):
        parts.append("ServiceBus = Endpoint=sb://%s-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=%s" % (c.org, m(sas_key())))
    s = "AppOptions { %s }" % ", ".join(parts)
    out = ["info: Program[0]", "      Effective options: " + s, "info: Microsoft.Hosting.Lifetime[14]",
           "      Now listening on: http://localhost:%d" % R.randint(5000, 5300), "info: Microsoft.Hosting.Lifetime[0]",
           "      Application started. Press Ctrl+C to shut down."]
    return run(c, "dotnet run --project src/%s.Api" % "".join(x.capitalize() for x in c.proj.split("-")), "\n".join(out))


def p_pydantic_model_dump_json(c):
    d = [("app_name", jstr(c.proj)), ("environment", jstr(pick(["staging", "dev"]))),
         ("database_url", jstr("postgresql://%s:%s@%s:5432/%s" % (c.proj.split("-")[0], m(pw_url()), svc_host(c), dbname(c)))),
         ("anthropic_api_key", jstr(m(anthropic_key()))), ("secret_key", jstr(m(django_key(False)) if chance(0.5) else m(hexs(64)))),
         ("smtp_password", '"**********"'), ("github_webhook_secret", '"**********"'),
         ("cors_origins", '[\n    "http://localhost:3000"\n  ]'), ("token_ttl_seconds", str(pick([900, 3600])))]
    if chance(0.5):
        d.append(("pinecone_api_key", jstr(m(pinecone_key()))))
    if chance(0.4):
        d.append(("github_app_private_key", '"%s"' % pem_escaped(pem(pick(["rsa", "ec", "ed25519"])))))
    out = "{\n" + ",\n".join('  "%s": %s' % kv for kv in d) + "\n}"
    mod = c.proj.replace("-", "_")
    return run(c, "python -c 'from %s.settings import Settings; print(Settings().model_dump_json(indent=2))'" % mod, out)


# --------------------------------------------------------- errors/traces ---

def p_sentry_event_frame_vars(c):
    app = c.proj.replace("-", "_")
    sk = m(pick([stripe_sk, stripe_rk])())
    dbpw = m(pw_url())
    vars_ = [("self", "<%s.billing.client.StripeClient object at 0x7f%s>" % (app, rc(HEX, 10))),
             ("stripe_key", "'%s'" % sk),
             ("conn_url", "'postgresql://billing:%s@%s:5432/%s'" % (dbpw, svc_host(c), dbname(c))),
             ("payload", "{'amount': %d, 'currency': '%s', 'customer': 'cus_%s'}" % (R.randint(100, 90000), pick(["eur", "usd", "gbp"]), fresh(B62, 14))),
             ("api_key", "[Filtered]"), ("password", "[Filtered]"), ("attempt", str(R.randint(1, 3)))]
    if chance(0.5):
        vars_.append(("hook_url", "'https://hooks.slack.com/services/%s/%s/%s'" % (lambda t: (t[0], t[1], m(t[2])))(slack_hook_parts())))
    ev = ['{', '  "event_id": "%s",' % hexs(32), '  "level": "error",', '  "platform": "python",',
          '  "timestamp": "%s",' % iso(c.at(0), z="Z"), '  "environment": "%s",' % pick(["staging", "production"]),
          '  "release": "%s@%s",' % (c.proj, hexs(12)), '  "exception": {', '    "values": [', '      {',
          '        "type": "%s",' % pick(["CardError", "ConnectionError", "APIConnectionError"]),
          '        "value": "%s",' % pick(["Request req_%s: Your card was declined." % fresh(B62, 14), "Connection aborted."]),
          '        "stacktrace": {', '          "frames": [', '            {',
          '              "filename": "%s/billing/client.py",' % app, '              "function": "charge",',
          '              "lineno": %d,' % R.randint(40, 200), '              "vars": {']
    ev += [('                "%s": %s' % (k, jstr(v))) + ("," if i < len(vars_) - 1 else "") for i, (k, v) in enumerate(vars_)]
    ev += ['              }', '            }', '          ]', '        }', '      }', '    ]', '  },',
           '  "request": {', '    "url": "https://api.%s/v1/checkout",' % c.domain, '    "method": "POST",',
           '    "headers": {', '      "Authorization": "[Filtered]",', '      "Content-Type": "application/json",',
           '      "X-Request-Id": "%s"' % uuid4(), '    }', '  },',
           '  "contexts": {', '    "trace": {', '      "trace_id": "%s",' % hexs(32), '      "span_id": "%s"' % hexs(16), '    }', '  }', '}']
    cmd = pick(["python scripts/replay_event.py --dry-run | jq .", "jq . tmp/sentry_events/%s.json" % hexs(12),
                "pytest tests/test_sentry.py -q -s 2>&1 | sed -n '/event_id/,$p'"])
    return run(c, cmd, "\n".join(ev))


def p_laravel_ignition_text_report(c):
    sess = m(session_cookie("laravel"))
    xsrf = session_cookie("laravel")
    apikey = m(pick([lambda: fresh(B62, 40), lambda: "%s|%s" % (R.randint(1, 400), fresh(B62, 40))])())
    host = "%s.test" % c.proj
    out = ["Illuminate\\Http\\Client\\RequestException", "",
           "HTTP request returned status code 401:", '{"message":"Unauthenticated."}', "",
           "at vendor/laravel/framework/src/Illuminate/Http/Client/Response.php:%d" % R.randint(250, 320),
           "", "App\\Services\\PartnerApi::fetchOrders", "app/Services/PartnerApi.php:%d" % R.randint(20, 90), "",
           "Request", "", "GET /admin/orders/sync", "", "Headers", "",
           "* **host**: " + host, "* **user-agent**: Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
           "* **accept**: text/html,application/xhtml+xml", "* **x-api-key**: " + apikey,
           "* **cookie**: XSRF-TOKEN=%s; %s_session=%s" % (xsrf, c.proj.replace("-", "_"), sess), "",
           "Body", "", "* **password**: <CENSORED>", "* **remember**: on", "",
           "Application", "", "Routing", "", "* **controller**: App\\Http\\Controllers\\Admin\\OrderSyncController",
           "* **route name**: admin.orders.sync", "", "Context", "", "* **Laravel Version**: 11.%d.%d" % (R.randint(0, 30), R.randint(0, 9)),
           "* **PHP Version**: 8.3.%d" % R.randint(0, 14), "* **Application Environment**: local", "* **Debug Mode**: ENABLED"]
    return show_file(c, "storage/logs/ignition-share-%s.md" % fresh(LOW + DIG, 8), "\n".join(out), how=pick(["cat", "read"]) if c.style == "claude" else "cat")


def p_node_err_invalid_url_input(c):
    pw = uniq(lambda: rc(ALNUM, R.randint(4, 8)) + pick("#/?") + rc(ALNUM + "!*", R.randint(5, 10)) + pick(DIG))
    drv = pick(["pg", "mysql2"])
    if drv == "pg":
        url = "postgres://%s:%s@%s:5432/%s" % (c.proj.split("-")[0], m(pw), svc_host(c), dbname(c))
        stack = ["    at new URL (node:internal/url:%d:29)" % pick([775, 797, 816]),
                 "    at parse (%s/node_modules/pg-connection-string/index.js:%d:%d)" % (c.cwd, R.randint(10, 40), R.randint(10, 30)),
                 "    at new ConnectionParameters (%s/node_modules/pg/lib/connection-parameters.js:56:42)" % c.cwd,
                 "    at new Client (%s/node_modules/pg/lib/client.js:%d:33)" % (c.cwd, R.randint(40, 60))]
    else:
        url = "mysql://root:%s@127.0.0.1:3306/%s" % (m(pw), dbname(c))
        stack = ["    at new URL (node:internal/url:%d:29)" % pick([775, 797, 816]),
                 "    at ConnectionConfig.parseUrl (%s/node_modules/mysql2/lib/connection_config.js:%d:19)" % (c.cwd, R.randint(280, 300)),
                 "    at Object.createPool (%s/node_modules/mysql2/promise.js:%d:23)" % (c.cwd, R.randint(300, 400))]
    stack += ["    at Object.<anonymous> (%s/scripts/migrate.js:%d:16)" % (c.cwd, R.randint(3, 12)),
              "    at Module._compile (node:internal/modules/cjs/loader:1504:14) {"]
    out = ["node:internal/url:816", "    href = bindingUrl.parse(input, base, true);", "                      ^", "",
           "TypeError: Invalid URL"] + stack + ["  code: 'ERR_INVALID_URL',", "  input: '%s'" % url, "}", "", "Node.js " + c.nodever]
    return run(c, pick(["node scripts/migrate.js", "npm run db:migrate", "DATABASE_URL='%s' node scripts/migrate.js" % url]),
               "\n".join(out) if "npm" not in c.style else "\n".join(out), rc=1)


# ------------------------------------------------------------------ http ---

def curl_tls_lines(host, ip):
    return ["* Host %s:443 was resolved." % host, "* IPv6: (none)", "* IPv4: " + ip, "*   Trying %s:443..." % ip,
            "* Connected to %s (%s) port 443" % (host, ip), "* ALPN: curl offers h2,http/1.1",
            "* TLSv1.3 (OUT), TLS handshake, Client hello (1):", "* TLSv1.3 (IN), TLS handshake, Server hello (2):",
            "* TLSv1.3 (IN), TLS handshake, Encrypted Extensions (8):", "* TLSv1.3 (IN), TLS handshake, Certificate (11):",
            "* TLSv1.3 (IN), TLS handshake, CERT verify (15):", "* TLSv1.3 (IN), TLS handshake, Finished (20):",
            "* TLSv1.3 (OUT), TLS handshake, Finished (20):",
            "* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256 / X25519 / id-ecPublicKey", "* ALPN: server accepted h2",
            "* Server certificate:", "*  subject: CN=" + host, "*  subjectAltName: host \"%s\" matched cert's \"%s\"" % (host, host),
            "*  issuer: C=US; O=%s" % pick(["Google Trust Services; CN=WE1", "Let's Encrypt; CN=R11", "Amazon; CN=Amazon RSA 2048 M02"]),
            "*  SSL certificate verify ok."]


def rand_ip():
    return "%d.%d.%d.%d" % (pick([104, 140, 151, 160, 18, 3, 34, 52]), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254))


def p_curl_verbose_api_key_setcookie(c):
    kind = pick(["anthropic", "postman", "login", "algolia", "airtable"])
    hdrs = []
    cookie = None
    data = ""
    if kind == "anthropic":
        host, path, meth = "api.anthropic.com", "/v1/models", "GET"
        k = m(anthropic_key())
        hdrs = [("x-api-key", k), ("anthropic-version", "2023-06-01")]
    elif kind == "postman":
        host, path, meth = "api.getpostman.com", "/me", "GET"
        hdrs = [("X-Api-Key", m(postman_key()))]
    elif kind == "algolia":
        appid = fresh(UP + DIG, 10)
        host, path, meth = "%s-dsn.algolia.net" % appid.lower(), "/1/keys", "GET"
        hdrs = [("X-Algolia-Application-Id", appid), ("X-Algolia-API-Key", m(algolia_admin()))]
    elif kind == "airtable":
        host, path, meth = "api.airtable.com", "/v0/meta/bases", "GET"
        hdrs = [("Authorization", "Bearer " + m(airtable_pat()))]
    else:
        host, path, meth = "staging.%s" % c.domain, "/api/auth/login", "POST"
        pw = m(pw_any())
        data = " -H 'content-type: application/json' -d '{\"email\":\"%s\",\"password\":\"%s\"}'" % (c.email, pw)
        hdrs = [("content-type", "application/json")]
        cookie = "__Host-session=%s; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=1209600" % m(session_cookie(pick(["express", "flask", "other"])))
    cmdh = "".join(" -H '%s: %s'" % (k, v) for k, v in hdrs if kind != "login")
    cmd = "curl -sv%s%s https://%s%s -o /dev/null" % ((" -X POST" if meth == "POST" else ""), cmdh + data, host, path)
    out = curl_tls_lines(host, rand_ip())
    out += ["* using HTTP/2", "* [HTTP/2] [1] OPENED stream for https://%s%s" % (host, path),
            "* [HTTP/2] [1] [:method: %s]" % meth, "* [HTTP/2] [1] [:scheme: https]", "* [HTTP/2] [1] [:authority: %s]" % host,
            "* [HTTP/2] [1] [:path: %s]" % path, "* [HTTP/2] [1] [user-agent: curl/8.%d.%d]" % (R.randint(4, 11), R.randint(0, 1)),
            "* [HTTP/2] [1] [accept: */*]"]
    out += ["* [HTTP/2] [1] [%s: %s]" % (k.lower(), v) for k, v in hdrs]
    out += ["> %s %s HTTP/2" % (meth, path), "> Host: " + host, "> User-Agent: curl/8.7.1", "> Accept: */*"]
    out += ["> %s: %s" % (k, v) for k, v in hdrs]
    if data:
        out.append("> Content-Length: %d" % len(unmark(data.split("-d '")[1][:-1])))
    out += ["> ", "* Request completely sent off", "< HTTP/2 200 ", "< date: " + httpdate(c.at(1)),
            "< content-type: application/json; charset=utf-8", "< x-request-id: " + pick([uuid4(), "req_" + fresh(B62, 24)])]
    if cookie:
        out.append("< set-cookie: " + cookie)
    out += ["< cf-ray: %s-%s" % (hexs(16), pick(["FRA", "AMS", "IAD", "NRT"])), "< ", "* Connection #0 to host %s left intact" % host]
    return run(c, cmd, "\n".join(out))


def p_http_client_debuglevel_send(c):
    kind = pick(["openai", "twilio", "anthropic", "notion"])
    if kind == "openai":
        host, path, auth = "api.openai.com", "/v1/chat/completions", "Authorization: Bearer " + m(openai_key())
        body = '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "ping"}]}'
    elif kind == "twilio":
        sid = twilio_sid()
        host, path = "api.twilio.com", "/2010-04-01/Accounts/%s/Messages.json" % sid
        auth = "Authorization: Basic " + m(basic_blob(sid, twilio_token()))
        body = "To=%%2B4915%s&From=%%2B1415%s&Body=test" % (rc(DIG, 8), rc(DIG, 7))
    elif kind == "anthropic":
        host, path, auth = "api.anthropic.com", "/v1/messages", "x-api-key: " + m(anthropic_key()) + "\\r\\nanthropic-version: 2023-06-01"
        body = '{"model": "claude-3-5-haiku-latest", "max_tokens": 16, "messages": [{"role": "user", "content": "ping"}]}'
    else:
        host, path, auth = "api.notion.com", "/v1/search", "Authorization: Bearer " + m(notion_token()) + "\\r\\nNotion-Version: 2022-06-28"
        body = '{"query": "Roadmap"}'
    send = ("send: b'POST %s HTTP/1.1\\r\\nHost: %s\\r\\nUser-Agent: python-requests/2.32.3\\r\\nAccept-Encoding: gzip, deflate\\r\\nAccept: */*\\r\\n"
            "Connection: keep-alive\\r\\n%s\\r\\nContent-Length: %d\\r\\nContent-Type: %s\\r\\n\\r\\n'"
            % (path, host, auth, len(body), "application/json" if body.startswith("{") else "application/x-www-form-urlencoded"))
    out = ["DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): %s:443" % host, send, "send: b'%s'" % body,
           "reply: 'HTTP/1.1 %s\\r\\n'" % pick(["200 OK", "401 Unauthorized", "429 Too Many Requests"]),
           "header: Date: " + httpdate(c.at(1)), "header: Content-Type: application/json",
           "header: Transfer-Encoding: chunked", "header: Connection: keep-alive",
           "header: x-request-id: " + pick(["req_" + hexs(32), uuid4()]),
           'DEBUG:urllib3.connectionpool:https://%s:443 "POST %s HTTP/11" 200 None' % (host, path)]
    return run(c, "python scripts/debug_%s.py" % kind, "\n".join(out))


def p_oauth_token_form_body_log(c):
    kind = pick(["auth0", "google", "generic"])
    if kind == "auth0":
        host = "%s.%s.auth0.com" % (c.org, pick(["eu", "us"]))
        cid = fresh(B62, 32)
        sec = m(fresh(B62 + "-_", 64))
        form = "grant_type=client_credentials&client_id=%s&client_secret=%s&audience=https%%3A%%2F%%2Fapi.%s%%2F" % (cid, sec, c.domain.replace(".", "."))
        path = "/oauth/token"
    elif kind == "google":
        host = "oauth2.googleapis.com"
        cid = "%s-%s.apps.googleusercontent.com" % (digits(12), fresh(LOW + DIG, 32))
        form = "client_id=%s&client_secret=%s&grant_type=refresh_token&refresh_token=%s" % (cid, m(google_secret()), m(google_refresh()))
        path = "/token"
    else:
        host = "auth.%s" % c.domain
        form = "grant_type=password&username=%s&password=%s&client_id=cli&scope=openid+offline_access" % (c.email.replace("@", "%40"), m(pw_url()))
        path = "/realms/%s/protocol/openid-connect/token" % c.org
    tok = m(jwt_user(c, aud="https://api.%s/" % c.domain, alg="RS256"))
    out = ["%s DEBUG oauth: dumping outbound request" % ymd_hms(c.at(0)).replace("-", "/"),
           "POST %s HTTP/1.1" % path, "Host: " + host, "User-Agent: Go-http-client/1.1",
           "Content-Length: %d" % len(unmark(form)), "Content-Type: application/x-www-form-urlencoded", "Accept-Encoding: gzip", "",
           form, "", "%s DEBUG oauth: response status=200 body={\"access_token\":\"%s\",\"expires_in\":86400,\"token_type\":\"Bearer\"}" % (ymd_hms(c.at(1)).replace("-", "/"), tok)]
    return run(c, "go run ./cmd/sync -v 2>&1 | head -20", "\n".join(out))


def p_wget_debug_request_begin(c):
    host = pick(["artifacts.%s" % c.domain, "nexus.%s" % c.domain, "files.%s.internal" % c.org])
    user = pick(["ci", "deploy", c.user])
    pw = pw_url()
    ip = "10.%d.%d.%d" % (R.randint(0, 255), R.randint(0, 255), R.randint(1, 254))
    path = "/repository/%s/%s-%d.%d.%d.tgz" % (pick(["raw-releases", "builds"]), c.proj, R.randint(0, 4), R.randint(0, 30), R.randint(0, 9))
    cmd = "wget --debug --auth-no-challenge --user=%s --password=%s https://%s%s" % (user, m(pw), host, path)
    out = ["Setting --user (user) to " + user, "Setting --password (password) to " + m(pw),
           "DEBUG output created by Wget 1.21.%d on linux-gnu." % R.randint(2, 4), "", "Reading HSTS entries from %s/.wget-hsts" % c.home,
           "URI encoding = 'UTF-8'", "--%s--  https://%s%s" % (ymd_hms(c.at(0)), host, path), "Resolving %s (%s)... %s" % (host, host, ip),
           "Caching %s => %s" % (host, ip), "Connecting to %s (%s)|%s|:443... connected." % (host, host, ip), "Created socket 3.",
           "Releasing 0x0000%s (new refcount 1)." % rc(HEX, 12), "Initiating SSL handshake.",
           "Handshake successful; connected socket 3 to SSL handle 0x0000%s" % rc(HEX, 12), "certificate:",
           "  subject: CN=%s" % host, "  issuer:  CN=R11,O=Let's Encrypt,C=US", "X509 certificate successfully verified and matches host " + host, "",
           "---request begin---", "GET %s HTTP/1.1" % path, "Host: " + host, "User-Agent: Wget/1.21.4", "Accept: */*",
           "Accept-Encoding: identity", "Connection: Keep-Alive", "Authorization: Basic " + m(basic_blob(user, pw)), "",
           "---request end---", "HTTP request sent, awaiting response... ", "---response begin---", "HTTP/1.1 200 OK",
           "Date: " + httpdate(c.at(1)), "Content-Type: application/x-gzip", "Content-Length: %d" % R.randint(100000, 9000000), "",
           "---response end---", "200 OK"]
    return run(c, cmd, "\n".join(out))


def p_rest_client_http_file(c):
    kind = pick(["vscode", "jetbrains"])
    if kind == "vscode":
        tok = m(jwt_user(c))
        k = m(fresh(B62, 40))
        lines = ["@baseUrl = https://api.staging.%s" % c.domain, "@token = " + tok, "", "### List invoices",
                 "GET {{baseUrl}}/v1/invoices?limit=10", "Authorization: Bearer {{token}}", "",
                 "### Create webhook", "POST {{baseUrl}}/v1/webhooks", "X-Api-Key: " + k, "Content-Type: application/json", "",
                 '{"url": "https://%s.ngrok.app/hooks", "secret": "%s"}' % (fresh(LOW + DIG, 12), m(whsec())), "",
                 "### Login", "POST {{baseUrl}}/v1/auth/login", "Content-Type: application/x-www-form-urlencoded", "",
                 "email=%s&password=%s" % (c.email.replace("@", "%40"), m(pw_url()))]
        path = pick(["requests/api.http", "http/staging.http", "docs/requests.rest"])
    else:
        lines = ["{", '  "dev": {', '    "host": "http://localhost:8080",', '    "token": "%s",' % m(jwt_user(c)),
                 '    "adminPassword": "%s"' % m(pw_any()), "  },", '  "staging": {', '    "host": "https://staging.%s",' % c.domain,
                 '    "token": "%s",' % m(jwt_user(c)), '    "stripeKey": "%s"' % m(stripe_sk("test")), "  }", "}"]
        path = "http-client.private.env.json"
    return show_file(c, path, "\n".join(lines))


# ------------------------------------------------------------ frameworks ---

def p_laravel_dotenv_read_tool(c):
    app = "".join(x.capitalize() for x in c.proj.split("-"))
    mailer = pick([("smtp.mailgun.org", "postmaster@mg." + c.domain, pw_any), ("smtp.postmarkapp.com", None, uuid4),
                   ("smtp.sendgrid.net", "apikey", sendgrid_key)])
    mpw = mailer[2]()
    lines = ["APP_NAME=" + app, "APP_ENV=local", "APP_KEY=" + m(laravel_key()), "APP_DEBUG=true", "APP_URL=http://%s.test" % c.proj, "",
             "LOG_CHANNEL=stack", "LOG_LEVEL=debug", "", "DB_CONNECTION=%s" % pick(["mysql", "pgsql"]), "DB_HOST=127.0.0.1",
             "DB_PORT=3306", "DB_DATABASE=" + dbname(c), "DB_USERNAME=" + pick(["root", "sail", c.proj.split("-")[0]]),
             "DB_PASSWORD=" + m(pw_any()), "", "REDIS_HOST=127.0.0.1", "REDIS_PASSWORD=null", "REDIS_PORT=6379", "",
             "MAIL_MAILER=smtp", "MAIL_HOST=" + mailer[0], "MAIL_PORT=587",
             "MAIL_USERNAME=" + (m(mpw) if mailer[1] is None else mailer[1]), "MAIL_PASSWORD=" + m(mpw), "",
             "AWS_ACCESS_KEY_ID=" + aws_key_id(), "AWS_SECRET_ACCESS_KEY=" + m(aws_secret()), "AWS_DEFAULT_REGION=eu-central-1",
             "AWS_BUCKET=%s-%s" % (c.org, c.proj), "", "PUSHER_APP_ID=%d" % R.randint(1000000, 1999999),
             "PUSHER_APP_KEY=" + fresh(HEX, 20), "PUSHER_APP_SECRET=" + m(pusher_secret()), "PUSHER_APP_CLUSTER=eu", "",
             'VITE_PUSHER_APP_KEY="${PUSHER_APP_KEY}"', 'VITE_PUSHER_APP_CLUSTER="${PUSHER_APP_CLUSTER}"']
    how = "read" if c.style == "claude" else pick(["cat_n", "bat", "nl", "cat"])
    return show_file(c, "%s/.env" % c.cwd if how == "read" else ".env", "\n".join(lines), how=how)


def p_spring_yq_datasource_eval(c):
    f = "src/main/resources/application-%s.yml" % pick(["dev", "local", "staging"])
    steps = [("yq '.spring.datasource' " + f, "\n".join([
        "url: jdbc:postgresql://%s:5432/%s" % (svc_host(c), dbname(c)), "username: %s" % c.proj.split("-")[0],
        "password: " + m(pw_any()), "hikari:", "  maximum-pool-size: %d" % R.randint(4, 20), "  connection-timeout: 30000"]))]
    opts = [("yq '.spring.mail' " + f, "\n".join(["host: smtp.gmail.com", "port: 587", "username: %s@%s" % (pick(["noreply", "alerts"]), c.domain),
                                                 "password: " + m(uniq(lambda: " ".join(rc(LOW, 4) for _ in range(4)))),
                                                 "properties:", "  mail.smtp.starttls.enable: true"])),
            ("yq '.app.jwt' " + f, "\n".join(["issuer: https://auth.%s" % c.domain, "secret: " + m(b64e(rbytes(48))), "access-token-ttl: 15m",
                                             "refresh-token-ttl: 30d"])),
            ("yq -o=json '.app.integrations' " + f, "\n".join(["{", '  "slack": {', '    "bot-token": "%s",' % m(slack_bot()),
                                                              '    "signing-secret": "%s"' % m(hexs(32)), "  },", '  "github": {',
                                                              '    "token": "%s"' % m(github_pat()), "  }", "}"]))]
    for i in shuffled(range(len(opts)))[:R.randint(1, 2)]:
        steps.append(opts[i])
    return runs(c, steps)


def p_next_config_env_block(c):
    kind = pick(["next", "vite", "nuxt"])
    if kind == "next":
        path = pick(["next.config.mjs", "apps/web/next.config.mjs"])
        lines = ["/** @type {import('next').NextConfig} */", "const nextConfig = {", "  reactStrictMode: true,", "  env: {",
                 "    CMS_PREVIEW_TOKEN: '%s'," % m(cfpat()),
                 "    STRIPE_SECRET_KEY: process.env.STRIPE_SECRET_KEY ?? '%s'," % m(stripe_sk()),
                 "    NEXT_PUBLIC_STRIPE_KEY: '%s'," % stripe_pk(), "  },",
                 "  images: { remotePatterns: [{ protocol: 'https', hostname: 'images.ctfassets.net' }] },", "};", "",
                 "export default nextConfig;"]
    elif kind == "vite":
        path = "vite.config.ts"
        lines = ["import { defineConfig } from 'vite';", "import react from '@vitejs/plugin-react';", "",
                 "export default defineConfig({", "  plugins: [react()],", "  define: {",
                 "    'process.env.SANITY_TOKEN': JSON.stringify('%s')," % m(sanity_token()),
                 "    'process.env.SANITY_PROJECT_ID': JSON.stringify('%s')," % fresh(LOW + DIG, 8), "  },",
                 "  server: { port: 5173, proxy: { '/api': 'http://localhost:8787' } },", "});"]
    else:
        path = "nuxt.config.ts"
        lines = ["export default defineNuxtConfig({", "  devtools: { enabled: true },", "  runtimeConfig: {",
                 "    stripeSecret: '%s'," % m(stripe_sk()), "    supabaseServiceKey: '%s'," % m(jwt({"iss": "supabase", "ref": fresh(LOW, 20), "role": "service_role", "iat": 1712000000 + R.randint(0, 9999999), "exp": 2027000000 + R.randint(0, 9999999)})),
                 "    public: {", "      stripePk: '%s'," % stripe_pk(), "      siteUrl: 'https://%s'," % c.domain, "    },", "  },", "});"]
    return show_file(c, path, "\n".join(lines))


def p_phoenix_runtime_exs_fallbacks(c):
    app = c.proj.replace("-", "_")
    mod = "".join(x.capitalize() for x in c.proj.split("-"))
    lines = ["import Config", "", "if config_env() == :prod do", "  database_url =", '    System.get_env("DATABASE_URL") ||',
             '      "ecto://postgres:%s@localhost/%s_prod"' % (m(pw_url()), app), "",
             "  config :%s, %s.Repo," % (app, mod), "    url: database_url,",
             '    pool_size: String.to_integer(System.get_env("POOL_SIZE") || "10")', "",
             "  secret_key_base =", '    System.get_env("SECRET_KEY_BASE") ||', '      "%s"' % m(phx_skb()), "",
             "  config :%s, %sWeb.Endpoint," % (app, mod), '    url: [host: "%s", port: 443, scheme: "https"],' % c.domain,
             "    secret_key_base: secret_key_base", ""]
    if chance(0.6):
        lines += ["  config :%s, %s.Mailer," % (app, mod), "    adapter: Swoosh.Adapters.Postmark,",
                  '    api_key: System.get_env("POSTMARK_API_KEY", "%s")' % m(uuid4()), ""]
    if chance(0.6):
        lines += ['  config :joken, default_signer: System.get_env("JWT_SIGNER") || "%s"' % m(fresh(B62, 48)), ""]
    lines += ['  config :%s, :admin_token, System.fetch_env!("ADMIN_TOKEN")' % app, "end"]
    return show_file(c, "config/runtime.exs", "\n".join(lines))


def p_aspnet_appsettings_dev_jq(c):
    db = "".join(x.capitalize() for x in c.proj.split("-"))
    pw = m(pw_any())
    out1 = ["{", '  "DefaultConnection": "Server=localhost,1433;Database=%s;User Id=sa;Password=%s;TrustServerCertificate=True",' % (db, pw),
            '  "Redis": "localhost:6379,password=%s,abortConnect=false"' % m(pw_url()), "}"]
    out2 = ["{", '  "Issuer": "https://localhost:5001",', '  "Audience": "%s-api",' % c.proj, '  "Key": "%s",' % m(jwt_secret()),
            '  "ExpiryMinutes": %d' % pick([15, 30, 60]), "}"]
    out3 = ["{", '  "ConnectionString": "Endpoint=sb://%s-%s.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=%s",' % (c.org, c.proj, m(sas_key())),
            '  "QueueName": "orders"', "}"]
    outs = [out1, out2] + ([out3] if chance(0.5) else [])
    keys = ".ConnectionStrings, .Jwt" + (", .ServiceBus" if len(outs) == 3 else "")
    return run(c, "jq '%s' %s" % (keys, pick(["appsettings.Development.json", "src/%s.Api/appsettings.Development.json" % db])),
               "\n".join("\n".join(o) for o in outs))


def p_rails_credentials_edit_cat(c):
    k = pem(pick(["rsa", "pkcs8-rsa", "ec"]))
    block = "\n".join("    " + x for x in [k[0]] + [m(x) for x in k[1]] + [k[2]])
    lines = ["# aws:", "#   access_key_id: 123", "#   secret_access_key: 345", "",
             "# Used as the base secret for all MessageVerifiers in Rails, including the one protecting cookies.",
             "secret_key_base: " + m(rails_skb()), "", "stripe:", "  secret_key: " + m(stripe_sk()),
             "  webhook_secret: " + m(whsec()), "", "github_app:", "  app_id: %d" % R.randint(100000, 999999),
             "  client_id: Iv23li%s" % fresh(B62, 14), "  private_key: |", block]
    env = pick(["production", "staging"])
    out = "\n".join(lines) + "\nFile encrypted and saved."
    return run(c, "EDITOR=cat bin/rails credentials:edit --environment %s" % env, out)


# ------------------------------------------------------------------ logs ---

def p_json_log_escaped_request_body(c):
    pw = m(pw_any())
    tok = m(pick([slack_bot, lambda: gh_token("ghs_"), lambda: jwt_user(c)])())
    out = []
    t = 0
    for i in range(R.randint(2, 3)):
        t += R.randint(1, 40)
        out.append(json.dumps({"level": "info", "ts": iso(c.at(t)), "msg": "request completed", "status": 200,
                               "path": pick(["/healthz", "/api/orders", "/metrics"]), "request_id": uuid4()}, separators=(",", ":")))
    t += 3
    body = '{"username":"%s","password":"%s","remember":true}' % (pick(["svc-sync", c.user, "integration"]), pw)
    out.append('{"level":"debug","ts":"%s","msg":"outgoing request","method":"POST","url":"https://%s/api/v2/session","body":%s}'
               % (iso(c.at(t)), pick(["partner.%s" % c.domain, "legacy-erp.%s.internal" % c.org]), jstr(body)))
    t += 1
    hdrs = '{"authorization":"Bearer %s","content-type":"application/json"}' % tok
    inner = '{"level":"debug","msg":"replaying webhook","headers":%s}' % jstr(hdrs)
    out.append('{"log":%s,"stream":"stdout","time":"%s"}' % (jstr(inner + "\n"), iso(c.at(t), ms=False, z="") + ".%09dZ" % R.randint(0, 999999999)))
    svc = c.proj
    cid = hexs(64)
    return run(c, pick(["docker compose logs --no-log-prefix %s | tail -n 20" % svc, "tail -n 6 logs/%s.jsonl" % svc,
                        "sudo tail -n 5 /var/lib/docker/containers/%s/%s-json.log" % (cid, cid)]), "\n".join(out))


def p_logfmt_debug_dsn(c):
    out = []
    t = 0
    def ln(lvl, msg, **kw):
        nonlocal t
        t += R.randint(0, 2)
        return "time=%s level=%s msg=%s %s" % (iso(c.at(t), z="+00:00"), lvl, jstr(msg) if " " in msg else msg,
                                               " ".join("%s=%s" % (k, v) for k, v in kw.items()))
    out.append(ln("INFO", "starting", version="v%d.%d.%d" % (R.randint(0, 3), R.randint(0, 40), R.randint(0, 9)), commit=shortsha()))
    user = c.proj.split("-")[0]
    out.append(ln("DEBUG", "opening database", dsn=jstr("%s:%s@tcp(%s:3306)/%s?parseTime=true" % (user, m(pw_url()), pick(["db", "127.0.0.1", "mysql"]), dbname(c)))))
    opts = [lambda: ln("DEBUG", "redis options", addr="cache:6379", db="0", password=m(pw_url())),
            lambda: ln("DEBUG", "webhook configured", url="https://hooks.slack.com/services/%s/%s/%s" % (lambda t_: (t_[0], t_[1], m(t_[2])))(slack_hook_parts())),
            lambda: ln("DEBUG", "smtp client", host="smtp.sendgrid.net", user="apikey", password=m(sendgrid_key())),
            lambda: ln("DEBUG", "s3 client", region="eu-west-1", access_key=aws_key_id(), secret_key=m(aws_secret())),
            lambda: ln("DEBUG", "telegram bot", endpoint="https://api.telegram.org/bot%s/getMe" % m(telegram_token()))]
    for i in shuffled(range(len(opts)))[:R.randint(2, 3)]:
        out.append(opts[i]())
    out.append(ln("INFO", "http server listening", addr=":8080"))
    return run(c, pick(["go run ./cmd/server -log-level=debug", "./bin/%s serve --debug 2>&1 | head" % c.proj]), "\n".join(out))


def p_orm_sql_log_bind_params(c):
    kind = pick(["sqlalchemy", "django", "hibernate", "prisma"])
    if kind == "sqlalchemy":
        at, rt = m(gh_token("gho_")), m(gh_token("ghr_"))
        out = ["INFO sqlalchemy.engine.Engine BEGIN (implicit)",
               "INFO sqlalchemy.engine.Engine INSERT INTO integrations (user_id, provider, access_token, refresh_token, expires_at) VALUES (%(user_id)s, %(provider)s, %(access_token)s, %(refresh_token)s, %(expires_at)s) RETURNING integrations.id",
               "INFO sqlalchemy.engine.Engine [generated in 0.000%ds] {'user_id': %d, 'provider': 'github', 'access_token': '%s', 'refresh_token': '%s', 'expires_at': datetime.datetime(%d, %d, %d, %d, %d, %d)}"
               % (R.randint(100, 999), R.randint(1, 9999), at, rt, c.t0.year, c.t0.month, c.t0.day, c.t0.hour, c.t0.minute, c.t0.second),
               "INFO sqlalchemy.engine.Engine COMMIT"]
        cmd = "SQLALCHEMY_ECHO=1 python -m %s.scripts.import_tokens" % c.proj.replace("-", "_")
    elif kind == "django":
        key = m(fresh(B62, 40))
        out = ["(0.001) SELECT \"accounts_user\".\"id\" FROM \"accounts_user\" WHERE \"accounts_user\".\"email\" = '%s' LIMIT 21; args=('%s',); alias=default" % (c.email, c.email),
               "(0.002) INSERT INTO \"authtoken_token\" (\"key\", \"user_id\", \"created\") VALUES ('%s', %d, '%s'::timestamptz); args=('%s', %d, datetime.datetime(%d, %d, %d, %d, %d, %d, tzinfo=datetime.timezone.utc)); alias=default"
               % (key, 42, ymd_hms(c.t0), key, 42, c.t0.year, c.t0.month, c.t0.day, c.t0.hour, c.t0.minute, c.t0.second)]
        cmd = "python manage.py drf_create_token %s --settings=config.settings.debug_sql" % c.user
    elif kind == "hibernate":
        pw = m(pw_any())
        sec = m(fresh(B62, 32))
        t = iso(c.at(0), z="")
        out = ["%s DEBUG 4242 --- [main] org.hibernate.SQL : insert into smtp_account (host,password,username,id) values (?,?,?,?)" % t,
               "%s TRACE 4242 --- [main] org.hibernate.orm.jdbc.bind : binding parameter (1:VARCHAR) <- [smtp.office365.com]" % t,
               "%s TRACE 4242 --- [main] org.hibernate.orm.jdbc.bind : binding parameter (2:VARCHAR) <- [%s]" % (t, pw),
               "%s TRACE 4242 --- [main] org.hibernate.orm.jdbc.bind : binding parameter (3:VARCHAR) <- [alerts@%s]" % (t, c.domain),
               "%s DEBUG 4242 --- [main] org.hibernate.SQL : update api_client set client_secret=? where id=?" % t,
               "%s TRACE 4242 --- [main] org.hibernate.orm.jdbc.bind : binding parameter (1:VARCHAR) <- [%s]" % (t, sec),
               "%s TRACE 4242 --- [main] org.hibernate.orm.jdbc.bind : binding parameter (2:BIGINT) <- [%d]" % (t, R.randint(1, 99))]
        cmd = "./gradlew test --tests '*SeedDataTest' -i | grep -E 'hibernate'"
    else:
        tok = m(fresh(B64U, 43))
        out = ["prisma:query BEGIN",
               'prisma:query INSERT INTO "public"."Session" ("id","sessionToken","userId","expires") VALUES ($1,$2,$3,$4) RETURNING "public"."Session"."id"',
               'prisma:query COMMIT', 'Params: ["%s","%s","%s","%s"]' % ("cl" + fresh(LOW + DIG, 23), tok, "cl" + fresh(LOW + DIG, 23), iso(c.at(2592000))),
               "prisma:query Duration: %dms" % R.randint(1, 20)]
        cmd = "DEBUG='prisma:query' npx tsx scripts/seed-session.ts"
    return run(c, cmd, "\n".join(out))


# ------------------------------------------------------- package configs ---

def p_js_registry_auth_configs(c):
    kind = pick(["npmrc", "bunfig", "both"])
    steps = []
    if kind in ("npmrc", "both"):
        art = "%s.jfrog.io" % c.org
        u = pick(["ci-bot", c.user, "deploy"])
        lines = ["@%s:registry=https://npm.pkg.github.com" % c.org, "//npm.pkg.github.com/:_authToken=" + m(gh_token("ghp_")),
                 "//registry.npmjs.org/:_authToken=" + m(npm_token())]
        if chance(0.6):
            lines += ["registry=https://%s/artifactory/api/npm/npm-virtual/" % art,
                      "//%s/artifactory/api/npm/npm-virtual/:_auth=%s" % (art, m(basic_blob(u, pw_url()))), "always-auth=true"]
        lines += ["save-exact=true", "engine-strict=true"]
        steps.append(("cat .npmrc", "\n".join(shuffled(lines[:3]) + lines[3:])))
    if kind in ("bunfig", "both"):
        lines = ["[install]", "exact = true", "", "[install.scopes]",
                 '"@%s" = { token = "%s", url = "https://registry.npmjs.org/" }' % (c.org, m(npm_token())),
                 '"@%s-internal" = { username = "%s", password = "%s", url = "https://npm.%s/" }' % (c.org, c.user, m(pw_url()), c.domain), "",
                 "[test]", 'preload = ["./test/setup.ts"]']
        steps.append(("cat bunfig.toml", "\n".join(lines)))
    return runs(c, steps)


def p_py_ruby_index_credentials(c):
    kind = pick(["pipconf", "uv", "gem", "pypirc"])
    if kind == "pipconf":
        txt = "\n".join(["[global]", "index-url = https://pypi.org/simple",
                         "extra-index-url = https://%s:%s@%s.jfrog.io/artifactory/api/pypi/pypi-local/simple" % (pick(["ci", c.user]), m(pw_url()), c.org),
                         "timeout = 60", "", "[install]", "trusted-host = %s.jfrog.io" % c.org])
        return show_file(c, pick(["pip.conf", "%s/.config/pip/pip.conf" % c.home]), txt)
    if kind == "uv":
        tok = m(glpat())
        txt = "\n".join(["[project]", 'name = "%s"' % c.proj, 'version = "0.%d.0"' % R.randint(1, 30), "", "[[tool.uv.index]]",
                         'name = "internal"', 'url = "https://__token__:%s@gitlab.%s/api/v4/projects/%d/packages/pypi/simple"' % (tok, c.domain, R.randint(10, 900)),
                         "explicit = true", "", "[tool.uv.sources]", '%s-sdk = { index = "internal" }' % c.org])
        return show_file(c, "pyproject.toml", txt)
    if kind == "gem":
        txt = "\n".join(["---", ":rubygems_api_key: " + m(rubygems_key()),
                         ":github: Bearer " + m(gh_token("ghp_"))])
        return run(c, "cat ~/.gem/credentials", txt)
    txt = "\n".join(["[distutils]", "index-servers =", "    pypi", "    testpypi", "", "[pypi]", "username = __token__",
                     "password = " + m(pypi_token()), "", "[testpypi]", "repository = https://test.pypi.org/legacy/",
                     "username = __token__", "password = " + m(pypi_token())])
    return run(c, "cat ~/.pypirc", txt)


# -------------------------------------------------------- editor context ---

def p_cat_A_dotenv_visible(c):
    lines = dotenv(c, R.randint(3, 5), R.randint(2, 4), comments=False).split("\n")
    crlf = chance(0.5)
    out = []
    for i, ln in enumerate(lines):
        end = "^M$" if crlf else "$"
        if "=" in ln and chance(0.2):
            k, v = ln.split("=", 1)
            ln = k + "=" + v + pick(["^I", " ", "M-BM- "])
        out.append(ln + end)
    if chance(0.5):
        out.insert(0, "M-oM-;M-?# env for %s%s" % (c.proj, "^M$" if crlf else "$"))
    return run(c, "cat -A " + pick([".env", ".env.local", "apps/api/.env"]), "\n".join(out))


def p_column_t_seed_users_csv(c):
    rows = [("email", "name", "role", "password", "api_token")]
    for i in range(R.randint(3, 5)):
        nm = pick(CJK_NAMES) if chance(0.4) else pick(FULLNAMES)
        rows.append(("%s%d@%s" % (pick(USERS), i, c.domain), nm, pick(["admin", "member", "viewer", "billing"]),
                     m(pw_any()), m(pick([lambda: "tok_" + fresh(B62, 32), lambda: hexs(40), lambda: fresh(B64U, 43)])())))
    w = [max(vislen(r[i]) for r in rows) for i in range(5)]
    out = []
    for r in rows:
        out.append("  ".join(r[i] + " " * (w[i] - vislen(r[i])) for i in range(5)).rstrip())
    return run(c, "column -s, -t < db/seeds/%s" % pick(["users.csv", "test_users.csv", "dev_accounts.csv"]), "\n".join(out))


def p_diff_u_staging_prod_yaml(c):
    a, b = "config/staging.yml", "config/production.yml"
    def t():
        return "%s.%09d %s" % (ymd_hms(c.at(-R.randint(1000, 900000))), R.randint(0, 999999999), c.tz)
    pairs = [("  password: ", pw_any), ("  secret_key_base: ", rails_skb), ("  api_key: ", sendgrid_key),
             ("  token: ", lambda: gh_token("ghs_")), ("  webhook_secret: ", whsec)]
    chosen = shuffled(pairs)[:R.randint(2, 3)]
    out = ["--- %s\t%s" % (a, t()), "+++ %s\t%s" % (b, t()), "@@ -1,%d +1,%d @@" % (4 + 2 * len(chosen), 4 + 2 * len(chosen)),
           " default: &default", "   adapter: postgresql", "-  host: staging-db.%s" % c.domain, "+  host: prod-db.%s" % c.domain]
    for k, g in chosen:
        out.append("-" + k + m(g()))
        out.append("+" + k + m(g()))
    out.append("   pool: 10")
    return run(c, "diff -u %s %s" % (a, b), "\n".join(out), rc=1)


def p_jq_seed_fixture_tokens(c):
    objs = []
    for i in range(R.randint(2, 3)):
        nm = pick(CJK_NAMES) if chance(0.5) else pick(FULLNAMES)
        objs.append("\n".join(["{", '  "email": "%s%d@%s",' % (pick(USERS), i, c.domain), '  "display_name": %s,' % jstr(nm),
                               '  "api_key": "%s",' % m(pick([lambda: "sk_" + fresh(B62, 40), lambda: hexs(48)])()),
                               '  "totp_secret": "%s"' % m(totp_seed()), "}"]))
    steps = [("jq '.users[] | {email, display_name, api_key, totp_secret}' fixtures/seed.json", "\n".join(objs))]
    if chance(0.6):
        steps.append(("jq -r '.services.slack.bot_token, .services.mapbox.secret_token' fixtures/seed.json",
                      m(slack_bot()) + "\n" + m(mapbox_secret(c.user))))
    if chance(0.5):
        steps.append(("jq -r '.github_app.private_key' fixtures/seed.json", pem_block(pem(pick(["rsa", "pkcs8-rsa", "ec"])))))
    return runs(c, steps)


def p_devcontainer_json_remote_env(c):
    lines = ["// For format details, see https://aka.ms/devcontainer.json.", "{", '  "name": "%s",' % c.proj,
             '  "image": "mcr.microsoft.com/devcontainers/%s",' % pick(["typescript-node:1-20-bookworm", "python:1-3.12-bookworm", "go:1-1.22-bookworm"]),
             '  "features": {', '    "ghcr.io/devcontainers/features/docker-in-docker:2": {}', "  },",
             '  "containerEnv": {', '    "GITHUB_TOKEN": "%s",' % m(gh_token("ghp_")),
             '    "DATABASE_URL": "postgresql://postgres:%s@db:5432/%s"' % (m(pw_url()), dbname(c)), "  },",
             '  "remoteEnv": {', '    "OPENAI_API_KEY": "${localEnv:OPENAI_API_KEY}",', '    "PATH": "${containerEnv:PATH}:/workspace/bin"', "  },",
             '  "runArgs": ["--env", "HF_TOKEN=%s"],' % m(hf_token()), '  "forwardPorts": [3000, 5432],',
             '  "postCreateCommand": "npm ci"', "}"]
    return show_file(c, ".devcontainer/devcontainer.json", "\n".join(lines))


def p_bruno_env_bru_file(c):
    env = pick(["Staging", "Local", "Production"])
    steps = [("cat 'environments/%s.bru'" % env, "\n".join([
        "vars {", "  baseUrl: https://%s.%s" % (env.lower(), c.domain), "  clientId: %s" % uuid4(),
        "  apiKey: " + m(fresh(B62, 40)), "  tenant: %s" % c.org, "}", "vars:secret [", "  accessToken,", "  refreshToken", "]"]))]
    auth = pick(["bearer", "basic"])
    if auth == "bearer":
        blk = ["auth:bearer {", "  token: " + m(jwt_user(c)), "}"]
    else:
        blk = ["auth:basic {", "  username: %s" % c.user, "  password: " + m(pw_any()), "}"]
    steps.append(("cat collection.bru", "\n".join(["meta {", "  name: %s API" % c.proj, "}", ""] + blk + ["", "headers {", "  X-Client: bruno", "}"])))
    return runs(c, steps)


def box_table(headers, rows):
    w = [max(vislen(str(r[i])) for r in [headers] + rows) for i in range(len(headers))]
    def line(l, mid, r):
        return l + mid.join("\u2500" * (x + 2) for x in w) + r
    def row(vals):
        return "\u2502" + "\u2502".join(" " + str(v) + " " * (w[i] - vislen(str(v))) + " " for i, v in enumerate(vals)) + "\u2502"
    out = [line("\u250c", "\u252c", "\u2510"), row(headers), line("\u251c", "\u253c", "\u2524")]
    out += [row(r) for r in rows]
    out.append(line("\u2514", "\u2534", "\u2518"))
    return "\n".join(out)


def p_sqlite3_box_mode_tokens(c):
    rows = []
    for i in range(R.randint(2, 4)):
        prov, g = pick([("github", lambda: gh_token("gho_")), ("slack", slack_user), ("linear", linear_key), ("notion", notion_token)])
        rows.append([str(i + 1), prov, m(g()), ymd_hms(c.at(R.randint(3600, 9000000)))])
    out = box_table(["id", "provider", "access_token", "expires_at"], rows)
    return run(c, "sqlite3 -box %s 'select id, provider, access_token, expires_at from oauth_tokens limit 5;'" % pick(["db/development.sqlite3", "storage/dev.db", "instance/app.db"]), out)


def p_trufflehog_raw_results(c):
    finds = []
    pool = [("Github", lambda: gh_token("ghp_"), "scripts/release.sh"), ("SendGrid", sendgrid_key, "app/mailers/config.py"),
            ("Stripe", stripe_sk, "config/initializers/stripe.rb"), ("Slack", slack_bot, ".github/workflows/notify.yml"),
            ("OpenAI", openai_key, "notebooks/eval.ipynb"), ("NpmToken", npm_token, ".npmrc"),
            ("Postman", postman_key, "postman/environment.json"), ("Mailgun", mailgun_key, "src/mail.ts")]
    git = chance(0.5)
    out = ["\U0001f437\U0001f511\U0001f437  TruffleHog. Unearth your secrets. \U0001f437\U0001f511\U0001f437", ""]
    nv = nu = 0
    for det, g, f in shuffled(pool)[:R.randint(2, 3)]:
        verified = chance(0.4)
        nv += verified
        nu += not verified
        out.append("\u2705 Found verified result \U0001f437\U0001f511" if verified else "Found unverified result \U0001f437\U0001f511\u2753")
        out += ["Detector Type: " + det, "Decoder Type: PLAIN", "Raw result: " + m(g())]
        if git:
            out += ["Commit: " + sha40(), "Email: %s <%s>" % (c.fullname, c.email), "File: " + f, "Line: %d" % R.randint(2, 200),
                    "Repository: https://github.com/%s/%s.git" % (c.org, c.proj), "Timestamp: %s +0000" % ymd_hms(c.at(-R.randint(1000, 9000000)))]
        else:
            out += ["File: " + f, "Line: %d" % R.randint(2, 200)]
        out.append("")
    out.append('%s\tinfo-0\ttrufflehog\tfinished scanning\t{"chunks": %d, "bytes": %d, "verified_secrets": %d, "unverified_secrets": %d}'
               % (iso(c.at(9), z="Z"), R.randint(200, 9000), R.randint(100000, 9000000), nv, nu))
    cmd = ("trufflehog git file://. --since-commit main --no-update" if git else "trufflehog filesystem . --no-update --exclude-paths=.trufflehogignore")
    return run(c, cmd, "\n".join(out))


def p_claude_read_pem_fixture(c):
    kind = pick(["pkcs8-rsa", "rsa", "ec", "pkcs8-ec", "ed25519"])
    if not c.prefixed and chance(0.4):
        k = openssh_ed25519("%s@%s" % (c.user, c.host))
        path = pick(["deploy/keys/id_ed25519", ".ci/deploy_key"])
        return run(c, "cat " + path, pem_block(k))
    k = pem(kind)
    path = pick(["config/jwt/private.pem", "certs/dev/server.key", "tests/fixtures/keys/signing.pem", "src/test/resources/saml/sp.key"])
    txt = pem_block(k)
    if c.style == "claude" and chance(0.7):
        return "\u23fa Read(%s)\n%s" % (path, numbered(txt, 1, "read"))
    if not c.prefixed and chance(0.6):
        return run(c, pick(["cat ", "head -n 40 ", "sed -n '1,40p' "]) + path, txt)
    return show_file(c, path, txt, how=pick(["cat_n", "bat", "nl", "cat", "head"]))



# ===========================================================================
# NEGATIVE TEMPLATES (no secrets; hard look-alikes)
# ===========================================================================

BCRYPT_ALPHA = "./" + UP + LOW + DIG


def bcrypt_hash():
    return uniq(lambda: "$2%s$%d$%s" % (pick(["a", "b", "y"]), pick([10, 12]), rc(BCRYPT_ALPHA, 53)))


def argon2_hash():
    return uniq(lambda: "$argon2id$v=19$m=65536,t=3,p=4$%s$%s" % (b64e(rbytes(16)).rstrip("="), b64e(rbytes(32)).rstrip("=")))


def sri(alg="sha512"):
    n = {"sha512": 64, "sha384": 48, "sha256": 32}[alg]
    return uniq(lambda: alg + "-" + b64e(rbytes(n)))


def digest():
    return "sha256:" + sha64()


def mask_tail(prefix, n=4):
    return prefix + "\u2026" + rc(ALNUM, n)


# ----------------------------------------------------------------- git ---

def n_git_log_pretty_fuller_shas(c):
    subjects = ["Rotate Stripe webhook secret (value lives in Vault at secret/billing/stripe)",
                "Move SENDGRID_API_KEY lookup to settings.env",
                "Bump actions/checkout to %s # v4.2.2" % sha40(),
                "Remove hard-coded token from scripts/release.sh; read $GITHUB_TOKEN instead",
                "Add password_min_length setting (default 12)",
                "Revert \"Cache JWKS for 24h\"", "fix(auth): refresh token rotation off-by-one",
                "docs: explain how to create a personal access token"]
    out = []
    for i in range(R.randint(2, 3)):
        sha = sha40()
        a = pick(FULLNAMES)
        dt = c.at(-R.randint(3600, 9000000))
        out += ["commit " + sha]
        if chance(0.25):
            out.append("Merge: %s %s" % (hexs(7), hexs(7)))
        out += ["Author:     %s <%s@%s>" % (a, a.split()[0].lower(), c.domain), "AuthorDate: " + gitdate(dt, c.tz),
                "Commit:     %s <%s@%s>" % (a, a.split()[0].lower(), c.domain), "CommitDate: " + gitdate(dt + datetime.timedelta(seconds=R.randint(0, 9999)), c.tz), "",
                "    " + pick(subjects), ""]
        if chance(0.6):
            out += ["    Change-Id: I" + sha40(), "    Reviewed-on: https://review.%s/c/%s/+/%d" % (c.domain, c.proj, R.randint(1000, 99999))]
        out += ["    Signed-off-by: %s <%s@%s>" % (a, a.split()[0].lower(), c.domain), ""]
    return run(c, "git log --pretty=fuller -%d" % R.randint(2, 3), "\n".join(out))


def n_git_patch_id_cherry(c):
    lines = []
    subj = ["fix: token refresh race in session middleware", "chore: bump next to 14.2.15", "feat: add api_key prefix to dashboard",
            "test: cover password reset expiry", "refactor: SecretStore interface", "ci: cache pnpm store"]
    for s in shuffled(subj)[:R.randint(3, 5)]:
        lines.append("%s %s %s" % (pick(["+", "+", "-"]), sha40(), s))
    pid = [("%s %s" % (sha40(), sha40())) for _ in range(R.randint(1, 3))]
    return runs(c, [("git cherry -v origin/main", "\n".join(lines)),
                    ("git log -%d --format=%%H origin/%s | xargs -n1 sh -c 'git show $0 | git patch-id --stable'" % (len(pid), c.branch), "\n".join(pid))])


def n_git_submodule_status_shas(c):
    subs = ["vendor/%s" % x for x in shuffled(["protobuf", "libsodium", "design-tokens", "openapi-specs", "fixtures-large"])[:R.randint(2, 4)]]
    st = ["%s%s %s (%s)" % (pick([" ", " ", "+", "-"]), sha40(), p, pick(["v1.2.3", "heads/main", "v0.9.0-14-g%s" % hexs(7), "remotes/origin/HEAD"])) for p in subs]
    ls = ["160000 %s 0\t%s" % (sha40(), p) for p in subs] + ["100644 %s 0\t%s" % (sha40(), f) for f in
                                                             [".env.example", "config/secrets.example.yml", "package.json", "src/token.ts"]]
    return runs(c, [("git submodule status --recursive", "\n".join(st)), ("git ls-files -s | grep -E '^160000|example|token'", "\n".join(sorted(ls, key=lambda x: x.split("\t")[1])))])


def n_git_diff_bun_lock_bump(c):
    pk = shuffled([("zod", "3.23.8", "3.24.1"), ("hono", "4.6.3", "4.6.14"), ("jose", "5.9.3", "5.9.6"), ("@types/node", "22.7.4", "22.10.2"),
                   ("drizzle-orm", "0.33.0", "0.36.4"), ("dotenv", "16.4.5", "16.4.7")])[:R.randint(2, 3)]
    out = ["diff --git a/bun.lock b/bun.lock", "index %s..%s 100644" % (hexs(7), hexs(7)), "--- a/bun.lock", "+++ b/bun.lock",
           "@@ -%d,7 +%d,7 @@" % (R.randint(40, 300), R.randint(40, 300))]
    for name, a, b in pk:
        deps = '{ "%s": "^%d.%d.%d" }' % (pick(["tslib", "undici-types", "@panva/hkdf"]), R.randint(1, 6), R.randint(0, 9), R.randint(0, 9)) if chance(0.5) else "{}"
        out.append('-    "%s": ["%s@%s", "", %s, "%s"],' % (name, name, a, deps, sri()))
        out.append('+    "%s": ["%s@%s", "", %s, "%s"],' % (name, name, b, deps, sri()))
        out.append("")
    out.pop()
    return run(c, "git diff bun.lock", "\n".join(out))


def n_git_diff_settings_env_reads(c):
    app = c.proj.replace("-", "_")
    out = ["diff --git a/%s/settings.py b/%s/settings.py" % (app, app), "index %s..%s 100644" % (hexs(7), hexs(7)),
           "--- a/%s/settings.py" % app, "+++ b/%s/settings.py" % app, "@@ -18,11 +18,13 @@ env = environ.Env()",
           " DEBUG = env.bool(\"DEBUG\", default=False)", "-SECRET_KEY = os.environ.get(\"DJANGO_SECRET_KEY\", \"\")",
           "+SECRET_KEY = env.str(\"DJANGO_SECRET_KEY\")", "+SECRET_KEY_FALLBACKS = env.list(\"DJANGO_SECRET_KEY_FALLBACKS\", default=[])",
           " ", "-STRIPE_API_KEY = os.getenv(\"STRIPE_KEY\")", "+STRIPE_API_KEY = env.str(\"STRIPE_SECRET_KEY\", default=None)",
           "+STRIPE_WEBHOOK_TOLERANCE = env.int(\"STRIPE_WEBHOOK_TOLERANCE\", default=300)",
           " OPENAI_API_KEY = env.str(\"OPENAI_API_KEY\", default=None)", "-TOKEN_TTL = 3600", "+TOKEN_TTL = timedelta(seconds=env.int(\"TOKEN_TTL\", default=3600))",
           " PASSWORD_RESET_TIMEOUT = 60 * 60 * 24"]
    return run(c, "git diff %s/settings.py" % app, "\n".join(out))


def n_rg_secretish_identifiers(c):
    pool = [("src/auth/constants.ts", "export const MAX_PASSWORD_LENGTH = 128;"),
            ("src/auth/constants.ts", "export const TOKEN_URL = \"https://oauth2.googleapis.com/token\";"),
            ("src/auth/constants.ts", "export const csrfTokenHeader = \"X-CSRF-Token\";"),
            ("app/ratelimit.py", "token_bucket = TokenBucket(rate=%d, capacity=%d)" % (R.randint(5, 50), R.randint(50, 500))),
            ("app/users/views.py", "def reset_password(request, uidb64: str, token: str) -> HttpResponse:"),
            ("app/k8s.py", "SECRET_MOUNT = \"/var/run/secrets/kubernetes.io/serviceaccount\""),
            ("app/hashers.py", "password_hasher = Argon2PasswordHasher()"),
            ("config/app.yaml", "  useSecretsManager: true"),
            ("config/app.yaml", "  secretName: prod/%s/stripe" % c.proj),
            ("ml/embed.py", "tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")"),
            ("src/config.rs", "    pub token_ttl_secs: u64,"),
            ("src/config.rs", "    pub password_file: Option<PathBuf>,"),
            ("internal/auth/jwt.go", "\tpublicKeyPath := os.Getenv(\"JWT_PUBLIC_KEY_PATH\") // token verification only"),
            ("README.md", "Set `GITHUB_TOKEN` in your shell before running `make release`."),
            ("src/hooks/usePasswordStrength.ts", "  const secretLooksWeak = zxcvbn(value).score < 3;"),
            ("db/schema.rb", '    t.string "password_digest", null: false'),
            ("db/schema.rb", '    t.string "api_token_prefix", limit: 8'),
            ("config/initializers/filter_parameter_logging.rb", "  :passw, :email, :secret, :token, :_key, :crypt, :salt, :certificate, :otp, :ssn, :cvv, :cvc")]
    out = []
    for f, t in shuffled(pool)[:R.randint(7, 11)]:
        out.append("%s:%d:%s" % (f, R.randint(1, 300), t))
    out.sort(key=lambda x: (x.split(":")[0], int(x.split(":")[1])))
    return run(c, "rg -n -i 'secret|token|passw' --no-heading src app config internal ml db README.md", "\n".join(out))


def n_grep_docs_example_credentials(c):
    pool = ["docs/aws.md:%d:aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
            "docs/aws.md:%d:aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "docs/payments.md:%d:curl https://api.stripe.com/v1/charges -u sk_test_4eC39HqLyjWDarjtT1zdp7dc:",
            "docs/payments.md:%d:export STRIPE_SECRET_KEY=sk_test_...",
            "README.md:%d:export OPENAI_API_KEY=\"sk-...\"",
            "README.md:%d:    api_key: \"<your-api-key>\"",
            "docs/slack.md:%d:SLACK_BOT_TOKEN=xoxb-your-token",
            "docs/slack.md:%d:https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "docs/github.md:%d:GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "docs/api.md:%d:Authorization: Bearer YOUR_TOKEN",
            "docs/dev-setup.md:%d:DATABASE_URL=postgres://user:password@localhost:5432/" + c.proj.replace("-", "_") + "_dev",
            "CONTRIBUTING.md:%d:Never commit a real `api_key`; use `changeme` locally.",
            "docs/sendgrid.md:%d:SENDGRID_API_KEY=SG.xxxxxxxxxxxxxxxxxxxxxx.yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"]
    out = [x % R.randint(3, 200) for x in shuffled(pool)[:R.randint(6, 9)]]
    out.sort(key=lambda x: (x.split(":")[0], int(x.split(":")[1])))
    return run(c, "grep -rn -E 'AKIA|sk_test|api_key|_TOKEN|hooks.slack|Bearer|postgres://|SG\\.' docs/ README.md CONTRIBUTING.md", "\n".join(out))


JWT_IO = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
JWT_RFC7519 = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"


def n_docs_jwt_examples_rfc(c):
    claims = {"sub": "user_123", "aud": "https://api.example.com", "iat": 1700000000, "exp": 1700003600}
    none_tok = b64u(b'{"alg":"none","typ":"JWT"}') + "." + b64u(json.dumps(claims, separators=(",", ":")).encode()) + "."
    lines = ["## Authenticating", "", "Every request carries a bearer token. The example below is the one from jwt.io;",
             "it is signed with the literal secret `your-256-bit-secret` and will be rejected by our API.", "", "```http",
             "GET /v1/me HTTP/1.1", "Host: api.example.com", "Authorization: Bearer " + pick([JWT_IO, JWT_RFC7519]), "```", "",
             "Decoded header and payload:", "", "```json", '{ "alg": "HS256", "typ": "JWT" }', '{ "sub": "1234567890", "name": "John Doe", "iat": 1516239022 }', "```", "",
             "An unsigned token (`alg: none`) is always refused:", "", "```", none_tok, "```", "",
             "See RFC 7519 \u00a73.1 for the canonical example `%s`." % (JWT_RFC7519[:36] + "\u2026")]
    return show_file(c, pick(["docs/auth.md", "docs/api/authentication.md"]), "\n".join(lines))


def n_pytest_digest_mismatch_diff(c):
    a, b = sha64(), sha64()
    e1, e2 = hexs(32), hexs(32)
    out = ["_________________________ test_upload_roundtrip_digest _________________________", "",
           "tmp_path = PosixPath('/tmp/pytest-of-%s/pytest-%d/test_upload_roundtrip_digest0')" % (c.user, R.randint(1, 400)), "",
           "    def test_upload_roundtrip_digest(tmp_path):", "        blob = store.put(tmp_path / \"report.pdf\")",
           ">       assert blob.sha256 == EXPECTED_SHA256", "E       AssertionError: assert '%s' == '%s'" % (a, b), "E         ",
           "E         - %s" % b, "E         + %s" % a, "", "tests/test_storage.py:%d: AssertionError" % R.randint(20, 90),
           "____________________________ test_etag_is_md5 _____________________________", "",
           "    def test_etag_is_md5():", ">       assert resp.headers[\"ETag\"].strip('\"') == md5_hex(body)",
           "E       AssertionError: assert '%s' == '%s'" % (e1, e2), "E         ", "E         - %s" % e2, "E         + %s" % e1, "",
           "tests/test_storage.py:%d: AssertionError" % R.randint(91, 140),
           "=========================== short test summary info ============================",
           "FAILED tests/test_storage.py::test_upload_roundtrip_digest - AssertionError: assert '%s...' == '%s...'" % (a[:8], b[:8]),
           "FAILED tests/test_storage.py::test_etag_is_md5 - AssertionError: assert '%s' == '%s'" % (e1, e2),
           "========================= 2 failed, %d passed in %.2fs =========================" % (R.randint(5, 80), R.random() * 5)]
    return run(c, "pytest tests/test_storage.py -q", "\n".join(out), rc=1)


def n_vitest_snapshot_classnames(c):
    def cls(n):
        return "_%s_%s_%d" % (n, fresh(LOW + DIG, 5), R.randint(1, 90))
    a, b = cls("button"), cls("button")
    em1, em2 = "css-" + fresh(LOW + DIG, 7), "css-" + fresh(LOW + DIG, 7)
    out = [" \u276f src/components/Button.test.tsx (3 tests | 1 failed) %dms" % R.randint(20, 300),
           "   \u00d7 Button > matches snapshot %dms" % R.randint(5, 40), "",
           "\u23af" * 20 + " Failed Tests 1 " + "\u23af" * 20, "", " FAIL  src/components/Button.test.tsx > Button > matches snapshot",
           "Error: Snapshot `Button > matches snapshot 1` mismatched", "", "- Expected", "+ Received", "", "  <button",
           '-   class="%s %s"' % (a, em1), '+   class="%s %s"' % (b, em2), '    data-testid="submit"', '    id=":r%d:"' % R.randint(0, 9),
           '    type="submit"', "  >", "    Save", "  </button>", "",
           " \u276f src/components/Button.test.tsx:%d:%d" % (R.randint(10, 40), R.randint(10, 30)), "",
           " Test Files  1 failed | %d passed (%d)" % (R.randint(5, 40), R.randint(41, 60)), "      Tests  1 failed | %d passed (%d)" % (R.randint(40, 300), R.randint(301, 400))]
    return run(c, "npx vitest run src/components", "\n".join(out), rc=1)


def n_cargo_test_digest_vectors(c):
    vals = []
    for _ in range(3):
        phrase = "%s-%s-%d" % (pick(WORDS), pick(WORDS), R.randint(1, 999))
        vals.append((phrase, hashlib.sha256(phrase.encode()).hexdigest(), hashlib.blake2s(phrase.encode()).hexdigest()))
    p, h1, h2 = vals[0]
    wrong = sha64()
    out = ["running 5 tests", "test digest::tests::sha256_empty ... ok", "test digest::tests::base64_rfc4648_vectors ... ok",
           "test digest::tests::sha256_fixture ... FAILED", "test digest::tests::blake2s_fixture ... ok", "test digest::tests::hex_roundtrip ... ok", "",
           "failures:", "", "---- digest::tests::sha256_fixture stdout ----",
           "thread 'digest::tests::sha256_fixture' panicked at src/digest.rs:%d:9:" % R.randint(60, 140), "assertion `left == right` failed",
           '  left: "%s"' % h1, ' right: "%s"' % wrong, "", "failures:", "    digest::tests::sha256_fixture", "",
           "test result: FAILED. 4 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s"]
    fx = ["// tests/fixtures/digests.rs", "pub const EMPTY_SHA256: &str = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\";",
          "pub const FOOBAR_B64: &str = \"Zm9vYmFy\";"] + ['pub const %s: (&str, &str) = ("%s", "%s");' % ("V%d" % i, ph, bl) for i, (ph, _, bl) in enumerate(vals)]
    return runs(c, [("cargo test digest::", "\n".join(out), 101), ("sed -n '1,12p' tests/fixtures/digests.rs", "\n".join(fx))])


def n_go_test_v_struct_ids(c):
    def ev():
        return ("{ID:%s Type:invoice.paid TraceID:%s SpanID:%s ETag:\"W/\\\"%s\\\"\" Checksum:%s CreatedAt:%s}"
                % (ulid(), hexs(32), hexs(16), hexs(16), sha64(), iso(c.at(R.randint(0, 999)), ms=False)))
    out = ["=== RUN   TestEventDedup", "    dedup_test.go:%d: first:  %s" % (R.randint(20, 60), ev()),
           "    dedup_test.go:%d: second: %s" % (R.randint(20, 60), ev()), "--- PASS: TestEventDedup (0.00s)",
           "=== RUN   TestIdempotencyKeyFormat", "    idem_test.go:%d: key=%s" % (R.randint(10, 40), uuid4()),
           "--- PASS: TestIdempotencyKeyFormat (0.00s)", "PASS", "ok  \tgithub.com/%s/%s/internal/events\t0.%03ds" % (c.org, c.proj, R.randint(3, 90))]
    return run(c, "go test -v ./internal/events/", "\n".join(out))


def n_rails_log_filtered_parameters(c):
    rid = uuid4()
    t = c.at(0)
    out = ["[%s] Started POST \"/users/sign_in\" for 127.0.0.1 at %s %s" % (rid, ymd_hms(t), c.tz),
           "[%s] Processing by Users::SessionsController#create as TURBO_STREAM" % rid,
           "[%s]   Parameters: {\"authenticity_token\"=>\"[FILTERED]\", \"user\"=>{\"email\"=>\"[FILTERED]\", \"password\"=>\"[FILTERED]\", \"remember_me\"=>\"0\"}, \"commit\"=>\"Log in\"}" % rid,
           "[%s]   User Load (0.%dms)  SELECT \"users\".* FROM \"users\" WHERE \"users\".\"email\" = $1 ORDER BY \"users\".\"id\" ASC LIMIT $2  [[\"email\", \"[FILTERED]\"], [\"LIMIT\", 1]]" % (rid, R.randint(1, 9)),
           "[%s]   TRANSACTION (0.1ms)  BEGIN" % rid,
           "[%s]   User Update (0.%dms)  UPDATE \"users\" SET \"sign_in_count\" = $1, \"current_sign_in_at\" = $2 WHERE \"users\".\"id\" = $3  [[\"sign_in_count\", %d], [\"current_sign_in_at\", \"%s\"], [\"id\", %d]]" % (rid, R.randint(1, 9), R.randint(2, 90), ymd_hms(t), R.randint(1, 999)),
           "[%s]   TRANSACTION (0.4ms)  COMMIT" % rid, "[%s] Redirected to http://localhost:3000/" % rid,
           "[%s] Completed 303 See Other in %dms (ActiveRecord: %.1fms | Allocations: %d)" % (rid, R.randint(50, 400), R.random() * 9, R.randint(5000, 40000))]
    return run(c, "tail -n 9 log/development.log", "\n".join(out))


def n_python_repr_settings_refs(c):
    arn_sfx = fresh(ALNUM, 6)
    s = ("Settings(env='production', openai_api_key_env='OPENAI_API_KEY', api_key=None, token_ttl=%d, password_min_length=%d, "
         "secret_backend='aws-secretsmanager', secret_arn='arn:aws:secretsmanager:eu-west-1:%s:secret:prod/%s/api-%s', "
         "jwt_public_key_path=PosixPath('/etc/%s/jwt.pub'), database_url='postgresql://%s@db:5432/%s', "
         "stripe_key=SecretStr('**********'), session_cookie_secure=True, csrf_trusted_origins=['https://%s'])"
         % (pick([900, 3600]), pick([10, 12, 14]), digits(12), c.proj, arn_sfx, c.proj, c.proj.split("-")[0], dbname(c), c.domain))
    return run(c, "python -c 'from %s.config import settings; print(settings)'" % c.proj.replace("-", "_"), s)


def n_rust_debug_secrecy_redacted(c):
    out = ["[src/main.rs:%d:5] &state = AppState {" % R.randint(20, 90), "    db: PgPool {", "        size: %d," % R.randint(1, 10),
           "        num_idle: %d," % R.randint(0, 5), "        is_closed: false,", "        options: PoolOptions { max_connections: 10, min_connections: 0, .. },", "    },",
           "    jwt: JwtKeys {", '        kid: "%s",' % ("k-" + fresh(LOW + DIG, 10)), "        encoding: EncodingKey { family: Ed, .. },",
           "        decoding_fingerprint: %s," % ("[" + ", ".join(str(R.randrange(256)) for _ in range(12)) + ", ..]"),
           "    },", "    api_key: SecretString([REDACTED]),", "    webhook_secret: Secret([REDACTED alloc::string::String]),",
           "    instance_id: %s," % uuid4(), "    build_sha: \"%s\"," % sha40(), "}"]
    return run(c, "cargo run -q", "\n".join(out))


def n_jvm_tostring_masked_props(c):
    pid = R.randint(1000, 99999)
    def ln(lvl, logger, msg, sec):
        return "%s %5s %d --- [%s] [%15s] %-40s : %s" % (iso(c.at(sec), z="+02:00"), lvl, pid, c.proj, "main", logger, msg)
    out = [ln("DEBUG", "c.%s.config.ClientConfig" % c.org[:6], "ApiCredentials(clientId=%s, clientSecret=***, tokenUri=https://auth.%s/oauth/token)" % (uuid4(), c.domain), 1),
           ln("DEBUG", "c.%s.config.DbConfig" % c.org[:6], "DataSourceProps(url=jdbc:postgresql://db:5432/%s, username=app, password=******)" % dbname(c), 1),
           ln("INFO", "com.zaxxer.hikari.HikariDataSource", "HikariPool-1 - Starting...", 2),
           ln("INFO", "com.zaxxer.hikari.pool.HikariPool", "HikariPool-1 - Added connection org.postgresql.jdbc.PgConnection@%s" % rc(HEX, 8), 2),
           ln("INFO", "o.s.b.a.e.web.EndpointLinksResolver", "Exposing 1 endpoint beneath base path '/actuator'", 3),
           ln("INFO", "c.%s.Application" % c.org[:6], "traceId=%s spanId=%s Started Application in %.3f seconds" % (hexs(32), hexs(16), R.random() * 9 + 1), 4)]
    return run(c, "./gradlew bootRun 2>&1 | tail -n 6", "\n".join(out))


def n_ruby_inspect_object_addresses(c):
    tail = rc(ALNUM, 4)
    out = ["%s(dev)> client" % c.proj,
           '=> #<Octokit::Client:0x0000%s @access_token="%s%s", @api_endpoint="https://api.github.com/", @auto_paginate=true, @per_page=100>' % (rc(HEX, 12), "*" * 36, tail),
           "%s(dev)> ApiKey.last" % c.proj,
           '=> #<ApiKey id: %d, name: "ci", prefix: "ak_%s", token_digest: [FILTERED], last_used_at: "%s", created_at: "%s">' % (R.randint(1, 400), rc(LOW + DIG, 6), ymd_hms(c.at(-999)), ymd_hms(c.at(-99999))),
           "%s(dev)> Rails.application.credentials" % c.proj,
           "=> #<ActiveSupport::EncryptedConfiguration:0x0000%s @content_path=#<Pathname:config/credentials/development.yml.enc>, @key_path=#<Pathname:config/credentials/development.key>, @env_key=\"RAILS_MASTER_KEY\", @raise_if_missing_key=true>" % rc(HEX, 12)]
    return run(c, "bin/rails console", "\n".join(out))


def n_iex_inspect_pids_refs(c):
    out = ["iex(1)> self()", "#PID<0.%d.0>" % R.randint(100, 999), "iex(2)> make_ref()",
           "#Reference<0.%d.%d.%d>" % (R.randint(10 ** 9, 4 * 10 ** 9), R.randint(10 ** 9, 4 * 10 ** 9), R.randint(1000, 999999)),
           "iex(3)> Ecto.UUID.generate()", '"%s"' % uuid4(), "iex(4)> :crypto.hash(:sha256, File.read!(\"priv/static/robots.txt\")) |> Base.encode16(case: :lower)",
           '"%s"' % sha64(), "iex(5)> Accounts.change_user_registration(%User{}, %{\"password\" => \"x\"})",
           "#Ecto.Changeset<", "  action: nil,", '  changes: %{password: "**redacted**"},', "  errors: [",
           '    password: {"should be at least %{count} character(s)",', "     [count: 12, validation: :length, kind: :min, type: :string]}", "  ],",
           "  data: #%s.Accounts.User<>," % "".join(x.capitalize() for x in c.proj.split("-")), "  valid?: false,", "  ...", ">"]
    return run(c, "iex -S mix", "\n".join(out))


def n_php_var_dump_hash_values(c):
    out = ["> var_dump($user->password);",
           'string(60) "%s"' % bcrypt_hash(), "> var_dump(md5_file(storage_path('app/exports/orders.csv')));", 'string(32) "%s"' % hexs(32),
           "> var_dump(uniqid());", 'string(13) "%s"' % rc(HEX, 13), "> var_dump(spl_object_hash($request));", 'string(32) "%s"' % hexs(32),
           "> var_dump(config('app.cipher'), strlen(config('app.key')));", 'string(11) "AES-256-CBC"', "int(51)"]
    return run(c, "php artisan tinker", "\n".join(out))


def n_node_repl_buffers_objectids(c):
    oid = hexs(24)
    bufs = pick(["hello world", "ping", c.proj])
    out = ["Welcome to Node.js %s." % c.nodever, 'Type ".help" for more information.',
           "> Buffer.from('%s')" % bufs, "<Buffer %s>" % " ".join("%02x" % b for b in bufs.encode()),
           "> crypto.randomUUID()", "'%s'" % uuid4(), "> new ObjectId()", "new ObjectId('%s')" % oid,
           "> crypto.createHash('sha256').update(fs.readFileSync('package-lock.json')).digest('base64')", "'%s'" % b64e(rbytes(32)),
           "> process.env.NODE_ENV", "'development'", "> Object.keys(process.env).filter(k => k.includes('TOKEN'))",
           "[ 'GITHUB_TOKEN', 'NPM_TOKEN', 'SENTRY_AUTH_TOKEN' ]"]
    return run(c, "node", "\n".join(out))


def n_csharp_record_guid_etag(c):
    def order():
        return ("Order { Id = %s, CustomerId = %s, ETag = \"0x8DC%s\", ConcurrencyStamp = %s, Total = %d.%02d, Status = Paid }"
                % (uuid4(), uuid4(), rc(HEXU, 12), uuid4(), R.randint(5, 900), R.randint(0, 99)))
    out = ["info: %s.Api.Orders.OrderService[0]" % "".join(x.capitalize() for x in c.proj.split("-")),
           "      Loaded " + order(), "info: %s.Api.Orders.OrderService[0]" % "".join(x.capitalize() for x in c.proj.split("-")),
           "      Loaded " + order(), "dbug: Microsoft.EntityFrameworkCore.Query[10111]",
           "      Compiling query expression: 'DbSet<Order>().Where(o => o.Id == __id_0)' TraceId=%s SpanId=%s" % (hexs(32), hexs(16))]
    return run(c, "dotnet run --project src/%s.Api -- --seed" % "".join(x.capitalize() for x in c.proj.split("-")), "\n".join(out))


def n_sentry_event_scrubbed_json(c):
    ev = {"event_id": hexs(32), "timestamp": iso(c.at(0)), "platform": "node", "level": "error",
          "release": "%s@%s" % (c.proj, sha40()), "dist": str(R.randint(1, 300)),
          "exception": {"values": [{"type": "TypeError", "value": "Cannot read properties of undefined (reading 'id')"}]},
          "request": {"url": "https://app.%s/api/session" % c.domain, "method": "POST",
                      "headers": {"Authorization": "[Filtered]", "Cookie": "[Filtered]", "User-Agent": "Mozilla/5.0"},
                      "data": {"email": "[Filtered]", "password": "[Filtered]"}},
          "contexts": {"trace": {"trace_id": hexs(32), "span_id": hexs(16), "op": "http.server"}},
          "debug_meta": {"images": [{"type": "sourcemap", "code_file": "app:///_next/static/chunks/app/page-%s.js" % hexs(16),
                                     "debug_id": uuid4()}]},
          "sdk": {"name": "sentry.javascript.nextjs", "version": "8.%d.0" % R.randint(20, 50)}}
    return run(c, pick(["jq . tmp/last_event.json", "curl -s -H \"Authorization: Bearer $SENTRY_AUTH_TOKEN\" https://sentry.io/api/0/projects/%s/%s/events/latest/ | jq ." % (c.org, c.proj)]),
               json.dumps(ev, indent=2))


def n_rich_locals_nonsecret_values(c):
    w = 98
    def row(t):
        return "\u2502 " + t + " " * (w - 4 - vislen(t)) + " \u2502"
    app = c.proj.replace("-", "_")
    loc = [("token_len", str(R.randint(10, 30))), ("TOKEN_LEN", "43"), ("secret_name", "'prod/%s/signing'" % c.proj),
           ("api_key", "None"), ("request_id", "'req_%s'" % fresh(B62, 16)), ("token_sha256", "'%s\u2026'" % sha64()[:24])]
    kw = max(len(k) for k, _ in loc)
    inner = [" %s = %s " % (k.rjust(kw), v) for k, v in loc]
    iw = max(vislen(x) for x in inner)
    title = " locals "
    lpad = (iw - len(title)) // 2
    box = ["\u256d" + "\u2500" * lpad + title + "\u2500" * (iw - lpad - len(title)) + "\u256e"]
    box += ["\u2502" + x + " " * (iw - vislen(x)) + "\u2502" for x in inner]
    box.append("\u2570" + "\u2500" * iw + "\u256f")
    head = " Traceback (most recent call last) "
    out = ["\u256d" + "\u2500" * 30 + head + "\u2500" * (w - 2 - 30 - len(head)) + "\u256e",
           row("%s/%s/tokens.py:%d in verify" % (c.cwd.replace(c.home, "~"), app, 42)), row(""),
           row("  41 \u2502     if len(token) != TOKEN_LEN:"), row("\u2771 42 \u2502         raise InvalidToken(f\"bad length {len(token)}\")"),
           row("  43 \u2502     return hmac.compare_digest(digest(token), stored)"), row("")] + [row(b) for b in box] + \
          ["\u2570" + "\u2500" * (w - 2) + "\u256f", "InvalidToken: bad length " + loc[0][1]]
    return run(c, "python -m %s.cli verify-token --from-stdin < /dev/null" % app, "\n".join(out), rc=1)



# ----------------------------------------------------------- http / logs ---

def n_curl_v_tls_session_headers(c):
    kind = pick(["github", "s3", "npm"])
    if kind == "github":
        host, path = "api.github.com", "/repos/%s/%s/commits/%s" % (c.org, c.proj, sha40())
        resp = ["< etag: W/\"%s\"" % sha64(), "< x-github-media-type: github.v3; format=json",
                "< x-github-api-version-selected: 2022-11-28", "< x-ratelimit-remaining: %d" % R.randint(0, 59),
                "< x-github-request-id: %s:%s:%s:%s:%s" % (rc(HEXU, 4), rc(HEXU, 4), rc(HEXU, 6), rc(HEXU, 7), rc(HEXU, 8))]
    elif kind == "s3":
        host, path = "%s-public-assets.s3.eu-west-1.amazonaws.com" % c.org, "/releases/%s-%d.%d.%d.tar.gz" % (c.proj, R.randint(0, 4), R.randint(0, 20), R.randint(0, 9))
        resp = ["< x-amz-id-2: %s" % b64e(rbytes(57)), "< x-amz-request-id: %s" % rc(HEXU, 16),
                "< x-amz-version-id: %s" % fresh(B62 + "._", 32), "< etag: \"%s\"" % hexs(32), "< x-amz-server-side-encryption: AES256"]
    else:
        host, path = "registry.npmjs.org", "/%s" % pick(["react", "zod", "hono", "vite"])
        resp = ["< etag: \"%s\"" % hexs(32), "< cf-cache-status: HIT", "< cf-ray: %s-%s" % (hexs(16), pick(["FRA", "AMS", "SJC"])),
                "< x-amz-meta-rev: %d-%s" % (R.randint(100, 9999), hexs(32))]
    out = curl_tls_lines(host, rand_ip()) + ["* using HTTP/2", "> GET %s HTTP/2" % path, "> Host: " + host, "> User-Agent: curl/8.7.1",
                                            "> Accept: */*", "> ", "< HTTP/2 200 ", "< date: " + httpdate(c.at(0))] + resp + ["< ", "* Connection #0 to host %s left intact" % host]
    return run(c, "curl -sv -o /dev/null https://%s%s" % (host, path), "\n".join(out))


def n_httpie_response_integrity_headers(c):
    pkg = pick(["htmx.org@2.0.3/dist/htmx.min.js", "alpinejs@3.14.1/dist/cdn.min.js", "chart.js@4.4.4/dist/chart.umd.js"])
    out = ["HTTP/1.1 200 OK", "Access-Control-Allow-Origin: *", "Age: %d" % R.randint(0, 900000), "Cache-Control: public, max-age=31536000, s-maxage=31536000, immutable",
           "Content-Type: application/javascript; charset=utf-8", "Date: " + httpdate(c.at(0)),
           "ETag: W/\"%x-%s\"" % (R.randint(10000, 200000), fresh(B64U, 27)), "Timing-Allow-Origin: *",
           "X-Cache: HIT, HIT", "X-Content-Type-Options: nosniff", "X-JSD-Version: %s" % pkg.split("@")[1].split("/")[0],
           "X-JSD-Version-Type: version", "X-Served-By: cache-fra-eddf82%05d-FRA, cache-%s-%s%05d-%s" % (R.randint(0, 99999), pick(["ams", "lhr"]), rc(LOW, 4), R.randint(0, 99999), pick(["AMS", "LHR"])),
           "x-goog-hash: crc32c=%s, md5=%s" % (b64e(rbytes(4)), b64e(rbytes(16))), "Digest: sha-256=%s" % b64e(rbytes(32))]
    return run(c, "http --headers GET https://cdn.jsdelivr.net/npm/%s" % pkg, "\n".join(out))


def n_urllib3_debug_paths_shas(c):
    repo = "%s/%s" % (c.org, c.proj)
    out = ["DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): api.github.com:443"]
    for _ in range(R.randint(3, 5)):
        p = pick(["/repos/%s/commits/%s/check-runs?per_page=100" % (repo, sha40()),
                  "/repos/%s/actions/runs/%d/artifacts" % (repo, R.randint(10 ** 9, 9 * 10 ** 9)),
                  "/repos/%s/git/blobs/%s" % (repo, sha40()), "/repos/%s/compare/%s...%s" % (repo, hexs(12), hexs(12)),
                  "/repos/%s/pulls?state=open&per_page=50&cursor=%s" % (repo, b64e(("cursor:v2:%d" % R.randint(1, 99999)).encode()).rstrip("="))])
        out.append('DEBUG:urllib3.connectionpool:https://api.github.com:443 "GET %s HTTP/11" 200 None' % p)
    out.append("INFO:%s.sync:fetched %d check runs, head_sha=%s" % (c.proj.replace("-", "_"), R.randint(1, 40), sha40()))
    return run(c, "python -m %s.sync --log-level DEBUG 2>&1 | head" % c.proj.replace("-", "_"), "\n".join(out))


def n_multipart_upload_boundaries(c):
    md5 = hexs(32)
    bd = "-" * 24 + rc(HEX, 24)
    js = {"args": {}, "form": {"checksum": md5, "upload_id": uuid4()},
          "headers": {"Content-Length": str(R.randint(2000, 90000)), "Content-Type": "multipart/form-data; boundary=" + bd,
                      "Host": "httpbin.org", "User-Agent": "curl/8.7.1", "X-Amzn-Trace-Id": "Root=1-%s-%s" % (rc(HEX, 8), rc(HEX, 24))}}
    steps = [("curl -s -F file=@tests/fixtures/avatar.png -F checksum=%s -F upload_id=%s https://httpbin.org/post | jq '{form, headers}'" % (md5, js["form"]["upload_id"]),
              json.dumps({"form": js["form"], "headers": js["headers"]}, indent=2))]
    if chance(0.6):
        wk = "----WebKitFormBoundary" + fresh(ALNUM, 16)
        steps.append(("sed -n '1,9p' tests/fixtures/upload_request.txt", "\n".join([
            "POST /api/uploads HTTP/1.1", "Host: localhost:3000", "Content-Type: multipart/form-data; boundary=" + wk, "",
            "--" + wk, 'Content-Disposition: form-data; name="file"; filename="invoice.pdf"', "Content-Type: application/pdf", "",
            "%PDF-1.7"])))
    return runs(c, steps)


def n_spring_yml_property_placeholders(c):
    lines = ["spring:", "  config:", "    import:", "      - optional:configtree:/run/secrets/", "      - optional:aws-secretsmanager:prod/%s/" % c.proj,
             "  datasource:", "    url: jdbc:postgresql://${DB_HOST:localhost}:5432/${DB_NAME:%s}" % dbname(c), "    username: ${DB_USER:app}",
             "    password: ${DB_PASSWORD}", "  mail:", "    password: ${vcap.services.smtp.credentials.password:}", "app:", "  jwt:",
             "    secret: ${JWT_SECRET:?JWT_SECRET must be set}", "    ttl: 15m", "  stripe:", "    api-key: ${STRIPE_SECRET_KEY}",
             "    webhook-tolerance: 300", "management:", "  endpoint:", "    env:", "      show-values: WHEN_AUTHORIZED"]
    return show_file(c, "src/main/resources/application.yml", "\n".join(lines))


def n_django_settings_env_lookups(c):
    lines = ["import environ", "", "env = environ.Env()", "environ.Env.read_env(BASE_DIR / \".env\")", "",
             "SECRET_KEY = env(\"DJANGO_SECRET_KEY\")", "SECRET_KEY_FALLBACKS = env.list(\"DJANGO_SECRET_KEY_FALLBACKS\", default=[])",
             "DEBUG = env.bool(\"DJANGO_DEBUG\", False)", "", "DATABASES = {\"default\": env.db(\"DATABASE_URL\")}", "",
             "PASSWORD_HASHERS = [", "    \"django.contrib.auth.hashers.Argon2PasswordHasher\",", "    \"django.contrib.auth.hashers.PBKDF2PasswordHasher\",", "]",
             "AUTH_PASSWORD_VALIDATORS = [", "    {\"NAME\": \"django.contrib.auth.password_validation.MinimumLengthValidator\", \"OPTIONS\": {\"min_length\": 12}},", "]",
             "SESSION_COOKIE_AGE = 1209600", "CSRF_TRUSTED_ORIGINS = [\"https://%s\"]" % c.domain,
             "EMAIL_HOST_PASSWORD = env(\"EMAIL_HOST_PASSWORD\", default=\"\")", "AWS_SECRET_ACCESS_KEY = env(\"AWS_SECRET_ACCESS_KEY\", default=None)"]
    return show_file(c, "config/settings/base.py", "\n".join(lines), start=R.randint(1, 30))


def n_laravel_config_env_helpers(c):
    lines = ["<?php", "", "return [", "", "    'mailgun' => [", "        'domain' => env('MAILGUN_DOMAIN'),", "        'secret' => env('MAILGUN_SECRET'),",
             "        'endpoint' => env('MAILGUN_ENDPOINT', 'api.mailgun.net'),", "        'scheme' => 'https',", "    ],", "",
             "    'stripe' => [", "        'key' => env('STRIPE_KEY'),", "        'secret' => env('STRIPE_SECRET'),",
             "        'webhook' => [", "            'secret' => env('STRIPE_WEBHOOK_SECRET'),", "            'tolerance' => env('STRIPE_WEBHOOK_TOLERANCE', 300),", "        ],", "    ],", "",
             "    'slack' => [", "        'notifications' => [", "            'bot_user_oauth_token' => env('SLACK_BOT_USER_OAUTH_TOKEN'),",
             "            'channel' => env('SLACK_BOT_USER_DEFAULT_CHANNEL'),", "        ],", "    ],", "", "];"]
    return show_file(c, "config/services.php", "\n".join(lines))


def n_vite_env_types_declaration(c):
    dts = ["/// <reference types=\"vite/client\" />", "", "interface ImportMetaEnv {", "  readonly VITE_API_URL: string;",
           "  readonly VITE_STRIPE_PUBLISHABLE_KEY: string;", "  readonly VITE_SENTRY_DSN?: string;", "  readonly VITE_AUTH_TOKEN_STORAGE_KEY: string;", "}", "",
           "interface ImportMeta {", "  readonly env: ImportMetaEnv;", "}"]
    hits = ["src/lib/api.ts:%d:const baseUrl = import.meta.env.VITE_API_URL;" % R.randint(2, 20),
            "src/lib/auth.ts:%d:const storageKey = import.meta.env.VITE_AUTH_TOKEN_STORAGE_KEY ?? \"%s.token\";" % (R.randint(2, 20), c.proj),
            "src/main.tsx:%d:  dsn: import.meta.env.VITE_SENTRY_DSN," % R.randint(5, 30)]
    return runs(c, [("cat src/env.d.ts", "\n".join(dts)), ("rg -n 'import.meta.env' src", "\n".join(hits))])


def n_phx_digest_and_env_fetch(c):
    files = []
    for n, ext in [("app", ".css"), ("app", ".js"), ("vendor", ".js"), ("logo", ".svg")]:
        files.append("%s-%s%s" % (n, hexs(32), ext))
    out1 = ["Check your digested files at \"priv/static\""]
    out2 = [f for f in files]
    man = {"latest": {"assets/app.css": "assets/" + files[0], "assets/app.js": "assets/" + files[1]}, "version": 1,
           "digests": {"assets/" + files[0]: {"size": R.randint(1000, 90000), "digest": files[0].split("-")[1].split(".")[0], "sha512": b64e(rbytes(64)), "logical_path": "assets/app.css"}}}
    a = R.randint(8, 20)
    g = ["%d:    System.get_env(\"DATABASE_URL\") ||" % a, "%d:      raise \"environment variable DATABASE_URL is missing.\"" % (a + 4),
         "%d:    System.fetch_env!(\"SECRET_KEY_BASE\")" % (a + R.randint(10, 30))]
    return runs(c, [("mix phx.digest", "\n".join(out1)), ("ls priv/static/assets | head", "\n".join(out2)),
                    ("jq . priv/static/cache_manifest.json | head -20", json.dumps(man, indent=2)), ("grep -n 'env' config/runtime.exs", "\n".join(g))])


def n_aspnet_launchsettings_profiles(c):
    nm = "".join(x.capitalize() for x in c.proj.split("-"))
    js = {"$schema": "https://json.schemastore.org/launchsettings.json",
          "iisSettings": {"windowsAuthentication": False, "anonymousAuthentication": True,
                          "iisExpress": {"applicationUrl": "http://localhost:%d" % R.randint(10000, 60000), "sslPort": R.randint(44300, 44399)}},
          "profiles": {"https": {"commandName": "Project", "dotnetRunMessages": True, "launchBrowser": True,
                                 "applicationUrl": "https://localhost:%d;http://localhost:%d" % (R.randint(7000, 7300), R.randint(5000, 5300)),
                                 "environmentVariables": {"ASPNETCORE_ENVIRONMENT": "Development", "Jwt__Issuer": "https://localhost"}}}}
    steps = [("cat src/%s.Api/Properties/launchSettings.json" % nm, json.dumps(js, indent=2)),
             ("grep -n -E 'UserSecretsId|ProjectGuid' src/%s.Api/%s.Api.csproj" % (nm, nm),
              "%d:    <UserSecretsId>%s</UserSecretsId>" % (R.randint(5, 12), uuid4())),
             ("dotnet user-secrets list --project src/%s.Api" % nm, "No secrets configured for this application.")]
    return runs(c, steps)


def n_rails_credentials_yml_enc_cat(c):
    env = pick(["production", "staging"])
    enc = "%s--%s--%s" % (b64e(rbytes(R.randint(300, 700))), b64e(rbytes(12)), b64e(rbytes(16)))
    ls = ["total 24", "drwxr-xr-x  6 %s  staff   192 %s %2d %02d:%02d ." % (c.user, MONTHS[c.t0.month - 1], c.t0.day, c.t0.hour, c.t0.minute),
          "-rw-r--r--  1 %s  staff   %d %s %2d %02d:%02d %s.yml.enc" % (c.user, len(enc), MONTHS[c.t0.month - 1], c.t0.day, c.t0.hour, c.t0.minute, env),
          "-rw-------  1 %s  staff    32 %s %2d %02d:%02d %s.key" % (c.user, MONTHS[c.t0.month - 1], c.t0.day, c.t0.hour, c.t0.minute, env)]
    return runs(c, [("ls -la config/credentials", "\n".join(ls)), ("cat config/credentials/%s.yml.enc" % env, enc),
                    ("grep -n key .gitignore", "%d:/config/credentials/*.key\n%d:/config/master.key" % (R.randint(20, 40), R.randint(41, 50)))])


def n_pino_json_redacted_fields(c):
    out = []
    for i in range(R.randint(3, 4)):
        d = {"level": 30, "time": epoch(c.at(i)) * 1000 + R.randint(0, 999), "pid": R.randint(1000, 99999), "hostname": c.host,
             "reqId": "req-%x" % R.randint(1, 4000),
             "req": {"method": pick(["GET", "POST"]), "url": pick(["/api/session", "/api/orders?page=2", "/api/webhooks/stripe"]),
                     "headers": {"host": "localhost:3000", "authorization": "[Redacted]", "cookie": "[Redacted]",
                                 "x-request-id": uuid4(), "traceparent": "00-%s-%s-01" % (hexs(32), hexs(16))}},
             "msg": "incoming request"}
        out.append(json.dumps(d, separators=(",", ":")))
    return run(c, "npm run dev 2>&1 | grep incoming | head -n 4", "\n".join(out))


def n_logfmt_request_span_ids(c):
    out = []
    for i in range(R.randint(4, 6)):
        out.append("ts=%s level=info msg=\"request finished\" method=%s path=%s status=%d dur=%dms request_id=%s trace_id=%s span_id=%s user_id=usr_%s cache_key=%s"
                   % (iso(c.at(i)), pick(["GET", "POST"]), pick(["/v1/orders", "/v1/tokens/verify", "/v1/session"]), pick([200, 201, 204, 304]),
                      R.randint(1, 900), ulid(), hexs(32), hexs(16), fresh(B62, 14), "v3:orders:" + hexs(16)))
    return run(c, "tail -n %d tmp/log/api.log" % len(out), "\n".join(out))


def n_orm_log_digest_columns(c):
    out = ['D, [%s #%d] DEBUG -- :   User Load (0.%dms)  SELECT "users"."id", "users"."email", "users"."password_digest" FROM "users" WHERE "users"."id" = $1 LIMIT $2  [["id", %d], ["LIMIT", 1]]'
           % (iso(c.at(0), z=""), R.randint(1000, 99999), R.randint(1, 9), R.randint(1, 999)),
           "=> #<User id: %d, email: \"%s\", password_digest: \"%s\">" % (R.randint(1, 999), c.email, bcrypt_hash()),
           "sqlalchemy.engine.Engine SELECT api_keys.id, api_keys.prefix, api_keys.key_sha256 FROM api_keys WHERE api_keys.prefix = %(prefix_1)s",
           "sqlalchemy.engine.Engine [cached since 12.4s ago] {'prefix_1': 'ak_%s'}" % fresh(LOW + DIG, 6),
           "-> (%d, 'ak_%s', '%s')" % (R.randint(1, 99), fresh(LOW + DIG, 6), sha64()),
           "prisma:query SELECT \"public\".\"Account\".\"id\", \"public\".\"Account\".\"passwordHash\" FROM \"public\".\"Account\" WHERE \"public\".\"Account\".\"email\" = $1 LIMIT $2 OFFSET $3",
           "-> [{ id: 'cl%s', passwordHash: '%s' }]" % (fresh(LOW + DIG, 23), argon2_hash())]
    return run(c, "grep -h -A1 -E 'password|key_sha256|passwordHash' log/sql-debug.log | head -n 7", "\n".join(out))


# ------------------------------------------------------- package configs ---

def n_npmrc_env_var_interpolation(c):
    steps = [("cat .npmrc", "\n".join(["@%s:registry=https://npm.pkg.github.com" % c.org, "//npm.pkg.github.com/:_authToken=${GITHUB_TOKEN}",
                                        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}", "auto-install-peers=true"])),
             ("npm config list", "\n".join(["; \"project\" config from %s/.npmrc" % c.cwd, "",
                                             "@%s:registry = \"https://npm.pkg.github.com\"" % c.org,
                                             "//npm.pkg.github.com/:_authToken = (protected)", "//registry.npmjs.org/:_authToken = (protected)",
                                             "auto-install-peers = true", "", "; node bin location = /usr/local/bin/node",
                                             "; node version = " + c.nodever, "; npm local prefix = " + c.cwd, "; npm version = 10.%d.%d" % (R.randint(2, 9), R.randint(0, 5)),
                                             "; cwd = " + c.cwd, "; HOME = " + c.home]))]
    if chance(0.5):
        steps.append(("cat .yarnrc.yml", "\n".join(["nodeLinker: node-modules", "npmScopes:", "  %s:" % c.org, '    npmAuthToken: "${NPM_AUTH_TOKEN:-}"',
                                                     '    npmRegistryServer: "https://npm.pkg.github.com"', "yarnPath: .yarn/releases/yarn-4.%d.%d.cjs" % (R.randint(0, 5), R.randint(0, 9))])))
    return runs(c, steps)


def n_pip_install_verbose_links(c):
    pk = pick([("httpx", "0.27.2"), ("pydantic", "2.9.2"), ("cryptography", "43.0.3"), ("PyJWT", "2.9.0")])
    whl = "%s-%s-py3-none-any.whl" % (pk[0].lower(), pk[1])
    out = ["Looking in indexes: https://pypi.org/simple", "Collecting %s==%s" % pk,
           "  Found link https://files.pythonhosted.org/packages/%s/%s/%s/%s#sha256=%s (from https://pypi.org/simple/%s/) (requires-python:>=3.8), version: %s"
           % (hexs(2), hexs(2), hexs(60), whl, sha64(), pk[0].lower(), pk[1]),
           "  Using cached %s (%d kB)" % (whl, R.randint(20, 900)),
           "Building wheels for collected packages: %s-internal" % c.proj,
           "  Created wheel for %s-internal: filename=%s_internal-0.%d.0-py3-none-any.whl size=%d sha256=%s" % (c.proj, c.proj.replace("-", "_"), R.randint(1, 9), R.randint(2000, 90000), sha64()),
           "  Stored in directory: %s/.cache/pip/wheels/%s/%s/%s" % (c.home, hexs(2), hexs(2), hexs(60)),
           "Successfully built %s-internal" % c.proj]
    return run(c, "pip install -v %s==%s ./packages/internal 2>&1 | grep -E 'Found link|Created wheel|Stored|Using|Success|Collect|Looking|Building'" % pk, "\n".join(out))


def n_composer_lock_source_refs(c):
    objs = []
    for name, ver in shuffled([("laravel/framework", "v11.%d.0" % R.randint(0, 30)), ("guzzlehttp/guzzle", "7.9.2"), ("stripe/stripe-php", "v15.%d.0" % R.randint(0, 9)),
                               ("firebase/php-jwt", "v6.10.1"), ("league/flysystem", "3.29.0")])[:R.randint(2, 4)]:
        objs.append(json.dumps({"name": name, "version": ver, "source": sha40(), "dist": "https://api.github.com/repos/%s/zipball/%s" % (name, sha40()), "shasum": ""}, indent=2))
    steps = [("jq '.packages[] | {name, version, source: .source.reference, dist: .dist.url, shasum: .dist.shasum}' composer.lock | head -40", "\n".join(objs)),
             ("jq -r '.\"content-hash\"' composer.lock", hexs(32))]
    return runs(c, steps)


def n_buildx_imagetools_inspect(c):
    img = "ghcr.io/%s/%s:sha-%s" % (c.org, c.proj, hexs(7))
    out = ["Name:      " + img, "MediaType: application/vnd.oci.image.index.v1+json", "Digest:    " + digest(), "", "Manifests:"]
    for plat in ["linux/amd64", "linux/arm64"]:
        out += ["  Name:        %s@%s" % (img.split(":sha")[0], digest()), "  MediaType:   application/vnd.oci.image.manifest.v1+json",
                "  Platform:    " + plat, ""]
    out += ["  Name:        %s@%s" % (img.split(":sha")[0], digest()), "  MediaType:   application/vnd.oci.image.manifest.v1+json",
            "  Platform:    unknown/unknown", "  Annotations:", "    vnd.docker.reference.digest: " + digest(),
            "    vnd.docker.reference.type:   attestation-manifest"]
    return run(c, "docker buildx imagetools inspect " + img, "\n".join(out))


def n_dockerfile_from_digest_pins(c):
    base = pick([("node", "20.18-bookworm-slim"), ("python", "3.12-slim-bookworm"), ("golang", "1.23-alpine")])
    lines = ["# syntax=docker/dockerfile:1.7@%s" % digest(), "FROM %s:%s@%s AS build" % (base[0], base[1], digest()), "WORKDIR /app",
             "ARG NPM_TOKEN", "COPY package.json package-lock.json ./",
             "RUN --mount=type=secret,id=npmrc,target=/root/.npmrc --mount=type=cache,target=/root/.npm npm ci",
             "COPY . .", "RUN npm run build", "", "FROM gcr.io/distroless/nodejs20-debian12@%s" % digest(),
             "LABEL org.opencontainers.image.revision=\"%s\"" % sha40(), "COPY --from=build /app/dist /app", "ENV NODE_ENV=production",
             "USER nonroot", 'CMD ["/app/server.js"]']
    return show_file(c, "Dockerfile", "\n".join(lines))



# ------------------------------------------------------ front-end output ---

def n_css_bundle_hashed_selectors(c):
    mod = fresh(LOW + DIG, 5)
    svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path fill="%s" d="M6 10.8 2.7 7.5l-1 1L6 12.8l8.3-8.3-1-1z"/></svg>' % pick(["#16a34a", "#2563eb", "#111"])
    css = ("._card_%s_1{border-radius:8px;padding:1rem}._title_%s_%d{font-weight:600}.css-%s{display:flex;gap:.5rem}"
           ":root{--tw-ring-color:#3b82f680;--brand-%s:#%s}@font-face{font-family:Inter;src:url(/assets/inter-var-%s.woff2) format(\"woff2\")}"
           ".icon-check{background-image:url(data:image/svg+xml;base64,%s)}.sc-%s{color:var(--brand-%s)}"
           % (mod, mod, R.randint(2, 40), fresh(LOW + DIG, 7), c.proj[:5], rc(HEX, 6), fresh(B64U, 8), b64e(svg.encode()), fresh(UP + LOW, 6), c.proj[:5]))
    name = "index-%s.css" % fresh(B64U, 8)
    return runs(c, [("ls dist/assets", "\n".join([name, "index-%s.js" % fresh(B64U, 8), "inter-var-%s.woff2" % fresh(B64U, 8), "vendor-%s.js" % fresh(B64U, 8)])),
                    ("head -c 800 dist/assets/" + name, css)])


def n_webpack_runtime_chunk_map(c):
    ids = [R.randint(100, 9999) for _ in range(4)]
    m1 = ",".join('%d:"%s"' % (i, hexs(16)) for i in ids)
    js = ('(()=>{"use strict";var e={},t={};function r(o){var n=t[o];if(void 0!==n)return n.exports;var a=t[o]={id:o,loaded:!1,exports:{}},'
          'i=!0;try{e[o].call(a.exports,a,a.exports,r),i=!1}finally{i&&delete t[o]}return a.loaded=!0,a.exports}r.m=e,'
          'r.u=e=>"static/chunks/"+({%d:"framework",%d:"main"}[e]||e)+"."+{%s}[e]+".js",r.miniCssF=e=>"static/css/"+{%d:"%s"}[e]+".css",'
          'r.p="/_next/",r.nc=void 0})();' % (ids[0], ids[1], m1, ids[2], hexs(16)))
    ls = ["framework-%s.js" % hexs(16), "main-%s.js" % hexs(16), "webpack-%s.js" % hexs(16), "pages/_app-%s.js" % hexs(16)]
    return runs(c, [("ls .next/static/chunks | head -4", "\n".join(ls)), ("head -c 600 .next/static/chunks/" + ls[2], js),
                    ("cat .next/BUILD_ID", fresh(B64U, 21))])


def n_jq_fixture_base64_blobs(c):
    txt = "Invoice %s-%04d\nAmount due: %d.%02d EUR\nThank you for your business.\n" % (c.org.upper()[:3], R.randint(1, 9999), R.randint(10, 900), R.randint(0, 99))
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", 16, 16) + b"\x08\x06\x00\x00\x00" + rbytes(30)
    evt = json.dumps({"order_id": R.randint(1000, 99999), "status": "shipped", "carrier": pick(["dhl", "ups", "gls"])}, separators=(",", ":"))
    objs = [{"filename": "invoice.txt", "content_type": "text/plain", "data": b64e(txt.encode())},
            {"filename": "pixel.png", "content_type": "image/png", "data": b64e(png)}]
    steps = [("jq '.attachments[] | {filename, content_type, data}' tests/fixtures/email_with_attachments.json", "\n".join(json.dumps(o, indent=2) for o in objs)),
             ("jq -r '.message.data, .nextPageToken' tests/fixtures/pubsub_push.json", b64e(evt.encode()) + "\n" + b64e(json.dumps({"offset": R.randint(20, 400)}).encode()))]
    return runs(c, steps)


# ------------------------------------------------ public keys and certs ---

def n_claude_read_public_pem(c):
    pub = public_pem()
    pk = "\n".join(pub)
    path = pick(["config/jwt/public.pem", "keys/token_verify.pub.pem", "tests/fixtures/keys/rs256.pub"])
    if c.style == "claude":
        first = "\u23fa Read(%s)\n%s" % (path, numbered(pk, 1, "read"))
    else:
        first = show_file(c, path, pk, how=pick(["cat", "cat_n", "bat"]))
    ak = "\n".join(ssh_pub_ed25519("deploy@%s" % c.proj) for _ in range(R.randint(1, 2)))
    return first + "\n\n" + run(c, "cat deploy/authorized_keys", ak)


def n_dev_ca_crt_fingerprint(c):
    cn = "%s dev CA" % c.proj
    lines, der = certificate_pem(cn)
    fp = hashlib.sha256(der).hexdigest().upper()
    fp = ":".join(fp[i:i + 2] for i in range(0, 64, 2))
    serial = hexs(40).upper()
    return runs(c, [("cat certs/dev-ca.crt", "\n".join(lines)),
                    ("openssl x509 -noout -fingerprint -sha256 -serial -subject -in certs/dev-ca.crt",
                     "sha256 Fingerprint=%s\nserial=%s\nsubject=CN=%s" % (fp, serial, cn))])


# ----------------------------------------- masked, referenced, names only ---

def n_env_grep_masked_tails(c):
    names = shuffled([("OPENAI_API_KEY", "sk-p"), ("STRIPE_SECRET_KEY", "sk_l"), ("GITHUB_TOKEN", "ghp_"), ("ANTHROPIC_API_KEY", "sk-a"),
                      ("SENTRY_AUTH_TOKEN", "sntr"), ("DATABASE_PASSWORD", rc(ALNUM, 4)), ("SLACK_BOT_TOKEN", "xoxb")])[:R.randint(3, 5)]
    out1 = "\n".join("%s=%s\u2026%s" % (n, p, rc(ALNUM, 4)) for n, p in names)
    return runs(c, [("env | grep -E 'KEY|TOKEN|SECRET|PASSWORD' | sed -E 's/=(.{4}).*(.{4})$/=\\1\u2026\\2/'", out1),
                    ("printenv GITHUB_TOKEN | wc -c", str(pick([41, 94]))),
                    ("[ -n \"$SENTRY_AUTH_TOKEN\" ] && echo set || echo unset", "set")])


def n_dotenv_tpl_secret_refs(c):
    lines = ["# resolved at runtime by `op run --env-file=.env.tpl`", "STRIPE_SECRET_KEY=op://Engineering/Stripe %s/credential" % c.proj,
             "DATABASE_URL=op://Engineering/%s-db/connection-string" % c.proj, "SENDGRID_API_KEY=op://Shared/SendGrid/api key",
             "JWT_SECRET={{ op://Engineering/%s/jwt-secret }}" % c.proj, "DOPPLER_TOKEN=", "VAULT_ADDR=https://vault.%s:8200" % c.domain,
             "REDIS_PASSWORD=vault:secret/data/%s/redis#password" % c.proj, "GCP_SA_KEY=gcp:secretmanager:projects/%s-prod/secrets/sa-key/versions/latest" % c.org]
    return runs(c, [("cat .env.tpl", "\n".join(lines)), ("op run --env-file=.env.tpl -- printenv STRIPE_SECRET_KEY", "<concealed by 1Password>")])


def n_compgen_e_secret_names(c):
    names = sorted(shuffled(["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN",
                             "OPENAI_API_KEY", "SENTRY_AUTH_TOKEN", "STRIPE_SECRET_KEY", "DATABASE_PASSWORD", "PGPASSWORD", "HF_TOKEN",
                             "CODECOV_TOKEN", "SSH_AUTH_SOCK", "GPG_TTY", "VAULT_TOKEN"])[:R.randint(6, 10)])
    py = "[" + ", ".join("'%s'" % n for n in names if "TOKEN" in n) + "]"
    return runs(c, [("compgen -e | grep -iE 'key|token|secret|pass|auth'", "\n".join(names)),
                    ("python -c \"import os; print(sorted(k for k in os.environ if 'TOKEN' in k))\"", py)])


# -------------------------------------------------------- ids and hashes ---

def n_otel_js_console_span_dump(c):
    meth = pick(["POST", "GET"])
    out = ["{", "  resource: {", "    attributes: {", "      'service.name': '%s'," % c.proj, "      'telemetry.sdk.language': 'nodejs',",
           "      'telemetry.sdk.version': '1.%d.0'," % R.randint(20, 30), "      'host.id': '%s'" % hexs(32), "    }", "  },",
           "  instrumentationScope: { name: '@opentelemetry/instrumentation-http', version: '0.%d.0', schemaUrl: undefined }," % R.randint(50, 57),
           "  traceId: '%s'," % hexs(32), "  parentId: '%s'," % hexs(16), "  traceState: undefined,",
           "  name: '%s %s'," % (meth, pick(["/api/orders", "/api/session", "/api/tokens/verify"])), "  id: '%s'," % hexs(16),
           "  kind: 1,", "  timestamp: %d," % (epoch(c.t0) * 1000000 + R.randint(0, 999999)), "  duration: %d.%03d," % (R.randint(100, 90000), R.randint(0, 999)),
           "  attributes: {", "    'http.method': '%s'," % meth, "    'http.status_code': %d," % (201 if meth == "POST" else 200), "    'http.request.header.x_request_id': [ '%s' ]," % uuid4(),
           "    'http.user_agent': 'node-fetch/1.0'", "  },", "  status: { code: 0 },", "  events: [],", "  links: []", "}"]
    return run(c, "OTEL_TRACES_EXPORTER=console npm run dev 2>&1 | sed -n '/traceId/,+0p;1,40p' | head -40", "\n".join(out))


def n_nx_run_many_cache_hits(c):
    projs = shuffled(["shared-utils", "api", "web", "ui", "worker", "db"])[:R.randint(3, 5)]
    out = ["", "   \u2714  nx run %s:build  [existing outputs match the cache, left as is]" % projs[0]]
    for p in projs[1:-1]:
        out.append("   \u2714  nx run %s:build  [local cache]" % p)
    out.append("   \u2714  nx run %s:build (%ds)" % (projs[-1], R.randint(3, 60)))
    out += ["", " " + "\u2014" * 48, "", " NX   Successfully ran target build for %d projects (%ds)" % (len(projs), R.randint(3, 70)), "",
            "      Nx read the output from the cache instead of running the command for %d out of %d tasks." % (len(projs) - 1, len(projs))]
    hashes = [str(R.randint(10 ** 18, 10 ** 19 - 1)) for _ in range(4)]
    return runs(c, [("npx nx run-many -t build", "\n".join(out)), ("ls .nx/cache | head -4", "\n".join(hashes))])


def n_webauthn_challenge_test_log(c):
    opts = {"challenge": fresh(B64U, 43), "rp": {"name": c.proj, "id": "localhost"},
            "user": {"id": fresh(B64U, 22), "name": c.email, "displayName": c.fullname},
            "pubKeyCredParams": [{"alg": -8, "type": "public-key"}, {"alg": -7, "type": "public-key"}, {"alg": -257, "type": "public-key"}],
            "timeout": 60000, "attestation": "none", "excludeCredentials": [{"id": fresh(B64U, 43), "type": "public-key", "transports": ["internal", "hybrid"]}],
            "authenticatorSelection": {"residentKey": "required", "userVerification": "preferred"}}
    ver = {"verified": True, "registrationInfo": {"fmt": "none", "aaguid": uuid4(), "credentialID": fresh(B64U, 43),
                                                  "credentialPublicKey": "pQECAyYgASFYI" + fresh(B64U, 76), "counter": 0,
                                                  "credentialDeviceType": "multiDevice", "credentialBackedUp": True}}
    out = [" \u2713 passkeys > generates registration options (%d ms)" % R.randint(2, 40), "stdout | tests/passkeys.test.ts > passkeys > verifies attestation",
           "options " + json.dumps(opts, separators=(",", ":")), "verification " + json.dumps(ver, separators=(",", ":")),
           " \u2713 passkeys > verifies attestation (%d ms)" % R.randint(5, 90)]
    return run(c, "npx vitest run tests/passkeys.test.ts --reporter=verbose", "\n".join(out))


def n_importmap_pins_integrity(c):
    pins = ["application", "@hotwired/turbo-rails", "@hotwired/stimulus", "@hotwired/stimulus-loading", "controllers/hello_controller"]
    imports = {}
    integ = {}
    for p in pins:
        path = "/assets/%s-%s.js" % (p.split("/")[-1].replace("@", ""), hexs(8))
        imports[p] = path
        integ[path] = sri("sha384")
    js = json.dumps({"imports": imports, "integrity": integ}, indent=2)
    return runs(c, [("cat config/importmap.rb", "\n".join(['pin "application"', 'pin "@hotwired/turbo-rails", to: "turbo.min.js", integrity: true',
                                                            'pin "@hotwired/stimulus", to: "stimulus.min.js"', 'pin_all_from "app/javascript/controllers", under: "controllers"'])),
                    ("bin/importmap json", js)])


def n_sqlite3_box_uuid_rows(c):
    rows = []
    for i in range(R.randint(3, 5)):
        rows.append([uuid4(), ulid(), hexs(12), pick(["succeeded", "failed", "running"]), ymd_hms(c.at(-R.randint(0, 900000)))])
    out = box_table(["id", "external_id", "commit_sha", "status", "created_at"], rows)
    return run(c, "sqlite3 -box db/development.sqlite3 'select id, external_id, substr(commit_sha,1,12) as commit_sha, status, created_at from deployments order by created_at desc limit 5;'", out)


def n_lockfile_conflict_markers(c):
    name = pick(["@babel/core", "postcss", "esbuild", "typescript"])
    v1, v2 = "%d.%d.%d" % (R.randint(1, 8), R.randint(0, 30), R.randint(0, 9)), "%d.%d.%d" % (R.randint(1, 8), R.randint(0, 30), R.randint(0, 9))
    def ent(v):
        return ['"%s@^%s":' % (name, v.split(".")[0] + ".0.0"), '  version "%s"' % v,
                '  resolved "https://registry.yarnpkg.com/%s/-/%s-%s.tgz#%s"' % (name, name.split("/")[-1], v, sha40()),
                "  integrity " + sri()]
    out = ["<<<<<<< HEAD"] + ent(v1) + ["======="] + ent(v2) + [">>>>>>> %s" % pick(["origin/main", "renovate/%s" % name.replace("@", "").replace("/", "-")])]
    return runs(c, [("git diff --name-only --diff-filter=U", "yarn.lock"), ("grep -n -A9 '^<<<<<<<' yarn.lock | head -20",
                    "\n".join("%d%s%s" % (100 + i, ":" if i == 0 else "-", l) for i, l in enumerate(out)))])


def n_secret_scanner_masked_findings(c):
    f = pick([".env.staging", "config/deploy.yml", "scripts/seed.ts"])
    masked = "sk_live_51" + "*" * R.randint(60, 90) + rc(ALNUM, 2)
    out = ["secret scan path: scanning %d files" % R.randint(10, 400),
           "\U0001f6e1\ufe0f  \u2694\ufe0f  \U0001f6e1\ufe0f  1 incident has been found in file %s" % f, "",
           ">>> Incident 1(Secrets detection): Stripe Keys (Ignore with SHA: %s) (1 occurrence)" % sha64(),
           "   2 | APP_ENV=staging", "   3 | STRIPE_SECRET_KEY=" + masked,
           "                         |" + "_" * 30 + "apikey" + "_" * 30 + "|", "   4 | LOG_LEVEL=info", "",
           "If you believe this is a false positive, run `ggshield secret ignore --last-found`."]
    return run(c, "ggshield secret scan path -r . --exit-zero", "\n".join(out))


def od_c(data):
    out = []
    names = {10: "\\n", 9: "\\t", 13: "\\r", 0: "\\0"}
    for off in range(0, len(data), 16):
        chunk = data[off:off + 16]
        cells = []
        for b in chunk:
            if b in names:
                cells.append("%4s" % names[b])
            elif 32 <= b < 127:
                cells.append("%4s" % chr(b))
            else:
                cells.append(" %03o" % b)
        out.append("%07o" % off + "".join(cells))
    out.append("%07o" % len(data))
    return "\n".join(out)


def n_od_c_env_example_dump(c):
    txt = ("API_KEY=changeme\nSTRIPE_SECRET_KEY=sk_test_xxx\nDATABASE_URL=postgres://user:password@localhost/%s\nJWT_SECRET=\nSLACK_TOKEN=<your-token>\r\n" % dbname(c))
    if chance(0.5):
        return run(c, "od -c .env.example", od_c(txt.encode()))
    data = txt.encode()
    out = []
    for off in range(0, len(data), 16):
        ch = data[off:off + 16]
        hx = " ".join("%02x" % b for b in ch[:8]) + "  " + " ".join("%02x" % b for b in ch[8:])
        out.append("%08x  %-48s |%s|" % (off, hx, "".join(chr(b) if 32 <= b < 127 else "." for b in ch)))
    out.append("%08x" % len(data))
    return run(c, "hexdump -C .env.example", "\n".join(out))


def n_column_t_users_hashed_csv(c):
    rows = [("id", "email", "name", "password_hash", "api_key_sha256")]
    for i in range(R.randint(3, 4)):
        nm = pick(CJK_NAMES) if chance(0.5) else pick(FULLNAMES)
        rows.append((uuid4(), "%s@%s" % (pick(USERS), c.domain), nm, pick([bcrypt_hash, argon2_hash])(), sha64()))
    w = [max(vislen(r[i]) for r in rows) for i in range(5)]
    out = ["  ".join(r[i] + " " * (w[i] - vislen(r[i])) for i in range(5)).rstrip() for r in rows]
    return run(c, "column -s, -t < db/seeds/admins.csv", "\n".join(out))


def n_example_config_placeholders_read(c):
    lines = ["# Copy to config/secrets.yml and fill in real values.", "default: &default", "  stripe:", "    secret_key: sk_test_xxxxxxxxxxxxxxxxxxxxxxxx",
             "    webhook_secret: whsec_...", "  openai:", "    api_key: ${OPENAI_API_KEY}", "  smtp:", "    password: changeme",
             "  github:", "    token: <your-token>", "  sentry_dsn: https://<key>@o0.ingest.sentry.io/0", "  jwt_secret: REPLACE_ME",
             "  encryption_key: 0000000000000000000000000000000000000000000000000000000000000000", "  slack_webhook: https://hooks.slack.com/services/XXX/YYY/ZZZ",
             "", "development:", "  <<: *default", "", "test:", "  <<: *default", "  smtp:", "    password: test-password"]
    return show_file(c, pick(["config/secrets.example.yml", "config/credentials.sample.yml"]), "\n".join(lines))


# ===========================================================================
# MAIN
# ===========================================================================

POSITIVE = [
    ("rg_json_match_events", p_rg_json_match_events),
    ("rg_c2_context_source", p_rg_c2_context_source),
    ("grep_rn_fixture_payloads", p_grep_rn_fixture_payloads),
    ("ag_grouped_php_config", p_ag_grouped_php_config),
    ("git_grep_rev_prefixed", p_git_grep_rev_prefixed),
    ("fd_xargs_head_env_files", p_fd_xargs_head_env_files),
    ("rg_only_matching_hooks", p_rg_only_matching_hooks),
    ("git_diff_env_rotation", p_git_diff_env_rotation),
    ("git_show_workflow_env_token", p_git_show_workflow_env_token),
    ("conflict_markers_env_cat", p_conflict_markers_env_cat),
    ("git_blame_range_initializer", p_git_blame_range_initializer),
    ("format_patch_compose_password", p_format_patch_compose_password),
    ("git_diff_word_diff_tokens", p_git_diff_word_diff_tokens),
    ("git_log_p_pem_fixture_added", p_git_log_p_pem_fixture_added),
    ("combined_diff_merge_conflict_yaml", p_combined_diff_merge_conflict_yaml),
    ("pytest_vv_dict_full_diff", p_pytest_vv_dict_full_diff),
    ("jest_called_with_auth_header", p_jest_called_with_auth_header),
    ("cargo_test_panic_debug_struct", p_cargo_test_panic_debug_struct),
    ("testify_not_equal_struct_diff", p_testify_not_equal_struct_diff),
    ("rspec_webmock_unregistered_request", p_rspec_webmock_unregistered_request),
    ("phpunit_array_equal_failure", p_phpunit_array_equal_failure),
    ("pytest_captured_log_headers", p_pytest_captured_log_headers),
    ("python_dataclass_settings_repr", p_python_dataclass_settings_repr),
    ("rust_dbg_macro_pretty", p_rust_dbg_macro_pretty),
    ("go_sharp_v_config_print", p_go_sharp_v_config_print),
    ("jvm_tostring_log_lines", p_jvm_tostring_log_lines),
    ("rails_console_pp_credentials", p_rails_console_pp_credentials),
    ("iex_inspect_repo_config", p_iex_inspect_repo_config),
    ("php_print_r_services", p_php_print_r_services),
    ("node_console_log_config_object", p_node_console_log_config_object),
    ("csharp_record_printmembers", p_csharp_record_printmembers),
    ("pydantic_model_dump_json", p_pydantic_model_dump_json),
    ("sentry_event_frame_vars", p_sentry_event_frame_vars),
    ("laravel_ignition_text_report", p_laravel_ignition_text_report),
    ("node_err_invalid_url_input", p_node_err_invalid_url_input),
    ("curl_verbose_api_key_setcookie", p_curl_verbose_api_key_setcookie),
    ("http_client_debuglevel_send", p_http_client_debuglevel_send),
    ("oauth_token_form_body_log", p_oauth_token_form_body_log),
    ("wget_debug_request_begin", p_wget_debug_request_begin),
    ("rest_client_http_file", p_rest_client_http_file),
    ("laravel_dotenv_read_tool", p_laravel_dotenv_read_tool),
    ("spring_yq_datasource_eval", p_spring_yq_datasource_eval),
    ("next_config_env_block", p_next_config_env_block),
    ("phoenix_runtime_exs_fallbacks", p_phoenix_runtime_exs_fallbacks),
    ("aspnet_appsettings_dev_jq", p_aspnet_appsettings_dev_jq),
    ("rails_credentials_edit_cat", p_rails_credentials_edit_cat),
    ("json_log_escaped_request_body", p_json_log_escaped_request_body),
    ("logfmt_debug_dsn", p_logfmt_debug_dsn),
    ("orm_sql_log_bind_params", p_orm_sql_log_bind_params),
    ("js_registry_auth_configs", p_js_registry_auth_configs),
    ("py_ruby_index_credentials", p_py_ruby_index_credentials),
    ("cat_A_dotenv_visible", p_cat_A_dotenv_visible),
    ("column_t_seed_users_csv", p_column_t_seed_users_csv),
    ("diff_u_staging_prod_yaml", p_diff_u_staging_prod_yaml),
    ("jq_seed_fixture_tokens", p_jq_seed_fixture_tokens),
    ("devcontainer_json_remote_env", p_devcontainer_json_remote_env),
    ("bruno_env_bru_file", p_bruno_env_bru_file),
    ("sqlite3_box_mode_tokens", p_sqlite3_box_mode_tokens),
    ("trufflehog_raw_results", p_trufflehog_raw_results),
    ("claude_read_pem_fixture", p_claude_read_pem_fixture),
]

NEGATIVE = [
    ("git_log_pretty_fuller_shas", n_git_log_pretty_fuller_shas),
    ("git_patch_id_cherry", n_git_patch_id_cherry),
    ("git_submodule_status_shas", n_git_submodule_status_shas),
    ("git_diff_bun_lock_bump", n_git_diff_bun_lock_bump),
    ("git_diff_settings_env_reads", n_git_diff_settings_env_reads),
    ("rg_secretish_identifiers", n_rg_secretish_identifiers),
    ("grep_docs_example_credentials", n_grep_docs_example_credentials),
    ("docs_jwt_examples_rfc", n_docs_jwt_examples_rfc),
    ("pytest_digest_mismatch_diff", n_pytest_digest_mismatch_diff),
    ("vitest_snapshot_classnames", n_vitest_snapshot_classnames),
    ("cargo_test_digest_vectors", n_cargo_test_digest_vectors),
    ("go_test_v_struct_ids", n_go_test_v_struct_ids),
    ("rails_log_filtered_parameters", n_rails_log_filtered_parameters),
    ("python_repr_settings_refs", n_python_repr_settings_refs),
    ("rust_debug_secrecy_redacted", n_rust_debug_secrecy_redacted),
    ("jvm_tostring_masked_props", n_jvm_tostring_masked_props),
    ("ruby_inspect_object_addresses", n_ruby_inspect_object_addresses),
    ("iex_inspect_pids_refs", n_iex_inspect_pids_refs),
    ("php_var_dump_hash_values", n_php_var_dump_hash_values),
    ("node_repl_buffers_objectids", n_node_repl_buffers_objectids),
    ("csharp_record_guid_etag", n_csharp_record_guid_etag),
    ("sentry_event_scrubbed_json", n_sentry_event_scrubbed_json),
    ("rich_locals_nonsecret_values", n_rich_locals_nonsecret_values),
    ("curl_v_tls_session_headers", n_curl_v_tls_session_headers),
    ("httpie_response_integrity_headers", n_httpie_response_integrity_headers),
    ("urllib3_debug_paths_shas", n_urllib3_debug_paths_shas),
    ("multipart_upload_boundaries", n_multipart_upload_boundaries),
    ("spring_yml_property_placeholders", n_spring_yml_property_placeholders),
    ("django_settings_env_lookups", n_django_settings_env_lookups),
    ("laravel_config_env_helpers", n_laravel_config_env_helpers),
    ("vite_env_types_declaration", n_vite_env_types_declaration),
    ("phx_digest_and_env_fetch", n_phx_digest_and_env_fetch),
    ("aspnet_launchsettings_profiles", n_aspnet_launchsettings_profiles),
    ("rails_credentials_yml_enc_cat", n_rails_credentials_yml_enc_cat),
    ("pino_json_redacted_fields", n_pino_json_redacted_fields),
    ("logfmt_request_span_ids", n_logfmt_request_span_ids),
    ("orm_log_digest_columns", n_orm_log_digest_columns),
    ("npmrc_env_var_interpolation", n_npmrc_env_var_interpolation),
    ("pip_install_verbose_links", n_pip_install_verbose_links),
    ("composer_lock_source_refs", n_composer_lock_source_refs),
    ("buildx_imagetools_inspect", n_buildx_imagetools_inspect),
    ("dockerfile_from_digest_pins", n_dockerfile_from_digest_pins),
    ("css_bundle_hashed_selectors", n_css_bundle_hashed_selectors),
    ("webpack_runtime_chunk_map", n_webpack_runtime_chunk_map),
    ("jq_fixture_base64_blobs", n_jq_fixture_base64_blobs),
    ("claude_read_public_pem", n_claude_read_public_pem),
    ("dev_ca_crt_fingerprint", n_dev_ca_crt_fingerprint),
    ("env_grep_masked_tails", n_env_grep_masked_tails),
    ("dotenv_tpl_secret_refs", n_dotenv_tpl_secret_refs),
    ("compgen_e_secret_names", n_compgen_e_secret_names),
    ("otel_js_console_span_dump", n_otel_js_console_span_dump),
    ("nx_run_many_cache_hits", n_nx_run_many_cache_hits),
    ("webauthn_challenge_test_log", n_webauthn_challenge_test_log),
    ("importmap_pins_integrity", n_importmap_pins_integrity),
    ("sqlite3_box_uuid_rows", n_sqlite3_box_uuid_rows),
    ("lockfile_conflict_markers", n_lockfile_conflict_markers),
    ("secret_scanner_masked_findings", n_secret_scanner_masked_findings),
    ("od_c_env_example_dump", n_od_c_env_example_dump),
    ("column_t_users_hashed_csv", n_column_t_users_hashed_csv),
    ("example_config_placeholders_read", n_example_config_placeholders_read),
]

ROWS_PER_TEMPLATE = 5
SCHEME_RE = re.compile(r"(?i)^(bearer|basic|token|bot|ssws|apikey|api-key)[ :=]")
GUTTER_RE = re.compile(r"^([ \t\u2502\u23bf\u2514\u2570\u256d+]|-(?!----)|\d+(\u2192|\t| +\u2502))")


def check_marks(rid, text):
    depth = 0
    for ch in text:
        if ch == "\u00ab":
            assert depth == 0, "row %d: nested or unbalanced «" % rid
            depth = 1
        elif ch == "\u00bb":
            assert depth == 1, "row %d: unbalanced »" % rid
            depth = 0
    assert depth == 0, "row %d: unclosed «" % rid
    spans = MARK_RE.findall(text)
    for s in spans:
        assert s, "row %d: empty mark" % rid
        assert s == s.strip(), "row %d: mark with outer whitespace %r" % (rid, s[:40])
        assert s[0] not in "'\"`" and s[-1] not in "'\"`", "row %d: mark begins/ends with quote %r" % (rid, s[:40])
        assert not SCHEME_RE.match(s), "row %d: mark starts with a scheme word %r" % (rid, s[:40])
        for cont in s.split("\n")[1:]:
            assert not GUTTER_RE.match(cont), "row %d: multi-line mark crosses a line prefix: %r" % (rid, cont[:40])
    return spans


def sibling_template_names():
    here = os.path.dirname(os.path.abspath(__file__))
    names = set()
    for d in ["agent_tuning"] + ["agent_tuning_%d" % i for i in range(2, 9)]:
        p = os.path.join(here, "..", d, "README.md")
        if os.path.exists(p):
            with open(p, encoding="utf-8") as fh:
                for w in re.findall(r"`([a-z0-9_]+)`", fh.read()):
                    names.add(w)
    return names


def main():
    rows = []
    rid = 0
    for positive, table in ((True, POSITIVE), (False, NEGATIVE)):
        for name, fn in table:
            for _ in range(ROWS_PER_TEMPLATE):
                rid += 1
                c = Ctx()
                text = fn(c)
                rows.append({"id": rid, "template": name, "positive": positive, "text": text})

    names = [n for n, _ in POSITIVE] + [n for n, _ in NEGATIVE]
    assert len(POSITIVE) == 60 and len(NEGATIVE) == 60, (len(POSITIVE), len(NEGATIVE))
    assert len(names) == len(set(names)) == 120, "template names not distinct"
    taken = sibling_template_names()
    clash = [n for n in names if n in taken]
    assert not clash, "template names used by other sets: %r" % clash
    assert len(rows) == 600

    owner = {}
    nspans = 0
    plain = [unmark(r["text"]) for r in rows]
    for r in rows:
        t = r["text"]
        if not r["positive"]:
            assert "\u00ab" not in t and "\u00bb" not in t, "negative row %d has marks" % r["id"]
            continue
        spans = check_marks(r["id"], t)
        assert spans, "positive row %d has no mark" % r["id"]
        nspans += len(spans)
        masked = MARK_RE.sub("\x00", t)
        for s in spans:
            if len(s) < 8:
                continue
            assert s not in masked, "row %d: secret also appears unmarked: %r" % (r["id"], s[:40])
            if s in owner:
                assert owner[s] == r["id"], "secret %r repeats in rows %d and %d" % (s[:40], owner[s], r["id"])
            owner[s] = r["id"]
    for s, own in owner.items():
        for i, p in enumerate(plain):
            if rows[i]["id"] != own and s in p:
                raise AssertionError("secret %r of row %d appears in row %d" % (s[:40], own, rows[i]["id"]))

    out = sys.stdout.buffer
    for r in rows:
        out.write((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8"))
    out.flush()
    sys.stderr.write("agent_tuning_9: %d rows (%d positive, %d negative), %d templates, %d marked spans\n"
                     % (len(rows), sum(1 for r in rows if r["positive"]), sum(1 for r in rows if not r["positive"]),
                        len(names), nspans))


if __name__ == "__main__":
    main()
