"""A stop in the middle of a sweep keeps the runs it finished: ``nqmip-compare`` prints the
summary of those (in the form asked), writes the files asked for, says in one line on
stderr how many of the grid's runs they are, and exits with 128 + the signal. It printed
``nqmip-compare: interrupted`` and nothing else: without ``--output`` every finished run
was lost (a SIGTERM 8 s into a two-run sweep, after its first run had finished)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.moments import ROOT

#: The summary's forms (--json, --markdown, --csv -, the table, with the files) and a
#: signal each (every form and every stop signal appear once).
FORMS = {
    "json": (["--json"], signal.SIGTERM),
    "markdown": (["--markdown"], signal.SIGINT),
    "csv": (["--csv", "-"], signal.SIGHUP),
    "table+files": (["--csv", "{tmp}/summary.csv", "--report", "{tmp}/report.html"],
                    signal.SIGINT),
}


def _finished_rows(path: Path) -> list[dict[str, object]]:
    """The run rows in the records file (its header rows carry no ``status``)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:  # a line being written
            continue
        if isinstance(row, dict) and "status" in row:
            rows.append(row)
    return rows


def _stop_after_first_run(extra: list[str], signum: int, tmp: Path
                          ) -> tuple[int, str, str, float]:
    """A sweep of two runs, the first quick (n = 6), the second long (n = 40 with random
    weights and 60 s); the signal once the first run's row is in the records file."""
    records = tmp / "runs.jsonl"
    argv = [sys.executable, "scripts/compare.py", "--n", "6,40", "--methods", "highs",
            "--weights", "random", "--time-limit", "60", "--no-progress",
            "--output", str(records), *[a.format(tmp=tmp) for a in extra]]
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, start_new_session=True)
    begin = time.perf_counter()
    while not _finished_rows(records) and proc.poll() is None:
        assert time.perf_counter() - begin < 120, "the first run did not finish in 120 s"
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()
    time.sleep(0.5)  # into the second run
    sent = time.perf_counter()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err, time.perf_counter() - sent


@pytest.mark.parametrize("form", list(FORMS))
def test_a_stopped_sweep_answers_with_the_runs_it_finished(form: str, tmp_path: Path) -> None:
    extra, signum = FORMS[form]
    status, out, err, after = _stop_after_first_run(extra, signum, tmp_path)
    where = f"status {status}, {after:.1f} s after the signal\nstderr:\n{err}\nstdout:\n{out}"
    assert status == 128 + signum, where
    assert "Traceback" not in err, where
    said = [line for line in err.splitlines() if "interrupted" in line]
    assert said == [f"nqmip-compare: interrupted after 1 of 2 runs (the summary is of those); "
                    f"resume with --resume {tmp_path / 'runs.jsonl'}"], where
    if form == "json":
        data = json.loads(out)
        assert data["interrupted"].startswith("Interrupted: 1 of 2 runs finished"), data
        assert [(e["n"], e["method"], e["runs"]) for e in data["summary"]] == [(6, "highs", 1)]
    elif form == "csv":
        lines = out.strip().splitlines()
        assert len(lines) == 2 and lines[1].startswith("6,highs,"), where
    else:
        assert "Interrupted: 1 of 2 runs finished; this summary is of those." in out, where
        assert " 40 " not in out.replace("│", " "), where  # the unfinished run is not a row
    if form == "table+files":
        assert (tmp_path / "summary.csv").read_text().splitlines()[1].startswith("6,highs,")
        report = (tmp_path / "report.html").read_text()
        assert "Interrupted: 1 of 2 runs finished" in report
    # the records file holds the finished run: a resume runs the other one only
    assert [(r["n"], r["status"]) for r in _finished_rows(tmp_path / "runs.jsonl")] == \
        [(6, "optimal")]
