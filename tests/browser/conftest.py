"""Fixtures for the browser tests: a seeded `sotto serve` on a free port and headless Chromium.

The sotto binary comes from $SOTTO_BIN, else .build/release/sotto, else .build/debug/sotto.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]


def sotto_binary():
    candidates = [os.environ.get("SOTTO_BIN")] + [str(ROOT / ".build" / c / "sotto") for c in ("release", "debug")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail("no sotto binary: build it (swift build) or set SOTTO_BIN")


class Server:
    def __init__(self, binary, home, env, process, base_url):
        self.binary, self.home, self.env, self.process, self.base_url = binary, home, env, process, base_url

    def token(self, user, expires_in="1h"):
        return subprocess.run([self.binary, "token", user, "--expires-in", expires_in], env=self.env,
                              check=True, capture_output=True, text=True).stdout.strip()

    def get(self, path, token=None):
        request = urllib.request.Request(self.base_url + path)
        if token:
            request.add_header("Authorization", "Bearer " + token)
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())


@pytest.fixture(scope="module", params=["default", "canned"])
def server(request):
    """`sotto serve` as configured (suggestions from the default model, if any), and with the
    canned stand-in suggester so the chips path always runs."""
    binary = sotto_binary()
    home = tempfile.mkdtemp(prefix="sotto-browser-")
    env = dict(os.environ, SOTTO_HOME=home)
    env.pop("SOTTO_SECRET", None)
    # The store and secret are fresh, but the models are the user's: the default run drafts
    # suggestions with the real default model when it is downloaded.
    models = pathlib.Path(os.environ.get("SOTTO_HOME") or pathlib.Path.home() / ".sotto") / "models"
    if models.is_dir():
        os.symlink(models, pathlib.Path(home) / "models")
    subprocess.run([binary, "seed", "demo"], env=env, check=True, capture_output=True)
    extra = ["--canned-suggestions"] if request.param == "canned" else []
    process = subprocess.Popen([binary, "serve", "--port", "0", *extra], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    base_url = None
    deadline = time.time() + 120  # a model may load first
    while time.time() < deadline and base_url is None:
        line = process.stdout.readline()
        if not line:
            break
        match = re.search(r"listening on (http://\S+)", line)
        if match:
            base_url = match.group(1)
    if base_url is None:
        process.kill()
        pytest.fail("sotto serve did not report its address")
    yield Server(binary, home, env, process, base_url)
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    shutil.rmtree(home, ignore_errors=True)  # removes the models link, not the models


def make_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1200,900"):
        options.add_argument(argument)
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


@pytest.fixture(scope="module")
def browsers():
    drivers = {"alice": make_driver(), "bob": make_driver()}
    yield drivers
    for driver in drivers.values():
        driver.quit()
