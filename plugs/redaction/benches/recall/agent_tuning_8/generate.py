#!/usr/bin/env python3
"""Tuning corpus #8: network and systems operations output seen by coding agents.

python3 generate.py > rows.jsonl   (deterministic; one random.Random(8686))
"""
import base64
import json
import re
import struct
import sys
import random

SEED = 8686
R = random.Random(SEED)
USED = []          # list (not a set) of every random value handed out
USED_SET = {}      # dict used only for membership tests (never iterated)

L, RR = "\u00ab", "\u00bb"


def M(s):
    """Mark a secret."""
    return L + s + RR


# ---------------------------------------------------------------- randomness
LOWER = "abcdefghijklmnopqrstuvwxyz"
UPPER = LOWER.upper()
DIGITS = "0123456789"
ALNUM = LOWER + UPPER + DIGITS
B64 = UPPER + LOWER + DIGITS + "+/"
B64URL = UPPER + LOWER + DIGITS + "-_"
CRYPT64 = "./" + DIGITS + UPPER + LOWER


def _reg(v):
    if len(v) >= 6:
        if v in USED_SET:
            return False
        USED_SET[v] = 1
        USED.append(v)
    return True


def fresh(fn):
    for _ in range(1000):
        v = fn()
        if _reg(v):
            return v
    raise RuntimeError("could not make a fresh value")


def rs(n, alpha=ALNUM):
    return fresh(lambda: "".join(R.choice(alpha) for _ in range(n)))


def hx(n, upper=False):
    return rs(n, "0123456789ABCDEF" if upper else "0123456789abcdef")


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b64(n, pad=True):
    def f():
        s = base64.b64encode(rbytes(n)).decode()
        return s if pad else s.rstrip("=")
    return fresh(f)


def b64url(n):
    return fresh(lambda: base64.urlsafe_b64encode(rbytes(n)).decode().rstrip("="))


def uuid4():
    def f():
        h = "".join(R.choice("0123456789abcdef") for _ in range(32))
        h = h[:12] + "4" + h[13:16] + R.choice("89ab") + h[17:]
        return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    return fresh(f)


def wgkey():
    """Clamped X25519 private key, base64."""
    def f():
        b = bytearray(rbytes(32))
        b[0] &= 248
        b[31] &= 127
        b[31] |= 64
        return base64.b64encode(bytes(b)).decode()
    return fresh(f)


WORDS = ["amber", "basalt", "cobalt", "delta", "ember", "falcon", "garnet", "harbor",
         "indigo", "juniper", "kestrel", "lantern", "meadow", "nectar", "onyx", "pepper",
         "quartz", "raven", "saffron", "tundra", "umber", "velvet", "walnut", "yarrow",
         "zephyr", "copper", "glacier", "marble", "orchid", "pine", "sable", "thistle",
         "willow", "cinder", "drift", "fable", "gravel", "hollow", "ivory", "jasper"]
PUNCT = "!#%*+-.=?@^_~"
URLPUNCT = "!*-._~"


def pw(style=None, urlsafe=False):
    """A plain password in one of several human/machine styles."""
    punct = URLPUNCT if urlsafe else PUNCT
    style = style if style is not None else R.randrange(7)

    def f():
        if style == 0:
            return R.choice(WORDS).capitalize() + R.choice(punct) + R.choice(WORDS) + str(R.randrange(10, 9999))
        if style == 1:
            return "".join(R.choice(ALNUM) for _ in range(R.randrange(16, 25)))
        if style == 2:
            return "".join(R.choice(ALNUM + punct) for _ in range(R.randrange(12, 17)))
        if style == 3:
            return "-".join(R.choice(WORDS) for _ in range(4))
        if style == 4:
            return base64.b64encode(rbytes(R.choice([18, 24, 30]))).decode().rstrip("=").replace("/", "x").replace("+", "k")
        if style == 5:
            return "".join(R.choice("0123456789abcdef") for _ in range(32))
        s = [R.choice(UPPER), R.choice(LOWER), R.choice(DIGITS), R.choice(punct)]
        s += [R.choice(ALNUM) for _ in range(R.randrange(8, 12))]
        R.shuffle(s)
        return "".join(s)
    while True:
        v = fresh(f)
        if v[0] not in "'\"" and v[-1] not in "'\"":
            return v


def akid():
    return rs(16, UPPER + "234567").join(["AKIA", ""])


def aws_secret():
    return rs(40, ALNUM + "+/")


def pick(seq):
    return R.choice(seq)


# ---------------------------------------------------------------- people/places
USERS = ["mkowalski", "jdoe", "asantos", "priya", "tnguyen", "rwilliams", "lchen", "hmueller",
         "oyilmaz", "kfischer", "ebrown", "ncarter", "sgarcia", "aivanova", "dpatel", "mrossi",
         "akim", "jmartin", "bsmith", "fokafor", "yamamoto", "lpetit", "gschulz", "cnavarro",
         "ttanaka", "mbakker", "erikj", "skaur", "vlad", "noor"]
HOSTS = ["bastion-01", "ops-jump", "netadm-lt", "build-07", "ansible-ctl", "mon01", "backup-02",
         "ci-runner-3", "pve-node2", "mail01", "ns1", "fw-mgmt", "dev-vm", "infra-ws", "tools01",
         "jump-fra1", "nocbox", "rack12-mgmt", "lab-ctl", "sre-laptop", "deploy01", "mgmt-ams2",
         "edge-admin", "hq-ops-02"]
DOMAINS = ["acme-logistics.net", "northwind.io", "contoso-lab.local", "brightwave.de",
           "kestrel-systems.com", "fjordline.no", "tallgrass.co", "hollowpeak.org",
           "orbitfreight.com", "riverbend-health.org", "nimbus-ops.dev", "quarrytech.eu",
           "lumenhall.net", "copperfield.io", "saltmarsh.coop", "bluefinch.at",
           "parkside-clinic.org", "ironbridge.uk", "meridian-labs.net", "tessellate.cloud"]
REALMS = [d.split(".")[0].upper().replace("-", "") for d in DOMAINS]
SITES = ["fra1", "ams2", "lon3", "nyc1", "sfo2", "sin1", "par1", "waw1", "osl1", "dub2", "ber1", "vie1"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
WDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def ip_priv():
    k = R.randrange(3)
    if k == 0:
        return "10.%d.%d.%d" % (R.randrange(0, 255), R.randrange(0, 255), R.randrange(2, 254))
    if k == 1:
        return "172.%d.%d.%d" % (R.randrange(16, 32), R.randrange(0, 255), R.randrange(2, 254))
    return "192.168.%d.%d" % (R.randrange(0, 255), R.randrange(2, 254))


def ip_pub():
    return pick(["198.51.100", "203.0.113", "192.0.2"]) + ".%d" % R.randrange(2, 254)


def mac(sep=":"):
    b = [R.randrange(256) for _ in range(6)]
    b[0] = b[0] & 0xFC
    return sep.join("%02x" % x for x in b)


class TS:
    """Deterministic timestamp helper (no clock)."""

    def __init__(self):
        self.y = pick([2023, 2024, 2025])
        self.mo = R.randrange(1, 13)
        self.d = R.randrange(1, 29)
        self.h = R.randrange(0, 24)
        self.mi = R.randrange(0, 60)
        self.s = R.randrange(0, 60)

    def tick(self, sec=None):
        sec = sec if sec is not None else R.randrange(1, 40)
        self.s += sec
        self.mi += self.s // 60
        self.s %= 60
        self.h += self.mi // 60
        self.mi %= 60
        if self.h >= 24:
            self.h %= 24
            self.d = min(self.d + 1, 28)
        return self

    def wday(self):
        # Zeller-ish: Sakamoto
        t = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]
        y = self.y - (self.mo < 3)
        w = (y + y // 4 - y // 100 + y // 400 + t[self.mo - 1] + self.d) % 7  # 0=Sunday
        return WDAYS[(w + 6) % 7]

    def iso(self, frac=False, z=True):
        s = "%04d-%02d-%02dT%02d:%02d:%02d" % (self.y, self.mo, self.d, self.h, self.mi, self.s)
        if frac:
            s += ".%03d" % R.randrange(1000)
        return s + ("Z" if z else "")

    def sql(self):
        return "%04d-%02d-%02d %02d:%02d:%02d" % (self.y, self.mo, self.d, self.h, self.mi, self.s)

    def syslog(self):
        return "%s %2d %02d:%02d:%02d" % (MONTHS[self.mo - 1], self.d, self.h, self.mi, self.s)

    def ctime(self):
        return "%s %s %2d %02d:%02d:%02d %d" % (self.wday(), MONTHS[self.mo - 1], self.d, self.h, self.mi, self.s, self.y)

    def us(self):
        return "%02d/%02d/%04d %02d:%02d:%02d" % (self.mo, self.d, self.y, self.h, self.mi, self.s)

    def epoch(self):
        days = 0
        for yy in range(1970, self.y):
            days += 366 if (yy % 4 == 0 and (yy % 100 != 0 or yy % 400 == 0)) else 365
        md = [31, 28 + (self.y % 4 == 0), 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        days += sum(md[: self.mo - 1]) + self.d - 1
        return days * 86400 + self.h * 3600 + self.mi * 60 + self.s


class Ctx:
    def __init__(self):
        self.user = pick(USERS)
        self.host = pick(HOSTS)
        self.dom = pick(DOMAINS)
        self.realm = self.dom.split(".")[0].upper().replace("-", "") + "." + self.dom.split(".")[-1].upper()
        self.org = self.dom.split(".")[0]
        self.site = pick(SITES)
        self.proj = pick(["netops", "infra", "homelab", "platform-ops", "noc-tools", "ops-runbooks",
                          "site-config", "edge-fleet", "dc-automation", "mailops", "backup-infra"])
        self.cwd = pick(["~/src/", "~/work/", "/srv/", "~/git/", "/opt/"]) + self.proj
        self.abs_cwd = self.cwd.replace("~", "/home/" + self.user)
        self.ts = TS()
        self.branch = pick(["main", "master", "ops/rotate-creds", "feat/vpn-" + self.site, "fix/monitoring", "wip"])
        self.pstyle = R.randrange(8)
        self.venv = pick(["venv", ".venv", "ansible"])
        self.rootp = None


# ---------------------------------------------------------------- frames
def prompt(c, root=False):
    k = c.pstyle
    cwd = c.cwd
    base = cwd.split("/")[-1]
    if root:
        if c.rootp is None:
            c.rootp = pick(["root@%s:%s# " % (c.host, pick(["~", "/etc", "/root", cwd])),
                            "[root@%s %s]# " % (c.host, pick(["~", "etc", base]))])
        return c.rootp
    if k == 0:
        return "%s@%s:%s$ " % (c.user, c.host, cwd)
    if k == 1:
        return "\u279c  %s git:(%s) " % (base, c.branch)
    if k == 2:
        return "%s on \ue0a0 %s\n\u276f " % (base, c.branch)
    if k == 3:
        return "[%s@%s %s]$ " % (c.user, c.host, base)
    if k == 4:
        return "%s@%s %s> " % (c.user, c.host, cwd)
    if k == 5:
        return "$ "
    if k == 6:
        return "(%s) %s@%s:%s$ " % (c.venv, c.user, c.host, cwd)
    return "%s %% " % base


def _check_no_multiline_mark(out):
    depth = False
    for ch in out:
        if ch == L:
            depth = True
        elif ch == RR:
            depth = False
        elif ch == "\n" and depth:
            raise AssertionError("multi-line mark inside a prefixing frame")


def shq(cmd):
    if "'" not in cmd:
        return "'" + cmd + "'"
    return '"' + cmd.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`") + '"'


FRAMES = ["prompt", "claude", "codex_exec", "codex_ts", "codex_ran", "gemini"]
PREFIXING = {"claude": 1, "codex_ran": 1, "gemini": 1}


def pick_frame(allowed=None):
    return pick(allowed or FRAMES)


def prefixed(kind):
    return kind in PREFIXING


def render(kind, c, steps, root=False, desc=None):
    """steps: list of (cmd, output). output lines are already final."""
    parts = []
    if kind == "gemini" and max(len(x) for cmd, out in steps for x in out.split("\n") + [cmd]) > 150:
        kind = "claude"
    for i, (cmd, out) in enumerate(steps):
        out = out.rstrip("\n")
        if kind == "prompt":
            parts.append(prompt(c, root) + cmd + ("\n" + out if out else ""))
        elif kind == "claude":
            _check_no_multiline_mark(out)
            lines = out.split("\n") if out else ["(No content)"]
            body = ["  \u23bf  " + lines[0]] + [("     " + l) if l else "" for l in lines[1:]]
            parts.append("\u23fa Bash(%s)\n" % cmd + "\n".join(body))
        elif kind == "codex_exec":
            parts.append("exec\nbash -lc %s in %s\n succeeded in %dms:\n%s" % (shq(cmd), c.abs_cwd, R.randrange(8, 2400), out))
        elif kind == "codex_ts":
            t = c.ts.tick(R.randrange(1, 9)).iso(z=False)
            t2 = c.ts.tick(R.randrange(0, 3)).iso(z=False)
            parts.append("[%s] exec bash -lc %s in %s\n[%s] bash -lc %s succeeded in %dms:\n%s"
                         % (t, shq(cmd), c.abs_cwd, t2, shq(cmd), R.randrange(8, 2400), out))
        elif kind == "codex_ran":
            _check_no_multiline_mark(out)
            lines = out.split("\n") if out else ["(no output)"]
            body = ["  \u2514 " + lines[0]] + [("    " + l) if l else "" for l in lines[1:]]
            parts.append("\u2022 Ran %s\n" % cmd + "\n".join(body))
        elif kind == "gemini":
            _check_no_multiline_mark(out)
            lines = out.expandtabs(4).split("\n")
            head = "\u2714  Shell %s" % cmd + (" (%s)" % desc if desc else "")
            inner = [head, ""] + lines
            w = max(len(x) for x in inner) + 2
            box = ["\u256d" + "\u2500" * w + "\u256e"]
            for x in inner:
                box.append("\u2502 " + x + " " * (w - 1 - len(x)) + "\u2502")
            box.append("\u2570" + "\u2500" * w + "\u256f")
            parts.append("\n".join(box))
        else:
            raise ValueError(kind)
    sep = "\n\n" if kind in ("claude", "codex_ran", "gemini", "codex_exec", "codex_ts") else "\n"
    return sep.join(parts)


def read_tool(path, content, start=1):
    lines = content.rstrip("\n").split("\n")
    _check_no_multiline_mark(content)
    body = "\n".join("%6d\u2192%s" % (i + start, l) for i, l in enumerate(lines))
    return "\u23fa Read(%s)\n%s" % (path, body)


VIEWS = ["cat", "cat -n", "nl -ba", "bat", "sed", "head", "read"]


def view_prefixed(v):
    return v in ("cat -n", "nl -ba", "bat", "read")


def view(v, path, content):
    """Return (cmd, out) for a file view, or ('__read__', text) for the Read tool."""
    content = content.rstrip("\n")
    lines = content.split("\n")
    if v == "cat":
        return "cat " + path, content
    if v == "head":
        return "head -n %d %s" % (max(len(lines), 20), path), content
    if v == "sed":
        return "sed -n '1,%dp' %s" % (len(lines) + R.randrange(0, 30), path), content
    _check_no_multiline_mark(content)
    if v in ("cat -n", "nl -ba"):
        return v + " " + path, "\n".join("%6d\t%s" % (i + 1, l) for i, l in enumerate(lines))
    if v == "bat":
        w = 60
        out = ["\u2500" * 7 + "\u252c" + "\u2500" * w, "       \u2502 File: " + path, "\u2500" * 7 + "\u253c" + "\u2500" * w]
        out += ["%4d   \u2502 %s" % (i + 1, l) for i, l in enumerate(lines)]
        out.append("\u2500" * 7 + "\u2534" + "\u2500" * w)
        return "bat --paging=never %s" % path, "\n".join(out)
    if v == "read":
        return "__read__", read_tool(path, content)
    raise ValueError(v)


def show_file(c, path, content, views=None, frames=None, sudo=False, extra_steps=None, root=False):
    """Render a file view inside a frame. extra_steps appended after."""
    v = pick(views or VIEWS)
    cmd, out = view(v, path, content)
    if cmd == "__read__":
        text = out
        if extra_steps:
            text += "\n\n" + render("claude", c, extra_steps, root=root)
        return text
    if sudo and not root:
        cmd = "sudo " + cmd
    k = pick(frames or FRAMES)
    steps = [(cmd, out)] + (extra_steps or [])
    return render(k, c, steps, root=root)


def file_view_choice(views=None, frames=None):
    """Pick a view and a frame up front; returns (v, k, per_line)."""
    v = pick(views or VIEWS)
    k = pick(frames or FRAMES)
    per_line = view_prefixed(v) or (v != "read" and prefixed(k))
    return v, k, per_line


def show_with(c, v, k, path, content, sudo=False, extra_steps=None, pre_steps=None, root=False):
    cmd, out = view(v, path, content)
    if cmd == "__read__":
        text = ""
        if pre_steps:
            text += render("claude", c, pre_steps, root=root) + "\n\n"
        text += out
        if extra_steps:
            text += "\n\n" + render("claude", c, extra_steps, root=root)
        return text
    if sudo and not root:
        cmd = "sudo " + cmd
    steps = (pre_steps or []) + [(cmd, out)] + (extra_steps or [])
    return render(k, c, steps, root=root)


def pem(label, body_b64, per_line, width=64):
    lines = [body_b64[i:i + width] for i in range(0, len(body_b64), width)]
    if per_line:
        return "-----BEGIN %s-----\n%s\n-----END %s-----" % (label, "\n".join(M(x) for x in lines), label)
    return M("-----BEGIN %s-----\n%s\n-----END %s-----" % (label, "\n".join(lines), label))


def rsa_pkcs1_body(bits=2048):
    if bits == 2048:
        head = base64.b64decode("MIIEpAIBAAKCAQEA")
        n = 1192 - 12
    else:
        head = base64.b64decode("MIICXAIBAAKBgQ==")[:9]
        n = 608 - 9
    return fresh(lambda: base64.b64encode(head + rbytes(n)).decode())


def ec_p256_body():
    # SEC1 ECPrivateKey DER for prime256v1
    def f():
        der = bytes.fromhex("30770201010420") + rbytes(32) + bytes.fromhex("a00a06082a8648ce3d030107a144034200") + b"\x04" + rbytes(64)
        return base64.b64encode(der).decode()
    return fresh(f)


def cert_body(n=None):
    n = n or R.randrange(700, 1100)
    return fresh(lambda: base64.b64encode(b"\x30\x82" + struct.pack(">H", n - 4) + b"\x30\x82" + rbytes(n - 6)).decode())


POS = []
NEG = []


def positive(fn):
    POS.append((fn.__name__[2:], fn))
    return fn


def negative(fn):
    NEG.append((fn.__name__[2:], fn))
    return fn


# ================================================================ vendor formats
CISCO_XLAT = "dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87"


def cisco7(plain):
    seed = R.randrange(0, 16)
    return "%02d" % seed + "".join("%02X" % (ord(ch) ^ ord(CISCO_XLAT[(seed + i) % len(CISCO_XLAT)]))
                                  for i, ch in enumerate(plain))


def cisco_hash(t):
    if t == 5:
        return "$1$" + rs(4, CRYPT64) + "$" + rs(22, CRYPT64)
    return "$%d$" % t + rs(14, CRYPT64) + "$" + rs(43, CRYPT64)


def sha512crypt():
    return "$6$" + rs(R.choice([8, 16]), CRYPT64) + "$" + rs(86, CRYPT64)


def bcrypt_hash(cost=None, pre="$2y$"):
    return pre + "%02d" % (cost or pick([10, 11, 12])) + "$" + rs(53, CRYPT64)


def apr1():
    return "$apr1$" + rs(8, CRYPT64) + "$" + rs(22, CRYPT64)


def argon2id():
    return "$argon2id$v=19$m=65536,t=3,p=1$" + b64(16, pad=False) + "$" + b64(32, pad=False)


JUN_FAMILY = ["QzF3n6/9CAtpu0O", "B1IREhcSyrleKvMW8LXx", "7N-dVbwsY2g4oaJZGUDj", "iHkq.mPf5T"]
JUN_EXTRA = {}
for _i, _f in enumerate(JUN_FAMILY):
    for _c in _f:
        JUN_EXTRA[_c] = 3 - _i
JUN_NUM = "".join(JUN_FAMILY)
JUN_IDX = {c: i for i, c in enumerate(JUN_NUM)}
JUN_ENC = [[1, 4, 32], [1, 16, 32], [1, 8, 32], [1, 64], [1, 32], [1, 4, 16, 128], [1, 32, 64]]


def junos9(plain):
    def f():
        salt = R.choice(JUN_NUM)
        crypt = "$9$" + salt + "".join(R.choice(JUN_NUM) for _ in range(JUN_EXTRA[salt]))
        prev = salt
        for pos, ch in enumerate(plain):
            enc = JUN_ENC[pos % len(JUN_ENC)]
            o = ord(ch)
            gaps = []
            for x in reversed(enc):
                gaps.insert(0, o // x)
                o %= x
            for g in gaps:
                g += JUN_IDX[prev] + 1
                c = JUN_NUM[g % len(JUN_NUM)]
                prev = c
                crypt += c
        return crypt
    return fresh(f)


def ceph_key():
    def f():
        raw = struct.pack("<HIIH", 1, 1600000000 + R.randrange(0, 130000000), R.randrange(0, 999999999), 16) + rbytes(16)
        return base64.b64encode(raw).decode()
    return fresh(f)


def nkey_pub(prefix="U"):
    return prefix + rs(55, UPPER + "234567")


def cf_token():
    return rs(40, ALNUM + "_-")


def influx_token():
    return fresh(lambda: base64.urlsafe_b64encode(rbytes(64)).decode())


def b2_keyid():
    return "00" + hx(12) + "000000000" + str(R.randrange(1, 9))


def b2_appkey():
    return "K00" + str(R.randrange(1, 6)) + rs(27, ALNUM + "+/")


def wasabi_keyid():
    return rs(20, UPPER + DIGITS)


def pw_oracle():
    return pick(WORDS).capitalize() + "_" + rs(6, ALNUM) + "#" + str(R.randrange(10, 99))


def iso_local(c):
    return c.ts.tick().sql()


# ================================================================ positives: network devices
@positive
def p_cisco_ios_show_run():
    c = Ctx()
    dev = pick(["core-sw1", "dist-sw-%s" % c.site, "rtr-edge-02", "br-%s-r1" % c.site, "asr-wan1", "cat9k-idf3"])
    t = c.ts
    enable = cisco_hash(pick([5, 8, 9]))
    admin = pick(["netadmin", "nocadmin", c.user])
    p_bk = pw(pick([0, 2, 6]))
    p_tac = pw(pick([1, 2]))
    comm = pick(WORDS) + rs(6, ALNUM)
    comm2 = rs(12, ALNUM)
    isak = pw(pick([1, 2, 4]))
    ospf = pw(2)[:12]
    vty = pw(pick([0, 6]))
    lines = ["Building configuration...", "", "Current configuration : %d bytes" % R.randrange(6000, 22000), "!",
             "! Last configuration change at %02d:%02d:%02d UTC %s %s %d %d by %s" % (t.h, t.mi, t.s, t.wday(), MONTHS[t.mo - 1], t.d, t.y, admin),
             "!", "version %s" % pick(["15.2", "16.12", "17.6", "17.9"]),
             "service timestamps debug datetime msec", "service timestamps log datetime msec",
             "service password-encryption", "!", "hostname " + dev, "!", "boot-start-marker", "boot-end-marker", "!",
             "enable secret %s %s" % (enable[1], enable) if enable[1] != "1" else "enable secret 5 " + enable, "!",
             "username %s privilege 15 secret 9 %s" % (admin, cisco_hash(9)),
             "username backup privilege 5 password 7 " + M(cisco7(p_bk)),
             "aaa new-model", "!", "aaa group server tacacs+ ISE", " server name ise-%s-01" % c.site, "!",
             "aaa authentication login default group ISE local",
             "aaa authorization exec default group ISE local", "!",
             "tacacs server ise-%s-01" % c.site, " address ipv4 " + ip_priv(), " key 7 " + M(cisco7(p_tac)), "!"]
    if R.random() < 0.6:
        lines += ["crypto isakmp policy 10", " encr aes 256", " hash sha256", " authentication pre-share", " group 14",
                  "crypto isakmp key %s address %s" % (M(isak), ip_pub()), "!"]
    if R.random() < 0.6:
        lines += ["key chain OSPF-KEYS", " key 1", "  key-string 7 " + M(cisco7(ospf)),
                  "  cryptographic-algorithm hmac-sha-256", "!"]
    lines += ["interface GigabitEthernet0/0/%d" % R.randrange(0, 4), " description UPLINK-%s" % c.site.upper(),
              " ip address %s 255.255.255.252" % ip_priv(), " negotiation auto", "!",
              "snmp-server community %s RO SNMP-ACL" % M(comm)]
    if R.random() < 0.5:
        lines.append("snmp-server community %s RW 98" % M(comm2))
    lines += ["snmp-server location %s" % c.site.upper(), "!", "line con 0", " exec-timeout 15 0", "line vty 0 4",
              " password 7 " + M(cisco7(vty)), " transport input ssh", "!", "end"]
    out = "\n".join(lines)
    k = pick_frame()
    cmd = pick(["ssh %s@%s 'show running-config'" % (admin, dev),
                "ssh -o KexAlgorithms=+diffie-hellman-group14-sha1 %s@%s show run" % (admin, ip_priv()),
                "cat backups/%s/%s-%04d%02d%02d.cfg" % (c.site, dev, t.y, t.mo, t.d)])
    return render(k, c, [(cmd, out)])


@positive
def p_junos_display_set():
    c = Ctx()
    dev = pick(["mx-edge1", "srx-%s-01" % c.site, "ex4300-core", "qfx-leaf-07", "srx345-branch"])
    user = pick(["ops", "netconf", c.user])
    rad, tac, ike, bgp, ntp = pw(1), pw(2), pw(pick([1, 4])), pw(2)[:14], pw(1)[:16]
    comm = pick(WORDS) + "-" + rs(8, ALNUM)
    r_ip, t_ip, peer = ip_priv(), ip_priv(), ip_pub()
    setfmt = R.random() < 0.6
    if setfmt:
        lines = ['set system root-authentication encrypted-password "%s"' % sha512crypt(),
                 "set system login user %s uid 2001" % user, "set system login user %s class super-user" % user,
                 'set system login user %s authentication encrypted-password "%s"' % (user, sha512crypt()),
                 'set system radius-server %s secret "%s"' % (r_ip, M(junos9(rad))),
                 'set system radius-server %s source-address %s' % (r_ip, ip_priv()),
                 'set system tacplus-server %s secret "%s"' % (t_ip, M(junos9(tac))),
                 'set system ntp authentication-key 1 type sha256 value "%s"' % M(junos9(ntp)),
                 "set snmp community %s authorization read-only" % M(comm),
                 'set security ike policy IKE-POL-%s pre-shared-key ascii-text "%s"' % (c.site.upper(), M(junos9(ike))),
                 'set protocols bgp group EBGP-TRANSIT neighbor %s authentication-key "%s"' % (peer, M(junos9(bgp))),
                 "set protocols bgp group EBGP-TRANSIT neighbor %s peer-as %d" % (peer, R.randrange(64512, 65534))]
        R.shuffle(lines)
        cmd = 'show configuration | display set | match "secret|encrypted|pre-shared|authentication-key|community"'
        out = "\n".join(lines) + "\n\n{master:0}"
    else:
        lines = ["system {", "    root-authentication {",
                 '        encrypted-password "%s"; ## SECRET-DATA' % sha512crypt(), "    }",
                 "    radius-server {",
                 '        %s secret "%s"; ## SECRET-DATA' % (r_ip, M(junos9(rad))), "    }",
                 "    tacplus-server {", "        %s {" % t_ip,
                 '            secret "%s"; ## SECRET-DATA' % M(junos9(tac)), "            single-connection;", "        }", "    }",
                 "}", "security {", "    ike {", "        policy IKE-POL-%s {" % c.site.upper(), "            mode main;",
                 "            proposals IKE-AES256;",
                 '            pre-shared-key ascii-text "%s"; ## SECRET-DATA' % M(junos9(ike)), "        }", "    }", "}",
                 "snmp {", "    community %s {" % M(comm), "        authorization read-only;", "    }", "}"]
        cmd = "show configuration system | display omit; show configuration security ike; show configuration snmp"
        out = "\n".join(lines)
    pr = "%s@%s> " % (user, dev)
    sess = pr + cmd + "\n" + out + "\n\n" + pr
    k = pick_frame()
    if k == "prompt" or R.random() < 0.3:
        return render(k, c, [("ssh %s@%s" % (user, dev), "Last login: %s from %s\n--- JUNOS %s built %04d-%02d-%02d\n%s" % (
            c.ts.ctime(), ip_priv(), pick(["21.4R3-S5.4", "22.2R3.15", "23.2R1-S2.5"]), c.ts.y, c.ts.mo, c.ts.d, sess))])
    return render(k, c, [("ssh %s@%s \"%s\"" % (user, dev, cmd.replace('"', '\\"')), out)])


@positive
def p_mikrotik_export_sensitive():
    c = Ctx()
    ident = pick(["MikroTik-HQ", "rb5009-%s" % c.site, "ccr2004-edge", "hAP-lab", "crs326-core"])
    t = c.ts
    wg_priv = wgkey()
    wg_pub = wgkey()
    psk = wgkey()
    wifi = pw(pick([0, 3]))
    ipsec = pw(pick([1, 2]))
    ppp_users = [(pick(["rw-" + u for u in USERS]), pw(pick([1, 2, 6]))) for _ in range(R.randrange(1, 3))]
    rad = pw(1)[:18]
    snmp_a, snmp_p = pw(1), pw(1)
    ver = pick(["7.12.1", "7.14.2", "7.15.3", "7.16"])
    L_ = ["# %04d-%02d-%02d %02d:%02d:%02d by RouterOS %s" % (t.y, t.mo, t.d, t.h, t.mi, t.s, ver),
          "# software id = %s-%s" % (rs(4, UPPER + DIGITS), rs(4, UPPER + DIGITS)), "#",
          "# model = %s" % pick(["RB5009UG+S+", "CCR2004-1G-12S+2XS", "RBD53iG-5HacD2HnD", "CRS326-24G-2S+"]),
          "# serial number = %s" % rs(11, UPPER + DIGITS),
          "/interface wireguard",
          'add listen-port=%d mtu=1420 name=wg-%s private-key="%s"' % (R.randrange(13000, 52000), c.site, M(wg_priv))]
    if R.random() < 0.6:
        L_ += ["/interface wireless security-profiles",
               "set [ find default=yes ] supplicant-identity=MikroTik",
               "add authentication-types=wpa2-psk mode=dynamic-keys name=corp supplicant-identity=MikroTik wpa2-pre-shared-key=%s" % M(wifi)]
    L_ += ["/interface wireguard peers",
           'add allowed-address=10.66.%d.2/32 endpoint-address=%s endpoint-port=51820 interface=wg-%s name=peer1 preshared-key="%s" public-key="%s"'
           % (R.randrange(0, 255), ip_pub(), c.site, M(psk), wg_pub)]
    if R.random() < 0.7:
        L_ += ["/ip ipsec peer", "add address=%s/32 exchange-mode=ike2 name=dc2" % ip_pub(),
               "/ip ipsec identity", "add peer=dc2 secret=%s" % M(ipsec)]
    L_ += ["/ppp secret"] + ["add name=%s password=%s profile=vpn-profile service=l2tp" % (u, M(p)) for u, p in ppp_users]
    if R.random() < 0.6:
        L_ += ["/radius", "add address=%s secret=%s service=ppp,login,wireless" % (ip_priv(), M(rad))]
    if R.random() < 0.5:
        L_ += ["/snmp community",
               "set [ find default=yes ] disabled=yes",
               "add authentication-password=%s authentication-protocol=SHA1 encryption-password=%s encryption-protocol=AES name=nms security=private"
               % (M(snmp_a), M(snmp_p))]
    L_ += ["/system identity", "set name=" + ident]
    out = "\n".join(L_)
    if R.random() < 0.5:
        text = "[admin@%s] > /export show-sensitive\n%s\n[admin@%s] > " % (ident, out, ident)
        return render(pick_frame(), c, [("tmux capture-pane -pt net:%d -S -200" % R.randrange(1, 6), text)])
    return render(pick_frame(), c, [("ssh -p %d admin@%s '/export show-sensitive'" % (pick([22, 2222, 22022]), ip_priv()), out)])


@positive
def p_pfsense_config_xml():
    c = Ctx()
    psk = pw(pick([1, 4]))
    key_hex = [hx(32) for _ in range(16)]
    static = "#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----\n" + "\n".join(key_hex) + "\n-----END OpenVPN Static key V1-----\n"
    tls_b64 = base64.b64encode(static.encode()).decode()
    bindpw = pw(pick([0, 2, 6]))
    refid = lambda: hx(13)
    sect = []
    sect += ["\t<ipsec>", "\t\t<client></client>", "\t\t<phase1>", "\t\t\t<ikeid>%d</ikeid>" % R.randrange(1, 9),
             "\t\t\t<iketype>ikev2</iketype>", "\t\t\t<interface>wan</interface>",
             "\t\t\t<remote-gateway>%s</remote-gateway>" % ip_pub(), "\t\t\t<protocol>inet</protocol>",
             "\t\t\t<myid_type>myaddress</myid_type>", "\t\t\t<myid_data></myid_data>",
             "\t\t\t<peerid_type>peeraddress</peerid_type>", "\t\t\t<peerid_data></peerid_data>",
             "\t\t\t<encryption>", "\t\t\t\t<item>", "\t\t\t\t\t<encryption-algorithm>", "\t\t\t\t\t\t<name>aes</name>",
             "\t\t\t\t\t\t<keylen>256</keylen>", "\t\t\t\t\t</encryption-algorithm>",
             "\t\t\t\t\t<hash-algorithm>sha256</hash-algorithm>", "\t\t\t\t\t<prf-algorithm>sha256</prf-algorithm>",
             "\t\t\t\t\t<dhgroup>14</dhgroup>", "\t\t\t\t</item>", "\t\t\t</encryption>",
             "\t\t\t<lifetime>28800</lifetime>", "\t\t\t<pre-shared-key>%s</pre-shared-key>" % M(psk),
             "\t\t\t<private-key></private-key>", "\t\t\t<certref></certref>", "\t\t\t<caref></caref>",
             "\t\t\t<authentication_method>pre_shared_key</authentication_method>",
             "\t\t\t<descr><![CDATA[%s tunnel]]></descr>" % c.site.upper(), "\t\t\t<nat_traversal>on</nat_traversal>",
             "\t\t\t<mobike>off</mobike>", "\t\t\t<dpd_delay>10</dpd_delay>", "\t\t\t<dpd_maxfail>5</dpd_maxfail>",
             "\t\t</phase1>", "\t</ipsec>"]
    if R.random() < 0.7:
        sect += ["\t<openvpn>", "\t\t<openvpn-server>", "\t\t\t<vpnid>1</vpnid>", "\t\t\t<mode>server_tls_user</mode>",
                 "\t\t\t<authmode>Local Database</authmode>", "\t\t\t<protocol>UDP4</protocol>", "\t\t\t<dev_mode>tun</dev_mode>",
                 "\t\t\t<interface>wan</interface>", "\t\t\t<local_port>1194</local_port>",
                 "\t\t\t<description><![CDATA[Remote access]]></description>", "\t\t\t<custom_options></custom_options>",
                 "\t\t\t<tls>%s</tls>" % M(tls_b64), "\t\t\t<tls_type>auth</tls_type>",
                 "\t\t\t<caref>%s</caref>" % refid(), "\t\t\t<certref>%s</certref>" % refid(),
                 "\t\t\t<dh_length>2048</dh_length>", "\t\t\t<data_ciphers>AES-256-GCM,AES-128-GCM,CHACHA20-POLY1305</data_ciphers>",
                 "\t\t\t<digest>SHA256</digest>", "\t\t\t<tunnel_network>10.%d.%d.0/24</tunnel_network>" % (R.randrange(0, 255), R.randrange(0, 255)),
                 "\t\t</openvpn-server>", "\t</openvpn>"]
    if R.random() < 0.7:
        base = ",".join("dc=" + x for x in c.dom.split("."))
        sect += ["\t\t<authserver>", "\t\t\t<refid>%s</refid>" % refid(), "\t\t\t<type>ldap</type>",
                 "\t\t\t<name>AD %s</name>" % c.org, "\t\t\t<host>dc01.%s</host>" % c.dom,
                 "\t\t\t<ldap_port>636</ldap_port>", "\t\t\t<ldap_urltype>SSL/TLS Encrypted</ldap_urltype>",
                 "\t\t\t<ldap_basedn>%s</ldap_basedn>" % base,
                 "\t\t\t<ldap_binddn>CN=svc-pfsense,OU=Service Accounts,%s</ldap_binddn>" % base.upper().replace("DC=", "DC="),
                 "\t\t\t<ldap_bindpw>%s</ldap_bindpw>" % M(bindpw), "\t\t\t<ldap_attr_user>samAccountName</ldap_attr_user>",
                 "\t\t</authserver>",
                 "\t\t<user>", "\t\t\t<name>admin</name>", "\t\t\t<descr><![CDATA[System Administrator]]></descr>",
                 "\t\t\t<scope>system</scope>", "\t\t\t<groupname>admins</groupname>",
                 "\t\t\t<bcrypt-hash>%s</bcrypt-hash>" % bcrypt_hash(10), "\t\t\t<uid>0</uid>", "\t\t</user>"]
    out = "\n".join(sect)
    cmd = pick(["ssh admin@%s 'cat /cf/conf/config.xml' | sed -n '/<ipsec>/,/<\\/authserver>/p'" % ip_priv(),
                "sed -n '/<ipsec>/,$p' backups/config-fw01.%s-%d.xml | head -120" % (c.dom, c.ts.epoch()),
                "xmllint --xpath '//ipsec|//openvpn|//system/authserver|//system/user' config.xml"])
    return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c, [(cmd, out)])


@positive
def p_fortigate_cli_session():
    c = Ctx()
    fgt = pick(["FGT-HQ01", "FGT60F-%s" % c.site.upper(), "fw-%s-a" % c.site, "FG100F-EDGE"])
    tun = "to-" + pick(SITES)
    psk = pw(pick([1, 2, 4]))
    apiuser = pick(["netbox-sync", "terraform", "ansible-api", "monitoring-ro"])
    apikey = rs(30, ALNUM)
    ipub = ip_pub()
    L_ = ["%s # config vpn ipsec phase1-interface" % fgt,
          "",
          "%s (phase1-interface) # edit \"%s\"" % (fgt, tun),
          "new entry '%s' added" % tun,
          "",
          "%s (%s) # set interface \"wan1\"" % (fgt, tun),
          "",
          "%s (%s) # set ike-version 2" % (fgt, tun),
          "",
          "%s (%s) # set peertype any" % (fgt, tun),
          "",
          "%s (%s) # set net-device disable" % (fgt, tun),
          "",
          "%s (%s) # set proposal aes256gcm-prfsha384 aes256-sha256" % (fgt, tun),
          "",
          "%s (%s) # set remote-gw %s" % (fgt, tun, ipub),
          "",
          "%s (%s) # set psksecret %s" % (fgt, tun, M(psk)),
          "",
          "%s (%s) # next" % (fgt, tun),
          "",
          "%s (phase1-interface) # end" % fgt,
          "",
          "%s # config system api-user" % fgt,
          "",
          "%s (api-user) # edit \"%s\"" % (fgt, apiuser),
          "new entry '%s' added" % apiuser,
          "",
          "%s (%s) # set accprofile \"super_admin_readonly\"" % (fgt, apiuser),
          "",
          "%s (%s) # set vdom \"root\"" % (fgt, apiuser),
          "",
          "%s (%s) # config trusthost" % (fgt, apiuser),
          "",
          "%s (trusthost) # edit 1" % fgt,
          "new entry '1' added",
          "",
          "%s (1) # set ipv4-trusthost %s 255.255.255.255" % (fgt, ip_priv()),
          "",
          "%s (1) # end" % fgt,
          "",
          "%s (%s) # end" % (fgt, apiuser),
          "",
          "%s # execute api-user generate-key %s" % (fgt, apiuser),
          "New API key: " + M(apikey),
          "",
          "NOTE: The bearer of this API key will be granted all access privileges assigned to the api-user %s." % apiuser,
          "",
          "%s # " % fgt]
    first = render(pick_frame(), c, [("cat ~/sessions/%s-%04d%02d%02d.log" % (fgt.lower(), c.ts.y, c.ts.mo, c.ts.d), "\n".join(L_))])
    if R.random() < 0.6:
        st = '{\n  "http_method":"GET",\n  "results":{\n    "model_name":"FortiGate",\n    "model_number":"%s",\n    "model":"%s",\n    "hostname":"%s",\n    "log_disk_status":"available"\n  },\n  "vdom":"root",\n  "path":"system",\n  "name":"status",\n  "status":"success",\n  "serial":"FG%s",\n  "version":"v7.2.%d",\n  "build":%d\n}' % (
            pick(["60F", "100F", "200F"]), pick(["FGT60F", "FG100F", "FG200F"]), fgt, rs(14, UPPER + DIGITS), R.randrange(4, 9), R.randrange(1500, 1700))
        first += "\n\n" + render(pick_frame(), c, [("curl -sk -H 'Authorization: Bearer %s' https://%s/api/v2/monitor/system/status" % (M(apikey), ip_priv()), st)])
    return first


@positive
def p_vyos_show_commands():
    c = Ctx()
    h = pick(["vyos-edge-%s" % c.site, "vyos-br%d" % R.randrange(1, 9), "gw-%s" % c.site])
    priv, pub, psk = wgkey(), wgkey(), wgkey()
    ipsec = pw(pick([1, 4]))
    l2 = pw(pick([0, 2, 6]))
    comm = pick(WORDS) + rs(5, DIGITS + LOWER)
    vrrp = rs(8, ALNUM)
    lines = ["set interfaces wireguard wg0 address '10.%d.0.1/24'" % R.randrange(0, 255),
             "set interfaces wireguard wg0 port '51820'",
             "set interfaces wireguard wg0 private-key '%s'" % M(priv),
             "set interfaces wireguard wg0 peer hq allowed-ips '10.0.0.0/8'",
             "set interfaces wireguard wg0 peer hq address '%s'" % ip_pub(),
             "set interfaces wireguard wg0 peer hq public-key '%s'" % pub,
             "set interfaces wireguard wg0 peer hq preshared-key '%s'" % M(psk),
             "set service snmp community %s authorization 'ro'" % M(comm),
             "set system login user vyos authentication encrypted-password '%s'" % sha512crypt(),
             "set system login user vyos authentication plaintext-password ''",
             "set vpn ipsec authentication psk DC2 id '%s'" % ip_pub(),
             "set vpn ipsec authentication psk DC2 secret '%s'" % M(ipsec)]
    if R.random() < 0.6:
        lines.append("set vpn l2tp remote-access authentication local-users username %s password '%s'" % (pick(USERS), M(l2)))
    if R.random() < 0.5:
        lines.append("set high-availability vrrp group LAN authentication password '%s'" % M(vrrp))
        lines.append("set high-availability vrrp group LAN authentication type 'plaintext-password'")
    lines.sort()
    out = "\n".join(lines)
    cmd = 'show configuration commands | match "key|secret|password|community"'
    if R.random() < 0.5:
        return render(pick_frame(), c, [("ssh vyos@%s" % h, "Welcome to VyOS!\n\n   \u250c\u2500\u2500 \u250c\u2500\u2500\nVersion:          VyOS 1.4.0\n\nvyos@%s:~$ %s\n%s\nvyos@%s:~$ exit\nlogout\nConnection to %s closed." % (h, cmd, out, h, h))])
    return render(pick_frame(), c, [("ssh vyos@%s 'source /opt/vyatta/etc/functions/script-template; run show configuration commands' | grep -E 'key|secret|password|community'" % h, out)])


# ================================================================ positives: VPNs
@positive
def p_wg_show_preshared_keys():
    c = Ctx()
    iface = pick(["wg0", "wg-site", "wg1", "wgmesh"])
    peers = []
    for i in range(R.randrange(2, 5)):
        peers.append((wgkey(), wgkey() if R.random() < 0.7 else None))
    if all(p[1] is None for p in peers):
        peers[0] = (peers[0][0], wgkey())
    priv = wgkey()
    out1 = "\n".join("%s\t%s" % (pub, M(psk) if psk else "(none)") for pub, psk in peers)
    steps = [("sudo wg show %s preshared-keys" % iface, out1)]
    if R.random() < 0.6:
        steps.append(("sudo wg show %s private-key" % iface, M(priv)))
    if R.random() < 0.5:
        steps.append(("sudo wg show %s listen-port" % iface, str(R.randrange(40000, 60000))))
    return render(pick_frame(), c, steps, root=R.random() < 0.2)


@positive
def p_swanctl_conf_secrets():
    c = Ctx()
    a, b = "fw1.%s" % c.dom, "fw-%s.%s" % (c.site, c.dom)
    psk_raw = rbytes(R.choice([24, 32]))
    psk = "0s" + base64.b64encode(psk_raw).decode() if R.random() < 0.5 else pw(pick([1, 3]))
    _reg(psk)
    eap_user = pick(USERS)
    eap = pw(pick([0, 2, 6]))
    keypass = pw(3)
    conf = ["connections {", "   %s {" % c.site, "      version = 2", "      local_addrs = %s" % ip_pub(),
            "      remote_addrs = %s" % ip_pub(), "      proposals = aes256gcm16-prfsha384-ecp384",
            "      local {", "         auth = psk", "         id = %s" % a, "      }",
            "      remote {", "         auth = psk", "         id = %s" % b, "      }",
            "      children {", "         net {", "            local_ts = 10.%d.0.0/16" % R.randrange(0, 255),
            "            remote_ts = 10.%d.0.0/16" % R.randrange(0, 255),
            "            esp_proposals = aes256gcm16-ecp384", "            start_action = trap", "         }", "      }",
            "   }", "}", "", "secrets {", "   ike-%s {" % c.site, "      id-1 = %s" % a, "      id-2 = %s" % b,
            "      secret = %s" % (('"%s"' % M(psk)) if not psk.startswith("0s") else M(psk)), "   }"]
    if R.random() < 0.7:
        conf += ["   eap-%s {" % eap_user, "      id = %s@%s" % (eap_user, c.dom), '      secret = "%s"' % M(eap), "   }"]
    if R.random() < 0.4:
        conf += ["   private-rw {", "      file = rw-%s.key" % c.site, '      secret = "%s"' % M(keypass), "   }"]
    conf += ["}"]
    path = "/etc/swanctl/conf.d/%s.conf" % c.site
    load = ["loaded ike secret 'ike-%s'" % c.site]
    if any("eap-" in x for x in conf):
        load.append("loaded eap secret 'eap-%s'" % eap_user)
    if any("private-rw" in x for x in conf):
        load.append("loaded key %s from 'rw-%s.key'" % (hx(40), c.site))
    load += ["no authorities found, 0 unloaded", "no pools found, 0 unloaded", "loaded connection '%s'" % c.site,
             "successfully loaded 1 connections, 0 unloaded"]
    return show_file(c, path, "\n".join(conf), sudo=True, extra_steps=[("sudo swanctl --load-all", "\n".join(load))])


@positive
def p_headscale_preauthkeys():
    c = Ctx()
    hs = "hs.%s" % c.dom
    user = pick(["ops", "servers", "k8s-nodes", "lab", c.user])
    key = hx(48)
    api = rs(7, B64URL) + "." + rs(32, B64URL)
    t = c.ts
    steps = [("headscale preauthkeys create --user %s --reusable --expiration 24h" % user, M(key))]
    if R.random() < 0.6:
        t2 = TS()
        tbl = ("ID | Key                                              | Reusable | Ephemeral | Used  | Expiration          | Created             | Tags\n"
               "%-2d | %s | true     | false     | false | %s | %s | \n" % (R.randrange(1, 40), M(key), t2.sql(), t.sql()))
        tbl += "%-2d | %s | false    | true      | true  | %s | %s | tag:ci" % (R.randrange(41, 90), M(hx(48)), TS().sql(), TS().sql())
        steps.append(("headscale preauthkeys list --user %s" % user, tbl))
    if R.random() < 0.6:
        steps.append(("headscale apikeys create --expiration 90d", M(api)))
    steps.append(("sudo tailscale up --login-server https://%s --authkey %s --advertise-routes=10.%d.0.0/24 --accept-dns=false"
                  % (hs, M(key), R.randrange(0, 255)), ""))
    return render(pick_frame(), c, steps, root=R.random() < 0.3)


@positive
def p_zerotier_idtool_secret():
    c = Ctx()
    addr = hx(10)
    pub = hx(128)
    priv = hx(128)
    auth = rs(24, LOWER + DIGITS)
    central = rs(32, ALNUM)
    nwid = hx(16)
    steps = []
    if R.random() < 0.6:
        steps.append(("zerotier-idtool generate identity.secret identity.public", "identity.secret written\nidentity.public written"))
        steps.append(("cat identity.secret", "%s:0:%s:%s" % (addr, pub, M(priv))))
    else:
        steps.append(("sudo cat /var/lib/zerotier-one/identity.secret", "%s:0:%s:%s" % (addr, pub, M(priv))))
    steps.append(("sudo cat /var/lib/zerotier-one/authtoken.secret", M(auth)))
    steps.append(("zerotier-cli -T%s info" % M(auth), "200 info %s 1.14.0 ONLINE" % addr))
    if R.random() < 0.7:
        mem = []
        for _ in range(R.randrange(2, 4)):
            mem.append('{"nodeId":"%s","name":"%s","authorized":%s}' % (hx(10), pick(HOSTS), pick(["true", "false"])))
        steps.append(('curl -s -H "Authorization: token %s" https://api.zerotier.com/api/v1/network/%s/member | jq -c \'.[] | {nodeId, name, authorized: .config.authorized}\'' % (M(central), nwid),
                      "\n".join(mem)))
    return render(pick_frame(), c, steps)


@positive
def p_nebula_cert_keys():
    c = Ctx()
    name = pick(["lighthouse1", "lh-%s" % c.site, pick(HOSTS)])
    ca_body = b64(64)
    host_body = b64(32)
    if R.random() < 0.5:
        k = pick_frame()
        pl = prefixed(k)
        steps = [('nebula-cert ca -name "%s overlay" -duration 17520h' % c.org.capitalize(), ""),
                 ('nebula-cert sign -name "%s" -ip "192.168.%d.1/24" -groups "lighthouse,infra"' % (name, R.randrange(100, 200)), ""),
                 ("ls", "ca.crt  ca.key  %s.crt  %s.key" % (name, name)),
                 ("cat ca.key %s.key" % name, pem("NEBULA ED25519 PRIVATE KEY", ca_body, pl) + "\n" + pem("NEBULA X25519 PRIVATE KEY", host_body, pl))]
        return render(k, c, steps)
    cert = b64(R.randrange(230, 260))
    body = ["pki:", "  ca: |", "    -----BEGIN NEBULA CERTIFICATE-----"]
    body += ["    " + cert[i:i + 64] for i in range(0, len(cert), 64)]
    body += ["    -----END NEBULA CERTIFICATE-----", "  cert: /etc/nebula/host.crt", "  key: |",
             "    -----BEGIN NEBULA X25519 PRIVATE KEY-----", "    " + M(host_body),
             "    -----END NEBULA X25519 PRIVATE KEY-----", "", "static_host_map:",
             '  "192.168.%d.1": ["%s:4242"]' % (R.randrange(100, 200), ip_pub()), "", "lighthouse:", "  am_lighthouse: false",
             "  interval: 60", "  hosts:", '    - "192.168.100.1"', "", "listen:", "  host: 0.0.0.0", "  port: 4242",
             "", "punchy:", "  punch: true", "", "tun:", "  dev: nebula1", "  mtu: 1300"]
    return show_file(c, "/etc/nebula/config.yml", "\n".join(body), sudo=True)


@positive
def p_openconnect_authenticate():
    c = Ctx()
    gw = "vpn.%s" % c.dom
    pwd = pw(pick([0, 2, 6]))
    gwip = ip_pub()
    pin = b64(32)
    gp = R.random() < 0.4
    user = c.user
    cmd = "echo '%s' | openconnect --authenticate -v --user=%s --passwd-on-stdin %s%s" % (M(pwd), user, "--protocol=gp " if gp else "", gw)
    lines = ["POST https://%s/" % gw, "Attempting to connect to server %s:443" % gwip, "Connected to %s:443" % gwip,
             "SSL negotiation with %s" % gw,
             "Connected to HTTPS on %s with ciphersuite (TLS1.3)-(ECDHE-SECP256R1)-(RSA-PSS-RSAE-SHA256)-(AES-256-GCM)" % gw,
             "Got HTTP response: HTTP/1.1 200 OK"]
    if gp:
        ac = hx(32)
        lines += ["GlobalProtect login returned authentication-source=local", "Portal reports GlobalProtect version 10.2.4; we will report the same client version.",
                  "GlobalProtect login returned authentication-source=local",
                  "COOKIE='authcookie=%s&portal=GP-Portal&user=%s&domain=%%28empty_domain%%29&computer=%s&preferred-ip=10.%d.%d.%d'"
                  % (M(ac), user, c.host, R.randrange(0, 255), R.randrange(0, 255), R.randrange(2, 250))]
    else:
        ck = "%s@%d@%s@%s" % (hx(40, True), R.randrange(10000, 99999), hx(4, True), hx(40, True))
        _reg(ck)
        lines += ["XML POST enabled", "Please enter your username and password.", "POST https://%s/" % gw,
                  "Got HTTP response: HTTP/1.1 200 OK", "COOKIE='%s'" % M(ck)]
    lines += ["HOST='%s'" % gwip, "CONNECT_URL='https://%s/'" % gw, "FINGERPRINT='pin-sha256:%s'" % pin, "RESOLVE='%s:%s'" % (gw, gwip)]
    return render(pick_frame(), c, [(cmd, "\n".join(lines))])


# ================================================================ positives: RADIUS, LDAP, Kerberos
@positive
def p_freeradius_clients_conf():
    c = Ctx()
    secs = []
    body = ["client localhost {", "\tipaddr = 127.0.0.1", "\tproto = *"]
    s0 = pw(1)
    secs.append(s0)
    body += ["\tsecret = %s" % M(s0), "\trequire_message_authenticator = no", "\tnas_type\t = other", "\tlimit {",
             "\t\tmax_connections = 16", "\t\tlifetime = 0", "\t\tidle_timeout = 30", "\t}", "}", ""]
    for i in range(R.randrange(2, 4)):
        nm = pick(["sw-core-%02d" % R.randrange(1, 9), "wlc-%s" % c.site, "vpn-asa-%d" % R.randrange(1, 4),
                   "ap-ctrl-%s" % pick(SITES), "fw-%s" % pick(SITES), "nas-%02d" % R.randrange(10, 40)])
        s = pw(pick([1, 2, 4]))
        secs.append(s)
        body += ["client %s {" % nm, "\tipaddr\t\t= %s%s" % (ip_priv(), pick(["", "/32", ""])),
                 "\tsecret\t\t= %s" % M(s) if R.random() < 0.7 else '\tsecret\t\t= "%s"' % M(s),
                 "\tshortname\t= %s" % nm, "\tnastype\t\t= %s" % pick(["cisco", "other", "juniper"]),
                 "\trequire_message_authenticator = %s" % pick(["yes", "no"]), "}", ""]
    steps = None
    if R.random() < 0.5:
        hp = M(pw(2))
        srv = ip_priv()
        idn = R.randrange(0, 255)
        pt = R.randrange(30000, 60000)
        steps = [("echo 'User-Name = healthcheck, User-Password = %s' | radclient -x %s:1812 auth %s" % (hp, srv, M(secs[-1])),
                  "Sent Access-Request Id %d from 0.0.0.0:%d to %s:1812 length 58\n\tUser-Name = \"healthcheck\"\n\tUser-Password = \"%s\"\n"
                  "Received Access-Reject Id %d from %s:1812 to 0.0.0.0:%d length 20\n(0) -: Expected Access-Accept got Access-Reject"
                  % (idn, pt, srv, hp, idn, srv, pt))]
    path = pick(["/etc/freeradius/3.0/clients.conf", "/etc/raddb/clients.conf"])
    return show_file(c, path, "\n".join(body).rstrip("\n"), sudo=True, extra_steps=steps)


@positive
def p_freeradius_users_radtest():
    c = Ctx()
    users = []
    lines = []
    for _ in range(R.randrange(2, 4)):
        u = pick(USERS) + pick(["", "-vpn", "-wifi", ""])
        p = pw(pick([0, 2, 6]))
        users.append((u, p))
        lines.append('%s\tCleartext-Password := "%s"' % (u, M(p)))
        lines.append(pick(['\tReply-Message := "Hello, %{User-Name}"', "\tFramed-IP-Address = 10.8.0.%d" % R.randrange(10, 250),
                           '\tFilter-Id := "ops-acl"']))
    lines += ["", "DEFAULT\tFramed-Protocol == PPP", "\tFramed-Protocol = PPP,", "\tFramed-Compression = Van-Jacobson-TCP-IP"]
    u, p = users[0]
    sec = pw(1)[:16]
    idn = R.randrange(0, 255)
    port = R.randrange(30000, 61000)
    rt = ("Sent Access-Request Id %d from 0.0.0.0:%d to 127.0.0.1:1812 length %d\n\tUser-Name = \"%s\"\n\tUser-Password = \"%s\"\n"
          "\tNAS-IP-Address = 127.0.1.1\n\tNAS-Port = 0\n\tMessage-Authenticator = 0x00\n\tCleartext-Password = \"%s\"\n"
          "Received Access-Accept Id %d from 127.0.0.1:1812 to 127.0.0.1:%d length %d\n\tReply-Message = \"Hello, %s\""
          % (idn, port, R.randrange(70, 90), u, M(p), M(p), idn, port, R.randrange(30, 50), u))
    path = "/etc/freeradius/3.0/mods-config/files/authorize"
    return show_file(c, path, "\n".join(lines), sudo=True, views=["cat", "cat -n", "sed", "read", "bat"],
                     extra_steps=[("radtest %s '%s' localhost 0 %s" % (u, M(p), M(sec)), rt)])


@positive
def p_sssd_conf_authtok():
    c = Ctx()
    base = ",".join("dc=" + x for x in ("corp." + c.dom).split("."))
    obf = R.random() < 0.45
    if obf:
        tok = "AAAQA" + rs(R.choice([91, 107, 123]), B64)
    else:
        tok = pw(pick([1, 2, 6]))
    dom = "corp." + c.dom
    body = ["[sssd]", "config_file_version = 2", "services = nss, pam, sudo, ssh", "domains = %s" % dom, "",
            "[domain/%s]" % dom, "id_provider = ldap", "auth_provider = ldap", "chpass_provider = ldap",
            "ldap_uri = ldaps://ldap1.%s, ldaps://ldap2.%s" % (dom, dom), "ldap_search_base = " + base,
            "ldap_default_bind_dn = cn=sssd-bind,ou=services," + base,
            "ldap_default_authtok_type = %s" % ("obfuscated_password" if obf else "password"),
            "ldap_default_authtok = %s" % M(tok), "ldap_tls_reqcert = demand",
            "ldap_tls_cacert = /etc/pki/tls/certs/ca-bundle.crt", "cache_credentials = True", "enumerate = False",
            "ldap_id_use_start_tls = False", "access_provider = simple", "simple_allow_groups = ops, %s-admins" % c.org, "",
            "[pam]", "offline_credentials_expiration = 7"]
    return show_file(c, "/etc/sssd/sssd.conf", "\n".join(body), sudo=True,
                     extra_steps=[("sudo sssctl config-check", "Issues identified by validators: 0\n\nMessages generated during configuration merging: 0\n\nUsed configuration snippet files: 0")] if R.random() < 0.5 else None)


@positive
def p_ldapmodify_syncrepl_ldif():
    c = Ctx()
    base = ",".join("dc=" + x for x in c.dom.split("."))
    cred = pw(pick([1, 2, 4]))
    admin_pw = pw(pick([0, 6]))
    new_pw = pw(pick([0, 2, 6]))
    ldif = ["dn: olcDatabase={1}mdb,cn=config", "changetype: modify", "add: olcSyncrepl",
            'olcSyncrepl: rid=00%d provider=ldaps://ldap1.%s binddn="cn=replicator,%s" bindmethod=simple credentials=%s searchbase="%s" type=refreshAndPersist retry="5 5 300 +" timeout=1'
            % (R.randrange(1, 9), c.dom, base, M(cred), base), "-", "add: olcUpdateRef", "olcUpdateRef: ldaps://ldap1.%s" % c.dom]
    k = pick_frame()
    steps = [("cat ldif/syncrepl-consumer.ldif", "\n".join(ldif)),
             ("sudo ldapmodify -H ldapi:/// -Y EXTERNAL -f ldif/syncrepl-consumer.ldif",
              "SASL/EXTERNAL authentication started\nSASL username: gidNumber=0+uidNumber=0,cn=peercred,cn=external,cn=auth\nSASL SSF: 0\nmodifying entry \"olcDatabase={1}mdb,cn=config\"")]
    if R.random() < 0.7:
        u = pick(USERS)
        steps.append(("ldappasswd -H ldaps://ldap1.%s -x -D 'cn=admin,%s' -w '%s' -s '%s' 'uid=%s,ou=people,%s'" % (c.dom, base, M(admin_pw), M(new_pw), u, base), ""))
    return render(k, c, steps)


@positive
def p_klist_kte_keys():
    c = Ctx()
    host = pick(["web01", "nfs02", "app-%s" % c.site, "jump01", "db03"])
    fq = "%s.%s" % (host, c.dom.lower())
    realm = c.realm
    if R.random() < 0.6:
        t = c.ts
        kv = R.randrange(2, 9)
        rows = []
        princs = ["host/%s@%s" % (fq, realm)] + pick([[], ["%s$@%s" % (host.upper(), realm)], ["HTTP/%s@%s" % (fq, realm)]])
        for p in princs:
            for et, n in [("aes256-cts-hmac-sha1-96", 64), ("aes128-cts-hmac-sha1-96", 32)] + ([("arcfour-hmac", 32)] if R.random() < 0.3 else []):
                rows.append("%4d %s %s (%s)  (0x%s)" % (kv, t.us(), p, et, M(hx(n))))
        out = "Keytab name: FILE:/etc/krb5.keytab\nKVNO Timestamp           Principal\n---- ------------------- ------------------------------------------------------\n" + "\n".join(rows)
        return render(pick_frame(), c, [("sudo klist -kteK /etc/krb5.keytab", out)])
    svc = pick(["svc-http", "svc-nfs", "svc-airflow", "svc-jenkins"])
    k1 = hx(64)
    sess = ("ktutil:  addent -password -p %s@%s -k 1 -e aes256-cts-hmac-sha1-96\nPassword for %s@%s: \n"
            "ktutil:  wkt /tmp/%s.keytab\nktutil:  list -k\nslot KVNO Principal\n---- ---- ---------------------------------------------------------------------\n"
            "   1    1 %s@%s (0x%s)\nktutil:  q" % (svc, realm, svc, realm, svc, svc, realm, M(k1)))
    return render(pick_frame(), c, [("ktutil", sess)])


# ================================================================ positives: mail
@positive
def p_dovecot_passwd_file():
    c = Ctx()
    rows = []
    plains = []
    for i in range(R.randrange(3, 6)):
        u = pick(USERS + ["alerts", "noreply", "helpdesk", "scanner", "billing", "postmaster"]) + "@" + c.dom
        kind = R.randrange(4)
        if kind in (0, 1) or (i == 0):
            p = pw(pick([0, 1, 2, 6]))
            plains.append((u, p))
            val = "{PLAIN}" + M(p)
        elif kind == 2:
            val = "{SHA512-CRYPT}" + sha512crypt()
        else:
            val = "{ARGON2ID}" + argon2id()
        rows.append("%s:%s:5000:5000::/var/vmail/%s/%s::userdb_quota_rule=*:storage=%dG" % (u, val, c.dom, u.split("@")[0], pick([1, 2, 5, 10])))
    steps = []
    if R.random() < 0.6:
        u, p = plains[0]
        steps.append(("doveadm auth test %s '%s'" % (u, M(p)), "passdb: %s auth succeeded\nextra fields:\n  user=%s" % (u, u)))
    if R.random() < 0.4:
        dbp = pw(1)
        steps.append(("sudo grep -v '^#' /etc/dovecot/dovecot-sql.conf.ext | sed '/^$/d'",
                      "driver = pgsql\nconnect = host=127.0.0.1 dbname=mail user=dovecot password=%s\ndefault_pass_scheme = ARGON2ID\npassword_query = SELECT username AS user, password FROM mailbox WHERE username = '%%u' AND active = true" % M(dbp)))
    return show_file(c, "/etc/dovecot/users", "\n".join(rows), sudo=True, extra_steps=steps or None)


@positive
def p_opendkim_private_key():
    c = Ctx()
    sel = pick(["mail", "s%d" % c.ts.y, "mail%d" % c.ts.y, "default", "k%d%02d" % (c.ts.y, c.ts.mo)])
    bits = pick([1024, 2048, 2048])
    body = rsa_pkcs1_body(bits)
    k = pick_frame()
    pl = prefixed(k)
    d = "/etc/opendkim/keys/%s" % c.dom
    pub = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + rs(300, B64) + "IDAQAB" if bits == 2048 else "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ" + rs(172, B64) + "IDAQAB"
    steps = []
    if R.random() < 0.5:
        steps.append(("sudo opendkim-genkey -b %d -d %s -D %s -s %s -v" % (bits, c.dom, d, sel),
                      "opendkim-genkey: generating private key\nopendkim-genkey: private key written to %s.private\nopendkim-genkey: extracting public key\nopendkim-genkey: DNS TXT record written to %s.txt" % (sel, sel)))
    steps.append(("sudo cat %s/%s.private" % (d, sel), pem("RSA PRIVATE KEY", body, pl)))
    if R.random() < 0.6:
        txt = '%s._domainkey\tIN\tTXT\t( "v=DKIM1; h=sha256; k=rsa; "\n\t  "p=%s"\n\t  "%s" )  ; ----- DKIM key %s for %s' % (sel, pub[:250], pub[250:], sel, c.dom)
        steps.append(("sudo cat %s/%s.txt" % (d, sel), txt))
    return render(k, c, steps)


@positive
def p_fetchmailrc():
    c = Ctx()
    p1 = pw(pick([0, 2, 6]))
    p2 = pw(pick([1, 3]))
    u1 = "%s@%s" % (c.user, c.dom)
    srv1 = pick(["imap.fastmail.com", "outlook.office365.com", "imap.%s" % c.dom, "mail.gandi.net"])
    rc = ["set daemon 300", "set logfile ~/.fetchmail.log", 'set postmaster "%s"' % c.user, "",
          "poll %s with proto IMAP port 993" % srv1,
          "    user '%s' there with password '%s' is '%s' here" % (u1, M(p1), c.user),
          "    options ssl sslcertck keep fetchall", "    folder INBOX"]
    if R.random() < 0.6:
        rc += ["", "poll pop.%s proto POP3 uidl" % pick(DOMAINS),
               '    user "helpdesk" there with password "%s" is helpdesk here options ssl' % M(p2)]
    steps = None
    if R.random() < 0.6:
        t = c.ts
        v = ["fetchmail: 6.4.37 querying %s (protocol IMAP) at %s: poll started" % (srv1, t.ctime()),
             "Trying to connect to %s/993...connected." % ip_pub(),
             "fetchmail: Server certificate:", "fetchmail: Issuer Organization: Let's Encrypt", "fetchmail: Issuer CommonName: R11",
             "fetchmail: Subject CommonName: %s" % srv1, "fetchmail: Subject Alternative Name: %s" % srv1,
             "fetchmail: %s key fingerprint: %s" % (srv1, ":".join(hx(2, True) for _ in range(16))),
             "fetchmail: %s fingerprints match." % srv1 if R.random() < 0.3 else "fetchmail: Server certificate verification: OK",
             "fetchmail: IMAP< * OK IMAP4 ready", "fetchmail: IMAP> A0001 CAPABILITY",
             "fetchmail: IMAP< * CAPABILITY IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE IDLE AUTH=PLAIN",
             "fetchmail: IMAP< A0001 OK Pre-login capabilities listed, post-login capabilities have more.",
             'fetchmail: IMAP> A0002 LOGIN "%s" *' % u1, "fetchmail: IMAP< A0002 OK Logged in",
             "fetchmail: IMAP> A0003 SELECT \"INBOX\"", "fetchmail: IMAP< * %d EXISTS" % R.randrange(0, 900),
             "fetchmail: No mail for %s at %s" % (u1, srv1), "fetchmail: IMAP> A0004 LOGOUT",
             "fetchmail: 6.4.37 querying %s (protocol IMAP) at %s: poll completed" % (srv1, t.tick().ctime()),
             "fetchmail: normal termination, status 1"]
        steps = [("fetchmail -v -c", "\n".join(v))]
    return show_file(c, "~/.fetchmailrc", "\n".join(rc), extra_steps=steps)


@positive
def p_muttrc_imap_smtp():
    c = Ctx()
    p = pw(pick([0, 2, 6]), urlsafe=True)
    ref = R.random() < 0.35
    p2 = pw(pick([1, 6]), urlsafe=True)
    mailhost = pick(["mail.%s" % c.dom, "imap.%s" % c.dom, "mx1.%s" % c.dom])
    smtp = pick(["smtp.%s" % c.dom, "mail.%s" % c.dom])
    rc = ['set realname = "%s"' % c.user.capitalize(), 'set from = "%s@%s"' % (c.user, c.dom),
          'set imap_user = "%s@%s"' % (c.user, c.dom)]
    if ref:
        rc.append('set imap_pass = "`pass show mail/%s`"' % c.dom)
    else:
        rc.append('set imap_pass = "%s"' % M(p))
    rc += ['set folder = "imaps://%s:993"' % mailhost, 'set spoolfile = "+INBOX"', 'set postponed = "+Drafts"',
           'set record = "+Sent"', 'set smtp_url = "smtps://%s:%s@%s:465/"' % (c.user, M(p2), smtp),
           'set smtp_authenticators = "login"', "set ssl_force_tls = yes", "set header_cache = ~/.cache/mutt/headers",
           "set message_cachedir = ~/.cache/mutt/bodies", "set sort = threads", "set mail_check = 120"]
    return show_file(c, pick(["~/.muttrc", "~/.config/mutt/muttrc", "~/.mutt/accounts/%s" % c.org]), "\n".join(rc))


# ================================================================ positives: DNS
@positive
def p_tsig_keygen_named_conf():
    c = Ctx()
    alg = pick(["hmac-sha256", "hmac-sha512"])
    name = pick(["ddns-external-dns", "k8s-%s-updater" % c.site, "acme-dns01", "xfr-%s" % c.site, "dhcp-ddns"])
    sec = b64(32 if alg == "hmac-sha256" else 64)
    zone = pick(["k8s.", "dyn.", "int.", "lab."]) + c.dom
    steps = [("tsig-keygen -a %s %s | sudo tee /etc/bind/keys/%s.key" % (alg, name, name),
              'key "%s" {\n\talgorithm %s;\n\tsecret "%s";\n};' % (name, alg, M(sec)))]
    steps.append(("sudo sed -n '/zone \"%s\"/,/^};/p' /etc/bind/named.conf.local" % zone,
                  'zone "%s" {\n\ttype master;\n\tfile "/var/lib/bind/db.%s";\n\tupdate-policy { grant %s zonesub ANY; };\n\tallow-transfer { key %s; };\n};' % (zone, zone, name, name)))
    if R.random() < 0.6:
        steps.append(("grep -A6 rfc2136 deploy/external-dns/values.yaml",
                      "rfc2136:\n  host: \"%s\"\n  port: 53\n  zone: \"%s\"\n  tsigSecret: \"%s\"\n  tsigSecretAlg: %s\n  tsigKeyname: %s" % (ip_priv(), zone, M(sec), alg, name)))
    steps.append(("sudo named-checkconf && sudo rndc reload", "server reload successful"))
    return render(pick_frame(), c, steps)


@positive
def p_nsupdate_debug_y():
    c = Ctx()
    alg = pick(["hmac-sha256", "hmac-sha512"])
    kn = pick(["acme-upd", "ddns", "certbot-%s" % c.site, "upd-%s" % c.org])
    sec = b64(32 if alg == "hmac-sha256" else 64)
    rec = "_acme-challenge.%s.%s." % (pick(["www", "api", "vpn", "mail", "grafana"]), c.dom)
    tok = b64url(32)
    t = c.ts.epoch()
    qid, uid = R.randrange(1000, 65000), R.randrange(1000, 65000)
    mac1, mac2 = b64(32 if alg == "hmac-sha256" else 64), b64(32 if alg == "hmac-sha256" else 64)
    ns = ip_pub()
    interactive = R.random() < 0.4
    dbg = ["Creating key...", "namefromtext", "keycreate"] if not interactive else []
    dbg += ["Reply from SOA query:", ";; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: %5d" % qid,
            ";; flags: qr aa rd; QUESTION: 1, ANSWER: 0, AUTHORITY: 1, ADDITIONAL: 1", ";; QUESTION SECTION:",
            ";%s\t\tIN\tSOA" % rec, "", ";; AUTHORITY SECTION:",
            "%s.\t\t3600\tIN\tSOA\tns1.%s. hostmaster.%s. %d%02d%02d01 7200 3600 1209600 3600" % (c.dom, c.dom, c.dom, c.ts.y, c.ts.mo, c.ts.d),
            "", ";; TSIG PSEUDOSECTION:", "%s.\t\t0\tANY\tTSIG\t%s. %d 300 %d %s %d NOERROR 0 " % (kn, alg, t, 32 if alg == "hmac-sha256" else 64, mac1, qid),
            "", "Found zone name: %s" % c.dom, "The primary is: ns1.%s" % c.dom, "Sending update to %s#53" % ns,
            "Outgoing update query:", ";; ->>HEADER<<- opcode: UPDATE, status: NOERROR, id: %5d" % uid,
            ";; flags:; ZONE: 1, PREREQ: 0, UPDATE: 2, ADDITIONAL: 1", ";; ZONE SECTION:", ";%s.\t\t\tIN\tSOA" % c.dom, "",
            ";; UPDATE SECTION:", "%s\t0\tANY\tTXT\t" % rec, '%s\t60\tIN\tTXT\t"%s"' % (rec, tok), "",
            "Reply from update query:", ";; ->>HEADER<<- opcode: UPDATE, status: NOERROR, id: %5d" % uid,
            ";; flags: qr; ZONE: 1, PREREQ: 0, UPDATE: 0, ADDITIONAL: 1", ";; ZONE SECTION:", ";%s.\t\t\tIN\tSOA" % c.dom, "",
            ";; TSIG PSEUDOSECTION:", "%s.\t\t0\tANY\tTSIG\t%s. %d 300 %d %s %d NOERROR 0 " % (kn, alg, t + 1, 32 if alg == "hmac-sha256" else 64, mac2, uid)]
    if interactive:
        sess = ["> server ns1.%s" % c.dom, "> key %s:%s %s" % (alg, kn, M(sec)), "> zone %s" % c.dom,
                "> update delete %s TXT" % rec, '> update add %s 60 TXT "%s"' % (rec, tok), "> send"] + dbg + ["> quit"]
        return render(pick_frame(), c, [("nsupdate -d", "\n".join(sess))])
    cmd = "nsupdate -d -y %s:%s:%s <<'EOF'\nserver ns1.%s\nzone %s\nupdate delete %s TXT\nupdate add %s 60 TXT \"%s\"\nsend\nEOF" % (alg, kn, M(sec), c.dom, c.dom, rec, rec, tok)
    return render(pick_frame(["prompt", "codex_exec", "codex_ts"]), c, [(cmd, "\n".join(dbg))])


@positive
def p_keymgr_knot_conf():
    c = Ctx()
    name = pick(["xfr-ns2", "xfr-%s" % c.site, "notify-secondary", "ddns-%s" % c.org])
    alg = pick(["hmac-sha256", "hmac-sha384", "hmac-sha512"])
    n = {"hmac-sha256": 32, "hmac-sha384": 48, "hmac-sha512": 64}[alg]
    sec = b64(n)
    out = "# %s:%s:%s\nkey:\n  - id: %s\n    algorithm: %s\n    secret: %s" % (alg, name, M(sec), name, alg, M(sec))
    steps = [("keymgr -t %s %s" % (name, alg), out)]
    if R.random() < 0.6:
        conf = ["remote:", "  - id: ns2", "    address: %s@53" % ip_pub(), "    key: %s" % name, "", "acl:",
                "  - id: xfr-to-ns2", "    address: %s" % ip_pub(), "    key: %s" % name, "    action: transfer", "",
                "zone:", "  - domain: %s" % c.dom, "    notify: ns2", "    acl: xfr-to-ns2"]
        steps.append(("sudo sed -n '/^remote:/,$p' /etc/knot/knot.conf", "\n".join(conf)))
    steps.append(("sudo knotc conf-check", "Configuration is valid"))
    return render(pick_frame(), c, steps)


@positive
def p_powerdns_api_key():
    c = Ctx()
    key = rs(R.choice([24, 32, 40]), ALNUM)
    hashed = R.random() < 0.4
    dbp = pw(pick([1, 2]))
    wsp = pw(pick([0, 6]))
    conf = ["api=yes"]
    if hashed:
        conf.append("api-key=$scrypt$ln=10,p=1,r=8$%s$%s" % (b64(16), b64(32)))
    else:
        conf.append("api-key=%s" % M(key))
    conf += ["launch=gmysql", "gmysql-host=127.0.0.1", "gmysql-user=pdns", "gmysql-password=%s" % M(dbp),
             "gmysql-dbname=pdns", "webserver=yes", "webserver-address=127.0.0.1", "webserver-port=8081",
             "webserver-allow-from=127.0.0.1,::1,%s.0/24" % ip_priv().rsplit(".", 1)[0]]
    if R.random() < 0.6:
        conf.append("webserver-password=%s" % M(wsp))
    zones = "\n".join(pick(["%s.", "int.%s.", "%s.arpa."]) % d for d in [c.dom, pick(DOMAINS), pick(DOMAINS)])
    steps = [("sudo grep -E '^(api|webserver|launch|gmysql)' /etc/powerdns/pdns.conf", "\n".join(conf)),
             ("curl -s -H 'X-API-Key: %s' http://127.0.0.1:8081/api/v1/servers/localhost/zones | jq -r '.[].name'" % M(key), zones)]
    return render(pick_frame(), c, steps)


# ================================================================ positives: backup and sync
@positive
def p_borgmatic_config_yaml():
    c = Ctx()
    sb = "u%d" % R.randrange(100000, 999999)
    pp = pw(pick([3, 1, 4]))
    dbp = pw(pick([1, 2]))
    host = pick(HOSTS)
    body = ["source_directories:", "    - /etc", "    - /srv/%s" % pick(["data", "www", "gitea", "nextcloud"]), "    - /home", "",
            "repositories:", "    - path: ssh://%s@%s.your-storagebox.de:23/./borg/%s" % (sb, sb, host), "      label: storagebox",
            "    - path: /mnt/usb-backup/borg", "      label: local", "", "exclude_patterns:", "    - '*.pyc'", "    - /home/*/.cache", "",
            "encryption_passphrase: \"%s\"" % M(pp), "ssh_command: ssh -i /root/.ssh/id_ed25519_borg", "compression: zstd,6", "",
            "keep_daily: 7", "keep_weekly: 4", "keep_monthly: 6", "", "checks:", "    - name: repository", "      frequency: 2 weeks",
            "    - name: archives", "      frequency: always"]
    if R.random() < 0.7:
        body += ["", "postgresql_databases:", "    - name: %s" % pick(["app", "gitea", "nextcloud", "keycloak"]),
                 "      hostname: 127.0.0.1", "      username: backup", "      password: %s" % M(dbp), "      format: custom"]
    body += ["", "before_backup:", "    - echo \"Starting backup of %s\"" % host]
    content = "\n".join(body)
    steps = None
    if R.random() < 0.5:
        steps = [("sudo borgmatic config validate", "summary:\n/etc/borgmatic/config.yaml: No errors found")]
    return show_file(c, "/etc/borgmatic/config.yaml", content, sudo=True, extra_steps=steps)


@positive
def p_kopia_connect_s3():
    c = Ctx()
    prov = R.randrange(3)
    if prov == 0:
        kid, sec, ep = akid(), aws_secret(), "s3.amazonaws.com"
    elif prov == 1:
        kid, sec, ep = b2_keyid(), b2_appkey(), "s3.eu-central-003.backblazeb2.com"
    else:
        kid, sec, ep = wasabi_keyid(), rs(40, ALNUM), "s3.eu-central-2.wasabisys.com"
    bucket = "%s-kopia-%s" % (c.org, c.site)
    rpw = pw(pick([3, 0, 1]))
    cmd = ("kopia repository connect s3 --bucket=%s --endpoint=%s --access-key=%s --secret-access-key=%s --password=%s"
           % (bucket, ep, kid, M(sec), M(rpw)))
    out = ("Connected to repository.\n\nNOTICE: Kopia will check for updates on GitHub every 7 days, starting 24 hours after first use.\n"
           "To disable this behavior, set environment variable KOPIA_CHECK_FOR_UPDATES=false\n"
           "Alternatively you can remove the file \"/home/%s/.config/kopia/repository.config.update-info.json\"." % c.user)
    steps = [(cmd, out)]
    if R.random() < 0.7:
        cfg = ('{\n  "storage": {\n    "type": "s3",\n    "config": {\n      "bucket": "%s",\n      "endpoint": "%s",\n'
               '      "accessKeyID": "%s",\n      "secretAccessKey": "%s",\n      "sessionToken": "",\n      "region": "",\n'
               '      "doNotUseTLS": false,\n      "doNotVerifyTLS": false\n    }\n  },\n  "caching": {\n'
               '    "cacheDirectory": "../../../.cache/kopia/%s",\n    "maxCacheSize": 5242880000,\n    "maxMetadataCacheSize": 5242880000,\n'
               '    "maxListCacheDuration": 30\n  },\n  "hostname": "%s",\n  "username": "%s",\n  "description": "Repository in S3: %s %s",\n'
               '  "enableActions": false,\n  "formatBlobCacheDuration": 900000000000\n}'
               % (bucket, ep, kid, M(sec), hx(16), c.host, c.user, ep, bucket))
        steps.append(("cat ~/.config/kopia/repository.config", cfg))
    if R.random() < 0.6:
        steps.append(("cat ~/.config/kopia/repository.config.kopia-password", M(base64.b64encode(rpw.encode()).decode())))
    return render(pick_frame(), c, steps)


@positive
def p_duplicity_verbose_env():
    c = Ctx()
    pp = pw(pick([3, 1]))
    kid, sec = akid(), aws_secret()
    sign = hx(16, True)
    sp = pw(pick([0, 2]))
    src = pick(["/srv/www", "/var/lib/postgresql/dumps", "/home", "/etc"])
    tgt = "boto3+s3://%s-duplicity/%s" % (c.org, c.host)
    script = ["#!/bin/bash", "# /usr/local/sbin/offsite-backup.sh - run from cron.daily", "set -euo pipefail",
              "export PASSPHRASE='%s'" % M(pp), "export SIGN_PASSPHRASE='%s'" % M(sp),
              "export AWS_ACCESS_KEY_ID=%s" % kid, "export AWS_SECRET_ACCESS_KEY=%s" % M(sec), "",
              "duplicity --verbosity info --full-if-older-than 1M --sign-key %s \\" % sign,
              "    --exclude '**/.cache' %s %s" % (src, tgt),
              "duplicity remove-older-than 6M --force %s" % tgt, "", "unset PASSPHRASE SIGN_PASSPHRASE AWS_SECRET_ACCESS_KEY"]
    t = c.ts
    st = t.epoch()
    el = R.randrange(40, 900) + R.random()
    stats = ["Local and Remote metadata are synchronized, no sync needed.",
             "Last full backup date: %s" % TS().ctime(),
             "--------------[ Backup Statistics ]--------------",
             "StartTime %.2f (%s)" % (st + R.random(), t.ctime()),
             "EndTime %.2f (%s)" % (st + el, t.tick(int(el)).ctime()),
             "ElapsedTime %.2f (%d minute%s %.2f seconds)" % (el, int(el // 60), "" if int(el // 60) == 1 else "s", el % 60),
             "SourceFiles %d" % R.randrange(1000, 90000), "SourceFileSize %d (%.2f GB)" % (R.randrange(10 ** 9, 9 * 10 ** 9), R.random() * 8 + 1),
             "NewFiles %d" % R.randrange(0, 90), "NewFileSize %d (%d KB)" % (R.randrange(1, 900) * 1024, R.randrange(1, 900)),
             "DeletedFiles %d" % R.randrange(0, 10), "ChangedFiles %d" % R.randrange(0, 40),
             "Errors 0", "-------------------------------------------------"]
    return show_file(c, "/usr/local/sbin/offsite-backup.sh", "\n".join(script), sudo=True,
                     extra_steps=[("sudo /usr/local/sbin/offsite-backup.sh 2>&1 | tail -n 16", "\n".join(stats))] if R.random() < 0.6 else None)


@positive
def p_velero_credentials_secret():
    c = Ctx()
    kid, sec = (akid(), aws_secret()) if R.random() < 0.5 else (rs(20, UPPER + DIGITS), rs(40, ALNUM))
    f = "[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n" % (kid, sec)
    steps = [("cat credentials-velero", "[default]\naws_access_key_id = %s\naws_secret_access_key = %s" % (kid, M(sec)))]
    if R.random() < 0.6:
        inst = ["CustomResourceDefinition/backuprepositories.velero.io: attempting to create resource",
                "CustomResourceDefinition/backuprepositories.velero.io: attempting to create resource client",
                "CustomResourceDefinition/backuprepositories.velero.io: created",
                "Waiting for resources to be ready in cluster...", "Namespace/velero: attempting to create resource",
                "Namespace/velero: created", "Secret/cloud-credentials: attempting to create resource",
                "Secret/cloud-credentials: attempting to create resource client", "Secret/cloud-credentials: created",
                "BackupStorageLocation/default: created", "Deployment/velero: created",
                "Velero is installed! \u26f5 Use 'kubectl logs deployment/velero -n velero' to view the status."]
        steps.append(("velero install --provider aws --plugins velero/velero-plugin-for-aws:v1.9.%d --bucket %s-velero --secret-file ./credentials-velero --backup-location-config region=minio,s3ForcePathStyle=\"true\",s3Url=http://minio.%s:9000 --use-volume-snapshots=false"
                      % (R.randrange(0, 3), c.org, c.dom), "\n".join(inst)))
    steps.append(("kubectl -n velero get secret cloud-credentials -o jsonpath='{.data.cloud}'", M(base64.b64encode(f.encode()).decode())))
    return render(pick_frame(), c, steps)


@positive
def p_rsyncd_secrets():
    c = Ctx()
    ents = [(pick(["backup", "mirror", "nightly", "pull-%s" % c.site]), pw(pick([1, 2, 6]))) for _ in range(R.randrange(1, 3))]
    if R.random() < 0.5:
        ents.append(("@ops", pw(1)))
    conf = ["uid = nobody", "gid = nogroup", "use chroot = yes", "max connections = 4", "log file = /var/log/rsyncd.log", "",
            "[backups]", "    path = /srv/backups", "    comment = nightly dumps", "    read only = no",
            "    auth users = %s" % ", ".join(e[0] + (":ro" if e[0].startswith("@") else "") for e in ents),
            "    secrets file = /etc/rsyncd.secrets", "    hosts allow = 10.%d.0.0/16" % R.randrange(0, 255)]
    steps = [("sudo cat /etc/rsyncd.conf", "\n".join(conf)),
             ("sudo cat /etc/rsyncd.secrets", "\n".join("%s:%s" % (u, M(p)) for u, p in ents))]
    u, p = ents[0]
    n = R.randrange(3, 40)
    out = "sending incremental file list\n./\n" + "\n".join("%s-%04d%02d%02d.sql.gz" % (pick(["app", "gitea", "mail", "ldap"]), c.ts.y, c.ts.mo, R.randrange(1, 29)) for _ in range(3))
    out += "\n\nsent %s bytes  received %d bytes  %s bytes/sec\ntotal size is %s  speedup is %.2f" % (
        "{:,}".format(R.randrange(10 ** 6, 10 ** 9)), R.randrange(100, 999), "{:,}".format(R.randrange(10 ** 5, 10 ** 8)) + ".%02d" % R.randrange(100),
        "{:,}".format(R.randrange(10 ** 9, 10 ** 11)), R.random() * 90 + 1)
    steps.append(("RSYNC_PASSWORD='%s' rsync -av --delete /var/backups/ rsync://%s@nas01.%s/backups/%s/" % (M(p), u, c.dom, c.host), out))
    return render(pick_frame(), c, steps)


@positive
def p_bacula_dir_conf():
    c = Ctx()
    pd, pc, ps, pdb = b64(33), b64(33), b64(33), pw(pick([1, 2]))
    cl = pick(HOSTS)
    body = ["Director {                            # define myself", "  Name = bacula-dir", "  DIRport = 9101",
            '  QueryFile = "/etc/bacula/scripts/query.sql"', '  WorkingDirectory = "/var/lib/bacula"',
            '  PidDirectory = "/run/bacula"', "  Maximum Concurrent Jobs = 20", '  Password = "%s"         # Console password' % M(pd),
            "  Messages = Daemon", "  DirAddress = 127.0.0.1", "}", "",
            "Client {", "  Name = %s-fd" % cl, "  Address = %s.%s" % (cl, c.dom), "  FDPort = 9102", "  Catalog = MyCatalog",
            '  Password = "%s"          # password for FileDaemon' % M(pc), "  File Retention = 60 days",
            "  Job Retention = 6 months", "  AutoPrune = yes", "}", "",
            "Storage {", "  Name = File1", "  Address = sd01.%s" % c.dom, "  SDPort = 9103", '  Password = "%s"' % M(ps),
            "  Device = FileChgr1", "  Media Type = File1", "  Maximum Concurrent Jobs = 10", "}", "",
            "Catalog {", "  Name = MyCatalog", '  dbname = "bacula"; DB Address = "localhost"; dbuser = "bacula"; dbpassword = "%s"' % M(pdb), "}"]
    steps = None
    if R.random() < 0.4:
        steps = [("sudo bacula-dir -t -c /etc/bacula/bacula-dir.conf && echo OK", "OK")]
    return show_file(c, "/etc/bacula/bacula-dir.conf", "\n".join(body), sudo=True, extra_steps=steps)


# ================================================================ positives: configuration management
@positive
def p_ansible_vvv_module_args():
    c = Ctx()
    host = "%s.%s" % (pick(["db01", "cache02", "redis-%s" % c.site, "mq01", "app03"]), c.dom)
    user = pick(["deploy", "ansible", "ops"])
    pwd = pw(pick([1, 2, 6]))
    kind = R.randrange(2)
    t = c.ts
    hdr = ["<%s> ESTABLISH SSH CONNECTION FOR USER: %s" % (host, user),
           "<%s> SSH: EXEC ssh -C -o ControlMaster=auto -o ControlPersist=60s -o KbdInteractiveAuthentication=no -o PreferredAuthentications=gssapi-with-mic,gssapi-keyex,hostbased,publickey -o PasswordAuthentication=no -o 'User=\"%s\"' -o ConnectTimeout=10 -o 'ControlPath=\"/home/%s/.ansible/cp/%s\"' %s '/bin/sh -c '\"'\"'echo ~%s && sleep 0'\"'\"''" % (host, user, c.user, hx(10), host, user),
           "<%s> (0, b'/home/%s\\n', b'')" % (host, user)]
    if kind == 0:
        task = "TASK [redis : Set requirepass] " + "*" * 50
        path = "roles/redis/tasks/main.yml:%d" % R.randrange(10, 80)
        res = ['changed: [%s] => {' % host, '    "backup": "/etc/redis/redis.conf.%d.%04d-%02d-%02d@%02d:%02d:%02d~",' % (R.randrange(1000, 99999), t.y, t.mo, t.d, t.h, t.mi, t.s),
               '    "changed": true,', '    "diff": [', '        {', '            "after": "",', '            "after_header": "/etc/redis/redis.conf (content)",',
               '            "before": "",', '            "before_header": "/etc/redis/redis.conf (content)"', '        },', '        {',
               '            "after_header": "/etc/redis/redis.conf (file attributes)",', '            "before_header": "/etc/redis/redis.conf (file attributes)"',
               '        }', '    ],', '    "invocation": {', '        "module_args": {', '            "attributes": null,', '            "backrefs": false,',
               '            "backup": true,', '            "create": false,', '            "firstmatch": false,', '            "group": null,',
               '            "insertafter": null,', '            "insertbefore": null,', '            "line": "requirepass %s",' % M(pwd),
               '            "mode": null,', '            "owner": null,', '            "path": "/etc/redis/redis.conf",',
               '            "regexp": "^#?\\\\s*requirepass\\\\s",', '            "search_string": null,', '            "state": "present",',
               '            "unsafe_writes": false,', '            "validate": null', '        }', '    },', '    "msg": "line replaced"', '}']
    else:
        db = pick(["app", "billing", "inventory"])
        task = "TASK [mysql : Create application user] " + "*" * 42
        path = "roles/mysql/tasks/users.yml:%d" % R.randrange(5, 60)
        cmdline = "mysql -uroot -p%s -e \\\"CREATE USER IF NOT EXISTS '%s'@'10.%%' IDENTIFIED BY '%s'; GRANT ALL ON %s.* TO '%s'@'10.%%';\\\"" % (
            M(pw(1)), db, M(pwd), db, db)
        res = ['changed: [%s] => {' % host, '    "changed": true,', '    "cmd": "%s",' % cmdline,
               '    "delta": "0:00:00.0%d",' % R.randrange(10000, 99999), '    "end": "%s.%06d",' % (t.sql(), R.randrange(10 ** 6)),
               '    "invocation": {', '        "module_args": {', '            "_raw_params": "%s",' % cmdline,
               '            "_uses_shell": true,', '            "argv": null,', '            "chdir": null,', '            "creates": null,',
               '            "executable": null,', '            "expand_argument_vars": true,', '            "removes": null,',
               '            "stdin": null,', '            "stdin_add_newline": true,', '            "strip_empty_ends": true', '        }', '    },',
               '    "msg": "",', '    "rc": 0,', '    "start": "%s.%06d",' % (t.sql(), R.randrange(10 ** 6)),
               '    "stderr": "mysql: [Warning] Using a password on the command line interface can be insecure.",',
               '    "stderr_lines": [', '        "mysql: [Warning] Using a password on the command line interface can be insecure."', '    ],',
               '    "stdout": "",', '    "stdout_lines": []', '}']
    out = "\n".join([task, "task path: %s/%s" % (c.abs_cwd, path)] + hdr + res)
    return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c,
                  [("ansible-playbook -i inventories/prod site.yml --limit %s -vvv 2>&1 | sed -n '/%s/,/^$/p'" % (host.split(".")[0], task.split("]")[0].split("[")[1]), out)])


@positive
def p_chef_encrypted_data_bag_secret():
    c = Ctx()
    sec = b64(512)
    k = pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"])
    client = ["chef_server_url  \"https://chef.%s/organizations/%s\"" % (c.dom, c.org), "validation_client_name \"%s-validator\"" % c.org,
              "log_location     STDOUT", "node_name        \"%s.%s\"" % (pick(HOSTS), c.dom),
              "encrypted_data_bag_secret \"/etc/chef/encrypted_data_bag_secret\"", "ssl_verify_mode  :verify_peer"]
    steps = [("sudo cat /etc/chef/client.rb", "\n".join(client)), ("sudo cat /etc/chef/encrypted_data_bag_secret", M(sec))]
    if R.random() < 0.5:
        a, b = pw(1), pw(pick([0, 2]))
        steps.append(("knife data bag show credentials %s --secret-file /etc/chef/encrypted_data_bag_secret -F json" % pick(["mysql", "rabbitmq", "smtp"]),
                      'Encrypted data bag detected, decrypting with provided secret.\n{\n  "id": "svc",\n  "password": "%s",\n  "admin_password": "%s"\n}' % (M(a), M(b))))
    return render(k, c, steps)


@positive
def p_hiera_common_yaml_mixed():
    c = Ctx()
    rp = pw(pick([1, 2]))
    sk = hx(64)
    psk = hx(64)
    enc = "ENC[PKCS7,MIIBmQYJKoZIhvcNAQcDoIIBijCCAYYCAQAxggEhMIIBHQIBADAFMAACAQEw" + rs(R.randrange(300, 380), B64) + "]"
    lines = ["---", "lookup_options:", "  '^profile::.*::(password|secret_key|psk)$':", "    convert_to: Sensitive", "",
             "profile::base::ntp_servers:", "  - 0.pool.ntp.org", "  - 1.pool.ntp.org",
             "profile::postgres::replication_user: replicator",
             "profile::postgres::replication_password: '%s'" % M(rp),
             "profile::app::secret_key: \"%s\"" % M(sk),
             "profile::ldap::bind_password: >", "  " + enc,
             "profile::monitoring::zabbix_psk_identity: PSK-%s" % c.site.upper(),
             "profile::monitoring::zabbix_psk: '%s'" % M(psk)]
    if R.random() < 0.5:
        diff = ["diff --git a/data/common.yaml b/data/common.yaml", "index %s..%s 100644" % (hx(7), hx(7)),
                "--- a/data/common.yaml", "+++ b/data/common.yaml", "@@ -4,9 +4,11 @@ lookup_options:"]
        for i, l in enumerate(lines[4:]):
            if "replication_password" in l or "secret_key: " in l or "zabbix_psk:" in l:
                diff.append("+" + l)
            else:
                diff.append(" " + l)
        return render(pick_frame(), c, [("git diff data/common.yaml", "\n".join(diff))])
    return show_file(c, "data/common.yaml", "\n".join(lines))


# ================================================================ positives: proxies and gateways
@positive
def p_haproxy_userlist_stats_auth():
    c = Ctx()
    sp = pw(pick([0, 2, 6]))
    u2p = pw(pick([1, 2]))
    u3p = pw(1)
    up_user = pick(["svc-lb", "haproxy", "edge"])
    up_pw = pw(1, urlsafe=True)
    basic = base64.b64encode(("%s:%s" % (up_user, up_pw)).encode()).decode()
    cfg = ["global", "    log /dev/log local0", "    stats socket /run/haproxy/admin.sock mode 660 level admin expose-fd listeners",
           "    maxconn 20000", "", "userlist ops_users", "    group admins users %s,%s" % (c.user, "bob"),
           "    user %s password %s" % (c.user, sha512crypt()), "    user bob insecure-password %s" % M(u2p),
           "    user prometheus insecure-password %s" % M(u3p), "", "frontend stats", "    bind *:8404", "    stats enable",
           "    stats uri /stats", "    stats refresh 10s", "    stats auth admin:%s" % M(sp), "    stats admin if TRUE", "",
           "backend api", "    http-request auth realm api unless { http_auth(ops_users) }",
           "    http-request set-header Authorization \"Basic %s\"" % M(basic),
           "    server api1 %s:8080 check" % ip_priv(), "    server api2 %s:8080 check" % ip_priv()]
    steps = None
    if R.random() < 0.5:
        steps = [("sudo haproxy -c -f /etc/haproxy/haproxy.cfg", "Configuration file is valid")]
    return show_file(c, "/etc/haproxy/haproxy.cfg", "\n".join(cfg), sudo=True, extra_steps=steps)


@positive
def p_envoy_inline_secrets():
    c = Ctx()
    hm = b64(32)
    cs = rs(R.choice([32, 40]), ALNUM + "-_")
    key = ec_p256_body()
    v, k, pl = file_view_choice()
    kl = [key[i:i + 64] for i in range(0, len(key), 64)]
    y = ["static_resources:", "  secrets:", "  - name: hmac", "    generic_secret:", "      secret:",
         "        inline_string: \"%s\"" % M(hm), "  - name: oauth-client", "    generic_secret:", "      secret:",
         "        inline_string: \"%s\"" % M(cs), "  - name: upstream-tls", "    tls_certificate:", "      certificate_chain:",
         "        filename: /etc/envoy/tls/tls.crt", "      private_key:", "        inline_string: |",
         "          -----BEGIN EC PRIVATE KEY-----"] + ["          " + M(x) for x in kl] + [
         "          -----END EC PRIVATE KEY-----", "  listeners:", "  - name: ingress", "    address:",
         "      socket_address: { address: 0.0.0.0, port_value: 10000 }", "    filter_chains:", "    - filters:",
         "      - name: envoy.filters.network.http_connection_manager", "        typed_config:",
         "          \"@type\": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
         "          stat_prefix: ingress_http", "          http_filters:", "          - name: envoy.filters.http.oauth2",
         "            typed_config:", "              \"@type\": type.googleapis.com/envoy.extensions.filters.http.oauth2.v3.OAuth2",
         "              config:", "                token_endpoint:", "                  cluster: idp",
         "                  uri: https://sso.%s/oauth2/token" % c.dom, "                  timeout: 3s",
         "                credentials:", "                  client_id: %s" % pick(["envoy-gw", "edge-proxy", c.org + "-gateway"]),
         "                  token_secret:", "                    name: oauth-client", "                  hmac_secret:",
         "                    name: hmac"]
    return show_with(c, v, k, "deploy/envoy/envoy.yaml", "\n".join(y))


@positive
def p_kong_deck_dump():
    c = Ctx()
    kk = hx(32)
    js = rs(32, ALNUM)
    jk = rs(32, ALNUM)
    hs = rs(32, ALNUM)
    cons = ["_format_version: \"3.0\"", "consumers:", "- basicauth_credentials:", "  - id: %s" % uuid4(),
            "    password: %s" % hx(40), "    username: grafana", "  custom_id: grafana", "  id: %s" % uuid4(), "  username: grafana",
            "- id: %s" % uuid4(), "  jwt_secrets:", "  - algorithm: HS256", "    id: %s" % uuid4(), "    key: %s" % jk,
            "    secret: %s" % M(js), "  keyauth_credentials:", "  - id: %s" % uuid4(), "    key: %s" % M(kk),
            "  username: %s-svc" % pick(["billing", "orders", "search", "ledger"])]
    if R.random() < 0.5:
        cons += ["- hmacauth_credentials:", "  - id: %s" % uuid4(), "    secret: %s" % M(hs), "    username: partner-%s" % pick(["x", "acme", "north"]),
                 "  id: %s" % uuid4(), "  username: partner-api"]
    cons += ["services:", "- connect_timeout: 60000", "  host: %s.internal" % pick(["billing", "orders", "search"]),
             "  id: %s" % uuid4(), "  name: %s" % pick(["billing", "orders", "search"]), "  port: 8080", "  protocol: http",
             "  read_timeout: 60000", "  retries: 5", "  routes:", "  - id: %s" % uuid4(), "    paths:", "    - /api",
             "    strip_path: false", "  write_timeout: 60000"]
    steps = [("deck gateway dump --kong-addr http://%s:8001 -o kong.yaml --yes" % ip_priv(), "")]
    return render(pick_frame(), c, steps) + "\n\n" + show_file(c, "kong.yaml", "\n".join(cons), views=["cat", "head", "read", "bat"])


@positive
def p_traefik_acme_json():
    c = Ctx()
    acc_key = ec_p256_body()
    keytxt = "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(ec_p256_body()[i:i + 64] for i in range(0, 164, 64)) + "\n-----END EC PRIVATE KEY-----\n"
    k64 = base64.b64encode(keytxt.encode()).decode()
    cb = cert_body(R.randrange(500, 640))
    certtxt = "-----BEGIN CERTIFICATE-----\n" + "\n".join(cb[i:i + 64] for i in range(0, len(cb), 64)) + "\n-----END CERTIFICATE-----\n"
    c64 = base64.b64encode(certtxt.encode()).decode()
    em = "ops@%s" % c.dom
    acct = R.randrange(1000000000, 1999999999)
    res = pick(["le", "letsencrypt", "myresolver", "cloudflare"])
    if R.random() < 0.5:
        j = ('{\n  "%s": {\n    "Account": {\n      "Email": "%s",\n      "Registration": {\n        "body": {\n          "status": "valid",\n'
             '          "contact": [\n            "mailto:%s"\n          ]\n        },\n        "uri": "https://acme-v02.api.letsencrypt.org/acme/acct/%d"\n'
             '      },\n      "PrivateKey": "%s",\n      "KeyType": "EC256"\n    },\n    "Certificates": [\n      {\n        "domain": {\n'
             '          "main": "%s",\n          "sans": [\n            "*.%s"\n          ]\n        },\n        "certificate": "%s",\n'
             '        "key": "%s",\n        "Store": "default"\n      }\n    ]\n  }\n}'
             % (res, em, em, acct, M(acc_key), c.dom, c.dom, c64, M(k64)))
        return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c, [("sudo jq . /srv/traefik/letsencrypt/acme.json", j)])
    steps = [("sudo jq '.%s.Account | {Email, KeyType, PrivateKey}' /srv/traefik/acme.json" % res,
              '{\n  "Email": "%s",\n  "KeyType": "EC256",\n  "PrivateKey": "%s"\n}' % (em, M(acc_key))),
             ("sudo jq -r '.%s.Certificates[] | .domain.main + \"  \" + .key' /srv/traefik/acme.json" % res,
              "%s  %s" % (c.dom, M(k64)))]
    return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c, steps)


@positive
def p_caddy_adapt_json():
    c = Ctx()
    tok = cf_token()
    bh = base64.b64encode(bcrypt_hash(14, "$2a$").encode()).decode()
    host = pick(["grafana", "prom", "status", "kuma"]) + "." + c.dom
    cf = ["{", "\temail ops@%s" % c.dom, "}", "", "%s {" % host, "\ttls {", "\t\tdns cloudflare %s" % M(tok), "\t}",
          "\tbasicauth {", "\t\tops %s" % bh, "\t}", "\treverse_proxy 127.0.0.1:%d" % pick([3000, 9090, 3001]), "}"]
    tls = ('{\n\t"automation": {\n\t\t"policies": [\n\t\t\t{\n\t\t\t\t"subjects": [\n\t\t\t\t\t"%s"\n\t\t\t\t],\n\t\t\t\t"issuers": [\n'
           '\t\t\t\t\t{\n\t\t\t\t\t\t"challenges": {\n\t\t\t\t\t\t\t"dns": {\n\t\t\t\t\t\t\t\t"provider": {\n\t\t\t\t\t\t\t\t\t"api_token": "%s",\n'
           '\t\t\t\t\t\t\t\t\t"name": "cloudflare"\n\t\t\t\t\t\t\t\t}\n\t\t\t\t\t\t\t}\n\t\t\t\t\t\t},\n\t\t\t\t\t\t"email": "ops@%s",\n'
           '\t\t\t\t\t\t"module": "acme"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}' % (host, M(tok), c.dom))
    steps = [("cat Caddyfile", "\n".join(cf)), ("caddy adapt --config Caddyfile --pretty | jq --tab '.apps.tls'", tls)]
    return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c, steps)


@positive
def p_squid_cache_peer_login():
    c = Ctx()
    pu = pick(["svc-squid", "proxy-chain", "egress"])
    pp = pw(pick([1, 2]), urlsafe=True)
    up = pw(pick([0, 6]), urlsafe=True)
    u = c.user
    steps = [("grep -nE '^(http_port|auth_param|acl corp|cache_peer|never_direct)' /etc/squid/squid.conf",
              "12:http_port 3128\n14:auth_param basic program /usr/lib/squid/basic_ncsa_auth /etc/squid/passwords\n15:auth_param basic realm proxy\n"
              "31:acl corp_net src 10.0.0.0/8\n44:cache_peer upstream.%s parent 8080 0 no-query no-digest default login=%s:%s\n45:never_direct allow all"
              % (c.dom, pu, M(pp)))]
    if R.random() < 0.6:
        steps.append(("sudo cat /etc/squid/passwords", "\n".join("%s:%s" % (x, apr1()) for x in [u, pick(USERS), "monitor"])))
    if R.random() < 0.5:
        steps.append(("/usr/lib/squid/basic_ncsa_auth /etc/squid/passwords", "%s %s\nOK\n%s wrongpass\nERR Wrong password" % (u, M(up), u)))
    steps.append(("curl -sI -x http://%s:%s@proxy01.%s:3128 https://deb.debian.org/ | head -1" % (u, M(up), c.dom), "HTTP/1.1 200 Connection established"))
    return render(pick_frame(), c, steps)


# ================================================================ positives: brokers
@positive
def p_nats_server_conf_users():
    c = Ctx()
    ip = pw(pick([1, 2]))
    rp = pw(1)
    tokenish = R.random() < 0.3
    conf = ["port: 4222", "http_port: 8222", "server_name: nats-%s-0" % c.site, "", "jetstream {", "  store_dir: /data/jetstream",
            "  max_mem: 1G", "  max_file: 50G", "}", "", "authorization {",
            '  default_permissions = { publish = "SANDBOX.*", subscribe = ["PUBLIC.>", "_INBOX.>"] }', "  users = [",
            '    { user: ingest, password: "%s", permissions: { publish: "events.>" } }' % M(ip),
            '    { user: admin, password: "%s" }' % bcrypt_hash(11, "$2a$"),
            "    { nkey: %s }" % nkey_pub(), "  ]", "}", "", "cluster {", "  name: %s" % c.site, "  listen: 0.0.0.0:6222",
            "  authorization { user: route, password: %s, timeout: 2 }" % M(rp),
            "  routes = [", "    nats-route://route:%s@nats-%s-1.nats:6222" % (M(rp), c.site),
            "    nats-route://route:%s@nats-%s-2.nats:6222" % (M(rp), c.site), "  ]", "}"]
    top = "\u256d" + "\u2500" * 41 + "\u256e"
    title = "\u2502" + "Streams".center(41) + "\u2502"
    cols = [9, 10, 11, 8]
    s1 = "\u251c" + "\u252c".join("\u2500" * w for w in cols) + "\u2524"
    s2 = "\u251c" + "\u253c".join("\u2500" * w for w in cols) + "\u2524"
    bot = "\u2570" + "\u2534".join("\u2500" * w for w in cols) + "\u256f"
    def trow(vals):
        return "\u2502" + "\u2502".join((" " + v).ljust(w) for v, w in zip(vals, cols)) + "\u2502"
    tbl = [top, title, s1, trow(["Name", "Messages", "Size", "Last"]), s2,
           trow(["EVENTS", "{:,}".format(R.randrange(1000, 999999)), "%d MiB" % R.randrange(1, 900), "%ds" % R.randrange(1, 59)]), bot]
    steps = [("nats --server nats://ingest:%s@nats.%s:4222 stream ls" % (M(ip), c.dom), "\n".join(tbl))]
    return show_file(c, "/etc/nats/nats-server.conf", "\n".join(conf), extra_steps=steps if R.random() < 0.6 else None)


@positive
def p_emqx_api_key_create():
    c = Ctx()
    dp = pw(pick([0, 2, 6]))
    ak = hx(16)
    asec = rs(R.randrange(44, 48), ALNUM)
    nm = pick(["ci-deployer", "grafana-ds", "bridge-sync", "ops-cli"])
    t = c.ts
    j = ('{\n  "name": "%s",\n  "expired": false,\n  "api_secret": "%s",\n  "api_key": "%s",\n  "enable": true,\n  "desc": "%s",\n'
         '  "created_at": "%s+00:00",\n  "expired_at": "infinity",\n  "role": "administrator"\n}' % (nm, M(asec), ak, pick(["pipeline", "dashboards", "ops"]), t.iso(frac=True, z=False)))
    steps = [("curl -s -u admin:%s -X POST http://127.0.0.1:18083/api/v5/api_key -H 'Content-Type: application/json' -d '{\"name\":\"%s\",\"enable\":true}' | jq" % (M(dp), nm), j)]
    if R.random() < 0.6:
        steps.append(("curl -s -u %s:%s http://127.0.0.1:18083/api/v5/nodes | jq -r '.[] | [.node, .node_status, .version] | @tsv'" % (ak, M(asec)),
                      "emqx@%s\trunning\t5.%d.%d\nemqx@%s\trunning\t5.%d.%d" % (ip_priv(), R.randrange(3, 9), R.randrange(0, 3), ip_priv(), R.randrange(3, 9), R.randrange(0, 3))))
    if R.random() < 0.4:
        steps.append(("sudo cat /etc/emqx/api_key.bootstrap", "%s:%s:administrator" % (ak, M(asec))))
    return render(pick_frame(), c, steps)


@positive
def p_redis_cli_acl_setuser():
    c = Ctx()
    h = pick(["redis-0.%s" % c.dom, "cache01", ip_priv(), "redis-%s.internal" % c.site])
    ap = pw(pick([1, 2]))
    p1 = pw(pick([1, 4]))
    p2 = pw(1)
    pr = "%s:6379> " % h
    sess = [pr + "ACL SETUSER app-rw on >%s ~app:* &* +@read +@write -@dangerous" % M(p1), "OK",
            pr + "ACL SETUSER metrics on >%s +info +ping +client|list ~*" % M(p2), "OK", pr + "ACL LIST",
            '1) "user app-rw on #%s ~app:* resetchannels &* -@all +@read +@write -@dangerous"' % hx(64),
            '2) "user default on #%s ~* &* +@all"' % hx(64),
            '3) "user metrics on #%s ~* resetchannels -@all +info +ping +client|list"' % hx(64), pr + "ACL SAVE", "OK", pr]
    return render(pick_frame(), c, [("redis-cli -h %s -a '%s' --no-auth-warning" % (h, M(ap)), "\n".join(sess))])


@positive
def p_activemq_jetty_realm():
    c = Ctx()
    ap, op, sp, gp = pw(pick([0, 6])), pw(2), pw(1), pw(pick([0, 3]))
    home = pick(["/opt/activemq", "/opt/apache-activemq-5.18.%d" % R.randrange(1, 6), "/srv/activemq"])
    realm = ["## ---------------------------------------------------------------------------",
             "## Licensed to the Apache Software Foundation (ASF) under one or more",
             "## contributor license agreements.  See the NOTICE file distributed with",
             "## ---------------------------------------------------------------------------", "",
             "# Defines users that can access the web (console, demo, etc.)", "# username: password [,rolename ...]",
             "admin: %s, admin" % M(ap), "%s: %s, user" % (pick(USERS), M(op))]
    cred = ["# Defines credentials that will be used by components (like web console) to access the broker", "",
            "activemq.username=system", "activemq.password=%s" % M(sp), "guest.password=%s" % M(gp)]
    mq = pick(["mq01", "amq-%s" % c.site, "broker1"])
    steps = [("cat %s/conf/jetty-realm.properties" % home, "\n".join(realm)),
             ("cat %s/conf/credentials.properties" % home, "\n".join(cred))]
    if R.random() < 0.6:
        steps.append(("curl -s -u admin:%s 'http://%s:8161/api/jolokia/read/org.apache.activemq:type=Broker,brokerName=localhost/TotalMessageCount'" % (M(ap), mq),
                      '{"request":{"mbean":"org.apache.activemq:brokerName=localhost,type=Broker","attribute":"TotalMessageCount","type":"read"},"value":%d,"timestamp":%d,"status":200}' % (R.randrange(0, 90000), c.ts.epoch())))
    return render(pick_frame(), c, steps)


# ================================================================ positives: databases
@positive
def p_cqlshrc_cat():
    c = Ctx()
    adm = pick(["cassandra_admin", "ops_admin", "dba"])
    p = pw(pick([1, 2, 6]))
    rp = pw(pick([0, 2]))
    seed = "cass-seed-%d.%s" % (R.randrange(1, 4), c.dom)
    rc = ["; ~/.cassandra/cqlshrc", "[authentication]", "username = %s" % adm, "password = %s" % M(p), "",
          "[connection]", "hostname = %s" % seed, "port = 9042", "ssl = true", "", "[ssl]",
          "certfile = ~/.cassandra/ca.pem", "validate = true", "userkey = ~/.cassandra/client.key",
          "usercert = ~/.cassandra/client.crt", "", "[csv]", "field_size_limit = 1000000"]
    steps = [("cat ~/.cassandra/cqlshrc", "\n".join(rc))]
    if R.random() < 0.7:
        role = pick(["reporting", "etl_loader", "grafana_ro"])
        sess = ["Warning: Password is found in an insecure cqlshrc file. The file is owned or readable by other users on the system.",
                "Connected to %s-ring at %s:9042" % (c.org, seed),
                "[cqlsh 6.1.0 | Cassandra 4.1.%d | CQL spec 3.4.6 | Native protocol v5]" % R.randrange(2, 7), "Use HELP for help.",
                "%s@cqlsh> CREATE ROLE %s WITH PASSWORD = '%s' AND LOGIN = true;" % (adm, role, M(rp)),
                "%s@cqlsh> LIST ROLES;" % adm, "",
                " role            | super | login | options | datacenters",
                "-----------------+-------+-------+---------+-------------",
                " %-15s |  True |  True |        {} |         ALL" % adm,
                " cassandra       |  True |  True |        {} |         ALL",
                " %-15s | False |  True |        {} |         ALL" % role, "", "(3 rows)", "%s@cqlsh> exit" % adm]
        steps.append(("cqlsh --cqlshrc ~/.cassandra/cqlshrc", "\n".join(sess)))
    return render(pick_frame(), c, steps)


@positive
def p_cypher_shell_neo4j():
    c = Ctx()
    ip_ = pw(pick([0, 2, 6]))
    up = pw(pick([1, 6]))
    h = pick(["graph01", "neo4j-core-0", "kg-%s" % c.site]) + "." + c.dom
    steps = []
    if R.random() < 0.5:
        steps.append(("sudo -u neo4j neo4j-admin dbms set-initial-password '%s'" % M(ip_),
                      "Changed password for user 'neo4j'. IMPORTANT: this change will only take effect if performed before the database is started for the first time."))
    else:
        steps.append(("docker run -d --name neo4j -p 7474:7474 -p 7687:7687 -e NEO4J_AUTH=neo4j/%s neo4j:5.%d" % (M(ip_), R.randrange(12, 20)), hx(64)))
    u = pick(["etl", "app_reader", "bloom"])
    sess = ["Connected to Neo4j using Bolt protocol version 5.%d at neo4j://%s:7687 as user neo4j." % (R.randrange(2, 6), h),
            "Type :help for a list of available commands or :exit to exit the shell.",
            "Note that Cypher queries must end with a semicolon.",
            "neo4j@system> CREATE USER %s SET PASSWORD '%s' CHANGE NOT REQUIRED;" % (u, M(up)), "0 rows",
            "ready to start consuming query after %d ms, results consumed after another 0 ms" % R.randrange(3, 90), "Added 1 users",
            "neo4j@system> SHOW USERS YIELD user, suspended, passwordChangeRequired;",
            "+" + "-" * (len(u) + 34 + 16) + "+",
            "| %-*s | suspended | passwordChangeRequired |" % (len(u) + 2, "user"),
            "+" + "-" * (len(u) + 34 + 16) + "+",
            '| "%s" | FALSE     | FALSE                  |' % u, '| %-*s | FALSE     | FALSE                  |' % (len(u) + 2, '"neo4j"'),
            "+" + "-" * (len(u) + 34 + 16) + "+", "", "2 rows", "neo4j@system> :exit", "", "Bye!"]
    steps.append(("cypher-shell -a neo4j://%s:7687 -u neo4j -p '%s' -d system" % (h, M(ip_)), "\n".join(sess)))
    return render(pick_frame(), c, steps)


@positive
def p_cockroach_sql_create_user():
    c = Ctx()
    rp = pw(pick([1, 2]), urlsafe=True)
    ap = pw(pick([0, 6]))
    h = pick(["crdb-0", "cockroach-%s-1" % c.site, "roach1"]) + "." + c.dom
    db = pick(["app", "ledger", "orders"])
    pr = "root@%s:26257/defaultdb> " % h
    sess = ["#", "# Welcome to the CockroachDB SQL shell.", "# All statements must be terminated by a semicolon.",
            "# To exit, type: \\q.", "#", "# Client version: CockroachDB CCL v23.2.%d (x86_64-pc-linux-gnu, built %d/%02d/%02d, go1.21.5)" % (R.randrange(1, 9), c.ts.y, c.ts.mo, c.ts.d),
            "# Cluster ID: %s" % uuid4(), "#", "# Enter \\? for a brief introduction.", "#",
            pr + "CREATE USER IF NOT EXISTS %s WITH PASSWORD '%s';" % (db, M(ap)), "CREATE ROLE", "",
            "Time: %dms total (execution %dms / network 1ms)" % (R.randrange(20, 90), R.randrange(10, 19)), "",
            pr + "GRANT ALL ON DATABASE %s TO %s;" % (db, db), "GRANT", "", "Time: %dms total (execution %dms / network 0ms)" % (R.randrange(10, 40), R.randrange(5, 9)),
            "", pr + "\\q"]
    cmd = "cockroach sql --url 'postgresql://root:%s@%s:26257/defaultdb?sslmode=verify-full&sslrootcert=certs/ca.crt'" % (M(rp), h)
    return render(pick_frame(), c, [(cmd, "\n".join(sess))])


@positive
def p_elasticsearch_keystore_show():
    c = Ctx()
    es = "/usr/share/elasticsearch/bin"
    kp = pw(pick([1, 2]))
    s3 = aws_secret()
    newp = rs(20, ALNUM + "*_+=-")
    names = ["bootstrap.password", "keystore.seed", "s3.client.default.access_key", "s3.client.default.secret_key",
             "xpack.security.http.ssl.keystore.secure_password", "xpack.security.transport.ssl.keystore.secure_password",
             "xpack.security.transport.ssl.truststore.secure_password"]
    steps = [("sudo %s/elasticsearch-keystore list" % es, "\n".join(names)),
             ("sudo %s/elasticsearch-keystore show xpack.security.http.ssl.keystore.secure_password" % es, M(kp))]
    if R.random() < 0.6:
        steps.append(("sudo %s/elasticsearch-keystore show s3.client.default.secret_key" % es, M(s3)))
    if R.random() < 0.7:
        steps.append(("sudo %s/elasticsearch-reset-password -u elastic -a -b" % es,
                      "Password for the [elastic] user successfully reset.\nNew value: %s" % M(newp)))
    return render(pick_frame(), c, steps)


@positive
def p_oracle_mkstore_sqlplus():
    c = Ctx()
    wal = pick(["/u01/app/oracle/wallet", "/opt/oracle/network/admin/wallet", "$ORACLE_BASE/admin/wallet"])
    wp = pw_oracle()
    alias = pick(["ORCLPDB1_APP", "FINPROD", "HRDB_SVC", "ERP_%s" % c.site.upper()])
    u = pick(["app_owner", "etl_user", "report_ro", "scott"])
    up = pw_oracle()
    h = "db%02d.%s" % (R.randrange(1, 9), c.dom)
    ban = "Oracle Secret Store Tool Release 19.0.0.0.0 - Production\nVersion 19.4.0.0.0\nCopyright (c) 2004, 2021, Oracle and/or its affiliates. All rights reserved.\n"
    steps = []
    if R.random() < 0.5:
        steps.append(("orapki wallet create -wallet %s -pwd '%s' -auto_login" % (wal, M(wp)),
                      "Oracle PKI Tool Release 19.0.0.0.0 - Production\nVersion 19.4.0.0.0\nCopyright (c) 2004, 2021, Oracle and/or its affiliates. All rights reserved.\n\nOperation is successfully completed."))
    steps.append(("mkstore -wrl %s -createCredential %s %s '%s'" % (wal, alias, u, M(up)), ban + "\nEnter wallet password:   "))
    steps.append(("mkstore -wrl %s -listCredential" % wal, ban + "\nEnter wallet password:   \nList credential (index: connect_string username)\n1: %s %s" % (alias, u)))
    t = c.ts
    steps.append(("sqlplus -L '%s/\"%s\"@//%s:1521/%s'" % (u, M(up), h, alias.split("_")[0]),
                  "\nSQL*Plus: Release 19.0.0.0.0 - Production on %s\nVersion 19.22.0.0.0\n\nCopyright (c) 1982, 2023, Oracle.  All rights reserved.\n\n"
                  "Last Successful login time: %s +00:00\n\nConnected to:\nOracle Database 19c Enterprise Edition Release 19.0.0.0.0 - Production\nVersion 19.22.0.0.0\n\nSQL> "
                  % (t.ctime(), TS().ctime())))
    return render(pick_frame(), c, steps)


@positive
def p_db2_connect_using():
    c = Ctx()
    p = pw(pick([1, 6]))
    inst = pick(["db2inst1", "db2prod", "db2fenc1"])
    db = pick(["SAMPLE", "BLUDB", "ERPPROD", "WHSE"])
    steps = [("db2 connect to %s user %s using %s" % (db, inst, M(p)),
              "\n   Database Connection Information\n\n Database server        = DB2/LINUXX8664 11.5.%d.0\n SQL authorization ID   = %s\n Local database alias   = %s\n"
              % (R.randrange(6, 10), inst.upper(), db))]
    steps.append(('db2 "select count(*) from syscat.tables"', "\n1          \n-----------\n%11d\n\n  1 record(s) selected.\n" % R.randrange(300, 900)))
    if R.random() < 0.5:
        steps.append(("db2cli validate -dsn %s -connect -user %s -passwd %s | tail -4" % (db, inst, M(p)),
                      "  [ CONNECT ] Connection to %s established successfully.\n\n===============================================================================\nThe validation is completed." % db))
    return render(pick_frame(), c, steps)


@positive
def p_mongod_keyfile():
    c = Ctx()
    kf = b64(756)
    k = pick_frame()
    pl = prefixed(k)
    lines = [kf[i:i + 64] for i in range(0, len(kf), 64)]
    body = "\n".join(M(x) for x in lines) if pl else M("\n".join(lines))
    path = pick(["/etc/mongod/keyfile", "/var/lib/mongodb/keyfile", "/etc/mongo/rs0.key"])
    steps = [("sudo cat %s" % path, body), ("grep -A3 '^security' /etc/mongod.conf", "security:\n  keyFile: %s\n  authorization: enabled" % path)]
    if R.random() < 0.4:
        cp = pw(1, urlsafe=True)
        steps.append(("mongosh 'mongodb://clusterAdmin:%s@mongo-0.%s:27017/admin?replicaSet=rs0' --quiet --eval 'rs.status().ok'" % (M(cp), c.dom), "1"))
    return render(k, c, steps)


# ================================================================ positives: monitoring
@positive
def p_zabbix_api_jsonrpc():
    c = Ctx()
    u = pick(["api-automation", "Admin", "svc-netbox"])
    p = pw(pick([0, 2, 6]))
    sess = hx(32)
    url = "https://zabbix.%s/api_jsonrpc.php" % c.dom
    steps = [("curl -s -X POST -H 'Content-Type: application/json-rpc' %s -d '{\"jsonrpc\":\"2.0\",\"method\":\"user.login\",\"params\":{\"username\":\"%s\",\"password\":\"%s\"},\"id\":1}'" % (url, u, M(p)),
              '{"jsonrpc":"2.0","result":"%s","id":1}' % M(sess))]
    hosts = "\n".join('{"hostid":"%d","host":"%s"}' % (R.randrange(10084, 10900), h) for h in ["Zabbix server", pick(HOSTS), pick(HOSTS)])
    if R.random() < 0.5:
        steps.append(("curl -s -X POST -H 'Content-Type: application/json-rpc' -H 'Authorization: Bearer %s' %s -d '{\"jsonrpc\":\"2.0\",\"method\":\"host.get\",\"params\":{\"output\":[\"hostid\",\"host\"],\"limit\":3},\"id\":2}' | jq -c '.result[]'" % (M(sess), url), hosts))
    else:
        steps.append(("curl -s -X POST -H 'Content-Type: application/json-rpc' %s -d '{\"jsonrpc\":\"2.0\",\"method\":\"host.get\",\"params\":{\"output\":[\"hostid\",\"host\"],\"limit\":3},\"auth\":\"%s\",\"id\":2}' | jq -c '.result[]'" % (url, M(sess)), hosts))
    return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c, steps)


@positive
def p_icinga2_api_users_conf():
    c = Ctx()
    rp = hx(16)
    dp = pw(pick([1, 2]))
    conf = ["/**", " * The ApiUser objects are used for authentication against the API.", " */", 'object ApiUser "root" {',
            '  password = "%s"' % M(rp), '  // client_cn = ""', "", '  permissions = [ "*" ]', "}", "",
            'object ApiUser "%s" {' % pick(["director", "icingaweb2", "grafana"]), '  password = "%s"' % M(dp),
            '  permissions = [ "object/modify/*", "objects/query/*", "status/query", "actions/*", "events/*" ]', "}"]
    uname = conf[10].split('"')[1]
    steps = [("curl -k -s -u %s:%s 'https://localhost:5665/v1/status/IcingaApplication' | jq -r '.results[0].status.icingaapplication.app.version'" % (uname, M(dp)),
              "r2.14.%d-1" % R.randrange(0, 4))]
    return show_file(c, "/etc/icinga2/conf.d/api-users.conf", "\n".join(conf), sudo=True, extra_steps=steps)


@positive
def p_telegraf_conf_outputs():
    c = Ctx()
    tok = influx_token()
    mp = pw(pick([1, 2]), urlsafe=True)
    ap, pp = pw(1), pw(1)
    conf = ["[agent]", '  interval = "10s"', "  round_interval = true", "  metric_batch_size = 1000", '  hostname = ""',
            "  omit_hostname = false", "", "[[outputs.influxdb_v2]]", '  urls = ["https://influx.%s:8086"]' % c.dom,
            '  token = "%s"' % M(tok), '  organization = "%s"' % c.org, '  bucket = "telegraf"', "",
            "[[inputs.mysql]]", '  servers = ["telegraf:%s@tcp(127.0.0.1:3306)/?tls=false"]' % M(mp), "  gather_process_list = true"]
    if R.random() < 0.6:
        conf += ["", "[[inputs.snmp]]", '  agents = ["udp://%s:161"]' % ip_priv(), "  version = 3", '  sec_name = "telegraf"',
                 '  auth_protocol = "SHA"', '  auth_password = "%s"' % M(ap), '  sec_level = "authPriv"', '  priv_protocol = "AES"',
                 '  priv_password = "%s"' % M(pp)]
    steps = None
    if R.random() < 0.4:
        steps = [("telegraf --config /etc/telegraf/telegraf.conf --input-filter mysql --test 2>&1 | head -3",
                  "%s I! Loading config: /etc/telegraf/telegraf.conf\n%s I! Starting Telegraf 1.%d.%d brought to you by InfluxData the makers of InfluxDB\n> mysql,host=%s,server=127.0.0.1:3306 aborted_clients=%di,threads_connected=%di %d"
                  % (c.ts.iso(), c.ts.iso(), R.randrange(28, 33), R.randrange(0, 4), c.host, R.randrange(0, 50), R.randrange(1, 90), c.ts.epoch() * 10 ** 9))]
    return show_file(c, "/etc/telegraf/telegraf.conf", "\n".join(conf), sudo=True, extra_steps=steps)


@positive
def p_netdata_claim():
    c = Ctx()
    tok = rs(135, ALNUM + "-_")
    room = uuid4()
    kind = R.randrange(3)
    if kind == 0:
        out = ("Token: ****************\nBase URL: https://app.netdata.cloud\nId: %s\nRooms: %s\nHostname: %s\nProxy: \nNetdata user: netdata\n"
               "Generating private/public key for the first time.\nGenerating RSA private key, 2048 bit long modulus (2 primes)\n"
               "...........+++++\n.......................+++++\ne is 65537 (0x010001)\nwriting RSA key\nConnection attempt 1 successful\nNode was successfully claimed."
               % (uuid4(), room, c.host))
        return render(pick_frame(), c, [("sudo netdata-claim.sh -token=%s -rooms=%s -url=https://app.netdata.cloud" % (M(tok), room), out)])
    if kind == 1:
        cmd = ("wget -O /tmp/netdata-kickstart.sh https://get.netdata.cloud/kickstart.sh && sh /tmp/netdata-kickstart.sh --stable-channel --claim-token %s --claim-rooms %s --claim-url https://app.netdata.cloud"
               % (M(tok), room))
        out = (" --- Using /tmp/netdata-kickstart-%s as a temporary directory. --- \n --- Checking for existing installations of Netdata... --- \n"
               "[/tmp/netdata-kickstart-%s]$ sh -c /usr/sbin/netdata -W buildinfo  OK\n\n --- Attempting to install using native packages... --- \n"
               " --- Successfully installed native packages --- \n --- Attempting to connect agent to cloud... --- \n Successfully claimed node" % (rs(10, ALNUM), rs(10, ALNUM)))
        return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c, [(cmd, out)])
    conf = "[global]\n   url = https://app.netdata.cloud\n   token = %s\n   rooms = %s\n   proxy = env\n   insecure = no" % (M(tok), room)
    return show_file(c, "/etc/netdata/claim.conf", conf, sudo=True, views=["cat", "cat -n", "read", "sed"])


# ================================================================ positives: hypervisors and clouds
@positive
def p_pveum_token_add():
    c = Ctx()
    user = pick(["root@pam", "terraform@pve", "ci@pve", "%s@pam" % c.user])
    tid = pick(["ci", "tf", "packer", "ansible", "backup"])
    val = uuid4()
    full = "%s!%s" % (user, tid)
    w1, w2 = 14, max(38, len(full) + 2)
    def row(k, v):
        return "\u2502 %-*s\u2502 %-*s\u2502" % (w1 - 1, k, w2 - 1, v)
    top = "\u250c" + "\u2500" * w1 + "\u252c" + "\u2500" * w2 + "\u2510"
    hdr = "\u255e" + "\u2550" * w1 + "\u256a" + "\u2550" * w2 + "\u2561"
    mid = "\u251c" + "\u2500" * w1 + "\u253c" + "\u2500" * w2 + "\u2524"
    bot = "\u2514" + "\u2500" * w1 + "\u2534" + "\u2500" * w2 + "\u2518"
    vrow = "\u2502 %-*s\u2502 %s%s\u2502" % (w1 - 1, "value", M(val), " " * (w2 - 1 - len(val)))
    tbl = "\n".join([top, row("key", "value"), hdr, row("full-tokenid", full), mid, row("info", '{"privsep":"0"}'), mid, vrow, bot])
    host = "pve%d.%s" % (R.randrange(1, 5), c.dom)
    steps = [("pveum user token add %s %s --privsep 0" % (user, tid), tbl)]
    if R.random() < 0.6:
        steps.append(("curl -sk -H 'Authorization: PVEAPIToken=%s=%s' https://%s:8006/api2/json/nodes | jq -r '.data[].node'" % (full, M(val), host),
                      "\n".join("pve%d" % i for i in range(1, R.randrange(3, 5)))))
    else:
        steps.append(("grep PM_ .envrc", 'export PM_API_URL="https://%s:8006/api2/json"\nexport PM_API_TOKEN_ID="%s"\nexport PM_API_TOKEN_SECRET="%s"' % (host, full, M(val))))
    return render(pick_frame(), c, steps, root=user.startswith("root") and R.random() < 0.5)


@positive
def p_govc_env_about():
    c = Ctx()
    vc = "vcsa%s.%s" % (pick(["", "01", "-" + c.site]), c.dom)
    p = pw(pick([0, 2, 6]), urlsafe=True)
    user = pick(["administrator@vsphere.local", "svc-packer@vsphere.local", "%s@%s" % (c.user, c.dom)])
    env = "GOVC_URL=https://%s/sdk\nGOVC_USERNAME=%s\nGOVC_PASSWORD=%s\nGOVC_INSECURE=true\nGOVC_DATACENTER=%s\nGOVC_DATASTORE=vsanDatastore" % (vc, user, M(p), c.site.upper())
    about = ("FullName:     VMware vCenter Server 8.0.2 build-%d\nName:         VMware vCenter Server\nVendor:       VMware, Inc.\nVersion:      8.0.2\n"
             "Build:        %d\nOS type:      linux-x64\nAPI type:     VirtualCenter\nAPI version:  8.0.2.0\nProduct ID:   vpx\nUUID:         %s"
             % ((R.randrange(22000000, 23999999),) * 2 + (uuid4(),)))
    steps = [("govc env", env), ("govc about", about)]
    if R.random() < 0.4:
        steps.append(("govc session.login -u '%s:%s@%s' && echo ok" % (user.split("@")[0], M(p), vc), "ok"))
    return render(pick_frame(), c, steps)


@positive
def p_openstack_clouds_yaml():
    c = Ctx()
    p = pw(pick([0, 1, 2, 6]))
    acs = rs(86, B64URL)
    y = ["clouds:", "  prod:", "    auth:", "      auth_url: https://keystone.%s:5000/v3" % c.dom, '      username: "ops-automation"',
         '      password: "%s"' % M(p), "      project_id: %s" % hx(32), '      project_name: "ops"', '      user_domain_name: "Default"',
         '    region_name: "RegionOne"', '    interface: "public"', "    identity_api_version: 3"]
    if R.random() < 0.7:
        y += ["  ci:", "    auth_type: v3applicationcredential", "    auth:", "      auth_url: https://keystone.%s:5000/v3" % c.dom,
              '      application_credential_id: "%s"' % hx(32), '      application_credential_secret: "%s"' % M(acs),
              '    region_name: "RegionOne"', '    interface: "public"', "    identity_api_version: 3"]
    steps = None
    if R.random() < 0.4:
        steps = [("openstack --os-cloud prod token issue -f value -c expires", TS().iso(z=False) + "+0000")]
    return show_file(c, pick(["~/.config/openstack/clouds.yaml", "clouds.yaml", "/etc/openstack/clouds.yaml"]), "\n".join(y), extra_steps=steps)


@positive
def p_ovh_conf_credentials():
    c = Ctx()
    ak = rs(16, ALNUM)
    asec = rs(32, ALNUM)
    ck = rs(32, ALNUM)
    conf = "[default]\nendpoint=ovh-eu\n\n[ovh-eu]\napplication_key=%s\napplication_secret=%s\nconsumer_key=%s" % (ak, M(asec), M(ck))
    ts = c.ts.epoch()
    sig = "$1$" + hx(40)
    steps = [("curl -s https://eu.api.ovh.com/1.0/domain/zone -H 'X-Ovh-Application: %s' -H 'X-Ovh-Consumer: %s' -H 'X-Ovh-Timestamp: %d' -H 'X-Ovh-Signature: %s'" % (ak, M(ck), ts, sig),
              '["%s","%s"]' % (c.dom, pick(DOMAINS)))]
    return show_file(c, pick(["~/.ovh.conf", "ovh.conf", "/etc/ovh.conf"]), conf, extra_steps=steps if R.random() < 0.6 else None)


@positive
def p_ceph_auth_virsh_secret():
    c = Ctx()
    key = ceph_key()
    u = uuid4()
    cl = pick(["client.libvirt", "client.cinder", "client.nova", "client.kvm-%s" % c.site])
    pool = pick(["vms", "rbd", "volumes"])
    steps = [("sudo ceph auth get-or-create %s mon 'profile rbd' osd 'profile rbd pool=%s'" % (cl, pool), "[%s]\n\tkey = %s" % (cl, M(key)))]
    steps.append(("cat secret.xml", "<secret ephemeral='no' private='no'>\n  <uuid>%s</uuid>\n  <usage type='ceph'>\n    <name>%s secret</name>\n  </usage>\n</secret>" % (u, cl)))
    steps.append(("sudo virsh secret-define --file secret.xml", "Secret %s created\n" % u))
    steps.append(("sudo virsh secret-set-value --secret %s --base64 %s" % (u, M(key)), "error: Passing secret value as command-line argument is insecure!\nSecret value set\n"))
    if R.random() < 0.6:
        steps.append(("sudo virsh secret-get-value %s" % u, M(key)))
    return render(pick_frame(), c, steps)


# ================================================================ negatives helpers
def ssh_pub(kind="ed25519"):
    def f():
        if kind == "ed25519":
            blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rbytes(32)
        elif kind == "ecdsa":
            blob = b"\x00\x00\x00\x13ecdsa-sha2-nistp256\x00\x00\x00\x08nistp256\x00\x00\x00\x41\x04" + rbytes(64)
        else:
            blob = b"\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x81\x00" + rbytes(384)
        return base64.b64encode(blob).decode()
    return fresh(f)


def colon_hex(n, upper=True):
    return ":".join(hx(2, upper) for _ in range(n))


def cisco_mac():
    m = mac("")
    return "%s.%s.%s" % (m[0:4], m[4:8], m[8:12])


def postfix_qid():
    return rs(R.choice([12, 13, 14]), "0123456789BCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz")


def vault_hex_lines(nbytes=None):
    nbytes = nbytes or R.choice([48, 64, 96, 128])
    inner = (hx(64) + "\n" + hx(64) + "\n" + hx(nbytes * 2)).encode()
    h = inner.hex()
    return [h[i:i + 80] for i in range(0, len(h), 80)]


# ================================================================ negatives: network devices
@negative
def n_cisco_show_run_hashed():
    c = Ctx()
    dev = pick(["core-sw2", "acc-sw-%s-04" % c.site, "c9300-idf%d" % R.randrange(1, 9), "isr4331-br%d" % R.randrange(1, 20)])
    tp = "TP-self-signed-%d" % R.randrange(10 ** 9, 4 * 10 ** 9)
    certhex = []
    for _ in range(R.randrange(5, 8)):
        certhex.append("  " + " ".join(hx(8, True) for _ in range(8)))
    lines = ["hostname " + dev, "!", "enable secret 9 " + cisco_hash(9), "!",
             "username %s privilege 15 secret 9 %s" % (pick(["netadmin", "noc", c.user]), cisco_hash(9)),
             "username backup privilege 5 secret 8 " + cisco_hash(8),
             "username rancid privilege 1 secret 5 " + cisco_hash(5), "!",
             "crypto pki trustpoint " + tp, " enrollment selfsigned", " subject-name cn=IOS-Self-Signed-Certificate-%s" % tp.split("-")[-1],
             " revocation-check none", " rsakeypair " + tp, "!", "crypto pki certificate chain " + tp, " certificate self-signed 01"]
    lines += certhex + ["  \tquit", "!", "license udi pid C9300-48P sn FOC%s" % rs(8, UPPER + DIGITS), "!",
                        "ip ssh version 2", "ip ssh pubkey-chain", "  username %s" % c.user,
                        "   key-hash ssh-rsa %s %s@%s" % (hx(32, True), c.user, c.host), "!",
                        "snmp-server engineID local 800000090300%s" % mac("").upper(),
                        "snmp-server group NMS v3 priv read V3READ", "snmp-server view V3READ iso included", "!",
                        "archive", " path flash:archive", " write-memory", "!", "end"]
    return render(pick_frame(), c, [("ssh %s 'show running-config | exclude ^ description'" % dev, "\n".join(lines))])


@negative
def n_cisco_show_crypto_ipsec_sa():
    c = Ctx()
    la, ra = ip_pub(), ip_pub()
    spi_in, spi_out = R.getrandbits(32), R.getrandbits(32)
    p = R.randrange(100000, 9000000)
    out = ["interface: Tunnel%d" % R.randrange(0, 200), "    Crypto map tag: Tunnel100-head-0, local addr %s" % la, "",
           "   protected vrf: (none)", "   local  ident (addr/mask/prot/port): (10.%d.0.0/255.255.0.0/0/0)" % R.randrange(0, 255),
           "   remote ident (addr/mask/prot/port): (10.%d.0.0/255.255.0.0/0/0)" % R.randrange(0, 255),
           "   current_peer %s port 4500" % ra, "     PERMIT, flags={origin_is_acl,}",
           "    #pkts encaps: %d, #pkts encrypt: %d, #pkts digest: %d" % (p, p, p),
           "    #pkts decaps: %d, #pkts decrypt: %d, #pkts verify: %d" % (p - 311, p - 311, p - 311), "",
           "     local crypto endpt.: %s, remote crypto endpt.: %s" % (la, ra),
           "     plaintext mtu 1422, path mtu 1500, ip mtu 1500, ip mtu idb GigabitEthernet0/0/0",
           "     current outbound spi: 0x%X(%d)" % (spi_out, spi_out), "     PFS (Y/N): N, DH group: none", "",
           "     inbound esp sas:", "      spi: 0x%X(%d)" % (spi_in, spi_in), "        transform: esp-256-aes esp-sha256-hmac ,",
           "        in use settings ={Tunnel, }",
           "        conn id: %d, flow_id: CSR:%d, sibling_flags FFFFFFFF80000048, crypto map: Tunnel100-head-0" % (R.randrange(2000, 3000), R.randrange(1, 99)),
           "        sa timing: remaining key lifetime (k/sec): (%d/%d)" % (R.randrange(4000000, 4608000), R.randrange(100, 3600)),
           "        IV size: 16 bytes", "        replay detection support: Y", "        Status: ACTIVE(ACTIVE)"]
    ike = ["IPv4 Crypto IKEv2  SA", "", "Tunnel-id Local                 Remote                fvrf/ivrf            Status ",
           "%-9d %-21s %-21s none/none            READY  " % (R.randrange(1, 9), la + "/4500", ra + "/4500"),
           "      Encr: AES-CBC, keysize: 256, PRF: SHA256, Hash: SHA256, DH Grp:14, Auth sign: PSK, Auth verify: PSK",
           "      Life/Active Time: 86400/%d sec" % R.randrange(100, 86000),
           "      CE id: %d, Session-id: %d" % (R.randrange(1000, 9999), R.randrange(1, 999)),
           "      Local spi: %s       Remote spi: %s" % (hx(16, True), hx(16, True))]
    return render(pick_frame(), c, [("ssh rtr-%s 'show crypto ipsec sa'" % c.site, "\n".join(out)),
                                    ("ssh rtr-%s 'show crypto ikev2 sa detailed'" % c.site, "\n".join(ike))])


@negative
def n_show_mac_address_table():
    c = Ctx()
    rows = ["          Mac Address Table", "-------------------------------------------", "",
            "Vlan    Mac Address       Type        Ports", "----    -----------       --------    -----",
            " All    0100.0ccc.cccc    STATIC      CPU", " All    0180.c200.0000    STATIC      CPU"]
    macs = []
    for _ in range(R.randrange(6, 11)):
        m = cisco_mac()
        macs.append(m)
        rows.append("%4d    %s    DYNAMIC     Gi1/0/%d" % (pick([10, 20, 30, 110]), m, R.randrange(1, 48)))
    rows.append("Total Mac Addresses for this criterion: %d" % (len(macs) + 2))
    arp = ["Protocol  Address          Age (min)  Hardware Addr   Type   Interface"]
    for m in macs[:R.randrange(3, 6)]:
        arp.append("Internet  %-16s %9s   %s  ARPA   Vlan%d" % (ip_priv(), pick(["-", str(R.randrange(0, 240))]), m, pick([10, 20, 30])))
    sw = pick(["acc-sw-%s-01" % c.site, "idf2-sw", "c2960x-lab"])
    text = "%s#show mac address-table\n%s\n%s#show ip arp\n%s\n%s#" % (sw, "\n".join(rows), sw, "\n".join(arp), sw)
    return render(pick_frame(), c, [("tmux capture-pane -pt noc:%d -S -80" % R.randrange(0, 6), text)])


@negative
def n_junos_show_config_hashed():
    c = Ctx()
    dev = pick(["mx204-edge", "srx-%s-02" % c.site, "ex2300-acc"])
    user = pick(["ops", "automation", c.user])
    cfg = ["system {", "    host-name %s;" % dev, "    root-authentication {",
           '        encrypted-password "%s"; ## SECRET-DATA' % sha512crypt(),
           '        ssh-ed25519 "ssh-ed25519 %s %s@%s";' % (ssh_pub(), c.user, c.host), "    }", "    login {",
           "        user %s {" % user, "            uid 2001;", "            class super-user;", "            authentication {",
           '                encrypted-password "%s"; ## SECRET-DATA' % sha512crypt(),
           '                ssh-rsa "ssh-rsa %s %s";' % (ssh_pub("rsa")[:200] + rs(40, B64), user), "            }", "        }", "    }",
           "    services {", "        ssh {", "            root-login deny;", "        }", "        netconf {", "            ssh;", "        }", "    }", "}"]
    hw = ["Hardware inventory:", "Item             Version  Part number  Serial number     Description",
          "Chassis                                %-17s %s" % (rs(12, UPPER + DIGITS), pick(["MX204", "SRX345", "EX2300-24P"])),
          "Routing Engine 0 REV 10   750-%06d   %-17s RE-S-1600x8" % (R.randrange(0, 999999), rs(8, UPPER + DIGITS)),
          "FPC 0            REV 19   750-%06d   %-17s MPC" % (R.randrange(0, 999999), rs(8, UPPER + DIGITS))]
    commits = ["%d   %s UTC by %s via %s" % (i, TS().sql(), pick([user, "root"]), pick(["cli", "netconf"])) for i in range(4)]
    return render(pick_frame(), c, [("ssh %s@%s 'show configuration system'" % (user, dev), "\n".join(cfg)),
                                    ("ssh %s@%s 'show chassis hardware'" % (user, dev), "\n".join(hw)),
                                    ("ssh %s@%s 'show system commit | no-more'" % (user, dev), "\n".join(commits))])


@negative
def n_mikrotik_export_default_hidden():
    c = Ctx()
    t = c.ts
    lines = ["# %s %02d:%02d:%02d by RouterOS 7.%d.%d" % ("%04d-%02d-%02d" % (t.y, t.mo, t.d), t.h, t.mi, t.s, R.randrange(11, 17), R.randrange(0, 4)),
             "# software id = %s-%s" % (rs(4, UPPER + DIGITS), rs(4, UPPER + DIGITS)), "#", "# model = RB5009UG+S+",
             "# serial number = %s" % rs(12, UPPER + DIGITS), "/interface wireguard",
             "add listen-port=%d mtu=1420 name=wg-%s" % (R.randrange(13000, 52000), c.site), "/interface wireguard peers"]
    for _ in range(R.randrange(2, 4)):
        lines.append('add allowed-address=10.66.%d.%d/32 interface=wg-%s name=%s public-key="%s"' % (
            R.randrange(0, 255), R.randrange(2, 250), c.site, pick(HOSTS), wgkey()))
    lines += ["/ip ipsec identity", "add peer=dc2", "/ppp secret", "add name=rw-%s profile=vpn-profile service=l2tp" % pick(USERS),
              "/system identity", "set name=rb-%s" % c.site]
    certs = [" 0 K   L  A  T name=\"%s-ca\" common-name=\"%s CA\" key-size=2048 days-valid=3650 trusted=yes key-usage=key-cert-sign,crl-sign" % (c.org, c.org),
             "       serial-number=\"%s\" fingerprint=\"%s\" akid=\"\" skid=%s" % (hx(16, True), hx(64), hx(40)),
             "       invalid-before=%s invalid-after=%04d%s expires-after=%dw%dd" % (c.ts.sql(), c.ts.y + 10, c.ts.sql()[4:], R.randrange(50, 500), R.randrange(0, 7))]
    return render(pick_frame(), c, [("ssh admin@%s /export" % ip_priv(), "\n".join(lines)),
                                    ("ssh admin@%s '/certificate print detail'" % ip_priv(), "Flags: K - PRIVATE-KEY; L - CRL; A - AUTHORITY; T - TRUSTED\n" + "\n".join(certs))])


@negative
def n_pfsense_config_certs_hashes():
    c = Ctx()
    cb = cert_body(R.randrange(700, 900))
    crt = base64.b64encode(("-----BEGIN CERTIFICATE-----\n" + "\n".join(cb[i:i + 64] for i in range(0, len(cb), 64)) + "\n-----END CERTIFICATE-----\n").encode()).decode()
    ak = base64.b64encode(("ssh-ed25519 %s %s@%s" % (ssh_pub(), c.user, c.host)).encode()).decode()
    x = ["\t\t<user>", "\t\t\t<name>%s</name>" % c.user, "\t\t\t<descr><![CDATA[%s]]></descr>" % c.user.capitalize(),
         "\t\t\t<scope>user</scope>", "\t\t\t<groupname>admins</groupname>", "\t\t\t<bcrypt-hash>%s</bcrypt-hash>" % bcrypt_hash(10),
         "\t\t\t<uid>%d</uid>" % R.randrange(2000, 2100), "\t\t\t<priv>user-shell-access</priv>",
         "\t\t\t<authorizedkeys>%s</authorizedkeys>" % ak, "\t\t\t<ipsecpsk></ipsecpsk>", "\t\t\t<webguicss>pfSense.css</webguicss>",
         "\t\t</user>", "\t<ca>", "\t\t<refid>%s</refid>" % hx(13), "\t\t<descr><![CDATA[%s Root CA]]></descr>" % c.org.capitalize(),
         "\t\t<trust>disabled</trust>", "\t\t<randomserial>enabled</randomserial>", "\t\t<crt>%s</crt>" % crt,
         "\t\t<serial>%d</serial>" % R.randrange(2, 90), "\t</ca>", "\t<revision>", "\t\t<time>%d</time>" % c.ts.epoch(),
         "\t\t<description><![CDATA[%s@%s (Local Database): /system_usermanager.php made unknown change]]></description>" % (c.user, ip_priv()),
         "\t\t<username><![CDATA[%s@%s (Local Database)]]></username>" % (c.user, ip_priv()), "\t</revision>"]
    return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c,
                  [("xmllint --xpath '//system/user|//ca|//revision' backups/config-fw.%s.xml" % c.dom, "\n".join(x))])


@negative
def n_snmpwalk_hex_strings():
    c = Ctx()
    h = pick(["sw-core-01", "ups-%s" % c.site, "fw-%s" % c.site, ip_priv()])
    eng = "80 00 00 09 03 00 " + " ".join(hx(2, True) for _ in range(6))
    lines = ["SNMPv2-MIB::sysDescr.0 = STRING: Cisco IOS Software [Cupertino], Catalyst L3 Switch Software (CAT9K_IOSXE), Version 17.9.%d" % R.randrange(1, 5),
             "SNMPv2-MIB::sysObjectID.0 = OID: SNMPv2-SMI::enterprises.9.1.%d" % R.randrange(2000, 3000),
             "DISMAN-EVENT-MIB::sysUpTimeInstance = Timeticks: (%d) %d days, %d:%02d:%02d.%02d" % (R.randrange(10 ** 8, 10 ** 9), R.randrange(1, 300), R.randrange(0, 24), R.randrange(0, 60), R.randrange(0, 60), R.randrange(0, 100)),
             "SNMP-FRAMEWORK-MIB::snmpEngineID.0 = Hex-STRING: %s " % eng,
             "SNMP-FRAMEWORK-MIB::snmpEngineBoots.0 = INTEGER: %d" % R.randrange(1, 90),
             "IF-MIB::ifPhysAddress.%d = STRING: %s" % (R.randrange(1, 60), mac()),
             "ENTITY-MIB::entPhysicalSerialNum.1000 = STRING: \"FOC%s\"" % rs(8, UPPER + DIGITS),
             "LLDP-MIB::lldpRemChassisId.0.%d.1 = Hex-STRING: %s " % (R.randrange(1, 60), " ".join(hx(2, True) for _ in range(6))),
             "LLDP-MIB::lldpRemSysName.0.%d.1 = STRING: %s" % (R.randrange(1, 60), pick(HOSTS)),
             "HOST-RESOURCES-MIB::hrSWInstalledName.%d = STRING: \"openssl-3.0.%d-0ubuntu1.%d\"" % (R.randrange(10, 900), R.randrange(2, 14), R.randrange(1, 20)),
             "SNMPv2-SMI::enterprises.9.9.48.1.1.1.6.1 = Counter32: %d" % R.randrange(10 ** 6, 10 ** 9),
             "SNMP-USER-BASED-SM-MIB::usmUserSecurityName.\"%s\".\"nms\" = STRING: nms" % eng.replace(" ", ":")]
    return render(pick_frame(), c, [("snmpwalk -v3 -l authPriv -n '' %s .1.3.6.1 2>/dev/null | grep -E 'sysDescr|sysObjectID|UpTime|snmpEngine|ifPhysAddress|SerialNum|lldpRem|hrSWInstalledName|enterprises|usmUser' | head -20" % h, "\n".join(lines))])


# ================================================================ negatives: VPNs
@negative
def n_wg_show_endpoints_handshakes():
    c = Ctx()
    ifs = pick(["wg0", "wg-mesh", "wg1"])
    peers = [wgkey() for _ in range(R.randrange(2, 5))]
    t = c.ts.epoch()
    ep = "\n".join("%s\t%s\t%s" % (ifs, p, pick(["%s:51820" % ip_pub(), "(none)", "%s:%d" % (ip_pub(), R.randrange(30000, 65000))])) for p in peers)
    hs = "\n".join("%s\t%s\t%d" % (ifs, p, pick([0, t - R.randrange(5, 600)])) for p in peers)
    tr = "\n".join("%s\t%s\t%d\t%d" % (ifs, p, R.randrange(0, 10 ** 10), R.randrange(0, 10 ** 10)) for p in peers)
    steps = [("sudo wg show all endpoints", ep), ("sudo wg show all latest-handshakes", hs), ("sudo wg show all transfer", tr),
             ("sudo wg show %s public-key" % ifs, wgkey())]
    return render(pick_frame(), c, steps[:R.randrange(3, 5)])


@negative
def n_tailscale_whois_nodekeys():
    c = Ctx()
    tn = "tail%s.ts.net" % hx(4)
    rows = []
    ips = []
    for i in range(R.randrange(3, 6)):
        ip = "100.%d.%d.%d" % (R.randrange(64, 127), R.randrange(0, 255), R.randrange(1, 254))
        ips.append(ip)
        rows.append("%-16s %-14s %-13s %-7s %s" % (ip, pick(HOSTS), "%s@" % pick(USERS), pick(["linux", "macOS", "windows"]),
                                              pick(["-", "active; direct %s:41641, tx %d rx %d" % (ip_pub(), R.randrange(1000, 10 ** 6), R.randrange(1000, 10 ** 6)), "idle, tx %d rx %d" % (R.randrange(100, 9999), R.randrange(100, 9999)), "offline"])))
    who = ("Machine:\n  Name:          %s.%s\n  ID:            n%sCNTRL\n  Addresses:     [%s/32 fd7a:115c:a1e0::%s:%s/128]\n  AllowedIPs:    [%s/32 fd7a:115c:a1e0::%s:%s/128]\nUser:\n  Name:     %s@%s\n  ID:       %d"
           % (pick(HOSTS), tn, rs(8, ALNUM), ips[1], hx(4), hx(4), ips[1], hx(4), hx(4), pick(USERS), c.dom, R.randrange(10 ** 15, 10 ** 16)))
    js = ('{\n  "ID": "n%sCNTRL",\n  "PublicKey": "nodekey:%s",\n  "HostName": "%s",\n  "DNSName": "%s.%s.",\n  "OS": "linux",\n  "TailscaleIPs": ["%s"]\n}'
          % (rs(8, ALNUM), hx(64), c.host, c.host, tn, ips[0]))
    return render(pick_frame(), c, [("tailscale status", "\n".join(rows)), ("tailscale whois %s" % ips[1], who),
                                    ("tailscale status --json | jq '.Self | {ID, PublicKey, HostName, DNSName, OS, TailscaleIPs}'", js)])


@negative
def n_headscale_nodes_apikeys_list():
    c = Ctx()
    hdr = "ID | Hostname    | Name        | MachineKey | NodeKey | User    | IP addresses                  | Ephemeral | Last seen           | Expiration          | Connected | Expired"
    rows = [hdr]
    for i in range(1, R.randrange(3, 6)):
        hn = pick(HOSTS)
        rows.append("%-2d | %-11s | %-11s | [%s]    | [%s] | %-7s | 100.64.0.%d, fd7a:115c:a1e0::%d | false     | %s | 0001-01-01 00:00:00 | %-9s | no" % (
            i, hn[:11], hn[:11], rs(5, B64URL), rs(5, B64URL), pick(["ops", "servers", "lab"]), i, i, TS().sql(), pick(["online", "offline"])))
    api = ["ID | Prefix  | Expiration          | Created"]
    for i in range(1, R.randrange(2, 4)):
        api.append("%-2d | %s | %s | %s" % (i, rs(7, B64URL), TS().sql(), TS().sql()))
    js = '{\n  "machine_key": "mkey:%s",\n  "node_key": "nodekey:%s",\n  "disco_key": "discokey:%s"\n}' % (hx(64), hx(64), hx(64))
    return render(pick_frame(), c, [("headscale nodes list", "\n".join(rows)), ("headscale apikeys list", "\n".join(api)),
                                    ("headscale nodes list -o json | jq '.[0] | {machine_key, node_key, disco_key}'", js)])


@negative
def n_swanctl_list_sas():
    c = Ctx()
    a, b = "fw1.%s" % c.dom, "fw-%s.%s" % (c.site, c.dom)
    out = ["%s: #%d, ESTABLISHED, IKEv2, %s_i* %s_r" % (c.site, R.randrange(1, 99), hx(16), hx(16)),
           "  local  '%s' @ %s[4500]" % (a, ip_pub()), "  remote '%s' @ %s[4500]" % (b, ip_pub()),
           "  AES_GCM_16-256/PRF_HMAC_SHA2_384/ECP_384", "  established %ds ago, rekeying in %ds" % (R.randrange(10, 9000), R.randrange(1000, 80000)),
           "  net: #%d, reqid %d, INSTALLED, TUNNEL-in-UDP, ESP:AES_GCM_16-256" % (R.randrange(1, 200), R.randrange(1, 9)),
           "    installed %ds ago, rekeying in %ds, expires in %ds" % (R.randrange(10, 3000), R.randrange(100, 3000), R.randrange(3000, 4000)),
           "    in  %s, %7d bytes, %5d packets,     %ds ago" % (hx(8), R.randrange(1000, 10 ** 7), R.randrange(10, 99999), R.randrange(0, 9)),
           "    out %s, %7d bytes, %5d packets,     %ds ago" % (hx(8), R.randrange(1000, 10 ** 7), R.randrange(10, 99999), R.randrange(0, 9)),
           "    local  10.%d.0.0/16" % R.randrange(0, 255), "    remote 10.%d.0.0/16" % R.randrange(0, 255)]
    return render(pick_frame(), c, [("sudo swanctl --list-sas", "\n".join(out))], root=R.random() < 0.3)


@negative
def n_strongswan_pki_print():
    c = Ctx()
    cn = "fw1.%s" % c.dom
    t = c.ts
    out = ["cert:      X509", 'subject:  "C=%s, O=%s, CN=%s"' % (pick(["DE", "NL", "GB", "US"]), c.org.capitalize(), cn),
           'issuer:   "C=DE, O=%s, CN=%s Root CA"' % (c.org.capitalize(), c.org.capitalize()),
           "validity:  not before %s %2d %02d:%02d:%02d %d, ok" % (MONTHS[t.mo - 1], t.d, t.h, t.mi, t.s, t.y),
           "           not after  %s %2d %02d:%02d:%02d %d, ok (expires in %d days)" % (MONTHS[t.mo - 1], t.d, t.h, t.mi, t.s, t.y + 3, R.randrange(300, 1095)),
           "serial:    %s" % colon_hex(R.choice([8, 16]), False), "altNames:  %s" % cn, "flags:     serverAuth ikeIntermediate ",
           "authkeyId: %s" % colon_hex(20, False), "subjkeyId: %s" % colon_hex(20, False), "pubkey:    %s" % pick(["ECDSA 384 bits", "RSA 3072 bits"]),
           "keyid:     %s" % colon_hex(20, False), "subjkey:   %s" % colon_hex(20, False)]
    return render(pick_frame(), c, [("pki --print --in /etc/swanctl/x509/%s.crt" % cn.split(".")[0], "\n".join(out))])


@negative
def n_nebula_cert_print_json():
    c = Ctx()
    t = c.ts
    name = pick(HOSTS)
    j = ('{\n  "details": {\n    "groups": [\n      "%s"\n    ],\n    "ips": [\n      "192.168.%d.%d/24"\n    ],\n    "isCa": false,\n'
         '    "issuer": "%s",\n    "name": "%s",\n    "notAfter": "%d-%02d-%02dT%02d:%02d:%02dZ",\n    "notBefore": "%s",\n'
         '    "publicKey": "%s",\n    "subnets": []\n  },\n  "fingerprint": "%s",\n  "signature": "%s"\n}'
         % (pick(["servers", "infra", "lighthouse"]), R.randrange(100, 200), R.randrange(2, 250), hx(64), name, t.y + 1, t.mo, t.d, t.h, t.mi, t.s,
            t.iso(), hx(64), hx(64), hx(128)))
    return render(pick_frame(), c, [("nebula-cert print -json -path /etc/nebula/host.crt | jq", j)])


@negative
def n_zerotier_cli_listnetworks():
    c = Ctx()
    me = hx(10)
    nws = []
    for _ in range(R.randrange(1, 4)):
        nws.append("200 listnetworks %s %s %s OK PRIVATE zt%s 10.%d.%d.%d/24" % (hx(16), pick(["ops-mesh", "lab-net", c.org + "-vpn"]), mac(), rs(8, LOWER + DIGITS), R.randrange(0, 255), R.randrange(0, 255), R.randrange(2, 250)))
    peers = ["200 listpeers <ztaddr> <path> <latency> <version> <role>"]
    for _ in range(R.randrange(3, 6)):
        peers.append("200 listpeers %s %s/9993;%d;%d %d %s %s" % (hx(10), ip_pub(), R.randrange(100, 9999), R.randrange(100, 9999), R.randrange(5, 300), pick(["1.14.0", "-"]), pick(["LEAF", "PLANET", "LEAF"])))
    return render(pick_frame(), c, [("sudo zerotier-cli info", "200 info %s 1.14.0 ONLINE" % me),
                                    ("sudo zerotier-cli listnetworks", "200 listnetworks <nwid> <name> <mac> <status> <type> <dev> <ZT assigned ips>\n" + "\n".join(nws)),
                                    ("sudo zerotier-cli listpeers", "\n".join(peers)),
                                    ("cat /var/lib/zerotier-one/identity.public", "%s:0:%s" % (me, hx(128)))])


# ================================================================ negatives: RADIUS, LDAP, Kerberos
@negative
def n_radius_detail_acct_log():
    c = Ctx()
    recs = []
    for _ in range(R.randrange(2, 4)):
        t = TS()
        st = pick(["Start", "Stop", "Interim-Update"])
        r = [t.ctime(), "\tAcct-Status-Type = %s" % st, '\tUser-Name = "%s"' % pick(USERS),
             '\tAcct-Session-Id = "%s-%08X"' % (hx(8, True), R.randrange(1, 500)), '\tAcct-Unique-Session-Id = "%s"' % hx(32),
             "\tNAS-IP-Address = %s" % ip_priv(), "\tNAS-Port = %d" % R.randrange(50000, 50200), "\tNAS-Port-Type = %s" % pick(["Ethernet", "Wireless-802.11", "Virtual"]),
             '\tCalling-Station-Id = "%s"' % mac("-").upper(), '\tCalled-Station-Id = "%s:%s"' % (mac("-").upper(), pick(["corp", "guest", "iot"])),
             "\tFramed-IP-Address = 10.8.%d.%d" % (R.randrange(0, 255), R.randrange(2, 250)),
             "\tClass = 0x%s" % ("434143533a" + hx(40)), "\tEvent-Timestamp = \"%s %2d %d %02d:%02d:%02d UTC\"" % (MONTHS[t.mo - 1], t.d, t.y, t.h, t.mi, t.s)]
        if st != "Start":
            r += ["\tAcct-Session-Time = %d" % R.randrange(30, 90000), "\tAcct-Input-Octets = %d" % R.randrange(10 ** 4, 10 ** 9),
                  "\tAcct-Output-Octets = %d" % R.randrange(10 ** 4, 10 ** 9)]
        r += ["\tTimestamp = %d" % t.epoch(), ""]
        recs += r
    nas = ip_priv()
    return render(pick_frame(), c, [("sudo tail -n 60 /var/log/freeradius/radacct/%s/detail-%d%02d%02d" % (nas, c.ts.y, c.ts.mo, c.ts.d), "\n".join(recs).rstrip())])


@negative
def n_freeradius_eap_debug():
    c = Ctx()
    n = R.randrange(3, 40)
    nas = ip_priv()
    me = ip_priv()
    hn = "%s.corp.%s" % (pick(["laptop-%d" % R.randrange(10, 99), "ws-%s" % pick(USERS)]), c.dom)
    idn = R.randrange(0, 255)
    pt = R.randrange(1024, 65000)
    L_ = ["(%d) Received Access-Request Id %d from %s:%d to %s:1812 length %d" % (n, idn, nas, pt, me, R.randrange(200, 400)),
          '(%d)   User-Name = "host/%s"' % (n, hn), "(%d)   Service-Type = Framed-User" % n, "(%d)   Framed-MTU = 1500" % n,
          '(%d)   Called-Station-Id = "%s"' % (n, mac("-").upper()), '(%d)   Calling-Station-Id = "%s"' % (n, mac("-").upper()),
          "(%d)   EAP-Message = 0x02%02x0006%s" % (n, R.randrange(1, 9), hx(4)), "(%d)   Message-Authenticator = 0x%s" % (n, hx(32)),
          "(%d)   State = 0x%s" % (n, hx(32)), "(%d) # Executing section authorize from file /etc/freeradius/3.0/sites-enabled/default" % n,
          "(%d)   authorize {" % n, "(%d) eap: Peer sent EAP Response (code 2) ID %d length 6" % (n, R.randrange(1, 9)),
          "(%d) eap: Continuing tunnel setup" % n, "(%d)     [eap] = ok" % n, "(%d)   } # authorize = ok" % n,
          '(%d) eap_tls: TLS-Session-Cipher-Suite = "ECDHE-RSA-AES256-GCM-SHA384"' % n,
          '(%d) eap_tls: TLS-Session-Version = "TLS 1.2"' % n,
          '(%d) eap_tls: TLS-Client-Cert-Serial := "%s"' % (n, hx(32)),
          '(%d) eap_tls: TLS-Client-Cert-Subject := "/CN=%s"' % (n, hn),
          '(%d) eap_tls: TLS-Client-Cert-Subject-Alt-Name-Dns := "%s"' % (n, hn),
          "(%d) eap_tls: TLS - Handshake state - Server SSLv3/TLS write finished" % n,
          "(%d) Sent Access-Accept Id %d from %s:1812 to %s:%d length 0" % (n, idn, me, nas, pt),
          "(%d)   EAP-Message = 0x03%02x0004" % (n, R.randrange(1, 9)),
          "(%d)   Message-Authenticator = 0x00000000000000000000000000000000" % n,
          '(%d)   User-Name = "host/%s"' % (n, hn), "(%d) Finished request" % n]
    return render(pick_frame(), c, [("sudo freeradius -X 2>&1 | grep -E '^\\(%d\\)' | head -40" % n, "\n".join(L_))])


@negative
def n_kadmin_getprinc():
    c = Ctx()
    realm = c.realm
    h = "%s.%s" % (pick(HOSTS), c.dom)
    t = c.ts
    out = ["kadmin.local:  getprinc host/%s" % h, "Principal: host/%s@%s" % (h, realm), "Expiration date: [never]",
           "Last password change: %s %s %2d %02d:%02d:%02d UTC %d" % (t.wday(), MONTHS[t.mo - 1], t.d, t.h, t.mi, t.s, t.y),
           "Password expiration date: [never]", "Maximum ticket life: 1 day 00:00:00", "Maximum renewable life: 7 days 00:00:00",
           "Last modified: %s %s %2d %02d:%02d:%02d UTC %d (%s/admin@%s)" % (t.wday(), MONTHS[t.mo - 1], t.d, t.h, t.mi, t.s, t.y, c.user, realm),
           "Last successful authentication: [never]", "Last failed authentication: [never]", "Failed password attempts: 0",
           "Number of keys: 2", "Key: vno %d, aes256-cts-hmac-sha1-96" % R.randrange(2, 9), "Key: vno %d, aes128-cts-hmac-sha1-96" % R.randrange(2, 9),
           "MKey: vno 1", "Attributes: REQUIRES_PRE_AUTH", "Policy: [none]", "kadmin.local:  listprincs",
           "K/M@%s" % realm, "kadmin/admin@%s" % realm, "kadmin/changepw@%s" % realm, "krbtgt/%s@%s" % (realm, realm),
           "host/%s@%s" % (h, realm), "%s@%s" % (c.user, realm), "kadmin.local:  quit"]
    return render(pick_frame(), c, [("sudo kadmin.local", "\n".join(out))])


@negative
def n_klist_ccache_tickets():
    c = Ctx()
    realm = "CORP." + c.realm
    u = c.user
    cc = pick(["KCM:%d:%d" % (R.randrange(1000, 1100), R.randrange(10000, 99999)), "FILE:/tmp/krb5cc_%d_%s" % (R.randrange(1000, 1100), rs(6, ALNUM)),
               "KEYRING:persistent:%d:krb_ccache_%s" % (R.randrange(1000, 1100), rs(7, ALNUM))])
    t = c.ts
    a = t.us()
    b = "%02d/%02d/%04d %02d:%02d:%02d" % (t.mo, t.d if t.h < 14 else min(t.d + 1, 28), t.y, (t.h + 10) % 24, t.mi, t.s)
    svcs = ["krbtgt/%s@%s" % (realm, realm), "HTTP/%s.corp.%s@%s" % (pick(HOSTS), c.dom, realm), "cifs/fs01.corp.%s@%s" % (c.dom, realm)]
    rows = []
    for s in svcs[:R.randrange(2, 4)]:
        rows += ["%s  %s  %s" % (a, b, s), "\trenew until %s, Flags: %s" % (TS().us(), pick(["FRIA", "FRA", "FRAT"])),
                 "\tEtype (skey, tkt): aes256-cts-hmac-sha1-96, aes256-cts-hmac-sha1-96 "]
    out = "Ticket cache: %s\nDefault principal: %s@%s\n\nValid starting       Expires              Service principal\n%s" % (cc, u, realm, "\n".join(rows))
    h = "web01.corp.%s" % c.dom
    return render(pick_frame(), c, [("klist -e -f", out), ("kvno HTTP/%s" % h, "HTTP/%s@%s: kvno = %d" % (h, realm, R.randrange(2, 9)))])


@negative
def n_sssd_cache_ldbsearch():
    c = Ctx()
    dom = "corp." + c.dom
    u = c.user
    t = c.ts.epoch()
    sid = "S-1-5-21-%d-%d-%d-%d" % (R.randrange(10 ** 9, 4 * 10 ** 9), R.randrange(10 ** 9, 4 * 10 ** 9), R.randrange(10 ** 7, 4 * 10 ** 9), R.randrange(1000, 9999))
    uid = R.randrange(10 ** 8, 2 * 10 ** 9)
    out = ["asq: Unable to register control with rootdse!", "# record 1",
           "dn: name=%s@%s,cn=users,cn=%s,cn=sysdb" % (u, dom, dom), "createTimestamp: %d" % t, "gidNumber: %d" % uid,
           "name: %s@%s" % (u, dom), "objectClass: user", "uidNumber: %d" % uid, "objectSIDString: %s" % sid,
           "uniqueID: %s" % uuid4(), "originalDN: CN=%s,OU=Users,DC=corp,DC=%s" % (u.capitalize(), ",DC=".join(c.dom.split("."))),
           "cachedPassword: $6$%s$%s" % (rs(16, CRYPT64), rs(86, CRYPT64)), "cachedPasswordType: 1",
           "lastCachedPasswordChange: %d" % (t + 40), "dataExpireTimestamp: %d" % (t + 5400), "initgrExpireTimestamp: %d" % (t + 5400),
           "lastUpdate: %d" % t, "distinguishedName: name=%s@%s,cn=users,cn=%s,cn=sysdb" % (u, dom, dom), "",
           "# returned 1 records", "# 1 entries", "# 0 referrals"]
    return render(pick_frame(), c, [("sudo ldbsearch -H /var/lib/sss/db/cache_%s.ldb name=%s@%s" % (dom, u, dom), "\n".join(out))])


@negative
def n_ldap_ppolicy_history():
    c = Ctx()
    base = ",".join("dc=" + x for x in c.dom.split("."))
    u = pick(USERS)
    ssha = "{SSHA}" + b64(24)
    hist = []
    for _ in range(R.randrange(2, 5)):
        v = "{SSHA}" + b64(24)
        t = TS()
        hist.append("pwdHistory: %04d%02d%02d%02d%02d%02dZ#1.3.6.1.4.1.1466.115.121.1.40#%d#%s" % (t.y, t.mo, t.d, t.h, t.mi, t.s, len(v), v))
    t = c.ts
    out = ["SASL/EXTERNAL authentication started", "SASL username: gidNumber=0+uidNumber=0,cn=peercred,cn=external,cn=auth", "SASL SSF: 0",
           "dn: uid=%s,ou=people,%s" % (u, base), "userPassword:: %s" % base64.b64encode(ssha.encode()).decode(),
           "pwdChangedTime: %04d%02d%02d%02d%02d%02dZ" % (t.y, t.mo, t.d, t.h, t.mi, t.s)] + hist + [
           "pwdFailureTime: %04d%02d%02d%02d%02d%02d.%06dZ" % (t.y, t.mo, t.d, t.h, t.mi, t.s, R.randrange(10 ** 6)), "entryUUID: %s" % uuid4(),
           "entryCSN: %04d%02d%02d%02d%02d%02d.%06dZ#000000#000#000000" % (t.y, t.mo, t.d, t.h, t.mi, t.s, R.randrange(10 ** 6))]
    return render(pick_frame(), c, [("sudo ldapsearch -LLL -Y EXTERNAL -H ldapi:/// -b ou=people,%s '(uid=%s)' userPassword pwdHistory pwdChangedTime pwdFailureTime entryUUID entryCSN" % (base, u), "\n".join(out))])


# ================================================================ negatives: mail and DNS
@negative
def n_dovecot_users_hashed():
    c = Ctx()
    rows = []
    for _ in range(R.randrange(3, 6)):
        u = pick(USERS + ["alerts", "noreply", "helpdesk"]) + "@" + c.dom
        sch = R.randrange(4)
        val = ["{SHA512-CRYPT}" + sha512crypt(), "{ARGON2ID}" + argon2id(), "{BLF-CRYPT}" + bcrypt_hash(10, "$2y$"),
               "{SSHA512}" + b64(72)][sch]
        rows.append("%s:%s:5000:5000::/var/vmail/%s/%s::" % (u, val, c.dom, u.split("@")[0]))
    steps = [("sudo cat /etc/dovecot/users", "\n".join(rows)),
             ("doveadm pw -s ARGON2ID", "Enter new password: \nRetype new password: \n{ARGON2ID}" + argon2id())]
    if R.random() < 0.6:
        who = ["username                    # proto (pids)                     (ips)"]
        for _ in range(R.randrange(2, 4)):
            who.append("%-27s %d %-5s (%d %d)               (%s %s)" % ("%s@%s" % (pick(USERS), c.dom), R.randrange(1, 3), "imap", R.randrange(1000, 99999), R.randrange(1000, 99999), ip_priv(), ip_priv()))
        steps.append(("sudo doveadm who", "\n".join(who)))
    return render(pick_frame(), c, steps)


@negative
def n_opendkim_testkey_vvv():
    c = Ctx()
    sel = pick(["mail", "s%d" % c.ts.y, "dkim%d" % R.randrange(1, 9)])
    pub = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + rs(300, B64) + "IDAQAB"
    t = c.ts
    sig = b64(256)
    out1 = ("opendkim-testkey: using default configfile /etc/opendkim.conf\nopendkim-testkey: checking key '%s._domainkey.%s'\n"
            "opendkim-testkey: key not secure\nopendkim-testkey: key OK" % (sel, c.dom))
    out2 = '"v=DKIM1; h=sha256; k=rsa; " "p=%s" "%s"' % (pub[:250], pub[250:])
    hdr = ("DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=%s;\n\ts=%s; t=%d;\n\tbh=%s;\n\th=From:To:Subject:Date:Message-ID:MIME-Version:Content-Type;\n\tb=%s\n\t %s\n\t %s"
           % (c.dom, sel, t.epoch(), b64(32), sig[:70], sig[70:150], sig[150:]))
    return render(pick_frame(), c, [("opendkim-testkey -d %s -s %s -vvv" % (c.dom, sel), out1),
                                    ("dig +short TXT %s._domainkey.%s" % (sel, c.dom), out2),
                                    ("grep -A6 '^DKIM-Signature' /tmp/outbound-test.eml", hdr)])


@negative
def n_postfix_mailq_queue_ids():
    c = Ctx()
    q1, q2, q3 = postfix_qid(), postfix_qid(), postfix_qid()
    t = c.ts
    def arr():
        tt = TS()
        return "%s %s %2d %02d:%02d:%02d" % (tt.wday(), MONTHS[tt.mo - 1], tt.d, tt.h, tt.mi, tt.s)
    mq = ["-Queue ID-  --Size-- ----Arrival Time---- -Sender/Recipient-------",
          "%-14s %6d %s  alerts@%s" % (q1 + "*", R.randrange(900, 9000), arr(), c.dom), "%41s%s" % ("", "ops@%s" % pick(DOMAINS)), "",
          "%-14s %6d %s  MAILER-DAEMON" % (q2, R.randrange(900, 9000), arr()),
          "(connect to mx.%s[%s]:25: Connection timed out)" % (pick(DOMAINS), ip_pub()), "%41s%s" % ("", "bounce@%s" % c.dom), "",
          "%-14s %6d %s  noreply@%s" % (q3 + "!", R.randrange(900, 9000), arr(), c.dom), "%41s%s" % ("", "%s@%s" % (pick(USERS), pick(DOMAINS))), "",
          "-- %d Kbytes in 3 Requests." % R.randrange(5, 40)]
    pc = ["*** ENVELOPE RECORDS deferred/%s/%s ***" % (q1[0], q1),
          "message_size:            %d             %d               1               0            %d               0" % (R.randrange(900, 9000), R.randrange(300, 900), R.randrange(900, 9000)),
          "message_arrival_time: %s" % t.ctime(), "create_time: %s" % t.ctime(), "named_attribute: log_ident=%s" % q1,
          "named_attribute: rewrite_context=local", "sender: alerts@%s" % c.dom,
          "*** MESSAGE CONTENTS deferred/%s/%s ***" % (q1[0], q1),
          "Received: by mail01.%s (Postfix, from userid %d)" % (c.dom, R.randrange(100, 999)),
          "\tid %s; %s, %d %s %d %02d:%02d:%02d +0000 (UTC)" % (q1, t.wday(), t.d, MONTHS[t.mo - 1], t.y, t.h, t.mi, t.s),
          "Message-Id: <%04d%02d%02d%02d%02d%02d.%s@mail01.%s>" % (t.y, t.mo, t.d, t.h, t.mi, t.s, q1, c.dom)]
    return render(pick_frame(), c, [("mailq", "\n".join(mq)), ("sudo postcat -q %s | head -11" % q1, "\n".join(pc))])


@negative
def n_dnssec_dsfromkey_ds():
    c = Ctx()
    tag = R.randrange(1000, 65535)
    base = "K%s.+013+%05d" % (c.dom, tag)
    t = c.ts
    stamp = "%04d%02d%02d%02d%02d%02d" % (t.y, t.mo, t.d, t.h, t.mi, t.s)
    key = ["; This is a key-signing key, keyid %d, for %s." % (tag, c.dom), "; Created: %s (%s)" % (stamp, t.ctime()),
           "; Publish: %s (%s)" % (stamp, t.ctime()), "; Activate: %s (%s)" % (stamp, t.ctime()),
           "%s. IN DNSKEY 257 3 13 %s" % (c.dom, b64(64))]
    return render(pick_frame(), c, [("dnssec-keygen -a ECDSAP256SHA256 -f KSK %s" % c.dom, "Generating key pair.\n" + base),
                                    ("cat %s.key" % base, "\n".join(key)),
                                    ("dnssec-dsfromkey -2 %s.key" % base, "%s. IN DS %d 13 2 %s" % (c.dom, tag, hx(64, True))),
                                    ("ls -l K%s.*" % c.dom, "-rw-r--r-- 1 %s %s  %d %s %2d %02d:%02d %s.key\n-rw------- 1 %s %s  %d %s %2d %02d:%02d %s.private"
                                     % (c.user, c.user, R.randrange(400, 700), MONTHS[t.mo - 1], t.d, t.h, t.mi, base, c.user, c.user, R.randrange(150, 250), MONTHS[t.mo - 1], t.d, t.h, t.mi, base))])


@negative
def n_named_checkconf_px_obscured():
    c = Ctx()
    keys = []
    for _ in range(R.randrange(1, 3)):
        alg = pick(["hmac-sha256", "hmac-sha512"])
        n = 44 if alg == "hmac-sha256" else 88
        keys += ['key "%s" {' % pick(["ddns-key", "rndc-key", "xfr-%s" % c.site, "external-dns"]), '\talgorithm "%s";' % alg, '\tsecret "%s";' % ("?" * n), "};"]
    conf = keys + ["options {", '\tdirectory "/var/cache/bind";', "\tdnssec-validation auto;", "\tlisten-on-v6 {", '\t\t"any";', "\t};", "};",
                   'zone "%s" {' % c.dom, "\ttype primary;", '\tfile "/var/lib/bind/db.%s";' % c.dom, "\tupdate-policy {",
                   '\t\tgrant "%s" zonesub ANY;' % keys[0].split('"')[1], "\t};", "};"]
    st = ["version: BIND 9.18.%d-1-Debian (Extended Support Version) <id:%s>" % (R.randrange(18, 30), hx(7)),
          "running on localhost: Linux x86_64 6.1.0-%d-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.%d-1 (%d-%02d-%02d)" % (R.randrange(10, 30), R.randrange(60, 130), c.ts.y, c.ts.mo, c.ts.d),
          "boot time: %s, %d %s %d %02d:%02d:%02d GMT" % (c.ts.wday(), c.ts.d, MONTHS[c.ts.mo - 1], c.ts.y, c.ts.h, c.ts.mi, c.ts.s),
          "number of zones: %d (%d automatic)" % (R.randrange(100, 110), R.randrange(95, 100)), "debug level: 0", "xfers running: 0",
          "up queries: 0", "server is up and running"]
    return render(pick_frame(), c, [("sudo named-checkconf -px", "\n".join(conf)), ("sudo rndc status", "\n".join(st))])


@negative
def n_keymgr_list_key_ids():
    c = Ctx()
    t = c.ts.epoch()
    tag1, tag2 = R.randrange(1000, 65535), R.randrange(1000, 65535)
    lst = ["%s ksk=yes zsk=no tag=%d algorithm=13 size=256 public-only=no pre-active=0 publish=%d ready=%d active=%d retire-active=0 retire=0 post-active=0 revoke=0 remove=0" % (hx(40), tag1, t, t + 3600, t + 7200),
           "%s ksk=no zsk=yes tag=%d algorithm=13 size=256 public-only=no pre-active=0 publish=%d ready=0 active=%d retire-active=0 retire=0 post-active=0 revoke=0 remove=0" % (hx(40), tag2, t, t)]
    ds = ["%s. DS %d 13 2 %s" % (c.dom, tag1, hx(64)), "%s. DS %d 13 4 %s" % (c.dom, tag1, hx(96))]
    zs = ("[%s.] role: master | serial: %d%02d%02d%02d | transaction: none | freeze: no | refresh: not scheduled | update: not scheduled | expiration: not scheduled | journal flush: not scheduled | notify: not scheduled | DNSSEC re-sign: +6D23h%dm | DNSSEC submission: not scheduled | parent DS check: not scheduled | NSEC resalt: +29D23h%dm"
          % (c.dom, c.ts.y, c.ts.mo, c.ts.d, R.randrange(1, 20), R.randrange(0, 60), R.randrange(0, 60)))
    return render(pick_frame(), c, [("sudo keymgr %s list" % c.dom, "\n".join(lst)), ("sudo keymgr %s ds" % c.dom, "\n".join(ds)),
                                    ("sudo knotc zone-status %s" % c.dom, zs)])


@negative
def n_pdnsutil_show_zone():
    c = Ctx()
    ser = "%d%02d%02d%02d" % (c.ts.y, c.ts.mo, c.ts.d, R.randrange(1, 20))
    tag = R.randrange(1000, 65535)
    out = ["This is a Master zone", "Last SOA serial number we notified: %s == %s (serial in the database)" % (ser, ser),
           "Metadata items: ", "\tNSEC3PARAM\t1 0 0 -", "\tSOA-EDIT-API\tDEFAULT", "Zone has NSEC3 semantics, configuration: 1 0 0 -", "keys: ",
           "ID = %d (CSK), flags = 257, tag = %d, algo = 13, bits = 256\t  Active\t Published  ( ECDSAP256SHA256 ) " % (R.randrange(1, 40), tag),
           "CSK DNSKEY = %s. IN DNSKEY 257 3 13 %s ; ( ECDSAP256SHA256 )" % (c.dom, b64(64)),
           "DS = %s. IN DS %d 13 2 %s ; ( SHA256 digest )" % (c.dom, tag, hx(64)),
           "DS = %s. IN DS %d 13 4 %s ; ( SHA-384 digest )" % (c.dom, tag, hx(96))]
    return render(pick_frame(), c, [("sudo pdnsutil show-zone %s" % c.dom, "\n".join(out))])


# ================================================================ negatives: backups
@negative
def n_restic_cat_config_keys():
    c = Ctx()
    repo = pick(["sftp:backup@nas01.%s:/srv/restic/%s" % (c.dom, c.host), "s3:s3.%s.amazonaws.com/%s-restic/%s" % (pick(["eu-central-1", "us-east-2"]), c.org, c.host), "rest:https://restic.%s/%s/" % (c.dom, c.host)])
    cfg = '{\n  "version": 2,\n  "id": "%s",\n  "chunker_polynomial": "%s"\n}' % (hx(64), hx(14))
    keys = [" ID        User        Host        Created", "--------------------------------------------------"]
    for i in range(R.randrange(2, 4)):
        keys.append("%s%s  %-10s  %-10s  %s" % ("*" if i == 0 else " ", hx(8), pick(["root", c.user, "backup"]), pick(HOSTS)[:10], TS().sql()))
    keys.append("--------------------------------------------------")
    pre = "export RESTIC_REPOSITORY=%s RESTIC_PASSWORD_FILE=/etc/restic/%s.pass" % (repo, c.host)
    return render(pick_frame(), c, [(pre + " && restic cat config", cfg), ("restic key list", "\n".join(keys))])


@negative
def n_borg_list_archive_ids():
    c = Ctx()
    repo = "ssh://u%d@u%d.your-storagebox.de:23/./borg/%s" % ((R.randrange(100000, 999999),) * 2 + (c.host,))
    rows = []
    for i in range(R.randrange(4, 8)):
        t = TS()
        rows.append("%-36s %s, %04d-%02d-%02d %02d:%02d:%02d %s" % ("%s-%04d-%02d-%02dT%02d:%02d:%02d" % (c.host, t.y, t.mo, t.d, t.h, t.mi, t.s), t.wday(), t.y, t.mo, t.d, t.h, t.mi, t.s, hx(64)))
    rid = hx(64)
    steps = [("BORG_PASSCOMMAND='pass show borg/%s' borg list --format '{archive:<36} {time} {id}{NL}' %s" % (c.host, repo), "\n".join(rows)),
             ("borg config %s id" % repo, rid)]
    return render(pick_frame(), c, steps)


@negative
def n_kopia_snapshot_list():
    c = Ctx()
    path = pick(["/srv/data", "/home", "/etc", "/var/lib/docker/volumes"])
    lines = ["root@%s:%s" % (c.host, path)]
    for lab in ["monthly-1", "weekly-2", "daily-3", "daily-2", "latest-1,daily-1"][:R.randrange(3, 6)]:
        t = TS()
        lines.append("  %s UTC k%s %.1f GB drwxr-xr-x files:%d dirs:%d (%s)" % (t.sql(), hx(32), R.random() * 50 + 1, R.randrange(10000, 900000), R.randrange(1000, 90000), lab))
    man = ["%s %s UTC type:snapshot hostname:%s path:%s username:root" % (hx(32), TS().sql(), c.host, path) for _ in range(R.randrange(2, 4))]
    return render(pick_frame(), c, [("kopia snapshot list %s" % path, "\n".join(lines)), ("kopia manifest list --filter=type:snapshot | head -3", "\n".join(man))])


@negative
def n_velero_backup_describe():
    c = Ctx()
    t = c.ts
    name = "daily-%04d%02d%02d%02d%02d%02d" % (t.y, t.mo, t.d, t.h, t.mi, t.s)
    out = ["Name:         %s" % name, "Namespace:    velero", "Labels:       velero.io/schedule-name=daily",
           "              velero.io/storage-location=default", "Annotations:  velero.io/resource-timeout=10m0s",
           "              velero.io/source-cluster-k8s-gitversion=v1.28.%d" % R.randrange(2, 12), "", "Phase:  Completed", "",
           "Namespaces:", "  Included:  *", "  Excluded:  <none>", "", "Storage Location:  default", "",
           "Started:    %s +0000 UTC" % t.sql(), "Completed:  %s +0000 UTC" % t.tick(R.randrange(60, 600)).sql(), "",
           "Total items to be backed up:  %d" % R.randrange(500, 3000), "Items backed up:              same", "",
           "Velero-Native Snapshots:", "  pvc-%s:" % uuid4(), "    Snapshot ID:        snap-0%s" % hx(16),
           "    Type:               gp3", "    Availability Zone:  eu-central-1%s" % pick("abc"), "    IOPS:               <N/A>",
           "  pvc-%s:" % uuid4(), "    Snapshot ID:        snap-0%s" % hx(16), "    Type:               gp3",
           "    Availability Zone:  eu-central-1%s" % pick("abc"), "", "Backup UID:  %s" % uuid4()]
    return render(pick_frame(), c, [("velero backup describe %s --details" % name, "\n".join(out))])


@negative
def n_duplicity_collection_status():
    c = Ctx()
    url = "boto3+s3://%s-dup/%s" % (c.org, c.host)
    def d():
        t = TS()
        return "%s %s %2d %02d:%02d:%02d %d" % (t.wday(), MONTHS[t.mo - 1], t.d, t.h, t.mi, t.s, t.y)
    out = ["Last full backup date: %s" % d(), "Collection Status", "-----------------", "Connecting with backend: BackendWrapper",
           "Archive dir: /root/.cache/duplicity/%s" % hx(32), "", "Found 0 secondary backup chains.", "",
           "Found primary backup chain with matching signature chain:", "-------------------------",
           "Chain start time: %s" % d(), "Chain end time: %s" % d(), "Number of contained backup sets: 4",
           "Total number of contained volumes: %d" % R.randrange(4, 40), " Type of backup set:                            Time:      Num volumes:"]
    for typ in ["Full", "Incremental", "Incremental", "Incremental"]:
        out.append("%20s         %s %15d" % (typ, d(), R.randrange(1, 12)))
    out += ["-------------------------", "No orphaned or incomplete backup sets found."]
    gpg = ("pub   rsa4096 %d-%02d-%02d [SC]\n      %s\nuid           [ultimate] Backup Signing <backup@%s>\nsub   rsa4096 %d-%02d-%02d [E]"
           % (c.ts.y - 1, c.ts.mo, c.ts.d, hx(40, True), c.dom, c.ts.y - 1, c.ts.mo, c.ts.d))
    return render(pick_frame(), c, [("sudo duplicity collection-status %s" % url, "\n".join(out)), ("sudo gpg --list-keys backup@%s" % c.dom, gpg)])


# ================================================================ negatives: configuration management
@negative
def n_ansible_group_vars_inline_vault():
    c = Ctx()
    y = ["---", "postgres_users:", "  - name: app", "    password: !vault |",
         "          $ANSIBLE_VAULT;1.%s;AES256%s" % ((("1", "")) if R.random() < 0.5 else ("2", ";prod"))]
    y += ["          " + l for l in vault_hex_lines()]
    y += ["    role_attr_flags: LOGIN", "redis_password: \"{{ vault_redis_password }}\"",
          "api_token: \"{{ lookup('community.hashi_vault.hashi_vault', 'secret=kv/data/%s:token') }}\"" % c.proj,
          "admin_password_hash: \"%s\"" % sha512crypt(), "smtp_relay_password: !vault |", "          $ANSIBLE_VAULT;1.1;AES256"]
    y += ["          " + l for l in vault_hex_lines(48)]
    return show_file(c, "inventories/prod/group_vars/%s.yml" % pick(["db", "all", "mail", "app"]), "\n".join(y))


@negative
def n_ansible_setup_facts():
    c = Ctx()
    h = pick(HOSTS)
    if R.random() < 0.5:
        serial = "VMware-42 %s-%s" % (" ".join(hx(2) for _ in range(7)), " ".join(hx(2) for _ in range(8)))
    else:
        serial = rs(10, UPPER + DIGITS)
    j = ['%s | SUCCESS => {' % h, '    "ansible_facts": {', '        "ansible_machine_id": "%s",' % hx(32),
         '        "ansible_product_serial": "%s",' % serial,
         '        "ansible_product_uuid": "%s",' % uuid4().upper(),
         '        "ansible_ssh_host_key_ecdsa_public": "%s",' % ssh_pub("ecdsa"),
         '        "ansible_ssh_host_key_ecdsa_public_keytype": "ecdsa-sha2-nistp256",',
         '        "ansible_ssh_host_key_ed25519_public": "%s",' % ssh_pub(),
         '        "ansible_ssh_host_key_ed25519_public_keytype": "ssh-ed25519",',
         '        "discovered_interpreter_python": "/usr/bin/python3"', '    },', '    "changed": false', '}']
    return render(pick_frame(), c, [("ansible %s -m setup -a 'filter=ansible_machine_id,ansible_product_*,ansible_ssh_host_key_e*'" % h, "\n".join(j))])


@negative
def n_knife_node_show_long():
    c = Ctx()
    n = "%s.%s" % (pick(HOSTS), c.dom)
    out = ["%s:" % n, "  chef_guid:       %s" % uuid4(), "  machine_id:      %s" % hx(32), "  ohai_time:       %d.%06d" % (c.ts.epoch(), R.randrange(10 ** 6)),
           "  dmi.system.uuid: %s" % uuid4().upper(), "  policy_name:     %s" % pick(["web", "db", "base"]), "  policy_group:    prod"]
    cb = pick(["nginx", "postgresql", "chef-client", "ntp"])
    files = ["recipes:"]
    for f in ["recipes/default.rb", "recipes/service.rb", "recipes/config.rb"][:R.randrange(2, 4)]:
        files += ["  checksum:    %s" % hx(32), "  name:        %s" % f, "  path:        %s" % f, "  specificity: default"]
    return render(pick_frame(), c, [("knife node show %s -a chef_guid -a machine_id -a ohai_time -a dmi.system.uuid -a policy_name -a policy_group" % n, "\n".join(out)),
                                    ("knife cookbook show %s %d.%d.%d recipes | grep -v url" % (cb, R.randrange(1, 12), R.randrange(0, 9), R.randrange(0, 9)), "\n".join(files))])


@negative
def n_puppetserver_ca_list():
    c = Ctx()
    def fp():
        return colon_hex(32)
    out = ["Requested Certificates:", "    %-22s (SHA256)  %s" % ("web%02d.%s" % (R.randrange(1, 40), c.dom), fp()),
           "Signed Certificates:", '    %-22s (SHA256)  %s\talt names: ["DNS:puppet", "DNS:puppet.%s"]\tauthorization extensions: [pp_cli_auth: true]' % ("puppet.%s" % c.dom, fp(), c.dom)]
    for _ in range(R.randrange(2, 4)):
        out.append("    %-22s (SHA256)  %s" % ("%s.%s" % (pick(HOSTS), c.dom), fp()))
    out += ["Revoked Certificates:", "    %-22s (SHA256)  %s" % ("old-db.%s" % c.dom, fp())]
    return render(pick_frame(), c, [("sudo puppetserver ca list --all", "\n".join(out))], root=R.random() < 0.3)


@negative
def n_salt_key_finger():
    c = Ctx()
    def fp():
        return colon_hex(32, False)
    out = ["Local Keys:", "master.pem:  %s" % fp(), "master.pub:  %s" % fp(), "Accepted Keys:"]
    for _ in range(R.randrange(2, 5)):
        out.append("%s.%s:  %s" % (pick(HOSTS), c.dom, fp()))
    out += ["Unaccepted Keys:", "%s:  %s" % (pick(HOSTS), fp())]
    return render(pick_frame(), c, [("sudo salt-key -F", "\n".join(out))], root=R.random() < 0.3)


# ================================================================ negatives: proxies and gateways
@negative
def n_haproxy_runtime_show_sess():
    c = Ctx()
    sess = []
    for _ in range(R.randrange(2, 5)):
        sess.append("0x%s: proto=tcpv4 src=%s:%d fe=https be=api srv=api%d ts=00 epoch=0x%x age=%ds calls=%d rate=0 cpu=0 lat=0 rq[f=848000h,i=0,an=00h,rx=,wx=,ax=] rp[f=80048000h,i=0,an=00h,rx=,wx=,ax=] scf=[8,200h,fd=%d,rex=48s,wex=] scb=[8,11h,fd=%d,rex=,wex=] exp=48s rc=0 c_exp="
                    % (hx(12), ip_priv(), R.randrange(30000, 65000), R.randrange(1, 3), R.randrange(1, 9), R.randrange(0, 90), R.randrange(2, 20), R.randrange(10, 90), R.randrange(10, 90)))
    st = ["1", "# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port"]
    for i in (1, 2):
        st.append("3 api %d api%d %s 2 0 1 1 %d 6 3 7 6 0 0 0 - 8080 - 0 0 - - 0" % (i, i, ip_priv(), R.randrange(100, 90000)))
    return render(pick_frame(), c, [('echo "show sess" | sudo socat stdio /run/haproxy/admin.sock', "\n".join(sess)),
                                    ('echo "show servers state api" | sudo socat stdio /run/haproxy/admin.sock', "\n".join(st))])


@negative
def n_envoy_admin_certs_json():
    c = Ctx()
    t = c.ts
    j = ('{\n "certificates": [\n  {\n   "ca_cert": [\n    {\n     "path": "/etc/envoy/tls/ca.crt",\n     "serial_number": "%s",\n'
         '     "subject_alt_names": [],\n     "days_until_expiration": "%d",\n     "valid_from": "%s",\n     "expiration_time": "%d-%02d-%02dT%02d:%02d:%02dZ"\n    }\n   ],\n'
         '   "cert_chain": [\n    {\n     "path": "<inline>",\n     "serial_number": "%s",\n     "subject_alt_names": [\n      {\n       "dns": "api.%s"\n      }\n     ],\n'
         '     "days_until_expiration": "%d",\n     "valid_from": "%s",\n     "expiration_time": "%s"\n    }\n   ]\n  }\n ]\n}'
         % (hx(32), R.randrange(1000, 3600), t.iso(), t.y + 10, t.mo, t.d, t.h, t.mi, t.s, hx(36), c.dom, R.randrange(1, 90), TS().iso(), TS().iso()))
    si = ('{\n "version": "%s/1.%d.%d/Clean/RELEASE/BoringSSL",\n "state": "LIVE",\n "hot_restart_version": "11.104",\n'
          ' "command_line_options": {\n  "base_id": "0",\n  "concurrency": %d,\n  "config_path": "/etc/envoy/envoy.yaml",\n  "service_cluster": "%s",\n  "service_node": "%s"\n },\n'
          ' "node": {\n  "id": "%s~%s~%s.default~default.svc.cluster.local"\n }\n}'
          % (hx(40), R.randrange(27, 32), R.randrange(0, 5), R.randrange(2, 16), c.proj, c.host, pick(["sidecar", "router"]), ip_priv(), pick(HOSTS)))
    return render(pick_frame(), c, [("curl -s localhost:9901/certs", j), ("curl -s localhost:9901/server_info | jq '{version, state, hot_restart_version, command_line_options: (.command_line_options | {base_id, concurrency, config_path, service_cluster, service_node}), node: {id: .node.id}}'", si)])


@negative
def n_kong_consumers_basicauth_hashed():
    c = Ctx()
    cid = uuid4()
    t = c.ts.epoch()
    ba = ('{\n  "data": [\n    {\n      "password": "%s",\n      "id": "%s",\n      "created_at": %d,\n      "username": "grafana",\n'
          '      "consumer": {\n        "id": "%s"\n      },\n      "tags": null\n    }\n  ],\n  "next": null\n}' % (hx(40), uuid4(), t, cid))
    cons = "\n".join('{"id":"%s","username":"%s","custom_id":%s}' % (u, n, cu) for u, n, cu in
                     [(cid, "grafana", '"grafana"'), (uuid4(), "billing-svc", "null"), (uuid4(), "partner-api", '"%s"' % hx(12))])
    return render(pick_frame(), c, [("curl -s localhost:8001/consumers/grafana/basic-auth | jq", ba),
                                    ("curl -s localhost:8001/consumers | jq -c '.data[] | {id, username, custom_id}'", cons)])


@negative
def n_caddy_hash_password():
    c = Ctx()
    h = bcrypt_hash(14, "$2a$")
    cf = ["%s.%s {" % (pick(["admin", "grafana", "files"]), c.dom), "\tbasic_auth /admin/* {", "\t\t%s %s" % (pick(["ops", c.user, "admin"]), h), "\t}",
          "\treverse_proxy 127.0.0.1:%d" % pick([3000, 8080, 9000]), "}"]
    return render(pick_frame(), c, [("caddy hash-password", "Enter password: \nConfirm password: \n" + h),
                                    ("grep -B1 -A4 basic_auth Caddyfile", "\n".join(cf)),
                                    ("caddy validate --config Caddyfile", '%s\tINFO\tusing config from file\t{"file": "Caddyfile"}\n%s\tINFO\tadapted config to JSON\t{"adapter": "caddyfile"}\nValid configuration'
                                     % ("%.4f" % (c.ts.epoch() + R.random()), "%.4f" % (c.ts.epoch() + R.random())))])


@negative
def n_squid_access_log():
    c = Ctx()
    t0 = c.ts.epoch()
    rows = []
    for _ in range(R.randrange(5, 9)):
        t0 += R.randrange(0, 5)
        cl = ip_priv()
        k = R.randrange(4)
        if k == 0:
            rows.append("%d.%03d %6d %s TCP_TUNNEL/200 %d CONNECT %s:443 %s HIER_DIRECT/%s -" % (t0, R.randrange(1000), R.randrange(20, 90000), cl, R.randrange(500, 90000), pick(["api.github.com", "registry-1.docker.io", "pypi.org"]), pick(USERS), ip_pub()))
        elif k == 1:
            rows.append("%d.%03d %6d %s TCP_MISS/200 %d GET http://deb.debian.org/debian/dists/bookworm/main/binary-amd64/by-hash/SHA256/%s - HIER_DIRECT/%s application/octet-stream" % (t0, R.randrange(1000), R.randrange(20, 900), cl, R.randrange(10000, 900000), hx(64), ip_pub()))
        elif k == 2:
            rows.append("%d.%03d %6d %s TCP_MEM_HIT/200 %d GET http://archive.ubuntu.com/ubuntu/pool/main/o/openssl/libssl3_3.0.2-0ubuntu1.%d_amd64.deb - HIER_NONE/- application/vnd.debian.binary-package" % (t0, R.randrange(1000), R.randrange(1, 20), cl, R.randrange(10 ** 6, 3 * 10 ** 6), R.randrange(10, 20)))
        else:
            rows.append("%d.%03d %6d %s TCP_DENIED/407 %d GET http://%s/ - HIER_NONE/- text/html" % (t0, R.randrange(1000), 0, cl, R.randrange(3000, 4200), pick(["detectportal.firefox.com", "connectivitycheck.gstatic.com"])))
    return render(pick_frame(), c, [("sudo tail -n %d /var/log/squid/access.log" % len(rows), "\n".join(rows))])


# ================================================================ negatives: brokers and databases
@negative
def n_nsc_describe_account():
    c = Ctx()
    acct = c.org.upper().replace("-", "_")
    aid, oid = nkey_pub("A"), nkey_pub("O")
    w1, w2 = 27, 58
    def row(k, v):
        return "\u2502 %-*s\u2502 %-*s\u2502" % (w1 - 1, k, w2 - 1, v)
    top = "\u256d" + "\u2500" * (w1 + w2 + 1) + "\u256e"
    title = "\u2502" + "Account Details".center(w1 + w2 + 1) + "\u2502"
    sep = "\u251c" + "\u2500" * w1 + "\u252c" + "\u2500" * w2 + "\u2524"
    mid = "\u251c" + "\u2500" * w1 + "\u253c" + "\u2500" * w2 + "\u2524"
    bot = "\u2570" + "\u2500" * w1 + "\u2534" + "\u2500" * w2 + "\u256f"
    t = c.ts
    tbl = [top, title, sep, row("Name", acct), row("Account ID", aid), row("Issuer ID", oid), row("Issued", "%s UTC" % t.sql()),
           row("Expires", ""), mid, row("Max Connections", "Unlimited"), row("Max Leaf Node Connections", "Unlimited"),
           row("Max Data", "Unlimited"), row("Max Exports", "Unlimited"), row("Max Imports", "Unlimited"),
           row("Max Msg Payload", "1.0 MiB"), row("Max Subscriptions", "Unlimited"), row("Exports Allows Wildcards", "True"),
           row("Disallow Bearer Token", "False"), row("Response Permissions", "Not Set"), mid, row("Jetstream", "Disabled"),
           mid, row("Imports", "None"), row("Exports", "None"), bot]
    keys = ["+-------------------------------------------------------------------------------------------------+",
            "|                                              Keys                                               |",
            "+---------+----------------------------------------------------------+-------------+--------------+",
            "| Entity  | Key                                                      | Signing Key | Stored       |",
            "+---------+----------------------------------------------------------+-------------+--------------+",
            "| %-7s | %s |             | *            |" % (c.org[:7], oid),
            "|  %-6s | %s |             | *            |" % (acct[:6], aid),
            "|   %-5s | %s |             | *            |" % ("svc", nkey_pub("U")),
            "+---------+----------------------------------------------------------+-------------+--------------+"]
    return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c,
                  [("nsc describe account %s" % acct, "\n".join(tbl)), ("nsc list keys --all", "\n".join(keys))])


@negative
def n_emqx_ctl_clients_list():
    c = Ctx()
    t = c.ts.epoch() * 1000
    rows = []
    for _ in range(R.randrange(2, 5)):
        cid = pick(["mqttx_%s" % hx(8), "sensor-%s" % hx(12), "%s" % uuid4(), "esp32-%s" % hx(12, True)])
        rows.append("Client(%s, username=%s, peername=%s:%d, clean_start=true, keepalive=60, session_expiry_interval=0, subscriptions=%d, inflight=0, awaiting_rel=0, delivered_msgs=%d, enqueued_msgs=0, dropped_msgs=0, connected=true, created_at=%d, connected_at=%d)"
                    % (cid, pick(["sensor-%03d" % R.randrange(1, 999), "gateway", "undefined"]), ip_priv(), R.randrange(30000, 65000), R.randrange(0, 9), R.randrange(0, 99999), t, t))
    cs = "Cluster status: #{running_nodes => ['emqx@%s','emqx@%s'],\n                 stopped_nodes => []}" % (ip_priv(), ip_priv())
    return render(pick_frame(), c, [("sudo emqx ctl clients list", "\n".join(rows)), ("sudo emqx ctl cluster status", cs)])


@negative
def n_redis_acl_getuser_hashes():
    c = Ctx()
    h = pick(["127.0.0.1", "redis-0.%s" % c.dom, ip_priv()])
    pr = "%s:6379> " % h
    u = pick(["app-rw", "metrics", "worker"])
    out = [pr + "ACL GETUSER %s" % u, ' 1) "flags"', ' 2) 1) "on"', ' 3) "passwords"', ' 4) 1) "%s"' % hx(64),
           ' 5) "commands"', ' 6) "-@all +@read +@write -@dangerous"', ' 7) "keys"', ' 8) "~app:*"', ' 9) "channels"', '10) "&*"',
           '11) "selectors"', '12) (empty array)', pr + "ACL WHOAMI", '"default"', pr]
    acl = "\n".join("user %s on #%s ~%s &* +@%s" % (n, hx(64), k, p) for n, k, p in [(u, "app:*", "read"), ("default", "*", "all"), ("backup", "*", "read")])
    return render(pick_frame(), c, [("REDISCLI_AUTH=\"$(cat /run/secrets/redis-admin)\" redis-cli -h %s" % h, "\n".join(out)),
                                    ("sudo cat /etc/redis/users.acl", acl)])


@negative
def n_mongosh_rs_status_signature():
    c = Ctx()
    t = c.ts.epoch()
    pr = "rs0 [direct: primary] admin> "
    members = "\n".join("  [ '%s:27017', '%s', Timestamp({ t: %d, i: %d }) ]," % (h, st, t, R.randrange(1, 9)) for h, st in
                        [("mongo-0.%s" % c.dom, "PRIMARY"), ("mongo-1.%s" % c.dom, "SECONDARY"), ("mongo-2.%s" % c.dom, "SECONDARY")])
    ping = ("{\n  ok: 1,\n  '$clusterTime': {\n    clusterTime: Timestamp({ t: %d, i: 1 }),\n    signature: {\n      hash: Binary.createFromBase64('%s', 0),\n"
            "      keyId: Long('%d')\n    }\n  },\n  operationTime: Timestamp({ t: %d, i: 1 })\n}" % (t, b64(20), R.randrange(7 * 10 ** 18, 9 * 10 ** 18), t))
    el = "ObjectId('7fffffff%016x')" % R.randrange(1, 400)
    return render(pick_frame(), c, [("mongosh --quiet 'mongodb://mongo-0.%s:27017/admin?replicaSet=rs0&authMechanism=MONGODB-X509&tls=true&tlsCertificateKeyFile=/etc/mongo/client.pem'" % c.dom,
                                      pr + "rs.status().members.map(m => [m.name, m.stateStr, m.optime.ts])\n[\n" + members + "\n]\n" + pr + "rs.status().electionCandidateMetrics.newTermStartDate ? db.hello().electionId : null\n" + el + "\n" + pr + "db.adminCommand({ ping: 1 })\n" + ping + "\n" + pr)])


@negative
def n_nodetool_status_tokens():
    c = Ctx()
    rows = ["Datacenter: %s" % pick(["dc1", "eu-west", c.site]), "===============", "Status=Up/Down", "|/ State=Normal/Leaving/Joining/Moving",
            "--  Address      Load        Tokens  Owns (effective)  Host ID                               Rack"]
    for i in range(R.randrange(3, 6)):
        rows.append("%s  %-12s %-11s %-7d %-17s %s  rack%d" % (pick(["UN", "UN", "UN", "DN"]), ip_priv(), "%.2f GiB" % (R.random() * 300 + 10), 16, "%.1f%%" % (R.random() * 20 + 25), uuid4(), i % 3 + 1))
    dc = ["Cluster Information:", "\tName: %s-ring" % c.org, "\tSnitch: org.apache.cassandra.locator.GossipingPropertyFileSnitch",
          "\tDynamicEndPointSnitch: enabled", "\tPartitioner: org.apache.cassandra.dht.Murmur3Partitioner", "\tSchema versions:",
          "\t\t%s: [%s, %s, %s]" % (uuid4(), ip_priv(), ip_priv(), ip_priv())]
    return render(pick_frame(), c, [("nodetool status", "\n".join(rows)), ("nodetool describecluster | head -7", "\n".join(dc))])


@negative
def n_clickhouse_system_users():
    c = Ctx()
    rows = [("default", "94309d50-4f52-5250-31bd-74fecac179db", "users_xml", "sha256_password", "['::1','127.0.0.1']")]
    for n in ["app", "grafana_ro", "etl"][:R.randrange(2, 4)]:
        rows.append((n, uuid4(), "local_directory", pick(["sha256_password", "double_sha1_password", "bcrypt_password"]), "['::/0']"))
    w = [max(len(r[i]) for r in rows + [("name", "id", "storage", "auth_type", "host_ip")]) for i in range(5)]
    hdr = ["name", "id", "storage", "auth_type", "host_ip"]
    top = "\u250c" + "\u252c".join("\u2500" + h + "\u2500" * (w[i] - len(h) + 1) for i, h in enumerate(hdr)) + "\u2510"
    body = ["\u2502 " + " \u2502 ".join(r[i].ljust(w[i]) for i in range(5)) + " \u2502" for r in rows]
    bot = "\u2514" + "\u2534".join("\u2500" * (w[i] + 2) for i in range(5)) + "\u2518"
    q = "SELECT name, id, storage, auth_type, host_ip FROM system.users FORMAT PrettyCompactMonoBlock"
    out = "%s :) %s\n\n%s\n\n%s\n%s\n%s\n\n%d rows in set. Elapsed: 0.00%d sec.\n\n%s :) SHOW CREATE USER %s\n\nCREATE USER %s IDENTIFIED WITH %s HOST ANY SETTINGS PROFILE `default`\n" % (
        c.host, q, q, top, "\n".join(body), bot, len(rows), R.randrange(1, 9), c.host, rows[1][0], rows[1][0], rows[1][3])
    return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c, [("clickhouse-client --host ch-%s.%s --secure" % (c.site, c.dom), out)])


@negative
def n_cockroach_cert_list():
    c = Ctx()
    h = "crdb-0.%s" % c.dom
    y = c.ts.y
    tbl = ["Certificate directory: certs", "  Usage  | Certificate File |    Key File     |  Expires   |                   Notes                    | Error",
           "---------+------------------+-----------------+------------+--------------------------------------------+--------",
           "  CA     | ca.crt           |                 | %d/%02d/%02d | num certs: 1                               |" % (y + 10, c.ts.mo, c.ts.d),
           "  Node   | node.crt         | node.key        | %d/%02d/%02d | addresses: crdb-0,%s,localhost |" % (y + 5, c.ts.mo, c.ts.d, h),
           "  Client | client.root.crt  | client.root.key | %d/%02d/%02d | user: root                                 |" % (y + 5, c.ts.mo, c.ts.d), "(3 rows)"]
    fp = "serial=%s\nsha256 Fingerprint=%s" % (hx(32, True), colon_hex(32))
    return render(pick_frame(), c, [("cockroach cert list --certs-dir=certs", "\n".join(tbl)),
                                    ("openssl x509 -in certs/node.crt -noout -serial -fingerprint -sha256", fp)])


@negative
def n_es_security_api_key_get():
    c = Ctx()
    keys = []
    for n in ["fleet-server", "logstash-%s" % c.site, "kibana-reporting"][:R.randrange(2, 4)]:
        t = c.ts.epoch() * 1000
        keys.append('    {\n      "id": "%s",\n      "name": "%s",\n      "type": "rest",\n      "creation": %d,\n      "expiration": %d,\n      "invalidated": false,\n      "username": "elastic",\n      "realm": "reserved",\n      "realm_type": "reserved",\n      "metadata": {},\n      "role_descriptors": {}\n    }'
                    % (rs(20, B64URL), n, t, t + 2592000000))
    j = '{\n  "api_keys": [\n%s\n  ]\n}' % ",\n".join(keys)
    return render(pick_frame(), c, [('curl -s --cacert /etc/elasticsearch/certs/http_ca.crt -u "elastic:$ELASTIC_PASSWORD" "https://es01.%s:9200/_security/api_key?owner=true" | jq' % c.dom, j)])


@negative
def n_mssql_sql_logins_hashes():
    c = Ctx()
    rows = []
    for n in ["sa", "app_rw", "reporting", "##MS_PolicyTsqlExecutionLogin##"][:R.randrange(2, 5)]:
        rows.append("%-32s 0x0200%s %s" % (n, hx(136, True), pick(["1", "0"])))
    out = ("1> SELECT name, password_hash, is_policy_checked FROM sys.sql_logins;\n2> GO\nname                             password_hash%s is_policy_checked\n%s %s -----------------\n%s\n\n(%d rows affected)\n1> quit"
           % (" " * 127, "-" * 32, "-" * 140, "\n".join(rows), len(rows)))
    return render(pick_frame(["prompt", "codex_exec", "codex_ts", "claude", "codex_ran"]), c, [("sqlcmd -S sql%02d.%s -E -C" % (R.randrange(1, 9), c.dom), out)])


@negative
def n_orapki_wallet_display():
    c = Ctx()
    wal = pick(["/u01/app/oracle/wallet", "/opt/oracle/network/admin/wallet"])
    ban = "Oracle PKI Tool Release 19.0.0.0.0 - Production\nVersion 19.4.0.0.0\nCopyright (c) 2004, 2021, Oracle and/or its affiliates. All rights reserved.\n"
    disp = ban + "\nRequested Certificates: \nUser Certificates:\nTrusted Certificates: \nSubject:        CN=DigiCert Global Root G2,OU=www.digicert.com,O=DigiCert Inc,C=US\nSubject:        CN=%s Internal CA,O=%s,C=DE" % (c.org.capitalize(), c.org.capitalize())
    lst = ("Oracle Secret Store Tool Release 19.0.0.0.0 - Production\nVersion 19.4.0.0.0\nCopyright (c) 2004, 2021, Oracle and/or its affiliates. All rights reserved.\n\n"
           "Enter wallet password:   \nOracle Secret Store entries: \noracle.security.client.connect_string1\noracle.security.client.password1\noracle.security.client.username1")
    t = c.ts
    ls = "total 16\n-rw------- 1 oracle oinstall %d %s %2d %02d:%02d cwallet.sso\n-rw------- 1 oracle oinstall    0 %s %2d %02d:%02d cwallet.sso.lck\n-rw------- 1 oracle oinstall %d %s %2d %02d:%02d ewallet.p12" % (
        R.randrange(3000, 6000), MONTHS[t.mo - 1], t.d, t.h, t.mi, MONTHS[t.mo - 1], t.d, t.h, t.mi, R.randrange(3000, 6000), MONTHS[t.mo - 1], t.d, t.h, t.mi)
    return render(pick_frame(), c, [("ls -l %s" % wal, ls), ("orapki wallet display -wallet %s" % wal, disp), ("mkstore -wrl %s -list" % wal, lst)])


# ================================================================ negatives: monitoring
@negative
def n_zabbix_template_export_uuids():
    c = Ctx()
    y = ["zabbix_export:", "  version: '6.4'", "  template_groups:", "    - uuid: 7df96b18c230490a9a0a9e2307226338", "      name: Templates",
         "  templates:", "    - uuid: %s" % hx(32), "      template: '%s MySQL by Zabbix agent 2'" % c.org.capitalize(),
         "      name: '%s MySQL by Zabbix agent 2'" % c.org.capitalize(), "      groups:", "        - name: Templates", "      items:"]
    for nm, key in [("MySQL: Get status variables", "mysql.get_status_variables[\"{$MYSQL.DSN}\",\"{$MYSQL.USER}\",\"{$MYSQL.PASSWORD}\"]"),
                    ("MySQL: Version", "mysql.version[\"{$MYSQL.DSN}\",\"{$MYSQL.USER}\",\"{$MYSQL.PASSWORD}\"]")]:
        y += ["        - uuid: %s" % hx(32), "          name: '%s'" % nm, "          key: '%s'" % key, "          history: 7d"]
    y += ["      macros:", "        - macro: '{$MYSQL.DSN}'", "          value: tcp://localhost:3306", "        - macro: '{$MYSQL.USER}'",
          "          value: zbx_monitor", "        - macro: '{$MYSQL.PASSWORD}'", "          type: SECRET_TEXT",
          "          description: 'MySQL user password.'", "        - macro: '{$MYSQL.VAULT}'", "          type: VAULT",
          "          value: 'secret/zabbix/mysql:password'", "      valuemaps:", "        - uuid: %s" % hx(32), "          name: 'Service state'"]
    return show_file(c, "templates/%s_mysql.yaml" % c.org, "\n".join(y))


@negative
def n_icinga2_ca_list():
    c = Ctx()
    rows = ["Fingerprint                                                      | Timestamp                | Signed | Subject",
            "-----------------------------------------------------------------|--------------------------|--------|--------"]
    fps = []
    for _ in range(R.randrange(2, 4)):
        f = hx(64)
        fps.append(f)
        t = TS()
        rows.append("%s | %s %2d %02d:%02d:%02d %d GMT | %-6s | CN = %s.%s" % (f, MONTHS[t.mo - 1], t.d, t.h, t.mi, t.s, t.y, pick(["", "*"]), pick(HOSTS), c.dom))
    return render(pick_frame(), c, [("sudo icinga2 ca list --all", "\n".join(rows)),
                                    ("sudo icinga2 ca sign %s" % fps[0], "information/cli: Signed certificate for 'CN = %s'." % rows[2].split("CN = ")[1])])


@negative
def n_netdata_claim_status_ids():
    c = Ctx()
    j = ('{\n  "aclk-available": true,\n  "aclk-version": 2,\n  "protocols-supported": [\n    "Protobuf"\n  ],\n  "agent-claimed": true,\n'
         '  "claimed-id": "%s",\n  "online": true,\n  "used-cloud-protocol": "Protobuf",\n  "mqtt-version": 5,\n  "received-app-layer-msgs": %d,\n'
         '  "received-mqtt-pubacks": %d,\n  "pending-mqtt-pubacks": 0,\n  "reconnect-count": %d,\n  "last-connect-time-utc": "%s",\n'
         '  "last-connect-time-puback-utc": "%s",\n  "last-disconnect-time-utc": null,\n  "next-connection-attempt-utc": null,\n'
         '  "node-instances": [\n    {\n      "hostname": "%s",\n      "mguid": "%s",\n      "claimed_id": "%s",\n      "node-id": "%s",\n'
         '      "streaming-hops": 0,\n      "relationship": "self",\n      "streaming-online": true\n    }\n  ]\n}'
         % (uuid4(), R.randrange(1, 400), R.randrange(1, 999), R.randrange(0, 9), c.ts.sql(), c.ts.sql(), c.host, uuid4(), uuid4(), uuid4()))
    return render(pick_frame(), c, [("sudo cat /var/lib/netdata/registry/netdata.public.unique.id", uuid4()),
                                    ("curl -s localhost:19999/api/v1/aclk | jq", j)])


@negative
def n_datadog_agent_status_masked():
    c = Ctx()
    t = c.ts
    tail = hx(5)
    out = ["===============", "Agent (v7.%d.%d)" % (R.randrange(48, 60), R.randrange(0, 3)), "===============", "",
           "  Status date: %s.%03d UTC (%d%03d)" % (t.sql(), R.randrange(1000), t.epoch(), R.randrange(1000)),
           "  Agent start: %s.%03d UTC (%d%03d)" % (TS().sql(), R.randrange(1000), t.epoch() - 86400, R.randrange(1000)),
           "  Pid: %d" % R.randrange(300, 99999), "  Go Version: go1.21.%d" % R.randrange(1, 9), "  Python Version: 3.11.%d" % R.randrange(1, 9),
           "  Build arch: amd64", "  Agent flavor: agent", "  Log Level: info", "", "  Paths", "  =====",
           "    Config File: /etc/datadog-agent/datadog.yaml", "    conf.d: /etc/datadog-agent/conf.d", "    checks.d: /etc/datadog-agent/checks.d",
           "", "  Host Info", "  =========", "    hostId: %s" % uuid4(), "    kernelVersion: 6.1.0-%d-amd64" % R.randrange(10, 30),
           "", "  Hostnames", "  =========", "    host_aliases: [i-0%s]" % hx(16), "    hostname: %s" % c.host,
           "    socket-fqdn: %s.%s" % (c.host, c.dom), "", "=========", "Forwarder", "=========", "",
           "  API Keys status", "  ===============", "    API key ending with %s: API Key valid" % tail]
    cfg = "api_key: '***************************%s'\napp_key: ''\nsite: datadoghq.eu" % tail
    return render(pick_frame(), c, [("sudo datadog-agent status | sed -n '1,40p'", "\n".join(out)),
                                    ("sudo datadog-agent config | grep -E '^(api_key|app_key|site):'", cfg)])


# ================================================================ negatives: hypervisors and clouds
@negative
def n_pveum_token_list():
    c = Ctx()
    rows = [(tid, pick(["", "terraform", "ci runner"]), "0", pick(["0", "1"])) for tid in ["ci", "tf", "backup"][:R.randrange(2, 4)]]
    w = [max(len(x[i]) for x in rows + [("tokenid", "comment", "expire", "privsep")]) for i in range(4)]
    hdr = ("tokenid", "comment", "expire", "privsep")
    top = "\u250c" + "\u252c".join("\u2500" * (x + 2) for x in w) + "\u2510"
    mid = "\u255e" + "\u256a".join("\u2550" * (x + 2) for x in w) + "\u2561"
    sep = "\u251c" + "\u253c".join("\u2500" * (x + 2) for x in w) + "\u2524"
    bot = "\u2514" + "\u2534".join("\u2500" * (x + 2) for x in w) + "\u2518"
    line = lambda r: "\u2502 " + " \u2502 ".join(r[i].ljust(w[i]) for i in range(4)) + " \u2502"
    body = [top, line(hdr), mid]
    for i, r in enumerate(rows):
        body.append(line(r))
        body.append(sep if i < len(rows) - 1 else bot)
    vmid = R.randrange(100, 999)
    qm = ["agent: 1", "boot: order=scsi0;net0", "cipassword: **********", "ciuser: %s" % pick(["debian", "ubuntu", c.user]), "cores: %d" % pick([2, 4, 8]),
          "ipconfig0: ip=%s/24,gw=%s" % (ip_priv(), ip_priv()), "memory: %d" % pick([2048, 4096, 8192]), "meta: creation-qemu=8.1.5,ctime=%d" % c.ts.epoch(),
          "name: %s" % pick(HOSTS), "net0: virtio=BC:24:11:%s,bridge=vmbr0,firewall=1" % ":".join(hx(2, True) for _ in range(3)),
          "scsi0: local-lvm:vm-%d-disk-0,iothread=1,size=32G" % vmid, "scsihw: virtio-scsi-single",
          "smbios1: uuid=%s" % uuid4(), "sshkeys: ssh-ed25519%%20%s%%20%s%%40%s%%0A" % (ssh_pub().replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"), c.user, c.host),
          "vmgenid: %s" % uuid4()]
    return render(pick_frame(), c, [("pveum user token list root@pam", "\n".join(body)), ("qm config %d" % vmid, "\n".join(qm))], root=R.random() < 0.6)


@negative
def n_govc_vm_info_uuids():
    c = Ctx()
    vm = pick(HOSTS)
    t = c.ts
    info = ["Name:           %s" % vm, "  Path:         /%s/vm/prod/%s" % (c.site.upper(), vm), "  UUID:         %s" % uuid4(),
            "  Guest name:   Ubuntu Linux (64-bit)", "  Memory:       %dMB" % pick([4096, 8192, 16384]), "  CPU:          %d vCPU(s)" % pick([2, 4, 8]),
            "  Power state:  poweredOn", "  Boot time:    %s.%03d +0000 UTC" % (t.sql(), R.randrange(1000)), "  IP address:   %s" % ip_priv(),
            "  Host:         esx%02d.%s" % (R.randrange(1, 20), c.dom)]
    js = '{\n  "Uuid": "%s",\n  "InstanceUuid": "%s",\n  "ChangeVersion": "%s",\n  "Moref": "vm-%d"\n}' % (uuid4(), uuid4(), t.iso(frac=True), R.randrange(1000, 99999))
    return render(pick_frame(), c, [("govc vm.info %s" % vm, "\n".join(info)),
                                    ("govc vm.info -json %s | jq '.virtualMachines[0] | {Uuid: .config.uuid, InstanceUuid: .config.instanceUuid, ChangeVersion: .config.changeVersion, Moref: .self.value}'" % vm, js)])


@negative
def n_openstack_app_credential_list():
    c = Ctx()
    pid = hx(32)
    rows = [(hx(32), n) for n in ["ci-runner", "terraform", "velero-%s" % c.site][:R.randrange(2, 4)]]
    sep = "+----------------------------------+----------------+----------------------------------+-------------+------------+"
    tbl = [sep, "| ID                               | Name           | Project ID                       | Description | Expires At |", sep]
    tbl += ["| %s | %-14s | %s | None        | None       |" % (i, n, pid) for i, n in rows] + [sep]
    show = ('{\n  "description": null,\n  "expires_at": null,\n  "id": "%s",\n  "name": "%s",\n  "project_id": "%s",\n  "roles": "member reader",\n'
            '  "unrestricted": false,\n  "access_rules": [],\n  "system": null\n}' % (rows[0][0], rows[0][1], pid))
    return render(pick_frame(), c, [("openstack --os-cloud prod application credential list", "\n".join(tbl)),
                                    ("openstack --os-cloud prod application credential show %s -f json" % rows[0][1], show)])


@negative
def n_ceph_mon_dump_fsid():
    c = Ctx()
    fsid = uuid4()
    mons = ["ceph%d" % i for i in range(1, 4)]
    s = ["  cluster:", "    id:     %s" % fsid, "    health: HEALTH_OK", "", "  services:",
         "    mon: 3 daemons, quorum %s (age %dw)" % (",".join(mons), R.randrange(1, 9)),
         "    mgr: %s.%s(active, since %dw), standbys: %s.%s" % (mons[0], rs(6, LOWER), R.randrange(1, 9), mons[1], rs(6, LOWER)),
         "    osd: 12 osds: 12 up (since %dw), 12 in (since %dM)" % (R.randrange(1, 9), R.randrange(1, 9)), "", "  data:",
         "    pools:   4 pools, 129 pgs", "    objects: %.2fM objects, %.1f TiB" % (R.random() * 3, R.random() * 9),
         "    usage:   %d TiB used, %d TiB / 44 TiB avail" % (R.randrange(5, 20), R.randrange(20, 39)), "    pgs:     129 active+clean"]
    md = ["epoch %d" % R.randrange(2, 9), "fsid %s" % fsid, "last_changed %s.%06d+0000" % (TS().iso(z=False), R.randrange(10 ** 6)),
          "created %s.%06d+0000" % (TS().iso(z=False), R.randrange(10 ** 6)), "min_mon_release 18 (reef)", "election_strategy: 1"]
    for i, m in enumerate(mons):
        ip = ip_priv()
        md.append("%d: [v2:%s:3300/0,v1:%s:6789/0] mon.%s" % (i, ip, ip, m))
    md.append("dumped monmap epoch %s" % md[0].split()[1])
    vl = " UUID                                   Usage\n-------------------------------------------------------------------\n %s   ceph client.libvirt secret" % uuid4()
    return render(pick_frame(), c, [("sudo ceph -s", "\n".join(s)), ("sudo ceph mon dump", "\n".join(md)), ("sudo virsh secret-list", vl)])


# ================================================================ main
MARK_RE = re.compile("\u00ab([^\u00ab\u00bb]*)\u00bb")
QUOTES = "'\"`\u2018\u2019\u201c\u201d"


def check_row(text, positive_row):
    if not positive_row:
        assert L not in text and RR not in text, "mark in negative"
        return 0
    depth = 0
    for ch in text:
        if ch == L:
            depth += 1
            assert depth == 1, "nested mark"
        elif ch == RR:
            depth -= 1
            assert depth == 0, "unbalanced mark"
    assert depth == 0, "unclosed mark"
    spans = MARK_RE.findall(text)
    assert spans, "positive row without a mark"
    stripped = MARK_RE.sub(lambda m: "\0" * len(m.group(1)), text)
    for s in spans:
        assert s, "empty mark"
        assert s == s.strip(), "outer whitespace in mark: %r" % s
        assert s[0] not in QUOTES and s[-1] not in QUOTES, "quote at mark edge: %r" % s
        for w in ("Bearer ", "Basic ", "token "):
            assert not s.startswith(w), "scheme word in mark: %r" % s
        if len(s) >= 8:
            assert s not in stripped, "secret appears unmarked: %r" % s
    return len(spans)


def main():
    names = [n for n, _ in POS] + [n for n, _ in NEG]
    assert len(POS) == 60 and len(NEG) == 60, (len(POS), len(NEG))
    assert len(names) == len(dict.fromkeys(names)) == 120, "template names must be distinct"
    rows = []
    rid = 0
    spans = 0
    for group, is_pos in ((POS, True), (NEG, False)):
        for name, fn in group:
            for _ in range(5):
                rid += 1
                text = fn()
                spans += check_row(text, is_pos)
                rows.append({"id": rid, "template": name, "positive": is_pos, "text": text})
    assert len(rows) == 600
    out = sys.stdout.buffer
    for r in rows:
        out.write((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8"))
    sys.stderr.write("agent_tuning_8: %d rows, %d positive templates, %d negative templates, %d marked spans\n"
                     % (len(rows), len(POS), len(NEG), spans))


if __name__ == "__main__":
    main()
