"""Fixtures for the browser tests: a seeded `sotto serve` on a free port and headless Chromium.

The sotto binary comes from $SOTTO_BIN, else .build/release/sotto, else .build/debug/sotto.
"""

import contextlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

import langid
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

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

    def post(self, path, token, body):
        request = urllib.request.Request(self.base_url + path, data=json.dumps(body).encode(), method="POST")
        request.add_header("Authorization", "Bearer " + token)
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())


def start_server(extra=(), env_overrides=None, seed=True, link_models=True):
    """A fresh `sotto serve` (its own store and secret, the user's models unless not
    `link_models`) on a free port."""
    binary = sotto_binary()
    home = tempfile.mkdtemp(prefix="sotto-browser-")
    env = dict(os.environ, SOTTO_HOME=home)
    env.pop("SOTTO_SECRET", None)
    env.update(env_overrides or {})
    # The store and secret are fresh, but the models are the user's: the default run drafts
    # suggestions with the real default model when it is downloaded.
    models = pathlib.Path(os.environ.get("SOTTO_HOME") or pathlib.Path.home() / ".sotto") / "models"
    if models.is_dir() and link_models:
        os.symlink(models, pathlib.Path(home) / "models")
    if seed:
        subprocess.run([binary, "seed", "demo"], env=env, check=True, capture_output=True)
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
    return Server(binary, home, env, process, base_url)


def sign_in_with_token(driver, server, token, before=None):
    """Signs the browser in with a token ("Sign in with a token" on the sign-in page), after
    dropping the session cookie it may hold (cookies are per host, not per port: every test
    server on loopback sees it). `before` runs on the page first (to clear localStorage)."""
    driver.get(server.base_url + "/")
    driver.delete_all_cookies()
    if before:
        before(driver)
    driver.get(server.base_url + "/")
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "signin").is_displayed())
    details = driver.find_element(By.ID, "token-signin")
    if not details.get_attribute("open"):
        details.find_element(By.TAG_NAME, "summary").click()
    driver.find_element(By.ID, "token-input").send_keys(token)
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()


def start_model_server():
    """`start_server()` for the tests that need the real model: fails, naming what to do, without one."""
    server = start_server()
    if not server.get("/api/health")["suggestions"]:
        stop_server(server)
        pytest.fail("no model: these tests need one (scripts/test pulls qwen2.5-coder-0.5b; set SOTTO_MODEL)")
    return server


@pytest.fixture(scope="module")
def downloads():
    """A folder the module's browser saves downloads into."""
    return tempfile.mkdtemp(prefix="sotto-downloads-")


@contextlib.contextmanager
def server_reaching_another(remote_extra, local_extra):
    """A `sotto serve` whose model features reach another one (started with `remote_extra`,
    no demo data) through its OpenAI-compatible API, with a key of the other's secret in a file:
    `local_extra(v1_url, key_path)` gives the first one's options. Yields (local, remote, driver)
    and stops all three."""
    remote = start_server(remote_extra, seed=False)
    with tempfile.NamedTemporaryFile("w", suffix=".key", delete=False) as key:
        key.write(remote.token("remote"))
    local = start_server(local_extra(remote.base_url.rstrip("/") + "/v1", key.name))
    driver = make_driver()
    try:
        yield local, remote, driver
    finally:
        driver.quit()
        stop_server(local)
        stop_server(remote)
        os.unlink(key.name)


def stop_server(server):
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
    shutil.rmtree(server.home, ignore_errors=True)  # removes the models link, not the models


@pytest.fixture(scope="module", params=["default", "canned"])
def server(request):
    """`sotto serve` as configured (suggestions from the default model, if any), and with the
    canned stand-in suggester so the chips path always runs."""
    started = start_server(["--canned-suggestions"] if request.param == "canned" else [])
    yield started
    stop_server(started)


def language_of(text, label):
    """The language langid reads in `text` (among the languages the tests translate into), noted
    in the report under `label`."""
    langid.set_languages(["en", "fr", "es", "de", "it", "pt", "nl"])
    language, _ = langid.classify(text)
    REPORT.append(f"{label}: {text!r} (langid: {language})")
    return language


def make_driver(downloads=None, arguments=()):
    """Headless Chromium; `arguments` adds switches (a fake microphone playing a file)."""
    options = webdriver.ChromeOptions()
    if downloads:
        options.add_experimental_option("prefs", {"download.default_directory": downloads,
                                                  "download.prompt_for_download": False})
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1200,900", *arguments):
        options.add_argument(argument)
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    if downloads:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return driver


def js_errors(driver):
    """The page's uncaught JavaScript errors since the last call (not failed requests: a 404 the
    page expects is logged too)."""
    return [entry["message"] for entry in driver.get_log("browser")
            if entry.get("level") == "SEVERE" and entry.get("source") == "javascript"]


# Lines the tests report (timings, what the model wrote), printed at the end of the run.
REPORT = []


def pytest_terminal_summary(terminalreporter):
    if REPORT:
        terminalreporter.section("browser test report")
        for line in REPORT:
            terminalreporter.write_line(line)


def quit_all(drivers):
    """Quits each browser of `drivers` (by name); returns the uncaught JavaScript errors each
    page threw, by name."""
    errors = {name: js_errors(driver) for name, driver in drivers.items()}
    for driver in drivers.values():
        driver.quit()
    return errors


@pytest.fixture(scope="module")
def browsers():
    drivers = {"alice": make_driver(), "bob": make_driver()}
    yield drivers
    errors = quit_all(drivers)
    assert not any(errors.values()), f"the page threw: {errors}"
