"""`lakemix docs` on a built lakehouse with a mix, checked in headless Chromium.

dbt docs draws the lineage graph with cytoscape on a canvas, so the test reads the rendered
graph through the Chrome DevTools protocol: the cytoscape instance dbt docs keeps in its
angular ``graph`` service, the nodes it shows and where it drew them.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websocket

from tests.conftest import ROOT, copied_release, lakehouse_in

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)
SERVICE = "angular.element(document.body).injector().get('graph')"
GRAPH = f"{SERVICE}.graph_element"
# upstream of the mix, from the raw source to the mart it samples
UPSTREAM = {
    "mix_documents",
    "fct_clean_documents",
    "stg_meta__mix_plans",
    "int_documents_pii_redacted",
    "int_documents_tokenized",
    "int_documents_deduplicated",
    "int_documents_quality_filtered",
    "int_documents_quality_scored",
    "int_documents_language_scored",
    "stg_raw__documents",
    "raw.documents",
    "meta.mix_plans",
}


class Page:
    """One Chromium tab driven over the DevTools protocol."""

    def __init__(self, ws_url: str) -> None:
        self._ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self._id = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._id += 1
        self._ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.recv())
            if message.get("id") == self._id:
                assert "error" not in message, message
                return dict(message["result"])

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        assert "exceptionDetails" not in result, (expression, result["exceptionDetails"])
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60) -> Any:
        """Evaluate until the value is truthy (exceptions count as not yet)."""
        deadline = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < deadline:
            result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
            if "exceptionDetails" not in result:
                last = result["result"].get("value")
                if last:
                    return last
            time.sleep(0.25)
        pytest.fail(f"timed out waiting for {expression} (last value {last!r})")

    def close(self) -> None:
        self._ws.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[Page]:
    """Headless Chromium (installed by scripts/services.sh when missing) and its first tab."""
    if not CHROMIUM.exists():
        subprocess.run(["bash", str(ROOT / "scripts" / "services.sh")], check=True)
    profile = tmp_path / "chromium-profile"
    proc = subprocess.Popen(
        [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            assert proc.poll() is None, f"chromium exited {proc.returncode}"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as answer:
            tabs = json.loads(answer.read())
        page = Page(next(t["webSocketDebuggerUrl"] for t in tabs if t["type"] == "page"))
        yield page
        page.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture
def docs_site(demo_release: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A copy of the session's demo lakehouse (two web corpora, the mix demo_unimax built and
    released), its docs served by lakemix."""
    with copied_release(demo_release, tmp_path):
        yield from _served(tmp_path / "target", tmp_path)


def _served(target: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    port = free_port()
    log = tmp_path / "docs.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("lakemix")),
                *("docs", "--mix", "demo_unimax", "--port", str(port)),
            ],
            cwd=ROOT,
            env=dict(os.environ),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 180
        while f"serving the docs site at {url}" not in log.read_text():
            assert server.poll() is None, (
                f"lakemix docs exited {server.returncode}:\n{log.read_text()}"
            )
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.5)
        yield url, target
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_docs_site_shows_the_mix_lineage(docs_site: tuple[str, Path], chromium: Page) -> None:
    url, target = docs_site
    # every column of every built relation is documented (the catalog lists what was built)
    manifest = json.loads((target / "manifest.json").read_text())
    catalog = json.loads((target / "catalog.json").read_text())
    built = {**catalog["nodes"], **catalog["sources"]}
    nodes = {**manifest["nodes"], **manifest["sources"]}
    undocumented = [
        f"{unique_id}.{column}"
        for unique_id, entry in built.items()
        for column in entry["columns"]
        if not nodes[unique_id]["columns"].get(column.lower(), {}).get("description", "").strip()
    ]
    assert undocumented == []

    chromium.call("Page.navigate", url=f"{url}#!/model/model.lakemix.mix_documents")
    text = chromium.wait_for(
        "document.body.innerText.includes('Derived from') && document.body.innerText"
    )
    assert "lakemix.marts.mix_demo_unimax" in text
    assert (
        "fct_clean_documents.language <- int_documents_language_scored.language"
        " <- stg_raw__documents.text <- raw.documents.text" in text
    )

    # open the lineage graph as a reader does: the graph button, then its full-screen view
    click = "document.querySelector('[ng-click=\"{}\"]').click()"
    chromium.wait_for(f"{GRAPH} && true")
    chromium.evaluate(click.format("onLauncherClick()"))
    chromium.wait_for(f"{SERVICE}.expanded && {GRAPH}.container().getBoundingClientRect().width")
    chromium.evaluate(click.format("showExpanded()"))
    assert "g_i=%2Bmix_documents%2B" in chromium.wait_for(
        "location.href.includes('g_v=1') && location.href"
    )
    shown = chromium.wait_for(
        f"{GRAPH}.container().getBoundingClientRect().width > 0"
        f" && {GRAPH}.nodes(':visible').length > 10"
        f" && {GRAPH}.nodes(':visible').map(n => n.data('label'))"
    )
    assert set(shown) >= UPSTREAM, UPSTREAM - set(shown)
    assert "dim_sources" not in shown  # downstream of the raw data, not upstream of the mix
    box = chromium.evaluate(f"{GRAPH}.container().getBoundingClientRect().toJSON()")
    drawn = chromium.evaluate(
        f"{GRAPH}.nodes(':visible').map(n => [n.data('label'), n.renderedPosition()])"
    )
    inside = {
        label
        for label, at in drawn
        if 0 <= at["x"] <= box["width"] and 0 <= at["y"] <= box["height"]
    }
    assert inside >= UPSTREAM, UPSTREAM - inside
    painted = chromium.evaluate(
        "Array.from(document.querySelectorAll('canvas')).some(c => c.width > 0"
        " && c.getContext('2d').getImageData(0, 0, c.width, c.height).data.some(v => v !== 0))"
    )
    assert painted


# Labels of one chart drawn on top of each other (what made the charts unreadable): level
# labels whose boxes on screen overlap by more than a pixel, and neighbouring rotated labels
# (the bars' categories) whose lines lie closer than their font's height.
OVERLAPPING_LABELS = """
(() => {
  const found = [];
  document.querySelectorAll('svg').forEach((chart, n) => {
    const texts = [...chart.querySelectorAll('text')];
    const level = texts.filter(t => !t.getAttribute('transform'))
      .map(t => [t.textContent, t.getBoundingClientRect()]);
    for (let i = 0; i < level.length; i++)
      for (let j = i + 1; j < level.length; j++) {
        const [a, p] = level[i], [b, q] = level[j];
        if (p.left + 1 < q.right && q.left + 1 < p.right && p.top + 1 < q.bottom
            && q.top + 1 < p.bottom) found.push(`chart ${n}: '${a}' / '${b}'`);
      }
    const turned = texts.filter(t => /rotate/.test(t.getAttribute('transform') || ''))
      .map(t => {
        const m = /translate\\(([-\\d.]+),([-\\d.]+)\\) rotate\\(([-\\d.]+)\\)/
          .exec(t.getAttribute('transform'));
        const size = parseFloat(getComputedStyle(t).fontSize);
        return [t.textContent, +m[1], +m[3], size];
      });
    for (let i = 1; i < turned.length; i++) {
      const [a, x0, angle, size] = turned[i - 1], [b, x1] = turned[i];
      const gap = Math.abs(x1 - x0) * Math.sin(angle * Math.PI / 180);
      if (gap < 0.9 * size) found.push(`chart ${n}: '${a}' / '${b}' (${gap.toFixed(1)} px apart)`);
    }
  });
  return found;
})()
"""


def test_the_quality_report_reads_in_a_browser(
    demo_release: Path, tmp_path: Path, chromium: Page
) -> None:
    """The report as a reader sees it: every chart drawn, sparklines in the objectives' trend
    column, no two labels of a chart on top of each other; a screenshot is kept."""
    import base64

    from lakemix.quality import write_report

    with lakehouse_in(demo_release):
        result = write_report(tmp_path / "report.html")
    chromium.call("Page.navigate", url=result.path.as_uri())
    charts = chromium.wait_for(
        "document.readyState === 'complete' && document.querySelectorAll('svg').length"
    )
    assert charts > 20  # signals, score per language, shares, clusters, sparklines
    drawn = chromium.evaluate(
        "[...document.querySelectorAll('svg')].filter(s => s.getBBox().width > 0).length"
    )
    assert drawn == charts
    assert chromium.evaluate(OVERLAPPING_LABELS) == []
    headings = chromium.evaluate("[...document.querySelectorAll('h2')].map(h => h.textContent)")
    assert "Quality model scores by language" in headings
    shot = chromium.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    png = base64.b64decode(shot["data"])
    (tmp_path / "report.png").write_bytes(png)
    assert png.startswith(b"\x89PNG") and len(png) > 20_000
