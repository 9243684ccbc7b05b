"""The hybrid fallback in the web app: a server whose local model is off drafts its reply chips,
runs its writing tools and translates with another `sotto serve`'s model (through the
OpenAI-compatible API, on loopback), and each result says which model wrote it."""

import os

from selenium.webdriver.common.by import By

from conftest import server_reaching_another
from test_chat import SUGGESTION_TIMEOUT, chips, chips_ready, sign_in_and_open, suggestion_region, wait
from test_model_features import button, by_label, message_with, region

MODEL = os.environ.get("SOTTO_MODEL") or "qwen2.5-coder-0.5b"


def test_chips_come_from_the_fallback_and_say_so():
    options = lambda url, key: ["--model", "off", "--fallback-url", url, "--fallback-model", MODEL,
                                "--fallback-key-file", key]
    with server_reaching_another(["--model", MODEL], options) as (local, remote, driver):
        sign_in_and_open(driver, local, "alice", unread="1")  # Bob wrote last: chips are due
        wait(driver, chips_ready, SUGGESTION_TIMEOUT, "no suggestion chips from the fallback model")
        assert chips(driver)
        label = f"by {MODEL} at {remote.base_url.rstrip('/')}/v1"
        source = suggestion_region(driver).find_element(By.CLASS_NAME, "suggestions-model").text
        assert source == label
        # The page says the features run elsewhere, and the other features work and say so too.
        assert f"the AI features use the fallback {label[3:]}" in driver.find_element(By.ID, "model-status").text

        composer = by_label(driver, "Message")
        driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
                              composer, "see you tomorow at the stasion")
        button(region(driver, "Writing tools"), "Proofread").click()
        preview = region(driver, "Writing tools preview")
        wait(driver, lambda d: preview.get_attribute("data-status") == "done", SUGGESTION_TIMEOUT,
             "Proofread did not finish on the fallback")
        assert preview.find_element(By.CSS_SELECTOR, ".preview-text").text.strip()
        assert preview.find_element(By.CSS_SELECTOR, ".preview-status .model-source").text == label
        button(preview, "Dismiss").click()

        item = wait(driver, lambda d: message_with(d, "Perfect. I'll bring snacks and extra water."))
        button(item, "Translate").click()
        box = wait(driver, lambda d: item.find_element(By.CSS_SELECTOR, ".translation[data-status='done']"),
                   SUGGESTION_TIMEOUT, "no translation from the fallback")
        assert box.find_element(By.CSS_SELECTOR, ".translation-text").text.strip()
        assert box.find_element(By.CSS_SELECTOR, ".model-source").text == label
