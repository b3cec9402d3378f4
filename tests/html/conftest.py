"""Report pages made once per session from the bundled fixtures, and a headless browser.

The browser tests open the pages in Debian's Chromium through Selenium and chromedriver.
Locally they skip (one line saying what to install) when no browser is there; ``.ci/run``
sets ``TRTLOG_REQUIRE_BROWSER=1``, which turns that skip into a failure, so CI always runs
them. Each browser test saves a screenshot under ``out/test-artifacts/report/``
(``TRTLOG_TEST_ARTIFACTS`` moves it).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.conftest import FIXTURES, ROOT
from trtlog.html import page as page_module

LOGS = FIXTURES / "logs"
JSON = FIXTURES / "layer_info"
ARTIFACTS = (
    Path(os.environ.get("TRTLOG_TEST_ARTIFACTS", ROOT / "out" / "test-artifacts")) / "report"
)

#: What each report of the session is made from (trtlog.report's arguments).
REPORTS: dict[str, dict[str, Any]] = {
    "yolov8": {"build": LOGS / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"},
    "bert": {"build": LOGS / "trt10.10_bert-matcher-fp16_engine-layers-detailed.log"},
    "bert_names": {"build": LOGS / "trt10.10_bert-matcher-fp16_engine-layer-info-names-only.log"},
    "tinynet": {
        "build": LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log",
        "profile": JSON / "trt8.6.1_tinynet-qdq-int8.profile.json",
        "reference": LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log",
        "reference_profile": JSON / "trt8.6.1_tinynet-fp16.profile.json",
    },
    "failed": {"build": LOGS / "trt8.6-like_patternnet-qdq_build-FAILED.log"},
    "json_only": {
        "build": JSON / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json",
        "profile": JSON / "resnet18_synthetic.profile.json",
    },
    "hostile": {"build": LOGS / "hostile-names_build-verbose-dumpLayerInfo.log"},
}


@pytest.fixture(scope="session")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every page of :data:`REPORTS`, plus ``folded``: the yolov8 page with its data
    compressed and its log folded to the lines the page cites (the two ways big reports
    are written), and ``hostile_big``: the hostile page with its data written as big data."""
    folder = tmp_path_factory.mktemp("reports")
    out = {}
    for name, kwargs in REPORTS.items():
        out[name] = trtlog.report(**kwargs).write(folder / f"{name}.html")
    # (and compressed as big payloads are: by isal when installed, so the browser reads its
    # gzip members too)
    compress, unfold, fast = (
        page_module.COMPRESS_ABOVE,
        page_module.UNFOLD_LINES,
        page_module.FAST_ABOVE,
    )
    page_module.COMPRESS_ABOVE, page_module.UNFOLD_LINES, page_module.FAST_ABOVE = 0, 0, 0
    try:
        out["folded"] = trtlog.report(**REPORTS["yolov8"]).write(folder / "folded.html")
        # the hostile names in data written as big data is (UTF-8 JSON, compressed)
        page_module.UNFOLD_LINES = unfold
        out["hostile_big"] = trtlog.report(**REPORTS["hostile"]).write(folder / "hostile_big.html")
    finally:
        page_module.COMPRESS_ABOVE, page_module.UNFOLD_LINES, page_module.FAST_ABOVE = (
            compress,
            unfold,
            fast,
        )
    return out


def _find(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    for path in ("/usr/lib/chromium/chromedriver", "/usr/lib/chromium-browser/chromedriver"):
        if any("driver" in n for n in names) and Path(path).exists():
            return path
    return None


def _unavailable(reason: str) -> None:
    if os.environ.get("TRTLOG_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests are required here (TRTLOG_REQUIRE_BROWSER=1): {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Chromium, one session for every browser test."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _unavailable("selenium is not installed (pip install -e '.[test]')")
    binary = _find("chromium", "chromium-browser", "google-chrome")
    driver_path = _find("chromedriver")
    if binary is None or driver_path is None:
        _unavailable("no headless browser: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = binary  # type: ignore[assignment]
    profile = tempfile.mkdtemp(prefix="trtlog-chromium-")
    # a closed network refuses Chromium's own connections: none are made
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class Page:
    """A report open in the browser, with the checks every test makes."""

    def __init__(self, driver: Any, path: Path, test: str) -> None:
        self.driver = driver
        self.path = path
        self.test = test
        driver.get(path.as_uri())
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if driver.execute_script("return document.documentElement.dataset.ready"):
                break
            time.sleep(0.05)

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def css(self, selector: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector: str) -> list[Any]:
        from selenium.webdriver.common.by import By

        return list(self.driver.find_elements(By.CSS_SELECTOR, selector))

    def wait(self, script: str, *args: Any, timeout: float = 5.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(script, *args)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(0.05)

    def errors(self) -> list[dict[str, Any]]:
        """The console's errors (and warnings) since the last call."""
        return [e for e in self.driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]

    def screenshot(self, name: str | None = None) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        target = ARTIFACTS / f"{name or self.test}.png"
        self.driver.save_screenshot(str(target))
        return target


@pytest.fixture
def open_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """Open a report; after the test: a screenshot, and no console error may have occurred."""
    opened: list[Page] = []

    def open_(path: Path) -> Page:
        browser.get_log("browser")  # drop what earlier pages logged
        page = Page(browser, path, request.node.name.replace("/", "_"))
        opened.append(page)
        assert page.js("return document.documentElement.dataset.ready") == "1", page.errors()
        return page

    yield open_
    for page in opened:
        page.screenshot()
        errors = page.errors()
        assert not errors, errors
