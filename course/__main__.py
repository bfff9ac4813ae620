"""Command line: `python -m course serve|record|relay|assign|grade|gradescope|execute|translate
...`."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from dataclasses import asdict

from .grading.classroom.cli import add_commands as add_grading_commands


def serve(args) -> int:
    from .api import Server
    from .scenarios import get

    try:
        scenario = get(args.scenario)
    except KeyError as e:
        print(e.args[0], file=sys.stderr)
        return 2
    with open(args.log, "a", encoding="utf-8") if args.log else contextlib.nullcontext() as log:
        api = scenario.api(latency=args.latency, pace=args.pace, record=False,
                           log=log and (lambda r: print(json.dumps(asdict(r)), file=log,
                                                        flush=True)))
        server = Server(api, port=args.port, host=args.host)
        print(server.base_url, flush=True)
        try:
            server.httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.httpd.server_close()
    return 0


def record(args) -> int:
    from .scenarios import SCENARIOS
    from .scenarios.record import record_scenario

    if args.scenario not in SCENARIOS:
        print(f"unknown scenario {args.scenario!r}; valid names: {', '.join(sorted(SCENARIOS))}",
              file=sys.stderr)
        return 2
    print(record_scenario(args.scenario, args.path))
    return 0


def relay(args) -> int:
    from .relay import REAL_API, Ledger, Relay, read_roster

    key = os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        print("the relay needs the instructor's key in the ANTHROPIC_API_KEY environment variable",
              file=sys.stderr)
        return 2
    try:
        roster = read_roster(args.roster)
        if key in roster:
            raise ValueError(f"{args.roster}: a student's token is the instructor's key")
        ledger = Ledger(roster, args.budget_usd, args.rate_per_minute,
                        args.usage or f"{args.roster}.usage.csv")
        server = Relay(ledger, key, args.upstream or REAL_API, port=args.port, host=args.host,
                       timeout=args.timeout)
    except (OSError, ValueError) as e:
        print(e, file=sys.stderr)
        return 2
    print(server.base_url, flush=True)
    print(f"{len(roster)} students, ${args.budget_usd:.2f} each, at most {args.rate_per_minute} "
          f"requests a minute; usage in {ledger.path}", file=sys.stderr, flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def execute(args) -> int:
    from .editions.notebook import execute_all

    missing = [p for p in args.paths if not os.path.isfile(p)]
    if missing:
        print(f"no such notebook: {', '.join(missing)}", file=sys.stderr)
        return 2
    failed = execute_all(args.paths, timeout=args.timeout)
    for path, error in failed:
        print(f"{path}: {error}", file=sys.stderr)
    print(f"executed {len(args.paths) - len(failed)} of {len(args.paths)} notebooks")
    return 1 if failed else 0


def translate(args) -> int:
    from .editions.translation import ROOT, chosen, code_skeleton, skeleton, translate

    if args.skeleton:
        added = sum(skeleton(english) + code_skeleton(english) for english in chosen(args.only))
        print(f"{added} sections added in English to translations/ja/; translate them, then run "
              "this again")
        return 0
    try:
        done = translate(execute=not args.no_execute, only=args.only)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    for path, error in done:
        if error:
            print(f"{path.relative_to(ROOT)}: {error}", file=sys.stderr)
    print(f"built {len(done)} Japanese notebooks, {sum(1 for _, e in done if e)} failed")
    return 1 if any(e for _, e in done) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve",
                       help="serve a scenario's local Messages API on loopback until stopped")
    p.add_argument("--scenario", required=True, help="scenario name, e.g. aurora_run")
    p.add_argument("--port", type=int, default=0,
                   help="0 takes a free port (the real one is printed)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    p.add_argument("--pace", type=float, default=0.0, help="seconds between streamed events")
    p.add_argument("--log", default=None,
                   help="append every request and its answer to this file, one JSON a line")
    p.set_defaults(func=serve)
    p = sub.add_parser("record",
                       help="record a scenario's transcript (JSONL) for the Replay policy")
    p.add_argument("scenario", help="scenario name, e.g. aurora_run")
    p.add_argument("--path", default=None,
                   help="where to write it (default: course/scenarios/transcripts/NAME.jsonl, "
                   "or transcripts/ja/NAME.jsonl with COURSE_LANG=ja)")
    p.set_defaults(func=record)
    p = sub.add_parser("relay", help="relay students' API requests with the instructor's key "
                                     "(ANTHROPIC_API_KEY)")
    p.add_argument("--upstream", help="the API to forward to (default: the real API)")
    p.add_argument("--roster", required=True, help="CSV with the header student,token")
    p.add_argument("--budget-usd", type=float, required=True, help="each student's budget in USD")
    p.add_argument("--rate-per-minute", type=int, default=60,
                   help="requests a student may send per minute")
    p.add_argument("--usage", help="the per-student usage CSV (default: ROSTER.usage.csv)")
    p.add_argument("--port", type=int, default=0,
                   help="0 takes a free port (the real one is printed)")
    p.add_argument("--host", default="127.0.0.1",
                   help="0.0.0.0 to serve students' laptops on the room's network")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the upstream")
    p.set_defaults(func=relay)
    p = sub.add_parser("execute",
                       help="execute notebooks in place, offline and deterministically (outputs "
                            "are committed)")
    p.add_argument("paths", nargs="+", help="notebooks to execute")
    p.add_argument("--timeout", type=int, default=60, help="seconds allowed per cell")
    p.set_defaults(func=execute)
    p = sub.add_parser("translate", help="build notebooks/ja, exercises/ja and solutions/ja from "
                                         "translations/ja "
                       "and execute them; compile the message catalogues")
    p.add_argument("--skeleton", action="store_true",
                   help="add the untranslated cells to the catalogues, in English")
    p.add_argument("--no-execute", action="store_true",
                   help="write the notebooks without running them")
    p.add_argument("only", nargs="*",
                   help="only these notebooks, by the start of their name (e.g. 03 04)")
    p.set_defaults(func=translate)
    add_grading_commands(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
