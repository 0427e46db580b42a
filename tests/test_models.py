"""models/: the AbstractModel + data file, the LP/MPS files, and their agreement with build_model.

GLPK tests carry the ``solver("glpk")`` mark: skipped when glpsol is missing on a user's
machine, failed when CI=true (tests/conftest.py).
"""

from __future__ import annotations

import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import nqmip
from tests.scripts import load_script

pyo = pytest.importorskip("pyomo.environ")

MODELS = Path(__file__).resolve().parent.parent / "models"
ABSTRACT = MODELS / "nqueens_abstract.py"
DATA = MODELS / "weighted8.dat"
LP = MODELS / "weighted8.lp"
MPS = MODELS / "weighted8.mps"
GLPK_MPS = MODELS / "weighted8_glpk.mps"

ROWS, COLS, NONZEROS, OPTIMUM = 46, 64, 256, 12.0


def load(name: str, path: Path) -> ModuleType:
    return load_script(name, path)


@pytest.fixture(scope="module")
def generate() -> ModuleType:
    return load("nqmip_models_generate", MODELS / "generate.py")


def abstract_instance() -> Any:
    module = load("nqmip_models_abstract", ABSTRACT)
    return module.model.create_instance(str(DATA))


def reference_model() -> Any:
    kwargs: dict[str, Any] = {}
    if "strengthen" in inspect.signature(nqmip.build_model).parameters:
        kwargs["strengthen"] = False
    return nqmip.build_model(8, "chess", **kwargs)


def block_sizes(model: Any) -> dict[str, int]:
    return {
        c.local_name: len(c)
        for c in model.component_objects((pyo.Var, pyo.Constraint, pyo.Objective))
    }


# --------------------------------------------------------------------- abstract model


def test_abstract_model_matches_build_model() -> None:
    inst = abstract_instance()
    ref = reference_model()
    assert inst.nvariables() == ref.nvariables() == COLS
    assert inst.nconstraints() == ref.nconstraints() == ROWS
    assert inst.nobjectives() == ref.nobjectives() == 1
    assert block_sizes(inst) == block_sizes(ref) == {
        "x": 64, "rows": 8, "cols": 8, "diagonals": 15, "anti_diagonals": 15, "value": 1,
    }
    for (i, j), var in ref.x.items():
        assert var.is_binary() and inst.x[i, j].is_binary()
        assert pyo.value(inst.w[i, j]) == pyo.value(ref.w[i, j]) == (2 if (i + j) % 2 == 0 else 1)


def _normalised(text: str) -> list[str]:
    """LP text without the header line, integral coefficients written alike (2 and 2.0)."""
    body = text.splitlines()[1:]
    return [re.sub(r"(?<![\w.])(\d+)\.0(?![\d])", r"\1", line) for line in body]


def test_abstract_model_writes_the_same_lp_as_build_model(
    generate: ModuleType, tmp_path: Path
) -> None:
    """Row by row, coefficient by coefficient: the two models are the same ILP."""
    generate.write_model(abstract_instance(), tmp_path / "abstract.lp", "cpxlp")
    generate.write_model(reference_model(), tmp_path / "concrete.lp", "cpxlp")
    abstract = _normalised((tmp_path / "abstract.lp").read_text())
    concrete = _normalised((tmp_path / "concrete.lp").read_text())
    assert len(concrete) > 300
    assert abstract == concrete


def _solve_abstract(solver: str) -> tuple[float, tuple[int, ...]]:
    inst = abstract_instance()
    results = pyo.SolverFactory(solver).solve(inst)
    assert str(results.solver.termination_condition) == "optimal"
    placement = tuple(
        next(j for j in range(8) if (inst.x[i, j].value or 0) > 0.5) for i in range(8)
    )
    return float(pyo.value(inst.value)), placement


@pytest.mark.parametrize(
    "solver",
    [
        pytest.param("appsi_highs", marks=pytest.mark.solver("highs-pyomo"), id="appsi_highs"),
        pytest.param("highs", marks=pytest.mark.solver("highs-pyomo"), id="highs"),
        pytest.param("glpk", marks=pytest.mark.solver("glpk"), id="glpk"),
    ],
)
def test_abstract_model_solves_to_12(solver: str) -> None:
    value, placement = _solve_abstract(solver)
    assert value == pytest.approx(OPTIMUM)
    assert nqmip.is_solution(placement)
    weights = nqmip.chess_weights(8)
    assert sum(weights[i, c] for i, c in enumerate(placement)) == pytest.approx(OPTIMUM)


# --------------------------------------------------------------------- LP / MPS files


def test_committed_files_equal_generate_output(generate: ModuleType) -> None:
    """No rot: the committed LP/MPS are exactly what models/generate.py writes today."""
    names = [name for name, _, _ in generate.FILES]
    assert names == ["weighted8.lp", "weighted8.mps", "weighted8_glpk.mps"]
    for name in names:
        committed = (MODELS / name).read_text()
        assert committed == generate.render(name), (
            f"models/{name} is stale: run python models/generate.py"
        )


def test_files_use_readable_names() -> None:
    lp = LP.read_text()
    for name in ("x_0_0", "x_7_7", "c_e_row_0_", "c_e_col_7_", "c_u_diag_m7_", "c_u_diag_7_",
                 "c_u_anti_0_", "c_u_anti_14_"):
        assert name in lp
    mps = MPS.read_text()
    assert "OBJSENSE\n MAX" in mps
    assert "\nOBJSENSE\n" not in GLPK_MPS.read_text()


def _glpsol(tmp_path: Path, *args: str) -> dict[str, str]:
    """Run glpsol, read its -o report and return the header fields (Rows, Status, ...)."""
    out = tmp_path / "glpsol.out"
    proc = subprocess.run(
        ["glpsol", *args, "-o", str(out)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fields: dict[str, str] = {}
    for line in out.read_text().splitlines():
        match = re.match(r"^(Rows|Columns|Non-zeros|Status|Objective):\s+(.*)$", line)
        if match:
            fields[match.group(1)] = match.group(2).strip()
        if line.startswith("   No."):
            break
    return fields


@pytest.mark.solver("glpk")
@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("--lp", str(LP)), id="lp"),
        pytest.param(("--freemps", str(GLPK_MPS), "--max"), id="freemps"),
    ],
)
def test_glpsol_reads_the_files(tmp_path: Path, args: tuple[str, ...]) -> None:
    fields = _glpsol(tmp_path, *args)
    assert fields["Rows"] == str(ROWS)
    assert fields["Columns"].startswith(f"{COLS} (64 integer, 64 binary)")
    assert fields["Non-zeros"] == str(NONZEROS)
    assert fields["Status"] == "INTEGER OPTIMAL"
    match = re.match(r"value = (\S+) \(MAXimum\)", fields["Objective"])
    assert match, fields["Objective"]
    assert float(match.group(1)) == OPTIMUM


@pytest.mark.solver("glpk")
def test_glpsol_rejects_objsense_so_the_glpk_copy_exists(tmp_path: Path) -> None:
    """Why weighted8_glpk.mps exists: GLPK's MPS reader fails on the OBJSENSE section."""
    proc = subprocess.run(
        ["glpsol", "--freemps", str(MPS), "-o", str(tmp_path / "x.out")],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode != 0
    assert "invalid indicator record" in proc.stdout + proc.stderr


@pytest.mark.solver("highs")
@pytest.mark.parametrize("path", [LP, MPS], ids=["lp", "mps"])
def test_highspy_reads_the_files(path: Path) -> None:
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    lp = h.getLp()
    assert (lp.num_row_, lp.num_col_, h.getNumNz()) == (ROWS, COLS, NONZEROS)
    assert lp.sense_ == highspy.ObjSense.kMaximize
    assert all(t == highspy.HighsVarType.kInteger for t in lp.integrality_)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert h.getInfo().objective_function_value == pytest.approx(OPTIMUM)
    values = h.getSolution().col_value
    cols = list(lp.col_names_)
    placement = [0] * 8
    for name, v in zip(cols, values, strict=True):
        if v > 0.5:
            _, i, j = name.split("_")
            placement[int(i)] = int(j)
    assert nqmip.is_solution(tuple(placement))


@pytest.mark.solver("highs")
def test_glpk_copy_minimises_without_the_max_flag() -> None:
    """The GLPK copy has no sense; read as-is it is a minimisation (hence its --max note)."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(GLPK_MPS)) == highspy.HighsStatus.kOk
    assert h.getLp().sense_ == highspy.ObjSense.kMinimize
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(OPTIMUM)


# --------------------------------------------------------------------- pyomo solve


def _pyomo_command() -> list[str]:
    exe = shutil.which("pyomo") or str(Path(sys.executable).with_name("pyomo"))
    if Path(exe).exists():
        return [exe]
    return [sys.executable, "-m", "pyomo.scripting.pyomo_main"]


@pytest.mark.parametrize(
    "solver",
    [
        pytest.param("glpk", marks=pytest.mark.solver("glpk"), id="glpk"),
        pytest.param("highs", marks=pytest.mark.solver("highs-pyomo"), id="highs"),
    ],
)
def test_pyomo_solve_command_line(tmp_path: Path, solver: str) -> None:
    proc = subprocess.run(
        [*_pyomo_command(), "solve", str(ABSTRACT), str(DATA), f"--solver={solver}"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ERROR" not in proc.stdout + proc.stderr
    # Printed by the model file's pyomo_postprocess hook, from the loaded solution.
    assert re.search(r"^value = 12$", proc.stdout, re.MULTILINE), proc.stdout
    board = [line for line in proc.stdout.splitlines() if re.fullmatch(r"[Q.]{8}", line)]
    assert len(board) == 8
    placement = tuple(row.index("Q") for row in board)
    assert nqmip.is_solution(placement)
    results = (tmp_path / "results.yml").read_text()
    assert "Termination condition: optimal" in results
    assert re.search(r"Upper bound: 12(\.0)?\n", results)


def _pyomo_version() -> str:
    import pyomo.version

    return str(pyomo.version.version)


@pytest.mark.skipif(not _pyomo_version().startswith("6.10."),
                    reason="the limitation is documented for Pyomo 6.10")
def test_pyomo_solve_appsi_highs_is_not_supported_by_the_command(tmp_path: Path) -> None:
    """Documented in models/README.md: Pyomo 6.10's ``pyomo solve`` cannot drive appsi_highs."""
    proc = subprocess.run(
        [*_pyomo_command(), "solve", str(ABSTRACT), str(DATA), "--solver=appsi_highs"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert proc.returncode != 0
    assert "config_block" in proc.stdout + proc.stderr


@pytest.mark.parametrize("out", ["a file", "/proc/nqmip-models"])
def test_generate_refuses_an_out_that_is_not_a_folder_in_one_line(
        generate: ModuleType, tmp_path: Path, out: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--out FILE`` (and a folder that cannot be made) is one line and exit 2; it was a
    FileExistsError traceback from mkdir."""
    target = tmp_path / "models.txt" if out == "a file" else Path(out)
    if out == "a file":
        target.write_text("")
    assert generate.main(["--out", str(target)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured
    assert f"--out {target}" in captured.err and "Traceback" not in captured.err
