"""Files in channels, in two real browsers (alice, bob): an image attached (a chip with its
preview, then sent) reaches the other side live as its thumbnail, stays after a reload and opens
as the full image in a new tab; a text file whose name is markup is a download link whose name
is text; a file over 10 MB is refused before any upload; a file that says it is a PNG and is HTML
shows the server's refusal; a reply in a thread carries a file; deleting the message takes its
file with it. Screenshots go to /tmp/attachments-*.png."""

import json
import pathlib
import tempfile
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import REPORT, make_driver, quit_all, sign_in_with_token, start_server, stop_server
from sidebar import screenshot as shot, wait

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOT = ROOT / "Tests" / "LocalEngineTests" / "Fixtures" / "images" / "screenshot.png"
STAMP = f"{time.time():.0f}"
EVIL_NAME = "<img src=x onerror=alert(1)>.txt"


def open_hike(driver):
    wait(driver, lambda d: d.find_element(By.XPATH, "//nav//button[.//span[text()='Weekend Hike']]")).click()
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#message-list .message")) >= 8, message="no history")


def item(driver, text, where="#message-list"):
    for node in driver.find_elements(By.CSS_SELECTOR, f"{where} .message"):
        if node.find_element(By.CSS_SELECTOR, ".text").text == text:
            return node
    return None


def item_by_id(driver, message_id, where="#message-list"):
    found = driver.find_elements(By.CSS_SELECTOR, f"{where} .message[data-id='{message_id}']")
    return found[0] if found else None


def chips(driver, form="composer"):
    return driver.find_elements(By.CSS_SELECTOR, f"#{form} .pending-file")


def attach(driver, path, form="composer"):
    driver.find_element(By.CSS_SELECTOR, f"#{form} .attach-input").send_keys(str(path))


def loaded_thumbnail(node):
    """The message's thumbnail once its picture has loaded (None before)."""
    images = node.find_elements(By.CSS_SELECTOR, ".attachments a.attachment-image img.attachment-thumbnail")
    if not images:
        return None
    ready = images[0].get_attribute("src").startswith("blob:") and node.parent.execute_script(
        "return arguments[0].complete && arguments[0].naturalWidth > 0", images[0])
    return images[0] if ready else None


def fetch_status(driver, path):
    """The status of a GET of `path` from the page, with its session (the cookie)."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], { credentials: 'same-origin' }).then((r) => done(r.status), () => done(0));", path)


@pytest.fixture(scope="module")
def pair():
    server = start_server(["--canned-suggestions"])
    drivers = {"alice": make_driver(), "bob": make_driver()}
    for name, driver in drivers.items():
        sign_in_with_token(driver, server, server.token(name))
        open_hike(driver)
    yield server, drivers
    errors = quit_all(drivers)
    stop_server(server)
    assert not any(errors.values()), f"the page threw: {errors}"


@pytest.fixture(scope="module")
def files():
    folder = pathlib.Path(tempfile.mkdtemp(prefix="sotto-files-"))
    evil = folder / EVIL_NAME
    evil.write_text("Packing list: boots, map, water.\n")
    big = folder / "big-video.bin"
    big.write_bytes(b"\0" * (11 * 1024 * 1024))
    fake = folder / "fake-photo.png"
    fake.write_text("<!doctype html><html><body><script>alert(1)</script></body></html>\n")
    notes = folder / "route-notes.txt"
    notes.write_text("Start at the north gate.\n")
    return {"evil": evil, "big": big, "fake": fake, "notes": notes}


def test_an_image_reaches_the_other_side_live_and_after_a_reload_and_opens(pair):
    server, drivers = pair
    alice, bob = drivers["alice"], drivers["bob"]
    attach(alice, SHOT)
    chip = wait(alice, lambda d: [c for c in chips(d) if c.get_attribute("data-status") == "ready"],
                message="the image did not upload")[0]
    assert chip.find_element(By.CSS_SELECTOR, ".file-name").text == "screenshot.png"
    assert chip.find_element(By.CSS_SELECTOR, ".file-size").text == "17 KB"
    assert chip.find_element(By.CSS_SELECTOR, "img.pending-thumbnail").get_attribute("src").startswith("blob:")
    screenshot(alice, "chip")
    text = f"The trail map {STAMP}"
    alice.find_element(By.ID, "message-input").send_keys(text, Keys.ENTER)
    mine = wait(alice, lambda d: item(d, text), message="alice's message did not show")
    wait(alice, lambda d: not chips(d), message="the chips did not clear on send")
    message_id = mine.get_attribute("data-id")

    # Bob sees the thumbnail live.
    theirs = wait(bob, lambda d: item_by_id(d, message_id), message="bob did not get the message")
    thumbnail = wait(bob, lambda d: loaded_thumbnail(item_by_id(d, message_id)), message="bob's thumbnail did not load")
    assert thumbnail.get_attribute("alt") == "screenshot.png"
    link = theirs.find_element(By.CSS_SELECTOR, "a.attachment-image")
    assert link.get_attribute("href").endswith("/api/attachments/" + link.get_attribute("data-attachment-id"))
    screenshot(bob, "image-live")

    # And after a reload.
    bob.refresh()
    open_hike(bob)
    wait(bob, lambda d: item_by_id(d, message_id) and loaded_thumbnail(item_by_id(d, message_id)),
         message="the thumbnail did not come back after a reload")

    # Clicking it opens the full image in a new tab.
    first = bob.current_window_handle
    item_by_id(bob, message_id).find_element(By.CSS_SELECTOR, "a.attachment-image").click()
    wait(bob, lambda d: len(d.window_handles) == 2, message="no new tab")
    bob.switch_to.window([handle for handle in bob.window_handles if handle != first][0])
    try:
        size = wait(bob, lambda d: d.execute_script(
            "const image = document.images[0]; return image && image.complete && image.naturalWidth ? [image.naturalWidth, image.naturalHeight] : null"),
            message="the full image did not open")
        assert "/api/attachments/" in bob.current_url
        width, height = json.loads(server_size(server, message_id, "bob"))
        assert size == [width, height]
    finally:
        bob.close()
        bob.switch_to.window(first)


def server_size(server, message_id, user):
    """The image's size as the server's page of messages tells it."""
    page = server.get("/api/channels/messaging:weekend-hike/messages?limit=50", server.token(user))
    message = next(m for m in page["messages"] if m["id"] == message_id)
    attachment = message["attachments"][0]
    return json.dumps([attachment["width"], attachment["height"]])


def test_a_file_named_with_markup_is_a_download_link_whose_name_is_text(pair, files):
    server, drivers = pair
    alice, bob = drivers["alice"], drivers["bob"]
    attach(alice, files["evil"])
    wait(alice, lambda d: [c for c in chips(d) if c.get_attribute("data-status") == "ready"], message="the file did not upload")
    # Nothing typed: the file's name is the text.
    alice.find_element(By.ID, "message-input").send_keys(Keys.ENTER)
    mine = wait(alice, lambda d: item(d, EVIL_NAME), message="the message did not go with the file's name")
    message_id = mine.get_attribute("data-id")
    theirs = wait(bob, lambda d: item_by_id(d, message_id), message="bob did not get the file")
    link = theirs.find_element(By.CSS_SELECTOR, ".attachments a.attachment-file")
    assert link.find_element(By.CSS_SELECTOR, ".file-name").text == EVIL_NAME
    assert link.find_element(By.CSS_SELECTOR, ".file-size").text == "33 bytes"
    assert link.get_attribute("download") == EVIL_NAME
    assert bob.execute_script("return document.querySelectorAll('img[src=\"x\"]').length") == 0
    # The link serves the file, as a download.
    disposition = bob.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0]).then(async (r) => done([r.status, r.headers.get('Content-Disposition'), await r.text()]));",
        link.get_attribute("href"))
    assert disposition[0] == 200 and disposition[1].startswith("attachment;")
    assert disposition[2] == "Packing list: boots, map, water.\n"
    screenshot(bob, "download-link")


def test_a_too_large_file_is_refused_before_upload_and_a_mislabelled_one_by_the_server(pair, files):
    server, drivers = pair
    alice = drivers["alice"]
    attach(alice, files["big"])
    chip = wait(alice, lambda d: [c for c in chips(d) if c.get_attribute("data-status") == "failed"],
                message="the big file was not refused")[0]
    assert chip.find_element(By.CSS_SELECTOR, ".pending-error").text == "“big-video.bin” is 11 MB; files can be at most 10 MB."
    assert not alice.execute_script(
        "return performance.getEntriesByType('resource').filter((e) => e.name.includes('big-video')).length"), "it was uploaded"

    attach(alice, files["fake"])
    refused = wait(alice, lambda d: [c for c in chips(d) if "fake-photo" in c.text and c.get_attribute("data-status") == "failed"],
                   message="the mislabelled file was not refused")[0]
    error = refused.find_element(By.CSS_SELECTOR, ".pending-error").text
    assert error.startswith("“fake-photo.png”: That file says it is an image (image/png)"), error
    screenshot(alice, "refused")
    # × takes them off; nothing is sent.
    count = len(alice.find_elements(By.CSS_SELECTOR, "#message-list .message"))
    for _ in range(2):
        chips(alice)[0].find_element(By.CSS_SELECTOR, "button.remove-file").click()
    wait(alice, lambda d: not chips(d), message="× did not remove the chips")
    alice.find_element(By.ID, "message-input").send_keys(Keys.ENTER)
    time.sleep(0.5)
    assert len(alice.find_elements(By.CSS_SELECTOR, "#message-list .message")) == count


def test_a_reply_in_a_thread_carries_a_file(pair, files):
    server, drivers = pair
    alice, bob = drivers["alice"], drivers["bob"]
    root = item(bob, f"The trail map {STAMP}")
    root.find_element(By.CSS_SELECTOR, "[data-action='reply']").click()
    wait(bob, lambda d: d.find_element(By.ID, "thread-panel").is_displayed(), message="the thread did not open")
    attach(bob, files["notes"], form="thread-composer")
    wait(bob, lambda d: [c for c in chips(d, "thread-composer") if c.get_attribute("data-status") == "ready"],
         message="the thread's file did not upload")
    assert not chips(bob), "the channel's composer got the thread's file"
    text = f"Notes for the map {STAMP}"
    bob.find_element(By.ID, "thread-input").send_keys(text, Keys.ENTER)
    reply = wait(bob, lambda d: item(d, text, "#thread-replies"), message="the reply did not show")
    wait(bob, lambda d: not chips(d, "thread-composer"))
    assert reply.find_element(By.CSS_SELECTOR, ".attachment-file .file-name").text == "route-notes.txt"
    item(alice, f"The trail map {STAMP}").find_element(By.CSS_SELECTOR, ".thread-link").click()
    theirs = wait(alice, lambda d: item(d, text, "#thread-replies"), message="alice did not see the reply")
    assert theirs.find_element(By.CSS_SELECTOR, ".attachment-file .file-name").text == "route-notes.txt"
    screenshot(alice, "thread")
    alice.find_element(By.ID, "thread-close").click()
    bob.find_element(By.ID, "thread-close").click()


def test_deleting_the_message_removes_its_image(pair):
    server, drivers = pair
    alice, bob = drivers["alice"], drivers["bob"]
    mine = item(alice, f"The trail map {STAMP}")
    message_id = mine.get_attribute("data-id")
    attachment_id = mine.find_element(By.CSS_SELECTOR, "a.attachment-image").get_attribute("data-attachment-id")
    assert fetch_status(bob, f"/api/attachments/{attachment_id}") == 200
    # An edit keeps the picture.
    mine.find_element(By.CSS_SELECTOR, "[data-action='edit']").click()
    box = wait(alice, lambda d: item_by_id(d, message_id).find_element(By.CSS_SELECTOR, "form.edit textarea"))
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(f"The trail map, updated {STAMP}", Keys.ENTER)
    wait(bob, lambda d: item_by_id(d, message_id).find_element(By.CSS_SELECTOR, ".text").text == f"The trail map, updated {STAMP}",
         message="bob did not see the edit")
    assert loaded_thumbnail(item_by_id(bob, message_id)), "the edit lost the picture"
    mine = item_by_id(alice, message_id)
    mine.find_element(By.CSS_SELECTOR, "[data-action='delete']").click()
    confirm = wait(alice, lambda d: item_by_id(d, message_id).find_element(By.CSS_SELECTOR, ".confirm"))
    confirm.find_element(By.XPATH, ".//button[normalize-space()='Yes, delete']").click()
    for driver in (alice, bob):
        wait(driver, lambda d: item_by_id(d, message_id).find_element(By.CSS_SELECTOR, ".text").text == "message deleted",
             message="the tombstone did not show")
        wait(driver, lambda d: not item_by_id(d, message_id).find_elements(By.CSS_SELECTOR, ".attachments"),
             message="the deleted message still shows its file")
    assert fetch_status(bob, f"/api/attachments/{attachment_id}") == 404
    assert fetch_status(bob, f"/api/attachments/{attachment_id}/thumbnail") == 404
    bob.refresh()
    open_hike(bob)
    assert not item_by_id(bob, message_id).find_elements(By.CSS_SELECTOR, ".attachments")
    screenshot(bob, "deleted")


def screenshot(driver, name):
    shot(driver, "attachments", name)
