"""API keys and what each may do: ``--api-key``, ``--api-key-file`` and the ``--key-policy`` file.

Keys from ``--api-key`` (or ``SUPERFLUID_API_KEY``) and ``--api-key-file`` are admin keys without limits. A key
policy file (TOML, YAML or JSON) lists keys with a role and limits::

    [[keys]]
    id = "alice"                  # shown in the access log; default "key-" + 8 hex digits of its SHA-256
    key = "sk-alice-..."          # or sha256 = "<64 hex digits>", so the file need not hold the key itself
    role = "user"                 # user (default) or admin
    max_concurrent = 2            # requests in flight on POST routes; absent: no limit
    rate = "60/m"                 # requests per second (/s), minute (/m) or hour (/h); absent: no limit
    burst = 10                    # requests allowed at once before the rate applies (default: one second's worth)
    qos_ceiling = "agent"         # the most urgent x-superfluid-qos class it may ask for
    models = ["smollm2-135m-instruct"]   # the only models it sees; absent: all

Only SHA-256 digests of keys are kept in memory; a presented key is hashed and compared with every digest in
constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from superfluid.config_files import ConfigFileError, read_document
from superfluid.engine import QOS_RANK
from superfluid.http.rate_limit import default_burst, parse_rate

ROLES = ("admin", "user")
_POLICY_KEYS = frozenset({"id", "key", "sha256", "role", "max_concurrent", "rate", "burst", "qos_ceiling",
                          "models"})
_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")


class KeyPolicyError(ValueError):
    """A key file or policy that cannot be used; the message says where and why."""


@dataclass(frozen=True)
class KeyGrant:
    """One key's identity, role and limits. Holds the key's digest, never the key."""

    id: str
    digest: bytes
    role: str = "admin"
    max_concurrent: int = 0
    """Requests in flight on POST routes; 0: no limit."""
    rate_per_s: float = 0.0
    """Requests per second; 0: no limit."""
    burst: int = 0
    qos_ceiling: str | None = None
    """The most urgent scheduling class this key may ask for; None: any."""
    models: frozenset[str] | None = None
    """The models this key may use; None: all."""

    @property
    def admin(self) -> bool:
        return self.role == "admin"

    def qos_allowed(self, qos: str) -> bool:
        """Whether ``qos`` is at or below this key's ceiling (lower urgency has a higher rank)."""
        if self.qos_ceiling is None or qos not in QOS_RANK:
            return True
        return QOS_RANK[qos] >= QOS_RANK[self.qos_ceiling]


def digest(key: str | bytes) -> bytes:
    return hashlib.sha256(key.encode() if isinstance(key, str) else key).digest()


def default_id(key_digest: bytes) -> str:
    return "key-" + key_digest.hex()[:8]


class KeyRing:
    """The keys a server accepts. Empty: no key is asked for."""

    def __init__(self, grants: Iterable[KeyGrant] = ()) -> None:
        self.grants = tuple(grants)
        ids = [g.id for g in self.grants]
        digests = [g.digest for g in self.grants]
        duplicate_id = next((i for i in ids if ids.count(i) > 1), None)
        if duplicate_id is not None:
            raise KeyPolicyError(f"two keys have the id '{duplicate_id}'")
        if len(set(digests)) != len(digests):
            clash = next(g.id for g in self.grants if digests.count(g.digest) > 1)
            raise KeyPolicyError(f"the key of '{clash}' is listed twice")

    @property
    def enabled(self) -> bool:
        return bool(self.grants)

    def by_id(self, key_id: str | None) -> KeyGrant | None:
        """The grant with this id (in-process requests name the key they act as: batch lines, web sessions)."""
        return next((grant for grant in self.grants if grant.id == key_id), None)

    def find(self, presented: bytes) -> KeyGrant | None:
        """The grant whose key this is, comparing with every digest in constant time."""
        wanted = digest(presented)
        found = None
        for grant in self.grants:
            if hmac.compare_digest(grant.digest, wanted):
                found = grant
        return found


def plain_grants(keys: Iterable[str]) -> list[KeyGrant]:
    """Admin grants without limits for keys given on the command line, in the environment or a key file."""
    out = []
    for key in keys:
        if not key:
            raise KeyPolicyError("an API key cannot be empty")
        key_digest = digest(key)
        out.append(KeyGrant(id=default_id(key_digest), digest=key_digest))
    return out


def read_key_file(path: Path) -> list[str]:
    """One key per line; blank lines and lines starting with # are skipped."""
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise KeyPolicyError(f"cannot read the key file {path}: {exc.strerror}") from None
    keys = [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]
    if not keys:
        raise KeyPolicyError(f"the key file {path} holds no key")
    return keys


def read_policy(path: Path) -> list[KeyGrant]:
    try:
        document = read_document(path)
    except ConfigFileError as exc:
        raise KeyPolicyError(str(exc)) from None
    items = document.get("keys") if isinstance(document, Mapping) else None
    if not isinstance(items, list) or not items:
        raise KeyPolicyError(f"{path}: expected a non-empty list named 'keys'")
    return [_grant(item, f"{path}: keys[{i}]") for i, item in enumerate(items)]


def _grant(item: Any, where: str) -> KeyGrant:
    if not isinstance(item, Mapping):
        raise KeyPolicyError(f"{where} must be a table of settings")
    unknown = set(item) - _POLICY_KEYS
    if unknown:
        raise KeyPolicyError(f"{where}: unknown setting(s) {', '.join(sorted(unknown))}")
    key_digest = _entry_digest(item, where)
    role = item.get("role", "user")
    if role not in ROLES:
        raise KeyPolicyError(f"{where}.role must be admin or user; got {role!r}")
    rate = 0.0
    if item.get("rate") is not None:
        try:
            rate = parse_rate(str(item["rate"]))
        except ValueError as exc:
            raise KeyPolicyError(f"{where}.rate: {exc}") from None
    burst = _whole(item, "burst", where) or (default_burst(rate) if rate else 0)
    ceiling = item.get("qos_ceiling")
    if ceiling is not None and ceiling not in QOS_RANK:
        raise KeyPolicyError(f"{where}.qos_ceiling must be one of {', '.join(QOS_RANK)}; got {ceiling!r}")
    models = item.get("models")
    if models is not None and (not isinstance(models, list) or not all(isinstance(m, str) for m in models)):
        raise KeyPolicyError(f"{where}.models must be a list of model ids")
    key_id = item.get("id") or default_id(key_digest)
    if not isinstance(key_id, str):
        raise KeyPolicyError(f"{where}.id must be a string")
    return KeyGrant(id=key_id, digest=key_digest, role=role, max_concurrent=_whole(item, "max_concurrent", where),
                    rate_per_s=rate, burst=burst, qos_ceiling=ceiling,
                    models=frozenset(models) if models is not None else None)


def _entry_digest(item: Mapping[str, Any], where: str) -> bytes:
    key, hashed = item.get("key"), item.get("sha256")
    if (key is None) == (hashed is None):
        raise KeyPolicyError(f"{where} needs exactly one of 'key' or 'sha256'")
    if key is not None:
        if not isinstance(key, str) or not key:
            raise KeyPolicyError(f"{where}.key must be a non-empty string")
        return digest(key)
    if not isinstance(hashed, str) or not _HEX64.match(hashed):
        raise KeyPolicyError(f"{where}.sha256 must be 64 hex digits (the SHA-256 of the key)")
    return bytes.fromhex(hashed)


def _whole(item: Mapping[str, Any], name: str, where: str) -> int:
    value = item.get(name, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise KeyPolicyError(f"{where}.{name} must be a whole number >= 0")
    return value


def load_keyring(api_keys: Iterable[str], key_file: Path | None, policy: Path | None) -> KeyRing:
    """Every key the server accepts, from the three sources; KeyPolicyError says what is wrong."""
    keys = list(api_keys)
    if key_file is not None:
        keys += read_key_file(key_file)
    grants = plain_grants(keys)
    if policy is not None:
        grants += read_policy(policy)
    return KeyRing(grants)
