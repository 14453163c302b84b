#!/usr/bin/env python3
"""A thirteenth tuning set written apart: identity, access and sign-in.

Prints 600 JSON rows to stdout (UTF-8 bytes):
  {"id": N, "template": "<name>", "positive": true|false, "text": "..."}
Ids 1-300 come from 60 positive templates, 301-600 from 60 negative ones,
5 rows each.  Secrets in positive rows are wrapped in « and ».

Standard library only, one random.Random(SEED); no clock, no environment,
no iteration over sets or hash order.
"""
import base64
import hashlib
import json
import os
import re
import struct
import sys
import unicodedata
import urllib.parse
import zlib
import random

SEED = 1313
R = random.Random(SEED)

DIGITS = '0123456789'
LOWER = 'abcdefghijklmnopqrstuvwxyz'
UPPER = LOWER.upper()
HEX = '0123456789abcdef'
HEXU = HEX.upper()
B62 = DIGITS + UPPER + LOWER
ALNUM = UPPER + LOWER + DIGITS
LALNUM = LOWER + DIGITS
UALNUM = UPPER + DIGITS
B64 = UPPER + LOWER + DIGITS + '+/'
B64U = UPPER + LOWER + DIGITS + '-_'
B32 = UPPER + '234567'
CRYPT64 = './' + DIGITS + UPPER + LOWER
SYMS = '!@#$%^&*-_=+?.'

# ---------------------------------------------------------------------------
# registry of every random value drawn (secrets and look-alikes alike)
# ---------------------------------------------------------------------------
REG = set()


def _reg(v):
    if len(v) >= 8:
        assert v not in REG, ('registry repeat', v)
        REG.add(v)
    return v


def fresh(fn):
    for _ in range(500):
        v = fn()
        if len(v) < 8 or v not in REG:
            return _reg(v)
    raise AssertionError('cannot draw a fresh value')


def rs(alpha, n):
    return fresh(lambda: ''.join(R.choice(alpha) for _ in range(n)))


def hx(n):
    return rs(HEX, n)


def rbytes(n):
    return bytes.fromhex(fresh(lambda: bytes(R.getrandbits(8) for _ in range(n)).hex()))


def pick(seq):
    return seq[R.randrange(len(seq))]


def chance(p):
    return R.random() < p


def b64(b):
    return base64.b64encode(b).decode()


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b'=').decode()


def b32(b):
    return base64.b32encode(b).decode().rstrip('=')


def uuid4():
    def g():
        h = ''.join(R.choice(HEX) for _ in range(32))
        h = h[:12] + '4' + h[13:16] + R.choice('89ab') + h[17:]
        return '%s-%s-%s-%s-%s' % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    return fresh(g)


def M(s):
    assert s and '«' not in s and '»' not in s, s
    return '«' + s + '»'


def strip_marks(s):
    return s.replace('«', '').replace('»', '')


# ---------------------------------------------------------------------------
# display width (marks are annotations and take no columns)
# ---------------------------------------------------------------------------
def cw(ch):
    if ch in '«»':
        return 0
    o = ord(ch)
    if o in (0x200d, 0xfe0f, 0xfe0e):
        return 0
    if unicodedata.combining(ch) or unicodedata.category(ch) in ('Mn', 'Me', 'Cf'):
        return 0
    if unicodedata.east_asian_width(ch) in ('W', 'F'):
        return 2
    return 1


def dw(s):
    return sum(cw(c) for c in s)


def expand_tabs(s, ts=8):
    out = []
    col = 0
    for c in s:
        if c == '\t':
            n = ts - (col % ts)
            out.append(' ' * n)
            col += n
        else:
            out.append(c)
            col += cw(c)
    return ''.join(out)


def pad(s, w):
    return s + ' ' * max(0, w - dw(s))


def rpad(s, w):
    return ' ' * max(0, w - dw(s)) + s


def aligned(rows, gap=3, right=()):
    """Columns separated by at least `gap` spaces (kubectl/az -o table style)."""
    ws = [max(dw(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            if i == len(r) - 1:
                cells.append(rpad(c, ws[i]) if i in right else c)
            else:
                cells.append(rpad(c, ws[i]) if i in right else pad(c, ws[i]))
        out.append((' ' * gap).join(cells).rstrip())
    return out


def psql_table(headers, rows, unicode_lines=False):
    ws = [max([dw(h)] + [dw(r[i]) for r in rows]) for i, h in enumerate(headers)]
    if unicode_lines:
        v, h_, cross, top_l, top_m, top_r = '│', '─', '┼', '┌', '┬', '┐'
        lines = [top_l + top_m.join(h_ * (w + 2) for w in ws) + top_r]
        lines.append(v + v.join(' ' + pad(hh, w) + ' ' for hh, w in zip(headers, ws)) + v)
        lines.append('├' + cross.join(h_ * (w + 2) for w in ws) + '┤')
        for r in rows:
            lines.append(v + v.join(' ' + pad(c, w) + ' ' for c, w in zip(r, ws)) + v)
        lines.append('└' + '┴'.join(h_ * (w + 2) for w in ws) + '┘')
    else:
        lines = [' ' + ' | '.join(pad(hh, w) for hh, w in zip(headers, ws)).rstrip()]
        lines.append('-' + '-+-'.join('-' * w for w in ws) + '-')
        for r in rows:
            lines.append(' ' + ' | '.join(pad(c, w) for c, w in zip(r, ws)).rstrip())
    lines.append('(%d row%s)' % (len(rows), '' if len(rows) == 1 else 's'))
    return lines


def ascii_box_table(headers, rows):
    ws = [max([dw(h)] + [dw(r[i]) for r in rows]) for i, h in enumerate(headers)]
    sep = '+' + '+'.join('-' * (w + 2) for w in ws) + '+'
    out = [sep, '|' + '|'.join(' ' + pad(h, w) + ' ' for h, w in zip(headers, ws)) + '|', sep]
    for r in rows:
        out.append('|' + '|'.join(' ' + pad(c, w) + ' ' for c, w in zip(r, ws)) + '|')
    out.append(sep)
    return out


def box_table(headers, rows, heavy=False):
    ws = [max([dw(h)] + [dw(r[i]) for r in rows]) for i, h in enumerate(headers)]
    if heavy:
        out = ['┏' + '┳'.join('━' * (w + 2) for w in ws) + '┓',
               '┃' + '┃'.join(' ' + pad(h, w) + ' ' for h, w in zip(headers, ws)) + '┃',
               '┡' + '╇'.join('━' * (w + 2) for w in ws) + '┩']
        for r in rows:
            out.append('│' + '│'.join(' ' + pad(c, w) + ' ' for c, w in zip(r, ws)) + '│')
        out.append('└' + '┴'.join('─' * (w + 2) for w in ws) + '┘')
    else:
        out = ['╭' + '┬'.join('─' * (w + 2) for w in ws) + '╮',
               '│' + '│'.join(' ' + pad(h, w) + ' ' for h, w in zip(headers, ws)) + '│',
               '├' + '┼'.join('─' * (w + 2) for w in ws) + '┤']
        for r in rows:
            out.append('│' + '│'.join(' ' + pad(c, w) + ' ' for c, w in zip(r, ws)) + '│')
        out.append('╰' + '┴'.join('─' * (w + 2) for w in ws) + '╯')
    return out


def md_table(headers, rows):
    ws = [max([dw(h), 3] + [dw(r[i]) for r in rows]) for i, h in enumerate(headers)]
    out = ['| ' + ' | '.join(pad(h, w) for h, w in zip(headers, ws)) + ' |',
           '|' + '|'.join('-' * (w + 2) for w in ws) + '|']
    for r in rows:
        out.append('| ' + ' | '.join(pad(c, w) for c, w in zip(r, ws)) + ' |')
    return out


def cat_A(line):
    """cat -A rendering; marks pass through untouched."""
    out = []
    for c in line:
        if c in '«»':
            out.append(c)
            continue
        if c == '\t':
            out.append('^I')
            continue
        for b in c.encode('utf-8'):
            if b >= 128:
                out.append('M-')
                b -= 128
            if b < 32:
                out.append('^' + chr(b + 64))
            elif b == 127:
                out.append('^?')
            else:
                out.append(chr(b))
    return ''.join(out) + '$'


# ---------------------------------------------------------------------------
# time (no clock: epochs are drawn, names come from fixed tables)
# ---------------------------------------------------------------------------
MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
WDAYS = ['Thu', 'Fri', 'Sat', 'Sun', 'Mon', 'Tue', 'Wed']  # 1970-01-01 was a Thursday


def civil(epoch):
    days, rem = divmod(epoch, 86400)
    hh, rem = divmod(rem, 3600)
    mi, ss = divmod(rem, 60)
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    if m <= 2:
        y += 1
    return y, m, d, hh, mi, ss, WDAYS[days % 7]


def iso(epoch, frac=None, z='Z'):
    y, m, d, hh, mi, ss, _ = civil(epoch)
    s = '%04d-%02d-%02dT%02d:%02d:%02d' % (y, m, d, hh, mi, ss)
    if frac:
        s += '.' + ''.join(R.choice(DIGITS) for _ in range(frac))
    return s + z


def sqlts(epoch):
    y, m, d, hh, mi, ss, _ = civil(epoch)
    return '%04d-%02d-%02d %02d:%02d:%02d' % (y, m, d, hh, mi, ss)


def httpdate(epoch):
    y, m, d, hh, mi, ss, wd = civil(epoch)
    return '%s, %02d %s %04d %02d:%02d:%02d GMT' % (wd, d, MONTHS[m - 1], y, hh, mi, ss)


def syslogts(epoch):
    y, m, d, hh, mi, ss, _ = civil(epoch)
    return '%s %2d %02d:%02d:%02d' % (MONTHS[m - 1], d, hh, mi, ss)


def certdate(epoch):
    y, m, d, hh, mi, ss, _ = civil(epoch)
    return '%s %2d %02d:%02d:%02d %d GMT' % (MONTHS[m - 1], d, hh, mi, ss, y)


def utctime(epoch):
    y, m, d, hh, mi, ss, _ = civil(epoch)
    return '%02d%02d%02d%02d%02d%02dZ' % (y % 100, m, d, hh, mi, ss)


def ymd(epoch):
    y, m, d, _, _, _, _ = civil(epoch)
    return '%04d-%02d-%02d' % (y, m, d)


def hms(epoch):
    _, _, _, hh, mi, ss, _ = civil(epoch)
    return '%02d:%02d:%02d' % (hh, mi, ss)


def epoch0():
    return R.randint(1706745600, 1764547200)   # Feb 2024 .. Dec 2025


# ---------------------------------------------------------------------------
# names, hosts, places
# ---------------------------------------------------------------------------
USERS = ['mchen', 'apatel', 'jkowalski', 'sdiaz', 'tnguyen', 'nokafor', 'lwang', 'rsato',
         'mkim', 'hmuller', 'fbianchi', 'aogunleye', 'keriksson', 'dvolkov', 'ppereira',
         'ybenali', 'ijohansson', 'cmorales', 'gdubois', 'vrao', 'emurphy', 'zhaddad']
PEOPLE = [('Mei Chen', 'mei.chen'), ('Anil Patel', 'anil.patel'), ('José Gutie\u0301rrez', 'jose.gutierrez'),
          ('王伟', 'wang.wei'), ('佐藤 健', 'ken.sato'), ('김민준', 'minjun.kim'), ('Zoë Lambert', 'zoe.lambert'),
          ('Łukasz Nowak', 'lukasz.nowak'), ('Ngozi Okafor', 'ngozi.okafor'), ('Søren Madsen', 'soren.madsen'),
          ('Priya Raman', 'priya.raman'), ('Olivia Brown', 'olivia.brown'), ('Mateo Rossi', 'mateo.rossi'),
          ('Aiko Tanaka', 'aiko.tanaka'), ('Fatima Haddad', 'fatima.haddad'), ('Erik Lindqvist', 'erik.lindqvist'),
          ('Chloé Martin', 'chloe.martin'), ('Diego Fernández', 'diego.fernandez'), ('李娜', 'li.na'),
          ('Tomás Ó Briain', 'tomas.obriain'), ('Nguyễn Văn An', 'an.nguyen'), ('Ivan Petrov', 'ivan.petrov')]
ORGS = ['northwind', 'globex', 'initech', 'hooli', 'vandelay', 'cyberdyne', 'tyrell', 'wonka',
        'aperture', 'contoso', 'fabrikam', 'tailspin', 'wingtip', 'adatum', 'lumen', 'brightline',
        'kestrel', 'halcyon', 'quantix', 'nimbus', 'orbital', 'parallax', 'redwood', 'sableware',
        'tidewater', 'umbra', 'verdant', 'zephyr', 'copperleaf', 'bluefin']
TLDS = ['io', 'com', 'dev', 'net', 'co', 'cloud', 'app', 'tech']
HOSTS = ['dev-01', 'auth-dev', 'idp-stg-2', 'bastion', 'kc-01', 'build-7', 'mbp-14', 'ws-042', 'tools-1',
         'ops-box', 'gw-lab', 'ci-runner-3', 'devbox', 'sso-test', 'edge-04', 'thinkpad-x1']
PROJECTS = ['auth-service', 'sso-gateway', 'identity-api', 'portal', 'login-web', 'accounts', 'iam-infra',
            'access-proxy', 'gateway', 'admin-console', 'oidc-demo', 'platform-auth', 'user-svc', 'session-api']
BRANCHES = ['main', 'feat/oidc-login', 'fix/token-refresh', 'chore/rotate-keys', 'feat/pkce', 'feat/saml-sp',
            'fix/ldap-bind', 'feat/passkeys', 'ops/vault-approle', 'feat/mtls', 'fix/session-ttl',
            'feat/device-flow', 'feat/scim', 'fix/cookie-samesite', 'ops/kong-keys']
REALMS = ['master', 'corp', 'customers', 'staff', 'platform', 'partners', 'internal', 'demo']
STARSHIP_TOOLS = ['via ⬢ v20.11.1', 'via 🐹 v1.22.4', 'via 🐍 v3.12.3', 'via ☕ v21.0.2', 'via 🦀 v1.79.0',
                  'via 💎 v3.3.1', 'via 🐘 v8.3.6', 'via ⬢ v22.3.0']


class Ctx:
    """Per-row context: operator, host, organisation and friends."""

    def __init__(self):
        self.user = pick(USERS)
        self.host = pick(HOSTS)
        self.org = pick(ORGS)
        self.tld = pick(TLDS)
        self.domain = '%s.%s' % (self.org, self.tld)
        self.proj = pick(PROJECTS)
        self.branch = pick(BRANCHES)
        self.realm = pick(REALMS)
        self.t = epoch0()
        self.home = '/home/' + self.user
        self.cwd = self.home + '/src/' + self.proj

    def tick(self, lo=1, hi=9):
        self.t += R.randint(lo, hi)
        return self.t

    def person(self):
        name, handle = pick(PEOPLE)
        return name, handle, handle + '@' + self.domain


def ipv4_private():
    return '10.%d.%d.%d' % (R.randint(0, 40), R.randint(0, 254), R.randint(2, 250))


def ipv4_public():
    return '%d.%d.%d.%d' % (pick([34, 35, 52, 54, 18, 3, 13, 104, 146, 159, 172, 185, 198, 203]),
                            R.randint(1, 254), R.randint(1, 254), R.randint(1, 254))


def ms():
    return R.randint(8, 2400)


# ---------------------------------------------------------------------------
# DER, RSA, EC P-256, Ed25519, OpenSSH, X.509
# ---------------------------------------------------------------------------
def dlen(n):
    if n < 128:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, 'big')
    return bytes([0x80 | len(b)]) + b


def tlv(t, v):
    return bytes([t]) + dlen(len(v)) + v


def dint(x):
    return tlv(0x02, x.to_bytes(max(1, (x.bit_length() + 8) // 8), 'big'))


def dseq(*items):
    return tlv(0x30, b''.join(items))


def doid(dotted):
    parts = [int(p) for p in dotted.split('.')]
    body = bytes([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        enc = [p & 0x7f]
        p >>= 7
        while p:
            enc.append(0x80 | (p & 0x7f))
            p >>= 7
        body += bytes(reversed(enc))
    return tlv(0x06, body)


NULL = b'\x05\x00'
OID_RSA = doid('1.2.840.113549.1.1.1')
OID_SHA256RSA = doid('1.2.840.113549.1.1.11')
OID_EC = doid('1.2.840.10045.2.1')
OID_P256 = doid('1.2.840.10045.3.1.7')
OID_ECDSA256 = doid('1.2.840.10045.4.3.2')
OID_ED25519 = doid('1.3.101.112')

SMALLP = [p for p in range(3, 3000) if all(p % q for q in range(2, int(p ** 0.5) + 1))]


def is_probable_prime(n):
    for p in SMALLP:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29):
        x = pow(a, d, n)
        if x == 1 or x == n - 1:
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def gen_prime(bits, e=65537):
    while True:
        c = R.getrandbits(bits) | (3 << (bits - 2)) | 1
        if (c - 1) % e and is_probable_prime(c):
            return c


class RSAKey:
    def __init__(self, bits=2048):
        e = 65537
        while True:
            p = gen_prime(bits // 2)
            q = gen_prime(bits // 2)
            if p != q and (p * q).bit_length() == bits:
                break
        if p < q:
            p, q = q, p
        self.n, self.e, self.p, self.q = p * q, e, p, q
        self.d = pow(e, -1, (p - 1) * (q - 1))
        self.dp, self.dq, self.qi = self.d % (p - 1), self.d % (q - 1), pow(q, -1, p)
        self.bits = bits
        _reg(b64(self.pkcs1()))

    def pkcs1(self):
        return dseq(dint(0), dint(self.n), dint(self.e), dint(self.d), dint(self.p), dint(self.q),
                    dint(self.dp), dint(self.dq), dint(self.qi))

    def pkcs8(self):
        return dseq(dint(0), dseq(OID_RSA, NULL), tlv(0x04, self.pkcs1()))

    def spki(self):
        return dseq(dseq(OID_RSA, NULL), tlv(0x03, b'\x00' + dseq(dint(self.n), dint(self.e))))

    def jwk_private(self, kid, alg='RS256', marked=True):
        def ib(x):
            return b64u(x.to_bytes((x.bit_length() + 7) // 8, 'big'))
        m = M if marked else (lambda s: s)
        return {'kty': 'RSA', 'kid': kid, 'use': 'sig', 'alg': alg, 'n': ib(self.n), 'e': ib(self.e),
                'd': m(ib(self.d)), 'p': m(ib(self.p)), 'q': m(ib(self.q)), 'dp': m(ib(self.dp)),
                'dq': m(ib(self.dq)), 'qi': m(ib(self.qi))}


def fake_modulus(bits=2048):
    while True:
        n = R.getrandbits(bits) | (1 << (bits - 1)) | 1
        v = n.to_bytes(bits // 8, 'big').hex()
        if v not in REG:
            _reg(v)
            return n


P256P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff
P256N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551
P256G = (0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296,
         0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5)


def _ec_add(P, Q):
    if P is None:
        return Q
    if Q is None:
        return P
    if P[0] == Q[0]:
        if (P[1] + Q[1]) % P256P == 0:
            return None
        lam = (3 * P[0] * P[0] - 3) * pow(2 * P[1], -1, P256P) % P256P
    else:
        lam = (Q[1] - P[1]) * pow(Q[0] - P[0], -1, P256P) % P256P
    x = (lam * lam - P[0] - Q[0]) % P256P
    return (x, (lam * (P[0] - x) - P[1]) % P256P)


def ec_mul(k, P=P256G):
    acc = None
    while k:
        if k & 1:
            acc = _ec_add(acc, P)
        P = _ec_add(P, P)
        k >>= 1
    return acc


class ECKey:
    def __init__(self):
        while True:
            self.d = int.from_bytes(rbytes(32), 'big')
            if 1 <= self.d < P256N:
                break
        self.Q = ec_mul(self.d)

    def point(self):
        return b'\x04' + self.Q[0].to_bytes(32, 'big') + self.Q[1].to_bytes(32, 'big')

    def sec1(self):
        return dseq(dint(1), tlv(0x04, self.d.to_bytes(32, 'big')), tlv(0xa0, OID_P256),
                    tlv(0xa1, tlv(0x03, b'\x00' + self.point())))

    def pkcs8(self):
        inner = dseq(dint(1), tlv(0x04, self.d.to_bytes(32, 'big')),
                     tlv(0xa1, tlv(0x03, b'\x00' + self.point())))
        return dseq(dint(0), dseq(OID_EC, OID_P256), tlv(0x04, inner))

    def spki(self):
        return dseq(dseq(OID_EC, OID_P256), tlv(0x03, b'\x00' + self.point()))

    def jwk(self, kid=None, private=False, marked=True):
        j = {'kty': 'EC', 'crv': 'P-256'}
        if kid:
            j['kid'] = kid
        j['x'] = b64u(self.Q[0].to_bytes(32, 'big'))
        j['y'] = b64u(self.Q[1].to_bytes(32, 'big'))
        if private:
            v = b64u(self.d.to_bytes(32, 'big'))
            j['d'] = M(v) if marked else v
        return j


ED_Q = 2 ** 255 - 19
ED_L = 2 ** 252 + 27742317777372353535851937790883648493
ED_D = -121665 * pow(121666, ED_Q - 2, ED_Q) % ED_Q
ED_I = pow(2, (ED_Q - 1) // 4, ED_Q)


def _ed_xrecover(y):
    xx = (y * y - 1) * pow(ED_D * y * y + 1, ED_Q - 2, ED_Q)
    x = pow(xx, (ED_Q + 3) // 8, ED_Q)
    if (x * x - xx) % ED_Q != 0:
        x = (x * ED_I) % ED_Q
    if x % 2 != 0:
        x = ED_Q - x
    return x


_ED_BY = 4 * pow(5, ED_Q - 2, ED_Q) % ED_Q
ED_B = (_ed_xrecover(_ED_BY), _ED_BY)


def _ed_add(P, Q):
    x1, y1 = P
    x2, y2 = Q
    t = ED_D * x1 * x2 * y1 * y2
    x3 = (x1 * y2 + x2 * y1) * pow(1 + t, ED_Q - 2, ED_Q)
    y3 = (y1 * y2 + x1 * x2) * pow(1 - t, ED_Q - 2, ED_Q)
    return (x3 % ED_Q, y3 % ED_Q)


def _ed_mul(P, e):
    acc = (0, 1)
    while e:
        if e & 1:
            acc = _ed_add(acc, P)
        P = _ed_add(P, P)
        e >>= 1
    return acc


def ed25519_pub(seed):
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], 'little')
    a &= (1 << 254) - 8
    a |= 1 << 254
    x, y = _ed_mul(ED_B, a)
    return (y | ((x & 1) << 255)).to_bytes(32, 'little')


def sshstr(b):
    if isinstance(b, str):
        b = b.encode()
    return struct.pack('>I', len(b)) + b


class EdKey:
    def __init__(self):
        self.seed = rbytes(32)
        self.pub = ed25519_pub(self.seed)

    def pkcs8(self):
        return dseq(dint(0), dseq(OID_ED25519), tlv(0x04, tlv(0x04, self.seed)))

    def ssh_pub_blob(self):
        return sshstr('ssh-ed25519') + sshstr(self.pub)

    def ssh_pub(self, comment=''):
        s = 'ssh-ed25519 ' + b64(self.ssh_pub_blob())
        return s + (' ' + comment if comment else '')

    def openssh_private(self, comment):
        check = rbytes(4)
        priv = check + check + sshstr('ssh-ed25519') + sshstr(self.pub) + sshstr(self.seed + self.pub) + sshstr(comment)
        i = 1
        while len(priv) % 8:
            priv += bytes([i])
            i += 1
        blob = (b'openssh-key-v1\x00' + sshstr('none') + sshstr('none') + sshstr(b'') + struct.pack('>I', 1)
                + sshstr(self.ssh_pub_blob()) + sshstr(priv))
        return b64(blob)

    def fingerprint(self):
        return 'SHA256:' + b64(hashlib.sha256(self.ssh_pub_blob()).digest()).rstrip('=')


def wrap(s, n=64):
    return [s[i:i + n] for i in range(0, len(s), n)]


def pem_lines(label, der_or_b64, pl, width=64):
    """PEM block as lines.  pl (per-line prefix) -> body lines marked one by one,
    BEGIN/END outside; otherwise one span from -----BEGIN to the END line."""
    body = der_or_b64 if isinstance(der_or_b64, str) else b64(der_or_b64)
    body = wrap(body, width)
    if pl:
        return ['-----BEGIN %s-----' % label] + [M(x) for x in body] + ['-----END %s-----' % label]
    lines = ['-----BEGIN %s-----' % label] + body + ['-----END %s-----' % label]
    lines[0] = '«' + lines[0]
    lines[-1] = lines[-1] + '»'
    return lines


def pem_plain(label, der_or_b64, width=64):
    body = der_or_b64 if isinstance(der_or_b64, str) else b64(der_or_b64)
    return ['-----BEGIN %s-----' % label] + wrap(body, width) + ['-----END %s-----' % label]


def pem_json(label, der, marked=True):
    """A PEM inside a JSON string: \\n escapes inside the span, trailing \\n outside."""
    txt = '\n'.join(pem_plain(label, der))
    return (M(txt) if marked else txt) + '\n'


def openssh_lines(key, comment, marked=True):
    body = wrap(key.openssh_private(comment), 70)
    lines = ['-----BEGIN OPENSSH PRIVATE KEY-----'] + body + ['-----END OPENSSH PRIVATE KEY-----']
    if marked:
        lines[0] = '«' + lines[0]
        lines[-1] += '»'
    return lines


def x509_name(cn, o=None, c=None, ou=None):
    rdns = []
    if c:
        rdns.append(tlv(0x31, dseq(doid('2.5.4.6'), tlv(0x13, c.encode()))))
    if o:
        rdns.append(tlv(0x31, dseq(doid('2.5.4.10'), tlv(0x0c, o.encode()))))
    if ou:
        rdns.append(tlv(0x31, dseq(doid('2.5.4.11'), tlv(0x0c, ou.encode()))))
    rdns.append(tlv(0x31, dseq(doid('2.5.4.3'), tlv(0x0c, cn.encode()))))
    return dseq(*rdns)


class Cert:
    """A structurally valid X.509 certificate (public look-alike, random signature)."""

    def __init__(self, cn, issuer_cn=None, o=None, t0=None, days=365, ec=False, key=None, serial_bytes=16, ca=False):
        self.cn, self.issuer = cn, issuer_cn or cn
        self.t0 = t0 if t0 is not None else epoch0() - 86400 * R.randint(1, 200)
        self.t1 = self.t0 + 86400 * days
        self.serial = int.from_bytes(rbytes(serial_bytes), 'big') >> 1
        if key is not None:
            spki = key.spki()
            ec = isinstance(key, ECKey)
        elif ec:
            spki = ECKey().spki()
        else:
            spki = dseq(dseq(OID_RSA, NULL), tlv(0x03, b'\x00' + dseq(dint(fake_modulus()), dint(65537))))
        self.ec = ec
        alg = dseq(OID_ECDSA256) if ec else dseq(OID_SHA256RSA, NULL)
        exts = []
        if ca:
            exts.append(dseq(doid('2.5.29.19'), b'\x01\x01\xff', tlv(0x04, dseq(b'\x01\x01\xff'))))
        ski = rbytes(20)
        exts.append(dseq(doid('2.5.29.14'), tlv(0x04, tlv(0x04, ski))))
        self.ski = ski
        tbs = dseq(tlv(0xa0, dint(2)), dint(self.serial), alg, x509_name(self.issuer, o),
                   dseq(tlv(0x17, utctime(self.t0).encode()), tlv(0x17, utctime(self.t1).encode())),
                   x509_name(cn, o), spki, tlv(0xa3, dseq(*exts)))
        sig = rbytes(72) if ec else rbytes(256)
        self.der = dseq(tbs, alg, tlv(0x03, b'\x00' + sig))
        self.b64 = _reg(b64(self.der))

    def pem(self, width=64):
        return pem_plain('CERTIFICATE', self.b64, width)

    def fp(self, algo='sha256', sep=':'):
        h = hashlib.new(algo, self.der).hexdigest().upper()
        return sep.join(h[i:i + 2] for i in range(0, len(h), 2))

    def serial_hex(self):
        h = '%x' % self.serial
        if len(h) % 2:
            h = '0' + h
        return ':'.join(h[i:i + 2] for i in range(0, len(h), 2))


# ---------------------------------------------------------------------------
# JWT / JWE
# ---------------------------------------------------------------------------
def jcompact(o):
    if isinstance(o, str):
        return o
    return json.dumps(o, separators=(',', ':'), ensure_ascii=False)


def jwt(header, payload, sig_len=256):
    h = b64u(jcompact(header).encode())
    p = b64u(jcompact(payload).encode())
    s = b64u(rbytes(sig_len)) if sig_len else ''
    return _reg(h + '.' + p + '.' + s)


def kid43():
    return b64u(rbytes(32))


def jti():
    return uuid4()


# ---------------------------------------------------------------------------
# passwords
# ---------------------------------------------------------------------------
WORDS = ['correct', 'horse', 'battery', 'staple', 'maple', 'river', 'copper', 'lantern', 'falcon', 'orbit',
         'pepper', 'quartz', 'willow', 'harbor', 'canyon', 'ember', 'glacier', 'meadow', 'nickel', 'otter',
         'pixel', 'raven', 'saddle', 'timber', 'velvet', 'walnut', 'zebra', 'anchor', 'bramble', 'cobalt',
         'dynamo', 'fjord', 'gravel', 'hazel', 'igloo', 'jasper', 'kettle', 'lemon', 'mosaic', 'nutmeg',
         'oyster', 'parsley', 'quiver', 'rocket', 'sierra', 'tundra', 'umber', 'violet', 'wander', 'yonder',
         'sunset', 'tiger', 'dragon', 'monkey', 'shadow', 'coffee', 'biscuit', 'marble', 'thunder', 'cactus']
NAMES = ['Jessica', 'Michael', 'Daniela', 'Bruno', 'Charlie', 'Lucas', 'Sophie', 'Mateo', 'Hannah', 'Oscar',
         'Ariana', 'Felix', 'Nadia', 'Viktor', 'Luna', 'Rocco', 'Freya', 'Milo']
SEASONS = ['Spring', 'Summer', 'Autumn', 'Winter', 'Fall']
PW_BASE = ['Welcome', 'Password', 'Changeme', 'Letmein', 'Sunshine', 'Football', 'Dragon', 'Monkey', 'Qwerty',
           'Admin', 'Service', 'Keycloak', 'Ldap', 'Portal', 'Access', 'Secure', 'Company', 'Office']


def _pw_human():
    k = R.randrange(7)
    if k == 0:
        return pick(SEASONS) + str(R.randint(2019, 2025)) + pick('!#@$*')
    if k == 1:
        return pick(PW_BASE) + pick(['@', '#', '!', '']) + str(R.randint(1, 2025)) + pick(['!', '', '#', '?'])
    if k == 2:
        return pick(NAMES) + str(R.randint(1970, 2012)) + pick(['', '!', '.', '*'])
    if k == 3:
        leet = {'a': '4', 'e': '3', 'i': '1', 'o': '0', 's': '5'}
        w = pick(WORDS) + pick(WORDS)
        w = ''.join(leet.get(c, c) if R.random() < 0.5 else c for c in w)
        return w[0].upper() + w[1:] + pick('!&%#') + str(R.randint(1, 99))
    if k == 4:
        return pick(WORDS).capitalize() + pick(['#', '_', '-', '.']) + str(R.randint(100, 9999))
    if k == 5:
        return '%s%s%d%s' % (pick(NAMES), pick(['&', '+', '_']), R.randint(10, 99), pick(WORDS))
    return pick(SEASONS) + '_' + pick(WORDS) + str(R.randint(10, 99))


LOWENT = []


def fresh_low(fn):
    """Low-entropy values (human passwords, passphrases, short codes) must not be
    substrings of one another either, or one row would print another's secret."""
    for _ in range(500):
        v = fn()
        if v in REG or any(v in o or o in v for o in LOWENT):
            continue
        LOWENT.append(v)
        return _reg(v)
    raise AssertionError('cannot draw a fresh low-entropy value')


def pw_human():
    return fresh_low(_pw_human)


def pw_phrase(sep=None):
    sep = sep or pick(['-', '-', '.', ' ', '_'])
    n = R.randint(3, 5)

    def g():
        ws = [pick(WORDS) for _ in range(n)]
        if chance(0.3):
            ws[-1] = ws[-1] + str(R.randint(1, 99))
        return sep.join(ws)
    return fresh_low(g)


def pw_mixed(n=12, syms='!@#%^&*-_=+?'):
    alpha = ALNUM + syms

    def g():
        while True:
            s = ''.join(R.choice(alpha) for _ in range(n))
            if (any(c in UPPER for c in s) and any(c in LOWER for c in s) and any(c in DIGITS for c in s)
                    and any(c in syms for c in s) and s[0] not in syms and s[-1] not in syms):
                return s
    return fresh(g)


def pw_apple():
    def g():
        parts = [''.join(R.choice(LOWER) for _ in range(6)) for _ in range(3)]
        i = R.randrange(3)
        j = R.randrange(6)
        parts[i] = parts[i][:j] + R.choice(DIGITS) + parts[i][j + 1:]
        k = (i + 1) % 3
        parts[k] = parts[k][:j] + parts[k][j].upper() + parts[k][j + 1:]
        return '-'.join(parts)
    return fresh(g)


def pw_b64(nbytes):
    return fresh(lambda: b64(bytes(R.getrandbits(8) for _ in range(nbytes))))


def pw_gen(n=None):
    return rs(ALNUM, n or pick([16, 20, 24, 32]))


def pw_any():
    k = R.randrange(6)
    if k == 0:
        return pw_human()
    if k == 1:
        return pw_phrase()
    if k == 2:
        return pw_mixed(12)
    if k == 3:
        return pw_apple()
    if k == 4:
        return pw_gen()
    return pw_b64(pick([18, 24]))


def pw_safe():
    """A password that needs no quoting in shell, URLs or YAML."""
    k = R.randrange(5)
    if k == 0:
        return fresh_low(lambda: pick(SEASONS) + str(R.randint(2019, 2025)) + pick(['', '_x', '.1', '-%d' % R.randint(1, 9)]))
    if k == 1:
        return pw_phrase(pick(['-', '.', '_']))
    if k == 2:
        return pw_gen(pick([16, 20, 24]))
    if k == 3:
        return pw_apple()
    return pw_mixed(pick([12, 14]), syms='-_.')


def needs_quote(s):
    return not re.fullmatch(r'[A-Za-z0-9_.,:/=+@%-]+', s)


def shq(marked_value, raw):
    """Quote for the shell if needed; marks stay inside the quotes."""
    return "'" + marked_value + "'" if needs_quote(raw) else marked_value


def urlenc(s):
    return urllib.parse.quote(s, safe='')


def formenc(s):
    return urllib.parse.quote_plus(s, safe='')


# ---------------------------------------------------------------------------
# vendor formats (secrets)
# ---------------------------------------------------------------------------
def base62(n):
    t = ''
    while n:
        n, r = divmod(n, 62)
        t = B62[r] + t
    return t or '0'


def gh_token(prefix):
    def g():
        body = ''.join(R.choice(B62) for _ in range(30))
        return prefix + body + base62(zlib.crc32(body.encode()) & 0xffffffff).rjust(6, '0')
    return fresh(g)


def gh_oauth_secret():
    return hx(40)


def gh_client_id():
    return pick(['Ov23li', 'Iv23li']) + rs(ALNUM, 14)


def okta_api_token():
    return '00' + rs(B64U, 40)


def okta_client_id():
    return '0oa' + rs(ALNUM, 17)


def okta_user_id():
    return '00u' + rs(ALNUM, 17)


def okta_secret():
    return rs(B64U, pick([40, 64]))


def auth0_client_id():
    return rs(ALNUM, 32)


def auth0_secret():
    return rs(B64U, 64)


def kc_secret():
    return rs(ALNUM, 32)


def entra_secret():
    return fresh(lambda: ''.join(R.choice(ALNUM) for _ in range(3)) + R.choice('78') + 'Q~'
                 + ''.join(R.choice(ALNUM + '_~.-') for _ in range(34)))


def google_client_id():
    return fresh(lambda: '%d-%s.apps.googleusercontent.com' % (R.randint(10 ** 11, 10 ** 12 - 1),
                                                                ''.join(R.choice(LALNUM) for _ in range(32))))


def gocspx():
    return 'GOCSPX-' + rs(B64U, 28)


def google_refresh():
    return '1//0' + rs(B64U, 99)


def ya29():
    return 'ya29.a0' + rs(B64U, R.randint(190, 230))


def hvs_short():
    return 'hvs.' + rs(ALNUM, 24)


def hvs_long():
    inner = 'hvs.' + ''.join(R.choice(ALNUM) for _ in range(24))
    raw = b'\x08\x01\x12\x20' + rbytes(32) + b'\x1a\x1e\x0a\x1c' + inner.encode()
    return _reg('hvs.' + b64u(raw))


def hvs():
    return hvs_long() if chance(0.5) else hvs_short()


def vault_accessor():
    return rs(ALNUM, 24)


def aws_akid(prefix='ASIA'):
    return prefix + rs(UALNUM, 16)


def aws_secret():
    return rs(ALNUM + '+/', 40)


def aws_session_token():
    return fresh(lambda: 'IQoJb3JpZ2luX2Vj' + pick('EFGH') + ''.join(R.choice(ALNUM) for _ in range(2))
                 + '//////////wEaCXVzLWVhc3QtMSJHMEUCI' + ''.join(R.choice(B64) for _ in range(R.randint(560, 700))))


def ory_token(kind='at'):
    return fresh(lambda: 'ory_%s_%s.%s' % (kind, ''.join(R.choice(B64U) for _ in range(43)),
                                           ''.join(R.choice(B64U) for _ in range(43))))


def totp_seed(n=32):
    return rs(B32, n)


def bcrypt_hash(cost=None, v='2b'):
    cost = cost or pick([10, 10, 11, 12, 12, 14])
    return '$%s$%02d$' % (v, cost) + rs(CRYPT64, 53)


def argon2_hash():
    return fresh(lambda: '$argon2id$v=19$m=%s,t=%d,p=%d$%s$%s' % (
        pick(['65536', '19456', '47104', '102400']), pick([2, 3, 4]), pick([1, 2, 4]),
        b64(bytes(R.getrandbits(8) for _ in range(16))).rstrip('='),
        b64(bytes(R.getrandbits(8) for _ in range(32))).rstrip('=')))


def scrypt_hash():
    if chance(0.5):
        return fresh(lambda: 'scrypt:32768:8:1$%s$%s' % (''.join(R.choice(ALNUM) for _ in range(16)),
                                                         ''.join(R.choice(HEX) for _ in range(128))))
    return fresh(lambda: '$scrypt$ln=%d,r=8,p=1$%s$%s' % (pick([14, 15, 16, 17]),
                                                          b64(bytes(R.getrandbits(8) for _ in range(16))).rstrip('='),
                                                          b64(bytes(R.getrandbits(8) for _ in range(32))).rstrip('=')))


def sha512crypt():
    return '$6$' + rs(CRYPT64, 16) + '$' + rs(CRYPT64, 86)


def yescrypt():
    return '$y$j9T$' + rs(CRYPT64, 22) + '$' + rs(CRYPT64, 43)


def apr1():
    return '$apr1$' + rs(CRYPT64, 8) + '$' + rs(CRYPT64, 22)


def ssha():
    return '{SSHA}' + b64(rbytes(24))


def pbkdf2_django():
    return 'pbkdf2_sha256$%d$%s$%s' % (pick([600000, 720000, 870000]), rs(ALNUM, 22), b64(rbytes(32)))


def sha256hex():
    return hx(64)


def gitsha():
    return hx(40)


def short_sha():
    return ''.join(R.choice(HEX) for _ in range(7))


# ---------------------------------------------------------------------------
# frames
# ---------------------------------------------------------------------------
PROMPT_STYLES = ['bash', 'omz', 'starship', 'rh', 'venv', 'zsh', 'bare']
PREFIXED = ('claude', 'codex_ran', 'gemini')
PREFIX_VIEWS = ('read', 'catn', 'nl', 'bat')


def line_balanced(line):
    depth = 0
    for ch in line:
        if ch == '«':
            if depth:
                return False
            depth = 1
        elif ch == '»':
            if not depth:
                return False
            depth = 0
    return depth == 0


def check_prefixed(lines):
    for l in lines:
        assert line_balanced(l), ('mark crosses a per-line prefix', l)


def pick_style(contig=False):
    if contig:
        return pick(PROMPT_STYLES + ['codex_exec', 'codex_exec'])
    r = R.random()
    if r < 0.32:
        return pick(PROMPT_STYLES)
    if r < 0.58:
        return 'claude'
    if r < 0.69:
        return 'codex_exec'
    if r < 0.80:
        return 'codex_ran'
    return 'gemini'


class Row:
    def __init__(self, ctx, style=None, contig=False, root=False):
        self.c = ctx
        self.style = style or pick_style(contig)
        self.root = root
        self.blocks = []
        self.gw = R.randint(76, 112)
        self.venv = pick(['.venv', 'venv', 'env'])
        self.tool = pick(STARSHIP_TOOLS)
        self.dirty = pick(['[!?]', '[!]', '[?]', '[+!]', ''])
        self.insert_at = None
        self.cwd = ctx.cwd

    @property
    def pl(self):
        return self.style in PREFIXED

    def _add(self, lines):
        if self.insert_at is None:
            self.blocks.append(lines)
        else:
            self.blocks.insert(self.insert_at, lines)
            self.insert_at += 1

    def nlines(self):
        return sum(len(b) for b in self.blocks)

    def text(self):
        return '\n'.join(l for b in self.blocks for l in b)

    # -- prompts -------------------------------------------------------------
    def _prompt(self, first):
        c = self.c
        d = os.path.basename(self.cwd) or '/'
        tilde = self.cwd.replace(c.home, '~', 1)
        s = self.style
        if self.root:
            return ['root@%s:~# %s' % (c.host, first)]
        if s == 'bash':
            return ['%s@%s:%s$ %s' % (c.user, c.host, tilde, first)]
        if s == 'omz':
            return ['➜  %s git:(%s) ✗ %s' % (d, c.branch, first)]
        if s == 'starship':
            return ['%s on \ue0a0 %s %s%s' % (d, c.branch, (self.dirty + ' ') if self.dirty else '', self.tool), '❯ ' + first]
        if s == 'rh':
            return ['[%s@%s %s]$ %s' % (c.user, c.host, d, first)]
        if s == 'venv':
            return ['(%s) %s@%s:%s$ %s' % (self.venv, c.user, c.host, tilde, first)]
        if s == 'zsh':
            return ['%s %% %s' % (d, first)]
        return ['$ ' + first]

    # -- commands ------------------------------------------------------------
    def run(self, cmd, out, desc=None, rc=0, ms_=None):
        cmdl = cmd if isinstance(cmd, list) else [cmd]
        if self.root and cmdl[0].startswith('sudo '):
            cmdl = [cmdl[0][5:]] + cmdl[1:]
        out = list(out)
        s = self.style
        t = ms_ if ms_ is not None else ms()
        if s == 'gemini':
            blk = self._gemini(cmdl, out, desc)
            if blk is not None:
                self._add(blk)
                return
            s = 'claude'
        if s in PROMPT_STYLES:
            check_prefixed(cmdl[1:])   # heredoc continuation lines carry a '> ' prefix
            lines = self._prompt(cmdl[0]) + ['> ' + l for l in cmdl[1:]]
            self._add(lines + out)
        elif s == 'claude':
            check_prefixed(cmdl + out)
            if len(cmdl) == 1:
                lines = ['⏺ Bash(%s)' % cmdl[0]]
            else:
                lines = ['⏺ Bash(%s' % cmdl[0]] + ['      ' + l for l in cmdl[1:-1]] + ['      %s)' % cmdl[-1]]
            if not out:
                lines.append('  ⎿  (No content)')
            else:
                if rc:
                    out = ['Error: ' + out[0]] + out[1:]
                lines.append('  ⎿  ' + out[0])
                lines += [('     ' + l) if l else '' for l in out[1:]]
            self._add(lines)
        elif s == 'codex_exec':
            q = '\n'.join(cmdl)
            if "'" in q:
                shown = 'bash -lc "%s"' % q.replace('"', '\\"')
            else:
                shown = "bash -lc '%s'" % q
            shown = shown.split('\n')
            shown[-1] += ' in ' + self.cwd
            head = ['exec'] + shown + [(' exited %d in %dms:' % (rc, t)) if rc else (' succeeded in %dms:' % t)]
            self._add(head + out)
        elif s == 'codex_ran':
            check_prefixed(cmdl + out)
            lines = ['• Ran ' + cmdl[0]] + ['  │ ' + l for l in cmdl[1:]]
            if not out:
                lines.append('  └ (no output)')
            else:
                lines.append('  └ ' + out[0])
                lines += [('    ' + l) if l else '' for l in out[1:]]
            self._add(lines)
        else:
            raise AssertionError(s)

    def _gemini(self, cmdl, out, desc):
        if len(cmdl) > 1:
            return None
        check_prefixed(cmdl + out)
        title = '✔  Shell %s' % cmdl[0] + (' (%s)' % desc if desc else '')
        body = [expand_tabs(l) for l in out]
        w = max([dw(title)] + [dw(l) for l in body])
        if w > 146:
            return None
        inner = max(w, self.gw)
        lines = ['╭' + '─' * (inner + 2) + '╮', '│ ' + pad(title, inner) + ' │', '│ ' + ' ' * inner + ' │']
        lines += ['│ ' + pad(l, inner) + ' │' for l in body]
        lines.append('╰' + '─' * (inner + 2) + '╯')
        return lines

    def say(self, text):
        s = self.style
        if s == 'claude' or (s == 'gemini' and False):
            self._add(['⏺ ' + text])
        elif s == 'gemini':
            self._add(['✦ ' + text])
        elif s in ('codex_exec', 'codex_ran'):
            self._add(['codex', text] if s == 'codex_exec' else ['• ' + text])
        # plain shells: no narration

    def ask(self, text):
        s = self.style
        if s in ('claude', 'gemini'):
            self._add(['> ' + text, ''])
        elif s in ('codex_exec', 'codex_ran'):
            self._add(['user', text, ''])

    # -- files ---------------------------------------------------------------
    def viewer(self, allow=('cat', 'catn', 'nl', 'bat', 'sed'), contig=False):
        opts = list(allow)
        if self.style == 'claude' and not contig:
            opts += ['read', 'read', 'read']
        if contig:
            opts = [o for o in opts if o not in PREFIX_VIEWS] or ['cat']
        return pick(opts)

    def vpl(self, v):
        return self.pl or v in PREFIX_VIEWS or (self.style == 'gemini')

    def show(self, v, path, lines, start=1, desc=None):
        n = len(lines)
        if v == 'read':
            assert self.style == 'claude'
            check_prefixed(lines)
            blk = ['⏺ Read(%s)' % path]
            blk += ['%6d→%s' % (start + i, l) for i, l in enumerate(lines)]
            self._add(blk)
            return
        if v in ('catn', 'nl'):
            check_prefixed(lines)
            cmd = ('cat -n %s' if v == 'catn' else 'nl -ba %s') % path
            self.run(cmd, ['%6d\t%s' % (start + i, l) for i, l in enumerate(lines)], desc)
            return
        if v == 'bat':
            check_prefixed(lines)
            w = R.randint(70, 100)
            blk = ['───────┬' + '─' * w, '       │ File: ' + path, '───────┼' + '─' * w]
            blk += ['%4d   │ %s' % (start + i, l) for i, l in enumerate(lines)]
            blk.append('───────┴' + '─' * w)
            self.run('bat --paging=never ' + path, blk, desc)
            return
        if v == 'sed':
            self.run("sed -n '%d,%dp' %s" % (start, start + n - 1 + R.randint(0, 5), path), lines, desc)
            return
        if v == 'head':
            self.run('head -n %d %s' % (n, path), lines, desc)
            return
        if v == 'catA':
            self.run('cat -A ' + path, [cat_A(l) for l in lines], desc)
            return
        self.run('cat ' + path, lines, desc)


def view_cmd(v, path):
    return {'catn': 'cat -n ', 'nl': 'nl -ba ', 'bat': 'bat --paging=never ', 'cat': 'cat '}.get(v, 'cat ') + path


# ---------------------------------------------------------------------------
# ordinary output used to bury secrets in long rows
# ---------------------------------------------------------------------------
SUBJECTS = ['fix(auth): refresh token rotation race', 'feat(oidc): add PKCE to the login flow',
            'chore: bump jose to 5.9.6', 'docs: 更新登录流程说明', 'test: cover SAML single logout',
            '🔐 rotate signing keys', 'refactor(session): move store to redis', 'fix: allow 60s clock skew in JWT checks',
            'feat(ldap): sync groups through memberOf', 'ci: cache go modules', 'ログイン画面の文言を修正',
            'fix(mfa): TOTP window off-by-one', 'feat: passkey registration ✨', 'build: pin node 20.11',
            'Revert "feat: remember-me cookie"', 'feat(scim): provision users from Entra', 'fix(cors): allow the admin origin',
            'chore(deps): update keycloak to 25.0.6', 'feat(gateway): per-consumer rate limits', 'docs(adr): 0007 session storage',
            'fix: 로그인 리디렉션 루프', 'test(e2e): device flow happy path', 'feat: step-up auth for /admin',
            'fix(saml): accept SHA-256 digests', 'perf: cache JWKS for 10 minutes', 'chore: drop implicit grant 🧹']
SRC_FILES = ['src/auth/callback.ts', 'src/auth/session.ts', 'internal/oidc/client.go', 'internal/oidc/verifier.go',
             'app/services/token_service.rb', 'config/routes.rb', 'pkg/ldap/sync.go', 'src/middleware/requireAuth.ts',
             'README.md', 'docker-compose.yml', 'deploy/helm/values.yaml', 'src/saml/sp.py', 'tests/test_login.py',
             'internal/session/redis.go', 'src/passkeys/register.ts', 'Makefile', 'go.mod', 'package.json']
PY_TESTS = ['tests/test_login.py', 'tests/test_tokens.py', 'tests/test_saml.py', 'tests/test_ldap_sync.py',
            'tests/test_sessions.py', 'tests/test_mfa.py', 'tests/test_scim.py']
TS_TESTS = ['src/auth/callback.test.ts', 'src/auth/session.test.ts', 'src/passkeys/register.test.ts',
            'src/middleware/requireAuth.test.ts', 'src/oidc/discovery.test.ts', 'src/mfa/totp.test.ts']
GO_PKGS = ['internal/oidc', 'internal/session', 'internal/ldap', 'internal/saml', 'internal/gateway', 'internal/mfa',
           'cmd/server', 'pkg/authz', 'pkg/jwks']


def f_git_status(row):
    c = row.c
    files = R.sample(SRC_FILES, R.randint(1, 4))
    out = ['On branch ' + c.branch, "Your branch is up to date with 'origin/%s'." % c.branch, '',
           'Changes not staged for commit:', '  (use "git add <file>..." to update what will be committed)',
           '  (use "git restore <file>..." to discard changes in working directory)']
    out += ['\tmodified:   ' + f for f in files]
    if chance(0.5):
        out += ['', 'Untracked files:', '  (use "git add <file>..." to include in what will be committed)',
                '\t' + pick(['notes/', 'tmp/', 'scratch.http', '.env.local.bak', 'coverage/'])]
    out += ['', 'no changes added to commit (use "git add" and/or "git commit -a")']
    row.run('git status', out)


def f_git_log(row):
    n = R.randint(5, 11)
    out = []
    oneline = chance(0.6)
    for i in range(n):
        sha = short_sha()
        if oneline:
            deco = (' (HEAD -> %s, origin/%s)' % (row.c.branch, row.c.branch)) if i == 0 else ''
            out.append('%s%s %s' % (sha, deco, pick(SUBJECTS)))
        else:
            out.append('%s %s %s (%d %s ago)' % (sha, pick(SUBJECTS), pick(PEOPLE)[0], R.randint(1, 11), pick(['hours', 'days'])))
    row.run('git log --oneline -n %d' % n if oneline else "git log --format='%%h %%s %%an (%%ar)' -n %d" % n, out)


def f_ls(row):
    c = row.c
    names = ['.', '..', '.env.example', '.gitignore', 'Makefile', 'README.md', 'docker-compose.yml', 'go.mod', 'go.sum',
             'cmd', 'internal', 'deploy', 'docs', 'package.json', 'pnpm-lock.yaml', 'src', 'tests', 'scripts']
    names = names[:2] + sorted(R.sample(names[2:], R.randint(6, 12)))
    out = ['total %d' % R.randint(40, 400)]
    for nm in names:
        isdir = nm in ('.', '..', 'cmd', 'internal', 'deploy', 'docs', 'src', 'tests', 'scripts')
        t = c.t - R.randint(0, 3000000)
        y, m, d, hh, mi, _, _ = civil(t)
        out.append('%s %3d %s %s %6d %s %2d %02d:%02d %s' % (
            'drwxr-xr-x' if isdir else '-rw-r--r--', R.randint(2, 9) if isdir else 1, c.user, c.user,
            4096 if isdir else R.randint(80, 90000), MONTHS[m - 1], d, hh, mi, nm))
    row.run('ls -la', out)


def f_vitest(row):
    files = R.sample(TS_TESTS, R.randint(3, 6))
    out = ['', '> %s@%d.%d.%d test' % (row.c.proj, R.randint(0, 3), R.randint(0, 20), R.randint(0, 9)), '> vitest run', '',
           ' RUN  v%s %s' % (pick(['1.6.0', '2.1.8', '3.0.4']), row.c.cwd), '']
    total = 0
    for f in files:
        n = R.randint(3, 24)
        total += n
        out.append(' ✓ %s (%d tests) %dms' % (f, n, R.randint(4, 400)))
    out += ['', ' Test Files  %d passed (%d)' % (len(files), len(files)), '      Tests  %d passed (%d)' % (total, total),
            '   Start at  %s' % hms(row.c.t), '   Duration  %.2fs (transform %dms, setup 0ms, collect %dms, tests %dms)' % (
                R.uniform(0.8, 6), R.randint(90, 900), R.randint(100, 1500), R.randint(50, 2000)), '']
    row.run(pick(['pnpm test', 'npm test', 'npx vitest run']), out)


def f_gotest(row):
    mod = 'github.com/%s/%s' % (row.c.org, row.c.proj)
    out = []
    for p in R.sample(GO_PKGS, R.randint(4, 8)):
        k = R.random()
        if p.startswith('cmd'):
            out.append('?   \t%s/%s\t[no test files]' % (mod, p))
        elif k < 0.3:
            out.append('ok  \t%s/%s\t(cached)' % (mod, p))
        else:
            out.append('ok  \t%s/%s\t%.3fs' % (mod, p, R.uniform(0.01, 3.5)))
    row.run('go test ./...', out)


def f_pytest(row):
    n = R.randint(30, 140)
    dots = '.' * n
    out = []
    done = 0
    while dots:
        chunk, dots = dots[:60], dots[60:]
        done += len(chunk)
        out.append('%-60s [%3d%%]' % (chunk, done * 100 // n))
    out.append('%d passed in %.2fs' % (n, R.uniform(0.5, 12)))
    row.run(pick(['pytest -q', 'python -m pytest -q', 'uv run pytest -q']), out)


def f_compose_ps(row):
    svc = R.sample([('keycloak', 'quay.io/keycloak/keycloak:25.0.6', '"/opt/keycloak/bin/k…"', '0.0.0.0:8080->8080/tcp'),
                    ('postgres', 'postgres:16-alpine', '"docker-entrypoint.s…"', '5432/tcp'),
                    ('redis', 'redis:7.2-alpine', '"docker-entrypoint.s…"', '6379/tcp'),
                    ('mailpit', 'axllent/mailpit:v1.20', '"/mailpit"', '0.0.0.0:8025->8025/tcp, 1025/tcp'),
                    ('api', '%s-api' % row.c.proj, '"/app/server"', '0.0.0.0:3000->3000/tcp'),
                    ('openldap', 'bitnami/openldap:2.6', '"/opt/bitnami/scrip…"', '1389/tcp, 1636/tcp'),
                    ('kong', 'kong:3.7', '"/docker-entrypoint.…"', '0.0.0.0:8000-8001->8000-8001/tcp')], R.randint(3, 5))
    rows = [['NAME', 'IMAGE', 'COMMAND', 'SERVICE', 'CREATED', 'STATUS', 'PORTS']]
    for s in svc:
        rows.append(['%s-%s-1' % (row.c.proj, s[0]), s[1], s[2], s[0], '%d hours ago' % R.randint(1, 9),
                     'Up %d hours%s' % (R.randint(1, 9), pick([' (healthy)', ''])), s[3]])
    row.run('docker compose ps', aligned(rows))


POD_ALPHA = 'bcdfghjklmnpqrstvwxz2456789'


def f_kubectl_pods(row):
    rows = [['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']]
    for name in R.sample(['auth-api', 'session-worker', 'keycloak', 'oauth2-proxy', 'ldap-sync', 'kong-gateway', 'dex', 'redis'], R.randint(3, 6)):
        rs_ = fresh(lambda: ''.join(R.choice(POD_ALPHA) for _ in range(R.choice([9, 10]))) + '-' + ''.join(R.choice(POD_ALPHA) for _ in range(5)))
        rows.append(['%s-%s' % (name, rs_), '1/1', 'Running', str(R.choice([0, 0, 0, 1, 2])), '%dh%dm' % (R.randint(1, 70), R.randint(0, 59))])
    row.run('kubectl get pods -n %s' % pick(['auth', 'identity', 'iam', 'platform']), aligned(rows))


def f_tree(row):
    out = ['.', '├── cmd', '│   └── server', '│       └── main.go', '├── internal', '│   ├── oidc', '│   │   ├── client.go',
           '│   │   └── verifier.go', '│   ├── session', '│   │   └── redis.go', '│   └── ldap', '│       └── sync.go',
           '├── deploy', '│   └── helm', '├── go.mod', '└── Makefile', '', '11 directories, 9 files']
    row.run('tree -L 3 -I node_modules', out)


def f_make(row):
    v = 'v%d.%d.%d' % (R.randint(0, 3), R.randint(0, 30), R.randint(0, 9))
    out = ['go vet ./...', 'go build -trimpath -ldflags "-s -w -X main.version=%s -X main.commit=%s" -o bin/%s ./cmd/server' % (
        v, short_sha(), row.c.proj), 'CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -o bin/%s-linux-amd64 ./cmd/server' % row.c.proj]
    row.run('make build', out)


def f_gh_pr_list(row):
    c = row.c
    n = R.randint(2, 6)
    rows = []
    for _ in range(n):
        rows.append(['#%d' % R.randint(80, 900), pick(SUBJECTS), pick(BRANCHES), 'about %d %s ago' % (R.randint(1, 20), pick(['hours', 'days']))])
    out = ['', 'Showing %d of %d open pull requests in %s/%s' % (n, n, c.org, c.proj), ''] + aligned(rows, gap=2)
    row.run('gh pr list', out)


def f_healthz(row):
    body = json.dumps({'status': 'ok', 'version': '%d.%d.%d' % (R.randint(0, 3), R.randint(0, 30), R.randint(0, 9)),
                       'commit': gitsha(), 'uptime': '%dh%dm' % (R.randint(0, 90), R.randint(0, 59)),
                       'checks': {'db': 'ok', 'redis': 'ok', 'jwks': 'ok'}}, indent=2)
    row.run('curl -s localhost:%d/healthz | jq' % pick([3000, 8080, 8000, 4000]), body.split('\n'))


def f_diffstat(row):
    files = R.sample(SRC_FILES, R.randint(2, 6))
    out = []
    ins = dels = 0
    for f in files:
        a, d = R.randint(0, 60), R.randint(0, 30)
        ins += a
        dels += d
        out.append(' %-40s | %3d %s' % (f, a + d, '+' * min(a, 30) + '-' * min(d, 15)))
    out.append(' %d files changed, %d insertions(+), %d deletions(-)' % (len(files), ins, dels))
    row.run('git diff --stat', out)


def f_rg_todo(row):
    out = []
    for f in R.sample(SRC_FILES[:12], R.randint(3, 7)):
        out.append('%s:%d:  %s %s' % (f, R.randint(5, 400), '//' if not f.endswith(('.rb', '.py')) else '#',
                                        pick(['TODO: handle clock skew', 'TODO(sec): rotate keys via JWKS', 'FIXME: cookie SameSite=None on Safari',
                                              'TODO: drop implicit grant', 'TODO: cache discovery doc', 'XXX: remove debug logging before release',
                                              'TODO: map LDAP groups to roles', 'TODO: support private_key_jwt'])))
    row.run("rg -n 'TODO|FIXME|XXX' --glob '!vendor'", out)


def f_outdated(row):
    pk = R.sample([('jose', '5.2.3', '5.9.6'), ('openid-client', '5.6.5', '6.1.7'), ('next-auth', '4.24.7', '4.24.11'),
                   ('@simplewebauthn/server', '9.0.3', '13.1.1'), ('passport', '0.7.0', '0.7.0'), ('ioredis', '5.3.2', '5.4.2'),
                   ('express-session', '1.17.3', '1.18.1'), ('otplib', '12.0.1', '12.0.1'), ('zod', '3.22.4', '3.24.1')], R.randint(3, 6))
    rows = [[p, a, b if a != b else b + ' (wanted)'] for p, a, b in pk]
    row.run('pnpm outdated', box_table(['Package', 'Current', 'Latest'], rows))


def f_logs_tail(row):
    c = row.c
    out = []
    t = c.t - R.randint(100, 900)
    for _ in range(R.randint(5, 12)):
        t += R.randint(0, 20)
        out.append('%s  INFO %s %s' % (iso(t, 3), pick(['http', 'auth', 'session', 'jwks']), pick([
            'GET /healthz 200 1ms', 'GET /.well-known/openid-configuration 200 4ms', 'POST /login 302 88ms',
            'GET /callback 302 141ms', 'jwks refreshed keys=2', 'GET /api/me 200 12ms', 'session gc removed=14',
            'POST /logout 204 9ms', 'GET /static/app.js 304 0ms', 'ldap pool size=4 idle=3'])))
    row.run('kubectl logs deploy/%s --tail=%d' % (c.proj, len(out)), out)


FILLERS = [f_git_status, f_git_log, f_ls, f_vitest, f_gotest, f_pytest, f_compose_ps, f_kubectl_pods, f_tree, f_make,
           f_gh_pr_list, f_healthz, f_diffstat, f_rg_todo, f_outdated, f_logs_tail]


def bury(row, lg):
    """Pad a long row with ordinary commands, at random places between its steps."""
    if not lg:
        return
    target = R.randint(44, 132)
    guard = 0
    order = R.sample(FILLERS, len(FILLERS))
    while row.nlines() < target and guard < 40:
        f = order[guard % len(order)]
        guard += 1
        before = list(row.blocks)
        pos = R.randint(0, len(row.blocks))
        row.insert_at = pos
        f(row)
        row.insert_at = None
        if row.nlines() > 148:
            row.blocks = before
    assert row.nlines() >= 40, ('long row too short', row.nlines())


# ---------------------------------------------------------------------------
# HTTP helpers
# ---------------------------------------------------------------------------
def curl_v(host, method, path, req_headers, body=None, status=200, resp_headers=(), h2=True, ip=None, ua='curl/8.5.0', t=None):
    ip = ip or ipv4_public()
    cs = (t or epoch0()) - R.randint(86400 * 3, 86400 * 80)
    out = ['*   Trying %s:443...' % ip, '* Connected to %s (%s) port 443' % (host, ip)]
    if h2:
        out.append('* ALPN: curl offers h2,http/1.1')
    out += ['* TLSv1.3 (OUT), TLS handshake, Client hello (1):', '* TLSv1.3 (IN), TLS handshake, Server hello (2):',
            '* TLSv1.3 (IN), TLS handshake, Encrypted Extensions (8):', '* TLSv1.3 (IN), TLS handshake, Certificate (11):',
            '* TLSv1.3 (IN), TLS handshake, CERT verify (15):', '* TLSv1.3 (IN), TLS handshake, Finished (20):',
            '* TLSv1.3 (OUT), TLS change cipher, Change cipher spec (1):', '* TLSv1.3 (OUT), TLS handshake, Finished (20):',
            '* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS']
    if h2:
        out.append('* ALPN: server accepted h2')
    out += ['* Server certificate:', '*  subject: CN=%s' % host, '*  start date: %s' % certdate(cs),
            '*  expire date: %s' % certdate(cs + 90 * 86400 - 1),
            '*  subjectAltName: host "%s" matched cert\'s "%s"' % (host, host),
            '*  issuer: C=US; O=Let\'s Encrypt; CN=%s' % pick(['R10', 'R11', 'E5', 'E6']), '*  SSL certificate verify ok.']
    hdrs = [('Host', host), ('User-Agent', ua), ('Accept', '*/*')] + list(req_headers)
    if body is not None:
        blen = len(strip_marks(body))
        hdrs.append(('Content-Length', str(blen)))
    if h2:
        out += ['* using HTTP/2', '* [HTTP/2] [1] OPENED stream for https://%s%s' % (host, path),
                '* [HTTP/2] [1] [:method: %s]' % method, '* [HTTP/2] [1] [:scheme: https]',
                '* [HTTP/2] [1] [:authority: %s]' % host, '* [HTTP/2] [1] [:path: %s]' % path]
        for k, v in hdrs:
            if k in ('Host', 'Content-Length'):
                continue
            out.append('* [HTTP/2] [1] [%s: %s]' % (k.lower(), v))
        out.append('> %s %s HTTP/2' % (method, path))
    else:
        out.append('> %s %s HTTP/1.1' % (method, path))
    for k, v in hdrs:
        out.append('> %s: %s' % (k, v))
    out.append('> ')
    if body is not None:
        out.append('* upload completely sent off: %d bytes' % len(strip_marks(body)))
    out.append('< HTTP/2 %d ' % status if h2 else '< HTTP/1.1 %d %s' % (status, {200: 'OK', 201: 'Created', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized'}.get(status, 'OK')))
    for k, v in resp_headers:
        out.append('< %s: %s' % (k.lower() if h2 else k, v))
    out.append('< ')
    return out


def curl_v_tail(host):
    return ['* Connection #0 to host %s left intact' % host]


def jdump(o, indent=2):
    return json.dumps(o, indent=indent, ensure_ascii=False).split('\n')


def kc_json(o, indent=2):
    """Keycloak / Jackson default pretty printer: "key" : value."""
    lines = json.dumps(o, indent=indent, ensure_ascii=False).split('\n')
    return [re.sub(r'^(\s*"(?:[^"\\]|\\.)*"): ', r'\1 : ', l) for l in lines]


def basic(user, secret):
    return b64((user + ':' + secret).encode())


# ---------------------------------------------------------------------------
# tokens as identity providers issue them
# ---------------------------------------------------------------------------
def kc_header(kid, alg='RS256'):
    return '{"alg":"%s","typ" : "JWT","kid" : "%s"}' % (alg, kid)


def kc_access(iss, client, t, kid, sub=None, user=None, scope='profile email', sid=None, roles=None):
    p = {'exp': t + 300, 'iat': t, 'jti': pick(['', 'onrtac:', 'trrtcc:']) + uuid4(), 'iss': iss, 'aud': 'account',
         'sub': sub or uuid4(), 'typ': 'Bearer', 'azp': client}
    if sid:
        p['sid'] = sid
    p.update({'acr': '1', 'allowed-origins': ['/*'],
              'realm_access': {'roles': roles or ['offline_access', 'uma_authorization', 'default-roles-' + iss.rsplit('/', 1)[1]]},
              'resource_access': {'account': {'roles': ['manage-account', 'manage-account-links', 'view-profile']}},
              'scope': scope, 'email_verified': bool(user)})
    if user:
        p['preferred_username'] = user
    else:
        p.update({'clientHost': ipv4_private(), 'preferred_username': 'service-account-' + client,
                  'clientAddress': ipv4_private(), 'client_id': client})
    return jwt(kc_header(kid), p, 256)


def kc_refresh(iss, client, t, sub, sid, scope='profile email'):
    p = {'exp': t + 1800, 'iat': t, 'jti': uuid4(), 'iss': iss, 'aud': iss, 'sub': sub, 'typ': 'Refresh',
         'azp': client, 'sid': sid, 'scope': 'web-origins acr ' + scope + ' roles basic'}
    return jwt(kc_header(uuid4(), 'HS512'), p, 64)


def kc_id_token(iss, client, t, kid, sub, sid, user, email, name):
    first, _, last = name.partition(' ')
    p = {'exp': t + 300, 'iat': t, 'auth_time': t - R.randint(0, 40), 'jti': uuid4(), 'iss': iss, 'aud': client,
         'sub': sub, 'typ': 'ID', 'azp': client, 'sid': sid, 'at_hash': b64u(rbytes(16)), 'acr': '1',
         'email_verified': True, 'name': name, 'preferred_username': user, 'given_name': first, 'family_name': last or first,
         'email': email}
    return jwt(kc_header(kid), p, 256)


def okta_access(org_url, cid, t, kid, uid=None, sub=None, scp=('openid', 'profile', 'email'), aud='api://default'):
    p = {'ver': 1, 'jti': 'AT.' + b64u(rbytes(32)), 'iss': org_url + '/oauth2/default', 'aud': aud, 'iat': t,
         'exp': t + 3600, 'cid': cid}
    if uid:
        p['uid'] = uid
    p['scp'] = list(scp)
    if uid:
        p['auth_time'] = t - R.randint(0, 60)
    p['sub'] = sub or cid
    return jwt({'kid': kid, 'alg': 'RS256'}, p, 256)


def okta_id(org_url, cid, t, kid, uid, email, name):
    p = {'sub': uid, 'name': name, 'email': email, 'ver': 1, 'iss': org_url + '/oauth2/default', 'aud': cid,
         'iat': t, 'exp': t + 3600, 'jti': 'ID.' + b64u(rbytes(32)), 'amr': ['pwd', 'mfa', 'otp'], 'idp': '00o' + rs(ALNUM, 17),
         'nonce': b64u(rbytes(16)), 'preferred_username': email, 'auth_time': t - R.randint(0, 60), 'at_hash': b64u(rbytes(16))}
    return jwt({'kid': kid, 'alg': 'RS256'}, p, 256)


def auth0_access(tenant, aud, cid, t, kid, sub=None, scope='read:users', gty='client-credentials'):
    p = {'iss': 'https://%s/' % tenant, 'sub': sub or (cid + '@clients'), 'aud': aud, 'iat': t, 'exp': t + 86400,
         'scope': scope}
    if gty:
        p['gty'] = gty
    p['azp'] = cid
    return jwt({'alg': 'RS256', 'typ': 'JWT', 'kid': kid}, p, 256)


def auth0_id(tenant, cid, t, kid, sub, email, name, nonce=None):
    p = {'nickname': email.split('@')[0], 'name': name, 'picture': 'https://s.gravatar.com/avatar/%s?s=480&r=pg' % hx(32),
         'updated_at': iso(t - R.randint(100, 90000), 3), 'email': email, 'email_verified': True,
         'iss': 'https://%s/' % tenant, 'aud': cid, 'iat': t, 'exp': t + 36000, 'sub': sub, 'sid': rs(B64U, 32)}
    if nonce:
        p['nonce'] = nonce
    return jwt({'alg': 'RS256', 'typ': 'JWT', 'kid': kid}, p, 256)


def auth0_refresh():
    return 'v1.M' + rs(B64U, R.randint(120, 140))


def entra_kid():
    return b64u(rbytes(20))


def entra_access(tenant, appid, t, kid, aud='https://graph.microsoft.com', oid=None, upn=None, roles=None, name=None):
    p = {'aud': aud, 'iss': 'https://sts.windows.net/%s/' % tenant, 'iat': t, 'nbf': t, 'exp': t + R.randint(3700, 5000)}
    if upn:
        p.update({'acr': '1', 'aio': b64u(rbytes(60)), 'amr': ['pwd', 'mfa']})
    else:
        p['aio'] = b64u(rbytes(40))
    p.update({'app_displayname': pick(['portal', 'deploy-bot', 'Azure CLI', 'scim-sync']), 'appid': appid, 'appidacr': '1' if not upn else '0',
              'idp': 'https://sts.windows.net/%s/' % tenant, 'idtyp': 'user' if upn else 'app', 'oid': oid or uuid4()})
    if upn:
        p.update({'name': name or upn, 'scp': 'openid profile email User.Read', 'upn': upn, 'unique_name': upn})
    if roles:
        p['roles'] = roles
    p.update({'sub': b64u(rbytes(32)), 'tid': tenant, 'uti': b64u(rbytes(16)), 'ver': '1.0',
              'xms_tcdt': t - R.randint(10 ** 7, 10 ** 8)})
    return jwt({'typ': 'JWT', 'nonce': b64u(rbytes(32)), 'alg': 'RS256', 'x5t': kid, 'kid': kid} if upn else
               {'typ': 'JWT', 'alg': 'RS256', 'x5t': kid, 'kid': kid}, p, 256)


def entra_refresh():
    return fresh(lambda: '0.A' + ''.join(R.choice(B64U) for _ in range(R.randint(380, 520))) + '.' +
                 ''.join(R.choice(B64U) for _ in range(R.randint(60, 90))))


def google_id(cid, t, email):
    p = {'iss': 'https://accounts.google.com', 'azp': cid, 'aud': cid, 'sub': str(R.randint(10 ** 20, 10 ** 21 - 1)),
         'email': email, 'email_verified': True, 'at_hash': b64u(rbytes(16)), 'iat': t, 'exp': t + 3600}
    return jwt({'alg': 'RS256', 'kid': hx(40), 'typ': 'JWT'}, p, 256)


def k8s_sa_token(ns, sa, t, kid, aud=None, bound_pod=None, legacy=False, iss=None):
    if legacy:
        p = {'iss': 'kubernetes/serviceaccount', 'kubernetes.io/serviceaccount/namespace': ns,
             'kubernetes.io/serviceaccount/secret.name': sa + '-token', 'kubernetes.io/serviceaccount/service-account.name': sa,
             'kubernetes.io/serviceaccount/service-account.uid': uuid4(), 'sub': 'system:serviceaccount:%s:%s' % (ns, sa)}
    else:
        k = {'namespace': ns}
        if bound_pod:
            k['pod'] = {'name': bound_pod, 'uid': uuid4()}
        k['serviceaccount'] = {'name': sa, 'uid': uuid4()}
        p = {'aud': aud or ['https://kubernetes.default.svc.cluster.local'], 'exp': t + 3600, 'iat': t,
             'iss': iss or 'https://kubernetes.default.svc.cluster.local', 'jti': uuid4(), 'kubernetes.io': k,
             'nbf': t, 'sub': 'system:serviceaccount:%s:%s' % (ns, sa)}
    return jwt({'alg': 'RS256', 'kid': kid}, p, 256)


def gha_oidc(org, repo, t, aud='sts.amazonaws.com', ref='refs/heads/main', actor=None):
    p = {'jti': uuid4(), 'sub': 'repo:%s/%s:ref:%s' % (org, repo, ref), 'aud': aud, 'ref': ref, 'sha': gitsha(),
         'repository': '%s/%s' % (org, repo), 'repository_owner': org, 'repository_owner_id': str(R.randint(10 ** 6, 10 ** 8)),
         'run_id': str(R.randint(10 ** 9, 10 ** 10)), 'run_number': str(R.randint(10, 900)), 'run_attempt': '1',
         'repository_visibility': 'private', 'repository_id': str(R.randint(10 ** 8, 10 ** 9)), 'actor_id': str(R.randint(10 ** 5, 10 ** 8)),
         'actor': actor or pick(USERS), 'workflow': 'deploy', 'head_ref': '', 'base_ref': '', 'event_name': 'push',
         'ref_protected': 'true', 'ref_type': 'branch', 'workflow_ref': '%s/%s/.github/workflows/deploy.yml@%s' % (org, repo, ref),
         'workflow_sha': gitsha(), 'job_workflow_ref': '%s/%s/.github/workflows/deploy.yml@%s' % (org, repo, ref),
         'job_workflow_sha': gitsha(), 'runner_environment': 'github-hosted', 'iss': 'https://token.actions.githubusercontent.com',
         'nbf': t - 5, 'exp': t + 300, 'iat': t}
    return jwt({'typ': 'JWT', 'alg': 'RS256', 'x5t': b64u(rbytes(20)), 'kid': hx(40).upper()}, p, 256)


def hs256(payload, alg='HS256'):
    return jwt({'alg': alg, 'typ': 'JWT'}, payload, {'HS256': 32, 'HS384': 48, 'HS512': 64}[alg])


def jwt_parts(tok):
    h, p, _ = tok.split('.')
    dec = lambda s: json.loads(base64.urlsafe_b64decode(s + '=' * (-len(s) % 4)).decode())
    return dec(h), dec(p)


def pkce_pair():
    v = rs(B64U, pick([43, 64, 96, 128]))
    return v, b64u(hashlib.sha256(v.encode()).digest())


TEMPLATES = []


def tpl(name, positive):
    def deco(fn):
        TEMPLATES.append((name, positive, fn))
        return fn
    return deco


# ===========================================================================
# POSITIVE TEMPLATES
# ===========================================================================
def kc_host(c):
    return pick(['sso', 'auth', 'id', 'keycloak', 'login']) + '.' + c.domain


@tpl('keycloak_token_endpoint_curl_v', True)
def p_kc_token_curl(c, lg):
    row = Row(c)
    host = kc_host(c)
    iss = 'https://%s/realms/%s' % (host, c.realm)
    client = c.proj + pick(['-backend', '-worker', '-cli', '', '-bff'])
    secret = kc_secret()
    kid = kid43()
    t = c.tick()
    pw_grant = chance(0.4)
    row.ask(pick(['the backend gets 401 from keycloak, can you check the client credentials?',
                  'why does the token request fail in staging?', 'verify the new client secret works against %s' % host]))
    row.say('Let me call the token endpoint directly and look at the full exchange.')
    path = '/realms/%s/protocol/openid-connect/token' % c.realm
    if pw_grant:
        uname = pick(USERS)
        upw = pw_any()
        body = 'grant_type=password&username=%s&password=%s&scope=openid' % (uname, M(formenc(upw)))
        cmd = "curl -sv -u %s:%s --data-urlencode grant_type=password -d username=%s --data-urlencode %s -d scope=openid https://%s%s | jq" % (
            client, M(secret), uname, shq('password=' + M(upw), 'password=' + upw), host, path)
    else:
        body = 'grant_type=client_credentials'
        cmd = 'curl -sv -u %s:%s -d grant_type=client_credentials https://%s%s | jq' % (client, M(secret), host, path)
    out = curl_v(host, 'POST', path, [('Authorization', 'Basic ' + M(basic(client, secret))),
                                       ('Content-Type', 'application/x-www-form-urlencoded')], body=body,
                 resp_headers=[('content-type', 'application/json'), ('cache-control', 'no-store'), ('pragma', 'no-cache'),
                               ('referrer-policy', 'no-referrer'), ('strict-transport-security', 'max-age=31536000; includeSubDomains'),
                               ('x-content-type-options', 'nosniff'), ('x-frame-options', 'SAMEORIGIN'),
                               ('content-length', str(R.randint(1300, 3400)))])
    out += curl_v_tail(host)
    sub = uuid4()
    sid = uuid4() if pw_grant else None
    at = kc_access(iss, client, t, kid, sub=sub, user=(uname if pw_grant else None), scope='openid profile email' if pw_grant else 'profile email', sid=sid)
    resp = {'access_token': M(at), 'expires_in': 300, 'refresh_expires_in': 1800 if pw_grant else 0}
    if pw_grant:
        resp['refresh_token'] = M(kc_refresh(iss, client, t, sub, sid))
    resp['token_type'] = 'Bearer'
    if pw_grant:
        name, handle, email = c.person()
        resp['id_token'] = M(kc_id_token(iss, client, t, kid, sub, sid, uname, email, name))
    resp['not-before-policy'] = 0
    if pw_grant:
        resp['session_state'] = sid
    resp['scope'] = 'openid profile email' if pw_grant else 'profile email'
    out += jdump(resp)
    row.run(cmd, out)
    if chance(0.6):
        h, p = jwt_parts(at)
        row.say('The token is valid; decoding the claims to compare `azp` and roles with what the API expects.')
        row.run("jq -r .access_token /tmp/kc-token.json | cut -d. -f2 | base64 -d 2>/dev/null | jq '{iss, azp, scope, exp, realm_access}'",
                jdump({'iss': p['iss'], 'azp': p['azp'], 'scope': p['scope'], 'exp': p['exp'], 'realm_access': p['realm_access']}))
        row.say('The `kid` %s matches the active RS256 key in the realm, so signature validation is not the problem.' % kid)
    return row


@tpl('oidc_auth_code_pkce_debug_log', True)
def p_pkce_log(c, lg):
    row = Row(c)
    idp = pick(['okta', 'auth0', 'keycloak'])
    t = c.tick()
    name, handle, email = c.person()
    verifier, challenge = pkce_pair()
    state = b64u(rbytes(pick([16, 24, 32])))
    nonce = b64u(rbytes(16))
    if idp == 'okta':
        org = 'https://%s.okta.com' % pick([c.org, 'dev-%d' % R.randint(10 ** 7, 10 ** 8 - 1)])
        authz = org + '/oauth2/default/v1/authorize'
        tokep = org + '/oauth2/default/v1/token'
        cid = okta_client_id()
        secret = okta_secret()
        code = rs(B64U, 43)
        kid = kid43()
        uid = okta_user_id()
        at = okta_access(org, cid, t, kid, uid=uid, sub=email)
        idt = okta_id(org, cid, t, kid, uid, email, name)
        rt = rs(B64U, 43)
    elif idp == 'auth0':
        tenant = '%s.%s.auth0.com' % (c.org, pick(['us', 'eu', 'au']))
        authz = 'https://%s/authorize' % tenant
        tokep = 'https://%s/oauth/token' % tenant
        cid = auth0_client_id()
        secret = auth0_secret()
        code = rs(B64U, pick([43, 48]))
        kid = rs(B64U, 22)
        sub = 'auth0|' + hx(24)
        at = auth0_access(tenant, 'https://api.%s' % c.domain, cid, t, kid, sub=sub, scope='openid profile email offline_access', gty=None)
        idt = auth0_id(tenant, cid, t, kid, sub, email, name, nonce)
        rt = auth0_refresh()
    else:
        host = kc_host(c)
        iss = 'https://%s/realms/%s' % (host, c.realm)
        authz = iss + '/protocol/openid-connect/auth'
        tokep = iss + '/protocol/openid-connect/token'
        cid = c.proj
        secret = kc_secret()
        sid = uuid4()
        code = '%s.%s.%s' % (uuid4(), sid, uuid4())
        kid = kid43()
        sub = uuid4()
        at = kc_access(iss, cid, t, kid, sub=sub, user=handle, scope='openid profile email', sid=sid)
        idt = kc_id_token(iss, cid, t, kid, sub, sid, handle, email, name)
        rt = kc_refresh(iss, cid, t, sub, sid, 'openid profile email')
    redirect = 'https://%s/auth/callback' % pick(['app.' + c.domain, 'localhost:3000', 'portal.' + c.domain])
    svc = pick(['web', 'app', 'bff', 'frontend'])
    pfx = '%s-%s-1  | ' % (c.proj, svc)
    q = urllib.parse.urlencode([('response_type', 'code'), ('client_id', cid), ('redirect_uri', redirect),
                                ('scope', 'openid profile email offline_access'), ('state', state), ('nonce', nonce),
                                ('code_challenge', challenge), ('code_challenge_method', 'S256')])
    tt = t - R.randint(20, 60)
    logs = []

    def L(level, msg, **kw):
        nonlocal tt
        tt += R.randint(0, 3)
        parts = ['time=%s' % iso(tt, 3), 'level=%s' % level, 'msg="%s"' % msg]
        for k, v in kw.items():
            parts.append('%s=%s' % (k, v))
        logs.append(pfx + ' '.join(parts))
    L('INFO', 'starting server', addr=':3000', issuer=authz.rsplit('/', 1)[0])
    L('DEBUG', 'discovery loaded', jwks_uri='%s/keys' % authz.rsplit('/', 1)[0], algs='RS256')
    L('DEBUG', 'pkce generated', method='S256', code_verifier=M(verifier), code_challenge=challenge)
    L('INFO', 'redirecting to identity provider', url='"%s?%s"' % (authz, q))
    L('INFO', 'GET /auth/callback', status=302, remote=ipv4_private())
    L('DEBUG', 'callback params', code=code, state=state, session_state=(uuid4() if idp == 'keycloak' else '""'))
    L('DEBUG', 'state matched', expected=state)
    L('DEBUG', 'token request', url=tokep, grant_type='authorization_code', client_id=cid,
      client_secret=M(secret), code_verifier=M(verifier), redirect_uri=redirect)
    L('DEBUG', 'token response', status=200, token_type='Bearer', expires_in=3600 if idp != 'keycloak' else 300,
      access_token=M(at), id_token=M(idt), refresh_token=M(rt))
    L('DEBUG', 'id_token verified', kid=kid, nonce=nonce, sub=email)
    L('INFO', 'session established', user=email, session_hash=hx(16))
    row.say('Checking the app logs around the failed login.')
    row.run('docker compose logs --no-log-prefix=false %s | grep -E "pkce|token|callback|state" | tail -n %d' % (svc, len(logs)) if chance(0.3)
            else 'docker compose logs %s --since 10m' % svc, logs)
    row.say('The exchange succeeds with debug logging on; the earlier failure was a `redirect_uri` mismatch. '
            'This log level prints secrets, so I will turn `LOG_LEVEL` back to info.')
    return row


@tpl('device_code_flow_poll_output', True)
def p_device_flow(c, lg):
    row = Row(c)
    kind = pick(['entra', 'github', 'okta'])
    t = c.tick()
    out = []
    if kind == 'github':
        cid = gh_client_id()
        dc = hx(40)
        uc = '%s-%s' % (rs(UPPER + DIGITS, 4), rs(UPPER + DIGITS, 4))
        at = gh_token('ghu_')
        rt = 'ghr_' + rs(B62, 76)
        cmd = 'python scripts/device_login.py --client-id %s' % cid
        out += ['POST https://github.com/login/device/code', jcompact({'device_code': M(dc), 'user_code': uc,
                'verification_uri': 'https://github.com/login/device', 'expires_in': 899, 'interval': 5}),
                '', '! First copy your one-time code: %s' % uc, '- Open https://github.com/login/device in your browser', '']
        for i in range(R.randint(2, 5)):
            out.append('[%s] poll %d: authorization_pending' % (hms(t + 5 * i), i + 1))
        out.append('[%s] poll %d: ok' % (hms(t + 30), i + 2))
        out += jdump({'access_token': M(at), 'expires_in': 28800, 'refresh_token': M(rt),
                      'refresh_token_expires_in': 15811200, 'token_type': 'bearer', 'scope': ''})
        out.append('saved to ~/.config/%s/hosts.json' % c.proj)
    else:
        if kind == 'entra':
            tenant = uuid4()
            cid = uuid4()
            dc = fresh(lambda: 'DAQABIQEAAAB' + ''.join(R.choice(B64U) for _ in range(R.randint(150, 200))))
            uc = rs(UPPER + DIGITS, 9)
            uri = 'https://microsoft.com/devicelogin'
            cmd = 'python scripts/device_login.py --tenant %s --client-id %s' % (tenant, cid)
            out += ['POST https://login.microsoftonline.com/%s/oauth2/v2.0/devicecode' % tenant,
                    'To sign in, use a web browser to open the page %s and enter the code %s to authenticate.' % (uri, uc)]
            resp0 = {'user_code': uc, 'device_code': M(dc), 'verification_uri': uri, 'expires_in': 900, 'interval': 5,
                     'message': 'To sign in, use a web browser to open the page %s and enter the code %s to authenticate.' % (uri, uc)}
            name, handle, email = c.person()
            kid = entra_kid()
            at = entra_access(tenant, cid, t, kid, upn=email, name=name)
            rt = entra_refresh()
            final = {'token_type': 'Bearer', 'scope': 'openid profile email User.Read', 'expires_in': 4521,
                     'ext_expires_in': 4521, 'access_token': M(at), 'refresh_token': M(rt),
                     'id_token': M(jwt({'typ': 'JWT', 'alg': 'RS256', 'kid': kid}, {'aud': cid, 'iss': 'https://login.microsoftonline.com/%s/v2.0' % tenant,
                                                                                       'iat': t, 'nbf': t, 'exp': t + 3600, 'name': name, 'oid': uuid4(),
                                                                                       'preferred_username': email, 'rh': b64u(rbytes(30)), 'sub': b64u(rbytes(32)),
                                                                                       'tid': tenant, 'uti': b64u(rbytes(16)), 'ver': '2.0'}))}
            pend = '{"error":"authorization_pending","error_description":"AADSTS70016: OAuth 2.0 device flow error. Authorization is pending. Continue polling. Trace ID: %s Correlation ID: %s Timestamp: %s","error_codes":[70016]}'
        else:
            org = 'https://%s.okta.com' % c.org
            cid = okta_client_id()
            dc = uuid4()
            uc = rs(UPPER, 4) + '-' + rs(UPPER, 4)
            uri = org + '/activate'
            cmd = 'go run ./cmd/devicelogin -issuer %s/oauth2/default -client-id %s' % (org, cid)
            out += ['POST %s/oauth2/default/v1/device/authorize' % org]
            resp0 = {'device_code': M(dc), 'user_code': uc, 'verification_uri': uri,
                     'verification_uri_complete': uri + '?user_code=' + uc, 'expires_in': 600, 'interval': 5}
            kid = kid43()
            uid = okta_user_id()
            name, handle, email = c.person()
            at = okta_access(org, cid, t, kid, uid=uid, sub=email, scp=('openid', 'offline_access', 'profile'))
            final = {'token_type': 'Bearer', 'expires_in': 3600, 'access_token': M(at), 'scope': 'openid offline_access profile',
                     'refresh_token': M(rs(B64U, 43)), 'id_token': M(okta_id(org, cid, t, kid, uid, email, name))}
            pend = '{"error":"authorization_pending","error_description":"The device authorization is pending. Please try again later."%s%s%s}'
        out += jdump(resp0)
        out.append('')
        for i in range(R.randint(2, 6)):
            if kind == 'entra':
                out.append('poll #%d -> 400 %s' % (i + 1, pend % (uuid4(), uuid4(), sqlts(t + 5 * i) + 'Z')))
            else:
                out.append('poll #%d -> 400 %s' % (i + 1, pend % ('', '', '')))
        out.append('poll #%d -> 200' % (i + 2))
        out += jdump(final)
    row.say('Running the device-login helper to get a user token for the integration test.')
    row.run(cmd, out)
    if chance(0.5):
        row.say('Login works. The helper prints the whole token response; I will change it to print only `expires_in` and the scopes.')
    return row


@tpl('refresh_token_rotation_httpie', True)
def p_refresh_httpie(c, lg):
    row = Row(c)
    tenant = '%s%s.%s.auth0.com' % (c.org, pick(['', '-dev', '-staging']), pick(['us', 'eu', 'au', 'jp']))
    cid = auth0_client_id()
    secret = auth0_secret()
    old_rt = auth0_refresh()
    new_rt = auth0_refresh()
    t = c.tick()
    kid = rs(B64U, 22)
    name, handle, email = c.person()
    sub = 'auth0|' + hx(24)
    at = auth0_access(tenant, 'https://api.%s' % c.domain, cid, t, kid, sub=sub, scope='openid profile email offline_access', gty=None)
    idt = auth0_id(tenant, cid, t, kid, sub, email, name)
    body = 'grant_type=refresh_token&client_id=%s&client_secret=%s&refresh_token=%s' % (cid, M(secret), M(old_rt))
    cmd = 'http -v --form POST https://%s/oauth/token grant_type=refresh_token client_id=%s client_secret=%s refresh_token=%s' % (
        tenant, cid, M(secret), M(old_rt))
    out = ['POST /oauth/token HTTP/1.1', 'Accept: */*', 'Accept-Encoding: gzip, deflate, br', 'Connection: keep-alive',
           'Content-Length: %d' % len(strip_marks(body)), 'Content-Type: application/x-www-form-urlencoded; charset=utf-8',
           'Host: ' + tenant, 'User-Agent: HTTPie/3.2.%d' % R.randint(1, 4), '', body, '', '',
           'HTTP/1.1 200 OK', 'Alt-Svc: h3=":443"; ma=86400', 'CF-Cache-Status: DYNAMIC', 'CF-RAY: %s-%s' % (hx(16), pick(['FRA', 'IAD', 'SJC', 'NRT', 'LHR'])),
           'Cache-Control: no-store', 'Connection: keep-alive', 'Content-Encoding: gzip', 'Content-Type: application/json',
           'Date: ' + httpdate(t), 'Pragma: no-cache', 'Server: cloudflare', 'Strict-Transport-Security: max-age=31536000',
           'Transfer-Encoding: chunked', 'Vary: Accept-Encoding, Origin, Accept-Encoding', 'X-Auth0-RequestId: ' + hx(20),
           'X-RateLimit-Limit: 30', 'X-RateLimit-Remaining: 29', 'X-RateLimit-Reset: %d' % (t + 1), '']
    out += jdump({'access_token': M(at), 'expires_in': 86400, 'id_token': M(idt), 'refresh_token': M(new_rt),
                  'scope': 'openid profile email offline_access', 'token_type': 'Bearer'}, indent=4)
    row.say('Reproducing the refresh with HTTPie to see whether rotation hands back a new refresh token.')
    row.run(cmd, out)
    if chance(0.7):
        row.say('Rotation is on: the response carries a different `refresh_token`, and the old one is now spent. '
                'Trying the old one again should trip reuse detection.')
        row.run('http --form POST https://%s/oauth/token grant_type=refresh_token client_id=%s client_secret=%s refresh_token=%s' % (
            tenant, cid, M(secret), M(old_rt)),
            ['HTTP/1.1 403 Forbidden', 'Content-Type: application/json', 'X-Auth0-RequestId: ' + hx(20), ''] +
            jdump({'error': 'invalid_grant', 'error_description': 'Unknown or invalid refresh token.'}, indent=4))
    return row


@tpl('token_introspection_revocation_curl', True)
def p_introspect(c, lg):
    row = Row(c)
    kind = pick(['hydra', 'keycloak', 'generic'])
    rs_client = pick(['resource-server', 'api-gateway', 'orders-api', 'introspector'])
    rsec = pick([kc_secret, pw_gen, lambda: rs(B64U, 43)])()
    t = c.tick()
    if kind == 'hydra':
        host = 'auth.' + c.domain
        at, rt = ory_token('at'), ory_token('rt')
        iep, rep = 'https://%s/oauth2/introspect' % host, 'https://%s/oauth2/revoke' % host
        iss = 'https://%s' % host
    elif kind == 'keycloak':
        host = kc_host(c)
        iss = 'https://%s/realms/%s' % (host, c.realm)
        sub, sid = uuid4(), uuid4()
        at = kc_access(iss, c.proj, t, kid43(), sub=sub, user=pick(USERS), sid=sid)
        rt = kc_refresh(iss, c.proj, t, sub, sid)
        iep, rep = iss + '/protocol/openid-connect/token/introspect', iss + '/protocol/openid-connect/revoke'
    else:
        host = 'oauth.' + c.domain
        iss = 'https://' + host
        at, rt = rs(B64U, 43), rs(B64U, 64)
        iep, rep = 'https://%s/oauth2/introspect' % host, 'https://%s/oauth2/revoke' % host
    user = pick(USERS)
    row.say('Checking whether the token the gateway rejected is still active.')
    row.run('curl -s -u %s:%s -d %s %s | jq' % (rs_client, M(rsec), 'token=' + M(at), iep),
            jdump({'active': True, 'scope': 'openid profile orders:read', 'client_id': c.proj, 'username': user,
                   'token_type': 'Bearer', 'exp': t + 300, 'iat': t, 'nbf': t, 'sub': uuid4(), 'aud': ['orders-api'],
                   'iss': iss, 'jti': uuid4()}))
    row.run('curl -si -u %s:%s -d %s -d token_type_hint=refresh_token %s' % (rs_client, M(rsec), 'token=' + M(rt), rep),
            ['HTTP/2 200 ', 'cache-control: no-store', 'pragma: no-cache', 'content-length: 0', 'date: ' + httpdate(t + 4), ''])
    row.run('curl -s -u %s:%s -d %s %s' % (rs_client, M(rsec), 'token=' + M(at), iep), ['{"active":false}'])
    row.say('After revoking the refresh token the access token reports `active: false` as well, so revocation cascades.')
    return row


@tpl('jwt_cli_encode_decode_hs256', True)
def p_jwt_cli(c, lg):
    row = Row(c)
    sec = pick([lambda: hx(64), lambda: pw_b64(32), pw_phrase, lambda: pw_gen(32)])()
    t = c.tick()
    sub = pick(USERS)
    claims = {'exp': t + 3600, 'iat': t, 'role': pick(['admin', 'support', 'service']), 'sub': sub}
    tok = jwt({'typ': 'JWT', 'alg': 'HS256'}, claims, 32)
    v = row.viewer(allow=('cat', 'sed'))
    envf = ['# local only', 'PORT=%d' % pick([3000, 8080, 4000]), 'JWT_ISSUER=https://api.%s' % c.domain,
            'JWT_AUDIENCE=%s' % c.proj, 'JWT_SECRET=%s' % M(sec), 'JWT_TTL=1h', 'REDIS_URL=redis://localhost:6379/0']
    row.say('Minting a local test token with the same secret the API uses.')
    row.show(v, '.env', envf)
    row.run('jwt encode --secret %s --exp=+1h --sub %s \'{"role":"%s"}\'' % (shq(M(sec), sec), sub, claims['role']), [M(tok)])
    out = ['', 'Token header', '------------'] + jdump({'typ': 'JWT', 'alg': 'HS256'}) + ['', 'Token claims', '------------'] + jdump(claims)
    row.run('jwt decode %s' % M(tok), out)
    row.run('curl -s -H "Authorization: Bearer %s" localhost:%s/api/admin/users | jq length' % (M(tok), envf[1].split('=')[1]), [str(R.randint(3, 80))])
    return row


@tpl('oauth2_proxy_cfg_cookie_secret', True)
def p_oauth2_proxy(c, lg):
    row = Row(c)
    v = row.viewer()
    pl = row.vpl(v)
    provider = pick(['oidc', 'keycloak-oidc', 'github', 'google', 'entra-id'])
    if provider == 'github':
        cid, sec = gh_client_id(), gh_oauth_secret()
    elif provider == 'google':
        cid, sec = google_client_id(), gocspx()
    elif provider == 'entra-id':
        cid, sec = uuid4(), entra_secret()
    else:
        cid, sec = c.proj + '-proxy', kc_secret()
    cookie = b64u(rbytes(32)) + '='  # python urlsafe_b64encode keeps padding
    cookie = _reg(cookie)
    lines = ['## oauth2-proxy.cfg', 'http_address = "0.0.0.0:4180"', 'reverse_proxy = true', 'provider = "%s"' % provider]
    if provider in ('oidc', 'keycloak-oidc'):
        lines.append('oidc_issuer_url = "https://%s/realms/%s"' % (kc_host(c), c.realm))
    if provider == 'entra-id':
        lines.append('oidc_issuer_url = "https://login.microsoftonline.com/%s/v2.0"' % uuid4())
    lines += ['client_id = "%s"' % cid, 'client_secret = "%s"' % M(sec), '',
              "# python -c 'import os,base64; print(base64.urlsafe_b64encode(os.urandom(32)).decode())'",
              'cookie_secret = "%s"' % M(cookie), 'cookie_name = "_oauth2_proxy"', 'cookie_secure = true',
              'cookie_samesite = "lax"', 'cookie_expire = "%dh"' % pick([8, 12, 24, 168]), '',
              'email_domains = ["%s"]' % c.domain, 'upstreams = ["http://127.0.0.1:%d/"]' % pick([8080, 3000, 9000]),
              'redirect_url = "https://%s.%s/oauth2/callback"' % (pick(['grafana', 'admin', 'tools', 'wiki']), c.domain),
              'set_xauthrequest = true', 'pass_access_token = %s' % pick(['true', 'false']), 'skip_provider_button = true']
    row.say('Reviewing the proxy config before wiring it into the ingress.')
    row.show(v, 'deploy/oauth2-proxy/oauth2-proxy.cfg', lines)
    if chance(0.7):
        t = c.tick()
        sess = _reg(b64u(rbytes(R.randint(180, 260))) + '|%d|' % t + b64u(rbytes(32)) + '=')
        host = pick(['grafana', 'admin', 'tools', 'wiki']) + '.' + c.domain
        row.run("curl -sI https://%s/oauth2/auth -H 'Cookie: _oauth2_proxy=%s'" % (host, M(sess)),
                ['HTTP/2 202 ', 'date: ' + httpdate(t), 'gap-auth: ' + pick(USERS) + '@' + c.domain,
                 'x-auth-request-email: %s@%s' % (pick(USERS), c.domain), 'x-auth-request-user: ' + rs(DIGITS, 21),
                 'content-length: 0', ''])
        row.say('The session cookie is accepted (202), so the 401s come from the upstream, not the proxy.')
    return row


@tpl('spring_security_oauth2_client_yml', True)
def p_spring_yml(c, lg):
    row = Row(c)
    v = row.viewer()
    host = kc_host(c)
    kc_sec = kc_secret()
    gh_id, gh_sec = gh_client_id(), gh_oauth_secret()
    db_pw = pw_any()
    lines = ['spring:', '  application:', '    name: %s' % c.proj, '  security:', '    oauth2:', '      client:',
             '        registration:', '          keycloak:', '            client-id: %s' % c.proj,
             '            client-secret: %s' % M(kc_sec), '            authorization-grant-type: authorization_code',
             '            redirect-uri: "{baseUrl}/login/oauth2/code/{registrationId}"', '            scope: openid,profile,email',
             '          github:', '            client-id: %s' % gh_id, '            client-secret: %s' % M(gh_sec),
             '            scope: read:user,user:email', '        provider:', '          keycloak:',
             '            issuer-uri: https://%s/realms/%s' % (host, c.realm), '            user-name-attribute: preferred_username',
             '      resourceserver:', '        jwt:', '          jwk-set-uri: https://%s/realms/%s/protocol/openid-connect/certs' % (host, c.realm),
             '  datasource:', '    url: jdbc:postgresql://db:5432/%s' % c.proj.replace('-', '_'), '    username: %s' % c.proj.replace('-', '_'),
             '    password: "%s"' % M(db_pw), '  session:', '    store-type: redis', '    timeout: 30m',
             'server:', '  servlet:', '    session:', '      cookie:', '        name: SESSION', '        same-site: lax']
    row.say('Reading the Spring config to see which registration the login page picks up.')
    row.show(v, 'src/main/resources/application.yml', lines)
    if chance(0.6):
        gen = uuid4()
        t = c.tick()
        logs = []
        pid = R.randint(1000, 90000)
        for lvl, logger, msg in [('INFO', 'c.%s.Application' % c.org, 'Starting Application v%d.%d.%d using Java 21.0.4 with PID %d' % (R.randint(0, 3), R.randint(0, 20), R.randint(0, 9), pid)),
                                 ('INFO', 'o.s.b.w.embedded.tomcat.TomcatWebServer', 'Tomcat initialized with port 8080 (http)'),
                                 ('WARN', '.s.s.UserDetailsServiceAutoConfiguration', '\n\nUsing generated security password: %s\n\nThis generated password is for development use only. Your security configuration must be updated before running your application in production.\n' % M(gen)),
                                 ('INFO', 'o.s.s.web.DefaultSecurityFilterChain', 'Will secure any request with filters: DisableEncodeUrlFilter, WebAsyncManagerIntegrationFilter, SecurityContextHolderFilter, HeaderWriterFilter, CsrfFilter, LogoutFilter, OAuth2AuthorizationRequestRedirectFilter, OAuth2LoginAuthenticationFilter'),
                                 ('INFO', 'o.s.b.w.embedded.tomcat.TomcatWebServer', "Tomcat started on port 8080 (http) with context path '/'")]:
            t += R.randint(0, 2)
            for k, part in enumerate(msg.split('\n')):
                logs.append(('%s %s %d --- [%s] [           main] %-40s : %s' % (iso(t, 3, '+00:00'), lvl.rjust(5), pid, c.proj, logger[-40:], part)).rstrip() if k == 0 else part)
        row.run('./mvnw -q spring-boot:run -Dspring-boot.run.profiles=local 2>&1 | head -n %d' % len(logs), logs)
        row.say('Spring also generated a default user password because a `UserDetailsService` bean is missing; that default login must go.')
    return row


@tpl('nextauth_env_providers_diff', True)
def p_nextauth_diff(c, lg):
    row = Row(c)
    old = {'AUTH_SECRET': pw_b64(33), 'AUTH_GITHUB_SECRET': gh_oauth_secret(), 'AUTH_GOOGLE_SECRET': gocspx(),
           'AUTH_MICROSOFT_ENTRA_ID_SECRET': entra_secret()}
    new = {'AUTH_SECRET': pw_b64(33), 'AUTH_GITHUB_SECRET': gh_oauth_secret(), 'AUTH_GOOGLE_SECRET': gocspx(),
           'AUTH_MICROSOFT_ENTRA_ID_SECRET': entra_secret()}
    gh_id, g_id, tenant, e_id = gh_client_id(), google_client_id(), uuid4(), uuid4()
    ctxl = [('AUTH_URL', 'http://localhost:3000'), ('AUTH_TRUST_HOST', 'true'), ('AUTH_GITHUB_ID', gh_id),
            ('AUTH_GITHUB_SECRET', None), ('AUTH_GOOGLE_ID', g_id), ('AUTH_GOOGLE_SECRET', None),
            ('AUTH_MICROSOFT_ENTRA_ID_ID', e_id), ('AUTH_MICROSOFT_ENTRA_ID_SECRET', None),
            ('AUTH_MICROSOFT_ENTRA_ID_ISSUER', 'https://login.microsoftonline.com/%s/v2.0' % tenant),
            ('DATABASE_URL', 'postgresql://app@localhost:5432/%s' % c.proj.replace('-', '_'))]
    rot = [k for k in old if chance(0.7)] or ['AUTH_SECRET']
    out = ['--- .env.local.bak\t%s' % sqlts(c.t - 86400 * R.randint(2, 60)) + '.000000000 +0000',
           '+++ .env.local\t%s' % sqlts(c.t) + '.000000000 +0000', '@@ -1,%d +1,%d @@' % (len(ctxl) + 1, len(ctxl) + 1)]
    out.append('-AUTH_SECRET="%s"' % M(old['AUTH_SECRET']) if 'AUTH_SECRET' in rot else ' AUTH_SECRET="%s"' % M(old['AUTH_SECRET']))
    if 'AUTH_SECRET' in rot:
        out.append('+AUTH_SECRET="%s" # npx auth secret' % M(new['AUTH_SECRET']))
    for k, val in ctxl:
        if val is not None:
            out.append(' %s=%s' % (k, val))
        elif k in rot:
            out.append('-%s=%s' % (k, M(old[k])))
            out.append('+%s=%s' % (k, M(new[k])))
        else:
            out.append(' %s=%s' % (k, M(old[k])))
    row.say('Comparing the rotated provider secrets with the backup before deleting it.')
    row.run('diff -u .env.local.bak .env.local', out, rc=1)
    row.say('Rotated: %s. The client IDs did not change, as expected.' % ', '.join('`%s`' % k for k in rot))
    return row


@tpl('saml_sp_settings_json_private_key', True)
def p_saml_settings(c, lg):
    row = Row(c)
    v = row.viewer(allow=('cat', 'sed', 'catn', 'bat'))
    key = RSAKey()
    spcert = Cert('sp.' + c.domain, o=c.org.title(), key=key, days=3650)
    idpcert = Cert(pick(['idp', 'sso', 'adfs', 'login']) + '.' + c.domain, o=c.org.title(), days=1095)
    sp = 'https://%s.%s' % (pick(['app', 'portal', 'hr', 'wiki']), c.domain)
    idp = pick(['https://%s.okta.com/app/%s/exk%s/sso/saml' % (c.org, c.proj, rs(ALNUM, 17)),
                'https://login.microsoftonline.com/%s/saml2' % uuid4(),
                'https://%s/realms/%s/protocol/saml' % (kc_host(c), c.realm)])
    body = b64(key.pkcs8())
    conf = {'strict': True, 'debug': chance(0.5),
            'sp': {'entityId': sp + '/saml/metadata', 'assertionConsumerService': {'url': sp + '/saml/acs',
                   'binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST'},
                   'singleLogoutService': {'url': sp + '/saml/sls', 'binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect'},
                   'NameIDFormat': 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
                   'x509cert': spcert.b64, 'privateKey': M(body)},
            'idp': {'entityId': idp.rsplit('/saml', 1)[0] if 'okta' not in idp else 'http://www.okta.com/exk' + rs(ALNUM, 17),
                    'singleSignOnService': {'url': idp, 'binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect'},
                    'x509cert': idpcert.b64}}
    lines = jdump(conf, indent=4)
    row.say('Reading the python3-saml settings; the signature error could be a cert mismatch.')
    row.show(v, 'saml/settings.json', lines)
    row.run('openssl x509 -noout -fingerprint -sha256 -in <(printf -- "-----BEGIN CERTIFICATE-----\\n%s\\n-----END CERTIFICATE-----" "$(jq -r .idp.x509cert saml/settings.json)")',
            ['sha256 Fingerprint=' + idpcert.fp()])
    row.say('The IdP fingerprint matches the metadata. The SP private key is inline in this file, so it must not be committed.')
    return row


@tpl('simplesamlphp_config_secretsalt', True)
def p_simplesaml(c, lg):
    row = Row(c)
    salt = rs(LALNUM, 32)
    admin = pw_any()
    kpass = pw_any()
    base = pick(['/var/simplesamlphp', '/opt/simplesamlphp', 'vendor/simplesamlphp/simplesamlphp'])
    ln = R.randint(110, 140)
    out = ['%d:    \'technicalcontact_name\' => \'%s\',' % (ln, pick(PEOPLE)[0]),
           "%d:    'technicalcontact_email' => 'identity@%s'," % (ln + 1, c.domain),
           "%d:    'auth.adminpassword' => '%s'," % (ln + 14, M(admin)),
           "%d:    'secretsalt' => '%s'," % (ln + 27, M(salt))]
    row.say('Looking for the salt and admin password in the SimpleSAMLphp config.')
    row.run("grep -nE \"secretsalt|adminpassword|technicalcontact\" %s/config/config.php" % base, out)
    sp = 'https://%s.%s' % (pick(['wiki', 'hr', 'lms', 'portal']), c.domain)
    lines = ["    'default-sp' => [", "        'saml:SP',", "        'entityID' => '%s/simplesaml/module.php/saml/sp/metadata.php/default-sp'," % sp,
             "        'idp' => 'https://%s/realms/%s'," % (kc_host(c), c.realm), "        'discoURL' => null,",
             "        'privatekey' => 'saml.pem',", "        'privatekey_pass' => '%s'," % M(kpass),
             "        'certificate' => 'saml.crt',", "        'signature.algorithm' => 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',",
             "        'sign.authnrequest' => true,", "        'sign.logout' => true,", '    ],']
    row.run("sed -n '/default-sp/,/^    \\],/p' %s/config/authsources.php" % base, lines)
    if chance(0.6):
        idpc = Cert(kc_host(c), days=3650)
        row.run("grep -c certData %s/metadata/saml20-idp-remote.php && grep -o \"'certData' => '[^']\\{0,60\\}\" %s/metadata/saml20-idp-remote.php" % (base, base),
                ['1', "'certData' => '" + idpc.b64[:60]])
    row.say('`secretsalt` and the admin password are set in clear text. The key passphrase is inline too; I will move all three to env lookups with `getenv()`.')
    return row


@tpl('shibboleth_sp_keygen_cat_key', True)
def p_shib(c, lg):
    row = Row(c)
    host = pick(['sp', 'wiki', 'lms', 'intranet']) + '.' + c.domain
    key = RSAKey(3072 if chance(0.4) else 2048)
    cert = Cert(host, key=key, days=3650)
    row.root = chance(0.5) and row.style in PROMPT_STYLES
    v = row.viewer(allow=('cat',))
    pl = row.vpl(v)
    row.say('Regenerating the SP signing pair and checking what ended up on disk.')
    row.run('sudo shib-keygen -f -u _shibd -g _shibd -h %s -y 10 -e https://%s/shibboleth -n sp-signing' % (host, host), [])
    row.run('sudo ls -l /etc/shibboleth/sp-signing-*', [
        '-rw-r--r-- 1 root   root   %d %s %2d %s /etc/shibboleth/sp-signing-cert.pem' % (R.randint(1100, 1700), MONTHS[civil(c.t)[1] - 1], civil(c.t)[2], hms(c.t)[:5]),
        '-rw------- 1 _shibd _shibd %d %s %2d %s /etc/shibboleth/sp-signing-key.pem' % (R.randint(1700, 2500), MONTHS[civil(c.t)[1] - 1], civil(c.t)[2], hms(c.t)[:5])])
    row.run('sudo cat /etc/shibboleth/sp-signing-key.pem', pem_lines('PRIVATE KEY', key.pkcs8(), pl))
    row.run('openssl x509 -in /etc/shibboleth/sp-signing-cert.pem -noout -subject -enddate -fingerprint -sha256',
            ['subject=CN = %s' % host, 'notAfter=%s' % certdate(cert.t1), 'sha256 Fingerprint=%s' % cert.fp()])
    row.run("grep -n CredentialResolver /etc/shibboleth/shibboleth2.xml", [
        '%d:        <CredentialResolver type="File" use="signing" key="sp-signing-key.pem" certificate="sp-signing-cert.pem"/>' % R.randint(80, 120),
        '%d:        <CredentialResolver type="File" use="encryption" key="sp-encrypt-key.pem" certificate="sp-encrypt-cert.pem"/>' % R.randint(121, 130)])
    row.say('The new key is in place and only `_shibd` can read it. The IdP needs the new certificate (fingerprint above) before shibd restarts.')
    return row


@tpl('keycloak_realm_export_keys_secrets', True)
def p_kc_export(c, lg):
    row = Row(c)
    rsa = RSAKey()
    cert = Cert(c.realm, key=rsa, days=3650)
    hmac = b64u(rbytes(64))
    aes = b64u(rbytes(16))
    smtp_pw = pw_any()
    clients = []
    for name in R.sample(['account', 'account-console', 'admin-cli', 'broker', 'realm-management', 'security-admin-console',
                          c.proj, c.proj + '-backend', 'grafana', 'argocd', 'vault-oidc', 'gitlab'], R.randint(4, 7)):
        public = name in ('account-console', 'admin-cli', 'security-admin-console')
        d = {'clientId': name}
        if public:
            d['publicClient'] = True
        else:
            d['secret'] = M(kc_secret()) if name not in ('broker', 'realm-management') else '**********'
            d['publicClient'] = False
        clients.append(d)
    comps = [{'id': uuid4(), 'name': 'rsa-generated', 'providerId': 'rsa-generated', 'subComponents': {},
              'config': {'privateKey': [M(b64(rsa.pkcs1()))], 'keyUse': ['SIG'], 'certificate': [cert.b64], 'priority': ['100']}},
             {'id': uuid4(), 'name': 'hmac-generated-hs512', 'providerId': 'hmac-generated', 'subComponents': {},
              'config': {'kid': [uuid4()], 'secret': [M(hmac)], 'priority': ['100'], 'algorithm': ['HS512']}},
             {'id': uuid4(), 'name': 'aes-generated', 'providerId': 'aes-generated', 'subComponents': {},
              'config': {'kid': [uuid4()], 'secret': [M(aes)], 'priority': ['100']}}]
    smtp = {'password': M(smtp_pw), 'starttls': 'true', 'auth': 'true', 'port': '587', 'host': 'smtp.%s' % pick(['sendgrid.net', 'mailgun.org', 'office365.com', c.domain]),
            'from': 'no-reply@' + c.domain, 'fromDisplayName': c.org.title() + ' Login', 'ssl': 'false', 'user': pick(['apikey', 'postmaster@' + c.domain, 'keycloak'])}
    out = jdump({'realm': c.realm, 'clients': clients, 'keys': comps, 'smtpServer': smtp})
    row.say('Exported the realm; inspecting which secrets the export carries before it goes into the repo.')
    row.run('/opt/keycloak/bin/kc.sh export --realm %s --file /tmp/%s-realm.json --users skip 2>&1 | tail -n 2' % (c.realm, c.realm),
            ['%s INFO  [org.keycloak.exportimport.singlefile.SingleFileExportProvider] (main) Exporting realm \'%s\' into file /tmp/%s-realm.json' % (sqlts(c.tick()).replace(' ', ' ') + ',%03d' % R.randint(0, 999), c.realm, c.realm),
             '%s INFO  [org.keycloak.services] (main) KC-SERVICES0035: Export finished successfully' % (sqlts(c.tick()) + ',%03d' % R.randint(0, 999))])
    row.run('jq \'{realm, clients: [.clients[] | {clientId, secret, publicClient}], keys: .components["org.keycloak.keys.KeyProvider"] | map({id, name, providerId, subComponents, config}), smtpServer}\' /tmp/%s-realm.json' % c.realm, out)
    row.say('The export contains the realm signing key, the HMAC and AES keys, confidential client secrets and the SMTP password. '
            'I will strip `components` and secrets with a jq filter before committing, and keep the full file out of git.')
    return row


@tpl('kcadm_config_credentials_client_secret', True)
def p_kcadm(c, lg):
    row = Row(c)
    host = kc_host(c)
    server = 'https://%s' % host
    admin_pw = pw_any()
    s1 = kc_secret()
    s2 = kc_secret()
    cid = uuid4()
    client = pick(['billing-api', 'reports-worker', 'scim-bridge', 'grafana', 'ci-deployer', c.proj + '-svc'])
    kc = './kcadm.sh' if chance(0.5) else '/opt/keycloak/bin/kcadm.sh'
    row.say('Creating the confidential client with kcadm.')
    row.run('%s config credentials --server %s --realm master --user admin --password %s' % (kc, server, shq(M(admin_pw), admin_pw)),
            ['Logging into %s as user admin of realm master' % server])
    row.run('%s create clients -r %s -s clientId=%s -s enabled=true -s clientAuthenticatorType=client-secret -s serviceAccountsEnabled=true -s standardFlowEnabled=false -s secret=%s -i' % (
        kc, c.realm, client, M(s1)), [cid])
    row.run('%s get clients/%s/client-secret -r %s' % (kc, cid, c.realm), kc_json({'type': 'secret', 'value': M(s1)}))
    if chance(0.6):
        row.say('Regenerating, since the first secret was typed on the command line.')
        row.run('%s create clients/%s/client-secret -r %s -o' % (kc, cid, c.realm), kc_json({'type': 'secret', 'value': M(s2)}))
    if chance(0.6):
        t = c.tick()
        iss = server + '/realms/master'
        sub, sid = uuid4(), uuid4()
        at = kc_access(iss, 'admin-cli', t, kid43(), sub=sub, user='admin', sid=sid)
        rt = kc_refresh(iss, 'admin-cli', t, sub, sid)
        v = row.viewer(allow=('cat',))
        row.show(v, '~/.keycloak/kcadm.config', kc_json({'serverUrl': server, 'realm': 'master', 'truststore': None,
                                                         'endpoints': {server: {'master': {'token': M(at), 'refreshToken': M(rt),
                                                                                           'expiresAt': (t + 60) * 1000, 'refreshExpiresAt': (t + 1800) * 1000}}}}))
        row.say('kcadm caches the admin access and refresh tokens in `~/.keycloak/kcadm.config`; I will run `%s config credentials` with `--config /tmp/…` next time and delete it afterwards.' % kc)
    return row


@tpl('okta_cli_apps_create_env_file', True)
def p_okta_cli(c, lg):
    row = Row(c)
    org = 'https://%s.okta.com' % pick([c.org, 'dev-%d' % R.randint(10 ** 7, 10 ** 8 - 1), c.org + '-admin'])
    cid = okta_client_id()
    sec = okta_secret()
    tok = okta_api_token()
    app = pick([c.proj, 'portal', 'admin-console'])
    out = ['Application name [%s]: ' % c.proj, 'Type of Application', '(The Okta CLI only supports a subset of application types and properties):',
           '> 1: Web', '> 2: Single Page App', '> 3: Native App (mobile)', '> 4: Service (Machine-to-Machine)',
           'Enter your choice [Web]: 1', 'Type of Application', '> 1: Okta Spring Boot Starter', '> 2: Spring Boot', '> 3: JHipster',
           '> 4: Quarkus', '> 5: Other', 'Enter your choice [Other]: 5', 'Redirect URI', 'Common defaults:',
           ' Spring Security - http://localhost:8080/login/oauth2/code/okta', ' Quarkus OIDC - http://localhost:8080/callback',
           ' JHipster - http://localhost:8080/login/oauth2/code/oidc',
           'Enter your Redirect URI(s) [http://localhost:8080/callback]: http://localhost:3000/auth/callback',
           'Enter your Post Logout Redirect URI(s) [http://localhost:8080/]: http://localhost:3000/',
           'Configuring a new OIDC Application, almost done:', 'Created OIDC application, client-id: ' + cid,
           'Okta application configuration has been written to: %s/.okta.env' % c.cwd]
    row.run('okta apps create web', out)
    v = row.viewer(allow=('cat', 'catn', 'bat'))
    row.show(v, '.okta.env', ['export OKTA_OAUTH2_ISSUER="%s/oauth2/default"' % org, 'export OKTA_OAUTH2_CLIENT_ID="%s"' % cid,
                              'export OKTA_OAUTH2_CLIENT_SECRET="%s"' % M(sec)])
    if chance(0.7):
        v = row.viewer(allow=('cat', 'catn'))
        row.show(v, '~/.okta/okta.yaml', ['okta:', '  client:', '    orgUrl: "%s"' % org, '    token: "%s"' % M(tok)])
        row.say('The CLI also stored an org API token in `~/.okta/okta.yaml`. `.okta.env` is not in `.gitignore` yet; adding it.')
    row.run("echo '.okta.env' >> .gitignore && git check-ignore -v .okta.env", ['.gitignore:%d:.okta.env\t.okta.env' % R.randint(8, 40)])
    return row


@tpl('okta_api_ssws_curl_users', True)
def p_okta_ssws(c, lg):
    row = Row(c)
    org = '%s.okta.com' % pick([c.org, c.org + '-preview', 'dev-%d' % R.randint(10 ** 7, 10 ** 8 - 1)])
    tok = okta_api_token()
    row.say('Listing a few users and the app secrets through the Okta management API.')
    users = []
    t = c.t
    for _ in range(R.randint(2, 4)):
        name, handle, email = c.person()
        users.append({'id': okta_user_id(), 'status': pick(['ACTIVE', 'ACTIVE', 'PROVISIONED', 'SUSPENDED']),
                      'lastLogin': iso(t - R.randint(1000, 900000), 3), 'profile': {'login': email, 'email': email}})
    hdr = pick(['"Authorization: SSWS %s"', "'Authorization: SSWS %s'"]) % M(tok)
    row.run('curl -s -H %s -H \'Accept: application/json\' "https://%s/api/v1/users?limit=%d" | jq \'.[] | {id, status, lastLogin, profile: {login: .profile.login, email: .profile.email}}\'' % (hdr, org, len(users)),
            sum((jdump(u) for u in users), []))
    app = '0oa' + rs(ALNUM, 17)
    sec = okta_secret()
    secrets = [{'id': 'ocs' + rs(ALNUM, 17), 'status': 'ACTIVE', 'client_secret': M(sec), 'secret_hash': b64u(rbytes(16)),
                'created': iso(t - 86400 * R.randint(10, 300), 3), 'lastUpdated': iso(t - 86400 * R.randint(1, 9), 3),
                '_links': {'deactivate': {'href': 'https://%s/api/v1/apps/%s/credentials/secrets/ocs…/lifecycle/deactivate' % (org, app),
                                          'hints': {'allow': ['POST']}}}}]
    row.run('curl -s -H %s "https://%s/api/v1/apps/%s/credentials/secrets" | jq' % (hdr, org, app), jdump(secrets))
    if chance(0.5):
        v = row.viewer(allow=('cat', 'catn'))
        row.show(v, 'terraform/okta/terraform.tfvars', ['okta_org_name  = "%s"' % org.split('.')[0], 'okta_base_url  = "okta.com"',
                                                        'okta_api_token = "%s"' % M(tok)])
        row.say('The same org token is also sitting in `terraform.tfvars`; it belongs in `TF_VAR_okta_api_token` instead.')
    return row


@tpl('auth0_cli_apps_reveal_secrets', True)
def p_auth0_cli(c, lg):
    row = Row(c)
    tenant = '%s%s.%s.auth0.com' % (c.org, pick(['', '-dev', '-prod']), pick(['us', 'eu', 'au']))
    cid = auth0_client_id()
    sec = auth0_secret()
    name = pick(['billing-worker', 'reports-cron', 'scim-sync', c.proj + '-m2m'])
    rows_ = [('CLIENT ID', cid), ('NAME', name), ('DESCRIPTION', ''), ('TYPE', 'Machine to Machine'),
             ('CLIENT SECRET', M(sec)), ('CALLBACKS', ''), ('ALLOWED LOGOUT URLS', ''), ('ALLOWED ORIGINS', ''),
             ('ALLOWED WEB ORIGINS', ''), ('TOKEN ENDPOINT AUTH', 'client_secret_post'), ('GRANTS', 'client_credentials')]
    out = [' ▸    Your Auth0 application has been created.', '', '=== %s application created' % tenant, '']
    out += ['  ' + l for l in aligned([[a, b] for a, b in rows_], gap=2)]
    out += ['', ' ▸    Quickstarts: https://auth0.com/docs/quickstart/backend',
            " ▸    Hint: Test this app's login box with 'auth0 test login %s'" % cid]
    row.run('auth0 apps create --name %s --type m2m --reveal-secrets --no-input' % name, out)
    api = 'https://api.%s' % c.domain
    t = c.tick()
    at = auth0_access(tenant, api, cid, t, rs(B64U, 22), scope='read:invoices write:invoices')
    if chance(0.6):
        row.run('auth0 test token %s --audience %s --scopes read:invoices,write:invoices' % (cid, api),
                ['', '=== %s token' % tenant, '', ' ▸    Access token for %s:' % api, '', M(at), ''])
    else:
        row.run('auth0 apps show %s --reveal-secrets --json | jq \'{client_id, name, client_secret, signing_keys}\'' % cid,
                jdump({'client_id': cid, 'name': name, 'client_secret': M(sec),
                       'signing_keys': [{'cert': '-----BEGIN CERTIFICATE-----\n' + '\n'.join(wrap(Cert(tenant).b64, 64)) + '\n-----END CERTIFICATE-----\n',
                                         'pkcs7': '-----BEGIN PKCS7-----\n…\n-----END PKCS7-----\n', 'subject': 'deprecated'}]}))
    row.say('The M2M app works. `--reveal-secrets` printed the client secret to the terminal; I will store it with `gh secret set AUTH0_CLIENT_SECRET` and clear the scrollback.')
    return row


@tpl('az_ad_sp_create_for_rbac_json', True)
def p_az_sp(c, lg):
    row = Row(c)
    sub = uuid4()
    tenant = uuid4()
    app = uuid4()
    pw = entra_secret()
    name = pick(['gha-deployer', 'terraform-ci', 'scim-provisioner', c.proj + '-sp', 'aks-dns-updater'])
    rg = pick(['rg-identity', 'rg-auth-prod', 'rg-%s' % c.proj, 'rg-platform'])
    sdk = chance(0.3)
    out = ["Creating 'Contributor' role assignment under scope '/subscriptions/%s/resourceGroups/%s'" % (sub, rg)]
    if sdk:
        out.insert(0, "WARNING: Option '--sdk-auth' has been deprecated and will be removed in a future release.")
    out.append('The output includes credentials that you must protect. Be sure that you do not include these credentials in your code or check the credentials into your source control. For more information, see https://aka.ms/azadsp-cli')
    if sdk:
        out += jdump({'clientId': app, 'clientSecret': M(pw), 'subscriptionId': sub, 'tenantId': tenant,
                      'activeDirectoryEndpointUrl': 'https://login.microsoftonline.com', 'resourceManagerEndpointUrl': 'https://management.azure.com/',
                      'activeDirectoryGraphResourceId': 'https://graph.windows.net/', 'sqlManagementEndpointUrl': 'https://management.core.windows.net:8443/',
                      'galleryEndpointUrl': 'https://gallery.azure.com/', 'managementEndpointUrl': 'https://management.core.windows.net/'})
    else:
        out += jdump({'appId': app, 'displayName': name, 'password': M(pw), 'tenant': tenant})
    row.run('az ad sp create-for-rbac --name %s --role Contributor --scopes /subscriptions/%s/resourceGroups/%s%s' % (name, sub, rg, ' --sdk-auth' if sdk else ''), out)
    if chance(0.7):
        row.say('Verifying the new service principal can log in.')
        row.run('az login --service-principal -u %s -p %s --tenant %s' % (app, shq(M(pw), pw), tenant),
                jdump([{'cloudName': 'AzureCloud', 'homeTenantId': tenant, 'id': sub, 'isDefault': True, 'managedByTenants': [],
                        'name': pick(['Production', 'Platform-Dev', 'Identity-Shared']), 'state': 'Enabled', 'tenantId': tenant,
                        'user': {'name': app, 'type': 'servicePrincipal'}}]))
    row.say('Login works. I will put the JSON into the `AZURE_CREDENTIALS` repository secret and not into a file in the repo.')
    return row


@tpl('az_ad_app_credential_reset_warning', True)
def p_az_reset(c, lg):
    row = Row(c)
    app = uuid4()
    tenant = uuid4()
    pw = entra_secret()
    t = c.tick()
    disp = 'rotate-%s' % ymd(t)
    row.say('Adding a new client secret next to the old one so both work during the rollover.')
    row.run('az ad app credential reset --id %s --append --display-name %s --years 1' % (app, disp),
            ['The output includes credentials that you must protect. Be sure that you do not include these credentials in your code or check the credentials into your source control. For more information, see https://aka.ms/azadsp-cli']
            + jdump({'appId': app, 'password': M(pw), 'tenant': tenant}))
    rows_ = [['CustomKeyIdentifier', 'DisplayName', 'EndDateTime', 'Hint', 'KeyId', 'StartDateTime'],
             ['---------------------', '-------------', '----------------------------', '------', '------------------------------------', '----------------------------'],
             ['', disp, iso(t + 365 * 86400, 6), pw[:3], uuid4(), iso(t, 6)],
             ['', pick(['initial', 'ci', 'Password uploaded on %s' % ymd(t - 9000000)]), iso(t + 86400 * R.randint(5, 40), 6), rs(ALNUM, 3), uuid4(), iso(t - 86400 * 340, 6)]]
    row.run('az ad app credential list --id %s -o table' % app, aligned(rows_, gap=2))
    if chance(0.6):
        kid = entra_kid()
        at = entra_access(tenant, app, c.tick(), kid, roles=['User.Read.All', 'Group.Read.All'])
        row.run('az account get-access-token --resource https://graph.microsoft.com', jdump({
            'accessToken': M(at), 'expiresOn': sqlts(t + 3900) + '.000000', 'expires_on': t + 3900, 'subscription': uuid4(),
            'tenant': tenant, 'tokenType': 'Bearer'}))
    row.say('The `Hint` column shows only the first three characters of each secret; the old one expires soon and can be deleted after the deploy.')
    return row


@tpl('gcloud_sa_keys_create_cat_json', True)
def p_gcloud_key(c, lg):
    row = Row(c)
    proj = '%s-%s' % (c.org, pick(['prod', 'identity', 'platform', 'dev'])) + ('-%d' % R.randint(100000, 999999) if chance(0.5) else '')
    sa = '%s@%s.iam.gserviceaccount.com' % (pick(['deployer', 'workspace-sync', 'gam-admin', 'ci-runner', 'directory-reader']), proj)
    key = RSAKey()
    kid = hx(40)
    v = row.viewer(allow=('cat', 'catn', 'bat'))
    row.run('gcloud iam service-accounts keys create ./sa-key.json --iam-account=%s' % sa,
            ['created key [%s] of type [json] as [./sa-key.json] for [%s]' % (kid, sa)])
    cj = {'type': 'service_account', 'project_id': proj, 'private_key_id': kid, 'private_key': pem_json('PRIVATE KEY', key.pkcs8()),
          'client_email': sa, 'client_id': str(R.randint(10 ** 20, 10 ** 21 - 1)), 'auth_uri': 'https://accounts.google.com/o/oauth2/auth',
          'token_uri': 'https://oauth2.googleapis.com/token', 'auth_provider_x509_cert_url': 'https://www.googleapis.com/oauth2/v1/certs',
          'client_x509_cert_url': 'https://www.googleapis.com/robot/v1/metadata/x509/' + urlenc(sa), 'universe_domain': 'googleapis.com'}
    row.show(v, 'sa-key.json', jdump(cj))
    if chance(0.6):
        row.run('gcloud auth activate-service-account --key-file=sa-key.json', ['Activated service account credentials for: [%s]' % sa])
        tok = 'ya29.c.c0A' + rs(B64U, R.randint(600, 900))
        row.run('gcloud auth print-access-token', [M(tok)])
    row.say('The key works. Long-lived JSON keys are what we are moving away from; after the migration to workload identity federation I will delete key `%s`.' % kid[:12])
    return row


def vault_table(pairs):
    return aligned([['Key', 'Value'], ['---', '-----']] + [[k, v] for k, v in pairs], gap=4)


def sg_key():
    return fresh(lambda: 'SG.' + ''.join(R.choice(B64U) for _ in range(22)) + '.' + ''.join(R.choice(B64U) for _ in range(43)))


@tpl('gam_workspace_oauth_client_files', True)
def p_gam(c, lg):
    row = Row(c)
    cid = google_client_id()
    sec = gocspx()
    rt = google_refresh()
    at = ya29()
    admin = '%s@%s' % (pick(['admin', 'gam-admin', 'it-admin', c.user]), c.domain)
    gp = 'gam-project-%s' % rs(LALNUM, 5)
    scopes = ['https://www.googleapis.com/auth/admin.directory.user', 'https://www.googleapis.com/auth/admin.directory.group',
              'https://www.googleapis.com/auth/admin.directory.orgunit', 'https://www.googleapis.com/auth/admin.reports.audit.readonly',
              'https://www.googleapis.com/auth/apps.licensing', 'https://www.googleapis.com/auth/cloud-platform']
    scopes = scopes[:R.randint(3, 6)]
    row.say('Checking which OAuth client and scopes GAM is using for the directory sync.')
    row.run('gam oauth info', ['', 'Client ID: ' + cid, 'Secret: ' + M(sec), 'Scopes (%d):' % len(scopes)] + ['  ' + s for s in scopes]
            + ['Google Workspace Admin: ' + admin, 'Expires: ' + sqlts(c.t + 3000), ''])
    v = row.viewer(allow=('cat', 'catn'))
    if chance(0.5):
        row.show(v, '~/.gam/client_secrets.json', jdump({'installed': {'client_id': cid, 'project_id': gp, 'auth_uri': 'https://accounts.google.com/o/oauth2/auth',
                                                                      'token_uri': 'https://oauth2.googleapis.com/token', 'auth_provider_x509_cert_url': 'https://www.googleapis.com/oauth2/v1/certs',
                                                                      'client_secret': M(sec), 'redirect_uris': ['http://localhost']}}))
    row.run("jq '{token, refresh_token, client_id, client_secret, expiry, scopes: (.scopes | length)}' ~/.gam/oauth2.txt",
            jdump({'token': M(at), 'refresh_token': M(rt), 'client_id': cid, 'client_secret': M(sec),
                   'expiry': iso(c.t + 3000, 6), 'scopes': len(scopes)}))
    row.run('gam info domain | head -n 6', ['Customer ID: C0%s' % rs(LALNUM, 7), 'Primary Domain: ' + c.domain,
                                            'Customer Creation Time: %s' % iso(c.t - 86400 * R.randint(400, 3000), 3),
                                            'Primary Domain Verified: True', 'Default Language: en', 'Address:'])
    row.say('`oauth2.txt` holds a refresh token for a super-admin; the directory sync should use a service account with domain-wide delegation instead.')
    return row


@tpl('ory_hydra_create_client_table', True)
def p_hydra(c, lg):
    row = Row(c)
    cid = uuid4()
    sec = rs(ALNUM + '~._-', 26)
    scope = pick(['orders:read orders:write', 'reports:read', 'users:sync', 'billing'])
    ep_admin = pick(['http://127.0.0.1:4445', 'http://hydra-admin:4445', 'https://hydra-admin.%s' % c.domain])
    ep_pub = ep_admin.replace('4445', '4444').replace('hydra-admin', 'hydra')
    row.say('Registering a machine client in Hydra and fetching a token with it.')
    out = aligned([['CLIENT ID', cid], ['CLIENT SECRET', M(sec)], ['GRANT TYPES', 'client_credentials'], ['RESPONSE TYPES', 'token'],
                   ['SCOPE', scope], ['AUDIENCE', ''], ['REDIRECT URIS', '']], gap=2)
    row.run('hydra create client --endpoint %s --name %s --grant-type client_credentials --response-type token --scope "%s" --token-endpoint-auth-method client_secret_basic' % (
        ep_admin, pick(['reports-cron', 'orders-sync', 'billing-worker']), scope), out)
    at = ory_token('at')
    t = c.tick()
    row.run('hydra perform client-credentials --endpoint %s --client-id %s --client-secret %s' % (ep_pub, cid, shq(M(sec), sec)),
            aligned([['ACCESS TOKEN', M(at)], ['REFRESH TOKEN', '<empty>'], ['ID TOKEN', '<empty>'], ['EXPIRY', iso(t + 3599, 0, 'Z')]], gap=2))
    if chance(0.7):
        row.run('hydra introspect token --endpoint %s %s' % (ep_admin, M(at)),
                aligned([['ACTIVE', 'true'], ['SUBJECT', cid], ['CLIENT ID', cid], ['SCOPE', scope], ['EXPIRY', iso(t + 3599, 0, 'Z')],
                         ['TOKEN USE', 'access_token']], gap=2))
    row.say('The client and token work. I will pass `--format json` and keep only `client_id` when scripting this.')
    return row


@tpl('kratos_yml_secrets_cookie_cipher', True)
def p_kratos(c, lg):
    row = Row(c)
    v = row.viewer()
    dbpw = pw_safe()
    gcid, gsec = google_client_id(), gocspx()
    cookie = rs(ALNUM, pick([32, 48, 64]))
    cookie_old = rs(ALNUM, 32) if chance(0.5) else None
    cipher = rs(ALNUM, 32)
    smtp = sg_key() if chance(0.5) else None
    smtp_pw = pw_safe()
    lines = ['version: v1.2.0', '', 'dsn: postgres://kratos:%s@postgresd:5432/kratos?sslmode=disable&max_conns=20&max_idle_conns=4' % M(dbpw), '',
             'serve:', '  public:', '    base_url: https://auth.%s/' % c.domain, '    cors:', '      enabled: true', '  admin:', '    base_url: http://kratos:4434/', '',
             'selfservice:', '  default_browser_return_url: https://app.%s/' % c.domain, '  methods:', '    password:', '      enabled: true',
             '    totp:', '      config:', '        issuer: %s' % c.org.title(), '      enabled: true', '    webauthn:', '      config:',
             '        passwordless: true', '        rp:', '          display_name: %s' % c.org.title(), '          id: %s' % c.domain,
             '          origins:', '            - https://app.%s' % c.domain, '      enabled: true', '    oidc:', '      enabled: true', '      config:',
             '        providers:', '          - id: google', '            provider: google', '            client_id: %s' % gcid,
             '            client_secret: %s' % M(gsec), '            mapper_url: file:///etc/config/kratos/oidc.google.jsonnet',
             '            scope:', '              - email', '              - profile', '',
             'secrets:', '  cookie:', '    - %s' % M(cookie)] + (['    - %s' % M(cookie_old)] if cookie_old else []) + [
             '  cipher:', '    - %s' % M(cipher), '', 'ciphers:', '  algorithm: xchacha20-poly1305', '',
             'hashers:', '  algorithm: bcrypt', '  bcrypt:', '    cost: 12', '', 'courier:', '  smtp:',
             ('    connection_uri: smtps://apikey:%s@smtp.sendgrid.net:465/' % M(smtp)) if smtp else
             ('    connection_uri: smtps://kratos%%40%s:%s@smtp.%s:465/' % (c.domain, M(smtp_pw), c.domain)),
             '    from_address: no-reply@%s' % c.domain]
    row.say('Reading the Kratos config to check the cookie and cipher secrets before the upgrade.')
    row.show(v, 'deploy/kratos/kratos.yml', lines)
    row.run('kratos migrate sql -e --yes 2>&1 | tail -n 3', ['Applying migrations...', 'Successfully applied migrations!',
                                                              'Current status:'] if chance(0.5) else ['Successfully applied migrations!'])
    row.say('`secrets.cookie` is a list so old sessions survive rotation; the first entry signs. None of these should live in the repo — moving them to `SECRETS_COOKIE`, `SECRETS_CIPHER` and `DSN` env vars.')
    return row


@tpl('zitadel_machine_key_json_pat', True)
def p_zitadel(c, lg):
    row = Row(c)
    key = RSAKey()
    key_id = str(R.randint(10 ** 17, 10 ** 18 - 1))
    user_id = str(R.randint(10 ** 17, 10 ** 18 - 1))
    pat = rs(B64U, pick([71, 70, 72]))
    mk = rs(ALNUM, 32)
    admin_pw = pw_any()
    dbpw = pw_safe()
    v = row.viewer(allow=('cat',))
    row.say('Looking at what `start-from-init` wrote for the machine users.')
    row.run('ls -l machinekey/', ['total 8', '-rw------- 1 %s %s  %d %s %2d %s zitadel-admin-sa.json' % (c.user, c.user, R.randint(1700, 1800), MONTHS[civil(c.t)[1] - 1], civil(c.t)[2], hms(c.t)[:5]),
                                  '-rw------- 1 %s %s    %d %s %2d %s admin.pat' % (c.user, c.user, len(pat) + 1, MONTHS[civil(c.t)[1] - 1], civil(c.t)[2], hms(c.t)[:5])])
    row.show(v, 'machinekey/zitadel-admin-sa.json', [json.dumps({'type': 'serviceaccount', 'keyId': key_id, 'key': pem_json('RSA PRIVATE KEY', key.pkcs1()),
                                                                 'expirationDate': iso(c.t + 86400 * 365 * 10, 9), 'userId': user_id}, separators=(',', ':'))])
    row.run('cat machinekey/admin.pat', [M(pat)])
    if chance(0.7):
        lines = ['services:', '  zitadel:', '    image: ghcr.io/zitadel/zitadel:v2.%d.%d' % (R.randint(50, 66), R.randint(0, 9)),
                 "    command: 'start-from-init --masterkey \"%s\" --tlsMode external'" % M(mk), '    environment:',
                 "      ZITADEL_DATABASE_POSTGRES_HOST: db", "      ZITADEL_DATABASE_POSTGRES_USER_PASSWORD: %s" % M(dbpw),
                 "      ZITADEL_DATABASE_POSTGRES_ADMIN_PASSWORD: %s" % M(dbpw), "      ZITADEL_EXTERNALDOMAIN: id.%s" % c.domain,
                 "      ZITADEL_FIRSTINSTANCE_ORG_HUMAN_USERNAME: admin", "      ZITADEL_FIRSTINSTANCE_ORG_HUMAN_PASSWORD: '%s'" % M(admin_pw),
                 "      ZITADEL_FIRSTINSTANCE_MACHINEKEYPATH: /machinekey/zitadel-admin-sa.json",
                 "      ZITADEL_FIRSTINSTANCE_PATPATH: /machinekey/admin.pat"]
        row.run("sed -n '1,14p' docker-compose.yml", lines)
    row.run('curl -s -H "Authorization: Bearer %s" https://id.%s/management/v1/orgs/me | jq .org.id' % (M(pat), c.domain), ['"%d"' % R.randint(10 ** 17, 10 ** 18 - 1)])
    return row


@tpl('authentik_env_bootstrap_compose', True)
def p_authentik(c, lg):
    row = Row(c)
    pg = pw_b64(36)
    sk = pw_b64(60)
    boot_pw = pw_any()
    boot_tok = rs(ALNUM, 64)
    email_pw = pw_safe()
    row.say('Generating the authentik secrets and checking the rendered compose file.')
    row.run('echo "PG_PASS=$(openssl rand -base64 36 | tr -d \'\\n\')" >> .env', [])
    row.run('echo "AUTHENTIK_SECRET_KEY=$(openssl rand -base64 60 | tr -d \'\\n\')" >> .env', [])
    env = ['PG_PASS=' + M(pg), 'AUTHENTIK_SECRET_KEY=' + M(sk), 'AUTHENTIK_ERROR_REPORTING__ENABLED=true',
           'AUTHENTIK_BOOTSTRAP_PASSWORD=' + M(boot_pw), 'AUTHENTIK_BOOTSTRAP_TOKEN=' + M(boot_tok), 'AUTHENTIK_BOOTSTRAP_EMAIL=admin@' + c.domain,
           'AUTHENTIK_EMAIL__HOST=smtp.' + c.domain, 'AUTHENTIK_EMAIL__PORT=587', 'AUTHENTIK_EMAIL__USERNAME=authentik@' + c.domain,
           'AUTHENTIK_EMAIL__PASSWORD=' + M(email_pw), 'AUTHENTIK_EMAIL__USE_TLS=true', 'COMPOSE_PORT_HTTP=9000', 'COMPOSE_PORT_HTTPS=9443']
    if chance(0.4) and row.style in PROMPT_STYLES + ['codex_exec']:
        row.run('cat -A .env', [cat_A(l) for l in env])
    else:
        row.show(row.viewer(allow=('cat', 'catn')), '.env', env)
    ver = '2024.%d.%d' % (R.randint(4, 12), R.randint(0, 4))
    common = ['      AUTHENTIK_POSTGRESQL__HOST: postgresql', '      AUTHENTIK_POSTGRESQL__NAME: authentik',
              '      AUTHENTIK_POSTGRESQL__PASSWORD: ' + M(pg), '      AUTHENTIK_POSTGRESQL__USER: authentik',
              '      AUTHENTIK_REDIS__HOST: redis', '      AUTHENTIK_SECRET_KEY: ' + M(sk)]
    cfg = ['name: authentik', 'services:', '  postgresql:', '    environment:', '      POSTGRES_DB: authentik',
           '      POSTGRES_PASSWORD: ' + M(pg), '      POSTGRES_USER: authentik', '    image: docker.io/library/postgres:16-alpine',
           '  server:', '    command:', '      - server', '    environment:'] + common + [
           '    image: ghcr.io/goauthentik/server:' + ver, '    ports:', '      - mode: ingress', '        target: 9000',
           '        published: "9000"', '        protocol: tcp', '  worker:', '    command:', '      - worker', '    environment:'] + common + [
           '    image: ghcr.io/goauthentik/server:' + ver, '    user: root']
    row.run('docker compose config | sed -n \'1,%dp\'' % len(cfg), cfg)
    row.say('The secret key and database password appear in every service block of the rendered config, so the rendered output must not be pasted into tickets.')
    return row


@tpl('dex_config_static_clients_connectors', True)
def p_dex(c, lg):
    row = Row(c)
    dbpw = pw_safe()
    bindpw = pw_any()
    ghid, ghsec = gh_client_id(), gh_oauth_secret()
    clients = [(pick(['argo-cd', 'grafana', 'kubectl', 'harbor']), rs(ALNUM, pick([24, 32])))]
    clients.append((pick(['oauth2-proxy', 'minio', 'gitea', 'backstage']), b64u(rbytes(24))))
    dc = 'dc=' + c.org + ',dc=' + c.tld
    admin_hash = bcrypt_hash(10, '2a')
    lines = ['issuer: https://dex.%s/dex' % c.domain, 'storage:', '  type: postgres', '  config:', '    host: postgres.dex.svc',
             '    port: 5432', '    database: dex', '    user: dex', '    password: %s' % M(dbpw), '    ssl:', '      mode: require',
             'web:', '  http: 0.0.0.0:5556', 'connectors:', '- type: ldap', '  id: ldap', '  name: %s LDAP' % c.org.title(), '  config:',
             '    host: ldap.%s:636' % c.domain, '    rootCA: /etc/dex/ldap-ca.pem', '    bindDN: cn=dex,ou=services,' + dc,
             "    bindPW: '%s'" % M(bindpw), '    usernamePrompt: Email Address', '    userSearch:', '      baseDN: ou=people,' + dc,
             '      filter: "(objectClass=inetOrgPerson)"', '      username: mail', '      idAttr: uid', '      emailAttr: mail', '      nameAttr: cn',
             '    groupSearch:', '      baseDN: ou=groups,' + dc, '      filter: "(objectClass=groupOfNames)"', '      userMatchers:',
             '      - userAttr: DN', '        groupAttr: member', '      nameAttr: cn', '- type: github', '  id: github', '  name: GitHub',
             '  config:', '    clientID: ' + ghid, '    clientSecret: ' + M(ghsec), '    redirectURI: https://dex.%s/dex/callback' % c.domain,
             '    orgs:', '    - name: ' + c.org, 'staticClients:']
    for cid, sec in clients:
        lines += ['- id: ' + cid, '  name: %s' % cid.replace('-', ' ').title(), '  secret: ' + M(sec), '  redirectURIs:',
                  '  - https://%s.%s/auth/callback' % (cid.split('-')[0], c.domain)]
    lines += ['enablePasswordDB: true', 'staticPasswords:', '- email: admin@' + c.domain, '  hash: "%s"' % admin_hash, '  username: admin',
              '  userID: "%s"' % uuid4()]
    row.say('Dumping the Dex config from the secret to see why the LDAP connector fails to bind.')
    row.run("kubectl -n dex get secret dex-config -o jsonpath='{.data.config\\.yaml}' | base64 -d", lines)
    row.say('The bind DN is right; the LDAP server rejects the CA. The `staticPasswords` hash is bcrypt, but the bind password, GitHub secret and client secrets are in clear in this Secret.')
    return row


@tpl('casdoor_app_conf_init_data', True)
def p_casdoor(c, lg):
    row = Row(c)
    dbpw = pw_safe()
    radius = pw_gen(16)
    key = RSAKey()
    cert = Cert('Casdoor Cert', o='Casdoor Organization', key=key, days=7300)
    apps = [(pick(['app-built-in', 'app-' + c.proj]), hx(20), hx(40)), ('app-' + pick(['portal', 'crm', 'wiki']), hx(20), hx(40))]
    conf = ['appname = casdoor', 'httpport = 8000', 'runmode = %s' % pick(['dev', 'prod']), 'copyrequestbody = true', 'driverName = mysql',
            'dataSourceName = casdoor:%s@tcp(mysql:3306)/' % M(dbpw), 'dbName = casdoor', 'tableNamePrefix =', 'showSql = false',
            'redisEndpoint =', 'defaultStorageProvider =', 'isCloudIntranet = false', 'authState = "casdoor"', 'socks5Proxy =',
            'verificationCodeTimeout = 10', 'initScore = 0', 'logPostOnly = true', 'isUsernameLowered = false', 'origin = https://door.%s' % c.domain,
            'staticBaseUrl = "https://cdn.casbin.org"', 'isDemoMode = false', 'batchSize = 100', 'ldapServerPort = 389',
            'radiusServerPort = 1812', 'radiusSecret = "%s"' % M(radius), 'quota = {"organization": -1, "user": -1, "application": -1, "provider": -1}',
            'logConfig = {"filename": "logs/casdoor.log", "maxdays":99999, "perm":"0770"}', 'initDataFile = "./init_data.json"']
    v = row.viewer()
    row.say('Checking the Casdoor config and seed data.')
    row.show(v, 'conf/app.conf', conf)
    row.run("jq '.applications[] | {name, clientId, clientSecret}' init_data.json", sum((jdump({'name': n, 'clientId': i, 'clientSecret': M(s)}) for n, i, s in apps), []))
    row.run("jq '.certs[0] | {name, type, cryptoAlgorithm, bitSize, certificate: .certificate[0:64], privateKey}' init_data.json",
            jdump({'name': 'cert-built-in', 'type': 'x509', 'cryptoAlgorithm': 'RS256', 'bitSize': 2048,
                   'certificate': '-----BEGIN CERTIFICATE-----\n' + cert.b64[:36], 'privateKey': pem_json('RSA PRIVATE KEY', key.pkcs1())}))
    return row


@tpl('fusionauth_kickstart_api_key_curl', True)
def p_fusionauth(c, lg):
    row = Row(c)
    api = rs(B64U, 44)
    csec = rs(B64U, 43)
    adm = pw_any()
    dbpw = pw_safe()
    app_id = uuid4()
    ks = {'variables': {'apiKey': M(api), 'asymmetricKeyId': '#{UUID()}', 'applicationId': app_id, 'clientSecret': M(csec),
                        'defaultTenantId': uuid4(), 'adminEmail': 'admin@' + c.domain, 'adminPassword': M(adm)},
          'apiKeys': [{'key': '#{apiKey}', 'description': 'Unrestricted API key'}],
          'requests': [{'method': 'POST', 'url': '/api/key/generate/#{asymmetricKeyId}',
                        'body': {'key': {'algorithm': 'RS256', 'name': 'For %s' % c.proj, 'length': 2048}}},
                       {'method': 'POST', 'url': '/api/application/#{applicationId}',
                        'body': {'application': {'name': c.proj, 'oauthConfiguration': {'clientSecret': '#{clientSecret}',
                                                                                         'authorizedRedirectURLs': ['http://localhost:3000/oauth-redirect']},
                                                 'jwtConfiguration': {'enabled': True, 'accessTokenKeyId': '#{asymmetricKeyId}'}}}}]}
    v = row.viewer(allow=('cat', 'catn', 'bat'))
    row.say('The kickstart file seeds FusionAuth; checking it and the API key it creates.')
    row.show(v, 'kickstart/kickstart.json', jdump(ks))
    if chance(0.6):
        row.run('grep -E "PASSWORD|KICKSTART" .env', ['POSTGRES_PASSWORD=' + M(dbpw), 'DATABASE_PASSWORD=' + M(dbpw),
                                                     'FUSIONAUTH_APP_KICKSTART_FILE=/usr/local/fusionauth/kickstart/kickstart.json'])
    row.run('curl -s -H "Authorization: %s" http://localhost:9011/api/application/%s | jq \'.application | {id, name, oauthConfiguration: {clientId: .oauthConfiguration.clientId, clientSecret: .oauthConfiguration.clientSecret}}\'' % (M(api), app_id),
            jdump({'id': app_id, 'name': c.proj, 'oauthConfiguration': {'clientId': app_id, 'clientSecret': M(csec)}}))
    row.say('FusionAuth takes the raw API key in `Authorization` with no scheme. The kickstart file carries the key, client secret and admin password in clear; they should come from env with `#{ENV.…}`.')
    return row


@tpl('vault_approle_login_secret_id', True)
def p_vault_approle(c, lg):
    row = Row(c)
    role = pick(['ci-deployer', 'webapp', 'billing-worker', 'ldap-sync', c.proj])
    rid = uuid4()
    sid = uuid4()
    sacc = uuid4()
    tok = hvs()
    tacc = vault_accessor()
    row.say('Setting up AppRole for the deploy job.')
    row.run('vault read auth/approle/role/%s/role-id' % role, vault_table([('role_id', rid)]))
    row.run('vault write -f auth/approle/role/%s/secret-id' % role, vault_table([('secret_id', M(sid)), ('secret_id_accessor', sacc),
                                                                                  ('secret_id_num_uses', '0'), ('secret_id_ttl', pick(['24h', '10m', '768h']))]))
    row.run('vault write auth/approle/login role_id=%s secret_id=%s' % (rid, M(sid)), vault_table([
        ('token', M(tok)), ('token_accessor', tacc), ('token_duration', pick(['1h', '20m', '4h'])), ('token_renewable', 'true'),
        ('token_policies', '["default" "%s"]' % role), ('identity_policies', '[]'), ('policies', '["default" "%s"]' % role),
        ('token_meta_role_name', role)]))
    if chance(0.6):
        row.run('VAULT_TOKEN=%s vault kv get -field=username secret/%s/db' % (M(tok), role), [pick(['app', 'svc_' + role.replace('-', '_'), 'deploy'])])
    row.say('AppRole login works. The `role_id` can go into the job config; the `secret_id` must be wrapped (`-wrap-ttl=60s`) and delivered separately.')
    return row


@tpl('vault_userpass_login_token_helper', True)
def p_vault_userpass(c, lg):
    row = Row(c)
    user = c.user
    pw = pw_any()
    tok = hvs()
    acc = vault_accessor()
    t = c.tick()
    pol = pick(['dev-read', 'platform', 'oncall', 'db-admin'])
    row.run('vault login -method=userpass username=%s password=%s' % (user, shq(M(pw), pw)), [
        'Success! You are now authenticated. The token information displayed below', 'is already stored in the token helper. You do NOT need to run "vault login"',
        'again. Future Vault requests will automatically use this token.', ''] + vault_table([
        ('token', M(tok)), ('token_accessor', acc), ('token_duration', '768h'), ('token_renewable', 'true'),
        ('token_policies', '["default" "%s"]' % pol), ('identity_policies', '[]'), ('policies', '["default" "%s"]' % pol), ('token_meta_username', user)]))
    if chance(0.5):
        row.run('cat ~/.vault-token; echo', [M(tok)])
    row.run('vault token lookup', vault_table([('accessor', acc), ('creation_time', str(t)), ('creation_ttl', '768h'),
                                               ('display_name', 'userpass-' + user), ('entity_id', uuid4()),
                                               ('expire_time', iso(t + 768 * 3600, 9).replace('Z', '+00:00')), ('explicit_max_ttl', '0s'),
                                               ('id', M(tok)), ('issue_time', iso(t, 9).replace('Z', '+00:00')), ('meta', 'map[username:%s]' % user),
                                               ('num_uses', '0'), ('orphan', 'true'), ('path', 'auth/userpass/login/' + user),
                                               ('policies', '[default %s]' % pol), ('renewable', 'true'), ('ttl', '767h59m%ds' % R.randint(10, 59)), ('type', 'service')]))
    row.say('The password went into shell history because it was passed on the command line. Logging in with `-method=userpass username=%s` (prompting) from now on and clearing that history entry.' % user)
    return row


@tpl('vault_jwt_k8s_auth_config_write', True)
def p_vault_k8s(c, lg):
    row = Row(c)
    t = c.tick()
    kid = kid43()
    reviewer = k8s_sa_token('vault', 'vault-auth', t, kid, legacy=chance(0.4))
    api = 'https://%s:443' % ipv4_private()
    row.say('Configuring the Kubernetes auth method; tracing the script to see what it sends.')
    trace = ['+ vault auth enable kubernetes', 'Success! Enabled kubernetes auth method at: kubernetes/',
             "+ kubectl -n vault create token vault-auth --duration=8760h", M(reviewer),
             "+ vault write auth/kubernetes/config 'token_reviewer_jwt=%s' kubernetes_host=%s kubernetes_ca_cert=@/tmp/k8s-ca.crt" % (M(reviewer), api),
             'Success! Data written to: auth/kubernetes/config',
             '+ vault write auth/kubernetes/role/%s bound_service_account_names=%s bound_service_account_namespaces=%s policies=%s ttl=1h' % (c.proj, c.proj, pick(['apps', 'default', 'prod']), c.proj),
             'Success! Data written to: auth/kubernetes/role/%s' % c.proj]
    row.run('bash -x scripts/vault-k8s-auth.sh', trace)
    if chance(0.5):
        ns = pick(['apps', 'default', 'prod'])
        podjwt = k8s_sa_token(ns, c.proj, c.tick(), kid, aud=['vault'], bound_pod='%s-%s' % (c.proj, rs(POD_ALPHA, 5)))
        tok = hvs()
        row.run('vault write auth/kubernetes/login role=%s jwt=%s' % (c.proj, M(podjwt)), vault_table([
            ('token', M(tok)), ('token_accessor', vault_accessor()), ('token_duration', '1h'), ('token_renewable', 'true'),
            ('token_policies', '["default" "%s"]' % c.proj), ('identity_policies', '[]'), ('policies', '["default" "%s"]' % c.proj),
            ('token_meta_role', c.proj), ('token_meta_service_account_name', c.proj), ('token_meta_service_account_namespace', ns),
            ('token_meta_service_account_uid', uuid4()), ('token_meta_service_account_secret_name', '')]))
    else:
        org, repo = c.org, c.proj
        gj = gha_oidc(org, repo, c.tick(), aud='https://vault.%s' % c.domain)
        tok = hvs()
        row.run('vault write auth/jwt/login role=gha-%s jwt=%s' % (repo, M(gj)), vault_table([
            ('token', M(tok)), ('token_accessor', vault_accessor()), ('token_duration', '10m'), ('token_renewable', 'true'),
            ('token_policies', '["default" "gha-%s"]' % repo), ('identity_policies', '[]'), ('policies', '["default" "gha-%s"]' % repo),
            ('token_meta_role', 'gha-' + repo)]))
    row.say('Auth works end to end. The reviewer token was minted for a year and printed by xtrace; I will use a short-lived token and `set +x` around it.')
    return row


@tpl('vault_agent_sink_token_hcl', True)
def p_vault_agent(c, lg):
    row = Row(c)
    rid, sid = uuid4(), uuid4()
    tok = hvs()
    row.root = chance(0.4) and row.style in PROMPT_STYLES
    hcl = ['pid_file = "/run/vault/agent.pid"', '', 'vault {', '  address = "https://vault.%s:8200"' % c.domain, '}', '', 'auto_auth {',
           '  method "approle" {', '    mount_path = "auth/approle"', '    config = {', '      role_id_file_path   = "/etc/vault/role-id"',
           '      secret_id_file_path = "/etc/vault/secret-id"', '      remove_secret_id_file_after_reading = false', '    }', '  }', '',
           '  sink "file" {', '    config = {', '      path = "/run/vault/.vault-token"', '      mode = 0640', '    }', '  }', '}', '',
           'template {', '  source      = "/etc/vault/templates/app.env.ctmpl"', '  destination = "/run/app/app.env"', '}']
    v = row.viewer()
    row.show(v, '/etc/vault/agent.hcl', hcl)
    row.run('sudo cat /etc/vault/role-id /etc/vault/secret-id', [rid, M(sid)])
    t = c.tick()
    host = c.host
    logs = []
    vpid = R.randint(800, 9000)
    for msg in ['[INFO]  agent.auth.handler: starting auth handler', '[INFO]  agent.auth.handler: authenticating',
                '[INFO]  agent.auth.handler: authentication successful, sending token to sinks', '[INFO]  agent.sink.file: token written: path=/run/vault/.vault-token',
                '[INFO]  agent.auth.handler: starting renewal process', '[INFO]  agent.template.server: starting template server',
                '[INFO]  (runner) rendered "/etc/vault/templates/app.env.ctmpl" => "/run/app/app.env"',
                '[INFO]  agent.auth.handler: renewed auth token']:
        t += R.randint(0, 2)
        logs.append('%s %s vault[%d]: %s %s' % (syslogts(t), host, vpid, iso(t, 3), msg))
    row.run('journalctl -u vault-agent --since "10 min ago" --no-pager | tail -n %d' % len(logs), logs)
    row.run('sudo cat /run/vault/.vault-token; echo', [M(tok)])
    row.say('The agent authenticates and renews. Because `remove_secret_id_file_after_reading = false`, the secret-id stays on disk; switching to response-wrapped delivery.')
    return row


@tpl('kong_key_auth_consumer_credentials', True)
def p_kong(c, lg):
    row = Row(c)
    cons = pick(['partner-%s' % pick(ORGS), 'mobile-app', 'reports-cron', 'acme-integration'])
    key = rs(ALNUM, 32)
    bpw = pw_safe()
    cid = uuid4()
    t = c.tick()
    admin = pick(['http://localhost:8001', 'http://kong-admin:8001', 'https://kong-admin.%s' % c.domain])
    proxy = pick(['http://localhost:8000', 'https://api.%s' % c.domain])
    row.run('curl -s -X POST %s/consumers --data username=%s | jq' % (admin, cons),
            jdump({'custom_id': None, 'created_at': t, 'id': cid, 'tags': None, 'username': cons, 'updated_at': t, 'type': 0}))
    row.run('curl -s -X POST %s/consumers/%s/key-auth | jq' % (admin, cons),
            jdump({'id': uuid4(), 'ttl': None, 'created_at': t + 1, 'key': M(key), 'consumer': {'id': cid}, 'tags': None}))
    row.run("curl -si %s/orders/v1/health -H 'apikey: %s'" % (proxy, M(key)),
            ['HTTP/1.1 200 OK', 'Content-Type: application/json', 'Content-Length: 15', 'Connection: keep-alive',
             'X-RateLimit-Limit-Minute: 60', 'X-RateLimit-Remaining-Minute: 59', 'RateLimit-Limit: 60', 'RateLimit-Remaining: 59',
             'RateLimit-Reset: %d' % R.randint(1, 59), 'X-Kong-Upstream-Latency: %d' % R.randint(2, 90), 'X-Kong-Proxy-Latency: %d' % R.randint(0, 4),
             'Via: 1.1 kong/3.%d.%d' % (R.randint(4, 8), R.randint(0, 2)), 'X-Kong-Request-Id: ' + hx(32), '', '{"status":"ok"}'])
    if chance(0.6):
        row.run('curl -s -X POST %s/consumers/%s/basic-auth --data username=%s-sync --data password=%s | jq' % (admin, cons, cons, M(bpw)),
                jdump({'id': uuid4(), 'username': cons + '-sync', 'password': hx(40), 'consumer': {'id': cid}, 'created_at': t + 2, 'tags': None}))
        row.say('Kong stores the basic-auth password as a salted SHA-1, which is what the response shows; the key-auth key is returned in clear once.')
    return row


@tpl('tyk_gateway_conf_keys_create', True)
def p_tyk(c, lg):
    row = Row(c)
    sec = pick([pw_gen, lambda: hx(32), pw_phrase])()
    node = rs(ALNUM, 32)
    org = hx(24)
    key = org + hx(32)
    api_id = hx(32)
    hashed = pick(['murmur64', 'sha256'])
    conf = {'listen_port': 8080, 'secret': M(sec), 'node_secret': M(node), 'template_path': '/opt/tyk-gateway/templates',
            'use_db_app_configs': False, 'app_path': '/opt/tyk-gateway/apps', 'storage': {'type': 'redis', 'host': 'tyk-redis', 'port': 6379,
                                                                                        'username': '', 'password': '', 'database': 0},
            'enable_analytics': False, 'hash_keys': True, 'hash_key_function': hashed, 'enable_hashed_keys_listing': True}
    v = row.viewer(allow=('cat', 'catn'))
    row.show(v, 'tyk/tyk.conf', jdump(conf, indent=4 if chance(0.5) else 2))
    body = jcompact({'alias': 'partner-' + pick(ORGS), 'expires': -1, 'access_rights': {api_id: {'api_id': api_id, 'api_name': 'orders', 'versions': ['Default']}}})
    row.run("curl -s -X POST http://localhost:8080/tyk/keys/create -H 'x-tyk-authorization: %s' -H 'Content-Type: application/json' -d '%s' | jq" % (M(sec), body),
            jdump({'key': M(key), 'status': 'ok', 'action': 'added', 'key_hash': hx(16) if hashed == 'murmur64' else hx(64)}))
    row.run("curl -s -o /dev/null -w '%%{http_code}\\n' -H 'Authorization: %s' http://localhost:8080/orders/health" % M(key), ['200'])
    row.say('The gateway secret in `tyk.conf` is the admin credential for `/tyk/*`; it should come from `TYK_GW_SECRET`. Listings only show `key_hash`, the key itself is shown once here.')
    return row


@tpl('krakend_json_jose_signer_jwk', True)
def p_krakend(c, lg):
    row = Row(c)
    k1 = b64u(rbytes(pick([32, 48, 64])))
    rsa = RSAKey()
    kid_rsa = pick(['rsa-%s' % ymd(c.t), 'sig-1', 'kd-%d' % R.randint(1, 9)])
    keys = {'keys': [{'kty': 'oct', 'alg': 'HS256', 'k': M(k1), 'kid': 'sim2'}, rsa.jwk_private(kid_rsa)]}
    cfg_ep = {'endpoint': '/token', 'method': 'POST', 'backend': [{'url_pattern': '/login', 'host': ['http://auth-svc:8080']}],
              'extra_config': {'auth/signer': {'alg': pick(['HS256', 'RS256']), 'kid': 'sim2', 'keys_to_sign': ['access_token', 'refresh_token'],
                                               'jwk_local_path': './jwk_private_key.json', 'disable_jwk_security': True}}}
    row.say('Reviewing the token-signing endpoint and the local JWK file it reads.')
    row.run("jq '.endpoints[] | select(.endpoint == \"/token\")' krakend.json", jdump(cfg_ep, indent=2))
    v = row.viewer(allow=('cat', 'catn', 'bat'))
    row.show(v, 'jwk_private_key.json', jdump(keys))
    row.say('The file holds an HMAC key (`k`) and an RSA private JWK (`d`, `p`, `q`, `dp`, `dq`, `qi`); the public `n`/`e` can be published, the rest must move to a secret mount.')
    return row


@tpl('apigee_apps_get_credentials', True)
def p_apigee(c, lg):
    row = Row(c)
    ck = rs(ALNUM, 48)
    cs = rs(ALNUM, 64)
    org = '%s-%s' % (c.org, pick(['apigee', 'api', 'prod']))
    t = c.tick()
    app = {'appId': uuid4(), 'attributes': [{'name': 'DisplayName', 'value': 'Partner Portal'}, {'name': 'Notes', 'value': 'ticket SEC-%d' % R.randint(100, 9999)}],
           'callbackUrl': 'https://partner.%s/callback' % c.domain, 'createdAt': str(t * 1000 - R.randint(10 ** 8, 10 ** 10)),
           'credentials': [{'apiProducts': [{'apiproduct': 'orders-v1', 'status': 'approved'}], 'consumerKey': M(ck), 'consumerSecret': M(cs),
                            'expiresAt': '-1', 'issuedAt': str(t * 1000 - R.randint(10 ** 8, 10 ** 10)), 'status': 'approved'}],
           'developerId': uuid4(), 'lastModifiedAt': str(t * 1000), 'name': 'partner-portal', 'status': 'approved'}
    row.run('apigeecli apps get --name partner-portal --org %s --default-token' % org, jdump(app))
    host = 'api.%s' % c.domain
    row.run("curl -s -H 'x-apikey: %s' https://%s/orders/v1/ping" % (M(ck), host), ['{"pong":true,"product":"orders-v1"}'])
    at = rs(ALNUM, 28)
    row.run('curl -s -u %s:%s -d grant_type=client_credentials https://%s/oauth/v2/token | jq \'{access_token, expires_in, status}\'' % (M(ck), M(cs), host),
            jdump({'access_token': M(at), 'expires_in': '1799', 'status': 'approved'}))
    row.say('The consumer key alone passes `VerifyAPIKey`, so it is as sensitive as the secret here.')
    return row


def aws_table(title, rows_):
    ws = [max(dw(r[i]) for r in rows_) for i in range(len(rows_[0]))]
    inner = sum(w + 4 for w in ws) + len(ws) - 1
    tw = max(inner, dw(title) + 4)
    out = ['-' * (tw + 2), '|' + title.center(tw) + '|', '+' + '+'.join('-' * (w + 4) for w in ws) + '+']
    for r in rows_:
        out.append('|' + '|'.join('  ' + pad(x, w) + '  ' for x, w in zip(r, ws)) + '|')
    out.append('+' + '+'.join('-' * (w + 4) for w in ws) + '+')
    return out


@tpl('aws_apigateway_api_keys_include_values', True)
def p_apigw(c, lg):
    row = Row(c)
    t = c.tick()
    kid = rs(LALNUM, 10)
    val = rs(ALNUM, 40)
    name = 'partner-%s' % pick(ORGS)
    plan = rs(LALNUM, 6)
    row.run('aws apigateway create-api-key --name %s --enabled' % name,
            jdump({'id': kid, 'value': M(val), 'name': name, 'enabled': True, 'createdDate': iso(t, 0, '+00:00'),
                   'lastUpdatedDate': iso(t, 0, '+00:00'), 'stageKeys': []}, indent=4))
    row.run('aws apigateway create-usage-plan-key --usage-plan-id %s --key-id %s --key-type API_KEY' % (plan, kid),
            jdump({'id': kid, 'type': 'API_KEY', 'value': M(val), 'name': name}, indent=4))
    others = [[pick(['mobile-ios', 'mobile-android', 'internal-dash', 'legacy-b2b']), rs(LALNUM, 10), M(rs(ALNUM, 40))] for _ in range(R.randint(1, 3))]
    row.run("aws apigateway get-api-keys --include-values --query 'items[].[name,id,value]' --output table",
            aws_table('GetApiKeys', [[name, kid, M(val)]] + others))
    api = rs(LALNUM, 10)
    row.run("curl -s -H 'x-api-key: %s' https://%s.execute-api.%s.amazonaws.com/prod/orders | jq length" % (M(val), api, pick(['us-east-1', 'eu-west-1', 'ap-northeast-1'])),
            [str(R.randint(0, 50))])
    row.say('`--include-values` prints every key in the account; I will query by `--name-query` next time.')
    return row


@tpl('mtls_client_cert_openssl_p12', True)
def p_mtls(c, lg):
    row = Row(c, contig=chance(0.4))
    key = ECKey()
    cn = pick(['svc-orders', 'billing-worker', 'edge-proxy', 'device-%d' % R.randint(1000, 9999)])
    cert = Cert(cn, issuer_cn='%s Internal CA' % c.org.title(), o=c.org.title(), key=key, days=90)
    p12pw = pw_safe()
    v = row.viewer(allow=('cat',))
    pl = row.vpl(v)
    row.say('Creating a client certificate for the mTLS-protected API.')
    row.run('openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out client.key && cat client.key', pem_lines('PRIVATE KEY', key.pkcs8(), pl))
    row.run('openssl req -new -key client.key -subj "/O=%s/CN=%s" -out client.csr' % (c.org.title(), cn), [])
    row.run('openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 90 -sha256 -out client.crt',
            ['Certificate request self-signature ok', 'subject=O = %s, CN = %s' % (c.org.title(), cn)])
    row.run('openssl pkcs12 -export -in client.crt -inkey client.key -certfile ca.crt -name %s -out client.p12 -passout pass:%s' % (cn, M(p12pw)), [])
    host = 'mtls.%s' % c.domain
    row.run("curl -s --cert-type P12 --cert client.p12:%s https://%s/v1/whoami | jq" % (M(p12pw), host),
            jdump({'subject': 'CN=%s,O=%s' % (cn, c.org.title()), 'serial': cert.serial_hex().replace(':', '').upper(),
                   'fingerprint_sha256': cert.fp(sep=''), 'verified': True}))
    row.say('The server sees the client certificate. The `.p12` password went into shell history; it should come from `-passout env:P12_PASS`.')
    return row


@tpl('envoy_sds_inline_private_key_yaml', True)
def p_envoy(c, lg):
    row = Row(c)
    key = ECKey() if chance(0.6) else RSAKey()
    host = 'api.%s' % c.domain
    cert = Cert(host, key=key, days=90)
    tok_sec = b64(rbytes(32))
    hmac_sec = b64(rbytes(32))
    ind = '                  '
    lab = 'EC PRIVATE KEY' if isinstance(key, ECKey) else 'RSA PRIVATE KEY'
    der = key.sec1() if isinstance(key, ECKey) else key.pkcs1()
    lines = ['static_resources:', '  secrets:', '  - name: token', '    generic_secret:', '      secret:', '        inline_string: "%s"' % M(tok_sec),
             '  - name: hmac', '    generic_secret:', '      secret:', '        inline_string: "%s"' % M(hmac_sec),
             '  listeners:', '  - name: https', '    address:', '      socket_address: { address: 0.0.0.0, port_value: 8443 }',
             '    filter_chains:', '    - transport_socket:', '        name: envoy.transport_sockets.tls', '        typed_config:',
             '          "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext',
             '          require_client_certificate: true', '          common_tls_context:', '            tls_certificates:',
             '            - certificate_chain:', '                inline_string: |']
    lines += [ind + l for l in cert.pem()]
    lines += ['              private_key:', '                inline_string: |']
    lines += [ind + l for l in pem_lines(lab, der, True)]
    lines += ['            validation_context:', '              trusted_ca:', '                filename: /etc/envoy/client-ca.crt',
              '              match_typed_subject_alt_names:', '              - san_type: URI', '                matcher:',
              '                  prefix: spiffe://%s/' % c.domain]
    v = row.viewer()
    row.say('Reading the Envoy bootstrap to see how the listener gets its certificate.')
    row.show(v, 'deploy/envoy/envoy.yaml', lines)
    row.say('The listener key and the OAuth2 filter token/HMAC secrets are inline in the bootstrap. They should be SDS secrets from files (`sds_config: path_config_source`).')
    return row


def step_password():
    alpha = ''.join(chr(i) for i in range(33, 127) if chr(i) not in '\'"`\\')

    def g():
        while True:
            s = ''.join(R.choice(alpha) for _ in range(32))
            if s[0] not in SYMS and s[-1] not in SYMS:
                return s
    return fresh(g)


@tpl('step_ca_init_generated_password', True)
def p_step_init(c, lg):
    row = Row(c)
    pw = step_password()
    home = c.home + '/.step'
    root = Cert('%s Root CA' % c.org.title(), ca=True, days=3650, ec=True)
    fp = hashlib.sha256(root.der).hexdigest()
    prov = 'admin@' + c.domain
    out = ["✔ Deployment Type: Standalone", "What would you like to name your new PKI?", "✔ (e.g. Smallstep): %s Internal" % c.org.title(),
           "What DNS names or IP addresses will clients use to reach your CA?", "✔ (e.g. ca.example.com[,10.1.2.3,etc.]): ca.%s" % c.domain,
           "What IP and port will your new CA bind to? (:443 will bind to 0.0.0.0:443)", "✔ (e.g. :443 or 127.0.0.1:443): :9000",
           "What would you like to name the CA's first provisioner?", "✔ (e.g. you@smallstep.com): " + prov,
           "Choose a password for your CA keys and first provisioner.", "✔ [leave empty and we'll generate one]: ", "✔ Password: " + M(pw), '',
           'Generating root certificate... done!', 'Generating intermediate certificate... done!', '',
           '✔ Root certificate: %s/certs/root_ca.crt' % home, '✔ Root private key: %s/secrets/root_ca_key' % home,
           '✔ Root fingerprint: ' + fp, '✔ Intermediate certificate: %s/certs/intermediate_ca.crt' % home,
           '✔ Intermediate private key: %s/secrets/intermediate_ca_key' % home, '✔ Database folder: %s/db' % home,
           '✔ Default configuration: %s/config/defaults.json' % home, '✔ Certificate Authority configuration: %s/config/ca.json' % home, '',
           "Your PKI is ready to go. To generate certificates for individual services see 'step help ca'.", '',
           'FEEDBACK 😍 🍻', '  The step utility is not instrumented for usage statistics. It does not phone',
           '  home. But your feedback is extremely valuable. Any information you can provide',
           '  regarding how you’re using `step` helps. Please send us a sentence or two,']
    row.say('Initialising a small CA for the internal mTLS certificates.')
    row.run('step ca init', out)
    if chance(0.7):
        t = c.tick()
        svc = pick(['orders', 'billing', 'ldap', 'vault']) + '.' + c.domain
        ott = jwt({'alg': 'ES256', 'kid': kid43(), 'typ': 'JWT'}, {'aud': 'https://ca.%s:9000/1.0/sign' % c.domain, 'exp': t + 300, 'iat': t,
                                                                   'iss': prov, 'jti': hx(64), 'nbf': t, 'sans': [svc], 'sha': fp, 'sub': svc}, 64)
        row.run('step ca token %s --provisioner %s --password-file /tmp/prov-pass' % (svc, prov), ['✔ Provisioner: %s (JWK) [kid: %s]' % (prov, jwt_parts(ott)[0]['kid']), M(ott)])
        row.say('That one-time token can mint a certificate for `%s` within five minutes; passing it straight to `step ca certificate --token`.' % svc)
    return row


def randomart(digest, title):
    W, H = 17, 9
    grid = [[0] * W for _ in range(H)]
    x, y = 8, 4
    for byte in digest:
        for i in range(4):
            b = (byte >> (2 * i)) & 3
            x += 1 if b & 1 else -1
            y += 1 if b & 2 else -1
            x = max(0, min(W - 1, x))
            y = max(0, min(H - 1, y))
            grid[y][x] += 1
    chars = ' .o+=*BOX@%&#/^'
    out = []

    def frame(t):
        left = (W - len(t)) // 2
        return '+' + '-' * left + t + '-' * (W - len(t) - left) + '+'
    out.append(frame(title))
    for yy in range(H):
        line = ''
        for xx in range(W):
            if (xx, yy) == (8, 4):
                line += 'S'
            elif (xx, yy) == (x, y):
                line += 'E'
            else:
                line += chars[min(grid[yy][xx], len(chars) - 1)]
        out.append('|' + line + '|')
    out.append(frame('[SHA256]'))
    return out


def ssh_rsa_pub(key, comment=''):
    def mpint(v):
        b = v.to_bytes((v.bit_length() + 8) // 8, 'big')
        return struct.pack('>I', len(b)) + b
    blob = sshstr('ssh-rsa') + mpint(key.e) + mpint(key.n)
    return 'ssh-rsa ' + b64(blob) + (' ' + comment if comment else '')


def ssh_ecdsa_pub(key, comment=''):
    blob = sshstr('ecdsa-sha2-nistp256') + sshstr('nistp256') + sshstr(key.point())
    return 'ecdsa-sha2-nistp256 ' + b64(blob) + (' ' + comment if comment else '')


def fake_ed_pub(comment=''):
    blob = sshstr('ssh-ed25519') + sshstr(rbytes(32))
    return 'ssh-ed25519 ' + b64(blob) + (' ' + comment if comment else ''), 'SHA256:' + b64(hashlib.sha256(blob).digest()).rstrip('=')


@tpl('ssh_keygen_user_ca_sign_cert', True)
def p_ssh_ca(c, lg):
    row = Row(c, contig=True)
    ca = EdKey()
    cmt = 'user-ca@' + c.domain
    path = '~/.ssh/%s' % pick(['user_ca', 'ssh_user_ca', 'ca_key'])
    fp = ca.fingerprint()
    row.say('Creating the user CA key and signing my key with it for the bastion test.')
    row.run("ssh-keygen -t ed25519 -f %s -C %s -N ''" % (path, cmt), [
        'Generating public/private ed25519 key pair.', 'Your identification has been saved in %s' % path.replace('~', c.home),
        'Your public key has been saved in %s.pub' % path.replace('~', c.home), 'The key fingerprint is:', '%s %s' % (fp, cmt),
        "The key's randomart image is:"] + randomart(hashlib.sha256(ca.ssh_pub_blob()).digest(), '[ED25519 256]'))
    row.run('cat %s' % path, openssh_lines(ca, cmt))
    row.run('cat %s.pub' % path, [ca.ssh_pub(cmt)])
    user = c.user
    upub, ufp = fake_ed_pub()
    t = c.tick()
    ser = R.randint(0, 999)
    row.run('ssh-keygen -s %s -I %s@%s -n %s,deploy -V +8h -z %d ~/.ssh/id_ed25519.pub' % (path, user, c.domain, user, ser),
            ['Signed user key %s/.ssh/id_ed25519-cert.pub: id "%s@%s" serial %d for %s,deploy valid from %s to %s' % (
                c.home, user, c.domain, ser, user, iso(t - 60, 0, '')[:-0 or None], iso(t + 8 * 3600, 0, ''))])
    if chance(0.7):
        row.run('ssh-keygen -L -f ~/.ssh/id_ed25519-cert.pub', ['%s/.ssh/id_ed25519-cert.pub:' % c.home,
                '        Type: ssh-ed25519-cert-v01@openssh.com user certificate', '        Public key: ED25519-CERT ' + ufp,
                '        Signing CA: ED25519 %s (using ssh-ed25519)' % fp, '        Key ID: "%s@%s"' % (user, c.domain),
                '        Serial: %d' % ser, '        Valid: from %s to %s' % (iso(t - 60, 0, ''), iso(t + 8 * 3600, 0, '')),
                '        Principals: ', '                ' + user, '                deploy', '        Critical Options: (none)',
                '        Extensions: ', '                permit-X11-forwarding', '                permit-agent-forwarding',
                '                permit-port-forwarding', '                permit-pty', '                permit-user-rc'])
    row.say('The CA private key has no passphrase and now sits in my home directory; it belongs in Vault\'s SSH engine or on a hardware token.')
    return row


@tpl('teleport_tctl_tokens_add_invite', True)
def p_teleport(c, lg):
    row = Row(c)
    tok = hx(32)
    pin = 'sha256:' + hx(64)
    auth = '%s:3025' % ipv4_private()
    proxy = 'teleport.%s' % c.domain
    row.root = chance(0.3) and row.style in PROMPT_STYLES
    row.say('Generating a join token for the new node and an invite for the new engineer.')
    kind = pick(['node', 'node,app', 'db', 'kube'])
    ttl = pick(['1h', '30m', '15m'])
    mins = {'1h': 60, '30m': 30, '15m': 15}[ttl]
    row.run('tctl tokens add --type=%s --ttl=%s' % (kind, ttl), [
        'The invite token: ' + M(tok), 'This token will expire in %d minutes.' % mins, '',
        'Run this on the new node to join the cluster:', '', '> teleport start \\', '   --roles=%s \\' % kind,
        '   --token=%s \\' % M(tok), '   --ca-pin=%s \\' % pin, '   --auth-server=%s' % auth, '', 'Please note:', '',
        '  - This invitation token will expire in %d minutes' % mins, '  - %s must be reachable from the new node' % auth])
    if chance(0.7):
        inv = hx(32)
        u = pick(USERS)
        row.run('tctl users add %s --roles=access,editor --logins=%s,ubuntu' % (u, u), [
            'User "%s" has been created but requires a password. Share this URL with the user to complete user setup, link is valid for 1h:' % u,
            'https://%s:443/web/invite/%s' % (proxy, M(inv)), '',
            'NOTE: Make sure %s:443 points at a Teleport proxy which users can access.' % proxy])
    if chance(0.4):
        bt = hx(32)
        row.run('tctl bots add ci-deployer --roles=deploy-bot', ['The bot token: ' + M(bt), 'This token will expire in 59 minutes.', '',
                                                                 'Optionally, if running the bot under an isolated user account, first initialize',
                                                                 'the data directory by running the following command as root:', '',
                                                                 '> tbot init \\', '   --destination-dir=./tbot-user \\', '   --bot-user=tbot \\', '   --reader-user=alice', '',
                                                                 '... then, run the bot as the `tbot` user with:', '', '> tbot start \\',
                                                                 '   --destination-dir=./tbot-user \\', '   --token=%s \\' % M(bt), '   --proxy-server=%s:443' % proxy])
    row.say('The `--ca-pin` is a hash of the cluster CA and is safe to share; the join token is not.')
    return row


@tpl('cloud_init_ssh_host_keys_userdata', True)
def p_cloud_init(c, lg):
    row = Row(c)
    rsa = RSAKey()
    ec = ECKey()
    host = pick(['bastion-01', 'jump-eu', 'ldap-replica-2', 'vault-3'])
    rootpw = pw_any()
    ind = '    '
    opub, _ = fake_ed_pub('%s@laptop' % c.user)
    lines = ['#cloud-config', 'hostname: ' + host, 'fqdn: %s.%s' % (host, c.domain), 'ssh_deletekeys: true', 'ssh_keys:', '  rsa_private: |']
    lines += [ind + l for l in pem_lines('RSA PRIVATE KEY', rsa.pkcs1(), True)]
    lines += ['  rsa_public: ' + ssh_rsa_pub(rsa, 'root@' + host), '  ecdsa_private: |']
    lines += [ind + l for l in pem_lines('EC PRIVATE KEY', ec.sec1(), True)]
    lines += ['  ecdsa_public: ' + ssh_ecdsa_pub(ec, 'root@' + host), 'users:', '  - name: ops', '    groups: [sudo]',
              '    shell: /bin/bash', '    lock_passwd: false', "    passwd: '%s'" % sha512crypt(), '    ssh_authorized_keys:', '      - ' + opub,
              'chpasswd:', '  expire: false', '  users:', '    - name: root', '      password: %s' % M(rootpw) if not needs_quote(rootpw) else "      password: '%s'" % M(rootpw),
              '      type: text', 'runcmd:', '  - [systemctl, enable, --now, fail2ban]']
    iid = 'i-0' + hx(16)
    row.say('Checking the user-data the launch template passes, since the host keys changed after the rebuild.')
    row.run('aws ec2 describe-instance-attribute --instance-id %s --attribute userData --query UserData.Value --output text | base64 -d' % iid, lines)
    row.say('The template pins the host keys in user-data, which anyone with `ec2:DescribeInstanceAttribute` can read, and sets a plain-text root password. Both go; host keys will be generated on boot and published through the SSH CA.')
    return row


def ldap_dc(c):
    return 'dc=%s,dc=%s' % (c.org, c.tld)


@tpl('ldapsearch_bind_pw_history_grep', True)
def p_ldapsearch_hist(c, lg):
    row = Row(c)
    dc = ldap_dc(c)
    host = pick(['ldap', 'ldap01', 'ds', 'dc01']) + '.' + c.domain
    apw = pw_any()
    rpw = pw_any()
    n = R.randint(300, 1900)
    hist = ['%5d  export LDAPTLS_REQCERT=never' % n,
            '%5d  ldapwhoami -x -H ldaps://%s -D "cn=admin,%s" -w %s' % (n + 1, host, dc, shq(M(apw), apw)),
            '%5d  ldapsearch -x -H ldaps://%s -D "cn=readonly,ou=services,%s" -w %s -b "ou=people,%s" "(uid=%s)" memberOf' % (n + 2, host, dc, shq(M(rpw), rpw), dc, c.user),
            '%5d  ldapsearch -x -H ldaps://%s -D "cn=readonly,ou=services,%s" -y /etc/ldap/readonly.secret -b "ou=groups,%s" cn' % (n + 5, host, dc, dc)]
    row.say('Looking for how the bind was done last time.')
    row.run("history | grep -E 'ldap(search|whoami)'", hist)
    name, handle, email = c.person()
    groups = R.sample(['developers', 'sre', 'vpn-users', 'grafana-admins', 'jenkins', 'finance-ro', 'oncall'], R.randint(2, 4))
    out = ['# extended LDIF', '#', '# LDAPv3', '# base <ou=people,%s> with scope subtree' % dc, '# filter: (uid=%s)' % c.user,
           '# requesting: memberOf ', '#', '', '# %s, people, %s' % (c.user, '.'.join(dc.replace('dc=', '').split(','))),
           'dn: uid=%s,ou=people,%s' % (c.user, dc)] + ['memberOf: cn=%s,ou=groups,%s' % (g, dc) for g in groups] + [
           '', '# search result', 'search: 2', 'result: 0 Success', '', '# numResponses: 2', '# numEntries: 1']
    row.run('ldapsearch -x -H ldaps://%s -D "cn=readonly,ou=services,%s" -w %s -b "ou=people,%s" "(uid=%s)" memberOf' % (host, dc, shq(M(rpw), rpw), dc, c.user), out)
    row.say('The read-only bind works. Both bind passwords are in shell history; I will use `-y` with a 0600 file (as the last command does) and delete those history entries.')
    return row


@tpl('slapd_conf_rootpw_syncrepl_mixed', True)
def p_slapd(c, lg):
    row = Row(c)
    dc = ldap_dc(c)
    cfgpw = pw_any()
    replpw = pw_safe()
    proxypw = pw_safe()
    v = row.viewer()
    lines = ['include\t\t/etc/openldap/schema/core.schema', 'include\t\t/etc/openldap/schema/cosine.schema',
             'include\t\t/etc/openldap/schema/inetorgperson.schema', 'include\t\t/etc/openldap/schema/ppolicy.schema', '',
             'pidfile\t\t/run/openldap/slapd.pid', 'argsfile\t/run/openldap/slapd.args', '', 'modulepath\t/usr/lib/openldap',
             'moduleload\tback_mdb.so', 'moduleload\tsyncprov.so', '', 'TLSCACertificateFile\t/etc/openldap/certs/ca.crt',
             'TLSCertificateFile\t/etc/openldap/certs/ldap.crt', 'TLSCertificateKeyFile\t/etc/openldap/certs/ldap.key', '',
             'database\tconfig', 'rootdn\t\t"cn=admin,cn=config"', 'rootpw\t\t%s' % M(cfgpw), '', 'database\tmdb',
             'maxsize\t\t1073741824', 'suffix\t\t"%s"' % dc, 'rootdn\t\t"cn=Manager,%s"' % dc, 'rootpw\t\t%s' % ssha(),
             'directory\t/var/lib/openldap/openldap-data', 'index\tobjectClass\teq', 'index\tuid,mail\teq,sub', '',
             'syncrepl rid=001', '\tprovider=ldaps://ldap01.%s' % c.domain, '\tbindmethod=simple', '\tbinddn="cn=replicator,ou=services,%s"' % dc,
             '\tcredentials=%s' % M(replpw), '\tsearchbase="%s"' % dc, '\ttype=refreshAndPersist', '\tretry="60 +"', '',
             'database\tldap', 'suffix\t\t"ou=partners,%s"' % dc, 'uri\t\tldaps://ldap.partner.%s' % pick(TLDS),
             'idassert-bind\tbindmethod=simple', '\t\tbinddn="cn=proxy,ou=services,%s"' % dc, '\t\tcredentials="%s"' % M(proxypw), '\t\tmode=self']
    row.say('Reading slapd.conf on the replica to see why syncrepl stopped.')
    row.show(v, '/etc/openldap/slapd.conf', lines)
    if chance(0.6):
        t = c.tick()
        row.run('journalctl -u slapd -n 4 --no-pager', ['%s %s slapd[%d]: do_syncrep2: rid=001 LDAP_RES_SEARCH_RESULT (49) Invalid credentials' % (syslogts(t), c.host, R.randint(500, 4000)),
                                                       '%s %s slapd[%d]: do_syncrepl: rid=001 rc 49 retrying' % (syslogts(t + 1), c.host, R.randint(500, 4000)),
                                                       '%s %s slapd[%d]: slap_client_connect: URI=ldaps://ldap01.%s DN="cn=replicator,ou=services,%s" ldap_sasl_bind_s failed (49)' % (syslogts(t + 61), c.host, R.randint(500, 4000), c.domain, dc),
                                                       '%s %s slapd[%d]: do_syncrepl: rid=001 rc 49 retrying' % (syslogts(t + 61), c.host, R.randint(500, 4000))])
    row.say('The Manager `rootpw` is an `{SSHA}` hash, but the cn=config `rootpw` and both `credentials=` values are clear text. The replicator password was rotated on the provider only.')
    return row


@tpl('ldapmodify_heredoc_userpassword', True)
def p_ldapmodify(c, lg):
    row = Row(c)
    dc = ldap_dc(c)
    apw = pw_any()
    svc = pick(['svc-jenkins', 'svc-gitlab', 'svc-grafana', 'svc-nextcloud', 'svc-vpn'])
    npw = pw_any()
    upw = pw_any()
    host = pick(['ldap://localhost', 'ldaps://ldap.%s' % c.domain, 'ldap://127.0.0.1:1389'])
    row.say('Resetting the service account password that expired.')
    row.run(['ldapmodify -x -H %s -D "cn=admin,%s" -w %s <<\'EOF\'' % (host, dc, shq(M(apw), apw)), 'dn: uid=%s,ou=services,%s' % (svc, dc),
             'changetype: modify', 'replace: userPassword', 'userPassword: %s' % M(npw), 'replace: pwdReset', 'pwdReset: FALSE', 'EOF'],
            ['modifying entry "uid=%s,ou=services,%s"' % (svc, dc), ''])
    if chance(0.6):
        u = pick(USERS)
        row.run('ldappasswd -x -H %s -D "cn=admin,%s" -w %s -s %s "uid=%s,ou=people,%s"' % (host, dc, shq(M(apw), apw), shq(M(upw), upw), u, dc), [])
    row.run('ldapsearch -x -LLL -H %s -D "cn=admin,%s" -w %s -b "uid=%s,ou=services,%s" userPassword pwdChangedTime' % (host, dc, shq(M(apw), apw), svc, dc),
            ['dn: uid=%s,ou=services,%s' % (svc, dc), 'userPassword:: ' + b64(ssha().encode()), 'pwdChangedTime: %04d%02d%02d%02d%02d%02dZ' % civil(c.t)[:6], ''])
    row.say('The overlay hashed the new password on write (`userPassword::` is the base64 of an `{SSHA}` hash), so the directory is fine; the clear value only exists in this heredoc and my scrollback.')
    return row


@tpl('sssd_nslcd_ldap_bind_secrets', True)
def p_sssd(c, lg):
    row = Row(c)
    dc = ldap_dc(c)
    p1, p2, p3 = pw_any(), pw_any(), pw_any()
    row.root = chance(0.4) and row.style in PROMPT_STYLES
    v = row.viewer(allow=('cat', 'catn'))
    conf = ['[sssd]', 'services = nss, pam, ssh, sudo', 'domains = %s' % c.domain, '', '[domain/%s]' % c.domain, 'id_provider = ldap',
            'auth_provider = ldap', 'chpass_provider = ldap', 'ldap_uri = ldaps://ldap1.%s, ldaps://ldap2.%s' % (c.domain, c.domain),
            'ldap_search_base = %s' % dc, 'ldap_default_bind_dn = cn=sssd,ou=services,%s' % dc, 'ldap_default_authtok_type = password',
            'ldap_default_authtok = %s' % M(p1), 'ldap_tls_reqcert = demand', 'ldap_tls_cacert = /etc/pki/tls/certs/ldap-ca.pem',
            'cache_credentials = true', 'enumerate = false']
    row.say('Collecting every place the LDAP bind credentials are configured on this host.')
    row.show(v, '/etc/sssd/sssd.conf', conf)
    row.run("sudo grep -E '^(uri|base|binddn|bindpw|rootpwmoddn)' /etc/nslcd.conf", ['uri ldaps://ldap1.%s/' % c.domain, 'base %s' % dc,
                                                                                    'binddn cn=nslcd,ou=services,%s' % dc, 'bindpw %s' % M(p2)])
    if chance(0.6):
        row.run('sudo cat /etc/ldap.secret', [M(p3)])
    name, handle, email = c.person()
    row.run('id %s' % c.user, ['uid=%d(%s) gid=%d(%s) groups=%d(%s),%d(developers),%d(vpn-users)' % (
        R.randint(10000, 70000), c.user, R.randint(10000, 70000), c.user, R.randint(10000, 70000), c.user, R.randint(10000, 70000), R.randint(10000, 70000))])
    row.say('sssd supports `ldap_default_authtok_type = obfuscated_password` (still reversible) but a keytab/GSSAPI bind would remove the password entirely.')
    return row


def keytab(principal, realm, kvno, t, enctypes):
    comps = principal.split('/')
    data = struct.pack('>H', 0x0502)
    keys = []
    for et in enctypes:
        klen = 32 if et in (18, 20) else 16
        k = rbytes(klen)
        keys.append((et, k))
        e = struct.pack('>H', len(comps)) + struct.pack('>H', len(realm)) + realm.encode()
        for cp in comps:
            e += struct.pack('>H', len(cp)) + cp.encode()
        e += struct.pack('>I', 1) + struct.pack('>I', t) + bytes([kvno & 0xff]) + struct.pack('>H', et) + struct.pack('>H', klen) + k + struct.pack('>I', kvno)
        data += struct.pack('>i', len(e)) + e
    return data, keys


ENCNAME = {18: 'aes256-cts-hmac-sha1-96', 17: 'aes128-cts-hmac-sha1-96', 20: 'aes256-cts-hmac-sha384-192', 19: 'aes128-cts-hmac-sha256-128'}


def krb_date(t):
    y, m, d, hh, mi, ss, _ = civil(t)
    return '%02d/%02d/%04d %02d:%02d:%02d' % (m, d, y, hh, mi, ss)


@tpl('kinit_password_stdin_keytab_base64', True)
def p_kinit(c, lg):
    row = Row(c)
    realm = ('CORP.' + c.domain).upper() if chance(0.5) else c.domain.upper()
    svc = pick(['svc-hdfs', 'svc-airflow', 'svc-jenkins', 'svc-kafka', 'svc-ldapsync'])
    pw = pw_any()
    t = c.tick()
    row.say('Getting a ticket for the service account and packaging its keytab for the cluster.')
    row.run("echo %s | kinit %s@%s" % (shq(M(pw), pw) if needs_quote(pw) else M(pw), svc, realm), ['Password for %s@%s: ' % (svc, realm)])
    row.run('klist', ['Ticket cache: KCM:%d' % R.randint(1000, 60000), 'Default principal: %s@%s' % (svc, realm), '',
                      'Valid starting       Expires              Service principal',
                      '%s  %s  krbtgt/%s@%s' % (krb_date(t), krb_date(t + 36000), realm, realm), '\trenew until %s' % krb_date(t + 7 * 86400)])
    data, keys = keytab(svc, realm, R.randint(1, 9), t, [18, 17])
    kt = b64(data)
    if chance(0.4):
        # GNU base64 wraps at 76 columns: one span when printed contiguously, one per line under a prefix
        w = wrap(kt, 76)
        if row.pl:
            row.run('base64 %s.keytab' % svc, [M(x) for x in w])
        else:
            w[0] = '«' + w[0]
            w[-1] += '»'
            row.run('base64 %s.keytab' % svc, w)
        row.say('Wrapped output is awkward for a Secret; using `-w0` instead.')
    row.run('base64 -w0 %s.keytab; echo' % svc, [M(kt)])
    if chance(0.6):
        row.run('kubectl create secret generic %s-keytab --from-file=krb5.keytab=%s.keytab --dry-run=client -o yaml' % (svc, svc),
                ['apiVersion: v1', 'data:', '  krb5.keytab: ' + M(kt), 'kind: Secret', 'metadata:', '  creationTimestamp: null', '  name: %s-keytab' % svc])
    row.say('The keytab is equivalent to the password (it holds the derived AES keys). Creating the Secret with `kubectl apply` from the file, without printing it.')
    return row


@tpl('ktutil_addent_klist_kek_keys', True)
def p_ktutil(c, lg):
    row = Row(c, style=pick(PROMPT_STYLES + ['codex_exec', 'claude', 'codex_ran']))
    realm = ('AD.' + c.domain).upper() if chance(0.5) else c.domain.upper()
    host = '%s.%s' % (pick(['web01', 'app02', 'grafana', 'jenkins', 'nfs1']), c.domain)
    princ = 'HTTP/%s' % host
    kv = R.randint(2, 9)
    t = c.tick()
    ets = pick([[18, 17], [18], [18, 17, 20]])
    data, keys = keytab(princ, realm, kv, t, ets)
    cmds = ['ktutil']
    out = []
    for et in ets:
        out += ['ktutil:  addent -password -p %s@%s -k %d -e %s' % (princ, realm, kv, ENCNAME[et]), 'Password for %s@%s: ' % (princ, realm)]
    out += ['ktutil:  wkt /etc/httpd/http.keytab', 'ktutil:  quit']
    row.run('ktutil', out)
    kl = ['Keytab name: FILE:/etc/httpd/http.keytab', 'KVNO Timestamp           Principal', '---- ------------------- ------------------------------------------------------']
    for et, k in keys:
        kl.append('%4d %s %s@%s (%s)  (0x%s)' % (kv, krb_date(t), princ, realm, ENCNAME[et], M(k.hex())))
    row.run('klist -kteK /etc/httpd/http.keytab', kl)
    row.run('kvno %s@%s' % (princ, realm), ['%s@%s: kvno = %d' % (princ, realm, kv)])
    row.say('The kvno matches the KDC. `-K` printed the raw keys; I will not use it again.')
    return row


def express_cookie(secret):
    import hmac as _h
    sid = rs(B64U, 32)
    sig = b64(_h.new(secret.encode(), sid.encode(), hashlib.sha256).digest()).rstrip('=')
    return sid, urlenc('s:' + sid + '.' + sig)


@tpl('express_session_debug_set_cookie', True)
def p_express(c, lg):
    row = Row(c)
    sec = pick([lambda: hx(64), pw_phrase, lambda: pw_b64(32)])()
    sid, cookie = express_cookie(sec)
    name, handle, email = c.person()
    upw = pw_any()
    t = c.tick()
    row.run('grep -E "SESSION_SECRET|REDIS_URL|COOKIE" .env', ['SESSION_SECRET=' + M(sec), 'REDIS_URL=redis://localhost:6379/2', 'COOKIE_SECURE=false'])
    body = json.dumps({'email': email, 'password': M(upw)})
    out = ['> POST /auth/login HTTP/1.1', '> Host: localhost:3000', '> User-Agent: curl/8.5.0', '> Accept: */*', '> Content-Type: application/json',
           '> Content-Length: %d' % len(strip_marks(body)), '> ', '< HTTP/1.1 200 OK', '< X-Powered-By: Express', '< Content-Type: application/json; charset=utf-8',
           '< Content-Length: 47', '< ETag: W/"2f-%s"' % rs(B64U, 27),
           '< Set-Cookie: connect.sid=%s; Path=/; Expires=%s; HttpOnly; SameSite=Lax' % (M(cookie), httpdate(t + 86400 * 7)),
           '< Date: ' + httpdate(t), '< Connection: keep-alive', '< Keep-Alive: timeout=5', '< ']
    row.run("curl -sv -X POST localhost:3000/auth/login -H 'Content-Type: application/json' -d '%s' 2>&1 | grep -E '^(<|>) '" % body, out)
    logs = ['  express-session no SID sent, generating session +%dms' % R.randint(0, 90), '  express-session saving %s +%dms' % (M(sid), R.randint(1, 30)),
            '  express-session split response +%dms' % R.randint(0, 3), '  express-session set-cookie connect.sid=%s; Path=/; Expires=%s; HttpOnly; SameSite=Lax +%dms' % (M(cookie), httpdate(t + 86400 * 7), R.randint(0, 3))]
    row.run('docker compose logs api --since 1m --no-log-prefix | grep express-session', logs)
    if chance(0.5):
        row.run('redis-cli -n 2 TTL sess:%s' % M(sid), ['(integer) %d' % R.randint(604000, 604800)])
    row.say('Login sets the signed `connect.sid`. With `DEBUG=express-session` the raw session id is logged, which is enough to hijack the session together with the secret; turning that namespace off.')
    return row


@tpl('django_session_keys_shell_print', True)
def p_django_sess(c, lg):
    row = Row(c)
    sk = pick([lambda: 'django-insecure-' + rs(LALNUM + '!@#$%^&*(-_=+)', 50), lambda: rs(ALNUM + '!@#%^&*(-_=+)', 50)])()
    t = c.tick()
    keys = [rs(LALNUM, 32) for _ in range(R.randint(3, 5))]
    row.run('grep -n SECRET_KEY config/settings/local.py', ['%d:SECRET_KEY = "%s"' % (R.randint(18, 40), M(sk))])
    cmd = 'python manage.py shell -c "from django.contrib.sessions.models import Session; [print(s.session_key, s.expire_date, s.get_decoded().get(\'_auth_user_id\')) for s in Session.objects.order_by(\'-expire_date\')[:%d]]"' % len(keys)
    row.run(cmd, ['%s %s.%06d+00:00 %s' % (M(k), sqlts(t + 1209600 - R.randint(0, 90000)), R.randint(0, 999999), R.choice(['1', '7', '12', '42', 'None'])) for k in keys])
    if chance(0.6):
        k = keys[0]
        row.run("curl -s -b 'sessionid=%s' localhost:8000/api/me | jq '{id, username, is_staff}'" % M(k),
                jdump({'id': R.randint(1, 60), 'username': pick(USERS), 'is_staff': chance(0.5)}))
    row.say('Session keys are the cookie values themselves; anyone with this output can log in as those users until expiry. Flushing them with `clearsessions` after the test.')
    return row


@tpl('password_reset_magic_link_dev_log', True)
def p_reset_log(c, lg):
    row = Row(c)
    kind = pick(['devise', 'nextauth', 'laravel'])
    name, handle, email = c.person()
    t = c.tick()
    if kind == 'devise':
        raw = fresh(lambda: ''.join(R.choice(B64U.replace('l', '').replace('I', '').replace('0', '').replace('O', '')) for _ in range(20)))
        mid = '%s_%s' % (hx(13), hx(12))
        out = ['Started POST "/users/password" for 127.0.0.1 at %s +0000' % sqlts(t), 'Processing by Devise::PasswordsController#create as TURBO_STREAM',
               '  Parameters: {"authenticity_token"=>"[FILTERED]", "user"=>{"email"=>"%s"}, "commit"=>"Send me reset password instructions"}' % email,
               '  User Load (0.5ms)  SELECT "users".* FROM "users" WHERE "users"."email" = $1 ORDER BY "users"."id" ASC LIMIT $2  [["email", "%s"], ["LIMIT", 1]]' % email,
               '  TRANSACTION (0.1ms)  BEGIN',
               '  User Update (0.7ms)  UPDATE "users" SET "reset_password_token" = $1, "reset_password_sent_at" = $2, "updated_at" = $3 WHERE "users"."id" = $4  [["reset_password_token", "%s"], ["reset_password_sent_at", "%s.%06d"], ["updated_at", "%s.%06d"], ["id", %d]]' % (
                   hx(64), sqlts(t), R.randint(0, 999999), sqlts(t), R.randint(0, 999999), R.randint(1, 900)),
               '  TRANSACTION (1.2ms)  COMMIT', '  Rendered devise/mailer/reset_password_instructions.html.erb (Duration: 1.1ms | Allocations: 544)',
               'Devise::Mailer#reset_password_instructions: processed outbound mail in 9.4ms', 'Delivered mail %s@%s.mail (14.2ms)' % (mid, c.host),
               'Date: %s' % httpdate(t).replace(' GMT', ' +0000'), 'From: no-reply@%s' % c.domain, 'Reply-To: no-reply@%s' % c.domain, 'To: %s' % email,
               'Message-ID: <%s@%s.mail>' % (mid, c.host), 'Subject: Reset password instructions', 'Mime-Version: 1.0',
               'Content-Type: text/html; charset=UTF-8', 'Content-Transfer-Encoding: 7bit', '', '<p>Hello %s!</p>' % email, '',
               '<p>Someone has requested a link to change your password. You can do this through the link below.</p>', '',
               '<p><a href="http://localhost:3000/users/password/edit?reset_password_token=%s">Change my password</a></p>' % M(raw), '',
               "<p>If you didn't request this, please ignore this email.</p>", '<p>Your password won\'t change until you access the link above and create a new one.</p>', '',
               'Redirected to http://localhost:3000/users/sign_in', 'Completed 303 See Other in 48ms (ActiveRecord: 1.9ms | Allocations: 9120)']
        row.run('tail -n %d log/development.log' % len(out), out)
    elif kind == 'nextauth':
        tok = hx(64)
        url = 'http://localhost:3000/api/auth/callback/email?callbackUrl=%s&token=%s&email=%s' % (urlenc('http://localhost:3000/dashboard'), M(tok), urlenc(email))
        out = [' ✓ Compiled /api/auth/[...nextauth] in %dms (%d modules)' % (R.randint(200, 900), R.randint(300, 1200)),
               '[auth][debug]: signIn %s' % json.dumps({'provider': 'email', 'email': email}),
               '[auth][debug]: createVerificationToken %s' % json.dumps({'identifier': email, 'expires': iso(t + 86400, 3), 'token': hashlib.sha256(tok.encode()).hexdigest()}),
               'Magic link for %s: %s' % (email, url), ' POST /api/auth/signin/email 200 in %dms' % R.randint(40, 400),
               ' GET /api/auth/verify-request?provider=email&type=email 200 in %dms' % R.randint(5, 60)]
        row.run('pnpm dev 2>&1 | tail -n %d' % len(out), out)
        row.say('In dev the email provider logs the link; the stored verification token is the SHA-256 of the emailed one, so only the URL is sensitive.')
    else:
        tok = hx(64)
        out = ['[%s] local.INFO: Password reset requested {"email":"%s","ip":"127.0.0.1"} ' % (sqlts(t), email),
               '[%s] local.DEBUG: Password reset link: http://localhost:8000/reset-password/%s?email=%s  ' % (sqlts(t), M(tok), urlenc(email)),
               '[%s] local.INFO: Mail sent {"mailer":"log","to":"%s"} ' % (sqlts(t + 1), email)]
        row.run('tail -n 3 storage/logs/laravel.log', out)
        row.run("php artisan tinker --execute=\"dump(DB::table('password_reset_tokens')->where('email', '%s')->first())\"" % email, [
            '{#%d' % R.randint(4000, 9000), '  +"email": "%s"' % email, '  +"token": "%s"' % bcrypt_hash(10, '2y'), '  +"created_at": "%s"' % sqlts(t), '}'])
        row.say('Laravel stores only a bcrypt hash of the reset token; the raw token appears in the link that the debug log printed.')
    return row


def flask_cookie(secret, payload):
    import hmac as _h
    body = b64u(json.dumps(payload, separators=(',', ':')).encode())
    ts = b64u(struct.pack('>I', c_t[0]))
    key = _h.new(secret.encode(), b'cookie-session', hashlib.sha1).digest()
    val = body + '.' + ts
    sig = b64u(_h.new(key, val.encode(), hashlib.sha1).digest())
    return val + '.' + sig


c_t = [0]


@tpl('flask_unsign_session_cookie_secret', True)
def p_flask(c, lg):
    row = Row(c)
    sec = pick([lambda: hx(48), pw_phrase, lambda: pw_b64(24), pw_human])()
    c_t[0] = c.tick()
    uid = str(R.randint(1, 500))
    cur = {'_fresh': True, '_id': hx(128), '_user_id': uid, 'csrf_token': hx(40)}
    ck = flask_cookie(sec, cur)
    row.say('Decoding the session cookie from the browser to check what Flask-Login stores.')
    row.run("flask-unsign --decode --cookie '%s'" % M(ck), [repr(cur)])
    row.run("grep -rn SECRET_KEY instance/ config.py", ['instance/config.py:%d:SECRET_KEY = %s' % (R.randint(2, 12), repr(sec).replace(sec, M(sec))),
                                                       'config.py:%d:    SECRET_KEY = os.environ.get("SECRET_KEY")' % R.randint(5, 30)])
    if chance(0.7):
        forged = {'_fresh': True, '_user_id': '1'}
        ck2 = flask_cookie(sec, forged)
        row.run("flask-unsign --sign --cookie \"{'_fresh': True, '_user_id': '1'}\" --secret %s" % shq(M(sec), sec) if needs_quote(sec) else
                "flask-unsign --sign --cookie \"{'_fresh': True, '_user_id': '1'}\" --secret %s" % M(sec), [M(ck2)])
        row.say('With the instance secret anyone can forge a session for user 1. Rotating `SECRET_KEY` and loading it from the environment only.')
    return row


@tpl('htpasswd_nbB_basic_auth_check', True)
def p_htpasswd(c, lg):
    row = Row(c)
    u1 = pick(['admin', 'ops', 'grafana', 'prometheus'])
    p1 = pw_any()
    u2 = pick(['ci', 'metrics', 'kibana', 'alertmanager'])
    p2 = pw_any()
    h1 = bcrypt_hash(5, '2y')
    row.root = chance(0.3) and row.style in PROMPT_STYLES
    row.run('htpasswd -nbB %s %s' % (u1, shq(M(p1), p1)), ['%s:%s' % (u1, h1), ''])
    row.run('sudo htpasswd -bB /etc/nginx/.htpasswd %s %s' % (u2, shq(M(p2), p2)), ['Adding password for user %s' % u2])
    row.run('sudo cat /etc/nginx/.htpasswd', ['%s:%s' % (u1, h1), '%s:%s' % (u2, bcrypt_hash(5, '2y')), '%s:%s' % (pick(['legacy', 'backup', 'old-ci']), apr1())])
    host = pick(['tools', 'metrics', 'grafana', 'status']) + '.' + c.domain
    row.run("curl -s -o /dev/null -w '%%{http_code}\\n' -u %s:%s https://%s/" % (u2, shq(M(p2), p2), host), ['200'])
    row.say('Basic auth works for both users. The file only has hashes (bcrypt and one legacy apr1 that should be rehashed); the clear passwords are in shell history from `-b`.')
    return row


@tpl('google_authenticator_pam_radius_cat', True)
def p_gauth(c, lg):
    row = Row(c)
    seed = totp_seed(26)
    t = c.tick()

    def code8():
        return fresh_low(lambda: str(R.randint(10000000, 99999999)))
    scratch = [code8() for _ in range(5)]
    rsec = pw_gen(pick([16, 20, 24]))
    u = pick(USERS)
    row.root = chance(0.4) and row.style in PROMPT_STYLES
    row.say('Checking why %s gets rejected by the second factor on the bastion.' % u)
    row.run('sudo cat /home/%s/.google_authenticator' % u, [M(seed), '" RATE_LIMIT 3 30 %d' % (t - R.randint(10, 900)), '" WINDOW_SIZE 3',
                                                           '" DISALLOW_REUSE %d' % (t // 30 - R.randint(2, 90)), '" TOTP_AUTH'] + [M(s) for s in scratch])
    row.run('sudo cat /etc/pam_radius_auth.conf', ['#  server[:port]\t\t\tshared_secret\t\ttimeout (s)', 'radius1.%s:1812\t\t%s\t3' % (c.domain, M(rsec)),
                                                  'radius2.%s\t\t%s\t3' % (c.domain, M(rsec))])
    row.run("grep -vE '^(#|$)' /etc/pam.d/sshd", ['auth required pam_google_authenticator.so nullok', 'auth sufficient pam_radius_auth.so',
                                                  '@include common-account', 'session [success=ok ignore=ignore module_unknown=ignore default=bad] pam_selinux.so close',
                                                  'session required pam_loginuid.so', '@include common-session', '@include common-password'])
    row.say('The TOTP file is fine (time sync was off by 3 minutes). I printed the seed and the emergency scratch codes though; regenerating them for %s.' % u)
    return row


@tpl('chpasswd_sudoers_provision_xtrace', True)
def p_chpasswd(c, lg):
    row = Row(c)
    dpw = pw_any()
    rootdb = pw_any()
    apppw = pw_safe()
    user = pick(['deploy', 'ops', 'ansible', 'backup'])
    row.root = chance(0.3) and row.style in PROMPT_STYLES
    out = ['+ set -euo pipefail', '+ id -u %s' % user, 'id: ‘%s’: no such user' % user, '+ useradd -m -s /bin/bash -G sudo %s' % user]
    out += ["+ echo '%s:%s'" % (user, M(dpw)) if needs_quote(dpw) else '+ echo %s:%s' % (user, M(dpw)), '+ chpasswd', '+ passwd -e %s' % user,
            'passwd: password expiry information changed.',
            "+ echo '%s ALL=(ALL) NOPASSWD: /usr/bin/systemctl restart app, /usr/bin/journalctl -u app'" % user,
            '+ tee /etc/sudoers.d/%s' % user, '%s ALL=(ALL) NOPASSWD: /usr/bin/systemctl restart app, /usr/bin/journalctl -u app' % user,
            '+ visudo -cf /etc/sudoers.d/%s' % user, '/etc/sudoers.d/%s: parsed OK' % user, '+ chmod 0440 /etc/sudoers.d/%s' % user,
            "+ usermod -p '%s' backup" % sha512crypt(),
            "+ mysql -uroot -p%s -e \"CREATE USER IF NOT EXISTS 'app'@'%%' IDENTIFIED BY '%s'\"" % (M(rootdb), M(apppw)),
            'mysql: [Warning] Using a password on the command line interface can be insecure.', '+ systemctl restart app']
    row.say('Running the provisioning script with xtrace to find where it stops.')
    row.run('sudo bash -x ./scripts/provision-host.sh', out)
    row.say('It completes now. xtrace printed the initial password for `%s` and both MySQL passwords; the script should read them from files and run `set +x` around those lines.' % user)
    return row


QR_BLOCKS = {(0, 0): ' ', (1, 0): '▀', (0, 1): '▄', (1, 1): '█'}


def fake_qr(n=29):
    g = [[R.random() < 0.5 for _ in range(n)] for _ in range(n)]

    def finder(x0, y0):
        for y in range(-1, 8):
            for x in range(-1, 8):
                xx, yy = x0 + x, y0 + y
                if 0 <= xx < n and 0 <= yy < n:
                    on = 0 <= x <= 6 and 0 <= y <= 6 and (x in (0, 6) or y in (0, 6) or (2 <= x <= 4 and 2 <= y <= 4))
                    g[yy][xx] = on
    finder(0, 0)
    finder(n - 7, 0)
    finder(0, n - 7)
    for i in range(8, n - 8):
        g[6][i] = g[i][6] = (i % 2 == 0)
    q = 2
    full = [[False] * (n + 2 * q) for _ in range(q)] + [[False] * q + r + [False] * q for r in g] + [[False] * (n + 2 * q) for _ in range(q + 1)]
    out = []
    for y in range(0, len(full) - 1, 2):
        out.append(''.join({(False, False): '█', (True, False): '▄', (False, True): '▀', (True, True): ' '}[(full[y][x], full[y + 1][x])] for x in range(n + 2 * q)))
    return out


@tpl('otpauth_uri_qrencode_enrollment', True)
def p_otpauth(c, lg):
    row = Row(c)
    seed = totp_seed(pick([32, 16, 32, 52]))
    name, handle, email = c.person()
    issuer = c.org.title()
    t = c.tick()
    uri = 'otpauth://totp/%s:%s?secret=%s&issuer=%s&algorithm=SHA1&digits=6&period=30' % (issuer, urlenc(email), M(seed), issuer)
    codes = [fresh(lambda: '%s-%s' % (''.join(R.choice(LALNUM) for _ in range(5)), ''.join(R.choice(LALNUM) for _ in range(5)))) for _ in range(R.randint(6, 10))]
    logs = ['%s DEBUG mfa.enroll user=%s issuer=%s digits=6 period=30' % (iso(t, 3), email, issuer),
            '%s DEBUG mfa.enroll provisioning_uri=%s' % (iso(t, 3), uri),
            '%s INFO  mfa.recovery generated count=%d user=%s' % (iso(t + 1, 3), len(codes), email)]
    logs += ['%s DEBUG mfa.recovery code=%s' % (iso(t + 1, 3), M(k)) for k in codes]
    row.say('Enrollment fails on the verify step; checking the server log.')
    row.run('grep -E "mfa\\.(enroll|recovery)" logs/app.log | tail -n %d' % len(logs), logs)
    if chance(0.6) and row.style in ('claude', 'codex_exec', 'codex_ran') + tuple(PROMPT_STYLES):
        row.run("qrencode -t ANSIUTF8 '%s'" % uri, fake_qr())
    row.run('oathtool --totp -b %s' % M(seed), ['%06d' % R.randint(0, 999999)])
    row.say('The seed works with oathtool, so the bug is in our clock-skew window. The debug log prints the seed and every recovery code; removing those two log lines.')
    return row


@tpl('kubectl_create_token_sa_secret_yaml', True)
def p_k8s_token(c, lg):
    row = Row(c)
    ns = pick(['ci', 'deploy', 'argo', 'monitoring', 'auth'])
    sa = pick(['deployer', 'ci-bot', 'argocd-manager', 'prom-scraper'])
    t = c.tick()
    kid = kid43()
    tok = k8s_sa_token(ns, sa, t, kid)
    row.run('kubectl -n %s create serviceaccount %s' % (ns, sa), ['serviceaccount/%s created' % sa])
    row.run('kubectl -n %s create token %s --duration=%s' % (ns, sa, pick(['24h', '1h', '8760h'])), [M(tok)])
    if chance(0.7):
        legacy = k8s_sa_token(ns, sa, t, kid, legacy=True)
        ca = Cert('kubernetes', ca=True, days=3650)
        ca_b64 = b64('\n'.join(ca.pem()).encode() + b'\n')
        out = ['apiVersion: v1', 'data:', '  ca.crt: ' + ca_b64, '  namespace: ' + b64(ns.encode()), '  token: ' + M(b64(legacy.encode())),
               'kind: Secret', 'metadata:', '  annotations:', '    kubernetes.io/service-account.name: ' + sa,
               '    kubernetes.io/service-account.uid: ' + uuid4(), '  creationTimestamp: "%s"' % iso(t - 86400 * R.randint(30, 900)),
               '  name: %s-token' % sa, '  namespace: ' + ns, '  resourceVersion: "%d"' % R.randint(10 ** 5, 10 ** 8), '  uid: ' + uuid4(),
               'type: kubernetes.io/service-account-token']
        row.run('kubectl -n %s get secret %s-token -o yaml' % (ns, sa), out)
        row.say('There is also a legacy, non-expiring token Secret for this account; `data.token` is the base64 of that JWT. Deleting the Secret once the pipeline uses `create token`.')
    else:
        row.run('kubectl --token=%s auth whoami' % M(tok), aligned([['ATTRIBUTE', 'VALUE'], ['Username', 'system:serviceaccount:%s:%s' % (ns, sa)],
                                                                     ['UID', uuid4()], ['Groups', '[system:serviceaccounts system:serviceaccounts:%s system:authenticated]' % ns]]))
    return row


@tpl('aws_sts_assume_role_web_identity', True)
def p_sts(c, lg):
    row = Row(c)
    acct = str(R.randint(10 ** 11, 10 ** 12 - 1))
    role = pick(['gha-deploy', 'eks-external-dns', 'vault-aws-auth', 'ci-readonly'])
    t = c.tick()
    akid, sak, st = aws_akid(), aws_secret(), aws_session_token()
    inline = chance(0.5)
    if inline:
        wj = k8s_sa_token('kube-system', 'external-dns', t, kid43(), aud=['sts.amazonaws.com'],
                          iss='https://oidc.eks.%s.amazonaws.com/id/%s' % (pick(['us-east-1', 'eu-west-1']), hx(32).upper()))
        src = M(wj)
        prov = 'arn:aws:iam::%s:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/%s' % (acct, hx(32).upper())
        subj = 'system:serviceaccount:kube-system:external-dns'
    else:
        src = 'file://token.jwt'
        prov = 'arn:aws:iam::%s:oidc-provider/token.actions.githubusercontent.com' % acct
        subj = 'repo:%s/%s:ref:refs/heads/main' % (c.org, c.proj)
    out = jdump({'Credentials': {'AccessKeyId': akid, 'SecretAccessKey': M(sak), 'SessionToken': M(st), 'Expiration': iso(t + 3600, 0, '+00:00')},
                 'SubjectFromWebIdentityToken': subj, 'AssumedRoleUser': {'AssumedRoleId': 'AROA%s:debug-%s' % (rs(UALNUM, 17), c.user),
                                                                         'Arn': 'arn:aws:sts::%s:assumed-role/%s/debug-%s' % (acct, role, c.user)},
                 'Provider': prov, 'Audience': 'sts.amazonaws.com'}, indent=4)
    row.say('Testing the role trust policy by assuming the role with the web identity token directly.')
    row.run('aws sts assume-role-with-web-identity --role-arn arn:aws:iam::%s:role/%s --role-session-name debug-%s --web-identity-token %s' % (acct, role, c.user, src), out)
    if chance(0.6):
        row.run("eval \"$(jq -r '.Credentials | \"export AWS_ACCESS_KEY_ID=\\(.AccessKeyId) AWS_SECRET_ACCESS_KEY=\\(.SecretAccessKey) AWS_SESSION_TOKEN=\\(.SessionToken)\"' /tmp/creds.json)\" && env | grep ^AWS_ | sort",
                ['AWS_ACCESS_KEY_ID=' + akid, 'AWS_DEFAULT_REGION=us-east-1', 'AWS_SECRET_ACCESS_KEY=' + M(sak), 'AWS_SESSION_TOKEN=' + M(st)])
    row.run('aws sts get-caller-identity', jdump({'UserId': 'AROA%s:debug-%s' % (rs(UALNUM, 17), c.user), 'Account': acct,
                                                  'Arn': 'arn:aws:sts::%s:assumed-role/%s/debug-%s' % (acct, role, c.user)}, indent=4))
    row.say('The trust policy accepts the token. The temporary keys are valid for an hour; I will unset them when done.')
    return row


@tpl('gha_run_log_oidc_token_echoed', True)
def p_gha_oidc(c, lg):
    row = Row(c)
    t = c.tick()
    aud = pick(['sts.amazonaws.com', 'api://AzureADTokenExchange', 'https://vault.%s' % c.domain, '//iam.googleapis.com/projects/%d/locations/global/workloadIdentityPools/gh/providers/gh' % R.randint(10 ** 11, 10 ** 12)])
    tok = gha_oidc(c.org, c.proj, t, aud=aud)
    job, step = 'deploy', 'Debug OIDC claims'
    lines = []
    tt = t - 3

    def L(s):
        nonlocal tt
        tt += R.randint(0, 1)
        lines.append('%s\t%s\t%s %s' % (job, step, iso(tt, 7), s))
    L('##[group]Run TOKEN=$(curl -sSL -H "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" "$ACTIONS_ID_TOKEN_REQUEST_URL&audience=%s" | jq -r .value)' % aud)
    L('TOKEN=$(curl -sSL -H "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" "$ACTIONS_ID_TOKEN_REQUEST_URL&audience=%s" | jq -r .value)' % aud)
    L('echo "id_token=$TOKEN"')
    L('echo "$TOKEN" | cut -d. -f2 | base64 -d 2>/dev/null | jq -c \'{sub, aud, ref, job_workflow_ref}\'')
    L('shell: /usr/bin/bash -e {0}')
    L('##[endgroup]')
    L('id_token=' + M(tok))
    h, p = jwt_parts(tok)
    L(jcompact({'sub': p['sub'], 'aud': p['aud'], 'ref': p['ref'], 'job_workflow_ref': p['job_workflow_ref']}))
    rid = p['run_id']
    row.say('Pulling the log of the failed deploy run to see the OIDC claims.')
    row.run('gh run view %s --log --job %d | grep -A9 "Debug OIDC"' % (rid, R.randint(10 ** 10, 10 ** 11)), lines)
    row.say('GitHub masks `ACTIONS_ID_TOKEN_REQUEST_TOKEN` but not the ID token the step echoed; it is valid for a few minutes and was exchangeable for cloud credentials. Replacing the echo with `::add-mask::` and printing only the claims.')
    return row


# ===========================================================================
# NEGATIVE TEMPLATES (no secrets; hard look-alikes of the theme)
# ===========================================================================
def rsa_jwk_public(kid=None, with_x5c=True, alg='RS256'):
    n = fake_modulus()
    j = {'kid': kid or kid43(), 'kty': 'RSA', 'alg': alg, 'use': 'sig', 'n': b64u(n.to_bytes(256, 'big')), 'e': 'AQAB'}
    if with_x5c:
        cert = Cert(pick(['realm', 'idp', 'signing']), days=3650)
        j['x5c'] = [cert.b64]
        j['x5t'] = b64u(hashlib.sha1(cert.der).digest())
        j['x5t#S256'] = b64u(hashlib.sha256(cert.der).digest())
    return j


@tpl('oidc_discovery_well_known_json', False)
def n_discovery(c, lg):
    row = Row(c)
    kind = pick(['keycloak', 'okta', 'generic'])
    if kind == 'keycloak':
        iss = 'https://%s/realms/%s' % (kc_host(c), c.realm)
        base = iss + '/protocol/openid-connect'
        ep = {'authorization_endpoint': base + '/auth', 'token_endpoint': base + '/token', 'introspection_endpoint': base + '/token/introspect',
              'userinfo_endpoint': base + '/userinfo', 'end_session_endpoint': base + '/logout', 'jwks_uri': base + '/certs',
              'device_authorization_endpoint': base + '/auth/device', 'revocation_endpoint': base + '/revoke'}
    elif kind == 'okta':
        iss = 'https://%s.okta.com/oauth2/default' % c.org
        base = iss + '/v1'
        ep = {'authorization_endpoint': base + '/authorize', 'token_endpoint': base + '/token', 'userinfo_endpoint': base + '/userinfo',
              'registration_endpoint': 'https://%s.okta.com/oauth2/v1/clients' % c.org, 'jwks_uri': base + '/keys',
              'introspection_endpoint': base + '/introspect', 'revocation_endpoint': base + '/revoke', 'end_session_endpoint': base + '/logout',
              'device_authorization_endpoint': base + '/device/authorize'}
    else:
        iss = 'https://auth.%s' % c.domain
        ep = {'authorization_endpoint': iss + '/oauth2/auth', 'token_endpoint': iss + '/oauth2/token', 'jwks_uri': iss + '/.well-known/jwks.json',
              'userinfo_endpoint': iss + '/userinfo', 'revocation_endpoint': iss + '/oauth2/revoke', 'end_session_endpoint': iss + '/oauth2/sessions/logout'}
    doc = {'issuer': iss}
    doc.update(ep)
    doc.update({'grant_types_supported': ['authorization_code', 'implicit', 'refresh_token', 'password', 'client_credentials',
                                          'urn:ietf:params:oauth:grant-type:device_code', 'urn:openid:params:grant-type:ciba'][:R.randint(4, 7)],
                'response_types_supported': ['code', 'none', 'id_token', 'token', 'id_token token', 'code id_token', 'code token', 'code id_token token'],
                'subject_types_supported': ['public', 'pairwise'], 'id_token_signing_alg_values_supported': ['PS384', 'RS384', 'EdDSA', 'ES384', 'HS256', 'HS512', 'ES256', 'RS256', 'HS384', 'ES512', 'PS256', 'PS512', 'RS512'],
                'token_endpoint_auth_methods_supported': ['private_key_jwt', 'client_secret_basic', 'client_secret_post', 'tls_client_auth', 'client_secret_jwt'],
                'token_endpoint_auth_signing_alg_values_supported': ['PS384', 'RS384', 'ES384', 'HS256', 'HS512', 'ES256', 'RS256'],
                'code_challenge_methods_supported': ['plain', 'S256'], 'claims_parameter_supported': True, 'request_parameter_supported': True,
                'request_uri_parameter_supported': True, 'require_request_uri_registration': True,
                'scopes_supported': ['openid', 'profile', 'email', 'offline_access', 'roles', 'web-origins', 'acr', 'address', 'phone'],
                'claims_supported': ['aud', 'sub', 'iss', 'auth_time', 'name', 'given_name', 'family_name', 'preferred_username', 'email', 'acr'],
                'tls_client_certificate_bound_access_tokens': True, 'backchannel_logout_supported': True, 'backchannel_logout_session_supported': True,
                'mtls_endpoint_aliases': {'token_endpoint': ep['token_endpoint'].replace('https://', 'https://mtls.', 1)}})
    row.say('Fetching the discovery document to confirm which client authentication methods the token endpoint accepts.')
    host = iss.split('/')[2]
    row.run('curl -s %s/.well-known/openid-configuration | jq' % iss, jdump(doc))
    row.run("curl -s %s/.well-known/openid-configuration | jq -r '.token_endpoint_auth_methods_supported[]'" % iss, doc['token_endpoint_auth_methods_supported'])
    row.say('`client_secret_basic` and `private_key_jwt` are both allowed, so the service can switch to a signed client assertion without any IdP change.')
    return row


@tpl('jwks_uri_public_keys_jq', False)
def n_jwks(c, lg):
    row = Row(c)
    host = kc_host(c)
    url = pick(['https://%s/realms/%s/protocol/openid-connect/certs' % (host, c.realm), 'https://%s.okta.com/oauth2/default/v1/keys' % c.org,
                'https://%s.us.auth0.com/.well-known/jwks.json' % c.org, 'https://login.microsoftonline.com/%s/discovery/v2.0/keys' % uuid4()])
    keys = [rsa_jwk_public() for _ in range(R.randint(1, 2))]
    if chance(0.5):
        ec = ECKey()
        j = ec.jwk(kid=kid43())
        j.update({'alg': 'ES256', 'use': 'sig'})
        keys.append(j)
    if chance(0.4):
        k = rsa_jwk_public(with_x5c=False, alg='RSA-OAEP')
        k['use'] = 'enc'
        keys.append(k)
    row.say('Looking at the published signing keys; the API rejects tokens with `kid not found`.')
    row.run('curl -s %s | jq' % url, jdump({'keys': keys}))
    row.run("curl -s %s | jq -r '.keys[] | [.kid, .alg, .use] | @tsv'" % url, ['%s\t%s\t%s' % (k['kid'], k.get('alg', ''), k.get('use', '')) for k in keys])
    row.say('The JWKS only holds public parameters (`n`, `e`, `x`, `y` and the `x5c` certificate chain). The token\'s `kid` is not among them, so the API cached an old key set.')
    return row


JWT_IO = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'
RFC7519_JWT = 'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
RFC7519_NONE = 'eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.'


@tpl('auth_docs_sample_tokens_grep', False)
def n_docs_tokens(c, lg):
    row = Row(c)
    docs = R.sample([
        ('docs/auth/jwt.md', 'The example from jwt.io decodes to `{"sub":"1234567890","name":"John Doe","iat":1516239022}`: `%s`' % JWT_IO),
        ('docs/auth/jwt.md', 'Unsigned tokens (`"alg": "none"`, RFC 7519 §6.1) must be rejected: `%s`' % RFC7519_NONE),
        ('docs/auth/jwt.md', 'RFC 7519 §3.1 example: `%s`' % RFC7519_JWT),
        ('docs/oauth/token-endpoint.md', '    Authorization: Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW'),
        ('docs/oauth/token-endpoint.md', '    {"access_token":"2YotnFZFEjr1zCsicMWpAA","token_type":"example","expires_in":3600,"refresh_token":"tGzv3JOkF0XG5Qx2TlKWIA"}'),
        ('docs/oauth/pkce.md', '| `code_verifier` | `dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk` (RFC 7636 appendix B) |'),
        ('docs/oauth/pkce.md', '| `code_challenge` | `E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM` |'),
        ('docs/mfa/totp.md', 'Test seed from RFC 6238: ASCII `12345678901234567890`, base32 `GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ`.'),
        ('docs/oauth/token-endpoint.md', '    client_id=s6BhdRkqt3&client_secret=7Fjfp0ZBr1KtDRbnfVdmIw'),
        ('README.md', 'Set `OKTA_CLIENT_SECRET=<your-client-secret>` and `SESSION_SECRET=<output of openssl rand -hex 32>` in `.env.local`.'),
        ('docs/ldap.md', 'ldapsearch -x -D "cn=admin,dc=example,dc=org" -W -b "dc=example,dc=org"   # -W prompts for the bind password'),
    ], R.randint(5, 9))
    docs.sort(key=lambda d: d[0])
    out = ['%s:%d:%s' % (f, R.randint(3, 240), line) for f, line in docs]
    row.say('Searching the docs for example credentials before the secret scanner config change.')
    row.run("rg -n 'eyJ|client_secret|Basic |code_verifier|code_challenge|seed' docs/ README.md", out)
    row.say('All of these are the published RFC and jwt.io examples or placeholders, so they go into the scanner allowlist by exact value.')
    return row


@tpl('authorize_redirect_state_nonce_log', False)
def n_authorize_log(c, lg):
    row = Row(c)
    host = kc_host(c)
    app = 'app.' + c.domain
    t = c.tick()
    out = []
    for _ in range(R.randint(2, 4)):
        st = b64u(rbytes(pick([16, 24, 32])))
        nonce = b64u(rbytes(16))
        ver = b64u(rbytes(32))
        ch = b64u(hashlib.sha256(ver.encode()).digest())
        cid = c.proj
        ip = ipv4_public()
        sid = uuid4()
        code = '%s.%s.%s' % (uuid4(), sid, uuid4())
        q = urllib.parse.urlencode([('client_id', cid), ('redirect_uri', 'https://%s/auth/callback' % app), ('response_type', 'code'),
                                    ('scope', 'openid profile email'), ('state', st), ('nonce', nonce), ('code_challenge', ch), ('code_challenge_method', 'S256')])
        t += R.randint(1, 40)
        y, m, d, hh, mi, ss, _ = civil(t)
        ts = '%02d/%s/%04d:%02d:%02d:%02d +0000' % (d, MONTHS[m - 1], y, hh, mi, ss)
        out.append('%s - - [%s] "GET /realms/%s/protocol/openid-connect/auth?%s HTTP/2.0" 200 %d "https://%s/" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15"' % (
            ip, ts, c.realm, q, R.randint(3000, 9000), app))
        t += R.randint(3, 30)
        y, m, d, hh, mi, ss, _ = civil(t)
        ts = '%02d/%s/%04d:%02d:%02d:%02d +0000' % (d, MONTHS[m - 1], y, hh, mi, ss)
        out.append('%s - - [%s] "GET /auth/callback?state=%s&session_state=%s&iss=%s&code=%s HTTP/2.0" 302 0 "https://%s/" "Mozilla/5.0"' % (
            ip, ts, st, sid, urlenc('https://%s/realms/%s' % (host, c.realm)), code, host))
    row.say('Tracing two login attempts through the ingress log to see where the state check fails.')
    row.run('kubectl -n ingress-nginx logs deploy/ingress-nginx-controller --since=15m | grep -E "openid-connect/auth|/auth/callback"', out)
    row.say('`state` round-trips intact and the `code` was redeemed once (single use). The failure is the `iss` parameter check, not PKCE.')
    return row


@tpl('keycloak_events_login_admin_log', False)
def n_kc_events(c, lg):
    row = Row(c)
    t = c.tick()
    out = []
    for _ in range(R.randint(5, 10)):
        t += R.randint(0, 30)
        typ = pick(['LOGIN', 'CODE_TO_TOKEN', 'REFRESH_TOKEN', 'LOGIN_ERROR', 'LOGOUT', 'CLIENT_LOGIN', 'INTROSPECT_TOKEN'])
        user = pick(USERS)
        fields = ['type="%s"' % typ, 'realmId="%s"' % uuid4(), 'realmName="%s"' % c.realm, 'clientId="%s"' % pick([c.proj, 'account-console', 'grafana', c.proj + '-backend']),
                  'userId="%s"' % uuid4(), 'sessionId="%s"' % uuid4(), 'ipAddress="%s"' % ipv4_private()]
        if typ == 'LOGIN_ERROR':
            fields += ['error="invalid_user_credentials"', 'auth_method="openid-connect"', 'auth_type="code"', 'redirect_uri="https://app.%s/auth/callback"' % c.domain,
                       'code_id="%s"' % uuid4(), 'username="%s"' % user, 'authSessionParentId="%s"' % uuid4(), 'authSessionTabId="%s"' % rs(B64U, 11)]
        elif typ in ('LOGIN',):
            fields += ['auth_method="openid-connect"', 'auth_type="code"', 'response_type="code"', 'redirect_uri="https://app.%s/auth/callback"' % c.domain,
                       'consent="no_consent_required"', 'code_id="%s"' % uuid4(), 'username="%s"' % user, 'response_mode="query"',
                       'authSessionParentId="%s"' % uuid4(), 'authSessionTabId="%s"' % rs(B64U, 11)]
        elif typ in ('CODE_TO_TOKEN', 'REFRESH_TOKEN'):
            fields += ['token_id="%s"' % uuid4(), 'grant_type="%s"' % ('authorization_code' if typ == 'CODE_TO_TOKEN' else 'refresh_token'),
                       'refresh_token_type="Refresh"', 'scope="openid profile email"', 'refresh_token_id="%s"' % uuid4(), 'code_id="%s"' % uuid4(),
                       'client_auth_method="client-secret"']
        else:
            fields += ['client_auth_method="client-secret"', 'grant_type="client_credentials"', 'token_id="%s"' % uuid4()]
        out.append('%s %s [org.keycloak.events] (executor-thread-%d) %s' % (sqlts(t) + ',%03d' % R.randint(0, 999),
                                                                             'WARN ' if typ == 'LOGIN_ERROR' else 'DEBUG', R.randint(1, 40), ', '.join(fields)))
    row.say('Keycloak event logging is on; reading the last events for the failing client.')
    row.run('docker compose logs keycloak --no-log-prefix --since 10m | grep org.keycloak.events', out)
    row.say('Only identifiers are logged (realm, user, session, token and code IDs); `LOGIN_ERROR` shows `invalid_user_credentials`, so the user typed a wrong password.')
    return row


@tpl('okta_system_log_events_json', False)
def n_okta_log(c, lg):
    row = Row(c)
    org = '%s.okta.com' % c.org
    t = c.tick()
    evs = []
    for _ in range(R.randint(2, 3)):
        name, handle, email = c.person()
        t += R.randint(5, 300)
        evs.append({'actor': {'id': okta_user_id(), 'type': 'User', 'alternateId': email, 'displayName': name, 'detailEntry': None},
                    'client': {'userAgent': {'rawUserAgent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
                                             'os': 'Linux', 'browser': 'CHROME'}, 'zone': 'null', 'device': 'Computer', 'id': None, 'ipAddress': ipv4_public(),
                               'geographicalContext': {'city': pick(['Berlin', 'Toronto', 'Osaka', 'Lagos', 'Austin', 'Dublin']), 'state': None, 'country': None}},
                    'authenticationContext': {'authenticationProvider': None, 'credentialProvider': None, 'credentialType': None, 'issuer': None,
                                              'interface': None, 'authenticationStep': 0, 'externalSessionId': 'idx' + rs(B64U, 22)},
                    'displayMessage': pick(['User login to Okta', 'Authenticate user with AD agent', 'Evaluation of sign-on policy', 'User single sign on to app']),
                    'eventType': pick(['user.session.start', 'user.authentication.auth_via_AD_agent', 'policy.evaluate_sign_on', 'user.authentication.sso']),
                    'outcome': {'result': pick(['SUCCESS', 'SUCCESS', 'FAILURE', 'ALLOW']), 'reason': None}, 'published': iso(t, 3),
                    'severity': 'INFO', 'debugContext': {'debugData': {'requestId': rs(B64U, 27) + 'AAB' + rs(ALNUM, 3), 'dtHash': hx(64),
                                                                       'requestUri': '/idp/idx/authenticators/poll', 'threatSuspected': 'false',
                                                                       'url': '/idp/idx/authenticators/poll?'}},
                    'legacyEventType': 'core.user_auth.login_success', 'transaction': {'type': 'WEB', 'id': rs(B64U, 27) + 'AAB' + rs(ALNUM, 3), 'detail': {}},
                    'uuid': uuid4(), 'version': '0', 'target': [{'id': '0oa' + rs(ALNUM, 17), 'type': 'AppInstance', 'alternateId': c.proj, 'displayName': c.proj}]})
    row.say('Pulling recent sign-in events; the API token comes from the environment.')
    if chance(0.5):
        row.run('curl -s -H "Authorization: SSWS ${OKTA_API_TOKEN}" "https://%s/api/v1/logs?since=%s&limit=%d" | jq -c \'.[] | del(.request)\'' % (org, iso(c.t - 3600, 3), len(evs)),
                [jcompact(e) for e in evs])
    else:
        row.run('curl -s -H "Authorization: SSWS ${OKTA_API_TOKEN}" "https://%s/api/v1/logs?since=%s&limit=1" | jq \'.[0] | del(.request)\'' % (org, iso(c.t - 3600, 3)),
                jdump(evs[0]))
    return row


@tpl('auth0_apps_list_client_ids', False)
def n_auth0_list(c, lg):
    row = Row(c)
    tenant = '%s.%s.auth0.com' % (c.org, pick(['us', 'eu']))
    apps = [(auth0_client_id(), n, ty) for n, ty in R.sample([('Default App', 'Generic'), ('portal-spa', 'Single Page Web Application'),
                                                               ('billing-worker', 'Machine to Machine'), ('mobile-ios', 'Native'),
                                                               ('admin-console', 'Regular Web Application'), ('API Explorer Application', 'Machine to Machine'),
                                                               ('scim-sync', 'Machine to Machine')], R.randint(3, 6))]
    out = ['', '=== %s applications' % tenant, ''] + ['  ' + l for l in aligned([['CLIENT ID', 'NAME', 'TYPE']] + [[a, b, t_] for a, b, t_ in apps], gap=2)] + ['']
    row.run('auth0 apps list', out)
    apis = [['ID', 'NAME', 'IDENTIFIER', 'SCOPES'], [hx(24), 'Auth0 Management API', 'https://%s/api/v2/' % tenant, str(R.randint(90, 140))],
            [hx(24), '%s API' % c.proj, 'https://api.%s' % c.domain, str(R.randint(2, 12))]]
    row.run('auth0 apis list', ['', '=== %s APIs' % tenant, ''] + ['  ' + l for l in aligned(apis, gap=2)] + [''])
    cid = apps[0][0]
    row.run('auth0 apps show %s --json | jq \'{client_id, name, app_type, token_endpoint_auth_method, grant_types, callbacks}\'' % cid,
            jdump({'client_id': cid, 'name': apps[0][1], 'app_type': 'non_interactive', 'token_endpoint_auth_method': pick(['client_secret_post', 'client_secret_basic', 'private_key_jwt']),
                   'grant_types': ['client_credentials'], 'callbacks': []}))
    row.say('Without `--reveal-secrets` the CLI never prints client secrets; client IDs are public identifiers.')
    return row


@tpl('az_ad_app_show_key_credentials', False)
def n_az_app_show(c, lg):
    row = Row(c)
    app = uuid4()
    t = c.tick()
    cert = Cert('%s-signing' % c.proj, days=730)
    thumb = hashlib.sha1(cert.der).hexdigest().upper()
    doc = {'appId': app, 'displayName': c.proj, 'id': uuid4(), 'identifierUris': ['api://%s' % app], 'signInAudience': 'AzureADMyOrg',
           'keyCredentials': [{'customKeyIdentifier': thumb, 'displayName': 'CN=%s-signing' % c.proj, 'endDateTime': iso(cert.t1, 0),
                               'key': None, 'keyId': uuid4(), 'startDateTime': iso(cert.t0, 0), 'type': 'AsymmetricX509Cert', 'usage': 'Verify'}],
           'passwordCredentials': [{'customKeyIdentifier': None, 'displayName': pick(['ci', 'rotate-%s' % ymd(t)]), 'endDateTime': iso(t + 86400 * 200, 6),
                                    'hint': rs(ALNUM, 3), 'keyId': uuid4(), 'secretText': None, 'startDateTime': iso(t - 86400 * 160, 6)}],
           'requiredResourceAccess': [{'resourceAccess': [{'id': 'e1fe6dd8-ba31-4d61-89e7-88639da4683d', 'type': 'Scope'},
                                                          {'id': 'df021288-bdef-4463-88db-98f22de89214', 'type': 'Role'}],
                                       'resourceAppId': '00000003-0000-0000-c000-000000000000'}],
           'web': {'redirectUris': ['https://app.%s/auth/callback' % c.domain], 'implicitGrantSettings': {'enableAccessTokenIssuance': False, 'enableIdTokenIssuance': False}}}
    row.run("az ad app show --id %s --query '{appId:appId,displayName:displayName,id:id,identifierUris:identifierUris,signInAudience:signInAudience,keyCredentials:keyCredentials,passwordCredentials:passwordCredentials,requiredResourceAccess:requiredResourceAccess,web:web}'" % app, jdump(doc))
    row.run('openssl x509 -in certs/%s-signing.crt -noout -fingerprint -sha1' % c.proj, ['SHA1 Fingerprint=' + cert.fp('sha1')])
    row.say('The certificate credential matches (`customKeyIdentifier` is its SHA-1 thumbprint). The password credential only exposes a three-character `hint`; `secretText` is never returned after creation.')
    return row


@tpl('az_ad_app_federated_credentials', False)
def n_az_fic(c, lg):
    row = Row(c)
    app = uuid4()
    creds = []
    for env in R.sample(['main', 'production', 'staging', 'pull_request'], R.randint(2, 3)):
        subj = 'repo:%s/%s:environment:%s' % (c.org, c.proj, env) if env != 'main' and env != 'pull_request' else (
            'repo:%s/%s:ref:refs/heads/main' % (c.org, c.proj) if env == 'main' else 'repo:%s/%s:pull_request' % (c.org, c.proj))
        creds.append({'audiences': ['api://AzureADTokenExchange'], 'description': None, 'id': uuid4(), 'issuer': 'https://token.actions.githubusercontent.com',
                      'name': 'gha-%s' % env.replace('_', '-'), 'subject': subj})
    if chance(0.5):
        creds.append({'audiences': ['api://AzureADTokenExchange'], 'description': 'AKS workload identity', 'id': uuid4(),
                      'issuer': 'https://%s.oic.prod-aks.azure.com/%s/%s/' % (pick(['eastus', 'westeurope']), uuid4(), uuid4()),
                      'name': 'aks-%s' % c.proj, 'subject': 'system:serviceaccount:%s:%s' % (pick(['apps', 'prod']), c.proj)})
    row.run('az ad app federated-credential list --id %s' % app, jdump(creds))
    row.say('Federated credentials hold no secret at all: Entra trusts the GitHub/AKS issuer and matches `subject`, so nothing here needs rotating.')
    return row


@tpl('gcloud_iam_keys_list_disabled_table', False)
def n_gcloud_keys(c, lg):
    row = Row(c)
    proj = '%s-%s' % (c.org, pick(['prod', 'identity', 'platform']))
    sa = '%s@%s.iam.gserviceaccount.com' % (pick(['deployer', 'workspace-sync', 'ci-runner']), proj)
    t = c.tick()
    rows_ = [['KEY_ID', 'CREATED_AT', 'EXPIRES_AT', 'DISABLED']]
    for _ in range(R.randint(2, 5)):
        t0 = t - 86400 * R.randint(5, 900)
        rows_.append([hx(40), iso(t0, 0), pick([iso(t0 + 86400 * 90, 0), '9999-12-31T23:59:59Z']), pick(['', 'True'])])
    row.run('gcloud iam service-accounts keys list --iam-account=%s --managed-by=user' % sa, aligned(rows_, gap=2))
    row.run('gcloud iam service-accounts describe %s --format=json' % sa,
            jdump({'email': sa, 'etag': 'MDEwMjE5MjA=', 'name': 'projects/%s/serviceAccounts/%s' % (proj, sa), 'oauth2ClientId': str(R.randint(10 ** 20, 10 ** 21 - 1)),
                   'projectId': proj, 'uniqueId': str(R.randint(10 ** 20, 10 ** 21 - 1))}))
    row.say('User-managed keys are listed by ID only; the private key material is only ever returned at creation time. Disabling the ones older than 90 days.')
    return row


@tpl('gcp_wif_external_account_config', False)
def n_wif(c, lg):
    row = Row(c)
    pn = R.randint(10 ** 11, 10 ** 12 - 1)
    pool, prov = pick(['gh-pool', 'eks-pool', 'aks-pool']), pick(['github', 'eks-oidc', 'aks'])
    sa = 'deployer@%s-prod.iam.gserviceaccount.com' % c.org
    cfg = {'universe_domain': 'googleapis.com', 'type': 'external_account',
           'audience': '//iam.googleapis.com/projects/%d/locations/global/workloadIdentityPools/%s/providers/%s' % (pn, pool, prov),
           'subject_token_type': 'urn:ietf:params:oauth:token-type:jwt', 'token_url': 'https://sts.googleapis.com/v1/token',
           'credential_source': {'file': '/var/run/secrets/tokens/gcp-ksa/token', 'format': {'type': 'text'}},
           'service_account_impersonation_url': 'https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/%s:generateAccessToken' % sa}
    row.run('gcloud iam workload-identity-pools create-cred-config projects/%d/locations/global/workloadIdentityPools/%s/providers/%s --service-account=%s --credential-source-file=/var/run/secrets/tokens/gcp-ksa/token --output-file=wif.json' % (pn, pool, prov, sa),
            ['Created credential configuration file [wif.json].'])
    v = row.viewer(allow=('cat', 'catn', 'bat'))
    row.show(v, 'wif.json', jdump(cfg))
    row.run('gcloud iam workload-identity-pools providers describe %s --workload-identity-pool=%s --location=global --format="yaml(attributeMapping,attributeCondition,oidc)"' % (prov, pool),
            ['attributeCondition: assertion.repository_owner == \'%s\'' % c.org, 'attributeMapping:', '  attribute.repository: assertion.repository',
             '  google.subject: assertion.sub', 'oidc:', '  issuerUri: https://token.actions.githubusercontent.com'])
    row.say('This file is safe to commit: it only points at the projected token path and the STS endpoint; no key material.')
    return row


def saml_cert_block(cert, width=None):
    return cert.b64 if not width else '\n'.join(wrap(cert.b64, width))


@tpl('saml_idp_metadata_xmllint_cert', False)
def n_saml_meta(c, lg):
    row = Row(c)
    host = kc_host(c)
    ent = 'https://%s/realms/%s' % (host, c.realm) if chance(0.5) else 'http://www.okta.com/exk' + rs(ALNUM, 17)
    cert = Cert(c.realm if 'realms' in ent else 'dev-%d' % R.randint(10 ** 6, 10 ** 7), days=3650)
    sso = 'https://%s/realms/%s/protocol/saml' % (host, c.realm)
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="%s">' % ent,
           '  <md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
           '    <md:KeyDescriptor use="signing">', '      <ds:KeyInfo>', '        <ds:KeyName>%s</ds:KeyName>' % rs(B64U, 43), '        <ds:X509Data>',
           '          <ds:X509Certificate>%s</ds:X509Certificate>' % cert.b64, '        </ds:X509Data>', '      </ds:KeyInfo>', '    </md:KeyDescriptor>',
           '    <md:ArtifactResolutionService Binding="urn:oasis:names:tc:SAML:2.0:bindings:SOAP" Location="%s/resolve" index="0"/>' % sso,
           '    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="%s"/>' % sso,
           '    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="%s"/>' % sso,
           '    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>',
           '    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>',
           '    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="%s"/>' % sso,
           '    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="%s"/>' % sso,
           '  </md:IDPSSODescriptor>', '</md:EntityDescriptor>']
    row.run('curl -s %s/descriptor | xmllint --format -' % sso, out)
    row.run("xmllint --xpath 'string(//*[local-name()=\"X509Certificate\"])' idp-metadata.xml | base64 -d | openssl x509 -inform der -noout -subject -enddate -fingerprint -sha256",
            ['subject=CN = %s' % cert.cn, 'notAfter=%s' % certdate(cert.t1), 'sha256 Fingerprint=%s' % cert.fp()])
    row.say('The metadata only carries the IdP\'s public signing certificate; the SP config should pin this fingerprint.')
    return row


def saml_id():
    return '_' + hx(40)


@tpl('saml_response_decoded_consumed', False)
def n_saml_resp(c, lg):
    row = Row(c)
    idp = 'https://%s/realms/%s' % (kc_host(c), c.realm)
    sp = 'https://%s.%s/saml/metadata' % (pick(['wiki', 'hr', 'portal']), c.domain)
    acs = sp.replace('/metadata', '/acs')
    t = c.tick()
    name, handle, email = c.person()
    cert = Cert(c.realm, days=3650)
    rid, aid, req = saml_id(), saml_id(), 'ONELOGIN_' + hx(40)
    out = ['<?xml version="1.0"?>', '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" Destination="%s" ID="%s" InResponseTo="%s" IssueInstant="%s" Version="2.0">' % (acs, rid, req, iso(t, 3)),
           '  <saml:Issuer>%s</saml:Issuer>' % idp, '  <samlp:Status>', '    <samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/>', '  </samlp:Status>',
           '  <saml:Assertion ID="%s" IssueInstant="%s" Version="2.0">' % (aid, iso(t, 3)), '    <saml:Issuer>%s</saml:Issuer>' % idp,
           '    <dsig:Signature xmlns:dsig="http://www.w3.org/2000/09/xmldsig#">', '      <dsig:SignedInfo>',
           '        <dsig:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>',
           '        <dsig:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>', '        <dsig:Reference URI="#%s">' % aid,
           '          <dsig:Transforms>', '            <dsig:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>',
           '            <dsig:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>', '          </dsig:Transforms>',
           '          <dsig:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>', '          <dsig:DigestValue>%s</dsig:DigestValue>' % b64(rbytes(32)),
           '        </dsig:Reference>', '      </dsig:SignedInfo>', '      <dsig:SignatureValue>%s</dsig:SignatureValue>' % b64(rbytes(256)),
           '      <dsig:KeyInfo>', '        <dsig:X509Data>', '          <dsig:X509Certificate>%s</dsig:X509Certificate>' % cert.b64, '        </dsig:X509Data>',
           '      </dsig:KeyInfo>', '    </dsig:Signature>', '    <saml:Subject>',
           '      <saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">%s</saml:NameID>' % email,
           '      <saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">',
           '        <saml:SubjectConfirmationData InResponseTo="%s" NotOnOrAfter="%s" Recipient="%s"/>' % (req, iso(t + 300, 3), acs),
           '      </saml:SubjectConfirmation>', '    </saml:Subject>', '    <saml:Conditions NotBefore="%s" NotOnOrAfter="%s">' % (iso(t - 60, 3), iso(t + 60, 3)),
           '      <saml:AudienceRestriction>', '        <saml:Audience>%s</saml:Audience>' % sp, '      </saml:AudienceRestriction>', '    </saml:Conditions>',
           '    <saml:AuthnStatement AuthnInstant="%s" SessionIndex="%s::%s" SessionNotOnOrAfter="%s">' % (iso(t - 5, 3), uuid4(), uuid4(), iso(t + 36000, 3)),
           '      <saml:AuthnContext>', '        <saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified</saml:AuthnContextClassRef>',
           '      </saml:AuthnContext>', '    </saml:AuthnStatement>', '    <saml:AttributeStatement>',
           '      <saml:Attribute Name="displayName" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">',
           '        <saml:AttributeValue xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="xs:string">%s</saml:AttributeValue>' % name,
           '      </saml:Attribute>', '    </saml:AttributeStatement>', '  </saml:Assertion>', '</samlp:Response>']
    row.say('Decoding the SAMLResponse captured from the browser (already consumed by the SP) to compare the audience.')
    row.run('pbpaste | base64 -d | xmllint --format -' if chance(0.5) else 'base64 -d < /tmp/samlresponse.b64 | xmllint --format -', out)
    row.run('grep -c "%s" /var/log/%s/saml.log' % (aid, c.proj), ['1'])
    row.say('The `Audience` is `%s` but the SP expects the ACS URL as entity ID. The assertion expired at `NotOnOrAfter` and its ID is already in the replay cache.' % sp)
    return row


@tpl('saml_authnrequest_redirect_deflate', False)
def n_saml_req(c, lg):
    row = Row(c)
    sp = 'https://%s.%s/saml/metadata' % (pick(['wiki', 'hr', 'portal']), c.domain)
    idp = 'https://%s/realms/%s/protocol/saml' % (kc_host(c), c.realm)
    t = c.tick()
    rid = 'ONELOGIN_' + hx(40) if chance(0.5) else saml_id()
    xml = ('<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" '
           'ID="%s" Version="2.0" IssueInstant="%s" Destination="%s" ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" '
           'AssertionConsumerServiceURL="%s"><saml:Issuer>%s</saml:Issuer><samlp:NameIDPolicy Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" AllowCreate="true"/></samlp:AuthnRequest>') % (
        rid, iso(t, 0), idp, sp.replace('/metadata', '/acs'), sp)
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    deflated = co.compress(xml.encode()) + co.flush()
    req = b64(deflated)
    relay = b64u(rbytes(24))
    sig = b64(rbytes(256))
    url = '%s?SAMLRequest=%s&RelayState=%s&SigAlg=%s&Signature=%s' % (idp, urlenc(req), relay, urlenc('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256'), urlenc(sig))
    row.say('Decoding the redirect the SP produced.')
    row.run('curl -s -o /dev/null -w "%%{redirect_url}\\n" https://%s/saml/login' % sp.split('/')[2], [url])
    row.run('python3 -c \'import sys,zlib,base64,urllib.parse as u; q=u.parse_qs(u.urlsplit(sys.argv[1]).query); print(zlib.decompress(base64.b64decode(q["SAMLRequest"][0]), -15).decode())\' "$(pbpaste)"',
            [xml])
    row.say('The request is signed (`SigAlg`/`Signature` over the query string), `RelayState` is an opaque return pointer, and the payload is only a deflated AuthnRequest — none of it is secret.')
    return row


@tpl('auth_users_table_mixed_kdf_hashes', False)
def n_users_hashes(c, lg):
    row = Row(c)
    rows_ = []
    t = c.tick()
    for name, handle in R.sample(PEOPLE, R.randint(4, 8)):
        email = handle + '@' + c.domain
        h = pick([bcrypt_hash, argon2_hash, scrypt_hash, pbkdf2_django])()
        rows_.append([str(R.randint(1, 9000)), email, name, h, pick(['t', 'f']), sqlts(t - R.randint(100, 9000000)) + '+00'])
    db = c.proj.replace('-', '_')
    row.say('Checking which password hash formats are still in the users table before dropping the legacy verifier.')
    row.run('psql -d %s -c "SELECT id, email, display_name, password_hash, mfa_enabled, last_login_at FROM users ORDER BY last_login_at DESC LIMIT %d"' % (db, len(rows_)),
            psql_table(['id', 'email', 'display_name', 'password_hash', 'mfa_enabled', 'last_login_at'], rows_, unicode_lines=chance(0.3)))
    cnt = [['bcrypt', str(R.randint(100, 9000))], ['argon2id', str(R.randint(100, 9000))], ['scrypt', str(R.randint(0, 300))], ['pbkdf2_sha256', str(R.randint(0, 300))]]
    row.run('psql -d %s -At -F \' \' -c "SELECT CASE WHEN password_hash LIKE \'$2%%\' THEN \'bcrypt\' WHEN password_hash LIKE \'$argon2id$%%\' THEN \'argon2id\' WHEN password_hash LIKE \'%%scrypt%%\' THEN \'scrypt\' ELSE split_part(password_hash, \'$\', 1) END AS algo, count(*) FROM users GROUP BY 1"' % db, [' '.join(x) for x in cnt])
    row.say('These are one-way hashes (bcrypt, argon2id, scrypt, PBKDF2) with per-user salts; they are not credentials. The scrypt and PBKDF2 rows get rehashed on next login.')
    return row


def webauthn_reg(c, rp):
    cred = rbytes(pick([16, 32]))
    ec = ECKey()
    cose = bytes([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]) + ec.Q[0].to_bytes(32, 'big') + bytes([0x22, 0x58, 0x20]) + ec.Q[1].to_bytes(32, 'big')
    aaguid = pick(['fbfc3007-154e-4ecc-8c0b-6e020557d7bd', 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4', 'bada5566-a7aa-401f-bd96-45619a55120d',
                   '08987058-cadc-4b81-b6e1-30de50dcbe96', 'd548826e-79b4-db40-a3d8-11116f7e8349', '00000000-0000-0000-0000-000000000000'])
    auth = hashlib.sha256(rp.encode()).digest() + bytes([0x5d]) + b'\x00\x00\x00\x00' + bytes.fromhex(aaguid.replace('-', '')) + struct.pack('>H', len(cred)) + cred + cose
    att = bytes([0xa3, 0x63]) + b'fmt' + bytes([0x64]) + b'none' + bytes([0x67]) + b'attStmt' + bytes([0xa0, 0x68]) + b'authData' + bytes([0x58, len(auth)]) + auth
    return cred, ec, cose, aaguid, auth, att


@tpl('webauthn_registration_response_json', False)
def n_webauthn_reg(c, lg):
    row = Row(c)
    rp = c.domain
    origin = 'https://app.' + c.domain
    cred, ec, cose, aaguid, auth, att = webauthn_reg(c, rp)
    chal = b64u(rbytes(32))
    cdj = json.dumps({'type': 'webauthn.create', 'challenge': chal, 'origin': origin, 'crossOrigin': False}, separators=(',', ':'))
    resp = {'id': b64u(cred), 'rawId': b64u(cred), 'response': {'attestationObject': b64u(att), 'clientDataJSON': b64u(cdj.encode()),
                                                               'transports': pick([['internal', 'hybrid'], ['usb', 'nfc'], ['hybrid', 'internal']]),
                                                               'publicKeyAlgorithm': -7, 'publicKey': b64u(ec.spki()), 'authenticatorData': b64u(auth)},
            'type': 'public-key', 'clientExtensionResults': {'credProps': {'rk': True}}, 'authenticatorAttachment': pick(['platform', 'cross-platform'])}
    t = c.tick()
    logs = ['%s DEBUG passkeys.register user=%s rp=%s' % (iso(t, 3), pick(USERS), rp), '%s DEBUG passkeys.register response=%s' % (iso(t, 3), jcompact(resp)),
            '%s INFO  passkeys.register verified=true aaguid=%s credentialID=%s counter=0 backedUp=true' % (iso(t, 3), aaguid, b64u(cred))]
    row.say('Registration fails in Safari only; dumping what the browser sent.')
    row.run('grep passkeys.register logs/api.log | tail -n 3', logs)
    row.run("echo '%s' | base64 -d 2>/dev/null; echo" % b64(cdj.encode()), [cdj])
    row.say('Everything in a registration response is public by design: the credential ID, the COSE/SPKI public key, the attestation object and the client data. The challenge matched, the origin is right.')
    return row


@tpl('webauthn_credentials_table_public_keys', False)
def n_webauthn_table(c, lg):
    row = Row(c)
    rows_ = []
    t = c.tick()
    for _ in range(R.randint(3, 6)):
        cred, ec, cose, aaguid, auth, att = webauthn_reg(c, c.domain)
        rows_.append([str(R.randint(1, 9000)), str(R.randint(1, 900)), b64u(cred), b64u(cose), str(R.randint(0, 400)), aaguid,
                      pick(['{internal,hybrid}', '{usb,nfc}', '{hybrid}']), sqlts(t - R.randint(0, 9000000))])
    row.run('psql -d %s -c "SELECT id, user_id, credential_id, public_key, sign_count, aaguid, transports, created_at FROM webauthn_credentials ORDER BY id DESC LIMIT %d"' % (c.proj.replace('-', '_'), len(rows_)),
            psql_table(['id', 'user_id', 'credential_id', 'public_key', 'sign_count', 'aaguid', 'transports', 'created_at'], rows_))
    row.say('`public_key` is the COSE-encoded EC2 public key (`pQECAyYgASFYI…`) and `aaguid` identifies the authenticator model; a stolen copy of this table lets nobody sign in.')
    return row


@tpl('vault_auth_list_detailed_accessors', False)
def n_vault_auth_list(c, lg):
    row = Row(c)
    rows_ = [['Path', 'Plugin', 'Accessor', 'Default TTL', 'Max TTL', 'Token Type', 'Replication', 'Seal Wrap', 'External Entropy Access', 'Options', 'Description', 'UUID', 'Version', 'Running Version', 'Running SHA256', 'Deprecation Status'],
             ['----', '------', '--------', '-----------', '-------', '----------', '-----------', '---------', '-----------------------', '-------', '-----------', '----', '-------', '---------------', '--------------', '------------------']]
    for path, plug in [('approle/', 'approle'), ('github/', 'github'), ('jwt/', 'jwt'), ('kubernetes/', 'kubernetes'), ('oidc/', 'oidc'), ('token/', 'token'), ('userpass/', 'userpass')]:
        if path != 'token/' and chance(0.25):
            continue
        rows_.append([path, plug, 'auth_%s_%s' % (plug, hx(8)), 'system', 'system', 'default-service', 'replicated', 'false', 'false', 'map[]',
                      'token based credentials' if plug == 'token' else 'n/a', uuid4(), 'n/a', 'v1.%d.%d+builtin%s' % (R.randint(15, 18), R.randint(0, 9), '.vault' if plug == 'token' else ''), 'n/a', 'supported' if plug != 'token' else 'n/a'])
    row.run('vault auth list -detailed', aligned(rows_, gap=4))
    row.run('vault read sys/auth/approle/tune', vault_table([('default_lease_ttl', '768h'), ('description', 'n/a'), ('force_no_cache', 'false'),
                                                           ('max_lease_ttl', '768h'), ('token_type', 'default-service')]))
    return row


@tpl('vault_token_lookup_by_accessor', False)
def n_vault_lookup_acc(c, lg):
    row = Row(c)
    accs = [vault_accessor() for _ in range(R.randint(3, 6))]
    row.run('vault list auth/token/accessors', ['Keys', '----'] + accs)
    t = c.tick()
    row.run('vault token lookup -accessor %s' % accs[0], vault_table([('accessor', accs[0]), ('creation_time', str(t - 4000)), ('creation_ttl', '1h'),
                                                                      ('display_name', 'approle'), ('entity_id', uuid4()), ('expire_time', iso(t - 400, 9).replace('Z', '+00:00')),
                                                                      ('explicit_max_ttl', '0s'), ('id', 'n/a'), ('issue_time', iso(t - 4000, 9).replace('Z', '+00:00')),
                                                                      ('meta', 'map[role_name:ci-deployer]'), ('num_uses', '0'), ('orphan', 'true'),
                                                                      ('path', 'auth/approle/login'), ('policies', '[ci-deployer default]'), ('renewable', 'true'),
                                                                      ('ttl', '0s'), ('type', 'service')]))
    row.run('vault token revoke -accessor %s' % accs[1], ['Success! Revoked token (if it existed)'])
    row.say('Looking tokens up by accessor never reveals the token (`id  n/a`), which is why accessors are safe to log.')
    return row


@tpl('vault_approle_role_read_no_secret', False)
def n_vault_role(c, lg):
    row = Row(c)
    role = pick(['ci-deployer', 'webapp', 'ldap-sync'])
    row.run('vault read auth/approle/role/%s' % role, vault_table([('bind_secret_id', 'true'), ('local_secret_ids', 'false'), ('secret_id_bound_cidrs', '[10.0.0.0/8]'),
                                                                  ('secret_id_num_uses', '1'), ('secret_id_ttl', '10m'), ('token_bound_cidrs', '[]'),
                                                                  ('token_explicit_max_ttl', '0s'), ('token_max_ttl', '1h'), ('token_no_default_policy', 'false'),
                                                                  ('token_num_uses', '0'), ('token_period', '0s'), ('token_policies', '[%s]' % role),
                                                                  ('token_ttl', '20m'), ('token_type', 'default')]))
    row.run('vault read -field=role_id auth/approle/role/%s/role-id' % role, [uuid4()])
    accs = [uuid4() for _ in range(R.randint(2, 4))]
    row.run('vault list auth/approle/role/%s/secret-id' % role, ['Keys', '----'] + accs)
    t = c.tick()
    row.run('vault write auth/approle/role/%s/secret-id-accessor/lookup secret_id_accessor=%s' % (role, accs[0]),
            vault_table([('cidr_list', '[10.0.0.0/8]'), ('creation_time', iso(t - 300, 9).replace('Z', '+00:00')), ('expiration_time', iso(t + 300, 9).replace('Z', '+00:00')),
                         ('last_updated_time', iso(t - 300, 9).replace('Z', '+00:00')), ('metadata', 'map[pipeline:%d]' % R.randint(1000, 99999)),
                         ('secret_id_accessor', accs[0]), ('secret_id_num_uses', '1'), ('secret_id_ttl', '10m'), ('token_bound_cidrs', '[]')]))
    row.say('The role ID is an identifier and the listing only returns secret-ID accessors; the secret IDs themselves are never readable back.')
    return row


@tpl('vault_audit_log_hmac_fields', False)
def n_vault_audit(c, lg):
    row = Row(c)
    t = c.tick()
    out = []
    for _ in range(R.randint(2, 3)):
        t += R.randint(0, 5)
        rid = uuid4()
        path = pick(['secret/data/%s/db' % c.proj, 'secret/data/%s/oidc' % c.proj, 'auth/approle/login', 'database/creds/readonly'])
        h = lambda: 'hmac-sha256:' + hx(64)
        auth = {'client_token': h(), 'accessor': h(), 'display_name': 'approle', 'policies': ['default', c.proj], 'token_policies': ['default', c.proj],
                'metadata': {'role_name': c.proj}, 'entity_id': uuid4(), 'token_type': 'service', 'token_ttl': 1200, 'token_issue_time': iso(t - 100, 0)}
        req = {'id': rid, 'client_id': uuid4(), 'operation': 'read', 'mount_point': 'secret/', 'mount_type': 'kv', 'mount_running_version': 'v0.%d.0+builtin' % R.randint(16, 20),
               'client_token': h(), 'client_token_accessor': h(), 'namespace': {'id': 'root'}, 'path': path, 'remote_address': ipv4_private(), 'remote_port': R.randint(30000, 65000)}
        resp = {'mount_point': 'secret/', 'mount_type': 'kv', 'data': {'data': {'username': h(), 'password': h()},
                                                                       'metadata': {'created_time': h(), 'custom_metadata': None, 'deletion_time': h(), 'destroyed': False, 'version': R.randint(1, 9)}}}
        out.append(jcompact({'time': iso(t, 9), 'type': 'response', 'auth': auth, 'request': req, 'response': resp}))
    row.say('Reading the audit log for the reads of the app secret.')
    row.run('sudo tail -n %d /var/log/vault/audit.log' % len(out), out)
    row.run("sudo tail -n %d /var/log/vault/audit.log | jq -r '.request.path + \"  \" + .response.data.data.password'" % len(out),
            [json.loads(x)['request']['path'] + '  ' + json.loads(x)['response']['data']['data']['password'] for x in out])
    row.say('The audit device HMACs every sensitive field (`hmac-sha256:…`); `vault write sys/audit-hash/file input=…` can confirm a guess without revealing anything.')
    return row


@tpl('kong_consumers_plugins_vault_refs', False)
def n_kong(c, lg):
    row = Row(c)
    consumers = [pick(['partner-%s' % o for o in ORGS[:8]]) for _ in range(R.randint(2, 4))]
    lines = ['_format_version: "3.0"', '_konnect_control_plane_name: %s' % pick(['prod', 'default']), 'consumers:']
    for cn in consumers:
        lines += ['- username: %s' % cn, '  custom_id: "%d"' % R.randint(1000, 99999), '  keyauth_credentials:',
                  '  - key: "{vault://hcv/kong/consumers/%s/apikey}"' % cn, '  tags:', '  - managed-by-deck']
    lines += ['plugins:', '- name: jwt', '  config:', '    claims_to_verify:', '    - exp', '    key_claim_name: iss', '    secret_is_base64: false',
              '    uri_param_names:', '    - jwt', '    header_names:', '    - authorization', '- name: key-auth', '  config:', '    key_names:', '    - apikey',
              '    hide_credentials: true', '- name: openid-connect', '  config:', '    issuer: https://%s/realms/%s/.well-known/openid-configuration' % (kc_host(c), c.realm),
              '    client_id:', '    - kong', '    client_secret:', '    - "{vault://hcv/kong/oidc/client_secret}"', '    auth_methods:', '    - bearer',
              'vaults:', '- name: hcv', '  prefix: hcv', '  config:', '    host: vault.%s' % c.domain, '    port: 8200', '    kv: v2', '    mount: secret',
              '    auth_method: kubernetes', '    kube_role: kong']
    row.run('deck gateway dump -o - --skip-consumers=false', lines)
    row.say('Every credential in the dump is a `{vault://…}` reference resolved at runtime; the JWT plugin config only names claims.')
    return row


@tpl('tyk_keys_list_hashed_detail', False)
def n_tyk(c, lg):
    row = Row(c)
    hashes = [hx(16) for _ in range(R.randint(3, 6))]
    row.run("curl -s -H \"x-tyk-authorization: $TYK_GW_SECRET\" http://localhost:8080/tyk/keys | jq", jdump({'keys': hashes}))
    api = hx(32)
    t = c.tick()
    sess = {'last_check': 0, 'allowance': 1000, 'rate': 1000, 'per': 60, 'throttle_interval': -1, 'throttle_retry_limit': -1, 'max_query_depth': -1,
            'date_created': iso(t - 86400 * 10, 9, '+00:00'), 'expires': 0, 'quota_max': 100000, 'quota_renews': t + 2000000, 'quota_remaining': R.randint(0, 100000),
            'quota_renewal_rate': 2592000, 'access_rights': {api: {'api_name': 'orders', 'api_id': api, 'versions': ['Default'], 'allowed_urls': [],
                                                                     'limit': None, 'allowance_scope': ''}},
            'org_id': hx(24), 'oauth_client_id': '', 'basic_auth_data': {'password': '', 'hash_type': ''}, 'jwt_data': {'secret': ''},
            'hmac_enabled': False, 'hmac_string': '', 'is_inactive': False, 'apply_policy_id': '', 'apply_policies': [hx(24)],
            'meta_data': {'partner': pick(ORGS)}, 'tags': ['partner'], 'alias': 'partner-%s' % pick(ORGS), 'last_updated': str(t), 'key_id': hashes[0]}
    row.run("curl -s -H \"x-tyk-authorization: $TYK_GW_SECRET\" 'http://localhost:8080/tyk/keys/%s?hashed=true' | jq" % hashes[0], jdump(sess))
    row.say('With `hash_keys` on, listings and lookups only use the key hash; `basic_auth_data.password`, `jwt_data.secret` and `hmac_string` are empty for this key.')
    return row


@tpl('aws_apigateway_usage_plans_list', False)
def n_apigw(c, lg):
    row = Row(c)
    t = c.tick()
    plans = []
    for nm in R.sample(['free', 'partner', 'internal', 'gold'], R.randint(2, 3)):
        plans.append({'id': rs(LALNUM, 6), 'name': nm, 'apiStages': [{'apiId': rs(LALNUM, 10), 'stage': 'prod'}],
                      'throttle': {'burstLimit': R.choice([20, 100, 500]), 'rateLimit': float(R.choice([10, 50, 200]))},
                      'quota': {'limit': R.choice([1000, 100000]), 'offset': 0, 'period': 'MONTH'}})
    row.run('aws apigateway get-usage-plans', jdump({'items': plans}, indent=4))
    keys = [{'id': rs(LALNUM, 10), 'name': 'partner-%s' % pick(ORGS), 'customerId': str(R.randint(1000, 99999)), 'enabled': True,
             'createdDate': iso(t - 86400 * R.randint(5, 500), 0, '+00:00'), 'lastUpdatedDate': iso(t - 86400 * R.randint(0, 4), 0, '+00:00'),
             'stageKeys': ['%s/prod' % rs(LALNUM, 10)]} for _ in range(R.randint(2, 4))]
    row.run('aws apigateway get-api-keys', jdump({'items': keys}, indent=4))
    row.say('Without `--include-values` the CLI only returns key IDs and metadata.')
    return row


@tpl('krakend_config_jwk_url_validator', False)
def n_krakend(c, lg):
    row = Row(c)
    host = kc_host(c)
    cfg = {'$schema': 'https://www.krakend.io/schema/v2.7/krakend.json', 'version': 3, 'name': '%s gateway' % c.proj, 'port': 8080,
           'endpoints': [{'endpoint': '/v1/orders', 'method': 'GET', 'input_headers': ['Authorization'],
                          'extra_config': {'auth/validator': {'alg': 'RS256', 'jwk_url': 'https://%s/realms/%s/protocol/openid-connect/certs' % (host, c.realm),
                                                              'cache': True, 'cache_duration': 900, 'issuer': 'https://%s/realms/%s' % (host, c.realm),
                                                              'audience': ['orders-api'], 'roles_key': 'realm_access.roles', 'roles_key_is_nested': True,
                                                              'roles': ['orders-reader'], 'propagate_claims': [['sub', 'x-user'], ['azp', 'x-client']]}},
                          'backend': [{'url_pattern': '/orders', 'host': ['http://orders:8080']}]}]}
    v = row.viewer(allow=('cat', 'catn', 'bat'))
    row.show(v, 'krakend.json', jdump(cfg))
    row.run('krakend check -c krakend.json -d -t', ['Parsing configuration file: krakend.json', 'Global settings', '\tName: %s gateway' % c.proj,
                                                    '\tPort: 8080', '1 API endpoint(s):', '\t- GET /v1/orders', '\tTimeout: 2s', '\t1 backend(s):',
                                                    '\t- GET /orders', 'Syntax OK!'])
    return row


@tpl('apigee_proxy_verify_apikey_policy', False)
def n_apigee(c, lg):
    row = Row(c)
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>', '<VerifyAPIKey async="false" continueOnError="false" enabled="true" name="VA-verify-key">',
           '    <DisplayName>VA-verify-key</DisplayName>', '    <APIKey ref="request.header.x-apikey"/>', '</VerifyAPIKey>']
    row.run('cat apiproxy/policies/VA-verify-key.xml', out)
    out2 = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>', '<OAuthV2 name="OA-verify-token">', '    <Operation>VerifyAccessToken</Operation>',
            '    <ExternalAuthorization>false</ExternalAuthorization>', '    <Tokens/>', '</OAuthV2>']
    row.run('cat apiproxy/policies/OA-verify-token.xml', out2)
    prods = [{'name': n, 'displayName': n.replace('-', ' ').title(), 'approvalType': pick(['auto', 'manual']), 'environments': ['prod'],
              'quota': str(R.choice([1000, 5000, 100000])), 'quotaInterval': '1', 'quotaTimeUnit': pick(['minute', 'month']),
              'scopes': ['orders.read'] if 'orders' in n else []} for n in R.sample(['orders-v1', 'catalog-v2', 'internal-admin', 'partner-bulk'], R.randint(2, 3))]
    row.run('apigeecli products list --org %s-apigee --expand --default-token | jq \'.apiProduct[] | {name, displayName, approvalType, environments, quota, quotaInterval, quotaTimeUnit, scopes}\'' % c.org,
            sum((jdump(p) for p in prods), []))
    return row


def x509_text(cert, issuer_o=None):
    n = fake_modulus()
    mod = '00' + n.to_bytes(256, 'big').hex()
    mod_lines = [':'.join(mod[i:i + 2] for i in range(k, min(k + 30, len(mod)), 2)) for k in range(0, len(mod), 30)]
    sig = rbytes(256).hex()
    sig_lines = [':'.join(sig[i:i + 2] for i in range(k, min(k + 36, len(sig)), 2)) for k in range(0, len(sig), 36)]
    out = ['Certificate:', '    Data:', '        Version: 3 (0x2)', '        Serial Number:', '            ' + cert.serial_hex(),
           '        Signature Algorithm: sha256WithRSAEncryption', '        Issuer: O = %s, CN = %s' % (issuer_o or 'Internal', cert.issuer), '        Validity',
           '            Not Before: %s' % certdate(cert.t0), '            Not After : %s' % certdate(cert.t1), '        Subject: CN = %s' % cert.cn,
           '        Subject Public Key Info:', '            Public Key Algorithm: rsaEncryption', '                Public-Key: (2048 bit)', '                Modulus:']
    out += ['                    ' + l + (':' if i < len(mod_lines) - 1 else '') for i, l in enumerate(mod_lines)]
    out += ['                Exponent: 65537 (0x10001)', '        X509v3 extensions:', '            X509v3 Subject Key Identifier: ',
            '                ' + ':'.join('%02X' % b for b in cert.ski), '            X509v3 Key Usage: critical', '                Digital Signature, Key Encipherment',
            '            X509v3 Extended Key Usage: ', '                TLS Web Client Authentication', '            X509v3 Basic Constraints: critical', '                CA:FALSE',
            '    Signature Algorithm: sha256WithRSAEncryption', '    Signature Value:']
    out += ['        ' + l + (':' if i < len(sig_lines) - 1 else '') for i, l in enumerate(sig_lines)]
    return out


@tpl('openssl_x509_text_client_cert', False)
def n_x509_text(c, lg):
    row = Row(c)
    cn = pick(['svc-orders', 'billing-worker', 'edge-proxy', 'device-%d' % R.randint(1000, 9999)])
    cert = Cert(cn, issuer_cn='%s Issuing CA' % c.org.title(), days=90)
    row.say('Inspecting the client certificate the partner sent.')
    row.run('openssl x509 -in partner-client.crt -noout -text', x509_text(cert, c.org.title()))
    row.run('openssl x509 -in partner-client.crt -noout -fingerprint -sha256 -serial', ['sha256 Fingerprint=' + cert.fp(), 'serial=' + cert.serial_hex().replace(':', '').upper()])
    row.say('Client-auth EKU, 90-day validity, issued by our intermediate. The certificate is public; only its private key (which stays with the partner) matters.')
    return row


@tpl('openssl_s_client_brief_mtls', False)
def n_s_client(c, lg):
    row = Row(c)
    host = 'mtls.%s' % c.domain
    cn = pick(['svc-orders', 'billing-worker'])
    out = ['CONNECTION ESTABLISHED', 'Protocol version: TLSv1.3', 'Ciphersuite: TLS_AES_256_GCM_SHA384',
           'Requested Signature Algorithms: ECDSA+SHA256:ECDSA+SHA384:ECDSA+SHA512:Ed25519:Ed448:RSA-PSS+SHA256:RSA-PSS+SHA384:RSA-PSS+SHA512:RSA+SHA256:RSA+SHA384:RSA+SHA512',
           'Peer certificate: CN = %s' % host, 'Hash used: SHA256', 'Signature type: RSA-PSS', 'Verification: OK',
           'Supported Elliptic Curve Point Formats: uncompressed:ansiX962_compressed_prime:ansiX962_compressed_char2',
           'Server Temp Key: X25519, 253 bits', 'DONE']
    row.run('openssl s_client -brief -connect %s:443 -servername %s -cert certs/%s.crt -key certs/%s.key < /dev/null' % (host, host, cn, cn), out)
    out2 = ['* TLSv1.3 (IN), TLS handshake, Request CERT (13):', '* TLSv1.3 (IN), TLS handshake, Certificate (11):', '* TLSv1.3 (IN), TLS handshake, CERT verify (15):',
            '* TLSv1.3 (IN), TLS handshake, Finished (20):', '* TLSv1.3 (OUT), TLS handshake, Certificate (11):', '* TLSv1.3 (OUT), TLS handshake, CERT verify (15):',
            '* TLSv1.3 (OUT), TLS handshake, Finished (20):', '* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS', '* Server certificate:',
            '*  subject: CN=%s' % host, '*  issuer: O=%s; CN=%s Issuing CA' % (c.org.title(), c.org.title()), '*  SSL certificate verify ok.',
            '> GET /v1/whoami HTTP/1.1', '> Host: %s' % host, '> User-Agent: curl/8.5.0', '> Accept: */*', '> ', '< HTTP/1.1 200 OK',
            '< x-client-cert-fingerprint: %s' % hx(64), '< x-client-cert-serial: %s' % hx(32).upper(), '< content-type: application/json', '< ',
            '{"subject":"CN=%s","verified":true}' % cn]
    row.run('curl -sv --cert certs/%s.crt --key certs/%s.key https://%s/v1/whoami 2>&1 | grep -E "^(\\*|<|>|\\{)" | tail -n %d' % (cn, cn, host, len(out2)), out2)
    return row


@tpl('nginx_ssl_verify_client_conf', False)
def n_nginx_mtls(c, lg):
    row = Row(c)
    host = 'mtls.%s' % c.domain
    v = row.viewer()
    conf = ['server {', '    listen 443 ssl;', '    http2 on;', '    server_name %s;' % host, '',
            '    ssl_certificate     /etc/nginx/tls/%s.crt;' % host, '    ssl_certificate_key /etc/nginx/tls/%s.key;' % host,
            '    ssl_client_certificate /etc/nginx/tls/client-ca.pem;', '    ssl_verify_client on;', '    ssl_verify_depth 2;',
            '    ssl_crl /etc/nginx/tls/client-ca.crl;', '', '    log_format mtls \'$remote_addr [$time_local] "$request" $status \'',
            '                    \'dn="$ssl_client_s_dn" serial=$ssl_client_serial fp=$ssl_client_fingerprint verify=$ssl_client_verify\';',
            '    access_log /var/log/nginx/mtls.log mtls;', '', '    location / {', '        proxy_set_header X-Client-DN $ssl_client_s_dn;',
            '        proxy_set_header X-Client-Verify $ssl_client_verify;', '        proxy_pass http://127.0.0.1:8080;', '    }', '}']
    row.show(v, '/etc/nginx/sites-enabled/%s.conf' % host, conf)
    t = c.tick()
    logs = []
    for _ in range(R.randint(3, 6)):
        t += R.randint(1, 60)
        y, m, d, hh, mi, ss, _ = civil(t)
        cn = pick(['svc-orders', 'billing-worker', 'edge-proxy'])
        ok = chance(0.8)
        logs.append('%s [%02d/%s/%04d:%02d:%02d:%02d +0000] "GET /v1/orders HTTP/2.0" %d dn="CN=%s,O=%s" serial=%s fp=%s verify=%s' % (
            ipv4_private(), d, MONTHS[m - 1], y, hh, mi, ss, 200 if ok else 400, cn, c.org.title(), hx(32).upper(), hx(40), 'SUCCESS' if ok else 'FAILED:certificate has expired'))
    row.run('sudo tail -n %d /var/log/nginx/mtls.log' % len(logs), logs)
    return row


@tpl('ssh_keygen_L_cert_details', False)
def n_ssh_L(c, lg):
    row = Row(c)
    upub, ufp = fake_ed_pub()
    _, cafp = fake_ed_pub()
    t = c.tick()
    u = c.user
    ser = R.randint(1, 99999)
    row.run('ssh-keygen -L -f ~/.ssh/id_ed25519-cert.pub', ['%s/.ssh/id_ed25519-cert.pub:' % c.home, '        Type: ssh-ed25519-cert-v01@openssh.com user certificate',
            '        Public key: ED25519-CERT ' + ufp, '        Signing CA: ED25519 %s (using ssh-ed25519)' % cafp, '        Key ID: "%s@%s"' % (u, c.domain),
            '        Serial: %d' % ser, '        Valid: from %s to %s' % (iso(t - 120, 0, ''), iso(t + 16 * 3600, 0, '')), '        Principals: ', '                ' + u,
            '        Critical Options: ', '                source-address 10.0.0.0/8', '        Extensions: ', '                permit-agent-forwarding',
            '                permit-port-forwarding', '                permit-pty'])
    cert_line = 'ssh-ed25519-cert-v01@openssh.com ' + b64(sshstr('ssh-ed25519-cert-v01@openssh.com') + rbytes(R.randint(280, 320))) + ' %s@%s' % (u, c.host)
    row.run('cat ~/.ssh/id_ed25519-cert.pub', [cert_line])
    row.run('ssh -v bastion.%s true 2>&1 | grep -E "Server accepts|Authenticated|Offering"' % c.domain,
            ['debug1: Offering public key: %s/.ssh/id_ed25519 ED25519-CERT %s explicit' % (c.home, ufp),
             'debug1: Server accepts key: %s/.ssh/id_ed25519 ED25519-CERT %s explicit' % (c.home, ufp),
             'Authenticated to bastion.%s ([%s]:22) using "publickey".' % (c.domain, ipv4_private())])
    row.say('The certificate and its public key are public; the login works with principal `%s` until the validity ends.' % u)
    return row


@tpl('sshd_trusted_user_ca_keys_config', False)
def n_sshd_ca(c, lg):
    row = Row(c)
    capub, cafp = fake_ed_pub('user-ca@' + c.domain)
    row.run("sudo sshd -T | grep -Ei 'trustedusercakeys|authorizedprincipals|pubkeyauthentication|passwordauthentication|kbdinteractive'",
            ['pubkeyauthentication yes', 'passwordauthentication no', 'kbdinteractiveauthentication no', 'trustedusercakeys /etc/ssh/user_ca.pub',
             'authorizedprincipalsfile /etc/ssh/auth_principals/%u'])
    row.run('cat /etc/ssh/user_ca.pub', [capub])
    row.run('ssh-keygen -lf /etc/ssh/user_ca.pub', ['256 %s user-ca@%s (ED25519)' % (cafp, c.domain)])
    hpub, hfp = fake_ed_pub()
    row.run('cat ~/.ssh/known_hosts | grep cert-authority', ['@cert-authority *.%s %s host-ca@%s' % (c.domain, hpub.rsplit(' ', 0)[0], c.domain)])
    t = c.tick()
    _, ufp = fake_ed_pub()
    row.run('sudo journalctl -u ssh -n 3 --no-pager', ['%s %s sshd[%d]: Accepted publickey for %s from %s port %d ssh2: ED25519-CERT %s ID %s@%s (serial %d) CA ED25519 %s' % (
        syslogts(t), c.host, R.randint(1000, 90000), c.user, ipv4_private(), R.randint(40000, 65000), ufp, c.user, c.domain, R.randint(1, 9999), cafp),
        '%s %s sshd[%d]: pam_unix(sshd:session): session opened for user %s(uid=%d) by %s(uid=0)' % (syslogts(t), c.host, R.randint(1000, 90000), c.user, R.randint(1000, 9000), c.user)])
    return row


@tpl('tctl_auth_export_status_pins', False)
def n_tctl(c, lg):
    row = Row(c)
    proxy = 'teleport.%s' % c.domain
    capub, _ = fake_ed_pub()
    hpub, _ = fake_ed_pub()
    row.run('tctl auth export --type=user', ['cert-authority %s clustername=%s&type=user' % (' '.join(capub.split(' ')[:2]), proxy)])
    row.run('tctl auth export --type=host', ['@cert-authority *.%s %s type=host' % (proxy, ' '.join(hpub.split(' ')[:2]))])
    pin = 'sha256:' + hx(64)
    t = c.tick()
    row.run('tctl status', aligned([['Cluster', proxy], ['Version', '16.%d.%d' % (R.randint(0, 4), R.randint(0, 9))],
                                    ['host CA', 'never updated'], ['user CA', 'never updated'], ['db CA', 'never updated'],
                                    ['db_client CA', 'never updated'], ['openssh CA', 'never updated'], ['jwt CA', 'never updated'],
                                    ['saml_idp CA', 'never updated'], ['oidc_idp CA', 'never updated'], ['spiffe CA', 'never updated'],
                                    ['CA pin', pin]], gap=17))
    row.say('The CA pin and the exported `cert-authority` lines are public material used to verify the cluster; they are what new nodes and `known_hosts` need.')
    return row


@tpl('step_certificate_inspect_fingerprint', False)
def n_step_inspect(c, lg):
    row = Row(c)
    root = Cert('%s Root CA' % c.org.title(), ca=True, days=3650, ec=True)
    fp = hashlib.sha256(root.der).hexdigest()
    svc = '%s.%s' % (pick(['orders', 'ldap', 'vault']), c.domain)
    leaf = Cert(svc, issuer_cn='%s Intermediate CA' % c.org.title(), days=1, ec=True)
    row.run('step certificate fingerprint $(step path)/certs/root_ca.crt', [fp])
    row.run('step certificate inspect %s.crt --short' % svc.split('.')[0], ['X.509v3 TLS Certificate (ECDSA P-256) [Serial: %s...%s]' % (str(leaf.serial)[:4], str(leaf.serial)[-4:]),
                                                                           '  Subject:     %s' % svc, '  Issuer:      %s Intermediate CA' % c.org.title(),
                                                                           '  Provisioner: admin@%s [ID: %s]' % (c.domain, rs(B64U, 43)),
                                                                           '  Valid from:  %s' % iso(leaf.t0, 0), '          to:  %s' % iso(leaf.t1, 0)])
    ec = ECKey()
    jwk = ec.jwk(kid=kid43())
    jwk.update({'use': 'sig', 'alg': 'ES256'})
    enc = 'eyJhbGciOiJQQkVTMi1IUzI1NitBMTI4S1ciLCJjdHkiOiJqd2sranNvbiIsImVuYyI6IkEyNTZHQ00iLCJwMmMiOjYwMDAwMCwicDJzIjoi' + rs(B64U, 22) + 'In0.' + rs(B64U, 54) + '.' + rs(B64U, 16) + '.' + rs(B64U, 300) + '.' + rs(B64U, 22)
    row.run("step ca provisioner list | jq '.[0] | {type, name, key, encryptedKey: (.encryptedKey[0:60] + \"…\")}'",
            jdump({'type': 'JWK', 'name': 'admin@' + c.domain, 'key': jwk, 'encryptedKey': enc[:60] + '…'}))
    row.run('step ca health', ['ok'])
    row.say('The provisioner `key` is the public JWK and `encryptedKey` is a JWE encrypted with the provisioner password; neither is usable on its own.')
    return row


@tpl('ldapsearch_gssapi_group_members', False)
def n_ldap_gssapi(c, lg):
    row = Row(c)
    realm = c.domain.upper()
    dc = ','.join('DC=' + p for p in c.domain.split('.'))
    grp = pick(['GG-VPN-Users', 'GG-Grafana-Admins', 'GG-Developers', 'GG-Oncall'])
    members = R.sample(PEOPLE, R.randint(2, 4))
    out = ['SASL/GSSAPI authentication started', 'SASL username: %s@%s' % (c.user, realm), 'SASL SSF: 256', 'SASL data security layer installed.']
    for name, handle in members:
        sam = handle.replace('.', '')[:20]
        out += ['dn: CN=%s,OU=Staff,%s' % (name, dc), 'sAMAccountName: %s' % sam, 'userPrincipalName: %s@%s' % (sam, c.domain),
                'objectGUID:: %s' % b64(rbytes(16)), 'objectSid:: %s' % b64(b'\x01\x05\x00\x00\x00\x00\x00\x05\x15\x00\x00\x00' + rbytes(12) + struct.pack('<I', R.randint(1000, 90000))),
                'memberOf: CN=%s,OU=Groups,%s' % (grp, dc), '']
    row.run('ldapsearch -LLL -Y GSSAPI -H ldap://dc01.%s -b "OU=Staff,%s" "(memberOf=CN=%s,OU=Groups,%s)" sAMAccountName userPrincipalName objectGUID objectSid memberOf' % (
        c.domain, dc, grp, dc), out)
    row.run('klist -s && echo "ticket ok"', ['ticket ok'])
    row.say('GSSAPI bind uses my Kerberos ticket, so no bind password is involved. `objectGUID::` and `objectSid::` are base64 binary identifiers.')
    return row


@tpl('slapcat_n0_olc_database_acl', False)
def n_slapcat(c, lg):
    row = Row(c)
    dc = ldap_dc(c)
    out = ['dn: olcDatabase={0}config,cn=config', 'objectClass: olcDatabaseConfig', 'olcDatabase: {0}config',
           'olcAccess: {0}to * by dn.exact=gidNumber=0+uidNumber=0,cn=peercred,cn=external,cn=auth manage by * break',
           'olcRootDN: cn=admin,cn=config', 'olcRootPW: ' + ssha(), 'structuralObjectClass: olcDatabaseConfig', 'entryUUID: ' + uuid4(),
           'creatorsName: cn=config', 'createTimestamp: %04d%02d%02d%02d%02d%02dZ' % civil(c.t - 86400 * 400)[:6],
           'entryCSN: %04d%02d%02d%02d%02d%02d.%06dZ#000000#000#000000' % (civil(c.t - 86400 * 3)[:6] + (R.randint(0, 999999),)), '',
           'dn: olcDatabase={1}mdb,cn=config', 'objectClass: olcDatabaseConfig', 'objectClass: olcMdbConfig', 'olcDatabase: {1}mdb',
           'olcDbDirectory: /var/lib/ldap', 'olcSuffix: ' + dc, 'olcRootDN: cn=admin,' + dc, 'olcRootPW: ' + ssha(),
           'olcAccess: {0}to attrs=userPassword,shadowLastChange by self write by anonymous auth by dn="cn=admin,%s" write by * none' % dc,
           'olcAccess: {1}to dn.base="" by * read', 'olcAccess: {2}to * by self read by dn="cn=readonly,ou=services,%s" read by * none' % dc,
           'olcDbIndex: objectClass eq', 'olcDbIndex: uid,mail eq,sub', 'olcDbMaxSize: 1073741824']
    row.root = row.style in PROMPT_STYLES and chance(0.5)
    row.run('sudo slapcat -n 0 -a "(|(olcDatabase={0}config)(olcDatabase={1}mdb))"', out)
    row.say('Both root passwords are stored as `{SSHA}` salted hashes, and `userPassword` is only reachable for `auth`.')
    return row


@tpl('krb5_conf_realms_domain_realm', False)
def n_krb5(c, lg):
    row = Row(c)
    realm = ('CORP.' + c.domain).upper()
    v = row.viewer(allow=('cat', 'catn', 'bat'))
    conf = ['[libdefaults]', '    default_realm = %s' % realm, '    dns_lookup_realm = false', '    dns_lookup_kdc = true', '    ticket_lifetime = 10h',
            '    renew_lifetime = 7d', '    forwardable = true', '    rdns = false', '    default_ccache_name = KCM:', '    permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96',
            '', '[realms]', '    %s = {' % realm, '        kdc = kdc1.%s' % c.domain, '        kdc = kdc2.%s' % c.domain, '        admin_server = kdc1.%s' % c.domain,
            '        default_domain = %s' % c.domain, '    }', '', '[domain_realm]', '    .%s = %s' % (c.domain, realm), '    %s = %s' % (c.domain, realm)]
    row.show(v, '/etc/krb5.conf', conf)
    row.run('kvno HTTP/%s.%s@%s' % (pick(['web01', 'grafana', 'jenkins']), c.domain, realm), ['HTTP/%s.%s@%s: kvno = %d' % (pick(['web01', 'grafana', 'jenkins']), c.domain, realm, R.randint(2, 9))])
    return row


@tpl('kinit_keytab_klist_flags', False)
def n_kinit_kt(c, lg):
    row = Row(c)
    realm = c.domain.upper()
    host = '%s.%s' % (pick(['app02', 'nfs1', 'airflow-worker']), c.domain)
    t = c.tick()
    row.run('kinit -kt /etc/krb5.keytab host/%s@%s' % (host, realm), [])
    row.run('klist -e -f', ['Ticket cache: KCM:0', 'Default principal: host/%s@%s' % (host, realm), '',
                            'Valid starting       Expires              Service principal',
                            '%s  %s  krbtgt/%s@%s' % (krb_date(t), krb_date(t + 36000), realm, realm), '\trenew until %s, Flags: FRIA' % krb_date(t + 7 * 86400),
                            '\tEtype (skey, tkt): aes256-cts-hmac-sha1-96, aes256-cts-hmac-sha1-96 ',
                            '%s  %s  nfs/filer.%s@%s' % (krb_date(t + 4), krb_date(t + 36000), c.domain, realm), '\trenew until %s, Flags: FRAT' % krb_date(t + 7 * 86400),
                            '\tEtype (skey, tkt): aes256-cts-hmac-sha1-96, aes256-cts-hmac-sha1-96 '])
    row.run('sudo klist -kt /etc/krb5.keytab', ['Keytab name: FILE:/etc/krb5.keytab', 'KVNO Timestamp           Principal',
                                                '---- ------------------- ------------------------------------------------------'] +
            ['%4d %s %s@%s' % (3, krb_date(t - 86400 * 40), p, realm) for p in ['host/%s' % host, 'host/%s' % host, 'nfs/%s' % host, 'nfs/%s' % host]])
    row.say('The keytab is referenced by path and listed without `-K`, so no key material is shown; the tickets are in the KCM cache.')
    return row


@tpl('kadmin_listprincs_getprinc_policy', False)
def n_kadmin(c, lg):
    row = Row(c)
    realm = c.domain.upper()
    u = pick(USERS)
    t = c.tick()
    y, m, d, hh, mi, ss, wd = civil(t - 86400 * 30)
    lpc = '%s %s %2d %02d:%02d:%02d UTC %d' % (wd, MONTHS[m - 1], d, hh, mi, ss, y)
    row.root = row.style in PROMPT_STYLES and chance(0.6)
    row.run("sudo kadmin.local -q 'listprincs' | head -n 8", ['Authenticating as principal root/admin@%s with password.' % realm, 'K/M@%s' % realm,
                                                              'kadmin/admin@%s' % realm, 'kadmin/changepw@%s' % realm, 'krbtgt/%s@%s' % (realm, realm),
                                                              '%s@%s' % (u, realm), 'HTTP/web01.%s@%s' % (c.domain, realm), 'host/app02.%s@%s' % (c.domain, realm)])
    row.run("sudo kadmin.local -q 'getprinc %s'" % u, ['Authenticating as principal root/admin@%s with password.' % realm, 'Principal: %s@%s' % (u, realm),
                                                      'Expiration date: [never]', 'Last password change: ' + lpc, 'Password expiration date: [never]',
                                                      'Maximum ticket life: 1 day 00:00:00', 'Maximum renewable life: 7 days 00:00:00',
                                                      'Last modified: %s (kadmin/admin@%s)' % (lpc, realm), 'Last successful authentication: [never]',
                                                      'Last failed authentication: [never]', 'Failed password attempts: 0', 'Number of keys: 2',
                                                      'Key: vno %d, aes256-cts-hmac-sha1-96' % R.randint(1, 5), 'Key: vno 1, aes128-cts-hmac-sha1-96', 'MKey: vno 1',
                                                      'Attributes: REQUIRES_PRE_AUTH', 'Policy: default'])
    row.run("sudo kadmin.local -q 'getpol default'", ['Authenticating as principal root/admin@%s with password.' % realm, 'Policy: default',
                                                     'Maximum password life: 0 days 00:00:00', 'Minimum password life: 0 days 00:00:00',
                                                     'Minimum password length: 12', 'Minimum number of password character classes: 3',
                                                     'Number of old keys kept: 5', 'Maximum password failures before lockout: 6',
                                                     'Password failure count reset interval: 0 days 00:10:00', 'Password lockout duration: 0 days 00:10:00'])
    return row


@tpl('sudo_l_sudoers_d_review', False)
def n_sudo(c, lg):
    row = Row(c)
    u = c.user
    row.run('sudo -l', ['Matching Defaults entries for %s on %s:' % (u, c.host),
                        '    env_reset, mail_badpass, secure_path=/usr/local/sbin\\:/usr/local/bin\\:/usr/sbin\\:/usr/bin\\:/sbin\\:/bin\\:/snap/bin, use_pty,',
                        '    timestamp_timeout=5, passprompt="[sudo] password for %p: "', '', 'User %s may run the following commands on %s:' % (u, c.host),
                        '    (ALL : ALL) ALL', '    (root) NOPASSWD: /usr/bin/systemctl restart %s, /usr/bin/journalctl -u %s' % (c.proj, c.proj)])
    lines = ['# managed by ansible — do not edit', 'Cmnd_Alias APP_OPS = /usr/bin/systemctl restart %s, /usr/bin/systemctl status %s, /usr/bin/journalctl -u %s' % (c.proj, c.proj, c.proj),
             'Cmnd_Alias VAULT_AGENT = /usr/bin/systemctl restart vault-agent', 'Defaults:deploy !requiretty', 'Defaults:deploy timestamp_timeout=0',
             'deploy ALL=(root) NOPASSWD: APP_OPS, VAULT_AGENT', '%%sre ALL=(ALL:ALL) ALL', '%%oncall ALL=(root) NOPASSWD: /usr/sbin/faillock --reset *']
    row.run('sudo cat /etc/sudoers.d/90-%s' % c.proj, lines)
    row.run('sudo visudo -c', ['/etc/sudoers: parsed OK', '/etc/sudoers.d/90-%s: parsed OK' % c.proj, '/etc/sudoers.d/README: parsed OK'])
    return row


@tpl('pam_d_stack_faillock_config', False)
def n_pam(c, lg):
    row = Row(c)
    row.run("grep -vE '^(#|$)' /etc/pam.d/common-auth", ['auth\trequired\t\t\tpam_faillock.so preauth', 'auth\t[success=2 default=ignore]\tpam_unix.so nullok',
                                                        'auth\t[success=1 default=ignore]\tpam_sss.so use_first_pass', 'auth\t[default=die]\t\t\tpam_faillock.so authfail',
                                                        'auth\trequisite\t\t\tpam_deny.so', 'auth\trequired\t\t\tpam_permit.so', 'auth\tsufficient\t\t\tpam_faillock.so authsucc'])
    row.run('grep -vE "^(#|$)" /etc/security/faillock.conf', ['deny = 5', 'unlock_time = 900', 'fail_interval = 900', 'audit', 'even_deny_root = false'])
    t = c.tick()
    u = pick(USERS)
    rows_ = [['When', 'Type', 'Source', 'Valid']] + [[sqlts(t - R.randint(10, 800)), pick(['RHOST', 'TTY', 'SVC']), pick([ipv4_private(), 'sshd', '/dev/pts/1']), 'V'] for _ in range(R.randint(2, 4))]
    row.run('sudo faillock --user %s' % u, ['%s:' % u] + aligned(rows_, gap=1))
    row.run('authselect current', ['Profile ID: sssd', 'Enabled features:', '- with-faillock', '- with-mkhomedir'])
    return row


@tpl('shadow_yescrypt_chage_listing', False)
def n_shadow(c, lg):
    row = Row(c)
    users = R.sample(USERS, R.randint(2, 4))
    days = c.t // 86400
    lines = []
    for u in users:
        h = pick([yescrypt, sha512crypt, yescrypt])()
        lines.append('%s:%s:%d:0:99999:7:::' % (u, h, days - R.randint(1, 400)))
    lines.append('deploy:!:%d:0:99999:7:::' % (days - R.randint(1, 400)))
    lines.append('svc-backup:*:%d:0:99999:7:::' % (days - R.randint(1, 900)))
    row.root = row.style in PROMPT_STYLES and chance(0.5)
    row.run('sudo getent shadow %s deploy svc-backup' % ' '.join(users), lines)
    u = users[0]
    y, m, d, _, _, _, _ = civil((days - 30) * 86400)
    row.run('sudo chage -l %s' % u, ['Last password change\t\t\t\t\t: %s %02d, %d' % (MONTHS[m - 1], d, y), 'Password expires\t\t\t\t\t: never',
                                      'Password inactive\t\t\t\t\t: never', 'Account expires\t\t\t\t\t\t: never',
                                      'Minimum number of days between password change\t\t: 0', 'Maximum number of days between password change\t\t: 99999',
                                      'Number of days of warning before password expires\t: 7'])
    row.say('`$y$` is yescrypt and `$6$` is SHA-512 crypt; both are salted one-way hashes. `deploy` is locked (`!`) and `svc-backup` has no password (`*`).')
    return row


@tpl('htpasswd_mixed_algos_verify', False)
def n_htpasswd(c, lg):
    row = Row(c)
    users = R.sample(['admin', 'ops', 'grafana', 'ci', 'metrics', 'kibana', 'legacy'], R.randint(3, 5))
    lines = []
    for u in users:
        k = R.randrange(4)
        if k == 0:
            lines.append('%s:%s' % (u, bcrypt_hash(pick([5, 10, 12]), '2y')))
        elif k == 1:
            lines.append('%s:%s' % (u, apr1()))
        elif k == 2:
            lines.append('%s:{SHA}%s' % (u, b64(rbytes(20))))
        else:
            lines.append('%s:%s' % (u, sha512crypt()))
    row.run('cat /etc/nginx/.htpasswd', lines)
    row.run('htpasswd -v /etc/nginx/.htpasswd %s' % users[0], ['Enter password: ', 'Password for user %s correct.' % users[0]])
    row.say('The file mixes bcrypt (`$2y$`), apr1 MD5, `{SHA}` and SHA-512 crypt. All are hashes, but `{SHA}` is unsalted SHA-1 and apr1 is weak, so those users get new bcrypt entries.')
    return row


@tpl('totp_rfc6238_test_vectors_doc', False)
def n_totp_doc(c, lg):
    row = Row(c)
    vec = [('59', '1970-01-01 00:00:59', '0000000000000001', '94287082', 'SHA1'), ('59', '1970-01-01 00:00:59', '0000000000000001', '46119246', 'SHA256'),
           ('1111111109', '2005-03-18 01:58:29', '00000000023523EC', '07081804', 'SHA1'), ('1111111111', '2005-03-18 01:58:31', '00000000023523ED', '14050471', 'SHA1'),
           ('1234567890', '2009-02-13 23:31:30', '000000000273EF07', '89005924', 'SHA1'), ('2000000000', '2033-05-18 03:33:20', '0000000003F940AA', '69279037', 'SHA1'),
           ('20000000000', '2603-10-11 11:33:20', '0000000027BC86AA', '65353130', 'SHA1')]
    vec = vec[:R.randint(4, 7)]
    tbl = md_table(['Time (sec)', 'UTC Time', 'Value of T (hex)', 'TOTP', 'Mode'], [list(v) for v in vec])
    lines = ['## Test vectors', '', 'From RFC 6238 appendix B. The seed for HMAC-SHA1 is the ASCII string', '`12345678901234567890` (base32 `GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ`),',
             'for SHA256 it is `12345678901234567890123456789012`. X = 30, T0 = 0, 8 digits.', ''] + tbl
    v = row.viewer(allow=('cat', 'sed', 'catn'))
    row.show(v, 'docs/mfa/totp.md', lines)
    n = R.randint(6, 14)
    row.run('pytest -q tests/test_totp.py', ['.' * n + ' ' * (60 - n) + ' [100%]', '%d passed in %.2fs' % (n, R.uniform(0.05, 0.6))])
    row.say('The tests use the published RFC seeds, which are fixtures, not secrets; the 8-digit codes are outputs for fixed times.')
    return row


@tpl('rack_session_redis_hashed_ids', False)
def n_rack_sess(c, lg):
    row = Row(c)
    keys = ['_%s_session:2::%s' % (c.proj.replace('-', '_'), hx(64)) for _ in range(R.randint(3, 6))]
    row.run("redis-cli -n 1 --scan --pattern '_%s_session:*' | head -n %d" % (c.proj.replace('-', '_'), len(keys)), keys)
    row.run('redis-cli -n 1 TTL %s' % keys[0], ['(integer) %d' % R.randint(100, 1209600)])
    row.run('redis-cli -n 1 INFO keyspace', ['# Keyspace', 'db0:keys=%d,expires=%d,avg_ttl=%d' % (R.randint(10, 900), R.randint(0, 10), R.randint(1000, 90000)),
                                             'db1:keys=%d,expires=%d,avg_ttl=%d,subexpiry=0' % (R.randint(100, 9000), R.randint(100, 9000), R.randint(10 ** 6, 10 ** 9))])
    row.say('Rack stores sessions under `2::` plus the SHA-256 of the public session id, so these keys cannot be turned back into cookies.')
    return row


@tpl('cookie_jar_csrf_analytics_only', False)
def n_cookie_jar(c, lg):
    row = Row(c)
    host = 'app.' + c.domain
    t = c.tick()
    lines = ['# Netscape HTTP Cookie File', '# https://curl.se/docs/http-cookies.html', '# This file was generated by libcurl! Edit at your own risk.', '',
             '%s\tFALSE\t/\tTRUE\t%d\tcsrftoken\t%s' % (host, t + 31449600, rs(ALNUM, 32)),
             '#HttpOnly_%s\tFALSE\t/\tTRUE\t%d\t__Host-csrf\t%s' % (host, t + 3600, b64u(rbytes(32))),
             '.%s\tTRUE\t/\tFALSE\t%d\t_ga\tGA1.1.%d.%d' % (c.domain, t + 34560000, R.randint(10 ** 8, 10 ** 10), t - R.randint(0, 9000000)),
             '.%s\tTRUE\t/\tFALSE\t%d\t_ga_%s\tGS1.1.%d.3.1.%d.0.0.0' % (c.domain, t + 34560000, rs(UALNUM, 10), t - 500, t),
             '%s\tFALSE\t/\tFALSE\t%d\tcookie_consent\t%s' % (host, t + 15552000, urlenc('{"analytics":true,"marketing":false}')),
             '%s\tFALSE\t/\tFALSE\t0\tNEXT_LOCALE\t%s' % (host, pick(['en', 'ja', 'de', 'zh-CN']))]
    row.run('curl -s -c cookies.txt -b cookies.txt -X POST https://%s/logout -o /dev/null -w "%%{http_code}\\n"' % host, ['303'])
    row.run('cat cookies.txt', lines)
    row.say('After logout the jar holds only the CSRF cookies, analytics IDs and preferences; the session cookie was cleared by the `Set-Cookie: …; Max-Age=0` on logout.')
    return row


@tpl('password_reset_tokens_table_hashed', False)
def n_reset_hashed(c, lg):
    row = Row(c)
    t = c.tick()
    rows_ = []
    for name, handle in R.sample(PEOPLE, R.randint(3, 5)):
        rows_.append([handle + '@' + c.domain, bcrypt_hash(10, '2y'), sqlts(t - R.randint(0, 7200))])
    db = c.proj.replace('-', '_')
    row.run('psql -d %s -c "SELECT email, token, created_at FROM password_reset_tokens ORDER BY created_at DESC"' % db, psql_table(['email', 'token', 'created_at'], rows_))
    rows2 = [[str(R.randint(1, 900)), handle + '@' + c.domain, hx(64), sqlts(t - R.randint(0, 9000))] for name, handle in R.sample(PEOPLE, R.randint(2, 4))]
    row.run('psql -d %s_rails -c "SELECT id, email, reset_password_token, reset_password_sent_at FROM users WHERE reset_password_token IS NOT NULL"' % db,
            psql_table(['id', 'email', 'reset_password_token', 'reset_password_sent_at'], rows2))
    row.say('Both stores keep only digests: Laravel bcrypts the token and Devise stores an HMAC-SHA256 of it. The raw tokens exist only in the e-mailed links.')
    return row


@tpl('env_example_auth_placeholders', False)
def n_env_example(c, lg):
    row = Row(c)
    lines = ['# Copy to .env.local and fill in. Never commit real values.', 'APP_URL=http://localhost:3000', '',
             '# Auth.js', 'AUTH_SECRET=            # npx auth secret', 'AUTH_URL=http://localhost:3000', '',
             '# Okta', 'OKTA_ISSUER=https://{yourOktaDomain}/oauth2/default', 'OKTA_CLIENT_ID=0oa...', 'OKTA_CLIENT_SECRET=<your-client-secret>', '',
             '# Auth0', 'AUTH0_DOMAIN=your-tenant.us.auth0.com', 'AUTH0_CLIENT_ID=', 'AUTH0_CLIENT_SECRET=', '',
             '# Ory Kratos (dev only)', 'SECRETS_COOKIE=PLEASE-CHANGE-ME-I-AM-VERY-INSECURE', 'SECRETS_CIPHER=32-LONG-SECRET-NOT-SECURE-AT-ALL', '',
             '# Zitadel', 'ZITADEL_MASTERKEY=MasterkeyNeedsToHave32Characters', '',
             '# Dex example client', 'DEX_CLIENT_SECRET=ZXhhbXBsZS1hcHAtc2VjcmV0', '',
             '# Sessions', 'SESSION_SECRET=changeme', 'JWT_SECRET=${JWT_SECRET:?set me}', 'REDIS_URL=redis://localhost:6379/0', '',
             '# LDAP', 'LDAP_BIND_DN=cn=readonly,dc=example,dc=org', 'LDAP_BIND_PASSWORD=', '',
             '# AWS (examples from the AWS docs)', 'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']
    lines = [l for l in lines if chance(0.85) or not l]
    v = row.viewer()
    row.show(v, '.env.example', lines)
    row.say('Only placeholders and the values published in vendor docs (`PLEASE-CHANGE-ME-I-AM-VERY-INSECURE`, `MasterkeyNeedsToHave32Characters`, the Dex example secret, AWS\'s `EXAMPLE` keys).')
    return row


@tpl('secret_store_refs_auth_config', False)
def n_refs(c, lg):
    row = Row(c)
    lines = ['keycloak:', '  auth:', '    adminUser: admin', '    existingSecret: keycloak-admin', '    passwordSecretKey: admin-password', '  externalDatabase:',
             '    host: postgres.%s.svc' % pick(['db', 'data']), '    existingSecret: keycloak-db', '    existingSecretPasswordKey: password', '',
             'oauth2Proxy:', '  config:', '    existingSecret: oauth2-proxy-creds   # client-id, client-secret, cookie-secret', '',
             'ldapSync:', '  bindDN: cn=ldap-sync,ou=services,' + ldap_dc(c), '  bindPassword: "vault:secret/data/ldap/sync#password"', '',
             'vaultAgent:', '  annotations:', '    vault.hashicorp.com/agent-inject: "true"', '    vault.hashicorp.com/role: "%s"' % c.proj,
             '    vault.hashicorp.com/agent-inject-secret-oidc: "secret/data/%s/oidc"' % c.proj,
             '    vault.hashicorp.com/agent-inject-template-oidc: |', '      {{- with secret "secret/data/%s/oidc" -}}' % c.proj,
             '      OIDC_CLIENT_SECRET={{ .Data.data.client_secret }}', '      {{- end }}', '', 'local:',
             '  oktaToken: op://Platform/okta-admin/credential', '  auth0Secret: "${AUTH0_CLIENT_SECRET}"',
             '  sopsExample: ENC[AES256_GCM,data:%s,iv:%s,tag:%s,type:str]' % (b64(rbytes(24)), b64(rbytes(32)), b64(rbytes(16)))]
    es = ['apiVersion: external-secrets.io/v1beta1', 'kind: ExternalSecret', 'metadata:', '  name: oauth2-proxy-creds', 'spec:', '  refreshInterval: 1h',
          '  secretStoreRef:', '    kind: ClusterSecretStore', '    name: vault', '  target:', '    name: oauth2-proxy-creds', '  data:',
          '  - secretKey: client-secret', '    remoteRef:', '      key: secret/%s/oauth2-proxy' % c.proj, '      property: client_secret',
          '  - secretKey: cookie-secret', '    remoteRef:', '      key: secret/%s/oauth2-proxy' % c.proj, '      property: cookie_secret']
    v = row.viewer()
    row.show(v, 'deploy/helm/values.yaml', lines)
    row.run('cat deploy/k8s/externalsecret-oauth2-proxy.yaml', es)
    row.say('Every credential here is a reference (`existingSecret`, `vault:`, `op://`, `${…}`, Vault agent templates, ExternalSecret `remoteRef`) or SOPS ciphertext.')
    return row


@tpl('k8s_serviceaccount_projected_volume', False)
def n_k8s_proj(c, lg):
    row = Row(c)
    ns = pick(['apps', 'prod', 'platform'])
    acct = str(R.randint(10 ** 11, 10 ** 12 - 1))
    sa = ['apiVersion: v1', 'kind: ServiceAccount', 'metadata:', '  name: %s' % c.proj, '  namespace: %s' % ns, '  annotations:',
          '    eks.amazonaws.com/role-arn: arn:aws:iam::%s:role/%s-irsa' % (acct, c.proj), '    azure.workload.identity/client-id: %s' % uuid4(),
          '    iam.gke.io/gcp-service-account: %s@%s-prod.iam.gserviceaccount.com' % (c.proj, c.org), 'automountServiceAccountToken: false']
    row.run('kubectl -n %s get sa %s -o yaml | yq \'del(.metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp)\'' % (ns, c.proj), sa)
    pod = ['      env:', '      - name: AWS_ROLE_ARN', '        value: arn:aws:iam::%s:role/%s-irsa' % (acct, c.proj), '      - name: AWS_WEB_IDENTITY_TOKEN_FILE',
           '        value: /var/run/secrets/eks.amazonaws.com/serviceaccount/token', '      - name: VAULT_ROLE', '        value: %s' % c.proj, '      volumeMounts:',
           '      - mountPath: /var/run/secrets/eks.amazonaws.com/serviceaccount', '        name: aws-iam-token', '        readOnly: true', '      volumes:',
           '      - name: aws-iam-token', '        projected:', '          defaultMode: 420', '          sources:', '          - serviceAccountToken:',
           '              audience: sts.amazonaws.com', '              expirationSeconds: 86400', '              path: token']
    row.run("kubectl -n %s get deploy %s -o yaml | yq '.spec.template.spec.containers[0] | {\"env\": .env, \"volumeMounts\": .volumeMounts}, .spec.template.spec.volumes'" % (ns, c.proj), pod)
    row.run('kubectl -n %s exec deploy/%s -- aws sts get-caller-identity' % (ns, c.proj), jdump({'UserId': 'AROA%s:botocore-session-%d' % (rs(UALNUM, 17), c.t),
                                                                                                 'Account': acct, 'Arn': 'arn:aws:sts::%s:assumed-role/%s-irsa/botocore-session-%d' % (acct, c.proj, c.t)}, indent=4))
    row.say('The pod gets short-lived credentials through the projected token file; nothing long-lived is configured.')
    return row


@tpl('gha_workflow_oidc_id_token_permissions', False)
def n_gha_wf(c, lg):
    row = Row(c)
    acct = str(R.randint(10 ** 11, 10 ** 12 - 1))
    pn = R.randint(10 ** 11, 10 ** 12 - 1)
    lines = ['name: deploy', 'on:', '  push:', '    branches: [main]', 'permissions:', '  id-token: write', '  contents: read', 'jobs:', '  deploy:',
             '    runs-on: ubuntu-latest', '    environment: production', '    steps:', '      - uses: actions/checkout@%s # v4.2.2' % gitsha(),
             '      - uses: aws-actions/configure-aws-credentials@%s # v4.0.2' % gitsha(), '        with:',
             '          role-to-assume: arn:aws:iam::%s:role/gha-deploy' % acct, '          aws-region: us-east-1',
             '      - uses: google-github-actions/auth@%s # v2.1.7' % gitsha(), '        with:',
             '          workload_identity_provider: projects/%d/locations/global/workloadIdentityPools/gh-pool/providers/github' % pn,
             '          service_account: deployer@%s-prod.iam.gserviceaccount.com' % c.org, '      - uses: azure/login@%s # v2.2.0' % gitsha(), '        with:',
             '          client-id: ${{ vars.AZURE_CLIENT_ID }}', '          tenant-id: %s' % uuid4(), '          subscription-id: %s' % uuid4(),
             '      - run: ./scripts/deploy.sh', '        env:', '          KEYCLOAK_ADMIN_PASSWORD: ${{ secrets.KEYCLOAK_ADMIN_PASSWORD }}']
    v = row.viewer()
    row.show(v, '.github/workflows/deploy.yml', lines)
    t = c.tick()
    log = ['%s Run aws-actions/configure-aws-credentials@v4' % iso(t, 7), '%s Assuming role with OIDC' % iso(t + 1, 7),
           '%s Authenticated as assumedRoleId AROA%s:GitHubActions' % (iso(t + 2, 7), rs(UALNUM, 17)),
           '%s   KEYCLOAK_ADMIN_PASSWORD: ***' % iso(t + 5, 7), '%s ##[debug]Evaluating: secrets.KEYCLOAK_ADMIN_PASSWORD' % iso(t + 5, 7)]
    row.run('gh run view --log --job %d | cut -f3- | grep -E "OIDC|Authenticated|KEYCLOAK|Evaluating"' % R.randint(10 ** 10, 10 ** 11), log)
    return row


@tpl('decoded_claims_table_no_token', False)
def n_claims(c, lg):
    row = Row(c)
    tenant = uuid4()
    t = c.tick()
    name, handle, email = c.person()
    hdr = {'typ': 'JWT', 'alg': 'RS256', 'x5t': entra_kid(), 'kid': entra_kid()}
    claims = [('aud', 'api://%s' % uuid4()), ('iss', 'https://sts.windows.net/%s/' % tenant), ('iat', str(t)), ('nbf', str(t)), ('exp', str(t + 4000)),
              ('acr', '1'), ('amr', '["pwd","mfa"]'), ('appid', uuid4()), ('appidacr', '0'), ('name', name), ('oid', uuid4()),
              ('roles', '["Orders.Read","Orders.Write"]'), ('scp', 'user_impersonation'), ('sub', b64u(rbytes(32))), ('tid', tenant),
              ('unique_name', email), ('upn', email), ('uti', b64u(rbytes(16))), ('ver', '1.0')]
    row.run('python3 scripts/show_claims.py --from-cache %s' % pick(['orders-api', 'graph', 'portal']),
            ['header: ' + jcompact(hdr), ''] + box_table(['claim', 'value'], [[a, b] for a, b in claims]))
    row.say('The script prints only the decoded header and claims, never the token string, so this output is safe to paste into the ticket.')
    return row


@tpl('passkey_creation_options_challenge', False)
def n_passkey_opts(c, lg):
    row = Row(c)
    name, handle, email = c.person()
    opts = {'challenge': b64u(rbytes(32)), 'rp': {'name': c.org.title(), 'id': c.domain},
            'user': {'id': b64u(rbytes(pick([16, 32, 64]))), 'name': email, 'displayName': name},
            'pubKeyCredParams': [{'alg': -8, 'type': 'public-key'}, {'alg': -7, 'type': 'public-key'}, {'alg': -257, 'type': 'public-key'}],
            'timeout': 60000, 'attestation': 'none',
            'excludeCredentials': [{'id': b64u(rbytes(pick([16, 32]))), 'type': 'public-key', 'transports': pick([['internal', 'hybrid'], ['usb', 'nfc']])} for _ in range(R.randint(1, 3))],
            'authenticatorSelection': {'residentKey': 'required', 'userVerification': 'preferred', 'requireResidentKey': True},
            'extensions': {'credProps': True}, 'hints': []}
    row.run("curl -s -X POST https://app.%s/api/passkeys/register/options -H 'Cookie: session=$SESSION' | jq" % c.domain, jdump(opts))
    row.say('Creation options are public by design: a one-time challenge, an opaque user handle and the IDs of credentials to exclude.')
    return row


@tpl('hydra_list_clients_auth_methods', False)
def n_hydra_list(c, lg):
    row = Row(c)
    rows_ = [['CLIENT ID', 'CLIENT SECRET', 'GRANT TYPES', 'RESPONSE TYPES', 'SCOPE', 'AUDIENCE', 'REDIRECT URIS']]
    for nm, gt, rt_, sc, red in [('spa', 'authorization_code, refresh_token', 'code', 'openid offline_access', 'https://app.%s/callback' % c.domain),
                                 ('reports-cron', 'client_credentials', 'token', 'reports:read', ''), ('cli', 'urn:ietf:params:oauth:grant-type:device_code', 'code', 'openid', ''),
                                 ('orders-sync', 'client_credentials', 'token', 'orders:read orders:write', '')]:
        if chance(0.2):
            continue
        rows_.append([uuid4(), '', gt, rt_, sc, '', red])
    row.run('hydra list oauth2-clients --endpoint http://127.0.0.1:4445', aligned(rows_, gap=2))
    cid = rows_[1][0]
    row.run("hydra get oauth2-client %s --endpoint http://127.0.0.1:4445 --format json | jq '{client_id, client_name, token_endpoint_auth_method, jwks_uri, client_secret_expires_at, skip_consent}'" % cid,
            jdump({'client_id': cid, 'client_name': pick(['spa', 'reports-cron']), 'token_endpoint_auth_method': pick(['none', 'private_key_jwt', 'client_secret_basic']),
                   'jwks_uri': pick(['', 'https://reports.%s/.well-known/jwks.json' % c.domain]), 'client_secret_expires_at': 0, 'skip_consent': False}))
    row.say('Hydra never returns stored client secrets after creation; `token_endpoint_auth_method` is just the method name.')
    return row


@tpl('kratos_identity_get_credentials_hashed', False)
def n_kratos_ident(c, lg):
    row = Row(c)
    name, handle, email = c.person()
    iid = uuid4()
    t = c.tick()
    ident = {'id': iid, 'credentials': {'password': {'type': 'password', 'identifiers': [email], 'version': 0,
                                                     'config': {'hashed_password': pick([argon2_hash, lambda: bcrypt_hash(12, '2a')])()},
                                                     'created_at': iso(t - 86400 * 90, 6), 'updated_at': iso(t - 86400 * 3, 6)},
                                        'webauthn': {'type': 'webauthn', 'identifiers': [b64(rbytes(16))], 'version': 1,
                                                     'config': {'credentials': [{'id': b64(rbytes(32)), 'public_key': b64(rbytes(77)), 'attestation_type': 'none',
                                                                                 'authenticator': {'aaguid': b64(rbytes(16)), 'sign_count': R.randint(0, 99), 'clone_warning': False},
                                                                                 'display_name': pick(['MacBook', 'YubiKey 5C', 'Pixel 8']), 'added_at': iso(t - 86400 * 20, 0), 'is_passwordless': True}],
                                                                'user_handle': b64(rbytes(16))},
                                                     'created_at': iso(t - 86400 * 20, 6), 'updated_at': iso(t - 86400 * 20, 6)}},
             'schema_id': 'default', 'schema_url': 'https://auth.%s/schemas/ZGVmYXVsdA' % c.domain, 'state': 'active', 'state_changed_at': iso(t - 86400 * 90, 6),
             'traits': {'email': email, 'name': {'first': name.split(' ')[0], 'last': name.split(' ')[-1]}},
             'verifiable_addresses': [{'id': uuid4(), 'value': email, 'verified': True, 'via': 'email', 'status': 'completed',
                                       'verified_at': iso(t - 86400 * 89, 6), 'created_at': iso(t - 86400 * 90, 6), 'updated_at': iso(t - 86400 * 89, 6)}],
             'recovery_addresses': [{'id': uuid4(), 'value': email, 'via': 'email', 'created_at': iso(t - 86400 * 90, 6), 'updated_at': iso(t - 86400 * 90, 6)}],
             'metadata_public': None, 'created_at': iso(t - 86400 * 90, 6), 'updated_at': iso(t - 86400 * 3, 6), 'organization_id': None}
    row.run('curl -s "http://kratos:4434/admin/identities/%s?include_credential=password&include_credential=webauthn" | jq' % iid, jdump(ident))
    row.say('Even with `include_credential`, Kratos returns the password hash and the WebAuthn public keys, not anything that can log in.')
    return row


@tpl('zitadel_ids_projects_keys_list', False)
def n_zitadel(c, lg):
    row = Row(c)
    pid = str(R.randint(10 ** 17, 10 ** 18 - 1))
    t = c.tick()
    apps = []
    for nm in R.sample(['portal', 'admin', 'cli', 'orders-api'], R.randint(2, 3)):
        aid = str(R.randint(10 ** 17, 10 ** 18 - 1))
        apps.append({'id': aid, 'details': {'sequence': str(R.randint(10, 900)), 'creationDate': iso(t - 86400 * R.randint(10, 300), 6), 'resourceOwner': str(R.randint(10 ** 17, 10 ** 18 - 1))},
                     'state': 'APP_STATE_ACTIVE', 'name': nm,
                     'oidcConfig': {'redirectUris': ['https://%s.%s/auth/callback' % (nm, c.domain)], 'responseTypes': ['OIDC_RESPONSE_TYPE_CODE'],
                                    'grantTypes': ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'], 'appType': 'OIDC_APP_TYPE_WEB',
                                    'clientId': '%d@%s' % (R.randint(10 ** 17, 10 ** 18 - 1), c.proj), 'authMethodType': pick(['OIDC_AUTH_METHOD_TYPE_BASIC', 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT', 'OIDC_AUTH_METHOD_TYPE_NONE']),
                                    'accessTokenType': 'OIDC_TOKEN_TYPE_JWT', 'idTokenRoleAssertion': True}})
    row.run("curl -s -X POST -H \"Authorization: Bearer $ZITADEL_PAT\" https://id.%s/management/v1/projects/%s/apps/_search | jq '.result'" % (c.domain, pid), jdump(apps))
    keys = [{'id': str(R.randint(10 ** 17, 10 ** 18 - 1)), 'details': {'sequence': str(R.randint(1, 99)), 'creationDate': iso(t - 86400 * R.randint(1, 200), 6)},
             'type': 'KEY_TYPE_JSON', 'expirationDate': iso(t + 86400 * 365, 0)} for _ in range(R.randint(1, 3))]
    row.run("curl -s -X POST -H \"Authorization: Bearer $ZITADEL_PAT\" https://id.%s/management/v1/users/%d/keys/_search | jq '.result'" % (c.domain, R.randint(10 ** 17, 10 ** 18 - 1)), jdump(keys))
    row.say('Listings return IDs, `clientId`s and key metadata only; key material exists only in the JSON file downloaded at creation.')
    return row


@tpl('authentik_tokens_list_identifiers', False)
def n_authentik(c, lg):
    row = Row(c)
    t = c.tick()
    res = []
    for ident in R.sample(['ci-deploy', 'terraform', 'grafana-sync', 'ldap-outpost', 'scim-push', 'backup-exporter'], R.randint(2, 4)):
        res.append({'pk': uuid4(), 'managed': 'goauthentik.io/outpost/%s' % ident if 'outpost' in ident else None, 'identifier': ident,
                    'intent': pick(['api', 'app_password']), 'user': R.randint(3, 60), 'user_obj': {'pk': R.randint(3, 60), 'username': pick(USERS), 'name': pick(PEOPLE)[0]},
                    'description': '', 'expires': iso(t + 86400 * R.randint(1, 365), 6), 'expiring': True})
    out = jdump({'pagination': {'next': 0, 'previous': 0, 'count': len(res), 'current': 1, 'total_pages': 1, 'start_index': 1, 'end_index': len(res)}, 'results': res})
    row.run('curl -s -H "Authorization: Bearer $AUTHENTIK_TOKEN" https://auth.%s/api/v3/core/tokens/ | jq' % c.domain, out)
    row.say('The list endpoint returns identifiers, intents and expiry; the key itself needs a separate `view_key` call, which I am not making.')
    return row


@tpl('dex_config_env_references', False)
def n_dex_env(c, lg):
    row = Row(c)
    dc = ldap_dc(c)
    lines = ['issuer: https://dex.%s/dex' % c.domain, 'storage:', '  type: kubernetes', '  config:', '    inCluster: true', 'web:', '  http: 0.0.0.0:5556',
             'connectors:', '- type: github', '  id: github', '  name: GitHub', '  config:', '    clientID: $GITHUB_CLIENT_ID', '    clientSecret: $GITHUB_CLIENT_SECRET',
             '    redirectURI: https://dex.%s/dex/callback' % c.domain, '- type: ldap', '  id: ldap', '  name: LDAP', '  config:', '    host: ldap.%s:636' % c.domain,
             '    bindDN: cn=dex,ou=services,' + dc, '    bindPW: $LDAP_BIND_PW', '    userSearch:', '      baseDN: ou=people,' + dc, '      username: mail',
             'staticClients:', '- id: argo-cd', '  name: Argo CD', '  secretEnv: ARGOCD_DEX_CLIENT_SECRET', '  redirectURIs:', '  - https://argocd.%s/auth/callback' % c.domain,
             '- id: example-app', '  name: Example App', '  secret: ZXhhbXBsZS1hcHAtc2VjcmV0', '  redirectURIs:', "  - 'http://127.0.0.1:5555/callback'",
             'enablePasswordDB: true', 'staticPasswords:', '- email: "admin@example.com"',
             '  hash: "$2a$10$2b2cU8CPhOTaGrs1HRQuAueS7JTT5ZHsHSzYiFPm1leZck7Mc8T4W"', '  username: "admin"', '  userID: "08a8684b-db88-4b73-90a9-3cd1661f5466"']
    v = row.viewer()
    row.show(v, 'deploy/dex/config.yaml', lines)
    row.say('Secrets come from env (`$GITHUB_CLIENT_SECRET`, `$LDAP_BIND_PW`, `secretEnv`). The example app, its secret and the admin hash are Dex\'s own published example values.')
    return row


@tpl('fusionauth_keys_list_public', False)
def n_fa_keys(c, lg):
    row = Row(c)
    t = c.tick()
    keys = []
    for _ in range(R.randint(1, 2)):
        cert = Cert('%s.%s' % (pick(['login', 'auth']), c.domain), days=3650)
        n = fake_modulus()
        pub = dseq(dseq(OID_RSA, NULL), tlv(0x03, b'\x00' + dseq(dint(n), dint(65537))))
        keys.append({'algorithm': 'RS256', 'certificate': '\n'.join(cert.pem()), 'certificateInformation': {'issuer': 'CN=%s' % cert.cn,
                     'sha1Fingerprint': cert.fp('sha1', ''), 'sha256Fingerprint': cert.fp('sha256', ''), 'subject': 'CN=%s' % cert.cn,
                     'validFrom': cert.t0 * 1000, 'validTo': cert.t1 * 1000}, 'expirationInstant': cert.t1 * 1000, 'hasPrivateKey': True,
                     'id': uuid4(), 'insertInstant': (t - 86400 * R.randint(1, 400)) * 1000, 'issuer': 'https://login.%s' % c.domain, 'kid': hx(9),
                     'length': 2048, 'name': 'For %s' % c.proj, 'publicKey': '\n'.join(pem_plain('PUBLIC KEY', pub)), 'type': 'RSA'})
    row.run('curl -s -H "Authorization: $FUSIONAUTH_API_KEY" http://localhost:9011/api/key | jq \'.keys | map(select(.type != "HMAC"))\'', jdump(keys))
    row.say('For RSA keys the API returns only the public key and certificate; `hasPrivateKey: true` just says the private half exists server-side.')
    return row


@tpl('kcadm_get_clients_secret_starred', False)
def n_kcadm_starred(c, lg):
    row = Row(c)
    kc = './kcadm.sh'
    out = []
    for nm in R.sample(['account', 'broker', 'realm-management', c.proj, c.proj + '-backend', 'grafana', 'argocd'], R.randint(3, 5)):
        d = {'id': uuid4(), 'clientId': nm, 'publicClient': nm == 'account-console'}
        if not d['publicClient']:
            d['secret'] = '**********'
        d['clientAuthenticatorType'] = pick(['client-secret', 'client-jwt', 'client-x509'])
        out.append(d)
    row.run('%s get clients -r %s --fields id,clientId,publicClient,secret,clientAuthenticatorType' % (kc, c.realm), kc_json(out))
    row.run('%s get realms/%s --fields realm,enabled,sslRequired,passwordPolicy' % (kc, c.realm),
            kc_json({'realm': c.realm, 'enabled': True, 'sslRequired': 'external', 'passwordPolicy': 'length(12) and notUsername and passwordHistory(5) and hashIterations(210000)'}))
    row.say('The admin API masks confidential client secrets as `**********` in listings.')
    return row


@tpl('tsh_status_profile_certs', False)
def n_tsh(c, lg):
    row = Row(c)
    proxy = 'teleport.%s' % c.domain
    t = c.tick()
    u = c.user
    row.run('tsh status', ['> Profile URL:        https://%s:443' % proxy, '  Logged in as:       %s@%s' % (u, c.domain), '  Cluster:            %s' % proxy,
                           '  Roles:              access, editor', '  Logins:             %s, ubuntu, -teleport-internal-join' % u, '  Kubernetes:         enabled',
                           '  Kubernetes groups:  system:masters', '  Valid until:        %s +0000 UTC [valid for 11h%dm0s]' % (sqlts(t + 43000), R.randint(0, 59)),
                           '  Extensions:         login-ip, permit-agent-forwarding, permit-port-forwarding, permit-pty, private-key-policy'])
    rows_ = [['Node Name', 'Address', 'Labels']] + [['%s-%d' % (pick(['web', 'db', 'bastion', 'worker']), i), '⟵ Tunnel', 'env=%s,team=%s' % (pick(['prod', 'staging']), pick(['auth', 'platform']))] for i in range(1, R.randint(3, 6))]
    out = aligned(rows_, gap=1)
    out.insert(1, ' '.join('-' * dw(x) for x in out[0].split()))
    row.run('tsh ls', out)
    row.run('ls ~/.tsh/keys/%s/' % proxy, [u + '@' + c.domain, '%s@%s-kube' % (u, c.domain), '%s@%s-ssh' % (u, c.domain), '%s@%s.pub' % (u, c.domain)])
    row.say('`tsh status` shows only the certificate metadata; the short-lived key pair stays under `~/.tsh/keys`.')
    return row


# ===========================================================================
# driver and assertions
# ===========================================================================
SCHEME_WORDS = ('Bearer ', 'Basic ', 'token ', 'Token ', 'Bot ', 'AccessKey ', 'key=', 'token=', 'SSWS ', 'FlyV1 ',
                'pass:', 'Circle-Token: ', 'PRIVATE-TOKEN: ', 'ApiKey ', 'Digest ', 'Negotiate ', 'DPoP ', 'secret=',
                'password=')
CONT_BAD = re.compile(r'^(\s|│|\||\d+(→|│|\t| {2,}))')


def spans_of(text):
    spans = []
    i = 0
    start = None
    for k, ch in enumerate(text):
        if ch == '«':
            assert start is None, 'nested mark'
            start = k + 1
        elif ch == '»':
            assert start is not None, 'unbalanced »'
            assert k > start, 'empty mark'
            spans.append((start, k))
            start = None
    assert start is None, 'unclosed «'
    return spans


def spans_text(text):
    return [text[a:b] for a, b in spans_of(text)]


def check_row(rid, positive, text, lg):
    for ch in text:
        o = ord(ch)
        assert ch in '\n\t' or (o >= 32 and o != 127 and not (0x80 <= o < 0xa0)), ('control character', rid, repr(ch))
    nl = text.count('\n') + 1
    assert nl <= 150, ('row longer than 150 lines', rid, nl)
    if lg:
        assert nl >= 40, ('long row too short', rid, nl)
    if not positive:
        assert '«' not in text and '»' not in text, ('marks in a negative row', rid)
        return []
    sp = spans_of(text)
    assert sp, ('positive row without a mark', rid)
    secrets = []
    for a, b in sp:
        s = text[a:b]
        assert s == s.strip(), ('outer whitespace in mark', rid, s[:40])
        assert s[0] not in '\'"`' and s[-1] not in '\'"`', ('quote at mark edge', rid, s[:60])
        for w in SCHEME_WORDS:
            assert not s.startswith(w), ('scheme word in mark', rid, s[:40])
        if '\n' in s:
            for cont in s.split('\n')[1:]:
                assert not CONT_BAD.match(cont), ('continuation line starts with prefix', rid, cont[:40])
        secrets.append(s)
    bare = text
    for a, b in reversed(sp):
        bare = bare[:a - 1] + '\x00' + bare[b + 1:]
    for s in secrets:
        if len(s) >= 8:
            assert s not in bare, ('secret also appears unmarked', rid, s[:60])
    return secrets


def used_template_names():
    here = os.path.dirname(os.path.abspath(__file__))
    parent = os.path.dirname(here)
    names = []
    for d in sorted(os.listdir(parent)):
        if not d.startswith('agent_tuning') or d == os.path.basename(here):
            continue
        p = os.path.join(parent, d, 'README.md')
        if not os.path.isfile(p):
            continue
        txt = open(p, encoding='utf-8').read()
        k = txt.find('## Templates')
        if k < 0:
            continue
        names += re.findall(r'`([a-z0-9_]+)`', txt[k:])
    return names


def main():
    names = [n for n, _, _ in TEMPLATES]
    assert len(set(names)) == len(names), 'duplicate template names'
    pos = [t for t in TEMPLATES if t[1]]
    neg = [t for t in TEMPLATES if not t[1]]
    assert len(pos) == 60 and len(neg) == 60, (len(pos), len(neg))
    assert [t for t in TEMPLATES[:60]] == pos
    used = used_template_names()
    assert len(used) > 1000, 'could not read the other READMEs'
    for n in names:
        assert n not in used, ('template name already used', n)
    rows = []
    rid = 0
    for name, positive, fn in pos + neg:
        for _ in range(5):
            rid += 1
            c = Ctx()
            lg = chance(0.3)
            row = fn(c, lg)
            bury(row, lg)
            text = row.text()
            rows.append((rid, name, positive, text, lg))
    all_secrets = []
    owner = {}
    for rid, name, positive, text, lg in rows:
        ss = check_row(rid, positive, text, lg)
        for s in ss:
            all_secrets.append(s)
            if len(s) >= 8:
                assert owner.get(s, rid) == rid, ('secret reused across rows', s[:60])
                owner[s] = rid
    big = '\x00'.join(r[3] for r in rows)
    for rid, name, positive, text, lg in rows:
        if not positive:
            continue
        for s in dict.fromkeys(x for x in spans_text(text) if len(x) >= 8):
            assert big.count(s) == text.count(s), ('secret appears in another row', rid, s[:60])
    assert len(rows) == 600
    out = sys.stdout.buffer
    for rid, name, positive, text, lg in rows:
        out.write((json.dumps({'id': rid, 'template': name, 'positive': positive, 'text': text}, ensure_ascii=False) + '\n').encode('utf-8'))
    npos = sum(1 for r in rows if r[2])
    longp = sum(1 for r in rows if r[2] and r[3].count('\n') + 1 >= 40)
    longn = sum(1 for r in rows if not r[2] and r[3].count('\n') + 1 >= 40)
    sys.stderr.write('%d rows (%d positive, %d negative), %d marked spans, %d distinct; long rows: %d positive, %d negative\n' % (
        len(rows), npos, len(rows) - npos, len(all_secrets), len(set(all_secrets)), longp, longn))


if __name__ == '__main__':
    main()
