"""Editing, deleting and reacting in two real browsers (issue 24): the author edits in place and
the other side sees the text change and "edited"; a reaction counts who gave it; a deletion
leaves "message deleted" on both sides; a reload keeps all of it."""

import pathlib
import time

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import REPORT, make_driver, quit_all, sign_in_with_token, start_server, stop_server

TIMEOUT = 15
SCREENSHOTS = pathlib.Path(__file__).resolve().parents[2] / ".build" / "screenshots"


def wait(driver, condition, timeout=TIMEOUT, message=""):
    # An element drawn again between finding it and reading it is "not yet", not a failure.
    return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: condition(d), message)


def item(driver, text):
    """The message whose text is `text` (None when there is none)."""
    for node in driver.find_elements(By.CSS_SELECTOR, "#message-list .message"):
        if node.find_element(By.CSS_SELECTOR, ".text").text == text:
            return node
    return None


def item_by_id(driver, message_id):
    found = driver.find_elements(By.CSS_SELECTOR, f"#message-list .message[data-id='{message_id}']")
    return found[0] if found else None


def open_hike(driver, server, user):
    sign_in_with_token(driver, server, server.token(user))
    wait(driver, lambda d: d.find_element(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]")).click()
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#message-list .message")) >= 8, message="no history")


@pytest.fixture(scope="module")
def pair():
    server = start_server(["--canned-suggestions"])
    drivers = {"alice": make_driver(), "bob": make_driver()}
    yield server, drivers
    errors = quit_all(drivers)
    stop_server(server)
    assert not any(errors.values()), f"the page threw: {errors}"


def test_edit_react_and_delete_reach_the_other_side(pair):
    server, drivers = pair
    alice, bob = drivers["alice"], drivers["bob"]
    open_hike(alice, server, "alice")
    open_hike(bob, server, "bob")
    first = f"Lunch at noon {time.time():.0f}"
    alice.find_element(By.ID, "message-input").send_keys(first, Keys.ENTER)
    mine = wait(alice, lambda d: item(d, first) if item(d, first) and item(d, first).find_elements(
        By.CSS_SELECTOR, "[data-action='edit']") else None, message="no Edit on alice's message")
    message_id = mine.get_attribute("data-id")
    wait(bob, lambda d: item(d, first), message="bob did not get the message")
    # Only the author may edit: bob's copy has no Edit and no Delete.
    theirs = item_by_id(bob, message_id)
    assert not theirs.find_elements(By.CSS_SELECTOR, "[data-action='edit'], [data-action='delete']")

    # Alice edits in place; Enter saves.
    mine.find_element(By.CSS_SELECTOR, "[data-action='edit']").click()
    box = wait(alice, lambda d: item_by_id(d, message_id).find_element(By.CSS_SELECTOR, "form.edit textarea"))
    box.send_keys(Keys.CONTROL, "a")
    second = first.replace("noon", "one")
    box.send_keys(second, Keys.ENTER)
    wait(bob, lambda d: item_by_id(d, message_id).find_element(By.CSS_SELECTOR, ".text").text == second,
         message="bob did not see the edit")
    assert "edited" in item_by_id(bob, message_id).find_element(By.CSS_SELECTOR, ".meta").text
    wait(alice, lambda d: not item_by_id(d, message_id).find_elements(By.CSS_SELECTOR, "form.edit"))

    # Bob reacts from the React menu; alice sees the count and adds hers.
    menu = item_by_id(bob, message_id).find_element(By.CSS_SELECTOR, "details.react")
    menu.find_element(By.TAG_NAME, "summary").click()
    menu.find_element(By.CSS_SELECTOR, "button[aria-label='React with 👍']").click()
    chip = wait(alice, lambda d: item_by_id(d, message_id).find_element(By.CSS_SELECTOR, ".reactions .reaction"),
                message="alice did not see bob's reaction")
    assert chip.text == "👍 1" and chip.get_attribute("aria-pressed") == "false"
    chip.click()
    wait(bob, lambda d: item_by_id(d, message_id).find_element(By.CSS_SELECTOR, ".reactions .reaction").text == "👍 2")
    assert item_by_id(bob, message_id).find_element(By.CSS_SELECTOR, ".reaction").get_attribute("aria-pressed") == "true"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    bob.save_screenshot(str(SCREENSHOTS / "messages-edited-and-reacted.png"))
    REPORT.append(f"screenshot {SCREENSHOTS / 'messages-edited-and-reacted.png'}")

    # A reload keeps the edit and the reactions.
    bob.refresh()
    wait(bob, lambda d: d.find_element(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]")).click()
    wait(bob, lambda d: item_by_id(d, message_id) is not None and item_by_id(d, message_id).find_elements(
        By.CSS_SELECTOR, ".reactions .reaction"), message="the reload lost the reactions")
    assert item_by_id(bob, message_id).find_element(By.CSS_SELECTOR, ".text").text == second

    # Alice deletes it, after confirming; both sides see the tombstone.
    item_by_id(alice, message_id).find_element(By.CSS_SELECTOR, "[data-action='delete']").click()
    confirm = wait(alice, lambda d: item_by_id(d, message_id).find_element(By.CSS_SELECTOR, ".confirm"))
    confirm.find_element(By.XPATH, ".//button[normalize-space()='Yes, delete']").click()
    for driver in (alice, bob):
        wait(driver, lambda d: item_by_id(d, message_id).find_element(By.CSS_SELECTOR, ".text").text == "message deleted",
             message="the tombstone did not show")
        assert not item_by_id(driver, message_id).find_elements(By.CSS_SELECTOR, ".reactions, .message-actions")
    alice.save_screenshot(str(SCREENSHOTS / "messages-deleted.png"))
    REPORT.append(f"screenshot {SCREENSHOTS / 'messages-deleted.png'}")
    # Search does not find the deleted words.
    alice.find_element(By.ID, "search-input").send_keys(second.split()[-1], Keys.ENTER)
    time.sleep(1)
    assert second not in alice.find_element(By.ID, "search-results").text


def test_a_mention_is_completed_in_the_composer_and_marked_for_the_one_mentioned(pair):
    server, drivers = pair
    alice, bob = drivers["alice"], drivers["bob"]
    composer = bob.find_element(By.ID, "message-input")
    composer.send_keys("@al")
    choice = wait(bob, lambda d: [b for b in d.find_elements(By.CSS_SELECTOR, ".mention-choices button") if b.is_displayed()],
                  message="no mention choices")[0]
    assert choice.text == "@alice · Alice"
    composer.send_keys(Keys.TAB)
    assert composer.get_attribute("value") == "@alice "
    text = f"lunch at {time.time():.0f}?"
    composer.send_keys(text, Keys.ENTER)
    wait(bob, lambda d: item(d, f"@alice {text}"), message="bob's mention was not sent: " + str(
        [n.text for n in bob.find_elements(By.CSS_SELECTOR, "#message-list .message .text")][-3:]))
    wait(alice, lambda d: item(d, f"@alice {text}"), message="alice did not get the mention: " + str(
        [n.text for n in alice.find_elements(By.CSS_SELECTOR, "#message-list .message .text")][-3:]))
    mark = item(alice, f"@alice {text}").find_element(By.CSS_SELECTOR, ".text .mention")
    assert mark.text == "@alice" and "you" in mark.get_attribute("class").split()
    # On bob's side the mention is marked, but not as his own.
    theirs = item(bob, f"@alice {text}").find_element(By.CSS_SELECTOR, ".text .mention")
    assert "you" not in theirs.get_attribute("class").split()
    alice.save_screenshot(str(SCREENSHOTS / "messages-mention.png"))
    REPORT.append(f"screenshot {SCREENSHOTS / 'messages-mention.png'}")


def test_a_public_channel_is_made_found_and_joined_and_a_direct_message_opened(pair):
    server, drivers = pair
    alice, bob = drivers["alice"], drivers["bob"]
    name = f"Trips {time.time():.0f}"
    alice.find_element(By.CSS_SELECTOR, "#channel-tools summary").click()
    alice.find_element(By.ID, "new-channel-name").send_keys(name)
    alice.find_element(By.ID, "new-channel-topic").send_keys("<b>Where</b> next?")
    alice.find_element(By.XPATH, "//button[normalize-space()='Create channel']").click()
    wait(alice, lambda d: d.find_element(By.ID, "channel-title").text == name, message="the new channel did not open")
    assert alice.find_element(By.ID, "channel-topic").text == "<b>Where</b> next?"  # text, not markup

    bob.find_element(By.CSS_SELECTOR, "#directory summary").click()
    listing = wait(bob, lambda d: [li for li in d.find_elements(By.CSS_SELECTOR, "#directory-list .listing")
                                   if li.find_element(By.CSS_SELECTOR, ".listing-name").text == name],
                   message="the channel browser did not list it")[0]
    assert listing.find_element(By.CSS_SELECTOR, ".listing-count").text == "1 member"
    listing.find_element(By.CSS_SELECTOR, "button.join").click()
    wait(bob, lambda d: d.find_element(By.ID, "channel-title").text == name, message="joining did not open it")
    text = f"Joined at {time.time():.0f}"
    bob.find_element(By.ID, "message-input").send_keys(text, Keys.ENTER)
    wait(alice, lambda d: item(d, text), message="alice did not get bob's message in the new channel")
    bob.save_screenshot(str(SCREENSHOTS / "channels-joined.png"))
    REPORT.append(f"screenshot {SCREENSHOTS / 'channels-joined.png'}")

    # A direct message, opened by user id: called by the other person's name.
    alice.find_element(By.CSS_SELECTOR, "#channel-tools summary").click()
    alice.find_element(By.ID, "direct-user").send_keys("bob")
    alice.find_element(By.XPATH, "//button[normalize-space()='Open direct message']").click()
    wait(alice, lambda d: d.find_element(By.ID, "channel-title").text == "Bob", message="the direct message did not open")
    private = f"Just us {time.time():.0f}"
    alice.find_element(By.ID, "message-input").send_keys(private, Keys.ENTER)
    wait(bob, lambda d: [b for b in d.find_elements(By.CSS_SELECTOR, "#channel-list button .channel-name")
                         if b.text == "Alice"], message="bob's list did not show the direct message")


def test_a_name_opens_a_direct_message_and_people_lists_the_members(pair):
    server, drivers = pair
    alice, bob = drivers["alice"], drivers["bob"]
    wait(bob, lambda d: d.find_element(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]")).click()
    wait(bob, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#message-list .message")) >= 8)
    people = bob.find_element(By.ID, "channel-people")
    people.find_element(By.TAG_NAME, "summary").click()
    names = [li.text for li in people.find_elements(By.CSS_SELECTOR, "#people-list li")]
    assert sorted(names) == ["Alice", "Bob"]
    # Alice's name on one of her messages opens the direct message with her.
    author = next(b for b in bob.find_elements(By.CSS_SELECTOR, "#message-list .message button.author") if b.text == "Alice")
    author.click()
    wait(bob, lambda d: d.find_element(By.ID, "channel-title").text == "Alice", message="the name did not open the DM")
    assert not bob.find_element(By.ID, "add-person-form").is_displayed()  # a DM's members are fixed
