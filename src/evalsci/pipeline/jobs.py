"""Glue between Snakemake script adapters and the package: logging and atomic writes."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def logged(smk) -> Iterator[None]:
    """Send stdout, stderr and `logging` of a script job to its `log:` file: evalsci's INFO
    and up, other libraries' WARNING and up.

    Exceptions are logged with their traceback and re-raised so the job fails (and
    Snakemake deletes its outputs). Every thread pool is capped at the job's `threads:` first
    (`configure_threads`), so no script job runs more compute threads than its cores.
    """
    configure_threads(getattr(smk, "threads", None))
    log = smk.log[0] if smk.log else None
    if log is None:
        yield
        return
    quiet_library_bars()
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    with (
        open(log, "w", buffering=1) as fh,
        contextlib.redirect_stdout(fh),
        contextlib.redirect_stderr(fh),
    ):
        logging.basicConfig(
            stream=fh,
            level=logging.WARNING,
            force=True,
            format="%(asctime)s %(name)s %(levelname)s %(message)s",
        )
        # the package's INFO (what a step did, progress counts) and the libraries' warnings:
        # at INFO, fontTools alone wrote two thirds of the job logs (a line per PDF font subset)
        logging.getLogger("evalsci").setLevel(logging.INFO)
        try:
            yield
        except BaseException:
            logging.exception("job failed")
            raise


def quiet_library_bars() -> None:
    """No tqdm bars from Hugging Face libraries in a job's log file (transformers' "Loading
    weights", hub downloads): \\r-joined, they are one unreadable line per bar. Set before
    they are imported (huggingface_hub reads the variable once), and switched off where they
    already are."""
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    if "huggingface_hub" in sys.modules:
        sys.modules["huggingface_hub"].utils.disable_progress_bars()
    if "transformers" in sys.modules:
        sys.modules["transformers"].utils.logging.disable_progress_bar()


def copy_at_most(fi, fo, limit: int) -> bool:
    """Copy the binary stream `fi` to `fo` in 1 MiB pieces; False, leaving the copy cut short,
    as soon as more than `limit` bytes came (the caller names what was too large)."""
    total = 0
    while chunk := fi.read(1 << 20):
        total += len(chunk)
        if total > limit:
            return False
        fo.write(chunk)
    return True


class OutputPathError(ValueError):
    """An output path that is not a regular file or a new path (the message names it)."""


def check_output_path(path: str | os.PathLike, option: str | None = None) -> None:
    """Refuse to write where `path` is anything but a regular file or nothing: the rename of
    `atomic_path` would replace a symlink (instead of writing where it points, or refusing),
    a FIFO, or, as root, a device node (`--out /dev/full` became a CSV). `option`: the
    command-line option that named the path, said first in the message."""
    import stat

    path = Path(path)
    said = f"{option}: " if option else ""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return
    except NotADirectoryError:
        raise OutputPathError(f"{said}{path}: a part of its folder is a file") from None
    if stat.S_ISREG(st.st_mode):
        return
    kinds = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"))
    kinds += ((stat.S_ISFIFO, "a FIFO"),)
    kind = next((k for test, k in kinds if test(st.st_mode)), "a device or socket")
    raise OutputPathError(
        f"{said}{path} is {kind}: evalsci writes its output only to a regular file or a new path"
    )


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside `path`; rename it into place only on success.

    The file gets the permissions a plain `open(path, "w")` would give (0666 less the
    umask): mkstemp creates it 0600, which would leave a shared results directory
    unreadable to the group.
    """
    path = Path(path)
    check_output_path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise OutputPathError(f"{path}: its folder {path.parent} is a file") from None
    remove_stale_temps(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        if tmp.is_file():  # the caller may have replaced the file; chmod what is there
            os.chmod(tmp, 0o666 & ~_umask())
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def remove_stale_temps(path: str | os.PathLike) -> list[Path]:
    """Delete the temporary files of `atomic_path(path)` that a killed writer left beside it.

    `kill -9` inside `atomic_path` skips its cleanup and leaves `.<name>.<8 random
    characters><suffix>` (mkstemp's name) in results/. Only the job that writes `path` writes
    its temporaries, and Snakemake runs one such job at a time per working directory, so any
    found before a write, or after its run was killed (`runlocks.check_runs`), is debris."""
    path = Path(path)
    pattern = re.compile(rf"\.{re.escape(path.name)}\.[a-z0-9_]{{8}}{re.escape(path.suffix)}")
    prefix, removed = f".{path.name}.", []
    with contextlib.suppress(OSError), os.scandir(path.parent) as entries:
        for e in entries:  # scandir and a prefix test: a shard directory may hold thousands
            if (
                e.name.startswith(prefix)
                and pattern.fullmatch(e.name)
                and e.is_file(follow_symlinks=False)
            ):
                Path(e.path).unlink(missing_ok=True)
                removed.append(Path(e.path))
    return removed


def _umask() -> int:
    """The process umask (reading it means setting it; set it straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Every thread pool a job's libraries may start, by the variable that sizes it: OpenMP (torch,
# scikit-learn, xgboost), the BLAS libraries (numpy/scipy's OpenBLAS, torch's MKL), numba,
# numexpr, and the Rust thread pool of Hugging Face tokenizers (rayon).
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "NUMBA_NUM_THREADS",
    "RAYON_NUM_THREADS",
)


def configure_threads(n: int | None) -> None:
    """Cap every compute thread pool of this process at the job's `threads:`.

    A job never runs more compute threads than the cores Snakemake gave it, so parallel jobs
    do not oversubscribe a busy machine (their CPU cost stays what the docs measured). The
    variables are read when a library loads, so call this first in a script; pools of
    libraries already loaded are capped through torch and threadpoolctl.
    """
    if not n:
        return
    n = int(n)
    for var in THREAD_VARIABLES:
        os.environ[var] = str(n)
    if n == 1:
        os.environ["TOKENIZERS_PARALLELISM"] = "false"
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        torch.set_num_threads(n)
        with contextlib.suppress(RuntimeError):  # allowed only before any inter-op work
            torch.set_num_interop_threads(n)
    if "numpy" in sys.modules:
        with contextlib.suppress(ImportError):
            from threadpoolctl import threadpool_limits

            threadpool_limits(n)


def prepend_pythonpath(path: str) -> None:
    """Let script jobs import `evalsci` from `path` even in an env where it is not installed."""
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if path not in parts:
        os.environ["PYTHONPATH"] = os.pathsep.join([path, *parts])


def coerce_cli_booleans(cfg):
    """Turn "true"/"false" strings (any case) into booleans, recursively, in place.

    Snakemake parses `--config recompute=True` as a boolean but `recompute=true` as the
    string "true"; both are what a user means. Other strings are left to the schema.
    """
    items = cfg.items() if isinstance(cfg, dict) else enumerate(cfg)
    for key, value in list(items):
        if isinstance(value, str) and value.lower() in ("true", "false"):
            cfg[key] = value.lower() == "true"
        elif isinstance(value, (dict, list)):
            coerce_cli_booleans(value)
    return cfg


def _cli_number(value):
    """A string that YAML reads as a number, as that number; anything else unchanged."""
    import yaml

    if not isinstance(value, str):
        return value
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        return value
    return parsed if isinstance(parsed, (int, float)) and not isinstance(parsed, bool) else value


def coerce_cli_numbers(cfg, cli) -> None:
    """Turn the numbers of nested `--config` values back into numbers, in place.

    Snakemake reads `--config 'baselines={recompute: {default: {prompts: 2}}}'` with YAML's
    BaseLoader, so every nested scalar arrives as a string ("2", ["1"]) and the schema would
    reject it. Only the paths the command line set are touched (`cli` is Snakemake's parsed
    --config dict), so a quoted "4" in a config file is still an error."""
    if isinstance(cli, dict) and isinstance(cfg, dict):
        pairs = [(k, v) for k, v in cli.items() if k in cfg]
    elif isinstance(cli, list) and isinstance(cfg, list):
        pairs = list(enumerate(cli[: len(cfg)]))
    else:
        return
    for key, value in pairs:
        if isinstance(value, (dict, list)):
            coerce_cli_numbers(cfg[key], value)
        elif cfg[key] == value:  # still what the command line said
            cfg[key] = _cli_number(value)


# The one adapter (workflow/scripts/call.py): a rule names the function it runs by its module
# file, the input `code` (so that editing the module reruns the rule), and its name, the param
# `function`. Every other named input, output and param is a keyword argument; a wildcard, and
# `threads` (the job's cores), are too where the function has a parameter of that name.
CODE, FUNCTION, THREADS = "code", "function", "threads"


def module_of(code: str | os.PathLike) -> str:
    """The dotted module name of a source file of the `evalsci` package imported here."""
    import evalsci

    src = Path(evalsci.__file__).resolve().parents[1]
    path = Path(code).resolve()
    try:
        rel = path.relative_to(src).with_suffix("")
    except ValueError:
        raise ValueError(f"{code}: not a module of the evalsci package in {src}") from None
    return ".".join(rel.parts)


def rule_function(code: str | os.PathLike, name: str):
    """The function `name` of the module whose source file is `code`."""
    import importlib

    module = importlib.import_module(module_of(code))
    fn = getattr(module, name, None)
    if not callable(fn):
        raise ValueError(f"{code} defines no function {name!r}")
    return fn


class Recorded(tuple):
    """A rule param that Snakemake records: a 1-tuple of the object's repr, carrying the object.

    Snakemake reruns a job whose params changed (rerun trigger `params`), but it records a
    param only when it is of a builtin type (str, number, list, tuple, dict, ...): a settings
    object, a frozen dataclass, it drops without a word, so a changed setting would rerun
    nothing. Wrapped (`params: settings=recorded(ASSESSORS)`), the param is recorded by the
    object's repr (a dataclass's repr shows every field, nested ones too), and `call` hands the
    function the object itself. tests/test_rule_calls.py holds every rule's params to this.
    """

    value: object

    def __new__(cls, value):
        self = super().__new__(cls, (repr(value),))
        self.value = value
        return self

    def __reduce__(self):  # pickled into the job's script as the object, wrapped again
        return (Recorded, (self.value,))


def recorded(value) -> Recorded:
    """`value` as a rule param that Snakemake records (Recorded)."""
    return Recorded(value)


def _plain(value):
    """A Snakemake file list as a list of str, a file as str, a recorded param as its object;
    other values as they are."""
    if isinstance(value, Recorded):
        return value.value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, list):  # Namedlist (a list subclass)
        return [_plain(v) for v in value]
    return value


def rule_names(inputs, outputs, params) -> dict[str, str]:
    """{argument name: input, output or params} of a rule's named files and values, less
    `code` and `function`; a name used twice is an error."""
    kinds: dict[str, str] = {}
    for kind, names, skip in (
        ("input", inputs, CODE),
        ("output", outputs, None),
        ("params", params, FUNCTION),
    ):
        for name in names:
            if name == skip:
                continue
            if name in kinds:
                raise ValueError(f"{kind} {name!r} repeats the {kinds[name]} of that name")
            kinds[name] = kind
    return kinds


def rule_arguments(smk, parameters) -> dict:
    """The keyword arguments of a rule's function whose parameters are `parameters`."""
    named = {"input": smk.input, "output": smk.output, "params": smk.params}
    kinds = rule_names(*(n.keys() for n in named.values()))
    args = {name: _plain(getattr(named[kind], name)) for name, kind in kinds.items()}
    for name, value in smk.wildcards.items():
        if name in parameters and name not in args:
            args[name] = str(value)
    if THREADS in parameters:
        args[THREADS] = smk.threads
    return args


def call(smk) -> None:
    """Run the function a rule names with the rule's names as keyword arguments, its output
    going to the rule's log (`logged`)."""
    import inspect

    with logged(smk):
        fn = rule_function(getattr(smk.input, CODE), getattr(smk.params, FUNCTION))
        signature = inspect.signature(fn)
        args = rule_arguments(smk, signature.parameters)
        try:
            signature.bind(**args)
        except TypeError as e:
            raise TypeError(f"rule {smk.rule}: {fn.__module__}.{fn.__name__}: {e}") from None
        fn(**args)
