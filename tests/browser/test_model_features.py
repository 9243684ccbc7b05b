"""The model features in a real browser with the real model (the 0.5B one under scripts/test):
writing tools, translation, thread summaries, the date action's .ics, the tone toggle,
streaming chips, search and search suggestions; and what the page says when the model is
turned off. One server and one signed-in page for the model tests, run in order.

Each test asserts what the user sees. Screenshots of the main screens go to
$SOTTO_SCREENSHOT_DIR (default: a temporary folder, printed in the report).
"""

import datetime
import os
import pathlib
import tempfile
import time
import zoneinfo

import icalendar
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import (REPORT, js_errors, language_of, make_driver, sign_in_with_token, start_model_server, start_server,
                      stop_server)

MODEL_TIMEOUT = float(os.environ.get("SOTTO_SUGGESTION_TIMEOUT", "300"))
TIMEOUT = 15
ZONE = "America/Denver"  # not the machine's zone: the .ics must carry the reader's local time
SCREENSHOTS = pathlib.Path(os.environ.get("SOTTO_SCREENSHOT_DIR") or tempfile.mkdtemp(prefix="sotto-screens-"))
# A draft with mistakes, facts to keep, and spacing that Dismiss must give back byte for byte.
DRAFT = "hey  team, i cant make the 3pm review on thursday becuase Dana moved the demo.\ncan we do friday at 10 instead?"
TOOLS = ["Proofread", "Rewrite", "Make friendly", "Make professional", "Make concise", "Summarize", "Key points"]


def wait(driver, condition, timeout=TIMEOUT, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d), message)


def by_label(driver, text):
    label = driver.find_element(By.XPATH, f"//label[normalize-space(.)='{text}']")
    return driver.find_element(By.ID, label.get_attribute("for"))


def button(scope, text):
    return scope.find_element(By.XPATH, f".//button[normalize-space(.)='{text}']")


def region(driver, name):
    return driver.find_element(By.CSS_SELECTOR, f"[aria-label='{name}']")


def messages(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#message-list .message")


def message_with(driver, text):
    for item in messages(driver):
        if item.find_element(By.CSS_SELECTOR, ".text").text == text:
            return item
    return None


def screenshot(driver, name):
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    REPORT.append(f"screenshot {path}")


def sign_in(driver, server, user):
    sign_in_with_token(driver, server, server.token(user))
    channel = wait(driver, lambda d: d.find_element(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]"))
    channel.click()
    wait(driver, lambda d: len(messages(d)) >= 8, message="history did not load")


@pytest.fixture(scope="module")
def model_server():
    server = start_model_server()
    yield server
    stop_server(server)


@pytest.fixture(scope="module")
def page(model_server, downloads):
    driver = make_driver(downloads)
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ZONE})
    sign_in(driver, model_server, "alice")
    yield driver
    errors = js_errors(driver)
    driver.quit()
    assert not errors, f"the page threw: {errors}"


def test_streaming_chips_and_tone(page):
    """Bob spoke last: chips stream in (a chip is shown before the set is complete), then the
    Formal toggle asks for the other tone and the chips change."""
    wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "[aria-label='Suggested replies'][data-status='ready'] .chip"),
         MODEL_TIMEOUT, "no chips")
    timings = page.execute_script("return window.sottoSuggestions.timings")
    first = timings[0]
    REPORT.append(f"chips (casual): first visible chip {first['firstChipMs']} ms, whole set {first['setMs']} ms, "
                  f"streamed={first['streamed']}")
    assert first["streamed"], "the chips did not stream: no chip was shown before the set was done"
    assert first["firstChipMs"] < first["setMs"]
    casual = [chip.text for chip in region(page, "Suggested replies").find_elements(By.CSS_SELECTOR, ".chip")]
    assert 1 <= len(casual) <= 3 and all(casual)
    assert region(page, "Suggested replies").get_attribute("data-tone") == "casual"
    screenshot(page, "chips-casual")

    toggle = page.find_element(By.XPATH, "//label[contains(@class,'tone-toggle')]/input")
    toggle.click()
    wait(page, lambda d: d.find_elements(
        By.CSS_SELECTOR, "[aria-label='Suggested replies'][data-status='ready'][data-tone='formal'] .chip"),
        MODEL_TIMEOUT, "no formal chips")
    formal = [chip.text for chip in region(page, "Suggested replies").find_elements(By.CSS_SELECTOR, ".chip")]
    timing = page.execute_script("return window.sottoSuggestions.timings")[-1]
    REPORT.append(f"chips (formal): first visible chip {timing['firstChipMs']} ms, whole set {timing['setMs']} ms; "
                  f"casual {casual} → formal {formal}")
    assert formal != casual, "the tone toggle did not change the chips"
    screenshot(page, "chips-formal")
    toggle.click()  # back to casual for the rest


def test_writing_tools(page, model_server):
    """Every tool previews its result under the composer; Replace puts it in the composer,
    Dismiss puts back exactly what was written, Try again writes another; nothing is sent."""
    composer = by_label(page, "Message")
    sent_before = len(messages(page))
    stored_before = len(model_server.get("/api/channels/messaging%3Aweekend-hike/messages",
                                         model_server.token("alice"))["messages"])
    toolbar = region(page, "Writing tools")
    preview = region(page, "Writing tools preview")
    for index, tool in enumerate(TOOLS):
        page.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
                            composer, DRAFT)
        assert composer.get_attribute("value") == DRAFT
        start = time.time()
        button(toolbar, tool).click()
        wait(page, lambda d: preview.is_displayed(), message=f"{tool}: no preview")
        assert preview.find_element(By.CSS_SELECTOR, ".preview-title").text == tool
        wait(page, lambda d: preview.get_attribute("data-status") == "done", MODEL_TIMEOUT, f"{tool} did not finish")
        result = preview.find_element(By.CSS_SELECTOR, ".preview-text").text
        REPORT.append(f"{tool} ({time.time() - start:.1f} s): {result!r}")
        assert result.strip(), f"{tool}: empty result"
        if tool == "Key points":
            assert all(line.startswith("• ") for line in result.splitlines())
        # The draft is untouched and cannot be sent while the preview is open: Send is off and
        # Enter does nothing.
        assert composer.get_attribute("value") == DRAFT
        assert composer.get_attribute("readonly") is not None
        assert not button(page, "Send").is_enabled()
        if index == 0:
            composer.send_keys(Keys.ENTER)
            page.execute_script("document.getElementById('composer').requestSubmit()")
            assert composer.get_attribute("value") == DRAFT
        if tool == "Make professional":
            screenshot(page, "writing-tools-preview")
        if tool == "Rewrite":
            button(preview, "Try again").click()
            wait(page, lambda d: preview.get_attribute("data-status") == "done", MODEL_TIMEOUT, "Try again did not finish")
            again = preview.find_element(By.CSS_SELECTOR, ".preview-text").text
            REPORT.append(f"Rewrite, Try again: {again!r}")
            assert again.strip()
        if index % 2 == 0:
            expected = preview.find_element(By.CSS_SELECTOR, ".preview-text").get_attribute("textContent")
            button(preview, "Replace").click()
            assert composer.get_attribute("value") == expected
        else:
            button(preview, "Dismiss").click()
            assert composer.get_attribute("value") == DRAFT  # exactly, double space and line break included
        assert not preview.is_displayed()
        assert composer.get_attribute("readonly") is None
        assert button(page, "Send").is_enabled()
    # Dismiss while the result is still streaming cancels it and gives the draft back.
    page.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
                        composer, DRAFT)
    button(toolbar, "Make friendly").click()
    button(preview, "Dismiss").click()
    assert composer.get_attribute("value") == DRAFT
    time.sleep(1)
    assert len(messages(page)) == sent_before, "a writing tool sent a message"
    stored_after = len(model_server.get("/api/channels/messaging%3Aweekend-hike/messages",
                                        model_server.token("alice"))["messages"])
    assert stored_after == stored_before, "a writing tool stored a message"
    page.execute_script("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input'));", composer)


def test_translation(page, model_server):
    """Translate a message into the language picked in "Translate to" (remembered for the
    user); the translation is in that language (by langid), under the original."""
    original = "Perfect. I'll bring snacks and extra water."
    Select(by_label(page, "Translate to")).select_by_visible_text("French")
    wait(page, lambda d: model_server.get("/api/me/preferences", model_server.token("alice"))["translation_language"] == "fr",
         message="the language was not remembered")
    item = message_with(page, original)
    button(item, "Translate").click()
    box = wait(page, lambda d: item.find_element(By.CSS_SELECTOR, ".translation[data-status='done']"), MODEL_TIMEOUT,
               "no translation")
    text = box.find_element(By.CSS_SELECTOR, ".translation-text").text
    assert language_of(text, "translation to French") == "fr", f"not French: {text!r}"
    assert box.find_element(By.CSS_SELECTOR, ".translation-label").text == "Translated to French"
    assert item.find_element(By.CSS_SELECTOR, ".text").text == original  # the original stays
    screenshot(page, "translation")


def test_channel_summary(page):
    """Summarize channel: the last 20 messages, streamed into the panel, naming Alice and Bob."""
    page.execute_script("""
        window.summaryChanges = 0;
        new MutationObserver(() => { window.summaryChanges += 1; })
          .observe(document.querySelector('.summary-text'), {childList: true, characterData: true, subtree: true});
    """)
    button(page, "Summarize channel").click()
    panel = region(page, "Channel summary")
    wait(page, lambda d: panel.is_displayed())
    Select(by_label(page, "Summarize")).select_by_visible_text("Last 20 messages")
    button(panel, "Summarize again").click()
    wait(page, lambda d: panel.get_attribute("data-status") == "done", MODEL_TIMEOUT, "no summary")
    text = panel.find_element(By.CSS_SELECTOR, ".summary-text").text
    changes = page.execute_script("return window.summaryChanges")
    REPORT.append(f"thread summary ({changes} updates): {text!r}")
    assert "Alice" in text and "Bob" in text, f"the summary does not name both participants: {text!r}"
    assert changes >= 3, "the summary did not stream"
    screenshot(page, "thread-summary")


def test_date_action_downloads_an_ics(page, model_server, downloads):
    """Bob proposes "Saturday 8am"; Add to calendar on it gives an .ics that icalendar reads as
    08:00 on the next Saturday in the reader's zone."""
    text = "Let's meet Saturday 8am at the trailhead"
    sent = model_server.post("/api/channels/messaging%3Aweekend-hike/messages", model_server.token("bob"),
                             {"text": text})["message"]
    item = wait(page, lambda d: message_with(d, text), message="bob's message did not arrive")
    button(item, "Add to calendar").click()
    box = wait(page, lambda d: item.find_element(By.CSS_SELECTOR, ".calendar[data-status='done']"), MODEL_TIMEOUT,
               "no event")
    shown = box.find_element(By.CSS_SELECTOR, ".calendar-event").text
    REPORT.append(f"date action: {shown!r}")
    link = box.find_element(By.LINK_TEXT, "Download .ics")
    name = link.get_attribute("download")
    link.click()
    path = pathlib.Path(downloads) / name
    wait(page, lambda d: path.exists() and path.stat().st_size > 0, message=f"{name} was not downloaded")
    calendar = icalendar.Calendar.from_ical(path.read_bytes())
    events = [component for component in calendar.walk() if component.name == "VEVENT"]
    assert len(events) == 1
    start = events[0].decoded("DTSTART").astimezone(zoneinfo.ZoneInfo(ZONE))
    sent_at = datetime.datetime.fromisoformat(sent["created_at"].replace("Z", "+00:00")).astimezone(
        zoneinfo.ZoneInfo(ZONE))
    # The next Saturday after the day it was sent (that very day only if 8am was still to come).
    ahead = (5 - sent_at.weekday()) % 7
    if ahead == 0 and (sent_at.hour, sent_at.minute) >= (8, 0):
        ahead = 7
    expected_day = sent_at.date() + datetime.timedelta(days=ahead)
    REPORT.append(f".ics: DTSTART {start.isoformat()} in {ZONE}, message sent {sent_at.isoformat()}")
    assert (start.date(), start.hour, start.minute) == (expected_day, 8, 0)
    assert "08:00" in shown and "Saturday" in shown
    screenshot(page, "date-action")


def test_search_and_search_suggestions(page):
    """Search finds and highlights; Suggest searches is disabled without a topic, lists four
    terms for one, and running a term finds messages."""
    field = by_label(page, "Search messages")
    suggest = button(page, "Suggest searches")
    field.clear()
    page.execute_script("arguments[0].dispatchEvent(new Event('input'))", field)
    assert not suggest.is_enabled()
    assert "Type a topic" in page.find_element(By.ID, "search-note").text

    field.send_keys("trailhead")
    button(page, "Search").click()
    results = region(page, "Search results")
    wait(page, lambda d: results.get_attribute("data-status") == "done")
    hits = results.find_elements(By.CSS_SELECTOR, ".search-hit")
    assert hits and all("trailhead" in hit.text.lower() for hit in hits)
    assert hits[0].find_element(By.TAG_NAME, "mark").text.lower() == "trailhead"

    field.clear()
    field.send_keys("hike")
    assert suggest.is_enabled()
    suggest.click()
    section = page.find_element(By.CSS_SELECTOR, "[aria-labelledby='suggested-heading']")
    assert section.find_element(By.TAG_NAME, "h3").text == "Suggested searches"
    wait(page, lambda d: section.get_attribute("data-status") == "done", MODEL_TIMEOUT, "no suggested searches")
    terms = [term.text for term in section.find_elements(By.CSS_SELECTOR, "li button")]
    REPORT.append(f"suggested searches for 'hike': {terms}")
    assert len(terms) == 4 and all(terms)
    screenshot(page, "search-suggestions")
    found = None
    for term in terms:
        button(section, term).click()
        wait(page, lambda d: results.get_attribute("data-status") == "done" and results.get_attribute("data-query") == term)
        assert field.get_attribute("value") == term
        if results.find_elements(By.CSS_SELECTOR, ".search-hit"):
            found = term
            break
    REPORT.append(f"running the suggested search {found!r} found messages")
    assert found, f"none of the suggested searches {terms} found a message"
    results.find_elements(By.CSS_SELECTOR, ".search-hit")[0].click()
    wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#message-list .message.found"),
         message="opening a result did not show its message")
    screenshot(page, "search-results")


def test_model_output_and_messages_are_text_not_html(page, model_server):
    """Markup in a message, in a search hit and in what the model writes from it (Proofread,
    Translate) is shown as the characters typed: no element is made, no handler runs."""
    markup = '<img src="x" onerror="window.pwned=1"><b>lantern</b> at the trailhead'
    model_server.post("/api/channels/messaging%3Aweekend-hike/messages", model_server.token("bob"), {"text": markup})
    item = wait(page, lambda d: message_with(d, markup), message="the message with markup was not shown as text")

    button(item, "Translate").click()
    box = wait(page, lambda d: item.find_element(By.CSS_SELECTOR, ".translation[data-status='done']"), MODEL_TIMEOUT,
               "no translation")
    translated = box.find_element(By.CSS_SELECTOR, ".translation-text")

    composer = by_label(page, "Message")
    page.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
                        composer, markup)
    preview = region(page, "Writing tools preview")
    button(region(page, "Writing tools"), "Proofread").click()
    wait(page, lambda d: preview.get_attribute("data-status") == "done", MODEL_TIMEOUT, "Proofread did not finish")
    proofread = preview.find_element(By.CSS_SELECTOR, ".preview-text")

    field = by_label(page, "Search messages")
    field.clear()
    field.send_keys("lantern")
    button(page, "Search").click()
    results = region(page, "Search results")
    wait(page, lambda d: results.get_attribute("data-status") == "done" and results.get_attribute("data-query") == "lantern")
    hit = results.find_element(By.CSS_SELECTOR, ".search-hit")

    REPORT.append(f"markup: translated {translated.text!r}, proofread {proofread.text!r}")
    assert "<img" in hit.text and hit.find_element(By.TAG_NAME, "mark").text == "lantern"
    for node in (item, translated, proofread, hit):
        assert not node.find_elements(By.CSS_SELECTOR, "img, b"), node.get_attribute("outerHTML")
    for node in (translated, proofread):  # whatever the model wrote is one text node
        assert page.execute_script("return arguments[0].children.length", node) == 0
    assert page.execute_script("return window.pwned") is None
    button(preview, "Dismiss").click()
    assert composer.get_attribute("value") == markup
    page.execute_script("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input'));", composer)


def test_the_page_says_why_when_the_model_is_turned_off():
    server = start_server(env_overrides={"SOTTO_MODEL": "off"})
    driver = make_driver()
    try:
        sign_in(driver, server, "alice")
        status = wait(driver, lambda d: d.find_element(By.ID, "model-status").text)
        assert "turned off" in status and "SOTTO_MODEL=off" in status and "restart sotto serve" in status
        field = by_label(driver, "Search messages")
        field.send_keys("hike")
        assert not button(driver, "Suggest searches").is_enabled()
        note = driver.find_element(By.ID, "search-note").text
        assert "Suggest searches is off" in note and "SOTTO_MODEL=off" in note
        by_label(driver, "Message").send_keys("a draft")
        for tool in TOOLS:
            assert not button(region(driver, "Writing tools"), tool).is_enabled()
        assert "turned off" in driver.find_element(By.CSS_SELECTOR, ".tools-note").text
        assert not button(driver, "Summarize channel").is_enabled()
        assert not button(messages(driver)[0], "Translate").is_enabled()
        # Search itself needs no model.
        button(driver, "Search").click()
        wait(driver, lambda d: region(d, "Search results").find_elements(By.CSS_SELECTOR, ".search-hit"))
        REPORT.append(f"model off: {status!r}")
        screenshot(driver, "model-off")
    finally:
        driver.quit()
        stop_server(server)
