"""The private assistant in a real browser with the real model (the 0.5B one under scripts/test):
an answer streams with its token count, Stop keeps the partial text and the next prompt is
answered, reload reopens the last conversation, search opens an older one at the match, export
downloads Markdown, new instructions reset the session, the context meter moves, an overlong
conversation says so and continues in a new session, code blocks get a label and Copy, a
screenshot of an error attached as an image is quoted, dark mode, and the writing tools and
Translate of the channels work here too.
One server and one page, the tests run in order. Screenshots go to $SOTTO_SCREENSHOT_DIR
(default /work/shots-assistant when it can be made, else a temporary folder).
"""

import os
import pathlib
import re
import sqlite3
import tempfile
import time
import uuid

import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import REPORT, js_errors, language_of, make_driver, sign_in_with_token, start_model_server, stop_server

MODEL_TIMEOUT = float(os.environ.get("SOTTO_SUGGESTION_TIMEOUT", "300"))
TIMEOUT = 15


def screenshot_dir():
    configured = os.environ.get("SOTTO_SCREENSHOT_DIR")
    if configured:
        return pathlib.Path(configured)
    try:
        path = pathlib.Path("/work/shots-assistant")
        path.mkdir(parents=True, exist_ok=True)
        return path
    except OSError:
        return pathlib.Path(tempfile.mkdtemp(prefix="sotto-assistant-"))


SCREENSHOTS = screenshot_dir()


def wait(driver, condition, timeout=TIMEOUT, message=""):
    # An answer's element is replaced when it finishes: a condition that met the old one tries again.
    return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,)
                         ).until(lambda d: condition(d), message)


def by_label(driver, text):
    label = driver.find_element(By.XPATH, f"//section[@id='assistant']//label[normalize-space(.)={xpath_literal(text)}]")
    return driver.find_element(By.ID, label.get_attribute("for"))


def xpath_literal(text):
    """`text` as an XPath 1.0 string literal: quoted with whichever quote it lacks, else pieced
    together with concat() (a conversation the model titled "Dragon's Strength")."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ", \"'\", ".join(f"'{piece}'" for piece in text.split("'")) + ")"


def button(scope, text):
    return scope.find_element(By.XPATH, f".//button[normalize-space(.)={xpath_literal(text)}]")


def part(driver, name):
    return driver.find_element(By.CSS_SELECTOR, f"#assistant [data-part='{name}']")


def answers(driver):
    """The finished answers shown (not the one streaming)."""
    return driver.find_elements(By.CSS_SELECTOR, "#assistant .assistant-message.role-assistant:not(.streaming)")


def shown_messages(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#assistant .assistant-message")


def meter_used(driver):
    text = part(driver, "meter-text").text
    match = re.fullmatch(r"([\d,]+) / ([\d,]+) tokens", text)
    assert match, f"the context meter reads {text!r}"
    return int(match.group(1).replace(",", "")), int(match.group(2).replace(",", ""))


def screenshot(driver, name):
    path = SCREENSHOTS / f"assistant-{name}.png"
    driver.save_screenshot(str(path))
    REPORT.append(f"screenshot {path}")


def send(driver, text):
    box = by_label(driver, "Message")
    box.clear()
    box.send_keys(text)
    box.send_keys(Keys.ENTER)


def wait_answered(driver, count, message="no answer"):
    """Waits until `count` answers are shown and nothing streams."""
    wait(driver, lambda d: len(answers(d)) >= count and part(d, "send").text == "Send", MODEL_TIMEOUT, message)
    return answers(driver)[-1]


def current_title(driver):
    return part(driver, "title").text


def reload_and_open(driver, title):
    """Reloads the page (which reopens the last conversation), then opens the one named `title`."""
    driver.refresh()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#assistant [data-part='list'] button[aria-current='true']"))
    button(part(driver, "list"), title).click()
    wait(driver, lambda d: current_title(d) == title)


@pytest.fixture(scope="module")
def assistant_server():
    server = start_model_server()
    yield server
    stop_server(server)


@pytest.fixture(scope="module")
def page(assistant_server, downloads):
    driver = make_driver(downloads)
    sign_in_with_token(driver, assistant_server, assistant_server.token("alice"),
                       before=lambda d: d.execute_script("localStorage.clear()"))
    wait(driver, lambda d: d.find_element(By.ID, "assistant-nav").is_displayed())
    yield driver
    errors = js_errors(driver)
    driver.quit()
    assert not errors, f"the page threw: {errors}"


def seed_conversation(server, title, pairs):
    """A conversation of alice's written straight into the store: (role, text) pairs."""
    token = server.token("alice")
    conversation = server.post("/api/assistant/conversations", token, {"title": title})
    database = sqlite3.connect(pathlib.Path(server.home) / "chat.sqlite", timeout=10)
    with database:
        now = int(time.time() * 1000)
        for offset, (role, text) in enumerate(pairs):
            database.execute(
                "INSERT INTO assistant_messages(id, conversation_id, role, text, output_tokens, model, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (str(uuid.uuid4()), conversation["id"], role, text, 40 if role == "assistant" else None,
                 "seeded" if role == "assistant" else None, now + offset))
    database.close()
    return conversation["id"]


def test_first_run_shows_what_runs_locally_and_the_model_state(page):
    button(page, "Assistant").click()
    intro = wait(page, lambda d: part(d, "intro") if part(d, "intro").is_displayed() else None)
    assert "runs on this computer" in intro.text and "without a network" in intro.text
    assert not part(page, "composer").is_displayed()  # nothing to send to before "New chat"
    assert not page.find_element(By.CSS_SELECTOR, "#assistant [aria-label='Writing tools']").is_displayed()
    state = part(page, "model-state")
    wait(page, lambda d: "is ready" in state.text or "Loading" in state.text)
    assert "qwen2.5-coder-0.5b" in state.text or os.environ.get("SOTTO_MODEL", "") in state.text
    screenshot(page, "first-run")


def test_an_answer_streams_and_shows_its_token_count(page):
    button(page, "New chat").click()
    wait(page, lambda d: current_title(d) == "New chat" and by_label(d, "Message").is_enabled())
    send(page, "Tell me about dragons in two sentences.")
    # While it streams, the button is Stop and text arrives before the end.
    wait(page, lambda d: part(d, "send").text == "Stop", TIMEOUT, "the button did not become Stop")
    seen = wait(page, lambda d: [n.text for n in d.find_elements(By.CSS_SELECTOR, "#assistant .streaming .markdown")
                                 if n.text.strip()], MODEL_TIMEOUT, "no streamed text")
    answer = wait_answered(page, 1)
    assert answer.find_element(By.CSS_SELECTOR, ".markdown").text.strip()
    assert seen[0] != "" and len(seen[0]) <= len(answer.find_element(By.CSS_SELECTOR, ".markdown").text) + 1
    tokens = answer.find_element(By.CSS_SELECTOR, ".tokens").text
    assert re.fullmatch(r"[\d,]+ tokens", tokens) and int(tokens.split()[0].replace(",", "")) > 0
    used, size = meter_used(page)
    assert 0 < used < size == 4096
    REPORT.append(f"first answer: {tokens}; context {used} / {size}")
    # The model titles the conversation after the first exchange.
    wait(page, lambda d: current_title(d) != "New chat", MODEL_TIMEOUT, "no generated title")
    screenshot(page, "answer")


def test_smart_reply_chips_fill_the_composer_without_sending(page):
    chips = wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#assistant .reply-chip"), MODEL_TIMEOUT,
                 "no smart-reply chips after the answer")
    count = len(shown_messages(page))
    text = chips[0].text
    assert 1 <= len(chips) <= 3 and text
    screenshot(page, "chips")
    chips[0].click()
    assert by_label(page, "Message").get_attribute("value") == text
    time.sleep(1)  # a send would show the message at once
    assert len(shown_messages(page)) == count and part(page, "send").text == "Send"
    by_label(page, "Message").clear()


# A draft with a mistake, facts to keep, and spacing that Dismiss must give back byte for byte.
DRAFT = "can you explane  how dragons fly?\nkeep it to 2 sentences"


def set_draft(driver, text):
    box = by_label(driver, "Message")
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));", box, text)
    return box


def stored_messages(server):
    conversation = server.get("/api/assistant", server.token("alice"))["last_conversation_id"]
    return server.get(f"/api/assistant/conversations/{conversation}", server.token("alice"))["messages"]


def test_writing_tools_on_the_assistant_composer_send_nothing(page, assistant_server):
    """The channels' writing tools on this composer: the result previews under it, Dismiss gives
    back exactly what was written, Replace puts the result in; Send and Enter send nothing."""
    toolbar = page.find_element(By.CSS_SELECTOR, "#assistant [aria-label='Writing tools']")
    preview = page.find_element(By.CSS_SELECTOR, "#assistant [aria-label='Writing tools preview']")
    shown, stored = len(shown_messages(page)), len(stored_messages(assistant_server))
    composer = set_draft(page, DRAFT)
    button(toolbar, "Proofread").click()
    wait(page, lambda d: preview.is_displayed(), message="no preview")
    wait(page, lambda d: preview.get_attribute("data-status") == "done", MODEL_TIMEOUT, "Proofread did not finish")
    result = preview.find_element(By.CSS_SELECTOR, ".preview-text").text
    REPORT.append(f"assistant Proofread: {result!r}")
    assert result.strip() and "dragon" in result.lower()
    assert composer.get_attribute("value") == DRAFT and composer.get_attribute("readonly") is not None
    assert not part(page, "send").is_enabled()
    composer.send_keys(Keys.ENTER)
    page.execute_script("document.querySelector(\"#assistant [data-part='composer']\").requestSubmit()")
    screenshot(page, "writing-tools")
    button(preview, "Dismiss").click()
    assert composer.get_attribute("value") == DRAFT  # exactly, double space and line break included
    assert not preview.is_displayed() and composer.get_attribute("readonly") is None
    assert part(page, "send").is_enabled()
    button(toolbar, "Make professional").click()
    wait(page, lambda d: preview.get_attribute("data-status") == "done", MODEL_TIMEOUT, "Make professional did not finish")
    expected = preview.find_element(By.CSS_SELECTOR, ".preview-text").get_attribute("textContent")
    assert expected.strip()
    button(preview, "Replace").click()
    assert composer.get_attribute("value") == expected
    time.sleep(1)  # a send would show the message at once
    assert len(shown_messages(page)) == shown, "a writing tool sent a message"
    assert len(stored_messages(assistant_server)) == stored, "a writing tool stored a message"
    set_draft(page, "")
    assert not button(toolbar, "Proofread").is_enabled()  # nothing to work on


def test_an_answer_translates_under_the_original(page, assistant_server):
    """Translate on an answer, into the language picked in "Translate to": the translation is
    in that language (by langid), under the original, which stays."""
    Select(page.find_element(By.ID, "translation-language")).select_by_visible_text("French")
    wait(page, lambda d: assistant_server.get("/api/me/preferences", assistant_server.token("alice"))
         ["translation_language"] == "fr", message="the language was not remembered")
    answer = answers(page)[-1]
    original = answer.find_element(By.CSS_SELECTOR, ".markdown").text
    button(answer, "Translate").click()
    box = wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#assistant .translation[data-status='done']"),
               MODEL_TIMEOUT, "no translation")[0]
    text = box.find_element(By.CSS_SELECTOR, ".translation-text").text
    assert language_of(text, "assistant translation to French") == "fr", f"not French: {text!r}"
    assert box.find_element(By.CSS_SELECTOR, ".translation-label").text == "Translated to French"
    assert answers(page)[-1].find_element(By.CSS_SELECTOR, ".markdown").text == original  # the original stays
    screenshot(page, "translation")


def test_stop_keeps_the_partial_answer_and_the_next_prompt_is_answered(page):
    before, _ = meter_used(page)
    # Long answers to stop. A small sampled model may still answer in a line (a refusal, or
    # "1, 2, 3, ..., 300") before Stop lands: then the next prompt is sent.
    prompts = [
        "Write a story about a dragon, then count from 1 to 300 separated by commas.",
        "Write a long story, at least 400 words, about a dragon who learns to sail.",
        "Write a detailed essay of at least 400 words about the history of lighthouses.",
    ]
    for attempt, prompt in enumerate(prompts):
        send(page, prompt)
        wait(page, lambda d: len(d.find_element(By.CSS_SELECTOR, "#assistant .streaming .markdown").text) > 20
             if d.find_elements(By.CSS_SELECTOR, "#assistant .streaming") else part(d, "send").text == "Send",
             MODEL_TIMEOUT, "no partial text")
        if not page.find_elements(By.CSS_SELECTOR, "#assistant .streaming"):
            REPORT.append(f"stop, attempt {attempt + 1}: the answer ended before Stop")
            continue
        partial = page.find_element(By.CSS_SELECTOR, "#assistant .streaming .markdown").text
        try:
            button(part(page, "composer"), "Stop").click()
        except (NoSuchElementException, StaleElementReferenceException):
            # The answer ended between reading its partial text and the click.
            wait(page, lambda d: part(d, "send").text == "Send", MODEL_TIMEOUT, "the answer did not end")
            REPORT.append(f"stop, attempt {attempt + 1}: the answer ended before Stop")
            continue
        wait(page, lambda d: part(d, "send").text == "Send" and not d.find_elements(By.CSS_SELECTOR, "#assistant .streaming"))
        stopped = answers(page)[-1]
        if stopped.find_elements(By.CSS_SELECTOR, ".stopped"):
            break
        REPORT.append(f"stop, attempt {attempt + 1}: the answer ended as Stop was pressed")
    else:
        pytest.fail("three answers in a row ended before Stop could stop them")
    assert stopped.find_element(By.CSS_SELECTOR, ".stopped").text == "Stopped"
    kept = stopped.find_element(By.CSS_SELECTOR, ".markdown").text
    assert kept.startswith(partial[:30]), f"kept {kept[:60]!r}, saw {partial[:60]!r}"
    screenshot(page, "stopped")
    # The model stopped: the next prompt starts streaming at once and is answered.
    count = len(answers(page))
    send(page, "Say hello.")
    wait(page, lambda d: part(d, "send").text == "Stop", TIMEOUT, "the next prompt was not taken")
    wait_answered(page, count + 1)
    after, _ = meter_used(page)
    assert after > before, f"the context meter did not move: {before} → {after}"


def test_reload_reopens_the_last_conversation(page, assistant_server):
    first_title = current_title(page)
    first_count = len(shown_messages(page))
    button(page, "New chat").click()
    wait(page, lambda d: current_title(d) == "New chat")
    # Back to the older conversation: it is now the last one opened.
    button(part(page, "list"), first_title).click()
    wait(page, lambda d: current_title(d) == first_title and len(shown_messages(d)) == first_count)
    page.refresh()
    wait(page, lambda d: current_title(d) == first_title and len(shown_messages(d)) == first_count, TIMEOUT,
         "the reload did not reopen the last conversation")
    # A second browser opens it too (the server remembers, not the page).
    second = make_driver()
    try:
        sign_in_with_token(second, assistant_server, assistant_server.token("alice"))
        wait(second, lambda d: d.find_element(By.ID, "assistant-nav").is_displayed())
        button(second, "Assistant").click()
        wait(second, lambda d: current_title(d) == first_title, TIMEOUT, "the second browser opened another chat")
    finally:
        second.quit()


def test_search_finds_a_word_from_an_older_conversation_and_opens_it_there(page):
    older = current_title(page)
    button(page, "New chat").click()
    wait(page, lambda d: current_title(d) == "New chat")
    box = by_label(page, "Search chats")
    box.send_keys("dragon")
    box.send_keys(Keys.ENTER)
    results = wait(page, lambda d: part(d, "search-results").find_elements(By.CSS_SELECTOR, "button"))
    assert results[0].find_element(By.CSS_SELECTOR, ".result-title").text == older
    assert results[0].find_element(By.CSS_SELECTOR, "mark").text.lower().startswith("dragon")
    screenshot(page, "search")
    results[0].click()
    found = wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#assistant .assistant-message.found"))
    assert current_title(page) == older
    assert "dragon" in found[0].text.lower()


def test_export_downloads_the_conversation_as_markdown(page, downloads):
    title = current_title(page)
    button(part(page, "actions"), "Export Markdown").click()
    path = wait(page, lambda d: next((p for p in pathlib.Path(downloads).glob("*.md")), None), TIMEOUT, "no download")
    text = path.read_text()
    assert text.startswith(f"# {title}\n")
    assert "**You:**\n\nTell me about dragons in two sentences." in text
    assert "**Assistant:** _(stopped)_" in text


def test_new_instructions_reset_the_session(page):
    used_before, _ = meter_used(page)
    button(page, "Settings").click()
    instructions = by_label(page, "Instructions")
    instructions.clear()
    instructions.send_keys("You are a pirate. Start every answer with Arrr.")
    assert Select(by_label(page, "Persona")).first_selected_option.text == "Custom instructions"
    button(part(page, "settings"), "Save settings").click()
    divider = wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#assistant .divider"))
    assert "memory was reset" in divider[-1].text
    # Earlier messages stay visible; the new session holds only its instructions.
    assert len(answers(page)) >= 3
    used_after, _ = meter_used(page)
    assert used_after < used_before / 2, f"the session still holds {used_after} tokens (was {used_before})"
    screenshot(page, "reset")


def test_an_overlong_conversation_says_so_and_continues_in_a_new_session(page, assistant_server):
    paragraph = "The committee discussed the harbour bridge budget, the tram schedule and the library roof. " * 40
    conversation = seed_conversation(
        assistant_server, "Long meeting notes", [("user", paragraph), ("assistant", paragraph)] * 4)
    reload_and_open(page, "Long meeting notes")
    send(page, "What did we decide about the bridge?")
    notice = wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#assistant .context-full"))[0]
    assert "too long for the model's memory" in notice.text and "of 4,096 tokens" in notice.text
    assert by_label(page, "Message").get_attribute("value") == "What did we decide about the bridge?"
    screenshot(page, "context-full")
    button(notice, "Continue in a new session").click()
    divider = wait(page, lambda d: [n for n in d.find_elements(By.CSS_SELECTOR, "#assistant .divider")
                                    if "New session" in n.text], MODEL_TIMEOUT, "no new session")
    assert divider
    used, _ = meter_used(page)
    assert used < 1500, f"the new session holds {used} tokens"
    send(page, "What did we decide about the bridge?")
    wait(page, lambda d: part(d, "send").text == "Stop", TIMEOUT, "the prompt was refused again")
    wait(page, lambda d: part(d, "send").text == "Send", MODEL_TIMEOUT, "no answer in the new session")
    assert not page.find_elements(By.CSS_SELECTOR, "#assistant .context-full")
    assert conversation


def test_code_blocks_get_a_language_label_and_copy_and_raw_html_is_inert(page, assistant_server):
    seed_conversation(assistant_server, "Seeded code", [
        ("user", "<b>not bold</b> show me Swift"),
        ("assistant", "Here:\n\n```swift\nprint(\"hi\")\n```\n\n<img src=x onerror=\"window.pwned=1\">\n\n| a | b |\n|---|---|\n| 1 | 2 |"),
    ])
    reload_and_open(page, "Seeded code")
    block = wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#assistant .code-block"))[0]
    assert block.find_element(By.CSS_SELECTOR, ".code-language").text == "swift"
    assert button(block, "Copy")
    assert 'print("hi")' in block.find_element(By.CSS_SELECTOR, "pre").text
    user = page.find_elements(By.CSS_SELECTOR, ".assistant-message.role-user")[0]
    assert "<b>not bold</b>" in user.text  # the user's own text is shown, not interpreted
    assert page.execute_script("return window.pwned === undefined")
    assert not page.find_elements(By.CSS_SELECTOR, "#assistant .assistant-message img")
    cells = [cell.text for cell in page.find_elements(By.CSS_SELECTOR, "#assistant .assistant-message table td")]
    assert cells == ["1", "2"], cells
    screenshot(page, "code")


def test_summarize_streams_into_a_panel_and_stores_nothing(page):
    before = len(shown_messages(page))
    button(part(page, "actions"), "Summarize").click()
    panel = wait(page, lambda d: part(d, "summary-panel") if part(d, "summary-panel").is_displayed() else None)
    wait(page, lambda d: part(d, "summary-text").text.strip() and part(d, "summary-status").text == "",
         MODEL_TIMEOUT, "no summary")
    assert panel.find_element(By.TAG_NAME, "h3").text == "Summary"
    assert len(shown_messages(page)) == before
    REPORT.append(f"summary: {part(page, 'summary-text').text[:120]!r}")


def error_screenshot(driver, path):
    """A PNG screenshot of an error message, drawn by Chromium itself in a tab of its own."""
    home = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get("about:blank")
    driver.execute_script("""
        document.body.style.cssText = 'margin:0;background:#fff';
        const box = document.createElement('div');
        box.id = 'dialog';
        box.style.cssText = 'display:inline-block;padding:40px 56px;font:bold 44px DejaVu Sans, sans-serif;'
          + 'color:#111;background:#fff;border:3px solid #b00020';
        box.textContent = 'Error 4012: disk quota exceeded';
        document.body.append(box);
    """)
    driver.find_element(By.ID, "dialog").screenshot(str(path))
    driver.close()
    driver.switch_to.window(home)


def pending_thumbnails(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#assistant [data-part='pending'] img.thumbnail")


def image_loaded(driver, image):
    return driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image)


def test_an_attached_screenshot_of_an_error_lets_the_model_quote_it(page):
    button(page, "Assistant").click()
    button(page, "New chat").click()
    wait(page, lambda d: current_title(d) == "New chat" and by_label(d, "Message").is_enabled())
    file_input = part(page, "image-input")
    assert file_input.get_attribute("accept") == "image/png,image/jpeg"
    # Another file is refused with a clear message, and nothing waits to be sent.
    notes = pathlib.Path(tempfile.mkdtemp(prefix="sotto-files-")) / "notes.txt"
    notes.write_text("Error 4012: disk quota exceeded\n")
    file_input.send_keys(str(notes))
    alert = wait(page, lambda d: part(d, "notice").find_elements(By.CSS_SELECTOR, "[role='alert']"))
    assert alert[0].text == "“notes.txt”: That file is not a PNG or JPEG image.", alert[0].text
    assert not pending_thumbnails(page) and not part(page, "pending").is_displayed()
    screenshot(page, "image-refused")

    shot = notes.with_name("error.png")
    error_screenshot(page, shot)
    assert shot.read_bytes().startswith(b"\x89PNG")
    # Attached, then removed before sending: it goes from the composer.
    part(page, "image-input").send_keys(str(shot))
    wait(page, lambda d: pending_thumbnails(d))
    button(part(page, "pending"), "Remove").click()
    wait(page, lambda d: not pending_thumbnails(d) and not part(d, "pending").is_displayed())
    part(page, "image-input").send_keys(str(shot))
    thumbnail = wait(page, lambda d: pending_thumbnails(d))[0]
    wait(page, lambda d: image_loaded(d, thumbnail), TIMEOUT, "the pending thumbnail is not shown")
    assert thumbnail.is_displayed() and not part(page, "notice").text
    assert button(part(page, "pending"), "Remove").is_displayed()
    by_label(page, "Message").send_keys("What does the error in this image say?")
    screenshot(page, "image-pending")

    count = len(answers(page))
    by_label(page, "Message").send_keys(Keys.ENTER)
    # The thumbnail moves into the sent message, fetched with the token (a blob: URL).
    sent = wait(page, lambda d: d.find_elements(
        By.CSS_SELECTOR, "#assistant .assistant-message.role-user .message-images img.thumbnail"))[-1]
    wait(page, lambda d: image_loaded(d, sent), TIMEOUT, "the thumbnail in the message is not shown")
    assert sent.get_attribute("src").startswith("blob:") and sent.is_displayed()
    assert sent.size["width"] > 40 and sent.size["height"] > 10
    assert not pending_thumbnails(page) and not part(page, "pending").is_displayed()
    answer = wait_answered(page, count + 1)
    text = answer.find_element(By.CSS_SELECTOR, ".markdown").text
    REPORT.append(f"answer about the error screenshot: {text!r}")
    # The words are the image's alone ("disk" too: a small model may say "out of disk space").
    assert any(word in text.lower() for word in ("4012", "quota", "disk")), \
        f"the answer does not quote the image: {text!r}"
    screenshot(page, "image-answered")

    # After a reload the message still shows its image, fetched again.
    page.refresh()
    sent = wait(page, lambda d: d.find_elements(
        By.CSS_SELECTOR, "#assistant .assistant-message.role-user .message-images img.thumbnail"))[-1]
    wait(page, lambda d: image_loaded(d, sent), TIMEOUT, "the thumbnail is not shown after a reload")


def test_an_image_goes_without_text_and_is_answered(page):
    button(page, "Assistant").click()
    button(page, "New chat").click()
    wait(page, lambda d: current_title(d) == "New chat" and by_label(d, "Message").is_enabled())
    shot = pathlib.Path(tempfile.mkdtemp(prefix="sotto-files-")) / "error.png"
    error_screenshot(page, shot)
    part(page, "image-input").send_keys(str(shot))
    thumbnail = wait(page, lambda d: pending_thumbnails(d))[0]
    wait(page, lambda d: image_loaded(d, thumbnail), TIMEOUT, "the pending thumbnail is not shown")
    assert by_label(page, "Message").get_attribute("value") == ""
    count = len(answers(page))
    by_label(page, "Message").send_keys(Keys.ENTER)
    # Sent with no text: the message is its image, and the model is asked what it shows.
    sent = wait(page, lambda d: d.find_elements(
        By.CSS_SELECTOR, "#assistant .assistant-message.role-user .message-images img.thumbnail"))[-1]
    wait(page, lambda d: image_loaded(d, sent), TIMEOUT, "the thumbnail in the message is not shown")
    assert not pending_thumbnails(page) and not part(page, "notice").text
    answer = wait_answered(page, count + 1)
    text = answer.find_element(By.CSS_SELECTOR, ".markdown").text
    REPORT.append(f"answer to an image sent without text: {text!r}")
    assert text.strip(), "the answer to an image without text is empty"
    screenshot(page, "image-without-text")


def test_dark_mode(page):
    button(page, "Settings").click()
    Select(by_label(page, "Appearance")).select_by_visible_text("Dark")
    button(part(page, "settings"), "Save settings").click()
    wait(page, lambda d: d.execute_script("return document.documentElement.dataset.theme") == "dark")
    background = page.execute_script(
        "return getComputedStyle(document.querySelector('#assistant')).backgroundColor")
    assert background == "rgb(22, 24, 29)", background
    page.refresh()  # the setting is the server's: it survives a reload
    wait(page, lambda d: d.execute_script("return document.documentElement.dataset.theme") == "dark")
    screenshot(page, "dark")
