"""Content-addressed file bytes under `<data_dir>/blobs/ab/cd/<sha256>`.

Writes go to a temporary file in the same folder and are renamed into place, so a blob is either
whole or absent; equal content is stored once. Releasing is the caller's decision (after checking
that no file row references the hash any more) and respects a grace period: an upload of equal
bytes may have put the blob a moment ago and not yet committed its row (another request, another
worker), so a blob written or re-put within `grace_seconds` stays; `unreferenced_stale` finds
what such deletes left behind for a later sweep.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentur.errors import TooLargeError
from agentur.storage.private_files import private_dir

CHUNK_SIZE = 1024 * 1024


@dataclass(frozen=True, slots=True)
class StoredBlob:
    sha256: str
    size: int
    # The blob's mtime right after this put: lets the writer undo exactly its own put.
    written_ns: int = 0


class BlobStore:
    def __init__(self, root: Path, grace_seconds: float = 600.0) -> None:
        self.root = root
        self.grace_seconds = grace_seconds
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

    def release(self, sha256: str, *, written_ns: int | None = None) -> bool:
        """Remove an unreferenced blob unless someone put it within the grace period.

        With `written_ns` (the writer undoing its own put) it goes unless anyone re-put it since.
        The blob is first renamed away, atomically: a concurrent put then writes a fresh copy
        instead of touching the one being judged. Returns whether the bytes are gone."""
        path = self.path_for(sha256)
        private_dir(self._incoming)
        judged = self._incoming / f"{sha256}.{uuid.uuid4().hex}.release"
        try:
            os.rename(path, judged)
        except FileNotFoundError:
            return False
        mtime = judged.stat().st_mtime_ns
        if written_ns is not None:
            recently_put = mtime != written_ns
        else:
            # File times can run a little ahead of time.time_ns(); no grace means none.
            age_ns = time.time_ns() - mtime
            recently_put = self.grace_seconds > 0 and age_ns < self.grace_seconds * 1e9
        if recently_put:
            with contextlib.suppress(FileExistsError):  # a concurrent put wrote it anew
                os.link(judged, path)
        judged.unlink()
        return not recently_put

    def unreferenced_stale(self, referenced: set[str]) -> list[str]:
        """Blobs older than the grace period that no row references (for a sweep)."""
        cutoff = time.time_ns() - self.grace_seconds * 1e9
        stale = []
        for path in self.root.glob("??/??/*"):
            if path.name not in referenced and path.stat().st_mtime_ns < cutoff:
                stale.append(path.name)
        return stale

    @contextmanager
    def _temporary(self) -> Iterator[tuple[object, Path]]:
        private_dir(self._incoming)
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
        private_dir(target.parent)
        try:
            # Equal bytes exist: mark them freshly put, so a concurrent release keeps them.
            os.utime(target)
        except FileNotFoundError:
            os.replace(temporary_path, target)
        return StoredBlob(sha256=sha256, size=size, written_ns=target.stat().st_mtime_ns)
