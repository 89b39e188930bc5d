"""Keys and key policies: reading the files, and finding a presented key among digests."""

from __future__ import annotations

from pathlib import Path

import pytest

from superfluid.http.keys import KeyGrant, KeyPolicyError, KeyRing, digest, load_keyring


def _read(tmp_path: Path, policy: str) -> KeyRing:
    path = tmp_path / "keys.toml"
    path.write_text(policy)
    return load_keyring((), None, path)


def test_only_digests_are_kept_and_every_grant_is_compared(tmp_path: Path) -> None:
    hashed = digest("second").hex()
    ring = _read(tmp_path, f"[[keys]]\nkey = 'first'\n[[keys]]\nid = 'b'\nsha256 = '{hashed}'\n")
    assert all(isinstance(g.digest, bytes) and len(g.digest) == 32 for g in ring.grants)
    assert "first" not in repr(ring.grants) and "second" not in repr(ring.grants)
    second = ring.find(b"second")
    assert second is not None and second.id == "b" and second.role == "user"
    assert ring.find(b"third") is None
    first = ring.find(b"first")
    assert first is not None and first.id == "key-" + digest("first").hex()[:8]


def test_plain_keys_are_admin_keys_without_limits(tmp_path: Path) -> None:
    key_file = tmp_path / "keys.txt"
    key_file.write_text("from-file\n")
    ring = load_keyring(("from-flag",), key_file, None)
    grants = [ring.find(b"from-flag"), ring.find(b"from-file")]
    assert all(g is not None and g.admin and not g.max_concurrent and not g.rate_per_s for g in grants)
    with pytest.raises(KeyPolicyError, match="empty"):
        load_keyring(("",), None, None)
    (tmp_path / "empty.txt").write_text("# nothing\n")
    with pytest.raises(KeyPolicyError, match="holds no key"):
        load_keyring((), tmp_path / "empty.txt", None)


def test_qos_ceiling_allows_its_class_and_less_urgent_ones() -> None:
    grant = KeyGrant(id="k", digest=b"x" * 32, role="user", qos_ceiling="agent")
    assert [grant.qos_allowed(q) for q in ("interactive", "completion", "agent", "background")] == [
        False, False, True, True]
    assert grant.qos_allowed("made-up")  # unknown classes are the handler's 400, not a 403


def test_rate_and_default_burst(tmp_path: Path) -> None:
    ring = _read(tmp_path, "[[keys]]\nkey = 'a'\nrate = '120/m'\n[[keys]]\nkey = 'b'\nrate = '0.5/s'\n")
    a, b = ring.grants
    assert (a.rate_per_s, a.burst) == (2.0, 2)
    assert (b.rate_per_s, b.burst) == (0.5, 1)


@pytest.mark.parametrize(("policy", "message"), [
    ("[[keys]]\nid = 'a'\n", "exactly one of 'key' or 'sha256'"),
    ("[[keys]]\nkey = 'a'\nrole = 'root'\n", "role must be admin or user"),
    ("[[keys]]\nkey = 'a'\nrate = 'fast'\n", "rate"),
    ("[[keys]]\nkey = 'a'\nqos_ceiling = 'urgent'\n", "qos_ceiling"),
    ("[[keys]]\nkey = 'a'\nmax_concurrent = -1\n", "max_concurrent"),
    ("[[keys]]\nkey = 'a'\ncolour = 'red'\n", "unknown setting(s) colour"),
    ("[[keys]]\nkey = 'a'\nid = 'x'\n[[keys]]\nkey = 'b'\nid = 'x'\n", "two keys have the id 'x'"),
    ("[[keys]]\nkey = 'a'\n[[keys]]\nkey = 'a'\nid = 'other'\n", "listed twice"),
    ("[[keys]]\nsha256 = 'abc'\n", "64 hex digits"),
    ("keys = 1\n", "non-empty list named 'keys'"),
    ("[[keys\n", "not valid TOML"),
])
def test_policy_errors_say_what_is_wrong(tmp_path: Path, policy: str, message: str) -> None:
    with pytest.raises(KeyPolicyError) as caught:
        _read(tmp_path, policy)
    assert message in str(caught.value)


def test_yaml_policies_read_the_same(tmp_path: Path) -> None:
    path = tmp_path / "keys.yaml"
    path.write_text("keys:\n  - id: ops\n    key: yaml-key\n    role: admin\n    max_concurrent: 3\n")
    grant = load_keyring((), None, path).find(b"yaml-key")
    assert grant is not None and (grant.id, grant.admin, grant.max_concurrent) == ("ops", True, 3)
