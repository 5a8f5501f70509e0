"""pecheck's side of loading and calling a Python kernel (src/python/bridge.cpp, provider.cpp).

Not a public API: ``load(spec)`` finds the object of ``pecheck verify --python MODULE:OBJECT``,
``server_setup()`` runs once in the fork server after the import, ``after_fork()`` once in every
worker, and ``describe_exception`` turns an exception into the one line the report shows.
"""
import importlib
import importlib.util
import os
import sys
import traceback

# The ABI names an object may provide (pec_* without the prefix).
KERNEL_NAMES = tuple(
    f"{base}_{dt}"
    for base in ("rope", "alibi_bias", "t5_bias", "sinusoidal", "learned", "rope_qk", "rope_cached",
                 "rope_cache", "mrope")
    for dt in ("f32", "bf16", "f16"))


def _provides(obj):
    return any(getattr(obj, n, None) is not None for n in KERNEL_NAMES)


def load(spec):
    """MODULE[:OBJECT] -> the kernel object. MODULE: a module name or a .py file; OBJECT: a dotted
    attribute path (default: the module). An object that provides none of the kernel names but is
    callable (a class, a factory function) is called without arguments and its result is used."""
    mod, sep, attr = spec.rpartition(":")
    if not sep or "/" in attr or attr.endswith(".py"):
        mod, attr = spec, ""
    if mod.endswith(".py") or "/" in mod:
        path = os.path.abspath(mod)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such Python file: {mod}")
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)  # its siblings import as they would from the script
        name = os.path.splitext(os.path.basename(path))[0]
        s = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(s)
        sys.modules[name] = module
        s.loader.exec_module(module)
    else:
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())  # as `python3 -m` would
        module = importlib.import_module(mod)
    obj = module
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    if not _provides(obj) and callable(obj):
        obj = obj()
    return obj


def limit_threads():
    """One intra-op thread for torch, if it is imported: a worker runs one call at a time, and a
    thread pool started before a fork is not there in the child (issue 24)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def server_setup():
    """In the fork server, once, after the import: one thread, and torch's lazy start-up paid here
    rather than in every worker's first call."""
    limit_threads()
    torch = sys.modules.get("torch")
    if torch is not None:
        with torch.no_grad():
            a = torch.arange(8, dtype=torch.float32)
            b = torch.cat([a.sin(), a.cos()]) * 2 - a.repeat(2)
            b.to(torch.bfloat16).to(torch.float16).float().sum()


def after_fork():
    limit_threads()


def describe_exception(etype, value, tb):
    """'ValueError: message (at file.py:12 in fn)': the innermost frame of the user's code."""
    name = getattr(etype, "__name__", str(etype))
    msg = str(value).strip().replace("\n", " ")
    if len(msg) > 300:
        msg = msg[:297] + "..."
    where = ""
    frames = traceback.extract_tb(tb) if tb is not None else []
    if frames:
        f = frames[-1]
        where = f" (at {os.path.basename(f.filename)}:{f.lineno} in {f.name})"
    if os.environ.get("PECHECK_PYTHON_TRACEBACK"):
        traceback.print_exception(etype, value, tb, file=sys.stderr)
    return f"{name}: {msg}{where}" if msg else f"{name}{where}"
