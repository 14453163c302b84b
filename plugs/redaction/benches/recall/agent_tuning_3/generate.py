#!/usr/bin/env python3
"""Third tuning set for the secret-redaction detector (seed 8484).

Prints JSON lines: {"id", "template", "positive", "text"}.  Secrets in
positive rows are wrapped in U+00AB / U+00BB.  Standard library only, one
random.Random(8484), no hash()-dependent iteration: the output is the same
byte for byte whatever PYTHONHASHSEED is.

    python3 generate.py > rows.jsonl
"""
import base64
import datetime
import json
import random
import string
import struct
import sys
import zlib

R = random.Random(8484)
OPEN, CLOSE = '\u00ab', '\u00bb'


def M(s):
    """Mark a secret."""
    assert s and OPEN not in s and CLOSE not in s, s
    return OPEN + s + CLOSE


DIG = string.digits
LOW = string.ascii_lowercase
UP = string.ascii_uppercase
B62 = DIG + UP + LOW
ALNUM_LOW = DIG + LOW
ALNUM_UP = DIG + UP
HEX = '0123456789abcdef'
B64STD = UP + LOW + DIG + '+/'
B64URL = UP + LOW + DIG + '-_'
B32L = 'abcdefghijklmnopqrstuvwxyz234567'
B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
CRYPT64 = './' + DIG + UP + LOW
NIX32 = '0123456789abcdfghijklmnpqrsvwxyz'
BECH = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'


def pick(seq):
    return seq[R.randrange(len(seq))]


def chance(p=0.5):
    return R.random() < p


def ri(a, b):
    return R.randint(a, b)


def rs(n, alpha=B62):
    return ''.join(alpha[R.randrange(len(alpha))] for _ in range(n))


def hx(n):
    return rs(n, HEX)


def HX(n):
    return hx(n).upper()


def rb(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b64(n):
    return base64.b64encode(rb(n)).decode()


def b64u(n):
    return base64.urlsafe_b64encode(rb(n)).decode().rstrip('=')


def digits(n):
    return str(ri(1, 9)) + rs(n - 1, DIG)


def uuid4():
    h = list(hx(32))
    h[12] = '4'
    h[16] = pick('89ab')
    h = ''.join(h)
    return f'{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}'


def shuffled(seq):
    s = list(seq)
    R.shuffle(s)
    return s


def sample(seq, k):
    return R.sample(list(seq), k)


def colon_hex(nbytes, upper=True):
    s = [hx(2) for _ in range(nbytes)]
    s = ':'.join(s)
    return s.upper() if upper else s


EPOCH0 = 1704067200  # 2024-01-01T00:00:00Z


def rtime():
    return EPOCH0 + ri(0, 540 * 86400)


def dt(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc)


def iso(t, frac=0, z='Z'):
    s = dt(t).strftime('%Y-%m-%dT%H:%M:%S')
    if frac:
        s += '.' + rs(frac, DIG)
    return s + z


def fmt(t, f):
    return dt(t).strftime(f)


# ---------------------------------------------------------------- names

USERS = ['alice', 'bkumar', 'chen', 'dmitri', 'eve', 'fatima', 'gopal', 'hana',
         'ivan', 'jules', 'kofi', 'lena', 'mateo', 'nora', 'oskar', 'priya',
         'quinn', 'rafael', 'sana', 'tomas', 'uma', 'viktor', 'wen', 'yusuf',
         'zoe', 'marta', 'arjun', 'ines', 'kenji', 'olu']
FULLNAMES = ['Alice Moreau', 'Bharat Kumar', 'Chen Wei', 'Dmitri Volkov',
             'Eve Lindqvist', 'Fatima Haddad', 'Gopal Rao', 'Hana Sato',
             'Ivan Petrov', 'Jules Martin', 'Kofi Mensah', 'Lena Fischer',
             'Mateo Silva', 'Nora Berg', 'Oskar Nowak', 'Priya Shah',
             'Quinn Avery', 'Rafael Costa', 'Sana Mirza', 'Tomas Novak']
HOSTS = ['build-07', 'ip-10-0-3-41', 'web01', 'devbox', 'ci-runner-3', 'api-2',
         'bastion', 'worker-12', 'mbp-lena', 'gpu-node-2', 'stg-app-1', 'edge-04',
         'db-admin', 'runner-amd64-5', 'vm-ubuntu', 'ops-jump', 'node-b7',
         'laptop', 'k8s-ctl-1', 'fra1-app-3']
ORGS = ['acme', 'northwind', 'globex', 'initech', 'umbrella-labs', 'hooli',
        'piedpiper', 'vandelay', 'wayfarer', 'tessellate', 'brightloop',
        'kestrel', 'orbitly', 'fjordware', 'saltmarsh', 'quokka-io', 'lumenary',
        'redwoodhq', 'cobalt-dev', 'tinkerbay']
PROJECTS = ['billing', 'checkout', 'atlas', 'ledger', 'orbit', 'harbor', 'relay',
            'beacon', 'quarry', 'mosaic', 'tundra', 'lumen', 'pipeline', 'vault',
            'compass', 'signal', 'prism', 'ember', 'drift', 'cargo']
TLDS = ['io', 'com', 'dev', 'net', 'co', 'cloud', 'app']
WORDS = ['river', 'copper', 'lantern', 'meadow', 'falcon', 'pepper', 'harbor',
         'violet', 'glacier', 'cactus', 'marble', 'thunder', 'orchid', 'saddle',
         'pixel', 'walnut', 'ember', 'tundra', 'comet', 'velvet', 'quartz',
         'maple', 'anchor', 'breeze', 'canyon', 'dragon', 'eclipse', 'fossil',
         'garnet', 'hazel', 'island', 'jasper', 'kettle', 'lotus', 'mango',
         'nectar', 'otter', 'puzzle', 'quiver', 'raven', 'sierra', 'timber',
         'umber', 'vortex', 'willow', 'yonder', 'zephyr', 'bishop', 'cobalt',
         'dune', 'fable', 'gravel', 'hollow', 'indigo', 'juniper', 'kayak',
         'lilac', 'mosaic', 'nimbus', 'onyx', 'prairie', 'rocket', 'saffron']
REGIONS_AWS = ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-2']


class Ctx:
    def __init__(self):
        self.user = pick(USERS)
        self.host = pick(HOSTS)
        self.org = pick(ORGS)
        self.proj = pick(PROJECTS)
        self.tld = pick(TLDS)
        self.domain = f'{self.org}.{self.tld}'
        self.home = f'/home/{self.user}'
        self.full = pick(FULLNAMES)
        self.email = f'{self.user}@{self.domain}'
        self.t = rtime()
        self.pst = pick(['dollar', 'full', 'zsh', 'arrow', 'bracket', 'dollar'])
        self.rst = pick(['root', 'hash', 'sudo'])
        self.cwd = '~/' + pick(['src/', 'code/', 'work/', '']) + self.proj


def P(c, cmd, cwd=None, root=False):
    """A shell prompt line followed by the command."""
    if cwd is None:
        cwd = c.cwd
    if root:
        st = c.rst
        if st == 'root':
            return f'root@{c.host}:{cwd}# {cmd}'
        if st == 'hash':
            return f'# {cmd}'
        return f'{c.user}@{c.host}:{cwd}$ sudo {cmd}'
    st = c.pst
    if st == 'dollar':
        return f'$ {cmd}'
    if st == 'full':
        return f'{c.user}@{c.host}:{cwd}$ {cmd}'
    if st == 'zsh':
        return f'{c.user}@{c.host} {cwd.split("/")[-1] or "~"} % {cmd}'
    if st == 'arrow':
        return f'\u276f {cmd}'
    return f'[{c.user}@{c.host} {cwd.split("/")[-1] or "~"}]$ {cmd}'


def show(c, path, body, root=False, numbered=True):
    """Display a file the way an agent would see it."""
    lines = body.rstrip('\n').split('\n')
    modes = ['cat', 'cat', 'catn', 'read', 'sed', 'bat'] if numbered else ['cat']
    m = pick(modes)
    sudo = 'sudo ' if root else ''
    if m == 'cat':
        return P(c, f'{sudo}cat {path}') + '\n' + '\n'.join(lines)
    if m == 'catn':
        return P(c, f'{sudo}cat -n {path}') + '\n' + '\n'.join(
            f'{i:6d}\t{l}' for i, l in enumerate(lines, 1))
    if m == 'read':
        return '\n'.join(f'{i:6d}\u2192{l}' for i, l in enumerate(lines, 1))
    if m == 'sed':
        return P(c, f"{sudo}sed -n '1,{len(lines)}p' {path}") + '\n' + '\n'.join(lines)
    return P(c, f'{sudo}bat --paging=never --style=numbers {path}') + '\n' + '\n'.join(
        f'{i:4d} {l}' for i, l in enumerate(lines, 1))


# ------------------------------------------------------------ secrets

PUNCT = '!#%^&*()-_=+[]{}.,;:?~@'


def password(style=None, avoid=''):
    """A generic password in one of several styles."""
    for _ in range(2000):
        st = style or pick(['hex', 'b64', 'alnum', 'alnum', 'punct', 'punct',
                            'short', 'short', 'phrase', 'phrase', 'b64u'])
        if st == 'hex':
            s = hx(pick([16, 20, 24, 32, 40]))
        elif st == 'b64':
            s = b64(pick([15, 18, 24, 30, 32]))
        elif st == 'b64u':
            s = b64u(pick([16, 24, 32]))
        elif st == 'alnum':
            s = rs(ri(16, 32))
        elif st == 'punct':
            n = ri(14, 24)
            ch = [pick(B62) for _ in range(n)]
            for k in R.sample(range(1, n), ri(3, 5)):
                ch[k] = pick(PUNCT)
            s = ''.join(ch)
        elif st == 'short':
            n = ri(10, 16)
            ch = [pick(B62) for _ in range(n)]
            for k in R.sample(range(1, n), ri(1, 2)):
                ch[k] = pick('!#%*-_.@?+=')
            ch[ri(1, n - 1)] = pick(DIG)
            s = ''.join(ch)
        elif st == 'phrase':
            sep = pick('-_.')
            ws = [pick(WORDS) for _ in range(ri(2, 3))]
            ws = [w.capitalize() if i % 2 == 0 else w for i, w in enumerate(ws)]
            s = sep.join(ws) + sep + rs(ri(2, 4), DIG)
        elif st == 'spaces':
            s = ' '.join(rs(4, LOW) for _ in range(4))
        else:
            raise ValueError(st)
        if any(ch in s for ch in avoid):
            continue
        if not s[0].isalnum():
            continue
        return s
    raise RuntimeError('no password')


AV_URL = '@:/?#%[]{}^&=+;,!*()~ '
AV_XML = '<>&'
AV_INI = '#;%'


def yv(s):
    """A YAML scalar holding a marked secret, quoted if it needs it."""
    if any(ch in s for ch in '#:{}[],&*!|>%@`?=+/\\'):
        return '"' + M(s) + '"'
    return M(s)


def b62enc(n, alpha=B62):
    s = ''
    while n:
        n, r = divmod(n, 62)
        s = alpha[r] + s
    return s or alpha[0]


def gh_token(prefix='ghp_'):
    body = rs(30)
    crc = zlib.crc32(body.encode()) & 0xffffffff
    return prefix + body + b62enc(crc).rjust(6, '0')


def b64uj(d):
    return base64.urlsafe_b64encode(
        json.dumps(d, separators=(',', ':')).encode()).decode().rstrip('=')


def jwt(payload, alg='HS256', kid=None, typ='JWT'):
    h = {'alg': alg, 'typ': typ}
    if kid:
        h['kid'] = kid
    if alg.startswith('HS'):
        sig = b64u(32)
    elif alg in ('ES256', 'EdDSA', 'ed25519-nkey'):
        sig = b64u(64)
    else:
        sig = b64u(256)
    return f'{b64uj(h)}.{b64uj(payload)}.{sig}'


def stripe_key(kind='sk', mode='live'):
    return f'{kind}_{mode}_51' + rs(ri(95, 99))


def sendgrid_key():
    return 'SG.' + rs(22, B62 + '-_') + '.' + rs(43, B62 + '-_')


def glpat():
    return 'glpat-' + rs(20, B62 + '-_')


def slack_bot():
    return f'xoxb-{digits(12)}-{digits(13)}-{rs(24)}'


def pem_lines(b64body, width=64):
    return [b64body[i:i + width] for i in range(0, len(b64body), width)]


def ec_p256_pkcs8():
    der = bytes.fromhex('308187020100301306072a8648ce3d020106082a8648ce3d03010704'
                        '6d306b0201010420') + rb(32) + bytes.fromhex('a144034200') + b'\x04' + rb(64)
    return base64.b64encode(der).decode()


def pem(label, body64):
    return f'-----BEGIN {label}-----\n' + '\n'.join(pem_lines(body64)) + f'\n-----END {label}-----'


def convertbits(data, frm, to, pad=True):
    acc = 0
    bits = 0
    ret = []
    maxv = (1 << to) - 1
    for v in data:
        acc = (acc << frm) | v
        bits += frm
        while bits >= to:
            bits -= to
            ret.append((acc >> bits) & maxv)
    if pad and bits:
        ret.append((acc << (to - bits)) & maxv)
    return ret


def bech32_polymod(values):
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
    chk = 1
    for v in values:
        b = chk >> 25
        chk = ((chk & 0x1ffffff) << 5) ^ v
        for i in range(5):
            if (b >> i) & 1:
                chk ^= gen[i]
    return chk


def bech32_encode(hrp, data, const=1):
    values = [ord(x) >> 5 for x in hrp] + [0] + [ord(x) & 31 for x in hrp] + data
    pm = bech32_polymod(values + [0] * 6) ^ const
    chk = [(pm >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + '1' + ''.join(BECH[d] for d in data + chk)


def segwit_addr(hrp, prog):
    return bech32_encode(hrp, [0] + convertbits(prog, 8, 5))


def age_recipient():
    return bech32_encode('age', convertbits(rb(32), 8, 5))


def b58enc(b):
    n = int.from_bytes(b, 'big')
    s = ''
    while n:
        n, r = divmod(n, 58)
        s = B58[r] + s
    pad = len(b) - len(b.lstrip(b'\0'))
    return '1' * pad + s


def crc16x(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xffff
    return crc


def nkey_encode(raw):
    return base64.b32encode(raw + struct.pack('<H', crc16x(raw))).decode().rstrip('=')


def nkey_public(prefix_byte):
    return nkey_encode(bytes([prefix_byte]) + rb(32))


def nkey_seed(prefix_byte=20 << 3):
    b1 = (18 << 3) | (prefix_byte >> 5)
    b2 = (prefix_byte & 31) << 3
    return nkey_encode(bytes([b1, b2]) + rb(32))


def ocid(kind, region=''):
    return f'ocid1.{kind}.oc1.{region}.aaaaaaaa' + rs(52, B32L)


def crypt_salt(n):
    return rs(n, CRYPT64)


POS = []
NEG = []
CALLS = {}


def nth(key):
    """How many times this template has been called before (for rotating variants)."""
    n = CALLS.get(key, 0)
    CALLS[key] = n + 1
    return n


def pos(fn):
    POS.append((fn.__name__[2:], fn))
    return fn


def neg(fn):
    NEG.append((fn.__name__[2:], fn))
    return fn


# =================================================================
# Positive templates
# =================================================================

@pos
def p_actuator_env_json():
    c = Ctx()
    port = pick([8080, 8081, 9000, 8443])
    db = pick(['postgresql', 'mysql', 'mariadb'])
    dbport = 5432 if db == 'postgresql' else 3306
    src = pick(['application-prod.yml', 'application.yml', 'application-staging.yaml'])
    secrets = [
        ('spring.datasource.password', password()),
        ('spring.security.oauth2.client.registration.github.client-secret', hx(40)),
        ('app.jwt.secret', b64(48)),
        ('spring.mail.password', password('short')),
        ('spring.data.redis.password', password('alnum')),
        ('spring.rabbitmq.password', password('phrase')),
        ('app.stripe.api-key', stripe_key('sk', pick(['live', 'test']))),
        ('app.storage.secret-key', b64(30)),
    ]
    plain = [
        ('spring.datasource.url', f'jdbc:{db}://{c.proj}-db.{pick(["internal", "svc.cluster.local", c.domain])}:{dbport}/{c.proj}'),
        ('spring.datasource.username', f'{c.proj}_app'),
        ('spring.jpa.hibernate.ddl-auto', 'validate'),
        ('spring.mail.host', 'smtp.' + pick(['mailgun.org', 'sendgrid.net', 'office365.com'])),
        ('management.endpoint.env.show-values', 'ALWAYS'),
        ('spring.data.redis.host', f'{c.proj}-redis'),
        ('logging.level.org.springframework.web', 'DEBUG'),
        ('spring.security.oauth2.client.registration.github.client-id', 'Iv1.' + hx(16)),
        ('server.shutdown', 'graceful'),
    ]
    items = [(k, M(v)) for k, v in sample(secrets, ri(2, 3))] + sample(plain, ri(2, 4))
    R.shuffle(items)
    props = {}
    for k, v in items:
        props[k] = {'value': v, 'origin': f'class path resource [{src}] - {ri(2, 60)}:{ri(5, 22)}'}
    name = f"Config resource 'class path resource [{src}]' via location 'optional:classpath:/'"
    prof = pick(['prod', 'staging', 'k8s'])
    if chance():
        cmd = f"curl -s localhost:{port}/actuator/env | jq '.propertySources[] | select(.name | contains(\"{src}\"))'"
        body = json.dumps({'name': name, 'properties': props}, indent=2, ensure_ascii=False)
    else:
        cmd = f'curl -s http://127.0.0.1:{port}/actuator/env | jq .'
        obj = {'activeProfiles': [prof], 'defaultProfiles': ['default'], 'propertySources': [
            {'name': 'server.ports', 'properties': {'local.server.port': {'value': port}}},
            {'name': name, 'properties': props}]}
        body = json.dumps(obj, indent=2, ensure_ascii=False)
    return P(c, cmd) + '\n' + body


@pos
def p_rails_database_yml_erb():
    c = Ctx()
    p = c.proj
    adapter = pick(['postgresql', 'mysql2', 'trilogy'])
    envname = f'{p.upper()}_DATABASE_PASSWORD'
    lines = ['# PostgreSQL. Versions 9.3 and up are supported.' if adapter == 'postgresql'
             else '# MySQL. Versions 5.5.8 and up are supported.',
             '#', 'default: &default', f'  adapter: {adapter}',
             '  encoding: ' + ('unicode' if adapter == 'postgresql' else 'utf8mb4'),
             '  pool: <%= ENV.fetch("RAILS_MAX_THREADS") { 5 } %>']
    if adapter != 'postgresql':
        lines.append('  host: <%= ENV.fetch("DB_HOST") { "127.0.0.1" } %>')
    lines += ['', 'development:', '  <<: *default', f'  database: {p}_development', '',
              'test:', '  <<: *default', f'  database: {p}_test', '']
    style = pick(['password', 'url', 'multi'])
    dbhost = f'{p}-{pick(["primary", "db", "rds"])}.{pick(["internal", c.domain])}'
    if style == 'url':
        pw = password(avoid=AV_URL)
        scheme = 'postgres' if adapter == 'postgresql' else adapter
        port = 5432 if adapter == 'postgresql' else 3306
        url = f'{scheme}://{p}:{M(pw)}@{dbhost}:{port}/{p}_production'
        lines += ['production:', '  <<: *default',
                  f'  url: <%= ENV.fetch("DATABASE_URL") {{ "{url}" }} %>']
        shown = [('adapter', adapter), ('pool', 5), ('url', url)]
    elif style == 'password':
        pw = password()
        lines += ['production:', '  <<: *default', f'  database: {p}_production', f'  username: {p}',
                  f'  password: <%= ENV.fetch("{envname}") {{ "{M(pw)}" }} %>']
        shown = [('adapter', adapter), ('pool', 5), ('database', f'{p}_production'),
                 ('username', p), ('password', M(pw))]
    else:
        pw = password()
        lines += ['production:', '  primary: &primary_production', '    <<: *default',
                  f'    database: {p}_production', f'    username: {p}',
                  f'    password: <%= ENV["{envname}"] || "{M(pw)}" %>',
                  '  cache:', '    <<: *primary_production', f'    database: {p}_production_cache',
                  '    migrations_paths: db/cache_migrate',
                  '  queue:', '    <<: *primary_production', f'    database: {p}_production_queue',
                  '    migrations_paths: db/queue_migrate']
        shown = [('adapter', adapter), ('pool', 5), ('database', f'{p}_production'),
                 ('username', p), ('password', M(pw))]
    text = show(c, 'config/database.yml', '\n'.join(lines))
    if chance(0.6):
        new = chance()
        parts = []
        for k, v in shown:
            vv = str(v) if isinstance(v, int) else f'"{v}"'
            parts.append(f'{k}: {vv}' if new else f':{k}=>{vv}')
        text += '\n' + P(c, "RAILS_ENV=production bin/rails runner 'p ActiveRecord::Base.connection_db_config.configuration_hash'")
        text += '\n{' + ', '.join(parts) + '}'
    return text


def artisan_line(key, val, width=110):
    raw = val.replace(OPEN, '').replace(CLOSE, '')
    n = max(3, width - len(key) - len(raw) - 6)
    return f'  {key} {"." * n} {val}  '


@pos
def p_artisan_config_show():
    c = Ctx()
    sec = ['database', 'services', 'mail', 'database', 'services'][nth('artisan') % 5]
    A = ' \u21c1 '
    rows = []
    if sec == 'database':
        drv = pick(['mysql', 'pgsql', 'mariadb'])
        rows += [('default', drv), (f'connections{A}sqlite{A}driver', 'sqlite'),
                 (f'connections{A}sqlite{A}database', f'/var/www/{c.proj}/database/database.sqlite'),
                 (f'connections{A}{drv}{A}driver', drv),
                 (f'connections{A}{drv}{A}url', 'null'),
                 (f'connections{A}{drv}{A}host', pick(['127.0.0.1', f'{c.proj}-db.internal', 'mysql'])),
                 (f'connections{A}{drv}{A}port', '5432' if drv == 'pgsql' else '3306'),
                 (f'connections{A}{drv}{A}database', c.proj),
                 (f'connections{A}{drv}{A}username', f'{c.proj}_app'),
                 (f'connections{A}{drv}{A}password', M(password())),
                 (f'connections{A}{drv}{A}charset', 'utf8' if drv == 'pgsql' else 'utf8mb4'),
                 (f'connections{A}{drv}{A}prefix', '""'),
                 ('migrations', 'migrations'),
                 (f'redis{A}client', 'phpredis'),
                 (f'redis{A}default{A}host', '127.0.0.1'),
                 (f'redis{A}default{A}username', 'null'),
                 (f'redis{A}default{A}password', M(password('alnum'))),
                 (f'redis{A}default{A}port', '6379'),
                 (f'redis{A}default{A}database', '0')]
    elif sec == 'mail':
        host = pick(['smtp.mailgun.org', 'smtp.postmarkapp.com', 'email-smtp.eu-west-1.amazonaws.com', 'smtp.office365.com'])
        rows += [('default', 'smtp'), (f'mailers{A}smtp{A}transport', 'smtp'),
                 (f'mailers{A}smtp{A}url', 'null'), (f'mailers{A}smtp{A}host', host),
                 (f'mailers{A}smtp{A}port', '587'), (f'mailers{A}smtp{A}encryption', 'tls'),
                 (f'mailers{A}smtp{A}username', f'postmaster@mg.{c.domain}'),
                 (f'mailers{A}smtp{A}password', M(password())),
                 (f'mailers{A}smtp{A}timeout', 'null'),
                 (f'mailers{A}smtp{A}local_domain', 'null'),
                 (f'mailers{A}log{A}transport', 'log'), (f'mailers{A}log{A}channel', 'null'),
                 (f'from{A}address', f'hello@{c.domain}'), (f'from{A}name', c.proj.capitalize())]
    else:
        rows += [(f'postmark{A}token', M(uuid4())),
                 (f'ses{A}region', pick(REGIONS_AWS)),
                 (f'resend{A}key', M('re_' + rs(8) + '_' + rs(24))),
                 (f'slack{A}notifications{A}bot_user_oauth_token', M(slack_bot())),
                 (f'slack{A}notifications{A}channel', '#' + pick(['alerts', 'ops', 'deploys'])),
                 (f'mailgun{A}domain', f'mg.{c.domain}'),
                 (f'mailgun{A}secret', M('key-' + hx(32))),
                 (f'mailgun{A}endpoint', pick(['api.mailgun.net', 'api.eu.mailgun.net'])),
                 (f'stripe{A}key', 'pk_live_51' + rs(97)),
                 (f'stripe{A}secret', M(stripe_key('sk', 'live')))]
        rows = sample(rows, ri(6, len(rows)))
    out = [P(c, f'php artisan config:show {sec}', cwd=f'/var/www/{c.proj}'), '',
           artisan_line(sec, '').rstrip() + '  ']
    for k, v in rows:
        out.append(artisan_line(k, v))
    out.append('')
    return '\n'.join(out)


@pos
def p_quarkus_profile_properties():
    c = Ctx()
    realm = c.proj
    L = ['# HTTP', 'quarkus.http.port=8080', 'quarkus.http.cors=true', '',
         '# Datasource', 'quarkus.datasource.db-kind=postgresql',
         f'quarkus.datasource.username={c.proj}',
         '%dev.quarkus.datasource.devservices.enabled=true',
         f'%prod.quarkus.datasource.jdbc.url=jdbc:postgresql://{c.proj}-db:5432/{c.proj}',
         f'%prod.quarkus.datasource.password={M(password(avoid=AV_INI))}',
         'quarkus.hibernate-orm.database.generation=none', '',
         '# OIDC', f'quarkus.oidc.auth-server-url=https://sso.{c.domain}/realms/{realm}',
         f'quarkus.oidc.client-id={c.proj}-backend']
    if chance(0.8):
        L.append(f'quarkus.oidc.credentials.secret={M(rs(32))}')
    L += ['quarkus.http.auth.permission.authenticated.paths=/api/*',
          'quarkus.http.auth.permission.authenticated.policy=authenticated',
          'mp.jwt.verify.publickey.location=META-INF/resources/publicKey.pem',
          'smallrye.jwt.sign.key.location=privateKey.pem', '']
    if chance():
        L += ['# Mailer', 'quarkus.mailer.host=smtp.' + pick(['sendgrid.net', 'mailgun.org']),
              'quarkus.mailer.port=587', 'quarkus.mailer.start-tls=REQUIRED',
              'quarkus.mailer.username=apikey',
              f'quarkus.mailer.password={M(sendgrid_key())}', '']
    if chance():
        L += ['# Redis', f'%prod.quarkus.redis.hosts=redis://:{M(password(avoid=AV_URL))}@{c.proj}-redis:6379/0', '']
    L += ['quarkus.log.level=INFO', 'quarkus.log.category."io.quarkus.oidc".level=DEBUG']
    path = 'src/main/resources/application.properties'
    if chance():
        hits = [(i, l) for i, l in enumerate(L, 1) if any(w in l.lower() for w in ('password', 'secret', 'key', 'token'))]
        return P(c, f"grep -nE 'password|secret|key|token' {path}") + '\n' + '\n'.join(f'{i}:{l}' for i, l in hits)
    return show(c, path, '\n'.join(L))


@pos
def p_dotnet_user_secrets_list():
    c = Ctx()
    Proj = c.proj.capitalize()
    pw = password(avoid=';"')
    kv = [('ConnectionStrings:Default',
           f'Server=tcp:sql-{c.proj}.database.windows.net,1433;Initial Catalog={c.proj};User ID={c.proj}_app;Password={M(pw)};Encrypt=True;TrustServerCertificate=False;'),
          ('Logging:LogLevel:Default', 'Information')]
    extra = [('Stripe:SecretKey', M(stripe_key('sk', 'test'))),
             ('Jwt:SigningKey', M(b64(48))),
             ('SendGrid:ApiKey', M(sendgrid_key())),
             ('Authentication:Google:ClientSecret', M('GOCSPX-' + rs(28, B62 + '-_'))),
             ('Authentication:Google:ClientId', f'{digits(12)}-{rs(32, ALNUM_LOW)}.apps.googleusercontent.com'),
             ('Redis:Configuration', f'{c.proj}.redis.cache.windows.net:6380,password={M(b64(32))},ssl=True,abortConnect=False'),
             ('OpenAI:ApiKey', M('sk-proj-' + rs(56, B64URL) + 'T3BlbkFJ' + rs(56, B64URL)))]
    kv += sample(extra, ri(2, 4))
    kv.sort(key=lambda x: x[0].lower())
    guid = uuid4()
    if chance(0.55):
        if chance():
            head = P(c, f'dotnet user-secrets list --project src/{Proj}.Api')
        else:
            head = f'PS C:\\src\\{Proj}\\src\\{Proj}.Api> dotnet user-secrets list'
        return head + '\n' + '\n'.join(f'{k} = {v}' for k, v in kv)
    body = '{\n' + ',\n'.join(f'  "{k}": "{v}"' for k, v in kv) + '\n}'
    return show(c, f'~/.microsoft/usersecrets/{guid}/secrets.json', body)


@pos
def p_hcloud_cli_toml():
    c = Ctx()
    names = sample([f'{c.proj}-prod', f'{c.proj}-staging', 'default', f'{c.org}-lab', 'personal'], ri(1, 3))
    active = names[0]
    out = []
    if chance(0.6):
        out.append(P(c, 'hcloud context list'))
        out.append('ACTIVE   NAME')
        for n in names:
            out.append(f'{"*" if n == active else " "}        {n}')
    body = [f'active_context = "{active}"']
    if chance():
        body += ['', '[preferences]', '  debug = false', '  poll_interval = "500ms"']
    for n in names:
        body += ['', '[[contexts]]', f'  name = "{n}"', f'  token = "{M(rs(64))}"']
    out.append(show(c, '~/.config/hcloud/cli.toml', '\n'.join(body)))
    return '\n'.join(out)


@pos
def p_scaleway_config_yaml():
    c = Ctx()
    region = pick(['fr-par', 'nl-ams', 'pl-waw'])
    L = [f'access_key: SCW{rs(17, ALNUM_UP)}', f'secret_key: {M(uuid4())}',
         f'default_organization_id: {uuid4()}', f'default_project_id: {uuid4()}',
         f'default_region: {region}', f'default_zone: {region}-{ri(1, 3)}',
         'send_telemetry: false']
    if chance(0.6):
        L += ['profiles:']
        for prof in sample(['staging', 'ci', 'personal', 'lab'], ri(1, 2)):
            L += [f'  {prof}:', f'    access_key: SCW{rs(17, ALNUM_UP)}',
                  f'    secret_key: {M(uuid4())}', f'    default_project_id: {uuid4()}']
    out = show(c, '~/.config/scw/config.yaml', '\n'.join(L))
    if chance():
        out = P(c, 'scw instance server list zone=' + region + '-1') + \
            '\nID                                    NAME              TYPE      STATE\n' + \
            f'{uuid4()}  {c.proj}-app-1      DEV1-M    running\n' + \
            f'{uuid4()}  {c.proj}-worker     GP1-XS    stopped\n' + out
    return out


OCIR = {'eu-frankfurt-1': 'fra', 'us-ashburn-1': 'iad', 'uk-london-1': 'lhr', 'ap-tokyo-1': 'nrt'}


@pos
def p_oci_auth_token_create():
    c = Ctx()
    tok = rs(20, B62 + '()<>{}[];:.+-_#')
    region = pick(['eu-frankfurt-1', 'us-ashburn-1', 'uk-london-1', 'ap-tokyo-1'])
    ns = rs(12, ALNUM_LOW)
    user_ocid = ocid('user')
    obj = {'data': {
        'description': pick(['ocir push from CI', f'{c.proj} registry', 'docker login']),
        'id': ocid('credential'),
        'inactive-status': None,
        'lifecycle-state': 'ACTIVE',
        'time-created': iso(c.t, 3, '+00:00'),
        'time-expires': None,
        'token': '@@TOK@@',
        'user-id': user_ocid}}
    body = json.dumps(obj, indent=2).replace('@@TOK@@', M(tok))
    out = [P(c, f'oci iam auth-token create --user-id {user_ocid} --description "{obj["data"]["description"]}"'), body]
    if chance(0.6):
        out.append(P(c, f"docker login {OCIR[region]}.ocir.io -u '{ns}/oracleidentitycloudservice/{c.email}' -p '{M(tok)}'"))
        out.append('WARNING! Using --password via the CLI is insecure. Use --password-stdin.')
        out.append('Login Succeeded')
    return '\n'.join(out)


@pos
def p_ibmcloud_api_key_create():
    c = Ctx()
    name = pick([f'{c.proj}-ci', 'terraform', 'deployer', f'{c.user}-cli'])
    key = rs(44, B62 + '_-')
    acct = hx(32)
    if chance():
        out = [P(c, f'ibmcloud iam api-key-create {name} -d "{pick(["CI pipeline", "terraform runs", "local dev"])}"'),
               f'Creating API key {name} under {acct} as {c.email}...', 'OK',
               f'API key {name} was created', '',
               "Please preserve the API key! It cannot be retrieved after it's created.", '',
               f'ID            ApiKey-{uuid4()}', f'Name          {name}',
               'Description   ', f'Created At    {fmt(c.t, "%Y-%m-%dT%H:%M+0000")}',
               f'API Key       {M(key)}', 'Locked        false']
        return '\n'.join(out)
    out = [P(c, f'ibmcloud iam api-key-create {name} --file {name}.json'),
           f'Creating API key {name} under {acct} as {c.email}...', 'OK',
           f'API key {name} was created',
           f'Successfully save API key information to {name}.json',
           P(c, f'cat {name}.json'),
           '{', f'\t"name": "{name}",', '\t"description": "",',
           f'\t"createdAt": "{fmt(c.t, "%Y-%m-%dT%H:%M+0000")}",',
           f'\t"apikey": "{M(key)}"', '}']
    return '\n'.join(out)


@pos
def p_aliyun_config_json():
    c = Ctx()
    kid = 'LTAI5t' + rs(18)
    sec = rs(30)
    region = pick(['cn-hangzhou', 'cn-shanghai', 'ap-southeast-1', 'eu-central-1'])
    out = []
    if chance(0.6):
        out += [P(c, 'aliyun configure list'),
                'Profile   | Credential         | Valid   | Region           | Language',
                '--------- | ------------------ | ------- | ---------------- | --------',
                f'default * | AK:***{kid[-3:]}          | Valid   | {region:<16} | en']
    prof = [('name', '"default"'), ('mode', '"AK"'), ('access_key_id', f'"{kid}"'),
            ('access_key_secret', f'"{M(sec)}"'), ('sts_token', '""'), ('sts_region', '""'),
            ('ram_role_name', '""'), ('ram_role_arn', '""'), ('ram_session_name', '""'),
            ('source_profile', '""'), ('private_arn', '""'), ('key_pair_name', '""'),
            ('expired_seconds', '0'), ('verified', '""'), ('region_id', f'"{region}"'),
            ('output_format', '"json"'), ('language', '"en"'), ('site', '""'),
            ('retry_timeout', '0'), ('connect_timeout', '0'), ('retry_count', '0'),
            ('process_command', '""'), ('credentials_uri', '""')]
    body = ['{', '\t"current": "default",', '\t"profiles": [', '\t\t{']
    body += [f'\t\t\t"{k}": {v}' + (',' if i < len(prof) - 1 else '') for i, (k, v) in enumerate(prof)]
    body += ['\t\t}', '\t],', '\t"meta_path": ""', '}']
    out.append(show(c, '~/.aliyun/config.json', '\n'.join(body)))
    return '\n'.join(out)


@pos
def p_mongosh_banner():
    c = Ctx()
    cl = f'cluster0.{rs(5, ALNUM_LOW)}'
    ver = pick(['2.2.5', '2.1.4', '2.3.1'])
    mver = pick(['7.0.8', '6.0.14', '7.0.12'])
    user = f'{c.proj}_rw'
    pw = password(avoid=AV_URL + "'")
    db = c.proj
    style = pick(['flag', 'uri', 'uri_srv'])
    if style == 'flag':
        cmd = f'mongosh "mongodb+srv://{cl}.mongodb.net/{db}" --apiVersion 1 --username {user} --password \'{M(pw)}\''
        conn = f'mongodb+srv://<credentials>@{cl}.mongodb.net/{db}?appName=mongosh+{ver}'
        prompt = f'Atlas atlas-{rs(6, ALNUM_LOW)}-shard-0 [primary] {db}> '
    elif style == 'uri':
        host = pick(['10.0.3.12', f'mongo-0.{c.proj}.internal', 'localhost'])
        cmd = f'mongosh "mongodb://admin:{M(pw)}@{host}:27017/{db}?authSource=admin"'
        conn = f'mongodb://<credentials>@{host}:27017/{db}?authSource=admin&directConnection=true&appName=mongosh+{ver}'
        prompt = f'{pick(["rs0 [direct: primary] ", "test "])}{db}> '
    else:
        cmd = f"mongosh 'mongodb+srv://{user}:{M(pw)}@{cl}.mongodb.net/?retryWrites=true&w=majority'"
        conn = f'mongodb+srv://<credentials>@{cl}.mongodb.net/?retryWrites=true&w=majority&appName=mongosh+{ver}'
        prompt = f'Atlas atlas-{rs(6, ALNUM_LOW)}-shard-0 [primary] test> '
    out = [P(c, cmd), f'Current Mongosh Log ID:\t{hx(24)}', f'Connecting to:\t\t{conn}',
           f'Using MongoDB:\t\t{mver}' + (' (API Version 1)' if style == 'flag' else ''),
           f'Using Mongosh:\t\t{ver}', '',
           'For mongosh info see: https://www.mongodb.com/docs/mongodb-shell/', '']
    if chance():
        out += ['------', '   The server generated these startup warnings when booting',
                f'   {iso(c.t, 3, "+00:00")}: vm.max_map_count is too low', '------', '']
    out.append(prompt + 'db.getCollectionNames()')
    cols = sample(['orders', 'users', 'sessions', 'events', 'invoices', 'audit_log', 'carts'], ri(3, 5))
    out.append('[ ' + ', '.join(f"'{x}'" for x in cols) + ' ]')
    out.append(prompt)
    return '\n'.join(out)


@pos
def p_bash_xtrace_mysqldump():
    c = Ctx()
    pw = password(avoid="'")
    host = pick([f'{c.proj}-db.internal', '10.0.2.15', f'mysql-primary.{c.domain}'])
    user = pick(['backup', 'dumper', f'{c.proj}_ro'])
    db = c.proj
    bucket = f'{c.org}-db-backups'
    stamp = fmt(c.t, '%Y%m%d-%H%M')
    out = [P(c, 'bash -x scripts/backup-db.sh ' + db, root=chance(0.3)),
           '+ set -euo pipefail', f'+ DB_NAME={db}', f'+ DB_HOST={host}', f'+ DB_USER={user}']
    plain = pw.replace('-', '').replace('_', '').replace('.', '').isalnum()
    if chance():
        out.append(f'+ DB_PASS={M(pw)}' if plain else f"+ DB_PASS='{M(pw)}'")
    else:
        out += ['++ cat /etc/backup/db.pass', f'+ DB_PASS={M(pw)}' if plain else f"+ DB_PASS='{M(pw)}'"]
    out += [f'++ date +%Y%m%d-%H%M', f'+ STAMP={stamp}', f'+ OUT=/var/backups/mysql/{db}-{stamp}.sql.gz',
            (f"+ mysqldump --host={host} --user={user} --password={M(pw)} --single-transaction --routines --triggers {db}" if pw.replace('-', '').replace('_', '').replace('.', '').isalnum() else
             f"+ mysqldump --host={host} --user={user} '--password={M(pw)}' --single-transaction --routines --triggers {db}"),
            '+ gzip -9',
            'mysqldump: [Warning] Using a password on the command line interface can be insecure.',
            f'+ aws s3 cp /var/backups/mysql/{db}-{stamp}.sql.gz s3://{bucket}/{db}/ --only-show-errors',
            f"+ find /var/backups/mysql -name '*.sql.gz' -mtime +{ri(3, 14)} -delete",
            f'+ echo \'backup ok: {db}-{stamp}.sql.gz\'', f'backup ok: {db}-{stamp}.sql.gz']
    return '\n'.join(out)


@pos
def p_sqlcmd_transcript():
    c = Ctx()
    dom = pick(['CORP', 'AD', c.org.upper()[:8]])
    machine = pick(['SQLJUMP01', 'WIN-BUILD02', 'MGMT-VM3'])
    pw = password(avoid='"\'$`')
    server = f'sql-{c.proj}-01.{dom.lower()}.local'
    t = c.t
    out = ['**********************', 'Windows PowerShell transcript start',
           f'Start time: {fmt(t, "%Y%m%d%H%M%S")}', f'Username: {dom}\\{c.user}',
           f'RunAs User: {dom}\\{c.user}', 'Configuration Name: ',
           f'Machine: {machine} (Microsoft Windows NT 10.0.20348.0)',
           'Host Application: C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
           f'Process ID: {ri(1000, 19000)}', 'PSVersion: 5.1.20348.2227', 'PSEdition: Desktop',
           '**********************',
           f'Transcript started, output file is C:\\Users\\{c.user}\\Documents\\PowerShell_transcript.{machine}.{rs(8)}.{fmt(t, "%Y%m%d%H%M%S")}.txt']
    dbs = ['master', 'tempdb', 'model', 'msdb', c.proj, f'{c.proj}_reporting']
    if chance():
        out.append(f'PS C:\\Users\\{c.user}> sqlcmd -S tcp:{server},1433 -U sa -P "{M(pw)}" -d master -Q "SET NOCOUNT ON; SELECT name, state_desc FROM sys.databases"')
        out.append(f'{"name":<40} state_desc')
        out.append('-' * 40 + ' ' + '-' * 20)
        for d in dbs:
            out.append(f'{d:<40} ONLINE')
    else:
        out.append(f"PS C:\\Users\\{c.user}> Invoke-Sqlcmd -ServerInstance '{server}' -Username '{c.proj}_admin' -Password '{M(pw)}' -Query 'SELECT name, create_date FROM sys.databases' -TrustServerCertificate")
        out += ['', 'name                 create_date', '----                 -----------']
        for d in dbs:
            out.append(f'{d:<20} {fmt(t - ri(1, 900) * 86400, "%m/%d/%Y %I:%M:%S %p")}')
        out.append('')
    out.append(f'PS C:\\Users\\{c.user}> Stop-Transcript')
    out += ['**********************', 'Windows PowerShell transcript end', f'End time: {fmt(t + 300, "%Y%m%d%H%M%S")}',
            '**********************']
    return '\n'.join(out)


@pos
def p_redis_sentinel_conf():
    c = Ctx()
    master = pick(['mymaster', f'{c.proj}-cache', 'redis-ha'])
    ips = [f'10.{ri(0, 3)}.{ri(0, 9)}.{ri(10, 60)}' for _ in range(3)]
    pw = password(avoid=AV_INI + '"\' ')
    q = (lambda s: f'"{M(s)}"') if not pw.isalnum() else M
    L = ['port 26379', 'daemonize yes', 'pidfile "/var/run/redis/redis-sentinel.pid"',
         'logfile "/var/log/redis/redis-sentinel.log"', 'dir "/var/lib/redis"',
         f'sentinel myid {hx(40)}', 'sentinel deny-scripts-reconfig yes',
         f'sentinel monitor {master} {ips[0]} 6379 2', f'sentinel auth-pass {master} {q(pw)}',
         f'sentinel down-after-milliseconds {master} 5000', f'sentinel failover-timeout {master} 60000']
    if chance():
        spw = password(avoid=AV_INI + '"\' ')
        L += [f'requirepass {M(spw) if spw.isalnum() else chr(34) + M(spw) + chr(34)}',
              f'sentinel sentinel-pass {M(spw) if spw.isalnum() else chr(34) + M(spw) + chr(34)}']
    ep = ri(1, 9)
    L += [f'sentinel config-epoch {master} {ep}', f'sentinel leader-epoch {master} {ep}',
          f'sentinel known-replica {master} {ips[1]} 6379', f'sentinel known-replica {master} {ips[2]} 6379',
          f'sentinel known-sentinel {master} {ips[1]} 26379 {hx(40)}',
          f'sentinel known-sentinel {master} {ips[2]} 26379 {hx(40)}',
          f'sentinel current-epoch {ep}']
    return P(c, "cat /etc/redis/sentinel.conf | grep -v '^#' | sed '/^$/d'", root=True) + '\n' + '\n'.join(L)


@pos
def p_clickhouse_users_xml():
    c = Ctx()
    pw = password(avoid=AV_XML + "'")
    u = pick([c.proj, 'app', 'ingest', 'writer'])
    L = ['<clickhouse>', '    <users>', f'        <{u}>', f'            <password>{M(pw)}</password>',
         '            <networks>', '                <ip>10.0.0.0/8</ip>', '                <ip>::1</ip>',
         '            </networks>', '            <profile>default</profile>', '            <quota>default</quota>',
         f'            <allow_databases><database>{c.proj}</database></allow_databases>',
         f'        </{u}>', '        <grafana>',
         f'            <password_sha256_hex>{hx(64)}</password_sha256_hex>',
         '            <profile>readonly</profile>', '            <quota>default</quota>',
         '        </grafana>']
    if chance():
        pw2 = password(avoid=AV_XML + "'")
        L += ['        <etl>', f'            <password>{M(pw2)}</password>',
              '            <access_management>0</access_management>', '        </etl>']
    L += ['    </users>', '</clickhouse>']
    out = show(c, f'/etc/clickhouse-server/users.d/{u}.xml', '\n'.join(L), root=True)
    if chance():
        out += '\n' + P(c, f"clickhouse-client --host ch01.{c.domain} --secure --user {u} --password '{M(pw)}' --query 'SELECT version()'")
        out += f'\n{pick(["24.3.2.23", "23.8.9.54", "24.8.4.13"])}'
    return out


@pos
def p_kafka_client_properties():
    c = Ctx()
    style = pick(['confluent', 'msk_scram', 'confluent'])
    if style == 'confluent':
        key = rs(16, ALNUM_UP)
        sec = rs(64, B62 + '+/')
        boot = f'pkc-{rs(5, ALNUM_LOW)}.{pick(["us-east-1.aws", "europe-west1.gcp", "westeurope.azure"])}.confluent.cloud:9092'
        L = [f'bootstrap.servers={boot}', 'security.protocol=SASL_SSL', 'sasl.mechanism=PLAIN',
             f"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username='{key}' password='{M(sec)}';",
             'client.dns.lookup=use_all_dns_ips', 'session.timeout.ms=45000', 'acks=all']
        if chance(0.7):
            srk = rs(16, ALNUM_UP)
            srs = rs(64, B62 + '+/')
            L += ['', '# Schema Registry',
                  f'schema.registry.url=https://psrc-{rs(5, ALNUM_LOW)}.{pick(["us-east-2.aws", "europe-west3.gcp"])}.confluent.cloud',
                  'basic.auth.credentials.source=USER_INFO',
                  f'basic.auth.user.info={srk}:{M(srs)}']
    else:
        pw = password(avoid='"\\')
        cid, cn, reg = rs(6, ALNUM_LOW), ri(2, 9), pick(REGIONS_AWS)
        boot = ','.join(f'b-{i}.{c.proj}.{cid}.c{cn}.kafka.{reg}.amazonaws.com:9096' for i in (1, 2, 3))
        L = [f'bootstrap.servers={boot}', 'security.protocol=SASL_SSL', 'sasl.mechanism=SCRAM-SHA-512',
             f'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="{c.proj}-producer" password="{M(pw)}";']
    cfg = pick(['client.properties', 'config/ccloud.properties', f'~/.kafka/{c.proj}.properties'])
    out = show(c, cfg, '\n'.join(L))
    if chance(0.6):
        out += '\n' + P(c, f'kafka-topics --bootstrap-server {L[0].split("=")[1].split(",")[0]} --command-config {cfg} --list')
        out += '\n' + '\n'.join(sample([f'{c.proj}.orders', f'{c.proj}.payments', '_schemas', 'connect-offsets',
                                       f'{c.proj}.events.v2', 'dlq.orders'], ri(2, 5)))
    return out


@pos
def p_nats_creds_file():
    c = Ctx()
    acct = nkey_public(0)
    upub = nkey_public(20 << 3)
    name = pick(['svc-' + c.proj, 'ingest', 'worker', c.user])
    payload = {'jti': rs(52, UP + '234567'), 'iat': c.t, 'iss': acct, 'name': name, 'sub': upub,
               'nats': {'pub': {}, 'sub': {}, 'subs': -1, 'data': -1, 'payload': -1,
                        'type': 'user', 'version': 2}}
    ujwt = jwt(payload, alg='ed25519-nkey')
    seed = nkey_seed()
    op = pick(['OP', c.org.upper(), 'synadia'])
    ac = pick(['APP', c.proj.upper(), 'SYS'])
    path = f'~/.local/share/nats/nsc/keys/creds/{op}/{ac}/{name}.creds'
    body = ['-----BEGIN NATS USER JWT-----', ujwt, '------END NATS USER JWT------', '',
            '************************* IMPORTANT *************************',
            'NKEY Seed printed below can be used to sign and prove identity.',
            'NKEYs are sensitive and should be treated as secrets.', '',
            '-----BEGIN USER NKEY SEED-----', M(seed), '------END USER NKEY SEED------', '',
            '*************************************************************']
    if chance():
        out = P(c, f'nsc generate creds -a {ac} -n {name}') + '\n' + '\n'.join(body)
    else:
        out = show(c, path, '\n'.join(body))
    if chance(0.5):
        out += '\n' + P(c, f'nats --creds {path} --server tls://connect.ngs.global server ping --count 1')
        out += f'\nngs-{rs(4, ALNUM_LOW)}-{ri(1, 9)}                                rtt={ri(10, 90)}.{ri(100, 999)}ms'
    return out


@pos
def p_pulsar_client_conf():
    c = Ctx()
    tok = jwt({'sub': pick([f'{c.proj}-producer', 'admin', f'svc-{c.proj}'])} if chance() else
              {'sub': f'{c.proj}-consumer', 'exp': c.t + 86400 * 365}, alg=pick(['HS256', 'RS256']))
    host = f'pulsar.{c.domain}'
    if chance(0.6):
        L = ['# Configuration for pulsar-client and pulsar-admin CLI tools', '',
             f'webServiceUrl=https://{host}:8443/', f'brokerServiceUrl=pulsar+ssl://{host}:6651/',
             'authPlugin=org.apache.pulsar.client.impl.auth.AuthenticationToken',
             f'authParams=token:{M(tok)}', 'tlsAllowInsecureConnection=false',
             'tlsEnableHostnameVerification=true', 'tlsTrustCertsFilePath=/etc/ssl/certs/ca-certificates.crt',
             'useKeyStoreTls=false']
        out = P(c, "grep -v '^#' conf/client.conf | grep .", cwd='/opt/apache-pulsar-3.2.2') + '\n' + '\n'.join(l for l in L if l and not l.startswith('#'))
        out += '\n' + P(c, 'bin/pulsar-admin tenants list', cwd='/opt/apache-pulsar-3.2.2')
        out += '\n' + '\n'.join(f'"{x}"' for x in ['public', 'pulsar', c.proj])
        return out
    L = ['import pulsar', '',
         'client = pulsar.Client(',
         f"    'pulsar+ssl://{host}:6651',",
         f"    authentication=pulsar.AuthenticationToken('{M(tok)}'),",
         ')', f"producer = client.create_producer('persistent://{c.proj}/default/events')"]
    return show(c, f'scripts/publish_{c.proj}.py', '\n'.join(L))


@pos
def p_grafana_datasource_provisioning():
    c = Ctx()
    L = ['apiVersion: 1', '', 'datasources:']
    kinds = sample(['prom', 'pg', 'loki', 'tempo', 'mysql'], ri(2, 3))
    for k in kinds:
        if k == 'prom':
            L += ['  - name: Prometheus', '    type: prometheus', '    access: proxy',
                  f'    url: https://prometheus.{c.domain}', '    isDefault: true', '    basicAuth: true',
                  '    basicAuthUser: grafana', '    jsonData:', '      httpMethod: POST',
                  '      timeInterval: 30s', '    secureJsonData:',
                  f'      basicAuthPassword: {yv(password())}']
        elif k == 'pg':
            L += ['  - name: Postgres', '    type: grafana-postgresql-datasource',
                  f'    url: {c.proj}-db.internal:5432', '    user: grafana_ro', '    jsonData:',
                  f'      database: {c.proj}', '      sslmode: require', '      postgresVersion: 1500',
                  '    secureJsonData:', f"      password: '{M(password(avoid=chr(39)))}'"]
        elif k == 'loki':
            gid = digits(6)
            glc = 'glc_' + base64.b64encode(json.dumps(
                {'o': digits(6), 'n': f'stack-{gid}-integration-{c.proj}', 'k': rs(24),
                 'm': {'r': pick(['prod-us-east-0', 'prod-eu-west-2'])}}, separators=(',', ':')).encode()).decode()
            L += ['  - name: Loki', '    type: loki',
                  f'    url: https://logs-prod-{ri(6, 24):03d}.grafana.net', '    basicAuth: true',
                  f'    basicAuthUser: "{gid}"', '    secureJsonData:', f'      basicAuthPassword: {M(glc)}']
        elif k == 'tempo':
            L += ['  - name: Tempo', '    type: tempo', f'    url: https://tempo.{c.domain}', '    jsonData:',
                  '      httpHeaderName1: Authorization', '    secureJsonData:',
                  f"      httpHeaderValue1: 'Bearer {M(b64u(32))}'"]
        else:
            L += ['  - name: MySQL', '    type: mysql', f'    url: {c.proj}-mysql:3306', '    user: grafana',
                  '    jsonData:', f'      database: {c.proj}', '    secureJsonData:',
                  f'      password: {yv(password())}']
    return show(c, pick(['provisioning/datasources/datasources.yaml', '/etc/grafana/provisioning/datasources/default.yaml',
                         'deploy/grafana/datasources.yml']), '\n'.join(L))


@pos
def p_alertmanager_yml():
    c = Ctx()
    pw = password(avoid="'")
    L = ['global:', '  resolve_timeout: 5m', f"  smtp_smarthost: 'smtp.{pick(['office365.com', 'mailgun.org', c.domain])}:587'",
         f"  smtp_from: 'alertmanager@{c.domain}'", f"  smtp_auth_username: 'alertmanager@{c.domain}'",
         f"  smtp_auth_password: '{M(pw)}'"]
    if chance():
        L.append(f'  opsgenie_api_key: {M(uuid4())}')
    L += ['', 'route:', '  receiver: default', "  group_by: ['alertname', 'cluster', 'service']",
          '  group_wait: 30s', '  repeat_interval: 4h', '  routes:',
          '    - matchers: [severity="critical"]', '      receiver: pagerduty',
          '    - matchers: [team="platform"]', '      receiver: platform-webhook', '',
          'receivers:', '  - name: default', '    email_configs:', f"      - to: 'ops@{c.domain}'",
          '  - name: pagerduty', '    pagerduty_configs:', f'      - routing_key: {M(hx(32))}',
          "        severity: '{{ .CommonLabels.severity }}'",
          '  - name: platform-webhook', '    webhook_configs:',
          f'      - url: https://hooks.{c.domain}/alertmanager', '        send_resolved: true',
          '        http_config:', '          authorization:', '            type: Bearer',
          f'            credentials: {M(b64u(pick([24, 32])))}']
    path = pick(['/etc/alertmanager/alertmanager.yml', 'monitoring/alertmanager.yml'])
    out = show(c, path, '\n'.join(L), root=path.startswith('/etc'))
    if chance(0.6):
        out += '\n' + P(c, f'amtool check-config {path}') + f"\nChecking '{path}'  SUCCESS\nFound:\n - global config\n - route\n - 0 inhibit rules\n - 3 receivers\n - 0 templates"
    return out


@pos
def p_zabbix_agent_psk():
    c = Ctx()
    ver = pick(['zabbix_agent2', 'zabbix_agentd'])
    psk = hx(pick([32, 64, 64]))
    ident = f'PSK-{c.host}-{ri(1, 99):02d}'
    L = [f'PidFile=/var/run/zabbix/{ver}.pid', f'LogFile=/var/log/zabbix/{ver}.log', 'LogFileSize=0',
         f'Server=zabbix.{c.domain}', f'ServerActive=zabbix.{c.domain}', f'Hostname={c.host}',
         'TLSConnect=psk', 'TLSAccept=psk', f'TLSPSKIdentity={ident}', f'TLSPSKFile=/etc/zabbix/{ver}.psk',
         f'Include=/etc/zabbix/{ver}.d/*.conf']
    out = [P(c, f"grep -Ev '^(#|$)' /etc/zabbix/{ver}.conf")] + L
    if chance():
        out += [P(c, f'sudo cat /etc/zabbix/{ver}.psk'), M(psk)]
    else:
        out += [P(c, f'openssl rand -hex {len(psk) // 2} | sudo tee /etc/zabbix/{ver}.psk'), M(psk),
                P(c, f'sudo chown zabbix:zabbix /etc/zabbix/{ver}.psk && sudo chmod 640 /etc/zabbix/{ver}.psk')]
    out += [P(c, f'sudo systemctl restart {ver.replace("_", "-")} && systemctl is-active {ver.replace("_", "-")}'), 'active']
    return '\n'.join(out)


@pos
def p_jenkins_script_console():
    c = Ctx()
    host = f'jenkins.{c.domain}'
    creds = [('nexus-deployer', 'UsernamePasswordCredentialsImpl', f'deployer / {M(password())}'),
             ('sonar-token', 'StringCredentialsImpl', M('squ_' + hx(40))),
             ('github-pat', 'StringCredentialsImpl', M(gh_token('ghp_'))),
             ('slack-bot', 'StringCredentialsImpl', M(slack_bot())),
             ('deploy-ssh', 'BasicSSHUserPrivateKey', 'ubuntu / <private key: 3 lines omitted by script>'),
             ('registry-login', 'UsernamePasswordCredentialsImpl', f'{c.proj}-ci / {M(password("alnum"))}'),
             ('db-prod', 'UsernamePasswordCredentialsImpl', f'{c.proj}_admin / {M(password("phrase"))}')]
    chosen = [creds[4]] + sample([x for i, x in enumerate(creds) if i != 4], ri(2, 4))
    R.shuffle(chosen)
    if chance():
        auth = f'admin:{M("11" + hx(32))}'
    else:
        auth = 'admin:"$JENKINS_API_TOKEN"'
    out = [P(c, 'cat dump-creds.groovy'),
           'import com.cloudbees.plugins.credentials.CredentialsProvider',
           'import com.cloudbees.plugins.credentials.common.StandardCredentials',
           'CredentialsProvider.lookupCredentials(StandardCredentials, Jenkins.instance, null, null).each { cr ->',
           '  def v = cr.hasProperty("password") ? "${cr.username} / ${cr.password.plainText}" :',
           '          cr.hasProperty("secret") ? cr.secret.plainText : "${cr.username} / <private key: ${cr.privateKeys.size() + 2} lines omitted by script>"',
           '  println String.format("%-18s %-34s %s", cr.id, cr.class.simpleName, v)',
           '}',
           P(c, f'curl -s -u {auth} --data-urlencode "script=$(< dump-creds.groovy)" https://{host}/scriptText')]
    for cid, kind, val in chosen:
        out.append(f'{cid:<18} {kind:<34} {val}')
    return '\n'.join(out)


@pos
def p_gitlab_variables_api():
    c = Ctx()
    pid = ri(100, 60000000)
    lit = chance(0.6)
    hdr = f'PRIVATE-TOKEN: {M(glpat())}' if lit else 'PRIVATE-TOKEN: $GITLAB_TOKEN'
    host = pick(['gitlab.com', f'gitlab.{c.domain}'])
    pool = [('SENTRY_AUTH_TOKEN', M('sntryu_' + hx(64)), True),
            ('NPM_TOKEN', M('npm_' + rs(36)), True),
            ('DOCKERHUB_TOKEN', M('dckr_pat_' + rs(27, B62 + '-_')), True),
            ('DATABASE_PASSWORD', M(password(avoid='"\\')), True),
            ('CLOUDFLARE_API_TOKEN', M(rs(40, B62 + '-_')), True),
            ('SLACK_BOT_TOKEN', M(slack_bot()), True),
            ('DOCKER_DRIVER', 'overlay2', False), ('AWS_DEFAULT_REGION', pick(REGIONS_AWS), False),
            ('KUBE_NAMESPACE', f'{c.proj}-prod', False), ('FF_USE_FASTZIP', 'true', False)]
    items = sample(pool[:6], ri(2, 3)) + sample(pool[6:], 1)
    R.shuffle(items)
    objs = []
    for k, v, sec in items:
        objs.append({'variable_type': 'env_var', 'key': k, 'value': v, 'hidden': False,
                     'protected': sec, 'masked': sec, 'raw': False, 'environment_scope': pick(['*', 'production']) if sec else '*',
                     'description': None})
    return P(c, f'curl -s --header "{hdr}" "https://{host}/api/v4/projects/{pid}/variables" | jq .') + '\n' + \
        json.dumps(objs, indent=2, ensure_ascii=False)


@pos
def p_buildkite_agent_cfg():
    c = Ctx()
    tok = rs(50, ALNUM_LOW)
    q = pick(['deploy', 'default', 'gpu', 'docker'])
    L = [f'token="{M(tok)}"', 'name="%hostname-%spawn"', f'tags="queue={q},os=linux,arch=amd64"',
         'build-path="/var/lib/buildkite-agent/builds"', 'hooks-path="/etc/buildkite-agent/hooks"',
         'plugins-path="/etc/buildkite-agent/plugins"', f'spawn={ri(1, 4)}']
    out = [P(c, "grep -v '^#' /etc/buildkite-agent/buildkite-agent.cfg | grep -v '^$'", root=True)] + L
    if chance(0.6):
        t = c.t
        ver = pick(['3.66.0', '3.71.0', '3.59.0'])
        out.append(P(c, 'sudo journalctl -u buildkite-agent -n 6 --no-pager -o cat'))
        out += [f'{fmt(t, "%Y-%m-%d %H:%M:%S")} NOTICE Starting buildkite-agent v{ver} with PID: {ri(900, 40000)}',
                f'{fmt(t, "%Y-%m-%d %H:%M:%S")} NOTICE The agent source code can be found here: https://github.com/buildkite/agent',
                f'{fmt(t, "%Y-%m-%d %H:%M:%S")} INFO   Registering agent with Buildkite...',
                f'{fmt(t + 1, "%Y-%m-%d %H:%M:%S")} INFO   Successfully registered agent "{c.host}-1" with tags [queue={q} os=linux arch=amd64]',
                f'{fmt(t + 1, "%Y-%m-%d %H:%M:%S")} INFO   {c.host}-1 Connecting to Buildkite...',
                f'{fmt(t + 2, "%Y-%m-%d %H:%M:%S")} INFO   {c.host}-1 Waiting for work...']
    if chance(0.4):
        out += [P(c, 'cat ~/.config/bk.yaml'), f'selected_org: {c.org}', 'organizations:',
                f'    {c.org}:', f'        api_token: {M("bkua_" + hx(40))}']
    return '\n'.join(out)


@pos
def p_ansible_vault_view():
    c = Ctx()
    env = pick(['prod', 'production', 'staging'])
    path = f'group_vars/{env}/vault.yml' if chance() else f'inventories/{env}/group_vars/all/vault.yml'
    pwf = pick(['~/.vault_pass', '.vault-password', '~/.ansible/vault-pass.txt'])
    L = ['---', f'vault_postgres_password: "{M(password())}"',
         f"vault_django_secret_key: '{M(rs(50, B62 + '!@#%^&*(-_=+)'))}'",
         f'vault_smtp_password: {M(password("alnum"))}',
         f'vault_admin_email: ops@{c.domain}', 'vault_api_tokens:',
         f'  sentry: {M("sntrys_" + b64u(60))}', f'  pagerduty: {M(rs(20, B62 + "_-+"))}'
         if chance() else f'  datadog: {M(hx(32))}',
         f'vault_backup_bucket: {c.org}-backups-{env}']
    if chance():
        L.insert(3, f'vault_redis_password: "{M(password("hex"))}"')
    return P(c, f'ansible-vault view {path} --vault-password-file {pwf}', cwd=f'~/infra/{c.proj}-ansible') + '\n' + '\n'.join(L)


@pos
def p_knife_data_bag_show():
    c = Ctx()
    item = pick(['production', 'staging', f'{c.proj}_prod'])
    bag = pick(['credentials', 'secrets', c.proj])
    kv = [('id', item), ('db_password', M(password())), ('redis_password', M(password('alnum'))),
          ('newrelic_license_key', M(hx(40))), ('session_secret', M(hx(64))),
          ('smtp_user', f'noreply@{c.domain}'), ('smtp_password', M(password('short')))]
    kv = [kv[0]] + sample(kv[1:], ri(3, 5))
    kv.sort()
    w = max(len(k) for k, _ in kv) + 2
    out = [P(c, f'knife data bag show {bag} {item} --secret-file ~/.chef/encrypted_data_bag_secret', cwd=f'~/chef-repo'),
           'Encrypted data bag detected, decrypting with provided secret.']
    out += [f'{(k + ":"):<{w}}{v}' for k, v in kv]
    return '\n'.join(out)


@pos
def p_eyaml_decrypt():
    c = Ctx()
    enc = lambda: 'ENC[PKCS7,MIIB' + rs(ri(300, 380), B64STD) + '==]'
    if chance(0.35):
        e = enc()
        key = pick(['db_password', 'api_token', 'smtp_password'])
        out = [P(c, f'grep -n {key} data/common.eyaml', cwd='~/puppet/control-repo'),
               f'{ri(3, 40)}:profile::{c.proj}::{key}: {e}',
               P(c, f"eyaml decrypt -s '{e}'", cwd='~/puppet/control-repo'), M(password())]
        return '\n'.join(out)
    f = pick(['data/common.eyaml', f'data/nodes/{c.host}.{c.domain}.eyaml', f'data/role/{c.proj}.eyaml'])
    L = ['---', f"profile::{c.proj}::db_host: '{c.proj}-db.{c.domain}'",
         f'profile::{c.proj}::db_password: DEC::PKCS7[{M(password(avoid="]"))}]!',
         f'profile::{c.proj}::api_key: DEC::PKCS7[{M(hx(32))}]!',
         'profile::ntp::servers:', '  - 0.pool.ntp.org', '  - 1.pool.ntp.org']
    if chance():
        L.append(f'profile::mysql::root_password: DEC::PKCS7[{M(password("punct", avoid="]"))}]!')
    if chance():
        L.append(f'profile::backup::gpg_recipient: ops@{c.domain}')
    return P(c, f'eyaml decrypt -e {f}', cwd='~/puppet/control-repo') + '\n' + '\n'.join(L)


@pos
def p_salt_pillar_items():
    c = Ctx()
    minion = f'{pick(["web", "db", "app"])}{ri(1, 9):02d}.{c.domain}'
    out = [P(c, f"salt '{minion}' pillar.items", root=True), f'{minion}:', '    ----------']
    blocks = []
    blocks.append(['    mysql:', '        ----------', '        root_password:', f'            {M(password())}',
                   '        users:', '            ----------', f'            {c.proj}:', '                ----------',
                   '                host:', '                    10.%', '                password:',
                   f'                    {M(password("alnum"))}'])
    blocks.append(['    stripe:', '        ----------', '        secret_key:', f'            {M(stripe_key())}',
                   '        webhook_secret:', f'            {M("whsec_" + rs(32))}'])
    blocks.append(['    nginx:', '        ----------', '        worker_processes:', '            auto',
                   '        server_name:', f'            {c.proj}.{c.domain}'])
    blocks.append(['    users:', '        ----------', f'        {c.user}:', '            ----------',
                   '            shell:', '                /bin/zsh', '            uid:', f'                {ri(1001, 1200)}'])
    blocks.append(['    rabbitmq:', '        ----------', '        user:', f'            {c.proj}',
                   '        password:', f'            {M(password("phrase"))}'])
    sel = [blocks[0]] + sample(blocks[1:], ri(2, 3))
    sel.sort(key=lambda b: b[0])
    for b in sel:
        out += b
    return '\n'.join(out)


@pos
def p_wpa_supplicant_conf():
    c = Ctx()
    ssid = pick(['Home-5G', 'FRITZ!Box 7590 XQ', 'Vodafone-' + rs(4, ALNUM_UP), 'lab-iot', 'CasaNet', f'{c.org}-guest'])
    phr = password(pick(['phrase', 'alnum', 'punct', 'short']), avoid='"\\')
    if chance(0.35):
        psk = hx(64)
        out = [P(c, f"wpa_passphrase \"{ssid}\" '{M(phr)}'"), 'network={', f'\tssid="{ssid}"',
               f'\t#psk="{M(phr)}"', f'\tpsk={M(psk)}', '}']
        return '\n'.join(out)
    L = ['ctrl_interface=DIR=/var/run/wpa_supplicant GROUP=netdev', 'update_config=1',
         f'country={pick(["DE", "GB", "US", "NL", "FR"])}', '', 'network={', f'\tssid="{ssid}"',
         f'\tpsk="{M(phr)}"', '\tkey_mgmt=WPA-PSK', f'\tpriority={ri(1, 10)}', '}']
    if chance():
        L += ['', 'network={', f'\tssid="{c.org}-corp"', '\tkey_mgmt=WPA-EAP', '\teap=PEAP',
              f'\tidentity="{c.user}@{c.domain}"', f'\tpassword="{M(password(avoid=chr(34)))}"',
              '\tphase2="auth=MSCHAPV2"', '}']
    if chance():
        L += ['', 'network={', '\tssid="lab-iot"', f'\tpsk={M(hx(64))}', '}']
    return show(c, '/etc/wpa_supplicant/wpa_supplicant.conf', '\n'.join(L), root=True)


@pos
def p_nmcli_show_secrets():
    c = Ctx()
    def row(k, v):
        return f'{k + ":":<40}{v}'
    name = pick(['Home-5G', 'Office', f'{c.org}-corp', 'Pixel_7421'])
    u = uuid4()
    wifi = chance(0.7)
    L = [row('connection.id', name), row('connection.uuid', u), row('connection.stable-id', '--'),
         row('connection.type', '802-11-wireless' if wifi else 'vpn'), row('connection.interface-name', '--'),
         row('connection.autoconnect', 'yes'), row('connection.timestamp', str(c.t))]
    if wifi:
        L += [row('802-11-wireless.ssid', name), row('802-11-wireless.mode', 'infrastructure'),
              row('802-11-wireless.band', '--'), row('802-11-wireless.mac-address-randomization', 'default'),
              row('802-11-wireless-security.key-mgmt', pick(['wpa-psk', 'sae'])),
              row('802-11-wireless-security.auth-alg', '--'),
              row('802-11-wireless-security.psk', M(password(pick(['phrase', 'alnum', 'punct'])))),
              row('802-11-wireless-security.psk-flags', '0 (none)'),
              row('802-11-wireless-security.wep-key-flags', '0 (none)')]
    else:
        gw = f'vpn.{c.domain}'
        L += [row('vpn.service-type', 'org.freedesktop.NetworkManager.openconnect'),
              row('vpn.user-name', c.user),
              row('vpn.data', f'authtype = password, gateway = {gw}, protocol = anyconnect'),
              row('vpn.secrets', f'gateway = {gw}, form:main:password = {M(password(avoid=","))}'),
              row('vpn.persistent', 'no')]
    L += [row('ipv4.method', 'auto'), row('ipv4.dns', '--'), row('ipv6.method', 'auto'),
          row('GENERAL.NAME', name), row('GENERAL.UUID', u),
          row('GENERAL.DEVICES', pick(['wlp2s0', 'wlan0', 'wlo1']) if wifi else '--'),
          row('GENERAL.STATE', 'activated')]
    return P(c, f"nmcli --show-secrets connection show '{name}'") + '\n' + '\n'.join(L)


@pos
def p_fstab_cifs():
    c = Ctx()
    nas = pick(['nas', 'fileserver', 'synology', f'{c.org}-fs01'])
    share = pick(['media', 'backup', 'projects', 'scans'])
    pw = password(avoid=',= "\'\\')
    out = []
    if chance(0.6):
        L = ['# <file system> <mount point>   <type>  <options>       <dump>  <pass>',
             f'UUID={uuid4()} /               ext4    errors=remount-ro 0       1',
             f'UUID={hx(4).upper()}-{hx(4).upper()}  /boot/efi       vfat    umask=0077      0       1',
             '/swapfile                                 none            swap    sw              0       0',
             f'//{nas}.lan/{share} /mnt/{share} cifs username={c.user},password={M(pw)},uid=1000,gid=1000,iocharset=utf8,vers=3.0,_netdev 0 0']
        out.append(show(c, '/etc/fstab', '\n'.join(L)))
    else:
        out.append(show(c, '/root/.smbcredentials', f'username={c.user}\npassword={M(pw)}\ndomain={pick(["WORKGROUP", c.org.upper()[:8]])}', root=True))
        L = [f'//{nas}.lan/{share} /mnt/{share} cifs credentials=/root/.smbcredentials,uid=1000,gid=1000,vers=3.0,_netdev 0 0']
        out.append(P(c, "grep cifs /etc/fstab") + '\n' + L[0])
    out.append(P(c, f'sudo mount -a && df -h /mnt/{share}'))
    out.append('Filesystem              Size  Used Avail Use% Mounted on')
    size = ri(20, 160)
    used = ri(size // 5, size * 9 // 10)
    out.append(f'//{nas}.lan/{share}     {size / 10:.1f}T  {used / 10:.1f}T  {(size - used) / 10:.1f}T  {used * 100 // size}% /mnt/{share}')
    return '\n'.join(out)


@pos
def p_postfix_sasl_passwd():
    c = Ctx()
    kind = pick(['sendgrid', 'mailgun', 'gmail', 'brevo', 'o365'])
    if kind == 'sendgrid':
        relay, line = '[smtp.sendgrid.net]:587', f'apikey:{M(sendgrid_key())}'
    elif kind == 'mailgun':
        relay, line = '[smtp.mailgun.org]:587', f'postmaster@mg.{c.domain}:{M(password(avoid=":"))}'
    elif kind == 'gmail':
        relay, line = '[smtp.gmail.com]:587', f'{c.user}.alerts@gmail.com:{M(rs(16, LOW))}'
    elif kind == 'brevo':
        relay, line = '[smtp-relay.brevo.com]:587', f'{hx(6)}{ri(100, 999)}@smtp-brevo.com:{M("xsmtpsib-" + hx(64) + "-" + rs(16))}'
    else:
        relay, line = '[smtp.office365.com]:587', f'noreply@{c.domain}:{M(password(avoid=":"))}'
    out = [show(c, '/etc/postfix/sasl_passwd', f'{relay} {line}', root=True, numbered=False),
           P(c, "sudo postmap /etc/postfix/sasl_passwd && sudo postconf -n | grep -E 'relayhost|sasl|tls_security'"),
           f'relayhost = {relay}', 'smtp_sasl_auth_enable = yes',
           'smtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd',
           'smtp_sasl_security_options = noanonymous', 'smtp_tls_security_level = encrypt']
    if chance():
        out += [P(c, 'sudo tail -n 2 /var/log/mail.log'),
                f'{fmt(c.t, "%b %d %H:%M:%S")} {c.host} postfix/smtp[{ri(1000, 30000)}]: {HX(10)}: to=<ops@{c.domain}>, relay={relay[1:].split("]")[0]}[{ri(3, 220)}.{ri(1, 250)}.{ri(1, 250)}.{ri(1, 250)}]:587, delay=1.2, delays=0.01/0.02/0.61/0.56, dsn=2.0.0, status=sent (250 Ok)',
                f'{fmt(c.t, "%b %d %H:%M:%S")} {c.host} postfix/qmgr[{ri(1000, 30000)}]: {HX(10)}: removed']
    return '\n'.join(out)


@pos
def p_ipsec_secrets():
    c = Ctx()
    psk = password(pick(['b64', 'phrase', 'alnum', 'punct']), avoid='"\\')
    a, b = f'203.0.113.{ri(2, 250)}', f'198.51.100.{ri(2, 250)}'
    if chance(0.55):
        L = ['# /etc/ipsec.secrets - strongSwan IPsec secrets file', '',
             ': RSA "/etc/ipsec.d/private/gw.key.pem"', f'{a} {b} : PSK "{M(psk)}"']
        if chance():
            L.append(f'%any : PSK "{M(password("b64"))}"')
        for u in sample(USERS, ri(1, 3)):
            L.append(f'{u} : {pick(["EAP", "XAUTH"])} "{M(password(avoid=chr(34)))}"')
        return show(c, '/etc/ipsec.secrets', '\n'.join(L), root=True)
    hexkey = '0x' + hx(64)
    conn = 'ike-' + pick(['site-b', 'aws-vpc', 'office'])
    L = ['secrets {', f'    {conn} {{', f'        id-1 = {a}', f'        id-2 = {b}',
         f'        secret = "{M(psk)}"', '    }', '    ike-lab {', f'        id = lab.{c.domain}',
         f'        secret = {M(hexkey)}', '    }', '    eap-' + c.user + ' {', f'        id = {c.user}',
         f'        secret = "{M(password(avoid=chr(34)))}"', '    }', '}']
    out = show(c, '/etc/swanctl/conf.d/secrets.conf', '\n'.join(L), root=True)
    out += '\n' + P(c, 'sudo swanctl --load-creds') + '\nloaded ike secret \'' + conn + '\'\nloaded ike secret \'ike-lab\'\nloaded eap secret \'eap-' + c.user + '\'\nno authorities found, 0 unloaded'
    return out


@pos
def p_snmpd_conf():
    c = Ctx()
    comm = password(pick(['alnum', 'short', 'phrase']), avoid=' #"')
    auth = password(avoid=' "\'#')
    priv = password(avoid=' "\'#')
    user = pick(['monitor', 'librenms', 'observium', 'zbx'])
    L = ['sysLocation    ' + pick(['Rack A3, FRA1', 'Server room 2', 'DC2 row 7']),
         f'sysContact     ops@{c.domain}', 'agentaddress  udp:161,udp6:[::1]:161',
         f'rocommunity {M(comm)} 10.0.0.0/8', f'rocommunity6 {M(comm)} fd00::/8',
         f'createUser {user} SHA-256 "{M(auth)}" AES "{M(priv)}"', f'rouser {user} priv',
         'includeDir /etc/snmp/snmpd.conf.d']
    if chance(0.4):
        L.pop(4)
    out = P(c, "grep -Ev '^\\s*(#|$)' /etc/snmp/snmpd.conf", root=True) + '\n' + '\n'.join(L)
    if chance():
        out += '\n' + P(c, f"snmpwalk -v3 -l authPriv -u {user} -a SHA-256 -A '{M(auth)}' -x AES -X '{M(priv)}' {c.host} sysUpTime")
        out += f'\nDISMAN-EVENT-MIB::sysUpTimeInstance = Timeticks: ({ri(10 ** 6, 10 ** 9)}) {ri(1, 90)} days, {ri(0, 23)}:{ri(10, 59)}:{ri(10, 59)}.{ri(10, 99)}'
    return out


@pos
def p_keycloak_realm_export():
    c = Ctx()
    realm = c.proj
    clients = [('account', None, True), ('admin-cli', None, True), ('security-admin-console', None, True),
               (f'{c.proj}-frontend', None, True), (f'{c.proj}-backend', rs(32), False),
               ('grafana', rs(32), False), ('argocd', rs(32), False), ('oauth2-proxy', rs(32), False)]
    chosen = clients[:2] + sample(clients[2:4], 1) + sample(clients[4:], ri(2, 3))
    out = [P(c, f'/opt/keycloak/bin/kc.sh export --realm {realm} --file /tmp/{realm}-realm.json --users skip',
             cwd='/opt/keycloak'),
           f'{fmt(c.t, "%Y-%m-%d %H:%M:%S")},{ri(100, 999)} INFO  [org.keycloak.exportimport.singlefile.SingleFileExportProvider] (main) Exporting realm \'{realm}\' into file /tmp/{realm}-realm.json',
           f'{fmt(c.t + 2, "%Y-%m-%d %H:%M:%S")},{ri(100, 999)} INFO  [org.keycloak.services] (main) KC-SERVICES0035: Export finished successfully',
           P(c, f"jq '.clients[] | {{clientId, publicClient, secret}}' /tmp/{realm}-realm.json", cwd='/opt/keycloak')]
    for cid, sec, pub in chosen:
        o = ['{', f'  "clientId": "{cid}",', f'  "publicClient": {"true" if pub else "false"},']
        o.append(f'  "secret": "{M(sec)}"' if sec else '  "secret": null')
        o.append('}')
        out += o
    if chance(0.4):
        out += [P(c, f"jq '.smtpServer' /tmp/{realm}-realm.json", cwd='/opt/keycloak'), '{',
                '  "password": "' + M(password()) + '",', '  "starttls": "true",', '  "auth": "true",',
                '  "port": "587",', f'  "host": "smtp.{c.domain}",', f'  "from": "sso@{c.domain}",',
                f'  "user": "sso@{c.domain}"', '}']
    return '\n'.join(out)


@pos
def p_ldapsearch_bind():
    c = Ctx()
    dc = ','.join('dc=' + x for x in c.domain.split('.'))
    bind = f'cn={pick(["svc-gitlab", "svc-jenkins", "readonly", "admin"])},ou={pick(["services", "system"])},{dc}'
    pw = password(avoid="'")
    if chance(0.7):
        who = pick(USERS)
        out = [P(c, f"ldapsearch -x -H ldaps://ldap.{c.domain}:636 -D \"{bind}\" -w '{M(pw)}' -b \"ou=people,{dc}\" \"(uid={who})\" cn mail memberOf"),
               '# extended LDIF', '#', f'# LDAPv3', f'# base <ou=people,{dc}> with scope subtree',
               f'# filter: (uid={who})', '# requesting: cn mail memberOf ', '#', '',
               f'# {who}, people, {c.domain}', f'dn: uid={who},ou=people,{dc}', f'cn: {pick(FULLNAMES)}',
               f'mail: {who}@{c.domain}', f'memberOf: cn=developers,ou=groups,{dc}',
               f'memberOf: cn={c.proj},ou=groups,{dc}', '', '# search result', 'search: 2',
               'result: 0 Success', '', '# numResponses: 2', '# numEntries: 1']
        return '\n'.join(out)
    L = ['[sssd]', 'services = nss, pam', f'domains = {c.domain}', '', f'[domain/{c.domain}]',
         'id_provider = ldap', 'auth_provider = ldap', f'ldap_uri = ldaps://ldap.{c.domain}',
         f'ldap_search_base = {dc}', f'ldap_default_bind_dn = {bind}',
         'ldap_default_authtok_type = password', f'ldap_default_authtok = {M(pw)}',
         'ldap_tls_reqcert = demand', 'cache_credentials = true', 'enumerate = false']
    return show(c, '/etc/sssd/sssd.conf', '\n'.join(L), root=True)


@pos
def p_oauth2_proxy_cfg():
    c = Ctx()
    prov = pick(['google', 'github', 'oidc', 'azure'])
    if prov == 'google':
        cid = f'{digits(12)}-{rs(32, ALNUM_LOW)}.apps.googleusercontent.com'
        csec = 'GOCSPX-' + rs(28, B62 + '-_')
    elif prov == 'github':
        cid = 'Ov23li' + rs(14) if chance() else 'Iv1.' + hx(16)
        csec = hx(40)
    elif prov == 'azure':
        cid = uuid4()
        csec = rs(3) + '8Q~' + rs(34, B62 + '-_.~')
    else:
        cid = 'oauth2-proxy'
        csec = rs(32)
    cookie = b64u(32) if chance() else b64(16)
    L = [f'provider = "{prov}"', f'client_id = "{cid}"', f'client_secret = "{M(csec)}"',
         f'cookie_secret = "{M(cookie)}"', 'cookie_secure = true', f'cookie_domains = [".{c.domain}"]',
         f'whitelist_domains = [".{c.domain}"]', f'email_domains = ["{c.domain}"]',
         'upstreams = ["http://127.0.0.1:8080/"]', 'http_address = "0.0.0.0:4180"',
         f'redirect_url = "https://{c.proj}.{c.domain}/oauth2/callback"']
    if prov == 'oidc':
        L.insert(1, f'oidc_issuer_url = "https://sso.{c.domain}/realms/{c.proj}"')
    if prov == 'github':
        L.append(f'github_org = "{c.org}"')
    if chance(0.3):
        L.append(f'redis_password = "{M(password(avoid=chr(34)))}"')
        L.append('session_store_type = "redis"')
    return show(c, pick(['/etc/oauth2-proxy/oauth2-proxy.cfg', 'deploy/oauth2-proxy.cfg']), '\n'.join(L))


@pos
def p_consul_acl_token():
    c = Ctx()
    acc, sec = uuid4(), uuid4()
    t = fmt(c.t, '%Y-%m-%d %H:%M:%S.') + rs(9, DIG) + ' +0000 UTC'
    mode = pick(['bootstrap', 'create', 'read'])
    if mode == 'bootstrap':
        cmd = 'consul acl bootstrap'
        desc = 'Bootstrap Token (Global Management)'
        pol = ['   00000000-0000-0000-0000-000000000001 - global-management']
    elif mode == 'create':
        pname = pick([f'{c.proj}-svc', 'nomad-server', 'vault-storage', 'ci-deploy'])
        cmd = f'consul acl token create -description "{pname} token" -policy-name {pname}'
        desc = f'{pname} token'
        pol = [f'   {uuid4()} - {pname}']
    else:
        cmd = f'consul acl token read -id {acc}'
        desc = pick(['Agent token', f'{c.proj} deploy token'])
        pol = [f'   {uuid4()} - {pick(["agent-policy", c.proj + "-write"])}']
    out = [P(c, cmd), f'AccessorID:       {acc}', f'SecretID:         {M(sec)}']
    if mode != 'bootstrap':
        out.append('Partition:        default' if chance(0.3) else 'Namespace:        default')
    out += [f'Description:      {desc}', 'Local:            false', f'Create Time:      {t}', 'Policies:'] + pol
    if chance(0.5):
        out.append(P(c, f'export CONSUL_HTTP_TOKEN={M(sec)}'))
        out.append(P(c, 'consul members'))
        out.append('Node       Address           Status  Type    Build   Protocol  DC   Partition  Segment')
        for i in range(ri(2, 3)):
            out.append(f'consul-{i}   10.0.{ri(0, 9)}.{ri(10, 90)}:8301    alive   server  1.17.3  2         dc1  default    <all>')
    return '\n'.join(out)


@pos
def p_vault_token_create():
    c = Ctx()
    tok = 'hvs.' + ('CAESI' + rs(ri(86, 90), B64URL) if chance(0.7) else rs(24))
    acc = rs(24)
    pols = ['default'] + sample([f'{c.proj}-deploy', 'ci-read', 'pki-issue', 'kv-read'], ri(0, 2))
    ttl = pick(['768h', '1h', '24h', '32m'])
    cmd = f'vault token create -policy={" -policy=".join(p for p in pols if p != "default")} -ttl={ttl}' if len(pols) > 1 else f'vault token create -ttl={ttl}'
    if chance(0.6):
        out = [P(c, cmd), 'Key                  Value', '---                  -----',
               f'token                {M(tok)}', f'token_accessor       {acc}',
               f'token_duration       {ttl}', 'token_renewable      true',
               f'token_policies       [{" ".join(chr(34) + p + chr(34) for p in pols)}]',
               'identity_policies    []', f'policies             [{" ".join(chr(34) + p + chr(34) for p in pols)}]']
        return '\n'.join(out)
    secs = {'768h': 2764800, '1h': 3600, '24h': 86400, '32m': 1920}[ttl]
    obj = {'request_id': uuid4(), 'lease_id': '', 'lease_duration': 0, 'renewable': False, 'data': None,
           'warnings': None, 'auth': {'client_token': M(tok), 'accessor': acc, 'policies': pols,
                                       'token_policies': pols, 'identity_policies': None, 'metadata': None,
                                       'orphan': False, 'entity_id': '', 'lease_duration': secs,
                                       'renewable': True, 'mfa_requirement': None}}
    return P(c, cmd + ' -format=json') + '\n' + json.dumps(obj, indent=2, ensure_ascii=False)


@pos
def p_mc_svcacct_add():
    c = Ctx()
    alias = pick(['myminio', 'local', f'{c.proj}-s3', 'prod'])
    u = pick(['ci-uploader', f'{c.proj}-app', 'backup', 'loki'])
    out = []
    if chance(0.6):
        pw = password(avoid="'")
        out += [P(c, f"mc admin user add {alias} {u} '{M(pw)}'"), f'Added user `{u}` successfully.',
                P(c, f'mc admin policy attach {alias} readwrite --user {u}'),
                'Attached Policies: [readwrite]', f'To User: {u}']
    name = pick(['gh-actions', 'grafana', 'velero', 'thanos'])
    out += [P(c, f'mc admin user svcacct add {alias} {u} --name {name}'),
            f'Access Key: {rs(20, ALNUM_UP)}', f'Secret Key: {M(rs(40, B62 + "+"))}', 'Expiration: no-expiry']
    return '\n'.join(out)


@pos
def p_rclone_config_show():
    c = Ctx()
    blocks = []
    blocks.append(['[r2]', 'type = s3', 'provider = Cloudflare', f'access_key_id = {hx(32)}',
                   f'secret_access_key = {M(hx(64))}', f'endpoint = https://{hx(32)}.r2.cloudflarestorage.com',
                   'acl = private'])
    blocks.append(['[b2]', 'type = b2', f'account = 005{hx(22)}', f'key = {M("K005" + rs(27, B62))}',
                   'hard_delete = true'])
    blocks.append(['[nas]', 'type = sftp', f'host = nas.{pick(["lan", "home.arpa", c.domain])}', f'user = {c.user}',
                   f'pass = {M(b64u(16 + ri(10, 24)))}', 'shell_type = unix', 'md5sum_command = md5sum',
                   'sha1sum_command = sha1sum'])
    blocks.append(['[secret]', 'type = crypt', f'remote = b2:{c.org}-backup/enc', 'filename_encryption = standard',
                   f'password = {M(b64u(16 + ri(12, 30)))}', f'password2 = {M(b64u(16 + ri(12, 30)))}'])
    tok = {'access_token': '@A@', 'token_type': 'Bearer', 'refresh_token': '@R@', 'expiry': iso(c.t, 9, '+00:00'),
           'expires_in': 3599}
    at = 'ya29.a0' + rs(ri(170, 200), B64URL)
    rt = '1//0' + rs(2, UP + DIG) + rs(96, B64URL)
    tj = json.dumps(tok, separators=(',', ':')).replace('@A@', M(at)).replace('@R@', M(rt))
    blocks.append(['[gdrive]', 'type = drive', 'scope = drive', f'token = {tj}', f'team_drive = '])
    sel = sample(blocks, ri(2, 4))
    out = [P(c, 'rclone config show')]
    for b in sel:
        out += b + ['']
    if chance():
        out.append(P(c, f'rclone lsd {sel[0][0].strip("[]")}:'))
        for _ in range(ri(2, 4)):
            out.append(f'          -1 {fmt(rtime(), "%Y-%m-%d %H:%M:%S")}        -1 {pick(["backups", "photos", c.proj, "archive", "media"])}')
    return '\n'.join(out).rstrip()


@pos
def p_restic_env_file():
    c = Ctx()
    pw = password(avoid='"$`\\')
    kind = pick(['b2', 's3', 'rest'])
    L = []
    if kind == 'b2':
        L += [f'export RESTIC_REPOSITORY="b2:{c.org}-restic:/{c.host}"', f'export RESTIC_PASSWORD="{M(pw)}"',
              f'export B2_ACCOUNT_ID="005{hx(22)}"', f'export B2_ACCOUNT_KEY="{M("K005" + rs(27))}"']
    elif kind == 's3':
        L += [f'export RESTIC_REPOSITORY="s3:https://s3.{pick(["eu-central-003.backblazeb2.com", "wasabisys.com", "fr-par.scw.cloud"])}/{c.org}-restic/{c.host}"',
              f'export RESTIC_PASSWORD="{M(pw)}"', f'export AWS_ACCESS_KEY_ID="{rs(20, ALNUM_UP)}"',
              f'export AWS_SECRET_ACCESS_KEY="{M(rs(40, B62 + "+/"))}"']
    else:
        rpw = password(avoid=AV_URL)
        L += [f'export RESTIC_REPOSITORY="rest:https://{c.host}:{M(rpw)}@backup.{c.domain}:8000/{c.host}/"',
              f'export RESTIC_PASSWORD="{M(pw)}"']
    L += ['export RESTIC_CACHE_DIR=/var/cache/restic', 'export GOMAXPROCS=2']
    envp = pick(['/etc/restic/env', '/root/.config/restic/env.sh', '/etc/default/restic'])
    out = show(c, envp, '\n'.join(L), root=True)
    out += '\n' + P(c, f'source {envp} && restic snapshots --latest 2', root=True)
    out += f'\nrepository {hx(8)} opened (version 2, compression level auto)\nID        Time                 Host        Tags        Paths\n' + '-' * 72
    for _ in range(2):
        out += f'\n{hx(8)}  {fmt(rtime(), "%Y-%m-%d %H:%M:%S")}  {c.host:<10}  nightly     /etc\n' + ' ' * 56 + '/home'
    out += '\n' + '-' * 72 + '\n2 snapshots'
    return out


@pos
def p_s3cfg():
    c = Ctx()
    prov = pick(['do', 'linode', 'wasabi'])
    if prov == 'do':
        ak, sk = 'DO00' + rs(16, ALNUM_UP), b64(32).rstrip('=')
        reg = pick(['nyc3', 'fra1', 'ams3', 'sgp1'])
        hb, hbk, loc = f'{reg}.digitaloceanspaces.com', f'%(bucket)s.{reg}.digitaloceanspaces.com', 'US'
    elif prov == 'linode':
        ak, sk = rs(20, ALNUM_UP), rs(40)
        reg = pick(['us-east-1', 'eu-central-1'])
        hb, hbk, loc = f'{reg}.linodeobjects.com', f'%(bucket)s.{reg}.linodeobjects.com', 'US'
    else:
        ak, sk = rs(20, ALNUM_UP), rs(40)
        hb, hbk, loc = 's3.eu-central-1.wasabisys.com', '%(bucket)s.s3.eu-central-1.wasabisys.com', 'eu-central-1'
    kv = [('access_key', ak), ('access_token', ''), ('add_encoding_exts', ''), ('add_headers', ''),
          ('bucket_location', loc), ('ca_certs_file', ''), ('check_ssl_certificate', 'True'),
          ('cloudfront_host', 'cloudfront.amazonaws.com'), ('default_mime_type', 'binary/octet-stream'),
          ('delete_removed', 'False'), ('enable_multipart', 'True'), ('encoding', 'UTF-8'), ('encrypt', 'False'),
          ('gpg_command', '/usr/bin/gpg'), ('gpg_passphrase', M(password('phrase')) if chance(0.6) else ''),
          ('host_base', hb), ('host_bucket', hbk), ('human_readable_sizes', 'False'),
          ('multipart_chunk_size_mb', '15'), ('secret_key', M(sk)), ('signature_v2', 'False'),
          ('use_https', 'True'), ('verbosity', 'WARNING')]
    if chance(0.4):
        kv = [x for x in kv if x[0] in ('access_key', 'bucket_location', 'gpg_passphrase', 'host_base', 'host_bucket',
                                        'secret_key', 'use_https', 'signature_v2')]
    body = '[default]\n' + '\n'.join(f'{k} = {v}' for k, v in kv)
    out = show(c, '~/.s3cfg', body)
    if chance():
        out += '\n' + P(c, 's3cmd ls') + '\n' + '\n'.join(
            f'{fmt(rtime(), "%Y-%m-%d %H:%M")}  s3://{c.org}-{x}' for x in sample(['assets', 'backups', 'logs', c.proj], ri(2, 3)))
    return out


@pos
def p_ipython_llm_clients():
    c = Ctx()
    pool = [
        ('from mistralai import Mistral', 'client = Mistral(api_key="{}")', lambda: rs(32), 'client.models.list().data[0].id', "'mistral-large-latest'"),
        ('import cohere', 'co = cohere.ClientV2("{}")', lambda: rs(40), "co.embed(texts=['hi'], model='embed-english-v3.0', input_type='search_query', embedding_types=['float']).id", f"'{uuid4()}'"),
        ('from pinecone import Pinecone', 'pc = Pinecone(api_key="{}")', lambda: 'pcsk_' + rs(5) + '_' + rs(65), 'pc.list_indexes().names()', f"['{c.proj}-docs', 'support-kb']"),
        ('from groq import Groq', 'groq = Groq(api_key="{}")', lambda: 'gsk_' + rs(52), 'groq.models.list().data[0].id', "'llama-3.1-8b-instant'"),
        ('from together import Together', 'tg = Together(api_key="{}")', lambda: hx(64), 'len(tg.models.list())', str(ri(90, 200))),
        ('import replicate', 'rc = replicate.Client(api_token="{}")', lambda: 'r8_' + rs(37), "rc.models.get('meta/meta-llama-3-8b-instruct').url", "'https://replicate.com/meta/meta-llama-3-8b-instruct'"),
        ('from openai import OpenAI', 'orc = OpenAI(base_url="https://openrouter.ai/api/v1", api_key="{}")', lambda: 'sk-or-v1-' + hx(64), 'orc.models.list().data[0].id', "'openai/gpt-4o-mini'"),
        ('import weaviate', 'wc = weaviate.connect_to_weaviate_cloud(cluster_url="' + rs(20, ALNUM_LOW) + '.c0.europe-west3.gcp.weaviate.cloud", auth_credentials=weaviate.auth.AuthApiKey("{}"))', lambda: rs(40), 'wc.is_ready()', 'True'),
    ]
    sel = sample(pool, ri(2, 3))
    ver = pick(['8.22.2', '8.26.0', '8.18.1'])
    out = [P(c, 'ipython'), f'Python 3.{pick(["11.9", "12.3", "10.14"])} (main, {fmt(c.t, "%b %d %Y, %H:%M:%S")}) [GCC 12.2.0]',
           "Type 'copyright', 'credits' or 'license' for more information",
           f'IPython {ver} -- An enhanced Interactive Python. Type \'?\' for help.', '']
    n = 1
    for imp, ctor, kf, call, res in sel:
        out.append(f'In [{n}]: {imp}')
        out.append('')
        n += 1
        out.append(f'In [{n}]: ' + ctor.replace('{}', M(kf())))
        out.append('')
        n += 1
        out.append(f'In [{n}]: {call}')
        out.append(f'Out[{n}]: {res}')
        out.append('')
        n += 1
    out.append(f'In [{n}]: ')
    return '\n'.join(out)


@pos
def p_php_payment_gateways():
    c = Ctx()
    adyen = 'AQE' + rs(ri(95, 110), B64STD) + '==-' + b64(32) + '-' + rs(16, B62 + '{=<;:#,>]}[')
    L = ['<?php', '', 'namespace App\\Providers;', '', 'use Braintree\\Gateway;',
         'use Illuminate\\Support\\ServiceProvider;', '', 'class PaymentServiceProvider extends ServiceProvider', '{',
         '    public function register(): void', '    {',
         '        $this->app->singleton(Gateway::class, fn () => new Gateway([',
         "            'environment' => 'production',", f"            'merchantId' => '{rs(16, ALNUM_LOW)}',",
         f"            'publicKey' => '{rs(16, ALNUM_LOW)}',", f"            'privateKey' => '{M(hx(32))}',",
         '        ]));', '']
    if chance(0.7):
        L += ['        $this->app->singleton(\\Adyen\\Client::class, function () {',
              '            $client = new \\Adyen\\Client();', f"            $client->setXApiKey('{M(adyen)}');",
              f"            $client->setEnvironment(\\Adyen\\Environment::LIVE, '{hx(16)}-{c.org.capitalize().replace('-', '')}');",
              '            return $client;', '        });', '']
    if chance(0.6):
        L += ['        $this->app->singleton(\\Mollie\\Api\\MollieApiClient::class, function () {',
              '            $mollie = new \\Mollie\\Api\\MollieApiClient();',
              f"            $mollie->setApiKey('{M('live_' + rs(30))}');", '            return $mollie;', '        });']
    L += ['    }', '}']
    return show(c, 'app/Providers/PaymentServiceProvider.php', '\n'.join(L))


@pos
def p_compiled_lang_sdk_init():
    c = Ctx()
    lang = ['csharp', 'kotlin', 'swift', 'scala', 'dart'][nth('compiled') % 5]
    P_ = c.proj.capitalize()
    if lang == 'csharp':
        L = ['using SendGrid;', 'using Twilio;', '', f'namespace {P_}.Notifications;', '',
             'public static class NotifierSetup', '{', '    public static void Configure(IServiceCollection services)', '    {',
             f'        TwilioClient.Init("AC{hx(32)}", "{M(hx(32))}");',
             f'        services.AddSingleton<ISendGridClient>(_ => new SendGridClient("{M(sendgrid_key())}"));',
             '    }', '}']
        path = f'src/{P_}.Api/Notifications/NotifierSetup.cs'
    elif lang == 'kotlin':
        L = [f'package com.{c.org.replace("-", "")}.{c.proj}.search', '', 'import com.algolia.search.client.ClientSearch',
             'import com.algolia.search.model.APIKey', 'import com.algolia.search.model.ApplicationID', '',
             'object SearchClients {', f'    private val appId = ApplicationID("{rs(10, ALNUM_UP)}")',
             f'    // admin key: needed for reindex job', f'    val admin = ClientSearch(appId, APIKey("{M(hx(32))}"))', '',
             f'    init {{ com.stripe.Stripe.apiKey = "{M(stripe_key("rk", "live"))}" }}', '}']
        path = f'server/src/main/kotlin/com/{c.org.replace("-", "")}/{c.proj}/search/SearchClients.kt'
    elif lang == 'swift':
        ref = rs(20, LOW)
        svc = jwt({'iss': 'supabase', 'ref': ref, 'role': 'service_role', 'iat': c.t, 'exp': c.t + 315360000})
        L = ['import Foundation', '', 'enum Secrets {', f'    static let supabaseURL = URL(string: "https://{ref}.supabase.co")!',
             f'    static let supabaseServiceKey = "{M(svc)}"',
             f'    static let openAIKey = "{M("sk-proj-" + rs(56, B64URL) + "T3BlbkFJ" + rs(56, B64URL))}"', '}']
        path = f'{P_}/Config/Secrets.swift'
    elif lang == 'scala':
        dc = pick(['us21', 'us14', 'us6'])
        L = [f'package {c.proj}.marketing', '', 'import sttp.client3._', '', 'object Mailchimp {',
             f'  private val apiKey = "{M(hx(32) + "-" + dc)}"',
             f'  private val base = uri"https://{dc}.api.mailchimp.com/3.0"', '',
             '  def lists(): Request[Either[String, String], Any] =',
             '    basicRequest.get(uri"$base/lists").auth.basic("anystring", apiKey)', '}']
        path = f'modules/marketing/src/main/scala/{c.proj}/marketing/Mailchimp.scala'
    else:
        L = ["import 'package:mailer/smtp_server.dart';", '',
             f"final smtp = SmtpServer('smtp.zoho.eu', port: 465, ssl: true,",
             f"    username: 'noreply@{c.domain}', password: '{M(password(avoid=chr(39) + '$'))}');", '',
             f"const sentryAuthToken = '{M('sntrys_' + b64u(90))}';"]
        path = 'bin/notify.dart'
    return show(c, path, '\n'.join(L))


@pos
def p_script_lang_sdk_init():
    c = Ctx()
    lang = ['perl', 'lua', 'r', 'julia', 'renviron'][nth('script') % 5]
    if lang == 'perl':
        L = ['#!/usr/bin/env perl', 'use strict;', 'use warnings;', 'use DBI;', 'use LWP::UserAgent;', '',
             f'my $dbh = DBI->connect("dbi:Pg:dbname={c.proj};host={c.proj}-db", "{c.proj}", \'{M(password(avoid=chr(39)))}\',',
             '    { RaiseError => 1, AutoCommit => 1 });', 'my $ua = LWP::UserAgent->new(timeout => 10);',
             f"$ua->default_header('X-Auth-Token' => '{M(hx(40))}');"]
        return show(c, f'bin/sync_{c.proj}.pl', '\n'.join(L))
    if lang == 'lua':
        L = ['local redis = require "resty.redis"', 'local hmac = require "resty.hmac"', '',
             f'local SIGNING_KEY = "{M(hx(64))}"', '', 'local red = redis:new()', 'red:set_timeout(1000)',
             'local ok, err = red:connect("127.0.0.1", 6379)', 'if not ok then ngx.log(ngx.ERR, err) return end',
             f'local ok, err = red:auth("{M(password(avoid=chr(34) + chr(92)))}")']
        return show(c, f'/etc/openresty/lua/{c.proj}_auth.lua', '\n'.join(L))
    if lang == 'r':
        base = f'app{rs(14)}'
        out = [P(c, 'R --quiet'), f'> Sys.setenv(OPENAI_API_KEY = "{M("sk-proj-" + rs(56, B64URL) + "T3BlbkFJ" + rs(56, B64URL))}")',
               '> library(httr2)',
               f'> req <- request("https://api.airtable.com/v0/{base}/Leads") |> req_auth_bearer_token("{M("pat" + rs(14) + "." + hx(64))}")',
               '> resp <- req_perform(req)', '> resp_status(resp)', '[1] 200']
        return '\n'.join(out)
    if lang == 'julia':
        out = [P(c, 'julia --project'), 'julia> using HTTP, JSON3', '',
               f'julia> const HF = "{M("hf_" + rs(34, UP + LOW))}";', '',
               'julia> r = HTTP.get("https://huggingface.co/api/whoami-v2", ["Authorization" => "Bearer $HF"]);', '',
               'julia> JSON3.read(r.body).name', f'"{c.user}"']
        return '\n'.join(out)
    mb = 'sk.' + b64uj({'u': c.user, 'a': rs(25, ALNUM_LOW)}) + '.' + rs(22, B62 + '-_')
    L = [f'GITHUB_PAT={M(gh_token("ghp_"))}', f'CENSUS_API_KEY={M(hx(40))}', f'MAPBOX_SECRET_TOKEN={M(mb)}',
         'R_MAX_VSIZE=32Gb']
    return show(c, '~/.Renviron', '\n'.join(shuffled(L)))


@pos
def p_fastlane_dotenv():
    c = Ctx()
    key = pem('PRIVATE KEY', ec_p256_pkcs8()).replace('\n', '\\n')
    kid = rs(10, ALNUM_UP)
    L = [f'FASTLANE_USER={c.email}', f'FASTLANE_TEAM_ID={rs(10, ALNUM_UP)}',
         f'FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD={M("-".join(rs(4, LOW) for _ in range(4)))}',
         f'MATCH_PASSWORD={M(password("phrase"))}',
         f'MATCH_GIT_URL=https://github.com/{c.org}/certificates.git',
         f'MATCH_GIT_BASIC_AUTHORIZATION={M(base64.b64encode((c.user + ":" + gh_token("ghp_")).encode()).decode())}',
         f'APP_STORE_CONNECT_API_KEY_KEY_ID={kid}', f'APP_STORE_CONNECT_API_KEY_ISSUER_ID={uuid4()}',
         f'APP_STORE_CONNECT_API_KEY_KEY="{M(key)}"',
         f'SLACK_URL_CHANNEL=#ios-releases']
    if chance(0.4):
        L = [l for l in L if 'KEY_KEY=' not in l]
        L.append(f'APP_STORE_CONNECT_API_KEY_KEY_FILEPATH=./fastlane/AuthKey_{kid}.p8')
    if chance(0.4):
        L.insert(2, f'FASTLANE_PASSWORD={M(password(avoid=" #"))}')
    return show(c, 'fastlane/.env', '\n'.join(L))


@pos
def p_swarm_join_token():
    c = Ctx()
    tok = f'SWMTKN-1-{rs(50, ALNUM_LOW)}-{rs(25, ALNUM_LOW)}'
    ip = f'10.{ri(0, 9)}.{ri(0, 9)}.{ri(10, 90)}'
    role = pick(['worker', 'manager'])
    if chance(0.4):
        nid = rs(25, ALNUM_LOW)
        out = [P(c, f'docker swarm init --advertise-addr {ip}', root=chance()),
               f'Swarm initialized: current node ({nid}) is now a manager.', '',
               'To add a worker to this swarm, run the following command:', '',
               f'    docker swarm join --token {M(tok)} {ip}:2377', '',
               "To add a manager to this swarm, run 'docker swarm join-token manager' and follow the instructions."]
        return '\n'.join(out)
    if chance():
        out = [P(c, 'docker node ls'),
               'ID                            HOSTNAME     STATUS    AVAILABILITY   MANAGER STATUS   ENGINE VERSION']
        for i in range(ri(1, 3)):
            out.append(f'{rs(25, ALNUM_LOW)}{" *" if i == 0 else "  "}   {c.proj}-{i + 1:<7}  Ready     Active         {"Leader" if i == 0 else "Reachable":<16} 26.1.{ri(0, 4)}')
        out += [P(c, f'docker swarm join-token -q {role}'), M(tok)]
        return '\n'.join(out)
    out = [P(c, f'docker swarm join-token {role}'), f'To add a {role} to this swarm, run the following command:', '',
           f'    docker swarm join --token {M(tok)} {ip}:2377', '']
    return '\n'.join(out)


@pos
def p_cloudflared_tunnel_json():
    c = Ctx()
    tid = uuid4()
    acct = hx(32)
    sec = b64(32)
    name = pick([f'{c.proj}-tunnel', 'homelab', f'{c.host}-ingress'])
    out = []
    if chance(0.5):
        out += [P(c, f'cloudflared tunnel create {name}'),
                f'Tunnel credentials written to {c.home}/.cloudflared/{tid}.json. cloudflared chose this file based on where your origin certificate was found. Keep this file secret. To revoke these credentials, delete the tunnel.',
                '', f'Created tunnel {name} with id {tid}']
    if not out:
        out += [P(c, 'cloudflared tunnel list'), 'You can obtain more detailed information for each tunnel with `cloudflared tunnel info <name/uuid>`',
                'ID                                   NAME            CREATED              CONNECTIONS',
                f'{tid} {name:<15} {iso(c.t)} {ri(1, 2)}x{pick(["fra", "ams", "lhr", "iad"])}0{ri(1, 9)}, {ri(1, 2)}x{pick(["fra", "cdg", "dfw"])}{ri(10, 20)}']
    out.append(P(c, f'cat ~/.cloudflared/{tid}.json'))
    out.append(f'{{"AccountTag":"{acct}","TunnelSecret":"{M(sec)}","TunnelID":"{tid}"' +
               (',"Endpoint":""}' if chance() else '}'))
    if chance(0.5):
        tok = base64.b64encode(json.dumps({'a': acct, 't': tid, 's': sec}, separators=(',', ':')).encode()).decode()
        out += [P(c, f'cloudflared tunnel token {name}'), M(tok)]
    return '\n'.join(out)


@pos
def p_ngrok_config_v3():
    c = Ctx()
    at = '2' + rs(26) + '_' + rs(21)
    L = ['version: "3"', 'agent:', f'    authtoken: {M(at)}']
    if chance(0.4):
        L.append(f'    api_key: {M("2" + rs(26) + "_" + rs(25))}')
    L += ['endpoints:', f'  - name: {c.proj}-web', f'    url: https://{c.proj}-{rs(4, ALNUM_LOW)}.ngrok.app',
          '    upstream:', f'      url: {pick([3000, 8080, 5173, 8000])}']
    if chance():
        L += ['    traffic_policy:', '      on_http_request:', '        - actions:', '            - type: basic-auth',
              '              config:', '                credentials:',
              f'                  - "{c.user}:{M(password(avoid=chr(34) + ":"))}"']
    path = pick(['~/.config/ngrok/ngrok.yml', '~/Library/Application Support/ngrok/ngrok.yml'])
    out = [P(c, 'ngrok config check'), f'Valid configuration file at {path.replace("~", c.home if "Library" not in path else "/Users/" + c.user)}',
           show(c, path.replace(' ', '\\ '), '\n'.join(L))]
    return '\n'.join(out)


@pos
def p_msmtprc():
    c = Ctx()
    L = ['# Set default values for all following accounts.', 'defaults', 'auth           on', 'tls            on',
         'tls_trust_file /etc/ssl/certs/ca-certificates.crt', 'logfile        ~/.msmtp.log', '']
    accts = []
    if chance(0.8):
        g = f'{c.user}.{rs(4, LOW)}@gmail.com'
        accts.append('gmail')
        L += ['# Gmail', 'account        gmail', 'host           smtp.gmail.com', 'port           587',
              f'from           {g}', f'user           {g}',
              f'password       {M(" ".join(rs(4, LOW) for _ in range(4)))}', '']
    accts.append('work')
    L += ['account        work', f'host           smtp.{c.domain}', 'port           465', 'tls_starttls   off',
          f'from           {c.email}', f'user           {c.email}']
    if chance():
        L.append(f'password       {M(password(avoid=" #"))}')
    else:
        L.append(f'passwordeval   "pass show mail/{c.domain}"')
        if len(accts) == 1:
            L += ['', 'account        alerts', 'host           smtp.postmarkapp.com', 'port           587',
                  f'from           alerts@{c.domain}', f'user           {M(u := uuid4())}', f'password       {M(u)}']
    L += ['', f'account default : {accts[0]}']
    return show(c, '~/.msmtprc', '\n'.join(L))


@pos
def p_paypal_token_curl():
    c = Ctx()
    cid = 'A' + rs(79, B62 + '-_')
    sec = 'E' + rs(79, B62 + '-_')
    env = pick(['api-m.sandbox.paypal.com', 'api-m.paypal.com'])
    basic = base64.b64encode(f'{cid}:{sec}'.encode()).decode()
    at = 'A21AA' + rs(ri(88, 100), B64URL)
    out = [P(c, f'curl -v -X POST https://{env}/v1/oauth2/token -u "{cid}:{M(sec)}" -d "grant_type=client_credentials"'),
           '*   Trying 151.101.1.21:443...', f'* Connected to {env} (151.101.1.21) port 443',
           '* ALPN: curl offers h2,http/1.1', '* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256',
           "* Server auth using Basic with user '" + cid + "'", '> POST /v1/oauth2/token HTTP/2',
           f'> Host: {env}', f'> Authorization: Basic {M(basic)}', '> User-Agent: curl/8.5.0', '> Accept: */*',
           '> Content-Length: 29', '> Content-Type: application/x-www-form-urlencoded', '>',
           '< HTTP/2 200', '< content-type: application/json', f'< paypal-debug-id: {hx(13)}', '<',
           json.dumps({'scope': 'https://uri.paypal.com/services/invoicing https://uri.paypal.com/services/payments/payment/authcapture openid',
                       'access_token': '@AT@', 'token_type': 'Bearer', 'app_id': f'APP-{rs(17, ALNUM_UP)}',
                       'expires_in': 32400}, separators=(',', ':')).replace('@AT@', M(at))]
    return '\n'.join(out)


@pos
def p_nextjs_env_saas():
    c = Ctx()
    clerk_pk = 'pk_live_' + base64.b64encode(f'clerk.{c.domain}$'.encode()).decode().rstrip('=')
    pool = [f'CLERK_SECRET_KEY={M("sk_live_" + rs(40))}',
            f'RESEND_API_KEY={M("re_" + rs(8) + "_" + rs(24))}',
            f'NOTION_TOKEN={M("ntn_" + rs(12, DIG) + rs(34))}' if chance() else f'NOTION_API_KEY={M("secret_" + rs(43))}',
            f'AIRTABLE_PAT={M("pat" + rs(14) + "." + hx(64))}',
            f'FIGMA_ACCESS_TOKEN={M("figd_" + rs(40, B62 + "-_"))}',
            f'LINEAR_API_KEY={M("lin_api_" + rs(40))}',
            f'ASANA_PAT={M("2/" + digits(16) + "/" + digits(16) + ":" + hx(32))}',
            f'DOPPLER_TOKEN={M("dp.st.prd." + rs(40))}']
    L = ['# Created by Vercel CLI' if chance(0.3) else '# local overrides - do not commit',
         f'NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY={clerk_pk}',
         f'NEXT_PUBLIC_APP_URL=http://localhost:3000'] + sample(pool, ri(3, 5))
    out = [P(c, 'npm run dev', cwd=f'~/code/{c.proj}-web'), '', f'> {c.proj}-web@0.1.0 dev', '> next dev', '',
           f'  \u25b2 Next.js {pick(["14.2.3", "15.0.3", "14.1.4"])}', '  - Local:        http://localhost:3000',
           '  - Environments: .env.local', '', ' \u2713 Starting...', f' \u2713 Ready in {ri(900, 3000)}ms',
           '^C', show(c, '.env.local', '\n'.join(L))]
    return '\n'.join(out)


@pos
def p_elixir_prod_secret_exs():
    c = Ctx()
    app = c.proj
    App = app.capitalize()
    pw = password(avoid=AV_URL + '"')
    L = ['import Config', '',
         f'config :{app}, {App}.Repo,',
         f'  url: "ecto://{app}:{M(pw)}@{app}-db.internal/{app}_prod",',
         '  pool_size: String.to_integer(System.get_env("POOL_SIZE") || "10"),', '  ssl: true', '',
         f'config :{app}, {App}Web.Endpoint,', f'  http: [ip: {{0, 0, 0, 0, 0, 0, 0, 0}}, port: 4000],',
         f'  secret_key_base: "{M(b64(48))}"', '']
    if chance():
        L += [f'config :{app}, {App}.Mailer,', '  adapter: Swoosh.Adapters.Postmark,', f'  api_key: "{M(uuid4())}"', '']
    if chance():
        L += ['config :joken,', f'  default_signer: "{M(rs(64, B62 + "+/"))}"', '']
    if chance(0.4):
        L += ['config :stripity_stripe,', f'  api_key: "{M(stripe_key("sk", "live"))}"']
    return show(c, 'config/prod.secret.exs', '\n'.join(L).rstrip())


@pos
def p_django_technical_500_text():
    c = Ctx()
    app = c.proj
    rpw = password(avoid=AV_URL)
    bpw = password(avoid=AV_URL)
    url = f'/api/{pick(["orders", "checkout", "invoices", "reports"])}/'
    exc = pick([('ConnectionError', 'Error 111 connecting to redis:6379. Connection refused.'),
                ('OperationalError', 'connection to server at "db" (172.18.0.3), port 5432 failed: Connection refused'),
                ('KeyError', "'customer_id'")])
    out = [P(c, f'curl -s -H "Accept: text/plain" -X POST http://localhost:8000{url} -d "{{}}" | head -n 60'),
           f'{exc[0]} at {url}', exc[1], '', 'Request Method: POST', f'Request URL: http://localhost:8000{url}',
           f'Django Version: {pick(["4.2.11", "5.0.4", "5.1.2"])}', f'Python Executable: /usr/local/bin/python',
           f'Python Version: 3.{pick(["11.9", "12.3"])}', "Python Path: ['/app', '/usr/local/lib/python312.zip']",
           f'Server time: {fmt(c.t, "%a, %d %b %Y %H:%M:%S")} +0000', '',
           'Traceback (most recent call last):',
           '  File "/usr/local/lib/python3.12/site-packages/django/core/handlers/exception.py", line 55, in inner',
           '    response = get_response(request)',
           f'  File "/app/{app}/views.py", line {ri(30, 200)}, in create', '    ' + pick(['cache.set(key, payload, 300)', 'order = Order.objects.create(**data)', "cid = data['customer_id']"]),
           '', f'Exception Type: {exc[0]} at {url}', f'Exception Value: {exc[1]}', 'Raised during: ' + f'{app}.views.OrderViewSet', '',
           'Request information:', 'USER: AnonymousUser', '', 'GET: No GET data', '', "POST: No POST data", '',
           'Settings:',
           f'Using settings module {app}.settings', 'ALLOWED_HOSTS = [\'*\']',
           f"CACHES = {{'default': {{'BACKEND': 'django_redis.cache.RedisCache', 'LOCATION': 'redis://:{M(rpw)}@redis:6379/1'}}}}",
           f"CELERY_BROKER_URL = 'amqp://{app}:{M(bpw)}@rabbitmq:5672/{app}'",
           "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'HOST': 'db', 'NAME': '" + app + "', 'PASSWORD': '********************', 'PORT': '5432', 'USER': '" + app + "'}}",
           'DEBUG = True', "EMAIL_HOST_PASSWORD = '********************'", "SECRET_KEY = '********************'"]
    if chance():
        out.insert(-3, f"ELASTICSEARCH_DSL = {{'default': {{'hosts': 'https://elastic:{M(password(avoid=AV_URL))}@es01:9200'}}}}")
    return '\n'.join(out)


@pos
def p_git_config_extraheader():
    c = Ctx()
    kind = pick(['gha', 'gha', 'ado'])
    L = [f'file:.git/config\tcore.repositoryformatversion=0', 'file:.git/config\tcore.filemode=true',
         'file:.git/config\tcore.bare=false']
    if kind == 'gha':
        hdr = base64.b64encode(('x-access-token:' + gh_token('ghs_')).encode()).decode()
        L += [f'file:.git/config\tremote.origin.url=https://github.com/{c.org}/{c.proj}',
              'file:.git/config\tgc.auto=0',
              f'file:.git/config\thttp.https://github.com/.extraheader=AUTHORIZATION: basic {M(hdr)}',
              f'file:.git/config\tbranch.main.remote=origin']
        pre = ['##[group]Run git config --list --show-origin', '[command]/usr/bin/git config --list --show-origin']
    else:
        tok = jwt({'nameid': uuid4(), 'scp': 'app_token', 'aui': uuid4(), 'sid': uuid4(),
                   'iss': 'app.vstoken.visualstudio.com', 'aud': f'app.vstoken.visualstudio.com|vso:{uuid4()}',
                   'nbf': c.t, 'exp': c.t + 3600}, alg='RS256', kid=rs(43, B64URL))
        L += [f'file:.git/config\tremote.origin.url=https://dev.azure.com/{c.org}/{c.proj}/_git/{c.proj}',
              f'file:.git/config\thttp.extraheader=AUTHORIZATION: bearer {M(tok)}']
        pre = ['Starting: Script', '========================== Starting Command Output ===========================',
               '[command]/usr/bin/bash --noprofile --norc /home/vsts/work/_temp/' + uuid4() + '.sh']
    t = c.t * 10 ** 7 + ri(0, 10 ** 7 - 1)
    lines = []
    for l in pre + L:
        t += ri(1000, 400000)
        lines.append(f'{fmt(t // 10 ** 7, "%Y-%m-%dT%H:%M:%S")}.{t % 10 ** 7:07d}Z {l}')
    return '\n'.join(lines)


@pos
def p_wp_config_php():
    c = Ctx()
    WPA = string.ascii_letters + DIG + '!@#$%^&*()-_ []{}<>~`+=,.;:/?|'
    db = f'wp_{c.proj}'
    L = ['<?php', '/**', ' * The base configuration for WordPress', ' *', ' * @package WordPress', ' */', '',
         '// ** Database settings - You can get this info from your web host ** //',
         f"define( 'DB_NAME', '{db}' );", f"define( 'DB_USER', '{db}_user' );",
         f"define( 'DB_PASSWORD', '{M(password(avoid=chr(39) + chr(92)))}' );",
         f"define( 'DB_HOST', '{pick(['localhost', '127.0.0.1:3306', 'mysql'])}' );", "define( 'DB_CHARSET', 'utf8mb4' );",
         "define( 'DB_COLLATE', '' );", '']
    keys = ['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT',
            'LOGGED_IN_SALT', 'NONCE_SALT']
    n = pick([8, 4, 8])
    for k in keys[:n]:
        val = rs(64, WPA)
        while val[0] == ' ' or val[-1] == ' ':
            val = rs(64, WPA)
        L.append(f"define( '{k}',{' ' * (17 - len(k))}'{M(val)}' );")
    L += ['', "$table_prefix = 'wp_';", '', "define( 'WP_DEBUG', false );"]
    out = show(c, f'/var/www/{c.proj}/wp-config.php', '\n'.join(L))
    return out


@pos
def p_redis_cli_monitor():
    c = Ctx()
    pw = password(avoid="' ")
    host = f'10.0.{ri(0, 9)}.{ri(10, 90)}'
    out = [P(c, f"redis-cli -h {host} -a '{M(pw)}' --no-auth-warning MONITOR"), 'OK']
    t = float(c.t)
    cl = f'10.0.{ri(0, 9)}.{ri(10, 90)}:{ri(30000, 60000)}'
    uid = ri(1000, 99999)
    lines = [f'"AUTH" "(redacted)"', f'"HGETALL" "user:{uid}:profile"', f'"EXPIRE" "cart:{uid}" "1800"']
    tokline = pick([f'"SETEX" "oauth:github:u{ri(100, 9999)}" "28800" "{M(gh_token("gho_"))}"',
                    f'"SET" "{c.proj}:slack:bot_token" "{M(slack_bot())}"',
                    f'"HSET" "integration:{ri(1, 999)}" "provider" "hubspot" "access_token" "{M("pat-na1-" + uuid4())}"'])
    lines.insert(ri(1, 3), tokline)
    lines += [f'"INCR" "ratelimit:{c.proj}:{ri(1, 999)}"', '"PING"']
    for l in lines:
        t += R.random() * 0.3
        out.append(f'{t:.6f} [0 {cl}] {l}')
    out.append('^C')
    return '\n'.join(out)


@pos
def p_tcpdump_ascii():
    c = Ctx()
    src = f'10.0.{ri(0, 9)}.{ri(10, 90)}'
    dst = f'10.0.{ri(0, 9)}.{ri(10, 90)}'
    port = pick([8080, 9200, 8086, 3000, 80])
    user = pick(['ingest', 'elastic', 'metrics', c.proj])
    pw = password(avoid=':')
    basic = base64.b64encode(f'{user}:{pw}'.encode()).decode()
    path = pick(['/_bulk', '/api/v2/write?org=' + c.org + '&bucket=metrics', '/v1/ingest', '/api/events'])
    body_len = ri(80, 600)
    t = c.t
    sport = ri(30000, 60000)
    usec = ri(0, 990000)
    out = [P(c, f"sudo tcpdump -i any -A -s0 'tcp port {port} and host {dst}'"),
           'tcpdump: data link type LINUX_SLL2',
           'tcpdump: verbose output suppressed, use -v[v]... for full protocol decode',
           f'listening on any, link-type LINUX_SLL2 (Linux cooked v2), snapshot length 262144 bytes',
           f'{fmt(t, "%H:%M:%S")}.{usec:06d} eth0  Out IP {src}.{sport} > {dst}.{port}: Flags [P.], seq 1:{body_len + 200}, ack 1, win 502, options [nop,nop,TS val {ri(10 ** 9, 4 * 10 ** 9)} ecr {ri(10 ** 9, 4 * 10 ** 9)}], length {body_len + 199}: HTTP: POST {path} HTTP/1.1',
           'E....@.@.' + rs(6, '.' + UP) + '...', f'POST {path} HTTP/1.1', f'Host: {dst}:{port}',
           'User-Agent: ' + pick(['Go-http-client/1.1', 'python-requests/2.31.0', 'Vector/0.37.1']),
           f'Content-Length: {body_len}', 'Content-Type: application/json']
    if chance(0.7):
        out.append(f'Authorization: Basic {M(basic)}')
    else:
        out.append(f'Authorization: Token {M(base64.urlsafe_b64encode(rb(64)).decode())}')
    if chance(0.3):
        out.append(f'X-Api-Key: {M(hx(32))}')
    out += ['Accept-Encoding: gzip', '', '{"events":[{"ts":' + str(t) + ',"host":"' + c.host + '","msg":"heartbeat"}]}',
            f'{fmt(t, "%H:%M:%S")}.{usec + ri(200, 3000):06d} eth0  In  IP {dst}.{port} > {src}.{sport}: Flags [.], ack {body_len + 200}, win 501, length 0']
    return '\n'.join(out)


# =================================================================
# Negative templates
# =================================================================

AWS32 = UP + '234567'


def akid(prefix='AKIA'):
    return prefix + rs(16, AWS32)


def acct_id():
    return digits(12)


@neg
def n_vault_list_accessors():
    c = Ctx()
    accs = [rs(24) for _ in range(ri(3, 6))]
    out = [P(c, 'vault list auth/token/accessors'), 'Keys', '----'] + accs
    a = pick(accs)
    t = c.t
    path = pick(['auth/github/login', 'auth/approle/login', 'auth/oidc/oidc/callback', 'auth/kubernetes/login'])
    out += [P(c, f'vault token lookup -accessor {a}'), 'Key                 Value', '---                 -----',
            f'accessor            {a}', f'creation_time       {t}', 'creation_ttl        768h',
            f'display_name        {path.split("/")[1]}-{c.user}', f'entity_id           {uuid4()}',
            f'expire_time         {iso(t + 768 * 3600, 9)}', 'explicit_max_ttl    0s', 'id                  n/a',
            f'issue_time          {iso(t, 9)}', f'meta                map[org:{c.org} username:{c.user}]',
            'num_uses            0', 'orphan              true', f'path                {path}',
            f'policies            [default {c.proj}-read]', 'renewable           true',
            f'ttl                 {ri(100, 767)}h{ri(0, 59)}m{ri(0, 59)}s', 'type                service']
    return '\n'.join(out)


@neg
def n_aws_iam_list_access_keys():
    c = Ctx()
    u = pick(['ci-deployer', f'{c.proj}-uploader', c.user, 'terraform'])
    keys = [(akid(), pick(['Active', 'Active', 'Inactive']), rtime()) for _ in range(ri(1, 2))]
    body = {'AccessKeyMetadata': [{'UserName': u, 'AccessKeyId': k, 'Status': s,
                                   'CreateDate': iso(t, 0, '+00:00')} for k, s, t in keys]}
    out = [P(c, f'aws iam list-access-keys --user-name {u}'), json.dumps(body, indent=4)]
    k = keys[0][0]
    out += [P(c, f'aws iam get-access-key-last-used --access-key-id {k}'),
            json.dumps({'UserName': u, 'AccessKeyLastUsed': {'LastUsedDate': iso(c.t, 0, '+00:00'),
                                                             'ServiceName': pick(['s3', 'sts', 'ecr', 'lambda']),
                                                             'Region': pick(REGIONS_AWS)}}, indent=4)]
    return '\n'.join(out)


@neg
def n_sts_get_caller_identity():
    c = Ctx()
    a = acct_id()
    role = pick(['AWSReservedSSO_AdministratorAccess_' + hx(16), 'Developer', f'{c.proj}-deploy', 'OrganizationAccountAccessRole'])
    sess = pick([c.email, f'botocore-session-{c.t}', f'GitHubActions', c.user])
    out = [P(c, 'aws sts get-caller-identity'),
           json.dumps({'UserId': f'{akid("AROA")}:{sess}', 'Account': a,
                       'Arn': f'arn:aws:sts::{a}:assumed-role/{role}/{sess}'}, indent=4)]
    if chance():
        tail = rs(4, AWS32)
        out += [P(c, 'aws configure list'),
                '      Name                    Value             Type    Location',
                '      ----                    -----             ----    --------',
                f'   profile                {c.proj + "-dev":>9}           manual    --profile',
                f'access_key     ****************{tail}              sso    ',
                f'secret_key     ****************{rs(4, B62)}              sso    ',
                f'    region                {pick(REGIONS_AWS)}      config-file    ~/.aws/config']
    return '\n'.join(out)


def nar_hash():
    return 'sha256-' + b64(32)


@neg
def n_nix_flake_metadata():
    c = Ctx()
    rev = hx(40)
    nh = nar_hash()
    enc = lambda h: h.replace('+', '%2B').replace('/', '%2F').replace('=', '%3D')
    t = c.t
    out = [P(c, 'nix flake metadata'), f'Resolved URL:  git+file://{c.home}/src/{c.proj}',
           f'Locked URL:    git+file://{c.home}/src/{c.proj}?narHash={enc(nh)}&rev={rev}',
           f'Description:   {c.proj} development environment', f'Path:          /nix/store/{rs(32, NIX32)}-source',
           f'Revision:      {rev}', f'Revisions:     {ri(40, 900)}', f'Last modified: {fmt(t, "%Y-%m-%d %H:%M:%S")}',
           'Inputs:']
    ins = sample(['nixpkgs', 'flake-utils', 'rust-overlay', 'home-manager', 'devenv'], ri(2, 3))
    for i, name in enumerate(ins):
        repo = {'nixpkgs': 'NixOS/nixpkgs', 'flake-utils': 'numtide/flake-utils', 'rust-overlay': 'oxalica/rust-overlay',
                'home-manager': 'nix-community/home-manager', 'devenv': 'cachix/devenv'}[name]
        branch = '\u2514' if i == len(ins) - 1 else '\u251c'
        out.append(f'{branch}\u2500\u2500\u2500{name}: github:{repo}/{hx(40)}?narHash={enc(nar_hash())} ({fmt(rtime(), "%Y-%m-%d %H:%M:%S")})')
        if name == 'flake-utils':
            pre = '    ' if i == len(ins) - 1 else '\u2502   '
            out.append(f'{pre}\u2514\u2500\u2500\u2500systems: github:nix-systems/default/{hx(40)}?narHash={enc(nar_hash())} (2023-04-09 08:27:08)')
    return '\n'.join(out)


@neg
def n_bazel_aquery():
    c = Ctx()
    pkg = pick(['svc/api', 'libs/auth', 'cmd/worker', 'pkg/store'])
    cfg = f'k8-opt-exec-ST-{hx(12)}'
    out = [P(c, f"bazel aquery 'mnemonic(\"GoCompilePkg\", //{pkg}/...)' --output=text"),
           f'INFO: Analyzed {ri(2, 30)} targets (0 packages loaded, 0 targets configured).',
           f'INFO: Found {ri(2, 30)} targets...']
    for sub in sample(['', '_test', '_lib', '_mocks'], ri(1, 2)):
        name = pkg.split('/')[-1] + sub
        out += [f"action 'GoCompilePkg {pkg}/{name}.a'", '  Mnemonic: GoCompilePkg', f'  Target: //{pkg}:{name}',
                '  Configuration: k8-fastbuild', '  Execution platform: @@local_config_platform//:host',
                f'  ActionKey: {hx(64)}',
                f'  Inputs: [bazel-out/{cfg}/bin/external/go_sdk/builder_reset/builder, external/go_sdk/pkg/tool/linux_amd64/compile, {pkg}/{name.replace("_", "")}.go]',
                f'  Outputs: [bazel-out/k8-fastbuild/bin/{pkg}/{name}.a, bazel-out/k8-fastbuild/bin/{pkg}/{name}.x]',
                f'  Command Line: (exec bazel-out/{cfg}/bin/external/go_sdk/builder_reset/builder \\',
                '    compilepkg \\', '    -sdk \\', '    external/go_sdk \\', '    -installsuffix \\', '    linux_amd64 \\',
                f'    -importpath github.com/{c.org}/{c.proj}/{pkg} \\', f'    -o bazel-out/k8-fastbuild/bin/{pkg}/{name}.a)',
                '# Configuration: ' + hx(64), '# Execution platform: @@local_config_platform//:host', '']
    return '\n'.join(out).rstrip()


@neg
def n_gradle_build_scan():
    c = Ctx()
    mods = sample(['app', 'core', 'data', 'domain', 'feature-login', 'network'], ri(2, 4))
    out = [P(c, './gradlew assembleRelease --build-cache --info --scan | grep -E "Build cache key|BUILD|scan|actionable"')]
    for m in mods:
        task = pick(['compileReleaseKotlin', 'compileReleaseJavaWithJavac', 'mergeReleaseResources'])
        out.append(f"Build cache key for task ':{m}:{task}' is {hx(32)}")
    out += [f'BUILD SUCCESSFUL in {ri(1, 5)}m {ri(1, 59)}s',
            f'{ri(80, 400)} actionable tasks: {ri(5, 40)} executed, {ri(10, 200)} from cache, {ri(10, 100)} up-to-date', '',
            'Publishing build scan...']
    if chance():
        out.append(f'https://gradle.com/s/{rs(13, ALNUM_LOW)}')
    else:
        out.append(f'https://develocity.{c.domain}/s/{rs(13, ALNUM_LOW)}')
    return '\n'.join(out)


@neg
def n_maven_deploy_checksums():
    c = Ctx()
    grp = f'com.{c.org.replace("-", "")}'
    art = f'{c.proj}-core'
    ver = f'{ri(1, 4)}.{ri(0, 20)}.{ri(0, 9)}'
    repo = f'https://nexus.{c.domain}/repository/maven-releases'
    base = f'{repo}/{grp.replace(".", "/")}/{art}/{ver}/{art}-{ver}'
    out = [P(c, 'mvn -B deploy -DskipTests | tail -n 14'),
           f'[INFO] --- deploy:3.1.1:deploy (default-deploy) @ {art} ---']
    for ext, kb in (('pom', ri(2, 9)), ('jar', ri(40, 900))):
        out += [f'Uploading to nexus-releases: {base}.{ext}', f'Uploaded to nexus-releases: {base}.{ext} ({kb} kB at {ri(100, 900)} kB/s)']
    out += [f'Downloading from nexus-releases: {repo}/{grp.replace(".", "/")}/{art}/maven-metadata.xml',
            f'Uploading to nexus-releases: {repo}/{grp.replace(".", "/")}/{art}/maven-metadata.xml',
            '[INFO] ------------------------------------------------------------------------', '[INFO] BUILD SUCCESS',
            '[INFO] ------------------------------------------------------------------------']
    lp = f'~/.m2/repository/{grp.replace(".", "/")}/{art}/{ver}'
    out += [P(c, f'cat {lp}/{art}-{ver}.jar.sha1 {lp}/{art}-{ver}.pom.md5; echo'), hx(40), hx(32)]
    if chance():
        out += [P(c, f'sha256sum target/{art}-{ver}.jar'), f'{hx(64)}  target/{art}-{ver}.jar']
    return '\n'.join(out)


@neg
def n_helm_push_digest():
    c = Ctx()
    ver = f'{ri(0, 3)}.{ri(0, 20)}.{ri(0, 9)}'
    reg = pick([f'ghcr.io/{c.org}/charts', f'{acct_id()}.dkr.ecr.{pick(REGIONS_AWS)}.amazonaws.com/charts',
                f'registry.{c.domain}/helm'])
    d = hx(64)
    out = [P(c, f'helm package charts/{c.proj}'),
           f'Successfully packaged chart and saved it to: {c.home}/src/{c.proj}/{c.proj}-{ver}.tgz',
           P(c, f'helm push {c.proj}-{ver}.tgz oci://{reg}'), f'Pushed: {reg}/{c.proj}:{ver}', f'Digest: sha256:{d}']
    if chance():
        out += [P(c, f'helm show chart oci://{reg}/{c.proj} --version {ver}'), f'Pulled: {reg}/{c.proj}:{ver}',
                f'Digest: sha256:{d}', 'apiVersion: v2', f'appVersion: {ri(1, 5)}.{ri(0, 30)}.{ri(0, 9)}',
                f'description: A Helm chart for {c.proj}', f'name: {c.proj}', 'type: application', f'version: {ver}']
    return '\n'.join(out)


@neg
def n_skopeo_inspect():
    c = Ctx()
    img = f'ghcr.io/{c.org}/{c.proj}-api'
    tag = f'{ri(1, 3)}.{ri(0, 20)}.{ri(0, 9)}'
    layers = [f'sha256:{hx(64)}' for _ in range(ri(2, 4))]
    obj = {'Name': img, 'Digest': f'sha256:{hx(64)}', 'RepoTags': [tag, 'latest', f'sha-{hx(7)}'],
           'Created': iso(c.t, 9), 'DockerVersion': '',
           'Labels': {'org.opencontainers.image.created': iso(c.t),
                      'org.opencontainers.image.revision': hx(40),
                      'org.opencontainers.image.source': f'https://github.com/{c.org}/{c.proj}',
                      'org.opencontainers.image.version': tag},
           'Architecture': 'amd64', 'Os': 'linux', 'Layers': layers,
           'LayersData': [{'MIMEType': 'application/vnd.oci.image.layer.v1.tar+gzip', 'Digest': l,
                           'Size': ri(1000, 90000000), 'Annotations': None} for l in layers[:1]],
           'Env': ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
                   f'NODE_VERSION={pick(["20.11.1", "18.19.1", "22.2.0"])}', 'YARN_VERSION=1.22.19',
                   'NODE_ENV=production']}
    return P(c, f'skopeo inspect docker://{img}:{tag}') + '\n' + json.dumps(obj, indent=4)


@neg
def n_jaeger_trace_json():
    c = Ctx()
    tid = hx(32)
    ops = [('HTTP POST /api/orders', 'api-gateway'), ('OrdersService/Create', f'{c.proj}-orders'),
           ('SELECT orders', f'{c.proj}-orders'), ('redis GET', f'{c.proj}-orders'), ('publish orders.created', f'{c.proj}-orders')]
    spans = []
    parent = None
    for op, svc in ops[:3]:
        sid = hx(16)
        sp = {'traceID': tid, 'spanID': sid, 'operationName': op, 'references':
              ([{'refType': 'CHILD_OF', 'traceID': tid, 'spanID': parent}] if parent else []),
              'startTime': c.t * 1000000 + ri(0, 999999), 'duration': ri(200, 90000),
              'processID': 'p' + str(ri(1, 3)), 'tags': [{'key': 'otel.library.name', 'type': 'string', 'value': 'opentelemetry-instrumentation'}]}
        spans.append(sp)
        parent = sid
    out = P(c, f"curl -s http://localhost:16686/api/traces/{tid} | jq '.data[0].spans[] | {{traceID, spanID, operationName, references, duration}}'")
    for sp in spans:
        out += '\n' + json.dumps({k: sp[k] for k in ('traceID', 'spanID', 'operationName', 'references', 'duration')}, indent=2)
    return out


@neg
def n_bitcoin_cli_addressinfo():
    c = Ctx()
    net = pick(['testnet', 'signet', 'regtest', 'main'])
    hrp = {'testnet': 'tb', 'signet': 'tb', 'regtest': 'bcrt', 'main': 'bc'}[net]
    flag = '' if net == 'main' else f'-{net} '
    prog = rb(20)
    addr = segwit_addr(hrp, prog)
    pub = pick(['02', '03']) + hx(64)
    fp = hx(8)
    coin = '0h' if net == 'main' else '1h'
    idx = ri(0, 80)
    info = {'address': addr, 'scriptPubKey': '0014' + prog.hex(), 'ismine': True, 'solvable': True,
            'desc': f'wpkh([{fp}/84h/{coin}/0h/0/{idx}]{pub})#{rs(8, BECH)}', 'iswatchonly': False,
            'isscript': False, 'iswitness': True, 'witness_version': 0, 'witness_program': prog.hex(),
            'pubkey': pub, 'iscompressed': True, 'ischange': False, 'timestamp': c.t,
            'hdkeypath': f'm/84h/{coin}/0h/0/{idx}', 'hdmasterfingerprint': fp, 'labels': ['']}
    out = [P(c, f'bitcoin-cli {flag}getnewaddress "" bech32'), addr,
           P(c, f'bitcoin-cli {flag}getaddressinfo {addr}'), json.dumps(info, indent=2)]
    if chance():
        out += [P(c, f'bitcoin-cli {flag}getbestblockhash'), '0000000000' + hx(54)]
    return '\n'.join(out)


@neg
def n_solana_cli_output():
    c = Ctx()
    cl = pick(['devnet', 'testnet', 'mainnet-beta'])
    me = b58enc(rb(32))
    to = b58enc(rb(32))
    out = [P(c, 'solana config get'), f'Config File: {c.home}/.config/solana/cli/config.yml',
           f'RPC URL: https://api.{cl}.solana.com', f'WebSocket URL: wss://api.{cl}.solana.com/ (computed)',
           f'Keypair Path: {c.home}/.config/solana/id.json', 'Commitment: confirmed',
           P(c, 'solana address'), me, P(c, 'solana balance'), f'{ri(0, 9)}.{ri(1, 999999)} SOL',
           P(c, f'solana transfer {to} 0.05 --allow-unfunded-recipient'), '', f'Signature: {b58enc(rb(64))}', '']
    if chance():
        out += [P(c, 'spl-token accounts'), 'Token                                         Balance',
                '-' * 57]
        for _ in range(ri(1, 3)):
            out.append(f'{b58enc(rb(32)):<44}  {ri(1, 100000)}')
    return '\n'.join(out)


@neg
def n_gpg_verify_signature():
    c = Ctx()
    proj = pick(['terraform', 'vault', 'node', 'postgresql', c.proj])
    mail = f'security@{proj}.{pick(["org", "io"])}'
    fpr = HX(40)
    sub = HX(40)
    t = c.t
    out = [P(c, f'gpg --keyserver hkps://keys.openpgp.org --recv-keys {fpr}'),
           f'gpg: key {fpr[-16:]}: public key "{proj.capitalize()} Release Signing <{mail}>" imported',
           'gpg: Total number processed: 1', 'gpg:               imported: 1',
           P(c, f'gpg --verify {proj}_SHA256SUMS.sig {proj}_SHA256SUMS'),
           f'gpg: Signature made {fmt(t, "%a %d %b %Y %I:%M:%S %p")} UTC', f'gpg:                using RSA key {sub}',
           f'gpg: Good signature from "{proj.capitalize()} Release Signing <{mail}>" [unknown]',
           'gpg: WARNING: This key is not certified with a trusted signature!',
           'gpg:          There is no indication that the signature belongs to the owner.',
           'Primary key fingerprint: ' + ' '.join(fpr[i:i + 4] for i in range(0, 20, 4)) + '  ' + ' '.join(fpr[i:i + 4] for i in range(20, 40, 4)),
           '     Subkey fingerprint: ' + ' '.join(sub[i:i + 4] for i in range(0, 20, 4)) + '  ' + ' '.join(sub[i:i + 4] for i in range(20, 40, 4)),
           P(c, f'sha256sum -c {proj}_SHA256SUMS --ignore-missing'), f'{proj}_{ri(1, 9)}.{ri(0, 20)}.{ri(0, 9)}_linux_amd64.zip: OK']
    return '\n'.join(out)


@neg
def n_ssh_keyscan_fingerprints():
    c = Ctx()
    host = pick([f'git.{c.domain}', f'bastion.{c.domain}', 'github.com', f'{c.host}.{c.domain}'])
    fp = lambda: 'SHA256:' + b64(32).rstrip('=')
    out = [P(c, f'ssh-keyscan -t ed25519,ecdsa,rsa {host} 2>/dev/null | ssh-keygen -lf -')]
    fps = {'ED25519': fp(), 'ECDSA': fp(), 'RSA': fp()}
    out += [f'256 {fps["ED25519"]} {host} (ED25519)', f'256 {fps["ECDSA"]} {host} (ECDSA)',
            f'{pick([2048, 3072, 4096])} {fps["RSA"]} {host} (RSA)']
    if chance():
        out += [P(c, f'ssh-keygen -F {host} -l'), f'# Host {host} found: line {ri(3, 60)}',
                f'{host} ED25519 {fps["ED25519"]}']
    else:
        out += [P(c, f'ssh-keygen -E md5 -lf /etc/ssh/ssh_host_ed25519_key.pub'),
                f'256 MD5:{colon_hex(16, False)} root@{c.host} (ED25519)']
    return '\n'.join(out)


@neg
def n_keytool_list_certs():
    c = Ctx()
    alias = pick([f'{c.org}-root-ca', 'corp-proxy', f'{c.proj}-internal-ca'])
    t = c.t
    ski = [hx(2).upper() for _ in range(20)]
    cc = pick(['US', 'DE', 'GB'])
    out = [P(c, f'keytool -list -v -cacerts -alias {alias}'), 'Enter keystore password:  ',
           f'Alias name: {alias}', f'Creation date: {fmt(t, "%b %d, %Y")}', 'Entry type: trustedCertEntry', '',
           f'Owner: CN={c.org.capitalize()} Root CA, O={c.org.capitalize()}, C={cc}',
           f'Issuer: CN={c.org.capitalize()} Root CA, O={c.org.capitalize()}, C={cc}', f'Serial number: {hx(ri(32, 40))}',
           f'Valid from: {fmt(t, "%a %b %d %H:%M:%S UTC %Y")} until: {fmt(t + 3650 * 86400, "%a %b %d %H:%M:%S UTC %Y")}',
           'Certificate fingerprints:', f'\t SHA1: {colon_hex(20)}', f'\t SHA256: {colon_hex(32)}',
           'Signature algorithm name: SHA256withRSA', 'Subject Public Key Algorithm: 4096-bit RSA key', 'Version: 3',
           '', 'Extensions: ', '', '#1: ObjectId: 2.5.29.19 Criticality=true', 'BasicConstraints:[',
           '  CA:true', '  PathLen: no limit', ']', '', '#2: ObjectId: 2.5.29.14 Criticality=false',
           'SubjectKeyIdentifier [', 'KeyIdentifier [',
           '0000: ' + ' '.join(ski[:8]) + ' ' + ' '.join(ski[8:16]) + '  ' + rs(16, '.' + UP + LOW + DIG),
           '0010: ' + ' '.join(ski[16:]) + ' ' * 38 + rs(4, '.' + UP + LOW), ']', ']']
    return '\n'.join(out)


@neg
def n_webpack_build_output():
    c = Ctx()
    if chance(0.35):
        out = [P(c, 'npx webpack --mode production'), f'Hash: {hx(20)}', 'Version: webpack 4.46.0',
               f'Time: {ri(4000, 40000)}ms', f'Built at: {fmt(c.t, "%m/%d/%Y %I:%M:%S %p")}',
               '                        Asset       Size  Chunks                         Chunk Names']
        for n in ('main', 'vendors~main', 'runtime'):
            h = hx(20)
            out.append(f'{(n + "." + h + ".js"):>42}  {ri(2, 900)} KiB  {ri(0, 9)}  [emitted] [immutable]  {n}')
        return '\n'.join(out)
    out = [P(c, 'npm run build'), '', f'> {c.proj}-ui@{ri(0, 3)}.{ri(0, 20)}.0 build', '> webpack --mode production', '']
    out.append(f'asset main.{hx(16)}.js {ri(100, 900)} KiB [emitted] [immutable] [minimized] [big] (name: main) 2 related assets')
    for _ in range(ri(2, 4)):
        out.append(f'asset {ri(100, 999)}.{hx(16)}.js {ri(1, 90)}.{ri(1, 9)} KiB [emitted] [immutable] [minimized] 1 related asset')
    out += [f'asset styles.{hx(16)}.css {ri(10, 90)} KiB [emitted] [immutable] (name: main)',
            'asset index.html 1.1 KiB [emitted]', f'orphan modules {ri(1, 3)}.{ri(1, 9)} MiB [orphan] {ri(100, 900)} modules',
            f'runtime modules {ri(5, 12)}.{ri(1, 9)} KiB {ri(8, 16)} modules',
            f'webpack 5.{ri(88, 96)}.{ri(0, 3)} compiled with {ri(1, 3)} warnings in {ri(4000, 40000)} ms']
    return '\n'.join(out)


@neg
def n_next_build_id():
    c = Ctx()
    out = [P(c, 'npx next build'), f'  \u25b2 Next.js {pick(["14.1.3", "14.2.5", "15.0.3"])}', '',
           '   Creating an optimized production build ...', ' \u2713 Compiled successfully',
           ' \u2713 Linting and checking validity of types', ' \u2713 Collecting page data',
           f' \u2713 Generating static pages ({(n := ri(5, 30))}/{n})', ' \u2713 Finalizing page optimization', '',
           'Route (app)                              Size     First Load JS']
    routes = ['/', '/_not-found', '/dashboard', '/login', '/settings', f'/{c.proj}/[id]']
    sel = sample(routes, ri(3, 5))
    for i, r in enumerate(sel):
        b = '\u250c' if i == 0 else ('\u2514' if i == len(sel) - 1 else '\u251c')
        out.append(f'{b} \u25cb {r:<36} {ri(1, 9)}.{ri(1, 9)} kB{"":>9}{ri(84, 140)} kB')
    out += [f'+ First Load JS shared by all            {ri(80, 90)}.{ri(1, 9)} kB',
            f'  \u251c chunks/{ri(100, 999)}-{hx(16)}.js        {ri(20, 30)}.{ri(1, 9)} kB',
            f'  \u251c chunks/{hx(8)}-{hx(16)}.js  53.6 kB', '  \u2514 other shared chunks (total)          1.9 kB', '',
            '\u25cb  (Static)  prerendered as static content', '',
            P(c, 'cat .next/BUILD_ID; echo'), rs(21, B62 + '-_')]
    return '\n'.join(out)


@neg
def n_sentry_cli_sourcemaps():
    c = Ctx()
    rel = f'{c.proj}@{ri(1, 4)}.{ri(0, 20)}.{ri(0, 9)}+{hx(40)}'
    files = [f'index-{hx(8)}.js', f'vendor-{hx(8)}.js', f'chart-{hx(8)}.js']
    ids = [uuid4() for _ in files]
    out = [P(c, 'npx sentry-cli sourcemaps inject ./dist'), '> Searching ./dist', f'> Found {len(files) * 2} files',
           f'> Analyzing {len(files) * 2} sources', '> Injecting debug ids', '',
           'Source Map Debug ID Injection Report', '  Modified: The following source files have been modified to have debug ids']
    for f, i in zip(files, ids):
        out.append(f'    {i} - ./dist/assets/{f}')
    out += [P(c, f'npx sentry-cli sourcemaps upload --org {c.org} --project {c.proj} --release={rel} ./dist'),
            f'> Found {len(files) * 2} files', '> Analyzing sources', '> Adding source map references',
            f'> Bundled {len(files) * 2} files for upload', f'> Bundle ID: {uuid4()}', '> Uploaded files to Sentry',
            '> File processing complete', '', 'Source Map Upload Report', '  Minified Scripts']
    for f, i in zip(files, ids):
        out.append(f'    ~/assets/{f} (sourcemap at {f}.map, debug id {i})')
    return '\n'.join(out)


@neg
def n_launchdarkly_js_init():
    c = Ctx()
    cid = hx(24)
    out = [P(c, "rg -n 'LDClient|initialize\\(|clientSideID' src/")]
    out += ['src/flags/client.ts', "3:import * as LDClient from 'launchdarkly-js-client-sdk';",
            f"7:const CLIENT_SIDE_ID = '{cid}'; // client-side ID, safe to ship",
            f"12:  const client = LDClient.initialize(CLIENT_SIDE_ID, {{ kind: 'user', key: user.id }});", '',
            'src/flags/provider.tsx', f"9:    <LDProvider clientSideID=\"{cid}\" reactOptions={{{{ useCamelCaseFlagKeys: true }}}}>"]
    if chance():
        out += ['', '.env.production', f'2:NEXT_PUBLIC_LD_CLIENT_SIDE_ID={cid}']
    return '\n'.join(out)


@neg
def n_stripe_js_checkout():
    c = Ctx()
    pk = 'pk_live_51' + rs(97)
    out = [P(c, f'curl -s https://{c.proj}.{c.domain}/pricing | grep -n -i -E "stripe|price_"'),
           '14:    <script src="https://js.stripe.com/v3/"></script>',
           f"212:      const stripe = Stripe('{pk}');"]
    for i in range(ri(2, 3)):
        out.append(f'{230 + i * 7}:      <button data-price="price_1{rs(23)}" class="plan">{pick(["Starter", "Pro", "Team", "Enterprise"])}</button>')
    out.append("251:      stripe.redirectToCheckout({ lineItems: [{ price: el.dataset.price, quantity: 1 }], mode: 'subscription' });")
    return '\n'.join(out)


@neg
def n_firebase_web_config():
    c = Ctx()
    pid = f'{c.proj}-{rs(5, ALNUM_LOW)}'
    sender = digits(12)
    L = ['import { initializeApp } from "firebase/app";', 'import { getAuth } from "firebase/auth";', '',
         '// Web app config (public; access is enforced by Security Rules)', 'const firebaseConfig = {',
         f'  apiKey: "AIza{rs(35, B62 + "-_")}",', f'  authDomain: "{pid}.firebaseapp.com",', f'  projectId: "{pid}",',
         f'  storageBucket: "{pid}.appspot.com",', f'  messagingSenderId: "{sender}",',
         f'  appId: "1:{sender}:web:{hx(22)}",', f'  measurementId: "G-{rs(10, ALNUM_UP)}"', '};', '',
         'export const app = initializeApp(firebaseConfig);', 'export const auth = getAuth(app);']
    return show(c, pick(['src/lib/firebase.ts', 'src/firebase.js', 'web/src/firebase.ts']), '\n'.join(L))


@neg
def n_recaptcha_site_key_html():
    c = Ctx()
    kind = pick(['recaptcha', 'turnstile', 'hcaptcha'])
    if kind == 'recaptcha':
        k = '6L' + pick('cdef') + rs(5, B62 + '-_') + 'AAAAA' + rs(27, B62 + '-_')
        lines = [f'templates/contact.html:{ri(20, 80)}:      <div class="g-recaptcha" data-sitekey="{k}"></div>',
                 f'templates/base.html:{ri(5, 15)}:  <script src="https://www.google.com/recaptcha/api.js?render={k}" async defer></script>']
    elif kind == 'turnstile':
        k = '0x4AAAAAAA' + rs(14, B62 + '-_')
        lines = [f'templates/signup.html:{ri(20, 80)}:    <div class="cf-turnstile" data-sitekey="{k}" data-theme="light"></div>',
                 f'templates/base.html:{ri(5, 15)}:  <script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>']
    else:
        k = uuid4()
        lines = [f'templates/login.html:{ri(20, 80)}:      <div class="h-captcha" data-sitekey="{k}"></div>',
                 f'templates/base.html:{ri(5, 15)}:  <script src="https://js.hcaptcha.com/1/api.js" async defer></script>']
    return P(c, 'grep -rn -i "sitekey\\|captcha.*js" templates/') + '\n' + '\n'.join(lines)


@neg
def n_cli_help_examples():
    c = Ctx()
    tool = f'{c.proj}ctl'
    out = [P(c, f'{tool} deploy --help'), f'Usage: {tool} deploy [OPTIONS] ENVIRONMENT', '',
           '  Deploy the current build to ENVIRONMENT.', '', 'Options:',
           f'  --api-key TEXT       API key for the {c.proj} control plane (env: {c.proj.upper()}_API_KEY)  [required]',
           '  --token TEXT         Personal access token; overrides --api-key',
           '  --region [eu|us]     Region to deploy to  [default: eu]', '  --dry-run            Print the plan and exit',
           '  -h, --help           Show this message and exit.', '', 'Examples:',
           f'  $ export {c.proj.upper()}_API_KEY={pick(["<your-api-key>", "<YOUR_API_KEY>", "REPLACE_ME", "your_api_key_here"])}',
           f'  $ {tool} deploy staging --api-key {pick(["sk-...", "sk-xxxxxxxxxxxxxxxxxxxxxxxx", "$" + c.proj.upper() + "_API_KEY", "<key>"])}',
           f'  $ {tool} deploy production --token "${c.proj.upper()}_TOKEN" --region us', '',
           f'Docs: https://docs.{c.domain}/cli/deploy']
    return '\n'.join(out)


@neg
def n_gha_workflow_refs():
    c = Ctx()
    L = ['name: deploy', '', 'on:', '  push:', '    branches: [main]', '', 'permissions:', '  id-token: write',
         '  contents: read', '', 'jobs:', '  deploy:', '    runs-on: ubuntu-latest', '    environment: production',
         '    steps:', f'      - uses: actions/checkout@{hx(40)} # v4.1.7',
         f'      - uses: aws-actions/configure-aws-credentials@{hx(40)} # v4.0.2', '        with:',
         f'          role-to-assume: arn:aws:iam::{acct_id()}:role/{c.proj}-gha-deploy',
         '          aws-region: ${{ vars.AWS_REGION }}',
         f'      - uses: docker/login-action@{hx(40)} # v3.2.0', '        with:', '          registry: ghcr.io',
         '          username: ${{ github.actor }}', '          password: ${{ secrets.GITHUB_TOKEN }}',
         '      - name: Migrate', '        env:', '          DATABASE_URL: ${{ secrets.DATABASE_URL }}',
         '          SENTRY_AUTH_TOKEN: ${{ secrets.SENTRY_AUTH_TOKEN }}', '        run: make migrate']
    return show(c, '.github/workflows/deploy.yml', '\n'.join(L))


@neg
def n_nomad_job_template():
    c = Ctx()
    img = f'ghcr.io/{c.org}/{c.proj}@sha256:{hx(64)}'
    L = [f'job "{c.proj}-api" {{', '  datacenters = ["dc1"]', '  type = "service"', '',
         '  group "api" {', f'    count = {ri(2, 5)}', '', '    task "server" {', '      driver = "docker"', '',
         '      config {', f'        image = "{img}"', '        ports = ["http"]', '      }', '',
         '      vault {', f'        policies = ["{c.proj}-read"]', '      }', '',
         '      template {', '        destination = "secrets/app.env"', '        env         = true',
         '        data        = <<EOH',
         f'{{{{ with secret "kv/data/{c.proj}/db" }}}}',
         'DATABASE_PASSWORD={{ .Data.data.password }}', '{{ end }}',
         f'{{{{ with secret "kv/data/{c.proj}/stripe" }}}}STRIPE_SECRET_KEY={{{{ .Data.data.secret_key }}}}{{{{ end }}}}',
         f'REDIS_ADDR={{{{ range service "{c.proj}-redis" }}}}{{{{ .Address }}}}:{{{{ .Port }}}}{{{{ end }}}}', 'EOH',
         '      }', '    }', '  }', '}']
    return show(c, f'deploy/nomad/{c.proj}-api.nomad.hcl', '\n'.join(L))


@neg
def n_sealed_secret_yaml():
    c = Ctx()
    ns = f'{c.proj}-prod'
    keys = sample(['DATABASE_URL', 'REDIS_PASSWORD', 'STRIPE_SECRET_KEY', 'JWT_SIGNING_KEY', 'SMTP_PASSWORD'], ri(2, 3))
    L = ['apiVersion: bitnami.com/v1alpha1', 'kind: SealedSecret', 'metadata:', f'  name: {c.proj}-env',
         f'  namespace: {ns}', f'  uid: {uuid4()}', f'  resourceVersion: "{ri(10 ** 6, 10 ** 8)}"', 'spec:',
         '  encryptedData:']
    for k in sorted(keys):
        L.append(f'    {k}: ' + base64.b64encode(b'\x02\x00' + rb(512 + ri(20, 120))).decode())
    L += ['  template:', '    metadata:', f'      name: {c.proj}-env', f'      namespace: {ns}', '    type: Opaque',
          'status:', '  conditions:', f'  - lastTransitionTime: "{iso(c.t)}"', '    status: "True"', '    type: Synced',
          '  observedGeneration: 1']
    return P(c, f'kubectl get sealedsecret {c.proj}-env -n {ns} -o yaml') + '\n' + '\n'.join(L)


@neg
def n_getent_shadow():
    c = Ctx()
    users = ['root'] + sample(USERS, ri(1, 3)) + [pick(['deploy', 'ansible', 'backup'])]
    out = [P(c, "sudo getent shadow | grep -v ':[*!]'")]
    for u in users:
        day = ri(19000, 20100)
        if chance(0.6):
            h = f'$y$j9T${crypt_salt(22)}${crypt_salt(43)}'
        else:
            h = f'$6${crypt_salt(16)}${crypt_salt(86)}'
        out.append(f'{u}:{h}:{day}:0:99999:7:::')
    u = users[1]
    out += [P(c, f'sudo chage -l {u}'),
            f'Last password change\t\t\t\t\t: {fmt(EPOCH0 - 86400 * ri(1, 300), "%b %d, %Y")}',
            'Password expires\t\t\t\t\t: never', 'Password inactive\t\t\t\t\t: never',
            'Account expires\t\t\t\t\t\t: never', 'Minimum number of days between password change\t\t: 0',
            'Maximum number of days between password change\t\t: 99999',
            'Number of days of warning before password expires\t: 7']
    return '\n'.join(out)


@neg
def n_slapcat_ssha():
    c = Ctx()
    dc = ','.join('dc=' + x for x in c.domain.split('.'))
    out = [P(c, f'sudo slapcat -b "{dc}" -a "(objectClass=inetOrgPerson)"')]
    for u in sample(USERS, ri(1, 2)):
        ssha = '{SSHA}' + base64.b64encode(rb(20 + pick([4, 8]))).decode()
        t = rtime()
        out += [f'dn: uid={u},ou=people,{dc}', 'objectClass: inetOrgPerson', 'objectClass: posixAccount',
                'objectClass: shadowAccount', f'uid: {u}', f'cn: {u.capitalize()} {pick(["Smith", "Ng", "Garcia", "Okafor"])}',
                f'sn: {pick(["Smith", "Ng", "Garcia", "Okafor"])}', f'mail: {u}@{c.domain}', f'uidNumber: {ri(10000, 10999)}',
                'gidNumber: 10000', f'homeDirectory: /home/{u}', 'loginShell: /bin/bash',
                f'userPassword:: {base64.b64encode(ssha.encode()).decode()}', 'structuralObjectClass: inetOrgPerson',
                f'entryUUID: {uuid4()}', f'creatorsName: cn=admin,{dc}', f'createTimestamp: {fmt(t, "%Y%m%d%H%M%SZ")}',
                f'entryCSN: {fmt(t, "%Y%m%d%H%M%S")}.{rs(6, DIG)}Z#000000#000#000000', f'modifiersName: cn=admin,{dc}',
                f'modifyTimestamp: {fmt(t, "%Y%m%d%H%M%SZ")}', '']
    return '\n'.join(out).rstrip()


@neg
def n_pg_authid_scram():
    c = Ctx()
    roles = ['postgres', c.proj, f'{c.proj}_ro', pick(['grafana', 'metabase', 'replicator'])]
    rows = []
    for r in roles:
        if chance(0.2):
            rows.append((r, 'md5' + hx(32)))
        else:
            rows.append((r, f'SCRAM-SHA-256$4096:{b64(16)}${b64(32)}:{b64(32)}'))
    w = max(len(p) for _, p in rows)
    out = [P(c, 'psql -U postgres -c "SELECT rolname, rolpassword FROM pg_authid WHERE rolcanlogin ORDER BY 1"'),
           f' {"rolname":<10} | {"rolpassword":<{w}}', '-' * 12 + '+' + '-' * (w + 2)]
    for r, p in sorted(rows):
        out.append(f' {r:<10} | {p}')
    out.append(f'({len(rows)} rows)')
    return '\n'.join(out)


@neg
def n_kubectl_describe_secret():
    c = Ctx()
    ns = pick([c.proj, f'{c.proj}-prod', 'default'])
    data = sorted(sample([('DATABASE_URL', ri(60, 120)), ('password', ri(12, 40)), ('username', ri(4, 12)),
                          ('REDIS_PASSWORD', ri(16, 44)), ('STRIPE_SECRET_KEY', 107), ('tls.crt', ri(1100, 1900))], ri(2, 4)))
    out = [P(c, f'kubectl get secrets -n {ns}'),
           'NAME                                 TYPE                                  DATA   AGE',
           f'{(c.proj + "-env"):<36} Opaque                                {len(data)}      {ri(2, 200)}d',
           f'{(c.proj + "-tls"):<36} kubernetes.io/tls                     2      {ri(2, 90)}d',
           f'{("sh.helm.release.v1." + c.proj + ".v" + str(ri(2, 40))):<36} helm.sh/release.v1                    1      {ri(1, 9)}d',
           P(c, f'kubectl describe secret {c.proj}-env -n {ns}'), f'Name:         {c.proj}-env', f'Namespace:    {ns}',
           f'Labels:       app.kubernetes.io/name={c.proj}', '              app.kubernetes.io/managed-by=Helm',
           f'Annotations:  meta.helm.sh/release-name: {c.proj}', f'              meta.helm.sh/release-namespace: {ns}', '',
           'Type:  Opaque', '', 'Data', '====']
    for k, n in data:
        out.append(f'{k}:  {n} bytes')
    return '\n'.join(out)


@neg
def n_vercel_env_ls():
    c = Ctx()
    names = sample(['DATABASE_URL', 'NEXT_PUBLIC_POSTHOG_HOST', 'CLERK_SECRET_KEY', 'RESEND_API_KEY', 'STRIPE_SECRET_KEY',
                    'STRIPE_WEBHOOK_SECRET', 'NEXT_PUBLIC_APP_URL', 'SENTRY_AUTH_TOKEN', 'KV_REST_API_TOKEN'], ri(4, 7))
    out = [P(c, 'vercel env ls'), f'Vercel CLI {pick(["33.5.5", "34.2.0", "37.4.2"])}',
           f'> Environment Variables found for {c.org}/{c.proj}-web [{ri(200, 900)}ms]', '',
           ' name                        value               environments                        created']
    for n in names:
        envs = pick(['Production', 'Production, Preview', 'Production, Preview, Development', 'Development'])
        out.append(f' {n:<27} Encrypted           {envs:<35} {ri(1, 300)}d ago')
    return '\n'.join(out)


@neg
def n_fly_secrets_list():
    c = Ctx()
    app = f'{c.proj}-{pick(["api", "web", "worker"])}'
    names = sample(['DATABASE_URL', 'REDIS_URL', 'SECRET_KEY_BASE', 'STRIPE_API_KEY', 'SENTRY_DSN', 'AWS_SECRET_ACCESS_KEY',
                    'MAILGUN_API_KEY', 'OTEL_EXPORTER_OTLP_HEADERS'], ri(3, 6))
    out = [P(c, f'fly secrets list -a {app}'), 'NAME                      \tDIGEST          \tCREATED AT']
    for n in names:
        out.append(f'{n:<26}\t{hx(16)}\t{pick(["2024-", "2025-"])}{ri(1, 12):02d}-{ri(1, 28):02d}T{ri(0, 23):02d}:{ri(0, 59):02d}:{ri(0, 59):02d}Z')
    if chance():
        out += [P(c, f'fly releases -a {app} | head -n 4'), 'VERSION\tSTATUS  \tDESCRIPTION\tUSER                 \tDATE',
                f'v{(v := ri(20, 300))}   \tcomplete\tSecrets updated\t{c.email:<21}\t{ri(1, 59)}m ago',
                f'v{v - 1}   \tcomplete\tRelease   \t{c.email:<21}\t{ri(2, 20)}h ago']
    return '\n'.join(out)


def yt_id():
    return rs(10, B64URL) + pick('AEIMQUYcgkosw048')


@neg
def n_yt_dlp_output():
    c = Ctx()
    vid = yt_id()
    title = pick(['Kubernetes in 100 Seconds', 'Rust Ownership Explained', 'Postgres Indexing Deep Dive',
                  'Building a Compiler - Part 3', 'Conference Talk 2024'])
    fmtid = pick(['136+140', '22', '398+251', '247+251'])
    if chance(0.35):
        url = f'https://youtu.be/{vid}?si={rs(16, B64URL)}'
    else:
        url = f'https://www.youtube.com/watch?v={vid}' + (f'&list=PL{rs(32, B64URL)}&index={ri(1, 30)}' if chance() else '')
    out = [P(c, f"yt-dlp -f 'bv*[height<=720]+ba/b' --no-playlist '{url}'"), f'[youtube] Extracting URL: {url}',
           f'[youtube] {vid}: Downloading webpage', f'[youtube] {vid}: Downloading ios player API JSON',
           f'[youtube] {vid}: Downloading m3u8 information', f'[info] {vid}: Downloading 1 format(s): {fmtid}',
           f'[download] Destination: {title} [{vid}].f{fmtid.split("+")[0]}.mp4',
           f'[download] 100% of   {ri(10, 400)}.{ri(10, 99)}MiB in 00:00:{ri(10, 59)} at {ri(2, 30)}.{ri(10, 99)}MiB/s']
    if '+' in fmtid:
        out += [f'[download] Destination: {title} [{vid}].f{fmtid.split("+")[1]}.m4a',
                f'[download] 100% of    {ri(2, 30)}.{ri(10, 99)}MiB in 00:00:0{ri(1, 9)} at {ri(2, 30)}.{ri(10, 99)}MiB/s',
                f'[Merger] Merging formats into "{title} [{vid}].mp4"',
                f'Deleting original file {title} [{vid}].f{fmtid.split("+")[1]}.m4a (pass -k to keep)']
    return '\n'.join(out)


@neg
def n_turborepo_cache():
    c = Ctx()
    pk = [f'@{c.org}/ui', f'@{c.org}/utils', f'@{c.org}/config', 'web', 'docs']
    sel = sample(pk, ri(3, 4))
    out = [P(c, 'npx turbo run build --filter=web...'), f'\u2022 Packages in scope: {", ".join(sorted(sel))}',
           f'\u2022 Running build in {len(sel)} packages', '\u2022 Remote caching enabled', '']
    hit = 0
    for p in sel:
        if chance(0.6):
            hit += 1
            out.append(f'{p}:build: cache hit, replaying logs {hx(16)}')
        else:
            out.append(f'{p}:build: cache miss, executing {hx(16)}')
            out.append(f'{p}:build: ')
            out.append(f'{p}:build: > {p}@0.0.0 build')
            out.append(f'{p}:build: > {pick(["tsup", "next build", "vite build", "tsc -b"])}')
    out += ['', f' Tasks:    {len(sel)} successful, {len(sel)} total', f'Cached:    {hit} cached, {len(sel)} total',
            f'  Time:    {ri(1, 90)}.{ri(1, 999)}s' + (' >>> FULL TURBO' if hit == len(sel) else ''), '']
    return '\n'.join(out).rstrip()


@neg
def n_s3api_object_versions():
    c = Ctx()
    bucket = f'{c.org}-{c.proj}-artifacts'
    key = f'builds/{c.proj}-{ri(1, 4)}.{ri(0, 20)}.{ri(0, 9)}.tar.gz'
    owner = hx(64)
    vers = []
    for i in range(2):
        multipart = chance(0.4)
        vers.append({'ETag': f'"{hx(32)}' + (f'-{ri(2, 40)}"' if multipart else '"'), 'Size': ri(10 ** 5, 10 ** 9),
                     'StorageClass': 'STANDARD', 'Key': key, 'VersionId': rs(32, B62 + '._'),
                     'IsLatest': i == 0, 'LastModified': iso(rtime(), 0, '+00:00'),
                     'Owner': {'DisplayName': f'{c.org}-aws', 'ID': owner}})
    out = [P(c, f'aws s3api list-object-versions --bucket {bucket} --prefix {key}'),
           json.dumps({'Versions': vers, 'RequestCharged': None}, indent=4)]
    if chance():
        kms = f'arn:aws:kms:{pick(REGIONS_AWS)}:{acct_id()}:key/{uuid4()}'
        out += [P(c, f'aws s3api head-object --bucket {bucket} --key {key}'),
                json.dumps({'AcceptRanges': 'bytes', 'LastModified': fmt(c.t, '%a, %d %b %Y %H:%M:%S GMT'),
                            'ContentLength': vers[0]['Size'], 'ETag': vers[0]['ETag'], 'VersionId': vers[0]['VersionId'],
                            'ContentType': 'application/gzip', 'ServerSideEncryption': 'aws:kms',
                            'Metadata': {'git-sha': hx(40)}, 'SSEKMSKeyId': kms, 'BucketKeyEnabled': True}, indent=4)]
    return '\n'.join(out)


def ksuid(t):
    raw = struct.pack('>I', t - 1400000000) + rb(16)
    return b62enc(int.from_bytes(raw, 'big')).rjust(27, '0'), raw


@neg
def n_ksuid_inspect():
    c = Ctx()
    ids = [ksuid(c.t + i)[0] for i in range(ri(2, 4))]
    s, raw = ksuid(c.t)
    out = [P(c, f'ksuid -n {len(ids)}')] + ids + [P(c, f'ksuid -f inspect {s}'), '', 'REPRESENTATION:', '',
                                                 f'  String: {s}', f'     Raw: {raw.hex().upper()}', '', 'COMPONENTS:', '',
                                                 f'       Time: {fmt(c.t, "%Y-%m-%d %H:%M:%S")} +0000 UTC',
                                                 f'  Timestamp: {c.t - 1400000000}', f'    Payload: {raw[4:].hex().upper()}', '']
    return '\n'.join(out).rstrip()


def ulid(t):
    A = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
    ms = t * 1000 + ri(0, 999)
    s = ''
    for _ in range(10):
        s = A[ms % 32] + s
        ms //= 32
    return s + rs(16, A)


@neg
def n_kcat_consume_events():
    c = Ctx()
    topic = f'{c.proj}.{pick(["orders", "payments", "shipments"])}.events'
    out = [P(c, f"kcat -b kafka-0.{c.proj}.svc:9092 -t {topic} -C -o -3 -e -f 'p%p o%o k=%k: %s\\n'")]
    part = ri(0, 5)
    off = ri(10000, 900000)
    for i in range(3):
        t = c.t + i * ri(1, 60)
        oid = f'ord_{rs(24)}'
        ev = {'event_id': ulid(t), 'type': pick(['order.created', 'order.paid', 'order.shipped']), 'order_id': oid,
              'amount': ri(100, 90000), 'currency': pick(['EUR', 'USD', 'GBP']), 'trace_id': hx(32),
              'occurred_at': iso(t, 3)}
        out.append(f'p{part} o{off + i} k={oid}: ' + json.dumps(ev, separators=(',', ':')))
    out.append(f'% Reached end of topic {topic} [{part}] at offset {off + 3}: exiting')
    return '\n'.join(out)


@neg
def n_version_strings():
    c = Ctx()
    tag = f'v{ri(0, 4)}.{ri(0, 30)}.{ri(0, 9)}'
    n = ri(1, 90)
    sha = hx(40)
    out = [P(c, 'git describe --tags --long --dirty'), f'{tag}-{n}-g{sha[:7]}' + pick(['', '-dirty']),
           P(c, f'./bin/{c.proj} --version'), f'{c.proj} {tag[1:]}-rc.{ri(1, 4)}+build.{ri(100, 9999)}.sha.{sha[:8]}']
    if chance():
        out += [P(c, f"python -c 'import {c.proj}; print({c.proj}.__version__)'"),
                f'{tag[1:]}.dev{n}+g{sha[:8]}.d{fmt(c.t, "%Y%m%d")}']
    if chance():
        out += [P(c, 'git rev-parse HEAD HEAD~1'), sha, hx(40)]
    return '\n'.join(out)


@neg
def n_cryptsetup_luksdump():
    c = Ctx()
    dev = pick(['/dev/nvme0n1p3', '/dev/sda2', '/dev/vda3'])
    def hexlines(n):
        b = [hx(2) for _ in range(n)]
        return [' '.join(b[i:i + 16]) for i in range(0, n, 16)]
    salt = hexlines(32)
    dsalt = hexlines(32)
    dig = hexlines(32)
    out = [P(c, f'sudo cryptsetup luksDump {dev}'), 'LUKS header information', 'Version:       \t2',
           f'Epoch:         \t{ri(3, 9)}', 'Metadata area: \t16384 [bytes]', 'Keyslots area: \t16744448 [bytes]',
           f'UUID:          \t{uuid4()}', 'Label:         \t(no label)', 'Subsystem:     \t(no subsystem)',
           'Flags:       \t(no flags)', '', 'Data segments:', '  0: crypt', '\toffset: 16777216 [bytes]',
           '\tlength: (whole device)', '\tcipher: aes-xts-plain64', '\tsector: 512 [bytes]', '', 'Keyslots:',
           '  0: luks2', '\tKey:        512 bits', '\tPriority:   normal', '\tCipher:     aes-xts-plain64',
           '\tCipher key: 512 bits', '\tPBKDF:      argon2id', f'\tTime cost:  {ri(4, 8)}', '\tMemory:     1048576',
           '\tThreads:    4', f'\tSalt:       {salt[0]} ', f'\t            {salt[1]} ', '\tAF stripes: 4000',
           '\tAF hash:    sha256', '\tArea offset:32768 [bytes]', '\tArea length:258048 [bytes]', '\tDigest ID:  0',
           'Tokens:', 'Digests:', '  0: pbkdf2', '\tHash:       sha256', f'\tIterations: {ri(100000, 300000)}',
           f'\tSalt:       {dsalt[0]} ', f'\t            {dsalt[1]} ', f'\tDigest:     {dig[0]} ', f'\t            {dig[1]} ']
    return '\n'.join(out)


@neg
def n_rpm_qi_signature():
    c = Ctx()
    pkgname, ver, rel = pick([('openssl-libs', '3.0.7', '27.el9'), ('curl', '7.76.1', '29.el9_4'),
                              ('kernel-core', '5.14.0', '427.13.1.el9_4'), ('glibc', '2.34', '100.el9_4.2')])
    kid = hx(16)
    t = c.t
    out = [P(c, f'rpm -qi {pkgname}'), f'Name        : {pkgname}', 'Epoch       : 1' if 'openssl' in pkgname else 'Epoch       : (none)',
           f'Version     : {ver}', f'Release     : {rel}', 'Architecture: x86_64',
           f'Install Date: {fmt(t, "%a %d %b %Y %I:%M:%S %p %Z")}', 'Group       : Unspecified', f'Size        : {ri(10 ** 5, 10 ** 8)}',
           'License     : ASL 2.0', f'Signature   : RSA/SHA256, {fmt(t - 86400 * 9, "%a %d %b %Y %I:%M:%S %p %Z")}, Key ID {kid}',
           f'Source RPM  : {pkgname.split("-")[0]}-{ver}-{rel}.src.rpm', f'Build Date  : {fmt(t - 86400 * 10, "%a %d %b %Y %I:%M:%S %p %Z")}',
           f'Build Host  : x86-64-{ri(1, 9):02d}.build.eng.rdu2.redhat.com', 'Packager    : Red Hat, Inc. <http://bugzilla.redhat.com/bugzilla>',
           'Vendor      : Red Hat, Inc.', P(c, "rpm -q gpg-pubkey --qf '%{NAME}-%{VERSION}-%{RELEASE}\\t%{SUMMARY}\\n'"),
           f'gpg-pubkey-{kid[-8:]}-{hx(8)}\tRed Hat, Inc. (release key 2) <security@redhat.com> public key',
           f'gpg-pubkey-{hx(8)}-{hx(8)}\tRed Hat, Inc. (auxiliary key 3) <security@redhat.com> public key']
    return '\n'.join(out)


@neg
def n_cosign_verify():
    c = Ctx()
    img = f'ghcr.io/{c.org}/{c.proj}'
    d = hx(64)
    tag = f'v{ri(0, 3)}.{ri(0, 20)}.{ri(0, 9)}'
    cert = '-----BEGIN CERTIFICATE-----\n' + '\n'.join(pem_lines(base64.b64encode(b'\x30\x82\x02\xa5' + rb(ri(640, 700))).decode())) + '\n-----END CERTIFICATE-----\n'
    body = base64.b64encode(json.dumps({'apiVersion': '0.0.1', 'kind': 'hashedrekord', 'spec': {
        'data': {'hash': {'algorithm': 'sha256', 'value': hx(64)}},
        'signature': {'content': b64(71), 'publicKey': {'content': base64.b64encode(cert.encode()).decode()}}}},
        separators=(',', ':')).encode()).decode()
    o = {'critical': {'identity': {'docker-reference': img}, 'image': {'docker-manifest-digest': f'sha256:{d}'},
                      'type': 'cosign container image signature'},
         'optional': {'1.3.6.1.4.1.57264.1.1': 'https://token.actions.githubusercontent.com',
                      '1.3.6.1.4.1.57264.1.2': 'push', '1.3.6.1.4.1.57264.1.3': hx(40),
                      '1.3.6.1.4.1.57264.1.4': 'release', '1.3.6.1.4.1.57264.1.5': f'{c.org}/{c.proj}',
                      '1.3.6.1.4.1.57264.1.6': f'refs/tags/{tag}',
                      'Bundle': {'SignedEntryTimestamp': b64(71),
                                 'Payload': {'body': body, 'integratedTime': c.t, 'logIndex': ri(10 ** 7, 10 ** 8),
                                             'logID': hx(64)}},
                      'Issuer': 'https://token.actions.githubusercontent.com',
                      'Subject': f'https://github.com/{c.org}/{c.proj}/.github/workflows/release.yml@refs/tags/{tag}'}}
    out = [P(c, f"cosign verify {img}@sha256:{d} --certificate-identity-regexp 'https://github.com/{c.org}/.*' --certificate-oidc-issuer https://token.actions.githubusercontent.com"),
           '', f'Verification for {img}@sha256:{d} --', 'The following checks were performed on each of these signatures:',
           '  - The cosign claims were validated', '  - Existence of the claims in the transparency log was verified offline',
           '  - The code-signing certificate was verified using trusted certificate authority certificates', '',
           json.dumps([o], separators=(',', ':'))]
    return '\n'.join(out)


@neg
def n_restic_snapshots():
    c = Ctx()
    repo = pick([f'sftp:backup@nas.lan:/srv/restic/{c.host}', f'/mnt/backup/restic-{c.host}', f'rest:https://backup.{c.domain}:8000/{c.host}/'])
    rid = hx(8)
    out = [P(c, f'restic -r {repo} snapshots', root=True), f'repository {rid} opened (version 2, compression level auto)',
           'ID        Time                 Host        Tags        Paths', '-' * 72]
    n = ri(3, 6)
    t = c.t - n * 86400
    ids = []
    for i in range(n):
        sid = hx(8)
        ids.append(sid)
        out.append(f'{sid}  {fmt(t + i * 86400, "%Y-%m-%d")} 02:00:{ri(10, 59):02d}  {c.host:<10}  nightly     /etc')
        out.append(' ' * 56 + '/home')
    out += ['-' * 72, f'{n} snapshots', P(c, f'restic -r {repo} check', root=True), 'using temporary cache in /tmp/restic-check-cache-' + (tmpc := digits(10)),
            f'repository {rid} opened (version 2, compression level auto)', 'created new cache in /tmp/restic-check-cache-' + tmpc,
            'create exclusive lock for repository', 'load indexes', '[0:00] 100.00%  3 / 3 index files loaded',
            'check all packs', 'check snapshots, trees and blobs', f'[0:0{ri(1, 9)}] 100.00%  {n} / {n} snapshots',
            'no errors were found']
    return '\n'.join(out)


@neg
def n_borg_info():
    c = Ctx()
    repo = pick([f'/srv/borg/{c.host}', f'ssh://borg@backup.{c.domain}/./{c.host}', f'{c.user}@{rs(8, ALNUM_LOW)}.repo.borgbase.com:repo'])
    arch = f'{c.host}-{fmt(c.t, "%Y-%m-%dT%H:%M:%S")}'
    rid = hx(64)
    out = [P(c, f'borg info {repo}', root=True), f'Repository ID: {rid}', f'Location: {repo}',
           'Encrypted: Yes (repokey BLAKE2b)', f'Cache: /root/.cache/borg/{rid}', f'Security dir: /root/.config/borg/security/{rid}',
           '-' * 78, '                       Original size      Compressed size    Deduplicated size',
           f'All archives:              {ri(1, 9)}.{ri(10, 99)} TB            {ri(100, 999)}.{ri(10, 99)} GB             {ri(10, 99)}.{ri(10, 99)} GB', '',
           '                       Unique chunks         Total chunks', f'Chunk index:                  {ri(10 ** 5, 10 ** 6)}              {ri(10 ** 6, 10 ** 7)}',
           P(c, f'borg info {repo}::{arch}', root=True), f'Archive name: {arch}', f'Archive fingerprint: {hx(64)}',
           'Comment: ', f'Hostname: {c.host}', 'Username: root', f'Time (start): {fmt(c.t, "%a, %Y-%m-%d %H:%M:%S")}',
           f'Time (end): {fmt(c.t + ri(60, 900), "%a, %Y-%m-%d %H:%M:%S")}', f'Duration: {ri(1, 14)} minutes {ri(1, 59)}.{ri(10, 99)} seconds',
           f'Number of files: {ri(10 ** 4, 10 ** 6)}', 'Command line: /usr/bin/borg create --compression zstd,6 ::{hostname}-{now} /etc /home /var/lib']
    return '\n'.join(out)


@neg
def n_nomad_job_status():
    c = Ctx()
    job = f'{c.proj}-api'
    n = ri(2, 4)
    ver = ri(3, 40)
    out = [P(c, f'nomad job status {job}'), f'ID            = {job}', f'Name          = {job}',
           f'Submit Date   = {fmt(c.t, "%Y-%m-%dT%H:%M:%SZ")}', 'Type          = service', 'Priority      = 50',
           'Datacenters   = dc1', 'Namespace     = default', 'Node Pool     = default', 'Status        = running',
           'Periodic      = false', 'Parameterized = false', '', 'Summary',
           'Task Group  Queued  Starting  Running  Failed  Complete  Lost  Unknown',
           f'api         0       0         {n}        {ri(0, 3)}       {ri(0, 30)}        0     0', '', 'Latest Deployment',
           f'ID          = {hx(8)}', 'Status      = successful', 'Description = Deployment completed successfully', '',
           'Allocations', 'ID        Node ID   Task Group  Version  Desired  Status   Created    Modified']
    for _ in range(n):
        out.append(f'{hx(8)}  {hx(8)}  api         {ver}       run      running  {ri(1, 23)}h{ri(1, 59)}m ago  {ri(1, 59)}m ago')
    return '\n'.join(out)


@neg
def n_conda_explicit():
    c = Ctx()
    pk = [('_libgcc_mutex', '0.1', 'conda_forge', 'tar.bz2', 'main'), ('ca-certificates', '2024.2.2', 'hbcca054_0', 'conda', 'main'),
          ('libgcc-ng', '13.2.0', 'h77fa898_7', 'conda', 'main'), ('python', '3.11.9', f'hb806964_0_cpython', 'conda', 'main'),
          ('numpy', '1.26.4', 'py311h64a7726_0', 'conda', 'main'), ('pandas', '2.2.2', 'py311h14de704_1', 'conda', 'main'),
          ('openssl', '3.3.0', 'h4ab18f5_3', 'conda', 'main'), ('pip', '24.0', 'pyhd8ed1ab_0', 'conda', 'noarch'),
          ('scipy', '1.13.1', 'py311h517d4fd_0', 'conda', 'main'), ('zstd', '1.5.6', 'ha6fb4c9_0', 'conda', 'main')]
    sel = sample(pk, ri(5, 8))
    sel.sort()
    out = [P(c, f'conda list -n {c.proj} --explicit --md5'), '# This file may be used to create an environment using:',
           '# $ conda create --name <env> --file <this file>', '# platform: linux-64', '@EXPLICIT']
    for name, ver, build, ext, sub in sel:
        build = build.split('_')[0][:-7] + hx(7) + '_' + build.split('_')[-1] if build.startswith(('h', 'py')) and '_' in build else build
        subdir = 'noarch' if sub == 'noarch' else 'linux-64'
        out.append(f'https://conda.anaconda.org/conda-forge/{subdir}/{name}-{ver}-{build}.{ext}#{hx(32)}')
    return '\n'.join(out)


@neg
def n_snap_known_assertion():
    c = Ctx()
    body = lambda n: '\n'.join(pem_lines(base64.b64encode(rb(n)).decode(), 76))
    if chance():
        pk = b64u(48)
        out = [P(c, f'snap known --remote account-key public-key-sha3-384={pk}'), 'type: account-key',
               'authority-id: canonical', f'revision: {ri(1, 4)}', f'public-key-sha3-384: {pk}', 'account-id: canonical',
               'name: store', f'since: {fmt(c.t - 86400 * 900, "%Y-%m-%dT%H:%M:%S")}.0Z', 'body-length: 717',
               f'sign-key-sha3-384: {b64u(48)}', '', 'AcbBTQRWhcGAARAA' + body(520)[16:], '', 'AcLBUgQAAQoABgUC' + body(560)[16:]]
    else:
        sid = rs(32)
        name = pick(['lxd', 'microk8s', 'core22', 'firefox', 'code'])
        out = [P(c, f'snap known --remote snap-declaration snap-id={sid} series=16'), 'type: snap-declaration',
               'authority-id: canonical', f'revision: {ri(1, 40)}', 'series: 16', f'snap-id: {sid}',
               f'publisher-id: {rs(32)}', f'snap-name: {name}', f'timestamp: {iso(c.t, 6)}',
               f'sign-key-sha3-384: {b64u(48)}', '', 'AcLBUgQAAQoABgUC' + body(560)[16:]]
    return '\n'.join(out)


@neg
def n_kubectl_get_csr():
    c = Ctx()
    tid = rs(6, ALNUM_LOW)
    rows = []
    for _ in range(ri(1, 2)):
        rows.append((f'csr-{rs(5, ALNUM_LOW)}', f'{ri(2, 59)}m', f'system:node:worker-{ri(1, 9)}', 'Approved,Issued'))
    pend = f'node-csr-{b64u(32)}'
    rows.append((pend, f'{ri(1, 9)}m', f'system:bootstrap:{tid}', 'Pending'))
    out = [P(c, 'kubectl get csr'),
           f'{"NAME":<53} AGE   SIGNERNAME                                    REQUESTOR                 REQUESTEDDURATION   CONDITION']
    for n, a, r, cond in rows:
        out.append(f'{n:<53} {a:<5} kubernetes.io/kube-apiserver-client-kubelet   {r:<25} <none>              {cond}')
    out += [P(c, f'kubectl certificate approve {pend}'), f'certificatesigningrequest.certificates.k8s.io/{pend} approved']
    if chance():
        req = base64.b64encode(('-----BEGIN CERTIFICATE REQUEST-----\n' + '\n'.join(pem_lines(base64.b64encode(b'\x30\x81\xf5' + rb(240)).decode())) + '\n-----END CERTIFICATE REQUEST-----\n').encode()).decode()
        out += [P(c, f"kubectl get csr {pend} -o jsonpath='{{.spec.request}}'"), req]
    return '\n'.join(out)


@neg
def n_istioctl_proxy_secret():
    c = Ctx()
    pod = f'{c.proj}-api-{hx(9)}-{rs(5, ALNUM_LOW)}'
    ns = pick([c.proj, f'{c.proj}-prod'])
    t = c.t
    out = [P(c, f'istioctl proxy-config secret {pod}.{ns}'),
           'RESOURCE NAME     TYPE           STATUS     VALID CERT     SERIAL NUMBER                               NOT AFTER                NOT BEFORE',
           f'default           Cert Chain     ACTIVE     true           {hx(32):<43} {iso(t + 86400):<24} {iso(t - 120)}',
           f'ROOTCA            CA             ACTIVE     true           {hx(32):<43} {iso(t + 86400 * 3650):<24} {iso(t - 86400 * 200)}']
    if chance():
        out += [P(c, f'istioctl proxy-status {pod}.{ns}'),
                'NAME                                                   CLUSTER        CDS        LDS        EDS        RDS        ECDS         ISTIOD                      VERSION',
                f'{(pod + "." + ns):<54} Kubernetes     SYNCED     SYNCED     SYNCED     SYNCED     NOT SENT     istiod-{hx(9)}-{rs(5, ALNUM_LOW)}     1.{ri(19, 23)}.{ri(0, 5)}']
    return '\n'.join(out)


@neg
def n_sops_age_recipients():
    c = Ctx()
    r1, r2, r3 = age_recipient(), age_recipient(), age_recipient()
    L = ['creation_rules:', '  - path_regex: secrets/prod/.*\\.ya?ml$', '    encrypted_regex: ^(data|stringData)$',
         '    age: >-', f'      {r1},', f'      {r2}', f'    pgp: {HX(40)}',
         '  - path_regex: secrets/dev/.*', f'    age: {r3}']
    out = show(c, '.sops.yaml', '\n'.join(L))
    if chance():
        out += '\n' + P(c, 'grep -n "public key" ~/.config/sops/age/keys.txt') + f'\n2:# public key: {pick([r1, r2, r3])}'
    else:
        out += '\n' + P(c, 'age-keygen -y ~/.config/sops/age/keys.txt') + f'\n{pick([r1, r2, r3])}'
    return out


@neg
def n_minisign_verify():
    c = Ctx()
    kid = rb(8)
    pub = base64.b64encode(b'Ed' + kid + rb(32)).decode()
    sig = base64.b64encode(b'ED' + kid + rb(64)).decode()
    gsig = base64.b64encode(rb(64)).decode()
    f = f'{c.proj}-{ri(0, 3)}.{ri(0, 20)}.{ri(0, 9)}.tar.gz'
    ts = c.t
    kidhex = kid[::-1].hex().upper()
    out = [P(c, 'cat minisign.pub'), f'untrusted comment: minisign public key {kidhex}', pub,
           P(c, f'cat {f}.minisig'), 'untrusted comment: signature from minisign secret key', sig,
           f'trusted comment: timestamp:{ts}\tfile:{f}\thashed', gsig,
           P(c, f'minisign -Vm {f} -p minisign.pub'), 'Signature and comment signature verified',
           f'Trusted comment: timestamp:{ts}\tfile:{f}\thashed']
    return '\n'.join(out)


@neg
def n_gh_api_graphql_node_ids():
    c = Ctx()
    if chance():
        rid = 'R_kgDO' + rs(6, B64URL)
        prs = [{'id': 'PR_kwDO' + rs(6, B64URL) + rs(6, B64URL), 'number': ri(10, 900),
                'title': pick(['fix: retry on 503', 'chore(deps): bump axios', 'feat: export CSV', 'docs: update README']),
                'headRefOid': hx(40)} for _ in range(ri(2, 3))]
    else:
        rid = base64.b64encode(f'010:Repository{ri(10 ** 7, 8 * 10 ** 8)}'.encode()).decode()
        prs = [{'id': base64.b64encode(f'011:PullRequest{ri(10 ** 8, 2 * 10 ** 9)}'.encode()).decode(), 'number': ri(10, 900),
                'title': pick(['fix: retry on 503', 'chore(deps): bump axios', 'feat: export CSV']), 'headRefOid': hx(40)}
               for _ in range(ri(2, 3))]
    q = f'query {{ repository(owner:"{c.org}", name:"{c.proj}") {{ id pullRequests(last:{len(prs)}) {{ nodes {{ id number title headRefOid }} }} }} }}'
    return P(c, f"gh api graphql -f query='{q}'") + '\n' + json.dumps(
        {'data': {'repository': {'id': rid, 'pullRequests': {'nodes': prs}}}}, indent=2)


@neg
def n_unity_meta_guids():
    c = Ctx()
    asset = pick(['Prefabs/Player.prefab', 'Scripts/EnemyAI.cs', 'Materials/Water.mat', 'Textures/ui_atlas.png'])
    g = hx(32)
    imp = {'prefab': 'PrefabImporter', 'cs': 'MonoImporter', 'mat': 'NativeFormatImporter', 'png': 'TextureImporter'}[asset.rsplit('.', 1)[1]]
    L = ['fileFormatVersion: 2', f'guid: {g}', f'{imp}:', '  externalObjects: {}']
    if imp == 'MonoImporter':
        L += ['  serializedVersion: 2', '  defaultReferences: []', '  executionOrder: 0', '  icon: {instanceID: 0}']
    L += ['  userData: ', '  assetBundleName: ', '  assetBundleVariant: ']
    out = show(c, f'Assets/{asset}.meta', '\n'.join(L))
    out += '\n' + P(c, 'grep -rn "m_Script\\|m_Material" Assets/Scenes/Main.unity | head -4')
    for _ in range(ri(2, 4)):
        out += f'\nAssets/Scenes/Main.unity:{ri(100, 9000)}:  m_Script: {{fileID: 11500000, guid: {pick([g, hx(32)])}, type: 3}}'
    return out


@neg
def n_nuget_packages_lock():
    c = Ctx()
    pk = [('Microsoft.EntityFrameworkCore', '8.0.3'), ('Serilog.AspNetCore', '8.0.1'), ('Npgsql', '8.0.2'),
          ('Polly', '8.3.1'), ('MediatR', '12.2.0'), ('FluentValidation', '11.9.0')]
    deps = {}
    for n, v in sample(pk, ri(2, 4)):
        deps[n] = {'type': 'Direct', 'requested': f'[{v}, )', 'resolved': v, 'contentHash': b64(64)}
    deps['System.Text.Json'] = {'type': 'Transitive', 'resolved': '8.0.0', 'contentHash': b64(64)}
    body = json.dumps({'version': 1, 'dependencies': {'net8.0': deps}}, indent=2)
    return show(c, f'src/{c.proj.capitalize()}.Api/packages.lock.json', body)


@neg
def n_op_item_get_concealed():
    c = Ctx()
    iid = rs(26, ALNUM_LOW)
    vid = rs(26, ALNUM_LOW)
    title = pick([f'{c.proj} prod db', f'{c.proj} stripe', 'AWS root', f'{c.org} SMTP'])
    out = [P(c, f'op item get "{title}" --vault Infra'), f'ID:          {iid}', f'Title:       {title}',
           f'Vault:       Infra ({vid})', f'Created:     {ri(2, 11)} months ago', f'Updated:     {ri(1, 4)} weeks ago by {c.full}',
           'Favorite:    false', f'Version:     {ri(1, 12)}', f'Category:    {pick(["DATABASE", "LOGIN", "API_CREDENTIAL"])}', 'Fields:']
    if 'db' in title:
        out += ['  type:        postgresql', f'  server:      {c.proj}-db.{c.domain}', '  port:        5432',
                f'  database:    {c.proj}', f'  username:    {c.proj}_app']
    else:
        out += [f'  username:    {pick(["ops", c.user, "admin"])}@{c.domain}']
    out.append(f"  {pick(['password', 'credential'])}:    [use 'op item get {iid} --reveal' to reveal]")
    if chance():
        out += [f'URLs:', f'  website: https://{pick(["dashboard.stripe.com", "console.aws.amazon.com", c.domain])} (primary)']
    return '\n'.join(out)


@neg
def n_prometheus_status_config_masked():
    c = Ctx()
    L = ['global:', '  scrape_interval: 30s', '  scrape_timeout: 10s', '  evaluation_interval: 30s',
         f'  external_labels:', f'    cluster: {c.proj}-prod', 'alerting:', '  alertmanagers:', '  - follow_redirects: true',
         '    enable_http2: true', '    scheme: http', '    timeout: 10s', '    api_version: v2', '    static_configs:',
         '    - targets:', '      - alertmanager:9093', 'scrape_configs:', '- job_name: node', '  honor_timestamps: true',
         '  metrics_path: /metrics', '  scheme: https', '  basic_auth:', '    username: prom', '    password: <secret>',
         '  static_configs:', '  - targets:', f'    - {c.host}:9100', '- job_name: blackbox', '  metrics_path: /probe',
         '  authorization:', '    type: Bearer', '    credentials: <secret>', '  static_configs:', '  - targets:',
         f'    - https://{c.proj}.{c.domain}/healthz']
    return P(c, 'curl -s localhost:9090/api/v1/status/config | jq -r .data.yaml') + '\n' + '\n'.join(L)


@neg
def n_grafana_datasource_api_get():
    c = Ctx()
    uid = rs(14, ALNUM_LOW)
    obj = {'id': ri(1, 30), 'uid': uid, 'orgId': 1, 'name': 'Postgres', 'type': 'grafana-postgresql-datasource',
           'typeLogoUrl': 'public/app/plugins/datasource/grafana-postgresql-datasource/img/postgresql_logo.svg',
           'access': 'proxy', 'url': f'{c.proj}-db.internal:5432', 'user': 'grafana_ro', 'database': '',
           'basicAuth': False, 'basicAuthUser': '', 'withCredentials': False, 'isDefault': False,
           'jsonData': {'database': c.proj, 'sslmode': 'require', 'postgresVersion': 1500},
           'secureJsonFields': {'password': True}, 'version': ri(1, 9), 'readOnly': True}
    return P(c, f'curl -s -H "Authorization: Bearer $GRAFANA_TOKEN" https://grafana.{c.domain}/api/datasources/uid/{uid} | jq') + '\n' + json.dumps(obj, indent=2)


@neg
def n_actuator_env_masked():
    c = Ctx()
    port = pick([8080, 8081, 9000])
    src = pick(['application-prod.yml', 'application.yml'])
    keys = ['spring.datasource.url', 'spring.datasource.username', 'spring.datasource.password', 'spring.mail.password',
            'app.jwt.secret', 'server.port', 'spring.data.redis.password']
    props = {}
    for k in sample(keys, ri(4, 6)):
        props[k] = {'value': '******', 'origin': f'class path resource [{src}] - {ri(2, 60)}:{ri(5, 22)}'}
    obj = {'activeProfiles': ['prod'], 'defaultProfiles': ['default'],
           'propertySources': [{'name': 'server.ports', 'properties': {'local.server.port': {'value': '******'}}},
                               {'name': f"Config resource 'class path resource [{src}]' via location 'optional:classpath:/'",
                                'properties': props}]}
    return P(c, f'curl -s localhost:{port}/actuator/env | jq .') + '\n' + json.dumps(obj, indent=2)


@neg
def n_rabbitmq_definitions_hashes():
    c = Ctx()
    users = [c.proj, 'admin', pick(['monitoring', 'shovel', 'celery'])]
    out = [P(c, 'rabbitmqctl list_users'), 'Listing users ...', 'user\ttags']
    tags = {c.proj: [], 'admin': ['administrator'], 'monitoring': ['monitoring'], 'shovel': [], 'celery': []}
    for u in users:
        out.append(f'{u}\t[{", ".join(tags[u])}]')
    out += [P(c, "rabbitmqctl export_definitions /tmp/defs.json && jq '.users' /tmp/defs.json"),
            'Exporting definitions in JSON to a file at "/tmp/defs.json" ...']
    arr = [{'name': u, 'password_hash': b64(36), 'hashing_algorithm': 'rabbit_password_hashing_sha256',
            'tags': tags[u], 'limits': {}} for u in users]
    out.append(json.dumps(arr, indent=2))
    return '\n'.join(out)


@neg
def n_saml_idp_metadata():
    c = Ctx()
    host = f'sso.{c.domain}'
    realm = c.proj
    der = b'\x30\x82\x02\xa5\x30\x82\x01\x8d\xa0\x03\x02\x01\x02\x02\x06' + rb(ri(650, 670))
    cert = base64.b64encode(der).decode()
    L = ['<?xml version="1.0" encoding="UTF-8"?>',
         f'<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://{host}/realms/{realm}">',
         '  <md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
         '    <md:KeyDescriptor use="signing">', '      <ds:KeyInfo>', f'        <ds:KeyName>{b64u(32)}</ds:KeyName>',
         '        <ds:X509Data>', f'          <ds:X509Certificate>{cert}</ds:X509Certificate>', '        </ds:X509Data>',
         '      </ds:KeyInfo>', '    </md:KeyDescriptor>',
         f'    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://{host}/realms/{realm}/protocol/saml"/>',
         '    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>',
         f'    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://{host}/realms/{realm}/protocol/saml"/>',
         '  </md:IDPSSODescriptor>', '</md:EntityDescriptor>']
    return P(c, f'curl -s https://{host}/realms/{realm}/protocol/saml/descriptor | xmllint --format -') + '\n' + '\n'.join(L)


@neg
def n_dig_txt_records():
    c = Ctx()
    recs = ['"v=spf1 include:_spf.google.com include:sendgrid.net ~all"',
            f'"google-site-verification={b64u(32)}"', f'"MS=ms{digits(8)}"',
            f'"atlassian-domain-verification={b64(48)}"', f'"stripe-verification={hx(64)}"',
            f'"apple-domain-verification={rs(16)}"', f'"docusign={uuid4()}"']
    out = [P(c, f'dig +short TXT {c.domain}')] + sample(recs, ri(3, 5))
    mod = bytes([0x80 | R.getrandbits(7)]) + rb(255)
    der = bytes.fromhex('30820122300d06092a864886f70d01010105000382010f003082010a0282010100') + mod + bytes.fromhex('0203010001')
    p = base64.b64encode(der).decode()
    sel = pick(['google', 's1', 'selector1', 'k1', 'mail'])
    out += [P(c, f'dig +short TXT {sel}._domainkey.{c.domain}'), f'"v=DKIM1; k=rsa; p={p[:200]}" "{p[200:]}"']
    return '\n'.join(out)


# =================================================================

ROWS_PER_TEMPLATE = 5


def main():
    assert len(POS) == 60 and len(NEG) == 60, (len(POS), len(NEG))
    names = [n for n, _ in POS + NEG]
    assert len(set(names)) == len(names)
    rows = []
    for positive, group in ((True, POS), (False, NEG)):
        for name, fn in group:
            for _ in range(ROWS_PER_TEMPLATE):
                text = fn()
                has_open, has_close = OPEN in text, CLOSE in text
                if positive:
                    assert has_open and text.count(OPEN) == text.count(CLOSE), name
                else:
                    assert not has_open and not has_close, name
                rows.append((name, positive, text))
    out = sys.stdout
    for i, (name, positive, text) in enumerate(rows, 1):
        out.write(json.dumps({'id': i, 'template': name, 'positive': positive, 'text': text},
                             ensure_ascii=False) + '\n')


if __name__ == '__main__':
    main()
