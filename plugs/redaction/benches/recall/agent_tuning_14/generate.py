#!/usr/bin/env python3
"""Fourteenth tuning set: messaging, mail and data stores.

Prints 600 JSON rows (60 positive templates, then 60 negative templates,
5 rows each) to stdout.  Secrets in positive rows are wrapped in « and ».
Standard library only, one random.Random(SEED), deterministic output.

    python3 generate.py > rows.jsonl
"""
import base64
import hashlib
import hmac
import json
import random
import struct
import sys
import unicodedata
import zlib

SEED = 1414
R = random.Random(SEED)
LM, RM = '\u00ab', '\u00bb'

# ---------------------------------------------------------------- registry
REG = {}


def _reg(v):
    if v in REG:
        return False
    REG[v] = 1
    return True


def fresh(fn, *a, **k):
    for _ in range(20000):
        v = fn(*a, **k)
        if _reg(v):
            return v
    raise RuntimeError('registry exhausted')


def regd(v):
    """Register a value derived from random input (hash, encoding)."""
    if len(v) >= 8:
        assert _reg(v), ('derived value repeated', v)
    return v


# ---------------------------------------------------------------- alphabets
UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
LO = 'abcdefghijklmnopqrstuvwxyz'
DG = '0123456789'
AN = UP + LO + DG
HEX = '0123456789abcdef'
B64 = UP + LO + DG + '+/'
B64U = UP + LO + DG + '-_'
B32 = UP + '234567'


def rs(alpha, n):
    return ''.join(R.choice(alpha) for _ in range(n))


def rb(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def rb64(n):
    """Base64 of random bytes, registered (a look-alike or a secret)."""
    return fresh(lambda: b64(rb(n)))


def hx(n):
    return fresh(rs, HEX, n)


def uuid4():
    def g():
        b = bytearray(rb(16))
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        h = b.hex()
        return '%s-%s-%s-%s-%s' % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    return fresh(g)


def uuid7(secs):
    def g():
        ms = secs * 1000 + R.randrange(1000)
        b = bytearray(ms.to_bytes(6, 'big') + rb(10))
        b[6] = (b[6] & 0x0F) | 0x70
        b[8] = (b[8] & 0x3F) | 0x80
        h = b.hex()
        return '%s-%s-%s-%s-%s' % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    return fresh(g)


def oid(secs):
    return fresh(lambda: '%08x' % secs + rs(HEX, 16))


def b64(b):
    return base64.b64encode(b).decode()


def b64u(b, pad=False):
    s = base64.urlsafe_b64encode(b).decode()
    return s if pad else s.rstrip('=')


def wrap(s, n):
    return [s[i:i + n] for i in range(0, len(s), n)]


# ---------------------------------------------------------------- crypto bits
def crc16_xmodem(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def b32nopad(b):
    return base64.b32encode(b).decode().rstrip('=')


# --- DER
def _dlen(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, 'big')
    return bytes([0x80 | len(b)]) + b


def der(tag, body):
    return bytes([tag]) + _dlen(len(body)) + body


def dint(v):
    b = v.to_bytes((v.bit_length() + 8) // 8 or 1, 'big')
    return der(0x02, b)


def dseq(*parts):
    return der(0x30, b''.join(parts))


def doct(b):
    return der(0x04, b)


def dbit(b):
    return der(0x03, b'\x00' + b)


def doid(s):
    p = [int(x) for x in s.split('.')]
    out = bytes([40 * p[0] + p[1]])
    for v in p[2:]:
        enc = [v & 0x7F]
        v >>= 7
        while v:
            enc.append(0x80 | (v & 0x7F))
            v >>= 7
        out += bytes(reversed(enc))
    return der(0x06, out)


DNULL = b'\x05\x00'

# --- RSA
SMALL_PRIMES = [p for p in range(3, 3000) if all(p % q for q in range(2, int(p ** 0.5) + 1))]


def _probable_prime(n):
    for p in SMALL_PRIMES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for _ in range(12):
        a = R.randrange(2, n - 2)
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(bits):
    while True:
        n = R.getrandbits(bits) | (3 << (bits - 2)) | 1
        if _probable_prime(n):
            return n


def rsa_key(bits=2048):
    e = 65537
    while True:
        p = _prime(bits // 2)
        q = _prime(bits // 2)
        if p == q:
            continue
        phi = (p - 1) * (q - 1)
        if phi % e == 0:
            continue
        n = p * q
        if n.bit_length() != bits:
            continue
        if p < q:
            p, q = q, p
        d = pow(e, -1, phi)
        pkcs1 = dseq(dint(0), dint(n), dint(e), dint(d), dint(p), dint(q),
                     dint(d % (p - 1)), dint(d % (q - 1)), dint(pow(q, -1, p)))
        pub = dseq(dint(n), dint(e))
        return {'n': n, 'e': e, 'pkcs1': pkcs1, 'pub_pkcs1': pub}


def rsa_pkcs8(k):
    return dseq(dint(0), dseq(doid('1.2.840.113549.1.1.1'), DNULL), doct(k['pkcs1']))


def rsa_spki(k):
    return dseq(dseq(doid('1.2.840.113549.1.1.1'), DNULL), dbit(k['pub_pkcs1']))


def encrypted_pkcs8(inner):
    """PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC) envelope; the ciphertext is
    random bytes of the length the real encryption would give."""
    salt, iv = rb(16), rb(16)
    clen = (len(inner) // 16 + 1) * 16
    alg = dseq(doid('1.2.840.113549.1.5.13'), dseq(
        dseq(doid('1.2.840.113549.1.5.12'),
             dseq(doct(salt), dint(2048), dseq(doid('1.2.840.113549.2.9'), DNULL))),
        dseq(doid('2.16.840.1.101.3.4.1.42'), doct(iv))))
    return dseq(alg, doct(rb(clen)))


# --- P-256
P256_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff
P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551
P256_A = P256_P - 3
P256_G = (0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296,
          0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5)


def _ec_add(P, Q):
    if P is None:
        return Q
    if Q is None:
        return P
    p = P256_P
    if P[0] == Q[0]:
        if (P[1] + Q[1]) % p == 0:
            return None
        lam = (3 * P[0] * P[0] + P256_A) * pow(2 * P[1], p - 2, p) % p
    else:
        lam = (Q[1] - P[1]) * pow(Q[0] - P[0], p - 2, p) % p
    x = (lam * lam - P[0] - Q[0]) % p
    return (x, (lam * (P[0] - x) - P[1]) % p)


def _ec_mul(k, P):
    acc = None
    while k:
        if k & 1:
            acc = _ec_add(acc, P)
        P = _ec_add(P, P)
        k >>= 1
    return acc


def p256_key():
    d = R.randrange(1, P256_N)
    Q = _ec_mul(d, P256_G)
    pub = b'\x04' + Q[0].to_bytes(32, 'big') + Q[1].to_bytes(32, 'big')
    return d, pub


def p256_pkcs8(d, pub):
    ecpk = dseq(dint(1), doct(d.to_bytes(32, 'big')),
                der(0xA0, doid('1.2.840.10045.3.1.7')), der(0xA1, dbit(pub)))
    return dseq(dint(0), dseq(doid('1.2.840.10045.2.1'), doid('1.2.840.10045.3.1.7')), doct(ecpk))


def p256_sec1(d, pub):
    return dseq(dint(1), doct(d.to_bytes(32, 'big')),
                der(0xA0, doid('1.2.840.10045.3.1.7')), der(0xA1, dbit(pub)))


def p256_spki(pub):
    return dseq(dseq(doid('1.2.840.10045.2.1'), doid('1.2.840.10045.3.1.7')), dbit(pub))


def es256_sign(d, msg):
    z = int.from_bytes(hashlib.sha256(msg).digest(), 'big')
    while True:
        k = R.randrange(1, P256_N)
        x = _ec_mul(k, P256_G)[0] % P256_N
        s = pow(k, -1, P256_N) * (z + x * d) % P256_N
        if x and s:
            return x.to_bytes(32, 'big') + s.to_bytes(32, 'big')


# --- Ed25519 (RFC 8032 reference arithmetic)
ED_P = 2 ** 255 - 19
ED_L = 2 ** 252 + 27742317777372353535851937790883648493
ED_D = -121665 * pow(121666, ED_P - 2, ED_P) % ED_P
ED_I = pow(2, (ED_P - 1) // 4, ED_P)


def _ed_xrecover(y):
    xx = (y * y - 1) * pow(ED_D * y * y + 1, ED_P - 2, ED_P)
    x = pow(xx, (ED_P + 3) // 8, ED_P)
    if (x * x - xx) % ED_P:
        x = x * ED_I % ED_P
    if x % 2:
        x = ED_P - x
    return x


_ED_BY = 4 * pow(5, ED_P - 2, ED_P) % ED_P
ED_B = (_ed_xrecover(_ED_BY), _ED_BY, 1, _ed_xrecover(_ED_BY) * _ED_BY % ED_P)


def _ed_add(P, Q):
    A = (P[1] - P[0]) * (Q[1] - Q[0]) % ED_P
    B = (P[1] + P[0]) * (Q[1] + Q[0]) % ED_P
    C = 2 * P[3] * Q[3] * ED_D % ED_P
    D = 2 * P[2] * Q[2] % ED_P
    E, F, G, H = B - A, D - C, D + C, B + A
    return (E * F % ED_P, G * H % ED_P, F * G % ED_P, E * H % ED_P)


def _ed_mul(s, P):
    Q = (0, 1, 1, 0)
    while s:
        if s & 1:
            Q = _ed_add(Q, P)
        P = _ed_add(P, P)
        s >>= 1
    return Q


def _ed_enc(P):
    zi = pow(P[2], ED_P - 2, ED_P)
    x, y = P[0] * zi % ED_P, P[1] * zi % ED_P
    return (y | ((x & 1) << 255)).to_bytes(32, 'little')


def _ed_expand(seed):
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], 'little')
    a &= (1 << 254) - 8
    a |= 1 << 254
    return a, h[32:]


def ed25519_pub(seed):
    a, _ = _ed_expand(seed)
    return _ed_enc(_ed_mul(a, ED_B))


def ed25519_sign(seed, msg):
    a, prefix = _ed_expand(seed)
    A = _ed_enc(_ed_mul(a, ED_B))
    r = int.from_bytes(hashlib.sha512(prefix + msg).digest(), 'little') % ED_L
    Rs = _ed_enc(_ed_mul(r, ED_B))
    h = int.from_bytes(hashlib.sha512(Rs + A + msg).digest(), 'little') % ED_L
    s = (r + h * a) % ED_L
    return Rs + s.to_bytes(32, 'little')


# --- NATS nkeys
NK_PREFIX = {'O': 14 << 3, 'A': 0, 'U': 20 << 3, 'N': 13 << 3}
NK_SEED = 18 << 3


def nkey_pair(kind):
    seed = rb(32)
    pfx = NK_PREFIX[kind]
    raw = bytes([NK_SEED | (pfx >> 5), (pfx & 31) << 3]) + seed
    raw += struct.pack('<H', crc16_xmodem(raw))
    sk = b32nopad(raw)
    pub = bytes([pfx]) + ed25519_pub(seed)
    pub += struct.pack('<H', crc16_xmodem(pub))
    pk = b32nopad(pub)
    regd(sk)
    regd(pk)
    return {'seed': sk, 'pub': pk, 'raw': seed}


def nats_jwt(signer, claims):
    hdr = b64u(json.dumps({'typ': 'JWT', 'alg': 'ed25519-nkey'}, separators=(',', ':')).encode())
    c = dict(claims)
    c['jti'] = ''
    body = json.dumps(c, separators=(',', ':')).encode()
    c['jti'] = b32nopad(hashlib.sha256(body).digest())
    body = b64u(json.dumps(c, separators=(',', ':')).encode())
    sig = ed25519_sign(signer['raw'], (hdr + '.' + body).encode())
    return regd(hdr + '.' + body + '.' + b64u(sig))


# --- password hashes (real algorithms, random inputs)
def scram_creds(pw, mech='SHA-256', iters=4096, salt=None):
    h = {'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-512': 'sha512'}[mech]
    salt = salt or rb(16 if mech != 'SHA-1' else 16)
    salted = hashlib.pbkdf2_hmac(h, pw.encode(), salt, iters)
    ck = hmac.new(salted, b'Client Key', h).digest()
    stored = hashlib.new(h, ck).digest()
    server = hmac.new(salted, b'Server Key', h).digest()
    return b64(salt), regd(b64(stored)), regd(b64(server))


def rabbit_hash(pw):
    salt = rb(4)
    return regd(b64(salt + hashlib.sha256(salt + pw.encode()).digest()))


def mosq_hash(pw):
    salt = rb(12)
    dk = hashlib.pbkdf2_hmac('sha512', pw.encode(), salt, 101, 64)
    return regd('$7$101$' + b64(salt) + '$' + b64(dk))


BCRYPT_AL = './' + UP + LO + DG


def bcrypt_like(cost=12, ver='2y'):
    def g():
        salt = rs(BCRYPT_AL, 21) + R.choice('.Oeu')
        h = rs(BCRYPT_AL, 30) + R.choice('.26AEIMQUYcgkosw')
        return '$%s$%02d$%s%s' % (ver, cost, salt, h)
    return fresh(g)


def sha256_hex(s):
    return regd(hashlib.sha256(s.encode()).hexdigest())


def dsha1_hex(s):
    return regd(hashlib.sha1(hashlib.sha1(s.encode()).digest()).hexdigest())


# ---------------------------------------------------------------- words
WORDS = ('anchor apple arrow aspen autumn badger bamboo banjo barley basil beacon birch biscuit bison blossom '
         'bramble breeze brook cactus camel candle canyon carbon cedar cherry chess cider cinder clover cobalt '
         'comet copper coral cosmos cotton crane crater crystal cypress dahlia delta desert dingo dolphin dragon '
         'dune eagle echo ember falcon fennel fern fig fjord flint forest fox frost galaxy garnet gecko ginger '
         'glacier granite grove harbor hazel heron hickory honey horizon husky indigo iris ivory jade jasmine '
         'juniper kayak kelp kestrel kiwi koala lagoon lantern lark laurel lemon lilac linen lotus lynx magnet '
         'mango maple marble meadow melon meteor mint mocha moose mosaic nectar nebula nickel nova oak oasis '
         'ocean olive onyx orbit orchid otter owl panda papaya parrot pebble pepper pine pixel planet plum '
         'polar poppy prairie prism puffin quartz quill rabbit radish raven reef ridge river robin rocket '
         'saffron sage salmon sapphire sequoia shadow sierra silver sketch sparrow spruce squid summit sunset '
         'tango thistle thunder tiger timber topaz tulip tundra turtle velvet violet volcano walnut walrus '
         'willow wombat yarrow zebra zephyr').split()
SEASONS = ['Spring', 'Summer', 'Autumn', 'Winter', 'Fall']
SYMS = '!#%*-_.+=?@^~'


def _cap(w):
    return w[0].upper() + w[1:]


def _pw_human():
    k = R.randrange(6)
    w = R.choice(WORDS)
    if k == 0:
        return '%s%d%s' % (R.choice(SEASONS), R.randrange(2016, 2026), R.choice('!#?*@'))
    if k == 1:
        return '%s%s%d' % (_cap(w), R.choice('!#@*.'), R.randrange(10, 9999))
    if k == 2:
        return '%s%s%02d%s' % (_cap(w), _cap(R.choice(WORDS)), R.randrange(100), R.choice('!?#'))
    if k == 3:
        leet = w.replace('a', '@').replace('o', '0').replace('e', '3').replace('i', '1')
        return '%s%d%s' % (_cap(leet), R.randrange(1, 999), R.choice('!$#'))
    if k == 4:
        return '%s%s%s%d' % (_cap(w), R.choice(['_', '-', '.']), _cap(R.choice(WORDS)), R.randrange(1, 99))
    return '%s%d%s%s' % (_cap(w), R.randrange(1990, 2026), R.choice('!@#'), R.choice(['prod', 'dev', 'qa', 'ops', 'db']))


def _pw_phrase():
    n = R.choice([3, 4, 4, 5])
    sep = R.choice(['-', '-', '.', '_'])
    ws = [R.choice(WORDS) for _ in range(n)]
    if R.random() < 0.3:
        ws[-1] += str(R.randrange(10, 99))
    if R.random() < 0.3:
        ws = [_cap(w) for w in ws]
    return sep.join(ws)


def _pw_gen12(n=None):
    n = n or R.choice([12, 12, 14, 16, 20])
    al = AN + '!#%*-_+=?^~'
    while True:
        s = R.choice(AN) + rs(al, n - 1)
        if (any(c in UP for c in s) and any(c in LO for c in s) and any(c in DG for c in s)
                and any(c in '!#%*-_+=?^~' for c in s)):
            return s


def _pw_pwgen():
    cons, vow = 'bcdfghjkmnprstvwxz', 'aeiou'
    out = ''
    for i in range(R.choice([4, 5, 6])):
        out += R.choice(cons) + R.choice(vow)
    out = list(out)
    out[R.randrange(len(out))] = R.choice(DG)
    j = R.randrange(len(out))
    out[j] = out[j].upper()
    return ''.join(out)


def _pw_safari():
    def chunk():
        return ''.join(R.choice('bcdfghjkmnpqrstvwxz' if i % 2 == 0 else 'aeiouy') for i in range(6))
    parts = [chunk() for _ in range(3)]
    i = R.randrange(3)
    p = list(parts[i])
    p[R.randrange(6)] = R.choice(DG)
    parts[i] = ''.join(p)
    j = R.randrange(3)
    parts[j] = parts[j][0].upper() + parts[j][1:]
    return '-'.join(parts)


PW_KINDS = ['human', 'human', 'phrase', 'gen', 'gen', 'alnum', 'b64', 'hex', 'pwgen', 'safari']


def _pw_any(kind):
    if kind == 'human':
        return _pw_human()
    if kind == 'phrase':
        return _pw_phrase()
    if kind == 'gen':
        return _pw_gen12()
    if kind == 'alnum':
        return rs(AN, R.choice([16, 20, 24, 32]))
    if kind == 'b64':
        return b64(rb(R.choice([18, 24, 32])))
    if kind == 'hex':
        return rs(HEX, R.choice([24, 32, 40]))
    if kind == 'pwgen':
        return _pw_pwgen()
    return _pw_safari()


BAD_ALWAYS = set('\'"`\\ $' + LM + RM)
BAD_CTX = {
    'plain': set(),
    'url': set('@:/?#%[]&+=;,!^'),
    'xml': set('<>&'),
    'kafka': set('=,[]'),
    'yaml': set('#:'),
    'ini': set(';#='),
}


def pw(ctx='plain', kind=None):
    bad = BAD_ALWAYS | BAD_CTX[ctx]

    def g():
        while True:
            s = _pw_any(kind or R.choice(PW_KINDS))
            if len(s) >= 8 and not (set(s) & bad) and s[0].isalnum() and s[-1] not in '.-':
                return s
    return fresh(g)


# --- vendor formats
def sendgrid_key():
    return fresh(lambda: 'SG.' + rs(B64U, 22) + '.' + rs(B64U, 43))


def mailgun_key():
    if R.random() < 0.5:
        return fresh(lambda: 'key-' + rs(HEX, 32))
    return fresh(lambda: rs(HEX, 32) + '-' + rs(HEX, 8) + '-' + rs(HEX, 8))


def resend_key():
    return fresh(lambda: 're_' + rs(AN, 8) + '_' + rs(AN, 24))


def ses_smtp_pw():
    return fresh(lambda: b64(b'\x04' + rb(32)))


def aws_key_id(pfx='AKIA'):
    return fresh(lambda: pfx + rs(B32, 16))


def aws_secret():
    return fresh(lambda: rs(AN + '+/', 40))


def twilio_sid(pfx):
    return fresh(lambda: pfx + rs(HEX, 32))


def twilio_token():
    return hx(32)


def confluent_key():
    return fresh(lambda: rs(UP + DG, 16))


def confluent_secret():
    if R.random() < 0.4:
        return fresh(lambda: 'cflt' + rs(AN + '+/', 60))
    return fresh(lambda: rs(AN + '+/', 64))


def fcm_server_key():
    return fresh(lambda: 'AAAA' + rs(B64U, 7) + ':APA91b' + rs(B64U, 134))


def fcm_reg_token():
    return fresh(lambda: rs(B64U, 22) + ':APA91b' + rs(B64U, 134))


def influx_token():
    return fresh(lambda: b64u(rb(64), pad=True))


def es_id():
    return fresh(lambda: rs(B64U, 20))


def es_api_key():
    return fresh(lambda: rs(B64U, 22))


def es_password():
    return fresh(lambda: rs(AN, 1) + rs(AN + '*-_=+', 19))


def minio_access():
    return fresh(lambda: rs(UP + DG, 20))


def minio_secret():
    return fresh(lambda: rs(AN + '+/', 40))


def astra_token():
    return fresh(lambda: 'AstraCS:' + rs(UP + LO, 24) + ':' + rs(HEX, 64))


def ya29():
    return fresh(lambda: 'ya29.a0A' + rs(AN + '-_', R.choice([150, 166, 180])) + '0' + rs(DG, 3))


def erlang_cookie():
    return fresh(lambda: rs(UP, 20))


def messagebird_key():
    return fresh(lambda: rs(AN, 25))


def vonage_key():
    return fresh(lambda: rs(HEX, 8))


def vonage_secret():
    return fresh(lambda: rs(AN, 16))


def atlas_pub():
    return fresh(lambda: rs(LO, 8))


def aura_pw():
    return fresh(lambda: rs(AN + '-_', 43))


def pem_lines(der_bytes):
    return wrap(b64(der_bytes), 64)


# ---------------------------------------------------------------- time
MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
WDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
EPOCH_2024 = 1704067200  # 2024-01-01T00:00:00Z, a Monday


def _leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def civil(secs):
    days, rem = divmod(secs, 86400)
    wd = days % 7
    y = 2024
    while days >= (366 if _leap(y) else 365):
        days -= 366 if _leap(y) else 365
        y += 1
    ml = [31, 29 if _leap(y) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    m = 0
    while days >= ml[m]:
        days -= ml[m]
        m += 1
    return y, m + 1, days + 1, rem // 3600, rem % 3600 // 60, rem % 60, wd


class Clock:
    def __init__(self):
        self.s = R.randrange(60 * 86400, 640 * 86400) + R.randrange(7 * 3600, 20 * 3600)

    def tick(self, a=1, b=20):
        self.s += R.randint(a, b)
        return self

    def iso(self, frac=3, z='Z'):
        y, mo, d, h, mi, s, _ = civil(self.s)
        f = ('.%0' + str(frac) + 'd') % R.randrange(10 ** frac) if frac else ''
        return '%04d-%02d-%02dT%02d:%02d:%02d%s%s' % (y, mo, d, h, mi, s, f, z)

    def sp(self, frac=3):
        y, mo, d, h, mi, s, _ = civil(self.s)
        f = ('.%0' + str(frac) + 'd') % R.randrange(10 ** frac) if frac else ''
        return '%04d-%02d-%02d %02d:%02d:%02d%s' % (y, mo, d, h, mi, s, f)

    def date(self):
        y, mo, d, *_ = civil(self.s)
        return '%04d-%02d-%02d' % (y, mo, d)

    def syslog(self):
        y, mo, d, h, mi, s, _ = civil(self.s)
        return '%s %2d %02d:%02d:%02d' % (MONTHS[mo - 1], d, h, mi, s)

    def rfc2822(self):
        y, mo, d, h, mi, s, wd = civil(self.s)
        return '%s, %02d %s %04d %02d:%02d:%02d +0000' % (WDAYS[wd], d, MONTHS[mo - 1], y, h, mi, s)

    def ls(self):
        y, mo, d, h, mi, s, _ = civil(self.s)
        return '%s %2d %02d:%02d' % (MONTHS[mo - 1], d, h, mi)

    def hms(self):
        y, mo, d, h, mi, s, _ = civil(self.s)
        return '%02d:%02d:%02d' % (h, mi, s)

    def epoch(self):
        return EPOCH_2024 + self.s

    def ms(self):
        return (EPOCH_2024 + self.s) * 1000 + R.randrange(1000)


# ---------------------------------------------------------------- display width
def dw(s):
    w = 0
    for ch in s:
        if ch in (LM, RM) or unicodedata.combining(ch) or ch in '\u200d\ufe0f\ufe0e':
            continue
        w += 2 if unicodedata.east_asian_width(ch) in 'WF' else 1
    return w


def expand_tabs(line, ts=8):
    out, col = [], 0
    for ch in line:
        if ch == '\t':
            n = ts - col % ts
            out.append(' ' * n)
            col += n
        else:
            out.append(ch)
            col += dw(ch)
    return ''.join(out)


def balanced(line):
    depth = 0
    for ch in line:
        if ch == LM:
            if depth:
                return False
            depth = 1
        elif ch == RM:
            if not depth:
                return False
            depth = 0
    return depth == 0


def chk_prefixed(lines):
    for ln in lines:
        assert balanced(ln), ('mark crosses a per-line prefix', ln)


def cat_A(line):
    out = []
    for ch in line:
        if ch in (LM, RM):
            out.append(ch)
            continue
        if ch == '\t':
            out.append('^I')
            continue
        for b in ch.encode('utf-8'):
            if b >= 128:
                c = b - 128
                out.append('M-' + ('^' + chr(c + 64) if c < 32 else ('^?' if c == 127 else chr(c))))
            elif b < 32:
                out.append('^' + chr(b + 64))
            else:
                out.append(chr(b))
    return ''.join(out) + '$'


# ---------------------------------------------------------------- people and places
USERS = ['dev', 'alex', 'mchen', 'priya', 'jwalker', 'sofia', 'kenji', 'ops', 'nadia', 'tomas', 'amara',
         'lwei', 'rfernandes', 'ubuntu', 'ec2-user', 'hkim', 'oskar', 'dana', 'yuki', 'marco']
HOSTS = ['devbox', 'mbp-14', 'ws-07', 'bastion-1', 'ip-10-0-3-17', 'build-02', 'laptop', 'kafka-admin',
         'mq-ops', 'db-jump', 'thinkpad', 'pop-os', 'fedora', 'codespace-5f2a', 'mail-relay-1']
ORGS = ['brightpath', 'kestrel-labs', 'tidewater', 'ferncloud', 'quantaloop', 'harborline', 'orchardly',
        'parcelwise', 'lumenhealth', 'stackfold', 'bluefin', 'mercato', 'novaride', 'pinegrove', 'railyard',
        'fieldnote', 'corvid', 'saltmarsh']
TLDS = ['io', 'com', 'dev', 'net', 'app', 'co']
PROJS = ['orders-service', 'notify-gateway', 'ingest-worker', 'billing-api', 'events-pipeline', 'mailer',
         'push-relay', 'telemetry-sink', 'catalog-sync', 'ledger', 'chat-backend', 'alerts-bridge',
         'inventory-svc', 'fulfilment', 'search-indexer', 'crm-sync', 'payments-core', 'dispatch']
BRANCHES = ['main', 'develop', 'feat/kafka-sasl', 'fix/smtp-relay', 'chore/rotate-creds', 'feat/outbox',
            'infra/mq-tls', 'feat/push-notify', 'fix/redis-auth', 'feat/cdc-sink', 'ops/migrate-db',
            'feat/sms-fallback', 'wip/search-reindex']
ENVS = ['prod', 'staging', 'dev', 'qa', 'eu-prod', 'us-prod', 'sandbox']
PERSONS = ['Alex Morgan', '王伟', '佐藤 健', '김민준', 'Jose\u0301 Gutie\u0301rrez', 'Zoë Fischer',
           'Søren Holm', 'Priya Nair', 'Łukasz Nowak', 'Aylin Yıldız', 'Nguyễn Thảo', 'Chloé Martin',
           '李娜', 'Mateus Araújo']
CJK_SUBJECTS = ['修复 消费者 重平衡 超时', '添加 SMTP 中继 配置', 'Kafka 接続設定を更新', 'メール送信のリトライを追加',
                '레디스 연결 풀 수정', '推送 通知 重试', 'Mongo インデックスを追加', 'ClickHouse 表结构 迁移']
EN_SUBJECTS = ['fix consumer rebalance timeout', 'add outbox relay for order events',
               'bump kafkajs to 2.2.4', 'switch mailer to SMTP relay', 'retry push sends on 503',
               'add idempotency key to publish', 'migrate sessions to redis cluster',
               'split notification topics per tenant', 'add dead-letter queue for webhooks',
               'cap mongo pool size at 50', 'index events by tenant_id', 'handle SASL reauth',
               'move schema registry url to config', 'drop legacy amqp exchange', 'tune linger.ms',
               'add healthcheck for clickhouse', 'wire flyway into CI', 'log message ids on send']


class Ctx:
    def __init__(self):
        self.user = R.choice(USERS)
        self.host = R.choice(HOSTS)
        self.org = R.choice(ORGS)
        self.tld = R.choice(TLDS)
        self.domain = self.org + '.' + self.tld
        self.proj = R.choice(PROJS)
        self.branch = R.choice(BRANCHES)
        self.env = R.choice(ENVS)
        self.person = R.choice(PERSONS)
        home = R.choice(['/home/%s' % self.user, '/Users/%s' % self.user])
        self.cwd = home + '/' + R.choice(['src', 'code', 'work', 'repos', 'git']) + '/' + self.proj
        self.clock = Clock()
        self.region = R.choice(['us-east-1', 'eu-west-1', 'us-west-2', 'eu-central-1', 'ap-southeast-2'])


# ---------------------------------------------------------------- frames
STYLES = ['claude', 'claude', 'claude', 'codex_exec', 'codex_ran', 'codex_ran', 'gemini', 'gemini',
          'prompt', 'prompt']
PREFIXED_STYLES = ('claude', 'codex_ran', 'gemini')
PREFIXED_VIEWERS = ('read', 'catn', 'nl', 'bat')
CUR = None


def S(x):
    """Mark a secret for the current row."""
    assert CUR is not None and CUR.positive, 'secret in a negative row'
    assert x and x == x.strip(), repr(x)
    CUR.secrets.append(x)
    return LM + x + RM


class Row(Ctx):
    def __init__(self, positive, long_, style=None):
        Ctx.__init__(self)
        self.positive = positive
        self.long = long_
        self.secrets = []
        self.blocks = []
        self.style = style or R.choice(STYLES)
        self.pl = self.style in PREFIXED_STYLES
        self.prompt_kind = R.choice(['bash', 'omz', 'starship', 'bracket', 'venv', 'zsh', 'bare', 'bash'])
        self.venv = R.choice(['.venv', 'venv', 'env'])
        self.gw = R.choice([100, 110, 120, 132])
        if self.style == 'claude':
            self.viewer = R.choice(['read', 'read', 'read', 'catn', 'cat'])
        elif self.style == 'gemini':
            self.viewer = R.choice(['cat', 'cat', 'sed', 'catn', 'bat'])
        elif self.style.startswith('codex'):
            self.viewer = R.choice(['sed', 'sed', 'cat', 'nl'])
        else:
            self.viewer = R.choice(['cat', 'cat', 'catn', 'bat', 'nl', 'sed', 'head'])
        self.fpl = self.pl or self.viewer in PREFIXED_VIEWERS

    # -- prompts
    def prompt_lines(self, cmd):
        d = self.proj
        k = self.prompt_kind
        if k == 'bash':
            return ['%s@%s:~/%s$ %s' % (self.user, self.host, d, cmd)]
        if k == 'omz':
            return ['➜  %s git:(%s) ✗ %s' % (d, self.branch, cmd)]
        if k == 'starship':
            rt = R.choice(['via 🐍 v3.12.3', 'via  v20.11.1', 'via 🐹 v1.22.4', 'via ☕ v21.0.2', 'via 💎 v3.3.0'])
            return ['%s on  %s [!?] %s' % (d, self.branch, rt), '❯ ' + cmd]
        if k == 'bracket':
            return ['[%s@%s %s]$ %s' % (self.user, self.host, d, cmd)]
        if k == 'venv':
            return ['(%s) %s@%s:~/%s$ %s' % (self.venv, self.user, self.host, d, cmd)]
        if k == 'zsh':
            return ['%s %% %s' % (d, cmd)]
        return ['$ ' + cmd]

    # -- blocks
    def _add(self, lines):
        self.blocks.append(lines)

    def run(self, cmd, out, ms=None, rc=0, desc=None):
        out = list(out)
        for ln in out:
            assert '\n' not in ln, ln
        ms = ms if ms is not None else R.randint(18, 2400)
        st = self.style
        if st == 'gemini' and self._gem_too_wide(cmd, out, desc):
            st = 'claude'
        if st == 'claude':
            cl = cmd.split('\n')
            lines = ['⏺ Bash(' + cl[0]] + ['      ' + c for c in cl[1:]]
            lines[-1] += ')'
            if not out:
                lines.append('  ⎿  (No content)')
            else:
                chk_prefixed(out)
                lines.append('  ⎿  ' + out[0])
                lines += ['     ' + ln for ln in out[1:]]
                if rc:
                    lines[-len(out)] = '  ⎿  Error: ' + out[0]
        elif st == 'codex_exec':
            if "'" not in cmd:
                shown = "'" + cmd + "'"
            else:
                shown = '"' + cmd.replace('\\', '\\\\').replace('"', '\\"').replace('$', '\\$') + '"'
            lines = ['exec', 'bash -lc %s in %s' % (shown, self.cwd)]
            lines.append(' succeeded in %dms:' % ms if not rc else ' exited %d in %dms:' % (rc, ms))
            lines += out
        elif st == 'codex_ran':
            cl = cmd.split('\n')
            lines = ['• Ran ' + cl[0]] + ['  │ ' + c for c in cl[1:]]
            if not out:
                lines.append('  └ (no output)')
            else:
                chk_prefixed(out)
                lines.append('  └ ' + out[0])
                lines += ['    ' + ln for ln in out[1:]]
        elif st == 'gemini':
            lines = self._gem_box(cmd, out, desc)
        else:
            lines = self.prompt_lines(cmd.split('\n')[0]) + ['> ' + c for c in cmd.split('\n')[1:]] + out
        self._add(lines)

    def _gem_title(self, cmd, desc):
        t = ('✔  Shell ' if not desc or desc[0] != '!' else '✖  Shell ') + cmd.replace('\n', ' ')
        if desc:
            t += ' (%s)' % desc.lstrip('!')
        return t

    def _gem_too_wide(self, cmd, out, desc):
        t = self._gem_title(cmd, desc)
        m = max([dw(expand_tabs(x)) for x in out] + [dw(t)])
        return m > 146

    def _gem_box(self, cmd, out, desc):
        t = self._gem_title(cmd, desc)
        body = [t, ''] + [expand_tabs(x) for x in out]
        chk_prefixed(body)
        inner = max([self.gw - 4] + [dw(x) for x in body])
        lines = ['╭' + '─' * (inner + 2) + '╮']
        for x in body:
            lines.append('│ ' + x + ' ' * (inner - dw(x)) + ' │')
        lines.append('╰' + '─' * (inner + 2) + '╯')
        return lines

    def view(self, path, content, start=1, lang=None):
        """Show a file with the row's viewer."""
        content = list(content)
        v = self.viewer
        n = len(content)
        if v == 'read':
            chk_prefixed(content)
            lines = ['⏺ Read(%s)' % path]
            lines += ['%6d→%s' % (start + i, c) for i, c in enumerate(content)]
            self._add(lines)
            return
        if v == 'catn':
            self.run('cat -n ' + path, ['%6d\t%s' % (start + i, c) for i, c in enumerate(content)])
        elif v == 'nl':
            self.run('nl -ba ' + path, ['%6d\t%s' % (start + i, c) for i, c in enumerate(content)])
        elif v == 'bat':
            bar = '─' * 7
            wide = '─' * max(40, min(100, max([dw(c) for c in content] + [10]) + 2))
            out = [bar + '┬' + wide, '       │ File: ' + path, bar + '┼' + wide]
            out += ['%4d   │ %s' % (start + i, c) for i, c in enumerate(content)]
            out.append(bar + '┴' + wide)
            chk_prefixed(out)
            self.run('bat --decorations=always --color=never ' + path, out)
        elif v == 'sed':
            self.run("sed -n '%d,%dp' %s" % (start, start + max(n, 40) + R.choice([0, 40, 80]), path), content)
        elif v == 'head':
            self.run('head -n %d %s' % (max(n, 20) + R.choice([0, 10, 30]), path), content)
        else:
            self.run('cat ' + path, content)

    def say(self, text):
        st = self.style
        if st == 'claude':
            self._add(['⏺ ' + text])
        elif st == 'codex_exec':
            self._add(['codex', text])
        elif st == 'codex_ran':
            self._add(['• ' + text])
        elif st == 'gemini':
            self._add(['✦ ' + text])

    def ask(self, text):
        st = self.style
        if st in ('claude', 'gemini'):
            self._add(['> ' + text])
        elif st.startswith('codex'):
            self._add(['user', text])

    def text(self):
        sep = '\n' if self.style == 'prompt' else '\n\n'
        return sep.join('\n'.join(b) for b in self.blocks)

    def nlines(self):
        return self.text().count('\n') + 1


# ---------------------------------------------------------------- filler (ordinary output)
def table_aligned(rows, gap=3):
    w = [max(dw(str(x[i])) for x in rows) for i in range(len(rows[0]))]
    out = []
    for x in rows:
        cells = [str(c) + ' ' * (w[i] - dw(str(c))) for i, c in enumerate(x)]
        out.append((' ' * gap).join(cells).rstrip())
    return out


def table_box(rows, heavy=False):
    w = [max(dw(str(x[i])) for x in rows) for i in range(len(rows[0]))]
    top = '┌' + '┬'.join('─' * (n + 2) for n in w) + '┐'
    mid = '├' + '┼'.join('─' * (n + 2) for n in w) + '┤'
    bot = '└' + '┴'.join('─' * (n + 2) for n in w) + '┘'
    def line(x):
        return '│' + '│'.join(' ' + str(c) + ' ' * (w[i] - dw(str(c))) + ' ' for i, c in enumerate(x)) + '│'
    return [top, line(rows[0]), mid] + [line(x) for x in rows[1:]] + [bot]


def table_ascii(rows):
    w = [max(dw(str(x[i])) for x in rows) for i in range(len(rows[0]))]
    sep = '+' + '+'.join('-' * (n + 2) for n in w) + '+'
    def line(x):
        return '|' + '|'.join(' ' + str(c) + ' ' * (w[i] - dw(str(c))) + ' ' for i, c in enumerate(x)) + '|'
    return [sep, line(rows[0]), sep] + [line(x) for x in rows[1:]] + [sep]


def table_md(rows):
    out = ['| ' + ' | '.join(rows[0]) + ' |', '|' + '|'.join('---' for _ in rows[0]) + '|']
    return out + ['| ' + ' | '.join(str(c) for c in x) + ' |' for x in rows[1:]]


def sha40():
    return hx(40)


def f_git_status(r):
    files = R.sample(['src/config.ts', 'src/kafka/producer.ts', 'app/mailer.py', 'config/settings.py',
                      'docker-compose.yml', 'deploy/values.yaml', 'internal/queue/consumer.go',
                      'README.md', 'migrations/V7__add_outbox.sql', 'prisma/schema.prisma',
                      'config/database.yml', 'scripts/smoke.sh', 'Makefile', '.env.example'], 4)
    out = ['On branch ' + r.branch,
           "Your branch is up to date with 'origin/%s'." % r.branch, '',
           'Changes not staged for commit:',
           '  (use "git add <file>..." to update what will be committed)',
           '  (use "git restore <file>..." to discard changes in working directory)']
    out += ['\tmodified:   ' + f for f in files[:R.randint(1, 3)]]
    out += ['', 'Untracked files:', '  (use "git add <file>..." to include in what will be committed)',
            '\t' + files[3], '', 'no changes added to commit (use "git add" and/or "git commit -a")']
    r.run('git status', out)


def f_git_log(r):
    out = []
    for _ in range(R.randint(5, 12)):
        subj = R.choice(CJK_SUBJECTS) if R.random() < 0.25 else R.choice(EN_SUBJECTS)
        if R.random() < 0.5:
            out.append('%s %s' % (sha40()[:7], subj))
        else:
            out.append('%s %s (#%d)' % (sha40()[:9], subj, R.randint(100, 2400)))
    if R.random() < 0.5:
        r.run('git log --oneline -n %d' % len(out), out)
    else:
        full = sha40()
        r.run('git log -1 --stat', ['commit ' + full, 'Author: %s <%s@%s>' % (r.person, r.user, r.domain),
                                    'Date:   ' + r.clock.rfc2822(), '', '    ' + R.choice(EN_SUBJECTS), '',
                                    ' src/queue/publisher.ts | 14 ++++++++------',
                                    ' test/publisher.test.ts |  9 +++++++++',
                                    ' 2 files changed, 17 insertions(+), 6 deletions(-)'])


def f_ls(r):
    names = R.sample(['client.properties', 'jaas.conf', 'truststore.jks', 'docker-compose.yml', 'README.md',
                      'Makefile', 'package.json', 'pnpm-lock.yaml', 'pyproject.toml', 'src', 'config', 'deploy',
                      'scripts', 'migrations', 'tests', '.env.example', '.gitignore', 'go.mod', 'go.sum',
                      'schema.avsc', 'flyway.conf', 'users.xml', 'mosquitto.conf'], R.randint(7, 13))
    out = ['total %d' % R.randint(40, 400)]
    out.append('drwxr-xr-x  %2d %s staff   %4d %s .' % (R.randint(5, 20), r.user, R.randint(200, 900), r.clock.ls()))
    for n in sorted(names):
        isdir = '.' not in n or n in ('.gitignore',) and False
        if '.' not in n:
            out.append('drwxr-xr-x  %2d %s staff   %4d %s %s' % (R.randint(2, 9), r.user, R.randint(64, 512), r.clock.ls(), n))
        else:
            mode = '-rw-------' if n in ('jaas.conf', 'client.properties', 'truststore.jks') else '-rw-r--r--'
            out.append('%s   1 %s staff  %5d %s %s' % (mode, r.user, R.randint(90, 90000), r.clock.ls(), n))
    r.run('ls -la' + R.choice(['', ' config', ' deploy']), out)


def f_compose_ps(r):
    svcs = R.sample(['broker', 'zookeeper', 'schema-registry', 'connect', 'redis', 'mongo', 'rabbitmq',
                     'mailpit', 'clickhouse', 'postgres', 'nats', 'mosquitto', 'kafka-ui', 'minio'], R.randint(3, 6))
    img = {'broker': 'confluentinc/cp-kafka:7.6.1', 'zookeeper': 'confluentinc/cp-zookeeper:7.6.1',
           'schema-registry': 'confluentinc/cp-schema-registry:7.6.1', 'connect': 'confluentinc/cp-kafka-connect:7.6.1',
           'redis': 'redis:7.2-alpine', 'mongo': 'mongo:7.0', 'rabbitmq': 'rabbitmq:3.13-management',
           'mailpit': 'axllent/mailpit:v1.18', 'clickhouse': 'clickhouse/clickhouse-server:24.3',
           'postgres': 'postgres:16', 'nats': 'nats:2.10-alpine', 'mosquitto': 'eclipse-mosquitto:2.0.18',
           'kafka-ui': 'provectuslabs/kafka-ui:v0.7.2', 'minio': 'minio/minio:RELEASE.2024-05-10T01-41-38Z'}
    port = {'broker': '0.0.0.0:9092->9092/tcp', 'redis': '0.0.0.0:6379->6379/tcp', 'mongo': '0.0.0.0:27017->27017/tcp',
            'rabbitmq': '0.0.0.0:5672->5672/tcp, 0.0.0.0:15672->15672/tcp', 'mailpit': '0.0.0.0:1025->1025/tcp, 0.0.0.0:8025->8025/tcp',
            'clickhouse': '0.0.0.0:8123->8123/tcp, 9000/tcp', 'postgres': '0.0.0.0:5432->5432/tcp',
            'nats': '0.0.0.0:4222->4222/tcp', 'mosquitto': '0.0.0.0:1883->1883/tcp'}
    rows = [('NAME', 'IMAGE', 'COMMAND', 'SERVICE', 'CREATED', 'STATUS', 'PORTS')]
    for sv in svcs:
        rows.append(('%s-%s-1' % (r.proj, sv), img[sv], '"/etc/confluent/dock…"' if 'cp-' in img[sv] else '"docker-entrypoint.s…"',
                     sv, '%d minutes ago' % R.randint(2, 50), 'Up %d minutes (healthy)' % R.randint(10, 40), port.get(sv, '')))
    r.run('docker compose ps', table_aligned(rows))


def f_kubectl_pods(r):
    out = ['NAME                                   READY   STATUS    RESTARTS      AGE']
    for base in R.sample([r.proj, 'kafka-0', 'kafka-1', 'kafka-2', 'redis-master-0', 'redis-replicas-0',
                          'mongo-rs-0', 'rabbitmq-server-0', 'clickhouse-shard0-0', 'nats-0', 'emqx-0'], R.randint(3, 7)):
        if base == r.proj:
            name = '%s-%s-%s' % (base, rs('bcdfghjklmnpqrstvwxz2456789', 10), rs('bcdfghjklmnpqrstvwxz2456789', 5))
        else:
            name = base
        rest = R.choice(['0', '0', '1 (3h ago)', '2 (41m ago)'])
        out.append('%-38s %-7s %-9s %-13s %s' % (name, '1/1', R.choice(['Running', 'Running', 'Running']), rest, '%dd' % R.randint(1, 60)))
    r.run('kubectl get pods -n %s' % R.choice(['messaging', 'data', r.env, 'default']), out)


TOPICS = ['orders.created.v1', 'orders.fulfilled.v1', 'payments.captured', 'notifications.email', 'notifications.sms',
          'notifications.push', 'audit-log', 'inventory.adjusted', 'user-events', 'clickstream.raw', '__consumer_offsets',
          '_schemas', 'connect-configs', 'connect-offsets', 'connect-status', 'dlq.webhooks', 'cdc.public.accounts',
          'telemetry.metrics', 'search.reindex', 'ledger.entries']


def f_kafka_topics(r):
    ts = R.sample(TOPICS, R.randint(6, 12))
    r.run('kafka-topics.sh --bootstrap-server %s:9092 --command-config %s --list' % (
        R.choice(['localhost', 'broker', 'kafka-0.kafka-headless']), R.choice(['config/admin.properties', '/tmp/client.properties'])),
        sorted(ts))


def f_consumer_groups(r):
    g = R.choice(['orders-projector', 'mailer', 'sms-dispatch', 'search-indexer', 'audit-sink', 'push-fanout'])
    out = ['', 'GROUP%sTOPIC%sPARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID%sHOST            CLIENT-ID' % (' ' * 14, ' ' * 20, ' ' * 50)]
    t = R.choice(TOPICS[:10])
    for p in range(R.randint(3, 6)):
        cur = R.randint(10000, 9000000)
        lag = R.choice([0, 0, 0, R.randint(1, 900)])
        cid = 'consumer-%s-%d-%s' % (g, R.randint(1, 3), uuid4())
        out.append('%-19s%-25s%-11d%-16d%-16d%-16d%-61s%-16s%s' % (g, t, p, cur, cur + lag, lag, cid, '/10.0.%d.%d' % (R.randint(0, 9), R.randint(2, 250)), cid.rsplit('-', 5)[0]))
    r.run('kafka-consumer-groups.sh --bootstrap-server broker:9092 --describe --group ' + g, out)


def f_pytest(r):
    mods = R.sample(['tests/test_publisher.py', 'tests/test_mailer.py', 'tests/test_settings.py', 'tests/test_outbox.py',
                     'tests/test_consumer.py', 'tests/test_sms.py', 'tests/test_models.py'], 4)
    out = ['============================= test session starts ==============================',
           'platform linux -- Python 3.12.3, pytest-8.2.1, pluggy-1.5.0',
           'rootdir: ' + r.cwd, 'configfile: pyproject.toml', 'plugins: anyio-4.4.0, cov-5.0.0',
           'collected %d items' % R.randint(20, 90), '']
    for m in mods:
        out.append('%s %s %s' % (m, '.' * R.randint(3, 18), '[%3d%%]' % R.randint(10, 100)))
    out += ['', '============================== %d passed in %.2fs ===============================' % (R.randint(20, 90), R.uniform(0.8, 14))]
    r.run(R.choice(['pytest -q', 'python -m pytest', 'uv run pytest']), out)


def f_jest(r):
    out = []
    for f in R.sample(['src/kafka/producer.test.ts', 'src/mail/send.test.ts', 'src/push/fcm.test.ts',
                       'src/config.test.ts', 'src/redis/lock.test.ts', 'src/sms/twilio.test.ts'], 3):
        out.append(' PASS  ' + f)
        for t in R.sample(['publishes with key', 'retries on 503', 'loads config from env', 'rejects empty recipient',
                           'acquires lock', 'renders template', 'batches messages'], 2):
            out.append('  ✓ %s (%d ms)' % (t, R.randint(1, 80)))
    out += ['', 'Test Suites: 3 passed, 3 total', 'Tests:       6 passed, 6 total', 'Snapshots:   0 total',
            'Time:        %.3f s' % R.uniform(1, 9), 'Ran all test suites.']
    r.run(R.choice(['pnpm test', 'npm test --silent', 'npx jest']), out)


def f_psql_dt(r):
    rows = R.sample(['accounts', 'outbox_events', 'email_messages', 'sms_messages', 'push_tokens', 'flyway_schema_history',
                     'sessions', 'orders', 'order_items', 'webhook_deliveries', '_prisma_migrations'], R.randint(4, 7))
    w = max(len(x) for x in rows) + 2
    out = ['%s List of relations' % (' ' * 10),
           ' Schema │ %s│ Type  │ Owner ' % 'Name'.ljust(w - 1),
           '────────┼%s┼───────┼───────' % ('─' * w)]
    for t in sorted(rows):
        out.append(' public │ %s│ table │ app' % t.ljust(w - 1))
    out.append('(%d rows)' % len(rows))
    r.run('psql "$DATABASE_URL" -c \'\\dt\'', out)


def f_redis_info(r):
    out = ['# Keyspace'] + ['db%d:keys=%d,expires=%d,avg_ttl=%d,subexpiry=0' % (i, R.randint(10, 90000), R.randint(0, 5000), R.randint(0, 9000000)) for i in range(R.randint(1, 3))]
    out += ['', '# Replication', 'role:master', 'connected_slaves:%d' % R.randint(0, 2),
            'master_replid:' + hx(40), 'master_replid2:0000000000000000000000000000000000000000',
            'master_repl_offset:%d' % R.randint(1000, 99999999)]
    r.run('redis-cli -h %s --no-auth-warning INFO keyspace replication' % R.choice(['localhost', 'redis', 'cache.internal']), out)


def f_mongo_dbs(r):
    out = ['admin   %5.2f KiB' % R.uniform(40, 400), 'config  %5.2f KiB' % R.uniform(40, 300),
           'local   %5.2f MiB' % R.uniform(1, 90), '%-7s %5.2f MiB' % (r.proj.split('-')[0][:7], R.uniform(1, 900))]
    r.run("mongosh --quiet \"$MONGO_URL\" --eval 'show dbs'", out)


def f_app_log(r):
    out = []
    for _ in range(R.randint(5, 12)):
        r.clock.tick(0, 3)
        lvl = R.choice(['info', 'info', 'info', 'debug', 'warn'])
        msg = R.choice(['message published', 'email queued', 'consumer joined group', 'batch flushed',
                        'request completed', 'cache hit', 'retrying send', 'offset committed'])
        out.append(json.dumps({'level': lvl, 'time': r.clock.iso(), 'msg': msg, 'request_id': uuid4(),
                               'trace_id': hx(32), 'duration_ms': R.randint(1, 900)}, ensure_ascii=False, separators=(',', ':')))
    r.run('tail -n %d logs/%s.log' % (len(out), r.proj), out)


def f_compose_logs(r):
    svc = R.choice(['broker', 'connect', 'rabbitmq', 'redis', 'mongo', 'mailpit', 'clickhouse'])
    pad = '%s-%s-1' % (r.proj, svc)
    out = []
    msgs = {'broker': ['[KafkaServer id=1] started (kafka.server.KafkaServer)', 'Created log for partition %s-0 in /var/lib/kafka/data' % R.choice(TOPICS),
                       '[GroupCoordinator 1]: Preparing to rebalance group mailer in state PreparingRebalance', 'Awaiting socket connections on 0.0.0.0:9092.'],
            'connect': ['Kafka Connect started', 'Finished creating connector jdbc-sink', 'WorkerSourceTask{id=cdc-0} Committing offsets'],
            'rabbitmq': ['Server startup complete; 5 plugins started.', 'accepting AMQP connection <0.%d.0> (172.18.0.5:51234 -> 172.18.0.3:5672)' % R.randint(600, 9000),
                         'connection <0.%d.0> (172.18.0.5:51234 -> 172.18.0.3:5672): user \'app\' authenticated and granted access to vhost \'/\'' % R.randint(600, 9000)],
            'redis': ['Ready to accept connections tcp', 'DB saved on disk', 'Background saving started by pid %d' % R.randint(20, 900)],
            'mongo': ['Waiting for connections', 'Connection accepted', 'Index build: done building'],
            'mailpit': ['[smtpd] starting on [::]:1025 (no encryption)', '[http] starting on [::]:8025', '[db] message received: %s' % uuid4()],
            'clickhouse': ['Ready for connections.', 'Merged 6 parts: from all_1_6_1 to all_1_6_1', 'Loaded metadata.']}
    for _ in range(R.randint(4, 9)):
        r.clock.tick(0, 5)
        out.append('%s  | %s %s' % (pad, r.clock.iso(), R.choice(msgs[svc])))
    r.run('docker compose logs --no-color --tail=%d %s' % (len(out), svc), out)


def f_rabbit_queues(r):
    out = ['Timeout: 60.0 seconds ...', "Listing queues for vhost / ...", 'name\tmessages\tconsumers']
    for q in R.sample(['mail.outbound', 'mail.outbound.dlq', 'sms.send', 'push.fanout', 'orders.events', 'celery',
                       'celeryev.%s' % uuid4(), 'webhooks.retry'], R.randint(3, 6)):
        out.append('%s\t%d\t%d' % (q, R.randint(0, 4000), R.randint(0, 8)))
    r.run('rabbitmqctl list_queues name messages consumers', out)


def f_make(r):
    out = ['go build -trimpath -ldflags "-s -w -X main.version=v%d.%d.%d" -o bin/%s ./cmd/%s' % (R.randint(0, 3), R.randint(0, 30), R.randint(0, 9), r.proj, r.proj),
           'go vet ./...', 'golangci-lint run ./...', '0 issues.', 'go test ./... -count=1']
    for p in R.sample(['internal/queue', 'internal/mail', 'internal/store', 'internal/config', 'cmd/' + r.proj], 4):
        out.append('ok  \tgithub.com/%s/%s/%s\t%.3fs' % (r.org, r.proj, p, R.uniform(0.01, 3)))
    r.run('make build test', out)


def f_pnpm_outdated(r):
    pk = R.sample([('kafkajs', '2.2.3', '2.2.4'), ('nodemailer', '6.9.9', '6.9.14'), ('ioredis', '5.3.2', '5.4.1'),
                   ('mongodb', '6.5.0', '6.7.0'), ('@sendgrid/mail', '7.7.0', '8.1.3'), ('twilio', '4.23.0', '5.1.0'),
                   ('firebase-admin', '12.0.0', '12.2.0'), ('amqplib', '0.10.3', '0.10.4'), ('prisma', '5.12.1', '5.15.0')], 4)
    out = ['┌──────────────────┬─────────┬────────┐', '│ Package          │ Current │ Latest │', '├──────────────────┼─────────┼────────┤']
    for i, (n, c, l) in enumerate(pk):
        out.append('│ %-16s │ %-7s │ %-6s │' % (n, c, l))
        if i < len(pk) - 1:
            out.append('├──────────────────┼─────────┼────────┤')
    out.append('└──────────────────┴─────────┴────────┘')
    r.run('pnpm outdated', out)


def f_runbook_md(r):
    out = ['## Messaging endpoints (%s)' % r.env, '',
           '| Service | Endpoint | Auth | Owner |', '|---|---|---|---|',
           '| Kafka | `%s:9093` | SASL/SCRAM-SHA-512 | @%s |' % (R.choice(['b-1.' + r.org + '.kafka', 'pkc-%s.%s.aws.confluent.cloud' % (rs(LO + DG, 5), r.region)]), r.user),
           '| RabbitMQ | `amqps://mq.%s:5671` | user/pass (vault) | @platform |' % r.domain,
           '| Redis | `rediss://cache.%s:6380` | ACL user `app` | @platform |' % r.domain,
           '| SMTP | `smtp.%s:587` | STARTTLS + AUTH | @mail-team |' % r.domain, '',
           '> Credentials live in Vault under `secret/%s/%s/*`; never paste them into tickets. 🔐' % (r.env, r.proj)]
    r.run('sed -n \'1,20p\' docs/RUNBOOK.md', out)


def f_systemctl(r):
    svc = R.choice(['postfix', 'mosquitto', 'redis-server', 'rabbitmq-server', 'clickhouse-server', 'nats-server', 'memcached'])
    pid = R.randint(800, 90000)
    out = ['● %s.service - %s' % (svc, {'postfix': 'Postfix Mail Transport Agent', 'mosquitto': 'Mosquitto MQTT Broker'}.get(svc, svc)),
           '     Loaded: loaded (/lib/systemd/system/%s.service; enabled; preset: enabled)' % svc,
           '     Active: active (running) since %s UTC; %dh ago' % (r.clock.sp(0), R.randint(1, 90)),
           '   Main PID: %d (%s)' % (pid, svc.split('-')[0]), '      Tasks: %d (limit: 9387)' % R.randint(2, 60),
           '     Memory: %.1fM' % R.uniform(4, 900), '        CPU: %dmin %.3fs' % (R.randint(0, 90), R.uniform(0, 60)), '']
    for _ in range(3):
        r.clock.tick(1, 60)
        out.append('%s %s %s[%d]: %s' % (r.clock.syslog(), r.host, svc.split('-')[0], pid, R.choice(['reload complete', 'connection from 10.0.4.%d' % R.randint(2, 250), 'started'])))
    r.run('systemctl status %s --no-pager' % svc, out)


def f_git_diff_plain(r):
    out = ['diff --git a/config/kafka.yml b/config/kafka.yml', 'index %s..%s 100644' % (hx(7), hx(7)),
           '--- a/config/kafka.yml', '+++ b/config/kafka.yml', '@@ -4,7 +4,8 @@ producer:',
           '   acks: all', '-  linger.ms: 5', '+  linger.ms: 20', '+  batch.size: 65536',
           '   compression.type: zstd', '   enable.idempotence: true']
    r.run('git diff config/kafka.yml', out)


def f_clickhouse_query(r):
    out = ['┌─table───────────┬─rows──────┬─size──────┐']
    for t in R.sample(['events_local', 'events', 'sessions_mv', 'email_events', 'push_receipts', 'query_log'], 3):
        out.append('│ %-15s │ %9d │ %-9s │' % (t, R.randint(1000, 900000000), '%.2f GiB' % R.uniform(0.1, 90)))
    out.append('└─────────────────┴───────────┴───────────┘')
    r.run("clickhouse-client -q \"SELECT table, sum(rows) AS rows, formatReadableSize(sum(bytes)) AS size FROM system.parts WHERE active GROUP BY table\" --format PrettyCompact", out)


def f_cat_A(r):
    out = [cat_A(x) for x in ['# ' + R.choice(['连接 配置', 'Producer-Einstellungen', 'réglages du producteur']),
                               'bootstrap.servers=broker:9092', 'acks=all', 'compression.type=zstd',
                               'client.id=%s-%s' % (r.proj, r.env), 'linger.ms=\t20']]
    r.run('cat -A config/producer.properties', out)


def f_df(r):
    a, b = R.randint(50, 500), R.randint(200, 2000)
    ua, ub = R.randint(5, a - 10), R.randint(10, b - 20)
    out = ['Filesystem      Size  Used Avail Use% Mounted on', '/dev/nvme0n1p1  %4dG %4dG %4dG %3d%% /' % (a, ua, a - ua, 100 * ua // a),
           'tmpfs           7.8G     0  7.8G   0% /dev/shm', '/dev/nvme1n1    %4dG %4dG %4dG %3d%% /var/lib/kafka' % (b, ub, b - ub, 100 * ub // b)]
    r.run('df -h', out)


def f_journal(r):
    unit = R.choice(['kafka', 'postfix', 'etcd', 'mongod', 'nats-server'])
    out = []
    for _ in range(R.randint(4, 8)):
        r.clock.tick(1, 30)
        out.append('%s %s %s[%d]: %s' % (r.clock.syslog(), r.host, unit, R.randint(300, 9999), R.choice(
            ['Started.', 'listening on 0.0.0.0', 'compaction finished, 0.%ds' % R.randint(1, 99), 'client connected from 10.1.%d.%d' % (R.randint(0, 9), R.randint(2, 250)),
             'leader elected term=%d' % R.randint(2, 90), 'checkpoint complete'])))
    r.run('journalctl -u %s --no-pager -n %d' % (unit, len(out)), out)


FILLERS = [f_git_status, f_git_log, f_ls, f_compose_ps, f_kubectl_pods, f_kafka_topics, f_consumer_groups, f_pytest,
           f_jest, f_psql_dt, f_redis_info, f_mongo_dbs, f_app_log, f_compose_logs, f_rabbit_queues, f_make,
           f_pnpm_outdated, f_runbook_md, f_systemctl, f_git_diff_plain, f_clickhouse_query, f_cat_A, f_df, f_journal]

NARRATION = ['Let me check the current state of the repo first.', 'I\'ll look at how the broker connection is configured.',
             'Checking the running containers.', 'Running the test suite to make sure nothing regressed.',
             'Now I\'ll verify the change against the local stack.', 'Looking at recent commits for context.',
             'The config loads; next I\'ll confirm the consumer group is healthy.', 'Let me look at the logs.',
             'I\'ll inspect the relevant config file.', 'Good — that part works. Moving on to the mail relay.',
             'Tests pass. 🎉 Now checking the deployment manifests.', '接続設定を確認します。',
             'Checking disk usage on the broker host before the reindex.']


def compose(r):
    """Bury the template's blocks among ordinary output (long rows) or add a
    little context (some short rows)."""
    main = r.blocks
    if r.long:
        target = R.randint(44, 128)
        tries = 0
        pool = list(FILLERS)
        R.shuffle(pool)
        while r.nlines() < target and tries < 60:
            tries += 1
            before = list(r.blocks)
            r.blocks = []
            if not pool:
                pool = list(FILLERS)
                R.shuffle(pool)
            pool.pop()(r)
            if R.random() < 0.4 and r.style != 'prompt':
                r.say(R.choice(NARRATION))
                r.blocks = [r.blocks[1], r.blocks[0]]
            new = r.blocks
            pos = R.choice([0, len(before)]) if R.random() < 0.85 else R.randint(0, len(before))
            r.blocks = before[:pos] + new + before[pos:]
            if r.nlines() > 148:
                r.blocks = before
        assert r.nlines() >= 40, ('long row too short', r.nlines())
    else:
        if R.random() < 0.35:
            before = list(r.blocks)
            r.blocks = []
            R.choice([f_git_status, f_df, f_mongo_dbs, f_kafka_topics, f_git_diff_plain, f_pnpm_outdated])(r)
            new = r.blocks
            r.blocks = new + before if R.random() < 0.5 else before + new
            if r.nlines() >= 38:
                r.blocks = before
    if R.random() < 0.5:
        asks = ['wire the %s service to the %s messaging stack and check the credentials work' % (r.proj, r.env),
                'why is the mailer failing auth in %s?' % r.env, 'rotate the broker creds and update the configs',
                'set up the data store connections for local dev', 'debug the consumer lag alert on %s' % r.proj,
                'migrate the %s service off the old SMTP relay' % r.proj, 'add push notifications to %s' % r.proj]
        r.blocks.insert(0, [])
        b = r.blocks.pop(0)
        keep = r.blocks
        r.blocks = []
        r.ask(R.choice(asks))
        r.blocks += keep
    assert r.nlines() <= 150, ('row too long', r.nlines())


# ---------------------------------------------------------------- template helpers
POS, NEG = [], []


def pos(name):
    def d(fn):
        POS.append((name, fn))
        return fn
    return d


def neg(name):
    def d(fn):
        NEG.append((name, fn))
        return fn
    return d


def pem(label, der_bytes, per_line, mark=True):
    body = pem_lines(der_bytes)
    head, tail = '-----BEGIN %s-----' % label, '-----END %s-----' % label
    if not mark:
        return [head] + body + [tail]
    if per_line:
        return [head] + [S(x) for x in body] + [tail]
    return S('\n'.join([head] + body + [tail])).split('\n')


def pem_json(label, der_bytes):
    """A PEM inside a JSON string: \\n escapes inside the span, the trailing one outside."""
    body = pem_lines(der_bytes)
    s = '\\n'.join(['-----BEGIN %s-----' % label] + body + ['-----END %s-----' % label])
    return S(s) + '\\n'


SCRAM_MOD = 'org.apache.kafka.common.security.scram.ScramLoginModule'
PLAIN_MOD = 'org.apache.kafka.common.security.plain.PlainLoginModule'
B36 = DG + LO


def lc(n):
    return rs(LO + DG, n)


def cc_host(r, kind='pkc'):
    return '%s-%s.%s.aws.confluent.cloud' % (kind, lc(5), r.region)


def msk_brokers(r, port=9096):
    cid = lc(6)
    return ','.join('b-%d.%s-%s.%s.c%d.kafka.%s.amazonaws.com:%d' % (i, r.env, r.proj.split('-')[0], cid, R.randint(2, 9), r.region, port) for i in (1, 2, 3))


def kafka_scram_salt():
    return b64(fresh(rs, B36, R.choice([25, 26])).encode())


def event_json(r):
    return json.dumps({'order_id': oid(r.clock.epoch() - EPOCH_2024 + EPOCH_2024), 'tenant': r.org,
                       'status': R.choice(['created', 'paid', 'shipped']), 'amount_cents': R.randint(100, 90000),
                       'ts': r.clock.iso()}, separators=(',', ':'))


def kafka_warn_lines(r):
    return ['[%s] WARN [AdminClient clientId=adminclient-1] Connection to node -1 (%s) could not be established. Node may not be available. (org.apache.kafka.clients.NetworkClient)' % (r.clock.sp(), 'localhost/127.0.0.1:9092')]


# ================================================================ positives: Kafka
@pos('kafka_jaas_conf_scram_bat')
def t_kafka_jaas(r):
    admin_pw, u2, u3, broker_pw, zk_pw = pw(), pw(), pw(), pw(), pw()
    users = R.sample(['orders', 'mailer', 'connect', 'ksql', 'audit', 'cdc'], 2)
    lines = ['// broker JAAS for SASL_SSL listeners (%s)' % r.env,
             'KafkaServer {',
             '    %s required' % PLAIN_MOD,
             '    username="admin"',
             '    password="%s"' % S(admin_pw),
             '    user_admin="%s"' % S(admin_pw),
             '    user_%s="%s"' % (users[0], S(u2)),
             '    user_%s="%s";' % (users[1], S(u3)),
             '',
             '    %s required' % SCRAM_MOD,
             '    username="broker"',
             '    password="%s";' % S(broker_pw),
             '};', '',
             'Client {',
             '    org.apache.zookeeper.server.auth.DigestLoginModule required',
             '    username="kafka"',
             '    password="%s";' % S(zk_pw),
             '};']
    if r.long:
        r.say('The broker fails SASL handshakes; I\'ll read the JAAS file it is started with.')
        r.run('ps -o args= -C java | tr \' \' \'\\n\' | grep -E "jaas|Xmx"',
              ['-Xmx%dG' % R.choice([1, 4, 6]), '-Djava.security.auth.login.config=/etc/kafka/kafka_server_jaas.conf'])
    r.view('/etc/kafka/kafka_server_jaas.conf', lines)
    if r.long or R.random() < 0.5:
        out = ['listeners=SASL_SSL://0.0.0.0:9093,CONTROLLER://0.0.0.0:9094',
               'sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512',
               'sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512',
               'ssl.keystore.location=/etc/kafka/secrets/broker.keystore.p12',
               'ssl.keystore.type=PKCS12',
               'ssl.truststore.location=/etc/kafka/secrets/truststore.p12',
               'super.users=User:admin;User:broker']
        r.run('grep -E "^(listeners|sasl|ssl|super)" /etc/kafka/server.properties', out)


@pos('kafka_client_properties_sasl_ssl_cat')
def t_kafka_client_props(r):
    user = R.choice(['orders-svc', 'mailer', 'ingest', 'cdc-sink', 'analytics-ro'])
    sasl = pw('plain')
    ks = pw('plain')
    same = R.random() < 0.5
    keypw = ks if same else pw('plain')
    mech = R.choice(['SCRAM-SHA-512', 'SCRAM-SHA-256'])
    lines = ['# generated by terraform (%s) — do not commit' % r.env,
             'bootstrap.servers=' + msk_brokers(r),
             'security.protocol=SASL_SSL',
             'sasl.mechanism=' + mech,
             'sasl.jaas.config=%s required username="%s" password="%s";' % (SCRAM_MOD, user, S(sasl)),
             'ssl.truststore.location=/etc/kafka/secrets/kafka.client.truststore.jks']
    if R.random() < 0.5:
        lines.append('ssl.truststore.password=changeit')
    else:
        lines.append('ssl.truststore.type=PEM')
    lines += ['ssl.keystore.location=/etc/kafka/secrets/%s.keystore.p12' % user,
              'ssl.keystore.type=PKCS12',
              'ssl.keystore.password=' + S(ks),
              'ssl.key.password=' + S(keypw),
              'ssl.endpoint.identification.algorithm=https',
              'client.id=%s-%s' % (user, r.env)]
    if r.long:
        lines += ['', '# producer tuning', 'acks=all', 'enable.idempotence=true', 'linger.ms=20',
                  'batch.size=131072', 'compression.type=zstd', 'max.in.flight.requests.per.connection=5',
                  'delivery.timeout.ms=120000', 'request.timeout.ms=30000', 'retries=2147483647',
                  '', '# consumer', 'group.id=%s' % user, 'auto.offset.reset=earliest', 'enable.auto.commit=false',
                  'isolation.level=read_committed', 'session.timeout.ms=45000', 'max.poll.records=500']
    r.view('config/client.properties', lines)
    t = R.choice(TOPICS[:10])
    out = []
    for _ in range(R.randint(2, 5)):
        r.clock.tick()
        out.append(event_json(r))
    out.append('Processed a total of %d messages' % len(out))
    r.run('kafka-console-consumer.sh --bootstrap-server "$BOOTSTRAP" --consumer.config config/client.properties --topic %s --from-beginning --max-messages %d' % (t, len(out) - 1), out, ms=R.randint(3000, 9000))


@pos('kafka_configs_add_scram_credentials')
def t_kafka_configs(r):
    zk = R.random() < 0.4
    users = R.sample(['alice', 'orders-svc', 'mailer', 'connect-worker', 'ksqldb', 'mirror-maker'], R.randint(1, 3))
    for u in users:
        p = pw('kafka')
        it = R.choice([4096, 8192, 15000])
        if zk:
            cmd = "kafka-configs.sh --zookeeper zk-0.zk:2181 --alter --add-config 'SCRAM-SHA-512=[password=%s]' --entity-type users --entity-name %s" % (S(p), u)
            r.run(cmd, ['Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.',
                        'Use --bootstrap-server instead to specify a broker to connect to.',
                        "Completed updating config for entity: user-principal '%s'." % u])
            salt = kafka_scram_salt()
            _, st, sv = scram_creds(p, 'SHA-512', 4096, base64.b64decode(salt))
            r.run('zookeeper-shell.sh zk-0.zk:2181 get /config/users/%s' % u,
                  ['Connecting to zk-0.zk:2181', '', 'WATCHER::', '', 'WatchedEvent state:SyncConnected type:None path:null',
                   '{"version":1,"config":{"SCRAM-SHA-512":"salt=%s,stored_key=%s,server_key=%s,iterations=4096"}}' % (salt, st, sv)])
        else:
            both = R.random() < 0.5
            cfg = 'SCRAM-SHA-256=[iterations=%d,password=%s]' % (it, S(p))
            if both:
                cfg += ',SCRAM-SHA-512=[password=%s]' % S(p)
            cmd = "kafka-configs.sh --bootstrap-server %s --command-config config/admin.properties --alter --add-config '%s' --entity-type users --entity-name %s" % (
                R.choice(['broker-1:9093', 'localhost:9093', 'kafka.%s:9093' % r.domain]), cfg, u)
            r.run(cmd, ["Completed updating config for user %s." % u])
    if not zk:
        out = []
        for u in users:
            out.append("SCRAM credential configs for user-principal '%s' are SCRAM-SHA-256=iterations=%d%s" % (
                u, R.choice([4096, 8192]), R.choice(['', ', SCRAM-SHA-512=iterations=4096'])))
        r.run('kafka-configs.sh --bootstrap-server localhost:9093 --command-config config/admin.properties --describe --entity-type users', out)


@pos('confluent_cli_api_key_create_table')
def t_confluent_cli(r):
    lkc, env = 'lkc-' + lc(5), 'env-' + lc(5)
    key, sec = confluent_key(), confluent_secret()
    r.run('confluent environment use ' + env, ['Using environment "%s".' % env])
    r.run('confluent kafka cluster use ' + lkc, ['Set Kafka cluster "%s" as the active cluster for environment "%s".' % (lkc, env)])
    desc = '%s %s' % (r.proj, r.env)
    out = ['It may take a couple of minutes for the API key to be ready.',
           'Save the API key and secret. The secret is not retrievable later.',
           '+------------+------------------------------------------------------------------+',
           '| API Key    | %-64s |' % key,
           '| API Secret | %s |' % S(sec),
           '+------------+------------------------------------------------------------------+']
    r.run('confluent api-key create --resource %s --description "%s"' % (lkc, desc), out, ms=R.randint(1500, 4000))
    if R.random() < 0.6:
        r.run('confluent api-key store %s %s --resource %s --force' % (key, S(sec), lkc), ['Stored secret for API key "%s".' % key])
    r.run('confluent api-key use %s --resource %s' % (key, lkc), ['Using API Key "%s".' % key])
    out = ['  Current |       Key        |     Description      |   Owner   |        Owner Email         | Resource Type |   Resource   |       Created',
           '----------+------------------+----------------------+-----------+----------------------------+---------------+--------------+-----------------------']
    for i in range(R.randint(2, 4) if r.long else 1):
        k = key if i == 0 else confluent_key()
        out.append('  %-7s | %s | %-20s | u-%s | %-26s | kafka         | %s | %sT%02d:%02d:%02dZ' % (
            '*' if i == 0 else '', k, (desc if i == 0 else R.choice(['ksql', 'connect', 'ci', 'old laptop']))[:20], lc(5),
            ('%s@%s' % (r.user, r.domain))[:26], lkc, r.clock.date(), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59)))
    r.run('confluent api-key list --resource ' + lkc, out)


@pos('schema_registry_basic_auth_curl_v')
def t_schema_registry(r):
    host = cc_host(r, 'psrc')
    key, sec = confluent_key(), confluent_secret()
    subj = R.choice(TOPICS[:8]) + '-value'
    sid = R.randint(100001, 100999)
    if R.random() < 0.5:
        r.view('config/schema-registry.properties', [
            'schema.registry.url=https://' + host,
            'basic.auth.credentials.source=USER_INFO',
            'basic.auth.user.info=%s:%s' % (key, S(sec)),
            'auto.register.schemas=false', 'use.latest.version=true'])
    blob = regd(b64(('%s:%s' % (key, sec)).encode()))
    ip = '%d.%d.%d.%d' % (R.randint(3, 54), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254))
    schema = json.dumps({'type': 'record', 'name': 'OrderCreated', 'namespace': 'com.%s.events' % r.org.replace('-', ''),
                         'fields': [{'name': 'order_id', 'type': 'string'}, {'name': 'amount_cents', 'type': 'long'}]}, separators=(',', ':'))
    body = json.dumps({'subject': subj, 'version': R.randint(1, 9), 'id': sid, 'schema': schema}, separators=(',', ':'))
    out = ['*   Trying %s:443...' % ip, '* Connected to %s (%s) port 443' % (host, ip),
           '* ALPN: curl offers h2,http/1.1', '* TLSv1.3 (OUT), TLS handshake, Client hello (1):',
           '* TLSv1.3 (IN), TLS handshake, Server hello (2):', '* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS',
           '* Server certificate:', '*  subject: CN=*.%s.aws.confluent.cloud' % r.region, '*  issuer: C=US; O=Let\'s Encrypt; CN=R11',
           '* Server auth using Basic with user \'%s\'' % key,
           '> GET /subjects/%s/versions/latest HTTP/2' % subj, '> Host: ' + host,
           '> Authorization: Basic ' + S(blob), '> User-Agent: curl/8.7.1', '> Accept: */*', '>',
           '< HTTP/2 200', '< date: ' + r.clock.rfc2822().replace('+0000', 'GMT'), '< content-type: application/vnd.schemaregistry.v1+json',
           '< x-request-id: ' + uuid4(), '<', body]
    r.run('curl -sv -u "%s:%s" https://%s/subjects/%s/versions/latest' % (key, S(sec), host, subj), out)
    if r.long:
        r.run('curl -s -u "$SR_KEY:$SR_SECRET" https://%s/schemas/ids/%d/versions' % (host, sid),
              [json.dumps([{'subject': subj, 'version': 1}, {'subject': subj.replace('-value', '-key'), 'version': 1}])])


@pos('kafka_connect_worker_env_compose')
def t_connect_env(r):
    host = cc_host(r)
    key, sec = confluent_key(), confluent_secret()
    srk, srs = confluent_key(), confluent_secret()
    jaas = '%s required username="%s" password="%s";' % (PLAIN_MOD, key, S(sec))
    env = [('CONNECT_BOOTSTRAP_SERVERS', host + ':9092'), ('CONNECT_GROUP_ID', r.proj + '-connect'),
           ('CONNECT_CONFIG_STORAGE_TOPIC', '_connect-configs'), ('CONNECT_OFFSET_STORAGE_TOPIC', '_connect-offsets'),
           ('CONNECT_STATUS_STORAGE_TOPIC', '_connect-status'), ('CONNECT_SECURITY_PROTOCOL', 'SASL_SSL'),
           ('CONNECT_SASL_MECHANISM', 'PLAIN'), ('CONNECT_SASL_JAAS_CONFIG', jaas),
           ('CONNECT_PRODUCER_SECURITY_PROTOCOL', 'SASL_SSL'), ('CONNECT_PRODUCER_SASL_MECHANISM', 'PLAIN'),
           ('CONNECT_PRODUCER_SASL_JAAS_CONFIG', '%s required username="%s" password="%s";' % (PLAIN_MOD, key, S(sec))),
           ('CONNECT_CONSUMER_SECURITY_PROTOCOL', 'SASL_SSL'), ('CONNECT_CONSUMER_SASL_MECHANISM', 'PLAIN'),
           ('CONNECT_CONSUMER_SASL_JAAS_CONFIG', '%s required username="%s" password="%s";' % (PLAIN_MOD, key, S(sec))),
           ('CONNECT_VALUE_CONVERTER', 'io.confluent.connect.avro.AvroConverter'),
           ('CONNECT_VALUE_CONVERTER_SCHEMA_REGISTRY_URL', 'https://' + cc_host(r, 'psrc')),
           ('CONNECT_VALUE_CONVERTER_BASIC_AUTH_CREDENTIALS_SOURCE', 'USER_INFO'),
           ('CONNECT_VALUE_CONVERTER_SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO', '%s:%s' % (srk, S(srs))),
           ('CONNECT_CONFIG_PROVIDERS', 'file'),
           ('CONNECT_CONFIG_PROVIDERS_FILE_CLASS', 'org.apache.kafka.common.config.provider.FileConfigProvider'),
           ('CONNECT_REST_ADVERTISED_HOST_NAME', 'connect'), ('CONNECT_PLUGIN_PATH', '/usr/share/java,/usr/share/confluent-hub-components')]
    out = ['name: ' + r.proj, 'services:', '  connect:', '    container_name: connect', '    environment:']
    for k, v in sorted(env):
        out.append('      %s: %s' % (k, v))
    out += ['    image: confluentinc/cp-kafka-connect:7.6.1', '    networks:', '      default: null', '    ports:',
            '      - mode: ingress', '        target: 8083', '        published: "8083"', '        protocol: tcp']
    if r.long:
        out += ['  kafka-ui:', '    environment:', '      KAFKA_CLUSTERS_0_NAME: ccloud',
                '      KAFKA_CLUSTERS_0_BOOTSTRAPSERVERS: %s:9092' % host,
                '      KAFKA_CLUSTERS_0_PROPERTIES_SECURITY_PROTOCOL: SASL_SSL',
                '      KAFKA_CLUSTERS_0_PROPERTIES_SASL_MECHANISM: PLAIN',
                '      KAFKA_CLUSTERS_0_PROPERTIES_SASL_JAAS_CONFIG: %s required username="%s" password="%s";' % (PLAIN_MOD, key, S(sec)),
                '    image: provectuslabs/kafka-ui:v0.7.2']
    out += ['networks:', '  default:', '    name: %s_default' % r.proj]
    r.run('docker compose config', out)


@pos('kcat_sasl_flags_history_grep')
def t_kcat(r):
    host = cc_host(r)
    key, sec = confluent_key(), confluent_secret()
    n = R.randint(300, 1900)
    out = []
    base = "kcat -b %s:9092 -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN -X sasl.username=%s -X sasl.password=%s" % (host, key, '%s')
    for tail in R.sample(['-L', '-t orders.created.v1 -C -o -5 -e', '-t %s -C -c 3 -f \'%%k %%o %%s\\n\'' % R.choice(TOPICS[:8]),
                          '-t notifications.email -P -K:', '-Q -t orders.created.v1:0:1718000000000'], R.randint(2, 4)):
        n += R.randint(1, 30)
        out.append('%5d  %s %s' % (n, base % S(sec), tail))
    r.run("history | grep -E 'kcat|kafkacat'", out)
    if R.random() < 0.6:
        r.view('~/.config/kcat.conf', ['bootstrap.servers=%s:9092' % host, 'security.protocol=SASL_SSL',
                                        'sasl.mechanisms=PLAIN', 'sasl.username=' + key, 'sasl.password=' + S(sec)])
    out = ['Metadata for all topics (from broker %d: sasl_ssl://b%d-%s:9092/%d):' % (3, 3, host, 3), ' 6 brokers:']
    for b in range(6):
        out.append('  broker %d at b%d-%s:9092%s' % (b, b, host, ' (controller)' if b == 1 else ''))
    ts = R.sample(TOPICS[:12], R.randint(2, 4) if not r.long else 5)
    out.append(' %d topics:' % len(ts))
    for t in ts:
        np_ = R.choice([3, 6])
        out.append('  topic "%s" with %d partitions:' % (t, np_))
        for p in range(np_ if r.long else 2):
            reps = R.sample(range(6), 3)
            out.append('    partition %d, leader %d, replicas: %s, isrs: %s' % (p, reps[0], ','.join(map(str, reps)), ','.join(map(str, reps))))
    r.run('kcat -F ~/.config/kcat.conf -L', out)


@pos('strimzi_kafkauser_secret_decode')
def t_strimzi(r):
    u = R.choice(['orders-svc', 'mailer', 'ingest', 'billing'])
    cl = R.choice(['my-cluster', 'events', r.env + '-kafka'])
    p = fresh(rs, AN, 32)
    jaas = '%s required username="%s" password="%s";' % (SCRAM_MOD, u, p)
    bp, bj = regd(b64(p.encode())), regd(b64(jaas.encode()))
    ns = R.choice(['kafka', 'streaming', 'data'])
    out = ['apiVersion: v1', 'data:', '  password: ' + S(bp), '  sasl.jaas.config: ' + S(bj), 'kind: Secret', 'metadata:',
           '  creationTimestamp: "%s"' % r.clock.iso(0), '  labels:', '    app.kubernetes.io/instance: ' + u,
           '    app.kubernetes.io/managed-by: strimzi-user-operator', '    app.kubernetes.io/name: strimzi-user-operator',
           '    app.kubernetes.io/part-of: strimzi-' + cl, '    strimzi.io/cluster: ' + cl, '    strimzi.io/kind: KafkaUser',
           '  name: ' + u, '  namespace: ' + ns, '  ownerReferences:', '  - apiVersion: kafka.strimzi.io/v1beta2',
           '    blockOwnerDeletion: false', '    controller: false', '    kind: KafkaUser', '    name: ' + u,
           '    uid: ' + uuid4(), '  resourceVersion: "%d"' % R.randint(100000, 9999999), '  uid: ' + uuid4(), 'type: Opaque']
    r.run('kubectl get secret %s -n %s -o yaml' % (u, ns), out)
    r.run("kubectl get secret %s -n %s -o jsonpath='{.data.password}' | base64 -d; echo" % (u, ns), [S(p)])
    if R.random() < 0.6:
        r.run("kubectl get secret %s -n %s -o jsonpath='{.data.sasl\\.jaas\\.config}' | base64 -d; echo" % (u, ns),
              ['%s required username="%s" password="%s";' % (SCRAM_MOD, u, S(p))])


# Template names listed in the Templates sections of ../agent_tuning/ to ../agent_tuning_12/ READMEs
# (copied here so the script needs nothing but itself).
EXISTING = '''
abctl_local_credentials ably_rest_basic_auth ably_token_request_json acme_http01_log activemq_jetty_realm
actuator_env_json actuator_env_masked adyen_client_key_dropin adyen_http_debug_x_api_key ag_grouped_php_config
age_keys_txt agenix_secrets_nix agent_bash_curl_bearer agent_session_files aider_conf_yml
airbyte_source_config_masked airbyte_source_create_http airflow_cfg_grep_fernet airflow_conn_env_uris_compose
airflow_connections_export airflow_connections_get_json airflow_dag_jinja_refs airflow_rest_api_connection_get
airflow_task_log_masked airflow_variables_export_json airtable_list_records_json alembic_history_revisions
alert_webhooks_dagster_sensor alertmanager_yml algolia_cli_config_profiles algolia_instantsearch_frontend
aliyun_config_json analytics_server_keys_env android_key_properties android_release_signing_ci_decode
angular_build_chunks ansible_group_vars_inline_vault ansible_inventory_ini ansible_setup_facts
ansible_vault_ciphertext ansible_vault_view ansible_verbose ansible_vvv_module_args anthropic_go_source
api_pagination_cursors apksigner_print_certs appcmd_list_apppool_text applicationhost_config_enc_passwords
apport_crash_coredump_b64 appservice_keyvault_references appsettings_json apt_cache_show_hashes
argo_auth_token_artifact_repo argo_workflow_get_outputs argocd_initial_password argocd_vault_plugin_manifest
armored_ciphertext_files artifactory_storage_api_checksums artisan_config_show artisan_tinker
asc_api_key_json_fastlane aspnet_appsettings_dev_jq aspnet_launchsettings_profiles
aspnet_regiis_encrypted_connstrings auth0_apps_show_reveal auth0_logs_tail_json auth0_m2m_token_curl
authenticode_get_signature_ps authorized_keys_file aws_cli_debug_sso_role_credentials aws_configure_list
aws_credentials_csv_column aws_credentials_profiles aws_ec2_describe_instances aws_export_credentials
aws_iam_list_access_keys aws_sso_cache_json axios_curlirize_console az_access_token az_account_list_table
az_ad_app_credential_list az_ad_sp_create_for_rbac az_cognitiveservices_keys_list az_keyvault_key_show_jwk
az_keyvault_secret_list az_keyvault_secret_show_table az_storage_blob_list_etags az_storage_connstr_and_sas
azdo_pat_git_and_nuget_source azure_core_network_trace_logging azure_devops_variable_group_az_cli
azure_functions_local_settings azure_pipelines_job_log_starred azure_pipelines_log_xtrace
azure_pipelines_variable_group_refs azure_sas_url azure_sdk_http_logging_redacted bacula_dir_conf
bash_xtrace_mysqldump bat_env_turso_upstash bat_yaml_config batch_api_output_jsonl bazel_aquery
bcc_sslsniff_plaintext bcrypt_psql_users bitbucket_pipelines_variables_api
bitbucket_pipelines_yml_secured_refs bitcoin_cli_addressinfo borg_info borg_list_archive_ids
borgmatic_config_yaml bot_source boto3_stream_logger_session_token botocore_debug_canonical_request
bq_ls_jobs_table braintree_rails_console braintree_transaction_ids brew_bump_formula_pr_token_env
bruno_env_bru_file buildkite_agent_cfg buildkite_job_env_redacted_partial buildkite_pipeline_upload_redacted
buildx_imagetools_inspect bundle_config_gem_credentials caddy_adapt_json caddy_hash_password
cargo_build_verbose cargo_credentials_toml cargo_credentials_toml_publish cargo_lock_checksums
cargo_publish_dry_run_packaging cargo_test_digest_vectors cargo_test_panic_debug_struct cast_receipt
cat_n_dotenv celery_banner_masked celery_inspect_task_ids ceph_auth_virsh_secret ceph_mon_dump_fsid
cert_store_thumbprints certbot_certificates changeset_publish_local_npmrc chat_bot_tokens_jq
checkov_secrets_findings chef_encrypted_data_bag_secret choco_apikey_push_history
chrome_webstore_upload_oauth_env ci_yaml_inline circleci_cli_yml_and_api_curl circleci_context_env_list_masked
circleci_set_x_log cisco_ios_show_run cisco_show_crypto_ipsec_sa cisco_show_run_hashed claude_read_config_yaml
claude_read_pem_fixture claude_read_public_pem claude_read_settings_local clerk_publishable_next_public_env
clerk_supabase_env_diff clerk_svix_webhook_headers_log cli_help_examples cli_password_flag_warnings
clickhouse_system_users clickhouse_users_xml cloud_init_userdata cloudflared_tunnel_json
cloudinary_upload_api_response cloudsmith_credentials_ini_push cloudtrail_event_json cmdkey_list_targets
cms_media_env_printenv cms_seed_script_cat_n cockroach_cert_list cockroach_sql_create_user
code_server_config_yaml code_server_hashed_password codeartifact_auth_token_pip_npm
codeartifact_package_version_assets codepush_deployment_history codesign_display_verbose codex_auth
codex_config_mcp_env colab_secrets_access_no_values colab_userdata_print_output column_t_seed_users_csv
column_t_users_hashed_csv combined_diff_merge_conflict_yaml comet_ml_experiment_summary
comet_neptune_config_files commit_messages_rotate_token compgen_e_secret_names compiled_lang_sdk_init
compose_config compose_env_placeholders compose_logs_startup compose_secrets_files composer_auth_json
composer_global_auth_bat_history composer_lock_source_refs conan2_credentials_json_remote_login
conan_lockfile_revisions concourse_fly_pipeline_vars concourse_flyrc_credhub_get conda_explicit
conda_lock_yml_hashes configmap_binarydata configmap_with_password conflict_markers_env_cat
confluent_api_key_create_jaas consul_acl_token consul_agent_hcl consul_catalog_nodes_detailed
containerd_ctr_images contentful_entries_sys_ids contentfulrc_space_export continue_config_yaml
coredumpctl_info_module_build_ids cosign_generate_key_pair_files cosign_k8s_secret_yaml
cosign_pub_and_bundle_json cosign_verify cqlshrc_cat crane_digest_ls_config crictl_inspect_runtime_spec_env
crictl_ps_inspect_ids_digests crm_notes_sync_script_head crontab_l_backup_jobs cryptsetup_luksdump
csharp_record_guid_etag csharp_record_printmembers csproj_usersecretsid csrf_token_html_form
css_bundle_hashed_selectors css_modules_colors curl_csp_etag_cookies curl_i_request_ids
curl_trace_ascii_public_endpoint curl_trace_ascii_wrapped_header curl_v_tls_session_headers
curl_verbose_api_key_setcookie curl_verbose_basic_auth cyclonedx_sbom_components_hashes cypher_shell_neo4j
dagster_materialize_event_log dagster_yaml_instance_storage data_uri_inline_images databricks_auth_env_json
databricks_cluster_spark_conf_refs databricks_jobs_runs_json databricks_secrets_list_keys
databrickscfg_profiles datadog_agent_status_masked datadog_log_trace_correlation datadog_logs_search_api_curl
datadog_yaml db2_connect_using db_client_cred_files db_url_app_log dbt_cloud_yml_projects
dbt_debug_connection_ok dbt_manifest_checksums dbt_profiles_bat_multi_adapter dbt_profiles_yml
dbt_run_results_query_ids debezium_connector_curl_json debezium_source_offsets_gtid declare_x_dump
delta_log_commit_entries detect_secrets_baseline dev_ca_crt_fingerprint dev_cli_token_files
devcontainer_json_remote_env devtools_copy_as_curl diff_u_env_example diff_u_staging_prod_yaml
dig_dnskey_rrsig dig_txt_records direnv_export_names discord_py_startup_log django_500_masked
django_500_settings_unmasked_urls django_check_deploy_warnings django_diffsettings django_dumpdata_pbkdf2
django_settings_env_lookups django_technical_500_text dlv_attach_print_config dlv_goroutines_bt_addresses
dmesg_segfault_ip_sp dnssec_dsfromkey_ds docker_build_plain_progress docker_buildx_output
docker_compose_config_json docker_config_auths docker_config_json_multi_auths_jq docker_credential_helper_list
docker_history docker_images_digests docker_inspect_env docker_inspect_health_log_creds
docker_login_p_warning_config_cat docker_manifest_inspect docker_ps_no_trunc docker_pull_digest_output
docker_run_history_grep docker_secret_ls docker_trust_inspect docker_volume_ls_anon
dockerfile_from_digest_pins docs_jwt_examples_rfc doppler_secrets_download doppler_secrets_names_only
dotenv_tpl_secret_refs dotnet6_httpclient_trace_headers dotnet8_httpclient_redacted_headers
dotnet_config_replace_tokens dotnet_dev_certs_https_check dotnet_dump_analyze_string_objects
dotnet_dump_heap_stat_mts dotnet_ef_update_connection_error dotnet_nuget_add_source_cleartext
dotnet_nuget_push_apikey_log dotnet_nuget_verify_signatures dotnet_sln_guids dotnet_user_jwts_list
dotnet_user_secrets_list dovecot_passwd_file dovecot_users_hashed drone_secret_ls_info
drone_woodpecker_server_env dropbox_oauth_token_response duplicity_collection_status duplicity_verbose_env
dvc_lock_stage_hashes dvc_md5 eas_env_list_secret_names eas_json_expo_token_ci ec_key_in_repo_cat
elasticsearch_cat elasticsearch_keystore_show elixir_prod_secret_exs email_api_send_responses
embeddings_response_b64 emqx_api_key_create emqx_ctl_clients_list env_example_diff env_grep_masked_tails
env_keys_cut_names env_local_read_tool env_names_only env_production_head env_template_placeholders
envoy_admin_certs_json envoy_inline_secrets envrc_export_direnv es_security_api_key_get
eventhubs_kafka_jaas_pyspark example_config_placeholders_read eyaml_decrypt fastapi_settings_startup_log
fastlane_dotenv fastlane_match_summary_masked fcm_legacy_server_key_curl fd_xargs_head_env_files
feast_apply_registry_output fetchmailrc firebase_functions_config_get firebase_mobile_config_files
firebase_web_config first_run_password_banners fish_variables fivetran_api_curl_verbose
fivetran_connector_details_masked fly_secrets_list flyctl_tokens_create format_patch_compose_password
fortigate_cli_session freeradius_clients_conf freeradius_eap_debug freeradius_users_radtest fstab_cifs
gcloud_adc_authorized_user gcloud_ai_endpoints_list gcloud_keys_create_jq gcloud_log_http_token_redacted
gcloud_logging_insert_ids gcloud_print_access_token gcloud_sa_keys_list gcp_sa_decoded_secret
gcp_sa_json_read_tool gdb_attach_info_locals gdb_core_bt_full_addresses ge_validation_result_ids
gem_build_checksums_yaml gem_signin_credentials_bundle_config gemfile_lock_checksums gemini_settings_mcp_env
get_azaccesstoken_format_list get_bitlockervolume_protector_ids get_filehash_certutil get_localuser_sids
getent_shadow getpass_prompt_cells gh_api_commit_verification gh_api_graphql_node_ids gh_auth_status_masked
gh_auth_status_token gh_auth_token_cmd gh_release_view_assets_json gh_secret_list
gh_secret_scanning_alerts_hidden gh_secret_scanning_alerts_json gh_ssh_key_list gha_cache_artifacts
gha_log_masked_secrets gha_log_step_env gha_pinned_action_shas gha_release_workflow_secret_refs
gha_run_log_masked_publish gha_train_workflow_secret_refs gha_workflow_refs ghcr_packages_api_versions
ghost_config_production_json ghost_content_api_frontend git_bisect_log git_blame_porcelain
git_blame_range_initializer git_blame_settings git_cat_file_sshsig git_config_extraheader
git_config_list_insteadof git_credential_fill git_credentials_store_file git_crypt_status_xxd
git_diff_bun_lock_bump git_diff_env_rotation git_diff_settings_env_reads git_diff_staged
git_diff_word_diff_tokens git_graph_reflog git_grep_all_revs git_grep_rev_prefixed git_lfs_pointer
git_log_p_config_commit git_log_p_pem_fixture_added git_log_patch git_log_pretty_fuller_shas
git_ls_tree_objects git_patch_id_cherry git_rebase_todo git_remote_v_tokens git_show_added_key git_show_commit
git_show_workflow_env_token git_stash_show_env git_submodule_status_shas git_trace_curl_redact_off
git_trace_curl_redacted github_api_rate_headers gitlab_cache_keys_log gitlab_ci_job_log_echo
gitlab_ci_variable_refs gitlab_deploy_token_api gitlab_deploy_tokens_list gitlab_initial_root_password
gitlab_job_log_masked_vars gitlab_runner_config_toml gitlab_trigger_runner_tokens_curl gitlab_variables_api
gitleaks_report_redacted gitleaks_rules glab_ci_trace_xtrace_unmasked glab_variable_export_json
glab_variable_list_table go_dumprequest_middleware_log go_env_goprivate_netrc_cat go_gorm_dsn_panic
go_mod_download_json_sums go_panic_goroutine_trace go_sharp_v_config_print go_sum_cat go_test_struct_dump
go_test_v_struct_ids go_version_m google_chat_webhook_curl goreleaser_checksums_artifacts_json
goreleaser_release_log_token_files govc_env_about govc_vm_info_uuids gpg_armored_detached_signature_asc
gpg_export_secret_keys_armor gpg_k_with_keygrip_colons gpg_list_secret_keys gpg_loopback_passphrase_xtrace
gpg_public_key_export gpg_verify_signature gradle_build_scan gradle_init_script_repo_credentials
gradle_properties_central_signing gradle_properties_home gradle_publish_sonatype_staging_log
gradle_signing_configs_kts gradle_signing_report gradle_verification_metadata grafana_datasource_api_get
grafana_datasource_provisioning grafana_search_dashboards_json graphql_persisted_query_hashes
graphql_relay_cursors great_expectations_config_variables grep_docs_example_credentials
grep_rn_fixture_payloads grep_rn_repo grpcurl_bytes_fields gsa_dict_repr gsutil_stat_hashes
gunicorn_debug_current_configuration haproxy_runtime_show_sess haproxy_userlist_stats_auth har_file_cookies
harbor_robot_create_json hcloud_cli_toml headscale_nodes_apikeys_list headscale_preauthkeys
helm_chart_lock_prov_file helm_chart_secret_template helm_get_values_all helm_manifest_checksum_annotations
helm_push_digest helm_registry_login_push_oci helm_repositories_yaml_registry_json
helm_values_tls_block_scalar heroku_auth_token heroku_config_vars hf_cli_env_whoami
hf_cli_login_git_credential hf_datasets_cache_fingerprints hf_hub_cache hf_repo_info_siblings_lfs
hf_scan_cache_table hf_stored_tokens_ini hf_token_cache hiera_common_yaml_mixed hikari_config_masked
hs_err_pid_jvm_args hs_err_registers_memory_map html_sri htpasswd_file http_client_debuglevel_send
http_message_signature_headers httpie_response_integrity_headers httpie_verbose
httplib2_debuglevel_token_refresh httpx_event_hook_headers_dump httpx_headers_repr_secure
ibmcloud_api_key_create iceberg_snapshots_table icinga2_api_users_conf icinga2_ca_list iex_inspect_pids_refs
iex_inspect_repo_config importmap_pins_integrity infisical_export influx_auth_create_table
influx_bucket_list_ids ios_dependency_tokens_ci_log ipfs_add_cids ipsec_secrets ipynb_env_cell_outputs
ipynb_error_output_traceback ipython_env_magic_session ipython_llm_clients istioctl_proxy_secret
jaeger_trace_json jar_manifest_digests jarsigner_apksigner_pass_flags jarsigner_verify_verbose_certs
jasypt_enc_properties java_tostring javax_net_debug_plaintext_dump jcmd_sysprops_changeit_truststore
jcmd_vm_sysprops_command_line jdbc_url_dialects_stacktrace jenkins_api_token_cli_history
jenkins_casc_export_secret_refs jenkins_casc_yaml_plain_creds jenkins_console_env_literal_leak
jenkins_console_masked_creds jenkins_console_sh_x jenkins_credentials_xml_encrypted jenkins_script_console
jest_called_with_auth_header jest_snapshot_diff jest_snapshot_mock_ids jetty_realm_md5_crypt
jetty_realm_obf_properties jf_config_export_server_token jf_config_show_masked jmap_histo_token_classes
journalctl_o_json_crash_cursor journalctl_u_crashloop_config journalctl_verbose jq_fixture_base64_blobs
jq_seed_fixture_tokens js_registry_auth_configs json_log_escaped_request_body jstack_thread_dump
junos_display_set junos_show_config_hashed jupyter_ipynb_image_png jupyter_kernel_connection_json
jupyter_notebook_cell_ids jupyter_server_config_hashed jupyter_server_list jupyterhub_config_py_secrets
jupytext_py_percent_cells jvm_tostring_log_lines jvm_tostring_masked_props jwks_json kadmin_getprinc
kafka_client_properties kafka_configs_scram_alter kafka_connect_config_provider_refs
kafka_connect_connector_config kafka_consumer_groups_describe kafka_producerconfig_hidden
kafka_topics_describe kaggle_api_json_warning kcat_consume_events keycloak_realm_export keymgr_knot_conf
keymgr_list_key_ids keystore_properties_env_refs keytool_list_certs keytool_storepass_history
klist_ccache_tickets klist_kte_keys kms_transit_ciphertexts knife_data_bag_show knife_node_show_long
kong_consumers_basicauth_hashed kong_deck_dump kopia_connect_s3 kopia_snapshot_list ksuid_inspect kubeadm_join
kubeconfig_user_creds kubectl_auth_whoami kubectl_config_view_redacted kubectl_create_secret_cmd
kubectl_describe_deploy_env kubectl_describe_exec_probe_cli_pass kubectl_describe_node kubectl_describe_pod
kubectl_describe_pod_restarts_refs kubectl_describe_secret kubectl_exec_env kubectl_get_csr
kubectl_get_rs_hashes kubectl_get_secrets_names kubectl_jsonpath_uids kubectl_pod_status_yaml
kubectl_secret_go_template kubectl_secret_json kubectl_secret_refs_yaml kubectl_secret_yaml_b64
kubectl_set_env_list kubectl_v8_masked_bearer lambda_cloudwatch_logs langfuse_langsmith_grep
laravel_config_env_helpers laravel_dotenv_read_tool laravel_ignition_text_report launchdarkly_js_init
ldap_ppolicy_history ldapmodify_syncrepl_ldif ldapsearch_ad_guids_sids ldapsearch_bind litellm_config_yaml
llm_api_response_ids llm_generation_config_tokens llm_provider_keys_env_read lockfile_conflict_markers
logcli_query_leaked_lines logcli_query_masked_auth_lines logfmt_debug_dsn logfmt_request_span_ids
logstash_pipeline_conf loguru_diagnose_annotated_frames loguru_diagnose_nonsecret_values lsof_pid_fd_table
ltrace_getenv_libcalls ltrace_getenv_secret_file_paths magento_core_config_encrypted magento_env_php
makefile_dry_run manage_bde_recovery_password mapbox_tokens_api_json markdown_links_slugs
markdown_runbook_credentials_table matchfile_appfile_cat maven_deploy_checksums maven_settings_cat_n
maven_settings_env_and_encrypted mc_alias_list mc_svcacct_add mcp_config meltano_config_plugin_json
messagebird_accesskey_curl messagebird_message_ids metabase_api_session_curl_v micronaut_application_yml_jwt
migrations_checksums mikrotik_export_default_hidden mikrotik_export_sensitive mime_attachment
minified_bundle_head minisign_pub_sig_cat minisign_signify_secret_key_cat minisign_verify mitmdump_flow_detail
mitmdump_websocket_auth_frames mitmdump_ws_handshake_keys mix_pubspec_resolved_locks
ml_cli_login_status_masked ml_run_ids mlflow_registered_model_versions mlflow_search_runs_table
mlflow_tracking_env_printenv mobileprovision_decoded_plist modal_app_list_table modal_profile_toml
mongod_keyfile mongod_slow_query_log_lsid mongodump_uri_cmd mongoose_debug_objectids mongosh_argon2
mongosh_banner mongosh_find_objectids mongosh_rs_status_signature mongosh_system_profile_docs
mosquitto_password_file_hashes msmtprc mssql_sql_logins_hashes multipart_upload_boundaries muttrc_imap_smtp
mvn_effective_settings_masked mvn_effective_settings_show_passwords mvn_xtrace_deploy_failure
mysql_config_editor_print mysql_general_log_raw_queries mysql_general_log_rewritten mysql_user_auth_strings
n8n_export_credentials named_checkconf_px_obscured nats_creds_file nats_server_conf_users
nb_display_png_base64_head nbconvert_script_warehouse nbformat_execution_metadata nebula_cert_keys
nebula_cert_print_json neon_pscale_passwords netdata_claim netdata_claim_status_ids netlify_cli_config_json
netrc netsh_wlan_profile_key_clear netsh_wlan_profile_key_present nexmorc_vonage_app_key next_build_id
next_config_env_block next_public_env_inlined_bundle nextjs_env_saas nexus_initial_admin_password_curl
nexus_search_assets_json nginx_access_log nginx_error_log_query_tokens nginx_error_log_upstream_ids
ngrep_html_csp_nonce_csrf ngrep_redis_auth_byline ngrok_config_v3 nix_flake_metadata nix_hash_mismatch_error
nix_store_paths nl_django_settings nmcli_connection_hidden_secrets nmcli_show_secrets node_axios_error
node_console_log_config_object node_diagnostic_report_envvars node_err_invalid_url_input
node_inspect_client_options_crash node_inspect_debugger_exec node_inspect_debugger_request_ids
node_inspect_socket_handles node_repl_buffers_objectids node_repl_process_env node_report_libuv_handles
nodetool_status_tokens nomad_acl_token_list nomad_job_env_template nomad_job_status nomad_job_template
notarytool_history_log_json notarytool_p8_authkey_cat notarytool_store_credentials_history
notion_query_database_json npm_audit_json npm_config_protected npm_pack_dryrun npm_publish_provenance_notice
npm_registry_keys_audit_signatures npm_token_create_table npm_token_list_table npm_view_dist_signatures
npmrc_env_var_interpolation npmrc_home_cat npmrc_multi_registry_bat nsc_describe_account nsupdate_debug_y
nuget_config_cleartext nuget_config_env_references nuget_packages_lock nx_run_many_cache_hits oauth2_proxy_cfg
oauth_authorize_url_log oauth_token_form_body_log oci_auth_token_create od_c_env_example_dump
oidc_discovery_json okhttp_body_level_oauth_exchange okhttp_logcat_headers okhttp_redact_header_blocks
ollama_list_digests op_item_get_concealed op_read_output op_secret_references openai_ts_client_source
openapi_security_examples openconnect_authenticate opendkim_private_key opendkim_testkey_vvv openssh_key_read
openssl_s_client_chain openssl_x509_text openstack_app_credential_list openstack_clouds_yaml
openvpn_client_log openvpn_ovpn_inline oracle_mkstore_sqlplus orapki_wallet_display
oras_discover_referrers_tree orm_log_digest_columns orm_sql_log_bind_params otel_collector_exporters
otel_debug_exporter otel_js_console_span_dump otel_span_attributes_leaked_headers
otel_span_attrs_redacted_headers ovh_conf_credentials package_lock_integrity_diff packer_pkr_hcl_vars
paddle_billing_pytest_locals paddle_webhook_event_ids pagerduty_incident_list_ids
papermill_injected_parameters payments_gateways_initializer_rb paypal_token_curl pdnsutil_show_zone
pfsense_config_certs_hashes pfsense_config_xml pg_authid_scram pg_log_scram_verifiers
pg_log_statement_all_role_passwords pg_stat_activity_dblink_password pg_stat_activity_parameterized
pgbouncer_userlist_scram pgbouncer_userlist_txt pgp_export phoenix_runtime_exs_fallbacks php_payment_gateways
php_print_r_services php_trace_sensitiveparameter_args php_var_dump_config php_var_dump_hash_values
phpunit_array_equal_failure phx_digest_and_env_fetch pinecone_index_stats_repr pino_json_headers
pino_json_redacted_fields pip_compile_hashes pip_config_list pip_index_masked pip_install_verbose_links
plaid_accounts_get_ids plaid_mapbox_settings_py platform_token_mint_outputs play_publisher_sa_json_env_log
playwright_storage plutil_launchagent pm2_env_show pnpm_lock_integrity podfile_lock podman_auth_json
poetry_auth_toml_keyring_disabled poetry_lock_file_hashes postfix_mailq_queue_ids postfix_sasl_passwd
posthog_events_json postman_environment_json postmortem_timeline_key_ids powerdns_api_key powershell_env
powershell_securestring_export powershell_securestring_plain pre_commit_frozen_revs
prefect_config_view_show_secrets prefect_flow_runs_ls_table probot_env_private_key proc_environ_file_refs_only
proc_pid_environ_tr prometheus_remote_write_bat prometheus_status_config_masked protobuf_rawdesc
proxy_creds_apt_env ps_auxww ps_eww_inline_environment ps_eww_service_env_benign ps_get_secret_plaintext_table
ps_invoke_sqlcmd_error_echo ps_secretmanagement_no_plaintext ps_transcript_read_host_masked
psql_api_key_hashes psql_connection_string_cmd psql_expanded_integrations psql_select_oauth_tokens
psql_select_uuid_ulid_rows psreadline_history_cmdkey publishsettings_userpwd_xml pulsar_client_conf
pulumi_config_show_secrets pulumi_stack_yaml_encryptionsalt puppetserver_ca_list pusher_channel_auth_signature
puttygen_ppk pveum_token_add pveum_token_list py_ruby_index_credentials py_spy_dump_idle_threads
py_spy_dump_locals_threads pydantic_model_dump_json pydantic_secretstr_repr pydantic_settings_repr_plain
pypirc_twine_upload_verbose pytest_captured_log_headers pytest_conftest_vendor_keys pytest_diff
pytest_digest_mismatch_diff pytest_showlocals pytest_vv_dict_full_diff python_dataclass_settings_repr
python_http_debug python_os_environ_repr python_repr_settings_refs python_source_llm_keys python_traceback
qdrant_scroll_points_json quarkus_profile_properties quay_harbor_tags_digests quay_robot_dockercfg_download
rabbitmq_definitions_hashes rabbitmq_erlang_config radius_detail_acct_log rails_console_pp_credentials
rails_credentials rails_credentials_edit_cat rails_credentials_yml_enc_cat rails_database_yml_erb
rails_dev_error_env_dump rails_log_filtered_parameters rails_log_request_uuids rails_master_key_cat
rancher_tokens_api ray_cluster_launcher_yaml ray_list_nodes_ids razorpay_checkout_payment_ids
razorpay_node_inspect rclone_config_show readelf_build_id readme_quickstart_placeholders
recaptcha_site_key_html redacted_app_logs redis_acl_getuser_hashes redis_cli_a_warning redis_cli_acl_setuser
redis_cli_cache_keys redis_cli_config redis_cli_monitor redis_info_runid redis_monitor_auth_redacted
redis_monitor_session_store_writes redis_sentinel_conf redshift_get_cluster_credentials
reg_export_putty_sessions reg_query_machineguid_clsid reg_query_winlogon_autologon
registry_robot_creds_skopeo_crane rekor_cli_get_entry release_env_secret_manager_refs
release_please_cli_token_flag release_please_manifest_config release_sha256sums requirements_extra_index_token
rest_client_http_file restic_cat_config_keys restic_env_file restic_snapshots rfc_test_vectors
rg_c2_context_source rg_context_config rg_env_var_reads rg_heading rg_json_match_events rg_log_dir_leak_hunt
rg_log_dir_only_redacted rg_only_matching_hooks rg_secretish_identifiers rg_sshpass_scripts rg_webhook_urls
rich_locals_nonsecret_values rich_table_wrapped_token rich_traceback_locals rpm_qi_signature
rspec_webmock_unregistered_request rsyncd_secrets ruby_inspect_object_addresses ruby_net_http_debug
rust_dbg_macro_pretty rust_debug rust_debug_secrecy_redacted rust_link_mangled
s3api_list_objects_etags_parquet s3api_object_versions s3cfg saas_api_curl_history safetensors_index_and_sums
sagemaker_describe_model_env sagemaker_training_job_arns salt_key_finger salt_pillar_items saml_idp_metadata
sanity_debug_redacted sanity_debug_secrets scaleway_config_yaml schema_registry_subject_versions
script_lang_sdk_init sealed_secret_yaml secret_scanner_masked_findings secretsmanager_describe_secret
secretsmanager_get_value security_find_identity_codesign security_policy_numbers sed_n_app_toml
segment_snippet_public_writekey semantic_release_local_env_dryrun semantic_release_log_secure_masked
sendgrid_event_webhook_batch sentry_cli_send_event_ids sentry_cli_sourcemaps sentry_dsn
sentry_event_frame_vars sentry_event_request_breadcrumbs sentry_event_scrubbed_json
sentry_issue_event_contexts_filtered sentryclirc_and_properties shell_history shopify_app_env_show
shopify_app_info_theme_ids shopify_theme_access_push shopify_webhook_delivery_headers show_mac_address_table
signtool_sign_pfx_p_msbuild signtool_verify_verbose sigstore_bundle_npm_provenance skopeo_inspect
slack_bolt_env_socket_mode slack_events_payload_ids slapcat_ssha slsa_provenance_intoto_statement
smtp_settings_rb smtplib_debug_relay_no_auth smtplib_debuglevel_auth_plain sn_tp_strong_name_public_key
snap_known_assertion snapcraft_export_login_credentials snapcraft_whoami_status snmpd_conf
snmpwalk_hex_strings snow_cli_connections_toml snow_sql_query_history_table snowflake_connector_traceback
snowflake_desc_user_key_fp snowflake_ids_api_json snowflake_keypair_p8_cat snowsql_config_connections
solana_cli_output sops_age_recipients sops_decrypt sops_encrypted_yaml sourcemap_json spa_auth_public_config
spark_defaults_storage_keys spark_rest_applications_json spark_submit_verbose_redacted
sparkle_appcast_edsignature sparkle_eddsa_private_key_export spctl_assess_stapler_validate
spdx_sbom_package_checksums spring_application_yml_profiles spring_boot_bind_failure_value
spring_boot_startup_info spring_cloud_config_cipher_values spring_cloud_config_server_json spring_log_jdbc_url
spring_properties spring_yml_property_placeholders spring_yq_datasource_eval sql_dump
sqlalchemy_url_parse_error sqlcmd_query_gateway_secrets sqlcmd_sql_logins_password_hash sqlcmd_transcript
sqlite3_box_mode_tokens sqlite3_box_uuid_rows squid_access_log squid_cache_peer_login ss_tnpie_socket_cookies
ssh_keygen_generation_output ssh_keyscan_fingerprints ssh_verbose_hostkey sslsniff_jwks_fetch_public_keys
ssm_describe_parameters sssd_cache_ldbsearch sssd_conf_authtok state_dict_keys_shapes
strace_s256_tls_record_bytes strace_sendto_write_payloads strapi_env_app_keys streamlit_secrets_toml
strings_core_dump_grep strings_core_format_strings stripe_cli_config_toml stripe_js_checkout stripe_listen
stripe_listen_forward_events stripe_object_ids_json stripe_trigger_fixture_output strongswan_pki_print
structlog_request_trace_ids sts_assume_role_json sts_get_caller_identity supabase_js_anon_client
supabase_projects_api_keys supabase_secrets_list superset_config_env_refs superset_config_py
swanctl_conf_secrets swanctl_list_sas swarm_join_token symfony_secrets_reveal sysdig_echo_fds_healthchecks
sysdig_echo_fds_payloads systemctl_show_environment systemctl_show_invocation_ids systemd_creds_encrypted_unit
systemd_unit tailscale_status_json tailscale_whois_nodekeys tcpdump_a_cleartext_protocol_logins
tcpdump_a_internal_api_ids tcpdump_ascii tcpdump_xx_dns_hex teamcity_rest_bearer_zxx_scrambled
teamcity_settings_kts_credentials_json_refs tekton_git_basic_auth_secret_yaml
tekton_pipelinerun_describe_results telegraf_conf_outputs telegram_getupdates_file_ids telegram_httpx_log
terraform_lock_hcl terraform_login_credentials_tfrc terraform_output_json terraform_output_raw terraform_plan
terraform_plan_sensitive_masked terraform_provider_diff terraform_state_grep terraform_state_show_ids
test_fixtures_fake_keys testify_not_equal_struct_diff tf_log_aws_provider_http_masked
tf_log_debug_provider_http_dump tf_show_json_tls_private_key tfc_api_run_ids tfvars_cat
tokenizer_ids_and_vocab tomcat_users_digest_hashes tomcat_users_xml_cat torch_hub_checkpoint_downloads
traceparent_nginx_log traefik_acme_json traefik_basicauth_users transactional_email_env_diff
transformers_config_load_log travis_cli_login_env_public travis_encrypt_secure_blobs trufflehog_raw_results
tshark_follow_tcp_stream_ascii tshark_http_basic tshark_pgsql_cleartext_password tshark_pgsql_scram_exchange
tshark_v_tls_client_hello tsig_keygen_named_conf turborepo_cache twilio_api_keys_create_json
twilio_cli_config_json_profiles twilio_messages_list_sids twine_upload_verbose_hidden_password
unity_meta_guids urllib3_debug_paths_shas uv_lock_hashes uv_publish_trusted_publishing_log
varnishlog_cache_hits_vxids varnishlog_req_header_records vault_audit_log_hmac vault_audit_log_raw_true
vault_kv_get_json vault_kv_get_table vault_kv_metadata_get vault_list_accessors vault_operator_init
vault_policy_hcl vault_status vault_token_create vault_token_lookup_accessor vault_unseal_progress
vcr_cassette_filtered vector_store_clients_git_diff vector_toml_sinks velero_backup_describe
velero_credentials_secret vercel_env_ls vercel_env_pull_cat version_strings vite_build_assets
vite_env_types_declaration vite_manifest_json vitest_snapshot_classnames vsce_ovsx_publish_pat vscode_launch
vyos_show_commands wandb_api_runs_table wandb_login_netrc wandb_run_files_config_yaml wandb_sync_run_ids
warehouse_jdbc_urls_rg wc_api_keys_db_hashed weaviate_qdrant_compose_keys web_config_xml web_map_public_tokens
web_release_config_transform webauthn_challenge_test_log webhook_signature_headers webpack_build_output
webpack_runtime_chunk_map werkzeug_console_config wg_show_endpoints_handshakes wg_show_preshared_keys
wget_debug_request_begin wheel_record wildfly_standalone_datasource wildfly_vault_credential_refs
winevent_4624_logon wireguard_conf wireguard_show wmic_product_guids woocommerce_rest_keys_curl
woodpecker_pipeline_from_secret_refs workbox_precache_revisions wp_config_php wp_config_sample_placeholders
wp_users_password_hashes wpa_supplicant_conf wrangler_toml_vars xcconfig_secrets_cat xcode_pbxproj
xcodebuild_showbuildsettings xdebug_function_trace_params xtrace_llm_curl_headers xxd_hexdump
yarn_berry_lock_checksums yarn_v1_lock_resolved yarnrc_berry_npm_scopes_diff yarnrc_yml_auth
yarnrc_yml_env_interpolated_tokens yq_ops_integrations_tokens yt_dlp_output zabbix_agent_psk
zabbix_api_jsonrpc zabbix_template_export_uuids zap_json_startup_config_env zap_json_trace_span_ids
zerotier_cli_listnetworks zerotier_idtool_secret zgrep_rotated_access_logs
'''


# ================================================================ driver and assertions
SCHEME_WORDS = ('Bearer ', 'Basic ', 'token ', 'Token ', 'Bot ', 'AccessKey ', 'key=', 'token=', 'SSWS ',
                'ApiKey ', 'Digest ', 'pass:', 'password=', 'AUTH ', 'PLAIN ', 'LOGIN ', 'Authorization')
QUOTES = '\'"`'


def spans(text):
    out, i = [], 0
    while True:
        a = text.find(LM, i)
        b = text.find(RM, i)
        if a < 0:
            assert b < 0, 'unbalanced »'
            return out
        assert b > a, 'unbalanced marks'
        c = text.find(LM, a + 1)
        assert c < 0 or c > b, 'nested marks'
        s = text[a + 1:b]
        assert s, 'empty mark'
        out.append((a, b, s))
        i = b + 1


def check_row(row_id, positive, text, declared):
    for ch in text:
        assert ch in '\n\t' or ord(ch) >= 32, ('control character', row_id, repr(ch))
    nl = text.count('\n') + 1
    assert nl <= 150, (row_id, nl)
    if not positive:
        assert LM not in text and RM not in text, ('mark in negative row', row_id)
        return []
    sp = spans(text)
    assert sp, ('positive row without a mark', row_id)
    got = [s for _, _, s in sp]
    assert sorted(set(got)) == sorted(set(declared)), ('marks differ from declared secrets', row_id)
    unmarked = []
    last = 0
    for a, b, s in sp:
        unmarked.append(text[last:a])
        last = b + 1
    unmarked.append(text[last:])
    um = '\x00'.join(unmarked)
    for a, b, s in sp:
        assert s == s.strip(), ('outer whitespace', row_id, s)
        assert s[0] not in QUOTES and s[-1] not in QUOTES, ('quote at mark edge', row_id, s)
        for w in SCHEME_WORDS:
            assert not s.startswith(w), ('scheme word in mark', row_id, s)
        if '\n' in s:
            for cont in s.split('\n')[1:]:
                assert cont and not cont[0].isspace() and cont[0] not in '│|⎿└', ('continuation under a prefix', row_id, cont)
                assert not (cont[:6].strip().isdigit() and len(cont) > 6 and cont[6] in '→\t'), ('line number in mark', row_id)
        if len(s) >= 8:
            assert s not in um, ('secret also unmarked in its row', row_id, s)
    return got


def build_rows():
    global CUR
    rows = []
    rid = 0
    for positive, lst in ((True, POS), (False, NEG)):
        for ti, (name, fn) in enumerate(lst):
            for j in range(5):
                rid += 1
                r = Row(positive, (ti + j) % 2 == 0)
                CUR = r
                fn(r)
                compose(r)
                text = r.text()
                secrets = check_row(rid, positive, text, r.secrets)
                rows.append({'id': rid, 'template': name, 'positive': positive, 'text': text,
                             '_secrets': secrets, '_long': r.long})
    CUR = None
    return rows


def existing_template_names():
    """Template names listed in the other sets' READMEs (kept inline so the
    script needs nothing but itself)."""
    return set(EXISTING.split())


def check_global(rows):
    owner = {}
    for row in rows:
        for s in row['_secrets']:
            if len(s) >= 8:
                assert owner.get(s, row['id']) == row['id'], ('secret reused across rows', s)
                owner[s] = row['id']
    texts = [(row['id'], row['text']) for row in rows]
    for s, rid in owner.items():
        for oid_, t in texts:
            if oid_ != rid:
                assert s not in t, ('secret appears in another row', s, rid, oid_)
    names = [n for n, _ in POS] + [n for n, _ in NEG]
    assert len(POS) == 60 and len(NEG) == 60, (len(POS), len(NEG))
    assert len(set(names)) == 120, 'duplicate template names'
    clash = sorted(set(names) & existing_template_names())
    assert not clash, ('template names already used', clash)
    assert len(rows) == 600


def main():
    rows = build_rows()
    check_global(rows)
    out = sys.stdout.buffer
    nspans = 0
    for row in rows:
        nspans += len(row['_secrets'])
        rec = {'id': row['id'], 'template': row['template'], 'positive': row['positive'], 'text': row['text']}
        out.write((json.dumps(rec, ensure_ascii=False) + '\n').encode('utf-8'))
    longp = sum(1 for x in rows if x['positive'] and x['text'].count('\n') >= 39)
    longn = sum(1 for x in rows if not x['positive'] and x['text'].count('\n') >= 39)
    sys.stderr.write('%d rows, %d marked spans, %d/%d long positive/negative rows\n' % (len(rows), nspans, longp, longn))


# ================================================================ positives: RabbitMQ, MQTT, NATS
def mq_exec(r, inner):
    k = R.choice(['', 'docker', 'kubectl'])
    if k == 'docker':
        return 'docker exec %s-rabbitmq-1 %s' % (r.proj, inner)
    if k == 'kubectl':
        return 'kubectl exec -n messaging rabbitmq-server-0 -- %s' % inner
    return 'sudo ' + inner


@pos('rabbitmqctl_add_user_change_password')
def t_rabbitmqctl(r):
    u = R.choice(['orders', 'mailer', 'celery', 'shovel', 'notify', 'ingest'])
    vh = R.choice(['/', '/orders', r.env, '/events'])
    p1 = pw()
    r.run(mq_exec(r, "rabbitmqctl add_user %s '%s'" % (u, S(p1))),
          ['Adding user "%s" ...' % u,
           "Done. Don't forget to grant the user permissions to some virtual hosts! See 'rabbitmqctl help set_permissions' to learn more."])
    r.run(mq_exec(r, "rabbitmqctl set_permissions -p %s %s '^%s\\..*' '^%s\\..*' '.*'" % (vh, u, u, u)),
          ['Setting permissions for user "%s" in vhost "%s" ...' % (u, vh)])
    if R.random() < 0.6:
        p2 = pw()
        who = R.choice(['guest', 'admin'])
        r.run(mq_exec(r, "rabbitmqctl change_password %s '%s'" % (who, S(p2))), ['Changing password for user "%s" ...' % who])
    out = ['Listing users ...', 'user\ttags']
    for x in sorted(set(['guest', 'admin', u] + R.sample(['monitoring-bot', 'federation', 'ops'], 1))):
        out.append('%s\t[%s]' % (x, 'administrator' if x in ('guest', 'admin') else R.choice(['', 'monitoring', 'management'])))
    r.run(mq_exec(r, 'rabbitmqctl list_users'), out)
    r.run(mq_exec(r, "rabbitmqctl authenticate_user %s '%s'" % (u, S(p1))), ['Authenticating user "%s" ...' % u, 'Success'])
    if r.long:
        out = ['Listing permissions for user "%s" ...' % u, 'vhost\tconfigure\twrite\tread', "%s\t^%s\\..*\t^%s\\..*\t.*" % (vh, u, u)]
        r.run(mq_exec(r, 'rabbitmqctl list_user_permissions ' + u), out)


@pos('rabbitmq_definitions_shovel_uris')
def t_rabbit_defs(r):
    old, new = 'mq-old.' + r.domain, 'mq.' + r.domain
    sp1, sp2, fp = pw('url'), pw('url'), pw('url')
    users = []
    for name, tags in (('admin', ['administrator']), ('shovel', []), ('orders', []), ('monitoring', ['monitoring'])):
        users.append('    {\n      "name": "%s",\n      "password_hash": "%s",\n      "hashing_algorithm": "rabbit_password_hashing_sha256",\n      "tags": %s,\n      "limits": {}\n    }'
                     % (name, rabbit_hash(pw()), json.dumps(tags)))
    lines = ['{', '  "rabbit_version": "3.13.2",', '  "rabbitmq_version": "3.13.2",', '  "product_name": "RabbitMQ",',
             '  "product_version": "3.13.2",', '  "users": [']
    lines += ',\n'.join(users).split('\n')
    lines += ['  ],', '  "vhosts": [', '    {', '      "name": "/",', '      "description": "Default virtual host",',
              '      "tags": [],', '      "metadata": {', '        "description": "Default virtual host",', '        "tags": []',
              '      }', '    }', '  ],', '  "permissions": [', '    {', '      "user": "shovel",', '      "vhost": "/",',
              '      "configure": "",', '      "write": ".*",', '      "read": ".*"', '    }', '  ],', '  "parameters": [', '    {',
              '      "value": {', '        "ack-mode": "on-confirm",',
              '        "dest-queue": "orders.events",', '        "dest-uri": "amqps://shovel:%s@%s:5671/%%2f",' % (S(sp2), new),
              '        "src-delete-after": "never",', '        "src-queue": "orders.events",',
              '        "src-uri": "amqps://shovel:%s@%s:5671/%%2f"' % (S(sp1), old), '      },', '      "vhost": "/",',
              '      "component": "shovel",', '      "name": "migrate-orders"', '    },', '    {', '      "value": {',
              '        "expires": 3600000,', '        "uri": "amqps://federation:%s@mq.dc2.%s:5671"' % (S(fp), r.domain),
              '      },', '      "vhost": "/",', '      "component": "federation-upstream",', '      "name": "dc2"', '    }', '  ],',
              '  "global_parameters": [', '    {', '      "name": "cluster_name",', '      "value": "rabbit@%s"' % new, '    }', '  ],',
              '  "policies": [', '    {', '      "vhost": "/",', '      "name": "ha-quorum",', '      "pattern": "^orders\\\\.",',
              '      "apply-to": "queues",', '      "definition": {', '        "delivery-limit": 20,', '        "dead-letter-exchange": "dlx"',
              '      },', '      "priority": 0', '    }', '  ],', '  "queues": [', '    {', '      "name": "orders.events",',
              '      "vhost": "/",', '      "durable": true,', '      "auto_delete": false,', '      "arguments": {',
              '        "x-queue-type": "quorum"', '      }', '    }', '  ],', '  "exchanges": [],', '  "bindings": []', '}']
    if not r.long:
        lines = lines[:lines.index('  "policies": [')] + ['  "policies": [],', '  "queues": [],', '  "exchanges": [],', '  "bindings": []', '}']
    r.run(mq_exec(r, 'rabbitmqctl export_definitions /tmp/definitions.json'), ['Exporting definitions in JSON to a file at "/tmp/definitions.json" ...'])
    r.view('/tmp/definitions.json', lines)


@pos('rabbitmqadmin_conf_erlang_cookie')
def t_rabbitadmin(r):
    p = pw('ini')
    ck = erlang_cookie()
    host = 'mq.' + r.domain
    r.view('~/.rabbitmqadmin.conf', ['[default]', 'hostname = ' + host, 'port = 15671', 'username = admin', 'password = ' + S(p),
                                     'ssl = True', 'ssl_ca_cert_file = /etc/ssl/certs/%s-ca.pem' % r.org, 'vhost = /', '',
                                     '[local]', 'hostname = localhost', 'port = 15672', 'username = guest', 'password = guest'])
    r.run('sudo cat /var/lib/rabbitmq/.erlang.cookie; echo', [S(ck)])
    r.run("rabbitmqadmin -N default list vhosts name messages",
          ['+--------+----------+', '|  name  | messages |', '+--------+----------+', '| /      | %-8d |' % R.randint(0, 9000),
           '| orders | %-8d |' % R.randint(0, 900), '+--------+----------+'])
    if r.long or R.random() < 0.5:
        out = ['RABBITMQ_ERLANG_COOKIE env variable support is deprecated and will be REMOVED in a future version. Use the $HOME/.erlang.cookie file or the --erlang-cookie switch instead.',
               'Cluster status of node rabbit@mq-0 ...', 'Basics', '', 'Cluster name: rabbit@%s' % host,
               'Total CPU cores available cluster-wide: %d' % R.choice([6, 12, 24]), '', 'Disk Nodes', '',
               'rabbit@mq-0', 'rabbit@mq-1', 'rabbit@mq-2', '', 'Running Nodes', '', 'rabbit@mq-0', 'rabbit@mq-1', 'rabbit@mq-2', '',
               'Versions', '', 'rabbit@mq-0: RabbitMQ 3.13.2 on Erlang 26.2.5', '', 'Alarms', '', '(none)']
        r.run('RABBITMQ_ERLANG_COOKIE=%s rabbitmqctl -n rabbit@mq-0 cluster_status' % S(ck), out)
    r.run('rabbitmqadmin --host=%s --port=15671 --ssl --username=admin --password=%s list users name tags' % (host, S(p)),
          ['+-----------+---------------+', '|   name    |     tags      |', '+-----------+---------------+',
           '| admin     | administrator |', '| %-9s | %-13s |' % (R.choice(['orders', 'mailer', 'celery']), ''), '+-----------+---------------+'])


@pos('celery_amqps_env_worker_banner')
def t_celery(r):
    host = 'mq.' + r.domain
    p, rp = pw('url'), pw('url')
    vh = R.choice([r.env, 'celery', 'jobs'])
    rhost = R.choice(['cache.' + r.domain, 'redis', '10.0.3.%d' % R.randint(2, 250)])
    env = ['DJANGO_SETTINGS_MODULE=config.settings.' + R.choice(['production', 'local']),
           'CELERY_BROKER_URL=amqps://celery:%s@%s:5671/%s' % (S(p), host, vh),
           'CELERY_RESULT_BACKEND=redis://:%s@%s:6379/1' % (S(rp), rhost),
           'CELERY_TASK_ALWAYS_EAGER=false', 'SENTRY_ENVIRONMENT=' + r.env]
    r.view('.env', env)
    app = r.proj.replace('-', '_')
    out = [' ', ' -------------- celery@%s v5.4.0 (opalescent)' % r.host, '--- ***** ----- ',
           '-- ******* ---- Linux-6.8.0-1012-aws-x86_64-with-glibc2.39 %s' % r.clock.sp(0), '- *** --- * --- ',
           '- ** ---------- [config]', '- ** ---------- .> app:         %s:0x7f%s' % (app, hx(10)),
           '- ** ---------- .> transport:   amqps://celery:**@%s:5671/%s' % (host, vh),
           '- ** ---------- .> results:     redis://:**@%s:6379/1' % rhost,
           '- *** --- * --- .> concurrency: %d (prefork)' % R.choice([4, 8, 16]),
           '-- ******* ---- .> task events: OFF (enable -E to monitor tasks in this worker)', '--- ***** ----- ',
           ' -------------- [queues]', '                .> celery           exchange=celery(direct) key=celery',
           '                .> emails           exchange=emails(direct) key=emails', '', '[tasks]',
           '  . %s.tasks.send_email' % app, '  . %s.tasks.send_sms' % app, '  . %s.tasks.reindex' % app, '']
    r.clock.tick()
    out += ['[%s: INFO/MainProcess] Connected to amqps://celery:**@%s:5671/%s' % (r.clock.sp(), host, vh),
            '[%s: INFO/MainProcess] mingle: searching for neighbors' % r.clock.sp(),
            '[%s: INFO/MainProcess] mingle: all alone' % r.clock.sp(),
            '[%s: INFO/MainProcess] celery@%s ready.' % (r.clock.sp(), r.host)]
    if r.long:
        for _ in range(R.randint(4, 10)):
            tid = uuid4()
            out.append('[%s: INFO/MainProcess] Task %s.tasks.send_email[%s] received' % (r.clock.sp(), app, tid))
            out.append('[%s: INFO/ForkPoolWorker-%d] Task %s.tasks.send_email[%s] succeeded in %.4fs: None' % (r.clock.sp(), R.randint(1, 8), app, tid, R.uniform(0.01, 2)))
    r.run('celery -A config worker -l info -Q celery,emails', out, ms=R.randint(5000, 20000))


@pos('mosquitto_passwd_pub_sub_session')
def t_mosquitto(r):
    u1, u2 = R.choice(['sensor-gw', 'plc-bridge', 'edge-01', 'meter-hub']), R.choice(['dashboard', 'grafana', 'node-red', 'historian'])
    p1, p2 = pw(), pw()
    r.run('sudo mosquitto_passwd -b /etc/mosquitto/passwd %s %s' % (u1, S(p1)), [])
    r.run("sudo mosquitto_passwd -b /etc/mosquitto/passwd %s '%s'" % (u2, S(p2)), [])
    out = ['%s:%s' % (u, mosq_hash(pw())) for u in ('admin',)] + ['%s:%s' % (u1, mosq_hash(p1)), '%s:%s' % (u2, mosq_hash(p2))]
    r.run('sudo cat /etc/mosquitto/passwd', out)
    r.run('sudo systemctl reload mosquitto', [])
    host = 'mqtt.' + r.domain
    topic = R.choice(['plant/line1/temp', 'site/%s/meter/power' % r.env, 'fleet/truck-17/gps', 'home/boiler/state'])
    msg = json.dumps({'v': round(R.uniform(10, 90), 2), 'ts': r.clock.epoch()}, separators=(',', ':'))
    r.run("mosquitto_pub -h %s -p 8883 --cafile /etc/mosquitto/certs/ca.crt -u %s -P '%s' -t '%s' -m '%s' -q 1 -d" % (host, u1, S(p1), topic, msg),
          ['Client null sending CONNECT', 'Client null received CONNACK (0)',
           "Client null sending PUBLISH (d0, q1, r0, m1, '%s', ... (%d bytes))" % (topic, len(msg)),
           'Client null received PUBACK (Mid: 1, RC:0)', 'Client null sending DISCONNECT'])
    out = []
    for _ in range(R.randint(2, 6)):
        r.clock.tick(1, 5)
        out.append('%s %s' % (topic, json.dumps({'v': round(R.uniform(10, 90), 2), 'ts': r.clock.epoch()}, separators=(',', ':'))))
    r.run("mosquitto_sub -h %s -p 8883 --cafile /etc/mosquitto/certs/ca.crt -u %s -P %s -t '%s' -v -C %d" % (host, u2, S(p2), topic.split('/')[0] + '/#', len(out)), out)


@pos('nats_creds_file_nsc_generate')
def t_nats_creds(r):
    op, acct, usr = nkey_pair('O'), nkey_pair('A'), nkey_pair('U')
    an = R.choice(['ORDERS', 'APP', 'TELEMETRY', 'NOTIFY'])
    un = R.choice(['orders-svc', 'mailer', 'edge-gw', 'ingest'])
    on = R.choice(['OP', 'acme-op', 'prod-op'])
    iat = r.clock.epoch()
    claims = {'jti': '', 'iat': iat, 'iss': acct['pub'], 'name': un, 'sub': usr['pub'],
              'nats': {'pub': {}, 'sub': {}, 'subs': -1, 'data': -1, 'payload': -1, 'type': 'user', 'version': 2}}
    jwt = nats_jwt(acct, claims)
    path = '~/.local/share/nats/nsc/keys/creds/%s/%s/%s.creds' % (on, an, un)
    r.run('nsc add user --account %s --name %s' % (an, un),
          ['[ OK ] generated and stored user key "%s"' % usr['pub'],
           '[ OK ] generated user creds file `%s`' % path,
           '[ OK ] added user "%s" to account "%s"' % (un, an)])
    lines = ['-----BEGIN NATS USER JWT-----', jwt, '------END NATS USER JWT------', '',
             '************************* IMPORTANT *************************',
             'NKEY Seed printed below can be used to sign and prove identity.',
             'NKEYs are sensitive and should be treated as secrets.', '',
             '-----BEGIN USER NKEY SEED-----', S(usr['seed']), '------END USER NKEY SEED------', '',
             '*************************************************************']
    r.view(path, lines)
    if r.long or R.random() < 0.5:
        kv = (('Name', un), ('User ID', usr['pub']), ('Issuer ID', acct['pub']), ('Issued', r.clock.sp(0) + ' UTC'),
              ('Expires', ''), ('Bearer Token', 'No'), ('Response Permissions', 'Not Set'), ('Max Msg Payload', 'Unlimited'))
        vw = max(len(v) for _, v in kv)
        tw = 22 + 1 + vw + 2
        out = ['╭' + '─' * tw + '╮', '│' + 'User'.center(tw) + '│', '├' + '─' * 22 + '┬' + '─' * (vw + 2) + '┤']
        for k, v in kv:
            out.append('│ %-20s │ %s │' % (k, v.ljust(vw)))
        out.append('╰' + '─' * 22 + '┴' + '─' * (vw + 2) + '╯')
        r.run('nsc describe user --account %s --name %s' % (an, un), out)
    r.run('nats --creds %s --server tls://nats.%s:4222 pub orders.created \'{"id":"%s"}\'' % (path, r.domain, oid(r.clock.epoch())),
          ['%s Published %d bytes to "orders.created"' % (r.clock.hms(), R.randint(30, 40))])


@pos('nats_server_conf_users_context')
def t_nats_conf(r):
    p1, p2, rp = pw('plain'), pw('plain'), pw('url')
    u = R.choice(['orders', 'ingest', 'api'])
    nk = nkey_pair('U')
    lines = ['server_name: nats-0', 'port: 4222', 'http_port: 8222', '', 'tls {',
             '  cert_file: "/etc/nats/certs/server.pem"', '  key_file:  "/etc/nats/certs/server-key.pem"',
             '  ca_file:   "/etc/nats/certs/ca.pem"', '}', '', 'authorization {', '  users = [',
             '    { user: "%s", password: "%s", permissions: { publish: "%s.>", subscribe: ["_INBOX.>", "%s.>"] } }' % (u, S(p1), u, u),
             '    { user: "metrics", password: "%s" }' % bcrypt_like(11, '2a'),
             '    { user: "admin", password: "%s" }' % S(p2),
             '    { nkey: "%s", permissions: { subscribe: "telemetry.>" } }' % nk['pub'], '  ]', '}', '',
             'cluster {', '  name: c1', '  listen: 0.0.0.0:6222', '  authorization {', '    user: route',
             '    password: %s' % S(rp), '    timeout: 2', '  }', '  routes = [',
             '    nats-route://route:%s@nats-1.nats:6222' % S(rp), '    nats-route://route:%s@nats-2.nats:6222' % S(rp), '  ]', '}',
             '', 'jetstream {', '  store_dir: /data/jetstream', '  max_mem: 1G', '  max_file: 20G', '}']
    r.view('deploy/nats/nats-server.conf', lines)
    r.run('nats context save %s --server tls://nats.%s:4222 --user %s --password \'%s\' --select' % (r.env, r.domain, u, S(p1)),
          ['NATS Configuration Context "%s"' % r.env, '', '      Server URLs: tls://nats.%s:4222' % r.domain,
           '         Username: %s' % u, '         Password: %s' % ('*' * len(p1)),
           '             Path: %s/.config/nats/context/%s.json' % (r.cwd.rsplit('/', 2)[0], r.env), '', '      Connection: OK'])
    if R.random() < 0.6:
        r.run('cat ~/.config/nats/context/%s.json' % r.env,
              ['{', '  "description": "",', '  "url": "tls://nats.%s:4222",' % r.domain, '  "socks_proxy": "",', '  "token": "",',
               '  "user": "%s",' % u, '  "password": "%s",' % S(p1), '  "creds": "",', '  "nkey": "",', '  "cert": "",', '  "key": "",',
               '  "ca": "",', '  "nsc": "",', '  "jetstream_domain": "",', '  "jetstream_api_prefix": "",', '  "jetstream_event_prefix": "",',
               '  "inbox_prefix": "",', '  "user_jwt": "",', '  "color_scheme": "",', '  "tls_first": false', '}'])


# ================================================================ positives: Redis, Memcached
@pos('redis_cli_auth_acl_setuser_session')
def t_redis_acl(r):
    host = R.choice(['cache.' + r.domain, 'redis-master.data.svc', '127.0.0.1', 'master.%s-redis.%s.cache.amazonaws.com' % (r.env, lc(6))])
    port = R.choice([6379, 6380])
    pr = '%s:%d> ' % (host, port)
    dp, wp = pw(), pw()
    wu = R.choice(['worker', 'sessions', 'ratelimiter', 'queue'])
    pat = R.choice(['jobs:*', 'sess:*', 'rl:*', 'bull:*'])
    out = [pr + 'AUTH default ' + S(dp), 'OK',
           pr + 'ACL SETUSER %s on >%s ~%s &%s +@read +@write +@stream -@dangerous' % (wu, S(wp), pat, pat), 'OK',
           pr + 'ACL LIST',
           '1) "user default on sanitize-payload #%s ~* &* +@all"' % sha256_hex(dp),
           '2) "user %s on sanitize-payload #%s ~%s &%s -@all +@write +@read +@stream -@dangerous"' % (wu, sha256_hex(wp), pat, pat),
           pr + 'ACL GETUSER ' + wu, ' 1) "flags"', ' 2) 1) "on"', '    2) "sanitize-payload"', ' 3) "passwords"',
           ' 4) 1) "%s"' % hashlib.sha256(wp.encode()).hexdigest(), ' 5) "commands"', ' 6) "-@all +@write +@read +@stream -@dangerous"',
           ' 7) "keys"', ' 8) "~%s"' % pat, ' 9) "channels"', '10) "&%s"' % pat, '11) "selectors"', '12) (empty array)',
           pr + 'ACL SAVE', 'OK', pr + 'quit']
    r.run('redis-cli -h %s -p %d%s' % (host, port, ' --tls' if port == 6380 else ''), out)
    if r.long or R.random() < 0.5:
        r.run('REDISCLI_AUTH=%s redis-cli -h %s -p %d%s --user %s PING' % (S(wp), host, port, ' --tls' if port == 6380 else '', wu) if R.random() < 0.5 else
              'redis-cli -h %s -p %d%s --user %s --pass %s PING' % (host, port, ' --tls' if port == 6380 else '', wu, S(wp)),
              ['PONG'] if R.random() < 0.5 else ['Warning: Using a password with \'-a\' or \'-u\' option on the command line interface may not be safe.', 'PONG'])


def resp(*args):
    parts = ['*%d' % len(args)]
    for a in args:
        raw = a.replace(LM, '').replace(RM, '')
        parts += ['$%d' % len(raw), a]
    return parts


@pos('redis_resp_capture_auth_hello')
def t_redis_resp(r):
    p = pw()
    u = R.choice(['default', 'app', 'worker'])
    k = R.choice(['socat', 'strace'])
    if k == 'socat':
        r.say('I\'ll put a socat proxy in front of Redis to see what the client actually sends.')
        out = []
        r.clock.tick()
        y, mo, d, h, mi, s, _ = civil(r.clock.s)
        stamp = lambda: '%04d/%02d/%02d %02d:%02d:%02d.%06d' % (y, mo, d, h, mi, s, R.randrange(10 ** 6))
        if R.random() < 0.5:
            cmd = resp('HELLO', '3', 'AUTH', u, S(p), 'SETNAME', r.proj)
        else:
            cmd = resp('AUTH', u, S(p))
        raw = ''.join(x.replace(LM, '').replace(RM, '') + '\r\n' for x in cmd)
        out.append('> %s  length=%d from=0 to=%d' % (stamp(), len(raw), len(raw) - 1))
        out += [x + '\\r' for x in cmd]
        if cmd[1] == '$5':
            reply = ['%7', '$6', 'server', '$5', 'redis', '$7', 'version', '$5', '7.2.5', '$5', 'proto', ':3', '$2', 'id', ':%d' % R.randint(10, 9999), '$4', 'mode', '$10', 'standalone', '$4', 'role', '$6', 'master', '$7', 'modules', '*0']
        else:
            reply = ['+OK']
        rr = ''.join(x + '\r\n' for x in reply)
        out.append('< %s  length=%d from=0 to=%d' % (stamp(), len(rr), len(rr) - 1))
        out += [x + '\\r' for x in reply]
        cmd2 = resp('GET', 'sess:' + hx(32))
        raw2 = ''.join(x + '\r\n' for x in cmd2)
        out.append('> %s  length=%d from=%d to=%d' % (stamp(), len(raw2), len(raw), len(raw) + len(raw2) - 1))
        out += [x + '\\r' for x in cmd2]
        out += ['< %s  length=5 from=%d to=%d' % (stamp(), len(rr), len(rr) + 4), '$-1\\r']
        r.run('socat -v TCP-LISTEN:6390,reuseaddr,fork TCP:%s:6379' % R.choice(['redis', '127.0.0.1', 'cache.internal']), out, desc='!interrupted')
    else:
        pid = R.randint(2000, 90000)
        cmd = resp('AUTH', u, S(p))
        esc = '\\r\\n'.join(cmd) + '\\r\\n'
        n = len(''.join(x.replace(LM, '').replace(RM, '') + '\r\n' for x in cmd))
        out = ['strace: Process %d attached' % pid,
               'connect(7, {sa_family=AF_INET, sin_port=htons(6379), sin_addr=inet_addr("10.0.%d.%d")}, 16) = -1 EINPROGRESS (Operation now in progress)' % (R.randint(0, 9), R.randint(2, 250)),
               'sendto(%d, "%s", %d, MSG_NOSIGNAL, NULL, 0) = %d' % (7, esc, n, n),
               'recvfrom(7, "-WRONGPASS invalid username-password pair or user is disabled.\\r\\n", 65536, 0, NULL, NULL) = 67' if R.random() < 0.5 else 'recvfrom(7, "+OK\\r\\n", 65536, 0, NULL, NULL) = 5',
               'sendto(7, "*2\\r\\n$4\\r\\nPING\\r\\n", 14, MSG_NOSIGNAL, NULL, 0) = 14', 'recvfrom(7, "+PONG\\r\\n", 65536, 0, NULL, NULL) = 7']
        r.run('sudo strace -f -e trace=connect,sendto,recvfrom -s 256 -p %d' % pid, out, desc='!interrupted')
    if r.long:
        r.run('redis-cli -h redis MONITOR | head -n 4',
              ['OK', '%d.%06d [0 10.0.4.%d:%d] "AUTH" "(redacted)"' % (r.clock.epoch(), R.randrange(10 ** 6), R.randint(2, 250), R.randint(30000, 60000)),
               '%d.%06d [0 10.0.4.%d:%d] "CLIENT" "SETINFO" "lib-name" "redis-py"' % (r.clock.epoch(), R.randrange(10 ** 6), R.randint(2, 250), R.randint(30000, 60000)),
               '%d.%06d [0 10.0.4.%d:%d] "GET" "sess:%s"' % (r.clock.epoch(), R.randrange(10 ** 6), R.randint(2, 250), R.randint(30000, 60000), hx(32))])


@pos('redis_config_get_requirepass_sentinel')
def t_redis_config(r):
    p = pw()
    host = R.choice(['redis-0.redis', '10.0.2.%d' % R.randint(2, 250), 'cache.' + r.domain])
    warn = 'Warning: Using a password with \'-a\' or \'-u\' option on the command line interface may not be safe.'
    r.run('redis-cli -h %s -a \'%s\' CONFIG GET requirepass' % (host, S(p)), [warn, '1) "requirepass"', '2) "%s"' % S(p)])
    r.run('redis-cli -h %s -a \'%s\' --no-auth-warning CONFIG GET masterauth' % (host, S(p)), ['1) "masterauth"', '2) "%s"' % S(p)])
    myid = hx(40)
    out = ['deploy/redis/sentinel.conf:3:sentinel monitor mymaster %s 6379 2' % host,
           'deploy/redis/sentinel.conf:4:sentinel auth-pass mymaster %s' % S(p),
           'deploy/redis/sentinel.conf:5:sentinel auth-user mymaster default',
           'deploy/redis/sentinel.conf:9:sentinel myid %s' % myid,
           'deploy/redis/redis.conf:512:requirepass %s' % S(p),
           'deploy/redis/redis.conf:513:masterauth %s' % S(p),
           'deploy/redis/values.yaml:14:  existingSecret: redis-auth',
           'deploy/redis/values.yaml:15:  existingSecretPasswordKey: redis-password']
    r.run("rg -n 'auth-pass|requirepass|masterauth|myid|existingSecret' deploy/redis", out)
    if r.long:
        out = ['# Server', 'redis_version:7.2.5', 'redis_git_sha1:00000000', 'redis_mode:standalone', 'os:Linux 6.1.0-21-amd64 x86_64',
               'arch_bits:64', 'process_id:%d' % R.randint(1, 900), 'run_id:%s' % hx(40), 'tcp_port:6379',
               'uptime_in_seconds:%d' % R.randint(1000, 9000000), 'executable:/usr/local/bin/redis-server', 'config_file:/etc/redis/redis.conf']
        r.run('redis-cli -h %s -a \'%s\' --no-auth-warning INFO server' % (host, S(p)), out)


@pos('memcached_sasl_pwdb_client_conf')
def t_memcached(r):
    p1, p2 = pw('yaml'), pw()
    host = 'cache-%d.%s' % (R.randint(1, 3), r.domain)
    r.run('cat /etc/sysconfig/memcached', ['PORT="11211"', 'USER="memcached"', 'MAXCONN="2048"', 'CACHESIZE="%d"' % R.choice([1024, 2048, 4096]),
                                           'OPTIONS="-S -l 0.0.0.0 -o modern"'])
    r.run('cat /etc/sasl2/memcached.conf', ['mech_list: plain', 'log_level: 5', 'sasl_pwdb: /etc/sasl2/memcached-sasl-pwdb'])
    r.run('sudo cat /etc/sasl2/memcached-sasl-pwdb', ['app:' + S(p1), 'sessions:' + S(p2)])
    if R.random() < 0.5:
        r.view('config/cache.yml', ['production:', '  servers: "%s:11211"' % host, '  username: app', '  password: ' + S(p1),
                                    '  namespace: %s' % r.proj, '  compress: true', '  expires_in: 3600'])
    else:
        r.view('app/settings/cache.py', ['CACHES = {', '    "default": {', '        "BACKEND": "django_bmemcached.memcached.BMemcached",',
                                         '        "LOCATION": "%s:11211",' % host, '        "OPTIONS": {', '            "username": "app",',
                                         '            "password": "%s",' % S(p1), '        },', '    }', '}'])
    out = ['Server: %s (11211)' % host, '\t pid: %d' % R.randint(200, 9000), '\t uptime: %d' % R.randint(1000, 900000),
           '\t version: 1.6.27', '\t curr_connections: %d' % R.randint(2, 90), '\t get_hits: %d' % R.randint(1000, 9999999),
           '\t get_misses: %d' % R.randint(10, 99999)]
    r.run('memcstat --servers=%s --binary --username=app --password=%s' % (host, S(p1)), out)


# ================================================================ positives: SMTP, IMAP, mail APIs
def brevo_key():
    return fresh(lambda: 'xsmtpsib-' + rs(HEX, 64) + '-' + rs(AN, 16))


def mailgun_smtp_pw():
    return fresh(lambda: rs(HEX, 32) + '-' + rs(HEX, 8) + '-' + rs(HEX, 8))


def gmail_app_pw():
    return fresh(lambda: rs('abcdefghijklmnopqrstuvwxyz', 16))


def smtp_provider(r, kinds=None):
    k = R.choice(kinds or ['sendgrid', 'mailgun', 'ses', 'postmark', 'own', 'brevo', 'gmail'])
    d = {'kind': k, 'user_secret': False, 'port': 587}
    if k == 'sendgrid':
        d.update(host='smtp.sendgrid.net', user='apikey', pw=sendgrid_key(),
                 banner='220 SG ESMTP service ready at ismtpd%04dp1mdw1.sendgrid.net' % R.randint(1, 60), auth='AUTH PLAIN LOGIN')
    elif k == 'mailgun':
        dom = 'mg.' + r.domain
        d.update(host=R.choice(['smtp.mailgun.org', 'smtp.eu.mailgun.org']), user='postmaster@' + dom, pw=mailgun_smtp_pw(),
                 banner='220 Mailgun Influx ready', auth='AUTH PLAIN LOGIN')
    elif k == 'ses':
        d.update(host='email-smtp.%s.amazonaws.com' % r.region, user=aws_key_id(), pw=ses_smtp_pw(),
                 banner='220 email-smtp.amazonaws.com ESMTP SimpleEmailService-d-%s' % rs(UP + DG, 20), auth='AUTH PLAIN LOGIN')
    elif k == 'postmark':
        t = uuid4()
        d.update(host='smtp.postmarkapp.com', user=t, pw=t, user_secret=True,
                 banner='220 smtp.postmarkapp.com ESMTP Postmark', auth='AUTH CRAM-MD5 PLAIN LOGIN')
    elif k == 'brevo':
        d.update(host='smtp-relay.brevo.com', user='%s@%s' % (R.choice(['ops', 'noreply', r.user]), r.domain), pw=brevo_key(),
                 banner='220 smtp-relay.brevo.com ESMTP Service Ready', auth='AUTH LOGIN PLAIN CRAM-MD5')
    elif k == 'gmail':
        d.update(host='smtp.gmail.com', user='%s.alerts@gmail.com' % r.org.replace('-', ''), pw=gmail_app_pw(),
                 banner='220 smtp.gmail.com ESMTP %s.%d - gsmtp' % (rs(LO + DG, 18), R.randint(10, 999)), auth='AUTH LOGIN PLAIN XOAUTH2 PLAIN-CLIENTTOKEN OAUTHBEARER XOAUTH')
    else:
        d.update(host='smtp.' + r.domain, user='%s@%s' % (R.choice(['alerts', 'noreply', 'billing']), r.domain), pw=pw(),
                 banner='220 smtp.%s ESMTP Postfix (Debian/GNU)' % r.domain, auth='AUTH PLAIN LOGIN')
    return d


def plain_blob(user, password):
    return regd(b64(('\0%s\0%s' % (user, password)).encode()))


def mid(r, host=None):
    y, mo, d, h, mi, s, _ = civil(r.clock.s)
    return '<%04d%02d%02d%02d%02d%02d.%06d@%s>' % (y, mo, d, h, mi, s, R.randrange(10 ** 6), host or r.host)


def pf_qid():
    return fresh(lambda: rs('0123456789BCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz', R.choice([12, 13, 14])))


@pos('swaks_auth_login_tls_transcript')
def t_swaks(r):
    p = smtp_provider(r)
    frm, to = 'noreply@' + r.domain, '%s@%s' % (r.user, r.domain)
    who = S(p['user']) if p['user_secret'] else p['user']
    cmd = 'swaks --to %s --from %s --server %s:%d --tls --auth LOGIN --auth-user %s --auth-password \'%s\'' % (to, frm, p['host'], p['port'], who, S(p['pw']))
    pb = regd(b64(p['pw'].encode()))
    ub = pb if p['user'] == p['pw'] else b64(p['user'].encode())
    eh = ['%s-%s' % ('250', p['host']), '250-8BITMIME', '250-PIPELINING', '250-SIZE 31457280', '250-STARTTLS', '250-' + p['auth'], '250 ENHANCEDSTATUSCODES']
    out = ['=== Trying %s:%d...' % (p['host'], p['port']), '=== Connected to %s.' % p['host'], '<-  ' + p['banner'], ' -> EHLO ' + r.host]
    out += ['<-  ' + x for x in eh]
    out += [' -> STARTTLS', '<-  220 2.0.0 Ready to start TLS', '=== TLS started with cipher TLSv1.3:TLS_AES_256_GCM_SHA384:256',
            '=== TLS no local certificate set', '=== TLS peer DN="/CN=%s"' % p['host'], ' ~> EHLO ' + r.host]
    out += ['<~  ' + x for x in eh if 'STARTTLS' not in x]
    out += [' ~> AUTH LOGIN', '<~  334 VXNlcm5hbWU6', ' ~> ' + (S(ub) if p['user_secret'] else ub), '<~  334 UGFzc3dvcmQ6',
            ' ~> ' + S(pb), '<~  235 2.7.0 Authentication successful',
            ' ~> MAIL FROM:<%s>' % frm, '<~  250 2.1.0 Sender OK', ' ~> RCPT TO:<%s>' % to, '<~  250 2.1.5 Recipient OK',
            ' ~> DATA', '<~  354 Start mail input; end with <CRLF>.<CRLF>', ' ~> Date: ' + r.clock.rfc2822(), ' ~> To: ' + to,
            ' ~> From: ' + frm, ' ~> Subject: test ' + r.clock.rfc2822(), ' ~> Message-Id: ' + mid(r),
            ' ~> X-Mailer: swaks v20240103.0 jetmore.org/john/code/swaks/', ' ~> ', ' ~> This is a test mailing', ' ~> ', ' ~> ', ' ~> .',
            '<~  250 2.0.0 Ok: queued as ' + pf_qid(), ' ~> QUIT', '<~  221 2.0.0 Bye', '=== Connection closed with remote host.']
    r.run(cmd, out, ms=R.randint(900, 4000))


@pos('openssl_s_client_smtp_auth_plain')
def t_s_client(r):
    p = smtp_provider(r, ['sendgrid', 'ses', 'own', 'mailgun', 'brevo'])
    blob = plain_blob(p['user'], p['pw'])
    r.run("printf '\\0%%s\\0%%s' '%s' '%s' | base64 -w0; echo" % (p['user'], S(p['pw'])), [S(blob)])
    frm = 'alerts@' + r.domain
    out = ['depth=2 C = US, O = Internet Security Research Group, CN = ISRG Root X1', 'verify return:1',
           "depth=1 C = US, O = Let's Encrypt, CN = R11", 'verify return:1', 'depth=0 CN = ' + p['host'], 'verify return:1',
           '250 CHUNKING', 'EHLO ' + r.host, '250-%s Hello %s [203.0.113.%d]' % (p['host'], r.host, R.randint(2, 250)),
           '250-SIZE 52428800', '250-8BITMIME', '250-PIPELINING', '250-' + p['auth'], '250 HELP',
           'AUTH PLAIN ' + S(blob), '235 2.7.0 Authentication successful', 'MAIL FROM:<%s>' % frm, '250 2.1.0 Ok',
           'RCPT TO:<%s@%s>' % (r.user, r.domain), '250 2.1.5 Ok', 'QUIT', '221 2.0.0 Bye']
    r.run('openssl s_client -connect %s:587 -starttls smtp -crlf -quiet' % p['host'], out, ms=R.randint(4000, 60000))


@pos('postfix_sasl_passwd_postmap_relay')
def t_postfix(r):
    a = smtp_provider(r, ['sendgrid', 'mailgun', 'brevo', 'own'])
    b = smtp_provider(r, ['ses', 'postmark'])
    lines = ['# relay credentials — chmod 600, run postmap after editing',
             '[%s]:587 %s:%s' % (a['host'], a['user'], S(a['pw'])),
             '#[%s]:587 %s:%s' % (b['host'], S(b['user']) if b['user_secret'] else b['user'], S(b['pw']))]
    if R.random() < 0.4:
        r.say('postmap keeps failing the lookup; checking the file for stray carriage returns.')
        r.run('sudo cat -A /etc/postfix/sasl_passwd', [cat_A(x)[:-1] + '^M$' for x in lines])
        r.run("sudo sed -i 's/\\r$//' /etc/postfix/sasl_passwd", [])
    else:
        r.run('sudo cat /etc/postfix/sasl_passwd', lines)
    r.run('sudo postmap /etc/postfix/sasl_passwd && sudo chmod 600 /etc/postfix/sasl_passwd /etc/postfix/sasl_passwd.db', [])
    r.run("postconf -n | grep -E 'relayhost|sasl|tls_security'",
          ['relayhost = [%s]:587' % a['host'], 'smtp_sasl_auth_enable = yes', 'smtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd',
           'smtp_sasl_security_options = noanonymous', 'smtp_tls_security_level = encrypt'])
    r.run("sudo postmap -q '[%s]:587' /etc/postfix/sasl_passwd" % a['host'], ['%s:%s' % (a['user'], S(a['pw']))])
    out = []
    for _ in range(R.randint(3, 9) if r.long else 3):
        r.clock.tick(1, 40)
        q = pf_qid()
        pid = R.randint(1000, 90000)
        out.append('%s %s postfix/qmgr[%d]: %s: from=<alerts@%s>, size=%d, nrcpt=1 (queue active)' % (r.clock.syslog(), r.host, R.randint(900, 999), q, r.domain, R.randint(900, 90000)))
        out.append('%s %s postfix/smtp[%d]: %s: to=<%s@%s>, relay=%s[%d.%d.%d.%d]:587, delay=%.2f, delays=0.01/0.02/0.4/0.3, dsn=2.0.0, status=sent (250 Ok: queued as %s)' % (
            r.clock.syslog(), r.host, pid, q, R.choice(['ops', 'billing', r.user]), R.choice(['gmail.com', 'outlook.com', r.domain]), a['host'],
            R.randint(3, 200), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254), R.uniform(0.3, 3), fresh(rs, AN + '-_', 22)))
    r.run('sudo tail -n %d /var/log/mail.log' % len(out), out)


@pos('imap_login_openssl_session')
def t_imap(r):
    gmail = R.random() < 0.35
    if gmail:
        host, user, p = 'imap.gmail.com', '%s.alerts@gmail.com' % r.org.replace('-', ''), gmail_app_pw()
        spaced = ' '.join(wrap(p, 4))
        login = 'a1 LOGIN %s "%s"' % (user, S(spaced))
        greet = '* OK Gimap ready for requests from 203.0.113.%d %s' % (R.randint(2, 250), rs(LO + DG, 12) + 'qkb.' + str(R.randint(10, 99)))
        okl = 'a1 OK %s authenticated (Success)' % user
    else:
        host, user, p = 'imap.' + r.domain, '%s@%s' % (R.choice(['bounces', 'alerts', 'support', 'dmarc']), r.domain), pw()
        login = 'a1 LOGIN %s %s' % (user, S(p))
        greet = '* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ AUTH=PLAIN] Dovecot (Ubuntu) ready.'
        okl = 'a1 OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE SORT SORT=DISPLAY THREAD=REFERENCES MULTIAPPEND UNSELECT CHILDREN NAMESPACE UIDPLUS LIST-EXTENDED I18NLEVEL=1 CONDSTORE QRESYNC ESEARCH SPECIAL-USE] Logged in'
    n = R.randint(3, 900)
    out = ['depth=2 C = US, O = Google Trust Services LLC, CN = GTS Root R1' if gmail else 'depth=2 C = US, O = Internet Security Research Group, CN = ISRG Root X1',
           'verify return:1', 'depth=1 C = US, O = Google Trust Services, CN = WR2' if gmail else "depth=1 C = US, O = Let's Encrypt, CN = R10",
           'verify return:1', 'depth=0 CN = ' + host, 'verify return:1', greet, login, okl, 'a2 SELECT INBOX',
           '* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)', '* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft \\*)] Flags permitted.',
           '* %d EXISTS' % n, '* 0 RECENT', '* OK [UIDVALIDITY %d] UIDs valid' % R.randint(1500000000, 1720000000),
           '* OK [UIDNEXT %d] Predicted next UID' % (n + R.randint(1, 99)), 'a2 OK [READ-WRITE] INBOX selected. (Success)' if gmail else 'a2 OK [READ-WRITE] Select completed (0.002 + 0.000 + 0.001 secs).']
    if r.long:
        out.append('a3 FETCH %d:%d (UID FLAGS BODY.PEEK[HEADER.FIELDS (FROM SUBJECT MESSAGE-ID)])' % (n - 2, n))
        for i in range(3):
            r.clock.tick(60, 4000)
            h = 'From: Mail Delivery System <MAILER-DAEMON@%s>\r\nSubject: Undelivered Mail Returned to Sender\r\nMessage-Id: %s\r\n\r\n' % (r.domain, mid(r, r.domain))
            out.append('* %d FETCH (UID %d FLAGS () BODY[HEADER.FIELDS (FROM SUBJECT MESSAGE-ID)] {%d}' % (n - 2 + i, R.randint(1000, 90000), len(h)))
            out += h.replace('\r\n', '\n').rstrip('\n').split('\n') + ['', ')']
        out.append('a3 OK Fetch completed (0.001 + 0.000 secs).')
    t = 'a4' if r.long else 'a3'
    out += [t + ' LOGOUT', '* BYE Logging out', t + ' OK Logout completed (0.001 + 0.000 secs).']
    r.run('openssl s_client -connect %s:993 -crlf -quiet' % host, out, ms=R.randint(5000, 90000))


@pos('curl_smtps_verbose_auth_plain')
def t_curl_smtp(r):
    p = smtp_provider(r, ['own', 'sendgrid', 'mailgun', 'brevo', 'gmail'])
    frm, to = 'alerts@' + r.domain, '%s@%s' % (r.user, r.domain)
    blob = plain_blob(p['user'], p['pw'])
    ip = '%d.%d.%d.%d' % (R.randint(3, 200), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254))
    size = R.randint(300, 900)
    out = ['*   Trying %s:465...' % ip, '* Connected to %s (%s) port 465' % (p['host'], ip),
           '* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS', '* Server certificate:',
           '*  subject: CN=' + p['host'], '*  SSL certificate verify ok.', '< ' + p['banner'], '> EHLO mail.txt',
           '< 250-' + p['host'], '< 250-PIPELINING', '< 250-SIZE 10240000', '< 250-' + p['auth'], '< 250 8BITMIME',
           '> AUTH PLAIN ' + S(blob), '< 235 2.7.0 Authentication successful', '> MAIL FROM:<%s> SIZE=%d' % (frm, size),
           '< 250 2.1.0 Ok', '> RCPT TO:<%s>' % to, '< 250 2.1.5 Ok', '> DATA', '< 354 End data with <CR><LF>.<CR><LF>',
           '} [%d bytes data]' % size, '* We are completely uploaded and fine', '< 250 2.0.0 Ok: queued as ' + pf_qid(),
           '> QUIT', '< 221 2.0.0 Bye', '* Closing connection']
    r.run("curl -v --ssl-reqd --url 'smtps://%s:465' --mail-from %s --mail-rcpt %s --user '%s:%s' -T mail.txt" % (
        p['host'], frm, to, p['user'], S(p['pw'])), out)


@pos('sendgrid_api_keys_create_response')
def t_sendgrid(r):
    admin = sendgrid_key()
    newk = sendgrid_key()
    kid = newk.split('.')[1]
    name = '%s-%s' % (r.proj, r.env)
    body = ['{', '  "api_key": "%s",' % S(newk), '  "api_key_id": "%s",' % kid, '  "name": "%s",' % name, '  "scopes": [',
            '    "mail.send",', '    "sender_verification_eligible",', '    "2fa_required"', '  ]', '}']
    r.run("curl -s -X POST https://api.sendgrid.com/v3/api_keys -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' -d '{\"name\":\"%s\",\"scopes\":[\"mail.send\"]}' | jq" % (S(admin), name), body)
    msgid = fresh(rs, AN + '-_', 22)
    out = ['HTTP/2 202', 'server: nginx', 'date: ' + r.clock.rfc2822().replace('+0000', 'GMT'), 'content-length: 0',
           'x-message-id: ' + msgid, 'access-control-allow-origin: https://sendgrid.api-docs.io',
           'access-control-allow-methods: POST', 'strict-transport-security: max-age=600; includeSubDomains']
    tmpl = 'd-' + hx(32)
    r.run("curl -si https://api.sendgrid.com/v3/mail/send -H \"Authorization: Bearer %s\" -H 'Content-Type: application/json' -d '{\"template_id\":\"%s\",\"from\":{\"email\":\"noreply@%s\"},\"personalizations\":[{\"to\":[{\"email\":\"%s@%s\"}]}]}'" % (
        S(newk), tmpl, r.domain, r.user, r.domain), out)
    if r.long or R.random() < 0.5:
        r.run('gh secret set SENDGRID_API_KEY --env %s --body "%s"' % (r.env, S(newk)),
              ['✓ Set Actions secret SENDGRID_API_KEY for %s/%s' % (r.org, r.proj)])


@pos('mailgun_smtp_credentials_api')
def t_mailgun(r):
    key = mailgun_key()
    dom = 'mg.' + r.domain
    base = R.choice(['https://api.mailgun.net', 'https://api.eu.mailgun.net'])
    items = []
    for lg in ('postmaster', 'alerts'):
        items.append('    {\n      "size_bytes": 0,\n      "created_at": "%s",\n      "mailbox": "%s@%s",\n      "login": "%s@%s"\n    }' % (r.clock.rfc2822().replace('+0000', 'GMT'), lg, dom, lg, dom))
    body = ['{', '  "total_count": 2,', '  "items": ['] + ',\n'.join(items).split('\n') + ['  ]', '}']
    r.run("curl -s --user 'api:%s' %s/v3/domains/%s/credentials | jq" % (S(key), base, dom), body)
    np_ = pw()
    r.run("curl -s --user 'api:%s' %s/v3/domains/%s/credentials -F login='notify@%s' -F password='%s'" % (S(key), base, dom, dom, S(np_)),
          ['{"message": "Created 1 credentials pair(s)"}'])
    m = mid(r, dom)
    r.run("curl -s --user 'api:%s' %s/v3/%s/messages -F from='Notify <notify@%s>' -F to=%s@%s -F subject='relay test' -F text='ok'" % (
        S(key), base, dom, dom, r.user, r.domain), ['{"id":"%s","message":"Queued. Thank you."}' % m])
    if r.long:
        sk = hx(32)
        r.view('.env.production', ['MAILGUN_DOMAIN=' + dom, 'MAILGUN_API_KEY=' + S(key), 'MAILGUN_BASE_URL=' + base,
                                   'MAILGUN_WEBHOOK_SIGNING_KEY=' + S(sk), 'SMTP_HOST=smtp.mailgun.org', 'SMTP_USER=notify@' + dom,
                                   'SMTP_PASSWORD=' + S(np_), 'MAIL_FROM="Notify <notify@%s>"' % dom])


@pos('postmark_server_token_smtp_env')
def t_postmark(r):
    st, at = uuid4(), uuid4()
    env = ['POSTMARK_SERVER_TOKEN=' + S(st), 'POSTMARK_ACCOUNT_TOKEN=' + S(at), 'POSTMARK_MESSAGE_STREAM=outbound',
           'SMTP_HOST=smtp.postmarkapp.com', 'SMTP_PORT=587', 'SMTP_USER=' + S(st), 'SMTP_PASS=' + S(st),
           'MAIL_FROM=notifications@' + r.domain]
    r.run("printenv | grep -E '^(POSTMARK|SMTP|MAIL)_' | sort", sorted(env))
    mids = [uuid4() for _ in range(R.randint(1, 3))]
    to = '%s@%s' % (r.user, r.domain)
    body = json.dumps({'To': to, 'SubmittedAt': r.clock.iso(7, '-04:00'), 'MessageID': mids[0], 'ErrorCode': 0, 'Message': 'OK'})
    r.run('curl -s https://api.postmarkapp.com/email -H "Accept: application/json" -H "Content-Type: application/json" -H "X-Postmark-Server-Token: %s" -d \'{"From":"notifications@%s","To":"%s","Subject":"Postmark test","TextBody":"hi","MessageStream":"outbound"}\'' % (S(st), r.domain, to), [body])
    if r.long or R.random() < 0.5:
        out = ['{', '  "TotalCount": %d,' % len(mids), '  "Messages": [']
        for i, m in enumerate(mids):
            out += ['    {', '      "MessageID": "%s",' % m, '      "MessageStream": "outbound",', '      "To": [{"Email": "%s", "Name": null}],' % to,
                    '      "Status": "Sent",', '      "ReceivedAt": "%s"' % r.clock.iso(7, '-04:00'), '    }' + (',' if i < len(mids) - 1 else '')]
        out += ['  ]', '}']
        r.run('curl -s "https://api.postmarkapp.com/messages/outbound?count=10&offset=0" -H "Accept: application/json" -H "X-Postmark-Server-Token: %s" | jq' % S(st), out)


@pos('resend_api_key_script_debug')
def t_resend(r):
    k = resend_key()
    r.view('.env.local', ['RESEND_API_KEY=' + S(k), 'EMAIL_FROM="%s <hello@%s>"' % (r.org.title(), r.domain),
                          'NEXT_PUBLIC_APP_URL=http://localhost:3000'])
    eid = uuid4()
    out = ['[send-test] using from=hello@%s to=%s@%s' % (r.domain, r.user, r.domain),
           "[send-test] POST https://api.resend.com/emails {", "  headers: {",
           "    Authorization: 'Bearer %s'," % S(k), "    'Content-Type': 'application/json',",
           "    'User-Agent': 'resend-node:3.2.0'", "  },", "  body: '{\"from\":\"hello@%s\",\"to\":[\"%s@%s\"],\"subject\":\"Welcome\",\"html\":\"<p>hi</p>\"}'" % (r.domain, r.user, r.domain),
           "}", "[send-test] { data: { id: '%s' }, error: null }" % eid]
    r.run('DEBUG=send-test node scripts/send-test.mjs', out)
    if r.long:
        r.run('curl -s https://api.resend.com/emails/%s -H "Authorization: Bearer %s" | jq' % (eid, S(k)),
              ['{', '  "object": "email",', '  "id": "%s",' % eid, '  "to": [', '    "%s@%s"' % (r.user, r.domain), '  ],',
               '  "from": "hello@%s",' % r.domain, '  "created_at": "%s+00",' % r.clock.sp(6), '  "subject": "Welcome",',
               '  "bcc": null,', '  "cc": null,', '  "reply_to": null,', '  "last_event": "delivered"', '}'])


def ses_smtp_from_secret(secret, region):
    sig = hmac.new(('AWS4' + secret).encode(), b'11111111', 'sha256').digest()
    for part in (region, 'ses', 'aws4_request', 'SendRawEmail'):
        sig = hmac.new(sig, part.encode(), 'sha256').digest()
    return regd(b64(b'\x04' + sig))


@pos('ses_smtp_credentials_csv_cat')
def t_ses(r):
    kid, sec = aws_key_id(), aws_secret()
    smtp_pw = ses_smtp_from_secret(sec, r.region)
    y, mo, d, h, mi, s, _ = civil(r.clock.s)
    iam = 'ses-smtp-user.%04d%02d%02d-%02d%02d%02d' % (y, mo, d, h, mi, s)
    r.run('cat ~/Downloads/credentials.csv', ['IAM User Name,Smtp Username,Smtp Password', '%s,%s,%s' % (iam, kid, S(smtp_pw))])
    if R.random() < 0.6:
        r.say('The CSV password should be the SES-derived value of the IAM secret; checking with the conversion script from the SES docs.')
        r.run('python3 scripts/smtp_credentials_generate.py %s %s' % (S(sec), r.region), [S(smtp_pw)])
    r.run('aws iam list-access-keys --user-name ' + iam, ['{', '    "AccessKeyMetadata": [', '        {', '            "UserName": "%s",' % iam,
                                                          '            "AccessKeyId": "%s",' % kid, '            "Status": "Active",',
                                                          '            "CreateDate": "%s"' % r.clock.iso(0, '+00:00'), '        }', '    ]', '}'])
    mid_ = '0102%s-%s-%s-%s-%s-000000' % (hx(12), hx(8), hx(4), hx(4), hx(4) + hx(8))
    r.run("aws sesv2 send-email --from-email-address noreply@%s --destination ToAddresses=%s@%s --content 'Simple={Subject={Data=test},Body={Text={Data=ok}}}'" % (r.domain, r.user, r.domain),
          ['{', '    "MessageId": "%s"' % mid_, '}'])


@pos('nodemailer_transport_options_console')
def t_nodemailer(r):
    p = smtp_provider(r, ['sendgrid', 'brevo', 'own', 'mailgun'])
    out = ['{', "  host: '%s'," % p['host'], '  port: 587,', '  secure: false,', '  requireTLS: true,',
           "  auth: { user: '%s', pass: '%s' }," % (p['user'], S(p['pw'])), '  pool: true,', '  maxConnections: 5,',
           '  logger: true,', '  debug: true', '}']
    r.run("node -e \"const t = require('./src/mail/transport'); console.log(t.transporter.options)\"", out)
    cid = fresh(rs, AN, 11)
    masked = b64(('\0%s\0/* secret */' % p['user']).encode())
    ts = lambda: '[%s] ' % r.clock.tick(0, 1).sp()
    log = [ts() + 'DEBUG Creating transport: nodemailer (6.9.14; +https://nodemailer.com/; SMTP (pool)/6.9.14[client:6.9.14])',
           ts() + 'DEBUG [%s] Resolved %s as %d.%d.%d.%d [cache miss]' % (cid, p['host'], R.randint(3, 200), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254)),
           ts() + 'INFO  [%s] Connection established to %d.%d.%d.%d:587' % (cid, R.randint(3, 200), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254)),
           ts() + 'DEBUG [%s] S: %s' % (cid, p['banner']), ts() + 'DEBUG [%s] C: EHLO [127.0.0.1]' % cid,
           ts() + 'DEBUG [%s] S: 250-%s' % (cid, p['host']), ts() + 'DEBUG [%s] S: 250-STARTTLS' % cid,
           ts() + 'DEBUG [%s] S: 250 %s' % (cid, p['auth']), ts() + 'DEBUG [%s] C: STARTTLS' % cid,
           ts() + 'DEBUG [%s] S: 220 2.0.0 Ready to start TLS' % cid, ts() + 'INFO  [%s] Connection upgraded with STARTTLS' % cid,
           ts() + 'DEBUG [%s] C: AUTH PLAIN %s' % (cid, masked), ts() + 'DEBUG [%s] S: 235 2.7.0 Authentication successful' % cid,
           ts() + 'INFO  [%s] User "%s" authenticated' % (cid, p['user']), ts() + 'INFO  Sending message %s to <%s@%s>' % (mid(r), r.user, r.domain)]
    r.run('node scripts/send-test-mail.js', log)


# ================================================================ positives: SMS, voice, push
def phone():
    return '+1%d%07d' % (R.randint(201, 989), R.randint(0, 9999999))


@pos('twilio_env_messages_curl')
def t_twilio_env(r):
    ac, tok, mg = twilio_sid('AC'), twilio_token(), twilio_sid('MG')
    r.view('.env', ['# Twilio (%s)' % r.env, 'TWILIO_ACCOUNT_SID=' + ac, 'TWILIO_AUTH_TOKEN=' + S(tok),
                    'TWILIO_MESSAGING_SERVICE_SID=' + mg, 'TWILIO_FROM=' + phone(), 'SMS_PROVIDER=twilio', 'SMS_DRY_RUN=false'])
    sm = twilio_sid('SM')
    to = phone()
    body = {'account_sid': ac, 'api_version': '2010-04-01', 'body': 'Your %s code is %06d' % (r.org.title(), R.randint(0, 999999)),
            'date_created': r.clock.rfc2822(), 'date_sent': None, 'date_updated': r.clock.rfc2822(), 'direction': 'outbound-api',
            'error_code': None, 'error_message': None, 'from': None, 'messaging_service_sid': mg, 'num_media': '0',
            'num_segments': '1', 'price': None, 'price_unit': None, 'sid': sm, 'status': 'accepted', 'subresource_uris': {'media': '/2010-04-01/Accounts/%s/Messages/%s/Media.json' % (ac, sm)},
            'to': to, 'uri': '/2010-04-01/Accounts/%s/Messages/%s.json' % (ac, sm)}
    r.run("curl -s -X POST https://api.twilio.com/2010-04-01/Accounts/%s/Messages.json --data-urlencode 'To=%s' --data-urlencode 'MessagingServiceSid=%s' --data-urlencode 'Body=test from %s' -u %s:%s | jq" % (
        ac, to, mg, r.host, ac, S(tok)), json.dumps(body, indent=2).split('\n'))
    if r.long:
        r.run('curl -s "https://api.twilio.com/2010-04-01/Accounts/%s/Messages/%s.json" -u "%s:%s" | jq -r .status' % (ac, sm, ac, S(tok)), ['delivered'])


@pos('twilio_api_key_create_json')
def t_twilio_key(r):
    ac, tok = twilio_sid('AC'), twilio_token()
    sk, sec = twilio_sid('SK'), fresh(rs, AN, 32)
    prof = R.choice(['default', r.env, r.org])
    r.run('twilio profiles:list', ['ID%sAccount SID%sActive' % (' ' * (len(prof) + 2 - 2 if len(prof) > 2 else 2), ' ' * 24),
                                   '%s  %s  true' % (prof, ac)])
    name = '%s-%s' % (r.proj, r.env)
    out = json.dumps([{'dateCreated': r.clock.iso(3), 'dateUpdated': r.clock.iso(3), 'friendlyName': name, 'secret': sec, 'sid': sk}], indent=2)
    out = out.replace('"%s"' % sec, '"%s"' % S(sec))
    r.run('twilio api:core:keys:create --friendly-name %s -o json' % name, out.split('\n'))
    r.say('Saving the key pair for the service; the secret is only shown once.')
    if R.random() < 0.5:
        r.run('kubectl create secret generic twilio-api -n %s --from-literal=TWILIO_API_KEY=%s --from-literal=TWILIO_API_SECRET=%s --dry-run=client -o yaml' % (r.env, sk, S(sec)),
              ['apiVersion: v1', 'data:', '  TWILIO_API_KEY: ' + b64(sk.encode()), '  TWILIO_API_SECRET: ' + S(regd(b64(sec.encode()))),
               'kind: Secret', 'metadata:', '  creationTimestamp: null', '  name: twilio-api', '  namespace: ' + r.env])
    else:
        r.run("doppler secrets set TWILIO_API_KEY='%s' TWILIO_API_SECRET='%s' --project %s --config prd" % (sk, S(sec), r.proj),
              ['┌───────────────────┬────────────────────────────────────┐', '│ NAME              │ VALUE                              │',
               '├───────────────────┼────────────────────────────────────┤', '│ TWILIO_API_KEY    │ %-34s │' % sk,
               '│ TWILIO_API_SECRET │ %-34s │' % S(sec), '└───────────────────┴────────────────────────────────────┘'])
    r.run('twilio api:core:keys:list -o tsv --properties sid,friendlyName,dateCreated',
          ['sid\tfriendlyName\tdateCreated', '%s\t%s\t%s' % (sk, name, r.clock.rfc2822().replace('+0000', 'GMT+0000')),
           '%s\tlegacy-%s\t%s' % (twilio_sid('SK'), r.proj, 'Mon Jan 08 2024 10:12:44 GMT+0000')])


@pos('vonage_rc_private_key_app')
def t_vonage(r):
    key, sec = vonage_key(), vonage_secret()
    app = uuid4()
    k = rsa_key(2048)
    r.run('vonage apps create "%s %s" --voice_answer_url=https://%s/voice/answer --voice_event_url=https://%s/voice/event' % (r.proj, r.env, r.domain, r.domain),
          ['✅ Creating Application', '', 'Application created: ' + app, '', 'Private key saved: ./private.key'] if R.random() < 0.5 else
          ['Application created: ' + app, 'Private Key saved to: private.key'])
    r.view('.vonagerc', ['{', '  "apiKey": "%s",' % key, '  "apiSecret": "%s",' % S(sec), '  "appId": "%s",' % app,
                         '  "privateKey": "./private.key"', '}'])
    r.view('private.key', pem('PRIVATE KEY', rsa_pkcs8(k), r.fpl))
    if r.long or R.random() < 0.4:
        r.run('curl -s -u "%s:%s" "https://rest.nexmo.com/account/get-balance" | jq' % (key, S(sec)),
              ['{', '  "value": %.5f,' % R.uniform(1, 900), '  "autoReload": false', '}'])


@pos('messagebird_sms_config_yq')
def t_messagebird(r):
    mb, mbs = messagebird_key(), fresh(rs, AN, 32)
    vk, vs = vonage_key(), vonage_secret()
    ac, tok, mg = twilio_sid('AC'), twilio_token(), twilio_sid('MG')
    out = ['primary: messagebird', 'fallback: [vonage, twilio]', 'messagebird:', '  access_key: ' + S(mb),
           '  signing_key: ' + S(mbs), '  originator: %s' % r.org[:11].title(), '  report_url: https://%s/hooks/messagebird' % r.domain,
           'vonage:', '  api_key: "%s"' % vk, '  api_secret: %s' % S(vs), '  from: "%s"' % r.org[:11].upper(),
           'twilio:', '  account_sid: ' + ac, '  auth_token: ' + S(tok), '  messaging_service_sid: ' + mg]
    r.run("yq '.sms' config/providers.%s.yaml" % r.env, out)
    mid_ = hx(32)
    body = {'id': mid_, 'href': 'https://rest.messagebird.com/messages/' + mid_, 'direction': 'mt', 'type': 'sms',
            'originator': r.org[:11].title(), 'body': 'test', 'reference': None, 'validity': None, 'gateway': 10,
            'typeDetails': {}, 'datacoding': 'plain', 'mclass': 1, 'scheduledDatetime': None, 'createdDatetime': r.clock.iso(0, '+00:00'),
            'recipients': {'totalCount': 1, 'totalSentCount': 1, 'totalDeliveredCount': 0, 'totalDeliveryFailedCount': 0,
                           'items': [{'recipient': int(phone()[1:]), 'status': 'sent', 'statusDatetime': r.clock.iso(0, '+00:00'), 'messagePartCount': 1}]}}
    r.run("curl -s https://rest.messagebird.com/messages -H 'Authorization: AccessKey %s' -d recipients=%s -d originator=%s -d body=test | jq" % (
        S(mb), phone()[1:], r.org[:11].title()), json.dumps(body, indent=2).split('\n') if r.long else [json.dumps(body)[:140] + '…'])


@pos('fcm_legacy_key_and_v1_curl')
def t_fcm(r):
    sk = fcm_server_key()
    reg = fcm_reg_token()
    proj = '%s-%s' % (r.org, R.choice(['prod', 'app', 'mobile']))
    mid_ = R.randint(10 ** 18, 9 * 10 ** 18)
    r.run("curl -s https://fcm.googleapis.com/fcm/send -H 'Authorization: key=%s' -H 'Content-Type: application/json' -d '{\"to\":\"%s\",\"notification\":{\"title\":\"Test\",\"body\":\"hello\"}}'" % (S(sk), reg),
          [json.dumps({'multicast_id': mid_, 'success': 0, 'failure': 1, 'canonical_ids': 0, 'results': [{'error': 'DeprecatedApi'}]})])
    r.say('The legacy endpoint is shut down; switching the smoke test to the HTTP v1 API with an OAuth token.')
    at = ya29()
    r.run('gcloud auth print-access-token --impersonate-service-account=fcm-sender@%s.iam.gserviceaccount.com' % proj,
          ['WARNING: This command is using service account impersonation. All API calls will be executed as [fcm-sender@%s.iam.gserviceaccount.com].' % proj, S(at)])
    name = 'projects/%s/messages/0:%d%%%s' % (proj, r.clock.ms(), hx(16))
    r.run("curl -s -X POST https://fcm.googleapis.com/v1/projects/%s/messages:send -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' -d '{\"message\":{\"token\":\"%s\",\"notification\":{\"title\":\"Test\",\"body\":\"hello\"}}}'" % (proj, S(at), reg),
          ['{', '  "name": "%s"' % name, '}'])
    if r.long:
        r.run("grep -rn 'FCM_SERVER_KEY\\|fcm' config/ .env.example", ['config/push.ts:4:  serverKey: process.env.FCM_SERVER_KEY, // legacy, remove after migration',
                                                                       '.env.example:12:FCM_SERVER_KEY=', 'config/push.ts:9:  projectId: "%s",' % proj])


@pos('apns_p8_authkey_read_jwt')
def t_apns(r):
    kid = fresh(rs, UP + DG, 10)
    team = fresh(rs, UP + DG, 10)
    d, pub = p256_key()
    path = 'certs/AuthKey_%s.p8' % kid
    r.view(path, pem('PRIVATE KEY', p256_pkcs8(d, pub), r.fpl))
    hdr = b64u(json.dumps({'alg': 'ES256', 'kid': kid}, separators=(',', ':')).encode())
    body = b64u(json.dumps({'iss': team, 'iat': r.clock.epoch()}, separators=(',', ':')).encode())
    jwt = regd(hdr + '.' + body + '.' + b64u(es256_sign(d, (hdr + '.' + body).encode())))
    r.run('python3 scripts/apns_token.py --key %s --key-id %s --team-id %s' % (path, kid, team), [S(jwt)])
    dev = hx(64)
    bundle = 'com.%s.%s' % (r.org.replace('-', ''), R.choice(['app', 'ios', 'mobile']))
    apid = uuid4().upper()
    out = ['* Connected to api.sandbox.push.apple.com (17.188.%d.%d) port 443' % (R.randint(0, 255), R.randint(1, 254)),
           '* using HTTP/2', '> POST /3/device/%s HTTP/2' % dev, '> Host: api.sandbox.push.apple.com',
           '> authorization: bearer ' + S(jwt), '> apns-topic: ' + bundle, '> apns-push-type: alert', '> apns-priority: 10',
           '> content-length: 48', '>', '< HTTP/2 200', '< apns-id: ' + apid, '< apns-unique-id: ' + uuid4(), '<']
    r.run('curl -v --http2 -H "authorization: bearer %s" -H "apns-topic: %s" -H "apns-push-type: alert" -H "apns-priority: 10" -d \'{"aps":{"alert":"test","sound":"default"}}\' https://api.sandbox.push.apple.com/3/device/%s' % (S(jwt), bundle, dev), out)


@pos('web_push_vapid_generate_env')
def t_vapid(r):
    d, pub = p256_key()
    pk = regd(b64u(pub))
    sk = regd(b64u(d.to_bytes(32, 'big')))
    r.run('npx web-push generate-vapid-keys', ['', '=======================================', '', 'Public Key:', pk, '', 'Private Key:', S(sk), '',
                                              '======================================='])
    out = ['diff --git a/.env b/.env', 'index %s..%s 100644' % (hx(7), hx(7)), '--- a/.env', '+++ b/.env',
           '@@ -8,3 +8,6 @@ REDIS_URL=redis://localhost:6379/0', ' SENTRY_ENVIRONMENT=%s' % r.env, ' LOG_LEVEL=info',
           ' FEATURE_PUSH=true', '+VAPID_SUBJECT=mailto:push@%s' % r.domain, '+VAPID_PUBLIC_KEY=' + pk, '+VAPID_PRIVATE_KEY=' + S(sk)]
    r.run('git diff .env', out)
    r.view('public/sw-config.js', ['// generated — safe to ship', 'export const applicationServerKey = "%s";' % pk])


# ================================================================ positives: MongoDB, Cassandra
def atlas_host(r):
    return 'cluster0.%s.mongodb.net' % lc(5)


def mongosh_banner(r, uri_shown, ver='2.2.6', server='7.0.11'):
    return ['Current Mongosh Log ID:\t' + oid(r.clock.epoch()), 'Connecting to:\t\t' + uri_shown,
            'Using MongoDB:\t\t' + server, 'Using Mongosh:\t\t' + ver, '',
            'For mongosh info see: https://www.mongodb.com/docs/mongodb-shell/', '']


@pos('mongosh_uri_create_user_session')
def t_mongosh(r):
    host = atlas_host(r)
    ap = pw('url')
    rs_ = 'atlas-%s-shard-0' % lc(6)
    out = mongosh_banner(r, 'mongodb+srv://<credentials>@%s/?retryWrites=true&w=majority&appName=Cluster0&appName=mongosh+2.2.6' % host)
    pr = 'Atlas %s [primary] %s> ' % (rs_, 'admin')
    np_ = pw()
    u = R.choice(['orders_rw', 'reporting_ro', 'mailer', 'etl'])
    db = R.choice(['orders', 'app', 'events'])
    out += [pr + 'use ' + db, 'switched to db ' + db,
            'Atlas %s [primary] %s> db.createUser({ user: "%s", pwd: "%s", roles: [ { role: "readWrite", db: "%s" } ] })' % (rs_, db, u, S(np_), db),
            '{', '  ok: 1,', "  '$clusterTime': {", '    clusterTime: Timestamp({ t: %d, i: %d }),' % (r.clock.epoch(), R.randint(1, 40)),
            '    signature: {', "      hash: Binary.createFromBase64('%s', 0)," % rb64(20),
            "      keyId: Long('%d')" % R.randint(7 * 10 ** 18, 73 * 10 ** 17), '    }', '  },',
            '  operationTime: Timestamp({ t: %d, i: %d })' % (r.clock.epoch(), R.randint(1, 40)), '}',
            'Atlas %s [primary] %s> db.getUser("%s")' % (rs_, db, u),
            '{', "  _id: '%s.%s'," % (db, u), "  userId: UUID('%s')," % uuid4(), "  user: '%s'," % u, "  db: '%s'," % db,
            "  roles: [ { role: 'readWrite', db: '%s' } ]," % db, "  mechanisms: [ 'SCRAM-SHA-1', 'SCRAM-SHA-256' ]", '}']
    if r.style in ('prompt', 'codex_exec'):
        r.run('mongosh "mongodb+srv://admin:%s@%s/?retryWrites=true&w=majority&appName=Cluster0"' % (S(ap), host), out)
    else:
        r.view('/tmp/create_user.js', ['db = db.getSiblingDB("%s");' % db,
                                       'db.createUser({ user: "%s", pwd: "%s", roles: [ { role: "readWrite", db: "%s" } ] });' % (u, S(np_), db),
                                       'printjson(db.getUser("%s"));' % u])
        keep = [x for x in out if not x.startswith('Atlas ') and 'switched to db' not in x]
        keep = keep[:keep.index('{')] + keep[keep.index('}') + 1:] if False else keep
        r.run('mongosh "mongodb+srv://admin:%s@%s/?retryWrites=true&w=majority&appName=Cluster0" --file /tmp/create_user.js' % (S(ap), host), keep)
    if r.long or R.random() < 0.5:
        r.view('.env', ['MONGODB_URI=mongodb+srv://%s:%s@%s/%s?retryWrites=true&w=majority' % (u, S(np_), host, db),
                        'MONGODB_DB=' + db, 'MONGODB_MAX_POOL_SIZE=50'])


@pos('mongodump_uri_backup_script')
def t_mongodump(r):
    p = pw('url')
    hosts = ','.join('mongo-%d.mongo.%s.svc:27017' % (i, R.choice(['data', 'db'])) for i in range(3))
    db = R.choice(['orders', 'app', 'crm'])
    lines = ['#!/usr/bin/env bash', 'set -euo pipefail', '', 'STAMP=$(date -u +%Y%m%dT%H%M%SZ)',
             'OUT=/backups/mongo/$STAMP', '',
             'mongodump --uri "mongodb://backup:%s@%s/?replicaSet=rs0&authSource=admin&readPreference=secondary" \\' % (S(p), hosts),
             '  --db %s --gzip --oplog=false --out "$OUT"' % db, '',
             'aws s3 cp --recursive "$OUT" "s3://%s-backups/mongo/$STAMP/" --only-show-errors' % r.org,
             'find /backups/mongo -maxdepth 1 -mtime +7 -exec rm -rf {} +']
    r.view('scripts/backup-mongo.sh', lines)
    out = []
    for col in R.sample(['users', 'orders', 'order_items', 'sessions', 'audit_log', 'emails', 'push_tokens'], R.randint(3, 6)):
        r.clock.tick(0, 2)
        out.append('%s\twriting %s.%s to /backups/mongo/%s/%s/%s.bson.gz' % (r.clock.iso(3, '+0000'), db, col, 'T'.join(r.clock.iso(0, 'Z').split('T')).replace('-', '').replace(':', ''), db, col))
    for l in list(out):
        col = l.split('writing ')[1].split(' ')[0]
        out.append('%s\tdone dumping %s (%d documents)' % (r.clock.tick(0, 3).iso(3, '+0000'), col, R.randint(10, 900000)))
    r.run('bash -x scripts/backup-mongo.sh 2>&1 | grep -v "^+ aws"', ['+ set -euo pipefail', '++ date -u +%Y%m%dT%H%M%SZ', '+ STAMP=' + r.clock.iso(0).replace('-', '').replace(':', ''),
                                                                    "+ mongodump --uri 'mongodb://backup:%s@%s/?replicaSet=rs0&authSource=admin&readPreference=secondary' --db %s --gzip --oplog=false --out /backups/mongo/%s" % (
                                                                        S(p), hosts, db, r.clock.iso(0).replace('-', '').replace(':', ''))] + out)


@pos('atlas_cli_dbuser_connection')
def t_atlas(r):
    proj = hx(24)
    u = R.choice(['svc-orders', 'svc-ingest', 'analytics', 'mailer'])
    p = pw('url')
    pub, priv = atlas_pub(), uuid4()
    r.run('atlas config describe default', ['SETTING             VALUE', 'org_id              ' + hx(24), 'output              plaintext',
                                             'private_api_key     redacted', 'project_id          ' + proj, 'public_api_key      ' + pub,
                                             'service             cloud'])
    r.run('atlas dbusers create readWrite --username %s --password \'%s\' --projectId %s' % (u, S(p), proj), ["Database user '%s' successfully created." % u])
    host = atlas_host(r)
    r.run('atlas clusters connectionStrings describe Cluster0 --projectId ' + proj, ['STANDARD CONNECTION STRING', 'mongodb+srv://' + host])
    r.run("curl -s --digest -u '%s:%s' 'https://cloud.mongodb.com/api/atlas/v2/groups/%s/databaseUsers/admin/%s' -H 'Accept: application/vnd.atlas.2023-01-01+json' | jq '{username, databaseName, roles}'" % (pub, S(priv), proj, u),
          ['{', '  "username": "%s",' % u, '  "databaseName": "admin",', '  "roles": [', '    {', '      "databaseName": "%s",' % r.proj.split('-')[0], '      "roleName": "readWrite"', '    }', '  ]', '}'])
    r.run("echo 'MONGODB_URI=mongodb+srv://%s:%s@%s/?retryWrites=true&w=majority' >> .env.local && tail -n 3 .env.local" % (u, S(p), host),
          ['NEXT_PUBLIC_APP_URL=http://localhost:3000', 'MONGODB_DB=%s' % r.proj.split('-')[0], 'MONGODB_URI=mongodb+srv://%s:%s@%s/?retryWrites=true&w=majority' % (u, S(p), host)])


@pos('cqlsh_password_create_role')
def t_cqlsh(r):
    sup = pw()
    host = '10.%d.%d.%d' % (R.randint(0, 40), R.randint(0, 255), R.randint(2, 250))
    cl = R.choice(['Prod Cluster', 'events-%s' % r.env, 'Test Cluster'])
    role = R.choice(['orders_app', 'analytics_ro', 'ingest'])
    rp = pw()
    ks = R.choice(['orders', 'events', 'telemetry'])
    pr = 'cassandra@cqlsh> '
    out = ['Warning: Using a password on the command line interface can be insecure.',
           'Recommendation: use the credentials file to securely provide the password.', '',
           'Connected to %s at %s:9042' % (cl, host), '[cqlsh 6.1.0 | Cassandra 4.1.5 | CQL spec 3.4.6 | Native protocol v5]', 'Use HELP for help.',
           pr + "CREATE ROLE %s WITH PASSWORD = '%s' AND LOGIN = true;" % (role, S(rp)),
           pr + 'GRANT SELECT ON KEYSPACE %s TO %s;' % (ks, role), pr + 'GRANT MODIFY ON KEYSPACE %s TO %s;' % (ks, role),
           pr + "ALTER ROLE cassandra WITH PASSWORD = '%s';" % S(sup) if R.random() < 0.5 else pr + 'LIST ROLES;']
    if out[-1].endswith('LIST ROLES;'):
        out += ['', ' role      | super | login | options | datacenters', '-----------+-------+-------+---------+-------------',
                ' cassandra |  True |  True |        {} |         ALL', ' %-9s | False |  True |        {} |         ALL' % role[:9], '', '(2 rows)']
    out += [pr + 'SELECT role, can_login, salted_hash FROM system_auth.roles;', '',
            ' role         | can_login | salted_hash', '--------------+-----------+--------------------------------------------------------------',
            ' %-12s |      True | %s' % (role, bcrypt_like(10, '2a')), ' %-12s |      True | %s' % ('cassandra', bcrypt_like(10, '2a')), '', '(2 rows)', pr + 'exit']
    r.run("cqlsh %s 9042 -u cassandra -p '%s'" % (host, S(sup)), out)


@pos('cqlshrc_astra_token_files')
def t_cqlshrc(r):
    p = pw('ini')
    tok = astra_token()
    r.view('~/.cassandra/cqlshrc', ['[authentication]', 'username = ' + R.choice(['ops', 'svc_orders', 'admin']), 'password = ' + S(p), '',
                                    '[connection]', 'hostname = cassandra-0.%s' % r.domain, 'port = 9042', 'ssl = true', '',
                                    '[ssl]', 'certfile = ~/.cassandra/%s-ca.pem' % r.org, 'validate = true'])
    r.say('The analytics jobs talk to Astra instead; checking how they authenticate.')
    dbid = uuid4()
    env = ['ASTRA_DB_ID=' + dbid, 'ASTRA_DB_REGION=' + r.region, 'ASTRA_DB_KEYSPACE=' + R.choice(['events', 'analytics']),
           'ASTRA_DB_APPLICATION_TOKEN=' + S(tok), 'ASTRA_DB_API_ENDPOINT=https://%s-%s.apps.astra.datastax.com' % (dbid, r.region)]
    r.run('grep ^ASTRA_ .env', env)
    r.run("curl -s -H 'X-Cassandra-Token: %s' https://%s-%s.apps.astra.datastax.com/api/rest/v2/schemas/keyspaces | jq -c '.data[].name'" % (S(tok), dbid, r.region),
          ['"system_auth"', '"system_schema"', '"data_endpoint_auth"', '"system"', '"events"', '"datastax_sla"', '"system_traces"'])


# ================================================================ positives: Elasticsearch, OpenSearch, ClickHouse
@pos('es_reset_password_enrollment_token')
def t_es_reset(r):
    p = es_password()
    ver = R.choice(['8.13.4', '8.14.1', '8.15.0'])
    c = R.choice(['es01', 'elasticsearch', '%s-es-1' % r.proj])
    r.run('docker exec -it %s /usr/share/elasticsearch/bin/elasticsearch-reset-password -u elastic -b' % c,
          ['This tool will reset the password of the [elastic] user to an autogenerated value.', 'The password will be printed in the console.', '', '',
           'Password for the [elastic] user successfully reset.', 'New value: ' + S(p)])
    kp = es_password()
    if R.random() < 0.5:
        r.run('docker exec -it %s /usr/share/elasticsearch/bin/elasticsearch-reset-password -u kibana_system -b' % c,
              ['This tool will reset the password of the [kibana_system] user to an autogenerated value.', 'The password will be printed in the console.', '', '',
               'Password for the [kibana_system] user successfully reset.', 'New value: ' + S(kp)])
    fgr = hx(64)
    tok_json = json.dumps({'ver': ver, 'adr': ['172.%d.0.%d:9200' % (R.randint(17, 30), R.randint(2, 9))], 'fgr': fgr,
                           'key': '%s:%s' % (es_id(), es_api_key())}, separators=(',', ':'))
    tok = regd(b64(tok_json.encode()))
    r.run('docker exec -it %s /usr/share/elasticsearch/bin/elasticsearch-create-enrollment-token -s kibana' % c, [S(tok)])
    r.run('curl -s --cacert http_ca.crt -u elastic:%s https://localhost:9200' % S(p),
          ['{', '  "name" : "%s",' % c, '  "cluster_name" : "docker-cluster",', '  "cluster_uuid" : "%s",' % fresh(rs, B64U, 22),
           '  "version" : {', '    "number" : "%s",' % ver, '    "build_flavor" : "default",', '    "build_type" : "docker",',
           '    "build_hash" : "%s",' % hx(40), '    "lucene_version" : "9.10.0",', '    "minimum_wire_compatibility_version" : "7.17.0",',
           '    "minimum_index_compatibility_version" : "7.0.0"', '  },', '  "tagline" : "You Know, for Search"', '}'])
    if r.long:
        r.run('openssl x509 -fingerprint -sha256 -noout -in http_ca.crt', ['sha256 Fingerprint=' + ':'.join(wrap(fgr.upper(), 2))])


@pos('es_security_api_key_encoded')
def t_es_apikey(r):
    p = es_password()
    host = R.choice(['https://localhost:9200', 'https://es.%s:9200' % r.domain, 'https://%s.es.%s.aws.elastic-cloud.com' % (hx(32), r.region)])
    i, k = es_id(), es_api_key()
    enc = regd(b64(('%s:%s' % (i, k)).encode()))
    name = '%s-%s' % (r.proj, R.choice(['ingest', 'writer', 'search']))
    body = '{"name":"%s","expiration":"90d","role_descriptors":{"writer":{"indices":[{"names":["%s-*"],"privileges":["create_doc","create_index"]}]}}}' % (name, r.proj)
    r.run("curl -s -u elastic:'%s' -X POST %s/_security/api_key -H 'Content-Type: application/json' -d '%s' | jq" % (S(p), host, body),
          ['{', '  "id": "%s",' % i, '  "name": "%s",' % name, '  "expiration": %d,' % (r.clock.ms() + 90 * 86400000),
           '  "api_key": "%s",' % S(k), '  "encoded": "%s"' % S(enc), '}'])
    r.run("curl -s -H 'Authorization: ApiKey %s' '%s/_cat/indices/%s-*?v&h=health,index,uuid,docs.count'" % (S(enc), host, r.proj),
          ['health index%s uuid                   docs.count' % (' ' * (len(r.proj) + 9)),
           'green  %s-2024.06 %s %d' % (r.proj, fresh(rs, B64U, 22), R.randint(1000, 9999999)),
           'green  %s-2024.07 %s %d' % (r.proj, fresh(rs, B64U, 22), R.randint(1000, 9999999))])
    if r.long or R.random() < 0.5:
        r.view('config/filebeat.yml', ['output.elasticsearch:', '  hosts: ["%s"]' % host, '  api_key: "%s:%s"' % (i, S(k)),
                                       '  index: "%s-%%{+yyyy.MM}"' % r.proj, 'setup.template.name: "%s"' % r.proj, 'setup.template.pattern: "%s-*"' % r.proj])


@pos('opensearch_admin_env_internal_users')
def t_opensearch(r):
    p = pw()
    dp = pw()
    out = ['services:', '  opensearch-node1:', '    environment:', '      cluster.name: opensearch-cluster', '      discovery.type: single-node',
           '      OPENSEARCH_INITIAL_ADMIN_PASSWORD: ' + S(p), '      OPENSEARCH_JAVA_OPTS: -Xms1g -Xmx1g', '    image: opensearchproject/opensearch:2.15.0',
           '  opensearch-dashboards:', '    environment:', '      OPENSEARCH_HOSTS: \'["https://opensearch-node1:9200"]\'',
           '      OPENSEARCH_USERNAME: kibanaserver', '      OPENSEARCH_PASSWORD: ' + S(dp), '    image: opensearchproject/opensearch-dashboards:2.15.0']
    r.run('docker compose config | sed -n \'/opensearch-node1:/,/image:/p;/opensearch-dashboards:/,/image:/p\'', out)
    iu = ['_meta:', '  type: "internalusers"', '  config_version: 2', '', 'admin:', '  hash: "%s"' % bcrypt_like(12, '2y'), '  reserved: true',
          '  backend_roles:', '  - "admin"', '  description: "Demo admin user"', '', 'kibanaserver:', '  hash: "%s"' % bcrypt_like(12, '2y'),
          '  reserved: true', '  description: "Demo OpenSearch Dashboards user"']
    r.view('config/opensearch-security/internal_users.yml', iu)
    r.run('curl -sk -u admin:\'%s\' https://localhost:9200/_cluster/health?pretty' % S(p),
          ['{', '  "cluster_name" : "opensearch-cluster",', '  "status" : "%s",' % R.choice(['green', 'yellow']), '  "timed_out" : false,',
           '  "number_of_nodes" : 1,', '  "number_of_data_nodes" : 1,', '  "active_primary_shards" : %d,' % R.randint(3, 40), '  "active_shards" : %d' % R.randint(3, 40), '}'])


@pos('clickhouse_users_xml_plain_sha256')
def t_clickhouse(r):
    p1, p2, p3 = pw('xml'), pw('xml'), pw('xml')
    lines = ['<clickhouse>', '    <users>', '        <default>', '            <password_sha256_hex>%s</password_sha256_hex>' % sha256_hex(p3),
             '            <networks><ip>::1</ip><ip>127.0.0.1</ip></networks>', '            <profile>default</profile>', '            <quota>default</quota>',
             '        </default>', '        <ingest>', '            <password>%s</password>' % S(p1), '            <networks><ip>10.0.0.0/8</ip></networks>',
             '            <profile>default</profile>', '            <quota>default</quota>', '            <access_management>0</access_management>', '        </ingest>',
             '        <grafana>', '            <password_double_sha1_hex>%s</password_double_sha1_hex>' % dsha1_hex(pw()), '            <profile>readonly</profile>',
             '            <quota>default</quota>', '        </grafana>', '        <dbt>', '            <password>%s</password>' % S(p2),
             '            <profile>default</profile>', '            <quota>default</quota>', '        </dbt>', '    </users>', '</clickhouse>']
    r.view('/etc/clickhouse-server/users.d/%s.xml' % r.proj, lines)
    out = ['ClickHouse client version 24.3.2.23 (official build).', 'Connecting to clickhouse-0.%s:9440 as user ingest.' % r.domain,
           'Connected to ClickHouse server version 24.3.2.', '']
    rows = [('name', 'auth_type', 'host_ip')] + [(n, t, ip) for n, t, ip in (('default', 'sha256_password', "['::1','127.0.0.1']"), ('ingest', 'plaintext_password', "['10.0.0.0/8']"),
                                                                            ('grafana', 'double_sha1_password', "['::/0']"), ('dbt', 'plaintext_password', "['::/0']"))]
    w = [max(len(x[i]) for x in rows) for i in range(3)]
    out.append('┌─' + '─┬─'.join(h + '─' * (w[i] - len(h)) for i, h in enumerate(rows[0])) + '─┐')
    for x in rows[1:]:
        out.append('│ ' + ' │ '.join(c.ljust(w[i]) for i, c in enumerate(x)) + ' │')
    out.append('└─' + '─┴─'.join('─' * w[i] for i in range(3)) + '─┘')
    out += ['', '4 rows in set. Elapsed: 0.00%d sec.' % R.randint(1, 9)]
    r.run("clickhouse-client --host clickhouse-0.%s --secure --user ingest --password '%s' -q 'SELECT name, auth_type, host_ip FROM system.users' --format PrettyCompactMonoBlock" % (r.domain, S(p1)), out)


# ================================================================ positives: warehouses
@pos('snowsql_config_keypair_passphrase')
def t_snowsql(r):
    acct = '%s-%s' % (fresh(rs, UP, 7), r.org.upper().replace('-', '_'))
    p = pw('ini')
    pp = pw('ini')
    lines = ['[connections]', 'accountname = ' + acct, 'username = %s' % r.user.upper(), 'password = ' + S(p), 'rolename = TRANSFORMER',
             'warehousename = TRANSFORMING', 'dbname = ANALYTICS', '', '[connections.svc_loader]', 'accountname = ' + acct, 'username = SVC_LOADER',
             'authenticator = SNOWFLAKE_JWT', 'private_key_path = ~/.ssh/snowflake/rsa_key.p8', 'private_key_passphrase = ' + S(pp), '',
             '[options]', 'log_level = INFO', 'output_format = psql']
    r.view('~/.snowsql/config', lines)
    k = rsa_key(2048)
    enc = encrypted_pkcs8(rsa_pkcs8(k))
    if not r.pl and R.random() < 0.7:
        # GNU base64 wraps at 76 columns; printed contiguously this is one span
        # (the first wrapped line encodes the fixed PEM header, so it is never
        # marked on its own).
        r.say('The loader runs in CI, so the key goes in as a base64 variable; encoding the PEM file.')
        pem_text = '\n'.join(pem('ENCRYPTED PRIVATE KEY', enc, False, mark=False)) + '\n'
        wrapped = wrap(regd(b64(pem_text.encode())), 76)
        r.run('base64 ~/.ssh/snowflake/rsa_key.p8', S('\n'.join(wrapped)).split('\n'))
    else:
        r.run('cat ~/.ssh/snowflake/rsa_key.p8', pem('ENCRYPTED PRIVATE KEY', enc, r.pl))
    fp = b64(hashlib.sha256(rsa_spki(k)).digest())
    r.run('snowsql -c svc_loader -q "DESC USER SVC_LOADER" -o friendly=false -o header=false -o timing=false | grep RSA_PUBLIC_KEY_FP',
          ['| RSA_PUBLIC_KEY_FP | SHA256:%s | null | RSA public key fingerprint of the user |' % regd(fp)])


@pos('bigquery_sa_keyfile_read')
def t_bigquery(r):
    proj = '%s-%s-%d' % (r.org, R.choice(['data', 'analytics', 'dwh']), R.randint(100000, 999999))
    sa = '%s@%s.iam.gserviceaccount.com' % (R.choice(['dbt-runner', 'bq-loader', 'airbyte']), proj)
    k = rsa_key(2048)
    kid = hx(40)
    cid = str(R.randint(10 ** 20, 10 ** 21 - 1))
    lines = ['{', '  "type": "service_account",', '  "project_id": "%s",' % proj, '  "private_key_id": "%s",' % kid,
             '  "private_key": "%s",' % pem_json('PRIVATE KEY', rsa_pkcs8(k)), '  "client_email": "%s",' % sa, '  "client_id": "%s",' % cid,
             '  "auth_uri": "https://accounts.google.com/o/oauth2/auth",', '  "token_uri": "https://oauth2.googleapis.com/token",',
             '  "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",',
             '  "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/%s",' % sa.replace('@', '%40'),
             '  "universe_domain": "googleapis.com"', '}']
    r.view('secrets/%s.json' % proj, lines)
    r.view('profiles.yml', ['%s:' % r.proj.replace('-', '_'), '  target: dev', '  outputs:', '    dev:', '      type: bigquery', '      method: service-account',
                            '      project: ' + proj, '      dataset: dbt_%s' % r.user.replace('-', '_').replace('.', '_'), '      keyfile: secrets/%s.json' % proj,
                            '      threads: 8', '      location: EU'])


@pos('redshift_odbc_jdbc_password')
def t_redshift(r):
    p = pw('ini')
    host = '%s.%s.%s.redshift.amazonaws.com' % (R.choice(['analytics', 'dwh', 'reporting']), lc(12), r.region)
    lines = ['[ODBC Data Sources]', 'Redshift=Amazon Redshift (x64)', '', '[Redshift]', 'Driver=/opt/amazon/redshiftodbcx64/librsodbc64.so',
             'Host=' + host, 'Port=5439', 'Database=' + R.choice(['dev', 'analytics', 'warehouse']), 'UID=' + R.choice(['etl_user', 'looker', 'dbt']),
             'PWD=' + S(p), 'SSLMode=verify-full', 'BoolsAsChar=0']
    r.view('~/.odbc.ini', lines)
    jp = pw('url')
    out = ['config/datasources.properties:3:redshift.url=jdbc:redshift://%s:5439/analytics?ssl=true&sslmode=verify-full' % host,
           'config/datasources.properties:4:redshift.user=metabase', 'config/datasources.properties:5:redshift.password=' + S(jp),
           'config/flyway-redshift.conf:1:flyway.url=jdbc:redshift://%s:5439/analytics;UID=flyway;PWD=%s' % (host, S(jp)) if R.random() < 0.5 else
           'config/flyway-redshift.conf:1:flyway.url=jdbc:redshift://%s:5439/analytics?user=flyway&password=%s' % (host, S(jp))]
    r.run("rg -n 'redshift' config/", out)
    r.run('isql -v Redshift', ['+---------------------------------------+', '| Connected!                            |', '|                                       |',
                              '| sql-statement                         |', '| help [tablename]                      |', '| echo [string]                         |',
                              '| quit                                  |', '|                                       |', '+---------------------------------------+', 'SQL> quit'])


# ================================================================ positives: other stores
@pos('influx_auth_create_configs')
def t_influx(r):
    tok = influx_token()
    org = r.org
    host = 'https://influx.%s:8086' % r.domain
    aid, uid, oid_ = hx(16), hx(16), hx(16)
    perms = '[read:orgs/%s/authorizations write:orgs/%s/authorizations read:orgs/%s/buckets write:orgs/%s/buckets ...]' % (oid_, oid_, oid_, oid_)
    out = ['ID\t\t\tDescription\tToken\t\t\t\t\t\t\t\t\t\t\t\t\tUser Name\tUser ID\t\t\tPermissions',
           '%s\t%s\t%s\tadmin\t\t%s\t%s' % (aid, 'telegraf-%s' % r.env, S(tok), uid, perms)]
    r.run('influx auth create --org %s --all-access --description telegraf-%s' % (org, r.env), out)
    r.run('influx config create --config-name %s --host-url %s --org %s --token %s --active' % (r.env, host, org, S(tok)),
          ['Active\tName\tURL\t\t\t\tOrg', '*\t%s\t%s\t%s' % (r.env, host, org)])
    r.view('~/.influxdbv2/configs', ['[default]', '  url = "http://localhost:8086"', '  token = ""', '  org = ""', '  active = false', '',
                                     '[%s]' % r.env, '  url = "%s"' % host, '  token = "%s"' % S(tok), '  org = "%s"' % org, '  active = true'])
    if r.long:
        out = ['ID\t\t\tName\t\tRetention\tShard group duration\tOrganization ID\t\tSchema Type']
        for b in ('_monitoring', '_tasks', 'telegraf', 'events'):
            out.append('%s\t%-12s\t%s\t%s\t\t\t%s\timplicit' % (hx(16), b, R.choice(['168h0m0s', 'infinite', '720h0m0s']), R.choice(['24h0m0s', '168h0m0s']), oid_))
        r.run('influx bucket list', out)


@pos('neo4j_aura_credentials_cypher_shell')
def t_neo4j(r):
    iid = lc(8)
    p = aura_pw()
    uri = 'neo4j+s://%s.databases.neo4j.io' % iid
    r.run('cat ~/Downloads/Neo4j-%s-Created-%s.txt' % (iid, r.clock.date()),
          ['# Wait 60 seconds before connecting using these details, or login to https://console.neo4j.io to validate the Aura Instance is available',
           'NEO4J_URI=' + uri, 'NEO4J_USERNAME=neo4j', 'NEO4J_PASSWORD=' + S(p), 'AURA_INSTANCEID=' + iid, 'AURA_INSTANCENAME=Instance01'])
    out = ['+--------------------------------------+', '| name     | currentStatus | home  |', '+--------------------------------------+',
           '| "neo4j"  | "online"      | TRUE  |', '| "system" | "online"      | FALSE |', '+--------------------------------------+', '',
           '2 rows', 'ready to start consuming query after %d ms, results consumed after another %d ms' % (R.randint(2, 90), R.randint(1, 9))]
    r.run('cypher-shell -a %s -u neo4j -p \'%s\' "SHOW DATABASES YIELD name, currentStatus, home"' % (uri, S(p)), out)
    if r.long or R.random() < 0.5:
        lp = pw()
        r.run("grep -n NEO4J docker-compose.yml", ['14:      NEO4J_AUTH: neo4j/%s' % S(lp), '15:      NEO4J_PLUGINS: \'["apoc"]\'',
                                                     '16:      NEO4J_server_memory_heap_max__size: 2G'])


@pos('couchdb_local_ini_admins_curl')
def t_couch(r):
    p, p2, sec = pw('ini'), pw('ini'), hx(32)
    salt = hx(32)
    dk = regd(hashlib.pbkdf2_hmac('sha1', pw().encode(), salt.encode(), 10, 20).hex())
    r.run('sudo cat /opt/couchdb/etc/local.ini | grep -v "^;" | grep -v "^$"',
          ['[couchdb]', 'uuid = ' + hx(32), 'single_node = true', '[chttpd]', 'port = 5984', 'bind_address = 0.0.0.0',
           '[chttpd_auth]', 'secret = ' + S(sec), 'timeout = 3600', '[admins]', 'admin = -pbkdf2-%s,%s,10' % (dk, salt), 'ops = ' + S(p2)])
    host = R.choice(['127.0.0.1', 'couchdb', 'couch.%s' % r.domain])
    r.run("curl -s http://admin:%s@%s:5984/_all_dbs" % (S(p), host), [json.dumps(['_replicator', '_users', r.proj.split('-')[0], 'sessions'])])
    r.run("curl -s -X PUT http://admin:%s@%s:5984/_node/_local/_config/admins/ops -d '\"%s\"'" % (S(p), host, S(p2)), ['""'])
    if r.long:
        r.run("curl -s http://admin:%s@%s:5984/_up" % (S(p), host), ['{"status":"ok","seeds":{}}'])


@pos('etcdctl_user_auth_enable')
def t_etcd(r):
    rp, ap = pw(), pw()
    ep = ','.join('https://etcd-%d.%s:2379' % (i, r.domain) for i in range(3))
    pre = 'ETCDCTL_API=3 etcdctl --endpoints=%s --cacert=/etc/etcd/pki/ca.crt' % ep
    r.run("%s user add root --new-user-password='%s'" % (pre, S(rp)), ['User root created'])
    r.run('%s user grant-role root root' % pre, ['Role root is granted to user root'])
    r.run('%s user add app --new-user-password=%s' % (pre, S(ap)), ['User app created'])
    r.run('%s auth enable' % pre, ['Authentication Enabled'])
    rows = [('ENDPOINT', 'ID', 'VERSION', 'DB SIZE', 'IS LEADER', 'RAFT TERM', 'RAFT INDEX')]
    for i in range(3):
        rows.append(('https://etcd-%d.%s:2379' % (i, r.domain), hx(16), '3.5.14', '%d MB' % R.randint(2, 90), 'true' if i == 0 else 'false', str(R.randint(2, 40)), str(R.randint(1000, 900000))))
    r.run('%s --user root:%s endpoint status -w table' % (pre, S(rp)), table_ascii(rows))
    r.run("ETCDCTL_USER=app ETCDCTL_PASSWORD='%s' etcdctl --endpoints=%s get /config/%s/ --prefix --keys-only" % (S(ap), ep.split(',')[0], r.proj),
          ['/config/%s/feature-flags' % r.proj, '', '/config/%s/rate-limits' % r.proj, ''])


@pos('minio_mc_alias_config_json')
def t_minio(r):
    ak, sk = minio_access(), minio_secret()
    url = 'https://s3.%s' % r.domain
    r.run('mc alias set %s %s %s %s' % (r.env, url, ak, S(sk)), ['Added `%s` successfully.' % r.env])
    cfg = ['{', '\t"version": "10",', '\t"aliases": {', '\t\t"gcs": {', '\t\t\t"url": "https://storage.googleapis.com",',
           '\t\t\t"accessKey": "YOUR-ACCESS-KEY-HERE",', '\t\t\t"secretKey": "YOUR-SECRET-KEY-HERE",', '\t\t\t"api": "S3v2",', '\t\t\t"path": "dns"', '\t\t},',
           '\t\t"local": {', '\t\t\t"url": "http://localhost:9000",', '\t\t\t"accessKey": "",', '\t\t\t"secretKey": "",', '\t\t\t"api": "S3v4",', '\t\t\t"path": "auto"', '\t\t},',
           '\t\t"play": {', '\t\t\t"url": "https://play.min.io",', '\t\t\t"accessKey": "Q3AM3UQ867SPQQA43P2F",',
           '\t\t\t"secretKey": "zuf+tfteSlswRu7BJ86wekitnifILbZam1KYY3TG",', '\t\t\t"api": "S3v4",', '\t\t\t"path": "auto"', '\t\t},',
           '\t\t"%s": {' % r.env, '\t\t\t"url": "%s",' % url, '\t\t\t"accessKey": "%s",' % ak, '\t\t\t"secretKey": "%s",' % S(sk),
           '\t\t\t"api": "s3v4",', '\t\t\t"path": "auto"', '\t\t}', '\t}', '}']
    r.view('~/.mc/config.json', cfg)
    up = pw()
    svc = R.choice(['svc-backup', 'loki', 'thanos', 'velero'])
    r.run('mc admin user add %s %s \'%s\'' % (r.env, svc, S(up)), ['Added user `%s` successfully.' % svc])
    if r.long or R.random() < 0.5:
        sak, ssk = minio_access(), minio_secret()
        r.run('mc admin user svcacct add %s %s' % (r.env, svc), ['Access Key: ' + sak, 'Secret Key: ' + S(ssk), 'Expiration: no-expiry'])


# ================================================================ positives: migrations and ORM configs
@pos('prisma_env_migrate_deploy')
def t_prisma(r):
    p = pw('url')
    sp = pw('url')
    host = R.choice(['db.%s' % r.domain, '%s.%s.%s.rds.amazonaws.com' % (r.proj, lc(12), r.region), 'ep-%s-%s.%s.aws.neon.tech' % (R.choice(WORDS), R.choice(WORDS), r.region)])
    db = r.proj.split('-')[0]
    r.view('.env', ['# Environment variables declared in this file are automatically made available to Prisma.',
                    '# See the documentation for more detail: https://pris.ly/d/prisma-schema#accessing-environment-variables-from-the-schema', '',
                    'DATABASE_URL="postgresql://%s:%s@%s:5432/%s?schema=public&sslmode=require"' % (db, S(p), host, db),
                    'SHADOW_DATABASE_URL="postgresql://postgres:%s@localhost:5433/%s_shadow"' % (S(sp), db)])
    ts_ = r.clock.iso(0).replace('-', '').replace(':', '').replace('T', '')[:14]
    out = ['Environment variables loaded from .env', 'Prisma schema loaded from prisma/schema.prisma',
           'Datasource "db": PostgreSQL database "%s", schema "public" at "%s:5432"' % (db, host), '',
           '%d migrations found in prisma/migrations' % R.randint(3, 20), '', 'Applying migration `%s_add_outbox`' % ts_, '',
           'The following migration(s) have been applied:', '', 'migrations/', '  └─ %s_add_outbox/' % ts_, '    └─ migration.sql', '',
           'All migrations have been successfully applied.']
    r.run('npx prisma migrate deploy', out, ms=R.randint(2000, 9000))
    if r.long:
        r.run('npx prisma migrate status', ['Environment variables loaded from .env', 'Prisma schema loaded from prisma/schema.prisma',
                                            'Datasource "db": PostgreSQL database "%s", schema "public" at "%s:5432"' % (db, host), '',
                                            '%d migrations found in prisma/migrations' % R.randint(3, 20), '', 'Database schema is up to date!'])


@pos('django_databases_email_diff')
def t_django(r):
    p = pw()
    sg = sendgrid_key()
    host = 'db.' + r.domain
    out = ['diff --git a/config/settings/production.py b/config/settings/production.py', 'index %s..%s 100644' % (hx(7), hx(7)),
           '--- a/config/settings/production.py', '+++ b/config/settings/production.py', '@@ -41,24 +41,11 @@ ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")',
           ' ', '-DATABASES = {', '-    "default": {', '-        "ENGINE": "django.db.backends.postgresql",', '-        "NAME": "%s",' % r.proj.split('-')[0],
           '-        "USER": "%s",' % r.proj.split('-')[0], '-        "PASSWORD": "%s",' % S(p), '-        "HOST": "%s",' % host, '-        "PORT": "5432",',
           '-        "CONN_MAX_AGE": 60,', '-    }', '-}', '+DATABASES = {"default": env.db("DATABASE_URL")}',
           '+DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)', ' ',
           ' EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"', ' EMAIL_HOST = "smtp.sendgrid.net"', ' EMAIL_PORT = 587',
           ' EMAIL_USE_TLS = True', ' EMAIL_HOST_USER = "apikey"', '-EMAIL_HOST_PASSWORD = "%s"' % S(sg), '+EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD")',
           ' DEFAULT_FROM_EMAIL = "%s <noreply@%s>"' % (r.org.title(), r.domain)]
    r.run('git diff config/settings/production.py', out)
    r.say('Moving the values into the environment; I\'ll put them in the deploy secret rather than the repo.')
    if r.long or R.random() < 0.5:
        r.run('git log -S "%s" --oneline -- config/settings/production.py' % S(sg[:12] if False else sg),
              ['%s %s' % (hx(7), R.choice(EN_SUBJECTS)), '%s initial production settings' % hx(7)])


@pos('rails_database_yml_console')
def t_rails(r):
    p = pw('yaml')
    db = r.proj.replace('-', '_')
    lines = ['default: &default', '  adapter: postgresql', '  encoding: unicode', '  pool: <%= ENV.fetch("RAILS_MAX_THREADS") { 5 } %>', '',
             'development:', '  <<: *default', '  database: %s_development' % db, '', 'test:', '  <<: *default', '  database: %s_test' % db, '',
             'production:', '  <<: *default', '  database: %s_production' % db, '  username: %s' % db, '  password: %s' % S(p),
             '  host: %s' % ('db.' + r.domain), '', 'cache:', '  <<: *default', '  database: %s_cache' % db,
             '  username: %s' % db, '  password: <%= ENV["CACHE_DATABASE_PASSWORD"] %>']
    r.view('config/database.yml', lines)
    out = ['{adapter: "postgresql",', ' encoding: "unicode",', ' pool: 5,', ' database: "%s_production",' % db, ' username: "%s",' % db,
           ' password: "%s",' % S(p), ' host: "db.%s"}' % r.domain]
    r.run("RAILS_ENV=production bin/rails runner 'pp ActiveRecord::Base.connection_db_config.configuration_hash'", out)


@pos('flyway_conf_migrate_output')
def t_flyway(r):
    p = pw('ini')
    host = R.choice(['db', 'localhost', 'pg.%s' % r.domain])
    db = r.proj.split('-')[0]
    r.view('conf/flyway.conf', ['flyway.url=jdbc:postgresql://%s:5432/%s' % (host, db), 'flyway.user=flyway', 'flyway.password=' + S(p),
                                'flyway.schemas=public', 'flyway.locations=filesystem:sql', 'flyway.baselineOnMigrate=true', 'flyway.cleanDisabled=true'])
    v = R.randint(5, 30)
    r.run('flyway -configFiles=conf/flyway.conf migrate', ['Flyway OSS Edition 10.15.0 by Redgate', '', 'See release notes here: https://rd.gt/416ObMi',
                                                           'Database: jdbc:postgresql://%s:5432/%s (PostgreSQL 16.3)' % (host, db),
                                                           'Successfully validated %d migrations (execution time 00:00.0%02ds)' % (v, R.randint(10, 99)),
                                                           'Current version of schema "public": %d' % (v - 1),
                                                           'Migrating schema "public" to version "%d - add outbox"' % v,
                                                           'Successfully applied 1 migration to schema "public", now at version v%d (execution time 00:00.0%02ds)' % (v, R.randint(10, 99))])
    if r.long or R.random() < 0.5:
        rows = [('Category', 'Version', 'Description', 'Type', 'Installed On', 'State')]
        for i in range(max(1, v - 4), v + 1):
            rows.append(('Versioned', str(i), R.choice(['create accounts', 'add outbox', 'index events', 'add push tokens', 'drop legacy']), 'SQL', r.clock.sp(0), 'Success'))
        r.run('flyway -url=jdbc:postgresql://%s:5432/%s -user=flyway -password=%s info' % (host, db, S(p)),
              ['Flyway OSS Edition 10.15.0 by Redgate', 'Schema version: %d' % v, ''] + table_ascii(rows))


@pos('liquibase_properties_update_log')
def t_liquibase(r):
    p = pw('yaml')
    host = R.choice(['db', 'mysql.%s' % r.domain, 'localhost'])
    db = r.proj.split('-')[0]
    r.view('liquibase.properties', ['changeLogFile: db/changelog/db.changelog-master.yaml', 'url: jdbc:mysql://%s:3306/%s' % (host, db),
                                    'username: liquibase', 'password: ' + S(p), 'liquibase.hub.mode: off', 'liquibase.showBanner: false'])
    n = R.randint(5, 20)
    out = ['Starting Liquibase at %s (version 4.28.0 #2272 built at 2024-05-16 19:00+0000)' % r.clock.hms(), 'Liquibase Version: 4.28.0',
           'Liquibase Open Source 4.28.0 by Liquibase', 'Running Changeset: db/changelog/changes/%03d-outbox.yaml::%d::%s' % (n, n, r.user), '',
           'UPDATE SUMMARY', 'Run:                          1', 'Previously run:               %d' % (n - 1), 'Filtered out:                 0',
           '-------------------------------', 'Total change sets:            %d' % n, '',
           'Liquibase: Update has been successful. Rows affected: 1', "Liquibase command 'update' was executed successfully."]
    r.run('liquibase update', out, ms=R.randint(3000, 9000))
    if r.long:
        r.run('liquibase --url=jdbc:mysql://%s:3306/%s --username=liquibase --password=%s status --verbose' % (host, db, S(p)),
              ['Starting Liquibase at %s (version 4.28.0 #2272 built at 2024-05-16 19:00+0000)' % r.clock.hms(), 'Liquibase Version: 4.28.0',
               'liquibase@%s@jdbc:mysql://%s:3306/%s is up to date' % (host, host, db), "Liquibase command 'status' was executed successfully."])


@pos('alembic_ini_sqlalchemy_url_grep')
def t_alembic(r):
    p, tp = pw('url'), pw('url')
    out = ['alembic.ini:63:sqlalchemy.url = postgresql+psycopg://app:%s@localhost:5432/%s' % (S(p), r.proj.split('-')[0]),
           '.env.test:2:DATABASE_URL=postgresql+asyncpg://test:%s@127.0.0.1:5433/test' % S(tp),
           'app/db.py:9:engine = create_async_engine(settings.database_url, echo=False)',
           'app/settings.py:14:    database_url: PostgresDsn = Field(alias="DATABASE_URL")']
    r.run("rg -n 'sqlalchemy.url|DATABASE_URL|database_url' alembic.ini .env.test app/", out)
    a, b = hx(12), hx(12)
    r.run('alembic upgrade head', ['INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.', 'INFO  [alembic.runtime.migration] Will assume transactional DDL.',
                                   'INFO  [alembic.runtime.migration] Running upgrade %s -> %s, add outbox table' % (a, b)])
    if r.long or R.random() < 0.5:
        r.run('alembic current -v', ['INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.', 'INFO  [alembic.runtime.migration] Will assume transactional DDL.',
                                     'Current revision(s) for postgresql+psycopg://app:***@localhost:5432/%s:' % r.proj.split('-')[0],
                                     'Rev: %s (head)' % b, 'Parent: %s' % a, 'Path: %s/migrations/versions/%s_add_outbox_table.py' % (r.cwd, b), '',
                                     '    add outbox table', '', '    Revision ID: %s' % b, '    Revises: %s' % a, '    Create Date: %s' % r.clock.sp(6)])


# ================================================================ negatives: Kafka
def kafka_cluster_id():
    return fresh(lambda: b64u(rb(16)))


@neg('kafka_topics_describe_under_replicated')
def n_topics_describe(r):
    out = []
    by_topic = R.random() < 0.6
    picked = R.sample(TOPICS[:12], 1 if by_topic else (R.randint(2, 3) if not r.long else 4))
    for t in picked:
        np_ = R.choice([3, 6, 12])
        tid = kafka_cluster_id()
        out.append('Topic: %s\tTopicId: %s\tPartitionCount: %d\tReplicationFactor: 3\tConfigs: min.insync.replicas=2,cleanup.policy=%s,segment.bytes=1073741824,retention.ms=%d' % (
            t, tid, np_, R.choice(['delete', 'compact']), R.choice([604800000, 259200000, -1])))
        for p in range(np_ if r.long else min(np_, 6)):
            reps = R.sample([1, 2, 3, 4, 5], 3)
            isr = reps if R.random() < 0.8 else reps[:2]
            out.append('\tTopic: %s\tPartition: %d\tLeader: %d\tReplicas: %s\tIsr: %s\tElr: \tLastKnownElr: ' % (t, p, reps[0], ','.join(map(str, reps)), ','.join(map(str, isr))))
    r.run('kafka-topics.sh --bootstrap-server broker-1:9093 --command-config config/admin.properties --describe ' + ('--topic ' + picked[0] if by_topic else '--under-replicated-partitions'), out)
    r.run('kafka-metadata-quorum.sh --bootstrap-server broker-1:9093 --command-config config/admin.properties describe --status',
          ['ClusterId:              %s' % kafka_cluster_id(), 'LeaderId:               %d' % R.randint(1, 3), 'LeaderEpoch:            %d' % R.randint(1, 90),
           'HighWatermark:          %d' % R.randint(10 ** 5, 10 ** 8), 'MaxFollowerLag:         0', 'MaxFollowerLagTimeMs:   %d' % R.randint(0, 400),
           'CurrentVoters:          [1,2,3]', 'CurrentObservers:       [4,5]'])


@neg('kafka_consumer_groups_members_offsets')
def n_groups(r):
    g = R.choice(['orders-projector', 'mailer', 'sms-dispatch', 'search-indexer'])
    out = ['', 'GROUP%sCONSUMER-ID%sHOST            CLIENT-ID%s#PARTITIONS  ASSIGNMENT' % (' ' * 14, ' ' * 52, ' ' * 24)]
    for i in range(R.randint(2, 4)):
        cid = 'consumer-%s-%d' % (g, i + 1)
        out.append('%-19s%-63s%-16s%-33s%-13d%s' % (g, '%s-%s' % (cid, uuid4()), '/10.2.%d.%d' % (R.randint(0, 9), R.randint(2, 250)), cid, R.randint(1, 4),
                                                   '%s(%s)' % (R.choice(TOPICS[:6]), ','.join(str(x) for x in sorted(R.sample(range(12), 2))))))
    r.run('kafka-consumer-groups.sh --bootstrap-server broker:9093 --command-config config/admin.properties --describe --group %s --members --verbose' % g, out)
    f_consumer_groups(r)
    if r.long:
        out = ['', 'GROUP%sCOORDINATOR (ID)%sASSIGNMENT-STRATEGY  STATE           #MEMBERS' % (' ' * 14, ' ' * 30),
               '%-19s%-47s%-21s%-16s%d' % (g, 'b-2.%s.kafka.%s.amazonaws.com:9096 (2)' % (lc(6), r.region), 'cooperative-sticky', 'Stable', R.randint(1, 6))]
        r.run('kafka-consumer-groups.sh --bootstrap-server broker:9093 --command-config config/admin.properties --describe --group %s --state' % g, out)


@neg('kafka_scram_zk_salted_hashes_describe')
def n_scram_hashes(r):
    users = R.sample(['alice', 'orders-svc', 'mailer', 'connect-worker', 'ksqldb', 'mirror-maker'], R.randint(2, 4))
    out = []
    for u in users:
        out.append("SCRAM credential configs for user-principal '%s' are SCRAM-SHA-256=iterations=%d, SCRAM-SHA-512=iterations=4096" % (u, R.choice([4096, 8192])))
    r.run('kafka-configs.sh --bootstrap-server broker:9093 --command-config config/admin.properties --describe --entity-type users', out)
    for u in users[:2]:
        salt = kafka_scram_salt()
        _, st, sv = scram_creds(pw(), 'SHA-512', 4096, base64.b64decode(salt))
        salt2 = kafka_scram_salt()
        _, st2, sv2 = scram_creds(pw(), 'SHA-256', 8192, base64.b64decode(salt2))
        r.run('zookeeper-shell.sh zk-0.zk:2181 get /config/users/%s 2>/dev/null | tail -n 1' % u,
              ['{"version":1,"config":{"SCRAM-SHA-512":"salt=%s,stored_key=%s,server_key=%s,iterations=4096","SCRAM-SHA-256":"salt=%s,stored_key=%s,server_key=%s,iterations=8192"}}' % (salt, st, sv, salt2, st2, sv2)])
    r.say('Those are salted SCRAM verifiers (salt, StoredKey, ServerKey), not the passwords; nothing to rotate from this output.')


@neg('kafka_client_config_provider_placeholders')
def n_kafka_placeholders(r):
    lines = ['# values resolved at runtime by the config providers below', 'config.providers=file,env',
             'config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider',
             'config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider', '',
             'bootstrap.servers=${env:KAFKA_BOOTSTRAP_SERVERS}', 'security.protocol=SASL_SSL', 'sasl.mechanism=SCRAM-SHA-512',
             'sasl.jaas.config=%s required username="${env:KAFKA_USERNAME}" password="${file:/opt/secrets/kafka.properties:password}";' % SCRAM_MOD,
             'ssl.truststore.location=/etc/kafka/secrets/truststore.jks', 'ssl.truststore.password=${file:/opt/secrets/kafka.properties:truststore.password}',
             'ssl.keystore.password=${KAFKA_KEYSTORE_PASSWORD}', 'client.id=%s' % r.proj]
    r.view('config/client.properties', lines)
    out = ['KAFKA_BOOTSTRAP_SERVERS=%s' % msk_brokers(r), 'KAFKA_USERNAME=%s' % r.proj, 'KAFKA_PASSWORD=<redacted>', 'KAFKA_KEYSTORE_PASSWORD=****']
    r.run("grep ^KAFKA_ .env.example", out)
    if r.long or R.random() < 0.5:
        r.view('docker-compose.override.yml', ['services:', '  app:', '    environment:', '      KAFKA_SASL_USERNAME: ${KAFKA_USERNAME:?set me}',
                                               '      KAFKA_SASL_PASSWORD: ${KAFKA_PASSWORD:?set me}', '      KAFKA_SASL_MECHANISM: SCRAM-SHA-512',
                                               '    secrets:', '      - kafka_client_props', 'secrets:', '  kafka_client_props:', '    file: ./secrets/kafka.properties'])


@neg('confluent_api_key_list_and_cluster_describe')
def n_confluent_list(r):
    lkc, env = 'lkc-' + lc(5), 'env-' + lc(5)
    out = ['  Current |       Key        |     Description      |   Owner   |        Owner Email         | Resource Type |   Resource   |       Created',
           '----------+------------------+----------------------+-----------+----------------------------+---------------+--------------+-----------------------']
    for i in range(R.randint(3, 7)):
        out.append('  %-7s | %s | %-20s | %-9s | %-26s | %-13s | %-12s | %sT%02d:%02d:%02dZ' % (
            '*' if i == 0 else '', confluent_key(), R.choice(['orders-svc', 'connect', 'ksql', 'ci', 'terraform', 'kafka-ui']), R.choice(['u-', 'sa-']) + lc(5),
            R.choice(['%s@%s' % (r.user, r.domain), '<service account>']), R.choice(['kafka', 'kafka', 'cloud']), R.choice([lkc, '']),
            r.clock.date(), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59)))
    r.run('confluent api-key list', out)
    host = cc_host(r)
    rows = [('Current', 'true'), ('ID', lkc), ('Name', '%s-%s' % (r.proj, r.env)), ('Type', R.choice(['BASIC', 'STANDARD', 'DEDICATED'])),
            ('Ingress Limit (MB/s)', '250'), ('Egress Limit (MB/s)', '750'), ('Storage', 'Infinite'), ('Provider', 'aws'), ('Region', r.region),
            ('Availability', 'single-zone'), ('Status', 'UP'), ('Endpoint', 'SASL_SSL://%s:9092' % host), ('REST Endpoint', 'https://%s:443' % host),
            ('Topic Count', str(R.randint(5, 90)))]
    w = max(len(a) for a, _ in rows)
    v = max(len(b) for _, b in rows)
    out = ['+' + '-' * (w + 2) + '+' + '-' * (v + 2) + '+'] + ['| %s | %s |' % (a.ljust(w), b.ljust(v)) for a, b in rows] + ['+' + '-' * (w + 2) + '+' + '-' * (v + 2) + '+']
    r.run('confluent kafka cluster describe ' + lkc, out)


@neg('schema_registry_subject_ids_fingerprints')
def n_schema_reg(r):
    host = cc_host(r, 'psrc')
    subj = R.choice(TOPICS[:8]) + '-value'
    r.run('curl -s -u "$SR_API_KEY:$SR_API_SECRET" https://%s/subjects | jq -c' % host,
          [json.dumps([t + '-value' for t in R.sample(TOPICS[:10], 5)])])
    vers = list(range(1, R.randint(3, 7)))
    r.run('curl -s -u "$SR_API_KEY:$SR_API_SECRET" https://%s/subjects/%s/versions' % (host, subj), [json.dumps(vers)])
    sid = R.randint(100001, 100999)
    schema = json.dumps({'type': 'record', 'name': 'Event', 'fields': [{'name': 'id', 'type': 'string'}, {'name': 'payload', 'type': 'bytes'}]}, separators=(',', ':'))
    r.run('curl -s -u "$SR_API_KEY:$SR_API_SECRET" https://%s/schemas/ids/%d | jq -r .schema | md5sum' % (host, sid), ['%s  -' % hx(32)])
    r.run('curl -s -u "$SR_API_KEY:$SR_API_SECRET" https://%s/subjects/%s/versions/latest | jq' % (host, subj),
          ['{', '  "subject": "%s",' % subj, '  "version": %d,' % vers[-1], '  "id": %d,' % sid, '  "guid": "%s",' % uuid4(),
           '  "schemaType": "AVRO",' if R.random() < 0.5 else '  "references": [],', '  "schema": %s' % json.dumps(schema), '}'])
    if r.long:
        r.run('kafka-avro-console-consumer --bootstrap-server broker:9092 --topic %s --property schema.registry.url=http://schema-registry:8081 --property print.schema.ids=true --max-messages 3' % subj[:-6],
              ['%s\t%d' % (json.dumps({'id': oid(r.clock.epoch()), 'payload': rb64(R.randint(8, 30))}), sid) for _ in range(3)] + ['Processed a total of 3 messages'])


@neg('kafka_console_consumer_b64_payload_headers')
def n_console_b64(r):
    t = R.choice(TOPICS[:10])
    out = []
    for i in range(R.randint(3, 9) if r.long else 3):
        r.clock.tick()
        payload = b64(json.dumps({'type': R.choice(['order.created', 'email.requested', 'push.requested']), 'id': uuid4(),
                                  'tenant': r.org, 'at': r.clock.iso()}, separators=(',', ':')).encode())
        hdrs = 'traceparent:00-%s-%s-01,idempotency-key:%s,content-encoding:base64' % (hx(32), hx(16), uuid4())
        out.append('CreateTime:%d\tPartition:%d\tOffset:%d\t%s\t%s\t%s' % (r.clock.ms(), R.randint(0, 11), R.randint(10 ** 5, 10 ** 8), hdrs, uuid4(), payload))
    out.append('Processed a total of %d messages' % len(out))
    r.run('kafka-console-consumer.sh --bootstrap-server broker:9093 --consumer.config config/client.properties --topic %s --from-beginning --max-messages %d '
          '--property print.timestamp=true --property print.partition=true --property print.offset=true --property print.headers=true --property print.key=true' % (t, len(out) - 1), out)
    r.run("echo '%s' | base64 -d | jq -c ." % out[0].rsplit('\t', 1)[1], [base64.b64decode(out[0].rsplit('\t', 1)[1]).decode()])


@neg('kafka_broker_config_values_hidden_log')
def n_broker_hidden(r):
    out = ['[%s] INFO KafkaConfig values: ' % r.clock.sp(3).replace('.', ','), '\tadvertised.listeners = SASL_SSL://b-1.%s:9093' % r.domain,
           '\tauto.create.topics.enable = false', '\tbroker.id = 1', '\tcontrolled.shutdown.enable = true',
           '\tlistener.name.sasl_ssl.scram-sha-512.sasl.jaas.config = [hidden]', '\tlisteners = SASL_SSL://0.0.0.0:9093',
           '\tlog.dirs = /var/lib/kafka/data', '\tpassword.encoder.secret = null', '\tpassword.encoder.old.secret = null',
           '\tsasl.enabled.mechanisms = [SCRAM-SHA-512]', '\tsasl.jaas.config = null', '\tsasl.mechanism.inter.broker.protocol = SCRAM-SHA-512',
           '\tssl.key.password = [hidden]', '\tssl.keystore.location = /etc/kafka/secrets/broker.keystore.p12', '\tssl.keystore.password = [hidden]',
           '\tssl.keystore.type = PKCS12', '\tssl.truststore.password = [hidden]', '\tzookeeper.clientCnxnSocket = null', ' (kafka.server.KafkaConfig)']
    if r.long:
        out += ['[%s] INFO [KafkaRaftServer nodeId=1] Kafka Server started (kafka.server.KafkaRaftServer)' % r.clock.sp(3).replace('.', ','),
                '[%s] INFO [SocketServer listenerType=BROKER, nodeId=1] Enabling request processing. (kafka.network.SocketServer)' % r.clock.sp(3).replace('.', ','),
                '[%s] INFO Cluster ID = %s (kafka.server.KafkaServer)' % (r.clock.sp(3).replace('.', ','), kafka_cluster_id())]
        for _ in range(R.randint(3, 8)):
            r.clock.tick()
            out.append('[%s] INFO [SocketServer listenerType=BROKER, nodeId=1] Failed authentication with /10.0.%d.%d (channelId=10.0.1.5:9093-10.0.%d.%d:%d-%d) (Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512) (org.apache.kafka.common.network.Selector)' % (
                r.clock.sp(3).replace('.', ','), R.randint(0, 9), R.randint(2, 250), R.randint(0, 9), R.randint(2, 250), R.randint(30000, 60000), R.randint(1, 900)))
    r.run("grep -A 20 'KafkaConfig values' /var/log/kafka/server.log | head -n %d" % (len(out)), out)


@neg('connect_connector_status_externalized_refs')
def n_connect_refs(r):
    name = R.choice(['jdbc-sink-orders', 'debezium-pg-accounts', 's3-sink-events', 'es-sink-search'])
    cfg = {'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'database.hostname': 'db.' + r.domain,
           'database.port': '5432', 'database.user': '${file:/opt/connect/secrets/pg.properties:user}',
           'database.password': '${file:/opt/connect/secrets/pg.properties:password}', 'database.dbname': r.proj.split('-')[0],
           'topic.prefix': 'cdc', 'plugin.name': 'pgoutput', 'slot.name': 'debezium_%s' % r.proj.split('-')[0],
           'publication.name': 'dbz_publication', 'schema.history.internal.kafka.bootstrap.servers': 'broker:9092',
           'value.converter.basic.auth.user.info': '${secrets:kafka-connect/schema-registry:user-info}',
           'name': name}
    r.run('curl -s http://connect:8083/connectors/%s/config | jq' % name, json.dumps(cfg, indent=2).split('\n'))
    st = {'name': name, 'connector': {'state': 'RUNNING', 'worker_id': '10.0.3.%d:8083' % R.randint(2, 250)},
          'tasks': [{'id': 0, 'state': 'RUNNING', 'worker_id': '10.0.3.%d:8083' % R.randint(2, 250)}], 'type': 'source'}
    r.run('curl -s http://connect:8083/connectors/%s/status | jq -c' % name, [json.dumps(st, separators=(',', ':'))])
    if r.long:
        r.run('curl -s http://connect:8083/connectors/%s/offsets | jq' % name,
              ['{', '  "offsets": [', '    {', '      "partition": {', '        "server": "cdc"', '      },', '      "offset": {',
               '        "lsn_proc": %d,' % R.randint(10 ** 8, 10 ** 10), '        "lsn_commit": %d,' % R.randint(10 ** 8, 10 ** 10),
               '        "lsn": %d,' % R.randint(10 ** 8, 10 ** 10), '        "txId": %d,' % R.randint(1000, 900000), '        "ts_usec": %d' % (r.clock.ms() * 1000), '      }', '    }', '  ]', '}'])


# ================================================================ negatives: RabbitMQ, MQTT, NATS
@neg('rabbitmq_definitions_hashes_only')
def n_rabbit_defs(r):
    lines = ['{', '  "rabbit_version": "3.13.2",', '  "users": [']
    us = ['admin', 'orders', 'celery', 'shovel', 'monitoring']
    for i, u in enumerate(us):
        lines.append('    {"name": "%s", "password_hash": "%s", "hashing_algorithm": "rabbit_password_hashing_sha256", "tags": %s, "limits": {}}%s' % (
            u, rabbit_hash(pw()), json.dumps(['administrator'] if u == 'admin' else (['monitoring'] if u == 'monitoring' else [])), ',' if i < len(us) - 1 else ''))
    lines += ['  ],', '  "vhosts": [{"name": "/"}, {"name": "orders"}],', '  "parameters": [',
              '    {"value": {"src-uri": "amqps://mq-old.%s:5671?auth_mechanism=external&cacertfile=/etc/rabbitmq/ca.pem&certfile=/etc/rabbitmq/shovel.pem&keyfile=/etc/rabbitmq/shovel-key.pem", "src-queue": "orders.events", "dest-uri": "amqp://", "dest-queue": "orders.events"}, "vhost": "/", "component": "shovel", "name": "from-old"}' % r.domain,
              '  ],', '  "global_parameters": [{"name": "internal_cluster_id", "value": "rabbitmq-cluster-id-%s"}]' % fresh(rs, AN + '-_', 22), '}']
    r.view('deploy/rabbitmq/definitions.json', lines)
    r.say('The users carry `password_hash` values (salted SHA-256), so the file holds no clear passwords; the shovel authenticates with a client certificate.')


@neg('rabbitmqctl_list_connections_clients')
def n_rabbit_conns(r):
    out = ['Listing connections ...', 'name\tuser\tstate\tssl\tprotocol\tclient_properties']
    for _ in range(R.randint(3, 8)):
        ip = '10.0.%d.%d' % (R.randint(0, 9), R.randint(2, 250))
        cp = '[{"product","py-amqp"},{"version","5.2.0"},{"connection_name","%s-%s"},{"capabilities",[{"publisher_confirms",true}]}]' % (r.proj, uuid4())
        out.append('%s:%d -> 10.0.1.5:5671\t%s\trunning\ttrue\t{0,9,1}\t%s' % (ip, R.randint(30000, 60000), R.choice(['orders', 'celery', 'mailer']), cp))
    r.run(mq_exec(r, 'rabbitmqctl list_connections name user state ssl protocol client_properties'), out)
    out = ['Listing channels ...', 'pid\tuser\tconsumer_count\tmessages_unacknowledged']
    for _ in range(R.randint(2, 5)):
        out.append('<rabbit@mq-0.%d.%d.0>\t%s\t%d\t%d' % (R.randint(1700000000, 1800000000), R.randint(1000, 9999), R.choice(['orders', 'celery']), R.randint(0, 4), R.randint(0, 90)))
    r.run(mq_exec(r, 'rabbitmqctl list_channels pid user consumer_count messages_unacknowledged'), out)


@neg('rabbitmq_management_overview_api')
def n_rabbit_overview(r):
    ov = {'management_version': '3.13.2', 'rates_mode': 'basic', 'product_version': '3.13.2', 'product_name': 'RabbitMQ',
          'rabbitmq_version': '3.13.2', 'cluster_name': 'rabbit@mq-0.%s' % r.domain, 'erlang_version': '26.2.5',
          'message_stats': {'publish': R.randint(10 ** 5, 10 ** 8), 'deliver_get': R.randint(10 ** 5, 10 ** 8)},
          'object_totals': {'channels': R.randint(1, 90), 'connections': R.randint(1, 40), 'consumers': R.randint(1, 60), 'exchanges': R.randint(8, 40), 'queues': R.randint(4, 90)},
          'node': 'rabbit@mq-0', 'listeners': [{'node': 'rabbit@mq-0', 'protocol': 'amqp/ssl', 'ip_address': '::', 'port': 5671},
                                               {'node': 'rabbit@mq-0', 'protocol': 'https', 'ip_address': '::', 'port': 15671}]}
    r.run('curl -s -u "$RABBITMQ_USER:$RABBITMQ_PASS" https://mq.%s:15671/api/overview | jq' % r.domain, json.dumps(ov, indent=2).split('\n'))
    if r.long or R.random() < 0.5:
        r.run('curl -s -u "$RABBITMQ_USER:$RABBITMQ_PASS" https://mq.%s:15671/api/whoami' % r.domain, [json.dumps({'name': 'monitoring', 'tags': ['monitoring']})])
        r.run(mq_exec(r, 'rabbitmqctl list_users --formatter json') + ' | jq -c ".[]"',
              [json.dumps({'user': u, 'tags': t}) for u, t in (('admin', ['administrator']), ('monitoring', ['monitoring']), ('orders', []))])


@neg('mosquitto_passwd_hashes_acl_log')
def n_mosq(r):
    users = R.sample(['admin', 'sensor-gw', 'dashboard', 'node-red', 'edge-01', 'historian', 'plc-bridge'], 4)
    r.run('sudo cat /etc/mosquitto/passwd', ['%s:%s' % (u, mosq_hash(pw())) for u in users])
    acl = ['# topic ACLs', 'user %s' % users[1], 'topic write plant/+/telemetry', '', 'user %s' % users[2], 'topic read plant/#', '',
           'pattern readwrite clients/%c/#']
    r.view('/etc/mosquitto/aclfile', acl)
    out = []
    for _ in range(R.randint(3, 9) if r.long else 4):
        r.clock.tick(1, 30)
        u = R.choice(users[1:])
        out.append('%d: New client connected from 10.20.%d.%d:%d as %s-%s (p5, c1, k60, u\'%s\').' % (r.clock.epoch(), R.randint(0, 9), R.randint(2, 250), R.randint(30000, 60000), u, hx(8), u))
    out.append("%d: Client auto-%s disconnected, not authorised." % (r.clock.epoch(), uuid4().upper()))
    r.run('sudo tail -n %d /var/log/mosquitto/mosquitto.log' % len(out), out)


@neg('mosquitto_sub_debug_base64_payloads')
def n_mosq_sub(r):
    out = ['Client null sending CONNECT', 'Client null received CONNACK (0)', "Client null sending SUBSCRIBE (Mid: 1, Topic: fleet/#, QoS: 1, Options: 0x00)",
           'Client null received SUBACK', 'Subscribed (mid: 1): 1']
    for i in range(R.randint(3, 8) if r.long else 3):
        t = 'fleet/truck-%02d/%s' % (R.randint(1, 40), R.choice(['gps', 'can', 'state']))
        pl = rb64(R.choice([12, 18, 24, 33]))
        out.append("Client null received PUBLISH (d0, q1, r0, m%d, '%s', ... (%d bytes))" % (i + 2, t, len(pl)))
        out.append('Client null sending PUBACK (m%d, rc0)' % (i + 2))
        out.append('%s %s' % (t, pl))
    r.run("mosquitto_sub -h mqtt.%s -p 8883 --cafile ca.crt -u \"$MQTT_USER\" -P \"$MQTT_PASS\" -t 'fleet/#' -q 1 -v -d -C %d" % (r.domain, (len(out) - 5) // 3), out)
    r.say('Payloads are base64 CBOR frames from the trackers; decoding one to check the schema version.')
    r.run("echo '%s' | base64 -d | xxd | head -n 2" % out[-1].split(' ', 1)[1],
          ['00000000: %s  ................' % ' '.join(hx(4) for _ in range(8))])


@neg('nsc_describe_account_public_nkeys')
def n_nsc(r):
    op, acct = nkey_pair('O'), nkey_pair('A')
    sk = nkey_pair('A')
    an = R.choice(['ORDERS', 'APP', 'TELEMETRY'])
    rows = [('Name', an), ('Account ID', acct['pub']), ('Issuer ID', op['pub']), ('Issued', r.clock.sp(0) + ' UTC'), ('Expires', ''),
            ('Signing Keys', sk['pub']), ('Max Connections', 'Unlimited'), ('Max Data', 'Unlimited'), ('Max Exports', 'Unlimited'),
            ('Max Imports', 'Unlimited'), ('Max Msg Payload', '1.0 MiB (1,048,576 bytes)'), ('Max Subscriptions', 'Unlimited'),
            ('Exports Allows Wildcards', 'True'), ('Disallow Bearer Token', 'False'), ('Response Permissions', 'Not Set'), ('Jetstream', 'Enabled')]
    kw = max(len(a) for a, _ in rows)
    vw = max(len(b) for _, b in rows)
    out = ['╭' + '─' * (kw + vw + 5) + '╮', '│' + 'Account Details'.center(kw + vw + 5) + '│', '├' + '─' * (kw + 2) + '┬' + '─' * (vw + 2) + '┤']
    out += ['│ %s │ %s │' % (a.ljust(kw), b.ljust(vw)) for a, b in rows]
    out.append('╰' + '─' * (kw + 2) + '┴' + '─' * (vw + 2) + '╯')
    r.run('nsc describe account ' + an, out)
    r.run('nsc list keys --all', ['+----------------------------------------------------------------------------------------------+',
                                  '|                                             Keys                                             |',
                                  '+----------+----------------------------------------------------------+-------------+--------+',
                                  '| Entity   | Key                                                      | Signing Key | Stored |',
                                  '+----------+----------------------------------------------------------+-------------+--------+',
                                  '| %-8s | %s |             | *      |' % ('acme-op', op['pub']),
                                  '| %-8s | %s |             | *      |' % (an, acct['pub']),
                                  '| %-8s | %s | *           | *      |' % (an, sk['pub']),
                                  '+----------+----------------------------------------------------------+-------------+--------+'])


@neg('nats_stream_info_msg_ids')
def n_nats_stream(r):
    st = R.choice(['ORDERS', 'EVENTS', 'TELEMETRY'])
    first, last = R.randint(1, 900000), R.randint(10 ** 6, 10 ** 7)
    out = ['Information for Stream %s created %s' % (st, r.clock.iso(0)), '', '              Subjects: %s.>' % st.lower(),
           '              Replicas: 3', '               Storage: File', '', 'Options:', '', '             Retention: Limits',
           '       Acknowledgments: true', '        Discard Policy: Old', '      Duplicate Window: 2m0s', '', 'Cluster Information:', '',
           '                  Name: c1', '                Leader: nats-%d' % R.randint(0, 2), '               Replica: nats-1, current, seen 8ms ago',
           '               Replica: nats-2, current, seen 9ms ago', '', 'State:', '', '              Messages: %d' % (last - first),
           '                 Bytes: %.1f MiB' % R.uniform(1, 900), '        First Sequence: %d @ %s UTC' % (first, r.clock.sp(0)),
           '         Last Sequence: %d @ %s UTC' % (last, r.clock.sp(0)), '      Active Consumers: %d' % R.randint(1, 9)]
    r.run('nats stream info ' + st, out)
    out = []
    for _ in range(3):
        out += ['[#%d] Received JetStream message: stream: %s seq %d / subject: %s.created / time: %s' % (R.randint(1, 9), st, R.randint(first, last), st.lower(), r.clock.iso(0)),
                'Nats-Msg-Id: %s' % uuid4(), 'Traceparent: 00-%s-%s-01' % (hx(32), hx(16)), '', json.dumps({'id': oid(r.clock.epoch()), 'v': 2}), '']
    r.run('nats sub "%s.>" --last-per-subject --count 3' % st.lower(), out)


# ================================================================ negatives: Redis, Memcached
@neg('redis_acl_list_sha256_entries')
def n_redis_acl(r):
    host = R.choice(['cache.' + r.domain, '127.0.0.1', 'redis-master.data.svc'])
    out = []
    for u, rules in (('default', 'off nopass sanitize-payload ~* &* +@all'), ('app', 'on sanitize-payload #%s ~app:* &* -@all +@read +@write' % sha256_hex(pw())),
                     ('worker', 'on sanitize-payload #%s #%s ~jobs:* &jobs:* -@all +@stream +@list' % (sha256_hex(pw()), sha256_hex(pw()))),
                     ('replica-user', 'on sanitize-payload #%s ~* &* -@all +psync +replconf +ping' % sha256_hex(pw())),
                     ('exporter', 'on sanitize-payload #%s ~* &* -@all +info +ping +config|get +client|list +slowlog' % sha256_hex(pw()))):
        out.append('%d) "user %s %s"' % (len(out) + 1, u, rules))
    r.run('redis-cli -h %s --user admin --askpass ACL LIST' % host, ['Please input password: ' + '*' * R.randint(16, 32)] + out)
    if r.long or R.random() < 0.5:
        r.view('deploy/redis/users.acl', [x.split(') ', 1)[1].strip('"') for x in out])
    r.say('Each `#…` entry is the SHA-256 of a password, as Redis stores them; none of these is a usable credential.')


@neg('redis_monitor_auth_redacted_keys')
def n_redis_monitor(r):
    out = ['OK']
    for _ in range(R.randint(6, 16) if r.long else 6):
        r.clock.tick(0, 1)
        ip = '10.0.%d.%d:%d' % (R.randint(0, 9), R.randint(2, 250), R.randint(30000, 60000))
        c = R.choice(['"AUTH" "(redacted)"', '"HELLO" "3" "AUTH" "(redacted)" "(redacted)"', '"GET" "sess:%s"' % hx(40),
                      '"SETEX" "rl:%s" "60" "1"' % hx(16), '"XADD" "jobs:email" "*" "id" "%s"' % uuid4(), '"EXPIRE" "csrf:%s" "3600"' % hx(32),
                      '"EVALSHA" "%s" "1" "lock:orders:%s" "%s" "30000"' % (hx(40), oid(r.clock.epoch()), uuid4())])
        out.append('%d.%06d [0 %s] %s' % (r.clock.epoch(), R.randrange(10 ** 6), ip, c))
    r.run('redis-cli -h redis --user ops --askpass MONITOR | head -n %d' % len(out), out, desc='!interrupted')
    r.run('redis-cli -h redis --user ops --askpass INFO server | grep -E "run_id|redis_version|config_file"',
          ['redis_version:7.2.5', 'run_id:' + hx(40), 'config_file:/etc/redis/redis.conf'])


@neg('redis_helm_values_existing_secret_refs')
def n_redis_helm(r):
    lines = ['architecture: replication', 'auth:', '  enabled: true', '  sentinel: true', '  existingSecret: redis-auth',
             '  existingSecretPasswordKey: redis-password', '  usePasswordFiles: true', 'master:', '  persistence:', '    size: 8Gi',
             '  extraFlags:', '    - "--maxmemory-policy allkeys-lru"', 'sentinel:', '  enabled: true', '  masterSet: mymaster',
             'metrics:', '  enabled: true', '  extraEnvVars:', '    - name: REDIS_PASSWORD', '      valueFrom:', '        secretKeyRef:',
             '          name: redis-auth', '          key: redis-password']
    r.view('deploy/redis/values.yaml', lines)
    r.run('kubectl get secret redis-auth -n data -o jsonpath=\'{.data}\' | jq \'map_values("<\\(length) bytes>")\'',
          ['{', '  "redis-password": "<44 bytes>"', '}'])
    r.run("redis-cli -h redis-master.data.svc CONFIG GET requirepass", ['(error) NOAUTH Authentication required.'])
    r.run('grep -n "requirepass\\|masterauth\\|include" deploy/redis/redis.conf',
          ['88:include /etc/redis/secret.conf', '1044:# requirepass foobared', '521:# masterauth <master-password>'])


@neg('memcached_stats_metadump_keys')
def n_memcached(r):
    out = ['STAT pid %d' % R.randint(200, 9000), 'STAT uptime %d' % R.randint(1000, 9000000), 'STAT version 1.6.27', 'STAT libevent 2.1.12-stable',
           'STAT curr_connections %d' % R.randint(2, 90), 'STAT get_hits %d' % R.randint(1000, 9999999), 'STAT get_misses %d' % R.randint(10, 99999),
           'STAT evictions 0', 'END']
    r.run("printf 'stats\\r\\nquit\\r\\n' | nc cache-1.%s 11211" % r.domain, out)
    out = []
    for _ in range(R.randint(4, 12) if r.long else 5):
        k = R.choice(['sess%%3A' + hx(32), 'fragment%%3Aviews%%2F' + hx(40), 'rack%%3A%%3Aattack%%3A' + hx(16), 'token_cache%%3A' + hx(64)])
        out.append('key=%s exp=%d la=%d cas=%d fetch=%s cls=%d size=%d' % (k.replace('%%', '%'), r.clock.epoch() + R.randint(60, 90000), r.clock.epoch() - R.randint(0, 900),
                                                                          R.randint(1000, 9999999), R.choice(['yes', 'no']), R.randint(1, 40), R.randint(60, 9000)))
    out.append('END')
    r.run("printf 'lru_crawler metadump all\\r\\nquit\\r\\n' | nc cache-1.%s 11211 | head -n %d" % (r.domain, len(out)), out)


# ================================================================ negatives: mail
def dkim_sig(r, dom, sel):
    return ['DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=%s;' % dom, '\ts=%s; t=%d; x=%d; bh=%s;' % (sel, r.clock.epoch(), r.clock.epoch() + 604800, rb64(32)),
            '\th=from:to:subject:date:message-id:mime-version:content-type;', '\tb=' + rb64(256)[:70]] + ['\t ' + x for x in wrap(rb64(256)[70:], 72)]


@neg('smtp_mx_delivery_dkim_arc_headers')
def n_dkim_headers(r):
    dom = r.domain
    sel = R.choice(['s1', 'google', 'k1', 'mail', '%s2024' % r.org[:5]])
    q = pf_qid()
    lines = ['Return-Path: <bounces+%d-%s@em%d.%s>' % (R.randint(10 ** 6, 10 ** 7), hx(4), R.randint(100, 9999), dom),
             'Received: from o%d.ptr%d.%s (o%d.ptr%d.%s [149.72.%d.%d])' % (R.randint(1, 9), R.randint(1000, 9999), dom, R.randint(1, 9), R.randint(1000, 9999), dom, R.randint(0, 255), R.randint(1, 254)),
             '\tby mx.google.com with ESMTPS id %s.%d.%s' % (hx(12), R.randint(10, 999), r.clock.rfc2822()),
             'ARC-Seal: i=1; a=rsa-sha256; t=%d; cv=none;' % r.clock.epoch(), '\td=google.com; s=arc-20160816;', '\tb=' + rb64(48),
             'ARC-Authentication-Results: i=1; mx.google.com;', '\tdkim=pass header.i=@%s header.s=%s header.b=%s;' % (dom, sel, rb64(6)),
             '\tspf=pass (google.com: domain of bounces@%s designates 149.72.%d.%d as permitted sender)' % (dom, R.randint(0, 255), R.randint(1, 254))]
    lines += dkim_sig(r, dom, sel)
    lines += ['Message-ID: <%s@%s>' % (fresh(rs, AN + '-_', 22), 'geopod-ismtpd-%d' % R.randint(1, 40)), 'Date: ' + r.clock.rfc2822(),
              'From: %s <noreply@%s>' % (r.org.title(), dom), 'To: %s@%s' % (r.user, dom), 'Subject: Your receipt',
              'MIME-Version: 1.0', 'Content-Type: multipart/alternative; boundary=%s' % hx(60), 'X-SG-EID: ' + fresh(rs, AN + '+/', 120),
              'X-Entity-ID: ' + fresh(rs, AN + '+/', 22) + '==']
    r.view('tmp/bounce-sample.eml', lines)
    if r.long:
        r.run('dig +short TXT %s._domainkey.%s' % (sel, dom), ['"v=DKIM1; k=rsa; p=%s" "%s"' % (rb64(150)[:250], rb64(144))])
        r.run('dig +short TXT _dmarc.' + dom, ['"v=DMARC1; p=quarantine; rua=mailto:dmarc@%s; pct=100; adkim=s"' % dom])


@neg('swaks_hide_password_protected')
def n_swaks_hide(r):
    p = smtp_provider(r, ['sendgrid', 'mailgun', 'own', 'brevo'])
    frm, to = 'noreply@' + r.domain, '%s@%s' % (r.user, r.domain)
    out = ['=== Trying %s:587...' % p['host'], '=== Connected to %s.' % p['host'], '<-  ' + p['banner'], ' -> EHLO ' + r.host,
           '<-  250-' + p['host'], '<-  250-STARTTLS', '<-  250 ' + p['auth'], ' -> STARTTLS', '<-  220 2.0.0 Ready to start TLS',
           '=== TLS started with cipher TLSv1.3:TLS_AES_256_GCM_SHA384:256', ' ~> EHLO ' + r.host, '<~  250-' + p['host'], '<~  250 ' + p['auth']]
    if R.random() < 0.5:
        out += [' ~> AUTH LOGIN', '<~  334 VXNlcm5hbWU6', ' ~> ' + b64(p['user'].encode()), '<~  334 UGFzc3dvcmQ6', ' ~> UFJPVEVDVEVE']
    else:
        out += [' ~> AUTH PLAIN ' + b64(('\0%s\0PROTECTED' % p['user']).encode())]
    out += ['<~  235 2.7.0 Authentication successful', ' ~> MAIL FROM:<%s>' % frm, '<~  250 2.1.0 Ok', ' ~> RCPT TO:<%s>' % to, '<~  250 2.1.5 Ok',
            ' ~> DATA', '<~  354 End data with <CR><LF>.<CR><LF>', ' ~> Message-Id: ' + mid(r), ' ~> .', '<~  250 2.0.0 Ok: queued as ' + pf_qid(),
            ' ~> QUIT', '<~  221 2.0.0 Bye', '=== Connection closed with remote host.']
    r.run('swaks --to %s --from %s --server %s:587 --tls --auth --auth-user %s --auth-password "$SMTP_PASSWORD" --auth-hide-password' % (to, frm, p['host'], p['user']), out)


@neg('postfix_maillog_sasl_username_qids')
def n_maillog(r):
    out = []
    for _ in range(R.randint(8, 24) if r.long else 6):
        r.clock.tick(1, 30)
        q = pf_qid()
        pid = R.randint(1000, 90000)
        ip = '10.0.%d.%d' % (R.randint(0, 9), R.randint(2, 250))
        out.append('%s mail postfix/submission/smtpd[%d]: %s: client=app-%d[%s], sasl_method=PLAIN, sasl_username=%s@%s' % (r.clock.syslog(), pid, q, R.randint(1, 9), ip, R.choice(['alerts', 'billing', 'noreply']), r.domain))
        out.append('%s mail postfix/cleanup[%d]: %s: message-id=%s' % (r.clock.syslog(), R.randint(1000, 90000), q, mid(r, r.domain)))
        if R.random() < 0.3:
            out.append('%s mail postfix/submission/smtpd[%d]: warning: unknown[%s]: SASL LOGIN authentication failed: UGFzc3dvcmQ6' % (r.clock.syslog(), pid, '203.0.113.%d' % R.randint(2, 250)))
    r.run('sudo tail -n %d /var/log/mail.log' % len(out), out)
    r.run("postconf -n | grep -E 'sasl|relay'", ['relayhost = [smtp.sendgrid.net]:587', 'smtp_sasl_auth_enable = yes', 'smtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd',
                                               'smtpd_sasl_auth_enable = yes', 'smtpd_sasl_path = private/auth', 'smtpd_sasl_type = dovecot'])
    r.run('sudo ls -l /etc/postfix/sasl_passwd*', ['-rw------- 1 root root   %d %s /etc/postfix/sasl_passwd' % (R.randint(60, 200), r.clock.ls()),
                                                   '-rw------- 1 root root 12288 %s /etc/postfix/sasl_passwd.db' % r.clock.ls()])


@neg('dovecot_auth_lookup_hashes')
def n_dovecot(r):
    u = '%s@%s' % (R.choice(['alerts', 'support', 'bounces']), r.domain)
    def argon():
        return '{ARGON2ID}$argon2id$v=19$m=65536,t=3,p=1$%s$%s' % (rb64(16).rstrip('='), rb64(32).rstrip('='))
    out = ['passdb: %s' % u, '  user      : %s' % u, '  password  : %s' % fresh(argon), '  userdb_home: /var/vmail/%s/%s' % (r.domain, u.split('@')[0]),
           '  userdb_uid: vmail', '  userdb_gid: vmail', 'userdb: %s' % u, '  home      : /var/vmail/%s/%s' % (r.domain, u.split('@')[0]), '  uid       : 5000', '  gid       : 5000']
    r.run('sudo doveadm auth lookup ' + u, out)
    out = []
    for x in R.sample(['alerts', 'support', 'bounces', 'dmarc', 'postmaster'], 3):
        out.append('%s@%s:%s' % (x, r.domain, fresh(lambda: '{SHA512-CRYPT}$6$%s$%s' % (rs(BCRYPT_AL, 16), rs(BCRYPT_AL, 86)))))
    r.run('sudo cat /etc/dovecot/users | cut -d: -f1,2', out)
    r.run('sudo doveadm who', ['username                     # proto (pids)   (ips)', '%-28s 2 imap  (%d %d) (10.0.4.%d)' % (u, R.randint(1000, 9000), R.randint(1000, 9000), R.randint(2, 250))])


@neg('imap_fetch_bodystructure_base64_parts')
def n_imap_fetch(r):
    u = '%s@%s' % (R.choice(['bounces', 'alerts']), r.domain)
    out = ['* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ AUTH=PLAIN AUTH=XOAUTH2] Dovecot ready.',
           'a1 AUTHENTICATE PLAIN', '+ ', '[client sent credentials from ~/.netrc, %d bytes]' % R.randint(40, 70),
           'a1 OK Logged in', 'a2 SELECT INBOX', '* %d EXISTS' % R.randint(10, 900), 'a2 OK [READ-WRITE] Select completed.',
           'a3 UID FETCH %d BODY.PEEK[2]' % R.randint(1000, 9000)]
    att = b64(('Reporting-MTA: dns; mx.%s\nArrival-Date: %s\n\nFinal-Recipient: rfc822; %s@example.net\nAction: failed\nStatus: 5.1.1\n' % (r.domain, r.clock.rfc2822(), R.choice(WORDS))).encode())
    lines = wrap(att, 76)
    out.append('* 1 FETCH (UID %d BODY[2] {%d}' % (R.randint(1000, 9000), len(att) + 2 * len(lines)))
    out += lines + [')', 'a3 OK Fetch completed.', 'a4 LOGOUT', '* BYE Logging out', 'a4 OK Logout completed.']
    r.run('curl -sv --netrc "imaps://imap.%s/INBOX" -X "UID FETCH 1:* BODY.PEEK[2]" 2>&1 | grep -E "^[<>]" | cut -c3-' % r.domain if False else
          'python3 scripts/imap_peek.py --account %s --last 1 --part 2' % u, out)
    r.run("echo '%s' | base64 -d | head -n 3" % lines[0][:60], ['Reporting-MTA: dns; mx.%s' % r.domain, 'Arrival-Date: %s' % r.clock.rfc2822(), ''])


@neg('sendgrid_api_keys_list_activity_ids')
def n_sendgrid_list(r):
    keys = [{'name': n, 'api_key_id': fresh(rs, AN + '-_', 22)} for n in R.sample(['mailer-prod', 'mailer-staging', 'marketing', 'ci-smoke', 'zapier'], 3)]
    r.run('curl -s https://api.sendgrid.com/v3/api_keys -H "Authorization: Bearer $SENDGRID_API_KEY" | jq', json.dumps({'result': keys}, indent=2).split('\n'))
    msgs = []
    for _ in range(R.randint(2, 5)):
        msgs.append({'from_email': 'noreply@' + r.domain, 'msg_id': '%s.filterdrecv-%s-%d-%s-%d.0' % (fresh(rs, AN + '-_', 22), hx(10), R.randint(1, 9), hx(8).upper(), R.randint(1, 40)),
                     'subject': R.choice(['Your receipt', 'Reset your password', 'Welcome!']), 'to_email': '%s@example.com' % R.choice(WORDS),
                     'status': R.choice(['delivered', 'processed', 'not_delivered']), 'opens_count': R.randint(0, 3), 'clicks_count': 0,
                     'last_event_time': r.clock.iso(0)})
    r.run('curl -s "https://api.sendgrid.com/v3/messages?limit=%d" -H "Authorization: Bearer $SENDGRID_API_KEY" | jq' % len(msgs),
          json.dumps({'messages': msgs}, indent=2).split('\n'))
    if r.long:
        r.run('curl -s https://api.sendgrid.com/v3/templates?generations=dynamic -H "Authorization: Bearer $SENDGRID_API_KEY" | jq -r \'.result[] | [.id, .name] | @tsv\'',
              ['d-%s\t%s' % (hx(32), n) for n in ('receipt', 'password-reset', 'welcome', 'digest')])


@neg('mailgun_events_webhook_signatures')
def n_mailgun_events(r):
    dom = 'mg.' + r.domain
    items = []
    for _ in range(R.randint(2, 4)):
        r.clock.tick(1, 90)
        items.append({'event': R.choice(['delivered', 'accepted', 'opened', 'failed']), 'id': fresh(rs, AN + '-_', 22), 'timestamp': r.clock.epoch() + R.random(),
                      'storage': {'url': 'https://storage-us-east4.api.mailgun.net/v3/domains/%s/messages/%s' % (dom, fresh(rs, AN + '=', 60)), 'key': fresh(rs, AN + '=', 60)},
                      'message': {'headers': {'message-id': mid(r, dom)[1:-1], 'from': 'noreply@' + dom, 'to': '%s@example.org' % R.choice(WORDS)}},
                      'recipient': '%s@example.org' % R.choice(WORDS)})
    r.run('curl -s --user "api:$MAILGUN_API_KEY" "https://api.mailgun.net/v3/%s/events?limit=%d" | jq \'.items\'' % (dom, len(items)), json.dumps(items, indent=2).split('\n'))
    sig = {'signature': {'token': hx(50), 'timestamp': str(r.clock.epoch()), 'signature': hx(64)},
           'event-data': {'event': 'delivered', 'id': fresh(rs, AN + '-_', 22), 'message': {'headers': {'message-id': mid(r, dom)[1:-1]}}}}
    r.run('tail -n 1 logs/webhooks.jsonl | jq', json.dumps(sig, indent=2).split('\n'))


@neg('postmark_outbound_test_token_ids')
def n_postmark(r):
    r.view('config/postmark.ts', ["// Postmark's documented sandbox token: accepted by the API, never delivers",
                                  "export const serverToken = process.env.NODE_ENV === 'test' ? 'POSTMARK_API_TEST' : process.env.POSTMARK_SERVER_TOKEN!;",
                                  "export const messageStream = 'outbound';"])
    mids = [uuid4() for _ in range(R.randint(2, 4))]
    out = ['{', '  "TotalCount": %d,' % len(mids), '  "Messages": [']
    for i, m in enumerate(mids):
        out += ['    {', '      "MessageID": "%s",' % m, '      "MessageStream": "outbound",', '      "Tag": "%s",' % R.choice(['receipt', 'reset', 'welcome']),
                '      "Status": "%s",' % R.choice(['Sent', 'Processed']), '      "ReceivedAt": "%s",' % r.clock.iso(7, '-04:00'),
                '      "ServerID": %d' % R.randint(1000000, 9999999), '    }' + (',' if i < len(mids) - 1 else '')]
    out += ['  ]', '}']
    r.run('curl -s "https://api.postmarkapp.com/messages/outbound?count=%d&offset=0" -H "Accept: application/json" -H "X-Postmark-Server-Token: $POSTMARK_SERVER_TOKEN" | jq' % len(mids), out)
    r.run("curl -s https://api.postmarkapp.com/email -H 'X-Postmark-Server-Token: POSTMARK_API_TEST' -H 'Content-Type: application/json' -d '{\"From\":\"a@%s\",\"To\":\"test@blackhole.postmarkapp.com\",\"Subject\":\"t\",\"TextBody\":\"t\"}'" % r.domain,
          [json.dumps({'To': 'test@blackhole.postmarkapp.com', 'SubmittedAt': r.clock.iso(7, '-04:00'), 'MessageID': '00000000-0000-0000-0000-000000000000', 'ErrorCode': 0, 'Message': 'Test job accepted'})])


@neg('sesv2_identity_dkim_tokens')
def n_ses_identity(r):
    toks = [fresh(rs, LO + DG, 32) for _ in range(3)]
    out = {'IdentityType': 'DOMAIN', 'FeedbackForwardingStatus': True, 'VerifiedForSendingStatus': True,
           'DkimAttributes': {'SigningEnabled': True, 'Status': 'SUCCESS', 'Tokens': toks, 'SigningAttributesOrigin': 'AWS_SES',
                              'NextSigningKeyLength': 'RSA_2048_BIT', 'CurrentSigningKeyLength': 'RSA_2048_BIT', 'LastKeyGenerationTimestamp': r.clock.iso(6, '+00:00')},
           'MailFromAttributes': {'MailFromDomain': 'mail.' + r.domain, 'MailFromDomainStatus': 'SUCCESS', 'BehaviorOnMxFailure': 'USE_DEFAULT_VALUE'},
           'Policies': {}, 'Tags': [], 'ConfigurationSetName': '%s-events' % r.proj, 'VerificationStatus': 'SUCCESS'}
    r.run('aws sesv2 get-email-identity --email-identity ' + r.domain, json.dumps(out, indent=4).split('\n'))
    if r.long or R.random() < 0.5:
        r.run('dig +short CNAME %s._domainkey.%s' % (toks[0], r.domain), ['%s.dkim.amazonses.com.' % toks[0]])
    m = '0102%s-%s-%s-%s-%s-000000' % (hx(12), hx(8), hx(4), hx(4), hx(12))
    r.run("aws sesv2 send-email --from-email-address noreply@%s --destination ToAddresses=success@simulator.amazonses.com --content 'Simple={Subject={Data=t},Body={Text={Data=t}}}'" % r.domain,
          ['{', '    "MessageId": "%s"' % m, '}'])


# ================================================================ negatives: SMS, push
@neg('twilio_messages_list_sids_table')
def n_twilio_list(r):
    ac = twilio_sid('AC')
    rows = [('SID', 'From', 'To', 'Status', 'Direction', 'Date Sent')]
    for _ in range(R.randint(3, 10) if r.long else 4):
        rows.append((twilio_sid('SM'), phone(), phone(), R.choice(['delivered', 'delivered', 'undelivered', 'sent']), 'outbound-api', r.clock.tick(30, 900).rfc2822().replace('+0000', 'GMT+0000')))
    r.run('twilio api:core:messages:list --limit %d' % (len(rows) - 1), table_aligned(rows, 2))
    r.run('twilio profiles:list', table_aligned([('ID', 'Account SID', 'Active'), (r.env, ac, 'true')], 2))
    r.run('twilio api:messaging:v1:services:list -o json | jq -c ".[] | {sid, friendlyName}"',
          [json.dumps({'sid': twilio_sid('MG'), 'friendlyName': '%s notifications' % r.org}), json.dumps({'sid': twilio_sid('MG'), 'friendlyName': 'otp'})])
    r.view('.env.example', ['TWILIO_ACCOUNT_SID=ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'TWILIO_AUTH_TOKEN=your_auth_token', 'TWILIO_FROM=+15005550006'])


@neg('vonage_inbound_webhook_signature_log')
def n_vonage_hooks(r):
    key = vonage_key()
    out = []
    for _ in range(R.randint(3, 8) if r.long else 3):
        r.clock.tick(1, 60)
        out.append(json.dumps({'msisdn': phone()[1:], 'to': phone()[1:], 'messageId': fresh(rs, HEX.upper(), 16), 'text': R.choice(['STOP', 'YES', 'help']),
                               'type': 'text', 'keyword': 'STOP', 'api-key': key, 'message-timestamp': r.clock.sp(0), 'timestamp': str(r.clock.epoch()),
                               'nonce': uuid4(), 'sig': hx(32)}, separators=(',', ':')))
    r.run('tail -n %d logs/vonage-inbound.jsonl' % len(out), out)
    r.run('curl -s "https://api.nexmo.com/v2/applications?page_size=5" -u "$VONAGE_API_KEY:$VONAGE_API_SECRET" | jq -c "._embedded.applications[] | {id, name}"',
          [json.dumps({'id': uuid4(), 'name': '%s %s' % (r.proj, e)}) for e in ('prod', 'staging')])


@neg('fcm_v1_send_responses_device_tokens')
def n_fcm(r):
    proj = '%s-%s' % (r.org, R.choice(['prod', 'app']))
    out = []
    for _ in range(R.randint(3, 7) if r.long else 3):
        out.append(json.dumps({'token': fcm_reg_token()[:40] + '…', 'name': 'projects/%s/messages/0:%d%%%s' % (proj, r.clock.ms(), hx(16))}))
    r.run('node scripts/push-smoke.mjs --dry-run', ['sending to %d device tokens (dry run)' % len(out)] + out)
    r.view('android/app/google-services.json', ['{', '  "project_info": {', '    "project_number": "%d",' % R.randint(10 ** 11, 10 ** 12 - 1),
                                                '    "project_id": "%s",' % proj, '    "storage_bucket": "%s.appspot.com"' % proj, '  },', '  "client": [', '    {',
                                                '      "client_info": {', '        "mobilesdk_app_id": "1:%d:android:%s",' % (R.randint(10 ** 11, 10 ** 12 - 1), hx(16)),
                                                '        "android_client_info": { "package_name": "com.%s.app" }' % r.org.replace('-', ''), '      },',
                                                '      "api_key": [ { "current_key": "AIzaSy%s" } ]' % fresh(rs, AN + '-_', 33), '    }', '  ],', '  "configuration_version": "1"', '}'])
    r.say('`current_key` in google-services.json is the public Android client key, and the registration tokens are device addresses.')


@neg('apns_device_tokens_apns_ids_pubkey')
def n_apns(r):
    d, pub = p256_key()
    kid = fresh(rs, UP + DG, 10)
    team = fresh(rs, UP + DG, 10)
    r.run('openssl ec -in certs/AuthKey_%s.p8 -pubout 2>/dev/null' % kid, pem('PUBLIC KEY', p256_spki(pub), False, mark=False))
    out = []
    for _ in range(R.randint(3, 8) if r.long else 4):
        r.clock.tick()
        out.append('%s apns sent device=%s apns-id=%s status=%d%s' % (r.clock.iso(), hx(64), uuid4().upper(), R.choice([200, 200, 200, 410]),
                                                                       ' reason=Unregistered' if R.random() < 0.2 else ''))
    r.run('grep "apns sent" logs/push-relay.log | tail -n %d' % len(out), out)
    r.view('config/apns.yml', ['key_id: ' + kid, 'team_id: ' + team, 'key_path: /run/secrets/apns_auth_key.p8', 'topic: com.%s.app' % r.org.replace('-', ''),
                               'environment: production'])


@neg('vapid_public_key_client_bundle')
def n_vapid(r):
    d, pub = p256_key()
    pk = regd(b64u(pub))
    r.run('grep -o "applicationServerKey:\\"[^\\"]*\\"" .next/static/chunks/app/layout-%s.js' % hx(16), ['applicationServerKey:"%s"' % pk])
    r.view('src/push/subscribe.ts', ['const VAPID_PUBLIC_KEY = process.env.NEXT_PUBLIC_VAPID_PUBLIC_KEY!; // public by design', '',
                                     'export async function subscribe(reg: ServiceWorkerRegistration) {',
                                     '  return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: VAPID_PUBLIC_KEY });', '}'])
    r.run('grep VAPID .env.example', ['NEXT_PUBLIC_VAPID_PUBLIC_KEY=' + pk, 'VAPID_PRIVATE_KEY=  # from 1Password: op://Engineering/web-push-vapid/private_key'])


# ================================================================ negatives: MongoDB, Cassandra
@neg('mongo_system_users_scram_credentials')
def n_mongo_users(r):
    out = []
    for u, db in R.sample([('admin', 'admin'), ('backup', 'admin'), ('orders_rw', 'orders'), ('reporting_ro', 'orders'), ('mailer', 'app')], 3):
        s1, st1, sv1 = scram_creds(hashlib.md5(('%s:mongo:%s' % (u, pw())).encode()).hexdigest(), 'SHA-1', 10000)
        s2, st2, sv2 = scram_creds(pw(), 'SHA-256', 15000, rb(28))
        out += ['{', "  _id: '%s.%s'," % (db, u), "  userId: UUID('%s')," % uuid4(), "  user: '%s'," % u, "  db: '%s'," % db, '  credentials: {',
                "    'SCRAM-SHA-1': {", '      iterationCount: 10000,', "      salt: '%s'," % s1, "      storedKey: '%s'," % st1, "      serverKey: '%s'" % sv1, '    },',
                "    'SCRAM-SHA-256': {", '      iterationCount: 15000,', "      salt: '%s'," % s2, "      storedKey: '%s'," % st2, "      serverKey: '%s'" % sv2, '    }', '  },',
                "  roles: [ { role: '%s', db: '%s' } ]" % (R.choice(['readWrite', 'read', 'backup', 'root']), db), '}']
    r.run('mongosh "$MONGO_ADMIN_URI" --quiet --eval \'db.getSiblingDB("admin").system.users.find().forEach(printjson)\'', out)
    r.say('Only salted SCRAM verifiers are stored here; the plaintext passwords are not recoverable from these fields.')


@neg('mongo_find_objectids_explain_hash')
def n_mongo_find(r):
    out = []
    for _ in range(R.randint(2, 5) if r.long else 2):
        r.clock.tick(60, 9000)
        out += ['  {', "    _id: ObjectId('%s')," % oid(r.clock.epoch()), "    tenantId: ObjectId('%s')," % oid(r.clock.epoch() - 86400 * 90),
                "    status: '%s'," % R.choice(['paid', 'shipped', 'created']), '    totalCents: %d,' % R.randint(100, 90000),
                "    idempotencyKey: '%s'," % uuid4(), "    createdAt: ISODate('%s')" % r.clock.iso(), '  },']
    out[-1] = '  }'
    r.run('mongosh "$MONGO_URL" --quiet --eval \'db.orders.find({status: {$ne: "cancelled"}}).sort({createdAt: -1}).limit(%d)\'' % (len(out) // 7), ['['] + out + [']'])
    r.run('mongosh "$MONGO_URL" --quiet --eval \'db.orders.find({tenantId: ObjectId("%s")}).explain().queryPlanner\'' % oid(r.clock.epoch()),
          ['{', "  namespace: 'app.orders',", '  parsedQuery: { tenantId: { \'$eq\': ObjectId(\'%s\') } },' % oid(r.clock.epoch()),
           "  queryHash: '%s'," % fresh(rs, HEX.upper(), 8), "  planCacheKey: '%s'," % fresh(rs, HEX.upper(), 8), "  winningPlan: { stage: 'FETCH', inputStage: { stage: 'IXSCAN', indexName: 'tenantId_1_createdAt_-1' } }", '}'])


@neg('mongod_json_log_auth_success')
def n_mongod_log(r):
    out = []
    for _ in range(R.randint(4, 10) if r.long else 4):
        r.clock.tick()
        conn = R.randint(100, 99999)
        out.append(json.dumps({'t': {'$date': r.clock.iso(3, '+00:00')}, 's': 'I', 'c': 'ACCESS', 'id': 20250, 'ctx': 'conn%d' % conn,
                               'msg': 'Authentication succeeded', 'attr': {'mechanism': R.choice(['SCRAM-SHA-256', 'SCRAM-SHA-1', 'MONGODB-X509']), 'speculative': True,
                                                                        'principalName': R.choice(['orders_rw', 'backup', 'mailer']), 'authenticationDatabase': 'admin',
                                                                        'remote': '10.0.%d.%d:%d' % (R.randint(0, 9), R.randint(2, 250), R.randint(30000, 60000)),
                                                                        'extraInfo': {}}}, separators=(',', ':')))
        if R.random() < 0.4:
            out.append(json.dumps({'t': {'$date': r.clock.iso(3, '+00:00')}, 's': 'I', 'c': 'NETWORK', 'id': 51800, 'ctx': 'conn%d' % conn, 'msg': 'client metadata',
                                   'attr': {'remote': '10.0.3.7:51234', 'client': 'conn%d' % conn, 'negotiatedCompressors': [],
                                            'doc': {'driver': {'name': 'nodejs|Mongoose', 'version': '6.7.0|8.4.1'}, 'application': {'name': r.proj}}}}, separators=(',', ':')))
    out.append(json.dumps({'t': {'$date': r.clock.iso(3, '+00:00')}, 's': 'I', 'c': 'ACCESS', 'id': 20249, 'ctx': 'conn%d' % R.randint(100, 9999), 'msg': 'Authentication failed',
                           'attr': {'mechanism': 'SCRAM-SHA-256', 'speculative': False, 'principalName': 'orders_rw', 'authenticationDatabase': 'admin',
                                    'remote': '10.0.5.9:40112', 'extraInfo': {}, 'error': 'AuthenticationFailed: SCRAM authentication failed, storedKey mismatch'}}, separators=(',', ':')))
    r.run('kubectl logs mongo-rs-0 -n data --since=10m | grep -E \'"c":"ACCESS"|client metadata\' | tail -n %d' % len(out), out)


@neg('mongodb_uri_redacted_and_x509')
def n_mongo_uris(r):
    host = atlas_host(r)
    out = mongosh_banner(r, 'mongodb+srv://<credentials>@%s/?appName=mongosh+2.2.6' % host)
    out += ['Atlas atlas-%s-shard-0 [primary] test> db.runCommand({connectionStatus: 1}).authInfo' % lc(6),
            '{', "  authenticatedUsers: [ { user: 'CN=%s,OU=services,O=%s', db: '$external' } ]," % (r.proj, r.org),
            "  authenticatedUserRoles: [ { role: 'readWriteAnyDatabase', db: 'admin' } ]", '}']
    r.run('mongosh "mongodb+srv://%s/?authSource=%%24external&authMechanism=MONGODB-X509" --tls --tlsCertificateKeyFile /run/secrets/mongo-client.pem' % host, out)
    r.run('rg -n "MONGO(DB)?_(URI|URL)" .env.example deploy/ src/', [
        '.env.example:3:MONGODB_URI=mongodb+srv://app:${MONGO_PASSWORD}@%s/app?retryWrites=true&w=majority' % host,
        'deploy/values.yaml:41:    MONGODB_URI: mongodb://mongo-0.mongo:27017,mongo-1.mongo:27017/app?replicaSet=rs0&authMechanism=MONGODB-AWS&authSource=%24external',
        'src/db.ts:7:const uri = process.env.MONGODB_URI ?? "mongodb://localhost:27017/app";',
        'src/db.ts:12:logger.info({ uri: redact(uri) }, "connecting"); // -> mongodb://app:****@host/app'])


@neg('cassandra_roles_salted_hash_nodetool')
def n_cassandra_roles(r):
    out = ['', ' role         | can_login | is_superuser | salted_hash', '--------------+-----------+--------------+--------------------------------------------------------------']
    for role in R.sample(['cassandra', 'orders_app', 'analytics_ro', 'ingest', 'reaper', 'ops'], 4):
        out.append(' %-12s | %9s | %12s | %s' % (role, 'True', R.choice(['False', 'True']), bcrypt_like(10, '2a')))
    out += ['', '(4 rows)']
    r.run('cqlsh cassandra-0 --cqlshrc ~/.cassandra/cqlshrc -e "SELECT role, can_login, is_superuser, salted_hash FROM system_auth.roles;"', out)
    out = ['Datacenter: dc1', '===============', 'Status=Up/Down', '|/ State=Normal/Leaving/Joining/Moving',
           '--  Address       Load        Tokens  Owns (effective)  Host ID                               Rack']
    for i in range(3):
        out.append('UN  10.0.%d.%-5d %6.2f GiB  16      %5.1f%%            %s  rack%d' % (R.randint(0, 3), R.randint(2, 250), R.uniform(1, 400), R.uniform(20, 40), uuid4(), i + 1))
    r.run('nodetool -u reaper -pwf /etc/cassandra/jmxremote.password status', out)


@neg('nodetool_describecluster_schema_versions')
def n_describecluster(r):
    sv = uuid4()
    out = ['Cluster Information:', '\tName: %s' % R.choice(['Prod Cluster', 'events']), '\tSnitch: org.apache.cassandra.locator.GossipingPropertyFileSnitch',
           '\tDynamicEndPointSnitch: enabled', '\tPartitioner: org.apache.cassandra.dht.Murmur3Partitioner', '\tSchema versions:',
           '\t\t%s: [%s]' % (sv, ', '.join('10.0.%d.%d' % (R.randint(0, 3), R.randint(2, 250)) for _ in range(3))), '', 'Stats for all nodes:',
           '\tLive: 3', '\tJoining: 0', '\tMoving: 0', '\tLeaving: 0', '\tUnreachable: 0', '', 'Data Centers: ', '\tdc1 #Nodes: 3 #Down: 0']
    r.run('nodetool describecluster', out)
    out = ['ID                     : %s' % uuid4(), 'Gossip active          : true', 'Native Transport active: true', 'Load                   : %.2f GiB' % R.uniform(1, 300),
           'Generation No          : %d' % r.clock.epoch(), 'Uptime (seconds)       : %d' % R.randint(1000, 9000000),
           'Key Cache              : entries %d, size %.2f MiB, capacity 100 MiB, %d hits, %d requests, 0.%03d recent hit rate, 14400 save period in seconds' % (
               R.randint(1000, 900000), R.uniform(1, 99), R.randint(10 ** 5, 10 ** 8), R.randint(10 ** 5, 10 ** 8), R.randint(100, 999)),
           'Token                  : (invoke with -T/--tokens to see all 16 tokens)']
    r.run('nodetool info', out)


# ================================================================ negatives: Elasticsearch, OpenSearch, ClickHouse
@neg('es_api_key_query_no_secret')
def n_es_keys(r):
    keys = []
    for _ in range(R.randint(2, 4)):
        keys.append({'id': es_id(), 'name': '%s-%s' % (r.proj, R.choice(['ingest', 'search', 'ci'])), 'type': 'rest', 'creation': r.clock.ms(),
                     'expiration': r.clock.ms() + 90 * 86400000, 'invalidated': R.random() < 0.3, 'username': 'elastic', 'realm': 'reserved',
                     'metadata': {'owner': r.user}})
    r.run('curl -s -u "elastic:$ELASTIC_PASSWORD" "%s/_security/api_key?owner=false" | jq' % 'https://localhost:9200',
          json.dumps({'api_keys': keys}, indent=2).split('\n'))
    out = ['health status index%s uuid                   pri rep docs.count' % (' ' * (len(r.proj) + 6))]
    for m in ('06', '07', '08'):
        out.append('green  open   %s-2024.%s %s   1   1 %10d' % (r.proj, m, fresh(rs, B64U, 22), R.randint(1000, 9999999)))
    r.run('curl -s -u "elastic:$ELASTIC_PASSWORD" "https://localhost:9200/_cat/indices/%s-*?v"' % r.proj, out)


@neg('es_keystore_list_fingerprint_settings')
def n_es_keystore(r):
    r.run('docker exec es01 bin/elasticsearch-keystore list', ['bootstrap.password', 'keystore.seed', 'xpack.security.http.ssl.keystore.secure_password',
                                                              'xpack.security.transport.ssl.keystore.secure_password', 'xpack.notification.email.account.ses.smtp.secure_password'])
    fp = hx(64)
    r.view('config/kibana.yml', ['elasticsearch.hosts: ["https://es01:9200"]', 'elasticsearch.username: "kibana_system"',
                                 'elasticsearch.password: "${ELASTICSEARCH_PASSWORD}"', 'elasticsearch.ssl.verificationMode: certificate',
                                 'xpack.encryptedSavedObjects.encryptionKey: "${KIBANA_ENCRYPTION_KEY}"', 'xpack.fleet.agents.elasticsearch.hosts: ["https://es01:9200"]',
                                 'xpack.fleet.outputs:', '  - id: fleet-default-output', '    name: default', '    type: elasticsearch', '    hosts: [https://es01:9200]',
                                 '    ca_trusted_fingerprint: %s' % fp])
    r.run('docker exec es01 bin/elasticsearch-keystore show keystore.seed | wc -c', ['21'])


@neg('opensearch_hash_sh_bcrypt_output')
def n_os_hash(r):
    h = bcrypt_like(12, '2y')
    r.run('docker exec -it opensearch-node1 bash plugins/opensearch-security/tools/hash.sh',
          ['**************************************************************************', '** This tool will be deprecated in the next major release of OpenSearch **',
           '** https://github.com/opensearch-project/security/issues/1755           **', '**************************************************************************',
           '[Password:]', h])
    r.run('git diff config/opensearch-security/internal_users.yml', ['diff --git a/config/opensearch-security/internal_users.yml b/config/opensearch-security/internal_users.yml',
                                                                      'index %s..%s 100644' % (hx(7), hx(7)), '--- a/config/opensearch-security/internal_users.yml',
                                                                      '+++ b/config/opensearch-security/internal_users.yml', '@@ -6,7 +6,7 @@ _meta:', ' admin:',
                                                                      '-  hash: "%s"' % bcrypt_like(12, '2y'), '+  hash: "%s"' % h, '   reserved: true'])
    out = ['Security Admin v7', 'Will connect to localhost:9200 ... done', 'Connected as "CN=admin,OU=client,O=client,L=test,C=de"',
           'OpenSearch Version: 2.15.0', 'Contacting opensearch cluster \'opensearch\' and wait for YELLOW clusterstate ...', 'Clustername: opensearch-cluster',
           'Clusterstate: GREEN', 'Number of nodes: 1', 'Number of data nodes: 1', '.opendistro_security index already exists, so we do not need to create one.',
           'Populate config from /usr/share/opensearch/config/opensearch-security/', 'Will update \'/internalusers\' with config/opensearch-security/internal_users.yml',
           '   SUCC: Configuration for \'internalusers\' created or updated', 'SUCC: Expected 1 config types for node %s is 1 (["internalusers"]) due to: null' % fresh(rs, B64U, 22),
           'Done with success']
    r.run('docker exec opensearch-node1 plugins/opensearch-security/tools/securityadmin.sh -f config/opensearch-security/internal_users.yml -t internalusers -icl -nhnv -cacert config/root-ca.pem -cert config/kirk.pem -key config/kirk-key.pem', out)


@neg('clickhouse_show_create_user_sha256')
def n_ch_users(r):
    out = []
    for u in R.sample(['ingest', 'grafana', 'dbt', 'metabase', 'readonly'], 3):
        salt = hx(32).upper()
        out.append("CREATE USER %s IDENTIFIED WITH sha256_hash BY '%s' SALT '%s' HOST IP '10.0.0.0/8' SETTINGS PROFILE default" % (u, hx(64).upper(), salt))
    r.run("clickhouse-client --host clickhouse-0 --user admin --ask-password -q 'SHOW CREATE USER ingest, grafana, dbt, metabase, readonly' 2>/dev/null | head -n 3", out)
    r.view('/etc/clickhouse-server/users.d/default-password.xml', ['<clickhouse>', '    <users>', '        <default>',
                                                                   '            <password remove="1" />', '            <password_sha256_hex>%s</password_sha256_hex>' % sha256_hex(pw()),
                                                                   '        </default>', '        <grafana>', '            <password_double_sha1_hex>%s</password_double_sha1_hex>' % dsha1_hex(pw()),
                                                                   '        </grafana>', '    </users>', '</clickhouse>'])
    r.run("clickhouse-client --host clickhouse-0 --user admin --ask-password -q \"SELECT query_id, user, event_time FROM system.query_log WHERE type = 'QueryFinish' ORDER BY event_time DESC LIMIT 3\"",
          ['%s\t%s\t%s' % (uuid4(), R.choice(['ingest', 'dbt']), r.clock.tick().sp(0)) for _ in range(3)])


# ================================================================ negatives: warehouses
@neg('snowflake_connections_toml_externalbrowser')
def n_snowflake(r):
    acct = '%s-%s' % (fresh(rs, UP, 7), r.org.upper().replace('-', '_'))
    r.view('~/.snowflake/connections.toml', ['[default]', 'account = "%s"' % acct, 'user = "%s@%s"' % (r.user.upper(), r.domain.upper()),
                                             'authenticator = "externalbrowser"', 'role = "TRANSFORMER"', 'warehouse = "TRANSFORMING"', '',
                                             '[svc_loader]', 'account = "%s"' % acct, 'user = "SVC_LOADER"', 'authenticator = "SNOWFLAKE_JWT"',
                                             'private_key_file = "/run/secrets/snowflake_rsa_key.p8"', 'private_key_file_pwd = "${SNOWFLAKE_KEY_PASSPHRASE}"'])
    k = rsa_key(2048)
    fp = regd(b64(hashlib.sha256(rsa_spki(k)).digest()))
    rows = [('property', 'value'), ('NAME', 'SVC_LOADER'), ('RSA_PUBLIC_KEY', regd(b64(rsa_spki(k)))[:44] + '...'), ('RSA_PUBLIC_KEY_FP', 'SHA256:' + fp),
            ('RSA_PUBLIC_KEY_2', 'null'), ('HAS_PASSWORD', 'false'), ('DEFAULT_ROLE', 'LOADER')]
    r.run('snow sql -c default -q "DESC USER SVC_LOADER" --format table', table_box(rows))
    if r.long or R.random() < 0.5:
        r.run('openssl rsa -in /run/secrets/snowflake_rsa_key.p8 -passin env:SNOWFLAKE_KEY_PASSPHRASE -pubout 2>/dev/null', pem('PUBLIC KEY', rsa_spki(k), False, mark=False))


@neg('bq_jobs_list_show_etags')
def n_bq(r):
    proj = '%s-analytics-%d' % (r.org, R.randint(100000, 999999))
    rows = [('jobId', 'Job Type', 'State', 'Start Time', 'Duration')]
    for _ in range(R.randint(3, 8) if r.long else 3):
        rows.append(('bquxjob_%s_%s' % (hx(8), hx(15)), R.choice(['query', 'load']), 'SUCCESS', r.clock.tick(30, 900).sp(0)[5:16].replace('-', ' '), '0:00:%02d' % R.randint(1, 59)))
    r.run('bq ls -j --max_results %d %s' % (len(rows) - 1, proj), table_aligned(rows, 2))
    r.run('bq show --format=prettyjson %s:analytics.events | jq "{etag, id, numRows, lastModifiedTime}"' % proj,
          ['{', '  "etag": "%s",' % (rb64(16)), '  "id": "%s:analytics.events",' % proj, '  "numRows": "%d",' % R.randint(10 ** 5, 10 ** 9),
           '  "lastModifiedTime": "%d"' % r.clock.ms(), '}'])
    r.run('printenv GOOGLE_APPLICATION_CREDENTIALS; gcloud auth list --format="value(account)"', ['/run/secrets/gcp/bq-loader.json', 'bq-loader@%s.iam.gserviceaccount.com' % proj])


@neg('redshift_describe_clusters_secret_arn')
def n_redshift(r):
    cid = R.choice(['analytics', 'dwh', 'reporting'])
    c = {'ClusterIdentifier': cid, 'NodeType': 'ra3.xlplus', 'ClusterStatus': 'available', 'MasterUsername': 'admin', 'DBName': 'dev',
         'Endpoint': {'Address': '%s.%s.%s.redshift.amazonaws.com' % (cid, lc(12), r.region), 'Port': 5439},
         'ClusterCreateTime': r.clock.iso(3, '+00:00'), 'VpcId': 'vpc-%s' % hx(17), 'Encrypted': True, 'KmsKeyId': 'arn:aws:kms:%s:%d:key/%s' % (r.region, R.randint(10 ** 11, 10 ** 12 - 1), uuid4()),
         'ClusterNamespaceArn': 'arn:aws:redshift:%s:%d:namespace:%s' % (r.region, R.randint(10 ** 11, 10 ** 12 - 1), uuid4()),
         'MasterPasswordSecretArn': 'arn:aws:secretsmanager:%s:%d:secret:redshift!%s-admin-%s' % (r.region, R.randint(10 ** 11, 10 ** 12 - 1), cid, fresh(rs, AN, 6)),
         'MasterPasswordSecretKmsKeyId': 'aws/secretsmanager'}
    r.run('aws redshift describe-clusters --cluster-identifier %s --query "Clusters[0]"' % cid, json.dumps(c, indent=4).split('\n'))
    r.run('aws secretsmanager describe-secret --secret-id "%s" --query "{Name:Name,VersionIdsToStages:VersionIdsToStages}"' % c['MasterPasswordSecretArn'],
          ['{', '    "Name": "redshift!%s-admin",' % cid, '    "VersionIdsToStages": {', '        "%s": [' % uuid4(), '            "AWSCURRENT",', '            "AWSPENDING"', '        ]', '    }', '}'])


# ================================================================ negatives: other stores
@neg('influx_bucket_org_config_list')
def n_influx(r):
    oid_ = hx(16)
    out = ['ID\t\t\tName\t\tRetention\tShard group duration\tOrganization ID\t\tSchema Type']
    for b in ('_monitoring', '_tasks', 'telegraf', 'events', 'iot'):
        out.append('%s\t%-12s\t%s\t%s\t\t\t%s\timplicit' % (hx(16), b, R.choice(['168h0m0s', 'infinite', '720h0m0s']), R.choice(['24h0m0s', '168h0m0s']), oid_))
    r.run('influx bucket list', out)
    r.run('influx config list', ['Active\tName\t\tURL\t\t\t\tOrg', '\tdefault\t\thttp://localhost:8086\t\t', '*\t%s\t\thttps://influx.%s:8086\t%s' % (r.env, r.domain, r.org)])
    out = ['ID\t\t\tDescription\t\tUser Name\tUser ID\t\t\tPermissions']
    for d in ('telegraf-' + r.env, 'grafana-read', "admin's Token"):
        out.append('%s\t%-16s\tadmin\t\t%s\t[read:orgs/%s/buckets/%s]' % (hx(16), d, hx(16), oid_, hx(16)))
    r.run('influx auth list --hide-headers=false --json=false | cut -f1,2,4-', out)


@neg('neo4j_auth_ini_sha256_show_users')
def n_neo4j(r):
    out = []
    for u in ('neo4j', R.choice(['app', 'etl']), R.choice(['bloom', 'reader'])):
        out.append('%s:SHA-256,%s,%s,1024:' % (u, regd(hashlib.sha256(rb(32)).hexdigest()), hx(32)))
    r.run('docker exec neo4j cat /data/dbms/auth.ini', out)
    out = ['+------------------------------------------------------------------+', '| user    | roles                  | passwordChangeRequired | suspended |',
           '+------------------------------------------------------------------+', '| "neo4j" | ["admin", "PUBLIC"]    | FALSE                  | FALSE     |',
           '| "app"   | ["editor", "PUBLIC"]   | FALSE                  | FALSE     |', '+------------------------------------------------------------------+', '', '2 rows']
    r.run('cypher-shell -a neo4j://localhost:7687 -u neo4j -p "$NEO4J_PASSWORD" -d system "SHOW USERS"', out)
    r.run('cypher-shell -a neo4j://localhost:7687 -u neo4j -p "$NEO4J_PASSWORD" "CALL db.info() YIELD id, name, creationDate"',
          ['+----------------------------------------------------------------------------------------+', '| id                                                                 | name    | creationDate |',
           '| "%s" | "neo4j" | "%s" |' % (hx(64).upper(), r.clock.iso()), '+----------------------------------------------------------------------------------------+'])


@neg('couchdb_pbkdf2_admins_uuids_revs')
def n_couch(r):
    out = ['[admins]']
    for u in ('admin', 'ops'):
        out.append('%s = -pbkdf2-%s,%s,600000' % (u, regd(hashlib.sha256(rb(32)).hexdigest()), hx(32)))
    r.run('sudo cat /opt/couchdb/etc/local.d/10-admins.ini', out)
    r.run('curl -s -u "admin:$COUCHDB_PASSWORD" http://127.0.0.1:5984/_uuids?count=3', [json.dumps({'uuids': [hx(32) for _ in range(3)]})])
    rows = []
    for _ in range(R.randint(2, 5)):
        d = hx(32)
        rows.append({'id': d, 'key': d, 'value': {'rev': '%d-%s' % (R.randint(1, 9), hx(32))}})
    r.run('curl -s -u "admin:$COUCHDB_PASSWORD" "http://127.0.0.1:5984/%s/_all_docs?limit=%d" | jq -c ".rows[]"' % (r.proj.split('-')[0], len(rows)), [json.dumps(x) for x in rows])


@neg('etcd_member_list_revisions_hex')
def n_etcd(r):
    rows = [('ID', 'STATUS', 'NAME', 'PEER ADDRS', 'CLIENT ADDRS', 'IS LEARNER')]
    for i in range(3):
        rows.append((hx(16), 'started', 'etcd-%d' % i, 'https://10.0.1.%d:2380' % (10 + i), 'https://10.0.1.%d:2379' % (10 + i), 'false'))
    r.run('etcdctl --endpoints=$ETCD_ENDPOINTS --cert=/etc/etcd/pki/client.crt --key=/etc/etcd/pki/client.key --cacert=/etc/etcd/pki/ca.crt member list -w table', table_ascii(rows))
    r.run('etcdctl --endpoints=$ETCD_ENDPOINTS --cert=/etc/etcd/pki/client.crt --key=/etc/etcd/pki/client.key --cacert=/etc/etcd/pki/ca.crt get /config/%s/feature-flags -w json | jq' % r.proj,
          ['{', '  "header": {', '    "cluster_id": %d,' % R.randint(10 ** 18, 9 * 10 ** 18), '    "member_id": %d,' % R.randint(10 ** 18, 9 * 10 ** 18),
           '    "revision": %d,' % R.randint(1000, 900000), '    "raft_term": %d' % R.randint(2, 40), '  },', '  "kvs": [', '    {',
           '      "key": "%s",' % b64(('/config/%s/feature-flags' % r.proj).encode()), '      "create_revision": %d,' % R.randint(100, 900),
           '      "mod_revision": %d,' % R.randint(1000, 90000), '      "version": %d,' % R.randint(1, 40),
           '      "value": "%s"' % b64(json.dumps({'push_v2': True, 'sms_fallback': False}).encode()), '    }', '  ],', '  "count": 1', '}'])
    r.run('printenv | grep ^ETCDCTL', ['ETCDCTL_API=3', 'ETCDCTL_CACERT=/etc/etcd/pki/ca.crt', 'ETCDCTL_CERT=/etc/etcd/pki/client.crt', 'ETCDCTL_KEY=/etc/etcd/pki/client.key'])


@neg('minio_admin_info_svcacct_list')
def n_minio(r):
    out = ['●  minio-%d.%s:9000' % (0, r.domain), '   Uptime: %d days ' % R.randint(1, 90), '   Version: 2024-05-10T01:41:38Z', '   Network: 4/4 OK ',
           '   Drives: 4/4 OK ', '   Pool: 1', '', 'Pools:', '   1st, Erasure sets: 1, Drives per erasure set: 4', '',
           '%.1f TiB Used, %d Buckets, %d Objects' % (R.uniform(0.1, 40), R.randint(3, 40), R.randint(1000, 9000000)), '4 drives online, 0 drives offline, EC:2']
    r.run('mc admin info ' + r.env, out)
    rows = [('Access Key', 'Expiry')]
    for _ in range(R.randint(2, 5)):
        rows.append((minio_access(), R.choice(['no-expiry', r.clock.iso(0)])))
    r.run('mc admin user svcacct ls %s svc-backup' % r.env, table_aligned(rows, 3))
    r.run('mc stat %s/%s-backups/mongo/latest.tar.gz' % (r.env, r.org), ['Name      : latest.tar.gz', 'Date      : %s UTC ' % r.clock.sp(0),
                                                                        'Size      : %.1f GiB ' % R.uniform(1, 90), 'ETag      : %s-%d ' % (hx(32), R.randint(2, 900)),
                                                                        'VersionID : %s ' % uuid4(), 'Type      : file ', 'Metadata  :', '  Content-Type: application/gzip '])


# ================================================================ negatives: migrations and ORM configs
@neg('prisma_migrations_checksums_status')
def n_prisma(r):
    r.view('prisma/schema.prisma', ['generator client {', '  provider = "prisma-client-js"', '}', '', 'datasource db {', '  provider          = "postgresql"',
                                    '  url               = env("DATABASE_URL")', '  shadowDatabaseUrl = env("SHADOW_DATABASE_URL")', '}'])
    out = [' id                                   | checksum                                                         | migration_name                  | applied_steps_count',
           '--------------------------------------+------------------------------------------------------------------+---------------------------------+---------------------']
    for _ in range(R.randint(3, 8) if r.long else 3):
        r.clock.tick(86400, 900000)
        ts_ = r.clock.iso(0).replace('-', '').replace(':', '').replace('T', '')[:14]
        out.append(' %s | %s | %-31s | 1' % (uuid4(), hx(64), '%s_%s' % (ts_, R.choice(['init', 'add_outbox', 'push_tokens', 'email_events']))))
    r.run('psql "$DATABASE_URL" -c "SELECT id, checksum, migration_name, applied_steps_count FROM _prisma_migrations ORDER BY finished_at"', out)
    r.run('npx prisma migrate status', ['Environment variables loaded from .env', 'Prisma schema loaded from prisma/schema.prisma',
                                        'Datasource "db": PostgreSQL database "%s", schema "public" at "localhost:5432"' % r.proj.split('-')[0], '',
                                        '%d migrations found in prisma/migrations' % (len(out) - 2), '', 'Database schema is up to date!'])


@neg('django_env_refs_check_deploy')
def n_django(r):
    r.view('config/settings/production.py', ['from .base import *  # noqa', 'import environ', '', 'env = environ.Env()', '',
                                             'SECRET_KEY = env("DJANGO_SECRET_KEY")', 'DATABASES = {"default": env.db("DATABASE_URL")}',
                                             'CACHES = {"default": env.cache("REDIS_URL")}', 'EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD")',
                                             'CELERY_BROKER_URL = env("CELERY_BROKER_URL")'])
    r.run('python manage.py check --deploy', ['System check identified some issues:', '', 'WARNINGS:',
                                              "?: (security.W004) You have not set a value for the SECURE_HSTS_SECONDS setting. If your entire site is served only over SSL, you may want to consider setting a value and enabling HTTP Strict Transport Security.",
                                              '', 'System check identified 1 issue (0 silenced).'])
    r.run('python manage.py showmigrations notifications', ['notifications', ' [X] 0001_initial', ' [X] 0002_emailmessage_provider_message_id', ' [X] 0003_pushtoken', ' [ ] 0004_smsmessage_status_callback'])


@neg('rails_credentials_enc_migrate_status')
def n_rails(r):
    ct = rb64(R.choice([180, 240, 300]))
    r.run('cat config/credentials/production.yml.enc; echo', ['%s--%s--%s' % (ct, rb64(12), rb64(16))])
    r.run('ls -la config/credentials/', ['total 16', 'drwxr-xr-x  2 %s staff  128 %s .' % (r.user, r.clock.ls()), 'drwxr-xr-x 18 %s staff  576 %s ..' % (r.user, r.clock.ls()),
                                         '-rw-r--r--  1 %s staff  %d %s production.yml.enc' % (r.user, len(ct) + 60, r.clock.ls())])
    out = ['', 'database: %s_production' % r.proj.replace('-', '_'), '', ' Status   Migration ID    Migration Name', '--------------------------------------------------']
    for _ in range(R.randint(3, 9) if r.long else 4):
        r.clock.tick(86400, 900000)
        out.append('   up     %s  %s' % (r.clock.iso(0).replace('-', '').replace(':', '').replace('T', '')[:14], R.choice(['Create accounts', 'Add outbox events', 'Add push tokens', 'Add index to emails'])))
    r.run('RAILS_ENV=production bin/rails db:migrate:status', out)


@neg('flyway_info_checksums_env_refs')
def n_flyway(r):
    r.view('conf/flyway.toml', ['[environments.default]', 'url = "jdbc:postgresql://db:5432/%s"' % r.proj.split('-')[0], 'user = "${env.FLYWAY_USER}"',
                                'password = "${env.FLYWAY_PASSWORD}"', '', '[flyway]', 'locations = ["filesystem:sql"]', 'cleanDisabled = true'])
    rows = [('Category', 'Version', 'Description', 'Type', 'Installed On', 'State', 'Checksum')]
    for i in range(1, R.randint(4, 10) if r.long else 4):
        rows.append(('Versioned', str(i), R.choice(['create accounts', 'add outbox', 'index events', 'add push tokens']), 'SQL', r.clock.sp(0), 'Success', str(R.randint(-2 ** 31, 2 ** 31 - 1))))
    r.run('flyway info -outputType=table', ['Flyway OSS Edition 10.15.0 by Redgate', 'Database: jdbc:postgresql://db:5432/%s (PostgreSQL 16.3)' % r.proj.split('-')[0],
                                            'Schema version: %d' % (len(rows) - 1), ''] + table_ascii(rows))


@neg('liquibase_databasechangelog_md5sums')
def n_liquibase(r):
    r.view('liquibase.properties', ['changeLogFile: db/changelog/db.changelog-master.yaml', 'url: jdbc:mysql://db:3306/%s' % r.proj.split('-')[0],
                                    'username: ${LIQUIBASE_COMMAND_USERNAME}', 'password: ${LIQUIBASE_COMMAND_PASSWORD}', 'liquibase.hub.mode: off'])
    out = ['+----+--------+----------------------------------------+------------------------------------+------------+', '| ID | AUTHOR | FILENAME                               | MD5SUM                             | DEPLOYMENT |',
           '+----+--------+----------------------------------------+------------------------------------+------------+']
    dep = str(R.randint(10 ** 9, 10 ** 10 - 1))
    for i in range(1, R.randint(4, 9) if r.long else 4):
        out.append('| %-2d | %-6s | %-38s | 9:%s | %s |' % (i, r.user[:6], 'db/changelog/changes/%03d-%s.yaml' % (i, R.choice(['init', 'outbox', 'push', 'sms'])), hx(32), dep))
    out.append(out[0])
    r.run('mysql --defaults-extra-file=/run/secrets/mysql.cnf -e "SELECT ID, AUTHOR, FILENAME, MD5SUM, DEPLOYMENT_ID AS DEPLOYMENT FROM DATABASECHANGELOG" %s' % r.proj.split('-')[0], out)


@neg('sqlalchemy_url_repr_masked_password')
def n_sqlalchemy(r):
    host = 'db.' + r.domain
    db = r.proj.split('-')[0]
    r.run("python -c 'from app.db import engine; print(repr(engine.url)); print(engine.url)'",
          ["postgresql+psycopg://app:***@%s:5432/%s" % (host, db), "postgresql+psycopg://app:***@%s:5432/%s" % (host, db)])
    r.run('alembic upgrade head --sql | head -n 5', ['INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.', 'INFO  [alembic.runtime.migration] Generating static SQL',
                                                     'INFO  [alembic.runtime.migration] Will assume transactional DDL.', 'BEGIN;', '',
                                                     'CREATE TABLE alembic_version (', '    version_num VARCHAR(32) NOT NULL, ', '    CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)', ');'][:5])
    out = []
    for _ in range(R.randint(3, 8) if r.long else 3):
        r.clock.tick()
        out.append('%s INFO sqlalchemy.engine.Engine [cached since %.4fs ago] {\'email_id\': UUID(\'%s\'), \'provider_message_id\': \'%s\'}' % (
            r.clock.sp(3), R.uniform(1, 900), uuid4(), fresh(rs, AN + '-_', 22)))
    r.run('grep "sqlalchemy.engine" logs/worker.log | tail -n %d' % len(out), out)


# ================================================================ negatives: documentation and secret references
@neg('messaging_readme_documented_examples')
def n_docs(r):
    lines = ['## Local setup', '', 'Copy `.env.example` to `.env` and fill in the blanks:', '', '```dotenv',
             'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
             'SENDGRID_API_KEY=SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'TWILIO_AUTH_TOKEN=<your-twilio-auth-token>',
             'KAFKA_SASL_PASSWORD=changeme', 'REDIS_URL=redis://:<password>@localhost:6379/0', 'MONGODB_URI=mongodb://<user>:<password>@localhost:27017/app', '```', '',
             '| Variable | Where to get it |', '|---|---|', '| `CONFLUENT_API_KEY` / `CONFLUENT_API_SECRET` | `confluent api-key create --resource <lkc-id>` |',
             '| `POSTMARK_SERVER_TOKEN` | Postmark → Servers → API Tokens (use `POSTMARK_API_TEST` in tests) |',
             '| `FCM_SERVICE_ACCOUNT` | path to the JSON, never the JSON itself |', '',
             '> ⚠️ The values above are the placeholders from the vendor docs. Real values live in 1Password (`op://Engineering/%s/*`).' % r.proj]
    r.view('README.md', lines)
    if r.long or R.random() < 0.5:
        r.run('git log --oneline -3 -- README.md', ['%s docs: explain how to get Confluent keys' % hx(7), '%s %s' % (hx(7), R.choice(CJK_SUBJECTS)), '%s docs: local setup' % hx(7)])


@neg('external_secrets_and_vault_refs')
def n_refs(r):
    out = ['apiVersion: external-secrets.io/v1beta1', 'kind: ExternalSecret', 'metadata:', '  name: %s-messaging' % r.proj, 'spec:', '  refreshInterval: 1h',
           '  secretStoreRef:', '    kind: ClusterSecretStore', '    name: aws-secrets-manager', '  target:', '    name: %s-messaging' % r.proj, '  data:']
    for k, rk in (('KAFKA_PASSWORD', 'kafka/%s' % r.proj), ('SMTP_PASSWORD', 'smtp/relay'), ('REDIS_PASSWORD', 'redis/app'), ('TWILIO_AUTH_TOKEN', 'twilio/%s' % r.env)):
        out += ['    - secretKey: %s' % k, '      remoteRef:', '        key: %s/%s' % (r.env, rk), '        property: password' if 'TWILIO' not in k else '        property: auth_token']
    r.run('kubectl get externalsecret %s-messaging -n %s -o yaml | yq "del(.status, .metadata.managedFields)"' % (r.proj, r.env), out)
    r.run('kubectl describe secret %s-messaging -n %s' % (r.proj, r.env), ['Name:         %s-messaging' % r.proj, 'Namespace:    %s' % r.env, 'Labels:       reconcile.external-secrets.io/created-by=%s' % hx(56)[:63],
                                                                          'Annotations:  reconcile.external-secrets.io/data-hash: %s' % hx(32), '', 'Type:  Opaque', '', 'Data', '====',
                                                                          'KAFKA_PASSWORD:     32 bytes', 'REDIS_PASSWORD:     44 bytes', 'SMTP_PASSWORD:      69 bytes', 'TWILIO_AUTH_TOKEN:  32 bytes'])
    r.run('vault kv metadata get -format=json secret/%s/kafka/%s | jq ".data.versions"' % (r.env, r.proj),
          ['{', '  "%d": {' % R.randint(2, 9), '    "created_time": "%s",' % r.clock.iso(9), '    "deletion_time": "",', '    "destroyed": false', '  }', '}'])


if __name__ == '__main__':
    main()
