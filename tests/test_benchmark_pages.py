"""Pages written by a benchmark from its records say what the records hold: the records
are read as the benchmark reads them, and the page is what it would write now."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


def _benchmark(name: str) -> ModuleType:
    return load_script(name, ROOT / "benchmarks" / f"{name}.py")


def test_docs_weighted_is_the_page_of_its_records() -> None:
    bench = _benchmark("bench_weighted")
    rows = bench.read_rows(bench.RESULTS, runs=False)
    assert rows, "benchmarks/results/weighted.jsonl holds no runs"
    assert bench.page(rows) == bench.PAGE.read_text(), (
        "run: python benchmarks/bench_weighted.py --report-only")


def test_the_aaai_table_puts_the_methods_side_by_side() -> None:
    bench = _benchmark("bench_weighted")
    rows = [{"family": "aaai26", "n": n, "seed": seed, "method": method, "time_limit": 60.0,
             "status": "optimal" if (method, n) != ("scip", 40) else "feasible",
             "wall_time": 2.0} for n in (30, 40) for seed in (1, 2)
            for method in ("scip", "auto-default")]
    lines = bench._aaai_section(rows)
    assert "| N | auto-default (60 s) | time | scip (60 s) | time |" in lines
    assert "| 40 | 2 / 2 | 4.0 s | 0 / 2 | 120.0 s |" in lines
    assert "| 4-30 | 2 / 2 | **4.0 s** | 2 / 2 | **4.0 s** |" in lines
    assert "| all | 4 / 4 | **8.0 s** | 2 / 4 | **124.0 s** |" in lines


def test_docs_benchmarks_exact_is_the_page_of_its_records() -> None:
    from .test_docs import COMMIT_HASH, LOAD_REMARK, page_body

    bench = _benchmark("bench_exact")
    part = bench.report(bench.RESULTS_DIR / "bench_exact.jsonl", None,
                        "python benchmarks/bench_exact.py")
    assert f"{bench.START}\n{part}\n{bench.END}" in bench.DOC.read_text(), (
        "run: python benchmarks/bench_exact.py --report-only")
    body = page_body(part)  # the load and the baseline's commit: folded, for who measured
    assert "AMD EPYC" in body and "2026-11-22" in body and "bench_exact.py" in body
    assert not COMMIT_HASH.findall(body) and not LOAD_REMARK.findall(body), body


def test_the_weighted_page_folds_its_measuring_notes() -> None:
    from .test_docs import COMMIT_HASH, LOAD_REMARK, page_body

    bench = _benchmark("bench_weighted")
    text = bench.page(bench.read_rows(bench.RESULTS, runs=False))
    body = page_body(text)
    assert "AMD EPYC" in body and "Nov 2026" in body and "bench_weighted.py" in body
    assert "load average 4-8" in text  # kept, in the fold
    assert not COMMIT_HASH.findall(body) and not LOAD_REMARK.findall(body)
