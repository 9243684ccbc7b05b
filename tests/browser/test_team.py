"""The whole chat, as a team of three uses it, each in a browser of their own, from a fresh
server (`sotto serve --demo` on an empty data directory): the setup link makes alice the first
administrator; she invites bob and carol from the account panel; each sets a password from their
link, signs out and back in with it. Alice makes a private channel with bob, carol a public one
that alice finds in "Browse channels" and joins, bob a direct message with carol. In them:
an edit, a deletion, a reaction, a reply in a thread, an @mention of carol (her mention badge,
and a browser notification while her tab is hidden), unread counts rising in bob's browser and
clearing when he reads, an image attached and seen by the other side. Then all three pages load
again, and everything is still there. Screenshots go to /tmp/team-*.png."""

import pathlib
import re
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import REPORT, make_driver, quit_all, start_server, stop_server
from sidebar import screenshot as shot, wait, sidebar_names, sidebar_button, badge, open_channel
from test_accounts import button, labelled, make_link, sign_in, use_link

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOT = ROOT / "Tests" / "LocalEngineTests" / "Fixtures" / "images" / "screenshot.png"
STAMP = f"{time.time():.0f}"
PLANS = f"Plans {STAMP}"
OPEN_MIC = f"Open Mic {STAMP}"
PASSWORDS = {"alice": "alice's long password", "bob": "bob's long password", "carol": "carol's long password"}


def signed_in(driver):
    return driver.find_element(By.ID, "chat").is_displayed()


def open_panel(driver, panel_id):
    panel = driver.find_element(By.ID, panel_id)
    if not panel.get_attribute("open"):
        panel.find_element(By.TAG_NAME, "summary").click()
    return panel


def item(driver, text, where="#message-list"):
    for node in driver.find_elements(By.CSS_SELECTOR, f"{where} .message"):
        if node.find_element(By.CSS_SELECTOR, ".text").text == text:
            return node
    return None


def item_by_id(driver, message_id, where="#message-list"):
    found = driver.find_elements(By.CSS_SELECTOR, f"{where} .message[data-id='{message_id}']")
    return found[0] if found else None


def send(driver, text, box="message-input", where="#message-list"):
    """Sends `text`; returns the stored message's id."""
    driver.find_element(By.ID, box).send_keys(text, Keys.ENTER)
    node = wait(driver, lambda d: item(d, text, where) if item(d, text, where) and item(d, text, where).find_elements(
        By.CSS_SELECTOR, "[data-action='edit']") else None, message=f"{text!r} was not stored")
    return node.get_attribute("data-id")


def thumbnail_loaded(driver, message_id):
    node = item_by_id(driver, message_id)
    images = node.find_elements(By.CSS_SELECTOR, ".attachments img.attachment-thumbnail") if node else []
    return bool(images) and driver.execute_script(
        "return arguments[0].src.startsWith('blob:') && arguments[0].complete && arguments[0].naturalWidth > 0", images[0])


@pytest.fixture(scope="module")
def team():
    """A fresh server (no users, no channels but the demo's) and the links it printed, by user."""
    server = start_server(["--canned-suggestions", "--demo"], seed=False)
    links = {}
    user = None
    deadline = time.time() + 30
    while time.time() < deadline and "alice" not in links:
        line = server.process.stdout.readline()
        named = re.search(r"Open to sign in as (\w+), the first administrator", line)
        if named:
            user = named.group(1)
        match = re.search(r"(http://\S+/#join=[A-Za-z0-9_-]{43})", line)
        if match and user:
            links[user] = match.group(1)
    if "alice" not in links:
        stop_server(server)
        pytest.fail("sotto serve --demo printed no setup link for alice on a fresh data directory")
    drivers = {name: make_driver() for name in ("alice", "bob", "carol")}
    yield server, links["alice"], drivers
    errors = quit_all(drivers)
    stop_server(server)
    assert not any(errors.values()), f"the page threw: {errors}"


def test_a_team_of_three_chats(team):
    server, setup_link, drivers = team
    alice, bob, carol = drivers["alice"], drivers["bob"], drivers["carol"]

    # ---- Accounts: the setup link, two invitations, passwords.
    use_link(alice, setup_link, PASSWORDS["alice"], name="Alice")
    assert alice.find_element(By.ID, "me-name").text == "Alice"
    open_panel(alice, "account")
    links = {name: make_link(alice, name) for name in ("bob", "carol")}
    screenshot(alice, "invited")
    use_link(bob, links["bob"], PASSWORDS["bob"], name="Bob")
    use_link(carol, links["carol"], PASSWORDS["carol"], name="Carol")
    for name, driver in drivers.items():
        button(driver, "Sign out").click()
        wait(driver, lambda d: d.find_element(By.ID, "signin").is_displayed(), message=f"{name} was not signed out")
        sign_in(driver, server.base_url, name, PASSWORDS[name])
        wait(driver, signed_in, message=f"{name} could not sign in with the password")
    assert carol.find_element(By.ID, "me-name").text == "Carol"

    # ---- Channels: a private one, a public one found and joined, a direct message.
    open_panel(alice, "channel-tools")
    alice.find_element(By.ID, "new-channel-name").send_keys(PLANS)
    alice.find_element(By.ID, "new-channel-topic").send_keys("Just the two of us")
    public = alice.find_element(By.ID, "new-channel-public")
    if public.is_selected():
        public.click()
    button(alice, "Create channel").click()
    wait(alice, lambda d: d.find_element(By.ID, "channel-title").text == PLANS, message="the private channel did not open")
    open_panel(alice, "channel-people")
    alice.find_element(By.ID, "add-person").send_keys("bob", Keys.ENTER)
    wait(alice, lambda d: "Bob" in d.find_element(By.ID, "people-list").text, message="bob was not added")
    open_channel(bob, PLANS)

    open_panel(carol, "channel-tools")
    carol.find_element(By.ID, "new-channel-name").send_keys(OPEN_MIC)
    carol.find_element(By.ID, "new-channel-topic").send_keys("Anyone welcome")
    button(carol, "Create channel").click()
    wait(carol, lambda d: d.find_element(By.ID, "channel-title").text == OPEN_MIC, message="the public channel did not open")
    open_panel(alice, "directory")
    listing = wait(alice, lambda d: [li for li in d.find_elements(By.CSS_SELECTOR, "#directory-list .listing")
                                     if li.find_element(By.CSS_SELECTOR, ".listing-name").text == OPEN_MIC],
                   message="Browse channels did not list carol's channel")[0]
    assert PLANS not in alice.find_element(By.ID, "directory-list").text, "the private channel was listed"
    listing.find_element(By.CSS_SELECTOR, "button.join").click()
    wait(alice, lambda d: d.find_element(By.ID, "channel-title").text == OPEN_MIC, message="joining did not open it")

    open_panel(bob, "channel-tools")
    bob.find_element(By.ID, "direct-user").send_keys("carol")
    button(bob, "Open direct message").click()
    wait(bob, lambda d: d.find_element(By.ID, "channel-title").text == "Carol", message="the direct message did not open")
    hello = f"Hi Carol, it's Bob {STAMP}"
    send(bob, hello)
    open_channel(carol, "Bob")
    wait(carol, lambda d: item(d, hello), message="carol did not get bob's direct message")
    assert "Plans" not in " ".join(sidebar_names(carol)), "carol sees the private channel"

    # ---- In the private channel: an edit, a reaction, a deletion.
    open_channel(alice, PLANS)
    open_channel(bob, PLANS)
    first = f"Train at 9 {STAMP}"
    plan_id = send(alice, first)
    alice.find_element(By.CSS_SELECTOR, f".message[data-id='{plan_id}'] [data-action='edit']").click()
    box = wait(alice, lambda d: item_by_id(d, plan_id).find_element(By.CSS_SELECTOR, "form.edit textarea"))
    box.send_keys(Keys.CONTROL, "a")
    edited = f"Train at 10 {STAMP}"
    box.send_keys(edited, Keys.ENTER)
    wait(bob, lambda d: item_by_id(d, plan_id) and item_by_id(d, plan_id).find_element(By.CSS_SELECTOR, ".text").text == edited,
         message="bob did not see the edit")
    menu = item_by_id(bob, plan_id).find_element(By.CSS_SELECTOR, "details.react")
    menu.find_element(By.TAG_NAME, "summary").click()
    menu.find_element(By.CSS_SELECTOR, "button[aria-label='React with 👍']").click()
    wait(alice, lambda d: [c for c in item_by_id(d, plan_id).find_elements(By.CSS_SELECTOR, ".reactions .reaction") if c.text == "👍 1"],
         message="alice did not see bob's reaction")
    oops = f"Wrong channel, sorry {STAMP}"
    oops_id = send(bob, oops)
    wait(alice, lambda d: item_by_id(d, oops_id), message="alice did not get bob's message")
    item_by_id(bob, oops_id).find_element(By.CSS_SELECTOR, "[data-action='delete']").click()
    wait(bob, lambda d: item_by_id(d, oops_id).find_element(By.CSS_SELECTOR, ".confirm")).find_element(
        By.XPATH, ".//button[normalize-space()='Yes, delete']").click()
    for driver in (alice, bob):
        wait(driver, lambda d: item_by_id(d, oops_id).find_element(By.CSS_SELECTOR, ".text").text == "message deleted",
             message="the deletion did not show")
    screenshot(bob, "private-channel")

    # ---- A thread in the public channel.
    open_channel(carol, OPEN_MIC)
    open_channel(alice, OPEN_MIC)
    question = f"Who plays first? {STAMP}"
    root_id = send(carol, question)
    wait(alice, lambda d: item_by_id(d, root_id), message="alice did not get carol's question")
    item_by_id(alice, root_id).find_element(By.CSS_SELECTOR, "[data-action='reply']").click()
    wait(alice, lambda d: d.find_element(By.ID, "thread-panel").is_displayed(), message="the thread did not open")
    answer = f"I will, with the ukulele {STAMP}"
    send(alice, answer, box="thread-input", where="#thread-replies")
    wait(carol, lambda d: item_by_id(d, root_id).find_elements(By.CSS_SELECTOR, ".thread-link") and
         item_by_id(d, root_id).find_element(By.CSS_SELECTOR, ".thread-link").text.startswith("1 reply"),
         message="carol did not see the reply count")
    screenshot(alice, "thread")
    alice.find_element(By.ID, "thread-close").click()

    # ---- A mention of carol while her tab is hidden: the badge, and a notification.
    open_channel(carol, "Bob")
    carol.execute_script(
        "window.__notifications = [];"
        "window.Notification = class { constructor(title, options) { window.__notifications.push({ title, body: options.body }); }"
        "  static get permission() { return 'granted'; } };"
        "Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });")
    mention = f"@carol can you bring the speaker? {STAMP}"
    send(alice, mention)
    wait(carol, lambda d: badge(d, OPEN_MIC, ".mentions") == "@1", message="carol's mention badge did not rise")
    assert badge(carol, OPEN_MIC, ".unread") != ""
    notes = wait(carol, lambda d: d.execute_script("return window.__notifications"), message="no notification")
    assert len(notes) == 1 and "speaker" in notes[0]["body"], notes
    carol.execute_script("delete document.visibilityState; document.dispatchEvent(new Event('visibilitychange'));")
    screenshot(carol, "mention")
    open_channel(carol, OPEN_MIC)
    mark = wait(carol, lambda d: item(d, mention)).find_element(By.CSS_SELECTOR, ".text .mention")
    assert "you" in mark.get_attribute("class").split()
    wait(carol, lambda d: badge(d, OPEN_MIC, ".mentions") == "" and badge(d, OPEN_MIC, ".unread") == "",
         message="reading did not clear carol's badges")

    # ---- Unread counts rise in bob's browser while he is elsewhere, and clear when he reads.
    open_channel(bob, "Carol")
    news = [f"Tickets booked {STAMP}", f"Seats 12 and 13 {STAMP}"]
    open_channel(alice, PLANS)
    for text in news:
        send(alice, text)
    wait(bob, lambda d: badge(d, PLANS, ".unread") == "2", message=f"bob's unread count is {badge(bob, PLANS, '.unread')!r}")
    screenshot(bob, "unread")
    open_channel(bob, PLANS)
    wait(bob, lambda d: item(d, news[1]), message="bob did not see the news")
    wait(bob, lambda d: badge(d, PLANS, ".unread") == "", message="reading did not clear bob's unread count")

    # ---- An image, from alice to bob.
    alice.find_element(By.CSS_SELECTOR, "#composer .attach-input").send_keys(str(SHOT))
    wait(alice, lambda d: d.find_elements(By.CSS_SELECTOR, "#composer .pending-file[data-status='ready']"),
         message="the image did not upload")
    picture = f"The venue's map {STAMP}"
    picture_id = send(alice, picture)
    wait(bob, lambda d: item_by_id(d, picture_id) and thumbnail_loaded(d, picture_id), message="bob did not see the image")
    screenshot(bob, "image")

    # ---- Everything is still there after all three pages load again.
    for driver in drivers.values():
        driver.refresh()
        wait(driver, signed_in, message="a reload signed someone out")
    wait(alice, lambda d: {PLANS, OPEN_MIC} <= set(sidebar_names(d)), message=f"alice's channels: {sidebar_names(alice)}")
    wait(bob, lambda d: {PLANS, "Carol"} <= set(sidebar_names(d)), message=f"bob's channels: {sidebar_names(bob)}")
    wait(carol, lambda d: {OPEN_MIC, "Bob"} <= set(sidebar_names(d)), message=f"carol's channels: {sidebar_names(carol)}")
    assert PLANS not in sidebar_names(carol)

    open_channel(bob, PLANS)
    wait(bob, lambda d: item_by_id(d, picture_id) and thumbnail_loaded(d, picture_id), message="the image is gone after a reload")
    plan = item_by_id(bob, plan_id)
    assert plan.find_element(By.CSS_SELECTOR, ".text").text == edited
    assert "edited" in plan.find_element(By.CSS_SELECTOR, ".meta").text
    assert [c.text for c in plan.find_elements(By.CSS_SELECTOR, ".reactions .reaction")] == ["👍 1"]
    assert item_by_id(bob, oops_id).find_element(By.CSS_SELECTOR, ".text").text == "message deleted"
    assert all(item(bob, text) for text in news)
    screenshot(bob, "after-reload")

    open_channel(carol, OPEN_MIC)
    wait(carol, lambda d: item_by_id(d, root_id), message="the thread's root is gone after a reload")
    assert item_by_id(carol, root_id).find_element(By.CSS_SELECTOR, ".thread-link").text.startswith("1 reply")
    assert item(carol, mention) is not None
    open_channel(carol, "Bob")
    wait(carol, lambda d: item(d, hello), message="the direct message is gone after a reload")

    open_channel(alice, OPEN_MIC)
    wait(alice, lambda d: item_by_id(d, root_id), message="alice lost the public channel's messages")
    item_by_id(alice, root_id).find_element(By.CSS_SELECTOR, ".thread-link").click()
    wait(alice, lambda d: item(d, answer, "#thread-replies"), message="the reply is gone after a reload")
    screenshot(alice, "after-reload-thread")


def screenshot(driver, name):
    shot(driver, "team", name)
