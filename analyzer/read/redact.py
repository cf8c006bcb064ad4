"""Secrets out of evidence: verdicts are pasted into tickets and chat.

Training logs print environments and config dumps, so tokens and keys sit next to the
errors. Every line that leaves the engine (evidence, context, findings) goes through
`redact()` first, unless the caller asks for raw lines (`--no-redact`). Matching runs on
the raw line, so redaction never changes a verdict.

Cost: one RE2 Set pass over the line says which rules can apply at all (each rule has a
trigger, a linear-time superset of where it matches; ~1 us a line), and only those rules
run. Almost no line holds a secret, so a line costs one DFA pass, not a dozen Python
regexes (~45 us). No rule backtracks more than linearly: a line of spaces or of
base64-looking bytes costs time in proportion to its length.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from .lines import ANSI, TEXT_CAP

MASK = "[REDACTED]"
# Characters past a cut that are redacted with the line (longer than any token).
_WINDOW = TEXT_CAP


def _mixed_case(m: re.Match[str]) -> str:
    """A long base64 body is a key only if it mixes cases (a hex digest or a row of
    dashes is not)."""
    body = m.group(2)
    if any(c.islower() for c in body) and any(c.isupper() for c in body):
        return m.group(1) + MASK
    return m.group(0)


@dataclass(frozen=True)
class _Rule:
    """`trigger` (RE2 syntax) matches wherever `pattern` can: it is tested first."""

    trigger: str
    pattern: re.Pattern[str]
    replacement: str | Callable[[re.Match[str]], str]


_TOKEN = r"[A-Za-z0-9_-]"
# Values that are not secrets although a secret's key names them: masks, references to
# a variable or a file, booleans and nothing.
_NOT_SECRET = re.compile(
    r"(?i)^(?:\**|<[^>]*>?|\$\{?\w+\}?|\$\(.*|true|false|none|null|nil|yes|no|on|off|"
    r"\[redacted\]|x+|\.+|-+|/run/secrets/.*|/etc/.*|\*+.*)$"
)


def _value(m: re.Match[str]) -> str:
    """Group 1 kept, group 2 masked unless it is no secret (`password: ********`)."""
    if _NOT_SECRET.match(m.group(2)):
        return m.group(0)
    return m.group(1) + MASK


def _generated(v: str) -> bool:
    """A value that looks generated: 16+ characters with letters and digits."""
    return len(v) >= 16 and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)


def _token_value(m: re.Match[str]) -> str:
    """For keys as common as `key`: only a value that looks generated is masked;
    `key=step` is not a secret."""
    return m.group(1) + MASK if _generated(m.group(2)) else m.group(0)


# The name of a value that is a secret: one of these words as the end of a key
# (OBS_SECRET_KEY, MYSQL_ROOT_PASSWORD, x-amz-signature, 密码) or before a short suffix
# (private_key_id, access_key_secret); never inside a longer word (max_tokens,
# tokenizer, --password-stdin).
_SECRET_WORD = (
    r"(?:password|passwd|passwort|pwd|pass|passphrase|token|secret|api[_-]?key|apikey|"
    r"access[_-]?key|secret[_-]?key|private[_-]?key|account[_-]?key|accountkey|"
    r"credentials?|auth|sig|signature|sessionid|session|csrftoken|cookie|ak|sk|"
    r"securitytoken|sessiontoken|accesstoken|refreshtoken|authtoken|clientsecret|"
    r"secretkey|accesskey|privatekey|pgpassword|密码|口令|密钥|秘钥|令牌)"
)
_SUFFIX = r"(?:[_-]?(?:id|key|value|secret|access[_-]?key|string))?"
_KEY = (
    rf"(?:(?:[\w.-]{{0,40}}?[_.-])?{_SECRET_WORD}|\w{{0,12}}?(?:密码|口令|密钥|秘钥|令牌))"
    rf"{_SUFFIX}(?![\w-])"
)
_VALUE = r"""([^\s"',;}）)，。、\]]{3,})"""
_SEP = r"""[\"']?\s*(?:[=:：]|\s*=>)\s*(?:b?[\"'])?"""
# Where _SEP starts, for the triggers: a secret word is everywhere (`sk` in `skipped`,
# `pass` in `passed`); a secret word followed by a separator is rare.
# Python's \s is Unicode's (U+3000, U+00A0, U+2028...); RE2's is ASCII only.
_SEP_START = r"""[\"']?[\s\x0b\x1c-\x1f\x85\p{Z}]*(?:[=:：]|=>)"""

# Specific token formats first, then key=value forms.
_RULES: tuple[_Rule, ...] = (
    # private key blocks: the marker line and base64 body lines (alone or behind a log
    # prefix: `[rank0]: `, `[default0]:`, a timestamp and a level)
    _Rule(
        r"PRIVATE KEY-----",
        re.compile(r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----.*"),
        f"-----BEGIN PRIVATE KEY----- {MASK}",
    ),
    _Rule(
        r"[A-Za-z0-9+/]{40}={0,2}$",
        re.compile(
            r"^((?:\s*\[[^\]\s]{1,40}\]:?)*\s*|\d{4}-\d\d-\d\d[ T][\d:,.]{8,15}\s+(?:-\s+)?"
            r"(?:[A-Z]{4,8}\s+(?:-\s+)?)?)([A-Za-z0-9+/]{40,}={0,2})$"
        ),
        _mixed_case,
    ),
    # credentials in URLs: scheme://user:password@host (no user, `/` in the password)
    _Rule(
        r"://[^\s:@/]*:[^\s@]+@",
        re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:@/]{0,256}):[^\s@]{1,256}@"),
        rf"\1:{MASK}@",
    ),
    # a token as a URL's whole user part (`https://TOKEN@github.com/...`, git's and pip's
    # form): a user name is short or a word, a token long with letters and digits
    _Rule(
        r"://[^\s:@/]{16,}@",
        re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]{1,20}://)([^\s:@/]{16,256})@"),
        lambda m: m.group(1) + MASK + "@" if _generated(m.group(2)) else m.group(0),
    ),
    # webhooks: the URL is the credential
    _Rule(
        r"hooks\.slack\.com/|/api/webhooks/|/bot/v2/hook/|oapi\.dingtalk\.com",
        re.compile(
            r"((?:hooks\.slack\.com/services|hooks\.slack\.com/workflows|/api/webhooks|"
            r"/bot/v2/hook)/)[\w/-]+"
        ),
        rf"\1{MASK}",
    ),
    # cloud access key ids: AWS (AKIA long-term, ASIA temporary, ...), Alibaba, Tencent
    _Rule(
        r"(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}|LTAI[0-9A-Za-z]{12}|"
        r"AKID[0-9A-Za-z]{13}",
        re.compile(
            r"\b(?:(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}|LTAI[0-9A-Za-z]{12,30}|"
            r"AKID[0-9A-Za-z]{13,40})\b"
        ),
        MASK,
    ),
    # service tokens by their documented prefixes
    _Rule(
        r"hf_[A-Za-z0-9]{30}|api_org_[A-Za-z0-9]{30}|gh[pousr]_[A-Za-z0-9]{36}|github_pat_|"
        r"gl[a-z]{1,5}-[A-Za-z0-9_-]{20}|GR1348941|xox[a-z]-|xapp-|sk-[A-Za-z0-9_-]{20}|"
        r"[sr]k_(?:live|test)_|dckr_pat_|npm_[A-Za-z0-9]{36}|pypi-AgEIcHlwaS5vcmc|ATATT3|"
        r"ATBB|ATCTT3|dapi[0-9a-f]{32}|hvs\.|dop_v1_|shp(?:at|ss|ca|pa)_|glsa_|NRAK-|"
        r"SG\.[A-Za-z0-9_-]{16}|key-[0-9a-f]{32}|AIza[0-9A-Za-z_-]{35}|ya29\.|1//0|"
        r"wandb_v1_|SK[0-9a-f]{32}|[0-9]{6,12}:AA[A-Za-z0-9_-]{30}|"
        r"ms-[0-9a-f]{8}-[0-9a-f]{4}-|eyJ[A-Za-z0-9_-]{8,}\.eyJ",
        re.compile(
            r"\b(?:hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z0-9]{30,}|gh[pousr]_[A-Za-z0-9]{36,}|"
            r"github_pat_[A-Za-z0-9_]{22,}|gl[a-z]{1,5}-[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20,}|"
            r"xox[a-z]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,}|"
            r"[sr]k_(?:live|test)_[A-Za-z0-9]{20,}|dckr_pat_[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36,}|"
            r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}|(?:ATATT3|ATBB|ATCTT3)[A-Za-z0-9_=-]{20,}|"
            r"dapi[0-9a-f]{32}|hvs\.[A-Za-z0-9_-]{20,}|dop_v1_[0-9a-f]{64}|"
            r"shp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}|glsa_[A-Za-z0-9_]{32,}|NRAK-[A-Z0-9]{27}|"
            r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|key-[0-9a-f]{32}|AIza[0-9A-Za-z_-]{35}|"
            r"ya29\.[A-Za-z0-9_-]{20,}|wandb_v1_[A-Za-z0-9_]{20,}|SK[0-9a-f]{32}|"
            r"ms-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|"
            r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)|1//0[A-Za-z0-9_-]{20,}|"
            r"(?<![0-9])[0-9]{6,12}:AA[A-Za-z0-9_-]{30,}"
        ),
        MASK,
    ),
    # password hashes (htpasswd, crypt): crackable offline
    _Rule(
        r"\$(?:apr1|2[aby]|[156]|y)\$",
        re.compile(r"\$(?:apr1|2[aby]|[156]|y)\$[./A-Za-z0-9$]{8,}"),
        MASK,
    ),
    # Authorization headers and cookies
    _Rule(
        r"(?i)bearer|basic|token|digest|aws4-hmac",
        re.compile(r"(?i)\b(Bearer|Basic|Token|Digest)\s+[A-Za-z0-9._~+/-]{8,}=*"),
        rf"\1 {MASK}",
    ),
    _Rule(
        r"(?i)cookie:",
        re.compile(r"(?i)(\b(?:set-)?cookie:\s*).+"),
        rf"\1{MASK}",
    ),
    # command lines that take secrets as separate arguments
    _Rule(
        r"obsutil|ossutil|ma-cli|coscli|aws configure",
        re.compile(
            r"((?:\s-{1,2}(?:k|sk|ak|i|t|token|security[_-]?token|secret[_-]?key|"
            r"access[_-]?key)[= ]|"
            r"aws configure set \S*(?:secret|key|token)\S*\s+)['\"]?)[^\s'\"]{8,}"
        ),
        rf"\1{MASK}",
    ),
    _Rule(
        r"sshpass|docker login|mysql|mariadb|podman login|helm registry login",
        re.compile(r"(\s-p\s*['\"]?)[^\s'\"]+"),
        rf"\1{MASK}",
    ),
    _Rule(
        r"redis-cli",
        re.compile(r"(\s(?:-a|--pass)\s+['\"]?)[^\s'\"]+"),
        rf"\1{MASK}",
    ),
    # redis's AUTH [user] password at its prompt (`127.0.0.1:6379> AUTH ...`)
    _Rule(
        r"(?i)> ?auth ",
        re.compile(r"(?i)(>\s?AUTH\s+(?:\S+\s+)?)\S+"),
        rf"\1{MASK}",
    ),
    # a Huawei Cloud temporary credential ({"access": AK, "secret": SK, "securitytoken":
    # ...}): its AK, twenty upper-case letters and digits, under the bare key `access`
    _Rule(
        r"(?i)access[\"']?\s*[:=]",
        re.compile(r"(?i)(\baccess[\"']?\s*[:=]\s*[\"']?)[A-Z0-9]{20}\b"),
        rf"\1{MASK}",
    ),
    # kubeconfig's client key and certificate, base64 blobs under their own keys
    _Rule(
        r"(?i)client-(?:key|certificate)-data",
        re.compile(r"(?i)(client-(?:key|certificate)-data[\"']?\s*:\s*[\"']?)[A-Za-z0-9+/=]{8,}"),
        rf"\1{MASK}",
    ),
    # a .netrc entry's password on a line of its own (`  password SECRET`)
    _Rule(
        r"(?i)^\s*(?:password|passwd)\s+\S+\s*$",
        re.compile(r"(?i)^(\s*(?:password|passwd)\s+)\S+(\s*)$"),
        rf"\1{MASK}\2",
    ),
    _Rule(
        r"curl|wget|http",
        re.compile(r"((?:\s-u|\s--user|\s--proxy-user)[\s=]+['\"]?[^\s:'\"]*:)[^\s'\"]+"),
        rf"\1{MASK}",
    ),
    _Rule(
        r"(?i)login",
        re.compile(r"(?i)(\b(?:wandb login|login\s+\S+\s+password)\s+(?:--\S+\s+)*)[^\s'\"]{8,}"),
        rf"\1{MASK}",
    ),
    # credentials passed to a client as positional strings: oss2.Auth('id', 'secret')
    _Rule(
        r"Auth\(|set_auth\(|ObsClient\(|CosConfig\(|login\(|Credentials\(|Client\(",
        re.compile(r"(?<=[(,\s])(['\"])[A-Za-z0-9+/=_-]{16,}\1"),
        rf"\1{MASK}\1",
    ),
    # key=value, key: value, "key": "value", --key value for secret-looking keys
    _Rule(
        rf"(?i){_SECRET_WORD}{_SUFFIX}{_SEP_START}",
        re.compile(rf"(?i)((?:^|(?<=[^\w-])){_KEY}{_SEP}){_VALUE}"),
        _value,
    ),
    _Rule(
        r"(?i)--[a-z-]*(?:password|passwd|token|secret|api-key)",
        re.compile(
            r"(?i)(--[a-z-]{0,30}(?:password|passwd|token|secret|api-key)\s+['\"]?)([^\s'\"]{3,})"
        ),
        _value,
    ),
    _Rule(
        rf"(?i)key{_SEP_START}",
        re.compile(rf"(?i)((?:^|(?<=[^\w-]))[\w.-]{{0,40}}key{_SEP}){_VALUE}"),
        _token_value,
    ),
)


@cache
def _triggers() -> Any:
    """The rules' triggers as one RE2 Set (built on first use: importing stays cheap)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    triggers = re2.Set.SearchSet(options)
    for rule in _RULES:
        triggers.Add(rule.trigger)
    triggers.Compile()
    return triggers


# Characters no output shows: C0 controls but tab, DEL, C1 controls (0x9b is a CSI to
# some terminals), and the bidirectional overrides and isolates that reorder what a
# terminal shows of a line ("Trojan source").
_INVISIBLE = [*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0)]
_BIDI = [0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
# Line and paragraph separators end a line to JavaScript, many editors and chat clients:
# a space, as a carriage return is.
_BREAKS = [0x0D, 0x2028, 0x2029]
_DROP = {c: None for c in [*_INVISIBLE, *_BIDI]} | {c: " " for c in _BREAKS}
_ESCAPE = {
    c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" for c in [*_INVISIBLE, *_BIDI, *_BREAKS]
}


def printable(text: str) -> str:
    """The text without terminal escapes or control characters: a log line may hold an
    OSC 52 clipboard write, a hyperlink or a window title, and a report printed to a
    terminal (or pasted into one) must not run them."""
    if text.isprintable():
        return text
    return ANSI.sub("", text).translate(_DROP)


def _secrets(text: str) -> str:
    hits = _triggers().Match(text.encode("utf-8", "surrogatepass"))
    if not hits:
        return text
    for i in sorted(hits):
        rule = _RULES[i]
        text = rule.pattern.sub(rule.replacement, text)
    return text


def redact(text: str) -> str:
    """The line, printable, with every secret-looking value replaced by [REDACTED].
    Escapes go first: `\\x1b[33mhf_...` must look like the token it is."""
    return _secrets(printable(text))


def shown(text: str, secrets: bool = True, cap: int = TEXT_CAP) -> str:
    """A line as it leaves the engine: printable, redacted (unless `secrets` is False),
    then cut to `cap` characters. Redacting before the cut: a token that starts just
    before the cut would otherwise be half shown, its start too short to recognise."""
    text = text[: cap + _WINDOW]
    return (redact(text) if secrets else printable(text))[:cap]


# What a wrapped token's second half looks like at the start of the next line.
_WRAPPED = re.compile(r"^(\s{0,8})[A-Za-z0-9+/=_.~%-]{8,}(?=\s|$)")


def redact_lines(lines: Iterable[str], secrets: bool = True) -> tuple[str, ...]:
    """Consecutive lines as shown: each line by shown(), and where a line ends in a
    redacted value, the next line's leading run of token characters is redacted too (a
    terminal or logger that wraps at a width splits a token over two lines)."""
    out: list[str] = []
    for line in lines:
        text = shown(line, secrets)
        if secrets and out and out[-1].endswith(MASK):
            text = _WRAPPED.sub(rf"\1{MASK}", text)
        out.append(text)
    return tuple(out)


def label(name: str, secrets: bool = True) -> str:
    """A file or member name as every output shows it: bytes that are not UTF-8 (the
    file system's surrogate escapes) and control characters as backslash escapes, so a
    name can neither forge a report line nor reach the terminal, nor fail a strict
    UTF-8 writer; secrets redacted unless `secrets` is False (a presigned URL saved as
    a file name holds its signature)."""
    if not name.isprintable():
        name = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        name = name.translate(_ESCAPE)
    return _secrets(name) if secrets else name
