"""C2PA content credentials: sign a manifest offline with a throw-away test CA, read it back,
detect a flipped byte, and turn the result into authenticity arguments."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from semv.config import OfflineAgentConfig
from semv.dimensions import ClaimView, rule_for
from semv.model import (
    Asset,
    ContentCredentials,
    Dimension,
    Evidence,
    Scope,
    Stance,
    Subclaim,
    UncertaintyCode,
)
from semv.perception.credentials import read_credentials

c2pa = pytest.importorskip("c2pa")
x509 = pytest.importorskip("cryptography.x509")

AI_SOURCE = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"
CAPTURE = {
    "action": "c2pa.created",
    "digitalSourceType": "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture",
}


def _c2pa(ev: Evidence) -> ContentCredentials:
    found = ev.observed(ContentCredentials)
    assert found is not None
    return found


def _test_signer() -> tuple[bytes, bytes]:
    """A CA and an ES256 leaf certificate made at test time (PEM chain, PKCS#8 key)."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = dt.datetime.now(dt.UTC)

    def name(cn: str) -> x509.Name:
        return x509.Name(
            [
                x509.NameAttribute(NameOID.COMMON_NAME, cn),
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "semv tests"),
            ]
        )

    def usage(*, ca: bool) -> x509.KeyUsage:
        return x509.KeyUsage(
            digital_signature=True,
            content_commitment=False,
            key_encipherment=False,
            data_encipherment=False,
            key_agreement=False,
            key_cert_sign=ca,
            crl_sign=ca,
            encipher_only=False,
            decipher_only=False,
        )

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("semv test CA"))
        .issuer_name(name("semv test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=7))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(usage(ca=True), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(name("semv test signer"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=7))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(usage(ca=False), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.EMAIL_PROTECTION]), critical=False
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    chain = leaf.public_bytes(pem) + ca.public_bytes(pem)
    private = key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return chain, private


def _sign(tmp_path: Path, actions: list[dict[str, str]], name: str) -> Path:
    rng = np.random.default_rng(11)
    source = tmp_path / f"{name}-src.jpg"
    Image.fromarray((rng.random((96, 128, 3)) * 255).astype(np.uint8)).save(source, quality=90)
    chain, key = _test_signer()
    signer = c2pa.Signer.from_info(c2pa.C2paSignerInfo(c2pa.C2paSigningAlg.ES256, chain, key, None))
    manifest = {
        "claim_generator_info": [{"name": "semv-tests", "version": "1"}],
        "title": source.name,
        "format": "image/jpeg",
        "assertions": [{"label": "c2pa.actions", "data": {"actions": actions}}],
    }
    target = tmp_path / f"{name}.jpg"
    builder = c2pa.Builder(json.dumps(manifest))
    with source.open("rb") as src, target.open("w+b") as dst:
        builder.sign(signer, "image/jpeg", src, dst)
    return target


def _asset(path: Path) -> Asset:
    return Asset(id="asset:0", path=str(path), kind="image")


def _authenticity(ev_list: tuple[object, ...]) -> list[Stance]:
    view = ClaimView(
        subclaim=Subclaim(
            id="claim:authenticity",
            claim_type="authenticity",
            dimension=Dimension.AUTHENTICITY,
            statement="The photo is an unedited camera capture.",
            scope=Scope.ASSET,
            asserted=True,
        ),
        claim_text="The photo is an unedited camera capture.",
    )
    rule = rule_for(Dimension.AUTHENTICITY)
    return [f.stance for ev in ev_list for f in rule(view, ev, OfflineAgentConfig())]  # type: ignore[arg-type]


def test_signed_manifest_is_read_and_supports_authenticity(tmp_path: Path) -> None:
    signed = _sign(tmp_path, [CAPTURE], "camera")
    out = read_credentials(_asset(signed))
    assert out.uncertainty == ()
    (ev,) = out.evidence
    assert ev.id == "ev:c2pa:asset:0"
    assert _c2pa(ev).validation_state == "Valid"  # intact; our test CA is not a trust anchor
    assert _c2pa(ev).signer == "semv test signer"
    assert _c2pa(ev).actions == "c2pa.created"
    assert _c2pa(ev).hash_mismatch is False and _c2pa(ev).ai_generated is False
    assert ev.provenance is not None and ev.provenance.agent == "c2pa-python"
    assert _authenticity(out.evidence) == [Stance.SUPPORT]


def test_flipped_byte_is_a_hash_mismatch_and_a_strong_attack(tmp_path: Path) -> None:
    signed = _sign(tmp_path, [CAPTURE], "flip")
    data = bytearray(signed.read_bytes())
    data[-200] ^= 0xFF  # inside the entropy-coded image data, after the manifest
    flipped = tmp_path / "flipped.jpg"
    flipped.write_bytes(bytes(data))
    out = read_credentials(_asset(flipped))
    (ev,) = out.evidence
    assert _c2pa(ev).validation_state == "Invalid"
    assert _c2pa(ev).hash_mismatch is True
    assert "assertion.dataHash.mismatch" in _c2pa(ev).failures
    assert _authenticity(out.evidence) == [Stance.ATTACK]
    assert ev.reliability >= 0.9


def test_declared_ai_generation_is_an_attack(tmp_path: Path) -> None:
    signed = _sign(
        tmp_path, [{"action": "c2pa.created", "digitalSourceType": AI_SOURCE}], "generated"
    )
    out = read_credentials(_asset(signed))
    (ev,) = out.evidence
    assert _c2pa(ev).ai_generated is True
    assert "trainedAlgorithmicMedia" in ev.content
    assert _authenticity(out.evidence) == [Stance.ATTACK]


def test_no_manifest_is_no_evidence_and_garbage_is_uncertainty(tmp_path: Path) -> None:
    plain = tmp_path / "plain.jpg"
    Image.new("RGB", (32, 32), "red").save(plain)
    assert read_credentials(_asset(plain)).evidence == ()
    assert read_credentials(_asset(plain)).uncertainty == ()
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 10)
    out = read_credentials(_asset(broken))
    assert out.evidence == ()
    assert [u.code for u in out.uncertainty] == [UncertaintyCode.MEDIA_UNREADABLE]
