"""Take the README's screenshots of the report page (docs/report/*.png).

Makes reports of the bundled fixtures with ``trtlog.report``, opens them in headless
Chromium (Debian's ``chromium`` and ``chromium-driver``, through Selenium) and saves one
screenshot per section. Run from the project folder: ``python docs/make_report_screenshots.py``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import trtlog  # noqa: E402

# relative paths: the pages name their inputs as given
LOGS = Path("fixtures") / "logs"
JSON = Path("fixtures") / "layer_info"
OUT = ROOT / "docs" / "report"


def main() -> int:
    """Make the pages, open them, save the screenshots."""
    import os

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.chdir(ROOT)
    folder = Path(tempfile.mkdtemp(prefix="trtlog-shots-"))
    tinynet = trtlog.report(
        LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log",
        profile=JSON / "trt8.6.1_tinynet-qdq-int8.profile.json",
        reference=LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log",
        reference_profile=JSON / "trt8.6.1_tinynet-fp16.profile.json",
    ).write(folder / "tinynet.html")
    yolo = trtlog.report(LOGS / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log").write(
        folder / "yolov8.html"
    )
    bert = trtlog.report(LOGS / "trt10.10_bert-matcher-fp16_engine-layers-detailed.log").write(
        folder / "bert.html"
    )
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="trtlog-chromium-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--window-size=1280,860",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(
        service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options
    )

    def open_(page: Path) -> None:
        driver.get(page.as_uri())
        while not driver.execute_script("return document.documentElement.dataset.ready"):
            time.sleep(0.05)

    def shot(name: str, *scripts: str) -> None:
        for script in scripts:
            driver.execute_script(script)
            time.sleep(0.4)
        driver.save_screenshot(str(OUT / f"{name}.png"))
        print(OUT / f"{name}.png")

    OUT.mkdir(parents=True, exist_ok=True)
    try:
        open_(tinynet)
        shot("overview", "window.scrollTo(0, 0)")
        shot("findings", "document.getElementById('findings').scrollIntoView()")
        shot("compare", "document.getElementById('cmp-groups').scrollIntoView()")
        shot("compare-rows", "document.getElementById('cmp-table').scrollIntoView()")
        shot("modules", "document.getElementById('modules').scrollIntoView()")
        open_(yolo)
        target = quote("/model/backbone0/bn/BatchNormalization", safe="")
        shot("explorer", f"location.hash = '#explore={target}'")
        shot("passes", "document.getElementById('passes').scrollIntoView()")
        shot("log", "location.hash = '#L150'")
        open_(bert)
        shot(
            "layers",
            "document.querySelector('#layers-table .tr.group').click()",
            "document.querySelector('#layers .charts').scrollIntoView()",
        )
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
