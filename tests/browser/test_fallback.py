"""The hybrid fallback in the web app: a server whose local model is off drafts its reply chips
with another `sotto serve`'s model (through the OpenAI-compatible API, on loopback), and the
chips say which model wrote them."""

import os
import tempfile

from selenium.webdriver.common.by import By

from conftest import make_driver, start_server, stop_server
from test_chat import SUGGESTION_TIMEOUT, chips, chips_ready, sign_in_and_open, suggestion_region, wait

MODEL = os.environ.get("SOTTO_MODEL") or "qwen2.5-coder-0.5b"


def test_chips_come_from_the_fallback_and_say_so():
    remote = start_server(["--model", MODEL], seed=False)
    with tempfile.NamedTemporaryFile("w", suffix=".key", delete=False) as key:
        key.write(remote.token("fallback"))
    local = start_server(["--model", "off", "--fallback-url", remote.base_url.rstrip("/") + "/v1",
                          "--fallback-model", MODEL, "--fallback-key-file", key.name])
    driver = make_driver()
    try:
        sign_in_and_open(driver, local, "alice", unread="1")  # Bob wrote last: chips are due
        wait(driver, chips_ready, SUGGESTION_TIMEOUT, "no suggestion chips from the fallback model")
        assert chips(driver)
        source = suggestion_region(driver).find_element(By.CLASS_NAME, "suggestions-model").text
        assert source == f"by {MODEL} at {remote.base_url.rstrip('/')}/v1"
    finally:
        driver.quit()
        stop_server(local)
        stop_server(remote)
        os.unlink(key.name)
