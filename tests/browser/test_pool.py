"""A pool beside the local model in the web app: a server on its own model with a pool of one
`sotto serve --inference-only` (on loopback) drafts its chips on whichever has room, and the page
says that what the features read may be sent to the pool's servers."""

import os

from selenium.webdriver.common.by import By

from conftest import server_reaching_another
from sidebar import screenshot
from test_chat import SUGGESTION_TIMEOUT, chips, chips_ready, sign_in_and_open, suggestion_region, wait

MODEL = os.environ.get("SOTTO_MODEL") or "qwen2.5-coder-0.5b"
POOL_MODEL = "smollm2-135m"


def test_a_pool_beside_the_local_model_says_where_what_is_read_may_go():
    options = lambda url, key: ["--model", MODEL, "--pool-urls", url, "--pool-model", POOL_MODEL,
                                "--pool-key-file", key]
    with server_reaching_another(["--inference-only", "--model", POOL_MODEL], options) as (local, _, driver):
        sign_in_and_open(driver, local, "alice", unread="1")  # Bob wrote last: chips are due
        wait(driver, chips_ready, SUGGESTION_TIMEOUT, "no suggestion chips from the pool")
        assert chips(driver)
        name = f"{MODEL} here and {POOL_MODEL} on a pool of 1 server"
        source = suggestion_region(driver).find_element(By.CLASS_NAME, "suggestions-model").text
        assert source == f"by {name}"
        status = driver.find_element(By.ID, "model-status").text
        assert f"The AI features run on {name}, wherever there is room: what they read may be sent to those servers." in status
        screenshot(driver, "pool", "beside-local")
