"""Group direct messages, a channel's settings and members, and a message's edit history, in
three real browsers (alice, bob, carol): a group direct message made from the sidebar's form by
name and seen by the other two; a rename and a new topic seen live by the others, as text (markup
in them stays text); a member removed by the channel's creator losing the channel; a member
leaving; the edit history shown to its author and not offered to anyone else."""

import pathlib
import subprocess
import time

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import REPORT, make_driver, quit_all, sign_in_with_token, start_server, stop_server

TIMEOUT = 15
SCREENSHOTS = pathlib.Path("/tmp")
STAMP = f"{time.time():.0f}"
PLANNING = f"Planning {STAMP}"
# Markup in a channel's name and topic: shown as text, never run or parsed.
EVIL_NAME = f"<img src=x onerror=\"window.__xss='name'\">Plans {STAMP}"
EVIL_TOPIC = "<script>window.__xss='topic'</script> Boots & <b>maps</b>"


def wait(driver, condition, timeout=TIMEOUT, message=""):
    # A list drawn again between finding an element and reading it is read again.
    return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: condition(d), message)


def screenshot(driver, name):
    path = SCREENSHOTS / f"webui-{name}.png"
    driver.save_screenshot(str(path))
    REPORT.append(f"screenshot {path}")


def sidebar_names(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#channel-list button .channel-name')].map((node) => node.textContent)")


def open_channel(driver, name):
    wait(driver, lambda d: name in sidebar_names(d), message=f"{name!r} is not in the list: {sidebar_names(driver)}")
    for node in driver.find_elements(By.CSS_SELECTOR, "#channel-list button"):
        if node.find_element(By.CSS_SELECTOR, ".channel-name").text == name:
            node.click()
            break
    wait(driver, lambda d: d.find_element(By.ID, "channel-title").text == name, message=f"{name!r} did not open")


def title(driver):
    return driver.find_element(By.ID, "channel-title").text


def open_panel(driver, panel_id):
    panel = driver.find_element(By.ID, panel_id)
    if not panel.get_attribute("open"):
        panel.find_element(By.TAG_NAME, "summary").click()
    return panel


def close_panel(driver, panel_id):
    panel = driver.find_element(By.ID, panel_id)
    if panel.get_attribute("open"):
        panel.find_element(By.TAG_NAME, "summary").click()


def people(driver):
    """The People panel's members: name → whether a Remove button is offered."""
    open_panel(driver, "channel-people")
    return dict(driver.execute_script(
        "return [...document.querySelectorAll('#people-list li')].map((item) =>"
        " [item.querySelector('.person-name').textContent, Boolean(item.querySelector('.remove-person'))])"))


def message_item(driver, text):
    for node in driver.find_elements(By.CSS_SELECTOR, "#message-list .message"):
        if node.find_element(By.CSS_SELECTOR, ".text").text == text:
            return node
    return None


def send(driver, text):
    driver.find_element(By.ID, "message-input").send_keys(text, Keys.ENTER)
    return wait(driver, lambda d: message_item(d, text) if message_item(d, text) and message_item(d, text).find_elements(
        By.CSS_SELECTOR, "[data-action='edit']") else None, message=f"{text!r} was not sent")


@pytest.fixture(scope="module")
def team():
    server = start_server(["--canned-suggestions"])
    subprocess.run([server.binary, "user", "add", "carol", "Carol"], env=server.env, check=True, capture_output=True)
    drivers = {name: make_driver() for name in ("alice", "bob", "carol")}
    for name, driver in drivers.items():
        sign_in_with_token(driver, server, server.token(name))
        wait(driver, lambda d: d.find_element(By.ID, "chat").is_displayed(), message=f"{name} is not signed in")
    yield server, drivers
    errors = quit_all(drivers)
    stop_server(server)
    assert not any(errors.values()), f"the page threw: {errors}"


def test_a_group_direct_message_is_made_by_name_and_seen_by_the_others(team):
    server, drivers = team
    alice, bob, carol = drivers["alice"], drivers["bob"], drivers["carol"]
    # Alice makes a private channel with bob and carol: after it, she knows them by name.
    open_panel(alice, "channel-tools")
    alice.find_element(By.ID, "new-channel-name").send_keys(PLANNING)
    alice.find_element(By.ID, "new-channel-public").click()
    alice.find_element(By.XPATH, "//button[normalize-space()='Create channel']").click()
    wait(alice, lambda d: title(d) == PLANNING, message="the channel did not open")
    for user in ("bob", "carol"):
        open_panel(alice, "channel-people")
        alice.find_element(By.ID, "add-person").send_keys(user, Keys.ENTER)
        wait(alice, lambda d: len(people(d)) == (2 if user == "bob" else 3), message=f"{user} was not added")
    close_panel(alice, "channel-people")

    # The form offers the people she knows by name, and takes several.
    open_panel(alice, "channel-tools")
    offered = [(o.get_attribute("value"), o.get_attribute("label")) for o in alice.find_elements(By.CSS_SELECTOR, "#direct-people option")]
    assert offered == [("Bob", "bob"), ("Carol", "carol")]
    box = alice.find_element(By.ID, "direct-user")
    box.send_keys("Bob")
    alice.find_element(By.ID, "direct-add").click()
    box.send_keys("carol", Keys.ENTER)  # Enter adds the name, it does not open yet
    chips = lambda d: [c.text.replace("×", "").strip() for c in d.find_elements(By.CSS_SELECTOR, "#direct-chosen .chosen-name")]
    wait(alice, lambda d: chips(d) == ["Bob", "Carol"], message=f"the chosen people: {chips(alice)}")
    assert title(alice) == PLANNING
    # A name nobody has is refused with words, not sent.
    box.send_keys("Nobody Here")
    alice.find_element(By.ID, "direct-add").click()
    wait(alice, lambda d: "No one called Nobody Here" in d.find_element(By.ID, "direct-note").text)
    box.clear()
    assert alice.find_element(By.ID, "direct-open").text == "Open group message"
    screenshot(alice, "group-dm-form")
    alice.find_element(By.ID, "direct-open").click()
    wait(alice, lambda d: title(d) == "Bob, Carol", message=f"the group message did not open: {title(alice)!r}")
    assert not alice.find_element(By.ID, "channel-tools").get_attribute("open")
    assert not alice.find_element(By.ID, "channel-settings").is_displayed()  # no settings for a DM
    text = f"All three of us {STAMP}"
    send(alice, text)

    # Each of the others finds it in the list by the other two names, with the message.
    for driver, others in ((bob, "Alice, Carol"), (carol, "Alice, Bob")):
        open_channel(driver, others)
        wait(driver, lambda d: message_item(d, text), message=f"{others}: the message did not arrive")
        assert sorted(people(driver)) == ["Alice", "Bob", "Carol"]
        assert not any(people(driver).values())  # a direct message's members are fixed
        close_panel(driver, "channel-people")
    screenshot(carol, "group-dm")

    # Opening it again with the same people finds the same conversation.
    open_panel(bob, "channel-tools")
    bob.find_element(By.ID, "direct-user").send_keys("Carol", Keys.ENTER)
    bob.find_element(By.ID, "direct-user").send_keys("alice")
    bob.find_element(By.ID, "direct-open").click()
    wait(bob, lambda d: title(d) == "Alice, Carol" and message_item(d, text) is not None)
    assert sidebar_names(bob).count("Alice, Carol") == 1


def test_a_rename_and_a_topic_are_seen_live_and_as_text(team):
    server, drivers = team
    alice, bob = drivers["alice"], drivers["bob"]
    open_channel(alice, PLANNING)
    open_channel(bob, PLANNING)
    settings = open_panel(alice, "channel-settings")
    name = settings.find_element(By.ID, "channel-name-input")
    assert name.get_attribute("value") == PLANNING
    name.clear()
    name.send_keys(EVIL_NAME)
    topic = settings.find_element(By.ID, "channel-topic-input")
    topic.clear()
    topic.send_keys(EVIL_TOPIC)
    screenshot(alice, "channel-settings")
    settings.find_element(By.XPATH, ".//button[normalize-space()='Save']").click()
    wait(alice, lambda d: not d.find_element(By.ID, "channel-settings").get_attribute("open"), message="Save did not close the panel")

    for driver in (bob, alice):
        wait(driver, lambda d: title(d) == EVIL_NAME, message=f"the new name did not show: {title(driver)!r}")
        wait(driver, lambda d: d.find_element(By.ID, "channel-topic").text == EVIL_TOPIC, message="the new topic did not show")
        assert EVIL_NAME in sidebar_names(driver)
        # Text, not markup: no element was made from it, nothing ran.
        assert not driver.find_elements(By.CSS_SELECTOR, "#channel-title *, #channel-topic *, #channel-list .channel-name *")
        assert driver.execute_script("return window.__xss === undefined")
    screenshot(bob, "channel-renamed-as-text")

    # The topic changed alone, and emptied, reaches the other side too.
    settings = open_panel(bob, "channel-settings")
    assert settings.find_element(By.ID, "channel-name-input").get_attribute("value") == EVIL_NAME
    topic = settings.find_element(By.ID, "channel-topic-input")
    topic.clear()
    topic.send_keys("Gear list")
    topic.send_keys(Keys.ENTER)
    wait(alice, lambda d: d.find_element(By.ID, "channel-topic").text == "Gear list", message="bob's topic did not reach alice")
    assert title(alice) == EVIL_NAME


def test_the_creator_removes_a_member_who_loses_the_channel(team):
    server, drivers = team
    alice, bob, carol = drivers["alice"], drivers["bob"], drivers["carol"]
    open_channel(carol, EVIL_NAME)
    open_channel(bob, EVIL_NAME)
    # Alice made the channel: she may remove the others (not herself: that is leaving); bob may not.
    assert people(alice) == {"Alice": False, "Bob": True, "Carol": True}
    assert people(bob) == {"Alice": False, "Bob": False, "Carol": False}
    screenshot(alice, "people-remove")
    carol_row = next(i for i in alice.find_elements(By.CSS_SELECTOR, "#people-list li") if i.get_attribute("data-user") == "carol")
    carol_row.find_element(By.CSS_SELECTOR, ".remove-person").click()

    # Carol's open channel closes and leaves her list; the others see her gone.
    wait(carol, lambda d: EVIL_NAME not in sidebar_names(d), message="carol's list still has the channel")
    wait(carol, lambda d: title(d) == "Pick a channel", message=f"carol still shows {title(carol)!r}")
    assert not carol.find_elements(By.CSS_SELECTOR, "#message-list .message")
    assert not carol.find_element(By.ID, "composer").is_displayed()
    for driver in (alice, bob):
        wait(driver, lambda d: sorted(people(d)) == ["Alice", "Bob"], message="carol is still listed")
    # The group direct message stays hers.
    assert "Alice, Bob" in sidebar_names(carol)
    screenshot(carol, "removed")


def test_a_member_leaves_a_channel(team):
    server, drivers = team
    alice, bob = drivers["alice"], drivers["bob"]
    open_channel(bob, EVIL_NAME)
    open_channel(alice, EVIL_NAME)
    open_panel(bob, "channel-settings")
    bob.find_element(By.CSS_SELECTOR, "#leave-channel summary").click()
    confirm = wait(bob, lambda d: d.find_element(By.ID, "leave-channel-confirm") if d.find_element(
        By.ID, "leave-channel-confirm").is_displayed() else None)
    screenshot(bob, "leave-confirm")
    confirm.click()
    wait(bob, lambda d: EVIL_NAME not in sidebar_names(d), message="bob's list still has the channel")
    wait(bob, lambda d: title(d) == "Pick a channel")
    wait(alice, lambda d: list(people(d)) == ["Alice"], message="alice still lists bob")
    # He may not come back by the channel browser: it was private.
    open_panel(bob, "directory")
    time.sleep(0.5)
    assert EVIL_NAME not in [n.text for n in bob.find_elements(By.CSS_SELECTOR, "#directory-list .listing-name")]
    close_panel(bob, "directory")


def test_the_edit_history_is_the_author_s_alone(team):
    server, drivers = team
    alice, bob = drivers["alice"], drivers["bob"]
    open_channel(alice, "Weekend Hike")
    open_channel(bob, "Weekend Hike")
    close_panel(alice, "channel-people")
    first = f"Meet at 9 {STAMP}"
    mine = send(alice, first)
    message_id = mine.get_attribute("data-id")
    mine_now = lambda d: d.find_element(By.CSS_SELECTOR, f"#message-list .message[data-id='{message_id}']")
    assert not mine.find_elements(By.CSS_SELECTOR, "[data-action='history']")  # not edited yet
    texts = [first, f"Meet at 10 {STAMP}", f"Meet at 10, by the <b>bridge</b> {STAMP}"]
    for text in texts[1:]:
        mine_now(alice).find_element(By.CSS_SELECTOR, "[data-action='edit']").click()
        box = wait(alice, lambda d: mine_now(d).find_element(By.CSS_SELECTOR, "form.edit textarea"))
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(text, Keys.ENTER)
        wait(alice, lambda d: mine_now(d).find_element(By.CSS_SELECTOR, ".text").text == text)
    wait(bob, lambda d: mine_now(d).find_element(By.CSS_SELECTOR, ".text").text == texts[-1], message="bob did not see the edit")

    # The author opens it: the earlier texts, oldest first, then the one now, each with a time.
    toggle = wait(alice, lambda d: mine_now(d).find_element(By.CSS_SELECTOR, "[data-action='history']"), message="no History")
    assert toggle.text == "History"
    toggle.click()
    history = wait(alice, lambda d: mine_now(d).find_element(By.CSS_SELECTOR, ".history[data-status='done']"),
                   message="the history did not load")
    versions = history.find_elements(By.CSS_SELECTOR, ".version")
    assert [v.find_element(By.CSS_SELECTOR, ".version-text").text for v in versions] == texts
    labels = [v.find_element(By.CSS_SELECTOR, ".version-when").text for v in versions]
    assert [label.split(" · ")[0] for label in labels] == ["Original", "Edit 1", "Current"]
    assert all(any(ch.isdigit() for ch in label.split(" · ")[1]) for label in labels)
    assert not history.find_elements(By.CSS_SELECTOR, "b")  # text, not markup
    assert mine_now(alice).find_element(By.CSS_SELECTOR, "[data-action='history']").text == "Hide history"
    alice.execute_script("arguments[0].scrollIntoView({block: 'end'})", mine_now(alice))
    screenshot(alice, "edit-history")

    # Bob sees that it was edited, but is not offered its history.
    theirs = mine_now(bob)
    assert "edited" in theirs.find_element(By.CSS_SELECTOR, ".meta").text
    assert not theirs.find_elements(By.CSS_SELECTOR, "[data-action='history'], .history")
    # Hiding it takes the box away.
    mine_now(alice).find_element(By.CSS_SELECTOR, "[data-action='history']").click()
    wait(alice, lambda d: not mine_now(d).find_elements(By.CSS_SELECTOR, ".history"))


def test_an_administrator_is_offered_the_history_of_another_s_message(team):
    server, drivers = team
    alice, bob, carol = drivers["alice"], drivers["bob"], drivers["carol"]
    open_channel(alice, "Bob, Carol")
    first = f"Dinner at 7 {STAMP}"
    mine = send(alice, first)
    message_id = mine.get_attribute("data-id")
    mine_now = lambda d: d.find_element(By.CSS_SELECTOR, f"#message-list .message[data-id='{message_id}']")
    mine.find_element(By.CSS_SELECTOR, "[data-action='edit']").click()
    box = wait(alice, lambda d: mine_now(d).find_element(By.CSS_SELECTOR, "form.edit textarea"))
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(f"Dinner at 8 {STAMP}", Keys.ENTER)
    wait(alice, lambda d: "edited" in mine_now(d).find_element(By.CSS_SELECTOR, ".meta").text)

    # Carol, signed in again as an administrator, may read it; bob, a member, may not.
    admin_token = subprocess.run([server.binary, "token", "carol", "--admin", "--expires-in", "1h"], env=server.env,
                                 check=True, capture_output=True, text=True).stdout.strip()
    sign_in_with_token(carol, server, admin_token)
    open_channel(carol, "Alice, Bob")
    wait(carol, lambda d: mine_now(d).find_elements(By.CSS_SELECTOR, "[data-action='history']"),
         message="the administrator is not offered the history")[0].click()
    history = wait(carol, lambda d: mine_now(d).find_element(By.CSS_SELECTOR, ".history[data-status='done']"))
    assert [v.text for v in history.find_elements(By.CSS_SELECTOR, ".version-text")] == [first, f"Dinner at 8 {STAMP}"]
    open_channel(bob, "Alice, Carol")
    wait(bob, lambda d: "edited" in mine_now(d).find_element(By.CSS_SELECTOR, ".meta").text)
    assert not mine_now(bob).find_elements(By.CSS_SELECTOR, "[data-action='history']")
