"""Content-addressed file bytes under `<data_dir>/blobs/ab/cd/<sha256>`.

Writes go to a temporary file in the same folder and are renamed into place, so a blob is either
whole or absent; equal content is stored once. Deleting is the caller's decision (after checking
that no file row references the hash any more).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentur.errors import TooLargeError

CHUNK_SIZE = 1024 * 1024


@dataclass(frozen=True, slots=True)
class StoredBlob:
    sha256: str
    size: int


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._incoming = root / "incoming"

    def path_for(self, sha256: str) -> Path:
        if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
            raise ValueError("not a sha256 hex digest")
        return self.root / sha256[:2] / sha256[2:4] / sha256

    def exists(self, sha256: str) -> bool:
        return self.path_for(sha256).is_file()

    async def put_stream(self, chunks: AsyncIterator[bytes], max_bytes: int) -> StoredBlob:
        """Store a stream; TooLargeError (and nothing kept) once it exceeds `max_bytes`."""
        with self._temporary() as (handle, temporary_path):
            digest = hashlib.sha256()
            size = 0
            async for chunk in chunks:
                size += len(chunk)
                if size > max_bytes:
                    raise TooLargeError(f"upload exceeds the limit of {max_bytes} bytes")
                digest.update(chunk)
                handle.write(chunk)
            return self._commit(handle, temporary_path, digest.hexdigest(), size)

    def put_bytes(self, data: bytes) -> StoredBlob:
        with self._temporary() as (handle, temporary_path):
            handle.write(data)
            return self._commit(handle, temporary_path, hashlib.sha256(data).hexdigest(), len(data))

    def read_bytes(self, sha256: str) -> bytes:
        return self.path_for(sha256).read_bytes()

    def iter_bytes(self, sha256: str) -> Iterator[bytes]:
        with self.path_for(sha256).open("rb") as handle:
            while chunk := handle.read(CHUNK_SIZE):
                yield chunk

    def delete(self, sha256: str) -> None:
        self.path_for(sha256).unlink(missing_ok=True)

    @contextmanager
    def _temporary(self) -> Iterator[tuple[object, Path]]:
        self._incoming.mkdir(parents=True, exist_ok=True)
        descriptor, name = tempfile.mkstemp(dir=self._incoming)
        path = Path(name)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                yield handle, path
        finally:
            path.unlink(missing_ok=True)

    def _commit(self, handle: object, temporary_path: Path, sha256: str, size: int) -> StoredBlob:
        handle.flush()  # type: ignore[attr-defined]
        os.fsync(handle.fileno())  # type: ignore[attr-defined]
        target = self.path_for(sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            os.replace(temporary_path, target)
        return StoredBlob(sha256=sha256, size=size)
