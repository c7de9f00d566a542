"""The declared forensic corpus (``semv.eval.forensic_corpus``): each version extends the one
before without changing it, and the v3 CMS pair differs by the paste alone."""

from __future__ import annotations

import numpy as np
import pytest

from semv.eval.forensic_corpus import corpus
from tests.conftest import shared_data

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]


def test_v3_keeps_every_v2_image_bit_for_bit_and_adds_a_cms_pair_per_photo() -> None:
    data = shared_data()
    v2 = {item.name: item for item in corpus(data, cms=False)}
    v3 = {item.name: item for item in corpus(data)}
    assert set(v2) < set(v3)
    for name, item in v2.items():
        assert np.array_equal(np.asarray(item.image), np.asarray(v3[name].image)), name
        assert (item.label, item.split, item.quality) == (
            v3[name].label,
            v3[name].split,
            v3[name].quality,
        )
    added = sorted(set(v3) - set(v2))
    photos = sorted(n for n, it in v2.items() if it.kind == "camera")
    assert added == sorted([f"{p}#cms" for p in photos] + [f"{p}#paste-cms" for p in photos])
    for photo in photos:
        authentic, tampered = v3[f"{photo}#cms"], v3[f"{photo}#paste-cms"]
        assert (authentic.label, tampered.label) == (0, 1)
        assert authentic.split == tampered.split == v2[photo].split
        assert authentic.source == tampered.source == v2[photo].source
        # one platform copy, saved again at one fine quality: only the paste differs
        assert authentic.image.size == tampered.image.size
        assert authentic.quality == tampered.quality and authentic.quality >= 85
        assert max(authentic.image.size) <= max(1280, *v2[photo].image.size)
        diff = np.abs(
            np.asarray(authentic.image, dtype=np.int16) - np.asarray(tampered.image, np.int16)
        ).max(axis=2)
        rows, cols = np.nonzero(diff > 24)
        assert rows.size, photo  # the paste is there
        height, width = diff.shape
        box = (rows.max() - rows.min() + 1) * (cols.max() - cols.min() + 1)
        assert box < 0.5 * height * width, photo  # and only there, give or take a JPEG block
