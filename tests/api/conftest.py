"""Fixtures for the OpenAI-compatible API tests: a `sotto serve` with the 0.5B model on a free
loopback port, a Sotto token as the API key, and the official `openai` client pointed at it.

The sotto binary comes from $SOTTO_BIN, else .build/release/sotto, else .build/debug/sotto; the
model from $SOTTO_MODEL, else qwen2.5-coder-0.5b, found in $SOTTO_HOME (else ~/.sotto).
"""

import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import threading
import time

import openai
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL = os.environ.get("SOTTO_MODEL") or "qwen2.5-coder-0.5b"


def sotto_binary():
    candidates = [os.environ.get("SOTTO_BIN")] + [str(ROOT / ".build" / c / "sotto") for c in ("release", "debug")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail("no sotto binary: build it (swift build -c release) or set SOTTO_BIN")


class Server:
    def __init__(self, binary, home, env, process, base_url):
        self.binary, self.home, self.env, self.process, self.base_url = binary, home, env, process, base_url

    def token(self, user="alice"):
        return subprocess.run([self.binary, "token", user, "--expires-in", "1h"], env=self.env, check=True,
                              capture_output=True, text=True).stdout.strip()

    def client(self, key=None, **options):
        return openai.OpenAI(base_url=self.base_url + "/v1", api_key=key or self.token(), max_retries=0,
                             timeout=options.pop("timeout", 120), **options)


def start_server(extra=(), model=MODEL):
    """A fresh `sotto serve` (its own store and secret, the user's models) on a free port, with
    `model` ("off": none)."""
    binary = sotto_binary()
    home = tempfile.mkdtemp(prefix="sotto-api-")
    env = dict(os.environ, SOTTO_HOME=home)
    env.pop("SOTTO_SECRET", None)
    env.pop("SOTTO_MODEL", None)
    models = pathlib.Path(os.environ.get("SOTTO_HOME") or pathlib.Path.home() / ".sotto") / "models"
    if not (models / f"{MODEL}").exists() and not any(models.glob(f"{MODEL}*")):
        pytest.fail(f"the model {MODEL} is not downloaded in {models}: run `sotto model pull {MODEL}`")
    os.symlink(models, pathlib.Path(home) / "models")
    if (models.parent / "cache").is_dir():  # the packed-weights cache: no repacking on load
        os.symlink(models.parent / "cache", pathlib.Path(home) / "cache")
    subprocess.run([binary, "seed", "demo"], env=env, check=True, capture_output=True)
    process = subprocess.Popen([binary, "serve", "--port", "0", "--model", model, *extra], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base_url, lines = None, []
    deadline = time.time() + 120
    while time.time() < deadline and base_url is None:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        match = re.search(r"listening on (http://\S+)", line)
        if match:
            base_url = match.group(1).rstrip("/")
    if base_url is None:
        process.kill()
        pytest.fail("sotto serve did not report its address:\n" + "".join(lines))
    server = Server(binary, home, env, process, base_url)
    # The start-up lines after the address (reply suggestions, fallback model, …); the rest is
    # read and dropped, so the server never blocks on a full pipe.
    server.startup = [process.stdout.readline() for _ in range(3)]
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    return server


def stop_server(server):
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
    shutil.rmtree(server.home, ignore_errors=True)  # removes the models link, not the models


@pytest.fixture(scope="session")
def server():
    started = start_server()
    yield started
    stop_server(started)


@pytest.fixture(scope="session")
def client(server):
    return server.client()
