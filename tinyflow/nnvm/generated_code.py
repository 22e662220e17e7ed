"""Code a pass generated in this process, sealed so that a kernel compiles that and nothing else.

FuseElemwise seals the code of each ``_fused`` node it makes (:func:`seal`, an HMAC of the
exact text under a key drawn when the process starts and never written anywhere); the fused
kernel compiles code only where :func:`is_sealed` holds.  Code from anywhere else (a graph
JSON, a node built or edited by hand) carries no valid seal, so it is never run.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = ["is_sealed", "seal"]

_KEY = secrets.token_bytes(32)  # per process, read-only: a seal is worthless in another process


def seal(*texts) -> str:
    """The seal of ``texts`` (strings or None) made in this process."""
    return hmac.new(_KEY, repr(texts).encode(), hashlib.sha256).hexdigest()


def is_sealed(value, *texts) -> bool:
    """Whether ``value`` is the seal this process made of ``texts``."""
    return isinstance(value, str) and hmac.compare_digest(value, seal(*texts))
