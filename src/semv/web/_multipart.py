"""Stream a multipart case upload straight into a staging folder.

Each file part is written to its place under the staging folder while the request body
arrives (64 KiB at a time), never held whole in memory nor spooled to a second temporary
file first. Every rule is applied as the bytes come, so a bad upload is refused before the
rest of it is read: the total size (``web.max_upload_mb``), the size of a case document
(``case.yaml``/``case.json``, ``web.max_case_file_mb``), the number of files
(``web.max_files``), a safe relative file name, and a name that is unique and does not clash
with a folder of another part (``a`` beside ``a/b``). Form fields (``adapter``,
``text_only``) are small and kept in memory, at most ``_MAX_FIELD`` bytes each.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any, Final

from python_multipart.multipart import MultipartParser, parse_options_header

from semv.config import WebConfig
from semv.errors import InputError
from semv.web._upload import UploadTooLarge, is_case_document, safe_member_path

__all__ = ["StreamedForm", "stream_form"]

_MAX_FIELD: Final = 4096
_MAX_FIELDS: Final = 20


@dataclass
class StreamedForm:
    """What a streamed upload left: its fields and the files written (relative paths)."""

    fields: dict[str, str] = field(default_factory=dict)
    files: list[PurePosixPath] = field(default_factory=list)


@dataclass
class _Part:
    headers: dict[bytes, bytes] = field(default_factory=dict)
    name: str = ""
    path: PurePosixPath | None = None
    handle: IO[bytes] | None = None
    size: int = 0
    limit: int | None = None
    value: bytearray = field(default_factory=bytearray)


class _Receiver:
    """The parser's callbacks: one part at a time, written where it belongs."""

    def __init__(self, dest: Path, limits: WebConfig) -> None:
        self.dest = dest
        self.limits = limits
        self.total_limit = int(limits.max_upload_mb * 1024 * 1024)
        self.case_limit = int(limits.max_case_file_mb * 1024 * 1024)
        self.form = StreamedForm()
        self.total = 0
        self.part = _Part()
        self._field = b""
        self._value = b""
        self._taken: set[PurePosixPath] = set()
        self._folders: set[PurePosixPath] = set()

    # header callbacks
    def on_part_begin(self) -> None:
        self.part = _Part()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def on_header_end(self) -> None:
        self.part.headers[self._field.lower()] = self._value
        self._field = self._value = b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self.part.headers.get(b"content-disposition", b""))
        self.part.name = options.get(b"name", b"").decode("utf-8", "replace")
        filename = options.get(b"filename")
        if filename is None:
            if len(self.form.fields) >= _MAX_FIELDS:
                raise InputError(f"upload: more than {_MAX_FIELDS} form fields")
            return
        self._open(filename.decode("utf-8", "replace"))

    def _open(self, filename: str) -> None:
        if len(self.form.files) >= self.limits.max_files:
            raise UploadTooLarge(
                f"upload: more than web.max_files={self.limits.max_files} files (refused)"
            )
        rel = safe_member_path(filename, where="upload")
        if rel in self._taken:
            raise InputError(f"upload: the file name {rel.as_posix()!r} appears twice")
        if rel in self._folders:
            raise InputError(
                f"upload: {rel.as_posix()!r} is both a file and the folder of another file"
            )
        for parent in rel.parents:
            if parent in self._taken:
                raise InputError(
                    f"upload: {parent.as_posix()!r} is both a file and the folder of "
                    f"{rel.as_posix()!r}"
                )
        self._taken.add(rel)
        self._folders.update(p for p in rel.parents if p != PurePosixPath("."))
        target = self.dest.joinpath(*rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        self.part.path = rel
        self.part.handle = target.open("xb")
        self.part.limit = self.case_limit if is_case_document(rel) else None
        self.form.files.append(rel)

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        self.total += len(chunk)
        if self.total > self.total_limit:
            raise UploadTooLarge(
                f"upload exceeds web.max_upload_mb={self.limits.max_upload_mb:g} MiB (refused)"
            )
        part = self.part
        if part.handle is None:
            part.value += chunk
            if len(part.value) > _MAX_FIELD:
                raise InputError(f"upload: form field {part.name!r} is too long")
            return
        part.size += len(chunk)
        if part.limit is not None and part.size > part.limit:
            name = part.path.as_posix() if part.path is not None else part.name
            raise UploadTooLarge(
                f"upload: {name} is larger than web.max_case_file_mb="
                f"{self.limits.max_case_file_mb:g} MiB (refused before reading the rest)"
            )
        part.handle.write(chunk)

    def on_part_end(self) -> None:
        part = self.part
        if part.handle is not None:
            part.handle.close()
            part.handle = None
        elif part.name:
            self.form.fields[part.name] = part.value.decode("utf-8", "replace")

    def close(self) -> None:
        if self.part.handle is not None:
            self.part.handle.close()
            self.part.handle = None


def _boundary(content_type: str) -> bytes:
    kind, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise InputError(
            "no files uploaded: send a case folder as multipart/form-data (a .zip or its files)"
        )
    return boundary


async def stream_form(
    content_type: str, body: AsyncIterator[bytes], dest: Path, limits: WebConfig
) -> StreamedForm:
    """Parse the multipart ``body`` chunk by chunk, writing its files under ``dest``;
    ``InputError`` (``UploadTooLarge``) at the first rule it breaks, the rest unread."""
    receiver = _Receiver(dest, limits)
    callbacks: Any = {
        name: getattr(receiver, name)
        for name in (
            "on_part_begin",
            "on_part_data",
            "on_part_end",
            "on_header_field",
            "on_header_value",
            "on_header_end",
            "on_headers_finished",
        )
    }
    parser = MultipartParser(_boundary(content_type), callbacks)
    try:
        async for chunk in body:
            parser.write(chunk)
        parser.finalize()
    finally:
        receiver.close()
    return receiver.form
