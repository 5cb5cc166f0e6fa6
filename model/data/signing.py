"""Who issued a proposal bundle: an Ed25519 signature of its manifest (the ``cryptography`` library's, not ours).

``costfrontier keygen KEY --name NAME`` writes the issuer's private key ``KEY`` (PKCS #8 PEM, readable by its owner
only) and its public key ``KEY.pub`` (one OpenSSH line, ``ssh-ed25519 AAAA… NAME``), which the issuer hands to its
customers. ``report --bundle DIR --sign KEY`` adds :data:`model.data.bundle.SIGNATURE` to the bundle: a statement
(the manifest's SHA-256, the key's fingerprint, the time) and its signature. The manifest lists every file's
SHA-256 and ``verify`` refuses a file more or less, so the signature covers the whole bundle.
``verify DIR --key KEY.pub`` checks it (:func:`check_signature`): who issued it (the name the customer's public key
carries) and that nothing changed since.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = ["SigningError", "Signed", "keygen", "sign_manifest", "check_signature", "fingerprint", "SIGNATURE_FORMAT"]

#: what a signature file says it is
SIGNATURE_FORMAT = "costfrontier bundle signature 1 (Ed25519)"


class SigningError(ValueError):
    """A key that cannot be read or written, or a signature that is not one: said in one line."""


@dataclass(frozen=True)
class Signed:
    """What :func:`check_signature` found: ``ok``, who (the public key's name), the key's fingerprint, when, and
    why not."""

    ok: bool
    issuer: str
    key: str
    signed_at: str | None
    why: str = ""


def fingerprint(public_key) -> str:
    """``SHA256:`` and the base64 of the SHA-256 of the raw public key (as ``ssh-keygen -l`` counts an Ed25519 key's
    blob, here of its 32 raw bytes)."""
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "SHA256:" + base64.b64encode(hashlib.sha256(raw).digest()).decode().rstrip("=")


def keygen(path: str | os.PathLike, name: str) -> tuple[Path, Path, str]:
    """A new Ed25519 key pair: ``path`` (private, mode 0600) and ``path.pub`` named ``name``. Refuses to overwrite.
    Returns both paths and the fingerprint."""
    private, public = Path(path), Path(f"{path}.pub")
    name = " ".join(str(name).split())
    if not name:
        raise SigningError("give the issuer's name (--name), as the customer should read it")
    for p in (private, public):
        if p.exists():
            raise SigningError(f"{p.name} already exists; choose a new file (a key is never overwritten)")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    line = key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    public.write_text(f"{line.decode()} {name}\n", encoding="utf-8")
    return private, public, fingerprint(key.public_key())


def _private(path) -> object:
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise SigningError(f"{Path(path).name}: not a private key this tool can sign with "
                           f"({getattr(exc, 'strerror', None) or 'costfrontier keygen makes one'})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(f"{Path(path).name}: not an Ed25519 key (costfrontier keygen makes one)")
    return key


def _public(path) -> tuple[object, str]:
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
        parts = text.split(None, 2)
        key = serialization.load_ssh_public_key(" ".join(parts[:2]).encode())
    except (OSError, ValueError, IndexError, UnicodeDecodeError) as exc:
        raise SigningError(f"{Path(path).name}: not a public key (an 'ssh-ed25519 AAAA… NAME' line: "
                           f"{getattr(exc, 'strerror', None) or 'costfrontier keygen writes KEY.pub'})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningError(f"{Path(path).name}: not an Ed25519 public key")
    return key, (parts[2].strip() if len(parts) > 2 else "")


def _statement_bytes(statement: dict) -> bytes:
    return json.dumps(statement, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sign_manifest(manifest: bytes, key_path: str | os.PathLike, now: datetime | None = None) -> bytes:
    """The signature file of a bundle whose ``manifest.json`` is ``manifest``, signed with the private key at
    ``key_path``."""
    key = _private(key_path)
    statement = {"format": SIGNATURE_FORMAT, "manifest_sha256": hashlib.sha256(manifest).hexdigest(),
                 "key": fingerprint(key.public_key()),
                 "signed_at": (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")}
    signature = base64.b64encode(key.sign(_statement_bytes(statement))).decode()
    return json.dumps({"statement": statement, "signature": signature}, indent=2).encode("utf-8") + b"\n"


def check_signature(manifest: bytes, signature: bytes | None, public_path: str | os.PathLike) -> Signed:
    """The signature file ``signature`` (None: the bundle is unsigned) of ``manifest`` checked with the public key
    at ``public_path``. Raises :class:`SigningError` when the public key cannot be read."""
    key, name = _public(public_path)
    mine = fingerprint(key)
    issuer = name or f"the holder of key {mine}"
    if signature is None:
        return Signed(False, issuer, mine, None, "the bundle is unsigned: anyone could have made it")
    try:
        found = json.loads(signature.decode("utf-8"))
        statement, raw = found["statement"], base64.b64decode(found["signature"], validate=True)
        if not isinstance(statement, dict) or statement.get("format") != SIGNATURE_FORMAT:
            raise ValueError("not a signature of this kind")
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return Signed(False, issuer, mine, None, "signature.json is not a signature this tool wrote")
    try:
        key.verify(raw, _statement_bytes(statement))
    except InvalidSignature:
        return Signed(False, issuer, mine, None, f"not signed with this key (signed with {statement.get('key')})")
    if statement.get("manifest_sha256") != hashlib.sha256(manifest).hexdigest():
        return Signed(False, issuer, mine, statement.get("signed_at"),
                      "the manifest changed since it was signed")
    return Signed(True, issuer, mine, statement.get("signed_at"))
