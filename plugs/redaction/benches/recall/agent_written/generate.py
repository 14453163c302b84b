#!/usr/bin/env python3
"""Held-out corpus generator for secret-redaction evaluation.

Emits JSON lines {"id", "template", "positive", "text"} on stdout.
Positive rows wrap every secret's exact characters in U+00AB / U+00BB.
Negative rows hold look-alikes (ids, hashes, public keys, placeholders,
references, encrypted blobs, documented example keys) and no secret.
Standard library only; every random value comes from random.Random(5151).
"""
import base64
import datetime
import hashlib
import json
import random
import string
import struct
import sys
import urllib.parse

R = random.Random(5151)

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
B62 = DG + UP + LO
B64U = B62 + '-_'
B64S = B62 + '+/'
HEX = '0123456789abcdef'
B32 = UP + '234567'
CROCK = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
K8S = 'bcdfghjklmnpqrstvwxz2456789'


def M(s):
    return '\u00ab' + s + '\u00bb'


def rs(alpha, n):
    return ''.join(R.choice(alpha) for _ in range(n))


def hx(n):
    return rs(HEX, n)


def b62(n):
    return rs(B62, n)


def bu(n):
    return rs(B64U, n)


def rint(a, b):
    return R.randint(a, b)


def pick(seq):
    return R.choice(seq)


def sample(seq, k):
    return R.sample(seq, k)


def rb(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b64(n):
    return base64.b64encode(rb(n)).decode()


def b64e(bs):
    return base64.b64encode(bs).decode()


def b64u(bs):
    return base64.urlsafe_b64encode(bs).decode().rstrip('=')


def digits(n):
    return str(rint(1, 9)) + rs(DG, n - 1)


def uid():
    b = bytearray(rb(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f'{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}'


def ulid():
    return '01H' + rs(CROCK, 23)


def pw(n=None):
    n = n or rint(14, 30)
    while True:
        s = rs(B62 + '!#%^*-_=+.@~', n)
        if any(c in DG for c in s) and any(c in UP for c in s) and any(c in LO for c in s):
            return s


def upw(n=None):
    """password that is safe inside a URL userinfo"""
    n = n or rint(14, 30)
    while True:
        s = rs(B62 + '-_~', n)
        if any(c in DG for c in s) and any(c in UP for c in s):
            return s


BASE = datetime.datetime(2024, 1, 3, 8, 0, 0)


def dt():
    return BASE + datetime.timedelta(seconds=rint(0, 480 * 86400))


def iso(d=None):
    return (d or dt()).strftime('%Y-%m-%dT%H:%M:%SZ')


def iso_ms(d=None):
    d = d or dt()
    return d.strftime('%Y-%m-%dT%H:%M:%S.') + f'{rint(0, 999):03d}Z'


def iso_off(d=None):
    return (d or dt()).strftime('%Y-%m-%dT%H:%M:%S+00:00')


def epoch(d=None):
    return int(((d or dt()) - datetime.datetime(1970, 1, 1)).total_seconds())


def ip_priv():
    return pick([f'10.{rint(0,255)}.{rint(0,255)}.{rint(1,254)}',
                 f'172.{rint(16,31)}.{rint(0,255)}.{rint(1,254)}',
                 f'192.168.{rint(0,255)}.{rint(1,254)}'])


def ip_pub():
    return f'{pick([34,35,52,54,104,142,143,157,159,164,167,185,198])}.{rint(0,255)}.{rint(0,255)}.{rint(1,254)}'


def acct_id():
    return digits(12)


def wrap(s, n=64):
    return '\n'.join(s[i:i + n] for i in range(0, len(s), n))


def pem(label, der_bytes, width=64):
    return f'-----BEGIN {label}-----\n' + wrap(b64e(der_bytes), width) + f'\n-----END {label}-----'


def vlen(s):
    return len(s.replace('\u00ab', '').replace('\u00bb', ''))


def ljust(s, w):
    return s + ' ' * max(0, w - vlen(s))


def rjust(s, w):
    return ' ' * max(0, w - vlen(s)) + s


def columns(rows, gap=3):
    """kubectl / docker style left-aligned table"""
    w = [max(vlen(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return '\n'.join((' ' * gap).join(ljust(str(c), w[i]) for i, c in enumerate(r)).rstrip() for r in rows)


def psql_table(headers, rows, footer=True):
    w = [max([vlen(h)] + [vlen(str(r[i])) for r in rows]) for i, h in enumerate(headers)]
    out = [' ' + ' | '.join(h.center(w[i]) for i, h in enumerate(headers)).rstrip()]
    out.append('-' + '-+-'.join('-' * x for x in w) + '-')
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            c = str(c)
            cells.append(rjust(c, w[i]) if isinstance(r[i], int) else ljust(c, w[i]))
        out.append(' ' + ' | '.join(cells).rstrip())
    if footer:
        out.append(f'({len(rows)} row{"s" if len(rows) != 1 else ""})')
    return '\n'.join(out)


def mysql_table(headers, rows):
    w = [max([vlen(h)] + [vlen(str(r[i])) for r in rows]) for i, h in enumerate(headers)]
    sep = '+' + '+'.join('-' * (x + 2) for x in w) + '+'
    out = [sep, '| ' + ' | '.join(ljust(h, w[i]) for i, h in enumerate(headers)) + ' |', sep]
    for r in rows:
        out.append('| ' + ' | '.join(rjust(str(c), w[i]) if isinstance(c, int) else ljust(str(c), w[i])
                                     for i, c in enumerate(r)) + ' |')
    out.append(sep)
    out.append(f'{len(rows)} row{"s" if len(rows) != 1 else ""} in set (0.{rint(0,9)}{rint(0,9)} sec)')
    return '\n'.join(out)


def show_file(path, lines):
    v = rint(0, 3)
    if v == 0:
        return f'$ cat {path}\n' + '\n'.join(lines)
    if v == 1:
        start = rint(1, 60)
        return f"$ sed -n '{start},{start + len(lines) - 1}p' {path}\n" + '\n'.join(lines)
    if v == 2:
        return f'$ cat -n {path}\n' + '\n'.join(f'{i + 1:6}\t{l}' for i, l in enumerate(lines))
    return f'$ head -n {len(lines)} {path}\n' + '\n'.join(lines)


def jdump(obj, indent=None):
    if indent is None:
        return json.dumps(obj, ensure_ascii=False, separators=(',', ':'))
    return json.dumps(obj, ensure_ascii=False, indent=indent)


# ---------------------------------------------------------------- vocabulary
REGIONS = ['us-east-1', 'us-east-2', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-2',
           'ap-northeast-1', 'ca-central-1', 'sa-east-1', 'eu-north-1']
GCP_REGIONS = ['us-central1', 'europe-west1', 'europe-west4', 'asia-northeast1', 'us-east4']
AZ_REGIONS = ['eastus', 'westeurope', 'northeurope', 'westus2', 'uksouth', 'australiaeast']
USERS = ['alice', 'bob', 'deploy', 'ci-bot', 'jmartin', 'priya', 'wchen', 'ops', 'svc-backend',
         'kpatel', 'lucia', 'omar', 'nadia', 'tomasz', 'ingrid', 'ravi']
FULLNAMES = ['Alice Moreau', 'Bob Lindqvist', 'Priya Raman', 'Wei Chen', 'Lucia Ferreira',
             'Omar Haddad', 'Nadia Kowalski', 'Tomasz Nowak', 'Ingrid Sørensen', 'Ravi Iyer',
             'Kenji Watanabe', 'Fatima Zahra', 'Diego Alvarez', 'Hannah Becker']
APPS = ['billing-api', 'web', 'checkout', 'ingest', 'auth-svc', 'reports', 'mobile-bff', 'notifier',
        'search', 'ledger', 'orders', 'gateway', 'metrics-exporter', 'scheduler', 'catalog', 'payments']
ORGS = ['acme', 'northwind', 'globex', 'initech', 'umbrella-labs', 'hooli', 'starkind', 'wayne-ent',
        'tyrell', 'cyberdyne', 'pied-piper', 'vandelay', 'soylent', 'wonka']
DBS = ['app', 'orders', 'billing', 'analytics', 'users', 'inventory', 'ledger', 'crm']
DBUSERS = ['app', 'app_rw', 'svc_orders', 'postgres', 'admin', 'readonly', 'etl', 'django', 'rails']
NAMESPACES = ['default', 'prod', 'staging', 'data', 'monitoring', 'payments', 'platform', 'ingress']
WORDS = ['deploy', 'finished', 'release', 'candidate', 'meeting', 'notes', 'quarterly', 'report',
         'welcome', 'to', 'the', 'team', 'build', 'passed', 'hello', 'world', 'config', 'migration',
         'schedule', 'for', 'monday', 'invoice', 'customer', 'support', 'ticket', 'resolved',
         'backup', 'completed', 'weekly', 'summary', 'error', 'budget', 'draft', 'review']
ADJ = ['admiring', 'brave', 'clever', 'eager', 'focused', 'gallant', 'happy', 'jolly', 'keen',
       'loving', 'nifty', 'quirky', 'serene', 'upbeat', 'vibrant', 'zealous']
SCI = ['turing', 'hopper', 'lovelace', 'curie', 'noether', 'shannon', 'knuth', 'ritchie',
       'hamilton', 'bohr', 'darwin', 'franklin', 'galileo', 'kepler', 'lamport', 'liskov']
TLDS = ['io', 'com', 'dev', 'net', 'co', 'app']


def domain():
    return f'{pick(ORGS)}.{pick(TLDS)}'


def email():
    return f'{pick(USERS).replace("-", ".")}@{domain()}'


def sentence(n=None):
    return ' '.join(pick(WORDS) for _ in range(n or rint(3, 8)))


# ---------------------------------------------------------------- token formats
def akid(prefix='AKIA'):
    return prefix + rs(B32, 16)


def aws_secret():
    return rs(B64S, 40)


def aws_session():
    return 'IQoJb3JpZ2luX2Vj' + rs(B64S, rint(330, 420)) + pick(['', '=', '=='])


def ghp():
    return 'ghp_' + b62(36)


def gho():
    return 'gho_' + b62(36)


def ghs():
    return 'ghs_' + b62(36)


def github_pat():
    return 'github_pat_' + rs(DG + UP, 2) + b62(20) + '_' + b62(59)


def any_github():
    return pick([ghp, gho, github_pat])()


def xoxb():
    return f'xoxb-{digits(rint(11, 13))}-{digits(13)}-{b62(24)}'


def xoxp():
    return f'xoxp-{digits(11)}-{digits(11)}-{digits(13)}-{hx(32)}'


def sk_live():
    return pick(['sk_live_', 'sk_live_51']) + b62(pick([24, 34, 97]))


def rk_live():
    return 'rk_live_51' + b62(97)


def whsec():
    return 'whsec_' + b62(32)


def openai_key():
    return 'sk-proj-' + bu(74) + 'T3BlbkFJ' + bu(74)


def anthropic_key():
    return 'sk-ant-api03-' + bu(93) + 'AA'


def glpat():
    return 'glpat-' + bu(20)


def npm_tok():
    return 'npm_' + b62(36)


def sendgrid():
    return 'SG.' + bu(22) + '.' + bu(43)


def google_api():
    return 'AIza' + bu(35)


def ya29():
    return 'ya29.a0' + bu(rint(150, 210))


def gocspx():
    return 'GOCSPX-' + bu(28)


def google_refresh():
    return '1//0' + rs(B62, 1) + bu(rint(95, 100))


def do_tok():
    return 'dop_v1_' + hx(64)


def fly_macaroon():
    return 'fm2_' + b64(rint(170, 220)) + ',fm2_' + b64(rint(60, 90))


def fly_legacy():
    return 'fo1_' + bu(43)


def vercel_tok():
    return b62(24)


def netlify_tok():
    return 'nfp_' + b62(36)


def heroku_tok():
    return 'HRKU-AA' + bu(58)


def sbp():
    return 'sbp_' + hx(40)


def sb_secret():
    return 'sb_secret_' + bu(31)


def cf_token():
    return bu(40)


def cf_global_key():
    return hx(37)


def hvs():
    return 'hvs.' + b62(24)


def pypi_tok():
    return 'pypi-AgEIcHlwaS5vcmc' + bu(rint(140, 170))


def cio():
    return 'cio' + b62(32)


def dckr_pat():
    return 'dckr_pat_' + bu(27)


def hf_tok():
    return 'hf_' + rs(UP + LO, 34)


def langsmith():
    return 'lsv2_pt_' + hx(32) + '_' + hx(10)


def pinecone():
    return 'pcsk_' + b62(5) + '_' + b62(60)


def shpat():
    return 'shpat_' + hx(32)


def mailgun():
    return 'key-' + hx(32)


def twilio_sid():
    return 'AC' + hx(32)


def azure_sp_secret():
    return b62(3) + '8Q~' + rs(B62 + '_.~-', 34)


def azure_storage_key():
    return b64(64)


def datadog_api():
    return hx(32)


def datadog_app():
    return hx(40)


def slack_webhook_parts():
    return 'T' + rs(UP + DG, rint(8, 10)), 'B' + rs(UP + DG, rint(8, 10)), b62(24)


def telegram_bot():
    return f'{digits(10)}:AA' + bu(33)


def linear_key():
    return 'lin_api_' + b62(40)


def postman_key():
    return f'PMAK-{hx(24)}-{hx(34)}'


def upstash_tok():
    return 'A' + rs(UP, 3) + 'AAIjcDE' + b62(rint(40, 50))


def bitbucket_app_pw():
    return 'ATBB' + b62(28) + hx(8).upper()


def confluent_pair():
    return rs(UP + DG, 16), rs(B64S, 64)


def opaque():
    """random value for credentials with uninformative names"""
    return pick([lambda: hx(32), lambda: hx(40), lambda: hx(64), lambda: b64(32),
                 lambda: b62(rint(32, 48)), lambda: bu(rint(32, 43))])()


def app_token():
    return pick(['tok_', 'pat_', 'key_', 'at_', 'live_', '']) + b62(rint(28, 40))


def jwt(payload, alg='HS256', kid=None, sig_bytes=32):
    h = {'alg': alg, 'typ': 'JWT'}
    if kid:
        h['kid'] = kid
    enc = lambda o: b64u(json.dumps(o, separators=(',', ':')).encode())
    return enc(h) + '.' + enc(payload) + '.' + b64u(rb(sig_bytes))


def k8s_sa_token(ns, sa):
    d = dt()
    return jwt({'aud': ['https://kubernetes.default.svc.cluster.local'], 'exp': epoch(d) + 31536000,
                'iat': epoch(d), 'iss': 'https://kubernetes.default.svc.cluster.local',
                'kubernetes.io': {'namespace': ns, 'serviceaccount': {'name': sa, 'uid': uid()}},
                'nbf': epoch(d), 'sub': f'system:serviceaccount:{ns}:{sa}'},
               alg='RS256', kid=bu(43), sig_bytes=256)


def user_jwt(iss):
    d = dt()
    return jwt({'sub': uid(), 'email': email(), 'iss': iss, 'iat': epoch(d), 'exp': epoch(d) + 3600,
                'scope': pick(['read write', 'openid profile email', 'api:full'])},
               alg=pick(['HS256', 'RS256']), sig_bytes=pick([32, 256]))


# ---------------------------------------------------------------- DER / keys
def der_len(n):
    if n < 128:
        return bytes([n])
    if n < 256:
        return b'\x81' + bytes([n])
    return b'\x82' + n.to_bytes(2, 'big')


def der(tag, content):
    return bytes([tag]) + der_len(len(content)) + content


OID_P256 = bytes.fromhex('06082a8648ce3d030107')
OID_ECPUB = bytes.fromhex('06072a8648ce3d0201')
OID_RSA = bytes.fromhex('06092a864886f70d010101')
OID_SHA256RSA = bytes.fromhex('06092a864886f70d01010b')
OID_ECDSA256 = bytes.fromhex('06082a8648ce3d040302')
NULL = b'\x05\x00'


def der_int_big(nbytes):
    b = bytearray(rb(nbytes))
    b[0] |= 0x80
    return der(0x02, b'\x00' + bytes(b))


def ec_private_der():
    body = (der(0x02, b'\x01') + der(0x04, rb(32)) + der(0xA0, OID_P256) +
            der(0xA1, der(0x03, b'\x00\x04' + rb(64))))
    return der(0x30, body)


def pkcs8(alg, inner):
    return der(0x30, der(0x02, b'\x00') + der(0x30, alg) + der(0x04, inner))


def pkcs8_ec():
    return pkcs8(OID_ECPUB + OID_P256, ec_private_der())


def pkcs8_ed25519():
    return bytes.fromhex('302e020100300506032b657004220420') + rb(32)


def rsa_private_der(nbytes):
    h = nbytes // 2
    body = (der(0x02, b'\x00') + der_int_big(nbytes) + der(0x02, b'\x01\x00\x01') + der_int_big(nbytes) +
            der_int_big(h) + der_int_big(h) + der_int_big(h) + der_int_big(h) + der_int_big(h))
    return der(0x30, body)


def pkcs8_rsa(nbytes):
    return pkcs8(OID_RSA + NULL, rsa_private_der(nbytes))


def spki_rsa(nbytes):
    return der(0x30, der(0x30, OID_RSA + NULL) +
               der(0x03, b'\x00' + der(0x30, der_int_big(nbytes) + der(0x02, b'\x01\x00\x01'))))


def spki_ec():
    return der(0x30, der(0x30, OID_ECPUB + OID_P256) + der(0x03, b'\x00\x04' + rb(64)))


def x509_name(cn, org=None):
    rdn = der(0x31, der(0x30, bytes.fromhex('0603550403') + der(0x0C, cn.encode())))
    if org:
        rdn = der(0x31, der(0x30, bytes.fromhex('060355040a') + der(0x0C, org.encode()))) + rdn
    return der(0x30, rdn)


def cert_der(cn, issuer, ec=True):
    a = dt()
    b = a + datetime.timedelta(days=pick([90, 365, 397, 825, 3650]))
    t = lambda d: der(0x17, d.strftime('%y%m%d%H%M%SZ').encode())
    sigalg = der(0x30, OID_ECDSA256) if ec else der(0x30, OID_SHA256RSA + NULL)
    spki = spki_ec() if ec else spki_rsa(256)
    tbs = der(0x30, der(0xA0, der(0x02, b'\x02')) + der(0x02, b'\x01' + rb(15)) + sigalg +
              x509_name(issuer, pick(ORGS).title()) + der(0x30, t(a) + t(b)) + x509_name(cn) + spki)
    sig = der(0x30, der_int_big(32) + der_int_big(32)) if ec else rb(256)
    return der(0x30, tbs + sigalg + der(0x03, b'\x00' + sig))


def sshstr(b):
    return struct.pack('>I', len(b)) + b


def ssh_ed25519_pub_blob(pk=None):
    return sshstr(b'ssh-ed25519') + sshstr(pk or rb(32))


def ssh_rsa_pub_blob(nbytes=384):
    n = bytearray(rb(nbytes))
    n[0] |= 0x80
    return sshstr(b'ssh-rsa') + sshstr(b'\x01\x00\x01') + sshstr(b'\x00' + bytes(n))


def ssh_ecdsa_pub_blob():
    return sshstr(b'ecdsa-sha2-nistp256') + sshstr(b'nistp256') + sshstr(b'\x04' + rb(64))


def ssh_fp(blob):
    return 'SHA256:' + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip('=')


def openssh_private_ed25519(comment):
    pk, sk = rb(32), rb(32)
    pub = ssh_ed25519_pub_blob(pk)
    chk = rb(4)
    priv = chk + chk + sshstr(b'ssh-ed25519') + sshstr(pk) + sshstr(sk + pk) + sshstr(comment.encode())
    i = 1
    while len(priv) % 8:
        priv += bytes([i])
        i += 1
    blob = (b'openssh-key-v1\x00' + sshstr(b'none') + sshstr(b'none') + sshstr(b'') +
            struct.pack('>I', 1) + sshstr(pub) + sshstr(priv))
    text = '-----BEGIN OPENSSH PRIVATE KEY-----\n' + wrap(b64e(blob), 70) + '\n-----END OPENSSH PRIVATE KEY-----'
    return text, pub


def randomart(blob, title='ED25519 256', foot='SHA256'):
    """OpenSSH 'drunken bishop' visualisation of the SHA256 fingerprint"""
    w, h = 17, 9
    field = [[0] * w for _ in range(h)]
    x, y = w // 2, h // 2
    sx, sy = x, y
    for byte in hashlib.sha256(blob).digest():
        for _ in range(4):
            x += 1 if byte & 1 else -1
            y += 1 if byte & 2 else -1
            x = max(0, min(w - 1, x))
            y = max(0, min(h - 1, y))
            if field[y][x] < 14:
                field[y][x] += 1
            byte >>= 2
    chars = ' .o+=*BOX@%&#/^SE'
    top = f'[{title}]'
    out = ['+' + top.center(w, '-') + '+']
    for yy in range(h):
        row = ''
        for xx in range(w):
            if (xx, yy) == (sx, sy):
                row += 'S'
            elif (xx, yy) == (x, y):
                row += 'E'
            else:
                row += chars[min(field[yy][xx], 14)]
        out.append('|' + row + '|')
    out.append('+' + f'[{foot}]'.center(w, '-') + '+')
    return out


def stamper():
    state = {'d': dt()}

    def stamp():
        state['d'] += datetime.timedelta(microseconds=rint(5000, 900000))
        d = state['d']
        return d.strftime('%Y-%m-%dT%H:%M:%S.') + f'{d.microsecond:06d}{rint(0, 9)}Z'
    return stamp


def iso_seq(n, fmt=iso_ms):
    d = dt()
    out = []
    for _ in range(n):
        d += datetime.timedelta(milliseconds=rint(3, 40000))
        out.append(fmt(d))
    return out


def dockerconfig_auth(user, secret):
    return b64e(f'{user}:{secret}'.encode())


# ================================================================ POSITIVES
POS = []
NEG = []


def pos(name):
    def d(f):
        POS.append((name, f))
        return f
    return d


def neg(name):
    def d(f):
        NEG.append((name, f))
        return f
    return d


@pos('aws-credentials-file')
def _():
    out = [pick(['$ cat ~/.aws/credentials', '$ cat $HOME/.aws/credentials', '$ sed -n 1,20p ~/.aws/credentials'])]
    profiles = ['default'] + sample(['staging', 'prod', 'ci', 'sandbox', 'data-eng', 'billing', 'legacy'], rint(0, 2))
    for i, p in enumerate(profiles):
        if i:
            out.append('')
        out.append(f'[{p}]')
        out.append(f'aws_access_key_id = {M(akid())}')
        out.append(f'aws_secret_access_key = {M(aws_secret())}')
        if R.random() < 0.4:
            out.append(f'region = {pick(REGIONS)}')
    return '\n'.join(out)


@pos('aws-cli-credentials-json')
def _():
    acct = acct_id()
    v = rint(0, 2)
    if v == 0:
        role = pick(['deploy', 'ci-runner', 'ReadOnly', 'terraform-apply', 'data-pipeline', 'OrganizationAccountAccessRole'])
        sess = pick(['ci', 'gh-actions', 'local', 'tf', 'cli']) + '-' + str(rint(1000, 99999))
        cmd = f'$ aws sts assume-role --role-arn arn:aws:iam::{acct}:role/{role} --role-session-name {sess}'
        obj = {'Credentials': {'AccessKeyId': M(akid('ASIA')), 'SecretAccessKey': M(aws_secret()),
                               'SessionToken': M(aws_session()), 'Expiration': iso_off()},
               'AssumedRoleUser': {'AssumedRoleId': f'AROA{rs(B32, 17)}:{sess}',
                                   'Arn': f'arn:aws:sts::{acct}:assumed-role/{role}/{sess}'}}
    elif v == 1:
        user = pick(USERS)
        cmd = f'$ aws iam create-access-key --user-name {user}'
        obj = {'AccessKey': {'UserName': user, 'AccessKeyId': M(akid()), 'Status': 'Active',
                             'SecretAccessKey': M(aws_secret()), 'CreateDate': iso_off()}}
    else:
        user = pick(USERS)
        cmd = (f'$ aws sts get-session-token --serial-number arn:aws:iam::{acct}:mfa/{user} '
               f'--token-code {rint(100000, 999999)}')
        obj = {'Credentials': {'AccessKeyId': M(akid('ASIA')), 'SecretAccessKey': M(aws_secret()),
                               'SessionToken': M(aws_session()), 'Expiration': iso_off()}}
    return cmd + '\n' + jdump(obj, 4)


@pos('gcp-service-account-key')
def _():
    proj = f'{pick(ORGS)}-{pick(["prod", "staging", "data", "ml", "infra"])}-{rint(100000, 999999)}'
    sa = pick(['terraform', 'github-actions', 'bq-loader', 'app-runtime', 'backup-writer'])
    mail = f'{sa}@{proj}.iam.gserviceaccount.com'
    key = pem('PRIVATE KEY', pkcs8_rsa(256))
    obj = {'type': 'service_account', 'project_id': proj, 'private_key_id': hx(40),
           'private_key': M(key) + '\n', 'client_email': mail, 'client_id': digits(21),
           'auth_uri': 'https://accounts.google.com/o/oauth2/auth',
           'token_uri': 'https://oauth2.googleapis.com/token',
           'auth_provider_x509_cert_url': 'https://www.googleapis.com/oauth2/v1/certs',
           'client_x509_cert_url': 'https://www.googleapis.com/robot/v1/metadata/x509/' + urllib.parse.quote(mail),
           'universe_domain': 'googleapis.com'}
    path = pick([f'~/Downloads/{proj}-{hx(12)}.json', 'credentials/sa.json', f'./{sa}-key.json',
                 '/var/run/secrets/gcp/key.json'])
    return f'$ cat {path}\n' + jdump(obj, 2)


@pos('gcloud-tokens')
def _():
    v = rint(0, 3)
    if v == 0:
        return f'$ gcloud auth print-access-token\n{M(ya29())}'
    if v == 1:
        b = f'{pick(ORGS)}-{pick(["assets", "backups", "exports"])}'
        t = ya29()
        return (f'$ bash -x ./scripts/list-bucket.sh {b}\n'
                f'++ gcloud auth application-default print-access-token\n'
                f'+ TOKEN={M(t)}\n'
                f"+ curl -s -H 'Authorization: Bearer {M(t)}' https://storage.googleapis.com/storage/v1/b/{b}/o\n"
                + jdump({'kind': 'storage#objects', 'items': [{'name': f'{pick(WORDS)}-{rint(1, 99)}.csv', 'bucket': b,
                                                                'generation': digits(16)}]}))
    if v == 2:
        cid = f'{digits(12)}-{rs(LO + DG, 32)}.apps.googleusercontent.com'
        obj = {'account': '', 'client_id': cid, 'client_secret': M(gocspx()),
               'quota_project_id': f'{pick(ORGS)}-{rint(1000, 9999)}', 'refresh_token': M(google_refresh()),
               'type': 'authorized_user', 'universe_domain': 'googleapis.com'}
        return '$ cat ~/.config/gcloud/application_default_credentials.json\n' + jdump(obj, 2)
    proj = f'{pick(ORGS)}-{rint(1000, 9999)}'
    sa = f'{pick(["deployer", "ci", "tf-runner"])}@{proj}.iam.gserviceaccount.com'
    return ('$ gcloud config list\n[core]\naccount = ' + email() + f'\nproject = {proj}\n\n'
            f'Your active configuration is: [default]\n$ gcloud auth print-access-token --impersonate-service-account={sa}\n'
            f'WARNING: This command is using service account impersonation. All API calls will be executed as [{sa}].\n{M(ya29())}')


@pos('azure-sp-credentials')
def _():
    sub, tenant, app = uid(), uid(), uid()
    name = pick(['ci-deployer', 'github-oidc-fallback', 'tf-runner', 'aks-pipeline', 'backup-sp'])
    rg = 'rg-' + pick(APPS)
    if R.random() < 0.6:
        cmd = (f'$ az ad sp create-for-rbac --name {name} --role Contributor --scopes /subscriptions/{sub}/resourceGroups/{rg}\n'
               f"Creating 'Contributor' role assignment under scope '/subscriptions/{sub}/resourceGroups/{rg}'\n"
               'The output includes credentials that you must protect. Be sure that you do not include these credentials '
               'in your code or check the credentials into your source control. For more information, see https://aka.ms/azadsp-cli')
    else:
        cmd = (f'$ az ad app credential reset --id {app} --append\n'
               'The output includes credentials that you must protect. Be sure that you do not include these credentials '
               'in your code or check the credentials into your source control. For more information, see https://aka.ms/azadsp-cli')
    obj = {'appId': app, 'displayName': name, 'password': M(azure_sp_secret()), 'tenant': tenant}
    return cmd + '\n' + jdump(obj, 2)


@pos('azure-storage-keys')
def _():
    acct = pick(ORGS).replace('-', '') + pick(['prod', 'data', 'logs', 'st']) + str(rint(1, 99))
    rg = 'rg-' + pick(APPS)
    v = rint(0, 2)
    if v == 0:
        cs = (f'DefaultEndpointsProtocol=https;EndpointSuffix=core.windows.net;AccountName={acct};'
              f'AccountKey={M(azure_storage_key())};BlobEndpoint=https://{acct}.blob.core.windows.net/;'
              f'FileEndpoint=https://{acct}.file.core.windows.net/;QueueEndpoint=https://{acct}.queue.core.windows.net/;'
              f'TableEndpoint=https://{acct}.table.core.windows.net/')
        return f'$ az storage account show-connection-string -g {rg} -n {acct}\n' + jdump({'connectionString': cs}, 2)
    if v == 1:
        rows = [['CreationTime', 'KeyName', 'Permissions', 'Value'],
                ['-' * 32, '-' * 7, '-' * 11, '-' * 88]]
        for k in ('key1', 'key2'):
            rows.append([iso_off().replace('+00:00', '.' + digits(6) + '+00:00'), k, 'FULL', M(azure_storage_key())])
        return f'$ az storage account keys list -g {rg} -n {acct} -o table\n' + columns(rows, 2)
    cont = pick(['uploads', 'exports', 'backups', 'media'])
    sig = urllib.parse.quote(b64(32), safe='')
    exp = dt().strftime('%Y-%m-%dT%H:%MZ')
    return (f'$ az storage container generate-sas --account-name {acct} -n {cont} --permissions rl --expiry {exp} '
            f'--account-key "$AZ_KEY" -o tsv\n'
            f'se={urllib.parse.quote(exp, safe="")}&sp=rl&sv=2022-11-02&sr=c&sig={M(sig)}')


@pos('doctl-token')
def _():
    if R.random() < 0.6:
        lines = [f'access-token: {M(do_tok())}', 'auth-contexts:']
        for c in sample(['staging', 'personal', 'client-' + pick(ORGS), 'prod'], rint(1, 2)):
            lines.append(f'  {c}: {M(do_tok())}')
        lines += ['context: default', 'output: text',
                  f'apps.dev.config.set.dev.config: ""', f'compute.ssh.ssh-key-path: ~/.ssh/id_ed25519']
        return show_file('~/.config/doctl/config.yaml', lines)
    t = do_tok()
    rows = [['ID', 'Name', 'Public IPv4', 'Region', 'Status']]
    for _ in range(rint(1, 3)):
        rows.append([digits(9), f'{pick(APPS)}-{rint(1, 9)}', ip_pub(), pick(['nyc3', 'ams3', 'fra1', 'sfo3', 'sgp1']), 'active'])
    return f'$ DIGITALOCEAN_ACCESS_TOKEN={M(t)} doctl compute droplet list\n' + columns(rows)


@pos('flyctl-token')
def _():
    app = f'{pick(APPS)}-{pick(["prod", "stg", "demo"])}'
    v = rint(0, 2)
    if v == 0:
        return f'$ fly tokens create deploy -a {app} -x 720h\nFlyV1 {M(fly_macaroon())}'
    if v == 1:
        lines = [f'access_token: {M(fly_legacy())}', 'last_proxy:', f'  "{app}": "{app}.internal"',
                 'metrics_token: ""', 'send_metrics: true', 'syntax_checking: true', 'wire_guard_state:',
                 f'  personal:', f'    region: {pick(["iad", "ams", "fra", "syd", "ord"])}']
        return show_file('~/.fly/config.yml', lines)
    p = upw()
    return (f'$ fly secrets set -a {app} DATABASE_URL=postgres://{app.replace("-", "_")}:{M(p)}@{app}-db.flycast:5432/{pick(DBS)}\n'
            f'Updating existing machines in \'{app}\' with rolling strategy\n'
            f'-------\n ✔ Machine {hx(14)} [app] update succeeded\n-------')


@pos('vercel-env-pull')
def _():
    if R.random() < 0.35:
        lines = ['{', '  "// Note": "This is your Vercel credentials file. DO NOT SHARE!",',
                 '  "// Docs": "https://vercel.com/docs/projects/project-configuration/global-configuration#auth.json",',
                 f'  "token": "{M(vercel_tok())}"', '}']
        return show_file('~/.local/share/com.vercel.cli/auth.json', lines)
    proj = pick(APPS)
    team = pick(ORGS)
    host = f'{pick(["able", "proud", "great", "vital", "fresh"])}-{pick(["lark", "mole", "fox", "gnu", "ram"])}-{rint(10000, 99999)}'
    oidc = jwt({'iss': f'https://oidc.vercel.com/{team}', 'sub': f'owner:{team}:project:{proj}:environment:development',
                'aud': f'https://vercel.com/{team}', 'owner': team, 'project': proj, 'environment': 'development',
                'iat': epoch(), 'exp': epoch() + 43200}, alg='RS256', kid=f'mrk-{hx(32)}', sig_bytes=256)
    kv = upstash_tok()
    p = upw()
    lines = [f'$ vercel env pull .env.local', f'Vercel CLI {rint(32, 39)}.{rint(0, 9)}.{rint(0, 9)}',
             f'> Downloading `development` Environment Variables for Project {proj}',
             f'✅  Created .env.local file  [{rint(120, 900)}ms]', '$ cat .env.local',
             '# Created by Vercel CLI',
             f'KV_REST_API_READ_ONLY_TOKEN="{M(upstash_tok())}"',
             f'KV_REST_API_TOKEN="{M(kv)}"',
             f'KV_REST_API_URL="https://{host}.upstash.io"',
             f'KV_URL="rediss://default:{M(kv)}@{host}.upstash.io:6379"',
             f'NEXT_PUBLIC_SITE_URL="https://{proj}.{team}.dev"',
             f'POSTGRES_PASSWORD="{M(p)}"',
             f'POSTGRES_URL="postgres://default:{M(p)}@ep-{pick(WORDS)}-{hx(8)}-pooler.us-east-1.aws.neon.tech:5432/verceldb?sslmode=require"',
             f'VERCEL_OIDC_TOKEN="{M(oidc)}"']
    return '\n'.join(lines)


@pos('netlify-token')
def _():
    if R.random() < 0.5:
        user = hx(24)
        obj = {'telemetryDisabled': False, 'cliId': uid(), 'userId': user,
               'users': {user: {'id': user, 'name': pick(FULLNAMES), 'email': email(),
                                'auth': {'token': M(netlify_tok()), 'github': {'user': None, 'token': None}}}}}
        return ('$ cat "$HOME/Library/Preferences/netlify/config.json"\n' if R.random() < 0.5
                else '$ cat ~/.config/netlify/config.json\n') + jdump(obj, 2)
    site = pick(APPS)
    lines = [f'$ netlify env:list --plain --context production',
             f'CONTENTFUL_DELIVERY_TOKEN={M(bu(43))}',
             f'ALGOLIA_APP_ID={rs(UP + DG, 10)}',
             f'ALGOLIA_ADMIN_KEY={M(hx(32))}',
             f'SITE_NAME={site}',
             f'MAILGUN_API_KEY={M(mailgun())}',
             f'NODE_VERSION=20']
    return '\n'.join(lines)


@pos('heroku-config')
def _():
    app = f'{pick(APPS)}-{pick(["prod", "staging", "eu"])}'
    if R.random() < 0.3:
        return (f'$ heroku auth:token\n ›   Warning: token will expire {dt().strftime("%m/%d/%Y")}\n'
                f' ›   Use heroku authorizations:create to generate a long-term token\n{M(heroku_tok())}')
    items = [('DATABASE_URL', f'postgres://u{rs(LO + DG, 13)}:{M("p" + hx(64))}@c{rs(LO + DG, 8)}.cluster-{rs(LO + DG, 12)}.us-east-1.rds.amazonaws.com:5432/d{rs(LO + DG, 13)}'),
             ('REDIS_URL', f'rediss://:{M("p" + hx(64))}@ec2-{ip_pub().replace(".", "-")}.compute-1.amazonaws.com:{rint(10000, 30000)}'),
             ('SECRET_KEY_BASE', M(hx(128))),
             ('PAPERTRAIL_API_TOKEN', M(b62(20))),
             ('LANG', 'en_US.UTF-8'), ('RACK_ENV', 'production'),
             ('WEB_CONCURRENCY', str(rint(2, 5)))]
    items = sorted([items[0]] + sample(items[1:], rint(3, 6)))
    w = max(len(k) for k, _ in items) + 1
    return f'$ heroku config -a {app}\n=== {app} Config Vars\n\n' + '\n'.join(f'{(k + ":").ljust(w)} {v}' for k, v in items)


@pos('supabase-keys')
def _():
    ref = rs(LO, 20)
    d = dt()
    srk = jwt({'iss': 'supabase', 'ref': ref, 'role': 'service_role', 'iat': epoch(d), 'exp': epoch(d) + 315360000})
    v = rint(0, 2)
    if v == 0:
        p = upw()
        lines = [f'SUPABASE_URL=https://{ref}.supabase.co', f'SUPABASE_SERVICE_ROLE_KEY={M(srk)}',
                 f'SUPABASE_DB_URL=postgresql://postgres.{ref}:{M(p)}@aws-0-{pick(REGIONS)}.pooler.supabase.com:6543/postgres',
                 f'SUPABASE_ACCESS_TOKEN={M(sbp())}']
        return show_file(pick(['supabase/.env', '.env.production', 'apps/api/.env']), lines)
    if v == 1:
        return f'$ cat ~/.supabase/access-token\n{M(sbp())}'
    return (f'$ supabase secrets set --project-ref {ref} STRIPE_SECRET_KEY={M(sk_live())} SB_SECRET={M(sb_secret())}\n'
            f'Finished supabase secrets set.')


@pos('cloudflare-credentials')
def _():
    v = rint(0, 2)
    if v == 0:
        d = dt()
        lines = [f'oauth_token = "{M(bu(43) + "." + bu(43))}"',
                 f'expiration_time = "{iso_ms(d)}"',
                 f'refresh_token = "{M(bu(43) + "." + bu(43))}"',
                 'scopes = [ "account:read", "user:read", "workers:write", "workers_kv:write", "workers_routes:write", '
                 '"workers_scripts:write", "workers_tail:read", "d1:write", "pages:write", "zone:read", "ssl_certs:write", '
                 '"constellation:write", "ai:write", "queues:write", "offline_access" ]']
        return show_file(pick(['~/.wrangler/config/default.toml', '~/Library/Preferences/.wrangler/config/default.toml',
                               '~/.config/.wrangler/config/default.toml']), lines)
    if v == 1:
        lines = [f'CLOUDFLARE_ACCOUNT_ID={hx(32)}', f'CLOUDFLARE_API_TOKEN={M(cf_token())}',
                 f'CF_ZONE_ID={hx(32)}']
        if R.random() < 0.5:
            lines.append(f'CLOUDFLARE_EMAIL={email()}')
            lines.append(f'CLOUDFLARE_API_KEY={M(cf_global_key())}')
        return show_file(pick(['.dev.vars', '.env', 'infra/cloudflare.env']), lines)
    t = cf_token()
    return (f'$ curl -s "https://api.cloudflare.com/client/v4/user/tokens/verify" -H "Authorization: Bearer {M(t)}"\n'
            + jdump({'result': {'id': hx(32), 'status': 'active'}, 'success': True, 'errors': [],
                     'messages': [{'code': 10000, 'message': 'This API Token is valid and active', 'type': None}]}))


@pos('kubectl-secret')
def _():
    ns = pick(NAMESPACES)
    name = pick(['db-credentials', 'app-secrets', 'redis-auth', 'api-keys', f'{pick(APPS)}-env'])
    v = rint(0, 2)
    if v == 0:
        vals = {'password': pw(), pick(['api-key', 'token', 'relay', 'seal']): opaque()}
        if R.random() < 0.5:
            vals['STRIPE_SECRET_KEY'] = sk_live()
        lines = [f'$ kubectl get secret {name} -n {ns} -o yaml', 'apiVersion: v1', 'data:']
        for k, val in sorted(vals.items()):
            lines.append(f'  {k}: {M(b64e(val.encode()))}')
        lines += ['kind: Secret', 'metadata:', f'  creationTimestamp: "{iso()}"', f'  name: {name}',
                  f'  namespace: {ns}', f'  resourceVersion: "{rint(10000, 99999999)}"', f'  uid: {uid()}', 'type: Opaque']
        return '\n'.join(lines)
    if v == 1:
        key = pick(['password', 'postgres-password', 'redis-password', 'token'])
        return (f"$ kubectl get secret {name} -n {ns} -o jsonpath='{{.data.{key}}}' | base64 -d; echo\n{M(pw())}")
    out = [f"$ kubectl get secret {name} -n {ns} -o go-template='{{{{range $k,$v := .data}}}}{{{{$k}}}}={{{{$v|base64decode}}}}{{{{\"\\n\"}}}}{{{{end}}}}'"]
    out.append(f'DB_HOST={pick(DBS)}-postgresql.{ns}.svc.cluster.local')
    out.append(f'DB_PASSWORD={M(pw())}')
    out.append(f'DB_USER={pick(DBUSERS)}')
    out.append(f'SENDGRID_API_KEY={M(sendgrid())}')
    return '\n'.join(out)


@pos('kubeconfig-credentials')
def _():
    cluster = pick(['prod-eu', 'staging', 'kind-dev', 'gke_' + pick(ORGS) + '_europe-west1_main', 'k3s'])
    ca = b64e(pem('CERTIFICATE', cert_der('kubernetes', 'kubernetes')).encode())
    server = f'https://{ip_pub()}:6443'
    lines = ['$ kubectl config view --raw --minify', 'apiVersion: v1', 'clusters:', '- cluster:',
             f'    certificate-authority-data: {ca}', f'    server: {server}', f'  name: {cluster}', 'contexts:',
             '- context:', f'    cluster: {cluster}', f'    user: {cluster}-admin', f'  name: {cluster}',
             f'current-context: {cluster}', 'kind: Config', 'preferences: {}', 'users:', f'- name: {cluster}-admin', '  user:']
    if R.random() < 0.5:
        sa = pick(['deployer', 'ci', 'argocd-manager', 'admin-user'])
        lines.append(f'    token: {M(k8s_sa_token(pick(NAMESPACES), sa))}')
    else:
        crt = b64e(pem('CERTIFICATE', cert_der('kubernetes-admin', 'kubernetes')).encode())
        key = b64e((pem('EC PRIVATE KEY', ec_private_der()) + '\n').encode())
        lines.append(f'    client-certificate-data: {crt}')
        lines.append(f'    client-key-data: {M(key)}')
    return '\n'.join(lines)


@pos('helm-values')
def _():
    rel = pick(['grafana', 'postgresql', 'redis', 'keycloak', 'gitlab-runner', 'rabbitmq'])
    ns = pick(NAMESPACES)
    v = rint(0, 1)
    if v == 0:
        if rel == 'grafana':
            body = ['adminUser: admin', f'adminPassword: {M(pw())}', 'grafana.ini:', '  smtp:', '    enabled: true',
                    f'    host: smtp.{domain()}:587', f'    user: grafana@{domain()}', f'    password: {M(pw())}',
                    'persistence:', '  enabled: true', '  size: 10Gi']
        elif rel == 'gitlab-runner':
            body = ['gitlabUrl: https://gitlab.com/', f'runnerToken: {M("glrt-" + bu(20))}', 'rbac:', '  create: true',
                    'concurrent: 4']
        elif rel == 'rabbitmq':
            body = ['auth:', '  username: user', f'  password: {M(pw())}', f'  erlangCookie: {M(rs(UP, 32))}',
                    'replicaCount: 3']
        else:
            body = ['auth:', f'  database: {pick(DBS)}', f'  username: {pick(DBUSERS)}', f'  password: {M(pw())}',
                    f'  postgresPassword: {M(pw())}', 'primary:', '  persistence:', '    size: 20Gi']
        return f'$ helm get values {rel} -n {ns}\nUSER-SUPPLIED VALUES:\n' + '\n'.join(body)
    p = pw()
    k = opaque()
    return (f'$ helm upgrade --install {rel} bitnami/{rel} -n {ns} --set auth.password={M(p)} '
            f'--set extraEnv[0].name=UPSTREAM --set extraEnv[0].value={M(k)}\n'
            f'Release "{rel}" has been upgraded. Happy Helming!\nNAME: {rel}\nLAST DEPLOYED: {dt().strftime("%a %b %d %H:%M:%S %Y")}\n'
            f'NAMESPACE: {ns}\nSTATUS: deployed\nREVISION: {rint(2, 40)}\nTEST SUITE: None')


@pos('terraform-secrets')
def _():
    v = rint(0, 3)
    if v == 0:
        obj = {'db_password': {'sensitive': True, 'type': 'string', 'value': M(pw())},
               'api_endpoint': {'sensitive': False, 'type': 'string', 'value': f'https://{hx(10)}.execute-api.{pick(REGIONS)}.amazonaws.com/prod'},
               'ci_access_key': {'sensitive': True, 'type': ['object', {'id': 'string', 'secret': 'string'}],
                                 'value': {'id': M(akid()), 'secret': M(aws_secret())}}}
        return '$ terraform output -json\n' + jdump(obj, 2)
    if v == 1:
        return f'$ terraform output -raw {pick(["db_password", "admin_password", "redis_auth", "relay_value"])}\n{M(pw())}'
    if v == 2:
        ident = pick(DBS)
        vals = {'address': f'{ident}.{rs(LO + DG, 12)}.{pick(REGIONS)}.rds.amazonaws.com', 'allocated_storage': 100,
                'engine': 'postgres', 'engine_version': '16.2', 'identifier': ident, 'password': M(pw()),
                'username': pick(DBUSERS), 'port': 5432}
        return ("$ terraform show -json | jq '.values.root_module.resources[] | select(.type==\"aws_db_instance\") | .values'\n"
                + jdump(vals, 2))
    p = pw()
    return (f'$ grep -n -A2 \'"result"\' terraform.tfstate\n{rint(200, 900)}:            "result": "{M(p)}",\n'
            f'{rint(901, 999)}-            "special": true,\n{rint(1000, 1100)}-            "upper": true,')


@pos('pulumi-config')
def _():
    stack = pick(['dev', 'prod', 'staging'])
    proj = pick(APPS)
    if R.random() < 0.5:
        rows = [['KEY', 'VALUE'], ['aws:region', pick(REGIONS)], [f'{proj}:dbPassword', M(pw())],
                [f'{proj}:replicas', str(rint(1, 5))], [f'{proj}:{pick(["relay", "seal", "upstream"])}', M(opaque())],
                [f'{proj}:datadogApiKey', M(datadog_api())]]
        return f'$ pulumi config --show-secrets -s {stack}\n' + columns(rows, 4)
    rows = [['Current stack outputs (4):'], ['    OUTPUT', 'VALUE'],
            ['    bucketName', f'{proj}-{hx(7)}'], ['    clusterEndpoint', f'https://{hx(32).upper()}.gr7.{pick(REGIONS)}.eks.amazonaws.com'],
            ['    dbConnectionString', f'postgresql://{pick(DBUSERS)}:{M(upw())}@{proj}-{hx(7)}.{rs(LO + DG, 12)}.{pick(REGIONS)}.rds.amazonaws.com:5432/{pick(DBS)}'],
            ['    kubeToken', M(k8s_sa_token('kube-system', 'pulumi'))]]
    out = [rows[0][0]] + [columns([r for r in rows[1:]], 2)]
    return f'$ pulumi stack output --show-secrets -s {stack}\n' + '\n'.join(out)


@pos('vault-output')
def _():
    v = rint(0, 2)
    if v == 0:
        path = f'secret/{pick(APPS)}/{pick(["prod", "staging"])}'
        mount, rest = path.split('/', 1)
        keys = sample(['db_pass', 'relay', 'seal', 'stripe_key', 'jwt_secret', 'value'], rint(2, 3))
        gen = {'stripe_key': sk_live, 'db_pass': pw}
        rows = [['Key', 'Value'], ['---', '-----']] + [[k, M(gen.get(k, opaque)())] for k in sorted(keys)]
        return (f'$ vault kv get {path}\n' + '=' * 6 + ' Secret Path ' + '=' * 6 + f'\n{mount}/data/{rest}\n\n'
                + '=' * 7 + ' Metadata ' + '=' * 7 + '\n' +
                columns([['Key', 'Value'], ['---', '-----'], ['created_time', iso_ms().replace('Z', digits(6) + 'Z')],
                         ['custom_metadata', '<nil>'], ['deletion_time', 'n/a'], ['destroyed', 'false'],
                         ['version', str(rint(1, 12))]], 4) + '\n\n' + '=' * 6 + ' Data ' + '=' * 6 + '\n' + columns(rows, 4))
    if v == 1:
        pol = sample(['ci', 'deploy', 'read-secrets', 'kv-writer'], 2)
        rows = [['Key', 'Value'], ['---', '-----'], ['token', M(hvs())], ['token_accessor', b62(24)],
                ['token_duration', pick(['768h', '24h', '1h'])], ['token_renewable', 'true'],
                ['token_policies', '["default" "' + '" "'.join(pol) + '"]'],
                ['identity_policies', '[]'], ['policies', '["default" "' + '" "'.join(pol) + '"]']]
        return f'$ vault token create -policy={pol[0]} -policy={pol[1]}\n' + columns(rows, 4)
    role = pick(['readonly', 'app-rw', 'reporting'])
    rows = [['Key', 'Value'], ['---', '-----'], ['lease_id', f'database/creds/{role}/{b62(24)}'],
            ['lease_duration', '1h'], ['lease_renewable', 'true'], ['password', M(rs(B62, 4) + '-' + b62(20))],
            ['username', f'v-token-{role}-{rs(LO + DG, 20)}-{epoch()}']]
    return f'$ vault read database/creds/{role}\n' + columns(rows, 4)


@pos('docker-registry-auth')
def _():
    v = rint(0, 2)
    if v == 0:
        auths = {}
        u1 = pick(USERS)
        auths['https://index.docker.io/v1/'] = {'auth': M(dockerconfig_auth(u1, dckr_pat()))}
        if R.random() < 0.7:
            auths['registry.gitlab.com'] = {'auth': M(dockerconfig_auth(pick(USERS), glpat()))}
        if R.random() < 0.5:
            auths['ghcr.io'] = {'auth': M(dockerconfig_auth(pick(USERS), ghp()))}
        obj = {'auths': auths, 'currentContext': 'default'}
        return '$ cat ~/.docker/config.json\n' + jdump(obj, '\t')
    reg = pick(['registry.' + domain(), 'ghcr.io', f'{acct_id()}.dkr.ecr.{pick(REGIONS)}.amazonaws.com', 'docker.io'])
    if v == 1:
        return (f'$ docker login -u {pick(USERS)} -p {M(pw())} {reg}\n'
                'WARNING! Using --password via the CLI is insecure. Use --password-stdin.\n'
                'WARNING! Your password will be stored unencrypted in /root/.docker/config.json.\n'
                'Configure a credential helper to remove this warning. See\n'
                'https://docs.docker.com/engine/reference/commandline/login/#credential-stores\n\nLogin Succeeded')
    return (f'$ echo {M(dckr_pat())} | docker login -u {pick(USERS)} --password-stdin\nLogin Succeeded')


@pos('git-auth')
def _():
    org, repo = pick(ORGS), pick(APPS)
    v = rint(0, 3)
    if v == 0:
        t = pick([ghs, ghp, github_pat])()
        u = pick(['x-access-token', pick(USERS), 'oauth2'])
        url = f'https://{u}:{M(t)}@github.com/{org}/{repo}.git'
        return f'$ git remote -v\norigin\t{url} (fetch)\norigin\t{url} (push)'
    if v == 1:
        lines = [f'https://{pick(USERS)}:{M(ghp())}@github.com',
                 f'https://oauth2:{M(glpat())}@gitlab.com']
        if R.random() < 0.6:
            lines.append(f'https://{pick(USERS)}:{M(bitbucket_app_pw())}@bitbucket.org')
        if R.random() < 0.5:
            lines.append(f'https://{pick(USERS)}:{M(upw())}@git.{domain()}')
        R.shuffle(lines)
        return '$ cat ~/.git-credentials\n' + '\n'.join(lines)
    if v == 2:
        u = pick(USERS)
        return ('$ gh auth status --show-token\ngithub.com\n'
                f'  ✓ Logged in to github.com account {u} (keyring)\n  - Active account: true\n'
                '  - Git operations protocol: https\n'
                f'  - Token: {M(gho())}\n'
                "  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'")
    t = glpat()
    return (f'$ git clone https://oauth2:{M(t)}@gitlab.com/{org}/{repo}.git\nCloning into \'{repo}\'...\n'
            f'remote: Enumerating objects: {rint(200, 9000)}, done.\nremote: Counting objects: 100% ({rint(50, 200)}/{rint(200, 300)}), done.\n'
            f'Receiving objects: 100% ({rint(200, 9000)}/{rint(9000, 9999)}), {rint(1, 30)}.{rint(10, 99)} MiB | {rint(5, 40)}.00 MiB/s, done.')


@pos('npmrc')
def _():
    org = pick(ORGS)
    lines = []
    if R.random() < 0.5:
        lines.append('registry=https://registry.npmjs.org/')
    lines.append(f'//registry.npmjs.org/:_authToken={M(npm_tok())}')
    if R.random() < 0.6:
        lines += [f'@{org}:registry=https://npm.pkg.github.com', f'//npm.pkg.github.com/:_authToken={M(ghp())}']
    if R.random() < 0.4:
        host = f'nexus.{domain()}'
        lines += [f'@{pick(ORGS)}:registry=https://{host}/repository/npm-private/',
                  f'//{host}/repository/npm-private/:_auth={M(b64e((pick(USERS) + ":" + pw()).encode()))}',
                  'always-auth=true']
    lines.append('save-exact=true')
    return show_file(pick(['~/.npmrc', '.npmrc', 'frontend/.npmrc']), lines)


@pos('python-index-credentials')
def _():
    v = rint(0, 2)
    if v == 0:
        lines = ['[distutils]', 'index-servers =', '    pypi', '    testpypi', '', '[pypi]', 'username = __token__',
                 f'password = {M(pypi_tok())}', '', '[testpypi]', 'repository = https://test.pypi.org/legacy/',
                 'username = __token__', f'password = {M(pypi_tok().replace("cHlwaS5vcmc", "dGVzdC5weXBpLm9yZw"))}']
        return show_file('~/.pypirc', lines)
    host = pick([f'nexus.{domain()}', f'{pick(ORGS)}.jfrog.io', f'pkgs.{domain()}'])
    u = pick(USERS)
    p = upw()
    if v == 1:
        return ('$ pip config list\n'
                f"global.extra-index-url='https://{u}:{M(p)}@{host}/repository/pypi-internal/simple'\n"
                "global.timeout='60'")
    return show_file('/etc/pip.conf', ['[global]', f'index-url = https://{u}:{M(p)}@{host}/api/pypi/pypi-virtual/simple',
                                       'trusted-host = ' + host])


@pos('cargo-credentials')
def _():
    lines = ['[registry]', f'token = "{M(cio())}"']
    if R.random() < 0.6:
        name = pick(['internal', 'kellnr', 'shipyard', pick(ORGS)])
        lines += ['', f'[registries.{name}]', f'token = "{M(pick([lambda: "Bearer " + opaque(), opaque])())}"']
    if R.random() < 0.3:
        return f'$ cargo login {M(cio())}\n       Login token for `crates-io` saved'
    return show_file(pick(['~/.cargo/credentials.toml', '$CARGO_HOME/credentials.toml']), lines)


@pos('dotenv-ai-keys')
def _():
    cands = [('OPENAI_API_KEY', openai_key), ('ANTHROPIC_API_KEY', anthropic_key), ('HF_TOKEN', hf_tok),
             ('LANGCHAIN_API_KEY', langsmith), ('PINECONE_API_KEY', pinecone), ('GOOGLE_API_KEY', google_api),
             ('LINEAR_API_KEY', linear_key), ('POSTMAN_API_KEY', postman_key)]
    chosen = sample(cands, rint(2, 5))
    lines = [f'# {pick(["local dev", "do not commit", "agent settings", "eval harness"])}']
    for k, f in chosen:
        lines.append(f'{k}={M(f())}')
    lines += sample(['LANGCHAIN_TRACING_V2=true', 'MODEL=claude-3-5-sonnet-latest', 'LOG_LEVEL=debug',
                     'MAX_TOKENS=4096', 'PINECONE_INDEX=docs-v2'], rint(1, 3))
    return show_file(pick(['.env', '.env.local', 'agent/.env', 'services/rag/.env']), lines)


@pos('dotenv-webapp')
def _():
    app = pick(APPS)
    p = upw()
    lines = ['NODE_ENV=production', f'PORT={pick([3000, 8080, 4000])}',
             f'DATABASE_URL=postgresql://{pick(DBUSERS)}:{M(p)}@{pick(DBS)}-db.{domain()}:5432/{pick(DBS)}?sslmode=require']
    extra = [f'STRIPE_SECRET_KEY={M(sk_live())}', f'STRIPE_WEBHOOK_SECRET={M(whsec())}',
             f'SENDGRID_API_KEY={M(sendgrid())}', f'SESSION_SECRET={M(hx(64))}',
             f'SLACK_BOT_TOKEN={M(xoxb())}', (f'TWILIO_ACCOUNT_SID={twilio_sid()}', f'TWILIO_AUTH_TOKEN={M(hx(32))}'),
             f'SHOPIFY_ADMIN_TOKEN={M(shpat())}', f'UPSTREAM={M(opaque())}',
             f'GITHUB_TOKEN={M(any_github())}', f'APP_URL=https://{app}.{domain()}']
    for e in sample(extra, rint(3, 6)):
        lines += list(e) if isinstance(e, tuple) else [e]
    return show_file(pick(['.env', '.env.production', f'deploy/{app}.env']), lines)


@pos('spring-yaml')
def _():
    lines = ['spring:', '  datasource:', f'    url: jdbc:postgresql://{pick(DBS)}-db:5432/{pick(DBS)}',
             f'    username: {pick(DBUSERS)}', f'    password: {M(pw())}', '  mail:', f'    host: smtp.{domain()}',
             '    port: 587', f'    username: noreply@{domain()}', f'    password: {M(pw())}']
    tail = pick([['jwt:', f'  secret: {M(b64(48))}', '  expiration: 86400'],
                 ['app:', '  relay:', f'    value: {M(opaque())}', '    timeout: 30s'],
                 ['aws:', f'  access-key: {M(akid())}', f'  secret-key: {M(aws_secret())}', f'  region: {pick(REGIONS)}']])
    return show_file(pick(['src/main/resources/application.yml', 'config/application-prod.yml']), lines + tail)


@pos('toml-opaque-names')
def _():
    lines = ['[server]', f'listen = "0.0.0.0:{pick([8443, 9000, 7443])}"', f'workers = {rint(2, 16)}', '',
             '[upstream]', f'url = "https://{pick(["ingest", "edge", "api"])}.{domain()}/v2"',
             f'relay = "{M(opaque())}"', '', '[seal]', f'value = "{M(opaque())}"', 'rotate_days = 30']
    if R.random() < 0.5:
        lines += ['', '[cache]', f'url = "redis://:{M(upw())}@{ip_priv()}:6379/0"']
    return show_file(pick(['config.toml', 'relay.toml', 'conf/prod.toml', 'Settings.toml']), lines)


@pos('ini-config')
def _():
    v = rint(0, 2)
    if v == 0:
        return show_file('~/.my.cnf', ['[client]', f'user={pick(DBUSERS)}', f'password={M(pw())}', f'host={pick(DBS)}-mysql.{domain()}',
                                       '', '[mysqldump]', f'user=backup', f'password="{M(pw())}"'])
    if v == 1:
        rows = [f'{pick(DBS)}-db.{domain()}:5432:{pick(DBS)}:{pick(DBUSERS)}:{M(pw())}' for _ in range(rint(1, 3))]
        return '$ cat ~/.pgpass\n' + '\n'.join(rows)
    lines = ['[app]', f'name = {pick(APPS)}', 'debug = false', '', '[database]', f'host = {ip_priv()}',
             f'user = {pick(DBUSERS)}', f'pass = {M(pw())}', '', '[smtp]', f'server = smtp.{domain()}',
             f'login = {email()}', f'secret = {M(pw())}', '', '[integrations]', f'x_client = {M(opaque())}']
    return show_file(pick(['/etc/app/app.ini', 'settings.ini', 'deploy/app.cfg']), lines)


@pos('appsettings-json')
def _():
    srv = f'{pick(ORGS)}-sql-{pick(["prod", "weu"])}'
    obj = {'Logging': {'LogLevel': {'Default': 'Information', 'Microsoft.AspNetCore': 'Warning'}},
           'AllowedHosts': '*',
           'ConnectionStrings': {'DefaultConnection': f'Server=tcp:{srv}.database.windows.net,1433;Initial Catalog={pick(DBS)};'
                                                      f'Persist Security Info=False;User ID={pick(DBUSERS)};Password={M(pw())};'
                                                      'MultipleActiveResultSets=False;Encrypt=True;TrustServerCertificate=False;'},
           'Jwt': {'Key': M(b64(32)), 'Issuer': f'https://{domain()}', 'Audience': pick(APPS)}}
    if R.random() < 0.5:
        obj['ServiceBus'] = {'ConnectionString': f'Endpoint=sb://{pick(ORGS)}-bus.servicebus.windows.net/;'
                                                 f'SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={M(b64(32))}'}
    return show_file(pick(['appsettings.Production.json', 'src/Api/appsettings.json']), jdump(obj, 2).split('\n'))


@pos('xml-credentials')
def _():
    if R.random() < 0.5:
        lines = ['<settings>', '  <servers>', '    <server>', '      <id>nexus-releases</id>',
                 f'      <username>{pick(USERS)}</username>', f'      <password>{M(pw())}</password>', '    </server>',
                 '    <server>', '      <id>github</id>', f'      <username>{pick(USERS)}</username>',
                 f'      <password>{M(ghp())}</password>', '    </server>', '  </servers>', '</settings>']
        return show_file('~/.m2/settings.xml', lines)
    feed = pick(ORGS) + pick(['-internal', '-feed', ''])
    lines = ['<?xml version="1.0" encoding="utf-8"?>', '<configuration>', '  <packageSources>',
             f'    <add key="{feed}" value="https://pkgs.dev.azure.com/{pick(ORGS)}/_packaging/{feed}/nuget/v3/index.json" />',
             '  </packageSources>', '  <packageSourceCredentials>', f'    <{feed}>',
             f'      <add key="Username" value="{pick(USERS)}" />',
             f'      <add key="ClearTextPassword" value="{M(rs(LO + DG, 52))}" />', f'    </{feed}>',
             '  </packageSourceCredentials>', '</configuration>']
    return show_file('NuGet.Config', lines)


@pos('java-properties')
def _():
    lines = [f'spring.application.name={pick(APPS)}',
             f'spring.datasource.url=jdbc:mysql://{pick(DBS)}-mysql:3306/{pick(DBS)}?useSSL=true',
             f'spring.datasource.username={pick(DBUSERS)}', f'spring.datasource.password={M(pw())}']
    if R.random() < 0.6:
        k, s = confluent_pair()
        lines += [f'spring.kafka.bootstrap-servers=pkc-{rs(LO + DG, 5)}.{pick(REGIONS)}.aws.confluent.cloud:9092',
                  'spring.kafka.properties.security.protocol=SASL_SSL',
                  'spring.kafka.properties.sasl.mechanism=PLAIN',
                  'spring.kafka.properties.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule '
                  f"required username='{M(k)}' password='{M(s)}';"]
    else:
        lines += [f'app.upstream.value={M(opaque())}', 'management.endpoints.web.exposure.include=health,info']
    return show_file(pick(['src/main/resources/application.properties', 'config/prod.properties']), lines)


@pos('terraform-provider-hcl')
def _():
    v = rint(0, 3)
    if v == 0:
        body = ['provider "aws" {', f'  region     = "{pick(REGIONS)}"', f'  access_key = "{M(akid())}"',
                f'  secret_key = "{M(aws_secret())}"', '}']
    elif v == 1:
        body = ['provider "cloudflare" {', f'  api_token = "{M(cf_token())}"', '}', '',
                'resource "cloudflare_record" "www" {', f'  zone_id = "{hx(32)}"', '  name    = "www"',
                f'  content = "{ip_pub()}"', '  type    = "A"', '}']
    elif v == 2:
        body = ['provider "datadog" {', f'  api_key = "{M(datadog_api())}"', f'  app_key = "{M(datadog_app())}"',
                '  api_url = "https://api.datadoghq.eu/"', '}']
    else:
        body = ['provider "github" {', f'  owner = "{pick(ORGS)}"', f'  token = "{M(any_github())}"', '}', '',
                'resource "github_actions_secret" "deploy" {', f'  repository      = "{pick(APPS)}"',
                '  secret_name     = "DEPLOY_KEY"', f'  plaintext_value = "{M(opaque())}"', '}']
    head = ['terraform {', '  required_providers {', '    aws = { source = "hashicorp/aws" }', '  }', '}', '']
    return show_file(pick(['main.tf', 'providers.tf', 'infra/prod/main.tf']), (head if R.random() < 0.3 else []) + body)


@pos('dockerfile-secret')
def _():
    v = rint(0, 2)
    base = pick(['node:20-alpine', 'python:3.12-slim', 'golang:1.22', 'ruby:3.3'])
    if v == 0:
        lines = [f'FROM {base}', 'WORKDIR /app', f'ARG NPM_TOKEN={M(npm_tok())}',
                 'RUN echo "//registry.npmjs.org/:_authToken=${NPM_TOKEN}" > .npmrc', 'COPY package*.json ./',
                 'RUN npm ci && rm -f .npmrc', 'COPY . .', 'CMD ["node", "server.js"]']
    elif v == 1:
        lines = [f'FROM {base}', f'ENV SENTRY_DSN=https://{hx(32)}@o{digits(6)}.ingest.sentry.io/{digits(7)}',
                 f'ENV API_TOKEN={M(app_token())}', f'ENV RELAY={M(opaque())}', 'COPY . /srv', 'WORKDIR /srv',
                 'EXPOSE 8080', 'ENTRYPOINT ["/srv/entrypoint.sh"]']
    else:
        t = ghp()
        lines = [f'FROM {base} AS build',
                 f'RUN git clone https://{pick(USERS)}:{M(t)}@github.com/{pick(ORGS)}/{pick(APPS)}.git /src',
                 'WORKDIR /src', 'RUN make build', 'FROM gcr.io/distroless/base', 'COPY --from=build /src/bin/app /app',
                 'USER nonroot', 'ENTRYPOINT ["/app"]']
    return show_file(pick(['Dockerfile', 'docker/Dockerfile', 'Dockerfile.prod']), lines)


@pos('compose-env')
def _():
    p = upw()
    db = pick(DBS)
    u = pick(DBUSERS)
    r = upw()
    lines = ['services:', '  db:', '    image: postgres:16', '    environment:', f'      POSTGRES_USER: {u}',
             f'      POSTGRES_PASSWORD: {M(p)}', f'      POSTGRES_DB: {db}', '  redis:', '    image: redis:7',
             f'    command: redis-server --requirepass {M(r)}', '  app:', f'    image: ghcr.io/{pick(ORGS)}/{pick(APPS)}:{rint(1, 3)}.{rint(0, 20)}.{rint(0, 9)}',
             '    environment:', f'      DATABASE_URL: postgres://{u}:{M(p)}@db:5432/{db}',
             f'      REDIS_URL: redis://:{M(r)}@redis:6379/0', f'      X_CLIENT: "{M(opaque())}"',
             '    ports:', '      - "8080:8080"', '    depends_on: [db, redis]']
    return show_file(pick(['docker-compose.yml', 'compose.yaml', 'deploy/docker-compose.prod.yml']), lines)


@pos('ci-log-leak')
def _():
    v = rint(0, 2)
    stamp = stamper()
    if v == 0:
        tok = npm_tok()
        lines = [f'{stamp()} ##[group]Run ./scripts/publish.sh', f'{stamp()} ./scripts/publish.sh',
                 f'{stamp()} shell: /usr/bin/bash -e {{0}}', f'{stamp()} env:', f'{stamp()}   NODE_VERSION: 20',
                 f'{stamp()} ##[endgroup]', f'{stamp()} + VERSION={rint(1, 4)}.{rint(0, 30)}.{rint(0, 9)}',
                 f"{stamp()} + echo '//registry.npmjs.org/:_authToken={M(tok)}'",
                 f'{stamp()} + npm publish --access public',
                 f'{stamp()} npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access',
                 f'{stamp()} + @{pick(ORGS)}/{pick(APPS)}@{rint(1, 4)}.{rint(0, 30)}.0']
        return '\n'.join(lines)
    if v == 1:
        t = glpat()
        return '\n'.join([f'Running with gitlab-runner 16.{rint(5, 11)}.{rint(0, 3)} ({hx(8)})',
                          f'  on {pick(["shared", "docker", "k8s"])}-runner-{rint(1, 9)} {b62(8)}, system ID: s_{hx(12)}',
                          'Preparing the "docker" executor', f'Using Docker executor with image curlimages/curl:8.6.0 ...',
                          'Executing "step_script" stage of the job script',
                          f'$ curl --fail --header "PRIVATE-TOKEN: {M(t)}" --upload-file dist/app.tar.gz '
                          f'"https://gitlab.com/api/v4/projects/{digits(8)}/packages/generic/app/{rint(1, 3)}.{rint(0, 9)}.0/app.tar.gz"',
                          jdump({'message': '201 Created'}), 'Cleaning up project directory and file based variables',
                          'Job succeeded'])
    p = pw()
    reg = f'registry.{domain()}'
    img, tag = pick(APPS), hx(7)
    return '\n'.join([f'[Pipeline] {{', '[Pipeline] sh', f'+ docker login -u ci -p {M(p)} {reg}',
                      'WARNING! Using --password via the CLI is insecure. Use --password-stdin.', 'Login Succeeded',
                      '[Pipeline] sh', f'+ docker push {reg}/{img}:{tag}',
                      f'The push refers to repository [{reg}/{img}]',
                      f'{hx(12)}: Pushed', f'{tag}: digest: sha256:{hx(64)} size: {rint(900, 3000)}', '[Pipeline] }'])


@pos('python-hardcoded')
def _():
    v = rint(0, 3)
    if v == 0:
        lines = ['from openai import OpenAI', '', f'client = OpenAI(api_key="{M(openai_key())}")', '',
                 'def summarize(text: str) -> str:', '    resp = client.chat.completions.create(',
                 '        model="gpt-4o-mini",', '        messages=[{"role": "user", "content": text}],', '    )',
                 '    return resp.choices[0].message.content']
    elif v == 1:
        lines = ['import anthropic', '', f'API_KEY = "{M(anthropic_key())}"', 'client = anthropic.Anthropic(api_key=API_KEY)',
                 '', 'msg = client.messages.create(', '    model="claude-3-5-sonnet-latest",', '    max_tokens=512,',
                 '    messages=[{"role": "user", "content": "ping"}],', ')']
    elif v == 2:
        lines = ['import boto3', '', 's3 = boto3.client(', '    "s3",', f'    aws_access_key_id="{M(akid())}",',
                 f'    aws_secret_access_key="{M(aws_secret())}",', f'    region_name="{pick(REGIONS)}",', ')']
    else:
        lines = ['import requests', '', f'UPSTREAM = "https://api.{domain()}/v1"', f'seal = "{M(opaque())}"', '',
                 'def push(event):', '    return requests.post(f"{UPSTREAM}/events", json=event,',
                 '                         headers={"X-Client": seal}, timeout=10)']
    return show_file(pick(['app/llm.py', 'scripts/sync.py', 'src/client.py', 'worker/tasks.py']), lines)


@pos('js-hardcoded')
def _():
    v = rint(0, 3)
    if v == 0:
        lines = [f"const stripe = require('stripe')('{M(sk_live())}');", '',
                 'async function charge(customerId, amount) {', '  return stripe.paymentIntents.create({',
                 "    amount, currency: 'usd', customer: customerId,", '  });', '}', 'module.exports = { charge };']
    elif v == 1:
        lines = ["import sgMail from '@sendgrid/mail';", '', f"sgMail.setApiKey('{M(sendgrid())}');", '',
                 'export async function notify(to, subject, html) {', f"  await sgMail.send({{ to, from: 'noreply@{domain()}', subject, html }});", '}']
    elif v == 2:
        lines = ["import mongoose from 'mongoose';", '',
                 f"await mongoose.connect('mongodb+srv://{pick(DBUSERS)}:{M(upw())}@cluster0.{rs(LO + DG, 5)}.mongodb.net/{pick(DBS)}?retryWrites=true&w=majority');"]
    else:
        lines = ["import axios from 'axios';", '', f"const relay = '{M(opaque())}';", '', 'export const api = axios.create({',
                 f"  baseURL: 'https://edge.{domain()}',", "  headers: { 'X-Client': relay },", '});']
    return show_file(pick(['src/payments.js', 'lib/mailer.mjs', 'server/db.ts', 'src/api.ts']), lines)


@pos('go-hardcoded')
def _():
    v = rint(0, 2)
    if v == 0:
        lines = ['package notify', '', 'import "github.com/slack-go/slack"', '',
                 f'var api = slack.New("{M(xoxb())}")', '', 'func Post(channel, text string) error {',
                 '\t_, _, err := api.PostMessage(channel, slack.MsgOptionText(text, false))', '\treturn err', '}']
    elif v == 1:
        lines = ['package db', '', 'import (', '\t"database/sql"', '\t_ "github.com/lib/pq"', ')', '',
                 'func Open() (*sql.DB, error) {',
                 f'\treturn sql.Open("postgres", "host={pick(DBS)}-db user={pick(DBUSERS)} password={M(upw())} dbname={pick(DBS)} sslmode=require")',
                 '}']
    else:
        lines = ['package sign', '', 'import (', '\t"crypto/hmac"', '\t"crypto/sha256"', ')', '',
                 f'var upstream = []byte("{M(opaque())}")', '', 'func Sign(body []byte) []byte {',
                 '\tm := hmac.New(sha256.New, upstream)', '\tm.Write(body)', '\treturn m.Sum(nil)', '}']
    return show_file(pick(['internal/notify/slack.go', 'pkg/db/db.go', 'internal/sign/sign.go']), lines)


@pos('java-hardcoded')
def _():
    v = rint(0, 2)
    if v == 0:
        lines = ['public class Db {', '    public static Connection open() throws SQLException {',
                 f'        String url = "jdbc:postgresql://{pick(DBS)}-db:5432/{pick(DBS)}";',
                 f'        return DriverManager.getConnection(url, "{pick(DBUSERS)}", "{M(pw())}");', '    }', '}']
    elif v == 1:
        lines = ['AWSCredentials creds = new BasicAWSCredentials(', f'        "{M(akid())}",', f'        "{M(aws_secret())}");',
                 'AmazonS3 s3 = AmazonS3ClientBuilder.standard()', '        .withCredentials(new AWSStaticCredentialsProvider(creds))',
                 f'        .withRegion("{pick(REGIONS)}")', '        .build();']
    else:
        lines = ['public final class Signer {', f'    private static final String VALUE = "{M(opaque())}";', '',
                 '    public static String sign(String payload) throws Exception {',
                 '        Mac mac = Mac.getInstance("HmacSHA256");',
                 '        mac.init(new SecretKeySpec(VALUE.getBytes(UTF_8), "HmacSHA256"));',
                 '        return Hex.encodeHexString(mac.doFinal(payload.getBytes(UTF_8)));', '    }', '}']
    return show_file(pick(['src/main/java/com/acme/Db.java', 'src/main/java/io/app/Storage.java',
                           'core/src/main/java/Signer.java']), lines)


@pos('ruby-hardcoded')
def _():
    v = rint(0, 2)
    if v == 0:
        lines = ["require 'twilio-ruby'", '', f"ACCOUNT_SID = '{twilio_sid()}'", f"AUTH_TOKEN  = '{M(hx(32))}'", '',
                 'client = Twilio::REST::Client.new(ACCOUNT_SID, AUTH_TOKEN)',
                 f"client.messages.create(from: '+1{digits(10)}', to: ARGV[0], body: 'Your code is ' + ARGV[1])"]
    elif v == 1:
        lines = ["require 'stripe'", f"Stripe.api_key = '{M(sk_live())}'", '',
                 'class BillingJob < ApplicationJob', '  def perform(customer_id)', '    Stripe::Invoice.create(customer: customer_id)',
                 '  end', 'end']
    else:
        lines = ['Rails.application.configure do', '  config.action_mailer.smtp_settings = {',
                 f"    address: 'smtp.mailgun.org', port: 587, user_name: 'postmaster@mg.{domain()}',",
                 f"    password: '{M(pw())}', authentication: :plain", '  }',
                 f"  config.x.seal = '{M(opaque())}'", 'end']
    return show_file(pick(['lib/sms.rb', 'app/jobs/billing_job.rb', 'config/environments/production.rb']), lines)


@pos('php-hardcoded')
def _():
    v = rint(0, 2)
    if v == 0:
        salts = ['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY']
        lines = ['<?php', f"define( 'DB_NAME', '{pick(DBS)}' );", f"define( 'DB_USER', '{pick(DBUSERS)}' );",
                 f"define( 'DB_PASSWORD', '{M(pw())}' );", "define( 'DB_HOST', 'localhost' );", '']
        for s in sample(salts, 2):
            lines.append(f"define( '{s}', '{M(rs(B62 + '!#%^*-_=+.@~;:<>[]|', 64))}' );")
        return show_file(pick(['wp-config.php', 'public_html/wp-config.php']), lines)
    if v == 1:
        lines = ['<?php', f'$pdo = new PDO("mysql:host={pick(DBS)}-db;dbname={pick(DBS)};charset=utf8mb4", "{pick(DBUSERS)}", "{M(pw())}");',
                 '$pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);']
    else:
        lines = ['<?php', "require 'vendor/autoload.php';", '', f"$sendgrid = new \\SendGrid('{M(sendgrid())}');",
                 '$email = new \\SendGrid\\Mail\\Mail();', f'$email->setFrom("noreply@{domain()}");',
                 '$sendgrid->send($email);']
    return show_file(pick(['src/db.php', 'includes/mail.php', 'config/bootstrap.php']), lines)


@pos('csharp-hardcoded')
def _():
    v = rint(0, 2)
    if v == 0:
        lines = ['using Microsoft.Data.SqlClient;', '', 'var cs = "Server=tcp:' + f'{pick(ORGS)}-sql.database.windows.net,1433;'
                 f'Database={pick(DBS)};User Id={pick(DBUSERS)};Password={M(pw())};Encrypt=True;";',
                 'await using var conn = new SqlConnection(cs);', 'await conn.OpenAsync();']
    elif v == 1:
        acct = pick(ORGS).replace('-', '') + 'st'
        lines = ['var blob = new BlobServiceClient(',
                 f'    "DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={M(azure_storage_key())};EndpointSuffix=core.windows.net");',
                 'var container = blob.GetBlobContainerClient("exports");']
    else:
        lines = ['public class EdgeClient', '{', '    private readonly HttpClient _http = new();', '',
                 '    public EdgeClient()', '    {', f'        _http.BaseAddress = new Uri("https://edge.{domain()}/");',
                 f'        _http.DefaultRequestHeaders.Add("X-Client", "{M(opaque())}");', '    }', '}']
    return show_file(pick(['Program.cs', 'src/Infrastructure/Storage.cs', 'src/Api/EdgeClient.cs']), lines)


@pos('rust-hardcoded')
def _():
    v = rint(0, 1)
    if v == 0:
        lines = ['use reqwest::Client;', '', f'const SEAL: &str = "{M(opaque())}";', '',
                 'pub async fn publish(c: &Client, body: String) -> reqwest::Result<()> {',
                 f'    c.post("https://relay.{domain()}/v1/publish")', '        .header("X-Client", SEAL)',
                 '        .body(body)', '        .send()', '        .await?', '        .error_for_status()?;', '    Ok(())', '}']
    else:
        lines = ['let client = reqwest::Client::new();', 'let resp = client', '    .post("https://api.anthropic.com/v1/messages")',
                 f'    .header("x-api-key", "{M(anthropic_key())}")', '    .header("anthropic-version", "2023-06-01")',
                 '    .json(&body)', '    .send()', '    .await?;']
    return show_file(pick(['src/relay.rs', 'src/main.rs', 'crates/client/src/lib.rs']), lines)


@pos('curl-verbose-auth')
def _():
    v = rint(0, 3)
    host = pick(['api.github.com', 'api.openai.com', 'api.anthropic.com', f'api.{domain()}'])
    if v == 0:
        t, hdr, host, path = ghp(), 'Authorization: token ', 'api.github.com', '/user'
    elif v == 1:
        t, hdr, host, path = openai_key(), 'Authorization: Bearer ', 'api.openai.com', '/v1/models'
    elif v == 2:
        t, hdr, host, path = anthropic_key(), 'x-api-key: ', 'api.anthropic.com', '/v1/models'
    else:
        u, p = pick(USERS), pw()
        t, hdr, path = None, None, '/v2/status'
    ip = ip_pub()
    if t:
        cmd = f'$ curl -v -H "{hdr}{M(t)}" https://{host}{path}'
    else:
        cmd = f"$ curl -v -u '{u}:{M(p)}' https://{host}{path}"
    lines = [cmd, f'*   Trying {ip}:443...', f'* Connected to {host} ({ip}) port 443 (#0)', '* ALPN: offers h2,http/1.1',
             '* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256', '* Server certificate:', f'*  subject: CN={host}']
    if not t:
        lines.append(f"* Server auth using Basic with user '{u}'")
    lines += [f'> GET {path} HTTP/2', f'> Host: {host}', '> User-Agent: curl/8.5.0', '> Accept: */*']
    if t:
        lines.append(f'> {hdr}{M(t)}')
    else:
        lines.append(f'> Authorization: Basic {M(b64e((u + ":" + p).encode()))}')
    lines += ['>', '< HTTP/2 200', '< content-type: application/json; charset=utf-8', f'< x-request-id: {uid()}',
              f'< date: {dt().strftime("%a, %d %b %Y %H:%M:%S GMT")}', '<', jdump({'ok': True, 'id': rint(1000, 99999999)})]
    return '\n'.join(lines)


@pos('har-entry')
def _():
    host = f'app.{domain()}'
    sess = b62(rint(32, 48))
    bearer = user_jwt(f'https://auth.{domain()}/')
    ga = f'GA1.1.{digits(10)}.{epoch()}'
    req = {'method': 'GET', 'url': f'https://{host}/api/v1/{pick(["me", "projects", "invoices"])}', 'httpVersion': 'HTTP/2',
           'headers': [{'name': 'accept', 'value': 'application/json'},
                       {'name': 'authorization', 'value': 'Bearer ' + M(bearer)},
                       {'name': 'cookie', 'value': f'_ga={ga}; session={M(sess)}'}],
           'queryString': [], 'headersSize': -1, 'bodySize': 0}
    if R.random() < 0.5:
        req.pop('queryString')
        req['headers'] = [h for h in req['headers'] if h['name'] != 'cookie']
        req['cookies'] = [{'name': 'session', 'value': M(sess), 'httpOnly': True, 'secure': True}]
    obj = {'startedDateTime': iso_ms(), 'time': round(R.uniform(20, 900), 3), 'request': req}
    return f"$ jq '.log.entries[{rint(0, 40)}]' {pick(['session.har', 'capture.har', host + '.har'])}\n" + jdump(obj, 2)


@pos('http-request-header')
def _():
    name = pick(['X-Client', 'X-Relay-Key', 'X-Upstream', 'Api-Key', 'X-Auth', 'X-Seal'])
    host = f'{pick(["ingest", "edge", "hooks", "api"])}.{domain()}'
    body = jdump({'event': pick(['signup', 'checkout', 'deploy']), 'ts': epoch(), 'id': uid()})
    lines = [f'POST /v{rint(1, 3)}/{pick(["events", "ingest", "publish"])} HTTP/1.1', f'Host: {host}',
             'User-Agent: python-httpx/0.27.0', 'Accept: */*', 'Content-Type: application/json',
             f'{name}: {M(opaque())}', f'Content-Length: {len(body)}', '', body]
    pre = pick(['$ nc -l 8080', '# captured with mitmproxy', '$ tcpflow -c -i lo port 8080'])
    return pre + '\n' + '\n'.join(lines)


@pos('http-set-cookie')
def _():
    v = rint(0, 3)
    if v == 0:
        name, val = 'sessionid', rs(LO + DG, 32)
    elif v == 1:
        name, val = f'_{pick(APPS).replace("-", "_")}_session', b64(rint(120, 200)) + '--' + b64(rint(30, 60)) + '--' + b64(16)
        val = urllib.parse.quote(val, safe='-')
    elif v == 2:
        name, val = 'connect.sid', 's%3A' + bu(32) + '.' + urllib.parse.quote(b64(32).rstrip('='), safe='')
    else:
        name, val = 'laravel_session', urllib.parse.quote(b64e(jdump({'iv': b64(16), 'value': b64(96), 'mac': hx(64), 'tag': ''}).encode()), safe='')
    host = f'{pick(["app", "portal", "admin"])}.{domain()}'
    lines = [f'$ curl -sI -X POST https://{host}/login -d "email={email()}&password=$PW"', 'HTTP/2 302',
             f'date: {dt().strftime("%a, %d %b %Y %H:%M:%S GMT")}', 'content-type: text/html; charset=utf-8',
             'location: /dashboard', f'set-cookie: {name}={M(val)}; Path=/; HttpOnly; Secure; SameSite=Lax',
             f'x-request-id: {uid()}']
    if R.random() < 0.5:
        lines.insert(6, f'set-cookie: remember_token={M(b62(40))}; Expires={dt().strftime("%a, %d %b %Y %H:%M:%S GMT")}; Path=/; HttpOnly; Secure')
    return '\n'.join(lines)


@pos('psql-token-table')
def _():
    db = pick(DBS)
    table = pick(['api_tokens', 'integrations', 'webhooks', 'service_accounts'])
    n = rint(2, 5)
    col = pick(['token', 'secret', 'api_key', 'value'])
    fmt = pick([app_token, lambda: hx(40), lambda: 'whsec_' + b62(32), sk_live, xoxb])
    rows = [[i + 1, pick([f'{pick(APPS)}-{pick(["ci", "prod", "sync"])}', pick(['zapier', 'slack', 'stripe', 'segment'])]),
             M(fmt()), dt().strftime('%Y-%m-%d %H:%M:%S') + '+00'] for i in range(n)]
    return (f'$ psql "$DATABASE_URL" -c "select id, name, {col}, created_at from {table} order by id limit {n};"\n'
            + psql_table(['id', 'name', col, 'created_at'], rows))


@pos('mysql-oauth-clients')
def _():
    n = rint(2, 4)
    rows = [[pick(['web', 'ios', 'android', 'cli', 'partner-' + pick(ORGS)]), b62(20), M(b62(40)),
             f'https://{domain()}/oauth/callback'] for _ in range(n)]
    return ('mysql> SELECT name, client_id, client_secret, redirect_uri FROM oauth_clients;\n'
            + mysql_table(['name', 'client_id', 'client_secret', 'redirect_uri'], rows))


@pos('json-log-leak')
def _():
    svc = pick(APPS)
    n = rint(3, 6)
    leak_at = rint(0, n - 1)
    lines = []
    tss = iso_seq(n)
    for i in range(n):
        base = {'ts': tss[i], 'level': pick(['info', 'debug']), 'service': svc, 'trace_id': hx(32)}
        if i == leak_at:
            kind = rint(0, 3)
            if kind == 0:
                base.update({'msg': 'outgoing request', 'method': 'GET',
                             'url': f'https://maps.googleapis.com/maps/api/geocode/json?address={pick(WORDS)}&key={M(google_api())}',
                             'status': 200})
            elif kind == 1:
                base.update({'msg': 'upstream call', 'headers': {'authorization': 'Bearer ' + M(pick([openai_key, xoxb, app_token])()),
                                                                 'content-type': 'application/json'}})
            elif kind == 2:
                base.update({'msg': 'db connect', 'dsn': f'postgres://{pick(DBUSERS)}:{M(upw())}@{ip_priv()}:5432/{pick(DBS)}'})
            else:
                base.update({'msg': 'config loaded', 'relay': M(opaque()), 'region': pick(REGIONS)})
        else:
            base.update({'msg': pick(['request completed', 'cache miss', 'job scheduled']), 'duration_ms': rint(1, 900)})
        lines.append(jdump(base))
    return f'$ kubectl logs deploy/{svc} --since=5m | tail -n {n}\n' + '\n'.join(lines)


@pos('logfmt-leak')
def _():
    d = dt()
    lines = []
    for _ in range(rint(2, 4)):
        d += datetime.timedelta(seconds=rint(1, 30))
        lines.append(f'ts={iso(d)} level=info caller={pick(["server.go", "worker.go", "http.go"])}:{rint(10, 400)} '
                     f'msg="{pick(["request served", "tick", "flush complete"])}" duration={rint(1, 900)}ms')
    leak = pick([f'upstream={M(opaque())}',
                 f'dsn="postgres://{pick(DBUSERS)}:{M(upw())}@{ip_priv()}:5432/{pick(DBS)}?sslmode=disable"',
                 f'token={M(pick([ghs, glpat, do_tok])())}',
                 f'amqp_url=amqps://{pick(USERS)}:{M(upw())}@{pick(["rabbit", "mq"])}.{domain()}/vhost'])
    d += datetime.timedelta(seconds=1)
    lines.insert(rint(0, len(lines)), f'ts={iso(d)} level=debug caller=config.go:{rint(20, 90)} msg="loaded settings" {leak}')
    return f'$ journalctl -u {pick(APPS)} -o cat -n {len(lines)}\n' + '\n'.join(lines)


@pos('stacktrace-dsn')
def _():
    v = rint(0, 2)
    db = pick(DBS)
    u = pick(DBUSERS)
    p = upw()
    if v == 0:
        return '\n'.join(['Traceback (most recent call last):', f'  File "/app/{pick(["worker", "api"])}/db.py", line {rint(10, 90)}, in connect',
                          f'    conn = psycopg2.connect("postgresql://{u}:{M(p)}@{db}-db.internal:5432/{db}")',
                          '  File "/usr/local/lib/python3.12/site-packages/psycopg2/__init__.py", line 122, in connect',
                          '    conn = _connect(dsn, connection_factory=connection_factory, **kwasync)',
                          f'psycopg2.OperationalError: connection to server at "{db}-db.internal" ({ip_priv()}), port 5432 failed: '
                          f'FATAL:  password authentication failed for user "{u}"'])
    if v == 1:
        url = f"mongodb+srv://{u}:{M(p)}@cluster0.{rs(LO + DG, 5)}.mongodb.net/{db}"
        return '\n'.join([f'/app/src/db.js:{rint(3, 30)}', f"const client = new MongoClient('{url}');", '               ^', '',
                          'MongoServerSelectionError: connection <monitor> to ' + ip_pub() + ':27017 closed',
                          '    at Topology.selectServer (/app/node_modules/mongodb/lib/sdam/topology.js:303:38)',
                          '    at async MongoClient._connect (/app/node_modules/mongodb/lib/mongo_client.js:232:13)', '',
                          'Node.js v20.11.1'])
    return '\n'.join([f'{dt().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]}  INFO 1 --- [main] com.zaxxer.hikari.HikariDataSource : HikariPool-1 - Starting...',
                      f'{dt().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]} DEBUG 1 --- [main] com.zaxxer.hikari.HikariConfig : '
                      f'jdbcUrl.........................jdbc:postgresql://{db}-db:5432/{db}?user={u}&password={M(p)}',
                      f'{dt().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]} DEBUG 1 --- [main] com.zaxxer.hikari.HikariConfig : password........................<masked>',
                      f'{dt().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]} ERROR 1 --- [main] com.zaxxer.hikari.pool.HikariPool : HikariPool-1 - Exception during pool initialization.',
                      f'org.postgresql.util.PSQLException: FATAL: password authentication failed for user "{u}"',
                      '\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:693)',
                      '\tat org.postgresql.core.v3.ConnectionFactoryImpl.tryConnect(ConnectionFactoryImpl.java:203)'])


@pos('pem-private-key')
def _():
    v = rint(0, 2)
    if v == 0:
        k = pem('EC PRIVATE KEY', ec_private_der())
        cmd = pick(['$ cat certs/tls.key', '$ openssl ecparam -name prime256v1 -genkey -noout',
                    f'$ kubectl get secret {pick(APPS)}-tls -o jsonpath="{{.data.tls\\.key}}" | base64 -d'])
    elif v == 1:
        k = pem('PRIVATE KEY', pick([pkcs8_ed25519, pkcs8_ec])())
        cmd = pick(['$ openssl genpkey -algorithm ed25519', '$ cat signing-key.pem', '$ cat ~/.config/app/jwt_private.pem'])
    else:
        k = pem('RSA PRIVATE KEY', rsa_private_der(128))
        cmd = pick(['$ cat deploy/legacy.key', '$ openssl genrsa 1024 2>/dev/null'])
    return cmd + '\n' + M(k)


@pos('openssh-private-key')
def _():
    user = pick(USERS)
    host = pick(['laptop', 'ci-runner', 'bastion', 'build-01', 'devbox'])
    comment = pick([f'{user}@{host}', f'deploy@{pick(APPS)}', email()])
    key, pub = openssh_private_ed25519(comment)
    if R.random() < 0.5:
        path = pick(['deploy_key', '/tmp/id_ed25519', 'keys/ci_ed25519'])
        lines = [f"$ ssh-keygen -t ed25519 -C '{comment}' -f {path} -N '' -q && cat {path}", M(key)]
        return '\n'.join(lines)
    fp = ssh_fp(pub)
    lines = [f"$ ssh-keygen -t ed25519 -C '{comment}' -f ./id_ed25519 -N ''", 'Generating public/private ed25519 key pair.',
             'Your identification has been saved in ./id_ed25519', 'Your public key has been saved in ./id_ed25519.pub',
             'The key fingerprint is:', f'{fp} {comment}', "The key's randomart image is:"] + randomart(pub)
    lines += ['$ cat ./id_ed25519', M(key)]
    return '\n'.join(lines)


@pos('jwk-private')
def _():
    if R.random() < 0.5:
        k = {'kty': 'EC', 'crv': 'P-256', 'kid': pick([uid(), b62(16), f'{pick(APPS)}-{dt().strftime("%Y%m")}']),
             'use': 'sig', 'alg': 'ES256', 'x': b64u(rb(32)), 'y': b64u(rb(32)), 'd': M(b64u(rb(32)))}
    else:
        k = {'kty': 'OKP', 'crv': 'Ed25519', 'kid': b62(16), 'x': b64u(rb(32)), 'd': M(b64u(rb(32)))}
    if R.random() < 0.5:
        return f'$ cat {pick(["keys/signing.jwk.json", "jwks.private.json", "config/oidc-key.json"])}\n' + jdump({'keys': [k]}, 2)
    flags = '--kty EC --crv P-256' if k['kty'] == 'EC' else '--kty OKP --crv Ed25519'
    return f'$ step crypto jwk create pub.json priv.json {flags} --no-password --insecure && cat priv.json\n' + jdump(k, 2)


@pos('putty-ppk')
def _():
    if R.random() < 0.5:
        comment = pick([f'eddsa-key-{dt().strftime("%Y%m%d")}', f'{pick(USERS)}@{pick(ORGS)}'])
        alg, pub = 'ssh-ed25519', ssh_ed25519_pub_blob()
        priv = sshstr(rb(32))
    else:
        comment = pick([f'ecdsa-key-{dt().strftime("%Y%m%d")}', f'{pick(USERS)}@{pick(ORGS)}'])
        alg, pub = 'ecdsa-sha2-nistp256', ssh_ecdsa_pub_blob()
        priv = sshstr(b'\x00' + bytes([R.getrandbits(8) | 0x80]) + rb(31))
    publ = wrap(b64e(pub), 64).split('\n')
    privl = wrap(b64e(priv), 64)
    lines = [f'PuTTY-User-Key-File-3: {alg}', 'Encryption: none', f'Comment: {comment}', f'Public-Lines: {len(publ)}']
    lines += publ + [f'Private-Lines: {len(privl.split(chr(10)))}', M(privl), f'Private-MAC: {hx(64)}']
    return show_file(pick(['server.ppk', 'C:/Users/ops/keys/deploy.ppk', 'keys/bastion.ppk']), lines)


@pos('base64-wrapped-key')
def _():
    keyb64 = b64e((pem(pick(['EC PRIVATE KEY', 'PRIVATE KEY']), pick([ec_private_der, pkcs8_ec])()) + '\n').encode())
    v = rint(0, 2)
    if v == 0:
        crt = b64e((pem('CERTIFICATE', cert_der(f'{pick(APPS)}.{domain()}', 'R3')) + '\n').encode())
        name = f'{pick(APPS)}-tls'
        lines = [f'$ kubectl get secret {name} -o yaml', 'apiVersion: v1', 'data:', f'  tls.crt: {crt}',
                 f'  tls.key: {M(keyb64)}', 'kind: Secret', 'metadata:', f'  name: {name}', f'  namespace: {pick(NAMESPACES)}',
                 'type: kubernetes.io/tls']
        return '\n'.join(lines)
    if v == 1:
        return show_file('.env', [f'GITHUB_APP_ID={rint(100000, 999999)}', f'GITHUB_APP_PRIVATE_KEY_BASE64={M(keyb64)}',
                                  f'GITHUB_APP_WEBHOOK_SECRET={M(hx(40))}'])
    return f'$ gh secret set SIGNING_KEY --body "{M(keyb64)}" -R {pick(ORGS)}/{pick(APPS)}\n✓ Set Actions secret SIGNING_KEY for {pick(ORGS)}/{pick(APPS)}'


@pos('connection-strings')
def _():
    opts = [lambda: f'mongodb+srv://{pick(DBUSERS)}:{M(upw())}@cluster0.{rs(LO + DG, 5)}.mongodb.net/{pick(DBS)}?retryWrites=true&w=majority',
            lambda: f'redis://default:{M(upw())}@redis-{rint(10000, 19999)}.c{rint(1, 300)}.{pick(REGIONS)}-1.ec2.redns.redis-cloud.com:{rint(10000, 19999)}',
            lambda: f'amqps://{rs(LO, 8)}:{M(bu(32))}@{pick(["rattlesnake", "puffin", "kangaroo"])}.rmq.cloudamqp.com/{rs(LO, 8)}',
            lambda: f'jdbc:sqlserver://{pick(ORGS)}-sql.database.windows.net:1433;database={pick(DBS)};user={pick(DBUSERS)};password={M(pw())};encrypt=true',
            lambda: f'mysql+pymysql://{pick(DBUSERS)}:{M(upw())}@{pick(DBS)}.{rs(LO + DG, 12)}.{pick(REGIONS)}.rds.amazonaws.com:3306/{pick(DBS)}',
            lambda: f'host={ip_priv()} port=5432 dbname={pick(DBS)} user={pick(DBUSERS)} password={M(upw())} sslmode=verify-full',
            lambda: f'Server={pick(DBS)}.{domain()};Port=5432;Database={pick(DBS)};User Id={pick(DBUSERS)};Password={M(pw())};',
            lambda: f'postgresql://{pick(DBUSERS)}:{M(upw())}@{pick(DBS)}-primary.{pick(NAMESPACES)}.svc:5432/{pick(DBS)}']
    chosen = sample(opts, rint(2, 4))
    keys = ['MONGO_URL', 'REDIS_URL', 'AMQP_URL', 'SQL_URL', 'DB_URI', 'PG_DSN', 'ConnectionString', 'DATABASE_URL']
    if R.random() < 0.5:
        return '$ printenv | grep -E "_URL|DSN|URI"\n' + '\n'.join(f'{pick(keys)}={f()}' for f in chosen)
    return '$ python -c "import settings; print(*settings.DATASTORES.values(), sep=chr(10))"\n' + '\n'.join(f() for f in chosen)


@pos('shell-history')
def _():
    harmless = ['git status', 'ls -la', 'cd ~/src/' + pick(APPS), 'make test', 'kubectl get pods -n ' + pick(NAMESPACES),
                'docker compose up -d', 'npm run build', 'vim .env', 'terraform plan', 'htop', 'git pull --rebase']
    secrets = [lambda: f'export ANTHROPIC_API_KEY={M(anthropic_key())}',
               lambda: f'export OPENAI_API_KEY={M(openai_key())}',
               lambda: f'mysql -u root -p{M(pw())} -h {pick(DBS)}-db',
               lambda: f'curl -u admin:{M(upw())} http://{ip_priv()}:9200/_cat/indices',
               lambda: (lambda t, b, s: f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deployed\"}}' "
                                        f'https://hooks.slack.com/services/{t}/{b}/{M(s)}')(*slack_webhook_parts()),
               lambda: f'curl -s "https://api.telegram.org/bot{M(telegram_bot())}/getUpdates"',
               lambda: f'export GITHUB_TOKEN={M(any_github())}',
               lambda: f'vault login {M(hvs())}',
               lambda: f'export AWS_SECRET_ACCESS_KEY={M(aws_secret())}',
               lambda: f'heroku config:set -a {pick(APPS)} RELAY={M(opaque())}']
    n = rint(6, 12)
    entries = [pick(harmless) for _ in range(n)]
    for pos_ in sample(range(n), rint(1, 3)):
        entries[pos_] = pick(secrets)()
    start = rint(100, 2000)
    return f'$ history | tail -n {n}\n' + '\n'.join(f'{start + i:5}  {e}' for i, e in enumerate(entries))


# ================================================================ NEGATIVES
AWS_EX_ID = 'AKIAIOSFODNN7EXAMPLE'
AWS_EX_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
JWT_IO = ('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.'
          'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c')


def aws_rid(prefix):
    return f'{prefix}-0{hx(16)}'


def pod_suffix():
    return rs(K8S, 10) + '-' + rs(K8S, 5)


def sha256_of_text():
    return hashlib.sha256(sentence().encode()).hexdigest()


@neg('aws-ec2-describe')
def _():
    if R.random() < 0.5:
        inst = {'InstanceId': aws_rid('i'), 'ImageId': aws_rid('ami'), 'InstanceType': pick(['t3.micro', 'm6i.large', 'c7g.xlarge']),
                'KeyName': f'{pick(USERS)}-{pick(REGIONS)}', 'PrivateIpAddress': ip_priv(), 'SubnetId': aws_rid('subnet'),
                'VpcId': aws_rid('vpc'), 'State': {'Code': 16, 'Name': 'running'},
                'NetworkInterfaces': [{'NetworkInterfaceId': aws_rid('eni'), 'OwnerId': acct_id(), 'MacAddress': ':'.join(hx(2) for _ in range(6))}],
                'SecurityGroups': [{'GroupId': aws_rid('sg'), 'GroupName': f'{pick(APPS)}-sg'}]}
        return (f'$ aws ec2 describe-instances --instance-ids {inst["InstanceId"]} --query "Reservations[0].Instances[0]"\n'
                + jdump(inst, 4))
    w = [23, 25, 11, 19]
    sep = '+' + '+'.join('-' * x for x in w) + '+'
    out = ['-' * len(sep), '|' + 'DescribeInstances'.center(len(sep) - 2) + '|', sep]
    for _ in range(rint(2, 5)):
        cells = [aws_rid('i'), aws_rid('ami'), pick(['running', 'stopped']), ip_priv()]
        out.append('|' + '|'.join(('  ' + c).ljust(x) for c, x in zip(cells, w)) + '|')
    out.append(sep)
    return ("$ aws ec2 describe-instances --query 'Reservations[].Instances[].[InstanceId,ImageId,State.Name,PrivateIpAddress]' "
            '--output table\n' + '\n'.join(out))


@neg('aws-configure-list')
def _():
    rows = [['Name', 'Value', 'Type', 'Location'], ['----', '-----', '----', '--------'],
            ['profile', pick(['<not set>', 'prod', 'ci']), pick(['None', 'manual']), pick(['None', '--profile'])],
            ['access_key', '*' * 16 + rs(B32, 4), 'shared-credentials-file', ''],
            ['secret_key', '*' * 16 + rs(B62, 4), 'shared-credentials-file', ''],
            ['region', pick(REGIONS), 'config-file', '~/.aws/config']]
    return '$ aws configure list\n' + '\n'.join('    ' + l for l in columns(rows, 4).split('\n'))


@neg('aws-doc-example-keys')
def _():
    v = rint(0, 2)
    if v == 0:
        return ('$ aws configure --profile ' + pick(['example', 'demo', 'docs']) + '\n'
                f'AWS Access Key ID [None]: {AWS_EX_ID}\nAWS Secret Access Key [None]: {AWS_EX_SECRET}\n'
                f'Default region name [None]: {pick(REGIONS)}\nDefault output format [None]: {pick(["json", "table", "text", "yaml"])}')
    if v == 1:
        f = pick(['docs/getting-started.md', 'README.md', 'docs/aws-setup.rst'])
        return (f'$ grep -n EXAMPLE {f}\n{rint(10, 90)}:    aws_access_key_id = {AWS_EX_ID}\n'
                f'{rint(91, 99)}:    aws_secret_access_key = {AWS_EX_SECRET}\n'
                f'{rint(100, 140)}:Replace the EXAMPLE values above with the keys from the IAM console.')
    return show_file(pick(['tests/conftest.py', 'tests/fixtures/aws.py']),
                     ['import os', '', '# AWS documentation example credentials; moto never sends them anywhere',
                      f'os.environ["AWS_ACCESS_KEY_ID"] = "{AWS_EX_ID}"', f'os.environ["AWS_SECRET_ACCESS_KEY"] = "{AWS_EX_SECRET}"',
                      f'os.environ["AWS_DEFAULT_REGION"] = "{pick(REGIONS)}"'])


@neg('aws-secret-refs')
def _():
    acct, region = acct_id(), pick(REGIONS)
    name = f'{pick(["prod", "staging"])}/{pick(APPS)}/{pick(["db", "stripe", "oauth"])}'
    if R.random() < 0.5:
        obj = {'ARN': f'arn:aws:secretsmanager:{region}:{acct}:secret:{name}-{b62(6)}', 'Name': name,
               'KmsKeyId': f'arn:aws:kms:{region}:{acct}:key/{uid()}', 'RotationEnabled': True,
               'RotationLambdaARN': f'arn:aws:lambda:{region}:{acct}:function:SecretsManagerRotation',
               'LastChangedDate': iso_off().replace('+00:00', '.' + digits(6) + '+00:00'),
               'VersionIdsToStages': {uid(): ['AWSPREVIOUS'], uid(): ['AWSCURRENT']}}
        return f'$ aws secretsmanager describe-secret --secret-id {name}\n' + jdump(obj, 4)
    pname = f'/{pick(APPS)}/{pick(["prod", "staging"])}/{pick(["db_password", "api_key"])}'
    blob = 'AQICAH' + b64(rint(140, 190))
    obj = {'Parameter': {'Name': pname, 'Type': 'SecureString', 'Value': blob, 'Version': rint(1, 9),
                         'LastModifiedDate': f'{epoch()}.{rint(100, 999)}',
                         'ARN': f'arn:aws:ssm:{region}:{acct}:parameter{pname}', 'DataType': 'text'}}
    return f'$ aws ssm get-parameter --name {pname}\n' + jdump(obj, 4)


@neg('aws-caller-identity')
def _():
    acct = acct_id()
    if R.random() < 0.5:
        user = pick(USERS)
        obj = {'UserId': 'AIDA' + rs(B32, 17), 'Account': acct, 'Arn': f'arn:aws:iam::{acct}:user/{user}'}
    else:
        role = pick(['AWSReservedSSO_AdministratorAccess_' + hx(16), 'deploy', 'GitHubActions'])
        sess = pick([email(), f'{rint(1000, 99999)}', 'botocore-session-' + str(epoch())])
        obj = {'UserId': f'AROA{rs(B32, 17)}:{sess}', 'Account': acct, 'Arn': f'arn:aws:sts::{acct}:assumed-role/{role}/{sess}'}
    return '$ aws sts get-caller-identity\n' + jdump(obj, 4)


@neg('s3-object-metadata')
def _():
    b = f'{pick(ORGS)}-{pick(["artifacts", "backups", "logs"])}'
    k = f'{pick(["releases", "exports", "daily"])}/{dt().strftime("%Y/%m/%d")}/{pick(APPS)}-{hx(8)}.tar.gz'
    if R.random() < 0.6:
        etag = hx(32) + (f'-{rint(2, 40)}' if R.random() < 0.4 else '')
        obj = {'AcceptRanges': 'bytes', 'LastModified': dt().strftime('%a, %d %b %Y %H:%M:%S GMT'),
               'ContentLength': rint(1000, 90000000), 'ETag': f'"{etag}"', 'VersionId': bu(32).replace('-', '.'),
               'ContentType': 'application/gzip', 'ServerSideEncryption': 'aws:kms',
               'Metadata': {'git-sha': hx(40), 'build-id': str(rint(1000, 99999))},
               'SSEKMSKeyId': f'arn:aws:kms:{pick(REGIONS)}:{acct_id()}:key/{uid()}', 'BucketKeyEnabled': True}
        return f'$ aws s3api head-object --bucket {b} --key {k}\n' + jdump(obj, 4)
    out = [f'$ aws s3 ls s3://{b}/{k.rsplit("/", 1)[0]}/']
    for _ in range(rint(3, 8)):
        out.append(f'{dt().strftime("%Y-%m-%d %H:%M:%S")} {rint(1000, 90000000):>10} {pick(APPS)}-{hx(8)}.tar.gz')
    return '\n'.join(out)


@neg('gcloud-sa-keys-list')
def _():
    proj = f'{pick(ORGS)}-{rint(1000, 9999)}'
    sa = f'{pick(["terraform", "ci", "runtime"])}@{proj}.iam.gserviceaccount.com'
    rows = [['KEY_ID', 'CREATED_AT', 'EXPIRES_AT', 'DISABLED']]
    for _ in range(rint(2, 4)):
        rows.append([hx(40), iso(), pick(['9999-12-31T23:59:59Z', iso()]), pick(['', 'True'])])
    return f'$ gcloud iam service-accounts keys list --iam-account={sa}\n' + columns(rows, 2)


@neg('gcp-secret-refs')
def _():
    proj = f'{pick(ORGS)}-{rint(1000, 9999)}'
    if R.random() < 0.5:
        s = pick(['db-password', 'stripe-key', 'oauth-client-secret'])
        rows = [['NAME', 'STATE', 'CREATED', 'DESTROYED']]
        for i in range(rint(2, 4), 0, -1):
            rows.append([str(i), pick(['enabled', 'disabled', 'destroyed']), iso_off().replace('+00:00', '').replace('T', 'T') + 'Z', '-'])
        return f'$ gcloud secrets versions list {s} --project {proj}\n' + columns(rows, 2)
    svc = pick(APPS)
    lines = [f'$ gcloud run services describe {svc} --region {pick(GCP_REGIONS)} --format yaml | yq ".spec.template.spec.containers[0].env"',
             f'- name: DB_PASSWORD', '  valueFrom:', '    secretKeyRef:', '      key: latest', '      name: db-password',
             '- name: STRIPE_SECRET_KEY', '  valueFrom:', '    secretKeyRef:', f'      key: "{rint(1, 12)}"', '      name: stripe-secret-key',
             '- name: SECRETS_URI', f'  value: projects/{digits(12)}/secrets/{svc}-config/versions/latest']
    return '\n'.join(lines)


@neg('azure-keyvault-refs')
def _():
    kv = f'kv-{pick(ORGS)}-{pick(["prod", "weu", "shared"])}'
    app = f'app-{pick(APPS)}'
    items = [{'name': 'DbPassword', 'slotSetting': False,
              'value': f'@Microsoft.KeyVault(SecretUri=https://{kv}.vault.azure.net/secrets/DbPassword/{hx(32)})'},
             {'name': 'StripeKey', 'slotSetting': False, 'value': f'@Microsoft.KeyVault(VaultName={kv};SecretName=StripeKey)'},
             {'name': 'WEBSITE_RUN_FROM_PACKAGE', 'slotSetting': False, 'value': '1'},
             {'name': 'AZURE_CLIENT_ID', 'slotSetting': False, 'value': uid()}]
    return f'$ az webapp config appsettings list -g rg-{pick(APPS)} -n {app}\n' + jdump(sample(items, rint(3, 4)), 2)


@neg('azure-account-show')
def _():
    tenant = uid()
    org = pick(ORGS)
    obj = {'environmentName': 'AzureCloud', 'homeTenantId': tenant, 'id': uid(), 'isDefault': True,
           'managedByTenants': [{'tenantId': uid()}] if R.random() < 0.4 else [],
           'name': f'{org.title()} {pick(["Production", "Dev/Test", "Pay-As-You-Go"])}', 'state': 'Enabled',
           'tenantDefaultDomain': f'{org.replace("-", "")}.onmicrosoft.com', 'tenantDisplayName': org.title(),
           'tenantId': tenant, 'user': {'name': email(), 'type': 'user'}}
    return '$ az account show\n' + jdump(obj, 2)


@neg('doctl-listing')
def _():
    if R.random() < 0.5:
        rows = [['ID', 'Name', 'FingerPrint']]
        for _ in range(rint(2, 4)):
            rows.append([digits(8), f'{pick(USERS)}-{pick(["laptop", "ci", "desktop"])}', ':'.join(hx(2) for _ in range(16))])
        return '$ doctl compute ssh-key list\n' + columns(rows, 4)
    rows = [['ID', 'Name', 'Public IPv4', 'Private IPv4', 'Memory', 'VCPUs', 'Disk', 'Region', 'Image', 'Status']]
    for _ in range(rint(2, 4)):
        rows.append([digits(9), f'{pick(APPS)}-{rint(1, 9)}', ip_pub(), ip_priv(), pick(['2048', '4096', '8192']),
                     pick(['1', '2', '4']), pick(['50', '80', '160']), pick(['nyc3', 'ams3', 'fra1', 'sfo3']),
                     'Ubuntu 22.04 (LTS) x64', 'active'])
    return '$ doctl compute droplet list\n' + columns(rows, 4)


@neg('fly-machines')
def _():
    app = f'{pick(APPS)}-{pick(["prod", "stg"])}'
    dep = ulid()
    rows = [['ID', 'NAME', 'STATE', 'REGION', 'IMAGE', 'IP ADDRESS', 'VOLUME', 'CREATED']]
    for _ in range(rint(2, 4)):
        rows.append([hx(14), f'{pick(ADJ)}-{pick(SCI)}-{rint(1000, 9999)}', pick(['started', 'stopped']),
                     pick(['iad', 'ams', 'fra', 'syd']), f'{app}:deployment-{dep}',
                     f'fdaa:{rint(0, 9)}:{hx(4)}:a7b:{hx(3)}:{hx(4)}:{hx(4)}:2', pick(['', f'vol_{rs(LO + DG, 16)}']), iso()])
    return f'$ fly machines list -a {app}\n{len(rows) - 1} machines have been retrieved from app {app}.\nView them in the UI here (https://fly.io/apps/{app}/machines/)\n\n{app}\n' + columns(rows, 2)


@neg('vercel-deployments')
def _():
    proj, team = pick(APPS), pick(ORGS)
    if R.random() < 0.5:
        rows = [['Age', 'Deployment', 'Status', 'Environment', 'Duration']]
        for _ in range(rint(3, 6)):
            rows.append([f'{rint(1, 59)}{pick(["m", "h", "d"])}', f'https://{proj}-{rs(LO + DG, 9)}-{team}.vercel.app',
                         pick(['● Ready', '● Error', '● Canceled']), pick(['Production', 'Preview']), f'{rint(20, 200)}s'])
        return f'$ vercel ls {proj}\nVercel CLI 37.4.2\n> Deployments for {team}/{proj} [{rint(200, 900)}ms]\n\n' + columns(rows, 2)
    lines = [f'$ vercel inspect {proj}-{rs(LO + DG, 9)}-{team}.vercel.app', f'> Fetched deployment "{proj}-{rs(LO + DG, 9)}-{team}.vercel.app" in {team}',
             '', '  General', '', f'    id\t\tdpl_{b62(28)}', f'    name\t{proj}', '    target\tproduction', '    status\t● Ready',
             f'    url\t\thttps://{proj}-{rs(LO + DG, 9)}-{team}.vercel.app', f'    created\t{dt().strftime("%a %b %d %Y %H:%M:%S")} GMT+0000']
    return '\n'.join(lines)


@neg('netlify-deploy')
def _():
    site = f'{pick(APPS)}-{pick(ORGS)}'
    did = hx(24)
    return '\n'.join(['$ netlify deploy --prod --dir dist', f'Deploy path:        /home/{pick(USERS)}/src/{site}/dist',
                      'Deploying to main site URL...', f'✔ Finished hashing {rint(20, 400)} files',
                      f'✔ CDN requesting {rint(1, 30)} files', '✔ Finished uploading blobs to deploy store',
                      'Deploy is live!', '', f'Build logs:         https://app.netlify.com/sites/{site}/deploys/{did}',
                      f'Function logs:      https://app.netlify.com/sites/{site}/logs/functions',
                      f'Unique deploy URL:  https://{did}--{site}.netlify.app',
                      f'Website URL:        https://{site}.netlify.app'])


@neg('heroku-releases')
def _():
    app = f'{pick(APPS)}-{pick(["prod", "staging"])}'
    top = rint(50, 400)
    lines = [f'$ heroku releases -a {app} -n 5', f'=== {app} Releases - Current: v{top}']
    for i in range(5):
        what = pick([f'Deploy {hx(8)}', 'Set RELAY, STRIPE_SECRET_KEY config vars', 'Update REDIS by heroku-redis',
                     'Promote from staging', f'Rollback to v{top - rint(5, 20)}'])
        lines.append(f'v{top - i:<4} {what:<42} {email():<30} {dt().strftime("%Y/%m/%d %H:%M:%S")} +0000')
    if R.random() < 0.5:
        lines += [f'$ heroku releases:info v{top} -a {app} --json | jq "{{id, slug, version}}"',
                  jdump({'id': uid(), 'slug': {'id': uid()}, 'version': top}, 2)]
    return '\n'.join(lines)


@neg('supabase-placeholders')
def _():
    if R.random() < 0.5:
        lines = ['# Copy to .env.local and fill in from Project Settings > API', 'NEXT_PUBLIC_SUPABASE_URL=https://<project-ref>.supabase.co',
                 'NEXT_PUBLIC_SUPABASE_ANON_KEY=<your-anon-key>', 'SUPABASE_SERVICE_ROLE_KEY=your-service-role-key-here',
                 'DATABASE_URL=postgresql://postgres:[YOUR-PASSWORD]@db.<project-ref>.supabase.co:5432/postgres',
                 'SUPABASE_ACCESS_TOKEN=']
        body = sample(lines[1:], rint(3, 5))
        return show_file(pick(['.env.example', 'apps/web/.env.example', '.env.local.example']), ([lines[0]] if R.random() < 0.5 else []) + body)
    ref = rs(LO, 20)
    rows = [['NAME', 'DIGEST']]
    for n in sample(['STRIPE_SECRET_KEY', 'OPENAI_API_KEY', 'SUPABASE_DB_URL', 'RESEND_API_KEY', 'SUPABASE_URL'], rint(2, 4)):
        rows.append([n, hx(64)])
    w0 = max(len(r[0]) for r in rows)
    out = ['  ' + ' | '.join([rows[0][0].ljust(w0), rows[0][1]]), '  ' + '-' * (w0 + 1) + '|' + '-' * 66]
    out += ['  ' + ' | '.join([r[0].ljust(w0), r[1]]) for r in rows[1:]]
    return f'$ supabase secrets list --project-ref {ref}\n\n' + '\n'.join(out)


@neg('cloudflare-ids')
def _():
    zone = hx(32)
    if R.random() < 0.5:
        recs = [{'id': hx(32), 'name': f'{pick(["www", "api", "app", "cdn"])}.{domain()}', 'type': pick(['A', 'CNAME', 'AAAA']),
                 'content': ip_pub(), 'proxied': pick([True, False])} for _ in range(rint(2, 3))]
        return (f'$ curl -s "https://api.cloudflare.com/client/v4/zones/{zone}/dns_records" -H "Authorization: Bearer $CF_API_TOKEN" '
                "| jq '.result[] | {id, name, type, content, proxied}'\n" + '\n'.join(jdump(r, 2) for r in recs))
    items = [{'id': hx(32), 'title': f'{pick(APPS)}-{pick(["cache", "sessions-index", "flags"])}', 'supports_url_encoding': True}
             for _ in range(rint(2, 3))]
    return '$ npx wrangler kv namespace list\n' + jdump(items, 2)


@neg('kubectl-get-pods')
def _():
    ns = pick(NAMESPACES)
    rows = [['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']]
    for _ in range(rint(3, 8)):
        a = pick(APPS)
        rows.append([f'{a}-{pod_suffix()}', pick(['1/1', '2/2', '0/1']), pick(['Running', 'Running', 'CrashLoopBackOff', 'Pending']),
                     str(rint(0, 5)), f'{rint(1, 59)}{pick(["m", "h", "d"])}'])
    if R.random() < 0.5:
        rows.append([f'{pick(APPS)}-migrate-{rs(K8S, 5)}', '0/1', 'Completed', '0', f'{rint(1, 9)}d'])
        rows.append([f'{pick(["redis", "postgres"])}-{rint(0, 2)}', '1/1', 'Running', '0', f'{rint(1, 90)}d'])
    return f'$ kubectl get pods -n {ns}\n' + columns(rows, 3)


@neg('kubectl-describe-pod')
def _():
    app = pick(APPS)
    ns = pick(NAMESPACES)
    reg = pick(['ghcr.io/' + pick(ORGS), f'{acct_id()}.dkr.ecr.{pick(REGIONS)}.amazonaws.com', 'registry.' + domain()])
    lines = [f'$ kubectl describe pod {app}-{pod_suffix()} -n {ns} | sed -n "/Containers:/,/Conditions:/p"', 'Containers:', f'  {app}:',
             f'    Container ID:   containerd://{hx(64)}', f'    Image:          {reg}/{app}:{rint(1, 3)}.{rint(0, 30)}.{rint(0, 9)}',
             f'    Image ID:       {reg}/{app}@sha256:{hx(64)}', f'    Port:           {pick([8080, 3000, 9090])}/TCP',
             '    State:          Running', f'      Started:      {dt().strftime("%a, %d %b %Y %H:%M:%S +0000")}',
             '    Ready:          True', '    Environment:',
             f"      DB_PASSWORD:    <set to the key 'password' in secret '{app}-db'>  Optional: false",
             f"      API_TOKEN:      <set to the key 'token' in secret '{app}-api'>  Optional: false",
             f'      POD_NAME:       {app}-{pod_suffix()} (v1:metadata.name)',
             '    Mounts:', f'      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-{rs(K8S, 5)} (ro)', 'Conditions:']
    return '\n'.join(lines)


@neg('k8s-secret-refs')
def _():
    app = pick(APPS)
    if R.random() < 0.5:
        lines = ['        env:', '        - name: DATABASE_PASSWORD', '          valueFrom:', '            secretKeyRef:',
                 f'              name: {app}-db', '              key: password', '        - name: STRIPE_SECRET_KEY',
                 '          valueFrom:', '            secretKeyRef:', '              name: stripe', '              key: secret-key',
                 '        envFrom:', '        - secretRef:', f'            name: {app}-env']
        return show_file(f'k8s/{app}/deployment.yaml', lines)
    lines = ['apiVersion: external-secrets.io/v1beta1', 'kind: ExternalSecret', 'metadata:', f'  name: {app}-db', 'spec:',
             '  refreshInterval: 1h', '  secretStoreRef:', '    kind: ClusterSecretStore', f'    name: {pick(["aws-sm", "vault-backend", "gcp-sm"])}',
             '  target:', f'    name: {app}-db', '  data:', '  - secretKey: password', '    remoteRef:',
             f'      key: {pick(["prod", "staging"])}/{app}/db', '      property: password']
    return show_file(f'deploy/{app}/externalsecret.yaml', lines)


@neg('sealed-secret')
def _():
    app = pick(APPS)
    ns = pick(NAMESPACES)
    keys = sample(['password', 'api-key', 'token', 'DATABASE_URL', 'relay'], rint(1, 3))
    lines = ['apiVersion: bitnami.com/v1alpha1', 'kind: SealedSecret', 'metadata:', f'  name: {app}-secrets', f'  namespace: {ns}',
             'spec:', '  encryptedData:']
    for k in sorted(keys):
        lines.append(f'    {k}: AgB{b64(rint(280, 420))[3:]}')
    lines += ['  template:', '    metadata:', f'      name: {app}-secrets', f'      namespace: {ns}', '    type: Opaque']
    return show_file(f'k8s/sealed/{app}.yaml', lines)


@neg('sops-file')
def _():
    def enc(n, typ='str'):
        return f'ENC[AES256_GCM,data:{b64(n)},iv:{b64(32)},tag:{b64(16)},type:{typ}]'
    lines = ['database:', f'    user: {enc(rint(3, 8))}', f'    password: {enc(rint(14, 30))}', 'stripe:',
             f'    secret_key: {enc(rint(32, 107))}', f'replicas: {enc(1, "int")}', 'sops:']
    if R.random() < 0.5:
        lines += ['    kms:', f'        - arn: arn:aws:kms:{pick(REGIONS)}:{acct_id()}:key/{uid()}',
                  f'          created_at: "{iso()}"', f'          enc: AQICAH{b64(rint(150, 170))}', '          aws_profile: ""']
    else:
        lines += ['    age:', f'        - recipient: age1{rs("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)}', '          enc: |',
                  '            -----BEGIN AGE ENCRYPTED FILE-----'] + ['            ' + l for l in wrap(b64(rint(180, 200)), 64).split('\n')] + \
                 ['            -----END AGE ENCRYPTED FILE-----']
    lines += [f'    lastmodified: "{iso()}"', f'    mac: ENC[AES256_GCM,data:{b64(64)},iv:{b64(32)},tag:{b64(16)},type:str]',
              '    unencrypted_suffix: _unencrypted', '    version: 3.8.1']
    return show_file(pick(['secrets/prod.enc.yaml', 'values.secrets.yaml', 'env/staging.sops.yaml']), lines)


@neg('ansible-vault')
def _():
    if R.random() < 0.5:
        body = hx(rint(5, 9) * 80)
        lines = ['$ANSIBLE_VAULT;1.1;AES256'] + wrap(body, 80).split('\n')
        return show_file(pick(['group_vars/prod/vault.yml', 'inventories/staging/group_vars/all/vault.yml']), lines)
    lines = [f'db_user: {pick(DBUSERS)}', 'db_password: !vault |', '          $ANSIBLE_VAULT;1.1;AES256'] + \
            ['          ' + l for l in wrap(hx(rint(4, 6) * 80), 80).split('\n')] + [f'db_host: {pick(DBS)}-db.internal']
    return show_file('host_vars/db01.yml', lines)


@neg('helm-list')
def _():
    if R.random() < 0.5:
        rows = [['NAME', 'NAMESPACE', 'REVISION', 'UPDATED', 'STATUS', 'CHART', 'APP VERSION']]
        for _ in range(rint(3, 7)):
            c = pick(['grafana', 'ingress-nginx', 'cert-manager', 'postgresql', 'redis', 'external-secrets', 'argo-cd'])
            rows.append([pick([c, f'{c}-{rs(LO + DG, 5)}', f'{pick(APPS)}']), pick(NAMESPACES), str(rint(1, 60)),
                         dt().strftime('%Y-%m-%d %H:%M:%S.') + digits(9) + ' +0000 UTC', pick(['deployed', 'failed', 'superseded']),
                         f'{c}-{rint(1, 15)}.{rint(0, 20)}.{rint(0, 9)}', f'v{rint(1, 3)}.{rint(0, 12)}.{rint(0, 9)}'])
        return '$ helm list -A\n' + columns(rows, 1)
    rel = pick(APPS)
    rows = [['REVISION', 'UPDATED', 'STATUS', 'CHART', 'APP VERSION', 'DESCRIPTION']]
    for r in range(1, rint(3, 6)):
        rows.append([str(r), dt().strftime('%a %b %d %H:%M:%S %Y'), pick(['superseded', 'deployed']), f'{rel}-0.{rint(1, 9)}.{rint(0, 9)}',
                     hx(7), pick(['Install complete', 'Upgrade complete', 'Rollback to 2'])])
    return f'$ helm history {rel} -n {pick(NAMESPACES)}\n' + columns(rows, 1)


@neg('terraform-plan-sensitive')
def _():
    if R.random() < 0.5:
        ident = pick(DBS)
        lines = ['  # aws_db_instance.main will be created', '  + resource "aws_db_instance" "main" {',
                 '      + address               = (known after apply)', f'      + allocated_storage     = {pick([20, 50, 100, 200, 500])}',
                 '      + arn                   = (known after apply)', '      + engine                = "postgres"',
                 f'      + identifier            = "{ident}"', '      + password              = (sensitive value)',
                 f'      + username              = "{pick(DBUSERS)}"', '    }', '',
                 '  # random_password.db will be created', '  + resource "random_password" "db" {',
                 '      + id          = (known after apply)', '      + length      = 32', '      + result      = (sensitive value)',
                 '    }', '', 'Plan: 2 to add, 0 to change, 0 to destroy.']
        return '$ terraform plan -no-color\n' + '\n'.join(lines)
    lines = [f'random_password.db: Creating...', 'random_password.db: Creation complete after 0s [id=none]',
             f'aws_kms_key.app: Creation complete after 2s [id={uid()}]',
             f'aws_s3_bucket.assets: Creation complete after 3s [id={pick(ORGS)}-assets-{hx(8)}]',
             f'aws_db_instance.main: Still creating... [4m0s elapsed]',
             f'aws_db_instance.main: Creation complete after 4m12s [id=db-{rs(UP + DG, 26)}]',
             f'aws_secretsmanager_secret_version.db: Creation complete after 1s [id=arn:aws:secretsmanager:{pick(REGIONS)}:{acct_id()}:secret:db-{b62(6)}|{uid()}]',
             '', 'Apply complete! Resources: 5 added, 0 changed, 0 destroyed.', '', 'Outputs:', '',
             'db_password = <sensitive>', f'bucket = "{pick(ORGS)}-assets-{hx(8)}"']
    return '$ terraform apply -auto-approve\n' + '\n'.join(lines)


@neg('terraform-lock')
def _():
    provs = sample([('hashicorp/aws', '5.' + str(rint(20, 60)) + '.0'), ('hashicorp/random', '3.6.' + str(rint(0, 3))),
                    ('cloudflare/cloudflare', '4.' + str(rint(10, 40)) + '.0'), ('hashicorp/google', '5.' + str(rint(10, 40)) + '.0')], rint(1, 2))
    lines = ['# This file is maintained automatically by "terraform init".', '# Manual edits may be lost in future updates.']
    for p, v in provs:
        lines += ['', f'provider "registry.terraform.io/{p}" {{', f'  version     = "{v}"', f'  constraints = "~> {v.rsplit(".", 1)[0]}"',
                  '  hashes = [', f'    "h1:{b64(32)}",'] + [f'    "zh:{hx(64)}",' for _ in range(rint(3, 5))] + ['  ]', '}']
    return show_file('.terraform.lock.hcl', lines)


@neg('vault-metadata')
def _():
    v = rint(0, 2)
    if v == 0:
        rows = [['Path', 'Type', 'Accessor', 'Description'], ['----', '----', '--------', '-----------'],
                ['cubbyhole/', 'cubbyhole', f'cubbyhole_{hx(8)}', 'per-token private secret storage'],
                ['database/', 'database', f'database_{hx(8)}', 'n/a'],
                ['identity/', 'identity', f'identity_{hx(8)}', 'identity store'],
                ['secret/', 'kv', f'kv_{hx(8)}', 'n/a'], ['sys/', 'system', f'system_{hx(8)}', 'system endpoints used for control, policy and debugging']]
        return '$ vault secrets list\n' + columns(rows, 4)
    if v == 1:
        p = f'secret/{pick(APPS)}/{pick(["prod", "staging"])}'
        rows = [['Key', 'Value'], ['---', '-----'], ['cas_required', 'false'], ['created_time', iso()], ['current_version', str(rint(2, 9))],
                ['custom_metadata', f'map[owner:{pick(USERS)}]'], ['delete_version_after', '0s'], ['max_versions', '0'],
                ['oldest_version', '0'], ['updated_time', iso()]]
        return f'$ vault kv metadata get {p}\n' + '=' * 5 + ' Metadata Path =====\n' + p.replace('secret/', 'secret/metadata/') + '\n\n' + columns(rows, 4)
    app = pick(APPS)
    return show_file(f'policies/{app}.hcl', [f'path "secret/data/{app}/*" {{', '  capabilities = ["read", "list"]', '}', '',
                                             f'path "database/creds/{app}-ro" {{', '  capabilities = ["read"]', '}', '',
                                             'path "auth/token/renew-self" {', '  capabilities = ["update"]', '}'])


@neg('docker-listing')
def _():
    if R.random() < 0.5:
        rows = [['CONTAINER ID', 'IMAGE', 'COMMAND', 'CREATED', 'STATUS', 'PORTS', 'NAMES']]
        for _ in range(rint(2, 5)):
            img, cmd = pick([('postgres:16', 'docker-entrypoint.s…'), ('redis:7-alpine', 'docker-entrypoint.s…'),
                             (f'ghcr.io/{pick(ORGS)}/{pick(APPS)}:{hx(7)}', '/app/server'), ('nginx:1.25', '/docker-entrypoint.…')])
            rows.append([hx(12), img, f'"{cmd}"',
                         f'{rint(2, 50)} {pick(["minutes", "hours"])} ago', f'Up {rint(2, 50)} minutes', f'0.0.0.0:{rint(3000, 9000)}->{rint(80, 9000)}/tcp',
                         f'{pick(ADJ)}_{pick(SCI)}'])
        return '$ docker ps\n' + columns(rows, 3)
    rows = [['REPOSITORY', 'TAG', 'DIGEST', 'IMAGE ID', 'CREATED', 'SIZE']]
    for _ in range(rint(2, 5)):
        rows.append([pick([f'ghcr.io/{pick(ORGS)}/{pick(APPS)}', 'postgres', 'redis', 'node']), pick(['latest', '16', hx(7), '20-alpine']),
                     f'sha256:{hx(64)}', hx(12), f'{rint(2, 11)} {pick(["days", "weeks"])} ago', f'{rint(40, 900)}MB'])
    return '$ docker images --digests\n' + columns(rows, 3)


@neg('git-log')
def _():
    if R.random() < 0.5:
        return '$ git log --oneline -n 8\n' + '\n'.join(f'{hx(7)} {pick(["fix", "feat", "chore", "refactor"])}: {sentence(rint(3, 6))}' for _ in range(8))
    out = [f'$ git log -{rint(2, 3)}']
    for i in range(int(out[0][-1])):
        if i:
            out.append('')
        n = pick(FULLNAMES)
        out += [f'commit {hx(40)}' + (' (HEAD -> main, origin/main)' if i == 0 else ''),
                f'Author: {n} <{n.split()[0].lower()}@{domain()}>', f'Date:   {dt().strftime("%a %b %d %H:%M:%S %Y")} +0000', '',
                f'    {sentence(rint(3, 7)).capitalize()}', '', f'    Change-Id: I{hx(40)}']
    return '\n'.join(out)


@neg('git-signature')
def _():
    n = pick(FULLNAMES)
    em = f'{n.split()[0].lower()}@{domain()}'
    if R.random() < 0.5:
        fpr = hx(40).upper()
        return '\n'.join(['$ git log --show-signature -1', f'commit {hx(40)} (HEAD -> main)',
                          f'gpg: Signature made {dt().strftime("%a %d %b %Y %H:%M:%S")} UTC', f'gpg:                using RSA key {fpr}',
                          f'gpg: Good signature from "{n} <{em}>" [ultimate]',
                          f'Author: {n} <{em}>', f'Date:   {dt().strftime("%a %b %d %H:%M:%S %Y")} +0000', '',
                          f'    {sentence().capitalize()}'])
    blob = ssh_ed25519_pub_blob()
    return '\n'.join(['$ git verify-commit HEAD',
                      f'Good "git" signature for {em} with ED25519 key {ssh_fp(blob)}',
                      '$ cat ~/.config/git/allowed_signers',
                      f'{em} ssh-ed25519 {b64e(blob)}'])


@neg('npm-lock-integrity')
def _():
    lines = ['{', f'  "name": "{pick(APPS)}",', '  "lockfileVersion": 3,', '  "packages": {']
    pkgs = sample(['lodash', 'express', 'zod', 'react', 'axios', 'debug', 'ms', 'semver', 'chalk', 'uuid'], rint(2, 4))
    for i, p in enumerate(pkgs):
        v = f'{rint(1, 18)}.{rint(0, 30)}.{rint(0, 20)}'
        lines += [f'    "node_modules/{p}": {{', f'      "version": "{v}",',
                  f'      "resolved": "https://registry.npmjs.org/{p}/-/{p}-{v}.tgz",',
                  f'      "integrity": "sha512-{b64(64)}"', '    }' + (',' if i < len(pkgs) - 1 else '')]
    lines += ['  }', '}']
    return f"$ jq '{{name, lockfileVersion, packages: (.packages | with_entries(select(.key != \"\")) | to_entries[:{len(pkgs)}] | from_entries)}}' package-lock.json\n" + '\n'.join(lines)


@neg('pip-hashes')
def _():
    lines = ['#', '# This file is autogenerated by pip-compile with Python 3.12', '#']
    for p in sample(['requests', 'urllib3', 'certifi', 'idna', 'charset-normalizer', 'pydantic', 'httpx', 'anyio'], rint(2, 4)):
        lines.append(f'{p}=={rint(1, 3)}.{rint(0, 30)}.{rint(0, 9)} \\')
        hs = [f'    --hash=sha256:{hx(64)}' for _ in range(rint(1, 3))]
        lines += [h + ' \\' for h in hs[:-1]] + [hs[-1]]
    return show_file('requirements.txt', lines)


@neg('cargo-lock')
def _():
    lines = ['# This file is automatically @generated by Cargo.', '# It is not intended for manual editing.', 'version = 3']
    for p in sample(['serde', 'tokio', 'anyhow', 'reqwest', 'bytes', 'itoa', 'ryu', 'memchr', 'libc'], rint(2, 4)):
        lines += ['', '[[package]]', f'name = "{p}"', f'version = "{rint(0, 2)}.{rint(0, 40)}.{rint(0, 200)}"',
                  'source = "registry+https://github.com/rust-lang/crates.io-index"', f'checksum = "{hx(64)}"']
    return show_file('Cargo.lock', lines)


@neg('dotenv-placeholders')
def _():
    opts = ['OPENAI_API_KEY=sk-...', 'OPENAI_API_KEY=<your-openai-key>', 'ANTHROPIC_API_KEY=your-api-key-here',
            'STRIPE_SECRET_KEY=${STRIPE_SECRET_KEY}', 'STRIPE_WEBHOOK_SECRET=whsec_xxxxxxxxxxxxxxxxxxxxxxxx',
            'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'DATABASE_URL=postgres://user:password@localhost:5432/dbname',
            'SLACK_BOT_TOKEN=xoxb-your-bot-token', 'AWS_SECRET_ACCESS_KEY=REDACTED', 'SENDGRID_API_KEY=********',
            'JWT_SECRET=', 'API_TOKEN=<token>', 'REDIS_URL=redis://localhost:6379', 'SESSION_SECRET=change-me-in-production',
            'AWS_ACCESS_KEY_ID=<access-key-id>', 'TWILIO_AUTH_TOKEN=[REDACTED]', 'RELAY=${RELAY:?must be set}',
            f'PORT={pick([3000, 8080])}', 'LOG_LEVEL=info', 'SENTRY_DSN=']
    lines = [pick(['# Copy this file to .env and fill in real values', '# Example configuration - no real secrets here',
                   '# cp .env.example .env'])] + sample(opts, rint(5, 9))
    return show_file(pick(['.env.example', '.env.sample', 'example.env', '.env.template']), lines)


@neg('config-interpolation')
def _():
    v = rint(0, 2)
    if v == 0:
        return show_file(pick(['docker-compose.yml', 'compose.yaml', f'deploy/{pick(APPS)}/compose.yml']),
                         ['services:', '  db:', f'    image: postgres:{rint(13, 17)}', '    environment:',
                                                '      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}',
                                                f'  {pick(APPS)}:', f'    image: ghcr.io/{pick(ORGS)}/{pick(APPS)}:{rint(1, 4)}.{rint(0, 20)}', '    environment:', '      DATABASE_URL: postgres://app:${POSTGRES_PASSWORD}@db:5432/app',
                                                '      STRIPE_SECRET_KEY: ${STRIPE_SECRET_KEY}', '    secrets:', '      - relay_key',
                                                'secrets:', '  relay_key:', '    file: ./secrets/relay_key.txt'])
    if v == 1:
        return show_file(pick(['src/main/resources/application.yml', f'{pick(APPS)}/src/main/resources/application-prod.yml']),
                         ['spring:', '  datasource:', '    url: ${DB_URL}',
                                                                f'    username: ${{DB_USER:{pick(DBUSERS)}}}', '    password: ${DB_PASSWORD}',
                                                                'app:', f'  name: {pick(APPS)}', '  upstream:', '    value: ${UPSTREAM_VALUE}', '  jwt:',
                                                                "    secret: '#{environment.JWT_SECRET}'"])
    app = pick(APPS)
    return show_file(f'roles/{app}/templates/{app}.env.j2', ['DB_HOST={{ db_host }}', f'DB_PORT={pick([5432, 3306, 6432])}',
                                                            'DB_PASSWORD={{ vault_db_password }}',
                                                            f"STRIPE_KEY={{{{ lookup('community.hashi_vault.hashi_vault', 'secret/data/{app}/stripe:key') }}}}",
                                                            'RELAY={{ relay_value | default(omit) }}'])


@neg('gha-secret-refs')
def _():
    lines = ['name: deploy', 'on:', '  push:', '    branches: [main]', 'permissions:', '  id-token: write', '  contents: read',
             'jobs:', '  deploy:', '    runs-on: ubuntu-latest', '    steps:', f'      - uses: actions/checkout@{hx(40)} # v4.1.1',
             f'      - uses: aws-actions/configure-aws-credentials@{hx(40)} # v4', '        with:',
             f'          role-to-assume: arn:aws:iam::{acct_id()}:role/{pick(["gha-deploy", "github-oidc"])}',
             f'          aws-region: {pick(REGIONS)}', '      - run: npm ci && npm publish', '        env:',
             '          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}', '          RELAY: ${{ secrets.RELAY }}',
             '          GH_TOKEN: ${{ github.token }}']
    return show_file('.github/workflows/deploy.yml', lines)


@neg('ci-log-masked')
def _():
    stamp = stamper()
    dom = domain()
    if R.random() < 0.5:
        return '\n'.join([f'{stamp()} ##[group]Run curl -sf -H "Authorization: Bearer $TOKEN" https://api.{dom}/deploy',
                          f'{stamp()} curl -sf -H "Authorization: Bearer $TOKEN" https://api.{dom}/deploy',
                          f'{stamp()} shell: /usr/bin/bash -e {{0}}', f'{stamp()} env:', f'{stamp()}   TOKEN: ***',
                          f'{stamp()}   AWS_ACCESS_KEY_ID: ***', f'{stamp()}   AWS_SECRET_ACCESS_KEY: ***',
                          f'{stamp()} ##[endgroup]', f'{stamp()} + curl -sf -H \'Authorization: Bearer ***\' https://api.{dom}/deploy',
                          f'{stamp()} {{"deployment_id":"{uid()}","status":"queued"}}'])
    return '\n'.join([f'Running with gitlab-runner 16.{rint(5, 11)}.{rint(0, 3)} ({hx(8)})',
                      f'Getting source from Git repository', f'Checking out {hx(8)} as detached HEAD (ref is main)...',
                      'Executing "step_script" stage of the job script', '$ echo "$DEPLOY_TOKEN" | docker login -u gitlab-ci-token --password-stdin $CI_REGISTRY',
                      'Login Succeeded', '$ curl --header "PRIVATE-TOKEN: [MASKED]" "$CI_API_V4_URL/projects/$CI_PROJECT_ID/releases"',
                      jdump([{'tag_name': f'v{rint(1, 3)}.{rint(0, 9)}.0', 'commit': {'id': hx(40)}}]), 'Job succeeded'])


@neg('python-env-lookup')
def _():
    lines = ['import os', 'import boto3', 'from openai import OpenAI', '',
             'client = OpenAI(api_key=os.environ["OPENAI_API_KEY"])',
             f'sm = boto3.client("secretsmanager", region_name="{pick(REGIONS)}")', '', 'def db_password() -> str:',
             f'    return sm.get_secret_value(SecretId="prod/{pick(APPS)}/db")["SecretString"]', '',
             'RELAY = os.getenv("RELAY", "")', f'REQUEST_NAMESPACE = "{uid()}"  # uuid5 namespace for idempotency keys']
    return show_file(pick(['app/settings.py', 'src/config.py']), lines)


@neg('js-process-env')
def _():
    lines = ["import Stripe from 'stripe';", '', 'const stripe = new Stripe(process.env.STRIPE_SECRET_KEY);', '',
             '// ids from the Stripe test fixtures used in snapshot tests', f"export const FIXTURE_CUSTOMER = 'cus_{b62(14)}';",
             f"export const FIXTURE_PRICE = 'price_{b62(24)}';", f"export const BUILD_SHA = '{hx(40)}';", '',
             'export const config = {', "  relay: process.env.RELAY ?? '',", "  apiKey: import.meta.env.VITE_API_KEY,", '};']
    return show_file(pick(['src/stripe.ts', 'lib/config.mjs']), lines)


@neg('go-hash-vectors')
def _():
    vecs = []
    for _ in range(rint(2, 4)):
        s = f'{pick(WORDS)}-{rint(1, 9999)}'
        vecs.append((s, hashlib.sha256(s.encode()).hexdigest()))
    lines = ['package hashutil', '', 'import "testing"', '', 'func TestSum256(t *testing.T) {', '\tcases := []struct{ in, want string }{']
    lines += [f'\t\t{{"{s}", "{h}"}},' for s, h in vecs]
    lines += ['\t}', '\tfor _, c := range cases {', '\t\tif got := Sum256Hex(c.in); got != c.want {',
              '\t\t\tt.Errorf("Sum256Hex(%q) = %s, want %s", c.in, got, c.want)', '\t\t}', '\t}', '}']
    return show_file('internal/hashutil/sum_test.go', lines)


@neg('java-spring-refs')
def _():
    lines = ['@Configuration', 'public class ClientConfig {', '    private static final long serialVersionUID = ' + digits(18) + 'L;',
             f'    public static final UUID TENANT = UUID.fromString("{uid()}");', '',
             '    @Value("${app.relay.value}")', '    private String relay;', '', '    @Value("${spring.datasource.password}")',
             '    private String dbPassword;', '}']
    return show_file('src/main/java/com/acme/ClientConfig.java', lines)


@neg('jwt-io-sample')
def _():
    v = rint(0, 2)
    if v == 0:
        return show_file(pick(['docs/auth.md', 'README.md', f'docs/{pick(APPS)}/api.md']),
                         ['## Calling the API', '', 'Send the token in the `Authorization` header, e.g. with the sample token from jwt.io:',
                          '', '```bash', f'curl -H "Authorization: Bearer {JWT_IO}" http://localhost:{pick([3000, 4000, 5000, 8000, 8080])}/api/{pick(["me", "v1/profile", "projects", "whoami"])}', '```'])
    if v == 1:
        return show_file(pick(['tests/test_jwt.py', 'tests/unit/test_tokens.py', f'{pick(APPS)}/tests/test_auth.py']),
                         ['import jwt', '', '# canonical example from https://jwt.io (secret: "your-256-bit-secret")',
                          f'{pick(["SAMPLE", "JWT_IO_TOKEN", "EXAMPLE_JWT"])} = "{JWT_IO}"', '',
                          f'def test_{pick(["decode", "parse", "inspect"])}_{pick(["header", "claims", "alg"])}_{rint(1, 99)}():',
                          f'    assert jwt.get_unverified_header({pick(["SAMPLE", "JWT_IO_TOKEN", "EXAMPLE_JWT"])})["alg"] == "HS256"'])
    if R.random() < 0.5:
        f = pick(['1', '2'])
        return (f'$ echo "{JWT_IO}" | cut -d. -f{f} | base64 -d 2>/dev/null; echo\n'
                + ('{"alg":"HS256","typ":"JWT"}' if f == '1' else '{"sub":"1234567890","name":"John Doe","iat":1516239022}')
                + f'\n$ # {pick(["jwt.io sample", "from the README example", "documented demo token"])}')
    part = pick(['payload', 'header'])
    return (f'$ {pick(["jwt decode", "step crypto jwt inspect --insecure <<<"])} {JWT_IO} | jq -c .{part}\n'
            + ('{"sub":"1234567890","name":"John Doe","iat":1516239022}' if part == 'payload' else '{"alg":"HS256","typ":"JWT"}') + '\n'
            + f'$ date -d @1516239022 -u\nThu Jan 18 01:30:22 UTC 2018\n' * rint(0, 1) +
            f'$ # {pick(["sample token from jwt.io, used in docs", "documented example, not a real credential", "jwt.io demo token"])}')


@neg('curl-verbose-noauth')
def _():
    host = pick([f'www.{domain()}', f'cdn.{domain()}', f'{pick(ORGS)}-assets.s3.amazonaws.com'])
    ip = ip_pub()
    path = f'/static/app.{hx(8)}.js'
    lines = [f'$ curl -sv -o /dev/null https://{host}{path}', f'*   Trying {ip}:443...',
             f'* Connected to {host} ({ip}) port 443', '* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384',
             f'> GET {path} HTTP/2', f'> Host: {host}', '> User-Agent: curl/8.5.0', '> Accept: */*', '>',
             '< HTTP/2 200', '< content-type: application/javascript', f'< etag: W/"{hx(32)}"',
             f'< last-modified: {dt().strftime("%a, %d %b %Y %H:%M:%S GMT")}']
    extra = pick([[f'< x-amz-request-id: {rs(UP + DG, 16)}', f'< x-amz-id-2: {b64(54)}', f'< x-amz-version-id: {bu(32)}'],
                  [f'< cf-ray: {hx(16)}-{pick(["SJC", "AMS", "FRA", "IAD"])}', '< cf-cache-status: HIT', f'< x-request-id: {uid()}'],
                  [f'< x-amz-cf-id: {bu(56)}==', '< x-cache: Hit from cloudfront', f'< via: 1.1 {hx(32)}.cloudfront.net (CloudFront)']])
    return '\n'.join(lines + extra + ['<', f'* Connection #0 to host {host} left intact'])


@neg('har-analytics-cookies')
def _():
    ts = epoch()
    hj = b64e(jdump({'id': uid(), 'created': ts * 1000, 'existing': True}).encode())
    cookies = [('_ga', f'GA1.1.{digits(10)}.{ts}'), (f'_ga_{rs(UP + DG, 10)}', f'GS1.1.{ts}.{rint(1, 40)}.1.{ts + rint(10, 900)}.0.0.0'),
               ('_gid', f'GA1.2.{digits(10)}.{ts}'), ('_fbp', f'fb.1.{ts}{rint(100, 999)}.{digits(10)}'),
               ('ajs_anonymous_id', uid()), (f'_hjSessionUser_{digits(7)}', hj), ('_gcl_au', f'1.1.{digits(10)}.{ts}'),
               ('cookie_consent', 'analytics%3Dtrue%26ads%3Dfalse')]
    ch = sample(cookies, rint(3, 6))
    req = {'method': 'GET', 'url': f'https://www.{domain()}/pricing',
           'headers': [{'name': 'cookie', 'value': '; '.join(f'{k}={v}' for k, v in ch)}]}
    if R.random() < 0.5:
        req['cookies'] = [{'name': k, 'value': v} for k, v in ch[:3]]
    return f"$ jq '.log.entries[{rint(0, 30)}].request | {{method, url, headers, cookies}}' www.har\n" + jdump(req, 2)


@neg('api-pagination')
def _():
    v = rint(0, 2)
    if v == 0:
        last = rint(10000, 999999)
        obj = {'data': [{'id': last - i, 'status': pick(['open', 'closed'])} for i in range(3)], 'has_more': True,
               'next_cursor': b64e(jdump({'id': last - 2, 'ts': epoch()}).encode())}
        return f'$ curl -s "https://api.{domain()}/v2/tickets?limit=3" -H "Authorization: Bearer $API_TOKEN"\n' + jdump(obj, 2)
    if v == 1:
        uidv = 'U0' + rs(UP + DG, 9)
        obj = {'ok': True, 'members': [{'id': uidv, 'name': pick(USERS)}],
               'response_metadata': {'next_cursor': b64e(f'user:{"U0" + rs(UP + DG, 9)}'.encode())}}
        return '$ curl -s -H "Authorization: Bearer $SLACK_BOT_TOKEN" "https://slack.com/api/users.list?limit=1"\n' + jdump(obj, 2)
    pt = b64u(jdump({'offset': rint(100, 9000), 'order': 'created_at'}).encode())
    dom = domain()
    return (f'$ curl -sI "https://api.{dom}/v1/items?page_size=100"\nHTTP/2 200\n'
            f'link: <https://api.{dom}/v1/items?page_size=100&page_token={pt}>; rel="next"\nx-total-count: {rint(1000, 90000)}')


@neg('stripe-object-ids')
def _():
    cus = f'cus_{b62(14)}'
    obj = {'id': f'sub_{b62(24)}', 'object': 'subscription', 'customer': cus, 'status': 'active',
           'default_payment_method': f'pm_{b62(24)}', 'latest_invoice': f'in_{b62(24)}',
           'items': {'data': [{'id': f'si_{b62(14)}', 'price': {'id': f'price_{b62(24)}', 'product': f'prod_{b62(14)}',
                                                                  'unit_amount': rint(500, 9900)}}]},
           'livemode': True, 'created': epoch()}
    return f'$ stripe subscriptions retrieve {obj["id"]}\n' + jdump(obj, 2)


@neg('psql-ids')
def _():
    n = rint(3, 5)
    rows = [[uid(), f'{pick(["SKU", "ORD"])}-{rint(10000, 99999)}', f'1Z{rs(UP + DG, 16)}', hx(64)[:pick([16, 64])]] for _ in range(n)]
    return (f'$ psql -d {pick(DBS)} -c "select id, ref, tracking_no, checksum from shipments limit {n};"\n'
            + psql_table(['id', 'ref', 'tracking_no', 'checksum'], rows))


@neg('mysql-gtid')
def _():
    u = uid()
    lines = ['mysql> SHOW REPLICA STATUS\\G', '*************************** 1. row ***************************',
             '             Replica_IO_State: Waiting for source to send event', f'                  Source_Host: {pick(DBS)}-primary',
             f'              Source_Log_File: mysql-bin.{rint(1, 999):06d}', f'          Read_Source_Log_Pos: {rint(1000, 99999999)}',
             '           Replica_IO_Running: Yes', '          Replica_SQL_Running: Yes', '        Seconds_Behind_Source: 0',
             f'                  Source_UUID: {u}', f'           Retrieved_Gtid_Set: {u}:{rint(1, 100)}-{rint(1000, 999999)}',
             f'            Executed_Gtid_Set: {u}:1-{rint(1000, 999999)},\n{uid()}:1-{rint(10, 999)}', '1 row in set (0.00 sec)']
    return '\n'.join(lines)


@neg('json-log-ids')
def _():
    svc = pick(APPS)
    lines = []
    for ts in iso_seq(rint(3, 6)):
        tid, sid = hx(32), hx(16)
        lines.append(jdump({'ts': ts, 'level': pick(['info', 'warn']), 'service': svc, 'msg': pick(['request completed', 'token refreshed', 'retrying upstream']),
                           'request_id': uid(), 'trace_id': tid, 'span_id': sid, 'traceparent': f'00-{tid}-{sid}-01',
                           'user_id': f'usr_{b62(12)}', 'duration_ms': rint(1, 2000)}))
    return f'$ kubectl logs deploy/{svc} --tail={len(lines)}\n' + '\n'.join(lines)


@neg('logfmt-ids')
def _():
    d = dt()
    lines = []
    for _ in range(rint(3, 6)):
        d += datetime.timedelta(seconds=rint(1, 60))
        lines.append(pick([f'ts={iso(d)} level=info msg="token refreshed" expires_in=3600 client_id={uid()}',
                           f'ts={iso(d)} level=info msg="build info" commit={hx(40)} version=v{rint(1, 3)}.{rint(0, 20)}.{rint(0, 9)}',
                           f'ts={iso(d)} level=info msg="pulled image" digest=sha256:{hx(64)}',
                           f'ts={iso(d)} level=warn msg="slow query" request_id={ulid()} duration={rint(500, 9000)}ms',
                           f'ts={iso(d)} level=info msg="session started" session_hash={hx(16)} user=usr_{b62(12)}']))
    return f'$ journalctl -u {pick(APPS)} -o cat -n {len(lines)}\n' + '\n'.join(lines)


@neg('stacktrace-masked')
def _():
    db, u = pick(DBS), pick(DBUSERS)
    if R.random() < 0.5:
        return '\n'.join(['Traceback (most recent call last):', '  File "/app/main.py", line 12, in <module>',
                          '    engine.connect()', f'sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "{db}-db" ({ip_priv()}), port 5432 failed: Connection refused',
                          '', f'(Background on this error at: https://sqlalche.me/e/20/e3q8)',
                          f'>>> engine.url', f"postgresql+psycopg2://{u}:***@{db}-db:5432/{db}"])
    return '\n'.join([f'org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection',
                      f'Caused by: java.sql.SQLException: Access denied for user \'{u}\'@\'{ip_priv()}\' (using password: YES)',
                      '\tat com.mysql.cj.jdbc.exceptions.SQLError.createSQLException(SQLError.java:130)',
                      '\tat com.mysql.cj.jdbc.ConnectionImpl.createNewIO(ConnectionImpl.java:825)',
                      f'HikariConfig: jdbcUrl.........................jdbc:mysql://{db}-db:3306/{db}',
                      'HikariConfig: password........................<masked>', f'HikariConfig: username........................"{u}"'])


@neg('ssh-public-keys')
def _():
    v = rint(0, 2)
    if v == 0:
        out = ['$ cat ~/.ssh/authorized_keys']
        for _ in range(rint(2, 4)):
            kind = rint(0, 2)
            blob = [ssh_ed25519_pub_blob, lambda: ssh_rsa_pub_blob(pick([256, 384])), ssh_ecdsa_pub_blob][kind]()
            name = ['ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256'][kind]
            out.append(f'{name} {b64e(blob)} {pick(USERS)}@{pick(["laptop", "ci", "bastion", "mbp"])}')
        return '\n'.join(out)
    if v == 1:
        out = [f'$ ssh-keyscan -t ed25519,ecdsa {pick(["github.com", "gitlab.com", "git." + domain()])} 2>/dev/null | ssh-keygen -lf -']
        for name, f in (('ED25519', ssh_ed25519_pub_blob), ('ECDSA', ssh_ecdsa_pub_blob)):
            out.append(f'{256} {ssh_fp(f())} {pick(["github.com", ip_pub()])} ({name})')
        return '\n'.join(out)
    out = ['$ head -n 4 ~/.ssh/known_hosts']
    for _ in range(4):
        out.append(f'|1|{b64(20)}|{b64(20)} ssh-ed25519 {b64e(ssh_ed25519_pub_blob())}')
    return '\n'.join(out)


@neg('pem-certificate')
def _():
    cn = f'{pick(["api", "www", "auth"])}.{domain()}'
    c = pem('CERTIFICATE', cert_der(cn, pick(['R11', 'E5', 'Amazon RSA 2048 M02', 'GTS CA 1P5']), ec=R.random() < 0.7))
    if R.random() < 0.5:
        return f'$ cat certs/{cn}.crt\n' + c
    return (f'$ openssl s_client -connect {cn}:443 -servername {cn} </dev/null 2>/dev/null | openssl x509\n' + c)


@neg('pem-public-key')
def _():
    if R.random() < 0.5:
        k = pem('PUBLIC KEY', spki_ec())
        cmd = pick(['$ cat keys/jwt_public.pem', '$ openssl ec -in signing.pem -pubout 2>/dev/null'])
    else:
        k = pem('PUBLIC KEY', spki_rsa(256))
        cmd = pick(['$ curl -s https://auth.' + domain() + '/.well-known/public.pem', '$ cat config/rsa_pub.pem'])
    return cmd + '\n' + k


@neg('jwks-public')
def _():
    keys = []
    for _ in range(rint(1, 2)):
        if R.random() < 0.5:
            n = bytearray(rb(256))
            n[0] |= 0x80
            keys.append({'kty': 'RSA', 'use': 'sig', 'alg': 'RS256', 'kid': pick([hx(40), b62(22), uid()]), 'n': b64u(bytes(n)), 'e': 'AQAB'})
        else:
            keys.append({'kty': 'EC', 'use': 'sig', 'crv': 'P-256', 'kid': b62(16), 'x': b64u(rb(32)), 'y': b64u(rb(32)), 'alg': 'ES256'})
    return f'$ curl -s https://{pick(["auth", "login", "id"])}.{domain()}/.well-known/jwks.json | jq .\n' + jdump({'keys': keys}, 2)


@neg('base64-plaintext')
def _():
    v = rint(0, 2)
    if v == 0:
        s = sentence(rint(4, 10))
        return f"$ echo -n '{s}' | base64\n{b64e(s.encode())}"
    if v == 1:
        s = sentence(rint(4, 10)).capitalize() + '.'
        return f'$ echo {b64e(s.encode())} | base64 -d\n{s}'
    name = f'{pick(APPS)}-config'
    d = {'app.properties': b64e(f'feature.flags={pick(WORDS)},{pick(WORDS)}\nlog.level=INFO\n'.encode()),
         'motd.txt': b64e((sentence().capitalize() + '\n').encode())}
    return (f'$ kubectl get configmap {name} -o yaml\napiVersion: v1\nbinaryData:\n' +
            '\n'.join(f'  {k}: {v}' for k, v in d.items()) + f'\nkind: ConfigMap\nmetadata:\n  name: {name}\n  uid: {uid()}')


@neg('html-sri')
def _():
    libs = sample([('bootstrap', '5.3.' + str(rint(0, 3)), 'dist/js/bootstrap.bundle.min.js'),
                   ('jquery', '3.7.' + str(rint(0, 1)), 'dist/jquery.min.js'),
                   ('htmx.org', '1.9.' + str(rint(5, 12)), 'dist/htmx.min.js'),
                   ('alpinejs', '3.13.' + str(rint(0, 9)), 'dist/cdn.min.js')], rint(1, 3))
    lines = ['<!doctype html>', '<html lang="en">', '<head>', '  <meta charset="utf-8">']
    for name, ver, path in libs:
        alg = pick(['sha384', 'sha512'])
        h = hashlib.sha384(rb(64)).digest() if alg == 'sha384' else hashlib.sha512(rb(64)).digest()
        lines.append(f'  <script src="https://cdn.jsdelivr.net/npm/{name}@{ver}/{path}" integrity="{alg}-{b64e(h)}" crossorigin="anonymous"></script>')
    lines += ['</head>']
    return show_file('templates/base.html', lines)


@neg('op-references')
def _():
    vault = pick(['Engineering', 'Prod', 'Shared', 'CI'])
    v = rint(0, 2)
    if v == 0:
        return show_file('.env.tpl', [f'DATABASE_PASSWORD=op://{vault}/{pick(APPS)}-db/password',
                                      f'STRIPE_SECRET_KEY=op://{vault}/Stripe/credential',
                                      f'RELAY=op://{vault}/relay/value', f'AWS_ACCESS_KEY_ID=op://{vault}/aws-ci/access key id'])
    if v == 1:
        names = sample(['DATABASE_PASSWORD', 'STRIPE_SECRET_KEY', 'RELAY', 'OPENAI_API_KEY', 'GITHUB_TOKEN', 'SEAL'], rint(1, 4))
        return (f'$ op run --env-file {pick([".env.tpl", ".env.op", "ops/prod.env"])} -- printenv ' + ' '.join(names) + '\n'
                + '\n'.join('<concealed by 1Password>' for _ in names))
    item = f'{pick(APPS)}-db'
    return (f'$ op item get {item} --vault {vault} --fields label=username,label=password\n'
            f"{pick(DBUSERS)},[use 'op item get {hx(26)[:26]} --reveal' to reveal]")


@neg('masked-token-listings')
def _():
    v = rint(0, 2)
    if v == 0:
        u = pick(USERS)
        return ('$ gh auth status\ngithub.com\n' f'  ✓ Logged in to github.com account {u} (keyring)\n'
                f'  - Active account: true\n  - Git operations protocol: {pick(["ssh", "https"])}\n'
                '  - Token: gho_************************************\n'
                '  - Token scopes: ' + ', '.join(f"'{x}'" for x in sorted(sample(['admin:public_key', 'gist', 'read:org', 'repo', 'workflow', 'codespace', 'project'], rint(2, 5)))))
    if v == 1:
        rows = [['id', 'token', 'created', 'readonly', 'CIDR whitelist']]
        for _ in range(rint(2, 4)):
            rows.append([hx(6), 'npm_' + b62(2) + '…', dt().strftime('%Y-%m-%d'), pick(['no', 'yes']), ''])
        return '$ npm token list\n' + columns(rows, 3)
    return ('$ glab auth status\ngitlab.com\n' f'  ✓ Logged in to gitlab.com as {pick(USERS)} (/home/{pick(USERS)}/.config/glab-cli/config.yml)\n'
            '  ✓ Git operations for gitlab.com configured to use https protocol.\n  ✓ API calls for gitlab.com are made over https protocol.\n'
            '  ✓ REST API Endpoint: https://gitlab.com/api/v4/\n  ✓ GraphQL Endpoint: https://gitlab.com/api/graphql/\n'
            '  ✓ Token: **************************')


@neg('lfs-pointer-go-sum')
def _():
    if R.random() < 0.5:
        f = pick(['assets/model.onnx', 'data/fixtures.parquet', 'docs/demo.mp4'])
        return f'$ git show HEAD:{f}\nversion https://git-lfs.github.com/spec/v1\noid sha256:{hx(64)}\nsize {rint(100000, 900000000)}'
    mods = sample(['github.com/google/uuid v1.6.0', 'golang.org/x/sync v0.7.0', 'github.com/stretchr/testify v1.9.0',
                   'gopkg.in/yaml.v3 v3.0.1', 'github.com/spf13/cobra v1.8.0'], rint(2, 4))
    lines = []
    for m in mods:
        lines.append(f'{m} h1:{b64(32)}')
        lines.append(f'{m}/go.mod h1:{b64(32)}')
    return show_file('go.sum', lines)


# ================================================================ main
def main():
    rows = []
    for name, f in POS:
        for _ in range(10):
            rows.append((name, True, f()))
    for name, f in NEG:
        for _ in range(10):
            rows.append((name, False, f()))
    R.shuffle(rows)
    out = sys.stdout
    for i, (name, positive, text) in enumerate(rows, 1):
        out.write(json.dumps({'id': i, 'template': name, 'positive': positive, 'text': text}, ensure_ascii=False) + '\n')


if __name__ == '__main__':
    main()
