"""Kernels forked from one warm process, so the pages do not each pay for ``import torch``.

Every page runs in its own fresh kernel, and a fresh kernel spends most of its start importing
torch (about 1.3 s of CPU, more than most pages spend on their cells). For a build that executes
pages, :func:`start` launches one *warm* process that imports torch, numpy, the engine and the
kernel machinery once, and points the ``python3`` kernel at a small launcher: the launcher asks the
warm process for a kernel, which forks a child that becomes the kernel. Each page still gets its
own process, with the launcher's working folder, environment, standard streams and signals; only
the imports are already done (and the random generators are reseeded, as a fresh process would be).

The warm process preloads nothing if an import warns (a fresh kernel would show the warning on the
page, and the build would fail), and the launcher starts an ordinary kernel whenever the warm
process is not there. ``python -m warm_kernels serve SOCKET`` runs the warm process,
``python -m warm_kernels launch CONNECTION_FILE`` the launcher.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

SOCKET_VAR = "GUIDE_WARM_KERNELS"  # where the launcher finds the warm process
COLD = ".cold"  # beside the socket: the warm process is not serving, start ordinary kernels
WAIT_S = 60.0  # how long a launcher waits for the warm process to finish its imports
# What every kernel imports: the pages' libraries, and the kernel's own (its debugger included).
# torch's optimizers import torch._dynamo (and sympy with it) on their first step: about 2 s of
# CPU in each of the many pages that take an optimizer step.
PRELOAD = (
    "numpy",
    "torch",
    "torch._dynamo",
    "ownership",
    "ownership.compare",
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipykernel.debugger",
    # what a kernel's start-up imports after that (its connection file, shell, history, pdb)
    "psutil",
    "pdb",
    "sqlite3",
    "IPython.core.completerlib",
    "IPython.extensions.storemagic",
    "tornado.platform.asyncio",
)


def start(build_dir: Path) -> subprocess.Popen[bytes]:
    """Start the warm process; point the ``python3`` kernel of this build at the launcher."""
    path = build_dir / "warm-kernels.sock"
    path.unlink(missing_ok=True)
    Path(f"{path}{COLD}").unlink(missing_ok=True)
    here = str(Path(__file__).resolve().parent)
    spec = build_dir / ".jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "warm_kernels", "launch", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "Python 3", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel))
    paths = [str(build_dir / ".jupyter"), *os.environ.get("JUPYTER_PATH", "").split(os.pathsep)]
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in paths if p)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}
    server = subprocess.Popen([sys.executable, "-m", "warm_kernels", "serve", str(path)], env=env)
    os.environ[SOCKET_VAR] = str(path)
    return server


def stop(server: subprocess.Popen[bytes]) -> None:
    """Stop the warm process (kernels already forked finish on their own)."""
    path = os.environ.pop(SOCKET_VAR, None)
    server.terminate()
    server.wait()
    if path is not None:
        Path(path).unlink(missing_ok=True)
        Path(path + COLD).unlink(missing_ok=True)


def _become_kernel(request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: take the launcher's folder, environment and streams, run a kernel."""
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[0] = os.getcwd()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    import random

    import numpy

    random.seed()
    numpy.random.seed()
    for engine in ("torch", "ownership"):  # their global generators, seeded from entropy
        if engine in sys.modules:
            sys.modules[engine].seed()
    # The launcher, not this process, is the child of the build: it watches the build (see
    # ``launch``), so the kernel's own parent-watching is off (parent 1), as it is quiet.
    sys.argv = [sys.argv[0], "-f", request["connection_file"], "--IPKernelApp.parent_handle=1"]
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


def _exit_kernel(code: int) -> None:
    """End the forked kernel as fast as a fresh one ends: the exit handlers run (the kernel's
    streams, history and connection file are closed by them), then the process ends without
    tearing down, one by one, the objects it inherited from the warm process (that teardown
    writes to every inherited page, and takes longer than most pages' cells)."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _supervise(conn: socket.socket, fds: list[int]) -> None:
    """In the forked child: fork the kernel, relay signals to it, report how it ended."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    lines = conn.makefile("r")
    request = json.loads(lines.readline())
    pid = os.fork()
    if pid == 0:  # the kernel; it never returns here
        lines.close()
        conn.close()
        try:
            _become_kernel(request, fds)
        except BaseException:  # as an interpreter that ends on an uncaught exception
            traceback.print_exc()
            _exit_kernel(1)
        _exit_kernel(0)
    for fd in fds:
        os.close(fd)

    def relay() -> None:
        with contextlib.suppress(ProcessLookupError):  # the kernel may have ended already
            for line in lines:
                os.kill(pid, int(line))
            os.kill(pid, signal.SIGKILL)  # the launcher is gone: so is its kernel

    threading.Thread(target=relay, daemon=True).start()
    _, status = os.waitpid(pid, 0)
    with contextlib.suppress(OSError):  # a launcher killed (an immediate shutdown) hears nothing
        conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
    os._exit(0)


def _reap(*_: Any) -> None:
    """Collect the finished children (so that their CPU time is counted with the build's)."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _warm_listener(path: str) -> socket.socket | None:
    # The kernel's debugger, imported here rather than in each kernel, would otherwise print its
    # frozen-modules notice into the build log (the kernels never use the debugger).
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name in PRELOAD:
            importlib.import_module(name)
        # the machine's addresses, which every kernel's connection file would look up again
        importlib.import_module("jupyter_client.localinterfaces").localhost()
    if caught:  # a fresh kernel would show these warnings: serve nothing, launch fresh kernels
        return None
    # The imported objects live as long as any kernel: the kernels' collector need not walk them
    # (walking them would also copy every page they are on into each kernel).
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    return listener


def serve(path: str) -> None:
    """The warm process: import once, then fork a kernel for each launcher that connects."""
    listener = None
    try:
        listener = _warm_listener(path)
    finally:
        if listener is None:  # the launchers stop waiting and start ordinary kernels
            Path(path + COLD).touch()
    if listener is None:
        return
    signal.signal(signal.SIGCHLD, _reap)
    while True:
        conn, _ = listener.accept()
        _, fds, _, _ = socket.recv_fds(conn, 1, 3)  # the launcher's stdin, stdout, stderr
        if os.fork() == 0:
            listener.close()
            _supervise(conn, fds)
        conn.close()
        for fd in fds:
            os.close(fd)


def launch(connection_file: str) -> int:
    """The kernel command: a kernel forked from the warm process, or else an ordinary one."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        path = os.environ[SOCKET_VAR]
        deadline = time.monotonic() + WAIT_S
        while not os.path.exists(path) and not os.path.exists(path + COLD):  # still importing
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        conn.connect(path)
    except (KeyError, OSError):
        os.execv(
            sys.executable, [sys.executable, "-m", "ipykernel_launcher", "-f", connection_file]
        )
    request = {"connection_file": connection_file, "cwd": os.getcwd(), "env": dict(os.environ)}
    socket.send_fds(conn, [b"\0"], [0, 1, 2])
    conn.sendall(json.dumps(request).encode() + b"\n")
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda n, _: conn.sendall(f"{n}\n".encode()))
    parent, reply = os.getppid(), b""
    with conn:
        conn.settimeout(1.0)
        while not reply.endswith(b"\n"):
            try:
                chunk = conn.recv(64)
            except TimeoutError:
                if os.getppid() != parent:  # the build is gone: closing ends the kernel too
                    return 1
                continue
            if not chunk:
                return 1
            reply += chunk
    return int(reply)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        sys.exit(launch(sys.argv[2]))
