"""Two people chat in real browsers: history, live delivery, the composer's keys, and reply
suggestions (checked when the server reports them available, absent otherwise)."""

import os
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import sign_in_with_token

FIRST = "Hey! Are we still on for the hike this weekend?"
SECOND = "Yeah! Saturday morning works for me."
TIMEOUT = 15
# A cold model on a busy machine; override with SOTTO_SUGGESTION_TIMEOUT (seconds).
SUGGESTION_TIMEOUT = float(os.environ.get("SOTTO_SUGGESTION_TIMEOUT", "300"))


def wait(driver, condition, timeout=TIMEOUT, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d), message)


def message_texts(driver):
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, "#message-list .message .text")]


def labelled(driver, label_text):
    """The form control whose <label> reads `label_text`."""
    label = driver.find_element(By.XPATH, f"//label[normalize-space(text())='{label_text}']")
    return driver.find_element(By.ID, label.get_attribute("for"))


def suggestion_region(driver):
    regions = driver.find_elements(By.CSS_SELECTOR, "[role='region'][aria-label='Suggested replies']")
    return regions[0] if regions else None


def chips_ready(driver):
    """The chips are done streaming (while they stream they are shown but cannot be clicked)."""
    region = suggestion_region(driver)
    return region is not None and region.get_attribute("data-status") == "ready" and len(chips(driver)) > 0


def chips(driver):
    region = suggestion_region(driver)
    return [chip.text for chip in region.find_elements(By.TAG_NAME, "button")] if region else []


def unread_badge(driver):
    badges = driver.find_elements(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]//span[@class='unread']")
    return badges[0].text if badges else None


def sign_in_and_open(driver, server, user, unread=None, expires_in="1h"):
    sign_in_with_token(driver, server, server.token(user, expires_in))
    channel = wait(driver, lambda d: d.find_element(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]"))
    if unread is not None:
        assert unread_badge(driver) == unread
    channel.click()
    wait(driver, lambda d: len(message_texts(d)) >= 8, message="history did not load")
    wait(driver, lambda d: unread_badge(d) is None, message="opening the channel did not clear its unread count")


def test_two_people_chat_live(server, browsers):
    alice, bob = browsers["alice"], browsers["bob"]
    available = server.get("/api/health")["suggestions"]

    sign_in_and_open(alice, server, "alice", unread="1")  # Bob wrote last
    sign_in_and_open(bob, server, "bob")
    history = message_texts(alice)
    assert history[:2] == [FIRST, SECOND]
    assert len(history) == 8
    assert wait(alice, lambda d: d.find_element(By.ID, "connection-status").text == "")  # online

    if available:
        # Bob spoke last, so Alice gets up to three chips; clicking one fills the composer only.
        wait(alice, chips_ready, SUGGESTION_TIMEOUT, "no suggestion chips for alice")
        first_chips = chips(alice)
        assert len(first_chips) <= 3
        signature = suggestion_region(alice).get_attribute("data-signature")
        suggestion_region(alice).find_elements(By.TAG_NAME, "button")[0].click()
        composer = labelled(alice, "Message")
        assert composer.get_attribute("value") == first_chips[0]
        assert alice.switch_to.active_element == composer
        caret = alice.execute_script("const t = arguments[0]; return [t.selectionStart, t.selectionEnd, t.value.length];", composer)
        assert caret[0] == caret[1] == caret[2]
        assert len(message_texts(alice)) == 8  # nothing was sent
        composer.clear()
    else:
        assert suggestion_region(alice) is None
        assert suggestion_region(bob) is None

    # Bob sends with Enter; Alice sees it without reloading.
    labelled(bob, "Message").send_keys("Let's ask Sam tonight.", Keys.ENTER)
    wait(alice, lambda d: "Let's ask Sam tonight." in message_texts(d), message="alice did not get bob's message")
    assert labelled(bob, "Message").get_attribute("value") == ""

    if available:
        wait(alice, lambda d: suggestion_region(d) is not None
             and suggestion_region(d).get_attribute("data-signature") not in ("", signature)
             and chips_ready(d), SUGGESTION_TIMEOUT, "alice's chips did not follow the new message")
        # Bob spoke last, so Bob is offered nothing.
        assert suggestion_region(bob) is None or not suggestion_region(bob).is_displayed()

    # Shift+Enter adds a line; Enter sends both lines as one message.
    composer = labelled(bob, "Message")
    composer.send_keys("Line one", Keys.SHIFT, Keys.ENTER, Keys.SHIFT, "line two")
    assert composer.get_attribute("value") == "Line one\nline two"
    composer.send_keys(Keys.ENTER)
    wait(alice, lambda d: "Line one\nline two" in message_texts(d), message="multi-line message not delivered")

    # Enter while an input method is composing does not send.
    composer.send_keys("こんにちは")
    bob.execute_script(
        "arguments[0].dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', keyCode: 229, isComposing: true, bubbles: true, cancelable: true}));",
        composer)
    assert composer.get_attribute("value") == "こんにちは"
    composer.clear()

    # Markup from users is shown as text, never run as HTML.
    attack = '<img src=x onerror="document.title=\'pwned\'"><b>bold</b>'
    labelled(bob, "Message").send_keys(attack, Keys.ENTER)
    wait(alice, lambda d: attack in message_texts(d), message="markup message not delivered")
    assert alice.find_elements(By.CSS_SELECTOR, "#message-list img, #message-list b") == []
    assert alice.title == "Sotto"


def test_an_expiring_token_is_refreshed_and_the_socket_resumes(server, browsers):
    """The server closes a socket when its session expires; the page refreshes its session cookie
    before that (a session made from a token lives no longer than the token), reconnects with
    the new one and misses nothing."""
    alice, bob = browsers["alice"], browsers["bob"]
    sign_in_and_open(alice, server, "alice", expires_in="6s")
    before = alice.get_cookie("sotto_session")
    assert before and before["httpOnly"] and before.get("sameSite") == "Strict"
    assert alice.execute_script("return document.cookie") == "", "page scripts can read the session"
    time.sleep(8)  # past the first session's expiry
    after = alice.get_cookie("sotto_session")
    assert after and after["value"] != before["value"], "the page did not refresh its session"
    text = f"After the refresh {time.time():.0f}"
    labelled(bob, "Message").send_keys(text, Keys.ENTER)
    wait(alice, lambda d: text in message_texts(d), message="alice's socket did not resume after its token expired")
    assert alice.find_element(By.ID, "chat").is_displayed()  # still signed in


def test_bad_token_is_refused(server, browsers):
    driver = browsers["bob"]
    sign_in_with_token(driver, server, "not-a-token")
    error = wait(driver, lambda d: d.find_element(By.ID, "signin-error").text)
    assert "not accepted" in error
