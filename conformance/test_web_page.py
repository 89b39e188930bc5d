"""The chat page (--web, docs/web.md) in a real headless Chromium on the real server, over SSE and over the
WebSocket: log in with the printed token, create a session by sending a message and watch the reply stream, stop
a reply mid-stream, reload and find the session, fork it, delete it.

Chromium and its driver are Debian's (installed when missing, conformance/debian.py); Selenium drives them, and
nothing is downloaded at run time. ``SUPERFLUID_SCREENSHOTS=DIR`` saves the main states as PNG files (how the
pictures in docs/web/ were made).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.wait import WebDriverWait

from conformance.debian import program
from conformance.server import stop_server
from conformance.web_server import WebServer, start_web_server

WAIT_S = 120
ESSAY_TRIES = 3


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    # Long replies (up to 1500 tokens) so that a reply is still streaming when the test stops it.
    server = start_web_server(tmp_path_factory.mktemp("web-page"), extra=("--max-tokens", "1500"))
    yield server
    stop_server(server.api)


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not look for drivers on the network
    options = webdriver.ChromeOptions()
    options.binary_location = program("chromium", "chromium", "chromium-driver")
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1280,860", "--force-prefers-reduced-motion"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(program("chromedriver", "chromium-driver")))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _wait(driver: webdriver.Chrome, condition: Callable[[webdriver.Chrome], Any], what: str) -> Any:
    def checked(d: webdriver.Chrome) -> Any:
        try:
            return condition(d)
        except (StaleElementReferenceException, NoSuchElementException, IndexError):
            return False  # not there yet, or rebuilt while looking

    return WebDriverWait(driver, WAIT_S, poll_frequency=0.1).until(checked, message=f"waiting for {what}")


def _shot(driver: webdriver.Chrome, name: str) -> None:
    folder = os.environ.get("SUPERFLUID_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


def _sessions(driver: webdriver.Chrome) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, "#session-list li.session")


def _messages(driver: webdriver.Chrome) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, "#messages .message")


def _streaming(driver: webdriver.Chrome) -> bool:
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-streaming") == "true"


def _send(driver: webdriver.Chrome, text: str) -> None:
    composer = driver.find_element(By.ID, "composer")
    composer.send_keys(text)
    composer.send_keys(Keys.ENTER)


def _last_reply(driver: webdriver.Chrome) -> WebElement:
    return [m for m in _messages(driver) if m.get_attribute("data-role") == "assistant"][-1]


def _errors(driver: webdriver.Chrome) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def _log_in(driver: webdriver.Chrome, web: WebServer, query: str = "") -> None:
    driver.delete_all_cookies()
    driver.get(f"{web.url}{query}")
    _wait(driver, lambda d: d.find_element(By.ID, "login").is_displayed(), "the login panel")
    _shot(driver, "login")
    driver.get(f"{web.url}{query}#token={web.token}")
    _wait(driver, lambda d: d.find_element(By.ID, "app").is_displayed(), "the app after logging in")
    assert "token" not in driver.current_url  # the page drops the token from the address bar
    driver.get_log("browser")  # the logged-out page's 401s were expected; later errors are not


def _chat_flow(driver: webdriver.Chrome, web: WebServer, transport: str) -> None:
    query = "?transport=ws" if transport == "ws" else ""
    _log_in(driver, web, query)
    assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-transport") == transport
    before = len(_sessions(driver))

    # A first message creates the session; its reply streams in, then ends with its stats.
    _send(driver, f"Name three colours ({transport}).")
    _wait(driver, lambda d: len(_sessions(d)) == before + 1, "the new session in the list")
    _wait(driver, lambda d: _last_reply(d).find_element(By.CLASS_NAME, "message-content").text.strip(),
          "the reply's first words")
    _wait(driver, lambda d: _last_reply(d).get_attribute("data-state") == "done" and not _streaming(d),
          "the reply to finish")
    reply = _last_reply(driver)
    first_text = reply.find_element(By.CLASS_NAME, "message-content").text
    assert first_text.strip()
    assert "tok" in reply.find_element(By.CLASS_NAME, "message-stats").text
    _shot(driver, f"chat-{transport}")

    # A long reply, stopped mid-stream with the stop button: it keeps its text and says it was stopped. The model
    # samples, and now and then ends even this reply in a few words; then the same message is sent again.
    for _ in range(ESSAY_TRIES):
        _send(driver, "Write a 2000-word essay about the history of the ocean, with many sections and subsections.")
        _wait(driver, lambda d: (_streaming(d) and len(
            _last_reply(d).find_element(By.CLASS_NAME, "message-content").text) > 20) or (
            not _streaming(d) and _last_reply(d).get_attribute("data-state") == "done"), "the long reply to stream")
        if _streaming(driver):
            break
    else:
        pytest.fail(f"the long reply ended by itself in each of {ESSAY_TRIES} tries")
    turns = ["done", "done"] * (len(_messages(driver)) // 2 - 1) + ["done", "cancelled"]
    _shot(driver, f"streaming-{transport}")
    driver.find_element(By.ID, "stop").click()
    _wait(driver, lambda d: _last_reply(d).get_attribute("data-state") == "cancelled" and not _streaming(d),
          "the stopped reply")
    stopped = _last_reply(driver)
    assert stopped.find_element(By.CLASS_NAME, "message-content").text.strip()
    session_id = driver.find_element(By.CSS_SELECTOR, "#session-list li.session.selected").get_attribute(
        "data-session-id")

    # Reload: the session is still there, with both turns.
    driver.refresh()
    _wait(driver, lambda d: any(s.get_attribute("data-session-id") == session_id for s in _sessions(d)),
          "the session after a reload")
    row = next(s for s in _sessions(driver) if s.get_attribute("data-session-id") == session_id)
    row.find_element(By.CLASS_NAME, "session-title").click()
    _wait(driver, lambda d: len(_messages(d)) == len(turns), "the session's messages")
    states = [m.get_attribute("data-state") for m in _messages(driver)]
    assert states == turns
    assert first_text in _messages(driver)[1].text

    # Fork at the first reply: a new session holding the first two messages.
    count = len(_sessions(driver))
    _messages(driver)[1].find_element(By.CLASS_NAME, "fork").click()
    _wait(driver, lambda d: len(_sessions(d)) == count + 1, "the fork in the list")
    _wait(driver, lambda d: len(_messages(d)) == 2, "the fork's two messages")
    # The list is redrawn as the fork's messages arrive: the selected row is looked up again each time it is used.
    selected = "#session-list li.session.selected"
    fork_id = _wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, selected).get_attribute("data-session-id"),
                    "the fork selected")
    assert fork_id != session_id

    # Delete the fork: gone from the list, and after a reload too.
    _wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, selected).find_element(By.CLASS_NAME, "session-delete")
          .click() or True, "the fork's delete button")
    _wait(driver, lambda d: all(s.get_attribute("data-session-id") != fork_id for s in _sessions(d)),
          "the fork to leave the list")
    driver.refresh()
    _wait(driver, lambda d: any(s.get_attribute("data-session-id") == session_id for s in _sessions(d)),
          "the list after a reload")
    assert all(s.get_attribute("data-session-id") != fork_id for s in _sessions(driver))
    assert not _errors(driver), _errors(driver)
    stored = web.rpc("session.get", session_id=session_id)["messages"]
    assert [m["state"] for m in stored] == turns


def test_the_page_over_sse(browser: webdriver.Chrome, web: WebServer) -> None:
    _chat_flow(browser, web, "sse")


def test_the_page_over_the_websocket(browser: webdriver.Chrome, web: WebServer) -> None:
    _chat_flow(browser, web, "ws")


def test_a_wrong_token_is_refused_and_dark_mode_follows_the_toggle(browser: webdriver.Chrome,
                                                                    web: WebServer) -> None:
    browser.delete_all_cookies()
    browser.get(web.url)
    _wait(browser, lambda d: d.find_element(By.ID, "login").is_displayed(), "the login panel")
    browser.find_element(By.ID, "token-input").send_keys("not-the-token")
    browser.find_element(By.ID, "login-button").click()
    _wait(browser, lambda d: d.find_element(By.ID, "login-error").is_displayed(), "the login error")
    assert not browser.find_element(By.ID, "app").is_displayed()
    browser.find_element(By.ID, "token-input").clear()
    browser.find_element(By.ID, "token-input").send_keys(web.token)
    browser.find_element(By.ID, "login-button").click()
    _wait(browser, lambda d: d.find_element(By.ID, "app").is_displayed(), "the app")
    html = browser.find_element(By.TAG_NAME, "html")
    dark = "dark" in (html.get_attribute("class") or "")
    browser.find_element(By.ID, "theme-toggle").click()
    _wait(browser, lambda d: ("dark" in (html.get_attribute("class") or "")) != dark, "the theme to change")
    if not dark:
        sessions = _sessions(browser)
        if sessions:
            sessions[0].find_element(By.CLASS_NAME, "session-title").click()
            _wait(browser, lambda d: _messages(d), "a session's messages")
        _shot(browser, "dark")
    for element in browser.find_elements(By.CSS_SELECTOR, "button"):
        label = element.get_attribute("aria-label") or element.text
        assert label.strip() or not element.is_displayed(), element.get_attribute("outerHTML")
