"""Debian packages a test needs and the machine may lack (Chromium for the browser tests, docker-compose for
the compose files' parser), installed with apt-get where the tests run as root: once per process and
package, waiting for another apt (the other test worker's install) rather than failing on its lock."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Callable

INSTALL_SECONDS = 900.0  # apt-get update and an install: a minute or two here

_installing = threading.Lock()
_failed: dict[str, str] = {}  # why the one install this process tried of a package failed


def install(package: str, found: Callable[[], bool], *, recommends: bool = False) -> str | None:
    """Install ``package`` unless ``found()`` says it is there; None when it is there afterwards, else why
    not (one line). ``recommends``: with the packages Debian recommends beside it."""
    with _installing:
        if found():
            return None
        if package in _failed:
            return _failed[package]
        _failed[package] = _apt_get(package, recommends) or (
            "" if found() else f"apt-get installed no {package}"
        )
        if not _failed[package]:
            del _failed[package]
            return None
        return _failed[package]


def _apt_get(package: str, recommends: bool) -> str | None:
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        return f"no {package} here, and no apt-get as root to install it"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    wait = ["-o", "DPkg::Lock::Timeout=600"]
    options = [] if recommends else ["--no-install-recommends"]
    steps = {
        "update": [apt, *wait, "update", "-qq"],
        "install": [apt, *wait, "install", "-y", "-qq", *options, package],
    }
    for step, command in steps.items():
        try:
            done = subprocess.run(command, env=env, capture_output=True, timeout=INSTALL_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired) as err:
            return f"apt-get {step}: {err}"
        if done.returncode != 0:
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
            return f"apt-get {step} failed: {tail[0][:200]}"
    return None
