"""Extractors that turn media into evidence (metadata now; keyframes, OCR, ASR, forensics later).

Each extractor lives in its own module (``semv.perception.metadata``) and returns a
``semv.model.MediaEvidence``: evidence items plus uncertainty items for what failed.
"""
