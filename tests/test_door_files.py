"""The files a door reads back and writes, generated over the doors and the kinds of path
a user can give: a record (``--record``, read then written) that is a device or a pipe is
refused before any work in one line (exit 2), never read until memory runs out or waited
on; a picture is written to the very file named, or said not written."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SOLVE = [sys.executable, "-m", "nqmip"]
COUNT = [sys.executable, "-m", "nqmip.cli.count"]

#: The doors that take ``--record FILE``, each with the rest of a valid command.
RECORD_DOORS = {
    "solve-bnb": [*SOLVE, "--n", "6", "--method", "bnb", "--workers", "1", "--time-limit", "20"],
    "solve-lex": [*SOLVE, "--n", "6", "--lex-first", "--method", "first-fail",
                  "--workers", "1", "--time-limit", "20"],
    "count": [*COUNT, "--n", "6"],
    "count-fixed": [*COUNT, "--n", "7", "--fix", "0,1"],
}

#: Every option that names a record (read, then written), each with a valid command.
RECORDS = {**{door: [*argv, "--record"] for door, argv in RECORD_DOORS.items()},
           "compare-output": [sys.executable, "-m", "nqmip.compare", "--n", "5", "--methods",
                              "highs", "--time-limit", "5", "--no-progress", "--output"],
           "compare-resume": [sys.executable, "-m", "nqmip.compare", "--n", "5", "--methods",
                              "highs", "--time-limit", "5", "--no-progress", "--resume"]}

#: Paths that are neither a record nor a new file: devices and a pipe with no writer.
SPECIALS = ["/dev/zero", "/dev/full", "/dev/null", "fifo"]


def _limited() -> None:
    """2 GB of address space: the bug read /dev/zero until the machine's memory ran out."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=cwd,
                          preexec_fn=_limited)


@pytest.mark.parametrize("special", SPECIALS)
@pytest.mark.parametrize("door", sorted(RECORDS))
def test_a_record_that_is_not_a_file_is_refused_at_once(door: str, special: str,
                                                        tmp_path: Path) -> None:
    """nqmip-compare --resume /dev/zero said 'no such file'; --output /dev/null ran the
    sweep, then failed to write it (EINVAL from fsync), --output FIFO waited for ever."""
    path = special
    if special == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    try:
        done = _run(RECORDS[door] + [path], tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{door} --record {special}: still running after 60 s")
    assert done.returncode == 2, (door, special, done.returncode, done.stderr[-500:])
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "not a regular file" in done.stderr, done.stderr
    assert done.stdout == ""
    if special.startswith("/dev/"):
        assert Path(special).is_char_device()  # not replaced by a file


def test_the_api_refuses_a_record_that_is_not_a_file() -> None:
    from nqmip.enumeration.count import CountError, check_record

    with pytest.raises(CountError, match="not a regular file"):
        check_record("/dev/zero", 6)


@pytest.mark.parametrize("name", ["board", "board.png", "board.svg"])
def test_count_plot_writes_the_file_named(name: str, tmp_path: Path) -> None:
    """``--plot board`` wrote board.png beside it (matplotlib's default suffix)."""
    done = _run([*COUNT, "--n", "5", "--plot", name], tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    head = (tmp_path / name).read_bytes()[:8]
    assert head.startswith(b"<?xml") if name.endswith(".svg") else head[1:4] == b"PNG"


def test_count_plot_to_a_full_device_says_not_written() -> None:
    """``--plot /dev/full`` wrote /dev/full.png and said nothing (exit 0)."""
    done = _run([*COUNT, "--n", "5", "--plot", "/dev/full"], Path("/tmp"))
    assert done.returncode == 74, done.stderr
    assert "could not be written" in done.stderr and "Traceback" not in done.stderr
    assert not Path("/dev/full.png").exists()


#: Every door with a small run: started with standard output closed (``>&-``).
STREAM_DOORS = {
    "solve": [*SOLVE, "--n", "6", "--method", "highs", "--time-limit", "20"],
    "count": [*COUNT, "--n", "6"],
    "count-list": [*COUNT, "--n", "6", "--list"],
    "compare": [sys.executable, "-m", "nqmip.compare", "--n", "5", "--methods", "highs",
                "--time-limit", "10", "--no-progress"],
}


@pytest.mark.parametrize("door", sorted(STREAM_DOORS))
def test_a_closed_stdout_is_said_in_one_line_at_every_door(door: str,
                                                           tmp_path: Path) -> None:
    """nqmip-compare ran its sweep and then ended in a traceback (AttributeError: None
    has no write) where the other doors say so in one line."""
    done = subprocess.run(STREAM_DOORS[door], stdout=subprocess.DEVNULL, text=True,
                          stderr=subprocess.PIPE, timeout=120, cwd=tmp_path,
                          preexec_fn=lambda: os.close(1))
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 74, (door, done.returncode, done.stderr)
    assert "standard output is closed" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize("door", sorted(STREAM_DOORS))
def test_a_full_stdout_is_said_in_one_line_with_74_at_every_door(door: str,
                                                                 tmp_path: Path) -> None:
    """``> /dev/full``: nqmip-compare said 'cannot print the summary: OSError' and exited
    1 (its status for a failed run); the solve command and the count, 74."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(STREAM_DOORS[door], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 74, (door, done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "could not be printed (No space left on device)" in done.stderr, done.stderr


@pytest.mark.parametrize("door", sorted(STREAM_DOORS))
def test_a_reader_that_goes_away_ends_every_door_quietly_with_141(door: str,
                                                                  tmp_path: Path) -> None:
    """``| true``: nqmip-compare said 'cannot print the summary: BrokenPipeError' and
    exited 1; the other doors end quietly with 141 (128 + SIGPIPE), as a Unix tool."""
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first byte: every write fails
    try:
        done = subprocess.run(STREAM_DOORS[door], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=120, cwd=tmp_path)
    finally:
        os.close(write)
    assert done.returncode == 141, (door, done.returncode, done.stderr)
    assert done.stderr == "", done.stderr


#: Every door's result files, each with a valid command that writes it (PATH: the file).
RESULT_FILES = {
    "solve --output": [*SOLVE, "--n", "6", "--method", "highs", "--output", "PATH"],
    "solve --svg": [*SOLVE, "--n", "6", "--method", "highs", "--svg", "PATH"],
    "count --plot": [*COUNT, "--n", "5", "--plot", "PATH"],
    "compare --csv": [*STREAM_DOORS["compare"], "--csv", "PATH"],
}


@pytest.mark.parametrize("door", sorted(RESULT_FILES))
def test_a_result_file_that_cannot_be_written_is_74_at_every_door(door: str,
                                                                  tmp_path: Path) -> None:
    """``--output /dev/full``: the solve command said so and exited 1, which its help
    calls a solver failure; nqmip-compare's --csv and the count's --plot, 1 too. An
    output that fails is EX_IOERR (74), as a standard output that fails is."""
    argv = ["/dev/full" if part == "PATH" else part for part in RESULT_FILES[door]]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 74, (door, done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"{door.split()[1]}" in done.stderr and "/dev/full" in done.stderr, done.stderr
    assert "No space left on device" in done.stderr, done.stderr


#: Files that are not nqmip-compare's and do not end in a newline: the rule for a sweep
#: killed while writing its last row took them for one, dropped them and wrote over them.
FOREIGN = {"binary": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)),
           "text": b"hello",
           "rows-then-text": b'{"n": 5}\nhello'}


@pytest.mark.parametrize("option", ["--resume", "--output"])
@pytest.mark.parametrize("kind", sorted(FOREIGN))
def test_compare_refuses_a_file_not_its_own_and_leaves_it(option: str, kind: str,
                                                           tmp_path: Path) -> None:
    """python -m nqmip.compare --n 5 --methods highs --resume FILE, FILE the first 300
    bytes of /bin/ls: 'the last line was unfinished', exit 0, the file written over."""
    path = tmp_path / "runs.jsonl"
    path.write_bytes(FOREIGN[kind])
    done = _run([sys.executable, "-m", "nqmip.compare", "--n", "5", "--methods", "highs",
                 "--time-limit", "5", "--no-progress", option, str(path)], tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert path.read_bytes() == FOREIGN[kind]


#: The doors whose record is JSON lines appended by the run (the count's, the lex-first
#: cubes'), each with the rest of a valid command.
LINE_RECORDS = {"count": RECORD_DOORS["count"], "solve-lex": RECORD_DOORS["solve-lex"]}


@pytest.mark.parametrize("door", sorted(LINE_RECORDS))
@pytest.mark.parametrize("kind", ["text", "rows-then-text"])
def test_a_record_not_the_runs_own_is_refused_and_left(door: str, kind: str,
                                                       tmp_path: Path) -> None:
    """python -m nqmip.cli.count --n 9 --record FILE, FILE 'hello' with no newline: the
    line was dropped as one a killed run left, exit 0, the file written over."""
    path = tmp_path / "record.jsonl"
    path.write_bytes(FOREIGN[kind])
    done = _run([*LINE_RECORDS[door], "--record", str(path)], tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert path.read_bytes() == FOREIGN[kind]


def test_the_one_rule_for_a_line_cut_short() -> None:
    from nqmip.jsonlines import torn_tail

    assert torn_tail('{"a": 1}\n{"b": ') and torn_tail(b'{"a')
    assert not torn_tail("hello") and not torn_tail('{"a": 1}\n') and not torn_tail("")
    assert not torn_tail(b"\x7fELF{") and not torn_tail('{"a": 1}\nhello')


#: Run a door as ``python -m MODULE --version`` and print, as numpy starts to load, whether
#: Ctrl-C would still raise KeyboardInterrupt there (Python's own handler).
_HANDLER_AT_NUMPY = """
import runpy, signal, sys
class Hook:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            sys.meta_path.remove(self)
            print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, flush=True)
        return None
sys.meta_path.insert(0, Hook())
sys.argv = [sys.argv[1], "--version"]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("module", ["nqmip", "nqmip.cli.count", "nqmip.compare"])
def test_a_door_run_with_dash_m_hears_a_stop_before_numpy_loads(module: str,
                                                                tmp_path: Path) -> None:
    """python -m nqmip.cli.count --n 9, Ctrl-C 0.15 s in: a KeyboardInterrupt traceback
    from numpy's import (exit -2), where the launcher's doors say 'interrupted' (130)."""
    done = subprocess.run([sys.executable, "-c", _HANDLER_AT_NUMPY, module], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[:1] == ["False"], (done.stdout, done.stderr[-300:])


@pytest.mark.parametrize("extra", [[], ["--unique"], ["--fix", "0,1"]])
def test_a_count_run_again_on_its_own_record_resumes_it(extra: list[str],
                                                        tmp_path: Path) -> None:
    """python -m nqmip.cli.count --n 10 --unique --record FILE, twice: the second run
    refused FILE as 'another count (by=classes), not by=constellations' (exit 2): the
    check before the count left --unique out of the record's key."""
    argv = [*COUNT, "--n", "10", *extra, "--record", str(tmp_path / "r.jsonl")]
    first = _run(argv, tmp_path)
    again = _run(argv, tmp_path)
    assert first.returncode == 0 and again.returncode == 0, (first.stderr, again.stderr)
    assert first.stdout == again.stdout and first.stdout.strip().isdigit()


#: The doors that read an input file, each with the rest of a valid command.
INPUT_DOORS = {
    "solve-weights": [*SOLVE, "--weights", "PATH", "--time-limit", "5"],
    "solve-fixed": [*SOLVE, "--n", "8", "--fixed", "PATH", "--time-limit", "5"],
    "count-fixed": [*COUNT, "--n", "8", "--fixed", "PATH"],
    "compare-weights": [sys.executable, "-m", "nqmip.compare", "--weights", "PATH",
                        "--methods", "sa", "--time-limit", "1", "--no-progress"],
    "compare-fixed": [sys.executable, "-m", "nqmip.compare", "--n", "8", "--fixed", "PATH",
                      "--methods", "sa", "--time-limit", "1", "--no-progress"],
}


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize("door", sorted(INPUT_DOORS))
def test_an_endless_device_given_as_input_is_refused_unread(door: str, device: str,
                                                            tmp_path: Path) -> None:
    """``--weights /dev/zero`` (or ``--fixed``) read the device whole: a MemoryError
    traceback under a 2 GB limit, the machine's memory filled without one."""
    argv = [device if part == "PATH" else part for part in INPUT_DOORS[door]]
    done = _run(argv, tmp_path)
    assert done.returncode == 2, (door, device, done.returncode, done.stderr[-500:])
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"{device} is a device, not a file" in done.stderr and done.stdout == ""


def test_the_api_refuses_an_endless_device_unread(tmp_path: Path) -> None:
    # in a child under the 2 GB limit: the bug read the device until the memory ran out
    code = ("import nqmip\n"
            "try:\n"
            "    nqmip.read_weights('/dev/zero')\n"
            "except nqmip.InstanceError as exc:\n"
            "    print(exc)\n")
    done = _run([sys.executable, "-c", code], tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-500:]
    assert done.stdout == "/dev/zero is a device, not a file: give a file (or - for " \
                          "standard input)\n"


def _fifo_door(door: str, tmp_path: Path, limit: str) -> list[str]:
    """The input door's command on a new pipe no program writes to, its time limit
    ``limit`` seconds (a sweep's: its runs' hard limit, which bounds the wait for its
    input)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    argv = [str(fifo) if part == "PATH" else part for part in INPUT_DOORS[door]]
    if door.startswith("compare"):
        return [*argv, "--hard-limit", limit]
    return [limit if part == "5" else part for part in argv]


@pytest.mark.parametrize("door", sorted(d for d in INPUT_DOORS if not d.startswith("count")))
def test_a_pipe_no_one_writes_to_ends_at_the_time_limit(door: str, tmp_path: Path) -> None:
    """``--weights FIFO --time-limit 3`` (a pipe with no writer, or standard input left
    open) waited past the time limit for ever: the limit covers reading the input, then
    one line, exit 2 (no board to place queens on), as random weights too slow to draw."""
    try:
        done = subprocess.run(_fifo_door(door, tmp_path, "3"), capture_output=True, text=True,
                              timeout=60, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{door}: still waiting for its input 60 s in, past its time limit")
    assert done.returncode == 2, (door, done.returncode, done.stderr[-500:])
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "nothing to read within" in done.stderr and done.stdout == "", done.stderr
    assert "-limit 3," in done.stderr, done.stderr  # as typed: the solve's said 3.0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("door", sorted(INPUT_DOORS))
def test_a_stop_while_an_input_is_awaited_ends_every_door(door: str, signum: int,
                                                          tmp_path: Path) -> None:
    """SIGTERM while nqmip-compare waited on ``--fixed FIFO``: its handler only recorded
    the stop, and the sweep waited on (``timeout`` never ended it). Every door: one line,
    128 + the signal."""
    argv = _fifo_door(door, tmp_path, "50")  # the stop comes first
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path)
    time.sleep(2.5)
    proc.send_signal(signum)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{door}: a stop signal did not end its wait for the input")
    assert proc.returncode == 128 + signum, (door, proc.returncode, err[-500:])
    assert err.count("\n") == 1 and "interrupted" in err and "Traceback" not in err, err
    assert out == ""


def _one_byte_files() -> None:
    """Files of at most one byte (RLIMIT_FSIZE; Python ignores SIGXFSZ, so a write past
    it fails with EFBIG): a disk that fills as the run writes its record."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (1, resource.RLIM_INFINITY))


@pytest.mark.parametrize("door", ["count", "count-fixed", "solve-lex"])
def test_a_record_the_disk_cannot_take_is_74_in_one_line(door: str, tmp_path: Path) -> None:
    """``nqmip-count --record FILE`` on a full disk: 'error: [Errno 27] File too large'
    (exit 2, bad input, the file not named); the lex-first search's record: a traceback."""
    record = tmp_path / "r.jsonl"
    done = subprocess.run(RECORDS[door] + [str(record)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, preexec_fn=_one_byte_files)
    assert done.returncode == 74, (door, done.returncode, done.stderr[-500:])
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"--record {record}: cannot write (File too large)" in done.stderr, done.stderr


@contextlib.contextmanager
def _full_disk(folder: Path) -> Iterator[Path]:
    """A tmpfs of 8 kB mounted on ``folder``, filled: every write to it fails (ENOSPC).
    Skips where it cannot be mounted (not root, no mount). A one-byte RLIMIT_FSIZE does
    not serve bnb: its Dask cluster's worker did not start under it."""
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(folder)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        with contextlib.suppress(OSError), (folder / "filler").open("wb") as filler:
            filler.write(b"x" * 65536)
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
@pytest.mark.parametrize("door", ["api", "solve-bnb"])
def test_bnbs_record_on_a_full_disk_is_an_error_naming_it(door: str, tmp_path: Path) -> None:
    """``nqmip.solve(method="bnb", workers=1, record=FILE)`` on a full disk raised a plain
    ``OSError: [Errno 28] No space left on device`` that named no file: the record's own
    error (RecordUnwritten) naming it, the half-written file removed; the command says it
    in one line, exit 74, as the other records' doors."""
    with _full_disk(tmp_path / "disk") as disk:
        record = disk / "r.json"
        code = ("import nqmip\n"
                "from nqmip.jsonlines import RecordUnwritten\n"
                "try:\n"
                "    nqmip.solve(6, 'chess', method='bnb', workers=1, time_limit=20,\n"
                f"                record={str(record)!r})\n"
                "except RecordUnwritten as exc:\n"
                "    print(exc.strerror)\n")
        argv = [sys.executable, "-c", code] if door == "api" else \
            [*RECORDS[door], str(record)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                              cwd=tmp_path)
        said = f"{record}: cannot write (No space left on device)"
        if door == "api":
            assert done.returncode == 0 and done.stdout.startswith(said), done.stderr[-800:]
        else:
            assert done.returncode == 74, (done.returncode, done.stderr[-500:])
            assert done.stderr.count("\n") == 1 and f"--record {said}" in done.stderr, \
                done.stderr
        assert sorted(p.name for p in disk.iterdir()) == ["filler"]


@pytest.mark.parametrize("stderr", ["full", "closed"])
@pytest.mark.parametrize("bad", [False, True], ids=["good", "bad-input"])
@pytest.mark.parametrize("door", ["solve", "count", "compare"])
def test_a_failing_stderr_keeps_every_doors_exit_status(door: str, bad: bool, stderr: str,
                                                        tmp_path: Path) -> None:
    """``2> /dev/full``: bad input (--n -3) exited 1 at the solve command and the
    compare (the one line's print raised, its traceback unprinted), a good sweep 1;
    ``2>&-``: the same. The lines are lost; the statuses are the ones a working stderr
    gets, and standard output holds only the answer."""
    argv = [part for part in STREAM_DOORS[door] if part != "--no-progress"]  # its lines too
    argv += ["--n", "-3"] if bad else []
    with open("/dev/full", "w") as full:
        done = subprocess.run(argv, stdout=subprocess.PIPE, text=True, timeout=120,
                              cwd=tmp_path, stderr=full if stderr == "full" else None,
                              preexec_fn=(lambda: os.close(2)) if stderr == "closed" else None)
    assert done.returncode == (2 if bad else 0), (door, bad, stderr, done.returncode)
    assert (done.stdout == "") == bad, done.stdout[-300:]
    assert "rror" not in done.stdout and "Traceback" not in done.stdout


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize("door", sorted(INPUT_DOORS))
def test_an_endless_device_as_standard_input_is_refused_unread(door: str, device: str,
                                                               tmp_path: Path) -> None:
    """``--weights - < /dev/zero``: 2 GiB read into memory before 'holds more than 2 GiB'
    (a MemoryError traceback under the 2 GB limit), where ``--weights /dev/zero`` is
    refused unread."""
    argv = ["-" if part == "PATH" else part for part in INPUT_DOORS[door]]
    with open(device, "rb") as endless:
        done = subprocess.run(argv, stdin=endless, capture_output=True, text=True,
                              timeout=60, cwd=tmp_path, preexec_fn=_limited)
    assert done.returncode == 2, (door, device, done.returncode, done.stderr[-500:])
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "standard input is a device, not a file" in done.stderr and done.stdout == ""


#: Each door's inputs (option, the file's text) and outputs, each with a valid command.
_CLASH_DOORS = {
    "solve": ([*SOLVE, "--time-limit", "10", "--quiet"],
              {"--weights": "1,2,3,4\n" * 4, "--fixed": "0,1\n"},
              ["--output", "--svg", "--png"]),
    "count": ([*COUNT, "--n", "6"], {"--fixed": "0,1\n"}, ["--record"]),
    "compare": ([sys.executable, "-m", "nqmip.compare", "--methods", "sa", "--time-limit",
                 "1", "--no-progress"], {"--weights": "1,2,3,4\n" * 4, "--fixed": "0,1\n"},
                ["--output", "--csv"]),
}
_CLASHES = [(door, given, output) for door, (_, inputs, outputs) in _CLASH_DOORS.items()
            for given in inputs for output in outputs]


@pytest.mark.parametrize(("door", "given", "output"), _CLASHES)
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(
        door: str, given: str, output: str, tmp_path: Path) -> None:
    """``--weights w.csv --output w.csv`` wrote the result over the weights (exit 0), the
    compare's ``--csv w.csv`` its summary; now one line, exit 2, the file as it was."""
    argv, inputs, _ = _CLASH_DOORS[door]
    path = tmp_path / "input.csv"
    path.write_text(inputs[given])
    extra = ["--n", "6"] if given == "--fixed" and door != "count" else []
    done = _run([*argv, *extra, given, str(path), output, str(path)], tmp_path)
    assert done.returncode == 2, (door, given, output, done.returncode, done.stderr[-300:])
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"is the {given} file too" in done.stderr and done.stdout == ""
    assert path.read_text() == inputs[given]


def test_two_outputs_on_one_file_are_refused(tmp_path: Path) -> None:
    """``--output r.json --svg r.json``: the picture replaced the result (exit 0)."""
    done = _run([*SOLVE, "--n", "6", "--output", "r.json", "--svg", "r.json"], tmp_path)
    assert done.returncode == 2 and "--svg r.json is the --output file too" in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("door", sorted(INPUT_DOORS))
def test_a_small_input_is_read_under_a_limit_on_memory(door: str, tmp_path: Path) -> None:
    """Under a 2 GB address-space limit (``ulimit -v``) every input file, however small,
    ended in a MemoryError traceback: its read asked for a 2 GiB buffer first."""
    path = tmp_path / "input.csv"
    path.write_text("1,2,3,4\n" * 4 if door.endswith("weights") else "0,1\n")
    done = _run([str(path) if part == "PATH" else part for part in INPUT_DOORS[door]],
                tmp_path)
    assert done.returncode == 0, (door, done.returncode, done.stderr[-300:])
    assert "Error" not in done.stderr, done.stderr
