"""Dictation in a real browser: Chromium's fake microphone plays a spoken clip (the speech
engine's fixture, "The quick brown fox jumps over the lazy dog.", with silence around it), the
page records it through its AudioWorklet and the server's Whisper (whisper-base) transcribes it.
Pressing the microphone and pressing it again puts the words into the composer after what was
typed and sends nothing; with "Send when I stop talking" the pause after the sentence sends it;
the assistant's composer dictates too; a server without a speech model, and a refused microphone,
disable the button and say why, and the draft stays as typed. Screenshots go to $SOTTO_SCREENSHOT_DIR (default a temporary folder), named voice-*.
"""

import os
import pathlib
import tempfile
import time
import wave

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import REPORT, ROOT, js_errors, make_driver, sign_in_with_token, start_server, stop_server

TIMEOUT = 15
# The speech model loads at the first transcription, on a busy machine.
TRANSCRIBE_TIMEOUT = float(os.environ.get("SOTTO_TRANSCRIBE_TIMEOUT", "180"))
CLIP = ROOT / "Tests" / "WhisperTests" / "Fixtures" / "fox.wav"
SCREENSHOTS = pathlib.Path(os.environ.get("SOTTO_SCREENSHOT_DIR") or tempfile.mkdtemp(prefix="sotto-voice-"))
WEB_ROOT = os.environ.get("SOTTO_WEB_ROOT") or str(ROOT / "Sources" / "Server" / "Web")


def spoken_clip():
    """The fixture with 0.5 s of silence before and 4 s after (Chromium loops the file: the
    pause after the sentence is long enough to end it, and to stop in)."""
    with wave.open(str(CLIP), "rb") as source:
        rate, width, channels = source.getframerate(), source.getsampwidth(), source.getnchannels()
        frames = source.readframes(source.getnframes())
    silence = lambda seconds: b"\0" * int(rate * seconds) * width * channels  # noqa: E731
    path = pathlib.Path(tempfile.mkdtemp(prefix="sotto-voice-clip-")) / "dictation.wav"
    with wave.open(str(path), "wb") as clip:
        clip.setframerate(rate)
        clip.setsampwidth(width)
        clip.setnchannels(channels)
        clip.writeframes(silence(0.5) + frames + silence(4.0))
    return path


def wait(driver, condition, timeout=TIMEOUT, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d), message)


def shot(driver, name):
    path = SCREENSHOTS / f"voice-{name}.png"
    driver.save_screenshot(str(path))
    REPORT.append(f"screenshot: {path}")


def sign_in(driver, server, user):
    sign_in_with_token(driver, server, server.token(user))
    wait(driver, lambda d: d.find_element(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]")).click()
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#message-list .message")) >= 8, message="no history")


def composer_parts(driver, form):
    bar = form.find_element(By.XPATH, "following-sibling::div[contains(@class,'voice-bar')][1]")
    return form.find_element(By.CSS_SELECTOR, "button.mic"), bar


def status_text(bar):
    return bar.find_element(By.CSS_SELECTOR, ".voice-status").text


def message_texts(driver):
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, "#message-list .message .text")]


def normalized(text):
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())


SENTENCE_WORDS = {"quick", "brown", "fox", "jumps", "over", "lazy", "dog"}


def heard(text):
    """Whether the text is the fixture's sentence, give or take a word: Chromium's fake capture
    starts at a slightly different point each run, and Whisper once heard "quick round fox"."""
    return len(SENTENCE_WORDS & set(normalized(text).split())) >= 5


@pytest.fixture(scope="module")
def server():
    started = start_server(["--speech-model", "whisper-base"],
                           env_overrides={"SOTTO_MODEL": "off", "SOTTO_WEB_ROOT": WEB_ROOT})
    yield started
    stop_server(started)


@pytest.fixture(scope="module")
def browser():
    driver = make_driver(arguments=("--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                                    f"--use-file-for-fake-audio-capture={spoken_clip()}"))
    yield driver
    errors = js_errors(driver)
    driver.quit()
    assert not errors, f"the page threw: {errors}"


def test_dictation_fills_the_composer_and_sends_nothing(server, browser):
    sign_in(browser, server, "alice")
    form = browser.find_element(By.ID, "composer")
    mic, bar = composer_parts(browser, form)
    assert mic.is_enabled() and mic.get_attribute("aria-label") == "Dictate"
    assert "Send when I stop talking" in bar.text
    textarea = browser.find_element(By.ID, "message-input")
    textarea.send_keys("Typed first:")
    shot(browser, "1-idle")
    before = message_texts(browser)

    mic.click()
    wait(browser, lambda d: status_text(bar).startswith("Listening"), message="not listening")
    assert mic.get_attribute("aria-pressed") == "true"
    # The level meter moves while the sentence plays (0.5 s to about 4 s of the clip).
    wait(browser, lambda d: float(bar.find_element(By.CSS_SELECTOR, ".voice-level-fill").value_of_css_property("width")[:-2]) > 0,
         message="the level meter did not move")
    shot(browser, "2-listening")
    wait(browser, lambda d: status_text(bar).startswith("Listening 0:05"), 10, "the timer did not reach 5 s")
    mic.click()  # stop, in the silence after the sentence
    wait(browser, lambda d: status_text(bar) == "Transcribing…", message="not transcribing")
    shot(browser, "3-transcribing")
    started = time.time()
    wait(browser, lambda d: heard(textarea.get_attribute("value")), TRANSCRIBE_TIMEOUT,
         f"no transcript (status: {status_text(bar)!r})")
    REPORT.append(f"dictation: {textarea.get_attribute('value')!r} ({time.time() - started:.1f} s after stop)")
    value = textarea.get_attribute("value")
    assert value.startswith("Typed first: ")
    assert heard(value.removeprefix("Typed first: ")), value
    assert mic.get_attribute("aria-pressed") == "false" and status_text(bar) == ""
    shot(browser, "4-inserted")
    time.sleep(1)
    assert message_texts(browser) == before  # nothing was sent
    # The draft is the composer's own: Send sends it as written.
    browser.find_element(By.XPATH, "//form[@id='composer']//button[normalize-space()='Send']").click()
    wait(browser, lambda d: message_texts(d)[-1] == value, message="the dictated draft was not sent by Send")


def test_send_when_i_stop_talking(server, browser):
    form = browser.find_element(By.ID, "composer")
    mic, bar = composer_parts(browser, form)
    toggle = bar.find_element(By.CSS_SELECTOR, "input[type='checkbox']")
    toggle.click()
    assert toggle.is_selected()
    before = len(message_texts(browser))
    mic.click()
    wait(browser, lambda d: "sends when you stop talking" in status_text(bar), 10, "no speech heard")
    shot(browser, "5-auto-send-listening")
    # Nobody presses anything: the pause after the sentence stops it, and the words are sent.
    wait(browser, lambda d: len(message_texts(d)) > before, TRANSCRIBE_TIMEOUT,
         f"nothing was sent (status: {status_text(bar)!r})")
    sent = message_texts(browser)[-1]
    REPORT.append(f"auto-sent: {sent!r}")
    assert heard(sent), sent
    assert browser.find_element(By.ID, "message-input").get_attribute("value") == ""
    shot(browser, "6-auto-sent")
    # The toggle is remembered in this browser.
    browser.refresh()
    wait(browser, lambda d: d.find_element(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]")).click()
    _, bar = composer_parts(browser, browser.find_element(By.ID, "composer"))
    assert bar.find_element(By.CSS_SELECTOR, "input[type='checkbox']").is_selected()
    bar.find_element(By.CSS_SELECTOR, "input[type='checkbox']").click()  # off again for the next test


def test_the_assistant_composer_dictates(server, browser):
    browser.find_element(By.ID, "assistant-nav").click()
    root = browser.find_element(By.ID, "assistant")
    wait(browser, lambda d: root.is_displayed())
    root.find_element(By.XPATH, ".//button[normalize-space()='New chat']").click()
    form = root.find_element(By.CSS_SELECTOR, "form[data-part='composer']")
    mic, bar = composer_parts(browser, form)
    wait(browser, lambda d: mic.is_enabled(), message="no microphone in the assistant's composer")
    mic.click()
    wait(browser, lambda d: status_text(bar).startswith("Listening 0:05"), 15, "not listening")
    mic.click()
    textarea = root.find_element(By.CSS_SELECTOR, "textarea[data-part='input']")
    wait(browser, lambda d: heard(textarea.get_attribute("value")), TRANSCRIBE_TIMEOUT, "no transcript")
    assert root.find_elements(By.CSS_SELECTOR, "[data-part='messages'] li") == []  # nothing sent
    shot(browser, "7-assistant")


def test_without_a_speech_model_the_button_says_why():
    server = start_server(["--speech-model", "off"], env_overrides={"SOTTO_MODEL": "off", "SOTTO_WEB_ROOT": WEB_ROOT})
    driver = make_driver(arguments=("--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"))
    try:
        speech = server.get("/api/me", server.token("bob"))["speech"]
        assert speech == {"available": False, "message": "speech to text is turned off on this server"}
        sign_in(driver, server, "bob")
        mic, bar = composer_parts(driver, driver.find_element(By.ID, "composer"))
        assert not mic.is_enabled()
        assert mic.get_attribute("title") == "Dictation is unavailable: speech to text is turned off on this server."
        assert not bar.is_displayed()
        shot(driver, "8-no-speech-model")
        assert not js_errors(driver)
    finally:
        driver.quit()
        stop_server(server)


def test_a_refused_microphone_says_so_and_keeps_the_draft(server):
    # Without --use-fake-ui-for-media-stream nobody answers the permission prompt: refused.
    driver = make_driver(arguments=("--use-fake-device-for-media-stream", "--deny-permission-prompts"))
    try:
        sign_in(driver, server, "alice")
        mic, bar = composer_parts(driver, driver.find_element(By.ID, "composer"))
        textarea = driver.find_element(By.ID, "message-input")
        textarea.send_keys("kept as typed")
        mic.click()
        wait(driver, lambda d: "blocked" in status_text(bar), message=f"no error (status: {status_text(bar)!r})")
        REPORT.append(f"refused microphone: {status_text(bar)!r}")
        assert not mic.is_enabled() and "blocked" in mic.get_attribute("title")
        assert textarea.get_attribute("value") == "kept as typed"
        shot(driver, "9-refused")
        assert not js_errors(driver)
    finally:
        driver.quit()
