"""Benchmark of the "Try it" widget against the built site, in headless Chromium on 127.0.0.1.

Prints, next to the goals of the docs site:

- bytes of the runtime downloaded before the first click (goal 0);
- cold click-to-ready: time and bytes (empty cache, no HTTP compression; goal <= 3.5 s,
  <= 16 MB). The bytes are what the server sent; the worker takes gzip copies of the big
  runtime files and a bundle of the pure wheels, so what the plain files would have taken is
  printed too;
- cold click-to-ready on two hosts and two links, side by side in each round: a host that
  serves files as they are (the worker takes the ``.gz`` copies) and one that serves the
  build's brotli copies (``precompressed``), each on loopback and on a link emulated by
  Chromium (``Network.emulateNetworkConditions``: 20 Mbit/s each way, 20 ms latency; goals
  <= 1.5 s on loopback, <= 4.5 s at 20 Mbit/s), with [min-max] over the runs (from the
  brotli host on a fast link the worker restores the build's prepared interpreter instead of
  starting afresh, when the link measures fast enough: each run says which); each cold run
  also prints the worker's trace: when each stage began and when each file had fully arrived
  (the bundle: when its own worker, ``fetcher.mjs``, had it checked), on the worker's clock;
- warm: another recipe in the same visit (the interpreter is reused, no load), and a new page
  in the same browser profile (a new interpreter; goal <= 2 s) with the bytes it downloads
  (goal <= 1 MB for the widget). The server lets the browser keep nothing (``Cache-Control:
  no-store``, no ``Last-Modified``): what a later visit saves is the worker's own doing (the
  runtime's files and the saved interpreter in Cache Storage);
- median step latency once ready: click to the transcript line painted (the next frame after
  it is in the page), on a resq recipe and a hedron one, and the worker's own time (goal <= 50
  ms).

Times are medians of ``--repeat`` runs (a new browser profile for each cold run), next to the
bare runtime (Pyodide, the same files, the same imports, no widget) measured the same way.

Usage: ``python scripts/bench/bench_site.py [--site DIR] [--recipe NAME] [--steps N] [--repeat N]``.
Without ``--site`` the site is built first (``mkdocs build --strict``) into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from docsite.paths import REPO as ROOT
from docsite.testing.browser import CHROMIUM, CHROMIUM_ARGS
from docsite.testing.static_server import StaticServer

# as the tests run it, less their TEST_ARGS: readers get V8's optimizing compiler for wasm too
ARGS = CHROMIUM_ARGS
NOT_BUSY = "() => document.querySelector('.tryit').getAttribute('aria-busy') === 'false'"
SAVED = "() => globalThis.__tryitRuntime.saved !== undefined"
KEPT = "() => globalThis.__tryitRuntime.kept !== undefined"
# Untimed waits poll every POLL ms. Timed ones are measured in the page and wait on events,
# never on Playwright's default polling, which runs on every animation frame: the page then
# draws ~60 frames a second, CPU time a reader's idle page does not spend and a 2-core machine
# takes from the worker.
POLL = 50

# Click Step; resolve with ms from the click to the runtime being ready and to the first
# transcript line (or {failed: reason} when the widget falls back to its recorded transcript).
CLICK_TO_READY = """() => new Promise((resolve) => {
  const widget = document.querySelector(".tryit");
  const list = widget.querySelector(".tryit__transcript");
  let ready = null;
  const check = () => {
    if (widget.dataset.state === "fallback") {
      observer.disconnect();
      resolve({ failed: widget.querySelector(".tryit__status").textContent });
    } else if (ready !== null && list.children.length > 0) {
      observer.disconnect();
      resolve({ ready, line: performance.now() - t0 });
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(widget, { subtree: true, childList: true, attributes: true });
  const t0 = performance.now();
  widget.querySelector("button[data-action='step']").click();
  globalThis.__tryitRuntime.ready.then(() => { ready = performance.now() - t0; check(); }, check);
})"""
FIRST_LINES: list[float] = []  # click -> first transcript line, for every click_to_ready
# Chromium's network emulation (CDP), per link; None: loopback as it is.
MBIT = 1e6 / 8  # bytes per second
LINKS: dict[str, dict[str, Any] | None] = {
    "loopback": None,
    "20 Mbit/s": {
        "offline": False,
        "latency": 20,  # ms, added to each request's round trip
        "downloadThroughput": 20 * MBIT,
        "uploadThroughput": 20 * MBIT,
    },
}
LINK_GOALS = {"loopback": 1.5, "20 Mbit/s": 4.5}
# The cold runs of each round besides the first (gzip host, loopback, which also measures the rest)
OTHER_RUNS = [("gzip", "20 Mbit/s"), ("brotli", "loopback"), ("brotli", "20 Mbit/s")]


def build(target: Path, site_url: str, *, prepared: bool = True) -> None:
    """The site, by default with the prepared interpreter (a brotli host's cold start takes it)."""
    env = {**os.environ, "SITE_URL": site_url, "NO_MKDOCS_2_WARNING": "1"}
    env["TRYIT_PREPARED"] = "1" if prepared else "0"
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(target)]
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)


def runtime_bytes(server: StaticServer) -> int:
    return sum(size for path, size in server.log if "/_tryit/" in path)


def plain_bytes(server: StaticServer) -> int:
    """Like :func:`runtime_bytes` had the worker taken the plain files (no ``.gz`` copies, no
    bundle: every wheel), as a browser without ``DecompressionStream`` does."""
    folder = server.root / "_tryit" / "pyodide"
    lock = json.loads((folder / "tryit-lock.json").read_text(encoding="utf-8"))
    manifest = json.loads((folder / "tryit-bundle.json").read_text(encoding="utf-8"))
    total = 0
    for path, size in server.log:
        if "/_tryit/" not in path:
            continue
        plain = server.root / path.lstrip("/").removesuffix(".gz")
        if path.endswith(manifest["file"]):
            files = (lock["packages"][name]["file_name"] for name in manifest["packages"])
            total += sum((folder / name).stat().st_size for name in files)
        elif path.endswith(".gz") and plain.exists():
            total += plain.stat().st_size
        elif not path.endswith("tryit-bundle.json"):
            total += size
    return total


def emulate(context: Any, page: Any, link: str) -> None:
    """Put ``page`` (and the worker it starts) on ``link`` (:data:`LINKS`)."""
    conditions = LINKS[link]
    if conditions is not None:
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", conditions)


def cold_on_link(playwright: Any, server: StaticServer, url: str, link: str) -> tuple[float, int]:
    """A first visit (new profile) on ``link``: (seconds click -> ready, bytes sent)."""
    with tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=ARGS, headless=True
        )
        try:
            page = context.new_page()
            server.clear_log()
            page.goto(url)
            page.wait_for_load_state("networkidle")
            before = runtime_bytes(server)
            if before:
                raise RuntimeError(f"{before} bytes of the runtime loaded before the click")
            emulate(context, page, link)
            seconds, sent, _ = click_to_ready(page, server)
            # let the worker keep its files before the profile goes (as a reader's would)
            page.wait_for_function(KEPT, timeout=120_000, polling=POLL)
            return seconds, sent
        finally:
            context.close()


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s [{min(values):.2f}-{max(values):.2f}]"


def click_to_ready(page: Any, server: StaticServer) -> tuple[float, int, float]:
    """Click Step on a fresh page; return (seconds to ready, runtime bytes, worker's ms)."""
    server.clear_log()
    times = page.evaluate(CLICK_TO_READY)
    if "failed" in times:
        raise RuntimeError("the runtime did not load: " + times["failed"])
    page.wait_for_function(NOT_BUSY, timeout=60_000, polling=POLL)
    info = page.evaluate("globalThis.__tryitRuntime.info")
    stages = " | ".join(f"{name} @{ms / 1000:.2f}s" for name, ms in info["stages"].items())
    stages += "; files in: " + ", ".join(
        f"{name} @{ms / 1000:.2f}s" for name, ms in (info.get("arrived") or {}).items()
    )
    if info.get("bundleAsked") is not None:
        stages += f"; bundle asked for @{info['bundleAsked'] / 1000:.2f}s"
    how = "restored a saved interpreter" if info.get("restored") else "started afresh"
    if info.get("shipped"):
        how = "restored the prepared interpreter"
    if info.get("linkSpeed") is not None:
        how += f" (the runtime's JavaScript came at {info['linkSpeed'] / 1e6:.1f} MB/s)"
    first_line = times["line"] / 1000
    how += ", brotli host" if info.get("brotli") else ""
    print(f"  {how}; stages (worker clock): {stages}; first line @{first_line:.1f}s (page clock)")
    FIRST_LINES.append(first_line)
    return times["ready"] / 1000, runtime_bytes(server), float(info["ms"])


# Measured in the page: from the click to the new transcript line on screen (in the DOM, then
# the frame that paints it: a task queued from its animation frame runs once it is drawn).
CLICK_TO_LINE = """() => new Promise((resolve) => {
  const list = document.querySelector(".tryit__transcript");
  const before = list.children.length;
  const done = () => resolve(performance.now() - t0);
  const painted = () => requestAnimationFrame(() => setTimeout(done));
  const observer = new MutationObserver(() => {
    if (list.children.length > before) { observer.disconnect(); painted(); }
  });
  observer.observe(list, { childList: true });
  const t0 = performance.now();
  document.querySelector(".tryit button[data-action='step']").click();
})"""


def step_latencies(page: Any, steps: int) -> tuple[list[float], list[float]]:
    """Reset, then click Step ``steps`` times; (click-to-line ms, worker ms) per step."""
    page.click(".tryit button[data-action='reset']")
    page.wait_for_function(NOT_BUSY, polling=POLL)
    clicks, workers = [], []
    for _ in range(steps):
        if page.get_attribute(".tryit", "data-state") == "done":
            break
        clicks.append(float(page.evaluate(CLICK_TO_LINE)))
        page.wait_for_function(NOT_BUSY, polling=POLL)
        workers.append(float(page.get_attribute(".tryit", "data-last-step-ms") or "nan"))
    return clicks, workers


def widget_bytes(server: StaticServer) -> int:
    """What the widget took from the server: its scripts and the runtime."""
    return sum(size for path, size in server.log if "/_tryit/" in path or "/assets/tryit/" in path)


def next_recipe(page: Any, base_url: str, name: str) -> float:
    """Follow a link to another recipe (instant navigation); ms from click to its first line."""
    page.evaluate(
        """(href) => { const a = document.createElement("a"); a.href = href;
        document.querySelector("article").appendChild(a); a.click(); }""",
        f"{base_url}recipes/{name}/",
    )
    page.wait_for_selector(f".tryit[data-tryit='{name}'][data-state='idle']")
    ms = float(page.evaluate(CLICK_TO_LINE))
    page.wait_for_function(NOT_BUSY, polling=POLL)
    return ms


# The same work without the widget (no worker, no progress, no driver): Pyodide loaded on the
# main thread from the same files, the same wheels installed, the same libraries imported.
BASELINE = """<!doctype html><title>baseline</title><script type="module">
const base = new URL("_tryit/pyodide/", location.href).href;
const t0 = performance.now();
const { loadPyodide } = await import(base + "pyodide.mjs");
const py = await loadPyodide({ indexURL: base, lockFileURL: base + "tryit-lock.json",
  packageBaseUrl: base });
await py.loadPackage(["tryit"]);
await py.runPythonAsync("import fastapi, hedron, httpx, resq");
window.baselineMs = performance.now() - t0;
</script>"""


def baseline(context: Any, root: Path, base_url: str) -> float:
    """Seconds the bare runtime takes to be ready on this machine (empty cache)."""
    path = root / "__bench_baseline.html"
    path.write_text(BASELINE, encoding="utf-8")
    try:
        page = context.new_page()
        page.goto(base_url + path.name)
        page.wait_for_function("() => window.baselineMs", timeout=300_000, polling=POLL)
        seconds = float(page.evaluate("window.baselineMs")) / 1000
        page.close()
        return seconds
    finally:
        path.unlink()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="an already built site (same SITE_URL port)")
    parser.add_argument("--recipe", default="resq-exhaustion")
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--next-recipe", default="taskflow")
    parser.add_argument("--repeat", type=int, default=3, help="runs per time (medians)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    cold: list[float] = []
    cold_worker: list[float] = []
    cold_line: list[float] = []  # the click that loads the runtime also steps once
    warm: list[float] = []
    warm_widget: list[int] = []  # bytes of a later visit: the widget's, and the whole page's
    warm_page: list[int] = []
    bare: list[float] = []
    # (host, link) -> cold seconds, bytes; host "gzip": files as they are, "brotli": .br copies
    on_link: dict[tuple[str, str], list[tuple[float, int]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = args.site or Path(tmp) / "site"
        root.mkdir(parents=True, exist_ok=True)
        with (
            StaticServer(root, no_store=True) as server,
            StaticServer(root, no_store=True, precompressed=True) as br_server,
            sync_playwright() as playwright,
        ):
            if args.site is None:
                print("building the site ...", flush=True)
                build(root, server.url)
            url = f"{server.url}recipes/{args.recipe}/"
            for run in range(args.repeat):
                with tempfile.TemporaryDirectory() as profile:
                    context = playwright.chromium.launch_persistent_context(
                        profile, executable_path=CHROMIUM, args=ARGS, headless=True
                    )
                    page = context.new_page()
                    server.clear_log()
                    page.goto(url)
                    page.wait_for_load_state("networkidle")
                    if run == 0:
                        before = runtime_bytes(server)
                        page_bytes = sum(size for _, size in server.log)
                    print(" gzip host, loopback:")
                    seconds, cold_bytes, worker_ms = click_to_ready(page, server)
                    seconds_cold = seconds
                    cold.append(seconds)
                    cold_line.append(FIRST_LINES[-1])
                    cold_worker.append(worker_ms)
                    plain = plain_bytes(server)
                    if run == 0:
                        clicks, workers = step_latencies(page, args.steps)
                        next_ms = next_recipe(page, server.url, args.next_recipe)
                        hedron_clicks, hedron_workers = step_latencies(page, args.steps)
                    # before the worker ends
                    page.wait_for_function(SAVED, timeout=60_000, polling=POLL)
                    page.wait_for_function(KEPT, timeout=60_000, polling=POLL)
                    page.close()
                    again = context.new_page()  # same profile: Cache Storage is warm
                    server.clear_log()
                    again.goto(url)
                    again.wait_for_load_state("networkidle")
                    page_load = (sum(size for _, size in server.log), widget_bytes(server))
                    seconds, _, _ = click_to_ready(again, server)
                    warm.append(seconds)
                    warm_widget.append(page_load[1] + widget_bytes(server))
                    warm_page.append(page_load[0] + sum(size for _, size in server.log))
                    context.close()
                on_link.setdefault(("gzip", "loopback"), []).append((seconds_cold, cold_bytes))
                for host, link in OTHER_RUNS:
                    where = server if host == "gzip" else br_server
                    print(f" {host} host, {link}:")
                    there = url.replace(server.url, where.url)
                    result = cold_on_link(playwright, where, there, link)
                    on_link.setdefault((host, link), []).append(result)
                fresh = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                bare.append(baseline(fresh.new_context(), root, server.url))
                fresh.close()

    cold_s, warm_s, bare_s = (statistics.median(x) for x in (cold, warm, bare))
    load = os.getloadavg()
    print(f"\nrecipe {args.recipe}; load average {load[0]:.1f} on {os.cpu_count()} CPUs;", end="")
    print(f" medians of {args.repeat} runs")
    runs = ", ".join(f"{x:.2f}" for x in cold)
    warm_runs = ", ".join(f"{x:.2f}" for x in warm)
    rows = [
        ("bytes before first click", f"{before} B (page itself {page_bytes / 1e6:.2f} MB)", "0"),
        (
            "cold click -> ready",
            f"{cold_s:.2f} s (worker {statistics.median(cold_worker) / 1000:.2f} s; runs {runs})",
            "3.5 s",
        ),
        (
            "cold click -> first line",
            f"{statistics.median(cold_line):.2f} s (ready, then the first step's request)",
            "",
        ),
        (
            "cold bytes, no HTTP compression",
            f"{cold_bytes / 1e6:.2f} MB sent (the plain files would be {plain / 1e6:.2f} MB)",
            "16 MB",
        ),
        (
            "next recipe, same visit",
            f"{next_ms:.0f} ms click->first line ({args.next_recipe}, same interpreter)",
            "2 s",
        ),
        ("warm click -> ready", f"{warm_s:.2f} s (runs {warm_runs})", "2 s"),
        (
            "warm bytes (page load + click)",
            f"widget {statistics.median(warm_widget) / 1e6:.3f} MB; whole page"
            f" {statistics.median(warm_page) / 1e6:.2f} MB (the theme's files too), no-store",
            "1 MB",
        ),
        (
            f"median step ({len(clicks)} steps, {args.recipe})",
            f"{statistics.median(clicks):.1f} ms click->line painted, "
            f"{statistics.median(workers):.1f} ms in the worker",
            "50 ms",
        ),
        (
            f"median step ({len(hedron_clicks)} steps, {args.next_recipe})",
            f"{statistics.median(hedron_clicks):.1f} ms click->line painted, "
            f"{statistics.median(hedron_workers):.1f} ms in the worker",
            "50 ms",
        ),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, goal in rows:
        print(f"{name:<{width}}  {value:<48} {'goal ' + goal if goal else ''}")
    print(
        "bare Pyodide (plain files, loadPackage, same imports, no widget) on this machine:"
        f" {bare_s:.2f} s; widget cold / bare = {cold_s / bare_s:.2f}x"
    )
    print("\ncold click -> ready by host and link, median [min-max] over the runs:")
    for (host, link), results in on_link.items():
        times = [t for t, _ in results]
        sent = statistics.median(b for _, b in results) / 1e6
        goal = LINK_GOALS[link]
        print(
            f"  {host + ' host':<12} {link:<10} {spread(times):<24} {sent:.2f} MB sent"
            f"  goal {goal} s ({statistics.median(times) / goal:.2f}x)"
        )
    print(f"cold/goal {cold_s / 3.5:.2f}x, warm/goal {warm_s / 2:.2f}x, ", end="")
    print(f"median step/goal {statistics.median(clicks) / 50:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
