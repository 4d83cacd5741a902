"""The data dir holds the database (with extracted text), keys and file bytes: only the
service's own user may read any of it — folders 0700, files 0600.

New files are created private where they are written (blobs by `mkstemp`, keys by
`os.open(…, 0o600)`); SQLite gives its -wal/-shm/-journal files the mode of the database file,
so the database is created private before SQLite first opens it. A data dir left looser by an
older version is tightened once, file by file, when it is first found so."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from sqlalchemy.engine import make_url

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def private_dir(path: Path) -> None:
    """`path` and every missing folder above it, each created 0700."""
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        # A concurrent writer may have made it a moment ago.
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=PRIVATE_DIR)


def sqlite_file(database_url: str) -> Path | None:
    """The database file of a SQLite URL; None for PostgreSQL or an in-memory database."""
    url = make_url(database_url)
    if not url.drivername.startswith("sqlite") or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def _tighten(root: Path) -> None:
    for folder, _, files in os.walk(root):
        os.chmod(folder, PRIVATE_DIR)
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink():
                os.chmod(path, PRIVATE_FILE)


def secure_data_dir(data_dir: Path, database_url: str) -> None:
    """Make the data dir (and a SQLite database wherever it lies) private before use."""
    existed = data_dir.exists()
    if existed and stat.S_IMODE(data_dir.stat().st_mode) != PRIVATE_DIR:
        _tighten(data_dir)
    private_dir(data_dir)
    database = sqlite_file(database_url)
    if database is None:
        return
    private_dir(database.parent)
    if not database.exists():
        os.close(os.open(database, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
    for path in [database, *(Path(f"{database}{suffix}") for suffix in SQLITE_COMPANIONS)]:
        if path.exists():
            os.chmod(path, PRIVATE_FILE)
