"""Queries gpushim logs for the tests.

usage: logq.py check LOG...                  every line is a JSON object; the first of each process a header
       logq.py count LOG... [-- KEY=VALUE...] number of calls in the call records matching every KEY=VALUE
                                             (VALUE is a shell wildcard: *, ? and [...]; a record of a run
                                             of like calls counts its "calls")
       logq.py records LOG... [-- KEY=VALUE...] number of call records matching
       logq.py sum FIELD LOG... [-- KEY=VALUE...]
       logq.py values FIELD LOG... [-- KEY=VALUE...]  distinct values of FIELD, one a line
       logq.py first FIELD LOG... [-- KEY=VALUE...]   FIELD of the first matching call record
       logq.py exit FIELD LOG                    FIELD of the log's exit record
"""
import fnmatch
import json
import sys


def records(paths):
    for path in paths:
        with open(path) as f:
            for i, line in enumerate(f, 1):
                try:
                    r = json.loads(line)
                except ValueError as e:
                    sys.exit(f"logq: {path}:{i}: not JSON: {e}")
                if "routine" in r:  # a call record (not the header or the exit record)
                    yield r


def matches(r, conds):
    for c in conds:
        k, v = c.split("=", 1)
        if not fnmatch.fnmatchcase(str(r.get(k)), v):
            return False
    return True


def main(argv):
    cmd, args = argv[0], argv[1:]
    conds = args[args.index("--") + 1:] if "--" in args else []
    args = args[: args.index("--")] if "--" in args else args
    if cmd == "check":
        for path in args:
            with open(path) as f:
                lines = f.read().splitlines()
            if not lines or "gpushim_log" not in json.loads(lines[0]):
                sys.exit(f"logq: {path}: no header record")
            for i, line in enumerate(lines, 1):
                json.loads(line)
        print(f"logq: {len(args)} logs are valid")
    elif cmd == "count":
        print(sum(r.get("calls", 1) for r in records(args) if matches(r, conds)))
    elif cmd == "records":
        print(sum(1 for r in records(args) if matches(r, conds)))
    elif cmd == "sum":
        print(sum(r[args[0]] for r in records(args[1:]) if matches(r, conds)))
    elif cmd == "values":
        for v in sorted({str(r.get(args[0])) for r in records(args[1:]) if matches(r, conds)}):
            print(v)
    elif cmd == "first":
        print(next((r.get(args[0]) for r in records(args[1:]) if matches(r, conds)), None))
    elif cmd == "exit":
        with open(args[1]) as f:
            ends = [r for r in map(json.loads, f) if "exit" in r]
        if len(ends) != 1:
            sys.exit(f"logq: {args[1]}: {len(ends)} exit records")
        print(ends[0][args[0]])
    else:
        sys.exit(__doc__)


main(sys.argv[1:])
