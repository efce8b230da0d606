#!/usr/bin/env python3
"""lesson-overlap.py [--max PERCENT] [--show] [ROOM...] -- (maintainers) how much of each solution its
lesson already shows: the code lines of a solution's marked blocks (//@ solution { ... //@ })
that stand verbatim in a code block of the room's lessons (README.md and any other .md file
in its folder, such as room 04's further.md), spaces ignored.  Lines too
short to say anything (a brace, `else`, `break;`, a lone comment), a bare OpenMP pragma
(`#pragma omp parallel for`: an API form the lesson must show), a call with no arguments
(`__syncthreads();`: the same) and a plain counting loop (`for (long i = 0; i < n; i++)`)
are not counted.  --show lists the lines that are.

Prints one line per task, one per room and the workbook's total.  With --max, exits 1 when
the total is above PERCENT (the target of issue 36: 2); without it, reports only.
"""
import glob
import os
import re
import sys

TRIVIAL = re.compile(r"^(\{|\}|\};|\}\)?;?|else|else\{|\}else\{|\}else|break;|continue;|return;|"
                     r"returnrc;|#endif|#else|//.*|/\*.*\*/|\*.*)$")
# one-line API forms a lesson must show, and plain counting loops: not the task's idea
API_FORM = re.compile(r"^(#pragmaomp[a-z]+|for\((long|int|size_t|unsigned)?[a-z]\w*=0;[a-z]\w*<[a-z]\w*;[a-z]\w*\+\+\)|"
                      r"[A-Za-z_]\w*\(\);)$")


def norm(line):
    return re.sub(r"\s+", "", line)


def solution_lines(path):
    """The code lines inside the file's //@ solution { ... //@ } blocks, normalised."""
    out, inside = [], False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            s = line.strip()
            if s.startswith("//@ solution {"):
                inside = True
                continue
            if inside and s.startswith("//@ }"):
                inside = False
                continue
            if inside:
                n = norm(line)
                if n and not TRIVIAL.match(n) and not API_FORM.match(n) and len(n) > 3:
                    out.append(n)
    return out


def lesson_lines(path):
    """The normalised lines of the README's fenced code blocks."""
    lines, inside = set(), False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.lstrip().startswith("```"):
                inside = not inside
                continue
            if inside:
                lines.add(norm(line))
    return lines


def main():
    args = sys.argv[1:]
    limit = None
    show = "--show" in args
    args = [a for a in args if a != "--show"]
    if args[:1] == ["--max"]:
        if len(args) < 2:
            print("usage: lesson-overlap.py [--max PERCENT] [--show] [ROOM...]", file=sys.stderr)
            return 2
        try:
            limit = float(args[1])
        except ValueError:
            print(f"lesson-overlap: --max {args[1]}: a number from 0 to 100", file=sys.stderr)
            return 2
        args = args[2:]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    rooms = sorted(d for d in os.listdir(os.path.join(root, "solutions")) if re.match(r"\d\d_", d))
    if args:
        rooms = [r for r in rooms if any(r == a or r[:2] == a.zfill(2)[:2] for a in args)]
        if not rooms:
            print(f"lesson-overlap: no room {' '.join(args)}", file=sys.stderr)
            return 2
    total = shown = 0
    print(f"{'task':<28} {'solution lines':>14} {'in the lesson':>14}")
    for room in rooms:
        lesson = set()
        for md in sorted(glob.glob(os.path.join(root, room, "*.md"))):
            lesson |= lesson_lines(md)
        r_total = r_shown = 0
        for sol in sorted(glob.glob(os.path.join(root, "solutions", room, "task*.c*")),
                          key=lambda p: int(re.search(r"task(\d+)", p).group(1))):
            lines = solution_lines(sol)
            hit = sum(1 for n in lines if n in lesson)
            if show:
                for n in lines:
                    if n in lesson:
                        print(f"    {os.path.basename(sol)}: {n}")
            r_total += len(lines)
            r_shown += hit
            name = f"{room}/{os.path.basename(sol).split('.')[0]}"
            pct = 100.0 * hit / len(lines) if lines else 0.0
            print(f"{name:<28} {len(lines):>14} {hit:>8} ({pct:3.0f}%)")
        pct = 100.0 * r_shown / r_total if r_total else 0.0
        print(f"{room + ' (room)':<28} {r_total:>14} {r_shown:>8} ({pct:3.0f}%)")
        total += r_total
        shown += r_shown
    pct = 100.0 * shown / total if total else 0.0
    print(f"{'workbook':<28} {total:>14} {shown:>8} ({pct:4.1f}%)")
    if limit is not None and pct > limit:
        print(f"lesson-overlap: {pct:.1f}% of the solutions' lines stand in the lessons (at most {limit:g}%)")
        return 1
    if limit is not None:
        print(f"lesson-overlap: ok: {shown} of {total} solution lines ({pct:.1f}%) stand in the lessons "
              f"(at most {limit:g}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
