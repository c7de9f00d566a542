"""From exiftool's tag dictionary to the few facts verification uses (pure, no I/O).

Input: ``{"Group:Tag": value}`` as exiftool prints it with ``-G -n`` (numeric GPS, signed in the
``Composite`` group). Output: capture time (ISO 8601, with its UTC offset when known), a sanity-
checked GPS position, camera make/model, software and modification time.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass, replace
from typing import Any, Final

from semv.model import Exif, camera_name

__all__ = ["CaptureTime", "MetadataFields", "parse_tags"]

_STAMP: Final = re.compile(
    r"^(?P<y>\d{4})[:\-](?P<mo>\d{2})[:\-](?P<d>\d{2})"
    r"(?:[ T](?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?P<frac>\.\d+)?)?)?"
    r"\s*(?P<tz>Z|[+\-]\d{2}:?\d{2})?$"
)
_OFFSET: Final = re.compile(r"^(?P<sign>[+\-])(?P<h>\d{2}):?(?P<m>\d{2})$")

_QUARTER_HOUR: Final = dt.timedelta(minutes=15)
_GPS_CLOCK_SLACK: Final = dt.timedelta(minutes=5)
"""How far the GPS fix time may lie from the shutter time for a derived UTC offset."""
_MAX_OFFSET: Final = dt.timedelta(hours=14)


@dataclass(frozen=True)
class _Capture:
    """A capture-time tag, the tags that may carry its UTC offset, and whether it is UTC."""

    tag: str
    offset_tags: tuple[str, ...] = ()
    utc: bool = False


_CAPTURE_TAGS: Final = (
    _Capture("EXIF:DateTimeOriginal", ("EXIF:OffsetTimeOriginal", "EXIF:OffsetTime")),
    _Capture("XMP:DateTimeOriginal"),
    _Capture("QuickTime:CreationDate"),
    _Capture("EXIF:CreateDate", ("EXIF:OffsetTimeDigitized", "EXIF:OffsetTime")),
    _Capture("XMP:CreateDate"),
    _Capture("QuickTime:CreateDate", utc=True),
)
"""Capture-time tags in order of preference; QuickTime ``CreateDate`` is UTC by specification."""

_MODIFY_TAGS: Final = (
    _Capture("EXIF:ModifyDate", ("EXIF:OffsetTime",)),
    _Capture("XMP:ModifyDate"),
    _Capture("QuickTime:ModifyDate", utc=True),
)
_MAKE_TAGS: Final = ("EXIF:Make", "QuickTime:Make", "XMP:Make")
_MODEL_TAGS: Final = ("EXIF:Model", "QuickTime:Model", "XMP:Model")
_SOFTWARE_TAGS: Final = (
    "EXIF:Software",
    "XMP:CreatorTool",
    "QuickTime:Software",
    "XMP:HistorySoftwareAgent",
    "IPTC:OriginatingProgram",
)


@dataclass(frozen=True)
class CaptureTime:
    """When the media was captured, as ISO 8601 text."""

    iso: str
    timezone_known: bool
    tag: str
    timezone_source: str | None = None


@dataclass(frozen=True)
class MetadataFields:
    """The facts read from one file's tags, and why a GPS position was dropped (if it was)."""

    capture_time: CaptureTime | None = None
    latitude: float | None = None
    longitude: float | None = None
    make: str | None = None
    model: str | None = None
    software: str | None = None
    modify_time: str | None = None
    gps_problem: str | None = None
    tags_used: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when no usable fact was found."""
        return not self.tags_used

    def observation(self) -> Exif:
        """The typed observation of the evidence item."""
        capture = self.capture_time
        located = self.latitude is not None and self.longitude is not None
        return Exif(
            capture_time=capture.iso if capture is not None else None,
            timezone_known=capture.timezone_known if capture is not None else None,
            capture_time_tag=capture.tag if capture is not None else None,
            timezone_source=capture.timezone_source if capture is not None else None,
            latitude=self.latitude if located else None,
            longitude=self.longitude if located else None,
            make=self.make,
            model=self.model,
            software=self.software,
            modify_time=self.modify_time,
        )

    def summary(self) -> str:
        """A readable one-line summary of the facts."""
        parts = []
        if self.capture_time is not None:
            zone = "" if self.capture_time.timezone_known else " (time zone unknown)"
            parts.append(f"captured {self.capture_time.iso}{zone}")
        if self.latitude is not None and self.longitude is not None:
            parts.append(f"GPS {self.latitude:.6f}, {self.longitude:.6f}")
        camera = camera_name(self.make, self.model)
        if camera:
            parts.append(f"camera {camera}")
        if self.software is not None:
            parts.append(f"software {self.software}")
        if self.modify_time is not None:
            parts.append(f"modified {self.modify_time}")
        text = "; ".join(parts)
        return f"Metadata: {text}." if text else "Metadata: none."


FIRST_PHOTOGRAPH = dt.datetime(1826, 1, 1, tzinfo=dt.UTC)
"""No photograph is older than Niépce's first (1826/27): an earlier capture time is invalid."""
CLOCK_SLACK = dt.timedelta(days=2)
"""Slack for a capture time later than the file or "now": 14 h of unknown UTC offset plus a
camera clock set a day wrong."""


def implausible_time(iso: str, *, acquired: dt.datetime | None, now: dt.datetime) -> str | None:
    """Why a capture time cannot be true, or None: it lies in the future, after the file
    was written (``acquired``, its modification time), or before photography existed."""
    try:
        stamp = dt.datetime.fromisoformat(iso)
    except ValueError:
        return f"capture time {iso} is not a date"
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.UTC)
    if stamp < FIRST_PHOTOGRAPH:
        return f"capture time {iso} is before photography existed (1826)"
    if stamp > now + CLOCK_SLACK:
        return f"capture time {iso} is in the future"
    if acquired is not None and stamp > acquired + CLOCK_SLACK:
        return f"capture time {iso} is after the file was written ({_iso(acquired)})"
    return None


def without_capture_time(fields: MetadataFields) -> MetadataFields:
    """``fields`` with its capture time dropped (and the tags that gave it)."""
    if fields.capture_time is None:
        return fields
    dropped = {fields.capture_time.tag, fields.capture_time.timezone_source}
    used = tuple(tag for tag in fields.tags_used if tag not in dropped)
    return replace(fields, capture_time=None, tags_used=used)


def parse_tags(tags: dict[str, Any]) -> MetadataFields:
    """Extract the verification facts from exiftool's ``-G -n`` tag dictionary."""
    used: list[str] = []
    capture = _capture_time(tags, used)
    latitude, longitude, gps_problem = _position(tags, used)
    modify = _first_time(tags, _MODIFY_TAGS, used)
    return MetadataFields(
        capture_time=capture,
        latitude=latitude,
        longitude=longitude,
        make=_first_text(tags, _MAKE_TAGS, used),
        model=_first_text(tags, _MODEL_TAGS, used),
        software=_first_text(tags, _SOFTWARE_TAGS, used),
        modify_time=modify.iso if modify is not None else None,
        gps_problem=gps_problem,
        tags_used=tuple(used),
    )


# ---- times --------------------------------------------------------------------------------


def _capture_time(tags: dict[str, Any], used: list[str]) -> CaptureTime | None:
    others = tuple(
        _Capture(key)
        for key in sorted(tags)
        if key.endswith(":DateTimeOriginal") and key not in {c.tag for c in _CAPTURE_TAGS}
    )
    found = _first_time(tags, _CAPTURE_TAGS + others, used)
    if found is None or found.timezone_known:
        return found
    stamp = _parse_stamp(tags.get(found.tag))
    gps_utc = _parse_stamp(tags.get("Composite:GPSDateTime"))
    if stamp is None or gps_utc is None or gps_utc.tzinfo is None:
        return found
    offset = _gps_offset(stamp, gps_utc)
    if offset is None:
        return found
    used.append("Composite:GPSDateTime")
    return CaptureTime(
        iso=_iso(stamp.replace(tzinfo=dt.timezone(offset))),
        timezone_known=True,
        tag=found.tag,
        timezone_source="offset of the GPS (UTC) time",
    )


def _first_time(
    tags: dict[str, Any], candidates: tuple[_Capture, ...], used: list[str]
) -> CaptureTime | None:
    for candidate in candidates:
        stamp = _parse_stamp(tags.get(candidate.tag))
        if stamp is None:
            continue
        used.append(candidate.tag)
        source: str | None = None
        if stamp.tzinfo is not None:
            source = candidate.tag
        elif candidate.utc:
            stamp, source = stamp.replace(tzinfo=dt.UTC), f"{candidate.tag} (UTC by specification)"
        else:
            for offset_tag in candidate.offset_tags:
                zone = _parse_offset(tags.get(offset_tag))
                if zone is not None:
                    stamp, source = stamp.replace(tzinfo=zone), offset_tag
                    used.append(offset_tag)
                    break
        return CaptureTime(
            iso=_iso(stamp),
            timezone_known=source is not None,
            tag=candidate.tag,
            timezone_source=source,
        )
    return None


def _parse_stamp(value: object) -> dt.datetime | None:
    """An exiftool date/time (``2019:06:01 14:32:10[.sss][+02:00|Z]``); None when invalid."""
    if not isinstance(value, str):
        return None
    match = _STAMP.match(value.strip())
    if match is None:
        return None
    try:
        stamp = dt.datetime(
            int(match["y"]),
            int(match["mo"]),
            int(match["d"]),
            int(match["h"] or 0),
            int(match["mi"] or 0),
            int(match["s"] or 0),
            round(float(match["frac"]) * 1_000_000) if match["frac"] else 0,
        )
    except ValueError:  # 0000:00:00 00:00:00 and other placeholders
        return None
    if stamp.year < 1800:
        return None
    zone = match["tz"]
    if zone is not None:
        tzinfo = dt.UTC if zone == "Z" else _parse_offset(zone)
        if tzinfo is None:
            return None
        stamp = stamp.replace(tzinfo=tzinfo)
    return stamp


def _parse_offset(value: object) -> dt.timezone | None:
    if not isinstance(value, str):
        return None
    match = _OFFSET.match(value.strip())
    if match is None:
        return None
    delta = dt.timedelta(hours=int(match["h"]), minutes=int(match["m"]))
    if delta > _MAX_OFFSET or delta.seconds % 60:
        return None
    return dt.timezone(-delta if match["sign"] == "-" else delta)


def _gps_offset(local: dt.datetime, gps_utc: dt.datetime) -> dt.timedelta | None:
    """The UTC offset implied by the camera clock vs the GPS clock, if plausible.

    The difference must be within a few minutes of a whole quarter hour and at most ±14 h;
    otherwise one of the clocks is wrong and the time zone stays unknown.
    """
    difference = local - gps_utc.astimezone(dt.UTC).replace(tzinfo=None)
    quarters = round(difference / _QUARTER_HOUR)
    offset = quarters * _QUARTER_HOUR
    if abs(difference - offset) > _GPS_CLOCK_SLACK or abs(offset) > _MAX_OFFSET:
        return None
    return offset


def _iso(stamp: dt.datetime) -> str:
    spec = "milliseconds" if stamp.microsecond else "seconds"
    return stamp.isoformat(timespec=spec)


# ---- place --------------------------------------------------------------------------------


def _position(
    tags: dict[str, Any], used: list[str]
) -> tuple[float | None, float | None, str | None]:
    """(latitude, longitude, problem). A dropped position has a problem and no coordinates."""
    found = _raw_position(tags)
    if found is None:
        return None, None, None
    latitude, longitude, keys = found
    if latitude is None or longitude is None:
        return None, None, f"incomplete GPS position ({', '.join(keys)})"
    problem = _implausible(latitude, longitude)
    status = tags.get("EXIF:GPSStatus")
    if problem is None and isinstance(status, str) and status.strip().upper() == "V":
        problem = "the GPS receiver marked the measurement void (GPSStatus V)"
    if problem is not None:
        return None, None, problem
    used.extend(keys)
    return round(latitude, 6), round(longitude, 6), None


def _raw_position(
    tags: dict[str, Any],
) -> tuple[float | None, float | None, tuple[str, ...]] | None:
    if "Composite:GPSLatitude" in tags or "Composite:GPSLongitude" in tags:
        keys = ("Composite:GPSLatitude", "Composite:GPSLongitude")
        return _number(tags.get(keys[0])), _number(tags.get(keys[1])), keys
    coordinates = tags.get("QuickTime:GPSCoordinates")
    if isinstance(coordinates, str) and len(coordinates.split()) >= 2:
        first, second = coordinates.split()[:2]
        return _number(first), _number(second), ("QuickTime:GPSCoordinates",)
    groups = sorted(
        {key.split(":", 1)[0] for key in tags if key.endswith((":GPSLatitude", ":GPSLongitude"))}
    )
    if not groups:
        return None
    group = "EXIF" if "EXIF" in groups else groups[0]
    keys = (f"{group}:GPSLatitude", f"{group}:GPSLongitude")
    latitude = _signed(tags.get(keys[0]), tags.get(f"{group}:GPSLatitudeRef"), "S")
    longitude = _signed(tags.get(keys[1]), tags.get(f"{group}:GPSLongitudeRef"), "W")
    return latitude, longitude, keys


def _signed(value: object, ref: object, negative: str) -> float | None:
    """Apply a hemisphere reference (``N``/``S``, ``E``/``W``) to an unsigned coordinate."""
    number = _number(value)
    if number is None or not isinstance(ref, str) or not ref.strip():
        return number
    return -abs(number) if ref.strip().upper()[0] == negative else abs(number)


def _implausible(latitude: float, longitude: float) -> str | None:
    if not (math.isfinite(latitude) and math.isfinite(longitude)):
        return "GPS position is not a number"
    if abs(latitude) > 90:
        return f"latitude {latitude} is outside [-90, 90]"
    if abs(longitude) > 180:
        return f"longitude {longitude} is outside [-180, 180]"
    if latitude == 0 and longitude == 0:
        return "GPS position (0, 0) is a placeholder written without a fix"
    return None


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


# ---- text ---------------------------------------------------------------------------------


def _first_text(tags: dict[str, Any], keys: tuple[str, ...], used: list[str]) -> str | None:
    for key in keys:
        value = tags.get(key)
        if value is None or isinstance(value, bool | dict | list):
            continue
        text = " ".join(str(value).split())
        if text:
            used.append(key)
            return text
    return None
