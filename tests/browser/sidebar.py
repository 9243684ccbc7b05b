"""What the chat's browser tests share: a wait that takes a redrawn element as "not yet",
screenshots to /tmp, and the sidebar's channels and badges."""

import pathlib

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import REPORT

TIMEOUT = 15


def wait(driver, condition, timeout=TIMEOUT, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: condition(d), message)


def screenshot(driver, prefix, name):
    path = pathlib.Path("/tmp") / f"{prefix}-{name}.png"
    driver.save_screenshot(str(path))
    REPORT.append(f"screenshot {path}")


def sidebar_names(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#channel-list button .channel-name')].map((node) => node.textContent)")


def sidebar_button(driver, name):
    for node in driver.find_elements(By.CSS_SELECTOR, "#channel-list button"):
        if node.find_element(By.CSS_SELECTOR, ".channel-name").text == name:
            return node
    return None


def badge(driver, name, selector):
    """The text of a channel's badge in the sidebar ('' when it has none)."""
    found = sidebar_button(driver, name)
    marks = found.find_elements(By.CSS_SELECTOR, selector) if found else []
    return marks[0].text if marks else ""


def open_channel(driver, name):
    wait(driver, lambda d: sidebar_button(d, name), message=f"{name!r} is not in the list: {sidebar_names(driver)}").click()
    wait(driver, lambda d: d.find_element(By.ID, "channel-title").text == name, message=f"{name!r} did not open")
