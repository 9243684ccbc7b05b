"""A team moves in (issue 24): the setup link `sotto serve` prints makes the first
administrator, who invites two people from the web app; each sets a password from their link,
signs out and back in with it, and they chat. The session is a cookie page scripts cannot read,
it survives a reload, and a used link, a wrong password and a foreign page get nowhere."""

import pathlib
import re
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import REPORT, make_driver, quit_all, start_server, stop_server

TIMEOUT = 15
SCREENSHOTS = pathlib.Path(__file__).resolve().parents[2] / ".build" / "screenshots"


def wait(driver, condition, timeout=TIMEOUT, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d), message)


def labelled(driver, text):
    """The visible form control whose <label> reads `text`."""
    for label in driver.find_elements(By.XPATH, f"//label[normalize-space(text())='{text}']"):
        control = driver.find_element(By.ID, label.get_attribute("for"))
        if control.is_displayed():
            return control
    raise AssertionError(f"no visible control labelled {text!r}")


def button(driver, text):
    return next(b for b in driver.find_elements(By.XPATH, f"//button[normalize-space()='{text}']") if b.is_displayed())


def screenshot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"accounts-{name}.png"
    driver.save_screenshot(str(path))
    REPORT.append(f"screenshot {path}")


def messages(driver):
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, "#message-list .message .text")]


def signed_in(driver):
    return driver.find_element(By.ID, "chat").is_displayed()


def open_hike(driver):
    wait(driver, lambda d: d.find_element(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]")).click()
    wait(driver, lambda d: len(messages(d)) >= 8, message="history did not load")


def use_link(driver, link, password, name=None):
    driver.get(link)
    wait(driver, lambda d: d.find_element(By.ID, "join").is_displayed(), message="the link's page did not open")
    if name is not None:
        field = labelled(driver, "Your name")
        field.clear()
        field.send_keys(name)
    labelled(driver, "New password").send_keys(password)
    button(driver, "Set password and sign in").click()
    wait(driver, signed_in, message="the link did not sign in")
    assert "#join=" not in driver.current_url, "the secret stayed in the address bar"


def sign_in(driver, base_url, user, password):
    driver.get(base_url + "/")
    wait(driver, lambda d: d.find_element(By.ID, "signin").is_displayed())
    labelled(driver, "User").send_keys(user)
    labelled(driver, "Password").send_keys(password)
    button(driver, "Sign in").click()


def make_link(admin, user, kind="invite"):
    """The administrator makes a link in the account panel; returns it."""
    field = admin.find_element(By.ID, "invite-link")
    before = field.get_attribute("value")
    labelled(admin, "User id").clear()
    labelled(admin, "User id").send_keys(user)
    admin.find_element(By.ID, "invite-kind").send_keys("Password reset" if kind == "reset" else "Invitation")
    button(admin, "Make link").click()
    link = wait(admin, lambda d: field.is_displayed() and field.get_attribute("value") not in ("", before)
                and field.get_attribute("value"), message="no link was made")
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/#join=[A-Za-z0-9_-]{43}", link), link
    return link


@pytest.fixture(scope="module")
def team():
    """A fresh server with the demo conversation and no administrator, and the setup link it
    printed."""
    server = start_server(["--canned-suggestions"])
    link = None
    deadline = time.time() + 30
    while time.time() < deadline and link is None:
        line = server.process.stdout.readline()
        match = re.search(r"(http://\S+/#join=[A-Za-z0-9_-]{43})", line)
        if match:
            link = match.group(1)
    if link is None:
        stop_server(server)
        pytest.fail("sotto serve printed no setup link on a fresh data directory")
    drivers = {name: make_driver() for name in ("admin", "alice", "bob")}
    yield server, link, drivers
    errors = quit_all(drivers)
    stop_server(server)
    assert not any(errors.values()), f"the page threw: {errors}"


def test_a_team_moves_in_with_a_setup_link_invitations_and_passwords(team):
    server, setup_link, drivers = team
    admin, alice, bob = drivers["admin"], drivers["alice"], drivers["bob"]

    # The setup link makes the first administrator.
    admin.get(setup_link)
    intro = wait(admin, lambda d: d.find_element(By.ID, "join-intro").text)
    assert "first administrator" in intro
    screenshot(admin, "setup-link")
    use_link(admin, setup_link, "admin password 1", name="Ada Admin")
    assert admin.find_element(By.ID, "me-name").text == "Ada Admin"
    # The session is a cookie this page cannot read.
    cookie = admin.get_cookie("sotto_session")
    assert cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Strict"
    assert admin.execute_script("return document.cookie") == ""
    assert admin.execute_script("return Object.keys(sessionStorage).length + Object.keys(localStorage).filter(k => /token|session/.test(k)).length") == 0

    # The administrator invites two people from the account panel.
    admin.find_element(By.CSS_SELECTOR, "#account summary").click()
    alice_link = make_link(admin, "alice")
    bob_link = make_link(admin, "bob")
    assert alice_link != bob_link
    screenshot(admin, "invite")

    # Each sets a password from their link, and is in the chat at once.
    use_link(alice, alice_link, "alice password 1")
    open_hike(alice)
    use_link(bob, bob_link, "bob password 1", name="Bob B.")
    open_hike(bob)

    # They sign out and back in with the passwords.
    for driver, user, password in ((alice, "alice", "alice password 1"), (bob, "bob", "bob password 1")):
        button(driver, "Sign out").click()
        wait(driver, lambda d: d.find_element(By.ID, "signin").is_displayed())
        assert driver.get_cookie("sotto_session") is None, "signing out left the cookie"
        sign_in(driver, server.base_url, user, password)
        wait(driver, signed_in, message=f"{user} could not sign in with the password")
        open_hike(driver)
    screenshot(alice, "signed-in")

    # They chat, live.
    text = f"Moved in at {time.time():.0f}"
    bob.find_element(By.ID, "message-input").send_keys(text, Keys.ENTER)
    wait(alice, lambda d: text in messages(d), message="bob's message did not reach alice")

    # A reload keeps the session.
    alice.refresh()
    wait(alice, signed_in, message="the reload signed alice out")
    open_hike(alice)
    assert text in messages(alice)


def test_a_used_link_a_wrong_password_and_a_reset(team):
    server, setup_link, drivers = team
    admin, bob = drivers["admin"], drivers["bob"]

    # The setup link worked once.
    bob.delete_all_cookies()
    bob.get(setup_link)
    error = wait(bob, lambda d: d.find_element(By.ID, "signin-error").text)
    assert "does not work" in error
    assert "#join=" not in bob.current_url

    # A wrong password is refused with words, not a session.
    sign_in(bob, server.base_url, "bob", "not bob's password")
    error = wait(bob, lambda d: d.find_element(By.ID, "signin-error").text)
    assert error == "Wrong user name or password."
    assert bob.get_cookie("sotto_session") is None
    screenshot(bob, "wrong-password")

    # The administrator resets bob's password; his link sets a new one.
    if not admin.find_element(By.ID, "invite-form").is_displayed():
        admin.find_element(By.CSS_SELECTOR, "#account summary").click()
    reset = make_link(admin, "bob", kind="reset")
    bob.get(reset)
    intro = wait(bob, lambda d: d.find_element(By.ID, "join-intro").text)
    assert "new password" in intro
    assert not bob.find_element(By.ID, "join-name").is_displayed()  # a reset keeps the name
    use_link(bob, reset, "bob password 2")
    button(bob, "Sign out").click()
    sign_in(bob, server.base_url, "bob", "bob password 1")
    assert wait(bob, lambda d: d.find_element(By.ID, "signin-error").text) == "Wrong user name or password."
    sign_in(bob, server.base_url, "bob", "bob password 2")
    wait(bob, signed_in, message="the new password did not sign bob in")


def test_changing_the_password_signs_out_the_other_browsers(team):
    server, _, drivers = team
    alice = drivers["alice"]
    other = make_driver()
    try:
        sign_in(other, server.base_url, "alice", "alice password 1")
        wait(other, signed_in)
        if not alice.find_element(By.ID, "password-form").is_displayed():
            alice.find_element(By.CSS_SELECTOR, "#account summary").click()
        labelled(alice, "Current password").send_keys("alice password 1")
        labelled(alice, "New password").send_keys("alice password 2")
        button(alice, "Change password").click()
        note = wait(alice, lambda d: d.find_element(By.ID, "account-note").text)
        assert note.startswith("Password changed")
        # This browser stays in, on a new session; the other one is signed out.
        wait(other, lambda d: d.find_element(By.ID, "signin").is_displayed(), message="the other browser stayed in")
        assert signed_in(alice)
        text = f"Still here at {time.time():.0f}"
        alice.find_element(By.ID, "message-input").send_keys(text, Keys.ENTER)
        wait(alice, lambda d: any(text == t for t in messages(d)))
        sign_in(other, server.base_url, "alice", "alice password 2")
        wait(other, signed_in)
    finally:
        other.quit()


def test_another_window_signing_in_as_someone_else_is_noticed(team):
    """One browser holds one session: when a second tab signs out and in as someone else, the first tab
    sees it at its next request (its CSRF token no longer fits) and shows who is signed in now,
    never one person's page with another's data."""
    server, _, drivers = team
    bob = drivers["bob"]
    bob.get(server.base_url + "/")
    wait(bob, signed_in, message="bob's session did not last a reload")
    first = bob.current_window_handle
    bob.switch_to.new_window("tab")
    bob.get(server.base_url + "/")
    wait(bob, signed_in)  # the same session: the cookie is the browser's
    button(bob, "Sign out").click()
    sign_in(bob, server.base_url, "alice", "alice password 2")
    wait(bob, signed_in)
    bob.close()
    bob.switch_to.window(first)
    assert "Bob" in bob.find_element(By.ID, "me-name").text
    bob.find_element(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]").click()
    wait(bob, lambda d: d.find_element(By.ID, "me-name").text == "Alice", message="the tab did not notice the new session")
