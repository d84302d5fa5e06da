// @ts-check
// The "Try it" widget of recipe pages. Nothing of the Python runtime loads before the first
// click; then ONE Web Worker (one Pyodide interpreter) serves every widget for the whole visit,
// across the theme's instant navigation. This file only relays clicks to the worker and applies
// what Python answers: transcript lines, and the last answer a resq client got. Edit
// (editing.mjs) lets the reader change the recipe's code and run that instead. Edited Python
// runs in the worker and may post anything: every message from it is data, checked
// (checks.mjs) and shown as text only.

import { checkStep, checkWorkerMessage } from "./checks.mjs";
import { EditMode } from "./editing.mjs";
import { recipeFiles } from "./recipefiles.mjs";
import { LiveTimeline } from "./timelinelive.mjs";

// No progress for this long: give up, say so and show the recorded transcript. Downloads
// report progress many times a second. Once the worker computes (Pyodide compiling its wasm
// with every byte in; Python starting, installing, importing) it may say nothing for seconds
// at a time on a busy machine, hence the longer limit then. A step that gets no answer for
// REPLY_MS means the worker is gone.
const STALL_MS = 10000;
const BUSY_STALL_MS = 60000;
const REPLY_MS = 10000;
// Edited code that keeps the worker from answering (a loop Python's own budget cannot stop:
// tryit/_edits.py) is said to be the reason when the worker is ended for it.
const EDITED_SILENT = `The edited code did not stop within ${REPLY_MS / 1000} s (the budget of an edited run): the Python runtime was ended, and the next run starts it again`;
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

/**
 * @typedef {import("./checks.mjs").WorkerMessage} WorkerMessage
 * @typedef {Extract<WorkerMessage, { kind: "progress" }>} Progress
 * @typedef {Extract<WorkerMessage, { kind: "ready" }>} Ready
 * @typedef {Extract<WorkerMessage, { kind: "reply" }>} Reply
 * @typedef {Worker & { startError?: string }} TryitWorker
 * @typedef {(message: object, options?: { silent?: string | null }) => Promise<Reply>} Send
 * @typedef {{
 *   listeners: Set<(data: Progress | Ready) => void>,
 *   pending: Map<number, { resolve(reply: Reply): void, reject(error: Error): void, timer: number }>,
 *   ready: Promise<Ready>, worker: TryitWorker | null, info: Ready | null, failed: string | null,
 *   permanent?: boolean, saved?: boolean, kept?: number, fail?: (reason: string) => void, send?: Send,
 * }} Runtime
 * @typedef {Runtime & { send: Send }} Started a runtime whose worker started (it has `send`)
 * @typedef {{
 *   lines: string[], done: boolean, outcome: string | null, message: string,
 *   error: import("./checks.mjs").PythonError | null, response?: string | null, unsupported?: string | null,
 * }} StepResult one step's (or a whole run's) answer: a resq recipe's (checkStep) or the demo panel's
 */

/** @type {Runtime | null} */
let runtime = null;

function canRun() {
  return typeof Worker !== "undefined" && typeof WebAssembly !== "undefined";
}

function newWorker() {
  const script = new URL("worker.mjs", import.meta.url);
  // tests only: a browser without JSPI, or without DecompressionStream (no .gz files, no bundle)
  if (globalThis.TRYIT_SIMULATE_NO_JSPI) script.searchParams.set("nojspi", "");
  if (globalThis.TRYIT_SIMULATE_NO_DECOMPRESSION) script.searchParams.set("nodecompress", "");
  // tests only: take the link for a fast or a slow one ("fast", "slow"), whatever it measures
  if (globalThis.TRYIT_SIMULATE_LINK) script.searchParams.set("link", globalThis.TRYIT_SIMULATE_LINK);
  const worker = /** @type {TryitWorker} */ (new Worker(script, { type: "module" }));
  worker.onerror = (event) => (worker.startError = event.message || "it did not start");
  return worker;
}

// A worker started while the page is idle, before any click: it loads nothing of the runtime
// until startRuntime() tells it to, and saves the click the worker's own start-up.
/** @type {TryitWorker | null} */
let spare = null;
function prepareWorker() {
  if (spare || runtime || !canRun()) return;
  try {
    spare = newWorker();
  } catch {
    // e.g. a page opened from file://: the click will say why, through startRuntime()
  }
}

// The one runtime of the visit (a Web Worker running Pyodide), started on the first click; a
// click after it failed starts a new one (Retry).
function startRuntime() {
  if (runtime && !runtime.failed) return runtime;
  if (runtime && runtime.permanent) return runtime; // this browser cannot: trying again won't help
  const listeners = new Set();
  const pending = new Map();
  let nextId = 1;
  /** @type {{ resolve(ready: Ready): void, reject(error: Error): void }} */
  let settle = /** @type {any} set at once, by the promise's executor */ (undefined);
  /** @type {Promise<Ready>} */
  const ready = new Promise((resolve, reject) => (settle = { resolve, reject }));
  ready.catch(() => {});
  /** @type {Runtime} */
  const state = { listeners, pending, ready, worker: null, info: null, failed: null };
  runtime = state;
  globalThis.__tryitRuntime = state; // for the benchmark and the browser tests
  if (!canRun()) {
    state.failed = "This browser cannot run WebAssembly in a Web Worker";
    state.permanent = true;
    settle.reject(new Error(state.failed));
    return state;
  }
  /** @type {TryitWorker} */
  let worker;
  try {
    worker = spare || newWorker();
  } catch (error) {
    state.failed = `The Python runtime could not be started (${error.message})`;
    settle.reject(new Error(state.failed));
    return state;
  }
  spare = null;
  state.worker = worker;
  // The bundle's own worker (fetcher.mjs): it downloads the libraries while the first one's
  // thread starts Python. Without it (it cannot start, or dies) the first one downloads them.
  /** @type {Worker | null} */
  let fetcher = null;
  const channel = new MessageChannel();
  try {
    fetcher = new Worker(new URL("fetcher.mjs", import.meta.url), { type: "module" });
    fetcher.onerror = (event) => {
      event.preventDefault(); // handled: the first worker downloads the bundle itself
      worker.postMessage({ kind: "fetcher gone", reason: event.message || "it stopped" });
    };
    fetcher.postMessage({ port: channel.port2 }, [channel.port2]);
  } catch {
    fetcher = null;
  }
  /** @type {number | undefined} */
  let watchdog;
  // Ends this runtime: the reason is said in plain words; every waiting click learns it.
  /** @param {string} reason */
  const fail = (reason) => {
    if (state.failed) return;
    state.failed = reason;
    clearTimeout(watchdog);
    worker.terminate();
    fetcher?.terminate();
    settle.reject(new Error(reason));
    for (const waiter of pending.values()) waiter.reject(new Error(reason));
    pending.clear();
  };
  state.fail = fail;
  let busy = false; // the worker computes rather than waits for bytes (its last progress said so)
  const arm = () => {
    clearTimeout(watchdog);
    const limit = busy ? BUSY_STALL_MS : STALL_MS;
    const why = `The Python runtime stopped loading (nothing arrived for ${limit / 1000} s)`;
    watchdog = setTimeout(() => fail(why), limit);
  };
  arm();
  /** @param {string} what */
  const crashed = (what) => fail(`The Python runtime stopped: its worker crashed (${what})`);
  worker.onerror = (event) => crashed(event.message || "no reason given");
  if (worker.startError) crashed(worker.startError); // it failed while it waited
  worker.onmessage = (event) => {
    const data = checkWorkerMessage(event.data);
    if (!data) return; // not a message of the worker's: ignored
    if (data.kind === "progress") {
      busy = data.busy === true;
      // The watchdog is for loading: a runtime that is ready may still report bytes (a fresh
      // interpreter being saved for the next visit), and must not be failed 10 s after them.
      if (!state.info) arm();
      listeners.forEach((fn) => fn(data));
    } else if (data.kind === "ready") {
      clearTimeout(watchdog);
      state.info = data;
      listeners.forEach((fn) => fn(data));
      settle.resolve(data);
    } else if (data.kind === "saved") {
      state.saved = data.ok; // the interpreter is kept for the next visit (snapshot.mjs)
    } else if (data.kind === "kept") {
      state.kept = data.files; // the files downloaded are kept for the next visit (files.mjs)
    } else if (data.kind === "failed") {
      fail(data.reason);
    } else if (data.kind === "reply") {
      const waiter = pending.get(data.id);
      pending.delete(data.id);
      if (waiter) {
        clearTimeout(waiter.timer);
        if (data.error) waiter.reject(new Error(data.error));
        else waiter.resolve(data);
      }
    }
  };
  if (fetcher) worker.postMessage({ kind: "start", fetcher: channel.port1 }, [channel.port1]);
  else worker.postMessage({ kind: "start" }); // now the runtime loads
  // `silent`: what to say if no answer comes (the reader's edited code may be why)
  /** @type {Send} */
  const post = (message, { silent = null } = {}) =>
    new Promise((resolve, reject) => {
      if (state.failed) return reject(new Error(state.failed));
      const id = nextId++;
      const timer = setTimeout(
        () => fail(silent || `The Python runtime stopped answering (no answer for ${REPLY_MS / 1000} s)`),
        REPLY_MS,
      );
      pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, message });
    });
  // The runtime carries no recipe: the worker gets each one's files before its first message.
  /** @type {Map<string, Promise<Reply>>} */
  const installed = new Map();
  /** @param {string} recipe @returns {Promise<Reply>} */
  const install = (recipe) => {
    if (!installed.has(recipe)) {
      const done = recipeFiles(recipe).then(({ runtime }) => post({ action: "install", recipe, files: runtime }));
      done.catch(() => installed.delete(recipe)); // tried again with the next message
      installed.set(recipe, done);
    }
    return /** @type {Promise<Reply>} */ (installed.get(recipe));
  };
  state.send = async (message, options) => {
    await install(/** @type {{ recipe: string }} */ (message).recipe);
    return post(message, options);
  };
  return state;
}

/** @param {number} n */
const MB = (n) => `${(n / 1e6).toFixed(1)} MB`;
// A transcript line of a request (not "> " printed output nor the "= " end line).
/** @param {string} line */
const isRequest = (line) => line.startsWith("t=");

// A hedron widget's demo panel (panel.mjs), on the worker's in-process app.
/** @param {Widget} widget @param {Started} rt */
async function openDemoPanel(widget, rt) {
  const { DemoPanel, workerTransport } = await import("./panel.mjs");
  /** @param {object} message */
  const send = (message) => rt.send(message, widget.sendOptions());
  return new DemoPanel({
    container: widget.panel,
    transport: workerTransport(send, widget.recipe, widget.session, () => widget.code),
    onNote: (text) => widget.say(text),
  });
}

class Widget {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    this.recipe = /** @type {string} */ (root.dataset.tryit);
    // One Python session per widget placement (a page may show a recipe twice); revisiting the
    // page reuses it, and the first Step of a new widget starts it afresh.
    const index = [...document.querySelectorAll(".tryit")].indexOf(root);
    this.session = `${this.recipe}@${location.pathname}#${index}`;
    // (the widget's markup: docsite/pages/recipes.py)
    this.status = /** @type {HTMLElement} */ (root.querySelector(".tryit__status"));
    this.live = /** @type {HTMLElement} */ (root.querySelector(".tryit__live")); // the widget's one live region
    this.progress = /** @type {HTMLProgressElement} */ (root.querySelector(".tryit__progress"));
    this.panel = /** @type {HTMLElement} */ (root.querySelector(".tryit__panel"));
    this.list = /** @type {HTMLOListElement} */ (root.querySelector(".tryit__transcript"));
    this.buttons = /** @type {HTMLButtonElement[]} */ ([...root.querySelectorAll("button[data-action]")]);
    /** @param {string} action */
    this.button = (action) => this.buttons.find((b) => b.dataset.action === action);
    this.recordedBlock = this.findRecorded();
    this.timeline = new LiveTimeline(root, this.recorded());
    this.fresh = true;
    this.busy = false;
    this.finished = false;
    this.canRetry = false;
    /** @type {Started | null} */
    this.rt = null; // the runtime this widget's Python session lives in
    /** @type {Record<string, string> | null} */
    this.code = null; // the edited files this run loads ({name: text}), or null: the recipe's
    this.stale = false; // the code was edited since this run started: the next one is fresh
    this.edit = this.button("edit") ? new EditMode(this) : null;
    /** @type {import("./panel.mjs").DemoPanel | null | undefined} the hedron demo's, once opened */
    this.demo;
    for (const button of this.buttons) {
      button.addEventListener("click", () => this.act(/** @type {string} */ (button.dataset.action)));
    }
    // (the page's own script after the widget has shown its buttons: site_pages.GO_LIVE)
    root.dataset.state = "idle";
  }

  /** @param {boolean} busy */
  setBusy(busy) {
    // While busy the buttons stay focusable (aria-disabled; clicks are ignored), so keyboard
    // users keep their place; at the end Step and Run are disabled and focus moves to Reset.
    // After a failure of the runtime, Retry takes Step's place.
    this.busy = busy;
    this.root.setAttribute("aria-busy", String(busy));
    const focused = this.buttons.find((b) => b === document.activeElement);
    const failed = this.root.dataset.state === "fallback";
    for (const button of this.buttons) {
      const action = button.dataset.action;
      button.setAttribute("aria-disabled", String(busy));
      if (action === "retry") button.hidden = !(failed && this.canRetry);
      else if (action === "step") button.hidden = failed && this.canRetry;
      else if (action === "run") button.hidden = failed && this.canRetry;
      if (action === "step" || action === "run") button.disabled = this.finished;
    }
    if (focused && (focused.disabled || focused.hidden)) {
      const next = /** @type {HTMLButtonElement[]} every widget has both */ ([this.button("retry"), this.button("reset")]).find((b) => !b.hidden && !b.disabled);
      if (next) next.focus();
    }
  }

  /** @param {string} text */
  say(text) {
    this.status.textContent = text;
  }

  // Tell assistive technology, once per action (the widget's one polite live region).
  /** @param {string} text */
  announce(text) {
    this.live.textContent = text;
  }

  /** @param {string} action */
  async act(action) {
    if (this.busy) return;
    this.setBusy(true);
    try {
      if (action === "reset") await this.reset();
      else if (action === "retry") await this.retry();
      else if (action === "edit") await /** @type {EditMode} its button's */ (this.edit).toggle();
      else if (action === "shared") await /** @type {EditMode} */ (this.edit).openShared();
      else await this.advance(action);
    } catch (error) {
      this.say(`Error: ${error.message}`);
      this.announce(`Error: ${error.message}`);
    } finally {
      this.setBusy(false);
    }
  }

  /** @returns {Promise<Started>} */
  async ensureReady() {
    const rt = startRuntime();
    if (!rt.info) {
      this.progress.hidden = false;
      this.progress.value = 0; // moved by the worker's `done`: an indeterminate bar animates
      this.announce("Loading the Python runtime…");
      /** @param {Progress | Ready} p */
      const show = (p) => {
        if (p.kind === "ready") this.say(`Python ready (${MB(p.bytes)} in ${(p.ms / 1000).toFixed(1)} s).`);
        else this.say(`${p.stage}… ${MB(p.bytes)}`);
        if (typeof p.done === "number") this.progress.value = p.done;
      };
      rt.listeners.add(show);
      try {
        await rt.ready;
      } finally {
        rt.listeners.delete(show);
        this.progress.hidden = true;
      }
    }
    return /** @type {Started} its worker is ready */ (rt);
  }

  /** @param {string} action */
  async advance(action) {
    this.lastAction = action;
    if (this.stale) this.clear(); // edited since: start afresh with the new code
    let rt;
    try {
      rt = await this.ensureReady();
    } catch (error) {
      this.fallback(error.message, { retry: !(runtime && runtime.permanent) });
      return;
    }
    if (rt !== this.rt) {
      // a new runtime (after Retry): this widget's earlier session was in the one that failed
      if (this.rt) this.clear();
      this.rt = rt;
      this.fresh = true;
    }
    if (this.fresh) {
      this.code = this.edit?.code() ?? null;
      this.edit?.clearRun();
    }
    this.root.dataset.state = "running";
    /** @type {{ result: StepResult, ms: number }} */
    let answer;
    try {
      answer = this.root.dataset.driver === "page"
        ? await this.stepPage(action, rt)
        : await this.stepCode(action, rt);
    } catch (error) {
      if (!rt.failed) throw error; // Python said no: shown as an error, the runtime lives on
      if (rt.failed === EDITED_SILENT) this.stopped(rt.failed);
      else this.fallback(rt.failed, { retry: true });
      return;
    }
    this.fresh = false;
    const { result, ms } = answer;
    if (result.unsupported) {
      this.fallback(`This recipe cannot run in this browser: ${result.unsupported}`, { retry: false });
      return;
    }
    this.apply(result, action);
    this.root.dataset.lastStepMs = String(ms);
  }

  // hedron: the app's page runs in the demo panel and its htmx sends the requests (panel.mjs).
  /** @param {string} action @param {Started} rt */
  async stepPage(action, rt) {
    const started = performance.now();
    this.demo ||= await openDemoPanel(this, rt);
    const result = await (action === "step" ? this.demo.step() : this.demo.run());
    return { result, ms: performance.now() - started };
  }

  // resq: the recipe's client code steps in the worker, one request at a time.
  /** @param {string} action @param {Started} rt */
  async stepCode(action, rt) {
    /** @type {{ action: string, recipe: string, session: string, fresh: boolean, code?: Record<string, string> }} */
    const message = { action, recipe: this.recipe, session: this.session, fresh: this.fresh };
    if (this.fresh && this.code) message.code = this.code;
    const reply = await rt.send(message, this.sendOptions());
    return { result: checkStep(reply.result), ms: reply.ms };
  }

  sendOptions() {
    return { silent: this.code ? EDITED_SILENT : null };
  }

  // The reader edited the code: the next Step or Run starts afresh with it (also after a
  // run that ended).
  codeChanged() {
    this.stale = !this.fresh;
    this.finished = false;
    if (!this.busy) this.setBusy(false);
  }

  // The hand-over point: one step's (or a whole run's) answer from Python is shown here.
  /** @param {StepResult} result */
  apply(result, action = "step") {
    if (result.response != null) this.showResponse(result.response);
    const added = this.addLines(result.lines);
    this.timeline.show([...this.list.children].map((li) => li.textContent || ""), this.code);
    const requests = [...this.list.children].filter((li) => isRequest(li.textContent)).length;
    let state;
    // an edited run: where its transcript leaves the tested one, and Python's error
    const differs = this.code ? /** @type {EditMode} */ (this.edit).markDifference(this.list, this.recorded(), result.done) : null;
    if (result.error) this.edit?.showError(result.error);
    const compared = differs ? ` The transcript ${differs}.` : "";
    if (result.done) {
      this.finished = true;
      this.root.dataset.state = "done";
      this.root.dataset.outcome = /** @type {string} a run that is done says how */ (result.outcome);
      state = `Stopped (${result.message}).${compared}`; // Python says which
      const next = this.code ? "Edit the code to run it again, or Reset to go back to the tested code." : "Reset to run it again.";
      this.say(`${state} ${next}`);
    } else {
      state = `Paused after request ${requests}.${compared}`;
      this.say(`${state} Step sends the next one.`);
    }
    // one announcement: a step's new lines, or for Run to end a summary (not every line)
    if (action === "run") this.announce(`Ran to the end: ${requests} requests. ${state}`);
    else this.announce(`${added.join(" ")} ${state}`);
  }

  // The last answer the resq client got (its status line and body), as text.
  /** @param {string} text */
  showResponse(text) {
    let shown = this.panel.querySelector(".tryit__response");
    if (!shown) {
      shown = document.createElement("pre");
      shown.className = "tryit__response";
      this.panel.replaceChildren(shown);
    }
    shown.textContent = text;
    this.panel.hidden = false;
  }

  /** @param {string[]} lines */
  addLines(lines) {
    for (const line of lines) {
      const item = document.createElement("li");
      item.textContent = line;
      this.list.appendChild(item);
    }
    const last = this.list.lastElementChild;
    if (lines.length && last && last.scrollIntoView) {
      last.scrollIntoView({ block: "nearest", behavior: reducedMotion.matches ? "auto" : "smooth" });
    }
    return lines;
  }

  // Back to the start: no transcript, no panel, Step and Run usable.
  clear() {
    this.demo?.reset();
    this.demo = null;
    this.fresh = true;
    this.stale = false;
    this.finished = false;
    this.canRetry = false;
    this.list.replaceChildren();
    this.timeline.clear();
    this.panel.replaceChildren();
    this.panel.hidden = true;
    delete this.root.dataset.outcome;
    this.root.dataset.state = "idle";
  }

  async reset() {
    if (runtime && runtime === this.rt && runtime.info && !runtime.failed && !this.fresh) {
      await /** @type {Started} this widget's */ (runtime).send({ action: "reset", recipe: this.recipe, session: this.session });
    }
    this.clear();
    const edited = this.edit?.code();
    this.edit?.reset();
    this.code = null;
    this.say(edited ? "Reset: the tested code is back. Click Step to run it." : "Reset. Click Step to run the code again.");
    this.announce("Reset.");
  }

  // The edited code kept the worker busy past its budget: the worker was ended (the next
  // run starts a new one); this widget stays usable, with what the run showed so far.
  /** @param {string} reason */
  stopped(reason) {
    this.finished = true;
    this.root.dataset.state = "done";
    this.root.dataset.outcome = "budget";
    this.say(`Stopped: ${reason}. Edit the code to run it again, or Reset.`);
    this.announce(`Stopped: ${reason}.`);
  }

  // Start the runtime again (a new worker) and repeat what failed.
  async retry() {
    this.clear();
    await this.advance(this.lastAction || "step");
  }

  // The code cannot run here: say why, show the recorded transcript. `retry`: whether starting
  // the runtime again may help (Retry then takes Step's place); Reset is always usable.
  /** @param {string} reason @param {{ retry: boolean }} options */
  fallback(reason, { retry }) {
    this.root.dataset.state = "fallback";
    this.finished = true;
    this.canRetry = retry;
    this.timeline.clear();
    this.list.replaceChildren(
      ...this.recorded().map((line) => {
        const item = document.createElement("li");
        item.textContent = line;
        return item;
      }),
    );
    const text = `${reason}. Showing the transcript recorded by the test suite instead.`;
    this.say(retry ? `${text} Retry starts the runtime again.` : text);
    this.announce(text);
  }

  findRecorded() {
    let node = this.root.nextElementSibling;
    while (node && !node.classList.contains("tryit-recorded")) node = node.nextElementSibling;
    return node;
  }

  recorded() {
    const code = this.recordedBlock && this.recordedBlock.querySelector("code");
    return code ? code.textContent.replace(/\n$/, "").split("\n") : [];
  }
}

function init() {
  const roots = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".tryit:not([data-state])"));
  const widgets = [...roots].map((root) => new Widget(root));
  // a share link (#tryit=<recipe>.<data>) opens the first widget of its recipe with its code
  const shared = widgets.find((w) => w.edit?.sharedHere());
  if (shared) shared.act("shared");
  if (roots.length) (globalThis.requestIdleCallback || setTimeout)(prepareWorker);
}

if (globalThis.document$ && typeof globalThis.document$.subscribe === "function") {
  globalThis.document$.subscribe(init); // the theme's instant navigation swaps pages in place
} else {
  init();
}
