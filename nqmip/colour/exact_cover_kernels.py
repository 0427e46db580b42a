"""numba kernel of :mod:`nqmip.colour.exact_cover` (imported lazily: numba is slow)."""

from __future__ import annotations

import numpy as np

from nqmip.numba_cache import njit


@njit(cache=True, nogil=True)
def _take(o: int, opt_items: np.ndarray, item_ptr: np.ndarray, item_opts: np.ndarray,
          dead: np.ndarray, count: np.ndarray, covered: np.ndarray) -> None:
    """Choose option ``o``: cover its items and kill every option sharing one of them."""
    k = opt_items.shape[1]
    for a in range(k):
        it = opt_items[o, a]
        covered[it] = True
        for q in range(item_ptr[it], item_ptr[it + 1]):
            o2 = item_opts[q]
            if o2 != o:
                if dead[o2] == 0:
                    for b in range(k):
                        count[opt_items[o2, b]] -= 1
                dead[o2] += 1


@njit(cache=True, nogil=True)
def _untake(o: int, opt_items: np.ndarray, item_ptr: np.ndarray, item_opts: np.ndarray,
            dead: np.ndarray, count: np.ndarray, covered: np.ndarray) -> None:
    """Undo :func:`_take` (in reverse order)."""
    k = opt_items.shape[1]
    for a in range(k - 1, -1, -1):
        it = opt_items[o, a]
        for q in range(item_ptr[it], item_ptr[it + 1]):
            o2 = item_opts[q]
            if o2 != o:
                dead[o2] -= 1
                if dead[o2] == 0:
                    for b in range(k):
                        count[opt_items[o2, b]] += 1
        covered[it] = False


@njit(cache=True, nogil=True)
def exact_cover(
    opt_items: np.ndarray,
    item_ptr: np.ndarray,
    item_opts: np.ndarray,
    node_limit: int,
    seed: int,
    out: np.ndarray,
    least_constraining: bool = True,
) -> int:
    """Depth-first search for an exact cover (Knuth's Algorithm X, without the links).

    ``opt_items[o]`` are the items option ``o`` covers (every option covers the same number
    of items); ``item_opts[item_ptr[t]:item_ptr[t + 1]]`` are the options covering item
    ``t``. Every item must be covered exactly once. At each node the uncovered item with
    the fewest live options is branched on (ties at random); its options are tried least
    constraining first (fewest live options on their items, ties at random), or in random
    order if not ``least_constraining`` (measured side by side in
    benchmarks/bench_colour.py). Returns 1
    with the chosen options in ``out[:depth]`` (``out[depth] = -1``), 0 when the search
    space is exhausted (no exact cover exists), -1 when ``node_limit`` is reached.
    """
    np.random.seed(seed)
    n_opt = opt_items.shape[0]
    n_items = item_ptr.size - 1
    k = opt_items.shape[1]
    # np.empty and loops, not np.zeros / np.full: each of those is one more numba
    # overload to compile per dtype on a first run (0.1-0.2 s each)
    dead = np.empty(n_opt, np.int32)
    for o in range(n_opt):
        dead[o] = 0
    count = np.empty(n_items, np.int32)
    covered = np.empty(n_items, np.bool_)
    for it in range(n_items):
        count[it] = item_ptr[it + 1] - item_ptr[it]
        covered[it] = False
    levels = n_items // k + 1
    buf = np.empty(item_opts.size + levels, np.int32)
    key = np.empty(item_opts.size + levels, np.int64)
    start = np.empty(levels + 1, np.int32)
    end = np.empty(levels + 1, np.int32)
    ptr = np.empty(levels + 1, np.int32)
    chosen = np.empty(levels + 1, np.int32)
    for d in range(levels + 1):
        start[d] = 0
        end[d] = 0
        ptr[d] = 0
        chosen[d] = -1
    nodes = 0
    depth = 0
    remaining = n_items
    if remaining == 0:
        out[0] = -1
        return 1
    pushed = True
    while True:
        if pushed:
            pushed = False
            best = 1 << 30
            bi = -1
            ties = 0
            for it in range(n_items):
                if not covered[it]:
                    c = count[it]
                    if c < best:
                        best = c
                        bi = it
                        ties = 1
                    elif c == best:
                        ties += 1
                        if np.random.randint(ties) == 0:
                            bi = it
            s = end[depth - 1] if depth > 0 else 0
            start[depth] = s
            e = s
            if best > 0:
                for q in range(item_ptr[bi], item_ptr[bi + 1]):
                    o = item_opts[q]
                    if dead[o] == 0:
                        buf[e] = o
                        e += 1
                if least_constraining:  # fewest live options killed, random tie-break
                    for a in range(s, e):
                        o = buf[a]
                        kills = 0
                        for b in range(k):
                            kills += count[opt_items[o, b]]
                        key[a] = kills * 1024 + np.random.randint(1024)
                    for a in range(s + 1, e):
                        t = buf[a]
                        tk = key[a]
                        b = a - 1
                        while b >= s and key[b] > tk:
                            buf[b + 1] = buf[b]
                            key[b + 1] = key[b]
                            b -= 1
                        buf[b + 1] = t
                        key[b + 1] = tk
                else:  # random order
                    for a in range(e - 1, s, -1):
                        b = s + np.random.randint(a - s + 1)
                        t = buf[a]
                        buf[a] = buf[b]
                        buf[b] = t
            end[depth] = e
            ptr[depth] = s
            chosen[depth] = -1
        o = chosen[depth]
        if o >= 0:
            _untake(o, opt_items, item_ptr, item_opts, dead, count, covered)
            remaining += k
            chosen[depth] = -1
        if ptr[depth] >= end[depth]:
            if depth == 0:
                return 0
            depth -= 1
            continue
        o = buf[ptr[depth]]
        ptr[depth] += 1
        nodes += 1
        if nodes > node_limit:
            return -1
        _take(o, opt_items, item_ptr, item_opts, dead, count, covered)
        remaining -= k
        chosen[depth] = o
        if remaining == 0:
            for d in range(depth + 1):
                out[d] = chosen[d]
            out[depth + 1] = -1
            return 1
        depth += 1
        pushed = True
