#!/usr/bin/env python3
"""Twelfth tuning set: build, release, signing and publishing.

Python 3, standard library only, one random.Random(1212). Deterministic:
no clock, no environment, no set or hash iteration order. Writes one JSON
object per line to stdout as UTF-8 bytes, and a one-line summary to stderr.
Secrets are wrapped in U+00AB / U+00BB marks.
"""
import base64
import hashlib
import json
import os
import re
import struct
import sys
import zlib

import random

R = random.Random(1212)

LOWER = "abcdefghijklmnopqrstuvwxyz"
UPPER = LOWER.upper()
DIGITS = "0123456789"
ALNUM = UPPER + LOWER + DIGITS
B62 = DIGITS + UPPER + LOWER
HEX = "0123456789abcdef"
B32L = LOWER + "234567"
URLSAFE = ALNUM + "-_"
B64CH = ALNUM + "+/"

OPEN, CLOSE = "\u00ab", "\u00bb"

POS, NEG = [], []


def lengthen(fn):
    """Run a template; about half the time bury its output among ordinary commands (40-150 lines)."""
    def run():
        text = fn()
        c = Ctx.last
        if text.count("\n") + 1 >= 40 or not chance(0.36):
            return text
        main = c.blocks
        before, after = [], []
        for f in R.sample(FILLERS, 4):
            c.blocks = []
            f(c)
            (before if chance(0.5) else after).extend(c.blocks)
            total = "\n".join(before + main + after).count("\n") + 1
            if total >= 40:
                break
        c.blocks = before + main + after
        while c.text().count("\n") + 1 > 150 and (before or after):
            (before if before else after).pop(0 if before else -1)
            c.blocks = before + main + after
        return c.text()
    return run


def pos(name):
    def deco(fn):
        POS.append((name, lengthen(fn)))
        return fn
    return deco


def neg(name):
    def deco(fn):
        NEG.append((name, lengthen(fn)))
        return fn
    return deco


# ---------------------------------------------------------------- registry
REG = set()          # every random string drawn (8+ chars), secrets and look-alikes alike


def fresh(fn):
    for _ in range(200):
        v = fn()
        if len(v) < 8 or v not in REG:
            if len(v) >= 8:
                REG.add(v)
            return v
    raise AssertionError("registry could not draw a fresh value")


def rstr(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def rs(alpha, n, pre="", suf=""):
    return fresh(lambda: pre + rstr(alpha, n) + suf)


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def hexs(n):
    return rs(HEX, n)


def HEXU(n):
    return rs(HEX.upper(), n)


def sha1():
    return hexs(40)


def sha256():
    return hexs(64)


def b64e(b):
    return base64.b64encode(b).decode()


def b64u(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def b64n(nbytes):
    return fresh(lambda: b64e(rbytes(nbytes)))


def b64un(nbytes):
    return fresh(lambda: b64u(rbytes(nbytes)))


def uuid4():
    def f():
        h = rstr(HEX, 32)
        h = h[:12] + "4" + h[13:16] + R.choice("89ab") + h[17:]
        return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    return fresh(f)


def uuid_hex():
    return uuid4().replace("-", "")


def sri512():
    return "sha512-" + b64n(64)


def base62(n):
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = B62[r] + s
    return s or "0"


def m(s):
    """Mark a secret."""
    assert s and s == s.strip(), repr(s)
    return OPEN + s + CLOSE


def unmark(s):
    return s.replace(OPEN, "").replace(CLOSE, "")


def pick(seq):
    return R.choice(seq)


def chance(p):
    return R.random() < p


def shuffled(seq):
    s = list(seq)
    R.shuffle(s)
    return s


# ---------------------------------------------------------------- secrets
def gh_token(prefix="ghp_"):
    def f():
        body = rstr(ALNUM, 30)
        cs = base62(zlib.crc32(body.encode()) & 0xFFFFFFFF).rjust(6, "0")
        return prefix + body + cs
    return fresh(f)


def npm_token():
    return gh_token("npm_")


def github_pat():
    return fresh(lambda: "github_pat_11" + rstr(UPPER + DIGITS, 7) + "0" + rstr(ALNUM, 12) + "_" + rstr(ALNUM, 59))


def glpat():
    if chance(0.3):
        return fresh(lambda: "glpat-" + rstr(URLSAFE, 27) + ".01." + rstr(LOWER + DIGITS, 9))
    return rs(URLSAFE, 20, "glpat-")


def glrt():
    if chance(0.5):
        return rs(URLSAFE, 20, "glrt-t%d_" % R.randint(1, 3))
    return rs(URLSAFE, 20, "glrt-")


def glptt():
    return rs(HEX, 40, "glptt-")


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def pypi_token(test=False, project=None):
    def f():
        loc = b"test.pypi.org" if test else b"pypi.org"
        ident = uuid4().encode()
        mac = b"\x02" + b"\x01" + varint(len(loc)) + loc + b"\x02" + varint(len(ident)) + ident + b"\x00"
        if project:
            cav = ('{"permissions": {"projects": ["%s"]}, "version": 1}' % project).encode()
        else:
            cav = b'{"permissions": "user", "version": 1}'
        mac += b"\x02" + varint(len(cav)) + cav + b"\x00"
        if chance(0.6):
            cav2 = ('{"exp": %d, "nbf": %d}' % (1767225600 + R.randint(0, 9999999), 1735689600 + R.randint(0, 9999999))).encode() if chance(0.3) else ('[1,["%s"],"%s"]' % (project or "pkg", uuid4())).encode()
            mac += b"\x02" + varint(len(cav2)) + cav2 + b"\x00"
        mac += b"\x00\x06\x20" + rbytes(32)
        return "pypi-" + b64u(mac)
    return fresh(f)


def crates_token():
    return rs(ALNUM, 32, "cio")


def rubygems_key():
    return rs(HEX, 48, "rubygems_")


def nuget_key():
    return rs(LOWER + DIGITS, 43, "oy2")


def dckr_pat():
    return rs(URLSAFE, 27, "dckr_pat_")


def jfrog_ref_token():
    return fresh(lambda: b64e(("reftkn:01:%d:%s" % (1767225600 + R.randint(0, 99999999), rstr(ALNUM, 32))).encode()))


def jfrog_apikey():
    return rs(ALNUM, 68, "AKCp8")


def jwt(header, payload, siglen=256):
    h = b64u(json.dumps(header, separators=(",", ":")).encode())
    p = b64u(json.dumps(payload, separators=(",", ":")).encode())
    return fresh(lambda: h + "." + p + "." + b64u(rbytes(siglen)))


def ts_epoch():
    return 1717000000 + R.randint(0, 40000000)


def jfrog_access_token(user="admin"):
    sid = "01h" + rstr(LOWER + DIGITS, 23)
    kid = rstr(URLSAFE, 43)
    iat = ts_epoch()
    return jwt({"ver": "2", "typ": "JWT", "alg": "RS256", "kid": kid},
               {"ext": '{"revocable":"true"}', "sub": "jfac@%s/users/%s" % (sid, user), "scp": "applied-permissions/user",
                "aud": "*@*", "iss": "jfac@%s" % sid, "exp": iat + 31536000, "iat": iat, "jti": uuid4()})


def k8s_sa_jwt(ns, sa):
    iat = ts_epoch()
    return jwt({"alg": "RS256", "kid": rstr(URLSAFE, 43)},
               {"aud": ["https://kubernetes.default.svc.cluster.local"], "exp": iat + 3600, "iat": iat,
                "iss": "https://kubernetes.default.svc.cluster.local",
                "kubernetes.io": {"namespace": ns, "serviceaccount": {"name": sa, "uid": uuid4()}},
                "nbf": iat, "sub": "system:serviceaccount:%s:%s" % (ns, sa)})


def codeartifact_token():
    def f():
        iat = ts_epoch()
        hdr = {"ver": 1, "isu": iat, "enc": "A128GCM", "tag": b64u(rbytes(16)), "exp": iat + 43200,
               "alg": "A128GCMKW", "iv": b64u(rbytes(12))}
        return (b64u(json.dumps(hdr, separators=(",", ":")).encode()) + "." + b64u(rbytes(16)) + "."
                + b64u(rbytes(12)) + "." + b64u(rbytes(R.randint(560, 720))) + "." + b64u(rbytes(16)))
    return fresh(f)


def azdo_pat():
    if chance(0.5):
        return rs(B32L, 52)
    return fresh(lambda: rstr(ALNUM, 52) + "JQQJ99" + rstr(ALNUM, 18) + "AZDO" + rstr(ALNUM, 4))


def atbb():
    def f():
        body = "ATBB" + rstr(ALNUM, 32)
        return body + ("%08X" % (zlib.crc32(body.encode()) & 0xFFFFFFFF))
    return fresh(f)


def atatt():
    def f():
        body = "ATATT3xFfGF0" + rstr(URLSAFE, 171)
        return body + "=" + ("%08X" % (zlib.crc32(body.encode()) & 0xFFFFFFFF))
    return fresh(f)


def teamcity_token():
    return fresh(lambda: "eyJ0eXAiOiAiVENWMiJ9." + b64u(rstr(URLSAFE, 27).encode()) + "." + b64u(uuid4().encode()))


def jenkins_api_token():
    return rs(HEX, 32, "11")


def circle_pat():
    return fresh(lambda: "CCIPAT_" + rstr(ALNUM, 22) + "_" + rstr(HEX, 40))


def circle_project_token():
    return fresh(lambda: "CCIPRJ_" + rstr(ALNUM, 22) + "_" + rstr(HEX, 40))


def bk_api_token():
    return rs(HEX, 40, "bkua_")


def bk_agent_token():
    return rs(HEX, 50)


def gitea_oauth_secret():
    return rs(B32L, 52, "gto_")


def quay_robot_token():
    return rs(UPPER + DIGITS, 64)


def tfc_token():
    return fresh(lambda: rstr(ALNUM, 14) + ".atlasv1." + rstr(ALNUM, 67))


def gocspx():
    return rs(URLSAFE, 28, "GOCSPX-")


def google_refresh():
    return fresh(lambda: "1//0" + R.choice("4569cdeg") + rstr(URLSAFE, 98))


def ya29():
    return fresh(lambda: "ya29.a0" + rstr(ALNUM, 10) + "_" + rstr(URLSAFE, 160))


def apple_app_pw():
    return fresh(lambda: "-".join(rstr(LOWER, 4) for _ in range(4)))


def cloudsmith_key():
    return hexs(40)


WORDS = ("anchor amber apricot arcade atlas autumn badger bamboo banjo basil beacon birch biscuit blossom bramble breeze "
         "bronze cactus canyon caramel cedar cello cherry cinder citrus clover cobalt comet copper coral cosmos cricket "
         "crimson cypress dahlia delta denim dingo dolphin dune eagle ember falcon fennel fjord flint fossil galaxy garnet "
         "gecko ginger glacier granite gravel harbor hazel heron hickory honey indigo iris ivory jasper juniper kayak kelp "
         "kettle kiwi lagoon lantern lemon lilac lotus lynx magnet mango maple marble meadow mercury mesa mint monsoon "
         "mosaic nectar nimbus nova nutmeg oasis obsidian olive onyx opal orbit orchid otter paprika pebble pepper "
         "pickle pine pixel plume polar prairie prism puffin quartz quill quokka radish raven reef ribbon river rocket "
         "saffron salmon sapphire scarlet sequoia shadow sierra silver sparrow spruce summit sundial tango tapir thistle "
         "thunder tiger topaz tulip tundra turtle umber velvet violet walnut willow wombat yarrow zephyr zinnia").split()
SEASONS = ["Summer", "Winter", "Spring", "Autumn", "Fall"]
PWWORDS = ["Release", "Deploy", "Welcome", "Keystore", "Android", "Signing", "Nexus", "Jenkins", "Artifact", "Publish",
           "Gradle", "Maven", "Harbor", "Sonatype", "Chocolate", "Monkey", "Dragon", "Sunshine", "Football", "Pipeline",
           "Builder", "Company", "Password", "Letmein", "Shadow", "Falcon", "Orange", "Passw0rd", "Qwerty", "Admin"]
PUNCT = "!@#$%^&*-_+=?"


def password(kind=None):
    kinds = ["season", "word", "dice", "mixed12", "gen20", "b64", "hex", "leet", "phrase"]
    k = kind or R.choice(kinds)

    def f():
        if k == "season":
            return R.choice(SEASONS) + str(R.randint(2019, 2026)) + R.choice("!#$@*?.")
        if k == "word":
            return R.choice(PWWORDS) + R.choice(["", "_", "-", "@", "."]) + str(R.randint(1, 9999)) + R.choice(["", "!", "#", "$", "?"])
        if k == "dice":
            return R.choice("-.") .join(R.choice(WORDS) for _ in range(R.randint(3, 4))) + R.choice(["", "-" + str(R.randint(10, 99))])
        if k == "mixed12":
            while True:
                s = rstr(ALNUM + "!#%&*@^", 12)
                if any(c in UPPER for c in s) and any(c in DIGITS for c in s) and any(c in LOWER for c in s):
                    return s
        if k == "gen20":
            return rstr(ALNUM, R.choice([16, 20, 24, 32]))
        if k == "b64":
            return b64e(rbytes(R.choice([18, 24, 30])))
        if k == "hex":
            return rstr(HEX, 32)
        if k == "leet":
            w = R.choice(WORDS)
            t = w.translate(str.maketrans({"a": "@", "o": "0", "e": "3", "i": "1", "s": "$"}))
            return t.capitalize() + R.choice(PUNCT) + str(R.randint(10, 999))
        if k == "phrase":
            return R.choice(WORDS).capitalize() + R.choice(WORDS).capitalize() + str(R.randint(1, 99)) + R.choice("!?#")
    return fresh(f)


def urlenc(s):
    out = []
    for ch in s:
        if ch in ALNUM + "-._~":
            out.append(ch)
        else:
            out.append("".join("%%%02X" % b for b in ch.encode()))
    return "".join(out)

# ---------------------------------------------------------------- DER / keys
def der_len(n):
    if n < 128:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def der(tag, content):
    return bytes([tag]) + der_len(len(content)) + content


def der_int(x):
    return der(0x02, x.to_bytes(max(1, (x.bit_length() + 8) // 8), "big"))


def der_seq(*items):
    return der(0x30, b"".join(items))


def der_oid(dotted):
    parts = [int(p) for p in dotted.split(".")]
    body = bytes([parts[0] * 40 + parts[1]])
    for p in parts[2:]:
        enc = [p & 0x7F]
        p >>= 7
        while p:
            enc.insert(0, 0x80 | (p & 0x7F))
            p >>= 7
        body += bytes(enc)
    return der(0x06, body)


OID_RSA = der_oid("1.2.840.113549.1.1.1")
OID_EC = der_oid("1.2.840.10045.2.1")
OID_P256 = der_oid("1.2.840.10045.3.1.7")
OID_ED25519 = der_oid("1.3.101.112")
SMALL_PRIMES = [p for p in range(3, 2000) if all(p % q for q in range(2, int(p ** 0.5) + 1))]


def is_prime(n):
    for p in SMALL_PRIMES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def gen_prime(bits):
    while True:
        n = R.getrandbits(bits) | (3 << (bits - 2)) | 1
        if is_prime(n):
            return n


def rsa_der(bits=2048, pkcs8=True):
    e = 65537
    while True:
        p, q = gen_prime(bits // 2), gen_prime(bits // 2)
        phi = (p - 1) * (q - 1)
        if p != q and phi % e:
            break
    if p < q:
        p, q = q, p
    n = p * q
    d = pow(e, -1, phi)
    pk1 = der_seq(der_int(0), der_int(n), der_int(e), der_int(d), der_int(p), der_int(q),
                  der_int(d % (p - 1)), der_int(d % (q - 1)), der_int(pow(q, -1, p)))
    if not pkcs8:
        return pk1
    return der_seq(der_int(0), der_seq(OID_RSA, b"\x05\x00"), der(0x04, pk1))


P256_P = 2 ** 256 - 2 ** 224 + 2 ** 192 + 2 ** 96 - 1
P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551
P256_G = (0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296,
          0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5)


def ec_add(P, Q):
    if P is None:
        return Q
    if Q is None:
        return P
    if P[0] == Q[0] and (P[1] + Q[1]) % P256_P == 0:
        return None
    if P == Q:
        lam = (3 * P[0] * P[0] - 3) * pow(2 * P[1], -1, P256_P) % P256_P
    else:
        lam = (Q[1] - P[1]) * pow(Q[0] - P[0], -1, P256_P) % P256_P
    x = (lam * lam - P[0] - Q[0]) % P256_P
    return (x, (lam * (P[0] - x) - P[1]) % P256_P)


def ec_mul(k, P):
    Rr = None
    while k:
        if k & 1:
            Rr = ec_add(Rr, P)
        P = ec_add(P, P)
        k >>= 1
    return Rr


def p256_pair():
    while True:
        k = R.getrandbits(256)
        if 1 <= k < P256_N:
            break
    X, Y = ec_mul(k, P256_G)
    return k.to_bytes(32, "big"), b"\x04" + X.to_bytes(32, "big") + Y.to_bytes(32, "big")


def ec_sec1(priv, pub, params=True):
    parts = [der_int(1), der(0x04, priv)]
    if params:
        parts.append(der(0xA0, OID_P256))
    parts.append(der(0xA1, der(0x03, b"\x00" + pub)))
    return der_seq(*parts)


def ec_pkcs8(priv, pub, inner_params=False):
    return der_seq(der_int(0), der_seq(OID_EC, OID_P256), der(0x04, ec_sec1(priv, pub, inner_params)))


def ec_spki(pub):
    return der_seq(der_seq(OID_EC, OID_P256), der(0x03, b"\x00" + pub))


def ed25519_pkcs8():
    return der_seq(der_int(0), der_seq(OID_ED25519), der(0x04, der(0x04, rbytes(32))))


def wrap64(s, w=64):
    return [s[i:i + w] for i in range(0, len(s), w)]


def pem_lines(label, blob, width=64):
    return ["-----BEGIN %s-----" % label] + wrap64(b64e(blob), width) + ["-----END %s-----" % label]


def mark_block(lines, per_line):
    """Mark a PEM-like block. Contiguous: one span from BEGIN to the end of END.
    Per line: every base64 body line on its own; BEGIN/END, headers, blanks and =CRC lines stay out."""
    lines = list(lines)
    if not per_line:
        lines[0] = OPEN + lines[0]
        lines[-1] = lines[-1] + CLOSE
        return lines
    out = []
    for ln in lines:
        if ln.startswith("-----") or ln.startswith("=") or not ln.strip() or ":" in ln:
            out.append(ln)
        else:
            out.append(m(ln))
    return out


def pem_marked(label, blob, per_line):
    return mark_block(pem_lines(label, blob), per_line)


def pem_escaped(label, blob):
    """One-line JSON/env string form: marked with \\n escapes inside, trailing \\n outside."""
    body = "\\n".join(pem_lines(label, blob))
    return m(body) + "\\n"


def rsa_pem_blob(pkcs8=True):
    return rsa_der(2048, pkcs8)


def pub_pem_ec():
    priv, pub = p256_pair()
    return "\n".join(pem_lines("PUBLIC KEY", ec_spki(pub)))


# ---------------------------------------------------------------- OpenPGP
def crc24(data):
    crc = 0xB704CE
    for b in data:
        crc ^= b << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def pgp_old(tag, body):
    if len(body) < 256:
        return bytes([0x80 | (tag << 2)]) + bytes([len(body)]) + body
    return bytes([0x80 | (tag << 2) | 1]) + struct.pack(">H", len(body)) + body


def mpi(b):
    x = int.from_bytes(b, "big")
    return struct.pack(">H", x.bit_length()) + b


def pgp_subpkt(typ, data):
    return bytes([len(data) + 1, typ]) + data


class PgpKey:
    """An ed25519 primary key with a cv25519 encryption subkey (GnuPG 2.2+ defaults)."""

    def __init__(self, name, email, created=None):
        self.created = created or (1640995200 + R.randint(0, 110000000))
        self.uid = ("%s <%s>" % (name, email)).encode()
        self.pub_body = (b"\x04" + struct.pack(">I", self.created) + b"\x16" + b"\x09\x2b\x06\x01\x04\x01\xda\x47\x0f\x01"
                         + b"\x01\x07\x40" + rbytes(32))
        self.fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(self.pub_body)) + self.pub_body).hexdigest().upper()
        self.keyid = self.fpr[-16:]
        self.sub_created = self.created
        self.sub_body = (b"\x04" + struct.pack(">I", self.sub_created) + b"\x12" + b"\x0a\x2b\x06\x01\x04\x01\x97\x55\x01\x05\x01"
                         + b"\x01\x07\x40" + rbytes(32) + b"\x03\x01\x08\x07")
        self.sub_fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(self.sub_body)) + self.sub_body).hexdigest().upper()
        self.keygrip = hexs(40).upper()
        self.sub_keygrip = hexs(40).upper()
        fresh(lambda: self.fpr)
        fresh(lambda: self.sub_fpr)

    def _sig(self, sigtype, flags):
        hashed = (pgp_subpkt(0x21, b"\x04" + bytes.fromhex(self.fpr)) + pgp_subpkt(0x02, struct.pack(">I", self.created))
                  + pgp_subpkt(0x1b, bytes([flags])))
        if sigtype == 0x13:
            hashed += (pgp_subpkt(0x0b, b"\x09\x08\x07\x02") + pgp_subpkt(0x15, b"\x0a\x09\x08\x0b\x02")
                       + pgp_subpkt(0x16, b"\x02\x03\x01") + pgp_subpkt(0x1e, b"\x01") + pgp_subpkt(0x17, b"\x80"))
        unhashed = pgp_subpkt(0x10, bytes.fromhex(self.keyid))
        body = (bytes([4, sigtype, 22, 10]) + struct.pack(">H", len(hashed)) + hashed + struct.pack(">H", len(unhashed))
                + unhashed + rbytes(2) + mpi(b"\x01" + rbytes(31)) + mpi(b"\x01" + rbytes(31)))
        return pgp_old(2, body)

    def _secret_part(self, seclen):
        return (b"\xfe\x09\x03\x08" + rbytes(8) + bytes([R.randint(0xE0, 0xFF)]) + rbytes(16) + rbytes(2 + seclen + 20))

    def secret_binary(self):
        return (pgp_old(5, self.pub_body + self._secret_part(32)) + pgp_old(13, self.uid) + self._sig(0x13, 0x03)
                + pgp_old(7, self.sub_body + self._secret_part(32)) + self._sig(0x18, 0x0c))

    def public_binary(self):
        return (pgp_old(6, self.pub_body) + pgp_old(13, self.uid) + self._sig(0x13, 0x03) + pgp_old(14, self.sub_body)
                + self._sig(0x18, 0x0c))

    def armor(self, secret=True, comment=None):
        data = self.secret_binary() if secret else self.public_binary()
        kind = "PRIVATE" if secret else "PUBLIC"
        lines = ["-----BEGIN PGP %s KEY BLOCK-----" % kind]
        if comment:
            lines.append("Comment: " + comment)
        lines.append("")
        lines += wrap64(b64e(data))
        lines.append("=" + b64e(crc24(data).to_bytes(3, "big")))
        lines.append("-----END PGP %s KEY BLOCK-----" % kind)
        return lines

    def body_oneline(self):
        """The armored body without headers and checksum, joined (gradle signingInMemoryKey style)."""
        return fresh(lambda: b64e(self.secret_binary()))

    def sig_armor(self):
        hashed = pgp_subpkt(0x21, b"\x04" + bytes.fromhex(self.fpr)) + pgp_subpkt(0x02, struct.pack(">I", ts_epoch()))
        body = (bytes([4, 0x00, 22, 10]) + struct.pack(">H", len(hashed)) + hashed + b"\x00\x0a" + pgp_subpkt(0x10, bytes.fromhex(self.keyid))
                + rbytes(2) + mpi(b"\x01" + rbytes(31)) + mpi(b"\x01" + rbytes(31)))
        data = pgp_old(2, body)
        return (["-----BEGIN PGP SIGNATURE-----", ""] + wrap64(b64e(data))
                + ["=" + b64e(crc24(data).to_bytes(3, "big")), "-----END PGP SIGNATURE-----"])


def armor_marked(lines, per_line):
    """Mark an armored secret key: contiguous = one span BEGIN..END; per line = each base64 body line."""
    lines = list(lines)
    if not per_line:
        lines[0] = OPEN + lines[0]
        lines[-1] = lines[-1] + CLOSE
        return lines
    out = []
    for ln in lines:
        if ln.startswith("-----") or ln.startswith("=") or ln == "" or ln.startswith("Comment:"):
            out.append(ln)
        else:
            out.append(m(ln))
    return out


# ---------------------------------------------------------------- sigstore, minisign, signify
def cosign_key_lines(label="ENCRYPTED SIGSTORE PRIVATE KEY"):
    doc = {"kdf": {"name": "scrypt", "params": {"N": 65536, "r": 8, "p": 1}, "salt": b64e(rbytes(32))},
           "cipher": {"name": "nacl/secretbox", "nonce": b64e(rbytes(24))}, "ciphertext": b64e(rbytes(154))}
    blob = json.dumps(doc, separators=(",", ":")).encode()
    fresh(lambda: b64e(blob))
    return ["-----BEGIN %s-----" % label] + wrap64(b64e(blob)) + ["-----END %s-----" % label]


def cosign_pub_lines():
    priv, pub = p256_pair()
    return pem_lines("PUBLIC KEY", ec_spki(pub))


def minisign_secret():
    blob = b"EdScB2" + rbytes(32) + struct.pack("<Q", 33554432) + struct.pack("<Q", 1073741824) + rbytes(104)
    return fresh(lambda: b64e(blob))


def minisign_pub(keyid=None):
    keyid = keyid or rbytes(8)
    return fresh(lambda: b64e(b"Ed" + keyid + rbytes(32))), keyid


def minisign_sig(keyid):
    return fresh(lambda: b64e(b"ED" + keyid + rbytes(64)))


def signify_secret():
    blob = b"EdBK" + struct.pack(">I", 42) + rbytes(16) + rbytes(8) + rbytes(8) + rbytes(64)
    return fresh(lambda: b64e(blob))


def signify_pub():
    return fresh(lambda: b64e(b"Ed" + rbytes(8) + rbytes(32)))


def pkcs12_b64(size=None):
    size = size or R.randint(2400, 3300)
    inner = rbytes(size)
    body = der_int(3) + der_seq(der_oid("1.2.840.113549.1.7.1"), der(0xA0, der(0x04, inner)))
    return fresh(lambda: b64e(der(0x30, body)))


def jks_b64(size=None):
    size = size or R.randint(2100, 2900)
    return fresh(lambda: b64e(b"\xfe\xed\xfe\xed\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x01" + rbytes(size)))


def macaroon_v1(location, ident, caveats):
    def pkt(k, v):
        data = k + b" " + v + b"\n"
        return ("%04x" % (len(data) + 4)).encode() + data
    out = pkt(b"location", location) + pkt(b"identifier", ident)
    for c in caveats:
        out += pkt(b"cid", c)
    out += pkt(b"signature", rbytes(32))
    return b64u(out)


def snap_credentials():
    root = macaroon_v1(b"api.snapcraft.io", uuid4().encode(),
                       [b"api.snapcraft.io|valid_since|2025-%02d-%02dT09:14:03.101Z" % (R.randint(1, 12), R.randint(1, 28)),
                        b"api.snapcraft.io|account|" + b64e(json.dumps({"id": rstr(ALNUM, 32)}).encode()).encode()])
    disc = macaroon_v1(b"login.ubuntu.com", rbytes(24).hex().encode(),
                       [b"login.ubuntu.com|account|" + b64e(rbytes(48)).encode(), b"login.ubuntu.com|valid_until|2026-01-01T00:00:00.000000"])
    doc = {"t": "u1-macaroon", "v": {"r": root, "d": disc}}
    return fresh(lambda: b64e(json.dumps(doc, separators=(",", ":")).encode()))


def docker_auth(user, pw):
    v = b64e(("%s:%s" % (user, pw)).encode())
    REG.add(v)
    return v

# ---------------------------------------------------------------- people, places, time
USERS = ["alice", "bkumar", "dev", "jmiller", "sofia", "tnguyen", "rpatel", "mchen", "lucas", "hana", "oliver", "priya",
         "kwame", "ines", "yuki", "marta", "ci", "builder", "jenkins", "runner", "ana", "ravi", "zoe", "felix", "noah",
         "emre", "leila", "tomas", "mei", "arjun", "svc-release", "greta", "ivan", "chloe", "diego", "nina"]
HOSTS = ["mbp-14", "devbox", "build-01", "ci-runner-7", "ws-0142", "thinkpad", "buildkite-agent-3", "jenkins-agent-2",
         "gl-runner-04", "release-box", "mac-mini-ci", "dev-vm", "linux-builder", "arm64-runner", "studio", "t14s",
         "fedora-ws", "ubuntu-dev", "build-win-02", "pkgbuild", "m2-air", "xps13", "sign-host", "tekton-node-5"]
ORGS = ["acme", "northwind", "globex", "initech", "umbrella-labs", "hooli", "piedpiper", "wayne-ent", "stark-ind",
        "vandelay", "tyrell", "cyberdyne", "oscorp", "soylent", "aperture", "blackmesa", "monarch", "wonka", "gringotts",
        "nakatomi", "massive-dynamic", "dunder", "prestige-ww", "sterling-cooper", "bluth-co", "kite-labs", "orbital-io",
        "fernwood", "lumen-dev", "quarkly", "tessellate", "pinecone-hq", "harbor-tools", "polaris-sw", "riverbed-oss"]
PROJECTS = ["api-gateway", "billing-svc", "cli", "desktop-app", "android-app", "ios-app", "web", "sdk-js", "sdk-python",
            "sdk-go", "rust-core", "infra", "release-tools", "docs-site", "vscode-ext", "chrome-ext", "helm-charts",
            "terraform-modules", "ledger", "inventory", "notifier", "auth-proxy", "image-resizer", "scheduler",
            "pkg-registry", "build-cache", "metrics-agent", "updater", "installer", "plugin-kit", "edge-worker",
            "data-pipeline", "mobile-core", "payments-lib", "search-index", "gateway-operator", "tracer", "formatter"]
BRANCHES = ["main", "master", "develop", "release/2.4", "release/v1.9.x", "feat/signing", "ci/fix-publish", "chore/deps",
            "hotfix/1.8.3", "feat/notarize", "ci/buildkite-migration", "fix/npm-provenance", "renovate/all", "next"]
PEOPLE = ["Alice Moreau", "Bharat Kumar", "Jordan Miller", "Sofia Álvarez", "Thanh Nguyen", "Riya Patel", "Mei Chen",
          "Lucas Ferreira", "Hana Kobayashi", "Oliver Brandt", "Kwame Mensah", "Inês Costa", "Yuki Tanaka", "Marta Nowak",
          "José Gutie\u0301rrez", "Zoë Laurent", "Felix Schäfer", "Emre Yılmaz", "Leila Haddad", "Tomáš Novák",
          "王伟", "李娜", "佐藤 健", "김민준", "Ana Ilić", "Diego Ramírez", "Nina Petrović", "Chloé Martin", "Arjun Rao"]
DOMAINS = ["example.com", "acme.dev", "northwind.io", "globex.net", "initech.co", "hooli.xyz", "corp.internal",
           "build.local", "kite-labs.dev", "orbital.io", "lumen.dev", "quarkly.app", "tessellate.tech"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
CJK_NOTES = ["修复发布流程中的签名问题", "更新依赖并重新生成锁文件", "リリースノートを更新", "署名鍵のローテーション",
             "빌드 캐시 정리", "修正 CI 超时", "新增 arm64 构建", "ドキュメントの誤字を修正", "배포 스크립트 개선",
             "升级 Gradle 到 8.8", "公開前のチェックを追加", "发布 v2.4.0 🚀"]
EMOJI = ["🚀", "📦", "✨", "🐛", "🔐", "🦋", "⚡️", "🔨", "✅", "❌", "⚠️", "🎉", "🔑", "📝", "🧪", "🏷️"]


def civil(t):
    days, secs = divmod(t, 86400)
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    mo = mp + 3 if mp < 10 else mp - 9
    if mo <= 2:
        y += 1
    return y, mo, d, secs // 3600, secs % 3600 // 60, secs % 60, (days + 3) % 7


def iso(t, frac=None, z="Z"):
    y, mo, d, h, mi, s, _ = civil(int(t))
    base = "%04d-%02d-%02dT%02d:%02d:%02d" % (y, mo, d, h, mi, s)
    if frac:
        base += "." + "".join(str(R.randint(0, 9)) for _ in range(frac))
    return base + z


def hms(t):
    y, mo, d, h, mi, s, _ = civil(int(t))
    return "%02d:%02d:%02d" % (h, mi, s)


def ymd(t):
    y, mo, d, h, mi, s, _ = civil(int(t))
    return "%04d-%02d-%02d" % (y, mo, d)


def ctime(t):
    y, mo, d, h, mi, s, wd = civil(int(t))
    return "%s %s %2d %02d:%02d:%02d %d" % (WEEKDAYS[wd], MONTHS[mo - 1], d, h, mi, s, y)


def lsdate(t):
    y, mo, d, h, mi, s, wd = civil(int(t))
    return "%s %2d %02d:%02d" % (MONTHS[mo - 1], d, h, mi)


def ver():
    return "%d.%d.%d" % (R.randint(0, 4), R.randint(0, 24), R.randint(0, 19))


# ---------------------------------------------------------------- display width
def cw(ch):
    o = ord(ch)
    if 0x300 <= o <= 0x36F or o in (0x200D, 0xFE0F, 0x20E3):
        return 0
    if (0x1100 <= o <= 0x115F or 0x2E80 <= o <= 0xA4CF or 0xAC00 <= o <= 0xD7A3 or 0xF900 <= o <= 0xFAFF
            or 0xFE30 <= o <= 0xFE4F or 0xFF00 <= o <= 0xFF60 or 0xFFE0 <= o <= 0xFFE6 or 0x1F300 <= o <= 0x1F64F
            or 0x1F680 <= o <= 0x1F6FF or 0x1F900 <= o <= 0x1F9FF or 0x1FA70 <= o <= 0x1FAFF or o in (0x2705, 0x274C, 0x26A1, 0x2728)):
        return 2
    return 1


def dw(s):
    return sum(cw(c) for c in unmark(s))


def expand_tabs(line, tab=8):
    out, col = [], 0
    for ch in line:
        if ch == "\t":
            n = tab - col % tab
            out.append(" " * n)
            col += n
        elif ch in (OPEN, CLOSE):
            out.append(ch)
        else:
            out.append(ch)
            col += cw(ch)
    return "".join(out)


def pad(s, width):
    return s + " " * max(0, width - dw(s))


def balanced(line):
    depth = 0
    for ch in line:
        if ch == OPEN:
            if depth:
                return False
            depth = 1
        elif ch == CLOSE:
            if not depth:
                return False
            depth = 0
    return depth == 0


def check_prefixed(lines, where):
    for ln in lines:
        assert balanced(ln), "mark crosses a per-line prefix in %s: %r" % (where, ln)


def cat_v(line):
    """cat -A notation: ^I for tabs, M- for bytes >= 0x80, ^X for controls; marks are kept as marks."""
    out = []
    for ch in line:
        if ch in (OPEN, CLOSE):
            out.append(ch)
            continue
        for b in ch.encode("utf-8"):
            pre = ""
            if b >= 128:
                pre, b = "M-", b - 128
            if b < 32:
                out.append(pre + "^" + chr(b + 64))
            elif b == 127:
                out.append(pre + "^?")
            else:
                out.append(pre + chr(b))
    return "".join(out)


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


# ---------------------------------------------------------------- the row context and frames
FRAMES = ["prompt"] * 30 + ["claude"] * 25 + ["codex_exec"] * 15 + ["codex_ran"] * 12 + ["gemini"] * 18
STYLES = ["bash", "omz", "starship", "bracket", "venv", "zsh", "bare"]


class Ctx:
    def __init__(self, frame=None, os_="linux"):
        self.user = pick(USERS)
        self.host = pick(HOSTS)
        self.org = pick(ORGS)
        self.proj = pick(PROJECTS)
        self.branch = pick(BRANCHES)
        self.person = pick(PEOPLE)
        self.domain = pick(DOMAINS)
        self.email = "%s@%s" % (self.user.replace("svc-", ""), self.domain)
        self.os = os_ if os_ != "any" else pick(["linux", "mac"])
        if self.os == "mac":
            self.home = "/Users/" + self.user
        elif self.os == "win":
            self.home = "C:\\Users\\" + self.user
        else:
            self.home = "/home/" + self.user
        if self.os == "win":
            self.cwd = pick(["C:\\src\\" + self.proj, self.home + "\\source\\repos\\" + self.proj, "D:\\a\\" + self.proj + "\\" + self.proj])
            self.dir = self.cwd.rsplit("\\", 1)[-1]
        else:
            self.cwd = pick([self.home + "/src/" + self.proj, self.home + "/work/" + self.org + "/" + self.proj,
                             self.home + "/code/" + self.proj, "/workspace/" + self.proj, self.home + "/" + self.proj])
            self.dir = self.cwd.rsplit("/", 1)[-1]
        self.frame = frame or pick(FRAMES)
        self.style = "pwsh" if self.os == "win" else pick(STYLES)
        self.venv = pick([".venv", "venv", self.proj, "release"])
        self.t = 1717200000 + R.randint(0, 36000000)
        self.ver, self.prev = semver(), semver()
        self.blocks = []
        self.gemini_swapped = False
        Ctx.last = self

    @property
    def pfx(self):
        return self.frame in ("claude", "codex_ran", "gemini")

    def tick(self, a=1, b=9):
        self.t += R.randint(a, b)
        return self.t

    def tilde(self, p):
        return "~" + p[len(self.home):] if p.startswith(self.home) else p

    # prompts
    def prompt(self, cmd):
        d = self.dir
        st = self.style
        if st == "bash":
            return "%s@%s:%s$ %s" % (self.user, self.host, self.tilde(self.cwd), cmd)
        if st == "omz":
            return "➜  %s git:(%s) ✗ %s" % (d, self.branch, cmd)
        if st == "starship":
            return "%s on \ue0a0 %s [!?] via %s\n❯ %s" % (d, self.branch, pick(["⬢ v20.14.0", "🐹 v1.22.4", "🦀 v1.79.0", "☕ v21.0.3", "🐍 v3.12.4", "🐘 v8.3.8", "💎 v3.3.2"]), cmd)
        if st == "bracket":
            return "[%s@%s %s]$ %s" % (self.user, self.host, d, cmd)
        if st == "venv":
            return "(%s) %s@%s:%s$ %s" % (self.venv, self.user, self.host, self.tilde(self.cwd), cmd)
        if st == "zsh":
            return "%s %% %s" % (d, cmd)
        if st == "pwsh":
            return "PS %s> %s" % (self.cwd, cmd)
        return "$ " + cmd

    def say(self, text):
        if self.frame == "claude":
            self.blocks.append("⏺ " + text)
        elif self.frame in ("codex_exec", "codex_ran"):
            self.blocks.append("codex\n" + text if self.frame == "codex_exec" else "• " + text)
        elif self.frame == "gemini":
            self.blocks.append("✦ " + text)

    def run(self, cmd, out, rc=0, desc=None):
        lines = out if isinstance(out, list) else (out.split("\n") if out else [])
        f = self.frame
        if f == "prompt":
            self.blocks.append("\n".join([self.prompt(cmd)] + lines))
        elif f == "codex_exec":
            res = " succeeded in %dms:" % R.randint(8, 4800) if rc == 0 else " exited %d in %dms:" % (rc, R.randint(8, 4800))
            sh = "powershell.exe -NoProfile -Command" if self.os == "win" else "bash -lc"
            self.blocks.append("\n".join(["exec", "%s %s in %s" % (sh, shq(cmd), self.cwd), res] + lines))
        elif f == "codex_ran":
            check_prefixed(lines, "codex_ran")
            if not lines:
                body = ["  └ (no output)"]
            else:
                body = ["  └ " + lines[0]] + ["    " + l if l else "" for l in lines[1:]]
            self.blocks.append("\n".join(["• Ran " + cmd] + body))
        elif f == "claude" or (f == "gemini" and self._too_wide(cmd, lines, desc)):
            self._claude(cmd, lines, rc)
        else:
            self._gemini(cmd, lines, desc)

    def _claude(self, cmd, lines, rc=0):
        check_prefixed(lines, "claude")
        if not lines:
            body = ["  ⎿  (No content)"]
        else:
            first = ("Error: " + lines[0]) if rc else lines[0]
            body = ["  ⎿  " + first] + ["     " + l if l else "" for l in lines[1:]]
        self.blocks.append("\n".join(["⏺ Bash(%s)" % cmd] + body))

    def _too_wide(self, cmd, lines, desc):
        title = "✔  Shell %s%s" % (cmd, " (%s)" % desc if desc else "")
        return dw(title) > 146 or any(dw(expand_tabs(l)) > 146 for l in lines)

    def _gemini(self, cmd, lines, desc):
        check_prefixed(lines, "gemini")
        title = "✔  Shell %s%s" % (cmd, " (%s)" % desc if desc else "")
        body = [expand_tabs(l) for l in lines]
        width = max([dw(title)] + [dw(l) for l in body] + [40])
        width = min(max(width, R.choice([76, 96, 116])), 146) if width < 146 else width
        out = ["╭" + "─" * (width + 2) + "╮", "│ " + pad(title, width) + " │", "│ " + " " * width + " │"]
        out += ["│ " + pad(l, width) + " │" for l in body]
        out.append("╰" + "─" * (width + 2) + "╯")
        self.blocks.append("\n".join(out))

    # file viewers
    def viewer(self, allow=("cat", "cat_n", "nl", "bat", "read", "sed", "head")):
        opts = list(allow)
        if self.frame != "claude" and "read" in opts and len(opts) > 1:
            opts.remove("read")
        if self.frame == "claude" and "read" in opts:
            opts += ["read", "read"]
        if self.frame == "codex_exec" and "sed" in opts:
            opts += ["sed", "sed"]
        return pick(opts)

    def vpfx(self, v):
        return self.pfx or v in ("cat_n", "nl", "bat", "read")

    def show(self, path, lines, v="cat", start=1):
        if isinstance(lines, str):
            lines = lines.split("\n")
        n = len(lines)
        if v == "read":
            check_prefixed(lines, "read")
            if self.frame == "claude":
                self.blocks.append("\n".join(["⏺ Read(%s)" % path] + ["%6d→%s" % (start + i, l) for i, l in enumerate(lines)]))
                return
            v = "cat_n"
        if v in ("cat_n", "nl"):
            check_prefixed(lines, v)
            cmd = ("cat -n %s" if v == "cat_n" else "nl -ba %s") % path
            self.run(cmd, ["%6d\t%s" % (start + i, l) for i, l in enumerate(lines)])
        elif v == "bat":
            check_prefixed(lines, "bat")
            w = R.choice([80, 100, 120])
            out = ["───────┬" + "─" * (w - 8), "       │ File: " + path, "───────┼" + "─" * (w - 8)]
            out += ["%4d   │ %s" % (start + i, l) for i, l in enumerate(lines)]
            out.append("───────┴" + "─" * (w - 8))
            self.run("bat --paging=never %s" % path, out)
        elif v == "cat_A":
            self.run("cat -A %s" % path, [cat_v(l) + "$" for l in lines])
        elif v == "sed":
            self.run("sed -n '%d,%dp' %s" % (start, start + max(n, 200) - 1, path), lines)
        elif v == "head":
            self.run("head -n %d %s" % (max(n, R.choice([40, 60, 80, 120])), path), lines)
        else:
            self.run("cat %s" % path, lines)

    def text(self):
        return "\n".join(self.blocks)

# ---------------------------------------------------------------- filler output
NPM_PKGS = ["react", "react-dom", "lodash", "typescript", "esbuild", "@types/node", "eslint", "vite", "rollup", "semver",
            "chalk", "commander", "debug", "ms", "glob", "minimatch", "yargs", "tslib", "zod", "axios", "undici", "tsx",
            "prettier", "vitest", "@changesets/cli", "@babel/core", "postcss", "tailwindcss", "dotenv", "execa", "ora",
            "@octokit/rest", "semantic-release", "conventional-changelog-writer", "signale", "picocolors", "fast-glob",
            "@vscode/vsce", "ovsx", "webpack", "terser", "source-map", "magic-string", "acorn", "browserslist"]
MVN_ARTS = ["org/apache/maven/plugins/maven-compiler-plugin/3.13.0/maven-compiler-plugin-3.13.0",
            "org/apache/maven/plugins/maven-surefire-plugin/3.2.5/maven-surefire-plugin-3.2.5",
            "org/apache/maven/plugins/maven-gpg-plugin/3.2.4/maven-gpg-plugin-3.2.4",
            "org/apache/maven/plugins/maven-deploy-plugin/3.1.2/maven-deploy-plugin-3.1.2",
            "org/apache/maven/plugins/maven-source-plugin/3.3.1/maven-source-plugin-3.3.1",
            "org/apache/maven/plugins/maven-javadoc-plugin/3.7.0/maven-javadoc-plugin-3.7.0",
            "com/fasterxml/jackson/core/jackson-databind/2.17.1/jackson-databind-2.17.1",
            "com/fasterxml/jackson/core/jackson-core/2.17.1/jackson-core-2.17.1",
            "org/slf4j/slf4j-api/2.0.13/slf4j-api-2.0.13", "com/google/guava/guava/33.2.1-jre/guava-33.2.1-jre",
            "org/junit/jupiter/junit-jupiter-api/5.10.2/junit-jupiter-api-5.10.2",
            "org/sonatype/plugins/nexus-staging-maven-plugin/1.7.0/nexus-staging-maven-plugin-1.7.0",
            "org/codehaus/plexus/plexus-utils/4.0.1/plexus-utils-4.0.1", "commons-io/commons-io/2.16.1/commons-io-2.16.1",
            "org/apache/commons/commons-lang3/3.14.0/commons-lang3-3.14.0", "io/netty/netty-buffer/4.1.111.Final/netty-buffer-4.1.111.Final",
            "org/bouncycastle/bcprov-jdk18on/1.78.1/bcprov-jdk18on-1.78.1", "org/yaml/snakeyaml/2.2/snakeyaml-2.2"]
GO_MODS = ["github.com/spf13/cobra v1.8.1", "github.com/spf13/pflag v1.0.5", "golang.org/x/sys v0.21.0",
           "golang.org/x/crypto v0.24.0", "golang.org/x/mod v0.18.0", "github.com/sigstore/sigstore v1.8.4",
           "github.com/google/go-containerregistry v0.19.2", "github.com/charmbracelet/lipgloss v0.11.0",
           "github.com/caarlos0/env/v11 v11.1.0", "github.com/stretchr/testify v1.9.0", "gopkg.in/yaml.v3 v3.0.1",
           "github.com/hashicorp/go-retryablehttp v0.7.7", "github.com/klauspost/compress v1.17.9",
           "github.com/goreleaser/nfpm/v2 v2.37.1", "github.com/aws/aws-sdk-go-v2 v1.30.0", "github.com/google/uuid v1.6.0"]
CRATES = ["serde v1.0.203", "serde_json v1.0.117", "tokio v1.38.0", "clap v4.5.7", "anyhow v1.0.86", "thiserror v1.0.61",
          "reqwest v0.12.5", "hyper v1.3.1", "syn v2.0.66", "quote v1.0.36", "proc-macro2 v1.0.85", "libc v0.2.155",
          "regex v1.10.5", "once_cell v1.19.0", "tracing v0.1.40", "sha2 v0.10.8", "ring v0.17.8", "rustls v0.23.10",
          "bytes v1.6.0", "futures-util v0.3.30", "memchr v2.7.4", "itoa v1.0.11", "cfg-if v1.0.0", "base64 v0.22.1"]
PY_PKGS = ["requests", "urllib3", "certifi", "idna", "charset-normalizer", "build", "twine", "wheel", "setuptools",
           "packaging", "pyproject_hooks", "readme-renderer", "rich", "keyring", "pkginfo", "requests-toolbelt",
           "rfc3986", "jaraco.classes", "nh3", "docutils", "Pygments", "markdown-it-py", "mdurl", "hatchling"]
GRADLE_ANDROID = ["preBuild", "preReleaseBuild", "mergeReleaseJniLibFolders", "compileReleaseKotlin", "compileReleaseJavaWithJavac",
                  "mergeReleaseResources", "processReleaseManifest", "mergeReleaseAssets", "dexBuilderRelease", "mergeDexRelease",
                  "lintVitalAnalyzeRelease", "packageRelease", "createReleaseApkListingFileRedirect", "bundleRelease", "signReleaseBundle",
                  "mergeReleaseNativeLibs", "stripReleaseDebugSymbols", "optimizeReleaseResources", "minifyReleaseWithR8", "buildReleasePreBundle"]
GRADLE_JVM = ["compileKotlin", "compileJava", "processResources", "classes", "jar", "javadoc", "javadocJar", "sourcesJar", "dokkaHtml",
              "generatePomFileForMavenPublication", "generateMetadataFileForMavenPublication", "signMavenPublication", "test", "check",
              "publishMavenPublicationToSonatypeRepository", "apiBuild", "apiCheck", "compileTestKotlin", "inspectClassesForKotlinIC"]


def npm_install_noise(n=None):
    out = []
    for _ in range(n or R.randint(2, 6)):
        p = pick(["inflight@1.0.6", "glob@7.2.3", "rimraf@3.0.2", "@humanwhocodes/config-array@0.11.14", "npmlog@6.0.2",
                  "are-we-there-yet@3.0.1", "gauge@4.0.4", "har-validator@5.1.5", "request@2.88.2", "uuid@3.4.0"])
        out.append("npm warn deprecated %s: This module is not supported, and leaks memory. Do not use it." % p if "inflight" in p
                   else "npm warn deprecated %s: Package no longer supported. Contact Support at https://www.npmjs.com/support for more info." % p)
    a = R.randint(200, 1800)
    out += ["", "added %d packages, and audited %d packages in %ds" % (a, a + 1, R.randint(4, 90)), "",
            "%d packages are looking for funding" % R.randint(20, 260), "  run `npm fund` for details", "",
            "found 0 vulnerabilities" if chance(0.6) else "%d moderate severity vulnerabilities" % R.randint(1, 6)]
    return out


def mvn_download_noise(n, repo="central", base="https://repo.maven.apache.org/maven2"):
    out = []
    for a in R.sample(MVN_ARTS, min(n, len(MVN_ARTS))):
        for ext in pick([(".pom",), (".pom", ".jar")]):
            out.append("[INFO] Downloading from %s: %s/%s%s" % (repo, base, a, ext))
            kb = R.uniform(1.2, 900)
            out.append("[INFO] Downloaded from %s: %s/%s%s (%.1f kB at %d kB/s)" % (repo, base, a, ext, kb, R.randint(40, 4000)))
    return out


def gradle_noise(n=None, project=":app"):
    pool = GRADLE_ANDROID if project == ":app" else GRADLE_JVM
    out = []
    for t in R.sample(pool, min(len(pool), n or R.randint(6, 14))):
        out.append("> Task %s:%s%s" % (project if project != ":" else "", t, pick(["", "", " UP-TO-DATE", " FROM-CACHE", " NO-SOURCE"])))
    return out


def go_noise(n=None):
    return ["go: downloading " + g for g in R.sample(GO_MODS, n or R.randint(4, 10))]


def cargo_noise(n=None):
    out = ["    Updating crates.io index"] if chance(0.5) else []
    out += ["   Compiling " + c for c in R.sample(CRATES, n or R.randint(5, 14))]
    return out


def pip_noise(n=None):
    out = []
    for p in R.sample(PY_PKGS, n or R.randint(4, 10)):
        v = ver()
        out.append("Collecting %s==%s" % (p, v) if chance(0.3) else "Requirement already satisfied: %s in ./.venv/lib/python3.12/site-packages (%s)" % (p, v))
    return out


def docker_build_noise(n=None):
    out = ["#0 building with \"default\" instance using docker driver", "",
           "#1 [internal] load build definition from Dockerfile", "#1 transferring dockerfile: %dB done" % R.randint(400, 3000), "#1 DONE 0.0s", ""]
    img = pick(["golang:1.22-alpine", "node:20-bookworm-slim", "eclipse-temurin:21-jdk", "rust:1.79-slim", "python:3.12-slim"])
    out += ["#2 [internal] load metadata for docker.io/library/%s" % img, "#2 DONE %.1fs" % R.uniform(0.3, 2.5), ""]
    steps = ["WORKDIR /src", "COPY go.mod go.sum ./", "RUN go mod download", "COPY . .", "RUN make build",
             "RUN npm ci --omit=dev", "COPY --from=build /out /app", "RUN apt-get update && apt-get install -y ca-certificates"]
    for i, s in enumerate(R.sample(steps, n or R.randint(3, 6))):
        k = i + 3
        out += ["#%d [build %d/7] %s" % (k, i + 1, s)]
        if "COPY" in s:
            out.append("#%d CACHED" % k)
        else:
            out.append("#%d DONE %.1fs" % (k, R.uniform(0.1, 40)))
        out.append("")
    out += ["#%d exporting to image" % (k + 1), "#%d exporting layers %.1fs done" % (k + 1, R.uniform(0.2, 5)),
            "#%d writing image sha256:%s done" % (k + 1, sha256()), "#%d DONE %.1fs" % (k + 1, R.uniform(0.3, 6))]
    return out


def history_noise(n):
    pool = ["git status", "git pull --rebase", "ls -la", "make test", "make build", "go test ./...", "npm ci", "npm run build",
            "cargo build --release", "./gradlew clean", "docker ps", "kubectl get pods -n ci", "code .", "git log --oneline -5",
            "cd ..", "cd ~/src", "clear", "vim .goreleaser.yaml", "cat Makefile", "git checkout -b ci/fix-publish",
            "gh pr create --fill", "gh run watch", "gh run view --log-failed", "python -m build", "tree -L 2", "df -h",
            "brew upgrade", "sdk use java 21.0.3-tem", "nvm use 20", "pyenv local 3.12.4", "git tag -l 'v*' | tail -3",
            "jq . package.json | head", "helm lint charts/app", "terraform fmt -recursive", "pre-commit run -a", "htop"]
    return [pick(pool) for _ in range(n)]


def hist_lines(cmds, start=None):
    start = start or R.randint(100, 2000)
    return ["%5d  %s" % (start + i, c) for i, c in enumerate(cmds)]


def gha_ts(t):
    return iso(t, 7)


def ansi(code, s):
    return "\x1b[%sm%s\x1b[0m" % (code, s)


def stamp_lines(lines, t0):
    """GitHub Actions / Azure Pipelines style: ISO time with 7 fractional digits, increasing."""
    out, t, us = [], t0, R.randint(0, 9999999)
    for l in lines:
        us += R.randint(2000, 700000)
        t += us // 10 ** 7
        us %= 10 ** 7
        out.append("%s.%07dZ %s" % (iso(t)[:-1], us, l))
    return out

# ---------------------------------------------------------------- shared look-alikes and small builders
def jenkins_cipher():
    L = R.choice([32, 48, 64, 80])
    return fresh(lambda: "{" + b64e(b"\x01" + struct.pack(">I", 16) + struct.pack(">I", L) + rbytes(16 + L)) + "}")


def aws_key_id():
    return rs(UPPER + "234567", 16, "AKIA")


def aws_secret():
    return rs(ALNUM + "+/", 40)


def short_sha():
    return hexs(7) if chance(0.5) else hexs(8)


def semver():
    return "%d.%d.%d" % (R.randint(0, 5), R.randint(0, 30), R.randint(0, 20))


def build_no():
    return R.randint(12, 9800)


def ssh_pub_ed25519(comment):
    return "ssh-ed25519 " + fresh(lambda: "AAAAC3NzaC1lZDI1NTE5AAAAI" + b64e(b"\x00" + rbytes(32))[1:]) + " " + comment


def gpg_fpr():
    return HEXU(40)


def commit_msg():
    return pick(["fix(ci): pin node to 20.14", "chore(release): 2.4.1", "build: sign artifacts with cosign",
                 "ci: move publish to buildkite", "feat: add arm64 builds", "docs: update release checklist",
                 "chore(deps): bump actions/checkout from 4.1.6 to 4.1.7", "fix: notarize before stapling",
                 "refactor(build): split signing stage", "ci: cache gradle", pick(CJK_NOTES), "release: v" + semver() + " " + pick(EMOJI)])


def mk_pw_human():
    return password(pick(["season", "word", "leet", "phrase", "dice", "mixed12"]))


def yaml_block_key(lines, indent):
    return [" " * indent + l for l in lines]

# ---------------------------------------------------------------- filler blocks (make rows long, bury the secret)
def fb_git_log(c):
    n = R.randint(8, 25)
    out = []
    for i in range(n):
        deco = "(HEAD -> %s, origin/%s) " % (c.branch, c.branch) if i == 0 else ("(tag: v%s) " % semver() if chance(0.15) else "")
        out.append("%s %s%s" % (hexs(7), deco, commit_msg()))
    c.run("git log --oneline -n %d" % n, out)


def fb_ls(c):
    names = [".github", ".gitignore", ".goreleaser.yaml", "Makefile", "README.md", "CHANGELOG.md", "LICENSE", "go.mod", "go.sum", "package.json",
             "pnpm-lock.yaml", "scripts", "dist", "build.gradle.kts", "settings.gradle.kts", "gradle.properties", "Cargo.toml", "Cargo.lock",
             "pyproject.toml", "src", "docs", "charts", "Dockerfile", ".npmrc", ".tool-versions", "cosign.pub", "release-please-config.json"]
    sel = sorted(R.sample(names, R.randint(10, 20)))
    out = ["total %d" % R.randint(40, 400)]
    for nm in [".", ".."] + sel:
        d = nm in (".", "..", ".github", "scripts", "dist", "src", "docs", "charts")
        out.append("%s %2d %s %s %6d %s %s" % ("drwxr-xr-x" if d else "-rw-r--r--", R.randint(2, 9) if d else 1, c.user, "staff" if c.os == "mac" else c.user,
                                             (4096 if c.os != "mac" else R.randint(3, 30) * 32) if d else R.randint(64, 40000), lsdate(c.t - R.randint(0, 9e6)), nm))
    c.run("ls -la", out)


def fb_git_status(c):
    out = ["On branch %s" % c.branch, "Your branch is up to date with 'origin/%s'." % c.branch, "", "Changes not staged for commit:",
           '  (use "git add <file>..." to update what will be committed)', '  (use "git restore <file>..." to discard changes in working directory)']
    for f in R.sample([".github/workflows/release.yml", "Makefile", ".goreleaser.yaml", "scripts/publish.sh", "build.gradle.kts", "package.json", "CHANGELOG.md"], R.randint(1, 4)):
        out.append("\tmodified:   %s" % f)
    out += ["", "Untracked files:", '  (use "git add <file>..." to include in what will be committed)', "\tdist/", "", 'no changes added to commit (use "git add" and/or "git commit -a")']
    c.run("git status", out)


def fb_build(c):
    kind = pick(["npm", "gradle", "cargo", "go", "docker", "mvn"])
    if kind == "npm":
        c.run("npm ci", npm_install_noise(R.randint(2, 8)))
    elif kind == "gradle":
        c.run("./gradlew build", gradle_noise(R.randint(8, 18)) + ["", "BUILD SUCCESSFUL in %ds" % R.randint(20, 300), "%d actionable tasks: %d executed, %d up-to-date" % (48, 21, 27)])
    elif kind == "cargo":
        c.run("cargo build --release", cargo_noise(R.randint(10, 20)) + ["    Finished `release` profile [optimized] target(s) in %.2fs" % R.uniform(20, 300)])
    elif kind == "go":
        c.run("go build ./...", go_noise(R.randint(6, 14)))
    elif kind == "docker":
        c.run("docker build -t %s/%s:dev ." % (c.org, c.proj), docker_build_noise())
    else:
        c.run("mvn -B -ntp verify", maven_deploy_block(R.randint(6, 14)) + ["[INFO] BUILD SUCCESS"])


def fb_workflow(c):
    L = ["name: release", "on:", "  push:", "    tags: ['v*']", "permissions:", "  contents: write", "  id-token: write", "  packages: write", "jobs:",
         "  release:", "    runs-on: ubuntu-latest", "    steps:", "      - uses: actions/checkout@%s # v4.1.7" % sha1(),
         "        with:", "          fetch-depth: 0", "      - uses: actions/setup-go@%s # v5.0.1" % sha1(), "        with:", "          go-version-file: go.mod",
         "      - uses: sigstore/cosign-installer@%s # v3.5.0" % sha1(), "      - uses: goreleaser/goreleaser-action@%s # v6.0.0" % sha1(),
         "        with:", "          version: '~> v2'", "          args: release --clean", "        env:", "          GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}"]
    c.show(".github/workflows/release.yml", L, c.viewer(("cat", "bat", "sed", "head", "read")))


FILLERS = [fb_git_log, fb_ls, fb_git_status, fb_build, fb_workflow]


def filler(c, p=0.5, k=(1, 2)):
    if chance(p):
        for f in R.sample(FILLERS, R.randint(*k)):
            f(c)
        return True
    return False


def aligned(rows, gap=2):
    w = [max(dw(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [(" " * gap).join(pad(v, w[i]) if i < len(r) - 1 else v for i, v in enumerate(r)) for r in rows]


def fb_gh_runs(c):
    rows = [("STATUS", "TITLE", "WORKFLOW", "BRANCH", "EVENT", "ID", "ELAPSED", "AGE")]
    for _ in range(R.randint(6, 14)):
        rows.append((pick(["✓", "✓", "✓", "X", "*"]), commit_msg()[:40], pick(["release", "ci", "publish", "nightly"]), c.branch,
                     pick(["push", "pull_request", "workflow_dispatch", "release"]), str(R.randint(9 * 10 ** 9, 10 ** 10)),
                     "%dm%ds" % (R.randint(0, 14), R.randint(0, 59)), pick(["about 1 hour ago", "2 days ago", "3 hours ago", "about 5 minutes ago"])))
    c.run("gh run list --limit %d" % (len(rows) - 1), aligned(rows))


def fb_gh_releases(c):
    rows = [("TITLE", "TYPE", "TAG NAME", "PUBLISHED")]
    for i in range(R.randint(5, 12)):
        v = "v" + semver()
        rows.append((v + pick(["", "", " " + pick(EMOJI)]), "Latest" if i == 0 else "", v, pick(["about 2 days ago", "about 1 month ago", "about 3 months ago", "about 1 year ago"])))
    c.run("gh release list", aligned(rows))


def fb_pnpm_outdated(c):
    rows = [(p + pick(["", " (dev)"]), semver(), semver()) for p in R.sample(NPM_PKGS, R.randint(4, 10))]
    w = [max(len("Package"), max(dw(r[0]) for r in rows)), 7, 7]
    top = "┌" + "┬".join("─" * (x + 2) for x in w) + "┐"
    mid = "├" + "┼".join("─" * (x + 2) for x in w) + "┤"
    bot = "└" + "┴".join("─" * (x + 2) for x in w) + "┘"
    line = lambda a: "│" + "│".join(" " + pad(v, x) + " " for v, x in zip(a, w)) + "│"
    out = [top, line(("Package", "Current", "Latest")), mid]
    for i, r in enumerate(rows):
        out.append(line(r))
        if i < len(rows) - 1:
            out.append(mid)
    out.append(bot)
    c.run("pnpm outdated", out)


def fb_release_md(c):
    L = ["# Releasing %s" % c.proj, "", "1. Bump the version with `%s`." % pick(["npm version minor", "cargo release minor", "bump2version minor", "./gradlew release"]),
         "2. Push the tag; CI signs and publishes the artifacts.", "3. Verify the signatures (see below).", "", "| Artifact | Registry | Signed with | Owner |",
         "|----------|----------|-------------|-------|"]
    for a, r, s in R.sample([("npm package", "registry.npmjs.org", "npm provenance"), ("container image", "ghcr.io", "cosign keyless"),
                             ("wheel", "PyPI", "trusted publishing"), ("crate", "crates.io", "—"), ("jar", "Maven Central", "GPG"),
                             ("macOS app", "GitHub Releases", "Developer ID + notarization"), ("snap", "Snap Store", "store signing"), ("msi", "GitHub Releases", "Authenticode")], R.randint(3, 6)):
        L.append("| %s | %s | %s | @%s |" % (a, r, s, pick(USERS)))
    L += ["", "## Secrets", "", "Tokens live in the `release` environment; never paste them into issues. 🔐", "",
          "- `NPM_TOKEN` — automation token, rotated %s" % pick(["quarterly", "yearly", "after each incident"]), "- `GPG_PRIVATE_KEY`, `GPG_PASSPHRASE` — signing key for Maven Central",
          "- `COSIGN_PRIVATE_KEY` — only for the air-gapped mirror", ""]
    c.show("RELEASING.md", L, c.viewer(("cat", "read", "bat", "head")))


def fb_docker_images(c):
    out = ["REPOSITORY                          TAG          IMAGE ID       CREATED        SIZE"]
    for _ in range(R.randint(4, 10)):
        repo, tag = pick([("ghcr.io/%s/%s" % (c.org, c.proj), semver()), ("%s/%s" % (c.org, c.proj), "dev"), ("golang", "1.22-alpine"), ("node", "20-slim"),
                          ("gcr.io/distroless/static", "nonroot"), ("alpine", "3.20"), ("quay.io/%s/builder" % c.org, "latest")])
        out.append("%-35s %-12s %s   %-14s %s" % (repo, tag, hexs(12), pick(["2 hours ago", "3 days ago", "5 weeks ago"]),
                                                 "%dMB" % R.randint(4, 900)))
    c.run("docker images", out)


FILLERS += [fb_gh_runs, fb_gh_releases, fb_pnpm_outdated, fb_release_md, fb_docker_images]

# ================================================================ POSITIVE: CI systems
@pos("jenkins_casc_yaml_plain_creds")
def p_jenkins_casc():
    c = Ctx()
    v = c.viewer()
    per = c.vpfx(v)
    admin_pw = mk_pw_human()
    nexus_pw = password()
    gh = gh_token(pick(["ghp_", "ghp_", "gho_"]))
    aws_id, aws_sec = aws_key_id(), aws_secret()
    key = rsa_pem_blob(pkcs8=False) if chance(0.5) else ec_sec1(*p256_pair())
    label = "RSA PRIVATE KEY" if key[:4] != b"\x30\x77\x02\x01" and len(key) > 400 else "EC PRIVATE KEY"
    keylines = mark_block(pem_lines(label, key), True)
    jurl = "https://jenkins.%s/" % c.domain
    L = ["jenkins:", '  systemMessage: "Configured by JCasC — do not edit in the UI 🔧"', "  numExecutors: 0",
         "  securityRealm:", "    local:", "      allowsSignup: false", "      users:", '        - id: "admin"',
         '          password: "%s"' % m(admin_pw)]
    if chance(0.6):
        L += ['        - id: "readonly"', '          password: "${READONLY_PASSWORD}"']
    L += ["  authorizationStrategy:", "    loggedInUsersCanDoAnything:", "      allowAnonymousRead: false", "",
          "credentials:", "  system:", "    domainCredentials:", "      - credentials:",
          "          - usernamePassword:", "              scope: GLOBAL", '              id: "nexus-deploy"',
          '              username: "deployment"', '              password: "%s"' % m(nexus_pw),
          '              description: "Nexus deploy user (%s)"' % pick(["releases", "snapshots", "npm-hosted"]),
          "          - string:", "              scope: GLOBAL", '              id: "github-token"',
          '              secret: "%s"' % m(gh), "          - string:", '              id: "sonar-token"',
          '              secret: "${SONAR_TOKEN}"', "          - string:", '              id: "slack-bot"',
          '              secret: "%s"' % jenkins_cipher(),
          "          - basicSSHUserPrivateKey:", "              scope: GLOBAL", '              id: "deploy-ssh"',
          '              username: "git"', "              privateKeySource:", "                directEntry:",
          "                  privateKey: |"]
    L += ["                    " + l for l in keylines]
    L += ["          - file:", '              id: "gpg-secring"', '              fileName: "secring.gpg"',
          '              secretBytes: "${base64:${readFile:/run/secrets/secring.gpg}}"',
          "          - aws:", '              id: "aws-release"', '              accessKey: "%s"' % aws_id,
          '              secretKey: "%s"' % m(aws_sec), "", "unclassified:", "  location:",
          '    url: "%s"' % jurl, '    adminAddress: "ci-admins@%s"' % c.domain]
    if chance(0.6):
        L += ["  gitHubPluginConfig:", "    hookUrl: \"%sgithub-webhook/\"" % jurl, "  timestamper:",
              "    allPipelines: true", "tool:", "  jdk:", "    installations:", '      - name: "temurin-21"',
              '        home: "/opt/java/temurin-21"', "  maven:", "    installations:", '      - name: "maven-3.9"',
              "        properties:", "          - installSource:", "              installers:",
              "                - maven:", '                    id: "3.9.8"', "jobs:",
              "  - script: >", "      multibranchPipelineJob('%s') {" % c.proj,
              "        branchSources { github { id('%s'); repoOwner('%s'); repository('%s'); scanCredentialsId('github-token') } }" % (hexs(8), c.org, c.proj),
              "      }"]
    path = pick(["jenkins/casc/jenkins.yaml", "casc_configs/jenkins.yaml", "ops/jenkins/casc.yaml"])
    if chance(0.4):
        c.say("Let me look at the JCasC file to see which credential IDs the pipeline expects.")
    c.show(path, L, v)
    if chance(0.4):
        c.run("git log --oneline -3 -- %s" % path, ["%s %s" % (short_sha(), commit_msg()) for _ in range(3)])
    return c.text()


@pos("jenkins_api_token_cli_history")
def p_jenkins_history():
    c = Ctx()
    tok = jenkins_api_token()
    trig = rs(ALNUM, R.choice([24, 32]))
    u = c.user
    url = "https://%s.%s" % (pick(["jenkins", "ci", "build"]), c.domain)
    job = "%s/job/%s" % (c.org, c.proj)
    cmds = history_noise(R.randint(3, 30))
    cmds += ["export JENKINS_URL=%s" % url, "export JENKINS_USER_ID=%s JENKINS_API_TOKEN=%s" % (u, m(tok)),
             "curl -sO $JENKINS_URL/jnlpJars/jenkins-cli.jar",
             "java -jar jenkins-cli.jar -s %s -auth %s:%s list-jobs %s" % (url, u, m(tok), c.org),
             "java -jar jenkins-cli.jar -s $JENKINS_URL -webSocket build %s -f -v" % job.replace("/job/", "/"),
             'curl -s -u %s:%s "%s/crumbIssuer/api/json"' % (u, m(tok), url)]
    cmds += history_noise(R.randint(0, 12))
    cmds += ['curl -X POST "%s/job/%s/job/%s/buildWithParameters?token=%s&RELEASE_VERSION=%s"' % (url, c.org, c.proj, m(trig), c.ver),
             "java -jar jenkins-cli.jar -auth @%s/.jenkins-cli get-job %s > job.xml" % (c.tilde(c.home), c.proj)]
    c.run("history | tail -n %d" % (len(cmds) + 1), hist_lines(cmds + ["history | tail -n %d" % (len(cmds) + 1)]))
    if chance(0.6):
        crumb = hexs(64)
        c.run('curl -s -u %s:%s "%s/crumbIssuer/api/json" | jq .' % (u, m(tok), url),
              ["{", '  "_class": "hudson.security.csrf.DefaultCrumbIssuer",', '  "crumb": "%s",' % crumb,
               '  "crumbRequestField": "Jenkins-Crumb"', "}"])
    return c.text()


def maven_deploy_block(n):
    out = ["[INFO] Scanning for projects...", "[INFO] ", "[INFO] -----------------------< com.%s:%s >-----------------------" % ("acme", "core"),
           "[INFO] Building core %s" % semver(), "[INFO]   from pom.xml", "[INFO] --------------------------------[ jar ]---------------------------------"]
    out += mvn_download_noise(n)
    return out


@pos("jenkins_console_env_literal_leak")
def p_jenkins_console():
    c = Ctx()
    pw = password()
    sign_pw = mk_pw_human()
    bn = build_no()
    sha = sha1()
    nexus = "https://nexus.%s" % c.domain
    L = ["Started by user %s" % c.person, "Obtained Jenkinsfile from git https://github.com/%s/%s.git" % (c.org, c.proj),
         "[Pipeline] Start of Pipeline", "[Pipeline] node", "Running on jenkins-agent-%d in /var/lib/jenkins/workspace/%s_%s" % (R.randint(1, 9), c.proj, c.branch.replace("/", "_")),
         "[Pipeline] {", "[Pipeline] stage", "[Pipeline] { (Declarative: Checkout SCM)", "[Pipeline] checkout",
         "The recommended git tool is: NONE", "using credential github-app",
         " > git rev-parse --resolve-git-dir /var/lib/jenkins/workspace/%s/.git # timeout=10" % c.proj,
         "Fetching changes from the remote Git repository",
         " > git config remote.origin.url https://github.com/%s/%s.git # timeout=10" % (c.org, c.proj),
         "Fetching upstream changes from https://github.com/%s/%s.git" % (c.org, c.proj),
         " > git fetch --tags --force --progress -- https://github.com/%s/%s.git +refs/heads/*:refs/remotes/origin/* # timeout=10" % (c.org, c.proj),
         "Checking out Revision %s (%s)" % (sha, c.branch), "Commit message: \"%s\"" % commit_msg(),
         "[Pipeline] }", "[Pipeline] // stage", "[Pipeline] withEnv", "[Pipeline] {", "[Pipeline] stage", "[Pipeline] { (Deploy)",
         "[Pipeline] withCredentials", "Masking supported pattern matches of $NEXUS_PASS",
         "Warning: A secret was passed to \"sh\" using Groovy String interpolation, which is insecure.",
         "\t\t Affected argument(s) used the following variable(s): [NEXUS_PASS]",
         "\t\t See https://jenkins.io/redirect/groovy-string-interpolation for details.",
         "[Pipeline] {", "[Pipeline] sh", "+ mvn -B -s .ci/settings.xml -Dnexus.user=deployment -Dnexus.password=**** deploy"]
    L += maven_deploy_block(R.randint(2, 12))
    L += ["[INFO] Uploading to nexus-releases: %s/repository/maven-releases/com/acme/core/%s/core-%s.jar" % (nexus, "2.4.1", "2.4.1"),
          "[INFO] BUILD SUCCESS", "[Pipeline] }", "[Pipeline] // withCredentials", "[Pipeline] sh",
          "+ curl -sS -u deployment:%s %s/service/rest/v1/status/writable" % (m(pw), nexus),
          "[Pipeline] sh",
          "+ ./gradlew publishToSonatype closeAndReleaseSonatypeStagingRepository -Psigning.password=%s -Psigning.keyId=%s" % (m(sign_pw), hexs(8).upper())]
    L += gradle_noise(R.randint(3, 9), ":lib")
    L += ["", "BUILD SUCCESSFUL in %dm %ds" % (R.randint(0, 6), R.randint(1, 59)), "%d actionable tasks: %d executed, %d up-to-date" % (24, 17, 7),
          "[Pipeline] }", "[Pipeline] // stage", "[Pipeline] }", "[Pipeline] // withEnv", "[Pipeline] }", "[Pipeline] // node",
          "[Pipeline] End of Pipeline", "Finished: SUCCESS"]
    if chance(0.5):
        c.say("The deploy stage passes; checking the console log of build #%d for the staging repo id." % bn)
    c.run("curl -s -u %s:$JENKINS_API_TOKEN https://jenkins.%s/job/%s/job/%s/%d/consoleText" % (c.user, c.domain, c.proj, c.branch.replace("/", "%252F"), bn), L)
    return c.text()


@pos("glab_ci_trace_xtrace_unmasked")
def p_glab_trace():
    c = Ctx()
    npm = npm_token()
    twine = pypi_token(project=c.proj)
    t = c.t
    sec = lambda name: "section_start:%d:%s\r\x1b[0K" % (t + R.randint(0, 90), name)
    L = ["\x1b[0KRunning with gitlab-runner 17.%d.%d (%s)\x1b[0;m" % (R.randint(0, 5), R.randint(0, 3), hexs(8)),
         "\x1b[0K  on %s %s, system ID: s_%s\x1b[0;m" % (pick(HOSTS), "t2_" + rstr(ALNUM, 5), hexs(12)),
         sec("prepare_executor") + "\x1b[0K\x1b[0K\x1b[36;1mPreparing the \"docker\" executor\x1b[0;m\x1b[0;m",
         "\x1b[0KUsing Docker executor with image node:20-bookworm ...\x1b[0;m",
         "\x1b[0KPulling docker image node:20-bookworm ...\x1b[0;m",
         "\x1b[0KUsing docker image sha256:%s for node:20-bookworm with digest node@sha256:%s ...\x1b[0;m" % (sha256(), sha256()),
         sec("get_sources") + "\x1b[0K\x1b[0K\x1b[36;1mGetting source from Git repository\x1b[0;m\x1b[0;m",
         "\x1b[32;1mFetching changes with git depth set to 20...\x1b[0;m",
         "Reinitialized existing Git repository in /builds/%s/%s/.git/" % (c.org, c.proj),
         "\x1b[32;1mChecking out %s as detached HEAD (ref is v%s)...\x1b[0;m" % (hexs(8), c.ver),
         "\x1b[32;1mSkipping Git submodules setup\x1b[0;m",
         sec("step_script") + "\x1b[0K\x1b[0K\x1b[36;1mExecuting \"step_script\" stage of the job script\x1b[0;m\x1b[0;m",
         "\x1b[32;1m$ echo \"//${CI_SERVER_HOST}/api/v4/projects/${CI_PROJECT_ID}/packages/npm/:_authToken=${CI_JOB_TOKEN}\" > .npmrc\x1b[0;m",
         "\x1b[32;1m$ set -x\x1b[0;m",
         "\x1b[32;1m$ npm config set //registry.npmjs.org/:_authToken \"$NPM_PUBLISH_TOKEN\"\x1b[0;m",
         "+ npm config set //registry.npmjs.org/:_authToken %s" % m(npm),
         "\x1b[32;1m$ docker login -u gitlab-ci-token -p \"$CI_JOB_TOKEN\" \"$CI_REGISTRY\"\x1b[0;m",
         "+ docker login -u gitlab-ci-token -p [MASKED] registry.gitlab.com",
         "WARNING! Using --password via the CLI is insecure. Use --password-stdin.", "Login Succeeded",
         "\x1b[32;1m$ npm ci\x1b[0;m"]
    L += npm_install_noise(R.randint(0, 4))
    L += ["\x1b[32;1m$ npm publish --access public\x1b[0;m", "+ npm publish --access public",
          "npm notice", "npm notice 📦  @%s/%s@%s" % (c.org, c.proj, c.ver), "npm notice Tarball Contents",
          "npm notice %.1fkB dist/index.js" % R.uniform(2, 90), "npm notice %dB package.json" % R.randint(600, 2400),
          "npm notice Tarball Details", "npm notice name: @%s/%s" % (c.org, c.proj),
          "npm notice shasum: %s" % sha1(), "npm notice integrity: %s...%s" % (sri512()[:22], rstr(B64CH, 6) + "=="),
          "npm notice total files: %d" % R.randint(4, 40), "npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access",
          "+ @%s/%s@%s" % (c.org, c.proj, c.ver)]
    if chance(0.6):
        L += ["\x1b[32;1m$ TWINE_PASSWORD=$PYPI_TOKEN twine upload --non-interactive dist/*\x1b[0;m",
              "+ TWINE_PASSWORD=%s" % m(twine), "+ twine upload --non-interactive dist/*",
              "Uploading distributions to https://upload.pypi.org/legacy/",
              "Uploading %s-%s-py3-none-any.whl" % (c.proj.replace("-", "_"), c.ver),
              "100% ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 41.2/41.2 kB • 00:00 • 1.3 MB/s"]
    L += [sec("cleanup_file_variables") + "\x1b[0K\x1b[0K\x1b[36;1mCleaning up project directory and file based variables\x1b[0;m\x1b[0;m",
          "\x1b[32;1mJob succeeded\x1b[0;m"]
    c.run("glab ci trace %d -R %s/%s" % (R.randint(4000000, 9000000), c.org, c.proj), L)
    return c.text()


@pos("gitlab_trigger_runner_tokens_curl")
def p_gitlab_trigger():
    c = Ctx()
    trig = glptt()
    rt = glrt()
    gl = "https://gitlab.%s" % c.domain if chance(0.6) else "https://gitlab.com"
    pid = R.randint(100, 60000)
    sha = sha1()
    pl = R.randint(100000, 1900000)
    c.run('curl -sS -X POST --fail -F token=%s -F ref=%s -F "variables[DEPLOY_ENV]=%s" %s/api/v4/projects/%d/trigger/pipeline | jq .'
          % (m(trig), c.branch, pick(["staging", "production", "canary"]), gl, pid),
          ["{", '  "id": %d,' % pl, '  "iid": %d,' % R.randint(10, 4000), '  "project_id": %d,' % pid, '  "sha": "%s",' % sha,
           '  "ref": "%s",' % c.branch, '  "status": "created",', '  "source": "trigger",',
           '  "created_at": "%s",' % iso(c.t, 3), '  "web_url": "%s/%s/%s/-/pipelines/%d",' % (gl, c.org, c.proj, pl),
           '  "before_sha": "%s",' % ("0" * 40), '  "tag": false,', '  "user": {', '    "id": %d,' % R.randint(10, 9000),
           '    "username": "%s",' % c.user, '    "name": "%s"' % c.person, "  }", "}"])
    out = ["Runtime platform                                    arch=amd64 os=linux pid=%d revision=%s version=17.%d.0" % (R.randint(1000, 90000), hexs(8), R.randint(0, 5)),
           "Running in system-mode.                            ", "",
           "Verifying runner... is valid                        runner=%s" % (rt.split("_", 1)[-1][:8] if "_" in rt[5:9] else rt[5:13]),
           "Runner registered successfully. Feel free to start it, but if it's running already the config should be automatically reloaded!", "",
           'Configuration (with the authentication token) was saved in "/etc/gitlab-runner/config.toml" ']
    c.run("sudo gitlab-runner register --non-interactive --url %s --token %s --executor docker --docker-image alpine:3.20 --description %s"
          % (gl, m(rt), c.host), out)
    if chance(0.6):
        c.run("sudo grep -A6 '\\[\\[runners\\]\\]' /etc/gitlab-runner/config.toml",
              ["[[runners]]", '  name = "%s"' % c.host, '  url = "%s"' % gl, "  id = %d" % R.randint(1000, 99999),
               '  token = "%s"' % m(rt), '  token_obtained_at = %s' % iso(c.t), "  token_expires_at = 0001-01-01T00:00:00Z"])
    return c.text()


@pos("glab_variable_export_json")
def p_glab_export():
    c = Ctx()
    key = PgpKey(c.person, c.email)
    items = []

    def item(k, v, typ="env_var", prot=False, masked=False, raw=False, desc=None):
        items.append('  {\n    "variable_type": "%s",\n    "key": "%s",\n    "value": %s,\n    "hidden": false,\n    "protected": %s,\n    "masked": %s,\n    "raw": %s,\n    "environment_scope": "%s",\n    "description": %s\n  }'
                     % (typ, k, v, str(prot).lower(), str(masked).lower(), str(raw).lower(), pick(["*", "*", "production"]), json.dumps(desc) if desc else "null"))
    item("NODE_VERSION", '"20.14.0"')
    item("NPM_TOKEN", '"%s"' % m(npm_token()), prot=True, masked=True)
    item("REGISTRY_IMAGE", '"registry.gitlab.com/%s/%s"' % (c.org, c.proj))
    item("DOCKERHUB_TOKEN", '"%s"' % m(dckr_pat()), prot=True, masked=True, desc="hub push token, rotate yearly")
    item("PYPI_API_TOKEN", '"%s"' % m(pypi_token()), prot=True, masked=True)
    item("SIGNING_KEY_PASSWORD", '"%s"' % m(mk_pw_human()), prot=True)
    item("SONAR_HOST_URL", '"https://sonar.%s"' % c.domain)
    armored = "\\n".join(key.armor(True))
    item("GPG_PRIVATE_KEY", '"%s\\n"' % m(armored), typ="file", prot=True, raw=True)
    item("GPG_KEY_ID", '"%s"' % key.keyid)
    item("MAVEN_OPTS", '"-Dmaven.repo.local=$CI_PROJECT_DIR/.m2/repository -Xmx2g"', raw=False)
    if chance(0.5):
        item("DEPLOY_WEBHOOK", '"https://hooks.slack.com/services/T%s/B%s/%s"' % (rstr(UPPER + DIGITS, 8), rstr(UPPER + DIGITS, 10), m(rs(ALNUM, 24))), masked=True)
    body = ["["] + ",\n".join(items).split("\n") + ["]"]
    c.run("glab variable export -R %s/%s" % (c.org, c.proj), body)
    return c.text()


@pos("buildkite_job_env_redacted_partial")
def p_buildkite_env():
    c = Ctx()
    ks = mk_pw_human()
    hub = dckr_pat()
    npm_auth = docker_auth("ci-publisher", password("gen20"))
    build_id, job_id = uuid4(), uuid4()
    sha = sha1()
    bno = build_no()
    env = {"BUILDKITE": "true", "BUILDKITE_AGENT_ACCESS_TOKEN": "[REDACTED]", "BUILDKITE_AGENT_ID": uuid4(),
           "BUILDKITE_AGENT_NAME": "%s-%d" % (pick(["linux-amd64", "macos-arm64", "builder"]), R.randint(1, 40)),
           "BUILDKITE_BRANCH": c.branch, "BUILDKITE_BUILD_ID": build_id, "BUILDKITE_BUILD_NUMBER": str(bno),
           "BUILDKITE_BUILD_URL": "https://buildkite.com/%s/%s/builds/%d" % (c.org, c.proj, bno),
           "BUILDKITE_COMMIT": sha, "BUILDKITE_JOB_ID": job_id, "BUILDKITE_LABEL": ":rocket: Publish",
           "BUILDKITE_ORGANIZATION_SLUG": c.org, "BUILDKITE_PIPELINE_SLUG": c.proj, "BUILDKITE_REPO": "git@github.com:%s/%s.git" % (c.org, c.proj),
           "BUILDKITE_STEP_ID": uuid4(), "CARGO_REGISTRY_TOKEN": "[REDACTED]", "DOCKER_HUB_PAT": m(hub),
           "NPM_AUTH": m(npm_auth), "SIGNING_KEYSTORE_PASS": m(ks), "GITHUB_TOKEN": "[REDACTED]",
           "AWS_SECRET_ACCESS_KEY": "[REDACTED]", "AWS_ACCESS_KEY_ID": aws_key_id(), "HOME": "/var/lib/buildkite-agent",
           "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin", "CI": "true", "TERM": "xterm-256color"}
    lines = ["~~~ Preparing working directory", "$ cd /var/lib/buildkite-agent/builds/%s/%s/%s" % (env["BUILDKITE_AGENT_NAME"], c.org, c.proj),
             "$ git fetch -v --prune -- origin %s" % sha, "$ git checkout -f %s" % sha[:7],
             "# Cleaning again to catch any post-checkout changes", "~~~ Running plugin docker-login pre-command hook",
             ":docker: Logging into docker hub as %s" % c.org, "Login Succeeded", "~~~ Running commands", "$ env | sort"]
    lines += ["%s=%s" % (k, env[k]) for k in sorted(env)]
    lines += ["$ ./scripts/publish.sh", "+++ :package: publishing %s %s" % (c.proj, c.ver)]
    if chance(0.5):
        lines += npm_install_noise(R.randint(1, 3))
    c.run("bk job log %s -p %s/%s" % (job_id, c.org, c.proj) if chance(0.5) else "buildkite-agent artifact download publish.log . && cat publish.log", lines)
    return c.text()


@pos("circleci_cli_yml_and_api_curl")
def p_circleci():
    c = Ctx()
    tok = circle_pat()
    ctx_id = uuid4()
    slug = "gh/%s/%s" % (c.org, c.proj)
    c.show(c.tilde(c.home) + "/.circleci/cli.yml", ["host: https://circleci.com", "endpoint: graphql-unstable",
                                                    "token: %s" % m(tok), "rest_endpoint: api/v2", 'tls_cert: ""'], c.viewer(("cat", "bat", "read")))
    names = R.sample(["NPM_TOKEN", "DOCKER_PASS", "GPG_KEY", "SONAR_TOKEN", "AWS_SECRET_ACCESS_KEY", "CODECOV_TOKEN", "SLACK_WEBHOOK"], 4)
    out = ["{", '  "items": [']
    for i, n in enumerate(names):
        out += ["    {", '      "variable": "%s",' % n, '      "created_at": "%s",' % iso(c.t - R.randint(1e5, 9e7), 3),
                '      "updated_at": "%s",' % iso(c.t - R.randint(0, 9e4), 3), '      "context_id": "%s"' % ctx_id,
                "    }" + ("," if i < len(names) - 1 else "")]
    out += ["  ],", '  "next_page_token": null', "}"]
    c.run('curl -s -H "Circle-Token: %s" https://circleci.com/api/v2/context/%s/environment-variable | jq .' % (m(tok), ctx_id), out)
    npm = npm_token()
    c.run("curl -s -X POST -H \"Circle-Token: %s\" -H 'Content-Type: application/json' https://circleci.com/api/v2/project/%s/envvar -d '{\"name\":\"NPM_TOKEN\",\"value\":\"%s\"}'"
          % (m(tok), slug, m(npm)), ['{"name":"NPM_TOKEN","value":"xxxx%s"}' % npm[-4:]])
    return c.text()


@pos("drone_woodpecker_server_env")
def p_drone():
    c = Ctx()
    if chance(0.5):
        rpc = hexs(32)
        cs = gitea_oauth_secret()
        adm = rs(ALNUM, 32)
        dbpw = password(pick(["gen20", "mixed12", "season"]))
        L = ["services:", "  drone:", "    image: drone/drone:2.%d" % R.randint(16, 24), "    environment:",
             "      DRONE_DATABASE_DATASOURCE: postgres://drone:%s@db:5432/drone?sslmode=disable" % m(dbpw),
             "      DRONE_DATABASE_DRIVER: postgres", "      DRONE_GITEA_CLIENT_ID: %s" % uuid4(),
             "      DRONE_GITEA_CLIENT_SECRET: %s" % m(cs), "      DRONE_GITEA_SERVER: https://git.%s" % c.domain,
             "      DRONE_RPC_SECRET: %s" % m(rpc), "      DRONE_SERVER_HOST: drone.%s" % c.domain, "      DRONE_SERVER_PROTO: https",
             "      DRONE_USER_CREATE: username:%s,admin:true,token:%s" % (c.user, m(adm)), "    ports:", "      - published: 8080",
             "        target: 80", "  drone-runner:", "    image: drone/drone-runner-docker:1.8", "    environment:",
             "      DRONE_RPC_HOST: drone.%s" % c.domain, "      DRONE_RPC_PROTO: https", "      DRONE_RPC_SECRET: %s" % m(rpc),
             "      DRONE_RUNNER_CAPACITY: \"%d\"" % R.randint(2, 8), "      DRONE_RUNNER_NAME: %s" % c.host,
             "    volumes:", "      - type: bind", "        source: /var/run/docker.sock", "        target: /var/run/docker.sock"]
        c.run("docker compose -f deploy/drone/compose.yml config", ["name: drone"] + L)
        if chance(0.5):
            logs = []
            for _ in range(R.randint(5, 12)):
                svc = pick(["drone-1        ", "drone-runner-1 "])
                if svc.startswith("drone-1"):
                    msg = pick(['{"level":"info","msg":"main: internal scheduler enabled","time":"%s"}' % iso(c.tick(), 0),
                                '{"acme":false,"host":"drone.%s","level":"info","msg":"starting the http server","port":":80","proto":"https","time":"%s","url":"https://drone.%s"}' % (c.domain, iso(c.tick()), c.domain),
                                '{"interval":"30m0s","level":"info","msg":"starting the cron scheduler","time":"%s"}' % iso(c.tick())])
                else:
                    msg = pick(['time="%s" level=info msg="successfully pinged the remote server"' % iso(c.tick()),
                                'time="%s" level=info msg="polling the remote server" capacity=2 endpoint="https://drone.%s" kind=pipeline type=docker' % (iso(c.tick()), c.domain)])
                logs.append(svc + "| " + msg)
            c.run("docker compose -f deploy/drone/compose.yml logs --tail %d" % len(logs), logs)
        if chance(0.6):
            c.run("drone secret add --repository %s/%s --name docker_password --data %s" % (c.org, c.proj, m(password())), [])
    else:
        ag = hexs(64)
        gs = hexs(40)
        L = ["WOODPECKER_HOST=https://ci.%s" % c.domain, "WOODPECKER_OPEN=false", "WOODPECKER_ADMIN=%s" % c.user,
             "WOODPECKER_GITHUB=true", "WOODPECKER_GITHUB_CLIENT=%s" % ("Iv1." + hexs(16) if chance(0.5) else hexs(20)),
             "WOODPECKER_GITHUB_SECRET=%s" % m(gs), "WOODPECKER_AGENT_SECRET=%s" % m(ag),
             "WOODPECKER_DATABASE_DRIVER=sqlite3", "WOODPECKER_LOG_LEVEL=info", "",
             "# agent", "WOODPECKER_SERVER=ci.%s:9000" % c.domain, "WOODPECKER_AGENT_SECRET=%s" % m(ag),
             "WOODPECKER_MAX_WORKFLOWS=%d" % R.randint(1, 6), "WOODPECKER_BACKEND=docker"]
        c.show("/etc/woodpecker/woodpecker.env", L, c.viewer())
        if chance(0.5):
            tok = jwt({"alg": "HS256", "typ": "JWT"}, {"type": "user", "user-id": str(R.randint(1, 50))}, 32)
            c.run("woodpecker-cli --server https://ci.%s --token %s repo ls" % (c.domain, m(tok)),
                  ["%s/%s" % (c.org, p) for p in R.sample(PROJECTS, 4)])
    return c.text()


@pos("tekton_git_basic_auth_secret_yaml")
def p_tekton():
    c = Ctx()
    tok = gh_token(pick(["ghp_", "ghs_"])) if chance(0.6) else glpat()
    user = pick(["x-access-token", "oauth2", c.user, "tekton-bot"])
    dcfg_pw = dckr_pat()
    dcj = json.dumps({"auths": {"https://index.docker.io/v1/": {"username": c.org, "password": dcfg_pw, "auth": docker_auth(c.org, dcfg_pw)}}}, separators=(",", ":"))
    dcj_b64 = fresh(lambda: b64e(dcj.encode()))
    ns = pick(["ci", "tekton-pipelines", "build"])
    la = json.dumps({"apiVersion": "v1", "kind": "Secret", "metadata": {"annotations": {"tekton.dev/git-0": "https://github.com"}, "name": "git-basic-auth", "namespace": ns},
                     "stringData": {"password": "@@TOK@@", "username": user}, "type": "kubernetes.io/basic-auth"}, separators=(",", ":"))
    la = la.replace("@@TOK@@", m(tok))
    L = ["apiVersion: v1", "data:", "  password: %s" % m(b64e(tok.encode())), "  username: %s" % b64e(user.encode()),
         "kind: Secret", "metadata:", "  annotations:", "    kubectl.kubernetes.io/last-applied-configuration: |", "      " + la,
         "    tekton.dev/git-0: https://github.com", "  creationTimestamp: \"%s\"" % iso(c.t), "  name: git-basic-auth",
         "  namespace: %s" % ns, "  resourceVersion: \"%d\"" % R.randint(100000, 9999999), "  uid: %s" % uuid4(),
         "type: kubernetes.io/basic-auth", "---", "apiVersion: v1", "data:", "  .dockerconfigjson: %s" % m(dcj_b64), "kind: Secret",
         "metadata:", "  annotations:", "    tekton.dev/docker-0: https://index.docker.io/v1/", "  name: dockerhub-push",
         "  namespace: %s" % ns, "  uid: %s" % uuid4(), "type: kubernetes.io/dockerconfigjson"]
    c.run("kubectl get secret git-basic-auth dockerhub-push -n %s -o yaml" % ns, L)
    if chance(0.6):
        c.run("kubectl get secret git-basic-auth -n %s -o jsonpath='{.data.password}' | base64 -d; echo" % ns, [m(tok)])
    if chance(0.5):
        c.run("tkn pr logs -f -n %s --last" % ns,
              ["[fetch-source : clone] + git config --global --add safe.directory /workspace/output",
               "[fetch-source : clone] {\"level\":\"info\",\"ts\":%d.%d,\"caller\":\"git/git.go:176\",\"msg\":\"Successfully cloned https://github.com/%s/%s.git @ %s (grafted, HEAD) in path /workspace/output/\"}" % (c.t, R.randint(100000, 999999), c.org, c.proj, sha1()),
               "[build-push : build-and-push] INFO[0004] Retrieving image manifest golang:1.22", "[build-push : build-and-push] INFO[0041] Pushed index.docker.io/%s/%s@sha256:%s" % (c.org, c.proj, sha256())])
    return c.text()


@pos("argo_auth_token_artifact_repo")
def p_argo():
    c = Ctx()
    ns = pick(["argo", "workflows", "ci"])
    tok = k8s_sa_jwt(ns, pick(["argo-server", "ci-bot", "argo-workflow"]))
    sk = rs(ALNUM + "+/", 40)
    ak = rs(UPPER + DIGITS, 20)
    c.run("argo auth token", ["Bearer " + m(tok)])
    wf = "%s-release-%s" % (c.proj, rstr(LOWER + DIGITS, 5))
    c.run('curl -s -H "Authorization: Bearer %s" https://argo.%s/api/v1/workflows/%s?listOptions.limit=2 | jq -c \'.items[] | {name: .metadata.name, phase: .status.phase}\''
          % (m(tok), c.domain, ns), ['{"name":"%s","phase":"Succeeded"}' % wf, '{"name":"%s-nightly-%s","phase":"Running"}' % (c.proj, rstr(LOWER + DIGITS, 5))])
    c.run("kubectl -n %s get cm artifact-repositories -o jsonpath='{.data.default-v1}'" % ns,
          ["s3:", "  bucket: %s-artifacts" % c.org, "  endpoint: minio.%s.svc:9000" % ns, "  insecure: true",
           "  accessKeySecret:", "    name: my-minio-cred", "    key: accesskey", "  secretKeySecret:", "    name: my-minio-cred", "    key: secretkey"])
    c.run("kubectl -n %s get secret my-minio-cred -o json | jq -r '.data | map_values(@base64d)'" % ns,
          ["{", '  "accesskey": "%s",' % ak, '  "secretkey": "%s"' % m(sk), "}"])
    return c.text()


@pos("azure_devops_variable_group_az_cli")
def p_azdo_vg():
    c = Ctx()
    pat = azdo_pat()
    kpw = mk_pw_human()
    nk = nuget_key()
    cmds = history_noise(R.randint(1, 8)) + ["export AZURE_DEVOPS_EXT_PAT=%s" % m(pat),
                                               "az devops configure --defaults organization=https://dev.azure.com/%s project=%s" % (c.org, c.proj)]
    c.run("history | tail -n %d" % len(cmds), hist_lines(cmds))
    gid = R.randint(3, 400)
    cmd = "az pipelines variable-group create --name release-signing --authorize true --variables KEYSTORE_PASSWORD=%s KEY_ALIAS=upload NUGET_API_KEY=%s" % (m(kpw), m(nk))
    out = ["{", '  "authorized": true,', '  "description": null,', '  "id": %d,' % gid, '  "name": "release-signing",',
           '  "providerData": null,', '  "type": "Vsts",', '  "variables": {', '    "KEY_ALIAS": {', '      "isReadOnly": null,',
           '      "isSecret": null,', '      "value": "upload"', "    },", '    "KEYSTORE_PASSWORD": {', '      "isReadOnly": null,',
           '      "isSecret": null,', '      "value": "%s"' % m(kpw), "    },", '    "NUGET_API_KEY": {', '      "isReadOnly": null,',
           '      "isSecret": null,', '      "value": "%s"' % m(nk), "    }", "  }", "}"]
    c.run(cmd, out)
    if chance(0.6):
        c.run("az pipelines variable-group variable create --group-id %d --name STORE_PASS --secret true --value %s" % (gid, m(password())),
              ["{", '  "STORE_PASS": {', '    "isReadOnly": null,', '    "isSecret": true,', '    "value": null', "  }", "}"])
    return c.text()


@pos("bitbucket_pipelines_variables_api")
def p_bitbucket():
    c = Ctx()
    ap = atbb()
    ws = c.org
    vals = [("SONAR_TOKEN", "squ_" + hexs(40), False), ("DOCKER_HUB_PASSWORD", None, True), ("NPM_TOKEN", None, True),
            ("AWS_DEFAULT_REGION", "eu-west-1", False), ("FIREBASE_TOKEN", "1//0" + rstr(URLSAFE, 99), False),
            ("SENTRY_ORG", c.org, False), ("HEROKU_API_KEY", uuid4(), False)]
    R.shuffle(vals)
    secrets = {"SONAR_TOKEN", "FIREBASE_TOKEN", "HEROKU_API_KEY"}
    out = ["{", '  "pagelen": 50,', '  "values": [']
    for i, (k, v, sec) in enumerate(vals):
        body = ['      "type": "pipeline_variable",', '      "uuid": "{%s}",' % uuid4(), '      "key": "%s",' % k, '      "secured": %s' % str(sec).lower()]
        if not sec:
            body[-1] += ","
            body.append('      "value": "%s"' % (m(v) if k in secrets else v))
        out += ["    {"] + body + ["    }" + ("," if i < len(vals) - 1 else "")]
    out += ["  ],", '  "page": 1,', '  "size": %d' % len(vals), "}"]
    c.run("curl -s -u %s:%s 'https://api.bitbucket.org/2.0/repositories/%s/%s/pipelines_config/variables/?pagelen=50' | jq ." % (c.user, m(ap), ws, c.proj), out)
    if chance(0.5):
        rat = fresh(lambda: "ATCTT3xFfGF0" + rstr(URLSAFE, 171) + "=" + HEX.upper()[0:0] + rstr(HEX.upper(), 8))
        c.run("git remote -v", ["origin\thttps://x-token-auth:%s@bitbucket.org/%s/%s.git (fetch)" % (m(rat), ws, c.proj),
                                "origin\thttps://x-token-auth:%s@bitbucket.org/%s/%s.git (push)" % (m(rat), ws, c.proj)])
    return c.text()


def teamcity_zxx():
    return rs(HEX, R.choice([16, 24, 32, 40]), "zxx")


@pos("teamcity_rest_bearer_zxx_scrambled")
def p_teamcity():
    c = Ctx()
    tok = teamcity_token()
    scr = teamcity_zxx()
    tc = "https://teamcity.%s" % c.domain
    bt = "%s_%s_Release" % (c.org.replace("-", "").capitalize(), c.proj.replace("-", "").capitalize())
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>', '<builds count="3" href="/app/rest/builds?locator=buildType:%s,count:3">' % bt]
    for _ in range(3):
        bid = R.randint(10000, 900000)
        out.append('  <build id="%d" buildTypeId="%s" number="%s" status="SUCCESS" state="finished" branchName="%s" href="/app/rest/builds/id:%d" webUrl="%s/viewLog.html?buildId=%d&amp;buildTypeId=%s"/>'
                   % (bid, bt, semver(), c.branch, bid, tc, bid, bt))
    out.append("</builds>")
    c.run('curl -s -H "Authorization: Bearer %s" "%s/app/rest/builds?locator=buildType:%s,count:3"' % (m(tok), tc, bt), out)
    L = ["import jetbrains.buildServer.configs.kotlin.*", "import jetbrains.buildServer.configs.kotlin.buildSteps.script", "",
         'version = "2024.03"', "", "project {", "    buildType(Release)", "", "    params {",
         '        password("env.NPM_TOKEN", "credentialsJSON:%s", display = ParameterDisplay.HIDDEN)' % uuid4(),
         '        password("env.SIGNING_PASSWORD", "%s", display = ParameterDisplay.HIDDEN)' % m(scr),
         '        param("env.REGISTRY", "https://npm.pkg.github.com")', "    }", "}", "", "object Release : BuildType({",
         '    name = "Release"', "    steps {", "        script {", '            scriptContent = "./scripts/release.sh %env.RELEASE_VERSION%"',
         "        }", "    }", "})"]
    c.show(".teamcity/settings.kts", L, c.viewer())
    return c.text()


@pos("concourse_flyrc_credhub_get")
def p_concourse():
    c = Ctx()
    if chance(0.5):
        tok = rs(URLSAFE, 43)
    else:
        tok = jwt({"alg": "RS256", "typ": "JWT"}, {"csrf": hexs(64), "exp": ts_epoch(), "is_admin": True, "sub": "Cg%s" % rstr(ALNUM, 10),
                                                  "teams": {"main": ["owner"]}, "user_id": c.user, "user_name": c.user})
    pw = password()
    L = ["targets:", "  main:", "    api: https://ci.%s" % c.domain, "    team: main", "    token:", "      type: bearer", "      value: %s" % m(tok)]
    if chance(0.5):
        L += ["  local:", "    api: http://localhost:8080", "    team: main", "    token:", "      type: bearer", "      value: \"\""]
    c.show(c.tilde(c.home) + "/.flyrc", L, c.viewer(("cat", "bat", "read", "sed")))
    c.run("credhub get -n /concourse/main/registry-password",
          ["id: %s" % uuid4(), "name: /concourse/main/registry-password", "type: password", "value: %s" % m(pw),
           "version_created_at: \"%s\"" % iso(c.t)])
    if chance(0.6):
        per = c.pfx
        blob = rsa_pem_blob(pkcs8=False) if chance(0.5) else ec_sec1(*p256_pair())
        label = "RSA PRIVATE KEY" if len(blob) > 400 else "EC PRIVATE KEY"
        c.run("credhub get -n /concourse/main/github-deploy-key -k private_key", mark_block(pem_lines(label, blob), per))
    return c.text()


@pos("travis_cli_login_env_public")
def p_travis():
    c = Ctx()
    gh = gh_token()
    tt = rs(URLSAFE, 22)
    val = pick([npm_token, lambda: password("gen20"), lambda: rubygems_key()])()
    name = pick(["DEPLOY_API_KEY", "RELEASE_TOKEN", "PUBLISH_KEY"])
    c.run("travis login --pro --github-token %s" % m(gh), ["Successfully logged in as %s!" % c.user])
    c.run("travis token --pro", ["Your access token is %s" % m(tt)])
    c.run("travis env set %s %s --public -r %s/%s" % (name, m(val), c.org, c.proj), ["[+] setting environment variable $%s" % name])
    c.run("travis env list -r %s/%s" % (c.org, c.proj),
          ["# environment variables for %s/%s" % (c.org, c.proj), "NPM_TOKEN=[secure]", "GPG_PASSPHRASE=[secure]", "%s=%s" % (name, m(val)), "NODE_ENV=production"])
    return c.text()

# ================================================================ POSITIVE: package registries
@pos("npmrc_multi_registry_bat")
def p_npmrc():
    c = Ctx()
    v = c.viewer(("cat", "bat", "read", "cat_n", "head", "cat_A"))
    gh = gh_token()
    npm = npm_token()
    nx_user, nx_pw = pick(["ci-reader", "npm-deploy", c.user]), password()
    nx_auth = docker_auth(nx_user, nx_pw)
    af_pw = password(pick(["gen20", "b64", "mixed12"]))
    af_b64 = fresh(lambda: b64e(af_pw.encode()))
    nexus = "nexus.%s/repository/npm-group/" % c.domain
    af = "%s.jfrog.io/artifactory/api/npm/npm-virtual/" % c.org
    L = ["; managed by dotfiles — %s" % pick(["do not commit", "see README", "rotate quarterly"]), "registry=https://registry.npmjs.org/",
         "@%s:registry=https://npm.pkg.github.com/" % c.org, "//npm.pkg.github.com/:_authToken=%s" % m(gh),
         "//registry.npmjs.org/:_authToken=%s" % m(npm), "@internal:registry=https://%s" % nexus, "//%s:_auth=%s" % (nexus, m(nx_auth)),
         "//%s:always-auth=true" % nexus, "@vendor:registry=https://%s" % af, "//%s:username=%s" % (af, c.user),
         "//%s:_password=%s" % (af, m(af_b64)), "//%s:email=%s" % (af, c.email)]
    if chance(0.5):
        L += ["//localhost:4873/:_authToken=\"%s\"" % m(b64n(R.choice([48, 64])))]
    L += ["save-exact=true", "engine-strict=true", "fund=false", "init-author-name=%s" % c.person, "init-license=Apache-2.0"]
    c.show("~/.npmrc", L, v)
    if chance(0.6):
        c.run("grep _auth= ~/.npmrc | cut -d= -f2- | base64 -d; echo", ["%s:%s" % (nx_user, m(nx_pw))])
    if chance(0.5):
        c.run("npm whoami --registry https://npm.pkg.github.com/", [c.user])
    if chance(0.4):
        rv = pick([u for u in USERS if u != c.user])
        c.run("gh pr view %d --comments" % R.randint(20, 900),
              ["chore: share npm config with the team %s" % c.org, "Open • %s wants to merge 1 commit into main from %s" % (c.user, c.branch), "", "",
               "%s (Member) • %s • Newest comment" % (rv, pick(["2 hours ago", "about 1 day ago", "5 minutes ago"])), "",
               "  > //registry.npmjs.org/:_authToken=%s" % m(npm), "", "  This is a live automation token — please revoke it and switch to",
               "  `//registry.npmjs.org/:_authToken=${NPM_TOKEN}` before merging. 🔐", "", "View this pull request on GitHub: https://github.com/%s/%s/pull/%d" % (c.org, c.proj, R.randint(20, 900))])
    return c.text()


@pos("yarnrc_berry_npm_scopes_diff")
def p_yarnrc_diff():
    c = Ctx()
    old = npm_token()
    gh = gh_token()
    ident_pw = password()
    nx = "https://nexus.%s/repository/npm-internal/" % c.domain
    out = ["diff --git a/.yarnrc.yml b/.yarnrc.yml", "index %s..%s 100644" % (hexs(7), hexs(7)), "--- a/.yarnrc.yml", "+++ b/.yarnrc.yml",
           "@@ -1,7 +1,16 @@", " compressionLevel: mixed", " enableGlobalCache: false", " nodeLinker: node-modules",
           "-npmAuthToken: %s" % m(old), "-npmAlwaysAuth: true", "+npmScopes:", "+  %s:" % c.org,
           '+    npmRegistryServer: "https://npm.pkg.github.com"', '+    npmAuthToken: "%s"' % m(gh), "+  internal:",
           '+    npmRegistryServer: "%s"' % nx, "+    npmAlwaysAuth: true", '+    npmAuthIdent: "ci-reader:%s"' % m(ident_pw),
           "+npmPublishRegistry: \"https://registry.npmjs.org\"", "+npmAuthToken: \"${NPM_TOKEN:-}\"",
           " yarnPath: .yarn/releases/yarn-4.%d.%d.cjs" % (R.randint(0, 5), R.randint(0, 3))]
    if chance(0.5):
        out += ["diff --git a/package.json b/package.json", "index %s..%s 100644" % (hexs(7), hexs(7)), "--- a/package.json", "+++ b/package.json",
                "@@ -2,7 +2,7 @@", '   "name": "@%s/%s",' % (c.org, c.proj), '-  "version": "%s",' % c.prev, '+  "version": "%s",' % c.ver,
                '   "packageManager": "yarn@4.3.1+sha512.%s",' % hexs(128)[:128], '   "private": false,']
    c.run("git diff" + pick(["", " HEAD", " --cached"]), out)
    if chance(0.5):
        c.run("yarn config get npmScopes.%s.npmAuthToken" % c.org, ["********"])
    return c.text()


@pos("pypirc_twine_upload_verbose")
def p_pypirc():
    c = Ctx()
    t1 = pypi_token(project=c.proj if chance(0.5) else None)
    t2 = pypi_token(test=True)
    ipw = password()
    repo = pick(["https://nexus.%s/repository/pypi-internal/" % c.domain, "https://devpi.%s/%s/prod/" % (c.domain, c.user),
                 "https://%s.jfrog.io/artifactory/api/pypi/pypi-local" % c.org])
    L = ["[distutils]", "index-servers =", "    pypi", "    testpypi", "    internal", "", "[pypi]", "username = __token__",
         "password = %s" % m(t1), "", "[testpypi]", "repository = https://test.pypi.org/legacy/", "username = __token__",
         "password = %s" % m(t2), "", "[internal]", "repository = %s" % repo, "username = deploy", "password = %s" % m(ipw)]
    c.show("~/.pypirc", L, c.viewer(("cat", "cat_n", "nl", "bat", "read", "sed", "head", "cat_A")))
    pkg = c.proj.replace("-", "_")
    vv = semver()
    out = ["INFO     Using configuration from %s/.pypirc" % c.home, "Uploading distributions to %s" % repo,
           "INFO     dist/%s-%s-py3-none-any.whl (%.1f KB)" % (pkg, vv, R.uniform(8, 400)),
           "INFO     dist/%s-%s.tar.gz (%.1f KB)" % (pkg, vv, R.uniform(8, 400)), "INFO     username set from config file",
           "INFO     password set from config file", "INFO     username: deploy", "INFO     password: <hidden>",
           "Uploading %s-%s-py3-none-any.whl" % (pkg, vv), "100%% ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ %.1f/%.1f kB • 00:00 • ?" % (40.1, 40.1),
           "INFO     Response from %s:" % repo, "         200 OK", "Uploading %s-%s.tar.gz" % (pkg, vv),
           "100%% ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ %.1f/%.1f kB • 00:00 • ?" % (37.9, 37.9), "INFO     Response from %s:" % repo, "         200 OK"]
    if chance(0.5):
        out = ["INFO     Checking dist/%s-%s-py3-none-any.whl: PASSED" % (pkg, vv)] + out
    c.run("twine upload -r internal -v dist/*", out)
    return c.text()


@pos("cargo_credentials_toml_publish")
def p_cargo():
    c = Ctx()
    cio = crates_token()
    kel = rs(ALNUM, 32)
    jf = jfrog_access_token(c.user)
    L = ["[registry]", 'token = "%s"' % m(cio), "", "[registries.kellnr]", 'token = "%s"' % m(kel)]
    if chance(0.6):
        L += ["", "[registries.artifactory]", 'token = "Bearer %s"' % m(jf)]
    c.show("~/.cargo/credentials.toml", L, c.viewer(("cat", "bat", "read", "sed")))
    out = ["    Updating crates.io index", "   Packaging %s v%s (%s)" % (c.proj, c.ver, c.cwd)]
    out += ["    Updating crates.io index", "    Packaged %d files, %.1fKiB (%.1fKiB compressed)" % (R.randint(12, 90), R.uniform(40, 900), R.uniform(10, 200)),
            "   Verifying %s v%s (%s)" % (c.proj, c.ver, c.cwd)]
    out += cargo_noise()
    out += ["    Finished `dev` profile [unoptimized + debuginfo] target(s) in %.2fs" % R.uniform(5, 90),
            "   Uploading %s v%s (%s)" % (c.proj, c.ver, c.cwd), "    Uploaded %s v%s to registry `crates-io`" % (c.proj, c.ver),
            "note: waiting for `%s v%s` to be available at registry `crates-io`." % (c.proj, c.ver),
            "You may press ctrl-c to skip waiting; the crate should be available shortly.",
            "   Published %s v%s at registry `crates-io`" % (c.proj, c.ver)]
    c.run("cargo publish", out)
    return c.text()


@pos("gem_signin_credentials_bundle_config")
def p_gem():
    c = Ctx()
    rg = rubygems_key()
    gh = gh_token()
    v = c.viewer(("cat", "read", "bat"))
    c.show("~/.gem/credentials", ["---", ":rubygems_api_key: %s" % m(rg), ":https://rubygems.pkg.github.com/%s: Bearer %s" % (c.org, m(gh))], v)
    c.run("bundle config get rubygems.pkg.github.com" if chance(0.5) else "bundle config",
          ["Settings are listed in order of priority. The top value will be used.", "rubygems.pkg.github.com",
           'Set for the current user (%s/.bundle/config): "%s:%s"' % (c.home, c.user, m(gh))])
    gem = c.proj
    vv = semver()
    c.run("gem build %s.gemspec && gem push %s-%s.gem" % (gem, gem, vv),
          ["  Successfully built RubyGem", "  Name: %s" % gem, "  Version: %s" % vv, "  File: %s-%s.gem" % (gem, vv),
           "Pushing gem to https://rubygems.org...", "Successfully registered gem: %s (%s)" % (gem, vv)])
    return c.text()


@pos("dotnet_nuget_add_source_cleartext")
def p_nuget():
    c = Ctx()
    gh = gh_token()
    pat = azdo_pat()
    nk = nuget_key()
    cmds = ["dotnet nuget add source https://nuget.pkg.github.com/%s/index.json --name github --username %s --password %s --store-password-in-clear-text" % (c.org, c.user, m(gh)),
            "dotnet nuget add source https://pkgs.dev.azure.com/%s/_packaging/%s/nuget/v3/index.json -n azure-artifacts -u az -p %s --store-password-in-clear-text" % (c.org, pick(["internal", "shared", "release"]), m(pat))]
    c.run("history | grep 'nuget add source'", hist_lines(cmds))
    L = ['<?xml version="1.0" encoding="utf-8"?>', "<configuration>", "  <packageSources>",
         '    <add key="nuget.org" value="https://api.nuget.org/v3/index.json" protocolVersion="3" />',
         '    <add key="github" value="https://nuget.pkg.github.com/%s/index.json" />' % c.org,
         '    <add key="azure-artifacts" value="https://pkgs.dev.azure.com/%s/_packaging/release/nuget/v3/index.json" />' % c.org,
         "  </packageSources>", "  <packageSourceCredentials>", "    <github>", '      <add key="Username" value="%s" />' % c.user,
         '      <add key="ClearTextPassword" value="%s" />' % m(gh), "    </github>", "    <azure-artifacts>",
         '      <add key="Username" value="az" />', '      <add key="ClearTextPassword" value="%s" />' % m(pat), "    </azure-artifacts>",
         "  </packageSourceCredentials>", "  <apikeys>",
         '    <add key="https://www.nuget.org/api/v2/package" value="AQAAANCMnd8BFdERjHoAwE/Cl+sBAAAA%s" />' % b64n(R.choice([150, 198])),
         "  </apikeys>", "</configuration>"]
    c.show("~/.nuget/NuGet/NuGet.Config", L, c.viewer())
    pkg = "%s.%s" % (c.org.replace("-", "").capitalize(), c.proj.replace("-", "").capitalize())
    vv = semver()
    c.run("dotnet nuget push bin/Release/%s.%s.nupkg --api-key %s --source https://api.nuget.org/v3/index.json" % (pkg, vv, m(nk)),
          ["Pushing %s.%s.nupkg to 'https://www.nuget.org/api/v2/package'..." % (pkg, vv), "  PUT https://www.nuget.org/api/v2/package/",
           "  Created https://www.nuget.org/api/v2/package/ %dms" % R.randint(400, 4000), "Your package was pushed."])
    return c.text()


@pos("mvn_effective_settings_show_passwords")
def p_mvn_eff():
    c = Ctx()
    cu, cp = rs(ALNUM, 8), rs(ALNUM + "+/", 44)
    npw = password()
    gpw = mk_pw_human()
    gh = gh_token()
    sq = "squ_" + hexs(40)
    key = PgpKey(c.person, c.email)
    L = ["[INFO] Scanning for projects...", "[INFO] ", "[INFO] --- help:3.4.1:effective-settings (default-cli) @ %s ---" % c.proj, "[INFO] ",
         "Effective user-specific configuration settings:", "", '<?xml version="1.0" encoding="UTF-8"?>',
         "<!-- ====================================================================== -->", "<!--                                                                        -->",
         "<!-- Generated by Maven Help Plugin                                         -->", "<!-- See: https://maven.apache.org/plugins/maven-help-plugin/               -->",
         "<!--                                                                        -->", "<!-- ====================================================================== -->",
         "<!-- ====================================================================== -->", "<!--                                                                        -->",
         "<!-- Effective Settings for '%s' on '%s'%s-->" % (c.user, c.host, " " * max(1, 47 - len(c.user) - len(c.host))),
         "<!--                                                                        -->", "<!-- ====================================================================== -->",
         '<settings xmlns="http://maven.apache.org/SETTINGS/1.2.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/SETTINGS/1.2.0 https://maven.apache.org/xsd/settings-1.2.0.xsd">',
         "  <localRepository>%s/.m2/repository</localRepository>" % c.home, "  <servers>", "    <server>",
         "      <username>%s</username>" % cu, "      <password>%s</password>" % m(cp), "      <id>central</id>", "    </server>",
         "    <server>", "      <username>deployment</username>", "      <password>%s</password>" % m(npw), "      <id>nexus-releases</id>", "    </server>",
         "    <server>", "      <username>deployment</username>", "      <password>{%s}</password>" % b64n(32), "      <id>nexus-snapshots</id>", "    </server>",
         "    <server>", "      <passphrase>%s</passphrase>" % m(gpw), "      <id>gpg.passphrase</id>", "    </server>",
         "    <server>", "      <username>%s</username>" % c.user, "      <password>%s</password>" % m(gh), "      <id>github</id>", "    </server>",
         "  </servers>", "  <mirrors>", "    <mirror>", "      <mirrorOf>external:*,!github</mirrorOf>",
         "      <url>https://nexus.%s/repository/maven-public/</url>" % c.domain, "      <id>nexus</id>", "    </mirror>", "  </mirrors>",
         "  <profiles>", "    <profile>", "      <properties>", "        <gpg.keyname>%s</gpg.keyname>" % key.fpr,
         "        <sonar.host.url>https://sonar.%s</sonar.host.url>" % c.domain, "        <sonar.token>%s</sonar.token>" % m(sq),
         "      </properties>", "      <id>release</id>", "    </profile>", "  </profiles>", "  <activeProfiles>",
         "    <activeProfile>release</activeProfile>", "  </activeProfiles>", "</settings>", "", "[INFO] ------------------------------------------------------------------------",
         "[INFO] BUILD SUCCESS", "[INFO] ------------------------------------------------------------------------",
         "[INFO] Total time:  %.3f s" % R.uniform(0.6, 4), "[INFO] Finished at: %s" % iso(c.t, z="+02:00"),
         "[INFO] ------------------------------------------------------------------------"]
    c.run("mvn -N help:effective-settings -DshowPasswords=true", L)
    return c.text()


@pos("gradle_properties_central_signing")
def p_gradle_props():
    c = Ctx()
    key = PgpKey(c.person, c.email)
    cu, cp = rs(ALNUM, 8), rs(ALNUM + "+/", 44)
    spw = mk_pw_human()
    gh = gh_token()
    oneline = key.body_oneline()
    L = ["org.gradle.jvmargs=-Xmx4g -XX:+UseParallelGC -Dfile.encoding=UTF-8", "org.gradle.caching=true", "org.gradle.parallel=true", "",
         "# Maven Central (Central Portal user token)", "mavenCentralUsername=%s" % cu, "mavenCentralPassword=%s" % m(cp), "",
         "# signing", "signing.keyId=%s" % key.keyid[-8:], "signing.password=%s" % m(spw),
         "signing.secretKeyRingFile=%s/.gnupg/secring.gpg" % c.home, "signingInMemoryKeyId=%s" % key.keyid[-8:],
         "signingInMemoryKeyPassword=%s" % m(spw), "signingInMemoryKey=%s" % m(oneline), "",
         "# GitHub Packages", "gpr.user=%s" % c.user, "gpr.key=%s" % m(gh)]
    if chance(0.5):
        L += ["", "systemProp.org.gradle.internal.http.connectionTimeout=120000", "kotlin.daemon.jvmargs=-Xmx2g"]
    c.show("~/.gradle/gradle.properties", L, c.viewer(("cat", "cat_n", "nl", "bat", "read", "sed", "head", "cat_A")))
    if chance(0.5):
        out = gradle_noise(R.randint(5, 10), ":lib") + ["", "BUILD SUCCESSFUL in %ds" % R.randint(8, 200), "%d actionable tasks: %d executed" % (31, 31)]
        c.run("./gradlew publishToMavenCentral --no-configuration-cache", out)
    return c.text()


@pos("composer_global_auth_bat_history")
def p_composer():
    c = Ctx()
    pk = rs(HEX, 64, "packagist_ort_")
    gh = gh_token(pick(["ghp_", "gho_"]))
    gl = glpat()
    ck, csec = rs(ALNUM, 18), rs(ALNUM, 32)
    spw = password()
    doc = ['{', '    "http-basic": {', '        "repo.packagist.com": {', '            "username": "token",',
           '            "password": "%s"' % m(pk), '        },', '        "satis.%s": {' % c.domain, '            "username": "deploy",',
           '            "password": "%s"' % m(spw), '        }', '    },', '    "github-oauth": {', '        "github.com": "%s"' % m(gh), '    },',
           '    "gitlab-token": {', '        "gitlab.%s": "%s"' % (c.domain, m(gl)), '    },', '    "bitbucket-oauth": {', '        "bitbucket.org": {',
           '            "consumer-key": "%s",' % ck, '            "consumer-secret": "%s"' % m(csec), '        }', '    }', '}']
    c.show("~/.config/composer/auth.json", doc, c.viewer(("bat", "cat", "read", "cat_n")))
    if chance(0.6):
        cmds = ["composer config --global --auth http-basic.repo.packagist.com token %s" % m(pk),
                "composer config --global --auth gitlab-token.gitlab.%s %s" % (c.domain, m(gl)),
                "composer config --global repositories.private composer https://repo.packagist.com/%s/" % c.org]
        c.run("history | grep 'composer config'", hist_lines(cmds))
    return c.text()


@pos("go_env_goprivate_netrc_cat")
def p_go_netrc():
    c = Ctx()
    apw = password(pick(["gen20", "mixed12", "word"]))
    gh = gh_token(pick(["ghp_", "ghs_"]))
    gl = glpat()
    jf = jfrog_ref_token()
    c.run("go env | grep -E 'GOPRIVATE|GONOSUMDB|GONOPROXY|GOPROXY|GOFLAGS'",
          ["GOFLAGS='-mod=mod'", "GONOPROXY='github.com/%s/*'" % c.org, "GONOSUMDB='github.com/%s/*,gitlab.%s/*'" % (c.org, c.domain),
           "GOPRIVATE='github.com/%s/*,gitlab.%s/*'" % (c.org, c.domain), "GOPROXY='https://ci:%s@athens.%s,https://proxy.golang.org,direct'" % (m(apw), c.domain)])
    L = ["machine github.com", "  login x-access-token", "  password %s" % m(gh), "", "machine gitlab.%s" % c.domain,
         "  login oauth2", "  password %s" % m(gl), "", "machine %s.jfrog.io login %s password %s" % (c.org, c.user, m(jf))]
    c.show("~/.netrc", L, c.viewer(("cat", "bat", "read", "cat_n")))
    if chance(0.6):
        c.run("go mod download", go_noise())
    return c.text()


@pos("helm_repositories_yaml_registry_json")
def p_helm_repos():
    c = Ctx()
    pw = password()
    jf = jfrog_access_token(c.user) if chance(0.4) else jfrog_apikey()
    gh = gh_token()
    ghauth = docker_auth(c.user, gh)
    L = ['apiVersion: ""', 'generated: "0001-01-01T00:00:00Z"', "repositories:"]

    def repo(name, url, user="", pwd=""):
        return ['- caFile: ""', '  certFile: ""', "  insecure_skip_tls_verify: false", '  keyFile: ""', "  name: %s" % name,
                "  pass_credentials_all: false", "  password: %s" % (pwd or '""'), "  url: %s" % url, "  username: %s" % (user or '""')]
    L += repo("bitnami", "https://charts.bitnami.com/bitnami")
    L += repo("internal", "https://chartmuseum.%s" % c.domain, "ci", m(pw))
    L += repo("jfrog", "https://%s.jfrog.io/artifactory/api/helm/helm-virtual" % c.org, c.user, m(jf))
    c.show("~/.config/helm/repositories.yaml" if c.os == "linux" else "~/Library/Preferences/helm/repositories.yaml", L, c.viewer(("cat", "bat", "read")))
    c.run("jq . ~/.config/helm/registry/config.json", ["{", '  "auths": {', '    "ghcr.io": {', '      "auth": "%s"' % m(ghauth), "    }", "  }", "}"])
    return c.text()


@pos("conan2_credentials_json_remote_login")
def p_conan():
    c = Ctx()
    pw = password()
    tok = jfrog_ref_token()
    c.run("conan remote login artifactory ci-bot -p %s" % m(pw),
          ["Changed user of remote 'artifactory' from 'None' (anonymous) to 'ci-bot' (authenticated)"])
    L = ["{", '  "credentials": [', "    {", '      "remote": "artifactory",', '      "user": "ci-bot",', '      "password": "%s"' % m(pw), "    },",
         "    {", '      "remote": "conancenter-mirror",', '      "user": "%s",' % c.user, '      "password": "%s"' % m(tok), "    }", "  ]", "}"]
    c.show("~/.conan2/credentials.json", L, c.viewer())
    c.run("conan remote list-users", ["artifactory:", "  Username: ci-bot", "  authenticated: True", "conancenter-mirror:", "  Username: %s" % c.user, "  authenticated: False"])
    return c.text()


@pos("poetry_auth_toml_keyring_disabled")
def p_poetry():
    c = Ctx()
    pt = pypi_token()
    fury = rs(ALNUM, 20)
    ipw = password()
    cmds = ["poetry config keyring.enabled false", "poetry config pypi-token.pypi %s" % m(pt),
            "poetry config repositories.gemfury https://pypi.fury.io/%s/" % c.org, 'poetry config http-basic.gemfury %s ""' % m(fury),
            "poetry config http-basic.internal deploy %s" % m(ipw)]
    c.run("history | grep 'poetry config'", hist_lines(cmds))
    base = "~/.config/pypoetry" if c.os == "linux" else "~/Library/Application Support/pypoetry"
    L = ["[pypi-token]", 'pypi = "%s"' % m(pt), "", "[http-basic.gemfury]", 'username = "%s"' % m(fury), 'password = ""', "",
         "[http-basic.internal]", 'username = "deploy"', 'password = "%s"' % m(ipw)]
    c.show(base.replace(" ", "\\ ") + "/auth.toml", L, c.viewer(("cat", "bat", "read")))
    if chance(0.5):
        vv = semver()
        c.run("poetry publish -r gemfury", ["", "Publishing %s (%s) to gemfury" % (c.proj, vv), " - Uploading %s-%s-py3-none-any.whl 100%%" % (c.proj.replace("-", "_"), vv),
                                            " - Uploading %s-%s.tar.gz 100%%" % (c.proj.replace("-", "_"), vv)])
    return c.text()

# ================================================================ POSITIVE: artifact stores and registries
@pos("jf_config_export_server_token")
def p_jf_export():
    c = Ctx()
    sid = pick(["prod", "acme-platform", "jfrog", "saas", "onprem"])
    base = "https://%s.jfrog.io/" % c.org if chance(0.6) else "https://artifactory.%s/" % c.domain
    pw = password()
    at = jfrog_access_token(c.user)
    rt = uuid4()
    c.run("jf c show %s" % sid, ["Server ID:\t\t\t%s" % sid, "JFrog Platform URL:\t\t%s" % base, "Artifactory URL:\t\t%sartifactory/" % base,
                                 "Distribution URL:\t\t%sdistribution/" % base, "Xray URL:\t\t\t%sxray/" % base, "Mission Control URL:\t\t%smc/" % base,
                                 "Pipelines URL:\t\t\t%spipelines/" % base, "User:\t\t\t\t%s" % c.user, "Password:\t\t\t***", "Access token:\t\t\t***",
                                 "Refresh token:\t\t\t***", "Default:\t\t\ttrue"])
    doc = {"version": 2, "url": base, "artifactoryUrl": base + "artifactory/", "distributionUrl": base + "distribution/", "xrayUrl": base + "xray/",
           "missionControlUrl": base + "mc/", "pipelinesUrl": base + "pipelines/", "user": c.user, "password": pw, "accessToken": at,
           "refreshToken": rt, "serverId": sid}
    blob = fresh(lambda: b64e(json.dumps(doc, separators=(",", ":")).encode()))
    c.run("jf c export %s" % sid, [m(blob)])
    if chance(0.7):
        out = json.dumps(doc, indent=2).split("\n")
        out = [l.replace('"%s"' % pw, '"%s"' % m(pw)).replace('"%s"' % at, '"%s"' % m(at)).replace('"%s"' % rt, '"%s"' % m(rt)) for l in out]
        c.run("jf c export %s | base64 -d | jq ." % sid, out)
    return c.text()


@pos("nexus_initial_admin_password_curl")
def p_nexus():
    c = Ctx()
    init = uuid4()
    newpw = password(pick(["mixed12", "gen20", "season", "dice"]))
    cipw = password()
    host = "http://localhost:8081" if chance(0.5) else "https://nexus.%s" % c.domain
    c.run("docker exec nexus cat /nexus-data/admin.password; echo", [m(init)])
    c.run("curl -sf -u admin:%s -X PUT -H 'Content-Type: text/plain' --data %s %s/service/rest/v1/security/users/admin/change-password && echo changed"
          % (m(init), shq(newpw).replace(newpw, m(newpw)), host), ["changed"])
    body = '{"userId":"ci-deployer","firstName":"CI","lastName":"Deployer","emailAddress":"ci@%s","password":"%s","status":"active","roles":["nx-deploy"]}' % (c.domain, m(cipw))
    c.run("curl -s -u admin:%s -H 'Content-Type: application/json' -X POST %s/service/rest/v1/security/users -d '%s' | jq ." % (m(newpw), host, body),
          ["{", '  "userId": "ci-deployer",', '  "firstName": "CI",', '  "lastName": "Deployer",', '  "emailAddress": "ci@%s",' % c.domain,
           '  "source": "default",', '  "status": "active",', '  "readOnly": false,', '  "roles": [', '    "nx-deploy"', "  ],", '  "externalRoles": []', "}"])
    if chance(0.5):
        c.run("curl -s -u ci-deployer:%s %s/service/rest/v1/repositories | jq -r '.[].name'" % (m(cipw), host),
              ["maven-central", "maven-public", "maven-releases", "maven-snapshots", "npm-hosted", "npm-group", "pypi-internal", "docker-hosted"])
    return c.text()


@pos("codeartifact_auth_token_pip_npm")
def p_codeartifact():
    c = Ctx()
    dom, acct, reg = pick([c.org, "shared", "platform"]), "%012d" % R.randint(10 ** 11, 10 ** 12 - 1), pick(["us-east-1", "eu-west-1", "ap-northeast-1"])
    host = "%s-%s.d.codeartifact.%s.amazonaws.com" % (dom, acct, reg)
    t1 = codeartifact_token()
    t2 = codeartifact_token()
    c.run("aws codeartifact get-authorization-token --domain %s --domain-owner %s --region %s --output json" % (dom, acct, reg),
          ["{", '    "authorizationToken": "%s",' % m(t1), '    "expiration": "%s"' % iso(c.t + 43200, z="+00:00"), "}"])
    c.run("pip config list", ["global.index-url='https://aws:%s@%s/pypi/pypi-store/simple/'" % (m(t1), host), "global.timeout='60'"])
    c.run("aws codeartifact login --tool npm --domain %s --domain-owner %s --repository npm-store --region %s" % (dom, acct, reg),
          ["Successfully configured npm to use AWS CodeArtifact repository https://%s/npm/npm-store/" % host,
           "Login expires in 12 hours at %s %s+00:00" % (ymd(c.t + 43200), hms(c.t + 43200))])
    c.show("~/.npmrc", ["registry=https://%s/npm/npm-store/" % host, "//%s/npm/npm-store/:_authToken=%s" % (host, m(t2))], c.viewer(("cat", "read", "head")))
    return c.text()


@pos("docker_login_p_warning_config_cat")
def p_docker_login():
    c = Ctx()
    gh = gh_token()
    hub_user = pick([c.user, c.org])
    hub = dckr_pat()
    a1, a2 = docker_auth(c.user, gh), docker_auth(hub_user, hub)
    c.run("docker login ghcr.io -u %s -p %s" % (c.user, m(gh)),
          ["WARNING! Using --password via the CLI is insecure. Use --password-stdin.",
           "WARNING! Your password will be stored unencrypted in %s/.docker/config.json." % c.home,
           "Configure a credential helper to remove this warning. See", "https://docs.docker.com/engine/reference/commandline/login/#credentials-store", "", "Login Succeeded"])
    L = ["{", '\t"auths": {', '\t\t"ghcr.io": {', '\t\t\t"auth": "%s"' % m(a1), "\t\t},", '\t\t"https://index.docker.io/v1/": {',
         '\t\t\t"auth": "%s"' % m(a2), "\t\t},", '\t\t"registry.gitlab.com": {}', "\t},", '\t"currentContext": "%s"' % pick(["default", "desktop-linux", "colima"]), "}"]
    c.show("~/.docker/config.json", L, c.viewer(("cat", "read", "bat")))
    return c.text()


@pos("registry_robot_creds_skopeo_crane")
def p_skopeo():
    c = Ctx()
    proj = pick(["platform", "release", c.proj])
    robot = "robot$%s+ci" % proj
    hsec = rs(ALNUM, 32)
    qrobot = "%s+deployer" % c.org.replace("-", "_")
    qtok = quay_robot_token()
    harbor = "harbor.%s" % c.domain
    tag = semver()
    out = ["Getting image source signatures"]
    for _ in range(R.randint(2, 6)):
        out.append("Copying blob sha256:%s" % sha256())
    out += ["Copying config sha256:%s" % sha256(), "Writing manifest to image destination"]
    c.run("skopeo copy --src-creds '%s:%s' --dest-creds %s:%s docker://%s/%s/%s:%s docker://quay.io/%s/%s:%s"
          % (robot, m(hsec), qrobot, m(qtok), harbor, proj, c.proj, tag, c.org, c.proj, tag), out)
    c.run("crane auth login %s -u '%s' -p %s" % (harbor, robot, m(hsec)), ["%s logged in via %s/.docker/config.json" % (iso(c.t).replace("T", " ").replace("-", "/")[:19], c.home)])
    c.run("crane auth get %s" % harbor, ['{"Username":"%s","Secret":"%s"}' % (robot, m(hsec))])
    if chance(0.5):
        c.run("crane digest quay.io/%s/%s:%s" % (c.org, c.proj, tag), ["sha256:" + sha256()])
    return c.text()


@pos("cloudsmith_credentials_ini_push")
def p_cloudsmith():
    c = Ctx()
    key = cloudsmith_key()
    c.show("~/.cloudsmith/credentials.ini", ["[default]", "api_key=%s" % m(key)] + (["", "[profile:ci]", "api_key=%s" % m(cloudsmith_key())] if chance(0.4) else []),
           c.viewer(("cat", "bat", "read")))
    slug = c.person.lower().replace(" ", "-")
    c.run("cloudsmith whoami", ["Retrieving your authentication status from the API ... OK", "User: %s (slug: %s, email: %s)" % (c.person, slug, c.email)])
    pkg = "%s-%s-py3-none-any.whl" % (c.proj.replace("-", "_"), c.ver)
    ident = rs(ALNUM, 12)
    c.run("cloudsmith push python %s/%s dist/%s" % (c.org, pick(["python", "internal", "release"]), pkg),
          ["Checking python package upload parameters ... OK", "Checking %s file upload parameters ... OK" % pkg,
           "Requesting file upload for %s ... OK" % pkg, "Uploading %s:  [####################################]  100%%" % pkg,
           "Creating a new python package ... OK", "Created: %s/python/%s (%s)" % (c.org, pkg.replace(".", ""), ident), "",
           "Synchronising %s:  [####################################]  100%%  Sync Completed / Sync In Progress" % pkg.replace(".", ""), "",
           "Package synchronised successfully in %.1f second(s)!" % R.uniform(2, 30)])
    return c.text()


@pos("quay_robot_dockercfg_download")
def p_quay():
    c = Ctx()
    org = c.org.replace("-", "_")
    robot = "%s+%s" % (org, pick(["deployer", "ci", "puller", "builder"]))
    tok = quay_robot_token()
    a = docker_auth(robot, tok)
    L = ["{", '  "auths": {', '    "quay.io": {', '      "auth": "%s",' % m(a), '      "email": ""', "    }", "  }", "}"]
    c.show("~/Downloads/%s-auth.json" % robot.replace("+", "-"), L, c.viewer(("cat", "read", "bat")))
    c.run('docker login -u="%s" -p="%s" quay.io' % (robot, m(tok)), ["WARNING! Using --password via the CLI is insecure. Use --password-stdin.", "Login Succeeded"])
    if chance(0.6):
        c.run("kubectl create secret docker-registry quay-pull --docker-server=quay.io --docker-username='%s' --docker-password=%s -n %s" % (robot, m(tok), pick(["apps", "default", c.proj])),
              ["secret/quay-pull created"])
    return c.text()

# ================================================================ POSITIVE: signing
MAC_APPS = ["Beacon", "Relay", "Notchly", "Quill", "Driftwood", "Lumen", "Tandem", "Harbor", "Sundial", "Paperclip", "Orbit", "Cinder", "Marble", "Pocketbase", "Clipstack"]
def gpg_list_lines(key, home):
    y, mo, d = civil(key.created)[:3]
    cr = "%04d-%02d-%02d" % (y, mo, d)
    ex = "%04d-%02d-%02d" % (y + R.choice([2, 3, 5]), mo, max(1, d - 1))
    return ["%s/.gnupg/pubring.kbx" % home, "-" * (len(home) + 20), "sec   ed25519/%s %s [SC] [expires: %s]" % (key.keyid, cr, ex),
            "      %s" % key.fpr, "uid                 [ultimate] %s" % key.uid.decode(), "ssb   cv25519/%s %s [E] [expires: %s]" % (key.sub_fpr[-16:], cr, ex), ""]


@pos("gpg_export_secret_keys_armor")
def p_gpg_export():
    c = Ctx()
    key = PgpKey(c.person, c.email)
    c.run("gpg --list-secret-keys --keyid-format=long", gpg_list_lines(key, c.home))
    per = c.pfx
    c.run("gpg --export-secret-keys --armor %s" % key.keyid, armor_marked(key.armor(True), per))
    if chance(0.4):
        b = fresh(lambda: b64e(("\n".join(key.armor(True)) + "\n").encode()))
        c.run("gpg --export-secret-keys --armor %s | base64 | tr -d '\\n'" % key.keyid[-8:], [m(b)])
    if chance(0.4):
        c.say("That's the private key block; I'll store it as the GPG_PRIVATE_KEY repository secret instead of committing it.")
    filler(c, 0.3, (1, 1))
    return c.text()


@pos("gpg_loopback_passphrase_xtrace")
def p_gpg_xtrace():
    c = Ctx()
    key = PgpKey(c.person, c.email)
    pp = mk_pw_human()
    stamp = chance(0.5)
    art = pick(["dist/%s-%s.tar.gz" % (c.proj, c.ver), "build/libs/%s-%s.jar" % (c.proj, c.ver), "SHA256SUMS"])
    body = armor_marked(key.armor(True), stamp or c.pfx)
    L = ["+ echo '" + body[0]] + body[1:-1] + [body[-1] + "'"]
    L += ["+ gpg --batch --import", 'gpg: key %s: public key "%s" imported' % (key.keyid, key.uid.decode()), "gpg: key %s: secret key imported" % key.keyid,
          "gpg: Total number processed: 1", "gpg:               imported: 1", "gpg:       secret keys read: 1", "gpg:   secret keys imported: 1",
          "+ gpg --batch --yes --pinentry-mode loopback --passphrase %s --local-user %s --detach-sign --armor %s" % (shq(pp).replace(pp, m(pp)), key.fpr, art),
          "+ gpg --verify %s.asc %s" % (art, art), "gpg: Signature made %s UTC" % ctime(c.t), "gpg:                using EDDSA key %s" % key.fpr,
          'gpg: Good signature from "%s" [ultimate]' % key.uid.decode()]
    if stamp:
        t0 = c.t
        L = stamp_lines(L, t0)
    c.run("gh run view %d --log | sed -n '/Import GPG/,/Good signature/p'" % R.randint(10 ** 9, 10 ** 10) if stamp else "bash -x scripts/sign-release.sh 2>&1 | tail -n +1", L)
    return c.text()


@pos("cosign_generate_key_pair_files")
def p_cosign_files():
    # cosign.key bodies start with the same base64 of '{"kdf":{"name":"scrypt",...' in every key, so the key is
    # only shown where it prints contiguously (one span), like OpenSSH keys in ../agent_tuning_9/.
    c = Ctx(frame=pick(["prompt", "prompt", "codex_exec"]))
    pw = mk_pw_human()
    c.run("COSIGN_PASSWORD=%s cosign generate-key-pair" % shq(pw).replace(pw, m(pw)), ["Private key written to cosign.key", "Public key written to cosign.pub"])
    c.show("cosign.key", mark_block(cosign_key_lines(), False), "cat")
    c.show("cosign.pub", cosign_pub_lines(), "cat")
    if chance(0.6):
        img = "ghcr.io/%s/%s@sha256:%s" % (c.org, c.proj, sha256())
        c.run("COSIGN_PASSWORD=%s cosign sign --key cosign.key --yes %s" % (shq(pw).replace(pw, m(pw)), img),
              ["Pushing signature to: ghcr.io/%s/%s" % (c.org, c.proj), "tlog entry created with index: %d" % R.randint(10 ** 7, 2 * 10 ** 8)])
    return c.text()


@pos("cosign_k8s_secret_yaml")
def p_cosign_k8s():
    c = Ctx()
    ns = pick(["cosign-system", "ci", "tekton-chains", "release"])
    pw = password()
    keypem = "\n".join(cosign_key_lines()) + "\n"
    pubpem = "\n".join(cosign_pub_lines()) + "\n"
    kb, pb, pwb = fresh(lambda: b64e(keypem.encode())), fresh(lambda: b64e(pubpem.encode())), fresh(lambda: b64e(pw.encode()))
    c.run("cosign generate-key-pair k8s://%s/signing-secrets" % ns, ["Successfully created secret signing-secrets in namespace %s" % ns, "Public key written to cosign.pub"])
    c.run("kubectl get secret signing-secrets -n %s -o yaml" % ns,
          ["apiVersion: v1", "data:", "  cosign.key: %s" % m(kb), "  cosign.password: %s" % m(pwb), "  cosign.pub: %s" % pb, "immutable: true", "kind: Secret",
           "metadata:", "  creationTimestamp: \"%s\"" % iso(c.t), "  name: signing-secrets", "  namespace: %s" % ns,
           "  resourceVersion: \"%d\"" % R.randint(10 ** 5, 10 ** 7), "  uid: %s" % uuid4(), "type: Opaque"])
    if chance(0.6):
        c.run("kubectl get secret signing-secrets -n %s -o jsonpath='{.data.cosign\\.password}' | base64 -d; echo" % ns, [m(pw)])
    return c.text()


@pos("minisign_signify_secret_key_cat")
def p_minisign():
    c = Ctx()
    if chance(0.5):
        sk = minisign_secret()
        pk, kid = minisign_pub()
        c.run("minisign -G -p minisign.pub -s ~/.minisign/minisign.key",
              ["Please enter a password to protect the secret key.", "", "Password: ", "Password (one more time): ",
               "Deriving a key from the password in order to encrypt the secret key... done", "",
               "The secret key was saved as %s/.minisign/minisign.key - Keep it secret!" % c.home, "The public key was saved as minisign.pub - That one can be public.", "",
               "Files signed using this key pair can be verified with the following command:", "", "minisign -Vm <file> -P %s" % pk])
        c.show("~/.minisign/minisign.key", ["untrusted comment: minisign encrypted secret key", m(sk)], c.viewer(("cat", "read", "bat", "cat_n")))
        c.show("minisign.pub", ["untrusted comment: minisign public key %s" % kid[::-1].hex().upper(), pk], "cat")
    else:
        sk = signify_secret()
        pk = signify_pub()
        c.run("signify -G -n -c '%s release key' -p keys/%s.pub -s keys/%s.sec" % (c.proj, c.proj, c.proj), [])
        c.show("keys/%s.sec" % c.proj, ["untrusted comment: %s release key secret key" % c.proj, m(sk)], c.viewer(("cat", "read", "bat", "cat_n")))
        c.show("keys/%s.pub" % c.proj, ["untrusted comment: %s release key public key" % c.proj, pk], "cat")
    if chance(0.4):
        fb_git_status(c)
    return c.text()


@pos("sparkle_eddsa_private_key_export")
def p_sparkle():
    c = Ctx(os_="mac")
    priv = b64n(32)
    pub = b64n(32)
    acct = pick(["ed25519", c.org, "%s-app" % c.proj])
    app = pick(MAC_APPS)
    c.run("./bin/generate_keys --account %s -x sparkle_private_key.txt" % acct, ["Exported private key for account %s to sparkle_private_key.txt" % acct])
    c.show("sparkle_private_key.txt", [m(priv)], c.viewer(("cat", "read")))
    vv = semver()
    c.run("./bin/sign_update -s %s build/%s-%s.zip" % (m(priv), app, vv),
          ['sparkle:edSignature="%s" length="%d"' % (b64n(64), R.randint(5 * 10 ** 6, 9 * 10 ** 7))])
    c.run("/usr/libexec/PlistBuddy -c 'Print :SUPublicEDKey' %s/Info.plist" % app, [pub])
    return c.text()


@pos("notarytool_store_credentials_history")
def p_notary_pw():
    c = Ctx(os_="mac")
    pw = apple_app_pw()
    team = rs(UPPER + DIGITS, 10)
    prof = pick(["AC_NOTARY", "notarytool-password", "%s-notary" % c.org])
    app = pick(MAC_APPS)
    cmds = history_noise(R.randint(1, 6)) + [
        'xcrun notarytool store-credentials "%s" --apple-id %s --team-id %s --password %s' % (prof, c.email, team, m(pw)),
        "xcrun altool --notarize-app -f build/%s.zip --primary-bundle-id com.%s.%s -u %s -p %s" % (app, c.org.replace("-", ""), c.proj.replace("-", ""), c.email, m(pw))]
    c.run("history | tail -n %d" % len(cmds), hist_lines(cmds))
    sid = uuid4()
    c.run("xcrun notarytool submit build/%s.zip --apple-id %s --team-id %s --password %s --wait" % (app, c.email, team, m(pw)),
          ["Conducting pre-submission checks for %s.zip and initiating connection to the Apple notary service..." % app, "Submission ID received",
           "  id: %s" % sid, "Upload progress: 100.00%% (%.1f MB of %.1f MB)" % (12.4, 12.4), "Successfully uploaded file", "  id: %s" % sid,
           "  path: %s/build/%s.zip" % (c.cwd, app), "Waiting for processing to complete.", "Current status: Accepted...........", "Processing complete",
           "  id: %s" % sid, "  status: Accepted"])
    c.run("xcrun stapler staple build/%s.app" % app, ["Processing: %s/build/%s.app" % (c.cwd, app), "The staple and validate action worked!"])
    return c.text()


@pos("notarytool_p8_authkey_cat")
def p_p8():
    c = Ctx(os_="mac")
    kid = rs(UPPER + DIGITS, 10)
    issuer = uuid4()
    priv, pub = p256_pair()
    blob = ec_pkcs8(priv, pub, inner_params=True)
    path = "~/.appstoreconnect/private_keys/AuthKey_%s.p8" % kid
    c.run("ls ~/.appstoreconnect/private_keys/", ["AuthKey_%s.p8" % kid])
    c.show(path, mark_block(pem_lines("PRIVATE KEY", blob), c.vpfx("cat")), "cat")
    if chance(0.5):
        whole = fresh(lambda: b64e(("\n".join(pem_lines("PRIVATE KEY", blob)) + "\n").encode()))
        c.run("base64 -i %s" % path, [m(whole)])
    app = pick(MAC_APPS)
    sid = uuid4()
    c.run("xcrun notarytool submit build/%s.dmg --key %s --key-id %s --issuer %s --wait" % (app, path, kid, issuer),
          ["Conducting pre-submission checks for %s.dmg and initiating connection to the Apple notary service..." % app, "Submission ID received", "  id: %s" % sid,
           "Successfully uploaded file", "  id: %s" % sid, "  path: %s/build/%s.dmg" % (c.cwd, app), "Waiting for processing to complete.",
           "Current status: In Progress....", "Current status: Accepted....", "Processing complete", "  id: %s" % sid, "  status: Accepted"])
    return c.text()


@pos("signtool_sign_pfx_p_msbuild")
def p_signtool():
    c = Ctx()
    pw = password(pick(["season", "word", "mixed12", "gen20", "leet"]))
    thumb = HEXU(40)
    t = c.t
    exe = "%s.exe" % c.proj.replace("-", " ").title().replace(" ", "")
    L = ["##[group]Run & \"$env:SIGNTOOL\" sign /fd SHA256 /f certificate.pfx /p $env:PFX_PASSWORD /tr http://timestamp.digicert.com /td SHA256 dist\\%s" % exe,
         "& \"$env:SIGNTOOL\" sign /fd SHA256 /f certificate.pfx /p $env:PFX_PASSWORD /tr http://timestamp.digicert.com /td SHA256 dist\\%s" % exe,
         "shell: C:\\Program Files\\PowerShell\\7\\pwsh.EXE -command \". '{0}'\"", "env:", "  SIGNTOOL: C:\\Program Files (x86)\\Windows Kits\\10\\bin\\10.0.22621.0\\x64\\signtool.exe",
         "  PFX_PASSWORD: %s" % m(pw), "##[endgroup]", "Done Adding Additional Store", "Successfully signed: dist\\%s" % exe, "",
         "Number of files successfully Signed: 1", "Number of warnings: 0", "Number of errors: 0",
         "##[group]Run Import-PfxCertificate -FilePath certificate.pfx -CertStoreLocation Cert:\\CurrentUser\\My -Password (ConvertTo-SecureString -String '%s' -Force -AsPlainText)" % m(pw),
         "", "", "   PSParentPath: Microsoft.PowerShell.Security\\Certificate::CurrentUser\\My", "",
         "Thumbprint                                Subject", "----------                                -------",
         "%s  CN=%s, O=%s, L=%s, C=%s" % (thumb, c.org.title(), c.org.title(), pick(["Seattle", "Berlin", "Austin", "Toronto"]), pick(["US", "DE", "CA"])), "##[endgroup]"]
    L = stamp_lines(L, t)
    c.run("gh run view --job %d --log | cut -f3-" % R.randint(10 ** 10, 3 * 10 ** 10), L)
    return c.text()


@pos("android_release_signing_ci_decode")
def p_android_ci():
    c = Ctx()
    ks = jks_b64() if chance(0.5) else pkcs12_b64()
    sp, kp = mk_pw_human(), password()
    L = ["+ echo %s" % m(ks), "+ base64 -d", "+ ls -l /tmp/release.jks", "-rw-r--r-- 1 %s %s %d %s /tmp/release.jks" % (c.user, c.user, len(ks) * 3 // 4, lsdate(c.t)),
         "+ ./gradlew :app:bundleRelease -Pandroid.injected.signing.store.file=/tmp/release.jks -Pandroid.injected.signing.store.password=%s -Pandroid.injected.signing.key.alias=upload -Pandroid.injected.signing.key.password=%s" % (m(sp), m(kp)),
         "Starting a Gradle Daemon (subsequent builds will be faster)"]
    L += gradle_noise(R.randint(8, 16))
    L += ["", "BUILD SUCCESSFUL in %dm %ds" % (R.randint(1, 8), R.randint(0, 59)), "%d actionable tasks: %d executed, %d from cache" % (86, 40, 46)]
    if chance(0.4):
        jks = jks_b64() if chance(0.5) else pkcs12_b64()
        wrapped = wrap64(jks, 76)
        c.run("base64 release.jks", mark_block(wrapped, c.pfx) if c.pfx else [OPEN + wrapped[0]] + wrapped[1:-1] + [wrapped[-1] + CLOSE])
        c.say("I'll put that into the ANDROID_KEYSTORE_BASE64 secret; the CI log below shows why it must not be echoed.")
    c.run("cat ci-logs/android-release-%d.log" % build_no(), L)
    return c.text()


@pos("jarsigner_apksigner_pass_flags")
def p_jarsigner():
    c = Ctx()
    sp, kp = mk_pw_human(), password(pick(["gen20", "mixed12", "word"]))
    alias = pick(["upload", "release", "key0", c.proj])
    cn = "CN=%s, OU=Mobile, O=%s, L=%s, ST=%s, C=%s" % (c.person, c.org.title(), "Lisbon", "Lisboa", "PT")
    out = ["   adding: META-INF/MANIFEST.MF", "   adding: META-INF/%s.SF" % alias.upper(), "   adding: META-INF/%s.RSA" % alias.upper()]
    for f in R.sample(["BundleConfig.pb", "base/manifest/AndroidManifest.xml", "base/dex/classes.dex", "base/dex/classes2.dex", "base/resources.pb",
                       "base/res/drawable/ic_launcher.xml", "base/assets/config.json", "base/lib/arm64-v8a/libapp.so", "BUNDLE-METADATA/com.android.tools.build.libraries/dependencies.pb"], R.randint(5, 9)):
        out.append("  signing: %s" % f)
    out += ["", ">>> Signer", "    X.509, %s" % cn, "    Signature algorithm: SHA256withRSA, 2048-bit key", "    [trusted certificate]", "", "jar signed.", "",
            "Warning: ", "The signer's certificate is self-signed."]
    c.run("jarsigner -verbose -sigalg SHA256withRSA -digestalg SHA-256 -keystore release.jks -storepass %s -keypass %s app/build/outputs/bundle/release/app-release.aab %s"
          % (m(sp), m(kp), alias), out)
    c.run("apksigner sign --ks release.jks --ks-key-alias %s --ks-pass pass:%s --key-pass pass:%s --out app-release-signed.apk app-release-unsigned-aligned.apk" % (alias, m(sp), m(kp)), [])
    c.run("apksigner verify --print-certs app-release-signed.apk",
          ["Signer #1 certificate DN: %s" % cn, "Signer #1 certificate SHA-256 digest: %s" % sha256(), "Signer #1 certificate SHA-1 digest: %s" % sha1(),
           "Signer #1 certificate MD5 digest: %s" % hexs(32)])
    return c.text()


@pos("play_publisher_sa_json_env_log")
def p_play():
    c = Ctx()
    proj = "%s-%s" % (c.org, pick(["play", "android", "release"]))
    email = "%s@%s.iam.gserviceaccount.com" % (pick(["play-publisher", "gpp", "fastlane"]), proj)
    blob = rsa_pem_blob(True)
    L = ["{", '  "type": "service_account",', '  "project_id": "%s",' % proj, '  "private_key_id": "%s",' % hexs(40),
         '  "private_key": "%s",' % pem_escaped("PRIVATE KEY", blob), '  "client_email": "%s",' % email, '  "client_id": "%s",' % "".join(str(R.randint(0, 9)) for _ in range(21)),
         '  "auth_uri": "https://accounts.google.com/o/oauth2/auth",', '  "token_uri": "https://oauth2.googleapis.com/token",',
         '  "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",',
         '  "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/%s",' % email.replace("@", "%40"), '  "universe_domain": "googleapis.com"', "}"]
    c.run("printenv ANDROID_PUBLISHER_CREDENTIALS | jq .", L)
    if chance(0.6):
        c.run("./gradlew publishReleaseBundle --track internal",
              gradle_noise(R.randint(4, 9)) + ["> Task :app:publishReleaseBundle", "Starting App Bundle upload: app-release.aab",
                                               "Uploading App Bundle: %d%% complete" % 100, "Updating [completed] release (%s:[%d]) in track 'internal'" % (semver(), R.randint(100, 9000)),
                                               "Committing changes", "", "BUILD SUCCESSFUL in %ds" % R.randint(30, 300)])
    return c.text()

# ================================================================ POSITIVE: release tooling
def goreleaser_log(c, tag, sha, extra_env=None):
    gp = lambda k, v: "    • %-46s %s" % (k, v)
    out = ["  • starting release...", "  • loading                                          path=.goreleaser.yaml", "  • loading environment variables"]
    if extra_env:
        out += extra_env
    out += ["  • getting and validating git state",
            "    • git state                                      commit=%s branch=%s current_tag=%s previous_tag=v%s dirty=false" % (sha, c.branch, tag, c.prev),
            "  • parsing tag", "  • setting defaults", "  • running before hooks", "    • running                                        hook=go mod tidy",
            "    • running                                        hook=go generate ./...", "  • checking distribution directory",
            "  • setting up metadata", "  • storing release metadata", "    • writing                                        file=dist/metadata.json",
            "  • loading go mod information", "  • build prerequisites", "  • writing effective config file",
            "    • writing                                        config=dist/config.yaml", "  • building binaries"]
    targets = ["linux_amd64_v1", "linux_arm64_v8.0", "darwin_amd64_v1", "darwin_arm64_v8.0", "windows_amd64_v1", "windows_arm64_v8.0"]
    for t in R.sample(targets, R.randint(3, 6)):
        out.append("    • building                                       binary=dist/%s_%s/%s%s" % (c.proj, t, c.proj, ".exe" if "windows" in t else ""))
    out += ["    • took: %ds" % R.randint(8, 90), "  • archives"]
    for t in ["linux_amd64", "linux_arm64", "darwin_all", "windows_amd64"]:
        out.append("    • archiving                                      name=dist/%s_%s_%s.%s" % (c.proj, tag[1:], t, "zip" if "windows" in t else "tar.gz"))
    out += ["  • calculating checksums", "  • signing artifacts",
            "    • signing                                        cmd=cosign artifact=%s_%s_checksums.txt signature=dist/%s_%s_checksums.txt.sig" % (c.proj, tag[1:], c.proj, tag[1:]),
            "  • docker images", "    • building docker image                          image=ghcr.io/%s/%s:%s" % (c.org, c.proj, tag),
            "  • publishing", "    • scm releases", "      • creating or updating release                 tag=%s repo=%s/%s" % (tag, c.org, c.proj),
            "      • release created                              name=%s release-id=%d request-id=%s" % (tag, R.randint(10 ** 8, 2 * 10 ** 8), "%s:%s:%s:%s:%s" % (HEXU(4), HEXU(5), HEXU(6), HEXU(7), HEXU(8)))]
    out += ["    • homebrew tap formula", "      • pushing                                      formula=Formula/%s.rb repo=%s/homebrew-tap branch=main" % (c.proj, c.org),
            "  • announcing", "  • release succeeded after %dm%ds" % (R.randint(1, 9), R.randint(0, 59)), "  • thanks for using goreleaser!"]
    return out


@pos("goreleaser_release_log_token_files")
def p_goreleaser():
    c = Ctx()
    gh = gh_token()
    tap = github_pat() if chance(0.5) else gh_token()
    cpw = mk_pw_human()
    fury = rs(ALNUM, 20)
    tag = "v" + semver()
    env = ["GITHUB_TOKEN=%s" % m(gh), "HOMEBREW_TAP_GITHUB_TOKEN=%s" % m(tap), "COSIGN_PASSWORD=%s" % m(cpw), "FURY_TOKEN=%s" % m(fury), "AUR_KEY_PATH=%s/.ssh/aur" % c.home]
    R.shuffle(env)
    if chance(0.5):
        c.show(c.tilde(c.home) + "/.config/goreleaser/github_token", [m(gh)], "cat")
        extra = ["    • using token from \"$HOME/.config/goreleaser/github_token\""]
        env = [e for e in env if not e.startswith("GITHUB_TOKEN")]
    else:
        extra = None
    c.show(".env.release", env, c.viewer(("cat", "bat", "read", "cat_A")))
    c.run("set -a; . ./.env.release; set +a; goreleaser release --clean", goreleaser_log(c, tag, sha1(), extra))
    return c.text()


@pos("semantic_release_local_env_dryrun")
def p_semrel():
    c = Ctx()
    gh = gh_token()
    npm = npm_token()
    c.run("env | grep -E '^(GH|GITHUB|NPM|GIT_AUTHOR)_'", ["GH_TOKEN=%s" % m(gh), "NPM_TOKEN=%s" % m(npm), "GIT_AUTHOR_NAME=%s" % c.person, "GIT_AUTHOR_EMAIL=%s" % c.email])
    t = c.t
    def ts():
        c.t += R.choice([0, 0, 0, 1, 1, 2])
        h = civil(c.t)[3]
        return "[%d:%02d:%02d %s]" % ((h % 12) or 12, civil(c.t)[4], civil(c.t)[5], "AM" if h < 12 else "PM")
    p = "[semantic-release]"
    out = ["%s %s › ℹ  Running semantic-release version 24.%d.%d" % (ts(), p, R.randint(0, 2), R.randint(0, 5))]
    for plug in ["@semantic-release/commit-analyzer", "@semantic-release/release-notes-generator", "@semantic-release/changelog", "@semantic-release/npm", "@semantic-release/github", "@semantic-release/git"]:
        out.append('%s %s › ✔  Loaded plugin "verifyConditions" from "%s"' % (ts(), p, plug))
    out += ["%s %s › ⚠  Run automated release from branch %s on repository https://[secure]@github.com/%s/%s.git in dry-run mode" % (ts(), p, c.branch, c.org, c.proj),
            "%s %s › ✔  Allowed to push to the Git repository" % (ts(), p),
            "%s %s › ℹ  Start step \"verifyConditions\" of plugin \"@semantic-release/npm\"" % (ts(), p),
            "%s %s [@semantic-release/npm] › ℹ  Verify authentication for registry https://registry.npmjs.org/" % (ts(), p),
            "%s %s [@semantic-release/npm] › ℹ  Wrote NPM_TOKEN to /tmp/%s/.npmrc" % (ts(), p, hexs(20)),
            "%s %s › ✔  Completed step \"verifyConditions\" of plugin \"@semantic-release/npm\"" % (ts(), p),
            "%s %s [@semantic-release/github] › ℹ  Verify GitHub authentication (https://api.github.com)" % (ts(), p),
            "%s %s › ℹ  Found git tag v%s associated with version %s on branch %s" % (ts(), p, "2.3.1", "2.3.1", c.branch)]
    n = R.randint(2, 7)
    out.append("%s %s › ℹ  Found %d commits since last release" % (ts(), p, n))
    for _ in range(n):
        out.append("%s %s › ℹ  Analyzing commit: %s" % (ts(), p, commit_msg()))
    out += ["%s %s › ℹ  The next release version is 2.4.0" % (ts(), p),
            "%s %s › ⚠  Skip step \"prepare\" of plugin \"@semantic-release/npm\" in dry-run mode" % (ts(), p),
            "%s %s › ⚠  Skip v2.4.0 tag creation in dry-run mode" % (ts(), p), "%s %s › ℹ  Release note for version 2.4.0:" % (ts(), p), "## [2.4.0](https://github.com/%s/%s/compare/v2.3.1...v2.4.0) (%s)" % (c.org, c.proj, ymd(c.t))]
    c.run("npx semantic-release --dry-run --no-ci", out)
    return c.text()


@pos("changeset_publish_local_npmrc")
def p_changeset():
    c = Ctx()
    npm = npm_token()
    c.show(".npmrc", ["//registry.npmjs.org/:_authToken=%s" % m(npm), "@%s:registry=https://registry.npmjs.org/" % c.org, "provenance=false"], c.viewer(("cat", "read")))
    pkgs = R.sample(["core", "cli", "react", "utils", "eslint-config", "types", "server"], R.randint(2, 4))
    vers = dict((p, semver()) for p in pkgs)
    out = []
    for p in pkgs:
        out.append("🦋  info npm info @%s/%s" % (c.org, p))
    for p in pkgs:
        out.append("🦋  info @%s/%s is being published because our local version (%s) has not been published on npm" % (c.org, p, vers[p]))
    for p in pkgs:
        out.append('🦋  info Publishing "@%s/%s" at "%s"' % (c.org, p, vers[p]))
    out.append("🦋  success packages published successfully:")
    for p in pkgs:
        out.append("🦋  @%s/%s@%s" % (c.org, p, vers[p]))
    out.append("🦋  Creating git tags...")
    for p in pkgs:
        out.append("🦋  New tag:  @%s/%s@%s" % (c.org, p, vers[p]))
    c.run("pnpm changeset publish", out)
    if chance(0.5):
        c.run("git push --follow-tags", ["Enumerating objects: 9, done.", "Total 0 (delta 0), reused 0 (delta 0), pack-reused 0 (from 0)",
                                         "To github.com:%s/%s.git" % (c.org, c.proj)] + [" * [new tag]         @%s/%s@%s -> @%s/%s@%s" % (c.org, p, vers[p], c.org, p, vers[p]) for p in pkgs])
    return c.text()


@pos("release_please_cli_token_flag")
def p_release_please():
    c = Ctx()
    tok = gh_token() if chance(0.6) else github_pat()
    n = R.randint(4, 30)
    pr = R.randint(10, 3000)
    out = ["❯ Fetching release-please-config.json from branch %s" % c.branch, "❯ Fetching .release-please-manifest.json from branch %s" % c.branch,
           "✔ Building candidate release pull request for path: .", "❯ type: %s" % pick(["node", "go", "python", "rust", "simple"]),
           "❯ targetBranch: %s" % c.branch, "❯ commit could not be parsed: %s %s" % (sha1(), "Merge branch 'main' into " + c.branch),
           "✔ Considering: %d commits" % n, "✔ Building release for path: .", "❯ component: ", "❯ pull request title pattern: undefined",
           "✔ Looking for open release pull requests", "✔ found 0 open release pull requests.", "✔ Looking for snoozed release pull requests",
           "✔ Opening new pull request", "✔ Successfully opened pull request: %d." % pr]
    c.run("npx release-please release-pr --token=%s --repo-url=%s/%s --target-branch=%s" % (m(tok), c.org, c.proj, c.branch), out)
    if chance(0.5):
        c.run("npx release-please github-release --token=%s --repo-url=%s/%s" % (m(tok), c.org, c.proj),
              ["✔ Looking for release-please-config.json", "✔ Creating 1 releases for pull #%d" % pr, "✔ Created release: https://github.com/%s/%s/releases/tag/v%s." % (c.org, c.proj, c.ver),
               "✔ adding label autorelease: tagged to #%d" % pr, "✔ removing label autorelease: pending from %d" % pr])
    return c.text()


@pos("docker_config_json_multi_auths_jq")
def p_docker_cfg():
    c = Ctx()
    acct = "%012d" % R.randint(10 ** 11, 10 ** 12 - 1)
    reg = pick(["us-east-1", "eu-central-1", "us-west-2"])
    ecr_tok = fresh(lambda: b64e(json.dumps({"payload": b64e(rbytes(R.randint(700, 900))), "datakey": b64e(rbytes(R.randint(170, 200))), "version": "2",
                                              "type": "DATA_KEY", "expiration": ts_epoch()}, separators=(",", ":")).encode()))
    ecr_auth = docker_auth("AWS", ecr_tok)
    acr_user = "00000000-0000-0000-0000-000000000000"
    acr_auth = b64e((acr_user + ":").encode())
    acr_id = jwt({"alg": "RS256", "typ": "JWT", "kid": "%s:%s:%s:%s" % (HEXU(4), HEXU(4), HEXU(4), HEXU(4))},
                 {"jti": uuid4(), "sub": "%s@%s" % (c.user, c.domain), "nbf": ts_epoch(), "exp": ts_epoch() + 10 ** 6, "iat": ts_epoch(),
                  "iss": "Azure Container Registry", "aud": "%s.azurecr.io" % c.org.replace("-", ""), "version": "1.0", "rid": uuid_hex(), "grant_type": "refresh_token",
                  "appid": uuid4(), "tenant": uuid4(), "permissions": {"actions": ["read", "write"], "notActions": None}, "roles": []})
    hub_user = pick([c.user, c.org])
    hub = dckr_pat()
    hub_auth = docker_auth(hub_user, hub)
    L = ["{", '  "auths": {', '    "%s.dkr.ecr.%s.amazonaws.com": {' % (acct, reg), '      "auth": "%s"' % m(ecr_auth), "    },",
         '    "%s.azurecr.io": {' % c.org.replace("-", ""), '      "auth": "%s",' % acr_auth, '      "identitytoken": "%s"' % m(acr_id), "    },",
         '    "https://index.docker.io/v1/": {', '      "auth": "%s"' % m(hub_auth), "    }", "  },", '  "credHelpers": {', '    "gcr.io": "gcloud",',
         '    "us-docker.pkg.dev": "gcloud"', "  },", '  "currentContext": "desktop-linux"', "}"]
    c.run("jq . ~/.docker/config.json", L)
    c.run("jq -r '.auths[\"https://index.docker.io/v1/\"].auth' ~/.docker/config.json | base64 -d; echo", ["%s:%s" % (hub_user, m(hub))])
    return c.text()


@pos("helm_registry_login_push_oci")
def p_helm_push():
    c = Ctx()
    kind = pick(["hub", "ghcr", "harbor"])
    if kind == "hub":
        reg, user, pw = "registry-1.docker.io", c.org, dckr_pat()
    elif kind == "ghcr":
        reg, user, pw = "ghcr.io", c.user, gh_token()
    else:
        reg, user, pw = "harbor.%s" % c.domain, "robot$charts+ci", rs(ALNUM, 32)
    c.run("helm registry login %s -u '%s' -p %s" % (reg, user, m(pw)), ["WARNING: Using --password via the CLI is insecure. Use --password-stdin.", "Login Succeeded"])
    vv = semver()
    chart = pick([c.proj, "app", "%s-operator" % c.proj])
    c.run("helm package charts/%s --version %s --app-version %s" % (chart, vv, vv), ["Successfully packaged chart and saved it to: %s/%s-%s.tgz" % (c.cwd, chart, vv)])
    c.run("helm push %s-%s.tgz oci://%s/%s" % (chart, vv, reg, "charts" if kind == "harbor" else c.org),
          ["Pushed: %s/%s/%s:%s" % (reg, "charts" if kind == "harbor" else c.org, chart, vv), "Digest: sha256:%s" % sha256()])
    filler(c, 0.4, (1, 2))
    return c.text()


@pos("vsce_ovsx_publish_pat")
def p_vsce():
    c = Ctx()
    pat = azdo_pat()
    ov = uuid4()
    pub = pick([c.org, c.user, c.org + "-tools"])
    ext = pick(["%s-vscode" % c.proj, c.proj, "lang-support"])
    vv = semver()
    out = ["Executing prepublish script 'npm run vscode:prepublish'...", "", "> %s@%s vscode:prepublish" % (ext, vv), "> npm run package", "",
           "> %s@%s package" % (ext, vv), "> node esbuild.js --production", "",
           " INFO  Files included in the VSIX:", "%s-%s.vsix" % (ext, vv), "├─ [Content_Types].xml", "├─ extension.vsixmanifest", "└─ extension/",
           "   ├─ LICENSE.txt [%.2f KB]" % R.uniform(1, 12), "   ├─ changelog.md [%.2f KB]" % R.uniform(1, 40), "   ├─ package.json [%.2f KB]" % R.uniform(2, 20),
           "   ├─ readme.md [%.2f KB]" % R.uniform(1, 30), "   └─ dist/", "      └─ extension.js [%.2f KB]" % R.uniform(40, 900), "",
           " INFO  Publishing '%s.%s v%s'..." % (pub, ext, vv), " INFO  Extension URL (might take a few minutes): https://marketplace.visualstudio.com/items?itemName=%s.%s" % (pub, ext),
           " INFO  Hub URL: https://marketplace.visualstudio.com/manage/publishers/%s/extensions/%s/hub" % (pub, ext), " DONE  Published %s.%s v%s." % (pub, ext, vv)]
    c.run("npx @vscode/vsce publish -p %s" % m(pat), out)
    c.run("npx ovsx publish %s-%s.vsix -p %s" % (ext, vv, m(ov)), ["🚀  Published %s.%s v%s" % (pub, ext, vv)])
    return c.text()


@pos("chrome_webstore_upload_oauth_env")
def p_cws():
    c = Ctx()
    ext_id = rs("abcdefghijklmnop", 32)
    cid = "%d-%s.apps.googleusercontent.com" % (R.randint(10 ** 11, 10 ** 12), rstr(LOWER + DIGITS, 32))
    cs, rt, at = gocspx(), google_refresh(), ya29()
    c.show(".env.chrome", ["EXTENSION_ID=%s" % ext_id, "CLIENT_ID=%s" % cid, "CLIENT_SECRET=%s" % m(cs), "REFRESH_TOKEN=%s" % m(rt)], c.viewer(("cat", "read", "bat")))
    c.run("curl -s https://oauth2.googleapis.com/token -d client_id=%s -d client_secret=%s -d refresh_token=%s -d grant_type=refresh_token" % (cid, m(cs), m(rt)),
          ["{", '  "access_token": "%s",' % m(at), '  "expires_in": 3599,', '  "scope": "https://www.googleapis.com/auth/chromewebstore",', '  "token_type": "Bearer"', "}"])
    c.run('curl -s -H "Authorization: Bearer %s" -H "x-goog-api-version: 2" -X PUT -T dist/extension.zip https://www.googleapis.com/upload/chromewebstore/v1.1/items/%s' % (m(at), ext_id),
          ['{"kind":"chromewebstore#item","id":"%s","uploadState":"SUCCESS"}' % ext_id])
    return c.text()


@pos("brew_bump_formula_pr_token_env")
def p_brew():
    c = Ctx(os_="mac")
    tok = gh_token()
    vv, old = semver(), semver()
    new_sha, old_sha = sha256(), sha256()
    url = "https://github.com/%s/%s/archive/refs/tags/v%s.tar.gz" % (c.org, c.proj, vv)
    c.run("env | grep HOMEBREW", ["HOMEBREW_GITHUB_API_TOKEN=%s" % m(tok), "HOMEBREW_NO_ANALYTICS=1", "HOMEBREW_NO_AUTO_UPDATE=1"])
    c.run("brew bump-formula-pr --url=%s --sha256=%s %s/tap/%s" % (url, new_sha, c.org, c.proj),
          ["==> Downloading %s" % url, "==> Downloading from https://codeload.github.com/%s/%s/tar.gz/refs/tags/v%s" % (c.org, c.proj, vv),
           "######################################################################### 100.0%",
           '==> replace "https://github.com/%s/%s/archive/refs/tags/v%s.tar.gz" with "%s"' % (c.org, c.proj, old, url),
           '==> replace "%s" with "%s"' % (old_sha, new_sha), "==> brew style --fix %s/tap/%s" % (c.org, c.proj), "", "1 file inspected, no offenses detected",
           "==> git push --set-upstream origin bump-%s-%s:bump-%s-%s" % (c.proj, vv, c.proj, vv), "==> https://github.com/%s/homebrew-tap/pull/%d" % (c.org, R.randint(2, 400))])
    if chance(0.5):
        c.run("brew config | grep -i token", ["HOMEBREW_GITHUB_API_TOKEN: set"])
    return c.text()


@pos("snapcraft_export_login_credentials")
def p_snap():
    c = Ctx()
    cred = snap_credentials()
    snap = c.proj
    c.run("snapcraft export-login --snaps=%s --channels=edge,beta --acls package_access,package_push,package_update,package_release exported.txt" % snap,
          ["Login successfully exported to 'exported.txt'. This file can now be used with 'snapcraft login --with exported.txt' to log in to this account with no password and have these capabilities:",
           "snaps:       ['%s']" % snap, "channels:    ['edge', 'beta']", "permissions: ['package_access', 'package_push', 'package_update', 'package_release']",
           "expires:     %s" % iso(c.t + 31536000, 3)])
    c.show("exported.txt", [m(cred)], c.viewer(("cat", "read")))
    c.run("gh secret set SNAPCRAFT_STORE_CREDENTIALS -R %s/%s < exported.txt" % (c.org, c.proj), ["✓ Set Actions secret SNAPCRAFT_STORE_CREDENTIALS for %s/%s" % (c.org, c.proj)])
    return c.text()


@pos("choco_apikey_push_history")
def p_choco():
    c = Ctx(os_="win")
    key = uuid4()
    pkg = c.proj
    vv = semver()
    cv = "Chocolatey v2.%d.%d" % (R.randint(0, 3), R.randint(0, 4))
    c.run("choco apikey --key %s --source https://push.chocolatey.org/" % m(key), [cv, "Added ApiKey for https://push.chocolatey.org/"])
    c.run("choco pack .\\%s.nuspec" % pkg, [cv, "Attempting to build package from '%s.nuspec'." % pkg, "Successfully created package '%s\\%s.%s.nupkg'" % (c.cwd, pkg, vv)])
    c.run("choco push %s.%s.nupkg --source https://push.chocolatey.org/ --api-key %s" % (pkg, vv, m(key)),
          [cv, "Attempting to push %s.%s.nupkg to https://push.chocolatey.org/" % (pkg, vv), "%s %s was pushed successfully to https://push.chocolatey.org/" % (pkg, vv), "",
           "Your package may be subject to moderation. A moderator will review the", "package prior to acceptance. You should have received an email. If you",
           "don't hear back from moderators within 1-3 business days, please reply", "to the email and ask for status or use contact site admins on the", "package page to contact moderators.", "",
           "Please ensure your registered email address is correct and emails from", "noreply at chocolatey dot org are not being sent to your spam/junk", "folder."])
    c.run("choco apikey list", [cv, "https://push.chocolatey.org/ - (Authenticated)"])
    return c.text()


@pos("terraform_login_credentials_tfrc")
def p_tfc():
    c = Ctx()
    t1, t2 = tfc_token(), tfc_token()
    org = c.org
    c.run("terraform login", ["Terraform will request an API token for app.terraform.io using your browser.", "",
                              "If login is successful, Terraform will store the token in plain text in", "the following file for use by subsequent commands:",
                              "    %s/.terraform.d/credentials.tfrc.json" % c.home, "", "Do you want to proceed?", "  Only 'yes' will be accepted to confirm.", "",
                              "  Enter a value: yes", "", "", "---------------------------------------------------------------------------------", "",
                              "Terraform must now open a web browser to the tokens page for app.terraform.io.", "",
                              "If a browser does not open this automatically, open the following URL to proceed:",
                              "    https://app.terraform.io/app/settings/tokens?source=terraform-login", "", "",
                              "---------------------------------------------------------------------------------", "",
                              "Generate a token using your browser, and copy-paste it into this prompt.", "",
                              "Terraform will store the token in plain text in the following file", "for use by subsequent commands:",
                              "    %s/.terraform.d/credentials.tfrc.json" % c.home, "", "Token for app.terraform.io:", "  Enter a value: ", "", "",
                              "Retrieved token for user %s" % c.user, "", "", "---------------------------------------------------------------------------------", "",
                              "   Welcome to HCP Terraform!", "", "   Documentation: terraform.io/docs/cloud", "",
                              "   New to HCP Terraform? Follow these steps to instantly apply an example configuration:", "",
                              "   $ git clone https://github.com/hashicorp/tfc-getting-started.git", "   $ cd tfc-getting-started", "   $ scripts/setup.sh", ""])
    c.show("~/.terraform.d/credentials.tfrc.json", ["{", '  "credentials": {', '    "app.terraform.io": {', '      "token": "%s"' % m(t1), "    }", "  }", "}"],
           c.viewer(("cat", "read", "bat")))
    if chance(0.6):
        c.run("grep -n TF_TOKEN ~/.zshrc", ["42:export TF_TOKEN_app_terraform_io=%s  # team token for %s/release" % (m(t2), org)])
    return c.text()

# ================================================================ NEGATIVE: CI systems
def cert_der(n=None):
    n = n or R.randint(620, 980)
    inner = b"\xa0\x03\x02\x01\x02\x02\x14" + rbytes(20) + b"\x30\x0a\x06\x08\x2a\x86\x48\xce\x3d\x04\x03\x03" + rbytes(n - 40)
    tbs = b"\x30\x82" + struct.pack(">H", len(inner)) + inner
    sig = b"\x30\x0a\x06\x08\x2a\x86\x48\xce\x3d\x04\x03\x03\x03\x68\x00" + rbytes(103)
    body = tbs + sig
    return b"\x30\x82" + struct.pack(">H", len(body)) + body


def cert_b64():
    return fresh(lambda: b64e(cert_der()))


@neg("jenkins_console_masked_creds")
def n_jenkins_console():
    c = Ctx()
    bn = build_no()
    sha = sha1()
    L = ["Started by GitHub push by %s" % c.user, "Obtained Jenkinsfile from git https://github.com/%s/%s.git" % (c.org, c.proj), "[Pipeline] Start of Pipeline",
         "[Pipeline] node", "Running on %s in /home/jenkins/agent/workspace/%s_%s" % (pick(HOSTS), c.proj, c.branch.replace("/", "_")), "[Pipeline] {",
         "[Pipeline] stage", "[Pipeline] { (Checkout)", "[Pipeline] checkout", "Selected Git installation does not exist. Using Default",
         "using credential github-app-%s" % c.org, "Cloning the remote Git repository", "Fetching upstream changes from https://github.com/%s/%s.git" % (c.org, c.proj),
         "Checking out Revision %s (origin/%s)" % (sha, c.branch), " > git config core.sparsecheckout # timeout=10", " > git checkout -f %s # timeout=10" % sha,
         "Commit message: \"%s\"" % commit_msg(), "First time build. Skipping changelog.", "[Pipeline] }", "[Pipeline] // stage", "[Pipeline] stage", "[Pipeline] { (Publish)",
         "[Pipeline] withCredentials", "Masking supported pattern matches of $NPM_TOKEN or $SIGNING_PASSWORD or $KEYSTORE_FILE", "[Pipeline] {", "[Pipeline] sh",
         "+ echo //registry.npmjs.org/:_authToken=****", "+ npm publish --access public", "npm notice", "npm notice 📦  @%s/%s@%s" % (c.org, c.proj, c.ver),
         "npm notice shasum: %s" % sha1(), "npm notice integrity: %s" % (sri512()[:27] + "[...]" + rstr(B64CH, 5) + "=="),
         "npm notice Publishing to https://registry.npmjs.org/ with tag latest and default access", "+ @%s/%s@%s" % (c.org, c.proj, c.ver), "[Pipeline] sh",
         "+ ./gradlew signReleaseBundle -Pandroid.injected.signing.store.file=**** -Pandroid.injected.signing.store.password=**** -Pandroid.injected.signing.key.alias=upload"]
    L += gradle_noise(R.randint(3, 8))
    L += ["BUILD SUCCESSFUL in %ds" % R.randint(30, 400), "[Pipeline] }", "[Pipeline] // withCredentials", "[Pipeline] archiveArtifacts",
          "Archiving artifacts", "Recording fingerprints", "[Pipeline] }", "[Pipeline] // stage", "[Pipeline] }", "[Pipeline] // node", "[Pipeline] End of Pipeline",
          "GitHub has been notified of this commit’s build result", "Finished: SUCCESS"]
    c.run("curl -s -u %s:$JENKINS_API_TOKEN https://ci.%s/job/%s/job/%s/%d/consoleText" % (c.user, c.domain, c.proj, c.branch.replace("/", "%252F"), bn), L)
    return c.text()


@neg("jenkins_casc_export_secret_refs")
def n_jenkins_casc():
    c = Ctx()
    L = ["credentials:", "  system:", "    domainCredentials:", "    - credentials:", "      - usernamePassword:", "          description: \"Nexus deploy\"",
         "          id: \"nexus-deploy\"", "          password: \"%s\"" % jenkins_cipher(), "          scope: GLOBAL", "          username: \"deployment\"",
         "      - string:", "          id: \"npm-token\"", "          scope: GLOBAL", "          secret: \"%s\"" % jenkins_cipher(),
         "      - string:", "          id: \"sonar-token\"", "          secret: \"${SONAR_TOKEN}\"", "      - basicSSHUserPrivateKey:", "          id: \"deploy-ssh\"",
         "          privateKeySource:", "            directEntry:", "              privateKey: \"${readFile:${SECRETS_DIR}/deploy_ed25519}\"",
         "          username: \"git\"", "      - file:", "          fileName: \"release.jks\"", "          id: \"android-keystore\"",
         "          secretBytes: \"%s\"" % jenkins_cipher(), "      - aws:", "          accessKey: \"%s\"" % aws_key_id(), "          id: \"aws-ecr\"",
         "          secretKey: \"%s\"" % jenkins_cipher(), "      - gitHubApp:", "          appID: \"%d\"" % R.randint(100000, 999999), "          id: \"github-app\"",
         "          privateKey: \"${GITHUB_APP_KEY}\"", "          owner: \"%s\"" % c.org]
    c.say("The export keeps every credential as Jenkins ciphertext or a ${…} lookup, so nothing sensitive lands in the repo.") if chance(0.4) else None
    c.run("curl -s -u %s:$JENKINS_API_TOKEN https://jenkins.%s/manage/configuration-as-code/export | yq '.credentials'" % (c.user, c.domain), L)
    return c.text()


@neg("gitlab_job_log_masked_vars")
def n_gitlab_log():
    c = Ctx()
    jid = R.randint(4 * 10 ** 9, 9 * 10 ** 9)
    sha = sha1()
    L = ["Running with gitlab-runner 17.%d.1 (%s)" % (R.randint(0, 5), hexs(8)), "  on %s %s, system ID: s_%s" % (pick(HOSTS), "t3_" + rstr(ALNUM, 5), hexs(12)),
         "Preparing the \"docker+machine\" executor", "Using Docker executor with image registry.gitlab.com/%s/ci-images/release:%s ..." % (c.org, semver()),
         "Using docker image sha256:%s for registry.gitlab.com/%s/ci-images/release with digest registry.gitlab.com/%s/ci-images/release@sha256:%s ..." % (sha256(), c.org, c.org, sha256()),
         "Preparing environment", "Running on runner-%s-project-%d-concurrent-0 via %s..." % (rstr(LOWER + DIGITS, 8), R.randint(1000, 90000), pick(HOSTS)),
         "Getting source from Git repository", "Fetching changes with git depth set to 20...", "Initialized empty Git repository in /builds/%s/%s/.git/" % (c.org, c.proj),
         "Created fresh repository.", "Checking out %s as detached HEAD (ref is %s)..." % (sha[:8], c.branch), "Skipping Git submodules setup",
         "Restoring cache", "Checking cache for %s-%s-protected..." % (pick(["node-modules", "gradle", "cargo"]), hexs(40)),
         "Downloading cache from https://storage.googleapis.com/gitlab-com-runners-cache/project/%d/%s-protected  ETag=\"%s\"" % (R.randint(1000, 90000), hexs(40), hexs(32)),
         "Successfully extracted cache", "Executing \"step_script\" stage of the job script",
         "$ echo \"//registry.npmjs.org/:_authToken=${NPM_TOKEN}\" > ~/.npmrc", "$ docker login -u \"$CI_REGISTRY_USER\" -p \"$CI_REGISTRY_PASSWORD\" $CI_REGISTRY",
         "WARNING! Using --password via the CLI is insecure. Use --password-stdin.", "Login Succeeded", "$ set -x", "$ twine upload dist/*",
         "+ twine upload dist/*", "Uploading distributions to https://upload.pypi.org/legacy/", "$ env | grep -E 'TOKEN|PASSWORD' | sort",
         "CI_JOB_TOKEN=[MASKED]", "CI_REGISTRY_PASSWORD=[MASKED]", "NPM_TOKEN=[MASKED]", "TWINE_PASSWORD=[MASKED]", "CI_DEPLOY_PASSWORD=",
         "$ cosign sign --yes \"$CI_REGISTRY_IMAGE@$IMAGE_DIGEST\"", "Generating ephemeral keys...", "Retrieving signed certificate...",
         "Successfully verified SCT...", "tlog entry created with index: %d" % R.randint(10 ** 7, 2 * 10 ** 8),
         "Pushing signature to: registry.gitlab.com/%s/%s" % (c.org, c.proj), "Uploading artifacts for successful job", "Uploading artifacts...",
         "dist/: found %d matching artifact files and directories" % R.randint(2, 20),
         "Uploading artifacts as \"archive\" to coordinator... 201 Created  id=%d responseStatus=201 Created token=%s" % (jid, rstr(ALNUM + "_-", 8)),
         "Cleaning up project directory and file based variables", "Job succeeded"]
    c.run("glab ci trace %d" % jid, L)
    return c.text()


@neg("glab_variable_list_table")
def n_glab_list():
    c = Ctx()
    rows = [(k, pick(["true", "false"]), pick(["true", "false"]), pick(["true", "false"]), pick(["*", "production", "staging"])) for k in
            R.sample(["NPM_TOKEN", "PYPI_API_TOKEN", "DOCKERHUB_TOKEN", "SIGNING_KEY_PASSWORD", "GPG_PRIVATE_KEY", "COSIGN_PRIVATE_KEY", "COSIGN_PASSWORD",
                      "SONAR_TOKEN", "SENTRY_AUTH_TOKEN", "AWS_SECRET_ACCESS_KEY", "KUBE_CONFIG", "SLACK_WEBHOOK_URL", "NUGET_API_KEY", "CARGO_REGISTRY_TOKEN"], R.randint(6, 12))]
    out = ["KEY                     PROTECTED  MASKED  EXPANDED  SCOPE"]
    for r in rows:
        out.append("%-23s %-10s %-7s %-9s %s" % r)
    c.run("glab variable list -R %s/%s" % (c.org, c.proj), out)
    if chance(0.6):
        c.run("glab variable get NPM_TOKEN -R %s/%s" % (c.org, c.proj), ["ERROR: 403 Forbidden — variable is hidden and its value can't be revealed"] if chance(0.5) else ["[MASKED]"], rc=1)
    return c.text()


@neg("gha_release_workflow_secret_refs")
def n_gha_workflow():
    c = Ctx()
    L = ["name: publish", "", "on:", "  release:", "    types: [published]", "  workflow_dispatch: {}", "", "permissions:", "  contents: read", "", "jobs:",
         "  npm:", "    runs-on: ubuntu-24.04", "    environment: release", "    permissions:", "      contents: read", "      id-token: write  # npm provenance",
         "    steps:", "      - uses: actions/checkout@%s # v4.1.7" % sha1(), "      - uses: actions/setup-node@%s # v4.0.2" % sha1(), "        with:",
         "          node-version: 20", "          registry-url: https://registry.npmjs.org", "      - run: npm ci", "      - run: npm publish --provenance --access public",
         "        env:", "          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}", "", "  maven:", "    runs-on: ubuntu-24.04", "    environment: release", "    steps:",
         "      - uses: actions/checkout@%s # v4.1.7" % sha1(), "      - uses: actions/setup-java@%s # v4.2.1" % sha1(), "        with:", "          distribution: temurin",
         "          java-version: 21", "          server-id: central", "          server-username: MAVEN_USERNAME", "          server-password: MAVEN_PASSWORD",
         "          gpg-private-key: ${{ secrets.GPG_PRIVATE_KEY }}", "          gpg-passphrase: MAVEN_GPG_PASSPHRASE",
         "      - run: mvn -B -ntp deploy -Prelease", "        env:", "          MAVEN_USERNAME: ${{ vars.CENTRAL_USERNAME }}", "          MAVEN_PASSWORD: ${{ secrets.CENTRAL_TOKEN }}",
         "          MAVEN_GPG_PASSPHRASE: ${{ secrets.GPG_PASSPHRASE }}", "", "  pypi:", "    runs-on: ubuntu-24.04", "    environment:", "      name: pypi",
         "      url: https://pypi.org/p/%s" % c.proj, "    permissions:", "      id-token: write  # trusted publishing, no API token", "    steps:",
         "      - uses: actions/download-artifact@%s # v4.1.7" % sha1(), "      - uses: pypa/gh-action-pypi-publish@%s # v1.9.0" % sha1()]
    c.show(".github/workflows/publish.yml", L, c.viewer())
    return c.text()


@neg("gha_run_log_masked_publish")
def n_gha_log():
    c = Ctx()
    t = c.t
    L = ["##[group]Run npm publish --provenance --access public", "npm publish --provenance --access public", "shell: /usr/bin/bash -e {0}", "env:",
         "  NPM_CONFIG_USERCONFIG: /home/runner/work/_temp/.npmrc", "  NODE_AUTH_TOKEN: ***", "##[endgroup]", "npm notice", "npm notice 📦  @%s/%s@%s" % (c.org, c.proj, c.ver),
         "npm notice === Tarball Contents ===", "npm notice %.1fkB dist/index.js" % R.uniform(3, 90), "npm notice %.1fkB dist/index.d.ts" % R.uniform(1, 20),
         "npm notice %dB package.json" % R.randint(600, 2400), "npm notice === Tarball Details ===", "npm notice name:          @%s/%s" % (c.org, c.proj),
         "npm notice version:       %s" % c.ver, "npm notice filename:      %s-%s.tgz" % (c.proj, c.ver), "npm notice package size: %.1f kB" % R.uniform(3, 90),
         "npm notice shasum:        %s" % sha1(), "npm notice integrity:     %s" % (sri512()[:24] + "[...]" + rstr(B64CH, 6) + "=="),
         "npm notice total files:   %d" % R.randint(3, 40), "npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access",
         "npm notice publish Signed provenance statement with source and build information from GitHub Actions",
         "npm notice publish Provenance statement published to transparency log: https://search.sigstore.dev/?logIndex=%d" % R.randint(10 ** 7, 2 * 10 ** 8),
         "+ @%s/%s@%s" % (c.org, c.proj, c.ver), "##[group]Run docker/login-action@%s" % sha1(), "with:", "  registry: ghcr.io", "  username: %s" % c.user,
         "  password: ***", "  ecr: auto", "  logout: true", "##[endgroup]", "Logging into ghcr.io...", "Login Succeeded!", "Post job cleanup.",
         "[command]/usr/bin/git config --local --unset-all http.https://github.com/.extraheader", "http.https://github.com/.extraheader",
         "Cleaning up orphan processes"]
    L = stamp_lines(L, t)
    c.run("gh run view %d --log --job %d | cut -f3- | sed -n '/npm publish/,$p'" % (R.randint(9 * 10 ** 9, 10 ** 10), R.randint(2 * 10 ** 10, 3 * 10 ** 10)), L)
    return c.text()


@neg("buildkite_pipeline_upload_redacted")
def n_buildkite():
    c = Ctx()
    L = ["~~~ Running global environment hook", "~~~ Running agent environment hook", "$ /etc/buildkite-agent/hooks/environment",
         "Fetching secrets from ssm:/buildkite/%s/*" % c.proj, "Exporting NPM_TOKEN, CARGO_REGISTRY_TOKEN, DOCKER_PASSWORD", "~~~ Preparing working directory",
         "$ cd /var/lib/buildkite-agent/builds/%s-%d/%s/%s" % (pick(["linux-amd64", "arm64"]), R.randint(1, 40), c.org, c.proj),
         "$ git clean -ffxdq", "$ git fetch -v --prune -- origin %s" % sha1(), "$ git checkout -f %s" % sha1()[:7], "~~~ Running commands",
         "$ buildkite-agent pipeline upload .buildkite/release.yml", "%s INFO   Reading pipeline config from \".buildkite/release.yml\"" % iso(c.t).replace("T", " ")[:19],
         "%s INFO   Updating BUILDKITE_COMMIT to \"%s\"" % (iso(c.t).replace("T", " ")[:19], sha1()),
         "%s INFO   Uploading pipeline... (Attempt 1/60)" % iso(c.t).replace("T", " ")[:19], "%s INFO   Successfully uploaded and parsed pipeline config" % iso(c.t).replace("T", " ")[:19],
         "$ echo \"registry token: $NPM_TOKEN\"", "registry token: [REDACTED]", "$ cargo publish --token \"$CARGO_REGISTRY_TOKEN\"", "    Updating crates.io index",
         "   Uploading %s v%s (/var/lib/buildkite-agent/builds/%s)" % (c.proj, c.ver, c.proj), "    Uploaded %s v%s to registry `crates-io`" % (c.proj, c.ver),
         "$ buildkite-agent artifact upload \"target/package/*.crate\"", "%s INFO   Found 1 files that match \"target/package/*.crate\"" % iso(c.t).replace("T", " ")[:19],
         "%s INFO   Creating (0-1)/1 artifacts" % iso(c.t).replace("T", " ")[:19],
         "%s INFO   Uploading artifact %s target/package/%s-%s.crate (%d bytes)" % (iso(c.t).replace("T", " ")[:19], uuid4(), c.proj, c.ver, R.randint(20000, 900000)),
         "$ buildkite-agent meta-data set release-sha256 \"%s\"" % sha256(), "$ buildkite-agent annotate --style success \":rocket: Published\"",
         "~~~ Running plugin docker-login pre-exit hook", "$ docker logout"]
    c.run("bk job log %s -p %s/%s" % (uuid4(), c.org, c.proj), L)
    return c.text()


@neg("circleci_context_env_list_masked")
def n_circleci():
    c = Ctx()
    ctx_id = uuid4()
    out = ["{", '  "items": [']
    names = R.sample(["NPM_TOKEN", "GPG_KEY", "GPG_PASSPHRASE", "DOCKERHUB_PASSWORD", "SNAPCRAFT_STORE_CREDENTIALS", "CHOCO_API_KEY", "VSCE_PAT", "AWS_SECRET_ACCESS_KEY"], 5)
    for i, n in enumerate(names):
        out += ["    {", '      "name": "%s",' % n, '      "value": "xxxx%s"' % rstr(HEX, 4), "    }" + ("," if i < 4 else "")]
    out += ["  ],", '  "next_page_token": null', "}"]
    c.run('curl -s -H "Circle-Token: $CIRCLE_TOKEN" https://circleci.com/api/v2/project/gh/%s/%s/envvar | jq .' % (c.org, c.proj), out)
    tab = ["+----------------------------+--------------------------------------+", "| ENVIRONMENT VARIABLE       | VALUE                                |",
           "+----------------------------+--------------------------------------+"]
    for n in names:
        tab.append("| %-26s | %-36s |" % (n, "••••" + rstr(HEX, 4)))
    tab.append("+----------------------------+--------------------------------------+")
    c.run("circleci context show github %s release-secrets" % c.org, ["Context: release-secrets (%s)" % ctx_id] + tab)
    return c.text()


@neg("drone_secret_ls_info")
def n_drone():
    c = Ctx()
    out = []
    for n in R.sample(["docker_username", "docker_password", "npm_token", "gpg_key", "gpg_passphrase", "github_token", "cosign_key", "slack_webhook"], 5):
        out += ["%s " % n, "Events: push, tag, promote", "PullRequest Read: false", "PullRequest Write: false", ""]
    c.run("drone secret ls %s/%s" % (c.org, c.proj), out)
    c.run("drone build info %s/%s %d" % (c.org, c.proj, build_no()),
          ["Number: %d" % build_no(), "Status: success", "Event: tag", "Commit: %s" % sha1(), "Branch: %s" % c.branch, "Ref: refs/tags/v%s" % c.ver,
           "Author: %s" % c.user, "Message: %s" % commit_msg()])
    return c.text()


@neg("tekton_pipelinerun_describe_results")
def n_tekton():
    c = Ctx()
    pr = "%s-release-%s" % (c.proj, rstr(LOWER + DIGITS, 5))
    L = ["Name:              %s" % pr, "Namespace:         %s" % pick(["ci", "tekton-builds"]), "Pipeline Ref:      build-sign-push",
         "Service Account:   tekton-release", "Labels:", " tekton.dev/pipeline=build-sign-push", "Annotations:", " chains.tekton.dev/signed=true",
         " chains.tekton.dev/transparency=https://rekor.sigstore.dev/api/v1/log/entries?logIndex=%d" % R.randint(10 ** 7, 2 * 10 ** 8), "",
         "🌡️  Status", "", "STARTED          DURATION    STATUS", "%d minutes ago   %dm%ds       Succeeded" % (R.randint(2, 50), R.randint(1, 9), R.randint(0, 59)), "",
         "⚓ Params", "", " NAME          VALUE", " ∙ git-url     https://github.com/%s/%s.git" % (c.org, c.proj), " ∙ git-revision %s" % sha1(),
         " ∙ image        ghcr.io/%s/%s" % (c.org, c.proj), " ∙ docker-secret  dockerhub-push", "", "📝 Results", "", " NAME             VALUE",
         " ∙ IMAGE_DIGEST   sha256:%s" % sha256(), " ∙ IMAGE_URL      ghcr.io/%s/%s:%s" % (c.org, c.proj, c.ver), " ∙ CHAINS-GIT_COMMIT %s" % sha1(), "",
         "🗂  Workspaces", "", " NAME       SUB PATH   WORKSPACE BINDING", " ∙ source   ---        VolumeClaimTemplate", " ∙ dockerconfig ---    Secret (secret=dockerhub-push)", "",
         "🗂  Taskruns", "", " NAME                               TASK NAME      STARTED          DURATION   STATUS"]
    for t in ["fetch-source", "build-push", "sign-image", "verify"]:
        L.append(" ∙ %s-%s-pod   %s   %d minutes ago   %ds        Succeeded" % (pr, t, t, R.randint(2, 50), R.randint(5, 200)))
    c.run("tkn pr describe %s" % pr, L)
    if chance(0.5):
        c.run("kubectl get taskrun %s-sign-image -o jsonpath='{.metadata.annotations.chains\\.tekton\\.dev/signature-taskrun-%s}'" % (pr, uuid4()), [b64n(R.choice([70, 71, 72]))])
    return c.text()


@neg("argo_workflow_get_outputs")
def n_argo():
    c = Ctx()
    wf = "%s-release-%s" % (c.proj, rstr(LOWER + DIGITS, 5))
    L = ["Name:                %s" % wf, "Namespace:           argo", "ServiceAccount:      argo-workflow", "Status:              Succeeded",
         "Conditions:          ", " PodRunning          False", " Completed           True", "Created:             %s (%d minutes ago)" % (ctime(c.t), R.randint(3, 90)),
         "Duration:            %d minutes %d seconds" % (R.randint(1, 20), R.randint(0, 59)), "Progress:            5/5", "ResourcesDuration:   %dm%ds*(1 cpu),%dm%ds*(100Mi memory)" % (3, 12, 9, 41),
         "Parameters:          ", "  revision:          %s" % sha1(), "  registry-secret:   dockerhub-push", "  signing-key-ref:   k8s://argo/cosign-keys", "",
         "STEP                           TEMPLATE       PODNAME                                        DURATION  MESSAGE"]
    L.append(" ✔ %s   release-dag" % wf)
    for s in ["checkout", "build", "sign", "push", "attest"]:
        L.append(" ├─✔ %-25s %-13s %s-%s-%d  %ds" % (s, s, wf, s, R.randint(10 ** 9, 4 * 10 ** 9), R.randint(5, 200)))
    L += ["", "Outputs:", "  image-digest:      sha256:%s" % sha256(), "  artifact:          s3://%s-artifacts/%s/%s.tar.gz" % (c.org, wf, c.proj)]
    c.run("argo get %s -n argo" % wf, L)
    return c.text()


@neg("azure_pipelines_job_log_starred")
def n_azp():
    c = Ctx()
    t = c.t
    L = ["##[section]Starting: Sign and publish", "==============================================================================",
         "Task         : Command line", "Description  : Run a command line script using Bash on Linux and macOS and cmd.exe on Windows", "Version      : 2.231.1",
         "Author       : Microsoft Corporation", "==============================================================================",
         "Generating script.", "========================== Starting Command Output ===========================", "[command]/usr/bin/bash --noprofile --norc /home/vsts/work/_temp/%s.sh" % uuid4(),
         "+ echo '##vso[task.setvariable variable=RELEASE_VERSION]%s'" % c.ver, "+ dotnet nuget push 'artifacts/*.nupkg' --api-key *** --source https://api.nuget.org/v3/index.json",
         "Pushing %s.%s.nupkg to 'https://www.nuget.org/api/v2/package'..." % (c.proj, c.ver), "  PUT https://www.nuget.org/api/v2/package/", "  Created https://www.nuget.org/api/v2/package/ %dms" % R.randint(500, 3000),
         "Your package was pushed.", "+ az keyvault secret show --vault-name kv-%s --name pfx-password --query value -o tsv" % c.org, "***",
         "##[debug]Agent environment resources - Disk: / Available %d.%d GB out of 84 GB, Memory: Used %d MB out of 15990 MB, CPU: Usage %.2f%%" % (R.randint(10, 60), R.randint(0, 99), R.randint(1000, 9000), R.uniform(2, 90)),
         "##[section]Finishing: Sign and publish"]
    L = stamp_lines(L, t)
    c.run("az pipelines runs show --id %d --query 'logs.url' -o tsv | xargs curl -s -u :$AZURE_DEVOPS_EXT_PAT | jq -r '.value[7].url' | xargs curl -s -u :$AZURE_DEVOPS_EXT_PAT" % R.randint(10000, 900000), L)
    return c.text()


@neg("bitbucket_pipelines_yml_secured_refs")
def n_bbp():
    c = Ctx()
    L = ["image: atlassian/default-image:4", "", "definitions:", "  caches:", "    pnpm: $BITBUCKET_CLONE_DIR/.pnpm-store", "", "pipelines:", "  tags:", "    'v*':",
         "      - step:", "          name: Publish", "          deployment: production", "          oidc: true", "          caches: [pnpm]", "          script:",
         "            - corepack enable", "            - pnpm install --frozen-lockfile", '            - echo "//registry.npmjs.org/:_authToken=${NPM_TOKEN}" > .npmrc',
         "            - pnpm -r publish --no-git-checks", "            - pipe: atlassian/aws-ecr-push-image:2.%d.0" % R.randint(0, 4), "              variables:",
         "                AWS_OIDC_ROLE_ARN: arn:aws:iam::%012d:role/bitbucket-ecr-push" % R.randint(10 ** 11, 10 ** 12 - 1), "                AWS_DEFAULT_REGION: $AWS_DEFAULT_REGION",
         "                IMAGE_NAME: %s" % c.proj, "            - pipe: atlassian/trigger-pipeline:5.%d.0" % R.randint(0, 6), "              variables:",
         "                BITBUCKET_USERNAME: $BB_USER", "                BITBUCKET_APP_PASSWORD: $BB_APP_PASSWORD", "                REPOSITORY: deploy-config"]
    c.show("bitbucket-pipelines.yml", L, c.viewer())
    return c.text()


@neg("teamcity_settings_kts_credentials_json_refs")
def n_teamcity():
    c = Ctx()
    L = ["object Publish : BuildType({", '    name = "Publish"', "    params {"]
    for n in R.sample(["NPM_TOKEN", "SIGNING_PASSWORD", "SONATYPE_PASSWORD", "DOCKER_PASSWORD", "GPG_KEY", "NUGET_KEY"], 4):
        L.append('        password("env.%s", "credentialsJSON:%s", display = ParameterDisplay.HIDDEN)' % (n, uuid4()))
    L += ['        param("env.RELEASE_VERSION", "%build.number%")', '        param("teamcity.vcsTrigger.runBuildInNewEmptyBranch", "true")', "    }", "    vcs {",
          "        root(DslContext.settingsRoot)", "    }", "    steps {", "        gradle {", '            tasks = "publishToSonatype closeAndReleaseSonatypeStagingRepository"',
          '            gradleParams = "-Psigning.password=%env.SIGNING_PASSWORD% -PsonatypePassword=%env.SONATYPE_PASSWORD%"', "        }", "    }", "    features {",
          "        sshAgent {", '            teamcitySshKey = "deploy_ed25519"', "        }", "    }", "})"]
    c.show(".teamcity/Publish.kts", L, c.viewer())
    c.run("curl -s -H \"Authorization: Bearer $TC_TOKEN\" -H 'Accept: application/json' https://teamcity.%s/app/rest/builds/id:%d | jq '{id, number, status, revisions: .revisions.revision[0].version}'" % (c.domain, R.randint(10000, 900000)),
          ["{", '  "id": %d,' % R.randint(10000, 900000), '  "number": "%s",' % semver(), '  "status": "SUCCESS",', '  "revisions": "%s"' % sha1(), "}"])
    return c.text()


@neg("concourse_fly_pipeline_vars")
def n_concourse():
    c = Ctx()
    L = ["resources:", "- name: source", "  type: git", "  source:", "    uri: git@github.com:%s/%s.git" % (c.org, c.proj), "    branch: %s" % c.branch,
         "    private_key: ((github-deploy-key.private_key))", "- name: image", "  type: registry-image", "  source:", "    repository: ghcr.io/%s/%s" % (c.org, c.proj),
         "    username: ((registry.username))", "    password: ((registry.password))", "jobs:", "- name: publish", "  plan:", "  - get: source", "    trigger: true",
         "  - task: build", "    privileged: true", "    file: source/ci/build.yml", "  - put: image", "    params:", "      image: image/image.tar"]
    c.run("fly -t main get-pipeline -p %s" % c.proj, L)
    out = ["id    name/job        status     start                     end                       duration  team  created by"]
    for _ in range(R.randint(4, 8)):
        out.append("%-5d %s/publish  succeeded  %s  %s  %dm%ds      main  system" % (R.randint(1000, 90000), c.proj, ymd(c.t) + "@" + hms(c.t) + "+0000", ymd(c.t) + "@" + hms(c.t + 300) + "+0000", R.randint(1, 9), R.randint(0, 59)))
    c.run("fly -t main builds -j %s/publish" % c.proj, out)
    return c.text()


@neg("travis_encrypt_secure_blobs")
def n_travis():
    c = Ctx()
    secs = [b64n(256) for _ in range(R.randint(2, 3))]
    L = ["language: node_js", "node_js: 20", "deploy:", "  provider: npm", "  email: %s" % c.email, "  api_token:", '    secure: "%s"' % secs[0], "  on:", "    tags: true",
         "env:", "  global:", '    - secure: "%s"' % secs[1]]
    c.show(".travis.yml", L, c.viewer(("cat", "read", "bat")))
    c.run("travis encrypt --pro -r %s/%s GH_TOKEN=\"$GH_TOKEN\"" % (c.org, c.proj), ["Please add the following to your .travis.yml file:", "",
                                                                                   '  secure: "%s"' % b64n(256), "",
                                                                                   "Pro Tip: You can add it automatically by running with --add."])
    return c.text()


@neg("woodpecker_pipeline_from_secret_refs")
def n_woodpecker():
    c = Ctx()
    L = ["when:", "  - event: tag", "", "steps:", "  - name: build", "    image: golang:1.22", "    commands:", "      - go build -trimpath -o dist/%s ./cmd/%s" % (c.proj, c.proj),
         "  - name: publish-image", "    image: woodpeckerci/plugin-docker-buildx:4", "    settings:", "      repo: %s/%s" % (c.org, c.proj),
         "      tags: ${CI_COMMIT_TAG}", "      username:", "        from_secret: docker_username", "      password:", "        from_secret: docker_password",
         "  - name: release", "    image: woodpeckerci/plugin-release:0.%d" % R.randint(1, 3), "    settings:", "      api_key:", "        from_secret: forgejo_token",
         "      files: dist/*", "      checksum: sha256"]
    c.show(".woodpecker/release.yaml", L, c.viewer())
    c.run("woodpecker-cli repo secret ls %s/%s" % (c.org, c.proj), ["docker_password", "  Events: push, tag, deployment", "  Images: woodpeckerci/plugin-docker-buildx",
                                                                   "docker_username", "  Events: push, tag, deployment", "forgejo_token", "  Events: tag"])
    return c.text()

# ================================================================ NEGATIVE: package registries
def npm_keyid():
    return "SHA256:" + b64n(32).rstrip("=")


def ecdsa_sig_b64():
    return fresh(lambda: b64e(b"\x30\x45\x02\x21\x00" + rbytes(32) + b"\x02\x20" + rbytes(32)))


@neg("npm_publish_provenance_notice")
def n_npm_publish():
    c = Ctx()
    vv = semver()
    name = "@%s/%s" % (c.org, c.proj)
    files = R.sample(["LICENSE", "README.md", "dist/index.js", "dist/index.mjs", "dist/index.d.ts", "dist/cli.js", "package.json", "dist/index.js.map"], R.randint(4, 8))
    out = ["npm notice", "npm notice 📦  %s@%s" % (name, vv), "npm notice Tarball Contents"]
    for f in files:
        out.append("npm notice %s %s" % (pick(["1.1kB", "%.1fkB" % R.uniform(1, 90), "%dB" % R.randint(200, 990)]), f))
    integ = sri512()
    sh = sha1()
    out += ["npm notice Tarball Details", "npm notice name: %s" % name, "npm notice version: %s" % vv, "npm notice filename: %s-%s-%s.tgz" % (c.org, c.proj, vv),
            "npm notice package size: %.1f kB" % R.uniform(3, 90), "npm notice unpacked size: %.1f kB" % R.uniform(10, 300), "npm notice shasum: %s" % sh,
            "npm notice integrity: %s[...]%s" % (integ[:21], integ[-8:]), "npm notice total files: %d" % len(files), "npm notice",
            "npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access (dry-run)", "+ %s@%s" % (name, vv)]
    c.run("npm publish --dry-run --provenance", out)
    kid = npm_keyid()
    c.run("npm view %s@%s dist --json" % (name, vv),
          ["{", '  "integrity": "%s",' % sri512(), '  "shasum": "%s",' % sha1(), '  "tarball": "https://registry.npmjs.org/%s/-/%s-%s.tgz",' % (name, c.proj, vv),
           '  "fileCount": %d,' % R.randint(3, 80), '  "unpackedSize": %d,' % R.randint(3000, 900000), '  "attestations": {',
           '    "url": "https://registry.npmjs.org/-/npm/v1/attestations/%s@%s",' % (name.replace("/", "%2f"), vv), '    "provenance": {',
           '      "predicateType": "https://slsa.dev/provenance/v1"', "    }", "  },", '  "signatures": [', "    {", '      "keyid": "%s",' % kid,
           '      "sig": "%s"' % ecdsa_sig_b64(), "    }", "  ]", "}"])
    return c.text()


@neg("npm_registry_keys_audit_signatures")
def n_npm_keys():
    c = Ctx()
    priv, pub = p256_pair()
    spki = b64e(ec_spki(pub))
    kid = npm_keyid()
    c.run("curl -s https://registry.npmjs.org/-/npm/v1/keys | jq .",
          ["{", '  "keys": [', "    {", '      "expires": null,', '      "keyid": "%s",' % kid, '      "keytype": "ecdsa-sha2-nistp256",',
           '      "scheme": "ecdsa-sha2-nistp256",', '      "key": "%s"' % spki, "    }", "  ]", "}"])
    n = R.randint(300, 2500)
    out = ["audited %d packages in %ds" % (n, R.randint(1, 9)), "", "%d packages have verified registry signatures" % n, "",
           "%d packages have verified attestations" % R.randint(20, 300)]
    if chance(0.4):
        out += ["", "1 package has an invalid registry signature:", "", "%s@%s (https://registry.npmjs.org/)" % (pick(NPM_PKGS), semver()), "",
                "Someone might have tampered with this package since it was published on the registry!"]
    c.run("npm audit signatures", out)
    return c.text()


@neg("twine_upload_verbose_hidden_password")
def n_twine():
    c = Ctx()
    pkg = c.proj.replace("-", "_")
    vv = semver()
    out = ["INFO     Using configuration from %s/.pypirc" % c.home, "Uploading distributions to https://upload.pypi.org/legacy/",
           "INFO     dist/%s-%s-py3-none-any.whl (%.1f KB)" % (pkg, vv, R.uniform(5, 300)), "INFO     dist/%s-%s.tar.gz (%.1f KB)" % (pkg, vv, R.uniform(5, 300)),
           "INFO     username set by command options", "INFO     Querying keyring for password", "INFO     password set from keyring",
           "INFO     username: __token__", "INFO     password: <hidden>", "Uploading %s-%s-py3-none-any.whl" % (pkg, vv),
           "100% ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 25.3/25.3 kB • 00:00 • 59.2 MB/s", "INFO     Response from https://upload.pypi.org/legacy/:", "         200 OK",
           "Uploading %s-%s.tar.gz" % (pkg, vv), "100% ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 22.9/22.9 kB • 00:00 • 48.7 MB/s",
           "INFO     Response from https://upload.pypi.org/legacy/:", "         200 OK", "", "View at:", "https://pypi.org/project/%s/%s/" % (c.proj, vv)]
    c.run("twine upload --verbose -u __token__ dist/*", out)
    c.run("pip hash dist/*", ["dist/%s-%s-py3-none-any.whl:" % (pkg, vv), "--hash=sha256:%s" % sha256(), "dist/%s-%s.tar.gz:" % (pkg, vv), "--hash=sha256:%s" % sha256()])
    return c.text()


@neg("cargo_publish_dry_run_packaging")
def n_cargo():
    c = Ctx()
    vv = semver()
    out = ["    Updating crates.io index", "   Packaging %s v%s (%s)" % (c.proj, vv, c.cwd), "    Packaged %d files, %.1fKiB (%.1fKiB compressed)" % (R.randint(10, 90), R.uniform(30, 900), R.uniform(10, 200)),
           "   Verifying %s v%s (%s)" % (c.proj, vv, c.cwd)] + cargo_noise() + [
           "    Finished `dev` profile [unoptimized + debuginfo] target(s) in %.2fs" % R.uniform(4, 80), "   Uploading %s v%s (%s)" % (c.proj, vv, c.cwd),
           "warning: aborting upload due to dry run"]
    c.run("cargo publish --dry-run", out)
    c.run("cat target/package/%s-%s/.cargo_vcs_info.json" % (c.proj, vv), ["{", '  "git": {', '    "sha1": "%s"' % sha1(), "  },", '  "path_in_vcs": ""', "}"])
    c.run("sha256sum target/package/%s-%s.crate" % (c.proj, vv), ["%s  target/package/%s-%s.crate" % (sha256(), c.proj, vv)])
    if chance(0.5):
        crate = pick(["serde", "tokio", "ring", "rustls"])
        c.run("grep -A3 'name = \"%s\"' Cargo.lock" % crate,
              ['name = "%s"' % crate, 'version = "%s"' % semver(), 'source = "registry+https://github.com/rust-lang/crates.io-index"',
               'checksum = "%s"' % sha256()])
    return c.text()


@neg("gem_build_checksums_yaml")
def n_gem():
    c = Ctx()
    vv = semver()
    c.run("gem build %s.gemspec" % c.proj, ["  Successfully built RubyGem", "  Name: %s" % c.proj, "  Version: %s" % vv, "  File: %s-%s.gem" % (c.proj, vv)])
    c.run("tar -xOf %s-%s.gem checksums.yaml.gz | gunzip" % (c.proj, vv),
          ["---", "SHA256:", "  metadata.gz: %s" % sha256(), "  data.tar.gz: %s" % sha256(), "SHA512:", "  metadata.gz: %s" % hexs(128), "  data.tar.gz: %s" % hexs(128)])
    if chance(0.5):
        c.run("shasum -a 256 %s-%s.gem" % (c.proj, vv), ["%s  %s-%s.gem" % (sha256(), c.proj, vv)])
    return c.text()


@neg("dotnet_nuget_verify_signatures")
def n_nuget_verify():
    c = Ctx()
    pkg = "%s.%s.%s" % (c.org.replace("-", "").capitalize(), c.proj.replace("-", "").capitalize(), semver())
    L = ["Verifying %s" % pkg, "Content hash: %s" % b64n(64), "", "Signature type: Author",
         "  Subject Name: CN=%s, O=%s, L=Seattle, S=Washington, C=US" % (c.org.title(), c.org.title()), "  SHA256 hash: %s" % HEXU(64),
         "  Valid from: 6/1/2024 12:00:00 AM to 6/1/2027 11:59:59 PM", "", "Timestamp: %s" % ctime(c.t), "", "  Verifying the timestamp with certificate:",
         '  Subject Name: CN=DigiCert SHA256 RSA4096 Timestamp Responder 2024 1, O="DigiCert, Inc.", C=US', "  SHA256 hash: %s" % HEXU(64),
         "  Valid from: 9/26/2024 12:00:00 AM to 11/25/2035 11:59:59 PM", "", "Signature type: Repository", "nuget-v3-service-index-url: https://api.nuget.org/v3/index.json",
         "nuget-package-owners: %s" % c.org, "  Subject Name: CN=NuGet.org Repository by Microsoft, O=NuGet.org Repository by Microsoft, L=Redmond, S=Washington, C=US",
         "  SHA256 hash: %s" % HEXU(64), "  Valid from: 2/8/2024 12:00:00 AM to 5/13/2027 11:59:59 PM", "", "Successfully verified package '%s'." % pkg]
    c.run("dotnet nuget verify --all ~/.nuget/packages/%s.nupkg -v n" % pkg.lower(), L)
    return c.text()


@neg("maven_settings_env_and_encrypted")
def n_mvn_settings():
    c = Ctx()
    L = ['<settings xmlns="http://maven.apache.org/SETTINGS/1.2.0">', "  <servers>", "    <server>", "      <id>central</id>",
         "      <username>${env.CENTRAL_USERNAME}</username>", "      <password>${env.CENTRAL_TOKEN}</password>", "    </server>", "    <server>",
         "      <id>nexus-releases</id>", "      <username>deployment</username>", "      <password>{%s}</password>" % b64n(32), "    </server>", "    <server>",
         "      <id>nexus-snapshots</id>", "      <username>deployment</username>", "      <password>{%s}</password>" % b64n(48), "    </server>", "    <server>",
         "      <id>gpg.passphrase</id>", "      <passphrase>${env.MAVEN_GPG_PASSPHRASE}</passphrase>", "    </server>", "  </servers>", "  <profiles>", "    <profile>",
         "      <id>release</id>", "      <properties>", "        <gpg.keyname>%s</gpg.keyname>" % gpg_fpr(), "        <gpg.executable>gpg</gpg.executable>",
         "      </properties>", "    </profile>", "  </profiles>", "</settings>"]
    c.show("~/.m2/settings.xml", L, c.viewer())
    if chance(0.5):
        c.run("mvn help:effective-settings | grep -A2 '<server>' | head -12",
              ["    <server>", "      <username>${env.CENTRAL_USERNAME}</username>", "      <password>***</password>", "--", "    <server>",
               "      <username>deployment</username>", "      <password>***</password>"])
    return c.text()


@neg("gradle_publish_sonatype_staging_log")
def n_gradle_sonatype():
    c = Ctx()
    g = "com.%s" % c.org.replace("-", "")
    vv = semver()
    rid = "%s-%d" % (g.replace(".", ""), R.randint(1000, 1300))
    L = gradle_noise(R.randint(3, 6), ":lib") + ["> Task :lib:signMavenPublication", "> Task :initializeSonatypeStagingRepository",
                                                "Created staging repository '%s' at https://s01.oss.sonatype.org/service/local/repositories/%s/content/" % (rid, rid),
                                                "> Task :lib:publishMavenPublicationToSonatypeRepository", "> Task :closeSonatypeStagingRepository",
                                                "> Task :releaseSonatypeStagingRepository", "", "BUILD SUCCESSFUL in %dm %ds" % (R.randint(1, 9), R.randint(0, 59)),
                                                "%d actionable tasks: %d executed" % (19, 19)]
    c.run("./gradlew publishToSonatype closeAndReleaseSonatypeStagingRepository", L)
    d = "build/repo/%s/%s/%s" % (g.replace(".", "/"), c.proj, vv)
    files = []
    for f in ["%s-%s.jar" % (c.proj, vv), "%s-%s.pom" % (c.proj, vv), "%s-%s-sources.jar" % (c.proj, vv), "%s-%s.module" % (c.proj, vv)]:
        files += [f, f + ".asc", f + ".md5", f + ".sha1", f + ".sha256", f + ".sha512"]
    c.run("ls %s" % d, files)
    c.run("cat %s/%s-%s.jar.sha256 %s/%s-%s.jar.sha1" % (d, c.proj, vv, d, c.proj, vv), [sha256(), sha1()])
    if chance(0.6):
        key = PgpKey(c.person, c.email)
        c.run("cat %s/%s-%s.pom.asc" % (d, c.proj, vv), key.sig_armor())
    return c.text()


@neg("go_mod_download_json_sums")
def n_go_json():
    c = Ctx()
    out = []
    for mod in R.sample(GO_MODS, R.randint(2, 4)):
        p, v = mod.split()
        out += ["{", '\t"Path": "%s",' % p, '\t"Version": "%s",' % v, '\t"Info": "%s/go/pkg/mod/cache/download/%s/@v/%s.info",' % (c.home, p, v),
                '\t"GoMod": "%s/go/pkg/mod/cache/download/%s/@v/%s.mod",' % (c.home, p, v), '\t"Zip": "%s/go/pkg/mod/cache/download/%s/@v/%s.zip",' % (c.home, p, v),
                '\t"Dir": "%s/go/pkg/mod/%s@%s",' % (c.home, p, v), '\t"Sum": "h1:%s",' % b64n(32), '\t"GoModSum": "h1:%s",' % b64n(32), '\t"Origin": {',
                '\t\t"VCS": "git",', '\t\t"URL": "https://%s",' % p, '\t\t"Hash": "%s",' % sha1(), '\t\t"Ref": "refs/tags/%s"' % v, "\t}", "}"]
    c.run("go mod download -json %s" % " ".join(m_.split()[0] + "@" + m_.split()[1] for m_ in R.sample(GO_MODS, 2)), out)
    return c.text()


@neg("helm_chart_lock_prov_file")
def n_helm_prov():
    c = Ctx()
    key = PgpKey(c.person, c.email)
    vv = semver()
    c.show("charts/%s/Chart.lock" % c.proj, ["dependencies:", "- name: postgresql", "  repository: oci://registry-1.docker.io/bitnamicharts", "  version: 15.%d.%d" % (R.randint(0, 5), R.randint(0, 9)),
                                             "- name: common", "  repository: oci://registry-1.docker.io/bitnamicharts", "  version: 2.%d.0" % R.randint(10, 20),
                                             "digest: sha256:%s" % sha256(), "generated: \"%s\"" % iso(c.t, 9, z="+00:00")], "cat")
    prov = ["-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA512", "", "apiVersion: v2", "appVersion: %s" % vv, "description: A Helm chart for %s" % c.proj,
            "name: %s" % c.proj, "type: application", "version: %s" % vv, "", "...", "files:", "  %s-%s.tgz: sha256:%s" % (c.proj, vv, sha256())] + key.sig_armor()
    c.show("%s-%s.tgz.prov" % (c.proj, vv), prov, "cat")
    c.run("helm verify %s-%s.tgz --keyring ~/.gnupg/pubring.gpg" % (c.proj, vv),
          ["Signed by: %s" % key.uid.decode(), "Using Key With Fingerprint: %s" % key.fpr, "Chart Hash Verified: sha256:%s" % sha256()])
    return c.text()


@neg("conan_lockfile_revisions")
def n_conan():
    c = Ctx()
    libs = R.sample(["zlib/1.3.1", "openssl/3.3.1", "fmt/10.2.1", "spdlog/1.14.1", "boost/1.85.0", "libcurl/8.8.0", "gtest/1.14.0", "nlohmann_json/3.11.3"], R.randint(3, 6))
    req = ['        "%s#%s%%%d.%03d"' % (l, hexs(32), ts_epoch(), R.randint(0, 999)) for l in libs]
    L = ["{", '    "version": "0.5",', '    "requires": ['] + [r + ("," if i < len(req) - 1 else "") for i, r in enumerate(req)] + ["    ],",
         '    "build_requires": [', '        "cmake/3.29.3#%s%%%d.%03d"' % (hexs(32), ts_epoch(), R.randint(0, 999)), "    ],", '    "python_requires": [],', '    "config_requires": []', "}"]
    c.show("conan.lock", L, c.viewer(("cat", "read", "bat")))
    lib = libs[0]
    out = ["conancenter", "  %s" % lib, "    revisions", "      %s (%s UTC)" % (hexs(32), iso(c.t)[:19].replace("T", " ")), "        packages"]
    for _ in range(R.randint(2, 4)):
        out += ["          %s" % sha1(), "            info", "              settings", "                arch: %s" % pick(["x86_64", "armv8"]),
                "                build_type: Release", "                os: %s" % pick(["Linux", "Macos", "Windows"])]
    c.run("conan list '%s:*' -r conancenter" % lib, out)
    return c.text()


@neg("uv_publish_trusted_publishing_log")
def n_uv_publish():
    c = Ctx()
    t = c.t
    pkg = c.proj.replace("-", "_")
    vv = semver()
    L = ["##[group]Run uv publish --trusted-publishing always", "uv publish --trusted-publishing always", "shell: /usr/bin/bash -e {0}", "##[endgroup]",
         "Publishing 2 files https://upload.pypi.org/legacy/", "Getting trusted publishing token from GitHub Actions OIDC", "Uploading %s-%s-py3-none-any.whl (%.1fKiB)" % (pkg, vv, R.uniform(5, 300)),
         "Uploading %s-%s.tar.gz (%.1fKiB)" % (pkg, vv, R.uniform(5, 300)), "##[group]Run actions/attest-build-provenance@%s" % sha1(),
         "with:", "  subject-path: dist/*", "  github-token: ***", "  push-to-registry: false", "  show-summary: true", "##[endgroup]",
         "Attestation created for 2 subjects", "https://github.com/%s/%s/attestations/%d" % (c.org, c.proj, R.randint(10 ** 6, 9 * 10 ** 6)),
         "Attestation uploaded to repository", "Attestation signed using certificate from Sigstore Public Good instance",
         "Attestation signature uploaded to Rekor transparency log", "https://search.sigstore.dev/?logIndex=%d" % R.randint(10 ** 8, 2 * 10 ** 8),
         "  sha256:%s  %s-%s-py3-none-any.whl" % (sha256(), pkg, vv), "  sha256:%s  %s-%s.tar.gz" % (sha256(), pkg, vv)]
    L = stamp_lines(L, t)
    c.run("gh run view --log --job %d | cut -f3-" % R.randint(2 * 10 ** 10, 3 * 10 ** 10), L)
    return c.text()


@neg("yarnrc_yml_env_interpolated_tokens")
def n_yarnrc():
    c = Ctx()
    L = ["nodeLinker: node-modules", "npmRegistryServer: \"https://registry.npmjs.org\"", "npmAuthToken: \"${NPM_TOKEN:-}\"", "npmScopes:", "  %s:" % c.org,
         "    npmRegistryServer: \"https://npm.pkg.github.com\"", "    npmAuthToken: \"${GITHUB_TOKEN}\"", "  internal:",
         "    npmRegistryServer: \"https://nexus.%s/repository/npm-internal/\"" % c.domain, "    npmAuthIdent: \"${NEXUS_NPM_IDENT}\"", "    npmAlwaysAuth: true",
         "yarnPath: .yarn/releases/yarn-4.%d.%d.cjs" % (R.randint(0, 5), R.randint(0, 3))]
    c.show(".yarnrc.yml", L, c.viewer())
    c.run("yarn config get npmScopes --json", ['{"%s":{"npmAlwaysAuth":false,"npmAuthIdent":null,"npmAuthToken":"********","npmRegistryServer":"https://npm.pkg.github.com"},"internal":{"npmAlwaysAuth":true,"npmAuthIdent":"********","npmAuthToken":null,"npmRegistryServer":"https://nexus.%s/repository/npm-internal/"}}' % (c.org, c.domain)])
    return c.text()

# ================================================================ NEGATIVE: artifact stores
@neg("jf_config_show_masked")
def n_jf_show():
    c = Ctx()
    sid = pick(["prod", "saas", "acme-platform"])
    base = "https://%s.jfrog.io/" % c.org
    c.run("jf c show", ["Server ID:\t\t\t%s" % sid, "JFrog Platform URL:\t\t%s" % base, "Artifactory URL:\t\t%sartifactory/" % base, "Distribution URL:\t\t%sdistribution/" % base,
                        "Xray URL:\t\t\t%sxray/" % base, "Mission Control URL:\t\t%smc/" % base, "Pipelines URL:\t\t\t%spipelines/" % base, "User:\t\t\t\t%s" % c.user,
                        "Access token:\t\t\t***", "Default:\t\t\ttrue"])
    c.run("jf rt ping", ["OK"])
    out = ["["]
    for i in range(R.randint(2, 4)):
        vv = semver()
        out += ["  {", '    "path": "libs-release-local/com/%s/%s/%s/%s-%s.jar",' % (c.org.replace("-", ""), c.proj, vv, c.proj, vv), '    "type": "file",',
                '    "size": %d,' % R.randint(10000, 9000000), '    "created": "%s",' % iso(c.t - R.randint(0, 9e6), 3, z="Z"), '    "modified": "%s",' % iso(c.t, 3),
                '    "sha1": "%s",' % sha1(), '    "sha256": "%s",' % sha256(), '    "md5": "%s",' % hexs(32), '    "props": {',
                '      "build.name": ["%s"],' % c.proj, '      "build.number": ["%d"],' % build_no(), '      "vcs.revision": ["%s"]' % sha1(), "    }", "  }" + ("," if i < 1 else "")]
    out[-1] = "  }"
    out.append("]")
    c.run("jf rt s 'libs-release-local/com/%s/%s/*.jar' --props 'build.name=%s'" % (c.org.replace("-", ""), c.proj, c.proj), out)
    return c.text()


@neg("artifactory_storage_api_checksums")
def n_af_storage():
    c = Ctx()
    vv = semver()
    path = "com/%s/%s/%s/%s-%s.jar" % (c.org.replace("-", ""), c.proj, vv, c.proj, vv)
    base = "https://%s.jfrog.io/artifactory" % c.org
    s1, s2, md = sha1(), sha256(), hexs(32)
    L = ["{", '  "repo" : "libs-release-local",', '  "path" : "/%s",' % path, '  "created" : "%s",' % iso(c.t, 3, z="Z"), '  "createdBy" : "ci-deployer",',
         '  "lastModified" : "%s",' % iso(c.t, 3), '  "modifiedBy" : "ci-deployer",', '  "lastUpdated" : "%s",' % iso(c.t, 3),
         '  "downloadUri" : "%s/libs-release-local/%s",' % (base, path), '  "mimeType" : "application/java-archive",', '  "size" : "%d",' % R.randint(10000, 9000000),
         '  "checksums" : {', '    "sha1" : "%s",' % s1, '    "md5" : "%s",' % md, '    "sha256" : "%s"' % s2, "  },", '  "originalChecksums" : {',
         '    "sha1" : "%s",' % s1, '    "md5" : "%s",' % md, '    "sha256" : "%s"' % s2, "  },", '  "uri" : "%s/api/storage/libs-release-local/%s"' % (base, path), "}"]
    c.run("curl -s -H \"Authorization: Bearer $JF_ACCESS_TOKEN\" %s/api/storage/libs-release-local/%s" % (base, path), L)
    return c.text()


@neg("nexus_search_assets_json")
def n_nexus_assets():
    c = Ctx()
    host = "https://nexus.%s" % c.domain
    out = ["{", '  "items" : [']
    n = R.randint(2, 4)
    for i in range(n):
        vv = semver()
        ext = pick(["jar", "pom", "jar.asc"])
        p = "com/%s/%s/%s/%s-%s.%s" % (c.org.replace("-", ""), c.proj, vv, c.proj, vv, ext)
        aid = fresh(lambda: b64e(("maven-releases:" + rstr(HEX, 32)).encode()).rstrip("="))
        out += ["  {", '    "downloadUrl" : "%s/repository/maven-releases/%s",' % (host, p), '    "path" : "%s",' % p, '    "id" : "%s",' % aid,
                '    "repository" : "maven-releases",', '    "format" : "maven2",', '    "checksum" : {', '      "sha1" : "%s",' % sha1(), '      "sha512" : "%s",' % hexs(128),
                '      "sha256" : "%s",' % sha256(), '      "md5" : "%s"' % hexs(32), "    },", '    "contentType" : "application/java-archive",',
                '    "lastModified" : "%s",' % iso(c.t, 3, z="+00:00"), '    "blobCreated" : "%s",' % iso(c.t, 3, z="+00:00"), '    "uploader" : "ci-deployer",',
                '    "uploaderIp" : "10.%d.%d.%d",' % (R.randint(0, 255), R.randint(0, 255), R.randint(1, 254)), '    "fileSize" : %d' % R.randint(900, 9000000),
                "  }" + ("," if i < n - 1 else "")]
    out += ["  ],", '  "continuationToken" : %s' % ('"%s"' % hexs(32) if chance(0.5) else "null"), "}"]
    c.run("curl -s -u \"$NEXUS_USER:$NEXUS_PASSWORD\" '%s/service/rest/v1/search/assets?repository=maven-releases&maven.artifactId=%s'" % (host, c.proj), out)
    return c.text()


@neg("codeartifact_package_version_assets")
def n_codeartifact():
    c = Ctx()
    acct = "%012d" % R.randint(10 ** 11, 10 ** 12 - 1)
    reg = pick(["us-east-1", "eu-west-1"])
    dom = c.org
    vv = semver()
    pkg = c.proj.replace("-", "_")
    L = ["{", '    "format": "pypi",', '    "package": "%s",' % c.proj, '    "version": "%s",' % vv, '    "versionRevision": "%s",' % b64n(33).replace("+", "").replace("/", "")[:44],
         '    "assets": [']
    files = ["%s-%s-py3-none-any.whl" % (pkg, vv), "%s-%s.tar.gz" % (pkg, vv)]
    for i, f in enumerate(files):
        L += ["        {", '            "name": "%s",' % f, '            "size": %d,' % R.randint(5000, 900000), '            "hashes": {', '                "MD5": "%s",' % hexs(32),
              '                "SHA-1": "%s",' % sha1(), '                "SHA-256": "%s",' % sha256(), '                "SHA-512": "%s"' % hexs(128), "            }",
              "        }" + ("," if i == 0 else "")]
    L += ["    ]", "}"]
    c.run("aws codeartifact list-package-version-assets --domain %s --domain-owner %s --repository pypi-store --format pypi --package %s --package-version %s --region %s" % (dom, acct, c.proj, vv, reg), L)
    c.run("aws codeartifact describe-domain --domain %s --query 'domain.[arn,encryptionKey,s3BucketArn]' --output text" % dom,
          ["arn:aws:codeartifact:%s:%s:domain/%s\tarn:aws:kms:%s:%s:key/%s\tarn:aws:s3:::assets-%s-%s" % (reg, acct, dom, reg, acct, uuid4(), acct, rstr(LOWER + DIGITS, 8))])
    return c.text()


@neg("ghcr_packages_api_versions")
def n_ghcr():
    c = Ctx()
    out = ["["]
    n = R.randint(2, 4)
    for i in range(n):
        vid = R.randint(10 ** 8, 3 * 10 ** 8)
        out += ["  {", '    "id": %d,' % vid, '    "name": "sha256:%s",' % sha256(),
                '    "url": "https://api.github.com/orgs/%s/packages/container/%s/versions/%d",' % (c.org, c.proj, vid),
                '    "package_html_url": "https://github.com/orgs/%s/packages/container/package/%s",' % (c.org, c.proj), '    "created_at": "%s",' % iso(c.t - R.randint(0, 9e6)),
                '    "updated_at": "%s",' % iso(c.t), '    "html_url": "https://github.com/orgs/%s/packages/container/%s/%d",' % (c.org, c.proj, vid), '    "metadata": {',
                '      "package_type": "container",', '      "container": {', '        "tags": [%s]' % (", ".join('"%s"' % t for t in R.sample(["latest", "v" + semver(), semver(), "sha-" + hexs(7)], R.randint(0, 2))) if i < 2 else ""),
                "      }", "    }", "  }" + ("," if i < n - 1 else "")]
    out.append("]")
    c.run("gh api /orgs/%s/packages/container/%s/versions --paginate | jq '.[0:%d]'" % (c.org, c.proj, n), out)
    return c.text()


@neg("quay_harbor_tags_digests")
def n_quay():
    c = Ctx()
    if chance(0.5):
        out = ["{", '  "tags": [']
        n = R.randint(3, 5)
        for i in range(n):
            out += ["    {", '      "name": "%s",' % pick(["latest", semver(), "v" + semver(), "sha256-%s.sig" % sha256()]), '      "reversion": false,', '      "start_ts": %d,' % ts_epoch(),
                    '      "manifest_digest": "sha256:%s",' % sha256(), '      "is_manifest_list": %s,' % pick(["true", "false"]), '      "size": %d,' % R.randint(10 ** 6, 9 * 10 ** 8),
                    '      "last_modified": "%s"' % pick(["Tue, 11 Jun 2024 09:14:03 -0000", "Fri, 04 Oct 2024 17:22:41 -0000"]), "    }" + ("," if i < n - 1 else "")]
        out += ["  ],", '  "page": 1,', '  "has_additional": false', "}"]
        c.run("curl -s https://quay.io/api/v1/repository/%s/%s/tag/?limit=5 | jq ." % (c.org, c.proj), out)
    else:
        out = ["DIGEST                                                                    TAGS            SIZE      PUSH TIME"]
        for _ in range(R.randint(3, 7)):
            out.append("sha256:%s  %-15s %-9s %s" % (sha256(), pick(["latest", semver(), "-"]), "%.2fMiB" % R.uniform(3, 400), iso(c.t - R.randint(0, 9e6))[:19].replace("T", " ")))
        c.run("harbor artifact list %s/%s" % (pick(["platform", "release"]), c.proj), out)
    return c.text()


@neg("crane_digest_ls_config")
def n_crane():
    c = Ctx()
    img = "ghcr.io/%s/%s" % (c.org, c.proj)
    c.run("crane ls %s" % img, [semver() for _ in range(R.randint(3, 6))] + ["sha256-%s.sig" % sha256(), "sha256-%s.att" % sha256(), "latest"])
    man = ["{", '  "schemaVersion": 2,', '  "mediaType": "application/vnd.oci.image.manifest.v1+json",', '  "config": {', '    "mediaType": "application/vnd.oci.image.config.v1+json",',
           '    "digest": "sha256:%s",' % sha256(), '    "size": %d' % R.randint(900, 9000), "  },", '  "layers": [']
    n = R.randint(2, 5)
    for i in range(n):
        man += ["    {", '      "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",', '      "digest": "sha256:%s",' % sha256(), '      "size": %d' % R.randint(10 ** 4, 9 * 10 ** 7), "    }" + ("," if i < n - 1 else "")]
    man += ["  ],", '  "annotations": {', '    "org.opencontainers.image.revision": "%s",' % sha1(), '    "org.opencontainers.image.source": "https://github.com/%s/%s",' % (c.org, c.proj),
            '    "org.opencontainers.image.created": "%s"' % iso(c.t), "  }", "}"]
    c.run("crane manifest %s:latest | jq ." % img, man)
    if chance(0.5):
        c.run("crane config %s:latest | jq -c '.history[]'" % img,
              ['{"created":"%s","created_by":"COPY /out/%s /usr/local/bin/ # buildkit","comment":"buildkit.dockerfile.v0"}' % (iso(c.t), c.proj),
               '{"created":"%s","created_by":"ENTRYPOINT [\\"/usr/local/bin/%s\\"]","comment":"buildkit.dockerfile.v0","empty_layer":true}' % (iso(c.t), c.proj)])
    return c.text()


@neg("oras_discover_referrers_tree")
def n_oras():
    c = Ctx()
    img = "ghcr.io/%s/%s@sha256:%s" % (c.org, c.proj, sha256())
    kinds = ["application/vnd.dev.cosign.artifact.sig.v1+json", "application/vnd.dev.sigstore.bundle.v0.3+json", "application/spdx+json",
             "application/vnd.cyclonedx+json", "application/vnd.in-toto+json"]
    sel = R.sample(kinds, R.randint(2, 4))
    out = [img]
    for i, k in enumerate(sel):
        last = i == len(sel) - 1
        out.append(("└── " if last else "├── ") + k)
        kids = R.randint(1, 2)
        for j in range(kids):
            out.append(("    " if last else "│   ") + ("└── " if j == kids - 1 else "├── ") + "sha256:%s" % sha256())
    c.run("oras discover -o tree %s" % img, out)
    return c.text()

# ================================================================ NEGATIVE: signing
REKOR_LOGID = "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d"


@neg("gpg_k_with_keygrip_colons")
def n_gpg_colons():
    c = Ctx()
    key = PgpKey(c.person, c.email)
    exp = key.created + R.choice([2, 3, 5]) * 31536000
    L = ["sec:u:255:22:%s:%d:%d::u:::scESC:::+:::ed25519:::0:" % (key.keyid, key.created, exp), "fpr:::::::::%s:" % key.fpr, "grp:::::::::%s:" % key.keygrip,
         "uid:u::::%d::%s::%s::::::::::0:" % (key.created, HEXU(40), key.uid.decode()), "ssb:u:255:18:%s:%d:%d:::::e:::+:::cv25519::" % (key.sub_fpr[-16:], key.created, exp),
         "fpr:::::::::%s:" % key.sub_fpr, "grp:::::::::%s:" % key.sub_keygrip]
    c.run("gpg --list-secret-keys --with-colons --with-keygrip %s" % key.keyid, L)
    c.run("ls ~/.gnupg/private-keys-v1.d/", ["%s.key" % key.keygrip, "%s.key" % key.sub_keygrip])
    if chance(0.5):
        c.run("gpg --fingerprint %s" % key.keyid[-8:], ["pub   ed25519 %s [SC]" % ymd(key.created), "      %s" % " ".join(key.fpr[i:i + 4] for i in range(0, 40, 4)).replace(key.fpr[16:20] + " ", key.fpr[16:20] + "  ", 1),
                                                      "uid           [ultimate] %s" % key.uid.decode(), "sub   cv25519 %s [E]" % ymd(key.created), ""])
    return c.text()


@neg("gpg_armored_detached_signature_asc")
def n_gpg_asc():
    c = Ctx()
    key = PgpKey(c.person, c.email)
    art = "%s-%s.tar.gz" % (c.proj, semver())
    c.show("dist/%s.asc" % art, key.sig_armor(), "cat")
    c.run("gpg --verify dist/%s.asc dist/%s" % (art, art), ["gpg: Signature made %s UTC" % ctime(c.t), "gpg:                using EDDSA key %s" % key.fpr,
                                                             'gpg: Good signature from "%s" [%s]' % (key.uid.decode(), pick(["ultimate", "full", "unknown"]))])
    if chance(0.6):
        c.run("gpg --export --armor %s" % key.keyid, key.armor(secret=False))
    return c.text()


def rekor_body(sig, pubpem):
    return fresh(lambda: b64e(json.dumps({"apiVersion": "0.0.1", "kind": "hashedrekord", "spec": {"data": {"hash": {"algorithm": "sha256", "value": rstr(HEX, 64)}},
                                                                                                     "signature": {"content": sig, "publicKey": {"content": b64e(pubpem.encode())}}}},
                                                separators=(",", ":")).encode()))


@neg("cosign_pub_and_bundle_json")
def n_cosign_bundle():
    c = Ctx()
    pub = cosign_pub_lines()
    c.show("cosign.pub", pub, "cat")
    sig = ecdsa_sig_b64()
    c.show("dist/%s.sig" % c.proj, [sig], "cat")
    body = rekor_body(sig, "\n".join(pub) + "\n")
    doc = {"base64Signature": sig, "cert": None, "rekorBundle": {"SignedEntryTimestamp": ecdsa_sig_b64(), "Payload": {"body": body, "integratedTime": ts_epoch(),
                                                                                                                   "logIndex": R.randint(10 ** 8, 2 * 10 ** 8), "logID": REKOR_LOGID}}}
    c.run("jq . dist/%s.bundle" % c.proj, json.dumps(doc, indent=2).split("\n"))
    c.run("cosign verify-blob --key cosign.pub --bundle dist/%s.bundle dist/%s" % (c.proj, c.proj), ["Verified OK"])
    return c.text()


@neg("rekor_cli_get_entry")
def n_rekor():
    c = Ctx()
    idx = R.randint(10 ** 8, 2 * 10 ** 8)
    pub = "\n".join(cosign_pub_lines()) + "\n"
    L = ["LogID: %s" % REKOR_LOGID, "Index: %d" % idx, "IntegratedTime: %s" % iso(c.t), "UUID: 24296fb24b8ad77a%s" % sha256(), "Body: {", '  "HashedRekordObj": {',
         '    "data": {', '      "hash": {', '        "algorithm": "sha256",', '        "value": "%s"' % sha256(), "      }", "    },", '    "signature": {',
         '      "content": "%s",' % ecdsa_sig_b64(), '      "publicKey": {', '        "content": "%s"' % fresh(lambda: b64e(pub.encode())), "      }", "    }", "  }", "}"]
    c.run("rekor-cli get --log-index %d --rekor_server https://rekor.sigstore.dev" % idx, L)
    return c.text()


@neg("sigstore_bundle_npm_provenance")
def n_sigstore_bundle():
    c = Ctx()
    name = "@%s/%s" % (c.org, c.proj)
    vv = semver()
    stmt = {"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": "pkg:npm/%s@%s" % (name.replace("@", "%40"), vv), "digest": {"sha512": hexs(128)}}],
            "predicateType": "https://slsa.dev/provenance/v1",
            "predicate": {"buildDefinition": {"buildType": "https://slsa-framework.github.io/github-actions-buildtypes/workflow/v1",
                                              "externalParameters": {"workflow": {"ref": "refs/tags/v%s" % vv, "repository": "https://github.com/%s/%s" % (c.org, c.proj), "path": ".github/workflows/publish.yml"}},
                                              "resolvedDependencies": [{"uri": "git+https://github.com/%s/%s@refs/tags/v%s" % (c.org, c.proj, vv), "digest": {"gitCommit": sha1()}}]},
                          "runDetails": {"builder": {"id": "https://github.com/actions/runner/github-hosted"},
                                         "metadata": {"invocationId": "https://github.com/%s/%s/actions/runs/%d/attempts/1" % (c.org, c.proj, R.randint(9 * 10 ** 9, 10 ** 10))}}}}
    payload = fresh(lambda: b64e(json.dumps(stmt, separators=(",", ":")).encode()))
    hashes = [b64n(32) for _ in range(R.randint(4, 8))]
    doc = {"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
           "verificationMaterial": {"certificate": {"rawBytes": cert_b64()},
                                    "tlogEntries": [{"logIndex": str(R.randint(10 ** 8, 2 * 10 ** 8)), "logId": {"keyId": b64e(bytes.fromhex(REKOR_LOGID))},
                                                     "kindVersion": {"kind": "dsse", "version": "0.0.1"}, "integratedTime": str(ts_epoch()),
                                                     "inclusionPromise": {"signedEntryTimestamp": ecdsa_sig_b64()},
                                                     "inclusionProof": {"logIndex": str(R.randint(10 ** 7, 9 * 10 ** 7)), "rootHash": b64n(32), "treeSize": str(R.randint(9 * 10 ** 7, 10 ** 8)),
                                                                        "hashes": hashes, "checkpoint": {"envelope": "rekor.sigstore.dev - 1193050959916656506\n%d\n%s\n\n— rekor.sigstore.dev wNI9aj%s\n" % (R.randint(9 * 10 ** 7, 10 ** 8), b64n(32), b64n(70))}},
                                                     "canonicalizedBody": fresh(lambda: b64e(json.dumps({"apiVersion": "0.0.1", "kind": "dsse", "spec": {"envelopeHash": {"algorithm": "sha256", "value": rstr(HEX, 64)},
                                                                                                                                                          "payloadHash": {"algorithm": "sha256", "value": rstr(HEX, 64)}}}, separators=(",", ":")).encode()))}]},
           "dsseEnvelope": {"payload": payload, "payloadType": "application/vnd.in-toto+json", "signatures": [{"sig": ecdsa_sig_b64(), "keyid": ""}]}}
    c.run("curl -s https://registry.npmjs.org/-/npm/v1/attestations/%s@%s | jq '.attestations[1].bundle'" % (name.replace("/", "%2f"), vv), json.dumps(doc, indent=2, ensure_ascii=False).split("\n"))
    return c.text()


@neg("minisign_pub_sig_cat")
def n_minisign():
    c = Ctx()
    art = "%s-%s.tar.gz" % (c.proj, semver())
    if chance(0.6):
        pk, kid = minisign_pub()
        c.show("minisign.pub", ["untrusted comment: minisign public key %s" % kid[::-1].hex().upper(), pk], "cat")
        tc = "timestamp:%d\tfile:%s\thashed" % (ts_epoch(), art)
        c.show("dist/%s.minisig" % art, ["untrusted comment: signature from minisign secret key", minisign_sig(kid), "trusted comment: %s" % tc, b64n(64)], "cat")
        c.run("minisign -Vm dist/%s -p minisign.pub" % art, ["Signature and comment signature verified", "Trusted comment: %s" % tc])
    else:
        pk = signify_pub()
        c.show("keys/%s.pub" % c.proj, ["untrusted comment: %s release key public key" % c.proj, pk], "cat")
        c.show("SHA256.sig", ["untrusted comment: verify with %s.pub" % c.proj, fresh(lambda: b64e(b"Ed" + rbytes(8) + rbytes(64))),
                              "SHA256 (%s) = %s" % (art, sha256()), "SHA256 (%s.sbom.json) = %s" % (art, sha256())], "cat")
        c.run("signify -C -p keys/%s.pub -x SHA256.sig" % c.proj, ["Signature Verified", "%s: OK" % art, "%s.sbom.json: OK" % art])
    return c.text()


@neg("sparkle_appcast_edsignature")
def n_sparkle():
    c = Ctx(os_="mac")
    app = pick(MAC_APPS)
    L = ['<?xml version="1.0" standalone="yes"?>', '<rss xmlns:sparkle="http://www.andymatuschak.org/xml-namespaces/sparkle" version="2.0">', "    <channel>",
         "        <title>%s</title>" % app]
    for i in range(R.randint(2, 4)):
        vv = semver()
        L += ["        <item>", "            <title>%s</title>" % vv, "            <pubDate>%s, %02d %s 2024 09:14:03 +0000</pubDate>" % (pick(WEEKDAYS), R.randint(1, 28), pick(MONTHS)),
              "            <sparkle:version>%d</sparkle:version>" % R.randint(100, 9000), "            <sparkle:shortVersionString>%s</sparkle:shortVersionString>" % vv,
              "            <sparkle:minimumSystemVersion>12.0</sparkle:minimumSystemVersion>",
              '            <enclosure url="https://github.com/%s/%s/releases/download/v%s/%s-%s.zip" length="%d" type="application/octet-stream" sparkle:edSignature="%s"/>'
              % (c.org, c.proj, vv, app, vv, R.randint(5 * 10 ** 6, 9 * 10 ** 7), b64n(64)), "        </item>"]
    L += ["    </channel>", "</rss>"]
    c.show("appcast.xml", L, c.viewer())
    c.run("plutil -p %s.app/Contents/Info.plist | grep -E 'SU(PublicEDKey|FeedURL)'" % app,
          ['  "SUFeedURL" => "https://%s.github.io/%s/appcast.xml"' % (c.org, c.proj), '  "SUPublicEDKey" => "%s"' % b64n(32)])
    return c.text()


@neg("notarytool_history_log_json")
def n_notary_log():
    c = Ctx(os_="mac")
    app = pick(MAC_APPS)
    out = ["Successfully received submission history."]
    ids = []
    for _ in range(R.randint(3, 5)):
        i = uuid4()
        ids.append(i)
        out += ["  --------------------------------------------------", "  createdDate: %s" % iso(c.t - R.randint(0, 9e6), 3), "  id: %s" % i, "  name: %s.zip" % app,
                "  status: %s" % pick(["Accepted", "Accepted", "Invalid", "Rejected"])]
    c.run('xcrun notarytool history --keychain-profile "AC_NOTARY"', out)
    doc = {"logFormatVersion": 1, "jobId": ids[0], "status": "Accepted", "statusSummary": "Ready for distribution", "statusCode": 0, "archiveFilename": "%s.zip" % app,
           "uploadDate": iso(c.t, 3), "sha256": sha256(),
           "ticketContents": [{"path": "%s.zip/%s.app" % (app, app), "digestAlgorithm": "SHA-256", "cdhash": sha1(), "arch": a} for a in ["x86_64", "arm64"]]
           + [{"path": "%s.zip/%s.app/Contents/Frameworks/Sparkle.framework/Versions/B/Sparkle" % (app, app), "digestAlgorithm": "SHA-256", "cdhash": sha1(), "arch": "arm64"}],
           "issues": None}
    c.run('xcrun notarytool log %s --keychain-profile "AC_NOTARY"' % ids[0], json.dumps(doc, indent=2).split("\n"))
    return c.text()


@neg("spctl_assess_stapler_validate")
def n_spctl():
    c = Ctx(os_="mac")
    app = pick(MAC_APPS)
    team = rs(UPPER + DIGITS, 10)
    org = c.org.replace("-", " ").title()
    c.run("spctl -a -vvv -t install build/%s.dmg" % app, ["build/%s.dmg: accepted" % app, "source=Notarized Developer ID", "origin=Developer ID Application: %s Inc. (%s)" % (org, team)])
    c.run("xcrun stapler validate build/%s.dmg" % app, ["Processing: %s/build/%s.dmg" % (c.cwd, app), "The validate action worked!"])
    cd = sha1()
    L = ["Executable=%s/build/%s.app/Contents/MacOS/%s" % (c.cwd, app, app), "Identifier=com.%s.%s" % (c.org.replace("-", ""), c.proj.replace("-", "")),
         "Format=app bundle with Mach-O universal (x86_64 arm64)", "CodeDirectory v=20500 size=%d flags=0x10000(runtime) hashes=%d+7 location=embedded" % (R.randint(2000, 90000), R.randint(50, 2000)),
         "VersionPlatform=1", "VersionMin=786432", "VersionSDK=%d" % R.choice([917504, 918784, 983040]), "Hash type=sha256 size=32", "CandidateCDHash sha256=%s" % cd,
         "CandidateCDHashFull sha256=%s" % (cd + hexs(24)), "Hash choices=sha256", "CMSDigest=%s" % sha256(), "CMSDigestType=2", "Launch Constraints:", "\tNone",
         "CDHash=%s" % cd, "Signature size=%d" % R.randint(8800, 9300), "Authority=Developer ID Application: %s Inc. (%s)" % (org, team),
         "Authority=Developer ID Certification Authority", "Authority=Apple Root CA", "Timestamp=%s %d, 2024 at %d:%02d:%02d AM" % (pick(MONTHS), R.randint(1, 28), R.randint(1, 11), R.randint(0, 59), R.randint(0, 59)),
         "Notarization Ticket=stapled", "Info.plist entries=%d" % R.randint(20, 40), "TeamIdentifier=%s" % team, "Runtime Version=14.%d.0" % R.randint(0, 5),
         "Sealed Resources version=2 rules=13 files=%d" % R.randint(10, 400), "Internal requirements count=1 size=%d" % R.randint(180, 240)]
    c.run("codesign -dv --verbose=4 build/%s.app 2>&1" % app, L)
    return c.text()


@neg("authenticode_get_signature_ps")
def n_authenticode():
    c = Ctx(os_="win")
    exe = "%s.exe" % c.proj.replace("-", " ").title().replace(" ", "")
    org = c.org.replace("-", " ").title()
    th = HEXU(40)
    L = ["SignerCertificate      : [Subject]", "                           CN=%s Inc., O=%s Inc., L=Austin, S=Texas, C=US" % (org, org), "",
         "                         [Issuer]", '                           CN=DigiCert Trusted G4 Code Signing RSA4096 SHA384 2021 CA1, O="DigiCert, Inc.", C=US', "",
         "                         [Serial Number]", "                           %s" % HEXU(32), "", "                         [Not Before]", "                           3/4/2024 12:00:00 AM", "",
         "                         [Not After]", "                           3/3/2027 11:59:59 PM", "", "                         [Thumbprint]", "                           %s" % th, "",
         "TimeStamperCertificate : [Subject]", '                           CN=DigiCert Timestamp 2023, O="DigiCert, Inc.", C=US', "",
         "                         [Thumbprint]", "                           %s" % HEXU(40), "", "Status                 : Valid", "StatusMessage          : Signature verified.",
         "Path                   : %s\\dist\\%s" % (c.cwd, exe), "SignatureType          : Authenticode", "IsOSBinary             : False"]
    c.run("Get-AuthenticodeSignature .\\dist\\%s | Format-List *" % exe, L)
    c.run("certutil -hashfile .\\dist\\%s SHA256" % exe, ["SHA256 hash of .\\dist\\%s:" % exe, sha256(), "CertUtil: -hashfile command completed successfully."])
    return c.text()


@neg("keystore_properties_env_refs")
def n_keystore_refs():
    c = Ctx()
    L = ["import java.util.Properties", "", "val keystoreProperties = Properties().apply {", '    val f = rootProject.file("keystore.properties")', "    if (f.exists()) load(f.inputStream())",
         "}", "", "android {", "    signingConfigs {", '        create("release") {', '            storeFile = file(System.getenv("KEYSTORE_PATH") ?: "release.jks")',
         '            storePassword = System.getenv("KEYSTORE_PASSWORD") ?: keystoreProperties["storePassword"] as String?',
         '            keyAlias = keystoreProperties["keyAlias"] as String? ?: "upload"',
         '            keyPassword = providers.environmentVariable("KEY_PASSWORD").orNull ?: keystoreProperties["keyPassword"] as String?', "        }", "    }",
         "    buildTypes {", "        release {", "            isMinifyEnabled = true", '            signingConfig = signingConfigs.getByName("release")', "        }", "    }", "}"]
    c.show("app/build.gradle.kts", L, c.viewer())
    c.show("keystore.properties.example", ["# copy to keystore.properties (git-ignored) and fill in", "storeFile=../release.jks", "storePassword=<store password>",
                                           "keyAlias=upload", "keyPassword=<key password>"], "cat")
    return c.text()


@neg("jarsigner_verify_verbose_certs")
def n_jarsigner_verify():
    c = Ctx()
    alias = pick(["UPLOAD", "RELEASE", "KEY0", "CERT"])
    cn = "CN=%s, OU=Mobile, O=%s, L=Porto, ST=Porto, C=PT" % (c.person, c.org.title())
    d = "%s %s %2d %s UTC 2024" % (pick(WEEKDAYS), pick(MONTHS), R.randint(1, 28), hms(c.t))
    L = ["s         %5d %s META-INF/MANIFEST.MF" % (R.randint(900, 9000), d), "", "      >>> Signer", "      X.509, %s" % cn,
         "      [certificate is valid from 1/15/24, 9:00 AM to 1/8/74, 9:00 AM]", "      [Invalid certificate chain: PKIX path building failed: unable to find valid certification path to requested target]", "",
         "          %5d %s META-INF/%s.SF" % (R.randint(900, 9000), d, alias), "          %5d %s META-INF/%s.RSA" % (R.randint(900, 2000), d, alias)]
    for f in R.sample(["BundleConfig.pb", "base/manifest/AndroidManifest.xml", "base/dex/classes.dex", "base/resources.pb", "base/assets/config.json", "base/root/kotlin/kotlin.kotlin_builtins"], 4):
        L.append("sm        %5d %s %s" % (R.randint(200, 900000), d, f))
    L += ["", "  s = signature was verified ", "  m = entry is listed in manifest", "  k = at least one certificate was found in keystore", "",
          '- Signed by "%s"' % cn, "    Digest algorithm: SHA-256", "    Signature algorithm: SHA256withRSA, 2048-bit key", "", "jar verified."]
    c.run("jarsigner -verify -verbose -certs app-release.aab", L)
    man = ["Manifest-Version: 1.0", "Created-By: 17.0.11 (Eclipse Adoptium)", ""]
    for f in ["BundleConfig.pb", "base/dex/classes.dex", "base/manifest/AndroidManifest.xml"]:
        man += ["Name: %s" % f, "SHA-256-Digest: %s" % b64n(32), ""]
    c.run("unzip -p app-release.aab META-INF/MANIFEST.MF", man)
    return c.text()

# ================================================================ NEGATIVE: release tooling
@neg("goreleaser_checksums_artifacts_json")
def n_goreleaser():
    c = Ctx()
    vv = semver()
    files = ["%s_%s_%s.%s" % (c.proj, vv, t, "zip" if "windows" in t else "tar.gz") for t in ["darwin_all", "linux_amd64", "linux_arm64", "windows_amd64", "windows_arm64"]]
    files += ["%s_%s_%s.%s" % (c.proj, vv, t, e) for t, e in [("linux_amd64", "deb"), ("linux_amd64", "rpm"), ("linux_arm64", "apk")]]
    sums = [(sha256(), f) for f in files]
    c.show("dist/%s_%s_checksums.txt" % (c.proj, vv), ["%s  %s" % s for s in sums], "cat")
    out = []
    for s, f in R.sample(sums, 3):
        out += ["{", '  "name": "%s",' % f, '  "path": "dist/%s",' % f, '  "extra": "sha256:%s"' % s, "}"]
    c.run("jq '.[] | select(.type==\"Archive\") | {name, path, extra: .extra.Checksum}' dist/artifacts.json | head -15", out)
    c.run("jq . dist/metadata.json", ["{", '  "project_name": "%s",' % c.proj, '  "tag": "v%s",' % vv, '  "previous_tag": "v%s",' % c.prev, '  "version": "%s",' % vv,
                                      '  "commit": "%s",' % sha1(), '  "date": "%s",' % iso(c.t, 9, z="+00:00"), '  "runtime": {', '    "goos": "linux",', '    "goarch": "amd64"', "  }", "}"])
    return c.text()


@neg("gh_release_view_assets_json")
def n_gh_release():
    c = Ctx()
    vv = semver()
    tag = "v" + vv
    base = "https://github.com/%s/%s/releases/download/%s/" % (c.org, c.proj, tag)
    names = ["%s_%s_linux_amd64.tar.gz" % (c.proj, vv), "%s_%s_darwin_all.tar.gz" % (c.proj, vv), "checksums.txt", "checksums.txt.sig", "checksums.txt.pem",
             "multiple.intoto.jsonl", "%s_%s_linux_amd64.tar.gz.sbom.json" % (c.proj, vv)]
    out = ["{", '  "assets": [']
    for i, n in enumerate(names):
        out += ["    {", '      "apiUrl": "https://api.github.com/repos/%s/%s/releases/assets/%d",' % (c.org, c.proj, R.randint(10 ** 8, 3 * 10 ** 8)),
                '      "contentType": "%s",' % ("application/gzip" if n.endswith("gz") else "application/octet-stream"), '      "createdAt": "%s",' % iso(c.t),
                '      "digest": "sha256:%s",' % sha256(), '      "downloadCount": %d,' % R.randint(0, 90000), '      "id": "RA_kwDO%s",' % rstr(ALNUM + "_-", 16), '      "label": "",',
                '      "name": "%s",' % n, '      "size": %d,' % R.randint(300, 9 * 10 ** 7), '      "state": "uploaded",', '      "updatedAt": "%s",' % iso(c.t),
                '      "url": "%s%s"' % (base, n), "    }" + ("," if i < len(names) - 1 else "")]
    out += ["  ],", '  "publishedAt": "%s",' % iso(c.t), '  "tagName": "%s"' % tag, "}"]
    c.run("gh release view %s --json assets,tagName,publishedAt" % tag, out)
    c.run("gh release download %s -p 'checksums.txt*' -p '*linux_amd64.tar.gz' && sha256sum --ignore-missing -c checksums.txt" % tag, ["%s_%s_linux_amd64.tar.gz: OK" % (c.proj, vv)])
    c.run("cosign verify-blob --certificate checksums.txt.pem --signature checksums.txt.sig --certificate-identity https://github.com/%s/%s/.github/workflows/release.yml@refs/tags/%s --certificate-oidc-issuer https://token.actions.githubusercontent.com checksums.txt"
          % (c.org, c.proj, tag), ["Verified OK"])
    return c.text()


@neg("semantic_release_log_secure_masked")
def n_semrel():
    c = Ctx()
    t = c.t
    p = "[semantic-release]"

    def ts():
        c.t += R.choice([0, 0, 1, 1, 2])
        h = civil(c.t)[3]
        return "[%d:%02d:%02d %s]" % ((h % 12) or 12, civil(c.t)[4], civil(c.t)[5], "AM" if h < 12 else "PM")
    vv = semver()
    L = ["%s %s › ℹ  Running semantic-release version 24.%d.0" % (ts(), p, R.randint(0, 2)),
         "%s %s › ✔  Run automated release from branch %s on repository https://[secure]@github.com/%s/%s.git" % (ts(), p, c.branch, c.org, c.proj),
         "%s %s › ✔  Allowed to push to the Git repository" % (ts(), p),
         "%s %s [@semantic-release/npm] › ℹ  Verify authentication for registry https://registry.npmjs.org/" % (ts(), p),
         "%s %s [@semantic-release/npm] › ℹ  Reading npm config from %s/.npmrc" % (ts(), p, c.home),
         "%s %s [@semantic-release/npm] › ℹ  Wrote NPM_TOKEN to /tmp/%s/.npmrc" % (ts(), p, hexs(20)),
         "%s %s › ℹ  Found git tag v%s associated with version %s on branch %s" % (ts(), p, c.prev, c.prev, c.branch),
         "%s %s › ℹ  The next release version is %s" % (ts(), p, vv),
         "%s %s [@semantic-release/npm] › ℹ  Publishing version %s to npm registry on dist-tag latest" % (ts(), p, vv),
         "npm notice Publishing to https://registry.npmjs.org/ with tag latest and default access", "+ @%s/%s@%s" % (c.org, c.proj, vv),
         "%s %s [@semantic-release/github] › ℹ  Published GitHub release: https://github.com/%s/%s/releases/tag/v%s" % (ts(), p, c.org, c.proj, vv),
         "%s %s [@semantic-release/git] › ✔  Prepared Git release: v%s" % (ts(), p, vv),
         "[%s %s] chore(release): %s [skip ci]" % (c.branch, sha1()[:7], vv),
         "%s %s › ✔  Published release %s on default channel" % (ts(), p, vv)]
    c.run("npx semantic-release", L)
    return c.text()


@neg("release_please_manifest_config")
def n_release_please():
    c = Ctx()
    pk = R.sample(["packages/core", "packages/cli", "packages/react", "charts/%s" % c.proj], 2)
    c.show(".release-please-manifest.json", ["{", '  ".": "%s",' % c.ver, '  "%s": "%s",' % (pk[0], semver()), '  "%s": "%s"' % (pk[1], semver()), "}"], "cat")
    c.show("release-please-config.json", ["{", '  "$schema": "https://raw.githubusercontent.com/googleapis/release-please/main/schemas/config.json",', '  "release-type": "node",',
                                          '  "include-component-in-tag": true,', '  "packages": {', '    ".": {},', '    "%s": { "component": "%s" },' % (pk[0], pk[0].split("/")[-1]),
                                          '    "%s": { "component": "%s" }' % (pk[1], pk[1].split("/")[-1]), "  }", "}"], c.viewer(("cat", "read", "bat")))
    body = ["title:\tchore(main): release %s" % c.ver, "state:\tOPEN", "author:\tgithub-actions", "labels:\tautorelease: pending", "--",
            ":robot: I have created a release *beep* *boop*", "---", "", "", "## [%s](https://github.com/%s/%s/compare/v%s...v%s) (%s)" % (c.ver, c.org, c.proj, c.prev, c.ver, ymd(c.t)), "",
            "### Features", ""]
    for _ in range(R.randint(2, 5)):
        s = sha1()
        body.append("* %s ([#%d](https://github.com/%s/%s/issues/%d)) ([%s](https://github.com/%s/%s/commit/%s))" % (commit_msg(), R.randint(10, 900), c.org, c.proj, R.randint(10, 900), s[:7], c.org, c.proj, s))
    body += ["", "### Bug Fixes", ""]
    for _ in range(R.randint(1, 3)):
        s = sha1()
        body.append("* %s ([%s](https://github.com/%s/%s/commit/%s))" % (commit_msg(), s[:7], c.org, c.proj, s))
    body += ["", "---", "This PR was generated with [Release Please](https://github.com/googleapis/release-please). See [documentation](https://github.com/googleapis/release-please#release-please)."]
    c.run("gh pr view %d" % R.randint(10, 2000), body)
    return c.text()


@neg("cyclonedx_sbom_components_hashes")
def n_cdx():
    c = Ctx()
    comps = []
    for p in R.sample(NPM_PKGS, R.randint(3, 6)):
        v = semver()
        comps.append({"type": "library", "bom-ref": "pkg:npm/%s@%s" % (p.replace("@", "%40"), v), "name": p.split("/")[-1], "version": v,
                      **({"group": p.split("/")[0]} if p.startswith("@") else {}), "hashes": [{"alg": "SHA-512", "content": hexs(128)}],
                      "licenses": [{"license": {"id": pick(["MIT", "Apache-2.0", "ISC", "BSD-3-Clause"])}}], "purl": "pkg:npm/%s@%s" % (p.replace("@", "%40"), v)})
    doc = {"bomFormat": "CycloneDX", "specVersion": "1.5", "serialNumber": "urn:uuid:%s" % uuid4(), "version": 1,
           "metadata": {"timestamp": iso(c.t), "tools": {"components": [{"type": "application", "name": "cyclonedx-npm", "version": "1.%d.0" % R.randint(10, 19)}]},
                        "component": {"type": "application", "bom-ref": "%s@%s" % (c.proj, c.ver), "name": c.proj, "version": c.ver}},
           "components": comps}
    c.run("jq . dist/%s.cdx.json" % c.proj, json.dumps(doc, indent=2).split("\n"))
    return c.text()


@neg("spdx_sbom_package_checksums")
def n_spdx():
    c = Ctx()
    vv = semver()
    L = ["SPDXVersion: SPDX-2.3", "DataLicense: CC0-1.0", "SPDXID: SPDXRef-DOCUMENT", "DocumentName: %s-%s" % (c.proj, vv),
         "DocumentNamespace: https://anchore.com/syft/file/%s-%s-%s" % (c.proj, vv, uuid4()), "Creator: Organization: Anchore, Inc", "Creator: Tool: syft-1.%d.0" % R.randint(4, 14),
         "Created: %s" % iso(c.t), ""]
    for mod in R.sample(GO_MODS, R.randint(3, 5)):
        p, v = mod.split()
        L += ["##### Package: %s" % p, "", "PackageName: %s" % p, "SPDXID: SPDXRef-Package-go-module-%s-%s" % (p.replace("/", "-"), hexs(16)), "PackageVersion: %s" % v,
              "PackageSupplier: NOASSERTION", "PackageDownloadLocation: NOASSERTION", "FilesAnalyzed: false", "PackageChecksum: SHA256: %s" % sha256(),
              "PackageSourceInfo: acquired package info from go module information: /%s" % c.proj, "PackageLicenseConcluded: NOASSERTION", "PackageLicenseDeclared: NOASSERTION",
              "PackageCopyrightText: NOASSERTION", "ExternalRef: SECURITY cpe23Type cpe:2.3:a:%s:%s:%s:*:*:*:*:*:*:*" % (p.split("/")[1], p.split("/")[-1], v[1:]),
              "ExternalRef: PACKAGE-MANAGER purl pkg:golang/%s@%s" % (p, v), ""]
    c.show("dist/%s_%s_linux_amd64.tar.gz.sbom.spdx" % (c.proj, vv), L, c.viewer(("cat", "head", "sed", "read")))
    return c.text()


@neg("slsa_provenance_intoto_statement")
def n_slsa():
    c = Ctx()
    vv = semver()
    subj = [{"name": "%s_%s_%s.tar.gz" % (c.proj, vv, t), "digest": {"sha256": sha256()}} for t in ["linux_amd64", "linux_arm64", "darwin_all"]]
    stmt = {"_type": "https://in-toto.io/Statement/v0.1", "predicateType": "https://slsa.dev/provenance/v0.2", "subject": subj,
            "predicate": {"builder": {"id": "https://github.com/slsa-framework/slsa-github-generator/.github/workflows/generator_generic_slsa3.yml@refs/tags/v2.0.0"},
                          "buildType": "https://github.com/slsa-framework/slsa-github-generator/generic@v1",
                          "invocation": {"configSource": {"uri": "git+https://github.com/%s/%s@refs/tags/v%s" % (c.org, c.proj, vv), "digest": {"sha1": sha1()}, "entryPoint": ".github/workflows/release.yml"},
                                         "environment": {"github_run_id": str(R.randint(9 * 10 ** 9, 10 ** 10)), "github_sha1": sha1(), "github_repository_id": str(R.randint(10 ** 8, 9 * 10 ** 8)),
                                                         "github_actor_id": str(R.randint(10 ** 5, 10 ** 8)), "github_event_name": "push"}},
                          "metadata": {"buildInvocationID": "%d-1" % R.randint(9 * 10 ** 9, 10 ** 10), "completeness": {"parameters": True, "environment": False, "materials": False}, "reproducible": False},
                          "materials": [{"uri": "git+https://github.com/%s/%s@refs/tags/v%s" % (c.org, c.proj, vv), "digest": {"sha1": sha1()}}]}}
    c.run("jq -r .payload multiple.intoto.jsonl | base64 -d | jq .", json.dumps(stmt, indent=2).split("\n"))
    c.run("jq -c '.signatures[0] | {keyid, sig: .sig[0:24]}' multiple.intoto.jsonl", ['{"keyid":"","sig":"%s"}' % ecdsa_sig_b64()[:24]])
    return c.text()


@neg("docker_credential_helper_list")
def n_docker_creds():
    c = Ctx(os_="mac")
    helper = pick(["osxkeychain", "desktop"])
    L = ["{", '\t"auths": {', '\t\t"ghcr.io": {},', '\t\t"https://index.docker.io/v1/": {},', '\t\t"%s.dkr.ecr.us-east-1.amazonaws.com": {}' % ("%012d" % R.randint(10 ** 11, 10 ** 12 - 1)), "\t},",
         '\t"credsStore": "%s",' % helper, '\t"credHelpers": {', '\t\t"us-docker.pkg.dev": "gcloud"', "\t},", '\t"currentContext": "desktop-linux"', "}"]
    c.show("~/.docker/config.json", L, c.viewer(("cat", "read")))
    c.run("docker-credential-%s list | jq ." % helper, ["{", '  "https://index.docker.io/v1/": "%s",' % c.user, '  "ghcr.io": "%s"' % c.user, "}"])
    c.run("gcloud auth configure-docker us-docker.pkg.dev", ["Adding credentials for: us-docker.pkg.dev", "gcloud credential helpers already registered correctly."])
    return c.text()


@neg("snapcraft_whoami_status")
def n_snap():
    c = Ctx()
    c.run("snapcraft whoami", ["email: %s" % c.email, "username: %s" % c.user, "id: %s" % rs(ALNUM, 32),
                               "permissions: package_access, package_manage, package_metrics, package_push, package_register, package_release, package_update",
                               "channels: no restrictions", "expires: %s" % iso(c.t + 31536000, 3)])
    vv = semver()
    r = R.randint(50, 900)
    c.run("snapcraft status %s" % c.proj, ["Track    Arch    Channel    Version                Revision    Progress", "latest   amd64   stable     %-22s %-11d -" % (vv, r),
                                          "                 candidate  ↑                      ↑           -", "                 beta       %-22s %-11d -" % (semver(), r + 2),
                                          "                 edge       %-22s %-11d -" % ("%s+git%d.%s" % (semver(), R.randint(1, 40), hexs(7)), r + 4),
                                          "         arm64   stable     %-22s %-11d -" % (vv, r + 1)])
    return c.text()


@neg("release_env_secret_manager_refs")
def n_release_refs():
    c = Ctx()
    v = c.viewer(("cat", "bat", "read"))
    L = ["# resolved at runtime by `op run --env-file=.env.release.tpl -- make release`", "GITHUB_TOKEN=op://Release/github-release-bot/credential",
         "NPM_TOKEN=op://Release/npm-automation/token", "COSIGN_PASSWORD=op://Release/cosign/password", "GPG_PRIVATE_KEY=op://Release/maven-central-gpg/private key",
         "TF_TOKEN_app_terraform_io=op://Infra/hcp-terraform/team-token"]
    c.show(".env.release.tpl", L, v)
    mk = ["release:", "\tdoppler run --project %s --config prd -- goreleaser release --clean" % c.proj,
          "\t@export SONATYPE_PASSWORD=$$(vault kv get -field=password secret/release/sonatype); ./gradlew publishToSonatype",
          "\tAWS_PROFILE=release aws codeartifact login --tool twine --domain %s --repository pypi-store" % c.org]
    c.run("grep -A4 '^release:' Makefile", mk)
    c.run("rg -n 'your-|EXAMPLE|xxxx' docs/releasing.md", ["12:export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx   # replace with your token",
                                                          "13:export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "14:export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                                                          "27:twine upload -u __token__ -p pypi-your-token-here dist/*", "31:export COSIGN_PASSWORD=<your-cosign-password>"])
    return c.text()

# ---------------------------------------------------------------- checks and output
SCHEME_WORDS = ("Bearer ", "Basic ", "token ", "Token ", "Bot ", "AccessKey ", "key=", "token=", "SSWS ", "pass:", "FlyV1 ",
                "Circle-Token: ", "PRIVATE-TOKEN: ")
QUOTES = "\"'`"
CONT_BAD = re.compile(r"^(\s|│|\d+[ \t→│])")


def spans_of(text):
    out, start = [], None
    for i, ch in enumerate(text):
        if ch == OPEN:
            assert start is None, "nested mark at %d" % i
            start = i
        elif ch == CLOSE:
            assert start is not None, "unbalanced close at %d" % i
            out.append(text[start + 1:i])
            start = None
    assert start is None, "unclosed mark"
    return out


def check_row(row):
    text, pos = row["text"], row["positive"]
    if not pos:
        assert OPEN not in text and CLOSE not in text, "mark in negative row %d" % row["id"]
        return []
    sp = spans_of(text)
    assert sp, "positive row %d without marks" % row["id"]
    for s in sp:
        assert s, "empty mark"
        assert s == s.strip(), "outer whitespace in mark %r (row %d)" % (s, row["id"])
        assert s[0] not in QUOTES and s[-1] not in QUOTES, "quote at mark edge %r (row %d)" % (s, row["id"])
        assert not s.startswith(SCHEME_WORDS), "scheme word in mark %r" % s
        if "\n" in s:
            for cont in s.split("\n")[1:]:
                assert not CONT_BAD.match(cont), "continuation line under a prefix %r (row %d)" % (cont[:30], row["id"])
    plain = unmark(text)
    for s in sp:
        if len(s) >= 8:
            inside = sum(x.count(s) for x in sp)
            assert plain.count(s) == inside, "secret %r printed unmarked in row %d" % (s[:40], row["id"])
    return sp


def used_template_names():
    here = os.path.dirname(os.path.abspath(__file__))
    parent = os.path.dirname(here)
    names = []
    for d in sorted(os.listdir(parent)):
        p = os.path.join(parent, d, "README.md")
        if d.startswith("agent_tuning") and os.path.join(parent, d) != here and os.path.isfile(p):
            txt = open(p, encoding="utf-8").read()
            if "## Templates" in txt:
                names += re.findall(r"`([a-z0-9_]+)`", txt.split("## Templates", 1)[1])
    return names


def main():
    assert len(POS) == 60 and len(NEG) == 60, (len(POS), len(NEG))
    names = [n for n, _ in POS + NEG]
    assert len(set(names)) == 120, "duplicate template names"
    used = used_template_names()
    clash = sorted(set(names) & set(used))
    assert not clash, "template names already used: %s" % clash
    rows = []
    rid = 0
    for positive, group in ((True, POS), (False, NEG)):
        for name, fn in group:
            for _ in range(5):
                rid += 1
                text = fn()
                rows.append({"id": rid, "template": name, "positive": positive, "text": text})
    assert len(rows) == 600
    all_spans = []
    for row in rows:
        sp = check_row(row)
        all_spans.append(sp)
    plains = [unmark(r["text"]) for r in rows]
    corpus = "\x00".join(plains)
    seen = {}
    for row, sp, plain in zip(rows, all_spans, plains):
        for s in sp:
            if len(s) >= 8:
                assert corpus.count(s) == plain.count(s), "secret %r of row %d appears in another row" % (s[:40], row["id"])
                seen.setdefault(s, row["id"])
    out = sys.stdout.buffer
    for row in rows:
        out.write((json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8"))
    nspans = sum(len(s) for s in all_spans)
    long_rows = sum(1 for r in rows if 40 <= r["text"].count("\n") + 1 <= 150)
    sys.stderr.write("rows=600 positive=300 negative=300 spans=%d distinct=%d long_rows=%d\n" % (nspans, len(seen), long_rows))


if __name__ == "__main__":
    main()
