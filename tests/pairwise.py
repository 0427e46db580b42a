# ruff: noqa
# mypy: ignore-errors
"""A pairwise (all-pairs) covering of the solve command's behaviour options over the method
table: every method x weights kind x fixed queens x limit or option x output x n, each pair
of values in some case; :func:`run` runs one case in this process and lists what is wrong
(refusals checked against the table, answers against tests/oracle.py)."""
import contextlib, io, itertools, json, random, sys, tempfile, time, traceback
from pathlib import Path
import numpy as np
import nqmip
from nqmip.cli.solve import solve_weighted_main
from nqmip.methods import METHODS
from tests import oracle

TMP = Path(tempfile.mkdtemp(prefix="nqmip-pairs-"))

def allpairs(factors, seed=0):
    names = list(factors)
    rng = random.Random(seed)
    uncovered = set()
    for (i, a), (j, b) in itertools.combinations(enumerate(names), 2):
        for x in range(len(factors[a])):
            for y in range(len(factors[b])):
                uncovered.add((i, x, j, y))
    rows = []
    while uncovered:
        best, bestc = None, -1
        for _ in range(40):
            i, x, j, y = next(iter(uncovered)) if _ == 0 else rng.choice(list(uncovered))
            row = [None] * len(names); row[i] = x; row[j] = y
            for k in rng.sample(range(len(names)), len(names)):
                if row[k] is not None: continue
                scores = []
                for v in range(len(factors[names[k]])):
                    s = sum(((min(k, m), v if k < m else row[m], max(k, m), row[m] if k < m else v) in uncovered)
                            for m in range(len(names)) if row[m] is not None)
                    scores.append((s, rng.random(), v))
                row[k] = max(scores)[2]
            c = sum(((i2, row[i2], j2, row[j2]) in uncovered) for i2, j2 in itertools.combinations(range(len(names)), 2))
            if c > bestc: best, bestc = row, c
        for i2, j2 in itertools.combinations(range(len(names)), 2):
            uncovered.discard((i2, best[i2], j2, best[j2]))
        rows.append({names[k]: factors[names[k]][best[k]] for k in range(len(names))})
    return rows

FACTORS = {
    "method": list(METHODS),
    "weights": ["feas", "chess", "bw", "equal", "neg", "random", "file", "costs", "minrand", "minchess"],
    "fixed": ["none", "fix", "file", "infeasible"],
    "ctrl": ["none", "tl1", "work", "target_hit", "target_miss", "threads", "seed", "warm", "nowarm", "nostrengthen"],
    "out": ["json", "quiet", "verbose", "output", "svg", "png"],
    "n": [5, 6, 7, 8, 10, 12],
}

def weights_of(kind, n):
    r, c = np.indices((n, n)); black = (r + c) % 2 == 0
    if kind == "feas": return None, []
    if kind in ("chess", "minchess"): return np.where(black, 2.0, 1.0), []
    if kind == "bw": return np.where(black, 3.0, -1.0), ["--black", "3", "--white", "-1"]
    if kind == "equal": return np.full((n, n), 2.0), ["--black", "2", "--white", "2"]
    if kind == "neg": return np.where(black, -1.0, -3.0), ["--black", "-1", "--white", "-3"]
    if kind in ("random", "minrand"):
        return nqmip.make_instance(n, "random", weights_seed=5).weights, ["--random-weights", "5"]
    w = np.random.default_rng(n).integers(-4, 10, (n, n)).astype(float)
    p = TMP / f"w{n}.csv"; np.savetxt(p, w, delimiter=",", fmt="%g")
    return w, (["--weights", str(p)] if kind == "file" else ["--costs", str(p)])

def fixed_of(kind, n):
    if kind == "none": return {}, []
    if kind == "fix": return {1: 3}, ["--fix", "1,3"]
    if kind == "file":
        p = TMP / f"f{n}.txt"; p.write_text("# q\n0,1\n")
        return {0: 1}, ["--fixed", str(p)]
    # infeasible: two non-attacking queens with no completion
    sols = oracle.solutions(n) if n <= 8 else oracle.solutions_by_backtracking(n)
    for (r1, c1, r2, c2) in itertools.product(range(n), repeat=4):
        if r1 < r2 and c1 != c2 and abs(r1 - r2) != abs(c1 - c2):
            if not np.any((sols[:, r1] == c1) & (sols[:, r2] == c2)):
                return {r1: c1, r2: c2}, ["--fix", f"{r1},{c1}", "--fix", f"{r2},{c2}"]
    for cs in itertools.permutations(range(n), 3):
        q = dict(zip((0, 1, 2), cs))
        if all(abs(a - b) != abs(q[a] - q[b]) for a, b in ((0, 1), (0, 2), (1, 2))):
            m = np.ones(len(sols), bool)
            for r, c in q.items(): m &= sols[:, r] == c
            if not m.any():
                return q, [a for r, c in q.items() for a in ("--fix", f"{r},{c}")]

def run(case):
    m, n = case["method"], case["n"]; spec = METHODS[m]
    W, wargs = weights_of(case["weights"], n)
    sense = "min" if case["weights"] in ("costs", "minrand", "minchess") else "max"
    if case["weights"] in ("minrand", "minchess"): wargs = wargs + ["--minimize"]
    if case["weights"] == "feas": wargs = ["--feasibility"]
    fixed, fargs = fixed_of(case["fixed"], n)
    sols = oracle.solutions(n) if n <= 8 else oracle.solutions_by_backtracking(n)
    mask = np.ones(len(sols), bool)
    for r, c in fixed.items(): mask &= sols[:, r] == c
    feasible = sols[mask]
    Wv = W if W is not None else np.ones((n, n))
    vals = Wv[np.arange(n), feasible].sum(axis=1) if len(feasible) else np.array([])
    best = (vals.max() if sense == "max" else vals.min()) if len(vals) else None
    cargs, refuse = [], []
    ctrl = case["ctrl"]
    if ctrl == "tl1": cargs = ["--time-limit", "1"]
    elif ctrl == "work": cargs = ["--work-limit", "100"]; refuse = ["work_limit"]
    elif ctrl.startswith("target"):
        if best is None: t = 0
        elif ctrl == "target_hit": t = best - (1 if sense == "max" else -1) * max(1, abs(best) * 0.2)
        else: t = best + (1 if sense == "max" else -1)
        cargs = ["--target", f"{t:g}"]; refuse = ["target"]
    elif ctrl == "threads": cargs = ["--threads", "2"]; refuse = ["threads"]
    elif ctrl == "seed": cargs = ["--seed", "7"]; refuse = ["seed"]
    elif ctrl == "warm": cargs = ["--warm-start", "sa"]; refuse = ["warm_start"]
    elif ctrl == "nowarm": cargs = ["--no-warm-start"]; refuse = ["warm_start"]
    elif ctrl == "nostrengthen": cargs = ["--no-strengthen"]; refuse = ["strengthen"]
    out = case["out"]; outfile = TMP / "out.json"; oargs = ["--output", str(outfile)]
    if outfile.exists(): outfile.unlink()
    pic = None
    if out == "json": oargs.append("--json")
    elif out == "quiet": oargs.append("--quiet")
    elif out == "verbose": oargs.append("--verbose")
    elif out in ("svg", "png"):
        pic = TMP / f"b.{out}";
        if pic.exists(): pic.unlink()
        oargs += [f"--{out}", str(pic)]
    argv = ["--n", str(n), "--method", m, *wargs, *fargs, *cargs, *oargs]
    so, se = io.StringIO(), io.StringIO(); t0 = time.perf_counter()
    try:
        with contextlib.redirect_stdout(so), contextlib.redirect_stderr(se):
            rc = solve_weighted_main(argv)
    except SystemExit as e:
        rc = e.code
    except Exception:
        return argv, [f"EXC {traceback.format_exc()[-600:]}"]
    secs = time.perf_counter() - t0
    err = se.getvalue(); probs = []
    kind = "none" if W is None else ("dense" if case["weights"] in ("random", "file", "costs", "minrand") else "colour")
    expect_refuse = [o for o in refuse if not spec.honour(o)]
    if kind not in spec.weights: expect_refuse.append("weights:" + kind)
    if spec.two_colours and case["weights"] == "equal": expect_refuse.append("two_colours")
    if rc == 2:
        lines = err.strip().splitlines()
        if len(lines) != 1 or "Traceback" in err: probs.append(f"refusal not one line: {err[-400:]}")
        known = ("no placement of these costs goes under", "no placement of these weights passes", "takes at least 2 s")
        if not expect_refuse and not any(k in err for k in known): probs.append(f"REFUSED unexpectedly: {lines[-1] if lines else err}")
        return argv, probs + ([] if probs else ["ok-refused " + lines[0][:120]])
    if expect_refuse: probs.append(f"NOT refused {expect_refuse} rc={rc}")
    if rc != 0: probs.append(f"rc={rc} err={err[-400:]}"); return argv, probs
    if "Traceback" in err: probs.append("traceback in stderr")
    if not outfile.exists(): probs.append("no --output file"); return argv, probs
    res = json.loads(outfile.read_text())
    if out == "json":
        sj = json.loads(so.getvalue())
        for k in ("status", "objective", "bound", "placement"):
            if sj[k] != res[k]: probs.append(f"json stdout vs output {k}: {sj[k]} {res[k]}")
    if pic is not None and best is None:
        if "no placement to draw" not in err: probs.append("infeasible: picture silently not written")
    elif pic is not None and (not pic.exists() or pic.stat().st_size == 0): probs.append("picture not written")
    if res["sense"] != sense: probs.append(f"sense {res['sense']} != {sense}")
    pl = res["placement"]; st = res["status"]
    if best is None:
        if pl is not None or st != "infeasible": probs.append(f"infeasible board answered {st} {pl}")
    else:
        if pl is None: probs.append(f"no placement status={st} msg={res['message']}")
        else:
            if not nqmip.is_solution(pl): probs.append(f"not a solution {pl}")
            if any(pl[r] != c for r, c in fixed.items()): probs.append("fixed queen moved")
            obj = float(Wv[np.arange(n), pl].sum())
            if res["objective"] is None or abs(res["objective"] - obj) > 1e-6: probs.append(f"objective {res['objective']} != sum {obj}")
            if st == "optimal" and abs(obj - best) > 1e-6: probs.append(f"OPTIMAL but {obj} vs best {best}")
            if st == "infeasible": probs.append("infeasible with a placement")
            b = res["bound"]
            if b is not None:
                if sense == "max" and b < best - 1e-6: probs.append(f"bound {b} below optimum {best} (max)")
                if sense == "min" and b > best + 1e-6: probs.append(f"bound {b} above optimum {best} (min)")
            if ctrl == "target_miss" and m != "minconflicts" and st != "optimal" and secs < 50: probs.append(f"target unreachable yet status {st}")
    if out == "quiet":
        line = so.getvalue().strip()
        if not line.startswith(st): probs.append(f"quiet line {line!r} vs status {st}")
    if ctrl == "tl1" and secs > 2.5: probs.append(f"time limit 1 took {secs:.1f}s")
    return argv, probs

