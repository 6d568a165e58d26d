#!/usr/bin/env python3
"""The size limits of the library's sources, one concern per file and one screen per function: no file of
src/ (*.c, *.h, *.inc) over 500 lines, no function over 80, a function running from the first line of its
signature to its closing brace.  Comments, strings and preprocessor lines are read as blank, so a macro's body
is no function.  Prints file:line and the count of each file and function over its limit, and exits 1 when
there is one, or when a file's braces do not balance (it could not be measured).
usage: tests/srcsize.py [--max-file N] [--max-function N] [DIR]   (DIR: default src)"""
import os
import re
import sys

MAX_FILE, MAX_FUNCTION = 500, 80
SUFFIXES = (".c", ".h", ".inc")


def blank_code(text):
    """text with comments, string and character literals replaced by spaces, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def blank_preprocessor(lines):
    """The lines with preprocessor directives (and their continuation lines) made blank."""
    out, cont = [], False
    for line in lines:
        directive = cont or line.lstrip().startswith("#")
        cont = directive and line.rstrip().endswith("\\")
        out.append("" if directive else line)
    return out


def strip_attributes(sig):
    """sig without __attribute__((...)) groups."""
    while True:
        m = re.search(r"__attribute__\s*\(", sig)
        if not m:
            return sig
        depth, j = 0, m.end() - 1
        while j < len(sig):
            depth += {"(": 1, ")": -1}.get(sig[j], 0)
            j += 1
            if depth == 0:
                break
        sig = sig[:m.start()] + " " + sig[j:]


def functions(lines):
    """(first line, last line, name) of each function definition, numbered from 1; raises ValueError with a
    line number when the braces do not balance."""
    found, depth = [], 0
    sig_start, sig = None, ""  # the top-level text since the last ';', '{' or '}' at depth 0
    start = name = None
    for no, line in enumerate(lines, 1):
        for c in line:
            if depth == 0 and c not in "{};":
                if sig_start is None and not c.isspace():
                    sig_start = no
                sig += c
                continue
            if c == "{":
                if depth == 0:
                    head = strip_attributes(sig).strip()
                    m = re.search(r"(\w+)\s*\(", head)
                    if head.endswith(")") and m and "=" not in head.split("(")[0]:
                        start, name = sig_start, m.group(1)
                depth += 1
            elif c == "}":
                depth -= 1
                if depth < 0:
                    raise ValueError(no)
                if depth == 0 and start is not None:
                    found.append((start, no, name))
                    start = None
            if depth == 0:
                sig_start, sig = None, ""
        if depth == 0:
            sig += "\n"
    if depth:
        raise ValueError(len(lines))
    return found


def check(path, max_file, max_function):
    """The messages for one source file."""
    with open(path, errors="replace") as f:
        text = f.read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    if len(lines) > max_file:
        out.append(f"{path}:{len(lines)}: {len(lines)} lines, over {max_file}")
    try:
        for first, last, name in functions(blank_preprocessor(blank_code(text).split("\n"))):
            if last - first + 1 > max_function:
                out.append(f"{path}:{first}: function {name} of {last - first + 1} lines, over {max_function}")
    except ValueError as e:
        out.append(f"{path}:{e.args[0]}: the braces do not balance; its functions cannot be measured")
    return out


def main(argv):
    usage = "usage: " + __doc__.split("usage: ")[1].strip()
    limits, top, i = {"--max-file": MAX_FILE, "--max-function": MAX_FUNCTION}, None, 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a in limits and i + 1 < len(argv) and argv[i + 1].isdigit():
            limits[a] = int(argv[i + 1])
            i += 2
        elif a.startswith("-") or top is not None:
            print(usage, file=sys.stderr)
            return 2
        else:
            top = a
            i += 1
    top = top or "src"
    if not os.path.isdir(top):
        print(f"srcsize: {top} is not a folder\n{usage}", file=sys.stderr)
        return 2
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs if f.endswith(SUFFIXES))
    out = [m for p in paths for m in check(p, limits["--max-file"], limits["--max-function"])]
    for m in out:
        print(m)
    print(f"{len(paths)} files, {len(out)} over the limits ({limits['--max-file']} lines a file, "
          f"{limits['--max-function']} a function)")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
