#!/usr/bin/env python3
"""Synthetic terminal-session corpus for tuning a secret-redaction detector.

    python3 generate.py > rows.jsonl

Standard library only.  Every random choice flows from random.Random(6262), so
the output is byte-for-byte reproducible.  Each output line is
{"id": N, "template": "...", "positive": bool, "text": "..."}.
In positive rows each secret's exact characters are wrapped in U+00AB/U+00BB;
negative rows hold look-alikes only (ids, digests, public keys, placeholders,
ciphertexts, ...) and never contain U+00AB.
"""
import base64
import datetime as dt
import json
import string
import struct
import sys
import random
import urllib.parse

R = random.Random(6262)
OPEN, CLOSE = '\u00ab', '\u00bb'

LOW = string.ascii_lowercase
UPP = string.ascii_uppercase
DIG = string.digits
B62 = UPP + LOW + DIG
B64 = B62 + '+/'
B64U = B62 + '-_'
HEX = '0123456789abcdef'
HEXU = '0123456789ABCDEF'
CROCK = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
BECH = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
LOWDIG = LOW + DIG


def M(s):
    return OPEN + s + CLOSE


def ch(seq):
    return R.choice(seq)


def ri(a, b):
    return R.randint(a, b)


def coin(p=0.5):
    return R.random() < p


def sample(seq, k):
    return R.sample(list(seq), k)


def rs(n, alpha=B62):
    return ''.join(R.choice(alpha) for _ in range(n))


def hx(n):
    return rs(n, HEX)


def rb(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b64(n):
    return base64.b64encode(rb(n)).decode()


def b64u(n):
    return base64.urlsafe_b64encode(rb(n)).decode().rstrip('=')


def b64s(s):
    return base64.b64encode(s.encode()).decode()


def b64us(s):
    return base64.urlsafe_b64encode(s.encode()).decode().rstrip('=')


def wrap(s, w):
    return [s[i:i + w] for i in range(0, len(s), w)]


# ---------------------------------------------------------------- ids & time
def uuid4():
    h = list(hx(32))
    h[12] = '4'
    h[16] = ch('89ab')
    h = ''.join(h)
    return f'{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}'


EPOCH0 = dt.datetime(2024, 1, 3, tzinfo=dt.timezone.utc)


def rtime():
    return EPOCH0 + dt.timedelta(seconds=ri(0, 640 * 86400), microseconds=ri(0, 999999))


def iso(t=None, frac=0, z='Z'):
    t = t or rtime()
    s = t.strftime('%Y-%m-%dT%H:%M:%S')
    if frac:
        s += '.' + (f'{t.microsecond:06d}' + str(ri(0, 9)))[:frac]
    return s + z


def ulid(t=None):
    t = t or rtime()
    ms = int(t.timestamp() * 1000)
    ts = ''
    for _ in range(10):
        ts = CROCK[ms % 32] + ts
        ms //= 32
    return ts + rs(16, CROCK)


def nanoid(n=21):
    return rs(n, B64U)


def objectid(t=None):
    t = t or rtime()
    return f'{int(t.timestamp()):08x}' + hx(16)


def sha1():
    return hx(40)


def sha256():
    return hx(64)


# ---------------------------------------------------------------- vocabulary
FIRST = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory',
         'niaj', 'olivia', 'peggy', 'rupert', 'sybil', 'trent', 'victor', 'walter', 'priya', 'wei', 'kenji',
         'fatima', 'diego', 'lena', 'omar', 'sofia', 'mateo', 'yuki', 'anya', 'tomas', 'ines', 'ravi', 'noor']
LASTN = ['chen', 'patel', 'garcia', 'smith', 'nguyen', 'kim', 'muller', 'rossi', 'silva', 'kowalski', 'okafor',
         'haddad', 'sato', 'novak', 'larsen', 'dubois', 'moreau', 'ivanova', 'reyes', 'fischer']
ORGS = ['acme', 'initech', 'globex', 'umbrella', 'hooli', 'contoso', 'piedpiper', 'vandelay', 'starkind', 'wayne-ent',
        'tyrell', 'cyberdyne', 'soylent', 'wonka', 'aperture', 'massive-dyn', 'nakatomi', 'oscorp', 'bluth', 'dunder']
TLDS = ['.com', '.io', '.dev', '.net', '.co', '.app', '.cloud']
PROJ = ['api', 'web', 'billing', 'checkout', 'ledger', 'notifier', 'ingest', 'search', 'auth', 'gateway', 'worker',
        'dashboard', 'reports', 'inventory', 'scheduler', 'edge', 'mobile-bff', 'payments', 'orders', 'catalog',
        'analytics', 'media', 'crm-sync', 'etl', 'admin']
ADJ = ['shrouded', 'glowing', 'quiet', 'ancient', 'frosty', 'vast', 'bold', 'misty', 'silent', 'crimson', 'polished',
       'calm', 'brave', 'lucky', 'rapid', 'gentle', 'hidden', 'golden', 'sparkling', 'wandering', 'sturdy', 'fierce']
NOUN = ['sierra', 'river', 'forest', 'meadow', 'harbor', 'falcon', 'canyon', 'ember', 'glacier', 'comet', 'lagoon',
        'summit', 'thunder', 'willow', 'dune', 'orchid', 'pebble', 'breeze', 'cosmos', 'tundra', 'otter', 'sun']
SCIENTISTS = ['babbage', 'lovelace', 'turing', 'hopper', 'curie', 'noether', 'tesla', 'darwin', 'galileo', 'kepler',
              'hypatia', 'ramanujan', 'shannon', 'dijkstra', 'knuth', 'ritchie', 'euler', 'gauss', 'feynman', 'bohr']
DOCKER_ADJ = ['jovial', 'elated', 'nostalgic', 'vigilant', 'quirky', 'stoic', 'zealous', 'upbeat', 'eager',
              'hungry', 'brave', 'epic', 'focused', 'gifted', 'sharp', 'dreamy', 'festive', 'wizardly']
REGIONS = ['us-east-1', 'us-east-2', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1', 'ap-northeast-1',
           'sa-east-1', 'ca-central-1', 'eu-north-1']
GCP_ZONES = ['us-central1-a', 'us-east1-b', 'europe-west1-c', 'europe-west4-a', 'asia-northeast1-b', 'us-west1-a']
WORDS = ['harbor', 'violet', 'quartz', 'maple', 'falcon', 'ember', 'cobalt', 'summit', 'lunar', 'cedar', 'tango',
         'zephyr', 'orbit', 'granite', 'willow', 'saffron', 'nebula', 'copper', 'atlas', 'delta', 'pepper', 'onyx',
         'raven', 'frost', 'marble', 'juniper', 'walrus', 'pickle', 'banjo', 'cactus']


ROW = {}


def new_row():
    ROW.clear()
    ROW['org'] = ch(ORGS)
    ROW['proj'] = ch(PROJ)


def org():
    """Mostly the row's organisation, sometimes another one."""
    return ROW['org'] if ROW and coin(0.8) else ch(ORGS)


def pname():
    """Mostly the row's project/service name, sometimes another one."""
    return ROW['proj'] if ROW and coin(0.75) else ch(PROJ)


def domain(o=None):
    return (o or org()) + ch(TLDS)


def person():
    return ch(FIRST)


def fullname():
    return ch(FIRST).capitalize() + ' ' + ch(LASTN).capitalize()


def email(o=None):
    return f'{ch(FIRST)}.{ch(LASTN)}@{domain(o)}'


def proj():
    return ch([f'{org()}-{pname()}', pname(), f'{pname()}-service', f'{pname()}-{ch(["v2", "next", "core"])}'])


def region():
    return ch(REGIONS)


def acct():
    return str(ri(10 ** 11, 10 ** 12 - 1))


def ip_priv():
    return ch([f'10.{ri(0, 255)}.{ri(0, 255)}.{ri(2, 254)}', f'172.{ri(16, 31)}.{ri(0, 255)}.{ri(2, 254)}',
               f'192.168.{ri(0, 255)}.{ri(2, 254)}'])


def ip_pub():
    return f'{ch([3, 13, 18, 34, 35, 44, 52, 54, 104, 142, 151, 172, 185, 203])}.{ri(0, 255)}.{ri(0, 255)}.{ri(2, 254)}'


def semver():
    return f'{ri(0, 5)}.{ri(0, 30)}.{ri(0, 20)}'


def heroku_name():
    return f'{ch(ADJ)}-{ch(NOUN)}-{ri(10000, 99999)}'


def docker_name():
    return f'{ch(DOCKER_ADJ)}_{ch(SCIENTISTS)}'


def pod_suffix():
    return rs(ri(9, 10), 'bcdfghjklmnpqrstvwxz2456789') + '-' + rs(5, 'bcdfghjklmnpqrstvwxz2456789')


HOSTS = ['devbox', 'mbp', 'workstation', 'build-agent-3', 'ip-10-0-3-17', 'codespaces-4f2a1b', 'thinkpad',
         'ubuntu', 'dev-vm', 'wsl']


def prompt(cwd=None):
    if 'prompt' not in ROW:
        ROW['prompt'] = _prompt(cwd)
    return ROW['prompt']


def _prompt(cwd=None):
    u = person()
    h = ch(HOSTS)
    d = cwd or ch(['~', '~/src/' + pname(), '~/work/' + proj(), '/app', '~/code/' + pname(), '/workspace'])
    base = d.rstrip('/').split('/')[-1] or '~'
    return ch(['$ ', '$ ', f'{u}@{h}:{d}$ ', f'\u279c  {base} git:(main) \u2717 ', f'{d} % ', f'[{u}@{h} {base}]$ ',
               f'(.venv) {u}@{h}:{d}$ ', '\u276f ', f'root@{hx(12)}:{d}# '])


# ---------------------------------------------------------------- passwords
PWSYM = '!%^*-_=+.?@~'


def pw(style=None, safe=False):
    """safe=True: only characters that survive URLs, XML, YAML and shell quoting untouched."""
    style = style or ch(['rand', 'rand', 'words', 'mixed', 'alnum', 'long'])
    syms = '-_.~' if safe else PWSYM
    if style == 'rand':
        n = ri(14, 26)
        s = rs(n - 2, B62 + syms) + rs(1, DIG) + rs(1, syms)
        return s
    if style == 'words':
        sep = ch(['-', '.', '_', ''])
        w = [ch(WORDS) for _ in range(ri(2, 4))]
        w[0] = w[0].capitalize()
        return sep.join(w) + sep + str(ri(10, 9999)) + ch(['!', '?', '*', '']) if not safe else \
            sep.join(w) + sep + str(ri(10, 9999))
    if style == 'mixed':
        return ch(WORDS).capitalize() + str(ri(1, 99)) + rs(ri(6, 10), B62) + ch(syms)
    if style == 'alnum':
        return rs(ri(16, 32), B62)
    return rs(ri(32, 48), B62 + syms.replace('@', '').replace('~', ''))


# ---------------------------------------------------------------- vendor tokens
def aws_akid(p='AKIA'):
    return p + rs(16, UPP + '234567')


def aws_secret():
    return rs(40, B64)


def aws_session():
    return ch(['IQoJb3JpZ2luX2Vj', 'FwoGZXIvYXdzE']) + rs(ri(280, 520), B64) + ch(['', '=', '=='])


def gh_tok(kind=None):
    kind = kind or ch(['ghp', 'ghp', 'gho', 'ghs', 'ghu'])
    return f'{kind}_{rs(36)}'


def gh_fine():
    return f'github_pat_11{rs(20, UPP + DIG)}_{rs(59)}'


def gh_any():
    return gh_fine() if coin(0.3) else gh_tok()


def glpat():
    return 'glpat-' + rs(20, B64U)


def slack_bot():
    return f'xoxb-{ri(10 ** 10, 10 ** 12)}-{ri(10 ** 12, 10 ** 13 - 1)}-{rs(24)}'


def slack_user():
    return f'xoxp-{ri(10 ** 10, 10 ** 12)}-{ri(10 ** 10, 10 ** 12)}-{ri(10 ** 12, 10 ** 13 - 1)}-{hx(32)}'


def slack_hook():
    return f'https://hooks.slack.com/services/T{rs(8, UPP + DIG)}/B{rs(ri(8, 10), UPP + DIG)}/{rs(24)}'


def stripe_sk(mode='live', kind='sk'):
    return f'{kind}_{mode}_' + (rs(24) if coin(0.3) else '51' + rs(97))


def whsec():
    return 'whsec_' + rs(32)


def openai_key():
    k = ch(['proj', 'proj', 'legacy', 'svcacct'])
    if k == 'proj':
        return 'sk-proj-' + rs(ri(56, 74), B64U) + 'T3BlbkFJ' + rs(ri(56, 74), B64U)
    if k == 'legacy':
        return 'sk-' + rs(20) + 'T3BlbkFJ' + rs(20)
    return 'sk-svcacct-' + rs(ri(56, 74), B64U) + 'T3BlbkFJ' + rs(ri(56, 74), B64U)


def anthropic_key():
    return 'sk-ant-api03-' + rs(93, B64U) + 'AA'


def gapi_key():
    return 'AIzaSy' + rs(33, B64U)


def ya29():
    return 'ya29.' + ch(['a0', 'a0', 'c.c0']) + rs(ri(150, 230), B64U)


def g_refresh():
    return '1//0' + rs(1, 'cefgh') + rs(ri(95, 100), B64U)


def gocspx():
    return 'GOCSPX-' + rs(28, B64U)


def npm_tok():
    return 'npm_' + rs(36)


def pypi_tok():
    return 'pypi-AgEIcHlwaS5vcmc' + rs(ri(130, 170), B64U)


def hf_tok():
    return 'hf_' + rs(34, UPP + LOW)


def sendgrid():
    return 'SG.' + rs(22, B64U) + '.' + rs(43, B64U)


def mailgun():
    return 'key-' + hx(32) if coin() else f'{hx(32)}-{hx(8)}-{hx(8)}'


def do_tok():
    return 'dop_v1_' + hx(64)


def cf_tok():
    return rs(40, B64U)


def vercel_tok():
    return rs(24)


def netlify_tok():
    return 'nfp_' + rs(36)


def render_tok():
    return 'rnd_' + rs(32)


def tfc_tok():
    return rs(14) + '.atlasv1.' + rs(67)


def pulumi_tok():
    return 'pul-' + hx(40)


def vault_tok():
    return 'hvs.' + (rs(24) if coin(0.4) else 'CAESI' + rs(ri(85, 95), B64U))


def dckr_pat():
    return 'dckr_pat_' + rs(27, B64U)


def cargo_tok():
    return 'cio' + rs(32)


def rubygems_tok():
    return 'rubygems_' + hx(48)


def shopify_tok():
    return 'shpat_' + hx(32)


def atlassian_tok():
    return 'ATATT3xFfGF0' + rs(ri(170, 185), B64U) + '=' + hx(8).upper()


def postman_key():
    return f'PMAK-{hx(24)}-{hx(34)}'


def telegram_tok():
    return f'{ri(10 ** 9, 8 * 10 ** 9)}:AA{rs(33, B64U)}'


def discord_bot():
    return b64s(str(ri(10 ** 17, 10 ** 18 * 3))).rstrip('=') + '.' + rs(6, B64U) + '.' + rs(38, B64U)


def discord_hook():
    return f'https://discord.com/api/webhooks/{ri(10 ** 17, 10 ** 18 * 3)}/{rs(68, B64U)}'


def teams_hook():
    o = org().replace('-', '')
    return (f'https://{o}.webhook.office.com/webhookb2/{uuid4()}@{uuid4()}/IncomingWebhook/{hx(32)}/{uuid4()}'
            + ('/V2' + rs(40, B64U) if coin() else ''))


def azure_secret():
    return rs(3) + '8Q~' + rs(34, B62 + '_~.-')


def azure_key88():
    return b64(64)


def acr_pw():
    return rs(42, B64) + '+ACR' + rs(6)


def age_secret():
    return 'AGE-SECRET-KEY-1' + rs(58, BECH.upper())


def sentry_tok():
    return 'sntryu_' + hx(64)


def resend_tok():
    return 're_' + rs(8) + '_' + rs(24)


def linear_tok():
    return 'lin_api_' + rs(40)


def notion_tok():
    return 'secret_' + rs(43) if coin() else 'ntn_' + str(ri(10 ** 10, 10 ** 11)) + rs(35)


def airtable_tok():
    return 'pat' + rs(14) + '.' + hx(64)


def newrelic_tok():
    return 'NRAK-' + rs(27, UPP + DIG)


def grafana_tok():
    return 'glsa_' + rs(32) + '_' + hx(8)


def groq_tok():
    return 'gsk_' + rs(52)


def replicate_tok():
    return 'r8_' + rs(37)


def figma_tok():
    return f'figd_{rs(40, B64U)}'


def square_tok():
    return 'EAAA' + rs(60, B64U)


def paypal_secret():
    return 'E' + rs(79, B64U)


def okta_tok():
    return '00' + rs(40, B64U)


def circle_tok():
    return 'CCIPAT_' + rs(22) + '_' + hx(40)


def mapbox_sk(u=None):
    u = u or person()
    return 'sk.' + b64us(json.dumps({'u': u, 'a': 'cl' + rs(23, LOWDIG)}, separators=(',', ':'))) + '.' + rs(22, B64U)


def jwt(payload=None, alg='HS256', kid=None):
    hdr = {'alg': alg, 'typ': 'JWT'}
    if kid:
        hdr['kid'] = kid
    if payload is None:
        t = int(rtime().timestamp())
        payload = {'sub': ch([uuid4(), str(ri(1000, 999999)), 'user_' + rs(24)]), 'iat': t, 'exp': t + ch([900, 3600, 86400, 604800])}
        if coin():
            payload['email'] = email()
        if coin():
            payload['role'] = ch(['admin', 'authenticated', 'user', 'service'])
    enc = lambda o: b64us(json.dumps(o, separators=(',', ':')))
    siglen = {'HS256': 32, 'RS256': 256, 'ES256': 64, 'EdDSA': 64}.get(alg, 32)
    return enc(hdr) + '.' + enc(payload) + '.' + b64u(siglen)


def supabase_service():
    t = int(rtime().timestamp())
    return jwt({'iss': 'supabase', 'ref': rs(20, LOW), 'role': 'service_role', 'iat': t, 'exp': t + 315360000})


def k8s_sa_jwt():
    t = int(rtime().timestamp())
    ns = ch(['default', 'prod', 'ci', 'kube-system', 'argocd'])
    sa = ch(['deployer', 'ci-bot', 'admin-user', 'github-actions', 'default'])
    return jwt({'aud': ['https://kubernetes.default.svc.cluster.local'], 'exp': t + 31536000, 'iat': t,
                'iss': 'https://kubernetes.default.svc.cluster.local',
                'kubernetes.io': {'namespace': ns, 'serviceaccount': {'name': sa, 'uid': uuid4()}},
                'nbf': t, 'sub': f'system:serviceaccount:{ns}:{sa}'}, 'RS256', kid=b64u(32))


def op_sa_token():
    body = {'signInAddress': 'my.1password.com', 'userAuth': {'method': 'SRPg-4096', 'alg': 'PBES2g-HS256',
            'iterations': 650000, 'salt': b64u(16)}, 'email': rs(13, LOWDIG) + '@1passwordserviceaccounts.com',
            'srpX': hx(64), 'muk': {'alg': 'A256GCM', 'ext': False, 'k': b64u(32), 'key_ops': ['encrypt', 'decrypt'],
            'kty': 'oct', 'kid': 'mp'}, 'secretKey': 'A3-' + rs(6, UPP + DIG) + '-' + rs(6, UPP + DIG) + '-' +
            rs(5, UPP + DIG) + '-' + rs(5, UPP + DIG) + '-' + rs(5, UPP + DIG) + '-' + rs(5, UPP + DIG),
            'throttleSecret': {'seed': hx(64), 'uuid': rs(26, UPP + DIG)}, 'deviceUuid': rs(26, LOWDIG)}
    return 'ops_' + b64us(json.dumps(body, separators=(',', ':')))


def rails_secret():
    return hx(128)


def django_secret():
    return rs(50, LOW + DIG + '!@#%^*(-_=+)')


# table of (env-style names, generator); names are vendor-typical
VENDOR = [
    (['OPENAI_API_KEY', 'OPENAI_KEY'], openai_key),
    (['ANTHROPIC_API_KEY', 'CLAUDE_API_KEY'], anthropic_key),
    (['STRIPE_SECRET_KEY', 'STRIPE_API_KEY', 'STRIPE_SK'], stripe_sk),
    (['STRIPE_WEBHOOK_SECRET'], whsec),
    (['GITHUB_TOKEN', 'GH_TOKEN', 'GH_PAT'], gh_any),
    (['GITLAB_TOKEN', 'GL_TOKEN'], glpat),
    (['SENDGRID_API_KEY'], sendgrid),
    (['TWILIO_AUTH_TOKEN'], lambda: hx(32)),
    (['MAILGUN_API_KEY'], mailgun),
    (['HF_TOKEN', 'HUGGINGFACE_HUB_TOKEN'], hf_tok),
    (['DD_API_KEY', 'DATADOG_API_KEY'], lambda: hx(32)),
    (['DD_APP_KEY'], lambda: hx(40)),
    (['SLACK_BOT_TOKEN'], slack_bot),
    (['SLACK_USER_TOKEN'], slack_user),
    (['NOTION_TOKEN', 'NOTION_API_KEY'], notion_tok),
    (['LINEAR_API_KEY'], linear_tok),
    (['RESEND_API_KEY'], resend_tok),
    (['CLERK_SECRET_KEY'], lambda: 'sk_live_' + rs(42)),
    (['SUPABASE_SERVICE_ROLE_KEY'], supabase_service),
    (['SENTRY_AUTH_TOKEN'], sentry_tok),
    (['SHOPIFY_ADMIN_API_TOKEN'], shopify_tok),
    (['NEW_RELIC_API_KEY'], newrelic_tok),
    (['GROQ_API_KEY'], groq_tok),
    (['REPLICATE_API_TOKEN'], replicate_tok),
    (['TELEGRAM_BOT_TOKEN'], telegram_tok),
    (['DISCORD_TOKEN', 'DISCORD_BOT_TOKEN'], discord_bot),
    (['MAPBOX_SECRET_TOKEN'], mapbox_sk),
    (['AIRTABLE_TOKEN'], airtable_tok),
    (['ALGOLIA_ADMIN_KEY'], lambda: hx(32)),
    (['GOOGLE_API_KEY', 'GEMINI_API_KEY', 'FIREBASE_API_KEY_SERVER'], gapi_key),
    (['NPM_TOKEN'], npm_tok),
    (['DOCKERHUB_TOKEN'], dckr_pat),
    (['DIGITALOCEAN_TOKEN', 'DO_TOKEN'], do_tok),
    (['CLOUDFLARE_API_TOKEN', 'CF_API_TOKEN'], cf_tok),
    (['VERCEL_TOKEN'], vercel_tok),
    (['FIGMA_TOKEN'], figma_tok),
    (['JIRA_API_TOKEN', 'ATLASSIAN_API_TOKEN'], atlassian_tok),
    (['GRAFANA_SERVICE_ACCOUNT_TOKEN'], grafana_tok),
    (['PAYPAL_CLIENT_SECRET'], paypal_secret),
    (['SQUARE_ACCESS_TOKEN'], square_tok),
    (['OKTA_API_TOKEN'], okta_tok),
    (['CIRCLECI_TOKEN'], circle_tok),
    (['POSTMAN_API_KEY'], postman_key),
    (['JWT_SECRET', 'JWT_SIGNING_KEY'], lambda: b64(48)),
    (['SESSION_SECRET', 'COOKIE_SECRET'], lambda: hx(64)),
    (['ENCRYPTION_KEY', 'APP_ENCRYPTION_KEY'], lambda: b64(32)),
    (['SECRET_KEY_BASE'], rails_secret),
    (['AGE_SECRET_KEY', 'SOPS_AGE_KEY'], age_secret),
]

# names that say nothing about the value
OBSCURE = ['CFG_A', 'VAL_7', 'X1', 'SEED', 'PARAM_2', 'UPSTREAM', 'BACKEND_REF', 'S1', 'PRIMARY', 'Z_OPT', 'MISC',
           'EXTRA_HDR', 'AUX', 'K2', 'OPT_B', 'HANDLE', 'BLOB', 'INIT_VALUE', 'PROVIDER_2', 'LEGACY_X', 'TMP_VAR']
GENERIC = ['PASSWORD', 'TOKEN', 'SECRET', 'API_KEY', 'AUTH', 'AUTH_TOKEN', 'ACCESS_TOKEN', 'PASS', 'PWD',
           'CREDENTIALS', 'API_SECRET', 'CLIENT_SECRET', 'PRIVATE_TOKEN', 'SECRET_KEY', 'MASTER_KEY']


def vendor():
    names, gen = ch(VENDOR)
    return ch(names), gen()


def generic_secret(allow_uuid=True):
    gens = [pw, lambda: hx(32), lambda: hx(64), lambda: b64(32), lambda: rs(40), lambda: b64u(32)]
    return ch(gens + ([uuid4] if allow_uuid else []))()


def named_secret():
    """(name, value) where the name is vendor-typical, generic, or meaningless."""
    r = R.random()
    if r < 0.55:
        return vendor()
    if r < 0.8:
        return ch(GENERIC), generic_secret()
    return ch(OBSCURE), ch([lambda: generic_secret(False), lambda: vendor()[1]])()


def camel(name):
    p = name.lower().split('_')
    return p[0] + ''.join(x.capitalize() for x in p[1:])


def env_noise():
    return ch([f'PORT={ch([3000, 8080, 8000, 5000, 4000])}', f'NODE_ENV={ch(["production", "development", "staging"])}',
               f'LOG_LEVEL={ch(["info", "debug", "warn"])}', f'API_BASE_URL=https://api.{domain()}',
               f'TZ=UTC', f'APP_NAME={proj()}', f'FEATURE_NEW_CHECKOUT={ch(["true", "false"])}',
               f'REDIS_HOST={ip_priv()}', f'AWS_REGION={region()}', f'NEXT_PUBLIC_APP_URL=https://{domain()}',
               f'WORKERS={ri(1, 8)}', f'SMTP_HOST=smtp.{domain()}', f'SMTP_PORT={ch([25, 465, 587])}',
               f'CACHE_TTL={ch([60, 300, 3600])}', f'S3_BUCKET={org()}-{ch(["uploads", "assets", "backups"])}'])


# ---------------------------------------------------------------- DER / PEM
def der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, 'big')
    return bytes([0x80 | len(b)]) + b


def tlv(tag, content):
    return bytes([tag]) + der_len(len(content)) + content


def d_int(v):
    if isinstance(v, int):
        b = v.to_bytes(max(1, (v.bit_length() + 7) // 8), 'big')
    else:
        b = v.lstrip(b'\x00') or b'\x00'
    if b[0] & 0x80:
        b = b'\x00' + b
    return tlv(0x02, b)


def d_seq(*p):
    return tlv(0x30, b''.join(p))


def d_set(*p):
    return tlv(0x31, b''.join(p))


def d_oct(b):
    return tlv(0x04, b)


def d_bits(b):
    return tlv(0x03, b'\x00' + b)


def d_null():
    return b'\x05\x00'


def d_oid(dotted):
    parts = [int(x) for x in dotted.split('.')]
    out = bytearray([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        enc = [p & 0x7f]
        p >>= 7
        while p:
            enc.insert(0, 0x80 | (p & 0x7f))
            p >>= 7
        out += bytes(enc)
    return tlv(0x06, bytes(out))


def d_ctx(n, content):
    return tlv(0xa0 | n, content)


def big(n):
    b = bytearray(rb(n))
    b[0] |= 0x80
    return bytes(b)


OID_RSA = '1.2.840.113549.1.1.1'
OID_RSA_SHA256 = '1.2.840.113549.1.1.11'
OID_EC = '1.2.840.10045.2.1'
OID_P256 = '1.2.840.10045.3.1.7'
OID_ED = '1.3.101.112'
OID_ECDSA_SHA256 = '1.2.840.10045.4.3.2'


def pem(label, der, width=64):
    return f'-----BEGIN {label}-----\n' + '\n'.join(wrap(base64.b64encode(der).decode(), width)) + \
        f'\n-----END {label}-----'


def rsa_pkcs1(bits=2048):
    n = bits // 8
    h = n // 2
    return d_seq(d_int(0), d_int(big(n)), d_int(65537), d_int(big(n)), d_int(big(h)), d_int(big(h)),
                 d_int(big(h)), d_int(big(h)), d_int(big(h)))


def rsa_pkcs8(bits=2048):
    return d_seq(d_int(0), d_seq(d_oid(OID_RSA), d_null()), d_oct(rsa_pkcs1(bits)))


def ec_point():
    return b'\x04' + rb(64)


def ec_sec1(params=True):
    parts = [d_int(1), d_oct(rb(32))]
    if params:
        parts.append(d_ctx(0, d_oid(OID_P256)))
    parts.append(d_ctx(1, d_bits(ec_point())))
    return d_seq(*parts)


def ec_pkcs8():
    return d_seq(d_int(0), d_seq(d_oid(OID_EC), d_oid(OID_P256)), d_oct(ec_sec1(False)))


def ed_pkcs8():
    return d_seq(d_int(0), d_seq(d_oid(OID_ED)), d_oct(d_oct(rb(32))))


def private_pem(kind=None):
    kind = kind or ch(['rsa1', 'rsa8', 'ec', 'ec8', 'ed'])
    if kind == 'rsa1':
        return pem('RSA PRIVATE KEY', rsa_pkcs1())
    if kind == 'rsa8':
        return pem('PRIVATE KEY', rsa_pkcs8())
    if kind == 'ec':
        return pem('EC PRIVATE KEY', ec_sec1())
    if kind == 'ec8':
        return pem('PRIVATE KEY', ec_pkcs8())
    return pem('PRIVATE KEY', ed_pkcs8())


def x_name(cn, o=None, c=None):
    rdn = []
    if c:
        rdn.append(d_set(d_seq(d_oid('2.5.4.6'), tlv(0x13, c.encode()))))
    if o:
        rdn.append(d_set(d_seq(d_oid('2.5.4.10'), tlv(0x0c, o.encode()))))
    rdn.append(d_set(d_seq(d_oid('2.5.4.3'), tlv(0x0c, cn.encode()))))
    return d_seq(*rdn)


def utctime(t):
    return tlv(0x17, t.strftime('%y%m%d%H%M%SZ').encode())


def x509(cn, issuer=('R11', "Let's Encrypt", 'US'), rsa=False, san=True):
    t0 = rtime()
    t1 = t0 + dt.timedelta(days=ch([90, 365, 397, 3650]))
    if rsa:
        spki = d_seq(d_seq(d_oid(OID_RSA), d_null()), d_bits(d_seq(d_int(big(256)), d_int(65537))))
        salg = d_seq(d_oid(OID_RSA_SHA256), d_null())
        sig = d_bits(rb(256))
    else:
        spki = d_seq(d_seq(d_oid(OID_EC), d_oid(OID_P256)), d_bits(ec_point()))
        salg = d_seq(d_oid(OID_ECDSA_SHA256))
        sig = d_bits(d_seq(d_int(big(32)), d_int(big(32))))
    exts = [d_seq(d_oid('2.5.29.15'), b'\x01\x01\xff', d_oct(tlv(0x03, b'\x05\xa0'))),
            d_seq(d_oid('2.5.29.14'), d_oct(d_oct(rb(20)))),
            d_seq(d_oid('2.5.29.35'), d_oct(d_seq(tlv(0x80, rb(20)))))]
    if san:
        exts.append(d_seq(d_oid('2.5.29.17'), d_oct(d_seq(tlv(0x82, cn.encode())))))
    tbs = d_seq(d_ctx(0, d_int(2)), d_int(big(16)), salg, x_name(issuer[0], issuer[1], issuer[2]),
                d_seq(utctime(t0), utctime(t1)), x_name(cn), spki, d_ctx(3, d_seq(*exts)))
    return d_seq(tbs, salg, sig)


def cert_pem(cn, **kw):
    return pem('CERTIFICATE', x509(cn, **kw))


# ---------------------------------------------------------------- SSH
def sstr(b):
    if isinstance(b, str):
        b = b.encode()
    return struct.pack('>I', len(b)) + b


def mpint(b):
    b = b.lstrip(b'\x00')
    if b and b[0] & 0x80:
        b = b'\x00' + b
    return sstr(b)


def ssh_pub(kind=None, comment=None):
    kind = kind or ch(['ssh-ed25519', 'ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256'])
    if kind == 'ssh-ed25519':
        blob = sstr(kind) + sstr(rb(32))
    elif kind == 'ssh-rsa':
        blob = sstr(kind) + mpint((65537).to_bytes(3, 'big')) + mpint(big(ch([256, 384])))
    else:
        blob = sstr(kind) + sstr('nistp256') + sstr(ec_point())
    s = kind + ' ' + base64.b64encode(blob).decode()
    return s + (' ' + comment if comment else '')


def openssh_private(kind=None, comment='user@host'):
    kind = kind or ch(['ssh-ed25519', 'ssh-ed25519', 'ecdsa-sha2-nistp256'])
    if kind == 'ssh-ed25519':
        pub = rb(32)
        pubblob = sstr(kind) + sstr(pub)
        privpart = sstr(kind) + sstr(pub) + sstr(rb(32) + pub)
    else:
        q = ec_point()
        pubblob = sstr(kind) + sstr('nistp256') + sstr(q)
        privpart = sstr(kind) + sstr('nistp256') + sstr(q) + mpint(big(32))
    chk = rb(4)
    body = chk + chk + privpart + sstr(comment)
    pad = 1
    while len(body) % 8:
        body += bytes([pad])
        pad += 1
    blob = (b'openssh-key-v1\x00' + sstr('none') + sstr('none') + sstr(b'') + struct.pack('>I', 1) +
            sstr(pubblob) + sstr(body))
    return ('-----BEGIN OPENSSH PRIVATE KEY-----\n' + '\n'.join(wrap(base64.b64encode(blob).decode(), 70)) +
            '\n-----END OPENSSH PRIVATE KEY-----')


def putty_key(marker=True):
    m = M if marker else (lambda s: s)
    kind = ch(['ssh-ed25519', 'ssh-ed25519', 'ecdsa-sha2-nistp256', 'ssh-rsa'])
    ver = ch(['3', '3', '2'])
    if kind == 'ssh-ed25519':
        pub = sstr(kind) + sstr(rb(32))
        priv = sstr(rb(32))
        cmt = 'eddsa-key-' + rtime().strftime('%Y%m%d')
    elif kind == 'ecdsa-sha2-nistp256':
        pub = sstr(kind) + sstr('nistp256') + sstr(ec_point())
        priv = mpint(big(32))
        cmt = 'ecdsa-key-' + rtime().strftime('%Y%m%d')
    else:
        pub = sstr(kind) + mpint((65537).to_bytes(3, 'big')) + mpint(big(256))
        priv = mpint(big(256)) + mpint(big(128)) + mpint(big(128)) + mpint(big(128))
        cmt = 'rsa-key-' + rtime().strftime('%Y%m%d')
    if coin(0.4):
        cmt = f'{person()}@{ch(HOSTS)}'
    pl = wrap(base64.b64encode(pub).decode(), 64)
    vl = wrap(base64.b64encode(priv).decode(), 64)
    out = [f'PuTTY-User-Key-File-{ver}: {kind}', 'Encryption: none', f'Comment: {cmt}', f'Public-Lines: {len(pl)}']
    out += pl
    out.append(f'Private-Lines: {len(vl)}')
    out.append(m('\n'.join(vl)))
    out.append('Private-MAC: ' + hx(64 if ver == '3' else 40))
    return '\n'.join(out)


# ---------------------------------------------------------------- PGP / age / misc blobs
def crc24(data):
    crc = 0xB704CE
    for b in data:
        crc ^= b << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def pgp_armor(kind, data):
    body = '\n'.join(wrap(base64.b64encode(data).decode(), 64))
    c = base64.b64encode(crc24(data).to_bytes(3, 'big')).decode()
    return f'-----BEGIN PGP {kind}-----\n\n{body}\n={c}\n-----END PGP {kind}-----'


def pgp_pubkey(uid):
    t = int(rtime().timestamp()).to_bytes(4, 'big')
    pk = b'\x04' + t + b'\x16\x09\x2b\x06\x01\x04\x01\xda\x47\x0f\x01\x01\x07\x40' + rb(32)
    u = uid.encode()
    sig = b'\x04\x13\x16\x0a' + rb(140)
    sk = b'\x04' + t + b'\x12\x0a\x2b\x06\x01\x04\x01\x97\x55\x01\x05\x01\x01\x07\x40' + rb(32) + b'\x03\x01\x08\x07'
    sig2 = b'\x04\x18\x16\x0a' + rb(116)
    data = (bytes([0x98, len(pk)]) + pk + bytes([0xb4, len(u)]) + u + bytes([0x88, len(sig)]) + sig +
            bytes([0xb8, len(sk)]) + sk + bytes([0x88, len(sig2)]) + sig2)
    return pgp_armor('PUBLIC KEY BLOCK', data)


def pgp_signature():
    data = b'\x88\x75\x04\x00\x16\x0a\x00\x1d\x16\x21\x04' + rb(106)
    return pgp_armor('SIGNATURE', data)


def age_armor():
    hdr = ('age-encryption.org/v1\n-> X25519 ' + b64(32).rstrip('=') + '\n' + b64(32).rstrip('=') +
           '\n--- ' + b64(32).rstrip('=') + '\n').encode() + rb(ri(40, 90))
    return '-----BEGIN AGE ENCRYPTED FILE-----\n' + '\n'.join(wrap(base64.b64encode(hdr).decode(), 64)) + \
        '\n-----END AGE ENCRYPTED FILE-----'


def sops_enc(n=None):
    return f'ENC[AES256_GCM,data:{b64(n or ri(6, 40))},iv:{b64(32)},tag:{b64(16)},type:str]'


def kms_blob():
    return base64.b64encode(b'\x01\x02\x02\x00\x78' + rb(ri(150, 220))).decode()


def sealed_blob():
    return base64.b64encode(b'\x02\x00' + rb(ri(300, 420))).decode()


def vault_blob():
    inner = hx(64) + '\n' + hx(64) + '\n' + hx(32 * ri(1, 4))
    return ['$ANSIBLE_VAULT;1.1;AES256'] + wrap(inner.encode().hex(), 80)


def p12_b64():
    inner = rb(ri(2300, 2900))
    der = d_seq(d_int(3), d_seq(d_oid('1.2.840.113549.1.7.1'), d_ctx(0, d_oct(inner))),
                d_seq(d_seq(d_seq(d_oid('1.3.14.3.2.26'), d_null()), d_oct(rb(20))), d_oct(rb(8)), d_int(2048)))
    return base64.b64encode(der).decode()


def sri(alg=None):
    alg = alg or ch(['sha256', 'sha384', 'sha512'])
    return f'{alg}-' + b64({'sha256': 32, 'sha384': 48, 'sha512': 64}[alg])


def jdump(o, indent=2):
    return json.dumps(o, indent=indent, ensure_ascii=False)


# =========================================================================
# POSITIVE TEMPLATES (secrets wrapped in « »)
# =========================================================================

def p_aws_credentials():
    v = ri(0, 3)
    if v == 0:
        profs = sample(['default', 'prod', 'staging', 'dev', 'ci', 'admin', 'sandbox', 'billing-ro'], ri(1, 3))
        out = [prompt() + 'cat ~/.aws/credentials']
        for i, p in enumerate(profs):
            if i:
                out.append('')
            out += [f'[{p}]', f'aws_access_key_id = {M(aws_akid())}', f'aws_secret_access_key = {M(aws_secret())}']
            if coin(0.3):
                out.append(f'region = {region()}')
        return '\n'.join(out)
    if v == 1:
        p = ch(['staging', 'prod', 'ci-deployer', 'default', 'personal'])
        return '\n'.join([prompt() + f'aws configure --profile {p}',
                          f'AWS Access Key ID [None]: {M(aws_akid())}',
                          f'AWS Secret Access Key [None]: {M(aws_secret())}',
                          f'Default region name [None]: {region()}',
                          f'Default output format [None]: {ch(["json", "yaml", "table", ""])}'])
    if v == 2:
        n = ri(20, 140)
        rc = ch(['~/.zshrc', '~/.bashrc', '~/.bash_profile', '~/.profile'])
        return '\n'.join([prompt() + f'grep -n AWS {rc}',
                          f'{n}:export AWS_ACCESS_KEY_ID={M(aws_akid())}',
                          f'{n + 1}:export AWS_SECRET_ACCESS_KEY={M(aws_secret())}',
                          f'{n + 2}:export AWS_DEFAULT_REGION={region()}'])
    lines = [f'AWS_ACCESS_KEY_ID={M(aws_akid())}', f'AWS_SECRET_ACCESS_KEY={M(aws_secret())}',
             f'AWS_DEFAULT_REGION={region()}', 'AWS_PAGER=', f'AWS_PROFILE={ch(["default", "dev", "prod"])}']
    R.shuffle(lines)
    return '\n'.join([prompt() + 'env | grep -i aws | sort'] + sorted(lines))


def p_aws_sts_json():
    v = ri(0, 2)
    ak, sk, st = M(aws_akid('ASIA')), M(aws_secret()), M(aws_session())
    exp = iso()
    a = acct()
    role = ch(['deploy', 'ci-deployer', 'OrganizationAccountAccessRole', 'terraform-apply', 'readonly'])
    sess = ch(['gh-' + str(ri(1000, 99999)), person(), 'cli-session', 'terraform'])
    if v == 0:
        return '\n'.join([
            prompt() + f'aws sts assume-role --role-arn arn:aws:iam::{a}:role/{role} --role-session-name {sess}',
            '{', '    "Credentials": {',
            f'        "AccessKeyId": "{ak}",', f'        "SecretAccessKey": "{sk}",',
            f'        "SessionToken": "{st}",', f'        "Expiration": "{exp[:-1]}+00:00"', '    },',
            '    "AssumedRoleUser": {',
            f'        "AssumedRoleId": "AROA{rs(17, UPP + DIG)}:{sess}",',
            f'        "Arn": "arn:aws:sts::{a}:assumed-role/{role}/{sess}"', '    }', '}'])
    if v == 1:
        return '\n'.join([prompt() + f'aws configure export-credentials --profile {ch(["sso-dev", "prod", "admin"])} --format env',
                          f'export AWS_ACCESS_KEY_ID={ak}', f'export AWS_SECRET_ACCESS_KEY={sk}',
                          f'export AWS_SESSION_TOKEN={st}', f'export AWS_CREDENTIAL_EXPIRATION={exp[:-1]}+00:00'])
    return '\n'.join([prompt() + f'aws sts get-session-token --serial-number arn:aws:iam::{a}:mfa/{person()} --token-code {ri(100000, 999999)} --output yaml',
                      'Credentials:', f'  AccessKeyId: {ak}', f"  Expiration: '{exp[:-1]}+00:00'",
                      f'  SecretAccessKey: {sk}', f'  SessionToken: {st}'])


def p_aws_secret_cli():
    v = ri(0, 3)
    u = ch(['ci-deployer', 'terraform', 's3-uploader', 'backup-bot', person()])
    if v == 0:
        return '\n'.join([prompt() + f'aws iam create-access-key --user-name {u}', '{', '    "AccessKey": {',
                          f'        "UserName": "{u}",', f'        "AccessKeyId": "{M(aws_akid())}",',
                          '        "Status": "Active",', f'        "SecretAccessKey": "{M(aws_secret())}",',
                          f'        "CreateDate": "{iso()[:-1]}+00:00"', '    }', '}'])
    if v == 1:
        name = f'{ch(["prod", "staging"])}/{pname()}/{ch(["db", "rds", "postgres", "mysql"])}'
        pwd = pw(safe=True)
        a = acct()
        r = region()
        return '\n'.join([prompt() + f'aws secretsmanager get-secret-value --secret-id {name}', '{',
                          f'    "ARN": "arn:aws:secretsmanager:{r}:{a}:secret:{name}-{rs(6)}",',
                          f'    "Name": "{name}",', f'    "VersionId": "{uuid4()}",',
                          f'    "SecretString": "{{\\"username\\":\\"{ch(["app", "admin", "postgres", "svc_" + pname()])}\\",\\"password\\":\\"{M(pwd)}\\",\\"engine\\":\\"postgres\\",\\"host\\":\\"{pname()}-db.cluster-{rs(12, LOWDIG)}.{r}.rds.amazonaws.com\\",\\"port\\":5432}}",',
                          '    "VersionStages": [', '        "AWSCURRENT"', '    ],',
                          f'    "CreatedDate": "{iso()[:-1]}.{ri(100, 999)}000+00:00"', '}'])
    if v == 2:
        nm, val = named_secret()
        p = f'/{ch(["prod", "staging", "shared"])}/{pname()}/{nm.lower()}'
        return '\n'.join([prompt() + f'aws ssm get-parameter --name {p} --with-decryption --output json', '{',
                          '    "Parameter": {', f'        "Name": "{p}",', '        "Type": "SecureString",',
                          f'        "Value": "{M(val)}",', f'        "Version": {ri(1, 9)},',
                          f'        "LastModifiedDate": "{iso()[:-1]}.{ri(100, 999)}000+00:00",',
                          f'        "ARN": "arn:aws:ssm:{region()}:{acct()}:parameter{p}",',
                          '        "DataType": "text"', '    }', '}'])
    ak, sk = aws_akid(), aws_secret()
    return '\n'.join([prompt() + f'aws iam create-access-key --user-name {u} --output text',
                      f'ACCESSKEY\t{M(ak)}\t{iso()[:-1]}+00:00\t{M(sk)}\tActive\t{u}'])


def p_gcp_sa_key():
    pid = f'{org()}-{ch(["prod", "dev", "data", "ml"])}-{ri(100000, 999999)}'
    sa = ch(['terraform', 'github-actions', 'bq-loader', 'deployer', 'firebase-adminsdk-' + rs(5, LOWDIG)])
    key = M(private_pem('rsa8').replace('\n', '\\n')) + '\\n'
    cid = str(ri(10 ** 20, 10 ** 21 - 1))
    em = f'{sa}@{pid}.iam.gserviceaccount.com'
    d = {'type': 'service_account', 'project_id': pid, 'private_key_id': hx(40), 'private_key': '@@K@@',
         'client_email': em, 'client_id': cid, 'auth_uri': 'https://accounts.google.com/o/oauth2/auth',
         'token_uri': 'https://oauth2.googleapis.com/token',
         'auth_provider_x509_cert_url': 'https://www.googleapis.com/oauth2/v1/certs',
         'client_x509_cert_url': 'https://www.googleapis.com/robot/v1/metadata/x509/' + em.replace('@', '%40'),
         'universe_domain': 'googleapis.com'}
    v = ri(0, 2)
    if v == 0:
        body = jdump(d).replace('@@K@@', key)
        return prompt() + ch(['cat sa-key.json', f'cat ~/Downloads/{pid}-{hx(12)}.json', 'cat credentials/gcp.json']) + '\n' + body
    if v == 1:
        body = json.dumps(d, separators=(',', ':'), ensure_ascii=False).replace('@@K@@', key)
        t = iso(frac=7)
        return '\n'.join([f'{t} ##[group]Run echo "$GOOGLE_CREDENTIALS" > /tmp/gcp.json && cat /tmp/gcp.json',
                          f'{t} shell: /usr/bin/bash -e {{0}}', f'{t} ##[endgroup]', f'{t} {body}'])
    body = json.dumps(d, ensure_ascii=False).replace('@@K@@', key)
    return '\n'.join([prompt() + f'kubectl get secret gcp-sa -n {ch(["default", "prod", "data"])} -o jsonpath="{{.data.key\\.json}}" | base64 -d', body])


def p_gcloud_tokens():
    v = ri(0, 3)
    if v == 0:
        tok = ya29()
        return '\n'.join([prompt() + 'gcloud auth print-access-token', M(tok),
                          prompt() + f'curl -s -H "Authorization: Bearer {M(tok)}" https://cloudresourcemanager.googleapis.com/v1/projects | head -5',
                          '{', '  "projects": [', '    {', f'      "projectNumber": "{ri(10 ** 11, 10 ** 12)}",'])
    if v == 1:
        d = {'account': '', 'client_id': f'{ri(10 ** 11, 10 ** 12)}-{rs(32, LOWDIG)}.apps.googleusercontent.com',
             'client_secret': M(gocspx()), 'quota_project_id': f'{org()}-{ch(["dev", "prod"])}',
             'refresh_token': M(g_refresh()), 'type': 'authorized_user', 'universe_domain': 'googleapis.com'}
        return prompt() + 'cat ~/.config/gcloud/application_default_credentials.json\n' + jdump(d)
    if v == 2:
        t = int(rtime().timestamp())
        tok = jwt({'aud': '32555940559.apps.googleusercontent.com', 'azp': rs(21, DIG) + '@developer.gserviceaccount.com',
                   'email': email(), 'email_verified': True, 'exp': t + 3600, 'iat': t, 'iss': 'https://accounts.google.com',
                   'sub': str(ri(10 ** 20, 10 ** 21))}, 'RS256', kid=hx(40))
        return '\n'.join([prompt() + 'gcloud auth print-identity-token', M(tok)])
    tok = ya29()
    return '\n'.join([prompt() + 'gcloud auth application-default print-access-token --verbosity=debug 2>&1 | tail -4',
                      f'DEBUG: Running [gcloud.auth.application-default.print-access-token] with arguments: [--verbosity: "debug"]',
                      f'DEBUG: Making request: POST https://oauth2.googleapis.com/token',
                      M(tok), 'INFO: Display format: "value(token)"'])


def p_az_sp_create():
    v = ri(0, 2)
    sub = uuid4()
    ten = uuid4()
    app = uuid4()
    name = ch(['gh-actions-deploy', 'terraform-sp', 'aks-ci', f'{pname()}-pipeline', 'sp-' + rs(6, LOWDIG)])
    rg = f'rg-{pname()}-{ch(["prod", "dev", "stg"])}'
    if v == 0:
        return '\n'.join([
            prompt() + f'az ad sp create-for-rbac --name {name} --role contributor --scopes /subscriptions/{sub}/resourceGroups/{rg}',
            f"Creating 'contributor' role assignment under scope '/subscriptions/{sub}/resourceGroups/{rg}'",
            'The output includes credentials that you must protect. Be sure that you do not include these credentials in your code or check the credentials into your source control. For more information, see https://aka.ms/azadsp-cli',
            '{', f'  "appId": "{app}",', f'  "displayName": "{name}",', f'  "password": "{M(azure_secret())}",',
            f'  "tenant": "{ten}"', '}'])
    if v == 1:
        return '\n'.join([prompt() + f'az ad sp create-for-rbac --name {name} --role contributor --scopes /subscriptions/{sub} --sdk-auth',
                          "Option '--sdk-auth' has been deprecated and will be removed in a future release.", '{',
                          f'  "clientId": "{app}",', f'  "clientSecret": "{M(azure_secret())}",',
                          f'  "subscriptionId": "{sub}",', f'  "tenantId": "{ten}",',
                          '  "activeDirectoryEndpointUrl": "https://login.microsoftonline.com",',
                          '  "resourceManagerEndpointUrl": "https://management.azure.com/",',
                          '  "activeDirectoryGraphResourceId": "https://graph.windows.net/",',
                          '  "sqlManagementEndpointUrl": "https://management.core.windows.net:8443/",',
                          '  "galleryEndpointUrl": "https://gallery.azure.com/",',
                          '  "managementEndpointUrl": "https://management.core.windows.net/"', '}'])
    reg = f'{org().replace("-", "")}{ch(["acr", "registry", "cr"])}{ri(1, 99)}'
    return '\n'.join([prompt() + f'az acr credential show --name {reg}', '{', '  "passwords": [', '    {',
                      '      "name": "password",', f'      "value": "{M(acr_pw())}"', '    },', '    {',
                      '      "name": "password2",', f'      "value": "{M(acr_pw())}"', '    }', '  ],',
                      f'  "username": "{reg}"', '}'])


def p_azure_connstr():
    acctn = f'st{org().replace("-", "")}{rs(4, LOWDIG)}'
    stor = f'DefaultEndpointsProtocol=https;AccountName={acctn};AccountKey={M(azure_key88())};EndpointSuffix=core.windows.net'
    ns = f'sb-{pname()}-{ch(["prod", "dev"])}'
    sbus = f'Endpoint=sb://{ns}.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={M(b64(32))}'
    cos = f'AccountEndpoint=https://{pname()}-cosmos.documents.azure.com:443/;AccountKey={M(azure_key88())};'
    v = ri(0, 2)
    if v == 0:
        vals = [('AzureWebJobsStorage', stor), ('FUNCTIONS_WORKER_RUNTIME', ch(['node', 'python', 'dotnet-isolated']))]
        if coin(0.7):
            vals.append((ch(['ServiceBusConnection', 'SB_CONN', 'QueueConn']), sbus))
        if coin(0.6):
            vals.append((ch(['CosmosDbConnection', 'COSMOS', 'DocDb']), cos))
        vals.append(('APPINSIGHTS_INSTRUMENTATIONKEY', uuid4()))
        body = ['{', '  "IsEncrypted": false,', '  "Values": {']
        for i, (k, val) in enumerate(vals):
            body.append(f'    "{k}": "{val}"' + (',' if i < len(vals) - 1 else ''))
        body += ['  }', '}']
        return prompt() + 'cat local.settings.json\n' + '\n'.join(body)
    if v == 1:
        rg = f'rg-{pname()}'
        return '\n'.join([prompt() + f'az storage account keys list -g {rg} -n {acctn} -o table',
                          'CreationTime                      KeyName    Permissions    Value',
                          '--------------------------------  ---------  -------------  ' + '-' * 88,
                          f'{iso()[:-1]}.{ri(100000, 999999)}0+00:00  key1       FULL           {M(azure_key88())}',
                          f'{iso()[:-1]}.{ri(100000, 999999)}0+00:00  key2       FULL           {M(azure_key88())}'])
    t0 = rtime()
    sig = urllib.parse.quote(b64(32), safe='')
    url = (f'https://{acctn}.blob.core.windows.net/{ch(["backups", "exports", "uploads"])}/{ch(["db", "report", "dump"])}-{t0.strftime("%Y%m%d")}.{ch(["gz", "csv", "bak"])}'
           f'?sv=2022-11-02&ss=b&srt=co&sp=rl&se={(t0 + dt.timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")}'
           f'&st={t0.strftime("%Y-%m-%dT%H:%M:%SZ")}&spr=https&sig={M(sig)}')
    return '\n'.join([prompt() + f'azcopy copy "{url}" ./restore/ --log-level=INFO',
                      f'INFO: Scanning...', f'INFO: Any empty folders will not be processed, because source and/or destination doesn\'t have full folder support', '',
                      f'Job {uuid4()} has started', f'Log file is located at: /home/{person()}/.azcopy/{uuid4()}.log'])


def p_wrangler_devvars():
    v = ri(0, 2)
    if v == 0:
        lines = []
        for _ in range(ri(2, 5)):
            n, val = named_secret()
            q = ch(['', '"'])
            lines.append(f'{n}={q}{M(val)}{q}')
        lines.insert(ri(0, len(lines)), f'ENVIRONMENT={ch(["dev", "local"])}')
        return prompt() + 'cat .dev.vars\n' + '\n'.join(lines)
    if v == 1:
        n, val = named_secret()
        return '\n'.join([prompt() + 'cat wrangler.toml', f'name = "{pname()}-worker"', 'main = "src/index.ts"',
                          f'compatibility_date = "{rtime().strftime("%Y-%m-%d")}"', f'account_id = "{hx(32)}"', '',
                          '[vars]', f'API_BASE = "https://api.{domain()}"', f'{n} = "{M(val)}"', '',
                          '[[kv_namespaces]]', 'binding = "CACHE"', f'id = "{hx(32)}"', '',
                          '[[d1_databases]]', 'binding = "DB"', f'database_name = "{pname()}-db"', f'database_id = "{uuid4()}"'])
    tok = cf_tok()
    return '\n'.join([prompt() + f'CLOUDFLARE_API_TOKEN={M(tok)} npx wrangler whoami',
                      '', ' \u26c5\ufe0f wrangler 3.' + str(ri(60, 99)) + '.' + str(ri(0, 9)), '-' * 20,
                      'Getting User settings...',
                      '\u2139\ufe0f  The API Token is read from the CLOUDFLARE_API_TOKEN in your environment.',
                      f'\U0001f44b You are logged in with an API Token, associated with the email {email()}.',
                      '\u250c' + '\u2500' * 30 + '\u252c' + '\u2500' * 34 + '\u2510',
                      '\u2502 Account Name                 \u2502 Account ID                       \u2502',
                      '\u2502 ' + (fullname() + "'s Account").ljust(28) + f' \u2502 {hx(32)} \u2502',
                      '\u2514' + '\u2500' * 30 + '\u2534' + '\u2500' * 34 + '\u2518'])


def p_vercel_env_pull():
    p = proj()
    out = [prompt() + 'vercel env pull .env.local', f'Vercel CLI {ri(33, 39)}.{ri(0, 9)}.{ri(0, 9)}',
           f'> Downloading `development` Environment Variables for Project {p}',
           f'\u2705  Created .env.local file  [{ri(120, 900)}ms]', prompt() + 'cat .env.local',
           '# Created by Vercel CLI']
    items = []
    items.append(f'DATABASE_URL="postgresql://neondb_owner:{M(rs(12, B62))}@ep-{ch(ADJ)}-{ch(NOUN)}-{ri(100000, 999999)}.{ch(["us-east-2", "eu-central-1", "us-west-2"])}.aws.neon.tech/neondb?sslmode=require"')
    items.append(f'KV_REST_API_TOKEN="{M("A" + ch("XYZ") + rs(3) + "AAIjcDE" + rs(ri(40, 56), B64U))}"')
    items.append(f'KV_REST_API_URL="https://{ch(ADJ)}-{ch(NOUN)}-{ri(10000, 99999)}.upstash.io"')
    items.append(f'NEXTAUTH_SECRET="{M(b64(32))}"')
    items.append(f'NEXT_PUBLIC_SITE_URL="https://{domain()}"')
    t = int(rtime().timestamp())
    team = 'team_' + rs(24)
    items.append('VERCEL_OIDC_TOKEN="' + M(jwt({'iss': f'https://oidc.vercel.com/{p}', 'sub': f'owner:{p}:project:{p}:environment:development',
                                                'scope': f'owner:{p}:project:{p}:environment:development', 'aud': f'https://vercel.com/{p}',
                                                'owner': p, 'owner_id': team, 'project': p, 'project_id': 'prj_' + rs(28),
                                                'environment': 'development', 'user_id': rs(24), 'nbf': t, 'iat': t, 'exp': t + 43200},
                                               'RS256', kid='mrk-' + hx(32))) + '"')
    if coin():
        n, val = named_secret()
        items.append(f'{n}="{M(val)}"')
    R.shuffle(items)
    return '\n'.join(out + items)


def p_netlify_config():
    v = ri(0, 2)
    uid = hx(24)
    if v == 0:
        d = {'telemetryDisabled': coin(), 'cliId': uuid4(), 'userId': uid,
             'users': {uid: {'id': uid, 'name': fullname(), 'email': email(),
                             'auth': {'token': M(netlify_tok()), 'github': {'user': person() + str(ri(1, 99)), 'token': M(gh_tok('gho'))}}}}}
        path = ch(['~/Library/Preferences/netlify/config.json', '~/.config/netlify/config.json'])
        return prompt() + f'cat {path}\n' + jdump(d)
    if v == 1:
        rows = []
        for _ in range(ri(2, 4)):
            n, val = named_secret()
            rows.append((n, M(val)))
        rows.append(('NODE_VERSION', str(ri(18, 22))))
        w = max(len(r[0]) for r in rows)
        out = [prompt() + 'netlify env:list --plain --context production']
        out += [f'{n}={val}' for n, val in rows]
        return '\n'.join(out)
    tok = netlify_tok()
    return '\n'.join([prompt() + f'NETLIFY_AUTH_TOKEN={M(tok)} netlify deploy --prod --dir=dist',
                      'Deploy path:        /home/runner/work/site/site/dist', f'Deploying to main site URL...',
                      '\u2714 Finished hashing', f'\u2714 CDN requesting {ri(1, 40)} files', '\u2714 Finished uploading blobs to deploy store',
                      '\u2714 Deploy is live!', '', f'Deployed to production URL: https://{ch(ADJ)}-{ch(NOUN)}-{hx(6)}.netlify.app'])


def p_paas_vars():
    v = ri(0, 2)
    if v == 0:
        svc = pname()
        pgpw = rs(32, LOW + UPP)
        rows = [('DATABASE_URL', f'postgresql://postgres:{M(pgpw)}@postgres.railway.internal:5432/railway'),
                ('PGPASSWORD', M(pgpw)), ('RAILWAY_ENVIRONMENT', 'production'),
                ('RAILWAY_PRIVATE_DOMAIN', f'{svc}.railway.internal'),
                ('REDIS_URL', f'redis://default:{M(rs(32, LOW + UPP))}@redis.railway.internal:6379')]
        n, val = named_secret()
        rows.append((n, M(val)))
        w = max(len(r[0]) for r in rows) + 1
        top = '\u2554' + '\u2550' * 20 + f' Variables for {svc} ' + '\u2550' * 20 + '\u2557'
        out = [prompt() + 'railway variables', top]
        for k, val in rows:
            out.append(f'\u2551 {k.ljust(w)}\u2502 {val}')
            out.append('\u255f' + '\u2500' * 40)
        out[-1] = '\u255a' + '\u2550' * 40 + '\u255d'
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([prompt() + 'fly tokens create deploy -x 999999h', M('FlyV1 fm2_lJPE' + rs(ri(180, 260), B64) + '==,fm2_lJPE' + rs(ri(160, 220), B64) + '=')])
    key = render_tok()
    sid = 'srv-' + rs(20, LOWDIG)
    return '\n'.join([prompt() + f'curl -s -H "Authorization: Bearer {M(key)}" https://api.render.com/v1/services/{sid}/env-vars | jq -c ".[].envVar"',
                      f'{{"key":"DATABASE_URL","value":"postgres://{pname()}_user:{M(rs(32, B62))}@dpg-{rs(20, LOWDIG)}-a/{pname()}_db"}}',
                      f'{{"key":"PYTHON_VERSION","value":"3.{ri(10, 12)}.{ri(0, 9)}"}}',
                      f'{{"key":"{vendor()[0]}","value":"{M(vendor()[1])}"}}'])


def p_heroku_config():
    app = heroku_name()
    v = ri(0, 2)
    if v == 0:
        rows = [('DATABASE_URL', f'postgres://{rs(14, LOW)}:{M(hx(64))}@ec2-{ri(3, 54)}-{ri(0, 255)}-{ri(0, 255)}-{ri(0, 255)}.compute-1.amazonaws.com:5432/{rs(14, LOWDIG)}'),
                ('REDIS_URL', f'rediss://:{M("p" + hx(64))}@ec2-{ri(3, 54)}-{ri(0, 255)}-{ri(0, 255)}-{ri(0, 255)}.compute-1.amazonaws.com:{ri(10000, 30000)}'),
                ('SECRET_KEY_BASE', M(rails_secret())), ('RAILS_ENV', 'production'), ('RACK_ENV', 'production')]
        if coin():
            rows.append(('SENDGRID_API_KEY', M(sendgrid())))
        if coin():
            n, val = named_secret()
            rows.append((n, M(val)))
        w = max(len(r[0]) for r in rows) + 2
        out = [prompt() + f'heroku config -a {app}', f'=== {app} Config Vars']
        out += [f'{(k + ":").ljust(w)}{val}' for k, val in sorted(rows)]
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([prompt() + 'heroku auth:token',
                          ' \u203a   Warning: token will expire ' + rtime().strftime('%m/%d/%Y'),
                          ' \u203a   Use heroku authorizations:create to generate a long-term token', M('HRKU-AA' + rs(58, B64U))])
    tok = ch([uuid4(), 'HRKU-AA' + rs(58, B64U)])
    u = email()
    return '\n'.join([prompt() + 'cat ~/.netrc', 'machine api.heroku.com', f'  login {u}', f'  password {M(tok)}',
                      'machine git.heroku.com', f'  login {u}', f'  password {M(tok)}'])


def p_cloud_cli_config():
    v = ri(0, 3)
    if v == 0:
        out = [prompt() + 'cat ~/.config/doctl/config.yaml', f'access-token: {M(do_tok())}', 'auth-contexts:']
        for c in sample(['staging', 'personal', 'client-x', 'prod'], ri(1, 2)):
            out.append(f'  {c}: {M(do_tok())}')
        out += ['context: default', 'output: text', f'apps.create.spec: ""', f'compute.ssh.ssh-key-path: /home/{person()}/.ssh/id_ed25519']
        return '\n'.join(out)
    if v == 1:
        out = [prompt() + 'cat ~/.config/hcloud/cli.toml']
        ctxs = sample(['prod', 'dev', 'k3s-lab', 'default', 'staging'], ri(1, 3))
        out.append(f'active_context = "{ctxs[0]}"')
        for c in ctxs:
            out += ['', '[[contexts]]', f'  name = "{c}"', f'  token = "{M(rs(64))}"']
        return '\n'.join(out)
    if v == 2:
        u = person()
        return '\n'.join([prompt() + 'cat ~/.config/linode-cli', '[DEFAULT]', f'default-user = {u}', '', f'[{u}]',
                          f'token = {M(hx(64))}', f'region = {ch(["us-east", "eu-west", "ap-south", "us-ord"])}',
                          f'type = g6-standard-{ri(1, 8)}', 'image = linode/ubuntu24.04', 'authorized_users = ' + u])
    return '\n'.join([prompt() + 'cat ~/.s3cfg | head -12', '[default]', f'access_key = {M("DO00" + rs(16, UPP + DIG))}',
                      'bucket_location = us-east-1', 'check_ssl_certificate = True', 'guess_mime_type = True',
                      f'host_base = {ch(["nyc3", "fra1", "sgp1", "ams3"])}.digitaloceanspaces.com',
                      'host_bucket = %(bucket)s.nyc3.digitaloceanspaces.com', f'secret_key = {M(rs(43, B64))}',
                      'signature_v2 = False', 'use_https = True'])


def p_terraform_creds():
    v = ri(0, 3)
    if v == 0:
        out = [prompt() + 'cat terraform.tfvars', f'project     = "{proj()}"', f'region      = "{region()}"',
               f'environment = "{ch(["prod", "staging"])}"']
        for _ in range(ri(2, 4)):
            n, val = named_secret()
            out.append(f'{n.lower()} = "{M(val)}"')
        out.append(f'db_password = "{M(pw(safe=True))}"')
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([prompt() + 'cat ~/.terraform.d/credentials.tfrc.json', '{', '  "credentials": {',
                          '    "app.terraform.io": {', f'      "token": "{M(tfc_tok())}"', '    }', '  }', '}'])
    if v == 2:
        return '\n'.join(['# providers.tf', 'terraform {', '  required_providers {',
                          '    aws = {', '      source  = "hashicorp/aws"', f'      version = "~> 5.{ri(10, 70)}"', '    }', '  }', '}', '',
                          'provider "aws" {', f'  region     = "{region()}"', f'  access_key = "{M(aws_akid())}"',
                          f'  secret_key = "{M(aws_secret())}"', '}', '', 'provider "cloudflare" {',
                          f'  api_token = "{M(cf_tok())}"', '}'])
    p = pw(safe=True)
    return '\n'.join([prompt() + 'terraform output -json', '{', '  "db_endpoint": {', '    "sensitive": false,',
                      '    "type": "string",', f'    "value": "{pname()}-db.{rs(12, LOWDIG)}.{region()}.rds.amazonaws.com:5432"', '  },',
                      '  "db_password": {', '    "sensitive": true,', '    "type": "string",', f'    "value": "{M(p)}"', '  },',
                      '  "api_key": {', '    "sensitive": true,', '    "type": "string",', f'    "value": "{M(b64u(32))}"', '  }', '}'])


def p_pulumi_secrets():
    v = ri(0, 2)
    st = pname()
    if v == 0:
        rows = [(f'aws:region', region()), (f'{st}:replicas', str(ri(1, 6))), (f'{st}:dbPassword', M(pw()))]
        for _ in range(ri(1, 2)):
            n, val = named_secret()
            rows.append((f'{st}:{camel(n)}', M(val)))
        w = max(len(r[0]) for r in rows) + 2
        out = [prompt() + 'pulumi config --show-secrets', 'KEY'.ljust(w) + 'VALUE']
        out += [k.ljust(w) + val for k, val in sorted(rows)]
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([prompt() + 'cat ~/.pulumi/credentials.json', '{', '    "current": "https://api.pulumi.com",',
                          '    "accessTokens": {', f'        "https://api.pulumi.com": "{M(pulumi_tok())}"', '    },',
                          '    "accounts": {', '        "https://api.pulumi.com": {',
                          f'            "accessToken": "{M(pulumi_tok())}",', f'            "username": "{person()}",',
                          '            "organizations": [', f'                "{org()}"', '            ],',
                          f'            "lastValidatedAt": "{iso()[:-1]}.{ri(100000, 999999)}+00:00"', '        }', '    }', '}'])
    return '\n'.join([prompt() + f'pulumi stack output --show-secrets --stack {org()}/{st}/prod',
                      'Current stack outputs (3):', '    OUTPUT          VALUE',
                      f'    bucketName      {st}-assets-{hx(7)}',
                      f'    dbConnection    postgres://admin:{M(pw(safe=True))}@{st}-db.{rs(12, LOWDIG)}.{region()}.rds.amazonaws.com:5432/app',
                      f'    kubeconfigToken {M(k8s_sa_jwt())}'])


def p_ansible_vars():
    v = ri(0, 2)
    if v == 0:
        out = [prompt() + f'cat group_vars/{ch(["all", "prod", "webservers", "dbservers"])}.yml', '---',
               f'ansible_user: {ch(["deploy", "ubuntu", "ec2-user", "admin"])}',
               f'ansible_become_password: "{M(pw())}"', f'app_name: {pname()}', f'app_port: {ri(3000, 9000)}']
        for _ in range(ri(1, 3)):
            n, val = named_secret()
            out.append(f'{n.lower()}: "{M(val)}"')
        out.append(f'mysql_root_password: {M(pw(safe=True))}')
        return '\n'.join(out)
    if v == 1:
        out = [prompt() + 'cat inventory/hosts.ini', '[web]']
        for i in range(ri(2, 3)):
            out.append(f'web0{i + 1} ansible_host={ip_priv()} ansible_user=ubuntu ansible_ssh_pass={M(pw(safe=True))}')
        out += ['', '[db]', f'db01 ansible_host={ip_priv()} ansible_user=root ansible_password={M(pw(safe=True))}', '',
                '[all:vars]', 'ansible_python_interpreter=/usr/bin/python3', f'ansible_become_pass={M(pw(safe=True))}']
        return '\n'.join(out)
    p = pw(safe=True)
    n, val = named_secret()
    return '\n'.join([prompt() + f'ansible-playbook -i inventory/prod site.yml -e "db_pass={M(p)} {n.lower()}={M(val)}" --tags deploy',
                      '', 'PLAY [Deploy application] ' + '*' * 50, '', 'TASK [Gathering Facts] ' + '*' * 52,
                      f'ok: [{pname()}-01]', f'ok: [{pname()}-02]', '', 'TASK [app : template config] ' + '*' * 46,
                      f'changed: [{pname()}-01]'])


def p_kubectl_secret():
    ns = ch(['prod', 'default', 'staging', 'payments', 'platform'])
    name = ch(['app-secrets', f'{pname()}-env', 'db-credentials', 'api-keys', f'{pname()}-secret'])
    v = ri(0, 2)
    if v == 0:
        out = [prompt() + f'kubectl get secret {name} -n {ns} -o yaml', 'apiVersion: v1', 'data:']
        keys = []
        for _ in range(ri(2, 4)):
            n, val = named_secret()
            keys.append((n, val))
        keys.append(('DB_PASSWORD', pw()))
        for k, val in sorted(keys):
            out.append(f'  {k}: {M(b64s(val))}')
        out += ['kind: Secret', 'metadata:', f'  creationTimestamp: "{iso()}"', f'  name: {name}', f'  namespace: {ns}',
                f'  resourceVersion: "{ri(100000, 99999999)}"', f'  uid: {uuid4()}', 'type: Opaque']
        return '\n'.join(out)
    if v == 1:
        p = pw()
        return '\n'.join([prompt() + f"kubectl get secret {name} -n {ns} -o jsonpath='{{.data.password}}' | base64 -d; echo", M(p)])
    out = ['apiVersion: v1', 'kind: Secret', 'metadata:', f'  name: {name}', f'  namespace: {ns}', 'type: Opaque', 'stringData:']
    for _ in range(ri(2, 4)):
        n, val = named_secret()
        out.append(f'  {n}: "{M(val)}"')
    return prompt() + f'cat k8s/{ns}/secret.yaml\n' + '\n'.join(out)


def p_kubeconfig():
    cl = ch([f'{pname()}-prod', 'kind-dev', f'gke_{org()}-prod_{ch(GCP_ZONES)}_main', 'k3s-homelab', 'do-fra1-k8s'])
    ca = b64s(cert_pem('kubernetes', issuer=('kubernetes', None, None), rsa=coin(), san=False) + '\n')
    server = ch([f'https://{ip_pub()}:6443', f'https://{rs(32, HEXU)}.gr7.{region()}.eks.amazonaws.com', 'https://127.0.0.1:6443'])
    user = ch(['admin', 'kubernetes-admin', f'{cl}-admin', 'ci-deployer'])
    out = [prompt() + ch(['cat ~/.kube/config', 'kubectl config view --raw', 'cat /etc/rancher/k3s/k3s.yaml']),
           'apiVersion: v1', 'clusters:', '- cluster:', f'    certificate-authority-data: {ca}', f'    server: {server}',
           f'  name: {cl}', 'contexts:', '- context:', f'    cluster: {cl}', f'    user: {user}', f'  name: {cl}',
           f'current-context: {cl}', 'kind: Config', 'preferences: {}', 'users:', f'- name: {user}', '  user:']
    v = ri(0, 2)
    if v == 0:
        out.append(f'    client-certificate-data: {b64s(cert_pem(user, issuer=("kubernetes", None, None), san=False) + chr(10))}')
        out.append(f'    client-key-data: {M(b64s(private_pem(ch(["rsa1", "ec"])) + chr(10)))}')
    elif v == 1:
        out.append(f'    token: {M(k8s_sa_jwt())}')
    else:
        out.append(f'    token: {M("K10" + hx(64) + "::server:" + hx(32))}' if coin() else f'    password: {M(pw(safe=True))}')
        if not out[-1].startswith('    token'):
            out.append('    username: admin')
    return '\n'.join(out)


def p_helm_argocd():
    v = ri(0, 3)
    if v == 0:
        rel = ch(['grafana', 'postgresql', 'redis', 'keycloak', 'rabbitmq', pname()])
        out = [prompt() + f'helm get values {rel} -n {ch(["monitoring", "data", "prod", "auth"])}', 'USER-SUPPLIED VALUES:',
               f'adminPassword: {M(pw(safe=True))}', 'auth:', f'  password: {M(pw(safe=True))}',
               f'  username: {ch(["app", "admin", "keycloak"])}']
        if coin():
            out += ['smtp:', '  enabled: true', f'  host: smtp.{domain()}:587', f'  password: {M(sendgrid())}', '  user: apikey']
        out += ['persistence:', '  enabled: true', f'  size: {ri(8, 100)}Gi']
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([prompt() + f'helm upgrade --install pg oci://registry-1.docker.io/bitnamicharts/postgresql -n data \\',
                          f'    --set auth.postgresPassword={M(pw(safe=True))} \\', f'    --set auth.password={M(pw(safe=True))} \\',
                          f'    --set auth.database={pname()}', 'Release "pg" has been upgraded. Happy Helming!', 'NAME: pg',
                          f'LAST DEPLOYED: {rtime().strftime("%a %b %d %H:%M:%S %Y")}', 'NAMESPACE: data', 'STATUS: deployed',
                          f'REVISION: {ri(2, 30)}', 'TEST SUITE: None'])
    if v == 2:
        dom = domain()
        return '\n'.join([prompt() + 'kubectl -n argocd get secret argocd-initial-admin-secret -o jsonpath="{.data.password}" | base64 -d; echo',
                          M(rs(16, B64U)), prompt() + f'argocd login argocd.{dom} --username admin --grpc-web',
                          'Password: ', "'admin:login' logged in successfully", f"Context 'argocd.{dom}' updated"])
    t = int(rtime().timestamp())
    tok = jwt({'iss': 'argocd', 'sub': 'ci:apiKey', 'nbf': t, 'iat': t, 'jti': uuid4()})
    if coin():
        return '\n'.join([prompt() + 'argocd account generate-token --account ci', M(tok)])
    return '\n'.join([prompt() + f'argocd repo add https://github.com/{org()}/{pname()}-deploy.git --username x-access-token --password {M(gh_any())}',
                      f"Repository 'https://github.com/{org()}/{pname()}-deploy.git' added"])


def p_vault_cli():
    v = ri(0, 3)
    if v == 0:
        pol = ch(['ci', 'deploy', 'read-only', 'terraform'])
        return '\n'.join([prompt() + f'vault token create -policy={pol} -ttl={ch(["1h", "24h", "768h"])}',
                          'Key                  Value', '---                  -----', f'token                {M(vault_tok())}',
                          f'token_accessor       {rs(24)}', f'token_duration       {ch(["1h", "24h", "768h"])}',
                          'token_renewable      true', f'token_policies       ["default" "{pol}"]',
                          'identity_policies    []', f'policies             ["default" "{pol}"]'])
    if v == 1:
        path = f'secret/{ch(["prod", "staging"])}/{pname()}'
        out = [prompt() + f'vault kv get {path}', '== Secret Path ==', path.replace('secret/', 'secret/data/', 1), '',
               '======= Metadata =======', 'Key                Value', '---                -----',
               f'created_time       {iso(frac=6)}', 'custom_metadata    <nil>', 'deletion_time      n/a',
               'destroyed          false', f'version            {ri(1, 12)}', '', '====== Data ======',
               'Key            Value', '---            -----']
        rows = [('password', M(pw())), ('username', ch(['app', 'svc_' + pname(), 'admin']))]
        n, val = named_secret()
        rows.append((n.lower(), M(val)))
        out += [k.ljust(15) + val for k, val in sorted(rows)]
        return '\n'.join(out)
    if v == 2:
        out = [prompt() + 'vault operator init']
        for i in range(5):
            out.append(f'Unseal Key {i + 1}: {M(b64(33))}')
        out += ['', f'Initial Root Token: {M("hvs." + rs(24))}', '',
                'Vault initialized with 5 key shares and a key threshold of 3. Please securely',
                'distribute the key shares printed above. When the Vault is re-sealed,',
                'restarted, or stopped, you must supply at least 3 of these keys to unseal it',
                'before it can start servicing requests.']
        return '\n'.join(out)
    tok = vault_tok()
    return '\n'.join([prompt() + f'vault login -method=oidc role={ch(["dev", "admin", "eng"])}',
                      'Complete the login via your OIDC provider. Launching browser to:', '',
                      f'    https://{org()}.okta.com/oauth2/v1/authorize?client_id={rs(20)}&code_challenge={b64u(32)}&code_challenge_method=S256&nonce=n_{rs(20)}&redirect_uri=http%3A%2F%2Flocalhost%3A8250%2Foidc%2Fcallback&response_type=code&scope=openid&state=st_{rs(20)}',
                      '', 'Waiting for OIDC authentication to complete...', 'Success! You are now authenticated. The token information displayed below',
                      'is already stored in the token helper. You do NOT need to run "vault login"', 'again. Future Vault requests will automatically use this token.', '',
                      'Key                  Value', '---                  -----', f'token                {M(tok)}',
                      f'token_accessor       {rs(24)}', 'token_duration       8h', 'token_renewable      true'])


def p_op_reveal():
    v = ri(0, 2)
    if v == 0:
        title = ch(['Prod DB', 'Stripe live', 'AWS root', 'Staging Postgres', 'SMTP relay'])
        out = [prompt() + f'op item get "{title}" --vault {ch(["Infra", "Engineering", "Private", "Ops"])} --reveal',
               f'ID:          {rs(26, LOWDIG)}', f'Title:       {title}', f'Vault:       Infra ({rs(26, LOWDIG)})',
               f'Created:     {ri(2, 11)} months ago', f'Updated:     {ri(1, 4)} weeks ago by {fullname()}', 'Favorite:    false',
               f'Version:     {ri(1, 9)}', f'Category:    {ch(["DATABASE", "LOGIN", "API_CREDENTIAL", "PASSWORD"])}', 'Fields:']
        if coin():
            out += ['  type:        postgresql', f'  server:      db.{domain()}', '  port:        5432',
                    f'  database:    {pname()}', f'  username:    {ch(["app_rw", "admin", "postgres"])}', f'  password:    {M(pw())}']
        else:
            n, val = named_secret()
            out += [f'  username:    {email()}', f'  credential:  {M(val)}', f'  notesPlain:  rotated {rtime().strftime("%Y-%m-%d")}']
        return '\n'.join(out)
    if v == 1:
        n, val = named_secret()
        return '\n'.join([prompt() + f'op read "op://{ch(["Infra", "Dev"])}/{n.lower()}/credential"', M(val)])
    return '\n'.join([prompt() + 'cat .envrc', f'export OP_SERVICE_ACCOUNT_TOKEN="{M(op_sa_token())}"',
                      f'export DATABASE_URL="op://Infra/{pname()}-db/url"'])


def p_bw_session():
    v = ri(0, 2)
    if v == 0:
        s = b64(64)
        return '\n'.join([prompt() + 'bw unlock', '? Master password: [hidden]', 'Your vault is now unlocked!', '',
                          'To unlock your vault, set your session key to the `BW_SESSION` environment variable. ex:',
                          f'$ export BW_SESSION="{M(s)}"', f'> $env:BW_SESSION="{M(s)}"', '',
                          'You can also pass the session key to any command with the `--session` option. ex:',
                          f'$ bw list items --session {M(s)}'])
    if v == 1:
        return '\n'.join([prompt() + f'bw get password {ch(["github.com", "aws-console", "db-prod", "vpn"])}', M(pw())])
    seed = rs(32, B32)
    d = {'object': 'item', 'id': uuid4(), 'organizationId': None, 'folderId': uuid4(), 'type': 1, 'reprompt': 0,
         'name': ch(['GitHub', 'AWS root', 'Cloudflare', 'Grafana admin']), 'notes': None, 'favorite': False,
         'login': {'uris': [{'match': None, 'uri': f'https://{domain()}/login'}], 'username': email(),
                   'password': M(pw()), 'totp': f'otpauth://totp/{org()}:{person()}?secret={M(seed)}&issuer={org()}',
                   'passwordRevisionDate': None},
         'collectionIds': [], 'revisionDate': iso(frac=3), 'creationDate': iso(frac=3), 'deletedDate': None}
    return prompt() + f'bw get item {d["id"]} | jq .\n' + jdump(d)


def p_doppler_infisical():
    v = ri(0, 3)
    envn = ch(['prd', 'stg', 'dev'])
    if v == 0:
        return '\n'.join([prompt() + f'doppler configs tokens create ci-token --project {pname()} --config {envn} --plain',
                          M(f'dp.st.{envn}.{rs(40)}')])
    if v == 1:
        out = [prompt() + 'doppler secrets download --no-file --format env', f'DOPPLER_CONFIG="{envn}"',
               f'DOPPLER_ENVIRONMENT="{envn}"', f'DOPPLER_PROJECT="{pname()}"']
        for _ in range(ri(2, 4)):
            n, val = named_secret()
            out.append(f'{n}="{M(val)}"')
        out.append(f'DATABASE_URL="postgres://app:{M(pw(safe=True))}@db.{domain()}:5432/app"')
        return '\n'.join(out)
    if v == 2:
        out = [prompt() + f'infisical export --env={ch(["prod", "staging", "dev"])}']
        for _ in range(ri(2, 5)):
            n, val = named_secret()
            out.append(f"{n}='{M(val)}'")
        return '\n'.join(out)
    return '\n'.join([prompt() + 'cat .github/workflows/deploy.yml | grep -n -A3 env:', '14:    env:',
                      f"15:      INFISICAL_TOKEN: {M(f'st.{uuid4()}.{hx(32)}.{hx(32)}')}",
                      f'16:      DOPPLER_TOKEN: {M("dp.pt." + rs(43))}', '17:    steps:'])


def p_docker_podman_login():
    v = ri(0, 3)
    u = person() + ch(['', str(ri(1, 99)), 'dev'])
    if v == 0:
        hub = f'{u}:{dckr_pat()}'
        gh = f'{u}:{gh_tok("ghp")}'
        out = [prompt() + 'cat ~/.docker/config.json', '{', '\t"auths": {', '\t\t"https://index.docker.io/v1/": {',
               f'\t\t\t"auth": "{M(b64s(hub))}"', '\t\t},', '\t\t"ghcr.io": {', f'\t\t\t"auth": "{M(b64s(gh))}"', '\t\t},',
               f'\t\t"{acct()}.dkr.ecr.{region()}.amazonaws.com": {{}}', '\t},',
               f'\t"credsStore": "{ch(["desktop", "osxkeychain", "pass"])}",',
               '\t"currentContext": "default"', '}']
        return '\n'.join(out)
    if v == 1:
        tok = gh_tok(ch(['ghp', 'ghs']))
        return '\n'.join([prompt() + f'echo {M(tok)} | docker login ghcr.io -u {u} --password-stdin',
                          f'WARNING! Your password will be stored unencrypted in /home/{person()}/.docker/config.json.',
                          'Configure a credential helper to remove this warning. See',
                          'https://docs.docker.com/engine/reference/commandline/login/#credential-stores', '', 'Login Succeeded'])
    if v == 2:
        p = pw(safe=True)
        reg = ch(['quay.io', f'registry.{domain()}', 'docker.io', f'harbor.{domain()}'])
        return '\n'.join([prompt() + f'podman login -u {u} -p {M(p)} {reg}', 'Login Succeeded!',
                          prompt() + f'podman push {reg}/{org()}/{pname()}:{semver()}', 'Getting image source signatures',
                          f'Copying blob sha256:{sha256()}', 'Copying config sha256:' + sha256(), 'Writing manifest to image destination'])
    reg = ch(['quay.io', f'registry.gitlab.com', f'{org()}.jfrog.io'])
    auth = b64s(f'{u}:{pw(safe=True)}')
    return '\n'.join([prompt() + 'cat ${XDG_RUNTIME_DIR}/containers/auth.json', '{', '\t"auths": {',
                      f'\t\t"{reg}": {{', f'\t\t\t"auth": "{M(auth)}"', '\t\t}', '\t}', '}'])


def p_gh_auth():
    v = ri(0, 3)
    u = person() + ch(['', '-dev', str(ri(1, 999))])
    tok = gh_tok('gho')
    if v == 0:
        return '\n'.join([prompt() + 'gh auth status --show-token', 'github.com',
                          f'  \u2713 Logged in to github.com account {u} ({ch(["keyring", "/home/" + u + "/.config/gh/hosts.yml"])})',
                          '  - Active account: true', f'  - Git operations protocol: {ch(["https", "ssh"])}',
                          f'  - Token: {M(tok)}', "  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'"])
    if v == 1:
        return '\n'.join([prompt() + 'cat ~/.config/gh/hosts.yml', 'github.com:', '    users:', f'        {u}:',
                          f'            oauth_token: {M(tok)}', '    git_protocol: https', f'    oauth_token: {M(tok)}', f'    user: {u}'])
    if v == 2:
        r = f'{org()}/{pname()}'
        t = gh_tok('ghs') if coin() else gh_any()
        return '\n'.join([prompt() + 'git remote -v', f'origin\thttps://x-access-token:{M(t)}@github.com/{r}.git (fetch)',
                          f'origin\thttps://x-access-token:{M(t)}@github.com/{r}.git (push)'])
    lines = [f'https://{u}:{M(gh_any())}@github.com']
    if coin():
        lines.append(f'https://oauth2:{M(glpat())}@gitlab.com')
    return prompt() + 'cat ~/.git-credentials\n' + '\n'.join(lines)


def p_glab_config():
    v = ri(0, 2)
    u = person()
    if v == 0:
        host = ch(['gitlab.com', f'gitlab.{domain()}'])
        return '\n'.join([prompt() + 'cat ~/.config/glab-cli/config.yml', 'git_protocol: ssh', 'editor:', 'browser:',
                          'glamour_style: dark', 'check_update: true', 'display_hyperlinks: false', f'host: {host}',
                          'no_prompt: false', 'hosts:', f'    {host}:', f'        token: {M(glpat())}', f'        api_host: {host}',
                          '        git_protocol: ssh', '        api_protocol: https', f'        user: {u}'])
    if v == 1:
        return '\n'.join([prompt() + 'glab auth status -t', 'gitlab.com',
                          f'  \u2713 Logged in to gitlab.com as {u} (/home/{u}/.config/glab-cli/config.yml)',
                          '  \u2713 Git operations for gitlab.com configured to use ssh protocol.',
                          '  \u2713 API calls for gitlab.com are made over https protocol.',
                          '  \u2713 REST API Endpoint: https://gitlab.com/api/v4/',
                          '  \u2713 GraphQL Endpoint: https://gitlab.com/api/graphql/', f'  \u2713 Token: {M(glpat())}'])
    return '\n'.join([prompt() + f'sudo gitlab-runner register --non-interactive --url https://gitlab.com --token {M("glrt-" + rs(20, B64U))} --executor docker --docker-image alpine:3.20',
                      f'Runtime platform                                    arch=amd64 os=linux pid={ri(1000, 99999)} revision={hx(8)} version=17.{ri(0, 5)}.{ri(0, 3)}',
                      'Running in system-mode.                            ', '',
                      'Verifying runner... is valid                        runner=' + rs(8, B64U),
                      'Runner registered successfully. Feel free to start it, but if it\'s running already the config should be automatically reloaded!', '',
                      'Configuration (with the authentication token) was saved in "/etc/gitlab-runner/config.toml"'])


def p_npm_yarn_pnpm():
    v = ri(0, 3)
    sc = org()
    if v == 0:
        out = [prompt() + 'cat ~/.npmrc', f'//registry.npmjs.org/:_authToken={M(npm_tok())}']
        if coin():
            out += [f'@{sc}:registry=https://npm.pkg.github.com', f'//npm.pkg.github.com/:_authToken={M(gh_tok("ghp"))}']
        out.append(f'init-author-name={fullname()}')
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([prompt() + 'cat .yarnrc.yml', 'nodeLinker: node-modules', '', 'npmScopes:', f'  {sc}:',
                          '    npmAlwaysAuth: true', f'    npmAuthToken: {M(npm_tok() if coin() else gh_tok("ghp"))}',
                          '    npmRegistryServer: "https://npm.pkg.github.com"', '',
                          f'yarnPath: .yarn/releases/yarn-4.{ri(0, 6)}.{ri(0, 3)}.cjs'])
    if v == 2:
        u = person()
        p = pw(safe=True)
        host = f'{sc}.jfrog.io/artifactory/api/npm/npm-virtual/'
        return '\n'.join([prompt() + 'cat .npmrc', f'registry=https://{host}', f'//{host}:_auth={M(b64s(u + ":" + p))}',
                          f'//{host}:always-auth=true', f'//{host}:email={email()}', 'strict-ssl=true'])
    tok = npm_tok()
    rows = [('token', M(tok)), ('readonly', 'false'), ('automation', 'false'), ('cidr_whitelist', ''), ('created', iso(frac=3))]
    out = [prompt() + 'npm token create', '\u250c' + '\u2500' * 16 + '\u252c' + '\u2500' * 42 + '\u2510']
    for i, (k, val) in enumerate(rows):
        out.append(f'\u2502 {k.ljust(14)} \u2502 {val.ljust(40)} \u2502')
        if i < len(rows) - 1:
            out.append('\u251c' + '\u2500' * 16 + '\u253c' + '\u2500' * 42 + '\u2524')
    out.append('\u2514' + '\u2500' * 16 + '\u2534' + '\u2500' * 42 + '\u2518')
    return '\n'.join(out)


def p_python_pkg_creds():
    v = ri(0, 3)
    if v == 0:
        return '\n'.join([prompt() + 'cat ~/.pypirc', '[distutils]', 'index-servers =', '    pypi', '    testpypi', '',
                          '[pypi]', 'username = __token__', f'password = {M(pypi_tok())}', '', '[testpypi]',
                          'repository = https://test.pypi.org/legacy/', 'username = __token__', f'password = {M(pypi_tok().replace("cHlwaS5vcmc", "dGVzdC5weXBpLm9yZw"))}'])
    if v == 1:
        p = pw(safe=True)
        pk, ver = pname(), semver()
        return '\n'.join([prompt() + 'poetry config pypi-token.pypi ' + M(pypi_tok()),
                          prompt() + f'poetry config http-basic.{org()} {person()} {M(p)}',
                          prompt() + 'poetry publish --build -r ' + org(), f'Building {pk} ({ver})',
                          '  - Building sdist', f'  - Built {pk.replace("-", "_")}-{ver}.tar.gz'])
    if v == 2:
        u = person()
        p = ch([pw(safe=True), rs(52, LOWDIG)])
        host = ch([f'pkgs.dev.azure.com/{org()}/_packaging/{pname()}/pypi/simple/', f'{org()}.jfrog.io/artifactory/api/pypi/pypi/simple',
                   f'nexus.{domain()}/repository/pypi-group/simple'])
        return '\n'.join([prompt() + 'cat ~/.config/pip/pip.conf', '[global]', f'index-url = https://{u}:{M(p)}@{host}',
                          'trusted-host = pypi.org', 'timeout = 60'])
    tok = pypi_tok()
    return '\n'.join([prompt() + f'UV_PUBLISH_TOKEN={M(tok)} uv publish', f'Publishing 2 files https://upload.pypi.org/legacy/',
                      f'Uploading {pname().replace("-", "_")}-{semver()}-py3-none-any.whl ({ri(10, 300)}.{ri(0, 9)}KiB)',
                      f'Uploading {pname().replace("-", "_")}-{semver()}.tar.gz ({ri(10, 300)}.{ri(0, 9)}KiB)'])


def p_cargo_gem_composer():
    v = ri(0, 2)
    if v == 0:
        out = [prompt() + 'cat ~/.cargo/credentials.toml', '[registry]', f'token = "{M(cargo_tok())}"']
        if coin():
            out += ['', f'[registries.{org()}]', f'token = "Bearer {M(b64u(32))}"']
        return '\n'.join(out)
    if v == 1:
        out = [prompt() + 'cat ~/.gem/credentials', '---', f':rubygems_api_key: {M(rubygems_tok())}']
        if coin():
            out.append(f':github: Bearer {M(gh_tok("ghp"))}')
        return '\n'.join(out)
    out = [prompt() + 'cat auth.json', '{', '    "http-basic": {', '        "repo.packagist.com": {',
           f'            "username": "token",', f'            "password": "{M(hx(40))}"', '        }', '    },',
           '    "github-oauth": {', f'        "github.com": "{M(gh_tok(ch(["ghp", "gho"])))}"', '    },',
           '    "gitlab-token": {', f'        "gitlab.com": "{M(glpat())}"', '    }', '}']
    return '\n'.join(out)


def p_maven_gradle():
    v = ri(0, 2)
    if v == 0:
        out = [prompt() + 'cat ~/.m2/settings.xml', '<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">', '  <servers>']
        for sid, user, secret in [('github', person(), gh_tok('ghp')), (ch(['nexus-releases', 'ossrh', 'artifactory']), ch(['deployer', 'ci', person()]), pw(safe=True))]:
            out += ['    <server>', f'      <id>{sid}</id>', f'      <username>{user}</username>', f'      <password>{M(secret)}</password>', '    </server>']
        out += ['  </servers>', '</settings>']
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([prompt() + 'cat ~/.gradle/gradle.properties', 'org.gradle.jvmargs=-Xmx4g -XX:+UseParallelGC',
                          'org.gradle.caching=true', f'signing.keyId={hx(8).upper()}', f'signing.password={M(pw(safe=True))}',
                          f'signing.secretKeyRingFile=/home/{person()}/.gnupg/secring.gpg', f'ossrhUsername={person()}',
                          f'ossrhPassword={M(pw(safe=True))}', f'mavenCentralPassword={M(rs(44, B62))}',
                          f'gpr.key={M(gh_tok("ghp"))}'])
    return '\n'.join([prompt() + 'cat nuget.config', '<?xml version="1.0" encoding="utf-8"?>', '<configuration>', '  <packageSources>',
                      '    <add key="nuget.org" value="https://api.nuget.org/v3/index.json" />',
                      f'    <add key="github" value="https://nuget.pkg.github.com/{org()}/index.json" />', '  </packageSources>',
                      '  <packageSourceCredentials>', '    <github>', f'      <add key="Username" value="{person()}" />',
                      f'      <add key="ClearTextPassword" value="{M(gh_tok("ghp"))}" />', '    </github>',
                      '  </packageSourceCredentials>', '</configuration>'])


def p_app_log_leak():
    v = ri(0, 3)
    host = f'{pname()}-{pod_suffix()}'
    if v == 0:
        out = []
        t0 = rtime()
        for i in range(ri(3, 6)):
            ts = int((t0 + dt.timedelta(milliseconds=i * 400 + ri(0, 399))).timestamp() * 1000)
            rid = f'req-{rs(ri(1, 3), "0123456789abcdefghijkmnopqrstuvwxyz")}'
            if i == 1:
                tok = jwt()
                out.append(json.dumps({'level': 30, 'time': ts, 'pid': ri(1, 99), 'hostname': host, 'reqId': rid,
                                       'req': {'method': 'POST', 'url': f'/api/{ch(["orders", "charge", "sessions", "upload"])}',
                                               'headers': {'host': f'api.{domain()}', 'authorization': f'Bearer {M(tok)}',
                                                           'user-agent': 'okhttp/4.12.0', 'content-type': 'application/json'}},
                                       'msg': 'incoming request'}, separators=(',', ':'), ensure_ascii=False))
            else:
                out.append(json.dumps({'level': 30, 'time': ts, 'pid': ri(1, 99), 'hostname': host, 'reqId': rid,
                                       'res': {'statusCode': ch([200, 201, 204, 304])}, 'responseTime': round(R.random() * 80, 3),
                                       'msg': 'request completed'}, separators=(',', ':')))
        return '\n'.join(out)
    if v == 1:
        n, val = named_secret()
        t = rtime()
        host2 = f'api.{domain()}'
        lines = [f'{t.strftime("%Y-%m-%d %H:%M:%S")},{ri(100, 999)} DEBUG [urllib3.connectionpool] Starting new HTTPS connection (1): {host2}:443',
                 f'{t.strftime("%Y-%m-%d %H:%M:%S")},{ri(100, 999)} DEBUG [urllib3.connectionpool] https://{host2}:443 "GET /v1/{ch(["items", "reports", "contacts"])}?{ch(["api_key", "key", "access_token", "token", "apikey"])}={M(val)}&limit={ch([50, 100])} HTTP/1.1" 200 {ri(200, 90000)}',
                 f'{t.strftime("%Y-%m-%d %H:%M:%S")},{ri(100, 999)} INFO [sync.worker] fetched {ri(1, 500)} records in {ri(80, 2000)}ms']
        return '\n'.join(lines)
    if v == 2:
        dsn = f'postgres://{ch(["app", "svc", "api"])}:{M(pw(safe=True))}@{pname()}-db.internal:5432/{pname()}?sslmode=require'
        n, val = named_secret()
        cfg = json.dumps({'db_dsn': dsn, 'redis_addr': f'{ip_priv()}:6379', camel(n): M(val), 'http_port': ri(8000, 9000)},
                         separators=(',', ':'), ensure_ascii=False)
        ts = round(rtime().timestamp() + R.random(), 6)
        return '\n'.join([json.dumps({'level': 'info', 'ts': ts, 'caller': 'cmd/server/main.go:41', 'msg': 'starting server', 'version': semver()}),
                          f'{{"level":"debug","ts":{ts + 0.0012},"caller":"internal/config/load.go:{ri(30, 99)}","msg":"loaded config","config":{cfg}}}',
                          json.dumps({'level': 'info', 'ts': ts + 0.05, 'caller': 'internal/db/pool.go:27', 'msg': 'connected to database', 'max_conns': 20})])
    p = pw(safe=True)
    t = rtime()
    svc = pname()
    return '\n'.join([f'{t.strftime("%Y-%m-%dT%H:%M:%S")}.{ri(100, 249)}Z  INFO 1 --- [{svc}] [           main] com.zaxxer.hikari.HikariDataSource       : HikariPool-1 - Starting...',
                      f'{t.strftime("%Y-%m-%dT%H:%M:%S")}.{ri(250, 499)}Z DEBUG 1 --- [{svc}] [           main] o.s.b.c.p.DataSourceProperties           : Resolved url jdbc:mysql://{ip_priv()}:3306/{pname()}?user=app&password={M(p)}&useSSL=true',
                      f'{t.strftime("%Y-%m-%dT%H:%M:%S")}.{ri(500, 749)}Z  INFO 1 --- [{svc}] [           main] com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - Added connection com.mysql.cj.jdbc.ConnectionImpl@{hx(8)}',
                      f'{t.strftime("%Y-%m-%dT%H:%M:%S")}.{ri(750, 999)}Z  INFO 1 --- [{svc}] [           main] com.zaxxer.hikari.HikariDataSource       : HikariPool-1 - Start completed.'])


def p_stack_trace_secret():
    v = ri(0, 2)
    if v == 0:
        p = pw(safe=True)
        host = f'redis-{ri(10000, 19999)}.c{ri(1, 300)}.{ch(["us-east-1-2", "eu-west-1-1"])}.ec2.cloud.redislabs.com'
        return '\n'.join(['Traceback (most recent call last):', '  File "/app/worker.py", line ' + str(ri(20, 200)) + ', in <module>',
                          f'    r = redis.Redis.from_url("redis://default:{M(p)}@{host}:{ri(10000, 19999)}/0")',
                          '  File "/usr/local/lib/python3.12/site-packages/redis/client.py", line 1143, in ping',
                          "    return self.execute_command('PING')",
                          '  File "/usr/local/lib/python3.12/site-packages/redis/connection.py", line 399, in on_connect',
                          '    auth_response = self.read_response()',
                          'redis.exceptions.AuthenticationError: invalid username-password pair or user is disabled.'])
    if v == 1:
        k = ch([openai_key(), anthropic_key(), gh_any(), stripe_sk()])
        url = ch(['https://api.openai.com/v1/chat/completions', f'https://api.{domain()}/v2/orders', 'https://api.github.com/repos/x/y/issues'])
        return '\n'.join(['AxiosError: Request failed with status code 401', '    at settle (/app/node_modules/axios/dist/node/axios.cjs:2019:12)',
                          '    at IncomingMessage.handleStreamEnd (/app/node_modules/axios/dist/node/axios.cjs:3135:11)',
                          '    at IncomingMessage.emit (node:events:531:35) {', "  code: 'ERR_BAD_REQUEST',", '  config: {',
                          "    headers: Object [AxiosHeaders] {", "      Accept: 'application/json, text/plain, */*',",
                          "      'Content-Type': 'application/json',", f"      Authorization: 'Bearer {M(k)}',",
                          "      'User-Agent': 'axios/1.7.2',", "      'Content-Length': '" + str(ri(50, 900)) + "',",
                          "      'Accept-Encoding': 'gzip, compress, deflate, br'", '    },', "    method: 'post',",
                          f"    url: '{url}',", '  },', '  response: { status: 401, statusText: ' + "'Unauthorized'" + ' }', '}'])
    p = pw(safe=True)
    h = f'{pname()}-db.{rs(12, LOWDIG)}.{region()}.rds.amazonaws.com'
    return '\n'.join([f'{rtime().strftime("%Y-%m-%d %H:%M:%S")} ERROR o.h.engine.jdbc.spi.SqlExceptionHelper - Connection refused',
                      f'org.postgresql.util.PSQLException: FATAL: password authentication failed for user "app"',
                      '\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:693)',
                      '\tat org.postgresql.core.v3.ConnectionFactoryImpl.tryConnect(ConnectionFactoryImpl.java:203)',
                      '\tat org.postgresql.Driver.connect(Driver.java:297)',
                      f'\tat com.{org().replace("-", "")}.db.Pool.open(Pool.java:{ri(30, 140)})',
                      f'Caused by: java.sql.SQLException: Cannot create connection for url [jdbc:postgresql://{h}:5432/app?user=app&password={M(p)}]',
                      '\t... 14 more'])


def p_curl_verbose_auth():
    host = ch([f'api.{domain()}', 'api.github.com', 'api.stripe.com', 'api.openai.com', f'{pname()}.{domain()}'])
    v = ri(0, 3)
    if host == 'api.github.com':
        tok = gh_any()
    elif host == 'api.stripe.com':
        tok = stripe_sk()
    elif host == 'api.openai.com':
        tok = openai_key()
    else:
        tok = ch([jwt(), b64u(32), vendor()[1]])
    path = {'api.github.com': ch(['/user', '/user/repos?per_page=5', '/rate_limit']), 'api.stripe.com': ch(['/v1/customers?limit=3', '/v1/balance', '/v1/charges?limit=1']),
            'api.openai.com': ch(['/v1/models', '/v1/files'])}.get(host, ch(['/v1/me', '/api/v2/status', '/v1/account', '/api/internal/health']))
    ip = ip_pub()
    if v == 2:
        u = ch(['admin', 'deploy', person(), 'api'])
        p = pw()
        auth_cmd = f"-u '{u}:{M(p)}'"
        hdr = f'> Authorization: Basic {M(b64s(u + ":" + p))}'
    elif v == 3:
        auth_cmd = f"-H 'X-API-Key: {M(tok)}'"
        hdr = f'> X-API-Key: {M(tok)}'
    else:
        auth_cmd = f'-H "Authorization: Bearer {M(tok)}"'
        hdr = f'> Authorization: Bearer {M(tok)}'
    out = [prompt() + f'curl -v {auth_cmd} https://{host}{path}', f'*   Trying {ip}:443...', f'* Connected to {host} ({ip}) port 443',
           '* ALPN: curl offers h2,http/1.1', '* TLSv1.3 (OUT), TLS handshake, Client hello (1):',
           '* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / id-ecPublicKey', '* Server certificate:',
           f'*  subject: CN={host}', f'*  issuer: C=US; O=Let\'s Encrypt; CN=E{ri(5, 6)}', '* using HTTP/2',
           f'> GET {path} HTTP/2', f'> Host: {host}', f'> User-Agent: curl/8.{ri(4, 11)}.{ri(0, 1)}', '> Accept: */*', hdr, '>',
           f'< HTTP/2 {ch([200, 200, 401, 403])}', '< content-type: application/json; charset=utf-8',
           f'< x-request-id: {ch([uuid4(), "req_" + rs(14)])}', '<', f'{{"id":"{ch(["usr_", "acct_", ""])}{rs(16)}","object":"{ch(["user", "account", "list"])}"}}']
    return '\n'.join(out)


def p_httpie_apikey():
    host = f'api.{domain()}'
    v = ri(0, 2)
    if v == 0:
        tok = ch([vendor()[1], b64u(32), hx(40)])
        hn = ch(['X-API-Key', 'X-Api-Token', 'Api-Key', 'X-Auth-Token', 'PRIVATE-TOKEN'])
        return '\n'.join([prompt() + f'http -v POST https://{host}/v2/events {hn}:{M(tok)} name=deploy env=prod',
                          'POST /v2/events HTTP/1.1', 'Accept: application/json, */*;q=0.5', 'Accept-Encoding: gzip, deflate',
                          'Connection: keep-alive', 'Content-Length: 33', 'Content-Type: application/json', f'Host: {host}',
                          'User-Agent: HTTPie/3.2.' + str(ri(1, 4)), f'{hn}: {M(tok)}', '', '{', '    "env": "prod",', '    "name": "deploy"', '}', '', '',
                          'HTTP/1.1 201 Created', 'Content-Type: application/json', f'Date: {rtime().strftime("%a, %d %b %Y %H:%M:%S GMT")}', '',
                          '{', f'    "id": "evt_{rs(24)}",', '    "status": "queued"', '}'])
    if v == 1:
        a = hx(32)
        b = hx(40)
        return '\n'.join([prompt() + f'http GET https://api.datadoghq.{ch(["com", "eu"])}/api/v1/validate DD-API-KEY:{M(a)} DD-APPLICATION-KEY:{M(b)}',
                          'HTTP/1.1 200 OK', 'content-type: application/json', 'x-frame-options: DENY', '', '{', '    "valid": true', '}'])
    u = person()
    p = pw()
    return '\n'.join([prompt() + f"http -a {u}:'{M(p)}' -v GET https://{host}/admin/stats", 'GET /admin/stats HTTP/1.1',
                      'Accept: */*', 'Accept-Encoding: gzip, deflate', f'Authorization: Basic {M(b64s(u + ":" + p))}',
                      'Connection: keep-alive', f'Host: {host}', 'User-Agent: HTTPie/3.2.2', '', '',
                      'HTTP/1.1 200 OK', 'Content-Type: application/json', '', f'{{"users": {ri(10, 90000)}, "active": {ri(1, 900)}}}'])


def session_cookie():
    k = ch(['connect', 'django', 'rails', 'laravel', 'flask', 'generic'])
    if k == 'connect':
        return 'connect.sid', 's%3A' + rs(32, B64U) + '.' + b64(32).rstrip('=').replace('+', '%2B').replace('/', '%2F')
    if k == 'django':
        return 'sessionid', rs(32, LOWDIG)
    if k == 'rails':
        return f'_{pname().replace("-", "_")}_session', b64(ri(90, 160)).replace('=', '%3D') + '--' + b64(ri(20, 40)).rstrip('=') + '--' + b64(16).replace('=', '%3D')
    if k == 'laravel':
        return 'laravel_session', b64s(json.dumps({'iv': b64(16), 'value': b64(ri(150, 200)), 'mac': hx(64), 'tag': ''}, separators=(',', ':'))).replace('=', '%3D')
    if k == 'flask':
        return 'session', 'eyJ' + rs(ri(30, 60), B64U) + '.' + rs(6, B64U) + '.' + rs(27, B64U)
    return ch(['sid', 'auth_session', '__Secure-next-auth.session-token', 'SESSION']), ch([b64u(32), hx(48), jwt()])


def analytics_cookies():
    t = int(rtime().timestamp())
    pool = [f'_ga=GA1.1.{ri(10 ** 8, 10 ** 10)}.{t}', f'_ga_{rs(10, UPP + DIG)}=GS1.1.{t}.{ri(1, 40)}.1.{t + ri(10, 900)}.0.0.0',
            f'_gid=GA1.2.{ri(10 ** 8, 10 ** 10)}.{t}', f'_gcl_au=1.1.{ri(10 ** 8, 10 ** 10)}.{t}',
            f'_fbp=fb.1.{t}{ri(100, 999)}.{ri(10 ** 9, 10 ** 10)}', f'ajs_anonymous_id={uuid4()}',
            f'_hjSessionUser_{ri(100000, 3999999)}={b64s(json.dumps({"id": hx(16), "created": t * 1000, "existing": True}, separators=(",", ":")))}',
            f'OptanonAlertBoxClosed={iso(frac=3)}', f'intercom-id-{rs(8, LOWDIG)}={uuid4()}',
            f'amp_{hx(6)}={rs(22, B64U)}...1{rs(6, LOWDIG)}.1{rs(6, LOWDIG)}.{ri(1, 40)}.{ri(1, 40)}.{ri(1, 80)}']
    return sample(pool, ri(2, 4))


def p_devtools_copy():
    host = ch([f'app.{domain()}', f'dashboard.{domain()}', f'{org()}.atlassian.net', f'console.{domain()}'])
    path = ch(['/api/graphql', '/api/v1/projects', '/rest/api/3/myself', '/api/session', '/api/internal/billing'])
    cn, cv = session_cookie()
    tok = jwt()
    ua = f'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{ri(120, 131)}.0.0.0 Safari/537.36'
    cookies = analytics_cookies() + [f'{cn}={M(cv)}']
    R.shuffle(cookies)
    v = ri(0, 2)
    if v == 0:
        out = [f"curl 'https://{host}{path}' \\", "  -H 'accept: */*' \\", "  -H 'accept-language: en-US,en;q=0.9' \\"]
        if coin(0.6):
            out.append(f"  -H 'authorization: Bearer {M(tok)}' \\")
        out += ["  -H 'content-type: application/json' \\", f"  -b '{'; '.join(cookies)}' \\", f"  -H 'origin: https://{host}' \\",
                "  -H 'priority: u=1, i' \\", f"  -H 'referer: https://{host}/' \\",
                f'  -H \'sec-ch-ua: "Chromium";v="{ri(120, 131)}", "Not;A=Brand";v="24", "Google Chrome";v="{ri(120, 131)}"\' \\',
                "  -H 'sec-ch-ua-mobile: ?0' \\", '  -H \'sec-ch-ua-platform: "macOS"\' \\', "  -H 'sec-fetch-dest: empty' \\",
                "  -H 'sec-fetch-mode: cors' \\", "  -H 'sec-fetch-site: same-origin' \\", f"  -H 'user-agent: {ua}' \\",
                '  --data-raw \'{"operationName":"Viewer","variables":{},"query":"query Viewer { viewer { id login } }"}\'']
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([f'fetch("https://{host}{path}", {{', '  "headers": {', '    "accept": "application/json",',
                          '    "accept-language": "en-GB,en;q=0.9",', f'    "authorization": "Bearer {M(tok)}",',
                          '    "sec-fetch-dest": "empty",', '    "sec-fetch-mode": "cors",', '    "sec-fetch-site": "same-origin",',
                          f'    "x-request-id": "{uuid4()}"', '  },', f'  "referrer": "https://{host}/settings",',
                          '  "referrerPolicy": "strict-origin-when-cross-origin",', '  "body": null,', '  "method": "GET",',
                          '  "mode": "cors",', '  "credentials": "include"', '});'])
    return '\n'.join(['$session = New-Object Microsoft.PowerShell.Commands.WebRequestSession', f'$session.UserAgent = "{ua}"',
                      f'$session.Cookies.Add((New-Object System.Net.Cookie("{cn}", "{M(cv)}", "/", "{host}")))',
                      f'Invoke-WebRequest -UseBasicParsing -Uri "https://{host}{path}" `', '-WebSession $session `', '-Headers @{',
                      '"accept"="application/json"', f'  "authorization"="Bearer {M(tok)}"', '  "sec-fetch-mode"="cors"', '}'])


def p_har_auth():
    host = f'api.{domain()}'
    cn, cv = session_cookie()
    tok = ch([jwt(), jwt(alg='RS256', kid=hx(16)), b64u(40)])
    rt = ch([b64u(48), rs(64, B62), uuid4() + uuid4().replace('-', '')])
    acook = analytics_cookies()
    hdrs = [('accept', 'application/json'), ('authorization', f'Bearer {M(tok)}'), ('cookie', '; '.join(acook + [f'{cn}={M(cv)}']))]
    lines = ['{', '  "log": {', '    "version": "1.2",', '    "creator": { "name": "WebInspector", "version": "537.36" },',
             '    "entries": [', '      {', f'        "startedDateTime": "{iso(frac=3)}",', f'        "time": {round(R.random() * 400, 3)},',
             '        "request": {', '          "method": "GET",', f'          "url": "https://{host}/v1/{ch(["me", "orgs", "projects", "invoices"])}",',
             '          "httpVersion": "http/2.0",', '          "headers": [']
    for i, (k, val) in enumerate(hdrs):
        lines.append(f'            {{ "name": "{k}", "value": "{val}" }}' + (',' if i < len(hdrs) - 1 else ''))
    lines += ['          ],', f'          "cookies": [ {{ "name": "{cn}", "value": "{M(cv)}", "httpOnly": true, "secure": true }} ]', '        },',
              '        "response": {', '          "status": 200,', '          "headers": [',
              f'            {{ "name": "set-cookie", "value": "refresh_token={M(rt)}; Path=/auth; Expires={rtime().strftime("%a, %d %b %Y %H:%M:%S GMT")}; HttpOnly; Secure; SameSite=Lax" }},',
              f'            {{ "name": "x-request-id", "value": "{uuid4()}" }}', '          ]', '        }', '      }', '    ]', '  }', '}']
    return '\n'.join(lines)


def p_postman_insomnia():
    v = ri(0, 2)
    name = ch(['Billing API', 'Internal Admin', f'{org().capitalize()} Public API', 'Payments v2', 'Partner API'])
    base = f'https://api.{domain()}'
    if v == 0:
        tok = ch([jwt(), vendor()[1], b64u(32)])
        k2 = ch([hx(32), vendor()[1]])
        return '\n'.join(['{', '\t"info": {', f'\t\t"_postman_id": "{uuid4()}",', f'\t\t"name": "{name}",',
                          '\t\t"schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",',
                          f'\t\t"_exporter_id": "{ri(10 ** 7, 10 ** 8)}"', '\t},', '\t"item": [', '\t\t{',
                          f'\t\t\t"name": "List {ch(["invoices", "users", "orders"])}",',
                          '\t\t\t"request": { "method": "GET", "header": [], "url": { "raw": "{{baseUrl}}/v1/items", "host": ["{{baseUrl}}"], "path": ["v1", "items"] } }',
                          '\t\t}', '\t],', '\t"auth": {', '\t\t"type": "bearer",', '\t\t"bearer": [',
                          f'\t\t\t{{ "key": "token", "value": "{M(tok)}", "type": "string" }}', '\t\t]', '\t},', '\t"variable": [',
                          f'\t\t{{ "key": "baseUrl", "value": "{base}" }},', f'\t\t{{ "key": "{ch(["apiKey", "key", "x", "secondary"])}", "value": "{M(k2)}" }}', '\t]', '}'])
    if v == 1:
        vals = [('baseUrl', base, 'default'), ('client_id', rs(24), 'default'),
                ('client_secret', M(rs(48, B64U)), 'secret'), ('access_token', M(jwt()), 'secret')]
        out = ['{', f'\t"id": "{uuid4()}",', f'\t"name": "{ch(["Production", "Staging", "Local"])}",', '\t"values": [']
        for i, (k, val, ty) in enumerate(vals):
            out.append(f'\t\t{{ "key": "{k}", "value": "{val}", "type": "{ty}", "enabled": true }}' + (',' if i < len(vals) - 1 else ''))
        out += ['\t],', '\t"_postman_variable_scope": "environment",', f'\t"_postman_exported_at": "{iso(frac=3)}",',
                '\t"_postman_exported_using": "Postman/11.' + str(ri(1, 20)) + '.0"', '}']
        return '\n'.join(out)
    n, val = named_secret()
    return '\n'.join(['_type: export', '__export_format: 4', f'__export_date: {iso(frac=3)}', '__export_source: insomnia.desktop.app:v9.3.2',
                      'resources:', f'  - _id: env_{hx(32)}', f'    parentId: wrk_{hx(32)}', '    _type: environment',
                      '    name: Base Environment', '    data:', f'      base_url: {base}', f'      {camel(n)}: {M(val)}',
                      f'      password: "{M(pw())}"', f'  - _id: req_{hx(32)}', '    _type: request', '    method: GET',
                      '    url: "{{ _.base_url }}/v1/health"'])


def p_db_client():
    v = ri(0, 3)
    if v == 0:
        p = pw()
        db = pname().replace('-', '_') + '_prod'
        out = [prompt() + f"PGPASSWORD='{M(p)}' psql -h {ch(['db', 'pg', 'primary'])}.{domain()} -U {ch(['app', 'readonly', 'postgres'])} -d {db}",
               f'psql (16.{ri(1, 4)}, server 15.{ri(4, 8)})', 'SSL connection (protocol: TLSv1.3, cipher: TLS_AES_256_GCM_SHA384, compression: off, ALPN: none)',
               'Type "help" for help.', '', f'{db}=> SELECT id, provider, api_key FROM integrations LIMIT 3;',
               ' id | provider |  api_key', '----+----------+-----------']
        for i, (pv, gen) in enumerate(sample([('stripe', stripe_sk), ('sendgrid', sendgrid), ('slack', slack_bot), ('github', gh_any), ('mailgun', mailgun)], 3)):
            out.append(f'  {i + 1} | {pv.ljust(8)} | {M(gen())}')
        out.append('(3 rows)')
        return '\n'.join(out)
    if v == 1:
        p = pw(safe=True)
        return '\n'.join([prompt() + f'mysql -h 127.0.0.1 -P {ch([3306, 3307, 13306])} -u root -p{M(p)} {pname().replace("-", "_")}',
                          'mysql: [Warning] Using a password on the command line interface can be insecure.',
                          'Welcome to the MySQL monitor.  Commands end with ; or \\g.', f'Your MySQL connection id is {ri(8, 4000)}',
                          f'Server version: 8.{ri(0, 4)}.{ri(10, 40)} MySQL Community Server - GPL', '',
                          'Copyright (c) 2000, 2024, Oracle and/or its affiliates.', '',
                          "Type 'help;' or '\\h' for help. Type '\\c' to clear the current input statement.", '', 'mysql> '])
    if v == 2:
        p = pw(safe=True)
        cl = f'cluster{ri(0, 3)}.{rs(5, LOWDIG)}'
        dbn = pname()
        return '\n'.join([prompt() + f'mongosh "mongodb+srv://{ch(["admin", "app", "atlasAdmin"])}:{M(p)}@{cl}.mongodb.net/{dbn}"',
                          f'Current Mongosh Log ID:\t{objectid()}',
                          f'Connecting to:\t\tmongodb+srv://<credentials>@{cl}.mongodb.net/{dbn}?appName=mongosh+2.{ri(1, 3)}.{ri(0, 9)}',
                          f'Using MongoDB:\t\t7.0.{ri(5, 14)}', f'Using Mongosh:\t\t2.{ri(1, 3)}.{ri(0, 9)}', '',
                          'For mongosh info see: https://www.mongodb.com/docs/mongodb-shell/', '',
                          f'Atlas atlas-{rs(6, LOWDIG)}-shard-0 [primary] {dbn}> '])
    p = pw(safe=True)
    h = ch([ip_priv(), f'redis.{domain()}', 'localhost'])
    return '\n'.join([prompt() + f"redis-cli -h {h} -p 6379 -a '{M(p)}'",
                      "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.",
                      f'{h}:6379> AUTH {ch(["default", "app"])} {M(p)}', 'OK', f'{h}:6379> DBSIZE', f'(integer) {ri(100, 900000)}',
                      f'{h}:6379> GET config:{ch(["stripe", "smtp", "webhook"])}:secret', f'"{M(vendor()[1])}"'])


def gha_lines(lines, t=None):
    t = t or rtime()
    out = []
    for i, l in enumerate(lines):
        tt = t + dt.timedelta(milliseconds=i * 300 + ri(0, 299))
        out.append(f'{tt.strftime("%Y-%m-%dT%H:%M:%S")}.{tt.microsecond:06d}{ri(0, 9)}Z {l}')
    return out


def p_github_actions_log():
    v = ri(0, 2)
    n, val = named_secret()
    if v == 0:
        lines = ['##[group]Run ./scripts/deploy.sh', '\x1b[36;1m./scripts/deploy.sh\x1b[0m', 'shell: /usr/bin/bash -e {0}', 'env:',
                 f'  AWS_REGION: {region()}', f'  {n}: {M(val)}', '  NPM_TOKEN: ***', '##[endgroup]',
                 f'+ curl -sf -X POST -H \'Authorization: token {M(gh_tok("ghp"))}\' https://api.github.com/repos/{org()}/{pname()}/deployments',
                 '{', f'  "id": {ri(10 ** 9, 10 ** 10)},', f'  "sha": "{sha1()}",', '  "environment": "production"']
        return '\n'.join(gha_lines(lines))
    if v == 1:
        lines = ['##[group]Run echo "Decoding signing config"', 'echo "Decoding signing config"',
                 'echo "$SIGNING_CONFIG" | base64 -d > signing.properties', 'set -x; cat signing.properties', 'shell: /usr/bin/bash -e {0}', 'env:',
                 '  SIGNING_CONFIG: ***', '##[endgroup]', 'Decoding signing config', '+ cat signing.properties',
                 f'storeFile=release.keystore', f'{camel(n)}={M(val)}', f'keyAlias={pname()}']
        return '\n'.join(gha_lines(lines))
    return '\n'.join([prompt() + 'cat .github/workflows/release.yml', 'name: release', 'on:', '  push:', "    tags: ['v*']", 'jobs:',
                      '  publish:', '    runs-on: ubuntu-latest', '    env:', f'      {n}: {M(val)}',
                      f'      REGISTRY: ghcr.io/{org()}', '    steps:', '      - uses: actions/checkout@v4',
                      '      - uses: actions/setup-node@v4', '        with:', "          node-version: 20",
                      '      - run: npm ci && npm publish', '        env:', f'          NODE_AUTH_TOKEN: {M(npm_tok())}'])


def p_ci_logs_other():
    v = ri(0, 2)
    if v == 0:
        tok = npm_tok()
        return '\n'.join([f'Running with gitlab-runner 17.{ri(0, 5)}.{ri(0, 2)} ({hx(8)})',
                          f'  on {ch(["docker-auto-scale", "k8s-runner-2", "shared-runner"])} {rs(8, B64U)}, system ID: s_{hx(12)}',
                          'Preparing the "docker" executor', f'Using Docker executor with image node:{ri(18, 22)}-alpine ...',
                          'Getting source from Git repository', f'Fetching changes with git depth set to 20...',
                          f'Checking out {hx(8)} as detached HEAD (ref is main)...', 'Executing "step_script" stage of the job script',
                          '$ echo "//registry.npmjs.org/:_authToken=${NPM_TOKEN}" > .npmrc', '$ cat .npmrc',
                          f'//registry.npmjs.org/:_authToken={M(tok)}', '$ npm publish --access public',
                          f'npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access'])
    if v == 1:
        u = ch(['deploy', 'jenkins', 'ci'])
        p = pw(safe=True)
        return '\n'.join([f'Started by user {fullname()}', f'Running in Durability level: MAX_SURVIVABILITY', '[Pipeline] Start of Pipeline',
                          f'[Pipeline] node', f'Running on agent-{ri(1, 9)} in /var/lib/jenkins/workspace/{pname()}-deploy',
                          '[Pipeline] {', '[Pipeline] stage', '[Pipeline] { (Upload)', '[Pipeline] sh',
                          f'+ curl -fsS -u {u}:{M(p)} --upload-file build/{pname()}-{semver()}.jar https://nexus.{domain()}/repository/releases/',
                          '  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current',
                          f'100 {ri(10, 90)}.{ri(0, 9)}M    0     0  100 {ri(10, 90)}.{ri(0, 9)}M      0  {ri(5, 40)}.{ri(0, 9)}M  0:00:0{ri(1, 9)} --:--:-- --:--:-- {ri(5, 40)}.{ri(0, 9)}M',
                          '[Pipeline] }', '[Pipeline] // stage'])
    out = ['#!/bin/bash -eo pipefail', 'env | sort | grep -v -e ^PATH -e ^HOME', f'CIRCLE_BRANCH=main', f'CIRCLE_BUILD_NUM={ri(1000, 99999)}',
           f'CIRCLE_PROJECT_REPONAME={pname()}', f'CIRCLE_SHA1={sha1()}', f'CIRCLE_WORKFLOW_ID={uuid4()}']
    for _ in range(ri(2, 3)):
        n, val = named_secret()
        out.append(f'{n}={M(val)}')
    out.append(f'HOSTNAME={hx(12)}')
    return '\n'.join(out[:2] + sorted(out[2:]))


def p_code_python_js():
    v = ri(0, 3)
    if v == 0:
        n, val = named_secret()
        out = [prompt() + f'sed -n 1,20p {ch(["app/config.py", "scripts/sync.py", "src/client.py", "etl/main.py"])}', 'import os',
               'import stripe', 'from openai import OpenAI', '', f'stripe.api_key = "{M(stripe_sk())}"',
               f'client = OpenAI(api_key="{M(openai_key())}")', '', 'DB = {', '    "host": "' + f'db.{domain()}' + '",',
               f'    "user": "{ch(["reporting", "etl", "app"])}",', f'    "password": "{M(pw())}",', '    "port": 5432,', '}', '',
               f'{n.lower()} = os.getenv("{n}", "{M(val)}")']
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([prompt() + 'grep -n SECRET_KEY -A2 ' + pname().replace('-', '_') + '/settings.py',
                          f'{ri(20, 30)}:SECRET_KEY = \'{M(django_secret())}\'', f'{ri(31, 33)}-', f'{ri(34, 36)}-DEBUG = False'])
    if v == 2:
        k = ch(['k', 'cfg2', 'upstreamKey', 'x', 'secondary', 'token'])
        out = ['import { Octokit } from "@octokit/rest";', 'import { createClient } from "@supabase/supabase-js";', '',
               f'const octokit = new Octokit({{ auth: "{M(gh_any())}" }});', '', 'export const config = {',
               f'  supabaseUrl: "https://{rs(20, LOW)}.supabase.co",', f'  supabaseServiceKey: "{M(supabase_service())}",',
               f'  {k}: "{M(vendor()[1])}",', f'  region: "{region()}",', '};', '',
               'export const supabase = createClient(config.supabaseUrl, config.supabaseServiceKey);']
        return prompt() + f'cat src/lib/{ch(["clients", "config", "services"])}.ts\n' + '\n'.join(out)
    n, val = named_secret()
    return '\n'.join([prompt() + 'git diff HEAD~1 -- src/mailer.js', f'diff --git a/src/mailer.js b/src/mailer.js',
                      f'index {hx(7)}..{hx(7)} 100644', '--- a/src/mailer.js', '+++ b/src/mailer.js', '@@ -3,7 +3,8 @@ const nodemailer = require("nodemailer");',
                      ' const transport = nodemailer.createTransport({', f'   host: "smtp.{ch(["sendgrid.net", "mailgun.org", "postmarkapp.com"])}",', '   port: 587,',
                      '-  auth: { user: "apikey", pass: process.env.SMTP_PASS },', f'+  auth: {{ user: "apikey", pass: "{M(sendgrid())}" }},',
                      f'+  // {n.lower()}: {M(val)}', ' });'])


def p_code_go_java_csharp():
    v = ri(0, 3)
    n, val = named_secret()
    if v == 0:
        name = ch(['token', 'apiKey', 'authKey', 'k', 'defaultCred'])
        return '\n'.join([prompt() + 'cat internal/client/client.go | head -24', 'package client', '', 'import (', '\t"net/http"', '\t"time"', ')', '',
                          'const (', f'\tbaseURL = "https://api.{domain()}"', f'\t{name}   = "{M(val)}"', ')', '',
                          'func New() *http.Client {', '\treturn &http.Client{Timeout: 10 * time.Second}', '}', '',
                          'func authorize(req *http.Request) {', f'\treq.Header.Set("Authorization", "Bearer "+{name})', '}'])
    if v == 1:
        return '\n'.join(['public final class MailConfig {', '    private static final String SMTP_HOST = "smtp.sendgrid.net";',
                          '    private static final int SMTP_PORT = 587;', '    private static final String SMTP_USER = "apikey";',
                          f'    private static final String SMTP_PASS = "{M(sendgrid())}";', '',
                          f'    static final String {n} = "{M(val)}";', '}'])
    if v == 2:
        return '\n'.join(['using Azure.Identity;', 'using Azure.Security.KeyVault.Secrets;', '',
                          'var credential = new ClientSecretCredential(', f'    tenantId: "{uuid4()}",', f'    clientId: "{uuid4()}",',
                          f'    clientSecret: "{M(azure_secret())}");', '',
                          f'var client = new SecretClient(new Uri("https://kv-{pname()}.vault.azure.net/"), credential);',
                          f'var conn = "Server=tcp:{pname()}-sql.database.windows.net,1433;Initial Catalog={pname()};User ID=sqladmin;Password={M(pw(safe=True))};Encrypt=True;";'])
    return '\n'.join(['object Secrets {', f'    const val BASE_URL = "https://api.{domain()}/"',
                      f'    const val {ch(["KEY", "TOKEN", "X", "A1"])} = "{M(val)}"',
                      f'    val maps = "{M(gapi_key())}"', '}'])


def p_code_ruby_php_rust_sh():
    v = ri(0, 4)
    if v == 0:
        return '\n'.join(['# config/initializers/aws.rb', 'Aws.config.update(', f"  region: '{region()}',",
                          f"  credentials: Aws::Credentials.new('{M(aws_akid())}', '{M(aws_secret())}')", ')'])
    if v == 1:
        return '\n'.join(['<?php', '', 'return [', "    'mailgun' => [", f"        'domain' => 'mg.{domain()}',",
                          f"        'secret' => '{M(mailgun())}',", "        'endpoint' => 'api.mailgun.net',", '    ],', '',
                          "    'stripe' => [", f"        'secret' => env('STRIPE_SECRET', '{M(stripe_sk())}'),", '    ],',
                          f"    'key' => 'base64:{M(b64(32))}',", '];'])
    if v == 2:
        return '\n'.join(['let client = reqwest::Client::new();', 'let resp = client', '    .post("https://api.anthropic.com/v1/messages")',
                          f'    .header("x-api-key", "{M(anthropic_key())}")', '    .header("anthropic-version", "2023-06-01")',
                          '    .json(&body)', '    .send()', '    .await?;'])
    if v == 3:
        n, val = named_secret()
        return '\n'.join([prompt() + 'cat scripts/bootstrap.sh', '#!/usr/bin/env bash', 'set -euo pipefail', '',
                          f'export HF_TOKEN={M(hf_tok())}', f'export {n}="{M(val)}"', '',
                          'huggingface-cli download meta-llama/Llama-3.1-8B-Instruct --local-dir ./models',
                          f'curl -fsSL -H "Authorization: Bearer ${n}" https://api.{domain()}/v1/bootstrap | bash'])
    tok = telegram_tok()
    return '\n'.join(['import Foundation', '', 'enum Keys {', f'    static let telegram = "{M(tok)}"',
                      f'    static let revenueCat = "{M("sk_" + rs(32))}"', f'    static let appGroup = "group.com.{org().replace("-", "")}.app"', '}'])


def p_jupyter():
    v = ri(0, 2)
    if v == 0:
        k = openai_key()
        h = hf_tok()
        return '\n'.join(['In [3]: import os', f'   ...: os.environ["OPENAI_API_KEY"] = "{M(k)}"', '', 'In [4]: {k: v for k, v in os.environ.items() if "TOKEN" in k or "KEY" in k}',
                          f"Out[4]: {{'OPENAI_API_KEY': '{M(k)}', 'HF_TOKEN': '{M(h)}', 'KMP_DUPLICATE_LIB_OK': 'True'}}"])
    if v == 1:
        p = pw(safe=True)
        host = f'{ch(["warehouse", "analytics", "dw"])}.{rs(12, LOWDIG)}.{region()}.redshift.amazonaws.com'
        cell = {'cell_type': 'code', 'execution_count': ri(2, 40), 'metadata': {},
                'outputs': [{'name': 'stdout', 'output_type': 'stream', 'text': [f'connected: {host}\n', f'{ri(1000, 900000)} rows\n']}],
                'source': ['import pandas as pd\n', 'from sqlalchemy import create_engine\n', '\n',
                           f'engine = create_engine("postgresql://analyst:{M(p)}@{host}:5439/dw")\n',
                           'df = pd.read_sql("select * from events limit 100000", engine)\n']}
        return prompt() + f'jq ".cells[{ri(1, 9)}]" notebooks/{ch(["explore", "eda", "churn", "forecast"])}.ipynb\n' + jdump(cell, 1)
    key = hx(40)
    return '\n'.join([f'In [1]: !wandb login {M(key)}', f'wandb: Appending key for api.wandb.ai to your netrc file: /root/.netrc', '',
                      f'In [2]: !huggingface-cli login --token {M(hf_tok())}',
                      'The token has not been saved to the git credentials helper. Pass `add_to_git_credential=True` in this function directly or `--add-to-git-credential` if using via `huggingface-cli` if you want to set the git credential as well.',
                      'Token is valid (permission: write).', 'Your token has been saved to /root/.cache/huggingface/token', 'Login successful'])


def p_pem_private_key():
    v = ri(0, 3)
    if v == 0:
        path = ch(['certs/server.key', '~/.ssh/deploy_key', 'tls/tls.key', f'/etc/ssl/private/{domain()}.key', 'jwt-private.pem'])
        return prompt() + f'cat {path}\n' + M(private_pem())
    if v == 1:
        key = private_pem(ch(['ec', 'ec8', 'ed']))
        ind = '\n'.join('    ' + l for l in key.split('\n'))
        return '\n'.join(['apiVersion: v1', 'kind: Secret', 'metadata:', f'  name: {pname()}-tls', 'type: kubernetes.io/tls', 'stringData:',
                          '  tls.crt: |'] + ['    ' + l for l in cert_pem(f'{pname()}.{domain()}').split('\n')] + [
                          '  tls.key: |', '    ' + M(ind[4:])])
    if v == 2:
        key = private_pem(ch(['ec', 'ed', 'ec8']))
        return prompt() + 'openssl genpkey -algorithm ' + ('ED25519' if 'PRIVATE KEY-----\nMC4' in key else 'EC -pkeyopt ec_paramgen_curve:P-256') + ' | tee signing.pem\n' + M(key)
    key = private_pem(ch(['ec', 'ed']))
    esc = key.replace('\n', '\\n')
    return '\n'.join([prompt() + 'grep -n PRIVATE .env', f'{ri(3, 20)}:{ch(["JWT_PRIVATE_KEY", "APPLE_PRIVATE_KEY", "SIGNING_KEY", "GITHUB_APP_PRIVATE_KEY"])}="{M(esc)}"'])


def p_ssh_putty_key():
    v = ri(0, 2)
    cmt = f'{person()}@{ch(HOSTS)}'
    if v == 0:
        kind = ch(['ssh-ed25519', 'ssh-ed25519', 'ecdsa-sha2-nistp256'])
        fn = ch([('id_ed25519' if kind == 'ssh-ed25519' else 'id_ecdsa'), 'deploy_key', 'github_actions', 'bastion'])
        return prompt() + f'cat ~/.ssh/{fn}\n' + M(openssh_private(kind, comment=cmt))
    if v == 1:
        return prompt() + f'cat {ch(["C:/Users/" + person() + "/Documents/keys/server.ppk", "~/keys/bastion.ppk", "putty/prod.ppk"])}\n' + putty_key()
    key = openssh_private(comment=cmt)
    ind = '\n'.join('  ' + l for l in key.split('\n'))
    return '\n'.join([prompt() + f'cat group_vars/{ch(["all", "bastion"])}/ssh.yml', '---', f'deploy_user: {ch(["deploy", "ubuntu"])}',
                      'deploy_ssh_key: |', '  ' + M(ind[2:]), f'known_hosts_entry: "{pname()}.{domain()} {ssh_pub("ssh-ed25519")}"'])


def p_jwk_pkcs12():
    v = ri(0, 3)
    if v == 0:
        d = {'kty': 'EC', 'crv': 'P-256', 'x': b64u(32), 'y': b64u(32), 'd': M(b64u(32)), 'use': 'sig', 'alg': 'ES256', 'kid': ch([uuid4(), hx(16), b64u(12)])}
        return prompt() + ch(['cat jwk.json', 'cat keys/private.jwk', 'jq . signing-key.json']) + '\n' + jdump(d)
    if v == 1:
        keys = {'keys': [{'kty': 'RSA', 'kid': hx(16), 'use': 'sig', 'alg': 'RS256', 'n': b64u(256), 'e': 'AQAB', 'd': M(b64u(256)),
                          'p': M(b64u(128)), 'q': M(b64u(128)), 'dp': M(b64u(128)), 'dq': M(b64u(128)), 'qi': M(b64u(128))}]}
        return prompt() + 'cat config/jwks-private.json\n' + jdump(keys)
    if v == 2:
        d = {'kty': 'OKP', 'crv': 'Ed25519', 'd': M(b64u(32)), 'x': b64u(32), 'kid': rs(8, LOWDIG)}
        return prompt() + 'echo $JWT_SIGNING_JWK\n' + json.dumps(d, separators=(',', ':'), ensure_ascii=False)
    p12 = p12_b64()
    pwd = pw(safe=True)
    name = ch(['BUILD_CERTIFICATE_BASE64', 'P12_BASE64', 'SIGNING_CERT', 'CERT_DATA'])
    if coin():
        return '\n'.join(gha_lines(['##[group]Run security import', 'echo -n "$BUILD_CERTIFICATE_BASE64" | base64 --decode -o $CERTIFICATE_PATH',
                                    'shell: /bin/bash -e {0}', 'env:', f'  {name}: {M(p12)}', f'  P12_PASSWORD: {M(pwd)}',
                                    '  KEYCHAIN_PASSWORD: ***', '##[endgroup]']))
    return '\n'.join([prompt() + f'az keyvault secret show --vault-name kv-{pname()} --name {pname()}-cert --query value -o tsv', M(p12)])


def p_connection_strings():
    v = ri(0, 5)
    db = pname().replace('-', '_')
    p = pw(safe=True)
    if v == 0:
        return '\n'.join([prompt() + 'cat appsettings.Production.json', '{', '  "ConnectionStrings": {',
                          f'    "Default": "Server={pname()}-sql.database.windows.net;Database={db};User Id=sa;Password={M(p)};TrustServerCertificate=True;",',
                          f'    "Redis": "{pname()}.redis.cache.windows.net:6380,password={M(b64(32))},ssl=True,abortConnect=False"', '  },',
                          '  "Logging": {', '    "LogLevel": {', '      "Default": "Information"', '    }', '  },', '  "AllowedHosts": "*"', '}'])
    if v == 1:
        return '\n'.join([prompt() + 'cat src/main/resources/application.yml', 'spring:', '  datasource:',
                          f'    url: jdbc:postgresql://{pname()}-db:5432/{db}', f'    username: {ch(["app", db])}', f'    password: {M(p)}',
                          '  rabbitmq:', f'    addresses: amqps://{ch(["app", "worker"])}:{M(pw(safe=True))}@{rs(8, LOW)}.rmq.cloudamqp.com/{rs(8, LOW)}',
                          '  data:', '    redis:', f'      url: rediss://default:{M(rs(32, B62))}@{ch(ADJ)}-{ch(NOUN)}-{ri(10000, 99999)}.upstash.io:6379'])
    if v == 2:
        return '\n'.join([prompt() + 'cat docker-compose.yml', 'services:', '  db:', '    image: postgres:16', '    environment:',
                          f'      POSTGRES_USER: {db}', f'      POSTGRES_PASSWORD: {M(p)}', f'      POSTGRES_DB: {db}', '  app:',
                          '    build: .', '    environment:', f'      DATABASE_URL: postgres://{db}:{M(p)}@db:5432/{db}',
                          f'      {ch(["MINIO_ROOT_PASSWORD", "RABBITMQ_DEFAULT_PASS", "MEILI_MASTER_KEY"])}: {M(pw(safe=True))}',
                          '    ports:', '      - "8080:8080"', '    depends_on: [db]'])
    if v == 3:
        return '\n'.join([prompt() + 'cat config/production.toml', '[server]', 'port = 8080', '', '[database]',
                          f'url = "mysql+pymysql://{db}:{M(p)}@{pname()}.cluster-{rs(12, LOWDIG)}.{region()}.rds.amazonaws.com:3306/{db}?charset=utf8mb4"',
                          'pool_size = 10', '', '[cache]', f'url = "redis://:{M(pw(safe=True))}@{ip_priv()}:6379/2"', '',
                          '[search]', f'url = "https://elastic:{M(rs(24, B62))}@{pname()}.es.{region()}.aws.found.io:9243"'])
    if v == 4:
        return '\n'.join([prompt() + 'cat Web.config | grep -A3 connectionStrings', '  <connectionStrings>',
                          f'    <add name="DefaultConnection" connectionString="Data Source={ip_priv()};Initial Catalog={db};User ID={db}_app;Password={M(p)};MultipleActiveResultSets=True" providerName="System.Data.SqlClient" />',
                          '  </connectionStrings>'])
    return '\n'.join([prompt() + 'cat config/database.properties', f'db.url=jdbc:oracle:thin:@//{ip_priv()}:1521/{db.upper()}',
                      f'db.user={db}_owner', f'db.password={M(p)}', 'db.pool.max=20',
                      f'snowflake.url=jdbc:snowflake://{rs(7, LOW)}-{rs(7, LOW)}.snowflakecomputing.com/?warehouse=COMPUTE_WH&user=ETL&password={M(pw(safe=True))}',
                      f'clickhouse.dsn=clickhouse://default:{M(rs(20, B62))}@{rs(10, LOWDIG)}.{region()}.aws.clickhouse.cloud:9440/default?secure=true'])


def p_webhook_urls():
    v = ri(0, 4)
    kind = ch(['slack', 'discord', 'teams', 'gchat', 'mattermost'])
    if kind == 'slack':
        url = slack_hook()
    elif kind == 'discord':
        url = discord_hook()
    elif kind == 'teams':
        url = teams_hook()
    elif kind == 'gchat':
        url = f'https://chat.googleapis.com/v1/spaces/AAAA{rs(7, B64U)}/messages?key={gapi_key()}&token={b64u(32)}'
    else:
        url = f'https://mattermost.{domain()}/hooks/{rs(26, LOWDIG)}'
    if v == 0:
        return '\n'.join([prompt() + 'cat alertmanager.yml', 'global:', '  resolve_timeout: 5m', 'route:', '  receiver: team-oncall',
                          "  group_by: ['alertname', 'cluster']", 'receivers:', '  - name: team-oncall', '    slack_configs:',
                          f'      - api_url: {M(url)}', f"        channel: '#{ch(['alerts', 'oncall', 'ops-alerts'])}'", '        send_resolved: true'])
    if v == 1:
        return '\n'.join([prompt() + f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"Deploy {semver()} finished\"}}' {M(url)}", 'ok'])
    if v == 2:
        return '\n'.join([prompt() + 'grep -i webhook .env', f'{ch(["SLACK_WEBHOOK_URL", "DISCORD_WEBHOOK", "NOTIFY_URL", "ALERT_HOOK", "CHAT_ENDPOINT"])}={M(url)}'])
    if v == 3:
        return '\n'.join(['    - name: Notify', '      if: always()', '      run: |',
                          f'        curl -sS -X POST "{M(url)}" \\', '          -H "Content-Type: application/json" \\',
                          '          -d "{\\"text\\": \\"${{ github.workflow }}: ${{ job.status }}\\"}"'])
    return '\n'.join(['{', '  "contactPoints": [', '    {', '      "orgId": 1,', f'      "name": "{ch(["oncall", "platform", "sre"])}",',
                      '      "receivers": [', '        {', f'          "uid": "{rs(14, LOWDIG)}",', f'          "type": "{kind if kind != "gchat" else "googlechat"}",',
                      '          "settings": {', f'            "url": "{M(url)}"', '          },', '          "disableResolveMessage": false',
                      '        }', '      ]', '    }', '  ]', '}'])


def p_dotenv_vendor():
    out = []
    used = []
    for _ in range(ri(4, 9)):
        names, gen = ch(VENDOR)
        n = ch(names)
        if n in used:
            continue
        used.append(n)
        q = ch(['', '', '"', "'"])
        pre = 'export ' if coin(0.15) else ''
        out.append(f'{pre}{n}={q}{M(gen())}{q}')
    if coin(0.5):
        n = ch(OBSCURE)
        out.append(f'{n}={M(ch([lambda: generic_secret(False), lambda: vendor()[1]])())}')
    for _ in range(ri(2, 5)):
        out.insert(ri(0, len(out)), env_noise())
    if coin(0.4):
        out.insert(0, '# ' + ch(['local dev', 'DO NOT COMMIT', 'copied from 1password', 'prod values - temp']))
    t = f'TWILIO_ACCOUNT_SID=AC{hx(32)}'
    if coin(0.3):
        out.append(t)
    return prompt() + ch(['cat .env', 'cat .env.local', 'cat .env.production', 'cat apps/web/.env', 'cat ../.env']) + '\n' + '\n'.join(out)


# =========================================================================
# NEGATIVE TEMPLATES (look-alikes only, no secrets)
# =========================================================================

def n_aws_ids():
    v = ri(0, 2)
    a = acct()
    if v == 0:
        if coin():
            uid, arn = 'AIDA' + rs(17, UPP + '234567'), f'arn:aws:iam::{a}:user/{person()}'
        else:
            s = ch([person() + '@' + domain(), 'botocore-session-' + str(ri(10 ** 9, 2 * 10 ** 9))])
            uid, arn = f'AROA{rs(17, UPP + "234567")}:{s}', f'arn:aws:sts::{a}:assumed-role/AWSReservedSSO_AdministratorAccess_{hx(16)}/{s}'
        out = [prompt() + 'aws sts get-caller-identity', '{', f'    "UserId": "{uid}",', f'    "Account": "{a}",', f'    "Arn": "{arn}"', '}',
               prompt() + "aws ec2 describe-instances --query 'Reservations[].Instances[].[InstanceId,ImageId,SubnetId,PrivateIpAddress,State.Name]' --output text"]
        for _ in range(ri(2, 5)):
            out.append(f'i-0{hx(16)}\tami-0{hx(16)}\tsubnet-0{hx(16)}\t{ip_priv()}\t{ch(["running", "running", "stopped"])}')
        return '\n'.join(out)
    if v == 1:
        fn = f'{pname()}-{ch(["handler", "cron", "api", "resize"])}'
        r = region()
        return '\n'.join([prompt() + f'aws lambda publish-version --function-name {fn}', '{', f'    "FunctionName": "{fn}",',
                          f'    "FunctionArn": "arn:aws:lambda:{r}:{a}:function:{fn}:{ri(2, 80)}",', f'    "Runtime": "{ch(["nodejs20.x", "python3.12", "provided.al2023"])}",',
                          f'    "Role": "arn:aws:iam::{a}:role/{fn}-role-{rs(8, LOWDIG)}",', '    "Handler": "index.handler",',
                          f'    "CodeSize": {ri(10000, 9000000)},', f'    "CodeSha256": "{b64(32)}",', f'    "Version": "{ri(2, 80)}",',
                          f'    "LastModified": "{iso()[:-1]}.{ri(100, 999)}+0000",', f'    "RevisionId": "{uuid4()}",',
                          '    "State": "Active",', '    "Architectures": [', f'        "{ch(["arm64", "x86_64"])}"', '    ]', '}'])
    b = f'{org()}-{ch(["assets", "uploads", "backups", "logs"])}'
    return '\n'.join([prompt() + f'aws s3api head-object --bucket {b} --key {ch(["reports", "exports", "img"])}/{uuid4()}.{ch(["csv", "png", "parquet"])}', '{',
                      '    "AcceptRanges": "bytes",', f'    "LastModified": "{rtime().strftime("%a, %d %b %Y %H:%M:%S GMT")}",',
                      f'    "ContentLength": {ri(1000, 90000000)},', f'    "ETag": "\\"{hx(32)}\\"",', f'    "VersionId": "{rs(32, B62 + "._")}",',
                      '    "ContentType": "application/octet-stream",', '    "ServerSideEncryption": "aws:kms",',
                      f'    "SSEKMSKeyId": "arn:aws:kms:{region()}:{a}:key/{uuid4()}",', '    "BucketKeyEnabled": true,', '    "Metadata": {}', '}'])


def n_aws_masked_config():
    v = ri(0, 1)
    if v == 0:
        src = ch(['shared-credentials-file', 'env', 'sso'])
        return '\n'.join([prompt() + 'aws configure list', '      Name                    Value             Type    Location',
                          '      ----                    -----             ----    --------',
                          f'   profile                {ch(["<not set>", "dev", "prod"]).rjust(9)}             {ch(["None", "manual"])}    {ch(["None", "--profile"])}',
                          f'access_key     ****************{rs(4, UPP + "234567")} {src}', f'secret_key     ****************{rs(4, B62)} {src}',
                          f'    region                {region()}      config-file    ~/.aws/config'])
    sso = f'https://{org()}.awsapps.com/start'
    out = [prompt() + 'cat ~/.aws/config', '[default]', f'region = {region()}', 'output = json', '']
    for p in sample(['dev', 'prod', 'staging', 'sandbox', 'security'], ri(2, 3)):
        out += [f'[profile {p}]', f'sso_session = {org()}', f'sso_account_id = {acct()}', f'sso_role_name = {ch(["AdministratorAccess", "PowerUserAccess", "ReadOnlyAccess"])}',
                f'region = {region()}', '']
    out += [f'[sso-session {org()}]', f'sso_start_url = {sso}', f'sso_region = {region()}', 'sso_registration_scopes = sso:account:access']
    if coin():
        out += ['', '[profile vault-backed]', 'credential_process = /usr/local/bin/aws-vault exec prod --json']
    return '\n'.join(out)


def n_docs_example_keys():
    snippets = [
        ['```bash', 'export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE', 'export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
         f'export AWS_DEFAULT_REGION={region()}', '```'],
        ['[default]', 'aws_access_key_id = AKIAI44QH8DHBEXAMPLE', 'aws_secret_access_key = je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY'],
        ['For example, the token below decodes to `{"sub":"1234567890","name":"John Doe","iat":1516239022}`:', '',
         '    eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'],
        ['# Azurite (local storage emulator) - well-known development account',
         'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"'],
        ['Incoming webhook URLs look like this:', '', '    https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX'],
        ['# Stripe test-mode key from the public docs; safe to share', "stripe.api_key = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'"],
        ['<!-- example only -->', '<add key="AWSAccessKey" value="AKIAIOSFODNN7EXAMPLE" />',
         '<add key="AWSSecretKey" value="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" />'],
        ['  "Credentials": {', '    "AccessKeyId": "ASIAIOSFODNN7EXAMPLE",', '    "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",',
         '    "SessionToken": "AQoDYXdzEJr...<remainder of security token>",', '    "Expiration": "2011-07-15T23:28:33.359Z"', '  }'],
    ]
    pick = sample(snippets, ri(1, 2))
    src = ch(['README.md', 'docs/configuration.md', 'CONTRIBUTING.md', 'docs/getting-started.md', 'tests/fixtures/README.md'])
    out = [prompt() + f'sed -n {ri(10, 200)},+{ri(8, 20)}p {src}', f'## {ch(["Configuration", "Credentials", "Local setup", "Authentication"])}', '']
    for p in pick:
        out += p + ['']
    out.append(ch(['Replace these with your own values.', 'These are placeholder values from the vendor documentation.', 'See the upstream docs for details.']))
    return '\n'.join(out)


def n_kms_encrypted():
    v = ri(0, 2)
    a = acct()
    r = region()
    if v == 0:
        return '\n'.join([prompt() + 'aws kms encrypt --key-id alias/' + pname() + ' --plaintext fileb://db-pass.txt', '{',
                          f'    "CiphertextBlob": "{kms_blob()}",', f'    "KeyId": "arn:aws:kms:{r}:{a}:key/{uuid4()}",',
                          '    "EncryptionAlgorithm": "SYMMETRIC_DEFAULT"', '}'])
    if v == 1:
        n = f'/{ch(["prod", "staging"])}/{pname()}/{ch(["db_password", "api_token", "signing_key"])}'
        return '\n'.join([prompt() + f'aws ssm get-parameter --name {n}', '{', '    "Parameter": {', f'        "Name": "{n}",',
                          '        "Type": "SecureString",', f'        "Value": "{kms_blob()}",', f'        "Version": {ri(1, 9)},',
                          f'        "LastModifiedDate": "{iso()[:-1]}.{ri(100, 999)}000+00:00",', f'        "ARN": "arn:aws:ssm:{r}:{a}:parameter{n}",',
                          '        "DataType": "text"', '    }', '}'])
    name = f'{ch(["prod", "staging"])}/{pname()}/credentials'
    return '\n'.join([prompt() + f'aws secretsmanager describe-secret --secret-id {name}', '{',
                      f'    "ARN": "arn:aws:secretsmanager:{r}:{a}:secret:{name}-{rs(6)}",', f'    "Name": "{name}",',
                      f'    "KmsKeyId": "arn:aws:kms:{r}:{a}:key/{uuid4()}",', '    "RotationEnabled": true,',
                      f'    "RotationLambdaARN": "arn:aws:lambda:{r}:{a}:function:SecretsManagerRotation",',
                      f'    "LastRotatedDate": "{iso()[:-1]}.{ri(100, 999)}000+00:00",', '    "VersionIdsToStages": {',
                      f'        "{uuid4()}": [', '            "AWSCURRENT"', '        ],', f'        "{uuid4()}": [', '            "AWSPREVIOUS"', '        ]',
                      '    }', '}'])


def n_gcloud_listing():
    pid = f'{org()}-{ch(["prod", "dev", "data"])}-{ri(100000, 999999)}'
    v = ri(0, 2)
    if v == 0:
        out = [prompt() + 'gcloud projects list', 'PROJECT_ID                 NAME                 PROJECT_NUMBER']
        for _ in range(ri(2, 5)):
            p = f'{org()}-{ch(["prod", "dev", "data", "sandbox", "ml"])}-{ri(100000, 999999)}'
            out.append(f'{p.ljust(27)}{p.rsplit("-", 1)[0].ljust(21)}{ri(10 ** 11, 10 ** 12)}')
        out += [prompt() + 'gcloud auth list', '       Credentialed Accounts', 'ACTIVE  ACCOUNT', f'*       {email()}',
                f'        terraform@{pid}.iam.gserviceaccount.com', '', 'To set the active account, run:', '    $ gcloud config set account `ACCOUNT`']
        return '\n'.join(out)
    if v == 1:
        out = [prompt() + f'gcloud iam service-accounts keys list --iam-account=deployer@{pid}.iam.gserviceaccount.com',
               'KEY_ID                                    CREATED_AT            EXPIRES_AT            DISABLED  DISABLE_REASON  EXTENDED_STATUS']
        for _ in range(ri(2, 4)):
            out.append(f'{hx(40)}  {iso()}  {ch([iso(), "9999-12-31T23:59:59Z"])}')
        return '\n'.join(out)
    out = [prompt() + 'gcloud compute instances list', 'NAME                ZONE           MACHINE_TYPE   PREEMPTIBLE  INTERNAL_IP  EXTERNAL_IP     STATUS']
    for _ in range(ri(2, 5)):
        out.append(f'{(pname() + "-" + rs(4, LOWDIG)).ljust(20)}{ch(GCP_ZONES).ljust(15)}{ch(["e2-medium", "n2-standard-4", "e2-small"]).ljust(15)}{"".ljust(13)}{ip_priv().ljust(13)}{ip_pub().ljust(16)}RUNNING')
    return '\n'.join(out)


def n_az_account():
    v = ri(0, 1)
    if v == 0:
        t = uuid4()
        return '\n'.join([prompt() + 'az account show', '{', '  "environmentName": "AzureCloud",', f'  "homeTenantId": "{t}",',
                          f'  "id": "{uuid4()}",', '  "isDefault": true,', '  "managedByTenants": [],',
                          f'  "name": "{ch(["Pay-As-You-Go", "Visual Studio Enterprise", org().capitalize() + " Production"])}",', '  "state": "Enabled",',
                          f'  "tenantDefaultDomain": "{org().replace("-", "")}.onmicrosoft.com",', f'  "tenantDisplayName": "{org().capitalize()}",',
                          f'  "tenantId": "{t}",', '  "user": {', f'    "name": "{email()}",', '    "type": "user"', '  }', '}'])
    kv = f'kv-{pname()}-{ch(["prod", "dev"])}'
    out = [prompt() + f'az keyvault secret list --vault-name {kv} --query "[].{{name:name, enabled:attributes.enabled, updated:attributes.updated}}" -o table',
           'Name                       Enabled    Updated', '-------------------------  ---------  -------------------------']
    for n in sample(['db-password', 'stripe-key', 'jwt-signing', 'smtp-pass', 'storage-conn', 'sendgrid-key', 'redis-pass'], ri(3, 5)):
        out.append(f'{n.ljust(27)}True       {iso()[:-1]}+00:00')
    out.append(prompt() + f'az keyvault show -n {kv} --query id -o tsv')
    out.append(f'/subscriptions/{uuid4()}/resourceGroups/rg-{pname()}/providers/Microsoft.KeyVault/vaults/{kv}')
    return '\n'.join(out)


def n_wrangler_ids():
    name = f'{pname()}-worker'
    v = ri(0, 1)
    if v == 0:
        return '\n'.join([prompt() + 'npx wrangler deploy', '', f' \u26c5\ufe0f wrangler 3.{ri(60, 99)}.{ri(0, 9)}', '-' * 20, '',
                          f'Total Upload: {ri(20, 900)}.{ri(10, 99)} KiB / gzip: {ri(5, 200)}.{ri(10, 99)} KiB', f'Worker Startup Time: {ri(2, 40)} ms',
                          'Your worker has access to the following bindings:', '- KV Namespaces:', f'  - CACHE: {hx(32)}',
                          '- D1 Databases:', f'  - DB: {pname()}-db ({uuid4()})', '- Vars:', f'  - ENVIRONMENT: "{ch(["production", "staging"])}"',
                          f'Uploaded {name} ({ri(1, 9)}.{ri(10, 99)} sec)', f'Deployed {name} triggers ({ri(0, 2)}.{ri(10, 99)} sec)',
                          f'  https://{name}.{org()}.workers.dev', f'Current Version ID: {uuid4()}'])
    return '\n'.join([prompt() + 'cat wrangler.toml', f'name = "{name}"', 'main = "src/index.ts"',
                      f'compatibility_date = "{rtime().strftime("%Y-%m-%d")}"', f'account_id = "{hx(32)}"', '',
                      '[[kv_namespaces]]', 'binding = "SESSIONS"', f'id = "{hx(32)}"', f'preview_id = "{hx(32)}"', '',
                      '[[r2_buckets]]', 'binding = "ASSETS"', f'bucket_name = "{pname()}-assets"', '',
                      '[[d1_databases]]', 'binding = "DB"', f'database_name = "{pname()}"', f'database_id = "{uuid4()}"', '',
                      '# secrets are set with `wrangler secret put STRIPE_KEY`', prompt() + 'npx wrangler secret list',
                      '[', '  {', '    "name": "STRIPE_KEY",', '    "type": "secret_text"', '  }', ']'])


def n_vercel_netlify_deploy():
    p = pname()
    o = org()
    v = ri(0, 2)
    if v == 0:
        return '\n'.join([prompt() + 'vercel --prod', f'Vercel CLI {ri(33, 39)}.{ri(0, 9)}.{ri(0, 9)}',
                          f'\U0001f50d  Inspect: https://vercel.com/{o}/{p}/{rs(28, B62)} [{ri(1, 4)}s]',
                          f'\u2705  Production: https://{p}-{rs(9, LOWDIG)}-{o}.vercel.app [{ri(20, 90)}s]',
                          f'\U0001f4dd  Deployed to production. Run `vercel --prod` to overwrite later (https://vercel.link/2F).'])
    if v == 1:
        out = [prompt() + 'vercel env ls', f'Vercel CLI {ri(33, 39)}.{ri(0, 9)}.{ri(0, 9)}', f'> Environment Variables found for {o}/{p} [{ri(100, 900)}ms]', '',
               ' name                       value               environments                        created']
        for n in sample(['DATABASE_URL', 'STRIPE_SECRET_KEY', 'NEXTAUTH_SECRET', 'RESEND_API_KEY', 'KV_REST_API_TOKEN', 'SENTRY_AUTH_TOKEN'], ri(3, 5)):
            out.append(f' {n.ljust(27)}Encrypted           {ch(["Production, Preview, Development", "Production", "Preview, Development"]).ljust(36)}{ri(1, 90)}d ago')
        return '\n'.join(out)
    did = hx(24)
    site = f'{ch(ADJ)}-{ch(NOUN)}-{hx(6)}'
    return '\n'.join([prompt() + 'netlify deploy --prod', f'Deploy path:        /home/{person()}/src/{p}/dist', 'Deploying to main site URL...',
                      '\u2714 Finished hashing', f'\u2714 CDN requesting {ri(1, 30)} files', '\u2714 Finished uploading blobs to deploy store',
                      '\u2714 Deploy is live!', '', f'Build logs:         https://app.netlify.com/sites/{site}/deploys/{did}',
                      f'Unique deploy URL:  https://{did}--{site}.netlify.app', f'Website URL:        https://{site}.netlify.app'])


def n_paas_status():
    v = ri(0, 2)
    if v == 0:
        app = heroku_name()
        rel = ri(40, 400)
        return '\n'.join([prompt() + f'heroku apps:info -a {app}', f'=== {app}', 'Addons:         heroku-postgresql:essential-0',
                          '                heroku-redis:mini', 'Auto Cert Mgmt: true', f'Dynos:          web: {ri(1, 4)}, worker: {ri(0, 2)}',
                          f'Git URL:        https://git.heroku.com/{app}.git', f'Owner:          {email()}', 'Region:         us',
                          f'Repo Size:      {ri(1, 900)} KB', 'Slug Size:      ' + str(ri(20, 400)) + ' MB', 'Stack:          heroku-24',
                          f'Web URL:        https://{app}-{hx(12)}.herokuapp.com/', prompt() + f'heroku releases -a {app} -n 3',
                          f'=== {app} Releases - Current: v{rel}',
                          f'v{rel}  Deploy {hx(8)}  {email()}  {rtime().strftime("%Y/%m/%d %H:%M:%S")} +0000'])
    if v == 1:
        app = f'{pname()}-{ch(["prod", "staging"])}'
        out = [prompt() + f'fly secrets list -a {app}', 'NAME                 \tDIGEST          \tCREATED AT']
        for n in sample(['DATABASE_URL', 'SECRET_KEY_BASE', 'STRIPE_API_KEY', 'REDIS_URL', 'SENTRY_DSN', 'OPENAI_API_KEY'], ri(3, 5)):
            out.append(f'{n.ljust(21)}\t{hx(16)}\t{ri(1, 30)}d{ri(1, 23)}h ago')
        out += [prompt() + f'fly machines list -a {app} -q']
        for _ in range(ri(2, 3)):
            out.append(hx(14))
        return '\n'.join(out)
    out = [prompt() + 'render services list -o text', 'ID                        NAME              TYPE          STATUS']
    for _ in range(ri(2, 4)):
        out.append(f'srv-{rs(20, LOWDIG)}  {pname().ljust(16)}  {ch(["web_service", "worker", "cron_job"]).ljust(12)}  {ch(["deployed", "suspended"])}')
    out.append(f'dpg-{rs(20, LOWDIG)}-a  {pname()}-db        postgres      available')
    return '\n'.join(out)


def n_terraform_plan():
    r = pname().replace('-', '_')
    return '\n'.join(['Terraform used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:',
                      '  + create', '  ~ update in-place', '', 'Terraform will perform the following actions:', '',
                      f'  # aws_db_instance.{r} will be updated in-place', f'  ~ resource "aws_db_instance" "{r}" {{',
                      f'        id                                    = "db-{rs(26, UPP + DIG)}"', f'        identifier                            = "{r}-prod"',
                      '      ~ password                              = (sensitive value)', '        # (47 unchanged attributes hidden)', '    }', '',
                      f'  # random_password.{r} will be created', f'  + resource "random_password" "{r}" {{', '      + bcrypt_hash = (sensitive value)',
                      '      + id          = (known after apply)', f'      + length      = {ch([24, 32, 40])}', '      + lower       = true',
                      '      + result      = (sensitive value)', '      + special     = true', '    }', '',
                      'Plan: 1 to add, 1 to change, 0 to destroy.', '', 'Changes to Outputs:', '  ~ db_password = (sensitive value)',
                      f'  + db_arn      = "arn:aws:rds:{region()}:{acct()}:db:{r}-prod"'])


def n_terraform_state_ids():
    v = ri(0, 1)
    if v == 0:
        out = [prompt() + 'cat .terraform.lock.hcl', '# This file is maintained automatically by "terraform init".', '# Manual edits may be lost in future updates.', '']
        for prov in sample(['hashicorp/aws', 'hashicorp/random', 'cloudflare/cloudflare', 'hashicorp/google', 'integrations/github'], 2):
            out += [f'provider "registry.terraform.io/{prov}" {{', f'  version     = "{semver()}"', f'  constraints = "~> {ri(1, 5)}.0"', '  hashes = [',
                    f'    "h1:{b64(32)}",']
            for _ in range(ri(2, 4)):
                out.append(f'    "zh:{sha256()}",')
            out += ['  ]', '}', '']
        return '\n'.join(out[:30])
    a = acct()
    r = region()
    return '\n'.join([prompt() + 'terraform state show aws_instance.bastion', '# aws_instance.bastion:', 'resource "aws_instance" "bastion" {',
                      f'    ami                                  = "ami-0{hx(16)}"', f'    arn                                  = "arn:aws:ec2:{r}:{a}:instance/i-0{hx(16)}"',
                      f'    availability_zone                    = "{r}{ch("abc")}"', f'    id                                   = "i-0{hx(16)}"',
                      '    instance_type                        = "t3.micro"', f'    key_name                             = "{person()}-ed25519"',
                      f'    primary_network_interface_id         = "eni-0{hx(16)}"', f'    private_ip                           = "{ip_priv()}"',
                      f'    public_ip                            = "{ip_pub()}"', f'    subnet_id                            = "subnet-0{hx(16)}"',
                      '    tags                                 = {', '        "Name" = "bastion"', '    }',
                      f'    vpc_security_group_ids               = [', f'        "sg-0{hx(16)}",', '    ]', '}'])


def n_pulumi_encrypted():
    st = pname()
    v = ri(0, 1)
    if v == 0:
        out = [prompt() + f'cat Pulumi.{ch(["prod", "dev", "staging"])}.yaml', f'encryptionsalt: v1:{b64(8)}:v1:{b64(12)}:{b64(16)}', 'config:',
               f'  aws:region: {region()}', f'  {st}:replicas: "{ri(1, 6)}"']
        for k in sample(['dbPassword', 'stripeKey', 'jwtSecret', 'sendgridKey', 'adminToken'], ri(2, 3)):
            out += [f'  {st}:{k}:', f'    secure: v1:{b64(12)}:{b64(ri(24, 72))}']
        return '\n'.join(out)
    return '\n'.join([prompt() + 'pulumi config', 'KEY                 VALUE', f'aws:region          {region()}',
                      f'{st}:dbPassword      [secret]', f'{st}:replicas        {ri(1, 6)}', f'{st}:stripeKey       [secret]', '',
                      prompt() + 'pulumi stack output', f'Current stack outputs ({ri(2, 4)}):', '    OUTPUT          VALUE',
                      f'    bucketName      {st}-assets-{hx(7)}', '    dbConnection    [secret]', f'    url             https://{st}.{domain()}'])


def n_ansible_vault():
    v = ri(0, 1)
    if v == 0:
        return prompt() + f'cat group_vars/{ch(["prod", "all"])}/vault.yml\n' + '\n'.join(vault_blob())
    blob = vault_blob()
    out = [prompt() + f'cat group_vars/{ch(["prod", "all"])}/main.yml', '---', f'app_user: {ch(["deploy", "app"])}',
           f'db_host: {pname()}-db.internal', 'db_password: !vault |'] + ['  ' + l for l in blob[:8]]
    out += [f'smtp_host: smtp.{domain()}', '', prompt() + 'ansible-playbook site.yml --ask-vault-pass --tags config', 'Vault password: ', '',
            'TASK [app : write env file] ' + '*' * 40,
            f'ok: [{pname()}-01] => {{"censored": "the output has been hidden due to the fact that \'no_log: true\' was specified for this result", "changed": false}}']
    return '\n'.join(out)


def n_sops_encrypted():
    a = acct()
    out = [prompt() + f'cat secrets/{ch(["prod", "staging"])}.enc.yaml']
    for k in sample(['db_password', 'stripe_key', 'jwt_secret', 'smtp_password', 'api_token', 'redis_url'], ri(2, 4)):
        out.append(f'{k}: {sops_enc()}')
    out.append('sops:')
    if coin():
        out += ['    kms:', f'        - arn: arn:aws:kms:{region()}:{a}:key/{uuid4()}', f'          created_at: "{iso()}"',
                f'          enc: {kms_blob()}', '          aws_profile: ""']
    else:
        out += ['    age:', f'        - recipient: age1{rs(58, BECH)}', '          enc: |'] + ['            ' + l for l in age_armor().split('\n')]
    out += [f'    lastmodified: "{iso()}"', f'    mac: ENC[AES256_GCM,data:{b64(64)},iv:{b64(32)},tag:{b64(16)},type:str]',
            '    unencrypted_suffix: _unencrypted', f'    version: 3.{ri(7, 9)}.{ri(0, 3)}']
    return '\n'.join(out)


def n_k8s_secret_refs():
    v = ri(0, 2)
    ns = ch(['prod', 'default', 'payments'])
    if v == 0:
        out = ['apiVersion: bitnami.com/v1alpha1', 'kind: SealedSecret', 'metadata:', f'  name: {pname()}-secrets', f'  namespace: {ns}', 'spec:',
               '  encryptedData:']
        for k in sample(['DATABASE_URL', 'STRIPE_SECRET_KEY', 'JWT_SECRET', 'REDIS_PASSWORD'], ri(2, 3)):
            out.append(f'    {k}: {sealed_blob()}')
        out += ['  template:', '    metadata:', f'      name: {pname()}-secrets', f'      namespace: {ns}', '    type: Opaque']
        return '\n'.join(out)
    if v == 1:
        return '\n'.join(['apiVersion: external-secrets.io/v1beta1', 'kind: ExternalSecret', 'metadata:', f'  name: {pname()}-env', f'  namespace: {ns}',
                          'spec:', '  refreshInterval: 1h', '  secretStoreRef:', '    name: aws-secrets-manager', '    kind: ClusterSecretStore',
                          '  target:', f'    name: {pname()}-env', '  data:', '    - secretKey: DATABASE_PASSWORD', '      remoteRef:',
                          f'        key: {ns}/{pname()}/db', '        property: password', '    - secretKey: STRIPE_SECRET_KEY', '      remoteRef:',
                          f'        key: {ns}/{pname()}/stripe', '        property: secret_key'])
    return '\n'.join(['      containers:', f'        - name: {pname()}', f'          image: ghcr.io/{org()}/{pname()}@sha256:{sha256()}', '          env:',
                      '            - name: DATABASE_PASSWORD', '              valueFrom:', '                secretKeyRef:', f'                  name: {pname()}-db',
                      '                  key: password', '            - name: API_TOKEN', '              valueFrom:', '                secretKeyRef:',
                      '                  name: api-keys', '                  key: token', '          envFrom:', '            - configMapRef:',
                      f'                name: {pname()}-config'])


def n_kubectl_get_describe():
    v = ri(0, 2)
    ns = ch(['prod', 'default', 'staging'])
    if v == 0:
        out = [prompt() + f'kubectl get pods -n {ns} -o wide', 'NAME                                READY   STATUS    RESTARTS   AGE    IP            NODE']
        node = f'ip-10-0-{ri(0, 255)}-{ri(1, 254)}.{region()}.compute.internal'
        for _ in range(ri(3, 7)):
            out.append(f'{(pname() + "-" + pod_suffix()).ljust(36)}1/1     Running   {ri(0, 3)}          {ri(1, 30)}d    {ip_priv().ljust(15)} {node}')
        return '\n'.join(out)
    if v == 1:
        name = ch(['app-secrets', f'{pname()}-env', 'db-credentials'])
        out = [prompt() + f'kubectl describe secret {name} -n {ns}', f'Name:         {name}', f'Namespace:    {ns}', 'Labels:       <none>',
               'Annotations:  <none>', '', 'Type:  Opaque', '', 'Data', '====']
        for k in sample(['DATABASE_PASSWORD', 'STRIPE_SECRET_KEY', 'JWT_SECRET', 'REDIS_URL', 'SMTP_PASSWORD', 'tls.key'], ri(2, 4)):
            out.append(f'{k}:  {ri(12, 1700)} bytes')
        return '\n'.join(out)
    p = f'{pname()}-{pod_suffix()}'
    return '\n'.join([prompt() + f'kubectl describe pod {p} -n {ns} | sed -n 1,22p', f'Name:             {p}', f'Namespace:        {ns}',
                      'Priority:         0', 'Service Account:  default', f'Node:             ip-{ip_priv().replace(".", "-")}.{region()}.compute.internal/{ip_priv()}',
                      f'Start Time:       {rtime().strftime("%a, %d %b %Y %H:%M:%S +0000")}', f'Labels:           app={pname()}',
                      f'                  pod-template-hash={pod_suffix().split("-")[0]}', 'Status:           Running', f'IP:               {ip_priv()}',
                      'Containers:', f'  {pname()}:', f'    Container ID:   containerd://{sha256()}',
                      f'    Image:          {acct()}.dkr.ecr.{region()}.amazonaws.com/{pname()}:{hx(7)}',
                      f'    Image ID:       {acct()}.dkr.ecr.{region()}.amazonaws.com/{pname()}@sha256:{sha256()}', '    Port:           8080/TCP',
                      '    State:          Running', f'      Started:      {rtime().strftime("%a, %d %b %Y %H:%M:%S +0000")}'])


def n_helm_argocd_status():
    v = ri(0, 2)
    if v == 0:
        out = [prompt() + 'helm list -A', 'NAME            NAMESPACE       REVISION        UPDATED                                 STATUS          CHART                   APP VERSION']
        for _ in range(ri(3, 6)):
            c = ch(['ingress-nginx', 'cert-manager', 'grafana', 'redis', 'postgresql', pname()])
            out.append(f'{c.ljust(16)}{ch(["kube-system", "monitoring", "data", "prod"]).ljust(16)}{str(ri(1, 40)).ljust(16)}{rtime().strftime("%Y-%m-%d %H:%M:%S")}.{ri(100000000, 999999999)} +0000 UTC\tdeployed        {c}-{semver()}\t{semver()}')
        return '\n'.join(out)
    if v == 1:
        c, ver, o = pname(), semver(), org()
        return '\n'.join([prompt() + f'helm push {c}-{ver}.tgz oci://ghcr.io/{o}/charts', f'Pushed: ghcr.io/{o}/charts/{c}:{ver}',
                          f'Digest: sha256:{sha256()}'])
    a = pname()
    s = hx(7)
    return '\n'.join([prompt() + f'argocd app get {a}', f'Name:               argocd/{a}', 'Project:            default',
                      'Server:             https://kubernetes.default.svc', f'Namespace:          {ch(["prod", "default"])}',
                      f'URL:                https://argocd.{domain()}/applications/{a}', 'Source:',
                      f'- Repo:             https://github.com/{org()}/deploy.git', '  Target:           HEAD', f'  Path:             apps/{a}',
                      'SyncWindow:         Sync Allowed', 'Sync Policy:        Automated (Prune)', f'Sync Status:        Synced to HEAD ({s})',
                      'Health Status:      Healthy', '', 'GROUP  KIND        NAMESPACE  NAME   STATUS  HEALTH   HOOK  MESSAGE',
                      f'       Service     prod       {a}    Synced  Healthy        service/{a} unchanged',
                      f'apps   Deployment  prod       {a}    Synced  Healthy        deployment.apps/{a} configured'])


def n_vault_metadata():
    v = ri(0, 2)
    if v == 0:
        path = f'secret/{ch(["prod", "staging"])}/{pname()}'
        return '\n'.join([prompt() + f'vault kv metadata get {path}', '======== Metadata Path ========', path.replace('secret/', 'secret/metadata/', 1), '',
                          '========== Metadata ==========', 'Key                     Value', '---                     -----', 'cas_required            false',
                          f'created_time            {iso(frac=6)}', f'current_version         {ri(2, 9)}', f'custom_metadata         map[owner:{ch(["platform", "payments", "sre"])}]',
                          'delete_version_after    0s', 'max_versions            0', 'oldest_version          0', f'updated_time            {iso(frac=6)}', '',
                          '====== Version 1 ======', 'Key              Value', '---              -----', f'created_time     {iso(frac=6)}',
                          'deletion_time    n/a', 'destroyed        false'])
    if v == 1:
        return '\n'.join([prompt() + 'vault status', 'Key                     Value', '---                     -----', 'Seal Type               awskms',
                          'Recovery Seal Type      shamir', 'Initialized             true', 'Sealed                  false', 'Total Recovery Shares   5',
                          'Threshold               3', f'Version                 1.{ri(14, 18)}.{ri(0, 5)}', f'Build Date              {iso()}', 'Storage Type            raft',
                          f'Cluster Name            vault-cluster-{hx(8)}', f'Cluster ID              {uuid4()}', 'HA Enabled              true',
                          'HA Cluster              https://vault-0.vault-internal:8201', 'HA Mode                 active',
                          f'Active Since            {iso(frac=9)}', f'Raft Committed Index    {ri(10000, 9999999)}', f'Raft Applied Index      {ri(10000, 9999999)}'])
    return '\n'.join([prompt() + 'cat agent-config/templates/env.ctmpl', '{{ with secret "secret/data/prod/' + pname() + '/db" }}',
                      'DB_USER={{ .Data.data.username }}', 'DB_PASSWORD={{ .Data.data.password }}', '{{ end }}',
                      '{{ with secret "database/creds/readonly" }}', 'RO_USER={{ .Data.username }}', 'RO_PASSWORD={{ .Data.password }}', '{{ end }}'])


def n_secret_manager_refs():
    v = ri(0, 3)
    if v == 0:
        vault_n = ch(['Infra', 'Engineering', 'Prod'])
        out = [prompt() + 'cat .env.tpl']
        for k in sample(['DATABASE_PASSWORD', 'STRIPE_SECRET_KEY', 'OPENAI_API_KEY', 'GITHUB_TOKEN', 'SENTRY_AUTH_TOKEN'], ri(3, 5)):
            out.append(f'{k}=op://{vault_n}/{k.lower().replace("_", "-")}/credential')
        out += [prompt() + 'op run --env-file=.env.tpl -- printenv DATABASE_PASSWORD', '<concealed by 1Password>']
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([prompt() + 'bw status | jq .', '{', f'  "serverUrl": "https://vault.{domain()}",', f'  "lastSync": "{iso(frac=3)}",',
                          f'  "userEmail": "{email()}",', f'  "userId": "{uuid4()}",', '  "status": "locked"', '}'])
    if v == 2:
        out = [prompt() + 'doppler secrets --only-names', '\u250c' + '\u2500' * 30 + '\u2510', '\u2502 NAME                         \u2502',
               '\u251c' + '\u2500' * 30 + '\u2524']
        for k in sorted(sample(['DATABASE_URL', 'DOPPLER_CONFIG', 'DOPPLER_ENVIRONMENT', 'DOPPLER_PROJECT', 'STRIPE_KEY', 'JWT_SECRET', 'REDIS_URL'], 5)):
            out.append(f'\u2502 {k.ljust(28)} \u2502')
        out.append('\u2514' + '\u2500' * 30 + '\u2518')
        return '\n'.join(out)
    return '\n'.join([prompt() + 'cat .infisical.json', '{', f'    "workspaceId": "{uuid4()}",', '    "defaultEnvironment": "dev",',
                      '    "gitBranchToEnvironmentMapping": null', '}', prompt() + 'cat docker-compose.override.yml', 'services:', '  api:',
                      '    command: infisical run --env=dev -- npm run dev', '    environment:', '      INFISICAL_TOKEN: ${INFISICAL_TOKEN}'])


def n_docker_images():
    v = ri(0, 2)
    if v == 0:
        out = [prompt() + 'docker images --digests', 'REPOSITORY                         TAG         DIGEST                                                                    IMAGE ID       CREATED        SIZE']
        for _ in range(ri(3, 6)):
            repo, tag = ch([('node', ch(['20-alpine', '22-bookworm', 'lts'])), ('postgres', ch(['16', '15-alpine'])), ('redis', ch(['7', '7-alpine'])),
                            ('python', ch(['3.12-slim', '3.11'])), (f'ghcr.io/{org()}/{pname()}', ch(['latest', semver(), hx(7)])), ('nginx', ch(['1.27', 'stable-alpine']))])
            out.append(f'{repo.ljust(35)}{tag.ljust(12)}sha256:{sha256()}   {hx(12)}   {ri(1, 9)} days ago   {ri(40, 900)}MB')
        return '\n'.join(out)
    if v == 1:
        img = ch(['node:20-alpine', 'python:3.12-slim', 'postgres:16', 'redis:7'])
        out = [prompt() + f'docker pull {img}', f'{img.split(":")[1]}: Pulling from library/{img.split(":")[0]}']
        for _ in range(ri(3, 6)):
            out.append(f'{hx(12)}: Pull complete')
        out += [f'Digest: sha256:{sha256()}', f'Status: Downloaded newer image for {img}', f'docker.io/library/{img}']
        return '\n'.join(out)
    out = [prompt() + f'docker buildx build --push -t ghcr.io/{org()}/{pname()}:{hx(7)} .', '[+] Building 41.2s (14/14) FINISHED']
    for i in range(ri(3, 5)):
        out.append(f' => CACHED [{i + 1}/{ri(6, 9)}] {ch(["COPY package*.json ./", "RUN npm ci", "WORKDIR /app", "COPY . .", "RUN npm run build"])}  0.0s')
    out += [' => exporting to image', f' => => exporting layers', f' => => exporting manifest sha256:{sha256()}',
            f' => => exporting config sha256:{sha256()}', f' => => exporting attestation manifest sha256:{sha256()}',
            f' => => pushing layers', f' => => pushing manifest for ghcr.io/{org()}/{pname()}:{hx(7)}@sha256:{sha256()}']
    return '\n'.join(out)


def n_docker_inspect():
    v = ri(0, 1)
    if v == 0:
        out = [prompt() + 'docker ps', 'CONTAINER ID   IMAGE                  COMMAND                  CREATED        STATUS        PORTS                    NAMES']
        for _ in range(ri(2, 5)):
            img, port, cmd = ch([('postgres:16', 5432, 'docker-entrypoint.s…'), ('redis:7-alpine', 6379, 'docker-entrypoint.s…'),
                                 ('nginx:1.27', 80, '/docker-entrypoint.…'), (pname() + ':dev', ch([3000, 8080, 8000]), 'node server.js')])
            hp = ch([port, port + 1, ri(3000, 9000)])
            out.append(f'{hx(12)}   {img.ljust(21)}  "{cmd}"   {ri(2, 50)} hours ago   Up {ri(1, 50)} hours   0.0.0.0:{hp}->{port}/tcp   {docker_name()}')
        return '\n'.join(out)
    cid = sha256()
    return '\n'.join([prompt() + f'docker inspect {cid[:12]} | head -28', '[', '    {', f'        "Id": "{cid}",', f'        "Created": "{iso(frac=9)}",',
                      '        "Path": "docker-entrypoint.sh",', '        "Args": [', '            "node",', '            "server.js"', '        ],',
                      f'        "Image": "sha256:{sha256()}",', f'        "ResolvConfPath": "/var/lib/docker/containers/{cid}/resolv.conf",',
                      f'        "HostnamePath": "/var/lib/docker/containers/{cid}/hostname",', f'        "Name": "/{docker_name()}",',
                      '        "Config": {', f'            "Hostname": "{cid[:12]}",', '            "Env": [',
                      '                "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",', f'                "NODE_VERSION=20.{ri(10, 18)}.{ri(0, 1)}",',
                      f'                "YARN_VERSION=1.22.{ri(19, 22)}"', '            ],', '            "Labels": {',
                      f'                "org.opencontainers.image.revision": "{sha1()}",', f'                "org.opencontainers.image.source": "https://github.com/{org()}/{pname()}"',
                      '            }', '        }', '    }', ']'])


def n_gh_cli_output():
    v = ri(0, 2)
    r = f'{org()}/{pname()}'
    if v == 0:
        out = [prompt() + f'gh run list -R {r} -L 5', 'STATUS  TITLE                      WORKFLOW  BRANCH  EVENT  ID           ELAPSED  AGE']
        for _ in range(5):
            mark = ch(['\u2713', '\u2713', 'X', '*'])
            out.append(f'{mark}       {ch(["Bump deps", "Fix flaky test", "Add billing page", "Release " + semver()]).ljust(27)}{ch(["CI", "Deploy", "Release"]).ljust(10)}main    push   {ri(10 ** 9, 2 * 10 ** 10)}  {ri(1, 19)}m{ri(0, 59)}s   about {ri(1, 23)} hours ago')
        return '\n'.join(out)
    if v == 1:
        u = person() + str(ri(1, 99))
        return '\n'.join([prompt() + 'gh api user', '{', f'  "login": "{u}",', f'  "id": {ri(10 ** 5, 2 * 10 ** 8)},',
                          f'  "node_id": "{ch(["MDQ6VXNlcj" + b64s(str(ri(10 ** 6, 10 ** 8)))[:6], "U_kgDO" + rs(8, B64U)])}",',
                          f'  "avatar_url": "https://avatars.githubusercontent.com/u/{ri(10 ** 5, 10 ** 8)}?v=4",', '  "gravatar_id": "",',
                          f'  "url": "https://api.github.com/users/{u}",', '  "type": "User",', '  "site_admin": false,',
                          f'  "name": "{fullname()}",', f'  "created_at": "{iso()}"', '}'])
    out = [prompt() + f'gh secret list -R {r}', 'NAME                    UPDATED']
    for k in sample(['AWS_ROLE_ARN', 'NPM_TOKEN', 'DOCKERHUB_TOKEN', 'SLACK_WEBHOOK_URL', 'SENTRY_AUTH_TOKEN', 'CODECOV_TOKEN'], ri(3, 5)):
        out.append(f'{k.ljust(24)}about {ri(1, 11)} months ago')
    out += [prompt() + f'gh pr view {ri(100, 3000)} -R {r} --json headRefOid,mergeCommit', '{', f'  "headRefOid": "{sha1()}",',
            f'  "mergeCommit": {{', f'    "oid": "{sha1()}"', '  }', '}']
    return '\n'.join(out)


def n_gitlab_ci_masked():
    return '\n'.join([f'Running with gitlab-runner 17.{ri(0, 5)}.{ri(0, 2)} ({hx(8)})',
                      f'  on {ch(["green-3.saas-linux-small-amd64.runners-manager.gitlab.com/default", "k8s-runner-2"])} {rs(8, B64U)}, system ID: s_{hx(12)}',
                      'Preparing the "docker+machine" executor', f'Using Docker executor with image registry.gitlab.com/{org()}/ci-images/node:20 ...',
                      f'Using docker image sha256:{sha256()} for registry.gitlab.com/{org()}/ci-images/node:20 with digest registry.gitlab.com/{org()}/ci-images/node@sha256:{sha256()} ...',
                      'Getting source from Git repository', f'Fetching changes with git depth set to 20...',
                      f'Initialized empty Git repository in /builds/{org()}/{pname()}/.git/', f'Checking out {hx(8)} as detached HEAD (ref is main)...',
                      'Executing "step_script" stage of the job script', '$ echo "Deploying $CI_COMMIT_SHORT_SHA to $CI_ENVIRONMENT_NAME"',
                      f'Deploying {hx(8)} to production', '$ echo "token: $DEPLOY_TOKEN"', 'token: [MASKED]',
                      f'$ curl --fail -H "PRIVATE-TOKEN: $DEPLOY_TOKEN" "$CI_API_V4_URL/projects/{ri(1000, 60000000)}/deployments"',
                      f'{{"id":{ri(10 ** 6, 10 ** 9)},"iid":{ri(1, 900)},"ref":"main","sha":"{sha1()}","status":"success"}}',
                      'Cleaning up project directory and file based variables', 'Job succeeded'])


def n_github_actions_masked():
    lines = ['Current runner version: \'2.3' + str(ri(10, 20)) + '.0\'', 'Operating System', '  Ubuntu', '  24.04.1', '  LTS',
             f'GITHUB_TOKEN Permissions', '  Contents: read', '  Metadata: read', '  Packages: write',
             f"Secret source: Actions", 'Prepare workflow directory', 'Prepare all required actions', 'Getting action download info',
             f"Download action repository 'actions/checkout@v4' (SHA:{sha1()})", f"Download action repository 'actions/setup-node@v4' (SHA:{sha1()})",
             f"Download action repository 'docker/login-action@v3' (SHA:{sha1()})", f'Complete job name: build ({ch(["18", "20", "22"])})',
             '##[group]Run docker/login-action@v3', 'with:', '  registry: ghcr.io', f'  username: {person()}', '  password: ***', '  logout: true', '##[endgroup]',
             f'Cache restored from key: node-cache-Linux-x64-npm-{sha256()}', 'Login Succeeded!',
             f'Artifact build-output successfully finalized. Artifact ID {ri(10 ** 9, 3 * 10 ** 9)}', f'Artifact digest is sha256:{sha256()}']
    return '\n'.join(gha_lines(lines))


def n_circleci_jenkins():
    v = ri(0, 1)
    if v == 0:
        return '\n'.join([f'Started by GitHub push by {person()}', 'Obtained Jenkinsfile from git https://github.com/' + f'{org()}/{pname()}.git',
                          '[Pipeline] Start of Pipeline', '[Pipeline] node', f'Running on agent-{ri(1, 9)} in /var/lib/jenkins/workspace/{pname()}_main',
                          '[Pipeline] {', '[Pipeline] stage', '[Pipeline] { (Declarative: Checkout SCM)', '[Pipeline] checkout',
                          'Selected Git installation does not exist. Using Default', f'Checking out Revision {sha1()} (refs/remotes/origin/main)',
                          f'Commit message: "{ch(["Merge pull request #" + str(ri(10, 999)), "Fix null check in billing", "Bump version"])}"',
                          '[Pipeline] withCredentials', 'Masking supported pattern matches of $NEXUS_PASS', '[Pipeline] {', '[Pipeline] sh',
                          f'+ curl -fsS -u deploy:**** --upload-file target/app.jar https://nexus.{domain()}/repository/releases/', '[Pipeline] }',
                          '[Pipeline] // withCredentials', 'Finished: SUCCESS'])
    return '\n'.join(['#!/bin/sh -eo pipefail', '# No configuration was found in your project. Please refer to https://circleci.com/docs/ to get started.', '',
                      'Checking out code', f'Using SSH Config Dir \'/home/circleci/.ssh\'', f'git version 2.{ri(39, 46)}.{ri(0, 3)}',
                      f'Cloning git repository - git@github.com:{org()}/{pname()}.git', 'Checking out branch',
                      f'HEAD is now at {hx(7)} {ch(["Add feature flag", "Refactor worker", "Update lockfile"])}', '',
                      'Restoring cache', f'Found a cache from build {ri(1000, 90000)} at v1-deps-{b64u(32)}',
                      f'Size: {ri(10, 900)} MiB', 'Cache has been restored', '', f'Workflow ID: {uuid4()}', f'Job ID: {uuid4()}'])


def n_package_lock():
    v = ri(0, 1)
    if v == 0:
        out = [prompt() + 'sed -n 1,24p package-lock.json', '{', f'  "name": "{pname()}",', f'  "version": "{semver()}",', '  "lockfileVersion": 3,',
               '  "requires": true,', '  "packages": {']
        for p in sample(['lodash', 'react', 'zod', 'axios', 'debug', 'ms', 'semver', 'chalk', 'commander'], 3):
            ver = semver()
            out += [f'    "node_modules/{p}": {{', f'      "version": "{ver}",', f'      "resolved": "https://registry.npmjs.org/{p}/-/{p}-{ver}.tgz",',
                    f'      "integrity": "{sri("sha512")}",', '      "license": "MIT"', '    },']
        return '\n'.join(out)
    n = f'@{org()}/{ch(["utils", "ui", "sdk", "config"])}'
    ver = semver()
    return '\n'.join([prompt() + 'npm publish --dry-run', f'npm notice', f'npm notice \U0001f4e6  {n}@{ver}', 'npm notice Tarball Contents',
                      f'npm notice {ri(1, 2)}.{ri(0, 9)}kB LICENSE', f'npm notice {ri(1, 9)}.{ri(0, 9)}kB README.md',
                      f'npm notice {ri(10, 90)}.{ri(0, 9)}kB dist/index.js', f'npm notice {ri(1, 3)}.{ri(0, 9)}kB package.json', 'npm notice Tarball Details',
                      f'npm notice name: {n}', f'npm notice version: {ver}', f'npm notice filename: {n[1:].replace("/", "-")}-{ver}.tgz',
                      f'npm notice package size: {ri(5, 60)}.{ri(0, 9)} kB', f'npm notice unpacked size: {ri(20, 200)}.{ri(0, 9)} kB',
                      f'npm notice shasum: {sha1()}', f'npm notice integrity: sha512-{b64(64)[:14]}[...]{b64(64)[-14:]}', 'npm notice total files: 4'])


def n_yarn_pnpm_lock():
    v = ri(0, 2)
    pk = sample(['lodash', 'react-dom', 'typescript', 'esbuild', 'picocolors', 'nanoid', 'tslib', 'postcss'], 3)
    out = []
    if v == 0:
        out.append(prompt() + 'head -20 yarn.lock')
        out += ['# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.', '# yarn lockfile v1', '']
        for p in pk:
            ver = semver()
            out += [f'{p}@^{ver}:', f'  version "{ver}"', f'  resolved "https://registry.yarnpkg.com/{p}/-/{p}-{ver}.tgz#{sha1()}"', f'  integrity {sri("sha512")}', '']
    elif v == 1:
        out.append(prompt() + 'grep -A6 -m3 "@npm:" yarn.lock')
        for p in pk:
            ver = semver()
            out += [f'"{p}@npm:^{ver}":', f'  version: {ver}', f'  resolution: "{p}@npm:{ver}"', f'  checksum: 10c0/{hx(128)}', '  languageName: node', '  linkType: hard', '--']
    else:
        out += [prompt() + 'sed -n 1,20p pnpm-lock.yaml', "lockfileVersion: '9.0'", '', 'settings:', '  autoInstallPeers: true', '', 'packages:', '']
        for p in pk:
            out += [f'  {p}@{semver()}:', f'    resolution: {{integrity: {sri("sha512")}}}', f"    engines: {{node: '>={ri(12, 20)}'}}", '']
    return '\n'.join(out)


def n_python_lock_hashes():
    v = ri(0, 2)
    pk = sample(['requests', 'urllib3', 'certifi', 'idna', 'charset-normalizer', 'pydantic', 'fastapi', 'numpy'], 3)
    if v == 0:
        out = [prompt() + 'head -14 requirements.txt', '#', '# This file is autogenerated by pip-compile with Python 3.12', '#']
        for p in pk:
            out += [f'{p}=={semver()} \\', f'    --hash=sha256:{sha256()} \\', f'    --hash=sha256:{sha256()}']
        return '\n'.join(out)
    if v == 1:
        out = [prompt() + 'sed -n 1,22p poetry.lock', '# This file is automatically @generated by Poetry 1.8.3 and should not be changed by hand.', '']
        for p in pk[:2]:
            ver = semver()
            out += ['[[package]]', f'name = "{p}"', f'version = "{ver}"', 'optional = false', 'python-versions = ">=3.8"', 'files = [',
                    f'    {{file = "{p.replace("-", "_")}-{ver}-py3-none-any.whl", hash = "sha256:{sha256()}"}},',
                    f'    {{file = "{p.replace("-", "_")}-{ver}.tar.gz", hash = "sha256:{sha256()}"}},', ']', '']
        return '\n'.join(out)
    p = pk[0]
    ver = semver()
    return '\n'.join([prompt() + f'grep -A8 \'name = "{p}"\' uv.lock', '[[package]]', f'name = "{p}"', f'version = "{ver}"',
                      'source = { registry = "https://pypi.org/simple" }',
                      f'sdist = {{ url = "https://files.pythonhosted.org/packages/{hx(2)}/{hx(2)}/{hx(60)}/{p}-{ver}.tar.gz", hash = "sha256:{sha256()}", size = {ri(10000, 900000)} }}',
                      'wheels = [', f'    {{ url = "https://files.pythonhosted.org/packages/{hx(2)}/{hx(2)}/{hx(60)}/{p}-{ver}-py3-none-any.whl", hash = "sha256:{sha256()}", size = {ri(10000, 900000)} }},',
                      ']'])


def n_cargo_go_sums():
    v = ri(0, 1)
    if v == 0:
        out = [prompt() + 'grep -A4 -m3 "^\\[\\[package\\]\\]" Cargo.lock']
        for p in sample(['serde', 'tokio', 'anyhow', 'regex', 'once_cell', 'libc', 'bytes'], 3):
            out += ['[[package]]', f'name = "{p}"', f'version = "{semver()}"', 'source = "registry+https://github.com/rust-lang/crates.io-index"', f'checksum = "{sha256()}"', '--']
        return '\n'.join(out[:-1])
    out = [prompt() + 'head -10 go.sum']
    for m in sample(['github.com/google/uuid', 'golang.org/x/sys', 'github.com/spf13/cobra', 'go.uber.org/zap', 'github.com/stretchr/testify'], 5):
        ver = f'v{semver()}'
        out += [f'{m} {ver} h1:{b64(32)}', f'{m} {ver}/go.mod h1:{b64(32)}']
    return '\n'.join(out)


def n_gem_composer_lock():
    v = ri(0, 1)
    if v == 0:
        out = [prompt() + 'sed -n "/CHECKSUMS/,/^$/p" Gemfile.lock', 'CHECKSUMS']
        for g in sample(['rack', 'rails', 'nokogiri', 'puma', 'pg', 'json', 'bootsnap', 'zeitwerk'], ri(4, 7)):
            out.append(f'  {g} ({semver()}) sha256={sha256()}')
        return '\n'.join(out)
    p = ch(['monolog/monolog', 'guzzlehttp/guzzle', 'symfony/console', 'laravel/framework'])
    ver = semver()
    return '\n'.join([prompt() + f'jq \'.packages[] | select(.name=="{p}")\' composer.lock | head -20', '{', f'  "name": "{p}",', f'  "version": "{ver}",',
                      '  "source": {', '    "type": "git",', f'    "url": "https://github.com/{p}.git",', f'    "reference": "{sha1()}"', '  },',
                      '  "dist": {', '    "type": "zip",', f'    "url": "https://api.github.com/repos/{p}/zipball/{sha1()}",', f'    "reference": "{sha1()}",',
                      '    "shasum": ""', '  },', f'  "time": "{iso()[:-1]}+00:00"', '}'])


def n_maven_gradle_placeholders():
    v = ri(0, 2)
    if v == 0:
        return '\n'.join([prompt() + 'cat .mvn/settings.xml', '<settings>', '  <servers>', '    <server>', '      <id>github</id>',
                          '      <username>${env.GITHUB_ACTOR}</username>', '      <password>${env.GITHUB_TOKEN}</password>', '    </server>',
                          '    <server>', '      <id>ossrh</id>', '      <username>${env.OSSRH_USERNAME}</username>',
                          '      <password>${env.OSSRH_PASSWORD}</password>', '    </server>', '  </servers>', '</settings>'])
    if v == 1:
        return '\n'.join(['repositories {', '    maven {', f'        url = uri("https://maven.pkg.github.com/{org()}/{pname()}")', '        credentials {',
                          '            username = providers.gradleProperty("gpr.user").orNull ?: System.getenv("GITHUB_ACTOR")',
                          '            password = providers.gradleProperty("gpr.key").orNull ?: System.getenv("GITHUB_TOKEN")', '        }', '    }', '}',
                          'signing {', '    val signingKey: String? by project', '    val signingPassword: String? by project',
                          '    useInMemoryPgpKeys(signingKey, signingPassword)', '}'])
    out = [prompt() + 'sed -n 1,14p gradle/verification-metadata.xml', '<?xml version="1.0" encoding="UTF-8"?>',
           '<verification-metadata xmlns="https://schema.gradle.org/dependency-verification">', '   <configuration>',
           '      <verify-metadata>true</verify-metadata>', '      <verify-signatures>false</verify-signatures>', '   </configuration>', '   <components>']
    g = ch(['com.google.guava', 'org.slf4j', 'com.fasterxml.jackson.core'])
    a = ch(['guava', 'slf4j-api', 'jackson-databind'])
    ver = semver()
    out += [f'      <component group="{g}" name="{a}" version="{ver}">', f'         <artifact name="{a}-{ver}.jar">',
            f'            <sha256 value="{sha256()}" origin="Generated by Gradle"/>', '         </artifact>', '      </component>']
    return '\n'.join(out)


def n_env_placeholders():
    pool = ['DATABASE_URL=postgres://user:password@localhost:5432/app', 'STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx',
            'OPENAI_API_KEY=your-openai-api-key', 'GITHUB_TOKEN=<your-token>', 'JWT_SECRET=changeme', 'AWS_SECRET_ACCESS_KEY=',
            'SENDGRID_API_KEY=SG.XXXXXXXXXXXXXXXXXXXXXX.YYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYY', 'REDIS_PASSWORD=${REDIS_PASSWORD}',
            'SESSION_SECRET=replace-me-with-a-long-random-string', 'ANTHROPIC_API_KEY=sk-ant-...', 'SLACK_WEBHOOK_URL=https://hooks.slack.com/services/XXX/YYY/ZZZ',
            'API_KEY=********', 'NEXTAUTH_SECRET= # generate with `openssl rand -base64 32`', 'DB_PASSWORD={{ db_password }}',
            'HF_TOKEN=hf_...', 'SECRET_KEY=<generate-me>', 'TWILIO_AUTH_TOKEN=your_auth_token', 'MAILGUN_API_KEY=key-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
            'CLOUDFLARE_API_TOKEN=$(op read op://Dev/cloudflare/token)', 'PASSWORD=', 'GH_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
            'NPM_TOKEN=${{ secrets.NPM_TOKEN }}', 'PRIVATE_KEY_PATH=./keys/dev.pem', 'AUTH0_CLIENT_SECRET=REPLACE_ME',
            'ENCRYPTION_KEY=0000000000000000000000000000000000000000000000000000000000000000', 'DD_API_KEY=<DATADOG_API_KEY>']
    out = [prompt() + ch(['cat .env.example', 'cat .env.sample', 'cat .env.template', 'cat example.env']),
           ch(['# Copy this file to .env and fill in real values', '# Required environment variables', '# --- do not put real secrets here ---'])]
    lines = sample(pool, ri(5, 10))
    for _ in range(ri(1, 3)):
        lines.insert(ri(0, len(lines)), env_noise())
    out += lines
    if coin(0.4):
        out += ['', prompt() + 'stripe config --list', "[default]", "device_name = '" + person() + "-laptop'",
                f"live_mode_api_key = 'rk_live_*********************************************************************************************{rs(4)}'",
                f"test_mode_pub_key = 'pk_test_{rs(99)}'"]
    return '\n'.join(out[:30])


def n_code_env_lookup():
    v = ri(0, 3)
    if v == 0:
        return '\n'.join(['import os', 'import re', 'import boto3', '', 'STRIPE_KEY = os.environ["STRIPE_SECRET_KEY"]',
                          'DB_PASSWORD = os.getenv("DB_PASSWORD", "")', '',
                          '# patterns used by the pre-commit hook to block accidental commits',
                          'TOKEN_PATTERNS = [', '    re.compile(r"ghp_[A-Za-z0-9]{36}"),', '    re.compile(r"AKIA[0-9A-Z]{16}"),',
                          '    re.compile(r"xox[baprs]-[0-9A-Za-z-]{10,48}"),', '    re.compile(r"sk_live_[0-9a-zA-Z]{24,99}"),', ']', '',
                          'def get_secret(name: str) -> str:', '    client = boto3.client("secretsmanager")',
                          '    return client.get_secret_value(SecretId=name)["SecretString"]'])
    if v == 1:
        return '\n'.join(['package config', '', 'import (', '\t"os"', '\t"github.com/google/uuid"', ')', '',
                          '// NamespaceTenant is used to derive stable tenant ids (uuid v5).',
                          f'var NamespaceTenant = uuid.MustParse("{uuid4()}")', '', 'type Config struct {', '\tAPIToken string `env:"API_TOKEN,required"`',
                          '\tDBPass   string `env:"DB_PASSWORD,required"`', '}', '', 'func FromEnv() Config {',
                          '\treturn Config{APIToken: os.Getenv("API_TOKEN"), DBPass: os.Getenv("DB_PASSWORD")}', '}'])
    if v == 2:
        return '\n'.join(['const theme = {', f'  primary: "#{hx(6)}",', f'  secondary: "#{hx(6)}",', f'  accent: "#{hx(6)}",', '};', '',
                          f'export const BUILD_ID = "{hx(20)}";', f'export const EXPECTED_SHA256 = "{sha256()}";',
                          'export const SALT_ROUNDS = 12;', 'export const apiKey = process.env.NEXT_PUBLIC_POSTHOG_KEY ?? "";',
                          'export const stripeSecret = process.env.STRIPE_SECRET_KEY!;', '',
                          f'// test fixture: obviously fake token used in unit tests', 'export const FAKE_TOKEN = "test-token-not-real";'])
    return '\n'.join(['@Configuration', 'public class JwtConfig {', '    @Value("${app.jwt.secret}")', '    private String jwtSecret;', '',
                      '    @Value("${spring.datasource.password}")', '    private String dbPassword;', '',
                      f'    private static final long SERIAL_VERSION = {ri(10 ** 17, 9 * 10 ** 17)}L;',
                      f'    private static final String KEYSTORE_ALIAS = "{pname()}-signing";', '}'])


def n_app_log_ids():
    v = ri(0, 2)
    t0 = rtime()
    out = []
    if v == 0:
        for i in range(ri(4, 9)):
            t = t0 + dt.timedelta(milliseconds=i * 900 + ri(0, 899))
            out.append(json.dumps({'ts': iso(t, frac=3), 'level': ch(['info', 'info', 'debug', 'warn']), 'msg': ch(['request completed', 'cache miss', 'job enqueued', 'webhook delivered']),
                                   'request_id': uuid4(), 'trace_id': hx(32), 'span_id': hx(16), 'user_id': ch(['usr_' + rs(24), str(ri(1000, 999999)), objectid()]),
                                   'job_id': ulid(t), 'duration_ms': ri(1, 900)}))
        return '\n'.join(out)
    if v == 1:
        for i in range(ri(4, 9)):
            t = t0 + dt.timedelta(milliseconds=i * 900 + ri(0, 899))
            out.append(f'{t.strftime("%Y-%m-%d %H:%M:%S")},{ri(100, 999)} {ch(["INFO", "INFO", "DEBUG", "WARNING"])} [{ch(["api", "worker", "celery"])}] '
                       f'{ch(["task", "event", "upload"])}={nanoid()} traceparent=00-{hx(32)}-{hx(16)}-01 sentry_event_id={hx(32)} dd.trace_id={ri(10 ** 18, 9 * 10 ** 18)} status=ok')
        return '\n'.join(out)
    for i in range(ri(4, 8)):
        t = t0 + dt.timedelta(milliseconds=i * 900 + ri(0, 899))
        out.append(f'{iso(t, frac=3)} {ch(["INF", "DBG", "INF"])} webhook {ch(["received", "processed", "skipped"])} event=evt_{rs(24)} '
                   f'delivery={uuid4()} signature=sha256={hx(64)} token=[REDACTED] attempt={ri(1, 3)}')
    return '\n'.join(out)


def n_stack_trace_addresses():
    v = ri(0, 2)
    if v == 0:
        g = ri(1, 300)
        return '\n'.join(['panic: runtime error: invalid memory address or nil pointer dereference',
                          f'[signal SIGSEGV: segmentation violation code=0x1 addr=0x{hx(2)} pc=0x{hx(6)}]', '', f'goroutine {g} [running]:',
                          f'github.com/{org()}/{pname()}/internal/store.(*Repo).Get(0x0, {{0x{hx(7)}, 0xc000{hx(6)}}}, {{0xc000{hx(6)}, 0x24}})',
                          f'\t/src/internal/store/repo.go:{ri(20, 300)} +0x{hx(2)}',
                          f'github.com/{org()}/{pname()}/internal/api.(*Server).handleGet(0xc000{hx(6)}, {{0x{hx(7)}, 0xc000{hx(6)}}}, 0xc000{hx(6)})',
                          f'\t/src/internal/api/handlers.go:{ri(20, 300)} +0x{hx(3)}', 'net/http.HandlerFunc.ServeHTTP(0xc000{0}?, {{0x{1}?, 0xc000{2}?}}, 0x0?)'.format(hx(6), hx(7), hx(6)),
                          f'\t/usr/local/go/src/net/http/server.go:2171 +0x29', f'created by net/http.(*Server).Serve in goroutine {ri(1, 40)}',
                          '\t/usr/local/go/src/net/http/server.go:3285 +0x4b4', 'exit status 2'])
    if v == 1:
        return '\n'.join(['Traceback (most recent call last):', '  File "/app/tasks.py", line 58, in run',
                          '    result = handler(payload)', f'  File "/app/handlers.py", line {ri(10, 200)}, in handle',
                          '    return self.cache[key]', f"KeyError: 'job:{uuid4()}'", '',
                          f'During handling of the above exception, <tasks.Worker object at 0x7f{hx(10)}> reported:',
                          f'  state=<State.RUNNING: 2> lock=<unlocked _thread.lock object at 0x7f{hx(10)}> build_id={sha1()}'])
    return '\n'.join([f"thread 'main' panicked at src/main.rs:{ri(10, 200)}:{ri(5, 60)}:", 'called `Option::unwrap()` on a `None` value',
                      'stack backtrace:', f'   0:     0x5{hx(11)} - std::backtrace_rs::backtrace::libunwind::trace',
                      f'   1:     0x5{hx(11)} - core::panicking::panic_fmt', f'   2:     0x5{hx(11)} - core::panicking::panic',
                      f'   3:     0x5{hx(11)} - {pname().replace("-", "_")}::main', f'   4:     0x5{hx(11)} - core::ops::function::FnOnce::call_once',
                      'note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.'])


def n_curl_verbose_public():
    v = ri(0, 1)
    if v == 0:
        b = f'{org()}-public-assets'
        key = f'{ch(["img", "dist", "static"])}/{hx(8)}.{ch(["png", "js", "css"])}'
        return '\n'.join([prompt() + f'curl -sI https://{b}.s3.amazonaws.com/{key}', 'HTTP/1.1 200 OK', f'x-amz-id-2: {b64(56)}',
                          f'x-amz-request-id: {rs(16, "0123456789ABCDEF")}', f'Date: {rtime().strftime("%a, %d %b %Y %H:%M:%S GMT")}',
                          f'Last-Modified: {rtime().strftime("%a, %d %b %Y %H:%M:%S GMT")}', f'ETag: "{hx(32)}"', f'x-amz-version-id: {rs(32, B62 + "._")}',
                          'x-amz-server-side-encryption: AES256', 'Accept-Ranges: bytes', 'Content-Type: image/png', f'Content-Length: {ri(1000, 900000)}', 'Server: AmazonS3'])
    host = ch(['api.github.com', f'www.{domain()}', 'registry.npmjs.org'])
    ip = ip_pub()
    return '\n'.join([prompt() + f'curl -v https://{host}/ -o /dev/null', f'*   Trying {ip}:443...', f'* Connected to {host} ({ip}) port 443',
                      '* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256', '* Server certificate:', f'*  subject: CN={host}',
                      f'*  start date: {rtime().strftime("%b %d %H:%M:%S %Y GMT")}', f'*  issuer: C=US; O=Google Trust Services; CN=WE1',
                      f'> GET / HTTP/2', f'> Host: {host}', '> User-Agent: curl/8.7.1', '> Accept: */*', '>', '< HTTP/2 200',
                      f'< etag: W/"{hx(40)}"', f'< x-github-request-id: {rs(4, HEXU)}:{rs(5, HEXU)}:{rs(7, HEXU)}:{rs(7, HEXU)}:{rs(8, HEXU)}',
                      f'< cf-ray: {hx(16)}-{ch(["SJC", "FRA", "LHR", "IAD", "NRT"])}', f'< x-request-id: {uuid4()}', f'< x-served-by: cache-{ch(["fra", "iad", "sjc"])}-e{ri(10000, 99999)}-{ch(["FRA", "IAD", "SJC"])}',
                      '< x-cache: HIT', f'< age: {ri(1, 3000)}', '< strict-transport-security: max-age=31536000; includeSubDomains; preload',
                      f'< content-security-policy: script-src \'self\' \'nonce-{b64(16)}\'', '<', f'* Connection #0 to host {host} left intact'])


def n_stripe_object_ids():
    t = int(rtime().timestamp())
    cus = 'cus_' + rs(14)
    out = [prompt() + f'stripe payment_intents list --limit 1 --customer {cus}', '{', '  "object": "list",', '  "data": [', '    {',
           f'      "id": "pi_3{rs(23)}",', '      "object": "payment_intent",', f'      "amount": {ri(100, 90000)},',
           f'      "currency": "{ch(["usd", "eur", "gbp"])}",', f'      "customer": "{cus}",', f'      "latest_charge": "ch_3{rs(23)}",',
           f'      "payment_method": "pm_1{rs(23)}",', f'      "invoice": "in_1{rs(23)}",', f'      "created": {t},', '      "livemode": true,',
           '      "metadata": {', f'        "order_id": "{ulid()}"', '      },', '      "status": "succeeded"', '    }', '  ],', '  "has_more": true,',
           '  "url": "/v1/payment_intents"', '}']
    if coin():
        out += [prompt() + 'grep -r STRIPE_PUBLISHABLE apps/web/.env.production',
                f'NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_51{rs(97)}']
    return '\n'.join(out)


def n_har_analytics():
    host = f'www.{domain()}'
    ck = analytics_cookies()
    hdrs = [('accept', 'text/html,application/xhtml+xml'), ('cookie', '; '.join(ck)), ('if-none-match', f'W/\\"{hx(8)}-{b64(20).rstrip("=")}\\"'),
            ('user-agent', f'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{ri(120, 131)}.0.0.0 Safari/537.36')]
    lines = ['{', '  "log": {', '    "version": "1.2",', '    "creator": { "name": "Firefox", "version": "' + str(ri(120, 133)) + '.0" },', '    "entries": [', '      {',
             f'        "startedDateTime": "{iso(frac=3)}",', '        "request": {', '          "method": "GET",',
             f'          "url": "https://{host}/{ch(["pricing", "blog/" + ch(NOUN), "docs"])}?utm_source=newsletter&utm_campaign={ch(ADJ)}-{ri(1, 99)}&gclid={rs(80, B64U)}",',
             '          "headers": [']
    for i, (k, val) in enumerate(hdrs):
        lines.append(f'            {{ "name": "{k}", "value": "{val}" }}' + (',' if i < len(hdrs) - 1 else ''))
    lines += ['          ]', '        },', '        "response": {', '          "status": 200,', '          "headers": [',
              f'            {{ "name": "set-cookie", "value": "_ga={ck[0].split("=", 1)[1] if ck[0].startswith("_ga=") else "GA1.1." + str(ri(10 ** 8, 10 ** 10)) + "." + str(ri(10 ** 9, 2 * 10 ** 9))}; Max-Age=63072000; Path=/; SameSite=Lax" }},',
              f'            {{ "name": "etag", "value": "\\"{hx(32)}\\"" }}', '          ]', '        }', '      }', '    ]', '  }', '}']
    return '\n'.join(lines)


def n_postman_variables():
    v = ri(0, 1)
    if v == 0:
        return '\n'.join(['{', '\t"info": {', f'\t\t"_postman_id": "{uuid4()}",', f'\t\t"name": "{ch(["Billing API", "Partner API", "Internal"])}",',
                          '\t\t"schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"', '\t},', '\t"auth": {',
                          '\t\t"type": "bearer",', '\t\t"bearer": [ { "key": "token", "value": "{{accessToken}}", "type": "string" } ]', '\t},',
                          '\t"variable": [', f'\t\t{{ "key": "baseUrl", "value": "https://api.{domain()}" }},', '\t\t{ "key": "accessToken", "value": "" },',
                          '\t\t{ "key": "apiKey", "value": "{{$processEnvironment.API_KEY}}" }', '\t],', '\t"event": [ { "listen": "prerequest", "script": { "exec": [',
                          '\t\t"pm.request.headers.add({ key: \'X-Request-Id\', value: pm.variables.replaceIn(\'{{$guid}}\') });"', '\t] } } ]', '}'])
    return '\n'.join(['{', f'\t"id": "{uuid4()}",', '\t"name": "Production",', '\t"values": [',
                      f'\t\t{{ "key": "baseUrl", "value": "https://api.{domain()}", "type": "default", "enabled": true }},',
                      '\t\t{ "key": "client_id", "value": "", "type": "default", "enabled": true },',
                      '\t\t{ "key": "client_secret", "value": "", "type": "secret", "enabled": true },',
                      '\t\t{ "key": "access_token", "value": "", "type": "secret", "enabled": true }', '\t],',
                      '\t"_postman_variable_scope": "environment",', f'\t"_postman_exported_at": "{iso(frac=3)}",',
                      '\t"_postman_exported_using": "Postman/11.' + str(ri(1, 20)) + '.0"', '}'])


def n_db_client_ids():
    v = ri(0, 2)
    if v == 0:
        db = pname().replace('-', '_')
        out = [f'{db}=> SELECT id, filename, sha256, etag, created_at FROM uploads ORDER BY created_at DESC LIMIT 4;',
               '                  id                  |    filename     |                              sha256                              |               etag               |          created_at',
               '--------------------------------------+-----------------+------------------------------------------------------------------+----------------------------------+-------------------------------']
        for _ in range(4):
            out.append(f' {uuid4()} | {(ch(["invoice", "avatar", "report", "export"]) + "-" + str(ri(1, 999)) + "." + ch(["pdf", "png", "csv"])).ljust(15)} | {sha256()} | {hx(32)} | {rtime().strftime("%Y-%m-%d %H:%M:%S")}.{ri(100000, 999999)}+00')
        out.append('(4 rows)')
        return '\n'.join(out)
    if v == 1:
        coll = ch(['orders', 'events', 'sessions_meta', 'devices'])
        out = [f'{pname()}> db.{coll}.find({{}}, {{ _id: 1, deviceId: 1, fingerprint: 1 }}).limit(3)', '[']
        for i in range(3):
            out += ['  {', f"    _id: ObjectId('{objectid()}'),", f"    deviceId: UUID('{uuid4()}'),", f"    fingerprint: '{hx(40)}'", '  }' + (',' if i < 2 else '')]
        out.append(']')
        return '\n'.join(out)
    h = ch([ip_priv(), 'localhost'])
    return '\n'.join([f'{h}:6379> INFO server', '# Server', f'redis_version:7.{ri(0, 4)}.{ri(0, 9)}', 'redis_git_sha1:00000000', 'redis_git_dirty:0',
                      f'redis_build_id:{hx(16)}', 'redis_mode:standalone', 'os:Linux 6.1.0-18-cloud-amd64 x86_64', f'process_id:{ri(1, 9999)}',
                      f'run_id:{hx(40)}', 'tcp_port:6379', f'uptime_in_seconds:{ri(1000, 9999999)}', f'{h}:6379> INFO replication', '# Replication',
                      'role:master', 'connected_slaves:1', f'master_replid:{hx(40)}', 'master_replid2:0000000000000000000000000000000000000000',
                      f'master_repl_offset:{ri(10 ** 6, 10 ** 9)}'])


def n_ssh_public():
    v = ri(0, 2)
    if v == 0:
        out = [prompt() + 'cat ~/.ssh/authorized_keys']
        for _ in range(ri(2, 4)):
            out.append(ssh_pub(comment=f'{person()}@{ch(HOSTS)}'))
        return '\n'.join(out)
    if v == 1:
        out = [prompt() + 'head -4 ~/.ssh/known_hosts']
        for _ in range(4):
            out.append(f'|1|{b64(20)}|{b64(20)} {ssh_pub(ch(["ssh-ed25519", "ecdsa-sha2-nistp256"]))}')
        return '\n'.join(out)
    pub = ssh_pub(ch(['ssh-ed25519', 'ecdsa-sha2-nistp256']), comment=email())
    fp = b64(32).rstrip('=')
    return '\n'.join([prompt() + 'ssh-keygen -t ed25519 -C "' + email() + '"', 'Generating public/private ed25519 key pair.',
                      f'Your identification has been saved in /home/{person()}/.ssh/id_ed25519', f'Your public key has been saved in /home/{person()}/.ssh/id_ed25519.pub',
                      'The key fingerprint is:', f'SHA256:{fp} {email()}', "The key's randomart image is:", '+--[ED25519 256]--+',
                      '|      .o+=*o.    |', '|     . o=B.+     |', '|      ..*.O .    |', '|       o.= =     |', '|      . S.+ o    |',
                      '|       .oo.=     |', '|      . .o*..    |', '|       ..E=+.    |', '|        +*Bo     |', '+----[SHA256]-----+',
                      prompt() + 'cat ~/.ssh/id_ed25519.pub', pub])


def n_x509_cert():
    cn = ch([f'api.{domain()}', f'*.{domain()}', domain()])
    pemtxt = cert_pem(cn, issuer=ch([('R11', "Let's Encrypt", 'US'), ('E6', "Let's Encrypt", 'US'), ('WE1', 'Google Trust Services', 'US')]))
    v = ri(0, 1)
    if v == 0:
        return '\n'.join([prompt() + f'openssl s_client -connect {cn.lstrip("*.")}:443 -servername {cn.lstrip("*.")} </dev/null 2>/dev/null | sed -n 1,6p',
                          'CONNECTED(00000003)', '---', 'Certificate chain', f' 0 s:CN = {cn}', "   i:C = US, O = Let's Encrypt, CN = R11",
                          prompt() + f'cat certs/{cn.lstrip("*.")}.crt', pemtxt,
                          prompt() + f'openssl x509 -in certs/{cn.lstrip("*.")}.crt -noout -fingerprint -sha256',
                          'sha256 Fingerprint=' + ':'.join(wrap(hx(64).upper(), 2))])
    ind = '\n'.join('    ' + l for l in pemtxt.split('\n'))
    return '\n'.join([prompt() + 'kubectl get configmap kube-root-ca.crt -o yaml', 'apiVersion: v1', 'data:', '  ca.crt: |', ind, 'kind: ConfigMap',
                      'metadata:', '  name: kube-root-ca.crt', '  namespace: default'])


def n_pgp_public():
    v = ri(0, 2)
    name = fullname()
    em = email()
    fpr = hx(40).upper()
    if v == 0:
        return prompt() + f'gpg --armor --export {em}\n' + pgp_pubkey(f'{name} <{em}>')
    if v == 1:
        return '\n'.join([prompt() + 'gpg --list-keys --keyid-format long', f'/home/{person()}/.gnupg/pubring.kbx', '-' * 30,
                          f'pub   ed25519/{fpr[-16:]} {rtime().strftime("%Y-%m-%d")} [SC] [expires: {rtime().strftime("%Y-%m-%d")}]', f'      {fpr}',
                          f'uid                 [ultimate] {name} <{em}>', f'sub   cv25519/{hx(16).upper()} {rtime().strftime("%Y-%m-%d")} [E]',
                          prompt() + f'cat {pname()}-{semver()}.tar.gz.asc', pgp_signature()])
    return '\n'.join([prompt() + 'git log --show-signature -1', f'commit {sha1()}', f'gpg: Signature made {rtime().strftime("%a %d %b %Y %H:%M:%S %Z")}',
                      f'gpg:                using EDDSA key {fpr}', f'gpg: Good signature from "{name} <{em}>" [ultimate]', f'Author: {name} <{em}>',
                      f'Date:   {rtime().strftime("%a %b %d %H:%M:%S %Y +0000")}', '', f'    {ch(["Release", "Tag", "Bump to"])} v{semver()}'])


def n_jwks_public():
    v = ri(0, 1)
    iss = ch([f'https://auth.{domain()}', f'https://{org()}.us.auth0.com', f'https://cognito-idp.{region()}.amazonaws.com/{region()}_{rs(9)}'])
    if v == 0:
        keys = []
        for _ in range(ri(1, 2)):
            if coin():
                keys.append({'kty': 'RSA', 'use': 'sig', 'alg': 'RS256', 'kid': ch([hx(40), b64u(32), rs(20)]), 'n': b64u(256), 'e': 'AQAB',
                             'x5t': b64u(20)})
            else:
                keys.append({'kty': 'EC', 'use': 'sig', 'alg': 'ES256', 'crv': 'P-256', 'kid': hx(16), 'x': b64u(32), 'y': b64u(32)})
        return prompt() + f'curl -s {iss}/.well-known/jwks.json | jq .\n' + jdump({'keys': keys})
    return '\n'.join([prompt() + f'curl -s {iss}/.well-known/openid-configuration | jq "{{issuer, jwks_uri, id_token_signing_alg_values_supported}}"', '{',
                      f'  "issuer": "{iss}",', f'  "jwks_uri": "{iss}/.well-known/jwks.json",', '  "id_token_signing_alg_values_supported": [',
                      '    "RS256",', '    "ES256"', '  ]', '}', prompt() + 'cat keys/signing.pub',
                      pem('PUBLIC KEY', d_seq(d_seq(d_oid(OID_EC), d_oid(OID_P256)), d_bits(ec_point())))])


def n_pagination_cursors():
    v = ri(0, 3)
    if v == 0:
        cur = b64s(json.dumps({'id': ri(1000, 9999999), 'created_at': iso()}, separators=(',', ':')))
        items = ',\n'.join(f'    {{"id": "{ulid()}", "name": "{ch(NOUN)}-{ri(1, 99)}"}}' for _ in range(ri(2, 4)))
        return '\n'.join([prompt() + f'curl -s "https://api.{domain()}/v1/items?limit=3" | jq .', '{', '  "data": [', items, '  ],',
                          f'  "next_cursor": "{cur}",', '  "has_more": true', '}'])
    if v == 1:
        return '\n'.join([prompt() + 'aws dynamodb scan --table-name ' + pname() + ' --max-items 2 --query "NextToken"',
                          '"' + b64s(json.dumps({'ExclusiveStartKey': None, 'boto_truncate_amount': 2, 'LastEvaluatedKey': {'pk': {'S': f'ORDER#{ulid()}'}}}, separators=(',', ':'))) + '"'])
    if v == 2:
        cur = 'Y3Vyc29yOnYyOpK5' + base64.b64encode(iso().encode() + b'\xce' + rb(4)).decode()
        return '\n'.join([prompt() + f'gh api graphql -f query=\'{{ repository(owner:"{org()}", name:"{pname()}") {{ issues(first:2) {{ pageInfo {{ endCursor hasNextPage }} }} }} }}\'',
                          '{', '  "data": {', '    "repository": {', '      "issues": {', '        "pageInfo": {', f'          "endCursor": "{cur}",',
                          '          "hasNextPage": true', '        }', '      }', '    }', '  }', '}'])
    return '\n'.join([prompt() + f'curl -s -X POST "localhost:9200/{pname()}-logs/_search?scroll=1m" -d \'{{"size":100}}\' | jq "._scroll_id"',
                      '"' + 'FGluY2x1ZGVfY29udGV4dF91dWlkDXF1ZXJ5QW5kRmV0Y2gBFk' + rs(ri(40, 80), B64U) + '"',
                      prompt() + f'curl -s "https://slack.com/api/conversations.list?limit=2" -H "Authorization: Bearer $SLACK_TOKEN" | jq .response_metadata',
                      '{', f'  "next_cursor": "{b64s("team:C" + rs(10, UPP + DIG))}"', '}'])


PLAIN_TEXTS = ['Hello, world!', '# Project\n\nThis repository contains the source for the marketing site.\n',
               'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  LOG_LEVEL: info\n',
               '{"theme":"dark","locale":"en-GB","sidebar":{"collapsed":false}}', 'The quick brown fox jumps over the lazy dog.',
               'user-agent: *\nallow: /\nsitemap: https://example.com/sitemap.xml\n',
               'Thanks for signing up! Please confirm your email address to get started.',
               '[server]\nport = 8080\nworkers = 4\n']


def n_base64_plain():
    v = ri(0, 2)
    txt = ch(PLAIN_TEXTS)
    if v == 0:
        return '\n'.join([prompt() + f"echo -n '{txt.splitlines()[0]}' | base64", b64s(txt.splitlines()[0])])
    if v == 1:
        path = ch(['README.md', 'config/app.yaml', 'docs/intro.md'])
        enc = base64.encodebytes(txt.encode()).decode().rstrip('\n').replace('\n', '\\n')
        return '\n'.join([prompt() + f'gh api repos/{org()}/{pname()}/contents/{path}', '{', f'  "name": "{path.split("/")[-1]}",', f'  "path": "{path}",',
                          f'  "sha": "{sha1()}",', f'  "size": {len(txt)},', f'  "content": "{enc}\\n",', '  "encoding": "base64"', '}'])
    b = ch(['=_Part_' + str(ri(1000, 9999)) + '_' + str(ri(10 ** 8, 10 ** 9)), '----boundary' + hx(16)])
    return '\n'.join([f'Content-Type: multipart/alternative; boundary="{b}"', '', f'--{b}', 'Content-Type: text/plain; charset=UTF-8',
                      'Content-Transfer-Encoding: base64', ''] + wrap(b64s(txt), 76) + ['', f'--{b}--'])


def n_minified_js():
    chunk = pname().replace('-', '_')
    ids = [rs(1, LOW) for _ in range(8)] + [rs(2, LOW + UPP) for _ in range(4)]
    frags = [f'function {ids[0]}({ids[1]},{ids[2]}){{return {ids[1]}&&{ids[1]}.__esModule?{ids[1]}:{{default:{ids[1]}}}}}',
             f'var {ids[3]}="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";',
             f'const {ids[4]}=new Map,{ids[5]}=Symbol.for("react.element");',
             f'{ids[6]}.exports=function({ids[7]}){{for(var {ids[8]}=0,{ids[9]}="";{ids[8]}<{ids[7]}.length;{ids[8]}++){ids[9]}+=String.fromCharCode({ids[7]}.charCodeAt({ids[8]})^{ri(1, 127)});return {ids[9]}}};',
             f'"use strict";(self.webpackChunk{chunk}=self.webpackChunk{chunk}||[]).push([[{ri(100, 999)}],{{{ri(1000, 99999)}:({ids[0]},{ids[1]},{ids[2]})=>{{{ids[2]}.d({ids[1]},{{Z:()=>{ids[10]}}})}}}}]);',
             f'let {ids[10]}=Math.random().toString(36).slice(2),{ids[11]}="{hx(8)}";',
             f'if(typeof window!=="undefined"){{window.__BUILD__="{hx(7)}";window.__CHUNK__="{hx(20)}"}}']
    R.shuffle(frags)
    name = f'{ch(["main", "vendor", "app", "chunk-" + hx(8)])}.{hx(8)}.js'
    out = [prompt() + f'head -c 900 dist/assets/{name}', '!function(e,t){"object"==typeof exports&&"undefined"!=typeof module?module.exports=t():"function"==typeof define&&define.amd?define(t):(e=e||self).lib=t()}(this,function(){' + ''.join(frags) + '});']
    if coin():
        sm = json.dumps({'version': 3, 'file': name, 'sources': ['../src/index.ts'], 'names': [], 'mappings': ';;AAAA,' + rs(60, 'ABCDEFGIKMOQSUWYacegikmoqsuwy+/,;')}, separators=(',', ':'))
        out.append('//# sourceMappingURL=data:application/json;charset=utf-8;base64,' + b64s(sm))
    return '\n'.join(out)


def n_data_uris():
    v = ri(0, 1)
    png = base64.b64encode(b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR' + struct.pack('>II', ri(1, 64), ri(1, 64)) + b'\x08\x06\x00\x00\x00' + rb(ri(40, 160))).decode()
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#{hx(6)}" d="M{ri(1, 9)} {ri(1, 9)}h{ri(4, 12)}v{ri(4, 12)}H{ri(1, 9)}z"/></svg>'
    if v == 0:
        return '\n'.join([prompt() + f'sed -n 1,12p src/styles/{ch(["icons", "base", "theme"])}.css', '.icon-check {',
                          f'  background-image: url("data:image/svg+xml;base64,{b64s(svg)}");', '  background-size: 16px 16px;', '}',
                          '.logo {', f'  background: url(data:image/png;base64,{png}) no-repeat;', '}', '@font-face {', "  font-family: 'Inter';",
                          f'  src: url(data:font/woff2;base64,d09GMgABAAAAA{rs(ri(80, 140), B64)}) format("woff2");', '}'])
    return '\n'.join(['<!doctype html>', '<html lang="en">', '<head>', '  <meta charset="utf-8">',
                      f'  <link rel="icon" href="data:image/png;base64,{png}">',
                      f'  <script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.{ri(0, 3)}/dist/js/bootstrap.bundle.min.js" integrity="{sri("sha384")}" crossorigin="anonymous"></script>',
                      f'  <link rel="stylesheet" href="/assets/index-{rs(8, B64U)}.css" integrity="{sri("sha256")}">',
                      f'  <script nonce="{b64(16)}">window.__ENV__={{"release":"{hx(12)}","region":"{region()}"}}</script>', '</head>'])


def n_checksums_git():
    v = ri(0, 3)
    if v == 0:
        ver = semver()
        p = pname()
        out = [prompt() + f'cat {p}_{ver}_checksums.txt']
        for plat in sample(['linux_amd64.tar.gz', 'linux_arm64.tar.gz', 'darwin_amd64.tar.gz', 'darwin_arm64.tar.gz', 'windows_amd64.zip'], ri(3, 5)):
            out.append(f'{sha256()}  {p}_{ver}_{plat}')
        out += [prompt() + f'sha256sum -c {p}_{ver}_checksums.txt --ignore-missing', f'{p}_{ver}_linux_amd64.tar.gz: OK']
        return '\n'.join(out)
    if v == 1:
        return '\n'.join([prompt() + f'git show HEAD:{ch(["assets/model.bin", "data/train.parquet", "video/demo.mp4"])}', 'version https://git-lfs.github.com/spec/v1',
                          f'oid sha256:{sha256()}', f'size {ri(10 ** 5, 10 ** 10)}'])
    if v == 2:
        out = [prompt() + 'git log --oneline -8']
        for _ in range(8):
            out.append(f'{hx(7)} {ch(["fix: ", "feat: ", "chore: ", "refactor: "])}{ch(["handle empty cart", "bump deps", "add retries to webhook sender", "rename config keys", "drop legacy endpoint", "cache tokens metadata"])}')
        return '\n'.join(out)
    out = [prompt() + 'git ls-remote origin']
    out.append(f'{sha1()}\tHEAD')
    for ref in ['refs/heads/main', 'refs/heads/develop', f'refs/tags/v{semver()}', f'refs/pull/{ri(10, 999)}/head']:
        out.append(f'{sha1()}\t{ref}')
    out += [prompt() + 'git cat-file -p HEAD', f'tree {sha1()}', f'parent {sha1()}', f'author {fullname()} <{email()}> {int(rtime().timestamp())} +0000',
            f'committer GitHub <noreply@github.com> {int(rtime().timestamp())} +0000']
    return '\n'.join(out)


def n_jupyter_ids():
    v = ri(0, 1)
    if v == 0:
        out = ['In [7]: df[["user_id", "payload_md5", "device"]].head()', 'Out[7]:',
               '                                user_id                       payload_md5   device']
        for i in range(5):
            out.append(f'{i}  {uuid4()}  {hx(32)}  {ch(["ios", "android", "web"])}')
        out += ['', 'In [8]: df.shape', f'Out[8]: ({ri(1000, 9000000)}, {ri(4, 40)})']
        return '\n'.join(out)
    run = rs(8, LOWDIG)
    return '\n'.join(['In [3]: run = wandb.init(project="' + pname() + '")',
                      f'wandb: Currently logged in as: {person()} ({org()}). Use `wandb login --relogin` to force relogin',
                      f'wandb: Tracking run with wandb version 0.1{ri(6, 9)}.{ri(0, 9)}', f'wandb: Run data is saved locally in /content/wandb/run-{rtime().strftime("%Y%m%d_%H%M%S")}-{run}',
                      f'wandb: Syncing run {ch(ADJ)}-{ch(NOUN)}-{ri(1, 200)}', f'wandb: \u2b50\ufe0f View project at https://wandb.ai/{org()}/{pname()}',
                      f'wandb: \U0001f680 View run at https://wandb.ai/{org()}/{pname()}/runs/{run}', '',
                      'In [4]: !nvidia-smi -L', f'GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-{uuid4()})', '',
                      'In [5]: mlflow.active_run().info.run_id', f"Out[5]: '{hx(32)}'",
                      'In [6]: hf_hub_download("' + ch(['bert-base-uncased', 'gpt2', 'openai/clip-vit-base-patch32']) + '", "model.safetensors")',
                      f"Out[6]: '/root/.cache/huggingface/hub/models--gpt2/snapshots/{sha1()}/model.safetensors'"])


# =========================================================================
# registry and output
# =========================================================================
POSITIVE = [
    ('aws-credentials-file', p_aws_credentials), ('aws-sts-creds-json', p_aws_sts_json), ('aws-secret-cli-output', p_aws_secret_cli),
    ('gcp-sa-key-json', p_gcp_sa_key), ('gcloud-tokens', p_gcloud_tokens), ('az-sp-credentials', p_az_sp_create),
    ('azure-connstr-sas', p_azure_connstr), ('wrangler-dev-vars', p_wrangler_devvars), ('vercel-env-pull', p_vercel_env_pull),
    ('netlify-config', p_netlify_config), ('railway-fly-render', p_paas_vars), ('heroku-config', p_heroku_config),
    ('do-hcloud-linode-config', p_cloud_cli_config), ('terraform-creds', p_terraform_creds), ('pulumi-show-secrets', p_pulumi_secrets),
    ('ansible-plain-vars', p_ansible_vars), ('kubectl-secret', p_kubectl_secret), ('kubeconfig-user', p_kubeconfig),
    ('helm-argocd-creds', p_helm_argocd), ('vault-cli-tokens', p_vault_cli), ('op-item-reveal', p_op_reveal),
    ('bw-session-item', p_bw_session), ('doppler-infisical', p_doppler_infisical), ('docker-podman-login', p_docker_podman_login),
    ('gh-auth-token', p_gh_auth), ('glab-config', p_glab_config), ('npm-yarn-auth', p_npm_yarn_pnpm),
    ('pypi-poetry-uv-creds', p_python_pkg_creds), ('cargo-gem-composer-creds', p_cargo_gem_composer), ('maven-gradle-nuget', p_maven_gradle),
    ('app-log-leak', p_app_log_leak), ('stack-trace-secret', p_stack_trace_secret), ('curl-verbose-auth', p_curl_verbose_auth),
    ('httpie-auth', p_httpie_apikey), ('devtools-copy-as', p_devtools_copy), ('har-auth', p_har_auth),
    ('postman-insomnia-export', p_postman_insomnia), ('db-client-session', p_db_client), ('github-actions-leak', p_github_actions_log),
    ('gitlab-jenkins-circleci-leak', p_ci_logs_other), ('code-python-js', p_code_python_js), ('code-go-java-csharp', p_code_go_java_csharp),
    ('code-ruby-php-rust-sh', p_code_ruby_php_rust_sh), ('jupyter-secret', p_jupyter), ('pem-private-key', p_pem_private_key),
    ('openssh-putty-key', p_ssh_putty_key), ('jwk-pkcs12', p_jwk_pkcs12), ('connection-strings', p_connection_strings),
    ('webhook-urls', p_webhook_urls), ('dotenv-vendor-keys', p_dotenv_vendor),
]

NEGATIVE = [
    ('aws-resource-ids', n_aws_ids), ('aws-masked-config', n_aws_masked_config), ('docs-example-keys', n_docs_example_keys),
    ('kms-ciphertext', n_kms_encrypted), ('gcloud-listings', n_gcloud_listing), ('az-account-ids', n_az_account),
    ('wrangler-ids', n_wrangler_ids), ('vercel-netlify-deploy', n_vercel_netlify_deploy), ('paas-status-ids', n_paas_status),
    ('terraform-plan-sensitive', n_terraform_plan), ('terraform-state-lock', n_terraform_state_ids), ('pulumi-encrypted', n_pulumi_encrypted),
    ('ansible-vault-blob', n_ansible_vault), ('sops-encrypted', n_sops_encrypted), ('k8s-secret-refs', n_k8s_secret_refs),
    ('kubectl-get-describe', n_kubectl_get_describe), ('helm-argocd-status', n_helm_argocd_status), ('vault-metadata', n_vault_metadata),
    ('secret-manager-refs', n_secret_manager_refs), ('docker-image-digests', n_docker_images), ('docker-ps-inspect', n_docker_inspect),
    ('gh-cli-ids', n_gh_cli_output), ('gitlab-ci-masked', n_gitlab_ci_masked), ('github-actions-masked', n_github_actions_masked),
    ('jenkins-circleci-ids', n_circleci_jenkins), ('npm-integrity', n_package_lock), ('yarn-pnpm-lock', n_yarn_pnpm_lock),
    ('python-lock-hashes', n_python_lock_hashes), ('cargo-go-sums', n_cargo_go_sums), ('gem-composer-lock', n_gem_composer_lock),
    ('maven-gradle-placeholders', n_maven_gradle_placeholders), ('env-example-placeholders', n_env_placeholders),
    ('code-env-lookup', n_code_env_lookup), ('app-log-ids', n_app_log_ids), ('stack-trace-addresses', n_stack_trace_addresses),
    ('curl-public-headers', n_curl_verbose_public), ('stripe-object-ids', n_stripe_object_ids), ('har-analytics-cookies', n_har_analytics),
    ('postman-variables', n_postman_variables), ('db-client-ids', n_db_client_ids), ('ssh-public-keys', n_ssh_public),
    ('x509-certificate', n_x509_cert), ('pgp-public-signature', n_pgp_public), ('jwks-public', n_jwks_public),
    ('pagination-cursors', n_pagination_cursors), ('base64-plain-text', n_base64_plain), ('minified-js', n_minified_js),
    ('data-uris-sri', n_data_uris), ('checksums-git-lfs', n_checksums_git), ('jupyter-ids', n_jupyter_ids),
]

ROWS_PER_TEMPLATE = 6
MAX_LINES = 30


def check(text, positive, name):
    n = text.count('\n') + 1
    if not 1 <= n <= MAX_LINES:
        raise ValueError(f'{name}: {n} lines')
    if positive:
        depth = 0
        spans = 0
        for c in text:
            if c == OPEN:
                depth += 1
                spans += 1
                if depth > 1:
                    raise ValueError(f'{name}: nested marker')
            elif c == CLOSE:
                depth -= 1
                if depth < 0:
                    raise ValueError(f'{name}: unbalanced marker')
        if depth or not spans:
            raise ValueError(f'{name}: bad markers')
        if OPEN + CLOSE in text:
            raise ValueError(f'{name}: empty span')
    elif OPEN in text or CLOSE in text:
        raise ValueError(f'{name}: marker in negative')


def main():
    assert len(POSITIVE) == 50 and len(NEGATIVE) == 50
    names = [n for n, _ in POSITIVE + NEGATIVE]
    assert len(set(names)) == len(names)
    rid = 0
    out = sys.stdout
    for positive, table in ((True, POSITIVE), (False, NEGATIVE)):
        for name, fn in table:
            for _ in range(ROWS_PER_TEMPLATE):
                new_row()
                text = fn()
                check(text, positive, name)
                rid += 1
                out.write(json.dumps({'id': rid, 'template': name, 'positive': positive, 'text': text}, ensure_ascii=False) + '\n')


if __name__ == '__main__':
    main()
