"""Image Playground in a real browser: `sotto serve --image-url … --image-model fake-diffusion`
in front of a fake OpenAI-compatible image endpoint made here (http.server on loopback, answering
POST /v1/images/generations with a small PNG as `b64_json` and keeping each request's body). The
assistant's composer has an image button naming the model; making an image puts a thumbnail
labelled "Made by fake-diffusion" among the images waiting to be sent, after the endpoint got the
description, `response_format: b64_json` and the model; sent, the image shows in its message
with the label (after a reload too); an endpoint answering 500 says so where attach errors are
and keeps the description; a server without --image-url has no image button.
One server and one page for the first four tests, in order. The real model (SOTTO_MODEL, else
qwen2.5-coder-0.5b) answers the message. Screenshots go to $SOTTO_SCREENSHOT_DIR (default a
temporary folder), named images-*.
"""

import base64
import json
import os
import pathlib
import struct
import tempfile
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import REPORT, ROOT, js_errors, make_driver, sign_in_with_token, start_server, stop_server

MODEL = os.environ.get("SOTTO_MODEL") or "qwen2.5-coder-0.5b"
IMAGE_MODEL = "fake-diffusion"
IMAGE_KEY = "image-server-key-for-the-test"
TIMEOUT = 15
MODEL_TIMEOUT = float(os.environ.get("SOTTO_SUGGESTION_TIMEOUT", "300"))
SCREENSHOTS = pathlib.Path(os.environ.get("SOTTO_SCREENSHOT_DIR") or tempfile.mkdtemp(prefix="sotto-images-"))
WEB_ROOT = os.environ.get("SOTTO_WEB_ROOT") or str(ROOT / "Sources" / "Server" / "Web")
PROMPT = "a lighthouse at dusk, watercolour"


def png(width=96, height=96):
    """A small valid PNG (8-bit RGB, made with zlib and struct): a dusk sky over the sea, and a
    lighthouse."""
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter: none
        for x in range(width):
            if 44 <= x < 52 and 30 <= y < 70:
                pixel = (240, 240, 235) if (y // 8) % 2 else (200, 40, 40)  # the tower's bands
            elif y < 60:
                pixel = (70 + y * 2, 60 + y, 140 - y)  # sky, purple to orange
            else:
                pixel = (20, 60 + (y - 60), 110 + (y - 60))  # sea
            row.extend(pixel)
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows)))
            + chunk(b"IEND", b""))


class ImageEndpoint:
    """A fake OpenAI-compatible image server on a free loopback port: it keeps each request
    (path, Authorization header, JSON body) and answers as `mode` says (`ok`: a PNG as b64_json;
    `fail`: a 500), after `delay` seconds."""

    def __init__(self):
        self.requests, self.mode, self.delay = [], "ok", 0.0
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    parsed = json.loads(body)
                except ValueError:
                    parsed = None
                endpoint.requests.append({"path": self.path, "authorization": self.headers.get("Authorization"),
                                          "body": parsed})
                time.sleep(endpoint.delay)
                if self.path != "/v1/images/generations":
                    self.answer(404, {"error": {"message": "no such route"}})
                elif endpoint.mode == "fail":
                    self.answer(500, {"error": {"message": "out of GPU memory", "type": "server_error"}})
                else:
                    self.answer(200, {"created": int(time.time()),
                                      "data": [{"b64_json": base64.b64encode(png()).decode()}]})

            def answer(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        self.url = f"http://{self.address}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def wait(driver, condition, timeout=TIMEOUT, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,)
                         ).until(lambda d: condition(d), message)


def shot(driver, name):
    path = SCREENSHOTS / f"images-{name}.png"
    driver.save_screenshot(str(path))
    REPORT.append(f"screenshot: {path}")


def part(driver, name):
    return driver.find_element(By.CSS_SELECTOR, f"#assistant [data-part='{name}']")


def image_button(driver):
    """The composer's image button, or None when there is none shown."""
    found = [one for one in driver.find_elements(By.CSS_SELECTOR, "#assistant form[data-part='composer'] button")
             if one.get_attribute("aria-label") == "Make image" and one.is_displayed()]
    return found[0] if found else None


def prompt_row(driver):
    return driver.find_element(By.CSS_SELECTOR, "#assistant [role='group'][aria-label='Make an image']")


def prompt_field(driver):
    label = driver.find_element(By.XPATH, "//section[@id='assistant']//label[normalize-space(.)='Describe the image']")
    return driver.find_element(By.ID, label.get_attribute("for"))


def pending(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#assistant [data-part='pending'] li.pending-image")


def image_loaded(driver, image):
    return driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image)


def notice_text(driver):
    alerts = driver.find_elements(By.CSS_SELECTOR, "#assistant [data-part='notice'] [role='alert']")
    return alerts[0].text if alerts else ""


def set_draft(driver, text):
    box = part(driver, "input")
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));", box, text)


def visible(element):
    return element if element.is_displayed() else False


def sign_in_to_a_new_chat(driver, server, user, with_model=True):
    """Signs `user` in, opens the assistant and starts a new chat (its composer ready to type in
    when the server has a model)."""
    sign_in_with_token(driver, server, server.token(user), before=lambda d: d.execute_script("localStorage.clear()"))
    wait(driver, lambda d: visible(d.find_element(By.ID, "assistant-nav"))).click()
    wait(driver, lambda d: visible(part(d, "new"))).click()
    wait(driver, lambda d: part(d, "composer").is_displayed() and (part(d, "input").is_enabled() or not with_model),
         MODEL_TIMEOUT, "the assistant's composer did not open")


@pytest.fixture(scope="module")
def endpoint():
    started = ImageEndpoint()
    yield started
    started.close()


@pytest.fixture(scope="module")
def server(endpoint):
    with tempfile.NamedTemporaryFile("w", suffix=".key", delete=False) as key:
        key.write(IMAGE_KEY + "\n")
    started = start_server(["--model", MODEL, "--image-url", endpoint.url, "--image-model", IMAGE_MODEL,
                            "--image-key-file", key.name], env_overrides={"SOTTO_WEB_ROOT": WEB_ROOT})
    yield started
    stop_server(started)
    os.unlink(key.name)


@pytest.fixture(scope="module")
def page(server):
    driver = make_driver()
    sign_in_to_a_new_chat(driver, server, "alice")
    yield driver
    errors = js_errors(driver)
    driver.quit()
    assert not errors, f"the page threw: {errors}"


def test_the_image_button_is_there_and_names_the_model(page, server):
    images = server.get("/api/me", server.token("alice"))["images"]
    assert images["available"] is True and images["model"] == IMAGE_MODEL, images
    button = wait(page, image_button, message="no image button in the assistant's composer")
    assert button.is_enabled()
    assert button.get_attribute("title") == f"Make an image with {IMAGE_MODEL} (sent to the configured image server)"
    assert button.get_attribute("aria-expanded") == "false"
    # Beside "Attach image", before the microphone and Send.
    labels = [one.get_attribute("aria-label") or one.text.strip()
              for one in part(page, "composer").find_elements(By.CSS_SELECTOR, "button") if one.is_displayed()]
    assert labels[labels.index("Attach image") + 1] == "Make image", labels
    assert not prompt_row(page).is_displayed()
    shot(page, "1-button")


def test_making_an_image_puts_it_in_the_composer_labelled(page, endpoint):
    set_draft(page, PROMPT)
    image_button(page).click()
    row = prompt_row(page)
    wait(page, lambda d: row.is_displayed(), message="the prompt row did not open")
    field = prompt_field(page)
    assert field.get_attribute("value") == PROMPT  # the composer's text
    assert Select(row.find_element(By.TAG_NAME, "select")).first_selected_option.get_attribute("value") == "512x512"
    assert page.switch_to.active_element == field
    shot(page, "2-prompt-row")

    endpoint.delay = 2.0  # long enough to see it being made
    before = len(endpoint.requests)
    row.find_element(By.XPATH, ".//button[normalize-space()='Make']").click()
    status = row.find_element(By.CSS_SELECTOR, "[role='status']")
    wait(page, lambda d: status.text == f"Making an image with {IMAGE_MODEL}…", 5, "no progress shown")
    button = page.find_element(By.CSS_SELECTOR, "#assistant button.make-image")
    assert not button.is_enabled()
    assert not row.find_element(By.XPATH, ".//button[normalize-space()='Make']").is_enabled()
    shot(page, "3-making")

    wait(page, lambda d: len(pending(d)) == 1, TIMEOUT, f"no image waits in the composer (notice: {notice_text(page)!r})")
    endpoint.delay = 0.0
    item = pending(page)[0]
    thumbnail = item.find_element(By.CSS_SELECTOR, "img.thumbnail")
    wait(page, lambda d: image_loaded(d, thumbnail), TIMEOUT, "the made image is not shown")
    assert page.execute_script("return arguments[0].naturalWidth", thumbnail) == 96
    assert item.find_element(By.CSS_SELECTOR, ".made-by").text == f"Made by {IMAGE_MODEL}"
    assert thumbnail.get_attribute("alt") == f"Image to send: {PROMPT}"
    assert item.find_element(By.XPATH, ".//button[normalize-space()='Remove']").is_displayed()

    # What the endpoint was asked: once, the description, the model, b64_json, the size, the key.
    assert len(endpoint.requests) == before + 1
    request = endpoint.requests[-1]
    REPORT.append(f"image endpoint request: {request['body']!r}")
    assert request["path"] == "/v1/images/generations"
    assert request["authorization"] == f"Bearer {IMAGE_KEY}"
    assert request["body"]["prompt"] == PROMPT
    assert request["body"]["model"] == IMAGE_MODEL
    assert request["body"]["response_format"] == "b64_json"
    assert request["body"]["size"] == "512x512"

    # The row closed, the button is back, the composer's text is as it was, nothing failed.
    assert not row.is_displayed()
    assert button.is_enabled()
    assert part(page, "input").get_attribute("value") == PROMPT
    assert page.switch_to.active_element == part(page, "input")  # back to the message
    assert notice_text(page) == ""
    shot(page, "4-thumbnail")


def test_sending_shows_the_image_with_its_label_in_the_conversation(page, server):
    part(page, "send").click()
    sent = "#assistant .assistant-message.role-user"
    wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, f"{sent} .message-images img.thumbnail"), TIMEOUT,
         "the sent message shows no image")
    message = page.find_elements(By.CSS_SELECTOR, sent)[-1]
    thumbnail = message.find_element(By.CSS_SELECTOR, ".message-images img.thumbnail")
    wait(page, lambda d: image_loaded(d, thumbnail), TIMEOUT, "the sent image is not shown")
    assert message.find_element(By.CSS_SELECTOR, ".message-images .made-by").text == f"Made by {IMAGE_MODEL}"
    assert message.find_element(By.CSS_SELECTOR, ".text").text == PROMPT
    assert pending(page) == []
    shot(page, "5-sent")

    # The server keeps who made it with the message.
    token = server.token("alice")
    conversation = server.get("/api/assistant/conversations", token)["conversations"][0]["id"]
    messages = server.get(f"/api/assistant/conversations/{conversation}", token)["messages"]
    images = [message for message in messages if message["role"] == "user"][-1]["images"]
    assert len(images) == 1 and images[0]["generated_by"] == IMAGE_MODEL, images

    # The model answers (the image goes to it as any attached image does), then a reload shows
    # the message with its image and label again.
    wait(page, lambda d: part(d, "send").text == "Send" and d.find_elements(
        By.CSS_SELECTOR, "#assistant .assistant-message.role-assistant:not(.streaming)"), MODEL_TIMEOUT, "no answer")
    page.refresh()
    wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, f"{sent} .message-images .made-by"), TIMEOUT,
         "the label is not shown after a reload")
    thumbnail = page.find_elements(By.CSS_SELECTOR, f"{sent} .message-images img.thumbnail")[-1]
    wait(page, lambda d: image_loaded(d, thumbnail), TIMEOUT, "the image is not shown after a reload")
    assert page.find_elements(By.CSS_SELECTOR, f"{sent} .made-by")[-1].text == f"Made by {IMAGE_MODEL}"


def test_an_endpoint_error_is_shown_and_the_description_stays(page, endpoint):
    endpoint.mode = "fail"
    try:
        set_draft(page, "")
        wait(page, image_button, message="no image button").click()
        field = prompt_field(page)
        wait(page, lambda d: field.is_displayed())
        field.clear()
        field.send_keys("a storm over the harbour, oil painting")
        Select(prompt_row(page).find_element(By.TAG_NAME, "select")).select_by_value("256x256")
        before = len(endpoint.requests)
        prompt_row(page).find_element(By.XPATH, ".//button[normalize-space()='Make']").click()
        wait(page, lambda d: notice_text(d), TIMEOUT, "no error shown")
        text = notice_text(page)
        REPORT.append(f"image endpoint error shown: {text!r}")
        assert "answered 500" in text and "out of GPU memory" in text, text
        assert endpoint.address not in text and "127.0.0.1" not in text  # the image server's address is not shown
        assert len(endpoint.requests) == before + 1
        assert endpoint.requests[-1]["body"]["size"] == "256x256"
        # Nothing lost: the row stays open with the description, nothing waits in the composer,
        # and the button can try again.
        assert prompt_row(page).is_displayed()
        assert prompt_field(page).get_attribute("value") == "a storm over the harbour, oil painting"
        assert pending(page) == []
        assert image_button(page).is_enabled()
        shot(page, "6-error")
    finally:
        endpoint.mode = "ok"


def test_without_an_image_server_there_is_no_image_button():
    server = start_server([], env_overrides={"SOTTO_MODEL": "off", "SOTTO_WEB_ROOT": WEB_ROOT})
    driver = make_driver()
    try:
        images = server.get("/api/me", server.token("bob"))["images"]
        assert images["available"] is False and not images.get("model"), images
        sign_in_to_a_new_chat(driver, server, "bob", with_model=False)
        assert part(driver, "attach").is_displayed()  # the composer is there, with its other buttons
        assert image_button(driver) is None
        assert not driver.find_elements(By.CSS_SELECTOR, "#assistant [aria-label='Make an image']:not([hidden])")
        shot(driver, "7-no-image-server")
        assert not js_errors(driver)
    finally:
        driver.quit()
        stop_server(server)
