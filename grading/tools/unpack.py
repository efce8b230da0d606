#!/usr/bin/env python3
"""unpack.py ARCHIVE DEST NAME... -- (class grading) unpacks from a student's .tar.gz, .tgz or
.zip only what the grader reads: regular files whose path ends in one of the NAMEs
(NN_room/taskK.c, build/progress.json), each at most 1 MiB.  Nothing else is written, so an
archive that unpacks to gigabytes (a zip bomb) costs time, never disk.

Limits, each an error (exit 1, the reason on stderr): more than 100,000 members, more than
64 MiB of wanted files; an archive without a task file is an error too.  Skipped, with a note on stdout: a wanted name that is a link (a
symbolic or hard link never becomes a file here), deeper than 64 folders, larger than 1 MiB,
or whose path is absolute or climbs out with "..".  Exit 2 on misuse.
"""
import os
import sys
import tarfile
import zipfile

MAX_MEMBERS = 100_000
MAX_FILE = 1 << 20
MAX_TOTAL = 64 << 20
MAX_DEPTH = 64


def wanted(path, names):
    path = path.replace("\\", "/")
    return any(path == n or path.endswith("/" + n) for n in names)


def safe_parts(path):
    """The path's parts when it stays inside DEST, else None."""
    path = path.replace("\\", "/")
    if path.startswith("/"):
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts or len(parts) > MAX_DEPTH:
        return None
    return parts


def write(dest, parts, data):
    target = os.path.join(dest, *parts)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    # never through a link that an earlier member could have made (none are made here)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def main():
    if len(sys.argv) < 4:
        print("usage: unpack.py ARCHIVE DEST NAME...", file=sys.stderr)
        return 2
    archive, dest, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(dest, exist_ok=True)
    members = total = tasks = 0

    def take(name, size, is_file, read):
        nonlocal total, tasks
        if not wanted(name, names):
            return
        parts = safe_parts(name)
        if parts is None:
            print(f"{name}: outside the archive's folder or too deep, not unpacked")
        elif not is_file:
            print(f"{name}: a link or special file, not unpacked")
        elif size > MAX_FILE:
            print(f"{name}: larger than 1 MiB, not unpacked")
        else:
            total += size
            if total > MAX_TOTAL:
                raise ValueError("its task files come to more than 64 MiB")
            data = read()
            if len(data) > MAX_FILE:
                print(f"{name}: larger than 1 MiB, not unpacked")
                return
            write(dest, parts, data)
            tasks += not name.endswith("progress.json")

    try:
        if archive.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                for info in z.infolist():
                    members += 1
                    if members > MAX_MEMBERS:
                        raise ValueError(f"more than {MAX_MEMBERS} files in it")
                    # a zip's symbolic link: a file whose Unix mode says link
                    mode = (info.external_attr >> 16) & 0o170000
                    is_file = not info.is_dir() and mode in (0, 0o100000)

                    def read(info=info):
                        with z.open(info) as f:
                            return f.read(MAX_FILE + 1)
                    take(info.filename, info.file_size, is_file, read)
        else:
            with tarfile.open(archive, "r:*") as t:
                for m in t:  # streams: a member's data is read only when wanted
                    members += 1
                    if members > MAX_MEMBERS:
                        raise ValueError(f"more than {MAX_MEMBERS} files in it")

                    def read(m=m):
                        f = t.extractfile(m)
                        return f.read(MAX_FILE + 1) if f else b""
                    take(m.name, m.size, m.isreg(), read)
        if members == 0:
            raise ValueError("empty submission")
        if tasks == 0:
            raise ValueError("not a workbook: none of its files is a task (NN_room/taskK.c or .cu)")
    except ValueError as e:
        print(e if str(e).startswith(("empty", "not a workbook")) else f"not unpacked: {e}", file=sys.stderr)
        return 1
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError) as e:
        print(f"unreadable archive: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
