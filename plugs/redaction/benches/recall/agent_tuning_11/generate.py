#!/usr/bin/env python3
"""An eleventh tuning set written apart: debugging and incident response.

Standard library only, one random.Random(1111), deterministic.  Prints one
JSON object per line to stdout:
    {"id": N, "template": "<name>", "positive": true|false, "text": "..."}
Ids 1-300 come from 60 positive templates, ids 301-600 from 60 negative
templates, 5 rows each.  Secrets in positive rows are wrapped in « and ».
See README.md for the labelling conventions and the assertions.
"""
import base64
import hashlib
import json
import random
import re
import sys
import unicodedata
import zlib
from datetime import datetime, timedelta
from urllib.parse import quote

SEED = 1111
R = random.Random(SEED)

LOW = 'abcdefghijklmnopqrstuvwxyz'
UP = LOW.upper()
DIG = '0123456789'
HEXD = '0123456789abcdef'
HEXU = '0123456789ABCDEF'
ALNUM = UP + LOW + DIG
LOWNUM = LOW + DIG
B62 = DIG + UP + LOW
B64A = UP + LOW + DIG + '+/'
B64U = UP + LOW + DIG + '-_'
AK32 = UP + '234567'
CROCK = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
PUNCT = '!#%*+-=?@^_.,:~'

MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep',
          'Oct', 'Nov', 'Dec']
DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']

# ---------------------------------------------------------------------------
# registry of every random value (secrets and look-alikes alike)
# ---------------------------------------------------------------------------
REG = set()


def fresh(fn):
    for _ in range(2000):
        v = fn()
        if len(v) < 6:
            return v
        if v not in REG:
            REG.add(v)
            return v
    raise RuntimeError('registry refuses repeats forever')


def rs(alpha, n):
    return ''.join(R.choice(alpha) for _ in range(n))


def U(alpha, n):
    return fresh(lambda: rs(alpha, n))


def hx(n):
    return U(HEXD, n)


def HX(n):
    return U(HEXU, n)


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b64e(b):
    return base64.b64encode(b).decode()


def b64u(b):
    return base64.urlsafe_b64encode(b).decode().rstrip('=')


def uuid4():
    def f():
        h = rs(HEXD, 32)
        h = h[:12] + '4' + h[13:16] + R.choice('89ab') + h[17:]
        return '%s-%s-%s-%s-%s' % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    return fresh(f)


def ulid():
    return fresh(lambda: '01H' + rs(CROCK, 23))


def digits(n):
    return fresh(lambda: R.choice('123456789') + rs(DIG, n - 1))


def addr(prefix='0x7f'):
    return fresh(lambda: prefix + rs(HEXD, 10))


def ip_priv():
    return '10.%d.%d.%d' % (R.randint(0, 9), R.randint(0, 254), R.randint(2, 250))


def ip_pub():
    return R.choice(['203.0.113.', '198.51.100.', '192.0.2.']) + str(R.randint(2, 250))


def port():
    return R.randint(32768, 60999)


def pick(seq):
    return R.choice(seq)


def chance(p):
    return R.random() < p


# ---------------------------------------------------------------------------
# secrets at their real formats
# ---------------------------------------------------------------------------
def b62enc(n, width):
    s = ''
    while n:
        n, r = divmod(n, 62)
        s = B62[r] + s
    return s.rjust(width, '0')


def gh(prefix='ghp_'):
    def f():
        body = rs(ALNUM, 30)
        return prefix + body + b62enc(zlib.crc32(body.encode()), 6)
    return fresh(f)


def gh_pat():
    return fresh(lambda: 'github_pat_11' + rs(UP + DIG, 20) + '_' + rs(ALNUM, 59))


def glpat():
    return fresh(lambda: 'glpat-' + rs(ALNUM + '-_', 20))


def akid(p='AKIA'):
    return fresh(lambda: p + rs(AK32, 16))


def aws_sk():
    return fresh(lambda: rs(ALNUM + '/+', 40))


def aws_st():
    return fresh(lambda: 'IQoJb3JpZ2luX2Vj' + rs('EFGHIJ', 1) + rs(ALNUM, 2)
                 + '//////////wEaCXVzLWVhc3QtMSJHMEUCI' + rs('QH', 1)
                 + rs(B64A, R.randint(520, 640)) + rs(ALNUM, 2) + '=')


def sk_live(kind='sk_live_'):
    return fresh(lambda: kind + '51' + rs(ALNUM, 97))


def whsec():
    return fresh(lambda: 'whsec_' + rs(ALNUM, 32))


def openai_key():
    return fresh(lambda: 'sk-proj-' + rs(B64U, 74) + 'T3BlbkFJ' + rs(B64U, 74))


def anthropic_key():
    return fresh(lambda: 'sk-ant-api03-' + rs(B64U, 93) + 'AA')


def sendgrid():
    return fresh(lambda: 'SG.' + rs(B64U, 22) + '.' + rs(B64U, 43))


def slack_bot():
    return fresh(lambda: 'xoxb-%s-%s-%s' % (digits(11), digits(13), rs(ALNUM, 24)))


def slack_user():
    return fresh(lambda: 'xoxp-%s-%s-%s-%s' % (digits(11), digits(11), digits(13), rs(HEXD, 32)))


def hvs():
    return fresh(lambda: 'hvs.CAESI' + rs(B64U, 86))


def gcp_key():
    return fresh(lambda: 'AIzaSy' + rs(B64U, 33))


def ya29():
    return fresh(lambda: 'ya29.a0A' + rs(B64U, R.randint(160, 200)))


def refresh1():
    return fresh(lambda: '1//0' + rs(LOW, 1) + rs(ALNUM + '-_', 98))


def gocspx():
    return fresh(lambda: 'GOCSPX-' + rs(ALNUM + '-_', 28))


def hf_tok():
    return fresh(lambda: 'hf_' + rs(UP + LOW, 34))


def shpat():
    return fresh(lambda: 'shpat_' + rs(HEXD, 32))


def lin_api():
    return fresh(lambda: 'lin_api_' + rs(ALNUM, 40))


def ntn():
    return fresh(lambda: 'ntn_' + rs(DIG, 12) + rs(ALNUM, 34))


def hubspot_pat():
    return fresh(lambda: 'pat-na1-' + uuid4())


def airtable_pat():
    return fresh(lambda: 'pat' + rs(ALNUM, 14) + '.' + rs(HEXD, 64))


def mailgun_key():
    return fresh(lambda: rs(HEXD, 32) + '-' + rs(HEXD, 8) + '-' + rs(HEXD, 8))


def adyen_key():
    return fresh(lambda: 'AQE' + rs(ALNUM, 2) + 'mfx' + rs(ALNUM + '+/', 72) + '=-'
                 + rs(ALNUM + '+/', 43) + '=-' + rs(ALNUM, 12))


def discord_bot():
    def f():
        sid = str(R.randint(10 ** 17, 10 ** 18 - 1))
        return b64e(sid.encode()).rstrip('=') + '.' + rs(B64U, 6) + '.' + rs(B64U, 38)
    return fresh(f)


def telegram_bot():
    return fresh(lambda: '%d:AA%s' % (R.randint(10 ** 9, 8 * 10 ** 9), rs(B64U, 33)))


def nrak():
    return fresh(lambda: 'NRAK-' + rs(UP + DIG, 27))


def doppler_tok():
    return fresh(lambda: 'dp.st.prd.' + rs(ALNUM, 43))


def dop_v1():
    return fresh(lambda: 'dop_v1_' + rs(HEXD, 64))


def dckr_pat():
    return fresh(lambda: 'dckr_pat_' + rs(ALNUM + '-_', 27))


def okta_tok():
    return fresh(lambda: '00' + rs(ALNUM + '-_', 40))


def sso_access_token():
    return fresh(lambda: 'aoa' + rs(ALNUM, 2) + 'AAAAAG' + rs(B64A, 250) + ':' + 'MGUCM' + rs(B64A, 123))


def django_secret():
    return fresh(lambda: rs(LOW + DIG + '!@#%^&*(-_=+)', 50))


def laravel_remember():
    return fresh(lambda: rs(ALNUM, 60))


def jwt(payload, header=None, sig_len=342):
    if header is None:
        header = {'alg': 'RS256', 'typ': 'JWT', 'kid': hx(16)}
    h = b64u(json.dumps(header, separators=(',', ':')).encode())
    p = b64u(json.dumps(payload, separators=(',', ':')).encode())
    return fresh(lambda: h + '.' + p + '.' + rs(B64U, sig_len))


WORDS = ['summer', 'winter', 'autumn', 'spring', 'falcon', 'harbor', 'orange',
         'dragon', 'monkey', 'sunshine', 'rainbow', 'coffee', 'pickle', 'tiger',
         'purple', 'silver', 'rocket', 'mango', 'pepper', 'maple', 'cobalt',
         'lantern', 'garden', 'thunder', 'velvet', 'copper', 'meadow', 'canyon',
         'walrus', 'ember', 'glacier', 'pixel', 'nebula', 'quartz', 'willow',
         'horse', 'battery', 'staple', 'correct', 'banjo', 'cactus', 'pirate',
         'biscuit', 'tundra', 'marble', 'hazel', 'lemon', 'otter', 'raven',
         'saffron', 'tango', 'violet', 'zephyr', 'anchor', 'basil', 'cedar',
         'delta', 'echo', 'fjord', 'gopher', 'island', 'jasper', 'kernel',
         'lobster', 'mosaic', 'noodle', 'oyster', 'paprika', 'quill', 'river',
         'shadow', 'tractor', 'umber', 'vortex', 'wombat', 'yonder', 'zucchini',
         'bramble', 'crimson', 'dolphin', 'emerald', 'flannel', 'granite']
NAMES = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi',
         'ivan', 'judy', 'mallory', 'niaj', 'oscar', 'peggy', 'rupert',
         'sybil', 'trent', 'victor', 'walter', 'yuki', 'mei', 'raj', 'ana']


def cap(w):
    return w[0].upper() + w[1:]


def pw_human():
    def f():
        k = R.randint(0, 6)
        w1, w2, w3, w4 = (pick(WORDS) for _ in range(4))
        if k == 0:
            return cap(w1) + str(R.randint(2019, 2025)) + pick('!#$@*?.')
        if k == 1:
            return '-'.join([w1, w2, w3, w4])
        if k == 2:
            return cap(w1) + cap(w2) + str(R.randint(10, 9999)) + pick('!#@*?')
        if k == 3:
            return w1 + '.' + w2 + '.' + str(R.randint(10, 99))
        if k == 4:
            return pick(NAMES) + '@' + str(R.randint(1000, 99999))
        if k == 5:
            return cap(w1) + '_' + cap(w2) + '#' + str(R.randint(10, 999))
        return cap(w1) + str(R.randint(1, 99)) + cap(w2) + pick('!?*')
    return fresh(f)


def pw_gen(n=None, punct=PUNCT):
    n = n or pick([12, 14, 16, 18, 20, 24, 28, 32])

    def f():
        while True:
            s = rs(ALNUM + punct, n)
            if (any(c in UP for c in s) and any(c in LOW for c in s)
                    and any(c in DIG for c in s) and s[0] not in punct and s[-1] not in punct):
                return s
    return fresh(f)


def pw_alnum(n=None):
    return U(ALNUM, n or pick([16, 20, 24, 32]))


def pw_any(safe=False):
    k = R.randint(0, 4)
    if k <= 1:
        p = pw_human()
        if safe and any(c in p for c in '@:/?#%'):
            return pw_alnum()
        return p
    if k == 2:
        return pw_gen(punct='-_.~' if safe else PUNCT)
    if k == 3:
        return pw_alnum()
    return hx(pick([24, 32, 40]))


# --- DER / PEM --------------------------------------------------------------
def der_len(n):
    if n < 128:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, 'big')
    return bytes([0x80 | len(b)]) + b


def der(tag, content):
    return bytes([tag]) + der_len(len(content)) + content


def der_int(b):
    b = b.lstrip(b'\0') or b'\0'
    if b[0] & 0x80:
        b = b'\0' + b
    return der(0x02, b)


def rint(n, top=True, odd=False):
    b = bytearray(rbytes(n))
    if top:
        b[0] |= 0xC0
    if odd:
        b[-1] |= 1
    return bytes(b)


def rsa_der(bits):
    nb, hb = bits // 8, bits // 16
    parts = [b'\0', rint(nb, odd=True), (65537).to_bytes(3, 'big'), rint(nb, top=False),
             rint(hb, odd=True), rint(hb, odd=True), rint(hb, top=False),
             rint(hb, top=False), rint(hb, top=False)]
    return der(0x30, b''.join(der_int(x) for x in parts))


def pkcs8_rsa(bits):
    alg = der(0x30, der(0x06, bytes.fromhex('2a864886f70d010101')) + b'\x05\x00')
    return der(0x30, der_int(b'\0') + alg + der(0x04, rsa_der(bits)))


def ec_sec1():
    return der(0x30, der_int(b'\x01') + der(0x04, rbytes(32))
               + der(0xa0, der(0x06, bytes.fromhex('2a8648ce3d030107')))
               + der(0xa1, der(0x03, b'\x00\x04' + rbytes(64))))


def pkcs8_ed25519():
    return bytes.fromhex('302e020100300506032b657004220420') + rbytes(32)


class Pem:
    def __init__(self, label, body):
        self.label = label
        b = b64e(body)
        assert b not in REG
        REG.add(b)
        self.lines = [b[i:i + 64] for i in range(0, len(b), 64)]
        for ln in self.lines:
            if len(ln) >= 8:
                assert ln not in REG or ln == b
                REG.add(ln)

    @property
    def begin(self):
        return '-----BEGIN %s-----' % self.label

    @property
    def end(self):
        return '-----END %s-----' % self.label

    def contig(self):
        """one span from BEGIN to the end of the END line"""
        ls = [self.begin] + self.lines + [self.end]
        ls[0] = '«' + ls[0]
        ls[-1] = ls[-1] + '»'
        return ls

    def perline(self, indent=''):
        return [indent + self.begin] + [indent + '«' + l + '»' for l in self.lines] + [indent + self.end]

    def escaped(self, nl='\\n'):
        """inside a one-line string: the \\n escapes inside, the trailing one outside"""
        return '«' + nl.join([self.begin] + self.lines + [self.end]) + '»' + nl

    def plain_lines(self):
        return [self.begin] + self.lines + [self.end]


def rsa_key(bits=None, pkcs1=False):
    bits = bits or pick([2048, 2048, 3072])
    if pkcs1:
        return Pem('RSA PRIVATE KEY', rsa_der(bits))
    return Pem('PRIVATE KEY', pkcs8_rsa(bits))


def ec_key():
    return Pem('EC PRIVATE KEY', ec_sec1())


def ed_key():
    return Pem('PRIVATE KEY', pkcs8_ed25519())


def cert_pem_lines(n=None):
    """a public certificate body (look-alike): starts MII.. like a real one"""
    n = n or R.randint(14, 20)
    raw = der(0x30, der(0x30, rbytes(48 * n - 30)))
    b = b64e(raw)
    REG.add(b)
    return ['-----BEGIN CERTIFICATE-----'] + [b[i:i + 64] for i in range(0, len(b), 64)] + ['-----END CERTIFICATE-----']


# ---------------------------------------------------------------------------
# marks
# ---------------------------------------------------------------------------
def M(s):
    return '«' + s + '»'


def unmark(s):
    plain, flags, inside = [], [], False
    for ch in s:
        if ch == '«':
            inside = True
            continue
        if ch == '»':
            inside = False
            continue
        plain.append(ch)
        flags.append(inside)
    return ''.join(plain), flags


def remark(chars, flags):
    out, inside = [], False
    for ch, f in zip(chars, flags):
        if f and not inside:
            out.append('«')
            inside = True
        if not f and inside:
            out.append('»')
            inside = False
        out.append(ch)
    if inside:
        out.append('»')
    return ''.join(out)


def strip_marks(s):
    return s.replace('«', '').replace('»', '')


def balanced(line):
    d = 0
    for ch in line:
        if ch == '«':
            if d:
                return False
            d = 1
        elif ch == '»':
            if not d:
                return False
            d = 0
    return d == 0


# ---------------------------------------------------------------------------
# display width
# ---------------------------------------------------------------------------
def cw(ch):
    if ch in '«»':
        return 0
    if unicodedata.combining(ch) or unicodedata.category(ch) in ('Mn', 'Me', 'Cf'):
        return 0
    if unicodedata.east_asian_width(ch) in ('W', 'F'):
        return 2
    return 1


def dw(s):
    return sum(cw(c) for c in s)


def expand_tabs(line, ts=8):
    out, col = [], 0
    for ch in line:
        if ch == '\t':
            n = ts - col % ts
            out.append(' ' * n)
            col += n
        else:
            out.append(ch)
            col += cw(ch)
    return ''.join(out)


# ---------------------------------------------------------------------------
# clock
# ---------------------------------------------------------------------------
class Clock:
    def __init__(self):
        self.t = datetime(2024 + R.randint(0, 1), R.randint(1, 12), R.randint(1, 28),
                          R.randint(0, 23), R.randint(0, 59), R.randint(0, 59),
                          R.randint(0, 999999))

    def tick(self, lo=0.001, hi=1.5):
        self.t += timedelta(microseconds=int(R.uniform(lo, hi) * 1e6))
        return self.t


def iso(t, frac=3, z='Z'):
    s = '%04d-%02d-%02dT%02d:%02d:%02d' % (t.year, t.month, t.day, t.hour, t.minute, t.second)
    if frac:
        s += '.' + ('%06d' % t.microsecond)[:frac]
    return s + z


def sp(t, frac=3):
    s = '%04d-%02d-%02d %02d:%02d:%02d' % (t.year, t.month, t.day, t.hour, t.minute, t.second)
    if frac:
        s += ('.' if frac != 'c' else ',') + ('%06d' % t.microsecond)[:3 if frac == 'c' else frac]
    return s


def hms(t, frac=0):
    s = '%02d:%02d:%02d' % (t.hour, t.minute, t.second)
    if frac:
        s += '.' + ('%06d' % t.microsecond)[:frac]
    return s


def syslog_ts(t):
    return '%s %02d %02d:%02d:%02d' % (MONTHS[t.month - 1], t.day, t.hour, t.minute, t.second)


def clf_ts(t):
    return '%02d/%s/%04d:%02d:%02d:%02d +0000' % (t.day, MONTHS[t.month - 1], t.year, t.hour, t.minute, t.second)


def slash_ts(t):
    return '%04d/%02d/%02d %02d:%02d:%02d' % (t.year, t.month, t.day, t.hour, t.minute, t.second)


def http_date(t):
    return '%s, %02d %s %04d %02d:%02d:%02d GMT' % (DAYS[t.weekday()], t.day, MONTHS[t.month - 1],
                                                  t.year, t.hour, t.minute, t.second)


def epoch(t):
    return (t - datetime(1970, 1, 1)).total_seconds()


def amz_date(t):
    return '%04d%02d%02dT%02d%02d%02dZ' % (t.year, t.month, t.day, t.hour, t.minute, t.second)


# ---------------------------------------------------------------------------
# per-row context and frames
# ---------------------------------------------------------------------------
USERS = ['dev', 'ops', 'sre', 'jmartin', 'akiko', 'pnair', 'lchen', 'mkowalski',
         'tobias', 'renee', 'oncall', 'ubuntu', 'ec2-user', 'deploy', 'sam',
         'hgarcia', 'ykim', 'fmoreau', 'dpatel', 'nora']
HOSTS = ['build-07', 'ip-10-0-1-23', 'prod-api-3', 'worker-2', 'bastion',
         'mbp-jm', 'dev-box', 'ci-runner-14', 'edge-lb-1', 'db-proxy-2',
         'k8s-node-5', 'ingest-1', 'jump-eu', 'staging-app', 'ws-4471']
ORGS = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'piedpiper', 'vandelay',
        'wonka', 'tyrell', 'cyberdyne', 'stark', 'wayne', 'oscorp', 'soylent',
        'nakatomi', 'dunder', 'bluth', 'prestige', 'gringotts', 'monarch']
TLDS = ['io', 'dev', 'com', 'net', 'app', 'cloud']
PROJECTS = ['billing-api', 'checkout', 'ingest', 'notifier', 'gateway', 'ledger',
            'search-svc', 'payments', 'reports', 'auth-svc', 'crm-sync', 'orders',
            'media-worker', 'webhooks', 'scheduler', 'inventory', 'exporter']
BRANCHES = ['main', 'fix/prod-401s', 'incident/INC-%d' % 0, 'hotfix/redis-auth',
            'debug/http-logging', 'chore/rotate-keys', 'feat/retry-backoff',
            'fix/oom-worker', 'release/2024.05']
VENVS = ['.venv', 'venv', 'env']


class Ctx:
    def __init__(self, rid, long, forbid=()):
        self.rid = rid
        self.long = long
        self.user = pick(USERS)
        self.host = pick(HOSTS)
        self.org = pick(ORGS)
        self.domain = self.org + '.' + pick(TLDS)
        self.project = pick(PROJECTS)
        br = pick(BRANCHES)
        if 'INC-' in br:
            br = 'incident/INC-%d' % R.randint(1000, 9999)
        self.branch = br
        self.venv = pick(VENVS)
        self.home = '/root' if self.user == 'root' else '/home/' + self.user
        self.cwd = pick(['~/' + self.project, '~/src/' + self.project, '/srv/' + self.project,
                         '~/work/' + self.org + '/' + self.project])
        self.abscwd = self.cwd.replace('~', self.home)
        styles = ['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']
        styles = [s for s in styles if s not in forbid]
        self.style = pick(styles)
        self.pstyle = pick(['bash', 'omz', 'starship', 'bracket', 'venv', 'zsh', 'bare', 'root'])
        self.clock = Clock()
        self.lang = pick(['py', 'node', 'go'])

    # does output of a Bash step get a per-line prefix?
    def pre(self):
        return self.style in ('claude', 'codex_ran', 'gemini')

    def base(self):
        return self.cwd.rstrip('/').split('/')[-1]

    def svc(self):
        return self.project

    def host_fqdn(self, sub):
        return '%s.%s' % (sub, self.domain)


def prompt_lines(ctx, cmd):
    s = ctx.pstyle
    if s == 'bash':
        return ['%s@%s:%s$ %s' % (ctx.user, ctx.host, ctx.cwd, cmd)]
    if s == 'omz':
        return ['➜  %s git:(%s) %s%s' % (ctx.base(), ctx.branch, pick(['✗ ', '']), cmd)]
    if s == 'starship':
        via = {'py': '🐍 v3.11.9 (%s)' % ctx.venv, 'node': '⬢ v20.12.2', 'go': '🐹 v1.22.3'}[ctx.lang]
        return ['%s on  %s via %s' % (ctx.base(), ctx.branch, via), '❯ ' + cmd]
    if s == 'bracket':
        return ['[%s@%s %s]$ %s' % (ctx.user, ctx.host, ctx.base(), cmd)]
    if s == 'venv':
        return ['(%s) %s@%s:%s$ %s' % (ctx.venv, ctx.user, ctx.host, ctx.cwd, cmd)]
    if s == 'zsh':
        return ['%s %% %s' % (ctx.base(), cmd)]
    if s == 'root':
        return ['root@%s:%s# %s' % (ctx.host, ctx.cwd.replace('~', '/root'), cmd)]
    return ['$ ' + cmd]


def check_prefixed(lines):
    for ln in lines:
        assert balanced(ln), 'mark crosses a line prefix: %r' % ln


def claude_bash(cmd, out):
    check_prefixed(out)
    res = ['⏺ Bash(%s)' % cmd]
    if not out:
        return res + ['  ⎿  (No content)']
    res.append('  ⎿  ' + out[0])
    res += ['     ' + l for l in out[1:]]
    return res


def gemini_shell(cmd, out, desc):
    lines = [expand_tabs(l) for l in out]
    head = '✔  Shell %s%s' % (cmd, (' (%s)' % desc) if desc else '')
    w = max([dw(head)] + [dw(l) for l in lines])
    if w > 150:
        return None
    check_prefixed(lines)
    w = max(w, 60)
    res = ['╭' + '─' * (w + 2) + '╮', '│ ' + head + ' ' * (w - dw(head)) + ' │',
           '│ ' + ' ' * w + ' │']
    for l in lines:
        res.append('│ ' + l + ' ' * (w - dw(l)) + ' │')
    res.append('╰' + '─' * (w + 2) + '╯')
    return res


def codex_exec(ctx, cmd, out, rc=0):
    q = cmd.replace("'", "'\"'\"'")
    ms = R.randint(8, 2400)
    st = ' succeeded in %dms:' % ms if rc == 0 else ' exited %d in %dms:' % (rc, ms)
    return ['exec', "bash -lc '%s' in %s" % (q, ctx.abscwd), st] + out


def codex_ran(cmd, out):
    check_prefixed(out)
    res = ['• Ran ' + cmd]
    if not out:
        return res + ['  └ (no output)']
    res.append('  └ ' + out[0])
    res += ['    ' + l for l in out[1:]]
    return res


def read_tool(path, lines, start=1):
    check_prefixed(lines)
    res = ['⏺ Read(%s)' % path]
    for i, l in enumerate(lines):
        res.append('%6d→%s' % (start + i, l))
    return res


NOTES_CLAUDE = ['⏺ ', '⏺ ']


def step(ctx, cmd, out, desc='', rc=0):
    """render one shell step in the row's frame"""
    st = ctx.style
    if st == 'prompt':
        return prompt_lines(ctx, cmd) + out
    if st == 'claude':
        return claude_bash(cmd, out)
    if st == 'codex_exec':
        return codex_exec(ctx, cmd, out, rc)
    if st == 'codex_ran':
        return codex_ran(cmd, out)
    g = gemini_shell(cmd, out, desc)
    if g is None:
        return claude_bash(cmd, out)
    return g


def note(ctx, text):
    st = ctx.style
    if st == 'prompt':
        return []
    if st == 'claude':
        return ['⏺ ' + text]
    if st in ('codex_exec', 'codex_ran'):
        return ['codex', text]
    return ['✦ ' + text]


def file_step(ctx, path, cmd, out, desc='', start=1):
    """a file read: Claude Code's Read tool in a Claude frame, else the shell command"""
    if ctx.style == 'claude':
        return read_tool(path, out, start)
    return step(ctx, cmd, out, desc)


def join(*parts):
    out = []
    for p in parts:
        if isinstance(p, str):
            out.append(p)
        else:
            out.extend(p)
    return '\n'.join(out)


def render(ctx, *blocks):
    out = []
    for b in blocks:
        if not b:
            continue
        if out and ctx.style != 'prompt':
            out.append('')
        out.extend(b)
    if ctx.style == 'prompt' and chance(0.4):
        out += prompt_lines(ctx, '')[-1:]
        out[-1] = out[-1].rstrip()
    if ctx.style == 'gemini' and not any(l.startswith('╭') for l in out):
        # every box fell back to the Claude frame: the note follows it
        out = ['⏺ ' + l[2:] if l.startswith('✦ ') else l for l in out]
    return '\n'.join(out)


# ---------------------------------------------------------------------------
# shared look-alike pieces
# ---------------------------------------------------------------------------
UA_PY = ['python-requests/2.31.0', 'python-httpx/0.27.0', 'aiohttp/3.9.5', 'Python-urllib/3.11']
UA_GO = ['Go-http-client/1.1', 'Go-http-client/2.0']
UA_NODE = ['axios/1.6.8', 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)', 'undici']
ERR_CODES = ['ECONNRESET', 'ETIMEDOUT', 'ECONNREFUSED', 'EAI_AGAIN', 'EPIPE']
PATHS = ['/v1/orders', '/v1/orders/{id}', '/v2/customers', '/api/v1/invoices', '/healthz',
         '/v1/sessions', '/internal/sync', '/v1/exports', '/metrics', '/v1/webhooks/stripe',
         '/api/items', '/v3/search', '/v1/payments/{id}/capture', '/readyz']
JP = ['ユーザー', '請求書', '注文', '支払い', '在庫', '顧客', '東京', '大阪']
CN = ['订单', '用户', '支付失败', '库存', '客户', '北京', '上海']
PEOPLE = ['Zoë Müller', 'José Álvarez', 'Renée Dubois', '田中 太郎', '王 芳', 'Søren Kierkegård',
          'Łukasz Nowak', 'Ngô Bảo Châu', 'Ana Lúcia', 'Jose\u0301 Pe\u0301rez', '김민준', 'Siobhán Ó Briain']


HUMAN_MSGS = ['ユーザー登録完了', '注文 #{n} を処理しました', '支払い失敗: カードが拒否されました', '订单 {n} 已发货', '库存同步完成',
              '✅ export finished ({n} rows)', '🚨 retry budget exhausted', '⚠️ slow query {n}ms', '🔁 requeued job {n}',
              'Zoë Müller updated profile', 'Jose\u0301 Pe\u0301rez placed order {n}', '김민준 logged in', 'Ngô Bảo Châu exported report']


def human_msg():
    return pick(HUMAN_MSGS).replace('{n}', str(R.randint(10, 99999)))


def psql_table(header, rows, unicode_style=False):
    """psql aligned output; rows hold strings that may carry marks"""
    w = [max([len(header[i])] + [len(strip_marks(r[i])) for r in rows]) for i in range(len(header))]
    last = len(header) - 1

    def cell(v, i, right=False):
        pad = w[i] - len(strip_marks(v))
        if i == last and not unicode_style:
            return v
        return (' ' * pad + v) if right else (v + ' ' * pad)
    if not unicode_style:
        out = [' ' + ' | '.join(h.center(w[i]) if i != last else h.center(w[i]).rstrip() for i, h in enumerate(header)),
               '-' + '-+-'.join('-' * w[i] for i in range(len(header))) + '-']
        for r in rows:
            out.append(' ' + ' | '.join(cell(v, i, v.lstrip('-').isdigit()) for i, v in enumerate(r)))
        return out
    out = ['┌─' + '─┬─'.join('─' * w[i] for i in range(len(header))) + '─┐',
           '│ ' + ' │ '.join(h.center(w[i]) for i, h in enumerate(header)) + ' │',
           '├─' + '─┼─'.join('─' * w[i] for i in range(len(header))) + '─┤']
    for r in rows:
        out.append('│ ' + ' │ '.join(cell(v, i, v.lstrip('-').isdigit()) for i, v in enumerate(r)) + ' │')
    out.append('└─' + '─┴─'.join('─' * w[i] for i in range(len(header))) + '─┘')
    return out


def rpath():
    p = pick(PATHS)
    return p.replace('{id}', str(R.randint(1000, 999999)))


def sha256hex(s):
    return hashlib.sha256(s.encode()).hexdigest()


def trace_id():
    return hx(32)


def span_id():
    return hx(16)


def traceparent():
    return '00-%s-%s-01' % (trace_id(), span_id())


def amzn_trace():
    return 'Root=1-%s-%s' % (hx(8), hx(24))


def cf_ray():
    return hx(16) + '-' + pick(['SJC', 'IAD', 'FRA', 'NRT', 'AMS', 'LHR', 'SIN'])


def amz_req_id():
    return HX(16)


def amz_id2():
    return fresh(lambda: b64e(rbytes(57)))


def etag():
    return '"%s"' % hx(32)


def gitsha():
    return hx(40)


def container_id():
    return hx(64)


def digest():
    return 'sha256:' + hx(64)


def addr_py():
    return '0x7f' + U(HEXD, 10)


def dd_trace():
    return str(R.randint(10 ** 18, 9 * 10 ** 18))


def objid():
    return hx(24)


# ---------------------------------------------------------------------------
# P: HTTP client debug logs
# ---------------------------------------------------------------------------
BOTO_HOOKS = [
    'Event choose-service-name: calling handler <function handle_service_name_alias at {a}>',
    'Event creating-client-class.{svc}: calling handler <function add_generate_presigned_url at {a}>',
    'Event creating-client-class.{svc}: calling handler <function lazy_call.<locals>._handler at {a}>',
    'Event before-parameter-build.{svc}.{op}: calling handler <function generate_idempotent_uuid at {a}>',
    'Event before-parameter-build.{svc}.{op}: calling handler <function validate_bucket_name at {a}>',
    'Event before-endpoint-resolution.{svc}: calling handler <function customize_endpoint_resolver_builtins at {a}>',
    'Event before-call.{svc}.{op}: calling handler <function add_recursion_detection_header at {a}>',
    'Event before-call.{svc}.{op}: calling handler <function inject_api_version_header_if_needed at {a}>',
    'Event request-created.{svc}.{op}: calling handler <bound method RequestSigner.handler of <botocore.signers.RequestSigner object at {a}>>',
    'Event choose-signer.{svc}.{op}: calling handler <function set_operation_specific_signer at {a}>',
    'Event before-sign.{svc}.{op}: calling handler <function remove_arn_from_signing_path at {a}>',
    'Event needs-retry.{svc}.{op}: calling handler <botocore.retryhandler.RetryHandler object at {a}>',
    'Event after-call.{svc}.{op}: calling handler <function enhance_error_msg at {a}>',
    'Event after-call.{svc}.{op}: calling handler <function json_decode_policies at {a}>',
]
BOTO_FILES = ['endpoints.json', 'sdk-default-configuration.json', 'partitions.json',
              '{svc}/{ver}/service-2.json.gz', '{svc}/{ver}/endpoint-rule-set-1.json.gz',
              '_retry.json']


def boto_ops(ctx):
    k = R.randint(0, 2)
    if k == 0:
        b = ctx.org + '-' + pick(['exports', 'backups', 'invoices', 'ml-artifacts', 'audit-logs'])
        key = pick(['reports/2024-%02d.csv' % R.randint(1, 12), 'dumps/orders-%d.sql.gz' % R.randint(100, 999),
                    'models/ranker-v%d/model.tar.gz' % R.randint(2, 9)])
        return dict(svc='s3', ver='2006-03-01', op='GetObject', method='GET', host='%s.s3.amazonaws.com' % b,
                    path='/' + key, target=None, body='', ctype=None)
    if k == 1:
        sid = 'prod/%s/%s' % (ctx.project, pick(['db', 'stripe', 'smtp', 'api-keys']))
        return dict(svc='secretsmanager', ver='2017-10-17', op='GetSecretValue', method='POST',
                    host='secretsmanager.us-east-1.amazonaws.com', path='/',
                    target='secretsmanager.GetSecretValue', body='{"SecretId": "%s"}' % sid,
                    ctype='application/x-amz-json-1.1', sid=sid)
    tbl = pick(['sessions', 'idempotency', 'feature-flags', 'rate-limits'])
    return dict(svc='dynamodb', ver='2012-08-10', op='GetItem', method='POST',
                host='dynamodb.us-east-1.amazonaws.com', path='/', target='DynamoDB_20120810.GetItem',
                body='{"TableName": "%s", "Key": {"pk": {"S": "acct#%d"}}}' % (tbl, R.randint(100, 99999)),
                ctype='application/x-amz-json-1.0')


def sigv4_lines(ctx, L, o, ak, token, ua):
    """botocore.auth debug block; token is None or already-marked"""
    t = ctx.clock.t
    ad = amz_date(t)
    day = ad[:8]
    ph = sha256hex(o['body'])
    hdrs = []
    if o['ctype']:
        hdrs.append(('content-type', o['ctype']))
    hdrs.append(('host', o['host']))
    if o['svc'] == 's3':
        hdrs.append(('x-amz-content-sha256', ph))
    hdrs.append(('x-amz-date', ad))
    if token:
        hdrs.append(('x-amz-security-token', token))
    if o['target']:
        hdrs.append(('x-amz-target', o['target']))
    signed = ';'.join(h for h, _ in hdrs)
    canon = [o['method'], o['path'], ''] + ['%s:%s' % hv for hv in hdrs] + ['', signed, ph]
    L('botocore.auth', 'DEBUG', 'Calculating signature using v4 auth.')
    L('botocore.auth', 'DEBUG', 'CanonicalRequest:')
    ctx._lines.extend(canon)
    scope = '%s/us-east-1/%s/aws4_request' % (day, o['svc'])
    L('botocore.auth', 'DEBUG', 'StringToSign:')
    ctx._lines.extend(['AWS4-HMAC-SHA256', ad, scope, sha256hex(strip_marks('\n'.join(canon)))])
    sig = hx(64)
    L('botocore.auth', 'DEBUG', 'Signature:')
    ctx._lines.append(sig)
    ph_hdr = []
    if o['target']:
        ph_hdr.append("'X-Amz-Target': b'%s'" % o['target'])
    if o['ctype']:
        ph_hdr.append("'Content-Type': b'%s'" % o['ctype'])
    ph_hdr.append("'User-Agent': b'%s'" % ua)
    ph_hdr.append("'X-Amz-Date': b'%s'" % ad)
    if token:
        ph_hdr.append("'X-Amz-Security-Token': b'%s'" % token)
    if o['svc'] == 's3':
        ph_hdr.append("'X-Amz-Content-SHA256': b'%s'" % ph)
    ph_hdr.append("'Authorization': b'AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s'"
                  % (ak, scope, signed, sig))
    if o['body']:
        ph_hdr.append("'Content-Length': '%d'" % len(o['body']))
    L('botocore.endpoint', 'DEBUG', '<AWSPreparedRequest stream_output=%s, method=%s, url=https://%s%s, headers={%s}>'
      % (o['svc'] == 's3', o['method'], o['host'], o['path'], ', '.join(ph_hdr)), pre='Sending http request: ')


def boto_session(ctx, ak, token, sk=None, secret_value=None, long=False):
    ctx._lines = []
    c = ctx.clock
    lines = ctx._lines

    def L(name, lvl, msg, pre=''):
        lines.append('%s %s [%s] %s%s' % (sp(c.tick(0.0003, 0.03), 'c'), name, lvl, pre, msg))
    o = boto_ops(ctx)
    site = '%s/%s/lib/python3.11/site-packages' % (ctx.abscwd, ctx.venv)
    ua = 'Boto3/1.34.%d md/Botocore#1.34.%d ua/2.0 os/linux#6.5.0-1018-aws md/arch#x86_64 lang/python#3.11.9 md/pyimpl#CPython cfg/retry-mode#legacy Botocore/1.34.%d' % ((R.randint(60, 110),) * 3)
    if token:
        L('botocore.credentials', 'INFO', pick(['Found credentials in environment variables.',
                                               'Found credentials from IAM Role: %s-task-role' % ctx.project,
                                               'Found credentials in shared credentials file: ~/.aws/credentials']))
    else:
        L('botocore.credentials', 'INFO', 'Found credentials in shared credentials file: ~/.aws/credentials')
    files = BOTO_FILES if long else BOTO_FILES[:2]
    for f in files:
        L('botocore.loaders', 'DEBUG', 'Loading JSON file: %s/botocore/data/%s' % (site, f.format(**o)))
    hooks = BOTO_HOOKS if long else []
    for h in hooks[:9]:
        L('botocore.hooks', 'DEBUG', h.format(a=addr_py(), **o))
    L('botocore.regions', 'DEBUG', "Calling endpoint provider with parameters: {'Region': 'us-east-1', 'UseDualStack': False, 'UseFIPS': False}")
    L('botocore.regions', 'DEBUG', 'Endpoint provider result: https://%s' % o['host'])
    params = "{'url_path': '%s', 'query_string': {}, 'method': '%s', 'headers': {%s'User-Agent': '%s'}, 'body': b'%s', 'auth_path': None, 'url': 'https://%s%s', 'context': {'client_region': 'us-east-1', 'has_streaming_input': False, 'auth_type': None}}" % (
        o['path'], o['method'], ("'X-Amz-Target': '%s', 'Content-Type': '%s', " % (o['target'], o['ctype'])) if o['target'] else '',
        ua, o['body'], o['host'], o['path'])
    L('botocore.endpoint', 'DEBUG', 'Making request for OperationModel(name=%s) with params: %s' % (o['op'], params))
    for h in hooks[9:11]:
        L('botocore.hooks', 'DEBUG', h.format(a=addr_py(), **o))
    sigv4_lines(ctx, L, o, ak, token, ua)
    L('botocore.httpsession', 'DEBUG', 'Certificate path: %s/certifi/cacert.pem' % site)
    L('urllib3.connectionpool', 'DEBUG', 'Starting new HTTPS connection (1): %s:443' % o['host'])
    rid = amz_req_id() if o['svc'] == 's3' else uuid4()
    if o['svc'] == 's3':
        status = pick([403, 200, 404])
        L('urllib3.connectionpool', 'DEBUG', 'https://%s:443 "%s %s HTTP/1.1" %d None' % (o['host'], o['method'], o['path'], status))
        id2 = amz_id2()
        L('botocore.parsers', 'DEBUG', "Response headers: {'x-amz-request-id': '%s', 'x-amz-id-2': '%s', 'Content-Type': 'application/xml', 'Transfer-Encoding': 'chunked', 'Date': '%s', 'Server': 'AmazonS3'}" % (rid, id2, http_date(c.t)))
        if status == 200:
            L('botocore.parsers', 'DEBUG', 'Response body:')
            lines.append('<botocore.response.StreamingBody object at %s>' % addr_py())
        else:
            code = 'AccessDenied' if status == 403 else 'NoSuchKey'
            L('botocore.parsers', 'DEBUG', 'Response body:')
            lines.append("b'<?xml version=\"1.0\" encoding=\"UTF-8\"?>\\n<Error><Code>%s</Code><Message>%s</Message><RequestId>%s</RequestId><HostId>%s</HostId></Error>'"
                         % (code, 'Access Denied' if status == 403 else 'The specified key does not exist.', rid, id2))
    else:
        L('urllib3.connectionpool', 'DEBUG', 'https://%s:443 "POST / HTTP/1.1" 200 %d' % (o['host'], R.randint(180, 900)))
        L('botocore.parsers', 'DEBUG', "Response headers: {'x-amzn-RequestId': '%s', 'Content-Type': '%s', 'Content-Length': '%d', 'Date': '%s'}"
          % (rid, o['ctype'], R.randint(180, 900), http_date(c.t)))
        L('botocore.parsers', 'DEBUG', 'Response body:')
        if o['svc'] == 'secretsmanager':
            vid = uuid4()
            arn = 'arn:aws:secretsmanager:us-east-1:%s:secret:%s-%s' % (digits(12), o['sid'], rs(ALNUM, 6))
            if secret_value:
                ss = secret_value
            else:
                ss = '{\\\\"engine\\\\":\\\\"postgres\\\\",\\\\"host\\\\":\\\\"db.internal\\\\",\\\\"password_file\\\\":\\\\"/run/secrets/db\\\\"}'
            lines.append('b\'{"ARN":"%s","CreatedDate":%d.%03d,"Name":"%s","SecretString":"%s","VersionId":"%s","VersionStages":["AWSCURRENT"]}\''
                         % (arn, int(epoch(c.t)) - R.randint(10 ** 5, 10 ** 7), R.randint(0, 999), o['sid'], ss, vid))
        else:
            lines.append('b\'{"Item":{"pk":{"S":"acct#%d"},"plan":{"S":"%s"},"updated_at":{"N":"%d"},"etag":{"S":"%s"}}}\''
                         % (R.randint(100, 99999), pick(['pro', 'team', 'free']), int(epoch(c.t)), hx(32)))
    for h in hooks[11:]:
        L('botocore.hooks', 'DEBUG', h.format(a=addr_py(), **o))
    L('botocore.retryhandler', 'DEBUG', 'No retry needed.')
    return lines, o


def p_boto3_stream_logger_session_token(ctx):
    ak, sk, st = akid('ASIA'), aws_sk(), aws_st()
    sv = None
    if chance(0.5):
        sv = '{\\\\"username\\\\":\\\\"%s\\\\",\\\\"password\\\\":\\\\"%s\\\\"}' % (
            pick(['app', 'billing', 'svc_' + ctx.project.replace('-', '_')]), M(pw_any(safe=True)))
    lines, o = boto_session(ctx, ak, M(st), sv and sk, sv, ctx.long)
    pre = []
    if chance(0.6):
        pre = ["frozen: ReadOnlyCredentials(access_key='%s', secret_key='%s', token='%s')" % (ak, M(sk), M(st))]
    script = pick(['scripts/debug_%s.py' % o['svc'], 'tools/repro_%s.py' % o['op'].lower()])
    cmd = pick(['%s/bin/python %s 2>&1 | head -200' % (ctx.venv, script), 'python %s' % script,
                'AWS_DEFAULT_REGION=us-east-1 python %s 2>&1' % script])
    if not ctx.long:
        lines = [l for l in lines if 'botocore.loaders' not in l]
    return render(ctx, note(ctx, 'Turning on botocore stream logging to see which credentials the worker actually signs with.') if chance(0.5) else [],
                  step(ctx, cmd, pre + lines, 'reproduce with boto3 debug logging'))


def p_aws_cli_debug_sso_role_credentials(ctx):
    c = ctx.clock
    lines = []
    ctx._lines = lines

    def L(name, lvl, msg, pre=''):
        lines.append('%s - MainThread - %s - %s - %s%s' % (sp(c.tick(0.0005, 0.05), 'c'), name, lvl, pre, msg))
    prof = pick(['prod-admin', 'billing-prod', 'sre', 'incident-ro', ctx.org + '-prod'])
    role = pick(['AdministratorAccess', 'PowerUserAccess', 'IncidentResponder', 'ReadOnlyAccess'])
    acct = digits(12)
    sso_tok = sso_access_token()
    ak, sk, st = akid('ASIA'), aws_sk(), aws_st()
    sub = pick(['s3', 'sts'])
    args = ['s3', 'ls'] if sub == 's3' else ['sts', 'get-caller-identity']
    ua = 'aws-cli/2.15.%d md/awscrt#0.19.19 ua/2.0 os/linux#6.5.0-1018-aws md/arch#x86_64 lang/python#3.11.8 md/pyimpl#CPython cfg/retry-mode#standard md/installer#exe md/distrib#ubuntu.22 md/prompt#off md/command#%s.%s' % (R.randint(20, 45), args[0], args[1])
    L('awscli.clidriver', 'DEBUG', 'CLI version: aws-cli/2.15.%d Python/3.11.8 Linux/6.5.0-1018-aws exe/x86_64.ubuntu.22' % R.randint(20, 45))
    L('awscli.clidriver', 'DEBUG', 'Arguments entered to CLI: %r' % (args + ['--profile', prof, '--debug']))
    if ctx.long:
        for ev in ['session-initialized', 'building-command-table.main', 'building-argument-table.%s.%s' % tuple(args),
                   'process-cli-arg.%s.%s' % tuple(args), 'load-cli-arg.%s.%s.profile' % tuple(args)]:
            for fn in R.sample(['add_scalar_parsers', 'register_uri_param_handler', 'inject_assume_role_provider_cache',
                                'add_waiters', 'add_generate_presigned_url', 'register_s3_commands', 'add_paging_description',
                                'uri_param', 'add_streaming_output_arg', 'add_cli_input_json'], 2):
                L('botocore.hooks', 'DEBUG', 'Event %s: calling handler <function %s at %s>' % (ev, fn, addr_py()))
    for via in (['env', 'assume-role', 'assume-role-with-web-identity', 'sso'] if ctx.long else ['sso']):
        L('botocore.credentials', 'DEBUG', 'Looking for credentials via: %s' % via)
    url = 'https://portal.sso.us-east-1.amazonaws.com/federation/credentials?role_name=%s&account_id=%s' % (role, acct)
    L('botocore.endpoint', 'DEBUG', "Making request for OperationModel(name=GetRoleCredentials) with params: {'url_path': '/federation/credentials', 'query_string': {'role_name': '%s', 'account_id': '%s'}, 'method': 'GET', 'headers': {'x-amz-sso_bearer_token': '%s', 'User-Agent': '%s'}, 'body': b'', 'auth_path': '/federation/credentials', 'url': '%s', 'context': {'client_region': 'us-east-1', 'has_streaming_input': False, 'auth_type': 'none'}}"
      % (role, acct, M(sso_tok), ua, url))
    if ctx.long:
        L('botocore.hooks', 'DEBUG', 'Event request-created.sso.GetRoleCredentials: calling handler <bound method RequestSigner.handler of <botocore.signers.RequestSigner object at %s>>' % addr_py())
        L('botocore.hooks', 'DEBUG', 'Event choose-signer.sso.GetRoleCredentials: calling handler <function set_operation_specific_signer at %s>' % addr_py())
    L('botocore.endpoint', 'DEBUG', "<AWSPreparedRequest stream_output=False, method=GET, url=%s, headers={'x-amz-sso_bearer_token': b'%s', 'User-Agent': b'%s'}>" % (url, M(sso_tok), ua), pre='Sending http request: ')
    L('urllib3.connectionpool', 'DEBUG', 'Starting new HTTPS connection (1): portal.sso.us-east-1.amazonaws.com:443')
    n = R.randint(1100, 1300)
    L('urllib3.connectionpool', 'DEBUG', 'https://portal.sso.us-east-1.amazonaws.com:443 "GET /federation/credentials?role_name=%s&account_id=%s HTTP/1.1" 200 %d' % (role, acct, n))
    rid = uuid4()
    L('botocore.parsers', 'DEBUG', "Response headers: {'Date': '%s', 'Content-Type': 'application/json', 'Content-Length': '%d', 'Connection': 'keep-alive', 'x-amzn-RequestId': '%s', 'Access-Control-Expose-Headers': 'RequestId', 'Cache-Control': 'no-cache', 'RequestId': '%s'}" % (http_date(c.t), n, rid, rid))
    L('botocore.parsers', 'DEBUG', 'Response body:')
    lines.append('b\'{"roleCredentials":{"accessKeyId":"%s","secretAccessKey":"%s","sessionToken":"%s","expiration":%d000}}\''
                 % (ak, M(sk), M(st), int(epoch(c.t)) + 3600))
    L('botocore.credentials', 'DEBUG', 'Retrieved credentials will expire at: %s+00:00' % sp(c.t + timedelta(hours=1), 0))
    if sub == 's3':
        o = dict(svc='s3', ver='2006-03-01', op='ListBuckets', method='GET', host='s3.us-east-1.amazonaws.com', path='/',
                 target=None, body='', ctype=None)
    else:
        o = dict(svc='sts', ver='2011-06-15', op='GetCallerIdentity', method='POST', host='sts.us-east-1.amazonaws.com',
                 path='/', target=None, body='Action=GetCallerIdentity&Version=2011-06-15',
                 ctype='application/x-www-form-urlencoded; charset=utf-8')
    L('botocore.endpoint', 'DEBUG', 'Making request for OperationModel(name=%s) with params: {...}' % o['op'])
    sigv4_lines(ctx, L, o, ak, M(st), ua)
    L('urllib3.connectionpool', 'DEBUG', 'Starting new HTTPS connection (1): %s:443' % o['host'])
    L('urllib3.connectionpool', 'DEBUG', 'https://%s:443 "%s / HTTP/1.1" 200 None' % (o['host'], o['method']))
    L('botocore.parsers', 'DEBUG', "Response headers: {'x-amz-request-id': '%s', 'x-amz-id-2': '%s', 'Content-Type': '%s', 'Date': '%s'}" % (amz_req_id(), amz_id2(), 'application/xml' if sub == 's3' else 'text/xml', http_date(c.t)))
    L('botocore.parsers', 'DEBUG', 'Response body:')
    if sub == 's3':
        lines.append("b'<?xml version=\"1.0\" encoding=\"UTF-8\"?>\\n<ListAllMyBucketsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Owner><ID>%s</ID></Owner><Buckets><Bucket><Name>%s-logs</Name><CreationDate>2021-03-0%dT10:11:12.000Z</CreationDate></Bucket></Buckets></ListAllMyBucketsResult>'" % (hx(64), ctx.org, R.randint(1, 9)))
        lines.append('2021-03-0%d 10:11:12 %s-logs' % (R.randint(1, 9), ctx.org))
    else:
        uid = 'AROA' + rs(AK32, 17)
        lines.append("b'<GetCallerIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\\n  <GetCallerIdentityResult>\\n    <Arn>arn:aws:sts::%s:assumed-role/AWSReservedSSO_%s_%s/%s@%s</Arn>\\n    <UserId>%s:%s@%s</UserId>\\n    <Account>%s</Account>\\n  </GetCallerIdentityResult>\\n  <ResponseMetadata>\\n    <RequestId>%s</RequestId>\\n  </ResponseMetadata>\\n</GetCallerIdentityResponse>\\n'"
                     % (acct, role, hx(16), ctx.user, ctx.domain, uid, ctx.user, ctx.domain, acct, uuid4()))
    cmd = 'aws %s --profile %s --debug 2>&1 | %s' % (' '.join(args), prof, pick(['tail -n 60', 'head -n 120', 'cat']))
    if not ctx.long:
        cmd = 'aws %s --profile %s --debug 2>&1 | grep -v botocore.hooks' % (' '.join(args), prof)
    return render(ctx, note(ctx, 'The CLI works with --profile %s but the job fails; comparing the credential chain with --debug.' % prof) if chance(0.5) else [],
                  step(ctx, cmd, lines, 'debug the credential chain'))


def httpcore_conn(host, L):
    L('httpcore.connection', "connect_tcp.started host='%s' port=443 local_address=None timeout=%s socket_options=None" % (host, pick(['5.0', '10.0', '600'])))
    L('httpcore.connection', 'connect_tcp.complete return_value=<httpcore._backends.sync.SyncStream object at %s>' % addr_py())
    L('httpcore.connection', "start_tls.started ssl_context=<ssl.SSLContext object at %s> server_hostname='%s' timeout=5.0" % (addr_py(), host))
    L('httpcore.connection', 'start_tls.complete return_value=<httpcore._backends.sync.SyncStream object at %s>' % addr_py())


def p_httpx_event_hook_headers_dump(ctx):
    c = ctx.clock
    out = []

    def L(name, msg):
        out.append('DEBUG:%s:%s' % (name, msg))
    v = R.randint(0, 2)
    if v == 0:
        host, path, key = 'api.anthropic.com', '/v1/messages', anthropic_key()
        hdr = [('x-api-key', M(key)), ('anthropic-version', '2023-06-01')]
        ua = 'Anthropic/Python 0.%d.%d' % (R.randint(20, 40), R.randint(0, 9))
        err = "{'type': 'error', 'error': {'type': 'authentication_error', 'message': 'invalid x-api-key'}}"
        rid = 'req_011C' + rs(ALNUM, 16)
    elif v == 1:
        host, path, key = 'api.openai.com', '/v1/chat/completions', openai_key()
        hdr = [('authorization', '[secure]'), ('openai-organization', 'org-' + rs(ALNUM, 24))]
        ua = 'OpenAI/Python 1.%d.%d' % (R.randint(20, 40), R.randint(0, 9))
        err = "{'error': {'message': 'Rate limit reached for gpt-4o in organization on tokens per min (TPM)', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}"
        rid = 'req_' + hx(32)
    else:
        host = 'api.%s' % ctx.domain
        path = rpath()
        key = hx(40)
        hdr = [('authorization', '[secure]'), ('x-api-key', M(key)), ('x-tenant', ctx.org)]
        ua = 'python-httpx/0.27.0'
        err = "{'detail': 'invalid credentials', 'code': 'E_AUTH_401'}"
        rid = ulid()
    sites = '%s/%s/lib/python3.11/site-packages' % (ctx.abscwd, ctx.venv)
    L('httpx', 'load_ssl_context verify=True cert=None trust_env=True http2=False')
    L('httpx', "load_verify_locations cafile='%s/certifi/cacert.pem'" % sites)
    n_req = 3 if ctx.long else 1
    show_raw = chance(0.6)
    auth = ('Bearer ' + M(key)) if v == 1 else ('Basic ' + M(b64e(('svc-%s:%s' % (ctx.project, pw_alnum(24))).encode())))
    for i in range(n_req):
        if i == 0:
            httpcore_conn(host, L)
        blen = R.randint(180, 2400)
        base = [('host', host), ('accept', 'application/json'), ('accept-encoding', 'gzip, deflate'),
                ('connection', 'keep-alive'), ('user-agent', ua)] + hdr + [
            ('x-request-id', uuid4()), ('content-length', str(blen)), ('content-type', 'application/json')]
        out.append('[hook] request: POST https://%s%s' % (host, path))
        out.append('[hook] headers: Headers({%s})' % ', '.join("'%s': '%s'" % kv for kv in base))
        if v == 1 or (v == 2 and show_raw):
            raw = [(k, auth if k == 'authorization' else val) for k, val in base]
            out.append('[hook] raw: %s' % ('{' + ', '.join("'%s': '%s'" % kv for kv in raw) + '}'))
        for ph in ['send_request_headers', 'send_request_body', 'receive_response_headers']:
            L('httpcore.http11', '%s.started request=<Request [b\'POST\']>' % ph)
            if ph != 'receive_response_headers':
                L('httpcore.http11', '%s.complete' % ph)
        code, reason = (401, 'Unauthorized') if v != 1 else (429, 'Too Many Requests')
        rh = [('Date', http_date(c.tick(0.2, 2))), ('Content-Type', 'application/json'), ('Content-Length', str(R.randint(60, 300))),
              ('Connection', 'keep-alive'), ('request-id' if v == 0 else 'x-request-id', rid if i == 0 else (rid[:-4] + rs(ALNUM, 4)))]
        if v != 2:
            rh += [('CF-RAY', cf_ray()), ('Server', 'cloudflare')]
        L('httpcore.http11', 'receive_response_headers.complete return_value=(b\'HTTP/1.1\', %d, b\'%s\', [%s])' % (code, reason, ', '.join("(b'%s', b'%s')" % kv for kv in rh)))
        out.append('INFO:httpx:HTTP Request: POST https://%s%s "HTTP/1.1 %d %s"' % (host, path, code, reason))
        L('httpcore.http11', "receive_response_body.started request=<Request [b'POST']>")
        L('httpcore.http11', 'receive_response_body.complete')
        L('httpcore.http11', 'response_closed.started')
        L('httpcore.http11', 'response_closed.complete')
        out.append('[hook] response: %d %s' % (code, err))
        if ctx.long and i < n_req - 1:
            if v == 2:
                out.append('WARNING:%s.client:retrying POST %s (attempt %d/3)' % (ctx.project.replace('-', '_'), path, i + 2))
            else:
                out.append('INFO:%s._base_client:Retrying request to %s in %.6f seconds' % ('anthropic' if v == 0 else 'openai', path, R.uniform(0.4, 2.0)))
    if chance(0.5):
        out += ['Traceback (most recent call last):',
                '  File "%s/scripts/smoke.py", line %d, in <module>' % (ctx.abscwd, R.randint(20, 80)),
                '    resp.raise_for_status()',
                '  File "%s/httpx/_models.py", line 761, in raise_for_status' % sites,
                '    raise HTTPStatusError(message, request=request, response=self)',
                "httpx.HTTPStatusError: Client error '%d %s' for url 'https://%s%s'" % (code, reason, host, path),
                'For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/%d' % code]
    cmd = pick(['python scripts/smoke.py --debug', 'LOG_LEVEL=DEBUG python -m %s.smoke' % ctx.project.replace('-', '_'),
                'uv run scripts/smoke.py 2>&1 | tail -n 80'])
    return render(ctx, note(ctx, 'Added an httpx event hook that prints each outgoing request; running the smoke test again.') if chance(0.6) else [],
                  step(ctx, cmd, out, 'smoke test with request hook'))


def jwt_internal(ctx, aud, sub=None):
    now = int(epoch(ctx.clock.t))
    return jwt({'iss': 'https://auth.%s/' % ctx.domain, 'sub': sub or 'svc:%s' % pick(PROJECTS), 'aud': aud,
                'iat': now - R.randint(10, 3000), 'exp': now + R.randint(300, 3600),
                'scope': pick(['refunds:write', 'orders:read orders:write', 'internal', 'admin'])},
               sig_len=pick([342, 86, 43]))


def p_go_dumprequest_middleware_log(ctx):
    c = ctx.clock
    out = []
    svc = pick(['gateway', 'payments', 'edge', 'hooks'])
    n = R.randint(3, 5) if ctx.long else R.randint(1, 2)
    kinds = ['bearer', 'cookie', 'webhook', 'out_basic']
    R.shuffle(kinds)
    kinds = (kinds * 2)[:n]
    if 'bearer' not in kinds and 'cookie' not in kinds and 'out_basic' not in kinds:
        kinds[0] = 'bearer'
    for k in kinds:
        t = c.tick(0.5, 40)
        out.append('%s middleware.go:%d: %s:' % (slash_ts(t), R.randint(30, 70), 'outgoing request' if k == 'out_basic' else 'request dump'))
        if k == 'bearer':
            tok = jwt_internal(ctx, svc)
            body = '{"order_id":"ord_%s","amount":%d,"currency":"%s","reason":"requested_by_customer"}' % (rs(ALNUM, 14), R.randint(100, 90000), pick(['usd', 'eur', 'jpy']))
            out += ['POST /internal/v1/refunds HTTP/1.1', 'Host: %s.%s.svc.cluster.local:8080' % (svc, ctx.project),
                    'Accept-Encoding: gzip', 'Authorization: Bearer ' + M(tok), 'Content-Length: %d' % len(body),
                    'Content-Type: application/json', 'Traceparent: ' + traceparent(), 'User-Agent: ' + pick(UA_GO),
                    'X-Request-Id: ' + ulid(), '', body]
        elif k == 'cookie':
            sess = U(B64U, 43)
            out += ['GET %s HTTP/1.1' % pick(['/account/billing', '/api/me', '/dashboard?tab=usage']), 'Host: app.' + ctx.domain,
                    'Accept: text/html,application/xhtml+xml', 'Accept-Language: %s' % pick(['en-US,en;q=0.9', 'ja,en-US;q=0.8', 'de-DE,de;q=0.9']),
                    'Cookie: _ga=GA1.1.%d.%d; session=%s; theme=dark' % (R.randint(10 ** 8, 10 ** 9), int(epoch(t)) - 99999, M(sess)),
                    'Sec-Ch-Ua-Platform: "macOS"', 'User-Agent: Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
                    'X-Forwarded-For: ' + ip_pub(), 'X-Request-Id: ' + ulid(), '']
        elif k == 'webhook':
            body = '{"id":"evt_%s","object":"event","type":"invoice.paid","livemode":true}' % rs(ALNUM, 24)
            out += ['POST /webhooks/stripe HTTP/1.1', 'Host: hooks.' + ctx.domain, 'Accept: */*; q=0.5, application/xml',
                    'Cache-Control: no-cache', 'Content-Length: %d' % len(body), 'Content-Type: application/json; charset=utf-8',
                    'Stripe-Signature: t=%d,v1=%s,v0=%s' % (int(epoch(t)), hx(64), hx(64)),
                    'User-Agent: Stripe/1.0 (+https://stripe.com/docs/webhooks)', '', body]
        else:
            key = mailgun_key()
            dom = 'mg.' + ctx.domain
            form = 'from=alerts%%40%s&to=%s%%40%s&subject=Invoice+%d&text=...' % (dom, pick(NAMES), ctx.domain, R.randint(1000, 9999))
            out += ['POST /v3/%s/messages HTTP/1.1' % dom, 'Host: api.mailgun.net', 'User-Agent: ' + pick(UA_GO),
                    'Content-Length: %d' % len(form), 'Authorization: Basic ' + M(b64e(('api:' + key).encode())),
                    'Content-Type: application/x-www-form-urlencoded', 'Accept-Encoding: gzip', '', form]
        out.append('%s middleware.go:%d: %s %d in %s' % (slash_ts(c.tick(0.01, 30)), R.randint(71, 90), pick(['upstream', 'handler']),
                                                      pick([200, 401, 502, 504, 500]), pick(['%.3fs' % R.uniform(0.01, 30), '%dms' % R.randint(3, 900)])))
        if ctx.long:
            for _ in range(R.randint(2, 5)):
                out.append('%s server.go:%d: %s %s %d %s' % (slash_ts(c.tick(0.01, 5)), R.randint(100, 200), pick(['GET', 'POST']), rpath(),
                                                           pick([200, 200, 204, 404]), '%dµs' % R.randint(80, 9000)))
    kube = chance(0.6)
    cmd = ('kubectl logs deploy/%s -n %s --since=%dm | %s' % (svc, ctx.project, R.randint(5, 60), pick(['head -n 120', 'tail -n 80', 'grep -v healthz']))
           if kube else 'docker logs --tail 100 %s-%s-1' % (ctx.project, svc))
    return render(ctx, note(ctx, 'The DEBUG_DUMP flag is on in this deployment; reading what the middleware wrote.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'read the request dumps'))


def spring_line(ctx, lvl, logger, msg, thread=None, app=None):
    t = ctx.clock.tick(0.0005, 0.08)
    lg = logger if len(logger) <= 40 else logger[-40:]
    th = thread or pick(['main', 'task-1', 'task-2', 'pool-3-thread-1', 'scheduling-1', 'http-nio-8080-exec-4'])
    return '%s %5s %d --- [%s] [%15s] %-40s : %s' % (iso(t), lvl, R.randint(1, 9), app or ctx.project, th[-15:], lg, msg)


def oauth_provider(ctx):
    k = R.randint(0, 2)
    if k == 0:
        cid = '%s-%s.apps.googleusercontent.com' % (digits(12), rs(LOWNUM, 32))
        sec, rt, at = gocspx(), refresh1(), ya29()
        form = 'grant_type=refresh_token&client_id=%s&client_secret=%s&refresh_token=%s' % (cid, M(sec), M(quote(rt, safe='')))
        resp = ['{', '  "access_token": "%s",' % M(at), '  "expires_in": 3599,',
                '  "scope": "https://www.googleapis.com/auth/drive.readonly https://www.googleapis.com/auth/spreadsheets",',
                '  "token_type": "Bearer"', '}']
        return dict(url='https://oauth2.googleapis.com/token', form=form, basic=None, resp=resp,
                    api='https://sheets.googleapis.com/v4/spreadsheets/%s/values/A1:K200' % rs(B64U, 44),
                    rh=['content-type: application/json; charset=utf-8', 'vary: Origin', 'vary: X-Origin', 'vary: Referer',
                        'date: ' + http_date(ctx.clock.t), 'server: scaffolding on HTTPServer2', 'cache-control: private',
                        'x-xss-protection: 0', 'x-frame-options: SAMEORIGIN', 'alt-svc: h3=":443"; ma=2592000,h3-29=":443"; ma=2592000'])
    if k == 1:
        inst = '%s.my.salesforce.com' % ctx.org
        cid = '3MVG9' + rs(ALNUM + '._', 80)
        sec = HX(64)
        pw = pw_any(safe=True)
        st = rs(ALNUM, 25)
        at = fresh(lambda: '00D' + rs(ALNUM, 12) + '!' + rs(ALNUM + '._', 96))
        form = 'grant_type=password&client_id=%s&client_secret=%s&username=%s%%40%s&password=%s' % (
            cid, M(sec), pick(['integration', 'svc-sync', 'api.user']), ctx.domain, M(quote(pw, safe='') + st))
        resp = ['{"access_token":"%s","instance_url":"https://%s","id":"https://login.salesforce.com/id/00D%s/005%s","token_type":"Bearer","issued_at":"%d","signature":"%s"}'
                % (M(at), inst, rs(ALNUM, 12), rs(ALNUM, 12), int(epoch(ctx.clock.t) * 1000), b64e(rbytes(32)))]
        return dict(url='https://login.salesforce.com/services/oauth2/token', form=form, basic=None, resp=resp,
                    api='https://%s/services/data/v60.0/query?q=SELECT+Id,Email+FROM+Contact+LIMIT+200' % inst,
                    rh=['Date: ' + http_date(ctx.clock.t), 'Content-Type: application/json;charset=UTF-8',
                        'Cache-Control: no-cache,must-revalidate,max-age=0,no-store,private', 'X-ReadOnlyMode: false',
                        'Sforce-Limit-Info: api-usage=%d/15000' % R.randint(100, 14000)])
    cid = rs(ALNUM + '_', 22)
    sec = rs(ALNUM, 32)
    at = jwt({'aud': 'https://oauth.zoom.us', 'uid': rs(ALNUM + '-_', 22), 'ver': 9, 'auid': hx(32), 'nbf': int(epoch(ctx.clock.t)),
              'code': rs(ALNUM + '-_', 34), 'iss': 'zm:cid:' + cid, 'gno': 0, 'exp': int(epoch(ctx.clock.t)) + 3600, 'type': 3},
             header={'alg': 'HS512', 'v': '2.0', 'kid': uuid4()}, sig_len=86)
    form = 'grant_type=account_credentials&account_id=%s' % rs(ALNUM + '_-', 22)
    resp = ['{"access_token":"%s","token_type":"bearer","expires_in":3599,"scope":"meeting:read:admin user:read:admin","api_url":"https://api.zoom.us"}' % M(at)]
    return dict(url='https://zoom.us/oauth/token', form=form, basic=M(b64e(('%s:%s' % (cid, sec)).encode())), resp=resp,
                api='https://api.zoom.us/v2/users?page_size=300', rh=['Date: ' + http_date(ctx.clock.t), 'Content-Type: application/json;charset=UTF-8',
                                                                      'x-zm-trackingid: v=2.0;clid=us06;rid=WEB_%s' % hx(32)])


def p_okhttp_body_level_oauth_exchange(ctx):
    out = []
    lg = 'okhttp3.OkHttpClient'

    def L(msg, lvl='INFO'):
        out.append(spring_line(ctx, lvl, lg, msg, thread='crm-sync-1'))
    rounds = R.randint(2, 3) if ctx.long else 1
    for r in range(rounds):
        p = oauth_provider(ctx)
        if ctx.long or chance(0.5):
            out.append(spring_line(ctx, 'INFO', 'c.%s.sync.TokenRefresher' % ctx.org, 'access token expired, refreshing (provider=%s)' % p['url'].split('/')[2]))
        L('--> POST %s' % p['url'])
        L('Content-Type: application/x-www-form-urlencoded')
        L('Content-Length: %d' % len(strip_marks(p['form'])))
        if p['basic']:
            L('Authorization: Basic ' + p['basic'])
        L('')
        L(p['form'])
        L('--> END POST (%d-byte body)' % len(strip_marks(p['form'])))
        L('<-- 200 %s (%dms)' % (p['url'], R.randint(80, 900)))
        for h in p['rh']:
            L(h)
        L('')
        out.append(spring_line(ctx, 'INFO', lg, p['resp'][0], thread='crm-sync-1'))
        out.extend(p['resp'][1:])
        L('<-- END HTTP (%d-byte body)' % R.randint(300, 1600))
        n = R.randint(1, 3) if ctx.long else 1
        for _ in range(n):
            L('--> GET %s' % p['api'])
            L('Authorization: ██')
            L('X-Request-Id: ' + uuid4())
            L('--> END GET')
            L('<-- %d %s (%dms)' % (pick([200, 200, 429]), p['api'], R.randint(60, 2000)))
            L('Content-Type: application/json')
            L('<-- END HTTP (binary %d-byte body omitted)' % R.randint(2000, 90000) if chance(0.3) else '<-- END HTTP (%d-byte body)' % R.randint(2000, 90000))
        if ctx.long:
            out.append(spring_line(ctx, 'INFO', 'c.%s.sync.ContactSyncJob' % ctx.org, 'synced %d records in %dms (cursor=%s)' % (R.randint(10, 5000), R.randint(100, 9000), b64u(('{"after":%d}' % R.randint(1000, 99999)).encode()))))
    cmd = pick(['kubectl logs deploy/%s -c app --since=30m | grep -n -A18 "okhttp3"' % ctx.project,
                'journalctl -u %s --since "1 hour ago" -o cat | grep -A25 "\\-\\-> POST"' % ctx.project,
                'tail -n 120 /var/log/%s/app.log' % ctx.project])
    return render(ctx, note(ctx, 'HttpLoggingInterceptor is at BODY in this build; checking what it logged around the token refresh.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'read sync service log'))


def p_axios_curlirize_console(ctx):
    c = ctx.clock
    out = []
    pre = '%s-1  | ' % pick(['api', 'worker', 'app', 'bot'])
    compose = chance(0.6)

    def P(s):
        out.append((pre if compose else '') + s)
    P('[nodemon] 3.1.0')
    P('[nodemon] to restart at any time, enter `rs`')
    P('[nodemon] watching path(s): src/**/*')
    P('[nodemon] starting `node src/index.js`')
    P('{"level":30,"time":%d,"pid":%d,"hostname":"%s","msg":"listening on :%d"}' % (int(epoch(c.tick()) * 1000), R.randint(20, 400), hx(12), pick([3000, 8080, 4000])))
    vendors = ['linear', 'notion', 'hubspot', 'airtable', 'mailgun']
    n = R.randint(9, 15) if ctx.long else R.randint(1, 2)
    for i in range(n):
        v = pick(vendors)
        if v == 'linear':
            tok = lin_api()
            auth, url = M(tok), 'https://api.linear.app/graphql'
            data = '{"query":"query Issues($after: String) { issues(first: 50, after: $after) { nodes { id identifier title } pageInfo { endCursor hasNextPage } } }","variables":{"after":"%s"}}' % uuid4()
            method = 'POST'
        elif v == 'notion':
            auth, url = 'Bearer ' + M(ntn()), 'https://api.notion.com/v1/databases/%s/query' % hx(32)
            data = '{"page_size":100,"filter":{"property":"Status","status":{"equals":"%s"}}}' % pick(['Done', '進行中', 'Blocked'])
            method = 'POST'
        elif v == 'hubspot':
            auth, url = 'Bearer ' + M(hubspot_pat()), 'https://api.hubapi.com/crm/v3/objects/contacts/search'
            data = '{"filterGroups":[{"filters":[{"propertyName":"lastmodifieddate","operator":"GTE","value":"%d"}]}],"limit":100}' % int(epoch(c.t) * 1000)
            method = 'POST'
        elif v == 'airtable':
            auth, url = 'Bearer ' + M(airtable_pat()), 'https://api.airtable.com/v0/app%s/tbl%s?pageSize=100&offset=itr%s/rec%s' % (rs(ALNUM, 14), rs(ALNUM, 14), rs(ALNUM, 14), rs(ALNUM, 14))
            data = None
            method = 'GET'
        else:
            auth, url = 'Basic ' + M(b64e(('api:' + mailgun_key()).encode())), 'https://api.mailgun.net/v3/mg.%s/events?limit=300' % ctx.domain
            data = None
            method = 'GET'
        hdr = ' -H "Accept:application/json, text/plain, */*"'
        if data:
            hdr += ' -H "Content-Type:application/json"'
        hdr += ' -H "Authorization:%s"' % auth
        if v == 'notion':
            hdr += ' -H "Notion-Version:2022-06-28"'
        hdr += ' -H "User-Agent:axios/1.6.8"'
        if data:
            hdr += ' -H "Content-Length:%d"' % len(data.encode())
        P('curl -X %s "%s"%s%s' % (method, url, hdr, (" --data '%s'" % data) if data else ''))
        st = pick([200, 200, 401, 429, 500])
        P('{"level":%d,"time":%d,"pid":%d,"hostname":"%s","reqId":"%s","vendor":"%s","status":%d,"durationMs":%d,"msg":"%s"}'
          % (30 if st == 200 else 50, int(epoch(c.tick(0.1, 4)) * 1000), R.randint(20, 400), hx(12), uuid4(), v, st, R.randint(40, 3000),
             'vendor call ok' if st == 200 else 'vendor call failed'))
        if st != 200 and ctx.long:
            P('AxiosError: Request failed with status code %d' % st)
            P('    at settle (/app/node_modules/axios/dist/node/axios.cjs:1966:12)')
            P('    at IncomingMessage.handleStreamEnd (/app/node_modules/axios/dist/node/axios.cjs:3065:11)')
            P('    at IncomingMessage.emit (node:events:531:35)')
            P('    at endReadableNT (node:internal/streams/readable:1696:12)')
            P('    at process.processTicksAndRejections (node:internal/process/task_queues:82:21)')
    cmd = 'docker compose logs --no-color --tail=%d %s' % (R.randint(60, 200), pre.split('-')[0]) if compose else pick(['npm run dev 2>&1 | head -n 60', 'node src/index.js'])
    return render(ctx, note(ctx, 'axios-curlirize is registered in dev; the vendor calls are echoed as curl commands.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'tail the dev server'))


def curl_dump(data_marked, width=64):
    plain, flags = unmark(data_marked)
    size = len(plain)
    out, i = [], 0
    while i < size:
        chars, fl, c, adv = [], [], 0, None
        while c < width and i + c < size:
            if i + c + 1 < size and plain[i + c] == '\r' and plain[i + c + 1] == '\n':
                adv = c + 2
                break
            ch = plain[i + c]
            chars.append(ch if 0x20 <= ord(ch) < 0x80 else '.')
            fl.append(flags[i + c])
            if i + c + 2 < size and plain[i + c + 1] == '\r' and plain[i + c + 2] == '\n':
                adv = c + 3
                break
            c += 1
        if adv is None:
            adv = width
        out.append('%04x: ' % i + remark(chars, fl))
        i += adv
    return out


def ssl_garbage(n):
    def one():
        while True:
            c = R.randint(0, 255) if chance(0.6) else R.randint(0x21, 0x7e)
            if c not in (0xAB, 0xBB):
                return chr(c)
    return ''.join(one() for _ in range(n))


def curl_tls_info(host, ip, h2=True):
    return ['== Info: Host %s:443 was resolved.' % host, '== Info: IPv6: (none)', '== Info: IPv4: %s' % ip,
            '== Info:   Trying %s:443...' % ip, '== Info: Connected to %s (%s) port 443' % (host, ip),
            '== Info: ALPN: curl offers h2,http/1.1']


def curl_trace_block(kind, data_marked):
    plain = strip_marks(data_marked)
    head = {'sh': '=> Send header', 'sd': '=> Send data', 'rh': '<= Recv header', 'rd': '<= Recv data',
            'ss': '=> Send SSL data', 'rs': '<= Recv SSL data'}[kind]
    return ['%s, %d bytes (0x%x)' % (head, len(plain), len(plain))] + curl_dump(data_marked)


def p_curl_trace_ascii_wrapped_header(ctx):
    c = ctx.clock
    host = pick(['api.', 'auth.', 'billing.', 'gw.']) + ctx.domain if chance(0.7) else 'api.github.com'
    ip = '%d.%d.%d.%d' % (R.randint(3, 200), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254))
    h2 = chance(0.6)
    k = R.randint(0, 1)
    if k == 0:
        # wrapped over 64-column lines: only tokens without a fixed leading part
        tok = gh() if 'github' in host else U(B64U, pick([43, 64, 86]))
        path = rpath()
        body = '{"id":%d,"status":"%s","note":"%s"}' % (R.randint(1, 99999), pick(['paid', 'void', 'open']), pick(JP + CN + ['retry']))
        hdrs = [('authorization', 'Bearer ' + M(tok)), ('content-type', 'application/json')]
        rbody = '{"error":{"code":"%s","message":"%s"},"request_id":"%s"}' % (pick(['invalid_token', 'forbidden', 'rate_limited']), pick(['token expired', 'scope orders:write required', 'slow down']), ulid())
        cmdh = '-H "Authorization: Bearer $%s"' % pick(['TOKEN', 'API_TOKEN', 'GH_TOKEN', 'ACCESS_TOKEN'])
    else:
        path = '/oauth2/token'
        cid = uuid4()
        sec = pick([pw_alnum(40), rs(ALNUM + '~.-_', 40)])
        body = 'grant_type=client_credentials&client_id=%s&client_secret=%s&scope=%s' % (cid, M(sec), quote(pick(['api://%s/.default' % uuid4(), 'orders.read orders.write']), safe=''))
        hdrs = [('content-type', 'application/x-www-form-urlencoded')]
        at = U(B64U, pick([43, 64, 86]))
        rbody = '{"access_token":"%s","token_type":"Bearer","expires_in":3599,"ext_expires_in":3599}' % M(at)
        cmdh = '-d @/tmp/token-form.txt'
    method = 'POST'
    out = curl_tls_info(host, ip, h2)
    for lbl, n in [('TLSv1.3 (OUT), TLS handshake, Client hello (1):', 512), ('TLSv1.3 (IN), TLS handshake, Server hello (2):', 122)]:
        out.append('== Info: ' + lbl)
        blk = curl_trace_block('ss' if 'OUT' in lbl else 'rs', ssl_garbage(n if ctx.long else 5))
        out += blk if ctx.long else blk[:2]
    out += ['== Info: SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS',
            '== Info: ALPN: server accepted %s' % ('h2' if h2 else 'http/1.1'), '== Info: Server certificate:',
            '== Info:  subject: CN=%s' % host, '== Info:  start date: %s  %d 00:00:00 2024 GMT' % (pick(MONTHS), R.randint(1, 28)),
            '== Info:  expire date: %s  %d 23:59:59 2025 GMT' % (pick(MONTHS), R.randint(1, 28)),
            '== Info:  subjectAltName: host "%s" matched cert\'s "%s"' % (host, host),
            "== Info:  issuer: C=US; O=Let's Encrypt; CN=R%d" % R.randint(10, 11), '== Info:  SSL certificate verify ok.']
    blen = len(strip_marks(body))
    if h2:
        out += ['== Info: using HTTP/2', '== Info: [HTTP/2] [1] OPENED stream for https://%s%s' % (host, path)]
        for hk, hv in [(':method', method), (':scheme', 'https'), (':authority', host), (':path', path), ('user-agent', 'curl/8.5.0'), ('accept', '*/*')] + hdrs + [('content-length', str(blen))]:
            out.append('== Info: [HTTP/2] [1] [%s: %s]' % (hk, hv))
    req = '%s %s HTTP/%s\r\nHost: %s\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n' % (method, path, '2' if h2 else '1.1', host)
    for hk, hv in hdrs:
        req += '%s: %s\r\n' % ('-'.join(p.capitalize() for p in hk.split('-')), hv)
    req += 'Content-Length: %d\r\n\r\n' % blen
    out += curl_trace_block('sh', req)
    out += curl_trace_block('sd', body)
    out.append('== Info: upload completely sent off: %d bytes' % blen)
    if ctx.long:
        out.append('== Info: TLSv1.3 (IN), TLS handshake, Newsession Ticket (4):')
        out += curl_trace_block('rs', ssl_garbage(R.randint(200, 260)))
    code = 200 if k == 1 else pick([401, 403, 429])
    rls = ['HTTP/%s %d%s' % ('2' if h2 else '1.1', code, '' if h2 else ' OK'), 'date: ' + http_date(c.tick()), 'content-type: application/json',
           'content-length: %d' % len(strip_marks(rbody)), 'x-request-id: ' + uuid4(), 'strict-transport-security: max-age=31536000; includeSubDomains',
           'etag: W/"%s"' % hx(27), '']
    for rl in rls:
        out += curl_trace_block('rh', rl + '\r\n')
    out += curl_trace_block('rd', rbody)
    out.append('== Info: Connection #0 to host %s left intact' % host)
    if not ctx.long:
        a = [i for i, l in enumerate(out) if l.startswith('=> Send header')][0]
        b = [i for i, l in enumerate(out) if l.startswith('== Info: upload completely')][0]
        f = '/tmp/trace-%d.txt' % R.randint(100, 999)
        s1 = step(ctx, 'curl --trace-ascii %s -sS -X %s https://%s%s %s -o /tmp/resp.json -w "%%{http_code}\\n"' % (f, method, host, path, cmdh), [str(code)])
        return render(ctx, s1, step(ctx, "sed -n '/=> Send header/,/upload completely/p' %s" % f, out[a:b + 1], 'show what was sent'))
    if chance(0.5):
        cmd = 'curl --trace-ascii - -sS -o /dev/null -X %s https://%s%s %s' % (method, host, path, cmdh)
        return render(ctx, step(ctx, cmd, out, 'trace the failing call'))
    f = '/tmp/trace-%d.txt' % R.randint(100, 999)
    s1 = step(ctx, 'curl --trace-ascii %s -sS -X %s https://%s%s %s >/dev/null; wc -l %s' % (f, method, host, path, cmdh, f), ['%d %s' % (len(out), f)])
    return render(ctx, note(ctx, 'Capturing the exchange with --trace-ascii so the headers are visible.') if chance(0.5) else [], s1,
                  file_step(ctx, f, 'cat %s' % f, out, 'read the trace'))


def jdk_hexdump(data_marked, indent='  '):
    plain, flags = unmark(data_marked)
    out = []
    for off in range(0, len(plain), 16):
        chunk = plain[off:off + 16]
        hs = ''
        for j in range(16):
            hs += ('%02X ' % ord(chunk[j])) if j < len(chunk) else '   '
            if j == 7:
                hs += '  '
        asc = remark([ch if 0x20 <= ord(ch) < 0x7f else '.' for ch in chunk], flags[off:off + 16])
        out.append('%s%04X: %s %s' % (indent, off, hs, asc))
    return out


def jsse(ctx, src, msg, thread):
    t = ctx.clock.tick(0.0002, 0.02)
    return 'javax.net.ssl|DEBUG|%s|%s|%s.%03d UTC|%s|%s' % (thread[0], thread[1], sp(t, 0), t.microsecond // 1000, src, msg)


def p_javax_net_debug_plaintext_dump(ctx):
    out = []
    th = ('%02X' % R.randint(1, 60), pick(['main', 'pool-2-thread-1', 'http-nio-8080-exec-3', 'ForkJoinPool.commonPool-worker-1']))
    host = pick(['sso', 'ldap-gw', 'legacy-erp', 'reports']) + '.' + ctx.domain
    if ctx.long:
        out.append(jsse(ctx, 'SSLContextImpl.java:427', 'System property jdk.tls.client.cipherSuites is set to \'null\'', th))
        out.append(jsse(ctx, 'ClientHello.java:641', 'Produced ClientHello handshake message (', th))
        out += ['"ClientHello": {', '  "client version"      : "TLSv1.2",', '  "random"              : "%s",' % HX(64),
                '  "session id"          : "%s",' % HX(64),
                '  "cipher suites"       : "[TLS_AES_256_GCM_SHA384(0x1302), TLS_AES_128_GCM_SHA256(0x1301), TLS_CHACHA20_POLY1305_SHA256(0x1303), TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384(0xC02C), TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384(0xC030)]",',
                '  "compression methods" : "00",', '  "extensions"          : [', '    "server_name (0)": {',
                '      type=host_name (0), value=%s' % host, '    },', '    "supported_groups (10)": {',
                '      "versions": [x25519, secp256r1, secp384r1, secp521r1, x448, ffdhe2048, ffdhe3072]', '    },',
                '    "key_share (51)": {', '      "client_shares": [  ', '        {', '          "named group": x25519',
                '          "key_exchange": {']
        kx = rbytes(32)
        for o in range(0, 32, 16):
            out.append('            %04X: %s' % (o, ' '.join('%02X' % b for b in kx[o:o + 8]) + '   ' + ' '.join('%02X' % b for b in kx[o + 8:o + 16])))
        out += ['          }', '        },', '      ]', '    }', '  ]', '}', ')']
        out.append(jsse(ctx, 'ServerHello.java:888', 'Consuming ServerHello handshake message (', th))
        out += ['"ServerHello": {', '  "server version"      : "TLSv1.2",', '  "random"              : "%s",' % HX(64),
                '  "session id"          : "%s",' % HX(64), '  "cipher suite"        : "TLS_AES_256_GCM_SHA384(0x1302)",', '}', ')']
        out.append(jsse(ctx, 'CertificateMessage.java:1172', 'Consuming server Certificate handshake message (', th))
        out += ['"Certificate": {', '  "certificate_request_context": "",', '  "certificate_list": [  ', '  {',
                '    "certificate" : {', '      "version"            : "v3",', '      "serial number"      : "%s",' % ' '.join('%02X' % R.randint(0, 255) for _ in range(16)),
                '      "signature algorithm": "SHA256withRSA",', '      "issuer"             : "CN=%s Internal CA, O=%s, C=US",' % (ctx.org.capitalize(), ctx.org.capitalize()),
                '      "subject"            : "CN=%s",' % host, '    }', '  },', ']', '}', ')']
        out.append(jsse(ctx, 'Finished.java:1161', 'Consuming server Finished handshake message (', th))
        out += ['"Finished": {', '  "verify data": {', '    0000: %s' % ' '.join('%02X' % R.randint(0, 255) for _ in range(16)), '  }', '}', ')']
    k = R.randint(0, 1)
    if k == 0:
        pw = pw_gen(pick([16, 20, 24]), punct='-_.~')
        user = pick(['svc-report', 'erp_batch', 'integration'])
        form = 'username=%s&password=%s&grant_type=password' % (user, M(pw))
        req = 'POST /oauth/token HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nUser-Agent: Java-http-client/17.0.11\r\nHost: %s\r\nContent-Length: %d\r\n\r\n%s' % (host, len(strip_marks(form)), form)
    else:
        user = uuid4() if chance(0.5) else hx(20)
        blob = b64e(('%s:%s' % (user, pw_gen(pick([24, 32]), punct='-_.~'))).encode())
        req = 'GET /api/v2/exports?since=%d HTTP/1.1\r\nAuthorization: Basic %s\r\nAccept: application/json\r\nUser-Agent: Apache-HttpClient/5.2.1 (Java/17.0.11)\r\nHost: %s\r\nConnection: keep-alive\r\n\r\n' % (R.randint(10 ** 9, 2 * 10 ** 9), M(blob), host)
    n = len(strip_marks(req))
    out.append(jsse(ctx, 'SSLSocketOutputRecord.java:331', 'WRITE: TLSv1.3 application_data, length = %d' % n, th))
    out.append(jsse(ctx, 'SSLCipher.java:2013', 'Plaintext before ENCRYPTION (', th))
    out += jdk_hexdump(req)
    out.append(')')
    sess = U(HEXU, 32)
    resp = 'HTTP/1.1 %d %s\r\nDate: %s\r\nSet-Cookie: JSESSIONID=%s; Path=/; Secure; HttpOnly\r\nX-Request-Id: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n' % (
        pick([200, 401]), 'OK', http_date(ctx.clock.t), M(sess), uuid4(), R.randint(40, 900))
    out.append(jsse(ctx, 'SSLSocketInputRecord.java:494', 'READ: TLSv1.3 application_data, length = %d' % (len(strip_marks(resp)) + 17), th))
    out.append(jsse(ctx, 'SSLCipher.java:1915', 'Plaintext after DECRYPTION (', th))
    out += jdk_hexdump(resp)
    out.append(')')
    app = ctx.project
    cmd = pick(['grep -n -A40 "Plaintext before ENCRYPTION" logs/%s.log | head -n %d' % (app, 140 if ctx.long else 40),
                'java -Djavax.net.debug=ssl:handshake:record:plaintext -jar build/libs/%s.jar --once 2>&1 | tail -n %d' % (app, 150 if ctx.long else 40)])
    if not ctx.long:
        out = [l for l in out if 'WRITE' in l or 'READ' in l or 'Plaintext' in l or l.startswith('  0') or l == ')']
    return render(ctx, note(ctx, 'Running the job with -Djavax.net.debug to see the request the legacy endpoint receives.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'JSSE debug output'))


def p_dotnet6_httpclient_trace_headers(ctx):
    out = []
    name = pick(['PaymentsApi', 'SendGrid', 'Twilio', 'Crm', 'Adyen'])
    if name == 'Adyen':
        url = 'https://checkout-live.adyenpayments.com/checkout/v71/payments'
        hdr = [('X-API-Key', M(adyen_key())), ('Idempotency-Key', uuid4())]
    elif name == 'SendGrid':
        url = 'https://api.sendgrid.com/v3/mail/send'
        hdr = [('Authorization', 'Bearer ' + M(sendgrid()))]
    elif name == 'Twilio':
        sid = 'AC' + hx(32)
        url = 'https://api.twilio.com/2010-04-01/Accounts/%s/Messages.json' % sid
        hdr = [('Authorization', 'Basic ' + M(b64e(('%s:%s' % (sid, hx(32))).encode())))]
    elif name == 'Crm':
        url = 'https://crm.%s/api/v2/contacts/batch' % ctx.domain
        hdr = [('X-Api-Key', M(pw_alnum(40))), ('X-Correlation-ID', uuid4())]
    else:
        url = 'https://api.%s/v1/charges' % ctx.domain
        hdr = [('Authorization', 'Bearer ' + M(sk_live()))]
    lines_common = [('traceparent', traceparent()), ('Accept', 'application/json')]

    def ev(lvl, cat, eid, msgs):
        out.append('%s: System.Net.Http.HttpClient.%s.%s[%d]' % (lvl, name, cat, eid))
        out.extend('      ' + m for m in msgs)
    reps = R.randint(2, 3) if ctx.long else 1
    for r in range(reps):
        method = 'POST'
        ev('info', 'LogicalHandler', 100, ['Start processing HTTP request %s %s' % (method, url)])
        ev('trce', 'LogicalHandler', 102, ['Request Headers:'] + ['%s: %s' % kv for kv in hdr + lines_common] + ['Content-Type: application/json; charset=utf-8'])
        ev('info', 'ClientHandler', 100, ['Sending HTTP request %s %s' % (method, url)])
        ev('trce', 'ClientHandler', 102, ['Request Headers:'] + ['%s: %s' % kv for kv in hdr + lines_common] + ['Content-Type: application/json; charset=utf-8'])
        st = pick([401, 403, 500, 200, 429])
        ms = R.uniform(40, 3000)
        ev('info', 'ClientHandler', 101, ['Received HTTP response headers after %.4fms - %d' % (ms, st)])
        ev('trce', 'ClientHandler', 103, ['Response Headers:', 'Date: ' + http_date(ctx.clock.tick(0.5, 3)), 'Connection: keep-alive',
                                          'X-Request-Id: ' + pick([uuid4(), ulid(), hx(32)]), 'Strict-Transport-Security: max-age=31536000',
                                          'Content-Type: application/json', 'Content-Length: %d' % R.randint(40, 600)])
        ev('info', 'LogicalHandler', 101, ['End processing HTTP request after %.4fms - %d' % (ms + R.uniform(0.1, 3), st)])
        if st >= 400:
            out.append('fail: %s.Workers.%sWorker[0]' % (ctx.org.capitalize(), name))
            out.append('      %s call failed with %d (attempt %d)' % (name, st, r + 1))
            if ctx.long:
                out += ['      System.Net.Http.HttpRequestException: Response status code does not indicate success: %d.' % st,
                        '         at System.Net.Http.HttpResponseMessage.EnsureSuccessStatusCode()',
                        '         at %s.Clients.%sClient.SendAsync(CancellationToken ct) in /src/%s/Clients/%sClient.cs:line %d' % (ctx.org.capitalize(), name, ctx.org.capitalize(), name, R.randint(30, 200)),
                        '         at %s.Workers.%sWorker.ExecuteAsync(CancellationToken stoppingToken) in /src/%s/Workers/%sWorker.cs:line %d' % (ctx.org.capitalize(), name, ctx.org.capitalize(), name, R.randint(20, 120))]
    if ctx.long:
        out = ['info: Microsoft.Hosting.Lifetime[14]', '      Now listening on: http://[::]:8080', 'info: Microsoft.Hosting.Lifetime[0]',
               '      Application started. Press Ctrl+C to shut down.', 'info: Microsoft.Hosting.Lifetime[0]', '      Hosting environment: Production',
               'info: Microsoft.Hosting.Lifetime[0]', '      Content root path: /app'] + out
    cmd = pick(['dotnet run --project src/%s.Worker 2>&1 | head -n 140' % ctx.org.capitalize(),
                'kubectl logs deploy/%s-worker --tail=150' % ctx.project, 'docker logs %s-worker-1 2>&1 | tail -n 120' % ctx.project])
    return render(ctx, note(ctx, 'Logging:LogLevel:System.Net.Http.HttpClient is set to Trace on this net6.0 worker; looking at the outbound calls.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'worker logs'))


def p_httplib2_debuglevel_token_refresh(ctx):
    out = []
    cid = '%s-%s.apps.googleusercontent.com' % (digits(12), rs(LOWNUM, 32))
    sec, rt, at = gocspx(), refresh1(), ya29()
    body = 'grant_type=refresh_token&client_id=%s&client_secret=%s&refresh_token=%s' % (quote(cid), M(sec), M(quote(rt, safe='')))
    ua = 'Python-httplib2/0.22.0 (gzip)'
    out.append('connect: (oauth2.googleapis.com, 443)')
    out.append("send: b'POST /token HTTP/1.1\\r\\nHost: oauth2.googleapis.com\\r\\ncontent-length: %d\\r\\ncontent-type: application/x-www-form-urlencoded\\r\\nuser-agent: %s\\r\\naccept-encoding: gzip, deflate\\r\\n\\r\\n'" % (len(strip_marks(body)), ua))
    out.append("send: b'%s'" % body)
    out.append("reply: 'HTTP/1.1 200 OK\\r\\n'")
    for h in ['Content-Type: application/json; charset=utf-8', 'Vary: Origin', 'Vary: X-Origin', 'Vary: Referer', 'Content-Encoding: gzip',
              'Date: ' + http_date(ctx.clock.t), 'Server: scaffolding on HTTPServer2', 'Cache-Control: private', 'X-XSS-Protection: 0',
              'X-Frame-Options: SAMEORIGIN', 'X-Content-Type-Options: nosniff', 'Alt-Svc: h3=":443"; ma=2592000,h3-29=":443"; ma=2592000',
              'Transfer-Encoding: chunked']:
        out.append('header: ' + h)
    apis = [('www.googleapis.com', '/drive/v3/files?q=%%27%s%%27+in+parents&pageSize=100&fields=files(id,name,md5Checksum)' % rs(B64U, 33)),
            ('sheets.googleapis.com', '/v4/spreadsheets/%s/values/Sheet1!A1:Z500' % rs(B64U, 44)),
            ('gmail.googleapis.com', '/gmail/v1/users/me/messages?maxResults=50&q=from%%3Abilling%%40%s' % ctx.domain),
            ('admin.googleapis.com', '/admin/directory/v1/users?customer=my_customer&maxResults=200')]
    n = R.randint(3, 5) if ctx.long else 1
    for i in range(n):
        h, p = pick(apis)
        out.append('connect: (%s, 443)' % h)
        out.append("send: b'GET %s HTTP/1.1\\r\\nHost: %s\\r\\nuser-agent: (gzip)\\r\\nx-goog-api-client: gdcl/2.127.0 gl-python/3.11.9 cred-type/u\\r\\ncontent-length: 0\\r\\nauthorization: Bearer %s\\r\\naccept-encoding: gzip, deflate\\r\\n\\r\\n'" % (p, h, M(at)))
        st = pick(['200 OK', '403 Forbidden', '200 OK'])
        out.append("reply: 'HTTP/1.1 %s\\r\\n'" % st)
        out += ['header: Content-Type: application/json; charset=UTF-8', 'header: Vary: Origin, X-Origin', 'header: Date: ' + http_date(ctx.clock.tick()),
                'header: ETag: "%s"' % rs(B64U, 27), 'header: Content-Encoding: gzip', 'header: X-GUploader-UploadID: %s' % rs(ALNUM + '-_', 72),
                'header: Transfer-Encoding: chunked']
        if ctx.long:
            out.append('%s %d files, next page token %s' % (pick(['listed', 'fetched']), R.randint(1, 100), rs(B64U, 60)))
    if chance(0.5):
        out.append("credentials.token = '%s'" % M(at))
    cmd = pick(['python scripts/drive_sync.py --debug-http', 'python -m %s.google_export --since yesterday' % ctx.project.replace('-', '_'),
                'HTTPLIB2_DEBUG=4 python tools/list_files.py 2>&1 | head -n 120'])
    return render(ctx, note(ctx, 'Setting httplib2.debuglevel = 4 to see why the Google export gets a 403 after the refresh.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'Google API with wire debug'))


def p_azure_core_network_trace_logging(ctx):
    out = []
    P = 'azure.core.pipeline.policies._universal'
    H = 'azure.core.pipeline.policies.http_logging_policy'
    tenant, appid = uuid4(), uuid4()
    now = int(epoch(ctx.clock.t))
    vault = 'kv-%s-%s' % (ctx.org, pick(['prod', 'shared', 'ops']))
    aad = jwt({'aud': 'https://vault.azure.net', 'iss': 'https://sts.windows.net/%s/' % tenant, 'iat': now - 60, 'nbf': now - 60,
               'exp': now + 3600 * 24, 'aio': rs(B64U + '+/', 56) + '=', 'appid': appid, 'appidacr': '2', 'idp': 'https://sts.windows.net/%s/' % tenant,
               'oid': uuid4(), 'rh': '0.' + rs(B64U, 60) + '.', 'sub': uuid4(), 'tid': tenant, 'uti': rs(B64U, 22), 'ver': '1.0',
               'xms_mirid': '/subscriptions/%s/resourcegroups/rg-%s/providers/Microsoft.Web/sites/%s' % (uuid4(), ctx.project, ctx.project)},
              header={'typ': 'JWT', 'alg': 'RS256', 'x5t': rs(B64U, 27), 'kid': rs(B64U, 27)})
    names = R.sample(['stripe-live', 'db-password', 'sendgrid', 'jwt-signing', 'smtp-relay', 'github-app'], 3 if ctx.long else 1)
    for nm in names:
        url = 'https://%s.vault.azure.net/secrets/%s/?api-version=7.4' % (vault, nm)
        rid = uuid4()
        out.append('INFO:%s:Request URL: \'%s\'' % (H, url))
        out.append("INFO:%s:Request method: 'GET'" % H)
        out.append('INFO:%s:Request headers:' % H)
        for h, v in [('Accept', 'application/json'), ('x-ms-client-request-id', rid), ('User-Agent', 'azsdk-python-keyvault-secrets/4.8.0 Python/3.11.9 (Linux-5.15.0-1064-azure-x86_64-with-glibc2.35)'),
                     ('Authorization', 'REDACTED')]:
            out.append("INFO:%s:    '%s': '%s'" % (H, h, v))
        out.append('INFO:%s:No body was attached to the request' % H)
        out.append('DEBUG:%s:Request URL: \'%s\'' % (P, url))
        out.append("DEBUG:%s:Request method: 'GET'" % P)
        out.append('DEBUG:%s:Request headers:' % P)
        for h, v in [('Accept', 'application/json'), ('x-ms-client-request-id', rid), ('User-Agent', 'azsdk-python-keyvault-secrets/4.8.0 Python/3.11.9 (Linux-5.15.0-1064-azure-x86_64-with-glibc2.35)'),
                     ('Authorization', 'Bearer ' + M(aad))]:
            out.append("DEBUG:%s:    '%s': '%s'" % (P, h, v))
        out.append('DEBUG:%s:Request body:' % P)
        out.append('DEBUG:%s:None' % P)
        out.append('DEBUG:urllib3.connectionpool:https://%s.vault.azure.net:443 "GET /secrets/%s/?api-version=7.4 HTTP/1.1" 200 %d' % (vault, nm, R.randint(250, 3500)))
        out.append('DEBUG:%s:Response status: 200' % P)
        out.append('DEBUG:%s:Response headers:' % P)
        for h, v in [('Cache-Control', 'no-cache'), ('Content-Type', 'application/json; charset=utf-8'), ('x-ms-keyvault-region', pick(['westeurope', 'eastus2', 'japaneast'])),
                     ('x-ms-client-request-id', rid), ('x-ms-request-id', uuid4()), ('x-ms-keyvault-service-version', '1.9.1429.1'),
                     ('x-ms-keyvault-network-info', 'conn_type=Ipv4;addr=%s;act_addr_fam=InterNetwork;' % ip_pub()), ('Date', http_date(ctx.clock.tick()))]:
            out.append("DEBUG:%s:    '%s': '%s'" % (P, h, v))
        if nm == 'stripe-live':
            val = M(sk_live())
        elif nm == 'sendgrid':
            val = M(sendgrid())
        elif nm == 'github-app':
            val = M(gh('ghs_'))
        elif nm == 'jwt-signing':
            val = M(b64e(rbytes(48)))
        else:
            val = M(pw_any())
        out.append('DEBUG:%s:Response content:' % P)
        out.append('DEBUG:%s:{"value":"%s","id":"https://%s.vault.azure.net/secrets/%s/%s","attributes":{"enabled":true,"created":%d,"updated":%d,"recoveryLevel":"Recoverable+Purgeable","recoverableDays":90},"tags":{"owner":"%s"}}'
                   % (P, val, vault, nm, hx(32), now - R.randint(10 ** 5, 10 ** 7), now - R.randint(1000, 10 ** 5), ctx.project))
    cmd = pick(['python -m %s.config_check --verbose' % ctx.project.replace('-', '_'), 'python scripts/kv_smoke.py 2>&1 | head -n 150',
                'func start --verbose 2>&1 | grep -E "azure.core|urllib3" | head -n 150'])
    return render(ctx, note(ctx, 'SecretClient was built with logging_enable=True; rerunning the config check to see the Key Vault calls.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'key vault debug'))


def git_trace_ts(ctx):
    t = ctx.clock.tick(0.00001, 0.004)
    return hms(t, 6)


def p_git_trace_curl_redact_off(ctx):
    out = []
    forge = pick(['github', 'gitlab', 'gitea'])
    if forge == 'github':
        host, user, tok = 'github.com', 'x-access-token', gh('ghs_')
    elif forge == 'gitlab':
        host, user, tok = 'gitlab.%s' % ctx.domain, 'oauth2', glpat()
    else:
        host, user, tok = 'git.%s' % ctx.domain, 'ci-bot', hx(40)
    repo = '%s/%s' % (ctx.org, ctx.project)
    blob = b64e(('%s:%s' % (user, tok)).encode())
    cookie = None
    if forge == 'gitea':
        cookie = 'i_like_gitea=%s; _csrf=%s' % (M(hx(16)), rs(B64U, 30))

    def T(src, msg):
        out.append('%s %-24s%s' % (git_trace_ts(ctx), src, msg))
    if ctx.long:
        T('git.c:463', 'trace: built-in: git fetch origin')
        T('run-command.c:657', 'trace: run_command: GIT_DIR=.git git remote-https origin https://%s/%s.git' % (host, repo))
        T('git.c:749', "trace: exec: git-remote-https origin https://%s/%s.git" % (host, repo))
    gip = ip_pub()
    for info in ['Couldn\'t find host %s in the .netrc file; using defaults' % host, 'Host %s:443 was resolved.' % host,
                 'IPv6: (none)', 'IPv4: %s' % gip, '  Trying %s:443...' % gip, 'Connected to %s (%s) port 443' % (host, gip),
                 'ALPN: curl offers h2,http/1.1', 'SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256 / X25519 / id-ecPublicKey',
                 'ALPN: server accepted h2', 'Server certificate:', ' subject: CN=%s' % host, ' SSL certificate verify ok.']:
        if ctx.long or chance(0.3):
            T('http.c:845', '== Info: ' + info)
    rounds = [('GET', '/%s.git/info/refs?service=git-upload-pack' % repo), ('POST', '/%s.git/git-upload-pack' % repo)]
    if not ctx.long:
        rounds = rounds[:1]
    for method, path in rounds:
        hs = ['%s %s HTTP/2' % (method, path), 'Host: %s' % host, 'Authorization: Basic %s' % M(blob),
              'User-Agent: git/2.%d.%d' % (R.randint(39, 45), R.randint(0, 3)), 'Accept: */*', 'Accept-Encoding: deflate, gzip, br, zstd']
        if cookie:
            hs.append('Cookie: ' + cookie)
        hs += ['Accept-Language: C, *;q=0.9', 'Pragma: no-cache', 'Git-Protocol: version=2']
        if method == 'POST':
            hs += ['Content-Type: application/x-git-upload-pack-request', 'Accept: application/x-git-upload-pack-result', 'Content-Length: %d' % R.randint(150, 900)]
        T('http.c:792', '=> Send header, %010d bytes (0x%08x)' % (sum(len(strip_marks(h)) + 2 for h in hs) + 2, sum(len(strip_marks(h)) + 2 for h in hs) + 2))
        for h in hs:
            T('http.c:804', '=> Send header: ' + h)
        T('http.c:804', '=> Send header: ')
        if method == 'POST':
            T('http.c:792', '=> Send data, %010d bytes (0x%08x)' % (R.randint(150, 900), R.randint(150, 900)))
            for pk in ['0014command=fetch', '0016object-format=sha1', '0001', '000dthin-pack', '000dofs-delta',
                       '0032want %s' % gitsha(), '0032have %s' % gitsha(), '0009done', '0000']:
                if ctx.long:
                    T('http.c:804', '=> Send data: ' + pk)
        T('http.c:792', '<= Recv header, 0000000013 bytes (0x0000000d)')
        T('http.c:804', '<= Recv header: HTTP/2 200')
        rhs = ['server: %s' % {'github': 'GitHub Babel 2.0', 'gitlab': 'nginx', 'gitea': 'Caddy'}[forge],
               'content-type: application/x-git-upload-pack-%s' % ('advertisement' if method == 'GET' else 'result'),
               'cache-control: no-cache, max-age=0, must-revalidate', 'expires: Fri, 01 Jan 1980 00:00:00 GMT', 'pragma: no-cache',
               'vary: Accept-Encoding', 'date: ' + http_date(ctx.clock.t)]
        if forge == 'github':
            rhs.append('x-github-request-id: %s:%s:%s:%s:%s' % (HX(4), HX(5), HX(6), HX(7), HX(8)))
        elif forge == 'gitlab':
            rhs.append('x-request-id: ' + ulid())
        for h in rhs:
            if ctx.long or chance(0.4):
                T('http.c:804', '<= Recv header: ' + h)
        T('http.c:804', '<= Recv header: ')
        if method == 'GET' and ctx.long:
            for pk in ['000eversion 2', '0023agent=git/github-%s' % hx(7), '0013ls-refs=unborn', '0020fetch=shallow wait-for-done filter',
                       '0012server-option', '0017object-format=sha1', '0000']:
                T('pkt-line.c:86', 'packet:          git< ' + pk[4:])
    if ctx.long:
        out.append('From https://%s/%s' % (host, repo))
        out.append('   %s..%s  main       -> origin/main' % (hx(9), hx(9)))
    env = pick(['GIT_TRACE_CURL=1 GIT_TRACE_REDACT=0', 'GIT_TRACE=1 GIT_CURL_VERBOSE=1 GIT_TRACE_REDACT=0'])
    cmd = '%s git fetch origin 2>&1 | %s' % (env, pick(['head -n 120', 'grep -v "Send data"', 'cat']))
    return render(ctx, note(ctx, 'Fetch fails only on the runner; tracing the HTTP exchange with redaction off to see which credential helper wins.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'trace git over https'))


def p_tf_log_debug_provider_http_dump(ctx):
    out = []
    prov = pick(['github', 'datadog', 'cloudflare', 'pagerduty'])
    ver = {'github': 'v6.2.1', 'datadog': 'v3.39.0', 'cloudflare': 'v4.31.0', 'pagerduty': 'v3.11.4'}[prov]
    pname = 'provider.terraform-provider-%s_%s' % (prov, ver)

    def TL(lvl, msg):
        t = ctx.clock.tick(0.001, 0.3)
        out.append('%s.%03d%s [%s] %s' % (iso(t, 0, '')[:19], t.microsecond // 1000, 'Z', lvl, msg))
    TL('INFO', 'Terraform version: 1.8.%d' % R.randint(0, 5))
    TL('DEBUG', 'using github.com/hashicorp/go-tfe v1.51.0')
    TL('INFO', 'Go runtime version: go1.22.1')
    TL('INFO', 'CLI args: []string{"terraform", "plan", "-target=%s"}' % pick(['module.repos', 'datadog_monitor.api_latency', 'cloudflare_record.app', 'pagerduty_service.api']))
    if ctx.long:
        for m in ['Loading CLI configuration from /home/%s/.terraformrc' % ctx.user, 'checking for provisioner in "."',
                  'provider: using cached provider "registry.terraform.io/%s/%s"' % ('integrations' if prov == 'github' else prov, prov),
                  'provider: starting plugin: path=.terraform/providers/registry.terraform.io/%s/%s/%s/linux_amd64/terraform-provider-%s_%s' % ('integrations' if prov == 'github' else prov, prov, ver[1:], prov, ver),
                  'provider: plugin started: path=.terraform/providers/... pid=%d' % R.randint(2000, 60000),
                  'provider: waiting for RPC address: path=.terraform/providers/...']:
            TL('DEBUG', m)
    reqs = R.randint(2, 3) if ctx.long else 1
    for i in range(reqs):
        if prov == 'github':
            tok = ctx.__dict__.setdefault('_tok', gh(pick(['ghp_', 'gho_'])))
            head = '%s: %s [DEBUG] GitHub API Request Details:' % (pname, slash_ts(ctx.clock.t))
            req = ['GET /repos/%s/%s HTTP/1.1' % (ctx.org, pick(PROJECTS)), 'Host: api.github.com', 'User-Agent: go-github/v62.0.0',
                   'Accept: application/vnd.github.v3+json', 'Authorization: Bearer ' + M(tok), 'X-Github-Api-Version: 2022-11-28', 'Accept-Encoding: gzip']
            resp = ['HTTP/2.0 200 OK', 'Cache-Control: private, max-age=60, s-maxage=60', 'Content-Type: application/json; charset=utf-8',
                    'Etag: W/"%s"' % hx(64), 'X-Github-Request-Id: %s:%s:%s:%s:%s' % (HX(4), HX(5), HX(6), HX(7), HX(8)),
                    'X-Oauth-Scopes: admin:org, repo, workflow', 'X-Ratelimit-Remaining: %d' % R.randint(100, 4999)]
        elif prov == 'datadog':
            ak, apk = ctx.__dict__.setdefault('_dd', (hx(32), hx(40)))
            head = '%s: %s [DEBUG] Datadog API Request Details:' % (pname, slash_ts(ctx.clock.t))
            req = ['GET /api/v1/monitor/%d HTTP/1.1' % R.randint(10 ** 6, 10 ** 8), 'Host: api.datadoghq.com', 'User-Agent: terraform-provider-datadog/3.39.0 (go go1.22.1; Terraform 1.8.2; terraform-plugin-sdk 2.33.0; linux amd64) datadog-api-client-go/2.25.0 (go go1.22.1; os linux; arch amd64)',
                   'Accept: application/json', 'Dd-Api-Key: ' + M(ak), 'Dd-Application-Key: ' + M(apk), 'Accept-Encoding: gzip']
            resp = ['HTTP/1.1 200 OK', 'Content-Type: application/json', 'X-Ratelimit-Remaining: %d' % R.randint(10, 3000), 'X-Frame-Options: DENY', 'Date: ' + http_date(ctx.clock.t)]
        elif prov == 'cloudflare':
            tok = ctx.__dict__.setdefault('_cf', U(ALNUM + '-_', 40))
            head = '%s: %s [DEBUG] cloudflare: ---[ REQUEST ]---------------------------------------' % (pname, slash_ts(ctx.clock.t))
            req = ['GET /client/v4/zones/%s/dns_records?per_page=100 HTTP/1.1' % hx(32), 'Host: api.cloudflare.com', 'User-Agent: terraform-provider-cloudflare/4.31.0 terraform-plugin-framework terraform/1.8.2',
                   'Authorization: Bearer ' + M(tok), 'Content-Type: application/json', 'Accept-Encoding: gzip']
            resp = ['HTTP/2.0 200 OK', 'Cf-Ray: ' + cf_ray(), 'Content-Type: application/json', 'Set-Cookie: __cfruid=%s-%d; path=/; domain=.api.cloudflare.com; HttpOnly; Secure; SameSite=None' % (hx(40), int(epoch(ctx.clock.t)))]
        else:
            tok = ctx.__dict__.setdefault('_pd', U(ALNUM + '-_+', 20))
            head = '%s: %s [DEBUG] PagerDuty API Request:' % (pname, slash_ts(ctx.clock.t))
            req = ['GET /services/P%s?include%%5B%%5D=integrations HTTP/1.1' % rs(UP + DIG, 6), 'Host: api.pagerduty.com', 'User-Agent: (linux amd64) Terraform/1.8.2',
                   'Accept: application/vnd.pagerduty+json;version=2', 'Authorization: Token token=' + M(tok), 'Content-Type: application/json']
            resp = ['HTTP/1.1 200 OK', 'Content-Type: application/json; charset=utf-8', 'X-Request-Id: ' + hx(32), 'Date: ' + http_date(ctx.clock.t)]
        TL('DEBUG', head)
        out.extend(req)
        out.append('-----------------------------------------------------')
        TL('DEBUG', '%s: %s [DEBUG] %s API Response Details:' % (pname, slash_ts(ctx.clock.tick(0.05, 0.8)), prov.capitalize()))
        out.append('---[ RESPONSE ]--------------------------------------')
        out.extend(resp)
        out.append('-----------------------------------------------------')
    if ctx.long:
        TL('DEBUG', 'ReferenceTransformer: "%s" references: []' % pick(['module.repos', 'datadog_monitor.api_latency']))
        TL('INFO', 'backend/local: plan operation completed')
        out += ['', 'No changes. Your infrastructure matches the configuration.']
    cmd = 'TF_LOG=DEBUG terraform plan -target=%s 2>&1 | %s' % (pick(['module.repos', 'datadog_monitor.api_latency', 'cloudflare_record.app', 'pagerduty_service.api']),
                                                               pick(['grep -A14 "Request Details\\|REQUEST"', 'sed -n "1,160p"', 'tail -n 80']))
    return render(ctx, note(ctx, 'The plan hangs on the provider refresh; turning on TF_LOG=DEBUG to see the API calls.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'terraform debug log'))


def p_smtplib_debuglevel_auth_plain(ctx):
    out = []
    relay = pick([('smtp.sendgrid.net', 'apikey', 'sg'), ('email-smtp.us-east-1.amazonaws.com', None, 'ses'),
                  ('smtp.mailgun.org', 'postmaster@mg.' + ctx.domain, 'pw'), ('smtp.office365.com', 'alerts@' + ctx.domain, 'pw')])
    host, user, kind = relay
    if kind == 'sg':
        pw = sendgrid()
    elif kind == 'ses':
        user = akid()
        pw = fresh(lambda: 'B' + rs(ALNUM + '+/', 43))
    else:
        pw = pw_any()
    mech = pick(['PLAIN', 'LOGIN']) if kind != 'sg' else 'PLAIN'

    def S(direction, data):
        t = ctx.clock.tick(0.001, 0.2)
        out.append('%s %s: %s' % (hms(t, 6), direction, data))
    S('connect', "('%s', 587)" % host)
    S('reply', "b'220 %s ESMTP ready\\r\\n'" % host)
    S('reply', "retcode (220); Msg: b'%s ESMTP ready'" % host)
    me = '%s.%s.internal' % (ctx.host, ctx.org)
    for round_ in (0, 1):
        S('send', "'ehlo %s\\r\\n'" % me)
        for ln in ['250-%s' % host, '250-8BITMIME', '250-PIPELINING', '250-SIZE 31457280', '250-STARTTLS' if round_ == 0 else '250-AUTH PLAIN LOGIN', '250 AUTH=PLAIN LOGIN']:
            S('reply', "b'%s\\r\\n'" % ln)
        S('reply', "retcode (250); Msg: b'%s\\n8BITMIME\\nPIPELINING\\nSIZE 31457280\\n%s'" % (host, 'STARTTLS\\nAUTH=PLAIN LOGIN' if round_ == 0 else 'AUTH PLAIN LOGIN\\nAUTH=PLAIN LOGIN'))
        if round_ == 0:
            S('send', "'STARTTLS\\r\\n'")
            S('reply', "b'220 2.0.0 Ready to start TLS\\r\\n'")
            S('reply', "retcode (220); Msg: b'2.0.0 Ready to start TLS'")
    if mech == 'PLAIN':
        blob = b64e(('\0%s\0%s' % (user, pw)).encode())
        S('send', "'AUTH PLAIN %s\\r\\n'" % M(blob))
    else:
        S('send', "'AUTH LOGIN %s\\r\\n'" % b64e(user.encode()))
        S('reply', "b'334 UGFzc3dvcmQ6\\r\\n'")
        S('reply', "retcode (334); Msg: b'UGFzc3dvcmQ6'")
        S('send', "'%s\\r\\n'" % M(b64e(pw.encode())))
    S('reply', "b'235 2.7.0 Authentication successful\\r\\n'")
    S('reply', "retcode (235); Msg: b'2.7.0 Authentication successful'")
    frm = 'alerts@%s' % ctx.domain
    for _m in range(2 if ctx.long else 1):
        smtp_message(S, ctx, frm, me)
    S('send', "'quit\\r\\n'")
    S('reply', "b'221 2.0.0 Bye\\r\\n'")
    if not ctx.long:
        out = [l for l in out if 'retcode' not in l]
    cmd = pick(['python scripts/send_test_alert.py', 'python -c "from %s.alerts import send; send(\'test\')"' % ctx.project.replace('-', '_'),
                'SMTP_DEBUG=2 python manage.py sendtestemail %s@%s' % (ctx.user, ctx.domain)])
    return render(ctx, note(ctx, 'Alerts mail is not arriving; enabling smtplib debuglevel 2 to watch the SMTP dialogue.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'send test alert'))


def smtp_message(S, ctx, frm, me):
    S('send', "'mail FROM:<%s> size=%d\\r\\n'" % (frm, R.randint(800, 9000)))
    S('reply', "b'250 2.1.0 Ok\\r\\n'")
    S('reply', "retcode (250); Msg: b'2.1.0 Ok'")
    S('send', "'rcpt TO:<%s@%s>\\r\\n'" % (pick(NAMES), pick(['example.com', ctx.domain])))
    S('reply', "b'250 2.1.5 Ok\\r\\n'")
    S('reply', "retcode (250); Msg: b'2.1.5 Ok'")
    S('send', "'data\\r\\n'")
    S('reply', "b'354 End data with <CR><LF>.<CR><LF>\\r\\n'")
    S('reply', "retcode (354); Msg: b'End data with <CR><LF>.<CR><LF>'")
    msgid = '<%d.%d.%d@%s>' % (R.randint(10 ** 17, 10 ** 18), R.randint(1000, 99999), R.randint(10 ** 9, 10 ** 10), me)
    S('data', "b'Content-Type: text/plain; charset=\"utf-8\"\\r\\nMIME-Version: 1.0\\r\\nSubject: =?utf-8?b?%s?=\\r\\nFrom: %s\\r\\nMessage-ID: %s\\r\\n\\r\\n%s\\r\\n.\\r\\n'"
      % (b64e(pick(['[ALERT] 支払い失敗 spike', '[ALERT] queue lag > 5m', '🚨 checkout 5xx rate']).encode()), frm, msgid, pick(['Queue lag is above threshold.', 'See runbook RB-%d' % R.randint(10, 99)])))
    qid = HX(10)
    S('reply', "b'250 2.0.0 Ok: queued as %s\\r\\n'" % qid)
    S('reply', "retcode (250); Msg: b'2.0.0 Ok: queued as %s'" % qid)


# ---------------------------------------------------------------------------
# P: stack traces, error pages and config dumps
# ---------------------------------------------------------------------------
def loguru_annot(src, items, indent=4):
    """better_exceptions/loguru value annotations under a source line"""
    cols, pos = [], 0
    for tok, _ in items:
        i = src.index(tok, pos)
        cols.append(i)
        pos = i + len(tok)
    out = [' ' * indent + src]
    for k in range(len(cols) - 1, -1, -1):
        row = [' '] * cols[k]
        for j in range(k):
            row[cols[j]] = '│'
        out.append(' ' * indent + ''.join(row) + '└ ' + items[k][1])
    return out


def p_loguru_diagnose_annotated_frames(ctx):
    c = ctx.clock
    mod = ctx.project.replace('-', '_')
    root = ctx.abscwd
    site = '%s/%s/lib/python3.11/site-packages' % (root, ctx.venv)
    acct = R.randint(100, 99999)
    v = R.randint(0, 3)
    if v == 0:
        tok = hubspot_pat()
        url = 'https://api.hubapi.com/crm/v3/objects/contacts/search'
        hv = "{'Authorization': 'Bearer %s', 'Content-Type': 'application/json'}" % M(tok)
        src = 'resp = session.post(url, headers=headers, json=body, timeout=10)'
        items = [('session', '<requests.sessions.Session object at %s>' % addr_py()), ('post', '<function Session.post at %s>' % addr_py()),
                 ('url', "'%s'" % url), ('headers', hv),
                 ('body', "{'after': '%s', 'limit': 100}" % b64u(('{"id":%d}' % R.randint(1000, 99999)).encode()))]
        exc = 'requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: %s' % url
    elif v == 1:
        tok = shpat()
        shop = '%s-%s.myshopify.com' % (ctx.org, pick(['store', 'eu', 'jp']))
        url = 'https://%s/admin/api/2024-04/orders.json?status=any&limit=250' % shop
        hv = "{'X-Shopify-Access-Token': '%s'}" % M(tok)
        src = 'resp = http.get(url, headers=headers)'
        items = [('http', '<httpx.Client object at %s>' % addr_py()), ('get', '<function Client.get at %s>' % addr_py()),
                 ('url', "'%s'" % url), ('headers', hv)]
        exc = "httpx.HTTPStatusError: Client error '401 Unauthorized' for url '%s'" % url
    elif v == 2:
        sid, tok = 'AC' + hx(32), hx(32)
        src = 'msg = client.messages.create(to=to, from_=sender, body=text)'
        items = [('client', '<Twilio %s>' % sid), ('messages', '<twilio.rest.api.v2010.account.message.MessageList object at %s>' % addr_py()),
                 ('to', "'+8190%s'" % rs(DIG, 8)), ('sender', "'+1415%s'" % rs(DIG, 7)), ('text', "'%s'" % pick(['ご注文ありがとうございます', 'Your code is %d' % R.randint(100000, 999999), '您的订单已发货']))]
        extra = ('auth', "('%s', '%s')" % (sid, M(tok)))
        exc = 'twilio.base.exceptions.TwilioRestException: HTTP 401 error: Unable to create record: Authenticate'
    else:
        tok = sk_live('rk_live_')
        src = 'charge = stripe.PaymentIntent.create(amount=amount, currency=cur, api_key=api_key)'
        items = [('stripe', "<module 'stripe' from '%s/stripe/__init__.py'>" % site), ('amount', str(R.randint(100, 90000))),
                 ('cur', "'%s'" % pick(['usd', 'eur', 'jpy'])), ('api_key', "'%s'" % M(tok))]
        exc = 'stripe._error.AuthenticationError: Invalid API Key provided: %s' % (tok[:8] + '*' * 24 + tok[-4:])
    lines = ['%s | ERROR    | %s.sync:run:%d - sync failed for account %d' % (sp(c.t, 3), mod, R.randint(40, 140), acct),
             'Traceback (most recent call last):', '',
             '  File "%s/%s/bin/worker", line 8, in <module>' % (root, ctx.venv)]
    lines += loguru_annot('sys.exit(main())', [('sys', "<module 'sys' (built-in)>"), ('exit', '<built-in function exit>'), ('main', '<function main at %s>' % addr_py())])
    lines += ['', '  File "%s/%s/cli.py", line %d, in main' % (root, mod, R.randint(20, 90))]
    lines += loguru_annot('run(account_id=args.account)', [('run', '<function run at %s>' % addr_py()), ('args', 'Namespace(account=%d, dry_run=False, since=None)' % acct), ('account', str(acct))])
    if ctx.long:
        lines += ['', '  File "%s/%s/retry.py", line %d, in wrapper' % (root, mod, R.randint(20, 60))]
        lines += loguru_annot('return fn(*args, **kwargs)', [('fn', '<function run at %s>' % addr_py()), ('args', '()'), ('kwargs', "{'account_id': %d}" % acct)])
    lines += ['', '> File "%s/%s/sync.py", line %d, in run' % (root, mod, R.randint(40, 140))]
    lines += loguru_annot(src, items)
    if v == 2:
        lines += ['', '  File "%s/twilio/rest/api/v2010/account/message/__init__.py", line 781, in create' % site]
        lines += loguru_annot('payload = self._version.create(method="POST", uri=self._uri, data=data, headers=headers)',
                              [('self', '<twilio.rest.api.v2010.account.message.MessageList object at %s>' % addr_py()), ('data', "{'To': '+81...', 'From': '+1415...'}")])
        lines += ['', '  File "%s/twilio/http/http_client.py", line 96, in request' % site]
        lines += loguru_annot('request = Request(method.upper(), url, params=params, data=data, headers=headers, auth=auth)',
                              [('method', "'POST'"), ('url', "'https://api.twilio.com/2010-04-01/Accounts/%s/Messages.json'" % sid), extra])
    elif ctx.long and v == 0:
        lines += ['', '  File "%s/requests/sessions.py", line 637, in post' % site]
        lines += loguru_annot('return self.request("POST", url, data=data, json=json, **kwargs)',
                              [('self', '<requests.sessions.Session object at %s>' % addr_py()), ('url', "'https://...'"), ('data', 'None')])
        lines += ['', '  File "%s/requests/models.py", line 1024, in raise_for_status' % site,
                  '    raise HTTPError(http_error_msg, response=self)', '          │                           └ <Response [401]>',
                  "          └ '401 Client Error: Unauthorized for url: ...'"]
    lines += ['', exc]
    if ctx.long:
        for _ in range(R.randint(16, 28)):
            if chance(0.2):
                lines.append('%s | INFO     | %s.notify:send:%d - %s' % (sp(c.tick(0.5, 5), 3), mod, R.randint(10, 90), human_msg()))
            lines.append('%s | INFO     | %s.sync:run:%d - account %d: %d records, cursor=%s' % (sp(c.tick(0.5, 5), 3), mod, R.randint(40, 140), R.randint(100, 99999), R.randint(0, 800), b64u(('{"id":%d}' % R.randint(1000, 99999)).encode())))
    cmd = pick(['tail -n %d logs/worker.log' % len(lines), 'journalctl -u %s-worker -o cat -n 60' % ctx.project, 'kubectl logs job/%s-sync-%d --tail=100' % (ctx.project, R.randint(28000000, 29000000))])
    if cmd.startswith('tail'):
        return render(ctx, note(ctx, 'The worker logs with loguru diagnose=True, so the traceback carries the values of each variable.') if chance(0.5) else [],
                      file_step(ctx, '%s/logs/worker.log' % ctx.abscwd, cmd, lines, 'worker traceback', R.randint(200, 9000)))
    return render(ctx, note(ctx, 'The worker logs with loguru diagnose=True, so the traceback carries the values of each variable.') if chance(0.5) else [],
                  step(ctx, cmd, lines, 'worker traceback'))


def jq_dump(obj, indent=2):
    """json.dumps with jq's layout; strings already carry marks"""
    return json.dumps(obj, indent=indent, ensure_ascii=False).split('\n')


def p_sentry_event_request_breadcrumbs(ctx):
    c = ctx.clock
    shopt = shpat()
    hook = rs(ALNUM, 24)
    mapbox = 'sk.eyJ1IjoiJXMiLCJhIjoi%s' % rs(ALNUM, 20)
    mapbox = fresh(lambda: 'sk.' + b64u(json.dumps({'u': ctx.org, 'a': rs(LOWNUM, 25)}, separators=(',', ':')).encode()) + '.' + rs(B64U, 22))
    rk = sk_live('rk_live_')
    headers = {'Host': 'api.' + ctx.domain, 'User-Agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15',
               'Accept': 'application/json', 'Authorization': '[Filtered]', 'Cookie': '[Filtered]',
               'X-Shopify-Access-Token': M(shopt), 'Content-Type': 'application/json',
               'Sentry-Trace': '%s-%s-1' % (trace_id(), span_id()), 'X-Request-Id': uuid4()}
    req = {'url': 'https://api.%s/v1/checkout/%d' % (ctx.domain, R.randint(10000, 99999)), 'method': 'POST', 'query_string': '',
           'headers': headers, 'data': {'email': '%s@example.com' % pick(NAMES), 'card_token': 'tok_1P' + rs(ALNUM, 22), 'password': '[Filtered]', 'note': pick(JP + CN + ['gift wrap 🎁'])},
           'env': {'SERVER_NAME': ctx.host, 'SERVER_PORT': '8000'}}
    crumbs = [
        {'timestamp': iso(c.tick(), 6), 'type': 'default', 'category': 'query', 'level': 'info',
         'message': 'SELECT "api_keys"."id", "api_keys"."prefix", "api_keys"."digest" FROM "api_keys" WHERE "api_keys"."digest" = %s LIMIT 1'},
        {'timestamp': iso(c.tick(), 6), 'type': 'http', 'category': 'httplib', 'level': 'info',
         'data': {'url': 'https://api.mapbox.com/geocoding/v5/mapbox.places/%s.json' % quote(pick(['東京都渋谷区', 'Berlin Mitte', 'Paris 11e'])),
                  'http.query': 'access_token=%s&limit=1' % M(mapbox), 'method': 'GET', 'status_code': 200, 'reason': 'OK'}},
        {'timestamp': iso(c.tick(), 6), 'type': 'http', 'category': 'httplib', 'level': 'warning',
         'data': {'url': 'https://hooks.slack.com/services/T%s/B%s/%s' % (rs(UP + DIG, 8), rs(UP + DIG, 10), M(hook)),
                  'method': 'POST', 'status_code': 404, 'reason': 'Not Found'}},
        {'timestamp': iso(c.tick(), 6), 'type': 'default', 'category': 'redis', 'level': 'info', 'message': 'GET checkout:lock:%s' % uuid4()},
    ]
    if not ctx.long:
        crumbs = crumbs[1:3]
    extra = {'sys.argv': ['gunicorn', '%s.wsgi' % ctx.project.replace('-', '_')],
             'integration': {'provider': 'stripe', 'account': 'acct_' + rs(ALNUM, 16), 'stripe_key': M(rk), 'webhook_tolerance': 300}}
    ev = {'event_id': hx(32), 'level': 'error', 'platform': 'python', 'release': '%s@%s' % (ctx.project, gitsha()[:12]),
          'environment': 'production', 'request': req, 'breadcrumbs': {'values': crumbs}, 'extra': extra,
          'contexts': {'trace': {'trace_id': trace_id(), 'span_id': span_id(), 'op': 'http.server', 'status': 'internal_error'}}}
    eid = ev['event_id']
    if not ctx.long:
        ev = {'headers': {k: v for k, v in headers.items() if k in ('Host', 'Authorization', 'Cookie', 'X-Shopify-Access-Token', 'X-Request-Id')},
              'crumbs': [c_['data'] for c_ in crumbs], 'integration': extra['integration']}
    out = jq_dump(ev)
    if not ctx.long:
        return render(ctx, step(ctx, "jq '{headers: .request.headers, crumbs: [.breadcrumbs.values[] | select(.type == \"http\") | .data], integration: .extra.integration}' /tmp/sentry-%s.json" % eid[:8], out, 'sentry event json'))
    cmd = pick(['jq \'{event_id, level, release, environment, request, breadcrumbs, extra%s}\' /tmp/sentry-%s.json' % (', contexts' if ctx.long else '', eid[:8]),
                'curl -s -H "Authorization: Bearer $SENTRY_AUTH_TOKEN" https://sentry.io/api/0/projects/%s/%s/events/%s/json/ | jq \'{event_id, level, release, environment, request, breadcrumbs, extra%s}\'' % (ctx.org, ctx.project, eid, ', contexts' if ctx.long else '')])
    return render(ctx, note(ctx, 'Pulling the raw Sentry event for the checkout 500 to see the request and breadcrumbs.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'sentry event json'))


def rails_cookie():
    return fresh(lambda: quote(b64e(rbytes(R.randint(90, 180))), safe='') + '--' + quote(b64e(rbytes(12)), safe='') + '--' + quote(b64e(rbytes(16)), safe=''))


def p_rails_dev_error_env_dump(ctx):
    app = ctx.project.replace('-', '_')
    oid = R.randint(1000, 99999)
    k = R.randint(0, 2)
    ctrl = ['Admin::OrdersController#show', 'Admin::OrdersController#show', 'Admin::RefundsController#create'][k]
    exc = [('ActiveRecord::RecordNotFound', "Couldn't find Order with 'id'=%d" % oid),
           ('NoMethodError', "undefined method `currency' for nil"),
           ('Faraday::UnauthorizedError', 'the server responded with status 401')][k]
    src = [['11    def show', '12      @order = Order.find(params[:id])', '13    end'],
           ['11    def show', '12      @total = @order.invoice.currency.format(@order.total_cents)', '13    end'],
           ['11    def create', '12      @refund = PaymentsClient.new.refund!(@order.charge_id, amount: refund_params[:amount])', '13    end']][k]
    fname = ['orders', 'orders', 'refunds'][k]
    cookie = rails_cookie()
    bearer = jwt_internal(ctx, 'admin', sub='user:%d' % R.randint(1, 999))
    csrf = rs(B64U, 86)
    salt = '$2a$12$' + rs(ALNUM + './', 22)
    q = lambda s: '&quot;%s&quot;' % s
    out = ['%s in %s' % (exc[0], ctrl), exc[1].replace("'", '&#39;'), '', 'Extracted source (around line #12):', '10', ]
    out += src + ['14', '', 'Rails.root: /app', '', 'Application Trace | Framework Trace | Full Trace',
                  "app/controllers/admin/%s_controller.rb:12:in `%s'" % (fname, ctrl.split('#')[1])]
    if ctx.long:
        out += ["actionpack (7.1.3.2) lib/action_controller/metal/basic_implicit_render.rb:6:in `send_action'",
                "actionpack (7.1.3.2) lib/abstract_controller/base.rb:224:in `process_action'",
                "actionpack (7.1.3.2) lib/action_controller/metal/rendering.rb:165:in `process_action'",
                "actionpack (7.1.3.2) lib/abstract_controller/callbacks.rb:259:in `block in process_action'",
                "activesupport (7.1.3.2) lib/active_support/callbacks.rb:121:in `block in run_callbacks'",
                "actiontext (7.1.3.2) lib/action_text/rendering.rb:20:in `with_renderer'"]
    out += ['Request', 'Parameters:', '{%s=&gt;%s, %s=&gt;%s}' % (q('id'), q(str(oid)), q('locale'), q(pick(['ja', 'en', 'zh-CN']))), '',
            'Toggle session dump', '_csrf_token: %s' % q(csrf), 'warden.user.user.key: [[%d], %s]' % (R.randint(1, 999), q(salt)), '',
            'Toggle env dump']
    env = [('GATEWAY_INTERFACE', 'CGI/1.1'), ('HTTP_ACCEPT', '*/*'), ('HTTP_ACCEPT_ENCODING', 'gzip, deflate, br'),
           ('HTTP_AUTHORIZATION', 'Bearer ' + M(bearer)),
           ('HTTP_COOKIE', '_%s_session=%s; _ga=GA1.1.%d.%d; locale=ja' % (app, M(cookie), R.randint(10 ** 8, 10 ** 9), R.randint(10 ** 9, 2 * 10 ** 9))),
           ('HTTP_HOST', 'localhost:3000'), ('HTTP_USER_AGENT', 'curl/8.5.0'), ('HTTP_VERSION', 'HTTP/1.1'),
           ('ORIGINAL_FULLPATH', '/admin/orders/%d' % oid), ('ORIGINAL_SCRIPT_NAME', ''), ('PATH_INFO', '/admin/orders/%d' % oid),
           ('QUERY_STRING', ''), ('REMOTE_ADDR', '127.0.0.1'), ('REQUEST_METHOD', 'GET'), ('REQUEST_PATH', '/admin/orders/%d' % oid),
           ('REQUEST_URI', '/admin/orders/%d' % oid), ('SCRIPT_NAME', ''), ('SERVER_NAME', 'localhost'), ('SERVER_PORT', '3000'),
           ('SERVER_PROTOCOL', 'HTTP/1.1'), ('SERVER_SOFTWARE', 'puma 6.4.2 The Eagle of Durango'),
           ('action_dispatch.request_id', uuid4()), ('rack.version', '[3, 0]')]
    if not ctx.long:
        env = env[1:9] + env[-2:]
    out += ['%s: %s' % (k, q(v) if not v.startswith('[') else v) for k, v in env]
    out += ['', 'Response', 'Headers:', '', 'None']
    cmd = 'curl -s -H "Authorization: Bearer $ADMIN_JWT" -b "_%s_session=$(cat /tmp/sess)" localhost:3000/admin/%s/%d | sed -e \'s/<[^>]*>//g\' | grep -v \'^[[:space:]]*$\'' % (app, fname, oid)
    return render(ctx, note(ctx, 'Reproducing the admin 500 locally and stripping the HTML of the debug page.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'rails debug page as text'))


def node_inspect(obj, ind=0, width=72):
    """util.inspect-like rendering of nested python dict/list built with marks"""
    pad = '  ' * (ind + 1)
    if isinstance(obj, dict):
        cls = obj.get('__class__')
        items = [(k, v) for k, v in obj.items() if k != '__class__']
        parts = []
        for k, v in items:
            key = k if re.match(r'^[A-Za-z_$][\w$]*$', k) or k.startswith('[Symbol') else "'%s'" % k
            parts.append('%s: %s' % (key, node_inspect(v, ind + 1)))
        head = (cls + ' ') if cls else ''
        if not parts:
            return head + '{}'
        flat = head + '{ ' + ', '.join(parts) + ' }'
        if len(strip_marks(flat)) + ind * 2 <= width and '\n' not in flat:
            return flat
        return head + '{\n' + ',\n'.join(pad + p for p in parts) + '\n' + '  ' * ind + '}'
    if isinstance(obj, list):
        parts = [node_inspect(v, ind + 1) for v in obj]
        flat = '[ ' + ', '.join(parts) + ' ]'
        if len(strip_marks(flat)) + ind * 2 <= width and '\n' not in flat:
            return flat
        return '[\n' + ',\n'.join(pad + p for p in parts) + '\n' + '  ' * ind + ']'
    if isinstance(obj, bool):
        return 'true' if obj else 'false'
    if obj is None:
        return 'null'
    if isinstance(obj, (int, float)):
        return str(obj)
    if isinstance(obj, str) and obj.startswith('@@'):
        return obj[2:]
    return "'%s'" % obj


def p_node_inspect_client_options_crash(ctx):
    c = ctx.clock
    k = R.randint(0, 2)
    out = []
    if k == 0:
        pw = pw_any(safe=True)
        host = '%s-cache.redis.cache.windows.net' % ctx.org if chance(0.5) else 'redis-master.%s.svc.cluster.local' % ctx.project
        out += ['[ioredis] Unhandled error event: Error: connect ETIMEDOUT',
                '    at Socket.<anonymous> (/app/node_modules/ioredis/built/Redis.js:170:41)',
                '    at Object.onceWrapper (node:events:633:28)', '    at Socket.emit (node:events:519:28)',
                '    at Socket._onTimeout (node:net:590:8)', '    at listOnTimeout (node:internal/timers:573:17)',
                '    at process.processTimers (node:internal/timers:514:7)']
        obj = {'__class__': 'Redis', '_events': '@@[Object: null prototype] { error: [Function (anonymous)], ready: [Function (anonymous)] }',
               '_eventsCount': 2, '_maxListeners': None, 'isCluster': False,
               'options': {'port': pick([6379, 6380]), 'host': host, 'username': 'default', 'password': M(pw), 'db': R.randint(0, 3),
                           'tls': {'servername': host}, 'connectTimeout': 10000, 'maxRetriesPerRequest': 20, 'enableReadyCheck': True,
                           'keyPrefix': '%s:' % ctx.project, 'lazyConnect': False, 'reconnectOnError': None},
               'status': 'reconnecting', 'connector': '@@StandaloneConnector { options: [Object], connecting: true, stream: [TLSSocket] }',
               'retryAttempts': R.randint(3, 40), 'condition': None, '[Symbol(kCapture)]': False}
        label = 'redis client state'
    elif k == 1:
        pw = pw_any(safe=True)
        cs = 'postgres://%s:%s@%s:5432/%s?sslmode=require' % (pick(['app', 'api', 'svc_' + ctx.project.replace('-', '_')]), M(pw),
                                                             pick(['db.internal', '%s-prod.cluster-%s.us-east-1.rds.amazonaws.com' % (ctx.project, rs(LOWNUM, 12))]), ctx.project.replace('-', '_'))
        out += ['Error: Connection terminated due to connection timeout',
                '    at Connection.<anonymous> (/app/node_modules/pg/lib/client.js:132:73)',
                '    at Object.onceWrapper (node:events:634:28)', '    at Connection.emit (node:events:520:28)',
                '    at Socket.<anonymous> (/app/node_modules/pg/lib/connection.js:63:12)', '    at Socket.emit (node:events:520:28)',
                '    at TCP.<anonymous> (node:net:337:12) {', '  [cause]: Error: timeout expired', '}']
        obj = {'__class__': 'BoundPool', '_events': '@@[Object: null prototype] { error: [Function (anonymous)] }', '_eventsCount': 1,
               '_maxListeners': None, 'options': {'connectionString': cs, 'max': R.randint(5, 30), 'idleTimeoutMillis': 30000,
                                                  'connectionTimeoutMillis': 5000, 'application_name': ctx.project, 'maxUses': None,
                                                  'allowExitOnIdle': False, 'maxLifetimeSeconds': 0},
               'log': '@@[Function (anonymous)]', 'Client': '@@[class Client extends EventEmitter]', 'Promise': '@@[Function: Promise]',
               '_clients': '@@[]', '_idle': '@@[]', '_expired': '@@WeakSet { <items unknown> }', '_pendingQueue': '@@[]',
               '_endCallback': None, 'ending': False, 'ended': False, '[Symbol(kCapture)]': False}
        label = 'pool'
    else:
        pw = pw_any(safe=True)
        url = 'mongodb+srv://%s:%s@cluster0.%s.mongodb.net/%s?retryWrites=true&w=majority&appName=%s' % (
            pick(['api', 'app-rw']), M(pw), rs(LOWNUM, 5), ctx.project.replace('-', '_'), ctx.project)
        out += ['MongoServerSelectionError: Server selection timed out after 30000 ms',
                '    at Topology.selectServer (/app/node_modules/mongodb/lib/sdam/topology.js:303:38)',
                '    at async Topology._connect (/app/node_modules/mongodb/lib/sdam/topology.js:196:28)',
                '    at async Topology.connect (/app/node_modules/mongodb/lib/sdam/topology.js:158:13)',
                '    at async topologyConnect (/app/node_modules/mongodb/lib/mongo_client.js:209:17)',
                '    at async MongoClient._connect (/app/node_modules/mongodb/lib/mongo_client.js:222:13) {',
                "  errorLabelSet: Set(0) {},", "  reason: TopologyDescription {", "    type: 'ReplicaSetNoPrimary',",
                '    servers: Map(3) { ... },', "    setName: 'atlas-%s-shard-0'," % rs(LOWNUM, 6), '  },', "  code: undefined", '}']
        obj = {'__class__': '<ref *1> MongoClient', '_events': '@@[Object: null prototype] {}', '_eventsCount': 0, '_maxListeners': None,
               'mongoLogger': '@@MongoLogger { ... }', 's': {'url': url, 'bsonOptions': {'raw': False, 'useBigInt64': False, 'promoteLongs': True},
                                                           'namespace': "@@MongoDBNamespace { db: 'admin', collection: undefined }",
                                                           'hasBeenClosed': False, 'sessionPool': '@@ServerSessionPool { client: [Circular *1], sessions: List(0) [] }',
                                                           'activeSessions': '@@Set(0) {}'},
               'topology': None, 'connectionLock': None, '[Symbol(kCapture)]': False, '[Symbol(options)]': '@@[Object: null prototype] { ... }'}
        label = 'client'
    t = iso(c.tick())
    out.insert(0, '%s ERROR [bootstrap] %s' % (t, pick(['fatal: could not reach datastore', 'startup failed', 'health check failed 3 times'])))
    out.append('%s DEBUG [bootstrap] %s:' % (iso(c.tick()), label))
    out += node_inspect(obj).split('\n')
    if ctx.long:
        for _ in range(R.randint(6, 14)):
            out.append('%s WARN  [%s] retrying in %dms (attempt %d)' % (iso(c.tick(0.5, 3)), label, pick([500, 1000, 2000, 4000]), R.randint(1, 30)))
        out += ['node:internal/process/promises:289', '            triggerUncaughtException(err, true /* fromPromise */);', '            ^', '',
                '[UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason "%s".] {' % pick(['timeout', 'ETIMEDOUT']),
                "  code: 'ERR_UNHANDLED_REJECTION'", '}', '', 'Node.js v20.12.2']
    cmd = pick(['kubectl logs %s-%s-%s --previous --tail=120' % (ctx.project, hx(10)[:9], rs(LOWNUM, 5)), 'docker logs --tail 120 %s-api-1' % ctx.project,
                'pm2 logs %s --lines 120 --nostream --err' % ctx.project])
    return render(ctx, note(ctx, 'The API crashed at boot; the previous container logged the client object before exiting.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'crash logs'))


def p_xdebug_function_trace_params(ctx):
    c = ctx.clock
    app = '/var/www/%s' % ctx.project
    out = ['TRACE START [%s]' % sp(c.t, 6)]
    t0 = 0.0
    mem = R.randint(380000, 420000)
    depth = [1]

    def call(fn, args, loc, d):
        nonlocal t0, mem
        t0 += R.uniform(0.00005, 0.004)
        mem += R.randint(-2000, 30000)
        out.append('%10.4f %10d %s-> %s(%s) %s' % (t0, mem, '  ' * d, fn, args, loc))
    call('{main}', '', '%s/public/index.php:0' % app, 1)
    call('require', '%s/vendor/autoload.php' % app, '%s/public/index.php:5' % app, 2)
    call('ComposerAutoloaderInit%s::getLoader' % hx(32), '', '%s/vendor/autoload.php:25' % app, 3)
    if ctx.long:
        for cls in ['Illuminate\\Foundation\\Application->__construct', 'Illuminate\\Foundation\\Application->registerBaseBindings',
                    'Illuminate\\Container\\Container->singleton', 'Illuminate\\Foundation\\Application->registerCoreContainerAliases',
                    'Dotenv\\Dotenv::createImmutable', 'Dotenv\\Repository\\RepositoryBuilder::createWithDefaultAdapters',
                    'Illuminate\\Config\\Repository->__construct', 'Monolog\\Logger->__construct',
                    'Illuminate\\Routing\\Router->dispatch', 'Illuminate\\Pipeline\\Pipeline->then']:
            call(cls, pick(['', '$app = class Illuminate\\Foundation\\Application { ... }', "$abstract = 'config'", '$basePath = \'%s\'' % app]),
                 '%s/vendor/laravel/framework/src/Illuminate/Foundation/Application.php:%d' % (app, R.randint(100, 1400)), R.randint(3, 6))
    sk = sk_live() if chance(0.5) else sk_live('rk_live_')
    wh = whsec()
    call('App\\Billing\\StripeGateway->__construct', "$apiKey = '%s', $webhookSecret = '%s', $apiVersion = '2024-04-10'" % (M(sk), M(wh)),
         '%s/app/Providers/BillingServiceProvider.php:31' % app, 5)
    pw = pw_any(safe=True)
    call('App\\Support\\LegacyDb::connect', "$host = 'mysql-legacy.internal', $user = 'shop_rw', $pass = '%s', $db = 'shop'" % M(pw),
         '%s/app/Support/LegacyDb.php:18' % app, 5)
    call('GuzzleHttp\\Client->request', "$method = 'POST', $uri = 'https://api.stripe.com/v1/refunds', $options = ['headers' => ['Authorization' => 'Bearer %s', 'Stripe-Version' => '2024-04-10', 'Idempotency-Key' => '%s'], 'form_params' => ['charge' => 'ch_%s', 'amount' => %d]]"
         % (M(sk), uuid4(), rs(ALNUM, 24), R.randint(100, 90000)), '%s/app/Billing/StripeGateway.php:77' % app, 6)
    if ctx.long:
        for _ in range(R.randint(28, 45)):
            call(pick(['GuzzleHttp\\Handler\\CurlFactory->create', 'GuzzleHttp\\Psr7\\Request->__construct', 'GuzzleHttp\\Psr7\\Uri->__construct',
                       'GuzzleHttp\\Middleware::GuzzleHttp\\{closure}', 'curl_setopt_array', 'curl_exec', 'json_decode', 'hash_hmac',
                       'Illuminate\\Log\\LogManager->info', 'Illuminate\\Cache\\Repository->get', 'str_contains']),
                 pick(['', "$uri = 'https://api.stripe.com/v1/refunds'", "$key = 'refund:%s'" % uuid4(), "$json = '{\"id\":\"re_%s\"}'" % rs(ALNUM, 24),
                       "$algo = 'sha256', $data = '%d.{...}', $key = '...'" % int(epoch(c.t))]),
                 '%s/vendor/guzzlehttp/guzzle/src/%s.php:%d' % (app, pick(['Client', 'Handler/CurlFactory', 'HandlerStack']), R.randint(20, 600)), R.randint(6, 9))
    t0 += R.uniform(0.1, 2)
    out.append('%10.4f %10d' % (t0, R.randint(100000, 300000)))
    out.append('TRACE END   [%s]' % sp(c.tick(0.1, 3), 6))
    f = '/tmp/xdebug/trace.%d.xt' % R.randint(10 ** 8, 10 ** 9)
    cmd = pick(['cat %s' % f, 'sed -n "1,140p" %s' % f]) if ctx.long else 'grep -n -E "Gateway|LegacyDb|Guzzle" %s' % f
    if cmd.startswith('grep'):
        out = ['%d:%s' % (i + 1, l) for i, l in enumerate(out) if re.search('Gateway|LegacyDb|Guzzle', l)]
    return render(ctx, note(ctx, 'XDEBUG_MODE=trace is set for this request; reading the function trace to see which key the refund used.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'xdebug function trace') if cmd.startswith('grep') else file_step(ctx, f, cmd, out, 'xdebug function trace'))


GUNI = [('config', './gunicorn.conf.py'), ('wsgi_app', None), ('bind', "['0.0.0.0:8000']"), ('backlog', 2048), ('workers', None),
        ('worker_class', None), ('threads', None), ('worker_connections', 1000), ('max_requests', None), ('max_requests_jitter', None),
        ('timeout', None), ('graceful_timeout', 30), ('keepalive', 2), ('limit_request_line', 4094), ('limit_request_fields', 100),
        ('limit_request_field_size', 8190), ('reload', False), ('reload_engine', 'auto'), ('reload_extra_files', '[]'), ('spew', False),
        ('check_config', False), ('print_config', False), ('preload_app', None), ('sendfile', None), ('reuse_port', False),
        ('chdir', None), ('daemon', False), ('raw_env', None), ('pidfile', None), ('worker_tmp_dir', '/dev/shm'), ('user', None),
        ('group', None), ('umask', 0), ('initgroups', False), ('tmp_upload_dir', None), ('secure_scheme_headers', "{'X-FORWARDED-PROTOCOL': 'ssl', 'X-FORWARDED-PROTO': 'https', 'X-FORWARDED-SSL': 'on'}"),
        ('forwarded_allow_ips', "['127.0.0.1', '::1']"), ('accesslog', '-'), ('disable_redirect_access_to_syslog', False),
        ('access_log_format', '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s"'), ('errorlog', '-'), ('loglevel', 'debug'),
        ('capture_output', False), ('logger_class', 'gunicorn.glogging.Logger'), ('logconfig', None), ('logconfig_dict', '{}'),
        ('logconfig_json', None), ('syslog_addr', 'udp://localhost:514'), ('syslog', False), ('syslog_prefix', None),
        ('syslog_facility', 'user'), ('enable_stdio_inheritance', False), ('statsd_host', None), ('dogstatsd_tags', ''),
        ('statsd_prefix', ''), ('proc_name', None), ('default_proc_name', None), ('pythonpath', None), ('paste', None),
        ('on_starting', '<function OnStarting.on_starting at {a}>'), ('on_reload', '<function OnReload.on_reload at {a}>'),
        ('when_ready', '<function WhenReady.when_ready at {a}>'), ('pre_fork', '<function Prefork.pre_fork at {a}>'),
        ('post_fork', '<function post_fork at {a}>'), ('post_worker_init', '<function PostWorkerInit.post_worker_init at {a}>'),
        ('worker_int', '<function WorkerInt.worker_int at {a}>'), ('worker_abort', '<function WorkerAbort.worker_abort at {a}>'),
        ('pre_exec', '<function PreExec.pre_exec at {a}>'), ('pre_request', '<function PreRequest.pre_request at {a}>'),
        ('post_request', '<function PostRequest.post_request at {a}>'), ('child_exit', '<function ChildExit.child_exit at {a}>'),
        ('worker_exit', '<function WorkerExit.worker_exit at {a}>'), ('nworkers_changed', '<function NumWorkersChanged.nworkers_changed at {a}>'),
        ('on_exit', '<function OnExit.on_exit at {a}>'), ('ssl_context', '<function NewSSLContext.ssl_context at {a}>'),
        ('proxy_protocol', False), ('proxy_allow_ips', "['127.0.0.1', '::1']"), ('keyfile', None), ('certfile', None),
        ('ssl_version', 2), ('cert_reqs', 0), ('ca_certs', None), ('suppress_ragged_eofs', True), ('do_handshake_on_connect', False),
        ('ciphers', None), ('raw_paste_global_conf', '[]'), ('strip_header_spaces', False)]


def p_gunicorn_debug_current_configuration(ctx):
    c = ctx.clock
    pid = R.randint(1, 40)
    mod = ctx.project.replace('-', '_')
    pw = pw_any(safe=True)
    sk = django_secret() if chance(0.5) else hx(64)
    dsn = hx(32)
    envs = ["'DATABASE_URL=postgres://%s:%s@%s:5432/%s'" % (mod, M(pw), pick(['db', 'pg-primary.internal', 'localhost']), mod),
            "'SECRET_KEY=%s'" % M(sk),
            "'SENTRY_DSN=https://%s@o%s.ingest.sentry.io/%s'" % (M(dsn), digits(6), digits(7)),
            "'DJANGO_SETTINGS_MODULE=%s.settings.production'" % mod]
    if chance(0.5):
        envs.insert(2, "'REDIS_URL=redis://default:%s@cache:6379/0'" % M(pw_alnum(32)))
    vals = {'workers': R.randint(2, 9), 'worker_class': pick(['sync', 'gthread', 'uvicorn.workers.UvicornWorker']), 'threads': pick([1, 4, 8]),
            'max_requests': pick([0, 1000, 5000]), 'max_requests_jitter': pick([0, 50, 200]), 'timeout': pick([30, 60, 120]),
            'preload_app': pick([True, False]), 'sendfile': None, 'chdir': '/app', 'raw_env': '[%s]' % ', '.join(envs),
            'pidfile': None, 'user': 1000, 'group': 1000, 'proc_name': None, 'default_proc_name': '%s.wsgi:application' % mod,
            'wsgi_app': None, 'pythonpath': None, 'tmp_upload_dir': None}
    out = ['[%s +0000] [%d] [DEBUG] Current configuration:' % (sp(c.t, 0), pid)]
    keys = GUNI if ctx.long else [g for g in GUNI if g[0] in ('config', 'bind', 'workers', 'worker_class', 'timeout', 'preload_app', 'chdir', 'raw_env', 'loglevel', 'accesslog', 'keyfile', 'certfile')]
    for k, v in keys:
        if k in vals:
            v = vals[k]
        if isinstance(v, str) and '{a}' in v:
            v = v.replace('{a}', addr_py())
        out.append('  %s: %s' % (k, v))
    out += ['[%s +0000] [%d] [INFO] Starting gunicorn 22.0.0' % (sp(c.tick(), 0), pid),
            '[%s +0000] [%d] [DEBUG] Arbiter booted' % (sp(c.t, 0), pid),
            '[%s +0000] [%d] [INFO] Listening at: http://0.0.0.0:8000 (%d)' % (sp(c.t, 0), pid, pid),
            '[%s +0000] [%d] [INFO] Using worker: %s' % (sp(c.t, 0), pid, vals['worker_class'])]
    for _ in range(vals['workers'] if ctx.long else 2):
        out.append('[%s +0000] [%d] [INFO] Booting worker with pid: %d' % (sp(c.tick(0.01, 0.3), 0), R.randint(7, 90), R.randint(7, 400)))
    out.append('[%s +0000] [%d] [DEBUG] %d workers' % (sp(c.t, 0), pid, vals['workers']))
    cmd = pick(['docker compose logs --no-log-prefix web | head -n 140', 'kubectl logs deploy/%s-web --tail=150' % ctx.project,
                'gunicorn %s.wsgi -c gunicorn.conf.py --log-level debug --check-config 2>&1 | head -n 140' % mod])
    if not ctx.long:
        cmd = pick(['docker compose logs --no-log-prefix web | grep -A13 "Current configuration"', 'kubectl logs deploy/%s-web | head -n 25' % ctx.project])
    return render(ctx, note(ctx, 'Workers boot with the wrong database; gunicorn prints its effective configuration at debug level.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'gunicorn startup'))


def p_django_500_settings_unmasked_urls(ctx):
    c = ctx.clock
    mod = ctx.project.replace('-', '_')
    mask = "'********************'"
    rpw = pw_alnum(32)
    epw = pw_any(safe=True)
    dsn = hx(32)
    cache_pw = pw_alnum(24)
    path = pick(['/api/orders/', '/api/invoices/%d/' % R.randint(1, 9999), '/webhooks/stripe/'])
    exc = pick([('ProgrammingError', 'relation "orders_order" does not exist\nLINE 1: SELECT "orders_order"."id" FROM "orders_order"'),
                ('OperationalError', 'connection to server at "db" (172.18.0.3), port 5432 failed: FATAL:  password authentication failed for user "%s"' % mod),
                ('ConnectionError', 'Error 111 connecting to redis:6379. Connection refused.')])
    out = ['%s at %s' % (exc[0], path)] + exc[1].split('\n') + ['', 'Request Method: GET', 'Request URL: http://localhost:8000%s' % path,
                                                                'Django Version: 5.0.%d' % R.randint(1, 6), 'Python Executable: /usr/local/bin/python',
                                                                'Python Version: 3.11.9', "Python Path: ['/app', '/usr/local/lib/python311.zip', '/usr/local/lib/python3.11', '/usr/local/lib/python3.11/site-packages']",
                                                                'Server time: %s, %02d %s %d %s +0000' % (DAYS[c.t.weekday()], c.t.day, MONTHS[c.t.month - 1], c.t.year, hms(c.t))]
    if ctx.long:
        out += ['Installed Applications:', "['django.contrib.admin',", " 'django.contrib.auth',", " 'django.contrib.contenttypes',",
                " 'django.contrib.sessions',", " 'rest_framework',", " 'django_celery_beat',", " '%s.orders'," % mod, " '%s.billing']" % mod,
                'Installed Middleware:', "['django.middleware.security.SecurityMiddleware',", " 'django.contrib.sessions.middleware.SessionMiddleware',",
                " 'django.middleware.csrf.CsrfViewMiddleware',", " 'django.contrib.auth.middleware.AuthenticationMiddleware']", '',
                'Traceback (most recent call last):',
                '  File "/usr/local/lib/python3.11/site-packages/django/db/backends/utils.py", line 105, in _execute',
                '    return self.cursor.execute(sql, params)', '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
                '  File "/app/%s/orders/views.py", line %d, in list' % (mod, R.randint(20, 90)),
                '    return Response(OrderSerializer(qs, many=True).data)', '']
    out += ['Exception Type: %s at %s' % (exc[0], path), 'Exception Value: %s' % exc[1].split('\n')[0], 'Raised during: %s.orders.views.OrderViewSet' % mod,
            'Request information:', 'USER: AnonymousUser', '', 'GET: No GET data', '', 'POST: No POST data', '', 'FILES: No FILES data', '',
            'COOKIES:', "csrftoken = '%s'" % rs(ALNUM, 32), 'sessionid = %s' % mask, '', 'META:',
            "CONTENT_LENGTH = ''", "CONTENT_TYPE = 'text/plain'", 'HTTP_AUTHORIZATION = %s' % mask, 'HTTP_COOKIE = %s' % mask,
            "HTTP_HOST = 'localhost:8000'", "HTTP_USER_AGENT = 'curl/8.5.0'", "REMOTE_ADDR = '172.18.0.1'", '',
            'Settings:', 'Using settings module %s.settings.local' % mod, 'ABSOLUTE_URL_OVERRIDES = {}', 'ALLOWED_HOSTS = []',
            'AWS_SECRET_ACCESS_KEY = %s' % mask, "AWS_STORAGE_BUCKET_NAME = '%s-media'" % ctx.org,
            "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', 'LOCATION': 'redis://:%s@redis:6379/1'}}" % M(cache_pw),
            "CELERY_BROKER_URL = 'amqp://%s:%s@rabbitmq:5672/%s'" % (mod, M(rpw), mod),
            "DATABASES = {'default': {'ATOMIC_REQUESTS': False, 'ENGINE': 'django.db.backends.postgresql', 'HOST': 'db', 'NAME': '%s', 'PASSWORD': %s, 'PORT': '5432', 'USER': '%s'}}" % (mod, mask, mod),
            'DEBUG = True', "EMAIL_HOST = 'smtp.mailgun.org'", 'EMAIL_HOST_PASSWORD = %s' % mask,
            "EMAIL_URL = 'smtp://postmaster%%40mg.%s:%s@smtp.mailgun.org:587'" % (ctx.domain, M(quote(epw, safe=''))),
            'SECRET_KEY = %s' % mask, "SENTRY_DSN = 'https://%s@o%s.ingest.us.sentry.io/%s'" % (M(dsn), digits(7), digits(16)),
            'STRIPE_API_KEY = %s' % mask, "TIME_ZONE = '%s'" % pick(['UTC', 'Asia/Tokyo', 'Europe/Berlin']), 'USE_TZ = True', '',
            "You're seeing this error because you have DEBUG = True in your Django settings file. Change that to False, and Django will display a standard page generated by the handler for this status code."]
    cmd = 'curl -s -H "Accept: text/plain" http://localhost:8000%s%s' % (path, pick(['', ' | head -n 140']))
    if not ctx.long:
        i = out.index('Settings:')
        out = out[i:]
        cmd = 'curl -s -H "Accept: text/plain" http://localhost:8000%s | sed -n \'/^Settings:/,$p\'' % path
    return render(ctx, note(ctx, 'Hitting the failing endpoint with a non-HTML Accept header to get the plain-text technical 500.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'django technical 500'))


# ---------------------------------------------------------------------------
# process environments (shared by positives and negatives)
# ---------------------------------------------------------------------------
def base_env(ctx, kube=True, systemd=False):
    e = [('PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'),
         ('HOSTNAME', ('%s-%s-%s' % (ctx.project, hx(10)[:9], rs(LOWNUM, 5))) if kube else hx(12)),
         ('LANG', pick(['C.UTF-8', 'en_US.UTF-8', 'ja_JP.UTF-8'])), ('TZ', pick(['UTC', 'Asia/Tokyo', 'Europe/Berlin'])),
         ('HOME', pick(['/root', '/home/app', '/app'])), ('APP_ENV', 'production'), ('PORT', str(pick([3000, 8000, 8080]))),
         ('GIT_SHA', gitsha()), ('OTEL_SERVICE_NAME', ctx.project), ('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://otel-collector.observability:4317')]
    if kube:
        e += [('KUBERNETES_SERVICE_HOST', '10.96.0.1'), ('KUBERNETES_SERVICE_PORT', '443'), ('KUBERNETES_PORT_443_TCP', 'tcp://10.96.0.1:443'),
              ('OTEL_RESOURCE_ATTRIBUTES', 'k8s.pod.uid=%s,k8s.namespace.name=%s' % (uuid4(), ctx.project))]
    if systemd:
        e += [('INVOCATION_ID', hx(32)), ('JOURNAL_STREAM', '8:%d' % R.randint(10000, 99999)), ('SYSTEMD_EXEC_PID', str(R.randint(300, 60000)))]
    return e


def secret_env(ctx, n=4, pem_ok=True, url_safe=True):
    """list of (name, marked value or Pem)"""
    mod = ctx.project.replace('-', '_')
    cands = [
        lambda: ('DATABASE_URL', 'postgres://%s:%s@%s:5432/%s' % (mod, M(pw_any(safe=True)), pick(['db.internal', 'pg-primary', '10.0.4.12']), mod)),
        lambda: ('REDIS_URL', 'redis://default:%s@redis-master:6379/0' % M(pw_alnum(32))),
        lambda: ('STRIPE_SECRET_KEY', M(sk_live())),
        lambda: ('SENTRY_DSN', 'https://%s@o%s.ingest.sentry.io/%s' % (M(hx(32)), digits(6), digits(7))),
        lambda: ('SLACK_BOT_TOKEN', M(slack_bot())),
        lambda: ('DD_API_KEY', M(hx(32))),
        lambda: ('OPENAI_API_KEY', M(openai_key())),
        lambda: ('JWT_SECRET', M(b64e(rbytes(48)))),
        lambda: ('SENDGRID_API_KEY', M(sendgrid())),
        lambda: ('GITHUB_TOKEN', M(gh(pick(['ghp_', 'ghs_'])))),
        lambda: ('AMQP_URL', 'amqps://%s:%s@mq.%s:5671/%%2F' % (mod, M(pw_any(safe=True)), ctx.domain)),
        lambda: ('TWILIO_AUTH_TOKEN', M(hx(32))),
        lambda: ('SESSION_SECRET', M(pw_alnum(48))),
    ]
    R.shuffle(cands)
    out = [f() for f in cands[:n]]
    if chance(0.5):
        out.append(('AWS_ACCESS_KEY_ID', akid()))
        out.append(('AWS_SECRET_ACCESS_KEY', M(aws_sk())))
    if pem_ok and chance(0.6):
        out.append(('GITHUB_APP_ID', str(R.randint(100000, 999999))))
        out.append(('GITHUB_APP_PRIVATE_KEY', rsa_key(2048, pkcs1=True)))
    return out


def env_lines(pairs, pre):
    """K=V lines for `tr '\\0' '\\n'`; a PEM value breaks over lines"""
    out = []
    for k, v in pairs:
        if isinstance(v, Pem):
            body = v.perline() if pre else v.contig()
            out.append('%s=%s' % (k, body[0]))
            out.extend(body[1:])
        else:
            out.append('%s=%s' % (k, v))
    return out


# ---------------------------------------------------------------------------
# P: process inspection
# ---------------------------------------------------------------------------
def p_proc_pid_environ_tr(ctx):
    pid = R.randint(300, 60000)
    proc = pick(['celery worker', 'gunicorn', 'node dist/main.js', 'uvicorn', '/usr/local/bin/%s' % ctx.project])
    kube = chance(0.5)
    mode = pick(['tr', 'xargs']) if ctx.long else pick(['tr', 'catv', 'catv'])
    pairs = base_env(ctx, kube, not kube) + secret_env(ctx, R.randint(3, 6) if ctx.long else 2, pem_ok=(mode != 'catv'))
    if ctx.long:
        pairs += [('PYTHONUNBUFFERED', '1'), ('WEB_CONCURRENCY', '4'), ('LOG_LEVEL', 'debug'), ('FEATURE_FLAGS', 'new_checkout,fast_refunds'),
                  ('DB_PASSWORD_FILE', '/run/secrets/db_password'), ('VAULT_ADDR', 'https://vault.%s:8200' % ctx.domain),
                  ('OTEL_TRACES_SAMPLER', 'parentbased_traceidratio'), ('OTEL_TRACES_SAMPLER_ARG', '0.1'), ('MALLOC_ARENA_MAX', '2'),
                  ('REQUESTS_CA_BUNDLE', '/etc/ssl/certs/ca-certificates.crt'), ('SSL_CERT_DIR', '/etc/ssl/certs'), ('HOST_IP', ip_priv()),
                  ('POD_NAMESPACE', ctx.project), ('SERVICE_VERSION', '1.%d.%d' % (R.randint(0, 40), R.randint(0, 9))), ('SENTRY_ENVIRONMENT', 'production'),
                  ('STATSD_HOST', ip_priv()), ('STATSD_PORT', '8125'), ('PROMETHEUS_MULTIPROC_DIR', '/tmp/prom'), ('GUNICORN_CMD_ARGS', '--timeout 60 --graceful-timeout 30'),
                  ('CELERY_CONCURRENCY', str(R.randint(2, 16))), ('HTTP_TIMEOUT', '10s'), ('CACHE_TTL', '300')]
    R.shuffle(pairs)
    pre = ctx.pre()
    if mode == 'catv':
        flag = pick(['-v', '-A'])
        line = '^@'.join('%s=%s' % kv for kv in pairs) + '^@' + ('$' if flag == '-A' else '')
        out = [line]
        cmd = 'sudo cat %s /proc/%d/environ' % (flag, pid)
    else:
        out = env_lines(sorted(pairs, key=lambda kv: kv[0]) if chance(0.5) else pairs, pre)
        cmd = ("sudo cat /proc/%d/environ | tr '\\0' '\\n'" % pid) if mode == 'tr' else ('sudo xargs -0 -L1 -a /proc/%d/environ' % pid)
    s0 = step(ctx, 'pgrep -af %s' % proc.split()[0], ['%d %s' % (pid, proc), '%d %s' % (pid + R.randint(1, 40), proc)]) if chance(0.6) else []
    return render(ctx, note(ctx, 'Checking which environment the running process actually has, since the unit file was edited after it started.') if chance(0.5) else [],
                  s0, step(ctx, cmd, out, 'process environment'))


def p_ps_eww_inline_environment(ctx):
    procs = R.randint(2, 3) if ctx.long else 1
    rows = []
    for i in range(procs):
        pid = R.randint(300, 60000)
        prog = pick(['node dist/main.js', '/app/.venv/bin/python -m celery -A %s worker -l info' % ctx.project.replace('-', '_'),
                     '/usr/local/bin/%s serve --config /etc/%s/config.yaml' % (ctx.project, ctx.project), 'java -jar /app/app.jar',
                     'ruby /app/bin/rails server -b 0.0.0.0'])
        pairs = base_env(ctx, chance(0.5), False) + secret_env(ctx, R.randint(2, 4), pem_ok=False)
        R.shuffle(pairs)
        env = ' '.join('%s=%s' % kv for kv in pairs)
        rows.append((pid, pick(['Ssl', 'Sl', 'S']), '%d:%02d' % (R.randint(0, 300), R.randint(0, 59)), prog + ' ' + env))
    if ctx.long:
        sysp = ['[kthreadd]', '[rcu_gp]', '[kworker/0:0H-events_highpri]', '[mm_percpu_wq]', '[ksoftirqd/0]', '[rcu_preempt]',
                '[migration/0]', '[cpuhp/0]', '[kdevtmpfs]', '[kauditd]', '[khungtaskd]', '[oom_reaper]', '[kcompactd0]',
                '[kswapd0]', '[jbd2/nvme0n1p1-8]', '[ext4-rsv-conver]', '/lib/systemd/systemd-journald', '/lib/systemd/systemd-udevd',
                '/usr/sbin/cron -f -P', '/usr/bin/containerd', '/usr/sbin/sshd -D', '/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock',
                '/usr/lib/systemd/systemd-resolved', '/usr/sbin/chronyd -F 1', '/usr/bin/containerd-shim-runc-v2 -namespace moby -id %s -address /run/containerd/containerd.sock' % container_id(),
                '/usr/bin/containerd-shim-runc-v2 -namespace moby -id %s -address /run/containerd/containerd.sock' % container_id(),
                'sshd: %s [priv]' % ctx.user, 'sshd: %s@pts/0' % ctx.user, '-bash', 'ps eww ax']
        sysp[16:16] = ['[kworker/%d:%d%s]' % (R.randint(0, 3), R.randint(0, 3), pick(['-events', '-mm_percpu_wq', 'H-kblockd', '-cgroup_destroy', ''])) for _ in range(R.randint(14, 20))]
        pid = 1
        rows.append((1, 'Ss', '0:%02d' % R.randint(1, 59), '/sbin/init'))
        for p in sysp:
            pid += R.randint(1, 40)
            if p in ('-bash', 'ps eww ax') or p.startswith('sshd: '):
                rows.append((R.randint(60001, 62000), 'S+' if p == 'ps eww ax' else 'Ss', '0:00', p))
            else:
                rows.append((pid, pick(['S', 'I<', 'S<', 'Ssl']), '0:%02d' % R.randint(0, 59), p))
    rows.sort(key=lambda r: r[0])
    out = ['    PID TTY      STAT   TIME COMMAND']
    for pid, stat, tm, cmdline in rows:
        tty = 'pts/0' if cmdline in ('-bash', 'ps eww ax') else '?'
        out.append('%7d %-8s %-6s %s %s' % (pid, tty, stat, tm.rjust(6), cmdline))
    cmd = 'ps eww ax' if ctx.long else 'ps eww -o pid,tty,stat,time,args -p $(pgrep -d, -f "%s")' % ctx.project
    return render(ctx, note(ctx, 'ps e prints each process environment after its arguments; checking what the worker was started with.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'process list with environment'))


def sbyte(n, nxt=''):
    if n < 32 or n >= 127:
        return ('\\%03o' if nxt[:1].isdigit() else '\\%o') % n
    if chr(n) in '"\\':
        return '\\' + chr(n)
    return chr(n)


def strace_esc(s):
    return s.replace('\\', '\\\\').replace('"', '\\"').replace('\r', '\\r').replace('\n', '\\n').replace('\t', '\\t')


def p_strace_sendto_write_payloads(ctx):
    c = ctx.clock
    pid = R.randint(1000, 60000)
    out = ['strace: Process %d attached with %d threads' % (pid, R.randint(2, 9))]
    tids = [pid + i for i in range(1, 5)]

    def S(tid, call, args, ret):
        t = c.tick(0.00005, 0.3)
        out.append('[pid %5d] %s %s(%s) = %s' % (tid, hms(t, 6), call, args, ret))
    k = R.randint(0, 2)
    rip = ip_priv()
    fd = R.randint(8, 40)
    if k in (0, 2):
        pw = pw_gen(pick([24, 32]), punct='-_.~')
        user = pick([None, 'worker', ctx.project])
        if user:
            payload = '*3\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n' % (len(user), user, len(pw), M(pw))
        else:
            payload = '*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n' % (len(pw), M(pw))
        S(tids[0], 'connect', '%d, {sa_family=AF_INET, sin_port=htons(6379), sin_addr=inet_addr("%s")}, 16' % (fd, rip), '-1 EINPROGRESS (Operation now in progress)')
        S(tids[0], 'sendto', '%d, "%s", %d, MSG_NOSIGNAL, NULL, 0' % (fd, strace_esc(payload), len(strip_marks(payload))), str(len(strip_marks(payload))))
        S(tids[0], 'recvfrom', '%d, "-WRONGPASS invalid username-password pair or user is disabled.\\r\\n", 16384, 0, NULL, NULL' % fd, '68')
    if k in (1, 2):
        tok = pick([jwt_internal(ctx, 'api'), sk_live(), sendgrid(), hx(40)])
        host = pick(['internal-gw', 'payments.%s.svc' % ctx.project, 'api.' + ctx.domain])
        body = '{"event":"%s","id":"%s"}' % (pick(['order.paid', 'refund.created', 'user.deleted']), uuid4())
        req = 'POST /v1/events HTTP/1.1\r\nHost: %s:8080\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n' % (host, M(tok), len(body))
        fd2 = fd + R.randint(1, 5)
        S(tids[1], 'connect', '%d, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("%s")}, 16' % (fd2, ip_priv()), '0')
        plain = strip_marks(req)
        shown = strace_esc(req)
        if len(plain) > 256:
            # strace -s 256 cuts the string; keep the header within the limit
            shown = strace_esc(req[:req.index('Content-Type')] + 'Content-Type: application/json\r\n')
            S(tids[1], 'write', '%d, "%s"..., %d' % (fd2, shown, len(plain)), str(len(plain)))
        else:
            S(tids[1], 'write', '%d, "%s", %d' % (fd2, shown, len(plain)), str(len(plain)))
        S(tids[1], 'write', '%d, "%s", %d' % (fd2, strace_esc(body), len(body)), str(len(body)))
        S(tids[1], 'recvfrom', '%d, "HTTP/1.1 401 Unauthorized\\r\\nContent-Type: application/json\\r\\nX-Request-Id: %s\\r\\nContent-Length: 27\\r\\n\\r\\n{\\"error\\":\\"invalid_token\\"}", 65536, 0, NULL, NULL' % (fd2, uuid4()), str(R.randint(120, 160)))
    if k == 2 or chance(0.4):
        pw = pw_any(safe=True)
        fd3 = fd + 7
        user = pick(['app', 'report', ctx.project.replace('-', '_')])
        n = 8 + 5 + len(user) + 1 + 9 + len(user) + 1 + 17 + len(ctx.project) + 1 + 1
        start = '\\0\\0\\0%s\\0\\3\\0\\0user\\0%s\\0database\\0%s\\0application_name\\0%s\\0\\0' % (sbyte(n, '\\'), user, user, ctx.project)
        S(tids[2], 'connect', '%d, {sa_family=AF_INET, sin_port=htons(5432), sin_addr=inet_addr("%s")}, 16' % (fd3, ip_priv()), '0')
        S(tids[2], 'sendto', '%d, "%s", %d, MSG_NOSIGNAL, NULL, 0' % (fd3, start, n), str(n))
        S(tids[2], 'recvfrom', '%d, "R\\0\\0\\0\\10\\0\\0\\0\\3", 16384, 0, NULL, NULL' % fd3, '9')
        S(tids[2], 'sendto', '%d, "p\\0\\0\\0%s%s\\0", %d, MSG_NOSIGNAL, NULL, 0' % (fd3, sbyte(len(pw) + 5, pw[0]), M(pw), len(pw) + 6), str(len(pw) + 6))
        S(tids[2], 'recvfrom', '%d, "R\\0\\0\\0\\10\\0\\0\\0\\0S\\0\\0\\0\\26application_name\\0%s\\0"..., 16384, 0, NULL, NULL' % (fd3, ctx.project), str(R.randint(300, 420)))
    if ctx.long:
        for _ in range(R.randint(42, 65)):
            tid = pick(tids)
            kk = R.randint(0, 3)
            if kk == 0:
                line = '{"level":"info","ts":%d.%03d,"msg":"%s","request_id":"%s"}\n' % (int(epoch(c.t)), R.randint(0, 999), pick(['request completed', 'cache miss', 'job started']), ulid())
                S(tid, 'write', '%d, "%s", %d' % (R.randint(1, 2), strace_esc(line), len(line)), str(len(line)))
            elif kk == 1:
                S(tid, 'sendto', '%d, "*2\\r\\n$3\\r\\nGET\\r\\n$%d\\r\\nsession:%s\\r\\n", %d, MSG_NOSIGNAL, NULL, 0' % (fd, 44, hx(36), 64), '64')
            elif kk == 2:
                S(tid, 'connect', '%d, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2606:4700::%x", &sin6_addr), sin6_scope_id=0}, 28' % (R.randint(20, 60), R.randint(1000, 0xffff)), '-1 EINPROGRESS (Operation now in progress)')
            else:
                S(tid, 'recvfrom', '%d, "$-1\\r\\n", 16384, 0, NULL, NULL' % fd, '5')
    cmd = 'sudo strace -f -tt -s 256 -e trace=connect,sendto,write,recvfrom -p %d 2>&1 | %s' % (pid, pick(['head -n 120', 'grep -v EAGAIN | head -n 150']))
    if not ctx.long:
        cmd = 'sudo timeout 5 strace -f -tt -s 256 -e trace=connect,sendto,write,recvfrom -p %d' % pid
    pre = step(ctx, 'echo 0 | sudo tee /proc/sys/kernel/yama/ptrace_scope >/dev/null', [], 'allow ptrace') if chance(0.5) else []
    return render(ctx, note(ctx, 'The worker reports auth failures without saying against what; attaching strace to see what it sends.') if chance(0.5) else [],
                  pre, step(ctx, cmd, out, 'strace the worker'))


def lt(fn, args, ret, w=72):
    left = '%s(%s)' % (fn, args)
    return '%s%s= %s' % (left, ' ' * max(1, w - len(strip_marks(left))), ret)


def p_ltrace_getenv_libcalls(ctx):
    prog = pick(['exporter', 'ingestd', 'billing-sync', 'pgbackup'])
    pid = R.randint(1000, 60000)
    out = []

    def L(lib, fn, args, ret):
        out.append('[pid %d] %s->%s' % (pid, lib, lt(fn, args, ret)))
    pw = pw_any(safe=True)
    tok = [hx, lambda n: gh('ghs_'), pw_alnum][R.randint(0, 2)](40)
    L(prog, 'getenv', '"%s_CONFIG"' % prog.upper().replace('-', '_'), '"/etc/%s/config.ini"' % prog)
    L(prog, 'fopen', '"/etc/%s/config.ini", "r"' % prog, '0x%s' % hx(12))
    L(prog, 'getenv', '"PGHOST"', '"%s"' % pick(['db.internal', '10.0.3.9', 'pg-primary']))
    L(prog, 'getenv', '"PGPASSWORD"', '"%s"' % M(pw))
    L('libpq.so.5', 'getenv', '"PGSSLMODE"', 'nil')
    L('libpq.so.5', 'getenv', '"PGPASSFILE"', 'nil')
    L(prog, 'getenv', '"UPSTREAM_TOKEN"', '"%s"' % M(tok))
    L(prog, 'snprintf', '"Authorization: Bearer %s", 256, "Authorization: Bearer %%s", "%s"' % (M(tok), M(tok)), str(22 + len(tok)))
    L(prog, 'strncmp', '"Authorization: Bearer %s", "Authorization: ", 15' % M(tok), '0')
    L(prog, 'curl_slist_append', '0, 0x7ffd%s' % hx(8), '0x%s' % hx(12))
    L(prog, 'curl_easy_setopt', '0x%s, 10023, 0x%s, 0' % (hx(12), hx(12)), '0')
    if ctx.long:
        for _ in range(R.randint(32, 55)):
            fn = pick(['malloc', 'free', 'strlen', 'memcpy', 'getenv', 'strcmp', 'time', 'localtime_r', 'strftime', 'fwrite', 'pthread_mutex_lock', 'pthread_mutex_unlock'])
            if fn == 'malloc':
                L(prog, fn, str(R.randint(16, 8192)), '0x%s' % hx(12))
            elif fn == 'free':
                L(prog, fn, '0x%s' % hx(12), '<void>')
            elif fn == 'strlen':
                L(prog, fn, '"%s"' % pick(['/v1/metrics', 'application/json', 'gzip', 'keep-alive', ctx.project]), str(R.randint(4, 16)))
            elif fn == 'memcpy':
                L(prog, fn, '0x%s, 0x%s, %d' % (hx(12), hx(12), R.randint(8, 512)), '0x%s' % hx(12))
            elif fn == 'getenv':
                L(prog, fn, '"%s"' % pick(['TZ', 'LANG', 'HTTP_PROXY', 'NO_PROXY', 'LOG_LEVEL']), pick(['nil', '"UTC"', '"info"']))
            elif fn == 'strcmp':
                L(prog, fn, '"%s", "%s"' % (pick(['gzip', 'json', 'GET']), pick(['gzip', 'deflate', 'POST'])), str(R.randint(-20, 20)))
            elif fn == 'time':
                L(prog, fn, '0', str(int(epoch(ctx.clock.tick()))))
            elif fn in ('pthread_mutex_lock', 'pthread_mutex_unlock'):
                L(prog, fn, '0x%s' % hx(12), '0')
            elif fn == 'fwrite':
                L(prog, fn, '"level=info msg=\\"scrape ok\\" dur=%dms\\n", 1, %d, 0x%s' % (R.randint(1, 900), R.randint(30, 60), hx(12)), str(R.randint(30, 60)))
            else:
                L(prog, fn, '0x%s, 0x%s' % (hx(12), hx(12)), '0x%s' % hx(12))
    out.append('[pid %d] +++ exited (status %d) +++' % (pid, pick([0, 1, 2])))
    cmd = 'ltrace -f -e getenv+fopen+snprintf+strncmp+curl_slist_append+curl_easy_setopt%s ./bin/%s --once' % ('+malloc+free+strlen+memcpy+strcmp+time+fwrite+pthread_mutex_lock+pthread_mutex_unlock' if ctx.long else '', prog)
    return render(ctx, note(ctx, 'The binary picks its credentials from somewhere other than the config; tracing library calls to find out where.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'ltrace the exporter'))


def gdb_str(s):
    return s.replace('\\', '\\\\').replace('"', '\\"')


def p_gdb_attach_info_locals(ctx):
    pid = R.randint(1000, 60000)
    prog = pick(['ingestd', 'mq-bridge', 'edge-proxy', 'telemetryd'])
    host = pick(['mq-prod-2.internal', 'rabbit-0.rabbit.%s.svc' % ctx.project, 'broker.%s' % ctx.domain])
    pw = pw_any(safe=True)
    tok = pick([hx(40), pw_alnum(32), gh('ghs_')])
    out = ['[New LWP %d]' % (pid + 1), '[New LWP %d]' % (pid + 2), '[Thread debugging using libthread_db enabled]',
           'Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".',
           '0x00007f%s in __GI___poll (fds=0x7ffd%s, nfds=1, timeout=5000) at ../sysdeps/unix/sysv/linux/poll.c:29' % (hx(10), hx(8)),
           '29\t../sysdeps/unix/sysv/linux/poll.c: No such file or directory.']
    if ctx.long:
        for tn in range(R.randint(6, 9), 0, -1):
            out.append('')
            out.append('Thread %d (Thread 0x7f%s (LWP %d) "%s"):' % (tn, hx(10), pid + tn - 1, pick([prog, 'worker-%d' % tn, 'io-loop'])))
            frames = [('__GI___poll', 'fds=0x7ffd%s, nfds=1, timeout=5000' % hx(8), '../sysdeps/unix/sysv/linux/poll.c:29'),
                      ('amqp_try_recv', 'state=0x55%s' % hx(10), 'amqp_socket.c:625'),
                      ('upstream_connect', 'cfg=0x55%s' % hx(10), 'src/upstream.c:212'),
                      ('main', 'argc=3, argv=0x7ffd%s' % hx(8), 'src/main.c:88')]
            for i, (fn, args, loc) in enumerate(frames[:3] if tn != 1 else frames):
                out.append('#%d  0x%s in %s (%s) at %s' % (i, ('00007f' if i < 2 else '000055') + hx(10), fn, args, loc))
    cfg_addr = '0x55' + hx(10)
    out += ['', '#2  0x000055%s in upstream_connect (cfg=%s) at src/upstream.c:212' % (hx(10), cfg_addr),
            '212\t    rc = amqp_login(conn, cfg->vhost, 0, 131072, 60, AMQP_SASL_METHOD_PLAIN, cfg->user, cfg->password);',
            'rc = {reply_type = AMQP_RESPONSE_LIBRARY_EXCEPTION, reply = {id = 0, decoded = 0x0}, library_error = -9}',
            'conn = 0x55%s' % hx(10), 'sock = 0x55%s' % hx(10), 'attempt = %d' % R.randint(1, 40)]
    pem = None
    if chance(0.4):
        pem = ec_key()
    fields = ['host = 0x55%s "%s"' % (hx(10), host), 'port = %d' % pick([5671, 5672]), 'vhost = 0x55%s "/%s"' % (hx(10), ctx.project),
              'user = 0x55%s "%s"' % (hx(10), pick(['ingest', 'bridge', ctx.project])), 'password = 0x55%s "%s"' % (hx(10), M(gdb_str(pw))),
              'tls = true', 'ca_path = 0x55%s "/etc/ssl/certs/%s-ca.pem"' % (hx(10), ctx.org),
              "api_token = \"%s\", '\\000' <repeats %d times>" % (M(tok), 63 - len(tok) if len(tok) < 63 else 1)]
    if pem:
        fields.append('client_key_pem = 0x55%s "%s"' % (hx(10), pem.escaped('\\n')[:-2]))
    out.append('$1 = {%s}' % ', '.join(fields))
    out.append('%s:\t"%s"' % ('0x55' + hx(10), M(gdb_str(pw))))
    out.append('[Inferior 1 (process %d) detached]' % pid)
    cmd = "sudo gdb -p %d -batch %s-ex 'frame 2' -ex 'info locals' -ex 'print *cfg' -ex 'x/s cfg->password'" % (pid, "-ex 'thread apply all bt 4' " if ctx.long else '')
    pre = step(ctx, 'echo 0 | sudo tee /proc/sys/kernel/yama/ptrace_scope >/dev/null', [], 'allow ptrace') if chance(0.6) else []
    return render(ctx, note(ctx, 'The bridge is stuck reconnecting; attaching gdb to look at the login arguments.') if chance(0.5) else [],
                  pre, step(ctx, cmd, out, 'gdb batch attach'))


def p_crictl_inspect_runtime_spec_env(ctx):
    cid = container_id()
    pairs = base_env(ctx, True, False) + secret_env(ctx, R.randint(2, 4) if ctx.long else 2, pem_ok=chance(0.5))
    conv = []
    for k, v in pairs:
        if isinstance(v, Pem):
            conv.append((k, v.escaped('\\n')))
        else:
            conv.append((k, v))
    out = []
    if ctx.long:
        out.append('[')
        for i, (k, v) in enumerate(conv):
            out += ['  {', '    "key": "%s",' % k, '    "value": "%s"' % v, '  }' + (',' if i < len(conv) - 1 else '')]
        out.append(']')
    out.append('[')
    for i, (k, v) in enumerate(conv):
        out.append('  "%s=%s"%s' % (k, v, ',' if i < len(conv) - 1 else ''))
    out.append(']')
    if ctx.long:
        out += ['"%s"' % cid, '"docker.io/%s/%s@%s"' % (ctx.org, ctx.project, digest()),
                '{', '  "io.kubernetes.pod.name": "%s-%s-%s",' % (ctx.project, hx(10)[:9], rs(LOWNUM, 5)),
                '  "io.kubernetes.pod.namespace": "%s",' % ctx.project, '  "io.kubernetes.pod.uid": "%s"' % uuid4(), '}']
    q = (".info.config.envs, .info.runtimeSpec.process.env, .status.id, .status.imageRef, .status.labels" if ctx.long else '.info.runtimeSpec.process.env')
    cmd = "sudo crictl inspect %s | jq '%s'" % (cid[:13], q)
    s0 = step(ctx, 'sudo crictl ps --name %s -q' % ctx.project, [cid[:13]]) if chance(0.5) else []
    return render(ctx, note(ctx, 'kubectl exec is blocked on this node; reading the container spec through crictl instead.') if chance(0.5) else [],
                  s0, step(ctx, cmd, out, 'container runtime spec'))


def go_struct_cfg(ctx, pw, extra):
    return '{Listen::8080 DB:{URL:postgres://%s:%s@%s:5432/%s MaxConns:%d} %s LogLevel:debug}' % (
        ctx.project.replace('-', '_'), M(pw), pick(['db.internal', '10.0.4.12']), ctx.project.replace('-', '_'), R.randint(5, 50), extra)


def p_journalctl_u_crashloop_config(ctx):
    c = ctx.clock
    unit = '%s.service' % ctx.project
    h = pick(['ip-10-0-1-23', ctx.host, 'prod-%s-1' % ctx.project])
    pw = pw_any(safe=True)
    sasl = pw_any()
    kind = pick(['kafka', 'smtp', 'api'])
    if kind == 'kafka':
        extra = 'Kafka:{Brokers:[b-1.%s.kafka.us-east-1.amazonaws.com:9096 b-2.%s.kafka.us-east-1.amazonaws.com:9096] SASLUser:%s SASLPassword:%s}' % (ctx.project, ctx.project, ctx.project, M(sasl))
    elif kind == 'smtp':
        extra = 'SMTP:{Host:smtp.sendgrid.net Port:587 User:apikey Password:%s}' % M(sendgrid())
    else:
        extra = 'Upstream:{BaseURL:https://api.%s Token:%s Timeout:10s}' % (ctx.domain, M(pw_alnum(40)))
    cfg = go_struct_cfg(ctx, pw, extra)
    out = []
    loops = R.randint(4, 6) if ctx.long else 1
    for i in range(loops):
        pid = R.randint(1000, 60000)
        t = c.tick(5, 12)

        def J(src, msg):
            out.append('%s %s %s: %s' % (syslog_ts(c.tick(0.0, 0.05)), h, src, msg))
        if i > 0:
            J('systemd[1]', '%s: Scheduled restart job, restart counter is at %d.' % (unit, i + R.randint(3, 20)))
        J('systemd[1]', 'Started %s - %s.' % (unit, pick(['Ingest worker', 'Billing API', 'Webhook relay'])))
        J('%s[%d]' % (ctx.project, pid), 'time=%s level=INFO msg="loaded config" source=/etc/%s/config.yaml' % (iso(c.t), ctx.project))
        J('%s[%d]' % (ctx.project, pid), 'time=%s level=DEBUG msg="effective config" cfg="%s"' % (iso(c.t), cfg))
        J('%s[%d]' % (ctx.project, pid), 'panic: runtime error: invalid memory address or nil pointer dereference')
        J('%s[%d]' % (ctx.project, pid), '[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x%s]' % hx(6))
        J('%s[%d]' % (ctx.project, pid), '')
        J('%s[%d]' % (ctx.project, pid), 'goroutine 1 [running]:')
        J('%s[%d]' % (ctx.project, pid), 'main.(*Server).connect(0xc000%s)' % hx(6))
        J('%s[%d]' % (ctx.project, pid), '        /src/cmd/%s/server.go:%d +0x%x' % (ctx.project, R.randint(40, 200), R.randint(16, 400)))
        J('%s[%d]' % (ctx.project, pid), 'main.main()')
        J('%s[%d]' % (ctx.project, pid), '        /src/cmd/%s/main.go:%d +0x%x' % (ctx.project, R.randint(20, 90), R.randint(16, 400)))
        J('systemd[1]', '%s: Main process exited, code=exited, status=2/INVALIDARGUMENT' % unit)
        J('systemd[1]', "%s: Failed with result 'exit-code'." % unit)
    cmd = 'journalctl -u %s -n %d --no-pager' % (unit, 150 if ctx.long else 20)
    return render(ctx, note(ctx, 'The unit is crash-looping; reading its journal.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'unit journal'))


def p_kubectl_describe_exec_probe_cli_pass(ctx):
    k = R.randint(0, 2)
    pw = pw_any(safe=True)
    ns = pick(['cache', 'data', ctx.project, 'infra'])
    if k == 0:
        name, image, port = 'redis-0', 'docker.io/bitnami/redis:7.2.4-debian-12-r%d' % R.randint(1, 20), '6379/TCP'
        args = ['--requirepass', M(pw), '--appendonly', 'yes']
        live = 'exec [sh -c redis-cli -a %s ping] delay=20s timeout=5s period=10s #success=1 #failure=5' % M(pw)
        ready = 'exec [sh -c redis-cli -a %s --no-auth-warning ping | grep PONG] delay=5s timeout=1s period=5s #success=1 #failure=5' % M(pw)
        envs = [('REDIS_PASSWORD', "<set to the key 'redis-password' in secret 'redis'>  Optional: false"), ('REDIS_PORT', '6379')]
        evmsg = "Liveness probe failed: Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe."
    elif k == 1:
        name, image, port = 'mysql-0', 'docker.io/library/mysql:8.0.36', '3306/TCP'
        args = []
        live = 'exec [bash -c mysqladmin ping -uroot -p%s] delay=30s timeout=5s period=10s #success=1 #failure=3' % M(pw)
        ready = 'exec [bash -c mysql -h 127.0.0.1 -uroot -p%s -e "SELECT 1"] delay=5s timeout=2s period=5s #success=1 #failure=3' % M(pw)
        envs = [('MYSQL_ROOT_PASSWORD', "<set to the key 'root-password' in secret 'mysql'>  Optional: false"), ('MYSQL_DATABASE', ctx.project.replace('-', '_'))]
        evmsg = 'Readiness probe failed: mysql: [Warning] Using a password on the command line interface can be insecure.'
    else:
        name, image, port = 'mongo-0', 'docker.io/library/mongo:7.0.8', '27017/TCP'
        args = ['--auth', '--bind_ip_all']
        live = 'exec [mongosh --quiet -u root -p %s --authenticationDatabase admin --eval db.adminCommand("ping")] delay=30s timeout=10s period=20s #success=1 #failure=6' % M(pw)
        ready = 'exec [mongosh --quiet --eval db.adminCommand("ping")] delay=5s timeout=5s period=10s #success=1 #failure=6'
        envs = [('MONGO_INITDB_ROOT_USERNAME', 'root'), ('MONGO_INITDB_ROOT_PASSWORD', "<set to the key 'password' in secret 'mongo'>  Optional: false")]
        evmsg = 'Liveness probe failed: MongoServerError: Authentication failed.'
    node = 'ip-10-0-%d-%d.ec2.internal' % (R.randint(0, 9), R.randint(2, 250))
    out = ['Name:             %s' % name, 'Namespace:        %s' % ns, 'Priority:         0', 'Service Account:  default',
           'Node:             %s/%s' % (node, ip_priv()), 'Start Time:       %s, %02d %s %d %s +0000' % (DAYS[ctx.clock.t.weekday()], ctx.clock.t.day, MONTHS[ctx.clock.t.month - 1], ctx.clock.t.year, hms(ctx.clock.t)),
           'Labels:           app.kubernetes.io/name=%s' % name.split('-')[0]] + (['                  controller-revision-hash=%s-%s' % (name.split('-')[0], hx(10)[:10]),
           '                  statefulset.kubernetes.io/pod-name=%s' % name] if ctx.long else []) + ['Status:           Running', 'IP:               %s' % ip_priv(),
           'Controlled By:  StatefulSet/%s' % name.split('-')[0], 'Containers:', '  %s:' % name.split('-')[0],
           '    Container ID:  containerd://%s' % container_id(), '    Image:         %s' % image,
           '    Image ID:      %s@%s' % (image.split(':')[0], digest()), '    Port:          %s' % port, '    Host Port:     0/TCP']
    if args:
        out.append('    Args:')
        out += ['      ' + a for a in args]
    out += ['    State:          Running', '      Started:      %s' % http_date(ctx.clock.t).replace(' GMT', ' +0000'),
            '    Last State:     Terminated', '      Reason:       Error', '      Exit Code:    137',
            '    Ready:          False', '    Restart Count:  %d' % R.randint(3, 60)] + (
            ['    Limits:', '      memory:  %dMi' % pick([512, 1024, 2048]), '    Requests:', '      cpu:     %dm' % pick([100, 250, 500])] if ctx.long else []) + [
            '    Liveness:     ' + live, '    Readiness:    ' + ready, '    Environment:']
    out += ['      %s:  %s' % kv for kv in envs]
    out += ['    Mounts:', '      /data from data (rw)', '      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-%s (ro)' % rs(LOWNUM, 5)]
    if ctx.long:
        out += ['Conditions:', '  Type                        Status', '  PodReadyToStartContainers   True', '  Initialized                 True',
                '  Ready                       False', '  ContainersReady             False', '  PodScheduled                True',
                'Volumes:', '  data:', '    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)',
                '    ClaimName:  data-%s' % name, '    ReadOnly:   false', 'QoS Class:                   Burstable',
                'Node-Selectors:              <none>', 'Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s',
                '                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s']
    out += ['Events:', '  Type     Reason     Age                  From     Message', '  ----     ------     ----                 ----     -------',
            '  Warning  Unhealthy  %dm (x%d over %dh)  kubelet  %s' % (R.randint(1, 9), R.randint(10, 90), R.randint(1, 9), evmsg),
            '  Normal   Killing    %dm (x%d over %dh)  kubelet  Container %s failed liveness probe, will be restarted' % (R.randint(1, 9), R.randint(3, 30), R.randint(1, 9), name.split('-')[0])]
    cmd = 'kubectl describe pod %s -n %s' % (name, ns)
    blocks = [step(ctx, cmd, out, 'describe pod')]
    if k != 2 and (ctx.long or chance(0.3)):
        f = 'deploy/%s/statefulset.yaml' % name.split('-')[0]
        probe_old = live.split('[')[1].split(']')[0]
        probe_new = probe_old.replace(M(pw), '"$REDIS_PASSWORD"' if k == 0 else '"$MYSQL_ROOT_PASSWORD"')
        diff = ['diff --git a/%s b/%s' % (f, f), 'index %s..%s 100644' % (hx(7), hx(7)), '--- a/%s' % f, '+++ b/%s' % f,
                '@@ -{0},8 +{0},8 @@ spec:'.format(R.randint(30, 60)), '           livenessProbe:', '             exec:', '               command:']
        sh = probe_old.split(' ', 1)[0]
        diff += ['-                - %s' % sh, '-                - -c', '-                - %s' % probe_old.split(' ', 2)[2]]
        diff += ['+                - %s' % sh, '+                - -c', '+                - %s' % probe_new.split(' ', 2)[2]]
        diff += ['             initialDelaySeconds: 20', '             periodSeconds: 10']
        blocks.append(step(ctx, 'git diff -- %s' % f, diff, 'probe fix'))
    return render(ctx, note(ctx, 'The pod keeps restarting; describing it to see the probe definitions.') if chance(0.5) else [], *blocks)


def java_prop_esc(v):
    return v.replace(':', '\\:').replace('=', '\\=')


def p_jcmd_vm_sysprops_command_line(ctx):
    pid = R.randint(1, 60000) if chance(0.5) else 1
    dbpw = pw_any(safe=True)
    kspw = pw_any(safe=True)
    db = ctx.project.replace('-', '_')
    jdbc = 'jdbc:postgresql://%s:5432/%s' % (pick(['db.internal', 'pg-primary.%s.svc' % ctx.project]), db)
    jaas_pw = pw_any(safe=True)
    jvm_args = ['-Xms512m', '-Xmx%dg' % R.randint(1, 8), '-XX:+UseG1GC', '-XX:+HeapDumpOnOutOfMemoryError', '-XX:HeapDumpPath=/dumps',
                '-Dspring.profiles.active=prod', '-Dspring.datasource.url=%s' % jdbc, '-Dspring.datasource.username=%s' % db,
                '-Dspring.datasource.password=%s' % M(dbpw), '-Djavax.net.ssl.trustStore=/etc/ssl/cacerts', '-Djavax.net.ssl.trustStorePassword=changeit',
                '-Djavax.net.ssl.keyStore=/etc/%s/client.p12' % ctx.project, '-Djavax.net.ssl.keyStorePassword=%s' % M(kspw),
                '-javaagent:/opt/dd-java-agent.jar', '-Ddd.service=%s' % ctx.project, '-Ddd.env=prod']
    out1 = ['%d:' % pid, 'VM Arguments:', 'jvm_args: %s' % ' '.join(jvm_args), 'java_command: /app/app.jar --server.port=8080',
            'java_class_path (initial): /app/app.jar', 'Launcher Type: SUN_STANDARD']
    props = [('awt.toolkit', 'sun.awt.X11.XToolkit'), ('dd.env', 'prod'), ('dd.service', ctx.project), ('file.encoding', 'UTF-8'),
             ('file.separator', '/'), ('java.class.path', '/app/app.jar'), ('java.class.version', '65.0'), ('java.home', '/opt/java/openjdk'),
             ('java.io.tmpdir', '/tmp'), ('java.runtime.version', '21.0.3+9-LTS'), ('java.vendor', 'Eclipse Adoptium'),
             ('java.vm.name', 'OpenJDK 64-Bit Server VM'), ('java.vm.version', '21.0.3+9-LTS'), ('javax.net.ssl.keyStore', '/etc/%s/client.p12' % ctx.project),
             ('javax.net.ssl.keyStorePassword', M(kspw)), ('javax.net.ssl.trustStore', '/etc/ssl/cacerts'), ('javax.net.ssl.trustStorePassword', 'changeit'),
             ('jdk.debug', 'release'), ('line.separator', '\\n'), ('os.arch', 'amd64'), ('os.name', 'Linux'), ('os.version', '6.1.0-21-cloud-amd64'),
             ('path.separator', ':'), ('spring.datasource.password', M(java_prop_esc(dbpw))), ('spring.datasource.url', java_prop_esc(jdbc)),
             ('spring.datasource.username', db), ('spring.profiles.active', 'prod'), ('sun.arch.data.model', '64'),
             ('sun.java.command', '/app/app.jar --server.port\\=8080'), ('sun.jnu.encoding', 'UTF-8'), ('user.dir', '/app'),
             ('user.home', '/home/app'), ('user.name', 'app'), ('user.timezone', 'UTC')]
    if chance(0.5):
        props.append(('spring.kafka.properties.sasl.jaas.config', java_prop_esc('org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="' % db) + M(java_prop_esc(jaas_pw)) + '";'))
        props.sort()
    c = ctx.clock
    out2 = ['%d:' % pid, '#%s %s %02d %s UTC %d' % (DAYS[c.t.weekday()], MONTHS[c.t.month - 1], c.t.day, hms(c.t), c.t.year)]
    out2 += ['%s=%s' % kv for kv in props]
    if not ctx.long:
        out2 = [l for l in out2 if re.search(r'pass|secret|token|key|url|jaas', l, re.I)]
        return render(ctx, step(ctx, "jcmd %d VM.system_properties | grep -iE 'pass|secret|token|key|url|jaas'" % pid, out2, 'JVM properties'))
    return render(ctx, note(ctx, 'Checking which datasource settings the running JVM actually has.') if chance(0.5) else [],
                  step(ctx, 'jcmd %d VM.command_line' % pid, out1, 'JVM command line'),
                  step(ctx, 'jcmd %d VM.system_properties' % pid, out2, 'JVM properties'))


def p_node_inspect_debugger_exec(ctx):
    port = 9229
    wsid = uuid4()
    sec = pick([('SHOPIFY_API_SECRET', hx(32)), ('STRIPE_SECRET_KEY', sk_live()), ('GITHUB_CLIENT_SECRET', hx(40)),
                ('SESSION_SECRET', pw_alnum(48)), ('OPENAI_API_KEY', openai_key())])
    rpw = pw_any(safe=True)
    out = ['connecting to 127.0.0.1:%d ... ok' % port,
           'debug> Debugger attached.' if chance(0.3) else 'debug> ',
           'debug> exec process.env.%s' % sec[0], "'%s'" % M(sec[1]),
           'debug> exec Object.keys(process.env).filter(k => /KEY|TOKEN|SECRET/.test(k))',
           "[ '%s', '%s', 'NPM_CONFIG_CACHE', 'SHOPIFY_API_KEY' ]" % (sec[0], pick(['SESSION_SECRET', 'JWT_PUBLIC_KEY', 'SENTRY_AUTH_TOKEN'])),
           "debug> exec require('./dist/config').default.redis",
           "{ host: 'redis.%s.svc', port: 6379, password: '%s', tls: {}, keyPrefix: '%s:' }" % (ctx.project, M(rpw), ctx.project)]
    if ctx.long:
        out = ['< Debugger listening on ws://127.0.0.1:%d/%s' % (port, wsid), '< For help, see: https://nodejs.org/en/docs/inspector', '<',
               '< Debugger attached.', '<'] + out
        out += ['debug> sb(\'dist/routes/webhooks.js\', %d)' % R.randint(20, 80), '  %d     const sig = req.get(\'X-Shopify-Hmac-Sha256\');' % R.randint(20, 80),
                'debug> cont', '< POST /webhooks/orders-create 401 12.481 ms - 27',
                'break in dist/routes/webhooks.js:%d' % R.randint(20, 80)]
        for i in range(R.randint(-3, 3) + 6):
            out.append(' %2d   %s' % (40 + i, pick(["const digest = crypto.createHmac('sha256', secret)", "  .update(req.rawBody, 'utf8')", "  .digest('base64');",
                                                     'if (!timingSafeEqual(digest, sig)) {', "  return res.status(401).json({ error: 'bad hmac' });", '}'])))
        out += ['debug> exec sig', "'%s'" % b64e(rbytes(32)), 'debug> exec digest', "'%s'" % b64e(rbytes(32)),
                'debug> exec req.headers', "{\n  host: 'hooks.%s',\n  'x-shopify-topic': 'orders/create',\n  'x-shopify-shop-domain': '%s.myshopify.com',\n  'x-shopify-webhook-id': '%s',\n  'x-shopify-triggered-at': '%s',\n  'content-type': 'application/json'\n}" % (ctx.domain, ctx.org, uuid4(), iso(ctx.clock.t, 6)),
                'debug> exec secret.length', str(len(sec[1])), 'debug> bt']
        for i in range(R.randint(8, 12)):
            out.append('#%d %s %s:%d:%d' % (i, pick(['verifyWebhook', 'Layer.handle [as handle_request]', 'next', 'Route.dispatch', 'Function.process_params',
                                                     'jsonParser', 'rawBody', 'processTicksAndRejections']),
                                          pick(['dist/routes/webhooks.js', 'node_modules/express/lib/router/layer.js', 'node_modules/express/lib/router/route.js',
                                                'node_modules/body-parser/lib/types/json.js', 'node:internal/process/task_queues']), R.randint(10, 400), R.randint(1, 40)))
        out.append('debug> .exit')
        out = '\n'.join(out).split('\n')
    cmd = pick(['kill -USR1 $(pgrep -f "node dist/server.js") && node inspect 127.0.0.1:%d' % port, 'node inspect -p $(pgrep -f "node dist/server.js")'])
    return render(ctx, note(ctx, 'Attaching the Node inspector to the live process to compare the webhook secret it loaded.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'node inspector session'))


def pyspy_str(s):
    return '"%s"' % s


def p_py_spy_dump_locals_threads(ctx):
    pid = R.randint(1000, 60000)
    mod = ctx.project.replace('-', '_')
    site = '/app/.venv/lib/python3.11/site-packages'
    v = R.randint(0, 2)
    if v == 0:
        tok = hubspot_pat()
        fn, loc = 'sync_contacts', '%s/tasks/crm.py' % mod
        locs = [('client', '<HubSpot at %s>' % addr_py()), ('token', pyspy_str(M(tok))), ('after', pyspy_str(rs(DIG, 9))), ('page', str(R.randint(1, 400)))]
    elif v == 1:
        tok = lin_api()
        fn, loc = 'pull_issues', '%s/linear.py' % mod
        locs = [('headers', '{"Authorization": "%s", "Content-Type": "application/json"}' % M(tok)), ('cursor', pyspy_str(uuid4())), ('team', pyspy_str(pick(['ENG', 'OPS', 'SRE'])))]
    else:
        pw = pw_any(safe=True)
        fn, loc = 'refresh_materialized_views', '%s/jobs/reports.py' % mod
        locs = [('dsn', pyspy_str('postgresql://reporting:%s@%s:5432/warehouse' % (M(pw), pick(['warehouse.internal', 'redshift-%s.%s.us-east-1.redshift.amazonaws.com' % (ctx.org, rs(LOWNUM, 12))])))),
                ('conn', '<psycopg2.extensions.connection at %s>' % addr_py()), ('view', pyspy_str(pick(['mv_daily_revenue', 'mv_churn', 'mv_funnel'])))]
    out = ['Process %d: %s/.venv/bin/python -m celery -A %s worker -l info -c 4' % (pid, '/app', mod), 'Python v3.11.9 (/usr/local/bin/python3.11)', '']
    out += ['Thread %d (idle): "MainThread"' % pid, '    select (selectors.py:468)', '        Arguments:', '            self: <EpollSelector at %s>' % addr_py(),
            '            timeout: 1.0', '        Locals:', '            max_ev: 3', '            ready: []',
            '    _poll (kombu/asynchronous/hub.py:%d)' % R.randint(300, 380), '    create_loop (kombu/asynchronous/hub.py:373)',
            '    asynloop (celery/worker/loops.py:97)', '    start (celery/worker/consumer/consumer.py:340)']
    if ctx.long:
        for n in range(R.randint(2, 4)):
            out += ['', 'Thread %d (idle): "Thread-%d (_run)"' % (pid + n + 2, n + 1), '    wait (threading.py:331)', '        Arguments:',
                    '            self: <Condition at %s>' % addr_py(), '            timeout: %s' % pick(['None', '10.0']), '        Locals:',
                    '            waiter: <lock at %s>' % addr_py(), '            saved_state: None', '    get (queue.py:180)', '    _run (%s/kombu/utils/objects.py:%d)' % (site, R.randint(30, 60)),
                    '    run (threading.py:982)', '    _bootstrap_inner (threading.py:1045)', '    _bootstrap (threading.py:1002)']
    out += ['', 'Thread %d (active): "ThreadPoolExecutor-0_0"' % (pid + 1), '    recv_into (ssl.py:1314)', '    readinto (socket.py:706)',
            '    _read_status (http/client.py:286)', '    begin (http/client.py:325)', '    getresponse (http/client.py:1415)',
            '    _make_request (%s/urllib3/connectionpool.py:507)' % site, '    urlopen (%s/urllib3/connectionpool.py:793)' % site,
            '    send (%s/requests/adapters.py:486)' % site,
            '    %s (%s:%d)' % (fn, loc, R.randint(30, 160)), '        Arguments:', '            self: <Task at %s>' % addr_py(),
            '            account_id: %d' % R.randint(1, 99999), '        Locals:']
    out += ['            %s: %s' % kv for kv in locs]
    out += ['    __call__ (celery/app/trace.py:%d)' % R.randint(700, 770), '    trace_task (celery/app/trace.py:%d)' % R.randint(450, 480)]
    cmd = 'sudo py-spy dump --pid %d --locals' % pid
    return render(ctx, note(ctx, 'A Celery task has been stuck for 40 minutes; dumping its stack with locals.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'py-spy dump'))


def p_dlv_attach_print_config(ctx):
    pid = R.randint(1000, 60000)
    dbpw = pw_any(safe=True)
    sk = sk_live()
    wh = whsec()
    rpw = pw_alnum(32)
    db = ctx.project.replace('-', '_')
    out = ['Type \'help\' for list of commands.']
    if ctx.long:
        out += ['(dlv) goroutines -t', '  Goroutine 1 - User: /usr/local/go/src/runtime/netpoll.go:345 internal/poll.runtime_pollWait (0x%s) [IO wait 3m12s]' % hx(6)]
        for g in range(R.randint(10, 18)):
            out.append('  Goroutine %d - User: /usr/local/go/src/runtime/%s (0x%s) [%s]' % (R.randint(2, 900), pick(['proc.go:402 runtime.gopark', 'netpoll.go:345 internal/poll.runtime_pollWait', 'sema.go:71 sync.runtime_SemacquireMutex', 'time.go:300 time.Sleep']),
                                                                                     hx(6), pick(['IO wait', 'select', 'chan receive', 'semacquire 41m', 'sleep'])))
        out.append('[%d goroutines]' % R.randint(30, 400))
        out += ['(dlv) goroutine 1', 'Switched from 0 to 1 (thread %d)' % pid, '(dlv) stack 4']
        for i, fr in enumerate(['internal/poll.runtime_pollWait', 'internal/poll.(*pollDesc).wait', 'net.(*netFD).Read', 'main.(*Server).charge']):
            out += ['%d  0x0000000000%s in %s' % (i, hx(6), fr), '   at /usr/local/go/src/%s:%d' % (pick(['runtime/netpoll.go', 'internal/poll/fd_poll_runtime.go', 'net/fd_posix.go', '../../src/cmd/%s/server.go' % ctx.project]), R.randint(40, 400))]
        out.append('(dlv) frame 3')
    out += ['(dlv) locals', 'cfg = (*main.Config)(0xc000%s)' % hx(6), 'req = (*net/http.Request)(0xc000%s)' % hx(6), 'err = error nil', '(dlv) print *cfg', 'main.Config {']
    out += ['\tAddr: ":8443",', '\tDatabaseURL: "postgres://%s:%s@%s:5432/%s?sslmode=require",' % (db, M(dbpw), pick(['db.internal', '10.0.4.12']), db),
            '\tStripeKey: "%s",' % M(sk), '\tWebhook: main.WebhookConfig {Secret: "%s", Tolerance: 300000000000},' % M(wh),
            '\tRedis: *github.com/redis/go-redis/v9.Options {',
            '\t\tNetwork: "tcp",', '\t\tAddr: "redis-master.%s.svc:6379",' % ctx.project, '\t\tClientName: "",', '\t\tDialer: nil,',
            '\t\tProtocol: 3,', '\t\tUsername: "default",', '\t\tPassword: "%s",' % M(rpw), '\t\tDB: %d,' % R.randint(0, 5),
            '\t\tMaxRetries: 3,', '\t\tPoolSize: 20,', '\t\t...+%d more},' % R.randint(10, 25), '\tLogLevel: "debug",', '\tBuildSHA: "%s",}' % gitsha()]
    out.append('(dlv) exit')
    out.append('Would you like to kill the process? [Y/n] n')
    cmd = 'dlv attach %d' % pid
    return render(ctx, note(ctx, 'Attaching delve to the stuck billing process to inspect its config.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'delve session'))


def p_docker_inspect_health_log_creds(ctx):
    k = R.randint(0, 3)
    pw = pw_any(safe=True)
    if k == 0:
        name, test = '%s-rabbitmq-1' % ctx.project, 'curl -fsS -u admin:%s http://localhost:15672/api/health/checks/alarms || exit 1' % M(pw)
        fail = 'curl: (22) The requested URL returned error: 401\\n'
    elif k == 1:
        name, test = '%s-elasticsearch-1' % ctx.project, 'curl -fsS -u elastic:%s http://localhost:9200/_cluster/health?wait_for_status=yellow || exit 1' % M(pw)
        fail = 'curl: (7) Failed to connect to localhost port 9200 after 0 ms: Couldn\'t connect to server\\n'
    elif k == 2:
        name, test = '%s-mongo-1' % ctx.project, "mongosh --quiet -u root -p %s --eval 'db.adminCommand(\\\"ping\\\").ok' | grep 1" % M(pw)
        fail = 'MongoServerError: Authentication failed.\\n'
    else:
        name, test = '%s-db-1' % ctx.project, 'PGPASSWORD=%s psql -h localhost -U app -d app -c \\"select 1\\"' % M(pw)
        fail = 'psql: error: connection to server at \\"localhost\\" (127.0.0.1), port 5432 failed: FATAL:  password authentication failed for user \\"app\\"\\n'
    c = ctx.clock
    logs = []
    for i in range(R.randint(3, 5) if ctx.long else 2):
        st = c.tick(25, 35)
        logs.append('    {\n      "Start": "%s",\n      "End": "%s",\n      "ExitCode": 1,\n      "Output": "%s"\n    }' % (iso(st, 6, '+00:00')[:-6] + '%03d+00:00' % R.randint(0, 999), iso(c.tick(0.01, 0.5), 6, '+00:00')[:-6] + '%03d+00:00' % R.randint(0, 999), fail))
    health = ['{', '  "Status": "unhealthy",', '  "FailingStreak": %d,' % R.randint(5, 300), '  "Log": ['] + ',\n'.join(logs).split('\n') + ['  ]', '}']
    hc = '{"Test":["CMD-SHELL","%s"],"Interval":30000000000,"Timeout":10000000000,"StartPeriod":%d000000000,"Retries":5}' % (test, pick([10, 30, 60]))
    out1 = ['NAME%s IMAGE%s STATUS' % (' ' * (len(name) - 2), ' ' * 20)]
    out1.append('%s   %-24s Up %d minutes (unhealthy)' % (name, pick(['rabbitmq:3.13-management', 'elasticsearch:8.13.2', 'mongo:7.0', 'postgres:16']), R.randint(2, 90)))
    blocks = [step(ctx, "docker inspect --format '{{json .State.Health}}' %s | jq" % name, health, 'health log'),
              step(ctx, "docker inspect --format '{{json .Config.Healthcheck}}' %s" % name, [hc], 'healthcheck definition')]
    if ctx.long:
        cid = container_id()
        blocks.insert(0, step(ctx, 'docker compose ps', out1, 'compose status'))
        blocks.append(step(ctx, "docker inspect --format '{{.Id}} {{.Image}}' %s" % name, ['%s %s' % (cid, digest())], 'ids'))
        blocks.append(step(ctx, 'docker logs --tail 25 %s 2>&1' % name, ['%s [info] <0.%d.0> %s' % (iso(c.tick(0.5, 20), 6), R.randint(100, 999), pick(['accepting AMQP connection', 'connection closed', 'health check failed', 'HTTP access denied: user \'admin\' - invalid credentials'])) for _ in range(R.randint(12, 25))], 'container logs'))
    return render(ctx, note(ctx, 'Compose marks the container unhealthy; reading the health log and the check it runs.') if chance(0.5) else [], *blocks)


# ---------------------------------------------------------------------------
# P: network captures
# ---------------------------------------------------------------------------
def hdr_garbage(n=52):
    s = ''
    for i in range(n):
        r = R.random()
        if r < 0.55:
            s += '.'
        elif r < 0.62:
            s += '@'
        else:
            s += chr(R.randint(0x21, 0x7e)).replace('«', '.').replace('»', '.')
    cut = R.randint(12, 20)
    return [s[:cut], s[cut:]] if chance(0.5) else [s]


def tcpdump_pkt(ctx, src, dst, seq, payload_lines, proto, summary, length):
    t = ctx.clock.tick(0.0005, 0.5)
    a, b = seq
    head = '%s IP %s > %s: Flags [P.], seq %d:%d, ack %d, win %d, options [nop,nop,TS val %d ecr %d], length %d' % (
        hms(t, 6), src, dst, a, a + length, b, R.randint(400, 512), R.randint(10 ** 8, 4 * 10 ** 9), R.randint(10 ** 8, 4 * 10 ** 9), length)
    if proto:
        head += ': %s: %s' % (proto, summary)
    g = hdr_garbage()
    g[-1] = g[-1] + payload_lines[0]
    return [head] + g + payload_lines[1:] + ['']


def p_tcpdump_a_cleartext_protocol_logins(ctx):
    iface = pick(['eth0', 'ens5', 'any', 'docker0'])
    cli = '%s.%d' % (ip_priv(), port())
    out = ['tcpdump: verbose output suppressed, use -v[v]... for full protocol decode',
           'listening on %s, link-type %s, snapshot length 262144 bytes' % (iface, 'LINUX_SLL2 (Linux cooked v2)' if iface == 'any' else 'EN10MB (Ethernet)')]
    protos = R.sample(['ftp', 'imap', 'pop3', 'http'], R.randint(3, 4) if ctx.long else 1)
    for pr in protos:
        cli = '%s.%d' % (cli.rsplit('.', 1)[0], port())
        srv_ip = ip_priv()
        pw = pw_any(safe=True) if pr != 'http' else None
        user = pick(['backup', 'ops', 'reports', 'scanner', 'edi'])
        sq = [R.randint(1, 200), R.randint(1, 200)]
        if pr == 'ftp':
            srv = '%s.21' % srv_ip
            seqs = [(cli, srv, 'USER %s' % user), (srv, cli, '331 Please specify the password.'), (cli, srv, 'PASS %s' % M(pw)),
                    (srv, cli, '230 Login successful.'), (cli, srv, 'PWD'), (srv, cli, '257 "/home/%s" is the current directory' % user)]
            P = 'FTP'
        elif pr == 'pop3':
            srv = '%s.110' % srv_ip
            seqs = [(srv, cli, '+OK Dovecot ready.'), (cli, srv, 'USER %s@%s' % (user, ctx.domain)), (srv, cli, '+OK'),
                    (cli, srv, 'PASS %s' % M(pw)), (srv, cli, '+OK Logged in.'), (cli, srv, 'STAT'), (srv, cli, '+OK %d %d' % (R.randint(0, 90), R.randint(0, 10 ** 6)))]
            P = 'POP3'
        elif pr == 'imap':
            srv = '%s.143' % srv_ip
            seqs = [(srv, cli, '* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS AUTH=PLAIN] Dovecot ready.'),
                    (cli, srv, 'a001 LOGIN %s "%s"' % (user, M(pw))), (srv, cli, 'a001 OK [CAPABILITY IMAP4rev1 SASL-IR] Logged in'),
                    (cli, srv, 'a002 SELECT INBOX'), (srv, cli, '* %d EXISTS' % R.randint(0, 900))]
            P = 'IMAP'
        else:
            srv = '%s.80' % srv_ip
            blob = b64e(('%s:%s' % (user, pw_any(safe=True))).encode())
            seqs = [(cli, srv, 'GET /nexus/repository/releases/ HTTP/1.1\nHost: %s\nAuthorization: Basic %s\nUser-Agent: Apache-Maven/3.9.6\nAccept: */*\n' % (srv_ip, M(blob))),
                    (srv, cli, 'HTTP/1.1 200 OK\nDate: %s\nServer: Nexus/3.67.1-01 (OSS)\nX-Content-Type-Options: nosniff\nContent-Type: text/html\n' % http_date(ctx.clock.t))]
            P = 'HTTP'
        for s_, d_, line in seqs:
            lines = line.split('\n')
            L = len(strip_marks(line).replace('\n', '\r\n')) + 2
            summ = strip_marks(lines[0]) if P != 'HTTP' else lines[0]
            summ_marked = lines[0] if P != 'HTTP' else lines[0]
            k = 0 if s_ == cli else 1
            out += tcpdump_pkt(ctx, s_, d_, (sq[k], sq[1 - k]), lines, P, summ_marked, L)
            sq[k] += L
    cmd = "sudo tcpdump -i %s -nn -A -s0 'port 21 or port 80 or port 110 or port 143'%s" % (iface, pick([' -c 40', ' -c 60', '']))
    return render(ctx, note(ctx, 'Capturing the legacy integrations on the host to see which ones still speak cleartext.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'packet capture'))


def tshark_frame_head(ctx, n, src, dst, sport, dport, length):
    return ['Frame %d: %d bytes on wire (%d bits), %d bytes captured (%d bits) on interface eth0, id 0' % (n, length, length * 8, length, length * 8),
            'Ethernet II, Src: %s, Dst: %s' % (':'.join('%02x' % R.randint(0, 255) for _ in range(6)), ':'.join('%02x' % R.randint(0, 255) for _ in range(6))),
            'Internet Protocol Version 4, Src: %s, Dst: %s' % (src, dst),
            'Transmission Control Protocol, Src Port: %d, Dst Port: %d, Seq: %d, Ack: %d, Len: %d' % (sport, dport, R.randint(1, 900), R.randint(1, 900), length - 66)]


def p_tshark_pgsql_cleartext_password(ctx):
    cli, srv = ip_priv(), ip_priv()
    sport = port()
    user = pick(['reporting', 'metabase', 'etl', 'grafana_ro', ctx.project.replace('-', '_')])
    db = pick(['analytics', 'warehouse', ctx.project.replace('-', '_')])
    pw = pw_any()
    out = []
    n = R.randint(3, 40)
    out += tshark_frame_head(ctx, n, cli, srv, sport, 5432, 66 + 8 + 5 + len(user) + 10 + len(db) + 2)
    out += ['PostgreSQL', '    Type: Startup message', '    Length: %d' % (8 + 5 + len(user) + 1 + 9 + len(db) + 1 + 1), '    Protocol major version: 3',
            '    Protocol minor version: 0', '    Parameter name: user', '    Parameter value: %s' % user, '    Parameter name: database',
            '    Parameter value: %s' % db]
    if ctx.long:
        out += ['    Parameter name: application_name', '    Parameter value: %s' % pick(['Metabase v0.49.7', 'psql', 'PostgreSQL JDBC Driver']),
                '    Parameter name: client_encoding', '    Parameter value: UTF8']
    out.append('')
    out += tshark_frame_head(ctx, n + 2, srv, cli, 5432, sport, 75)
    out += ['PostgreSQL', '    Type: Authentication request', '    Length: 8', '    Authentication type: Clear text password (3)', '']
    out += tshark_frame_head(ctx, n + 3, cli, srv, sport, 5432, 66 + len(pw) + 6)
    out += ['PostgreSQL', '    Type: Password message', '    Length: %d' % (len(pw) + 5), '    Password: %s' % M(pw), '']
    out += tshark_frame_head(ctx, n + 5, srv, cli, 5432, sport, R.randint(300, 420))
    out += ['PostgreSQL', '    Type: Authentication request', '    Length: 8', '    Authentication type: Success (0)']
    if ctx.long:
        for pn, pv in [('application_name', 'psql'), ('client_encoding', 'UTF8'), ('DateStyle', 'ISO, MDY'), ('integer_datetimes', 'on'),
                       ('server_version', '16.2'), ('TimeZone', 'Etc/UTC')]:
            out += ['PostgreSQL', '    Type: Parameter status', '    Length: %d' % (len(pn) + len(pv) + 6), '    Parameter name: %s' % pn, '    Parameter value: %s' % pv]
        out += ['PostgreSQL', '    Type: Backend key data', '    Length: 12', '    PID: %d' % R.randint(1000, 60000), '    Key: %d' % R.randint(10 ** 8, 2 * 10 ** 9),
                'PostgreSQL', '    Type: Ready for query', '    Length: 5', '    Status: Idle (73)', '']
        u2 = pick(['app', 'api'])
        out += tshark_frame_head(ctx, n + 30, ip_priv(), srv, port(), 5432, 110)
        out += ['PostgreSQL', '    Type: Password message', '    Length: 40', '    Password: md5%s' % hx(32), '']
    cmd = 'tshark -r /tmp/%s.pcap -Y pgsql -V -O pgsql' % pick(['pg-5432', 'incident-db', 'capture-%d' % R.randint(1, 99)])
    return render(ctx, note(ctx, 'Decoding the PostgreSQL handshake from the capture to see which auth method the pooler negotiates.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'tshark decode'))


def ngrep_head(src, dst, n):
    return 'T %s -> %s [AP] #%d' % (src, dst, n)


def p_ngrep_redis_auth_byline(ctx):
    cli = '%s:%d' % (ip_priv(), port())
    srv = '%s:6379' % ip_priv()
    out = ['interface: %s (%s/255.255.0.0)' % (pick(['eth0', 'any', 'ens5']), ip_priv()), 'filter: ( port 6379 ) and ((ip || ip6) || (vlan && (ip || ip6)))']
    n = R.randint(2, 30)
    pw = pw_gen(pick([24, 32, 40]), punct='-_.~')
    user = pick([None, 'worker', 'app', ctx.project])

    def pkt(src, dst, parts):
        nonlocal n
        out.append('')
        out.append(ngrep_head(src, dst, n))
        out.extend(p + '.' for p in parts)
        n += 1
    if user:
        pkt(cli, srv, ['*3', '$4', 'AUTH', '$%d' % len(user), user, '$%d' % len(pw), M(pw)])
    else:
        pkt(cli, srv, ['*2', '$4', 'AUTH', '$%d' % len(pw), M(pw)])
    pkt(srv, cli, ['+OK'])
    pkt(cli, srv, ['*3', '$6', 'CLIENT', '$7', 'SETNAME', '$%d' % len(ctx.project), ctx.project])
    pkt(srv, cli, ['+OK'])
    if ctx.long or chance(0.5):
        tok = gh('gho_') if chance(0.5) else slack_bot()
        key = 'oauth:%s:%d' % ('github' if tok.startswith('gho_') else 'slack', R.randint(1, 99999))
        pkt(cli, srv, ['*5', '$3', 'SET', '$%d' % len(key), key, '$%d' % len(tok), M(tok), '$2', 'EX', '$4', '3600'])
        pkt(srv, cli, ['+OK'])
    if ctx.long:
        for _ in range(R.randint(4, 7)):
            k = 'session:%s' % hx(32)
            pkt(cli, srv, ['*2', '$3', 'GET', '$%d' % len(k), k])
            v = '{"user_id":%d,"csrf":"%s","exp":%d}' % (R.randint(1, 99999), rs(B64U, 32), int(epoch(ctx.clock.tick(1, 60))))
            pkt(srv, cli, ['$%d' % len(v), v] if chance(0.7) else ['$-1'])
    cmd = 'sudo ngrep -d any -W byline -q port 6379%s' % (' | head -n 120' if ctx.long else '')
    return render(ctx, note(ctx, 'The app gets NOAUTH intermittently; sniffing the Redis traffic on the node.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'ngrep redis'))


def p_mitmdump_websocket_auth_frames(ctx):
    c = ctx.clock
    cli = '127.0.0.1:%d' % port()
    out = ['[%s] HTTP(S) proxy listening at *:8080.' % hms(c.t, 3)]
    k = R.randint(0, 2)
    if k == 0:
        ref = rs(LOWNUM, 20)
        host = '%s.supabase.co' % ref
        anon = jwt({'iss': 'supabase', 'ref': ref, 'role': 'anon', 'iat': int(epoch(c.t)) - 10 ** 7, 'exp': int(epoch(c.t)) + 3 * 10 ** 8}, header={'alg': 'HS256', 'typ': 'JWT'}, sig_len=43)
        user_jwt = jwt({'aud': 'authenticated', 'exp': int(epoch(c.t)) + 3600, 'iat': int(epoch(c.t)), 'iss': 'https://%s.supabase.co/auth/v1' % ref,
                        'sub': uuid4(), 'email': '%s@%s' % (pick(NAMES), ctx.domain), 'role': 'authenticated', 'session_id': uuid4()},
                       header={'alg': 'HS256', 'kid': rs(ALNUM, 16), 'typ': 'JWT'}, sig_len=43)
        path = '/realtime/v1/websocket?apikey=%s&vsn=1.0.0' % anon
        msgs = [('->', '{"topic":"realtime:public:orders","event":"phx_join","payload":{"config":{"broadcast":{"ack":false,"self":false},"presence":{"key":""},"postgres_changes":[{"event":"*","schema":"public","table":"orders"}]},"access_token":"%s"},"ref":"1","join_ref":"1"}' % M(user_jwt)),
                ('<-', '{"ref":"1","event":"phx_reply","payload":{"status":"ok","response":{"postgres_changes":[{"id":%d,"event":"*","filter":"","schema":"public","table":"orders"}]}},"topic":"realtime:public:orders"}' % R.randint(10 ** 6, 10 ** 8)),
                ('->', '{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"2"}')]
    elif k == 1:
        host = 'gateway.discord.gg'
        path = '/?v=10&encoding=json'
        bot = discord_bot()
        msgs = [('<-', '{"t":null,"s":null,"op":10,"d":{"heartbeat_interval":41250,"_trace":["[\\"gateway-prd-us-east1-d-%s\\",{\\"micros\\":0.0}]"]}}' % rs(LOWNUM, 4)),
                ('->', '{"op":2,"d":{"token":"%s","intents":33281,"properties":{"os":"linux","browser":"discord.js","device":"discord.js"}}}' % M(bot)),
                ('<-', '{"t":"READY","s":1,"op":0,"d":{"v":10,"session_id":"%s","resume_gateway_url":"wss://gateway-us-east1-d.discord.gg","user":{"id":"%d","username":"%s-bot","bot":true}}}' % (hx(32), R.randint(10 ** 17, 10 ** 18), ctx.project)),
                ('->', '{"op":1,"d":1}')]
    else:
        host = 'wss-primary.slack.com'
        tick = rs(ALNUM, 40)
        app_tok = fresh(lambda: 'xapp-1-A%s-%s-%s' % (rs(UP + DIG, 10), digits(13), hx(64)))
        path = '/link/?ticket=%s&app_id=%s' % (uuid4(), hx(64))
        msgs = [('<-', '{"type":"hello","num_connections":1,"debug_info":{"host":"applink-%s","build_number":%d,"approximate_connection_time":18060},"connection_info":{"app_id":"A%s"}}' % (rs(LOWNUM, 10), R.randint(10, 99), rs(UP + DIG, 10))),
                ('<-', '{"envelope_id":"%s","payload":{"token":"%s","team_id":"T%s","api_app_id":"A%s","event":{"type":"app_mention","text":"<@U%s> deploy status?","ts":"%d.%06d"}},"type":"events_api","accepts_response_payload":false,"retry_attempt":0}' % (uuid4(), rs(ALNUM, 24), rs(UP + DIG, 10), rs(UP + DIG, 10), rs(UP + DIG, 10), int(epoch(c.t)), R.randint(0, 999999))),
                ('->', '{"envelope_id":"%s"}' % uuid4())]
        out.append('[%s][%s] client connect' % (hms(c.tick(), 3), cli))
        out.append('%s: POST https://slack.com/api/apps.connections.open' % cli)
        out.append('    Authorization: Bearer %s' % M(app_tok))
        out.append('    Content-Type: application/x-www-form-urlencoded')
        out.append(' << 200 OK 112b')
    out.append('[%s][%s] client connect' % (hms(c.tick(), 3), cli))
    out.append('[%s][%s] server connect %s:443 (%s:443)' % (hms(c.tick(), 3), cli, host, ip_pub()))
    out.append('%s: GET https://%s%s' % (cli, host, path))
    out += ['    Host: %s' % host, '    Upgrade: websocket', '    Connection: Upgrade', '    Sec-WebSocket-Key: %s' % b64e(rbytes(16)),
            '    Sec-WebSocket-Version: 13', '    Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits',
            ' << 101 Switching Protocols 0b', '    Upgrade: websocket', '    Connection: Upgrade', '    Sec-WebSocket-Accept: %s' % b64e(rbytes(20))]
    reps = 2 if ctx.long else 1
    for r in range(reps):
        for d, m in msgs:
            out.append('%s: WebSocket text message %s %s' % (cli, d, host))
            out.append('    ' + m)
        if ctx.long:
            for _ in range(R.randint(5, 10)):
                out.append('%s: WebSocket text message %s %s' % (cli, pick(['->', '<-']), host))
                out.append('    ' + pick(['{"op":11}', '{"op":1,"d":%d}' % R.randint(1, 900), '{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"%d"}' % R.randint(3, 900),
                                          '{"type":"ping","id":%d}' % R.randint(1, 900)]))
    out.append('[%s][%s] client disconnect' % (hms(c.tick(), 3), cli))
    cmd = 'mitmdump -p 8080 --set flow_detail=2%s' % pick(['', ' -w /tmp/ws.flows', " '~websocket'"])
    return render(ctx, note(ctx, 'Running the client through mitmdump to see what it sends over the websocket.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'mitmdump websocket'))


def p_tshark_follow_tcp_stream_ascii(ctx):
    a, b = '%s:%d' % (ip_priv(), port()), '%s:%d' % (ip_priv(), pick([8080, 80, 8000, 3000]))
    stream = R.randint(0, 40)
    user = pick(['ops-bot', 'admin', 'svc-deploy', '%s@%s' % (pick(NAMES), ctx.domain)])
    pw = pw_any()
    sid = U(B64U, 43)
    path = pick(['/internal/login', '/admin/login', '/api/v1/auth/login'])
    form = 'username=%s&password=%s' % (quote(user, safe=''), M(quote(pw, safe='')))
    req = ['POST %s HTTP/1.1' % path, 'Host: %s' % b.replace(':', ':'), 'User-Agent: %s' % pick(['python-requests/2.31.0', 'curl/7.88.1', 'Go-http-client/1.1']),
           'Accept: */*', 'Content-Type: application/x-www-form-urlencoded', 'Content-Length: %d' % len(strip_marks(form)), '', form]
    resp = ['HTTP/1.1 %s' % pick(['200 OK', '302 Found']), 'Date: ' + http_date(ctx.clock.t), 'Content-Type: application/json',
            'Set-Cookie: sid=%s; Path=/; HttpOnly; SameSite=Lax' % M(sid), 'Set-Cookie: csrftoken=%s; Path=/; SameSite=Lax' % rs(ALNUM, 32),
            'X-Request-Id: %s' % uuid4(), 'Content-Length: %d' % R.randint(20, 200), '', '{"ok":true,"user":"%s","expires_in":%d}' % (user, pick([3600, 86400]))]
    out = ['', '=' * 67, 'Follow: tcp,ascii', 'Filter: tcp.stream eq %d' % stream, 'Node 0: %s' % a, 'Node 1: %s' % b]
    out.append(str(sum(len(strip_marks(l)) + 2 for l in req) - 2))
    out += req
    out.append('\t%d' % (sum(len(strip_marks(l)) + 2 for l in resp) - 2))
    out += resp
    if ctx.long:
        for _ in range(R.randint(2, 4)):
            sreq = ['GET %s HTTP/1.1' % pick(['/api/v1/me', '/admin/users?page=2', '/api/v1/jobs']), 'Host: %s' % b, 'Cookie: sid=%s; csrftoken=%s' % (M(sid), rs(ALNUM, 32)),
                    'Accept: application/json', '']
            out.append(str(sum(len(strip_marks(l)) + 2 for l in sreq)))
            out += sreq
            body = '{"items":[%s],"next":"%s"}' % (','.join('{"id":%d,"name":"%s"}' % (R.randint(1, 9999), pick(PEOPLE)) for _ in range(R.randint(1, 3))), b64u(rbytes(12)))
            sresp = ['HTTP/1.1 200 OK', 'Content-Type: application/json; charset=utf-8', 'ETag: W/"%s"' % hx(16), 'Content-Length: %d' % len(body.encode()), '', body]
            out.append('\t%d' % (sum(len(strip_marks(l)) + 2 for l in sresp) - 2))
            out += sresp
    out.append('=' * 67)
    f = '/tmp/%s.pcapng' % pick(['incident', 'auth-svc', 'login-%d' % R.randint(1, 99)])
    blocks = []
    if ctx.long:
        conv = ['================================================================================', 'TCP Conversations', 'Filter:<No Filter>',
                '                                               |       <-      | |       ->      | |     Total     |    Relative    |   Duration   |',
                '                                               | Frames  Bytes | | Frames  Bytes | | Frames  Bytes |      Start     |              |']
        for _ in range(R.randint(4, 7)):
            conv.append('%-22s <-> %-21s %6d %6d bytes  %6d %6d bytes  %6d %6d bytes  %12.9f   %10.4f' % (
                '%s:%d' % (ip_priv(), port()), '%s:%d' % (ip_priv(), pick([80, 8080, 443])), R.randint(3, 90), R.randint(300, 90000), R.randint(3, 90),
                R.randint(300, 90000), R.randint(6, 180), R.randint(600, 180000), R.uniform(0, 30), R.uniform(0, 9)))
        conv.append('================================================================================')
        blocks.append(step(ctx, 'tshark -r %s -q -z conv,tcp' % f, conv, 'tcp conversations'))
    blocks.append(step(ctx, 'tshark -r %s -q -z follow,tcp,ascii,%d' % (f, stream), out, 'follow tcp stream'))
    return render(ctx, note(ctx, 'The login traffic between the bot and auth-svc is plain HTTP inside the cluster; following the stream from the capture.') if chance(0.5) else [], *blocks)


def p_sysdig_echo_fds_payloads(ctx):
    proc = pick(['vault-agent', 'app', 'python3', 'node'])
    vh = '%s:8200' % ip_priv()
    me = ip_priv()
    role = uuid4()
    secret_id = uuid4()
    ctok = hvs()
    acc = rs(ALNUM, 24)
    body = '{"role_id":"%s","secret_id":"%s"}' % (role, M(secret_id))
    out = ['------ Write %dB to %s:%d->%s (%s)' % (len(strip_marks(body)) + 160, me, port(), vh, proc),
           'PUT /v1/auth/approle/login HTTP/1.1', 'Host: %s' % vh, 'User-Agent: Go-http-client/1.1', 'Content-Length: %d' % len(strip_marks(body)),
           'Content-Type: application/json', 'X-Vault-Request: true', 'Accept-Encoding: gzip', '', body]
    resp = '{"request_id":"%s","lease_id":"","renewable":false,"lease_duration":0,"data":null,"wrap_info":null,"warnings":null,"auth":{"client_token":"%s","accessor":"%s","policies":["default","%s"],"token_policies":["default","%s"],"metadata":{"role_name":"%s"},"lease_duration":3600,"renewable":true,"entity_id":"%s","token_type":"service","orphan":true,"mfa_requirement":null,"num_uses":0}}' % (
        uuid4(), M(ctok), acc, ctx.project, ctx.project, ctx.project, uuid4())
    out += ['------ Read %dB from %s:%d->%s (%s)' % (len(strip_marks(resp)) + 180, me, port(), vh, proc), 'HTTP/1.1 200 OK',
            'Cache-Control: no-store', 'Content-Type: application/json', 'Strict-Transport-Security: max-age=31536000; includeSubDomains',
            'Date: ' + http_date(ctx.clock.t), 'Content-Length: %d' % len(strip_marks(resp)), '', resp]
    if ctx.long or chance(0.5):
        path = 'secret/data/%s/%s' % (ctx.project, pick(['db', 'stripe', 'smtp']))
        val = pw_any() if 'db' in path or 'smtp' in path else sk_live()
        out += ['------ Write 212B to %s:%d->%s (%s)' % (me, port(), vh, proc), 'GET /v1/%s HTTP/1.1' % path, 'Host: %s' % vh,
                'User-Agent: Go-http-client/1.1', 'X-Vault-Request: true', 'X-Vault-Token: %s' % M(ctok), 'Accept-Encoding: gzip', '']
        rb = '{"request_id":"%s","lease_id":"","renewable":false,"lease_duration":0,"data":{"data":{"%s":"%s"},"metadata":{"created_time":"%s","custom_metadata":null,"deletion_time":"","destroyed":false,"version":%d}},"wrap_info":null,"warnings":null,"auth":null}' % (
            uuid4(), 'password' if 'db' in path or 'smtp' in path else 'secret_key', M(val), iso(ctx.clock.t, 6), R.randint(1, 30))
        out += ['------ Read %dB from %s:%d->%s (%s)' % (len(strip_marks(rb)) + 170, me, port(), vh, proc), 'HTTP/1.1 200 OK', 'Content-Type: application/json',
                'Date: ' + http_date(ctx.clock.t), 'Content-Length: %d' % len(strip_marks(rb)), '', rb]
    if ctx.long:
        for _ in range(R.randint(6, 12)):
            out += ['------ Write %dB to %s:%d->%s:8125 (%s)' % (R.randint(40, 90), me, port(), ip_priv(), proc),
                    '%s.%s:%d|%s|#env:prod' % (ctx.project.replace('-', '_'), pick(['vault.login.count', 'vault.read.latency', 'token.renew']), R.randint(1, 900), pick(['c', 'ms', 'g']))]
            out += ['------ Read %dB from %s:%d->%s:53 (%s)' % (R.randint(40, 120), me, port(), ip_priv(), proc), '....... vault %s .......' % ctx.project]
    cmd = 'sudo sysdig -A -c echo_fds proc.name=%s and fd.port=8200%s' % (proc, ' or fd.port=8125' if ctx.long else '')
    return render(ctx, note(ctx, 'Watching the agent talk to Vault with sysdig to see why the lease is not renewed.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'sysdig echo_fds'))


def p_bcc_sslsniff_plaintext(ctx):
    c = ctx.clock
    comm = pick(['python3', 'node', 'curl', 'ruby'])
    pid = R.randint(1000, 60000)
    k = R.randint(0, 2)
    if k == 0:
        host, path, hdr = 'api.openai.com', '/v1/chat/completions', 'Authorization: Bearer %s' % M(openai_key())
        body = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"%s"}],"max_tokens":256}' % pick(['Summarize ticket #%d' % R.randint(1000, 9999), '翻訳してください', '总结这个错误'])
    elif k == 1:
        host, path, hdr = 'api.anthropic.com', '/v1/messages', 'x-api-key: %s' % M(anthropic_key())
        body = '{"model":"claude-3-5-sonnet-20240620","max_tokens":1024,"messages":[{"role":"user","content":"%s"}]}' % pick(['Classify this log line', 'Draft the incident summary'])
    else:
        host, path, hdr = 'api.github.com', '/repos/%s/%s/dispatches' % (ctx.org, ctx.project), 'Authorization: token %s' % M(gh(pick(['ghp_', 'ghs_'])))
        body = '{"event_type":"deploy","client_payload":{"sha":"%s","env":"prod"}}' % gitsha()
    req = ['POST %s HTTP/1.1' % path, 'Host: %s' % host, 'User-Agent: %s' % pick(UA_PY + UA_NODE), 'Accept-Encoding: gzip, deflate', 'Accept: application/json',
           'Connection: keep-alive', hdr, 'Content-Type: application/json', 'Content-Length: %d' % len(body.encode()), '', body]
    out = ['FUNC         TIME(s)            COMM             PID     LEN    ']
    n = 2 if ctx.long else 1
    for i in range(n):
        out.append('WRITE/SEND   %-18.9f %-16s %-7d %d' % (R.uniform(0, 3) + i * 5, comm, pid, sum(len(strip_marks(l)) + 2 for l in req)))
        out.append('----- DATA -----')
        out += req
        out.append('----- END DATA -----')
        out.append('')
        rid = 'req_' + hx(24)
        resp = ['HTTP/1.1 %s' % pick(['401 Unauthorized', '200 OK', '429 Too Many Requests']), 'Date: ' + http_date(c.tick(0.2, 3)), 'Content-Type: application/json',
                'Transfer-Encoding: chunked', 'Connection: keep-alive', 'x-request-id: ' + rid, 'CF-RAY: ' + cf_ray(), 'Server: cloudflare']
        if ctx.long:
            resp += ['strict-transport-security: max-age=31536000; includeSubDomains; preload', 'x-content-type-options: nosniff',
                     'alt-svc: h3=":443"; ma=86400', 'openai-processing-ms: %d' % R.randint(20, 900), 'x-ratelimit-remaining-requests: %d' % R.randint(1, 9999)]
        resp += ['', '%x' % R.randint(100, 400), '{"error":{"message":"%s","type":"%s"}}' % (pick(['Incorrect API key provided.', 'Rate limit reached']), pick(['invalid_request_error', 'rate_limit']))]
        out.append('READ/RECV    %-18.9f %-16s %-7d %d' % (R.uniform(3, 4) + i * 5, comm, pid, R.randint(600, 1500)))
        out.append('----- DATA -----')
        out += resp
        out.append('----- END DATA%s -----' % pick(['', ' (TRUNCATED, %d bytes lost)' % R.randint(100, 4000)]))
        out.append('')
    cmd = 'sudo /usr/share/bcc/tools/sslsniff -p %d%s' % (pid, pick(['', ' --no-color']))
    return render(ctx, note(ctx, 'The client talks TLS directly; using sslsniff to read the plaintext at the OpenSSL boundary.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'sslsniff'))


def p_varnishlog_req_header_records(ctx):
    out = []
    n = R.randint(2, 3) if ctx.long else 1
    for i in range(n):
        vxid = R.randint(10 ** 4, 10 ** 7)
        tok = jwt_internal(ctx, 'shop', sub='user:%d' % R.randint(1, 99999)) if chance(0.5) else U(B64U, 40)
        sess = rails_cookie() if chance(0.5) else U(LOWNUM, 32)
        cname = pick(['_shop_session', 'sessionid', 'PHPSESSID', 'connect.sid'])
        ga = 'GA1.2.%d.%d' % (R.randint(10 ** 8, 10 ** 9), R.randint(10 ** 9, 2 * 10 ** 9))
        url = pick(['/api/v2/orders?page=%d' % R.randint(1, 9), '/account', '/api/v2/cart', '/checkout'])
        t = epoch(ctx.clock.tick(0.1, 5))
        recs = [('Begin', 'req %d rxreq' % (vxid - 1)), ('Timestamp', 'Start: %.6f 0.000000 0.000000' % t),
                ('Timestamp', 'Req: %.6f 0.000000 0.000000' % t), ('VCL_use', 'boot'), ('ReqStart', '%s %d a0' % (ip_priv(), port())),
                ('ReqMethod', 'GET'), ('ReqURL', url), ('ReqProtocol', 'HTTP/1.1'), ('ReqHeader', 'Host: shop.%s' % ctx.domain),
                ('ReqHeader', 'Authorization: Bearer %s' % M(tok)), ('ReqHeader', 'Cookie: %s=%s; _ga=%s; cart=%d' % (cname, M(sess), ga, R.randint(1, 9999))),
                ('ReqHeader', 'X-Forwarded-For: %s' % ip_pub()), ('ReqHeader', 'X-Request-Id: %s' % uuid4()), ('VCL_call', 'RECV'),
                ('VCL_return', 'pass'), ('VCL_call', 'HASH'), ('VCL_return', 'lookup'), ('VCL_call', 'PASS'), ('VCL_return', 'fetch'),
                ('Link', 'bereq %d pass' % (vxid + 1)), ('Timestamp', 'Fetch: %.6f %.6f %.6f' % (t + 0.03, 0.03, 0.03)),
                ('RespProtocol', 'HTTP/1.1'), ('RespStatus', str(pick([401, 403, 200]))), ('RespReason', 'Unauthorized'),
                ('RespHeader', 'Content-Type: application/json'), ('RespHeader', 'X-Varnish: %d' % vxid), ('RespHeader', 'Age: 0'),
                ('RespHeader', 'Via: 1.1 %s (Varnish/7.4)' % ctx.host), ('VCL_call', 'DELIVER'), ('VCL_return', 'deliver'),
                ('Timestamp', 'Process: %.6f %.6f 0.000011' % (t + 0.03, 0.03)), ('ReqAcct', '%d 0 %d %d %d %d' % (R.randint(300, 900), R.randint(300, 900), R.randint(200, 400), R.randint(20, 90), R.randint(200, 500))),
                ('End', '')]
        if chance(0.6):
            idx = [j for j, r in enumerate(recs) if r[0] == 'VCL_call' and r[1] == 'RECV'][0]
            ck = [r for r in recs if r[1].startswith('Cookie:')][0][1]
            recs.insert(idx + 1, ('ReqUnset', ck))
            recs.insert(idx + 2, ('ReqHeader', 'Cookie: %s=%s' % (cname, M(sess))))
        if not ctx.long:
            recs = [r for r in recs if r[0] in ('Begin', 'ReqMethod', 'ReqURL', 'ReqHeader', 'ReqUnset', 'RespStatus', 'End')]
        out.append('*   << Request  >> %d' % vxid)
        out += ['-   %-14s %s' % r for r in recs]
        out.append('')
    cmd = "sudo varnishlog -g request -q 'RespStatus >= 400'%s" % ('' if ctx.long else " -i ReqMethod,ReqURL,ReqHeader,ReqUnset,RespStatus")
    return render(ctx, note(ctx, 'Looking at the requests Varnish passes to the backend for the 401s.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'varnishlog'))


# ---------------------------------------------------------------------------
# P: structured logs
# ---------------------------------------------------------------------------
def jl(d):
    return json.dumps(d, separators=(',', ':'), ensure_ascii=False)


def p_zap_json_startup_config_env(ctx):
    c = ctx.clock
    db = ctx.project.replace('-', '_')
    pw = pw_any(safe=True)
    sk, wh = sk_live(), whsec()
    out = []

    def Z(level, caller, msg, **kw):
        d = {'level': level, 'ts': round(epoch(c.tick(0.0005, 0.4)), 6), 'caller': caller, 'msg': msg}
        d.update(kw)
        out.append(jl(d))
    Z('info', 'cmd/main.go:48', 'starting', version='1.%d.%d' % (R.randint(0, 30), R.randint(0, 9)), commit=gitsha(), go='go1.22.3')
    cfg = {'http': {'addr': ':8080', 'readTimeout': '15s'}, 'db': {'dsn': 'postgres://%s:%s@%s:5432/%s?sslmode=require' % (db, M(pw), pick(['db.internal', 'pg-primary']), db), 'maxConns': R.randint(5, 40)},
           'stripe': {'secretKey': M(sk), 'webhookSecret': M(wh), 'publishableKey': 'pk_live_51' + rs(ALNUM, 97)},
           'redis': {'addr': 'redis-master:6379', 'db': 0}, 'otel': {'endpoint': 'otel-collector:4317', 'sampleRatio': 0.1}}
    env = {'HOSTNAME': '%s-%s-%s' % (ctx.project, hx(10)[:9], rs(LOWNUM, 5)), 'GOMAXPROCS': str(R.randint(1, 8)), 'GOMEMLIMIT': '%dMiB' % pick([256, 512, 900]),
           'KUBERNETES_SERVICE_HOST': '10.96.0.1', 'POD_IP': ip_priv()}
    if chance(0.5):
        env['SLACK_WEBHOOK_URL'] = 'https://hooks.slack.com/services/T%s/B%s/%s' % (rs(UP + DIG, 8), rs(UP + DIG, 10), M(rs(ALNUM, 24)))
    Z('debug', 'config/load.go:77', 'resolved config', config=cfg, env=env)
    Z('info', 'cmd/main.go:71', 'listening', addr=':8080')
    n = R.randint(40, 80) if ctx.long else R.randint(3, 8)
    for _ in range(n):
        st = pick([200, 200, 200, 201, 204, 400, 404, 500])
        if chance(0.15):
            Z('info', 'jobs/worker.go:%d' % R.randint(40, 90), human_msg(), job_id=uuid4())
            continue
        Z('info' if st < 500 else 'error', 'http/middleware.go:%d' % R.randint(40, 90), 'request', method=pick(['GET', 'POST']), path=rpath(), status=st,
          latency='%.3fms' % R.uniform(0.3, 900), trace_id=trace_id(), span_id=span_id(), request_id=ulid())
    if ctx.long:
        Z('warn', 'stripe/webhook.go:54', 'signature verification failed', header='t=%d,v1=%s' % (int(epoch(c.t)), hx(64)), error='no signatures found matching the expected signature for payload')
    cmd = 'kubectl logs deploy/%s -c app --since=%dm | head -n %d' % (ctx.project, R.randint(5, 60), 150 if ctx.long else 20)
    return render(ctx, note(ctx, 'Reading the startup logs of the new pod; the service logs its resolved config at debug level.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'pod logs'))


def p_logcli_query_leaked_lines(ctx):
    c = ctx.clock
    app = ctx.project
    q = '{namespace="prod", app="%s"} |= "uthorization"' % app
    out = ['%s http://loki-gateway.monitoring:80/loki/api/v1/query_range?direction=BACKWARD&end=%d&limit=%d&query=%s&start=%d' % (
        slash_ts(c.t), int(epoch(c.t) * 1e9), 100 if ctx.long else 20, quote(q, safe=''), int((epoch(c.t) - 7200) * 1e9)),
        '%s Common labels: {app="%s", namespace="prod"}' % (slash_ts(c.t), app)]
    tok = pick([jwt_internal(ctx, app), sk_live('rk_live_'), U(B64U, 40)])
    tok2 = hubspot_pat() if chance(0.5) else shpat()
    n = R.randint(40, 70) if ctx.long else R.randint(5, 9)
    lines = []
    for i in range(n):
        t = c.tick(1, 90)
        pod = '%s-%s-%s' % (app, hx(10)[:9], rs(LOWNUM, 5))
        k = R.randint(0, 5)
        if k == 0:
            msg = 'WARN upstream call failed status=401 headers=map[Authorization:[Bearer %s] X-Request-Id:[%s]]' % (M(tok), uuid4())
        elif k == 1:
            msg = 'level=info msg="outbound" url=https://api.hubapi.com/crm/v3/objects authorization="Bearer %s" status=200' % M(tok2) if tok2.startswith('pat') else 'level=info msg="outbound" url=https://%s.myshopify.com/admin/api/2024-04/orders.json x_shopify_access_token=%s status=200' % (ctx.org, M(tok2))
        elif k == 2:
            msg = 'level=info msg="inbound" method=GET path=%s authorization=[REDACTED] status=200' % rpath()
        elif k == 3:
            msg = '{"level":"info","msg":"request","headers":{"authorization":"Bearer ***","x-request-id":"%s"},"status":%d}' % (uuid4(), pick([200, 204, 401]))
        elif k == 4:
            msg = 'level=debug msg="missing Authorization header" path=%s remote=%s' % (rpath(), ip_pub())
        else:
            msg = 'level=warn msg="invalid Authorization scheme" scheme=Basic path=%s' % rpath()
        lines.append('%s {container="app", pod="%s"} %s' % (iso(t, 0), pod, msg))
    if not any(M(tok) in l for l in lines):
        lines[0] = lines[0].split('} ')[0] + '} WARN upstream call failed status=401 headers=map[Authorization:[Bearer %s] X-Request-Id:[%s]]' % (M(tok), uuid4())
    lines.reverse()
    out += lines
    cmd = "logcli query --since=2h --limit=%d '%s'" % (100 if ctx.long else 20, q)
    return render(ctx, note(ctx, 'Searching Loki for log lines that carry an Authorization header to scope the leak.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'loki query'))


def otel_attr(k, v):
    if isinstance(v, list):
        return '     -> %s: Slice(%s)' % (k, json.dumps(v, ensure_ascii=False))
    if isinstance(v, int):
        return '     -> %s: Int(%d)' % (k, v)
    return '     -> %s: Str(%s)' % (k, v)


def p_otel_span_attributes_leaked_headers(ctx):
    c = ctx.clock
    out = []
    svc = ctx.project
    lang = pick(['python', 'nodejs', 'java'])
    tid = trace_id()
    spans = []
    sid_ac = 'AC' + hx(32)
    basic = b64e(('%s:%s' % (sid_ac, hx(32))).encode())
    spans.append(('POST', 'Client', 'opentelemetry.instrumentation.requests', [
        ('http.method', 'POST'), ('http.url', 'https://api.twilio.com/2010-04-01/Accounts/%s/Messages.json' % sid_ac),
        ('http.request.header.authorization', ['Basic ' + M(basic)]), ('http.status_code', pick([201, 401])), ('net.peer.name', 'api.twilio.com')]))
    pw = pw_any()
    user = pick(['reporting', 'grafana_ro', 'etl'])
    spans.append(('ALTER', 'Client', 'opentelemetry.instrumentation.psycopg2', [
        ('db.system', 'postgresql'), ('db.name', ctx.project.replace('-', '_')), ('db.user', 'postgres'),
        ('db.statement', "ALTER USER %s WITH PASSWORD '%s'" % (user, M(pw))), ('net.peer.name', 'db.internal'), ('net.peer.port', 5432)]))
    if ctx.long:
        cookie = U(LOWNUM, 32)
        spans.append(('GET /account', 'Server', 'opentelemetry.instrumentation.django', [
            ('http.method', 'GET'), ('http.route', 'account/'), ('http.target', '/account?tab=billing'),
            ('http.request.header.cookie', ['sessionid=%s; csrftoken=%s' % (M(cookie), rs(ALNUM, 32))]),
            ('http.request.header.x_request_id', [uuid4()]), ('http.status_code', 200), ('http.user_agent', 'Mozilla/5.0 (X11; Linux x86_64)')]))
    if ctx.long:
        for _ in range(R.randint(1, 2)):
            spans.append(('GET', 'Client', 'opentelemetry.instrumentation.redis', [('db.system', 'redis'), ('db.statement', 'GET checkout:lock:%s' % uuid4()),
                                                                                   ('net.peer.name', 'redis-master'), ('net.peer.port', 6379), ('db.redis.database_index', 0)]))
    out.append('%s\tinfo\tTracesExporter\t{"kind": "exporter", "data_type": "traces", "name": "debug", "resource spans": 1, "spans": %d}' % (iso(c.t), len(spans)))
    out.append('%s\tinfo\tResourceSpans #0' % iso(c.t))
    out += ['Resource SchemaURL: https://opentelemetry.io/schemas/1.24.0', 'Resource attributes:', otel_attr('service.name', svc)]
    if ctx.long:
        out += [otel_attr('telemetry.sdk.language', lang), otel_attr('telemetry.sdk.name', 'opentelemetry'), otel_attr('telemetry.sdk.version', '1.24.0'),
                otel_attr('k8s.pod.name', '%s-%s-%s' % (svc, hx(10)[:9], rs(LOWNUM, 5)))]
    parent = span_id()
    for i, (name, kind, scope, attrs) in enumerate(spans):
        st = c.tick(0.001, 0.3)
        en = st + timedelta(microseconds=R.randint(300, 900000))
        out += ['ScopeSpans #%d' % i, 'ScopeSpans SchemaURL: ', 'InstrumentationScope %s 0.45b0' % scope, 'Span #0',
                '    Trace ID       : %s' % tid, '    Parent ID      : %s' % parent, '    ID             : %s' % span_id(),
                '    Name           : %s' % name, '    Kind           : %s' % kind,
                '    Start time     : %s.%06d%03d +0000 UTC' % (sp(st, 0), st.microsecond, R.randint(0, 999)),
                '    End time       : %s.%06d%03d +0000 UTC' % (sp(en, 0), en.microsecond, R.randint(0, 999)),
                '    Status code    : %s' % pick(['Unset', 'Error', 'Unset']), '    Status message : ', 'Attributes:']
        out += [otel_attr(k, v) for k, v in attrs]
    cmd = pick(['kubectl logs -n observability deploy/otel-collector --since=5m | grep -v "^$" | head -n 150',
                'docker compose logs --no-log-prefix otel-collector | tail -n 120'])
    return render(ctx, note(ctx, 'Turned the collector debug exporter to detailed to check which attributes the instrumentation records.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'collector debug exporter'))


def p_datadog_logs_search_api_curl(ctx):
    c = ctx.clock
    literal = chance(0.5)
    ak, apk = hx(32), hx(40)
    svc = ctx.project
    q = 'service:%s @http.status_code:401' % svc
    leak_tok = pick([shpat(), sendgrid(), gh('ghs_'), hubspot_pat()])
    hdr_name = {'shpat': 'x-shopify-access-token', 'SG.': 'authorization', 'ghs_': 'authorization', 'pat-n': 'authorization'}
    hn = [v for k, v in hdr_name.items() if leak_tok.startswith(k)][0]
    hv = M(leak_tok) if hn != 'authorization' else 'Bearer ' + M(leak_tok)
    data = []
    n = R.randint(2, 3) if ctx.long else 1
    for i in range(n):
        t = c.tick(5, 300)
        attrs = {'http': {'status_code': 401, 'method': 'POST', 'url': 'https://%s%s' % (pick(['api.sendgrid.com', '%s.myshopify.com' % ctx.org, 'api.github.com']), rpath()),
                          'headers': {hn: hv, 'x-request-id': uuid4()} if i == 0 or chance(0.5) else {'x-request-id': uuid4()}},
                 'dd': {'trace_id': dd_trace(), 'span_id': dd_trace(), 'service': svc, 'env': 'prod'}, 'logger': {'name': '%s.http' % svc.replace('-', '_')}}
        data.append({'id': 'AQAAAY' + rs(B64U, 40), 'type': 'log', 'attributes': {'timestamp': iso(t), 'service': svc, 'host': 'i-0%s' % hx(16),
                                                                                  'status': 'warn', 'message': 'upstream returned 401', 'attributes': attrs}})
    resp = {'data': data, 'meta': {'page': {'after': rs(B64U, 60)}, 'elapsed': R.randint(40, 900), 'request_id': 'pddv1ChZ' + rs(B64U, 30), 'status': 'done'}}
    out = jq_dump(resp) if ctx.long else jq_dump(data[0]['attributes'])
    if literal:
        cmd = "curl -sS -X POST https://api.datadoghq.com/api/v2/logs/events/search -H 'DD-API-KEY: %s' -H 'DD-APPLICATION-KEY: %s' -H 'Content-Type: application/json' -d '{\"filter\":{\"query\":\"%s\",\"from\":\"now-1h\"},\"page\":{\"limit\":%d}}' | jq %s" % (
            M(ak), M(apk), q, n, "'.'" if ctx.long else "'.data[0].attributes'")
    else:
        cmd = "curl -sS -X POST https://api.datadoghq.com/api/v2/logs/events/search -H \"DD-API-KEY: $DD_API_KEY\" -H \"DD-APPLICATION-KEY: $DD_APP_KEY\" -H 'Content-Type: application/json' -d '{\"filter\":{\"query\":\"%s\",\"from\":\"now-1h\"},\"page\":{\"limit\":%d}}' | jq %s" % (
            q, n, "'.'" if ctx.long else "'.data[0].attributes'")
    return render(ctx, note(ctx, 'Pulling the 401 log events from Datadog to see which upstream rejected the calls.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'datadog log search'))


def p_nginx_error_log_query_tokens(ctx):
    c = ctx.clock
    host = 'api.' + ctx.domain
    up = '%s:%d' % (ip_priv(), pick([8080, 8000, 3000]))
    toks = [pick([U(B64U, 43), jwt_internal(ctx, 'export'), 'xoxp-' + slack_user()[5:]]) for _ in range(2)]
    out = []
    n = R.randint(42, 80) if ctx.long else R.randint(3, 7)
    for i in range(n):
        t = c.tick(0.5, 40)
        pid = R.randint(20, 40)
        conn = R.randint(10 ** 4, 10 ** 7)
        k = R.randint(0, 6)
        if k == 0 or i == 0:
            tok = pick(toks)
            path = '/v1/export?access_token=%s&format=%s' % (M(tok), pick(['csv', 'json']))
            out.append('%s [error] %d#%d: *%d upstream timed out (110: Connection timed out) while reading response header from upstream, client: %s, server: %s, request: "GET %s HTTP/1.1", upstream: "http://%s%s", host: "%s"' % (
                slash_ts(t), pid, pid, conn, ip_pub(), host, path, up, path, host))
        elif k == 2:
            path = '/oauth/callback?code=%s&state=%s' % (rs(ALNUM, 40), rs(B64U, 32))
            out.append('%s [error] %d#%d: *%d connect() failed (111: Connection refused) while connecting to upstream, client: %s, server: %s, request: "GET %s HTTP/1.1", upstream: "http://%s/oauth/callback", host: "%s"' % (
                slash_ts(t), pid, pid, conn, ip_pub(), host, path, up, host))
        elif k in (3, 5):
            out.append('%s [warn] %d#%d: *%d an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/%d/%02d/%010d while reading upstream, client: %s, server: %s, request: "GET %s HTTP/1.1", upstream: "http://%s%s", host: "%s"' % (
                slash_ts(t), pid, pid, conn, R.randint(0, 9), R.randint(0, 99), R.randint(10 ** 8, 10 ** 9), ip_pub(), host, rpath(), up, rpath(), host))
        else:
            out.append('%s [error] %d#%d: *%d limiting requests, excess: %d.%03d by zone "api", client: %s, server: %s, request: "POST %s HTTP/2.0", host: "%s"' % (
                slash_ts(t), pid, pid, conn, R.randint(1, 30), R.randint(0, 999), ip_pub(), host, rpath(), host))
    cmd = 'sudo tail -n %d /var/log/nginx/error.log' % (150 if ctx.long else 10)
    return render(ctx, note(ctx, 'Checking the nginx error log for the export timeouts.') if chance(0.5) else [],
                  file_step(ctx, '/var/log/nginx/error.log', cmd, out, 'nginx error log', R.randint(100, 40000)))


# ---------------------------------------------------------------------------
# P: crash dumps, heaps and databases
# ---------------------------------------------------------------------------
CORE_FMT = ['Authorization: Bearer %s', 'postgres://%s:%s@%s:%d/%s?sslmode=%s', 'password authentication failed for user "%s"',
            'api_key=%s&ts=%ld', 'X-Api-Key: %.*s', 'redis_auth_password', 'set_password_hash', 'token_bucket_refill', 'SSL_CTX_use_PrivateKey_file',
            'PEM_read_bio_PrivateKey', 'ERR_load_crypto_strings', 'invalid api key format', 'Bearer token missing', 'GLIBC_2.34', 'GLIBCXX_3.4.29',
            '_ZN5tokio7runtime4task3raw7RawTask4poll17h%s' , 'secret_manager_client_new', 'OPENSSL_3.0.0']


def p_strings_core_dump_grep(ctx):
    core = 'core.%s.%d.%s.%d' % (ctx.project, R.randint(1000, 60000), hx(32), int(epoch(ctx.clock.t)))
    pw = pw_any(safe=True)
    db = ctx.project.replace('-', '_')
    tok = pick([jwt_internal(ctx, 'api'), sk_live(), gh('ghs_'), slack_bot()])
    ak, sk = akid(), aws_sk()
    hits = ['postgres://%s:%s@%s:5432/%s?sslmode=require' % (db, M(pw), pick(['db.internal', '10.0.4.12']), db),
            'Authorization: Bearer %s' % M(tok), 'aws_access_key_id = %s' % ak, 'aws_secret_access_key = %s' % M(sk)]
    noise = []
    for f in CORE_FMT:
        noise.append(f % hx(16) if '%s' in f and f.startswith('_ZN') else f)
    noise += ['https://sts.amazonaws.com', 'https://api.%s/v1/' % ctx.domain, '/etc/ssl/certs/ca-certificates.crt', 'sha256:%s' % hx(64),
              'x-amz-content-sha256', 'X-Amz-Security-Token', 'AWS4-HMAC-SHA256', 'password_encryption = scram-sha-256', 'Bearer ',
              'aws_session_token', 'aws_access_key_id', 'aws_secret_access_key', 'password_file', 'passwordless', 'token_endpoint_auth_method',
              'refresh_token_expires_in', 'invalid_token', 'token expired', 'password too short', 'postgres://%s@%s/%s' % ('%s', '%s', '%s'),
              'postgres://localhost/postgres', 'Bearer realm="api"', 'WWW-Authenticate: Bearer error="invalid_token"', 'BEGIN TRANSACTION',
              'BEGIN ISOLATION LEVEL SERIALIZABLE', 'password_hash_argon2id', 'aws_sdk_retry_mode', 'tokenizer_state', 'token_bucket_capacity',
              'no password supplied', 'reset_password_url', 'csrf_token_missing', 'access_token_ttl=%d' % pick([300, 900, 3600])]
    sel = hits + R.sample(noise, R.randint(12, len(noise)) if ctx.long else 6)
    sel = [x for x in sel if re.search(r'postgres://|Bearer |aws_|BEGIN|password|token', strip_marks(x))]
    R.shuffle(sel)
    pre = ctx.pre()
    blocks = []
    if chance(0.5):
        blocks.append(step(ctx, 'aws s3 cp --quiet s3://%s-crash-dumps/%s/%s.zst /tmp/ && zstd -d -q --rm /tmp/%s.zst' % (ctx.org, ctx.project, core, core), [], 'fetch the core'))
    if ctx.long:
        info = ['           PID: %d (%s)' % (R.randint(1000, 60000), ctx.project), '           UID: 1000 (app)', '           GID: 1000 (app)',
                '        Signal: 11 (SEGV)', '     Timestamp: %s %s UTC' % (DAYS[ctx.clock.t.weekday()], sp(ctx.clock.t, 0)),
                '  Command Line: /usr/local/bin/%s serve --config /etc/%s/config.yaml' % (ctx.project, ctx.project),
                '    Executable: /usr/local/bin/%s' % ctx.project, '       Storage: /var/lib/systemd/coredump/%s.zst (present)' % core,
                '  Size on Disk: %.1fM' % R.uniform(5, 90), '       Message: Process %d (%s) of user 1000 dumped core.' % (R.randint(1000, 60000), ctx.project)]
        blocks.append(step(ctx, 'coredumpctl info %s | head -n 12' % ctx.project, info, 'core info'))
    out = sel
    grep = "grep -E 'postgres://|Bearer |aws_|BEGIN|password|token'"
    if ctx.long:
        mods = ['0x%s+0x%x %s@0x%s %s - %s' % (('55' if i == 0 else '7f') + hx(10), R.randint(0x1000, 0x900000), hx(40), ('55' if i == 0 else '7f') + hx(10),
                                               '/usr/local/bin/%s' % ctx.project if i == 0 else pick(['/lib/x86_64-linux-gnu/libc.so.6', '/lib/x86_64-linux-gnu/libssl.so.3', '/lib/x86_64-linux-gnu/libcrypto.so.3', '/lib/x86_64-linux-gnu/libpq.so.5', '/lib64/ld-linux-x86-64.so.2', 'linux-vdso.so.1']),
                                               '/usr/local/bin/%s' % ctx.project if i == 0 else '-') for i in range(R.randint(8, 14))]
        blocks.append(step(ctx, 'eu-unstrip -n --core /tmp/%s' % core, mods, 'modules in the core'))
    blocks.append(step(ctx, 'strings -n 8 /tmp/%s | %s | sort -u | head -n 60' % (core, grep), sorted(out, key=lambda s: strip_marks(s)), 'strings over the core'))
    if chance(0.6) or ctx.long:
        k = ec_key() if chance(0.5) else rsa_key(2048)
        body = k.perline() if pre else k.contig()
        blocks.append(step(ctx, "strings -n 8 /tmp/%s | grep -A %d -- '-----BEGIN'" % (core, len(k.lines) + 1), body, 'key material in the core'))
    return render(ctx, note(ctx, 'The core dump was uploaded to a shared bucket; checking what credentials it contains before we rotate.') if chance(0.5) else [], *blocks)


def p_hs_err_pid_jvm_args(ctx):
    pid = R.randint(1, 60000)
    pw = pw_any(safe=True)
    jaas = pw_any()
    ddk = hx(32)
    args = ['-Xmx%dg' % R.randint(1, 8), '-XX:+HeapDumpOnOutOfMemoryError', '-XX:ErrorFile=/logs/hs_err_pid%p.log',
            '-Dspring.datasource.password=%s' % M(pw),
            '-Dspring.kafka.properties.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="%s" password="%s";' % (ctx.project, M(jaas))]
    tool = '-Ddd.api.key=%s -Ddd.env=prod' % M(ddk)
    c = ctx.clock
    out = ['#', '# A fatal error has been detected by the Java Runtime Environment:', '#',
           '#  SIGSEGV (0xb) at pc=0x00007f%s, pid=%d, tid=%d' % (hx(10), pid, pid + R.randint(1, 90)), '#',
           '# JRE version: OpenJDK Runtime Environment Temurin-21.0.3+9 (21.0.3+9) (build 21.0.3+9-LTS)',
           '# Java VM: OpenJDK 64-Bit Server VM Temurin-21.0.3+9 (21.0.3+9-LTS, mixed mode, sharing, tiered, compressed oops, compressed class ptrs, g1 gc, linux-amd64)',
           '# Problematic frame:', '# C  [libzstd-jni-1.5.5-11%s.so+0x%s]  ZSTD_decompressStream+0x%x' % (hx(16), hx(5), R.randint(16, 900)), '#',
           '# Core dump will be written. Default location: Core dumps may be processed with "/usr/share/apport/apport -p%p -s%s -c%c -d%d -P%P -u%u -g%g -- %E" (or dumping to /app/core.' + str(pid) + ')',
           '#', '# If you would like to submit a bug report, please visit:', '#   https://github.com/adoptium/adoptium-support/issues', '#', '',
           '---------------  S U M M A R Y ------------', '',
           'Command Line: %s com.%s.%s.Application' % (' '.join(args), ctx.org, ctx.project.replace('-', '')), '',
           'Host: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz, %d cores, %dG, Ubuntu 22.04.4 LTS' % (pick([2, 4, 8]), pick([7, 15, 31])),
           'Time: %s %s %2d %s %d UTC elapsed time: %.6f seconds (0d %dh %dm %ds)' % (DAYS[c.t.weekday()], MONTHS[c.t.month - 1], c.t.day, hms(c.t), c.t.year, R.uniform(100, 90000), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59)), '']
    if ctx.long:
        out += ['---------------  T H R E A D  ---------------', '',
                'Current thread (0x00007f%s):  JavaThread "kafka-consumer-%d" [_thread_in_native, id=%d, stack(0x00007f%s,0x00007f%s) (1024K)]' % (hx(10), R.randint(1, 9), R.randint(100, 900), hx(10), hx(10)), '',
                'Stack: [0x00007f%s,0x00007f%s],  sp=0x00007f%s,  free space=%dk' % (hx(10), hx(10), hx(10), R.randint(100, 1000)),
                'Native frames: (J=compiled Java code, j=interpreted, Vv=VM code, C=native code)',
                'C  [libzstd-jni-1.5.5-11%s.so+0x%s]  ZSTD_decompressStream+0x%x' % (hx(16), hx(5), R.randint(16, 900)),
                'j  com.github.luben.zstd.ZstdInputStreamNoFinalizer.readInternal([BII)I+%d' % R.randint(10, 300),
                'j  org.apache.kafka.common.record.DefaultRecordBatch$1.readNext(JJILjava/lang/Long;)Lorg/apache/kafka/common/record/Record;+%d' % R.randint(10, 90), '',
                'siginfo: si_signo: 11 (SIGSEGV), si_code: 1 (SEGV_MAPERR), si_addr: 0x%016x' % R.randint(0, 2 ** 40), '',
                'Registers:']
        regs = ['RAX', 'RBX', 'RCX', 'RDX', 'RSP', 'RBP', 'RSI', 'RDI', 'R8 ', 'R9 ', 'R10', 'R11', 'R12', 'R13', 'R14', 'R15']
        for i in range(0, 16, 4):
            out.append(', '.join('%s=0x%016x' % (r, R.randint(0, 2 ** 47)) for r in regs[i:i + 4]))
        out += ['RIP=0x00007f%s, EFLAGS=0x0000000000010246, CSGSFS=0x002b000000000033, ERR=0x0000000000000004' % hx(10), '']
    out += ['---------------  P R O C E S S  ---------------', '', 'VM Arguments:', 'jvm_args: %s' % ' '.join(args),
            'java_command: com.%s.%s.Application' % (ctx.org, ctx.project.replace('-', '')), 'java_class_path (initial): /app/lib/*',
            'Launcher Type: SUN_STANDARD', '', '[Global flags]', '     intx CICompilerCount                          = %d                                         {product} {ergonomic}' % pick([2, 3, 4]),
            '   size_t MaxHeapSize                              = %d                                {product} {command line}' % (R.randint(1, 8) * 1073741824), '',
            'Environment Variables:', 'JAVA_HOME=/opt/java/openjdk', 'JAVA_TOOL_OPTIONS=%s' % tool,
            'PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'SHELL=/bin/bash', 'LANG=C.UTF-8', '']
    if ctx.long:
        out += ['Signal Handlers:', '   SIGSEGV: crash_handler in libjvm.so, mask=11100110000111110111111111111111, flags=SA_RESTART|SA_SIGINFO, unblocked',
                '    SIGBUS: crash_handler in libjvm.so, mask=11100110000111110111111111111111, flags=SA_RESTART|SA_SIGINFO, unblocked', '',
                '---------------  S Y S T E M  ---------------', '', 'OS:', 'DISTRIB_ID=Ubuntu', 'DISTRIB_RELEASE=22.04',
                'uname: Linux 6.5.0-1018-aws #18~22.04.1-Ubuntu SMP Fri Apr  5 17:44:33 UTC 2024 x86_64', 'OS uptime: %d days %d:%02d hours' % (R.randint(0, 90), R.randint(0, 23), R.randint(0, 59))]
    f = '/logs/hs_err_pid%d.log' % pid
    pre = ['Picked up JAVA_TOOL_OPTIONS: %s' % tool]
    if ctx.long:
        return render(ctx, note(ctx, 'The consumer died with SIGSEGV; reading the JVM fatal error log.') if chance(0.5) else [],
                      step(ctx, 'kubectl logs %s-consumer-0 --previous | head -n 3' % ctx.project, pre + ['#', '# A fatal error has been detected by the Java Runtime Environment:'], 'previous logs'),
                      file_step(ctx, f, 'cat %s' % f, out, 'fatal error log'))
    out2 = [l for l in out if l.startswith(('Command Line', 'jvm_args', 'JAVA_TOOL_OPTIONS', '#  SIGSEGV', 'java_command'))]
    return render(ctx, step(ctx, "grep -E 'SIGSEGV|Command Line|jvm_args|java_command|JAVA_TOOL_OPTIONS' %s" % f, out2, 'grep fatal error log'))


def p_node_diagnostic_report_envvars(ctx):
    c = ctx.clock
    pairs = base_env(ctx, chance(0.5), False) + secret_env(ctx, R.randint(3, 5) if ctx.long else 2, pem_ok=True)
    pairs += [('npm_config_user_agent', 'npm/10.5.0 node/v20.12.2 linux x64 workspaces/false'), ('NODE_OPTIONS', '--max-old-space-size=%d --report-on-fatalerror --report-directory=/reports' % pick([512, 1024, 2048])),
              ('npm_lifecycle_event', 'start'), ('NODE_ENV', 'production')]
    R.shuffle(pairs)
    env = ['{']
    for i, (k, v) in enumerate(pairs):
        vv = v.escaped('\\n') if isinstance(v, Pem) else v
        env.append('  "%s": "%s"%s' % (k, vv, ',' if i < len(pairs) - 1 else ''))
    env.append('}')
    fn = 'report.%04d%02d%02d.%02d%02d%02d.%d.0.001.json' % (c.t.year, c.t.month, c.t.day, c.t.hour, c.t.minute, c.t.second, R.randint(1, 400))
    header = ['{', '  "reportVersion": 3,', '  "event": "Allocation failed - JavaScript heap out of memory",', '  "trigger": "OOMError",',
              '  "filename": "%s",' % fn, '  "dumpEventTime": "%s",' % iso(c.t, 3, ''), '  "processId": %d,' % R.randint(1, 400),
              '  "nodejsVersion": "v20.12.2",', '  "commandLine": [', '    "/usr/local/bin/node",', '    "--max-old-space-size=1024",', '    "dist/main.js"', '  ]', '}']
    blocks = [step(ctx, 'ls -la /reports/ && jq \'.header | {event, trigger, filename, dumpEventTime, processId, nodejsVersion, commandLine}\' /reports/%s' % fn,
                   ['total %d' % R.randint(200, 9000), 'drwxrwxrwx 2 root root    4096 %s %2d %02d:%02d .' % (MONTHS[c.t.month - 1], c.t.day, c.t.hour, c.t.minute),
                    'drwxr-xr-x 1 root root    4096 %s %2d %02d:%02d ..' % (MONTHS[c.t.month - 1], c.t.day, c.t.hour, c.t.minute),
                    '-rw-r--r-- 1 node node %7d %s %2d %02d:%02d %s' % (R.randint(10 ** 5, 10 ** 6), MONTHS[c.t.month - 1], c.t.day, c.t.hour, c.t.minute, fn)] + header, 'report header') if ctx.long else [],
              step(ctx, "jq '.environmentVariables' /reports/%s" % fn, env, 'report environment')]
    if ctx.long:
        lib = ['[', '  "/lib/x86_64-linux-gnu/libdl.so.2",', '  "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",', '  "/lib/x86_64-linux-gnu/libm.so.6",',
               '  "/lib/x86_64-linux-gnu/libgcc_s.so.1",', '  "/lib/x86_64-linux-gnu/libpthread.so.0",', '  "/lib/x86_64-linux-gnu/libc.so.6",', '  "/lib64/ld-linux-x86-64.so.2"', ']']
        blocks.append(step(ctx, "jq '.sharedObjects' /reports/%s" % fn, lib, 'shared objects'))
    return render(ctx, note(ctx, 'The pod OOMed and node wrote a diagnostic report; checking what it captured.') if chance(0.5) else [], *blocks)


def p_dotnet_dump_analyze_string_objects(ctx):
    dump = 'core_%04d%02d%02d_%02d%02d%02d' % (ctx.clock.t.year, ctx.clock.t.month, ctx.clock.t.day, ctx.clock.t.hour, ctx.clock.t.minute, ctx.clock.t.second)
    pw = pw_any(safe=True)
    cs = 'Server=tcp:%s-sql.database.windows.net,1433;Initial Catalog=%s;Persist Security Info=False;User ID=%s_app;Password=%s;MultipleActiveResultSets=False;Encrypt=True;TrustServerCertificate=False;Connection Timeout=30;' % (
        ctx.org, ctx.project.replace('-', ''), ctx.project.replace('-', ''), M(pw))
    addr_obj, addr_str = '00007f' + hx(10), '00007f' + hx(10)
    mt_cs, mt_str = '00007f' + hx(10), '00007f' + hx(10)
    out = ['Loading core dump: %s ...' % dump, "Ready to process analysis commands. Type 'help' to list available commands or 'help [command]' to get detailed help on a command.",
           "Type 'quit' or 'exit' to exit the session."]
    out += ['> dumpheap -type Microsoft.Data.SqlClient.SqlConnectionString -short', addr_obj]
    if ctx.long:
        out += ['00007f' + hx(10) for _ in range(R.randint(6, 12))]
        out += ['> dumpheap -stat -type System.String', 'Statistics:', '          MT    Count     TotalSize Class Name',
                '%s %8d %13d System.String' % (mt_str, R.randint(10 ** 4, 10 ** 6), R.randint(10 ** 6, 10 ** 8)), 'Total %d objects, %d bytes' % (R.randint(10 ** 4, 10 ** 6), R.randint(10 ** 6, 10 ** 8))]
    out += ['> dumpobj %s' % addr_obj, 'Name:        Microsoft.Data.SqlClient.SqlConnectionString', 'MethodTable: %s' % mt_cs, 'EEClass:     00007f%s' % hx(10),
            'Tracked Type: false', 'Size:        176(0xb0) bytes', 'File:        /app/Microsoft.Data.SqlClient.dll', 'Fields:',
            '              MT    Field   Offset                 Type VT     Attr            Value Name',
            '%s  4000215        8        System.String  0 instance %s _usersConnectionString' % (mt_str, addr_str),
            '00007f%s  4000216       10 ...Collections.Generic.Dictionary`2[[System.String, System.Private.CoreLib],[System.String, System.Private.CoreLib]]  0 instance 00007f%s _parsetable' % (hx(10), hx(10)),
            '00007f%s  4000217       18 ...lient.NameValuePair  0 instance 0000000000000000 _keychain' % hx(10),
            '00007f%s  4000218       28       System.Boolean  1 instance                0 _hasPasswordKeyword' % hx(10),
            '> dumpobj %s' % addr_str, 'Name:        System.String', 'MethodTable: %s' % mt_str, 'EEClass:     00007f%s' % hx(10), 'Tracked Type: false',
            'Size:        %d(0x%x) bytes' % (len(strip_marks(cs)) * 2 + 22, len(strip_marks(cs)) * 2 + 22),
            'File:        /usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.4/System.Private.CoreLib.dll', 'String:      %s' % cs, 'Fields:',
            '              MT    Field   Offset                 Type VT     Attr            Value Name',
            '00007f%s  400033b        8         System.Int32  1 instance              %d _stringLength' % (hx(10), len(strip_marks(cs))),
            '00007f%s  400033c        c          System.Char  1 instance               53 _firstChar' % hx(10),
            '00007f%s  400033a       c8        System.String  0   static 00007f%s Empty' % (hx(10), hx(10))]
    if chance(0.6):
        tok = pick([sendgrid(), sk_live(), 'Bearer ' + jwt_internal(ctx, 'api')])
        a = '00007f' + hx(10)
        out += ['> dumpheap -strings -min 60 | grep -E "SG\\.|sk_live|Bearer"', '%s %8d %s' % (mt_str, R.randint(1, 40), M(tok) if not tok.startswith('Bearer') else 'Bearer ' + M(tok[7:]))]
    out.append('> exit')
    cmd = 'dotnet-dump analyze /dumps/%s' % dump
    return render(ctx, note(ctx, 'Opening the dump collected from the hung API to look at the connection string objects.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'dotnet-dump'))


def redis_mon(t, db, cli, *args):
    return '%.6f [%d %s] %s' % (epoch(t), db, cli, ' '.join('"%s"' % a for a in args))


def p_redis_monitor_session_store_writes(ctx):
    c = ctx.clock
    clis = ['%s:%d' % (ip_priv(), port()) for _ in range(3)]
    out = ['OK', redis_mon(c.tick(), 0, clis[0], 'AUTH', '(redacted)'), redis_mon(c.tick(0.001, 0.01), 0, clis[0], 'CLIENT', 'SETNAME', ctx.project)]
    tok = gh('gho_')
    slack = slack_bot()
    reset = U(B64U, 43)
    events = [lambda: redis_mon(c.tick(), 0, pick(clis), 'SETEX', 'oauth:github:token:%d' % R.randint(1, 99999), '3600', M(tok)),
              lambda: redis_mon(c.tick(), 0, pick(clis), 'HSET', 'integration:slack:T%s' % rs(UP + DIG, 10), 'bot_token', M(slack), 'team', pick(['Acme', '株式会社テスト', 'Globex'])),
              lambda: redis_mon(c.tick(), 0, pick(clis), 'SET', 'pwreset:%s' % M(reset), '{\\"user_id\\":%d,\\"exp\\":%d}' % (R.randint(1, 99999), int(epoch(c.t)) + 3600), 'EX', '3600')]
    if not ctx.long:
        events = R.sample(events, 2)
    noise = [lambda: redis_mon(c.tick(), 0, pick(clis), 'GET', 'session:2::%s' % hx(64)),
             lambda: redis_mon(c.tick(), 0, pick(clis), 'EVALSHA', hx(40), '1', 'rl:%s:%d' % (pick(['api', 'login']), R.randint(1, 99999)), str(R.randint(10, 600)), '60'),
             lambda: redis_mon(c.tick(), 1, pick(clis), 'INCRBY', 'stats:requests:%s' % iso(c.t, 0)[:13], str(R.randint(1, 9))),
             lambda: redis_mon(c.tick(), 0, pick(clis), 'BRPOP', 'queue:%s' % pick(['default', 'mailers', 'webhooks']), '2'),
             lambda: redis_mon(c.tick(), 0, pick(clis), 'PING'),
             lambda: redis_mon(c.tick(), 0, pick(clis), 'EXPIRE', 'session:2::%s' % hx(64), '1209600'),
             lambda: redis_mon(c.tick(), 0, pick(clis), 'SET', 'lock:job:%s' % uuid4(), hx(16), 'NX', 'PX', '30000')]
    seq = events + [pick(noise) for _ in range(R.randint(42, 75) if ctx.long else R.randint(4, 8))]
    R.shuffle(seq)
    for f in seq:
        out.append(f())
    cmd = 'redis-cli -h %s --user ops --askpass MONITOR | head -n %d' % (pick(['redis-master', '10.0.3.7', 'cache.internal']), 120 if ctx.long else 15)
    return render(ctx, note(ctx, 'Watching Redis MONITOR for a few seconds to see what the app writes to the session store.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'redis monitor'))


def pg_prefix(ctx, t, pid, user, db):
    return '%s.%03d UTC [%d] %s@%s ' % (sp(t, 0), t.microsecond // 1000, pid, user, db)


def p_pg_log_statement_all_role_passwords(ctx):
    c = ctx.clock
    out = []
    db = ctx.project.replace('-', '_')
    pid_admin = R.randint(1000, 60000)
    role = pick(['app_rw', 'reporting', 'grafana_ro', db + '_rw'])
    pw1 = pw_any()
    scram = 'SCRAM-SHA-256$4096:%s$%s:%s' % (b64e(rbytes(16)), b64e(rbytes(32)), b64e(rbytes(32)))

    def L(pid, user, dbn, lvl, msg):
        out.append(pg_prefix(ctx, c.tick(0.001, 3), pid, user, dbn) + '%s:  %s' % (lvl, msg))
    L(pid_admin, 'postgres', 'postgres', 'LOG', 'connection authorized: user=postgres database=postgres application_name=psql SSL enabled (protocol=TLSv1.3, cipher=TLS_AES_256_GCM_SHA384, bits=256)')
    L(pid_admin, 'postgres', 'postgres', 'LOG', "statement: ALTER ROLE %s WITH LOGIN PASSWORD '%s';" % (role, M(pw1)))
    L(pid_admin, 'postgres', 'postgres', 'LOG', "statement: CREATE ROLE %s LOGIN PASSWORD '%s';" % (pick(['metabase', 'airbyte', 'debezium']), scram))
    k = R.randint(0, 1)
    if k == 0 or ctx.long:
        fpw = pw_any(safe=True)
        L(pid_admin, 'postgres', db, 'LOG', "statement: CREATE USER MAPPING FOR %s SERVER legacy_crm OPTIONS (user 'crm_ro', password '%s');" % (role, M(fpw)))
    if k == 1 or ctx.long:
        spw = pw_any(safe=True)
        L(pid_admin, 'postgres', db, 'LOG', "statement: CREATE SUBSCRIPTION %s_sub CONNECTION 'host=%s port=5432 dbname=%s user=replicator password=%s sslmode=require' PUBLICATION %s_pub;" % (db, pick(['pg-old.internal', '10.0.7.4']), db, M(spw), db))
    pid_app = R.randint(1000, 60000)
    tok = gh('gho_') if chance(0.5) else U(B64U, 43)
    L(pid_app, role, db, 'LOG', 'execute <unnamed>: SELECT id, user_id, scopes FROM api_tokens WHERE token = $1 AND revoked_at IS NULL')
    out.append(pg_prefix(ctx, c.t, pid_app, role, db) + "DETAIL:  parameters: $1 = '%s'" % M(tok))
    if ctx.long:
        for _ in range(R.randint(30, 55)):
            k2 = R.randint(0, 4)
            p = R.randint(1000, 60000)
            if k2 == 0:
                L(p, role, db, 'LOG', 'execute <unnamed>: SELECT * FROM orders WHERE id = $1')
                out.append(pg_prefix(ctx, c.t, p, role, db) + "DETAIL:  parameters: $1 = '%d'" % R.randint(1, 99999))
            elif k2 == 1:
                L(p, role, db, 'LOG', 'duration: %.3f ms' % R.uniform(0.05, 900))
            elif k2 == 2:
                L(p, role, db, 'LOG', 'connection received: host=%s port=%d' % (ip_priv(), port()))
            elif k2 == 3:
                L(p, 'grafana_ro', db, 'FATAL', 'password authentication failed for user "grafana_ro"')
                out.append(pg_prefix(ctx, c.t, p, 'grafana_ro', db) + 'DETAIL:  Connection matched file "/etc/postgresql/16/main/pg_hba.conf" line %d: "hostssl all all 10.0.0.0/8 scram-sha-256"' % R.randint(90, 130))
            else:
                L(p, role, db, 'LOG', 'statement: BEGIN')
    cmd = 'sudo tail -n %d /var/log/postgresql/postgresql-16-main.log' % (150 if ctx.long else 12)
    return render(ctx, note(ctx, 'log_statement = all was left on after the migration; checking what the server log captured.') if chance(0.5) else [],
                  file_step(ctx, '/var/log/postgresql/postgresql-16-main.log', cmd, out, 'postgres log', R.randint(1000, 90000)))


def p_mysql_general_log_raw_queries(ctx):
    c = ctx.clock
    out = ['/usr/sbin/mysqld, Version: 8.0.%d (MySQL Community Server - GPL). started with:' % R.randint(30, 37),
           'Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock', 'Time                 Id Command    Argument']
    cid = R.randint(10, 900)

    def Q(i, cmd_, arg):
        out.append('%s\t%5d %s\t%s' % (iso(c.tick(0.0001, 0.5), 6), i, cmd_, arg))
    Q(cid, 'Connect', '%s@%s on %s using SSL/TLS' % (ctx.project.replace('-', '_'), ip_priv(), ctx.project.replace('-', '_')))
    Q(cid, 'Query', 'SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci')
    Q(cid, 'Query', "CREATE USER 'report'@'%' IDENTIFIED BY <secret>")
    rem = laravel_remember()
    Q(cid, 'Query', "update `users` set `remember_token` = '%s', `users`.`updated_at` = '%s' where `id` = %d" % (M(rem), sp(c.t, 0), R.randint(1, 99999)))
    at, rt = shpat(), hx(32)
    Q(cid, 'Query', "insert into `integrations` (`provider`, `shop`, `access_token`, `refresh_token`, `created_at`) values ('shopify', '%s.myshopify.com', '%s', '%s', '%s')" % (ctx.org, M(at), M(rt), sp(c.t, 0)))
    Q(cid, 'Query', "select * from `personal_access_tokens` where `token` = '%s' limit 1" % hx(64))
    Q(cid, 'Query', "select * from `password_reset_tokens` where `email` = '%s@%s' limit 1" % (pick(NAMES), ctx.domain))
    if ctx.long:
        for _ in range(R.randint(34, 55)):
            k = R.randint(0, 4)
            i = pick([cid, cid + 1, cid + 2])
            if k == 0:
                Q(i, 'Query', "select * from `orders` where `id` = %d limit 1" % R.randint(1, 99999))
            elif k == 1:
                Q(i, 'Query', "select * from `sessions` where `id` = '%s' limit 1" % rs(ALNUM, 40))
            elif k == 2:
                Q(i, 'Query', "update `jobs` set `reserved_at` = %d, `attempts` = %d where `id` = %d" % (int(epoch(c.t)), R.randint(1, 3), R.randint(1, 99999)))
            elif k == 3:
                Q(i, 'Quit', '')
            else:
                Q(i, 'Connect', '%s@%s on %s using SSL/TLS' % (ctx.project.replace('-', '_'), ip_priv(), ctx.project.replace('-', '_')))
    cmd = 'sudo tail -n %d /var/lib/mysql/%s.log' % (120 if ctx.long else 10, ctx.host)
    return render(ctx, note(ctx, 'general_log is on since the incident; reading it for the queries around the token refresh.') if chance(0.5) else [],
                  file_step(ctx, '/var/lib/mysql/%s.log' % ctx.host, cmd, out, 'mysql general log'))


def p_mongosh_system_profile_docs(ctx):
    c = ctx.clock
    db = ctx.project.replace('-', '_')
    tok = slack_bot() if chance(0.5) else gh('gho_')
    rt = U(B64U, 43)
    docs = []
    n = R.randint(2, 3) if ctx.long else 1
    for i in range(n):
        oid = objid()
        if i == 0:
            doc = "{ _id: ObjectId('%s'), provider: '%s', accessToken: '%s', refreshToken: '%s', scopes: %s, userId: ObjectId('%s') }" % (
                oid, 'slack' if tok.startswith('xoxb') else 'github', M(tok), M(rt),
                "[ 'chat:write', 'channels:read' ]" if tok.startswith('xoxb') else "[ 'repo', 'read:org' ]", objid())
            cmd = 'insert'
            coll = 'integrations'
        else:
            doc = "{ _id: ObjectId('%s'), event: '%s', actor: '%s', at: ISODate('%s') }" % (oid, pick(['login', 'export', 'logout']), pick(PEOPLE), iso(c.t))
            cmd = 'insert'
            coll = 'audit'
        lines = ['  {', "    op: '%s'," % cmd, "    ns: '%s.%s'," % (db, coll), '    command: {', "      insert: '%s'," % coll, '      ordered: true,',
                 "      lsid: { id: UUID('%s') }," % uuid4(), "      txnNumber: Long('%d')," % R.randint(1, 90),
                 "      '$clusterTime': {", '        clusterTime: Timestamp({ t: %d, i: %d }),' % (int(epoch(c.t)), R.randint(1, 30)),
                 "        signature: { hash: Binary.createFromBase64('%s', 0), keyId: Long('%d') }" % (b64e(rbytes(20)), R.randint(7 * 10 ** 18, 7.4 * 10 ** 18)),
                 '      },', "      '$db': '%s'," % db, '      documents: [ %s ]' % doc, '    },', '    ninserted: 1,', '    keysInserted: %d,' % R.randint(1, 4),
                 '    numYield: 0,', "    locks: { ParallelBatchWriterMode: { acquireCount: { r: Long('1') } }, Global: { acquireCount: { w: Long('1') } } },",
                 '    responseLength: 45,', "    protocol: 'op_msg',", '    millis: %d,' % R.randint(100, 3000), "    ts: ISODate('%s')," % iso(c.tick()),
                 "    client: '%s'," % ip_priv(), "    appName: '%s'," % ctx.project, "    allUsers: [ { user: 'api', db: 'admin' } ],", "    user: 'api@admin'", '  }']
        docs.append(lines)
    out = ['[']
    for i, d in enumerate(docs):
        if i < len(docs) - 1:
            d[-1] += ','
        out += d
    out.append(']')
    q = "db.system.profile.find({ ns: /integrations|audit/ }).sort({ ts: -1 }).limit(%d)" % n
    cmd = 'mongosh "mongodb+srv://cluster0.%s.mongodb.net/%s" --quiet --eval \'%s\'' % (rs(LOWNUM, 5), db, q)
    return render(ctx, note(ctx, 'Profiling level 2 is on for the slow inserts; reading system.profile.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'mongo profiler'))


def p_pg_stat_activity_dblink_password(ctx):
    db = ctx.project.replace('-', '_')
    pw = pw_any(safe=True)
    pp = pw_human()
    rows = [(R.randint(1000, 60000), 'etl', 'active', '00:%02d:%02d.%06d' % (R.randint(10, 59), R.randint(0, 59), R.randint(0, 999999)),
             "SELECT * FROM dblink('host=legacy-db.internal dbname=crm user=etl_ro password=%s', 'SELECT id, email FROM contacts') AS t(id int, email text)" % M(pw)),
            (R.randint(1000, 60000), 'app', 'idle in transaction', '00:0%d:%02d.%06d' % (R.randint(1, 9), R.randint(0, 59), R.randint(0, 999999)),
             'UPDATE accounts SET balance = balance - $1 WHERE id = $2'),
            (R.randint(1000, 60000), 'reporting', 'active', '00:00:%02d.%06d' % (R.randint(1, 59), R.randint(0, 999999)),
             "SELECT id, pgp_sym_decrypt(ssn_enc, '%s') FROM customers WHERE region = 'EU'" % M(pp))]
    if ctx.long:
        for _ in range(R.randint(34, 70)):
            rows.append((R.randint(1000, 60000), pick(['app', 'app', 'grafana_ro', 'metabase']), pick(['active', 'idle']),
                         '00:00:00.%06d' % R.randint(0, 999999), pick(['SELECT 1', 'COMMIT', 'SELECT * FROM orders WHERE id = $1', 'LISTEN jobs', 'SHOW TRANSACTION ISOLATION LEVEL'])))
    hdr = ['pid', 'usename', 'state', 'age', 'query']
    uni = chance(0.4)
    out = []
    if uni:
        out += ['%s=# \\pset linestyle unicode' % db, 'Line style is unicode.', '%s=# \\pset border 2' % db, 'Border style is 2.']
    out.append('%s=# SELECT pid, usename, state, now() - query_start AS age, query FROM pg_stat_activity WHERE state <> \'idle\' OR backend_type = \'client backend\' ORDER BY age DESC;' % db)
    out += psql_table(hdr, [(str(r[0]), r[1], r[2], r[3], r[4]) for r in rows], uni)
    out.append('(%d rows)' % len(rows))
    out.append('')
    cmd = 'psql "service=%s-prod"' % db
    return render(ctx, note(ctx, 'Looking at what is running on the primary; the ETL has been active for 40 minutes.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'psql session'))


# ---------------------------------------------------------------------------
# P: the agent's own searches and incident tooling
# ---------------------------------------------------------------------------
def p_rg_log_dir_leak_hunt(ctx):
    c = ctx.clock
    d = pick(['/var/log/%s' % ctx.project, 'logs', '/srv/%s/log' % ctx.project])
    files = ['%s/app.log' % d, '%s/app.log.1' % d, '%s/worker.log' % d, '%s/access.json' % d]
    tok = pick([sk_live(), jwt_internal(ctx, 'api'), sendgrid()])
    key = hx(40)
    pw = pw_any(safe=True)
    out = []
    n = R.randint(45, 80) if ctx.long else R.randint(5, 9)
    used = set()
    for i in range(n):
        f = pick(files)
        ln = R.randint(1, 90000)
        k = R.randint(0, 7)
        if k == 0 or (i == 0):
            txt = '%s DEBUG http.client request headers: Authorization: Bearer %s' % (iso(c.tick(1, 600)), M(tok))
            used.add('tok')
        elif k == 1:
            txt = '{"ts":"%s","level":"debug","msg":"outbound","headers":{"x-api-key":"%s","user-agent":"%s"}}' % (iso(c.tick(1, 600)), M(key), pick(UA_PY))
        elif k == 2:
            txt = '%s WARN db connect retry dsn="postgres://%s:%s@db:5432/%s"' % (iso(c.tick(1, 600)), ctx.project.replace('-', '_'), M(pw), ctx.project.replace('-', '_'))
        elif k == 3:
            txt = '%s INFO request headers: Authorization: [REDACTED]' % iso(c.tick(1, 600))
        elif k == 4:
            txt = '{"ts":"%s","level":"info","msg":"outbound","headers":{"x-api-key":"****%s","user-agent":"%s"}}' % (iso(c.tick(1, 600)), key[-4:], pick(UA_PY))
        elif k == 5:
            txt = '%s INFO login ok user=%s password=******** mfa=totp' % (iso(c.tick(1, 600)), pick(NAMES))
        elif k == 6:
            txt = '%s DEBUG settings: PASSWORD_MIN_LENGTH=12 PASSWORD_HASHER=argon2 TOKEN_TTL=3600' % iso(c.tick(1, 600))
        elif k == 7 and chance(0.5):
            txt = '%s INFO %s (token_ttl=3600)' % (iso(c.tick(1, 600)), human_msg())
        else:
            txt = '%s ERROR auth failed: Authorization header missing for %s' % (iso(c.tick(1, 600)), rpath())
        out.append('%s:%d:%s' % (f, ln, txt))
    out.sort(key=lambda l: (l.split(':')[0], int(l.split(':')[1])))
    if not any('x-api-key":"«' in l for l in out) and ctx.long:
        out.insert(0, '%s:%d:{"ts":"%s","level":"debug","msg":"outbound","headers":{"x-api-key":"%s"}}' % (files[0], R.randint(1, 9), iso(c.t), M(key)))
    pat = "-e 'Authorization: ' -e 'x-api-key' -e 'password='"
    cmd = 'rg -n -i --no-heading %s %s%s' % (pat, d, ' | head -n 140' if ctx.long else '')
    return render(ctx, note(ctx, 'Grepping the service logs for headers and passwords to find out how much was written in clear.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'search the logs'))


def p_zgrep_rotated_access_logs(ctx):
    key = hx(32) if chance(0.5) else 'ak_live_' + rs(ALNUM, 32)
    key2 = U(ALNUM, 40)
    out = []
    n = R.randint(48, 85) if ctx.long else R.randint(4, 8)
    rows = []
    for i in range(n):
        t = ctx.clock.tick(1, 3000)
        k = R.randint(0, 5)
        if k <= 1 or i == 0:
            kk = M(key)
        elif k == 2:
            kk = M(key2)
        else:
            kk = pick(['YOUR_API_KEY', '', '%7Bapi_key%7D', '%24API_KEY', 'undefined', 'null', 'xxxxxxxx'])
        path = '/v1/%s?api_key=%s&%s' % (pick(['stats', 'events', 'export']), kk, pick(['range=7d', 'format=csv', 'page=%d' % R.randint(1, 9)]))
        rows.append((R.randint(1, 900), ip_pub(), '[%s' % clf_ts(t).split(' ')[0], path))
    rows.sort(key=lambda r: -r[0])
    for cnt, ip, ts, path in rows:
        out.append('%7d %s %s %s' % (cnt, ip, ts, path))
    cmd = "zgrep -h 'api_key=' /var/log/nginx/access.log*.gz | awk '{print $1, $4, $7}' | sort | uniq -c | sort -rn | head -n %d" % (n if ctx.long else 10)
    return render(ctx, note(ctx, 'Counting which clients still send the key in the query string, across the rotated logs.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'access log search'))


def p_gh_secret_scanning_alerts_json(ctx):
    c = ctx.clock
    repo = '%s/%s' % (ctx.org, ctx.project)
    types = [('stripe_api_key', lambda: sk_live()), ('slack_api_token', lambda: slack_bot()), ('github_personal_access_token', lambda: gh('ghp_')),
             ('openai_api_key', lambda: openai_key()), ('sendgrid_api_key', lambda: sendgrid()), ('google_api_key', lambda: gcp_key()),
             ('github_oauth_access_token', lambda: gh('gho_')), ('npm_access_token', lambda: gh('npm_'))]
    n = R.randint(4, 7) if ctx.long else 1
    out = []
    chosen = R.sample(types, n)
    for i, (tp, f) in enumerate(chosen):
        num = R.randint(1, 90)
        out.append('{"created_at":"%s","html_url":"https://github.com/%s/security/secret-scanning/%d","number":%d,"secret":"%s","secret_type":"%s","state":"%s","validity":"%s"}' % (
            iso(c.tick(60, 90000), 0), repo, num, num, M(f()), tp, pick(['open', 'open', 'resolved']), pick(['active', 'unknown', 'inactive'])))
    blocks = [step(ctx, "gh api /repos/%s/secret-scanning/alerts --paginate --jq '.[] | {created_at, html_url, number, secret, secret_type, state, validity}'" % repo, out, 'secret scanning alerts')]
    if ctx.long:
        loc = []
        for _ in range(R.randint(3, 5)):
            loc += ['{', '  "type": "commit",', '  "details": {', '    "path": "%s",' % pick(['.env.example', 'config/settings.py', 'scripts/debug.sh', 'docs/runbook.md']),
                    '    "start_line": %d,' % R.randint(1, 200), '    "end_line": %d,' % R.randint(1, 200), '    "start_column": %d,' % R.randint(1, 40), '    "end_column": %d,' % R.randint(40, 120),
                    '    "blob_sha": "%s",' % gitsha(), '    "blob_url": "https://api.github.com/repos/%s/git/blobs/%s",' % (repo, gitsha()),
                    '    "commit_sha": "%s",' % gitsha(), '    "commit_url": "https://api.github.com/repos/%s/git/commits/%s"' % (repo, gitsha()), '  }', '}']
        blocks.append(step(ctx, 'gh api /repos/%s/secret-scanning/alerts/%d/locations --jq \'.[]\'' % (repo, R.randint(1, 90)), loc, 'alert locations'))
    return render(ctx, note(ctx, 'Listing the open secret-scanning alerts so each leaked credential can be revoked.') if chance(0.5) else [], *blocks)


def p_vault_audit_log_raw_true(ctx):
    c = ctx.clock
    out = []
    role_id, secret_id = uuid4(), uuid4()
    ctok = hvs()
    acc = rs(ALNUM, 24)
    ent = uuid4()
    entries = []
    login = {'time': iso(c.tick(), 6), 'type': 'response',
             'auth': {'client_token': M(ctok), 'accessor': acc, 'display_name': 'approle', 'policies': ['default', ctx.project],
                      'token_policies': ['default', ctx.project], 'metadata': {'role_name': ctx.project}, 'entity_id': ent,
                      'token_type': 'service', 'token_ttl': 3600, 'token_issue_time': iso(c.t, 0, '+00:00')[:-6] + 'Z'},
             'request': {'id': uuid4(), 'operation': 'update', 'mount_type': 'approle', 'client_token': '', 'client_token_accessor': '', 'namespace': {'id': 'root'},
                         'path': 'auth/approle/login', 'data': {'role_id': role_id, 'secret_id': M(secret_id)}, 'remote_address': ip_priv(), 'remote_port': port()},
             'response': {'auth': {'client_token': M(ctok), 'accessor': acc, 'display_name': 'approle', 'policies': ['default', ctx.project], 'token_ttl': 3600},
                          'mount_type': 'approle'}}
    entries.append(login)
    if ctx.long or chance(0.5):
        val = pw_any()
        path = 'secret/data/%s/db' % ctx.project
        read = {'time': iso(c.tick(), 6), 'type': 'response',
                'auth': {'client_token': M(ctok), 'accessor': acc, 'display_name': 'approle', 'policies': ['default', ctx.project], 'entity_id': ent, 'token_type': 'service'},
                'request': {'id': uuid4(), 'operation': 'read', 'mount_type': 'kv', 'client_token': M(ctok), 'client_token_accessor': acc,
                            'path': path, 'remote_address': ip_priv()},
                'response': {'mount_type': 'kv', 'data': {'data': {'username': ctx.project.replace('-', '_'), 'password': M(val)},
                                                         'metadata': {'created_time': iso(c.t, 6), 'version': R.randint(1, 20), 'destroyed': False}}}}
        entries.append(read)
    if ctx.long:
        for e in entries:
            out += jq_dump(e)
    else:
        out = [jl(e) for e in entries]
    cmd = ('sudo tail -n %d /var/log/vault/audit.log | jq .' if ctx.long else 'sudo tail -n %d /var/log/vault/audit.log') % len(entries)
    return render(ctx, note(ctx, 'The audit device was enabled with log_raw=true during debugging; checking what it wrote.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'vault audit log'))


# ===========================================================================
# NEGATIVES: no secret anywhere; the look-alikes of the same tools
# ===========================================================================
def n_botocore_debug_canonical_request(ctx):
    lines, o = boto_session(ctx, akid('AKIA'), None, None, None, ctx.long)
    if not ctx.long:
        lines = [l for l in lines if 'botocore.loaders' not in l]
    script = 'scripts/debug_%s.py' % o['svc']
    return render(ctx, note(ctx, 'Reproducing the AccessDenied locally with the long-term dev profile and botocore debug logging.') if chance(0.5) else [],
                  step(ctx, 'AWS_PROFILE=dev python %s 2>&1%s' % (script, ' | head -n 150' if ctx.long else ''), lines, 'boto3 debug'))


def n_httpx_headers_repr_secure(ctx):
    c = ctx.clock
    out = []

    def L(name, msg):
        out.append('DEBUG:%s:%s' % (name, msg))
    host = pick(['api.openai.com', 'api.%s' % ctx.domain, 'api.mistral.ai', 'api.groq.com'])
    path = pick(['/v1/chat/completions', '/v1/embeddings', rpath()])
    L('httpx', 'load_ssl_context verify=True cert=None trust_env=True http2=False')
    httpcore_conn(host, L)
    n = R.randint(6, 9) if ctx.long else 1
    for i in range(n):
        hdr = [('host', host), ('accept', 'application/json'), ('accept-encoding', 'gzip, deflate'), ('connection', 'keep-alive'),
               ('user-agent', 'OpenAI/Python 1.%d.0' % R.randint(20, 40)), ('x-stainless-lang', 'python'), ('x-stainless-package-version', '1.%d.0' % R.randint(20, 40)),
               ('x-stainless-os', 'Linux'), ('x-stainless-arch', 'x64'), ('x-stainless-runtime', 'CPython'), ('x-stainless-retry-count', str(i)),
               ('authorization', '[secure]'), ('x-request-id', uuid4()), ('content-length', str(R.randint(100, 3000))), ('content-type', 'application/json')]
        if 'openai' in host:
            hdr.insert(11, ('openai-organization', 'org-' + rs(ALNUM, 24)))
        out.append('[hook] request: POST https://%s%s' % (host, path))
        out.append('[hook] headers: Headers({%s})' % ', '.join("'%s': '%s'" % kv for kv in hdr))
        L('httpcore.http11', "send_request_headers.started request=<Request [b'POST']>")
        L('httpcore.http11', 'send_request_headers.complete')
        code = pick([200, 200, 429, 500])
        rh = [('Date', http_date(c.tick(0.1, 3))), ('Content-Type', 'application/json'), ('Transfer-Encoding', 'chunked'), ('Connection', 'keep-alive'),
              ('x-request-id', 'req_' + hx(32)), ('openai-processing-ms', str(R.randint(30, 4000))), ('openai-version', '2020-10-01'),
              ('x-ratelimit-remaining-tokens', str(R.randint(1000, 90000))), ('CF-RAY', cf_ray()), ('Server', 'cloudflare')]
        L('httpcore.http11', "receive_response_headers.complete return_value=(b'HTTP/1.1', %d, b'%s', [%s])" % (code, {200: 'OK', 429: 'Too Many Requests', 500: 'Internal Server Error'}[code], ', '.join("(b'%s', b'%s')" % kv for kv in rh)))
        out.append('INFO:httpx:HTTP Request: POST https://%s%s "HTTP/1.1 %d %s"' % (host, path, code, {200: 'OK', 429: 'Too Many Requests', 500: 'Internal Server Error'}[code]))
        out.append('[hook] response: %d id=%s fingerprint=fp_%s' % (code, 'chatcmpl-' + rs(ALNUM, 29), hx(10)))
    return render(ctx, note(ctx, 'The hook prints request headers; httpx masks the Authorization value in its Headers repr.') if chance(0.5) else [],
                  step(ctx, 'python scripts/llm_smoke.py --debug', out, 'llm smoke test'))


def n_dotnet8_httpclient_redacted_headers(ctx):
    out = []
    name = pick(['PaymentsApi', 'SendGrid', 'Graph', 'Crm'])
    url = {'PaymentsApi': 'https://api.%s/v1/charges' % ctx.domain, 'SendGrid': 'https://api.sendgrid.com/v3/mail/send',
           'Graph': 'https://graph.microsoft.com/v1.0/users?$top=100', 'Crm': 'https://crm.%s/api/v2/contacts/batch' % ctx.domain}[name]

    def ev(lvl, cat, eid, msgs):
        out.append('%s: System.Net.Http.HttpClient.%s.%s[%d]' % (lvl, name, cat, eid))
        out.extend('      ' + m for m in msgs)
    reps = R.randint(3, 5) if ctx.long else 1
    for r in range(reps):
        hs = ['Authorization: *', 'traceparent: *', 'Accept: *', 'Content-Type: *']
        ev('info', 'LogicalHandler', 100, ['Start processing HTTP request POST %s' % url])
        ev('trce', 'LogicalHandler', 102, ['Request Headers:'] + hs)
        ev('info', 'ClientHandler', 100, ['Sending HTTP request POST %s' % url])
        ev('trce', 'ClientHandler', 102, ['Request Headers:'] + hs)
        st = pick([200, 202, 401, 500])
        ms = R.uniform(40, 3000)
        ev('info', 'ClientHandler', 101, ['Received HTTP response headers after %.4fms - %d' % (ms, st)])
        ev('trce', 'ClientHandler', 103, ['Response Headers:', 'Date: *', 'Connection: *', 'X-Request-Id: *', 'Content-Type: *'])
        ev('info', 'LogicalHandler', 101, ['End processing HTTP request after %.4fms - %d' % (ms + R.uniform(0.1, 3), st)])
        if ctx.long:
            out.append('info: %s.Workers.OutboxWorker[0]' % ctx.org.capitalize())
            out.append('      Dispatched message %s (correlation %s, attempt %d)' % (uuid4(), uuid4(), r + 1))
    cmd = 'kubectl logs deploy/%s-worker --tail=%d' % (ctx.project, 150 if ctx.long else 20)
    return render(ctx, note(ctx, 'The worker is on .NET 8 now, so the HttpClient trace logs redact header values by default.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'worker logs'))


def n_okhttp_redact_header_blocks(ctx):
    out = []
    lg = 'okhttp3.OkHttpClient'

    def L(msg):
        out.append(spring_line(ctx, 'INFO', lg, msg, thread='sync-1'))
    n = R.randint(4, 6) if ctx.long else 1
    for i in range(n):
        url = 'https://api.%s/v2/orders?updated_since=%s&cursor=%s' % (ctx.domain, iso(ctx.clock.t, 0), b64u(('{"id":%d}' % R.randint(1000, 99999)).encode()))
        L('--> GET %s' % url)
        L('Authorization: ██')
        L('Cookie: ██')
        L('X-Request-Id: %s' % uuid4())
        L('Idempotency-Key: %s' % uuid4())
        L('--> END GET')
        L('<-- 200 %s (%dms)' % (url, R.randint(40, 900)))
        L('content-type: application/json')
        L('etag: W/"%s"' % hx(32))
        L('x-request-id: %s' % ulid())
        L('set-cookie: ██')
        L('')
        body = jl({'data': [{'id': 'ord_' + rs(ALNUM, 14), 'status': pick(['paid', 'refunded', 'open']), 'total': R.randint(100, 90000),
                             'customer': pick(PEOPLE), 'checksum': hx(40)} for _ in range(R.randint(1, 3))], 'next_cursor': b64u(rbytes(18))})
        L(body)
        L('<-- END HTTP (%d-byte body)' % len(body.encode()))
    cmd = 'kubectl logs deploy/%s -c app --since=30m | grep okhttp3 | %s' % (ctx.project, 'head -n 150' if ctx.long else 'tail -n 16')
    blocks = []
    if chance(0.5):
        f = 'src/main/kotlin/com/%s/http/HttpClients.kt' % ctx.org
        blocks.append(step(ctx, 'git diff HEAD~1 -- %s' % f, [
            'diff --git a/%s b/%s' % (f, f), 'index %s..%s 100644' % (hx(7), hx(7)), '--- a/%s' % f, '+++ b/%s' % f,
            '@@ -%d,7 +%d,10 @@ object HttpClients {' % (R.randint(20, 60), R.randint(20, 60)), '     private val logging = HttpLoggingInterceptor().apply {',
            '-        level = HttpLoggingInterceptor.Level.BODY', '+        level = HttpLoggingInterceptor.Level.HEADERS', '+        redactHeader("Authorization")',
            '+        redactHeader("Cookie")', '+        redactHeader("Set-Cookie")', '     }'], 'the fix'))
    blocks.append(step(ctx, cmd, out, 'okhttp log'))
    return render(ctx, note(ctx, 'Checking that the interceptor redacts the auth headers after the fix.') if chance(0.5) else [], *blocks)


def n_git_trace_curl_redacted(ctx):
    out = []
    host = pick(['github.com', 'gitlab.%s' % ctx.domain])
    repo = '%s/%s' % (ctx.org, ctx.project)

    def T(src, msg):
        out.append('%s %-24s%s' % (git_trace_ts(ctx), src, msg))
    T('git.c:463', 'trace: built-in: git push origin %s' % ctx.branch)
    T('run-command.c:657', 'trace: run_command: git credential-osxkeychain get' if chance(0.3) else 'trace: run_command: \'git credential-cache get\'')
    for info in ['Host %s:443 was resolved.' % host, 'IPv4: %s' % ip_pub(), 'ALPN: curl offers h2,http/1.1', 'ALPN: server accepted h2',
                 'SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256 / X25519 / id-ecPublicKey']:
        T('http.c:845', '== Info: ' + info)
    rounds = [('GET', '/%s.git/info/refs?service=git-receive-pack' % repo), ('POST', '/%s.git/git-receive-pack' % repo)]
    for method, path in rounds[:2 if ctx.long else 1]:
        hs = ['%s %s HTTP/2' % (method, path), 'Host: %s' % host, 'Authorization: Basic <redacted>', 'User-Agent: git/2.44.0',
              'Accept: */*', 'Accept-Encoding: deflate, gzip, br, zstd', 'Cookie: _gh_sess=<redacted>' if chance(0.3) else 'Pragma: no-cache', 'Git-Protocol: version=2']
        T('http.c:792', '=> Send header, %010d bytes (0x%08x)' % (R.randint(200, 500), R.randint(200, 500)))
        for h in hs:
            T('http.c:804', '=> Send header: ' + h)
        T('http.c:804', '=> Send header: ')
        T('http.c:792', '<= Recv header, 0000000013 bytes (0x0000000d)')
        T('http.c:804', '<= Recv header: HTTP/2 200')
        for h in ['server: GitHub Babel 2.0', 'content-type: application/x-git-receive-pack-%s' % ('advertisement' if method == 'GET' else 'result'),
                  'cache-control: no-cache, max-age=0, must-revalidate', 'date: ' + http_date(ctx.clock.t),
                  'x-github-request-id: %s:%s:%s:%s:%s' % (HX(4), HX(5), HX(6), HX(7), HX(8))]:
            T('http.c:804', '<= Recv header: ' + h)
        if ctx.long:
            for _ in range(R.randint(6, 10)):
                T('pkt-line.c:86', 'packet:          git< %s refs/heads/%s' % (gitsha(), pick(['main', 'release/2024.05', 'feat/retry', 'renovate/lockfile'])))
    if ctx.long:
        out += ['To https://%s/%s.git' % (host, repo), '   %s..%s  %s -> %s' % (hx(7), hx(7), ctx.branch, ctx.branch)]
    cmd = 'GIT_TRACE_CURL=1 GIT_TRACE=1 git push origin %s 2>&1 | %s' % (ctx.branch, 'head -n 140' if ctx.long else 'head -n 25')
    return render(ctx, note(ctx, 'Tracing the push; git redacts the auth header and cookies in curl traces by default.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'git push trace'))


def n_gcloud_log_http_token_redacted(ctx):
    out = []
    proj = '%s-%s' % (ctx.org, pick(['prod', 'data', 'ops']))
    reqs = [('https://oauth2.googleapis.com/token', 'POST', True),
            ('https://storage.googleapis.com/storage/v1/b?alt=json&maxResults=1000&project=%s&projection=noAcl' % proj, 'GET', False)]
    if ctx.long:
        reqs.append(('https://cloudresourcemanager.googleapis.com/v1/projects/%s?alt=json' % proj, 'GET', False))
        reqs.append(('https://storage.googleapis.com/storage/v1/b/%s-logs/o?alt=json&maxResults=1000&projection=noAcl' % ctx.org, 'GET', False))
    for url, method, tokreq in reqs:
        out += ['=======================', '==== request start ====', 'uri: %s' % url, 'method: %s' % method, '== headers start ==']
        out.append("b'accept': b'application/json'")
        if not tokreq:
            out.append("b'authorization': --- Token Redacted ---")
        out += ["b'content-type': b'application/%s'" % ('x-www-form-urlencoded' if tokreq else 'json'),
                "b'user-agent': b'google-cloud-sdk gcloud/47%d.0.0 command/gcloud.storage.ls invocation-id/%s environment/None environment-version/None client-os/LINUX client-os-ver/6.5.0 client-pltf-arch/x86_64 interactive/True from-script/False python/3.11.8 term/xterm-256color (Linux 6.5.0-1018-gcp)'" % (R.randint(0, 9), hx(32)),
                "b'x-goog-api-client': b'cred-type/u'", '== headers end ==', '== body start ==']
        out.append('Body redacted: Contains oauth token. Set log_http_show_request_body to see it.' if tokreq else '')
        out += ['== body end ==', '==== request end ====', '---- response start ----', 'status: 200', '-- headers start --',
                'Alt-Svc: h3=":443"; ma=2592000,h3-29=":443"; ma=2592000', 'Cache-Control: private, max-age=0, must-revalidate, no-transform',
                'Content-Type: application/json; charset=UTF-8', 'Date: %s' % http_date(ctx.clock.tick()), 'ETag: "%s"' % rs(B64U, 16),
                'Server: UploadServer', 'X-GUploader-UploadID: %s' % rs(ALNUM + '-_', 76), '-- headers end --', '-- body start --']
        out.append('Body redacted: Contains oauth token. Set log_http_show_request_body to see it.' if tokreq else
                   jl({'kind': 'storage#buckets', 'items': [{'kind': 'storage#bucket', 'id': '%s-logs' % ctx.org, 'projectNumber': digits(12), 'etag': 'CAE='}]}))
        out += ['-- body end --', 'total round trip time (request+response): %.3f secs' % R.uniform(0.05, 1.2), '---- response end ----', '----------------------']
    out.append('gs://%s-logs/' % ctx.org)
    if not ctx.long:
        out = out[:30]
    return render(ctx, note(ctx, 'Running the gsutil replacement with --log-http to compare the requests.') if chance(0.5) else [],
                  step(ctx, 'gcloud storage ls --project %s --log-http 2>&1%s' % (proj, '' if ctx.long else ' | head -n 30'), out, 'gcloud http log'))


def n_azure_sdk_http_logging_redacted(ctx):
    out = []
    H = 'azure.core.pipeline.policies.http_logging_policy'
    acct = '%s%s' % (ctx.org, pick(['prodlogs', 'exports', 'media']))
    n = R.randint(3, 4) if ctx.long else 1
    for i in range(n):
        blob = '%s/%04d/%02d/%s.json.gz' % (pick(['exports', 'audit', 'thumbs']), ctx.clock.t.year, ctx.clock.t.month, uuid4())
        url = "https://%s.blob.core.windows.net/%s?sv=2023-11-03&ss=b&srt=sco&sp=rwdlac&se=REDACTED&st=REDACTED&spr=https&sig=REDACTED" % (acct, blob)
        rid = uuid4()
        out += ["INFO:%s:Request URL: '%s'" % (H, url), "INFO:%s:Request method: 'PUT'" % H, 'INFO:%s:Request headers:' % H]
        for h, v in [('Content-Length', str(R.randint(1000, 10 ** 6))), ('x-ms-blob-type', "'BlockBlob'"), ('If-None-Match', "'*'"), ('x-ms-version', "'REDACTED'"),
                     ('Content-Type', "'application/octet-stream'"), ('Accept', "'application/xml'"), ('User-Agent', "'azsdk-python-storage-blob/12.19.1 Python/3.11.9 (Linux-6.5.0-1018-azure-x86_64-with-glibc2.35)'"),
                     ('x-ms-date', "'REDACTED'"), ('x-ms-client-request-id', "'%s'" % rid), ('Authorization', "'REDACTED'")]:
            out.append("INFO:%s:    '%s': %s" % (H, h, v if v.startswith("'") else "'%s'" % v))
        out.append('INFO:%s:A body is sent with the request' % H)
        out += ['INFO:%s:Response status: 201' % H, 'INFO:%s:Response headers:' % H]
        for h, v in [('Content-Length', '0'), ('Content-MD5', b64e(rbytes(16))), ('Last-Modified', http_date(ctx.clock.tick())), ('ETag', '"0x8DC%s"' % HX(13)),
                     ('Server', 'Windows-Azure-Blob/1.0 Microsoft-HTTPAPI/2.0'), ('x-ms-request-id', uuid4()), ('x-ms-client-request-id', rid),
                     ('x-ms-version', 'REDACTED'), ('x-ms-content-crc64', b64e(rbytes(8))), ('x-ms-request-server-encrypted', 'REDACTED'), ('Date', http_date(ctx.clock.t))]:
            out.append("INFO:%s:    '%s': '%s'" % (H, h, v))
    return render(ctx, note(ctx, 'The default HTTP logging policy redacts the SAS signature and auth headers; checking the upload calls.') if chance(0.5) else [],
                  step(ctx, 'python -m %s.export --upload 2>&1 | grep http_logging_policy%s' % (ctx.project.replace('-', '_'), '' if ctx.long else ' | head -n 30'), out, 'upload log'))


def n_curl_trace_ascii_public_endpoint(ctx):
    c = ctx.clock
    host = 'api.github.com'
    repo = '%s/%s' % (pick(['cli', 'hashicorp', 'kubernetes', 'grafana', 'prometheus']), pick(['cli', 'terraform', 'kubectl', 'loki', 'node_exporter']))
    path = '/repos/%s/releases/latest' % repo
    ip = '140.82.%d.%d' % (R.randint(112, 121), R.randint(2, 250))
    out = curl_tls_info(host, ip)
    out += ['== Info: SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256 / X25519 / id-ecPublicKey', '== Info: ALPN: server accepted h2',
            '== Info: Server certificate:', '== Info:  subject: CN=*.github.com', '== Info:  start date: Mar  7 00:00:00 2024 GMT',
            '== Info:  expire date: Mar  7 23:59:59 2025 GMT', '== Info:  issuer: C=GB; ST=Greater Manchester; L=Salford; O=Sectigo Limited; CN=Sectigo ECC Domain Validation Secure Server CA',
            '== Info:  SSL certificate verify ok.', '== Info: using HTTP/2']
    req = 'GET %s HTTP/2\r\nHost: %s\r\nUser-Agent: curl/8.5.0\r\nAccept: application/vnd.github+json\r\nX-GitHub-Api-Version: 2022-11-28\r\n\r\n' % (path, host)
    out += curl_trace_block('sh', req)
    rid = '%s:%s:%s:%s:%s' % (HX(4), HX(5), HX(6), HX(7), HX(8))
    for rl in ['HTTP/2 200', 'date: ' + http_date(c.t), 'content-type: application/json; charset=utf-8', 'cache-control: public, max-age=60, s-maxage=60',
               'vary: Accept,Accept-Encoding, Accept, X-Requested-With', 'etag: W/"%s"' % hx(64), 'last-modified: ' + http_date(c.t - timedelta(days=R.randint(1, 30))),
               'x-github-media-type: github.v3; format=json', 'x-github-api-version-selected: 2022-11-28', 'x-ratelimit-limit: 60',
               'x-ratelimit-remaining: %d' % R.randint(0, 59), 'x-ratelimit-reset: %d' % int(epoch(c.t) + 3000), 'x-ratelimit-used: %d' % R.randint(1, 60),
               "content-security-policy: default-src 'none'", 'x-github-request-id: ' + rid, '']:
        out += curl_trace_block('rh', rl + '\r\n')
    body = jl({'url': 'https://api.github.com/repos/%s/releases/%d' % (repo, R.randint(10 ** 7, 10 ** 9)), 'id': R.randint(10 ** 7, 10 ** 9),
               'node_id': 'RE_kwDO' + rs(ALNUM + '-_', 16), 'tag_name': 'v%d.%d.%d' % (R.randint(0, 3), R.randint(0, 60), R.randint(0, 9)),
               'target_commitish': gitsha()})
    out += curl_trace_block('rd', body if ctx.long else body[:130])
    out.append('== Info: Connection #0 to host %s left intact' % host)
    if not ctx.long:
        out = [l for l in out if not l.startswith('== Info: ')][:36]
    return render(ctx, step(ctx, 'curl --trace-ascii - -sS -o /dev/null -H "Accept: application/vnd.github+json" https://%s%s' % (host, path), out, 'trace unauthenticated call'))


def n_tf_log_aws_provider_http_masked(ctx):
    out = []
    pname = 'provider.terraform-provider-aws_v5.%d.0_x5' % R.randint(40, 60)
    ops = [('STS', 'GetCallerIdentity', 'https://sts.us-east-1.amazonaws.com/', 'Action=GetCallerIdentity&Version=2011-06-15'),
           ('IAM', 'GetRole', 'https://iam.amazonaws.com/', 'Action=GetRole&RoleName=%s-task&Version=2010-05-08' % ctx.project),
           ('S3', 'GetBucketPolicy', 'https://%s-artifacts.s3.us-east-1.amazonaws.com/?policy=' % ctx.org, ''),
           ('EC2', 'DescribeSecurityGroups', 'https://ec2.us-east-1.amazonaws.com/', 'Action=DescribeSecurityGroups&GroupId.1=sg-%s&Version=2016-11-15' % hx(17))]
    n = len(ops) if ctx.long else 1
    ak = akid('ASIA') if chance(0.5) else akid()
    for svc, op, url, body in ops[:n]:
        t = ctx.clock.tick(0.05, 2)
        ts = iso(t)
        cred = '%s****************/%s/us-east-1/%s/aws4_request' % (ak[:4], amz_date(t)[:8], svc.lower())
        out.append('%s [DEBUG] %s: HTTP Request Sent: @caller=github.com/hashicorp/aws-sdk-go-base/v2@v2.0.0-beta.54/logging/tf_logger.go:45 @module=aws.protocol aws.region=us-east-1 aws.sdk=aws-sdk-go-v2 aws.service=%s aws.operation=%s http.method=%s http.request.header.authorization="AWS4-HMAC-SHA256 Credential=%s, SignedHeaders=amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date%s, Signature=*****" http.request.header.x_amz_date=%s%s http.request.header.amz_sdk_invocation_id=%s http.request.header.amz_sdk_request="attempt=1; max=25" http.request_content_length=%d http.request.body="%s" http.url=%s http.user_agent="APN/1.0 HashiCorp/1.0 Terraform/1.8.%d (+https://www.terraform.io) terraform-provider-aws/5.%d.0 (+https://registry.terraform.io/providers/hashicorp/aws) aws-sdk-go-v2/1.26.1 os/linux lang/go#1.22.2 md/GOOS#linux md/GOARCH#amd64 api/%s#1.28.6" tf_aws.sdk=aws-sdk-go-v2 tf_provider_addr=registry.terraform.io/hashicorp/aws tf_rpc=%s rpc.method=%s rpc.service=%s rpc.system=aws-api timestamp=%s' % (
            ts, pname, svc, op, 'GET' if svc == 'S3' else 'POST', cred, ';x-amz-security-token' if ak.startswith('ASIA') else '', amz_date(t),
            ' http.request.header.x_amz_security_token="*****"' if ak.startswith('ASIA') else '', uuid4(), len(body), body, url, R.randint(0, 5), R.randint(40, 60),
            svc.lower(), pick(['ConfigureProvider', 'ReadResource', 'PlanResourceChange']), op, svc, ts))
        out.append('%s [DEBUG] %s: HTTP Response Received: @caller=github.com/hashicorp/aws-sdk-go-base/v2@v2.0.0-beta.54/logging/tf_logger.go:45 @module=aws.protocol aws.region=us-east-1 aws.service=%s aws.operation=%s http.duration=%d http.response.header.x_amzn_requestid=%s http.response.header.date="%s" http.status_code=200 rpc.method=%s rpc.service=%s timestamp=%s' % (
            iso(ctx.clock.tick(0.05, 0.5)), pname, svc, op, R.randint(20, 900), uuid4(), http_date(ctx.clock.t), op, svc, iso(ctx.clock.t)))
    if ctx.long:
        for _ in range(R.randint(38, 55)):
            out.append('%s [%s] %s' % (iso(ctx.clock.tick(0.001, 0.2)), pick(['DEBUG', 'TRACE']), pick([
                'ReferenceTransformer: "aws_iam_role.%s" references: []' % ctx.project.replace('-', '_'),
                'vertex "aws_s3_bucket.%s (expand)": starting visit (*terraform.nodeExpandPlannableResource)' % ctx.org,
                'provider.stdio: received EOF, stopping recv loop: err="rpc error: code = Unavailable desc = error reading from server: EOF"',
                'checking for provisioner in "."', 'ProviderTransformer: "aws_security_group.api (expand)" (*terraform.nodeExpandPlannableResource) needs provider["registry.terraform.io/hashicorp/aws"]',
                'building apply graph to check for errors', 'no schema for provisioner "local-exec"'])))
    cmd = 'TF_LOG=DEBUG terraform plan 2>&1 | %s' % ('head -n 150' if ctx.long else "grep 'HTTP Request Sent' | head -n 1")
    return render(ctx, note(ctx, 'Checking which principal the AWS provider signs with; the SDK logs mask the credential parts.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'terraform aws debug'))


def n_smtplib_debug_relay_no_auth(ctx):
    out = []
    relay = pick(['localhost', 'postfix.%s.svc' % ctx.project, 'smtp-relay.internal'])

    def S(direction, data):
        out.append('%s %s: %s' % (hms(ctx.clock.tick(0.001, 0.2), 6), direction, data))
    S('connect', "('%s', 25)" % relay)
    S('reply', "b'220 %s ESMTP Postfix (Debian/GNU)\\r\\n'" % relay)
    me = '%s.%s.internal' % (ctx.host, ctx.org)
    S('send', "'ehlo %s\\r\\n'" % me)
    for ln in ['250-%s' % relay, '250-PIPELINING', '250-SIZE 10240000', '250-VRFY', '250-ETRN', '250-STARTTLS', '250-AUTH PLAIN LOGIN', '250-ENHANCEDSTATUSCODES', '250-8BITMIME', '250-DSN', '250 CHUNKING']:
        S('reply', "b'%s\\r\\n'" % ln)
    frm = 'alerts@%s' % ctx.domain
    S('send', "'mail FROM:<%s> size=%d\\r\\n'" % (frm, R.randint(800, 9000)))
    S('reply', "b'250 2.1.0 Ok\\r\\n'")
    S('send', "'rcpt TO:<oncall@%s>\\r\\n'" % ctx.domain)
    S('reply', "b'250 2.1.5 Ok\\r\\n'")
    S('send', "'data\\r\\n'")
    S('reply', "b'354 End data with <CR><LF>.<CR><LF>\\r\\n'")
    msgid = '<%d.%d.%d@%s>' % (R.randint(10 ** 17, 10 ** 18), R.randint(1000, 99999), R.randint(10 ** 9, 10 ** 10), me)
    dkim = 'DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=%s; s=%s; t=%d; bh=%s; h=From:To:Subject:Message-ID; b=%s' % (
        ctx.domain, pick(['s1', 'mail', 'k2024']), int(epoch(ctx.clock.t)), b64e(rbytes(32)), b64e(rbytes(256)))
    S('data', "b'%s\\r\\nContent-Type: text/plain; charset=\"utf-8\"\\r\\nSubject: [ALERT] %s\\r\\nFrom: %s\\r\\nMessage-ID: %s\\r\\n\\r\\n%s\\r\\n.\\r\\n'" % (
        dkim, pick(['disk 91% on db-1', 'queue lag 7m', 'cert expires in 6 days']), frm, msgid, 'Runbook: RB-%d' % R.randint(10, 99)))
    qid = HX(10)
    S('reply', "b'250 2.0.0 Ok: queued as %s\\r\\n'" % qid)
    S('send', "'quit\\r\\n'")
    S('reply', "b'221 2.0.0 Bye\\r\\n'")
    blocks = [step(ctx, 'python scripts/send_test_alert.py --relay %s' % relay, out, 'send test alert')]
    if ctx.long:
        ml = []
        for _ in range(R.randint(18, 30)):
            q = HX(10)
            ml.append('%s %s postfix/%s[%d]: %s: %s' % (syslog_ts(ctx.clock.tick(0.1, 20)), relay.split('.')[0], pick(['smtpd', 'cleanup', 'qmgr', 'smtp']), R.randint(100, 9000), q,
                                                        pick(['client=%s[%s]' % (me, ip_priv()), 'message-id=%s' % msgid, 'from=<%s>, size=%d, nrcpt=1 (queue active)' % (frm, R.randint(800, 9000)),
                                                              'to=<oncall@%s>, relay=aspmx.l.google.com[%s]:25, delay=%.2f, dsn=2.0.0, status=sent (250 2.0.0 OK  %d %s.%d - gsmtp)' % (ctx.domain, ip_pub(), R.uniform(0.1, 3), int(epoch(ctx.clock.t)), rs(ALNUM, 20), R.randint(100, 999)), 'removed'])))
        blocks.append(step(ctx, 'sudo tail -n %d /var/log/mail.log' % len(ml), ml, 'mail log'))
    return render(ctx, note(ctx, 'The relay accepts mail from the cluster without auth; checking the dialogue and the queue IDs.') if chance(0.5) else [], *blocks)


def n_loguru_diagnose_nonsecret_values(ctx):
    c = ctx.clock
    mod = ctx.project.replace('-', '_')
    root = ctx.abscwd
    acct = R.randint(100, 99999)
    lines = ['%s | ERROR    | %s.export:run:%d - export failed for account %d' % (sp(c.t, 3), mod, R.randint(40, 140), acct),
             'Traceback (most recent call last):', '', '  File "%s/%s/bin/worker", line 8, in <module>' % (root, ctx.venv)]
    lines += loguru_annot('sys.exit(main())', [('sys', "<module 'sys' (built-in)>"), ('exit', '<built-in function exit>'), ('main', '<function main at %s>' % addr_py())])
    lines += ['', '> File "%s/%s/export.py", line %d, in run' % (root, mod, R.randint(40, 140))]
    lines += loguru_annot('digest = verify(settings, payload, expected=sig)', [
        ('digest', "'%s'" % hx(64)), ('verify', '<function verify at %s>' % addr_py()),
        ('settings', "Settings(api_base='https://api.%s', api_key=SecretStr('**********'), webhook_secret=SecretStr('**********'), timeout=30)" % ctx.domain),
        ('payload', "b'{\"id\": \"evt_%s\", \"type\": \"export.ready\"}'" % rs(ALNUM, 16)), ('sig', "'sha256=%s'" % hx(64))])
    lines += ['', '  File "%s/%s/signing.py", line %d, in verify' % (root, mod, R.randint(10, 60))]
    lines += loguru_annot('raise SignatureMismatch(key_id=settings.key_id, got=got[:12])', [
        ('SignatureMismatch', "<class '%s.signing.SignatureMismatch'>" % mod), ('settings', "Settings(api_base='https://api.%s', ...)" % ctx.domain),
        ('key_id', "'kid_%s'" % hx(8)), ('got', "'%s'" % hx(64))])
    lines += ['', '%s.signing.SignatureMismatch: signature mismatch for key kid_%s' % (mod, hx(8))]
    if ctx.long:
        for _ in range(R.randint(30, 50)):
            lines.append('%s | INFO     | %s.export:run:%d - account %d: batch %s, %d rows, sha256=%s' % (sp(c.tick(0.5, 5), 3), mod, R.randint(40, 140), R.randint(100, 99999), uuid4(), R.randint(0, 900), hx(64)))
    return render(ctx, note(ctx, 'Reading the export traceback; pydantic SecretStr keeps the keys masked in the locals.') if chance(0.5) else [],
                  file_step(ctx, '%s/logs/export.log' % ctx.abscwd, 'tail -n %d logs/export.log' % (len(lines)), lines, 'export traceback', R.randint(100, 5000)))


def n_sentry_issue_event_contexts_filtered(ctx):
    c = ctx.clock
    headers = {'Host': 'api.' + ctx.domain, 'User-Agent': 'okhttp/4.12.0', 'Accept': 'application/json', 'Authorization': '[Filtered]',
               'Cookie': '[Filtered]', 'X-Api-Key': '[Filtered]', 'Content-Type': 'application/json', 'X-Request-Id': uuid4(),
               'Sentry-Trace': '%s-%s-0' % (trace_id(), span_id())}
    ev = {'event_id': hx(32), 'level': 'error', 'platform': 'python', 'release': '%s@%s' % (ctx.project, gitsha()), 'environment': 'production',
          'fingerprint': ['{{ default }}', 'checkout-timeout'], 'server_name': '%s-%s' % (ctx.project, hx(10)[:9]),
          'request': {'url': 'https://api.%s/v1/checkout/%d' % (ctx.domain, R.randint(1000, 99999)), 'method': 'POST', 'headers': headers,
                      'data': {'card_token': '[Filtered]', 'password': '[Filtered]', 'quantity': R.randint(1, 9), 'note': pick(JP + CN + ['leave at door'])}},
          'breadcrumbs': {'values': [{'timestamp': iso(c.tick(), 6), 'type': 'http', 'category': 'httplib', 'level': 'info',
                                      'data': {'url': 'https://api.stripe.com/v1/payment_intents/pi_%s/confirm' % rs(ALNUM, 24), 'method': 'POST', 'status_code': 402}},
                                     {'timestamp': iso(c.tick(), 6), 'type': 'default', 'category': 'query', 'level': 'info',
                                      'message': 'SELECT "sessions"."id" FROM "sessions" WHERE "sessions"."key_digest" = %s'}]},
          'contexts': {'trace': {'trace_id': trace_id(), 'span_id': span_id(), 'parent_span_id': span_id(), 'op': 'http.server', 'status': 'deadline_exceeded'},
                       'runtime': {'name': 'CPython', 'version': '3.11.9', 'build': '3.11.9 (main, Apr  2 2024, 16:02:54) [GCC 12.2.0]'},
                       'os': {'name': 'Linux', 'kernel_version': '6.5.0-1018-aws'}},
          'sdk': {'name': 'sentry.python.django', 'version': '2.%d.0' % R.randint(0, 9), 'packages': [{'name': 'pypi:sentry-sdk', 'version': '2.%d.0' % R.randint(0, 9)}]},
          '_meta': {'request': {'headers': {'Authorization': {'': {'rem': [['!config', 's']]}}, 'Cookie': {'': {'rem': [['!config', 's']]}}}}}}
    if not ctx.long:
        ev = {k: ev[k] for k in ('event_id', 'release', 'request')}
    out = jq_dump(ev)
    return render(ctx, note(ctx, 'Opening the latest event of the checkout timeout issue; the SDK scrubbed the credentials.') if chance(0.5) else [],
                  step(ctx, "sentry-cli events list --project %s --max-rows 1 >/dev/null && jq '.' /tmp/event-latest.json" % ctx.project, out, 'sentry event'))


def n_php_trace_sensitiveparameter_args(ctx):
    c = ctx.clock
    app = '/var/www/%s' % ctx.project
    out = []
    n = R.randint(5, 8) if ctx.long else 1
    for i in range(n):
        t = c.tick(1, 600)
        ts = '%02d-%s-%d %s UTC' % (t.day, MONTHS[t.month - 1], t.year, hms(t))
        k = R.randint(0, 1)
        if k == 0:
            out += ["[%s] PHP Fatal error:  Uncaught PDOException: SQLSTATE[HY000] [1045] Access denied for user '%s'@'%s' (using password: YES) in %s/src/Db.php:23" % (ts, ctx.project.replace('-', '_'), ip_priv(), app),
                    'Stack trace:', "#0 %s/src/Db.php(23): PDO->__construct('mysql:host=db;p...', '%s', Object(SensitiveParameterValue), Array)" % (app, ctx.project.replace('-', '_')),
                    '#1 %s/src/Container.php(41): App\\Db::connect(Array)' % app, "#2 %s/public/index.php(12): App\\Container->get('db')" % app,
                    '#3 {main}', '  thrown in %s/src/Db.php on line 23' % app]
        else:
            out += ['[%s] PHP Fatal error:  Uncaught RedisException: WRONGPASS invalid username-password pair or user is disabled. in %s/src/Cache.php:31' % (ts, app),
                    'Stack trace:', '#0 %s/src/Cache.php(31): Redis->auth(Object(SensitiveParameterValue))' % app,
                    "#1 %s/src/Cache.php(18): App\\Cache->connect('redis-master', 6379)" % app, "#2 %s/src/Session.php(44): App\\Cache->get('sess:%s')" % (app, hx(32)),
                    '#3 %s/public/index.php(20): App\\Session->start()' % app, '#4 {main}', '  thrown in %s/src/Cache.php on line 31' % app]
        if ctx.long:
            for _ in range(R.randint(2, 5)):
                out.append('[%s] NOTICE: [pool www] child %d exited with code 255 after %.6f seconds from start' % (ts, R.randint(100, 9000), R.uniform(0.1, 90)))
    return render(ctx, note(ctx, 'PHP 8.2 redacts #[SensitiveParameter] arguments in stack traces; reading the FPM error log.') if chance(0.5) else [],
                  file_step(ctx, '/var/log/php8.2-fpm.log', 'sudo tail -n %d /var/log/php8.2-fpm.log' % len(out), out, 'php-fpm log', R.randint(100, 9000)))


def n_node_inspect_socket_handles(ctx):
    obj = {'__class__': '<ref *1> ClientRequest', '_events': '@@[Object: null prototype] { response: [Function: bound onceWrapper] { listener: [Function (anonymous)] }, error: [Function (anonymous)] }',
           '_eventsCount': 3, 'outputData': '@@[]', 'outputSize': 0, 'writable': True, 'destroyed': False, '_last': True, 'chunkedEncoding': False,
           'shouldKeepAlive': True, 'maxRequestsOnConnectionReached': False, '_defaultKeepAlive': True, 'useChunkedEncodingByDefault': False,
           'sendDate': False, '_removedConnection': False, '_removedContLen': False, '_removedTE': False, 'strictContentLength': False, '_contentLength': 0,
           '_hasBody': True, '_trailer': '', 'finished': True, '_headerSent': True, '_closed': False,
           'socket': '@@<ref *2> Socket { connecting: false, _hadError: false, _parent: null, _host: \'169.254.169.254\', ... [Symbol(async_id_symbol)]: %d, [Symbol(kHandle)]: [TCP], ... }' % R.randint(100, 9000),
           '_header': 'GET /latest/meta-data/instance-id HTTP/1.1\\r\\nHost: 169.254.169.254\\r\\nX-Request-Id: %s\\r\\ntraceparent: %s\\r\\nConnection: keep-alive\\r\\n\\r\\n' % (uuid4(), traceparent()),
           'agent': '@@Agent { _events: [Object: null prototype], keepAlive: true, keepAliveMsecs: 1000, maxSockets: Infinity, totalSocketCount: 1, ... }',
           'method': 'GET', 'path': '/latest/meta-data/instance-id', '_ended': True, 'res': '@@IncomingMessage { ... }', 'aborted': False, 'timeoutCb': None,
           'upgradeOrConnect': False, 'host': '169.254.169.254', 'protocol': 'http:', '[Symbol(kCapture)]': False, '[Symbol(kBytesWritten)]': 0,
           '[Symbol(kNeedDrain)]': False, '[Symbol(corked)]': 0,
           '[Symbol(kOutHeaders)]': "@@[Object: null prototype] { host: [ 'Host', '169.254.169.254' ], 'x-request-id': [ 'X-Request-Id', '%s' ] }" % uuid4(),
           '[Symbol(errored)]': None, '[Symbol(kHighWaterMark)]': 16384, '[Symbol(kRejectNonStandardBodyWrites)]': False, '[Symbol(kUniqueHeaders)]': None}
    out = ['%s DEBUG [imds] request:' % iso(ctx.clock.t)] + node_inspect(obj).split('\n')
    if ctx.long:
        for _ in range(R.randint(25, 45)):
            out.append('%s DEBUG [imds] %s instance=i-0%s az=%s token_ttl=%d' % (iso(ctx.clock.tick(0.5, 5)), pick(['refresh ok', 'cache hit', 'retry']), hx(16), pick(['us-east-1a', 'us-east-1c']), pick([21600, 300])))
    return render(ctx, note(ctx, 'The IMDS client dumps its request object at debug level; checking the headers it sends.') if chance(0.5) else [],
                  step(ctx, 'kubectl logs deploy/%s --tail=%d | sed -n "1,150p"' % (ctx.project, len(out)), out, 'debug logs'))


def ref_env(ctx):
    db = ctx.project.replace('-', '_')
    acct = digits(12)
    return [('DATABASE_URL', 'postgres://%s@%s:5432/%s?sslmode=verify-full&sslrootcert=/etc/ssl/rds-ca.pem' % (db, pick(['db.internal', 'pg-primary']), db)),
            ('DB_PASSWORD_FILE', '/run/secrets/db_password'), ('AWS_ROLE_ARN', 'arn:aws:iam::%s:role/%s-irsa' % (acct, ctx.project)),
            ('AWS_WEB_IDENTITY_TOKEN_FILE', '/var/run/secrets/eks.amazonaws.com/serviceaccount/token'), ('AWS_STS_REGIONAL_ENDPOINTS', 'regional'),
            ('AWS_DEFAULT_REGION', 'us-east-1'), ('VAULT_ADDR', 'https://vault.%s:8200' % ctx.domain), ('VAULT_ROLE', ctx.project),
            ('GOOGLE_APPLICATION_CREDENTIALS', '/var/secrets/google/key.json'), ('STRIPE_SECRET_KEY_PATH', '/run/secrets/stripe'),
            ('SENTRY_RELEASE', gitsha()), ('SECRET_KEY_BASE_DUMMY', '1'), ('REDIS_URL', 'rediss://redis-master.%s.svc:6380/0' % ctx.project),
            ('JWT_PUBLIC_KEY_URL', 'https://auth.%s/.well-known/jwks.json' % ctx.domain), ('PASSWORD_MIN_LENGTH', '12'), ('TOKEN_TTL_SECONDS', '3600')]


def n_proc_environ_file_refs_only(ctx):
    pid = R.randint(300, 60000)
    pairs = base_env(ctx, chance(0.5), chance(0.5)) + ref_env(ctx)
    if not ctx.long:
        pairs = R.sample(pairs, 12)
    else:
        pairs += [('LS_COLORS', 'rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:mi=00:su=37;41:sg=30;43:ca=00:tw=30;42:ow=34;42:st=37;44:ex=01;32'),
                  ('PYTHONDONTWRITEBYTECODE', '1'), ('PIP_NO_CACHE_DIR', '1'), ('WEB_CONCURRENCY', '4'), ('OTEL_TRACES_SAMPLER', 'parentbased_traceidratio'),
                  ('OTEL_TRACES_SAMPLER_ARG', '0.1'), ('FEATURE_FLAGS', 'new_checkout,fast_refunds'), ('MALLOC_ARENA_MAX', '2'),
                  ('NODE_EXTRA_CA_CERTS', '/etc/ssl/certs/%s-ca.pem' % ctx.org), ('SSL_CERT_DIR', '/etc/ssl/certs'),
                  ('REQUESTS_CA_BUNDLE', '/etc/ssl/certs/ca-certificates.crt'), ('CELERY_BROKER_URL', 'sqs://'), ('CELERY_RESULT_BACKEND', 'rpc://'),
                  ('HOST_IP', ip_priv()), ('POD_NAME', '%s-%s-%s' % (ctx.project, hx(10)[:9], rs(LOWNUM, 5))), ('POD_NAMESPACE', ctx.project)]
    R.shuffle(pairs)
    out = ['%s=%s' % kv for kv in sorted(pairs)]
    cmd = "sudo cat /proc/%d/environ | tr '\\0' '\\n' | sort" % pid
    if not ctx.long and chance(0.5):
        out = ['^@'.join('%s=%s' % kv for kv in pairs) + '^@$']
        cmd = 'sudo cat -A /proc/%d/environ' % pid
    extra = []
    if ctx.long:
        extra = [step(ctx, 'sudo ls -l /proc/%d/root/run/secrets/' % pid, ['total 0', 'lrwxrwxrwx 1 root root 18 %s %2d %02d:%02d db_password -> ..data/db_password' % (MONTHS[ctx.clock.t.month - 1], ctx.clock.t.day, ctx.clock.t.hour, ctx.clock.t.minute),
                                                                              'lrwxrwxrwx 1 root root 13 %s %2d %02d:%02d stripe -> ..data/stripe' % (MONTHS[ctx.clock.t.month - 1], ctx.clock.t.day, ctx.clock.t.hour, ctx.clock.t.minute),
                                                                              'lrwxrwxrwx 1 root root 31 %s %2d %02d:%02d ..data -> ..%04d_%02d_%02d_%02d_%02d_%02d.%d' % (MONTHS[ctx.clock.t.month - 1], ctx.clock.t.day, ctx.clock.t.hour, ctx.clock.t.minute, ctx.clock.t.year, ctx.clock.t.month, ctx.clock.t.day, ctx.clock.t.hour, ctx.clock.t.minute, ctx.clock.t.second, R.randint(10 ** 8, 10 ** 9))], 'secret mount')]
    return render(ctx, note(ctx, 'Checking the worker environment; credentials should only be file references now.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'process environment'), *extra)


def n_ps_eww_service_env_benign(ctx):
    rows = []
    lsc = 'LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:mi=00:su=37;41:sg=30;43:ca=30;41:tw=30;42:ow=34;42:st=37;44:ex=01;32:*.tar=01;31:*.tgz=01;31:*.zip=01;31:*.gz=01;31:*.jpg=01;35:*.png=01;35'
    for i in range(R.randint(2, 3) if ctx.long else 1):
        env = ['LANG=C.UTF-8', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin', 'INVOCATION_ID=%s' % hx(32), 'JOURNAL_STREAM=8:%d' % R.randint(10000, 99999),
               'SYSTEMD_EXEC_PID=%d' % R.randint(300, 60000), 'MEMORY_PRESSURE_WATCH=/sys/fs/cgroup/system.slice/%s.service/memory.pressure' % ctx.project,
               'MEMORY_PRESSURE_WRITE=%s' % b64e(b'some 200000 2000000\x00'), 'NOTIFY_SOCKET=/run/systemd/notify', 'HOME=/var/lib/%s' % ctx.project,
               'CONFIG_FILE=/etc/%s/config.yaml' % ctx.project, 'CREDENTIALS_DIRECTORY=/run/credentials/%s.service' % ctx.project, 'GOMAXPROCS=%d' % R.randint(1, 8)]
        rows.append((R.randint(300, 60000), 'Ssl', '/usr/local/bin/%s serve %s' % (ctx.project, ' '.join(env))))
    rows.append((R.randint(60001, 62000), 'Ss', '-bash USER=%s LOGNAME=%s HOME=/home/%s SHELL=/bin/bash SSH_AUTH_SOCK=/tmp/ssh-%s/agent.%d SSH_CONNECTION=%s %d %s 22 SSH_CLIENT=%s %d 22 XDG_SESSION_ID=%d XDG_RUNTIME_DIR=/run/user/1000 DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus %s' % (
        ctx.user, ctx.user, ctx.user, rs(ALNUM, 10), R.randint(1000, 9999), ip_pub(), port(), ip_priv(), ip_pub(), port(), R.randint(1, 900), lsc)))
    if ctx.long:
        for p in ['[kthreadd]', '[rcu_gp]', '[kworker/0:1H-kblockd]', '[ksoftirqd/0]', '[rcu_preempt]', '[migration/0]', '[kswapd0]', '/lib/systemd/systemd-journald',
                  '/lib/systemd/systemd-udevd', '/usr/sbin/cron -f -P', '/usr/bin/containerd', '/usr/sbin/sshd -D', '/usr/lib/systemd/systemd-resolved',
                  '/usr/sbin/chronyd -F 1', '/usr/sbin/rsyslogd -n -iNONE', '/usr/lib/systemd/systemd-logind', '/usr/sbin/irqbalance --foreground',
                  '/usr/lib/polkit-1/polkitd --no-debug', '/usr/bin/amazon-ssm-agent', '/usr/sbin/acpid', '[kworker/u4:2-events_unbound]',
                  '[jbd2/nvme0n1p1-8]', '[ext4-rsv-conver]', '/sbin/agetty -o -p -- \\u --noclear tty1 linux', '[kworker/1:0-events]',
                  '/usr/bin/node_exporter --collector.systemd', '/usr/local/bin/otelcol-contrib --config /etc/otelcol/config.yaml'] + [
                  '[kworker/%d:%d%s]' % (R.randint(0, 3), R.randint(0, 3), pick(['-events', 'H-kblockd', '-mm_percpu_wq', ''])) for _ in range(R.randint(16, 22))]:
            rows.append((R.randint(2, 3000), pick(['S', 'I<', 'Ssl', 'S<']), p))
    rows.sort()
    out = ['    PID TTY      STAT   TIME COMMAND'] + ['%7d %-8s %-6s %s %s' % (pid, 'pts/0' if cmd.startswith('-bash') else '?', st, ('%d:%02d' % (R.randint(0, 90), R.randint(0, 59))).rjust(6), cmd) for pid, st, cmd in rows]
    cmd = 'ps eww ax' if ctx.long else 'ps eww -p $(pgrep -d, -f "%s serve") -p $$' % ctx.project
    return render(ctx, note(ctx, 'Confirming the service no longer receives credentials through its environment.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'process environments'))


def strace_bytes(b, limit=None):
    out = []
    for i, x in enumerate(b):
        nxt = b[i + 1] if i + 1 < len(b) else None
        if x == 0x22:
            out.append('\\"')
        elif x == 0x5c:
            out.append('\\\\')
        elif x == 9:
            out.append('\\t')
        elif x == 10:
            out.append('\\n')
        elif x == 13:
            out.append('\\r')
        elif 0x20 <= x < 0x7f:
            out.append(chr(x))
        else:
            out.append(('\\%03o' if nxt is not None and 0x30 <= nxt <= 0x37 else '\\%o') % x)
    return ''.join(out)


def n_strace_s256_tls_record_bytes(ctx):
    c = ctx.clock
    pid = R.randint(1000, 60000)
    out = ['strace: Process %d attached with %d threads' % (pid, R.randint(2, 9))]
    fd = R.randint(8, 40)

    def S(tid, call, args, ret):
        out.append('[pid %5d] %s %s(%s) = %s' % (tid, hms(c.tick(0.00005, 0.3), 6), call, args, ret))
    S(pid + 1, 'connect', '%d, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("%s")}, 16' % (fd, ip_pub()), '-1 EINPROGRESS (Operation now in progress)')
    S(pid + 1, 'poll', '[{fd=%d, events=POLLOUT}], 1, 5000' % fd, '1 ([{fd=%d, revents=POLLOUT}])' % fd)
    n = R.randint(44, 66) if ctx.long else R.randint(5, 9)
    for _ in range(n):
        k = R.randint(0, 4)
        tid = pid + R.randint(1, 4)
        if k <= 1:
            ln = R.randint(40, 400)
            rec = bytes([0x17, 3, 3, ln >> 8, ln & 0xff]) + rbytes(min(ln, 80))
            shown = strace_bytes(rec)
            S(tid, 'write' if k == 0 else 'read', '%d, "%s"..., %d' % (fd, shown, ln + 5) if k == 0 else '%d, "%s"..., 16709' % (fd, shown), str(ln + 5))
        elif k == 2:
            S(tid, 'futex', '0x%s, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 0, {tv_sec=%d, tv_nsec=%d}, FUTEX_BITSET_MATCH_ANY' % (hx(12), int(epoch(c.t)) + 1, R.randint(0, 999999999)), '-1 ETIMEDOUT (Connection timed out)')
        elif k == 3:
            S(tid, 'epoll_wait', '%d, [{events=EPOLLIN, data={u32=%d, u64=%d}}], 1024, %d' % (R.randint(3, 9), fd, fd, R.randint(0, 5000)), '1')
        else:
            S(tid, 'sendto', '%d, "\\0\\0\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\3api\\%o%s\\3com\\0\\0\\1\\0\\1", %d, MSG_NOSIGNAL, NULL, 0' % (R.randint(3, 9), len(ctx.org), ctx.org, 21 + len(ctx.org)), str(21 + len(ctx.org)))
    cmd = 'sudo strace -f -tt -s 80 -e trace=connect,poll,read,write,futex,epoll_wait,sendto -p %d 2>&1 | head -n %d' % (pid, n + 4)
    return render(ctx, note(ctx, 'The TLS traffic is encrypted at the syscall level; strace only shows record bytes.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'strace'))


def n_ltrace_getenv_secret_file_paths(ctx):
    prog = pick(['exporter', 'ingestd', 'billing-sync', 'pgbackup'])
    pid = R.randint(1000, 60000)
    out = []

    def L(lib, fn, args, ret):
        out.append('[pid %d] %s->%s' % (pid, lib, lt(fn, args, ret)))
    L(prog, 'getenv', '"%s_CONFIG"' % prog.upper().replace('-', '_'), '"/etc/%s/config.ini"' % prog)
    L(prog, 'getenv', '"PGPASSWORD"', 'nil')
    L(prog, 'getenv', '"PGPASSFILE"', '"/run/secrets/pgpass"')
    L(prog, 'fopen', '"/run/secrets/pgpass", "r"', '0x%s' % hx(12))
    L(prog, 'fread', '0x%s, 1, 4096, 0x%s' % (hx(12), hx(12)), str(R.randint(30, 90)))
    L(prog, 'fclose', '0x%s' % hx(12), '0')
    L(prog, 'getenv', '"UPSTREAM_TOKEN_FILE"', '"/run/secrets/upstream_token"')
    L(prog, 'open', '"/run/secrets/upstream_token", 0, 0', str(R.randint(3, 9)))
    L(prog, 'read', '%d, 0x%s, 256' % (R.randint(3, 9), hx(12)), str(R.randint(40, 60)))
    L(prog, 'strlen', '0x%s' % hx(12), str(R.randint(40, 60)))
    L(prog, 'SHA256', '0x%s, %d, 0x%s' % (hx(12), R.randint(40, 60), hx(12)), '0x%s' % hx(12))
    L(prog, 'snprintf', '"token_fp=%s", 80, "token_fp=%%.16s", "%s"' % (hx(16), hx(64)), '25')
    if ctx.long:
        for _ in range(R.randint(30, 50)):
            fn = pick(['malloc', 'free', 'strlen', 'time', 'getenv', 'pthread_mutex_lock', 'pthread_mutex_unlock'])
            if fn == 'malloc':
                L(prog, fn, str(R.randint(16, 8192)), '0x%s' % hx(12))
            elif fn == 'free':
                L(prog, fn, '0x%s' % hx(12), '<void>')
            elif fn == 'strlen':
                L(prog, fn, '"%s"' % pick(['/v1/metrics', 'application/json', 'gzip', ctx.project]), str(R.randint(4, 16)))
            elif fn == 'time':
                L(prog, fn, '0', str(int(epoch(ctx.clock.tick()))))
            elif fn == 'getenv':
                L(prog, fn, '"%s"' % pick(['TZ', 'LANG', 'HTTP_PROXY', 'NO_PROXY', 'LOG_LEVEL']), pick(['nil', '"UTC"', '"info"']))
            else:
                L(prog, fn, '0x%s' % hx(12), '0')
    out.append('[pid %d] +++ exited (status 0) +++' % pid)
    cmd = 'ltrace -f -e getenv+fopen+fread+fclose+open+read+strlen+SHA256+snprintf%s ./bin/%s --once' % ('+malloc+free+time+pthread_mutex_lock+pthread_mutex_unlock' if ctx.long else '', prog)
    return render(ctx, note(ctx, 'Verifying the binary now reads its credentials from files instead of the environment.') if chance(0.5) else [],
                  step(ctx, cmd, out, 'ltrace'))


def n_gdb_core_bt_full_addresses(ctx):
    prog = pick(['ingestd', 'mq-bridge', 'edge-proxy', 'telemetryd'])
    core = 'core.%s.%d' % (prog, R.randint(1000, 60000))
    out = ['[New LWP %d]' % R.randint(1000, 60000), '[Thread debugging using libthread_db enabled]',
           'Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".', "Core was generated by `/usr/local/bin/%s --config /etc/%s/config.toml'." % (prog, prog),
           'Program terminated with signal SIGSEGV, Segmentation fault.', '#0  0x000055%s in token_cache_get (c=0x55%s, key=0x7ffd%s "tenant:%d") at src/cache.c:%d' % (hx(10), hx(10), hx(8), R.randint(1, 9999), R.randint(40, 300)),
           '%d\tsrc/cache.c: No such file or directory.' % R.randint(40, 300)]
    frames = R.randint(10, 14) if ctx.long else 3
    for i in range(frames):
        out.append('#%d  0x0000%s in %s (%s) at %s:%d' % (i, ('55' if i < frames - 2 else '7f') + hx(10), pick(['token_cache_get', 'auth_verify', 'handle_request', 'worker_loop', 'start_thread', 'clone3']),
                                                      pick(['c=0x55%s' % hx(10), 'req=0x55%s' % hx(10), 'arg=<optimized out>', '']),
                                                      pick(['src/cache.c', 'src/auth.c', 'src/server.c', './nptl/pthread_create.c']), R.randint(20, 900)))
        locs = [('entry', '0x0'), ('digest', '"\\217\\034%s\\352"' % rs('abcdefghxyz', 4)), ('token_len', '0'), ('password', '0x0'), ('key', '<optimized out>'),
                ('now', str(int(epoch(ctx.clock.t)))), ('buf', '"\\000" <repeats 255 times>'), ('hash', '%d' % R.randint(10 ** 9, 4 * 10 ** 9)), ('ctx', '0x55%s' % hx(10))]
        for k, v in R.sample(locs, R.randint(2, 4)):
            out.append('        %s = %s' % (k, v))
    cmd = "gdb -batch -ex 'bt full' /usr/local/bin/%s /var/crash/%s" % (prog, core)
    pre = step(ctx, 'sudo cp /var/lib/systemd/coredump/%s.zst /var/crash/ && sudo unzstd -q --rm /var/crash/%s.zst' % (core, core), [], 'copy the core') if chance(0.5) else []
    return render(ctx, note(ctx, 'Reading the backtrace of the crashed token cache from the core file.') if chance(0.5) else [],
                  pre, step(ctx, cmd, out, 'gdb bt full'))


def n_crictl_ps_inspect_ids_digests(ctx):
    rows = []
    for _ in range(R.randint(12, 24) if ctx.long else R.randint(3, 5)):
        cid = hx(64)[:13]
        img = hx(64)[:13]
        rows.append('%s   %s   %s   %-7s   %-24s %d   %s   %s' % (cid, img, pick(['3 hours ago', '2 days ago', 'About a minute ago']), pick(['Running', 'Exited']),
                                                               pick(['app', 'istio-proxy', 'otel-agent', 'fluent-bit', 'coredns', 'kube-proxy']), R.randint(0, 30), hx(64)[:13],
                                                               '%s-%s-%s' % (ctx.project, hx(10)[:9], rs(LOWNUM, 5))))
    out1 = ['CONTAINER       IMAGE           CREATED         STATE     NAME                     ATTEMPT   POD ID          POD'] + rows
    img = {'status': {'id': digest(), 'repoTags': ['docker.io/%s/%s:%s' % (ctx.org, ctx.project, hx(7))],
                      'repoDigests': ['docker.io/%s/%s@%s' % (ctx.org, ctx.project, digest())], 'size': str(R.randint(10 ** 7, 9 * 10 ** 8)),
                      'uid': {'value': '10001'}, 'username': '', 'spec': None, 'pinned': False},
           'info': {'imageSpec': {'created': iso(ctx.clock.t, 9), 'architecture': 'amd64', 'os': 'linux',
                                  'config': {'User': '10001', 'Env': ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt'],
                                             'Entrypoint': ['/usr/local/bin/%s' % ctx.project], 'Labels': {'org.opencontainers.image.revision': gitsha(), 'org.opencontainers.image.source': 'https://github.com/%s/%s' % (ctx.org, ctx.project)}},
                                  'rootfs': {'type': 'layers', 'diff_ids': [digest() for _ in range(R.randint(3, 7) if ctx.long else 2)]}}}}
    blocks = [step(ctx, 'sudo crictl ps -a%s' % ('' if ctx.long else ' --name app'), out1, 'containers'),
              step(ctx, 'sudo crictl inspecti %s | jq%s' % (rows[0].split()[1], " '.status'" if not ctx.long else ''), jq_dump(img if ctx.long else img['status']), 'image')]
    return render(ctx, note(ctx, 'Matching the restarted container to its image digest.') if chance(0.5) else [], *blocks)


def n_kubectl_describe_pod_restarts_refs(ctx):
    name = '%s-%s-%s' % (ctx.project, hx(10)[:9], rs(LOWNUM, 5))
    ns = ctx.project
    image = '%s.dkr.ecr.us-east-1.amazonaws.com/%s:%s' % (digits(12), ctx.project, hx(7))
    out = ['Name:             %s' % name, 'Namespace:        %s' % ns, 'Priority:         0', 'Service Account:  %s' % ctx.project,
           'Node:             ip-10-0-%d-%d.ec2.internal/%s' % (R.randint(0, 9), R.randint(2, 250), ip_priv()),
           'Labels:           app=%s' % ctx.project, '                  pod-template-hash=%s' % hx(10)[:9],
           'Annotations:      checksum/config: %s' % hx(64), '                  kubectl.kubernetes.io/restartedAt: %s' % iso(ctx.clock.t, 0),
           'Status:           Running', 'IP:               %s' % ip_priv(), 'Controlled By:  ReplicaSet/%s-%s' % (ctx.project, hx(10)[:9]), 'Containers:', '  app:',
           '    Container ID:   containerd://%s' % container_id(), '    Image:          %s' % image, '    Image ID:       %s@%s' % (image.split(':')[0], digest()),
           '    Port:           8080/TCP', '    State:          Running', '      Started:      %s' % http_date(ctx.clock.t).replace(' GMT', ' +0000'),
           '    Last State:     Terminated', '      Reason:       OOMKilled', '      Exit Code:    137', '    Ready:          True', '    Restart Count:  %d' % R.randint(1, 40),
           '    Liveness:       http-get http://:8080/healthz delay=10s timeout=2s period=10s #success=1 #failure=3',
           '    Readiness:      http-get http://:8080/readyz delay=5s timeout=2s period=5s #success=1 #failure=3', '    Environment:',
           "      DATABASE_PASSWORD:  <set to the key 'password' in secret '%s-db'>  Optional: false" % ctx.project,
           "      STRIPE_SECRET_KEY:  <set to the key 'stripe-secret-key' in secret '%s-stripe'>  Optional: false" % ctx.project,
           "      REDIS_URL:          <set to the key 'url' of config map '%s-config'>  Optional: false" % ctx.project,
           '      POD_IP:              (v1:status.podIP)', '    Mounts:', '      /run/secrets/app from app-secrets (ro)',
           '      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-%s (ro)' % rs(LOWNUM, 5)]
    if ctx.long:
        out += ['Conditions:', '  Type              Status', '  Initialized       True', '  Ready             True', '  ContainersReady   True', '  PodScheduled      True',
                'Volumes:', '  app-secrets:', '    Type:        Secret (a volume populated by a Secret)', '    SecretName:  %s-app' % ctx.project, '    Optional:    false',
                '  kube-api-access-%s:' % rs(LOWNUM, 5), '    Type:                    Projected (a volume that contains injected data from multiple sources)',
                '    TokenExpirationSeconds:  3607', '    ConfigMapName:           kube-root-ca.crt', '    DownwardAPI:             true',
                'QoS Class:                   Burstable', 'Node-Selectors:              kubernetes.io/arch=amd64']
    out += ['Events:', '  Type     Reason     Age                 From     Message', '  ----     ------     ----                ----     -------',
            '  Normal   Pulled     %dm (x%d over %dh)  kubelet  Container image "%s" already present on machine' % (R.randint(1, 59), R.randint(2, 30), R.randint(1, 9), image),
            '  Warning  BackOff    %dm (x%d over %dh)  kubelet  Back-off restarting failed container app in pod %s_%s(%s)' % (R.randint(1, 59), R.randint(2, 90), R.randint(1, 9), name, ns, uuid4())]
    return render(ctx, note(ctx, 'The pod was OOMKilled; describing it. Credentials come from secretKeyRef, so only references show.') if chance(0.5) else [],
                  step(ctx, 'kubectl describe pod %s -n %s' % (name, ns), out, 'describe pod'))


def n_systemctl_show_invocation_ids(ctx):
    unit = '%s.service' % ctx.project
    enc = b64e(b'Whxqht+dQJax1aZeCGLxmiAAAAABAAAADAAAABAAAAC' + rbytes(R.randint(90, 160)))
    props = [('Type', 'notify'), ('Restart', 'on-failure'), ('MainPID', str(R.randint(300, 60000))), ('ExecMainStartTimestamp', '%s %s UTC' % (DAYS[ctx.clock.t.weekday()], sp(ctx.clock.t, 0))),
             ('InvocationID', hx(32)), ('ControlGroup', '/system.slice/%s' % unit), ('Environment', 'LOG_LEVEL=info CONFIG_FILE=/etc/%s/config.yaml GOMAXPROCS=2' % ctx.project),
             ('EnvironmentFiles', '/etc/default/%s (ignore_errors=yes)' % ctx.project), ('LoadCredential', 'db-password:/etc/credstore/%s.db' % ctx.project),
             ('SetCredentialEncrypted', 'stripe-key: %s' % enc), ('ExecStart', '{ path=/usr/local/bin/%s ; argv[]=/usr/local/bin/%s serve ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }' % (ctx.project, ctx.project)),
             ('FragmentPath', '/etc/systemd/system/%s' % unit), ('DropInPaths', '/etc/systemd/system/%s.d/override.conf' % unit), ('User', ctx.project),
             ('MemoryCurrent', str(R.randint(10 ** 7, 10 ** 9))), ('CPUUsageNSec', str(R.randint(10 ** 9, 10 ** 12))), ('TasksCurrent', str(R.randint(5, 90))),
             ('StateChangeTimestamp', '%s %s UTC' % (DAYS[ctx.clock.t.weekday()], sp(ctx.clock.t, 0))), ('ActiveState', 'active'), ('SubState', 'running'),
             ('NRestarts', str(R.randint(0, 40))), ('ProtectSystem', 'strict'), ('PrivateTmp', 'yes'), ('NoNewPrivileges', 'yes'), ('DynamicUser', 'no')]
    if not ctx.long:
        props = [p for p in props if p[0] in ('MainPID', 'InvocationID', 'Environment', 'LoadCredential', 'SetCredentialEncrypted', 'NRestarts')]
    out = ['%s=%s' % kv for kv in props]
    blocks = [step(ctx, 'systemctl show %s%s' % (unit, '' if ctx.long else ' -p MainPID,InvocationID,Environment,LoadCredential,SetCredentialEncrypted,NRestarts'), out, 'unit properties')]
    if ctx.long:
        jl_ = ['%s %s systemd[1]: Started %s - %s.' % (syslog_ts(ctx.clock.tick(1, 300)), ctx.host, unit, ctx.project) for _ in range(3)]
        jl_ += ['%s %s %s[%d]: level=info msg="credential loaded" name=%s fingerprint=sha256:%s' % (syslog_ts(ctx.clock.tick(0.1, 2)), ctx.host, ctx.project, R.randint(300, 60000), pick(['db-password', 'stripe-key']), hx(64)) for _ in range(R.randint(16, 24))]
        blocks.append(step(ctx, 'journalctl -u %s -n %d --no-pager' % (unit, len(jl_)), jl_, 'journal'))
    return render(ctx, note(ctx, 'Credentials moved to LoadCredential/SetCredentialEncrypted; checking what systemd shows for the unit.') if chance(0.5) else [], *blocks)


def n_journalctl_o_json_crash_cursor(ctx):
    boot, mach = hx(32), hx(32)
    out = []
    n = R.randint(3, 4) if ctx.long else 1
    for i in range(n):
        t = ctx.clock.tick(0.5, 30)
        us = int(epoch(t) * 1e6)
        e = {'__CURSOR': 's=%s;i=%x;b=%s;m=%x;t=%x;x=%s' % (hx(32), R.randint(10 ** 5, 10 ** 7), boot, R.randint(10 ** 9, 10 ** 11), us, hx(16)),
             '__REALTIME_TIMESTAMP': str(us), '__MONOTONIC_TIMESTAMP': str(R.randint(10 ** 9, 10 ** 12)), '_BOOT_ID': boot, '_MACHINE_ID': mach,
             '_HOSTNAME': ctx.host, 'PRIORITY': pick(['3', '6']), 'SYSLOG_FACILITY': '3', 'SYSLOG_IDENTIFIER': ctx.project, '_PID': str(R.randint(300, 60000)),
             '_UID': '998', '_GID': '998', '_COMM': ctx.project, '_EXE': '/usr/local/bin/%s' % ctx.project, '_SYSTEMD_UNIT': '%s.service' % ctx.project,
             '_SYSTEMD_INVOCATION_ID': hx(32), '_STREAM_ID': hx(32), '_TRANSPORT': 'stdout',
             'MESSAGE': pick(['panic: runtime error: index out of range [3] with length 3', 'goroutine 1 [running]:', 'level=error msg="token refresh failed" err="401 Unauthorized" request_id=%s' % ulid()])}
        out += jq_dump(e)
    return render(ctx, note(ctx, 'Pulling the crash lines as JSON to correlate with the invocation.') if chance(0.5) else [],
                  step(ctx, 'journalctl -u %s.service -o json -n %d | jq .' % (ctx.project, n), out, 'journal json'))


def n_ss_tnpie_socket_cookies(ctx):
    out = ['State  Recv-Q Send-Q   Local Address:Port    Peer Address:Port Process']
    n = R.randint(24, 34) if ctx.long else R.randint(3, 5)
    for _ in range(n):
        out.append('ESTAB  0      0        %s:%d   %s:%d users:(("%s",pid=%d,fd=%d)) timer:(keepalive,%dsec,0) uid:%d ino:%d sk:%x cgroup:/system.slice/%s.service <->' % (
            ip_priv(), port(), ip_priv(), pick([5432, 6379, 443, 9092, 8200]), ctx.project, R.randint(300, 60000), R.randint(3, 90), R.randint(1, 7200),
            pick([0, 998, 1000]), R.randint(10 ** 4, 10 ** 7), R.randint(1, 4096), ctx.project))
        if ctx.long:
            out.append('\t cubic wscale:7,7 rto:%d rtt:%.3f/%.3f ato:40 mss:%d pmtu:9001 rcvmss:%d advmss:8949 cwnd:10 bytes_sent:%d bytes_acked:%d bytes_received:%d segs_out:%d segs_in:%d data_segs_out:%d send %.1fMbps lastsnd:%d lastrcv:%d lastack:%d pacing_rate %.1fMbps delivery_rate %.1fMbps delivered:%d app_limited rcv_space:%d rcv_ssthresh:%d minrtt:%.3f snd_wnd:%d' % (
                R.randint(201, 260), R.uniform(0.1, 3), R.uniform(0.05, 2), R.choice([1448, 8949]), R.randint(500, 1448), R.randint(10 ** 3, 10 ** 8), R.randint(10 ** 3, 10 ** 8),
                R.randint(10 ** 3, 10 ** 8), R.randint(10, 10 ** 5), R.randint(10, 10 ** 5), R.randint(10, 10 ** 5), R.uniform(10, 900), R.randint(1, 90000),
                R.randint(1, 90000), R.randint(1, 90000), R.uniform(10, 900), R.uniform(1, 900), R.randint(10, 10 ** 5), R.randint(10 ** 4, 10 ** 5), R.randint(10 ** 4, 10 ** 5), R.uniform(0.05, 2), R.randint(10 ** 4, 10 ** 6)))
    return render(ctx, note(ctx, 'Listing the service sockets with their inode and cgroup to find the stuck connection.') if chance(0.5) else [],
                  step(ctx, 'sudo ss -tnp%s' % ('ie' if ctx.long else 'e'), out, 'sockets'))


def n_lsof_pid_fd_table(ctx):
    pid = R.randint(300, 60000)
    p = ctx.project[:9]
    out = ['COMMAND     PID USER   FD      TYPE             DEVICE  SIZE/OFF       NODE NAME']

    def row(fd, typ, dev, size, node, name):
        out.append('%-9s %5d %-4s %5s %9s %18s %9s %10s %s' % (p, pid, 'app', fd, typ, dev, size, node, name))
    row('cwd', 'DIR', '259,1', '4096', str(R.randint(10 ** 5, 10 ** 6)), '/app')
    row('rtd', 'DIR', '0,%d' % R.randint(40, 90), '4096', '1', '/')
    row('txt', 'REG', '0,%d' % R.randint(40, 90), str(R.randint(10 ** 6, 9 * 10 ** 7)), str(R.randint(10 ** 5, 10 ** 7)), '/usr/local/bin/%s' % ctx.project)
    libs = ['/lib/x86_64-linux-gnu/libc.so.6', '/lib/x86_64-linux-gnu/libssl.so.3', '/lib/x86_64-linux-gnu/libcrypto.so.3', '/lib/x86_64-linux-gnu/libz.so.1.2.13',
            '/lib64/ld-linux-x86-64.so.2', '/lib/x86_64-linux-gnu/libpq.so.5.16', '/lib/x86_64-linux-gnu/libgssapi_krb5.so.2.2']
    for l in (libs if ctx.long else libs[:2]):
        row('mem', 'REG', '0,%d' % R.randint(40, 90), '', str(R.randint(10 ** 5, 10 ** 7)), l)
    row('0r', 'CHR', '1,3', '0t0', '5', '/dev/null')
    row('1w', 'FIFO', '0,13', '0t0', str(R.randint(10 ** 5, 10 ** 7)), 'pipe')
    row('2w', 'FIFO', '0,13', '0t0', str(R.randint(10 ** 5, 10 ** 7)), 'pipe')
    row('3u', 'a_inode', '0,14', '0', str(R.randint(1000, 9999)), '[eventpoll:4,5,7,9]')
    row('4r', 'REG', '0,%d' % R.randint(40, 90), str(R.randint(20, 90)), str(R.randint(10 ** 5, 10 ** 7)), '/run/secrets/db_password')
    row('5r', 'REG', '0,%d' % R.randint(40, 90), str(R.randint(20, 90)), str(R.randint(10 ** 5, 10 ** 7)), '/run/secrets/stripe')
    row('6w', 'REG', '259,1', str(R.randint(10 ** 6, 10 ** 9)), str(R.randint(10 ** 5, 10 ** 7)), '/var/log/%s/app.log.1 (deleted)' % ctx.project)
    n = R.randint(28, 46) if ctx.long else 3
    for i in range(n):
        row('%du' % (7 + i), pick(['IPv4', 'IPv6', 'unix']), '0x%s' % hx(16), '0t0', pick(['TCP', 'UDP', str(R.randint(10 ** 5, 10 ** 7))]),
            pick(['%s:%d->%s:%d (ESTABLISHED)' % (ctx.host, port(), ip_priv(), pick([5432, 6379, 443])), '*:8080 (LISTEN)', 'type=STREAM (CONNECTED)', 'localhost:%d->localhost:4317 (ESTABLISHED)' % port()]))
    return render(ctx, note(ctx, 'Checking which files and sockets the process holds; the deleted log file is still open.') if chance(0.5) else [],
                  step(ctx, 'sudo lsof -nP -p %d' % pid, out, 'open files'))


def n_jcmd_sysprops_changeit_truststore(ctx):
    pid = R.randint(1, 60000)
    db = ctx.project.replace('-', '_')
    c = ctx.clock
    props = [('awt.toolkit', 'sun.awt.X11.XToolkit'), ('file.encoding', 'UTF-8'), ('java.class.path', '/app/app.jar'), ('java.home', '/opt/java/openjdk'),
             ('java.runtime.version', '17.0.11+9'), ('java.vendor', 'Eclipse Adoptium'), ('java.vm.name', 'OpenJDK 64-Bit Server VM'),
             ('javax.net.ssl.trustStore', '/opt/java/openjdk/lib/security/cacerts'), ('javax.net.ssl.trustStorePassword', 'changeit'),
             ('javax.net.ssl.trustStoreType', 'PKCS12'), ('jdk.tls.client.protocols', 'TLSv1.2,TLSv1.3'), ('os.name', 'Linux'),
             ('spring.config.import', 'optional\\:configtree\\:/run/secrets/'), ('spring.datasource.url', 'jdbc\\:postgresql\\://db.internal\\:5432/%s' % db),
             ('spring.datasource.username', db), ('spring.datasource.password', '${DB_PASSWORD}'), ('spring.profiles.active', 'prod'),
             ('sun.java.command', '/app/app.jar'), ('user.dir', '/app'), ('user.name', 'app'), ('user.timezone', 'UTC')]
    out = ['%d:' % pid, '#%s %s %02d %s UTC %d' % (DAYS[c.t.weekday()], MONTHS[c.t.month - 1], c.t.day, hms(c.t), c.t.year)] + ['%s=%s' % kv for kv in props]
    blocks = [step(ctx, 'jcmd %d VM.system_properties' % pid, out, 'JVM properties')]
    if ctx.long:
        flags = ['%d:' % pid, '-XX:CICompilerCount=%d -XX:ConcGCThreads=1 -XX:G1ConcRefinementThreads=2 -XX:G1EagerReclaimRemSetThreshold=12 -XX:G1HeapRegionSize=1048576 -XX:InitialHeapSize=%d -XX:MarkStackSize=4194304 -XX:MaxHeapSize=%d -XX:MaxNewSize=%d -XX:MinHeapDeltaBytes=1048576 -XX:MinHeapSize=8388608 -XX:NonNMethodCodeHeapSize=5836800 -XX:NonProfiledCodeHeapSize=122910720 -XX:ProfiledCodeHeapSize=122910720 -XX:ReservedCodeCacheSize=251658240 -XX:+SegmentedCodeCache -XX:SoftMaxHeapSize=%d -XX:+UseCompressedClassPointers -XX:+UseCompressedOops -XX:+UseG1GC' % (
            pick([2, 3]), R.randint(10 ** 7, 10 ** 8), R.randint(10 ** 9, 4 * 10 ** 9), R.randint(10 ** 8, 10 ** 9), R.randint(10 ** 9, 4 * 10 ** 9))]
        blocks.append(step(ctx, 'jcmd %d VM.flags' % pid, flags, 'JVM flags'))
        th = ['%d:' % pid, '%s' % sp(c.t, 0), 'Full thread dump OpenJDK 64-Bit Server VM (17.0.11+9 mixed mode, sharing):', '']
        for i in range(R.randint(5, 8)):
            th += ['"%s" #%d prio=5 os_prio=0 cpu=%.2fms elapsed=%.2fs tid=0x00007f%s nid=%d waiting on condition  [0x00007f%s]' % (
                pick(['http-nio-8080-exec-%d' % R.randint(1, 10), 'HikariPool-1 housekeeper', 'kafka-coordinator-heartbeat-thread', 'scheduling-1']), R.randint(10, 90), R.uniform(1, 9000),
                R.uniform(10, 90000), hx(10), R.randint(100, 9000), hx(10)), '   java.lang.Thread.State: TIMED_WAITING (parking)',
                   '\tat jdk.internal.misc.Unsafe.park(java.base@17.0.11/Native Method)', '\t- parking to wait for  <0x00000000%s> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)' % hx(8), '']
        blocks.append(step(ctx, 'jcmd %d Thread.print | head -n %d' % (pid, len(th)), th, 'threads'))
    return render(ctx, note(ctx, 'Checking JVM properties; only the JDK default truststore password shows, the datasource password is a placeholder.') if chance(0.5) else [], *blocks)


def n_node_inspect_debugger_request_ids(ctx):
    out = ['< Debugger listening on ws://127.0.0.1:9229/%s' % uuid4(), '< For help, see: https://nodejs.org/en/docs/inspector', '<', '< Debugger attached.', '<',
           'connecting to 127.0.0.1:9229 ... ok', 'debug> exec process.env.SESSION_SECRET', 'undefined',
           "debug> exec require('./dist/config').default.stripe", "{ apiVersion: '2024-04-10', keyFile: '/run/secrets/stripe', maxNetworkRetries: 2 }",
           'debug> exec req.headers',
           "{\n  host: 'api.%s',\n  'x-request-id': '%s',\n  traceparent: '%s',\n  'x-forwarded-for': '%s',\n  'user-agent': 'okhttp/4.12.0',\n  'if-none-match': 'W/\"%s\"'\n}" % (ctx.domain, uuid4(), traceparent(), ip_pub(), hx(20)),
           'debug> exec req.session.id', "'%s'" % ('[redacted]' if chance(0.5) else '<hidden>'), 'debug> exec crypto.randomUUID()', "'%s'" % uuid4()]
    if ctx.long:
        for _ in range(R.randint(8, 14)):
            out += ['debug> exec req.user', "{ id: %d, tenant: '%s', roles: [ '%s' ], sessionVersion: %d }" % (R.randint(1, 99999), uuid4(), pick(['admin', 'viewer', 'billing']), R.randint(1, 9))]
        out += ['debug> bt'] + ['#%d %s dist/%s.js:%d:%d' % (i, pick(['handler', 'next', 'dispatch', 'authenticate']), pick(['routes/orders', 'middleware/auth', 'server']), R.randint(10, 400), R.randint(1, 40)) for i in range(8)]
    out.append('debug> .exit')
    out = '\n'.join(out).split('\n')
    return render(ctx, note(ctx, 'Inspecting the live request in the debugger; the session id accessor is redacted by our middleware.') if chance(0.5) else [],
                  step(ctx, 'node inspect -p $(pgrep -f "node dist/server.js")', out, 'node inspector'))


def n_py_spy_dump_idle_threads(ctx):
    pid = R.randint(1000, 60000)
    mod = ctx.project.replace('-', '_')
    out = ['Process %d: /app/.venv/bin/python -m gunicorn %s.wsgi -w 4' % (pid, mod), 'Python v3.11.9 (/usr/local/bin/python3.11)', '']
    n = R.randint(4, 7) if ctx.long else 1
    for i in range(n):
        out += ['Thread %d (%s): "%s"' % (pid + i, pick(['idle', 'active']), pick(['MainThread', 'ThreadPoolExecutor-0_%d' % i, 'Thread-%d (run)' % i])),
                '    wait (threading.py:331)', '        Arguments:', '            self: <Condition at %s>' % addr_py(), '            timeout: None',
                '        Locals:', '            waiter: <lock at %s>' % addr_py(), '    result (concurrent/futures/_base.py:451)',
                '    export_batch (%s/export.py:%d)' % (mod, R.randint(20, 200)), '        Arguments:', '            batch_id: "%s"' % uuid4(),
                '            tenant_id: %d' % R.randint(1, 9999), '        Locals:', '            digest: "%s"' % hx(64), '            etag: "%s"' % hx(32),
                '            api_key: SecretStr(\'**********\')', '            rows: %d' % R.randint(0, 10 ** 5), '']
    return render(ctx, note(ctx, 'Dumping the gunicorn worker stacks with locals while the export hangs.') if chance(0.5) else [],
                  step(ctx, 'sudo py-spy dump --pid %d --locals' % pid, out, 'py-spy'))


def n_dlv_goroutines_bt_addresses(ctx):
    pid = R.randint(1000, 60000)
    out = ["Type 'help' for list of commands.", '(dlv) goroutines']
    n = R.randint(25, 45) if ctx.long else R.randint(4, 8)
    for _ in range(n):
        out.append('  Goroutine %d - User: %s (0x%s) [%s]' % (R.randint(1, 900), pick(['/usr/local/go/src/runtime/netpoll.go:345 internal/poll.runtime_pollWait', '/usr/local/go/src/runtime/proc.go:402 runtime.gopark',
                                                                             '/usr/local/go/src/runtime/sema.go:71 sync.runtime_SemacquireMutex', '/src/internal/cache/cache.go:%d main.(*Cache).evict' % R.randint(20, 200)]),
                                                          hx(6), pick(['IO wait', 'select', 'chan receive', 'semacquire', 'sleep'])))
    out.append('[%d goroutines]' % R.randint(n, 900))
    out += ['(dlv) goroutine 1 bt']
    for i in range(6 if ctx.long else 3):
        out += ['%d  0x0000000000%s in %s' % (i, hx(6), pick(['runtime.gopark', 'runtime.netpollblock', 'internal/poll.runtime_pollWait', 'net.(*netFD).accept', 'net/http.(*Server).Serve', 'main.main'])),
                '   at %s:%d' % (pick(['/usr/local/go/src/runtime/proc.go', '/usr/local/go/src/net/fd_unix.go', '/usr/local/go/src/net/http/server.go', '/src/cmd/%s/main.go' % ctx.project]), R.randint(20, 3000))]
    out += ['(dlv) print cfg.Redis.Addr', '"redis-master.%s.svc:6379"' % ctx.project, '(dlv) print cfg.CredentialsDir', '"/run/secrets"', '(dlv) print len(cfg.StripeKey)', '0', '(dlv) exit',
            'Would you like to kill the process? [Y/n] n']
    return render(ctx, note(ctx, 'Listing goroutines in the hung process.') if chance(0.5) else [],
                  step(ctx, 'dlv attach %d' % pid, out, 'delve'))


def n_tshark_v_tls_client_hello(ctx):
    host = pick(['api.stripe.com', 'api.%s' % ctx.domain, 'hooks.slack.com', 'oauth2.googleapis.com'])
    cli, srv = ip_priv(), ip_pub()
    out = tshark_frame_head(ctx, R.randint(3, 40), cli, srv, port(), 443, R.randint(300, 600))
    kx = rbytes(32)
    out += ['Transport Layer Security', '    TLSv1.3 Record Layer: Handshake Protocol: Client Hello', '        Content Type: Handshake (22)', '        Version: TLS 1.0 (0x0301)',
            '        Length: %d' % R.randint(250, 600), '        Handshake Protocol: Client Hello', '            Handshake Type: Client Hello (1)',
            '            Length: %d' % R.randint(250, 600), '            Version: TLS 1.2 (0x0303)', '            Random: %s' % hx(64),
            '            Session ID Length: 32', '            Session ID: %s' % hx(64), '            Cipher Suites Length: 62', '            Cipher Suites (31 suites)',
            '                Cipher Suite: TLS_AES_256_GCM_SHA384 (0x1302)', '                Cipher Suite: TLS_CHACHA20_POLY1305_SHA256 (0x1303)',
            '                Cipher Suite: TLS_AES_128_GCM_SHA256 (0x1301)', '                Cipher Suite: TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 (0xc02c)',
            '            Compression Methods Length: 1', '            Extension: server_name (len=%d) name=%s' % (len(host) + 5, host),
            '                Type: server_name (0)', '                Server Name Indication extension', '                    Server Name: %s' % host,
            '            Extension: supported_groups (len=22)', '                Supported Groups (10 groups)', '                    Supported Group: x25519 (0x001d)',
            '            Extension: key_share (len=38) x25519', '                Key Share extension', '                    Client Key Share Length: 36',
            '                    Key Share Entry: Group: x25519, Key Exchange length: 32', '                        Group: x25519 (29)',
            '                        Key Exchange Length: 32', '                        Key Exchange: %s' % kx.hex(),
            '            Extension: application_layer_protocol_negotiation (len=14)', '                ALPN Protocol', '                    ALPN Next Protocol: h2',
            '                    ALPN Next Protocol: http/1.1',
            '            [JA4: t13d3112h2_%s_%s]' % (hx(12), hx(12))] + ([] if not ctx.long else ['            [JA4_r: t13d3112h2_002f,0035,009c,009d,1301,1302,1303,c02b,c02c,c02f,c030,cca8,cca9_000a,000b,000d,0017,001b,0023,002b,002d,0033_0403,0503,0603,0804,0805,0806,0401,0501,0601]',
            '            [JA3 Fullstring: 771,4866-4867-4865-49196-49200-159-52393-52392-52394-49195-49199-158-49188-49192-107-49187-49191-103-49162-49172-57-49161-49171-51-157-156-61-60-53-47-255,0-11-10-35-16-22-23-49-13-43-45-51-21,29-23-30-25-24-256-257-258-259-260,0-1-2]',
            ]) + ['            [JA3: %s]' % hx(32), '']
    if not ctx.long:
        out = [l for l in out if 'Cipher Suite:' not in l and 'Ethernet II' not in l]
    if ctx.long:
        out += tshark_frame_head(ctx, R.randint(41, 90), srv, cli, 443, port(), 1500)
        out += ['Transport Layer Security', '    TLSv1.3 Record Layer: Handshake Protocol: Server Hello', '        Content Type: Handshake (22)',
                '        Handshake Protocol: Server Hello', '            Random: %s' % hx(64), '            Session ID: %s' % hx(64),
                '            Cipher Suite: TLS_AES_128_GCM_SHA256 (0x1301)', '            Extension: key_share (len=36) x25519',
                '                Key Share extension', '                    Key Share Entry: Group: x25519, Key Exchange length: 32',
                '                        Key Exchange: %s' % rbytes(32).hex(), '            Extension: supported_versions (len=2) TLS 1.3', '            [JA3S Fullstring: 771,4865,43-51]',
                '            [JA3S: %s]' % hx(32), '    TLSv1.3 Record Layer: Change Cipher Spec Protocol: Change Cipher Spec', '        Content Type: Change Cipher Spec (20)',
                '    TLSv1.3 Record Layer: Application Data Protocol: Hypertext Transfer Protocol', '        Opaque Type: Application Data (23)',
                '        Version: TLS 1.2 (0x0303)', '        Length: %d' % R.randint(1000, 4000), '        Encrypted Application Data: %s…' % hx(96),
                '        [Application Data Protocol: Hypertext Transfer Protocol]']
    return render(ctx, note(ctx, 'No keylog file for this capture, so only the handshake is readable; checking the SNI and JA3.') if chance(0.5) else [],
                  step(ctx, "tshark -r /tmp/egress.pcapng -Y 'tls.handshake.type in {1 2}' -V -O tls%s" % (' -c 2' if ctx.long else ' -c 1'), out, 'tls handshake'))


def n_tcpdump_a_internal_api_ids(ctx):
    out = ['tcpdump: verbose output suppressed, use -v[v]... for full protocol decode', 'listening on eth0, link-type EN10MB (Ethernet), snapshot length 262144 bytes']
    n = R.randint(4, 7) if ctx.long else 1
    for i in range(n):
        cli, srv = '%s.%d' % (ip_priv(), port()), '%s.8080' % ip_priv()
        path = pick(['/healthz', '/metrics', '/v1/orders/%d' % R.randint(1, 99999), '/v1/jobs/%s' % uuid4()])
        req = 'GET %s HTTP/1.1\nHost: %s\nUser-Agent: kube-probe/1.29\nX-Request-Id: %s\ntraceparent: %s\nAccept: */*\n' % (path, srv.rsplit('.', 1)[0], uuid4(), traceparent())
        out += tcpdump_pkt(ctx, cli, srv, (R.randint(1, 200), R.randint(1, 200)), req.split('\n'), 'HTTP', 'GET %s HTTP/1.1' % path, len(req) + req.count('\n'))
        body = jl({'id': R.randint(1, 99999), 'status': pick(['ok', 'pending']), 'etag': hx(32), 'updated_at': iso(ctx.clock.t)})
        resp = 'HTTP/1.1 200 OK\nContent-Type: application/json\nETag: "%s"\nX-Request-Id: %s\nContent-Length: %d\n\n%s' % (hx(32), uuid4(), len(body), body)
        out += tcpdump_pkt(ctx, srv, cli, (R.randint(1, 200), R.randint(1, 200)), resp.split('\n'), 'HTTP', 'HTTP/1.1 200 OK', len(resp) + resp.count('\n'))
    return render(ctx, note(ctx, 'Capturing the probe traffic on port 8080; nothing here carries credentials.') if chance(0.5) else [],
                  step(ctx, "sudo tcpdump -i eth0 -nn -A -s0 'tcp port 8080 and (tcp[tcpflags] & tcp-push != 0)' -c %d" % (2 * n), out, 'capture'))


def n_ngrep_html_csp_nonce_csrf(ctx):
    cli, srv = '%s:%d' % (ip_pub(), port()), '%s:80' % ip_priv()
    seq = [R.randint(1, 40)]

    def pn():
        seq[0] += R.randint(1, 6)
        return seq[0]
    nonce = b64e(rbytes(16))
    csrf = rs(B64U, 86)
    out = ['interface: eth0 (%s/255.255.255.0)' % ip_priv(), 'filter: ( port 80 ) and ((ip || ip6) || (vlan && (ip || ip6)))', '',
           'T %s -> %s [AP] #%d' % (cli, srv, pn()), 'GET /login HTTP/1.1.', 'Host: app.%s.' % ctx.domain, 'User-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64).',
           'Accept: text/html,application/xhtml+xml.', 'Cookie: _ga=GA1.1.%d.%d; _gid=GA1.1.%d.%d.' % (R.randint(10 ** 8, 10 ** 9), R.randint(10 ** 9, 2 * 10 ** 9), R.randint(10 ** 8, 10 ** 9), R.randint(10 ** 9, 2 * 10 ** 9)), '.', '',
           'T %s -> %s [AP] #%d' % (srv, cli, pn()), 'HTTP/1.1 200 OK.', 'Content-Type: text/html; charset=utf-8.',
           "Content-Security-Policy: default-src 'self'; script-src 'self' 'nonce-%s' 'strict-dynamic'; object-src 'none'; base-uri 'none'." % nonce,
           'Set-Cookie: csrftoken=%s; expires=%s; Max-Age=31449600; Path=/; SameSite=Lax.' % (rs(ALNUM, 32), http_date(ctx.clock.t + timedelta(days=364))),
           'X-Request-Id: %s.' % uuid4(), 'ETag: W/"%s".' % hx(16), '.', '<!doctype html>', '<html lang="%s">' % pick(['en', 'ja', 'zh']),
           '<head><meta charset="utf-8"><meta name="csrf-token" content="%s">' % csrf, '<script nonce="%s" src="/static/app.%s.js" integrity="sha384-%s" crossorigin="anonymous"></script>' % (nonce, hx(8), b64e(rbytes(48))),
           '</head><body><form method="post" action="/login">', '<input type="hidden" name="authenticity_token" value="%s" autocomplete="off">' % csrf,
           '<input type="email" name="email"><input type="password" name="password" autocomplete="current-password">', '</form></body></html>']
    if ctx.long:
        for i in range(R.randint(5, 8)):
            out += ['', 'T %s -> %s [AP] #%d' % (cli, srv, pn()), 'GET /static/%s.%s.%s HTTP/1.1.' % (pick(['app', 'vendor', 'runtime']), hx(8), pick(['js', 'css'])),
                    'Host: app.%s.' % ctx.domain, 'If-None-Match: W/"%s".' % hx(16), '.', '', 'T %s -> %s [AP] #%d' % (srv, cli, pn()), 'HTTP/1.1 304 Not Modified.',
                    'ETag: W/"%s".' % hx(16), 'Cache-Control: public, max-age=31536000, immutable.', '.']
    return render(ctx, note(ctx, 'Sniffing the login page over plain HTTP on the internal listener; only the CSP nonce and CSRF tokens are random here.') if chance(0.5) else [],
                  step(ctx, 'sudo ngrep -d eth0 -W byline -q port 80%s' % (' | head -n 140' if ctx.long else ''), out, 'ngrep'))


def n_mitmdump_ws_handshake_keys(ctx):
    c = ctx.clock
    cli = '127.0.0.1:%d' % port()
    host = pick(['ws.%s' % ctx.domain, 'stream.binance.com', 'ws.kraken.com', 'push.%s' % ctx.domain])
    out = ['[%s] HTTP(S) proxy listening at *:8080.' % hms(c.t, 3), '[%s][%s] client connect' % (hms(c.tick(), 3), cli),
           '[%s][%s] server connect %s:443 (%s:443)' % (hms(c.tick(), 3), cli, host, ip_pub()), '%s: GET https://%s/ws?v=2' % (cli, host),
           '    Host: %s' % host, '    Upgrade: websocket', '    Connection: Upgrade', '    Sec-WebSocket-Key: %s' % b64e(rbytes(16)), '    Sec-WebSocket-Version: 13',
           ' << 101 Switching Protocols 0b', '    Upgrade: websocket', '    Connection: Upgrade', '    Sec-WebSocket-Accept: %s' % b64e(rbytes(20))]
    n = R.randint(16, 28) if ctx.long else R.randint(2, 4)
    for i in range(n):
        d = pick(['->', '<-'])
        msg = pick(['{"op":"subscribe","channel":"orders","id":"%s"}' % uuid4(), '{"type":"ping","ts":%d}' % int(epoch(c.tick()) * 1000),
                    '{"event":"order.updated","id":"ord_%s","seq":%d,"etag":"%s"}' % (rs(ALNUM, 14), R.randint(1, 10 ** 6), hx(16)),
                    '{"type":"ack","session_id":"%s","seq":%d}' % (hx(32), R.randint(1, 10 ** 6))])
        out += ['%s: WebSocket text message %s %s' % (cli, d, host), '    ' + msg]
    out.append('[%s][%s] client disconnect' % (hms(c.tick(), 3), cli))
    return render(ctx, note(ctx, 'Watching the public websocket feed through mitmdump; the handshake keys are per-connection nonces.') if chance(0.5) else [],
                  step(ctx, 'mitmdump -p 8080 --set flow_detail=2', out, 'mitmdump'))


def n_tshark_pgsql_scram_exchange(ctx):
    cli, srv = ip_priv(), ip_priv()
    sport = port()
    user = pick(['app', 'grafana_ro', ctx.project.replace('-', '_')])
    cn = b64e(rbytes(18))
    sn = cn + b64e(rbytes(18))
    salt = b64e(rbytes(16))
    out = []
    if ctx.long:
        out = tshark_frame_head(ctx, R.randint(3, 30), cli, srv, sport, 5432, 120)
        out += ['PostgreSQL', '    Type: Startup message', '    Parameter name: user', '    Parameter value: %s' % user, '    Parameter name: database', '    Parameter value: %s' % user, '']
    out += tshark_frame_head(ctx, R.randint(31, 40), srv, cli, 5432, sport, 90)
    out += ['PostgreSQL', '    Type: Authentication request', '    Length: 23', '    Authentication type: SASL (10)', '    SASL authentication mechanism: SCRAM-SHA-256', '']
    out += tshark_frame_head(ctx, R.randint(41, 50), cli, srv, sport, 5432, 120)
    out += ['PostgreSQL', '    Type: SASLInitialResponse message', '    SASL authentication mechanism: SCRAM-SHA-256', '    SASL data length: 32',
            '    SASL data: n,,n=,r=%s' % cn, '']
    out += tshark_frame_head(ctx, R.randint(51, 60), srv, cli, 5432, sport, 160)
    out += ['PostgreSQL', '    Type: Authentication request', '    Authentication type: SASL continue (11)', '    SASL data: r=%s,s=%s,i=4096' % (sn, salt), '']
    out += tshark_frame_head(ctx, R.randint(61, 70), cli, srv, sport, 5432, 170)
    out += ['PostgreSQL', '    Type: SASLResponse message', '    SASL data: c=biws,r=%s,p=%s' % (sn, b64e(rbytes(32))), '']
    out += tshark_frame_head(ctx, R.randint(71, 80), srv, cli, 5432, sport, 150)
    out += ['PostgreSQL', '    Type: Authentication request', '    Authentication type: SASL final (12)', '    SASL data: v=%s' % b64e(rbytes(32))]
    if ctx.long:
        out += ['PostgreSQL', '    Type: Authentication request', '    Authentication type: Success (0)']
        for pn, pv in [('application_name', 'psql'), ('client_encoding', 'UTF8'), ('DateStyle', 'ISO, MDY'), ('server_version', '16.2'), ('TimeZone', 'Etc/UTC')]:
            out += ['PostgreSQL', '    Type: Parameter status', '    Parameter name: %s' % pn, '    Parameter value: %s' % pv]
        out += ['PostgreSQL', '    Type: Backend key data', '    PID: %d' % R.randint(1000, 60000), '    Key: %d' % R.randint(10 ** 8, 2 * 10 ** 9), 'PostgreSQL', '    Type: Ready for query', '    Status: Idle (73)']
    return render(ctx, note(ctx, 'Confirming the pooler now uses SCRAM: the capture shows nonces, the salt and the proof, never the password.') if chance(0.5) else [],
                  step(ctx, 'tshark -r /tmp/pg-scram.pcap -Y pgsql -V -O pgsql', out, 'tshark decode'))


def n_sysdig_echo_fds_healthchecks(ctx):
    proc = pick(['envoy', 'app', 'node'])
    me = ip_priv()
    out = []
    n = R.randint(6, 10) if ctx.long else 1
    for _ in range(n):
        body = jl({'status': 'pass', 'checks': {'db': {'status': 'pass', 'latency_ms': R.randint(1, 40)}, 'cache': {'status': 'pass'}}, 'version': gitsha()[:12], 'instance': uuid4()})
        out += ['------ Read %dB from %s:%d->%s:8080 (%s)' % (R.randint(90, 160), ip_priv(), port(), me, proc), 'GET /healthz HTTP/1.1', 'Host: %s:8080' % me,
                'User-Agent: kube-probe/1.29', 'Accept: */*', 'Connection: close', '',
                '------ Write %dB to %s:8080->%s:%d (%s)' % (len(body) + 110, me, ip_priv(), port(), proc), 'HTTP/1.1 200 OK', 'Content-Type: application/health+json',
                'X-Request-Id: %s' % uuid4(), 'Content-Length: %d' % len(body), '', body]
    return render(ctx, note(ctx, 'Checking what the probe exchanges look like with sysdig.') if chance(0.5) else [],
                  step(ctx, 'sudo sysdig -A -c echo_fds proc.name=%s and fd.port=8080' % proc, out, 'sysdig'))


def n_sslsniff_jwks_fetch_public_keys(ctx):
    comm = pick(['node', 'python3', 'java'])
    pid = R.randint(1000, 60000)
    host = pick(['auth.%s' % ctx.domain, '%s.auth0.com' % ctx.org, 'login.microsoftonline.com', 'www.googleapis.com'])
    path = '/.well-known/jwks.json' if 'microsoft' not in host and 'google' not in host else ('/common/discovery/v2.0/keys' if 'microsoft' in host else '/oauth2/v3/certs')
    req = ['GET %s HTTP/1.1' % path, 'Host: %s' % host, 'User-Agent: %s' % pick(UA_PY + UA_NODE), 'Accept: application/json', 'Connection: keep-alive', '']
    keys = []
    for _ in range(R.randint(2, 3) if ctx.long else 1):
        keys.append({'kty': 'RSA', 'use': 'sig', 'alg': 'RS256', 'kid': rs(B64U, 27) if chance(0.5) else hx(40),
                     'n': b64u(b'\xc1' + rbytes(255)), 'e': 'AQAB', 'x5t': rs(B64U, 27)})
    body = jq_dump({'keys': keys})
    out = ['FUNC         TIME(s)            COMM             PID     LEN    ',
           'WRITE/SEND   %-18.9f %-16s %-7d %d' % (R.uniform(0, 2), comm, pid, sum(len(l) + 2 for l in req)), '----- DATA -----'] + req + ['----- END DATA -----', '',
           'READ/RECV    %-18.9f %-16s %-7d %d' % (R.uniform(2, 3), comm, pid, R.randint(1000, 4000)), '----- DATA -----', 'HTTP/1.1 200 OK',
           'Content-Type: application/json; charset=utf-8', 'Cache-Control: public, max-age=%d' % pick([3600, 21600, 86400]), 'ETag: "%s"' % hx(32),
           'Date: %s' % http_date(ctx.clock.t), '']
    out += body + ['----- END DATA -----']
    if ctx.long:
        out += ['', 'WRITE/SEND   %-18.9f %-16s %-7d %d' % (R.uniform(3, 9), comm, pid, 120), '----- DATA -----', 'GET /.well-known/openid-configuration HTTP/1.1', 'Host: %s' % host, '', '----- END DATA -----']
    return render(ctx, note(ctx, 'The token verifier refetches the JWKS on every request; sslsniff shows the key set it downloads.') if chance(0.5) else [],
                  step(ctx, 'sudo /usr/share/bcc/tools/sslsniff -p %d' % pid, out, 'sslsniff'))


def n_varnishlog_cache_hits_vxids(ctx):
    out = []
    n = R.randint(3, 4) if ctx.long else 1
    for i in range(n):
        vxid = R.randint(10 ** 4, 10 ** 7)
        t = epoch(ctx.clock.tick(0.1, 5))
        url = pick(['/static/app.%s.js' % hx(8), '/api/v2/catalog?page=%d' % R.randint(1, 9), '/img/%s.webp' % hx(16)])
        recs = [('Begin', 'req %d rxreq' % (vxid - 1)), ('Timestamp', 'Start: %.6f 0.000000 0.000000' % t), ('ReqStart', '%s %d a0' % (ip_priv(), port())),
                ('ReqMethod', 'GET'), ('ReqURL', url), ('ReqProtocol', 'HTTP/1.1'), ('ReqHeader', 'Host: shop.%s' % ctx.domain),
                ('ReqHeader', 'Cookie: _ga=GA1.2.%d.%d; _gid=GA1.2.%d.%d' % (R.randint(10 ** 8, 10 ** 9), R.randint(10 ** 9, 2 * 10 ** 9), R.randint(10 ** 8, 10 ** 9), R.randint(10 ** 9, 2 * 10 ** 9))),
                ('ReqHeader', 'If-None-Match: W/"%s"' % hx(16)), ('ReqHeader', 'X-Request-Id: %s' % uuid4()), ('VCL_call', 'RECV'),
                ('ReqUnset', 'Cookie: _ga=GA1.2.%d.%d' % (R.randint(10 ** 8, 10 ** 9), R.randint(10 ** 9, 2 * 10 ** 9))), ('VCL_return', 'hash'),
                ('VCL_call', 'HASH'), ('VCL_return', 'lookup'), ('Hit', '%d %.6f 10.000000 0.000000' % (R.randint(10 ** 4, 10 ** 7), R.uniform(100, 86400))),
                ('VCL_call', 'HIT'), ('VCL_return', 'deliver'), ('RespProtocol', 'HTTP/1.1'), ('RespStatus', pick(['200', '304'])),
                ('RespHeader', 'ETag: W/"%s"' % hx(16)), ('RespHeader', 'X-Varnish: %d %d' % (vxid, R.randint(10 ** 4, 10 ** 7))), ('RespHeader', 'Age: %d' % R.randint(1, 86400)),
                ('RespHeader', 'Via: 1.1 %s (Varnish/7.4)' % ctx.host), ('VCL_call', 'DELIVER'), ('VCL_return', 'deliver'),
                ('Timestamp', 'Resp: %.6f 0.000132 0.000097' % t), ('ReqAcct', '%d 0 %d %d %d %d' % (R.randint(300, 900), R.randint(300, 900), R.randint(200, 400), R.randint(20, 90000), R.randint(200, 90000))), ('End', '')]
        out.append('*   << Request  >> %d' % vxid)
        out += ['-   %-14s %s' % r for r in recs]
        out.append('')
    return render(ctx, note(ctx, 'Checking the cache hits for the static assets; the cookies here are analytics only.') if chance(0.5) else [],
                  step(ctx, "sudo varnishlog -g request -q 'VCL_call eq \"HIT\"' %s" % ('-k %d' % n), out, 'varnishlog'))


def n_zap_json_trace_span_ids(ctx):
    c = ctx.clock
    out = []
    n = R.randint(45, 80) if ctx.long else R.randint(4, 9)
    for _ in range(n):
        st = pick([200, 200, 201, 204, 401, 404, 500])
        out.append(jl({'level': 'info' if st < 500 else 'error', 'ts': round(epoch(c.tick(0.001, 3)), 6), 'caller': 'http/middleware.go:%d' % R.randint(40, 90),
                       'msg': 'request', 'method': pick(['GET', 'POST']), 'path': rpath(), 'status': st, 'latency': '%.3fms' % R.uniform(0.2, 900),
                       'trace_id': trace_id(), 'span_id': span_id(), 'request_id': ulid(), 'user_id': R.randint(1, 99999),
                       'auth': pick(['bearer', 'session', 'none']), 'key_id': 'kid_' + hx(8) if chance(0.3) else None}))
    return render(ctx, note(ctx, 'Reading the request logs around the 401 spike; they only log auth type and key id.') if chance(0.5) else [],
                  step(ctx, 'kubectl logs deploy/%s -c app --since=15m | tail -n %d' % (ctx.project, n), out, 'pod logs'))


def n_logcli_query_masked_auth_lines(ctx):
    c = ctx.clock
    app = ctx.project
    q = '{namespace="prod", app="%s"} |~ "(?i)authorization"' % app
    out = ['%s http://loki-gateway.monitoring:80/loki/api/v1/query_range?direction=BACKWARD&end=%d&limit=100&query=%s&start=%d' % (
        slash_ts(c.t), int(epoch(c.t) * 1e9), quote(q, safe=''), int((epoch(c.t) - 7200) * 1e9)), '%s Common labels: {app="%s", namespace="prod"}' % (slash_ts(c.t), app)]
    n = R.randint(45, 80) if ctx.long else R.randint(4, 9)
    lines = []
    for _ in range(n):
        pod = '%s-%s-%s' % (app, hx(10)[:9], rs(LOWNUM, 5))
        msg = pick(['level=info msg="inbound" path=%s authorization=[REDACTED] status=200' % rpath(),
                    '{"level":"info","msg":"request","headers":{"authorization":"Bearer ***","x-request-id":"%s"},"status":%d}' % (uuid4(), pick([200, 401])),
                    'level=warn msg="invalid Authorization scheme" scheme=Basic path=%s' % rpath(),
                    'level=debug msg="authorization ok" sub=user:%d kid=%s alg=RS256 exp_in=%ds' % (R.randint(1, 99999), hx(16), R.randint(10, 3600)),
                    'level=info msg="outbound" url=https://api.hubapi.com/crm/v3 authorization=<masked> status=200'])
        lines.append('%s {container="app", pod="%s"} %s' % (iso(c.tick(1, 90), 0), pod, msg))
    lines.reverse()
    out += lines
    return render(ctx, note(ctx, 'Re-running the Loki search after the redaction fix; every auth header should be masked now.') if chance(0.5) else [],
                  step(ctx, "logcli query --since=2h --limit=100 '%s'" % q, out, 'loki query'))


def n_otel_span_attrs_redacted_headers(ctx):
    c = ctx.clock
    tid = trace_id()
    out = ['%s\tinfo\tTracesExporter\t{"kind": "exporter", "data_type": "traces", "name": "debug", "resource spans": 1, "spans": 2}' % iso(c.t),
           '%s\tinfo\tResourceSpans #0' % iso(c.t), 'Resource SchemaURL: https://opentelemetry.io/schemas/1.24.0', 'Resource attributes:',
           otel_attr('service.name', ctx.project), otel_attr('telemetry.sdk.language', 'go'), otel_attr('host.name', ctx.host)]
    spans = [('POST /v1/payments', 'Server', [('http.request.method', 'POST'), ('url.path', '/v1/payments'), ('http.request.header.authorization', ['REDACTED']),
                                               ('http.request.header.x_request_id', [uuid4()]), ('http.response.status_code', 201), ('user_agent.original', 'okhttp/4.12.0')]),
             ('INSERT payments', 'Client', [('db.system', 'postgresql'), ('db.statement', 'INSERT INTO payments (id, amount, token_fp) VALUES ($1, $2, $3)'),
                                            ('db.name', ctx.project.replace('-', '_')), ('server.address', 'db.internal'), ('server.port', 5432)])]
    if ctx.long:
        for _ in range(R.randint(3, 5)):
            spans.append(('GET', 'Client', [('http.request.method', 'GET'), ('url.full', 'https://api.%s/v1/rates?currency=%s' % (ctx.domain, pick(['usd', 'eur', 'jpy']))),
                                            ('http.request.header.authorization', ['REDACTED']), ('http.response.status_code', 200), ('server.address', 'api.%s' % ctx.domain)]))
    parent = span_id()
    for i, (name, kind, attrs) in enumerate(spans):
        st = c.tick(0.001, 0.3)
        out += ['ScopeSpans #%d' % i, 'InstrumentationScope go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp 0.51.0', 'Span #0',
                '    Trace ID       : %s' % tid, '    Parent ID      : %s' % parent, '    ID             : %s' % span_id(), '    Name           : %s' % name,
                '    Kind           : %s' % kind, '    Start time     : %s.%06d000 +0000 UTC' % (sp(st, 0), st.microsecond), '    Status code    : Unset', 'Attributes:']
        out += [otel_attr(k, v) for k, v in attrs]
    return render(ctx, note(ctx, 'Verifying the collector attributes processor now redacts header values.') if chance(0.5) else [],
                  step(ctx, 'kubectl logs -n observability deploy/otel-collector --since=2m | head -n %d' % len(out), out, 'collector output'))


def n_datadog_log_trace_correlation(ctx):
    c = ctx.clock
    out = []
    n = R.randint(48, 80) if ctx.long else R.randint(4, 8)
    for _ in range(n):
        out.append('%s %s [%s] [dd.service=%s dd.env=prod dd.version=%s dd.trace_id=%s dd.span_id=%s] %s' % (
            sp(c.tick(0.01, 4), 3), pick(['INFO', 'WARN', 'ERROR']), pick(['http-nio-8080-exec-%d' % R.randint(1, 10), 'scheduling-1']), ctx.project, hx(7),
            dd_trace(), dd_trace(), pick(['c.%s.api.OrderController - order %d created' % (ctx.org, R.randint(1, 99999)), 'c.%s.jobs.Notifier - %s' % (ctx.org, human_msg()),
                                          'c.%s.auth.TokenFilter - token accepted kid=%s sub=user:%d' % (ctx.org, hx(16), R.randint(1, 99999)),
                                          'o.s.web.servlet.DispatcherServlet - Completed 401 UNAUTHORIZED', 'c.%s.pay.StripeClient - idempotency key %s' % (ctx.org, uuid4())])))
    return render(ctx, note(ctx, 'The logs carry Datadog trace correlation ids; using them to jump to the traces.') if chance(0.5) else [],
                  file_step(ctx, '/var/log/%s/app.log' % ctx.project, 'tail -n %d /var/log/%s/app.log' % (n, ctx.project), out, 'app log', R.randint(100, 90000)))


def n_nginx_error_log_upstream_ids(ctx):
    c = ctx.clock
    host = 'api.' + ctx.domain
    up = '%s:%d' % (ip_priv(), pick([8080, 8000, 3000]))
    out = []
    n = R.randint(42, 80) if ctx.long else R.randint(4, 8)
    for _ in range(n):
        pid = R.randint(20, 40)
        k = R.randint(0, 3)
        path = pick(['/v1/orders/%d' % R.randint(1, 99999), '/v1/export?format=csv&request_id=%s' % uuid4(), '/oauth/authorize?client_id=%s&response_type=code&state=%s' % (hx(20), rs(B64U, 32))])
        if k == 0:
            out.append('%s [error] %d#%d: *%d upstream prematurely closed connection while reading response header from upstream, client: %s, server: %s, request: "GET %s HTTP/1.1", upstream: "http://%s%s", host: "%s", request_id: "%s"' % (
                slash_ts(c.tick(0.5, 40)), pid, pid, R.randint(10 ** 4, 10 ** 7), ip_pub(), host, path, up, path, host, hx(32)))
        elif k == 1:
            out.append('%s [warn] %d#%d: *%d a client request body is buffered to a temporary file /var/cache/nginx/client_temp/%010d, client: %s, server: %s, request: "POST /v1/uploads HTTP/2.0", host: "%s"' % (
                slash_ts(c.tick(0.5, 40)), pid, pid, R.randint(10 ** 4, 10 ** 7), R.randint(10 ** 8, 10 ** 9), ip_pub(), host, host))
        elif k == 2:
            out.append('%s [error] %d#%d: *%d SSL_do_handshake() failed (SSL: error:0A00006C:SSL routines::bad key share) while SSL handshaking, client: %s, server: 0.0.0.0:443' % (
                slash_ts(c.tick(0.5, 40)), pid, pid, R.randint(10 ** 4, 10 ** 7), ip_pub()))
        else:
            out.append('%s [notice] %d#%d: signal process started' % (slash_ts(c.tick(0.5, 40)), pid, pid))
    return render(ctx, note(ctx, 'Reading the nginx error log for the 502 burst.') if chance(0.5) else [],
                  file_step(ctx, '/var/log/nginx/error.log', 'sudo tail -n %d /var/log/nginx/error.log' % n, out, 'nginx error log', R.randint(100, 40000)))


def n_strings_core_format_strings(ctx):
    core = 'core.%s.%d' % (ctx.project, R.randint(1000, 60000))
    base = ['Authorization: Bearer %s', 'Authorization: Basic %s', 'postgres://%s:%s@%s:%d/%s?sslmode=%s', 'password authentication failed for user "%s"',
            'api_key=%s&ts=%ld', 'X-Api-Key: %.*s', 'redis_auth_password', 'set_password_hash', 'token_bucket_refill', 'SSL_CTX_use_PrivateKey_file',
            'PEM_read_bio_PrivateKey', '-----BEGIN %s-----', '-----END %s-----', 'invalid api key format', 'Bearer token missing', 'GLIBC_2.34', 'GLIBCXX_3.4.29',
            'secret_manager_client_new', 'OPENSSL_3.0.0', 'x-amz-security-token', 'AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s',
            'client_secret=%s&grant_type=client_credentials', 'password=%s', 'token=%s', 'secret_key', 'api_token', '/run/secrets/%s', 'sha256:%s',
            'GCC: (Debian 12.2.0-14) 12.2.0', '.note.gnu.build-id', '_ZN3app4auth9TokenPair3new17h%s' % hx(16), 'rustc version 1.77.2 (25ef9e3d8 2024-04-09)',
            '/rustc/%s/library/core/src/str/pattern.rs' % gitsha(), 'called `Option::unwrap()` on a `None` value', 'BuildID[sha1]=%s' % hx(40)]
    n = len(base) if ctx.long else 10
    sel = R.sample(base, n)
    blocks = [step(ctx, "strings -n 8 /tmp/%s | grep -E -i 'bearer|password|secret|token|api.?key|BEGIN' | sort -u" % core, sorted(s for s in sel if re.search(r'(?i)bearer|password|secret|token|api.?key|BEGIN', s)), 'strings')]
    if ctx.long:
        info = ['/tmp/%s: ELF 64-bit LSB core file, x86-64, version 1 (SYSV), SVR4-style, from \'/usr/local/bin/%s serve\', real uid: 998, effective uid: 998, real gid: 998, effective gid: 998, execfn: \'/usr/local/bin/%s\', platform: \'x86_64\'' % (core, ctx.project, ctx.project)]
        blocks.insert(0, step(ctx, 'file /tmp/%s' % core, info, 'file type'))
        mods = ['0x%s+0x%x %s@0x%s %s' % (('55' if i == 0 else '7f') + hx(10), R.randint(0x1000, 0x900000), hx(40), ('55' if i == 0 else '7f') + hx(10),
                                         '/usr/local/bin/%s' % ctx.project if i == 0 else pick(['/lib/x86_64-linux-gnu/libc.so.6', '/lib/x86_64-linux-gnu/libssl.so.3', '/lib/x86_64-linux-gnu/libcrypto.so.3', '/lib64/ld-linux-x86-64.so.2', 'linux-vdso.so.1']))
                for i in range(R.randint(8, 12))]
        blocks.append(step(ctx, 'eu-unstrip -n --core /tmp/%s' % core, mods, 'modules'))
        libs = ['From                To                  Syms Read   Shared Object Library']
        for lib in ['/lib64/ld-linux-x86-64.so.2', '/lib/x86_64-linux-gnu/libssl.so.3', '/lib/x86_64-linux-gnu/libcrypto.so.3', '/lib/x86_64-linux-gnu/libz.so.1',
                    '/lib/x86_64-linux-gnu/libgcc_s.so.1', '/lib/x86_64-linux-gnu/libm.so.6', '/lib/x86_64-linux-gnu/libc.so.6', '/lib/x86_64-linux-gnu/libpq.so.5']:
            a = R.randint(0x7f0000000000, 0x7fffffffffff)
            libs.append('0x%016x  0x%016x  Yes (*)     %s' % (a, a + R.randint(0x1000, 0x900000), lib))
        libs.append('(*): Shared library is missing debugging information.')
        blocks.append(step(ctx, "gdb -batch -ex 'info sharedlibrary' /usr/local/bin/%s /tmp/%s 2>/dev/null | tail -n %d" % (ctx.project, core, len(libs)), libs, 'shared libraries'))
    return render(ctx, note(ctx, 'Checking the core for credentials; the matches are format strings and symbol names from the binary.') if chance(0.5) else [], *blocks)


def n_hs_err_registers_memory_map(ctx):
    pid = R.randint(1, 60000)
    out = ['#', '# A fatal error has been detected by the Java Runtime Environment:', '#', '#  SIGSEGV (0xb) at pc=0x00007f%s, pid=%d, tid=%d' % (hx(10), pid, pid + R.randint(1, 90)), '#',
           '# JRE version: OpenJDK Runtime Environment Temurin-17.0.11+9 (17.0.11+9) (build 17.0.11+9)', '# Problematic frame:',
           '# C  [libnetty_tcnative_linux_x86_64%s.so+0x%s]  SSL_read+0x%x' % (hx(16), hx(5), R.randint(16, 900)), '#', '',
           '---------------  S U M M A R Y ------------', '',
           'Command Line: -Xmx2g -XX:+UseG1GC -Dspring.profiles.active=prod -Dspring.config.import=optional:configtree:/run/secrets/ /app/app.jar', '',
           'siginfo: si_signo: 11 (SIGSEGV), si_code: 1 (SEGV_MAPERR), si_addr: 0x%016x' % R.randint(0, 2 ** 40), '', 'Registers:']
    regs = ['RAX', 'RBX', 'RCX', 'RDX', 'RSP', 'RBP', 'RSI', 'RDI', 'R8 ', 'R9 ', 'R10', 'R11', 'R12', 'R13', 'R14', 'R15']
    for i in range(0, 16, 4):
        out.append(', '.join('%s=0x%016x' % (r, R.randint(0, 2 ** 47)) for r in regs[i:i + 4]))
    out += ['RIP=0x00007f%s, EFLAGS=0x0000000000010246, CSGSFS=0x002b000000000033, ERR=0x0000000000000004' % hx(10), '  TRAPNO=0x000000000000000e', '',
            'Top of Stack: (sp=0x00007f%s)' % hx(10)]
    for i in range(R.randint(6, 10) if ctx.long else 3):
        out.append('0x00007f%s:   %016x %016x' % (hx(10), R.randint(0, 2 ** 63), R.randint(0, 2 ** 63)))
    out += ['', 'Instructions: (pc=0x00007f%s)' % hx(10)]
    for i in range(R.randint(4, 6) if ctx.long else 2):
        out.append('0x00007f%s:   %s' % (hx(10), ' '.join('%02x' % R.randint(0, 255) for _ in range(16))))
    if ctx.long:
        out += ['', 'Dynamic libraries:']
        for _ in range(R.randint(12, 20)):
            a = R.randint(0x7f0000000000, 0x7fffffffffff)
            out.append('%012x-%012x %s %08x 103:01 %d                  %s' % (a, a + R.randint(0x1000, 0x900000), pick(['r--p', 'r-xp', 'rw-p']), R.randint(0, 0x90000), R.randint(10 ** 5, 10 ** 7),
                                                                           pick(['/opt/java/openjdk/lib/server/libjvm.so', '/usr/lib/x86_64-linux-gnu/libc.so.6', '/tmp/libnetty_tcnative_linux_x86_64%s.so' % hx(16), '/opt/java/openjdk/lib/libzip.so'])))
    return render(ctx, note(ctx, 'Reading the registers and memory map from the JVM crash log.') if chance(0.5) else [],
                  file_step(ctx, '/logs/hs_err_pid%d.log' % pid, 'sed -n "1,150p" /logs/hs_err_pid%d.log' % pid, out, 'hs_err log'))


def n_node_report_libuv_handles(ctx):
    c = ctx.clock
    fn = 'report.%04d%02d%02d.%02d%02d%02d.%d.0.001.json' % (c.t.year, c.t.month, c.t.day, c.t.hour, c.t.minute, c.t.second, R.randint(1, 400))
    handles = []
    for _ in range(R.randint(4, 6) if ctx.long else 2):
        t = pick(['tcp', 'timer', 'async', 'signal', 'pipe'])
        h = {'type': t, 'is_active': True, 'is_referenced': pick([True, False]), 'address': '0x%016x' % R.randint(0, 2 ** 47)}
        if t == 'tcp':
            h.update({'localEndpoint': {'host': ip_priv(), 'port': port()}, 'remoteEndpoint': {'host': ip_priv(), 'port': pick([5432, 6379, 443])},
                      'sendBufferSize': 2626560, 'recvBufferSize': 131072, 'fd': R.randint(18, 90), 'writeQueueSize': 0, 'readable': True, 'writable': True})
        elif t == 'timer':
            h.update({'repeat': 0, 'firesInMsFromNow': R.randint(1, 90000), 'expired': False})
        handles.append(h)
    out = jq_dump({'header': {'event': 'Allocation failed - JavaScript heap out of memory', 'trigger': 'OOMError', 'filename': fn, 'processId': R.randint(1, 400),
                              'threadId': 0, 'cwd': '/app', 'nodejsVersion': 'v20.12.2', 'osMachine': 'x86_64', 'host': '%s-%s-%s' % (ctx.project, hx(10)[:9], rs(LOWNUM, 5)),
                              'networkInterfaces': [{'name': 'eth0', 'internal': False, 'mac': ':'.join('%02x' % R.randint(0, 255) for _ in range(6)), 'address': ip_priv(), 'netmask': '255.255.255.255', 'family': 'IPv4'}]},
                   'libuv': handles})
    return render(ctx, note(ctx, 'Reading the libuv handles from the OOM report to count the open sockets.') if chance(0.5) else [],
                  step(ctx, "jq '{header: (.header | {event, trigger, filename, processId, threadId, cwd, nodejsVersion, osMachine, host, networkInterfaces}), libuv}' /reports/%s" % fn, out, 'node report'))


def n_dotnet_dump_heap_stat_mts(ctx):
    out = ['Loading core dump: core_%d ...' % R.randint(10 ** 8, 10 ** 9), "Ready to process analysis commands. Type 'help' to list available commands or 'help [command]' to get detailed help on a command.",
           "Type 'quit' or 'exit' to exit the session.", '> dumpheap -stat', 'Statistics:', '          MT    Count     TotalSize Class Name']
    classes = ['System.String', 'System.Byte[]', 'System.Char[]', 'System.Object[]', 'Microsoft.Data.SqlClient.SqlConnectionString', '%s.Auth.ApiKeyCache+Entry' % ctx.org.capitalize(),
               'System.Collections.Generic.Dictionary<System.String, %s.Auth.TokenInfo>' % ctx.org.capitalize(), 'System.Security.Cryptography.RSAOpenSsl',
               'Microsoft.IdentityModel.Tokens.RsaSecurityKey', 'Microsoft.Extensions.Options.OptionsMonitor<%s.Options.StripeOptions>' % ctx.org.capitalize(),
               'System.Threading.Tasks.Task<System.Net.Http.HttpResponseMessage>', 'Npgsql.NpgsqlConnector', 'StackExchange.Redis.PhysicalConnection']
    n = len(classes) if ctx.long else 6
    rows = sorted(((R.randint(1, 90000), R.randint(100, 10 ** 8), cl) for cl in R.sample(classes, n)), key=lambda r: r[1])
    for cnt, size, cl in rows:
        out.append('00007f%s %8d %13d %s' % (hx(10), cnt, size, cl))
    out.append('Total %d objects, %d bytes' % (sum(r[0] for r in rows), sum(r[1] for r in rows)))
    if ctx.long:
        out += ['> gcroot 00007f%s' % hx(10), 'HandleTable:', '    00007f%s (strong handle)' % hx(10), '          -> 00007f%s System.Object[]' % hx(10),
                '          -> 00007f%s %s.Auth.ApiKeyCache' % (hx(10), ctx.org.capitalize()), '          -> 00007f%s System.Collections.Concurrent.ConcurrentDictionary`2' % hx(10), '',
                'Found 1 unique roots.', '> eeheap -gc', 'GC Allocated Heap Size:    Size: 0x%x (%d) bytes.' % ((R.randint(10 ** 7, 10 ** 9),) * 2), 'GC Committed Heap Size:    Size: 0x%x (%d) bytes.' % ((R.randint(10 ** 7, 10 ** 9),) * 2)]
        for i in range(R.randint(14, 20)):
            a = R.randint(0x7f0000000000, 0x7fffffffffff)
            out.append('generation %d starts at %016x' % (i % 3, a))
    out.append('> exit')
    return render(ctx, note(ctx, 'Looking at heap statistics from the dump to see what grows.') if chance(0.5) else [],
                  step(ctx, 'dotnet-dump analyze /dumps/core_%d' % R.randint(10 ** 6, 10 ** 7), out, 'dotnet-dump'))


def n_redis_monitor_auth_redacted(ctx):
    c = ctx.clock
    clis = ['%s:%d' % (ip_priv(), port()) for _ in range(3)]
    out = ['OK']
    n = R.randint(45, 80) if ctx.long else R.randint(6, 10)
    for i in range(n):
        cl = pick(clis)
        k = R.randint(0, 7)
        if k == 0:
            out.append(redis_mon(c.tick(), 0, cl, 'AUTH', '(redacted)'))
        elif k == 1:
            out.append(redis_mon(c.tick(), 0, cl, 'HELLO', '3', 'AUTH', '(redacted)', '(redacted)'))
        elif k == 2:
            out.append(redis_mon(c.tick(), 0, cl, 'GET', 'session:2::%s' % hx(64)))
        elif k == 3:
            out.append(redis_mon(c.tick(), 0, cl, 'EVALSHA', hx(40), '1', 'rl:api:%d' % R.randint(1, 99999), '100', '60'))
        elif k == 4:
            out.append(redis_mon(c.tick(), 0, cl, 'SET', 'idempotency:%s' % uuid4(), '{\\"status\\":201,\\"etag\\":\\"%s\\"}' % hx(16), 'EX', '86400'))
        elif k == 5:
            out.append(redis_mon(c.tick(), 0, cl, 'XADD', 'events', '*', 'type', pick(['order.paid', 'user.login']), 'id', uuid4()))
        elif k == 6:
            out.append(redis_mon(c.tick(), 0, cl, 'CLIENT', 'SETINFO', 'lib-ver', '5.0.%d' % R.randint(1, 9)))
        else:
            out.append(redis_mon(c.tick(), 0, cl, 'PING'))
    return render(ctx, note(ctx, 'Watching MONITOR; Redis redacts AUTH and HELLO arguments and the session keys are hashed.') if chance(0.5) else [],
                  step(ctx, 'redis-cli -h redis-master --user ops --askpass MONITOR | head -n %d' % n, out, 'redis monitor'))


def n_pg_log_scram_verifiers(ctx):
    c = ctx.clock
    out = []
    db = ctx.project.replace('-', '_')

    def L(pid, user, dbn, lvl, msg):
        out.append(pg_prefix(ctx, c.tick(0.001, 3), pid, user, dbn) + '%s:  %s' % (lvl, msg))
    p = R.randint(1000, 60000)
    L(p, 'postgres', 'postgres', 'LOG', 'connection authorized: user=postgres database=postgres application_name=psql')
    for role in R.sample(['app_rw', 'reporting', 'grafana_ro', 'metabase', 'airbyte', db + '_rw'], R.randint(2, 4)):
        L(p, 'postgres', 'postgres', 'LOG', "statement: ALTER USER %s PASSWORD 'SCRAM-SHA-256$4096:%s$%s:%s'" % (role, b64e(rbytes(16)), b64e(rbytes(32)), b64e(rbytes(32))))
    L(p, 'postgres', 'postgres', 'LOG', "statement: SELECT rolname, rolpassword ~ '^SCRAM-SHA-256' AS scram FROM pg_authid WHERE rolcanlogin")
    L(p, 'postgres', 'postgres', 'LOG', "statement: CREATE USER MAPPING FOR app_rw SERVER legacy_crm OPTIONS (user 'crm_ro', password_required 'false', sslkey '/etc/pg/crm.key', sslcert '/etc/pg/crm.crt')")
    if ctx.long:
        for _ in range(R.randint(35, 60)):
            k2 = R.randint(0, 3)
            pp = R.randint(1000, 60000)
            if k2 == 0:
                L(pp, 'app_rw', db, 'LOG', 'execute <unnamed>: SELECT * FROM api_tokens WHERE token_digest = $1')
                out.append(pg_prefix(ctx, c.t, pp, 'app_rw', db) + "DETAIL:  parameters: $1 = '\\x%s'" % hx(64))
            elif k2 == 1:
                L(pp, 'app_rw', db, 'LOG', 'duration: %.3f ms' % R.uniform(0.05, 900))
            elif k2 == 2:
                L(pp, '[unknown]', '[unknown]', 'LOG', 'connection received: host=%s port=%d' % (ip_priv(), port()))
            else:
                L(pp, 'grafana_ro', db, 'FATAL', 'password authentication failed for user "grafana_ro"')
    return render(ctx, note(ctx, 'psql \\password sends pre-hashed SCRAM verifiers, so the statement log only holds verifiers.') if chance(0.5) else [],
                  file_step(ctx, '/var/log/postgresql/postgresql-16-main.log', 'sudo tail -n %d /var/log/postgresql/postgresql-16-main.log' % len(out), out, 'postgres log', R.randint(1000, 90000)))


def n_mysql_general_log_rewritten(ctx):
    c = ctx.clock
    out = ['/usr/sbin/mysqld, Version: 8.0.%d (MySQL Community Server - GPL). started with:' % R.randint(30, 37),
           'Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock', 'Time                 Id Command    Argument']
    cid = R.randint(10, 900)

    def Q(i, cmd_, arg):
        out.append('%s\t%5d %s\t%s' % (iso(c.tick(0.0001, 0.5), 6), i, cmd_, arg))
    Q(cid, 'Connect', 'root@localhost on  using Socket')
    Q(cid, 'Query', "CREATE USER 'report'@'%' IDENTIFIED BY <secret>")
    Q(cid, 'Query', "ALTER USER 'app'@'10.0.%%' IDENTIFIED WITH 'caching_sha2_password' BY <secret>")
    Q(cid, 'Query', "SET PASSWORD FOR 'grafana'@'%' = <secret>")
    Q(cid, 'Query', "select user, host, plugin, authentication_string from mysql.user where user like 'app%'")
    Q(cid, 'Query', "select * from `personal_access_tokens` where `token` = '%s' limit 1" % hx(64))
    Q(cid, 'Query', "update `users` set `password` = '$2y$12$%s' where `id` = %d" % (rs(ALNUM + './', 53), R.randint(1, 99999)))
    if ctx.long:
        for _ in range(R.randint(35, 60)):
            k = R.randint(0, 3)
            i = pick([cid, cid + 1, cid + 2])
            if k == 0:
                Q(i, 'Query', "select * from `orders` where `uuid` = '%s' limit 1" % uuid4())
            elif k == 1:
                Q(i, 'Query', "select * from `sessions` where `id` = '%s' limit 1" % ('[redacted]'))
            elif k == 2:
                Q(i, 'Query', 'COMMIT')
            else:
                Q(i, 'Quit', '')
    return render(ctx, note(ctx, 'MySQL rewrites account statements in the general log, so the passwords show as <secret>.') if chance(0.5) else [],
                  file_step(ctx, '/var/lib/mysql/%s.log' % ctx.host, 'sudo tail -n %d /var/lib/mysql/%s.log' % (len(out), ctx.host), out, 'mysql general log'))


def n_mongod_slow_query_log_lsid(ctx):
    c = ctx.clock
    out = []
    n = R.randint(6, 10) if ctx.long else 1
    for _ in range(n):
        e = {'t': {'$date': iso(c.tick(0.5, 60), 3, '+00:00')}, 's': 'I', 'c': 'COMMAND', 'id': 51803, 'ctx': 'conn%d' % R.randint(100, 9999), 'msg': 'Slow query',
             'attr': {'type': 'command', 'ns': '%s.orders' % ctx.project.replace('-', '_'), 'appName': ctx.project,
                      'command': {'find': 'orders', 'filter': {'customerId': {'$oid': objid()}}, 'lsid': {'id': {'$uuid': uuid4()}},
                                  '$clusterTime': {'clusterTime': {'$timestamp': {'t': int(epoch(c.t)), 'i': R.randint(1, 30)}},
                                                   'signature': {'hash': {'$binary': {'base64': b64e(rbytes(20)), 'subType': '0'}}, 'keyId': R.randint(7 * 10 ** 18, 7.4 * 10 ** 18)}},
                                  '$db': ctx.project.replace('-', '_')},
                      'planSummary': 'COLLSCAN', 'keysExamined': 0, 'docsExamined': R.randint(10 ** 4, 10 ** 7), 'nreturned': R.randint(0, 90),
                      'queryHash': HX(8), 'planCacheKey': HX(8), 'durationMillis': R.randint(100, 9000)}}
        out.append(jl(e))
    if ctx.long:
        out = out + ['%s' % jl({'t': {'$date': iso(c.tick(), 3, '+00:00')}, 's': 'I', 'c': 'ACCESS', 'id': 20250, 'ctx': 'conn%d' % R.randint(100, 9999), 'msg': 'Authentication succeeded',
                                'attr': {'mechanism': 'SCRAM-SHA-256', 'speculative': True, 'principalName': ctx.project, 'authenticationDatabase': 'admin', 'remote': '%s:%d' % (ip_priv(), port()), 'extraInfo': {}}})
                     for _ in range(R.randint(40, 55))]
    return render(ctx, note(ctx, 'Reading the slow query entries from mongod.log.') if chance(0.5) else [],
                  file_step(ctx, '/var/log/mongodb/mongod.log', 'sudo tail -n %d /var/log/mongodb/mongod.log' % len(out), out, 'mongod log', R.randint(100, 90000)))


def n_pg_stat_activity_parameterized(ctx):
    db = ctx.project.replace('-', '_')
    rows = []
    for _ in range(R.randint(40, 70) if ctx.long else R.randint(4, 7)):
        rows.append((R.randint(1000, 60000), pick(['app', 'app', 'grafana_ro', 'metabase', 'replicator']), pick(['active', 'idle', 'idle in transaction']),
                     str(R.randint(-9 * 10 ** 18, 9 * 10 ** 18)), pick(['SELECT * FROM orders WHERE id = $1', 'UPDATE accounts SET balance = balance - $1 WHERE id = $2',
                                                                        'SELECT token_digest FROM api_tokens WHERE prefix = $1', 'START_REPLICATION SLOT "%s_slot" LOGICAL 0/%X' % (db, R.randint(10 ** 6, 10 ** 9)), 'COMMIT'])))
    hdr = ['pid', 'usename', 'state', 'query_id', 'query']
    uni = chance(0.4)
    out = []
    if uni:
        out += ['%s=# \\pset linestyle unicode' % db, 'Line style is unicode.', '%s=# \\pset border 2' % db, 'Border style is 2.']
    out.append('%s=# SELECT pid, usename, state, query_id, query FROM pg_stat_activity WHERE backend_type = \'client backend\';' % db)
    out += psql_table(hdr, [(str(r[0]), r[1], r[2], r[3], r[4]) for r in rows], uni)
    out += ['(%d rows)' % len(rows), '']
    return render(ctx, note(ctx, 'Listing client backends on the primary.') if chance(0.5) else [],
                  step(ctx, 'psql "service=%s-prod"' % db, out, 'psql'))


def n_rg_log_dir_only_redacted(ctx):
    c = ctx.clock
    d = pick(['/var/log/%s' % ctx.project, 'logs'])
    files = ['%s/app.log' % d, '%s/app.log.1' % d, '%s/worker.log' % d]
    out = []
    for _ in range(R.randint(45, 80) if ctx.long else R.randint(5, 9)):
        txt = pick(['%s INFO request headers: Authorization: [REDACTED]' % iso(c.tick(1, 600)),
                    '{"ts":"%s","level":"info","msg":"outbound","headers":{"x-api-key":"<masked>","user-agent":"%s"}}' % (iso(c.tick(1, 600)), pick(UA_PY)),
                    '%s INFO login ok user=%s password=******** mfa=totp' % (iso(c.tick(1, 600)), pick(NAMES)),
                    '%s DEBUG settings: PASSWORD_MIN_LENGTH=12 PASSWORD_HASHER=argon2 TOKEN_TTL=3600' % iso(c.tick(1, 600)),
                    '%s ERROR auth failed: Authorization header missing for %s' % (iso(c.tick(1, 600)), rpath()),
                    '%s DEBUG token accepted kid=%s fp=sha256:%s' % (iso(c.tick(1, 600)), hx(16), hx(16)),
                    '{"ts":"%s","level":"warn","msg":"api key prefix not found","key_prefix":"ak_%s"}' % (iso(c.tick(1, 600)), rs(ALNUM, 6)),
                    '%s INFO %s password_reset=sent' % (iso(c.tick(1, 600)), human_msg())])
        out.append('%s:%d:%s' % (pick(files), R.randint(1, 90000), txt))
    out.sort(key=lambda l: (l.split(':')[0], int(l.split(':')[1])))
    return render(ctx, note(ctx, 'Re-running the search after the redaction deploy: everything sensitive shows masked.') if chance(0.5) else [],
                  step(ctx, "rg -n -i --no-heading -e 'authorization' -e 'x-api-key' -e 'password' -e 'token' %s" % d, out, 'search the logs'))


def n_gh_secret_scanning_alerts_hidden(ctx):
    repo = '%s/%s' % (ctx.org, ctx.project)
    out = []
    n = R.randint(5, 9) if ctx.long else R.randint(1, 2)
    for i in range(n):
        num = R.randint(1, 90)
        a = {'number': num, 'created_at': iso(ctx.clock.tick(60, 90000), 0), 'url': 'https://api.github.com/repos/%s/secret-scanning/alerts/%d' % (repo, num),
             'html_url': 'https://github.com/%s/security/secret-scanning/%d' % (repo, num), 'state': pick(['resolved', 'open']), 'resolution': pick(['revoked', None]),
             'secret_type': pick(['stripe_api_key', 'slack_api_token', 'github_personal_access_token', 'aws_access_key_id']),
             'secret_type_display_name': pick(['Stripe API Key', 'Slack API Token', 'GitHub Personal Access Token', 'Amazon AWS Access Key ID']),
             'validity': pick(['inactive', 'unknown']), 'push_protection_bypassed': False, 'publicly_leaked': False, 'multi_repo': False}
        out += jq_dump(a) if ctx.long else [jl(a)]
    return render(ctx, note(ctx, 'Listing the alerts with hide_secret=true for the incident channel.') if chance(0.5) else [],
                  step(ctx, "gh api '/repos/%s/secret-scanning/alerts?hide_secret=true' %s" % (repo, "--jq '.[]'" if ctx.long else "--jq '.[] | tojson'"), out, 'alerts'))


def n_postmortem_timeline_key_ids(ctx):
    c = ctx.clock
    inc = 'INC-%d' % R.randint(1000, 9999)
    ak = akid()
    rows = [('%s' % hms(c.tick(60, 900)), 'GitHub secret scanning alert #%d (stripe_api_key) opened on `%s/%s`' % (R.randint(1, 90), ctx.org, ctx.project)),
            ('%s' % hms(c.tick(60, 900)), 'Key `sk_live_…%s` rolled in Stripe dashboard; new key stored at `op://Prod/stripe/secret-key`' % rs(ALNUM, 4)),
            ('%s' % hms(c.tick(60, 900)), 'AWS access key `%s` deactivated (`aws iam update-access-key --status Inactive`)' % ak),
            ('%s' % hms(c.tick(60, 900)), 'CloudTrail lookup for `%s`: %d events, last `GetObject` from %s' % (ak, R.randint(1, 900), ip_pub())),
            ('%s' % hms(c.tick(60, 900)), 'Force-pushed history rewrite; offending commit `%s` removed, PR #%d' % (hx(12), R.randint(100, 9999))),
            ('%s' % hms(c.tick(60, 900)), 'PagerDuty incident `Q%s` resolved' % rs(UP + DIG, 13))]
    out = ['# %s — leaked payment key in debug log' % inc, '', '**Status:** resolved · **Severity:** SEV-2 · **Commander:** @%s' % ctx.user, '',
           '## Timeline (UTC, %04d-%02d-%02d)' % (c.t.year, c.t.month, c.t.day), '', '| Time | Event |', '|------|-------|']
    out += ['| %s | %s |' % r for r in rows]
    out += ['', '## Impact', '', '- Debug logging of outbound headers was enabled in `%s` for %d minutes (deploy `%s`).' % (ctx.project, R.randint(10, 200), gitsha()[:12]),
            '- Exposed: one Stripe restricted key (revoked), one IAM user key pair (deactivated). No customer data accessed.',
            '- Log lines containing the key were deleted from Loki (`{app="%s"} |= "sk_live"`, %d lines).' % (ctx.project, R.randint(10, 9000)), '',
            '## Follow-ups', '', '- [ ] Add header redaction to the HTTP client wrapper (%s-%d)' % (ctx.project.upper()[:4], R.randint(100, 999)),
            '- [ ] Block `LOG_LEVEL=debug` in prod via admission policy', '- [x] Rotate `STRIPE_RESTRICTED_KEY` in Vault (`secret/data/%s/stripe`, version %d)' % (ctx.project, R.randint(2, 30))]
    if ctx.long:
        out += ['', '## Evidence', '', '```']
        for _ in range(R.randint(15, 25)):
            out.append('%s %s request_id=%s trace_id=%s status=%d key_id=%s' % (iso(c.tick(1, 60)), pick(['INFO', 'WARN']), ulid(), trace_id(), pick([200, 401]), pick(['rk_…%s' % rs(ALNUM, 4), 'kid_' + hx(8)])))
        out += ['```', '', '## Detection gaps', '', '| Signal | Fired? | Notes |', '|---|---|---|', '| Secret scanning | ✅ | %d min after push |' % R.randint(1, 9),
                '| Loki alert on `sk_live` | ❌ | rule only matched `sk_test` |', '| Stripe anomaly email | ✅ | 東京 region traffic spike |']
    return render(ctx, note(ctx, 'Reading the postmortem draft before posting it.') if chance(0.5) else [],
                  file_step(ctx, '%s/docs/postmortems/%s.md' % (ctx.abscwd, inc.lower()), 'cat docs/postmortems/%s.md' % inc.lower(), out, 'postmortem'))


def n_apport_crash_coredump_b64(ctx):
    c = ctx.clock
    exe = '/usr/local/bin/%s' % ctx.project
    out = ['ProblemType: Crash', 'Architecture: amd64', 'Date: %s %s %2d %s %d' % (DAYS[c.t.weekday()], MONTHS[c.t.month - 1], c.t.day, hms(c.t), c.t.year),
           'DistroRelease: Ubuntu 22.04', 'ExecutablePath: %s' % exe, 'ExecutableTimestamp: %d' % (int(epoch(c.t)) - R.randint(10 ** 5, 10 ** 7)),
           'ProcCmdline: %s serve --config /etc/%s/config.yaml' % (exe, ctx.project), 'ProcCwd: /var/lib/%s' % ctx.project,
           'ProcEnviron:', ' LANG=C.UTF-8', ' PATH=(custom, no user)', ' SHELL=/bin/false', 'ProcMaps:']
    for _ in range(R.randint(5, 9) if ctx.long else 3):
        a = R.randint(0x550000000000, 0x56ffffffffff)
        out.append(' %012x-%012x r-xp %08x 103:01 %d                  %s' % (a, a + R.randint(0x1000, 0x900000), R.randint(0, 0x9000), R.randint(10 ** 5, 10 ** 7), exe))
    out += ['ProcStatus:', ' Name:\t%s' % ctx.project[:15], ' State:\tS (sleeping)', ' Pid:\t%d' % R.randint(300, 60000), 'Signal: 11', 'SourcePackage: %s' % ctx.project,
            'Uname: Linux 6.5.0-1018-aws x86_64', 'UserGroups: N/A', 'CoreDump: base64']
    blob = b64e(b'\x1f\x8b\x08\x00' + rbytes(R.randint(2200, 3600) if ctx.long else 400))
    for i in range(0, len(blob), 76):
        out.append(' ' + blob[i:i + 76])
    out = out[:150 - 4]
    return render(ctx, note(ctx, 'Looking at the apport report; the core is embedded as gzip+base64, no environment beyond the filtered ProcEnviron.') if chance(0.5) else [],
                  file_step(ctx, '/var/crash/_usr_local_bin_%s.998.crash' % ctx.project, 'sudo head -n %d /var/crash/_usr_local_bin_%s.998.crash' % (len(out), ctx.project), out, 'apport report'))


def n_dmesg_segfault_ip_sp(ctx):
    out = []
    t0 = R.uniform(1000, 900000)
    n = R.randint(40, 70) if ctx.long else R.randint(3, 6)
    for _ in range(n):
        t0 += R.uniform(0.1, 300)
        k = R.randint(0, 3)
        if k == 0:
            out.append('[%12.6f] %s[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x] likely on CPU %d (core %d, socket 0)' % (
                t0, ctx.project[:15], R.randint(300, 60000), R.randint(0, 0xffff), R.randint(0x550000000000, 0x7fffffffffff), R.randint(0x7ff000000000, 0x7fffffffffff),
                pick([4, 6, 14]), pick(['libc.so.6', 'libssl.so.3', ctx.project]), R.randint(0x550000000000, 0x7fffffffffff), R.randint(0x1000, 0x90000), R.randint(0, 7), R.randint(0, 7)))
            out.append('[%12.6f] Code: %s <%02x> %s' % (t0, ' '.join('%02x' % R.randint(0, 255) for _ in range(20)), R.randint(0, 255), ' '.join('%02x' % R.randint(0, 255) for _ in range(10))))
        elif k == 1:
            out.append('[%12.6f] Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:998 pgtables:%dkB oom_score_adj:%d' % (
                t0, R.randint(300, 60000), ctx.project[:15], R.randint(10 ** 6, 10 ** 7), R.randint(10 ** 5, 10 ** 6), R.randint(10 ** 3, 10 ** 5), R.randint(100, 9000), pick([0, 999, -997])))
        elif k == 2:
            out.append('[%12.6f] IPv4: martian source %s from %s, on dev eth0' % (t0, ip_priv(), ip_priv()))
        else:
            out.append('[%12.6f] audit: type=1400 audit(%d.%03d:%d): apparmor="DENIED" operation="open" class="file" profile="%s" name="/run/secrets/%s" pid=%d comm="%s" requested_mask="r" denied_mask="r" fsuid=998 ouid=0' % (
                t0, int(epoch(ctx.clock.t)), R.randint(0, 999), R.randint(100, 9999), ctx.project, pick(['db_password', 'stripe']), R.randint(300, 60000), ctx.project[:15]))
    out = out[:140]
    return render(ctx, note(ctx, 'Checking the kernel log for the crash and the AppArmor denials.') if chance(0.5) else [],
                  step(ctx, 'sudo dmesg | tail -n %d' % len(out), out, 'kernel log'))


def n_coredumpctl_info_module_build_ids(ctx):
    pid = R.randint(300, 60000)
    c = ctx.clock
    out = ['           PID: %d (%s)' % (pid, ctx.project[:15]), '           UID: 998 (%s)' % ctx.project, '           GID: 998 (%s)' % ctx.project,
           '        Signal: 6 (ABRT)', '     Timestamp: %s %s UTC (%d min ago)' % (DAYS[c.t.weekday()], sp(c.t, 0), R.randint(1, 90)),
           '  Command Line: /usr/local/bin/%s serve' % ctx.project, '    Executable: /usr/local/bin/%s' % ctx.project,
           ' Control Group: /system.slice/%s.service' % ctx.project, '          Unit: %s.service' % ctx.project, '         Slice: system.slice',
           '       Boot ID: %s' % hx(32), '    Machine ID: %s' % hx(32), '      Hostname: %s' % ctx.host,
           '       Storage: /var/lib/systemd/coredump/core.%s.998.%s.%d.%d.zst (present)' % (ctx.project, hx(32), pid, int(epoch(c.t)) * 1000000),
           '  Size on Disk: %.1fM' % R.uniform(1, 90), '       Message: Process %d (%s) of user 998 dumped core.' % (pid, ctx.project[:15]), '',
           '                Module /usr/local/bin/%s with build-id %s' % (ctx.project, hx(40))]
    for lib in (['libc.so.6', 'libssl.so.3', 'libcrypto.so.3', 'libgcc_s.so.1', 'libm.so.6', 'libz.so.1', 'ld-linux-x86-64.so.2', 'libpq.so.5'] if ctx.long else ['libc.so.6', 'libssl.so.3']):
        out.append('                Module %s with build-id %s' % (lib, hx(40)))
    out.append('                Stack trace of thread %d:' % pid)
    for i in range(R.randint(18, 26) if ctx.long else 4):
        out.append('                #%-2d 0x%016x %s (%s + 0x%x)' % (i, R.randint(0x550000000000, 0x7fffffffffff), pick(['__pthread_kill_implementation', 'raise', 'abort', '_ZN3std3sys4unix5abort17h%s' % hx(16), 'main', '__libc_start_call_main', 'n/a']),
                                                                      pick(['libc.so.6', ctx.project]), R.randint(0x10, 0x9000)))
    return render(ctx, note(ctx, 'Getting the crash metadata and module build IDs from systemd-coredump.') if chance(0.5) else [],
                  step(ctx, 'coredumpctl info %d' % pid, out, 'coredump info'))


def n_http_message_signature_headers(ctx):
    c = ctx.clock
    out = []
    n = R.randint(4, 6) if ctx.long else 1
    for i in range(n):
        body = jl({'id': 'evt_' + rs(ALNUM, 24), 'type': pick(['payment.succeeded', 'refund.created']), 'created': int(epoch(c.tick()))})
        cd = b64e(hashlib.sha256(body.encode()).digest())
        out += ['> POST /webhooks/partner HTTP/1.1', '> Host: hooks.%s' % ctx.domain, '> Content-Type: application/json', '> Content-Digest: sha-256=:%s:' % cd,
                '> Signature-Input: sig1=("@method" "@target-uri" "content-digest" "content-type");created=%d;keyid="%s";alg="ed25519"' % (int(epoch(c.t)), pick(['partner-2024-05', 'kid_' + hx(8)])),
                '> Signature: sig1=:%s:' % b64e(rbytes(64)), '> X-Request-Id: %s' % uuid4(), '> Content-Length: %d' % len(body), '>', '> %s' % body,
                '< HTTP/1.1 %s' % pick(['204 No Content', '401 Unauthorized']), '< Date: %s' % http_date(c.t), '< ETag: "%s"' % hx(32),
                '< Digest: sha-256=%s' % b64e(rbytes(32)), '< X-Hub-Signature-256: sha256=%s' % hx(64), '<']
        if ctx.long:
            out += ['', '* verify: keyid resolved via https://partner.example/.well-known/http-message-signatures-directory (ed25519, x=%s)' % b64u(rbytes(32)), '']
    return render(ctx, note(ctx, 'Replaying a captured partner webhook; the signature headers are per-message and verify against their public key.') if chance(0.5) else [],
                  file_step(ctx, '/tmp/webhook-replay-%d.txt' % R.randint(1, 99), 'cat /tmp/webhook-replay.txt', out, 'replayed webhook'))


def n_tcpdump_xx_dns_hex(ctx):
    out = ['tcpdump: verbose output suppressed, use -v[v]... for full protocol decode', 'listening on eth0, link-type EN10MB (Ethernet), snapshot length 262144 bytes']
    n = R.randint(7, 11) if ctx.long else 1
    for _ in range(n):
        name = pick(['api.%s' % ctx.domain, 'sts.us-east-1.amazonaws.com', 'vault.%s' % ctx.domain, 'db.internal', 'hooks.slack.com'])
        qid = R.randint(0, 0xffff)
        t = ctx.clock.tick(0.001, 2)
        out.append('%s IP %s.%d > %s.53: %d+ A? %s. (%d)' % (hms(t, 6), ip_priv(), port(), ip_priv(), qid, name, len(name) + 18))
        pkt = rbytes(42) + qid.to_bytes(2, 'big') + b'\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00' + b''.join(bytes([len(p)]) + p.encode() for p in name.split('.')) + b'\x00\x00\x01\x00\x01'
        for off in range(0, len(pkt), 16):
            ch = pkt[off:off + 16]
            hexs = ' '.join(ch[i:i + 2].hex() for i in range(0, len(ch), 2))
            asc = ''.join(chr(b) if 0x20 <= b < 0x7f else '.' for b in ch)
            out.append('\t0x%04x:  %-39s  %s' % (off, hexs, asc))
    return render(ctx, note(ctx, 'Capturing DNS lookups from the pod to see which endpoints it resolves.') if chance(0.5) else [],
                  step(ctx, "sudo tcpdump -i eth0 -nn -XX -c %d 'udp port 53 and udp[10] & 0x80 = 0'" % n, out, 'dns capture'))


def n_jmap_histo_token_classes(ctx):
    pid = R.randint(1, 60000)
    out = [' num     #instances         #bytes  class name (module)', '-------------------------------------------------------']
    classes = ['[B (java.base@17.0.11)', 'java.lang.String (java.base@17.0.11)', 'java.util.HashMap$Node (java.base@17.0.11)', '[Ljava.lang.Object; (java.base@17.0.11)',
               'java.util.concurrent.ConcurrentHashMap$Node (java.base@17.0.11)', 'com.%s.auth.ApiKey' % ctx.org, 'com.%s.auth.TokenCache$Entry' % ctx.org,
               'com.%s.auth.JwtSigningKeyProvider' % ctx.org, 'io.jsonwebtoken.impl.DefaultClaims', 'org.springframework.security.oauth2.jwt.Jwt',
               'com.zaxxer.hikari.pool.PoolEntry', 'org.postgresql.jdbc.PgConnection', 'sun.security.rsa.RSAPublicKeyImpl (java.base@17.0.11)',
               'javax.crypto.spec.SecretKeySpec (java.base@17.0.11)', 'com.%s.billing.StripeCredentials' % ctx.org, 'io.netty.buffer.PoolThreadCache$MemoryRegionCache$Entry']
    sel = classes if ctx.long else classes[:6]
    rows = sorted(((R.randint(1, 10 ** 6), R.randint(100, 10 ** 8), cl) for cl in sel), key=lambda r: -r[1])
    for i, (cnt, size, cl) in enumerate(rows):
        out.append('%4d: %14d %14d  %s' % (i + 1, cnt, size, cl))
    out.append('Total %14d %14d' % (sum(r[0] for r in rows), sum(r[1] for r in rows)))
    blocks = [step(ctx, 'jmap -histo:live %d | head -n %d' % (pid, len(out)), out, 'heap histogram')]
    if ctx.long:
        gc = ['%d:' % pid, ' garbage-first heap   total %dK, used %dK [0x00000000%s, 0x0000000100000000)' % (R.randint(10 ** 5, 10 ** 7), R.randint(10 ** 5, 10 ** 7), hx(8)),
              '  region size %dK, %d young (%dK), %d survivors (%dK)' % (pick([1024, 2048]), R.randint(10, 900), R.randint(10 ** 4, 10 ** 6), R.randint(1, 40), R.randint(10 ** 3, 10 ** 5)),
              ' Metaspace       used %dK, committed %dK, reserved %dK' % (R.randint(10 ** 4, 10 ** 5), R.randint(10 ** 4, 10 ** 5), R.randint(10 ** 6, 2 * 10 ** 6))]
        gc += ['  class space    used %dK, committed %dK, reserved %dK' % (R.randint(10 ** 3, 10 ** 4), R.randint(10 ** 3, 10 ** 4), 10 ** 6)]
        for _ in range(R.randint(20, 28)):
            gc.append('[%s][info][gc] GC(%d) Pause Young (Normal) (G1 Evacuation Pause) %dM->%dM(%dM) %.3fms' % (iso(ctx.clock.tick(1, 30), 3, '+0000'), R.randint(1, 9999), R.randint(100, 2000), R.randint(50, 1000), R.randint(1000, 4096), R.uniform(1, 90)))
        blocks.append(step(ctx, 'jcmd %d GC.heap_info && tail -n %d /logs/gc.log' % (pid, len(gc) - 5), gc, 'gc info'))
    return render(ctx, note(ctx, 'Comparing the heap histogram before taking a full dump; class names only, no values.') if chance(0.5) else [], *blocks)


NEGATIVE_LIST = [
    n_botocore_debug_canonical_request, n_httpx_headers_repr_secure, n_dotnet8_httpclient_redacted_headers, n_okhttp_redact_header_blocks,
    n_git_trace_curl_redacted, n_gcloud_log_http_token_redacted, n_azure_sdk_http_logging_redacted, n_curl_trace_ascii_public_endpoint,
    n_tf_log_aws_provider_http_masked, n_smtplib_debug_relay_no_auth,
    n_loguru_diagnose_nonsecret_values, n_sentry_issue_event_contexts_filtered, n_php_trace_sensitiveparameter_args, n_node_inspect_socket_handles,
    n_proc_environ_file_refs_only, n_ps_eww_service_env_benign, n_strace_s256_tls_record_bytes, n_ltrace_getenv_secret_file_paths,
    n_gdb_core_bt_full_addresses, n_crictl_ps_inspect_ids_digests, n_kubectl_describe_pod_restarts_refs, n_systemctl_show_invocation_ids,
    n_journalctl_o_json_crash_cursor, n_ss_tnpie_socket_cookies, n_lsof_pid_fd_table, n_jcmd_sysprops_changeit_truststore,
    n_node_inspect_debugger_request_ids, n_py_spy_dump_idle_threads, n_dlv_goroutines_bt_addresses,
    n_tshark_v_tls_client_hello, n_tcpdump_a_internal_api_ids, n_ngrep_html_csp_nonce_csrf, n_mitmdump_ws_handshake_keys,
    n_tshark_pgsql_scram_exchange, n_sysdig_echo_fds_healthchecks, n_sslsniff_jwks_fetch_public_keys, n_varnishlog_cache_hits_vxids,
    n_zap_json_trace_span_ids, n_logcli_query_masked_auth_lines, n_otel_span_attrs_redacted_headers, n_datadog_log_trace_correlation,
    n_nginx_error_log_upstream_ids,
    n_strings_core_format_strings, n_hs_err_registers_memory_map, n_node_report_libuv_handles, n_dotnet_dump_heap_stat_mts,
    n_redis_monitor_auth_redacted, n_pg_log_scram_verifiers, n_mysql_general_log_rewritten, n_mongod_slow_query_log_lsid,
    n_pg_stat_activity_parameterized, n_rg_log_dir_only_redacted, n_gh_secret_scanning_alerts_hidden, n_postmortem_timeline_key_ids,
    n_apport_crash_coredump_b64, n_dmesg_segfault_ip_sp, n_coredumpctl_info_module_build_ids, n_http_message_signature_headers,
    n_tcpdump_xx_dns_hex, n_jmap_histo_token_classes,
]


# ---------------------------------------------------------------------------
# assembly and assertions
# ---------------------------------------------------------------------------
POSITIVE = [
    p_boto3_stream_logger_session_token, p_aws_cli_debug_sso_role_credentials, p_httpx_event_hook_headers_dump,
    p_go_dumprequest_middleware_log, p_okhttp_body_level_oauth_exchange, p_axios_curlirize_console,
    p_curl_trace_ascii_wrapped_header, p_javax_net_debug_plaintext_dump, p_dotnet6_httpclient_trace_headers,
    p_httplib2_debuglevel_token_refresh, p_azure_core_network_trace_logging, p_git_trace_curl_redact_off,
    p_tf_log_debug_provider_http_dump, p_smtplib_debuglevel_auth_plain,
    p_loguru_diagnose_annotated_frames, p_sentry_event_request_breadcrumbs, p_rails_dev_error_env_dump,
    p_node_inspect_client_options_crash, p_xdebug_function_trace_params, p_gunicorn_debug_current_configuration,
    p_django_500_settings_unmasked_urls,
    p_proc_pid_environ_tr, p_ps_eww_inline_environment, p_strace_sendto_write_payloads, p_ltrace_getenv_libcalls,
    p_gdb_attach_info_locals, p_crictl_inspect_runtime_spec_env, p_journalctl_u_crashloop_config,
    p_kubectl_describe_exec_probe_cli_pass, p_jcmd_vm_sysprops_command_line, p_node_inspect_debugger_exec,
    p_py_spy_dump_locals_threads, p_dlv_attach_print_config, p_docker_inspect_health_log_creds,
    p_tcpdump_a_cleartext_protocol_logins, p_tshark_pgsql_cleartext_password, p_ngrep_redis_auth_byline,
    p_mitmdump_websocket_auth_frames, p_tshark_follow_tcp_stream_ascii, p_sysdig_echo_fds_payloads,
    p_bcc_sslsniff_plaintext, p_varnishlog_req_header_records,
    p_zap_json_startup_config_env, p_logcli_query_leaked_lines, p_otel_span_attributes_leaked_headers,
    p_datadog_logs_search_api_curl, p_nginx_error_log_query_tokens,
    p_strings_core_dump_grep, p_hs_err_pid_jvm_args, p_node_diagnostic_report_envvars,
    p_dotnet_dump_analyze_string_objects, p_redis_monitor_session_store_writes, p_pg_log_statement_all_role_passwords,
    p_mysql_general_log_raw_queries, p_mongosh_system_profile_docs, p_pg_stat_activity_dblink_password,
    p_rg_log_dir_leak_hunt, p_zgrep_rotated_access_logs, p_gh_secret_scanning_alerts_json, p_vault_audit_log_raw_true,
]
NEGATIVE = NEGATIVE_LIST if 'NEGATIVE_LIST' in globals() else []

SCHEMES = ('Bearer ', 'Basic ', 'token ', 'Token ', 'Bot ', 'AccessKey ', 'key=', 'token=', 'SSWS ', 'ApiKey ', 'Digest ')


def spans_of(text):
    spans, d, st = [], 0, 0
    for i, ch in enumerate(text):
        if ch == '«':
            assert not d, 'nested mark'
            d, st = 1, i + 1
        elif ch == '»':
            assert d, 'unbalanced »'
            d = 0
            assert i > st, 'empty mark'
            spans.append(text[st:i])
    assert not d, 'unclosed «'
    return spans


def check_positive(rid, text, owners):
    spans = spans_of(text)
    assert spans, 'positive row %d has no mark' % rid
    rest = re.sub('«[^»]*»', '\x00', text)
    for s in spans:
        assert s == s.strip(), 'outer whitespace in %r' % s
        assert s[0] not in '\'"`' and s[-1] not in '\'"`', 'quote at edge of %r' % s
        for w in SCHEMES:
            assert not s.startswith(w), 'scheme word in %r' % s
        for ln in s.split('\n')[1:]:
            assert ln and not ln[0].isspace() and ln[0] not in '│⎿└' and not re.match(r'\d+→', ln), \
                'continuation line of a multi-line mark starts with a prefix: %r' % ln
        if len(s) >= 8:
            assert s not in rest, 'secret appears unmarked in row %d: %r' % (rid, s)
            prev = owners.get(s)
            assert prev is None or prev == rid, 'secret reused in rows %d and %d: %r' % (prev, rid, s)
            owners[s] = rid
    return spans


def check_negative(rid, text):
    assert '«' not in text and '»' not in text, 'mark character in negative row %d' % rid


def check_text(rid, text):
    for ch in text:
        o = ord(ch)
        assert o >= 32 or ch in '\n\t', 'control character %r in row %d' % (ch, rid)


def forbidden_names():
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    names = set()
    parent = os.path.dirname(here)
    for d in sorted(os.listdir(parent)):
        if not d.startswith('agent_tuning') or d == os.path.basename(here):
            continue
        p = os.path.join(parent, d, 'README.md')
        if not os.path.exists(p):
            continue
        t = open(p, encoding='utf-8').read()
        i = t.find('## Templates')
        if i >= 0:
            names.update(re.findall(r'`([A-Za-z0-9_]+)`', t[i:]))
    return names


def main():
    rows = []
    owners = {}
    rid = 0
    for kind, temps in (('pos', POSITIVE), ('neg', NEGATIVE)):
        for ti, fn in enumerate(temps):
            for k in range(5):
                rid += 1
                long = (k % 2 == 0) if ti % 2 == 0 else (k % 2 == 1)
                ctx = Ctx(rid, long)
                text = fn(ctx)
                check_text(rid, text)
                nl = text.count('\n') + 1
                assert nl <= 150, 'row %d has %d lines' % (rid, nl)
                if long:
                    assert nl >= 40, 'long row %d (%s) has only %d lines' % (rid, fn.__name__, nl)
                if kind == 'pos':
                    check_positive(rid, text, owners)
                else:
                    check_negative(rid, text)
                rows.append({'id': rid, 'template': fn.__name__[2:], 'positive': kind == 'pos', 'text': text})
    names = [f.__name__[2:] for f in POSITIVE + NEGATIVE]
    assert len(POSITIVE) == 60 and len(NEGATIVE) == 60, (len(POSITIVE), len(NEGATIVE))
    assert len(set(names)) == 120, 'template names not distinct'
    clash = sorted(set(names) & forbidden_names())
    assert not clash, 'template names used by other sets: %s' % clash
    assert len(rows) == 600
    secrets = sorted(owners, key=len, reverse=True)
    for r in rows:
        if not r['positive']:
            for s in secrets:
                assert s not in r['text'], 'secret from row %d in negative row %d' % (owners[s], r['id'])
    out = sys.stdout.buffer
    for r in rows:
        out.write((json.dumps(r, ensure_ascii=False) + '\n').encode('utf-8'))
    spans = sum(len(spans_of(r['text'])) for r in rows if r['positive'])
    long_rows = sum(1 for r in rows if r['text'].count('\n') + 1 >= 40)
    sys.stderr.write('%d rows, %d marked spans, %d distinct marked strings, %d rows of 40+ lines\n' % (len(rows), spans, len(set(owners)), long_rows))


if __name__ == '__main__':
    main()
