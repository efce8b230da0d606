#!/usr/bin/env python3
"""lesson-stats.py [--check] [--root DIR] [ROOM...] -- (maintainers) the size of each room's lessons and of
each task's reading path, and whether every link into a lesson lands on a heading.

A room's lessons are its README.md and any other .md file in its folder (room 04 keeps its
stretch material in further.md).  For each lesson file it prints:
  - words of prose: every word outside fenced code blocks (tables and headings included;
    an inline `code` span counts as one word);
  - sentences and words per sentence (a sentence ends at . ! or ? before a capital
    letter, a code span or a bracket, or at the end of a paragraph, table cell or list item);
  - for each row of the README's "## Reading path" table: the lines of the sections it
    links (a section runs from its heading to the next heading of any level; a link to a
    "##" heading takes in its "###" subsections), as "READ taskK N lines".
Every link of the form (#anchor) or (file.md#anchor) between the rooms' lessons must name
a heading of that file (GitHub's anchor rules), and every section a task file's "Read first:"
line names ("README.md, "Title", ...; further.md, "Title"") must be a heading of that file,
and name the same sections as the task's reading-path row.

--check exits 1 when a limit is broken:
  - room 04's README.md above 9,000 words of prose;
  - rooms 04, 05 and 06 above 18 words per sentence (all their lesson files together);
  - a task's reading path above 150 lines, or a task without a reading-path row;
  - a link, or a title on a "Read first:" line, that lands on no heading.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_WORDS_04 = 9000
MAX_WORDS_PER_SENTENCE = 18.0
MAX_PATH_LINES = 150
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’.\-/]*")


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    h = re.sub(r"`([^`]*)`", r"\1", heading.strip()).lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def prose_text(text):
    """The text outside fenced code blocks, each inline code span replaced by one word."""
    out, inside = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            inside = not inside
            continue
        if not inside:
            out.append(line)
    t = "\n".join(out)
    t = re.sub(r"`[^`]*`", "CODE", t)
    t = re.sub(r"\]\([^)]*\)", "]", t)  # a link's target is not prose
    return t


def words_and_sentences(text):
    t = prose_text(text)
    words = len(WORD.findall(t))
    sentences = []
    # paragraphs, list items and table cells each end a sentence
    blocks = re.split(r"\n\s*\n|\n\s*[-*+] |\n\s*\d+\. |\|", t)
    for b in blocks:
        b = re.sub(r"[#*>_]", "", re.sub(r"\s+", " ", b)).strip()
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(\[]|CODE)", b):
            n = len(WORD.findall(s))
            if n >= 3:
                sentences.append(n)
    return words, sentences


def headings(lines):
    """[(line index, level, anchor)] of the file's headings outside code blocks."""
    out, inside, seen = [], False, {}
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            inside = not inside
            continue
        m = re.match(r"^(#{1,6}) (.*)", line)
        if m and not inside:
            a = slug(m.group(2))
            if a in seen:  # GitHub numbers repeated anchors
                seen[a] += 1
                a = f"{a}-{seen[a]}"
            else:
                seen[a] = 0
            out.append((i, len(m.group(1)), a))
    return out


def section_lines(lines, anchor):
    """Lines from the anchor's heading to the next heading of the same or a higher level
    (a "##" takes in its "###"), or None when no heading has that anchor."""
    hs = headings(lines)
    for k, (i, level, a) in enumerate(hs):
        if a == anchor:
            end = len(lines)
            for j, lj, _ in hs[k + 1:]:
                if lj <= level:
                    end = j
                    break
            return end - i
    return None


def reading_path(path):
    """{task: [link targets]} from the README's "## Reading path" table."""
    rows, inside = {}, False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("## "):
            inside = line.startswith("## Reading path")
            continue
        if inside:
            m = re.match(r"^\|\s*(task\d+)[^|]*\|(.*)\|\s*$", line)
            if m:
                rows[m.group(1)] = re.findall(r"\]\(([^)]*#[^)]+)\)", m.group(2))
    return rows


def resolve(base_file, target, cache):
    """(file, anchor) of a link target written in base_file, or None for an outside link."""
    if re.match(r"^[a-z]+://", target):
        return None
    f, _, anchor = target.partition("#")
    f = os.path.normpath(os.path.join(os.path.dirname(base_file), f)) if f else base_file
    return f, anchor


def lines_of(f, cache):
    if f not in cache:
        cache[f] = open(f, encoding="utf-8").read().split("\n") if os.path.exists(f) else None
    return cache[f]


def read_first(task_file):
    """[(lesson file, title)] named on a task file's "Read first:" line (it may run on over
    several comment lines, up to an empty one)."""
    text, grab = [], False
    for line in open(task_file, encoding="utf-8", errors="replace"):
        body = re.sub(r"^\s*\*\s?", "", line.rstrip("\n"))
        if "Read first:" in line:
            grab = True
            body = body.split("Read first:", 1)[1]
        elif grab and (not body.strip() or line.strip().startswith("*/")):
            break
        if grab:
            text.append(body)
    out, current = [], None
    for m in re.finditer(r'([\w./-]+\.md)|"([^"]+)"', " ".join(text)):
        if m.group(1):
            current = m.group(1)
        elif current:
            out.append((os.path.normpath(os.path.join(os.path.dirname(task_file), current)), m.group(2)))
    return out


def main(argv):
    global ROOT
    check = "--check" in argv
    if "--root" in argv:  # another tree laid out as the workbook (the check's own test)
        i = argv.index("--root")
        ROOT = os.path.abspath(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    rooms = [a.rstrip("/") for a in argv if not a.startswith("--")]
    if not rooms:
        rooms = sorted(os.path.basename(d) for d in glob.glob(os.path.join(ROOT, "0[0-9]_*")))
    cache, problems = {}, []
    for room in rooms:
        d = os.path.join(ROOT, room)
        files = sorted(glob.glob(os.path.join(d, "*.md")), key=lambda p: (not p.endswith("README.md"), p))
        allw, alls = 0, []
        for f in files:
            text = open(f, encoding="utf-8").read()
            w, s = words_and_sentences(text)
            allw += w
            alls += s
            print(f"{room}/{os.path.basename(f)}: {w} words of prose, {len(s)} sentences, "
                  f"{sum(s) / max(1, len(s)):.1f} words per sentence")
            if room.startswith("04") and f.endswith("README.md") and w > MAX_WORDS_04:
                problems.append(f"{room}/README.md: {w} words of prose, above {MAX_WORDS_04}")
            # every link to an anchor lands on a heading
            for target in re.findall(r"\]\(([^)\s]*#[^)\s]+)\)", prose_text_links(text)):
                r = resolve(f, target, cache)
                if r is None:
                    continue
                lf = lines_of(r[0], cache)
                if lf is None or r[1] not in [a for _, _, a in headings(lf)]:
                    problems.append(f"{os.path.relpath(f, ROOT)}: the link ({target}) lands on no heading")
        if room[:2] in ("04", "05", "06"):
            avg = sum(alls) / max(1, len(alls))
            print(f"{room}: {allw} words of prose in all, {avg:.1f} words per sentence")
            if avg > MAX_WORDS_PER_SENTENCE:
                problems.append(f"{room}: {avg:.1f} words per sentence, above {MAX_WORDS_PER_SENTENCE:g}")
        readme = os.path.join(d, "README.md")
        rows = reading_path(readme) if os.path.exists(readme) else {}
        tasks = sorted((os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(d, "task*.c*"))),
                       key=lambda t: int(t[4:]))
        for t in tasks:
            if t not in rows:
                problems.append(f"{room}: {t} has no row in the reading path")
                continue
            if not rows[t]:
                problems.append(f"{room}: {t}'s reading-path row links no section")
            total = 0
            for target in rows[t]:
                r = resolve(readme, target, cache)
                lf = lines_of(r[0], cache) if r else None
                n = section_lines(lf, r[1]) if lf is not None else None
                if n is not None:
                    total += n
            print(f"READ {room} {t} {total} lines, {len(rows[t])} sections")
            row = set()
            for target in rows[t]:
                r = resolve(readme, target, cache)
                if r:
                    row.add((os.path.normpath(r[0]), r[1]))
            for tf in glob.glob(os.path.join(d, t + ".c*")):
                named = {(lf_name, slug(title)) for lf_name, title in read_first(tf)}
                if named != row:  # the task file and the lesson send the learner to the same sections
                    only = sorted(a for _, a in named - row) + sorted(a for _, a in row - named)
                    problems.append(f"{room}/{os.path.basename(tf)}: its 'Read first' line and its reading-path row "
                                    f"differ ({', '.join(only)})")
                for lf_name, title in read_first(tf):
                    lf = lines_of(lf_name, cache)
                    if lf is None or slug(title) not in [a for _, _, a in headings(lf)]:
                        problems.append(f"{room}/{os.path.basename(tf)}: 'Read first' names '{title}', "
                                        f"no heading of {os.path.relpath(lf_name, ROOT)}")
            if total > MAX_PATH_LINES:
                problems.append(f"{room}: {t}'s reading path is {total} lines, above {MAX_PATH_LINES}")
    # links from the workbook's own pages into the lessons (and between those pages)
    pages = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    for f in [p for p in pages if os.path.exists(p)]:
        for target in re.findall(r"\]\(([^)\s]*#[^)\s]+)\)", prose_text_links(open(f, encoding="utf-8").read())):
            r = resolve(f, target, cache)
            if r is None:
                continue
            lf = lines_of(r[0], cache)
            if lf is None or r[1] not in [a for _, _, a in headings(lf)]:
                problems.append(f"{os.path.relpath(f, ROOT)}: the link ({target}) lands on no heading")
    for p in problems:
        print("lesson-stats: " + p, file=sys.stderr)
    if check and problems:
        return 1
    return 0


def prose_text_links(text):
    """The text outside fenced code blocks, links kept (for the anchor check)."""
    out, inside = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            inside = not inside
            continue
        if not inside:
            out.append(line)
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
