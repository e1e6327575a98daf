"""Issue 25 item 7: the `snakemake --report` page in a real headless browser (Debian's chromium).

The page opens without console errors; each figure artefact, shown as a reader shows it
(its entry opened, then its eye button clicked), renders as a non-blank image; each caption's
title (the first line of its `workflow/report/*.rst`) is on the page. Chromium is driven over
the DevTools protocol (websocket-client, the `dev` extra). The screenshots stay in the test's
tmp directory; their paths are printed (`pytest -s`)."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import REPO, snakemake

TARGETS = ("baselines_table1", "baselines_figure1")  # one job draws all 11 baselines figures
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1600,1000",
    "--remote-debugging-port=0",
)
WAIT = 60  # seconds: the bound on each wait for the browser


class Browser:
    """One chromium page over the DevTools protocol; events are kept for inspection."""

    def __init__(self, profile: Path):
        import websocket

        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if exe is None:
            pytest.skip("no chromium (.ci/run installs Debian's chromium as root)")
        self.proc = subprocess.Popen(
            [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = profile / "DevToolsActivePort"
        self._until(lambda: port_file.exists() and port_file.read_text().strip(), "devtools port")
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=WAIT) as r:
            [page] = [t for t in json.load(r) if t["type"] == "page"]
        self.ws = websocket.create_connection(
            page["webSocketDebuggerUrl"], timeout=WAIT, suppress_origin=True
        )
        self.events: list[dict] = []
        self._id = 0
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def _until(self, condition, what: str):
        deadline = time.monotonic() + WAIT
        while not (value := condition()):
            if time.monotonic() > deadline:
                pytest.fail(f"chromium: timed out waiting for {what}")
            time.sleep(0.1)
        return value

    def call(self, method: str, **params):
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self._id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]
            self.events.append(msg)

    def js(self, expression: str):
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expression}: {res['exceptionDetails']}")
        return res["result"].get("value")

    def wait_js(self, expression: str, what: str):
        return self._until(lambda: self.js(expression), what)

    def screenshot(self, path: Path, clip: dict | None = None) -> bytes:
        params = {"format": "png"}
        if clip:
            params["clip"] = {**clip, "scale": 1}
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        path.write_bytes(data)
        return data

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and browser log errors so far."""
        out = []
        for ev in self.events:
            method, p = ev.get("method"), ev.get("params", {})
            if method == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif method == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append(d.get("exception", {}).get("description") or d.get("text"))
            elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append(f"{p['entry']['source']}: {p['entry']['text']}")
        return out

    def close(self):
        self.ws.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def non_blank(png: bytes) -> tuple[bool, str]:
    """Whether an image shows a drawing: not one flat colour, with enough ink on it."""
    import numpy as np
    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)
    background = np.median(img)
    ink = float(np.mean(np.abs(img - background) > 32))
    levels = len(np.unique(img))
    return (img.shape[0] > 50 and img.shape[1] > 50 and ink > 0.01 and levels > 8), (
        f"{img.shape[1]}x{img.shape[0]} px, {ink:.1%} ink, {levels} grey levels"
    )


def _caption_title(result_path: str) -> str:
    """The first line of the artefact's caption file, as text: `**Figure 1 (...)**`."""
    study, _, name = Path(result_path).with_suffix("").parts[-3:]
    first = (REPO / "workflow" / "report" / f"{study}_{name}.rst").read_text().splitlines()[0]
    return re.sub(r"[*`]", "", first).strip()


@pytest.fixture(scope="module")
def report(shared_workdir, mirror) -> Path:
    snakemake(shared_workdir, *TARGETS, mirror=mirror)
    (shared_workdir / "results").mkdir(exist_ok=True)
    path = shared_workdir / "report_browser.html"
    snakemake(shared_workdir, "--report", str(path), *TARGETS, mirror=mirror)
    return path


@pytest.fixture
def browser(tmp_path):
    profile = tmp_path / "chromium-profile"  # a fresh profile: no state from another run
    profile.mkdir()
    b = Browser(profile)
    yield b
    b.close()


@pytest.mark.workflow
@pytest.mark.slow
def test_the_report_renders_in_a_browser(report, browser, tmp_path):
    browser.call("Page.navigate", url=report.as_uri())
    browser.wait_js("typeof app !== 'undefined' && !!document.querySelector('#app a')", "app")
    shot = tmp_path / "report-front.png"
    browser.screenshot(shot)
    print(f"\nreport screenshot: {shot}")
    # the front page lists the hub commits (evalsci.pipeline.hublock; none: this run loaded none)
    front = re.sub(r"\s+", " ", browser.js("document.body.innerText"))
    assert "Hub commits (models and datasets loaded from the Hugging Face hub" in front
    figures = browser.js(
        "Object.keys(results).filter(k => results[k].mime_type === 'image/png').sort()"
    )
    pdfs = browser.js(
        "Object.keys(results).filter(k => results[k].mime_type === 'application/pdf').sort()"
    )
    # baselines figures 1-11 of the first version and Figure 9 of the second (001)
    names = [f"figure{i}" for i in range(1, 12)] + ["figure9_001"]
    assert figures == sorted(f"results/baselines/figures/{n}.png" for n in names)
    assert [Path(p).with_suffix("") for p in pdfs] == [Path(p).with_suffix("") for p in figures]
    assert browser.js("Object.keys(results).some(k => k.endsWith('table1.csv'))")
    for path in figures:
        browser.js(f"app.showResultInfo({json.dumps(path)})")
        title = _caption_title(path)
        text = browser.wait_js(
            f"document.body.innerText.replace(/\\s+/g, ' ').includes({json.dumps(title)})"
            " && document.body.innerText",
            f"the caption of {path}",
        )
        assert title in re.sub(r"\s+", " ", text)
        # the eye button of the result's panel: what a reader clicks to see the figure
        clicked = browser.js(
            "(() => { const b = document.querySelector('#app a[iconname=\"eye\"]');"
            " if (!b) return false; b.click(); return true; })()"
        )
        assert clicked, f"no view button for {path}"
        rect = browser.wait_js(
            "(() => { const i = [...document.querySelectorAll('#app img')]"
            f".find(i => i.src === results[{json.dumps(path)}].data_uri);"
            " if (!i || !i.complete || i.naturalWidth === 0) return null;"
            " const r = i.getBoundingClientRect();"
            " return {x: r.x, y: r.y, width: r.width, height: r.height,"
            " natural: [i.naturalWidth, i.naturalHeight]}; })()",
            f"the image of {path}",
        )
        assert rect["width"] > 50 and rect["height"] > 50, (path, rect)
        name = Path(path).stem
        png = browser.screenshot(
            tmp_path / f"report-{name}.png",
            {k: rect[k] for k in ("x", "y", "width", "height")},
        )
        ok, what = non_blank(png)
        assert ok, f"{path} renders blank in the report ({what})"
    last = tmp_path / "report-last-figure.png"
    browser.screenshot(last)
    print(f"report screenshot (the last figure shown): {last}")
    assert browser.errors() == []


def test_non_blank_tells_a_blank_image():
    """The blank check itself: a flat image fails, a drawn figure passes."""
    from PIL import Image, ImageDraw

    def png(draw: bool) -> bytes:
        img = Image.new("RGB", (400, 300), "white")
        if draw:
            d = ImageDraw.Draw(img)
            for i in range(0, 300, 20):
                d.line((0, i, 400, 300 - i), fill=(i % 255, 40, 120), width=3)
            d.text((20, 20), "accuracy", fill="black")
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        return buf.getvalue()

    assert not non_blank(png(False))[0]
    assert non_blank(png(True))[0]
