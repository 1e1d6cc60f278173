"""The matrix as tables (terminal and Markdown) and as JSON."""

from __future__ import annotations

import json
import subprocess
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from matrix import HOSTILE, QUESTION_KINDS, REQUEST_KINDS
from schemas import SCHEMA_SOURCES

MARK = {"pass": "✓", "fail": "✗", "n/a": "–"}
ANSWER_ORDER = ("accept", "decline", "cancel", "call")
START, END = "<!-- compat-matrix:start -->", "<!-- compat-matrix:end -->"


def row_label(r: dict[str, Any]) -> str:
    return f"{r['era']} {r['agent']}"


def cell_text(results: list[dict[str, Any]]) -> str:
    if not results:
        return ""
    if all(r["status"] == "n/a" for r in results):
        return "n/a"
    ordered = sorted(results, key=lambda r: ANSWER_ORDER.index(r["answer"]))
    return "".join(MARK[r["status"]] for r in ordered)


def tables(results: list[dict[str, Any]]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) for each table: one per upstream kind, then server requests, then bad input."""
    out = []
    rows = list(dict.fromkeys(row_label(r) for r in results))
    groups = [(f"upstream {kind}", [r for r in results if r["upstream_kind"] == kind and r["kind"] in QUESTION_KINDS])
              for kind in ("both eras", "legacy only", "modern only")]
    groups.append(("server-to-client requests other than elicitation", [r for r in results if r["kind"] in REQUEST_KINDS]))
    groups.append(("bad input (hostile upstreams)", [r for r in results if r["kind"] == HOSTILE]))
    for title, group in groups:
        if not group:
            continue
        columns = list(dict.fromkeys((r["upstream"], r["kind"]) for r in group))
        by_cell: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
        for r in group:
            by_cell[(row_label(r), r["upstream"], r["kind"])].append(r)
        group_rows = [label for label in rows if any(key[0] == label for key in by_cell)]
        header = ["agent (era, implementation)"] + [f"{up}: {kind}" for up, kind in columns]
        body = [[label] + [cell_text(by_cell.get((label, up, kind), [])) for up, kind in columns] for label in group_rows]
        out.append((title, header, body))
    return out


def text_table(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    line = lambda row: "  ".join(cell.ljust(w) for cell, w in zip(row, widths))  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(row) for row in body])


def markdown_table(header: list[str], body: list[list[str]]) -> str:
    rows = [header, ["---"] * len(header)] + body
    return "\n".join("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows)


def legend() -> str:
    return ("Each cell: accept, decline, cancel (one mark for calls without a question): ✓ the rule holds, "
            "✗ it does not, – not applicable (reason below). Rows: the agent's era and SDK; columns: the "
            "upstream server and the kind of tool.")


def failure_groups(results: list[dict[str, Any]]) -> list[str]:
    """Failing cells grouped by upstream, tool kind and agent era: the to-do list, one line each."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        if r["status"] == "fail":
            unregistered = r["reasons"][0].startswith("Herald refused to register")
            groups[(r["upstream"], "every tool" if unregistered else r["kind"], "all" if unregistered else r["era"])].append(r)
    lines = []
    for (upstream, kind, era), cells in groups.items():
        agents = ", ".join(dict.fromkeys(c["agent"] for c in cells))
        answers = ", ".join(dict.fromkeys(c["answer"] for c in cells))
        example = cells[0]
        lines.append(f"{upstream} · {kind} · {era} agents ({agents}; {answers}; {len(cells)} cells): "
                     f"{'; '.join(example['reasons'])} [e.g. `{example['id']}`]")
    return lines


def markdown(results: list[dict[str, Any]], db: str, seconds: float, revision: str) -> str:
    parts = [f"Run of {time.strftime('%Y-%m-%d', time.gmtime())} against Herald {revision} on {db}: "
             f"{len(results)} cells in {seconds:.0f} s (`tests/compat/run.sh`; every cell's details are in "
             f"`tests/compat/out/report.json`). {legend()}", ""]
    for title, header, body in tables(results):
        parts += [f"**{title}**", "", markdown_table(header, body), ""]
    failures = failure_groups(results)
    if failures:
        parts += ["Why cells fail (grouped by upstream, tool kind and agent era; the reasons of the first cell):", ""]
        parts += [f"- {line}" for line in failures]
        parts.append("")
    na = sorted({(r["upstream"], r["kind"], r["reasons"][0]) for r in results if r["status"] == "n/a"})
    if na:
        parts += ["Not applicable:", ""] + [f"- {up}: {kind}: {why}" for up, kind, why in na] + [""]
    return "\n".join(parts)


def write_docs(path: Path, block: str) -> None:
    text = path.read_text()
    section = f"{START}\n{block}\n{END}"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n## Compatibility matrix\n\n" + section + "\n"
    path.write_text(text)


def revision() -> str:
    """The commit under test, for the docs' table."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10,
                                cwd=Path(__file__).parent).stdout.strip()
    except OSError:
        commit = ""
    return commit or "(unknown commit)"


def write_reports(results: list[dict[str, Any]], out: Path, db: str, seconds: float, docs: Path | None) -> int:
    out.mkdir(parents=True, exist_ok=True)
    counts = {status: sum(r["status"] == status for r in results) for status in ("pass", "fail", "n/a")}
    print(f"\nCompatibility matrix ({db}). {legend()}\n")
    for title, header, body in tables(results):
        print(f"{title}\n{text_table(header, body)}\n")
    failures = failure_groups(results)
    if failures:
        print("Why cells fail (grouped; report.json has every cell, direct and through Herald):")
        for line in failures:
            print(f"  - {line}")
    # The harness checking itself on the direct runs; a problem there is not Herald's.
    harness = [(r["id"], p) for r in results for p in r.get("harness_problems", [])]
    counts["harness"] = len(harness)
    checked = sum(1 for r in results if r["kind"] in ("push", "input_required", "url")
                  and any(a.get("method") == "elicitation/create" for a in r.get("agent_callbacks_direct", [])))
    if harness:
        print("\nHARNESS PROBLEMS (a direct run did not behave as the judge expects; fix the harness or the peer):")
        for cell, problem in harness:
            print(f"  - {cell}: {problem}")
    else:
        print(f"\nharness self-check: every direct run whose agent answered a question ({checked} cells checked) "
              "reflected the answer the way Herald runs are judged")
    summary_line = f"compat ({db}): {counts['pass']} passed, {counts['fail']} failed, {counts['n/a']} n/a, {seconds:.0f} s"
    print("\n" + summary_line)
    report = {"database": db, "seconds": round(seconds, 1), "counts": counts, "schemas": SCHEMA_SOURCES, "cells": results}
    (out / f"report-{db}.json").write_text(json.dumps(report, indent=2, default=str))
    (out / "report.json").write_text(json.dumps(report, indent=2, default=str))
    block = markdown(results, db, seconds, revision())
    (out / f"matrix-{db}.md").write_text(block)
    if docs:
        write_docs(docs, block)
    return counts["fail"] + counts["harness"]
