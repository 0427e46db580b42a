"""A run of nqmip-compare that fails under ``--memory-limit`` says so: below some 500 MB of
address space a run's process met llvmlite's own words ('Could not find/load shared
object file'), 'can't start new thread', or hung until the hard limit ('timeout'),
naming no limit (found by the input sweep: --memory-limit takes 16 MB and up)."""

from __future__ import annotations

import pytest

from nqmip.compare.harness import run_in_process


@pytest.mark.parametrize("megabytes", [16, 64])
def test_a_run_failed_under_a_memory_limit_names_it(megabytes: int) -> None:
    outcome = run_in_process("json:dumps", [1, 2], hard_limit=60, memory_limit_mb=megabytes)
    assert outcome.status != "ok"
    assert outcome.message.startswith(f"under --memory-limit {megabytes} MB"), outcome


def test_a_run_without_a_limit_is_answered_plainly() -> None:
    outcome = run_in_process("json:dumps", [1, 2], hard_limit=60)
    assert outcome.status == "ok" and outcome.value == "[1, 2]", outcome
