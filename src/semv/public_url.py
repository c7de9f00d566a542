"""Which URLs semv publishes as links (a report's ``href``, a ClaimReview ``appearance``).

A URL read from untrusted input (an image index's ``--meta``, a case's ``source_url``, a
search result) is shown as a link only when it is http(s), carries no user part, and names a
public host: not a literal private, loopback, link-local, multicast, reserved or unspecified
address (``169.254.169.254``, ``10.0.0.7``, ``[::1]``), nor a local name (``localhost``,
``*.local``, ``*.internal``, a single-label name). Nothing is resolved: publishing never
touches the network (fetching checks resolved addresses, ``semv.retrieval``'s guard).
"""

from __future__ import annotations

import ipaddress
from typing import Final
from urllib.parse import urlsplit

__all__ = ["publishable_url"]

_LOCAL_NAMES: Final = ("localhost", "localhost.localdomain")
_LOCAL_SUFFIXES: Final = (".localhost", ".local", ".internal", ".lan", ".home.arpa", ".intranet")


def publishable_url(url: str) -> bool:
    """Whether ``url`` may be published as a link (the rules above)."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return False
    if parts.scheme.lower() not in ("http", "https") or not host:
        return False
    if parts.username is not None or parts.password is not None:
        return False
    host = host.lower().rstrip(".")
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        local = host in _LOCAL_NAMES or host.endswith(_LOCAL_SUFFIXES) or "." not in host
        return not local
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast
