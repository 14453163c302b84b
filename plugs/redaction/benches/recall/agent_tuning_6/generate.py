#!/usr/bin/env python3
"""Sixth tuning set for the redaction detector, written apart from it.

Run:  python3 generate.py > rows.jsonl

Standard library only, one random.Random(6262), no clock, no environment,
no locale, no set or hash iteration: two runs print the same bytes.
"""
import base64
import datetime
import json
import re
import string
import struct
import sys
import zlib
import random

R = random.Random(6262)

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
LETTERS = UPPER + LOWER
ALNUM = UPPER + LOWER + DIGITS
B62 = DIGITS + UPPER + LOWER
HEX = '0123456789abcdef'
HEXU = '0123456789ABCDEF'
B64C = ALNUM + '+/'
B64U = ALNUM + '-_'
PUNCT = '!#*+-_.=^~'
MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
DOW = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']


# ---------------------------------------------------------------- basics

def rs(alpha, n):
    return ''.join(R.choice(alpha) for _ in range(n))


def hexs(n):
    return rs(HEX, n)


def rbytes(n):
    return bytes(R.randrange(256) for _ in range(n))


def b64(data, pad=True):
    s = base64.b64encode(data).decode()
    return s if pad else s.rstrip('=')


def b64u(data, pad=False):
    s = base64.urlsafe_b64encode(data).decode()
    return s if pad else s.rstrip('=')


def jb64u(obj):
    return b64u(json.dumps(obj, separators=(',', ':')).encode())


def uuid4():
    h = list(hexs(32))
    h[12] = '4'
    h[16] = R.choice('89ab')
    h = ''.join(h)
    return f'{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}'


def uuid7(t):
    ms = int((t - datetime.datetime(1970, 1, 1)).total_seconds() * 1000) + R.randrange(1000)
    h = f'{ms:012x}' + '7' + hexs(3) + R.choice('89ab') + hexs(15)
    return f'{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}'


def M(s):
    return '\u00ab' + s + '\u00bb'


def pick(seq):
    return R.choice(seq)


def wrap(s, n=64):
    return [s[i:i + n] for i in range(0, len(s), n)]


def b62num(n, width):
    out = ''
    while n:
        n, r = divmod(n, 62)
        out = B62[r] + out
    return out.rjust(width, '0')


def crc_token(prefix):
    body = rs(ALNUM, 30)
    return prefix + body + b62num(zlib.crc32(body.encode()) & 0xffffffff, 6)


def epoch(t):
    return int((t - datetime.datetime(1970, 1, 1)).total_seconds())


def iso(t, frac=0, z='Z'):
    s = f'{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}'
    if frac:
        micro = f'{t.microsecond:06d}'
        s += '.' + (micro[:frac] if frac <= 6 else micro + ''.join(str(R.randrange(10)) for _ in range(frac - 6)))
    return s + z


def ymd(t):
    return f'{t.year:04d}-{t.month:02d}-{t.day:02d}'


def hms(t):
    return f'{t.hour:02d}:{t.minute:02d}:{t.second:02d}'


def syslog_ts(t):
    return f'{MON[t.month - 1]} {t.day:2d} {hms(t)}'


def http_date(t):
    return f'{DOW[t.weekday()]}, {t.day:02d} {MON[t.month - 1]} {t.year} {hms(t)} GMT'


def later(t, lo=1, hi=60):
    return t + datetime.timedelta(seconds=R.randrange(lo, hi + 1), microseconds=R.randrange(0, 10 ** 6))


def vis(s):
    return len(s) - s.count('\u00ab') - s.count('\u00bb')


def ljv(s, w):
    return s + ' ' * max(0, w - vis(s))


WORDS = ['tundra', 'velvet', 'harbor', 'copper', 'lantern', 'quartz', 'meadow', 'falcon',
         'ember', 'glacier', 'orchid', 'pebble', 'saffron', 'thistle', 'walnut', 'zephyr',
         'basalt', 'cinder', 'dune', 'fjord', 'granite', 'hollow', 'indigo', 'juniper',
         'kelp', 'lichen', 'marble', 'nectar', 'onyx', 'prairie', 'quiver', 'raven',
         'sable', 'timber', 'umber', 'vortex', 'willow', 'yarrow', 'anvil', 'bramble']


def password(kind=None, url=False):
    kind = kind or pick(['mixed', 'mixed', 'words', 'hex', 'b64', 'alnum', 'mixed'])
    punct = '-_.~' if url else PUNCT
    if kind == 'mixed':
        n = R.randrange(13, 21)
        while True:
            s = R.choice(ALNUM) + rs(ALNUM + punct + punct, n - 1)
            if any(ch in punct for ch in s) and any(ch.isdigit() for ch in s) and s[-1] not in '.=':
                return s
    if kind == 'words':
        sep = pick(['-', '.', '_']) if not url else pick(['-', '.', '_'])
        ws = [pick(WORDS).capitalize() if R.random() < 0.6 else pick(WORDS) for _ in range(R.randrange(3, 5))]
        return sep.join(ws) + sep + str(R.randrange(10, 1000))
    if kind == 'hex':
        return hexs(pick([24, 32, 40]))
    if kind == 'b64':
        s = b64(rbytes(pick([18, 21, 24])), pad=False)
        if url:
            s = s.replace('+', '-').replace('/', '_')
        else:
            s = s.replace('/', '_')
        return pick(ALNUM) + s[1:]
    return rs(ALNUM, R.randrange(16, 25))


def upw():
    return password(url=True)


# ---------------------------------------------------------------- vendor formats

def sk_live():
    return 'sk_live_51' + rs(ALNUM, 97)


def sendgrid():
    return 'SG.' + rs(B64U, 22) + '.' + rs(B64U, 43)


def akia():
    return 'AKIA' + rs(UPPER + '234567', 16)


def aws_secret():
    return rs(ALNUM + '+/', 40)


def azure_key():
    return b64(rbytes(64))


def sas_sig():
    s = b64(rbytes(32))
    return s.replace('+', '%2B').replace('/', '%2F').replace('=', '%3D')


def glpat():
    return 'glpat-' + rs(ALNUM + '-_', 20)


def gldt():
    return 'gldt-' + rs(ALNUM + '-_', 20)


def dapi():
    return 'dapi' + hexs(32) + pick(['', '', '-2', '-3'])


def gsk():
    return 'gsk_' + rs(ALNUM, 52)


def pplx():
    return 'pplx-' + rs(ALNUM, 48)


def sk_ant():
    return 'sk-ant-api03-' + rs(B64U, 93) + 'AA'


def sk_proj():
    return 'sk-proj-' + rs(B64U, 74) + 'T3BlbkFJ' + rs(B64U, 74)


def pcsk():
    return 'pcsk_' + rs(ALNUM, 6) + '_' + rs(ALNUM, 63)


def r8():
    return 'r8_' + rs(ALNUM, 37)


def airtable_pat():
    return 'pat' + rs(ALNUM, 14) + '.' + hexs(64)


def notion():
    return 'ntn_' + rs(DIGITS, 11) + rs(ALNUM, 35)


def atatt():
    return 'ATATT3xFfGF0' + rs(B64U, 171) + '=' + rs(HEXU, 8)


def okta_token():
    return '00' + rs(ALNUM + '-_', 40)


def tg_token():
    return str(R.randrange(1000000000, 8000000000)) + ':AA' + rs(B64U, 33)


def square_token():
    return 'EAAA' + rs(B64U, 60)


def paypal_secret():
    return 'E' + rs(B64U, 79)


def paypal_client():
    return 'A' + rs(B64U, 79)


def cfpat():
    return 'CFPAT-' + rs(B64U, 43)


def sanity_token():
    return 'sk' + rs(ALNUM, 180)


def mapbox_token(prefix, user):
    payload = {'u': user, 'a': 'cl' + rs(LOWER + DIGITS, 23)}
    return prefix + '.' + jb64u(payload) + '.' + rs(B64U, 22)


def jwt(header, payload, siglen=43):
    return jb64u(header) + '.' + jb64u(payload) + '.' + rs(B64U, siglen)


def supabase_jwt(ref, role, t):
    iat = epoch(t) - R.randrange(10 ** 6, 5 * 10 ** 7)
    return jwt({'alg': 'HS256', 'typ': 'JWT'},
               {'iss': 'supabase', 'ref': ref, 'role': role, 'iat': iat, 'exp': iat + 315360000})


def influx_token():
    return b64u(rbytes(64), pad=True)


def glc_token(stack_id):
    obj = {'o': str(R.randrange(100000, 999999)), 'n': f'stack-{stack_id}-hm-write-' + pick(['prom', 'agent', 'alloy']),
           'k': rs(ALNUM, 24), 'm': {'r': pick(['prod-eu-west-2', 'prod-us-east-0', 'prod-ap-southeast-1'])}}
    return 'glc_' + b64(json.dumps(obj, separators=(',', ':')).encode())


def fly_token():
    parts = ['fm2_' + b64(rbytes(R.randrange(180, 205)))]
    parts.append('fm2_' + b64(rbytes(R.randrange(95, 115))))
    return ','.join(parts)


def pypi_token(test=False):
    pre = 'pypi-AgENdGVzdC5weXBpLm9yZw' if test else 'pypi-AgEIcHlwaS5vcmc'
    return pre + 'CJ' + b64u(uuid4().encode() + rbytes(R.randrange(80, 110)))


def tfc_token():
    return rs(ALNUM, 14) + '.atlasv1.' + rs(ALNUM, 67)


def oc_token():
    return 'sha256~' + rs(B64U, 43)


def firebase_token():
    return '1//0' + pick('cdegh') + rs(B64U, 98)


def mailgun_smtp():
    return hexs(32) + '-' + hexs(8) + '-' + hexs(8)


def django_key():
    s = rs(LOWER + DIGITS + '!@#%^&*(-_=+)', 50)
    return ('django-insecure-' + s) if R.random() < 0.3 else s


def cf_api_token():
    return rs(ALNUM + '-_', 40)


def acr_password():
    return rs(ALNUM + '+/', 42) + '+ACR' + rs(ALNUM, 6)


def azdo_pat():
    return rs(LOWER + '234567', 52)


def hubspot_token():
    return 'pat-' + pick(['na1', 'eu1']) + '-' + uuid4()


def intercom_token():
    return b64(b'tok:' + uuid4().encode() + b':1:0', pad=True)


def k8s_jwt(ns, sa, t, hours=1):
    iat = epoch(t)
    return jwt({'alg': 'RS256', 'kid': rs(B64U, 43)},
               {'aud': ['https://kubernetes.default.svc.cluster.local'], 'exp': iat + hours * 3600, 'iat': iat,
                'iss': 'https://kubernetes.default.svc.cluster.local', 'jti': uuid4(),
                'kubernetes.io': {'namespace': ns, 'serviceaccount': {'name': sa, 'uid': uuid4()}},
                'nbf': iat, 'sub': f'system:serviceaccount:{ns}:{sa}'}, 342)


def ssh_string(b):
    return struct.pack('>I', len(b)) + b


def ed25519_pub_blob():
    return ssh_string(b'ssh-ed25519') + ssh_string(rbytes(32))


def ssh_ed25519_pub():
    return 'ssh-ed25519 ' + b64(ed25519_pub_blob())


def sha256_fp():
    return 'SHA256:' + b64(rbytes(32), pad=False)


# ---------------------------------------------------------------- key blocks

def pem(label, der, width=64):
    return '\n'.join([f'-----BEGIN {label}-----'] + wrap(b64(der), width) + [f'-----END {label}-----'])


def rsa_pkcs8():
    return pem('PRIVATE KEY', bytes.fromhex('308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100') + rbytes(1155))


def rsa_pkcs1():
    return pem('RSA PRIVATE KEY', bytes.fromhex('308204a40201000282010100') + rbytes(1180))


def ec_key():
    der = bytes.fromhex('30770201010420') + rbytes(32) + bytes.fromhex('a00a06082a8648ce3d030107a14403420004') + rbytes(64)
    return pem('EC PRIVATE KEY', der)


def ed25519_pkcs8():
    return pem('PRIVATE KEY', bytes.fromhex('302e020100300506032b657004220420') + rbytes(32))


def ed25519_spki():
    return pem('PUBLIC KEY', bytes.fromhex('302a300506032b6570032100') + rbytes(32))


def openssh_ed25519(comment):
    pub = rbytes(32)
    pubblob = ssh_string(b'ssh-ed25519') + ssh_string(pub)
    chk = rbytes(4)
    priv = chk + chk + ssh_string(b'ssh-ed25519') + ssh_string(pub) + ssh_string(rbytes(32) + pub) + ssh_string(comment.encode())
    pad = 1
    while len(priv) % 8:
        priv += bytes([pad])
        pad += 1
    blob = (b'openssh-key-v1\x00' + ssh_string(b'none') + ssh_string(b'none') + ssh_string(b'')
            + struct.pack('>I', 1) + ssh_string(pubblob) + ssh_string(priv))
    return pem('OPENSSH PRIVATE KEY', blob, 70), 'ssh-ed25519 ' + b64(pubblob)


def cert_pem(n=None):
    n = n or R.randrange(560, 900)
    der = (bytes.fromhex('308203') + rbytes(1) + bytes.fromhex('308202') + rbytes(1)
           + bytes.fromhex('a00302010202') + bytes([0x14]) + rbytes(n))
    return pem('CERTIFICATE', der)


def ovpn_static_key():
    return '\n'.join(['-----BEGIN OpenVPN Static key V1-----'] + [hexs(32) for _ in range(16)]
                     + ['-----END OpenVPN Static key V1-----'])


# ---------------------------------------------------------------- context

FIRST = ['dana', 'priya', 'marek', 'lena', 'tomas', 'aisha', 'kenji', 'sofia', 'omar', 'ingrid', 'raj',
         'chloe', 'mateo', 'yuki', 'noah', 'fatima', 'lucas', 'elif', 'jonas', 'mei', 'arjun', 'zoe',
         'pavel', 'nadia', 'felix', 'amara', 'diego', 'hana', 'victor', 'leila', 'sam', 'olga', 'ravi',
         'greta', 'kwame', 'ana', 'bruno', 'sara', 'ivan', 'maya']
LAST = ['ruiz', 'kowalski', 'nakamura', 'okafor', 'lindqvist', 'haddad', 'chen', 'patel', 'novak',
        'moreau', 'silva', 'fischer', 'tanaka', 'obi', 'jensen', 'rossi', 'kim', 'petrov', 'garcia',
        'schmidt', 'ali', 'dubois', 'costa', 'larsen', 'ivanova', 'mendes', 'park', 'weber', 'singh', 'murphy']
ORGS = ['acme-analytics', 'northwind', 'bluefin-labs', 'quarry-io', 'tidewater', 'helio-systems',
        'copperleaf', 'orbitly', 'mosaic-health', 'fernbank', 'stratus-pay', 'lumen-retail', 'kitebird',
        'granite-ops', 'parcelhub', 'vireo-data', 'saltmarsh', 'brightpath', 'nimbus-works',
        'ironclad-labs', 'pinecrest', 'harborline', 'zestful', 'oakmont-bio', 'polaris-fleet', 'rivet-app',
        'sundial-hq', 'tallgrass', 'umbra-sec', 'wavecrest']
PROJECTS = ['billing-api', 'orders-service', 'checkout-web', 'ingest-pipeline', 'notifier',
            'search-indexer', 'auth-gateway', 'reporting', 'mobile-backend', 'ledger', 'catalog',
            'scheduler', 'media-worker', 'support-bot', 'analytics-etl', 'partner-portal', 'inventory',
            'pricing-engine', 'dispatch', 'webhooks-relay', 'geo-tiles', 'ml-serving', 'docs-site',
            'admin-console', 'sync-agent', 'crm-bridge', 'payouts', 'fleet-tracker', 'kyc-service',
            'feature-flags']
BRANCHES = ['main', 'develop', 'feat/rotate-creds', 'fix/ci-cache', 'chore/bump-deps', 'feature/billing-v2',
            'hotfix/login-loop', 'wip/k8s-migration', 'release/2024.05', 'cleanup/env-files', 'master']
TLDS = ['.io', '.dev', '.com', '.net', '.co', '.app', '.tech']
REGIONS = ['eu-west-1', 'eu-central-1', 'us-east-1', 'us-west-2', 'ap-southeast-2', 'eu-north-1']
AZ_REGIONS = ['westeurope', 'northeurope', 'eastus2', 'uksouth', 'swedencentral']


class Ctx:
    pass


def new_ctx(k):
    c = Ctx()
    c.k = k
    first, last = pick(FIRST), pick(LAST)
    c.first, c.last = first, last
    c.name = f'{first.capitalize()} {last.capitalize()}'
    c.user = pick([first, first[0] + last, f'{first}.{last[0]}', first + last[:2], first])
    c.uid = c.user.replace('.', '')
    c.org = pick(ORGS)
    c.orgn = c.org.replace('-', '')
    c.proj = pick(PROJECTS)
    c.projn = c.proj.replace('-', '_')
    c.domain = c.org.split('-')[0] + pick(TLDS)
    c.email = f'{first}@{c.domain}'
    c.branch = pick(BRANCHES)
    c.mac = R.random() < 0.3
    c.home = f'/Users/{c.uid}' if c.mac else f'/home/{c.uid}'
    c.host = pick([f'{first}-mbp', f'{first.capitalize()}s-MacBook-Pro', f'{first}-m3']) if c.mac else pick([f'{first}-mbp', f'ws-{R.randrange(1, 60):02d}', f'ip-10-{R.randrange(0, 40)}-{R.randrange(0, 255)}-{R.randrange(2, 250)}',
                   f'devbox-{hexs(4)}', f'ci-runner-{R.randrange(1, 30)}', f'{c.proj}-dev', f'build-{R.randrange(2, 9)}',
                   f'{first}-thinkpad', f'lab-{pick(["kilo", "lima", "oscar", "tango"])}'])
    c.cwd = pick([f'{c.home}/src/{c.proj}', f'{c.home}/work/{c.org}/{c.proj}', f'{c.home}/code/{c.proj}',
                  f'{c.home}/{c.proj}'])
    c.region = pick(REGIONS)
    c.azregion = pick(AZ_REGIONS)
    c.t = datetime.datetime(2024, 1, 8) + datetime.timedelta(seconds=R.randrange(0, 560 * 86400),
                                                             microseconds=R.randrange(0, 10 ** 6))
    c.prompt = pick(['bash', 'bash', 'omz', 'starship', 'rhel', 'bare', 'fish', 'bash'])
    c.frame = pick(['prompt', 'prompt', 'prompt', 'prompt', 'claude', 'claude', 'claude', 'codex', 'codex',
                    'codex_ts', 'codex_new', 'gemini', 'gemini'])
    c.container = hexs(12)
    c.ip = f'10.{R.randrange(0, 60)}.{R.randrange(0, 255)}.{R.randrange(2, 250)}'
    return c


def tick(c, lo=1, hi=40):
    c.t = later(c.t, lo, hi)
    return c.t


def tick_ms(c, lo=1, hi=900):
    c.t = c.t + datetime.timedelta(microseconds=R.randrange(lo * 1000, hi * 1000 + 1))
    return c.t


def short_cwd(c):
    return c.cwd.replace(c.home, '~', 1)


def prompt_str(c):
    st = c.prompt
    base = c.cwd.rsplit('/', 1)[-1]
    if st == 'bash':
        return f'{c.user}@{c.host}:{short_cwd(c)}$ '
    if st == 'omz':
        return f'\u279c  {base} git:({c.branch}) ' + pick(['', '\u2717 '])
    if st == 'starship':
        extra = pick(['', ' via \U0001f40d v3.12.3', ' via \u2b22 v20.12.2', ' via \U0001f980 v1.78.0', ' [!?]'])
        return f'{short_cwd(c)} on \ue0a0 {c.branch}{extra}\n\u276f '
    if st == 'rhel':
        return f'[{c.user}@{c.host} {base}]$ '
    if st == 'fish':
        parts = short_cwd(c).split('/')
        fp = '/'.join([p[:1] if i < len(parts) - 1 and p != '~' else p for i, p in enumerate(parts)])
        return f'{c.user}@{c.host} {fp} ({c.branch})> '
    return '$ '


MARK_RE = re.compile('\u00ab([^\u00ab\u00bb]*)\u00bb')


def split_ml(text):
    """Marks spanning several lines become one mark per line (BEGIN/END lines and
    indentation stay outside): used wherever each line gets a prefix."""
    def rep(m):
        inner = m.group(1)
        if '\n' not in inner:
            return m.group(0)
        out = []
        for ln in inner.split('\n'):
            core = ln.strip()
            if not core or core.startswith('-----BEGIN') or core.startswith('-----END'):
                out.append(ln)
            else:
                i = ln.index(core)
                out.append(ln[:i] + M(core) + ln[i + len(core):])
        return '\n'.join(out)
    return MARK_RE.sub(rep, text)


def quote_cmd(cmd):
    if "'" in cmd:
        return 'bash -lc "' + cmd.replace('"', '\\"') + '"'
    return "bash -lc '" + cmd + "'"


def sh(c, cmd, out, frame=None, code=0, desc=None):
    f = frame or c.frame
    out = out.rstrip('\n')
    if f == 'gemini':
        lines = split_ml(out).split('\n') if out else []
        head = f'\u2714  Shell {cmd}' + (f' ({desc})' if desc else '')
        if code:
            head = f'x  Shell {cmd}'
        w = max([vis(head)] + [vis(x) for x in lines] + [56]) + 2
        if w > 118:
            f = 'codex'
        else:
            rows = ['\u256d' + '\u2500' * (w + 2) + '\u256e', '\u2502 ' + ljv(head, w) + ' \u2502',
                    '\u2502 ' + ' ' * w + ' \u2502']
            rows += ['\u2502 ' + ljv(x, w) + ' \u2502' for x in lines]
            rows.append('\u2570' + '\u2500' * (w + 2) + '\u256f')
            return '\n'.join(rows)
    if f == 'prompt':
        return prompt_str(c) + cmd + ('\n' + out if out else '')
    if f == 'claude':
        lines = split_ml(out).split('\n') if out else ['(No content)']
        body = ['  \u23bf  ' + lines[0]] + [('     ' + x) if x else '' for x in lines[1:]]
        return f'\u23fa Bash({cmd})\n' + '\n'.join(body)
    ms = R.randrange(8, 2400)
    status = f'succeeded in {ms}ms:' if code == 0 else f'exited {code} in {ms}ms:'
    if f == 'codex':
        return f'exec\n{quote_cmd(cmd)} in {c.cwd}\n{status}\n{out}'.rstrip('\n')
    if f == 'codex_ts':
        ts = '[' + iso(c.t, 0, '') + ']'
        return f'{ts} exec {quote_cmd(cmd)} in {c.cwd}\n{ts} {quote_cmd(cmd)} {status}\n{out}'.rstrip('\n')
    # codex_new
    lines = split_ml(out).split('\n') if out else ['(no output)']
    body = ['  \u2514 ' + lines[0]] + [('    ' + x) if x else '' for x in lines[1:]]
    return f'\u2022 Ran {cmd}\n' + '\n'.join(body)


def join(c, blocks):
    sep = '\n' if c.frame == 'prompt' else '\n\n'
    return sep.join(b for b in blocks if b)


def view(c, path, content, how=None, n=None):
    """Show a file the way an agent would read it."""
    how = how or pick(['cat', 'cat', 'read', 'read', 'cat_n', 'sed', 'head', 'bat', 'nl'])
    content = content.rstrip('\n')
    lines = content.split('\n')
    if how in ('cat_n', 'nl', 'read', 'bat'):
        lines = split_ml(content).split('\n')
    if how == 'read':
        return f'\u23fa Read({path})\n' + '\n'.join(f'{i:6d}\u2192{x}' for i, x in enumerate(lines, 1))
    if how == 'cat':
        return sh(c, f'cat {path}', content)
    if how == 'cat_n':
        return sh(c, f'cat -n {path}', '\n'.join(f'{i:6d}\t{x}' for i, x in enumerate(lines, 1)))
    if how == 'nl':
        return sh(c, f'nl -ba {path}', '\n'.join(f'{i:6d}\t{x}' for i, x in enumerate(lines, 1)))
    if how == 'sed':
        m = n or (len(lines) + R.randrange(0, 30))
        return sh(c, f"sed -n '1,{m}p' {path}", content)
    if how == 'head':
        m = n or max(len(lines), pick([20, 40, 50, 60, 80]))
        return sh(c, f'head -n {m} {path}', content)
    # bat
    w = 7
    bar = '\u2500' * w
    rule = max([vis(x) for x in lines] + [40]) + 2
    out = [bar + '\u252c' + '\u2500' * rule, ' ' * w + '\u2502 File: ' + path.rsplit('/', 1)[-1] if R.random() < 0.5 else ' ' * w + '\u2502 File: ' + path,
           bar + '\u253c' + '\u2500' * rule]
    out += [f'{i:4d}   \u2502 {x}'.rstrip() if x == '' else f'{i:4d}   \u2502 {x}' for i, x in enumerate(lines, 1)]
    out.append(bar + '\u2534' + '\u2500' * rule)
    return sh(c, f'bat --decorations=always --color=never {path}', '\n'.join(out))


def jdump(obj, indent=2):
    return json.dumps(obj, indent=indent, ensure_ascii=False)


def box_table(rows, header=None):
    """cli-table3 style box (npm)."""
    cols = len(rows[0])
    allr = ([header] if header else []) + rows
    ws = [max(vis(r[i]) for r in allr) + 2 for i in range(cols)]
    top = '\u250c' + '\u252c'.join('\u2500' * w for w in ws) + '\u2510'
    mid = '\u251c' + '\u253c'.join('\u2500' * w for w in ws) + '\u2524'
    bot = '\u2514' + '\u2534'.join('\u2500' * w for w in ws) + '\u2518'
    fmt = lambda r: '\u2502' + '\u2502'.join(' ' + ljv(r[i], ws[i] - 1) for i in range(cols)) + '\u2502'
    out = [top]
    for j, r in enumerate(allr):
        out.append(fmt(r))
        out.append(mid if j < len(allr) - 1 else bot)
    return '\n'.join(out)


def cols_table(rows, gap=2, header_rule=None):
    ws = [max(vis(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for j, r in enumerate(rows):
        out.append((' ' * gap).join(ljv(r[i], ws[i]) for i in range(len(r))).rstrip())
        if j == 0 and header_rule:
            out.append((' ' * gap).join(header_rule * ws[i] for i in range(len(r))))
    return '\n'.join(out)


# ================================================================ positives

def p_consul_agent_hcl(c):
    node = f'consul-{R.randrange(1, 6):02d}'
    dc = pick(['dc1', c.region, 'fra1', 'ams3', 'onprem-a'])
    peers = [f'10.{R.randrange(0, 40)}.{R.randrange(0, 20)}.{R.randrange(2, 250)}' for _ in range(2)]
    gossip = b64(rbytes(32))
    mgmt, agent = uuid4(), uuid4()
    body = f'''datacenter = "{dc}"
data_dir   = "/opt/consul"
log_level  = "{pick(['INFO', 'WARN', 'DEBUG'])}"
node_name  = "{node}"
server     = true
bootstrap_expect = 3
bind_addr   = "{c.ip}"
client_addr = "0.0.0.0"
retry_join  = ["{peers[0]}", "{peers[1]}"]

encrypt = "{M(gossip)}"

tls {{
  defaults {{
    ca_file   = "/etc/consul.d/certs/consul-agent-ca.pem"
    cert_file = "/etc/consul.d/certs/{dc}-server-consul-0.pem"
    key_file  = "/etc/consul.d/certs/{dc}-server-consul-0-key.pem"
    verify_incoming = true
    verify_outgoing = true
  }}
}}

acl {{
  enabled                  = true
  default_policy           = "deny"
  enable_token_persistence = true
  tokens {{
    initial_management = "{M(mgmt)}"
    agent              = "{M(agent)}"
  }}
}}

ui_config {{
  enabled = true
}}
'''
    blocks = [sh(c, 'sudo cat /etc/consul.d/consul.hcl', body)]
    if R.random() < 0.6:
        blocks.append(sh(c, 'consul validate /etc/consul.d/', 'Configuration is valid!'))
    return join(c, blocks)


def p_nomad_job_env_template(c):
    job = c.proj
    pw, rpw, sk = password(url=True), upw(), sk_live()
    reg = pick([f'ghcr.io/{c.org}/{job}', f'registry.{c.domain}/{c.org}/{job}', f'{R.randrange(10**11, 10**12)}.dkr.ecr.{c.region}.amazonaws.com/{job}'])
    content = f'''job "{job}" {{
  datacenters = ["{pick(['dc1', 'eu-west', 'prod'])}"]
  type        = "service"

  group "{job}" {{
    count = {R.randrange(2, 5)}

    network {{
      port "http" {{
        to = 8080
      }}
    }}

    task "server" {{
      driver = "docker"

      config {{
        image = "{reg}:{R.randrange(1, 4)}.{R.randrange(0, 30)}.{R.randrange(0, 12)}"
        ports = ["http"]
      }}

      env {{
        APP_ENV            = "production"
        LOG_FORMAT         = "json"
        STRIPE_SECRET_KEY  = "{M(sk)}"
      }}

      template {{
        data        = <<EOH
DATABASE_URL=postgres://{c.projn}:{M(pw)}@postgres.service.consul:5432/{c.projn}
REDIS_URL=redis://:{M(rpw)}@redis.service.consul:6379/0
EOH
        destination = "secrets/app.env"
        env         = true
      }}

      resources {{
        cpu    = {pick([250, 500, 1000])}
        memory = {pick([256, 512, 1024])}
      }}
    }}
  }}
}}'''
    path = pick([f'deploy/nomad/{job}.nomad.hcl', f'{c.cwd}/nomad/{job}.nomad', f'ops/jobs/{job}.hcl'])
    return view(c, path, content, how=pick(['read', 'read', 'cat', 'cat_n']))


def p_terraform_provider_diff(c):
    cf, dd_api, dd_app = cf_api_token(), hexs(32), hexs(40)
    gh = crc_token('ghp_')
    a, b = hexs(7), hexs(7)
    parts = [f'''diff --git a/infra/providers.tf b/infra/providers.tf
index {a}..{b} 100644
--- a/infra/providers.tf
+++ b/infra/providers.tf
@@ -{R.randrange(8, 20)},11 +{R.randrange(8, 20)},14 @@ terraform {{
 }}
 
 provider "cloudflare" {{
-  api_token = var.cloudflare_api_token
+  api_token = "{M(cf)}"
 }}
 
 provider "datadog" {{
-  api_key = var.datadog_api_key
-  app_key = var.datadog_app_key
+  api_key = "{M(dd_api)}"
+  app_key = "{M(dd_app)}"
+  api_url = "https://api.{pick(['datadoghq.eu', 'datadoghq.com', 'us5.datadoghq.com'])}/"
 }}''']
    if R.random() < 0.6:
        parts.append(f''' 
 provider "github" {{
   owner = "{c.org}"
-  token = var.github_token
+  token = "{M(gh)}"
 }}''')
    out = '\n'.join(parts)
    cmd = pick(['git diff infra/providers.tf', 'git diff --cached', 'git diff HEAD -- infra/', 'git --no-pager diff'])
    return sh(c, cmd, out)


def p_packer_pkr_hcl_vars(c):
    wpw, vpw = password(), password()
    content = f'''packer {{
  required_plugins {{
    vsphere = {{
      version = ">= 1.2.7"
      source  = "github.com/hashicorp/vsphere"
    }}
  }}
}}

variable "vsphere_server" {{
  type    = string
  default = "vcsa.{c.domain}"
}}

variable "vsphere_username" {{
  type    = string
  default = "svc-packer@vsphere.local"
}}

variable "vsphere_password" {{
  type      = string
  default   = "{M(vpw)}"
  sensitive = true
}}

variable "winrm_password" {{
  type      = string
  default   = "{M(wpw)}"
  sensitive = true
}}

source "vsphere-iso" "win2022" {{
  vcenter_server      = var.vsphere_server
  username            = var.vsphere_username
  password            = var.vsphere_password
  insecure_connection = true
  datacenter          = "{pick(['DC01', 'HQ', 'Lab'])}"
  cluster             = "{pick(['Compute', 'Cluster-A', 'prod-cl01'])}"
  vm_name             = "tpl-win2022-{ymd(c.t).replace('-', '')}"
  communicator        = "winrm"
  winrm_username      = "Administrator"
  winrm_password      = var.winrm_password
  winrm_timeout       = "2h"
}}'''
    return view(c, pick(['packer/windows-2022.pkr.hcl', 'images/win2022/build.pkr.hcl']), content,
                how=pick(['cat_n', 'cat', 'read', 'nl']))


def p_vault_operator_init(c):
    shares, thr = pick([(5, 3), (5, 3), (3, 2), (1, 1)])
    keys = [b64(rbytes(33)) for _ in range(shares)]
    root = 'hvs.' + rs(ALNUM, 24)
    lines = [f'Unseal Key {i + 1}: {M(k)}' for i, k in enumerate(keys)]
    out = '\n'.join(lines) + f'''

Initial Root Token: {M(root)}

Vault initialized with {shares} key shares and a key threshold of {thr}. Please securely
distribute the key shares printed above. When the Vault is re-sealed,
restarted, or stopped, you must supply at least {thr} of these keys to unseal it
before it can start servicing requests.

Vault does not store the generated root key. Without at least {thr} keys to
reconstruct the root key, Vault will remain permanently sealed!

It is possible to generate new unseal keys, provided you have a quorum of
existing unseal keys shares. See "vault operator rekey" for more information.'''
    base = f'vault operator init -key-shares={shares} -key-threshold={thr}'
    cmd = pick([base, f'kubectl exec -n vault vault-0 -- {base}', f'VAULT_ADDR=https://vault.{c.domain}:8200 {base}'])
    return sh(c, cmd, out)


def p_dev_cli_token_files(c):
    v = c.k % 5
    if v == 0:
        t1, t2 = pypi_token(), pypi_token(True)
        body = f'''[distutils]
index-servers =
    pypi
    testpypi

[pypi]
username = __token__
password = {M(t1)}

[testpypi]
repository = https://test.pypi.org/legacy/
username = __token__
password = {M(t2)}'''
        blocks = [sh(c, 'cat ~/.pypirc', body)]
        if R.random() < 0.7:
            ver = f'{R.randrange(0, 3)}.{R.randrange(0, 20)}.{R.randrange(0, 9)}'
            pk = c.projn
            blocks.append(sh(c, f'twine upload --repository testpypi dist/*', f'''Uploading distributions to https://test.pypi.org/legacy/
Uploading {pk}-{ver}-py3-none-any.whl
100% \u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501 {R.randrange(12, 90)}.{R.randrange(0, 9)}/{R.randrange(12, 90)}.{R.randrange(0, 9)} kB \u2022 00:00 \u2022 ?
Uploading {pk}-{ver}.tar.gz
100% \u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501 {R.randrange(12, 90)}.{R.randrange(0, 9)}/{R.randrange(12, 90)}.{R.randrange(0, 9)} kB \u2022 00:00 \u2022 ?

View at:
https://test.pypi.org/project/{pk.replace('_', '-')}/{ver}/'''))
        return join(c, blocks)
    if v == 1:
        tok = tfc_token()
        body = jdump({'credentials': {'app.terraform.io': {'token': M(tok)}}})
        return join(c, [sh(c, 'cat ~/.terraform.d/credentials.tfrc.json', body),
                        sh(c, 'terraform login -help | head -n 3', '''Usage: terraform [global options] login [hostname]

  Retrieves an authentication token for the given hostname, if it supports''')])
    if v == 2:
        tok = 'pul-' + hexs(40)
        body = jdump({'current': 'https://api.pulumi.com',
                      'accessTokens': {'https://api.pulumi.com': M(tok)},
                      'accounts': {'https://api.pulumi.com': {
                          'accessToken': M(tok), 'username': c.uid,
                          'organizations': [c.uid, c.org],
                          'lastValidatedAt': iso(c.t, 9, '+00:00')}}})
        return sh(c, 'cat ~/.pulumi/credentials.json', body)
    if v == 3:
        t1, t2 = 'dop_v1_' + hexs(64), 'dop_v1_' + hexs(64)
        body = f'''access-token: {M(t1)}
auth-contexts:
  staging: {M(t2)}
context: default
output: text
apps.create.upsert: false'''
        path = '~/Library/Application\\ Support/doctl/config.yaml' if c.mac else '~/.config/doctl/config.yaml'
        return sh(c, f'cat {path}', body)
    tok = hexs(64)
    body = f'''[DEFAULT]
default-user = {c.uid}

[{c.uid}]
token = {M(tok)}
region = {pick(['eu-central', 'us-east', 'ap-south', 'fr-par'])}
type = g6-standard-2
image = linode/ubuntu22.04
authorized_users = {c.uid}'''
    return sh(c, 'cat ~/.config/linode-cli', body)


def p_flyctl_tokens_create(c):
    app = f'{c.proj}-{pick(["prod", "staging", "api"])}'
    tok = fly_token()
    blocks = [sh(c, f'fly tokens create deploy -a {app} -x {pick(["8760h", "720h", "2160h"])}', f'FlyV1 {M(tok)}')]
    if R.random() < 0.7:
        blocks.append(sh(c, f'gh secret set FLY_API_TOKEN --repo {c.org}/{c.proj} --body "FlyV1 {M(tok)}"',
                         f'\u2713 Set Actions secret FLY_API_TOKEN for {c.org}/{c.proj}'))
    return join(c, blocks)


def p_netlify_cli_config_json(c):
    uid = hexs(24)
    nfp, gho = 'nfp_' + rs(ALNUM, 40), crc_token('gho_')
    body = jdump({'telemetryDisabled': pick([True, False]), 'cliId': uuid4(), 'userId': uid,
                  'users': {uid: {'id': uid, 'name': c.name, 'email': c.email,
                                  'auth': {'token': M(nfp), 'github': {'user': c.uid, 'token': M(gho)}}}}})
    path = '~/Library/Preferences/netlify/config.json' if c.mac else '~/.config/netlify/config.json'
    return sh(c, pick([f'cat {path}', f'jq . {path}']), body)


def p_spring_application_yml_profiles(c):
    dbpw, sg, jwtsec = password(), sendgrid(), b64(rbytes(64))
    app = c.proj
    content = f'''spring:
  application:
    name: {app}
  profiles:
    active: ${{SPRING_PROFILES_ACTIVE:local}}
  datasource:
    url: ${{DB_URL:jdbc:postgresql://localhost:5432/{c.projn}}}
    username: ${{DB_USER:{c.projn}}}
    password: ${{DB_PASSWORD:}}
  jpa:
    open-in-view: false
---
spring:
  config:
    activate:
      on-profile: prod
  datasource:
    url: jdbc:postgresql://{c.projn.replace('_', '-')}-db.{rs(LOWER + DIGITS, 12)}.{c.region}.rds.amazonaws.com:5432/{c.projn}
    username: {c.projn}_app
    password: {M(dbpw)}
    hikari:
      maximum-pool-size: {pick([10, 20, 30])}
  mail:
    host: smtp.sendgrid.net
    port: 587
    username: apikey
    password: {M(sg)}
app:
  jwt:
    secret: {M(jwtsec)}
    expiration: {pick([900, 3600, 86400])}'''
    return view(c, 'src/main/resources/application.yml', content, how=pick(['read', 'read', 'cat', 'bat']))


def p_web_config_xml(c):
    pw, key, sg, ppid, ppsec = password(kind=pick(['mixed', 'alnum', 'words'])), azure_key(), sendgrid(), paypal_client(), paypal_secret()
    vk, dk = rs(HEXU, 128), rs(HEXU, 64)
    acct = c.orgn[:12] + pick(['store', 'files', 'data']) + str(R.randrange(1, 9))
    db = pick(['Orders', 'Billing', 'Portal', 'Inventory'])
    content = f'''<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <connectionStrings>
    <add name="DefaultConnection" connectionString="Server=tcp:sql-{c.orgn[:8]}-prod.database.windows.net,1433;Initial Catalog={db};Persist Security Info=False;User ID={db.lower()}_app;Password={M(pw)};MultipleActiveResultSets=False;Encrypt=True;TrustServerCertificate=False;Connection Timeout=30;" providerName="System.Data.SqlClient" />
    <add name="StorageConnection" connectionString="DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={M(key)};EndpointSuffix=core.windows.net" />
  </connectionStrings>
  <appSettings>
    <add key="webpages:Version" value="3.0.0.0" />
    <add key="ClientValidationEnabled" value="true" />
    <add key="UnobtrusiveJavaScriptEnabled" value="true" />
    <add key="SendGridApiKey" value="{M(sg)}" />
    <add key="PayPalClientId" value="{ppid}" />
    <add key="PayPalClientSecret" value="{M(ppsec)}" />
  </appSettings>
  <system.web>
    <compilation debug="false" targetFramework="4.8" />
    <httpRuntime targetFramework="4.8" />
    <machineKey validationKey="{M(vk)}" decryptionKey="{M(dk)}" validation="HMACSHA256" decryption="AES" />
  </system.web>
</configuration>'''
    proj = ''.join(p.capitalize() for p in c.proj.split('-'))
    if R.random() < 0.5:
        cmd = 'Get-Content .\\Web.config'
        return f'PS C:\\src\\{proj}> {cmd}\n{content}'
    return view(c, f'src/{proj}.Web/Web.config', content, how=pick(['read', 'cat']))


def p_symfony_secrets_reveal(c):
    app_secret, pw, mpw, sk = hexs(32), upw(), mailgun_smtp(), sk_live()
    dom = 'mg.' + c.domain
    rows = [('APP_SECRET', f'"{M(app_secret)}"'),
            ('DATABASE_URL', f'"postgresql://{c.projn}:{M(pw)}@127.0.0.1:5432/{c.projn}?serverVersion=16&charset=utf8"'),
            ('MAILER_DSN', f'"smtp://postmaster%40{dom}:{M(mpw)}@smtp.mailgun.org:587"'),
            ('STRIPE_SECRET_KEY', f'"{M(sk)}"')]
    w1 = max(len(r[0]) for r in rows) + 1
    w2 = max(vis(r[1]) for r in rows) + 1
    rule = ' ' + '-' * (w1 + 1) + ' ' + '-' * (w2 + 1) + ' ' + '-' * 13
    out = [' // Use "%env(<name>)%" to reference a secret in a config file.', '', rule,
           '  ' + 'Secret'.ljust(w1) + ' ' + ' ' + 'Value'.ljust(w2) + '  Local Value', rule]
    for k, v in rows:
        out.append('  ' + k.ljust(w1) + '  ' + ljv(v, w2))
    out += [rule, '', ' // Local values override secret values.', ' // Use secrets:set --local to define them.', '']
    env = pick(['', 'APP_RUNTIME_ENV=prod '])
    return sh(c, f'{env}php bin/console secrets:list --reveal', '\n'.join(x.rstrip() for x in out))


def p_rabbitmq_erlang_config(c):
    dpw, s1, s2 = password(), upw(), upw()
    body = f'''[
  {{rabbit, [
    {{default_user, <<"admin">>}},
    {{default_pass, <<"{M(dpw)}">>}},
    {{loopback_users, []}},
    {{tcp_listeners, [5672]}}
  ]}},
  {{rabbitmq_management, [
    {{listener, [{{port, 15672}}, {{ssl, false}}]}}
  ]}},
  {{rabbitmq_shovel, [
    {{shovels, [
      {{orders_to_dr, [
        {{source, [{{protocol, amqp091}},
                  {{uris, ["amqp://shovel:{M(s1)}@{c.ip}:5672/orders"]}},
                  {{queue, <<"orders">>}}]}},
        {{destination, [{{protocol, amqp091}},
                       {{uris, ["amqps://shovel:{M(s2)}@dr-mq.{c.domain}:5671/orders"]}}]}}
      ]}}
    ]}}
  ]}}
].'''
    blocks = [sh(c, 'sudo cat /etc/rabbitmq/advanced.config', body)]
    if R.random() < 0.6:
        u, upw2 = pick(['deploy', 'ci', 'svc-orders', 'metrics']), password()
        blocks.append(sh(c, f"sudo rabbitmqctl add_user {u} '{M(upw2)}'",
                         f'''Adding user "{u}" ...
Done. Don't forget to grant the user permissions to some virtual hosts! See 'rabbitmqctl help set_permissions' to learn more.'''))
    return join(c, blocks)


def p_django_diffsettings(c):
    pw, key, tok = password(), django_key(), uuid4()
    ak, sk = akia(), aws_secret()
    host = f'api.{c.domain}'
    db = c.projn
    lines = [
        f"ALLOWED_HOSTS = ['{host}', '.{c.domain}']  ###",
        f"AUTH_USER_MODEL = 'accounts.User'  ###",
        f"AWS_ACCESS_KEY_ID = '{ak}'  ###",
        f"AWS_SECRET_ACCESS_KEY = '{M(sk)}'  ###",
        f"AWS_STORAGE_BUCKET_NAME = '{c.org}-{c.proj}-media'  ###",
        f"BASE_DIR = PosixPath('/app')  ###",
        f"DATABASES = {{'default': {{'ENGINE': 'django.db.backends.postgresql', 'NAME': '{db}', 'USER': '{db}', 'PASSWORD': '{M(pw)}', 'HOST': 'db', 'PORT': '5432', 'ATOMIC_REQUESTS': False, 'AUTOCOMMIT': True, 'CONN_MAX_AGE': 60, 'CONN_HEALTH_CHECKS': False, 'OPTIONS': {{}}, 'TIME_ZONE': None, 'TEST': {{'CHARSET': None, 'COLLATION': None, 'MIGRATE': True, 'MIRROR': None, 'NAME': None}}}}}}  ###",
        "DEBUG = False",
        f"DEFAULT_FROM_EMAIL = 'noreply@{c.domain}'  ###",
        "EMAIL_HOST = 'smtp.postmarkapp.com'  ###",
        f"EMAIL_HOST_PASSWORD = '{M(tok)}'  ###",
        f"EMAIL_HOST_USER = '{M(tok)}'  ###",
        "EMAIL_PORT = 587  ###",
        "EMAIL_USE_TLS = True  ###",
        "INSTALLED_APPS = ['django.contrib.admin', 'django.contrib.auth', 'django.contrib.contenttypes', 'django.contrib.sessions', 'django.contrib.messages', 'django.contrib.staticfiles', 'rest_framework', 'storages', 'accounts', 'orders']  ###",
        "ROOT_URLCONF = 'config.urls'  ###",
        f"SECRET_KEY = '{M(key)}'  ###",
        "SETTINGS_MODULE = 'config.settings.production'  ###",
        "STATIC_URL = '/static/'  ###",
        "TIME_ZONE = 'UTC'  ###",
        "USE_TZ = True  ###",
    ]
    cmd = pick(['python manage.py diffsettings', 'docker compose exec web python manage.py diffsettings',
                'DJANGO_SETTINGS_MODULE=config.settings.production ./manage.py diffsettings'])
    return sh(c, cmd, '\n'.join(lines))


def p_sqlalchemy_url_parse_error(c):
    pw = upw()
    py = pick(['3.10', '3.11', '3.12'])
    root = pick(['/app/.venv', f'{c.home}/.cache/pypoetry/virtualenvs/{c.proj}-{rs(B64U, 8)}-py{py}', '/usr/local'])
    sp = f'{root}/lib/python{py}/site-packages'
    url = f'{pick(["postgresql+psycopg2", "postgresql", "mysql+pymysql"])}//{c.projn}:{M(pw)}@{pick(["db", "localhost", c.ip])}:5432/{c.projn}'
    tb = f'''Traceback (most recent call last):
  File "{root}/bin/alembic", line 8, in <module>
    sys.exit(main())
  File "{sp}/alembic/config.py", line 641, in main
    CommandLine(prog=prog).main(argv=argv)
  File "{sp}/alembic/config.py", line 631, in main
    self.run_cmd(cfg, options)
  File "{sp}/alembic/config.py", line 608, in run_cmd
    fn(
  File "{sp}/alembic/command.py", line 403, in upgrade
    script.run_env()
  File "{sp}/alembic/script/base.py", line 583, in run_env
    util.load_python_file(self.dir, "env.py")
  File "{sp}/alembic/util/pyfiles.py", line 95, in load_python_file
    module = load_module_py(module_id, path)
  File "{sp}/alembic/util/pyfiles.py", line 113, in load_module_py
    spec.loader.exec_module(module)  # type: ignore
  File "<frozen importlib._bootstrap_external>", line 940, in exec_module
  File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed
  File "{c.cwd}/migrations/env.py", line 27, in <module>
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
  File "<string>", line 2, in create_engine
  File "{sp}/sqlalchemy/util/deprecations.py", line 309, in warned
    return fn(*args, **kwargs)
  File "{sp}/sqlalchemy/engine/create.py", line 522, in create_engine
    u = _url.make_url(url)
  File "{sp}/sqlalchemy/engine/url.py", line 725, in make_url
    return _parse_rfc1738_args(name_or_url)
  File "{sp}/sqlalchemy/engine/url.py", line 786, in _parse_rfc1738_args
    raise exc.ArgumentError(
sqlalchemy.exc.ArgumentError: Could not parse rfc1738 URL from string '{url}\''''
    return sh(c, pick(['alembic upgrade head', 'make migrate', 'poetry run alembic upgrade head']), tb, code=1)


def p_kafka_connect_connector_config(c):
    v = c.k % 4
    name = pick(['orders-cdc', 'payments-cdc', 'events-sink', 'audit-sink', 'users-cdc'])
    if v == 0:
        cfg = {'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'tasks.max': '1',
               'database.hostname': f'{c.projn.replace("_", "-")}-db.internal', 'database.port': '5432',
               'database.user': 'debezium', 'database.password': M(password()), 'database.dbname': c.projn,
               'topic.prefix': c.projn, 'plugin.name': 'pgoutput', 'slot.name': f'debezium_{c.projn}',
               'publication.autocreate.mode': 'filtered', 'table.include.list': 'public.orders,public.order_items',
               'name': name}
    elif v == 1:
        key = b64(bytes.fromhex('308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100') + rbytes(1155))
        cfg = {'connector.class': 'com.snowflake.kafka.connector.SnowflakeSinkConnector', 'tasks.max': '4',
               'topics': 'orders,order_items', 'snowflake.url.name': f'{rs(LOWER, 2)}{R.randrange(10000, 99999)}.{c.region}.snowflakecomputing.com:443',
               'snowflake.user.name': 'KAFKA_CONNECTOR', 'snowflake.private.key': M(key),
               'snowflake.database.name': 'RAW', 'snowflake.schema.name': 'KAFKA', 'buffer.count.records': '10000',
               'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
               'value.converter': 'com.snowflake.kafka.connector.records.SnowflakeJsonConverter', 'name': name}
    elif v == 2:
        cfg = {'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector', 'tasks.max': '2', 'topics': 'audit.events',
               'connection.url': f'jdbc:postgresql://warehouse.{c.domain}:5432/analytics', 'connection.user': 'kafka_sink',
               'connection.password': M(password()), 'insert.mode': 'upsert', 'pk.mode': 'record_key',
               'auto.create': 'true', 'name': name}
    else:
        cfg = {'connector.class': 'io.confluent.connect.s3.S3SinkConnector', 'tasks.max': '3', 'topics': 'clickstream',
               's3.bucket.name': f'{c.org}-kafka-archive', 's3.region': c.region, 'aws.access.key.id': akia(),
               'aws.secret.access.key': M(aws_secret()), 'flush.size': '5000',
               'storage.class': 'io.confluent.connect.s3.storage.S3Storage',
               'format.class': 'io.confluent.connect.s3.format.parquet.ParquetFormat', 'name': name}
    host = pick(['localhost:8083', 'connect:8083', f'kafka-connect.{c.domain}'])
    return sh(c, f'curl -s http://{host}/connectors/{name}/config | jq', jdump(cfg))


def p_logstash_pipeline_conf(c):
    jpw = password()
    use_key = R.random() < 0.5
    if use_key:
        kid, key = rs(B64U, 20), rs(B64U, 22)
        auth = f'    api_key => "{kid}:{M(key)}"'
    else:
        auth = f'    user => "logstash_writer"\n    password => "{M(password())}"'
    content = f'''input {{
  jdbc {{
    jdbc_driver_library => "/usr/share/logstash/drivers/postgresql-42.7.3.jar"
    jdbc_driver_class => "org.postgresql.Driver"
    jdbc_connection_string => "jdbc:postgresql://{c.ip}:5432/{c.projn}"
    jdbc_user => "logstash_ro"
    jdbc_password => "{M(jpw)}"
    schedule => "*/5 * * * *"
    statement => "SELECT * FROM orders WHERE updated_at > :sql_last_value"
    use_column_value => true
    tracking_column => "updated_at"
    tracking_column_type => "timestamp"
  }}
}}

filter {{
  mutate {{ remove_field => ["@version"] }}
}}

output {{
  elasticsearch {{
    hosts => ["https://es01.{c.domain}:9200"]
{auth}
    index => "orders-%{{+YYYY.MM}}"
    ssl_certificate_authorities => ["/etc/logstash/certs/ca.crt"]
  }}
}}'''
    return view(c, f'/etc/logstash/conf.d/{R.randrange(10, 40)}-{c.projn}.conf', content, how=pick(['cat', 'sed', 'read', 'head']))


def p_vector_toml_sinks(c):
    dd, ak, sk, espw = hexs(32), akia(), aws_secret(), password()
    body = f'''[sources.app_logs]
type = "file"
include = ["/var/log/{c.proj}/*.log"]

[transforms.parse]
type = "remap"
inputs = ["app_logs"]
source = \'\'\'
. = parse_json!(.message)
\'\'\'

[sinks.datadog]
type = "datadog_logs"
inputs = ["parse"]
default_api_key = "{M(dd)}"
site = "{pick(['datadoghq.eu', 'datadoghq.com'])}"
compression = "gzip"

[sinks.archive]
type = "aws_s3"
inputs = ["parse"]
bucket = "{c.org}-log-archive"
region = "{c.region}"
key_prefix = "{c.proj}/%Y/%m/%d/"
encoding.codec = "json"
auth.access_key_id = "{ak}"
auth.secret_access_key = "{M(sk)}"

[sinks.es]
type = "elasticsearch"
inputs = ["parse"]
endpoints = ["https://es.{c.domain}:9200"]
auth.strategy = "basic"
auth.user = "vector"
auth.password = "{M(espw)}"'''
    blocks = [view(c, '/etc/vector/vector.toml', body, how=pick(['cat', 'cat', 'read', 'bat']))]
    if R.random() < 0.5:
        blocks.append(sh(c, 'vector validate /etc/vector/vector.toml', '''\u221a Loaded ["/etc/vector/vector.toml"]
\u221a Component configuration
\u221a Health check "archive"
\u221a Health check "datadog"
\u221a Health check "es"
------------------------------------
                           Validated'''))
    return join(c, blocks)


def p_prometheus_remote_write_bat(c):
    stack = R.randrange(100000, 999999)
    tok = glc_token(stack)
    user = str(R.randrange(1000000, 2999999))
    content = f'''global:
  scrape_interval: {pick(['15s', '30s', '60s'])}
  external_labels:
    cluster: {pick(['prod-eu', 'staging', 'edge-01', 'homelab'])}

remote_write:
  - url: https://prometheus-prod-{R.randrange(10, 40)}-{pick(['prod-eu-west-2', 'prod-us-central-0', 'prod-ap-southeast-1'])}.grafana.net/api/prom/push
    basic_auth:
      username: "{user}"
      password: {M(tok)}

scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['localhost:9100']
  - job_name: {c.projn}
    metrics_path: /metrics
    static_configs:
      - targets: ['{c.ip}:8080']'''
    return view(c, pick(['/etc/prometheus/prometheus.yml', 'deploy/prometheus/prometheus.yml', 'agent/config.yml']),
                content, how=pick(['bat', 'bat', 'read', 'cat']))


def p_influx_auth_create_table(c):
    tok = influx_token()
    oid, uidx, aid = hexs(16), hexs(16), hexs(16)
    desc = pick(['ci token', 'telegraf write', 'grafana read', 'backup'])
    perms = f'[read:orgs/{oid}/buckets write:orgs/{oid}/buckets read:orgs/{oid}/dashboards write:orgs/{oid}/dashboards read:/users write:/users read:orgs/{oid}/tasks write:orgs/{oid}/tasks]'
    rows = [['ID', 'Description', 'Token', 'User Name', 'User ID', 'Permissions'],
            [aid, desc, M(tok), c.uid, uidx, perms]]
    tbl = cols_table(rows, gap=1)
    blocks = [sh(c, f'influx auth create --org {c.org} --all-access --description "{desc}"', tbl)]
    if R.random() < 0.6:
        name = pick(['prod', 'local', c.org])
        out = cols_table([['Active', 'Name', 'URL', 'Org'], ['*', name, f'https://influx.{c.domain}', c.org]], gap=1)
        blocks.append(sh(c, f'influx config create --config-name {name} --host-url https://influx.{c.domain} --org {c.org} --token {M(tok)} --active', out))
    return join(c, blocks)


def p_code_server_config_yaml(c):
    pw = hexs(24)
    body = f'''bind-addr: 127.0.0.1:{pick([8080, 8443, 8081])}
auth: password
password: {M(pw)}
cert: false'''
    blocks = [sh(c, 'cat ~/.config/code-server/config.yaml', body)]
    if R.random() < 0.6:
        t = c.t
        ts = lambda: iso(tick_ms(c, 1, 300), 3)
        sl = syslog_ts(t)
        pid = R.randrange(900, 60000)
        lines = [f'{sl} {c.host} code-server[{pid}]: [{ts()}] info  code-server 4.{R.randrange(80, 96)}.{R.randrange(0, 4)} {hexs(40)}',
                 f'{sl} {c.host} code-server[{pid}]: [{ts()}] info  Using user-data-dir {c.home}/.local/share/code-server',
                 f'{sl} {c.host} code-server[{pid}]: [{ts()}] info  Using config file {c.home}/.config/code-server/config.yaml',
                 f'{sl} {c.host} code-server[{pid}]: [{ts()}] info  HTTP server listening on http://127.0.0.1:8080/',
                 f'{sl} {c.host} code-server[{pid}]: [{ts()}] info    - Authentication is enabled',
                 f'{sl} {c.host} code-server[{pid}]: [{ts()}] info      - Using password from {c.home}/.config/code-server/config.yaml',
                 f'{sl} {c.host} code-server[{pid}]: [{ts()}] info    - Not serving HTTPS']
        blocks.append(sh(c, f'journalctl -u code-server@{c.uid} -n 7 --no-pager', '\n'.join(lines)))
    return join(c, blocks)


def p_airflow_connections_export(c):
    conns = {}
    names = ['aws_default', 'databricks_default', 'postgres_dwh', 'slack_api_default', 'sftp_partner']
    R.shuffle(names)
    for n in sorted(names[:R.randrange(3, 6)]):
        if n == 'aws_default':
            conns[n] = {'conn_type': 'aws', 'description': '', 'login': akia(), 'password': M(aws_secret()),
                        'host': '', 'port': None, 'schema': '', 'extra': json.dumps({'region_name': c.region})}
        elif n == 'databricks_default':
            conns[n] = {'conn_type': 'databricks', 'description': '', 'login': None, 'password': M(dapi()),
                        'host': f'https://adb-{R.randrange(10**15, 10**16)}.{R.randrange(1, 20)}.azuredatabricks.net',
                        'port': None, 'schema': None,
                        'extra': json.dumps({'http_path': f'/sql/1.0/warehouses/{hexs(16)}'})}
        elif n == 'postgres_dwh':
            conns[n] = {'conn_type': 'postgres', 'description': 'warehouse', 'login': 'etl', 'password': M(password()),
                        'host': f'dwh.{c.domain}', 'port': 5432, 'schema': 'warehouse', 'extra': ''}
        elif n == 'slack_api_default':
            xoxb = f'xoxb-{R.randrange(10**10, 10**12)}-{R.randrange(10**12, 10**13)}-{rs(ALNUM, 24)}'
            conns[n] = {'conn_type': 'slack', 'description': '', 'login': None, 'password': M(xoxb),
                        'host': None, 'port': None, 'schema': None, 'extra': json.dumps({'timeout': 30})}
        else:
            conns[n] = {'conn_type': 'sftp', 'description': 'partner drop', 'login': f'{c.orgn[:10]}_drop',
                        'password': M(password()), 'host': f'sftp.partner-{rs(LOWER, 5)}.com', 'port': 22,
                        'schema': '', 'extra': json.dumps({'no_host_key_check': 'false'})}
    cmd = pick(['airflow connections export - --file-format json',
                'docker compose exec airflow-scheduler airflow connections export - --file-format json',
                'kubectl exec -n airflow deploy/airflow-scheduler -- airflow connections export - --file-format json'])
    return sh(c, cmd, jdump(conns, 4))


def p_dbt_profiles_yml(c):
    pw, spw, tok = password(), password(), dapi()
    proj = c.projn.split('_')[0]
    body = f'''{proj}:
  target: dev
  outputs:
    dev:
      type: postgres
      host: localhost
      user: {c.uid}
      password: "{M(pw)}"
      port: 5432
      dbname: {proj}
      schema: dbt_{c.uid}
      threads: 4
    prod:
      type: snowflake
      account: {rs(LOWER, 2)}{R.randrange(10000, 99999)}.{c.region}
      user: DBT_PROD
      password: {M(spw)}
      role: TRANSFORMER
      database: ANALYTICS
      warehouse: TRANSFORMING
      schema: MARTS
      threads: 8
    lake:
      type: databricks
      host: adb-{R.randrange(10**15, 10**16)}.{R.randrange(1, 20)}.azuredatabricks.net
      http_path: /sql/1.0/warehouses/{hexs(16)}
      token: {M(tok)}
      catalog: main
      schema: {proj}
      threads: 4'''
    blocks = [view(c, '~/.dbt/profiles.yml', body, how=pick(['cat', 'cat', 'read', 'bat', 'cat_n']))]
    if R.random() < 0.5:
        t = c.t
        ts = lambda: hms(tick(c, 0, 1))
        blocks.append(sh(c, 'dbt debug --target dev', f'''{ts()}  Running with dbt=1.8.{R.randrange(0, 8)}
{ts()}  dbt version: 1.8.{R.randrange(0, 8)}
{ts()}  python version: 3.11.9
{ts()}  python path: {c.cwd}/.venv/bin/python3
{ts()}  os info: {'macOS-14.4.1-arm64-arm-64bit' if c.mac else 'Linux-6.5.0-35-generic-x86_64-with-glibc2.35'}
{ts()}  Using profiles dir at {c.home}/.dbt
{ts()}  Using profiles.yml file at {c.home}/.dbt/profiles.yml
{ts()}  Using dbt_project.yml file at {c.cwd}/dbt_project.yml
{ts()}  adapter type: postgres
{ts()}  adapter version: 1.8.2
{ts()}  Configuration:
{ts()}    profiles.yml file [OK found and valid]
{ts()}    dbt_project.yml file [OK found and valid]
{ts()}  Required dependencies:
{ts()}   - git [OK found]
{ts()}  Connection test: [OK connection ok]
{ts()}  All checks passed!'''))
    return join(c, blocks)


def p_streamlit_secrets_toml(c):
    body = f'''OPENAI_API_KEY = "{M(sk_proj())}"
PINECONE_API_KEY = "{M(pcsk())}"
COHERE_API_KEY = "{M(rs(ALNUM, 40))}"
REPLICATE_API_TOKEN = "{M(r8())}"

[connections.snowflake]
account = "{rs(LOWER, 2)}{R.randrange(10000, 99999)}"
user = "STREAMLIT_APP"
password = "{M(password())}"
warehouse = "COMPUTE_WH"
database = "{c.projn.upper()}"
schema = "PUBLIC"

[passwords]
{c.uid} = "{M(password())}"
demo = "{M(password())}"'''
    return view(c, '.streamlit/secrets.toml', body, how=pick(['cat', 'read', 'cat', 'bat']))


def p_continue_config_yaml(c):
    body = f'''name: Local Assistant
version: 1.0.0
schema: v1
models:
  - name: Claude Sonnet
    provider: anthropic
    model: claude-3-7-sonnet-latest
    apiKey: {M(sk_ant())}
    roles:
      - chat
      - edit
  - name: Codestral
    provider: mistral
    model: codestral-latest
    apiKey: {M(rs(ALNUM, 32))}
    roles:
      - autocomplete
  - name: Llama 3.3 70B (Groq)
    provider: groq
    model: llama-3.3-70b-versatile
    apiKey: {M(gsk())}
  - name: Sonar Pro
    provider: openai
    apiBase: https://api.perplexity.ai
    model: sonar-pro
    apiKey: {M(pplx())}
context:
  - provider: code
  - provider: docs
  - provider: diff'''
    return view(c, '~/.continue/config.yaml', body, how=pick(['cat', 'read', 'cat_n']))


def p_xtrace_llm_curl_headers(c):
    g, p, mi = gsk(), pplx(), rs(ALNUM, 32)
    cid = 'chatcmpl-' + uuid4()
    tt = epoch(c.t)
    lines = ['+ set -euo pipefail',
             f'++ cat {c.home}/.config/{c.proj}/groq.key',
             f'+ GROQ_API_KEY={M(g)}',
             '+ MODEL=llama-3.1-8b-instant',
             f"+ curl -sS https://api.groq.com/openai/v1/chat/completions -H 'Content-Type: application/json' -H 'Authorization: Bearer {M(g)}' -d '{{\"model\":\"llama-3.1-8b-instant\",\"messages\":[{{\"role\":\"user\",\"content\":\"ping\"}}],\"max_tokens\":5}}'",
             json.dumps({'id': cid, 'object': 'chat.completion', 'created': tt, 'model': 'llama-3.1-8b-instant',
                         'choices': [{'index': 0, 'message': {'role': 'assistant', 'content': 'Pong!'}, 'logprobs': None, 'finish_reason': 'length'}],
                         'usage': {'prompt_tokens': 36, 'completion_tokens': 5, 'total_tokens': 41},
                         'system_fingerprint': 'fp_' + hexs(10), 'x_groq': {'id': 'req_' + rs(LOWER + DIGITS, 26)}}, separators=(',', ':'))]
    if R.random() < 0.5:
        lines += [f"+ curl -sS https://api.perplexity.ai/chat/completions -H 'Authorization: Bearer {M(p)}' -H 'Content-Type: application/json' -d '{{\"model\":\"sonar\",\"messages\":[{{\"role\":\"user\",\"content\":\"ping\"}}]}}'",
                  '{"id":"' + uuid4() + '","model":"sonar","created":' + str(tt + 2) + ',"usage":{"prompt_tokens":1,"completion_tokens":9,"total_tokens":10},"object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Pong! How can I help?"}}]}']
    else:
        lines += [f"+ curl -sS https://api.mistral.ai/v1/models -H 'Authorization: Bearer {M(mi)}'",
                  '+ jq -r \'.data[].id\'', 'codestral-latest', 'mistral-large-latest', 'mistral-small-latest', 'open-mistral-nemo']
    return sh(c, pick(['bash -x scripts/smoke_llm.sh', 'bash -x ./bin/check-providers']), '\n'.join(lines))


def p_n8n_export_credentials(c):
    kinds = ['airtable', 'notion', 'shopify', 'jira', 'okta']
    R.shuffle(kinds)
    items = []
    t = c.t - datetime.timedelta(days=R.randrange(20, 300))
    for kd in kinds[:R.randrange(3, 6)]:
        created = iso(t, 3)
        t = later(t, 3600, 86400 * 9)
        if kd == 'airtable':
            name, typ, data = 'Airtable Personal Access Token account', 'airtableTokenApi', {'accessToken': M(airtable_pat())}
        elif kd == 'notion':
            name, typ, data = 'Notion account', 'notionApi', {'apiKey': M(notion())}
        elif kd == 'shopify':
            name, typ, data = 'Shopify Access Token account', 'shopifyAccessTokenApi', {
                'shopSubdomain': c.orgn[:12], 'accessToken': M('shpat_' + hexs(32)), 'appSecretKey': M(hexs(32))}
        elif kd == 'jira':
            name, typ, data = 'Jira SW Cloud account', 'jiraSoftwareCloudApi', {
                'email': c.email, 'apiToken': M(atatt()), 'domain': f'https://{c.orgn[:12]}.atlassian.net'}
        else:
            name, typ, data = 'Okta account', 'oktaApi', {'url': f'https://{c.orgn[:12]}.okta.com', 'accessToken': M(okta_token())}
        items.append({'createdAt': created, 'updatedAt': created, 'id': rs(ALNUM, 16), 'name': name,
                      'data': data, 'type': typ, 'isManaged': False})
    cmd = pick(['docker exec -it n8n n8n export:credentials --all --decrypted --pretty',
                'n8n export:credentials --all --decrypted --pretty'])
    return sh(c, cmd, jdump(items))


def p_dropbox_oauth_token_response(c):
    appkey, appsec = rs(LOWER + DIGITS, 15), rs(LOWER + DIGITS, 15)
    at, rt = 'sl.B' + rs(B64U, 134), rs(ALNUM + '-_', 64)
    body = jdump({'access_token': M(at), 'token_type': 'bearer', 'expires_in': 14400, 'refresh_token': M(rt),
                  'scope': 'account_info.read files.content.read files.content.write files.metadata.read',
                  'uid': str(R.randrange(10**8, 4 * 10**9)), 'account_id': 'dbid:' + rs(B64U, 43)})
    cmd = (f'curl -s https://api.dropbox.com/oauth2/token -d code="$CODE" -d grant_type=authorization_code '
           f'-d redirect_uri=http://localhost:{pick([8765, 5000, 3000])}/callback -u "{appkey}:{M(appsec)}" | jq')
    return sh(c, cmd, body)


def p_telegram_httpx_log(c):
    tok = tg_token()
    t = c.t
    def ts():
        tt = tick_ms(c, 5, 9000)
        return f'{ymd(tt)} {hms(tt)},{tt.microsecond // 1000:03d}'
    lines = [f'{ts()} - httpx - INFO - HTTP Request: POST https://api.telegram.org/bot{M(tok)}/getMe "HTTP/1.1 200 OK"',
             f'{ts()} - httpx - INFO - HTTP Request: POST https://api.telegram.org/bot{M(tok)}/deleteWebhook "HTTP/1.1 200 OK"',
             f'{ts()} - telegram.ext.Application - INFO - Application started']
    for _ in range(R.randrange(2, 5)):
        lines.append(f'{ts()} - httpx - INFO - HTTP Request: POST https://api.telegram.org/bot{M(tok)}/getUpdates "HTTP/1.1 200 OK"')
    if R.random() < 0.5:
        lines.append(f'{ts()} - httpx - INFO - HTTP Request: POST https://api.telegram.org/bot{M(tok)}/sendMessage "HTTP/1.1 200 OK"')
    name = pick(['support-bot', 'alerts-bot', f'{c.proj}-bot'])
    cmd = pick([f'docker logs --tail 20 {name}', f'docker compose logs --no-log-prefix {name}', f'journalctl -u {name} -o cat -n 20'])
    return sh(c, cmd, '\n'.join(lines))


def p_twilio_api_keys_create_json(c):
    sid, sec = 'SK' + hexs(32), rs(ALNUM, 32)
    fn = pick(['ci-deploy', f'{c.proj}-prod', 'staging-worker'])
    d = iso(c.t, 3)
    body = jdump([{'dateCreated': d, 'dateUpdated': d, 'friendlyName': fn, 'secret': M(sec), 'sid': sid}])
    blocks = [sh(c, f'twilio api:core:keys:create --friendly-name "{fn}" -o json', body)]
    if R.random() < 0.7:
        blocks.append(sh(c, f"printf 'TWILIO_API_KEY={sid}\\nTWILIO_API_SECRET={M(sec)}\\n' >> .env.local && tail -n 2 .env.local",
                         f'TWILIO_API_KEY={sid}\nTWILIO_API_SECRET={M(sec)}'))
    return join(c, blocks)


def p_psql_expanded_integrations(c):
    recs = []
    base_t = c.t - datetime.timedelta(days=R.randrange(10, 400))
    opts = ['plaid', 'square', 'paypal']
    R.shuffle(opts)
    ids = sorted(R.sample(range(3, 90), 3))
    for i, prov in enumerate(opts):
        if prov == 'plaid':
            cid, sec = hexs(24), M(hexs(30))
        elif prov == 'square':
            cid, sec = 'sq0idp-' + rs(B64U, 22), M(square_token())
        else:
            cid, sec = paypal_client(), M(paypal_secret())
        ct = later(base_t, 3600, 86400 * 40)
        base_t = ct
        recs.append([('id', str(ids[i])), ('provider', prov), ('client_id', cid), ('secret', sec),
                     ('environment', pick(['production', 'production', 'sandbox'])),
                     ('created_at', f'{ymd(ct)} {hms(ct)}.{R.randrange(0, 10**6):06d}+00')])
    kw = max(len(k) for r in recs for k, _ in r)
    vw = max(vis(v) for r in recs for _, v in r)
    out = ['Expanded display is on.']
    db = c.projn
    lines = []
    for i, r in enumerate(recs, 1):
        head = f'-[ RECORD {i} ]'
        left = head + '-' * max(0, kw + 1 - len(head))
        lines.append(left + '+' + '-' * (vw + 1))
        for k, v in r:
            lines.append(f'{k.ljust(kw)} | {v}')
    text = f'''{db}=> \\x
Expanded display is on.
{db}=> SELECT id, provider, client_id, secret, environment, created_at FROM payment_integrations WHERE org_id = {R.randrange(1, 500)} ORDER BY id;
''' + '\n'.join(lines) + f'\n\n{db}=> '
    return sh(c, f'psql "$DATABASE_URL"', text) if R.random() < 0.3 else text


def p_cms_seed_script_cat_n(c):
    app = rs(UPPER + DIGITS, 10)
    content = f'''import algoliasearch from 'algoliasearch';
import {{ createClient }} from 'contentful-management';
import {{ createClient as createSanity }} from '@sanity/client';

const algolia = algoliasearch('{app}', '{M(hexs(32))}');
const index = algolia.initIndex('prod_products');

const cma = createClient({{ accessToken: '{M(cfpat())}' }});

const sanity = createSanity({{
  projectId: '{rs(LOWER + DIGITS, 8)}',
  dataset: 'production',
  apiVersion: '{ymd(c.t)}',
  token: '{M(sanity_token())}',
  useCdn: false,
}});

async function main() {{
  const space = await cma.getSpace('{rs(LOWER + DIGITS, 12)}');
  const env = await space.getEnvironment('master');
  const entries = await env.getEntries({{ content_type: 'product', limit: 1000 }});
  await index.saveObjects(entries.items.map(toRecord));
  console.log(`indexed ${{entries.items.length}} products`);
}}

main().catch((err) => {{
  console.error(err);
  process.exit(1);
}});'''
    return view(c, pick(['scripts/seed-content.ts', 'scripts/reindex.mjs']), content, how=pick(['cat_n', 'cat_n', 'read', 'nl']))


def p_mapbox_tokens_api_json(c):
    user = c.uid.replace('.', '')
    old = mapbox_token('sk', user)
    new = mapbox_token('sk', user)
    payload = json.loads(base64.urlsafe_b64decode(new.split('.')[1] + '=='))
    note = pick(['tile-uploader ci', 'geocoding backend', 'style publisher'])
    body = jdump({'client': 'api', 'note': note, 'usage': 'sk', 'id': payload['a'], 'default': False,
                  'scopes': ['styles:read', 'tilesets:write', 'uploads:read', 'uploads:write'],
                  'created': iso(c.t, 3), 'modified': iso(c.t, 3), 'token': M(new)})
    cmd = (f'curl -s -X POST "https://api.mapbox.com/tokens/v2/{user}?access_token={M(old)}" '
           f'-H "Content-Type: application/json" -d \'{{"note": "{note}", "scopes": ["styles:read","tilesets:write","uploads:read","uploads:write"]}}\' | jq')
    return sh(c, cmd, body)


def p_supabase_projects_api_keys(c):
    ref = rs(LOWER, 20)
    anon = supabase_jwt(ref, 'anon', c.t)
    svc = supabase_jwt(ref, 'service_role', c.t)
    if c.k % 2 == 0:
        w = len('service_role')
        vw = len(svc)
        out = ['', '  ', f'    {"NAME".center(w + 2)}\u2502{"KEY VALUE".center(vw + 2)}',
               '  ' + '\u2500' * (w + 4) + '\u253c' + '\u2500' * (vw + 2),
               f'    {"anon".ljust(w)}  \u2502 {anon}',
               f'    {"service_role".ljust(w)}  \u2502 {M(svc)}', '']
        return sh(c, f'supabase projects api-keys --project-ref {ref}', '\n'.join(x.rstrip() for x in out))
    out = f'SUPABASE_ANON_KEY="{anon}"\nSUPABASE_SERVICE_ROLE_KEY="{M(svc)}"'
    return sh(c, f'supabase projects api-keys --project-ref {ref} -o env', out)


def p_bat_env_turso_upstash(c):
    db = f'{c.proj}-{c.uid.replace(".", "")}'
    t = epoch(c.t)
    turso = jwt({'alg': 'EdDSA', 'typ': 'JWT'}, {'a': 'rw', 'iat': t, 'id': uuid4()}, 86)
    region = pick(['eu1', 'eu2', 'us1', 'apn1'])
    upid = R.randrange(10000, 99999)
    up = 'A' + rs(UPPER + LOWER, 3) + 'ASQg' + b64(uuid4().encode() + rbytes(18), pad=False)
    ro = 'Ag' + rs(UPPER + LOWER, 2) + 'AIgcDE' + b64(rbytes(33), pad=False)
    content = f'''# turso
TURSO_DATABASE_URL=libsql://{db}-{c.orgn[:10]}.turso.io
TURSO_AUTH_TOKEN={M(turso)}

# upstash
UPSTASH_REDIS_REST_URL=https://{region}-{pick(WORDS)}-{pick(WORDS)}-{upid}.upstash.io
UPSTASH_REDIS_REST_TOKEN={M(up)}
KV_REST_API_READ_ONLY_TOKEN={M(ro)}
NEXT_PUBLIC_APP_URL=http://localhost:3000'''
    return view(c, '.env.local', content, how='bat')


def p_auth0_apps_show_reveal(c):
    cid, sec = rs(ALNUM, 32), rs(B64U, 64)
    tenant = f'{c.orgn[:10]}-{pick(["prod", "dev", "staging"])}.{pick(["us", "eu", "au"])}.auth0.com'
    name = pick(['Orders Web', 'Partner Portal', 'Admin Console', 'Mobile BFF'])
    rows = [('CLIENT ID', cid), ('NAME', name), ('DESCRIPTION', ''), ('TYPE', 'Regular Web Application'),
            ('CLIENT SECRET', M(sec)),
            ('CALLBACKS', f'http://localhost:3000/api/auth/callback, https://app.{c.domain}/api/auth/callback'),
            ('ALLOWED LOGOUT URLS', f'http://localhost:3000, https://app.{c.domain}'), ('ALLOWED ORIGINS', ''),
            ('ALLOWED WEB ORIGINS', ''), ('TOKEN ENDPOINT AUTH', 'client_secret_post'),
            ('GRANTS', 'authorization_code, implicit, refresh_token, client_credentials')]
    out = ['', f'=== {tenant} application', ''] + [f'  {k.ljust(20)} {v}'.rstrip() for k, v in rows] + \
          ['', ' \u25b8    Quickstarts: https://auth0.com/docs/quickstart/webapp']
    return sh(c, f'auth0 apps show {cid} --reveal-secrets', '\n'.join(out))


def p_az_storage_connstr_and_sas(c):
    acct = (c.orgn[:10] + pick(['logs', 'data', 'exports']) + str(R.randrange(1, 99))).lower()
    key = azure_key()
    rg = f'rg-{c.proj}-{pick(["prod", "stg"])}'
    cs = (f'DefaultEndpointsProtocol=https;EndpointSuffix=core.windows.net;AccountName={acct};AccountKey={M(key)};'
          f'BlobEndpoint=https://{acct}.blob.core.windows.net/;FileEndpoint=https://{acct}.file.core.windows.net/;'
          f'QueueEndpoint=https://{acct}.queue.core.windows.net/;TableEndpoint=https://{acct}.table.core.windows.net/')
    blocks = [sh(c, f'az storage account show-connection-string -g {rg} -n {acct} -o json', jdump({'connectionString': cs}))]
    exp = later(c.t, 86400, 86400 * 60)
    sig = sas_sig()
    e = f'{ymd(exp)}T00:00Z'
    sas = f'se={e.replace(":", "%3A")}&sp=rl&spr=https&sv=2022-11-02&sr=c&sig={M(sig)}'
    keyarg = pick([f'--account-key {M(key)}', '--connection-string "$AZ_STORAGE_CONN"'])
    blocks.append(sh(c, f'az storage container generate-sas --account-name {acct} --name exports --permissions rl --expiry {e} --https-only {keyarg} -o tsv', sas))
    return join(c, blocks)


def p_gcloud_keys_create_jq(c):
    proj = f'{c.proj}-{pick(["prod", "staging", "dev"])}-{R.randrange(100, 999)}'
    sa = f'{pick(["deployer", "ci-runner", "terraform", "bq-loader"])}@{proj}.iam.gserviceaccount.com'
    kid = hexs(40)
    key = rsa_pkcs8()
    blocks = [sh(c, f'gcloud iam service-accounts keys create key.json --iam-account={sa}',
                 f'created key [{kid}] of type [json] as [key.json] for [{sa}]'),
              sh(c, 'jq -r .private_key key.json', M(key))]
    if R.random() < 0.6:
        blocks.append(sh(c, 'jq -r .client_email,.private_key_id key.json', f'{sa}\n{kid}'))
    return join(c, blocks)


def p_tf_show_json_tls_private_key(c):
    if c.k % 2 == 0:
        priv, pub = openssh_ed25519(f'{c.proj}-deploy')
        pkcs8 = ed25519_pkcs8()
        vals = {'algorithm': 'ED25519', 'ecdsa_curve': 'P224', 'id': hexs(40),
                'private_key_openssh': M(priv) + '\n', 'private_key_pem': M(pkcs8) + '\n',
                'private_key_pem_pkcs8': M(pkcs8) + '\n',
                'public_key_fingerprint_md5': ':'.join(hexs(2) for _ in range(16)),
                'public_key_fingerprint_sha256': sha256_fp(), 'public_key_openssh': pub + '\n',
                'public_key_pem': ed25519_spki() + '\n', 'rsa_bits': 2048}
    else:
        k1 = rsa_pkcs1()
        vals = {'algorithm': 'RSA', 'ecdsa_curve': 'P224', 'id': hexs(40),
                'private_key_pem': M(k1) + '\n',
                'public_key_fingerprint_md5': ':'.join(hexs(2) for _ in range(16)),
                'public_key_fingerprint_sha256': sha256_fp(),
                'public_key_openssh': 'ssh-rsa ' + b64(ssh_string(b'ssh-rsa') + ssh_string(b'\x01\x00\x01') + ssh_string(b'\x00' + rbytes(256))) + '\n',
                'rsa_bits': 2048}
    cmd = "terraform show -json | jq '.values.root_module.resources[] | select(.type==\"tls_private_key\") | .values'"
    return sh(c, cmd, jdump(vals))


def p_helm_values_tls_block_scalar(c):
    key = ec_key()
    crt = cert_pem(R.randrange(380, 520))
    pw1, pw2 = password(), password()
    ind = lambda s: '\n'.join('    ' + x for x in s.split('\n'))
    body = f'''replicaCount: {R.randrange(2, 6)}
image:
  repository: ghcr.io/{c.org}/{c.proj}
  tag: "{R.randrange(1, 4)}.{R.randrange(0, 20)}.{R.randrange(0, 9)}"
ingress:
  enabled: true
  className: nginx
  hosts:
    - host: {c.proj}.{c.domain}
      paths:
        - path: /
          pathType: Prefix
tls:
  crt: |
{ind(crt)}
  key: |
    {M(ind(key).lstrip())}
postgresql:
  auth:
    postgresPassword: {M(pw1)}
    username: {c.projn}
    password: {M(pw2)}
    database: {c.projn}'''
    body = split_ml(body)
    return view(c, f'charts/{c.proj}/values-prod.yaml', body, how=pick(['cat', 'read', 'cat_n', 'bat']))


def p_openvpn_ovpn_inline(c):
    ca, crt, key, sk = cert_pem(R.randrange(400, 520)), cert_pem(R.randrange(420, 540)), rsa_pkcs8(), ovpn_static_key()
    tag = pick(['tls-crypt', 'tls-auth'])
    body = f'''client
dev tun
proto udp
remote vpn.{c.domain} {pick([1194, 1194, 443])}
resolv-retry infinite
nobind
persist-key
persist-tun
remote-cert-tls server
cipher AES-256-GCM
auth SHA256
{'key-direction 1' if tag == 'tls-auth' else 'ignore-unknown-option block-outside-dns'}
verb 3
<ca>
{ca}
</ca>
<cert>
{crt}
</cert>
<key>
{M(key)}
</key>
<{tag}>
#
# 2048 bit OpenVPN static key
#
{M(sk)}
</{tag}>'''
    return view(c, f'~/vpn/{c.uid}-{pick(["office", "prod", "lab"])}.ovpn', body, how=pick(['cat', 'cat', 'read', 'cat_n']))


def p_probot_env_private_key(c):
    wh, cs = hexs(40), hexs(40)
    key = rsa_pkcs1()
    body = f'''# The ID of your GitHub App
APP_ID={R.randrange(100000, 999999)}
WEBHOOK_SECRET={M(wh)}

# Use `trace` to get verbose logging or `info` to show less
LOG_LEVEL=debug

PRIVATE_KEY="{M(key)}"

GITHUB_CLIENT_ID=Iv1.{hexs(16)}
GITHUB_CLIENT_SECRET={M(cs)}'''
    return view(c, '.env', body, how=pick(['cat', 'head', 'read', 'cat']))


def p_aws_credentials_csv_column(c):
    user = pick(['ci-bot', f'{c.proj}-deployer', 'backup-writer', c.uid])
    acct = R.randrange(10**11, 10**12)
    ak, sk = akia(), aws_secret()
    if c.k % 2 == 0:
        pw = password()
        rows = [['User name', 'Password', 'Access key ID', 'Secret access key', 'Console login link'],
                [user, M(pw), ak, M(sk), f'https://{acct}.signin.aws.amazon.com/console']]
    else:
        rows = [['Access key ID', 'Secret access key'], [ak, M(sk)]]
    path = f'~/Downloads/{user}_credentials.csv' if c.k % 2 == 0 else f'~/Downloads/{user}_accessKeys.csv'
    return sh(c, f'column -s, -t < {path}', cols_table(rows, gap=2))


def p_aws_sso_cache_json(c):
    exp = later(c.t, 3600, 8 * 3600)
    reg_exp = later(c.t, 86400 * 80, 86400 * 90)
    at = 'aoaAAAAAG' + rs(B64C, 180) + ':MG' + rs(B64C, 90)
    rt = 'aorAAAAAG' + rs(B64C, 300) + ':MG' + rs(B64C, 90)
    cs = jwt({'kid': 'key-' + str(R.randrange(10**9, 2 * 10**9)), 'alg': 'HS384'},
             {'serializedClientSecret': b64(rbytes(120))}, 64)
    body = jdump({'startUrl': f'https://{c.orgn[:12]}.awsapps.com/start', 'region': c.region, 'accessToken': M(at),
                  'expiresAt': iso(exp), 'clientId': rs(B64U, 22) + 'ZXUtd2VzdC0x', 'clientSecret': M(cs),
                  'registrationExpiresAt': iso(reg_exp), 'refreshToken': M(rt)})
    f = hexs(40)
    return sh(c, f'jq . ~/.aws/sso/cache/{f}.json', body)


def p_harbor_robot_create_json(c):
    proj = pick(['apps', c.org.split('-')[0], 'platform', 'ml'])
    sec = rs(ALNUM, 32)
    adm = password()
    useref = R.random() < 0.4
    auth = '"admin:$HARBOR_ADMIN_PASSWORD"' if useref else f'"admin:{M(adm)}"'
    name = pick(['ci', 'gitlab', 'argo', 'puller'])
    body = jdump({'creation_time': iso(c.t, 3), 'expires_at': -1, 'id': R.randrange(3, 80),
                  'name': f'robot${proj}+{name}', 'secret': M(sec)})
    cmd = (f'curl -s -u {auth} -X POST https://harbor.{c.domain}/api/v2.0/robots -H \'Content-Type: application/json\' '
           f'-d \'{{"name":"{name}","duration":-1,"level":"project","permissions":[{{"kind":"project","namespace":"{proj}","access":[{{"resource":"repository","action":"push"}},{{"resource":"repository","action":"pull"}}]}}]}}\' | jq')
    blocks = [sh(c, cmd, body)]
    if R.random() < 0.7:
        blocks.append(sh(c, f"echo '{M(sec)}' | docker login harbor.{c.domain} -u 'robot${proj}+{name}' --password-stdin",
                         'Login Succeeded'))
    return join(c, blocks)


def p_gitlab_deploy_token_api(c):
    pat, dt = glpat(), gldt()
    pid = R.randrange(10, 9000)
    tid = R.randrange(2, 400)
    name = pick(['k8s-pull', 'argocd-read', 'registry-ro'])
    exp = f'{c.t.year + 1}-{c.t.month:02d}-01'
    body = jdump({'id': tid, 'name': name, 'username': f'gitlab+deploy-token-{tid}', 'expires_at': exp + 'T00:00:00.000Z',
                  'token': M(dt), 'revoked': False, 'expired': False, 'scopes': ['read_registry', 'read_repository']})
    cmd = (f'curl -s --request POST --header "PRIVATE-TOKEN: {M(pat)}" --header "Content-Type: application/json" '
           f'--data \'{{"name": "{name}", "scopes": ["read_registry", "read_repository"], "expires_at": "{exp}"}}\' '
           f'"https://gitlab.{c.domain}/api/v4/projects/{pid}/deploy_tokens" | jq')
    blocks = [sh(c, cmd, body)]
    if R.random() < 0.5:
        blocks.append(sh(c, f'kubectl -n {c.proj} create secret docker-registry gitlab-pull --docker-server=registry.{c.domain} --docker-username=gitlab+deploy-token-{tid} --docker-password={M(dt)}',
                         'secret/gitlab-pull created'))
    else:
        blocks.append(sh(c, f'git clone https://gitlab+deploy-token-{tid}:{M(dt)}@gitlab.{c.domain}/{c.org}/{c.proj}.git /tmp/{c.proj}',
                         f"Cloning into '/tmp/{c.proj}'...\nremote: Enumerating objects: {R.randrange(200, 9000)}, done.\nReceiving objects: 100% done."))
    return join(c, blocks)


def p_platform_token_mint_outputs(c):
    v = c.k % 5
    if v == 0:
        tok = oc_token()
        api = f'https://api.{pick(["ocp", "okd", "openshift"])}.{c.domain}:6443'
        return join(c, [sh(c, 'oc whoami -t', M(tok)),
                        sh(c, f'oc login --token={M(tok)} --server={api}',
                           f'''Logged into "{api}" as "{c.uid}" using the token provided.

You have access to {R.randrange(3, 90)} projects, the list has been suppressed. You can list all projects with 'oc projects'

Using project "{c.proj}".''')])
    if v == 1:
        tok = firebase_token()
        return sh(c, 'npx firebase-tools login:ci', f'''\u26a0  Authenticating with a `login:ci` token is deprecated and will be removed in a future major version of `firebase-tools`. Instead, use a service account key with `GOOGLE_APPLICATION_CREDENTIALS`: https://cloud.google.com/docs/authentication/getting-started

Visit this URL on this device to log in:
https://accounts.google.com/o/oauth2/auth?client_id=563584335869-fgrhgmd47bqnekij5i8b5pr03ho849e6.apps.googleusercontent.com&scope=email%20openid%20https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fcloudplatformprojects.readonly%20https%3A%2F%2Fwww.googleapis.com%2Fauth%2Ffirebase%20https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fcloud-platform&response_type=code&state={R.randrange(10**8, 10**9)}&redirect_uri=http%3A%2F%2Flocalhost%3A9005

Waiting for authentication...

\u2714  Success! Use this token to login on a CI server:

{M(tok)}

Example: firebase deploy --token "$FIREBASE_TOKEN"''')
    if v == 2:
        ns, sa = pick([('kubernetes-dashboard', 'admin-user'), ('ci', 'deployer'), ('monitoring', 'grafana-reader')])
        tok = k8s_jwt(ns, sa, c.t, 24)
        return sh(c, f'kubectl -n {ns} create token {sa} --duration=24h', M(tok))
    if v == 3:
        tok = hexs(40)
        u = pick(['ci-bot', 'drone', 'renovate'])
        return sh(c, f'docker exec -u git gitea gitea admin user generate-access-token --username {u} --token-name {pick(["drone", "woodpecker", "renovate"])} --scopes write:repository,read:user',
                  f'Access token was successfully created: {M(tok)}')
    cfg = pick(['prd', 'stg', 'dev'])
    tok = f'dp.st.{cfg}.' + rs(ALNUM, 40)
    return sh(c, f'doppler configs tokens create gha-deploy --project {c.proj} --config {cfg} --plain', M(tok))


def p_npm_token_create_table(c):
    tok = crc_token('npm_')
    cidr = pick(['10.0.0.0/8', '192.168.0.0/16', '', '172.16.0.0/12'])
    rows = [['token', M(tok)], ['readonly', pick(['false', 'true'])], ['cidr_whitelist', cidr],
            ['created', iso(c.t, 3)]]
    out = ('npm password: \n' if R.random() < 0.5 else '') + box_table(rows)
    cmd = 'npm token create' + (f' --cidr={cidr}' if cidr else '') + pick(['', ' --read-only'])
    return sh(c, cmd, out)


def p_okhttp_logcat_headers(c):
    at = jwt({'alg': 'RS256', 'typ': 'JWT', 'kid': hexs(16)},
             {'sub': str(R.randrange(10**5, 10**7)), 'iss': f'https://auth.{c.domain}', 'aud': 'mobile',
              'iat': epoch(c.t), 'exp': epoch(c.t) + 900, 'scope': 'openid profile orders'}, 342)
    at2 = jwt({'alg': 'RS256', 'typ': 'JWT', 'kid': hexs(16)},
              {'sub': str(R.randrange(10**5, 10**7)), 'iss': f'https://auth.{c.domain}', 'aud': 'mobile',
               'iat': epoch(c.t) + 1, 'exp': epoch(c.t) + 901}, 342)
    apikey, rt = rs(ALNUM, 40), rs(B64U, 64)
    pid, tid = R.randrange(2000, 30000), R.randrange(2000, 30000)
    host = f'api.{c.domain}'
    dev = uuid4()
    body = '{"refresh_token":"' + M(rt) + '","device_id":"' + dev + '"}'
    resp = '{"access_token":"' + M(at2) + '","token_type":"Bearer","expires_in":900}'
    t = c.t
    def p(msg):
        tt = tick_ms(c, 0, 40)
        return f'{tt.month:02d}-{tt.day:02d} {hms(tt)}.{tt.microsecond // 1000:03d} {pid:5d} {tid:5d} I okhttp.OkHttpClient: {msg}'.rstrip()
    lines = [p(f'--> POST https://{host}/v2/sessions/refresh'),
             p('Content-Type: application/json; charset=utf-8'),
             p(f'Content-Length: {vis(body)}'),
             p(f'Authorization: Bearer {M(at)}'),
             p(f'X-Api-Key: {M(apikey)}'),
             p(f'User-Agent: {c.proj}/{R.randrange(1, 9)}.{R.randrange(0, 30)}.0 (Android 14; Pixel 7)'),
             p(''), p(body), p(f'--> END POST ({vis(body)}-byte body)'),
             p(f'<-- 200 https://{host}/v2/sessions/refresh ({R.randrange(80, 900)}ms)'),
             p('content-type: application/json'), p(f'date: {http_date(c.t)}'),
             p(f'x-request-id: {uuid4()}'), p(''), p(resp), p(f'<-- END HTTP ({vis(resp)}-byte body)')]
    return sh(c, 'adb logcat -d -s okhttp.OkHttpClient:I', '\n'.join(lines))


def p_har_file_cookies(c):
    host = f'app.{c.domain}'
    csrf = rs(ALNUM, 32)
    kind = c.k % 3
    if kind == 0:
        sname, sval = 'sessionid', rs(LOWER + DIGITS, 32)
    elif kind == 1:
        sname, sval = f'_{c.projn}_session', b64(rbytes(R.randrange(150, 210)), pad=False).replace('+', '%2B').replace('/', '%2F') + '--' + rs(B64C[:62], 40) + '--' + b64(rbytes(16)).replace('=', '%3D')
    else:
        sname, sval = '__Secure-next-auth.session-token', 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..' + rs(B64U, 22) + '.' + rs(B64U, 380) + '.' + rs(B64U, 22)
    ga = f'GA1.1.{R.randrange(10**8, 10**10)}.{epoch(c.t) - R.randrange(10**5, 10**7)}'
    cookie = f'_ga={ga}; csrftoken={csrf}; {sname}={M(sval)}'
    req = {'method': 'GET', 'url': f'https://{host}/api/me', 'httpVersion': 'http/2.0',
           'headers': [{'name': ':authority', 'value': host}, {'name': ':method', 'value': 'GET'},
                       {'name': ':path', 'value': '/api/me'}, {'name': ':scheme', 'value': 'https'},
                       {'name': 'accept', 'value': 'application/json'},
                       {'name': 'cookie', 'value': cookie},
                       {'name': 'referer', 'value': f'https://{host}/dashboard'},
                       {'name': 'x-csrftoken', 'value': csrf}],
           'queryString': [],
           'cookies': [{'name': '_ga', 'value': ga, 'path': '/', 'domain': '.' + c.domain, 'expires': iso(later(c.t, 86400 * 300, 86400 * 400), 3), 'httpOnly': False, 'secure': False},
                       {'name': 'csrftoken', 'value': csrf, 'path': '/', 'domain': host, 'expires': iso(later(c.t, 86400 * 300, 86400 * 400), 3), 'httpOnly': False, 'secure': True},
                       {'name': sname, 'value': M(sval), 'path': '/', 'domain': host, 'expires': iso(later(c.t, 86400 * 7, 86400 * 14), 3), 'httpOnly': True, 'secure': True}],
           'headersSize': -1, 'bodySize': 0}
    f = pick(['app.har', f'{host}.har', 'repro/login-loop.har'])
    return sh(c, f"jq '.log.entries[{R.randrange(0, 40)}].request' {f}", jdump(req))


def p_tshark_http_basic(c):
    user = pick(['svc-scraper', 'prometheus', 'admin', 'metrics', c.uid])
    pw = password(kind=pick(['mixed', 'alnum', 'words']))
    blob = b64(f'{user}:{pw}'.encode())
    src, dst = c.ip, f'10.{R.randrange(0, 60)}.{R.randrange(0, 255)}.{R.randrange(2, 250)}'
    port = pick([8080, 9090, 80, 8000])
    path = pick(['/api/v1/metrics', '/metrics', '/admin/status', '/-/healthy'])
    ln = R.randrange(180, 300)
    ua = pick(['Prometheus/2.51.2', 'curl/8.5.0', 'Go-http-client/1.1', 'python-requests/2.31.0'])
    fr = R.randrange(10, 4000)
    mac1 = ':'.join(hexs(2) for _ in range(6))
    mac2 = ':'.join(hexs(2) for _ in range(6))
    out = f'''Frame {fr}: {ln + 66} bytes on wire ({(ln + 66) * 8} bits), {ln + 66} bytes captured ({(ln + 66) * 8} bits) on interface eth0, id 0
Ethernet II, Src: {mac1}, Dst: {mac2}
Internet Protocol Version 4, Src: {src}, Dst: {dst}
Transmission Control Protocol, Src Port: {R.randrange(32768, 61000)}, Dst Port: {port}, Seq: 1, Ack: 1, Len: {ln}
Hypertext Transfer Protocol
    GET {path} HTTP/1.1\\r\\n
        [Expert Info (Chat/Sequence): GET {path} HTTP/1.1\\r\\n]
            [GET {path} HTTP/1.1\\r\\n]
            [Severity level: Chat]
            [Group: Sequence]
        Request Method: GET
        Request URI: {path}
        Request Version: HTTP/1.1
    Host: {dst}:{port}\\r\\n
    Authorization: Basic {M(blob)}\\r\\n
        Credentials: {user}:{M(pw)}
    User-Agent: {ua}\\r\\n
    Accept: */*\\r\\n
    \\r\\n
    [Full request URI: http://{dst}:{port}{path}]
    [HTTP request 1/1]'''
    return sh(c, f"tshark -r {pick(['capture.pcap', '/tmp/scrape.pcapng', 'debug/lb.pcap'])} -Y 'http.authorization' -V -O http", out)


def p_crontab_l_backup_jobs(c):
    p1, p2, p3 = password(), password(), upw()
    lines = ['# Edit this file to introduce tasks to be run by cron.', '#',
             '# m h  dom mon dow   command', f'MAILTO=ops@{c.domain}',
             f"15 2 * * * mysqldump -u backup -p'{M(p1)}' --single-transaction --routines {c.projn} | gzip > /var/backups/{c.projn}-$(date +\\%F).sql.gz",
             f"30 2 * * * PGPASSWORD='{M(p2)}' pg_dump -h {c.ip} -U reporting -Fc analytics > /var/backups/analytics-$(date +\\%F).dump"]
    if R.random() < 0.6:
        lines.append(f'45 2 * * * mongodump --uri "mongodb://backup:{M(p3)}@mongo-0.{c.domain}:27017/?authSource=admin" --gzip --archive=/var/backups/mongo-$(date +\\%F).gz')
    lines.append('0 4 * * 0 find /var/backups -mtime +14 -delete')
    return sh(c, pick(['crontab -l', 'sudo crontab -l -u backup']), '\n'.join(lines))


def p_pgbouncer_userlist_txt(c):
    p1, p2 = password(), password()
    scram = f'SCRAM-SHA-256$4096:{b64(rbytes(16))}${b64(rbytes(32))}:{b64(rbytes(32))}'
    md5 = 'md5' + hexs(32)
    rows = [f'"pgbouncer" "{M(p1)}"', f'"{c.projn}" "{scram}"', f'"reporting" "{md5}"', f'"admin" "{M(p2)}"']
    blocks = [sh(c, 'sudo cat /etc/pgbouncer/userlist.txt', '\n'.join(rows))]
    if R.random() < 0.6:
        blocks.append(sh(c, "sudo grep -E '^(auth_type|auth_file|auth_user|admin_users)' /etc/pgbouncer/pgbouncer.ini",
                         'auth_type = scram-sha-256\nauth_file = /etc/pgbouncer/userlist.txt\nauth_user = pgbouncer\nadmin_users = admin'))
    return join(c, blocks)


def p_proxy_creds_apt_env(c):
    pw = upw()
    ph = f'proxy.{pick(["corp", "office", "dmz"])}.{c.domain}'
    port = pick([3128, 8080, 80])
    u = c.uid
    env = f'''http_proxy=http://{u}:{M(pw)}@{ph}:{port}
https_proxy=http://{u}:{M(pw)}@{ph}:{port}
no_proxy=localhost,127.0.0.1,.{c.domain},10.0.0.0/8'''
    apt = f'''Acquire::http::Proxy "http://{u}:{M(pw)}@{ph}:{port}/";
Acquire::https::Proxy "http://{u}:{M(pw)}@{ph}:{port}/";'''
    return join(c, [sh(c, 'env | grep -i _proxy', env), sh(c, 'cat /etc/apt/apt.conf.d/95proxies', apt)])


def p_git_config_list_insteadof(c):
    gl, ghs, az = glpat(), crc_token('ghs_'), azdo_pat()
    lines = [f'user.name={c.name}', f'user.email={c.email}', 'init.defaultbranch=main', 'pull.rebase=true',
             'core.editor=' + pick(['vim', 'nvim', 'code --wait']),
             f'url.https://oauth2:{M(gl)}@gitlab.{c.domain}/.insteadof=https://gitlab.{c.domain}/',
             f'url.https://x-access-token:{M(ghs)}@github.com/.insteadof=https://github.com/']
    if R.random() < 0.6:
        lines.append(f'url.https://{c.uid}:{M(az)}@dev.azure.com/.insteadof=https://dev.azure.com/')
    lines += ['credential.helper=' + pick(['store', 'cache --timeout=3600']), 'fetch.prune=true']
    return sh(c, 'git config --global --list', '\n'.join(lines))


def p_azure_pipelines_log_xtrace(c):
    gp, acr, npw = password(kind=pick(['alnum', 'hex', 'words'])), acr_password(), password(kind=pick(['alnum', 'words', 'b64']))
    reg = c.orgn[:12] + 'acr'
    kid = rs(HEXU, 16)
    def ts():
        return iso(tick_ms(c, 1, 2500), 7)
    lines = [f'{ts()} ##[section]Starting: Publish artifacts',
             f'{ts()} ==============================================================================',
             f'{ts()} Task         : Bash',
             f'{ts()} Description  : Run a Bash script on macOS, Linux, or Windows',
             f'{ts()} Version      : 3.{R.randrange(220, 245)}.{R.randrange(0, 9)}',
             f'{ts()} Author       : Microsoft Corporation',
             f'{ts()} Help         : https://docs.microsoft.com/azure/devops/pipelines/tasks/utility/bash',
             f'{ts()} ==============================================================================',
             f'{ts()} Generating script.',
             f'{ts()} ========================== Starting Command Output ===========================',
             f'{ts()} [command]/usr/bin/bash /home/vsts/work/_temp/{uuid4()}.sh',
             f'{ts()} + gpg --batch --pinentry-mode loopback --passphrase {M(gp)} --import /home/vsts/work/_temp/signing.asc',
             f'{ts()} gpg: key {kid}: public key "{c.name} (release signing) <{c.email}>" imported',
             f'{ts()} gpg: key {kid}: secret key imported',
             f'{ts()} gpg: Total number processed: 1',
             f'{ts()} + echo {M(acr)}',
             f'{ts()} + docker login {reg}.azurecr.io -u {reg} --password-stdin',
             f'{ts()} Login Succeeded',
             f'{ts()} + curl -fsS -u build:{M(npw)} --upload-file dist/{c.proj}.tgz https://nexus.{c.domain}/repository/raw-releases/{c.proj}/{c.proj}.tgz',
             f'{ts()} ##[section]Finishing: Publish artifacts']
    return '\n'.join(lines)


def p_powershell_securestring_plain(c):
    pw, pat = password(), azdo_pat()
    dom = c.org.split('-')[0].upper()[:8]
    srv = f'sql-{pick(["prod", "uat"])}-0{R.randrange(1, 5)}.{c.domain}'
    content = f'''param(
    [string]$Server = "{srv}",
    [string]$Database = "{pick(['Orders', 'Billing', 'Warehouse'])}"
)
$ErrorActionPreference = 'Stop'
$user = '{dom}\\svc_deploy'
$pass = ConvertTo-SecureString '{M(pw)}' -AsPlainText -Force
$cred = New-Object System.Management.Automation.PSCredential($user, $pass)
Invoke-Sqlcmd -ServerInstance $Server -Database $Database -Credential $cred -InputFile .\\migrations\\0{R.randrange(10, 99)}_add_index.sql
$env:AZURE_DEVOPS_EXT_PAT = '{M(pat)}'
az devops configure --defaults organization=https://dev.azure.com/{c.orgn} project=Platform'''
    proj = ''.join(p.capitalize() for p in c.proj.split('-'))
    if R.random() < 0.5:
        return f'PS C:\\Users\\{c.uid}\\src\\{proj}> Get-Content .\\scripts\\Deploy-Sql.ps1\n{content}'
    return view(c, 'scripts/Deploy-Sql.ps1', content, how=pick(['read', 'cat', 'cat_n']))


def p_rich_table_wrapped_token(c):
    pre = pick(['ak_live_', f'{c.projn[:4]}_pat_', 'sk_prod_', 'tok_live_'])
    W = pick([36, 40, 44])
    tok = pre + rs(ALNUM, W * pick([1, 2]) + R.randrange(12, W - 4) - len(pre))
    pieces = wrap(tok, W)
    tid = 'tok_01' + rs('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 24)
    exp = later(c.t, 86400 * 30, 86400 * 365)
    rows = [('id', tid), ('name', pick(['ci', 'deploy-bot', 'zapier', 'grafana'])), ('scopes', pick(['deploy, read', 'read', 'admin', 'write:events']))]
    fw = 10
    vw = max(W, max(len(v) for _, v in rows), 25)
    top = '\u250f' + '\u2501' * (fw + 2) + '\u2533' + '\u2501' * (vw + 2) + '\u2513'
    hdr = '\u2503 ' + 'Field'.ljust(fw) + ' \u2503 ' + 'Value'.ljust(vw) + ' \u2503'
    sep = '\u2521' + '\u2501' * (fw + 2) + '\u2547' + '\u2501' * (vw + 2) + '\u2529'
    bot = '\u2514' + '\u2500' * (fw + 2) + '\u2534' + '\u2500' * (vw + 2) + '\u2518'
    line = lambda k, v: '\u2502 ' + k.ljust(fw) + ' \u2502 ' + ljv(v, vw) + ' \u2502'
    body = [line(k, v) for k, v in rows]
    for i, p in enumerate(pieces):
        body.append(line('token' if i == 0 else '', M(p)))
    body.append(line('expires_at', iso(exp, 0, '+00:00')))
    title = 'API token created'.center(fw + vw + 7).rstrip()
    out = '\n'.join([title, top, hdr, sep] + body + [bot, 'Store this token now; it will not be shown again.'])
    cmd = pick([f'python -m {c.projn}.cli tokens create --name ci --scope deploy', f'uv run manage tokens create ci',
                f'./bin/admin tokens:create --name ci'])
    return sh(c, cmd, out)


def p_markdown_runbook_credentials_table(c):
    g, mq, mb, pd, db = password(), password(), password(), 'u+' + rs(ALNUM + '_-', 18), upw()
    stg = pick(['stg', 'staging', 'preprod'])
    rows = [('Service', 'URL', 'User', 'Password / token'),
            ('Grafana', f'https://grafana.{stg}.{c.domain}', 'admin', f'`{M(g)}`'),
            ('RabbitMQ UI', f'https://mq.{stg}.{c.domain}', 'ops', M(mq)),
            ('Metabase', f'https://bi.{stg}.{c.domain}', c.email, f'`{M(mb)}`'),
            ('PagerDuty API', '\u2014', '\u2014', f'`{M(pd)}`')]
    ws = [max(vis(r[i]) for r in rows) for i in range(4)]
    tl = ['| ' + ' | '.join(ljv(r[i], ws[i]) for i in range(4)) + ' |' for r in rows]
    tl.insert(1, '|' + '|'.join('-' * (w + 2) for w in ws) + '|')
    md = f'''# {stg.capitalize()} access

Ask #platform before rotating anything below. Last checked {ymd(c.t)} by @{c.uid}.

''' + '\n'.join(tl) + f'''

## Database

```
psql "postgresql://{stg}_admin:{M(db)}@{stg}-db.{c.domain}:5432/{c.projn}?sslmode=require"
```
'''
    return view(c, f'docs/runbooks/{stg}-access.md', md, how=pick(['cat', 'read', 'cat', 'bat']))


def p_ruby_net_http_debug(c):
    v = c.k % 4
    if v == 0:
        host, path, hdr = 'api.hubapi.com', '/crm/v3/objects/contacts?limit=100', f'Authorization: Bearer {M(hubspot_token())}'
    elif v == 1:
        host, path, hdr = 'api.postmarkapp.com', '/deliverystats', f'X-Postmark-Server-Token: {M(uuid4())}'
    elif v == 2:
        key = 'key-' + hexs(32)
        host, path, hdr = 'api.mailgun.net', f'/v3/mg.{c.domain}/events?limit=25', f'Authorization: Basic {M(b64(("api:" + key).encode()))}'
    else:
        host, path, hdr = 'api.intercom.io', '/contacts?per_page=50', f'Authorization: Bearer {M(intercom_token())}'
    n = R.randrange(800, 9000)
    em = pick(FIRST) + '@example.org'
    first = ['{\\"results\\":[{\\"id\\":\\"' + str(R.randrange(10**9, 10**11)) + '\\",\\"properties\\":{\\"email\\":\\"' + em + '\\"',
             '{\\"Sent\\":' + str(R.randrange(100, 9000)) + ',\\"Bounces\\":[{\\"Name\\":\\"All\\",\\"Count\\":' + str(R.randrange(0, 90)) + '}',
             '{\\"items\\":[{\\"event\\":\\"delivered\\",\\"recipient\\":\\"' + em + '\\",\\"id\\":\\"' + rs(B64U, 22) + '\\"',
             '{\\"type\\":\\"list\\",\\"data\\":[{\\"type\\":\\"contact\\",\\"id\\":\\"' + hexs(24) + '\\",\\"email\\":\\"' + em + '\\"'][v]
    out = f'''opening connection to {host}:443...
opened
starting SSL for {host}:443...
SSL established, protocol: TLSv1.3, cipher: TLS_AES_128_GCM_SHA256
<- "GET {path} HTTP/1.1\\r\\nAccept-Encoding: gzip;q=1.0,deflate;q=0.6,identity;q=0.3\\r\\nAccept: application/json\\r\\nUser-Agent: Ruby\\r\\n{hdr}\\r\\nHost: {host}\\r\\n\\r\\n"
-> "HTTP/1.1 200 OK\\r\\n"
-> "Date: {http_date(c.t)}\\r\\n"
-> "Content-Type: application/json; charset=utf-8\\r\\n"
-> "Content-Length: {n}\\r\\n"
-> "Connection: keep-alive\\r\\n"
-> "\\r\\n"
reading {n} bytes...
-> "{first}"
read {n} bytes
Conn keep-alive'''
    return sh(c, pick([f"bin/rails runner 'CrmSync.new(debug: true).call'", 'bundle exec rake sync:crm DEBUG_HTTP=1']), out)


def p_rancher_tokens_api(c):
    old_name, old_sec = 'token-' + rs(LOWER + DIGITS, 5), rs(LOWER + DIGITS, 54)
    new_name, new_sec = 'token-' + rs(LOWER + DIGITS, 5), rs(LOWER + DIGITS, 54)
    host = f'rancher.{c.domain}'
    body = jdump({'name': new_name, 'token': f'{new_name}:{M(new_sec)}', 'expiresAt': '', 'userId': 'u-' + rs(LOWER + DIGITS, 5)})
    blocks = [sh(c, f'curl -s -u "{old_name}:{M(old_sec)}" -X POST https://{host}/v3/tokens -H \'Content-Type: application/json\' -d \'{{"type":"token","description":"ci automation","ttl":0}}\' | jq \'{{name, token, expiresAt, userId}}\'', body)]
    if R.random() < 0.6:
        blocks.append(sh(c, f'rancher login https://{host}/v3 --token {new_name}:{M(new_sec)} --context c-{rs(LOWER + DIGITS, 5)}:p-{rs(LOWER + DIGITS, 5)}',
                         f'INFO[0000] Saving config to {c.home}/.rancher/cli2.json'))
    return join(c, blocks)


POSITIVE = [
    ('consul_agent_hcl', p_consul_agent_hcl),
    ('nomad_job_env_template', p_nomad_job_env_template),
    ('terraform_provider_diff', p_terraform_provider_diff),
    ('packer_pkr_hcl_vars', p_packer_pkr_hcl_vars),
    ('vault_operator_init', p_vault_operator_init),
    ('dev_cli_token_files', p_dev_cli_token_files),
    ('flyctl_tokens_create', p_flyctl_tokens_create),
    ('netlify_cli_config_json', p_netlify_cli_config_json),
    ('spring_application_yml_profiles', p_spring_application_yml_profiles),
    ('web_config_xml', p_web_config_xml),
    ('symfony_secrets_reveal', p_symfony_secrets_reveal),
    ('rabbitmq_erlang_config', p_rabbitmq_erlang_config),
    ('django_diffsettings', p_django_diffsettings),
    ('sqlalchemy_url_parse_error', p_sqlalchemy_url_parse_error),
    ('kafka_connect_connector_config', p_kafka_connect_connector_config),
    ('logstash_pipeline_conf', p_logstash_pipeline_conf),
    ('vector_toml_sinks', p_vector_toml_sinks),
    ('prometheus_remote_write_bat', p_prometheus_remote_write_bat),
    ('influx_auth_create_table', p_influx_auth_create_table),
    ('code_server_config_yaml', p_code_server_config_yaml),
    ('airflow_connections_export', p_airflow_connections_export),
    ('dbt_profiles_yml', p_dbt_profiles_yml),
    ('streamlit_secrets_toml', p_streamlit_secrets_toml),
    ('continue_config_yaml', p_continue_config_yaml),
    ('xtrace_llm_curl_headers', p_xtrace_llm_curl_headers),
    ('n8n_export_credentials', p_n8n_export_credentials),
    ('dropbox_oauth_token_response', p_dropbox_oauth_token_response),
    ('telegram_httpx_log', p_telegram_httpx_log),
    ('twilio_api_keys_create_json', p_twilio_api_keys_create_json),
    ('psql_expanded_integrations', p_psql_expanded_integrations),
    ('cms_seed_script_cat_n', p_cms_seed_script_cat_n),
    ('mapbox_tokens_api_json', p_mapbox_tokens_api_json),
    ('supabase_projects_api_keys', p_supabase_projects_api_keys),
    ('bat_env_turso_upstash', p_bat_env_turso_upstash),
    ('auth0_apps_show_reveal', p_auth0_apps_show_reveal),
    ('az_storage_connstr_and_sas', p_az_storage_connstr_and_sas),
    ('gcloud_keys_create_jq', p_gcloud_keys_create_jq),
    ('tf_show_json_tls_private_key', p_tf_show_json_tls_private_key),
    ('helm_values_tls_block_scalar', p_helm_values_tls_block_scalar),
    ('openvpn_ovpn_inline', p_openvpn_ovpn_inline),
    ('probot_env_private_key', p_probot_env_private_key),
    ('aws_credentials_csv_column', p_aws_credentials_csv_column),
    ('aws_sso_cache_json', p_aws_sso_cache_json),
    ('harbor_robot_create_json', p_harbor_robot_create_json),
    ('gitlab_deploy_token_api', p_gitlab_deploy_token_api),
    ('platform_token_mint_outputs', p_platform_token_mint_outputs),
    ('npm_token_create_table', p_npm_token_create_table),
    ('okhttp_logcat_headers', p_okhttp_logcat_headers),
    ('har_file_cookies', p_har_file_cookies),
    ('tshark_http_basic', p_tshark_http_basic),
    ('crontab_l_backup_jobs', p_crontab_l_backup_jobs),
    ('pgbouncer_userlist_txt', p_pgbouncer_userlist_txt),
    ('proxy_creds_apt_env', p_proxy_creds_apt_env),
    ('git_config_list_insteadof', p_git_config_list_insteadof),
    ('azure_pipelines_log_xtrace', p_azure_pipelines_log_xtrace),
    ('powershell_securestring_plain', p_powershell_securestring_plain),
    ('rich_table_wrapped_token', p_rich_table_wrapped_token),
    ('markdown_runbook_credentials_table', p_markdown_runbook_credentials_table),
    ('ruby_net_http_debug', p_ruby_net_http_debug),
    ('rancher_tokens_api', p_rancher_tokens_api),
]


# ================================================================ negatives

CRYPT = './' + DIGITS + UPPER + LOWER


def apr1():
    return '$apr1$' + rs(CRYPT, 8) + '$' + rs(CRYPT, 22)


def bcrypt(pfx='2y', cost=10):
    return f'${pfx}${cost:02d}$' + rs(CRYPT, 53)


def argon2(variant='argon2id', m=65536, t=3, p=4):
    return f'${variant}$v=19$m={m},t={t},p={p}$' + b64(rbytes(16), pad=False) + '$' + b64(rbytes(32), pad=False)


def n_traefik_basicauth_users(c):
    h1, h2 = apr1(), bcrypt('2y', 5)
    u2 = pick(['ops', 'grafana', c.uid])
    compose = f'''services:
  traefik:
    image: traefik:v3.0
    command:
      - --providers.docker=true
      - --providers.file.directory=/etc/traefik/dynamic
      - --entrypoints.websecure.address=:443
    labels:
      - "traefik.enable=true"
      - "traefik.http.routers.dashboard.rule=Host(`traefik.{c.domain}`)"
      - "traefik.http.routers.dashboard.service=api@internal"
      - "traefik.http.routers.dashboard.middlewares=dash-auth"
      - "traefik.http.middlewares.dash-auth.basicauth.users=admin:{h1.replace('$', '$$')},{u2}:{h2.replace('$', '$$')}"'''
    dyn = f'''http:
  middlewares:
    metrics-auth:
      basicAuth:
        users:
          - "prometheus:{apr1()}"
          - "{c.uid}:{bcrypt('2y', 10)}"
        removeHeader: true'''
    return join(c, [view(c, 'docker-compose.yml', compose, how=pick(['cat', 'read', 'sed'])),
                    view(c, 'traefik/dynamic/middlewares.yml', dyn, how=pick(['cat', 'read']))])


def n_mysql_config_editor_print(c):
    out = f'''[client]
user = "{c.uid}"
password = *****
host = "localhost"
[backup]
user = "backup"
password = *****
host = "{c.ip}"
port = 3306'''
    u = uuid4()
    host = f'{c.projn.replace("_", "-")}-db-0'
    hw = max(len(host), 10)
    sep = '+' + '-' * (hw + 2) + '+' + '-' * 38 + '+'
    res = '\n'.join([sep, f'| {"@@hostname".ljust(hw)} | {"@@server_uuid".ljust(36)} |', sep, f'| {host.ljust(hw)} | {u} |', sep])
    return join(c, [sh(c, 'mysql_config_editor print --all', out),
                    sh(c, "mysql --login-path=backup -e 'SELECT @@hostname, @@server_uuid'", res)])


def n_kubectl_v8_masked_bearer(c):
    ns = c.proj
    pid = R.randrange(10000, 99999)
    def k(src):
        tt = tick_ms(c, 0, 30)
        return f'I{tt.month:02d}{tt.day:02d} {hms(tt)}.{tt.microsecond:06d}   {pid} {src}]'
    rv = R.randrange(10**7, 10**9)
    lines = [f'{k("loader.go:395")} Config loaded from file:  {c.home}/.kube/config',
             f'{k("round_trippers.go:463")} GET https://{c.ip}:6443/api/v1/namespaces/{ns}/pods?limit=500',
             f'{k("round_trippers.go:469")} Request Headers:',
             f'{k("round_trippers.go:473")}     Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
             f'{k("round_trippers.go:473")}     User-Agent: kubectl/v1.30.{R.randrange(0, 5)} (linux/amd64) kubernetes/{hexs(7)}',
             f'{k("round_trippers.go:473")}     Authorization: Bearer <masked>',
             f'{k("round_trippers.go:574")} Response Status: 200 OK in {R.randrange(5, 90)} milliseconds',
             f'{k("round_trippers.go:577")} Response Headers:',
             f'{k("round_trippers.go:580")}     Audit-Id: {uuid4()}',
             f'{k("round_trippers.go:580")}     Cache-Control: no-cache, private',
             f'{k("round_trippers.go:580")}     Content-Type: application/json',
             f'{k("round_trippers.go:580")}     X-Kubernetes-Pf-Flowschema-Uid: {uuid4()}',
             f'{k("round_trippers.go:580")}     X-Kubernetes-Pf-Prioritylevel-Uid: {uuid4()}',
             f'{k("request.go:1212")} Response Body: {{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}"}},"columnDefinitions":[{{"name":"Name","type":"string","format":"name"}}]}}',
             'NAME' + ' ' * 36 + 'READY   STATUS    RESTARTS   AGE']
    for _ in range(R.randrange(2, 4)):
        n = f'{c.proj}-{hexs(9) if R.random() < 0.5 else hexs(10)}-{rs(LOWER + DIGITS, 5)}'
        lines.append(f'{n.ljust(40)}1/1     Running   0          {R.randrange(1, 50)}h')
    return sh(c, f'kubectl get pods -n {ns} -v=8', '\n'.join(lines))


def n_vault_unseal_progress(c):
    thr = 3
    nonce = uuid4()
    ver = f'1.{R.randrange(14, 18)}.{R.randrange(0, 6)}'
    bd = iso(c.t - datetime.timedelta(days=R.randrange(30, 200)))
    def table(prog, sealed):
        rows = [('Key', 'Value'), ('---', '-----'), ('Seal Type', 'shamir'), ('Initialized', 'true'),
                ('Sealed', sealed), ('Total Shares', '5'), ('Threshold', str(thr))]
        if sealed == 'true':
            rows += [('Unseal Progress', f'{prog}/{thr}'), ('Unseal Nonce', nonce)]
        rows += [('Version', ver), ('Build Date', bd), ('Storage Type', 'raft')]
        if sealed == 'false':
            rows += [('Cluster Name', 'vault-cluster-' + hexs(8)), ('Cluster ID', uuid4()), ('HA Enabled', 'true'),
                     ('HA Cluster', 'n/a'), ('HA Mode', 'standby'), ('Active Node Address', '<none>'),
                     ('Raft Committed Index', str(R.randrange(30, 9000))), ('Raft Applied Index', str(R.randrange(30, 9000)))]
        else:
            rows += [('HA Enabled', 'true')]
        w = max(len(k) for k, _ in rows) + 4
        return '\n'.join((k.ljust(w) + v).rstrip() for k, v in rows)
    blocks = [sh(c, 'vault operator unseal', 'Unseal Key (will be hidden): \n' + table(1, 'true')),
              sh(c, 'vault operator unseal', 'Unseal Key (will be hidden): \n' + table(2, 'true')),
              sh(c, 'vault operator unseal', 'Unseal Key (will be hidden): \n' + table(3, 'false'))]
    return join(c, blocks[R.randrange(0, 2):])


def n_vault_audit_log_hmac(c):
    hm = lambda: 'hmac-sha256:' + hexs(64)
    ents = []
    for _ in range(2):
        tt = tick(c, 1, 30)
        ents.append({'time': iso(tt, 6), 'type': 'response',
                     'auth': {'client_token': hm(), 'accessor': hm(), 'display_name': f'approle',
                              'policies': ['default', f'{c.proj}-read'], 'token_policies': ['default', f'{c.proj}-read'],
                              'metadata': {'role_name': c.proj}, 'entity_id': uuid4(), 'token_type': 'service',
                              'token_ttl': 3600, 'token_issue_time': iso(tt - datetime.timedelta(minutes=7), 0, '+00:00')},
                     'request': {'id': uuid4(), 'client_id': uuid4(), 'operation': 'read', 'mount_point': 'secret/',
                                 'mount_type': 'kv', 'mount_accessor': 'kv_' + hexs(8), 'mount_running_version': 'v0.17.0+builtin',
                                 'client_token': hm(), 'client_token_accessor': hm(), 'namespace': {'id': 'root'},
                                 'path': f'secret/data/{c.proj}/prod', 'remote_address': c.ip, 'remote_port': R.randrange(30000, 60000)},
                     'response': {'mount_point': 'secret/', 'mount_type': 'kv', 'mount_accessor': 'kv_' + hexs(8),
                                  'data': {'data': {'DATABASE_PASSWORD': hm(), 'STRIPE_SECRET_KEY': hm()},
                                           'metadata': {'created_time': hm(), 'custom_metadata': None, 'deletion_time': hm(),
                                                        'destroyed': False, 'version': R.randrange(1, 30)}}}})
    out = '\n'.join(jdump(e) for e in ents)
    return sh(c, 'sudo tail -n 2 /var/log/vault/audit.log | jq', out)


def n_vault_token_lookup_accessor(c):
    acc = rs(ALNUM, 24)
    ct = c.t - datetime.timedelta(hours=R.randrange(1, 100))
    rows = [('Key', 'Value'), ('---', '-----'), ('accessor', acc), ('creation_time', str(epoch(ct))),
            ('creation_ttl', '768h'), ('display_name', pick(['approle', 'kubernetes-ci-deployer', 'oidc-' + c.email])),
            ('entity_id', uuid4()), ('expire_time', iso(ct + datetime.timedelta(hours=768), 9)), ('explicit_max_ttl', '0s'),
            ('id', 'n/a'), ('issue_time', iso(ct, 9)), ('meta', f'map[role_name:{c.proj}]'), ('num_uses', '0'),
            ('orphan', 'true'), ('path', pick(['auth/approle/login', 'auth/kubernetes/login'])),
            ('policies', f'[default {c.proj}-read]'), ('renewable', 'true'),
            ('ttl', f'{R.randrange(100, 767)}h{R.randrange(0, 59)}m{R.randrange(0, 59)}s'), ('type', 'service')]
    w = max(len(k) for k, _ in rows) + 4
    out = '\n'.join(k.ljust(w) + v for k, v in rows)
    return sh(c, f'vault token lookup -accessor {acc}', out)


def n_nomad_acl_token_list(c):
    rows = [['Name', 'Type', 'Global', 'Accessor ID', 'Expired'],
            ['Bootstrap Token', 'management', 'true', uuid4(), 'false']]
    for n in [f'{c.proj}-deploy', 'ci-runner', 'grafana-readonly', f'{c.uid}-laptop'][:R.randrange(2, 5)]:
        rows.append([n, 'client', pick(['false', 'true']), uuid4(), pick(['false', 'false', 'true'])])
    return sh(c, 'nomad acl token list', cols_table(rows, gap=2))


def n_consul_catalog_nodes_detailed(c):
    dc = pick(['dc1', 'fra1', c.region])
    rows = [['Node', 'ID', 'Address', 'DC', 'TaggedAddresses', 'Meta']]
    for i in range(R.randrange(3, 6)):
        ip = f'10.{R.randrange(0, 40)}.{R.randrange(0, 20)}.{R.randrange(2, 250)}'
        n = f'consul-{i + 1:02d}' if i < 3 else f'{c.proj}-{hexs(4)}'
        rows.append([n, uuid4(), ip, dc, f'lan={ip}, lan_ipv4={ip}, wan={ip}, wan_ipv4={ip}',
                     f'consul-network-segment=, consul-version=1.{R.randrange(16, 20)}.{R.randrange(0, 4)}'])
    return sh(c, 'consul catalog nodes -detailed', cols_table(rows, gap=2))


def n_influx_bucket_list_ids(c):
    oid = hexs(16)
    rows = [['ID', 'Name', 'Retention', 'Shard group duration', 'Organization ID', 'Schema Type']]
    for n, r in [('_monitoring', '168h0m0s'), ('_tasks', '72h0m0s'), (c.projn, 'infinite'), ('telegraf', '720h0m0s'), ('iot_raw', '2160h0m0s')][:R.randrange(3, 6)]:
        rows.append([hexs(16), n, r, pick(['24h0m0s', '168h0m0s']), oid, 'implicit'])
    return sh(c, f'influx bucket list --org {c.org}', cols_table(rows, gap=1))


def n_grafana_search_dashboards_json(c):
    items = []
    for i in range(R.randrange(2, 5)):
        title = pick(['Node Exporter Full', f'{c.proj} overview', 'Postgres', 'Kubernetes / Pods', 'SLOs', 'Ingress NGINX'])
        uid = rs(ALNUM, pick([9, 14]))
        slug = title.lower().replace(' / ', '-').replace(' ', '-')
        fuid = rs(ALNUM + '-_', 14)
        items.append({'id': R.randrange(1, 400), 'uid': uid, 'title': title, 'uri': f'db/{slug}',
                      'url': f'/d/{uid}/{slug}', 'slug': '', 'type': 'dash-db', 'tags': [pick(['prod', 'infra', 'team-core'])],
                      'isStarred': pick([True, False]), 'folderId': R.randrange(1, 60), 'folderUid': fuid,
                      'folderTitle': pick(['Infrastructure', 'Services', 'General']), 'folderUrl': f'/dashboards/f/{fuid}/'})
    return sh(c, f'curl -s -H "Authorization: Bearer $GRAFANA_TOKEN" "https://grafana.{c.domain}/api/search?type=dash-db" | jq', jdump(items))


def n_code_server_hashed_password(c):
    h = argon2('argon2i', 4096, 3, 1)
    body = f'''bind-addr: 0.0.0.0:8443
auth: password
hashed-password: "{h}"
cert: /etc/ssl/code-server/fullchain.pem
cert-key: /etc/ssl/code-server/privkey.pem'''
    blocks = [sh(c, 'cat ~/.config/code-server/config.yaml', body)]
    if R.random() < 0.5:
        blocks.append(sh(c, f'journalctl -u code-server@{c.uid} -n 3 -o cat',
                         f'[{iso(tick_ms(c), 3)}] info  HTTP server listening on https://0.0.0.0:8443/\n[{iso(tick_ms(c), 3)}] info    - Authentication is enabled\n[{iso(tick_ms(c), 3)}] info      - Using hashed-password from {c.home}/.config/code-server/config.yaml'))
    return join(c, blocks)


def n_jupyter_server_config_hashed(c):
    h = 'argon2:' + argon2('argon2id', 10240, 10, 8)
    path = f'{c.home}/.jupyter/jupyter_server_config.json'
    blocks = [sh(c, 'jupyter server password', f'Enter password: \nVerify password: \n[JupyterPasswordApp] Wrote hashed password to {path}'),
              sh(c, 'cat ~/.jupyter/jupyter_server_config.json', jdump({'IdentityProvider': {'hashed_password': h},
                                                                         'ServerApp': {'ip': '0.0.0.0', 'open_browser': False, 'port': 8888}}))]
    return join(c, blocks)


def n_hf_scan_cache_table(c):
    repos = [('BAAI/bge-small-en-v1.5', 'model', '133.5M', 13), ('sentence-transformers/all-MiniLM-L6-v2', 'model', '91.6M', 11),
             ('openai/whisper-small', 'model', '967.0M', 9), ('mistralai/Mistral-7B-Instruct-v0.3', 'model', '14.5G', 7),
             ('squad', 'dataset', '89.1M', 5), ('google/flan-t5-base', 'model', '990.3M', 10)]
    R.shuffle(repos)
    rows = [['REPO ID', 'REPO TYPE', 'REVISION', 'SIZE ON DISK', 'NB FILES', 'LAST_MODIFIED', 'REFS', 'LOCAL PATH']]
    for rid, typ, size, nf in repos[:R.randrange(3, 6)]:
        rev = hexs(40)
        rows.append([rid, typ, rev, size.rjust(12), str(nf), pick(['2 days ago', '3 weeks ago', '5 months ago']), 'main',
                     f'{c.home}/.cache/huggingface/hub/{typ}s--{rid.replace("/", "--")}/snapshots/{rev}'])
    tbl = cols_table(rows, gap=1, header_rule='-')
    tbl += f'\n\nDone in 0.0s. Scanned {len(rows) - 1} repo(s) for a total of {R.randrange(2, 30)}.{R.randrange(0, 9)}G.'
    return sh(c, 'huggingface-cli scan-cache -v', tbl)


def n_databricks_jobs_runs_json(c):
    ws = R.randrange(10**15, 10**16)
    jid = R.randrange(10**13, 10**15)
    runs = []
    for _ in range(2):
        rid = R.randrange(10**14, 10**15)
        st = epoch(tick(c, 600, 7200)) * 1000
        runs.append({'job_id': jid, 'run_id': rid, 'number_in_job': rid, 'creator_user_name': c.email,
                     'state': {'life_cycle_state': 'TERMINATED', 'result_state': pick(['SUCCESS', 'SUCCESS', 'FAILED']), 'state_message': ''},
                     'cluster_instance': {'cluster_id': f'{c.t.month:02d}{c.t.day:02d}-{hms(c.t).replace(":", "")}-{rs(LOWER + DIGITS, 8)}',
                                          'spark_context_id': str(R.randrange(10**18, 9 * 10**18))},
                     'start_time': st, 'setup_duration': R.randrange(1000, 300000), 'execution_duration': R.randrange(10000, 900000),
                     'run_page_url': f'https://adb-{ws}.{R.randrange(1, 20)}.azuredatabricks.net/?o={ws}#job/{jid}/run/{rid}',
                     'run_type': 'JOB_RUN', 'format': 'MULTI_TASK'})
    return sh(c, f'databricks jobs list-runs --job-id {jid} --output json | jq \'.[0:2]\'', jdump(runs))


def n_twilio_messages_list_sids(c):
    rows = [['SID', 'From', 'To', 'Status', 'Direction', 'Date Sent']]
    frm = '+1' + str(R.randrange(2000000000, 9999999999))
    for _ in range(R.randrange(3, 6)):
        tt = tick(c, 30, 4000)
        rows.append(['SM' + hexs(32), frm, '+' + str(R.randrange(10**10, 10**12)), pick(['delivered', 'sent', 'undelivered']),
                     'outbound-api', f'{MON[tt.month - 1]} {tt.day:02d} {tt.year} {hms(tt)} GMT+0000'])
    prof = cols_table([['ID', 'Account SID', 'Active'], [c.proj, 'AC' + hexs(32), 'true']], gap=3)
    return join(c, [sh(c, 'twilio profiles:list', prof), sh(c, 'twilio api:core:messages:list --limit 5', cols_table(rows, gap=2))])


def n_telegram_getupdates_file_ids(c):
    uid = R.randrange(10**8, 7 * 10**9)
    mid = R.randrange(100, 90000)
    fid = 'AgACAgQAAxkBAAI' + rs(B64U, 20) + 'AAH' + rs(B64U, 40) + 'AQADAgADeQADNAQ'
    photos = []
    for w, h, sz in [(90, 67, 1240), (320, 240, 18211), (800, 600, 71633)]:
        photos.append({'file_id': 'AgACAgQAAxkBAAI' + rs(B64U, 20) + 'AAH' + rs(B64U, 40) + 'AQADAgADbQADNAQ',
                       'file_unique_id': 'AQAD' + rs(B64U, 12), 'file_size': sz + R.randrange(0, 900), 'width': w, 'height': h})
    upd = {'update_id': R.randrange(10**8, 9 * 10**8),
           'message': {'message_id': mid, 'from': {'id': uid, 'is_bot': False, 'first_name': c.first.capitalize(), 'username': c.uid.replace('.', '_'), 'language_code': 'en'},
                       'chat': {'id': uid, 'first_name': c.first.capitalize(), 'username': c.uid.replace('.', '_'), 'type': 'private'},
                       'date': epoch(c.t), 'photo': photos, 'caption': 'receipt'}}
    return sh(c, 'curl -s "https://api.telegram.org/bot$BOT_TOKEN/getUpdates" | jq \'.result[-1]\'', jdump(upd))


def n_discord_py_startup_log(c):
    def ts():
        tt = tick(c, 0, 2)
        return f'{ymd(tt)} {hms(tt)}'
    bid = R.randrange(10**17, 1.3 * 10**18) if False else R.randrange(10**17, 13 * 10**17)
    gid = R.randrange(10**17, 13 * 10**17)
    name = pick(['orders-bot', 'release-notifier', 'modbot', f'{c.proj}-bot'])
    lines = [f'{ts()} INFO     discord.client logging in using static token',
             f'{ts()} INFO     discord.gateway Shard ID None has connected to Gateway (Session ID: {hexs(32)}).',
             f'Logged in as {name}#{R.randrange(1000, 9999)} (ID: {bid})',
             f'Synced {R.randrange(2, 15)} command(s) to guild {gid}',
             f'{ts()} INFO     {c.projn}.cogs.alerts Listening on channel {R.randrange(10**17, 13 * 10**17)}']
    return sh(c, f'docker logs --tail 5 {name}', '\n'.join(lines))


def n_email_api_send_responses(c):
    v = c.k % 3
    to = f'{pick(FIRST)}@example.org'
    if v == 0:
        out = jdump({'To': to, 'SubmittedAt': iso(c.t, 7, '-04:00'), 'MessageID': uuid4(), 'ErrorCode': 0, 'Message': 'OK'})
        cmd = (f'curl -s https://api.postmarkapp.com/email -H "Accept: application/json" -H "Content-Type: application/json" '
               f'-H "X-Postmark-Server-Token: $POSTMARK_SERVER_TOKEN" -d @fixtures/welcome.json | jq')
    elif v == 1:
        out = jdump({'id': f'<{ymd(c.t).replace("-", "")}{hms(c.t).replace(":", "")}.{hexs(16)}@mg.{c.domain}>', 'message': 'Queued. Thank you.'})
        cmd = f'curl -s --user "api:$MAILGUN_API_KEY" https://api.mailgun.net/v3/mg.{c.domain}/messages -F from="noreply@{c.domain}" -F to={to} -F subject=test -F text=hello | jq'
    else:
        out = f'''HTTP/2 202 
server: nginx
date: {http_date(c.t)}
content-length: 0
x-message-id: {rs(B64U, 22)}
access-control-allow-origin: https://sendgrid.api-docs.io
access-control-allow-methods: POST
access-control-allow-headers: Authorization, Content-Type, On-behalf-of, x-sg-elas-acl
access-control-max-age: 600
x-no-cors-reason: https://sendgrid.com/docs/Classroom/Basics/API/cors.html
strict-transport-security: max-age=600; includeSubDomains'''
        cmd = 'curl -si https://api.sendgrid.com/v3/mail/send -H "Authorization: Bearer $SENDGRID_API_KEY" -H "Content-Type: application/json" -d @mail.json'
    return sh(c, cmd, out)


def n_algolia_instantsearch_frontend(c):
    app, key = rs(UPPER + DIGITS, 10), hexs(32)
    f1 = pick(['src/lib/search.ts', 'src/search/client.js'])
    lines = [f'.env.production:3:NEXT_PUBLIC_ALGOLIA_APP_ID={app}',
             f'.env.production:4:NEXT_PUBLIC_ALGOLIA_SEARCH_ONLY_API_KEY={key}',
             f"{f1}:1:import {{ liteClient as algoliasearch }} from 'algoliasearch/lite';",
             f'{f1}:4:// search-only key: safe to ship to the browser (ACL: search)',
             f'{f1}:5:export const searchClient = algoliasearch(process.env.NEXT_PUBLIC_ALGOLIA_APP_ID!, process.env.NEXT_PUBLIC_ALGOLIA_SEARCH_ONLY_API_KEY!);',
             f"src/components/Search.tsx:{R.randrange(10, 40)}:    <InstantSearch searchClient={{searchClient}} indexName=\"prod_products\" insights>"]
    return sh(c, 'rg -n "ALGOLIA|algoliasearch|searchClient" --hidden -g "!node_modules"', '\n'.join(lines))


def n_web_map_public_tokens(c):
    pk = mapbox_token('pk', c.uid.replace('.', ''))
    gk = 'AIzaSy' + rs(B64U, 33)
    content = f'''import mapboxgl from 'mapbox-gl';

// public token, URL-restricted to *.{c.domain} in the Mapbox dashboard
mapboxgl.accessToken = '{pk}';

export function initMap(el) {{
  return new mapboxgl.Map({{
    container: el,
    style: 'mapbox://styles/{c.uid.replace(".", "")}/cl{rs(LOWER + DIGITS, 23)}',
    center: [{R.randrange(-120, 30)}.{R.randrange(0, 9999)}, {R.randrange(30, 60)}.{R.randrange(0, 9999)}],
    zoom: 11,
  }});
}}'''
    html = f'''    <script async
      src="https://maps.googleapis.com/maps/api/js?key={gk}&loading=async&callback=initMap&libraries=places&v=weekly">
    </script>'''
    return join(c, [view(c, 'src/map/mapbox.js', content, how=pick(['cat', 'read'])),
                    sh(c, 'grep -n -A2 "maps.googleapis" public/index.html', '\n'.join(f'{i}:{x}' if i == 31 else f'{i}-{x}' for i, x in zip(range(30, 34), html.split('\n'))))])


def n_clerk_publishable_next_public_env(c):
    fapi = f'clerk.{c.domain}'
    pk = 'pk_live_' + b64((fapi + '$').encode(), pad=False)
    content = f'''NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY={pk}
NEXT_PUBLIC_CLERK_SIGN_IN_URL=/sign-in
NEXT_PUBLIC_CLERK_SIGN_UP_URL=/sign-up
# CLERK_SECRET_KEY is set in Vercel (vercel env ls), never commit it
CLERK_SECRET_KEY=
NEXT_PUBLIC_POSTHOG_KEY=phc_{rs(ALNUM, 43)}
NEXT_PUBLIC_POSTHOG_HOST=https://eu.i.posthog.com
NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_51{rs(ALNUM, 97)}'''
    return view(c, '.env.production', content, how=pick(['cat', 'read', 'bat']))


def n_spa_auth_public_config(c):
    v = c.k % 3
    if v == 0:
        content = f'''export const auth0Config = {{
  domain: '{c.orgn[:10]}.{pick(["eu", "us"])}.auth0.com',
  clientId: '{rs(ALNUM, 32)}',
  authorizationParams: {{
    redirect_uri: window.location.origin,
    audience: 'https://api.{c.domain}',
    scope: 'openid profile email offline_access',
  }},
  cacheLocation: 'memory',
}};'''
    elif v == 1:
        content = f'''export const msalConfig = {{
  auth: {{
    clientId: '{uuid4()}',
    authority: 'https://login.microsoftonline.com/{uuid4()}',
    redirectUri: '/auth/callback',
  }},
  cache: {{ cacheLocation: 'sessionStorage' }},
}};

export const loginRequest = {{ scopes: ['api://{uuid4()}/access_as_user'] }};'''
    else:
        content = f'''export const amplifyConfig = {{
  Auth: {{
    Cognito: {{
      userPoolId: '{c.region}_{rs(ALNUM, 9)}',
      userPoolClientId: '{rs(LOWER + DIGITS, 26)}',
      identityPoolId: '{c.region}:{uuid4()}',
      loginWith: {{ oauth: {{ domain: '{c.proj}-{c.orgn[:8]}.auth.{c.region}.amazoncognito.com', scopes: ['openid', 'email'], redirectSignIn: ['https://app.{c.domain}/'], redirectSignOut: ['https://app.{c.domain}/'], responseType: 'code' }} }},
    }},
  }},
}};'''
    return view(c, pick(['src/authConfig.ts', 'src/config/auth.ts']), content, how=pick(['cat', 'read', 'cat_n']))


def n_supabase_js_anon_client(c):
    ref = rs(LOWER, 20)
    anon = supabase_jwt(ref, 'anon', c.t)
    content = f'''import {{ createClient }} from '@supabase/supabase-js'

// The anon key is public: row level security decides what it can read.
const supabaseUrl = 'https://{ref}.supabase.co'
const supabaseAnonKey = '{anon}'

export const supabase = createClient(supabaseUrl, supabaseAnonKey, {{
  auth: {{ persistSession: true, autoRefreshToken: true }},
}})'''
    return view(c, 'src/lib/supabase.ts', content, how=pick(['cat', 'read', 'cat_n', 'bat']))


def n_az_storage_blob_list_etags(c):
    acct = (c.orgn[:10] + 'exports' + str(R.randrange(1, 9))).lower()
    items = []
    for _ in range(R.randrange(2, 5)):
        tt = tick(c, 60, 86400)
        items.append({'name': f'{ymd(tt)}/{pick(["orders", "invoices", "events"])}-{hexs(8)}.parquet',
                      'etag': '"0x8DC' + rs(HEXU, 12) + '"', 'md5': b64(rbytes(16)),
                      'lastModified': iso(tt, 0, '+00:00'), 'size': R.randrange(10**4, 10**8)})
    cmd = (f'az storage blob list --account-name {acct} --container-name exports --auth-mode login '
           f'--query "[].{{name:name, etag:properties.etag, md5:properties.contentSettings.contentMd5, lastModified:properties.lastModified, size:properties.contentLength}}" -o json')
    return sh(c, cmd, jdump(items))


def n_gcloud_sa_keys_list(c):
    proj = f'{c.proj}-prod-{R.randrange(100, 999)}'
    sa = f'deployer@{proj}.iam.gserviceaccount.com'
    rows = [['KEY_ID', 'CREATED_AT', 'EXPIRES_AT', 'DISABLED']]
    for i in range(R.randrange(2, 4)):
        tt = c.t - datetime.timedelta(days=R.randrange(1, 500))
        rows.append([hexs(40), iso(tt), '9999-12-31T23:59:59Z' if i else iso(tt + datetime.timedelta(days=3650)), pick(['', '', 'True'])])
    return sh(c, f'gcloud iam service-accounts keys list --iam-account={sa}', cols_table(rows, gap=2))


def randomart(fp):
    # OpenSSH's drunken-bishop walk over a 17x9 field.
    chars = ' .o+=*BOX@%&#/^'
    field = [[0] * 17 for _ in range(9)]
    x, y = 8, 4
    for byte in fp:
        for _ in range(4):
            x = min(16, max(0, x + (1 if byte & 1 else -1)))
            y = min(8, max(0, y + (1 if byte & 2 else -1)))
            field[y][x] += 1
            byte >>= 2
    rows = []
    for j in range(9):
        row = ''
        for i in range(17):
            if (i, j) == (8, 4):
                row += 'S'
            elif (i, j) == (x, y):
                row += 'E'
            else:
                row += chars[min(field[j][i], len(chars) - 1)]
        rows.append('|' + row + '|')
    return rows


def n_ssh_keygen_generation_output(c):
    comment = f'{c.uid}@{c.host}'
    fn = pick(['id_ed25519_deploy', 'id_ed25519', f'{c.proj}_deploy'])
    art = randomart(rbytes(32))
    out = f'''Generating public/private ed25519 key pair.
Your identification has been saved in {c.home}/.ssh/{fn}
Your public key has been saved in {c.home}/.ssh/{fn}.pub
The key fingerprint is:
{sha256_fp()} {comment}
The key's randomart image is:
+--[ED25519 256]--+
''' + '\n'.join(art) + '\n+----[SHA256]-----+'
    return join(c, [sh(c, f'ssh-keygen -t ed25519 -C "{comment}" -f ~/.ssh/{fn} -N ""', out),
                    sh(c, f'cat ~/.ssh/{fn}.pub', f'{ssh_ed25519_pub()} {comment}')])


def n_openvpn_client_log(c):
    srv = f'203.0.113.{R.randrange(2, 250)}'
    port = pick([1194, 443])
    def ts():
        tt = tick(c, 0, 1)
        return f'{ymd(tt)} {hms(tt)}'
    lines = [f'{ts()} OpenVPN 2.6.{R.randrange(3, 12)} x86_64-pc-linux-gnu [SSL (OpenSSL)] [LZO] [LZ4] [EPOLL] [PKCS11] [MH/PKTINFO] [AEAD] [DCO]',
             f'{ts()} library versions: OpenSSL 3.0.13 30 Jan 2024, LZO 2.10',
             f'{ts()} TCP/UDP: Preserving recently used remote address: [AF_INET]{srv}:{port}',
             f'{ts()} UDPv4 link local: (not bound)',
             f'{ts()} UDPv4 link remote: [AF_INET]{srv}:{port}',
             f'{ts()} TLS: Initial packet from [AF_INET]{srv}:{port}, sid={hexs(8)} {hexs(8)}',
             f'{ts()} VERIFY OK: depth=1, CN={pick(["Easy-RSA CA", c.org + " VPN CA"])}',
             f'{ts()} VERIFY KU OK', f'{ts()} Validating certificate extended key usage',
             f'{ts()} ++ Certificate has EKU (str) TLS Web Server Authentication, expects TLS Web Server Authentication',
             f'{ts()} VERIFY EKU OK', f'{ts()} VERIFY OK: depth=0, CN=server',
             f'{ts()} Control Channel: TLSv1.3, cipher TLSv1.3 TLS_AES_256_GCM_SHA384, peer certificate: 2048 bits RSA, signature: RSA-SHA256',
             f'{ts()} [server] Peer Connection Initiated with [AF_INET]{srv}:{port}',
             f"{ts()} PUSH: Received control message: 'PUSH_REPLY,route-gateway 10.8.0.1,topology subnet,ping 10,ping-restart 120,ifconfig 10.8.0.{R.randrange(2, 250)} 255.255.255.0,peer-id {R.randrange(0, 9)},cipher AES-256-GCM,protocol-flags cc-exit tls-ekm dyn-tls-crypt,tun-mtu 1500'",
             f"{ts()} Data Channel: cipher 'AES-256-GCM', peer-id: {R.randrange(0, 9)}",
             f'{ts()} net_iface_up: set tun0 up', f'{ts()} Initialization Sequence Completed']
    return sh(c, f'sudo journalctl -u openvpn-client@{pick(["office", "prod"])} -o cat -n 18', '\n'.join(lines))


def n_pgbouncer_userlist_scram(c):
    def scram():
        return f'SCRAM-SHA-256$4096:{b64(rbytes(16))}${b64(rbytes(32))}:{b64(rbytes(32))}'
    users = [c.projn, 'reporting', 'pgbouncer', 'migrator']
    rows = [f'"{u}" "{scram() if R.random() < 0.7 else "md5" + hexs(32)}"' for u in users[:R.randrange(2, 5)]]
    pools = cols_table([[' database', 'user', 'cl_active', 'cl_waiting', 'sv_active', 'sv_idle', 'sv_used', 'maxwait', 'pool_mode'],
                        [f' {c.projn}', c.projn, str(R.randrange(1, 40)), '0', str(R.randrange(0, 10)), str(R.randrange(0, 20)), '0', '0', 'transaction'],
                        [' pgbouncer', 'pgbouncer', '1', '0', '0', '0', '0', '0', 'statement']], gap=1)
    return join(c, [sh(c, 'sudo cat /etc/pgbouncer/userlist.txt', '\n'.join(rows)),
                    sh(c, "psql -h 127.0.0.1 -p 6432 -U pgbouncer pgbouncer -c 'SHOW POOLS;'", pools + '\n(2 rows)')])


def n_powershell_securestring_export(c):
    blob = '01000000d08c9ddf0115d1118c7a00c04fc297eb01000000' + hexs(R.randrange(400, 520))
    p = f'PS C:\\ops\\{c.proj}> '
    return (f'{p}Read-Host -AsSecureString "Password" | ConvertFrom-SecureString | Set-Content .\\svc.cred\n'
            f'Password: {"*" * R.randrange(10, 20)}\n{p}Get-Content .\\svc.cred\n{blob}\n'
            f'{p}$cred = New-Object PSCredential("{c.org.split("-")[0].upper()}\\svc_backup", (Get-Content .\\svc.cred | ConvertTo-SecureString))')


def n_mosquitto_password_file_hashes(c):
    users = [pick(['sensor-gw', 'node-red', 'ha-bridge']), pick(['telegraf', 'zigbee2mqtt', c.uid])]
    lines = [f'{u}:$7$101${b64(rbytes(12))}${b64(rbytes(64))}' for u in users]
    return join(c, [sh(c, f'sudo mosquitto_passwd /etc/mosquitto/passwd {users[1]}', 'Password: \nReenter password: '),
                    sh(c, 'sudo cat /etc/mosquitto/passwd', '\n'.join(lines))])


def n_django_check_deploy_warnings(c):
    out = '''System check identified some issues:

WARNINGS:
?: (security.W004) You have not set a value for the SECURE_HSTS_SECONDS setting. If your entire site is served only over SSL, you may want to consider setting a value and enabling HTTP Strict Transport Security. Be sure to read the documentation first; enabling HSTS carelessly can cause serious, irreversible problems.
?: (security.W008) Your SECURE_SSL_REDIRECT setting is not set to True. Unless your site should be available over both SSL and non-SSL connections, you may want to either set this setting True or configure a load balancer or reverse-proxy server to redirect all connections to HTTPS.
?: (security.W009) Your SECRET_KEY has less than 50 characters, less than 5 unique characters, or it's prefixed with 'django-insecure-' indicating that it was generated automatically by Django. Please generate a long and random value, otherwise many of Django's security-critical features will be vulnerable to attack.
?: (security.W012) SESSION_COOKIE_SECURE is not set to True. Using a secure-only session cookie makes it more difficult for network traffic sniffers to hijack user sessions.
?: (security.W016) You have 'django.middleware.csrf.CsrfViewMiddleware' in your MIDDLEWARE, but you have not set CSRF_COOKIE_SECURE to True. Using a secure-only CSRF cookie makes it more difficult for network traffic sniffers to steal the CSRF token.

System check identified 5 issues (0 silenced).'''
    return sh(c, pick(['python manage.py check --deploy', 'DJANGO_SETTINGS_MODULE=config.settings.staging python manage.py check --deploy']), out)


def n_wp_users_password_hashes(c):
    rows = []
    for i, u in enumerate(['admin', 'editor', c.uid.replace('.', ''), 'shopmanager'][:R.randrange(2, 5)], 1):
        h = '$P$B' + rs(CRYPT, 30) if R.random() < 0.5 else '$wp' + bcrypt('2y', 10)
        tt = c.t - datetime.timedelta(days=R.randrange(10, 900))
        rows.append((str(i), u, h, f'{ymd(tt)} {hms(tt)}'))
    hdr = ('ID', 'user_login', 'user_pass', 'user_registered')
    ws = [max(len(r[j]) for r in rows + [hdr]) for j in range(4)]
    sep = '+' + '+'.join('-' * (w + 2) for w in ws) + '+'
    fmt = lambda r: '| ' + ' | '.join(r[j].rjust(ws[j]) if j == 0 else r[j].ljust(ws[j]) for j in range(4)) + ' |'
    out = '\n'.join([sep, fmt(hdr), sep] + [fmt(r) for r in rows] + [sep])
    return sh(c, 'wp db query "SELECT ID, user_login, user_pass, user_registered FROM wp_users"', out)


def n_wp_config_sample_placeholders(c):
    keys = ['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT']
    body = '''// ** Database settings - You can get this info from your web host ** //
/** The name of the database for WordPress */
define( 'DB_NAME', 'database_name_here' );

/** Database username */
define( 'DB_USER', 'username_here' );

/** Database password */
define( 'DB_PASSWORD', 'password_here' );

/** Database hostname */
define( 'DB_HOST', 'localhost' );

/** Database charset to use in creating database tables. */
define( 'DB_CHARSET', 'utf8' );

/**#@+
 * Authentication unique keys and salts.
 *
 * Change these to different unique phrases! You can generate these using
 * the {@link https://api.wordpress.org/secret-key/1.1/salt/ WordPress.org secret-key service}.
 *
 * @since 2.6.0
 */
''' + '\n'.join(f"define( '{k}',{' ' * (17 - len(k))}'put your unique phrase here' );" for k in keys) + '\n\n/**#@-*/'
    return view(c, 'wp-config-sample.php', body, how=pick(['sed', 'read', 'cat']))


def n_spring_boot_startup_info(c):
    app = c.proj
    cls = ''.join(p.capitalize() for p in app.split('-')) + 'Application'
    def ts():
        return iso(tick_ms(c, 3, 900), 3)
    def L(lvl, th, logger, msg):
        return f'{ts()}  {lvl} 1 --- [{app}] [{th.rjust(15)}] {logger.ljust(40)} : {msg}'
    banner = r'''
  .   ____          _            __ _ _
 /\\ / ___'_ __ _ _(_)_ __  __ _ \ \ \ \
( ( )\___ | '_ | '_| | '_ \/ _` | \ \ \ \
 \\/  ___)| |_)| | | | | || (_| |  ) ) ) )
  '  |____| .__|_| |_|_| |_\__, | / / / /
 =========|_|==============|___/=/_/_/_/
'''
    lines = [banner.strip('\n'), '', ' :: Spring Boot ::                (v3.2.5)', '',
             L('INFO', 'main', f'c.{c.orgn[:6]}.{cls}'[:40], f'Starting {cls} v1.{R.randrange(0, 20)}.{R.randrange(0, 9)} using Java 21.0.3 with PID 1 (/app/app.jar started by spring in /app)'),
             L('INFO', 'main', f'c.{c.orgn[:6]}.{cls}'[:40], 'The following 1 profile is active: "prod"'),
             L('INFO', 'main', 'o.s.b.w.embedded.tomcat.TomcatWebServer', 'Tomcat initialized with port 8080 (http)'),
             L('INFO', 'main', 'com.zaxxer.hikari.HikariDataSource', 'HikariPool-1 - Starting...'),
             L('INFO', 'main', 'com.zaxxer.hikari.pool.HikariPool', f'HikariPool-1 - Added connection org.postgresql.jdbc.PgConnection@{hexs(8)}'),
             L('INFO', 'main', 'com.zaxxer.hikari.HikariDataSource', 'HikariPool-1 - Start completed.'),
             L('INFO', 'main', 'o.f.c.i.s.JdbcTableSchemaHistory', 'Schema "public" is up to date. No migration necessary.'),
             L('INFO', 'main', 'o.s.b.w.embedded.tomcat.TomcatWebServer', "Tomcat started on port 8080 (http) with context path ''"),
             L('INFO', 'main', f'c.{c.orgn[:6]}.{cls}'[:40], f'Started {cls} in {R.randrange(3, 20)}.{R.randrange(100, 999)} seconds (process running for {R.randrange(4, 22)}.{R.randrange(100, 999)})')]
    return sh(c, f'kubectl logs deploy/{app} -n {pick(["prod", app])} --tail=20', '\n'.join(lines))


def n_dotnet_user_jwts_list(c):
    proj = ''.join(p.capitalize() for p in c.proj.split('-'))
    rows = []
    for _ in range(R.randrange(1, 4)):
        tt = c.t - datetime.timedelta(days=R.randrange(0, 20))
        rows.append((hexs(8), 'Bearer', f'http://localhost:{R.randrange(5000, 5300)}', iso(tt, 7, '+00:00'),
                     iso(tt + datetime.timedelta(days=180), 7, '+00:00')))
    hdr = ('ID', 'Scheme Name', 'Audience', 'Issued On', 'Expires On')
    ws = [max(len(r[j]) for r in rows + [hdr]) for j in range(5)]
    line = lambda r: '| ' + ' | '.join(r[j].ljust(ws[j]) for j in range(5)) + ' |'
    rule = '-' * len(line(hdr))
    out = [f'Project: {c.home}/src/{proj}.Api/{proj}.Api.csproj', f"User Secrets ID: '{uuid4()}'", '', rule, line(hdr), rule] + [line(r) for r in rows] + [rule]
    return sh(c, 'dotnet user-jwts list', '\n'.join(out))


def n_dotnet_config_replace_tokens(c):
    body = f'''{{
  "ConnectionStrings": {{
    "Default": "Server=#{{SqlServer}}#;Database={c.projn};User Id=#{{SqlUser}}#;Password=#{{SqlPassword}}#;Encrypt=True;"
  }},
  "SendGrid": {{
    "ApiKey": "__SendGridApiKey__"
  }},
  "Stripe": {{
    "SecretKey": "#{{Stripe.SecretKey}}#",
    "WebhookSecret": "#{{Stripe.WebhookSecret}}#"
  }},
  "ApplicationInsights": {{
    "ConnectionString": "$(AppInsightsConnectionString)"
  }},
  "Logging": {{
    "LogLevel": {{
      "Default": "Information",
      "Microsoft.AspNetCore": "Warning"
    }}
  }}
}}'''
    return view(c, 'src/Api/appsettings.Production.json', body, how=pick(['cat', 'read', 'cat_n']))


def n_appservice_keyvault_references(c):
    kv = f'kv-{c.proj[:10]}-prod'
    rows = [['Name', 'Value', 'SlotSetting'], ['-' * 10, '-' * 10, '-' * 11],
            ['ConnectionStrings__Default', f'@Microsoft.KeyVault(SecretUri=https://{kv}.vault.azure.net/secrets/db-conn/{hexs(32)})', 'False'],
            ['Stripe__SecretKey', f'@Microsoft.KeyVault(VaultName={kv};SecretName=stripe-secret-key)', 'False'],
            ['APPLICATIONINSIGHTS_CONNECTION_STRING', f'InstrumentationKey={uuid4()};IngestionEndpoint=https://{c.azregion}-5.in.applicationinsights.azure.com/;LiveEndpoint=https://{c.azregion}.livediagnostics.monitor.azure.com/;ApplicationId={uuid4()}', 'False'],
            ['WEBSITE_RUN_FROM_PACKAGE', '1', 'False'], ['ASPNETCORE_ENVIRONMENT', 'Production', 'True']]
    tbl = cols_table(rows, gap=2)
    tl = tbl.split('\n')
    ws = [max(vis(r[i]) for r in rows) for i in range(3)]
    tl[1] = '  '.join('-' * w for w in ws)
    return sh(c, f'az webapp config appsettings list -n app-{c.proj}-prod -g rg-{c.proj}-prod -o table', '\n'.join(tl))


def n_checkov_secrets_findings(c):
    rid1, rid2 = hexs(40), hexs(40)
    l1, l2 = R.randrange(5, 60), R.randrange(5, 90)
    out = f'''secrets scan results:

Passed checks: 0, Failed checks: 2, Skipped checks: 0

Check: CKV_SECRET_6: "Base64 High Entropy String"
	FAILED for resource: {rid1}
	File: /config/settings/production.py:{l1}-{l1 + 1}
	Guide: https://docs.prismacloud.io/en/enterprise-edition/policy-reference/secrets-policies/secrets-policy-index/git-secrets-6

		{l1} | SECRET_KEY = "dj**********"

Check: CKV_SECRET_4: "Basic Auth Credentials"
	FAILED for resource: {rid2}
	File: /deploy/values.yaml:{l2}-{l2 + 1}
	Guide: https://docs.prismacloud.io/en/enterprise-edition/policy-reference/secrets-policies/secrets-policy-index/git-secrets-4

		{l2} |     url: https://deploy:**********@registry.{c.domain}
'''
    return sh(c, 'checkov -d . --framework secrets --compact', out, code=1)


def n_kubectl_auth_whoami(c):
    ns, sa = pick([('ci', 'deployer'), (c.proj, 'runner'), ('argocd', 'argocd-application-controller')])
    node = f'ip-10-{R.randrange(0, 40)}-{R.randrange(0, 255)}-{R.randrange(2, 250)}.{c.region}.compute.internal'
    rows = [['ATTRIBUTE', 'VALUE'], ['Username', f'system:serviceaccount:{ns}:{sa}'], ['UID', uuid4()],
            ['Groups', f'[system:serviceaccounts system:serviceaccounts:{ns} system:authenticated]'],
            ['Extra: authentication.kubernetes.io/credential-id', f'[JTI={uuid4()}]'],
            ['Extra: authentication.kubernetes.io/node-name', f'[{node}]'],
            ['Extra: authentication.kubernetes.io/node-uid', f'[{uuid4()}]'],
            ['Extra: authentication.kubernetes.io/pod-name', f'[{sa}-{hexs(10)}-{rs(LOWER + DIGITS, 5)}]'],
            ['Extra: authentication.kubernetes.io/pod-uid', f'[{uuid4()}]']]
    return sh(c, 'kubectl auth whoami', cols_table(rows, gap=3))


def n_helm_manifest_checksum_annotations(c):
    rel = c.proj
    hist = [['REVISION', 'UPDATED', 'STATUS', 'CHART', 'APP VERSION', 'DESCRIPTION']]
    tt = c.t - datetime.timedelta(days=R.randrange(40, 90))
    for r in range(1, R.randrange(3, 6)):
        tt = later(tt, 3600, 86400 * 9)
        hist.append([str(r), f'{DOW[tt.weekday()]} {MON[tt.month - 1]} {tt.day:2d} {hms(tt)} {tt.year}', 'superseded', f'{rel}-0.{R.randrange(1, 30)}.{R.randrange(0, 9)}', f'1.{R.randrange(0, 20)}.0', 'Upgrade complete'])
    hist[-1][2] = 'deployed'
    grep = f'''{R.randrange(40, 90)}-      annotations:
{R.randrange(40, 90)}:        checksum/config: {hexs(64)}
{R.randrange(40, 90)}:        checksum/secret: {hexs(64)}
{R.randrange(40, 90)}-        kubectl.kubernetes.io/restartedAt: "{iso(c.t, 0, '+00:00')}"'''
    return join(c, [sh(c, f'helm history {rel} -n {rel}', cols_table(hist, gap=1)),
                    sh(c, f'helm get manifest {rel} -n {rel} | grep -n -B1 -A2 checksum/config', grep)])


def n_docker_trust_inspect(c):
    repo = f'registry.{c.domain}/{c.org}/{c.proj}'
    tag = f'{R.randrange(1, 4)}.{R.randrange(0, 20)}.{R.randrange(0, 9)}'
    out = f'''
Signatures for {repo}:{tag}

SIGNED TAG   DIGEST                                                             SIGNERS
{tag.ljust(12)} {hexs(64)}   ci-signer

List of signers and their keys for {repo}:{tag}

SIGNER      KEYS
ci-signer   {hexs(12)}

Administrative keys for {repo}:{tag}

  Repository Key:	{hexs(64)}
  Root Key:	{hexs(64)}'''
    return sh(c, f'docker trust inspect --pretty {repo}:{tag}', out)


def n_gitlab_deploy_tokens_list(c):
    items = []
    for _ in range(R.randrange(2, 4)):
        tid = R.randrange(2, 400)
        items.append({'id': tid, 'name': pick(['k8s-pull', 'argocd-read', 'registry-ro', 'backup-mirror']),
                      'username': f'gitlab+deploy-token-{tid}', 'expires_at': pick([None, f'{c.t.year + 1}-01-01T00:00:00.000Z']),
                      'revoked': pick([False, False, True]), 'expired': False, 'scopes': ['read_registry']})
    return sh(c, f'glab api projects/{c.org}%2F{c.proj}/deploy_tokens | jq', jdump(items))


def n_npm_token_list_table(c):
    rows = []
    for _ in range(R.randrange(2, 5)):
        tt = c.t - datetime.timedelta(days=R.randrange(1, 700))
        rows.append([hexs(6), 'npm_' + rs(ALNUM, 2) + '\u2026', ymd(tt), pick(['no', 'yes']), pick(['', '10.0.0.0/8'])])
    return sh(c, 'npm token list', box_table(rows, ['id', 'token', 'created', 'readonly', 'CIDR whitelist']))


def n_tfc_api_run_ids(c):
    ws = 'ws-' + rs(ALNUM, 16)
    out = []
    for _ in range(R.randrange(2, 4)):
        tt = tick(c, 300, 86400)
        out.append(jdump({'id': 'run-' + rs(ALNUM, 16), 'status': pick(['applied', 'planned_and_finished', 'errored', 'discarded']),
                          'created': iso(tt, 3), 'cv': 'cv-' + rs(ALNUM, 16)}))
    cmd = (f'curl -s --header "Authorization: Bearer $TFC_TOKEN" https://app.terraform.io/api/v2/workspaces/{ws}/runs '
           f'| jq \'.data[] | {{id, status: .attributes.status, created: .attributes["created-at"], cv: .relationships["configuration-version"].data.id}}\'')
    return sh(c, cmd, '\n'.join(out))


def n_pulumi_stack_yaml_encryptionsalt(c):
    salt = f'v1:{b64(rbytes(8))}:v1:{b64(rbytes(12))}:{b64(rbytes(32))}'
    body = f'''secretsprovider: passphrase
encryptionsalt: {salt}
config:
  aws:region: {c.region}
  {c.proj}:dbPassword:
    secure: v1:{b64(rbytes(12))}:{b64(rbytes(R.randrange(30, 50)))}
  {c.proj}:stripeKey:
    secure: v1:{b64(rbytes(12))}:{b64(rbytes(R.randrange(120, 140)))}
  {c.proj}:replicas: "3"
  {c.proj}:domain: {c.domain}'''
    return view(c, 'Pulumi.prod.yaml', body, how=pick(['cat', 'read']))


def n_jenkins_credentials_xml_encrypted(c):
    enc = lambda n: '{AQAAABAAAA' + pick(['AQ', 'Ag', 'Aw', 'BA']) + b64(rbytes(n))[2:] + '}'
    body = f'''<?xml version='1.1' encoding='UTF-8'?>
<com.cloudbees.plugins.credentials.SystemCredentialsProvider plugin="credentials@1337.v60b_d7b_c7b_c9f">
  <domainCredentialsMap class="hudson.util.CopyOnWriteMap$Hash">
    <entry>
      <com.cloudbees.plugins.credentials.domains.Domain>
        <specifications/>
      </com.cloudbees.plugins.credentials.domains.Domain>
      <java.util.concurrent.CopyOnWriteArrayList>
        <com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>
          <scope>GLOBAL</scope>
          <id>nexus-deploy</id>
          <description>Nexus deploy user</description>
          <username>deployer</username>
          <password>{enc(48)}</password>
          <usernameSecret>false</usernameSecret>
        </com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>
        <org.jenkinsci.plugins.plaincredentials.impl.StringCredentialsImpl>
          <scope>GLOBAL</scope>
          <id>slack-token</id>
          <description></description>
          <secret>{enc(96)}</secret>
        </org.jenkinsci.plugins.plaincredentials.impl.StringCredentialsImpl>
      </java.util.concurrent.CopyOnWriteArrayList>
    </entry>
  </domainCredentialsMap>
</com.cloudbees.plugins.credentials.SystemCredentialsProvider>'''
    return sh(c, 'sudo cat /var/lib/jenkins/credentials.xml', body)


def n_kafka_connect_config_provider_refs(c):
    name = pick(['orders-cdc', 'users-cdc', 'billing-cdc'])
    cfg = {'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'tasks.max': '1',
           'database.hostname': f'{c.projn.replace("_", "-")}-db.internal', 'database.port': '5432',
           'database.user': '${file:/opt/kafka/external-configuration/db-credentials/creds.properties:username}',
           'database.password': '${file:/opt/kafka/external-configuration/db-credentials/creds.properties:password}',
           'database.dbname': c.projn, 'topic.prefix': c.projn, 'plugin.name': 'pgoutput', 'name': name}
    status = {'name': name, 'connector': {'state': 'RUNNING', 'worker_id': f'{c.ip}:8083'},
              'tasks': [{'id': 0, 'state': 'RUNNING', 'worker_id': f'{c.ip}:8083'}], 'type': 'source'}
    return join(c, [sh(c, f'curl -s http://localhost:8083/connectors/{name}/config | jq', jdump(cfg)),
                    sh(c, f'curl -s http://localhost:8083/connectors/{name}/status | jq', jdump(status))])


def n_airflow_task_log_masked(c):
    dag = pick(['export_orders', 'daily_billing', 'sync_crm'])
    def ts():
        tt = tick(c, 0, 3)
        return f'[{ymd(tt)}, {hms(tt)} UTC]'
    run = f'scheduled__{ymd(c.t)}T{c.t.hour:02d}:00:00+00:00'
    lines = [f'{ts()} {{local_task_job_runner.py:123}} \u25bc Pre task execution logs',
             f'{ts()} {{taskinstance.py:2076}} INFO - Dependencies all met for dep_context=non-requeueable deps ti=<TaskInstance: {dag}.extract {run} [queued]>',
             f'{ts()} {{taskinstance.py:2306}} INFO - Starting attempt 1 of 3',
             f'{ts()} {{base.py:84}} INFO - Using connection ID \'postgres_dwh\' for task execution.',
             f"{ts()} {{subprocess.py:93}} INFO - + curl -sf -H 'Authorization: Bearer ***' https://api.{c.domain}/export?since={ymd(c.t)}",
             f'{ts()} {{logging_mixin.py:188}} INFO - Connecting to postgresql://etl:***@dwh.{c.domain}:5432/warehouse',
             f'{ts()} {{python.py:237}} INFO - Done. Returned value was: {R.randrange(100, 90000)}',
             f'{ts()} {{taskinstance.py:1138}} INFO - Marking task as SUCCESS. dag_id={dag}, task_id=extract, run_id={run}, execution_date={ymd(c.t).replace("-", "")}T{c.t.hour:02d}0000, start_date={ymd(c.t).replace("-", "")}T{hms(c.t).replace(":", "")}, end_date={ymd(c.t).replace("-", "")}T{hms(later(c.t)).replace(":", "")}',
             f'{ts()} {{local_task_job_runner.py:240}} INFO - Task exited with return code 0']
    return sh(c, f'cat logs/dag_id={dag}/run_id={run}/task_id=extract/attempt=1.log', '\n'.join(lines))


def n_mvn_effective_settings_masked(c):
    out = f'''[INFO] Scanning for projects...
[INFO] 
[INFO] -----------------------< com.{c.orgn[:10]}:{c.proj} >-----------------------
[INFO] Building {c.proj} 1.{R.randrange(0, 20)}.0-SNAPSHOT
[INFO]   from pom.xml
[INFO] --------------------------------[ jar ]---------------------------------
[INFO] 
[INFO] --- help:3.4.0:effective-settings (default-cli) @ {c.proj} ---
[INFO] 
Effective user-specific configuration settings:

<?xml version="1.0" encoding="UTF-8"?>
<!-- ====================================================================== -->
<!--                                                                        -->
<!-- Generated by Maven Help Plugin                                         -->
<!-- See: https://maven.apache.org/plugins/maven-help-plugin/               -->
<!--                                                                        -->
<!-- ====================================================================== -->
<settings xmlns="http://maven.apache.org/SETTINGS/1.2.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/SETTINGS/1.2.0 https://maven.apache.org/xsd/settings-1.2.0.xsd">
  <localRepository>{c.home}/.m2/repository</localRepository>
  <servers>
    <server>
      <username>deployer</username>
      <password>***</password>
      <id>nexus-releases</id>
    </server>
    <server>
      <username>deployer</username>
      <password>***</password>
      <id>nexus-snapshots</id>
    </server>
  </servers>
  <mirrors>
    <mirror>
      <mirrorOf>*</mirrorOf>
      <url>https://nexus.{c.domain}/repository/maven-public/</url>
      <id>nexus</id>
    </mirror>
  </mirrors>
</settings>

[INFO] ------------------------------------------------------------------------
[INFO] BUILD SUCCESS
[INFO] ------------------------------------------------------------------------
[INFO] Total time:  {R.randrange(0, 3)}.{R.randrange(100, 999)} s
[INFO] Finished at: {iso(c.t, 0, '+02:00')}
[INFO] ------------------------------------------------------------------------'''
    return sh(c, 'mvn -q help:effective-settings' if False else 'mvn help:effective-settings', out)


def n_git_crypt_status_xxd(c):
    files = ['config/secrets.prod.env', 'deploy/tls/server.key', 'terraform/prod.auto.tfvars']
    st = '\n'.join(f'    encrypted: {f}' for f in files) + '\nnot encrypted: README.md\nnot encrypted: config/app.yml'
    data = b'\x00GITCRYPT\x00' + rbytes(12 + 16 * 3)
    lines = []
    for off in range(0, 64, 16):
        chunk = data[off:off + 16]
        hx = ' '.join(chunk[i:i + 2].hex() for i in range(0, 16, 2))
        asc = ''.join(chr(b) if 32 <= b < 127 else '.' for b in chunk)
        lines.append(f'{off:08x}: {hx}  {asc}')
    return join(c, [sh(c, 'git-crypt status -e' if False else 'git-crypt status', st),
                    sh(c, 'git show HEAD:deploy/tls/server.key | xxd | head -n 4', '\n'.join(lines))])


def n_ldapsearch_ad_guids_sids(c):
    realm = c.domain.split('.')[0].upper()
    base = ','.join('DC=' + p for p in (realm.lower() + '.corp').split('.'))
    sid = b'\x01\x05\x00\x00\x00\x00\x00\x05\x15\x00\x00\x00' + rbytes(12) + struct.pack('<I', R.randrange(1100, 9000))
    who = pick(['svc_backup', 'svc_jenkins', c.uid.replace('.', '')])
    out = f'''SASL/GSSAPI authentication started
SASL username: {c.uid}@{realm}.CORP
SASL SSF: 256
SASL data security layer installed.
dn: CN={who},OU=Service Accounts,{base}
objectGUID:: {b64(rbytes(16))}
objectSid:: {b64(sid)}
whenCreated: {ymd(c.t).replace('-', '')}{hms(c.t).replace(':', '')}.0Z
pwdLastSet: {R.randrange(133000000000000000, 133700000000000000)}
userAccountControl: 66048
'''
    return sh(c, f'ldapsearch -LLL -Y GSSAPI -H ldap://dc01.{realm.lower()}.corp -b "{base}" "(sAMAccountName={who})" objectGUID objectSid whenCreated pwdLastSet userAccountControl', out)


def n_nmcli_connection_hidden_secrets(c):
    name = pick(['Office WiFi', 'eduroam', f'{c.org}-corp'])
    u = uuid4()
    rows = [('connection.id', name), ('connection.uuid', u), ('connection.stable-id', '--'),
            ('connection.type', '802-11-wireless'), ('connection.interface-name', '--'), ('connection.autoconnect', 'yes'),
            ('802-11-wireless.ssid', name), ('802-11-wireless.mode', 'infrastructure'),
            ('802-11-wireless.seen-bssids', ':'.join(rs(HEXU, 2) for _ in range(6))),
            ('802-11-wireless-security.key-mgmt', 'wpa-eap'), ('802-11-wireless-security.psk', '<hidden>'),
            ('802-1x.eap', 'peap'), ('802-1x.identity', c.email), ('802-1x.phase2-auth', 'mschapv2'),
            ('802-1x.password', '<hidden>'), ('802-1x.password-flags', '0 (none)'),
            ('GENERAL.DBUS-PATH', f'/org/freedesktop/NetworkManager/ActiveConnection/{R.randrange(1, 20)}'),
            ('GENERAL.CON-PATH', f'/org/freedesktop/NetworkManager/Settings/{R.randrange(1, 20)}')]
    out = '\n'.join(f'{k + ":":<40}{v}' for k, v in rows)
    return sh(c, f'nmcli connection show "{name}"', out)


def n_systemd_creds_encrypted_unit(c):
    name = pick(['db-password', 'smtp-pass', 'api-token'])
    blob = 'Whxqht+dQJax1aZeCGLxmiAAAAABAAAADAAAABAAAAD' + b64(rbytes(R.randrange(150, 220)))
    body = '\n'.join('        ' + x for x in wrap(blob, 64))
    enc = f'SetCredentialEncrypted={name}: \\\n{body}'
    BULLET = '\u2022'
    return join(c, [sh(c, f'systemd-ask-password -n | sudo systemd-creds encrypt --name={name} -p - -',
                       '\U0001f510 Password: ' + BULLET * R.randrange(10, 20) + '\n' + enc),
                    sh(c, f'systemctl cat {c.proj}.service | grep -i credential',
                       f'LoadCredentialEncrypted={name}:/etc/credstore.encrypted/{name}\nEnvironment={name.upper().replace("-", "_")}_FILE=%d/{name}')])


def n_agenix_secrets_nix(c):
    k1, k2, k3 = ssh_ed25519_pub(), ssh_ed25519_pub(), ssh_ed25519_pub()
    host = pick(['web01', 'db01', 'builder'])
    body = f'''let
  {c.uid.replace('.', '')} = "{k1}";
  ci = "{k2}";
  users = [ {c.uid.replace('.', '')} ci ];

  {host} = "{k3}";
  systems = [ {host} ];
in
{{
  "secrets/db-password.age".publicKeys = users ++ systems;
  "secrets/stripe-key.age".publicKeys = users ++ [ {host} ];
}}'''
    hdr = f'''age-encryption.org/v1
-> ssh-ed25519 {b64(rbytes(4), pad=False)} {b64(rbytes(32), pad=False)}
{b64(rbytes(32), pad=False)}
-> ssh-ed25519 {b64(rbytes(4), pad=False)} {b64(rbytes(32), pad=False)}
{b64(rbytes(32), pad=False)}
--- {b64(rbytes(32), pad=False)}'''
    return join(c, [view(c, 'secrets/secrets.nix', body, how=pick(['cat', 'read'])),
                    sh(c, 'head -n 6 secrets/db-password.age', hdr)])


def n_armored_ciphertext_files(c):
    if c.k % 2 == 0:
        lines = wrap(b64(b'age-encryption.org/v1\n' + rbytes(R.randrange(300, 500))), 64)
        body = '\n'.join(['-----BEGIN AGE ENCRYPTED FILE-----'] + lines + ['-----END AGE ENCRYPTED FILE-----'])
        return sh(c, f'cat backups/{c.projn}-{ymd(c.t)}.sql.age', body)
    data = bytes.fromhex('850c03') + rbytes(R.randrange(400, 600))
    crc = b64(rbytes(3))
    body = '\n'.join(['-----BEGIN PGP MESSAGE-----', ''] + wrap(b64(data), 64) + ['=' + crc, '-----END PGP MESSAGE-----'])
    return sh(c, f'cat handover/{pick(["db-creds", "vpn-config", "notes"])}.txt.asc', body)


def n_ssh_keygen_L_certificate(c):
    serial = R.randrange(10**9, 10**13)
    v0 = c.t - datetime.timedelta(minutes=1)
    v1 = c.t + datetime.timedelta(hours=pick([8, 12, 16]))
    fmt = lambda t: f'{ymd(t)}T{hms(t)}'
    out = f'''{c.home}/.ssh/id_ed25519-cert.pub:
        Type: ssh-ed25519-cert-v01@openssh.com user certificate
        Public key: ED25519-CERT {sha256_fp()}
        Signing CA: ED25519 {sha256_fp()} (using ssh-ed25519)
        Key ID: "{c.email}"
        Serial: {serial}
        Valid: from {fmt(v0)} to {fmt(v1)}
        Principals: 
                {c.uid}
                deploy
        Critical Options: (none)
        Extensions: 
                permit-X11-forwarding
                permit-agent-forwarding
                permit-port-forwarding
                permit-pty
                permit-user-rc'''
    return sh(c, 'ssh-keygen -L -f ~/.ssh/id_ed25519-cert.pub', out)


def n_dig_dnskey_rrsig(c):
    zone = c.domain + '.'
    k1 = b64(rbytes(64))
    k2 = b64(rbytes(64))
    sig = b64(rbytes(64))
    tag1, tag2 = R.randrange(1000, 65000), R.randrange(1000, 65000)
    exp = c.t + datetime.timedelta(days=14)
    inc = c.t - datetime.timedelta(days=7)
    f = lambda t: f'{t.year:04d}{t.month:02d}{t.day:02d}{hms(t).replace(":", "")}'
    w = lambda s: '\n'.join('\t\t\t\t' + x for x in wrap(s, 44))
    out = f'''
; <<>> DiG 9.18.24 <<>> +dnssec +multi {c.domain} DNSKEY
;; global options: +cmd
;; Got answer:
;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: {R.randrange(1000, 65000)}
;; flags: qr rd ra ad; QUERY: 1, ANSWER: 3, AUTHORITY: 0, ADDITIONAL: 1

;; ANSWER SECTION:
{zone}		3600 IN DNSKEY 257 3 13 (
{w(k1)}
				) ; KSK; alg = ECDSAP256SHA256 ; key id = {tag1}
{zone}		3600 IN DNSKEY 256 3 13 (
{w(k2)}
				) ; ZSK; alg = ECDSAP256SHA256 ; key id = {tag2}
{zone}		3600 IN RRSIG DNSKEY 13 2 3600 (
				{f(exp)} {f(inc)} {tag1} {zone}
{w(sig)} )

;; Query time: {R.randrange(5, 90)} msec
;; SERVER: 1.1.1.1#53(1.1.1.1) (UDP)
;; WHEN: {DOW[c.t.weekday()]} {MON[c.t.month - 1]} {c.t.day:02d} {hms(c.t)} UTC {c.t.year}
;; MSG SIZE  rcvd: {R.randrange(300, 500)}'''
    return sh(c, f'dig +dnssec +multi {c.domain} DNSKEY', out)


def n_codesign_display_verbose(c):
    app = ''.join(p.capitalize() for p in c.proj.split('-'))
    team = rs(UPPER + DIGITS, 10)
    out = f'''Executable=/Users/{c.uid}/src/{app}/build/Release/{app}.app/Contents/MacOS/{app}
Identifier=com.{c.orgn[:12]}.{app.lower()}
Format=app bundle with Mach-O universal (x86_64 arm64)
CodeDirectory v=20500 size={R.randrange(1000, 9000)} flags=0x10000(runtime) hashes={R.randrange(20, 200)}+7 location=embedded
Hash type=sha256 size=32
CandidateCDHash sha256={hexs(40)}
CandidateCDHashFull sha256={hexs(64)}
Hash choices=sha256
CMSDigest={hexs(64)}
CMSDigestType=2
Executable Segment base=0
Executable Segment limit={R.randrange(16, 900) * 4096}
Executable Segment flags=0x1
Page size=4096
CDHash={hexs(40)}
Signature size={R.randrange(8900, 9200)}
Authority=Developer ID Application: {c.org.replace('-', ' ').title()} Ltd ({team})
Authority=Developer ID Certification Authority
Authority=Apple Root CA
Timestamp={c.t.day} {MON[c.t.month - 1]} {c.t.year} at {hms(c.t)}
Info.plist entries={R.randrange(18, 40)}
TeamIdentifier={team}
Runtime Version=14.{R.randrange(0, 5)}.0
Sealed Resources version=2 rules=13 files={R.randrange(10, 400)}
Internal requirements count=1 size={R.randrange(180, 260)}'''
    return sh(c, f'codesign -dvvv build/Release/{app}.app', out)


def n_mix_pubspec_resolved_locks(c):
    v = c.k % 5
    if v == 0:
        pk = [('phoenix', '1.7.14'), ('ecto_sql', '3.11.3'), ('jason', '1.4.4'), ('plug_cowboy', '2.7.1')]
        body = '%{\n' + '\n'.join(f'  "{n}": {{:hex, :{n}, "{ver}", "{hexs(64)}", [:mix], [], "hexpm", "{hexs(64)}"}},' for n, ver in pk) + '\n}'
        return view(c, 'mix.lock', body, how=pick(['cat', 'read']))
    if v == 1:
        pk = [('http', '1.2.1'), ('provider', '6.1.2'), ('intl', '0.19.0')]
        body = 'packages:\n' + '\n'.join(f'''  {n}:
    dependency: "direct main"
    description:
      name: {n}
      sha256: "{hexs(64)}"
      url: "https://pub.dev"
    source: hosted
    version: "{ver}"''' for n, ver in pk) + '\nsdks:\n  dart: ">=3.3.0 <4.0.0"'
        return view(c, 'pubspec.lock', body, how=pick(['sed', 'read', 'cat']))
    if v == 2:
        pins = [{'identity': n, 'kind': 'remoteSourceControl', 'location': f'https://github.com/{o}/{n}.git',
                 'state': {'revision': hexs(40), 'version': ver}} for o, n, ver in
                [('apple', 'swift-log', '1.5.4'), ('Alamofire', 'Alamofire', '5.9.1'), ('pointfreeco', 'swift-snapshot-testing', '1.16.0')]]
        return view(c, f'{c.proj}.xcworkspace/xcshareddata/swiftpm/Package.resolved', jdump({'originHash': hexs(64), 'pins': pins, 'version': 3}), how=pick(['cat', 'read']))
    if v == 3:
        remote = {f'https://deno.land/std@0.224.0/{p}': hexs(64) for p in ['assert/assert.ts', 'assert/equals.ts', 'fmt/colors.ts', 'path/join.ts']}
        return view(c, 'deno.lock', jdump({'version': '3', 'remote': remote}), how=pick(['cat', 'read']))
    pk = [('monolog/monolog', '3.6.0', 'Seldaek/monolog'), ('guzzlehttp/guzzle', '7.8.1', 'guzzle/guzzle')]
    items = [{'name': n, 'version': ver, 'source': {'type': 'git', 'url': f'https://github.com/{gh}.git', 'reference': hexs(40)},
              'dist': {'type': 'zip', 'url': f'https://api.github.com/repos/{gh}/zipball/{hexs(40)}', 'reference': hexs(40), 'shasum': ''}}
             for n, ver, gh in pk]
    return sh(c, "jq '.packages[0:2] | map({name, version, source, dist})' composer.lock", jdump(items))


def n_posthog_events_json(c):
    key = 'phc_' + rs(ALNUM, 43)
    out = []
    for _ in range(2):
        tt = tick(c, 1, 120)
        out.append(jdump({'uuid': uuid7(tt), 'event': pick(['$pageview', '$autocapture', 'checkout_started']),
                          'distinct_id': pick([uuid7(tt), c.email]),
                          'properties': {'$session_id': uuid7(tt), '$window_id': uuid7(tt), '$device_id': uuid7(tt),
                                         'token': key, '$lib': 'web', '$lib_version': f'1.{R.randrange(100, 200)}.{R.randrange(0, 9)}'},
                          'timestamp': iso(tt, 3, '+00:00')}))
    cmd = ('curl -s "https://eu.posthog.com/api/projects/' + str(R.randrange(1000, 90000)) + '/events/?limit=2" -H "Authorization: Bearer $POSTHOG_PERSONAL_API_KEY" '
           '| jq \'.results[] | {uuid, event, distinct_id, properties: {"$session_id": .properties["$session_id"], "$window_id": .properties["$window_id"], "$device_id": .properties["$device_id"], token: .properties.token, "$lib": .properties["$lib"], "$lib_version": .properties["$lib_version"]}, timestamp}\'')
    return sh(c, cmd, '\n'.join(out))


NEGATIVE = [
    ('traefik_basicauth_users', n_traefik_basicauth_users),
    ('mysql_config_editor_print', n_mysql_config_editor_print),
    ('kubectl_v8_masked_bearer', n_kubectl_v8_masked_bearer),
    ('vault_unseal_progress', n_vault_unseal_progress),
    ('vault_audit_log_hmac', n_vault_audit_log_hmac),
    ('vault_token_lookup_accessor', n_vault_token_lookup_accessor),
    ('nomad_acl_token_list', n_nomad_acl_token_list),
    ('consul_catalog_nodes_detailed', n_consul_catalog_nodes_detailed),
    ('influx_bucket_list_ids', n_influx_bucket_list_ids),
    ('grafana_search_dashboards_json', n_grafana_search_dashboards_json),
    ('code_server_hashed_password', n_code_server_hashed_password),
    ('jupyter_server_config_hashed', n_jupyter_server_config_hashed),
    ('hf_scan_cache_table', n_hf_scan_cache_table),
    ('databricks_jobs_runs_json', n_databricks_jobs_runs_json),
    ('twilio_messages_list_sids', n_twilio_messages_list_sids),
    ('telegram_getupdates_file_ids', n_telegram_getupdates_file_ids),
    ('discord_py_startup_log', n_discord_py_startup_log),
    ('email_api_send_responses', n_email_api_send_responses),
    ('algolia_instantsearch_frontend', n_algolia_instantsearch_frontend),
    ('web_map_public_tokens', n_web_map_public_tokens),
    ('clerk_publishable_next_public_env', n_clerk_publishable_next_public_env),
    ('spa_auth_public_config', n_spa_auth_public_config),
    ('supabase_js_anon_client', n_supabase_js_anon_client),
    ('az_storage_blob_list_etags', n_az_storage_blob_list_etags),
    ('gcloud_sa_keys_list', n_gcloud_sa_keys_list),
    ('ssh_keygen_generation_output', n_ssh_keygen_generation_output),
    ('openvpn_client_log', n_openvpn_client_log),
    ('pgbouncer_userlist_scram', n_pgbouncer_userlist_scram),
    ('powershell_securestring_export', n_powershell_securestring_export),
    ('mosquitto_password_file_hashes', n_mosquitto_password_file_hashes),
    ('django_check_deploy_warnings', n_django_check_deploy_warnings),
    ('wp_users_password_hashes', n_wp_users_password_hashes),
    ('wp_config_sample_placeholders', n_wp_config_sample_placeholders),
    ('spring_boot_startup_info', n_spring_boot_startup_info),
    ('dotnet_user_jwts_list', n_dotnet_user_jwts_list),
    ('dotnet_config_replace_tokens', n_dotnet_config_replace_tokens),
    ('appservice_keyvault_references', n_appservice_keyvault_references),
    ('checkov_secrets_findings', n_checkov_secrets_findings),
    ('kubectl_auth_whoami', n_kubectl_auth_whoami),
    ('helm_manifest_checksum_annotations', n_helm_manifest_checksum_annotations),
    ('docker_trust_inspect', n_docker_trust_inspect),
    ('gitlab_deploy_tokens_list', n_gitlab_deploy_tokens_list),
    ('npm_token_list_table', n_npm_token_list_table),
    ('tfc_api_run_ids', n_tfc_api_run_ids),
    ('pulumi_stack_yaml_encryptionsalt', n_pulumi_stack_yaml_encryptionsalt),
    ('jenkins_credentials_xml_encrypted', n_jenkins_credentials_xml_encrypted),
    ('kafka_connect_config_provider_refs', n_kafka_connect_config_provider_refs),
    ('airflow_task_log_masked', n_airflow_task_log_masked),
    ('mvn_effective_settings_masked', n_mvn_effective_settings_masked),
    ('git_crypt_status_xxd', n_git_crypt_status_xxd),
    ('ldapsearch_ad_guids_sids', n_ldapsearch_ad_guids_sids),
    ('nmcli_connection_hidden_secrets', n_nmcli_connection_hidden_secrets),
    ('systemd_creds_encrypted_unit', n_systemd_creds_encrypted_unit),
    ('agenix_secrets_nix', n_agenix_secrets_nix),
    ('armored_ciphertext_files', n_armored_ciphertext_files),
    ('ssh_keygen_L_certificate', n_ssh_keygen_L_certificate),
    ('dig_dnskey_rrsig', n_dig_dnskey_rrsig),
    ('codesign_display_verbose', n_codesign_display_verbose),
    ('mix_pubspec_resolved_locks', n_mix_pubspec_resolved_locks),
    ('posthog_events_json', n_posthog_events_json),
]


# ================================================================ checks and output

QUOTES = '"\'`'


def check(text, positive, where):
    if not positive:
        assert '\u00ab' not in text and '\u00bb' not in text, f'{where}: marks in a negative row'
        return 0
    spans, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == '\u00ab':
            assert depth == 0, f'{where}: nested mark'
            depth, start = 1, i + 1
        elif ch == '\u00bb':
            assert depth == 1, f'{where}: unbalanced mark'
            depth = 0
            spans.append(text[start:i])
    assert depth == 0, f'{where}: unclosed mark'
    assert spans, f'{where}: positive row without a mark'
    for s in spans:
        assert s, f'{where}: empty mark'
        assert s == s.strip(), f'{where}: outer whitespace in {s!r}'
        assert s[0] not in QUOTES and s[-1] not in QUOTES, f'{where}: quotes in {s!r}'
        assert not s.startswith(('Bearer ', 'Basic ', 'token ')), f'{where}: scheme word in {s!r}'
    rest = MARK_RE.sub('\x00', text)
    for s in spans:
        if len(s) >= 8:
            assert s not in rest, f'{where}: {s!r} also appears unmarked'
    return len(spans)


def main():
    names = [n for n, _ in POSITIVE] + [n for n, _ in NEGATIVE]
    assert len(POSITIVE) == 60 and len(NEGATIVE) == 60, (len(POSITIVE), len(NEGATIVE))
    assert len(names) == len(sorted(set(names))), 'duplicate template name'
    out, rid, nspans = [], 0, 0
    for positive, table in ((True, POSITIVE), (False, NEGATIVE)):
        for name, fn in table:
            for k in range(5):
                rid += 1
                c = new_ctx(k)
                text = fn(c)
                nspans += check(text, positive, f'{rid} {name}')
                out.append(json.dumps({'id': rid, 'template': name, 'positive': positive, 'text': text},
                                      ensure_ascii=False))
    assert rid == 600
    sys.stdout.buffer.write(('\n'.join(out) + '\n').encode('utf-8'))
    sys.stderr.write(f'rows={rid} positive={5 * len(POSITIVE)} spans={nspans}\n')


if __name__ == '__main__':
    main()
