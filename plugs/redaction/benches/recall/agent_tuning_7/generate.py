#!/usr/bin/env python3
"""Seventh tuning set for the redaction detector, written apart.

    python3 generate.py > rows.jsonl

Deterministic: one random.Random(SEED), no clock, no environment, no
set/dict-order dependence in the output, UTF-8 bytes on stdout.
"""
import base64
import datetime
import hashlib
import json
import random
import re
import string
import sys
import zlib

SEED = 7575
R = random.Random(SEED)
_SEEN = set()          # membership tests only; never iterated

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DI = string.digits
AN = UP + LO + DI
HEX = '0123456789abcdef'
HEXU = '0123456789ABCDEF'
B62 = DI + UP + LO
B32L = 'abcdefghijklmnopqrstuvwxyz234567'
CROCK = '0123456789abcdefghjkmnpqrstvwxyz'
URLSAFE = AN + '-_'
PWPUNCT = '!#%*+-.=?@^_~'


def rs(alpha, n):
    return ''.join(R.choice(alpha) for _ in range(n))


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def fresh(fn):
    def wrap(*a, **k):
        while True:
            v = fn(*a, **k)
            if v not in _SEEN:
                _SEEN.add(v)
                return v
    wrap.__name__ = fn.__name__
    return wrap


@fresh
def hexs(n):
    return rs(HEX, n)


@fresh
def hexu(n):
    return rs(HEXU, n)


@fresh
def aln(n):
    return rs(AN, n)


@fresh
def lowd(n):
    return rs(LO + DI, n)


@fresh
def upd(n):
    return rs(UP + DI, n)


@fresh
def digits(n):
    return R.choice('123456789') + rs(DI, n - 1)


@fresh
def b64(nbytes):
    return base64.b64encode(rbytes(nbytes)).decode()


@fresh
def b64u(nbytes):
    return base64.urlsafe_b64encode(rbytes(nbytes)).decode().rstrip('=')


@fresh
def urlsafe(n):
    return rs(URLSAFE, n)


@fresh
def uuid4():
    h = rs(HEX, 32)
    h = h[:12] + '4' + h[13:16] + R.choice('89ab') + h[17:]
    return '%s-%s-%s-%s-%s' % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def guid():
    return uuid4().upper()


def b64u_s(b):
    return base64.urlsafe_b64encode(b).decode().rstrip('=')


WORDS = ['Harbor', 'Falcon', 'Granite', 'Willow', 'Copper', 'Nimbus', 'Juniper',
         'Saffron', 'Quartz', 'Maple', 'Cobalt', 'Ember', 'Tundra', 'Orchid',
         'Atlas', 'Cedar', 'Vortex', 'Lantern', 'Pepper', 'Marlin', 'Winter',
         'Summer', 'Autumn', 'Spring', 'Osprey', 'Basalt', 'Comet', 'Fjord',
         'Heron', 'Indigo', 'Kestrel', 'Lychee', 'Mistral', 'Nectar', 'Onyx',
         'Pylon', 'Raptor', 'Sierra', 'Thistle', 'Umber', 'Vesper', 'Zephyr']
LOWWORDS = ['pine', 'river', 'stone', 'cloud', 'amber', 'delta', 'ridge', 'spark',
            'frost', 'glade', 'harbor', 'lumen', 'mossy', 'north', 'otter', 'prism',
            'quill', 'raven', 'solar', 'tidal', 'umbra', 'vivid', 'wharf', 'yonder']


@fresh
def pw(kind=None):
    """A password.  Safe inside XML attributes, JSON, INI, single quotes and
    connection strings: no quotes, backslash, ; , & < > $ or spaces."""
    k = kind or R.choice(['word', 'mixed', 'mixed', 'long', 'alnum', 'words'])
    if k == 'word':
        return '%s%s%d%s' % (R.choice(WORDS), R.choice('!#%*?@'), R.randint(100, 99999),
                             R.choice(LOWWORDS))
    if k == 'words':
        return '%s-%s-%s-%d' % (R.choice(LOWWORDS), R.choice(LOWWORDS), R.choice(LOWWORDS),
                                R.randint(10, 999))
    if k == 'mixed':
        n = R.randint(14, 20)
        s = rs(AN, n)
        for _ in range(R.randint(2, 4)):
            p = R.randrange(1, n - 1)
            s = s[:p] + R.choice(PWPUNCT) + s[p + 1:]
        return s
    if k == 'long':
        return rs(AN, R.randint(28, 40))
    return rs(AN, R.randint(12, 18))


@fresh
def pw_url():
    """Password safe in a URL userinfo without escaping."""
    return rs(AN, R.randint(14, 22)) + R.choice(['', '-', '_', '.', '~']) + rs(AN, R.randint(2, 6))


def b62enc(n, width=6):
    s = ''
    while n:
        s = B62[n % 62] + s
        n //= 62
    return s.rjust(width, '0')


@fresh
def gh_token(prefix='ghp_'):
    body = rs(AN, 30)
    return prefix + body + b62enc(zlib.crc32(body.encode()) & 0xffffffff)


@fresh
def jwt(header, payload, sig=256):
    return '%s.%s.%s' % (b64u_s(json.dumps(header, separators=(',', ':')).encode()),
                         b64u_s(json.dumps(payload, separators=(',', ':')).encode()),
                         b64u_s(rbytes(sig)))


# ---- vendor formats ---------------------------------------------------------

def sendgrid_key():
    return 'SG.' + urlsafe(22) + '.' + urlsafe(43)


def azure_client_secret():
    return fresh_str(rs(AN, 3) + R.choice(DI) + 'Q~' + rs(AN + '_.-~', 34))


def fresh_str(v):
    if v in _SEEN:
        raise RuntimeError('collision ' + v)
    _SEEN.add(v)
    return v


def azure_storage_key():
    return b64(64)


def sntrys(org):
    payload = {'iat': R.randint(1704067200, 1740000000) + R.randint(0, 999999) / 1e6,
               'url': 'https://sentry.io', 'region_url': 'https://us.sentry.io', 'org': org}
    p = base64.b64encode(json.dumps(payload, separators=(',', ':')).encode()).decode().rstrip('=')
    return fresh_str('sntrys_' + p + '_' + rs(AN + '/+', 43))


def mapbox_sk(user):
    payload = '{"u":"%s","a":"%s"}' % (user, 'cl' + lowd(23))
    return fresh_str('sk.' + b64u_s(payload.encode()) + '.' + urlsafe(22))


def adyen_api_key():
    return fresh_str('AQE' + rs(AN, 5) + base64.b64encode(rbytes(66)).decode()[:85] + '==-'
                     + base64.b64encode(rbytes(32)).decode() + '-' + rs(AN + '+/;}%=_', 16))


def bitlocker_recovery():
    return fresh_str('-'.join('%06d' % (R.randint(0, 65535) * 11) for _ in range(8)))


def azdo_pat():
    if R.random() < 0.5:
        return fresh_str(rs(B32L, 52))
    return fresh_str(rs(AN, 76) + 'AZDO' + rs(AN, 4))


def nuget_key():
    return fresh_str('oy2' + rs(LO + DI, 43))


def dapi():
    return fresh_str('dapi' + rs(HEX, 32) + R.choice(['', '', '-2', '-3']))


def hf_token():
    return fresh_str('hf_' + rs(UP + LO, 34))


def apple_asp():
    return fresh_str('-'.join(rs(LO, 4) for _ in range(4)))


def fcm_server_key():
    return fresh_str('AAAA' + rs(URLSAFE, 7) + ':APA91b' + rs(URLSAFE, 134))


def fcm_reg_token():
    return fresh_str(rs(URLSAFE, 22) + ':APA91b' + rs(URLSAFE, 134))


def jfrog_key():
    return fresh_str('AKCp8' + rs(AN, 68))


def squ():
    return fresh_str('squ_' + rs(HEX, 40))


def cfpat():
    return fresh_str('CFPAT-' + rs(URLSAFE, 43))


def sanity_token():
    return fresh_str('sk' + rs(AN, R.randint(176, 184)))


def paddle_key(env='live'):
    return fresh_str('pdl_%s_apikey_01%s_%s_%s' % (env, rs(CROCK, 24), rs(AN, 22), rs(AN, 3)))


def shopify(prefix):
    return fresh_str(prefix + rs(HEX, 32))


def ck_cs(prefix):
    return fresh_str(prefix + rs(HEX, 40))


def ably_key():
    app = rs(AN, 6)
    kid = rs(AN + '-_', 6)
    return fresh_str(app), fresh_str(app + '.' + kid), fresh_str(rs(URLSAFE, 43))


# ---- DER / PEM --------------------------------------------------------------

def der_len(n):
    if n < 128:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, 'big')
    return bytes([0x80 | len(b)]) + b


def der(tag, content):
    return bytes([tag]) + der_len(len(content)) + content


def der_int(b):
    b = b.lstrip(b'\x00') or b'\x00'
    if b[0] & 0x80:
        b = b'\x00' + b
    return der(0x02, b)


def _big(n):
    b = bytearray(rbytes(n))
    b[0] |= 0x80
    b[-1] |= 1
    return bytes(b)


def _nz(n):
    b = bytearray(rbytes(n))
    b[0] = b[0] or 0x5a
    return bytes(b)


def rsa_der(pkcs8=True):
    key = der(0x30, der_int(b'\x00') + der_int(_big(256)) + der_int(b'\x01\x00\x01')
              + der_int(_nz(256)) + der_int(_big(128)) + der_int(_big(128))
              + der_int(_nz(128)) + der_int(_nz(128)) + der_int(_nz(128)))
    if not pkcs8:
        return key
    alg = der(0x30, der(0x06, bytes.fromhex('2a864886f70d010101')) + b'\x05\x00')
    return der(0x30, der_int(b'\x00') + alg + der(0x04, key))


def ec_p256_der():
    ec = der(0x30, der_int(b'\x01') + der(0x04, rbytes(32))
             + der(0xa0, der(0x06, bytes.fromhex('2a8648ce3d030107')))
             + der(0xa1, der(0x03, b'\x00\x04' + rbytes(64))))
    alg = der(0x30, der(0x06, bytes.fromhex('2a8648ce3d0201'))
              + der(0x06, bytes.fromhex('2a8648ce3d030107')))
    return der(0x30, der_int(b'\x00') + alg + der(0x04, ec))


def pem_body(d):
    s = base64.b64encode(d).decode()
    fresh_str(s)
    return [s[i:i + 64] for i in range(0, len(s), 64)]


def pem(label, d, mode):
    """mode: 'span' (contiguous, one mark), 'lines' (each body line marked),
    'json' (one line with \\n escapes, one mark), 'raw' (no marks)."""
    body = pem_body(d)
    b, e = '-----BEGIN %s-----' % label, '-----END %s-----' % label
    if mode == 'span':
        return M('\n'.join([b] + body + [e]))
    if mode == 'lines':
        return '\n'.join([b] + [M(x) for x in body] + [e])
    if mode == 'json':
        return M('\\n'.join([b] + body + [e]))
    return '\n'.join([b] + body + [e])


def M(s):
    return '\u00ab' + s + '\u00bb'


def unmark(s):
    return s.replace('\u00ab', '').replace('\u00bb', '')


# ---- people, places, time ---------------------------------------------------

USERS = ['mkowalski', 'aisha', 'tnguyen', 'rgupta', 'lfischer', 'oadeyemi', 'skim',
         'jmartin', 'pvolkova', 'dsantos', 'hcho', 'emueller', 'bwright', 'nokafor',
         'mrossi', 'clopez', 'akhan', 'fberg', 'zli', 'ysato', 'ibrahim', 'kpatel',
         'anaruiz', 'tomasz', 'greta', 'vdubois', 'olu', 'priya', 'sven', 'hana']
FIRST = ['Ana', 'Tomasz', 'Priya', 'Kwame', 'Lena', 'Mateo', 'Yuki', 'Oren', 'Sofia',
         'Idris', 'Maren', 'Diego', 'Chloe', 'Rafael', 'Noor', 'Jonas', 'Amara', 'Felix']
LAST = ['Ruiz', 'Nowak', 'Iyer', 'Mensah', 'Hoffmann', 'Silva', 'Tanaka', 'Levi',
        'Conti', 'Haddad', 'Lund', 'Ortega', 'Martin', 'Costa', 'Rahman', 'Weber']
ORGS = ['kestrelpay', 'brightloop', 'quillmark', 'harborline', 'meridianhq', 'fernleaf',
        'coppervale', 'tidewater', 'pinecrest', 'northwind', 'contoso', 'fabrikam',
        'tailspin', 'wingtip', 'lumenlabs', 'orbitalco', 'saltmarsh', 'bluequay',
        'ironbark', 'velvetfox', 'summitly', 'oakhollow', 'granitebay', 'redkite']
PROJECTS = ['orders-api', 'checkout-web', 'ledger-svc', 'mobile-app', 'etl-pipelines',
            'storefront', 'catalog-sync', 'billing-worker', 'insights', 'partner-portal',
            'payments-gw', 'notify-svc', 'inventory', 'data-platform', 'shop-ios',
            'shop-android', 'cms-site', 'reporting', 'fulfillment', 'loyalty']
BRANCHES = ['main', 'develop', 'feature/payments-v2', 'fix/ci-secrets', 'release/3.4',
            'chore/upgrade-deps', 'feat/sso', 'hotfix/prod-db', 'spike/kafka', 'master']
MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
DOW = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']


def rdt():
    return datetime.datetime(R.choice([2024, 2025]), R.randint(1, 12), R.randint(1, 28),
                             R.randint(0, 23), R.randint(0, 59), R.randint(0, 59),
                             R.randint(0, 999) * 1000)


def iso(dt, ms=True, z='Z'):
    s = dt.strftime('%Y-%m-%dT%H:%M:%S')
    if ms:
        s += '.%03d' % (dt.microsecond // 1000)
    return s + z


def logts(dt, sep=' ', ms=True):
    s = dt.strftime('%Y-%m-%d') + sep + dt.strftime('%H:%M:%S')
    if ms:
        s += '.%03d' % (dt.microsecond // 1000)
    return s


def us_date(dt):
    h = dt.hour % 12 or 12
    return '%d/%d/%d %d:%02d:%02d %s' % (dt.month, dt.day, dt.year, h, dt.minute, dt.second,
                                          'AM' if dt.hour < 12 else 'PM')


def later(dt, lo=1, hi=90):
    return dt + datetime.timedelta(seconds=R.randint(lo, hi), milliseconds=R.randint(0, 999))


def gh_ts(dt):
    return dt.strftime('%Y-%m-%dT%H:%M:%S') + '.%07dZ' % R.randint(0, 9999999)


def person():
    f, l = R.choice(FIRST), R.choice(LAST)
    return f, l


def winhost():
    return R.choice(['DESKTOP-', 'LAPTOP-', 'WS-', 'BUILD-']) + upd(7)


def ipv4():
    return '%d.%d.%d.%d' % (R.choice([10, 172, 192]), R.randint(0, 255), R.randint(0, 255),
                            R.randint(2, 254))


def pubip():
    return '%d.%d.%d.%d' % (R.choice([20, 34, 40, 52, 104, 185, 198, 203]), R.randint(0, 255),
                            R.randint(0, 255), R.randint(2, 254))


class Ctx:
    def __init__(self, win=False, mac=False):
        self.win = win
        self.user = R.choice(USERS)
        self.org = R.choice(ORGS)
        self.proj = R.choice(PROJECTS)
        self.branch = R.choice(BRANCHES)
        self.domain = self.org + R.choice(['.com', '.io', '.dev', '.co', '.net'])
        self.t = rdt()
        if win:
            self.host = winhost()
            self.cwd = R.choice(['C:\\Users\\{u}\\source\\repos\\{p}', 'C:\\src\\{o}\\{p}',
                                 'D:\\work\\{p}']).format(u=self.user, o=self.org, p=self.proj)
            self.style = R.choice(['ps', 'ps', 'ps', 'cmd'])
        else:
            self.host = R.choice(['devbox', 'ws-%02d' % R.randint(1, 40), 'build-agent-%d' % R.randint(1, 9),
                                  'ip-10-%d-%d-%d' % (R.randint(0, 255), R.randint(0, 255), R.randint(1, 254)),
                                  'mbp-' + self.user, 'ci-runner-%d' % R.randint(1, 30), 'jumpbox', 'dev-vm'])
            if mac:
                self.home = '/Users/' + self.user
            else:
                self.home = R.choice(['/home/', '/home/', '/Users/']) + self.user
            self.cwd = R.choice([self.home + '/src/' + self.proj, self.home + '/code/' + self.proj,
                                 '/workspace/' + self.proj, self.home + '/work/' + self.org + '/' + self.proj])
            self.style = R.choice(['bash', 'zsh', 'starship', 'bracket', 'fish', 'bare'])

    def tick(self, lo=1, hi=40):
        self.t = later(self.t, lo, hi)
        return self.t

    def tilde(self):
        if self.win:
            return self.cwd
        return self.cwd.replace(self.home, '~') if self.cwd.startswith(self.home) else self.cwd

    def base(self):
        return self.cwd.replace('\\', '/').rstrip('/').split('/')[-1]

    def prompt(self):
        s = self.style
        if s == 'ps':
            return 'PS %s> ' % self.cwd
        if s == 'cmd':
            return '%s>' % self.cwd
        if s == 'bash':
            return '%s@%s:%s$ ' % (self.user, self.host, self.tilde())
        if s == 'zsh':
            return '\u279c  %s git:(%s) ' % (self.base(), self.branch)
        if s == 'starship':
            return '%s on \ue0a0 %s \n\u276f ' % (self.tilde(), self.branch)
        if s == 'bracket':
            return '[%s@%s %s]$ ' % (self.user, self.host, self.base())
        if s == 'fish':
            return '%s@%s %s (%s)> ' % (self.user, self.host, self.tilde(), self.branch)
        return '$ '


FRAMES_ALL = ['prompt', 'prompt', 'prompt', 'claude', 'claude', 'codex_exec', 'codex_ts',
              'codex_ran', 'gemini']
PREFIXED = ('claude', 'codex_ran', 'gemini')


def pick_frame(prefixed_ok=True, agent_only=False):
    ks = FRAMES_ALL
    if not prefixed_ok:
        ks = [k for k in ks if k not in PREFIXED]
    if agent_only:
        ks = [k for k in ks if k != 'prompt']
    return R.choice(ks)


PS_CMDLET = re.compile(r'\b(Get|Set|New|Select|Invoke|Enter|ConvertTo|Format|Remove|Add)-[A-Z]|\$[a-z]')


def _indent_cmd(cmd, pad):
    ls = cmd.split('\n')
    return '\n'.join([ls[0]] + [pad + x for x in ls[1:]])


def _shell_wrap(c, cmd):
    if c.win:
        q = cmd.replace("'", "''")
        return "powershell.exe -NoProfile -Command '%s'" % q
    return "bash -lc '%s'" % cmd.replace("'", "'\"'\"'")


def vislen(s):
    return len(unmark(s))


def render(c, k, cmd, out, desc=None):
    out = out.rstrip('\n')
    lines = out.split('\n') if out else []
    if k == 'prompt':
        if c.style == 'cmd' and (PS_CMDLET.search(cmd) or re.match(r'(cat|ls|rm|cp|mv) ', cmd)):
            c.style = 'ps'
        return c.prompt() + cmd + ('\n' + out if out else '')
    if k == 'claude':
        if c.win and PS_CMDLET.search(cmd) and not cmd.startswith(('pwsh', 'powershell')):
            cmd = "pwsh -NoProfile -Command '%s'" % cmd.replace("'", "''")
        head = '\u23fa Bash(%s)' % _indent_cmd(cmd, '      ')
        if not lines:
            return head + '\n  \u23bf  (No content)'
        body = ['  \u23bf  ' + lines[0]] + [('     ' + x) if x else '' for x in lines[1:]]
        return head + '\n' + '\n'.join(body)
    if k == 'codex_exec':
        ms = R.randint(8, 2400)
        return 'exec\n%s in %s\n succeeded in %dms:\n%s' % (_shell_wrap(c, cmd), c.cwd, ms, out)
    if k == 'codex_ts':
        t = c.tick(1, 5)
        ts = '[%s]' % t.strftime('%Y-%m-%dT%H:%M:%S')
        w = _shell_wrap(c, cmd)
        return '%s exec %s in %s\n%s %s succeeded in %dms:\n%s' % (
            ts, w, c.cwd, ts, w, R.randint(8, 2400), out)
    if k == 'codex_ran':
        head = '\u2022 Ran ' + _indent_cmd(cmd, '  \u2502 ')
        if not lines:
            return head + '\n  \u2514 (no output)'
        body = ['  \u2514 ' + lines[0]] + [('    ' + x) if x else '' for x in lines[1:]]
        return head + '\n' + '\n'.join(body)
    if k == 'gemini':
        title = '\u2714  Shell ' + cmd.replace('\n', ' ')
        if desc:
            title += ' (%s)' % desc
        inner = [title, ''] + lines
        w = max(vislen(x) for x in inner) + 2
        top = '\u256d' + '\u2500' * w + '\u256e'
        bot = '\u2570' + '\u2500' * w + '\u256f'
        mid = ['\u2502 ' + x + ' ' * (w - 1 - vislen(x)) + '\u2502' for x in inner]
        return '\n'.join([top] + mid + [bot])
    raise ValueError(k)


def session(c, k, steps, desc=None):
    """Several commands in one frame kind.  Prompt frames chain prompts; agent
    frames show one tool call per step."""
    parts = []
    for cmd, out in steps:
        parts.append(render(c, k, cmd, out, desc))
    if k == 'prompt':
        return '\n'.join(parts)
    return '\n\n'.join(parts)


def read_tool(path, lines, start=1):
    body = ['%6d\u2192%s' % (start + i, x) for i, x in enumerate(lines)]
    return '\u23fa Read(%s)\n' % path + '\n'.join(body)


def cat_n(lines, start=1):
    return '\n'.join('%6d\t%s' % (start + i, x) for i, x in enumerate(lines))


def bat(path, lines, start=1):
    w = 72
    out = ['\u2500' * 7 + '\u252c' + '\u2500' * w,
           '       \u2502 File: ' + path,
           '\u2500' * 7 + '\u253c' + '\u2500' * w]
    for i, x in enumerate(lines):
        out.append('%4d   \u2502 %s' % (start + i, x))
    out.append('\u2500' * 7 + '\u2534' + '\u2500' * w)
    return '\n'.join(out)


def show_file(c, path, text, prefixed_ok=True, how=None):
    """Show a file with some viewer.  Returns (rendered, prefixed)."""
    lines = text.rstrip('\n').split('\n')
    opts = ['cat', 'cat', 'cat_n', 'read', 'bat', 'sed']
    if not prefixed_ok:
        opts = ['cat', 'cat']
    how = how or R.choice(opts)
    if c.win and how in ('cat_n', 'bat', 'sed'):
        how = 'cat'
    if how == 'read':
        return read_tool(path, lines)
    if how == 'cat_n':
        k = pick_frame(prefixed_ok=True)
        return render(c, k, 'cat -n ' + path, cat_n(lines))
    if how == 'bat':
        k = pick_frame(prefixed_ok=True)
        return render(c, k, 'bat --paging=never ' + path, bat(path, lines))
    if how == 'sed':
        k = pick_frame(prefixed_ok=True)
        return render(c, k, "sed -n '1,%dp' %s" % (len(lines) + R.randint(0, 30), path), '\n'.join(lines))
    k = pick_frame(prefixed_ok=prefixed_ok)
    if c.win and how == 'cat':
        cmd = R.choice(['Get-Content ', 'type ', 'cat ']) + path
    else:
        cmd = 'cat ' + path
    return render(c, k, cmd, '\n'.join(lines))


def pick(xs):
    return R.choice(xs)


# =============================================================================
# POSITIVE TEMPLATES
# =============================================================================
POS = []
NEG = []


def positive(fn):
    POS.append((fn.__name__[2:], fn))
    return fn


def negative(fn):
    NEG.append((fn.__name__[2:], fn))
    return fn


def ps_table(headers, rows, widths=None):
    """PowerShell Format-Table: header, dashes under each header word."""
    if widths is None:
        widths = [max([len(h)] + [vislen(r[i]) for r in rows]) for i, h in enumerate(headers)]
    def fmt(cells, last_free=True):
        out = []
        for i, x in enumerate(cells):
            if i == len(cells) - 1:
                out.append(x)
            else:
                out.append(x + ' ' * (widths[i] - vislen(x)))
        return ' '.join(out).rstrip()
    lines = [fmt(headers), fmt(['-' * len(h) for h in headers])]
    lines += [fmt(r) for r in rows]
    return '\n'.join(lines)


def az_table(headers, rows):
    widths = [max([len(h)] + [vislen(r[i]) for r in rows]) for i, h in enumerate(headers)]
    def fmt(cells):
        return '  '.join(x + ' ' * (widths[i] - vislen(x)) for i, x in enumerate(cells)).rstrip()
    return '\n'.join([fmt(headers), fmt(['-' * w for w in widths])] + [fmt(r) for r in rows])


def col_t(rows, gap=2):
    widths = [max(vislen(r[i]) for r in rows) for i in range(len(rows[0]))]
    return '\n'.join(('  ' if gap == 2 else ' ').join(
        x + ' ' * (widths[i] - vislen(x)) for i, x in enumerate(r)).rstrip() for r in rows)


# ---- Windows, .NET, PowerShell ----------------------------------------------

@positive
def p_ps_get_secret_plaintext_table(i):
    c = Ctx(win=True)
    vault = pick(['LocalStore', 'SecretStore', 'DevVault', 'KeePassVault', 'CorpAzKV'])
    dbpw = pw()
    sg = sendgrid_key()
    names = [('%s-sa' % pick(['OrdersDb', 'LedgerSql', 'Reporting', 'Crm'])), pick(['SendGridKey', 'SmtpApiKey', 'MailKey']),
             'AzureSp-' + pick(['deploy', 'ci', 'terraform']), pick(['StagingCert', 'SigningPfx', 'ClientCert'])]
    tenant, appid = uuid4(), uuid4()
    sec = azure_client_secret()
    info = ps_table(['Name', 'Type', 'VaultName'],
                    [[names[0], 'String', vault], [names[1], 'String', vault],
                     [names[2], 'Hashtable', vault], [names[3], 'ByteArray', vault]])
    steps = [('Get-SecretInfo -Vault %s | Format-Table Name, Type, VaultName' % vault, '\n' + info + '\n'),
             ('Get-Secret -Name %s -AsPlainText' % names[0], M(dbpw)),
             ('Get-Secret -Name %s -AsPlainText' % names[1], M(sg))]
    if i % 2 == 0:
        ht = ps_table(['Name', 'Value'], [['TenantId', tenant], ['ClientSecret', M(sec)], ['ClientId', appid]],
                      widths=[30, 40])
        steps.append(('Get-Secret -Name %s -AsPlainText' % names[2], '\n' + ht + '\n'))
    k = pick(['prompt', 'prompt', 'claude', 'codex_exec', 'gemini'])
    if k == 'prompt':
        return session(c, k, steps)
    cmd = '; '.join(s[0] for s in steps[1:])
    out = '\n'.join(s[1].strip('\n') for s in steps[1:])
    if k == 'claude':
        return render(c, k, 'pwsh -NoProfile -Command "%s"' % cmd, out)
    return render(c, k, cmd, out, desc='read secrets from the local SecretManagement vault')


@positive
def p_psreadline_history_cmdkey(i):
    c = Ctx(win=True)
    dom = pick(['CORP', 'AD', c.org.upper()[:8], 'INTRA'])
    p1, p2, p3 = pw('word'), pw(), pw()
    srv = pick(['sql02', 'rds-gw01', 'app03', 'fs01', 'jump01']) + '.' + dom.lower() + '.local'
    lines = [
        'cd C:\\deploy',
        'cmdkey /generic:TERMSRV/%s /user:%s\\svc_deploy /pass:%s' % (srv, dom, M(p1)),
        'mstsc /v:%s' % srv,
        'net use Z: \\\\fs01\\builds /user:%s\\svc_build %s /persistent:no' % (dom, M(p2)),
        'robocopy Z:\\drops\\%s C:\\inetpub\\%s /MIR /R:2' % (c.proj, c.proj),
        "$pw = ConvertTo-SecureString '%s' -AsPlainText -Force" % M(p3),
        "$cred = New-Object System.Management.Automation.PSCredential('%s\\adm-%s', $pw)" % (dom, c.user),
        'Enter-PSSession -ComputerName app0%d -Credential $cred' % R.randint(1, 9),
        'Get-Service W3SVC',
        'git status',
    ]
    R.shuffle(lines[8:])
    start = R.randint(200, 1800)
    path = 'C:\\Users\\%s\\AppData\\Roaming\\Microsoft\\Windows\\PowerShell\\PSReadLine\\ConsoleHost_history.txt' % c.user
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    if i % 2 == 0:
        sel = [x for x in lines if any(w in x for w in ('cmdkey', 'net use', 'SecureString', 'PSCredential'))]
        out = '\n'.join('%s:%d:%s' % (path, start + lines.index(x), x) for x in sel)
        cmd = "Select-String -Path (Get-PSReadLineOption).HistorySavePath -Pattern 'cmdkey|net use|SecureString|PSCredential'"
    else:
        out = '\n'.join(lines)
        cmd = 'Get-Content (Get-PSReadLineOption).HistorySavePath -Tail %d' % len(lines)
    return render(c, k, cmd, out)


@positive
def p_netsh_wlan_profile_key_clear(i):
    c = Ctx(win=True)
    ssid = pick(['OfficeGuest', 'ACME-Corp', 'Lab-5G', 'Warehouse-IoT', 'Studio 4', 'POS-Net', 'Dev-WiFi']) + ('-%d' % R.randint(2, 9) if i % 2 else '')
    key = pick([pw('words'), pw('word'), pw('alnum')])
    full = i % 3 != 1
    if full:
        out = '''
Profile {s} on interface Wi-Fi:
=======================================================================

Applied: All User Profile

Profile information
-------------------
    Version                : 1
    Type                   : Wireless LAN
    Name                   : {s}
    Control options        :
        Connection mode    : Connect automatically
        Network broadcast  : Connect only if this network is broadcasting
        AutoSwitch         : Do not switch to other networks
        MAC Randomization  : Disabled

Connectivity settings
---------------------
    Number of SSIDs        : 1
    SSID name              : "{s}"
    Network type           : Infrastructure
    Radio type             : [ Any Radio Type ]
    Vendor extension          : Not present

Security settings
-----------------
    Authentication         : WPA2-Personal
    Cipher                 : CCMP
    Authentication         : WPA2-Personal
    Cipher                 : GCMP
    Security key           : Present
    Key Content            : {k}

Cost settings
-------------
    Cost                   : Unrestricted
    Congested              : No
    Approaching Data Limit : No
    Over Data Limit        : No
    Roaming                : No
    Cost Source            : Default
'''.format(s=ssid, k=M(key))
        cmd = 'netsh wlan show profile name="%s" key=clear' % ssid
    else:
        out = '''    SSID name              : "{s}"
    Security key           : Present
    Key Content            : {k}'''.format(s=ssid, k=M(key))
        cmd = 'netsh wlan show profile name="%s" key=clear | findstr /C:"SSID name" /C:"Key"' % ssid
    k = pick(['prompt', 'prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return render(c, k, cmd, out, desc='check the saved Wi-Fi profile')


@positive
def p_reg_query_winlogon_autologon(i):
    c = Ctx(win=True)
    dom = pick(['CORP', 'KIOSK', c.org.upper()[:9], 'WORKGROUP'])
    user = pick(['kiosk01', 'signage', 'labuser', 'svc_autologon', 'frontdesk'])
    p = pw()
    sid = 'S-1-5-21-%d-%d-%d-%d' % (R.randint(10**9, 4 * 10**9), R.randint(10**9, 4 * 10**9), R.randint(10**8, 4 * 10**9), R.randint(1000, 3000))
    if i % 2 == 0:
        rows = [('AutoRestartShell', 'REG_DWORD', '0x1'), ('Background', 'REG_SZ', '0 0 0'),
                ('CachedLogonsCount', 'REG_SZ', '10'), ('DebugServerCommand', 'REG_SZ', 'no'),
                ('DefaultDomainName', 'REG_SZ', dom), ('DefaultUserName', 'REG_SZ', user),
                ('DefaultPassword', 'REG_SZ', M(p)), ('AutoAdminLogon', 'REG_SZ', '1'),
                ('DisableBackButton', 'REG_DWORD', '0x1'), ('EnableSIHostIntegration', 'REG_DWORD', '0x1'),
                ('ForceUnlockLogon', 'REG_DWORD', '0x0'), ('LegalNoticeCaption', 'REG_SZ', ''),
                ('LegalNoticeText', 'REG_SZ', ''), ('PasswordExpiryWarning', 'REG_DWORD', '0x5'),
                ('PowerdownAfterShutdown', 'REG_SZ', '0'),
                ('PreCreateKnownFolders', 'REG_SZ', '{A520A1A4-1780-4FF6-BD18-167343C5AF16}'),
                ('ReportBootOk', 'REG_SZ', '1'), ('Shell', 'REG_SZ', 'explorer.exe'),
                ('ShellCritical', 'REG_DWORD', '0x0'), ('ShellInfrastructure', 'REG_SZ', 'sihost.exe'),
                ('SiHostCritical', 'REG_DWORD', '0x0'), ('SiHostReadyTimeOut', 'REG_DWORD', '0x0'),
                ('SiHostRestartCountLimit', 'REG_DWORD', '0x0'), ('SiHostRestartTimeGap', 'REG_DWORD', '0x0'),
                ('Userinit', 'REG_SZ', 'C:\\Windows\\system32\\userinit.exe,'),
                ('VMApplet', 'REG_SZ', 'SystemPropertiesPerformance.exe /pagefile'),
                ('WinStationsDisabled', 'REG_SZ', '0'), ('scremoveoption', 'REG_SZ', '0'),
                ('DisableCAD', 'REG_DWORD', '0x1'),
                ('LastLogOffEndTimePerfCounter', 'REG_QWORD', '0x%x' % R.randint(10**9, 10**11)),
                ('ShutdownFlags', 'REG_DWORD', '0x80000027'), ('AutoLogonSID', 'REG_SZ', sid),
                ('LastUsedUsername', 'REG_SZ', user)]
        out = '\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\n'
        out += '\n'.join('    %s    %s    %s' % r if r[2] else '    %s    %s' % r[:2] for r in rows)
        out += '\n\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\\AlternateShells'
        out += '\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\\GPExtensions'
        out += '\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\\UserDefaults'
        out += '\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\\AutoLogonChecked'
        out += '\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\\VolatileUserMgrKey\n'
        cmd = 'reg query "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon"'
    elif i % 2 == 1 and i != 3:
        out = ('\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\n'
               '    DefaultPassword    REG_SZ    %s\n' % M(p))
        cmd = 'reg query "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon" /v DefaultPassword'
    else:
        out = '''
AutoAdminLogon    : 1
DefaultUserName   : {u}
DefaultDomainName : {d}
DefaultPassword   : {p}
AutoLogonCount    : 3
PSPath            : Microsoft.PowerShell.Core\\Registry::HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon
PSParentPath      : Microsoft.PowerShell.Core\\Registry::HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion
PSChildName       : Winlogon
PSDrive           : HKLM
PSProvider        : Microsoft.PowerShell.Core\\Registry
'''.format(u=user, d=dom, p=M(p))
        cmd = "Get-ItemProperty 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon' | Select-Object AutoAdminLogon, Default*, AutoLogonCount, PS*"
    k = pick(['prompt', 'prompt', 'claude', 'codex_exec', 'codex_ts', 'gemini'])
    return render(c, k, cmd, out)


@positive
def p_reg_export_putty_sessions(i):
    c = Ctx(win=True)
    sess = []
    n = R.randint(1, 3)
    lines = ['Windows Registry Editor Version 5.00', '']
    for j in range(n):
        name = pick(['bastion-prod', 'db-tunnel', 'router-core', 'build%02d' % R.randint(1, 40), 'sftp-partner', 'legacy-erp']) + ('-%d' % j if j else '')
        ph = 'proxy.%s' % c.domain
        port = pick([3128, 8080, 1080, 8888])
        meth = 1 if port == 1080 else 3
        lines += ['[HKEY_CURRENT_USER\\Software\\SimonTatham\\PuTTY\\Sessions\\%s]' % name,
                  '"Present"=dword:00000001',
                  '"HostName"="%s"' % pick([ipv4(), 'deploy@' + ipv4(), name + '.' + c.domain]),
                  '"LogType"=dword:00000000',
                  '"LogFileName"="putty.log"',
                  '"Protocol"="ssh"',
                  '"PortNumber"=dword:%08x' % pick([22, 22, 2222]),
                  '"CloseOnExit"=dword:00000001',
                  '"ProxyExcludeList"=""',
                  '"ProxyDNS"=dword:00000001',
                  '"ProxyLocalhost"=dword:00000000',
                  '"ProxyMethod"=dword:%08x' % meth,
                  '"ProxyHost"="%s"' % ph,
                  '"ProxyPort"=dword:%08x' % port,
                  '"ProxyUsername"="%s"' % pick(['svc_jump', c.user, 'proxyuser', 'ops']),
                  '"ProxyPassword"="%s"' % M(pw('alnum') if j % 2 else pw('word')),
                  '"ProxyTelnetCommand"="connect %host %port\\\\n"',
                  '"UserName"="%s"' % pick(['deploy', 'ubuntu', 'ec2-user', c.user]),
                  '"PublicKeyFile"="C:\\\\Users\\\\%s\\\\.ssh\\\\%s.ppk"' % (c.user, pick(['deploy', 'id_ed25519', 'ops'])),
                  '"TerminalType"="xterm"',
                  '"Compression"=dword:00000000',
                  '']
    out = '\n'.join(lines)
    k = pick(['prompt', 'prompt', 'claude', 'codex_exec', 'codex_ran'])
    steps = [('reg export "HKCU\\Software\\SimonTatham\\PuTTY\\Sessions" putty-sessions.reg /y', 'The operation completed successfully.'),
             ('Get-Content .\\putty-sessions.reg', out)]
    if i % 2:
        return render(c, k, steps[1][0], steps[1][1])
    return session(c, k, steps)


@positive
def p_web_release_config_transform(i):
    c = Ctx(win=True)
    db = pick(['Orders', 'Ledger', 'Crm', 'Portal', 'Inventory'])
    host = pick(['sql-prod-01', 'SQLCLUSTER02\\PROD', 'tcp:%s-sql.database.windows.net,1433' % c.org, '10.30.4.21,1433'])
    user = pick(['%s_app' % db.lower(), 'webuser', 'svc_%s' % db.lower()])
    p1, p2 = pw(), pw()
    extra = []
    if i % 2 == 0:
        extra.append('    <add key="PaymentGateway:ApiSecret" value="%s" xdt:Transform="SetAttributes" xdt:Locator="Match(key)"/>' % M(hexs(40)))
    if i % 3 == 0:
        extra.append('    <add key="Storage:AccountKey" value="%s" xdt:Transform="SetAttributes" xdt:Locator="Match(key)"/>' % M(azure_storage_key()))
    text = '''<?xml version="1.0" encoding="utf-8"?>

<!-- For more information on using web.config transformation visit https://go.microsoft.com/fwlink/?LinkId=125889 -->

<configuration xmlns:xdt="http://schemas.microsoft.com/XML-Document-Transform">
  <connectionStrings>
    <add name="DefaultConnection"
      connectionString="Data Source={h};Initial Catalog={db};User ID={u};Password={p1};MultipleActiveResultSets=True;Encrypt=True"
      xdt:Transform="SetAttributes" xdt:Locator="Match(name)"/>
  </connectionStrings>
  <appSettings>
    <add key="Environment" value="Production" xdt:Transform="SetAttributes" xdt:Locator="Match(key)"/>
    <add key="Smtp:UserName" value="notifications@{d}" xdt:Transform="SetAttributes" xdt:Locator="Match(key)"/>
    <add key="Smtp:Password" value="{p2}" xdt:Transform="SetAttributes" xdt:Locator="Match(key)"/>
{extra}
  </appSettings>
  <system.web>
    <compilation xdt:Transform="RemoveAttributes(debug)" />
    <customErrors mode="RemoteOnly" xdt:Transform="Replace" />
  </system.web>
</configuration>'''.format(h=host, db=db, u=user, p1=M(p1), p2=M(p2), d=c.domain, extra='\n'.join(extra))
    text = text.replace('\n\n  </appSettings>', '\n  </appSettings>').replace('\n\n  </appSettings>', '\n  </appSettings>')
    path = 'src\\%s.Web\\Web.Release.config' % db if c.win else 'src/%s.Web/Web.Release.config' % db
    if i == 4:
        lines = text.split('\n')
        diff = ['diff --git a/src/%s.Web/Web.Release.config b/src/%s.Web/Web.Release.config' % (db, db),
                'index %s..%s 100644' % (hexs(7), hexs(7)),
                '--- a/src/%s.Web/Web.Release.config' % db, '+++ b/src/%s.Web/Web.Release.config' % db,
                '@@ -5,6 +5,18 @@']
        diff += [' ' + x for x in lines[4:5]] + ['+' + x for x in lines[5:-1]] + [' ' + lines[-1]]
        k = pick(['prompt', 'claude', 'codex_exec'])
        return render(c, k, 'git diff --cached -- src/%s.Web/Web.Release.config' % db, '\n'.join(diff))
    return show_file(c, path, text)


@positive
def p_appcmd_list_apppool_text(i):
    c = Ctx(win=True)
    dom = pick(['CORP', 'AD', c.org.upper()[:8]])
    pool = pick(['PartnerPortal', 'OrdersApi', 'IntranetSSO', 'ReportServerProxy', 'LegacyCrm'])
    user = '%s\\svc_%s' % (dom, pool.lower()[:10])
    p = pw()
    appcmd = '%windir%\\system32\\inetsrv\\appcmd.exe'
    if i % 3 == 2:
        cmd = '%s list apppool "%s" /text:processModel.password' % (appcmd, pool)
        out = M(p)
        k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran'])
        if k == 'prompt':
            c.style = 'cmd'
        else:
            cmd = cmd.replace('%windir%', 'C:\\Windows')
        return render(c, k, cmd, out)
    out = '''APPPOOL
  APPPOOL.NAME:"{pool}"
  PipelineMode:"Integrated"
  RuntimeVersion:"v4.0"
  state:"Started"
  [add]
    name:"{pool}"
    queueLength:"1000"
    autoStart:"true"
    enable32BitAppOnWin64:"false"
    managedRuntimeVersion:"v4.0"
    managedRuntimeLoader:"webengine4.dll"
    enableConfigurationOverride:"true"
    managedPipelineMode:"Integrated"
    CLRConfigFile:""
    passAnonymousToken:"true"
    startMode:"{sm}"
    [processModel]
      identityType:"SpecificUser"
      userName:"{user}"
      password:"{pw}"
      loadUserProfile:"true"
      setProfileEnvironment:"false"
      logonType:"LogonBatch"
      manualGroupMembership:"false"
      idleTimeout:"00:20:00"
      idleTimeoutAction:"Terminate"
      maxProcesses:"1"
      shutdownTimeLimit:"00:01:30"
      startupTimeLimit:"00:01:30"
      pingingEnabled:"true"
      pingInterval:"00:00:30"
      pingResponseTime:"00:01:30"
      logEventOnProcessModel:"IdleTimeout"
    [recycling]
      disallowOverlappingRotation:"false"
      disallowRotationOnConfigChange:"false"
      logEventOnRecycle:"Time, Memory, ConfigChange, PrivateMemory"
      [periodicRestart]
        memory:"0"
        privateMemory:"0"
        requests:"0"
        time:"1.05:00:00"
    [failure]
      loadBalancerCapabilities:"HttpLevel"
      orphanWorkerProcess:"false"
      rapidFailProtection:"true"
      rapidFailProtectionInterval:"00:05:00"
      rapidFailProtectionMaxCrashes:"5"'''.format(pool=pool, sm=pick(['OnDemand', 'AlwaysRunning']), user=user, pw=M(p))
    steps = [('%s list apppool "%s" /text:*' % (appcmd, pool), out)]
    if i % 3 == 1:
        vp = pw()
        vout = '''VDIR
  VDIR.NAME:"Default Web Site/{pool}/uploads"
  APP.NAME:"Default Web Site/{pool}"
  path:"/uploads"
  physicalPath:"\\\\nas01.{d}\\uploads\\{pool}"
  [virtualDirectory]
    path:"/uploads"
    physicalPath:"\\\\nas01.{d}\\uploads\\{pool}"
    userName:"{dom}\\svc_nas"
    password:"{vp}"
    logonMethod:"ClearText"
    allowSubDirConfig:"true"'''.format(pool=pool, d=c.domain, dom=dom, vp=M(vp))
        steps.append(('%s list vdir "Default Web Site/%s/uploads" /text:*' % (appcmd, pool), vout))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ts', 'gemini'])
    if k == 'prompt':
        c.style = 'cmd'
    else:
        steps = [(a.replace('%windir%', 'C:\\Windows'), b) for a, b in steps]
    return session(c, k, steps)


@positive
def p_ps_invoke_sqlcmd_error_echo(i):
    c = Ctx(win=True)
    c.style = 'ps'
    srv = pick(['sql-stg-02,1433', 'SQLPROD01\\SHARED', '%s-sql.database.windows.net' % c.org, 'localhost,14333'])
    db = pick(['Orders', 'Ledger', 'Warehouse', 'Crm'])
    user = pick(['etl_loader', 'sa', 'migrator', 'report_rw'])
    p = pw()
    script = 'C:\\deploy\\%s.ps1' % pick(['seed-db', 'restore-staging', 'nightly-load', 'apply-migrations'])
    ln = R.randint(9, 140)
    if i % 3 == 0:
        call = "Invoke-Sqlcmd -ServerInstance \"%s\" -Database %s -Username %s -Password '%s' -InputFile .\\sql\\seed.sql" % (srv, db, user, M(p))
        msg = "Login failed for user '%s'." % user
        err = '''Invoke-Sqlcmd : {msg}
At {sc}:{ln} char:1
+ {call}
+ {tilde}
    + CategoryInfo          : InvalidOperation: (:) [Invoke-Sqlcmd], SqlException
    + FullyQualifiedErrorId : SqlExceptionError,Microsoft.SqlServer.Management.PowerShell.GetScriptCommand
'''.format(msg=msg, sc=script, ln=ln, call=call, tilde='~' * min(vislen(call), 110))
    elif i % 3 == 1:
        call = "Invoke-Sqlcmd -ServerInstance %s -Database %s -Username %s -Password \"%s\" -Query \"EXEC dbo.usp_Rebuild\" -TrustServerCertificate" % (srv, db, user, M(p))
        err = '''Invoke-Sqlcmd: {sc}:{ln}
Line |
{ln:>4} |  {call}
     |  {tilde}
     | A network-related or instance-specific error occurred while establishing a connection to SQL Server. The server was not found or was not accessible. Verify that the instance name is correct and that SQL Server is configured to allow remote connections. (provider: TCP Provider, error: 0 - No such host is known.)
'''.format(sc=script, ln=ln, call=call, tilde='~' * min(vislen(call), 110))
    else:
        share = '\\\\nas0%d.%s\\backups' % (R.randint(1, 4), c.domain)
        call = "New-PSDrive -Name B -PSProvider FileSystem -Root %s -Credential (New-Object PSCredential('CORP\\svc_backup', (ConvertTo-SecureString '%s' -AsPlainText -Force)))" % (share, M(p))
        err = '''New-PSDrive: {sc}:{ln}
Line |
{ln:>4} |  {call}
     |  {tilde}
     | The specified network password is not correct.
'''.format(sc=script, ln=ln, call=call, tilde='~' * min(vislen(call), 110))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    cmd = '& %s -Environment %s' % (script, pick(['Staging', 'Production', 'QA']))
    return render(c, k, cmd, err)


@positive
def p_dotnet_ef_update_connection_error(i):
    c = Ctx(win=(i % 2 == 0))
    svc = pick(['Orders', 'Billing', 'Catalog', 'Identity', 'Shipping'])
    srv = pick(['tcp:sqlsrv-%s-stg.database.windows.net,1433' % svc.lower(), 'localhost,1433', 'db-%s.internal' % svc.lower()])
    user = pick(['efmigrator', 'sa', '%s_owner' % svc.lower()])
    p = pw()
    cs = 'Server=%s;Initial Catalog=%s;User ID=%s;Password=%s;Encrypt=True;TrustServerCertificate=False;Connection Timeout=30;' % (srv, svc.lower(), user, M(p))
    cmd = 'dotnet ef database update --project src/%s.Infrastructure --startup-project src/%s.Api --connection "%s"' % (svc, svc, cs)
    ip = pubip()
    cid = uuid4()
    if 'database.windows.net' in srv:
        msg = ("Cannot open server 'sqlsrv-%s-stg' requested by the login. Client with IP address '%s' is not allowed to access the server.  "
               "To enable access, use the Azure Management Portal or run sp_set_firewall_rule on the master database to create a firewall rule for this IP address or range.  "
               "It may take up to five minutes for this change to take effect." % (svc.lower(), ip))
        num = 'Error Number:40615,State:1,Class:14'
    else:
        msg = "Login failed for user '%s'." % user
        num = 'Error Number:18456,State:1,Class:14'
    trace = '''Build started...
Build succeeded.
Microsoft.Data.SqlClient.SqlException (0x80131904): {msg}
   at Microsoft.Data.SqlClient.SqlInternalConnection.OnError(SqlException exception, Boolean breakConnection, Action`1 wrapCloseInAction)
   at Microsoft.Data.SqlClient.TdsParser.ThrowExceptionAndWarning(TdsParserStateObject stateObj, Boolean callerHasConnectionLock, Boolean asyncClose)
   at Microsoft.Data.SqlClient.TdsParser.TryRun(RunBehavior runBehavior, SqlCommand cmdHandler, SqlDataReader dataStream, BulkCopySimpleResultSet bulkCopyHandler, TdsParserStateObject stateObj, Boolean& dataReady)
   at Microsoft.Data.SqlClient.TdsParser.Run(RunBehavior runBehavior, SqlCommand cmdHandler, SqlDataReader dataStream, BulkCopySimpleResultSet bulkCopyHandler, TdsParserStateObject stateObj)
   at Microsoft.Data.SqlClient.SqlInternalConnectionTds.CompleteLogin(Boolean enlistOK)
   at Microsoft.Data.SqlClient.SqlInternalConnectionTds.AttemptOneLogin(ServerInfo serverInfo, String newPassword, SecureString newSecurePassword, TimeoutTimer timeout, Boolean withFailover)
   at Microsoft.Data.SqlClient.SqlInternalConnectionTds.LoginNoFailover(ServerInfo serverInfo, String newPassword, SecureString newSecurePassword, Boolean redirectedUserInstance, SqlConnectionString connectionOptions, SqlCredential credential, TimeoutTimer timeout)
   at Microsoft.Data.SqlClient.SqlConnection.Open(SqlConnectionOverrides overrides)
   at Microsoft.EntityFrameworkCore.Storage.RelationalConnection.OpenDbConnection(Boolean errorsExpected)
   at Microsoft.EntityFrameworkCore.Migrations.HistoryRepository.Exists()
   at Microsoft.EntityFrameworkCore.Migrations.Internal.Migrator.Migrate(String targetMigration)
   at Microsoft.EntityFrameworkCore.Design.Internal.MigrationsOperations.UpdateDatabase(String targetMigration, String connectionString, String contextType)
   at Microsoft.EntityFrameworkCore.Design.OperationExecutor.UpdateDatabaseImpl(String targetMigration, String connectionString, String contextType)
   at Microsoft.EntityFrameworkCore.Design.OperationExecutor.OperationBase.Execute(Action action)
ClientConnectionId:{cid}
{num}
{msg}'''.format(msg=msg, cid=cid, num=num)
    k = pick(['prompt', 'claude', 'claude', 'codex_exec', 'codex_ts', 'codex_ran', 'gemini'])
    return render(c, k, cmd, trace, desc='apply pending EF Core migrations to staging')


def azure_jwt(aud, tenant, upn=None):
    now = R.randint(1704067200, 1740000000)
    hdr = {'typ': 'JWT', 'alg': 'RS256', 'x5t': b64u(20), 'kid': None}
    hdr['kid'] = hdr['x5t']
    pl = {'aud': aud, 'iss': 'https://sts.windows.net/%s/' % tenant, 'iat': now, 'nbf': now,
          'exp': now + R.randint(3600, 5400), 'acr': '1', 'aio': b64u(48),
          'amr': ['pwd', 'mfa'], 'appid': '04b07795-8ddb-461a-bbee-02f9e1bf7b46', 'appidacr': '0',
          'family_name': R.choice(LAST), 'given_name': R.choice(FIRST), 'idtyp': 'user',
          'ipaddr': pubip(), 'name': 'x', 'oid': uuid4(), 'puid': hexu(16), 'rh': b64u(30) + '.',
          'scp': 'user_impersonation', 'sub': b64u(32), 'tid': tenant, 'unique_name': upn,
          'upn': upn, 'uti': b64u(16), 'ver': '1.0', 'xms_tcdt': now - R.randint(10**7, 10**8)}
    pl['name'] = pl['given_name'] + ' ' + pl['family_name']
    return jwt(hdr, pl)


@positive
def p_get_azaccesstoken_format_list(i):
    c = Ctx(win=True)
    c.style = 'ps'
    tenant = uuid4()
    upn = '%s@%s' % (c.user, c.domain)
    res = pick(['https://database.windows.net/', 'https://management.azure.com/', 'https://vault.azure.net', 'https://storage.azure.com/'])
    tok = azure_jwt(res.rstrip('/') if 'vault' in res else res, tenant, upn)
    exp = later(c.t, 3600, 5000)
    out = '''
Token     : {tok}
ExpiresOn : {exp} +00:00
Type      : Bearer
TenantId  : {tenant}
UserId    : {upn}
'''.format(tok=M(tok), exp=us_date(exp), tenant=tenant, upn=upn)
    steps = [('Get-AzAccessToken -ResourceUrl %s -AsSecureString:$false' % res, out)]
    if i % 2 == 0:
        acct = c.org[:10] + pick(['prod', 'data', 'logs', 'st']) + '%02d' % R.randint(1, 99)
        ct = later(c.t, -10**7, -10**5)
        kt = ps_table(['KeyName', 'Value', 'Permissions', 'CreationTime'],
                      [['key1', M(azure_storage_key()), ' Full', us_date(ct)],
                       ['key2', M(azure_storage_key()), ' Full', us_date(later(ct, 100, 9000))]])
        steps.append(('Get-AzStorageAccountKey -ResourceGroupName rg-%s-%s -Name %s' % (c.proj, pick(['prod', 'stg']), acct), '\n' + kt + '\n'))
    k = pick(['prompt', 'prompt', 'claude', 'codex_exec', 'gemini'])
    return session(c, k, steps)


@positive
def p_az_keyvault_secret_show_table(i):
    c = Ctx(win=(i % 2 == 1))
    kv = 'kv-%s-%s' % (c.proj[:12], pick(['prod', 'stg', 'shared', 'dev']))
    if i % 3 == 0:
        name = pick(['sql-admin-password', 'redis-primary-key', 'smtp-password', 'jwt-signing-key'])
        val = pw() if 'password' in name else b64(32)
        out = az_table(['ContentType', 'Name', 'Value'], [['', name, M(val)]])
        cmd = 'az keyvault secret show --vault-name %s --name %s -o table' % (kv, name)
        k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
        steps = [(cmd, out)]
        if i == 3:
            steps.append(('az keyvault secret show --vault-name %s --name %s --query value -o tsv' % (kv, name), M(val)))
        return session(c, k, steps)
    app = 'app-%s-%s' % (c.proj, pick(['prod', 'stg']))
    redis = '%s-%s.redis.cache.windows.net:6380,password=%s,ssl=True,abortConnect=False' % (c.org, pick(['cache', 'sess']), M(b64(32)))
    rows = [['APPLICATIONINSIGHTS_CONNECTION_STRING', 'InstrumentationKey=%s;IngestionEndpoint=https://westeurope-5.in.applicationinsights.azure.com/' % uuid4(), 'False'],
            ['ASPNETCORE_ENVIRONMENT', 'Production', 'False'],
            ['ConnectionStrings__Redis', redis, 'False'],
            ['Stripe__SecretKey', M('sk_live_51' + aln(97)), 'False'],
            ['WEBSITE_RUN_FROM_PACKAGE', '1', 'False'],
            ['Smtp__Password', M(pw()), 'True']]
    if i % 3 == 2:
        rows.insert(3, ['KeyVault__Uri', 'https://%s.vault.azure.net/' % kv, 'False'])
    out = az_table(['Name', 'Value', 'SlotSetting'], rows)
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ts', 'gemini'])
    return render(c, k, 'az webapp config appsettings list -g rg-%s -n %s -o table' % (c.proj, app), out)


@positive
def p_azdo_pat_git_and_nuget_source(i):
    c = Ctx(win=(i % 2 == 0))
    org = c.org + pick(['', '-dev', 'engineering'])
    proj = pick(['Platform', 'Commerce', 'Mobile', 'Data'])
    pat = azdo_pat()
    feed = pick(['internal', 'shared-packages', 'nuget-local'])
    h1 = R.randint(100, 900)
    lines = [
        '%5d  git clone https://%s:%s@dev.azure.com/%s/%s/_git/%s' % (h1, pick(['pat', 'anything', c.user, org]), M(pat), org, proj, c.proj),
        '%5d  cd %s' % (h1 + 1, c.proj),
        '%5d  dotnet nuget add source "https://pkgs.dev.azure.com/%s/_packaging/%s/nuget/v3/index.json" --name %s --username az --password %s --store-password-in-clear-text' % (h1 + 2, org, feed, feed, M(pat)),
        '%5d  dotnet restore' % (h1 + 3),
    ]
    if i % 2:
        lines.append('%5d  echo %s | az devops login --organization https://dev.azure.com/%s' % (h1 + 4, M(pat), org))
    if c.win:
        cmd = 'Get-History | Select-String "dev.azure.com|nuget add"'
        lines = [x[7:] for x in lines]
    else:
        cmd = "history | grep -E 'dev.azure.com|nuget add|devops login'"
    out = '\n'.join(lines)
    if i == 4:
        cfg = '''<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="nuget.org" value="https://api.nuget.org/v3/index.json" protocolVersion="3" />
    <add key="{feed}" value="https://pkgs.dev.azure.com/{org}/_packaging/{feed}/nuget/v3/index.json" />
  </packageSources>
  <packageSourceCredentials>
    <{feed}>
      <add key="Username" value="az" />
      <add key="ClearTextPassword" value="{pat}" />
    </{feed}>
  </packageSourceCredentials>
</configuration>'''.format(feed=feed, org=org, pat=M(pat))
        k = pick(['prompt', 'claude', 'codex_exec'])
        return session(c, k, [(cmd, out), ('cat %s/.nuget/NuGet/NuGet.Config' % ('~' if not c.win else '$env:APPDATA'), cfg)])
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return render(c, k, cmd, out)


@positive
def p_dotnet_nuget_push_apikey_log(i):
    c = Ctx(win=(i % 2 == 1))
    pkg = '%s.%s' % (c.org.capitalize(), pick(['Extensions.Http', 'Common', 'Telemetry', 'Domain', 'Sdk', 'Testing']))
    ver = '%d.%d.%d' % (R.randint(1, 5), R.randint(0, 20), R.randint(0, 30))
    key = nuget_key()
    if i % 3 == 0:
        cmd = 'nuget setapikey %s -Source https://api.nuget.org/v3/index.json' % M(key)
        out = "The API Key '%s' was saved for 'https://api.nuget.org/v3/index.json'." % M(key)
        k = pick(['prompt', 'claude', 'codex_exec', 'gemini'])
        return render(c, k, cmd, out)
    ms = R.randint(900, 6000)
    steps = [('dotnet pack -c Release -o artifacts /p:Version=%s' % ver,
              '''MSBuild version 17.9.8+b34f75857 for .NET
  Determining projects to restore...
  All projects are up-to-date for restore.
  {p} -> {cwd}/src/{p}/bin/Release/net8.0/{p}.dll
  Successfully created package '{cwd}/artifacts/{p}.{v}.nupkg'.'''.format(p=pkg, v=ver, cwd=c.cwd.replace('\\', '/'))),
             ('dotnet nuget push "artifacts/*.nupkg" --api-key %s --source https://api.nuget.org/v3/index.json --skip-duplicate' % M(key),
              '''Pushing {p}.{v}.nupkg to 'https://www.nuget.org/api/v2/package'...
  PUT https://www.nuget.org/api/v2/package/
  Created https://www.nuget.org/api/v2/package/ {ms}ms
Your package was pushed.'''.format(p=pkg, v=ver, ms=ms))]
    if i % 3 == 2:
        ghp = gh_token('ghp_')
        steps.append(('dotnet nuget push "artifacts/*.nupkg" --api-key %s --source https://nuget.pkg.github.com/%s/index.json' % (M(ghp), c.org),
                      '''warn : The plugin credential provider could not acquire credentials. Authentication may require manual action.
Pushing {p}.{v}.nupkg to 'https://nuget.pkg.github.com/{o}'...
  PUT https://nuget.pkg.github.com/{o}/
  OK https://nuget.pkg.github.com/{o}/ {ms}ms
Your package was pushed.'''.format(p=pkg, v=ver, o=c.org, ms=R.randint(400, 3000))))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran'])
    return session(c, k, steps)


@positive
def p_publishsettings_userpwd_xml(i):
    c = Ctx(win=(i % 2 == 0))
    app = '%s-%s' % (c.proj, pick(['prod', 'stg', 'api', 'web']))
    upw = aln(60)
    ftp = 'waws-prod-%s-%03d.ftp.azurewebsites.windows.net' % (pick(['am2', 'db3', 'blu', 'sn1']), R.randint(1, 200))
    xml = ('<publishData><publishProfile profileName="{a} - Web Deploy" publishMethod="MSDeploy" publishUrl="{a}.scm.azurewebsites.net:443" '
           'msdeploySite="{a}" userName="${a}" userPWD="{p}" destinationAppUrl="https://{a}.azurewebsites.net" SQLServerDBConnectionString="" '
           'mySQLDBConnectionString="" hostingProviderForumLink="" controlPanelLink="https://portal.azure.com" webSystem="WebSites"><databases /></publishProfile>'
           '<publishProfile profileName="{a} - FTP" publishMethod="FTP" publishUrl="ftps://{ftp}/site/wwwroot" ftpPassiveMode="True" userName="{a}\\${a}" '
           'userPWD="{p}" destinationAppUrl="https://{a}.azurewebsites.net" SQLServerDBConnectionString="" mySQLDBConnectionString="" '
           'hostingProviderForumLink="" controlPanelLink="https://portal.azure.com" webSystem="WebSites"><databases /></publishProfile>'
           '<publishProfile profileName="{a} - Zip Deploy" publishMethod="ZipDeploy" publishUrl="{a}.scm.azurewebsites.net:443" userName="${a}" '
           'userPWD="{p}" destinationAppUrl="https://{a}.azurewebsites.net" SQLServerDBConnectionString="" mySQLDBConnectionString="" '
           'hostingProviderForumLink="" controlPanelLink="https://portal.azure.com" webSystem="WebSites"><databases /></publishProfile></publishData>'
           ).format(a=app, p=M(upw), ftp=ftp)
    if i % 3 == 1:
        js = json.dumps([{'SQLServerDBConnectionString': '', 'controlPanelLink': 'https://portal.azure.com',
                          'databases': None, 'destinationAppUrl': 'https://%s.azurewebsites.net' % app,
                          'hostingProviderForumLink': '', 'msdeploySite': app, 'mySQLDBConnectionString': '',
                          'profileName': '%s - Web Deploy' % app, 'publishMethod': 'MSDeploy',
                          'publishUrl': '%s.scm.azurewebsites.net:443' % app, 'userName': '$' + app,
                          'userPWD': 'PWPLACE', 'webSystem': 'WebSites'}], indent=2)
        js = js.replace('PWPLACE', M(upw))
        cmd = 'az webapp deployment list-publishing-profiles -g rg-%s -n %s' % (c.proj, app)
        k = pick(['prompt', 'claude', 'codex_exec', 'gemini'])
        return render(c, k, cmd, js)
    cmd = 'az webapp deployment list-publishing-profiles -g rg-%s -n %s --xml' % (c.proj, app)
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ts', 'codex_ran'])
    return render(c, k, cmd, xml)


@positive
def p_sqlcmd_query_gateway_secrets(i):
    c = Ctx(win=(i % 2 == 0))
    srv = pick(['sql-prod-01', 'tcp:%s.database.windows.net' % c.org, 'localhost,1433', '10.20.1.15'])
    login = pick(['sa', 'dbo_reader', 'ops_ro'])
    spw = pw()
    bt_mid, bt_pub, bt_priv = lowd(16), lowd(16), hexs(32)
    adyen = adyen_api_key()
    rzp_id, rzp_sec = 'rzp_live_' + aln(14), aln(24)
    rows = [['Adyen', 'live', M(adyen), 'NULL'],
            ['Braintree', 'live', bt_mid + '/' + bt_pub, M(bt_priv)],
            ['Razorpay', 'live', rzp_id, M(rzp_sec)]]
    if i % 2:
        rows.append(['Mollie', 'live', M('live_' + aln(30)), 'NULL'])
    w = [10, 11, max(vislen(r[2]) for r in rows), max(vislen(r[3]) for r in rows)]
    hdr = ['Provider', 'Environment', 'ApiKey', 'ApiSecret']
    def fmt(r):
        return ' '.join(x + ' ' * (w[j] - vislen(x)) for j, x in enumerate(r))
    out = [fmt(hdr), ' '.join('-' * x for x in w)] + [fmt(r) for r in rows]
    out += ['', '(%d rows affected)' % len(rows)]
    body = '1> SELECT Provider, Environment, ApiKey, ApiSecret FROM dbo.PaymentProviderSettings WHERE IsActive = 1;\n2> GO\n' + '\n'.join(out) + '\n1> quit'
    cmd = 'sqlcmd -S %s -d %s -U %s -P %s' % (srv, pick(['Payments', 'Checkout', 'Billing']), login, M(spw))
    k = pick(['prompt', 'prompt', 'claude', 'codex_exec', 'codex_ran'])
    return render(c, k, cmd, body)


@positive
def p_manage_bde_recovery_password(i):
    c = Ctx(win=True)
    c.style = 'ps'
    c.cwd = 'C:\\WINDOWS\\system32'
    rp = bitlocker_recovery()
    tid, nid = guid(), guid()
    if i % 2 == 0:
        out = '''BitLocker Drive Encryption: Configuration Tool version 10.0.{b}
Copyright (C) 2013 Microsoft Corporation. All rights reserved.

Volume C: [{label}]
All Key Protectors

    TPM:
      ID: {{{tid}}}
      PCR Validation Profile:
        7, 11
        (Uses Secure Boot for integrity validation)

    Numerical Password:
      ID: {{{nid}}}
      Password:
        {rp}
      Backup type:
        {bt}
'''.format(b=pick(['19045', '22621', '22631', '26100']), label=pick(['OS', 'Windows', 'System']), tid=tid, nid=nid, rp=M(rp),
           bt=pick(['Microsoft account backup', 'Active Directory Domain Services backup', 'Azure AD backup']))
        cmd = 'manage-bde -protectors -get C:'
    else:
        out = '''

KeyProtectorId      : {{{tid}}}
AutoUnlockProtector :
KeyProtectorType    : Tpm
KeyFileName         :
RecoveryPassword    :
KeyCertificateType  :
Thumbprint          :

KeyProtectorId      : {{{nid}}}
AutoUnlockProtector :
KeyProtectorType    : RecoveryPassword
KeyFileName         :
RecoveryPassword    : {rp}
KeyCertificateType  :
Thumbprint          :

'''.format(tid=tid, nid=nid, rp=M(rp))
        cmd = '(Get-BitLockerVolume -MountPoint C:).KeyProtector'
    k = pick(['prompt', 'prompt', 'claude', 'codex_exec', 'gemini'])
    return render(c, k, cmd, out, desc='check BitLocker protectors before the TPM reset')


# ---- JVM --------------------------------------------------------------------

@positive
def p_gradle_init_script_repo_credentials(i):
    c = Ctx()
    nexus = pick(['nexus', 'artifacts', 'repo', 'maven']) + '.' + c.domain
    user = pick(['ci-deployer', 'gradle-ro', c.user, 'svc-build'])
    p = pw()
    jf = jfrog_key()
    kts = i % 2 == 1
    if not kts:
        text = '''// ~/.gradle/init.d/corp-repos.gradle  (managed by dotfiles, do not commit)
allprojects {{
    repositories {{
        maven {{
            name = "corpReleases"
            url = uri("https://{n}/repository/maven-releases/")
            credentials {{
                username = "{u}"
                password = "{p}"
            }}
        }}
    }}
}}

settingsEvaluated {{ settings ->
    settings.pluginManagement {{
        repositories {{
            maven {{
                url "https://{o}.jfrog.io/artifactory/gradle-plugins"
                credentials(HttpHeaderCredentials) {{
                    name = "X-JFrog-Art-Api"
                    value = "{jf}"
                }}
                authentication {{
                    header(HttpHeaderAuthentication)
                }}
            }}
            gradlePluginPortal()
        }}
    }}
}}'''.format(n=nexus, u=user, p=M(p), o=c.org, jf=M(jf))
        path = '~/.gradle/init.d/corp-repos.gradle'
    else:
        gpr = gh_token('ghp_')
        text = '''// init script: route all resolution through the corporate mirror
val mirrorUser = "{u}"
val mirrorPassword = "{p}"

allprojects {{
    repositories {{
        all {{
            if (this is MavenArtifactRepository && url.host != "{n}") {{
                logger.lifecycle("Repository ${{url}} replaced by corp mirror")
                remove(this)
            }}
        }}
        maven {{
            url = uri("https://{n}/repository/maven-public/")
            credentials {{
                username = mirrorUser
                password = mirrorPassword
            }}
        }}
        maven {{
            url = uri("https://maven.pkg.github.com/{o}/*")
            credentials {{
                username = "{o}-bot"
                password = "{g}"
            }}
        }}
    }}
}}'''.format(u=user, p=M(p), n=nexus, o=c.org, g=M(gpr))
        path = '~/.gradle/init.d/mirror.init.gradle.kts'
    return show_file(c, path, text)


@positive
def p_mvn_xtrace_deploy_failure(i):
    c = Ctx()
    gpgp = pw('words')
    sq = squ()
    rp = pw()
    art = pick(['ledger-core', 'orders-client', 'common-utils', 'payments-sdk'])
    ver = '%d.%d.%d' % (R.randint(1, 4), R.randint(0, 12), R.randint(0, 9))
    nexus = 'https://nexus.%s/repository/releases/' % c.domain
    t = c.t
    lines = ['[Pipeline] sh',
             '+ mvn -B -s .ci/settings.xml deploy -DskipTests -Dgpg.passphrase=%s -Dsonar.token=%s -Drepo.password=%s' % (M(gpgp), M(sq), M(rp)),
             '[INFO] Scanning for projects...',
             '[INFO] ',
             '[INFO] -------------------< com.%s:%s >-------------------' % (c.org, art),
             '[INFO] Building %s %s' % (art, ver),
             '[INFO]   from pom.xml',
             '[INFO] --------------------------------[ jar ]---------------------------------',
             '[INFO] --- gpg:3.1.0:sign (sign-artifacts) @ %s ---' % art,
             '[INFO] --- install:3.1.1:install (default-install) @ %s ---' % art,
             '[INFO] Installing %s/pom.xml to /home/jenkins/.m2/repository/com/%s/%s/%s/%s-%s.pom' % (c.cwd, c.org, art, ver, art, ver),
             '[INFO] --- deploy:3.1.1:deploy (default-deploy) @ %s ---' % art,
             '[INFO] Uploading to releases: %scom/%s/%s/%s/%s-%s.pom' % (nexus, c.org, art, ver, art, ver),
             '[INFO] ------------------------------------------------------------------------',
             '[INFO] BUILD FAILURE',
             '[INFO] ------------------------------------------------------------------------',
             '[INFO] Total time:  %d.%03d s' % (R.randint(8, 90), R.randint(0, 999)),
             '[INFO] Finished at: %s' % iso(t, ms=False, z='Z'),
             '[INFO] ------------------------------------------------------------------------',
             '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-deploy-plugin:3.1.1:deploy (default-deploy) on project %s: '
             'Failed to deploy artifacts: Could not transfer artifact com.%s:%s:pom:%s from/to releases (%s): status code: 401, reason phrase: Unauthorized (401) -> [Help 1]' % (art, c.org, art, ver, nexus),
             '[ERROR] ',
             '[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.',
             '[ERROR] Re-run Maven using the -X switch to enable full debug logging.',
             '[ERROR] ',
             '[ERROR] For more information about the errors and possible solutions, please read the following articles:',
             '[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoExecutionException',
             '[Pipeline] }',
             'ERROR: script returned exit code 1',
             'Finished: FAILURE']
    if i % 2:
        lines = [('%s  ' % t.strftime('%H:%M:%S')) + x for x in lines]
    job = pick(['release', 'deploy-snapshot', 'publish'])
    cmd = 'curl -s -u %s:$JENKINS_TOKEN https://jenkins.%s/job/%s/job/%s/%d/consoleText | tail -n %d' % (c.user, c.domain, c.proj, job, R.randint(40, 900), len(lines))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return render(c, k, cmd, '\n'.join(lines))


@positive
def p_tomcat_users_xml_cat(i):
    c = Ctx()
    base = pick(['/opt/tomcat', '/usr/local/tomcat', '/var/lib/tomcat9', '/opt/apache-tomcat-10.1.24'])
    p1, p2 = pw(), pw()
    users = [('admin', p1, 'manager-gui,admin-gui'), (pick(['jenkins-deploy', 'ci', 'deployer']), p2, 'manager-script')]
    if i % 2:
        users.append(('monitor', pw('alnum'), 'manager-status,manager-jmx'))
    text = '''<?xml version="1.0" encoding="UTF-8"?>
<!--
  Licensed to the Apache Software Foundation (ASF) under one or more
  contributor license agreements.  See the NOTICE file distributed with
  this work for additional information regarding copyright ownership.
-->
<tomcat-users xmlns="http://tomcat.apache.org/xml"
              xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
              xsi:schemaLocation="http://tomcat.apache.org/xml tomcat-users.xsd"
              version="1.0">
  <role rolename="manager-gui"/>
  <role rolename="manager-script"/>
  <role rolename="admin-gui"/>
''' + '\n'.join('  <user username="%s" password="%s" roles="%s"/>' % (u, M(p), r) for u, p, r in users) + '\n</tomcat-users>'
    if i % 3 == 2:
        ks = pw()
        grep = ['conf/server.xml:%d:               certificateKeystorePassword="%s"' % (R.randint(80, 120), M(ks)),
                'conf/server.xml:%d:               truststorePass="changeit"' % R.randint(121, 140)]
        grep += ['conf/tomcat-users.xml:%d:  <user username="%s" password="%s" roles="%s"/>' % (14 + j, u, M(p), r) for j, (u, p, r) in enumerate(users)]
        k = pick(['prompt', 'claude', 'codex_exec', 'gemini'])
        c.cwd = base
        return render(c, k, "grep -rn -i 'pass' conf/server.xml conf/tomcat-users.xml", '\n'.join(grep))
    return show_file(c, base + '/conf/tomcat-users.xml', text)


@positive
def p_wildfly_standalone_datasource(i):
    c = Ctx()
    ds = pick(['OrdersDS', 'LedgerDS', 'CrmDS', 'ReportingDS'])
    db = ds[:-2].lower()
    p = pw()
    if i % 3 == 0:
        text = '''        <subsystem xmlns="urn:jboss:domain:datasources:7.1">
            <datasources>
                <datasource jndi-name="java:jboss/datasources/{ds}" pool-name="{ds}" enabled="true" use-java-context="true" statistics-enabled="${{wildfly.datasources.statistics-enabled:${{wildfly.statistics-enabled:false}}}}">
                    <connection-url>jdbc:postgresql://pg-{db}.internal:5432/{db}</connection-url>
                    <driver>postgresql</driver>
                    <pool>
                        <min-pool-size>5</min-pool-size>
                        <max-pool-size>40</max-pool-size>
                    </pool>
                    <security>
                        <user-name>{db}_app</user-name>
                        <password>{p}</password>
                    </security>
                    <validation>
                        <valid-connection-checker class-name="org.jboss.jca.adapters.jdbc.extensions.postgres.PostgreSQLValidConnectionChecker"/>
                        <exception-sorter class-name="org.jboss.jca.adapters.jdbc.extensions.postgres.PostgreSQLExceptionSorter"/>
                    </validation>
                </datasource>'''.format(ds=ds, db=db, p=M(p))
        lines = text.split('\n')
        st = R.randint(140, 190)
        k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran'])
        return render(c, k, "sed -n '%d,%dp' /opt/wildfly/standalone/configuration/standalone.xml" % (st, st + len(lines) - 1), text)
    ap = pw()
    cli = "/subsystem=datasources/data-source=%s:add(jndi-name=java:jboss/datasources/%s, driver-name=mysql, connection-url=\"jdbc:mysql://mysql-%s:3306/%s?useSSL=true\", user-name=%s_app, password=%s)" % (ds, ds, db, db, db, M(p))
    steps = [('/opt/wildfly/bin/jboss-cli.sh --connect --command=\'%s\'' % cli, '{"outcome" => "success"}'),
             ("/opt/wildfly/bin/add-user.sh -a -u '%s' -p '%s' -g 'guest,ejb'" % (pick(['appclient', 'remoting', 'jms-user']), M(ap)),
              "Added user 'appclient' to file '/opt/wildfly/standalone/configuration/application-users.properties'\n"
              "Added user 'appclient' to file '/opt/wildfly/domain/configuration/application-users.properties'\n"
              "Added user 'appclient' with groups guest,ejb to file '/opt/wildfly/standalone/configuration/application-roles.properties'\n"
              "Added user 'appclient' with groups guest,ejb to file '/opt/wildfly/domain/configuration/application-roles.properties'")]
    u = steps[1][0].split("-u '")[1].split("'")[0]
    steps[1] = (steps[1][0], steps[1][1].replace("'appclient'", "'%s'" % u))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ts', 'gemini'])
    return session(c, k, steps if i % 2 else steps[:1] + steps[1:])


def b36(n):
    d = '0123456789abcdefghijklmnopqrstuvwxyz'
    s = ''
    while n:
        s = d[n % 36] + s
        n //= 36
    return s or '0'


def jetty_obf(s):
    b = s.encode()
    L = len(b)
    out = 'OBF:'
    for j in range(L):
        b1, b2 = b[j], b[L - (j + 1)]
        i0 = (127 + b1 + b2) * 256 + (127 + b1 - b2)
        x = b36(i0)
        out += '000'[:4 - len(x)] + x
    return out


def fake_crypt(user):
    salt = (user + 'xx')[:2]
    return salt + rs('./' + DI + UP + LO, 11)


@positive
def p_jetty_realm_obf_properties(i):
    c = Ctx()
    jb = pick(['/opt/jetty-base', '/srv/jetty', '/var/lib/jetty9'])
    u1, u2, u3 = pick(['deployer', 'ops-admin', 'releasebot']), pick(['monitor', 'grafana', 'probe']), pick(['auditor', 'support', 'viewer'])
    p1 = pw('alnum')
    p2 = pw('word')
    o1 = jetty_obf(p1)
    fresh_str(o1)
    h3 = hashlib.md5(pw('alnum').encode()).hexdigest()
    if i % 3 == 2:
        kp = pw('alnum')
        ko = jetty_obf(kp)
        fresh_str(ko)
        cmd = "java -cp lib/jetty-util-12.0.%d.jar org.eclipse.jetty.util.security.Password %s '%s'" % (R.randint(5, 16), u1, M(kp))
        out = '%s\n%s\n%s\n%s' % (M(kp), M(ko), 'MD5:' + hashlib.md5(kp.encode()).hexdigest(), 'CRYPT:' + fake_crypt(u1))
        text2 = '''## start.d/ssl.ini
--module=ssl
jetty.ssl.port=8443
jetty.sslContext.keyStorePath=etc/keystore.p12
jetty.sslContext.keyStoreType=PKCS12
jetty.sslContext.keyStorePassword={ko}
jetty.sslContext.keyManagerPassword={ko}
jetty.sslContext.trustStorePath=etc/keystore.p12'''.format(ko=M(ko))
        c.cwd = jb
        k = pick(['prompt', 'claude', 'codex_exec'])
        return session(c, k, [(cmd, out), ('cat start.d/ssl.ini', text2)])
    text = '''#
# This file defines users passwords and roles for a HashUserRealm
#
# The format is
#  <username>: <password>[,<rolename> ...]
#
# Passwords may be clear text, obfuscated or checksummed.  The class
# org.eclipse.jetty.util.security.Password should be used to generate obfuscated
# passwords or password checksums
#
# If DIGEST Authentication is used, the password must be in a recoverable
# format, either plain text or OBF:.
#
{u1}: {o1},admin,user
{u2}: {p2},user
{u3}: MD5:{h3},user'''.format(u1=u1, o1=M(o1), u2=u2, p2=M(p2), u3=u3, h3=h3)
    return show_file(c, jb + '/etc/realm.properties', text)


@positive
def p_keytool_storepass_history(i):
    c = Ctx(mac=(i % 2 == 0))
    sp = pw('alnum')
    kp = pw('alnum') if i % 2 else sp
    p12 = pw()
    jks2 = pw()
    cs = pw('word')
    n = R.randint(300, 4000)
    dn = '"CN=%s %s, OU=Mobile, O=%s, L=Berlin, C=DE"' % (person() + (c.org.capitalize(),))
    cmds = ['keytool -genkeypair -v -keystore release.jks -alias upload -keyalg RSA -keysize 2048 -validity 10000 -storepass %s -keypass %s -dname %s' % (M(sp), M(kp), dn),
            'keytool -list -v -keystore release.jks -storepass %s' % M(sp),
            'apksigner sign --ks release.jks --ks-pass pass:%s --ks-key-alias upload --key-pass pass:%s app/build/outputs/apk/release/app-release-unsigned.apk' % (M(sp), M(kp)),
            'keytool -importkeystore -srckeystore server.p12 -srcstoretype PKCS12 -srcstorepass %s -destkeystore server.jks -deststorepass %s' % (M(p12), M(jks2)),
            'jarsigner -keystore codesign.jks -storepass %s -tsa http://timestamp.digicert.com build/libs/%s.jar codesign' % (M(cs), c.proj)]
    R.shuffle(cmds)
    cmds = cmds[:R.randint(3, 5)]
    out = '\n'.join('%5d  %s' % (n + j * R.randint(1, 6), x) for j, x in enumerate(cmds))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return render(c, k, "history | grep -E 'keytool|apksigner|jarsigner'", out, desc='find how the release keystore was created')


def jdump(obj, indent=2):
    """json.dumps that keeps «» unescaped (ensure_ascii=False)."""
    return json.dumps(obj, indent=indent, ensure_ascii=False)


@positive
def p_spring_cloud_config_server_json(i):
    c = Ctx()
    app = pick(['orders-service', 'billing-service', 'catalog', 'gateway', 'notification-service'])
    prof = pick(['prod', 'production', 'staging'])
    dbp, rbp = pw(), pw_url()
    ady = adyen_api_key()
    ver = hexs(40)
    src1 = {
        'spring.datasource.url': 'jdbc:postgresql://pg-%s.internal:5432/%s' % (prof, app.split('-')[0]),
        'spring.datasource.username': app.split('-')[0],
        'spring.datasource.password': M(dbp),
        'spring.rabbitmq.addresses': 'amqps://%s:%s@mq.%s:5671/%s' % (app.split('-')[0], M(rbp), c.domain, prof),
        'app.payments.adyen.merchant-account': c.org.capitalize() + 'ECOM',
        'app.payments.adyen.api-key': M(ady),
        'management.endpoints.web.exposure.include': 'health,info,prometheus',
    }
    src2 = {'logging.level.root': 'INFO', 'server.shutdown': 'graceful',
            'spring.jpa.open-in-view': False, 'eureka.client.service-url.defaultZone': 'http://discovery:8761/eureka/'}
    if i % 2 == 0:
        body = {'name': app, 'profiles': [prof], 'label': None, 'version': ver, 'state': None,
                'propertySources': [
                    {'name': 'https://git.%s/platform/config-repo.git/%s-%s.yml' % (c.domain, app, prof), 'source': src1},
                    {'name': 'https://git.%s/platform/config-repo.git/application.yml' % c.domain, 'source': src2}]}
        out = jdump(body)
        cmd = 'curl -s http://config-server:8888/%s/%s | jq .' % (app, prof)
    else:
        allp = dict(src2)
        allp.update(src1)
        out = '\n'.join('%s: %s' % (kk, ('false' if v is False else v)) for kk, v in sorted(allp.items()))
        cmd = 'curl -s http://config-server:8888/%s-%s.properties' % (app, prof)
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ts', 'codex_ran', 'gemini'])
    return render(c, k, cmd, out, desc='see what the config server serves for %s' % prof)


@positive
def p_micronaut_application_yml_jwt(i):
    c = Ctx()
    app = pick(['ledger', 'inventory', 'gateway', 'accounts'])
    js = b64(48) if i % 2 else aln(48)
    dbp = pw()
    text = '''micronaut:
  application:
    name: {app}
  server:
    port: 8080
  security:
    authentication: bearer
    token:
      jwt:
        signatures:
          secret:
            generator:
              secret: '"${{JWT_GENERATOR_SIGNATURE_SECRET:{js}}}"'
              jws-algorithm: HS256
        generator:
          access-token:
            expiration: 3600
datasources:
  default:
    url: jdbc:postgresql://${{DB_HOST:db.{d}}}:5432/{app}
    driver-class-name: org.postgresql.Driver
    username: {app}
    password: {dbp}
    dialect: POSTGRES
netty:
  default:
    allocator:
      max-order: 3'''.format(app=app, js=M(js), d=c.domain, dbp=M(dbp))
    if i % 3 == 1:
        sak = aln(40)
        text += '''
aws:
  region: eu-central-1
  accessKeyId: AKIA{ak}
  secretKey: {sak}'''.format(ak=upd(16), sak=M(sak))
    return show_file(c, 'src/main/resources/application-prod.yml', text)


def java_frames(kind):
    if kind == 'dm':
        return ['\tat java.sql/java.sql.DriverManager.getConnection(DriverManager.java:708)',
                '\tat java.sql/java.sql.DriverManager.getConnection(DriverManager.java:253)']
    return []


@positive
def p_jdbc_url_dialects_stacktrace(i):
    c = Ctx()
    pkg = 'com.%s.%s' % (c.org, pick(['etl', 'batch', 'reporting', 'sync']))
    dialects = []
    p = pw_url()
    u = pick(['etl', 'billing_app', 'report_ro', 'svc_sync'])
    h = pick(['db01', 'sql-prod', 'ora-prod', 'dw']) + '.' + c.domain
    opts = [
        'jdbc:sqlserver://%s:1433;databaseName=Billing;user=%s;password=%s;encrypt=true;trustServerCertificate=true' % (h, u, M(p)),
        'jdbc:oracle:thin:%s/%s@//%s:1521/ORCLPDB1' % (u, M(p), h),
        'jdbc:mysql://%s:3306/shop?user=%s&password=%s&useSSL=true&serverTimezone=UTC' % (h, u, M(p)),
        'jdbc:postgresql://%s:5432/analytics?user=%s&password=%s&sslmode=require' % (h, u, M(p)),
        'jdbc:db2://%s:50000/SAMPLE:user=%s;password=%s;sslConnection=true;' % (h, u, M(p)),
        'jdbc:snowflake://%s.eu-central-1.snowflakecomputing.com/?user=%s&password=%s&warehouse=ETL_WH&db=RAW' % (lowd(7), u.upper(), M(p)),
        'jdbc:sap://%s:30015/?user=%s&password=%s&encrypt=true' % (h, u.upper(), M(p)),
        'jdbc:redshift://%s.%s.eu-west-1.redshift.amazonaws.com:5439/dev?user=%s&password=%s' % (c.org, lowd(12), u, M(p)),
    ]
    url = opts[(i * 3 + R.randint(0, 7)) % len(opts)]
    t = c.t
    main = '%s.%s' % (pkg, pick(['ExportJob', 'NightlyLoad', 'SchemaCheck', 'Reconciler']))
    if i % 3 == 0:
        lines = ['Exception in thread "main" java.sql.SQLException: No suitable driver found for %s' % url] + java_frames('dm') + [
            '\tat %s.connect(%s.java:%d)' % (main, main.split('.')[-1], R.randint(30, 200)),
            '\tat %s.main(%s.java:%d)' % (main, main.split('.')[-1], R.randint(10, 40))]
    elif i % 3 == 1:
        lines = ['%s ERROR 1 --- [           main] liquibase.integration.commandline.Main   : Unexpected error running Liquibase: Connection could not be created to %s with driver %s.  Possibly the wrong driver for the given database URL' % (
            logts(t), url, pick(['com.microsoft.sqlserver.jdbc.SQLServerDriver', 'oracle.jdbc.OracleDriver', 'org.postgresql.Driver'])),
            'liquibase.exception.DatabaseException: Connection could not be created to %s with driver %s.  Possibly the wrong driver for the given database URL' % (url, 'org.postgresql.Driver'),
            '\tat liquibase.database.ConnectionServiceLocator.getConnection(ConnectionServiceLocator.java:86)',
            '\tat liquibase.database.DatabaseFactory.openConnection(DatabaseFactory.java:223)',
            '\tat liquibase.database.DatabaseFactory.openDatabase(DatabaseFactory.java:152)',
            '\tat liquibase.command.core.helpers.DbUrlConnectionCommandStep.obtainDatabase(DbUrlConnectionCommandStep.java:105)',
            '\tat liquibase.command.CommandScope.execute(CommandScope.java:217)',
            '\t... 14 common frames omitted']
    else:
        u2 = opts[(i * 3 + 4) % len(opts)]
        lines = ['%s  WARN %d --- [%s] o.s.b.w.s.c.AnnotationConfigServletWebServerApplicationContext : Exception encountered during context initialization - cancelling refresh attempt: org.springframework.beans.factory.BeanCreationException: Error creating bean with name \'reportingDataSource\'' % (logts(t), R.randint(1000, 40000), pick(['           main', '  restartedMain'])),
                 'Caused by: java.lang.IllegalStateException: Failed to load driver class for url %s' % url,
                 '\tat org.springframework.boot.jdbc.DataSourceBuilder.build(DataSourceBuilder.java:183)',
                 '\tat %s.config.DataSourceConfig.reportingDataSource(DataSourceConfig.java:%d)' % (pkg, R.randint(20, 90)),
                 'Caused by: java.sql.SQLException: No suitable driver found for %s' % u2] + java_frames('dm')
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    cmd = pick(['./gradlew bootRun --args="--spring.profiles.active=prod" 2>&1 | tail -n 30',
                'java -jar build/libs/%s.jar 2>&1 | grep -A8 -E "Exception|Caused by"' % c.proj,
                'mvn -q exec:java -Dexec.mainClass=%s' % main,
                'docker logs %s-%s --tail 40' % (c.proj, pick(['app', 'job', 'worker']))])
    return render(c, k, cmd, '\n'.join(lines))


@positive
def p_kafka_configs_scram_alter(i):
    c = Ctx()
    bs = 'broker-%d.kafka.%s:9093' % (R.randint(0, 5), c.domain)
    svc = pick(['svc-orders', 'svc-billing', 'connect-worker', 'ksqldb', 'svc-audit'])
    np, ap, tp = pw_url(), pw_url(), pw()
    steps = [("bin/kafka-configs.sh --bootstrap-server %s --command-config admin.properties --alter --add-config 'SCRAM-SHA-512=[iterations=8192,password=%s]' --entity-type users --entity-name %s" % (bs, M(np), svc),
              'Completed updating config for user %s.' % svc)]
    if i % 2 == 0:
        steps.append(('cat admin.properties', '''security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="{ap}";
ssl.truststore.location=/etc/kafka/secrets/kafka.truststore.jks
ssl.truststore.password={tp}'''.format(ap=M(ap), tp=M(tp))))
    else:
        up = [(pick(['alice', 'connect', 'schema-registry']), pw_url()), (pick(['bob', 'ksql', 'mirrormaker']), pw_url())]
        steps.append(('cat /etc/kafka/kafka_server_jaas.conf', '''KafkaServer {{
   org.apache.kafka.common.security.plain.PlainLoginModule required
   username="admin"
   password="{ap}"
   user_admin="{ap}"
   user_{u1}="{p1}"
   user_{u2}="{p2}";
}};

Client {{
   org.apache.zookeeper.server.auth.DigestLoginModule required
   username="kafka"
   password="{tp}";
}};'''.format(ap=M(ap), u1=up[0][0], p1=M(up[0][1]), u2=up[1][0], p2=M(up[1][1]), tp=M(tp))))
    if i == 3:
        steps.append(('bin/kafka-topics.sh --bootstrap-server %s --command-config admin.properties --list' % bs,
                      '[%s] ERROR [AdminClient clientId=adminclient-1] Connection to node -1 (%s) failed authentication due to: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512 (org.apache.kafka.clients.NetworkClient)\n'
                      'Error while executing topic command : Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512' % (logts(c.t, ms=False).replace('.', ','), bs)))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ts', 'codex_ran'])
    c.cwd = '/opt/kafka'
    return session(c, k, steps)


@positive
def p_spring_boot_bind_failure_value(i):
    c = Ctx()
    t = c.t
    cases = [
        ('stripe', 'StripeProperties', 'stripe.api-key', 'sk_live_51' + aln(97), 'must match "^sk_test_.*$"', 'System Environment Property "STRIPE_APIKEY"'),
        ('app.mail', 'MailProperties', 'app.mail.password', pw(), 'size must be between 24 and 64', 'class path resource [application-prod.yml] - %d:17' % R.randint(10, 60)),
        ('adyen', 'AdyenProperties', 'adyen.hmac-key', hexu(64), 'must match "^[0-9a-f]{64}$"', 'System Environment Property "ADYEN_HMACKEY"'),
        ('razorpay', 'RazorpayProperties', 'razorpay.key-secret', aln(24), 'must not be blank when razorpay.mode=test', 'Config resource \'class path resource [application.yml]\' via location \'optional:classpath:/\' (document #1) - %d:17' % R.randint(10, 60)),
        ('app.jwt', 'JwtProperties', 'app.jwt.secret', b64(24), 'size must be between 44 and 2147483647', 'System Environment Property "APP_JWT_SECRET"'),
    ]
    pre, cls, prop, val, reason, origin = cases[i]
    fresh_str(val) if val not in _SEEN else None
    out = '''{ts}  INFO {pid} --- [{app}] [           main] c.{o}.{app}.Application        : Starting Application v{v} using Java 21.0.{jv} with PID {pid}
{ts2}  INFO {pid} --- [{app}] [           main] c.{o}.{app}.Application        : The following 1 profile is active: "prod"
{ts3} ERROR {pid} --- [{app}] [           main] o.s.b.d.LoggingFailureAnalysisReporter   : 

***************************
APPLICATION FAILED TO START
***************************

Description:

Binding to target org.springframework.boot.context.properties.bind.BindException: Failed to bind properties under '{pre}' to com.{o}.{app}.config.{cls} failed:

    Property: {prop}
    Value: "{val}"
    Origin: {origin}
    Reason: {reason}


Action:

Update your application's configuration
'''.format(ts=logts(t), ts2=logts(later(t, 0, 1)), ts3=logts(later(t, 2, 4)), pid=R.randint(1, 60000), app=c.proj.split('-')[0],
           o=c.org, v='%d.%d.%d' % (R.randint(1, 3), R.randint(0, 20), R.randint(0, 9)), jv=R.randint(1, 5),
           pre=pre, cls=cls, prop=prop, val=M(val), origin=origin, reason=reason)
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    cmd = pick(['java -jar target/%s.jar --spring.profiles.active=prod' % c.proj, './mvnw spring-boot:run -Dspring-boot.run.profiles=prod',
                'kubectl logs deploy/%s --previous' % c.proj])
    return render(c, k, cmd, out)


@positive
def p_gradle_signing_configs_kts(i):
    c = Ctx()
    sp, kp = pw('alnum'), pw('alnum')
    maps = 'AIzaSy' + urlsafe(33)
    kts = i % 2 == 0
    if kts:
        lines = ['android {',
                 '    namespace = "com.%s.%s"' % (c.org, pick(['shop', 'wallet', 'driver', 'app'])),
                 '    compileSdk = 34',
                 '',
                 '    signingConfigs {',
                 '        create("release") {',
                 '            storeFile = file("../keystores/release.jks")',
                 '            storePassword = "%s"' % M(sp),
                 '            keyAlias = "upload"',
                 '            keyPassword = "%s"' % M(kp),
                 '        }',
                 '    }',
                 '',
                 '    buildTypes {',
                 '        release {',
                 '            isMinifyEnabled = true',
                 '            signingConfig = signingConfigs.getByName("release")',
                 '            proguardFiles(getDefaultProguardFile("proguard-android-optimize.txt"), "proguard-rules.pro")',
                 '        }',
                 '    }']
        path = 'app/build.gradle.kts'
    else:
        hm = b64(32)
        lines = ['android {',
                 '    signingConfigs {',
                 '        release {',
                 "            storeFile file('release-upload.keystore')",
                 "            storePassword '%s'" % M(sp),
                 "            keyAlias 'release'",
                 "            keyPassword '%s'" % M(kp),
                 '        }',
                 '    }',
                 '    defaultConfig {',
                 '        applicationId "com.%s.%s"' % (c.org, pick(['shop', 'wallet', 'driver'])),
                 '        minSdkVersion 24',
                 '        buildConfigField "String", "API_HMAC_SECRET", "\\"%s\\""' % M(hm),
                 '        resValue "string", "google_maps_key", "%s"' % maps,
                 '    }']
        path = 'app/build.gradle'
    st = R.randint(8, 40)
    how = pick(['read', 'sed', 'cat_n'])
    if how == 'read':
        return read_tool(path, lines, st)
    k = pick_frame()
    if how == 'sed':
        return render(c, k, "sed -n '%d,%dp' %s" % (st, st + len(lines) - 1, path), '\n'.join(lines))
    return render(c, k, "cat -n %s | sed -n '%d,%dp'" % (path, st, st + len(lines) - 1), cat_n(lines, st))


# ---- Mobile builds ----------------------------------------------------------

@positive
def p_matchfile_appfile_cat(i):
    c = Ctx(mac=True)
    bid = 'com.%s.%s' % (c.org, pick(['shop', 'wallet', 'driver', 'app', 'companion']))
    apple = pick(['ci', 'ios-release', 'appstore']) + '@' + c.domain
    team = upd(10)
    itc = digits(9)
    tok = gh_token('ghp_')
    mp = pw('words')
    asp = apple_asp()
    appfile = '''app_identifier("{b}") # The bundle identifier of your app
apple_id("{a}") # Your Apple Developer Portal username

itc_team_id("{itc}") # App Store Connect Team ID
team_id("{team}") # Developer Portal Team ID

# For more information about the Appfile, see:
#     https://docs.fastlane.tools/advanced/#appfile'''.format(b=bid, a=apple, itc=itc, team=team)
    if i % 2 == 0:
        auth = 'git_basic_authorization(Base64.strict_encode64("%s-bot:%s"))' % (c.org, M(tok))
    else:
        blob = base64.b64encode(('%s-bot:%s' % (c.org, tok)).encode()).decode()
        auth = 'git_basic_authorization("%s")' % M(blob)
    matchfile = '''git_url("https://github.com/{o}/ios-certificates.git")
storage_mode("git")

type("appstore") # The default type, can be: appstore, adhoc, enterprise or development

app_identifier(["{b}", "{b}.widget"])
username("{a}") # Your Apple Developer Portal username
{auth}

ENV["MATCH_PASSWORD"] = "{mp}"
ENV["FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD"] = "{asp}"

# For all available options run `fastlane match --help`
# Remove the # in the beginning of the line to enable the other options

# The docs are available on https://docs.fastlane.tools/actions/match'''.format(o=c.org, b=bid, a=apple, auth=auth, mp=M(mp), asp=M(asp))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    if i % 3 == 0:
        return render(c, k, 'head -n 40 fastlane/Appfile fastlane/Matchfile',
                      '==> fastlane/Appfile <==\n' + appfile + '\n\n==> fastlane/Matchfile <==\n' + matchfile)
    if i % 3 == 1:
        return read_tool('fastlane/Matchfile', matchfile.split('\n'))
    return session(c, k, [('cat fastlane/Appfile', appfile), ('cat fastlane/Matchfile', matchfile)])


@positive
def p_asc_api_key_json_fastlane(i):
    c = Ctx(mac=True)
    kid = upd(10)
    iss = uuid4()
    d = ec_p256_der()
    k = pick_frame()
    pref = k in PREFIXED
    if i % 2 == 0:
        keystr = pem('PRIVATE KEY', d, 'json')
        txt = '{\n  "key_id": "%s",\n  "issuer_id": "%s",\n  "key": "%s",\n  "duration": 1200,\n  "in_house": false\n}' % (kid, iss, keystr)
        if i == 4:
            return read_tool('fastlane/asc_api_key.json', txt.split('\n'))
        return render(c, k, 'cat fastlane/asc_api_key.json', txt)
    body = pem('PRIVATE KEY', d, 'lines' if pref else 'span')
    steps = [('ls ~/.appstoreconnect/private_keys/', 'AuthKey_%s.p8' % kid),
             ('cat ~/.appstoreconnect/private_keys/AuthKey_%s.p8' % kid, body)]
    if i == 3:
        steps.append(('grep -n APP_STORE_CONNECT fastlane/.env.default',
                      '3:APP_STORE_CONNECT_API_KEY_KEY_ID=%s\n4:APP_STORE_CONNECT_API_KEY_ISSUER_ID=%s\n5:APP_STORE_CONNECT_API_KEY_KEY_FILEPATH=~/.appstoreconnect/private_keys/AuthKey_%s.p8' % (kid, iss, kid)))
    return session(c, k, steps)


@positive
def p_eas_json_expo_token_ci(i):
    c = Ctx(mac=(i % 2 == 0))
    et = urlsafe(40)
    st = sntrys(c.org)
    asc = digits(10)
    team = upd(10)
    eas = {
        'cli': {'version': '>= 12.0.0', 'appVersionSource': 'remote'},
        'build': {
            'development': {'developmentClient': True, 'distribution': 'internal'},
            'preview': {'distribution': 'internal', 'channel': 'preview'},
            'production': {'channel': 'production', 'autoIncrement': True,
                           'env': {'SENTRY_AUTH_TOKEN': M(st), 'EXPO_PUBLIC_API_URL': 'https://api.%s' % c.domain}},
        },
        'submit': {'production': {
            'android': {'serviceAccountKeyPath': './pc-api-%s.json' % digits(19), 'track': 'internal'},
            'ios': {'appleId': 'release@%s' % c.domain, 'ascAppId': asc, 'appleTeamId': team}}},
    }
    if i % 2 == 1:
        eas['build']['production']['env']['RC_SECRET_API_KEY'] = M('sk_' + aln(32))
    t = c.t
    if i % 3 == 2:
        log = ['%s ##[group]Run npx eas-cli build --platform all --non-interactive --no-wait' % gh_ts(t),
               '%s npx eas-cli build --platform all --non-interactive --no-wait' % gh_ts(later(t, 0, 1)),
               '%s shell: /usr/bin/bash -e {0}' % gh_ts(later(t, 0, 1)),
               '%s env:' % gh_ts(later(t, 0, 1)),
               '%s   EXPO_TOKEN: %s' % (gh_ts(later(t, 0, 1)), M(et)),
               '%s ##[endgroup]' % gh_ts(later(t, 1, 2)),
               '%s \u2714 Using remote Android credentials (Expo server)' % gh_ts(later(t, 5, 9)),
               '%s \u2714 Using Keystore from configuration: Build Credentials %s (default)' % (gh_ts(later(t, 9, 12)), lowd(10))]
        k = pick(['prompt', 'claude', 'codex_exec'])
        return render(c, k, 'gh run view %d --log | grep -A7 "eas-cli build"' % R.randint(10**9, 10**10), '\n'.join(log))
    steps = [('cat eas.json', jdump(eas))]
    if i % 2 == 0:
        steps.append(('EXPO_TOKEN=%s npx eas-cli whoami' % M(et), '%s-robot (robot)\n\nAccounts:\n\u2022 %s (Role: Developer)' % (c.org, c.org)))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return session(c, k, steps)


@positive
def p_xcconfig_secrets_cat(i):
    c = Ctx(mac=True)
    mb = mapbox_sk(c.org + pick(['', '-ios', 'mobile']))
    alg_app = upd(10)
    alg_admin = hexs(32)
    hm = b64(32)
    lines = ['//',
             '//  Secrets.xcconfig',
             '//  %s' % c.proj,
             '//',
             '//  NOT in git (see .gitignore). Copy from 1Password "iOS build secrets".',
             '',
             '#include "Shared.xcconfig"',
             '',
             'API_BASE_URL = https:/$()/api.%s/v2' % c.domain,
             'BACKEND_HMAC_SECRET = %s' % M(hm),
             'ALGOLIA_APP_ID = %s' % alg_app,
             'ALGOLIA_ADMIN_API_KEY = %s' % M(alg_admin),
             'MAPBOX_DOWNLOADS_TOKEN = %s' % M(mb)]
    if i % 2:
        lines.append('INTERCOM_IOS_API_KEY = ios_sdk-%s' % hexs(40))
    how = pick(['cat', 'read', 'bat', 'cat_n'])
    return show_file(c, 'Config/Secrets.xcconfig', '\n'.join(lines), how=how)


@positive
def p_ios_dependency_tokens_ci_log(i):
    c = Ctx(mac=True)
    gt = gh_token('ghp_')
    ct = hexs(32)
    gs = gh_token('ghs_')
    pod = c.org.capitalize() + pick(['Kit', 'UI', 'Analytics', 'Networking'])
    t = c.t
    def ts():
        return t.strftime('%H:%M:%S')
    lines = ['+ export GITHUB_ACCESS_TOKEN=%s' % M(gt),
             '+ GITHUB_ACCESS_TOKEN=%s' % M(gt),
             '+ carthage bootstrap --use-xcframeworks --platform iOS --cache-builds',
             '*** Fetching swift-protobuf',
             '*** Fetching %s-ios-core' % c.org,
             '*** Checking out swift-protobuf at "1.%d.0"' % R.randint(20, 28),
             '*** Checking out %s-ios-core at "v%d.%d.%d"' % (c.org, R.randint(1, 4), R.randint(0, 9), R.randint(0, 9)),
             '*** xcodebuild output can be found in /var/folders/%s/T/xcodebuild-%s.log' % (lowd(2) + '/' + lowd(30), uuid4().upper()),
             '*** Building scheme "SwiftProtobuf" in SwiftProtobuf.xcodeproj']
    if i % 2 == 0:
        lines += ['+ pod repo add %s-specs https://x-access-token:%s@github.com/%s/Specs.git' % (c.org, M(gs), c.org),
                  "Cloning spec repo `%s-specs` from `https://x-access-token:%s@github.com/%s/Specs.git`" % (c.org, M(gs), c.org)]
    lines += ['+ export COCOAPODS_TRUNK_TOKEN=%s' % M(ct),
              '+ COCOAPODS_TRUNK_TOKEN=%s' % M(ct),
              '+ pod trunk push %s.podspec --allow-warnings' % pod,
              'Updating spec repo `trunk`',
              'Validating podspec',
              ' -> %s (%d.%d.%d)' % (pod, R.randint(1, 5), R.randint(0, 20), R.randint(0, 9)),
              '[!] Authentication token is invalid or unverified. Either verify it with the email that was sent or register a new session.']
    if i % 2:
        lines = ['[%s] %s' % (ts(), x) for x in lines]
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return render(c, k, 'less -R +G build-logs/ios-release-%d.log' % R.randint(100, 999) if i == 4 else 'tail -n %d ci/logs/ios-deps.log' % len(lines), '\n'.join(lines))


@positive
def p_fcm_legacy_server_key_curl(i):
    c = Ctx()
    sk = fcm_server_key()
    reg = fcm_reg_token()
    mid = R.randint(10**18, 9 * 10**18)
    cmd = '''curl -sS -X POST https://fcm.googleapis.com/fcm/send \\
  -H "Authorization: key={sk}" \\
  -H "Content-Type: application/json" \\
  -d '{{"to":"{reg}","notification":{{"title":"Order shipped","body":"Your order #{o} is on its way"}}}}\''''.format(sk=M(sk), reg=reg, o=R.randint(10000, 99999))
    out = '{"multicast_id":%d,"success":0,"failure":1,"canonical_ids":0,"results":[{"error":"%s"}]}' % (mid, pick(['InvalidRegistration', 'NotRegistered', 'MismatchSenderId']))
    if i % 2 == 1:
        py = ['FCM_SERVER_KEY = "%s"' % M(sk),
              '',
              'def send_push(token, title, body):',
              '    headers = {"Authorization": f"key={FCM_SERVER_KEY}", "Content-Type": "application/json"}',
              '    payload = {"to": token, "notification": {"title": title, "body": body}}',
              '    return requests.post("https://fcm.googleapis.com/fcm/send", json=payload, headers=headers, timeout=10)']
        k = pick(['prompt', 'claude', 'codex_exec'])
        return render(c, k, "rg -n -A5 'FCM_SERVER_KEY =' notifications/", '\n'.join(
            'notifications/push.py:%d:%s' % (12 + j, x) if j == 0 else 'notifications/push.py-%d-%s' % (12 + j, x) for j, x in enumerate(py)))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ts', 'gemini'])
    return render(c, k, cmd, out)


# ---- ML and data ------------------------------------------------------------

@positive
def p_databrickscfg_profiles(i):
    c = Ctx()
    t1, t2 = dapi(), dapi()
    ws1 = 'https://adb-%s.%d.azuredatabricks.net' % (digits(16), R.randint(1, 19))
    ws2 = 'https://dbc-%s-%s.cloud.databricks.com' % (hexs(8), hexs(4))
    sec = azure_client_secret()
    text = '''[DEFAULT]
host  = {ws1}
token = {t1}

[staging]
host  = {ws2}
token = {t2}
'''.format(ws1=ws1, t1=M(t1), ws2=ws2, t2=M(t2))
    if i % 2 == 0:
        text += '''
[sp-prod]
host                = {ws}
azure_tenant_id     = {tn}
azure_client_id     = {cl}
azure_client_secret = {sec}
'''.format(ws='https://adb-%s.%d.azuredatabricks.net' % (digits(16), R.randint(1, 19)), tn=uuid4(), cl=uuid4(), sec=M(sec))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    steps = [('cat ~/.databrickscfg', text.rstrip('\n'))]
    if i % 3 == 1:
        prof = [['Name', 'Host', 'Valid'], ['DEFAULT', ws1, 'YES'], ['staging', ws2, 'NO']]
        if i % 2 == 0:
            prof.append(['sp-prod', 'https://adb-...', 'YES'])
        steps.insert(0, ('databricks auth profiles', col_t(prof)))
    return session(c, k, steps)


@positive
def p_wandb_login_netrc(i):
    c = Ctx()
    key = hexs(40)
    ent = pick([c.org, c.user, c.org + '-ml'])
    if i % 3 == 2:
        src = ['import wandb', '', 'wandb.login(key="%s")' % M(key),
               'run = wandb.init(project="%s", entity="%s", config=cfg)' % (pick(['churn-model', 'ranker-v3', 'asr-finetune']), ent)]
        return read_tool('train.py', src, R.randint(1, 30))
    steps = [('wandb login --relogin %s' % M(key),
              'wandb: Appending key for api.wandb.ai to your netrc file: %s/.netrc\n' % c.home if not c.win else ''),
             ('tail -n 3 ~/.netrc', 'machine api.wandb.ai\n  login user\n  password %s' % M(key))]
    steps[0] = (steps[0][0], 'wandb: Appending key for api.wandb.ai to your netrc file: %s/.netrc' % c.home)
    if i % 2:
        steps.append(('wandb status', '''Current Settings
{{
  "_extra_http_headers": null,
  "_proxies": null,
  "api_key": "{k}",
  "base_url": "https://api.wandb.ai",
  "entity": "{e}",
  "git_remote": "origin",
  "ignore_globs": [],
  "project": null,
  "root_dir": null,
  "section": "default"
}}'''.format(k=M(key), e=ent)))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return session(c, k, steps)


@positive
def p_hf_cli_login_git_credential(i):
    c = Ctx()
    tok = hf_token()
    hu = pick([c.user, c.org + '-bot', 'ml-' + c.user])
    if i % 2 == 0:
        steps = [('huggingface-cli login --token %s --add-to-git-credential' % M(tok),
                  'Token is valid (permission: write).\n'
                  'Your token has been saved in your configured git credential helpers (store).\n'
                  'Your token has been saved to %s/.cache/huggingface/token\n'
                  'Login successful' % c.home)]
    else:
        name = pick(['ci-upload', 'laptop', 'inference-ro', 'datasets-write'])
        steps = [('hf auth login --token %s --add-to-git-credential' % M(tok),
                  'The token `%s` has been saved to %s/.cache/huggingface/stored_tokens\n'
                  'Your token has been saved in your configured git credential helpers (store).\n'
                  'Your token has been saved to %s/.cache/huggingface/token\n'
                  'Login successful.\n'
                  'The current active token is: `%s`' % (name, c.home, c.home, name))]
    steps.append(('cat ~/.git-credentials', 'https://%s:%s@huggingface.co' % (hu, M(tok)) +
                  ('\nhttps://%s:%s@github.com' % (c.user, M(gh_token('gho_'))) if i % 3 == 0 else '')))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ts', 'gemini'])
    return session(c, k, steps)


def jupyter_key():
    return fresh_str(rs(HEX, 8) + '-' + rs(HEX, 24))


@positive
def p_jupyter_kernel_connection_json(i):
    c = Ctx()
    kid = uuid4()
    key = jupyter_key()
    ports = R.sample(range(32768, 60999), 5)
    d = {'shell_port': ports[0], 'iopub_port': ports[1], 'stdin_port': ports[2], 'control_port': ports[3],
         'hb_port': ports[4], 'ip': '127.0.0.1', 'key': 'KEYPLACE', 'transport': 'tcp',
         'signature_scheme': 'hmac-sha256', 'kernel_name': pick(['python3', '', 'ir', 'conda-env-ml-py'])}
    js = jdump(d).replace('KEYPLACE', M(key))
    rt = '%s/.local/share/jupyter/runtime' % c.home
    if i % 3 == 0:
        out = js + '''

Paste the above JSON into a file, and connect with:
    $> jupyter <app> --existing <file>
or, if you are local, you can connect with just:
    $> jupyter <app> --existing kernel-{k}.json
or even just:
    $> jupyter <app> --existing
if this is the most recent Jupyter kernel you have started.'''.format(k=kid)
        return 'In [%d]: %%connect_info\n' % R.randint(3, 40) + out
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    steps = [('ls -t %s | head -3' % rt, 'kernel-%s.json\njpserver-%d.json\njpserver-%d-open.html' % (kid, R.randint(1000, 90000), R.randint(1000, 90000))),
             ('cat %s/kernel-%s.json' % (rt, kid), js)]
    return session(c, k, steps if i % 2 else steps[1:])


@positive
def p_snowsql_config_connections(i):
    c = Ctx()
    acct = '%s.%s' % (lowd(7), pick(['eu-central-1', 'us-east-2.aws', 'west-europe.azure', 'ap-southeast-2']))
    p1, p2 = pw(), pw()
    if i % 2 == 0:
        text = '''[connections]
# *WARNING* *WARNING* *WARNING* *WARNING* *WARNING* *WARNING*
#
# The Snowflake user password is stored in plain text in this file.
# Pay special attention to the management of this file.
# Thank you.
#
# *WARNING* *WARNING* *WARNING* *WARNING* *WARNING* *WARNING*

#If a connection doesn't specify a value, it will default to these
#
accountname = {a}
username = {u}
password = {p1}

[connections.reporting]
accountname = {a}
username = LOOKER_SVC
password = {p2}
dbname = ANALYTICS
schemaname = MARTS
warehousename = REPORTING_WH
rolename = REPORTER

[variables]
#Loads these variables on startup
#Can be used in SnowSQL as select $example_variable

example_variable=27

[options]
# If set to false auto-completion will not occur interactive mode.
auto_completion = True
log_file = ~/.snowsql/log
log_level = INFO'''.format(a=acct, u=pick(['ETL_SVC', c.user.upper(), 'DBT_RUNNER']), p1=M(p1), p2=M(p2))
        return show_file(c, '~/.snowsql/config', text)
    pp = pw('words')
    text = '''default_connection_name = "dev"

[connections.dev]
account = "{org}-{a}"
user = "{u}"
password = "{p1}"
warehouse = "DEV_WH"
database = "DEV_{db}"
role = "DEVELOPER"

[connections.prod_keypair]
account = "{org}-{a}"
user = "DBT_PROD"
authenticator = "SNOWFLAKE_JWT"
private_key_file = "~/.snowflake/keys/dbt_prod.p8"
private_key_file_pwd = "{pp}"
warehouse = "TRANSFORMING"'''.format(org=c.org.upper(), a=lowd(7).upper(), u=c.user.upper(), p1=M(p1), db=c.proj.upper().replace('-', '_'), pp=M(pp))
    return show_file(c, '~/.snowflake/connections.toml', text)


@positive
def p_snowflake_connector_traceback(i):
    c = Ctx()
    p = pw()
    acct = '%s.%s' % (lowd(7), pick(['eu-central-1', 'us-east-2.aws', 'west-europe.azure']))
    user = pick(['LOADER', 'ETL_SVC', 'AIRFLOW', c.user.upper()])
    script = pick(['load_orders.py', 'sync_events.py', 'backfill.py', 'export_marts.py'])
    ln = R.randint(20, 120)
    venv = '%s/.venv/lib/python3.11/site-packages' % (c.home if not c.cwd.startswith('/workspace') else '/workspace/' + c.proj)
    call = 'conn = snowflake.connector.connect(user="%s", password="%s", account="%s", warehouse="LOAD_WH", database="RAW")' % (user, M(p), acct)
    tb = '''Traceback (most recent call last):
  File "{cwd}/scripts/{s}", line {ln}, in <module>
    {call}
           {car}
  File "{v}/snowflake/connector/__init__.py", line 55, in Connect
    return SnowflakeConnection(**kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{v}/snowflake/connector/connection.py", line {l2}, in __init__
    self.connect(**kwargs)
  File "{v}/snowflake/connector/connection.py", line {l3}, in connect
    self.__open_connection()
  File "{v}/snowflake/connector/connection.py", line {l4}, in __open_connection
    self.authenticate_with_retry(self.auth_class)
  File "{v}/snowflake/connector/auth/_auth.py", line {l5}, in authenticate
    Error.errorhandler_wrapper(
  File "{v}/snowflake/connector/errors.py", line 290, in errorhandler_wrapper
    handed_over = Error.hand_to_other_handler(
                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{v}/snowflake/connector/errors.py", line 345, in hand_to_other_handler
    cursor.errorhandler(connection, cursor, error_class, error_value)
  File "{v}/snowflake/connector/errors.py", line 221, in default_errorhandler
    raise error_class(
snowflake.connector.errors.DatabaseError: 250001 (08001): None: Failed to connect to DB: {a}.snowflakecomputing.com:443. Incorrect username or password was specified.'''.format(
        cwd=c.cwd, s=script, ln=ln, call=call, car='^' * (vislen(call) - 7), v=venv, l2=R.randint(400, 500),
        l3=R.randint(800, 900), l4=R.randint(1100, 1200), l5=R.randint(380, 420), a=acct)
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ts', 'codex_ran', 'gemini'])
    return render(c, k, 'python scripts/%s --date %s' % (script, c.t.strftime('%Y-%m-%d')), tb)


@positive
def p_dbt_cloud_yml_projects(i):
    c = Ctx()
    tv = 'dbtu_' + aln(40)
    fresh_str(tv)
    pid = str(R.randint(100000, 999999))
    aid = str(R.randint(10**13, 10**14 - 1))
    host = pick(['cloud.getdbt.com', 'emea.dbt.com', 'au.dbt.com'])
    text = '''version: "1"
context:
  active-host: "{h}"
  active-project: "{pid}"
projects:
  - project-name: "{pn}"
    project-id: "{pid}"
    account-name: "{an}"
    account-id: "{aid}"
    account-host: "{h}"
    token-name: "cloud-cli-{tn}"
    token-value: "{tv}"'''.format(h=host, pid=pid, pn=pick(['analytics', 'marts', 'finance_dbt']), an=c.org.capitalize(),
                                   aid=aid, tn=hexs(4), tv=M(tv))
    steps = [('cat ~/.dbt/dbt_cloud.yml', text)]
    if i % 2 == 1:
        sv = 'dbtc_' + aln(46)
        fresh_str(sv)
        job = R.randint(10000, 999999)
        steps.append(('curl -s -X POST -H "Authorization: Token %s" -H "Content-Type: application/json" https://%s/api/v2/accounts/%s/jobs/%d/run/ -d \'{"cause":"agent re-run after fix"}\' | jq .status' % (M(sv), host, aid, job),
                      '{\n  "code": 200,\n  "is_success": true,\n  "user_message": "Success!",\n  "developer_message": ""\n}'))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return session(c, k, steps)


@positive
def p_abctl_local_credentials(i):
    c = Ctx()
    p = aln(32)
    cid = uuid4()
    cs = aln(32)
    email = pick(['[not set]', 'ops@' + c.domain, c.user + '@' + c.domain])
    out = '''  INFO    Using Kubernetes provider:
            Provider: kind
            Kubeconfig: {h}/.airbyte/abctl/abctl.kubeconfig
            Context: kind-airbyte-abctl
 SUCCESS  Retrieving your credentials from 'airbyte-auth-secrets'
  INFO    Credentials:
            Email: {e}
            Password: {p}
            Client-Id: {cid}
            Client-Secret: {cs}'''.format(h=c.home, e=email, p=M(p), cid=cid, cs=M(cs))
    steps = [('abctl local credentials', out)]
    if i % 3 == 1:
        np = pw()
        steps.insert(0, ("abctl local credentials --password '%s'" % M(np),
                         '  INFO    Using Kubernetes provider:\n            Provider: kind\n            Kubeconfig: %s/.airbyte/abctl/abctl.kubeconfig\n            Context: kind-airbyte-abctl\n SUCCESS  Password updated' % c.home))
        steps[1] = (steps[1][0], steps[1][1].replace(M(p), M(np)))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return session(c, k, steps)


@positive
def p_meltano_config_plugin_json(i):
    c = Ctx()
    p = pw()
    if i % 2 == 0:
        cfg = {'host': 'pg-replica.%s' % c.domain, 'port': 5432, 'user': 'meltano_ro', 'password': M(p),
               'database': pick(['app', 'shop', 'core']), 'ssl_enable': True, 'default_replication_method': 'LOG_BASED',
               'filter_schemas': ['public']}
        return render(c, pick(['prompt', 'claude', 'codex_exec', 'gemini']), 'meltano config tap-postgres', jdump(cfg))
    gt = gh_token('ghp_')
    out = '''Custom, possibly unsupported by the plugin:
start_date [env: TAP_GITHUB_START_DATE] current value: '2024-01-01' (from `meltano.yml`)
auth_token [env: TAP_GITHUB_AUTH_TOKEN] current value: '{gt}' (from `TAP_GITHUB_AUTH_TOKEN` in `.env`)
repositories [env: TAP_GITHUB_REPOSITORIES] current value: ['{o}/{p}'] (from `meltano.yml`)
user_agent [env: TAP_GITHUB_USER_AGENT] current value: None (default)
stream_maps [env: TAP_GITHUB_STREAM_MAPS] current value: None (default)'''.format(gt=M(gt), o=c.org, p=c.proj)
    steps = [('meltano config tap-github list', out)]
    if i == 3:
        steps.append(('grep -v "^#" .env', 'TAP_GITHUB_AUTH_TOKEN=%s\nTARGET_SNOWFLAKE_PASSWORD=%s' % (M(gt), M(p))))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@positive
def p_superset_config_py(i):
    c = Ctx()
    sk = b64(42)
    dbp = pw_url()
    sg = sendgrid_key()
    gj = aln(48)
    rp = pw()
    mb = 'pk.' + b64u_s(('{"u":"%s","a":"cl%s"}' % (c.org, lowd(23))).encode()) + '.' + urlsafe(22)
    lines = ['import os',
             'from celery.schedules import crontab',
             'from flask_caching.backends.rediscache import RedisCache',
             '',
             'SECRET_KEY = "%s"' % M(sk),
             'SQLALCHEMY_DATABASE_URI = "postgresql+psycopg2://superset:%s@pg-meta:5432/superset"' % M(dbp),
             '',
             'FEATURE_FLAGS = {"ALERT_REPORTS": True, "EMBEDDED_SUPERSET": True, "DASHBOARD_RBAC": True}',
             '',
             'SMTP_HOST = "smtp.sendgrid.net"',
             'SMTP_STARTTLS = True',
             'SMTP_SSL = False',
             'SMTP_USER = "apikey"',
             'SMTP_PORT = 587',
             'SMTP_PASSWORD = "%s"' % M(sg),
             'SMTP_MAIL_FROM = "superset@%s"' % c.domain,
             '',
             'GUEST_TOKEN_JWT_SECRET = "%s"' % M(gj),
             'GUEST_ROLE_NAME = "EmbeddedViewer"',
             'MAPBOX_API_KEY = "%s"' % mb,
             '',
             'RESULTS_BACKEND = RedisCache(host="redis", port=6379, password="%s", key_prefix="superset_results")' % M(rp)]
    return show_file(c, pick(['docker/pythonpath_dev/superset_config.py', 'superset_config.py', '/app/pythonpath/superset_config.py']), '\n'.join(lines))


@positive
def p_great_expectations_config_variables(i):
    c = Ctx()
    p = pw()
    sp = pw_url()
    wh = aln(24)
    text = '''# This config file supports variable substitution which enables: 1) keeping
# secrets out of source control & 2) environment-based configuration changes
# such as staging vs prod.
#
# When GX encounters substitution syntax (like `my_key: ${{my_value}}` or
# `my_key: $my_value`) in the great_expectations.yml file, it will attempt
# to replace the value of `my_key` with the value from an environment
# variable `my_value` or a corresponding key read from this config file,
# which is defined through the `config_variables_file_path`.
# Environment variables take precedence over variables defined here.
#
# Substitution values defined here can be a simple (non-nested) value,
# nested value such as a dictionary, or an environment variable (i.e. ${{ENV_VAR}})
#
#
# https://docs.greatexpectations.io/docs/guides/setup/configuring_data_contexts/how_to_configure_credentials

instance_id: {iid}
warehouse_pg_creds:
  drivername: postgresql
  host: pg-dw.{d}
  port: '5432'
  username: gx_reader
  password: {p}
  database: dw
snowflake_connection_string: snowflake://GX_SVC:{sp}@{acct}/ANALYTICS/PUBLIC?warehouse=GX_WH&role=GX
validation_slack_webhook: https://hooks.slack.com/services/T{t}/B{b}/{wh}'''.format(
        iid=uuid4(), d=c.domain, p=M(p), sp=M(sp), acct=lowd(7), t=upd(8), b=upd(10), wh=M(wh))
    return show_file(c, 'gx/uncommitted/config_variables.yml', text)


@positive
def p_fivetran_api_curl_verbose(i):
    c = Ctx()
    key = aln(16)
    sec = aln(32)
    blob = base64.b64encode(('%s:%s' % (key, sec)).encode()).decode()
    ip = pubip()
    g1 = '%s_%s' % (pick(['decent', 'projected', 'warm', 'hollow', 'brisk']), pick(['dropsy', 'sickle', 'lantern', 'cobra', 'meadow']))
    out = '''*   Trying {ip}:443...
* Connected to api.fivetran.com ({ip}) port 443
* ALPN: curl offers h2,http/1.1
* TLSv1.3 (OUT), TLS handshake, Client hello (1):
* TLSv1.3 (IN), TLS handshake, Server hello (2):
* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS
* ALPN: server accepted h2
* Server certificate:
*  subject: CN=*.fivetran.com
*  issuerificate: C=US; O=Let's Encrypt; CN=R11
* using HTTP/2
* Server auth using Basic with user '{key}'
> GET /v1/groups HTTP/2
> Host: api.fivetran.com
> Authorization: Basic {blob}
> User-Agent: curl/8.5.0
> Accept: application/json;version=2
>
< HTTP/2 200
< content-type: application/json;charset=utf-8
< x-request-id: {rid}
<
{{"code":"Success","data":{{"items":[{{"id":"{g1}","name":"Warehouse","created_at":"{ts}"}}],"next_cursor":null}}}}'''.format(
        ip=ip, key=key, blob=M(blob), rid=uuid4(), g1=g1, ts=iso(c.t, ms=True))
    out = out.replace('issuerificate', 'issuer')
    cmd = 'curl -v -u "%s:%s" -H "Accept: application/json;version=2" https://api.fivetran.com/v1/groups' % (key, M(sec))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return render(c, k, cmd, out)


# ---- E-commerce and CMS -----------------------------------------------------

@positive
def p_magento_env_php(i):
    c = Ctx()
    ck = hexs(32)
    dbp, mqp = pw(), pw()
    front = 'admin_' + lowd(6)
    rp = pw('alnum') if i % 2 else ''
    text = """<?php
return [
    'backend' => [
        'frontName' => '{front}'
    ],
    'remote_storage' => [
        'driver' => 'file'
    ],
    'queue' => [
        'consumers_wait_for_messages' => 1,
        'amqp' => [
            'host' => 'rabbitmq',
            'port' => '5672',
            'user' => 'magento',
            'password' => '{mqp}',
            'virtualhost' => '/'
        ]
    ],
    'crypt' => [
        'key' => '{ck}'
    ],
    'db' => [
        'table_prefix' => '',
        'connection' => [
            'default' => [
                'host' => 'mysql-primary',
                'dbname' => 'magento',
                'username' => 'magento',
                'password' => '{dbp}',
                'model' => 'mysql4',
                'engine' => 'innodb',
                'initStatements' => 'SET NAMES utf8;',
                'active' => '1',
                'driver_options' => [
                    1014 => false
                ]
            ]
        ]
    ],
    'resource' => [
        'default_setup' => [
            'connection' => 'default'
        ]
    ],
    'x-frame-options' => 'SAMEORIGIN',
    'MAGE_MODE' => 'production',
    'session' => [
        'save' => 'redis',
        'redis' => [
            'host' => 'redis-session',
            'port' => '6379',
            'password' => '{rp}',
            'timeout' => '2.5',
            'database' => '2'
        ]
    ],""".format(front=front, mqp=M(mqp), ck=M(ck), dbp=M(dbp), rp=M(rp) if rp else '')
    lines = text.split('\n')
    if i % 3 == 0:
        return read_tool('app/etc/env.php', lines)
    k = pick_frame()
    return render(c, k, "sed -n '1,%dp' app/etc/env.php" % len(lines), text)


@positive
def p_shopify_theme_access_push(i):
    c = Ctx()
    store = '%s-%s.myshopify.com' % (c.org, pick(['outfitters', 'store', 'shop', 'eu']))
    tka = shopify('shptka_')
    tid = R.randint(120000000000, 189999999999)
    if i % 2 == 0:
        cmd = 'shopify theme push --store %s --password %s --theme %d --nodelete' % (store, M(tka), tid)
        out = '''
 Uploading files to remote theme [{tid}] {n}/production
 {pct}% [==========================                          ] 
 \u2714 Your theme was pushed successfully to {store}

  View your theme:
  https://{store}/?preview_theme_id={tid}

  Customize your theme at the theme editor:
  https://{store}/admin/themes/{tid}/editor'''.format(tid=tid, n=pick(['Dawn', 'Sense', 'Refresh', c.proj]), store=store, pct=R.randint(40, 99))
        k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran'])
        return render(c, k, cmd, out)
    key = hexs(32)
    sec = shopify('shpss_')
    at = shopify('shpat_')
    env = ['SHOPIFY_API_KEY=%s' % key,
           'SHOPIFY_API_SECRET=%s' % M(sec),
           'SCOPES=write_products,read_orders,write_fulfillments',
           'SHOPIFY_FLAG_STORE=%s' % store,
           'SHOPIFY_CLI_THEME_TOKEN=%s' % M(tka),
           'SHOPIFY_ADMIN_ACCESS_TOKEN=%s' % M(at),
           'HOST=https://%s.trycloudflare.com' % '-'.join(pick(LOWWORDS) for _ in range(4))]
    return show_file(c, '.env', '\n'.join(env))


@positive
def p_woocommerce_rest_keys_curl(i):
    c = Ctx()
    ck, cs = ck_cs('ck_'), ck_cs('cs_')
    shop = pick(['shop.', 'store.', 'www.']) + c.domain
    if i % 3 == 0:
        cmd = "curl -s 'https://%s/wp-json/wc/v3/orders?per_page=2&status=processing' -u %s:%s | jq '.[] | {id, status, total}'" % (shop, M(ck), M(cs))
        out = '\n'.join('{\n  "id": %d,\n  "status": "processing",\n  "total": "%d.%02d"\n}' % (R.randint(10000, 99999), R.randint(10, 400), R.randint(0, 99)) for _ in range(2))
        return render(c, pick(['prompt', 'claude', 'codex_exec', 'gemini']), cmd, out)
    ln = R.randint(10, 80)
    venv = '%s/.venv/lib/python3.12/site-packages' % c.cwd
    url = 'https://%s/wp-json/wc/v3/products?consumer_key=%s&consumer_secret=%s&per_page=100&page=1' % (shop, M(ck), M(cs))
    tb = '''Traceback (most recent call last):
  File "{cwd}/sync/woo_import.py", line {ln}, in <module>
    resp.raise_for_status()
  File "{v}/requests/models.py", line 1024, in raise_for_status
    raise HTTPError(http_error_msg, response=self)
requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: {url}'''.format(cwd=c.cwd, ln=ln, v=venv, url=url)
    steps = [('python sync/woo_import.py', tb)]
    if i % 3 == 2:
        steps.append(("grep -n 'consumer_' sync/woo_import.py",
                      '%d:    consumer_key="%s",\n%d:    consumer_secret="%s",' % (ln - 9, M(ck), ln - 8, M(cs))))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


@positive
def p_strapi_env_app_keys(i):
    c = Ctx()
    keys = [b64(16) for _ in range(4)]
    salt, ajs, tts, jws = b64(16), b64(16), b64(16), b64(16)
    enc = b64(16)
    dbp = pw()
    lines = ['HOST=0.0.0.0',
             'PORT=1337',
             'APP_KEYS=' + ','.join(M(k) for k in keys),
             'API_TOKEN_SALT=' + M(salt),
             'ADMIN_JWT_SECRET=' + M(ajs),
             'TRANSFER_TOKEN_SALT=' + M(tts),
             'JWT_SECRET=' + M(jws)]
    if i % 2:
        lines.append('ENCRYPTION_KEY=' + M(enc))
    lines += ['# Database',
              'DATABASE_CLIENT=postgres',
              'DATABASE_HOST=%s' % pick(['127.0.0.1', 'db', 'pg-cms.internal']),
              'DATABASE_PORT=5432',
              'DATABASE_NAME=strapi',
              'DATABASE_USERNAME=strapi',
              'DATABASE_PASSWORD=' + M(dbp),
              'DATABASE_SSL=false']
    return show_file(c, pick(['.env', 'cms/.env', 'apps/cms/.env']), '\n'.join(lines))


@positive
def p_ghost_config_production_json(i):
    c = Ctx()
    dbp = pw()
    mp = hexs(32) + '-' + hexs(8) + '-' + hexs(8)
    cfg = {'url': 'https://blog.%s' % c.domain,
           'server': {'port': 2368, 'host': '127.0.0.1'},
           'database': {'client': 'mysql', 'connection': {'host': 'localhost', 'user': 'ghost-%d' % R.randint(100, 999),
                                                          'password': M(dbp), 'database': 'ghost_prod'}},
           'mail': {'transport': 'SMTP', 'options': {'service': 'Mailgun', 'host': 'smtp.eu.mailgun.org', 'port': 465,
                                                     'secure': True, 'auth': {'user': 'postmaster@mg.%s' % c.domain, 'pass': M(mp)}}},
           'logging': {'transports': ['file', 'stdout']},
           'process': 'systemd',
           'paths': {'contentPath': '/var/www/ghost/content'}}
    steps = [('cat /var/www/ghost/config.production.json', jdump(cfg))]
    if i % 2 == 0:
        kid, ksec = hexs(24), hexs(64)
        steps.append(('grep GHOST_ /etc/%s/deploy.env' % c.proj,
                      'GHOST_API_URL=https://blog.%s\nGHOST_ADMIN_API_KEY=%s:%s\nGHOST_CONTENT_API_KEY=%s' % (c.domain, kid, M(ksec), hexs(26))))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


def contentful_table(rows):
    w1 = max(len(a) for a, b in rows) + 2
    w2 = max(len(str(b)) for a, b in rows) + 2
    tot = w1 + w2 + 1
    out = ['\u250c' + '\u2500' * tot + '\u2510',
           '\u2502 ' + 'Exported entities'.ljust(tot - 1) + '\u2502',
           '\u251c' + '\u2500' * w1 + '\u252c' + '\u2500' * w2 + '\u2524']
    for a, b in rows:
        out.append('\u2502 ' + a.ljust(w1 - 1) + '\u2502' + str(b).rjust(w2 - 1) + ' \u2502')
    out.append('\u2514' + '\u2500' * w1 + '\u2534' + '\u2500' * w2 + '\u2518')
    return '\n'.join(out)


@positive
def p_contentfulrc_space_export(i):
    c = Ctx()
    tok = cfpat()
    space = lowd(12)
    rc = '{\n  "managementToken": "%s",\n  "activeSpaceId": "%s",\n  "activeEnvironmentId": "master",\n  "host": "api.contentful.com"\n}' % (M(tok), space)
    steps = [('cat ~/.contentfulrc.json', rc)]
    if i % 2 == 0:
        ts = c.t.strftime('%Y-%m-%dT%H-%M-%S')
        steps.append(('contentful space export --space-id %s --environment-id master --management-token %s --export-dir ./backup --skip-webhooks' % (space, M(tok)),
                      contentful_table([('Content Types', R.randint(5, 60)), ('Entries', R.randint(100, 9000)),
                                        ('Assets', R.randint(10, 3000)), ('Locales', R.randint(1, 6))]) + '''
Stored space data to json file at: backup/contentful-export-{s}-master-{ts}.json'''.format(s=space, ts=ts)))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@positive
def p_sanity_debug_secrets(i):
    c = Ctx()
    tok = sanity_token()
    uid = 'p' + aln(8)
    f, l = person()
    proj = lowd(8)
    out = '''User:
  ID: '{uid}'
  Name: '{f} {l}'
  Email: '{em}'
  Roles: [ 'administrator' ]

Authentication:
  User type: 'normal'
  Auth token: '{tok}'

Global config ({h}/.config/sanity/config.json):
  authType: 'normal'
  authToken: '{tok}'

Project:
  ID: '{proj}'
  Display name: '{pn}'
  Studio URL: 'https://{pn}.sanity.studio/'
  User role: 'administrator'

Project config ({cwd}/sanity.cli.ts):
  api: {{ projectId: '{proj}', dataset: 'production' }}

Package versions:
  @sanity/cli (global): 3.{v1}.0 (up to date)
  @sanity/cli (local): 3.{v1}.0 (up to date)
  sanity: 3.{v1}.{v2} (up to date)'''.format(uid=uid, f=f, l=l, em='%s.%s@%s' % (f.lower(), l.lower(), c.domain), tok=M(tok),
                                              h=c.home, proj=proj, pn=c.proj, cwd=c.cwd, v1=R.randint(40, 80), v2=R.randint(0, 3))
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), 'npx sanity debug --secrets', out)


# ---- Payments and messaging -------------------------------------------------

@positive
def p_adyen_http_debug_x_api_key(i):
    c = Ctx()
    ak = adyen_api_key()
    t = c.t
    pid = R.randint(1000, 60000)
    n = R.randint(0, 20)
    thr = pick(['nio-8080-exec-3', 'http-nio-8443-exec-7', 'task-2', 'scheduling-1'])
    merchant = c.org.capitalize() + pick(['ECOM', 'POS', 'Online'])
    def l(msg):
        c.t += datetime.timedelta(milliseconds=R.randint(0, 3))
        return '%s DEBUG %d --- [%s] org.apache.hc.client5.http.headers       : http-outgoing-%d %s' % (logts(c.t), pid, thr, n, msg)
    lines = [l('>> POST /v71/payments HTTP/1.1'),
             l('>> Accept: application/json'),
             l('>> Content-Type: application/json'),
             l('>> x-api-key: %s' % M(ak)),
             l('>> Idempotency-Key: %s' % uuid4()),
             l('>> User-Agent: adyen-java-api-library/25.1.0'),
             l('>> Host: checkout-test.adyen.com'),
             l('<< HTTP/1.1 401 Unauthorized'),
             l('<< pspReference: %s' % upd(16)),
             l('<< Content-Type: application/problem+json;charset=UTF-8')]
    out = '\n'.join(lines)
    if i % 2 == 0:
        hk = hexu(64)
        out += '\n%s ERROR %d --- [%s] c.%s.payments.AdyenClient          : payment failed merchantAccount=%s hmacKey=%s status=401 errorCode=000 message=HTTP Exception' % (
            logts(later(c.t, 0, 1)), pid, thr, c.org, merchant, M(hk))
    cmd = pick(['kubectl logs deploy/%s --since=10m | grep -E "http-outgoing|AdyenClient"' % c.proj,
                'grep -E "http-outgoing-[0-9]+ >>|AdyenClient" logs/application.log | tail -n 20',
                'docker compose logs payments --no-log-prefix | tail -n 12'])
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ts', 'codex_ran', 'gemini']), cmd, out)


@positive
def p_braintree_rails_console(i):
    c = Ctx()
    mid, pub, priv = lowd(16), lowd(16), hexs(32)
    addr = '0x0000%s' % hexs(12)
    ruby = pick(['3.2.2', '3.3.0', '3.1.4'])
    call = 'gw = Braintree::Gateway.new(environment: :production, merchant_id: "%s", public_key: "%s", private_key: "%s")' % (mid, pub, M(priv))
    out = '''Loading production environment (Rails 7.{rv}.{rp})
{app}(prod)> {call}
=> #<Braintree::Gateway:{addr} @config=#<Braintree::Configuration merchant_id: "{mid}", public_key: "{pub}", private_key: [FILTERED]>>
{app}(prod)> gw.transaction.find("{tx}")
/home/deploy/.gem/ruby/{ruby}/gems/braintree-4.{bv}.0/lib/braintree/util.rb:{ln}:in `raise_exception_for_status_code': Braintree::AuthenticationError (Braintree::AuthenticationError)
\tfrom /home/deploy/.gem/ruby/{ruby}/gems/braintree-4.{bv}.0/lib/braintree/http.rb:{ln2}:in `_http_do'
\tfrom /home/deploy/.gem/ruby/{ruby}/gems/braintree-4.{bv}.0/lib/braintree/http.rb:{ln3}:in `get'
\tfrom /home/deploy/.gem/ruby/{ruby}/gems/braintree-4.{bv}.0/lib/braintree/transaction_gateway.rb:{ln4}:in `find'
{app}(prod)> '''.format(rv=R.randint(0, 2), rp=R.randint(0, 8), app=c.proj.split('-')[0], call=call, addr=addr, mid=mid, pub=pub,
                        tx=lowd(8), ruby=ruby, bv=R.randint(10, 25), ln=R.randint(40, 80), ln2=R.randint(150, 200),
                        ln3=R.randint(20, 40), ln4=R.randint(90, 130))
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), 'RAILS_ENV=production bin/rails console', out.rstrip())


@positive
def p_razorpay_node_inspect(i):
    c = Ctx()
    kid = 'rzp_live_' + aln(14)
    ks = aln(24)
    ws = pw('alnum')
    out = '''Welcome to Node.js v{nv}.
Type ".help" for more information.
> const Razorpay = require('razorpay')
undefined
> const rzp = new Razorpay({{ key_id: process.env.RAZORPAY_KEY_ID, key_secret: process.env.RAZORPAY_KEY_SECRET }})
undefined
> rzp
Razorpay {{
  key_id: '{kid}',
  key_secret: '{ks}',
  headers: {{}},
  api: API {{
    rq: [Function: wrap] {{
      request: [Function: request],
      getUri: [Function: getUri],
      defaults: [Object],
      interceptors: [Object]
    }}
  }},
  accounts: {{ create: [Function: create], edit: [Function: edit], fetch: [Function: fetch], delete: [Function: delete] }},
  orders: {{
    all: [Function: all],
    fetch: [Function: fetch],
    create: [Function: create],
    edit: [Function: edit],
    fetchPayments: [Function: fetchPayments],
    fetchTransferOrder: [Function: fetchTransferOrder],
    viewRtoReview: [Function: viewRtoReview],
    editFulfillment: [Function: editFulfillment]
  }},
  ... 38 more items
}}
> await rzp.orders.create({{ amount: 50000, currency: 'INR', receipt: 'rcpt_{r}' }})
Uncaught {{
  statusCode: 401,
  error: {{
    code: 'BAD_REQUEST_ERROR',
    description: 'Authentication failed',
    source: 'NA',
    step: 'NA',
    reason: 'NA',
    metadata: {{}}
  }}
}}
> process.env.RAZORPAY_WEBHOOK_SECRET
'{ws}'
'''.format(nv=pick(['20.11.1', '18.19.0', '22.3.0']), kid=kid, ks=M(ks), r=R.randint(1000, 9999), ws=M(ws))
    if i % 2:
        out = out.split("> process.env.RAZORPAY_WEBHOOK_SECRET")[0]
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']),
                  'node --env-file=.env', out.rstrip() + '\n>')


@positive
def p_paddle_billing_pytest_locals(i):
    c = Ctx()
    env = pick(['sdbx', 'live'])
    key = paddle_key(env)
    base = 'https://sandbox-api.paddle.com' if env == 'sdbx' else 'https://api.paddle.com'
    ntf = 'pdl_ntfset_01' + rs(CROCK, 24) + '_' + rs(AN, 32)
    fresh_str(ntf)
    ln = R.randint(20, 90)
    out = '''============================= test session starts ==============================
platform linux -- Python 3.12.{pv}, pytest-8.{ptv}.0, pluggy-1.5.0
rootdir: {cwd}
configfile: pyproject.toml
plugins: anyio-4.4.0, respx-0.21.1
collected {n} items

tests/test_billing.py ..F                                                [100%]

=================================== FAILURES ===================================
_____________________________ test_create_price ______________________________

client = <httpx.Client object at 0x7f{a1}>

    def test_create_price(client):
        headers = {{"Authorization": f"Bearer {{settings.PADDLE_API_KEY}}", "Paddle-Version": "1"}}
        resp = client.post("/prices", json=PRICE, headers=headers)
>       assert resp.status_code == 201
E       assert 403 == 201
E        +  where 403 = <Response [403 Forbidden]>.status_code

PRICE      = {{'description': 'Pro monthly', 'product_id': 'pro_01{p}', 'unit_price': {{'amount': '2900', 'currency_code': 'USD'}}}}
client     = <httpx.Client object at 0x7f{a1}>
headers    = {{'Authorization': 'Bearer {key}', 'Paddle-Version': '1'}}
resp       = <Response [403 Forbidden]>

tests/test_billing.py:{ln}: AssertionError
=========================== short test summary info ============================
FAILED tests/test_billing.py::test_create_price - assert 403 == 201
========================= 1 failed, 2 passed in 0.{ms}s ==========================='''.format(
        pv=R.randint(1, 7), ptv=R.randint(0, 3), cwd=c.cwd, n=3, a1=hexs(10), p=rs(CROCK, 24), key=M(key), ln=ln, ms=R.randint(20, 99))
    steps = [('pytest -l tests/test_billing.py', out)]
    if i % 2:
        steps.append(('grep PADDLE .env.test', 'PADDLE_API_BASE=%s\nPADDLE_API_KEY=%s\nPADDLE_WEBHOOK_SECRET=%s' % (base, M(key), M(ntf))))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


@positive
def p_nexmorc_vonage_app_key(i):
    c = Ctx()
    ak = hexs(8)
    sec = aln(16)
    app = uuid4()
    k = pick_frame()
    pref = k in PREFIXED
    rc = '[credentials]\napi_key = %s\napi_secret = %s\napp_id = %s\nprivate_key = %s/.vonage/%s.key' % (ak, M(sec), app, c.home, app)
    if i % 2 == 0:
        return session(c, k, [('cat ~/.nexmorc', rc)] + ([('cat ~/.vonage/%s.key' % app, pem('PRIVATE KEY', rsa_der(), 'lines' if pref else 'span'))] if i == 2 else []))
    cfg = '{\n  "apiKey": "%s",\n  "apiSecret": "%s",\n  "appId": "%s",\n  "privateKey": "%s"\n}' % (ak, M(sec), app, pem('PRIVATE KEY', rsa_der(), 'json'))
    return render(c, k, 'cat ~/.vonage/config.json', cfg)


@positive
def p_messagebird_accesskey_curl(i):
    c = Ctx()
    key = aln(25)
    mid = hexs(32)
    orig = c.org.capitalize()[:11]
    phone = '31' + digits(9)
    ts = iso(c.t, ms=False, z='+00:00')
    cmd = '''curl -s -X POST https://rest.messagebird.com/messages \\
  -H 'Authorization: AccessKey {k}' \\
  -d "recipients={ph}" \\
  -d "originator={o}" \\
  -d "body=Your verification code is {code}"'''.format(k=M(key), ph=phone, o=orig, code=R.randint(100000, 999999))
    out = ('{"id":"%s","href":"https://rest.messagebird.com/messages/%s","direction":"mt","type":"sms","originator":"%s",'
           '"body":"Your verification code is %d","reference":null,"validity":null,"gateway":10,"typeDetails":{},"datacoding":"plain",'
           '"mclass":1,"scheduledDatetime":null,"createdDatetime":"%s","recipients":{"totalCount":1,"totalSentCount":1,'
           '"totalDeliveredCount":0,"totalDeliveryFailedCount":0,"items":[{"recipient":%s,"status":"sent","statusDatetime":"%s",'
           '"messagePartCount":1}]}}') % (mid, mid, orig, R.randint(100000, 999999), ts, phone, ts)
    steps = [(cmd, out)]
    if i % 2:
        sk = aln(32)
        steps.append(('grep -rn MESSAGEBIRD config/', 'config/sms.php:%d:    \'access_key\' => env(\'MESSAGEBIRD_ACCESS_KEY\', \'%s\'),\nconfig/sms.php:%d:    \'signing_key\' => env(\'MESSAGEBIRD_SIGNING_KEY\', \'%s\'),' % (
            R.randint(5, 20), M(key), R.randint(21, 30), M(sk))))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@positive
def p_ably_rest_basic_auth(i):
    c = Ctx()
    app, name, sec = ably_key()
    full = '%s:%s' % (name, sec)
    blob = base64.b64encode(full.encode()).decode()
    chan = pick(['orders', 'driver-location', 'chat:support', 'inventory-updates'])
    if i % 2 == 0:
        cmd = "curl -v https://rest.ably.io/channels/%s/messages -u \"%s:%s\" -H 'Content-Type: application/json' --data '{\"name\":\"created\",\"data\":\"{\\\"id\\\":%d}\"}'" % (chan, name, M(sec), R.randint(1000, 99999))
        out = '''*   Trying {ip}:443...
* Connected to rest.ably.io ({ip}) port 443
* Server auth using Basic with user '{name}'
> POST /channels/{ch}/messages HTTP/2
> Host: rest.ably.io
> Authorization: Basic {blob}
> User-Agent: curl/8.7.1
> Accept: */*
> Content-Type: application/json
> Content-Length: {cl}
>
< HTTP/2 201
< content-type: application/json
< x-ably-serverid: frontend.{fid}.{reg}-a.{fid2}
<
{{"channel":"{ch}","messageId":"{mid}:0"}}'''.format(ip=pubip(), name=name, ch=chan, blob=M(blob), cl=R.randint(40, 90),
                                                      fid=hexs(12), reg=pick(['eu-west-1', 'us-east-1']), fid2=hexs(8), mid=b64u(9))
        return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), cmd, out)
    env = ['ABLY_API_KEY=%s:%s' % (name, M(sec)),
           'NEXT_PUBLIC_ABLY_CLIENT_ID_PREFIX=web-',
           'ABLY_APP_ID=%s' % app]
    return show_file(c, '.env.local', '\n'.join(env))


# =============================================================================
# NEGATIVE TEMPLATES
# =============================================================================

def sid():
    return 'S-1-5-21-%d-%d-%d' % (R.randint(10**9, 4 * 10**9), R.randint(10**9, 4 * 10**9), R.randint(10**8, 4 * 10**9))


# ---- Windows, .NET, PowerShell ----------------------------------------------

@negative
def n_cmdkey_list_targets(i):
    c = Ctx(win=True)
    dom = pick(['CORP', 'AD', c.org.upper()[:8]])
    ents = [('LegacyGeneric:target=git:https://dev.azure.com', 'Generic ', 'PersonalAccessToken', True),
            ('Domain:target=TERMSRV/%s.%s.local' % (pick(['sql02', 'rds01', 'app03']), dom.lower()), 'Domain Password', '%s\\svc_deploy' % dom, False),
            ('LegacyGeneric:target=MicrosoftAccount:user=%s@outlook.com' % c.user, 'Generic ', '%s@outlook.com' % c.user, True),
            ('WindowsLive:target=virtualapp/didlogical', 'Generic ', '02' + lowd(14), True),
            ('LegacyGeneric:target=GitHub - https://api.github.com/%s' % c.user, 'Generic ', c.user, True),
            ('Domain:interactive=%s\\adm-%s' % (dom, c.user), 'Domain Password', '%s\\adm-%s' % (dom, c.user), False),
            ('LegacyGeneric:target=Microsoft_OC1:uri=%s@%s:specific:OAUTH:1' % (c.user, c.domain), 'Generic ', uuid4(), True)]
    R.shuffle(ents)
    ents = ents[:R.randint(4, 7)]
    out = ['', 'Currently stored credentials:', '']
    for t, ty, u, lm in ents:
        out += ['    Target: %s' % t, '    Type: %s' % ty, '    User: %s' % u]
        if lm:
            out.append('    Local machine persistence')
        out.append('    ')
    k = pick(['prompt', 'prompt', 'claude', 'codex_exec', 'gemini'])
    return render(c, k, 'cmdkey /list', '\n'.join(out))


@negative
def n_ps_secretmanagement_no_plaintext(i):
    c = Ctx(win=True)
    c.style = 'ps'
    vault = pick(['LocalStore', 'SecretStore', 'CorpAzKV'])
    steps = [('Get-SecretVault', '\n' + ps_table(['Name', 'ModuleName', 'IsDefaultVault'],
                                                   [[vault, 'Microsoft.PowerShell.SecretStore', 'True'],
                                                    ['CorpAzKV' if vault != 'CorpAzKV' else 'KeePass', 'Az.KeyVault' if vault != 'CorpAzKV' else 'SecretManagement.KeePass', 'False']]) + '\n'),
             ('Get-Secret -Name %s' % pick(['OrdersDb-sa', 'SendGridKey', 'GitHubPat']), 'System.Security.SecureString'),
             ('Get-SecretStoreConfiguration', '\n' + ps_table(['Scope', 'Authentication', 'PasswordTimeout', 'Interaction'],
                                                             [['CurrentUser', 'Password', str(pick([900, 3600, 300])), 'Prompt']]) + '\n'),
             ('Get-SecretInfo -Name *Pat* | Select-Object Name, Type, VaultName, Metadata', '\n' + ps_table(['Name', 'Type', 'VaultName', 'Metadata'],
                                                                                                             [['GitHubPat', 'String', vault, '{[Expires, %s], [Owner, %s]}' % (c.t.strftime('%Y-%m-%d'), c.user)],
                                                                                                              ['AzDoPat', 'SecureString', vault, '{[Org, %s]}' % c.org]]) + '\n')]
    if i % 2:
        steps.append(('(Get-Secret -Name GitHubPat).Length', str(R.randint(40, 93))))
    return session(c, pick(['prompt', 'prompt', 'codex_exec']), steps)


@negative
def n_netsh_wlan_profile_key_present(i):
    c = Ctx(win=True)
    ssid = pick(['OfficeGuest', 'ACME-Corp', 'Lab-5G', 'Dev-WiFi', 'Studio 4', 'HQ-Secure'])
    mac = ':'.join('%02x' % R.randint(0, 255) for _ in range(6))
    bssid = ':'.join('%02x' % R.randint(0, 255) for _ in range(6))
    ifc = '''
There is 1 interface on the system:

    Name                   : Wi-Fi
    Description            : Intel(R) Wi-Fi 6E AX211 160MHz
    GUID                   : {g}
    Physical address       : {mac}
    Interface type         : Primary
    State                  : connected
    SSID                   : {s}
    AP BSSID               : {b}
    Band                   : 5 GHz
    Channel                : {ch}
    Network type           : Infrastructure
    Radio type             : 802.11ax
    Authentication         : {auth}
    Cipher                 : CCMP
    Connection mode        : Auto Connect
    Receive rate (Mbps)    : {rx}
    Transmit rate (Mbps)   : {tx}
    Signal                 : {sig}%
    Profile                : {s}
    QoS MSCS Configured         : 0
    QoS Map Configured          : 0
    QoS Map Allowed by Policy   : 0

    Hosted network status  : Not available
'''.format(g=uuid4(), mac=mac, s=ssid, b=bssid, ch=pick([36, 44, 100, 149]), auth=pick(['WPA2-Enterprise', 'WPA2-Personal', 'WPA3-Personal']),
           rx=pick([576, 1201, 866.7]), tx=pick([576, 1201, 866.7]), sig=R.randint(40, 99))
    sec = '''
Security settings
-----------------
    Authentication         : WPA2-Personal
    Cipher                 : CCMP
    Authentication         : WPA2-Personal
    Cipher                 : GCMP
    Security key           : Present

Cost settings
-------------
    Cost                   : Unrestricted
    Congested              : No
    Approaching Data Limit : No
    Over Data Limit        : No
    Roaming                : No
    Cost Source            : Default
'''
    steps = [('netsh wlan show interfaces', ifc)]
    if i % 2 == 0:
        steps.append(('netsh wlan show profile name="%s" | Select-String -Context 0,14 "Security settings"' % ssid, sec))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran'])
    return session(c, k, steps)


@negative
def n_reg_query_machineguid_clsid(i):
    c = Ctx(win=True)
    mg = uuid4()
    pc = guid()
    steps = [('reg query HKLM\\SOFTWARE\\Microsoft\\Cryptography /v MachineGuid',
              '\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Cryptography\n    MachineGuid    REG_SZ    %s\n' % mg)]
    prod = pick(['Microsoft ODBC Driver 18 for SQL Server', 'Microsoft .NET Host - 8.0.%d (x64)' % R.randint(1, 12), 'SQL Server Management Studio', 'Azure CLI'])
    steps.append(('reg query "HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\{%s}"' % pc,
                  '''
HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\{{{pc}}}
    AuthorizedCDFPrefix    REG_SZ
    Comments    REG_SZ
    Contact    REG_SZ
    DisplayVersion    REG_SZ    {v}
    HelpLink    REG_EXPAND_SZ
    HelpTelephone    REG_SZ
    InstallDate    REG_SZ    {d}
    InstallLocation    REG_SZ
    InstallSource    REG_SZ    C:\\ProgramData\\Package Cache\\{{{pc2}}}v{v}\\
    ModifyPath    REG_EXPAND_SZ    MsiExec.exe /X{{{pc}}}
    NoModify    REG_DWORD    0x1
    Publisher    REG_SZ    Microsoft Corporation
    Readme    REG_SZ
    Size    REG_SZ
    EstimatedSize    REG_DWORD    0x{es:x}
    UninstallString    REG_EXPAND_SZ    MsiExec.exe /X{{{pc}}}
    URLInfoAbout    REG_SZ
    URLUpdateInfo    REG_SZ
    VersionMajor    REG_DWORD    0x{vm:x}
    VersionMinor    REG_DWORD    0x{vn:x}
    WindowsInstaller    REG_DWORD    0x1
    Version    REG_DWORD    0x{vv:x}
    Language    REG_DWORD    0x409
    DisplayName    REG_SZ    {prod}
'''.format(pc=pc, pc2=guid(), v='%d.%d.%d.%d' % (R.randint(1, 20), R.randint(0, 9), R.randint(0, 9999), R.randint(0, 99)),
           d=c.t.strftime('%Y%m%d'), es=R.randint(2000, 900000), vm=R.randint(1, 20), vn=R.randint(0, 9), vv=R.randint(10**7, 10**9), prod=prod)))
    if i % 2:
        blob = ','.join('%02x' % b for b in rbytes(48))
        steps.append(('reg export "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Explorer\\UserAssist\\{CEBFF5CD-ACE2-4F4F-9178-9926F41749EA}\\Count" ua.reg /y; Get-Content ua.reg -TotalCount 6',
                      'The operation completed successfully.\nWindows Registry Editor Version 5.00\n\n[HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Explorer\\UserAssist\\{CEBFF5CD-ACE2-4F4F-9178-9926F41749EA}\\Count]\n'
                      '"HRZR_PGYFRFFVBA"=hex:00,00,00,00,%s\n"{1NP14R77-02R7-4R5Q-O744-2RO1NR5198O7}\\\\JvaqbjfCbjreFuryy\\\\i1.0\\\\cbjrefuryy.rkr"=hex:00,00,00,00,%s' % (blob[:95], blob[96:])))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return session(c, k, steps)


def iis_enc():
    return '[enc:IISWASOnlyCngProvider:%s:enc]' % b64(R.choice([96, 112, 128]))


@negative
def n_applicationhost_config_enc_passwords(i):
    c = Ctx(win=True)
    dom = pick(['CORP', 'AD', c.org.upper()[:8]])
    pools = [pick(['PartnerPortal', 'OrdersApi', 'IntranetSSO']), pick(['LegacyCrm', 'ReportProxy', 'Uploads'])]
    lines = ['        <applicationPools>',
             '            <add name="DefaultAppPool" />',
             '            <add name="%s" autoStart="true" managedRuntimeVersion="" startMode="AlwaysRunning">' % pools[0],
             '                <processModel identityType="SpecificUser" userName="%s\\svc_%s" password="%s" idleTimeout="00:00:00" />' % (dom, pools[0].lower()[:8], iis_enc()),
             '                <recycling>',
             '                    <periodicRestart time="00:00:00" />',
             '                </recycling>',
             '            </add>',
             '            <add name="%s" managedRuntimeVersion="v4.0">' % pools[1],
             '                <processModel identityType="SpecificUser" userName="%s\\svc_%s" password="%s" />' % (dom, pools[1].lower()[:8], iis_enc()),
             '            </add>',
             '            <applicationPoolDefaults managedRuntimeVersion="v4.0">',
             '                <processModel identityType="ApplicationPoolIdentity" />',
             '            </applicationPoolDefaults>',
             '        </applicationPools>']
    prov = '''    <configProtectedData>
        <providers>
            <add name="IISWASOnlyRsaProvider" type="" description="Uses RsaCryptoServiceProvider to encrypt and decrypt" keyContainerName="iisWasKey" cspProviderName="" useMachineContainer="true" useOAEP="false" />
            <add name="IISCngProvider" type="Microsoft.ApplicationHost.CngProtectedConfigurationProvider" description="Uses Win32 Crypto CNG to encrypt and decrypt" keyContainerName="iisCngConfigurationKey" useMachineContainer="true" />
            <add name="IISWASOnlyCngProvider" type="Microsoft.ApplicationHost.CngProtectedConfigurationProvider" description="(WAS Only) Uses Win32 Crypto CNG to encrypt and decrypt" cngProviderName="Microsoft Software Key Storage Provider" keyContainerName="iisCngWasKey" useMachineContainer="true" />
            <add name="AesProvider" type="Microsoft.ApplicationHost.AesProtectedConfigurationProvider" description="Uses an AES session key to encrypt and decrypt" keyContainerName="iisConfigurationKey" cspProviderName="" useOAEP="false" useMachineContainer="true" sessionKey="AQIAAA5mAAAApAAA{sk}" />
            <add name="IISWASOnlyAesProvider" type="Microsoft.ApplicationHost.AesProtectedConfigurationProvider" description="Uses an AES session key to encrypt and decrypt" keyContainerName="iisWasKey" cspProviderName="" useOAEP="false" useMachineContainer="true" sessionKey="AQIAAA5mAAAApAAA{sk2}" />
        </providers>
    </configProtectedData>'''.format(sk=b64(256)[:344], sk2=b64(256)[:344])
    path = 'C:\\Windows\\System32\\inetsrv\\config\\applicationHost.config'
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran'])
    if i % 2:
        return render(c, k, 'Select-String -Path %s -Pattern "processModel|applicationPools" -Context 0,1' % path,
                      '\n'.join('> %s:%d:%s' % (path, 180 + j, x) if 'processModel' in x else '  %s:%d:%s' % (path, 180 + j, x) for j, x in enumerate(lines[:11])))
    return session(c, k, [('Get-Content %s | Select-Object -First 30 -Skip 12' % path, prov),
                          ('Get-Content %s | Select-Object -Skip 150 -First %d' % (path, len(lines)), '\n'.join(lines))])


@negative
def n_aspnet_regiis_encrypted_connstrings(i):
    c = Ctx(win=True)
    site = pick(['PartnerPortal', 'Intranet', 'OrdersWeb', 'Crm.Web'])
    rsa = i % 2 == 0
    if rsa:
        block = '''  <connectionStrings configProtectionProvider="RsaProtectedConfigurationProvider">
    <EncryptedData Type="http://www.w3.org/2001/04/xmlenc#Element"
      xmlns="http://www.w3.org/2001/04/xmlenc#">
      <EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes256-cbc" />
      <KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#">
        <EncryptedKey xmlns="http://www.w3.org/2001/04/xmlenc#">
          <EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p" />
          <KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#">
            <KeyName>Rsa Key</KeyName>
          </KeyInfo>
          <CipherData>
            <CipherValue>{k}</CipherValue>
          </CipherData>
        </EncryptedKey>
      </KeyInfo>
      <CipherData>
        <CipherValue>{v}</CipherValue>
      </CipherData>
    </EncryptedData>
  </connectionStrings>'''.format(k=b64(256), v=b64(R.choice([336, 400, 464])))
        cmd1 = 'aspnet_regiis -pef "connectionStrings" "C:\\inetpub\\%s" -prov "RsaProtectedConfigurationProvider"' % site
    else:
        block = '''  <connectionStrings configProtectionProvider="DataProtectionConfigurationProvider">
    <EncryptedData>
      <CipherData>
        <CipherValue>AQAAANCMnd8BFdERjHoAwE/Cl+sBAAAA{v}</CipherValue>
      </CipherData>
    </EncryptedData>
  </connectionStrings>'''.format(v=b64(R.choice([480, 560, 640])))
        cmd1 = 'aspnet_regiis -pef "connectionStrings" "C:\\inetpub\\%s" -prov "DataProtectionConfigurationProvider"' % site
    out1 = 'Microsoft (R) ASP.NET RegIIS version 4.0.30319.0\nAdministration utility to install and uninstall ASP.NET on the local machine.\nCopyright (C) Microsoft Corporation.  All rights reserved.\nEncrypting configuration section...\nSucceeded!'
    c.cwd = 'C:\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319'
    k = pick(['prompt', 'claude', 'codex_exec'])
    return session(c, k, [(cmd1, out1), ('Get-Content C:\\inetpub\\%s\\web.config | Select-Object -Skip 8 -First %d' % (site, block.count('\n') + 1), block)])


@negative
def n_nuget_config_env_references(i):
    c = Ctx(win=(i % 2 == 0))
    feed = pick(['internal', 'shared-packages', 'nuget-local'])
    org = c.org
    dpapi = 'AQAAANCMnd8BFdERjHoAwE/Cl+sBAAAA' + b64(R.choice([230, 262, 294]))
    text = '''<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="nuget.org" value="https://api.nuget.org/v3/index.json" protocolVersion="3" />
    <add key="{feed}" value="https://pkgs.dev.azure.com/{org}/_packaging/{feed}/nuget/v3/index.json" />
    <add key="github" value="https://nuget.pkg.github.com/{org}/index.json" />
  </packageSources>
  <packageSourceMapping>
    <packageSource key="nuget.org">
      <package pattern="*" />
    </packageSource>
    <packageSource key="{feed}">
      <package pattern="{Org}.*" />
    </packageSource>
  </packageSourceMapping>
  <packageSourceCredentials>
    <{feed}>
      <add key="Username" value="az" />
      <add key="Password" value="{dp}" />
    </{feed}>
    <github>
      <add key="Username" value="{org}-bot" />
      <add key="ClearTextPassword" value="%GITHUB_PACKAGES_TOKEN%" />
    </github>
  </packageSourceCredentials>
</configuration>'''.format(feed=feed, org=org, Org=org.capitalize(), dp=dpapi)
    steps = [('cat nuget.config', text)]
    if i % 2:
        steps.append(('dotnet nuget list source', '''Registered Sources:
  1.  nuget.org [Enabled]
      https://api.nuget.org/v3/index.json
  2.  {feed} [Enabled]
      https://pkgs.dev.azure.com/{org}/_packaging/{feed}/nuget/v3/index.json
  3.  github [Enabled]
      https://nuget.pkg.github.com/{org}/index.json'''.format(feed=feed, org=org)))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


WEEKDAY_DATE = lambda dt: '%s %s %02d %s %d' % (DOW[dt.weekday()], MON[dt.month - 1], dt.day, dt.strftime('%H:%M:%S'), dt.year)


@negative
def n_signtool_verify_verbose(i):
    c = Ctx(win=True)
    f = 'dist\\%s' % pick(['Setup.exe', '%s-installer.msi' % c.proj, 'Agent.dll', 'cli.exe'])
    co = c.org.capitalize() + pick([' GmbH', ' Inc.', ' Ltd', ' B.V.'])
    exp = later(c.t, 10**7, 6 * 10**7)
    ts = c.t
    out = '''
Verifying: {f}

Signature Index: 0 (Primary Signature)
Hash of file (sha256): {h}

Signing Certificate Chain:
    Issued to: DigiCert Trusted Root G4
    Issued by: DigiCert Trusted Root G4
    Expires:   Sat Jan 16 04:59:59 2038
    SHA1 hash: DDFB16CD4931C973A2037D3FC83A4D7D775D05E4

        Issued to: DigiCert Trusted G4 Code Signing RSA4096 SHA384 2021 CA1
        Issued by: DigiCert Trusted Root G4
        Expires:   Sun Apr 28 16:59:59 2036
        SHA1 hash: {i1}

            Issued to: {co}
            Issued by: DigiCert Trusted G4 Code Signing RSA4096 SHA384 2021 CA1
            Expires:   {exp}
            SHA1 hash: {leaf}

The signature is timestamped: {ts}
Timestamp Verified by:
    Issued to: DigiCert Trusted Root G4
    Issued by: DigiCert Trusted Root G4
    Expires:   Sat Jan 16 04:59:59 2038
    SHA1 hash: DDFB16CD4931C973A2037D3FC83A4D7D775D05E4

        Issued to: DigiCert Trusted G4 RSA4096 SHA256 TimeStamping CA
        Issued by: DigiCert Trusted Root G4
        Expires:   Sun Mar 22 16:59:59 2037
        SHA1 hash: {i2}

            Issued to: DigiCert Timestamp 2024 - 2
            Issued by: DigiCert Trusted G4 RSA4096 SHA256 TimeStamping CA
            Expires:   Sun Nov 25 16:59:59 2035
            SHA1 hash: {i3}


Successfully verified: {f}

Number of files successfully Verified: 1
Number of warnings: 0
Number of errors: 0'''.format(f=f, h=hexu(64), i1=hexu(40), co=co, exp=WEEKDAY_DATE(exp), leaf=hexu(40), ts=WEEKDAY_DATE(ts), i2=hexu(40), i3=hexu(40))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    return render(c, k, 'signtool verify /pa /v %s' % f, out)


@negative
def n_cert_store_thumbprints(i):
    c = Ctx(win=True)
    c.style = 'ps'
    rows = [[hexu(40), 'CN=localhost'], [hexu(40), 'CN=%s.%s' % (pick(['api', 'portal', 'www']), c.domain)],
            [hexu(40), 'CN=%s, OU=Workstations, DC=%s, DC=local' % (c.host, c.org)],
            [hexu(40), 'CN=%s Code Signing, O=%s' % (c.org.capitalize(), c.org.capitalize())]]
    rows = rows[:R.randint(2, 4)]
    out = '\n   PSParentPath: Microsoft.PowerShell.Security\\Certificate::LocalMachine\\My\n\n' + ps_table(['Thumbprint', 'Subject', 'EnhancedKeyUsageList'],
                                                                                                      [r + [pick(['{Server Authentication}', '{Client Authentication, Server Authentication}', '{Code Signing}'])] for r in rows],
                                                                                                      widths=[41, 50, 30])
    steps = [('Get-ChildItem Cert:\\LocalMachine\\My', out + '\n')]
    if i % 2:
        th = rows[0][0]
        steps.append(('netsh http show sslcert ipport=0.0.0.0:443', '''
SSL Certificate bindings:
-------------------------

    IP:port                      : 0.0.0.0:443
    Certificate Hash             : {h}
    Application ID               : {{{a}}}
    Certificate Store Name       : My
    Verify Client Certificate Revocation : Enabled
    Verify Revocation Using Cached Client Certificate Only : Disabled
    Usage Check                  : Enabled
    Revocation Freshness Time    : 0
    URL Retrieval Timeout        : 0
    Ctl Identifier               : (null)
    Ctl Store Name               : (null)
    DS Mapper Usage              : Disabled
    Negotiate Client Certificate : Disabled
    Reject Connections           : Disabled
    Disable HTTP2                : Not Set
'''.format(h=th.lower(), a=guid())))
    return session(c, pick(['prompt', 'prompt', 'codex_exec', 'claude']), steps)


@negative
def n_sn_tp_strong_name_public_key(i):
    c = Ctx(win=True)
    asm = '%s.%s.dll' % (c.org.capitalize(), pick(['Core', 'Data', 'Interop', 'Common']))
    blob = '0024000004800000940000000602000000240000525341310004000001000100' + hexs(256)
    lines = [blob[j:j + 80] for j in range(0, len(blob), 80)]
    tok = hexs(16)
    out = '''
Microsoft (R) .NET Framework Strong Name Utility  Version 4.0.30319.0
Copyright (c) Microsoft Corporation.  All rights reserved.

Public key (hash algorithm: sha1):
{pk}

Public key token is {t}'''.format(pk='\n'.join(lines), t=tok)
    steps = [('sn -Tp bin\\Release\\net48\\%s' % asm, out)]
    if i % 2:
        steps.append(('Select-String -Path src\\*\\Properties\\AssemblyInfo.cs -Pattern InternalsVisibleTo',
                      'src\\%s\\Properties\\AssemblyInfo.cs:%d:[assembly: InternalsVisibleTo("%s.Tests, PublicKey=%s")]' % (asm[:-4], R.randint(10, 40), asm[:-4], blob)))
    return session(c, pick(['prompt', 'claude', 'codex_exec']), steps)


@negative
def n_az_ad_app_credential_list(i):
    c = Ctx()
    creds = []
    for j in range(R.randint(1, 3)):
        st = later(c.t, -4 * 10**7, -10**6)
        creds.append({'customKeyIdentifier': None, 'displayName': pick(['github-actions', 'terraform', 'rotated-%s' % st.strftime('%Y%m%d'), 'local-dev']),
                      'endDateTime': iso(later(st, 10**7, 6 * 10**7), ms=False, z='Z'), 'hint': rs(AN + '~_.', 3),
                      'keyId': uuid4(), 'secretText': None, 'startDateTime': iso(st, ms=False, z='Z')})
    out = jdump(creds)
    app = uuid4()
    steps = [('az ad app credential list --id %s' % app, out)]
    if i % 2 == 0:
        steps.insert(0, ('az ad sp list --display-name %s-%s --query "[].{appId:appId, id:id, displayName:displayName}" -o table' % (c.org, c.proj),
                         az_table(['AppId', 'Id', 'DisplayName'], [[app, uuid4(), '%s-%s' % (c.org, c.proj)]])))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


@negative
def n_az_account_list_table(i):
    c = Ctx(win=(i % 2 == 0))
    ten = uuid4()
    names = ['%s %s' % (c.org.capitalize(), e) for e in R.sample(['Prod', 'Staging', 'Dev', 'Sandbox', 'Shared Services', 'Data Platform'], R.randint(2, 5))]
    rows = [[n, 'AzureCloud', uuid4(), ten if R.random() < 0.8 else uuid4(), 'Enabled', 'True' if j == 0 else 'False'] for j, n in enumerate(names)]
    steps = [('az account list -o table', az_table(['Name', 'CloudName', 'SubscriptionId', 'TenantId', 'State', 'IsDefault'], rows))]
    if i % 2:
        steps.append(('az account show --query "{name:name, id:id, tenantId:tenantId, user:user.name, homeTenantId:homeTenantId}"',
                      jdump({'homeTenantId': ten, 'id': rows[0][2], 'name': rows[0][0], 'tenantId': ten, 'user': '%s@%s' % (c.user, c.domain)})))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@negative
def n_az_keyvault_key_show_jwk(i):
    c = Ctx()
    kv = 'kv-%s-%s' % (c.proj[:12], pick(['prod', 'stg', 'shared']))
    name = pick(['jwt-signing', 'sops-key', 'cmk-storage', 'token-encryption'])
    ver = hexs(32)
    t = c.t
    n = b64u_s(_big(256))
    d = {'attributes': {'created': iso(t, ms=False, z='+00:00'), 'enabled': True, 'expires': None, 'exportable': False,
                        'hsmPlatform': None, 'notBefore': None, 'recoverableDays': 90, 'recoveryLevel': 'Recoverable',
                        'updated': iso(t, ms=False, z='+00:00')},
         'key': {'crv': None, 'd': None, 'dp': None, 'dq': None, 'e': 'AQAB', 'k': None, 'keyOps': ['sign', 'verify', 'wrapKey', 'unwrapKey', 'encrypt', 'decrypt'],
                 'kid': 'https://%s.vault.azure.net/keys/%s/%s' % (kv, name, ver), 'kty': 'RSA', 'n': n,
                 'p': None, 'q': None, 'qi': None, 't': None, 'x': None, 'y': None},
         'managed': None, 'releasePolicy': None, 'tags': {'owner': c.user, 'rotation': '90d'}}
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), 'az keyvault key show --vault-name %s --name %s' % (kv, name), jdump(d))


@negative
def n_sqlcmd_sql_logins_password_hash(i):
    c = Ctx(win=(i % 2 == 0))
    names = ['sa', '##MS_PolicyEventProcessingLogin##', '##MS_PolicyTsqlExecutionLogin##', pick(['orders_app', 'etl_loader']), pick(['report_ro', 'migrator']), 'svc_backup']
    rows = []
    for nme in names:
        h = '0x0200' + hexu(136)
        rows.append([nme, h, str(R.choice([0, 1])), str(R.choice([0, 1]))])
    w = [max(len(r[0]) for r in rows + [['name']]), len(rows[0][1]), 12, 13]
    def fmt(r):
        return ' '.join(x.ljust(w[j]) for j, x in enumerate(r)).rstrip()
    out = '1> SELECT name, password_hash, is_policy_checked, is_expiration_checked FROM sys.sql_logins;\n2> GO\n'
    w[2], w[3] = len('is_policy_checked'), len('is_expiration_checked')
    out += fmt(['name', 'password_hash', 'is_policy_checked', 'is_expiration_checked']) + '\n'
    out += ' '.join('-' * x for x in w) + '\n'
    out += '\n'.join(fmt(r) for r in rows) + '\n\n(%d rows affected)' % len(rows)
    cmd = 'sqlcmd -S %s -E -W' % pick(['localhost', 'sql-prod-01', '.\\SQLEXPRESS']) if i % 2 == 0 else 'sqlcmd -S %s -G' % ('%s.database.windows.net' % c.org)
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), cmd, out)


@negative
def n_get_filehash_certutil(i):
    c = Ctx(win=True)
    files = ['%s-%d.%d.%d-x64.msi' % (c.proj, R.randint(1, 5), R.randint(0, 20), R.randint(0, 99)), 'setup.exe', '%s.zip' % c.proj, 'runtime.nupkg']
    files = files[:R.randint(2, 4)]
    if i % 2 == 0:
        c.style = 'ps'
        rows = [['SHA256', hexu(64), 'C:\\build\\artifacts\\' + f] for f in files]
        out = '\n' + ps_table(['Algorithm', 'Hash', 'Path'], rows, widths=[11, 64, 40]) + '\n'
        return render(c, pick(['prompt', 'claude', 'codex_exec']), 'Get-FileHash -Algorithm SHA256 .\\artifacts\\* | Format-Table -AutoSize', out)
    f = files[0]
    alg = pick(['SHA256', 'SHA1', 'MD5'])
    n = {'SHA256': 64, 'SHA1': 40, 'MD5': 32}[alg]
    out = '%s hash of %s:\n%s\nCertUtil: -hashfile command completed successfully.' % (alg, f, hexs(n))
    steps = [('certutil -hashfile artifacts\\%s %s' % (f, alg), out),
             ('type artifacts\\SHA256SUMS.txt', '\n'.join('%s *%s' % (hexs(64), x) for x in files))]
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@negative
def n_winevent_4624_logon(i):
    c = Ctx(win=True)
    c.style = 'ps'
    dom = pick(['CORP', 'AD', c.org.upper()[:8]])
    t = c.t
    msg = '''An account was successfully logged on.

Subject:
\tSecurity ID:\t\tS-1-5-18
\tAccount Name:\t\t{h}$
\tAccount Domain:\t\t{d}
\tLogon ID:\t\t0x3E7

Logon Information:
\tLogon Type:\t\t{lt}
\tRestricted Admin Mode:\t-
\tRemote Credential Guard:\t-
\tVirtual Account:\t\tNo
\tElevated Token:\t\t{el}

Impersonation Level:\t\tImpersonation

New Logon:
\tSecurity ID:\t\t{sid}-{rid}
\tAccount Name:\t\t{u}
\tAccount Domain:\t\t{d}
\tLogon ID:\t\t0x{lid:X}
\tLinked Logon ID:\t\t0x0
\tNetwork Account Name:\t-
\tNetwork Account Domain:\t-
\tLogon GUID:\t\t{{{g}}}

Process Information:
\tProcess ID:\t\t0x{pid:x}
\tProcess Name:\t\tC:\\Windows\\System32\\{proc}

Network Information:
\tWorkstation Name:\t{ws}
\tSource Network Address:\t{ip}
\tSource Port:\t\t{port}

Detailed Authentication Information:
\tLogon Process:\t\t{lp}
\tAuthentication Package:\t{ap}
\tTransited Services:\t-
\tPackage Name (NTLM only):\t{pn}
\tKey Length:\t\t{kl}'''.format(h=c.host, d=dom, lt=pick([2, 3, 10]), el=pick(['Yes', 'No']), sid=sid(), rid=R.randint(1100, 9000),
                                  u=pick(['svc_deploy', c.user, 'adm-' + c.user]), lid=R.randint(10**6, 10**9), g=guid() if R.random() < 0.7 else '00000000-0000-0000-0000-000000000000',
                                  pid=R.randint(500, 9000), proc=pick(['lsass.exe', 'winlogon.exe', 'svchost.exe']), ws=winhost(), ip=ipv4(), port=R.randint(49152, 65535),
                                  lp=pick(['Kerberos', 'NtLmSsp ', 'User32 ']), ap=pick(['Kerberos', 'NTLM', 'Negotiate']), pn=pick(['-', 'NTLM V2']), kl=pick([0, 128]))
    out = '''
TimeCreated  : {tc}
ProviderName : Microsoft-Windows-Security-Auditing
Id           : 4624
RecordId     : {rec}
MachineName  : {mn}
Message      : {msg}
'''.format(tc=us_date(t), rec=R.randint(10**6, 10**8), mn='%s.%s.local' % (c.host, dom.lower()), msg=msg.replace('\n', '\n               '))
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'gemini']),
                  "Get-WinEvent -FilterHashtable @{LogName='Security'; Id=4624} -MaxEvents 1 | Format-List TimeCreated, ProviderName, Id, RecordId, MachineName, Message", out)


@negative
def n_get_bitlockervolume_protector_ids(i):
    c = Ctx(win=True)
    c.style = 'ps'
    c.cwd = 'C:\\WINDOWS\\system32'
    ids = [guid(), guid()]
    rows = [['{%s}' % ids[0], 'Tpm'], ['{%s}' % ids[1], 'RecoveryPassword']]
    if i % 2:
        rows.append(['{%s}' % guid(), 'ExternalKey'])
    out = '\n' + ps_table(['KeyProtectorId', 'KeyProtectorType'], rows) + '\n'
    steps = [('(Get-BitLockerVolume -MountPoint C:).KeyProtector | Select-Object KeyProtectorId, KeyProtectorType', out)]
    if i % 2 == 0:
        steps.append(('manage-bde -status C:', '''BitLocker Drive Encryption: Configuration Tool version 10.0.22631
Copyright (C) 2013 Microsoft Corporation. All rights reserved.

Volume C: [Windows]
[OS Volume]

    Size:                 {sz} GB
    BitLocker Version:    2.0
    Conversion Status:    Used Space Only Encrypted
    Percentage Encrypted: 100.0%
    Encryption Method:    XTS-AES 128
    Protection Status:    Protection On
    Lock Status:          Unlocked
    Identification Field: Unknown
    Key Protectors:
        TPM
        Numerical Password
'''.format(sz='%d.%02d' % (R.randint(200, 1900), R.randint(0, 99)))))
    steps.append(('BackupToAAD-BitLockerKeyProtector -MountPoint C: -KeyProtectorId "{%s}"' % ids[1], ''))
    return session(c, pick(['prompt', 'prompt', 'claude', 'codex_exec']), steps)


@negative
def n_dotnet_dev_certs_https_check(i):
    c = Ctx(win=(i % 2 == 0))
    th = hexu(40)
    st = c.t
    out = ('A valid certificate was found: %s - CN=localhost - Valid from %s to %s - IsHttpsDevelopmentCertificate: true - IsExportable: true\n'
           'The certificate is trusted.') % (th, logts(st, ms=False) + 'Z', logts(later(st, 31536000, 31536000), ms=False) + 'Z')
    steps = [('dotnet dev-certs https --check --trust', out)]
    if i % 2:
        steps.append(("openssl x509 -in ~/.aspnet/https/%s.pem -noout -fingerprint -sha1 -serial" % c.proj,
                      'SHA1 Fingerprint=%s\nserial=%s' % (':'.join(th[j:j + 2] for j in range(0, 40, 2)), hexu(16))))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


@negative
def n_get_localuser_sids(i):
    c = Ctx(win=True)
    c.style = 'ps'
    base = sid()
    users = [('Administrator', 'False', 500), ('DefaultAccount', 'False', 503), ('Guest', 'False', 501),
             (c.user, 'True', 1001), ('WDAGUtilityAccount', 'False', 504)]
    if i % 2:
        users.append(('svc_' + c.proj.split('-')[0], 'True', 1002))
    rows = [[u, e, '%s-%d' % (base, r), us_date(later(c.t, -10**8, -10**5)) if e == 'True' else ''] for u, e, r in users]
    out = '\n' + ps_table(['Name', 'Enabled', 'SID', 'PasswordLastSet'], rows) + '\n'
    steps = [('Get-LocalUser | Select-Object Name, Enabled, SID, PasswordLastSet', out)]
    if i % 2 == 0:
        steps.append(('whoami /user', '\nUSER INFORMATION\n----------------\n\n%s %s\n%s %s' % (
            'User Name'.ljust(len(c.host + c.user) + 1), 'SID', ('%s\\%s' % (c.host.lower(), c.user)).ljust(len(c.host + c.user) + 1), '%s-1001' % base) ))
    return session(c, pick(['prompt', 'prompt', 'codex_exec', 'claude']), steps)


@negative
def n_wmic_product_guids(i):
    c = Ctx(win=True)
    c.style = 'cmd'
    prods = ['Microsoft ODBC Driver 18 for SQL Server', 'Microsoft Visual C++ 2022 X64 Minimum Runtime - 14.38.33135',
             'Microsoft .NET Host - 8.0.%d (x64)' % R.randint(1, 12), 'Azure Data Studio', 'Python 3.12.%d Core Interpreter (64-bit)' % R.randint(1, 7),
             'Microsoft SQL Server 2019 LocalDB ', 'Git', 'Node.js', 'Microsoft Azure CLI', 'PowerShell 7-x64']
    R.shuffle(prods)
    rows = [['{%s}' % guid(), p, '%d.%d.%d.%d' % (R.randint(1, 20), R.randint(0, 40), R.randint(0, 9999), R.randint(0, 9))] for p in prods[:R.randint(5, 9)]]
    w = [40, max(len(r[1]) for r in rows) + 2, 16]
    out = ''.join(h.ljust(w[j]) for j, h in enumerate(['IdentifyingNumber', 'Name', 'Version'])) + '\n'
    out += '\n'.join(''.join(x.ljust(w[j]) for j, x in enumerate(r)) for r in rows)
    return render(c, pick(['prompt', 'prompt', 'claude', 'codex_exec']), 'wmic product get IdentifyingNumber,Name,Version', out)


@negative
def n_azure_pipelines_variable_group_refs(i):
    c = Ctx()
    grp = '%s-%s-secrets' % (c.proj, pick(['prod', 'stg']))
    kv = 'kv-%s-%s' % (c.proj[:12], pick(['prod', 'stg']))
    text = '''trigger:
  branches:
    include: [ main ]

variables:
  - group: {grp}
  - name: buildConfiguration
    value: Release
  - name: dbServer
    value: sql-{p}.database.windows.net

stages:
  - stage: Deploy
    jobs:
      - deployment: web
        environment: {p}-prod
        pool:
          vmImage: windows-latest
        strategy:
          runOnce:
            deploy:
              steps:
                - task: AzureKeyVault@2
                  inputs:
                    azureSubscription: 'sc-{o}-prod'
                    KeyVaultName: '{kv}'
                    SecretsFilter: 'SqlAdminPassword,StripeSecretKey'
                    RunAsPreJob: true
                - task: SqlAzureDacpacDeployment@1
                  inputs:
                    azureSubscription: 'sc-{o}-prod'
                    ServerName: '$(dbServer)'
                    DatabaseName: '{db}'
                    SqlUsername: 'sqladmin'
                    SqlPassword: '$(SqlAdminPassword)'
                    DacpacFile: '$(Pipeline.Workspace)/drop/{db}.dacpac'
                - pwsh: ./deploy/smoke.ps1 -BaseUrl https://{p}.{d}
                  env:
                    STRIPE_SECRET_KEY: $(StripeSecretKey)
                    SYSTEM_ACCESSTOKEN: $(System.AccessToken)'''.format(grp=grp, p=c.proj, o=c.org, kv=kv, db=c.proj.split('-')[0].capitalize(), d=c.domain)
    return show_file(c, 'azure-pipelines.yml', text)


@negative
def n_ps_transcript_read_host_masked(i):
    c = Ctx(win=True)
    dom = pick(['CORP', 'AD', c.org.upper()[:8]])
    t = c.t
    pv = pick(['7.4.1', '7.4.5', '7.3.12'])
    out = '''**********************
PowerShell transcript start
Start time: {st}
Username: {d}\\{u}
RunAs User: {d}\\{u}
Configuration Name: 
Machine: {h} (Microsoft Windows NT 10.0.22631.0)
Host Application: C:\\Program Files\\PowerShell\\7\\pwsh.dll
Process ID: {pid}
PSVersion: {pv}
PSEdition: Core
GitCommitId: {pv}
OS: Microsoft Windows 10.0.22631
Platform: Win32NT
PSCompatibleVersions: 1.0, 2.0, 3.0, 4.0, 5.0, 5.1, 6.0, 7.0
PSRemotingProtocolVersion: 2.3
SerializationVersion: 1.1.0.1
WSManStackVersion: 3.0
**********************
Transcript started, output file is C:\\logs\\deploy-{st2}.txt
PS C:\\deploy> $cred = Get-Credential -UserName {d}\\svc_deploy -Message "Deploy account"

PowerShell credential request
Deploy account
Password for user {d}\\svc_deploy: {m1}

PS C:\\deploy> $sec = Read-Host -AsSecureString "SQL password"
SQL password: {m2}
PS C:\\deploy> $sec
System.Security.SecureString
PS C:\\deploy> $cred.GetNetworkCredential().UserName
svc_deploy
PS C:\\deploy> Stop-Transcript
**********************
PowerShell transcript end
End time: {et}
**********************'''.format(st=t.strftime('%Y%m%d%H%M%S'), d=dom, u=c.user, h=c.host, pid=R.randint(1000, 30000), pv=pv,
                                  st2=t.strftime('%Y%m%d'), m1='*' * R.randint(10, 20), m2='*' * R.randint(10, 20),
                                  et=later(t, 60, 900).strftime('%Y%m%d%H%M%S'))
    k = pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini'])
    c.style = 'ps'
    return render(c, k, 'Get-Content C:\\logs\\deploy-%s.txt' % t.strftime('%Y%m%d'), out)


# ---- JVM --------------------------------------------------------------------

@negative
def n_kafka_producerconfig_hidden(i):
    c = Ctx()
    t = c.t
    bs = ','.join('broker-%d.kafka.%s:9093' % (j, c.domain) for j in range(3))
    cid = '%s-producer-%d' % (c.proj, R.randint(1, 9))
    vals = [('acks', '-1'), ('batch.size', '16384'), ('bootstrap.servers', '[%s]' % bs.replace(',', ', ')),
            ('buffer.memory', '33554432'), ('client.dns.lookup', 'use_all_dns_ips'), ('client.id', cid),
            ('compression.type', 'zstd'), ('connections.max.idle.ms', '540000'), ('delivery.timeout.ms', '120000'),
            ('enable.idempotence', 'true'), ('key.serializer', 'class org.apache.kafka.common.serialization.StringSerializer'),
            ('linger.ms', '5'), ('max.in.flight.requests.per.connection', '5'),
            ('sasl.jaas.config', '[hidden]'), ('sasl.kerberos.service.name', 'null'), ('sasl.login.callback.handler.class', 'null'),
            ('sasl.mechanism', 'SCRAM-SHA-512'), ('security.protocol', 'SASL_SSL'),
            ('ssl.key.password', 'null'), ('ssl.keystore.certificate.chain', 'null'), ('ssl.keystore.key', 'null'),
            ('ssl.keystore.location', 'null'), ('ssl.keystore.password', 'null'), ('ssl.truststore.certificates', 'null'),
            ('ssl.truststore.location', '/etc/kafka/secrets/kafka.truststore.jks'), ('ssl.truststore.password', '[hidden]'),
            ('transactional.id', 'null' if i % 2 else '%s-tx-%s' % (c.proj, uuid4())),
            ('value.serializer', 'class io.confluent.kafka.serializers.KafkaAvroSerializer')]
    ts = logts(t).replace('.', ',')
    lines = ['%s INFO  [main] o.a.k.c.p.ProducerConfig - ProducerConfig values: ' % ts] + ['\t%s = %s' % kv for kv in vals] + ['']
    t2 = later(t, 0, 1)
    commit = hexs(16)
    lines += ['%s INFO  [main] o.a.k.c.u.AppInfoParser - Kafka version: 3.%d.%d' % (logts(t2).replace('.', ','), R.randint(5, 8), R.randint(0, 2)),
              '%s INFO  [main] o.a.k.c.u.AppInfoParser - Kafka commitId: %s' % (logts(t2).replace('.', ','), commit),
              '%s INFO  [main] o.a.k.c.u.AppInfoParser - Kafka startTimeMs: %d' % (logts(t2).replace('.', ','), R.randint(1700000000000, 1760000000000)),
              '%s INFO  [kafka-producer-network-thread | %s] o.a.k.c.Metadata - [Producer clientId=%s] Cluster ID: %s' % (logts(later(t2, 0, 1)).replace('.', ','), cid, cid, b64u(16))]
    if i % 3 == 2:
        lines.append('%s ERROR [kafka-producer-network-thread | %s] o.a.k.c.NetworkClient - [Producer clientId=%s] Connection to node -1 (broker-0.kafka.%s/%s:9093) failed authentication due to: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512' % (
            logts(later(t2, 0, 2)).replace('.', ','), cid, cid, c.domain, ipv4()))
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), 'kubectl logs deploy/%s --tail=%d' % (c.proj, len(lines)), '\n'.join(lines))


@negative
def n_spring_cloud_config_cipher_values(i):
    c = Ctx()
    app = pick(['orders-service', 'billing-service', 'gateway'])
    sym = i % 2 == 0
    def ct():
        return hexs(R.choice([64, 96, 128])) if sym else 'AQ' + b64(R.choice([290, 322, 354]))[2:]
    text = '''spring:
  datasource:
    url: jdbc:postgresql://pg-prod.internal:5432/{db}
    username: {db}
    password: '{{cipher}}{c1}'
  rabbitmq:
    host: mq.{d}
    username: {db}
    password: '{{cipher}}{c2}'
app:
  payments:
    adyen:
      merchant-account: {o}ECOM
      api-key: '{{cipher}}{c3}'
      hmac-key: '{{cipher}}{c4}'
'''.format(db=app.split('-')[0], d=c.domain, o=c.org.capitalize(), c1=ct(), c2=ct(), c3=ct(), c4=ct())
    steps = [('cat config-repo/%s-prod.yml' % app, text.rstrip())]
    if i % 3 == 1:
        steps.append(('curl -s http://config-server:8888/encrypt/status', '{"status":"OK"}'))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


@negative
def n_jasypt_enc_properties(i):
    c = Ctx()
    def enc():
        return 'ENC(%s)' % b64(R.choice([24, 32, 48, 64]))
    lines = ['spring.application.name=%s' % c.proj,
             'spring.datasource.url=jdbc:mysql://mysql-prod:3306/%s?useSSL=true' % c.proj.split('-')[0],
             'spring.datasource.username=%s' % c.proj.split('-')[0],
             'spring.datasource.password=%s' % enc(),
             'spring.mail.host=smtp.%s' % c.domain,
             'spring.mail.username=noreply@%s' % c.domain,
             'spring.mail.password=%s' % enc(),
             'app.razorpay.key-id=rzp_live_%s' % aln(14) if i % 2 else 'app.integration.client-id=%s' % uuid4(),
             'app.razorpay.key-secret=%s' % enc(),
             '',
             '# key comes from the environment, never from this file',
             'jasypt.encryptor.password=${JASYPT_ENCRYPTOR_PASSWORD}',
             'jasypt.encryptor.algorithm=PBEWITHHMACSHA512ANDAES_256',
             'jasypt.encryptor.iv-generator-classname=org.jasypt.iv.RandomIvGenerator']
    return show_file(c, 'src/main/resources/application-prod.properties', '\n'.join(lines))


@negative
def n_tomcat_users_digest_hashes(i):
    c = Ctx()
    base = pick(['/opt/tomcat', '/usr/local/tomcat', '/var/lib/tomcat10'])
    it = pick([1000, 10000, 1])
    def dg():
        return '%s$%d$%s' % (hexs(32), it, hexs(64))
    users = [('admin', 'manager-gui,admin-gui'), (pick(['jenkins-deploy', 'ci']), 'manager-script'), ('monitor', 'manager-status')]
    text = '<tomcat-users xmlns="http://tomcat.apache.org/xml" version="1.0">\n  <role rolename="manager-gui"/>\n  <role rolename="manager-script"/>\n'
    text += '\n'.join('  <user username="%s" password="%s" roles="%s"/>' % (u, dg(), r) for u, r in users) + '\n</tomcat-users>'
    realm = '''      <Realm className="org.apache.catalina.realm.LockOutRealm">
        <Realm className="org.apache.catalina.realm.UserDatabaseRealm"
               resourceName="UserDatabase">
          <CredentialHandler className="org.apache.catalina.realm.MessageDigestCredentialHandler"
                             algorithm="sha-256" iterations="{it}" saltLength="16"/>
        </Realm>
      </Realm>'''.format(it=it)
    c.cwd = base
    steps = [('cat conf/tomcat-users.xml', text)]
    if i % 2:
        steps.append(("sed -n '/LockOutRealm/,/\\/Realm>$/p' conf/server.xml", realm))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@negative
def n_wildfly_vault_credential_refs(i):
    c = Ctx()
    ds = pick(['OrdersDS', 'LedgerDS', 'CrmDS'])
    if i % 2 == 0:
        text = '''                <datasource jndi-name="java:jboss/datasources/{ds}" pool-name="{ds}">
                    <connection-url>jdbc:postgresql://pg.internal:5432/{db}</connection-url>
                    <driver>postgresql</driver>
                    <security>
                        <user-name>{db}_app</user-name>
                        <password>${{VAULT::ds_{ds}::password::1}}</password>
                    </security>
                </datasource>'''.format(ds=ds, db=ds[:-2].lower())
        return render(c, pick(['prompt', 'claude', 'codex_exec']), "grep -n -A7 'jndi-name=\"java:jboss/datasources/%s\"' standalone/configuration/standalone.xml" % ds, text)
    out = '''{{
    "outcome" => "success",
    "result" => {{
        "credential-reference" => {{
            "store" => "{st}",
            "alias" => "{al}",
            "type" => undefined,
            "clear-text" => undefined
        }},
        "jndi-name" => "java:jboss/datasources/{ds}",
        "connection-url" => "jdbc:postgresql://pg.internal:5432/{db}",
        "user-name" => "{db}_app",
        "password" => undefined,
        "enabled" => true,
        "statistics-enabled" => false
    }}
}}'''.format(st=pick(['ds-credstore', 'app-store']), al='%s-db' % ds[:-2].lower(), ds=ds, db=ds[:-2].lower())
    steps = [("bin/jboss-cli.sh --connect --command='/subsystem=datasources/data-source=%s:read-resource'" % ds, out)]
    if i == 3:
        steps.append(("bin/jboss-cli.sh --connect --command='/subsystem=elytron/credential-store=ds-credstore:read-aliases'",
                      '{\n    "outcome" => "success",\n    "result" => [\n        "%s-db",\n        "jms-bridge",\n        "smtp-relay"\n    ]\n}' % ds[:-2].lower()))
    c.cwd = '/opt/wildfly'
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@negative
def n_jetty_realm_md5_crypt(i):
    c = Ctx()
    users = [pick(['deployer', 'ops-admin']), pick(['monitor', 'probe']), pick(['auditor', 'support']), 'jenkins']
    lines = ['# realm for /admin and /metrics -- hashes only, see RUNBOOK.md for how to add a user',
             '%s: MD5:%s,admin,user' % (users[0], hexs(32)),
             '%s: MD5:%s,user' % (users[1], hexs(32)),
             '%s: CRYPT:%s,user' % (users[2], fake_crypt(users[2])),
             '%s: MD5:%s,deploy' % (users[3], hexs(32))]
    return show_file(c, pick(['/opt/jetty-base/etc/realm.properties', 'etc/admin-realm.properties']), '\n'.join(lines))


@negative
def n_kafka_consumer_groups_describe(i):
    c = Ctx()
    grp = '%s-%s' % (c.proj, pick(['consumer', 'projector', 'sink', 'indexer']))
    topic = pick(['orders.v1', 'payments.events', 'inventory-changes', 'audit-log'])
    rows = [['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID']]
    n = R.randint(3, 6)
    cons = ['%s-%d-%s' % (grp, j + 1, uuid4()) for j in range(2)]
    for p in range(n):
        cur = R.randint(10**5, 10**8)
        lag = R.choice([0, 0, R.randint(1, 5000)])
        cc = cons[p % 2]
        cid = cc.rsplit('-', 5)[0]
        rows.append([grp, topic, str(p), str(cur), str(cur + lag), str(lag), cc, '/' + ipv4(), cid])
    out = '\n' + col_t(rows, gap=1)
    c.cwd = '/opt/kafka'
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']),
                  'bin/kafka-consumer-groups.sh --bootstrap-server broker-0.kafka.%s:9093 --command-config client.properties --describe --group %s' % (c.domain, grp), out)


@negative
def n_jstack_thread_dump(i):
    c = Ctx()
    pid = R.randint(1000, 90000)
    t = c.t
    def th(name, num, daemon, state, frames, lock=None):
        tid = '0x00007f%s' % hexs(10)
        nid = '0x%x' % R.randint(1000, 60000)
        hdr = '"%s" #%d %sprio=5 os_prio=0 cpu=%d.%02dms elapsed=%d.%02ds tid=%s nid=%s %s  [0x00007f%s]' % (
            name, num, 'daemon ' if daemon else '', R.randint(0, 9999), R.randint(0, 99), R.randint(10, 99999), R.randint(0, 99), tid, nid,
            'waiting on condition' if state != 'RUNNABLE' else 'runnable', hexs(10))
        out = [hdr, '   java.lang.Thread.State: %s' % state]
        for j, f in enumerate(frames):
            out.append('\tat %s' % f)
            if j == 1 and lock:
                out.append('\t- parking to wait for  <0x00000000%s> (a %s)' % (hexs(8), lock))
        return '\n'.join(out)
    blocks = [
        th('http-nio-8080-exec-%d' % R.randint(1, 200), R.randint(30, 300), True, 'WAITING (parking)',
           ['jdk.internal.misc.Unsafe.park(java.base@21.0.%d/Native Method)' % R.randint(1, 5),
            'java.util.concurrent.locks.LockSupport.park(java.base@21.0.2/LockSupport.java:371)',
            'java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionNode.block(java.base@21.0.2/AbstractQueuedSynchronizer.java:519)',
            'java.util.concurrent.LinkedBlockingQueue.take(java.base@21.0.2/LinkedBlockingQueue.java:435)',
            'org.apache.tomcat.util.threads.TaskQueue.take(TaskQueue.java:141)'],
           'java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject'),
        th('HikariPool-1 housekeeper', R.randint(20, 60), True, 'TIMED_WAITING (parking)',
           ['jdk.internal.misc.Unsafe.park(java.base@21.0.2/Native Method)',
            'java.util.concurrent.locks.LockSupport.parkNanos(java.base@21.0.2/LockSupport.java:269)',
            'java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.take(java.base@21.0.2/ScheduledThreadPoolExecutor.java:1170)'],
           'java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject'),
        th('kafka-producer-network-thread | %s-producer-1' % c.proj, R.randint(60, 120), True, 'RUNNABLE',
           ['sun.nio.ch.EPoll.wait(java.base@21.0.2/Native Method)',
            'sun.nio.ch.EPollSelectorImpl.doSelect(java.base@21.0.2/EPollSelectorImpl.java:121)',
            'org.apache.kafka.common.network.Selector.select(Selector.java:873)',
            'org.apache.kafka.clients.producer.internals.Sender.run(Sender.java:243)']),
    ]
    head = '%s\nFull thread dump OpenJDK 64-Bit Server VM (21.0.%d+%d-LTS mixed mode, sharing):\n\nThreads class SMR info:\n_java_thread_list=0x00007f%s, length=%d, elements={\n0x00007f%s, 0x00007f%s, 0x00007f%s, 0x00007f%s,\n}\n' % (
        t.strftime('%Y-%m-%d %H:%M:%S'), R.randint(1, 5), R.randint(5, 13), hexs(10), R.randint(30, 90), hexs(10), hexs(10), hexs(10), hexs(10))
    out = head + '\n' + '\n\n'.join(blocks) + '\n\nJNI global refs: %d, weak refs: %d' % (R.randint(10, 90), R.randint(0, 9))
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), 'jstack %d | head -n 60' % pid if i % 2 else 'jcmd %d Thread.print | head -n 60' % pid, out)


# ---- Mobile builds ----------------------------------------------------------

@negative
def n_firebase_mobile_config_files(i):
    c = Ctx(mac=True)
    pn = digits(12)
    pid = '%s-%s' % (c.org, pick(['prod', 'app', 'mobile']) + '-' + lowd(5))
    bid = 'com.%s.%s' % (c.org, pick(['shop', 'wallet', 'driver']))
    if i % 2 == 0:
        d = {'project_info': {'project_number': pn, 'project_id': pid, 'storage_bucket': '%s.appspot.com' % pid},
             'client': [{'client_info': {'mobilesdk_app_id': '1:%s:android:%s' % (pn, hexs(16)), 'android_client_info': {'package_name': bid}},
                         'oauth_client': [{'client_id': '%s-%s.apps.googleusercontent.com' % (pn, lowd(32)), 'client_type': 1,
                                           'android_info': {'package_name': bid, 'certificate_hash': hexs(40)}},
                                          {'client_id': '%s-%s.apps.googleusercontent.com' % (pn, lowd(32)), 'client_type': 3}],
                         'api_key': [{'current_key': 'AIzaSy' + urlsafe(33)}],
                         'services': {'appinvite_service': {'other_platform_oauth_client': [
                             {'client_id': '%s-%s.apps.googleusercontent.com' % (pn, lowd(32)), 'client_type': 3}]}}}],
             'configuration_version': '1'}
        return show_file(c, 'android/app/google-services.json', jdump(d))
    plist = '''<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>CLIENT_ID</key>
	<string>{pn}-{cid}.apps.googleusercontent.com</string>
	<key>REVERSED_CLIENT_ID</key>
	<string>com.googleusercontent.apps.{pn}-{cid}</string>
	<key>API_KEY</key>
	<string>AIzaSy{ak}</string>
	<key>GCM_SENDER_ID</key>
	<string>{pn}</string>
	<key>PLIST_VERSION</key>
	<string>1</string>
	<key>BUNDLE_ID</key>
	<string>{bid}</string>
	<key>PROJECT_ID</key>
	<string>{pid}</string>
	<key>STORAGE_BUCKET</key>
	<string>{pid}.appspot.com</string>
	<key>IS_ADS_ENABLED</key>
	<false></false>
	<key>IS_ANALYTICS_ENABLED</key>
	<false></false>
	<key>IS_APPINVITE_ENABLED</key>
	<true></true>
	<key>IS_GCM_ENABLED</key>
	<true></true>
	<key>IS_SIGNIN_ENABLED</key>
	<true></true>
	<key>GOOGLE_APP_ID</key>
	<string>1:{pn}:ios:{gid}</string>
</dict>
</plist>'''.format(pn=pn, cid=lowd(32), ak=urlsafe(33), bid=bid, pid=pid, gid=hexs(22))
    return show_file(c, 'ios/Runner/GoogleService-Info.plist', plist)


def fl_table(title, rows, w1=None, w2=None):
    w1 = w1 or max(len(a) for a, b in rows) + 2
    w2 = w2 or max(len(b) for a, b in rows) + 2
    tot = w1 + w2 + 1
    sep = '+' + '-' * w1 + '+' + '-' * w2 + '+'
    out = ['+' + '-' * tot + '+', '|' + title.center(tot) + '|', sep]
    out += ['| ' + a.ljust(w1 - 1) + '| ' + b.ljust(w2 - 1) + '|' for a, b in rows]
    out.append(sep)
    return '\n'.join(out)


@negative
def n_fastlane_match_summary_masked(i):
    c = Ctx(mac=True)
    bid = 'com.%s.%s' % (c.org, pick(['shop', 'wallet', 'driver']))
    team = upd(10)
    ver = '2.2%d.%d' % (R.randint(10, 29), R.randint(0, 3))
    t = c.t
    pre = '[%s]: ' % t.strftime('%H:%M:%S')
    summ = fl_table('Summary for match %s' % ver, [
        ('type', 'appstore'), ('readonly', 'true'), ('generate_apple_certs', 'true'), ('skip_provisioning_profiles', 'false'),
        ('app_identifier', '["%s"]' % bid), ('username', 'ci@%s' % c.domain), ('team_id', team),
        ('storage_mode', 'git'), ('git_url', 'https://github.com/%s/ios-certificates.git' % c.org), ('git_branch', 'master'),
        ('git_basic_authorization', '********'), ('shallow_clone', 'false'), ('clone_branch_directly', 'false'),
        ('keychain_name', 'fastlane_tmp_keychain'), ('keychain_password', '********'), ('force', 'false'),
        ('platform', 'ios'), ('verbose', 'false')])
    co = c.org.capitalize() + ' GmbH'
    cert = fl_table('Installed Certificate', [
        ('User ID', team), ('Common Name', 'Apple Distribution: %s (%s)' % (co, team)), ('Organisation Unit', team),
        ('Organisation', co), ('Country', 'DE'), ('Start Datetime', t.strftime('%Y-%m-%d %H:%M:%S UTC')),
        ('End Datetime', later(t, 31536000, 31536000).strftime('%Y-%m-%d %H:%M:%S UTC'))])
    prof = fl_table('Installed Provisioning Profile', [
        ('Parameter', 'Environment Variable'),
        ('sigh_%s_appstore' % bid, 'match AppStore %s' % bid),
        ('UUID', uuid4()), ('Team ID', team), ('Profile Path', '/Users/runner/Library/MobileDevice/Provisioning Profiles/%s.mobileprovision' % uuid4())])
    lines = [pre + x for x in summ.split('\n')] + [pre + '\U0001f513  Successfully decrypted certificates repo'] + \
            [pre + x for x in cert.split('\n')] + [pre + x for x in prof.split('\n')] + \
            [pre + 'All required keys, certificates and provisioning profiles are installed \U0001f64c']
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), 'bundle exec fastlane match appstore --readonly', '\n'.join(lines))


@negative
def n_eas_env_list_secret_names(i):
    c = Ctx()
    if i % 2 == 0:
        out = ['Environment: production', '']
        for name, val in [('EXPO_PUBLIC_API_URL', 'https://api.%s' % c.domain), ('EXPO_PUBLIC_POSTHOG_HOST', 'https://eu.i.posthog.com'),
                          ('SENTRY_AUTH_TOKEN', '*****  (secret)'), ('GOOGLE_SERVICES_JSON', '%s/.eas/tmp/%s  (file, sensitive)' % (c.home, uuid4())),
                          ('RC_SECRET_API_KEY', '*****  (secret)')]:
            out.append('%s=%s' % (name, val))
        return render(c, pick(['prompt', 'claude', 'codex_exec', 'gemini']), 'npx eas-cli env:list --environment production', '\n'.join(out))
    rows = [('SENTRY_AUTH_TOKEN', 'string', 'project', uuid4(), later(c.t, -10**7, 0)),
            ('GOOGLE_SERVICES_JSON', 'file', 'project', uuid4(), later(c.t, -10**7, 0)),
            ('NPM_TOKEN', 'string', 'account', uuid4(), later(c.t, -10**7, 0))]
    w = [22, 8, 9, 38, 24]
    sep = '\u251c' + '\u253c'.join('\u2500' * x for x in w) + '\u2524'
    top = '\u250c' + '\u252c'.join('\u2500' * x for x in w) + '\u2510'
    bot = '\u2514' + '\u2534'.join('\u2500' * x for x in w) + '\u2518'
    def r(cells):
        return '\u2502' + '\u2502'.join((' ' + x).ljust(w[j]) for j, x in enumerate(cells)) + '\u2502'
    out = [top, r(['Name', 'Type', 'Scope', 'ID', 'Updated at'])]
    for n, ty, sc, idd, dt in rows:
        out += [sep, r([n, ty, sc, idd, '%s %d %02d:%02d:%02d' % (MON[dt.month - 1], dt.day, dt.hour, dt.minute, dt.second)])]
    out.append(bot)
    return render(c, pick(['prompt', 'claude', 'codex_exec']), 'npx eas-cli secret:list', 'Secrets for this account and project:\n' + '\n'.join(out))


@negative
def n_xcodebuild_showbuildsettings(i):
    c = Ctx(mac=True)
    team = upd(10)
    app = c.proj.replace('-', '').capitalize()
    dd = rs(LO, 28)
    bid = 'com.%s.%s' % (c.org, pick(['shop', 'wallet', 'driver']))
    settings = [('ARCHS', 'arm64'), ('BUILD_DIR', '%s/Library/Developer/Xcode/DerivedData/%s-%s/Build/Products' % (c.home, app, dd)),
                ('CODE_SIGN_IDENTITY', 'Apple Distribution'), ('CODE_SIGN_STYLE', 'Manual'),
                ('CONFIGURATION', 'Release'), ('CURRENT_PROJECT_VERSION', str(R.randint(100, 9000))),
                ('DEVELOPMENT_TEAM', team), ('EXPANDED_CODE_SIGN_IDENTITY', hexu(40)),
                ('EXPANDED_CODE_SIGN_IDENTITY_NAME', 'Apple Distribution: %s GmbH (%s)' % (c.org.capitalize(), team)),
                ('INFOPLIST_FILE', '%s/Info.plist' % app), ('MARKETING_VERSION', '%d.%d.%d' % (R.randint(1, 6), R.randint(0, 20), R.randint(0, 9))),
                ('OBJROOT', '%s/Library/Developer/Xcode/DerivedData/%s-%s/Build/Intermediates.noindex' % (c.home, app, dd)),
                ('PRODUCT_BUNDLE_IDENTIFIER', bid), ('PRODUCT_NAME', app),
                ('PROVISIONING_PROFILE', uuid4()), ('PROVISIONING_PROFILE_SPECIFIER', 'match AppStore %s' % bid),
                ('SDKROOT', '/Applications/Xcode.app/Contents/Developer/Platforms/iPhoneOS.platform/Developer/SDKs/iPhoneOS17.%d.sdk' % R.randint(0, 5)),
                ('SWIFT_VERSION', '5.0'), ('TARGET_BUILD_DIR', '%s/Library/Developer/Xcode/DerivedData/%s-%s/Build/Products/Release-iphoneos' % (c.home, app, dd)),
                ('UID', str(R.randint(501, 503)))]
    out = 'Command line invocation:\n    /Applications/Xcode.app/Contents/Developer/usr/bin/xcodebuild -workspace %s.xcworkspace -scheme %s -configuration Release -showBuildSettings\n\nBuild settings for action build and target %s:\n' % (app, app, app)
    out += '\n'.join('    %s = %s' % kv for kv in settings)
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']),
                  "xcodebuild -workspace %s.xcworkspace -scheme %s -configuration Release -showBuildSettings | grep -E '^    (%s) ='" % (app, app, '|'.join(k for k, v in settings[:8])) if i == 3 else
                  'xcodebuild -workspace %s.xcworkspace -scheme %s -configuration Release -showBuildSettings' % (app, app), out)


@negative
def n_security_find_identity_codesign(i):
    c = Ctx(mac=True)
    f, l = person()
    team = upd(10)
    ids = [(hexu(40), 'Apple Development: %s %s (%s)' % (f, l, upd(10))),
           (hexu(40), 'Apple Distribution: %s GmbH (%s)' % (c.org.capitalize(), team)),
           (hexu(40), 'Developer ID Application: %s GmbH (%s)' % (c.org.capitalize(), team))]
    ids = ids[:R.randint(2, 3)]
    out = '\nPolicy: Code Signing\n  Matching identities\n' + '\n'.join('  %d) %s "%s"' % (j + 1, h, n) for j, (h, n) in enumerate(ids))
    out += '\n     %d identities found\n\n  Valid identities only\n' % len(ids) + '\n'.join('  %d) %s "%s"' % (j + 1, h, n) for j, (h, n) in enumerate(ids))
    out += '\n     %d valid identities found' % len(ids)
    steps = [('security find-identity -v -p codesigning' if i % 2 else 'security find-identity -p codesigning', out if i % 2 == 0 else
              '\n'.join('  %d) %s "%s"' % (j + 1, h, n) for j, (h, n) in enumerate(ids)) + '\n     %d valid identities found' % len(ids))]
    if i == 2:
        steps.append(('codesign -dvv build/%s.app 2>&1 | head -n 12' % c.proj.capitalize(),
                      'Executable=%s/build/%s.app/%s\nIdentifier=com.%s.%s\nFormat=app bundle with Mach-O thin (arm64)\nCodeDirectory v=20500 size=%d flags=0x10000(runtime) hashes=%d+7 location=embedded\nSignature size=%d\nAuthority=%s\nAuthority=Apple Worldwide Developer Relations Certification Authority\nAuthority=Apple Root CA\nSigned Time=%s\nInfo.plist entries=%d\nTeamIdentifier=%s' % (
                          c.cwd, c.proj.capitalize(), c.proj.capitalize(), c.org, c.proj.split('-')[0], R.randint(10000, 90000), R.randint(200, 2000), R.randint(4000, 9000), ids[1][1], c.t.strftime('%d %b %Y at %H:%M:%S').replace(c.t.strftime('%b'), MON[c.t.month - 1]), R.randint(20, 60), team)))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@negative
def n_mobileprovision_decoded_plist(i):
    c = Ctx(mac=True)
    team = upd(10)
    bid = 'com.%s.%s' % (c.org, pick(['shop', 'wallet', 'driver']))
    u = uuid4()
    cert = base64.b64encode(der(0x30, rbytes(R.choice([1100, 1180])))).decode()
    derp = base64.b64encode(der(0x30, rbytes(R.choice([1300, 1500])))).decode()
    fresh_str(cert)
    fresh_str(derp)
    def wrap(s, ind):
        return '\n' + '\n'.join(ind + s[j:j + 68] for j in range(0, len(s), 68)) + '\n' + ind[:-1]
    t = c.t
    out = '''<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>AppIDName</key>
	<string>{app} Production</string>
	<key>ApplicationIdentifierPrefix</key>
	<array>
	<string>{team}</string>
	</array>
	<key>CreationDate</key>
	<date>{cd}</date>
	<key>Platform</key>
	<array>
		<string>iOS</string>
		<string>xrOS</string>
		<string>visionOS</string>
	</array>
	<key>IsXcodeManaged</key>
	<false/>
	<key>DeveloperCertificates</key>
	<array>
		<data>{cert}</data>
	</array>
	<key>DER-Encoded-Profile</key>
	<data>{derp}</data>
	<key>Entitlements</key>
	<dict>
		<key>application-identifier</key>
		<string>{team}.{bid}</string>
		<key>keychain-access-groups</key>
		<array>
				<string>{team}.*</string>
				<string>com.apple.token</string>
		</array>
		<key>get-task-allow</key>
		<false/>
		<key>com.apple.developer.team-identifier</key>
		<string>{team}</string>
		<key>aps-environment</key>
		<string>production</string>
	</dict>
	<key>ExpirationDate</key>
	<date>{ed}</date>
	<key>Name</key>
	<string>match AppStore {bid}</string>
	<key>TeamIdentifier</key>
	<array>
		<string>{team}</string>
	</array>
	<key>TeamName</key>
	<string>{co} GmbH</string>
	<key>TimeToLive</key>
	<integer>365</integer>
	<key>UUID</key>
	<string>{u}</string>
	<key>Version</key>
	<integer>1</integer>
</dict>
</plist>'''.format(app=c.proj, team=team, cd=iso(t, ms=False), cert=wrap(cert, '\t\t'), derp=wrap(derp, '\t'), bid=bid,
                   ed=iso(later(t, 31536000, 31536000), ms=False), co=c.org.capitalize(), u=u)
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']),
                  'security cms -D -i "$HOME/Library/MobileDevice/Provisioning Profiles/%s.mobileprovision"' % u, out)


@negative
def n_codepush_deployment_history(i):
    c = Ctx()
    hist = []
    t = c.t
    for j in range(R.randint(2, 4)):
        t = later(t, 3600, 900000)
        hist.append({'appVersion': '%d.%d.%d' % (R.randint(1, 4), R.randint(0, 20), R.randint(0, 9)),
                     'blobUrl': 'https://codepushupdates.azureedge.net/storagev2/%s' % urlsafe(43),
                     'description': pick(['fix checkout crash', 'copy tweaks', 'hotfix: login loop', 'bump sdk']),
                     'diffPackageMap': {}, 'isDisabled': False, 'isMandatory': R.choice([True, False]),
                     'label': 'v%d' % (j + R.randint(10, 90)), 'packageHash': hexs(64), 'releaseMethod': 'Upload',
                     'releasedBy': '%s@%s' % (c.user, c.domain), 'rollout': pick([100, 50, 25]), 'size': R.randint(400000, 6000000),
                     'uploadTime': R.randint(1700000000000, 1760000000000)})
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']),
                  'appcenter codepush deployment history Production -a %s/%s-ios --output json | jq .' % (c.org, c.proj), jdump(hist))


# ---- ML and data ------------------------------------------------------------

def wandb_id():
    return lowd(8)


@negative
def n_wandb_sync_run_ids(i):
    c = Ctx()
    ent, proj = pick([c.org, c.org + '-ml']), pick(['churn-model', 'ranker-v3', 'asr-finetune', 'forecasting'])
    rid = wandb_id()
    name = '%s-%s-%d' % (pick(['ancient', 'fiery', 'glowing', 'misty', 'silvery', 'radiant']), pick(['sky', 'river', 'dawn', 'wave', 'moon', 'field']), R.randint(1, 400))
    t = c.t
    lines = ['wandb: Currently logged in as: %s (%s). Use `wandb login --relogin` to force relogin' % (c.user, ent),
             'wandb: Tracking run with wandb version 0.1%d.%d' % (R.randint(6, 9), R.randint(0, 9)),
             'wandb: Run data is saved locally in %s/wandb/run-%s-%s' % (c.cwd, t.strftime('%Y%m%d_%H%M%S'), rid),
             "wandb: Run `wandb offline` to turn off syncing.",
             'wandb: Syncing run %s' % name,
             'wandb: \u2b50\ufe0f View project at https://wandb.ai/%s/%s' % (ent, proj),
             'wandb: \U0001f680 View run at https://wandb.ai/%s/%s/runs/%s' % (ent, proj, rid),
             'wandb: Adding directory to artifact (%s/checkpoints)... Done. %.1fs' % (c.cwd, R.random() * 3),
             'wandb: \U0001f680 View run %s at: https://wandb.ai/%s/%s/runs/%s' % (name, ent, proj, rid),
             'wandb: \u2b50\ufe0f View project at: https://wandb.ai/%s/%s' % (ent, proj),
             'wandb: Synced 5 W&B file(s), 2 media file(s), %d artifact file(s) and 0 other file(s)' % R.randint(1, 9),
             'wandb: Find logs at: ./wandb/run-%s-%s/logs' % (t.strftime('%Y%m%d_%H%M%S'), rid)]
    steps = [('python train.py --config configs/%s.yaml' % proj, '\n'.join(lines))]
    if i % 2:
        steps.append(('wandb artifact ls %s/%s' % (ent, proj), '\n'.join('%-8s %-40s %s  %s' % ('model', 'model-%s:v%d' % (rid, j), hexs(32), '%.1fMB' % (R.random() * 900)) for j in range(3))))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@negative
def n_hf_cli_env_whoami(i):
    c = Ctx()
    hv = '0.2%d.%d' % (R.randint(3, 9), R.randint(0, 5))
    env = '''
Copy-and-paste the text below in your GitHub issue.

- huggingface_hub version: {hv}
- Platform: Linux-6.{k}.0-{kb}-generic-x86_64-with-glibc2.35
- Python version: 3.11.{pv}
- Running in iPython ?: No
- Running in notebook ?: No
- Running in Google Colab ?: No
- Running in Google Colab Enterprise ?: No
- Token path ?: {h}/.cache/huggingface/token
- Has saved token ?: True
- Who am I ?: {u}
- Configured git credential helpers: store
- FastAI: N/A
- Tensorflow: N/A
- Torch: 2.{tv}.1
- Jinja2: 3.1.4
- Graphviz: N/A
- keras: N/A
- Pydot: N/A
- Pillow: 10.4.0
- hf_transfer: 0.1.8
- gradio: N/A
- tensorboard: N/A
- numpy: 1.26.4
- pydantic: 2.8.2
- aiohttp: 3.10.5
- ENDPOINT: https://huggingface.co
- HF_HUB_CACHE: {h}/.cache/huggingface/hub
- HF_ASSETS_CACHE: {h}/.cache/huggingface/assets
- HF_TOKEN_PATH: {h}/.cache/huggingface/token
- HF_STORED_TOKENS_PATH: {h}/.cache/huggingface/stored_tokens
- HF_HUB_OFFLINE: False
- HF_HUB_DISABLE_TELEMETRY: False
- HF_HUB_DISABLE_PROGRESS_BARS: None
- HF_HUB_DISABLE_SYMLINKS_WARNING: False
- HF_HUB_DISABLE_EXPERIMENTAL_WARNING: False
- HF_HUB_DISABLE_IMPLICIT_TOKEN: False
- HF_HUB_ENABLE_HF_TRANSFER: True
- HF_HUB_ETAG_TIMEOUT: 10
- HF_HUB_DOWNLOAD_TIMEOUT: 10
'''.format(hv=hv, k=R.randint(2, 8), kb=R.randint(10, 60), pv=R.randint(4, 9), h=c.home, u=c.user, tv=R.randint(1, 5))
    steps = [('huggingface-cli env', env)]
    if i % 2 == 0:
        names = ['ci-upload', 'laptop', 'inference-ro']
        R.shuffle(names)
        lst = '  name                 token\n' + '-' * 36 + '\n' + '\n'.join(
            '%s %-20s hf_%s%s' % ('*' if j == 0 else ' ', n, '*' * 30, rs(UP + LO, 4)) for j, n in enumerate(names))
        steps.append(('huggingface-cli auth list', lst))
    else:
        steps.append(('huggingface-cli whoami', '%s\norgs:  %s,%s' % (c.user, c.org, pick(['hf-internal-testing', 'open-llm-leaderboard', c.org + '-research']))))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


@negative
def n_databricks_secrets_list_keys(i):
    c = Ctx()
    scope = pick(['prod-etl', 'ml-serving', 'shared', 'kv-backed'])
    keys = R.sample(['snowflake-password', 'sf-private-key', 'github-pat', 'slack-bot-token', 'openai-api-key', 'adls-sp-secret', 'kafka-sasl-password', 'jdbc-url'], R.randint(4, 6))
    rows = [['Key', 'Last Updated Timestamp']] + [[k, str(R.randint(1700000000000, 1760000000000))] for k in keys]
    steps = [('databricks secrets list-scopes', col_t([['Scope', 'Backend Type'], [scope, 'DATABRICKS'], ['kv-' + c.proj[:10], 'AZURE_KEYVAULT']])),
             ('databricks secrets list-secrets %s' % scope, col_t(rows))]
    if i % 2:
        steps.append(('databricks secrets list-acls %s -o json' % scope, jdump([{'permission': 'MANAGE', 'principal': 'admins'},
                                                                               {'permission': 'READ', 'principal': '%s@%s' % (c.user, c.domain)},
                                                                               {'permission': 'READ', 'principal': uuid4()}])))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


def rsa_spki():
    spki = der(0x30, der(0x30, der(0x06, bytes.fromhex('2a864886f70d010101')) + b'\x05\x00')
               + der(0x03, b'\x00' + der(0x30, der_int(_big(256)) + der_int(b'\x01\x00\x01'))))
    return base64.b64encode(spki).decode()


def snow_box(rows):
    w = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    sep = '+' + '+'.join('-' * (x + 2) for x in w) + '+'
    out = [sep, '| ' + ' | '.join(rows[0][j].ljust(w[j]) for j in range(len(w))) + ' |', sep.replace('-', '-')]
    out += ['| ' + ' | '.join(r[j].ljust(w[j]) for j in range(len(w))) + ' |' for r in rows[1:]]
    out.append(sep)
    return '\n'.join(out)


@negative
def n_snowflake_desc_user_key_fp(i):
    c = Ctx()
    user = pick(['DBT_PROD', 'AIRFLOW_SVC', 'FIVETRAN', 'LOOKER_SVC'])
    pk = rsa_spki()
    fp = 'SHA256:' + b64(32)
    rows = [['property', 'value', 'default', 'description'],
            ['NAME', user, 'null', 'Name'],
            ['DISPLAY_NAME', user, 'null', 'Display name of the associated object'],
            ['LOGIN_NAME', user, 'null', 'Login name of the user'],
            ['TYPE', 'SERVICE', 'null', 'Type of the user'],
            ['DEFAULT_WAREHOUSE', 'TRANSFORMING', 'null', 'Default warehouse for this user'],
            ['DEFAULT_ROLE', 'TRANSFORMER', 'null', 'Primary default role for this user'],
            ['PASSWORD_LAST_SET_TIME', 'null', 'null', 'The timestamp on which the last non-null password was set for the user'],
            ['RSA_PUBLIC_KEY', pk[:60] + '...', 'null', 'RSA public key of the user'],
            ['RSA_PUBLIC_KEY_FP', fp, 'null', 'Fingerprint of user\'s RSA public key.'],
            ['RSA_PUBLIC_KEY_2', 'null', 'null', 'Second RSA public key of the user'],
            ['RSA_PUBLIC_KEY_2_FP', 'null', 'null', 'Fingerprint of user\'s second RSA public key.'],
            ['HAS_PASSWORD', 'false', 'false', 'Whether the user has a password'],
            ['HAS_RSA_PUBLIC_KEY', 'true', 'false', 'Whether the user has an RSA public key']]
    acct = lowd(7)
    out = snow_box(rows) + '\n%d Row(s) produced. Time Elapsed: 0.%03ds' % (len(rows) - 1, R.randint(80, 900))
    steps = [('snowsql -a %s -u %s -q "DESC USER %s"' % (acct, c.user.upper(), user), out)]
    if i % 2:
        steps.insert(0, ('openssl rsa -in ~/.snowflake/keys/%s.p8 -pubout -outform DER 2>/dev/null | openssl dgst -sha256 -binary | openssl enc -base64' % user.lower(), fp[7:]))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@negative
def n_jupyter_notebook_cell_ids(i):
    c = Ctx()
    nb = pick(['notebooks/eda.ipynb', 'analysis/churn.ipynb', 'explore_features.ipynb'])
    cells = []
    for j in range(R.randint(4, 7)):
        cells.append({'id': hexs(8) if R.random() < 0.5 else uuid4()[:8] + '-' + hexs(4), 'cell_type': pick(['code', 'code', 'markdown']),
                      'execution_count': R.randint(1, 60)})
    for cc in cells:
        if cc['cell_type'] == 'markdown':
            cc['execution_count'] = None
    out1 = '\n'.join(json.dumps(cc) for cc in cells)
    wid = {'application/vnd.jupyter.widget-state+json': {'state': {hexs(32): {'model_module': '@jupyter-widgets/controls', 'model_name': 'HBoxModel',
                                                                           'model_module_version': '2.0.0', 'state': {'children': ['IPY_MODEL_' + hexs(32), 'IPY_MODEL_' + hexs(32)]}}},
                                                          'version_major': 2, 'version_minor': 0}}
    steps = [("jq -c '.cells[] | {id, cell_type, execution_count}' %s" % nb, out1),
             ("jq '.metadata.widgets' %s" % nb, jdump(wid))]
    if i % 2:
        steps = steps[:1] + [("jq '.metadata.kernelspec, .nbformat, .nbformat_minor' %s" % nb,
                              '{\n  "display_name": "Python 3 (ipykernel)",\n  "language": "python",\n  "name": "python3"\n}\n4\n5')]
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


@negative
def n_dbt_manifest_checksums(i):
    c = Ctx()
    proj = pick(['analytics', 'marts', 'finance_dbt'])
    models = R.sample(['stg_orders', 'stg_customers', 'fct_revenue', 'dim_users', 'int_payments_pivoted', 'fct_sessions'], 3)
    out = {'metadata': {'dbt_schema_version': 'https://schemas.getdbt.com/dbt/manifest/v12.json', 'dbt_version': '1.%d.%d' % (R.randint(7, 9), R.randint(0, 8)),
                        'generated_at': iso(c.t, ms=True), 'invocation_id': uuid4(), 'env': {}, 'project_name': proj,
                        'project_id': hexs(32), 'user_id': uuid4(), 'send_anonymous_usage_stats': True, 'adapter_type': pick(['snowflake', 'bigquery', 'postgres'])},
           'nodes': {}}
    for m in models:
        out['nodes']['model.%s.%s' % (proj, m)] = {'unique_id': 'model.%s.%s' % (proj, m), 'checksum': {'name': 'sha256', 'checksum': hexs(64)},
                                                  'config': {'materialized': pick(['view', 'table', 'incremental'])}}
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']),
                  "jq '{metadata, nodes: (.nodes | with_entries(select(.key | startswith(\"model.\"))) | map_values({unique_id, checksum, config: {materialized: .config.materialized}}))}' target/manifest.json | head -n 60",
                  jdump(out))


@negative
def n_airbyte_source_config_masked(i):
    c = Ctx()
    sid, wid = uuid4(), uuid4()
    d = {'sourceId': sid, 'name': pick(['Postgres (prod replica)', 'app-db replica', 'orders CDC']), 'sourceType': 'postgres',
         'workspaceId': wid, 'definitionId': uuid4(),
         'configuration': {'host': 'pg-replica.%s' % c.domain, 'port': 5432, 'database': 'app', 'username': 'airbyte_ro', 'password': '**********',
                           'ssl_mode': {'mode': 'require'}, 'tunnel_method': {'tunnel_method': 'SSH_KEY_AUTH', 'tunnel_host': 'bastion.%s' % c.domain,
                                                                          'tunnel_port': 22, 'tunnel_user': 'airbyte', 'ssh_key': '**********'},
                           'replication_method': {'method': 'CDC', 'replication_slot': 'airbyte_slot', 'publication': 'airbyte_pub'}}}
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']),
                  'curl -s -H "Authorization: Bearer $AIRBYTE_ACCESS_TOKEN" http://localhost:8000/api/public/v1/sources/%s | jq .' % sid, jdump(d))


def ge_stats():
    ev = R.randint(10, 60)
    ok = R.randint(ev // 2, ev)
    return {'evaluated_expectations': ev, 'successful_expectations': ok, 'unsuccessful_expectations': ev - ok,
            'success_percent': round(100.0 * ok / ev, 2)}


@negative
def n_ge_validation_result_ids(i):
    c = Ctx()
    suite = pick(['orders.critical', 'customers.warning', 'events.daily'])
    t = c.t
    rt = t.strftime('%Y%m%dT%H%M%S') + '.%06dZ' % R.randint(0, 999999)
    batch = hexs(32)
    d = {'success': R.choice([True, False]),
         'run_id': {'run_name': '%s-%s' % (pick(['nightly', 'ci']), t.strftime('%Y%m%d')), 'run_time': iso(t, ms=True, z='+00:00')},
         'run_results': {'ValidationResultIdentifier::%s/%s-%s/%s/%s' % (suite, pick(['nightly', 'ci']), t.strftime('%Y%m%d'), rt, batch): {
             'validation_result': {'statistics': ge_stats(),
                                   'meta': {'great_expectations_version': '0.18.%d' % R.randint(8, 19), 'expectation_suite_name': suite,
                                            'batch_spec': {'batch_data': 'SqlAlchemyExecutionEngine'}, 'active_batch_definition': {'datasource_name': 'warehouse', 'data_asset_name': suite.split('.')[0]}}},
             'actions_results': {'update_data_docs': {'local_site': 'file://%s/gx/uncommitted/data_docs/local_site/validations/%s/%s/%s/%s.html' % (c.cwd, suite.replace('.', '/'), t.strftime('%Y%m%d'), rt, batch)}}}},
         'checkpoint_config': {'name': '%s_checkpoint' % suite.split('.')[0], 'id': uuid4()}}
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), 'python -m gx_jobs.run_checkpoint %s_checkpoint --json' % suite.split('.')[0], jdump(d))


@negative
def n_superset_config_env_refs(i):
    c = Ctx()
    lines = ['import os',
             'from flask_caching.backends.rediscache import RedisCache',
             '',
             'def _env(name, default=None):',
             '    value = os.environ.get(name, default)',
             '    if value is None:',
             '        raise RuntimeError(f"{name} is not set")',
             '    return value',
             '',
             'SECRET_KEY = _env("SUPERSET_SECRET_KEY")',
             'DATABASE_USER = _env("DATABASE_USER", "superset")',
             'DATABASE_PASSWORD = _env("DATABASE_PASSWORD")',
             'SQLALCHEMY_DATABASE_URI = f"postgresql+psycopg2://{DATABASE_USER}:{DATABASE_PASSWORD}@{_env(\'DATABASE_HOST\')}:5432/superset"',
             'SMTP_PASSWORD = os.getenv("SMTP_PASSWORD", "")',
             'GUEST_TOKEN_JWT_SECRET = _env("GUEST_TOKEN_JWT_SECRET")',
             'RESULTS_BACKEND = RedisCache(host=_env("REDIS_HOST"), port=6379, password=os.getenv("REDIS_PASSWORD"), key_prefix="superset_results")',
             '# rotated %s, see %s#%d' % (c.t.strftime('%Y-%m-%d'), 'https://git.%s/%s/ops/-/issues' % (c.domain, c.org), R.randint(100, 3000)),
             'WTF_CSRF_ENABLED = True',
             'TALISMAN_ENABLED = True']
    return show_file(c, 'docker/pythonpath_prod/superset_config.py', '\n'.join(lines))


@negative
def n_bq_ls_jobs_table(i):
    c = Ctx()
    rows = [['jobId', 'Job Type', 'State', 'Start Time', 'Duration']]
    t = c.t
    for j in range(R.randint(4, 7)):
        t = later(t, 30, 3000)
        jid = 'bquxjob_%s_%s' % (hexs(8), hexs(11)) if R.random() < 0.5 else 'scheduled_query_%s_%s' % (hexs(8) + '-0000-' + hexs(4) + '-' + hexs(4) + '-' + hexs(12), hexs(4))
        if R.random() < 0.3:
            jid = 'job_' + urlsafe(28)
        rows.append([jid, pick(['query', 'load', 'extract', 'copy']), pick(['SUCCESS', 'SUCCESS', 'FAILURE', 'RUNNING']),
                     '%02d %s %s' % (t.day, MON[t.month - 1], t.strftime('%H:%M:%S')), '0:00:%02d.%06d' % (R.randint(0, 59), R.randint(0, 999999))])
    w = [max(len(r[j]) for r in rows) for j in range(5)]
    out = '  ' + '   '.join(rows[0][j].center(w[j]) for j in range(5)) + '\n'
    out += ' ' + ' '.join('-' * (w[j] + 2) for j in range(5)) + '\n'
    out += '\n'.join('  ' + '   '.join(r[j].ljust(w[j]) for j in range(5)) for r in rows[1:])
    proj = '%s-%s' % (c.org, pick(['analytics', 'dw', 'data']))
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), 'bq ls -j -n %d --project_id %s' % (len(rows) - 1, proj), out)


# ---- E-commerce and CMS -----------------------------------------------------

@negative
def n_shopify_app_info_theme_ids(i):
    c = Ctx()
    store = '%s-%s.myshopify.com' % (c.org, pick(['dev', 'staging', 'store']))
    if i % 2 == 0:
        out = '''
  Current app configuration
  Configuration file     shopify.app.toml
  App name               {o}-{a}
  Client ID              {cid}
  Access scopes          read_products,write_orders,read_customers
  Dev store              {s}
  Update URLs            Not yet configured

  Your Project
  Root location          {cwd}

  Directory components
  Extensions             {o}-checkout-ui (checkout_ui_extension)
                         {o}-discounts (product_discounts)

  Tooling and System
  Shopify CLI            3.{v}.{v2}
  Package manager        npm
  OS                     {os}
  Shell                  /bin/zsh
  Node version           v20.{nv}.0'''.format(o=c.org, a=pick(['loyalty', 'bundles', 'reviews']), cid=hexs(32), s=store, cwd=c.cwd, v=R.randint(50, 70), v2=R.randint(0, 9),
                                              os=pick(['darwin-arm64', 'linux-x64']), nv=R.randint(10, 18))
        return render(c, pick(['prompt', 'claude', 'codex_exec', 'gemini']), 'shopify app info', out)
    themes = [['Dawn', '[live]', '#%d' % R.randint(120000000000, 189999999999)],
              ['%s/main' % c.proj, '[unpublished]', '#%d' % R.randint(120000000000, 189999999999)],
              ['Development (%s-%s)' % (hexs(6), c.host[:12]), '[development]', '#%d' % R.randint(120000000000, 189999999999)]]
    out = col_t([['  name', 'role', 'id']] + [['  ' + a, b, cc] for a, b, cc in themes])
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), 'shopify theme list --store %s' % store, out)


@negative
def n_magento_core_config_encrypted(i):
    c = Ctx()
    def enc():
        return '0:3:' + b64(R.choice([40, 56, 72]))
    rows = [['config_id', 'scope', 'scope_id', 'path', 'value'],
            [str(R.randint(100, 900)), 'default', '0', 'payment/braintree/private_key', enc()],
            [str(R.randint(100, 900)), 'default', '0', 'payment/braintree/public_key', enc()],
            [str(R.randint(100, 900)), 'default', '0', 'payment/braintree/merchant_id', lowd(16)],
            [str(R.randint(100, 900)), 'websites', '1', 'carriers/ups/password', enc()],
            [str(R.randint(100, 900)), 'default', '0', 'smtp/general/password', enc()],
            [str(R.randint(100, 900)), 'default', '0', 'oauth/consumer/expiration_period', '300']]
    out = snow_box(rows) + '\n%d rows in set (0.00 sec)' % (len(rows) - 1)
    cmd = 'mysql -h mysql-primary -u magento -p"$MAGENTO_DB_PASSWORD" magento -e "SELECT config_id, scope, scope_id, path, value FROM core_config_data WHERE path LIKE \'%password%\' OR path LIKE \'%key%\' OR path LIKE \'payment/braintree/%\'"'
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), cmd, out)


@negative
def n_wc_api_keys_db_hashed(i):
    c = Ctx()
    rows = [['key_id', 'user_id', 'description', 'permissions', 'consumer_key', 'truncated_key', 'last_access']]
    for j in range(R.randint(2, 4)):
        rows.append([str(j + R.randint(1, 20)), str(R.randint(1, 9)), pick(['ERP sync', 'Zapier', 'mobile app', 'ShipStation', 'analytics export']),
                     pick(['read', 'read_write', 'write']), hexs(64), hexs(7), logts(later(c.t, -10**7, 0), ms=False) if R.random() < 0.8 else 'NULL'])
    out = snow_box(rows)
    cmd = 'wp db query "SELECT key_id, user_id, description, permissions, consumer_key, truncated_key, last_access FROM wp_woocommerce_api_keys" --skip-column-names=false'
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'gemini']), cmd, out)


@negative
def n_ghost_content_api_frontend(i):
    c = Ctx()
    key = hexs(26)
    lines = ["import GhostContentAPI from '@tryghost/content-api'",
             '',
             '// Content API keys are public (read-only, published content only).',
             'export const ghost = new GhostContentAPI({',
             "  url: 'https://blog.%s'," % c.domain,
             "  key: '%s'," % key,
             "  version: 'v5.0'",
             '})',
             '',
             'export async function latestPosts(limit = 6) {',
             "  return ghost.posts.browse({ limit, include: 'tags,authors', filter: 'visibility:public' })",
             '}']
    steps = [('cat src/lib/ghost.ts', '\n'.join(lines))]
    if i % 2:
        steps.append(("curl -s 'https://blog.%s/ghost/api/content/posts/?key=%s&limit=1&fields=id,uuid,slug' | jq ." % (c.domain, key),
                      jdump({'posts': [{'id': hexs(24), 'uuid': uuid4(), 'slug': pick(['spring-release-notes', 'how-we-ship', 'year-in-review'])}],
                             'meta': {'pagination': {'page': 1, 'limit': 1, 'pages': R.randint(5, 90), 'total': R.randint(5, 90), 'next': 2, 'prev': None}}})))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


def ctf_id():
    return aln(22)


@negative
def n_contentful_entries_sys_ids(i):
    c = Ctx()
    space = lowd(12)
    ents = []
    for j in range(2):
        eid = ctf_id()
        aid = ctf_id()
        t = later(c.t, -10**7, 0)
        ents.append({'sys': {'space': {'sys': {'type': 'Link', 'linkType': 'Space', 'id': space}}, 'id': eid, 'type': 'Entry',
                             'createdAt': iso(t), 'updatedAt': iso(later(t, 100, 10**6)),
                             'environment': {'sys': {'id': 'master', 'type': 'Link', 'linkType': 'Environment'}},
                             'publishedVersion': R.randint(2, 40), 'revision': R.randint(1, 20),
                             'contentType': {'sys': {'type': 'Link', 'linkType': 'ContentType', 'id': pick(['blogPost', 'productPage', 'landingPage'])}}},
                     'fields': {'title': {'en-US': pick(['Spring sale', 'Shipping FAQ', 'New arrivals'])},
                                'heroImage': {'en-US': {'sys': {'type': 'Link', 'linkType': 'Asset', 'id': aid}}}}})
    asset_url = '//images.ctfassets.net/%s/%s/%s/%s.jpg' % (space, ctf_id(), hexs(32), pick(['hero', 'banner', 'lookbook']))
    steps = [("jq '.entries[:2]' backup/contentful-export-%s-master-%s.json" % (space, c.t.strftime('%Y-%m-%dT%H-%M-%S')), jdump(ents)),
             ("jq -r '.assets[0].fields.file[\"en-US\"].url' backup/contentful-export-%s-master-%s.json" % (space, c.t.strftime('%Y-%m-%dT%H-%M-%S')), asset_url)]
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps if i % 2 == 0 else steps[:1])


@negative
def n_sanity_debug_redacted(i):
    c = Ctx()
    f, l = person()
    proj = lowd(8)
    out = '''User:
  ID: '{uid}'
  Name: '{f} {l}'
  Email: '{em}'
  Roles: [ 'administrator' ]

Authentication:
  User type: 'normal'
  Auth token: '<redacted>'
    (run with --secrets to reveal token)

Global config ({h}/.config/sanity/config.json):
  authType: 'normal'
  authToken: '<redacted>'

Project:
  ID: '{proj}'
  Display name: '{pn}'
  Studio URL: 'https://{pn}.sanity.studio/'
  User role: 'administrator'

Project config ({cwd}/sanity.cli.ts):
  api: {{ projectId: '{proj}', dataset: 'production' }}'''.format(uid='p' + aln(8), f=f, l=l, em='%s@%s' % (f.lower(), c.domain), h=c.home,
                                                                 proj=proj, pn=c.proj, cwd=c.cwd)
    steps = [('npx sanity debug', out)]
    if i % 2:
        steps.append(('npx sanity tokens list', '\n'.join('%-22s %-12s %s' % (a, b, cc) for a, b, cc in [
            ('LABEL', 'ROLE', 'ID'), ('vercel-preview', 'viewer', 's' + aln(8)), ('ci-deploy', 'deploy-studio', 's' + aln(8)), ('webhook-revalidate', 'viewer', 's' + aln(8))])))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


# ---- Payments and messaging -------------------------------------------------

@negative
def n_adyen_client_key_dropin(i):
    c = Ctx()
    env = pick(['test', 'live'])
    ck = '%s_%s' % (env, upd(32))
    sess = 'CS' + upd(14) + hexu(16)
    lines = ["import AdyenCheckout from '@adyen/adyen-web'",
             "import '@adyen/adyen-web/dist/adyen.css'",
             '',
             'const checkout = await AdyenCheckout({',
             "  environment: '%s'," % ('live-eu' if env == 'live' else 'test'),
             "  clientKey: '%s', // client keys are public; allowed origins: https://shop.%s" % (ck, c.domain),
             '  session: {',
             "    id: '%s'," % sess,
             "    sessionData: 'Ab02b4c0!%s'" % b64(90),
             '  },',
             "  onPaymentCompleted: (result) => console.info(result.resultCode, result.pspReference),",
             '})',
             "checkout.create('dropin').mount('#dropin-container')"]
    steps = [('cat web/src/checkout/adyen.ts', '\n'.join(lines))]
    if i % 2:
        steps.append(('grep -n pspReference logs/checkout.log | tail -n 3', '\n'.join('%s INFO payment result resultCode=Authorised pspReference=%s merchantReference=order-%d' % (
            logts(later(c.t, j * 40, j * 40 + 30)), upd(16), R.randint(10000, 99999)) for j in range(3))))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


@negative
def n_braintree_transaction_ids(i):
    c = Ctx()
    rows = []
    for j in range(R.randint(2, 4)):
        tid = lowd(8)
        gid = base64.b64encode(('transaction_' + tid).encode()).decode().rstrip('=')
        rows.append({'id': tid, 'global_id': gid, 'status': pick(['settled', 'submitted_for_settlement', 'authorized', 'voided']),
                     'amount': '%d.%02d' % (R.randint(5, 900), R.randint(0, 99)), 'currency_iso_code': pick(['USD', 'EUR', 'GBP']),
                     'processor_authorization_code': upd(6), 'network_transaction_id': digits(15),
                     'payment_instrument_type': pick(['credit_card', 'paypal_account', 'apple_pay_card']),
                     'customer_id': digits(9), 'created_at': iso(later(c.t, -10**6, 0), ms=False)})
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']),
                  'bin/rails runner \'puts JSON.pretty_generate(BraintreeReport.last_transactions(%d))\'' % len(rows), jdump(rows))


@negative
def n_razorpay_checkout_payment_ids(i):
    c = Ctx()
    kid = 'rzp_%s_%s' % (pick(['live', 'test']), aln(14))
    oid, pid = 'order_' + aln(14), 'pay_' + aln(14)
    sig = hexs(64)
    lines = ['const options = {',
             '  key: "%s", // key_id only: the secret never leaves the server' % kid,
             '  amount: %d,' % (R.randint(100, 9000) * 100),
             '  currency: "INR",',
             '  name: "%s",' % c.org.capitalize(),
             '  order_id: "%s",' % oid,
             '  handler: (resp) => fetch("/api/razorpay/verify", { method: "POST", body: JSON.stringify(resp) }),',
             '};',
             'new window.Razorpay(options).open();']
    steps = [('sed -n 1,12p web/src/checkout/razorpay.js', '\n'.join(lines)),
             ('tail -n 1 logs/verify.log', '%s INFO verify razorpay_payment_id=%s razorpay_order_id=%s razorpay_signature=%s valid=true' % (logts(c.t), pid, oid, sig))]
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps if i % 2 == 0 else steps[1:] + steps[:1])


@negative
def n_paddle_webhook_event_ids(i):
    c = Ctx()
    def pid(p):
        return '%s_01%s' % (p, rs(CROCK, 24))
    t = c.t
    ts = R.randint(1700000000, 1760000000)
    ev = {'event_id': pid('evt'), 'event_type': pick(['transaction.completed', 'subscription.activated', 'subscription.updated']),
          'occurred_at': iso(t, ms=True), 'notification_id': pid('ntf'),
          'data': {'id': pid('txn'), 'status': 'completed', 'customer_id': pid('ctm'), 'address_id': pid('add'), 'business_id': None,
                   'subscription_id': pid('sub'), 'currency_code': pick(['USD', 'EUR']), 'origin': 'subscription_recurring',
                   'items': [{'price': {'id': pid('pri'), 'product_id': pid('pro')}, 'quantity': 1}],
                   'checkout': {'url': 'https://%s/checkout?_ptxn=%s' % (c.domain, pid('txn'))}}}
    hdr = 'Paddle-Signature: ts=%d;h1=%s' % (ts, hexs(64))
    out = '%s INFO  webhook received %s\n%s\n%s' % (logts(t), ev['event_type'], hdr, jdump(ev))
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), 'docker compose logs billing --no-log-prefix --since 5m | tail -n 40', out)


@negative
def n_messagebird_message_ids(i):
    c = Ctx()
    items = []
    for j in range(R.randint(2, 4)):
        mid = hexs(32)
        items.append({'id': mid, 'href': 'https://rest.messagebird.com/messages/%s' % mid, 'direction': 'mt', 'type': 'sms',
                      'originator': c.org.capitalize()[:11], 'reference': 'order-%d' % R.randint(10000, 99999),
                      'createdDatetime': iso(later(c.t, -10**5, 0), ms=False, z='+00:00'),
                      'recipients': {'totalCount': 1, 'totalSentCount': 1, 'totalDeliveredCount': 1,
                                     'items': [{'recipient': int('31' + digits(9)), 'status': 'delivered', 'messagePartCount': 1}]}})
    d = {'offset': 0, 'limit': 20, 'count': len(items), 'totalCount': len(items) + R.randint(0, 900), 'links': {'first': 'https://rest.messagebird.com/messages/?offset=0', 'previous': None, 'next': None, 'last': None},
         'items': items}
    return render(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']),
                  "curl -s -H \"Authorization: AccessKey $MESSAGEBIRD_ACCESS_KEY\" 'https://rest.messagebird.com/messages?limit=%d' | jq ." % len(items), jdump(d))


@negative
def n_pusher_channel_auth_signature(i):
    c = Ctx()
    key = hexs(20)
    sock = '%d.%d' % (R.randint(100000, 999999), R.randint(1000000, 9999999))
    ch = 'private-%s-%d' % (pick(['orders', 'user', 'driver']), R.randint(100, 99999))
    steps = [('grep -n "new Pusher" -A3 resources/js/echo.js',
              "12:window.Echo = new Echo({\n13-    broadcaster: 'pusher',\n14-    key: '%s', // app key is public; the secret stays in .env\n15-    cluster: '%s'," % (key, pick(['eu', 'mt1', 'ap2', 'us2']))),
             ("curl -s -X POST https://%s/broadcasting/auth -H 'Cookie: laravel_session=<session>' -d 'socket_id=%s&channel_name=%s'" % (c.domain, sock, ch),
              '{"auth":"%s:%s"}' % (key, hexs(64)))]
    if i % 2:
        steps.append(('tail -n 2 storage/logs/laravel.log', '[%s] production.INFO: pusher connection established {"socket_id":"%s","activity_timeout":120}\n[%s] production.INFO: subscription_succeeded {"channel":"%s"}' % (
            logts(c.t, ms=False), sock, logts(later(c.t, 0, 2), ms=False), ch)))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran']), steps)


@negative
def n_ably_token_request_json(i):
    c = Ctx()
    app = rs(AN, 6)
    kn = '%s.%s' % (app, rs(AN + '-_', 6))
    ts = R.randint(1700000000000, 1760000000000)
    tr = {'keyName': kn, 'ttl': 3600000, 'capability': '{"%s:*":["subscribe","presence"]}' % pick(['orders', 'chat', 'tracking']),
          'clientId': '%s-%s' % (pick(['user', 'driver']), uuid4()[:8]), 'timestamp': ts, 'nonce': str(R.randint(10**15, 10**16 - 1)),
          'mac': b64(32)}
    steps = [('curl -s -X POST https://%s/api/ably/token-request -H "Cookie: session=<session>" | jq .' % c.domain, jdump(tr))]
    if i % 2:
        steps.append(('grep -n "createTokenRequest" -B2 -A4 src/server/ably.ts',
                      "3-const rest = new Ably.Rest({ key: process.env.ABLY_API_KEY })\n4-\n5:export async function tokenRequest(clientId: string) {\n6-  return rest.auth.createTokenRequest({ clientId, capability: CAPS })\n7-}"))
    return session(c, pick(['prompt', 'claude', 'codex_exec', 'codex_ran', 'gemini']), steps)


# =============================================================================
# checks and output
# =============================================================================
OPEN, CLOSE = '\u00ab', '\u00bb'
QUOTES = '"\'`'
SCHEMES = ('Bearer ', 'Basic ', 'token ', 'Token ', 'AccessKey ', 'key=')
FRAME_LEAD = ' \t\u2502\u2503'


def spans(text):
    out = []
    pos = 0
    while True:
        a = text.find(OPEN, pos)
        b = text.find(CLOSE, pos)
        if a < 0:
            assert b < 0, 'stray close mark'
            return out
        assert b > a, 'close before open'
        inner = text[a + 1:b]
        assert OPEN not in inner, 'nested marks'
        out.append((a, b, inner))
        pos = b + 1


def check_positive(name, text):
    sp = spans(text)
    assert sp, '%s: positive row without marks' % name
    stripped = text
    for a, b, s in reversed(sp):
        stripped = stripped[:a] + '\x00' + stripped[b + 1:]
    for a, b, s in sp:
        assert s, '%s: empty mark' % name
        assert s == s.strip(), '%s: outer whitespace in %r' % (name, s)
        assert s[0] not in QUOTES and s[-1] not in QUOTES, '%s: quote at mark edge %r' % (name, s)
        assert not s.startswith(SCHEMES), '%s: scheme word in mark %r' % (name, s)
        if '\n' in s:
            for ln in s.split('\n')[1:]:
                assert ln and ln[0] not in FRAME_LEAD, '%s: multi-line mark across a line prefix' % name
        if len(s) >= 8:
            assert s not in stripped, '%s: secret also appears unmarked: %r' % (name, s[:40])
    return [s for a, b, s in sp]


def build():
    rows = []
    nid = 1
    all_secrets = {}
    nspans = 0
    for kind, table in (('pos', POS), ('neg', NEG)):
        for name, fn in table:
            for i in range(5):
                text = fn(i)
                assert isinstance(text, str) and text.strip(), name
                if kind == 'pos':
                    for s in check_positive(name, text):
                        nspans += 1
                        if len(s) >= 8:
                            prev = all_secrets.get(s)
                            assert prev is None or prev == nid, '%s: secret reused across rows (%s)' % (name, prev)
                            all_secrets[s] = nid
                else:
                    assert OPEN not in text and CLOSE not in text, '%s: marks in a negative row' % name
                rows.append({'id': nid, 'template': name, 'positive': kind == 'pos', 'text': text})
                nid += 1
    secrets = [x for x in all_secrets if len(x) >= 8]
    for r in rows[300:]:
        for x in secrets:
            assert x not in r['text'], '%s: a positive secret appears in a negative row' % r['template']
    return rows, nspans


def main():
    rows, nspans = build()
    names = [r['template'] for r in rows]
    uniq = []
    for n in names:
        if n not in uniq:
            uniq.append(n)
    assert len(POS) == 60 and len(NEG) == 60, (len(POS), len(NEG))
    assert len(uniq) == 120, len(uniq)
    assert len(rows) == 600
    assert all(r['positive'] for r in rows[:300]) and not any(r['positive'] for r in rows[300:])
    out = sys.stdout.buffer
    for r in rows:
        out.write((json.dumps(r, ensure_ascii=False) + '\n').encode('utf-8'))
    sys.stderr.write('agent_tuning_7: %d rows, %d positive templates, %d negative templates, %d marked spans\n'
                     % (len(rows), len(POS), len(NEG), nspans))


if __name__ == '__main__':
    main()
