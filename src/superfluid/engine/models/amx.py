"""llama.cpp's AMX kernels: used where they compute right in this build, which a child process checks once.

On Intel CPUs with AMX (Sapphire Rapids and later) a natively compiled llama.cpp places quantized weights in its
AMX buffer type, one of the "extra" buffer types, and multiplies them with AVX-512 VNNI for a single token and
with AMX tiles for several. On the project's 2-core Xeon that is 2.4x the decode rate and 2.6x the prefill rate of
the plain kernels (docs/models.md has the figures).

Compiled by GCC 12 (Debian 12's compiler), the tile kernels fault: GCC drops the stores that fill the tile
configuration before ``ldtilecfg`` (its dead store elimination does not know that the instruction reads them), so
the first decode of more than one token dies with SIGILL at ``tilezero`` or with a segfault (llama.cpp#20824 has
the same crash). Built with ``-fno-dse`` the stores stay and the kernels work; the README's install command and
tox pass that flag. A wheel built without it can still come from pip's cache, and only running the kernels tells
the two builds apart, so before the first model load a child process loads the bundled model both ways, decodes
a batch and a single token, and compares the logits. Where it dies or disagrees, models load without the extra
buffer types, as llama-server does with ``--no-repack``. The verdict is kept per build of llama.cpp's CPU library
in the user's cache directory. ``SUPERFLUID_AMX=on`` or ``off`` skips the check.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import resource
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import llama_cpp
import numpy as np

log = logging.getLogger(__name__)

ENV = "SUPERFLUID_AMX"
CHECK_TIMEOUT_S = 180.0
PROMPT = ("<|im_start|>user\nWrite a short story about a lighthouse keeper and his cat.<|im_end|>\n"
          "<|im_start|>assistant\nOnce upon a time, there was a lighthouse keeper named")
DISAGREE = 3
"""The child's exit status when the kernels ran but computed something else."""
AGREEMENT = 0.9
"""Share of positions whose likeliest next token must be the same with and without the AMX kernels. Their logits
differ by ~0.2 on average (a different summation order over 8-bit activations), so a near-tie may flip; on this
prompt every position agreed on the project's machine."""


def built_with_amx() -> bool:
    """Whether llama.cpp's CPU backend has AMX kernels (a native build on a CPU with AMX)."""
    llama_cpp.llama_backend_init()
    return b"AMX_INT8 = 1" in llama_cpp.llama_print_system_info()


@dataclass(frozen=True)
class Verdict:
    usable: bool
    conclusive: bool
    """The kernels ran: they worked, faulted or disagreed. A check that could not run (a timeout, no bundled
    model) decides for this process only and is not kept."""


_lock = threading.Lock()


@functools.cache
def extra_buffers_usable() -> bool:
    """Whether models may load with llama.cpp's extra buffer types (its AMX kernels among them). Checked once per
    process, under a lock: the first loads may come from several threads."""
    with _lock:
        return _decide()


def _decide() -> bool:
    if not built_with_amx():
        return True
    setting = os.environ.get(ENV, "").strip().lower()
    if setting in ("on", "1", "true"):
        return True
    if setting in ("off", "0", "false"):
        log.info("%s=%s: models load without llama.cpp's extra buffer types", ENV, setting)
        return False
    verdict_file = _verdict_file()
    usable: bool | None = None
    if verdict_file is not None:
        try:
            usable = bool(json.loads(verdict_file.read_text())["usable"])
        except (OSError, ValueError, KeyError, TypeError):
            usable = None
    if usable is None:
        verdict = _check()
        usable = verdict.usable
        if verdict.conclusive and verdict_file is not None:
            _keep(verdict_file, usable)
        elif not verdict.conclusive:
            log.warning("the AMX check could not run: models load without llama.cpp's extra buffer types")
            return False
    if usable:
        log.info("llama.cpp's AMX kernels work in this build: models load with its extra buffer types")
    else:
        log.warning("llama.cpp's AMX kernels fail in this build (reinstall llama-cpp-python as the README says, "
                    "with -fno-dse): models load without its extra buffer types, at less than half the speed")
    return usable


def _keep(path: Path, usable: bool) -> None:
    """Write the verdict whole or not at all (another process may be reading it); an unwritable cache only means
    the next process checks again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps({"usable": usable}))
        os.replace(partial, path)
    except OSError:
        pass


def _cpu_library() -> Path | None:
    """The CPU backend llama.cpp loads (``libggml-cpu.so.0`` in the wheel; the other names are links to it or
    copies of it)."""
    here = Path(llama_cpp.__file__).parent / "lib"
    found = sorted(p for p in here.glob("libggml-cpu*") if p.is_file() and not p.is_symlink())
    return found[0] if found else None


def _verdict_file() -> Path | None:
    """Where the verdict for this build is kept, named after the CPU library's path, size and time; None where
    there is no cache directory to keep it in (no home directory)."""
    library = _cpu_library()
    if library is None:
        identity = f"{llama_cpp.__file__} {llama_cpp.__version__}"
    else:
        stat = library.stat()
        identity = f"{library.resolve()} {stat.st_size} {stat.st_mtime_ns}"
    digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:  # no HOME, and a user id with no home directory
        return None
    return base / "superfluid" / f"amx-{digest}.json"


def _check(command: list[str] | None = None) -> Verdict:
    """Run the check in a child process: a faulting kernel kills the child, not the server."""
    command = command or [sys.executable, "-m", "superfluid.engine.models.amx"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S, check=False)
    except (subprocess.TimeoutExpired, OSError) as exc:
        log.warning("the AMX check did not finish: %s", exc)
        return Verdict(usable=False, conclusive=False)
    if done.returncode == 0:
        return Verdict(usable=True, conclusive=True)
    tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
    log.warning("the AMX check failed (exit status %d): %s", done.returncode, tail[0][:300])
    # Killed by a signal (SIGILL, SIGSEGV) or a disagreement: the kernels ran and failed.
    return Verdict(usable=False, conclusive=done.returncode < 0 or done.returncode == DISAGREE)


def _model(path: Path, *, extra: bool = False, vocab_only: bool = False) -> llama_cpp.llama_model_p:
    """The check's own load (llama_model's would ask for this very check)."""
    params = llama_cpp.llama_model_default_params()
    params.use_extra_bufts = extra
    params.vocab_only = vocab_only
    model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
    if not model:
        raise SystemExit(f"could not load {path}")
    return model  # type: ignore[no-any-return]


def _logits(path: Path, tokens: list[int], *, extra: bool) -> np.ndarray:
    """The logits after each prompt token (one batch) and after one more token decoded alone."""
    model = _model(path, extra=extra)
    cparams = llama_cpp.llama_context_default_params()
    cparams.n_ctx = 256
    cparams.n_batch = cparams.n_ubatch = 64
    cparams.n_threads = cparams.n_threads_batch = 2
    ctx = llama_cpp.llama_init_from_model(model, cparams)
    n_vocab = llama_cpp.llama_vocab_n_tokens(llama_cpp.llama_model_get_vocab(model))
    rows = []
    for start, chunk in ((0, tokens[:-1]), (len(tokens) - 1, tokens[-1:])):
        batch = llama_cpp.llama_batch_init(len(chunk), 0, 1)
        for i, token in enumerate(chunk):
            batch.token[i] = token
            batch.pos[i] = start + i
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = 0
            batch.logits[i] = True
        batch.n_tokens = len(chunk)
        if llama_cpp.llama_decode(ctx, batch) != 0:
            raise SystemExit("llama_decode failed")
        for i in range(len(chunk)):
            row = llama_cpp.llama_get_logits_ith(ctx, i)
            rows.append(np.ctypeslib.as_array(row, shape=(n_vocab,)).copy())
        llama_cpp.llama_batch_free(batch)
    llama_cpp.llama_free(ctx)
    llama_cpp.llama_model_free(model)
    return np.stack(rows)


def _tokenize(path: Path, text: str) -> list[int]:
    model = _model(path, vocab_only=True)
    data = text.encode()
    out = (llama_cpp.llama_token * 256)()
    n = llama_cpp.llama_tokenize(llama_cpp.llama_model_get_vocab(model), data, len(data), out, 256, True, True)
    llama_cpp.llama_model_free(model)
    return list(out[:n])


def main() -> None:
    """The check itself (run in a child: a faulting kernel kills this process, not the server)."""
    from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a faulting kernel leaves no core file behind
    llama_cpp.llama_backend_init()
    path = resolve(DEFAULT_MODEL).locate()
    tokens = _tokenize(path, PROMPT)
    plain = _logits(path, tokens, extra=False)
    amx = _logits(path, tokens, extra=True)
    if not np.isfinite(amx).all():
        print("the AMX kernels gave non-finite logits", file=sys.stderr)
        sys.exit(DISAGREE)
    agreement = float(np.mean(plain.argmax(axis=1) == amx.argmax(axis=1)))
    if agreement < AGREEMENT:
        print(f"the AMX kernels disagree with the plain ones: {agreement:.0%} of next tokens agree", file=sys.stderr)
        sys.exit(DISAGREE)
    print(f"AMX kernels agree with the plain ones on {agreement:.0%} of next tokens")


if __name__ == "__main__":
    main()
