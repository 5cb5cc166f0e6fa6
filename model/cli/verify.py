"""``costfrontier verify BUNDLE``: check a proposal bundle offline, without the store or a server.

    costfrontier verify DIR|DIR.zip [--key KEY.pub] [--json]
    costfrontier keygen KEY --name NAME

Rebuilds the answer from the bundle's own inputs (:func:`model.present.bundle.verify_folder`), compares every
figure of its manifest to its printed rounding and every file to its SHA-256, and names each that differs with both
values. Exit codes: 0 every figure and file holds, 1 a figure or a file differs, 3 the bundle lacks data a figure
needs, 2 bad arguments or not a bundle. With ``--key`` (the issuer's public key, :mod:`model.data.signing`) it also
says who issued the bundle and that nothing changed since, and exits 1 when it is unsigned or not signed with that
key. ``keygen`` makes the issuer's key pair (``report --bundle DIR --sign KEY``).
"""

from __future__ import annotations

import argparse
import json
import sys

import duckdb

from model.data.bundle import MANIFEST, SIGNATURE, BundleError, NotRegular, opened, read_inside
from model.data.signing import SigningError, check_signature, keygen
from model.data.store import StoreError
from model.present.bundle import EXIT_CODES, EXIT_DIFFERS, EXIT_OK, EXIT_USAGE
from model.present.bundle_verify import verify_folder

__all__ = ["main", "run"]


def main(args, ctrl_c) -> int:
    """Run ``verify`` or ``keygen``: offline, the bundle's own inputs; no store is opened or created."""
    return run(args)


def _keygen(args) -> int:
    try:
        private, public, print_ = keygen(args.key, args.name)
    except (SigningError, OSError) as exc:
        print(f"error: {exc if isinstance(exc, SigningError) else exc.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {private} (the private key: keep it, sign with report --bundle DIR --sign {private})")
    print(f"wrote {public} (the public key of {args.name}, {print_}: give it to customers, who run "
          f"costfrontier verify DIR --key {public.name})")
    return 0


def _signature(folder, key: str | None) -> tuple[object, str | None]:
    """(what checking the signature found, or None without --key; the note on an unchecked signature)."""
    try:
        signature = read_inside(folder, SIGNATURE)
    except FileNotFoundError:
        signature = None
    except NotRegular:
        signature = b""
    if key is None:
        return None, ("the bundle is signed; give --key KEY.pub (the issuer's public key) to check who issued it"
                      if signature is not None else "the bundle is unsigned: the hashes show its files match each "
                                                    "other, not who issued it")
    return check_signature(read_inside(folder, MANIFEST), signature, key), None


def run(args: argparse.Namespace, con=None) -> int:
    """Verify ``args.bundle`` (or make a key pair); the exit code (:data:`model.present.bundle.EXIT_CODES`)."""
    if args.command == "keygen":
        return _keygen(args)
    try:
        with opened(args.bundle) as folder:
            findings, manifest = verify_folder(folder)
            signed, unchecked = _signature(folder, args.key) if manifest else (None, None)
    except (BundleError, SigningError, StoreError, ValueError, OSError, duckdb.Error) as exc:
        # a bundle that is not one, or that cannot be read as one: said in a line, never a traceback
        print(f"error: {args.bundle}: not a proposal bundle that can be checked ({exc})"
              if not isinstance(exc, (BundleError, SigningError)) else f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    code = findings.code
    if signed is not None and not signed.ok:
        findings.differs.append(("signature", f"signed by {signed.issuer} ({signed.key})", signed.why))
        code = EXIT_DIFFERS if code == EXIT_OK else code
    if args.json:
        print(json.dumps({"command": "verify", "bundle": args.bundle, "exit": code, "said": EXIT_CODES[code],
                          "made_at": manifest.get("made_at"), "tool_version": manifest.get("tool_version"),
                          "data_version": manifest.get("data_version"), "link": manifest.get("link"),
                          "files": findings.files, "figures": findings.figures,
                          "signed": None if signed is None else {"ok": signed.ok, "issuer": signed.issuer,
                                                                 "key": signed.key, "signed_at": signed.signed_at,
                                                                 "why": signed.why},
                          "differs": [{"what": w, "manifest": a, "bundle": b} for w, a, b in findings.differs],
                          "lacks": [{"what": w, "why": why} for w, why in findings.lacks]}, indent=2))
        return code
    if manifest:
        print(f"note: the bundle was made {manifest.get('made_at', '?')} with Cost Frontier "
              f"{manifest.get('tool_version', '?')} on data version {manifest.get('data_version')}", file=sys.stderr)
    if unchecked:
        print(f"note: {unchecked}", file=sys.stderr)
    print(f"checked {findings.files} files and {findings.figures} figures")
    for what, why in findings.lacks:
        print(f"lacks: {what}: {why}")
    for what, said, found in findings.differs:
        print(f"differs: {what}: manifest {said}, bundle {found}")
    if signed is not None and signed.ok:
        print(f"signed: by {signed.issuer} ({signed.key}) on {signed.signed_at}; "
              + ("nothing changed since" if code == EXIT_OK else "but the bundle no longer holds what was signed"))
    print(f"{'verified' if code == 0 else 'not verified'}: {EXIT_CODES[code]} (exit {code})")
    return code
