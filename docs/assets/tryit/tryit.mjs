// The "Try it" widget of recipe pages. Nothing of the Python runtime loads before the first
// click; then ONE Web Worker (one Pyodide interpreter) serves every widget for the whole visit,
// across the theme's instant navigation. This file only relays clicks to the worker and applies
// what Python answers: transcript lines, and HTML swaps done by the real htmx served by the site.

const BASE = new URL("../../_tryit/", import.meta.url);
// No progress for this long: give up and show the recorded transcript. The known silent hang
// (wasm served with a wrong MIME type) is detected at once by the worker; this guards against
// anything else. Starting the interpreter and importing the libraries send no progress events
// and take several seconds on a slow machine, hence the generous limits.
const STALL_MS = () => globalThis.TRYIT_STALL_MS || 60000;
const PYTHON_STALL_MS = 180000;
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

let runtime = null;

function canRun() {
  return typeof Worker !== "undefined" && typeof WebAssembly !== "undefined";
}

function newWorker() {
  const script = new URL("worker.mjs", import.meta.url);
  // tests only: a browser without JSPI, or without DecompressionStream (no .gz files, no bundle)
  if (globalThis.TRYIT_SIMULATE_NO_JSPI) script.searchParams.set("nojspi", "");
  if (globalThis.TRYIT_SIMULATE_NO_DECOMPRESSION) script.searchParams.set("nodecompress", "");
  const worker = new Worker(script, { type: "module" });
  worker.onerror = (event) => (worker.startError = event.message || "the worker failed to start");
  return worker;
}

// A worker started while the page is idle, before any click: it loads nothing of the runtime
// until startRuntime() tells it to, and saves the click the worker's own start-up.
let spare = null;
function prepareWorker() {
  if (spare || runtime || !canRun()) return;
  try {
    spare = newWorker();
  } catch {
    // e.g. a page opened from file://: the click will say why, through startRuntime()
  }
}

function startRuntime() {
  if (runtime) return runtime;
  const listeners = new Set();
  const pending = new Map();
  let nextId = 1;
  let settle;
  const ready = new Promise((resolve, reject) => (settle = { resolve, reject }));
  ready.catch(() => {});
  const state = { listeners, pending, ready, worker: null, info: null };
  if (!canRun()) {
    settle.reject(new Error("this browser cannot run WebAssembly in a Web Worker"));
    runtime = state;
    return state;
  }
  const worker = spare || newWorker();
  spare = null;
  state.worker = worker;
  let watchdog;
  const fail = (reason) => {
    clearTimeout(watchdog);
    worker.terminate();
    settle.reject(new Error(reason));
  };
  let pythonRuns = false;
  const arm = () => {
    clearTimeout(watchdog);
    const limit = pythonRuns ? PYTHON_STALL_MS : STALL_MS();
    watchdog = setTimeout(() => fail("the runtime stopped loading (timed out)"), limit);
  };
  arm();
  worker.onerror = (event) => fail(event.message || "the worker failed to start");
  if (worker.startError) fail(worker.startError); // it failed while it waited
  worker.onmessage = ({ data }) => {
    if (data.kind === "progress") {
      pythonRuns = data.python === true;
      arm();
      listeners.forEach((fn) => fn(data));
    } else if (data.kind === "ready") {
      clearTimeout(watchdog);
      state.info = data;
      listeners.forEach((fn) => fn(data));
      settle.resolve(data);
    } else if (data.kind === "saved") {
      state.saved = data.ok; // the interpreter is kept for the next visit (snapshot.mjs)
    } else if (data.kind === "failed") {
      fail(data.reason);
    } else if (data.kind === "reply") {
      const waiter = pending.get(data.id);
      pending.delete(data.id);
      if (waiter) (data.error ? waiter.reject(new Error(data.error)) : waiter.resolve(data));
    }
  };
  worker.postMessage({ kind: "start" }); // now the runtime loads
  state.send = (message) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, message });
    });
  runtime = state;
  globalThis.__tryitRuntime = state; // for the benchmark and the browser tests
  return state;
}

let htmxLoading = null;
function loadHtmx() {
  if (globalThis.htmx) return Promise.resolve(globalThis.htmx);
  htmxLoading ||= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = new URL("htmx.min.js", BASE).href;
    script.onload = () => resolve(globalThis.htmx);
    script.onerror = () => reject(new Error("htmx could not be loaded"));
    document.head.appendChild(script);
  });
  return htmxLoading;
}

const MB = (n) => `${(n / 1e6).toFixed(1)} MB`;

// A hedron widget's demo panel (panel.mjs), on the worker's in-process app.
async function openDemoPanel(widget, rt) {
  const { DemoPanel, workerTransport } = await import("./panel.mjs");
  return new DemoPanel({
    container: widget.panel,
    transport: workerTransport(rt.send, widget.recipe, widget.session),
    onNote: (text) => widget.say(text),
  });
}

class Widget {
  constructor(root) {
    this.root = root;
    this.recipe = root.dataset.tryit;
    // One Python session per widget placement (a page may show a recipe twice); revisiting the
    // page reuses it, and the first Step of a new widget starts it afresh.
    const index = [...document.querySelectorAll(".tryit")].indexOf(root);
    this.session = `${this.recipe}@${location.pathname}#${index}`;
    this.status = root.querySelector(".tryit__status");
    this.progress = root.querySelector(".tryit__progress");
    this.panel = root.querySelector(".tryit__panel");
    this.list = root.querySelector(".tryit__transcript");
    this.buttons = [...root.querySelectorAll("button[data-action]")];
    this.fresh = true;
    this.busy = false;
    this.finished = false;
    for (const button of this.buttons) {
      button.addEventListener("click", () => this.act(button.dataset.action));
    }
    root.dataset.state = "idle";
  }

  setBusy(busy) {
    // While busy the buttons stay focusable (aria-disabled; clicks are ignored), so keyboard
    // users keep their place; at the end Step and Run are disabled and focus moves to Reset.
    this.busy = busy;
    this.root.setAttribute("aria-busy", String(busy));
    const focused = this.buttons.find((b) => b === document.activeElement);
    for (const button of this.buttons) {
      button.setAttribute("aria-busy", String(busy));
      button.setAttribute("aria-disabled", String(busy));
      const endOnly = button.dataset.action !== "reset" && this.finished;
      button.disabled = endOnly || this.root.dataset.state === "fallback";
    }
    const reset = this.buttons.find((b) => b.dataset.action === "reset");
    if (focused && focused.disabled && reset && !reset.disabled) reset.focus();
  }

  say(text) {
    this.status.textContent = text;
  }

  async act(action) {
    if (this.busy) return;
    this.setBusy(true);
    try {
      if (action === "reset") await this.reset();
      else await this.advance(action);
    } catch (error) {
      this.say(`Error: ${error.message}`);
    } finally {
      this.setBusy(false);
    }
  }

  async ensureReady() {
    const rt = startRuntime();
    if (!rt.info) {
      this.progress.hidden = false;
      this.progress.value = 0; // moved by the worker's `done`: an indeterminate bar animates
      const show = (p) => {
        if (p.kind === "ready") this.say(`Python ready (${MB(p.bytes)} in ${(p.ms / 1000).toFixed(1)} s).`);
        else this.say(`${p.stage}… ${MB(p.bytes)}`);
        if (typeof p.done === "number") this.progress.value = p.done;
      };
      rt.listeners.add(show);
      try {
        await Promise.all([rt.ready, loadHtmx()]);
      } finally {
        rt.listeners.delete(show);
        this.progress.hidden = true;
      }
    } else {
      await loadHtmx();
    }
    return rt;
  }

  async advance(action) {
    let rt;
    try {
      rt = await this.ensureReady();
    } catch (error) {
      this.fallback(error.message);
      return;
    }
    this.root.dataset.state = "running";
    if (this.root.dataset.driver === "page") {
      // hedron: the app's page runs in the demo panel, its htmx sends the requests (panel.mjs)
      const started = performance.now();
      this.demo ||= await openDemoPanel(this, rt);
      this.fresh = false;
      this.apply(await (action === "step" ? this.demo.step() : this.demo.run()));
      this.root.dataset.lastStepMs = String(performance.now() - started);
      return;
    }
    const message = { action, recipe: this.recipe, session: this.session, fresh: this.fresh };
    const reply = await rt.send(message);
    this.fresh = false;
    const result = reply.result;
    if (result.unsupported) {
      this.fallback(result.unsupported);
      return;
    }
    this.apply(result);
    this.root.dataset.lastStepMs = String(reply.ms);
  }

  apply(result) {
    const htmx = globalThis.htmx;
    for (const swap of result.swaps) {
      this.panel.hidden = false;
      const target = swap.target ? this.panel.querySelector(swap.target) : this.panel;
      if (target) htmx.swap(target, swap.html, { swapStyle: swap.style, swapDelay: 0, settleDelay: 0 });
    }
    for (const line of result.lines) {
      const item = document.createElement("li");
      item.textContent = line;
      this.list.appendChild(item);
    }
    const last = this.list.lastElementChild;
    if (last && last.scrollIntoView) {
      last.scrollIntoView({ block: "nearest", behavior: reducedMotion.matches ? "auto" : "smooth" });
    }
    if (result.done) {
      this.finished = true;
      this.root.dataset.state = "done";
      this.root.dataset.outcome = result.outcome;
      this.say(`Stopped (${result.message}). Reset to run it again.`); // Python says which
    } else {
      this.steps = (this.steps || 0) + 1;
      this.say(`Paused after request ${this.steps}. Step sends the next one.`);
    }
  }

  async reset() {
    if (runtime && runtime.info && !this.fresh) {
      await runtime.send({ action: "reset", recipe: this.recipe, session: this.session });
    }
    this.demo?.reset();
    this.demo = null;
    this.fresh = true;
    this.finished = false;
    this.steps = 0;
    this.list.replaceChildren();
    this.panel.replaceChildren();
    this.panel.hidden = true;
    delete this.root.dataset.outcome;
    if (this.root.dataset.state !== "fallback") this.root.dataset.state = "idle";
    this.say("Reset. Click Step to run the code again.");
  }

  fallback(reason) {
    this.root.dataset.state = "fallback";
    this.finished = true;
    const recorded = this.recorded();
    this.list.replaceChildren(
      ...recorded.map((line) => {
        const item = document.createElement("li");
        item.textContent = line;
        return item;
      }),
    );
    this.say(`Could not run the code in this browser: ${reason}. Showing the transcript recorded by the test suite instead.`);
  }

  recorded() {
    let node = this.root.nextElementSibling;
    while (node && !node.classList.contains("tryit-recorded")) node = node.nextElementSibling;
    const code = node && node.querySelector("code");
    return code ? code.textContent.replace(/\n$/, "").split("\n") : [];
  }
}

function init() {
  const roots = document.querySelectorAll(".tryit:not([data-state])");
  for (const root of roots) new Widget(root);
  if (roots.length) (globalThis.requestIdleCallback || setTimeout)(prepareWorker);
}

if (globalThis.document$ && typeof globalThis.document$.subscribe === "function") {
  globalThis.document$.subscribe(init); // the theme's instant navigation swaps pages in place
} else {
  init();
}
